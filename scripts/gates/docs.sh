#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scheduler docs of KSRC have no warning that a shadow without our page and
# toctree entry lacks, nor one naming them.  --warnings TREE FILE: TREE's, into FILE.
. "$(dirname "$0")/../lib.sh"

PAGE=Documentation/scheduler/sched-state.rst
INDEX_PATCH=$TOP/patches/docs-scheduler-index-add-sched-state.patch

command -v sphinx-build >/dev/null || die "no sphinx-build: run 'make deps'"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sched_state-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# build TREE NAME: TREE's scheduler book; its warnings, paths relative, in $tmp/NAME.warnings
build()
{
	local start=$SECONDS

	make -s -C "$1" SPHINXDIRS=scheduler BUILDDIR="$tmp/$2.out" htmldocs >"$tmp/$2.log" 2>&1 ||
		{ cat "$tmp/$2.log"; echo "docs: the $2 build failed"; return 1; }
	grep -E 'WARNING|ERROR|CRITICAL|SEVERE' "$tmp/$2.log" | sed -e "s|$1/||g" | sort >"$tmp/$2.warnings" || true
	echo "docs: $2 build: $(wc -l <"$tmp/$2.warnings") warning(s) ($((SECONDS - start)) s)"
	sed 's/^/    /' "$tmp/$2.warnings"
}

if [ "${1:-}" = --warnings ] && [ $# -eq 3 ]; then
	build "$2" tree && cp "$tmp/tree.warnings" "$3"
	exit
fi
[ $# -eq 0 ] || die "usage: $0 [--warnings TREE FILE]"
[ -f "$KSRC/$PAGE" ] || die "no $PAGE in KSRC=$KSRC: run 'make tree'"
patch -d "$KSRC" -p1 -R -s -f --dry-run <"$INDEX_PATCH" >/dev/null ||
	die "KSRC=$KSRC lacks ${INDEX_PATCH#"$TOP"/}: run 'make tree'"

# KSRC's files symlinked, but for a copy of Documentation/scheduler
shadow=$tmp/pristine
mkdir -p "$shadow/Documentation"
for e in "$KSRC"/* "$KSRC"/.[!.]* "$KSRC"/Documentation/* "$KSRC"/Documentation/.[!.]*; do
	[[ ${e#"$KSRC"/} =~ ^Documentation(/scheduler|/output)?$ ]] || [ ! -e "$e" ] ||
		ln -s "$e" "$shadow/${e#"$KSRC"/}"
done
cp -a "$KSRC/Documentation/scheduler" "$shadow/Documentation/"
rm -f "$shadow/$PAGE"
patch -d "$shadow" -p1 -R -s <"$INDEX_PATCH" || die "cannot take our entry out of the shadow index"

build "$KSRC" prepared
[ -s "$tmp/prepared.out/scheduler/sched-state.html" ] || die "the prepared build has no sched-state.html"
build "$shadow" pristine
new=$({ comm -23 "$tmp/prepared.warnings" "$tmp/pristine.warnings"
	grep -E 'sched-state|scheduler/index' "$tmp/prepared.warnings" || true; } | sort -u)
[ -z "$new" ] || { printf 'docs: new warning(s):\n%s\n' "$(sed 's/^/    /' <<<"$new")"; exit 1; }
echo "docs: no new warning ($PAGE and its toctree entry;" \
	"$(wc -l <"$tmp/pristine.warnings") warning(s) without them)"
