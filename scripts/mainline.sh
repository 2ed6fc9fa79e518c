#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the pristine mainline tree: Debian's newest linux-source-X.Y (sid or
# experimental; MAINLINE=X.Y pins one), unpacked once into $CACHE/src.
# Nothing may write into it: copies are made with cp -al.
. "$(dirname "$0")/lib.sh"

if [ -n "${MAINLINE:-}" ]; then
	pkg=linux-source-$MAINLINE
else
	pkg=$("$TOP/scripts/debian.sh" newest amd64 'linux-source-[0-9]+\.[0-9]+')
fi
ver=$("$TOP/scripts/debian.sh" version amd64 "$pkg" || true)
[ -n "$ver" ] ||
	die "$pkg is not in Debian's archive now; available: $("$TOP/scripts/debian.sh" list amd64 'linux-source-[0-9]+\.[0-9]+' | tr '\n' ' ')"
dir=$CACHE/src/${pkg}_$ver
tree=$dir/$pkg
mkdir -p "$CACHE/src"
exec 9>"$dir.lock"
flock 9		# one unpack at a time; the others wait for it
if [ ! -f "$dir/done" ]; then
	say "mainline: unpacking $pkg $ver into $dir (once)"
	rm -rf "$dir"
	"$TOP/scripts/debian.sh" unpack amd64 "$dir/deb" "$pkg=$ver"
	tar -C "$dir" -xf "$dir/deb/usr/src/$pkg.tar.xz"
	rm -rf "$dir/deb"
	[ -f "$tree/Makefile" ] || die "$pkg $ver did not unpack into $tree"
	echo "$pkg $ver" >"$dir/done"
fi
echo "$tree"
