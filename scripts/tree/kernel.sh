#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh NAME: make kernel NAME of kernels.tsv once (built from the mainline
# tree, or Debian's unpacked) in $CACHE/kernels; print its directory, whose
# "env" sets KNAME, KARCH, KIMAGE, KDIR, KVER and KFROM (what it is made from).
. "$(dirname "$0")/../lib.sh"

# bump when the way kernels are built changes: every built kernel rebuilds
RECIPE=1
JOBS=${JOBS:-$(nproc)}

[ $# -eq 1 ] || die "usage: $0 NAME"
name=$1
read -r arch from what < <(kernels arch,from,what name="$name") ||
	die "KERNEL=$name: not in scripts/kernels.tsv; known: $(kernels name | tr '\n' ' ')"
arch_set "$arch"
mkdir -p "$CACHE/kernels"

# done_kernel KIMAGE KDIR KVER KFROM: write $dir/env, marking $dir complete
done_kernel()
{
	printf 'KNAME=%q\nKARCH=%q\nKIMAGE=%q\nKDIR=%q\nKVER=%q\nKFROM=%q\n' \
		"$name" "$arch" "$@" >"$dir/env.tmp"
	mv "$dir/env.tmp" "$dir/env"
}

build_kernel()
{
	local src tree frags=() f key out log bad

	src=$("$TOP/scripts/tree/mainline.sh")
	tree=$(cat "$(dirname "$src")/done")
	for f in base "$arch" ${what//-/}; do
		frags+=("$TOP/scripts/tree/kconfig/$f.config")
	done
	frags+=("$TOP/tools/testing/selftests/sched_state/config")
	# the options alone: a comment in a fragment rebuilds nothing
	key=$({ echo "$RECIPE $arch"; echo "$tree"
		grep -h -e '^CONFIG_' -e '^# CONFIG_.* is not set' "${frags[@]}"; } |
		sha256sum | cut -c1-12)
	dir=$CACHE/kernels/$name-$key
	out=$dir/build
	log=$dir/build.log
	exec 9>"$dir.lock"
	flock 9
	[ ! -f "$dir/env" ] || return 0
	say "kernel $name: building $tree into $out (log: $log, some minutes, once)"
	# for kbuild and merge_config.sh alike
	export ARCH=$A_KARCH CROSS_COMPILE=$A_CROSS
	rm -rf "$dir"
	mkdir -p "$out"
	make_kernel tinyconfig
	(cd "$src" && scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "${frags[@]}") >>"$log" 2>&1 ||
		die "kernel $name: merge_config.sh failed; log: $log"
	# each option's last value in the fragments ("is not set": or none)
	bad=$(awk '
	{ o = /^CONFIG_/ ? substr($0, 1, index($0, "=") - 1) : /^# CONFIG_.* is not set$/ ? $2 : "" }
	o != "" && FNR == NR { have[o] = $0 }
	o != "" && FNR != NR { want[o] = $0 }
	END {
		for (o in want)
			if (want[o] != have[o] && !(want[o] ~ /^#/ && have[o] !~ /^CONFIG_/))
				printf "\n  wanted \"%s\", .config has \"%s\"", want[o], have[o]
	}' "$out/.config" "${frags[@]}")
	[ -z "$bad" ] || die "kernel $name: options missing from $out/.config:$bad"
	make_kernel -j"$JOBS" "$(basename "$A_IMAGE")" modules_prepare
	# modules writes Module.symvers, which external modules link against
	make_kernel -j"$JOBS" modules
	[ -f "$out/$A_IMAGE" ] && [ -f "$out/Module.symvers" ] ||
		die "kernel $name: no $A_IMAGE or Module.symvers; log: $log"
	done_kernel "$out/$A_IMAGE" "$out" "$(cat "$out/include/config/kernel.release")" \
		"$tree + ${frags[*]##*/}"
}

make_kernel()
{
	make -C "$src" O="$out" "$@" >>"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "kernel $name: make $* failed; log: $log"; }
}

unpack_kernel()
{
	local debian=$TOP/scripts/tree/debian.sh found pkg ver abi headers deps kbuild root

	found=$("$debian" newest "$A_DEBIAN" "$what")
	read -r pkg ver <<<"$found"
	abi=${pkg#linux-image-}
	abi=${abi%-unsigned}
	dir=$CACHE/kernels/$name-$abi-$ver
	exec 9>"$dir.lock"
	flock 9
	[ ! -f "$dir/env" ] || return 0
	headers=linux-headers-$abi
	deps=$("$debian" depends "$A_DEBIAN" "$headers" 'linux-headers-.*')
	# linux-kbuild's programs run here: this machine's arch, the same version
	kbuild=$("$debian" depends "$A_DEBIAN" "$headers" 'linux-kbuild-.*')
	say "kernel $name: unpacking $pkg $ver and $headers" $deps $kbuild
	rm -rf "$dir"
	root=$dir/root
	"$debian" unpack "$A_DEBIAN" "$root" "$pkg=$ver" "$headers" $deps
	[ -z "$kbuild" ] || "$debian" unpack "$(dpkg --print-architecture)" "$root" "$kbuild=$ver"
	# the flavour's Makefile includes the common headers by absolute path
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$root/usr/src/$headers/Makefile"
	done_kernel "$(ls "$root"/boot/vmlinu[xz]-* | head -n 1)" "$root/usr/src/$headers" "$abi" \
		"Debian $pkg $ver"
}

case $from in
build) build_kernel ;;
debian) unpack_kernel ;;
*) die "scripts/kernels.tsv: $name: unknown source '$from'" ;;
esac
touch "$dir/used"	# make prune-cache reads the mark
echo "$dir"
