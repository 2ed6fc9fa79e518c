#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check (CI's .ci/run) and make check-full (--full): every gate runs,
# each says PASS or FAIL, the last line counts them.  What each gate
# proves: docs/check.md.
. "$(dirname "$0")/../lib.sh"
set +e

full=0 col=check
[ "${1:-}" != --full ] || full=1 col=full
[ -z "${1:-}" ] || [ $full = 1 ] || die "usage: $0 [--full]"
REPORT=$TOP/scripts/report

# The captured TAP, as it is and flat (every nested result a top-level
# line), must satisfy prove and kunit.py parse; a planted nested failure
# must fail both.
prove_tap() { prove --exec cat "$1"; }
kunit_tap() { python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$1"; }

consumers()
{
	local vm=$BUILD/$1/vm c

	[ -s "$vm/ktap.tap" ] || { echo "no TAP at $vm/ktap.tap"; return 1; }
	python3 "$REPORT/result.py" flat "$vm/result.json" "$vm/flat.tap" "$vm/planted.tap" ||
		return 1
	for c in prove_tap kunit_tap; do
		$c "$vm/ktap.tap" && $c "$vm/flat.tap" || return 1
		! $c "$vm/planted.tap" >/dev/null 2>&1 ||
			{ echo "$c passed $vm/planted.tap, which has a failure"; return 1; }
	done
	echo "a failure planted in a nested result: both consumers fail"
}

# The checks that need neither root nor the module
export CHILD_CHECKS="busy_loop_is_R pipe_read_sleeps_S sigstop_stops_T sigkill_ends_stopped
	ptrace_stop_is_t sigkill_ends_traced sigkill_during_request blocked_fault_kills
	unreaped_exit_is_Z"

# make kselftest on this host's kernel, KDIR naming no tree (the module
# must not load into the running kernel): the module-free checks pass, the
# rest skip with a reason, and the names pass results.py --names.
host_kselftest()
{
	local out=$BUILD/host-kselftest

	mkdir -p "$out"
	make -C "$KSRC" kselftest TARGETS=sched_state KDIR="$BUILD/no-kdir" 2>&1 | tee "$out/kselftest.log"
	python3 "$REPORT/ktap.py" --log "$out/kselftest.log" "$out/result.json"
	python3 "$REPORT/result.py" host "$out/result.json" &&
	python3 "$REPORT/results.py" --names "$out/result.json"
}

# get_maintainer.pl sends the new files to the scheduler maintainers
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

# make help: at most 25 lines, every .PHONY target; docs/variables.md: every
# variable a script reads with a default (less those scripts hand on)
help_lists_all()
{
	local out t v bad=0
	local own='A_ARCH|CLEAN_DEBIAN_INNER|KENV|KPICKED|MATRIX_ODIR|STATIC_KDIRS|TMPDIR|XDG_CACHE_HOME'

	out=$(make -s -C "$TOP" help) || return 1
	[ "$(wc -l <<<"$out")" -le 25 ] || { echo "make help is over 25 lines"; bad=1; }
	for t in $(sed -n 's/^\.PHONY: //p' "$TOP/Makefile"); do
		grep -qE "^  make $t( |$)" <<<"$out" || { echo "make help lacks target $t"; bad=1; }
	done
	for v in $(grep -ohE '\$\{[A-Z][A-Z0-9_]+:[-=]' "$TOP"/scripts/*.sh "$TOP"/scripts/*/*.sh |
		sed 's/..//; s/:.//' | sort -u | grep -vxE "$own"); do
		grep -qF "\`$v=" "$TOP/docs/variables.md" ||
			{ echo "docs/variables.md lacks variable $v"; bad=1; }
	done
	return $bad
}

# As nobody, on this host's kernel: the harness and sched_state.sh pass the
# child checks and skip the rest ("needs root"); sched_state.sh calls no
# modprobe, insmod or rmmod (stubs first on its PATH log any call).
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
	python3 "$REPORT/ktap.py" --log "$out/harness.log" "$out/harness.json" >/dev/null
	python3 "$REPORT/ktap.py" --log "$out/wrapper.log" "$out/wrapper.json" >/dev/null
	python3 "$REPORT/result.py" nobody "$out" "$rc1" "$rc2"
}

# the mutants make check runs: one per kernel file they break
CHECK_MUTANTS=(proc-stopped-traced-letters call-pipe-read-killable freezer-skips-freezable)

# kenv NAME: NAME's kernel.sh env file, from one kernel.sh run a kernel (the background's
# for the kernels it builds)
kenv()
{
	local f=$BUILD/kernels.check/$1

	while [[ ! -s $f && " ${later[*]} " == *" $1 "* ]] && kill -0 "${bg:-}" 2>/dev/null; do sleep 5; done
	[ -s "$f" ] || "$TOP/scripts/tree/kernel.sh" "$1" >"$f" || return 1
	echo "$(cat "$f")/env"
}
# on NAME CMD...: CMD with NAME's kernel handed down (lib.sh's kernel_use)
on() { local e; e=$(kenv "$1") && (kernel_use "$e" && "${@:2}"); }
# kdir NAME: the kernel's build tree
kdir() { on "$1" printenv KDIR; }

rm -f "$BUILD/matrix.json"
gate "deps and tree" bash -c '"$0"/deps.sh check && "$0"/prepare-tree.sh' "$TOP/scripts/tree"
gate "a clean Debian 12: make deps, the module against 6.12 and mainline$([ $full = 1 ] && echo ', make run')" \
	"$TOP/scripts/gates/clean-debian.sh" $([ $full = 1 ] && echo --run)
gate "checkpatch --strict" "$TOP/scripts/gates/checkpatch.sh"
gate "make help names every target, docs/variables.md every variable" help_lists_all
gate "docs build adds no warning" "$TOP/scripts/gates/docs.sh"
gate "get_maintainer.pl names the SCHEDULER maintainers" maintainers

# each kernel as its column ($col) of scripts/kernels.tsv says, Debian's first
mapfile -t plan < <(kernels from,name,$col "$col!=-" | sort -s -r -k1,1 | awk '{ print $2 ":" $3 }')
default=$(kernels name role=default)
[ -n "$default" ] || die "scripts/kernels.tsv: no kernel has the role default"
default_rt=$(kernels name "role=rt:$default")
debug=$(kernels name role=debug)
mapfile -t later < <({ kernels name from=build role!=default "$col!=-"; echo "$debug"; } |
	awk '!seen[$0]++')
rm -rf "$BUILD/kernels.check" && mkdir -p "$BUILD/kernels.check"

# mainline now; the other built kernels in the background at the lowest
# priority, while the VM gates leave a core idle (kernel.sh locks each)
gate "the $default kernel builds" kenv "$default"
setsid nice -n 19 bash -c 'for k in "${@:2}"; do "$0" "$k" >"$1/$k"; done' \
	"$TOP/scripts/tree/kernel.sh" "$BUILD/kernels.check" "${later[@]}" >"$BUILD/kernels.bg.log" 2>&1 &
bg=$!
trap 'kill -TERM -- -$bg 2>/dev/null || true' EXIT
say "check.sh: building ${later[*]} in the background (log: $BUILD/kernels.bg.log)"

# the suite on each kernel; for "all", hostile input and lifecycle
runs=()
for p in "${plan[@]}"; do
	k=${p%:*}
	gate "VM run on the $k kernel" on "$k" "$TOP/scripts/vm/run-suite.sh"
	gate "TAP consumers on the $k run (prove, kunit.py parse; flat; a planted failure)" \
		consumers "$k"
	[ "${p#*:}" != all ] || gate "hostile input and lifecycle on the $k kernel" \
		on "$k" "$TOP/scripts/gates/stress.sh"
	runs+=("$BUILD/$k/vm")
done
gate "rtlock checks on $default_rt while CPU 1 goes offline and online: no hang, no report" \
	on "$default_rt" "$TOP/scripts/gates/stress.sh" --hotplug
gate "names as the CI farms parse them: once each, short, the same on every kernel" \
	python3 "$REPORT/results.py" --names "${runs[@]/%//result.json}"
gate "a farm's default run on $default (run_kselftest.sh -c sched_state, its VM run): no hung_task result, no kernel report" \
	python3 "$REPORT/result.py" farm-default "$BUILD/$default/vm/result.json"
# after the kernels: the cover letter carries the results they just gave
gate "patch series: git am, builds and checkpatch at every step" \
	env KDIR="$(kdir "$default")" "$REPORT/patches.sh" --check
gate "results for dashboards: JUnit and KCIDB v5 (kcidb-io schema rules) of every run" \
	python3 "$REPORT/results.py" --check "${runs[@]}"
gate "static gates (W=1 C=1, -Wextra gcc/clang, O= builds, gen_tar, coccicheck)" \
	env STATIC_KDIRS="$(kdir "$default") $(kdir "$default_rt")" "$TOP/scripts/gates/static.sh"
gate "module build matrix and the CI farms' builds (KDIR untouched)" env MATRIX_ODIR="$(kdir "$default")" \
	MATRIX_KDIRS="$(for k in $(kernels name role=matrix arch=x86_64); do echo "$k=$(kdir "$k")"; done)" \
	MATRIX_ARM64="$(kdir "$(kernels name role=matrix arch=arm64 | head -n 1)")" "$TOP/scripts/gates/build-matrix.sh"
wait $bg || true
gate "debug kernel (lockdep, KASAN, kmemleak): suite, fuzz, lifecycle, kmemleak scans" \
	on "$debug" "$TOP/scripts/gates/debug-run.sh"
gate "make kselftest on the host kernel" host_kselftest
gate "as non-root, the harness and sched_state.sh pass the child checks and skip the rest, loading nothing" non_root
# last: they wait for the mutant copy of the kernel, which a make mutants may hold
gate "kernel mutants: $([ $full = 1 ] && echo "all of mutants/" || echo "${CHECK_MUTANTS[*]}") turn the suite red" \
	on "$default" "$TOP/scripts/gates/mutants.sh" $([ $full = 1 ] || echo "${CHECK_MUTANTS[@]}")
# after the mutants: a run of every mutant writes the tables anew
gate "make selftest: the tooling's self-tests, the CI job entries, docs/mutants.md's tables are mutants/result.json's (every mutant)" \
	make -s -C "$TOP" selftest

python3 "$REPORT/result.py" tested "$BUILD/matrix.json"
gates "check$([ $full = 1 ] && echo -full)"
