#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usage: run-suite.sh [--quick-bench] [vm.sh options]: the suite on pick_kernel's kernel into
# $BUILD/$KNAME/vm and matrix.json; --quick-bench: then the quick benchmark, outside the verdict
. "$(dirname "$0")/../lib.sh"
pick_kernel
out=$BUILD/$KNAME/vm
ksft=$("$TOP/scripts/tree/build-kselftest.sh")
then=()
if [ "${1:-}" = --quick-bench ]; then
	shift
	read -r btimeout bcmd < <(QUICK=1 "$TOP/scripts/bench/bench.sh" --guest-cmd) &&
		[ -n "$bcmd" ] || die "no guest command from scripts/bench/bench.sh --guest-cmd"
	then=(--then-cmd "$bcmd" --then-out "$BUILD/$KNAME/bench" --then-timeout "$btimeout")
fi
say "booting $KNAME: $KVER ($KFROM) in QEMU${then:+: the suite, then the quick benchmark}"
rc=0
"$TOP/scripts/vm/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --out "$out" "${then[@]}" "$@" || rc=$?
[ -f "$out/result.json" ] || exit $rc
python3 "$TOP/scripts/report/results.py" --kernel "$KNAME" --release "$KVER" "$out" >&2 || rc=1
python3 "$TOP/scripts/report/result.py" matrix "$BUILD/matrix.json" "$KNAME" "$KVER" "$out/result.json" $rc
[ -n "${then:-}" ] && [ $rc = 0 ] || exit $rc
QUICK=1 "$TOP/scripts/bench/bench.sh" --report "$KNAME" && b=done || b="FAILED (not part of the suite's verdict)"
say "make run: the suite passed; the quick benchmark $b"
