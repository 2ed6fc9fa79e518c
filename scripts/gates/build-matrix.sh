#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build test_sched_state with W=1, then clean it, against each KDIR:
#   mainline    an in-tree build of the mainline tree (small PREEMPT_RT config,
#               built once in $CACHE/build-matrix)
#   mainline-O  a mainline make O= build dir: MATRIX_ODIR, else the newest
#               complete one of that version scripts/tree/kernel.sh built in
#               $CACHE/kernels; also "make O=dir kselftest-all
#               TARGETS=sched_state KDIR=<it>" from the top of a mainline tree
#   6.12, 6.1   Debian's headers (scripts/tree/kernel.sh): the x86_64 kernels of
#               role "matrix" in scripts/kernels.tsv
# A KDIR fails if a build fails or warns, if a clean leaves the module behind,
# or if anything in KDIR changed (Module.symvers by checksum).
#
# Then the builds CI farms make, from a copy of the mainline tree with the
# overlay, each with its own line:
#   farm-tuxmake   tuxmake's kselftest target: O= and KDIR= a build dir
#                  holding only a .config; exits 0, says once that the module
#                  was not built, the tarball holds no .ko, and the
#                  installed sched_state.sh says the module is not found
#   farm-gen_tar   make O=dir kselftest-gen_tar, no KDIR, in a copy of the
#                  mainline kernel's build dir: its .ko has that kernel's
#                  vermagic; a compile error in the module then fails make
#   farm-arm64     ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KDIR=Debian's
#                  6.12 arm64 headers (role "matrix"): an aarch64 .ko
#   farm-arm       ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-, no KDIR: the
#                  programs, no warning, KDIR the O= dir, not this machine's
#                  kernel
. "$(dirname "$0")/../lib.sh"

out=$BUILD/build-matrix
overlay=$TOP/tools/testing/selftests/sched_state
pristine=$("$TOP/scripts/tree/mainline.sh")
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
	local m=$out/src-$1/test_module log=$out/$1.log compat

	rm -rf "${m%/*}" && mkdir -p "$m"
	cp "$overlay/sched_state.h" "${m%/*}/"
	cp "$overlay"/test_module/{Makefile,*.c,*.h} "$m/"
	mapfile -t compat < <(module_compat "$2")
	make -C "$m" KDIR="$2" W=1 "${compat[@]}" >"$log" 2>&1 || { echo "build failed; log: $log"; return; }
	grep -qE "$warned" "$log" && { echo "build warned; log: $log"; return; }
	[ -f "$m/test_sched_state.ko" ] || { echo "no test_sched_state.ko; log: $log"; return; }
	make -C "$m" KDIR="$2" clean >>"$log" 2>&1 || { echo "clean failed; log: $log"; return; }
	[ "$(LC_ALL=C ls -A "$m" | tr '\n' ' ')" = "$(git -C "$overlay/test_module" ls-files | LC_ALL=C sort | tr '\n' ' ')" ] ||
		echo "clean left files in $m"
}

# overlay_tree DIR: a hard-linked copy of the mainline tree with our tools/
overlay_tree()
{
	rm -rf "$1" && cp -al "$pristine" "$1"
	(cd "$TOP" && git ls-files -co --exclude-standard -- tools) | rsync -a --files-from=- "$TOP/" "$1/"
}

# kselftest KDIR: kselftest-all and kselftest-clean with O= from a mainline tree
kselftest()
{
	local top=$out/ksft-linux o=$out/ksft-o log=$out/kselftest.log ko

	rm -rf "$o" && overlay_tree "$top"
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

# (c) Debian's headers, as scripts/tree/kernel.sh unpacks them
for k in $(kernels name role=matrix arch=x86_64); do
	check "$k" "$(KERNEL=$k KIMAGE='' KDIR=''; pick_kernel; echo "$KDIR")"
done

# The farms' builds, in one tree: the selftests' Makefiles as CI runs them
ftree=$out/farm-linux
fself=$ftree/tools/testing/selftests
notbuilt='sched_state: test_sched_state.ko not built, its tests will skip: '
overlay_tree "$ftree"

# tuxmake's kselftest target (tuxmake/target/kselftest.ini): "all", then
# "make -i install", then a tarball; O= and KDIR= are the build dir
farm_tuxmake()
{
	local b=$out/farm-tuxmake log=$out/farm-tuxmake.log inst tar run files
	local mk=(make -C "$fself" TARGETS=sched_state O="$b" KDIR="$b")

	inst=$b/kselftest_install tar=$b/kselftest.tar.xz
	rm -rf "$b" && mkdir -p "$b" && cp "$1/.config" "$b/.config"
	"${mk[@]}" all >"$log" 2>&1 || { echo "all failed; log: $log"; return; }
	[ "$(grep -c "^$notbuilt" "$log")" = 1 ] ||
		{ echo "all did not say once why the module was not built; log: $log"; return; }
	grep -qE "$warned" "$log" && { echo "all warned; log: $log"; return; }
	"${mk[@]}" -i install INSTALL_PATH="$inst" >>"$log" 2>&1 &&
		tar -cJf "$tar" -C "$inst" . ||
		{ echo "install or tar failed; log: $log"; return; }
	files=$(tar -tJf "$tar")
	grep -qx './sched_state/sched_state_test' <<<"$files" ||
		{ echo "no sched_state_test in $tar"; return; }
	grep -q '\.ko$' <<<"$files" && { echo "$tar holds a .ko"; return; }
	# the installed wrapper skips the module-backed tests, saying why
	run=$("$inst/sched_state/sched_state.sh" -- -r kthread.uninterruptible.reports_state 2>&1)
	printf '%s\n' "$run" >"$b/run.log"
	python3 "$TOP/scripts/report/ktap.py" --log "$b/run.log" "$b/result.json" >/dev/null || :
	grep -qx "# test_sched_state.ko is not in $inst/sched_state/test_module, nor found by modprobe" <<<"$run" &&
	[ "$(result_value "$b/result.json" tests)" != "[]" ] &&
	[ "$(result_value "$b/result.json" tests.0.name)" = kthread.uninterruptible.reports_state ] &&
	[ "$(result_value "$b/result.json" tests.0.result)" = skip ] &&
	[ "$(result_value "$b/result.json" tests.0.comment)" = "module not found" ] ||
		{ echo "sched_state.sh did not say the module is not found:"; echo "$run" | head -n 20; }
}

# KernelCI's make backend: the kernel, then kselftest-gen_tar in the same
# O= dir, no KDIR.  The dir is a copy of the cached kernel's (it is never
# written to); kselftest-gen_tar adds the headers the selftests need.
farm_gen_tar()
{
	local c=$out/farm-gen_tar log=$out/farm-gen_tar.log ko rel magic
	local src=$fself/sched_state/test_module/core.c
	local tar=$c/kselftest/kselftest_install/kselftest-packages/kselftest.tar.gz

	rel=$(image_release "$1/arch/x86/boot/bzImage")
	rm -rf "$c" && cp -a "$1" "$c"
	make -C "$ftree" O="$c" kselftest-gen_tar TARGETS=sched_state >"$log" 2>&1 ||
		{ echo "kselftest-gen_tar failed; log: $log"; return; }
	grep -q "^$notbuilt" "$log" && { echo "the module was not built; log: $log"; return; }
	ko=$(tar -tzf "$tar") &&
		ko=$(grep -x './sched_state/test_module/test_sched_state.ko' <<<"$ko") ||
		{ echo "no test_sched_state.ko in $tar"; return; }
	magic=$(tar -xOzf "$tar" "$ko" | strings | sed -n 's/^vermagic=//p')
	[ -n "$rel" ] && [ "${magic%% *}" = "$rel" ] ||
		{ echo "vermagic '$magic', the kernel is $rel"; return; }
	# a real compile error still fails make
	make -C "$fself/sched_state" O="$c" clean >>"$log" 2>&1
	sed -i '$a #error sched_state build-matrix: injected' "$src"
	if make -C "$fself" TARGETS=sched_state O="$c" all >>"$log" 2>&1; then
		echo "a compile error in the module did not fail make; log: $log"
	elif ! grep -q 'error sched_state build-matrix: injected' "$log"; then
		echo "make failed, but not on the injected error; log: $log"
	fi
	sed -i '$d' "$src"
	rm -rf "$c"
}

# farm_cross ARCH PREFIX KDIR|"": the programs for ARCH, and the module
# against KDIR, or none without one (KDIR is then O=, not this machine's)
farm_cross()
{
	local o=$out/farm-$1 log=$out/farm-$1.log d=$fself/sched_state m want

	rm -rf "$o"
	make -C "$fself/sched_state" clean >/dev/null 2>&1
	make -C "$fself" TARGETS=sched_state ARCH="$1" CROSS_COMPILE="$2" O="$o" \
		${3:+KDIR="$3"} all >"$log" 2>&1 ||
		{ echo "all failed; log: $log"; return; }
	grep -qE "$warned" "$log" && { echo "all warned; log: $log"; return; }
	case $1 in
	arm64) m=AArch64 ;;
	arm) m=ARM ;;
	esac
	[ "$(readelf -h "$o/kselftest/sched_state/sched_state_test" 2>/dev/null | sed -n 's/^ *Machine: *//p')" = "$m" ] ||
		{ echo "sched_state_test is not an $m program; log: $log"; return; }
	if [ -n "$3" ]; then
		[ "$(readelf -h "$d/test_module/test_sched_state.ko" 2>/dev/null | sed -n 's/^ *Machine: *//p')" = "$m" ] ||
			echo "no $m test_sched_state.ko; log: $log"
		make -C "$fself/sched_state" ARCH="$1" CROSS_COMPILE="$2" KDIR="$3" clean >>"$log" 2>&1
		return
	fi
	want="${notbuilt}no Module.symvers in KDIR=$o"
	grep -qxF "$want" "$log" || echo "KDIR was not the O= dir; log: $log"
}

# farm NAME KDIR|"" CMD...: CMD's verdict, and KDIR compared with before
farm()
{
	local before="" why

	[ -z "$2" ] || before=$(snapshot "$2")
	why=$("${@:3}")
	[ -z "$why" ] && [ -n "$2" ] && [ "$before" != "$(snapshot "$2")" ] && why="KDIR changed"
	result "$1" "$2" "$why"
}

if [ -n "$odir" ]; then
	farm farm-tuxmake "$odir" farm_tuxmake "$odir"
	farm farm-gen_tar "$odir" farm_gen_tar "$odir"
else
	result farm-tuxmake "" "no mainline build dir: set MATRIX_ODIR"
	result farm-gen_tar "" "no mainline build dir: set MATRIX_ODIR"
fi
a64=$(export KERNEL=$(kernels name role=matrix arch=arm64 | head -n 1) KIMAGE='' KDIR=''; pick_kernel; echo "$KDIR")
farm farm-arm64 "$a64" farm_cross arm64 aarch64-linux-gnu- "$a64"
farm farm-arm "" farm_cross arm arm-linux-gnueabihf- ""

echo "build-matrix ($version): $ok passed, $bad failed"
[ "$bad" -eq 0 ]
