#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mainline.sh: print the pristine tree, unpacked once into $CACHE/src from the
# linux-source upload of mainline.pin (MAINLINE=X.Y: the newest linux-source-X.Y);
# nothing may write into it.  mainline.sh --bump: pin the newest upload.
. "$(dirname "$0")/../lib.sh"

PIN=$TOP/scripts/tree/mainline.pin
debian=$TOP/scripts/tree/debian.sh
REGEX='linux-source-[0-9]+\.[0-9]+'

if [ "${1:-}" = --bump ]; then
	old=$(cat "$PIN")
	new=$("$debian" newest amd64 "$REGEX")
	if [ "$new" = "$old" ]; then
		echo "mainline: $old is the newest in Debian's archive; the pin stays"
	else
		echo "$new" >"$PIN"
		echo "mainline: ${PIN#"$TOP"/}: $old -> $new; every kernel built from it rebuilds (commit the pin)"
	fi
	exit 0
fi
[ $# -eq 0 ] || die "usage: $0 [--bump]"

if [ -n "${MAINLINE:-}" ]; then
	found=$("$debian" newest amd64 "linux-source-${MAINLINE//./\\.}")
	read -r pkg ver <<<"$found"
else
	read -r pkg ver <"$PIN"
	# unpacked before: no look-up, so it works offline
	if [ ! -f "$CACHE/src/${pkg}_$ver/done" ] && ! "$debian" has amd64 "$pkg=$ver"; then
		found=$("$debian" newest amd64 "$REGEX")
		read -r pkg ver <<<"$found"
		say "mainline: warning: the pinned $(cat "$PIN") is no longer in Debian's archive; using $pkg $ver (run 'make bump-mainline' and commit the pin)"
	fi
fi
dir=$CACHE/src/${pkg}_$ver
tree=$dir/$pkg
mkdir -p "$CACHE/src"
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/done" ]; then
	say "mainline: unpacking $pkg $ver into $dir (once)"
	rm -rf "$dir"
	"$debian" unpack amd64 "$dir/deb" "$pkg=$ver"
	tar -C "$dir" -xf "$dir/deb/usr/src/$pkg.tar.xz"
	rm -rf "$dir/deb"
	[ -f "$tree/Makefile" ] || die "$pkg $ver did not unpack into $tree"
	echo "$pkg $ver" >"$dir/done"
fi
touch "$dir/used"
echo "$tree"
