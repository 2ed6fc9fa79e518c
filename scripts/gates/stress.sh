#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile input and lifecycle abuse of test_sched_state, in QEMU: boot one
# kernel (KERNEL=), load the module, run sched_state_fuzz against its control
# file (a table of bad requests and their errnos, then junk), unload it, then
# run sched_state_lifecycle.sh (load/unload cycles with kthreads held open,
# rmmod with a request in flight, clients SIGKILLed at random points and in
# each state, parallel writers).  vm.sh judges the TAP, a crash, a timeout
# and the kernel log (any WARN/BUG/Oops/lockdep/KASAN/hung-task report fails
# the run); this script then requires both programs' results in vm.sh's
# result.json and prints them.  TAP, dmesg, console and result.json:
# $BUILD/<kernel>/stress.
#
# Knobs: STRESS_SEED (both programs' seed; default: a random one, printed),
# STRESS_INPUTS (fuzz junk requests, 10000), STRESS_TIMEOUT (s, 900).
. "$(dirname "$0")/../lib.sh"
cmd=$(stress_command) || exit
guest="echo 'TAP version 13'; $cmd"
pick_kernel

ksft=$("$TOP/scripts/tree/build-kselftest.sh")
out=$BUILD/$KNAME/stress

say "stress on $KNAME ($KIMAGE)"
start=$SECONDS
rc=0
"$TOP/scripts/vm/vm.sh" --timeout "${STRESS_TIMEOUT:-900}" --kimage "$KIMAGE" \
	--ksft "$ksft" --out "$out" --guest-cmd "$guest" >"$out.log" 2>&1 || rc=$?
took=$((SECONDS - start))

figures=0
stress_figures "$out" || figures=$?
grep 'vm.sh: summary:' "$out.log" || true
if ((rc || figures)); then
	tail -n 40 "$out.log"
	die "stress on $KNAME failed after $took s; log: $out.log, TAP: $out/ktap.tap"
fi
echo "stress on $KNAME: passed in $took s (TAP, dmesg, console: $out)"
