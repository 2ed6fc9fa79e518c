#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The overlay as an upstream series against the pristine mainline tree, in
# $BUILD/patches/.  --check then git-ams it patch by patch onto a copy of
# that tree; each step must pass what its "check" says (below), add no
# docs warning (scripts/gates/docs.sh) and pass checkpatch.pl --strict.
#
# patches/series/<n>-<name>/ is patch n: "message" (a patch file serves: from
# its first "--- a/" on, it is ignored), "files" (the whole files it adds),
# *.diff (its changes to files already there: mainline's, links to
# patches/*.patch and MAINTAINERS.patch, or an earlier patch's, which
# scripts/report/series-diffs.sh writes) and "check" (what --check
# requires once it is applied, one requirement a line):
#   build DIR TARGET FILE...  make -C DIR TARGETS=TARGET, in a DIR/TARGET
#                             the series adds, cleaned first, builds with
#                             no warning and makes each FILE of DIR/TARGET
#                             (a FILE.ko only with KDIR=, against which it
#                             is built)
#   maintainer SECTION        get_maintainer.pl names SECTION's maintainers
#                             for the patch and for each file it adds (a
#                             patch that adds a file names one at least)
# This script knows nothing of their content: the files the series
# changes are those its diffs name, the files it adds those its "files"
# name.  The final tree is the pristine changed files with patches/*.patch
# and MAINTAINERS.patch, plus the added files as committed (or, not yet
# committed, as in the working tree).  From the last patch down each takes
# out its files and reverses its diffs; what is left must be pristine.
# patches/series/cover is the cover letter.
#
# PATCHES_SIGNOFF="Name <email>" authors and signs off the series, else the
# git identity does (signing off only if it is a real address; if not, the
# cover letter says so, and how to sign it).
# PATCHES_BASE: the pristine tree (default scripts/tree/mainline.sh's).
# $BUILD/matrix.json, if there, is the last matrix run the cover reports;
# mutants/result.json, the last run of every kernel mutant; bench/result.json,
# the make bench run kept for it (scripts/bench/bench.py).
. "$(dirname "$0")/../lib.sh"

check=0
case ${1:-} in
--check) check=1 ;;
"") ;;
*) die "usage: $0 [--check]" ;;
esac

SERIES=$TOP/patches/series OUT=$BUILD/patches WORK=$BUILD/patches-work
GEN=$BUILD/patches-gen PTREE=$BUILD/patches-tree CHK=$BUILD/patches-check
mapfile -t PATCHES < <(find "$SERIES" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*-*' | sort -V)
[ ${#PATCHES[@]} -gt 0 ] || die "no patch in ${SERIES#"$TOP"/}"
# ADDED: the files the series adds; TOUCHED: the files already there it
# changes (those its diffs name, less ADDED); ROOTS: the top directories
# of ADDED, where the repository keeps them
ADDED=$(cat "${PATCHES[@]/%//files}")
[ -n "$ADDED" ] || die "no file in ${SERIES#"$TOP"/}/*/files"
TOUCHED=$(find "${PATCHES[@]}" -maxdepth 1 -name '*.diff' -exec sed -n 's|^+++ b/||p' {} + |
	cut -f1 | sort -u | { grep -vxF "$ADDED" || true; } | paste -sd' ')
ROOTS=$(cut -d/ -f1 <<<"$ADDED" | sort -u | paste -sd' ')

BASE=${PATCHES_BASE:-$("$TOP/scripts/tree/mainline.sh")} || die "no pristine tree (scripts/tree/mainline.sh)"
[ -f "$BASE/MAINTAINERS" ] || die "PATCHES_BASE=$BASE is not a kernel tree"
# NEW: the topmost path of each added file that BASE lacks (the file, or
# the first of its directories not there)
NEW=$(for f in $ADDED; do
	while [ "${f%/*}" != "$f" ] && [ ! -e "$BASE/${f%/*}" ]; do f=${f%/*}; done
	echo "$f"
done | sort -u | paste -sd' ')
BASE_VER=v$(make -s -C "$BASE" kernelversion | sed 's/^\([0-9]*\.[0-9]*\)\.0/\1/')
if [ "$(git -C "$BASE" rev-parse --show-toplevel 2>/dev/null)" = "$BASE" ]; then
	# shellcheck disable=SC2086 # one word per path
	git -C "$BASE" diff --quiet HEAD -- $TOUCHED || die "$BASE: $TOUCHED differ from its HEAD"
	BASE_LINE="base-commit: $(git -C "$BASE" rev-parse HEAD)" BASE_DESC="$BASE_VER, $BASE_LINE"
else	# scripts/tree/mainline.sh records the Debian package it unpacked
	deb=$(cat "$(dirname "$BASE")/done" 2>/dev/null || true)
	BASE_LINE="Applies to: $BASE_VER${deb:+ (Debian $deb)}" BASE_DESC="$BASE_VER${deb:+ (Debian $deb)} in $BASE"
fi

# A placeholder identity authors the commits but signs nothing off: a
# Signed-off-by certifies the DCO, which only a real person can.
ident=${PATCHES_SIGNOFF:-"$(git -C "$TOP" config user.name || true) <$(git -C "$TOP" config user.email || true)>"}
signoff=1
[ -n "${PATCHES_SIGNOFF:-}" ] || case $ident in
*noreply*|*.example\>|*.invalid\>|*.test\>|*localhost*|*"<>") signoff=0 ;;
esac
name=${ident% <*} email=${ident##*<} email=${email%>}
if [ -z "$name" ] || [ -z "$email" ]; then die "no git identity: set PATCHES_SIGNOFF=\"Name <email>\""; fi
date=$(git -C "$TOP" log -1 --format=%cI)	# fixed dates: the same series each run
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date

git_series() { git -C "$GEN" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }
git_applied() { git -C "$PTREE" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }
unpatch() { patch -d "$1" -p1 -f -s --no-backup-if-mismatch -r - "${@:3}" <"$2"; }

# The final tree in $WORK/final; say what the series leaves out.
stage()
{
	local f left='' committed

	rm -rf "$WORK" && mkdir -p "$WORK/final"
	# shellcheck disable=SC2086 # one word per path
	(cd "$BASE" && cp --parents $TOUCHED "$WORK/final/")
	for f in "$TOP"/patches/*.patch "$TOP/MAINTAINERS.patch"; do
		unpatch "$WORK/final" "$f" || die "${f#"$TOP"/} does not apply to $BASE"
	done
	# shellcheck disable=SC2086 # one word per path
	committed=$(git -C "$TOP" ls-tree -r --name-only HEAD -- $ROOTS)
	# shellcheck disable=SC2086 # one word per path
	git -C "$TOP" archive HEAD $committed | tar -x -C "$WORK/final"
	for f in $committed; do
		[ "$(grep -cxF "$f" <<<"$ADDED")" -eq 1 ] || die "$f is committed but not in one patches/series/*/files"
	done
	for f in $ADDED; do
		[ -f "$WORK/final/$f" ] || (cd "$TOP" && cp -p --parents "$f" "$WORK/final/") ||
			die "$f: neither in HEAD nor in the working tree"
	done
	# shellcheck disable=SC2086 # one word per path
	for f in $(cd "$TOP" && git ls-files -co --exclude-standard -- $ROOTS); do
		cmp -s "$TOP/$f" "$WORK/final/$f" || left="$left $f"
	done
	[ -z "$left" ] || say "patches: not in the series as in the working tree (not committed):$left"
}

# $WORK/<k>: the tree once patch k is in; $WORK/0: the pristine files.
peel()
{
	local k d diffs left

	cp -a "$WORK/final" "$WORK/tree"
	for ((k = ${#PATCHES[@]}; k >= 1; k--)); do
		cp -a "$WORK/tree" "$WORK/$k"
		(cd "$WORK/tree" && xargs -r rm -- <"${PATCHES[k - 1]}/files") || die "${PATCHES[k - 1]}/files: a file is missing"
		diffs=("${PATCHES[k - 1]}"/*.diff)
		for ((d = ${#diffs[@]} - 1; d >= 0; d--)); do
			[ ! -e "${diffs[d]}" ] || unpatch "$WORK/tree" "${diffs[d]}" -R ||
				die "${diffs[d]#"$TOP"/} no longer reverses out of the tree after it: refresh it"
		done
		find "$WORK/tree" -depth -type d -empty -delete
	done
	for d in $TOUCHED; do
		cmp -s "$BASE/$d" "$WORK/tree/$d" || die "the series' diffs to $d add up to other than patches/*.patch"
	done
	left=$(cd "$WORK/tree" && find . -type f | sed 's|^\./||' | grep -vxF "${TOUCHED// /$'\n'}") &&
		die "in no patch's files: $left"
	mv "$WORK/tree" "$WORK/0"
}

# Commit step K: its tree, with patch K's message.
commit()
{
	local msg="base: the files of $BASE_VER this series changes"$'\n\n'"From $BASE_DESC."

	rsync -a --delete --exclude=/.git "$WORK/$1/" "$GEN/"
	if [ "$1" -gt 0 ]; then
		msg=$(sed '/^--- a\//,$d' "${PATCHES[$1 - 1]}/message")
		[ "$signoff" -eq 0 ] || msg+=$'\n\n'"Signed-off-by: $name <$email>"
	fi
	git_series add -A && git_series commit -q --no-verify -m "$msg"
}

start=$SECONDS
say "patches: building the series in ${GEN#"$TOP"/}"
stage && peel
rm -rf "$GEN" "$OUT" && mkdir -p "$GEN" "$OUT" && git_series init -q -b sched_state
for ((k = 0; k <= ${#PATCHES[@]}; k++)); do commit "$k"; done
tested=$(python3 "$TOP/scripts/report/result.py" tested "$BUILD/matrix.json") || exit 2
mutated=$(python3 "$TOP/scripts/gates/mutants-result.py" --cover) || die "no mutants/result.json: run make mutants"
benched=$(python3 "$TOP/scripts/bench/bench.py" cover) || die "no bench/result.json: run make bench"
# an unsigned series says so where its reader looks first: the cover letter
unsigned=
[ "$signoff" -eq 1 ] || unsigned=$'\n\n'$(fmt -w 72 <<EOF
Not signed off: this series was generated as $ident, which is not a
real address, and a Signed-off-by certifies the DCO.  To sign it off,
generate it again with PATCHES_SIGNOFF="Your Name <you@example.org>"
make patches, or run git rebase --signoff on it.
EOF
)
git_series config branch.sched_state.description \
	"$(cat "$SERIES/cover")"$'\n\n'"$tested"$'\n\n'"$mutated"$'\n\n'"$benched$unsigned"$'\n\n'"$BASE_LINE"
git_series -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject -o "$OUT" HEAD~${#PATCHES[@]}
echo "patches: $(find "$OUT" -name '*.patch' | wc -l) files in $OUT ($((SECONDS - start)) s), signed off:" \
	"$([ "$signoff" -eq 1 ] && echo "$name <$email>" || echo "no ($ident is not a real address; set PATCHES_SIGNOFF)")"
find "$OUT" -name '*.patch' -printf '    %f\n' | sort
[ "$check" -eq 1 ] || exit 0

# A hard-linked copy of BASE whose git tracks only TOUCHED and LICENSES/
# (which checkpatch's spdxcheck.py reads): git am writes only the files a
# patch names, and never through a link.
pristine_tree()
{
	local e mark="$BASE, tracking $TOUCHED LICENSES"

	if [ "$(cat "$PTREE/.pristine" 2>/dev/null)" != "$mark" ]; then
		say "patches: copying $BASE into ${PTREE#"$TOP"/}, with its uapi headers (once)"
		rm -rf "$PTREE" && mkdir -p "$PTREE"
		for e in "$BASE"/* "$BASE"/.[!.]*; do
			[ -e "$e" ] && [ "${e##*/}" != .git ] && cp -al "$e" "$PTREE/"
		done
		# shellcheck disable=SC2086 # one word per path
		git init -q -b series "$PTREE" && git_applied add -f -- $TOUCHED LICENSES &&
			git_applied commit -q --no-verify -m base && git_applied tag base
		make -s -C "$PTREE" headers >/dev/null || die "make headers failed in $PTREE"
		echo "$mark" >"$PTREE/.pristine"
	fi
	git_applied am --abort >/dev/null 2>&1 || true
	# shellcheck disable=SC2086 # one word per path
	git_applied checkout -q -f --detach base && (cd "$PTREE" && rm -rf -- $NEW)
	# shellcheck disable=SC2086 # one word per path
	git_applied diff --quiet base -- $TOUCHED || die "$PTREE: $TOUCHED are not pristine"
	"$TOP/scripts/gates/docs.sh" --warnings "$PTREE" "$CHK/base.warnings" >"$CHK/base.log" 2>&1 ||
		{ cat "$CHK/base.log"; die "the base's docs build failed"; }
	echo "patches --check: the base's docs (docs.sh): $(wc -l <"$CHK/base.warnings") warning(s)"
}

# check_build LOG DIR TARGET FILE...: a "build" line of a patch's check
check_build()
{
	local log=$1 dir=$2 target=$3 d=$2/$3 n ours='' f made=() left=''

	shift 3
	for n in $NEW; do
		[[ $d != "$n" && $d != "$n"/* ]] || ours=1
	done
	[ -n "$ours" ] || { echo "  build: the series does not add $d, which it would clean"; return 1; }
	# built from scratch, as its users build it
	git_applied clean -fdxq -- "$d"
	make -C "$PTREE/$dir" TARGETS="$target" KDIR="${KDIR:-/nonexistent}" >"$log.build" 2>&1 ||
		{ tail -n 30 "$log.build"; echo "  build: FAILED (log: $log.build)"; return 1; }
	! grep -E "warning:|WARNING:|error:" "$log.build" || { echo "  build: warnings (log: $log.build)"; return 1; }
	for f; do
		[[ $f != *.ko || -n ${KDIR:-} ]] || { left=" (KDIR not set: no $f)"; continue; }
		[ -f "$PTREE/$d/$f" ] || { echo "  build: no $d/$f"; return 1; }
		made+=("$f")
	done
	echo "  build: ok, $d: ${made[*]}$left"
}

# reaches OUT SECTION WHY: get_maintainer.pl's OUT names SECTION's
# maintainers, or say WHY and OUT
reaches()
{
	grep -qF "(maintainer:$2)" <<<"$1" && return
	printf '  maintainers: %s:\n%s\n' "$3" "$1"
	return 1
}

# check_patch K P: git am P (patch K), then what its
# patches/series/<n>-<name>/check asks and what every step must pass; each
# says what it found.
check_patch()
{
	local p=$2 dir=${PATCHES[$1 - 1]} log out f kind args words sections=() sec flags=(--strict) gm

	log=$CHK/$(basename "$p" .patch)
	[ -f "$dir/check" ] || { echo "  no ${dir#"$TOP"/}/check"; return 1; }
	git_applied am -q "$p" >"$log.am" 2>&1 || { cat "$log.am"; echo "  git am: FAILED"; return 1; }
	echo "  git am: applied on $(git_applied log -1 --format=%h HEAD~1)"
	while read -r kind args; do
		case $kind in
		""|"#"*) ;;
		build) read -ra words <<<"$args"; check_build "$log" "${words[@]}" || return 1 ;;
		maintainer) sections+=("$args") ;;
		*) echo "  ${dir#"$TOP"/}/check: unknown requirement '$kind'"; return 1 ;;
		esac
	done <"$dir/check"
	# the docs, with no warning the base lacks
	"$TOP/scripts/gates/docs.sh" --warnings "$PTREE" "$log.warnings" >"$log.docs" 2>&1 || { cat "$log.docs"; echo "  docs: FAILED"; return 1; }
	out=$(comm -23 "$log.warnings" "$CHK/base.warnings")
	[ -z "$out" ] || { echo "$out"; echo "  docs: new warning(s)"; return 1; }
	echo "  docs: $(wc -l <"$log.warnings") warning(s), none new"
	# every file added is the named sections', and the patch reaches them:
	# the answer to checkpatch's "does MAINTAINERS need updating?"  Each
	# role of a person, not only the first: one who reviews one section and
	# maintains another is listed once otherwise, as the reviewer
	gm=(--nogit --nogit-fallback --noremove-duplicates)
	for f in $(awk '/^diff --git / { f = substr($4, 3) } /^new file mode/ { print f }' "$p"); do
		[ ${#sections[@]} -gt 0 ] ||
			{ echo "  maintainers: the patch adds $f; ${dir#"$TOP"/}/check names no maintainer"; return 1; }
		out=$(cd "$PTREE" && perl scripts/get_maintainer.pl "${gm[@]}" -f "$f" 2>&1)
		for sec in "${sections[@]}"; do
			reaches "$out" "$sec" "$f is not $sec's" || return 1
		done
	done
	grep -q "^ MAINTAINERS *|" "$p" || ! grep -q "^new file mode" "$p" || flags+=(--ignore FILE_PATH_CHANGES)
	out=$(cd "$PTREE" && perl scripts/get_maintainer.pl "${gm[@]}" "$p" 2>&1)
	for sec in "${sections[@]}"; do
		reaches "$out" "$sec" "the patch does not reach $sec" || return 1
	done
	echo "  maintainers: $(grep "(maintainer:" <<<"$out" | sed 's/ <[^>]*>//' | awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g')"
	grep -q "^Signed-off-by: " "$p" || flags+=(--no-signoff)
	out=$(cd "$PTREE" && perl scripts/checkpatch.pl "${flags[@]}" --show-types "$p" 2>&1)
	grep -q "^total: 0 errors, 0 warnings, 0 checks" <<<"$out" || { echo "$out"; echo "  checkpatch: FAILED"; return 1; }
	# spdxcheck.py needs python3-ply and python3-git; failing, it checks nothing
	! grep -A3 "^Traceback" <<<"$out" || { echo "  checkpatch: scripts/spdxcheck.py failed"; return 1; }
	echo "  checkpatch ${flags[*]}: $(grep "^total:" <<<"$out")"
}

check_final()
{
	local f

	for f in $(cd "$WORK/final" && find . -type f | sed 's|^\./||'); do
		cmp -s "$WORK/final/$f" "$PTREE/$f" || { echo "  $f differs from the final tree"; return 1; }
	done
	echo "  the applied series is the overlay, MAINTAINERS.patch and patches/*.patch"
}

start=$SECONDS
mkdir -p "$CHK"
if [ -n "${KDIR:-}" ]; then
	[ -f "$KDIR/Module.symvers" ] || die "KDIR=$KDIR: not a kernel build tree (no Module.symvers)"
	touch "$CHK/kdir.stamp"		# nothing in KDIR may be newer
fi
echo "patches --check: on $BASE_DESC, the module against KDIR=${KDIR:-(not set: not built)}"
pristine_tree
for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
	p=$(find "$OUT" -name "$(printf %04d "$k")-*.patch")
	gate "$(basename "$p")" check_patch "$k" "$p" || true
	[ "$failed" -eq 0 ] || break	# the next patch needs this one
done
[ "$failed" -eq 0 ] && gate "the applied series is the final tree" check_final
if [ -n "${KDIR:-}" ] && [ -n "$(find "$KDIR" -newer "$CHK/kdir.stamp" | head)" ]; then
	echo "FAIL: the builds wrote into KDIR=$KDIR:" && find "$KDIR" -newer "$CHK/kdir.stamp" | head
	failed=$((failed + 1)) failures+=("KDIR unchanged")
fi
echo "patches --check: $((SECONDS - start)) s"
gates "patches --check"
