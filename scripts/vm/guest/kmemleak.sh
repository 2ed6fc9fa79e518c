# SPDX-License-Identifier: GPL-2.0
# kmemleak's report after the tests (debug-run.sh), back as kmemleak.txt: it
# lists objects 5 s old that a scan saw unreferenced, so wait, scan twice
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh
k=/sys/kernel/debug/kmemleak
[ -w $k ] || { echo "# no $k: no kmemleak scan"; exit 0; }
sleep 5
echo scan >$k
sleep 5
echo scan >$k
cat $k >/tmp/kmemleak.txt
hand_back /tmp/kmemleak.txt
