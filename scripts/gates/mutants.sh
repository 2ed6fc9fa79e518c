#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutants.sh [NAME...]: build, boot and judge each mutants/NAME.patch (default: all) into
# $BUILD/mutants/; fails if a control run fails or a mutant is green or broken.
# MUTANT_KERNEL: every mutant on that kernel, not its Kernel: header's.
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
declare -A kernel_of module_of runs_of race_of schema_of
while IFS=$'\t' read -r n k m r ms sc; do
	names+=("$n")
	[ "$k" != - ] || k=$default
	k=${MUTANT_KERNEL:-$k}
	kernel_of[$n]=$k module_of[$n]=$m runs_of[$n]=$r race_of[$n]=$ms
	schema_of[$n]=$sc
done <<<"$plan"
mapfile -t knames < <(printf '%s\n' "${kernel_of[@]}" | sort -u)

pristine=$("$TOP/scripts/tree/mainline.sh")
mkdir -p "$CACHE/mutants" "$OUT"

# files PATCH: the files a patch changes
files() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }

# apply NAME: its patch on $src, its files out of their hard links to the pristine tree
apply()
{
	local p=$TOP/mutants/$1.patch f

	for f in $(files "$p"); do
		[ ! "$src/$f" -ef "$pristine/$f" ] || cp -p --remove-destination "$pristine/$f" "$src/$f"
	done
	echo "$p" >>"$work/applied"
	patch -d "$src" -p1 -s --no-backup-if-mismatch <"$p" || die "$1 does not apply"
}

# undo: the patches in $work/applied reverted, the last first, to the pristine content, or fail
undo()
{
	local ps i p f

	mapfile -t ps <"$work/applied"
	for ((i = ${#ps[@]} - 1; i >= 0; i--)); do
		patch -d "$src" -p1 -R -s --no-backup-if-mismatch <"${ps[i]}" ||
			die "mutant ${ps[i]##*/} did not revert in $src; remove $work to start again"
	done
	for p in "${ps[@]}"; do
		for f in $(files "$p"); do
			cmp -s "$pristine/$f" "$src/$f" ||
				die "$src/$f is not pristine after reverting ${p##*/}; remove $work"
			# no kernel object saw a module mutant's file: back with its time, not recompiled
			! grep -q '^Build: module' "$p" || ln -f "$pristine/$f" "$src/$f"
		done
	done
	rm -f "$work/applied"
}

# kmake LOG: the incremental build (a cross kernel's with its arch's ARCH and CROSS_COMPILE)
kmake()
{
	nice -n 10 make -C "$src" O="$obj" -j"$JOBS" ${A_CROSS:+ARCH="$A_KARCH" CROSS_COMPILE="$A_CROSS"} \
		"${image##*/}" modules >"$1" 2>&1
}

# stage NAME IMAGE: for NAME's run, the image and the suite built on $obj
stage()
{
	cp "$2" "$OUT/$1/bzImage"
	BUILD=$OUT/$1 ARCH=$karch KIMAGE=$OUT/$1/bzImage KDIR=$obj KSRC=$KSRC \
		"$TOP/scripts/tree/build-kselftest.sh" >"$OUT/$1/stage.log" 2>&1
}

# served NAME: a mutant's run, on the control's suite and module, of the kernel built last
served()
{
	mkdir -p "$OUT/$1/custom"
	cp "$obj/$image" "$OUT/$1/bzImage"
	cp -al "$OUT/$control/custom/kselftest" "$OUT/$1/custom/kselftest"
}

# boot NAME: NAME's VM run, in the background in its own process group; a mutant's runs
# only its Checks: (-r), with its boot token on the command line, the control all
vm_pid='' vm_name=''
boot()
{
	local env=() only='' token=''

	[ "${race_of[$1]:-0}" = 0 ] || env=(--env "SCHED_STATE_RACE_MS=${race_of[$1]}")
	[ "$1" = "$control" ] || only=$(python3 "$RESULT" --args "$1") token=sched_state_mutant=$1
	setsid "$TOP/scripts/vm/vm.sh" --arch "$karch" --kimage "$OUT/$1/bzImage" \
		--ksft "$OUT/$1/custom/kselftest" --out "$OUT/$1/custom/vm" --append "$token" \
		--guest-cmd "sh /guest/suite.sh -o $SUITE_TIMEOUT $only" "${env[@]}" \
		--timeout "$VM_TIMEOUT" </dev/null >"$OUT/$1/run.log" 2>&1 &
	vm_pid=$! vm_name=$1
}

# landed [RUN]: judge the VM run in flight; a green race with runs left boots again
landed()
{
	local n=$vm_name run=${1:-1} rc=0 line

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

# runner: boots and judges the names it reads, one guest at a time, beside the builds
runner()
{
	trap '[ -z "$vm_pid" ] || kill -- -"$vm_pid" 2>/dev/null; exit 1' TERM
	while read -r n; do
		boot "$n"
		landed
	done
}

# ready NAME [WHY]: NAME to the runner, or broken for WHY
ready()
{
	if [ -z "${2:-}" ]; then
		echo "$1" >&7
	else
		python3 "$RESULT" --broken "$OUT/$1" "$1" "$2" "$kname"
	fi
}

# per kernel, in a locked copy ($src: pristine tree hard-linked; $obj: its build, paths and
# times kept): the control run, the mutants guarded by their boot token built into one kernel
# (a schema), then each other mutant built alone, while the runner boots what is built
runner_pid=''
trap '[ -z "$runner_pid" ] || kill "$runner_pid" 2>/dev/null
	[ ! -f "${work:-}/applied" ] || undo' EXIT
rm -rf "$OUT"/result.json "$OUT"/table.md "$OUT"/control* "$OUT"/schema-*
for kname in "${knames[@]}"; do
	kdir=$("$TOP/scripts/tree/kernel.sh" "$kname")
	read -r base image karch < <(. "$kdir/env" && echo "$KDIR ${KIMAGE#"$KDIR"/} $KARCH")
	arch_set "$karch"
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
		say "mutants: reverting what a stopped run left applied: $(tr "\n" " " <"$work/applied")"
		undo
	fi

	schema=() alone=()
	for n in "${names[@]}"; do
		[ "${kernel_of[$n]}" = "$kname" ] || continue
		if [ "${schema_of[$n]}" = 1 ]; then schema+=("$n"); else alone+=("$n"); fi
	done
	say "mutants: $kname: the control run (the whole suite, no mutant), ${#schema[@]} mutants" \
		"in one kernel, ${#alone[@]} alone, each running its Checks: alone" \
		"(red: all ran and failed; logs: $OUT/<name>/)"
	mkdir -p "$OUT/$control"
	t0=$SECONDS
	# a file once mutated compiles again: a stopped run's object may hold its mutant
	find "$src" -type f -links 1 ! -path '*/.git/*' -exec touch {} +
	kmake "$OUT/$control/build.log" && stage "$control" "$obj/$image" ||
		die "the unmutated $kname kernel or its suite does not build: $OUT/$control/*.log"
	echo "$((SECONDS - t0))" >"$OUT/$control/build_seconds"
	exec 7> >(runner)
	runner_pid=$!
	ready "$control"

	if [ ${#schema[@]} -gt 0 ]; then
		t0=$SECONDS why=''
		mkdir -p "$OUT/schema-$kname"
		for n in "${schema[@]}"; do
			apply "$n"
		done
		kmake "$OUT/schema-$kname/build.log" ||
			why="the kernel of the schema does not build: $OUT/schema-$kname/build.log"
		for n in "${schema[@]}"; do
			rm -rf "${OUT:?}/$n"
			mkdir -p "$OUT/$n"
			[ -n "$why" ] || served "$n"
			echo "$(((SECONDS - t0) / ${#schema[@]}))" >"$OUT/$n/build_seconds"
		done
		undo
		for n in "${schema[@]}"; do
			ready "$n" "$why"
		done
	fi

	for n in "${alone[@]}"; do
		p=$TOP/mutants/$n.patch
		t0=$SECONDS why=''
		rm -rf "${OUT:?}/$n"
		mkdir -p "$OUT/$n"
		apply "$n"
		if [ "${module_of[$n]}" = 1 ]; then
			say "mutants: $n: the module only, on the unmutated kernel"
			stage "$n" "$OUT/$control/bzImage" ||
				why="the suite does not build for it: $OUT/$n/stage.log"
		elif ! kmake "$OUT/$n/build.log"; then
			why="the kernel does not build: $OUT/$n/build.log"
		elif files "$p" | grep -q '\.h$'; then
			stage "$n" "$obj/$image" || why="the suite does not build for it: $OUT/$n/stage.log"
		else
			served "$n"
		fi
		echo "$((SECONDS - t0))" >"$OUT/$n/build_seconds"
		undo
		ready "$n" "$why"
	done
	exec 7>&-
	wait "$runner_pid" || die "the runner stopped (above); logs: $OUT/<name>/run.log"
	runner_pid=
done

rc=0
python3 "$RESULT" "$OUT" "$SECONDS" "${names[@]}" || rc=$?
[ $# -gt 0 ] || python3 "$RESULT" --readme "$OUT/result.json"
exit $rc
}
