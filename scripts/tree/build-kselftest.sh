#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install sched_state for the kernel under test into $BUILD/$KNAME/kselftest,
# the tree a CI farm would ship, as LKFT runs a new selftest on an old
# kernel: the programs are built once per arch, in the mainline tree KSRC,
# with the selftests' own install target; the module is built for this
# kernel, against its KDIR, with the module's own Makefile (and, for a KDIR
# older than an interface it uses, scripts/tree/module-compat.h).  Prints
# the tree.
#
# For an arch that scripts/arches.tsv cross-compiles, both go through kbuild
# and the selftests Makefile with its ARCH and CROSS_COMPILE: the programs
# static, in a make O= directory of its own that first gets KSRC's uapi
# headers for the arch (make O= headers, as kselftest.rst says).  The
# tooling's own programs (scripts/tree/tooling-programs.mk: the module's
# tests, unlink1) are built alike and installed beside, in
# sched_state-tooling/, with its module (scripts/bench/seed), built against
# KDIR as test_sched_state.ko.
#
# What it installs is kept in $CACHE/kselftest/<kernel>-<key>, the key a
# hash of the kernel and of every source the build reads (the overlay as
# laid into KSRC, the pristine tree, the compilers, this recipe): while
# they are unchanged, any clone copies it instead of building again.  Only
# for the default KSRC and a kernel of kernels.tsv with its own KDIR: one's
# own tree or kernel may change under the same path.
. "$(dirname "$0")/../lib.sh"
pick_kernel
arch_set "$KARCH"
# ARCH= named the kernel; kbuild and the selftests get the arch's own ARCH
# below, where they need one, and must not take that name from the environment
unset ARCH

progs=$BUILD/programs-$KARCH
out=$BUILD/$KNAME/kselftest
mod=$BUILD/$KNAME/module
log=$BUILD/$KNAME/build.log
plog=$BUILD/programs-$KARCH.log
cross=()
[ -z "$A_CROSS" ] || cross=(ARCH="$A_KARCH" CROSS_COMPILE="$A_CROSS")
mkdir -p "$BUILD/$KNAME"

# o_dir: print the arch's O= directory with KSRC's uapi headers for it.
# kbuild refuses O= on a tree configured in place, as KSRC is: they are made
# from a clean copy, hard-linked (nothing writes through a link), once per
# KSRC and version.
o_dir()
{
	local o=$BUILD/o-$KARCH src=$BUILD/o-$KARCH.src stamp

	stamp="$(realpath "$KSRC") $(make -s -C "$KSRC" kernelversion) $(cat "$KSRC/.sched_state-pristine" 2>/dev/null)"
	if [ "$(cat "$o/.headers" 2>/dev/null)" != "$stamp" ]; then
		say "installing $KSRC's uapi headers for $A_KARCH in $o"
		rm -rf "$o" "$src"
		cp -al "$KSRC" "$src" 2>/dev/null || cp -a "$KSRC" "$src"
		rm -rf "$src/.config" "$src/include/config" "$src"/arch/*/include/generated
		make -s -C "$src" O="$o" "${cross[@]}" headers >"$plog" 2>&1 ||
			{ tail -n 30 "$plog"; die "make ARCH=$A_KARCH headers failed; log: $plog"; }
		rm -rf "$src"
		echo "$stamp" >"$o/.headers"
	fi
	echo "$o"
}

# build_key: the hash of what the build reads, relative paths only
build_key()
{
	{
		echo "$KNAME $KARCH $KVER $KDIR $KFROM"
		cat "$KSRC/.sched_state-pristine"
		gcc --version | head -n 1
		[ -z "$A_CROSS" ] || "${A_CROSS}gcc" --version | head -n 1
		(cd "$TOP" && git ls-files -co --exclude-standard -z -- tools) |
			(cd "$KSRC" && xargs -0 sha256sum -- tools/testing/selftests/Makefile \
				tools/testing/selftests/lib.mk)
		(cd "$TOP" && git ls-files -co --exclude-standard -z -- scripts/lib.sh \
			scripts/tree/build-kselftest.sh scripts/tree/tooling-programs.mk \
			scripts/tree/module-compat.h scripts/gates/module-tests \
			scripts/bench/seed scripts/bench/unlink1.c | xargs -0 sha256sum --)
	} | sha256sum | cut -c1-12
}

cached=
if [ "$KSRC" = "$KSRC_DEFAULT" ] && [ "$KOWN" = 1 ]; then
	cached=$CACHE/kselftest/$KNAME-$(build_key) || die "could not hash the sources"
	if [ -f "$cached/done" ]; then
		say "sched_state for $KNAME: sources unchanged, built before ($cached)"
		rm -rf "$out"
		cp -a "$cached/kselftest" "$out"
		touch "$cached/used"
		echo "$out"
		exit 0
	fi
fi

if [ ${#cross[@]} -eq 0 ]; then
	say "building sched_state's programs in $KSRC"
	pmake=()
	tmake=(KHDR_INCLUDES="-isystem $KSRC/usr/include")
else
	o=$(o_dir)
	say "building sched_state's programs for $KARCH in $KSRC (static, O=$o)"
	pmake=("${cross[@]}" O="$o" USERLDFLAGS=-static)
	tmake=(CROSS_COMPILE="$A_CROSS" KHDR_INCLUDES="-isystem $o/usr/include" LDFLAGS=-static)
fi
make -s -C "$SELFTESTS" TARGETS=sched_state KDIR=/nonexistent "${pmake[@]}" \
	install INSTALL_PATH="$progs" >"$plog" 2>&1 ||
	{ tail -n 30 "$plog"; die "build failed; log: $plog"; }
# the tooling's programs (scripts/tree/tooling-programs.mk), with the same
# compiler and headers, beside sched_state/: they are no part of what a CI
# farm ships
make -s -f "$TOP/scripts/tree/tooling-programs.mk" SELFTESTS="$SELFTESTS" "${tmake[@]}" \
	OUTPUT="$progs/sched_state-tooling" install >>"$plog" 2>&1 ||
	{ tail -n 30 "$plog"; die "the tooling's programs did not build; log: $plog"; }

say "building test_sched_state.ko for $KNAME ($KVER, KDIR=$KDIR)"
rm -rf "$mod" "$out"
mkdir -p "$mod"
# the module includes the directory's headers as ../
cp -r "$SELFTESTS"/sched_state/{*.h,test_module} "$mod/"
mapfile -t compat < <(module_compat "$KDIR")
make -C "$mod/test_module" KDIR="$KDIR" "${cross[@]}" "${compat[@]}" >"$log" 2>&1 &&
	[ -f "$mod/test_module/test_sched_state.ko" ] ||
	{ tail -n 30 "$log"; die "test_sched_state.ko did not build for $KNAME; log: $log"; }
# the tooling's module (scripts/bench/seed), against the same KDIR
seed=$BUILD/$KNAME/seed
rm -rf "$seed"
cp -r "$TOP/scripts/bench/seed" "$seed"
make -C "$KDIR" O="$(cd "$KDIR" && pwd)" M="$seed" "${cross[@]}" modules >>"$log" 2>&1 &&
	[ -f "$seed/sched_state_seed.ko" ] ||
	{ tail -n 30 "$log"; die "sched_state_seed.ko did not build for $KNAME; log: $log"; }
cp -a "$progs" "$out"
cp "$seed/sched_state_seed.ko" "$out/sched_state-tooling/bench/"
# the programs were built without a KDIR; this tree has the module
mkdir -p "$out/sched_state/test_module"
cp "$mod/test_module/test_sched_state.ko" "$out/sched_state/test_module/"
if [ -n "$cached" ]; then
	# whole or not at all: a concurrent build of the same key may win
	mkdir -p "$CACHE/kselftest"
	tmp=$(mktemp -d "$cached.XXXXXX")
	cp -a "$out" "$tmp/kselftest"
	touch "$tmp/done" "$tmp/used"
	mv -T "$tmp" "$cached" 2>/dev/null || rm -rf "$tmp"
fi
echo "$out"
