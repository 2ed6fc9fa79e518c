#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run will-it-scale's unlink1 (and unlink2, its control) natively on this
# host over mmtests' task ladder, and print the results as compare-kernels
# does.  Results: $BUILD/bench-host/*.json, plot bench.png when gnuplot is here.
#
# Knobs: BENCH_MODE=process|thread|both (process), BENCH_TASKS=2,4,8 (mmtests'
# ladder to 4 x CPUs), BENCH_WARMUP (5), BENCH_SAMPLES (5), BENCH_INTERVAL ms
# (1000), BENCH_CONTROL=0 to skip unlink2, BENCH_DIR (/tmp), QUICK=1 for a
# 15-second run (1 warm-up and 3 samples of 250 ms).
. "$(dirname "$0")/../lib.sh"

out=$BUILD/bench-host
src=$TOP/scripts/bench/unlink_bench.c
# what the source's "../kselftest.h" becomes with -I$SELFTESTS/sched_state
inc=$SELFTESTS/sched_state/../kselftest.h
[ -f "$inc" ] || die "no $inc: run 'make tree'"

if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_WARMUP:=1}" "${BENCH_SAMPLES:=3}" "${BENCH_INTERVAL:=250}"
fi
case ${BENCH_MODE:-process} in
process) modes=processes ;;
thread) modes=threads ;;
both) modes="processes threads" ;;
*) die "BENCH_MODE=$BENCH_MODE: expected process, thread or both" ;;
esac
benches=unlink1
[ "${BENCH_CONTROL:-1}" = 0 ] || benches="unlink1 unlink2"
args=(-w "${BENCH_WARMUP:-5}" -s "${BENCH_SAMPLES:-5}" -i "${BENCH_INTERVAL:-1000}")
[ -z "${BENCH_TASKS:-}" ] || args+=(-t "$BENCH_TASKS")
[ -z "${BENCH_DIR:-}" ] || args+=(-d "$BENCH_DIR")

mkdir -p "$out"
say "building $out/unlink_bench"
gcc -Wall -Wextra -O2 -D_GNU_SOURCE= -I"$SELFTESTS/sched_state" -o "$out/unlink_bench" "$src" \
	-lpthread -lm || die "unlink_bench does not build"

sets=()
for mode in $modes; do
	for bench in $benches; do
		json=$out/$bench-$mode.json
		say "running $bench, tasks as $mode"
		rm -f "$json"
		rc=0
		"$out/unlink_bench" -b "$bench" -m "$mode" "${args[@]}" -o "$json" >&2 || rc=$?
		[ "$rc" != 4 ] || { say "unlink_bench cannot run here: skipped"; exit 4; }
		[ "$rc" = 0 ] || die "unlink_bench failed (exit $rc)"
		name=${json##*/}
		sets+=("${name%.json}=$json")
	done
done

plot=()
command -v gnuplot >/dev/null && plot=(--plot "$out/bench")
echo "unlink_bench on $(uname -r), $(nproc) CPUs; first set is the baseline"
python3 "$TOP/scripts/bench/compare.py" "${plot[@]}" "${sets[@]}"
[ ${#plot[@]} = 0 ] || say "plot: $out/bench.png, $out/bench.svg"
