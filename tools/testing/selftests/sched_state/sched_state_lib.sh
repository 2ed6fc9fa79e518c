# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# Shell verbs of sched_state.sh.  Sourced, never run: set DIR to the
# directory of the scripts first.  Sets $why for its callers.

MOD=test_sched_state
KO=

if [ -r "$DIR/../kselftest/ktap_helpers.sh" ]; then
	# shellcheck source=../kselftest/ktap_helpers.sh
	. "$DIR/../kselftest/ktap_helpers.sh"
else
	echo "SKIP: $DIR/../kselftest/ktap_helpers.sh not found"
	exit 4
fi

# skip REASON: the whole program skips
skip()
{
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

loaded()
{
	grep -q "^$MOD " /proc/modules
}

# find_module: the module in test_module/ beside us (in $KO), else one that
# modprobe finds
find_module()
{
	if [ -f "$DIR/test_module/$MOD.ko" ]; then
		KO=$DIR/test_module/$MOD.ko
		return 0
	fi
	command -v modprobe >/dev/null && modprobe -q -n "$MOD"
}

# module_usable: whether we can load the module here, unloading an idle one
# first; if not, why not, in $why.  Reasons are short and constant: CI
# farms append them to the names of the tests that skip.
module_usable()
{
	why=
	if [ ! -f "$DIR/test_module/$MOD.ko" ] && [ -s "$DIR/module-not-built" ]; then
		# the build's reason (Makefile): a short one, then the whole line
		sed -n '2s/^/# /p' "$DIR/module-not-built"
		why=$(head -n 1 "$DIR/module-not-built")
	elif [ ! -r /proc/modules ]; then
		why="no module support"
	elif ! grep -q " /sys/kernel/debug debugfs " /proc/mounts &&
	     ! mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
		why="no debugfs"
	elif loaded && ! rmmod "$MOD"; then
		# loaded by someone else, with parameters we do not know
		why="module busy"
	elif ! find_module; then
		echo "# $MOD.ko is not in $DIR/test_module, nor found by modprobe"
		why="module not found"
	fi
	[ -z "$why" ]
}

# The sysctls the hung_task checks of sched_state_test lower while they run,
# as NAME=VALUE words once hung_task_save has seen them
HUNG_SYSCTLS="timeout_secs warnings"
hung_saved=

# hung_task_save: remember the hung_task sysctls, for hung_task_restore
hung_task_save()
{
	hung_saved=
	for s in $HUNG_SYSCTLS; do
		[ -w "/proc/sys/kernel/hung_task_$s" ] &&
			hung_saved="$hung_saved $s=$(cat "/proc/sys/kernel/hung_task_$s")"
	done
	return 0
}

# hung_task_restore: put back any that hung_task_save saw and that changed
hung_task_restore()
{
	for sv in $hung_saved; do
		f=/proc/sys/kernel/hung_task_${sv%%=*}
		now=$(cat "$f")
		[ "$now" = "${sv#*=}" ] && continue
		echo "# restoring kernel.hung_task_${sv%%=*}=${sv#*=} (found $now)"
		echo "${sv#*=}" >"$f"
	done
}

# load: the module find_module found
load()
{
	if [ -n "$KO" ]; then
		insmod "$KO"
	else
		modprobe -q "$MOD"
	fi
}
