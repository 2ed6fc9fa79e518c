#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the path of a sparse that mainline's kbuild accepts: bookworm's 0.6.4
# lacks __typeof_unqual__ (kbuild then skips C=1), so sid's is built, once.
. "$(dirname "$0")/../lib.sh"

src=$CACHE/sparse-src
lock "$CACHE/sparse.lock"

if [ ! -f "$src/src/debian/changelog" ]; then
	say "sparse: fetching sid's source package into $src (once)"
	rm -rf "$src"
	"$TOP/scripts/tree/debian.sh" source sparse "$src"
fi
ver=$(dpkg-parsechangelog -l "$src/src/debian/changelog" -S Version)
out=$CACHE/sparse-$ver
if [ ! -x "$out/sparse" ]; then
	say "sparse: building sparse $ver with $(gcc -dumpfullversion) (once)"
	# CC=gcc: Debian's use-gcc-16.patch names a gcc bookworm lacks
	make -C "$src/src" -j2 CC=gcc sparse >"$src/build.log" 2>&1 ||
		{ tail -n 20 "$src/build.log" >&2; die "building sparse failed; log: $src/build.log"; }
	rm -rf "$out.tmp"
	install -D -m 755 "$src/src/sparse" "$out.tmp/sparse"
	mv "$out.tmp" "$out"
fi
[ ! -x "$KSRC/scripts/checker-valid.sh" ] || [ "$("$KSRC/scripts/checker-valid.sh" "$out/sparse")" = 1 ] ||
	die "$out/sparse fails $KSRC/scripts/checker-valid.sh"
echo "$out/sparse"
