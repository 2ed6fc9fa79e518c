#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile input and lifecycle abuse of test_sched_state on KERNEL= in QEMU
# (scripts/vm/guest/stress.sh; STRESS_*: docs/variables.md), into
# $BUILD/<kernel>/stress
. "$(dirname "$0")/../lib.sh"
cmd=$(stress_command) || exit
pick_kernel
ksft=$("$TOP/scripts/tree/build-kselftest.sh")
out=$BUILD/$KNAME/stress

say "stress on $KNAME ($KIMAGE)"
start=$SECONDS rc=0
"$TOP/scripts/vm/vm.sh" --timeout "${STRESS_TIMEOUT:-900}" --kimage "$KIMAGE" --ksft "$ksft" \
	--out "$out" --guest-cmd "echo 'TAP version 13'; $cmd" >"$out.log" 2>&1 || rc=$?
python3 "$TOP/scripts/report/result.py" stress "$out" || rc=1
grep 'vm.sh: summary:' "$out.log" || true
if ((rc)); then
	tail -n 40 "$out.log"
	die "stress on $KNAME failed after $((SECONDS - start)) s; log: $out.log, TAP: $out/ktap.tap"
fi
echo "stress on $KNAME: passed in $((SECONDS - start)) s (TAP, dmesg, console: $out)"
