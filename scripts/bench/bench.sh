#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmarks of commit 642fa448ae under QEMU, reported per arch in the
# commit's layout ("== 1. x86-64 ==", "== 2. ppc64le ==", "== 3. arm64 ==";
# then "== 4. arm =="), and the live path: boot each kernel, run in it
# (scripts/vm/guest/bench.sh) the commit's comparison, set_task_state(current,
# ..) as it was against set_current_state() (the tooling's module,
# scripts/bench/seed), the overlay's sched_state_bench (set_current_state()
# against set_task_state() through a task pointer, and against
# __set_task_state(), the barrier's share, over the empty loop, with
# test_sched_state.ko) and will-it-scale unlink1 (unlink_bench), take back
# their output from vm.sh's <out>/files, then print per arch the commit's
# two "Avg runtime" lines and its "Hmean unlink1-processes-N" rows
# (scripts/bench/compare.py), the arch's first kernel the baseline, and
# sched_state_bench's medians and answers; with several arches, a table of
# the live path's corrected ns/call across them.  Time in the guest is
# emulated (TCG): every figure, ratios included, describes QEMU's
# translation, not a CPU; real figures come from hardware or KVM.
#
# The kernels (names of scripts/kernels.tsv):
#   BENCH_KERNELS="a b ..."  those, grouped by arch
#   ARCH=all                 Debian's 6.12 on every arch of arches.tsv
#                            (BENCH_ALL=<release> another release)
#   QUICK=1 or KIMAGE=       the one kernel KERNEL (and ARCH) name
#   ARCH=<arch>              that arch's first kernel and its -rt twin
#                            (mainline and mainline-rt on x86_64, the default)
# Each boot's TAP, dmesg, console and result.json: $BUILD/<kernel>/bench;
# what came back (<kernel>-seed.txt, -live.tap, -unlink1.json), the full
# compare.py tables and the plots: $BUILD/bench.
#
# make run's quick benchmark runs in the suite's own guest (run-suite.sh
# --quick-bench, vm.sh --then-cmd), with two entry points here:
#   bench.sh --guest-cmd     print the timeout (s) and the guest command
#   bench.sh --report NAME   the report of the run in $BUILD/NAME/bench
#
# Knobs: BENCH_CALLS (the commit's comparison: 65000000), BENCH_REPEATS (5),
# BENCH_LIVE_CALLS (sched_state_bench: 10000000; its repeats are
# BENCH_REPEATS, at least 3), BENCH_CPU (its CPU; default 0), BENCH_TASKS
# (unlink1's task counts, default 2..4 x CPUs),
# BENCH_WARMUP (5), BENCH_SAMPLES (5), BENCH_INTERVAL ms (1000),
# BENCH_TIMEOUT s per boot.  QUICK=1: 5000000 calls (1000000 live) x 3
# repeats, tasks 2,4, 1 warm-up and 3 samples of 250 ms.
. "$(dirname "$0")/../lib.sh"

out=$BUILD/bench
if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_CALLS:=5000000}" "${BENCH_LIVE_CALLS:=1000000}" "${BENCH_REPEATS:=3}"
	: "${BENCH_TASKS:=2,4}" "${BENCH_WARMUP:=1}" "${BENCH_SAMPLES:=3}" "${BENCH_INTERVAL:=250}"
fi
calls=${BENCH_CALLS:-65000000} live=${BENCH_LIVE_CALLS:-10000000} repeats=${BENCH_REPEATS:-5}
warmup=${BENCH_WARMUP:-5} samples=${BENCH_SAMPLES:-5} interval=${BENCH_INTERVAL:-1000}
for v in "$calls" "$live" "$repeats" "$warmup" "$samples" "$interval"; do
	[[ $v =~ ^[0-9]+$ ]] || die "BENCH_CALLS, _LIVE_CALLS, _REPEATS, _WARMUP, _SAMPLES, _INTERVAL: not a number: '$v'"
done
((repeats >= 3)) || die "BENCH_REPEATS=$repeats: sched_state_bench needs at least 3 for a spread"
[[ ${BENCH_CPU:-0} =~ ^[0-9]+$ ]] || die "BENCH_CPU=$BENCH_CPU: expected a CPU number"
[[ ${BENCH_TASKS:-2} =~ ^[0-9]+(,[0-9]+)*$ ]] || die "BENCH_TASKS=$BENCH_TASKS: expected N,N,..."
unl=(-b unlink1 -m processes -w "$warmup" -s "$samples" -i "$interval")
[ -z "${BENCH_TASKS:-}" ] || unl+=(-t "$BENCH_TASKS")
guest="sh /guest/bench.sh calls=$calls repeats=$repeats -- -n $live -r $repeats -c ${BENCH_CPU:-0} -- ${unl[*]}"
# A bound per boot: the seed's 2 variants, and sched_state_bench's 4 (twice
# over), at 50 ns a call (5 x what TCG takes on a quiet host), four unlink1
# task counts, and the boot; three times that for an arch that TCG
# translates from another instruction set.
timeout=$((300 + (calls + 8 * live) * repeats / 10000000 +
	4 * ((warmup + samples) * interval / 1000 + 10)))

# rt_twin NAME: the PREEMPT_RT twin of NAME, if any (its role in
# scripts/kernels.tsv: rt:NAME): mainline-rt for mainline, 6.12-rt-arm64
# for 6.12-arm64
rt_twin()
{
	kernels name "role=rt:$1"
}

# The commit's sections: x86-64, ppc64le, arm64, then the other arches of
# arches.tsv in its order
arch_order()
{
	{ printf '%s\n' x86_64 ppc64le arm64; awk '!/^#/ && NF { print $1 }' "$TOP/scripts/arches.tsv"; } |
		awk '!seen[$0]++'
}

if [ -n "${BENCH_KERNELS:-}" ]; then
	kernels=$BENCH_KERNELS
elif [ "${ARCH:-}" = all ]; then
	kernels=
	for a in $(arch_order); do
		kernels+=" $(ARCH=$a KERNEL=${BENCH_ALL:-6.12} kernel_name)" || exit
	done
elif [ "${QUICK:-0}" = 1 ] || [ -n "${KIMAGE:-}" ]; then
	kernels=single
else
	first=$(kernel_name) || exit
	kernels="$first $(rt_twin "$first")"
fi

# bench_timeout: the bound for the arch KARCH
bench_timeout()
{
	arch_set "$KARCH"
	[ -z "$A_CROSS" ] || timeout=$((timeout * 3))
	echo "${BENCH_TIMEOUT:-$timeout}"
}

# bench_boot KNAME: build for KNAME, boot it, run the guest command and
# keep what it handed back (bench_collect); "single": the kernel KERNEL,
# ARCH or KIMAGE name.  Prints the name.
bench_boot()
{
	local vmout

	if [ "$1" != single ]; then
		export KERNEL=$1
		unset KIMAGE KDIR ARCH
	fi
	pick_kernel >&2
	ksft=$("$TOP/scripts/tree/build-kselftest.sh") || exit 1
	vmout=$BUILD/$KNAME/bench
	say "benchmarking $KIMAGE ($KNAME, $KARCH) in QEMU"
	rm -f "$out/$KNAME"-{seed.txt,live.tap,unlink1.json}
	echo "$KNAME"
	"$TOP/scripts/vm/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --timeout "$(bench_timeout)" \
		--out "$vmout" --guest-cmd "$guest" >&2 || exit 1
	bench_collect "$KNAME"
}

# bench_collect KNAME: keep what the run in $BUILD/KNAME/bench handed back
# as $out/<kernel>-{seed.txt,live.tap,unlink1.json}
bench_collect()
{
	local vmout=$BUILD/$1/bench f

	# the chunks must keep the watchdogs quiet, even under TCG
	! grep -nE 'soft lockup|hard LOCKUP|rcu.*stall|blocked for more than' \
		"$vmout/dmesg.log" >&2 || return 1
	for f in seed.txt live.tap unlink1.json; do
		cp "$vmout/files/$f" "$out/$1-$f" ||
			{ say "$1: no $f came back"; return 1; }
	done
}

# bench_facts KNAME: "KNAME: release, N CPUs, accel" from its results
bench_facts()
{
	python3 "$TOP/scripts/vm/result.py" facts "$1" "$out/$1-unlink1.json" "$BUILD/$1/bench/result.json"
}

# compare_sets FILE PLOT SETS...: compare.py's full table into FILE (and
# a plot into PLOT.{png,svg} with gnuplot)
compare_sets()
{
	local file=$1 plot=(--plot "$2")

	shift 2
	rm -f "$file" "${plot[1]}".{png,svg}
	command -v gnuplot >/dev/null || plot=()
	python3 "$TOP/scripts/bench/compare.py" "${plot[@]}" "$@" >"$file"
}

mkdir -p "$out"
bad=0
done_kernels=()
case ${1:-} in
--guest-cmd)
	pick_kernel
	echo "$(bench_timeout) $guest"
	exit 0
	;;
--report)
	[ $# -eq 2 ] || die "usage: $0 --report NAME"
	rm -f "$out/$2"-{seed.txt,live.tap,unlink1.json}
	if [ "$(result_value "$BUILD/$2/bench/result.json" ok 2>/dev/null)" = true ] &&
	   bench_collect "$2"; then
		done_kernels+=("$2")
	else
		say "$2: the benchmark run failed: see $BUILD/$2/bench"
		bad=1
	fi
	;;
"")
	for k in $kernels; do
		if name=$(bench_boot "$k"); then
			done_kernels+=("$name")
		else
			say "${name:-$k}: the benchmark run failed: see $BUILD/${name:-$k}/bench"
			bad=1
		fi
	done
	;;
*) die "usage: $0 [--guest-cmd | --report NAME]" ;;
esac

# print_report: the sections, one per arch (from each run's result.json),
# then the table across arches
print_report()
{
	local a k n=0 firsts=() first_kernels='' sections=() ks ssets lsets usets failed=0

	echo "== commit 642fa448ae's benchmarks in QEMU, per architecture, and the"
	echo "== live path.  TCG on this $(uname -m) host runs each architecture's"
	echo "== barriers, atomics and stores through its own helpers: every figure,"
	echo "== ratios included, describes QEMU, not a CPU.  Real figures come"
	echo "== from hardware or KVM."
	for a in $(arch_order); do
		n=$((n + 1))
		ks=()
		for k in "${done_kernels[@]}"; do
			[ "$(result_value "$BUILD/$k/bench/result.json" arch)" != "$a" ] || ks+=("$k")
		done
		((${#ks[@]})) || continue
		firsts+=("${a/x86_64/x86-64}=$out/${ks[0]}-live.tap")
		first_kernels+="${first_kernels:+,} ${a/x86_64/x86-64}: ${ks[0]}"
		ssets=() lsets=() usets=()
		for k in "${ks[@]}"; do
			ssets+=("$k=$out/$k-seed.txt")
			lsets+=("$k=$out/$k-live.tap")
			usets+=("$k=$out/$k-unlink1.json")
		done
		echo
		echo "== $n. ${a/x86_64/x86-64} =="
		echo
		python3 "$TOP/scripts/bench/compare.py" --avg-runtime "${ssets[@]}" || failed=1
		echo
		python3 "$TOP/scripts/bench/compare.py" --only Hmean "${usets[@]}" || failed=1
		echo
		echo "live path, sched_state_bench: ns/call over the repeats, and the"
		echo "median of each per-repeat difference (or below resolution)"
		for k in "${ks[@]}"; do
			((${#ks[@]} == 1)) || echo "$k:"
			grep -E '^# cpu [0-9]+ ' "$out/$k-live.tap" | grep -v ' repeat [0-9]' |
				sed 's/^# //' || failed=1
		done
		echo
		for k in "${ks[@]}"; do bench_facts "$k" || failed=1; done
		compare_sets "$out/$a-seed.txt" "$out/$a-seed" "${ssets[@]}" || failed=1
		compare_sets "$out/$a-live.txt" "$out/$a-live" "${lsets[@]}" || failed=1
		compare_sets "$out/$a-unlink1.txt" "$out/$a-unlink1" "${usets[@]}" || failed=1
		echo "all statistics: $out/$a-seed.txt $out/$a-live.txt $out/$a-unlink1.txt"
		sections+=("$a")
	done
	# one arch: its full tables too, as compare.py prints them
	if ((${#sections[@]} == 1)); then
		for k in seed live unlink1; do
			echo
			cat "$out/${sections[0]}-$k.txt"
		done
	fi
	if ((${#firsts[@]} > 1)); then
		echo
		echo "== the live path across architectures: corrected ns/call (the mean"
		echo "== less the empty loop's, or below resolution) of each arch's first"
		echo "== kernel.  Emulated time: each column describes QEMU's translation"
		echo "== of that architecture, not its CPUs."
		echo "== Kernels:${first_kernels}"
		echo
		python3 "$TOP/scripts/bench/compare.py" --arches "${firsts[@]}" || failed=1
	fi
	return $failed
}

print_report >"$out/report.txt" || bad=1
cat "$out/report.txt"
# the run as data, $out/result.json; a full run of the default kernels
# also keeps it in bench/result.json, the cover letter's (bench-result.py)
((${#done_kernels[@]} == 0)) || BENCH_FAILED=$bad \
	python3 "$TOP/scripts/bench/bench-result.py" "$out" "${done_kernels[@]}" || bad=1
say "report: $out/report.txt; results: $out/<kernel>-*; plots: $out/<arch>-{seed,live,unlink1}.{png,svg} (with gnuplot)"
exit $bad
