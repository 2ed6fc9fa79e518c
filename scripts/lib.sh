# SPDX-License-Identifier: GPL-2.0
# The verbs every sched_state script shares.  Sourced, never run.
#
# Knobs (environment or make variables):
#   KSRC    kernel source tree to build in   (default: Debian's linux-source-6.1,
#           extracted once under $BUILD)
#   KERNEL  generic | rt | debug             (default: generic; debug: the
#           lockdep/KASAN/kmemleak kernel scripts/debug-kernel.sh builds
#           from KSRC into DEBUG_KERNEL_CACHE, once)
#   KIMAGE  kernel image to boot             (default: Debian's image for KERNEL)
#   KDIR    kernel build tree for the module (default: the headers of KIMAGE)
#   BUILD   where everything generated goes  (default: ./build)

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
DEBIAN_SRC=/usr/src/linux-source-6.1.tar.xz
KSRC=${KSRC:-$BUILD/linux-source-6.1}
SELFTESTS=$KSRC/tools/testing/selftests

say()
{
	printf '==> %s\n' "$*" >&2
}

die()
{
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 2
}

# gate NAME CMD...: run one check, say PASS or FAIL with its time, and count
# it; "gates WHAT" closes with the counts and fails if any gate failed.
passed=0
failed=0
failures=()

gate()
{
	local name=$1 start=$SECONDS

	shift
	say "${0##*/}: $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "PASS: $name ($((SECONDS - start)) s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL: $name ($((SECONDS - start)) s)"
	fi
}

gates()
{
	local f

	for f in "${failures[@]}"; do
		echo "failed: $f"
	done
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# The kernel release an image was built as, from the image's own header.
image_release()
{
	file -bL "$1" | sed -n 's/.*, version \([^ ]*\) .*/\1/p'
}

# Set KNAME, KIMAGE, KVER and KDIR for the kernel under test.
pick_kernel()
{
	KERNEL=${KERNEL:-generic}
	KNAME=$KERNEL
	if [ -n "${KIMAGE:-}" ]; then
		[ -f "$KIMAGE" ] || die "KIMAGE=$KIMAGE: no such file"
		KNAME=custom
	else
		case $KERNEL in
		generic) KIMAGE=$(ls -v /boot/vmlinuz-*-amd64 2>/dev/null |
				  grep -Ev -- '-(rt|cloud)-amd64$' | tail -n 1) ;;
		rt) KIMAGE=$(ls -v /boot/vmlinuz-*-rt-amd64 2>/dev/null | tail -n 1) ;;
		debug)
			# builds it the first time (minutes), then prints the cached tree
			local dk
			dk=$("$TOP/scripts/debug-kernel.sh") ||
				die "building the debug kernel failed (scripts/debug-kernel.sh)"
			KIMAGE=$dk/arch/x86/boot/bzImage
			KDIR=${KDIR:-$dk}
			;;
		*) die "KERNEL=$KERNEL: expected generic, rt or debug" ;;
		esac
		[ -n "$KIMAGE" ] || die "no Debian $KERNEL kernel in /boot: run 'make deps'"
	fi
	KVER=$(image_release "$KIMAGE")
	[ -n "$KVER" ] || die "$KIMAGE: not a Linux kernel image"
	KDIR=${KDIR:-/lib/modules/$KVER/build}
	[ -f "$KDIR/Makefile" ] ||
		die "KDIR=$KDIR: no kernel build tree for $KVER (Debian: apt-get install linux-headers-$KVER; own kernel: pass KDIR=)"
}
