#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's archive from this machine's mirrors, in a private apt root $CACHE/apt/<arch>:
#   debian.sh newest ARCH REGEX        "PKG VER": the newest package matching REGEX
#   debian.sh has ARCH PKG=VER         whether the archive carries PKG at VER
#   debian.sh depends ARCH PKG REGEX   what PKG depends on that matches REGEX
#   debian.sh unpack ARCH DIR PKG...   unpack PKG (name or name=version) into DIR
#   debian.sh source PKG DIR           sid's source package PKG, in DIR/src
. "$(dirname "$0")/../lib.sh"

[[ ${1:-}:$# =~ ^(newest:3|has:3|depends:4|unpack:([4-9]|[1-9][0-9]+)|source:3)$ ]] ||
	die "usage: $0 newest|has|depends|unpack|source ARGS... (see its head)"
arch=$2
[ "$1" != source ] || arch=amd64
r=$CACHE/apt/$arch
k="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
APT=(-o Dir::Etc::SourceList="$r/sources.list" -o Dir::Etc::SourceParts="$r/sources.list.d"
     -o Dir::State::Lists="$r/lists" -o Dir::State::status="$r/status"
     -o Dir::Cache="$r/cache" -o APT::Architecture="$arch" -o APT::Architectures::="$arch"
     -o Acquire::Languages=none -o APT::Sandbox::User=root)
mkdir -p "$r/lists/partial" "$r/cache/archives/partial" "$r/sources.list.d"
exec 8>"$r.lock"
flock 8
if [ -z "$(find "$r/updated" -mmin -1440 2>/dev/null)" ]; then
	touch "$r/status"
	main=$(debian_uri bookworm) || exit
	security=$(debian_uri bookworm-security) || exit
	printf '%s\n' "deb $k $main "{bookworm,bookworm-updates,sid,experimental}" main" \
		"deb $k $security bookworm-security main" "deb-src $k $main sid main" \
		>"$r/sources.list"
	say "debian: updating the private apt root for $arch ($r)"
	if apt-get "${APT[@]}" -q --error-on=any update >"$r/update.log" 2>&1; then
		touch "$r/updated"
	elif [ -f "$r/updated" ]; then
		say "debian: warning: could not refresh $r (log: $r/update.log);" \
			"using its lists of $(date -r "$r/updated" +%F)"
	else
		tail -n 5 "$r/update.log" >&2
		die "apt-get update for $arch failed; log: $r/update.log"
	fi
fi
case $1 in
newest)
	pkg=$(apt-cache "${APT[@]}" pkgnames | grep -E "^($3)\$" | sort -V | tail -n 1 || true)
	ver=$(apt-cache "${APT[@]}" policy "$pkg" | sed -n '/(none)/!s/^  Candidate: //p')
	[ -n "$pkg" ] && [ -n "$ver" ] || die "no package matching '$3' in Debian's archive for $2"
	echo "$pkg $ver"
	;;
has)
	apt-cache "${APT[@]}" madison "${3%%=*}" |
		awk -v v="${3#*=}" '$3 == v { f = 1 } END { exit !f }'
	;;
depends)
	apt-cache "${APT[@]}" depends "$3" | awk '/Depends:/ { print $2 }' |
		grep -E "^($4)\$" | sort -u
	;;
unpack)
	mkdir -p "$3.debs"
	(cd "$3.debs" && apt-get "${APT[@]}" -q download "${@:4}" >download.log 2>&1) ||
		{ tail -n 5 "$3.debs/download.log" >&2; die "could not download ${*:4}"; }
	for deb in "$3.debs"/*.deb; do
		dpkg-deb -x "$deb" "$3"
	done
	rm -rf "$3.debs"
	;;
source)
	mkdir -p "$3"
	(cd "$3" && apt-get "${APT[@]}" -q source --download-only "$2" >download.log 2>&1 &&
		dpkg-source -x --no-check ./*.dsc src >>download.log 2>&1) ||
		{ tail -n 5 "$3/download.log" >&2; die "could not fetch the source of $2"; }
	;;
esac
