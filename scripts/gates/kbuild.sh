# SPDX-License-Identifier: GPL-2.0
# What static.sh and build-matrix.sh share.  Sourced after scripts/lib.sh.

OVERLAY=tools/testing/selftests/sched_state

# the overlay's files, relative to TOP, as prepare-tree.sh lays them
overlay_files()
{
	(cd "$TOP" && git ls-files -co --exclude-standard -- "$OVERLAY") | sort
}

# tree_clean DIR WHAT: after WHAT, DIR/$OVERLAY holds the overlay's files alone
tree_clean()
{
	local d

	d=$(comm -3 <(overlay_files) <(cd "$1" && find "$OVERLAY" -type f | sort) |
		sed 's/^\t/  left: /; t; s/^/  gone: /')
	[ -z "$d" ] || printf 'after %s, %s is not as the overlay laid it:\n%s\n' "$2" "$1" "$d"
	[ -z "$d" ]
}

# installed WHAT: the paths on stdin hold what run_kselftest.sh runs
installed()
{
	local list miss

	list=$(sed 's|^\./||; s|^sched_state/test_module/\(test_sched_state\.ko\)$|sched_state/\1|')
	miss=$(printf '%s\n' run_kselftest.sh kselftest-list.txt kselftest/ktap_helpers.sh \
		sched_state/{sched_state_test,sched_state.sh,settings,config,test_sched_state.ko} |
		grep -vxF -f <(printf '%s\n' "$list"))
	[ -z "$miss" ] || { echo "$1: no ${miss//$'\n'/, }"; return 1; }
}

# snapshot KDIR: each file's type, size and time, and Module.symvers' checksum
snapshot()
{
	(cd "$1" && find . -printf '%y %p %s %T@\n' | sort && sha256sum Module.symvers) 2>&1
}

# logged LOG CMD...: CMD, its output in LOG, neither failing nor warning
logged()
{
	"${@:2}" >"$1" 2>&1 || { tail -n 20 "$1"; echo "failed; log: $1"; return 1; }
	! grep -E '([Ww]arning|WARNING|[Ee]rror):' "$1" || { echo "warned; log: $1"; return 1; }
}

# kept KDIR CMD...: CMD, and KDIR unchanged by it
kept()
{
	local before d

	before=$(snapshot "$1")
	"${@:2}" || return 1
	d=$(diff <(echo "$before") <(snapshot "$1")) && return 0
	printf 'KDIR=%s changed:\n%s\n' "$1" "$(grep '^[<>]' <<<"$d" | head -n 4)"
	return 1
}

# module_build DIR KDIR [MAKE_ARG...]: the overlay copied into DIR, its module
# built against KDIR with W=1 (log: DIR.log), then cleaned away
module_build()
{
	local dir=$1 kdir=$2 log=$1.log m=$1/$OVERLAY/test_module

	[ -f "$kdir/Makefile" ] && [ -f "$kdir/Module.symvers" ] ||
		{ echo "KDIR=$kdir: not a kernel build tree (no Makefile or Module.symvers)"; return 1; }
	copy_overlay "$dir"
	echo "make -C $m KDIR=$kdir W=1 ${*:3}"
	logged "$log" make -C "$m" KDIR="$kdir" W=1 "${@:3}" || return 1
	[ -f "$m/test_sched_state.ko" ] || { echo "no test_sched_state.ko; log: $log"; return 1; }
	make -C "$m" KDIR="$kdir" clean >>"$log" 2>&1 || { echo "clean failed; log: $log"; return 1; }
	tree_clean "$dir" "make clean"
}

# copy_overlay DIR [TREE]: the overlay laid into DIR, empty or TREE hard-linked
copy_overlay()
{
	rm -rf "$1" && mkdir -p "$1" || return 1
	[ -z "${2:-}" ] || cp -al "$2/." "$1/" || return 1
	overlay_files | rsync -a --files-from=- "$TOP/" "$1/"
}
