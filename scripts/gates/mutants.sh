#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutants.sh [NAME...]: build, boot and judge each mutants/NAME.patch (default: all) into
# $BUILD/mutants/; fails if a control run fails or a mutant is green or broken.
. "$(dirname "$0")/../lib.sh"

# one compound command, parsed whole: a run takes hours, and bash reads a script as it goes
{
OUT=$BUILD/mutants
JOBS=${JOBS:-$(nproc)}
# the suite may run to SUITE_TIMEOUT, the boot in the rest
SUITE_TIMEOUT=300
VM_TIMEOUT=${MUTANT_TIMEOUT:-$((SUITE_TIMEOUT + 180))}
RESULT=$TOP/scripts/gates/mutants-result.py

[ -d "$KSRC/tools/testing/selftests/sched_state" ] || die "KSRC=$KSRC: no sched_state: make tree"
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
			die "$src/$f is not pristine after reverting ${1##*/}; remove $work"
		# no kernel object saw a module mutant's file: back with its time, not recompiled
		[ "$2" = 0 ] || ln -f "$pristine/$f" "$src/$f"
	done
	rm -f "$work/applied"
}

# kmake LOG: the incremental build
kmake() { nice -n 10 make -C "$src" O="$obj" -j"$JOBS" "${image##*/}" modules >"$1" 2>&1; }

# stage NAME IMAGE: for NAME's run, the image and the suite built on $obj
stage()
{
	cp "$2" "$OUT/$1/bzImage"
	BUILD=$OUT/$1 KIMAGE=$OUT/$1/bzImage KDIR=$obj KSRC=$KSRC \
		"$TOP/scripts/tree/build-kselftest.sh" >"$OUT/$1/stage.log" 2>&1
}

# boot NAME: NAME's VM run, in the background in its own process group to stop on exit;
# a mutant's runs only its Checks: (-r), the control all
vm_pid='' vm_name=''
boot()
{
	local env=() only=''

	[ "${race_of[$1]:-0}" = 0 ] || env=(--env "SCHED_STATE_RACE_MS=${race_of[$1]}")
	[ "$1" = "$control" ] || only=$(python3 "$RESULT" --args "$1")
	setsid env KARCH=x86_64 "$TOP/scripts/vm/vm.sh" --kimage "$OUT/$1/bzImage" \
		--ksft "$OUT/$1/custom/kselftest" --out "$OUT/$1/custom/vm" \
		--guest-cmd "sh /guest/suite.sh -o $SUITE_TIMEOUT $only" "${env[@]}" \
		--timeout "$VM_TIMEOUT" >"$OUT/$1/run.log" 2>&1 &
	vm_pid=$! vm_name=$1
}

# landed [RUN]: judge the VM run in flight, if any; a green race with runs left boots again
landed()
{
	local n=$vm_name run=${1:-1} rc=0 line

	[ -n "$vm_pid" ] || return 0
	wait "$vm_pid" || rc=$?
	vm_pid=
	if [ "$n" = "$control" ]; then
		[ "$rc" -eq 0 ] || die "$n: the kernel fails the suite (rc $rc): $OUT/$n/run.log"
		echo "$n (no mutant) passed the suite"
		return
	fi
	line=$(python3 "$RESULT" --judge "$OUT/$n" "$n" "$rc" "$run" "$kname")
	echo "$line"
	[[ $line == "$n green"* ]] && [ "$run" -lt "${runs_of[$n]}" ] || return 0
	mv "$OUT/$n/custom/vm" "$OUT/$n/custom/vm.$run"
	mv "$OUT/$n/run.log" "$OUT/$n/run.$run.log"
	boot "$n"
	landed $((run + 1))
}

# per kernel, in a locked copy ($src: pristine tree hard-linked; $obj: its build, paths and
# times kept): its control run, then its mutants, each VM run overlapping the next build
current=
trap '[ -z "$vm_pid" ] || kill -- -"$vm_pid" 2>/dev/null
	[ -z "$current" ] || revert "$TOP/mutants/$current.patch" "${module_of[$current]}"' EXIT
rm -rf "$OUT"/result.json "$OUT"/table.md "$OUT"/control*
for kname in "${knames[@]}"; do
	kdir=$("$TOP/scripts/tree/kernel.sh" "$kname")
	read -r base image < <(. "$kdir/env" && echo "$KDIR ${KIMAGE#"$KDIR"/}")
	work=$CACHE/mutants/$(basename "$kdir")
	src=$work/src
	obj=$work/build
	control=control-$kname
	exec 9>"$work.lock"
	flock -n 9 || { say "mutants: waiting for another run on $work"; flock 9; }
	if [ ! -f "$work/ready" ]; then
		say "mutants: copying the $kname kernel $base and $pristine into $work (once)"
		rm -rf "$work"
		mkdir -p "$work"
		cp -al "$pristine" "$src"
		cp -a "$base" "$obj"
		python3 "$RESULT" --repath "$obj" "$pristine" "$src" "$base" "$obj"
		kmake "$OUT/base.log" ||
			die "the copy of the $kname kernel does not build; log: $OUT/base.log"
		touch "$work/ready"
	elif [ -f "$work/applied" ]; then
		read -r p m <"$work/applied"
		say "mutants: reverting ${p##*/}, left applied by a stopped run"
		revert "$p" "${m:-0}"
	fi

	n=$(printf '%s\n' "${kernel_of[@]}" | grep -cx "$kname")
	say "mutants: $kname: the control run (the whole suite, no mutant), then $n mutants," \
		"each running its Checks: alone (red: all ran and failed; logs: $OUT/<name>/)"
	mkdir -p "$OUT/$control"
	t0=$SECONDS
	# a file once mutated compiles again: a stopped run's object may hold its mutant
	find "$src" -type f -links 1 ! -path '*/.git/*' -exec touch {} +
	kmake "$OUT/$control/build.log" && stage "$control" "$obj/$image" ||
		die "the unmutated $kname kernel or its suite does not build: $OUT/$control/*.log"
	echo "$((SECONDS - t0))" >"$OUT/$control/build_seconds"
	boot "$control"

	for n in "${names[@]}"; do
		[ "${kernel_of[$n]}" = "$kname" ] || continue
		p=$TOP/mutants/$n.patch
		t0=$SECONDS
		rm -rf "${OUT:?}/$n"
		mkdir -p "$OUT/$n"
		for f in $(files "$p"); do
			# out of its hard link to the pristine tree
			cp -p --remove-destination "$pristine/$f" "$src/$f"
			[ ! "$src/$f" -ef "$pristine/$f" ] || die "$src/$f is the pristine file"
		done
		echo "$p ${module_of[$n]}" >"$work/applied"
		current=$n
		patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p" || die "$n does not apply"
		why='' img=$obj/$image
		if [ "${module_of[$n]}" = 1 ]; then
			say "mutants: $n: the module only, on the unmutated kernel"
			img=$OUT/$control/bzImage	# $obj's is the last kernel mutant's
		elif ! kmake "$OUT/$n/build.log"; then
			why="the kernel does not build: $OUT/$n/build.log"
		fi
		if [ -z "$why" ] && [ "${module_of[$n]}" = 0 ] && ! files "$p" | grep -q '\.h$'; then
			# no header changed: the control's suite and module serve as built
			cp "$img" "$OUT/$n/bzImage"
			mkdir -p "$OUT/$n/custom"
			cp -al "$OUT/$control/custom/kselftest" "$OUT/$n/custom/kselftest"
		elif [ -z "$why" ] && ! stage "$n" "$img"; then
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
done

rc=0
python3 "$RESULT" "$OUT" "$SECONDS" "${names[@]}" || rc=$?
[ $# -gt 0 ] || python3 "$RESULT" --readme "$OUT/result.json"
exit $rc
}
