# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# The control-file verbs of sched_state_lifecycle.sh and of its background
# clients.  Sourced, never run.  Sets $reply and $letter.

CTL=/sys/kernel/debug/test_sched_state/control

# msleep MS: wait MS milliseconds.  A fraction of a second works with
# coreutils' sleep and busybox's alike; usleep is busybox's only.
msleep()
{
	sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))"
}

# req REQUEST: one control-file transaction on its own descriptor, the
# reply in $reply
req()
{
	reply=
	{ command exec 3<>"$CTL"; } 2>/dev/null || return 1
	if ! printf '%s\n' "$1" >&3 2>/dev/null; then
		exec 3>&-
		return 1
	fi
	read -r reply <&3
	exec 3>&-
	return 0
}

# hold FD STATE: start a module kthread asleep in STATE on descriptor FD (4
# to 9), left open: the kthread lives until "release FD" or our death.  Its
# pid in $reply.
hold()
{
	reply=
	{ eval "command exec $1<>\"\$CTL\""; } 2>/dev/null || return 1
	if ! printf 'kthread %s\n' "$2" 1>&"$1" 2>/dev/null; then
		release "$1"
		return 1
	fi
	read -r reply <&"$1"
	[ -n "$reply" ]
}

# release FD: close FD, stopping the kthread it holds, if any
release()
{
	eval "exec $1>&-"
}

# state PID: the state letter of task PID in $letter, empty once it is gone
state()
{
	letter=
	read -r line 2>/dev/null <"/proc/$1/stat" || return 1
	letter=${line##*) }
	letter=${letter%% *}
}
