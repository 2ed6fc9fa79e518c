#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Remove $CACHE's kernels, trees and suites unused (their "used" mark, else
# their own time) for DAYS days (default 14; 0: all); one in use (locked) stays.
. "$(dirname "$0")/../lib.sh"

days=${DAYS:-14}
[[ $days =~ ^[0-9]+$ ]] || die "DAYS=$days: not a number"
for d in "$CACHE"/{kernels,src,kselftest}/*; do
	[ -d "$d" ] || continue
	ref=$d/used
	[ -e "$ref" ] || ref=$d
	[ "$days" -eq 0 ] || [ -z "$(find "$ref" -maxdepth 0 -mtime -"$days")" ] || continue
	exec 9>"$d.lock"
	flock -n 9 || { say "prune-cache: ${d#"$CACHE"/} is in use; kept"; continue; }
	say "prune-cache: removing ${d#"$CACHE"/} ($(du -sh "$d" | cut -f1))"
	rm -rf "$d" "$d.lock"
done
