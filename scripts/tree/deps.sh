#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh run|checkpatch|patches|check: install what the make target needs and
# is missing (log: $BUILD/deps.log); run: ARCH's arches.tsv packages, check: all.
. "$(dirname "$0")/../lib.sh"

# ca-certificates: debian.sh's apt roots; busybox-static, cpio, fakeroot: the
# VM's initramfs, as any user; rsync: lib.mk's install; dwarves: Debian 6.12's BTF
pkgs=(ca-certificates busybox-static cpio fakeroot rsync bc bison flex libelf-dev
      libssl-dev dwarves patch file gcc make perl python3 xz-utils)
case ${1:-} in
run) arches=${ARCH:-x86_64} ;;
check)
	# the static gates; sparse.sh: dpkg-source; ci-jobs.py; clean-debian.sh
	pkgs+=(clang coccinelle ocaml dpkg-dev python3-yaml debootstrap)
	arches=$(arch_names)
	;&
patches) pkgs+=(python3-sphinx python3-sphinx-rtd-theme) ;&
# checkpatch.pl runs spdxcheck.py
checkpatch) pkgs+=(git python3-ply python3-git) ;;
*) die "usage: $0 run|checkpatch|patches|check" ;;
esac
for a in ${arches:-}; do
	arch_set "$a"
	pkgs+=(${A_PACKAGES//,/ })
done

mapfile -t missing < <(printf '%s\n' "${pkgs[@]}" | sort -u | grep -vxFf <(dpkg-query -W \
	-f='${Status} ${Package}\n' "${pkgs[@]}" 2>/dev/null | sed -n 's/^.* ok installed //p'))
[ ${#missing[@]} -gt 0 ] || exit 0
[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run 'make deps' as root"
mkdir -p "$BUILD"
log=$BUILD/deps.log
say "deps: installing ${missing[*]} for make $1 (log: $log)"
# another apt (a second make, unattended-upgrades) holds dpkg's lock: wait for it
lock=(-o DPkg::Lock::Timeout=600)
{ apt-get "${lock[@]}" update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get "${lock[@]}" install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 ||
	{ tail -n 15 "$log" >&2; die "apt-get install failed; log: $log"; }
