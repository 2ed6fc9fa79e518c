#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build sched_state for one kernel, boot that kernel in QEMU and run the suite
# in it.  The KTAP, the guest's dmesg, the console, result.json, junit.xml
# and kcidb.json land in $BUILD/$KNAME/vm; the kernel's line in $BUILD/matrix.txt is updated.
. "$(dirname "$0")/lib.sh"
pick_kernel

ksft=$("$TOP/scripts/build.sh")
say "booting $KNAME: $KVER ($KFROM) in QEMU"
rc=0
"$TOP/scripts/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --out "$BUILD/$KNAME/vm" "$@" || rc=$?
# the results as the dashboards read them: junit.xml and kcidb.json
if [ -f "$BUILD/$KNAME/vm/result.json" ]; then
	python3 "$TOP/scripts/results.py" --kernel "$KNAME" --release "$KVER" \
		"$BUILD/$KNAME/vm" >&2 || rc=1
fi
[ -f "$BUILD/$KNAME/vm/result.json" ] && matrix_record "$KNAME" "$BUILD/$KNAME/vm/result.json" "$rc"
exit $rc
