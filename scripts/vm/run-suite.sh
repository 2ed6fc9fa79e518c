#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build sched_state for one kernel, boot that kernel in QEMU and run the suite
# in it.  The KTAP, the guest's dmesg, the console, result.json, junit.xml
# and kcidb.json land in $BUILD/$KNAME/vm; the kernel's entry in $BUILD/matrix.json is updated.
#
#   run-suite.sh [--quick-bench] [vm.sh options]
# --quick-bench (make run): then, in the same guest, the quick benchmark
# (QUICK=1 scripts/bench/bench.sh: its files in $BUILD/$KNAME/bench and
# $BUILD/bench), its report once the suite passed, and the last line.  The
# exit status is the suite's verdict either way.
. "$(dirname "$0")/../lib.sh"
bench=0
[ "${1:-}" != --quick-bench ] || { bench=1; shift; }
pick_kernel

ksft=$("$TOP/scripts/tree/build-kselftest.sh")
then=()
if [ $bench = 1 ]; then
	read -r btimeout bcmd < <(QUICK=1 "$TOP/scripts/bench/bench.sh" --guest-cmd) &&
		[ -n "$bcmd" ] || die "no guest command from scripts/bench/bench.sh --guest-cmd"
	then=(--then-cmd "$bcmd" --then-out "$BUILD/$KNAME/bench" --then-timeout "$btimeout")
	say "booting $KNAME: $KVER ($KFROM) in QEMU: the suite, then the quick benchmark"
else
	say "booting $KNAME: $KVER ($KFROM) in QEMU"
fi
rc=0
"$TOP/scripts/vm/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --out "$BUILD/$KNAME/vm" "${then[@]}" "$@" || rc=$?
# the results as the dashboards read them: junit.xml and kcidb.json
if [ -f "$BUILD/$KNAME/vm/result.json" ]; then
	python3 "$TOP/scripts/report/results.py" --kernel "$KNAME" --release "$KVER" \
		"$BUILD/$KNAME/vm" >&2 || rc=1
fi
[ -f "$BUILD/$KNAME/vm/result.json" ] && matrix_record "$KNAME" "$BUILD/$KNAME/vm/result.json" "$rc"
[ $bench = 1 ] && [ $rc = 0 ] || exit $rc
# a failing benchmark only says so: the suite's verdict is make's
QUICK=1 "$TOP/scripts/bench/bench.sh" --report "$KNAME" && b=done || b="FAILED (not part of the suite's verdict)"
say "make run: the suite passed; the quick benchmark $b"
