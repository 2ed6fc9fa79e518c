#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module, W=1, then cleaned, against each KDIR, unchanged: mainline in-tree,
# MATRIX_ODIR (mainline's O= dir), Debian's (MATRIX_KDIRS: NAME=KDIR ..., check.sh's); the CI
# farms' builds, arm64's against MATRIX_ARM64 (docs/check.md).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kbuild.sh"
set +e

out=$BUILD/build-matrix
odir=${MATRIX_ODIR:-}
[ -n "$odir" ] || die "MATRIX_ODIR: name mainline's make O= build dir"
: "${MATRIX_KDIRS?NAME=KDIR ...}" "${MATRIX_ARM64?an arm64 KDIR}"
pristine=$("$TOP/scripts/tree/mainline.sh") || exit
version=$(make -s -C "$pristine" kernelversion)
notbuilt='sched_state: test_sched_state.ko not built, its tests will skip: '
mkdir -p "$out"

# the in-tree build, once (removed if it fails); with vmlinux.o, make modules writes Module.symvers
tree=$CACHE/build-matrix/$(basename "$(dirname "$pristine")")
if [ "$(cat "$tree/.build-matrix-done" 2>/dev/null)" != "$pristine" ]; then
	say "build-matrix: in-tree $version in $tree (once; log: $out/linux.log)"
	rm -rf "$tree" && mkdir -p "$(dirname "$tree")" && cp -al "$pristine" "$tree"
	{ printf 'CONFIG_%s\n' 64BIT=y EXPERT=y PREEMPT_RT=y; cat "$TOP/$OVERLAY/config"; } >"$out/small.config"
	{ make -C "$tree" KCONFIG_ALLCONFIG="$out/small.config" allnoconfig &&
	  make -C "$tree" -j2 vmlinux_o && make -C "$tree" -j2 modules; } >"$out/linux.log" 2>&1 &&
		grep -qx CONFIG_PREEMPT_RT=y "$tree/.config" && echo "$pristine" >"$tree/.build-matrix-done"
	[ -f "$tree/.build-matrix-done" ] || rm -rf "$tree"
fi
for kd in "mainline=$tree" "mainline-O=$odir" $MATRIX_KDIRS; do
	k=${kd%%=*} d=${kd#*=}
	gate "$k (KDIR=$d)" kept "$d" module_build "$out/src-$k" "$d"
done

# the farms' builds, through the selftests' Makefiles
ftree=$out/farm-linux
fself=$ftree/tools/testing/selftests
copy_overlay "$ftree" "$pristine" || die "could not copy $pristine to $ftree"

# tuxmake: all, make -i install, a tarball; O= and KDIR= hold a .config alone: its tests skip
farm_tuxmake()
{
	local b=$out/farm-tuxmake log=$out/farm-tuxmake.log files run=$out/farm-tuxmake/run.log
	local inst=$b/kselftest_install tar=$b/kselftest.tar.xz
	local mk=(make -C "$fself" TARGETS=sched_state O="$b" KDIR="$b")

	rm -rf "$b" && mkdir -p "$b" && cp "$odir/.config" "$b/.config"
	logged "$log" "${mk[@]}" all || return 1
	[ "$(grep -c "^$notbuilt" "$log")" = 1 ] ||
		{ echo "all did not say once why the module was not built; log: $log"; return 1; }
	"${mk[@]}" -i install INSTALL_PATH="$inst" >>"$log" 2>&1 && tar -cJf "$tar" -C "$inst" . ||
		{ echo "install or tar failed; log: $log"; return 1; }
	files=$(tar -tJf "$tar")
	grep -qx './sched_state/sched_state_test' <<<"$files" || { echo "no sched_state_test in $tar"; return 1; }
	! grep '\.ko$' <<<"$files" || { echo "$tar holds a .ko"; return 1; }
	"$inst/sched_state/sched_state.sh" -- -r kthread.uninterruptible.reports_state >"$run" 2>&1
	grep -qx '# module-backed tests skip: module not found' "$run" &&
		grep -qx 'ok 1 kthread.uninterruptible.reports_state # SKIP module not found' "$run" && return 0
	echo "sched_state.sh did not say the module is not found:"
	head -n 20 "$run"
	return 1
}

# KernelCI: gen_tar in the kernel's O= dir, no KDIR: the .ko's vermagic; a compile error fails
farm_gen_tar()
{
	local c=$out/farm-gen_tar log=$out/farm-gen_tar.log rel magic rc
	local src=$fself/sched_state/test_module/core.c
	local tar=$c/kselftest/kselftest_install/kselftest-packages/kselftest.tar.gz

	rel=$(image_release "$odir/arch/x86/boot/bzImage")
	rm -rf "$c" && cp -a "$odir" "$c"
	logged "$log" make -C "$ftree" O="$c" kselftest-gen_tar TARGETS=sched_state || return 1
	! grep "^$notbuilt" "$log" || return 1
	tar -tzf "$tar" | installed "$tar" || return 1
	magic=$(tar -xOzf "$tar" ./sched_state/test_module/test_sched_state.ko | strings |
		sed -n 's/^vermagic=//p')
	[ -n "$rel" ] && [ "${magic%% *}" = "$rel" ] || { echo "vermagic '$magic', the kernel is $rel"; return 1; }
	make -C "$fself/sched_state" O="$c" clean >>"$log" 2>&1
	sed -i '$a #error sched_state build-matrix: injected' "$src"
	! make -C "$fself" TARGETS=sched_state O="$c" all >>"$log" 2>&1 &&
		grep -q 'error sched_state build-matrix: injected' "$log"
	rc=$?
	sed -i '$d' "$src"
	rm -rf "$c"
	[ $rc -eq 0 ] || echo "make did not fail on a compile error injected in the module; log: $log"
	return $rc
}

# farm_cross ARCH PREFIX MACHINE KDIR|"": for ARCH; with no KDIR, KDIR is O=
farm_cross()
{
	local o=$out/farm-$1 log=$out/farm-$1.log m=$3

	rm -rf "$o"
	make -C "$fself/sched_state" clean >/dev/null 2>&1
	logged "$log" make -C "$fself" TARGETS=sched_state ARCH="$1" CROSS_COMPILE="$2" O="$o" \
		${4:+KDIR="$4"} all || return 1
	[ "$(readelf -h "$o/kselftest/sched_state/sched_state_test" | sed -n 's/^ *Machine: *//p')" = "$m" ] ||
		{ echo "sched_state_test is not an $m program; log: $log"; return 1; }
	[ -n "$4" ] || grep -qxF "${notbuilt}no Module.symvers in KDIR=$o" "$log" ||
		{ echo "KDIR was not the O= dir; log: $log"; return 1; }
	[ -n "$4" ] || return 0
	[ "$(readelf -h "$fself/sched_state/test_module/test_sched_state.ko" | sed -n 's/^ *Machine: *//p')" = "$m" ] ||
		{ echo "no $m test_sched_state.ko; log: $log"; return 1; }
	make -C "$fself/sched_state" ARCH="$1" CROSS_COMPILE="$2" KDIR="$4" clean >>"$log" 2>&1
}

gate "farm-tuxmake (KDIR=$odir)" kept "$odir" farm_tuxmake
gate "farm-gen_tar (O=a copy of $odir)" kept "$odir" farm_gen_tar
gate "farm-arm64 (KDIR=$MATRIX_ARM64)" kept "$MATRIX_ARM64" farm_cross arm64 aarch64-linux-gnu- AArch64 \
	"$MATRIX_ARM64"
gate "farm-arm (no KDIR)" farm_cross arm arm-linux-gnueabihf- ARM ""

gates "build-matrix ($version)"
