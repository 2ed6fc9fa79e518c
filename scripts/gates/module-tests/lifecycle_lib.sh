# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# The verbs of sched_state_lifecycle.sh and its background clients that the
# suite's wrapper has no use for.  Sourced, never run.  Sets $reply.

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
	exec 3<>"$CTL" || return 1
	if ! printf '%s\n' "$1" >&3 2>/dev/null; then
		exec 3>&-
		return 1
	fi
	read -r reply <&3
	exec 3>&-
	return 0
}
