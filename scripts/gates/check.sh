#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The gate driver: make check and make check-full (and so CI, .ci/run) run
# this, and it runs every gate, the scripts of this directory and the
# other stages' checks alike.  Every gate runs, each says PASS or FAIL, and
# the last line counts them.  Exits non-zero if any failed.
#
#   check.sh          what CI runs: on each kernel of scripts/kernels.tsv what
#                     its "check" column says (the mainline kernels in full:
#                     suite, hostile input and lifecycle;
#                     the suite on the x86 LTS kernels and 6.12-arm64), the
#                     debug kernel, a few kernel mutants (CHECK_MUTANTS), and
#                     the static and build gates
#   check.sh --full   the same with the "full" column: every kernel of every
#                     arch, and in full one kernel per arch at least; every
#                     kernel mutant
. "$(dirname "$0")/../lib.sh"
set +e

# The captured TAP must satisfy two real consumers, as it is and flat
# (scripts/report/flat-tap.py: every nested result a top-level line, which both
# judge); and a failure planted in a nested result must fail both.
prove_tap() { prove --exec cat "$1"; }
kunit_tap() { python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$1"; }
TAP_CONSUMERS=(prove_tap kunit_tap)

consumers()
{
	local vm=$BUILD/$1/vm f c

	[ -s "$vm/ktap.tap" ] || { echo "no TAP at $vm/ktap.tap"; return 1; }
	python3 "$TOP/scripts/report/flat-tap.py" "$vm/result.json" >"$vm/flat.tap" &&
	python3 "$TOP/scripts/report/flat-tap.py" --plant-failure "$vm/result.json" >"$vm/planted.tap" ||
		return 1
	for f in ktap flat; do
		for c in "${TAP_CONSUMERS[@]}"; do
			$c "$vm/$f.tap" || return 1
		done
	done
	for c in "${TAP_CONSUMERS[@]}"; do
		! $c "$vm/planted.tap" >/dev/null 2>&1 ||
			{ echo "$c passed $vm/planted.tap, which has a failure"; return 1; }
	done
	echo "a failure planted in a nested result: both consumers fail"
}

# The checks that need no root and no module (sched_state_test's child
# fixture): as root or not, with the module or without, each must pass.
CHILD_CHECKS="busy_loop_is_R pipe_read_sleeps_S sigstop_stops_T sigkill_ends_stopped
	ptrace_stop_is_t sigkill_ends_traced unreaped_exit_is_Z"

# A farm's run is run_kselftest.sh -c sched_state as it is: the first part
# of every VM run (scripts/vm/guest/suite.sh passes its lines through, less
# its version line and plan), before the hung-task program, so the run on
# $1 shows it: that part holds one program, sched_state.sh, and no
# hung_task result; the hung-task program's results are its own, under
# "sched_state.sh hung_task"; no kernel report, and every accepted
# hung-task report inside the hung-task part (vm.sh accepts none
# elsewhere: any report of the default run fails the run).
farm_default()
{
	python3 - "$BUILD/$1/vm/result.json" <<-'EOF'
	import json, re, sys
	r = json.load(open(sys.argv[1]))
	tests, bad = r['tests'], []
	default = 'selftests: sched_state: sched_state.sh'
	hung = default + ' hung_task'
	top = [t['name'] for t in tests if t['depth'] == 0]
	if top != [default, hung]:
	    bad.append(f'top-level results {top}, not [{default!r}, {hung!r}]')
	under = lambda p: [t['name'] for t in tests
	                   if t['depth'] >= 1 and t['path'][0] == p]
	farm, ht = under(default), under(hung)
	farm_hung = [n for n in farm if re.match(r'hung_task\.', n)]
	bad += [f'{n}: a hung_task result in the default run' for n in farm_hung]
	bad += [f'{n}: not a hung_task result, under {hung}' for n in ht
	        if not re.match(r'hung_task\.', n)]
	if not ht:
	    bad.append(f'no result under {hung}')
	c, part = r['counts'], r['hung_task_part'] or {'dmesg_lines': [None, None]}
	b, e = part['dmesg_lines']
	for a in r['accepted_reports']:
	    if b is None or a['line'] < b or (e is not None and a['line'] > e):
	        bad.append(f"accepted outside the hung-task part: dmesg.log:{a['line']}")
	print(f"the default run: {len(farm)} results, {len(farm_hung)} hung_task; the "
	      f"hung-task program: {len(ht)} results; kernel reports: "
	      f"{c['reports']}; accepted hung-task reports: {c['accepted']}, in "
	      f"dmesg.log lines {b}..{e}")
	if not r['ok'] or c['reports']:
	    bad.append(f"the run failed: {'; '.join(r['problems'])}")
	for x in bad:
	    print('  ' + x)
	sys.exit(1 if bad else 0)
	EOF
}

# A developer's path on this host's kernel, without the module: one entry,
# sched_state.sh, which passes (exit 0); inside it the module-free tests
# pass, every module-backed one skips with a reason, each test reports once,
# and the names pass farm_names.py as the farms would make them.  KDIR names no
# tree: on a workstation with its kernel's headers, the module would
# otherwise build and load into the running kernel.  The log's TAP goes
# through scripts/vm/ktap.py, as a VM run's does, into
# host-kselftest/result.json.
host_kselftest()
{
	local out=$BUILD/host-kselftest

	mkdir -p "$out"
	make -C "$KSRC" kselftest TARGETS=sched_state KDIR="$BUILD/no-kdir" 2>&1 | cat >"$out/kselftest.log"
	cat "$out/kselftest.log"
	python3 "$TOP/scripts/vm/ktap.py" --log "$out/kselftest.log" "$out/result.json"
	CHILD_CHECKS=$CHILD_CHECKS host_result "$out/result.json" &&
	python3 "$TOP/scripts/report/farm_names.py" "$out/result.json"
}

# host_result RESULT_JSON: what host_kselftest requires of its results
host_result()
{
	python3 - "$1" <<-'EOF'
	import json, os, re, sys
	r = json.load(open(sys.argv[1]))
	tests, bad = r['tests'], list(r['problems'])
	top = [t for t in tests if t['depth'] == 0]
	if [(t['name'], t['result']) for t in top] != \
	        [('selftests: sched_state: sched_state.sh', 'pass')]:
	    bad.append('not one passing sched_state.sh: ' +
	               ', '.join(f"{t['name']} {t['result']}" for t in top))
	nested = [t for t in tests if t['depth'] == 1]
	if not top or top[0]['planned'] != len(nested):
	    bad.append(f"{len(nested)} nested results, planned "
	               f"{top[0]['planned'] if top else None}")
	# the child checks need no module, nor the freezer's (they pass, or
	# skip without a v1 freezer): the others skip, saying why
	want = ['child.' + c for c in os.environ['CHILD_CHECKS'].split()]
	proc = [t for t in nested if t['result'] == 'pass' and t['name'] in want]
	if sorted(t['name'] for t in proc) != sorted(want):
	    bad.append(f"child checks passed: {' '.join(t['name'] for t in proc)}; "
	               f"not all of {' '.join(want)}")
	for t in nested:
	    if t in proc or (t['result'] == 'pass' and
	                     re.fullmatch(r'freezer\.[A-Za-z_]+', t['name'])):
	        continue
	    if t['result'] != 'skip' or not re.fullmatch(r'[A-Za-z_.]+', t['name']) \
	            or not re.match(r'[a-z]', t['comment'] or ''):
	        bad.append(f"{t['name']}: {t['result']} {t['comment'] or ''}")
	c = r['counts']
	print(f"host kselftest: {len(nested)} nested results, {c['pass']} pass, "
	      f"{c['skip']} skip, {c['fail']} fail")
	for b in bad:
	    print('  ' + b)
	sys.exit(1 if bad else 0)
	EOF
}

# get_maintainer.pl sends the new files to the scheduler maintainers.
maintainers()
{
	local f out

	for f in tools/testing/selftests/sched_state/sched_state_test.c \
		 Documentation/scheduler/sched-state.rst; do
		out=$(cd "$KSRC" && perl scripts/get_maintainer.pl -f "$f")
		echo "$f:"
		echo "$out" | sed 's/^/  /'
		grep -q "(maintainer:SCHEDULER)" <<<"$out" || return 1
	done
}

# make help names every .PHONY target; docs/variables.md every variable the
# scripts read (less those check.sh and the scripts hand each other).
help_lists_all()
{
	local out t v missing=0

	out=$(make -s -C "$TOP" help) || return 1
	[ "$(wc -l <<<"$out")" -le 25 ] || { echo "make help is over 25 lines"; missing=1; }
	for t in $(sed -n 's/^\.PHONY: //p' "$TOP/Makefile"); do
		grep -qE "^  make $t( |$)" <<<"$out" || { echo "make help lacks target $t"; missing=1; }
	done
	for v in $(grep -ohE '\$\{[A-Z][A-Z0-9_]+:[-=]' "$TOP"/scripts/*.sh "$TOP"/scripts/*/*.sh |
		sed 's/..//; s/:.//' | sort -u); do
		case $v in
		CLEAN_DEBIAN_INNER|KARCH|KPICKED|MATRIX_ODIR|STATIC_KDIRS|TMPDIR|XDG_CACHE_HOME) continue ;;
		esac
		grep -qF "\`$v=" "$TOP/docs/variables.md" ||
			{ echo "docs/variables.md lacks variable $v"; missing=1; }
	done
	return $missing
}

# Not root (nobody, on this host's kernel, with the programs make
# kselftest just built): the harness runs the child checks, which need only
# /proc, fork and ptrace of its own child, and they pass; every other check
# skips with its reason ("needs root"); it exits 0.  sched_state.sh does the
# same without loading the module: modprobe, insmod and rmmod first on its
# PATH are stubs that log any call, and none may come.  The results go
# through scripts/vm/ktap.py, into build/non-root/.
non_root()
{
	local out=$BUILD/non-root p rc1 rc2
	local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

	rm -rf "$out"
	mkdir -p "$out/bin"
	for p in modprobe insmod rmmod; do
		printf '#!/bin/sh\necho "%s $*" >>%s/calls\nexit 0\n' "$p" "$out" >"$out/bin/$p"
	done
	: >"$out/calls"
	chmod 755 "$out" "$out"/bin "$out"/bin/*
	chmod 666 "$out/calls"
	"${nobody[@]}" "$SELFTESTS/sched_state/sched_state_test" >"$out/harness.log" 2>&1
	rc1=$?
	"${nobody[@]}" env PATH="$out/bin:$PATH" "$SELFTESTS/sched_state/sched_state.sh" \
		>"$out/wrapper.log" 2>&1
	rc2=$?
	cat "$out/wrapper.log"
	python3 "$TOP/scripts/vm/ktap.py" --log "$out/harness.log" "$out/harness.json" >/dev/null
	python3 "$TOP/scripts/vm/ktap.py" --log "$out/wrapper.log" "$out/wrapper.json" >/dev/null
	CHILD_CHECKS=$CHILD_CHECKS python3 - "$out" "$rc1" "$rc2" <<-'EOF'
	import json, os, sys
	out, rc1, rc2 = sys.argv[1:]
	want = {'child.' + c for c in os.environ['CHILD_CHECKS'].split()}
	bad, seen = [], {}
	for prog, rc in (('sched_state_test', rc1), ('sched_state.sh', rc2)):
	    r = json.load(open(f'{out}/{"harness" if prog.endswith("test") else "wrapper"}.json'))
	    tests = [t for t in r['tests'] if t['depth'] == 0]
	    c = r['counts']
	    if rc != '0':
	        bad.append(f'{prog}: exit {rc}, not 0')
	    if not tests or c['planned'] != len(tests):
	        bad.append(f"{prog}: {len(tests)} results, planned {c['planned']}")
	    bad += [f'{prog}: {p}' for p in r['problems']]
	    passed = {t['name'] for t in tests if t['result'] == 'pass'}
	    if passed != want:
	        bad.append(f"{prog}: passed {' '.join(sorted(passed))}; not "
	                   f"{' '.join(sorted(want))}")
	    for t in tests:
	        if t['name'] not in want and (t['result'] != 'skip' or
	                                      not (t['comment'] or '').startswith('needs ')):
	            bad.append(f"{prog}: {t['name']}: {t['result']} "
	                       f"{t['comment'] or ''}, not a skip with its reason")
	    seen[prog] = [(t['name'], t['result'], t['comment']) for t in tests]
	    root = sum(t['comment'] == 'needs root' for t in tests)
	    print(f"{prog} as nobody: exit {rc}, {c['pass']} pass, {c['skip']} skip "
	          f"({root} 'needs root'), {c['fail']} fail")
	if seen.get('sched_state_test') != seen.get('sched_state.sh'):
	    bad.append('sched_state.sh and sched_state_test differ in their results')
	calls = open(f'{out}/calls').read().split('\n')[:-1]
	bad += [f'sched_state.sh as nobody ran {c}' for c in calls]
	for b in bad:
	    print('  ' + b)
	sys.exit(1 if bad else 0)
	EOF
}

# The mutants make check runs (make check-full: all of mutants/): one per
# file of the kernel they break, each rebuilding only that file.
CHECK_MUTANTS=(proc-stopped-traced-letters ttwu-mask-wakes-normal freezer-skips-freezable)
mutants_what()
{
	if [ $full = 1 ]; then
		echo "all of mutants/"
	else
		echo "${CHECK_MUTANTS[*]}"
	fi
}

mutant_tables()
{
	gate "docs/mutants.md's tables are mutants/result.json's, which has every mutant" \
		python3 "$TOP/scripts/gates/mutants-result.py" --check
}

full=0
case ${1:-} in
--full) full=1 ;;
"") ;;
*) die "usage: $0 [--full]" ;;
esac

# kdir NAME: the kernel's build tree (kernel.sh builds or unpacks it once)
kdir()
{
	(KERNEL=$1; unset KIMAGE KDIR; pick_kernel >/dev/null; echo "$KDIR")
}

# the suite on kernel $1, and, in full, hostile input and lifecycle
kernel_gates()
{
	local k=$1 all=$2

	gate "VM run on the $k kernel" env KERNEL="$k" "$TOP/scripts/vm/run-suite.sh"
	gate "TAP consumers on the $k run (prove, kunit.py parse; flat; a planted failure)" consumers "$k"
	[ "$all" = 1 ] || return 0
	gate "hostile input and lifecycle on the $k kernel" \
		env KERNEL="$k" "$TOP/scripts/gates/stress.sh"
}

rm -f "$BUILD/matrix.txt"
gate "deps and tree" bash -c '"$0"/deps.sh check && "$0"/prepare-tree.sh' "$TOP/scripts/tree"
gate "a clean Debian 12: make deps, the module against 6.12 and mainline$([ $full = 1 ] && echo ', make run')" \
	"$TOP/scripts/gates/clean-debian.sh" $([ $full = 1 ] && echo --run)
gate "checkpatch --strict" "$TOP/scripts/gates/checkpatch.sh"
gate "compare.py statistics self-test" python3 "$TOP/scripts/bench/compare.py" --self-test
# make check-full's run of every mutant writes docs/mutants.md's tables and
# mutants/result.json anew: it checks them after that run
[ $full = 1 ] || mutant_tables
gate "make help names every target, docs/variables.md every variable" help_lists_all
gate "docs build adds no warning" "$TOP/scripts/gates/docs.sh"
gate "get_maintainer.pl names the SCHEDULER maintainers" maintainers

# The kernels, each as its column of scripts/kernels.tsv says: "all",
# "suite" or "-"; the Debian kernels first, while the others build.
col=check
[ $full = 0 ] || col=full
mapfile -t plan < <(kernels from,name,$col "$col!=-" | sort -s -r -k1,1 |
	awk '{ print $2 ":" $3 }')
# the kernels the gates take by role (scripts/kernels.tsv's role column):
# the one they build and boot as mainline, and its PREEMPT_RT twin
default=$(kernels name role=default)
[ -n "$default" ] || die "scripts/kernels.tsv: no kernel has the role default"
default_rt=$(kernels name "role=rt:$default")

# The kernels built from the mainline tree take minutes each the first
# time: build mainline now, and the others the plan and the debug gate need
# meanwhile at the lowest priority, while the VM gates leave a core mostly
# idle.  Their gates wait for them (kernel.sh holds a lock per kernel) and
# show why if a build failed.
gate "the $default kernel builds" "$TOP/scripts/tree/kernel.sh" "$default"
mapfile -t later < <({ kernels name from=build role!=default "$col!=-"
	kernels name from=build role=debug; } | awk '!seen[$0]++')
mkdir -p "$BUILD"
setsid nice -n 19 bash -c 'for k; do "$0" "$k"; done' "$TOP/scripts/tree/kernel.sh" "${later[@]}" \
	>"$BUILD/kernels.bg.log" 2>&1 &
bg=$!
trap 'kill -TERM -- -$bg 2>/dev/null || true' EXIT
say "check.sh: building ${later[*]} in the background (log: $BUILD/kernels.bg.log)"

runs=()
for p in "${plan[@]}"; do
	kernel_gates "${p%:*}" "$([ "${p#*:}" = all ] && echo 1 || echo 0)"
	runs+=("$BUILD/${p%:*}/vm")
done
gate "names as the CI farms parse them: once each, short, the same on every kernel" \
	bash -c 'python3 "$0" --self-test >/dev/null && python3 "$0" "$@"' \
	"$TOP/scripts/report/farm_names.py" "${runs[@]/%//result.json}"
gate "a farm's default run on $default (run_kselftest.sh -c sched_state, its VM run's first part): no hung_task result, no kernel report" \
	farm_default "$default"
# after the kernels: the cover letter carries the matrix they just measured
gate "patch series: git am, builds and checkpatch at every step" \
	env KDIR="$(kdir "$default")" "$TOP/scripts/report/patches.sh" --check
gate "the lifecycle script waits and kills alike with and without busybox" \
	env KERNEL="$default" "$TOP/scripts/gates/lifecycle-portability.sh"
gate "results for dashboards: JUnit and KCIDB v5 (kcidb-io schema rules) of every run" \
	bash -c 'python3 "$0"/vm/ktap.py --self-test >/dev/null &&
		python3 "$0"/report/results.py --self-test >/dev/null &&
		python3 "$0"/report/results.py --check "$@"' \
	"$TOP/scripts" "${runs[@]}"
gate "kernel mutants: $(mutants_what) turn the suite red" \
	"$TOP/scripts/gates/mutants.sh" $([ $full = 1 ] || echo "${CHECK_MUTANTS[@]}")
[ $full = 0 ] || mutant_tables
gate "CI job entries (kernelci-pipeline, tuxlava) load and fit the suite" \
	bash -c 'python3 "$0" --self-test >/dev/null && python3 "$0"' "$TOP/scripts/report/ci-jobs.py"
gate "static gates (W=1 C=1, -Wextra gcc/clang, O= builds, gen_tar, coccicheck)" \
	env STATIC_KDIRS="$(kdir "$default") $(kdir "$default_rt")" "$TOP/scripts/gates/static.sh"
gate "module build matrix and the CI farms' builds (KDIR untouched)" \
	env MATRIX_ODIR="$(kdir "$default")" "$TOP/scripts/gates/build-matrix.sh"
wait $bg || true
gate "debug kernel (lockdep, KASAN, kmemleak): suite, fuzz, lifecycle, kmemleak scans" \
	"$TOP/scripts/gates/debug-run.sh"
gate "make kselftest on the host kernel" host_kselftest
gate "as non-root, the harness and sched_state.sh pass the child checks and skip the rest, loading nothing" non_root

echo "matrix ($BUILD/matrix.txt):"
sed 's/^/  /' "$BUILD/matrix.txt" 2>/dev/null || echo "  (none)"
gates "check$([ $full = 1 ] && echo -full)"
