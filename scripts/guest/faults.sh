# SPDX-License-Identifier: GPL-2.0
# Fault injection runs, as TAP: one result per fault, "fault=FAULT", with
# the suite's run under that fault nested in it.  sched_state.sh takes the
# module parameters, then after -- the harness's options: one -r per check,
# so that each run has just the checks its fault lists.  The result is the
# runner's status: the host (scripts/faults.sh) judges the nested checks.
#
# usage: sh /guest/faults.sh FAULT:CHECK[,CHECK...]...
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

cd /kselftest || exit 1
echo 'TAP version 13'
echo "1..$#"
n=0
for spec; do
	n=$((n + 1))
	fault=${spec%%:*}
	args="fault=$fault --"
	for check in $(echo "${spec#*:}" | tr , ' '); do
		args="$args -r $check"
	done
	{
		KSELFTEST_SCHED_STATE_SH_ARGS=$args ./run_kselftest.sh -t sched_state:sched_state.sh
		echo $? >/tmp/rc
	} 2>&1 | tap_nest
	tap_result $n "fault=$fault" "$(cat /tmp/rc)"
done
