#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lifecycle of test_sched_state under abuse.  A module kthread lives as
# long as the file that started it is open, and an open file holds the module:
#  1. load/unload cycles: kthreads asleep in each state on files held open;
#     rmmod is refused while they are; closing the files stops them.
#  2. rmmod while a request sleeps in the module: refused; the request ends
#     ("timeout"), then the module unloads.
#  3. clients SIGKILLed at random points, holding kthreads and sleeping in
#     the module (or sched_state_test): their kthreads go with them; what a
#     kill left asleep in D or I is woken; nothing stays asleep.
#  4. SIGKILL in each state: a client holding a kthread in the state and
#     asleep in the module in it is killed: interruptible and killable end at
#     once, uninterruptible and idle sleep on until woken; the kthreads go.
#  5. many parallel writers.
# Each ends with rmmod and no sched_state/ kthread left.  It loads the module
# itself, found as sched_state.sh finds it (sched_state_lib.sh), unloading
# an idle one first.  The project's test of its module, not the suite's:
# scripts/tree/build-kselftest.sh installs it in the kselftest tree's
# sched_state-tooling/module-tests/, beside the sched_state/ it uses.
#
# Knobs: SCHED_STATE_CYCLES (100), SCHED_STATE_KILLS (50),
# SCHED_STATE_WRITERS (16), SCHED_STATE_WRITE_SECS (3), SCHED_STATE_SEED.

HERE=$(dirname "$(readlink -f "$0")")
DIR=$(readlink -f "$HERE/../../sched_state")
if [ ! -r "$DIR/../kselftest/ktap_helpers.sh" ]; then
	echo "Bail out! $DIR/../kselftest/ktap_helpers.sh not found"
	exit 1
fi
# shellcheck source=/dev/null # the kernel tree's, not in this repository
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=SCRIPTDIR/../../../tools/testing/selftests/sched_state/sched_state_lib.sh
. "$DIR/sched_state_lib.sh"
# shellcheck source=SCRIPTDIR/lifecycle_lib.sh
. "$HERE/lifecycle_lib.sh"
CYCLES=${SCHED_STATE_CYCLES:-100}
KILLS=${SCHED_STATE_KILLS:-50}
WRITERS=${SCHED_STATE_WRITERS:-16}
WRITE_SECS=${SCHED_STATE_WRITE_SECS:-3}
SEED=${SCHED_STATE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
STATES="interruptible uninterruptible killable idle"
PF_KTHREAD=2097152	# 0x00200000, include/linux/sched.h
TMP=
bg=

# skip REASON: the whole program skips
skip()
{
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# result ok|fail DESCRIPTION: one test's result, after the time it took;
# ktap_helpers.sh echoes it unquoted, so no globbing of its "?"
result()
{
	now=$(date +%s)
	ktap_print_msg "took $((now - t0)) s"
	t0=$now
	set -f
	if [ "$1" = ok ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
	fi
	set +f
}

# kthreads: how many sched_state/ kthreads exist, in $kt.  Shell builtins
# only: it runs often, and under KASAN a cat | grep pipeline takes three
# times as long.
kthreads()
{
	kt=0
	for f in /proc/[0-9]*/comm; do
		read -r c 2>/dev/null <"$f" || continue
		case $c in sched_state/*) kt=$((kt + 1)) ;; esac
	done
}

# settle: wait up to 5 s for the sched_state/ kthreads to go; $kt left
settle()
{
	n=0
	kthreads
	while [ "$kt" -ne 0 ] && [ $n -lt 250 ]; do
		n=$((n + 1))
		msleep 20
		kthreads
	done
}

# asleep: "pid letter comm" of every user task in D or I (not a kernel
# thread): one the module may hold asleep
asleep()
{
	for s in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$s" || continue
		comm=${line#*(}
		comm=${comm%)*}
		# shellcheck disable=SC2086
		set -- ${line##*) }
		case $1 in D | I) ;; *) continue ;; esac
		[ $(($7 & PF_KTHREAD)) -eq 0 ] && echo "${line%% *} $1 $comm"
	done
}

# ended PID N: whether our child PID ends (a zombie, or gone) within N x 20 ms
ended()
{
	n=0
	while state "$1" && [ "$letter" != Z ] && [ "$n" -lt "$2" ]; do
		n=$((n + 1))
		msleep 20
	done
	! state "$1" || [ "$letter" = Z ]
}

# rand N: a number in 0..N-1 from the seeded stream, in $rnd.  Not printed
# for a $(rand N): the stream would advance in a subshell, never here.
rand()
{
	SEED=$(((SEED * 1103515245 + 12345) % 2147483648))
	rnd=$((SEED / 65536 % $1))
}

# unload_clean WHAT: rmmod must succeed and leave no kthread
unload_clean()
{
	if ! rmmod "$MOD" 2>"$TMP/rmmod.err"; then
		ktap_print_msg "$1: rmmod failed: $(cat "$TMP/rmmod.err")"
		return 1
	fi
	kthreads
	if [ "$kt" -ne 0 ]; then
		ktap_print_msg "$1: $kt sched_state kthreads left after rmmod"
		return 1
	fi
	return 0
}

# kill_all PID...: SIGKILL each process group, or process
kill_all()
{
	for p in "$@"; do
		kill -KILL -"$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
	done
}

# cleanup: the EXIT trap
# shellcheck disable=SC2317
cleanup()
{
	for fd in 4 5 6 7 8 9; do
		release $fd
	done
	# shellcheck disable=SC2086
	kill_all $bg
	for p in $(asleep | sed 's/ .*//'); do
		req "wake $p"
	done
	wait
	[ -n "$TMP" ] && rm -rf "$TMP"
	loaded && rmmod "$MOD" 2>/dev/null
}

[ "$(id -u)" -eq 0 ] || skip "must be run as root"
module_usable || skip "$why"
TMP=$(mktemp -d) || skip "mktemp -d failed"
trap cleanup EXIT
trap 'exit 1' INT TERM
ktap_print_header
ktap_set_plan 5
ktap_print_msg "seed $SEED (replay: SCHED_STATE_SEED=$SEED)"
t0=$(date +%s)

# 1. load/unload cycles while module kthreads sleep on files held open
ok=0
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! load; then
		ktap_print_msg "cycle $i: load failed"
		break
	fi
	started=0
	fd=4
	states=$STATES
	[ $((i % 10)) -eq 0 ] && states="$states parked"
	for st in $states; do
		hold $fd "$st" && started=$((started + 1))
		fd=$((fd + 1))
	done
	kthreads
	running=$kt
	refused=refused
	rmmod "$MOD" 2>/dev/null && refused="not refused"
	loaded || refused="not refused"
	for fd in 4 5 6 7 8; do
		release $fd
	done
	settle
	if [ "$started" -lt 4 ] || [ "$running" -ne "$started" ] ||
	   [ "$refused" != refused ] || [ "$kt" -ne 0 ]; then
		ktap_print_msg "cycle $i: started $started kthreads, $running running," \
			"rmmod $refused, $kt left once closed"
		break
	fi
	unload_clean "cycle $i" || break
	ok=$((ok + 1))
done
[ "$ok" -eq "$CYCLES" ] && r=ok || r="not ok"
result "$r" "load/unload cycles: $ok survived"
loaded && rmmod "$MOD" 2>/dev/null

# 2. rmmod while a request sleeps in the module
r="not ok"
what="no verdict"
if load; then
	(req "sleep killable 2000 0"; echo "$reply" >"$TMP/inflight") &
	client=$!
	i=0
	while state $client && [ "$letter" != D ] && [ $i -lt 200 ]; do
		i=$((i + 1))
		msleep 10
	done
	ktap_print_msg "in flight: client $client in ${letter:-no} state," \
		"refcnt $(cat /sys/module/$MOD/refcnt)"
	if [ "$letter" != D ]; then
		what="the request never slept"
	elif rmmod "$MOD" 2>"$TMP/rmmod.err"; then
		what="rmmod succeeded with a request in flight"
	elif ! loaded; then
		what="rmmod failed, yet the module is gone"
	else
		err=$(cat "$TMP/rmmod.err")
		ktap_print_msg "refused: $err"
		case $err in
		*"temporarily unavailable"*) errno=EWOULDBLOCK ;;
		*busy*) errno=EBUSY ;;
		*"in use"*) errno="in use" ;;
		*) errno="'$err'" ;;
		esac
		wait $client
		ktap_print_msg "the request completed: $(cat "$TMP/inflight")"
		if [ "$(cat "$TMP/inflight")" != timeout ]; then
			what="$errno, but the request ended '$(cat "$TMP/inflight")'"
		elif unload_clean "in flight"; then
			r=ok
			what="$errno (in use), then unloaded"
		else
			what="$errno, then the unload failed"
		fi
	fi
	wait
else
	what="load failed"
fi
result "$r" "rmmod with a request in flight: $what"
loaded && rmmod "$MOD" 2>/dev/null

# 3. clients SIGKILLed at random points: a random wait before each kill.
r="not ok"
survived=0
if load; then
	i=0
	while [ $i -lt "$KILLS" ]; do
		i=$((i + 1))
		if [ $((i % 3)) -eq 0 ] && [ -x "$DIR/sched_state_test" ]; then
			# not load, loadavg, race: they run long
			setsid "$DIR/sched_state_test" -f child -f kthread \
				-f sleep >/dev/null 2>&1 &
		else
			# shellcheck disable=SC2016
			setsid sh -c '
				. "$0/lifecycle_lib.sh"
				while :; do
					hold 4 uninterruptible
					p=$reply
					hold 5 killable
					hold 6 parked
					req "wakeups $p"
					req "wake_interruptible $p"
					req "sleep uninterruptible 100 0"
					req "sleep killable 1000 0"
					req "sleep idle 100 0"
					req "wake $p"
					release 4
					release 5
					release 6
				done' "$HERE" >/dev/null 2>&1 &
		fi
		client=$!
		bg=$client
		rand 400
		msleep $((10 + rnd))
		# a client not yet in a session of its own has no group
		kill_all "$client"
		wait "$client" 2>/dev/null
		survived=$((survived + 1))
	done
	bg=
	# a killed sleeper in D or I sleeps on until woken (the harness's for
	# up to a minute): wake it, and it dies
	woken=0
	i=0
	left=$(asleep)
	while [ -n "$left" ] && [ $i -lt 50 ]; do
		for p in $(echo "$left" | sed 's/ .*//'); do
			req "wake $p" && woken=$((woken + 1))
		done
		i=$((i + 1))
		msleep 100
		left=$(asleep)
	done
	nd=0
	[ -n "$left" ] && nd=$(echo "$left" | wc -l)
	[ -n "$left" ] && echo "$left" | sed 's/^/# asleep: /'
	settle
	ktap_print_msg "woke $woken killed sleepers; module kthreads left: $kt"
	leaked=$kt
	[ "$kt" -eq 0 ] && [ "$nd" -eq 0 ] && unload_clean "after kills" && r=ok
fi
result "$r" "SIGKILL at random points: $survived clients, ${nd:-?} left asleep,\
 ${leaked:-?} kthreads outlived them"
loaded && rmmod "$MOD" 2>/dev/null

# 4. SIGKILL in each state: a client holds a kthread in the state, then
# sleeps in the module in it (a sleeper cannot park: that one waits outside)
r="not ok"
bad=0
if load; then
	clients=
	for st in $STATES parked; do
		# shellcheck disable=SC2016
		setsid sh -c '. "$0/lifecycle_lib.sh"
			hold 4 "$1" && echo "$reply" >"$2" &&
			{ req "sleep $1 20000 0" || exec sleep 1000; }' \
			"$HERE" "$st" "$TMP/kt.$st" >/dev/null 2>&1 &
		clients="$clients $st:$!"
		bg="$bg $!"
	done
	for e in $clients; do
		st=${e%%:*}
		case $st in
		interruptible) want=S ;;
		idle) want=I ;;
		parked) want=S ;;
		*) want=D ;;
		esac
		i=0
		while ! { [ -s "$TMP/kt.$st" ] && state "${e#*:}" && [ "$letter" = $want ]; } &&
		      [ $i -lt 250 ]; do
			i=$((i + 1))
			msleep 20
		done
		[ $i -lt 250 ] && continue
		ktap_print_msg "$st: kthread '$(cat "$TMP/kt.$st" 2>/dev/null)', client in '$letter', not $want"
		bad=$((bad + 1))
	done
	# shellcheck disable=SC2086
	kill_all $bg
	# interruptible and killable sleepers end at once; uninterruptible and
	# idle ones sleep on until woken; each kthread goes with its client
	for e in $clients; do
		st=${e%%:*}
		c=${e#*:}
		k=$(cat "$TMP/kt.$st" 2>/dev/null)
		tries=250
		case $st in
		interruptible | killable) tries=100 ;;
		uninterruptible | idle)
			state "$c"
			was=$letter
			req "wake $c"
			ktap_print_msg "$st: killed, the client is in '$was'; woken: '$reply'"
			[ "$was" = D ] || [ "$was" = I ] || bad=$((bad + 1)) ;;
		esac
		ended "$c" $tries ||
			{ ktap_print_msg "$st: client in '$letter' after $((tries / 50)) s"; bad=$((bad + 1)); }
		i=0
		while state "$k" && [ $i -lt 250 ]; do
			i=$((i + 1))
			msleep 20
		done
		! state "$k" || { ktap_print_msg "$st: kthread $k still in '$letter'"; bad=$((bad + 1)); }
	done
	wait
	bg=
	left=$(asleep)
	[ -n "$left" ] && echo "$left" | sed 's/^/# asleep: /'
	kthreads
	[ "$bad" -eq 0 ] && [ -z "$left" ] && [ "$kt" -eq 0 ] &&
		unload_clean "after the kills in each state" && r=ok
fi
result "$r" "SIGKILL in each state: $bad wrong"
loaded && rmmod "$MOD" 2>/dev/null

# 5. many parallel openers and writers
r="not ok"
total=0
bad=0
if load; then
	rm -f "$TMP/stop"
	i=0
	while [ $i -lt "$WRITERS" ]; do
		i=$((i + 1))
		# shellcheck disable=SC2016
		sh -c '
			. "$0/lifecycle_lib.sh"
			ok=0 bad=0
			until [ -e "$1/stop" ]; do
				case $((ok % 4)) in
				0) req "sleep idle 1 0" && [ "$reply" = timeout ] ;;
				1) { command exec 3<>"$CTL"; } 2>/dev/null && exec 3>&- ;;
				2) hold 4 idle && req "wakeups $reply" ;;
				*) hold 4 interruptible && req "wake $reply" ;;
				esac && ok=$((ok + 1)) || bad=$((bad + 1))
				release 4
			done
			echo "$ok $bad" >"$1/writer.$2"' "$HERE" "$TMP" $i &
	done
	sleep "$WRITE_SECS"
	touch "$TMP/stop"
	wait
	for f in "$TMP"/writer.*; do
		read -r ok b <"$f"
		total=$((total + ok))
		bad=$((bad + b))
	done
	ktap_print_msg "$WRITERS writers for $WRITE_SECS s: $total requests, $bad failed"
	settle
	[ "$kt" -eq 0 ] && unload_clean "after writers" && [ "$bad" -eq 0 ] &&
		[ "$total" -gt 0 ] && r=ok
fi
result "$r" "parallel writers: $total requests"

ktap_finished
