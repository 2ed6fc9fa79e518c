#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# race-power.sh [--keep] [RUNS]: the catch rate of race.lost_wakeups at its default duration.
# Boots the barrier mutant's and the control's suites of the last make mutants run on
# KERNEL (default: mainline) RUNS times each in one guest; writes $BUILD/race/result.json
# (with --keep, also mutants/race-KERNEL.json).
. "$(dirname "$0")/../lib.sh"

keep=0
[ "${1:-}" != --keep ] || { keep=1; shift; }
runs=${1:-20}
mut=$BUILD/mutants/set-current-state-no-barrier
read -r kname karch _ < <(kernel_row) || exit 2
ctl=$BUILD/mutants/control-$kname
for d in "$mut" "$ctl"; do
	[ -f "$d/bzImage" ] && [ -d "$d/custom/kselftest" ] ||
		die "no $d: make mutants MUTANTS=${mut##*/} MUTANT_KERNEL=$kname first"
done
grep -q "\"kernel\": \"$kname\"" "$mut/verdict.json" ||
	die "$mut is not $kname's: make mutants MUTANTS=${mut##*/} MUTANT_KERNEL=$kname first"
out=$BUILD/race
rm -rf "$out"
mkdir -p "$out"
# each run as a farm's -r run of the one check, module loaded and unloaded
race="cd sched_state && for i in \$(seq $runs); do ./sched_state.sh -r race.lost_wakeups; done"
for d in "$mut" "$ctl"; do
	n=${d##*/}
	say "race-power: $runs runs of race.lost_wakeups on $n, $kname (log: $out/$n.log)"
	"$TOP/scripts/vm/vm.sh" --arch "$karch" --kimage "$d/bzImage" --ksft "$d/custom/kselftest" \
		--out "$out/$n" --guest-cmd "$race" --timeout $((runs * 30 + 180)) >"$out/$n.log" 2>&1 || true
done
python3 "$TOP/scripts/report/result.py" race "$out/result.json" "$runs" "$kname" "$mut" \
	"$out/${mut##*/}" "$out/${ctl##*/}"
[ $keep = 0 ] || cp "$out/result.json" "$TOP/mutants/race-$kname.json"
