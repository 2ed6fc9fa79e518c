#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, from Debian's archive, what a target needs and is missing.
#
#   deps.sh run     make run, tree, build, bench: building and booting
#                   kernels of ARCH (default x86_64; its packages are its
#                   column of scripts/arches.tsv)
#   deps.sh checkpatch  make checkpatch: building, and checkpatch.pl
#   deps.sh patches make patches: building, checkpatch.pl, git am and the
#                   docs build
#   deps.sh check   make check and make deps: everything, every arch
#
# apt's output goes to $BUILD/deps.log; one line says what is installed.
. "$(dirname "$0")/../lib.sh"

run=(
	# kernels and the mainline tree are unpacked from Debian's archive
	# by scripts/tree/debian.sh, not installed
	ca-certificates			# its private apt roots
	busybox-static cpio fakeroot	# the VM's initramfs, made as any user
	rsync				# lib.mk's install rule
	bc bison flex libelf-dev libssl-dev	# configuring and building kernels
	dwarves				# pahole: Debian's 6.12 headers build BTF
	patch				# make tree applies patches/
	file gcc make perl python3 xz-utils
)
checkpatch=(git python3-ply python3-git)	# checkpatch.pl runs spdxcheck.py
docs=(python3-sphinx python3-sphinx-rtd-theme)	# the docs build
check=(
	clang coccinelle ocaml		# the static gates (sparse: scripts/gates/sparse.sh)
	dpkg-dev			# sparse.sh: dpkg-source, dpkg-parsechangelog
	python3-yaml				# ci-jobs.py loads the CI job entries
	debootstrap				# clean-debian.sh's clean Debian 12
)

# arch_packages ARCH...: the packages of each ARCH's line of arches.tsv
arch_packages()
{
	local a

	for a; do
		arch_set "$a"
		echo "${A_PACKAGES//,/ }"
	done
}

case ${1:-} in
run) pkgs=("${run[@]}" $(arch_packages "${ARCH:-x86_64}")) ;;
checkpatch) pkgs=("${run[@]}" "${checkpatch[@]}") ;;
patches) pkgs=("${run[@]}" "${checkpatch[@]}" "${docs[@]}") ;;
check) pkgs=("${run[@]}" "${checkpatch[@]}" "${docs[@]}" "${check[@]}"
	     $(arch_packages $(arch_names))) ;;
*) die "usage: $0 run|checkpatch|patches|check" ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run 'make deps' as root"
mkdir -p "$BUILD"
log=$BUILD/deps.log
start=$SECONDS
say "deps: installing ${#missing[@]} packages for make $1 (log: $log)"
{ apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 ||
	{ tail -n 15 "$log" >&2; die "apt-get install ${missing[*]} failed; log: $log"; }
say "deps: installed ${missing[*]} ($((SECONDS - start)) s)"
