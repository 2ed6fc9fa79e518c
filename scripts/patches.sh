#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The overlay as an upstream series: git format-patch against the pristine
# mainline tree, a cover letter and four patches, in $BUILD/patches/.
#
#   scripts/patches.sh           generate the series
#   scripts/patches.sh --check   generate it, then git am it patch by patch
#                                on a copy of the pristine tree; each step
#                                must build (the selftests dir, and the
#                                module against KDIR), pass the tree's
#                                checkpatch.pl --strict, add no warning to
#                                the scheduler book's docs build, and reach
#                                the SCHEDULER maintainers through
#                                get_maintainer.pl where it touches their files
#   scripts/patches.sh --check-only   the same checks on build/patches/ as it
#                                is (after a hand edit, say), without
#                                generating it again
#
# The series:
#   1. the selftest, its module, wrapper, config, settings, faults.txt, and
#      the MAINTAINERS F: line for the new directory
#   2. the two benchmarks (the module's bench request, set_state_bench,
#      unlink_bench); patch 1 gets the Makefile, .gitignore, sched_state.h
#      and module without them, cut out here
#   3. sched_state in the default TARGETS (patches/selftests-Makefile-...)
#   4. Documentation/scheduler/sched-state.rst, its toctree entry and its
#      MAINTAINERS F: line
#
# What goes in: the overlay as committed (HEAD), so that work in progress in
# the working tree stays out; a file HEAD does not have yet (the page, until
# it is committed) comes from the working tree.  Every committed overlay file
# must belong to a patch below, or the script stops.
#
# Knobs: PATCHES_SIGNOFF="Name <email>" signs off (and authors) the series;
# otherwise the author is this repository's git identity, and a sign-off is
# added only if that identity is a real address.  PATCHES_BASE: the pristine
# tree (default: scripts/mainline.sh's); if it is a git work tree, the cover
# letter carries its HEAD as base-commit:, else its version.  KDIR: the
# kernel build tree the check builds the module against (none: the module
# is not built, and the check says so).  $BUILD/matrix.txt, if there, is the
# last matrix run the cover letter reports, one line per kernel:
# "<name> <kernel release> <pass> pass <skip> skip <fail> fail".
. "$(dirname "$0")/lib.sh"

check=0
generate=1
case ${1:-} in
--check) check=1 ;;
--check-only) check=1; generate=0 ;;
"") ;;
*) die "usage: $0 [--check|--check-only]" ;;
esac

OUT=$BUILD/patches
SRC=$BUILD/patches-src		# the overlay files the series is made of
GEN=$BUILD/patches-gen		# small repo: only the files the series touches
PTREE=$BUILD/patches-tree	# pristine tree the --check mode applies to
SEL=tools/testing/selftests
ST=$SEL/sched_state
PAGE=Documentation/scheduler/sched-state.rst
INDEX=Documentation/scheduler/index.rst
SEL_PATCH=$TOP/patches/selftests-Makefile-add-sched_state.patch
DOC_PATCH=$TOP/patches/docs-scheduler-index-add-sched-state.patch
MNT_PATCH=$TOP/MAINTAINERS.patch
# The pristine files the series changes; everything else it adds.
TOUCHED="MAINTAINERS $SEL/Makefile $INDEX"

for f in "$SEL_PATCH" "$DOC_PATCH" "$MNT_PATCH" "$TOP/$PAGE"; do
	[ -f "$f" ] || die "missing ${f#"$TOP"/}"
done

# --- the base ---------------------------------------------------------------
BASE=${PATCHES_BASE:-$("$TOP/scripts/mainline.sh")} || die "no pristine tree (scripts/mainline.sh)"
[ -f "$BASE/MAINTAINERS" ] || die "PATCHES_BASE=$BASE is not a kernel tree"
BASE_VER=v$(make -s -C "$BASE" kernelversion | sed 's/^\([0-9]*\.[0-9]*\)\.0/\1/')
if [ "$(git -C "$BASE" rev-parse --show-toplevel 2>/dev/null)" = "$BASE" ]; then
	# shellcheck disable=SC2086 # one word per path
	git -C "$BASE" diff --quiet HEAD -- $TOUCHED || die "$BASE: $TOUCHED differ from its HEAD"
	BASE_LINE="base-commit: $(git -C "$BASE" rev-parse HEAD)"
	BASE_DESC="$BASE_VER, $BASE_LINE"
else
	# scripts/mainline.sh records the Debian package it unpacked
	deb=$(cat "$(dirname "$BASE")/done" 2>/dev/null || true)
	BASE_LINE="Applies to: $BASE_VER${deb:+ (Debian $deb)}"
	BASE_DESC="$BASE_VER${deb:+ (Debian $deb)} in $BASE"
fi

# --- identity ---------------------------------------------------------------
# A placeholder identity (noreply, .example, .invalid, localhost) authors the
# commits but signs nothing off: a Signed-off-by certifies the DCO, which
# only a real person can.
if [ -n "${PATCHES_SIGNOFF:-}" ]; then
	ident=$PATCHES_SIGNOFF
	signoff=1
else
	ident="$(git -C "$TOP" config user.name || true) <$(git -C "$TOP" config user.email || true)>"
	signoff=1
	case $ident in
	*noreply*|*.example\>|*.invalid\>|*.test\>|*localhost*|" <>"|*"<>") signoff=0 ;;
	esac
fi
name=${ident% <*}
email=${ident##*<}
email=${email%>}
if [ -z "$name" ] || [ -z "$email" ]; then
	die "no git identity: set PATCHES_SIGNOFF=\"Name <email>\""
fi
# Fixed dates keep the series byte-identical from run to run.
date=$(git -C "$TOP" log -1 --format=%cI)
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date

g()
{
	git -C "$GEN" -c core.autocrlf=false -c commit.gpgsign=false "$@"
}

# commit SUBJECT BODY: commit everything staged, kernel style.
commit()
{
	local msg

	msg=$(printf '%s\n\n%s\n' "$1" "$2")
	[ "$signoff" -eq 1 ] && msg=$(printf '%s\n\nSigned-off-by: %s <%s>\n' "$msg" "$name" "$email")
	g add -A
	g commit -q --no-verify -m "$msg"
}

# --- what the series is made of ---------------------------------------------
# The files of patches 1, 2 and 4 (2 also changes four of 1's).
P1_FILES="config settings faults.txt sched_state.sh sched_state_user.h sched_state_test.c test_module/Makefile sched_state_fuzz.c sched_state_lifecycle.sh"
P2_FILES=".gitignore Makefile sched_state.h test_module/test_sched_state.c set_state_bench.c unlink_bench.c"

# stage: copy each overlay file of the series into $SRC, from HEAD if HEAD
# has it, else from the working tree; list what is left out.
stage()
{
	local f mode left=

	rm -rf "$SRC"
	for f in $(for p in $P1_FILES $P2_FILES; do echo "$ST/$p"; done) "$PAGE"; do
		mkdir -p "$(dirname "$SRC/$f")"
		mode=$(git -C "$TOP" ls-tree HEAD -- "$f" | cut -d' ' -f1)
		if [ -n "$mode" ]; then
			git -C "$TOP" show "HEAD:$f" >"$SRC/$f"
			if [ "$mode" = 100755 ]; then
				chmod +x "$SRC/$f"
			fi
		else
			[ -f "$TOP/$f" ] || die "$f: neither in HEAD nor in the working tree"
			cp -p "$TOP/$f" "$SRC/$f"
		fi
	done
	for f in $(git -C "$TOP" ls-tree -r --name-only HEAD -- tools Documentation); do
		[ -f "$SRC/$f" ] || die "$f is committed but in no patch: add it to scripts/patches.sh"
	done
	for f in $(cd "$TOP" && git ls-files -co --exclude-standard -- tools Documentation); do
		if [ ! -f "$SRC/$f" ]; then
			left="$left $f"
		elif ! cmp -s "$TOP/$f" "$SRC/$f"; then
			left="$left $f(uncommitted changes)"
		fi
	done
	[ -z "$left" ] || say "patches: not in the series (not committed):$left"
}

# --- the intermediate files of patch 1 ---------------------------------------
# Cut the benchmarks out of four overlay files.  Each cut is a regular
# expression that must match exactly once, and no "bench" may be left, so
# that a change to those files stops the script instead of producing a
# wrong patch; the cuts tolerate rewording and reflowing around them.
cut_benchmarks()
{
	python3 - "$SRC/$ST" "$GEN/$ST" <<'EOF'
import re
import sys

CUTS = {
    "Makefile": [r"TEST_GEN_PROGS_EXTENDED \+= unlink_bench set_state_bench\n",
                 r"LDLIBS \+= -lpthread -lm\n"],
    ".gitignore": [r"^unlink_bench\n", r"^set_state_bench\n"],
    "sched_state.h": [r"^ \*   bench <calls>.*?(?=^ \*\n \* A malformed request)",
                      r"; a bench CPU .*?-E2BIG(?=\.)"],
    "test_module/test_sched_state.c": [
        r"^/\*\n \* bench <calls> <repeats> <cpu\|all>:.*?(?=^static const struct \{\n\tconst char \*verb;)",
        r'^\t\{ "bench",\s+4, cmd_bench \},\n'],
}
for name, cuts in CUTS.items():
    with open("%s/%s" % (sys.argv[1], name)) as f:
        text = f.read()
    for cut in cuts:
        text, n = re.subn(cut, "", text, flags=re.S | re.M)
        if n != 1:
            sys.exit("patches.sh: %s: %r matched %d times, want 1" % (name, cut, n))
    if "bench" in text:
        sys.exit("patches.sh: %s still mentions bench after the cut" % name)
    with open("%s/%s" % (sys.argv[2], name), "w") as f:
        f.write(text)
EOF
}

# --- messages -------------------------------------------------------------------
SUBJ1="selftests/sched_state: add a task-state selftest and its test module"
BODY1=$(cat <<'EOF'
set_current_state() and the task states carry rules that live only in
comments: which wakeups and signals end a sleep in each state, what /proc
reports for it, which sleepers count in the load average and are watched
by the hung-task detector, and that the full barrier in
set_current_state() keeps a waker from missing the sleeper.  No test
checks them, so a change to the state bits, to their reporting or to the
wakeup paths can break them unnoticed.

Add tools/testing/selftests/sched_state/:

- sched_state_test, on kselftest_harness.h, one test per rule under a
  stable name (fixture.variant.test): the state letters and raw bits of
  user tasks (busy, pipe read, SIGSTOP, ptrace stop, zombie) and of
  kthreads asleep in each state; which wakeups reach them; signals and
  SIGKILL against a sleep in each state; the load average; the hung-task
  detector; the lost-wakeup race with and without the barrier; and, on
  PREEMPT_RT, the wakeup an rtlock waiter keeps in saved_state;
- test_sched_state.ko, a test module driven through one root-only
  debugfs file (its protocol is in sched_state.h), which puts kthreads
  or the caller to sleep in a named state and reads raw state bits;
- sched_state.sh, which loads the module, runs the harness and always
  unloads it; it skips (4) without root, and without modules, debugfs
  or the module it still runs the harness, whose module-backed tests
  then skip with that reason;
- sched_state_fuzz and sched_state_lifecycle.sh, not run by default:
  10,000 hostile inputs per debugfs file, each expected to fail with the
  errno a model of the parser predicts; 100 load/unload cycles with
  sleepers, rmmod refused while a request is in flight, 50 clients
  SIGKILLed at random points, parallel writers.

The module's fault= parameter breaks one semantic on purpose, and
faults.txt lists the checks each fault must turn into failures, so that
every module-backed check is shown able to fail.

lib.mk builds the module (TEST_GEN_MODS_DIR) against KDIR, a kernel
build tree made in place or with O=.  Without one the programs still
build and the module-backed tests skip, saying why.

The rules checked are the scheduler's: add the directory to the
SCHEDULER entry of MAINTAINERS.
EOF
)
SUBJ2="selftests/sched_state: add the set_current_state() and unlink1 benchmarks"
BODY2=$(cat <<'EOF'
In v4.11, "sched/core: Remove set_task_state()" (642fa448ae) argued from
two measurements that cannot be repeated from the tree: some 65 million
calls of set_task_state(current, ..) against set_current_state(), and
will-it-scale's unlink1 under mmtests.  Add both, built beside the suite
but never run by it:

- the module's bench request: a kthread bound to one CPU times N calls
  of each of the removed set_task_state() (smp_store_mb() through a task
  pointer), set_current_state(), __set_current_state(),
  smp_store_release(), WRITE_ONCE() + smp_mb() and an empty loop, the
  variants taking turns, with preemption disabled for chunks of about
  10 ms at most so that neither the soft-lockup detector nor RCU
  complains;
- set_state_bench drives it and prints the commit's "Avg runtime" lines
  and the min, median, mean and stddev of ns per call;
- unlink_bench is will-it-scale's unlink1, with unlink2 as its control,
  over mmtests' task ladder, printing Min, Hmean, Stddev, CoeffVar and
  Max as mmtests does.

Both exit 0 once a run completes, 1 on an error and 4 when they cannot
run.
EOF
)
SUBJ3=$(sed -n 1p "$SEL_PATCH")
BODY3=$(awk 'NR > 2 && /^--- /{exit} NR > 2' "$SEL_PATCH" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
SUBJ4="docs: scheduler: document the sched_state selftest"
BODY4=$(cat <<'EOF'
Describe what the suite checks and why, how to build and run it, what a
failure of each test means, the fault injection, the benchmarks and how
to read their output, the test module's threat model, and which kernel
interfaces it needs since which release.  Link the page from the
scheduler index and add it to the SCHEDULER entry of MAINTAINERS.
EOF
)
COVER=$(cat <<'EOF'
selftests: add sched_state, a selftest for task states and wakeups

This series adds tools/testing/selftests/sched_state/, a kselftest for
what set_current_state() and the task states promise: which state letter
and bits a sleeping task reports, which wakeups and signals end its
sleep, whether it counts in the load average and is watched by the
hung-task detector, and that set_current_state()'s barrier keeps
wakeups from being lost.  Those rules are written down only as comments
in include/linux/sched.h, kernel/sched/core.c, kernel/hung_task.c and
fs/proc/array.c, and nothing tests them.

Each rule is one test with a stable name, in KTAP.  A companion test
module puts kthreads or the caller to sleep in a named state through one
root-only debugfs file; a wrapper loads it, runs the harness and always
unloads it.  Loading the module with fault=<name> breaks one semantic on
purpose: every module-backed check is shown to fail when the semantic it
guards breaks.  Two benchmarks repeat the measurements of "sched/core:
Remove set_task_state()".

Why a new directory rather than tools/testing/selftests/sched/: in this
tree sched/ holds a single, unrelated test, cs_prctl_test, which checks
the core-scheduling cookie prctl() (PR_SCHED_CORE), and sched is not in
the default TARGETS of tools/testing/selftests/Makefile, so nothing
there runs under "make kselftest".  This suite brings a kernel module
with its own KDIR handling, a wrapper that loads and unloads it, and a
different config fragment (DEBUG_FS, MODULES, MODULE_UNLOAD rather than
SCHED_DEBUG); folding it into sched/ would tie cs_prctl_test to a
module build and a module-loading wrapper it does not need, and would
still leave both out of the default run.  If the maintainers prefer
sched/state/, or sched/ itself added to TARGETS, the suite moves as is.

Documentation/scheduler/sched-state.rst lists the kernel interfaces used
and the releases they need.
EOF
)

# The last matrix run, as $BUILD/matrix.txt records it.
matrix()
{
	local f=$BUILD/matrix.txt re='^[^ ]+ [^ ]+ [0-9]+ pass [0-9]+ skip [0-9]+ fail( \(.*\))?$'

	if [ ! -s "$f" ]; then
		echo "Test results: no matrix run recorded."
		return
	fi
	grep -v '^$' "$f" | grep -vqE "$re" && die "$f: a line is not '$re'"
	echo "Tested: the suite's last run under QEMU, one kernel per line:"
	echo
	grep -v '^$' "$f" | awk '{ r = ""; for (i = 9; i <= NF; i++) r = r " " $i
		printf "  %-12s %-28s %4d pass %4d skip %4d fail%s\n", $1, $2, $3, $5, $7, r }'
}

# --- generate -------------------------------------------------------------------
# The pristine versions of the files the series changes, from BASE.
pristine_files()
{
	local f

	for f in $TOUCHED; do
		mkdir -p "$(dirname "$1/$f")"
		cp -p "$BASE/$f" "$1/$f"
	done
}

generate()
{
	local f tested start=$SECONDS

	say "patches: building the series in ${GEN#"$TOP"/}"
	stage
	rm -rf "$GEN" "$OUT"
	mkdir -p "$GEN" "$OUT"
	pristine_files "$GEN"
	g init -q -b sched_state
	commit "base: the files of $BASE_VER this series changes" "From $BASE_DESC."
	g tag base

	# 1: the suite without the benchmarks, and its MAINTAINERS line.
	mkdir -p "$GEN/$ST/test_module"
	for f in $P1_FILES; do
		cp -p "$SRC/$ST/$f" "$GEN/$ST/$f"
	done
	cut_benchmarks || exit 2
	patch -d "$GEN" -p1 -s <"$MNT_PATCH" || die "MAINTAINERS.patch does not apply"
	grep -q "^F:	$PAGE$" "$GEN/MAINTAINERS" || die "MAINTAINERS.patch lacks $PAGE"
	sed -i "\\|^F:	$PAGE$|d" "$GEN/MAINTAINERS"
	commit "$SUBJ1" "$BODY1"

	# 2: the benchmarks: the overlay's own files.
	for f in $P2_FILES; do
		cp -p "$SRC/$ST/$f" "$GEN/$ST/$f"
	done
	commit "$SUBJ2" "$BODY2"

	# 3: the default TARGETS.
	patch -d "$GEN" -p1 -s <"$SEL_PATCH" || die "${SEL_PATCH#"$TOP"/} does not apply"
	commit "$SUBJ3" "$BODY3"

	# 4: the documentation, its toctree entry and its MAINTAINERS line.
	cp -p "$SRC/$PAGE" "$GEN/$PAGE"
	patch -d "$GEN" -p1 -s <"$DOC_PATCH" || die "${DOC_PATCH#"$TOP"/} does not apply"
	g show base:MAINTAINERS >"$GEN/MAINTAINERS"
	patch -d "$GEN" -p1 -s <"$MNT_PATCH"
	commit "$SUBJ4" "$BODY4"

	# The series must end exactly where the staged overlay is.
	for f in $(cd "$SRC" && find . -type f | sed 's|^\./||'); do
		cmp -s "$SRC/$f" "$GEN/$f" || die "the series ends with $f unlike the overlay's"
	done
	[ "$(g ls-files -- "$ST" "$PAGE" | wc -l)" -eq "$(find "$SRC" -type f | wc -l)" ] ||
		die "the series adds files the overlay lacks"

	tested=$(matrix) || exit 2
	g config branch.sched_state.description "$(printf '%s\n\n%s\n\n%s\n' "$COVER" "$tested" "$BASE_LINE")"
	g -c core.abbrev=12 format-patch -q --cover-letter \
		--cover-from-description=subject -o "$OUT" base..HEAD
	echo "patches: $(ls "$OUT" | wc -l) files in $OUT ($((SECONDS - start)) s)," \
		"signed off: $([ "$signoff" -eq 1 ] && echo "$name <$email>" ||
			echo "no ($ident is not a real address; set PATCHES_SIGNOFF)")"
	ls "$OUT" | sed 's/^/    /'
}

if [ "$generate" -eq 1 ]; then
	generate
else
	stage
	ls "$OUT"/0001-*.patch >/dev/null 2>&1 || die "no series in $OUT: run $0 first"
fi
[ "$check" -eq 1 ] || exit 0

# --- check ----------------------------------------------------------------------
# A hard-linked copy of BASE whose git tracks only the files the series
# changes, and LICENSES/ (checkpatch's scripts/spdxcheck.py reads it from
# HEAD): git am applies the series exactly as on a full repository (it
# reads and writes only the files a patch names, and writes new files, never
# through a link), without hashing 1.5 GB for a base commit.
pt()
{
	git -C "$PTREE" -c core.autocrlf=false -c commit.gpgsign=false "$@"
}

pristine_tree()
{
	local f e mark="$BASE, tracking $TOUCHED LICENSES"

	if [ "$(cat "$PTREE/.pristine" 2>/dev/null)" != "$mark" ]; then
		say "patches: copying $BASE into ${PTREE#"$TOP"/} (once)"
		rm -rf "$PTREE"
		mkdir -p "$PTREE"
		for e in "$BASE"/* "$BASE"/.[!.]*; do
			[ -e "$e" ] && [ "${e##*/}" != .git ] && cp -al "$e" "$PTREE/"
		done
		git init -q -b series "$PTREE"
		# shellcheck disable=SC2086
		pt add -f -- $TOUCHED LICENSES
		pt commit -q --no-verify -m "base: the files of $BASE_VER this series changes"
		pt tag base
		say "patches: installing the uapi headers in ${PTREE#"$TOP"/} (once)"
		make -s -C "$PTREE" headers >/dev/null || die "make headers failed in $PTREE"
		echo "$mark" >"$PTREE/.pristine"
	fi
	# Back to pristine: the tracked files at base, nothing the series adds,
	# no build products in the suite's directory.
	pt am --abort >/dev/null 2>&1 || true
	pt checkout -q -f --detach base
	rm -rf "${PTREE:?}/$ST" "${PTREE:?}/$PAGE"
	for f in $TOUCHED; do
		pt diff --quiet base -- "$f" || die "$PTREE/$f is not pristine"
	done
	"$TOP/scripts/docs.sh" --warnings "$PTREE" "$BUILD/patches-check/base.warnings" \
		>"$BUILD/patches-check/base.log" 2>&1 ||
		{ cat "$BUILD/patches-check/base.log"; die "the base's docs build failed"; }
	echo "patches --check: the base's scheduler book: $(wc -l <"$BUILD/patches-check/base.warnings") warning(s)"
}

# check_build LOG: build the selftests dir as a user of this tree would,
# the module against KDIR if one is given.
check_build()
{
	local log=$1 f ko

	[ -d "$PTREE/$ST" ] || { echo "  build: no $ST yet, nothing to build"; return 0; }
	pt clean -fdxq -- "$ST"		# from scratch: no product of the last step
	if ! make -C "$PTREE/$SEL" TARGETS=sched_state KDIR="${KDIR:-/nonexistent}" >"$log" 2>&1; then
		tail -n 30 "$log"
		echo "  build: FAILED (log: $log)"
		return 1
	fi
	if grep -E "warning:|WARNING:|error:" "$log"; then
		echo "  build: warnings (log: $log)"
		return 1
	fi
	[ -x "$PTREE/$ST/sched_state_test" ] || { echo "  build: no sched_state_test"; return 1; }
	if [ -n "${KDIR:-}" ]; then
		ko=$(cd "$PTREE/$ST" && ls test_module/test_sched_state.ko test_sched_state.ko 2>/dev/null | head -n 1)
		[ -n "$ko" ] || { echo "  build: no test_sched_state.ko"; return 1; }
	else
		ko="no module (KDIR not set: pass KDIR=<kernel build tree> to build it)"
	fi
	echo "  build: make -C $SEL TARGETS=sched_state KDIR=${KDIR:-/nonexistent}: ok," \
		"$(cd "$PTREE/$ST" && ls sched_state_test sched_state_fuzz unlink_bench set_state_bench 2>/dev/null |
			tr '\n' ' ')$ko"
}

# check_docs P: the scheduler book builds with no warning the base lacks.
check_docs()
{
	local w new

	w=$BUILD/patches-check/$(basename "$1" .patch).warnings
	"$TOP/scripts/docs.sh" --warnings "$PTREE" "$w" >"$w.log" 2>&1 ||
		{ cat "$w.log"; echo "  docs: FAILED"; return 1; }
	new=$(comm -23 "$w" "$BUILD/patches-check/base.warnings")
	[ -z "$new" ] || { echo "$new"; echo "  docs: new warning(s)"; return 1; }
	echo "  docs: $(wc -l <"$w") warning(s), none new ($(head -n 1 "$w.log" | sed 's/.*(//')"
}

# check_maintainers P: every file P adds is covered by the SCHEDULER entry
# of MAINTAINERS as it stands once P is in.  This is the answer to
# checkpatch's "does MAINTAINERS need updating?", asked of any patch that
# adds files without touching MAINTAINERS.
check_maintainers()
{
	local f out bad=0

	for f in $(awk '/^diff --git / { f = substr($4, 3) } /^new file mode/ { print f }' "$1"); do
		out=$(cd "$PTREE" && perl scripts/get_maintainer.pl --nogit \
			--nogit-fallback -f "$f" 2>&1)
		if ! printf '%s\n' "$out" | grep -q "(maintainer:SCHEDULER)"; then
			printf '  maintainers: %s is not in SCHEDULER:\n%s\n' "$f" "$out"
			bad=1
		fi
	done
	# Whom the patch goes to; SCHEDULER wherever it touches their files.
	out=$(cd "$PTREE" && perl scripts/get_maintainer.pl --nogit --nogit-fallback "$1" 2>&1)
	if grep -q "(maintainer:SCHEDULER)" <<<"$out"; then
		:
	elif grep -qE "^\+\+\+ b/($ST/|$PAGE)" "$1"; then
		printf '  maintainers: the patch does not reach SCHEDULER:\n%s\n' "$out"
		bad=1
	else
		echo "  maintainers: touches no SCHEDULER file"
	fi
	echo "  maintainers: $(grep "(maintainer:" <<<"$out" | sed 's/ <[^>]*>//' | paste -sd, | sed 's/,/, /g')"
	return "$bad"
}

check_patch()
{
	local p=$1 log out adds maint ignore=() flags=(--strict)

	log=$BUILD/patches-check/$(basename "$p" .patch)
	mkdir -p "$(dirname "$log")"
	if ! pt am -q "$p" >"$log.am" 2>&1; then
		cat "$log.am"
		echo "  git am: FAILED"
		return 1
	fi
	echo "  git am: applied on $(pt log -1 --format=%h HEAD~1)"
	check_build "$log.build" || return 1
	check_docs "$p" || return 1
	check_maintainers "$p" || return 1
	adds=$(grep -c "^new file mode" "$p" || true)
	maint=$(grep -c "^ MAINTAINERS *|" "$p" || true)
	if [ "$adds" -gt 0 ] && [ "$maint" -eq 0 ]; then
		# answered by check_maintainers above
		ignore=(--ignore FILE_PATH_CHANGES)
	fi
	# Unsigned patches are checked as such: see "identity" above.
	grep -q "^Signed-off-by: " "$p" || flags+=(--no-signoff)
	out=$(cd "$PTREE" && perl scripts/checkpatch.pl "${flags[@]}" "${ignore[@]}" \
		--show-types "$p" 2>&1)
	if ! printf '%s\n' "$out" | grep -q "^total: 0 errors, 0 warnings, 0 checks"; then
		printf '%s\n' "$out"
		echo "  checkpatch: FAILED"
		return 1
	fi
	# In a git tree it checks SPDX tags with scripts/spdxcheck.py, which
	# needs python3-ply and python3-git; failing, it passes them unchecked.
	if grep -q "^Traceback" <<<"$out"; then
		printf '%s\n' "$out" | grep -m 1 -A3 "^Traceback"
		echo "  checkpatch: scripts/spdxcheck.py failed (python3-ply, python3-git installed?)"
		return 1
	fi
	echo "  checkpatch ${flags[*]}${ignore:+ ${ignore[*]}}:" \
		"$(printf '%s\n' "$out" | grep "^total:")"
}

# The series, applied, is the overlay and our patches over the pristine tree.
check_final()
{
	local f

	for f in $(cd "$SRC" && find . -type f | sed 's|^\./||') $TOUCHED; do
		if [ -f "$SRC/$f" ]; then
			cmp -s "$SRC/$f" "$PTREE/$f" || { echo "  $f differs from the overlay"; return 1; }
		else
			cmp -s "$GEN/$f" "$PTREE/$f" || { echo "  $f differs from the generated tree"; return 1; }
		fi
	done
	echo "  the applied series equals the overlay, MAINTAINERS.patch and patches/*.patch"
}

start=$SECONDS
mkdir -p "$BUILD/patches-check"
if [ -n "${KDIR:-}" ]; then
	[ -f "$KDIR/Module.symvers" ] || die "KDIR=$KDIR: not a kernel build tree (no Module.symvers)"
	touch "$BUILD/patches-check/kdir.stamp"	# nothing in KDIR may be newer
	echo "patches --check: the module against KDIR=$KDIR"
else
	echo "patches --check: KDIR not set, the module is not built (pass KDIR=<kernel build tree>)"
fi
echo "patches --check: on $BASE_DESC"
pristine_tree
for p in "$OUT"/0*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	gate "$(basename "$p")" check_patch "$p" || true
	[ "$failed" -eq 0 ] || break	# the next patch needs this one
done
[ "$failed" -eq 0 ] && gate "the applied series is the overlay" check_final
if [ -n "${KDIR:-}" ] && [ -n "$(find "$KDIR" -newer "$BUILD/patches-check/kdir.stamp" | head)" ]; then
	echo "FAIL: the builds wrote into KDIR=$KDIR:"
	find "$KDIR" -newer "$BUILD/patches-check/kdir.stamp" | head
	failed=$((failed + 1))
	failures+=("KDIR unchanged")
fi
echo "patches --check: $((SECONDS - start)) s"
gates "patches --check"
