# SPDX-License-Identifier: GPL-2.0
# An explicit kmemleak scan after the tests: kmemleak only reports objects
# older than 5 s, and an object needs to be seen unreferenced by a scan, so
# wait, scan twice, then hand the report back to the host as kmemleak.txt
# (empty: no leak).  Without kmemleak, no file: the host says so.
# Run in the guest by scripts/gates/debug-run.sh.
#
# usage: sh /guest/kmemleak.sh
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh

k=/sys/kernel/debug/kmemleak
if [ ! -w $k ]; then
	echo "# no $k: no kmemleak scan"
	exit 0
fi
sleep 5
echo scan >$k
sleep 5
echo scan >$k
cat $k >/tmp/kmemleak.txt
hand_back /tmp/kmemleak.txt
