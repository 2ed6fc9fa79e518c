#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make KSRC a kernel tree that carries sched_state: by default a hard-linked
# copy of the pristine mainline tree (scripts/tree/mainline.sh), then our files
# laid over it, our patches applied, a defconfig and the uapi headers if the
# tree has none.  Files are replaced, never written in place, so the
# pristine tree stays pristine.
#
# The default KSRC gets its defconfig and uapi headers (18 s) as copies of
# those made once per pristine tree and compiler, in the tree's cache
# directory (configured-<key>/: only the files that defconfig and make
# headers wrote): a new clone's tree is ready in seconds.
. "$(dirname "$0")/../lib.sh"

# configured PRISTINE: print the directory of PRISTINE's defconfig and uapi
# headers for this machine's compiler, made once in a hard-linked copy
configured()
{
	local key dir tmp

	key=$({ echo "$1"; uname -m; gcc --version | head -n 1; } | sha256sum | cut -c1-12)
	dir=$(dirname "$1")/configured-$key
	exec 8>"$dir.lock"
	flock 8
	if [ ! -f "$dir/.done" ]; then
		say "configuring $1 (defconfig, uapi headers; once)"
		tmp=$dir.tmp
		rm -rf "$dir" "$tmp"
		cp -al "$1" "$tmp"
		make -s -C "$tmp" defconfig >/dev/null &&
			make -s -C "$tmp" headers >/dev/null ||
			die "make defconfig headers failed in $tmp"
		mkdir -p "$dir"
		# what make wrote: the files no longer hard-linked to the tree
		(cd "$tmp" && find . -type f -links 1 -print0 | cpio -0 -pdmu --quiet "$dir") ||
			die "could not keep what make wrote in $tmp"
		rm -rf "$tmp"
		touch "$dir/.done"
	fi
	exec 8>&-
	echo "$dir"
}

if [ "$KSRC" = "$KSRC_DEFAULT" ]; then
	pristine=$("$TOP/scripts/tree/mainline.sh")
	conf=$(configured "$pristine")
	if [ "$(cat "$KSRC/.sched_state-pristine" 2>/dev/null)" != "$pristine $conf" ]; then
		say "copying $pristine into $KSRC"
		rm -rf "$KSRC"
		mkdir -p "$BUILD"
		cp -al "$pristine" "$KSRC"
		# copies, not links: a later make may write them in place
		(cd "$conf" && find . -type f ! -name .done -print0 | cpio -0 -pdmu --quiet "$KSRC") ||
			die "could not copy $conf into $KSRC"
		echo "$pristine $conf" >"$KSRC/.sched_state-pristine"
	fi
fi
[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree"
say "kernel tree: $KSRC ($(make -s -C "$KSRC" kernelversion))"
[ "$KSRC" = "$KSRC_DEFAULT" ] ||
	say "writing into your KSRC=$KSRC: tools/testing/selftests/sched_state and Documentation/ replaced from the overlay, patches/ applied, and a defconfig and uapi headers if it has none"

rm -rf "$SELFTESTS/sched_state"
(cd "$TOP" && git ls-files -co --exclude-standard -- tools Documentation) |
	rsync -a --files-from=- "$TOP/" "$KSRC/"

for p in "$TOP"/patches/*.patch "$TOP"/MAINTAINERS.patch; do
	if patch -d "$KSRC" -p1 -R -s -f --dry-run <"$p" >/dev/null; then
		continue	# already applied
	fi
	say "applying ${p#"$TOP"/}"
	patch -d "$KSRC" -p1 -N -s <"$p" || die "${p#"$TOP"/} does not apply to $KSRC"
done

if [ ! -f "$KSRC/.config" ]; then
	say "configuring $KSRC (defconfig)"
	make -s -C "$KSRC" defconfig >/dev/null
fi
if [ ! -f "$KSRC/usr/include/linux/sched.h" ]; then
	say "installing uapi headers in $KSRC"
	make -s -C "$KSRC" headers >/dev/null
fi
