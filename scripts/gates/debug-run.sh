#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel (lockdep, KASAN, kmemleak, hung-task detector,
# debugobjects), in one boot: the suite, then the hostile-input and lifecycle
# programs as scripts/gates/stress.sh runs them, then an explicit kmemleak scan.
# Builds the kernel first unless scripts/tree/kernel.sh has it cached.
# Fails on anything vm.sh fails on (a failed test, a timeout, any kernel
# report in dmesg, kmemleak's "suspected memory leaks" included), on a
# missing fuzz or lifecycle result, and on any leaked object.
#
# env: DEBUG_TIMEOUT  seconds for the boot (default 1800: TCG + KASAN + lockdep)
#      STRESS_SEED, STRESS_INPUTS as for scripts/gates/stress.sh
#      KSRC, BUILD as for scripts/lib.sh
. "$(dirname "$0")/../lib.sh"

KERNEL=$(kernels name role=debug)
[ -n "$KERNEL" ] || die "scripts/kernels.tsv: no kernel has the role debug"
export KERNEL
unset KIMAGE
timeout=${DEBUG_TIMEOUT:-1800}
out=$BUILD/$KERNEL
mkdir -p "$out"

start=$SECONDS
dir=$("$TOP/scripts/tree/kernel.sh" "$KERNEL") || die "building the debug kernel ($KERNEL) failed"
build=$(. "$dir/env" && echo "$KVER ($KFROM)")

# the suite and the hung-task program (scripts/vm/guest/suite.sh), the
# stress programs (scripts/vm/guest/stress.sh), then the kmemleak scans
# (scripts/vm/guest/kmemleak.sh), which hand the report back.  Each
# program's timeout: the settings' is for a generic kernel; under KASAN and
# lockdep in TCG a program runs several times as long
stress=$(stress_command) || exit
guest_cmd="sh /guest/suite.sh -o 300; rc=\$?
$stress
sh /guest/kmemleak.sh
exit \$rc"

vrc=0
"$TOP/scripts/vm/run-suite.sh" --timeout "$timeout" --guest-cmd "$guest_cmd" 2>&1 |
	tee "$out/debug-run.log" || vrc=$?

result=$out/vm/result.json
report=$out/vm/files/kmemleak.txt
leaks=$(awk '
	/^unreferenced object/ { n++; mod[n] = 0; first[n] = $0; bt[n] = "" }
	n && /test_sched_state/ { mod[n] = 1 }
	n && /^    \[</ && bt[n] == "" { bt[n] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			m += mod[i]
			printf "object %d%s: %s %s\n", i, mod[i] ? " (test_sched_state)" : " (kernel)", first[i], bt[i] > "/dev/stderr"
		}
		print m + 0, n + 0
	}' "$report" 2>"$out/kmemleak.objects") || true
read -r modleaks allleaks <<<"${leaks:-x x}"
kmemleak_ok=1
[ -f "$report" ] || kmemleak_ok=

echo "== debug kernel run"
echo "kernel: $build"
figures=0
stress_figures "$out/vm" || figures=1
if [ -f "$result" ]; then
	python3 "$TOP/scripts/report/result.py" summary "$result"
else
	echo "no $result: vm.sh did not finish"
fi
if [[ -n $kmemleak_ok ]]; then
	echo "leaked objects: $allleaks ($modleaks of them name test_sched_state; list: $out/kmemleak.objects)"
	sed 's/^/  /' "$out/kmemleak.objects"
else
	echo "leaked objects: unknown (no kmemleak report came back; see $out/vm/ktap.tap)"
fi
echo "whole run: $((SECONDS - start)) s; files: $out/debug-run.log $out/vm/"

((vrc == 0)) || die "the run on the debug kernel failed (vm.sh/run-suite.sh exit $vrc)"
((figures == 0)) || die "the fuzz's or the lifecycle's results are missing (above)"
[[ -n $kmemleak_ok ]] || die "no kmemleak result"
((allleaks == 0)) || die "kmemleak: $allleaks leaked objects ($modleaks name test_sched_state)"
echo "debug run: PASS"
