#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's archive through a private apt root per architecture, never the
# machine's own sources: packages are downloaded and unpacked, not installed.
#
#   debian.sh list ARCH REGEX        the package names matching REGEX
#   debian.sh newest ARCH REGEX      the newest of them and its version, "PKG VER"
#   debian.sh unpack ARCH DIR PKG... unpack PKG... (name or name=version) into DIR
#   debian.sh source PKG DIR         sid's source package PKG, unpacked in DIR
#   debian.sh has ARCH PKG=VER       whether the archive carries PKG at VER
#   debian.sh depends ARCH PKG REGEX what PKG depends on that matches REGEX
#
# The roots live in $CACHE/apt/<arch> and are refreshed once a day, from the
# mirrors this machine's apt uses; offline, they go on with the lists they have.
. "$(dirname "$0")/../lib.sh"

SUITES="bookworm bookworm-updates bookworm-security sid experimental"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# apt_root ARCH: set APT to the options of ARCH's root, updating it if stale
apt_root()
{
	local arch=$1 r=$CACHE/apt/$1 s uri main security

	APT=(-o Dir::Etc::SourceList="$r/sources.list"
	     -o Dir::Etc::SourceParts="$r/sources.list.d"
	     -o Dir::State::Lists="$r/lists" -o Dir::Cache="$r/cache"
	     -o Dir::State::status="$r/status"
	     -o APT::Architecture="$arch" -o APT::Architectures::="$arch"
	     -o Acquire::Languages=none -o APT::Sandbox::User=root)
	mkdir -p "$CACHE/apt"
	exec 8>"$r.lock"
	flock 8		# one user of the root at a time
	[ -n "$(find "$r/updated" -mmin -1440 2>/dev/null)" ] && return
	mkdir -p "$r/lists/partial" "$r/cache/archives/partial" "$r/sources.list.d"
	touch "$r/status"
	# the mirrors this machine's apt uses, for every suite
	main=$(debian_uri bookworm) || exit
	security=$(debian_uri bookworm-security) || exit
	for s in $SUITES; do
		case $s in
		*-security) uri=$security ;;
		*) uri=$main ;;
		esac
		echo "deb [signed-by=$KEYRING] $uri $s main"
	done >"$r/sources.list"
	echo "deb-src [signed-by=$KEYRING] $main sid main" >>"$r/sources.list"
	say "debian: updating the private apt root for $arch ($r)"
	# offline, apt-get update warns and exits 0
	if ! apt-get "${APT[@]}" -q update >"$r/update.log" 2>&1 ||
	   grep -qE '^(E: |W: (Failed to fetch|Some index files failed))' "$r/update.log"; then
		# an offline machine goes on with what it has, and says so
		[ -f "$r/updated" ] ||
			{ tail -n 5 "$r/update.log" >&2; die "apt-get update for $arch failed; log: $r/update.log"; }
		say "debian: warning: could not refresh $r (log: $r/update.log); using its lists of $(date -r "$r/updated" +%F)"
		return
	fi
	touch "$r/updated"
}

cmd=${1:-}
case $cmd in
list)
	[ $# -eq 3 ] || die "usage: $0 list ARCH REGEX"
	apt_root "$2"
	apt-cache "${APT[@]}" pkgnames | grep -E "^($3)\$" | sort -V
	;;
newest)
	# "PKG VER": the last matching name and its candidate version, in one
	# look-up (one refresh of the root, one warning offline); nothing if none
	[ $# -eq 3 ] || die "usage: $0 newest ARCH REGEX"
	apt_root "$2"
	pkg=$(apt-cache "${APT[@]}" pkgnames | grep -E "^($3)\$" | sort -V | tail -n 1 || true)
	[ -n "$pkg" ] || exit 0
	ver=$(apt-cache "${APT[@]}" policy "$pkg" | sed -n 's/^  Candidate: //p' | grep -v '(none)' || true)
	[ -z "$ver" ] || echo "$pkg $ver"
	;;
has)
	[ $# -eq 3 ] || die "usage: $0 has ARCH PKG=VER"
	apt_root "$2"
	apt-cache "${APT[@]}" madison "${3%%=*}" | awk -v v="${3#*=}" '$3 == v { f = 1 } END { exit !f }'
	;;
depends)
	[ $# -eq 4 ] || die "usage: $0 depends ARCH PKG REGEX"
	apt_root "$2"
	apt-cache "${APT[@]}" depends "$3" | awk '/Depends:/ { print $2 }' |
		grep -E "^($4)\$" | sort -u
	;;
unpack)
	[ $# -ge 4 ] || die "usage: $0 unpack ARCH DIR PKG..."
	apt_root "$2"
	dir=$3
	shift 3
	mkdir -p "$dir.debs"
	(cd "$dir.debs" && apt-get "${APT[@]}" -q download "$@" >download.log 2>&1) ||
		{ tail -n 5 "$dir.debs/download.log" >&2; die "could not download $*"; }
	for deb in "$dir.debs"/*.deb; do
		dpkg-deb -x "$deb" "$dir"
	done
	rm -rf "$dir.debs"
	;;
source)
	[ $# -eq 3 ] || die "usage: $0 source PKG DIR"
	apt_root amd64
	mkdir -p "$3"
	(cd "$3" && apt-get "${APT[@]}" -q source --download-only "$2" >download.log 2>&1 &&
		dpkg-source -x --no-check ./*.dsc src >>download.log 2>&1) ||
		{ tail -n 5 "$3/download.log" >&2; die "could not fetch the source of $2"; }
	;;
*)
	die "usage: $0 list|newest|has|depends|unpack|source ..."
	;;
esac
