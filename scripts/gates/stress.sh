#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On KERNEL= in QEMU, into $BUILD/<kernel>/stress: hostile input and lifecycle abuse of
# test_sched_state (guest/stress.sh; STRESS_*: docs/variables.md); with --hotplug, into .../hotplug:
# the rtlock checks while CPU 1 goes offline and online (guest/hotplug.sh; PREEMPT_RT)
. "$(dirname "$0")/../lib.sh"
if [ "${1:-}" = --hotplug ]; then
	what=hotplug timeout=300 cmd="sh /guest/hotplug.sh ${HOTPLUG_RUNS:-10}"
else
	what=stress timeout=${STRESS_TIMEOUT:-900} cmd="echo 'TAP version 13'; $(stress_command)"
fi
pick_kernel
ksft=$("$TOP/scripts/tree/build-kselftest.sh")
out=$BUILD/$KNAME/$what
say "$what on $KNAME ($KIMAGE)"
start=$SECONDS rc=0
"$TOP/scripts/vm/vm.sh" --arch "$KARCH" --timeout "$timeout" --kimage "$KIMAGE" --ksft "$ksft" \
	--out "$out" --guest-cmd "$cmd" >"$out.log" 2>&1 || rc=$?
[ $what = hotplug ] || python3 "$TOP/scripts/report/result.py" stress "$out" || rc=1
grep 'vm.sh: summary:' "$out.log" || true
if ((rc)); then
	tail -n 40 "$out.log"
	die "$what on $KNAME failed after $((SECONDS - start)) s; log: $out.log, TAP: $out/ktap.tap"
fi
echo "$what on $KNAME: passed in $((SECONDS - start)) s (TAP, dmesg, console: $out)"
