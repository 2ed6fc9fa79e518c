#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh [NAME]: build or unpack NAME (default: lib.sh's kernel_row) once into $CACHE/kernels; print
# its directory (a handed-down kernel's: no look-up), whose "env" sets KNAME KARCH KIMAGE KDIR KVER KFROM.
. "$(dirname "$0")/../lib.sh"

# bump when the way kernels are built changes: every built kernel rebuilds
RECIPE=1
debian=$TOP/scripts/tree/debian.sh

[ $# -le 1 ] || die "usage: $0 [NAME]"
[ -z "${KENV:-}" ] || ! picked || [ "${1:-$KNAME}" != "$KNAME" ] || exec dirname "$KENV"
read -r name arch from what < <(kernel_row "$@") || exit 2
arch_set "$arch"

run() { "$@" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "kernel $name: $* failed; log: $log"; }; }

build_kernel()
{
	local out=$dir/build log=$dir/build.log bad

	say "kernel $name: building $tree into $out (log: $log, some minutes, once)"
	export ARCH=$A_KARCH CROSS_COMPILE=$A_CROSS
	mkdir -p "$out"
	run make -C "$src" O="$out" tinyconfig
	(cd "$src" && run scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "${frags[@]}")
	# each option's last value in the fragments ("is not set": or none)
	bad=$(awk -F'[ =]' '
	{ o = /^CONFIG_/ ? $1 : /^# CONFIG_.* is not set$/ ? $2 : "" }
	o != "" && FNR == NR { have[o] = $0 }
	o != "" && FNR != NR { want[o] = $0 }
	END {
		for (o in want)
			if (want[o] != have[o] && !(want[o] ~ /^#/ && have[o] !~ /^CONFIG_/))
				printf "\n  wanted \"%s\", .config has \"%s\"", want[o], have[o]
	}' "$out/.config" "${frags[@]}")
	[ -z "$bad" ] || die "kernel $name: options missing from $out/.config:$bad"
	# modules writes Module.symvers, which external modules link against
	run make -C "$src" O="$out" -j"${JOBS:-$(nproc)}" "$(basename "$A_IMAGE")" modules
	[ -f "$out/$A_IMAGE" ] && [ -f "$out/Module.symvers" ] ||
		die "kernel $name: no $A_IMAGE or Module.symvers; log: $log"
	kenv=("$out/$A_IMAGE" "$out" "$(cat "$out/include/config/kernel.release")"
	      "$tree + ${frags[*]##*/}")
}

debian_kernel()
{
	local headers=linux-headers-$abi root=$dir/root deps kbuild

	deps=$("$debian" depends "$A_DEBIAN" "$headers" 'linux-headers-.*')
	# linux-kbuild's programs run here: this machine's arch, the same version
	kbuild=$("$debian" depends "$A_DEBIAN" "$headers" 'linux-kbuild-.*')
	say "kernel $name: unpacking $pkg $ver and $headers" $deps $kbuild
	"$debian" unpack "$A_DEBIAN" "$root" "$pkg=$ver" "$headers" $deps
	[ -z "$kbuild" ] || "$debian" unpack "$(dpkg --print-architecture)" "$root" "$kbuild=$ver"
	# the flavour's Makefile includes the common headers by absolute path
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$root/usr/src/$headers/Makefile"
	kenv=("$(ls "$root"/boot/vmlinu[xz]-* | head -n 1)" "$root/usr/src/$headers" "$abi"
	      "Debian $pkg $ver")
}

case $from in
build)
	src=$("$TOP/scripts/tree/mainline.sh")
	tree=$(cat "$(dirname "$src")/done")
	frags=("$TOP"/scripts/tree/kconfig/{base,"$arch"}.config)
	[ "$what" = - ] || frags+=("$TOP/scripts/tree/kconfig/$what.config")
	frags+=("$TOP/tools/testing/selftests/sched_state/config")
	# the options alone: a comment in a fragment rebuilds nothing
	key=$({ echo "$RECIPE $arch"; echo "$tree"
		grep -h -e '^CONFIG_' -e '^# CONFIG_.* is not set' "${frags[@]}"; } |
		sha256sum | cut -c1-12)
	dir=$CACHE/kernels/$name-$key
	;;
debian)
	# Debian's archive asked once a day (debian.sh's lists): till then its answer, if unpacked
	newest=$CACHE/kernels/$name.newest
	dir=$(find "$newest" -mmin -1440 -exec cat {} + 2>/dev/null || true)
	if [ ! -f "$dir/env" ]; then
		read -r pkg ver < <("$debian" newest "$A_DEBIAN" "$what") || exit
		abi=${pkg#linux-image-} abi=${abi%-unsigned}
		dir=$CACHE/kernels/$name-$abi-$ver
	fi
	;;
*) die "scripts/kernels.tsv: $name: unknown source '$from'" ;;
esac
lock "$dir.lock"
if [ ! -f "$dir/env" ]; then
	rm -rf "$dir"
	"${from}_kernel"
	printf 'KNAME=%q\nKARCH=%q\nKIMAGE=%q\nKDIR=%q\nKVER=%q\nKFROM=%q\n' \
		"$name" "$arch" "${kenv[@]}" >"$dir/env.tmp"
	mv "$dir/env.tmp" "$dir/env"
fi
touch "$dir/used"
[ -z "${pkg:-}" ] || echo "$dir" >"$newest"
echo "$dir"
