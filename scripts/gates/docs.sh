#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scheduler docs must build with no new warning: build them in KSRC as
# prepared (our page and its toctree entry in), build them again in a shadow
# of KSRC without our page and entry, and fail on any warning of the first
# build that the second lacks, or that names our page.  Both builds write
# into a scratch BUILDDIR, never into KSRC's Documentation/output.
#
#   docs.sh                        that check, on KSRC
#   docs.sh --warnings TREE FILE   build TREE's scheduler book alone and write
#                                  its warnings, sorted, to FILE (patches.sh)
. "$(dirname "$0")/../lib.sh"

PAGE=Documentation/scheduler/sched-state.rst
INDEX_PATCH=$TOP/patches/docs-scheduler-index-add-sched-state.patch

command -v sphinx-build >/dev/null || die "no sphinx-build: run 'make deps'"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sched_state-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# build TREE NAME: the scheduler book of TREE; its warnings, tree paths
# made relative, go to $tmp/NAME.warnings.
build()
{
	local tree=$1 name=$2 start=$SECONDS

	if ! make -s -C "$tree" SPHINXDIRS=scheduler BUILDDIR="$tmp/$name.out" \
		htmldocs >"$tmp/$name.log" 2>&1; then
		cat "$tmp/$name.log"
		echo "docs: the $name build failed"
		return 1
	fi
	grep -E 'WARNING|ERROR|CRITICAL|SEVERE' "$tmp/$name.log" |
		sed -e "s|$tree/||g" | sort >"$tmp/$name.warnings" || true
	echo "docs: $name build: $(wc -l <"$tmp/$name.warnings") warning(s) ($((SECONDS - start)) s)"
	sed 's/^/    /' "$tmp/$name.warnings"
}

if [ "${1:-}" = --warnings ]; then
	[ $# -eq 3 ] || die "usage: $0 [--warnings TREE FILE]"
	build "$2" tree || exit 1
	cp "$tmp/tree.warnings" "$3"
	exit 0
fi
[ $# -eq 0 ] || die "usage: $0 [--warnings TREE FILE]"

[ -f "$KSRC/$PAGE" ] || die "no $PAGE in KSRC=$KSRC: run 'make tree'"
patch -d "$KSRC" -p1 -R -s -f --dry-run <"$INDEX_PATCH" >/dev/null ||
	die "KSRC=$KSRC lacks ${INDEX_PATCH#"$TOP"/}: run 'make tree'"

# A tree that is KSRC but for Documentation/scheduler: symlinks to all of
# KSRC, a real copy of that one directory, without our page and entry.
shadow=$tmp/pristine
mkdir -p "$shadow/Documentation"
for e in "$KSRC"/* "$KSRC"/.[!.]*; do
	[ -e "$e" ] || continue
	[ "${e##*/}" = Documentation ] || ln -s "$e" "$shadow/${e##*/}"
done
for e in "$KSRC"/Documentation/* "$KSRC"/Documentation/.[!.]*; do
	[ -e "$e" ] || continue
	case ${e##*/} in
	scheduler|output) ;;
	*) ln -s "$e" "$shadow/Documentation/${e##*/}" ;;
	esac
done
cp -a "$KSRC/Documentation/scheduler" "$shadow/Documentation/"
rm -f "$shadow/$PAGE"
patch -d "$shadow" -p1 -R -s <"$INDEX_PATCH" || die "cannot take our entry out of the shadow index"

build "$KSRC" prepared || exit 1
[ -s "$tmp/prepared.out/scheduler/sched-state.html" ] ||
	{ echo "docs: the prepared build has no sched-state.html"; exit 1; }
build "$shadow" pristine || exit 1

# comm -23 on sorted lists: what the prepared build says more often.
new=$(comm -23 "$tmp/prepared.warnings" "$tmp/pristine.warnings")
ours=$(grep -E 'sched-state|scheduler/index' "$tmp/prepared.warnings" || true)
new=$(printf '%s\n%s\n' "$new" "$ours" | sed '/^$/d' | sort -u)
if [ -n "$new" ]; then
	echo "docs: new warning(s):"
	printf '%s\n' "$new" | sed 's/^/    /'
	exit 1
fi
echo "docs: no new warning ($PAGE and its toctree entry;" \
	"$(wc -l <"$tmp/pristine.warnings") warning(s) without them)"
