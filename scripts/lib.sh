# SPDX-License-Identifier: GPL-2.0
# The verbs every sched_state script shares.  Sourced, never run.
#
# Knobs (environment or make variables):
#   MAINLINE  X.Y: the linux-source-X.Y to use (default: the newest in Debian's
#           archive, sid or experimental; scripts/tree/mainline.sh)
#   KSRC    kernel source tree to build in   (default: $BUILD/linux, a copy of
#           that mainline tree with the overlay; one's own tree otherwise)
#   KERNEL  a name of scripts/kernels.tsv    (default: the one whose role
#           is "default", mainline; or ARCH's first kernel there)
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
# what outlives a clone: apt roots, unpacked kernels, built kernels (a
# user's own, for a user other than root)
if [ "$(id -u)" -eq 0 ]; then
	CACHE=${SCHED_STATE_CACHE:-/var/cache/sched_state}
else
	CACHE=${SCHED_STATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sched_state}
fi
# for the scripts that do not source this file (vm.sh)
export SCHED_STATE_CACHE=$CACHE
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

# debian_uri SUITE: the archive URI this machine's apt takes SUITE from
# (bookworm, bookworm-security; one-line or deb822 sources alike)
debian_uri()
{
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(CODENAME)' 'Created-By: Packages' |
		awk -v s="$1" '$2 == s || $3 == s { sub("/$", "", $1); print $1; exit }' | grep . ||
		die "no apt source of this machine serves $1 (see /etc/apt/sources.list*)"
}

# arch_names: the arches of scripts/arches.tsv, in its order
arch_names()
{
	awk '!/^#/ && NF { print $1 }' "$TOP/scripts/arches.tsv"
}

# arch_row ARCH: ARCH's line of scripts/arches.tsv (ARCH: its first or its
# Debian name)
arch_row()
{
	awk -v a="$1" '!/^#/ && NF && ($1 == a || $2 == a)' "$TOP/scripts/arches.tsv" |
		head -n 1 | grep . || die "arch $1: not in scripts/arches.tsv; known: $(arch_names | xargs)"
}

# arch_set ARCH: set A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU
# A_CONSOLE A_STREAMS A_IMAGE A_PACKAGES from ARCH's line of scripts/arches.tsv ("-"
# read as empty for A_CROSS and A_MACHINE)
arch_set()
{
	local row

	row=$(arch_row "$1") || exit
	read -r A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU A_CONSOLE \
		A_STREAMS A_IMAGE A_PACKAGES <<<"$row"
	[ "$A_CROSS" != - ] || A_CROSS=
	[ "$A_MACHINE" != - ] || A_MACHINE=
}

# kernels FIELDS [CONDITION...]: the one reader of scripts/kernels.tsv.
# For each kernel (line) that meets every CONDITION, in the table's order,
# print FIELDS, comma-separated names of its columns (name, arch, from,
# check, full, role, what: the table's "# name ..." header line), space-
# separated.  A CONDITION is COLUMN=VALUE or COLUMN!=VALUE; for role, a
# comma-separated list of words, VALUE is one of its words:
#   kernels name role=debug; kernels name,arch from=debian check!=-
kernels()
{
	awk -v fields="$1" -v conds="${*:2}" '
	function bad(what) { print "kernels: " what > "/dev/stderr"; err = 2; exit 2 }
	function has(c, v,   n, w, i) {
		if (c != "role")
			return $col[c] == v
		n = split($col[c], w, ",")
		for (i = 1; i <= n; i++)
			if (w[i] == v)
				return 1
		return 0
	}
	/^# name[ \t]/ {
		for (i = 2; i <= NF; i++)
			col[$i] = i - 1
		nf = split(fields, f, ",")
		for (i = 1; i <= nf; i++)
			if (!(f[i] in col))
				bad("no column " f[i] " in scripts/kernels.tsv")
		nc = split(conds, cs, " ")
		for (i = 1; i <= nc; i++) {
			if (!match(cs[i], /!?=/))
				bad("not COLUMN=VALUE or COLUMN!=VALUE: " cs[i])
			cc[i] = substr(cs[i], 1, RSTART - 1)
			neg[i] = RLENGTH == 2
			cv[i] = substr(cs[i], RSTART + RLENGTH)
			if (!(cc[i] in col))
				bad("no column " cc[i] " in scripts/kernels.tsv")
		}
		next
	}
	/^#/ || !NF { next }
	!nf { bad("scripts/kernels.tsv: no \"# name ...\" header before its first line") }
	{
		for (i = 1; i <= nc; i++)
			if (has(cc[i], cv[i]) == neg[i])
				next
		out = $col[f[1]]
		for (i = 2; i <= nf; i++)
			out = out " " $col[f[i]]
		print out
	}
	END { exit err }
	' "$TOP/scripts/kernels.tsv"
}

# kernel_name: the name of scripts/kernels.tsv that KERNEL and ARCH select:
# without ARCH, KERNEL (default: the kernel whose role is "default"); with
# it, among ARCH's lines, the one named KERNEL or KERNEL-<arch>, or without
# KERNEL the first.
kernel_name()
{
	local arch name

	if [ -z "${ARCH:-}" ]; then
		name=${KERNEL:-$(kernels name role=default | head -n 1)}
		[ -n "$name" ] || die "scripts/kernels.tsv: no kernel has the role default"
		echo "$name"
		return
	fi
	arch=$(arch_row "$ARCH" | awk '{ print $1 }') || exit
	name=$(kernels name arch="$arch" |
		awk -v a="$arch" -v k="${KERNEL:-}" 'k == "" || $1 == k || $1 == k "-" a { print; exit }')
	[ -n "$name" ] ||
		die "KERNEL=${KERNEL:-} ARCH=$ARCH: no such kernel in scripts/kernels.tsv; $arch has: $(kernels name arch="$arch" | tr '\n' ' ')"
	echo "$name"
}

# The kernel release an image was built as, from the image's own header.
image_release()
{
	file -bL "$1" | sed -n 's/.*, version \([^ ]*\) .*/\1/p'
}

# module_compat KDIR: the make argument that builds the module against a
# tree lacking kzalloc_obj() (6.1), with scripts/tree/module-compat.h; nothing
# for one that has it.  A make O= dir or Debian's headers include their
# source tree's Makefile.
module_compat()
{
	local src

	src=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$1/Makefile" 2>/dev/null | tail -n 1)
	grep -qs '^#define kzalloc_obj(' "${src:-$1}/include/linux/slab.h" ||
		echo "KCFLAGS=-include $TOP/scripts/tree/module-compat.h"
}

# Set KNAME, KARCH, KIMAGE, KVER, KDIR and KFROM for the kernel under test:
# KERNEL=<name of scripts/kernels.tsv> (default: role "default") and ARCH= (see
# kernel_name), or one's own KIMAGE= (with KDIR=, default its /lib/modules
# build tree; ARCH=, default x86_64, says what it is for).  KARCH is
# exported: vm.sh boots the kernel as its line of scripts/arches.tsv says.
# KOWN is 1 for a kernel of kernels.tsv with its own KDIR (no KIMAGE= or
# KDIR= given): nothing of it changes under its path.
#
# The kernel is resolved once per command: the answer is exported, with
# the request it answers, in KPICKED, and a script run for the same
# request (build-kselftest.sh by run-suite.sh) takes it instead of
# resolving it again.
pick_kernel()
{
	local dir kdir=${KDIR:-} name req picked=${KPICKED:-} p

	if [ -n "${KIMAGE:-}" ]; then
		name=custom
	else
		name=$(kernel_name) || exit
	fi
	req="$name"$'\x1f'"$kdir"$'\x1f'"${KIMAGE:-}"$'\x1f'"${ARCH:-}"
	# KPICKED: the request, a record separator, the answer
	if [ "${picked%%$'\x1e'*}" = "$req" ]; then
		IFS=$'\x1f' read -r -a p <<<"${picked#*$'\x1e'}"
		KARCH=${p[0]} KIMAGE=${p[1]} KVER=${p[2]} KDIR=${p[3]} KFROM=${p[4]}
		KNAME=$name
	elif [ "$name" = custom ]; then
		[ -f "$KIMAGE" ] || die "KIMAGE=$KIMAGE: no such file"
		KNAME=custom KARCH=$(arch_row "${ARCH:-x86_64}" | awk '{ print $1 }') || exit
		KFROM="KIMAGE=$KIMAGE"
		KVER=$(image_release "$KIMAGE")
		[ -n "$KVER" ] || die "$KIMAGE: not a Linux kernel image"
		KDIR=${kdir:-/lib/modules/$KVER/build}
	else
		dir=$("$TOP/scripts/tree/kernel.sh" "$name") || exit
		. "$dir/env"
		KDIR=${kdir:-$KDIR}
	fi
	[ "$name" = custom ] || KERNEL=$name
	KOWN=0
	[ -n "$kdir" ] || [ "$name" = custom ] || KOWN=1
	KPICKED=$req$'\x1e'$KARCH$'\x1f'$KIMAGE$'\x1f'$KVER$'\x1f'$KDIR$'\x1f'$KFROM
	export KARCH KPICKED
	[ -f "$KDIR/Makefile" ] ||
		die "KDIR=$KDIR: no kernel build tree for $KVER (pass KDIR=)"
}

# matrix_record NAME RESULT_JSON RC: NAME's entry in $BUILD/matrix.json
# (release, counts, ok, date), from a vm.sh run
matrix_record()
{
	python3 "$TOP/scripts/report/result.py" matrix "$BUILD/matrix.json" "$1" "$KVER" "$2" "$3"
}

# result_value RESULT_JSON KEY[.KEY...]: one value of a vm.sh result.json
# (a list index is a KEY too), as JSON unless it is a string
result_value()
{
	python3 "$TOP/scripts/report/result.py" value "$@"
}

# stress_command: the guest command of scripts/vm/guest/stress.sh, the
# hostile-input and lifecycle programs: STRESS_INPUTS fuzz junk requests
# (default 10000); STRESS_SEED, if set, replays both programs.
stress_command()
{
	local inputs=${STRESS_INPUTS:-10000} seed=${STRESS_SEED:-}

	[[ -z $seed || $seed =~ ^[0-9]+$ ]] || die "STRESS_SEED=$seed: not a number"
	[[ $inputs =~ ^[0-9]+$ ]] || die "STRESS_INPUTS=$inputs: not a number"
	echo "sh /guest/stress.sh $inputs $seed"
}

# stress_figures OUT: print the seed and the fuzz's and the lifecycle's
# results from a vm.sh run of stress_command (OUT/result.json and the
# stress.json it handed back); fail, naming them, if any result is missing
# or failed.
stress_figures()
{
	python3 "$TOP/scripts/report/result.py" stress "$1"
}
