#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load test_sched_state, run a harness against it, and always unload it.
#
# Usage: [hung_task] [--] [HARNESS_OPTION...]
#
# Without "hung_task" it runs sched_state_test, the default run; with it,
# sched_state_hung_task, which provokes a hung-task report (see its header).
# The arguments, after an optional "--", go to the harness, e.g. -r NAME to
# run only the test fixture.variant.test.  Through run_kselftest.sh:
#   KSELFTEST_SCHED_STATE_SH_ARGS="-r load.idle.nr_uninterruptible"
#
# The harness always runs: if the module cannot be used (not root, no
# module), the module-free tests still run, and each module-backed one skips
# with the reason, passed in SCHED_STATE_NO_MODULE.  Reasons are short and
# constant.  A module that is there but fails to load fails the run once
# the harness is done.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=sched_state_lib.sh
. "$DIR/sched_state_lib.sh"
prog=sched_state_test
load_failed=
ours=

die()
{
	echo "FAIL: $*"
	exit 1
}

unload()
{
	unload_module || die "rmmod $MOD failed"
}

# A harness timeout SIGKILLs the test's process group, fixture teardown
# included: a child the freezer checks froze is thawed here, and the
# sysctls sched_state_hung_task lowered are restored.
cleanup()
{
	freezer_restore
	hung_task_restore
	if [ -n "$ours" ]; then
		unload
	fi
	debugfs_restore
}

if [ "$1" = hung_task ]; then
	prog=sched_state_hung_task
	shift
fi
[ "$1" = -- ] && shift
case $1 in
-* | '') ;;
*) die "$1: not a harness option" ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	why="needs root"
else
	[ "$prog" = sched_state_hung_task ] && hung_task_save
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	if module_usable && loaded; then
		echo "# using the $MOD already loaded; not unloading it"
	elif [ -z "$why" ]; then
		ours=1
		if ! load; then
			how=modprobe
			[ -n "$KO" ] && how=insmod
			echo "# $how ${KO:-$MOD} failed"
			why="$how failed"
			load_failed=1
		fi
	fi
fi
[ -n "$why" ] && echo "# module-backed tests skip: $why"

# the harness's status, but a module that would not load fails the run
SCHED_STATE_NO_MODULE=$why "$DIR/$prog" "$@" && [ -z "$load_failed" ]
