#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load test_sched_state, run the harness against it, and always unload it.
# Arguments are module parameters, e.g. fault=drop_noload to check that the
# tests guarding a semantic fail when the module breaks it (see faults.txt);
# through run_kselftest.sh: KSELFTEST_SCHED_STATE_SH_ARGS="fault=...".

ksft_skip=4
MOD=test_sched_state
DIR=$(dirname "$(readlink -f "$0")")

skip()
{
	echo "SKIP: $*"
	exit $ksft_skip
}

die()
{
	echo "FAIL: $*"
	exit 1
}

loaded()
{
	grep -q "^$MOD " /proc/modules
}

load()
{
	for ko in "$DIR/test_module/$MOD.ko" "$DIR/$MOD.ko"; do
		if [ -f "$ko" ]; then
			insmod "$ko" "$@" || die "insmod $ko $* failed"
			return
		fi
	done
	command -v modprobe >/dev/null && modprobe -q "$MOD" "$@" && return
	skip "$MOD.ko not found beside $0 nor by modprobe (build it with KDIR=<kernel build tree>)"
}

unload()
{
	loaded || return 0
	rmmod "$MOD" || die "rmmod $MOD failed"
}

[ "$(id -u)" -eq 0 ] || skip "must be run as root"
[ -r /proc/modules ] || skip "this kernel has no module support (CONFIG_MODULES)"
if ! grep -q " /sys/kernel/debug debugfs " /proc/mounts; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null ||
		skip "debugfs is not available (CONFIG_DEBUG_FS)"
fi
if loaded; then
	rmmod "$MOD" || skip "$MOD is loaded and busy; unload it first"
fi

load "$@"
trap unload EXIT
trap 'exit 1' INT TERM
"$DIR/sched_state_test"
