# SPDX-License-Identifier: GPL-2.0
# usage: sh /guest/stress.sh INPUTS [SEED]: sched_state_fuzz and
# sched_state_lifecycle.sh, seeded by SEED (default: random), as one TAP block
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh
inputs=$1 seed=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
tests=/kselftest/sched_state-tooling/module-tests

cd /kselftest/sched_state || exit 1
echo "# seed $seed (replay: STRESS_SEED=$seed)"
printf '{"inputs": %s, "seed": %s}\n' "$inputs" "$seed" >/tmp/stress.json
hand_back /tmp/stress.json
echo '1..2'
{
	insmod test_module/test_sched_state.ko && "$tests/sched_state_fuzz" "$inputs" "$seed"
	echo $? >/tmp/rc
	rmmod test_sched_state || echo 1 >/tmp/rc
} 2>&1 | tap_nest
tap_result 1 sched_state_fuzz "$(cat /tmp/rc)"
{
	SCHED_STATE_SEED=$seed "$tests/sched_state_lifecycle.sh"
	echo $? >/tmp/rc
} 2>&1 | tap_nest
tap_result 2 sched_state_lifecycle "$(cat /tmp/rc)"
