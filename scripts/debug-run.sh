#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel (lockdep, KASAN, kmemleak, hung-task detector,
# debugobjects), in one boot: the suite, then the hostile-input and lifecycle
# programs as scripts/stress.sh runs them, then an explicit kmemleak scan.
# Builds the kernel first unless scripts/kernel.sh has it cached.
# Fails on anything vm.sh fails on (a failed test, a timeout, any kernel
# report in dmesg, kmemleak's "suspected memory leaks" included), on a
# missing fuzz or lifecycle result, and on any leaked object.
#
# env: DEBUG_TIMEOUT  seconds for the boot (default 1800: TCG + KASAN + lockdep)
#      STRESS_SEED, STRESS_INPUTS as for scripts/stress.sh
#      KSRC, BUILD as for scripts/lib.sh
. "$(dirname "$0")/lib.sh"

export KERNEL=debug
unset KIMAGE
timeout=${DEBUG_TIMEOUT:-1800}
out=$BUILD/debug
mkdir -p "$out"

start=$SECONDS
dir=$("$TOP/scripts/kernel.sh" debug) || die "building the debug kernel failed"
build=$(. "$dir/env" && echo "$KVER ($KFROM)")

# kmemleak only reports objects older than 5 s, and an object needs to be
# seen unreferenced by a scan: wait, scan twice, then print the report as
# TAP comments between markers.
guest_cmd='./run_kselftest.sh -c sched_state; rc=$?
'$(stress_guest)'
k=/sys/kernel/debug/kmemleak
if [ -w $k ]; then
	sleep 5
	echo scan >$k
	sleep 5
	echo scan >$k
	echo "# KMEMLEAK_BEGIN"
	while IFS= read -r l; do echo "# kmemleak: $l"; done <$k
	echo "# KMEMLEAK_END"
else
	echo "# KMEMLEAK_UNAVAILABLE: no $k"
fi
exit $rc'

vrc=0
"$TOP/scripts/run.sh" --timeout "$timeout" --guest-cmd "$guest_cmd" 2>&1 |
	tee "$out/debug-run.log" || vrc=$?

tap=$out/vm/ktap.tap
summary=$(grep 'vm.sh: summary:' "$out/debug-run.log" || true)
leaks=$(awk '
	/^# KMEMLEAK_BEGIN/ { on = 1; next }
	/^# KMEMLEAK_END/ { on = 0 }
	!on { next }
	{ sub(/^# kmemleak: /, "") }
	/^unreferenced object/ { n++; mod[n] = 0; first[n] = $0; bt[n] = "" }
	n && /test_sched_state/ { mod[n] = 1 }
	n && /^    \[</ && bt[n] == "" { bt[n] = $0 }
	END {
		for (i = 1; i <= n; i++) {
			m += mod[i]
			printf "object %d%s: %s %s\n", i, mod[i] ? " (test_sched_state)" : " (kernel)", first[i], bt[i] > "/dev/stderr"
		}
		print m + 0, n + 0
	}' "$tap" 2>"$out/kmemleak.objects") || true
read -r modleaks allleaks <<<"${leaks:-x x}"
kmemleak_ok=1
grep -q '^# KMEMLEAK_END' "$tap" 2>/dev/null || kmemleak_ok=

echo "== debug kernel run"
echo "kernel: $build"
figures=0
stress_figures "$tap" || figures=1
if [[ $summary =~ boot-to-done\ ([^,]*), ]]; then echo "boot-to-done: ${BASH_REMATCH[1]}"; fi
if [[ $summary =~ tests:\ ([^\;]*)\; ]]; then echo "tests: ${BASH_REMATCH[1]}"; fi
if [[ $summary =~ dmesg\ reports:\ ([0-9]+) ]]; then echo "kernel reports: ${BASH_REMATCH[1]}"; fi
if [[ -n $kmemleak_ok ]]; then
	echo "leaked objects: $allleaks ($modleaks of them name test_sched_state; list: $out/kmemleak.objects)"
	sed 's/^/  /' "$out/kmemleak.objects"
else
	echo "leaked objects: unknown (the kmemleak scan did not complete; see $tap)"
fi
echo "whole run: $((SECONDS - start)) s; files: $out/debug-run.log $out/vm/"

((vrc == 0)) || die "the run on the debug kernel failed (vm.sh/run.sh exit $vrc)"
((figures == 0)) || die "the fuzz's or the lifecycle's results are missing (above)"
[[ -n $kmemleak_ok ]] || die "no kmemleak result"
((allleaks == 0)) || die "kmemleak: $allleaks leaked objects ($modleaks name test_sched_state)"
echo "debug run: PASS"
