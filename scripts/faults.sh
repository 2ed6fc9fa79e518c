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

# fault_checks FAULT: the checks faults.txt lists for FAULT
fault_checks()
{
	awk -v f="$1" '$1 == f { for (i = 3; i <= NF; i++) print $i }' "$table"
}

# scripts/guest/faults.sh runs the suite once per fault, with just the
# checks that fault lists
say "fault runs on $KERNEL:" $faults
specs=()
for f in $faults; do
	specs+=("$f:$(fault_checks "$f" | paste -sd,)")
done
"$TOP/scripts/vm.sh" --expect-failures --timeout $((300 * ${#specs[@]})) \
	--kimage "$KIMAGE" --ksft "$ksft" --out "$out" \
	--guest-cmd "sh /guest/faults.sh ${specs[*]}" >"$out.log" 2>&1 ||
	{ tail -n 40 "$out.log"; die "the fault runs did not complete cleanly; log: $out.log"; }

# fault_results FAULT: "RESULT CHECK" for each check run under FAULT, from
# result.json: the harness's results nested in the result "fault=FAULT"
fault_results()
{
	python3 - "$out/result.json" "fault=$1" <<-'EOF'
	import json, sys
	for t in json.load(open(sys.argv[1]))['tests']:
	    if len(t['path']) == 3 and t['path'][0] == sys.argv[2]:
	        print(t['result'], t['name'])
	EOF
}

missed=0
for f in $faults; do
	grep -q "test_sched_state: fault injected: $f$" "$out/dmesg.log" ||
		{ echo "FAIL: fault $f: the module did not report it injected"; missed=$((missed + 1)); continue; }
	results=$(fault_results "$f")
	failed=0 total=0 escaped=
	for c in $(fault_checks "$f"); do
		total=$((total + 1))
		if grep -qx "fail $c" <<<"$results"; then
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
