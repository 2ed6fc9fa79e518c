#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile input and lifecycle abuse of test_sched_state, in QEMU: boot one
# kernel (KERNEL=), load the module, run sched_state_fuzz against its debugfs
# files, unload it, then run sched_state_lifecycle.sh (load/unload cycles
# with sleeping kthreads, rmmod with a request in flight, clients SIGKILLed at
# random points, parallel writers).  vm.sh judges the TAP, a crash, a timeout
# and the kernel log (any WARN/BUG/Oops/lockdep/KASAN/hung-task report fails
# the run); this script then requires both programs' figures in the TAP and
# prints them.  TAP, dmesg and console: $BUILD/<kernel>/stress.
#
# Knobs: STRESS_SEED (both programs' seed; default: their own, printed),
# STRESS_INPUTS (fuzz inputs per file, 10000), STRESS_TIMEOUT (s, 900).
. "$(dirname "$0")/lib.sh"
pick_kernel

seed=${STRESS_SEED:-}
inputs=${STRESS_INPUTS:-10000}
[[ -z $seed || $seed =~ ^[0-9]+$ ]] || die "STRESS_SEED=$seed: not a number"
[[ $inputs =~ ^[0-9]+$ ]] || die "STRESS_INPUTS=$inputs: not a number"
fuzz=(-n "$inputs")
[ -z "$seed" ] || fuzz+=(-s "$seed")
ksft=$("$TOP/scripts/build.sh")
out=$BUILD/$KNAME/stress

# Valid TAP: the programs' own KTAP nested as "# " lines, a result for each.
guest=$(cat <<EOF
cd /kselftest/sched_state || exit 1
p() { while IFS= read -r l || [ -n "\$l" ]; do echo "# \$l"; done; }
res() { case \$3 in 0) echo "ok \$1 \$2" ;; *) echo "not ok \$1 \$2 # exit \$3" ;; esac; }
echo 'TAP version 13'
echo '1..2'
ko=test_module/test_sched_state.ko
[ -f \$ko ] || ko=test_sched_state.ko
{
	insmod \$ko && ./sched_state_fuzz ${fuzz[*]}; echo \$? >/tmp/rc
	rmmod test_sched_state || echo 1 >/tmp/rc
} 2>&1 | p
res 1 sched_state_fuzz \$(cat /tmp/rc)
{ ${seed:+SCHED_STATE_SEED=$seed} ./sched_state_lifecycle.sh; echo \$? >/tmp/rc; } 2>&1 | p
res 2 sched_state_lifecycle \$(cat /tmp/rc)
EOF
)

say "stress on $KNAME ($KIMAGE)"
start=$SECONDS
rc=0
"$TOP/scripts/vm.sh" --timeout "${STRESS_TIMEOUT:-900}" --kimage "$KIMAGE" \
	--ksft "$ksft" --out "$out" --guest-cmd "$guest" >"$out.log" 2>&1 || rc=$?
took=$((SECONDS - start))

# the figures: each program's results and diagnostics that carry a number
grep -E '^# (# )?(seed|(not )?ok [0-9]+ )' "$out/ktap.tap" 2>/dev/null | sed 's/^# //' || true
grep 'vm.sh: summary:' "$out.log" || true
missing=
for f in '^# ok 1 fuzz: ' '^# ok 2 sanity after fuzz' '^# ok 1 load/unload cycles: ' \
	 '^# ok 2 rmmod with a request in flight: ' '^# ok 3 SIGKILL at random points: ' \
	 '^# ok 4 parallel writers: '; do
	grep -qE "$f" "$out/ktap.tap" 2>/dev/null || missing+=" '${f#^# }'"
done
if ((rc)) || [ -n "$missing" ]; then
	tail -n 40 "$out.log"
	[ -z "$missing" ] || echo "missing results:$missing"
	die "stress on $KNAME failed after $took s; log: $out.log, TAP: $out/ktap.tap"
fi
echo "stress on $KNAME: passed in $took s (TAP, dmesg, console: $out)"
