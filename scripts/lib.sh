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
# lock FILE: wait for FILE's lock and hold it on fd 9 (FILE's directory made first)
lock() { mkdir -p "${1%/*}"; exec 9>"$1"; flock 9; }

# gate NAME CMD...: run one check, say PASS or FAIL with its time, count it;
# "gates WHAT" prints the counts and fails if any gate failed.
passed=0
failures=()

gate()
{
	local name=$1 start=$SECONDS verdict=PASS

	say "${0##*/}: $name"
	"${@:2}" || { verdict=FAIL; failures+=("$name"); }
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
		for (i = 1; i <= nf; i++)
			printf "%s%s", $col[f[i]], (i < nf ? " " : "\n")
	}
	END { exit err }
	' "$1"
}

# kernels FIELDS [CONDITION...]: scripts/kernels.tsv's lines
kernels() { table "$TOP/scripts/kernels.tsv" "$@"; }

# arch_names: the arches of scripts/arches.tsv, in its order
arch_names() { table "$TOP/scripts/arches.tsv" arch; }

# arch_set ARCH: the A_* it reads below from ARCH's line of scripts/arches.tsv (ARCH: its
# name or its Debian name; "-" is empty); kept as they are for the arch pick_kernel handed down
arch_set()
{
	[ "${A_ARCH:-}" != "$1" ] || return 0
	read -r A_ARCH A_DEBIAN A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU A_CONSOLE A_STREAMS A_IMAGE A_PACKAGES \
		<<<"$(table "$TOP/scripts/arches.tsv" arch,debian,karch,cross,qemu,machine,cpu,console,streams,image,packages |
			awk -v a="$1" '$1 == a || $2 == a { print; exit }')"
	[ -n "$A_ARCH" ] || die "arch $1: not in scripts/arches.tsv; known: $(arch_names | xargs)"
	[ "$A_CROSS" != - ] || A_CROSS=
	[ "$A_MACHINE" != - ] || A_MACHINE=
}

# kernel_row [NAME]: "name arch from what" of kernels.tsv's NAME, else of the line
# KERNEL and ARCH select: KERNEL (default the role "default"); with ARCH, among its
# lines the one named KERNEL or KERNEL-<arch>, without KERNEL the first
kernel_row()
{
	local k=${1:-${KERNEL:-}} a=

	[ -n "${1:-}" ] || [ -z "${ARCH:-}" ] || { arch_set "$ARCH"; a=$A_ARCH; }
	kernels name,arch,from,what,role | awk -v k="$k" -v a="$a" '
	a == "" && (k == "" ? index("," $5 ",", ",default,") : $1 == k) ||
	a == $2 && (k == "" || $1 == k || $1 == k "-" a) { print $1, $2, $3, $4; f = 1; exit }
	END { exit !f }' ||
		die "KERNEL=$k ARCH=${ARCH:-}: not in scripts/kernels.tsv; known: $(kernels name | xargs)"
}

# image_release IMAGE: the release the image names (its header, else its banner)
image_release()
{
	local r

	r=$(file -bL "$1" | sed -n 's/.*, version \([^ ]*\) .*/\1/p')
	# an arm64 Image: file(1) names no version, its banner does
	[ -n "$r" ] || r=$(strings -n 16 "$1" | sed -n 's/^Linux version \([0-9][^ ]*\) .*/\1/p' | head -n 1)
	echo "$r"
}

# picked: pick_kernel handed down the kernel asked for (KERNEL, KIMAGE, KDIR as it left them)
picked() { [ -n "${KPICKED:-}" ] && [ "$KPICKED" = "${KERNEL:-}|${KIMAGE:-}|${KDIR:-}" ]; }

# pick_kernel: set KNAME, KARCH, KIMAGE, KVER, KDIR, KFROM and arch_set's A_* for
# the kernel under test (KERNEL= and ARCH=, or one's own KIMAGE= with KDIR=).  KOWN
# is 1 for a kernels.tsv kernel with its own KDIR, KENV its kernel.sh env file.
# Resolved once per command: exported, the scripts it runs take them as they are.
pick_kernel()
{
	local dir

	! picked || return 0
	if [ -z "${KIMAGE:-}" ]; then
		dir=$("$TOP/scripts/tree/kernel.sh") || exit
		kernel_use "$dir/env" "${KDIR:-}"
	else
		[ -f "$KIMAGE" ] || die "KIMAGE=$KIMAGE: no such file"
		KVER=$(image_release "$KIMAGE")
		[ -n "$KVER" ] || die "$KIMAGE: not a Linux kernel image"
		KNAME=custom KARCH=${ARCH:-x86_64} KFROM="KIMAGE=$KIMAGE"
		kernel_use "" "${KDIR:-/lib/modules/$KVER/build}"
	fi
}

# kernel_use ENV [KDIR]: pick_kernel's answer, kernel.sh's ENV file (none: KIMAGE's, set)
# with its own KDIR or KDIR
kernel_use()
{
	KENV=$1 KOWN=0
	[ -z "$1" ] || { . "$1"; KERNEL=$KNAME; [ -n "${2:-}" ] || KOWN=1; }
	KDIR=${2:-$KDIR}
	arch_set "$KARCH"
	[ -f "$KDIR/Makefile" ] || die "KDIR=$KDIR: no kernel build tree for $KVER (pass KDIR=)"
	KARCH=$A_ARCH KPICKED="${KERNEL:-}|$KIMAGE|$KDIR"
	export KERNEL KNAME KARCH KIMAGE KDIR KVER KFROM KOWN KENV KPICKED A_ARCH A_DEBIAN \
		A_KARCH A_CROSS A_QEMU A_MACHINE A_CPU A_CONSOLE A_STREAMS A_IMAGE A_PACKAGES
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
