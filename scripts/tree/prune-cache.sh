#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Remove from $CACHE the kernels, mainline trees and sched_state builds
# (scripts/tree/build-kselftest.sh) that no command has used for DAYS days
# (default 14; 0: all of them), each under its own lock, so that one being
# built or unpacked now stays.  An entry made before the "used" mark existed counts
# from its own time.
. "$(dirname "$0")/../lib.sh"

days=${DAYS:-14}
[[ $days =~ ^[0-9]+$ ]] || die "DAYS=$days: not a number"
freed=0
for d in "$CACHE"/kernels/*/ "$CACHE"/src/*/ "$CACHE"/kselftest/*/; do
	d=${d%/}
	[ -d "$d" ] || continue
	ref=$d/used
	[ -e "$ref" ] || ref=$d
	[ "$days" -eq 0 ] || [ -z "$(find "$ref" -maxdepth 0 -mtime -"$days")" ] || continue
	exec 9>"$d.lock"
	flock -n 9 || { say "prune-cache: ${d#"$CACHE"/} is in use; kept"; continue; }
	kb=$(du -sk "$d" | cut -f1)
	rm -rf "$d"
	rm -f "$d.lock"
	exec 9>&-
	freed=$((freed + kb))
	say "prune-cache: removed ${d#"$CACHE"/} ($((kb / 1024)) MiB)"
done
say "prune-cache: $((freed / 1024)) MiB freed in $CACHE (entries unused for $days days)"
