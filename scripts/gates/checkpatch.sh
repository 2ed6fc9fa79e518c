#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tree's checkpatch.pl --strict on every file of the overlay: upstream
# wants zero errors, warnings and checks.  The files are named by their
# paths in the tree, as in a patch, since some rules go by path (tools/ is
# userspace).  scripts/report/patches.sh --check runs it on the series in
# the tree.
. "$(dirname "$0")/../lib.sh"

[ -x "$KSRC/scripts/checkpatch.pl" ] || die "no checkpatch.pl in KSRC=$KSRC: run 'make tree'"
files=$(cd "$TOP" && git ls-files -co --exclude-standard -- tools Documentation)
echo "checkpatch: $KSRC/scripts/checkpatch.pl ($(make -s -C "$KSRC" kernelversion))"
findings=0
for f in $files; do
	out=$(cd "$TOP" && perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "$f" | grep -E ': (ERROR|WARNING|CHECK):' || true)
	[ -z "$out" ] && continue
	printf '%s\n' "$out"
	findings=$((findings + $(printf '%s\n' "$out" | wc -l)))
done
echo "checkpatch --strict: $(echo "$files" | wc -w) files, $findings findings"
[ "$findings" -eq 0 ]
