#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, from Debian's archive, whatever the tooling needs and is missing.
. "$(dirname "$0")/lib.sh"

pkgs=(
	# kernels and the mainline tree are unpacked from Debian's archive
	# by scripts/debian.sh, not installed
	ca-certificates dpkg-dev	# its private apt roots; dpkg-source
	qemu-system-x86 busybox-static cpio	# the VM and its initramfs
	# the other arches of scripts/arches.tsv: their QEMU and cross
	# compilers (their busybox, dash and libc: vm.sh unpacks them)
	qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	qemu-system-ppc gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
	rsync				# lib.mk's install rule
	bc bison flex libelf-dev libssl-dev	# configuring and building kernels
	dwarves				# pahole: Debian's 6.12 headers build BTF
	patch				# make tree applies patches/
	file gcc make perl python3 xz-utils
	clang coccinelle ocaml		# the static gates (sparse: scripts/sparse.sh)
	python3-sphinx python3-sphinx-rtd-theme	# the docs build
	git python3-ply python3-git		# make patches; checkpatch runs spdxcheck.py
	python3-yaml				# ci-jobs.py loads the CI job entries
	debootstrap				# clean-debian.sh's clean Debian 12
	gnuplot-nox				# compare.py's plots
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run 'make deps' as root"
say "installing ${missing[*]}"
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
