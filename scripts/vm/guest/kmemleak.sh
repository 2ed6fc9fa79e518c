# SPDX-License-Identifier: GPL-2.0
# kmemleak.txt after the tests (debug-run.sh): it lists objects 5 s old a scan saw unreferenced
# shellcheck source=SCRIPTDIR/tap.sh
. /guest/tap.sh
k=/sys/kernel/debug/kmemleak
[ -w $k ] || { echo "# no $k: no kmemleak scan"; exit 0; }
for _ in 1 2; do
	sleep 5
	echo scan >$k
done
cat $k >/tmp/kmemleak.txt
hand_back /tmp/kmemleak.txt
