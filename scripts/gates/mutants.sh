#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutants.sh [NAME...]: build the kernel with each mutants/NAME.patch (default:
# all), boot it with the suite and judge it (docs/mutants.md).  Fails if the
# unmutated control run fails or any mutant is green or broken.  Results in
# $BUILD/mutants/; a run of every mutant writes mutants/result.json and
# docs/mutants.md's tables anew.
. "$(dirname "$0")/../lib.sh"

# one compound command, parsed whole before it runs: a run takes hours, and
# bash reads a script as it goes
{
MUTANTS_DIR=$TOP/mutants
OUT=$BUILD/mutants
JOBS=${JOBS:-$(nproc)}
# each suite program may run to SUITE_TIMEOUT (a mutant may leave checks to
# their timeouts), the boot and the hung-task program in the rest
SUITE_TIMEOUT=300
VM_TIMEOUT=${MUTANT_TIMEOUT:-$((SUITE_TIMEOUT + 180))}
RESULT=$TOP/scripts/gates/mutants-result.py

[ -d "$KSRC/tools/testing/selftests/sched_state" ] || die "KSRC=$KSRC has no sched_state: run make tree"
# each mutant's header: the kernel it breaks, "Build: module" (1: only the
# module is built against the patched tree), its runs and race bound
plan=$(python3 "$RESULT" --plan "$@") || die "no plan for these mutants (above)"
default=$(kernels name role=default)
names=()
declare -A kernel_of module_of runs_of race_of
while IFS=$'\t' read -r n k m r ms; do
	names+=("$n")
	[ "$k" != - ] || k=$default
	kernel_of[$n]=$k module_of[$n]=$m runs_of[$n]=$r race_of[$n]=$ms
done <<<"$plan"
mapfile -t knames < <(printf '%s\n' "${kernel_of[@]}" | sort -u)

start=$SECONDS
pristine=$("$TOP/scripts/tree/mainline.sh")
mkdir -p "$CACHE/mutants" "$OUT"

# files PATCH: the files a patch changes
files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

# revert PATCH MODULE: back to the pristine tree's content, or fail
revert()
{
	local f

	patch -d "$src" -p1 -R -s --no-backup-if-mismatch <"$1" ||
		die "mutant ${1##*/} did not revert in $src; remove $work to start again"
	for f in $(files "$1"); do
		cmp -s "$pristine/$f" "$src/$f" ||
			die "$src/$f differs from the pristine tree after reverting ${1##*/}; remove $work"
		# no kernel object saw a module mutant's change: the pristine file
		# and its time, or the next build recompiles all that includes it
		# (what saw a kernel mutant's must rebuild)
		[ "$2" = 0 ] || ln -f "$pristine/$f" "$src/$f"
	done
	rm -f "$work/applied"
}

# kmake LOG: the incremental build
kmake()
{
	nice -n 10 make -C "$src" O="$obj" -j"$JOBS" "$(basename "$image")" modules >"$1" 2>&1
}

# use_kernel NAME: the copy of kernel NAME's build that the mutants patch,
# locked and ready: $src, the pristine tree hard-linked, and $obj, its build
# copied with the times kept (every object up to date) and kbuild's saved
# commands naming the copy's paths
use_kernel()
{
	local p m

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
	if [ -f "$work/ready" ]; then
		# a stopped run may have left a mutant applied
		[ -f "$work/applied" ] || return 0
		p=$(cat "$work/applied")
		say "mutants: reverting ${p##*/}, left applied by a stopped run"
		m=$(python3 "$RESULT" --plan "$(basename "$p" .patch)" 2>/dev/null | cut -f 3) || m=0
		revert "$p" "${m:-0}"
		return
	fi
	say "mutants: copying the $kname kernel $base and $pristine into $work (once)"
	rm -rf "$work"
	mkdir -p "$work"
	cp -al "$pristine" "$src"
	cp -a "$base" "$obj"
	python3 "$RESULT" --repath "$obj" "$pristine" "$src" "$base" "$obj"
	kmake "$OUT/base.log" || die "the copy of the $kname kernel does not build; log: $OUT/base.log"
	touch "$work/ready"
}

# stage NAME [IMAGE]: out of the tree for NAME's VM run, the kernel image
# (default: the one just built) and the suite with the module built against
# this build
stage()
{
	cp "${2:-$obj/$image}" "$OUT/$1/bzImage"
	BUILD=$OUT/$1 KIMAGE=$OUT/$1/bzImage KDIR=$obj KSRC=$KSRC \
		"$TOP/scripts/tree/build-kselftest.sh" >"$OUT/$1/stage.log" 2>&1
}

# boot NAME: NAME's VM run in the background, in its own process group (an
# interrupted run stops its QEMU too); vm.sh waits for the VM lock
vm_pid='' vm_name=''
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

# landed: wait for the VM run in flight, if any, and judge it; a green
# mutant with runs left (a race) boots again, its runs kept as vm.RUN
landed()
{
	local n=$vm_name rc=0 run=1 line

	[ -n "$vm_pid" ] || return 0
	wait "$vm_pid" || rc=$?
	vm_pid=
	if [ "$n" = "$control" ]; then
		[ "$rc" -eq 0 ] ||
			die "the unmutated $kname kernel fails the suite (rc $rc): no mutant can be judged; see $OUT/$n/run.log"
		echo "$n (no mutant) passed the suite in $(result_value "$OUT/$n/custom/vm/result.json" seconds.host) s"
		return
	fi
	line=$(python3 "$RESULT" --judge "$OUT/$n" "$n" "$rc" $run "$kname")
	while [[ $line == "$n green"* ]] && [ $run -lt "${runs_of[$n]}" ]; do
		say "mutants: $line: again"
		mv "$OUT/$n/custom/vm" "$OUT/$n/custom/vm.$run"
		mv "$OUT/$n/run.log" "$OUT/$n/run.$run.log"
		run=$((run + 1))
		boot "$n"
		rc=0
		wait "$vm_pid" || rc=$?
		vm_pid=
		line=$(python3 "$RESULT" --judge "$OUT/$n" "$n" "$rc" $run "$kname")
	done
	echo "$line"
}

# mutate K: kernel K's control run, then its mutants, each VM run
# overlapping the next build
mutate()
{
	local n p t0 f why

	use_kernel "$1"
	n=$(printf '%s\n' "${kernel_of[@]}" | grep -cx "$1")
	say "mutants: $1: the control run, no mutant, then $n mutants (logs: $OUT/<name>/)"
	rm -rf "${OUT:?}/$control"
	mkdir -p "$OUT/$control"
	t0=$SECONDS
	kmake "$OUT/$control/build.log" || die "the unmutated $1 kernel does not build; log: $OUT/$control/build.log"
	stage "$control" || die "the suite does not build for the unmutated $1 kernel; log: $OUT/$control/stage.log"
	echo "$((SECONDS - t0))" >"$OUT/$control/build_seconds"
	boot "$control"

	for n in "${names[@]}"; do
		[ "${kernel_of[$n]}" = "$1" ] || continue
		p=$MUTANTS_DIR/$n.patch
		t0=$SECONDS
		rm -rf "${OUT:?}/$n"
		mkdir -p "$OUT/$n"
		for f in $(files "$p"); do
			# out of its hard link to the pristine tree
			cp -p --remove-destination "$pristine/$f" "$src/$f"
			[ "$(stat -c %i "$src/$f")" != "$(stat -c %i "$pristine/$f")" ] ||
				die "$src/$f is still the pristine tree's file"
		done
		echo "$p" >"$work/applied"
		current=$n
		patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p" ||
			die "mutant $n does not apply to $pristine"
		why=
		if [ "${module_of[$n]}" = 1 ]; then
			say "mutants: $n: the module only, on the unmutated kernel"
			# $obj's image is the last kernel mutant's until the next build
			stage "$n" "$OUT/$control/bzImage" ||
				why="the suite does not build for it: $OUT/$n/stage.log"
		elif ! kmake "$OUT/$n/build.log"; then
			why="the kernel does not build: $OUT/$n/build.log"
		elif ! stage "$n"; then
			why="the suite does not build for it: $OUT/$n/stage.log"
		fi
		echo "$((SECONDS - t0))" >"$OUT/$n/build_seconds"
		revert "$p" "${module_of[$n]}"
		current=
		landed
		if [ -z "$why" ]; then
			boot "$n"
		else
			python3 "$RESULT" --broken "$OUT/$n" "$n" "$why" "$kname"
		fi
	done
	landed
}

current=
trap '[ -z "$vm_pid" ] || kill -- -"$vm_pid" 2>/dev/null; [ -z "$current" ] || revert "$MUTANTS_DIR/$current.patch" "${module_of[$current]}"' EXIT
rm -rf "$OUT"/result.json "$OUT"/table.md "$OUT"/control*
for k in "${knames[@]}"; do
	mutate "$k"
done

rc=0
python3 "$RESULT" "$OUT" "$((SECONDS - start))" "${names[@]}" || rc=$?
if [ $# -eq 0 ]; then
	python3 "$RESULT" --readme "$OUT/result.json"
	say "mutants: docs/mutants.md's tables and mutants/result.json made anew from this run"
fi
exit $rc
}
