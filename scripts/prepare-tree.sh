#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make KSRC a kernel tree that carries sched_state: by default a hard-linked
# copy of the pristine mainline tree (scripts/mainline.sh), then our files
# laid over it, our patches applied, a defconfig and the uapi headers if the
# tree has none.  Files are replaced, never written in place, so the
# pristine tree stays pristine.
. "$(dirname "$0")/lib.sh"

if [ "$KSRC" = "$KSRC_DEFAULT" ]; then
	pristine=$("$TOP/scripts/mainline.sh")
	if [ "$(cat "$KSRC/.sched_state-pristine" 2>/dev/null)" != "$pristine" ]; then
		say "copying $pristine into $KSRC"
		rm -rf "$KSRC"
		mkdir -p "$BUILD"
		cp -al "$pristine" "$KSRC"
		echo "$pristine" >"$KSRC/.sched_state-pristine"
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
