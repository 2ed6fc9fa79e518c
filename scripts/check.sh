#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The whole gate: every check runs, each says PASS or FAIL, and the last line
# counts them.  Exits non-zero if any failed.
. "$(dirname "$0")/lib.sh"
set +e

passed=0
failed=0
failures=()

gate()
{
	local name=$1 start=$SECONDS

	shift
	say "check: $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "PASS: $name ($((SECONDS - start)) s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL: $name ($((SECONDS - start)) s)"
	fi
}

# The captured TAP must satisfy two real consumers.
consumers()
{
	local tap=$BUILD/$1/vm/ktap.tap

	[ -s "$tap" ] || { echo "no TAP at $tap"; return 1; }
	prove --exec cat "$tap" &&
	python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$tap"
}

# A developer's path on this host's kernel, which cannot load modules: the
# module-free tests pass, the module-backed ones skip with a reason.
host_kselftest()
{
	local log=$BUILD/host-kselftest.log

	make -C "$KSRC" kselftest TARGETS=sched_state 2>&1 | cat >"$log"
	cat "$log"
	grep -q "^ok 1 selftests: sched_state: sched_state_test$" "$log" &&
	grep -q "^ok 2 selftests: sched_state: sched_state.sh # SKIP$" "$log" &&
	[ "$(grep -c "^# ok [0-9]* child\." "$log")" -eq 3 ] &&
	[ "$(grep -c "^# ok [0-9]* # SKIP kthread\..*: " "$log")" -eq 12 ] &&
	! grep -q "not ok" "$log"
}

# Not root: the harness skips as a whole, with its reason.
non_root_skips()
{
	local out rc

	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SELFTESTS/sched_state/sched_state_test")
	rc=$?
	echo "$out"
	[ $rc -eq 4 ] && echo "$out" | grep -q "^1..0 # SKIP .*root"
}

gate "deps and tree" bash -c '"$0"/deps.sh && "$0"/prepare-tree.sh' "$TOP/scripts"
gate "checkpatch --strict" "$TOP/scripts/checkpatch.sh"
for k in generic rt; do
	gate "VM run on the $k kernel" env KERNEL=$k "$TOP/scripts/run.sh"
	gate "TAP consumers on the $k run (prove, kunit.py parse)" consumers $k
done
gate "make kselftest on the host kernel" host_kselftest
gate "harness as non-root exits 4" non_root_skips

for f in "${failures[@]}"; do
	echo "failed: $f"
done
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
