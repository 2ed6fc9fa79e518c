#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On KERNEL= (PREEMPT_RT), the rtlock checks while CPU 1 goes offline and online in a loop
# (scripts/vm/guest/hotplug.sh): no hang, no kernel report, into $BUILD/<kernel>/hotplug
. "$(dirname "$0")/../lib.sh"
pick_kernel
ksft=$("$TOP/scripts/tree/build-kselftest.sh")
out=$BUILD/$KNAME/hotplug
say "hotplug on $KNAME ($KIMAGE)"
"$TOP/scripts/vm/vm.sh" --timeout 300 --kimage "$KIMAGE" --ksft "$ksft" --out "$out" \
	--guest-cmd "sh /guest/hotplug.sh ${HOTPLUG_RUNS:-10}" >"$out.log" 2>&1 ||
	{ tail -n 30 "$out.log"; die "hotplug on $KNAME failed; log: $out.log, TAP: $out/ktap.tap"; }
grep 'vm.sh: summary:' "$out.log"
