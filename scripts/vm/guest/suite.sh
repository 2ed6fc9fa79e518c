# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# usage: sh /guest/suite.sh [-o SECONDS] [-r CHECK]...: vm.sh's default command,
# run_kselftest.sh -c sched_state (sched_state.sh hung_task, which provokes a report, is
# not run); -o: its timeout (default settings' + RACE_MS > 2 s); -r: only these
# checks (the harness's -r fixture.variant.test)
usage() { echo "usage: sh /guest/suite.sh [-o SECONDS] [-r CHECK]..."; exit 2; }
override='' only=''
while getopts o:r: opt; do
	case $opt in
	o) override=$OPTARG ;;
	r) only="$only -r $OPTARG" ;;
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
[ "$(./run_kselftest.sh -l | grep -c '^sched_state:')" -gt 0 ] ||
	{ echo "# suite.sh: no sched_state:* in kselftest-list.txt"; exit 1; }
KSELFTEST_SCHED_STATE_SH_ARGS="${KSELFTEST_SCHED_STATE_SH_ARGS:-}$only" \
	exec ./run_kselftest.sh -c sched_state ${override:+-o "$override"} 2>&1
