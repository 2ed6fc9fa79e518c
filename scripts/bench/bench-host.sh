#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-host: will-it-scale's unlink1 (scripts/bench/unlink1.c) natively
# on this host, as mmtests' compare-kernels prints it (scripts/bench/bench.py
# table), in real time.  Knobs: BENCH_TASKS=2,4,8, BENCH_WARMUP (5),
# BENCH_SAMPLES (5), BENCH_INTERVAL ms (1000), BENCH_DIR (/tmp); QUICK=1:
# 1 warm-up and 3 samples of 250 ms.
. "$(dirname "$0")/../lib.sh"

out=$BUILD/bench-host
if [ "${QUICK:-0}" = 1 ]; then
	: "${BENCH_WARMUP:=1}" "${BENCH_SAMPLES:=3}" "${BENCH_INTERVAL:=250}"
fi
mkdir -p "$out"
say "building $out/unlink1"
gcc -Wall -Wextra -O2 -D_GNU_SOURCE= -o "$out/unlink1" "$TOP/scripts/bench/unlink1.c" ||
	die "unlink1 does not build"
say "running unlink1 on $(uname -r), $(nproc) CPUs"
"$out/unlink1" -w "${BENCH_WARMUP:-5}" -s "${BENCH_SAMPLES:-5}" -i "${BENCH_INTERVAL:-1000}" \
	${BENCH_TASKS:+-t "$BENCH_TASKS"} -d "${BENCH_DIR:-/tmp}" -o "$out/unlink1.json" >&2 ||
	die "unlink1 failed"
python3 "$TOP/scripts/bench/bench.py" table "$(uname -r)=$out/unlink1.json"
