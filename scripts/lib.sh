# SPDX-License-Identifier: GPL-2.0
# The verbs every sched_state script shares.  Sourced, never run.
#
# Knobs (environment or make variables):
#   MAINLINE  X.Y: the linux-source-X.Y to use (default: the newest in Debian's
#           archive, sid or experimental; scripts/mainline.sh)
#   KSRC    kernel source tree to build in   (default: $BUILD/linux, a copy of
#           that mainline tree with the overlay; one's own tree otherwise)
#   KERNEL  a name of scripts/kernels.tsv    (default: mainline, or ARCH's
#           first kernel there)
#   ARCH    an arch of scripts/arches.tsv, or its Debian name: KERNEL=<n>
#           names its line "<n>" or "<n>-<arch>" (default: KERNEL's arch)
#   KIMAGE  one's own kernel image to boot   (instead of KERNEL)
#   KDIR    kernel build tree for the module (default: KERNEL's)
#   BUILD   where everything generated goes  (default: ./build)

set -euo pipefail

# Debian's python3 and tools first: deps.sh installs their modules
# (checkpatch's spdxcheck.py needs python3-ply and python3-git)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# what outlives a clone: apt roots, unpacked kernels, built kernels
CACHE=${SCHED_STATE_CACHE:-/var/cache/sched_state}
KSRC_DEFAULT=$BUILD/linux
KSRC=${KSRC:-$KSRC_DEFAULT}
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

# arch_row ARCH: ARCH's line of scripts/arches.tsv (ARCH: its first or its
# Debian name)
arch_row()
{
	awk -v a="$1" '!/^#/ && NF && ($1 == a || $2 == a)' "$TOP/scripts/arches.tsv" |
		head -n 1 | grep . ||
		die "arch $1: not in scripts/arches.tsv; known: $(awk '!/^#/ && NF { printf "%s ", $1 }' "$TOP/scripts/arches.tsv")"
}

# arch_set ARCH: set A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU
# A_CONSOLE A_STREAMS A_IMAGE from ARCH's line of scripts/arches.tsv ("-"
# read as empty for A_CROSS and A_MACHINE)
arch_set()
{
	local row

	row=$(arch_row "$1") || exit
	read -r A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU A_CONSOLE \
		A_STREAMS A_IMAGE <<<"$row"
	[ "$A_CROSS" != - ] || A_CROSS=
	[ "$A_MACHINE" != - ] || A_MACHINE=
}

# kernel_name: the name of scripts/kernels.tsv that KERNEL and ARCH select:
# without ARCH, KERNEL (default mainline); with it, among ARCH's lines, the
# one named KERNEL or KERNEL-<arch>, or without KERNEL the first.
kernel_name()
{
	local table=$TOP/scripts/kernels.tsv arch name

	if [ -z "${ARCH:-}" ]; then
		echo "${KERNEL:-mainline}"
		return
	fi
	arch=$(arch_row "$ARCH" | awk '{ print $1 }') || exit
	name=$(awk -v a="$arch" -v k="${KERNEL:-}" '
		!/^#/ && NF && $2 == a && (k == "" || $1 == k || $1 == k "-" a) { print $1; exit }
	' "$table")
	[ -n "$name" ] ||
		die "KERNEL=${KERNEL:-} ARCH=$ARCH: no such kernel in scripts/kernels.tsv; $arch has: $(awk -v a="$arch" '!/^#/ && $2 == a { printf "%s ", $1 }' "$table")"
	echo "$name"
}

# The kernel release an image was built as, from the image's own header.
image_release()
{
	file -bL "$1" | sed -n 's/.*, version \([^ ]*\) .*/\1/p'
}

# Set KNAME, KARCH, KIMAGE, KVER, KDIR and KFROM for the kernel under test:
# KERNEL=<name of scripts/kernels.tsv> (default mainline) and ARCH= (see
# kernel_name), or one's own KIMAGE= (with KDIR=, default its /lib/modules
# build tree; ARCH=, default x86_64, says what it is for).  KARCH is
# exported: vm.sh boots the kernel as its line of scripts/arches.tsv says.
pick_kernel()
{
	local dir kdir=${KDIR:-} name

	if [ -n "${KIMAGE:-}" ]; then
		[ -f "$KIMAGE" ] || die "KIMAGE=$KIMAGE: no such file"
		KNAME=custom KARCH=$(arch_row "${ARCH:-x86_64}" | awk '{ print $1 }') || exit
		KFROM="KIMAGE=$KIMAGE"
		KVER=$(image_release "$KIMAGE")
		[ -n "$KVER" ] || die "$KIMAGE: not a Linux kernel image"
		KDIR=${kdir:-/lib/modules/$KVER/build}
	else
		name=$(kernel_name) || exit
		KERNEL=$name
		dir=$("$TOP/scripts/kernel.sh" "$name") || exit
		. "$dir/env"
		KDIR=${kdir:-$KDIR}
	fi
	export KARCH
	[ -f "$KDIR/Makefile" ] ||
		die "KDIR=$KDIR: no kernel build tree for $KVER (pass KDIR=)"
}

# matrix_record NAME RESULT_JSON RC: NAME's line in $BUILD/matrix.txt,
# "<name> <release> <pass> pass <skip> skip <fail> fail", from a vm.sh run
matrix_record()
{
	python3 - "$BUILD/matrix.txt" "$1" "$KVER" "$2" "$3" <<-'EOF'
	import json, sys
	path, name, release, result, rc = sys.argv[1:]
	r = json.load(open(result))
	line = f'{name} {release} {r["pass"]} pass {r["skip"]} skip {r["fail"]} fail'
	line += "\n" if rc == "0" else " (run FAILED: see its vm.log)\n"
	try:
	    lines = [l for l in open(path) if l.split()[:1] != [name]]
	except FileNotFoundError:
	    lines = []
	open(path, "w").writelines(lines + [line])
	EOF
}

# stress_guest: guest shell lines for the hostile-input and lifecycle
# programs: sched_state_fuzz (STRESS_INPUTS per file, default 10000; module
# loaded), then sched_state_lifecycle.sh, as one TAP block (a plan and two
# results, each program's own KTAP nested as "# " lines).  STRESS_SEED, if
# set, replays both.
stress_guest()
{
	local inputs=${STRESS_INPUTS:-10000} seed=${STRESS_SEED:-} fuzz

	[[ -z $seed || $seed =~ ^[0-9]+$ ]] || die "STRESS_SEED=$seed: not a number"
	[[ $inputs =~ ^[0-9]+$ ]] || die "STRESS_INPUTS=$inputs: not a number"
	fuzz="-n $inputs${seed:+ -s $seed}"
	cat <<EOF
cd /kselftest/sched_state || exit 1
echo '# sched_state hostile input and lifecycle'
p() { while IFS= read -r l || [ -n "\$l" ]; do echo "# \$l"; done; }
res() { case \$3 in 0) echo "ok \$1 \$2" ;; *) echo "not ok \$1 \$2 # exit \$3" ;; esac; }
echo '1..2'
ko=test_module/test_sched_state.ko
{
	insmod \$ko && ./sched_state_fuzz $fuzz; echo \$? >/tmp/rc
	rmmod test_sched_state || echo 1 >/tmp/rc
} 2>&1 | p
res 1 sched_state_fuzz \$(cat /tmp/rc)
{ ${seed:+SCHED_STATE_SEED=$seed} ./sched_state_lifecycle.sh; echo \$? >/tmp/rc; } 2>&1 | p
res 2 sched_state_lifecycle \$(cat /tmp/rc)
EOF
}

# stress_figures TAP: print the fuzz's and the lifecycle's figures from a
# run of stress_guest; fail, naming them, if any of their results is missing.
stress_figures()
{
	local f block missing=

	block=$(sed -n '/^# sched_state hostile input and lifecycle$/,$p' "$1" 2>/dev/null)
	grep -E '^# (# )?(seed|(not )?ok [0-9]+ )' <<<"$block" | sed 's/^# //' || true
	for f in '^# ok 1 fuzz: ' '^# ok 2 sanity after fuzz' '^# ok 1 load/unload cycles: ' \
		 '^# ok 2 rmmod with a request in flight: ' '^# ok 3 SIGKILL at random points: ' \
		 '^# ok 4 parallel writers: '; do
		grep -qE "$f" <<<"$block" || missing+=" '${f#^# }'"
	done
	[ -z "$missing" ] || { echo "missing results:$missing"; return 1; }
}
