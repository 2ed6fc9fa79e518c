#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build sched_state for one kernel, boot that kernel in QEMU and run the suite
# in it.  The KTAP, the guest's dmesg and the console land in $BUILD/$KNAME/vm.
. "$(dirname "$0")/lib.sh"
pick_kernel

ksft=$("$TOP/scripts/build.sh")
say "booting $KIMAGE ($KERNEL) in QEMU"
exec "$TOP/scripts/vm.sh" --kimage "$KIMAGE" --ksft "$ksft" --out "$BUILD/$KNAME/vm" "$@"
