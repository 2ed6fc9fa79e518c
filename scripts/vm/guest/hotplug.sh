# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# usage: sh /guest/hotplug.sh RUNS: the rtlock checks RUNS times, while CPU 1 goes offline
# and online in a loop (test_module/rtlock.c must take no hotplug lock with migration off)
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh
runs=$1 cpu=/sys/devices/system/cpu/cpu1/online
cd /kselftest/sched_state || exit 1
echo 'TAP version 13'
echo "1..$((runs + 1))"
(
	n=0
	while [ ! -e /tmp/hotplug.stop ]; do
		echo 0 >$cpu && echo 1 >$cpu && n=$((n + 1))
	done
	echo "$n" >/tmp/hotplug.cycles
) 2>/dev/null &
i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	{
		./sched_state.sh -r global.rtlock_reports_D -r global.rtlock_keeps_wakeup \
			-r global.rtlock_waiter_blocks
		echo $? >/tmp/rc
	} 2>&1 | tee -a /tmp/rtlock.log | tap_nest
	tap_result $i "rtlock checks, run $i" "$(cat /tmp/rc)"
done
touch /tmp/hotplug.stop
wait
echo 1 >$cpu
n=$(cat /tmp/hotplug.cycles)
p=$(grep -c '^ok [0-9]* global.rtlock_reports_D$' /tmp/rtlock.log)
echo "# CPU 1 went offline and online $n times; the rtlock request waited for the lock in $p runs"
[ "$n" -gt 0 ] && [ "$p" -gt 0 ]
tap_result $((runs + 1)) "CPU 1 cycled while rtlock requests ran" $?
