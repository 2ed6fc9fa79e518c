#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2086 # the lists of paths: one word per path
# patches/series/ as a format-patch series on the pristine tree in $BUILD/patches/; --check
# git-ams it patch by patch, each to pass its "check" (docs/upstream.md): "build DIR TARGET
# FILE..." (no warning; a .ko only with KDIR=), "maintainer SECTION" (the patch and its files)
. "$(dirname "$0")/../lib.sh"

[ $# -eq 0 ] || [ "$*" = --check ] || die "usage: $0 [--check]"
SERIES=$TOP/patches/series OUT=$BUILD/patches WORK=$BUILD/patches-work
GEN=$BUILD/patches-gen PTREE=$BUILD/patches-tree CHK=$BUILD/patches-check
mapfile -t PATCHES < <(find "$SERIES" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*-*' | sort -V)
[ ${#PATCHES[@]} -gt 0 ] || die "no patch in ${SERIES#"$TOP"/}"
# ADDED: the files the series adds; TOUCHED: those already there it changes
ADDED=$(cat "${PATCHES[@]/%//files}")
[ -n "$ADDED" ] || die "no file in ${SERIES#"$TOP"/}/*/files"
TOUCHED=$(find "${PATCHES[@]}" -maxdepth 1 -name '*.diff' -exec sed -n 's|^+++ b/||p' {} + |
	cut -f1 | sort -u | { grep -vxF "$ADDED" || true; } | paste -sd' ')
ROOTS=$(cut -d/ -f1 <<<"$ADDED" | sort -u | paste -sd' ')
BASE=${PATCHES_BASE:-$("$TOP/scripts/tree/mainline.sh")}
[ -f "$BASE/MAINTAINERS" ] || die "PATCHES_BASE=$BASE is not a kernel tree"
BASE_VER=v$(make -s -C "$BASE" kernelversion | sed 's/^\([0-9]*\.[0-9]*\)\.0/\1/')
if [ "$(git -C "$BASE" rev-parse --show-toplevel 2>/dev/null)" = "$BASE" ]; then
	git -C "$BASE" diff --quiet HEAD -- $TOUCHED || die "$BASE: $TOUCHED differ from its HEAD"
	BASE_LINE="base-commit: $(git -C "$BASE" rev-parse HEAD)" BASE_DESC="$BASE_VER, $BASE_LINE"
else	# scripts/tree/mainline.sh records the Debian package it unpacked
	deb=$(cat "$(dirname "$BASE")/done" 2>/dev/null || true)
	BASE_LINE="Applies to: $BASE_VER${deb:+ (Debian $deb)}" BASE_DESC="${BASE_LINE#Applies to: } in $BASE"
fi
git_id=$(git -C "$TOP" config user.name || true)" <$(git -C "$TOP" config user.email || true)>"
ident=${PATCHES_SIGNOFF:-$git_id}
name=${ident% <*} email=${ident##*<} email=${email%>}
[ -n "$name" ] && [ -n "$email" ] || die "no git identity: set PATCHES_SIGNOFF=\"Name <email>\""
sob="Signed-off-by: $name <$email>"
[ -n "${PATCHES_SIGNOFF:-}" ] ||	# a Signed-off-by certifies the DCO, which only a real person can
	! grep -qE 'noreply|localhost|\.(example|invalid|test)>$|<>$' <<<"$ident" || sob=
date=$(git -C "$TOP" log -1 --format=%cI)	# the same series each run
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email GIT_COMMITTER_DATE=$date
git_in() { git -C "$1" -c core.autocrlf=false -c commit.gpgsign=false "${@:2}"; }
unpatch() { patch -d "$1" -p1 -f -s --no-backup-if-mismatch -r - "${@:3}" <"$2"; }
docs() { "$TOP/scripts/gates/docs.sh" --warnings "$PTREE" "$1.warnings" >"$1.docs" 2>&1; }
say "patches: building the series in ${GEN#"$TOP"/}"
# $WORK/final: the pristine files patched, the added ones as committed, else as in the work tree
rm -rf "$WORK" && mkdir -p "$WORK/final"
(cd "$BASE" && cp --parents $TOUCHED "$WORK/final/")
for f in "$TOP"/patches/*.patch "$TOP/MAINTAINERS.patch"; do
	unpatch "$WORK/final" "$f" || die "${f#"$TOP"/} does not apply to $BASE"
done
committed=$(git -C "$TOP" ls-tree -r --name-only HEAD -- $ROOTS)
git -C "$TOP" archive HEAD $committed | tar -x -C "$WORK/final"
f=$(sort <<<"$ADDED" | uniq -d; grep -vxF "$ADDED" <<<"$committed" || true)
[ -z "$f" ] || die "in no patches/series/*/files, or in two:" $f
f=$(grep -vxF "$committed" <<<"$ADDED" || true)	# not committed: as in the working tree
[ -z "$f" ] || (cd "$TOP" && cp -p --parents $f "$WORK/final/") || die "missing:" $f
left=$(cd "$TOP" && git ls-files -co --exclude-standard -- $ROOTS | while read -r f; do
	cmp -s "$f" "$WORK/final/$f" || echo "$f"
done)
[ -z "$left" ] || say "patches: not in the series as in the working tree (not committed):" $left
# $WORK/<k>: the tree once patch k is in; patch by patch taken out, it must end pristine
cp -a "$WORK/final" "$WORK/0"
for ((k = ${#PATCHES[@]}; k >= 1; k--)); do
	cp -a "$WORK/0" "$WORK/$k"
	(cd "$WORK/0" && xargs -r rm -- <"${PATCHES[k - 1]}/files") || die "${PATCHES[k - 1]}/files: a file is missing"
	for d in $(printf '%s\n' "${PATCHES[k - 1]}"/*.diff | tac); do
		[ ! -e "$d" ] || unpatch "$WORK/0" "$d" -R ||
			die "${d#"$TOP"/} no longer reverses out of the tree after it: refresh it"
	done
	find "$WORK/0" -depth -type d -empty -delete
done
left=$(cd "$WORK/0" && find . -type f ! -exec cmp -s {} "$BASE/{}" \; -printf ' %P')
[ -z "$left" ] || die "the series' diffs add up to other than patches/*.patch, or in no patch's files:$left"
# PATCHES_SIGNOFF's signer is the suite's reviewer: a MAINTAINERS section of
# its own from the last patch that touches MAINTAINERS on
owner=${PATCHES_SIGNOFF:+"$name <$email>"}
mk=0 mk_first=0
for ((k = 1; k <= ${#PATCHES[@]}; k++)); do
	grep -qs '^+++ b/MAINTAINERS' "${PATCHES[k - 1]}"/*.diff || continue
	mk=$k
	[ "$mk_first" -gt 0 ] || mk_first=$k
done
reviewer()
{
	python3 - "$1" "$owner" <<-'EOF'
	import sys
	path, owner = sys.argv[1:]
	name = 'SCHEDULER - TASK STATE SELFTEST'
	block = [name, f'R:\t{owner}', 'L:\tlinux-kselftest@vger.kernel.org',
	         'S:\tMaintained', 'F:\tDocumentation/scheduler/sched-state.rst',
	         'F:\ttools/testing/selftests/sched_state/', '']
	lines = open(path).read().split('\n')
	# after the section whose name comes last before ours
	heads = [i for i in range(1, len(lines) - 1) if lines[i - 1] == ''
	         and lines[i][:1].isupper() and lines[i + 1][1:3] == ':\t' and lines[i] < name]
	at = lines.index('', max(heads, key=lambda i: lines[i])) + 1
	lines[at:at] = block
	open(path, 'w').write('\n'.join(lines))
	EOF
}
rm -rf "$GEN" "$OUT" && mkdir -p "$GEN" "$OUT" && git_in "$GEN" init -q -b sched_state
for ((k = 0; k <= ${#PATCHES[@]}; k++)); do
	rsync -a --delete --exclude=/.git "$WORK/$k/" "$GEN/"
	[ -z "$owner" ] || [ "$mk" -eq 0 ] || [ "$k" -lt "$mk" ] || reviewer "$GEN/MAINTAINERS" ||
		die "could not add $owner to MAINTAINERS"
	msg="base: the files of $BASE_VER this series changes"$'\n\n'"From $BASE_DESC."
	# a patch file serves as message: up to its diff
	[ "$k" -eq 0 ] || msg=$(sed '/^--- a\//,$d' "${PATCHES[k - 1]}/message")${sob:+$'\n\n'$sob}
	git_in "$GEN" add -A && git_in "$GEN" commit -q --no-verify -m "$msg"
done
# the final tree, as --check compares it, has the section too
[ -z "$owner" ] || [ "$mk" -eq 0 ] || reviewer "$WORK/final/MAINTAINERS"
tested=$(python3 "$TOP/scripts/report/result.py" tested "$BUILD/matrix.json") || exit 2
mutated=$(python3 "$TOP/scripts/gates/mutants-result.py" --cover) || die "no mutants/result.json: run make mutants"
benched=$(python3 "$TOP/scripts/bench/bench.py" cover) || die "no bench/result.json: run make bench"
unsigned=
[ -n "$sob" ] || unsigned=$'\n\n'$(fmt -w 72 <<<"Not signed off: a Signed-off-by certifies the \
DCO, and $ident is not a real address.  For the same reason no one is named as the suite's \
reviewer in MAINTAINERS.  PATCHES_SIGNOFF=\"Name <email>\" make patches signs it and adds \
the signer as the R: of a section of its own.")
git_in "$GEN" config branch.sched_state.description \
	"$(cat "$SERIES/cover")"$'\n\n'"$tested"$'\n\n'"$mutated"$'\n\n'"$benched$unsigned"$'\n\n'"$BASE_LINE"
git_in "$GEN" -c core.abbrev=12 format-patch -q --cover-letter --cover-from-description=subject -o "$OUT" HEAD~${#PATCHES[@]}
echo "patches: $(find "$OUT" -name '*.patch' | wc -l) files in $OUT ($SECONDS s), signed off:" \
	"$([ -n "$sob" ] && echo "$name <$email>" || echo "no ($ident is not a real address; set PATCHES_SIGNOFF)")"
find "$OUT" -name '*.patch' -printf '    %f\n' | sort
[ $# -eq 1 ] || exit 0

# check_build LOG DIR TARGET FILE...: a check's "build" line, from scratch as users build
check_build()
{
	local log=$1 d=$2/$3 f
	[ ! -e "$BASE/$d" ] || { echo "  build: the series does not add $d, which it would clean"; return 1; }
	git_in "$PTREE" clean -fdxq -- "$d"
	make -C "$PTREE/$2" TARGETS="$3" KDIR="${KDIR:-/nonexistent}" >"$log.build" 2>&1 ||
		{ tail -n 30 "$log.build"; echo "  build: FAILED (log: $log.build)"; return 1; }
	! grep -E "warning:|WARNING:|error:" "$log.build" || { echo "  build: warnings (log: $log.build)"; return 1; }
	for f in "${@:4}"; do
		[[ $f == *.ko && -z ${KDIR:-} ]] || [ -f "$PTREE/$d/$f" ] || { echo "  build: no $d/$f"; return 1; }
	done
	echo "  build: ok, $d: ${*:4}$([ -n "${KDIR:-}" ] || echo " (KDIR not set: no module)")"
}

# reaches WHAT ARG...: get_maintainer.pl ARG... ($out) names $sections' maintainers, in all roles
reaches()
{
	local sec
	out=$(cd "$PTREE" && perl scripts/get_maintainer.pl --nogit --nogit-fallback --noremove-duplicates "${@:2}" 2>&1)
	for sec in "${sections[@]}"; do
		grep -qF "(maintainer:$sec)" <<<"$out" || { printf '  maintainers: %s not %s'\''s:\n%s\n' "$1" "$sec" "$out"; return 1; }
	done
}

# check_patch K P: git am P (patch K); its check, docs (no new warning), maintainers, checkpatch
check_patch()
{
	local patch=$2 dir=${PATCHES[$1 - 1]} log out f kind args sections=() flags=(--strict)
	log=$CHK/$(basename "$patch" .patch)
	git_in "$PTREE" am -q "$patch" >"$log.am" 2>&1 || { cat "$log.am"; echo "  git am: FAILED"; return 1; }
	while read -r kind args; do
		case $kind in
		""|"#"*) ;;
		build) check_build "$log" $args || return 1 ;;
		maintainer) sections+=("$args") ;;
		*) echo "  ${dir#"$TOP"/}/check: unknown requirement '$kind'"; return 1 ;;
		esac
	done <"$dir/check" || return 1
	docs "$log" || { cat "$log.docs"; echo "  docs: FAILED"; return 1; }
	! comm -23 "$log.warnings" "$CHK/base.warnings" | grep . || { echo "  docs: new warning(s)"; return 1; }
	echo "  docs: $(wc -l <"$log.warnings") warning(s), none new"
	for f in $(awk '/^diff --git / { f = substr($4, 3) } /^new file mode/ { print f }' "$patch"); do
		[ ${#sections[@]} -gt 0 ] || { echo "  maintainers: the patch adds $f; ${dir#"$TOP"/}/check names no maintainer"; return 1; }
		reaches "$f is" -f "$f" || return 1
	done
	reaches "the patch is" "$patch" || return 1
	echo "  maintainers: $(grep "(maintainer:" <<<"$out" | sed 's/ <[^>]*>//' | awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g')"
	# files added under an entry an earlier patch put in MAINTAINERS (reaches, above)
	grep -q "^ MAINTAINERS *|" "$patch" || ! grep -q "^new file mode" "$patch" ||
		[ "$mk_first" -eq 0 ] || [ "$1" -le "$mk_first" ] || flags+=(--ignore FILE_PATH_CHANGES)
	grep -q "^Signed-off-by: " "$patch" || flags+=(--no-signoff)
	out=$(cd "$PTREE" && perl scripts/checkpatch.pl "${flags[@]}" --show-types "$patch" 2>&1)
	grep -q "^total: 0 errors, 0 warnings, 0 checks" <<<"$out" || { echo "$out"; echo "  checkpatch: FAILED"; return 1; }
	# spdxcheck.py needs python3-ply and python3-git; failing, it checks nothing
	! grep -A3 "^Traceback" <<<"$out" || { echo "  checkpatch: scripts/spdxcheck.py failed"; return 1; }
	echo "  checkpatch ${flags[*]}: $(grep "^total:" <<<"$out")"
}

mkdir -p "$CHK" && touch "$CHK/kdir.stamp"
[ -z "${KDIR:-}" ] || [ -f "$KDIR/Module.symvers" ] || die "KDIR=$KDIR: not a kernel build tree (no Module.symvers)"
# $PTREE: BASE hard-linked (git am replaces the files it patches, never writes through
# a link); its git tracks TOUCHED and LICENSES/ (spdxcheck.py reads it) only
mark="$BASE, tracking $TOUCHED LICENSES"
if [ "$(cat "$PTREE/.pristine" 2>/dev/null)" != "$mark" ]; then
	say "patches: copying $BASE into ${PTREE#"$TOP"/}, with its uapi headers (once)"
	rm -rf "$PTREE" && cp -al "$BASE" "$PTREE" && rm -rf "$PTREE/.git"
	git init -q -b series "$PTREE" && git_in "$PTREE" add -f -- $TOUCHED LICENSES &&
		git_in "$PTREE" commit -q --no-verify -m base && git_in "$PTREE" tag base
	make -s -C "$PTREE" headers >/dev/null || die "make headers failed in $PTREE"
	echo "$mark" >"$PTREE/.pristine"
fi
git_in "$PTREE" am --abort >/dev/null 2>&1 || true
git_in "$PTREE" checkout -q -f --detach base
docs "$CHK/base" || { cat "$CHK/base.docs"; die "the base's docs build failed"; }
echo "patches --check: on $BASE_DESC, the module against KDIR=${KDIR:-(not set: not built)}," \
	"the base's docs (docs.sh): $(wc -l <"$CHK/base.warnings") warning(s)"
for ((k = 1; k <= ${#PATCHES[@]} && ${#failures[@]} == 0; k++)); do	# each needs the one before
	patch=$(find "$OUT" -name "$(printf %04d "$k")-*.patch")
	gate "${patch##*/}" check_patch "$k" "$patch"
done
[ ${#failures[@]} -gt 0 ] || gate "the applied series is the final tree" bash -c \
	'cd "$0" && ! find . -type f ! -exec cmp -s {} "$1/{}" \; -printf "  %P differs\n" | grep .' \
	"$WORK/final" "$PTREE"
[ -z "${KDIR:-}" ] || gate "the builds left KDIR=$KDIR as it was" \
	bash -c '! find "$0" -newer "$1" | head | grep .' "$KDIR" "$CHK/kdir.stamp"
gates "patches --check"
