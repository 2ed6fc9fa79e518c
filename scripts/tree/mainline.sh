#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mainline.sh: print the pristine (read-only) tree, unpacked once into $CACHE/src from
# mainline.pin's linux-source (MAINLINE=X.Y: the newest linux-source-X.Y); --bump: pin the newest.
. "$(dirname "$0")/../lib.sh"

PIN=$TOP/scripts/tree/mainline.pin
debian=$TOP/scripts/tree/debian.sh
REGEX='linux-source-[0-9]+\.[0-9]+'

if [ "${1:-}" = --bump ]; then
	new=$("$debian" newest amd64 "$REGEX")
	echo "mainline: pin $new (was $(cat "$PIN")); commit it: every built kernel rebuilds"
	echo "$new" >"$PIN"
	exit 0
fi
[ $# -eq 0 ] || die "usage: $0 [--bump]"

read -r pkg ver <"$PIN"
if [ -n "${MAINLINE:-}" ]; then
	read -r pkg ver < <("$debian" newest amd64 "linux-source-${MAINLINE//./\\.}") || exit
# unpacked before: no look-up, so it works offline
elif [ ! -f "$CACHE/src/${pkg}_$ver/done" ] && ! "$debian" has amd64 "$pkg=$ver"; then
	say "mainline: warning: the pinned $pkg $ver is no longer in Debian's archive; using" \
		"the newest (run 'make bump-mainline' and commit the pin)"
	read -r pkg ver < <("$debian" newest amd64 "$REGEX") || exit
fi
dir=$CACHE/src/${pkg}_$ver
lock "$dir.lock"
if [ ! -f "$dir/done" ]; then
	say "mainline: unpacking $pkg $ver into $dir (once)"
	rm -rf "$dir"
	"$debian" unpack amd64 "$dir/deb" "$pkg=$ver"
	tar -C "$dir" -xf "$dir/deb/usr/src/$pkg.tar.xz"
	rm -rf "$dir/deb"
	[ -f "$dir/$pkg/Makefile" ] || die "$pkg $ver did not unpack into $dir/$pkg"
	echo "$pkg $ver" >"$dir/done"
fi
touch "$dir/used"
echo "$dir/$pkg"
