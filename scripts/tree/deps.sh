#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh run|checkpatch|patches|check: install from Debian's archive what
# the target needs and is missing (log: $BUILD/deps.log).  run takes ARCH's
# packages of arches.tsv (default x86_64), check every arch's.
. "$(dirname "$0")/../lib.sh"

# (kernels are unpacked by debian.sh) ca-certificates: its apt roots; busybox-static,
# cpio, fakeroot: the VM's initramfs, as any user; rsync: lib.mk's install;
# dwarves: pahole, as Debian's 6.12 headers build BTF
run=(ca-certificates busybox-static cpio fakeroot rsync bc bison flex libelf-dev
     libssl-dev dwarves patch file gcc make perl python3 xz-utils)
checkpatch=(git python3-ply python3-git)	# checkpatch.pl runs spdxcheck.py
docs=(python3-sphinx python3-sphinx-rtd-theme)
# the static gates; sparse.sh: dpkg-source; ci-jobs.py; clean-debian.sh
check=(clang coccinelle ocaml dpkg-dev python3-yaml debootstrap)

arches=
case ${1:-} in
run) pkgs=("${run[@]}") arches=${ARCH:-x86_64} ;;
checkpatch) pkgs=("${run[@]}" "${checkpatch[@]}") ;;
patches) pkgs=("${run[@]}" "${checkpatch[@]}" "${docs[@]}") ;;
check) pkgs=("${run[@]}" "${checkpatch[@]}" "${docs[@]}" "${check[@]}") arches=$(arch_names) ;;
*) die "usage: $0 run|checkpatch|patches|check" ;;
esac
for a in $arches; do
	arch_set "$a"
	pkgs+=(${A_PACKAGES//,/ })
done

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run 'make deps' as root"
mkdir -p "$BUILD"
log=$BUILD/deps.log
say "deps: installing ${missing[*]} for make $1 (log: $log)"
{ apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 ||
	{ tail -n 15 "$log" >&2; die "apt-get install ${missing[*]} failed; log: $log"; }
