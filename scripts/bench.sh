#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The two benchmarks of commit 642fa448ae under QEMU, reported per arch in
# the commit's layout ("== 1. x86-64 ==", "== 2. ppc64le ==", "== 3.
# arm64 =="; then "== 4. arm =="): boot each kernel, run the in-kernel
# set_current_state() latency benchmark (set_state_bench with
# test_sched_state.ko) and will-it-scale unlink1 (unlink_bench) in it
# (scripts/guest/bench.sh), take back their JSON from vm.sh's
# <out>/files, then print per arch the commit's two "Avg runtime" lines and
# its "Hmean unlink1-processes-N" rows (scripts/compare.py), the arch's
# first kernel the baseline, and with several arches a table of each
# variant's corrected ns/call across them.  Time in the guest is emulated
# (TCG): compare ratios within one arch and one run, never against hardware.
#
# The kernels (names of scripts/kernels.tsv):
#   BENCH_KERNELS="a b ..."  those, grouped by arch
#   ARCH=all                 Debian's 6.12 on every arch of arches.tsv
#                            (BENCH_ALL=<release> another release)
#   QUICK=1 or KIMAGE=       the one kernel KERNEL (and ARCH) name
#   ARCH=<arch>              that arch's first kernel and its -rt twin
#                            (mainline and mainline-rt on x86_64, the default)
# Each boot's TAP, dmesg, console and result.json: $BUILD/<kernel>/bench;
# the JSON, the full compare.py tables and the plots: $BUILD/bench.
#
# Knobs: BENCH_CALLS (65000000), BENCH_REPEATS (5), BENCH_CPU (a CPU or
# all; default the first online), BENCH_TASKS (unlink1's task counts,
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
guest="sh /guest/bench.sh ${lat[*]} -- ${unl[*]}"
# A bound per boot: 6 variants on 2 CPUs at 50 ns a call (5 x what TCG
# takes on a quiet host), four unlink1 task counts, and the boot; three
# times that for an arch that TCG translates from another instruction set.
timeout=$((300 + calls * repeats * 6 / 10000000 +
	4 * ((warmup + samples) * interval / 1000 + 10)))

# rt_twin NAME: the PREEMPT_RT line of NAME's release and arch, if any:
# mainline-rt for mainline, 6.12-rt-arm64 for 6.12-arm64
rt_twin()
{
	local twin=${1%%-*}-rt

	[[ $1 != *-* ]] || twin+=-${1#*-}
	awk -v k="$twin" '!/^#/ && $1 == k { print $1 }' "$TOP/scripts/kernels.tsv"
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

# bench_boot KNAME: build for KNAME, boot it, run the guest command and
# keep the JSON it handed back as $out/<kernel>-{latency,unlink1}.json;
# "single": the kernel KERNEL, ARCH or KIMAGE name.  Prints the name.
bench_boot()
{
	local vmout f

	if [ "$1" != single ]; then
		export KERNEL=$1
		unset KIMAGE KDIR ARCH
	fi
	pick_kernel >&2
	ksft=$("$TOP/scripts/build.sh") || exit 1
	vmout=$BUILD/$KNAME/bench
	arch_set "$KARCH"
	[ -z "$A_CROSS" ] || timeout=$((timeout * 3))
	say "benchmarking $KIMAGE ($KNAME, $KARCH) in QEMU"
	rm -f "$out/$KNAME"-{latency,unlink1}.json
	echo "$KNAME"
	"$TOP/scripts/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --timeout "${BENCH_TIMEOUT:-$timeout}" \
		--out "$vmout" --guest-cmd "$guest" >&2 || exit 1
	# the chunks must keep the watchdogs quiet, even under TCG
	! grep -nE 'soft lockup|hard LOCKUP|rcu.*stall|blocked for more than' \
		"$vmout/dmesg.log" >&2 || exit 1
	for f in latency unlink1; do
		cp "$vmout/files/$f.json" "$out/$KNAME-$f.json" ||
			{ say "$KNAME: no $f.json came back"; exit 1; }
	done
}

# bench_facts KNAME: "KNAME: release, N CPUs, accel" from its results
bench_facts()
{
	python3 - "$1" "$out/$1-unlink1.json" "$BUILD/$1/bench/result.json" <<-'EOF'
	import json, sys
	name, unlink, result = sys.argv[1:]
	u, r = json.load(open(unlink)), json.load(open(result))
	print(f"{name}: {u.get('kernel', '?')}, {u.get('ncpus', '?')} CPUs, "
	      f"{r['arch']} under {r['accel'].upper()}")
	EOF
}

# compare_sets FILE PLOT SETS...: compare.py's full table into FILE (and
# a plot into PLOT.{png,svg} with gnuplot)
compare_sets()
{
	local file=$1 plot=(--plot "$2")

	shift 2
	rm -f "$file" "${plot[1]}".{png,svg}
	command -v gnuplot >/dev/null || plot=()
	python3 "$TOP/scripts/compare.py" "${plot[@]}" "$@" >"$file"
}

mkdir -p "$out"
bad=0
done_kernels=()
for k in $kernels; do
	if name=$(bench_boot "$k"); then
		done_kernels+=("$name")
	else
		say "${name:-$k}: the benchmark run failed: see $BUILD/${name:-$k}/bench"
		bad=1
	fi
done

# print_report: the sections, one per arch (from each run's result.json),
# then the table across arches
print_report()
{
	local a k n=0 firsts=() first_kernels='' sections=() ks lsets usets failed=0

	echo "== commit 642fa448ae's benchmarks in QEMU, per architecture"
	echo "== TCG on this $(uname -m) host emulates each architecture's barriers with"
	echo "== the host's own instructions: only ratios within one architecture and"
	echo "== one run carry meaning, never nanoseconds across architectures, runs or"
	echo "== against hardware."
	for a in $(arch_order); do
		n=$((n + 1))
		ks=()
		for k in "${done_kernels[@]}"; do
			[ "$(result_value "$BUILD/$k/bench/result.json" arch)" != "$a" ] || ks+=("$k")
		done
		((${#ks[@]})) || continue
		firsts+=("${a/x86_64/x86-64}=$out/${ks[0]}-latency.json")
		first_kernels+="${first_kernels:+,} ${a/x86_64/x86-64}: ${ks[0]}"
		lsets=() usets=()
		for k in "${ks[@]}"; do
			lsets+=("$k=$out/$k-latency.json")
			usets+=("$k=$out/$k-unlink1.json")
		done
		echo
		echo "== $n. ${a/x86_64/x86-64} =="
		echo
		python3 "$TOP/scripts/compare.py" --avg-runtime "${lsets[@]}" || failed=1
		echo
		python3 "$TOP/scripts/compare.py" --only Hmean "${usets[@]}" || failed=1
		echo
		for k in "${ks[@]}"; do bench_facts "$k" || failed=1; done
		compare_sets "$out/$a-latency.txt" "$out/$a-latency" "${lsets[@]}" || failed=1
		compare_sets "$out/$a-unlink1.txt" "$out/$a-unlink1" "${usets[@]}" || failed=1
		echo "all statistics: $out/$a-latency.txt $out/$a-unlink1.txt"
		sections+=("$a")
	done
	# one arch: its full tables too, as compare.py prints them
	if ((${#sections[@]} == 1)); then
		echo
		cat "$out/${sections[0]}-latency.txt"
		echo
		cat "$out/${sections[0]}-unlink1.txt"
	fi
	if ((${#firsts[@]} > 1)); then
		echo
		echo "== set_current_state() and friends across architectures: corrected"
		echo "== ns/call (the mean less the empty loop's) of each arch's first kernel,"
		echo "== and its ratio to set_current_state() on the same arch.  Emulated"
		echo "== time: read the ratios down a column, not the nanoseconds across."
		echo "== Kernels:${first_kernels}"
		echo
		python3 "$TOP/scripts/compare.py" --arches "${firsts[@]}" || failed=1
	fi
	return $failed
}

print_report >"$out/report.txt" || bad=1
cat "$out/report.txt"
say "report: $out/report.txt; results: $out/*.json; plots: $out/<arch>-{latency,unlink1}.{png,svg} (with gnuplot)"
exit $bad
