# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
# sched_state_lifecycle.sh's control-file verbs and background clients

CTL=/sys/kernel/debug/test_sched_state/control

# ask FD REQUEST: write REQUEST on a new FD on the control file, its reply in
# $reply; FD stays open ("kthread STATE": the kthread lives until then)
ask()
{
	reply=
	{ eval "command exec $1<>\"\$CTL\""; } 2>/dev/null || return 1
	printf '%s\n' "$2" 2>/dev/null 1>&"$1" && read -r reply <&"$1"
}

# release FD...: close each FD, stopping the kthread it holds, if any
release()
{
	for fd; do
		eval "exec $fd>&-"
	done
}

# req REQUEST: one transaction on a file of its own
req()
{
	ask 3 "$1"
	set -- $?
	release 3
	return "$1"
}

# churn DIR N: hold kthreads and sleep in the module, round after round,
# until DIR/stop; then "OK BAD", the rounds done and failed, in DIR/churn.N
churn()
{
	ok=0 bad=0
	until [ -e "$1/stop" ]; do
		ask 4 "kthread uninterruptible" && p=$reply && ask 5 "kthread parked" &&
			req "wakeups $p" && req "wake_interruptible $p" &&
			req "sleep uninterruptible 10 0" && req "sleep killable 100 0" &&
			req "sleep idle 10 0" && [ "$reply" = timeout ] && req "wake $p" &&
			ok=$((ok + 1)) || bad=$((bad + 1))
		release 4 5
	done
	echo "$ok $bad" >"$1/churn.$2"
}

# hold_and_sleep STATE: hold a kthread in STATE, print "$$ its-pid", then
# sleep in the module in STATE (outside it for "parked")
hold_and_sleep()
{
	ask 4 "kthread $1" && echo "$$ $reply" &&
		{ req "sleep $1 20000 0" || exec sleep 1000; }
}
