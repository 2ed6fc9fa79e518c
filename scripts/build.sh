#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install sched_state for the kernel under test into $BUILD/$KNAME/kselftest,
# the tree a CI farm would ship, as LKFT runs a new selftest on an old
# kernel: the programs are built once, in the mainline tree KSRC, with the
# selftests' own install target; the module is built for this kernel,
# against its KDIR, with the module's own Makefile.  Prints the tree.
. "$(dirname "$0")/lib.sh"
pick_kernel

progs=$BUILD/programs
out=$BUILD/$KNAME/kselftest
mod=$BUILD/$KNAME/module
log=$BUILD/$KNAME/build.log
mkdir -p "$BUILD/$KNAME"
say "building sched_state's programs in $KSRC"
make -s -C "$SELFTESTS" TARGETS=sched_state KDIR=/nonexistent \
	install INSTALL_PATH="$progs" >"$BUILD/programs.log" 2>&1 ||
	{ tail -n 30 "$BUILD/programs.log"; die "build failed; log: $BUILD/programs.log"; }

say "building test_sched_state.ko for $KNAME ($KVER, KDIR=$KDIR)"
rm -rf "$mod" "$out"
mkdir -p "$mod"
# the module includes the directory's headers as ../
cp -r "$SELFTESTS"/sched_state/{*.h,test_module} "$mod/"
make -C "$mod/test_module" KDIR="$KDIR" >"$log" 2>&1 &&
	[ -f "$mod/test_module/test_sched_state.ko" ] ||
	{ tail -n 30 "$log"; die "test_sched_state.ko did not build for $KNAME; log: $log"; }
cp -a "$progs" "$out"
mkdir -p "$out/sched_state/test_module"
cp "$mod/test_module/test_sched_state.ko" "$out/sched_state/test_module/"
echo "$out"
