#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the suite against the kernel, not against its own module: each
# mutants/<name>.patch is a small regression in one kernel .c file (or, with
# "Build: module", in a header whose macro the module expands).  Build the
# mainline kernel with it, boot it with the suite, record which checks went
# red, revert it.
#
#   mutants.sh [NAME...]   the named mutants (default: every mutants/*.patch)
#
# A mutant is caught ("red") only when its kernel boots and every check its
# header names ("Checks:", the checks of its rows in mutants/rules.tsv)
# fails; other checks may fail too.  A build failure, a panic or an oops, a
# hang, a boot failure or a VM timeout is "broken", not a kill; a run in
# which a named check passed, skipped or never ran is "green".  Each mutant
# prints one line, "<name> red: <checks>", "<name> green: <why>" or "<name>
# broken: <why>".  A race may be missed by any one run: a mutant whose
# header says "Runs: N" boots again while it is green, up to N runs, its line
# saying which run ("(run 2 of 3)"); the earlier runs' files are kept as
# custom/vm.<run>.  A race's header may also raise the race's bound
# ("Race-ms: 20000": SCHED_STATE_RACE_MS in the guest, vm.sh --env).  The
# same goes to $BUILD/mutants/result.json, and as tables to
# $BUILD/mutants/table.md (a row per mutant) and map.md (a row per check),
# with the rule inventory's coverage in coverage.txt (and printed): the rows
# of mutants/rules.tsv with a check and a mutant that went red, and every
# other row's reason.  A run of every mutant keeps its data in
# mutants/result.json and both tables in README.md.
# scripts/gates/mutants-result.py reads the headers and rules.tsv and judges
# each run.
# Fails if any mutant is green or broken, or if the unmutated kernel (the
# control run, first) does not pass the suite.
#
# The kernels: a mutant breaks the kernel its header's "Kernel:" names
# (mainline by default; mainline-rt for PREEMPT_RT's code), a kernel of
# scripts/tree/kernel.sh built from the mainline tree.  Its cached build is
# never written: it is copied once into $CACHE/mutants/<its name>/: build/, a
# copy of its O= directory with its paths moved to src/, a hard-linked copy
# of the pristine mainline tree.  Before a mutant patches a file, the file is
# broken out of its hard link; patch -R reverts it, so src/ has the pristine
# tree's content again after every mutant.  Each build is incremental (one
# .c file recompiled, vmlinux relinked), under nice.  A mutant's kernel image
# and its suite (the module built against its build) are staged out of the
# tree before the revert, so that its VM run (scripts/vm/vm.sh, which takes
# the machine's VM lock) overlaps the next mutant's build.  The guest runs
# vm.sh's suite (guest/suite.sh: the default run, then the hung-task
# program) with each program's timeout raised to $SUITE_TIMEOUT s, so that a
# mutant which leaves a check to the harness's own timeout still has every
# later check reported.
#
# Each kernel's control run is $BUILD/mutants/control-<kernel>/.
# Per mutant, in $BUILD/mutants/<name>/: build.log, stage.log
# (scripts/tree/build-kselftest.sh), run.log (vm.sh) and the VM run's files
# in custom/vm/ (result.json, ktap.tap, dmesg.log: see README.md),
# verdict.json.
. "$(dirname "$0")/../lib.sh"

# One compound command, parsed whole before it runs: a run takes half an
# hour, and bash reads a script as it goes.
{
MUTANTS_DIR=$TOP/mutants
OUT=$BUILD/mutants
JOBS=${JOBS:-$(nproc)}
# a suite run takes 1-2 minutes; a hung mutant should not cost 10.  A
# mutant may leave checks to their timeouts: the default program may take
# SUITE_TIMEOUT (ignored-sigchld-leaves-zombie's takes 3 minutes), the boot
# and the hung-task program the rest
SUITE_TIMEOUT=300
VM_TIMEOUT=${MUTANT_TIMEOUT:-$((SUITE_TIMEOUT + 180))}
RESULT=$TOP/scripts/gates/mutants-result.py

# files PATCH: the files a patch changes, relative to the tree's top
files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	# grouped by the file they patch: a reverted file is recompiled once
	# more with the next mutant's build, and then only once per file
	mapfile -t names < <(for p in "$MUTANTS_DIR"/*.patch; do
		n=${p##*/}
		echo "$(files "$p" | head -n 1) ${n%.patch}"
	done | sort | cut -d ' ' -f 2)
fi
for n in "${names[@]}"; do
	[ -f "$MUTANTS_DIR/$n.patch" ] ||
		die "no mutant $n; known: $(cd "$MUTANTS_DIR" && ls *.patch | sed 's/\.patch$//' | tr '\n' ' ')"
done
[ -d "$KSRC/tools/testing/selftests/sched_state" ] || die "KSRC=$KSRC has no sched_state: run make tree"

# each mutant's header, read (and checked) once: its kernel, "Build:
# module" (a header that only the module's code is to see changed, a macro
# or inline it expands: the kernel is not rebuilt, the module is built
# against the patched tree), its runs and its race bound
declare -A kernel_of module_of runs_of race_of
plan=$(python3 "$RESULT" --plan "${names[@]}") || die "a mutant's header is wrong (above)"
while IFS=$'\t' read -r n k m r ms; do
	kernel_of[$n]=$k module_of[$n]=$m runs_of[$n]=$r race_of[$n]=$ms
done <<<"$plan"

start=$SECONDS
pristine=$("$TOP/scripts/tree/mainline.sh")
mkdir -p "$CACHE/mutants" "$OUT"
# the kernel each mutant breaks: its header's "Kernel:", by default the
# kernel of the role "default" (mainline)
default=$(kernels name role=default)
for n in "${names[@]}"; do
	[ "${kernel_of[$n]}" != - ] || kernel_of[$n]=$default
done
mapfile -t knames < <(printf '%s\n' "${kernel_of[@]}" | sort -u)

# use_kernel NAME: the copy of kernel NAME's build that the mutants patch
use_kernel()
{
	kname=$1
	kdir=$("$TOP/scripts/tree/kernel.sh" "$kname")
	base=$(. "$kdir/env" && echo "$KDIR")
	image=$(. "$kdir/env" && echo "${KIMAGE#"$KDIR"/}")
	work=$CACHE/mutants/$(basename "$kdir")
	src=$work/src
	obj=$work/build
	control=control-$kname
	exec 9>"$work.lock"
	flock -n 9 || { say "mutants: waiting for another run on $work"; flock 9; }
}

# revert PATCH NAME: back to the pristine tree's content, or fail
revert()
{
	local f

	patch -d "$src" -p1 -R -s --no-backup-if-mismatch <"$1" ||
		die "mutant ${1##*/} did not revert in $src; remove $work to start again"
	for f in $(files "$1"); do
		cmp -s "$pristine/$f" "$src/$f" ||
			die "$src/$f differs from the pristine tree after reverting ${1##*/}; remove $work"
		# no kernel object saw the change: back to the pristine file and
		# its time, or the next build recompiles all that includes it
		[ "${module_of[$2]}" = 0 ] || ln -f "$pristine/$f" "$src/$f"
	done
	rm -f "$work/applied"
}

# make_base: the copy of the mainline kernel's build, once
make_base()
{
	[ -f "$work/ready" ] && return
	say "mutants: copying the $kname kernel $base and $pristine into $work (once)"
	rm -rf "$work"
	mkdir -p "$work"
	cp -al "$pristine" "$src"
	# cp -a keeps the times: make sees every object up to date
	cp -a "$base" "$obj"
	# kbuild's commands name the source and build directories by absolute
	# path: the same commands with the new paths, or every object rebuilds
	python3 "$TOP/scripts/gates/repath.py" "$obj" "$pristine" "$src" "$base" "$obj"
	kmake base || die "the copy of the $kname kernel does not build; log: $OUT/base.log"
	touch "$work/ready"
}

# kmake NAME: the incremental build, its log in $OUT/NAME.log or NAME/build.log
kmake()
{
	local log=$OUT/$1/build.log

	[ "$1" != base ] || log=$OUT/base.log
	mkdir -p "$(dirname "$log")"
	nice -n 10 make -C "$src" O="$obj" -j"$JOBS" "$(basename "$image")" modules >"$log" 2>&1
}

# runs NAME: how many suite runs NAME may take to turn checks red: its
# header's "Runs:" (a race, which any one run may miss), else 1; the
# control's one
runs() { echo "${runs_of[$1]:-1}"; }

# judge NAME VMRC RUN: the verdict of NAME's RUNth run, one line on stdout,
# its data in $OUT/NAME/verdict.json
judge() { python3 "$RESULT" --judge "$OUT/$1" "$1" "$2" "$3" "$kname"; }

# stage NAME [IMAGE]: after NAME's build, what its run needs outside the
# working tree: the kernel image (IMAGE, else the one just built), and the
# suite installed with the module built against this build
# (scripts/tree/build-kselftest.sh), in $OUT/NAME/custom/kselftest
stage()
{
	cp "${2:-$obj/$image}" "$OUT/$1/bzImage"
	BUILD=$OUT/$1 KIMAGE=$OUT/$1/bzImage KDIR=$obj KSRC=$KSRC \
		"$TOP/scripts/tree/build-kselftest.sh" >"$OUT/$1/stage.log" 2>&1
}

# boot NAME: the suite on NAME's staged kernel, in the background (its own
# process group, so that an interrupted run stops it and its QEMU); vm.sh
# waits for the machine's VM lock.  A race's bound goes to the guest's
# environment.  Sets vm_pid and vm_name.
boot()
{
	local env=()

	[ "${race_of[$1]:-0}" = 0 ] || env=(--env "SCHED_STATE_RACE_MS=${race_of[$1]}")
	setsid env KARCH=x86_64 "$TOP/scripts/vm/vm.sh" --kimage "$OUT/$1/bzImage" \
		--ksft "$OUT/$1/custom/kselftest" --out "$OUT/$1/custom/vm" \
		--guest-cmd "sh /guest/suite.sh -o $SUITE_TIMEOUT" "${env[@]}" \
		--timeout "$VM_TIMEOUT" >"$OUT/$1/run.log" 2>&1 &
	vm_pid=$! vm_name=$1
}

# landed: wait for the VM run in flight, if any, and judge it; a green one
# with runs left boots again, at once
vm_pid= vm_name=
landed()
{
	local rc=0 run=1 line

	[ -n "$vm_pid" ] || return 0
	wait "$vm_pid" || rc=$?
	vm_pid=
	if [ "$vm_name" = "$control" ]; then
		[ "$rc" -eq 0 ] ||
			die "the unmutated $kname kernel fails the suite (rc $rc): no mutant can be judged; see $OUT/$control/run.log"
		echo "$control (no mutant) passed the suite in $(result_value "$OUT/$control/custom/vm/result.json" seconds.host) s"
	else
		line=$(judge "$vm_name" "$rc" $run)
		while [[ $line == "$vm_name green"* ]] && [ $run -lt "$(runs "$vm_name")" ]; do
			say "mutants: $line: again"
			mv "$OUT/$vm_name/custom/vm" "$OUT/$vm_name/custom/vm.$run"
			mv "$OUT/$vm_name/run.log" "$OUT/$vm_name/run.$run.log"
			run=$((run + 1))
			boot "$vm_name"
			rc=0
			wait "$vm_pid" || rc=$?
			vm_pid=
			line=$(judge "$vm_name" "$rc" $run)
		done
		echo "$line"
	fi
}

# broken NAME WHY: a mutant that never reached its VM run
broken() { python3 "$RESULT" --broken "$OUT/$1" "$1" "$2" "$kname"; }

current=
trap '[ -z "$vm_pid" ] || kill -- -"$vm_pid" 2>/dev/null; [ -z "$current" ] || revert "$MUTANTS_DIR/$current.patch" "$current"' EXIT
rm -rf "$OUT"/result.json "$OUT"/table.md "$OUT"/control*
# mutate K: kernel K's control run, then its mutants
mutate()
{
	local k=$1 mine=() n p t0 f ok why

	use_kernel "$k"
	# a run that was stopped with a mutant applied left it there
	if [ -f "$work/applied" ] && [ -f "$work/ready" ]; then
		p=$(cat "$work/applied")
		n=${p##*/}
		n=${n%.patch}
		say "mutants: reverting $n, left applied by a stopped run"
		# not in this run: its header's Build:, else a kernel mutant's
		# revert (the file keeps its new time: what saw it rebuilds)
		[ -n "${module_of[$n]:-}" ] ||
			module_of[$n]=$(python3 "$RESULT" --plan "$n" 2>/dev/null | cut -f 3)
		: "${module_of[$n]:=0}"
		revert "$p" "$n"
	fi
	make_base

	# The control: the unmutated copy must build and pass, or no red means a
	# thing.  Each VM run then overlaps the next mutant's build.
	for n in "${names[@]}"; do
		[ "${kernel_of[$n]}" != "$k" ] || mine+=("$n")
	done
	say "mutants: $k: the control run, no mutant, then ${#mine[@]} mutants (logs: $OUT/<name>/)"
	rm -rf "${OUT:?}/$control"
	mkdir -p "$OUT/$control"
	t0=$SECONDS
	kmake "$control" || die "the unmutated $k kernel does not build; log: $OUT/$control/build.log"
	stage "$control" || die "the suite does not build for the unmutated $k kernel; log: $OUT/$control/stage.log"
	echo "$((SECONDS - t0))" >"$OUT/$control/build_seconds"
	boot "$control"

	for n in "${mine[@]}"; do
		p=$MUTANTS_DIR/$n.patch
		t0=$SECONDS
		rm -rf "${OUT:?}/$n"
		mkdir -p "$OUT/$n"
		for f in $(files "$p"); do
			# break the file out of its hard link to the pristine tree
			cp -p --remove-destination "$pristine/$f" "$src/$f"
			[ "$(stat -c %i "$src/$f")" != "$(stat -c %i "$pristine/$f")" ] ||
				die "$src/$f is still the pristine tree's file"
		done
		echo "$p" >"$work/applied"
		current=$n
		patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p" ||
			die "mutant $n does not apply to $pristine"
		ok=
		if [ "${module_of[$n]}" = 1 ]; then
			say "mutants: $n: the module only, on the unmutated kernel"
			# $obj's image is the last kernel mutant's until the next build
			if stage "$n" "$OUT/$control/bzImage"; then
				ok=1
			else
				why="the suite does not build for it: $OUT/$n/stage.log"
			fi
		elif ! kmake "$n"; then
			why="the kernel does not build: $OUT/$n/build.log"
		elif ! stage "$n"; then
			why="the suite does not build for it: $OUT/$n/stage.log"
		else
			ok=1
		fi
		echo "$((SECONDS - t0))" >"$OUT/$n/build_seconds"
		revert "$p" "$n"
		current=
		landed
		if [ -n "$ok" ]; then
			boot "$n"
		else
			broken "$n" "$why"
		fi
	done
	landed
}

for k in "${knames[@]}"; do
	mutate "$k"
done

rc=0
python3 "$RESULT" "$OUT" "$((SECONDS - start))" "${names[@]}" || rc=$?
# a run of every mutant is the one docs/mutants.md shows
if [ $# -eq 0 ]; then
	python3 "$RESULT" --readme "$OUT/result.json"
	say "mutants: docs/mutants.md's tables and mutants/result.json made anew from this run"
fi
exit $rc
}
