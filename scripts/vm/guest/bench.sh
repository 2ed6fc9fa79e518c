# SPDX-License-Identifier: GPL-2.0
# The benchmarks, as TAP, each one's output nested: commit 642fa448ae's
# comparison (the tooling's sched_state_seed.ko, its kernel log lines back
# to the host as seed.txt), the live path (sched_state_bench with
# test_sched_state.ko loaded, its KTAP back as live.tap) and will-it-scale
# unlink1 (unlink1, its JSON back as unlink1.json): see hand_back.
# Run in the guest by scripts/bench/bench.sh.
#
# usage: sh /guest/bench.sh [SEED PARAMS] -- [SCHED_STATE_BENCH ARGS] \
#        -- [UNLINK1 ARGS]
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

cd /kselftest/sched_state || exit 1
tooling=../sched_state-tooling/bench
seed='' live=''
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	seed="$seed $1"
	shift
done
[ $# -eq 0 ] || shift
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	live="$live $1"
	shift
done
[ $# -eq 0 ] || shift
echo 'TAP version 13'
echo '1..3'
# shellcheck disable=SC2086 # $seed, $live: one word per option
{
	insmod $tooling/sched_state_seed.ko $seed
	echo $? >/tmp/rc
	dmesg | sed -nE 's/.*sched_state_seed: ((kernel|cpu) .*)/\1/p' | tee /tmp/seed.txt
	rmmod sched_state_seed
} 2>&1 | tap_nest
hand_back /tmp/seed.txt
tap_result 1 sched_state_seed "$(cat /tmp/rc)"
# shellcheck disable=SC2086
{
	echo 1 >/tmp/rc
	insmod test_module/test_sched_state.ko &&
		{ ./sched_state_bench $live; echo $? >/tmp/rc; } | tee /tmp/live.tap
	rmmod test_sched_state
} 2>&1 | tap_nest
hand_back /tmp/live.tap
tap_result 2 sched_state_bench "$(cat /tmp/rc)"
{
	$tooling/unlink1 "$@" -o /tmp/unlink1.json
	echo $? >/tmp/rc
} 2>&1 | tap_nest
hand_back /tmp/unlink1.json
tap_result 3 unlink1 "$(cat /tmp/rc)"
