# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# The suite as the tooling runs it, vm.sh's default guest command: one
# KTAP document with two top-level results.
#   1. the default run, run_kselftest.sh -c sched_state, as a farm runs it:
#      its lines pass through as they are but its first two, the version
#      line and the plan, which this document's own replace;
#   2. the hung-task program, "sched_state.sh hung_task" from the installed
#      sched_state/ (it loads the module, restores the hung_task sysctls and
#      unloads it), under the collection's settings timeout as the runner
#      would run it, its KTAP nested: the top-level result
#      "selftests: sched_state: sched_state.sh hung_task".
# Around the second the kernel log gets the tooling's own marks,
# "SCHED_STATE_GUEST: hung_task begin" and "... end": the one part of the
# run in which vm.sh accepts the reports that program provokes
# (unexpected_reports in vm.sh).  The suite itself writes no mark.
#
# usage: sh /guest/suite.sh [-o SECONDS]
# -o: each program's timeout instead of the settings' (run_kselftest.sh's
# -o), for a slow kernel (scripts/gates/debug-run.sh).  Without it, a
# SCHED_STATE_RACE_MS in the environment (vm.sh --env) above the harness's
# default 2000 ms adds its excess to the settings' timeout: the race runs
# inside the default program.
# Exits 0 if both passed (or the second skipped), else 1.
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
[ -z "$override" ] || timeout=$override

n=$(./run_kselftest.sh -l | grep -c '^sched_state:')
if [ "$n" -eq 0 ]; then
	echo "# suite.sh: no sched_state:* in kselftest-list.txt"
	exit 1
fi
echo 'TAP version 13'
echo "1..$((n + 1))"

# 1. the default run; a header other than the one expected goes through,
# and its second plan fails the run (vm.sh: "plans ... but has")
{
	./run_kselftest.sh -c sched_state ${override:+-o "$override"}
	echo $? >/tmp/suite.rc
} 2>&1 | {
	IFS= read -r v
	IFS= read -r p
	[ "$v" = 'TAP version 13' ] && [ "$p" = "1..$n" ] || printf '%s\n%s\n' "$v" "$p"
	cat
}

# 2. the hung-task program
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
