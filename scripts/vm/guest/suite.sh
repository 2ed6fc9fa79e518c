# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# vm.sh's default guest command, one KTAP document: run_kselftest.sh -c
# sched_state, then "sched_state.sh hung_task" between the marks within which
# vm.sh accepts its kernel reports.  usage: sh /guest/suite.sh [-o SECONDS]
# (each program's timeout; default the settings' + RACE_MS's excess over 2 s)
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

override=
if [ "${1:-}" = -o ]; then
	override=$2
	shift 2
fi
[ $# -eq 0 ] || { echo "usage: sh /guest/suite.sh [-o SECONDS]"; exit 2; }
cd /kselftest || exit 1
timeout=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' sched_state/settings 2>/dev/null)
timeout=${timeout:-45}		# kselftest/runner.sh's default
if [ -z "$override" ] && [ "${SCHED_STATE_RACE_MS:-2000}" -gt 2000 ] 2>/dev/null; then
	override=$((timeout + (SCHED_STATE_RACE_MS - 2000 + 999) / 1000))
fi
timeout=${override:-$timeout}
n=$(./run_kselftest.sh -l | grep -c '^sched_state:')
[ "$n" -gt 0 ] || { echo "# suite.sh: no sched_state:* in kselftest-list.txt"; exit 1; }
echo 'TAP version 13'
echo "1..$((n + 1))"
# the runner's header is replaced by ours; another goes through, and fails
{
	./run_kselftest.sh -c sched_state ${override:+-o "$override"}
	echo $? >/tmp/suite.rc
} 2>&1 | {
	IFS= read -r v
	IFS= read -r p
	[ "$v" = 'TAP version 13' ] && [ "$p" = "1..$n" ] || printf '%s\n%s\n' "$v" "$p"
	cat
}
name="selftests: sched_state: sched_state.sh hung_task"
echo "<6>SCHED_STATE_GUEST: hung_task begin" >/dev/kmsg
echo "# timeout set to $timeout"
echo "# $name"
{
	cd sched_state && /usr/bin/timeout "$timeout" ./sched_state.sh hung_task
	echo $? >/tmp/hung_task.rc
} 2>&1 | tap_nest
echo "<6>SCHED_STATE_GUEST: hung_task end" >/dev/kmsg
rc=$(cat /tmp/hung_task.rc)
if [ "$rc" = 124 ]; then
	echo "not ok $((n + 1)) $name # TIMEOUT $timeout seconds"
else
	tap_result $((n + 1)) "$name" "$rc"
fi
[ "$(cat /tmp/suite.rc)" = 0 ] && { [ "$rc" = 0 ] || [ "$rc" = 4 ]; }
