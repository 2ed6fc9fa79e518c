#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the path of a sparse that mainline's kbuild accepts.  bookworm's
# sparse 0.6.4 does not know __typeof_unqual__, so scripts/checker-valid.sh
# rejects it and kbuild skips C=1 with only "sparse is not available or not
# up to date".  sid's source package is newer: fetch it once into
# $CACHE/sparse-src, build the sparse binary alone with the machine's gcc
# (CC=gcc: Debian's use-gcc-16.patch sets CC to a gcc-16 bookworm lacks),
# and cache it as $CACHE/sparse-<version>/sparse.
. "$(dirname "$0")/../lib.sh"

src=$CACHE/sparse-src
mkdir -p "$CACHE"
exec 9>"$CACHE/sparse.lock"
flock 9		# one fetch and build at a time

if [ ! -f "$src/src/debian/changelog" ]; then
	say "sparse: fetching sid's source package into $src (once)"
	rm -rf "$src"
	"$TOP/scripts/tree/debian.sh" source sparse "$src"
fi
ver=$(dpkg-parsechangelog -l "$src/src/debian/changelog" -S Version)
out=$CACHE/sparse-$ver
if [ ! -x "$out/sparse" ]; then
	say "sparse: building sparse $ver with $(gcc -dumpfullversion) (once)"
	make -C "$src/src" -j2 CC=gcc sparse >"$src/build.log" 2>&1 ||
		{ tail -n 20 "$src/build.log" >&2; die "building sparse failed; log: $src/build.log"; }
	rm -rf "$out.tmp"
	install -D -m 755 "$src/src/sparse" "$out.tmp/sparse"
	mv "$out.tmp" "$out"
fi
# The test kbuild applies, where the tree has it.
if [ -x "$KSRC/scripts/checker-valid.sh" ] &&
   [ "$("$KSRC/scripts/checker-valid.sh" "$out/sparse")" != 1 ]; then
	die "$out/sparse fails $KSRC/scripts/checker-valid.sh"
fi
echo "$out/sparse"
