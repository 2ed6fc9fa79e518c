# SPDX-License-Identifier: GPL-2.0
# make bench in the guest, as TAP: the seed's comparison, sched_state_bench
# and unlink1.  sh /guest/bench.sh CALLS REPEATS LIVE_CALLS CPU UNLINK1_ARGS...
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

cd /kselftest/sched_state || exit 1
tooling=../sched_state-tooling/bench

# step N NAME FILE CMD...: TAP result N of CMD, its output nested and
# handed back as FILE
step()
{
	n=$1 name=$2 file=/tmp/$3
	shift 3
	{
		"$@" >"$file"
		echo $? >/tmp/rc
		cat "$file"
	} 2>&1 | tap_nest
	hand_back "$file"
	tap_result "$n" "$name" "$(cat /tmp/rc)"
}

seed()
{
	insmod $tooling/sched_state_seed.ko calls="$1" repeats="$2" || return
	dmesg | sed -nE 's/.*sched_state_seed: ((kernel|cpu) .*)/\1/p'
	rmmod sched_state_seed
}

live()
{
	insmod test_module/test_sched_state.ko || return
	./sched_state_bench "$@"
	rc=$?
	rmmod test_sched_state
	return $rc
}

printf 'TAP version 13\n1..3\n'
step 1 sched_state_seed seed.txt seed "$1" "$2"
step 2 sched_state_bench live.tap live -n "$3" -r "$2" -c "$4"
shift 4
step 3 unlink1 unlink1.json $tooling/unlink1 "$@"
