#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/gates/module-tests/sched_state_lifecycle.sh behaves the same with and
# without busybox.  One x86_64 guest (KERNEL=, default mainline) runs it
# twice: on the guest's busybox userland, then with a PATH of this machine's
# Debian programs only (dash, coreutils, grep, sed, util-linux's setsid;
# busybox's insmod and rmmod, as this machine has no kmod), where there is
# no usleep.  In front of each PATH, sleep and usleep are wrappers that log
# when each wait began and ended (/proc/uptime); the script's output is
# logged with times too.
# Then this script requires, for each run:
#  - the lifecycle passed, and no command it ran was "not found";
#  - every wait lasted at least as long as it asked;
#  - test 3 waited before each of its SCHED_STATE_KILLS kills, and those
#    waits vary (at least half of them distinct, spread over 100 ms or more):
#    the kills land at random points.
# The polling loops' waits are held to the second rule whenever they wait.
# Each run gets 300 s: a kill that finds no client can leave the script
# waiting for it forever.
#
#   lifecycle-portability.sh [SCRIPT]
# SCRIPT: a lifecycle script to run instead of the installed one, e.g. the
# one of another commit, to see the checks fail on it:
#   git show main:scripts/gates/module-tests/sched_state_lifecycle.sh >/tmp/l.sh
#   scripts/gates/lifecycle-portability.sh /tmp/l.sh
# Knobs: PORT_KILLS (24).  TAP, traces and console: $BUILD/<kernel>/portability.
. "$(dirname "$0")/../lib.sh"
script=${1:-}
kills=${PORT_KILLS:-24}
[[ $kills =~ ^[0-9]+$ && $kills -ge 4 ]] || die "PORT_KILLS=$kills: want a number, 4 or more"
[[ -z $script || -f $script ]] || die "$script: no such file"
pick_kernel
[ "$KARCH" = x86_64 ] || die "KERNEL=$KNAME is for $KARCH: the Debian programs run are this machine's, x86_64"

ksft=$("$TOP/scripts/tree/build-kselftest.sh")
out=$BUILD/$KNAME/portability
extra=$out/extra
rm -rf "$extra"
mkdir -p "$extra/debian/bin"
for c in readlink dirname od tr id mktemp rm cat date sleep wc touch grep sed setsid; do
	p=$(command -v "$c") || die "$c not found on this machine"
	cp -L "$p" "$extra/debian/bin/$c"
done
cp -L "$(command -v dash)" "$extra/debian/bin/sh"
for c in insmod rmmod modprobe; do
	ln -s /bin/busybox "$extra/debian/bin/$c"
done
if [ -n "$script" ]; then
	mkdir -p "$extra/kselftest/sched_state-tooling/module-tests"
	install -m 755 "$script" "$extra/kselftest/sched_state-tooling/module-tests/sched_state_lifecycle.sh"
fi

# Each run's trace: "delay T0 T1 CMD ARGS" per wait, "out T LINE" per line
# of output; both printed after the run as "# trace ENV ..." lines.
guest="kills=$kills
$(cat <<'EOF'
cd /kselftest/sched_state || exit 1
echo 'TAP version 13'
echo '# sched_state lifecycle portability'
echo '1..2'
p() { while IFS= read -r l || [ -n "$l" ]; do echo "# $l"; done; }
n=0
for env in busybox debian; do
	n=$((n + 1))
	t=/tmp/$env
	mkdir -p $t/shim
	case $env in
	busybox) real=/bin path=$t/shim:/usr/local/bin:/bin:/usr/bin ;;
	debian) real=/debian/bin path=$t/shim:/debian/bin ;;
	esac
	for c in sleep usleep; do
		[ -x $real/$c ] || continue
		cat >$t/shim/$c <<-SHIM
		#!/bin/sh
		read -r t0 _ </proc/uptime
		$real/$c "\$@"
		rc=\$?
		read -r t1 _ </proc/uptime
		echo "delay \$t0 \$t1 $c \$*" >>$t/trace
		exit \$rc
		SHIM
		chmod +x $t/shim/$c
	done
	echo "# $env: PATH=$path"
	{
		PATH=$path SCHED_STATE_KILLS=$kills SCHED_STATE_CYCLES=10 \
		SCHED_STATE_WRITERS=4 SCHED_STATE_WRITE_SECS=2 \
			/usr/bin/timeout 300 ../sched_state-tooling/module-tests/sched_state_lifecycle.sh
		echo $? >/tmp/rc
	} 2>&1 | while IFS= read -r l || [ -n "$l" ]; do
		read -r up _ </proc/uptime
		echo "out $up $l" >>$t/trace
		echo "$l"
	done | p
	rc=$(cat /tmp/rc)
	while IFS= read -r l; do echo "# trace $env $l"; done <$t/trace
	case $rc in
	0) echo "ok $n lifecycle with $env" ;;
	*) echo "not ok $n lifecycle with $env # exit $rc" ;;
	esac
done
EOF
)"

say "lifecycle portability on $KNAME ($KIMAGE)${script:+, with $script}"
rc=0
"$TOP/scripts/vm/vm.sh" --timeout 900 --kimage "$KIMAGE" --ksft "$ksft" --out "$out" \
	--extra "$extra" --guest-cmd "$guest" >"$out.log" 2>&1 || rc=$?
grep 'vm.sh: summary:' "$out.log" || true
((rc == 0)) || { tail -n 40 "$out.log"; echo "the guest run failed (log: $out.log)"; }

# judge ENV: the rules above on ENV's trace in the TAP
judge()
{
	awk -v env="$1" -v kills="$kills" '
	$1 != "#" || $2 != "trace" || $3 != env { next }
	$4 == "out" {
		t = $5
		line = $0
		sub(/^# trace [^ ]+ out [^ ]+ /, "", line)
		if (line ~ /: not found$/) { bad = 1; print env ": missing command: " line }
		if (line ~ /^(not )?ok 1 /) ok1 = t
		if (line ~ /^(not )?ok 2 /) ok2 = t
		if (line ~ /^(not )?ok 3 /) ok3 = t
		next
	}
	$4 == "delay" {
		n++
		t0[n] = $5; t1[n] = $6
		ask[n] = $7 == "usleep" ? $8 / 1000000 : $8 + 0
		asked += ask[n]; took += t1[n] - t0[n]
		# /proc/uptime counts in 10 ms
		if (t1[n] - t0[n] + 0.015 < ask[n]) {
			bad = 1
			printf "%s: %s %s returned after %.2f s\n", env, $7, $8, t1[n] - t0[n]
		}
	}
	END {
		if (ok1 == "" || ok2 == "" || ok3 == "") { print env ": no results for tests 1 to 3"; exit 1 }
		poll = k = 0
		for (i = 1; i <= n; i++) {
			if (t0[i] > ok1 && t0[i] < ok2) poll++
			if (t0[i] <= ok2 || t0[i] >= ok3) continue
			if (k == kills) { poll++; continue }
			v = ask[i]; k++
			if (k == 1 || v < min) min = v
			if (k == 1 || v > max) max = v
			if (!(v in seen)) distinct++
			seen[v] = 1
		}
		printf "%s: %d waits, %.2f s asked, %.2f s taken; %d kills after waits of %.3f to %.3f s (%d distinct); %d polling waits\n",
			env, n, asked, took, k, min, max, distinct, poll
		if (k < kills) { bad = 1; printf "%s: %d kills, but only %d waits before them\n", env, kills, k }
		else if (distinct * 2 < kills || max - min < 0.1) { bad = 1; print env ": the kills do not land at random points" }
		exit bad
	}' "$out/ktap.tap"
}

bad=$rc
for env in busybox debian; do
	judge "$env" || bad=1
done
((bad == 0)) || die "lifecycle portability on $KNAME failed (log: $out.log, TAP: $out/ktap.tap)"
echo "lifecycle portability on $KNAME: passed (TAP, dmesg, console: $out)"
