#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install and print $BUILD/$KNAME/kselftest: the suite for the kernel under test
# (cached in $CACHE/kselftest), then the tooling in sched_state-tooling/.
. "$(dirname "$0")/../lib.sh"
pick_kernel
# ARCH= named the kernel: kbuild and the selftests get the arch's own below
unset ARCH

out=$BUILD/$KNAME/kselftest
log=$BUILD/$KNAME/build.log
cross=()
[ -z "$A_CROSS" ] || cross=(ARCH="$A_KARCH" CROSS_COMPILE="$A_CROSS")
mkdir -p "$BUILD/$KNAME"
: >"$log"

run() { "${@:2}" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "$1 failed; log: $log"; }; }

rm -rf "$out"
cached=
if [ "$KSRC" = "$KSRC_DEFAULT" ] && [ "$KOWN" = 1 ]; then
	cached=$CACHE/kselftest/$KNAME-$({
		echo "$KNAME $KARCH $KVER $KDIR $KFROM $(cat "$KSRC/.sched_state-pristine")"
		gcc --version | head -n 1
		[ -z "$A_CROSS" ] || "${A_CROSS}gcc" --version | head -n 1
		(cd "$TOP" && git ls-files -co --exclude-standard -z -- tools) |
			(cd "$KSRC" && xargs -0 sha256sum -- tools/testing/selftests/{Makefile,lib.mk})
		(cd "$TOP" && sha256sum scripts/lib.sh scripts/tree/build-kselftest.sh)
	} | sha256sum | cut -c1-12)
	if [ -d "$cached/kselftest" ]; then
		say "sched_state for $KNAME: sources unchanged, built before ($cached)"
		cp -a "$cached/kselftest" "$out"
	fi
fi
if [ ! -d "$out" ]; then
	mod=$BUILD/$KNAME/module
	pmake=()
	if [ -n "$A_CROSS" ]; then
		# the arch's uapi headers, in the O= directory the selftests take them from
		o=$BUILD/o-$KARCH
		run "make headers" make -s -C "$KSRC" O="$o" "${cross[@]}" headers
		pmake=("${cross[@]}" O="$o" USERLDFLAGS=-static)
	fi
	say "building sched_state for $KNAME ($KVER) in $KSRC${o:+ (static, O=$o)}"
	run "building the suite's programs" make -s -C "$SELFTESTS" TARGETS=sched_state \
		KDIR=/nonexistent "${pmake[@]}" install INSTALL_PATH="$out"
	rm -rf "$mod"
	mkdir -p "$mod" "$out/sched_state/test_module"
	# the module includes the directory's headers as ../
	cp -r "$SELFTESTS"/sched_state/{*.h,test_module} "$mod/"
	run "building test_sched_state.ko" make -C "$mod/test_module" KDIR="$KDIR" "${cross[@]}"
	cp "$mod/test_module/test_sched_state.ko" "$out/sched_state/test_module/"
	if [ -n "$cached" ]; then
		# whole or not at all: a concurrent build of the same key may win
		mkdir -p "$CACHE/kselftest"
		tmp=$(mktemp -d "$cached.XXXXXX")
		cp -a "$out" "$tmp/kselftest"
		mv -T "$tmp" "$cached" 2>/dev/null || rm -rf "$tmp"
	fi
fi
[ -z "$cached" ] || touch "$cached/used"

# the workshop's programs and module: not what a CI farm ships, nor in the key
seed=$BUILD/$KNAME/seed
run "building the workshop's programs" make -s -f "$TOP/scripts/tree/tooling-programs.mk" \
	SELFTESTS="$SELFTESTS" OUTPUT="$out/sched_state-tooling" CROSS_COMPILE="$A_CROSS" install
cp -rpT "$TOP/scripts/bench/seed" "$seed"
run "building sched_state_seed.ko" make -C "$KDIR" O="$(cd "$KDIR" && pwd)" M="$seed" \
	"${cross[@]}" modules
cp "$seed/sched_state_seed.ko" "$out/sched_state-tooling/bench/"
echo "$out"
