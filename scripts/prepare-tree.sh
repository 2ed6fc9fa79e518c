#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make KSRC a kernel tree that carries sched_state: extract Debian's source
# once, lay our files over it, apply our patches, configure and install the
# uapi headers if the tree has none.
. "$(dirname "$0")/lib.sh"

if [ ! -f "$KSRC/Makefile" ]; then
	[ "$KSRC" = "$BUILD/linux-source-6.1" ] || die "KSRC=$KSRC is not a kernel tree"
	[ -f "$DEBIAN_SRC" ] || die "$DEBIAN_SRC missing: run 'make deps'"
	say "extracting $DEBIAN_SRC into $BUILD (once)"
	mkdir -p "$BUILD"
	tar -C "$BUILD" -xf "$DEBIAN_SRC"
fi

say "overlaying sched_state onto $KSRC"
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
