#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Load test_sched_state, run sched_state_test (or, with "hung_task",
# sched_state_hung_task) with the arguments after an optional "--", and
# always unload it.  Without root or the module the module-free tests still
# run; the others skip with the reason in SCHED_STATE_NO_MODULE.  A module
# that is there but does not load fails the run.

DIR=$(dirname "$(readlink -f "$0")")
MOD=test_sched_state
KO=$DIR/test_module/$MOD.ko
CONTROL=/sys/kernel/debug/$MOD/control
prog=sched_state_test
why='' ours='' mounted='' saved='' core='' load_failed=''

loaded()
{
	grep -q "^$MOD " /proc/modules
}

# A harness timeout SIGKILLs a test's processes, fixture teardown included.
cleanup()
{
	# a sleeper in D or I dies only once woken, holding the control file
	for stat in /proc/[0-9]*/stat; do
		{ read -r line <"$stat"; } 2>/dev/null || continue
		case $line in
		*" (sched_state_tes) "[DI]" "*)
			{ echo "wake ${line%% *}" >"$CONTROL"; } 2>/dev/null ;;
		esac
	done
	# a frozen task cannot die: thaw the freezer checks' cgroups
	while read -r _ mnt type opts _; do
		cg=$mnt/sched_state
		[ -d "$cg" ] || continue
		case $type,$opts, in
		cgroup,*,freezer,*) echo THAWED >"$cg/freezer.state" ;;
		cgroup2,*) echo 0 >"$cg/cgroup.freeze" ;;
		*) continue ;;
		esac
		while read -r pid; do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sched_state_tes ] &&
				kill -KILL "$pid"
		done <"$cg/cgroup.procs"
		for _ in $(seq 10); do
			rmdir "$cg" 2>/dev/null && break
			sleep 0.1
		done
		case $mnt in /tmp/sched_state_freezer.* | /tmp/sched_state_cgroup2.*)
			umount "$mnt" && rmdir "$mnt" ;;
		esac
	done </proc/mounts
	# the hung-task checks' sysctls, threads.dump_waits_idle's core_pattern
	for sv in $saved; do
		echo "${sv#*=}" >"/proc/sys/kernel/hung_task_${sv%%=*}"
	done
	[ -z "$core" ] || echo "$core" >/proc/sys/kernel/core_pattern
	if [ -n "$ours" ] && loaded; then
		for _ in $(seq 50); do
			rmmod "$MOD" 2>/dev/null && break
			sleep 0.1
		done
		loaded && echo "FAIL: rmmod $MOD failed" && exit 1
	fi
	[ -z "$mounted" ] || umount /sys/kernel/debug
}

if [ "$1" = hung_task ]; then
	prog=sched_state_hung_task
	shift
fi
[ "$1" = -- ] && shift
case $1 in
-* | '') ;;
*) echo "FAIL: $1: not a harness option"; exit 1 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
	why="needs root"
elif [ ! -f "$KO" ] && ! modprobe -q -n "$MOD" 2>/dev/null; then
	why="module not found"
elif [ ! -r /proc/modules ]; then
	why="no module support"
else
	for s in timeout_secs warnings; do
		f=/proc/sys/kernel/hung_task_$s
		[ -w "$f" ] && saved="$saved $s=$(cat "$f")"
	done
	core=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	if ! grep -q " /sys/kernel/debug debugfs " /proc/mounts; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null &&
			mounted=1 || why="no debugfs"
	fi
	how=modprobe
	[ -f "$KO" ] && how=insmod
	if [ -n "$why" ] || loaded; then
		:	# someone else's module: use it, leave it loaded
	elif { [ $how = insmod ] && insmod "$KO"; } ||
	     { [ $how = modprobe ] && modprobe -q "$MOD"; }; then
		ours=1
	else
		why="$how failed"
		load_failed=1
	fi
fi
[ -n "$why" ] && echo "# module-backed tests skip: $why"

SCHED_STATE_NO_MODULE=$why "$DIR/$prog" "$@" && [ -z "$load_failed" ]
