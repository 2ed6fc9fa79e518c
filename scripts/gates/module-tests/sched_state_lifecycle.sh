#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_sched_state's lifecycle under abuse; each part loads the module and
# ends with a clean rmmod.  SCHED_STATE_SEED replays a run.

HERE=$(dirname "$(readlink -f "$0")")
DIR=$(readlink -f "$HERE/../../sched_state")
# shellcheck source=/dev/null # the kernel tree's, not in this repository
. "$DIR/../kselftest/ktap_helpers.sh"
MOD=test_sched_state
KO=$DIR/test_module/$MOD.ko
loaded() { grep -q "^$MOD " /proc/modules; }
load() { insmod "$KO"; }
# module_usable: the module beside the suite, debugfs, and none loaded
module_usable()
{
	why=
	if [ ! -f "$KO" ]; then
		why="no $KO"
	elif ! grep -q " /sys/kernel/debug debugfs " /proc/mounts &&
		! mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
		why="no debugfs"
	elif loaded && ! rmmod "$MOD"; then
		why="module busy"
	fi
	[ -z "$why" ]
}
# shellcheck source=SCRIPTDIR/lifecycle_lib.sh
. "$HERE/lifecycle_lib.sh"
CYCLES=100 KILLS=50 WRITERS=16 WRITE_SECS=3
SEED=${SCHED_STATE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
bg=

# within CMD...: retry CMD every 20 ms, for up to 5 s, until it succeeds
within()
{
	_n=0
	until "$@"; do
		[ $((_n += 1)) -le 250 ] || return 1
		sleep 0.02
	done
}

# in_state PID LETTERS: the state letter of task PID, in $letter ('-' once
# reaped), is one of LETTERS
in_state()
{
	letter=-
	if read -r line 2>/dev/null <"/proc/$1/stat"; then
		letter=${line##*) }
		letter=${letter%% *}
	fi
	case $2 in *"$letter"*) ;; *) return 1 ;; esac
}

# no_kthreads: no sched_state/ kthread is left, else $kt of them (builtins:
# it runs often, and a pipeline is slow under KASAN)
no_kthreads()
{
	kt=0
	for f in /proc/[0-9]*/comm; do
		read -r comm 2>/dev/null <"$f" || continue
		case $comm in sched_state/*) kt=$((kt + 1)) ;; esac
	done
	[ "$kt" -eq 0 ]
}

# none_asleep: true if no user task is in D or I (the module's to wake);
# else wake those, listed in $left.  A killed sleeper dies once woken.
none_asleep()
{
	left=
	for s in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$s" || continue
		# shellcheck disable=SC2086
		set -- ${line##*) }
		# D or I, and not PF_KTHREAD (include/linux/sched.h)
		case $1 in D | I) [ $(($7 & 0x200000)) -ne 0 ] || left="$left ${line%% *}" ;; esac
	done
	for p in $left; do
		req "wake $p"
	done
	[ -z "$left" ]
}

# client FUNCTION ARG...: lifecycle_lib.sh's FUNCTION, in the background, setsid
client()
{
	# shellcheck disable=SC2016
	setsid sh -c '. "$0/lifecycle_lib.sh"; "$@"' "$HERE" "$@" &
}

# kill_all "PID...": SIGKILL each process group, or process
kill_all()
{
	for p in $1; do
		kill -KILL -"$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
	done
}

# flaw MESSAGE: one thing wrong, counted in $bad
flaw()
{
	ktap_print_msg "$*"
	bad=$((bad + 1))
}

# unload_clean: no kthread is left, and rmmod succeeds
unload_clean()
{
	if ! within no_kthreads; then
		ktap_print_msg "$kt sched_state kthreads left"
		return 1
	fi
	rmmod "$MOD" 2>"$TMP/err" && return
	ktap_print_msg "rmmod failed: $(cat "$TMP/err")"
	return 1
}

# part NAME FUNCTION: load, FUNCTION, unload_clean: one result, "NAME: $said"
part()
{
	said="load failed"
	if load && "$2" && unload_clean; then
		r=ktap_test_pass
	else
		r=ktap_test_fail
		loaded && rmmod "$MOD" 2>/dev/null
	fi
	set -f	# ktap_helpers.sh echoes it unquoted
	$r "$1: $said"
	set +f
}

# shellcheck disable=SC2317
cleanup()
{
	release 4 5 6 7 8
	kill_all "$bg"
	none_asleep
	wait
	rm -rf "$TMP"
	loaded && rmmod "$MOD" 2>/dev/null
}

# Load/unload cycles: rmmod is refused while kthreads' files are open (a
# kthread lives as long as its file), works once they are closed
cycles()
{
	ok=0
	while [ $ok -lt "$CYCLES" ]; do
		started=0 fd=4
		states="interruptible uninterruptible killable idle"
		[ $((ok % 10)) -eq 9 ] && states="$states parked"
		for st in $states; do
			ask $fd "kthread $st" && started=$((started + 1))
			fd=$((fd + 1))
		done
		no_kthreads
		running=$kt refused=refused
		{ rmmod "$MOD" 2>/dev/null || ! loaded; } && refused="not refused"
		release 4 5 6 7 8
		if [ "$started" -lt 4 ] || [ "$running" -ne "$started" ] ||
		   [ "$refused" != refused ] || ! unload_clean || ! load; then
			ktap_print_msg "cycle $((ok + 1)): started $started kthreads," \
				"$running running, rmmod $refused"
			break
		fi
		ok=$((ok + 1))
	done
	said="$ok survived"
	[ $ok -eq "$CYCLES" ]
}

# rmmod while a request sleeps in the module: refused; the request ends
# ("timeout"), then the module unloads.
in_flight()
{
	(req "sleep killable 2000 0"; echo "$reply" >"$TMP/inflight") &
	rmmod=refused
	if ! within in_state $! D; then
		rmmod="the request never slept"
	elif rmmod "$MOD" 2>/dev/null || ! loaded; then
		rmmod="rmmod not refused"
	fi
	wait
	read -r ended <"$TMP/inflight"
	said="$rmmod, then the request ended '$ended'"
	[ "$rmmod" = refused ] && [ "$ended" = timeout ]
}

# Clients SIGKILLed at random points: their kthreads go with them; a sleeper
# left in D or I is woken, and none stays asleep.
random_kills()
{
	for i in $(seq "$KILLS"); do
		if [ $((i % 3)) -eq 0 ] && [ -x "$DIR/sched_state_test" ]; then
			setsid "$DIR/sched_state_test" -f child -f kthread -f sleep \
				>/dev/null 2>&1 &
		else
			client churn "$TMP" >/dev/null 2>&1
		fi
		bg=$!
		SEED=$(((SEED * 1103515245 + 12345) % 2147483648))
		sleep "0.$(printf %03d $((10 + SEED / 65536 % 400)))"
		kill_all "$bg"
		wait $bg 2>/dev/null
	done
	bg=
	within none_asleep
	said="$KILLS clients, asleep once woken:${left:- none}"
	[ -z "$left" ]
}

# SIGKILL a client holding a kthread in each state and asleep in it: the
# interruptible and killable end (Z, '-': reaped), the others sleep until woken
each_state()
{
	bad=0
	for e in interruptible:S uninterruptible:D killable:D idle:I parked:S; do
		st=${e%:*}
		client hold_and_sleep "$st" >"$TMP/$st" 2>/dev/null
		bg="$bg $!"
		# shellcheck disable=SC2016
		within eval '[ -s "$TMP/$st" ] && in_state $! ${e#*:}' ||
			flaw "$st: '$(cat "$TMP/$st")' (client, kthread): in '$letter', not ${e#*:}"
	done
	kill_all "$bg"
	for e in interruptible:Z- uninterruptible:D killable:Z- idle:I parked:Z-; do
		read -r c _ <"$TMP/${e%:*}"
		within in_state "$c" "${e#*:}" || flaw "${e%:*}: killed, the client is in '$letter'"
	done
	within none_asleep || flaw "asleep once woken:$left"
	wait
	bg=
	said="$bad wrong"
	[ "$bad" -eq 0 ]
}

# d_sleeper: a task of sched_state_test in D, in $pid, its group in $group.
# Its D lasts 100 ms (STAYS_MS), less than a scan of /proc under KASAN: scan
# the tasks younger than sched_state.sh ($sh) alone, without a fork, for 10 s.
d_sleeper()
{
	read -r end _ </proc/uptime
	end=$((${end%.*} + 10))
	while read -r now _ </proc/uptime && [ "${now%.*}" -lt "$end" ]; do
		for s in /proc/[0-9]*/stat; do
			p=${s#/proc/}
			[ "${p%/stat}" -gt "$sh" ] || continue
			read -r line 2>/dev/null <"$s" || continue
			case $line in *" (sched_state_tes) D "*) ;; *) continue ;; esac
			# shellcheck disable=SC2086
			set -- ${line##*) }
			pid=${line%% *} group=$3
			return 0
		done
	done
	return 1
}

# A harness timeout in the sleep fixture (kselftest_harness.h kills the
# test's group) leaves its sleeper in D: sched_state.sh wakes it, unloads the
# module and exits within 5 s (SETTLE_MS), and leaves neither task asleep.
harness_timeout()
{
	rmmod "$MOD"	# sched_state.sh loads its own
	"$DIR/sched_state.sh" -- -r sleep.uninterruptible.sigkill_pending \
		>"$TMP/harness" 2>&1 &
	sh=$! said="no sleeper in D"
	d_sleeper || return 1
	kill -KILL -"$group"
	if ! in_state "$pid" D; then
		said="the killed sleeper in '$letter', not D"
	elif ! within in_state "$sh" Z-; then
		said="sched_state.sh still runs 5 s later"
	else
		wait "$sh"
		said="sched_state.sh exited $?"
		loaded && said="$said, the module loaded"
		in_state "$pid" Z- && in_state "$group" Z- || said="$said, a task in '$letter'"
	fi
	[ "$said" = "sched_state.sh exited 1" ] && load
}

# Many parallel clients churning: every request succeeds
writers()
{
	for i in $(seq "$WRITERS"); do
		client churn "$TMP" "$i"
	done
	sleep "$WRITE_SECS"
	touch "$TMP/stop"
	wait
	total=0 bad=0
	for f in "$TMP"/churn.*; do
		read -r ok b <"$f"
		total=$((total + ok))
		bad=$((bad + b))
	done
	said="$total rounds of 8 requests, $bad failed"
	[ "$bad" -eq 0 ] && [ "$total" -gt 0 ]
}

ktap_print_header
why="must be run as root"
if [ "$(id -u)" -ne 0 ] || ! module_usable || ! TMP=$(mktemp -d); then
	ktap_skip_all "${why:-mktemp -d failed}"
	exit "$KSFT_SKIP"
fi
trap cleanup EXIT
trap 'exit 1' INT TERM
ktap_set_plan 6
ktap_print_msg "seed $SEED (replay: SCHED_STATE_SEED=$SEED)"
part "load/unload cycles" cycles
part "rmmod with a request in flight" in_flight
part "SIGKILL at random points" random_kills
part "SIGKILL in each state" each_state
part "parallel writers" writers
part "a harness timeout in the sleep fixture" harness_timeout
ktap_finished
