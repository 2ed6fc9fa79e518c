#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove that the checks can fail: boot the kernel once, run the module-backed
# suite once per fault of faults.txt that applies to this kernel, and require
# that every check a fault lists fails.  (The unfaulted run, run.sh, is the
# other half of the proof.)  FAULTS="a b" restricts the run to those faults.
. "$(dirname "$0")/lib.sh"
pick_kernel

table=$TOP/tools/testing/selftests/sched_state/faults.txt
# faults.txt's kernel column: any, or rt for PREEMPT_RT kernels only
k=any
grep -qx 'CONFIG_PREEMPT_RT=y' "$KDIR/.config" 2>/dev/null && k=rt
faults=${FAULTS:-$(awk -v k="$k" '!/^#/ && NF && ($2 == "any" || $2 == k) { print $1 }' "$table")}
[ -n "$faults" ] || die "no fault in $table applies to KERNEL=$KERNEL"
ksft=$("$TOP/scripts/build.sh")
out=$BUILD/$KNAME/faults

checks()
{
	awk -v f="$1" '$1 == f { for (i = 3; i <= NF; i++) print $i }' "$table"
}

# each fault runs just the checks it lists: sched_state.sh takes the module
# parameters, then after -- the harness's options, here one -r per check
say "fault runs on $KERNEL:" $faults
cmd=
for f in $faults; do
	cmd+="KSELFTEST_SCHED_STATE_SH_ARGS=\"fault=$f --$(printf ' -r %s' $(checks "$f"))\""
	cmd+=" ./run_kselftest.sh -t sched_state:sched_state.sh"$'\n'
	cmd+="echo '# sched_state fault done: $f'"$'\n'
done
"$TOP/scripts/vm.sh" --expect-failures --timeout $((300 * $(echo $faults | wc -w))) \
	--kimage "$KIMAGE" --ksft "$ksft" --out "$out" --guest-cmd "$cmd" >"$out.log" 2>&1 ||
	{ tail -n 40 "$out.log"; die "the fault runs did not complete cleanly; log: $out.log"; }

missed=0
for f in $faults; do
	segment=$(awk -v f="$f" '$0 == "# sched_state fault done: " f { exit } /^# sched_state fault done: / { s = ""; next } { s = s $0 "\n" } END { printf "%s", s }' "$out/ktap.tap")
	grep -q "test_sched_state: fault injected: $f$" "$out/dmesg.log" ||
		{ echo "FAIL: fault $f: the module did not report it injected"; missed=$((missed + 1)); continue; }
	checks=$(checks "$f")
	failed=0 total=0 escaped=
	for c in $checks; do
		total=$((total + 1))
		if grep -qx "# not ok [0-9]* $c" <<<"$segment"; then
			failed=$((failed + 1))
		else
			escaped+=" $c"
		fi
	done
	if [ -n "$escaped" ]; then
		echo "FAIL: fault $f: $failed/$total guarding checks failed; still passing:$escaped"
		missed=$((missed + 1))
	else
		echo "ok: fault $f: $failed/$total guarding checks failed"
	fi
done
echo "faults on $KERNEL: $(echo $faults | wc -w) run, $missed not caught"
[ "$missed" -eq 0 ]
