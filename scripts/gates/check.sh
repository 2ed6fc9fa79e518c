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
	python3 "$TOP/scripts/report/result.py" farm-default "$BUILD/$1/vm/result.json"
}

# A developer's path on this host's kernel, without the module: one entry,
# sched_state.sh, which passes (exit 0); inside it the module-free tests
# pass, every module-backed one skips with a reason, each test reports once,
# and the names pass farm_names.py as the farms would make them.  KDIR names no
# tree: on a workstation with its kernel's headers, the module would
# otherwise build and load into the running kernel.  The log's TAP goes
# through scripts/report/ktap.py, as a VM run's does, into
# host-kselftest/result.json.
host_kselftest()
{
	local out=$BUILD/host-kselftest

	mkdir -p "$out"
	make -C "$KSRC" kselftest TARGETS=sched_state KDIR="$BUILD/no-kdir" 2>&1 | cat >"$out/kselftest.log"
	cat "$out/kselftest.log"
	python3 "$TOP/scripts/report/ktap.py" --log "$out/kselftest.log" "$out/result.json"
	CHILD_CHECKS=$CHILD_CHECKS host_result "$out/result.json" &&
	python3 "$TOP/scripts/report/farm_names.py" "$out/result.json"
}

# host_result RESULT_JSON: what host_kselftest requires of its results
host_result()
{
	python3 "$TOP/scripts/report/result.py" host "$1"
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
# through scripts/report/ktap.py, into build/non-root/.
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
	python3 "$TOP/scripts/report/ktap.py" --log "$out/harness.log" "$out/harness.json" >/dev/null
	python3 "$TOP/scripts/report/ktap.py" --log "$out/wrapper.log" "$out/wrapper.json" >/dev/null
	CHILD_CHECKS=$CHILD_CHECKS python3 "$TOP/scripts/report/result.py" nobody "$out" "$rc1" "$rc2"
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

rm -f "$BUILD/matrix.json"
gate "deps and tree" bash -c '"$0"/deps.sh check && "$0"/prepare-tree.sh' "$TOP/scripts/tree"
gate "a clean Debian 12: make deps, the module against 6.12 and mainline$([ $full = 1 ] && echo ', make run')" \
	"$TOP/scripts/gates/clean-debian.sh" $([ $full = 1 ] && echo --run)
gate "checkpatch --strict" "$TOP/scripts/gates/checkpatch.sh"
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
gate "results for dashboards: JUnit and KCIDB v5 (kcidb-io schema rules) of every run" \
	bash -c 'python3 "$0"/report/ktap.py --self-test >/dev/null &&
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

python3 "$TOP/scripts/report/result.py" tested "$BUILD/matrix.json"
gates "check$([ $full = 1 ] && echo -full)"
