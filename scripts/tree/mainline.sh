#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the pristine mainline tree, unpacked once into $CACHE/src: the
# linux-source upload that scripts/tree/mainline.pin names (MAINLINE=X.Y: the
# newest linux-source-X.Y instead).  A pinned upload that Debian's archive no
# longer carries gives way to the newest one, with a warning.  Nothing may
# write into the tree: copies are made with cp -al.
#
#   mainline.sh          the tree
#   mainline.sh --bump   pin the newest upload in Debian's archive, say
#                        what changed (make bump-mainline)
. "$(dirname "$0")/../lib.sh"

PIN=$TOP/scripts/tree/mainline.pin
REGEX='linux-source-[0-9]+\.[0-9]+'

# newest: the newest upload of linux-source-X.Y (or of any X.Y), "PKG VER"
newest()
{
	local found

	found=$("$TOP/scripts/tree/debian.sh" newest amd64 "${1:-$REGEX}")
	[ -n "$found" ] ||
		die "${1:-$REGEX} is not in Debian's archive now; available: $("$TOP/scripts/tree/debian.sh" list amd64 "$REGEX" | tr '\n' ' ')"
	echo "$found"
}

if [ "${1:-}" = --bump ]; then
	old=$(cat "$PIN")
	new=$(newest)
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
	read -r pkg ver < <(newest "linux-source-${MAINLINE//./\\.}")
else
	read -r pkg ver <"$PIN"
	# unpacked before: no look-up, so it works offline
	if [ ! -f "$CACHE/src/${pkg}_$ver/done" ] &&
	   ! "$TOP/scripts/tree/debian.sh" has amd64 "$pkg=$ver"; then
		read -r pkg ver < <(newest)
		say "mainline: warning: the pinned $(cat "$PIN") is no longer in Debian's archive; using $pkg $ver (run 'make bump-mainline' and commit the pin)"
	fi
fi
dir=$CACHE/src/${pkg}_$ver
tree=$dir/$pkg
mkdir -p "$CACHE/src"
exec 9>"$dir.lock"
flock 9		# one unpack at a time; the others wait for it
if [ ! -f "$dir/done" ]; then
	say "mainline: unpacking $pkg $ver into $dir (once)"
	rm -rf "$dir"
	"$TOP/scripts/tree/debian.sh" unpack amd64 "$dir/deb" "$pkg=$ver"
	tar -C "$dir" -xf "$dir/deb/usr/src/$pkg.tar.xz"
	rm -rf "$dir/deb"
	[ -f "$tree/Makefile" ] || die "$pkg $ver did not unpack into $tree"
	echo "$pkg $ver" >"$dir/done"
fi
touch "$dir/used"	# make prune-cache reads the mark
echo "$tree"
