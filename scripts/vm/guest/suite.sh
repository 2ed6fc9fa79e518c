# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# usage: sh /guest/suite.sh [-o SECONDS] [-r CHECK]... [-H CHECK]...: vm.sh's default command,
# one KTAP document of run_kselftest.sh -c sched_state, then sched_state.sh hung_task between
# the marks within which vm.sh accepts kernel reports; -o: each one's timeout (default:
# settings' + RACE_MS > 2 s); -r/-H: only these checks of the default/hung-task program
# (harness -r fixture.variant.test), and only the programs named
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

usage() { echo "usage: sh /guest/suite.sh [-o SECONDS] [-r CHECK]... [-H CHECK]..."; exit 2; }
override='' only='' main='' hung=''
while getopts o:r:H: opt; do
	case $opt in
	o) override=$OPTARG ;;
	r) only=1 main="$main -r $OPTARG" ;;
	H) only=1 hung="$hung -r $OPTARG" ;;
	*) usage ;;
	esac
done
[ "$OPTIND" -gt $# ] || usage
cd /kselftest || exit 1
timeout=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' sched_state/settings 2>/dev/null)
timeout=${timeout:-45}		# kselftest/runner.sh's default
if [ -z "$override" ] && [ "${SCHED_STATE_RACE_MS:-2000}" -gt 2000 ] 2>/dev/null; then
	override=$((timeout + (SCHED_STATE_RACE_MS - 2000 + 999) / 1000))
fi
timeout=${override:-$timeout}
n=0 h=1 rc=0
if [ -z "$only" ] || [ -n "$main" ]; then
	n=$(./run_kselftest.sh -l | grep -c '^sched_state:')
	[ "$n" -gt 0 ] || { echo "# suite.sh: no sched_state:* in kselftest-list.txt"; exit 1; }
fi
[ -z "$only" ] || [ -n "$hung" ] || h=0
printf 'TAP version 13\n1..%d\n' $((n + h))
# the runner's header is replaced by ours; another goes through, and fails
if [ "$n" -gt 0 ]; then
	{
		KSELFTEST_SCHED_STATE_SH_ARGS="${KSELFTEST_SCHED_STATE_SH_ARGS:-}$main" \
			./run_kselftest.sh -c sched_state ${override:+-o "$override"}
		echo $? >/tmp/suite.rc
	} 2>&1 | {
		IFS= read -r v
		IFS= read -r p
		[ "$v" = 'TAP version 13' ] && [ "$p" = "1..$n" ] || printf '%s\n%s\n' "$v" "$p"
		cat
	}
	rc=$(cat /tmp/suite.rc)
fi
[ "$h" = 1 ] || exit "$rc"
name="selftests: sched_state: sched_state.sh hung_task"
echo "<6>SCHED_STATE_GUEST: hung_task begin" >/dev/kmsg
echo "# timeout set to $timeout"
echo "# $name"
{
	# shellcheck disable=SC2086 # -r CHECK...
	cd sched_state && /usr/bin/timeout "$timeout" ./sched_state.sh hung_task $hung
	echo $? >/tmp/hung_task.rc
} 2>&1 | tap_nest
echo "<6>SCHED_STATE_GUEST: hung_task end" >/dev/kmsg
hrc=$(cat /tmp/hung_task.rc)
case $hrc in
124) echo "not ok $((n + 1)) $name # TIMEOUT $timeout seconds" ;;
*) tap_result $((n + 1)) "$name" "$hrc" ;;
esac
[ "$rc" = 0 ] && { [ "$hrc" = 0 ] || [ "$hrc" = 4 ]; }
