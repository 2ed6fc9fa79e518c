#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make kernel NAME of kernels.tsv ready to boot and to build modules against,
# once: build it from the mainline tree, or unpack Debian's image and
# headers.  Prints its directory, whose file "env" sets KNAME, KARCH,
# KIMAGE, KDIR, KVER and KFROM (what it is made from).
#
#   kernel.sh NAME     make it (cached in $CACHE/kernels), print its directory
. "$(dirname "$0")/../lib.sh"

# bump when the way kernels are built changes: every build kernel is rebuilt
RECIPE=1
JOBS=${JOBS:-$(nproc)}

[ $# -eq 1 ] || die "usage: $0 NAME"
name=$1
read -r arch from what < <(kernels arch,from,what name="$name") ||
	die "KERNEL=$name: not in scripts/kernels.tsv; known: $(kernels name | tr '\n' ' ')"
arch_set "$arch"
debarch=$A_DEBIAN image=$A_IMAGE
# the build tree's host programs (fixdep, modpost) run on this machine
hostarch=$(dpkg --print-architecture)

mkdir -p "$CACHE/kernels"

# done DIR VAR=VALUE...: record the kernel's env, mark DIR complete, print it
done_kernel()
{
	local dir=$1 v

	shift
	for v in "KNAME=$name" "KARCH=$arch" "$@"; do
		printf '%s=%q\n' "${v%%=*}" "${v#*=}"
	done >"$dir/env.tmp"
	mv "$dir/env.tmp" "$dir/env"
	used "$dir"
}

# used DIR: print DIR, and mark it used now (make prune-cache reads the mark)
used()
{
	touch "$1/used"
	echo "$1"
}

# wanted FRAGMENT... CONFIG: fail if an option's last line in the fragments
# did not survive into CONFIG
wanted()
{
	local config=${*: -1} l o missing=0
	local -A want=()

	while IFS= read -r l; do
		case $l in
		CONFIG_*=*) o=${l%%=*} ;;
		"# CONFIG_"*" is not set") o=${l#\# }; o=${o%% *} ;;
		*) continue ;;
		esac
		want[$o]=$l
	done < <(cat "${@:1:$#-1}")
	for o in "${!want[@]}"; do
		l=${want[$o]}
		case $l in
		CONFIG_*) grep -qxF -- "$l" "$config" && continue ;;
		*) grep -q "^$o=" "$config" || continue ;;
		esac
		echo "kernel $name: wanted '$l', .config has: $(grep -E "(^|# )$o[= ]" "$config" || echo nothing)" >&2
		missing=$((missing + 1))
	done
	[ $missing -eq 0 ] || die "kernel $name: $missing wanted options are not in $config"
}

build_kernel()
{
	local src frags=() f key dir out log start

	src=$("$TOP/scripts/tree/mainline.sh")
	frags=("$TOP/scripts/tree/kconfig/base.config" "$TOP/scripts/tree/kconfig/$arch.config")
	for f in ${what//-/}; do
		frags+=("$TOP/scripts/tree/kconfig/$f.config")
	done
	frags+=("$TOP/tools/testing/selftests/sched_state/config")
	# the options alone: a comment in a fragment rebuilds nothing
	key=$({ echo "$RECIPE $arch"; cat "$(dirname "$src")/done"
		grep -h -e '^CONFIG_' -e '^# CONFIG_.* is not set' "${frags[@]}"; } |
		sha256sum | cut -c1-12)
	dir=$CACHE/kernels/$name-$key
	out=$dir/build
	exec 9>"$dir.lock"
	flock 9
	if [ -f "$dir/env" ]; then
		used "$dir"
		return
	fi
	say "kernel $name: building $(cat "$(dirname "$src")/done") into $out (log: $dir/build.log, some minutes, once)"
	# for kbuild and merge_config.sh alike
	export ARCH=$A_KARCH CROSS_COMPILE=$A_CROSS
	rm -rf "$dir"
	mkdir -p "$out"
	log=$dir/build.log
	start=$SECONDS
	make_kernel() { make -C "$src" O="$out" "$@" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "kernel $name: make $* failed; log: $log"; }; }
	make_kernel tinyconfig
	(cd "$src" && scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "${frags[@]}") >>"$log" 2>&1 ||
		die "kernel $name: merge_config.sh failed; log: $log"
	wanted "${frags[@]}" "$out/.config"
	make_kernel -j"$JOBS" "$(basename "$image")" modules_prepare
	# modules writes Module.symvers, which external modules link against
	make_kernel -j"$JOBS" modules
	[ -f "$out/$image" ] && [ -f "$out/Module.symvers" ] || die "kernel $name: no $image or Module.symvers; log: $log"
	say "kernel $name: built in $((SECONDS - start)) s"
	done_kernel "$dir" "KIMAGE=$out/$image" "KDIR=$out" \
		"KVER=$(cat "$out/include/config/kernel.release")" \
		"KFROM=$(cat "$(dirname "$src")/done") +$(echo " ${frags[*]##*/}")"
}

unpack_kernel()
{
	local pkg ver abi headers deps kbuild dir root mk

	read -r pkg ver < <("$TOP/scripts/tree/debian.sh" newest "$debarch" "$what") ||
		die "kernel $name: no package matching '$what' in Debian's archive"
	abi=${pkg#linux-image-}
	abi=${abi%-unsigned}
	dir=$CACHE/kernels/$name-$abi-$ver
	exec 9>"$dir.lock"
	flock 9
	if [ -f "$dir/env" ]; then
		used "$dir"
		return
	fi
	headers=linux-headers-$abi
	deps=$("$TOP/scripts/tree/debian.sh" depends "$debarch" "$headers" 'linux-headers-.*')
	# linux-kbuild's programs run here: this machine's arch, the same version
	# (the headers' scripts and tools link to it, relative to the root)
	kbuild=$("$TOP/scripts/tree/debian.sh" depends "$debarch" "$headers" 'linux-kbuild-.*')
	say "kernel $name: unpacking $pkg $ver and $headers" $deps "and $hostarch's" $kbuild
	rm -rf "$dir"
	root=$dir/root
	"$TOP/scripts/tree/debian.sh" unpack "$debarch" "$root" "$pkg=$ver" "$headers" $deps
	[ -z "$kbuild" ] || "$TOP/scripts/tree/debian.sh" unpack "$hostarch" "$root" "$kbuild=$ver"
	# the flavour's Makefile includes the common headers by absolute path
	mk=$root/usr/src/$headers/Makefile
	sed "s|^include /usr/src/|include $root/usr/src/|" "$mk" >"$mk.new" && mv "$mk.new" "$mk"
	done_kernel "$dir" "KIMAGE=$(ls "$root"/boot/vmlinu[xz]-* | head -n 1)" \
		"KDIR=$root/usr/src/$headers" "KVER=$abi" "KFROM=Debian $pkg $ver"
}

case $from in
build) build_kernel ;;
debian) unpack_kernel ;;
*) die "scripts/kernels.tsv: $name: unknown source '$from'" ;;
esac
