#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usage: run-suite.sh [vm.sh options]: the suite on pick_kernel's kernel into $BUILD/$KNAME/vm
# and matrix.json; the exit status is the suite's (JUnit/KCIDB files' problems only warn)
. "$(dirname "$0")/../lib.sh"
pick_kernel
out=$BUILD/$KNAME/vm
ksft=$("$TOP/scripts/tree/build-kselftest.sh")
say "booting $KNAME: $KVER ($KFROM) in QEMU"
rc=0
"$TOP/scripts/vm/vm.sh" --arch "$KARCH" --kimage "$KIMAGE" --ksft "$ksft" --out "$out" "$@" || rc=$?
[ -f "$out/result.json" ] || exit $rc
python3 "$TOP/scripts/report/results.py" --kernel "$KNAME" --release "$KVER" "$out" >&2 ||
	say "warning: the JUnit/KCIDB files of $out have problems (above); not the suite's"
python3 "$TOP/scripts/report/result.py" matrix "$BUILD/matrix.json" "$KNAME" "$KVER" "$out/result.json" $rc
exit $rc
