#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.pl --strict on every overlay file, named by its path in the
# tree (some rules go by path): upstream wants no error, warning or check.
. "$(dirname "$0")/../lib.sh"

[ -x "$KSRC/scripts/checkpatch.pl" ] || die "no checkpatch.pl in KSRC=$KSRC: run 'make tree'"
mapfile -t files < <(cd "$TOP" && git ls-files -co --exclude-standard -- tools Documentation)
echo "checkpatch: $KSRC/scripts/checkpatch.pl ($(make -s -C "$KSRC" kernelversion))"
out=$(cd "$TOP" && perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	-f "${files[@]}" | grep -E ': (ERROR|WARNING|CHECK):' || true)
[ -z "$out" ] || printf '%s\n' "$out"
echo "checkpatch --strict: ${#files[@]} files, $(grep -c . <<<"$out") findings"
[ -z "$out" ]
