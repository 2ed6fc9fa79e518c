#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) a small debug kernel from KSRC for the suite: tinyconfig, then
# scripts/debug-kernel.config and the suite's own config fragment (lockdep,
# KASAN, kmemleak, hung-task detector, debugobjects, ...).  The build lives
# outside the clone, in $DEBUG_KERNEL_CACHE/debug-<key> (default
# /var/cache/sched_state), keyed by the source version, both fragments and this
# script, and is reused while the key's directory holds a completed build.
# Prints that directory (the KDIR; the image is arch/x86/boot/bzImage in it).
. "$(dirname "$0")/lib.sh"

CACHE=${DEBUG_KERNEL_CACHE:-/var/cache/sched_state}
FRAGMENTS=("$TOP/scripts/debug-kernel.config" "$TOP/tools/testing/selftests/sched_state/config")
STAMP=.sched_state-debug-done
JOBS=${JOBS:-$(nproc)}

[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC: no kernel tree (run 'make tree')"
for f in "${FRAGMENTS[@]}"; do
	[ -f "$f" ] || die "$f: missing config fragment"
done

# What identifies the source: its version, Debian's package version for the
# default tree, the commit (and dirtiness) of a git tree.
srcid()
{
	make -s -C "$KSRC" kernelversion
	if [ "$KSRC" = "$BUILD/linux-source-6.1" ]; then
		dpkg-query -W -f='linux-source-6.1 ${Version}\n' linux-source-6.1 2>/dev/null || true
	fi
	if [ -e "$KSRC/.git" ]; then
		git -C "$KSRC" describe --always --dirty --abbrev=40 2>/dev/null || true
	fi
}

src=$(srcid)
key=$({ echo "$src"; cat "${FRAGMENTS[@]}" "$0"; } | sha256sum | cut -c1-16)
out=$CACHE/debug-$key
mkdir -p "$CACHE"

# One build per key at a time; a second caller waits and then reuses it.
exec 9>"$CACHE/debug-$key.lock"
flock 9

if [ -f "$out/$STAMP" ]; then
	say "debug kernel: cached in $out ($(cat "$out/$STAMP"))"
	echo "$out"
	exit 0
fi

# kbuild refuses O= when the source tree itself is configured (make tree runs
# defconfig in it): build from a hard-linked copy made clean with mrproper.
# Nothing here writes into KSRC, and kbuild never writes into its srctree.
# The copy leaves out the overlay's directory, where the suite's own builds
# may be writing meanwhile (make check builds this in the background).
ksrc=$KSRC
if [ -e "$KSRC/.config" ] || [ -d "$KSRC/include/config" ]; then
	skey=$(echo "$src" | sha256sum | cut -c1-16)
	ksrc=$CACHE/src-$skey
	if [ ! -f "$ksrc/.sched_state-src-done" ]; then
		say "debug kernel: clean hard-linked copy of $KSRC in $ksrc"
		rm -rf "$ksrc" "$ksrc.tmp"
		mkdir -p "$ksrc.tmp"
		(cd "$KSRC" && find . -path ./tools/testing/selftests/sched_state -prune -o -print0 |
			cpio -0pdlm --quiet "$ksrc.tmp")
		make -s -C "$ksrc.tmp" mrproper
		mv "$ksrc.tmp" "$ksrc"
		touch "$ksrc/.sched_state-src-done"
	fi
fi

say "debug kernel: building $(echo $src) in $out (log: $out/build.log)"
rm -rf "$out"
mkdir -p "$out"
log=$out/build.log
start=$SECONDS
run()
{
	"$@" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; die "failed: $*; log: $log"; }
}

run make -C "$ksrc" O="$out" tinyconfig
# merge_config.sh: tinyconfig's .config plus the fragments, then alldefconfig
(cd "$ksrc" && run scripts/kconfig/merge_config.sh -O "$out" "$out/.config" "${FRAGMENTS[@]}")

# merge_config.sh only warns when an option did not make it: fail instead.
missing=0
while IFS= read -r l; do
	case $l in
	CONFIG_*=*)
		grep -qxF -- "$l" "$out/.config" && continue ;;
	"# CONFIG_"*" is not set")
		o=${l#\# }; o=${o%% *}
		grep -q "^$o=" "$out/.config" || continue ;;
	*) continue ;;
	esac
	o=${l#\# }; o=${o%%[= ]*}
	echo "debug kernel: wanted '$l', .config has: $(grep -E "(^|# )$o[= ]" "$out/.config" || echo nothing)" >&2
	missing=$((missing + 1))
done < <(cat "${FRAGMENTS[@]}")
((missing == 0)) || die "$missing wanted options are not in $out/.config (dependencies missing?)"

t=$SECONDS
run make -C "$ksrc" O="$out" -j"$JOBS" bzImage modules_prepare
t1=$((SECONDS - t))
t=$SECONDS
# modules writes Module.symvers, which external modules need to link
run make -C "$ksrc" O="$out" -j"$JOBS" modules
t2=$((SECONDS - t))
took=$((SECONDS - start))
[ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/Module.symvers" ] ||
	die "no bzImage or Module.symvers in $out; log: $log"

printf 'built in %dm%02ds: config+bzImage+modules_prepare %ds, modules %ds, -j%s, on %s\n' \
	$((took / 60)) $((took % 60)) $((took - t2)) "$t2" "$JOBS" "$(date -u +%FT%TZ)" >"$out/$STAMP.tmp"
mv "$out/$STAMP.tmp" "$out/$STAMP"
say "debug kernel: $(cat "$out/$STAMP")"
echo "$out"
