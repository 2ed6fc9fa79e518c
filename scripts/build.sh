#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build sched_state in KSRC for the kernel under test and install it, with the
# selftests' own install target, into $BUILD/$KNAME/kselftest: the tree a CI
# farm would ship.
. "$(dirname "$0")/lib.sh"
pick_kernel

out=$BUILD/$KNAME/kselftest
say "building sched_state for $KVER (KDIR=$KDIR)"
rm -rf "$out"
make -s -C "$SELFTESTS" TARGETS=sched_state KDIR="$KDIR" \
	install INSTALL_PATH="$out" >"$BUILD/$KNAME.build.log" 2>&1 ||
	{ tail -n 30 "$BUILD/$KNAME.build.log"; die "build failed; log: $BUILD/$KNAME.build.log"; }
# mainline's lib.mk installs modules in test_module/, our 6.1 rule beside the programs
for ko in "$out"/sched_state/test_module/test_sched_state.ko "$out"/sched_state/test_sched_state.ko; do
	[ -f "$ko" ] && { echo "$out"; exit 0; }
done
die "test_sched_state.ko was not built; log: $BUILD/$KNAME.build.log"
