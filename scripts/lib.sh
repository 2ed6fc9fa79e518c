# SPDX-License-Identifier: GPL-2.0
# The verbs every sched_state script shares.  Sourced, never run.
# Its variables (KERNEL, ARCH, KSRC, KIMAGE, KDIR, BUILD, ...): docs/variables.md.

set -euo pipefail

# Debian's python3 and tools first: deps.sh installs their modules
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# what outlives a clone: apt roots, unpacked and built kernels
if [ "$(id -u)" -eq 0 ]; then
	CACHE=${SCHED_STATE_CACHE:-/var/cache/sched_state}
else
	CACHE=${SCHED_STATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sched_state}
fi
export SCHED_STATE_CACHE=$CACHE
KSRC_DEFAULT=$BUILD/linux
KSRC=${KSRC:-$KSRC_DEFAULT}
SELFTESTS=$KSRC/tools/testing/selftests

say() { printf '==> %s\n' "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 2; }

# gate NAME CMD...: run one check, say PASS or FAIL with its time, count it;
# "gates WHAT" prints the counts and fails if any gate failed.
passed=0
failures=()

gate()
{
	local name=$1 start=$SECONDS verdict=PASS

	shift
	say "${0##*/}: $name"
	"$@" || { verdict=FAIL; failures+=("$name"); }
	[ $verdict = FAIL ] || passed=$((passed + 1))
	echo "$verdict: $name ($((SECONDS - start)) s)"
}

gates()
{
	[ ${#failures[@]} -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
	echo "$1: $passed passed, ${#failures[@]} failed"
	[ ${#failures[@]} -eq 0 ]
}

# debian_uri SUITE: the archive URI this machine's apt takes SUITE from
debian_uri()
{
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(CODENAME)' 'Created-By: Packages' |
		awk -v s="$1" '$2 == s || $3 == s { sub("/$", "", $1); print $1; exit }' | grep . ||
		die "no apt source of this machine serves $1 (see /etc/apt/sources.list*)"
}

# table FILE FIELDS [COLUMN=VALUE|COLUMN!=VALUE...]: the one reader of
# scripts/*.tsv.  FIELDS (comma-separated column names of its "# name ..."
# header) of each line meeting every condition, in order.  A role matches
# any of its comma-separated words.
table()
{
	awk -v fields="$2" -v conds="${*:3}" -v file="${1##*/}" '
	function bad(what) { print file ": " what > "/dev/stderr"; err = 2; exit 2 }
	function has(c, v) { return $col[c] == v || (c == "role" && index("," $col[c] ",", "," v ",")) }
	!nf && /^# [a-z]+\t/ {
		for (i = 2; i <= NF; i++)
			col[$i] = i - 1
		nf = split(fields, f, ",")
		nc = split(conds, cs, " ")
		for (i = 1; i <= nc; i++) {
			match(cs[i], /!?=/) || bad("not COLUMN=VALUE: " cs[i])
			cc[i] = substr(cs[i], 1, RSTART - 1)
			neg[i] = RLENGTH == 2
			cv[i] = substr(cs[i], RSTART + RLENGTH)
		}
		for (i = 1; i <= nf; i++) if (!(f[i] in col)) bad("no column " f[i])
		for (i = 1; i <= nc; i++) if (!(cc[i] in col)) bad("no column " cc[i])
		next
	}
	/^#/ || !NF { next }
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
	' "$1"
}

# kernels FIELDS [CONDITION...]: scripts/kernels.tsv's lines
kernels() { table "$TOP/scripts/kernels.tsv" "$@"; }

# arch_names: the arches of scripts/arches.tsv, in its order
arch_names() { table "$TOP/scripts/arches.tsv" arch; }

# arch_set ARCH: A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU
# A_CONSOLE A_STREAMS A_IMAGE A_PACKAGES from ARCH's line of
# scripts/arches.tsv (ARCH: its name or its Debian name; "-" is empty)
arch_set()
{
	local t=$TOP/scripts/arches.tsv row
	local all=arch,debian,karch,cross,qemu,machine,cpu,console,streams,image,packages

	row=$(table "$t" $all arch="$1"; table "$t" $all debian="$1")
	[ -n "$row" ] || die "arch $1: not in scripts/arches.tsv; known: $(arch_names | xargs)"
	read -r A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU A_CONSOLE \
		A_STREAMS A_IMAGE A_PACKAGES <<<"${row%%$'\n'*}"
	[ "$A_CROSS" != - ] || A_CROSS=
	[ "$A_MACHINE" != - ] || A_MACHINE=
}

# kernel_name: the kernels.tsv name KERNEL and ARCH select: KERNEL (default
# the role "default"); with ARCH, among its lines the one named KERNEL or
# KERNEL-<arch>, without KERNEL the first
kernel_name()
{
	local name

	if [ -z "${ARCH:-}" ]; then
		name=${KERNEL:-$(kernels name role=default | head -n 1)}
	else
		arch_set "$ARCH"
		name=$(kernels name arch="$A_ARCH" |
			awk -v a="$A_ARCH" -v k="${KERNEL:-}" 'k == "" || $1 == k || $1 == k "-" a { print; exit }')
	fi
	[ -n "$name" ] || die "KERNEL=${KERNEL:-} ARCH=${ARCH:-}: no such kernel in scripts/kernels.tsv"
	echo "$name"
}

# image_release IMAGE: the release in the image's own header
image_release() { file -bL "$1" | sed -n 's/.*, version \([^ ]*\) .*/\1/p'; }

# pick_kernel: set KNAME, KARCH, KIMAGE, KVER, KDIR and KFROM for the kernel
# under test (KERNEL= and ARCH=, or one's own KIMAGE= with KDIR=).  KOWN is
# 1 for a kernels.tsv kernel with its own KDIR.  Resolved once per command:
# KPICKED carries the request and the answer to the scripts it runs.
pick_kernel()
{
	local dir kdir=${KDIR:-} name req picked=${KPICKED:-} p

	name=custom
	[ -n "${KIMAGE:-}" ] || name=$(kernel_name) || exit
	req="$name"$'\x1f'"$kdir"$'\x1f'"${KIMAGE:-}"$'\x1f'"${ARCH:-}"
	if [ "${picked%%$'\x1e'*}" = "$req" ]; then
		IFS=$'\x1f' read -r -a p <<<"${picked#*$'\x1e'}"
		KARCH=${p[0]} KIMAGE=${p[1]} KVER=${p[2]} KDIR=${p[3]} KFROM=${p[4]}
	elif [ "$name" = custom ]; then
		[ -f "$KIMAGE" ] || die "KIMAGE=$KIMAGE: no such file"
		arch_set "${ARCH:-x86_64}"
		KARCH=$A_ARCH KFROM="KIMAGE=$KIMAGE"
		KVER=$(image_release "$KIMAGE")
		[ -n "$KVER" ] || die "$KIMAGE: not a Linux kernel image"
		KDIR=${kdir:-/lib/modules/$KVER/build}
	else
		dir=$("$TOP/scripts/tree/kernel.sh" "$name") || exit
		. "$dir/env"
		KDIR=${kdir:-$KDIR}
	fi
	KNAME=$name
	[ "$name" = custom ] || KERNEL=$name
	KOWN=0
	[ -n "$kdir" ] || [ "$name" = custom ] || KOWN=1
	KPICKED=$req$'\x1e'$KARCH$'\x1f'$KIMAGE$'\x1f'$KVER$'\x1f'$KDIR$'\x1f'$KFROM
	export KARCH KPICKED
	[ -f "$KDIR/Makefile" ] || die "KDIR=$KDIR: no kernel build tree for $KVER (pass KDIR=)"
}

# stress_command: the guest command of the hostile-input and lifecycle
# programs (STRESS_INPUTS junk requests, STRESS_SEED replays a run)
stress_command()
{
	local inputs=${STRESS_INPUTS:-10000} seed=${STRESS_SEED:-}

	[[ -z $seed || $seed =~ ^[0-9]+$ ]] || die "STRESS_SEED=$seed: not a number"
	[[ $inputs =~ ^[0-9]+$ ]] || die "STRESS_INPUTS=$inputs: not a number"
	echo "sh /guest/stress.sh $inputs $seed"
}
