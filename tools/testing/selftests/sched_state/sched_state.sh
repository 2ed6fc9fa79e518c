#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load test_sched_state, run the harness against it, and always unload it.
#
#   sched_state.sh [--] [HARNESS_OPTION...]
#
# The arguments, after an optional "--", go to sched_state_test, e.g. -r NAME
# to run only the test fixture.variant.test.  Through run_kselftest.sh:
#   KSELFTEST_SCHED_STATE_SH_ARGS="-r load.idle.loadavg"
#
# The harness runs whenever we are root: if the module cannot be used, the
# module-free tests still run, and each module-backed one skips with the
# reason, passed in SCHED_STATE_NO_MODULE (module_usable, sched_state_lib.sh).
# Reasons are short and constant.
# A module that is there but fails to load fails the run once the harness is
# done.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=sched_state_lib.sh
. "$DIR/sched_state_lib.sh"
load_failed=
ours=

die()
{
	echo "FAIL: $*"
	exit 1
}

unload()
{
	loaded || return 0
	rmmod "$MOD" || die "rmmod $MOD failed"
}

# A harness timeout SIGKILLs the test's process group, fixture teardown
# included: the sysctls the hung_task checks lowered are restored here, and
# a child the freezer checks froze is thawed.
cleanup()
{
	freezer_restore
	hung_task_restore
	if [ -n "$ours" ]; then
		unload
	fi
}

[ "$1" = -- ] && shift
case $1 in
-* | '') ;;
*) die "$1: not a harness option" ;;
esac

[ "$(id -u)" -eq 0 ] || skip "must be run as root"
hung_task_save
trap cleanup EXIT
trap 'exit 1' INT TERM
if module_usable; then
	ours=1
	if ! load; then
		how=modprobe
		[ -n "$KO" ] && how=insmod
		echo "# $how ${KO:-$MOD} failed"
		why="$how failed"
		load_failed=1
	fi
fi
[ -n "$why" ] && echo "# module-backed tests skip: $why"

# the harness's status, but a module that would not load fails the run
SCHED_STATE_NO_MODULE=$why "$DIR/sched_state_test" "$@" && [ -z "$load_failed" ]
