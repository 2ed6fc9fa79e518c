# SPDX-License-Identifier: GPL-2.0
# The hostile-input and lifecycle programs, as one TAP block: a plan and two
# results, each program's own KTAP nested.  Run in the guest from any
# directory, by scripts/gates/stress.sh and scripts/gates/debug-run.sh; the
# programs are the tooling's (scripts/gates/module-tests/), installed beside
# sched_state/.
#
# usage: sh /guest/stress.sh INPUTS [SEED]
# INPUTS: sched_state_fuzz's junk requests (module loaded for it); SEED
# (default: a random one): both programs' seed, so that one number replays
# both.  The host gets both as stress.json (hand_back).
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh
inputs=$1 seed=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

tests=/kselftest/sched_state-tooling/module-tests
cd /kselftest/sched_state || exit 1
echo '# sched_state hostile input and lifecycle'
echo "# seed $seed (replay: STRESS_SEED=$seed)"
printf '{"inputs": %s, "seed": %s}\n' "$inputs" "$seed" >/tmp/stress.json
hand_back /tmp/stress.json
echo '1..2'
{
	insmod test_module/test_sched_state.ko &&
		"$tests/sched_state_fuzz" -n "$inputs" -s "$seed"
	echo $? >/tmp/rc
	rmmod test_sched_state || echo 1 >/tmp/rc
} 2>&1 | tap_nest
tap_result 1 sched_state_fuzz "$(cat /tmp/rc)"
{
	SCHED_STATE_SEED=$seed "$tests/sched_state_lifecycle.sh"
	echo $? >/tmp/rc
} 2>&1 | tap_nest
tap_result 2 sched_state_lifecycle "$(cat /tmp/rc)"
