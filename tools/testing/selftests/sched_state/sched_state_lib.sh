# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# Shell verbs of sched_state.sh.  Sourced, never run: set DIR to the
# directory of the scripts first.  Sets $why for its callers.

MOD=test_sched_state
KO=
CONTROL=/sys/kernel/debug/$MOD/control
debugfs_mounted=

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
# first; if not, why not, in $why.  Reasons are short and constant.
module_usable()
{
	why=
	if ! find_module; then
		echo "# $MOD.ko is not in $DIR/test_module, nor found by modprobe"
		why="module not found"
	elif [ ! -r /proc/modules ]; then
		why="no module support"
	elif ! grep -q " /sys/kernel/debug debugfs " /proc/mounts; then
		if mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
			debugfs_mounted=1
		else
			why="no debugfs"
		fi
	fi
	[ -z "$why" ]
}

# wake_sleepers: a harness timeout SIGKILLs a test's processes, but one
# asleep in the module in D or I dies only once woken, holding the control
# file until then: wake each of the harness's tasks asleep so
wake_sleepers()
{
	for stat in /proc/[0-9]*/stat; do
		{ read -r line <"$stat"; } 2>/dev/null || continue
		case $line in
		*" (sched_state_tes) "[DI]" "*) ;;
		*) continue ;;
		esac
		{ echo "wake ${line%% *}" >"$CONTROL"; } 2>/dev/null
	done
}

# unload: the module, once the sleepers woken above are gone (SETTLE_MS)
unload_module()
{
	loaded || return 0
	wake_sleepers
	for _ in $(seq 50); do
		rmmod "$MOD" 2>/dev/null && return 0
		sleep 0.1
	done
	rmmod "$MOD"
}

# debugfs_restore: unmount debugfs if module_usable mounted it
debugfs_restore()
{
	[ -n "$debugfs_mounted" ] && umount /sys/kernel/debug
	debugfs_mounted=
}

# The sysctls sched_state_hung_task lowers while it runs,
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

# The cgroup the freezer checks of sched_state_test freeze a child in, in
# the v1 freezer's hierarchy, which they mount on FREEZER_MNT* if need be
FREEZER_CGROUP=sched_state
FREEZER_MNT=/tmp/sched_state_freezer.

# freezer_restore: a frozen task cannot die, not even of the SIGKILL a
# harness timeout sends: thaw and remove a cgroup a killed freezer check
# left, killing what is in it, and unmount a hierarchy it mounted
freezer_restore()
{
	mnts=
	while read -r _ mnt type opts _; do
		[ "$type" = cgroup ] || continue
		case ,$opts, in
		*,freezer,*) mnts="$mnts $mnt" ;;
		esac
	done </proc/mounts
	for mnt in $mnts; do
		cg=$mnt/$FREEZER_CGROUP
		if [ -d "$cg" ]; then
			echo "# thawing $cg (found $(cat "$cg/freezer.state"))"
			echo THAWED >"$cg/freezer.state"
			# only the harness's own
			while read -r pid; do
				[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sched_state_tes ] &&
					kill -KILL "$pid"
			done <"$cg/cgroup.procs"
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				rmdir "$cg" 2>/dev/null && break
				sleep 0.1
			done
		fi
		case $mnt in
		"$FREEZER_MNT"*) umount "$mnt" && rmdir "$mnt" ;;
		esac
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
