#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench (docs/bench.md): each kernel boots once in QEMU to run
# scripts/vm/guest/bench.sh; bench.py reports.
#   bench.sh --host          unlink1 natively on this host (make bench-host)
# Knobs (defaults below): BENCH_KERNELS="a b ...", BENCH_ALL (ARCH=all's
# kernel); BENCH_CALLS, BENCH_REPEATS: the seed's; BENCH_CPU,
# BENCH_LIVE_CALLS: sched_state_bench's; BENCH_TASKS=N,N,..., BENCH_WARMUP,
# BENCH_SAMPLES, BENCH_INTERVAL (ms), BENCH_DIR (--host): unlink1's;
# BENCH_TIMEOUT (s, a boot); BENCH_KEEP: docs/variables.md.
. "$(dirname "$0")/../lib.sh"

if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_CALLS:=5000000}" "${BENCH_LIVE_CALLS:=1000000}" "${BENCH_REPEATS:=3}"
	: "${BENCH_TASKS:=2,4}" "${BENCH_WARMUP:=1}" "${BENCH_SAMPLES:=3}" "${BENCH_INTERVAL:=250}"
fi
calls=${BENCH_CALLS:-65000000} live=${BENCH_LIVE_CALLS:-10000000} repeats=${BENCH_REPEATS:-5}
warmup=${BENCH_WARMUP:-5} samples=${BENCH_SAMPLES:-5} interval=${BENCH_INTERVAL:-1000}
tasks=${BENCH_TASKS:-}
for v in "$calls" "$live" "$repeats" "$warmup" "$samples" "$interval" "${BENCH_CPU:-0}"; do
	[[ $v =~ ^[0-9]+$ ]] || die "BENCH_CALLS, _LIVE_CALLS, _REPEATS, _WARMUP, _SAMPLES, _INTERVAL, _CPU: not a number: '$v'"
done
((repeats >= 3)) || die "BENCH_REPEATS=$repeats: sched_state_bench needs at least 3 for a spread"
[[ $tasks =~ ^([0-9]+(,[0-9]+)*)?$ ]] || die "BENCH_TASKS=$tasks: expected N,N,..."
guest="sh /guest/bench.sh $calls $repeats $live ${BENCH_CPU:-0} $warmup $samples $interval /tmp ${tasks//,/ }"
# 50 ns a call (5 x TCG's on a quiet host) for the seed's 2 variants and
# sched_state_bench's 4 twice over, 4 unlink1 runs, the boot; x3 cross-arch
timeout=$((300 + (calls + 8 * live) * repeats / 10000000 +
	4 * ((warmup + samples) * interval / 1000 + 10)))

# $(boot NAME): NAME ("single": KERNEL, ARCH or KIMAGE's) benched; its name
boot()
{
	[ "$1" = single ] || { export KERNEL=$1; unset KIMAGE KDIR ARCH; }
	pick_kernel >&2
	echo "$KNAME"
	[ -z "$A_CROSS" ] || timeout=$((timeout * 3))
	ksft=$("$TOP/scripts/tree/build-kselftest.sh") || return 1
	say "benchmarking $KIMAGE ($KNAME, $KARCH) in QEMU" >&2
	"$TOP/scripts/vm/vm.sh" --arch "$KARCH" --kimage "$KIMAGE" --ksft "$ksft" --out \
		"$BUILD/$KNAME/bench" --timeout "${BENCH_TIMEOUT:-$timeout}" --guest-cmd "$guest" >&2
}

bad=0 names=() keep=${BENCH_KEEP:-0}
case ${1:-} in
--host)
	out=$BUILD/bench-host
	mkdir -p "$out"
	gcc -Wall -Wextra -O2 -D_GNU_SOURCE= -o "$out/unlink1" "$TOP/scripts/bench/unlink1.c" ||
		die "unlink1 does not build"
	say "running unlink1 on $(uname -r), $(nproc) CPUs"
	"$out/unlink1" "$warmup" "$samples" "$interval" "${BENCH_DIR:-/tmp}" ${tasks//,/ } \
		>"$out/unlink1.json" || die "unlink1 failed"
	exec python3 "$TOP/scripts/bench/bench.py" table "$(uname -r)=$out/unlink1.json"
	;;
"")
	if [ -n "${BENCH_KERNELS:-}" ]; then
		kernels=$BENCH_KERNELS
	elif [ "${ARCH:-}" = all ]; then
		kernels=$(for a in $(arch_names); do
			ARCH=$a KERNEL=${BENCH_ALL:-6.12} kernel_row || exit; done | cut -d ' ' -f 1) || exit
	elif [ "${QUICK:-0}" = 1 ] || [ -n "${KIMAGE:-}" ]; then
		kernels=single
	else
		kernels=$(kernel_row | cut -d ' ' -f 1) || exit
		kernels+=" $(kernels name "role=rt:$kernels")"
		[ -n "${ARCH:-}" ] || keep=${BENCH_KEEP:-1}
	fi
	for k in $kernels; do
		if name=$(boot "$k"); then names+=("$name"); else bad=1; fi
	done
	;;
*) die "usage: $0 [--host]" ;;
esac
((bad == 0)) || { keep=0; say "a benchmark run failed: see $BUILD/<kernel>/bench"; }
((${#names[@]})) || exit 1
mkdir -p "$BUILD/bench"
BENCH_KEEP=$keep python3 "$TOP/scripts/bench/bench.py" report "$BUILD/bench" "${names[@]}" |
	tee "$BUILD/bench/report.txt"
((PIPESTATUS[0] == 0)) || bad=1
say "report: $BUILD/bench/report.txt; what came back: $BUILD/<kernel>/bench/files"
exit $bad
