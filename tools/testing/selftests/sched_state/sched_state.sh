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
#
# The harness runs whenever we are root: if the module cannot be used, the
# module-free tests still run, and each module-backed one skips with the
# reason, passed in SCHED_STATE_NO_MODULE.  Reasons are short and constant:
# CI farms append them to the test's name.  A module that is there but fails
# to load fails the run once the harness is done.

ksft_skip=4
MOD=test_sched_state
DIR=$(dirname "$(readlink -f "$0")")
why=
load_failed=

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

# load PARAMS: from test_module/ beside us, else by modprobe; sets why
load()
{
	ko=$DIR/test_module/$MOD.ko
	if [ -f "$ko" ]; then
		# shellcheck disable=SC2086
		insmod "$ko" $1 && return
		echo "# insmod $ko$1 failed"
		why="insmod failed"
		load_failed=1
		return
	fi
	# shellcheck disable=SC2086
	command -v modprobe >/dev/null && modprobe -q "$MOD" $1 && return
	echo "# $MOD.ko is not in $DIR/test_module, nor found by modprobe"
	why="module not found"
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
nb=$DIR/module-not-built
if [ ! -f "$DIR/test_module/$MOD.ko" ] && [ -s "$nb" ]; then
	# the build's reason (Makefile): a short one, then the whole line
	sed -n '2s/^/# /p' "$nb"
	why=$(head -n 1 "$nb")
elif [ ! -r /proc/modules ]; then
	why="no module support"
elif ! grep -q " /sys/kernel/debug debugfs " /proc/mounts &&
     ! mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
	why="no debugfs"
elif loaded && ! rmmod "$MOD"; then
	# loaded by someone else, with parameters we do not know
	why="module busy"
fi
if [ -z "$why" ]; then
	trap unload EXIT
	trap 'exit 1' INT TERM
	load "$params"
fi
[ -n "$why" ] && echo "# module-backed tests skip: $why"

# the harness's status, but a module that would not load fails the run
SCHED_STATE_NO_MODULE=$why "$DIR/sched_state_test" "$@" && [ -z "$load_failed" ]
