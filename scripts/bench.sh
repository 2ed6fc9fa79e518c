#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The two benchmarks of commit 642fa448ae under QEMU: boot each kernel, run
# the in-kernel set_current_state() latency benchmark (set_state_bench with
# test_sched_state.ko) and will-it-scale unlink1 (unlink_bench) in it, then
# compare the kernels with scripts/compare.py, the first as the baseline.
# Each boot's TAP, dmesg and console: $BUILD/<kernel>/bench; the JSON and
# the plots: $BUILD/bench.  Time in the guest is emulated (TCG): compare
# ratios within a run, never against hardware.
#
# Knobs: BENCH_KERNELS ("mainline mainline-rt"; with QUICK=1 or KIMAGE= the one kernel
# KERNEL names), BENCH_CALLS (65000000), BENCH_REPEATS (5), BENCH_CPU (a CPU
# or all; default the first online), BENCH_TASKS (unlink1's task counts,
# default 2..4 x CPUs), BENCH_WARMUP (5), BENCH_SAMPLES (5), BENCH_INTERVAL
# ms (1000), BENCH_TIMEOUT s per boot.  QUICK=1: 5000000 calls x 3 repeats,
# tasks 2,4, 1 warm-up and 3 samples of 250 ms.
. "$(dirname "$0")/lib.sh"

out=$BUILD/bench
if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_CALLS:=5000000}" "${BENCH_REPEATS:=3}" "${BENCH_TASKS:=2,4}"
	: "${BENCH_WARMUP:=1}" "${BENCH_SAMPLES:=3}" "${BENCH_INTERVAL:=250}"
fi
calls=${BENCH_CALLS:-65000000} repeats=${BENCH_REPEATS:-5}
warmup=${BENCH_WARMUP:-5} samples=${BENCH_SAMPLES:-5} interval=${BENCH_INTERVAL:-1000}
for v in "$calls" "$repeats" "$warmup" "$samples" "$interval"; do
	[[ $v =~ ^[0-9]+$ ]] || die "BENCH_CALLS, _REPEATS, _WARMUP, _SAMPLES, _INTERVAL: not a number: '$v'"
done
[[ ${BENCH_CPU:-0} =~ ^([0-9]+|all)$ ]] || die "BENCH_CPU=$BENCH_CPU: expected a CPU number or all"
[[ ${BENCH_TASKS:-2} =~ ^[0-9]+(,[0-9]+)*$ ]] || die "BENCH_TASKS=$BENCH_TASKS: expected N,N,..."
lat=(-n "$calls" -r "$repeats")
[ -z "${BENCH_CPU:-}" ] || lat+=(-c "$BENCH_CPU")
unl=(-b unlink1 -m processes -w "$warmup" -s "$samples" -i "$interval")
[ -z "${BENCH_TASKS:-}" ] || unl+=(-t "$BENCH_TASKS")
# A bound per boot: 6 variants on 2 CPUs at 50 ns a call (5 x what TCG
# takes on a quiet host), four unlink1 task counts, and the boot.
timeout=${BENCH_TIMEOUT:-$((300 + calls * repeats * 6 / 10000000 +
	4 * ((warmup + samples) * interval / 1000 + 10)))}

# The kernels: BENCH_KERNELS, or the one of "make run" (QUICK=1) or of
# KIMAGE=, or mainline and mainline-rt.
single=
if [ -n "${BENCH_KERNELS:-}" ]; then
	kernels=$BENCH_KERNELS
elif [ "${QUICK:-0}" = 1 ] || [ -n "${KIMAGE:-}" ]; then
	single=1
	kernels=$(pick_kernel && echo "$KNAME")
else
	kernels="mainline mainline-rt"
fi

# The guest command (scripts/guest/bench.sh): valid TAP, each program's
# output nested, the JSON files handed back to vm.sh's <out>/files
guest="sh /guest/bench.sh ${lat[*]} -- ${unl[*]}"

# json KNAME NAME: the guest's NAME.json, which vm.sh took back, as
# $out/KNAME-NAME.json
json()
{
	local src=$BUILD/$1/bench/files/$2.json dst=$out/$1-$2.json

	rm -f "$dst"
	if [ -f "$src" ] && python3 -m json.tool "$src" >/dev/null 2>&1; then
		cp "$src" "$dst"
	else
		say "no $2 results from $1"
		return 1
	fi
}

# boot KNAME: build for it, boot it and run the guest command
boot()
{
	[ -n "$single" ] || { export KERNEL=$1; unset KIMAGE KDIR; }
	pick_kernel
	ksft=$("$TOP/scripts/build.sh") || exit 1
	say "benchmarking $KIMAGE ($KNAME) in QEMU"
	"$TOP/scripts/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --timeout "$timeout" \
		--out "$BUILD/$KNAME/bench" --guest-cmd "$guest" || exit 1
	# the chunks must keep the watchdogs quiet, even under TCG
	! grep -nE 'soft lockup|hard LOCKUP|rcu.*stall|blocked for more than' \
		"$BUILD/$KNAME/bench/dmesg.log"
}

# compare NAME SETS...: compare.py's table, and a plot if gnuplot is here
compare()
{
	local name=$1 plot=()

	shift
	rm -f "$out/$name".{png,svg}
	(($#)) || { echo "(no results)"; return 1; }
	command -v gnuplot >/dev/null && plot=(--plot "$out/$name")
	python3 "$TOP/scripts/compare.py" "${plot[@]}" "$@"
}

mkdir -p "$out"
bad=0
for k in $kernels; do
	(boot "$k") || { say "$k: the benchmark run failed: see $BUILD/$k/bench"; bad=1; }
done

lsets=() usets=()
for k in $kernels; do
	if json "$k" latency; then lsets+=("$k=$out/$k-latency.json"); else bad=1; fi
	if json "$k" unlink1; then usets+=("$k=$out/$k-unlink1.json"); else bad=1; fi
done
echo
echo "== set_current_state() latency in QEMU, the first set the baseline"
echo "== (time in the guest is emulated: compare ratios, not nanoseconds)"
compare latency "${lsets[@]}" || bad=1
echo
echo "== will-it-scale unlink1 in QEMU, ops/sec, the first set the baseline"
compare unlink1 "${usets[@]}" || bad=1
echo
say "results: $out/*.json; plots: $out/{latency,unlink1}.{png,svg} (with gnuplot)"
exit $bad
