#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel in one boot: the suite, the stress programs, kmemleak
# scans (docs/check.md).  DEBUG_TIMEOUT: the boot's seconds.
. "$(dirname "$0")/../lib.sh"

export KERNEL=$(kernels name role=debug)
[ -n "$KERNEL" ] || die "scripts/kernels.tsv: no kernel has the role debug"
# check.sh hands the debug kernel down, else it is resolved (built) here
picked || unset KIMAGE KDIR
start=$SECONDS
pick_kernel
out=$BUILD/$KERNEL
mkdir -p "$out"

# -o: under KASAN and lockdep in TCG, a program runs far past the settings' timeout
stress=$(stress_command) || exit
guest_cmd="sh /guest/suite.sh -o 300; rc=\$?
$stress
sh /guest/kmemleak.sh
exit \$rc"
vrc=0
"$TOP/scripts/vm/run-suite.sh" --timeout "${DEBUG_TIMEOUT:-1800}" --guest-cmd "$guest_cmd" 2>&1 |
	tee "$out/debug-run.log" || vrc=$?

echo "== debug kernel run"
echo "kernel: $KVER ($KFROM)"
figures=0
python3 "$TOP/scripts/report/result.py" stress "$out/vm" || figures=1
report=$out/vm/files/kmemleak.txt
if [ -f "$report" ]; then
	leaks=$(grep -c '^unreferenced object' "$report" || true)
	mod=$(awk '/^unreferenced object/ { n = 0 } /test_sched_state/ && !n++ { m++ } END { print m + 0 }' "$report")
	echo "leaked objects: $leaks ($mod of them name test_sched_state; report: $report)"
	head -n 40 "$report" | sed 's/^/  /'
else
	echo "leaked objects: unknown (no kmemleak report came back; see $out/vm/ktap.tap)"
fi
echo "whole run: $((SECONDS - start)) s; files: $out/debug-run.log $out/vm/"

((vrc == 0)) || die "the run on the debug kernel failed (vm.sh/run-suite.sh exit $vrc)"
((figures == 0)) || die "the fuzz's or the lifecycle's results are missing (above)"
[ -f "$report" ] || die "no kmemleak result"
[ "$leaks" = 0 ] || die "kmemleak: $leaks leaked objects ($mod name test_sched_state)"
echo "debug run: PASS"
