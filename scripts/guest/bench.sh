# SPDX-License-Identifier: GPL-2.0
# The two benchmarks of commit 642fa448ae, as TAP: set_state_bench (with
# test_sched_state.ko loaded) and unlink_bench (the tooling's, installed
# beside sched_state/), each one's output nested;
# their JSON results go back to the host as latency.json and unlink1.json
# (hand_back).  Run in the guest by scripts/bench.sh.
#
# usage: sh /guest/bench.sh [SET_STATE_BENCH ARGS] -- [UNLINK_BENCH ARGS]
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

cd /kselftest/sched_state || exit 1
latency=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	latency="$latency $1"
	shift
done
[ $# -eq 0 ] || shift
echo 'TAP version 13'
echo '1..2'
# shellcheck disable=SC2086 # $latency: one word per option
{
	insmod test_module/test_sched_state.ko &&
		./set_state_bench $latency -o /tmp/latency.json
	echo $? >/tmp/rc
	rmmod test_sched_state
} 2>&1 | tap_nest
hand_back /tmp/latency.json
tap_result 1 set_state_bench "$(cat /tmp/rc)"
{
	../sched_state-tooling/bench/unlink_bench "$@" -o /tmp/unlink1.json
	echo $? >/tmp/rc
} 2>&1 | tap_nest
hand_back /tmp/unlink1.json
tap_result 2 unlink_bench "$(cat /tmp/rc)"
