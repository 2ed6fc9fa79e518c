#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load test_sched_state, run the harness against it, and always unload it.
#
#   sched_state.sh [PARAM=VALUE...] [-- HARNESS_OPTION...]
#
# Arguments up to "--" are module parameters, e.g. fault=drop_noload to check
# that the tests guarding a semantic fail when the module breaks it (see
# faults.txt); those after it go to sched_state_test, e.g. -r NAME to run
# only the test fixture.variant.test.  Through run_kselftest.sh:
#   KSELFTEST_SCHED_STATE_SH_ARGS="fault=drop_noload -- -r load.idle.loadavg"

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

# load PARAMS: from test_module/ beside us, else by modprobe
load()
{
	ko=$DIR/test_module/$MOD.ko
	if [ -f "$ko" ]; then
		# shellcheck disable=SC2086
		insmod "$ko" $1 || die "insmod $ko $1 failed"
		return
	fi
	# shellcheck disable=SC2086
	command -v modprobe >/dev/null && modprobe -q "$MOD" $1 && return
	skip "$MOD.ko not found"
}

unload()
{
	loaded || return 0
	rmmod "$MOD" || die "rmmod $MOD failed"
}

params=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in
	-*) die "$1: harness options go after --" ;;
	esac
	params="$params $1"
	shift
done
[ "$1" = -- ] && shift

[ "$(id -u)" -eq 0 ] || skip "must be run as root"
[ -r /proc/modules ] || skip "needs CONFIG_MODULES"
if ! grep -q " /sys/kernel/debug debugfs " /proc/mounts; then
	mount -t debugfs none /sys/kernel/debug 2>/dev/null ||
		skip "needs CONFIG_DEBUG_FS"
fi
if loaded; then
	rmmod "$MOD" || skip "$MOD loaded and busy"
fi

load "$params"
trap unload EXIT
trap 'exit 1' INT TERM
"$DIR/sched_state_test" "$@"
