#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The lifecycle of test_sched_state under abuse: load/unload cycles while its
# kthreads sleep, rmmod while a request is in flight, clients SIGKILLed at
# random points, many parallel writers.  After each, the module must unload
# and leave no sched_state/ kthread behind.  It loads and unloads the module
# itself, found and checked as sched_state.sh does (sched_state_lib.sh),
# unloading an idle one first.
# The project's test of its module, not the suite's:
# scripts/tree/build-kselftest.sh installs it in the kselftest tree's
# sched_state-tooling/module-tests/, beside the tree's sched_state/, which
# it uses.
#
# Knobs: SCHED_STATE_CYCLES (100), SCHED_STATE_KILLS (50),
# SCHED_STATE_WRITERS (16), SCHED_STATE_WRITE_SECS (3), SCHED_STATE_SEED.

HERE=$(dirname "$(readlink -f "$0")")
DIR=$(readlink -f "$HERE/../../sched_state")
# shellcheck source=SCRIPTDIR/../../../tools/testing/selftests/sched_state/sched_state_lib.sh
. "$DIR/sched_state_lib.sh"
# shellcheck source=SCRIPTDIR/lifecycle_lib.sh
. "$HERE/lifecycle_lib.sh"
CYCLES=${SCHED_STATE_CYCLES:-100}
KILLS=${SCHED_STATE_KILLS:-50}
WRITERS=${SCHED_STATE_WRITERS:-16}
WRITE_SECS=${SCHED_STATE_WRITE_SECS:-3}
SEED=${SCHED_STATE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
TMP=

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
# only: it runs twice a cycle, and under KASAN a cat | grep pipeline takes
# three times as long.
kthreads()
{
	kt=0
	for f in /proc/[0-9]*/comm; do
		read -r c 2>/dev/null <"$f" || continue
		case $c in sched_state/*) kt=$((kt + 1)) ;; esac
	done
}

# dtasks: "pid comm" of every task in D but the module's own kthreads
dtasks()
{
	for s in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$s" || continue
		comm=${line#*(}
		comm=${comm%)*}
		state=${line##*) }
		state=${state%% *}
		case $comm in sched_state/*) continue ;; esac
		[ "$state" = D ] && echo "${line%% *} $comm"
	done
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

# cleanup: the EXIT trap
# shellcheck disable=SC2317
cleanup()
{
	[ -n "$TMP" ] && rm -rf "$TMP"
	loaded && rmmod "$MOD" 2>/dev/null
}

[ "$(id -u)" -eq 0 ] || skip "must be run as root"
module_usable || skip "$why"
TMP=$(mktemp -d) || skip "mktemp -d failed"
trap cleanup EXIT
trap 'exit 1' INT TERM
ktap_print_header
ktap_set_plan 4
ktap_print_msg "seed $SEED (replay: SCHED_STATE_SEED=$SEED)"
t0=$(date +%s)

# 1. load/unload while module kthreads sleep
ok=0
i=0
while [ $i -lt "$CYCLES" ]; do
	i=$((i + 1))
	if ! load; then
		ktap_print_msg "cycle $i: load failed"
		break
	fi
	started=0
	for st in uninterruptible idle killable interruptible; do
		req "kthread $st" && started=$((started + 1))
	done
	[ $((i % 10)) -eq 0 ] && req "kthread parked" && started=$((started + 1))
	kthreads
	if [ "$kt" -ne "$started" ] || [ "$started" -lt 4 ]; then
		ktap_print_msg "cycle $i: started $started kthreads, $kt running"
		break
	fi
	unload_clean "cycle $i" || break
	ok=$((ok + 1))
done
[ "$ok" -eq "$CYCLES" ] && r=ok || r="not ok"
result "$r" "load/unload cycles: $ok survived"

# 2. rmmod while a request sleeps in the module
r="not ok"
what="no verdict"
if load; then
	(req "sleep interruptible 2000"; echo "$reply" >"$TMP/inflight") &
	client=$!
	i=0
	while [ $i -lt 200 ]; do
		req "state $client interruptible" && [ "${reply%% *}" = 1 ] && break
		i=$((i + 1))
		msleep 10
	done
	ktap_print_msg "in flight: state $client: $reply, refcnt $(cat /sys/module/$MOD/refcnt)"
	if rmmod "$MOD" 2>"$TMP/rmmod.err"; then
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
		if ! grep -q '^timeout 0x0$' "$TMP/inflight"; then
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

# 3. clients SIGKILLed at random points
r="not ok"
survived=0
if load; then
	i=0
	while [ $i -lt "$KILLS" ]; do
		i=$((i + 1))
		if [ $((i % 3)) -eq 0 ] && [ -x "$DIR/sched_state_test" ]; then
			# not hung_task, load, race: they change sysctls or run long
			setsid "$DIR/sched_state_test" -f child -f kthread \
				-f sleep >/dev/null 2>&1 &
		else
			# shellcheck disable=SC2016
			setsid sh -c '
				. "$0/lifecycle_lib.sh"
				while :; do
					req "kthread uninterruptible"; p=$reply
					req "state $p interruptible"
					req "wakeups $p"
					req "sleep uninterruptible 100"
					req "sleep killable 1000"
					req "wake $p"
					req "stop $p"
				done' "$HERE" >/dev/null 2>&1 &
		fi
		client=$!
		rand 400
		msleep $((10 + rnd))
		# a client not yet in a session of its own has no group
		kill -KILL -"$client" 2>/dev/null || kill -KILL "$client" 2>/dev/null
		wait "$client" 2>/dev/null
		survived=$((survived + 1))
	done
	# a killed task in the module's D sleep dies when the sleep ends
	i=0
	while [ $i -lt 50 ] && [ -n "$(dtasks)" ]; do
		i=$((i + 1))
		msleep 100
	done
	d=$(dtasks)
	nd=0
	[ -n "$d" ] && nd=$(echo "$d" | wc -l)
	[ -n "$d" ] && echo "$d" | sed 's/^/# in D: /'
	kthreads
	ktap_print_msg "module kthreads before unload: $kt"
	if unload_clean "after kills"; then
		left=0
		[ "$nd" -eq 0 ] && r=ok
	else
		kthreads
		left=$kt
	fi
fi
result "$r" "SIGKILL at random points: $survived survived, ${nd:-?} D tasks,\
 ${left:-?} leaked kthreads"

# 4. many parallel openers and writers
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
				case $(($ok % 4)) in
				0) req "state $$ running" ;;
				1) req "sleep idle 1" ;;
				2) exec 3<>"$CTL"; exec 3>&-; true ;;
				*) req "kthread idle" && p=$reply && req "stop $p" ;;
				esac && ok=$((ok + 1)) || bad=$((bad + 1))
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
	unload_clean "after writers" && [ "$bad" -eq 0 ] && [ "$total" -gt 0 ] && r=ok
fi
result "$r" "parallel writers: $total requests"

ktap_finished
