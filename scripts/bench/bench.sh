#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the benchmarks of commit 642fa448ae under QEMU, and the live
# path.  Each kernel boots once and runs scripts/vm/guest/bench.sh: the
# commit's comparison (scripts/bench/seed: set_task_state(current, ..) as
# v4.10 had it against set_current_state()), the overlay's
# sched_state_bench, and will-it-scale unlink1 (scripts/bench/unlink1.c).
# scripts/bench/bench.py prints the report, one section per arch in the
# commit's layout, and keeps the run as data.  Time under TCG is emulated:
# every figure, ratios included, describes QEMU, not a CPU.
#
# The kernels (names of scripts/kernels.tsv): BENCH_KERNELS="a b ..."; or
# ARCH=all, Debian's 6.12 (BENCH_ALL=<release>) on every arch; or QUICK=1
# or KIMAGE=, the one kernel KERNEL and ARCH name; by default the arch's
# first kernel and its -rt twin (mainline and mainline-rt).
#
#   bench.sh --guest-cmd     the timeout (s) and the guest command, for
#                            make run's quick benchmark (run-suite.sh)
#   bench.sh --report NAME   the report of the run in $BUILD/NAME/bench
#
# Knobs: BENCH_CALLS (the commit's comparison, 65000000), BENCH_LIVE_CALLS
# (sched_state_bench, 10000000), BENCH_REPEATS (5, at least 3), BENCH_CPU
# (0), BENCH_TASKS (unlink1's task counts), BENCH_WARMUP (5),
# BENCH_SAMPLES (5), BENCH_INTERVAL ms (1000), BENCH_TIMEOUT s per boot.
# QUICK=1: 5000000 calls (1000000 live) x 3, tasks 2,4, 1 warm-up and 3
# samples of 250 ms.
. "$(dirname "$0")/../lib.sh"

out=$BUILD/bench
if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_CALLS:=5000000}" "${BENCH_LIVE_CALLS:=1000000}" "${BENCH_REPEATS:=3}"
	: "${BENCH_TASKS:=2,4}" "${BENCH_WARMUP:=1}" "${BENCH_SAMPLES:=3}" "${BENCH_INTERVAL:=250}"
fi
calls=${BENCH_CALLS:-65000000} live=${BENCH_LIVE_CALLS:-10000000} repeats=${BENCH_REPEATS:-5}
warmup=${BENCH_WARMUP:-5} samples=${BENCH_SAMPLES:-5} interval=${BENCH_INTERVAL:-1000}
for v in "$calls" "$live" "$repeats" "$warmup" "$samples" "$interval" "${BENCH_CPU:-0}"; do
	[[ $v =~ ^[0-9]+$ ]] || die "BENCH_CALLS, _LIVE_CALLS, _REPEATS, _WARMUP, _SAMPLES, _INTERVAL, _CPU: not a number: '$v'"
done
((repeats >= 3)) || die "BENCH_REPEATS=$repeats: sched_state_bench needs at least 3 for a spread"
[[ ${BENCH_TASKS:-2} =~ ^[0-9]+(,[0-9]+)*$ ]] || die "BENCH_TASKS=$BENCH_TASKS: expected N,N,..."
unl="-w $warmup -s $samples -i $interval${BENCH_TASKS:+ -t $BENCH_TASKS}"
guest="sh /guest/bench.sh calls=$calls repeats=$repeats -- -n $live -r $repeats -c ${BENCH_CPU:-0} -- $unl"
# the seed's 2 variants and sched_state_bench's 4 twice over at 50 ns a
# call (5 x TCG's on a quiet host), four unlink1 runs and the boot; three
# times that for an arch TCG translates from another instruction set
timeout=$((300 + (calls + 8 * live) * repeats / 10000000 +
	4 * ((warmup + samples) * interval / 1000 + 10)))

# bench_timeout: the bound for the arch KARCH
bench_timeout()
{
	arch_set "$KARCH"
	[ -z "$A_CROSS" ] || timeout=$((timeout * 3))
	echo "${BENCH_TIMEOUT:-$timeout}"
}

# collect NAME: what the run in $BUILD/NAME/bench handed back, as
# $out/NAME-{seed.txt,live.tap,unlink1.json}
collect()
{
	local f

	# vm.sh's verdict: no kernel report (a watchdog's included)
	[ "$(result_value "$BUILD/$1/bench/result.json" ok 2>/dev/null)" = true ] || return 1
	for f in seed.txt live.tap unlink1.json; do
		cp "$BUILD/$1/bench/files/$f" "$out/$1-$f" || return 1
	done
}

# boot NAME: build for NAME ("single": KERNEL, ARCH or KIMAGE's), boot it
# and run the guest command; prints the name
boot()
{
	local ksft

	if [ "$1" != single ]; then
		export KERNEL=$1
		unset KIMAGE KDIR ARCH
	fi
	pick_kernel >&2
	echo "$KNAME"
	ksft=$("$TOP/scripts/tree/build-kselftest.sh") || return 1
	say "benchmarking $KIMAGE ($KNAME, $KARCH) in QEMU" >&2
	"$TOP/scripts/vm/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --timeout "$(bench_timeout)" \
		--out "$BUILD/$KNAME/bench" --guest-cmd "$guest" >&2 && collect "$KNAME"
}

if [ "${1:-}" = --guest-cmd ]; then
	pick_kernel
	echo "$(bench_timeout) $guest"
	exit 0
fi
mkdir -p "$out"
rm -f "$out"/*-{seed.txt,live.tap,unlink1.json}
bad=0 names=()
case ${1:-} in
--report)
	[ $# -eq 2 ] || die "usage: $0 --report NAME"
	collect "$2" && names=("$2") || bad=1
	;;
"")
	if [ -n "${BENCH_KERNELS:-}" ]; then
		kernels=$BENCH_KERNELS
	elif [ "${ARCH:-}" = all ]; then
		kernels=$(for a in $(arch_names); do
			ARCH=$a KERNEL=${BENCH_ALL:-6.12} kernel_name || exit; done) || exit
	elif [ "${QUICK:-0}" = 1 ] || [ -n "${KIMAGE:-}" ]; then
		kernels=single
	else
		kernels=$(kernel_name) || exit
		kernels+=" $(kernels name "role=rt:$kernels")"
	fi
	for k in $kernels; do
		if name=$(boot "$k"); then names+=("$name"); else bad=1; fi
	done
	;;
*) die "usage: $0 [--guest-cmd | --report NAME]" ;;
esac
((bad == 0)) || say "a benchmark run failed: see $BUILD/<kernel>/bench"
((${#names[@]})) || exit 1
BENCH_FAILED=$bad python3 "$TOP/scripts/bench/bench.py" report "$out" "${names[@]}" |
	tee "$out/report.txt"
((PIPESTATUS[0] == 0)) || bad=1
say "report: $out/report.txt; what came back: $out/<kernel>-*"
exit $bad
