#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build test_sched_state with W=1, then clean it, against each KDIR:
#   mainline    an in-tree build of the mainline tree (small PREEMPT_RT config,
#               built once in $CACHE/build-matrix)
#   mainline-O  a mainline make O= build dir: MATRIX_ODIR, else the newest
#               complete one of that version scripts/kernel.sh built in
#               $CACHE/kernels; also "make O=dir kselftest-all
#               TARGETS=sched_state KDIR=<it>" from the top of a mainline tree
#   6.12, 6.1   Debian's headers (scripts/kernel.sh)
# A KDIR fails if a build fails or warns, if a clean leaves the module behind,
# or if anything in KDIR changed (Module.symvers by checksum).
. "$(dirname "$0")/lib.sh"

out=$BUILD/build-matrix
overlay=$TOP/tools/testing/selftests/sched_state
pristine=$("$TOP/scripts/mainline.sh")
version=$(make -s -C "$pristine" kernelversion)
warned='([Ww]arning|WARNING|[Ee]rror):'
mkdir -p "$out"
ok=0 bad=0

# result NAME KDIR WHY: the KDIR's one line
result()
{
	if [ -z "$3" ]; then
		ok=$((ok + 1)) && echo "PASS: $1 (KDIR=$2)"
	else
		bad=$((bad + 1)) && echo "FAIL: $1 (KDIR=${2:-none}): $3"
	fi
}

# snapshot DIR: each file's type, size and mtime, and Module.symvers' checksum
snapshot()
{
	(cd "$1" && find . -printf '%y %p %s %T@\n' | sort && sha256sum Module.symvers)
}

# module NAME KDIR: build and clean a scratch copy; prints what went wrong
module()
{
	local m=$out/src-$1/test_module log=$out/$1.log

	rm -rf "${m%/*}" && mkdir -p "$m"
	cp "$overlay/sched_state.h" "${m%/*}/"
	cp "$overlay/test_module/Makefile" "$overlay/test_module/test_sched_state.c" "$m/"
	make -C "$m" KDIR="$2" W=1 >"$log" 2>&1 || { echo "build failed; log: $log"; return; }
	grep -qE "$warned" "$log" && { echo "build warned; log: $log"; return; }
	[ -f "$m/test_sched_state.ko" ] || { echo "no test_sched_state.ko; log: $log"; return; }
	make -C "$m" KDIR="$2" clean >>"$log" 2>&1 || { echo "clean failed; log: $log"; return; }
	[ "$(ls -A "$m" | tr '\n' ' ')" = "Makefile test_sched_state.c " ] || echo "clean left files in $m"
}

# kselftest KDIR: kselftest-all and kselftest-clean with O= from a mainline tree
kselftest()
{
	local top=$out/ksft-linux o=$out/ksft-o log=$out/kselftest.log ko

	rm -rf "$top" "$o" && cp -al "$pristine" "$top"
	(cd "$TOP" && git ls-files -co --exclude-standard -- tools) | rsync -a --files-from=- "$TOP/" "$top/"
	ko=$top/tools/testing/selftests/sched_state/test_module/test_sched_state.ko
	{ make -C "$top" O="$o" allnoconfig &&
	  make -C "$top" O="$o" kselftest-all TARGETS=sched_state KDIR="$1" W=1; } >"$log" 2>&1 ||
		{ echo "kselftest-all failed; log: $log"; return; }
	grep -qE "$warned" "$log" && { echo "kselftest-all warned; log: $log"; return; }
	[ -f "$ko" ] || { echo "kselftest-all built no module; log: $log"; return; }
	make -C "$top" O="$o" kselftest-clean TARGETS=sched_state KDIR="$1" >>"$log" 2>&1 ||
		{ echo "kselftest-clean failed; log: $log"; return; }
	[ ! -e "$ko" ] || echo "kselftest-clean left $ko"
}

# check NAME KDIR [kselftest]: the builds, then KDIR compared with before
check()
{
	local before why

	[ -f "$2/Module.symvers" ] || { result "$1" "$2" "no Module.symvers"; return; }
	before=$(snapshot "$2")
	why=$(module "$1" "$2")
	[ -z "$why" ] && [ -n "${3:-}" ] && why=$(kselftest "$2")
	[ -z "$why" ] && [ "$before" != "$(snapshot "$2")" ] &&
		why="KDIR changed: $(diff <(echo "$before") <(snapshot "$2") | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
	result "$1" "$2" "$why"
}

# (a) a hard-linked copy, allnoconfig plus a fragment; once vmlinux.o exists,
# make modules writes Module.symvers
tree=$CACHE/build-matrix/$(basename "$(dirname "$pristine")")
if [ "$(cat "$tree/.build-matrix-done" 2>/dev/null)" != "$pristine" ]; then
	say "build-matrix: in-tree $version in $tree (once; log: $out/linux.log)"
	rm -rf "$tree" && mkdir -p "$(dirname "$tree")" && cp -al "$pristine" "$tree"
	{ printf 'CONFIG_%s\n' 64BIT=y EXPERT=y PREEMPT_RT=y; cat "$overlay/config"; } >"$out/small.config"
	{ make -C "$tree" KCONFIG_ALLCONFIG="$out/small.config" allnoconfig &&
	  make -C "$tree" -j2 vmlinux_o && make -C "$tree" -j2 modules; } >"$out/linux.log" 2>&1 &&
		grep -qx CONFIG_PREEMPT_RT=y "$tree/.config" && echo "$pristine" >"$tree/.build-matrix-done"
fi
[ -f "$tree/.build-matrix-done" ] && check mainline "$tree" ||
	result mainline "$tree" "building the tree failed; log: $out/linux.log"

# (b) the O= build dir
odir=${MATRIX_ODIR:-}
[ -n "$odir" ] || for d in $(ls -td "$CACHE"/kernels/*/build 2>/dev/null); do
	[ -f "$d/../env" ] && [ -f "$d/Module.symvers" ] &&
		[ "$(make -s -C "$d" kernelversion 2>/dev/null)" = "$version" ] && { odir=$d; break; }
done
[ -n "$odir" ] && check mainline-O "$odir" kselftest ||
	result mainline-O "" "no mainline $version make O= build dir: set MATRIX_ODIR"

# (c) Debian's headers, as scripts/kernel.sh unpacks them
for k in 6.12 6.1; do
	check "$k" "$(KERNEL=$k KIMAGE='' KDIR=''; pick_kernel; echo "$KDIR")"
done

echo "build-matrix ($version): $ok passed, $bad failed"
[ "$bad" -eq 0 ]
