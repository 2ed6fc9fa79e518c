#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Lay the overlay and patches/ into KSRC, and a defconfig and uapi headers if it
# has none.  The default KSRC hard-links mainline.sh's tree: files are replaced.
. "$(dirname "$0")/../lib.sh"

if [ "$KSRC" = "$KSRC_DEFAULT" ]; then
	pristine=$("$TOP/scripts/tree/mainline.sh")
	if [ "$(cat "$KSRC/.sched_state-pristine" 2>/dev/null)" != "$pristine" ]; then
		say "copying $pristine into $KSRC (and a defconfig and uapi headers: a minute)"
		rm -rf "$KSRC"
		mkdir -p "$BUILD"
		cp -al "$pristine" "$KSRC"
		echo "$pristine" >"$KSRC/.sched_state-pristine"
	fi
fi
[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree"
say "laying the overlay and patches/ into $KSRC ($(make -s -C "$KSRC" kernelversion))"

rm -rf "$SELFTESTS/sched_state"
(cd "$TOP" && git ls-files -co --exclude-standard -- tools Documentation) |
	rsync -a --files-from=- "$TOP/" "$KSRC/"

for p in "$TOP"/patches/*.patch "$TOP"/MAINTAINERS.patch; do
	# already applied: it reverses
	patch -d "$KSRC" -p1 -R -s -f --dry-run <"$p" >/dev/null && continue
	say "applying ${p#"$TOP"/}"
	patch -d "$KSRC" -p1 -N -s <"$p" || die "${p#"$TOP"/} does not apply to $KSRC"
done

[ -f "$KSRC/.config" ] || make -s -C "$KSRC" defconfig >/dev/null
[ -f "$KSRC/usr/include/linux/sched.h" ] || make -s -C "$KSRC" headers >/dev/null
