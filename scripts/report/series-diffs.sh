#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series' diffs that are made from the overlay's own files, not
# stored by hand: each takes a later patch's lines out of copies of the
# files as they are in the working tree, and diff -u gives the patch's
# changes to what an earlier patch adds.  Run it after changing a file they
# name, then make patches.
#
#   patches/series/2-selftest/sched-state-testing.diff
#       the docs page's last section, Testing, which points at the
#       selftest: patch 1 adds the page without it
#   patches/series/3-benchmarks/benchmarks.diff
#       what only the benchmark needs in the suite's files: patch 2 adds
#       them without it, and must build and run alone
#
# Each removal names the lines it takes out and fails if they are not
# there as it expects: a moved or reworded line is for this script to
# follow, not to guess.
. "$(dirname "$0")/../lib.sh"

SERIES=$TOP/patches/series
D=tools/testing/selftests/sched_state
PAGE=Documentation/scheduler/sched-state.rst
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sched_state-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# take FILE SED-ARGS...: $tmp/a/FILE is $TOP/FILE less what SED-ARGS delete
take()
{
	local f=$1

	shift
	mkdir -p "$(dirname "$tmp/a/$f")" "$(dirname "$tmp/b/$f")"
	cp "$TOP/$f" "$tmp/b/$f"
	sed "$@" "$tmp/b/$f" >"$tmp/a/$f"
	! cmp -s "$tmp/a/$f" "$tmp/b/$f" || die "$f: nothing taken out: follow it in $0"
}

# section FILE TITLE UNDERLINE: the line number of a last section's title,
# after a blank line
section()
{
	local f=$TOP/$1 n

	n=$(grep -nxF -- "$2" "$f" | cut -d: -f1)
	[ "$(wc -w <<<"$n")" = 1 ] && [ -z "$(sed -n "$((n - 1))p" "$f")" ] &&
		[ "$(sed -n "$((n + 1))p" "$f")" = "$3" ] && ! sed -n "$((n + 2)),\$p" "$f" | grep -qxF -- "$3" ||
		die "$1: no last section \"$2\" to take out: follow it in $0"
	echo "$n"
}

# write OUT FILE...: OUT is the diffs of FILE... from a/ to b/
write()
{
	local out=$1 f

	shift
	for f; do
		(cd "$tmp" && diff -u --label "a/$f" --label "b/$f" "a/$f" "b/$f") && die "$f: no change"
		[ $? -eq 1 ] || die "diff $f failed"
	done >"$out.new"
	if cmp -s "$out.new" "$out"; then
		rm "$out.new"
	else
		mv "$out.new" "$out"
		say "series-diffs: wrote ${out#"$TOP"/}"
	fi
}

# patch 2: the page's Testing section
n=$(section "$PAGE" Testing =======)
take "$PAGE" "$((n - 1)),\$d"
! grep -n selftests "$tmp/a/$PAGE" || die "$PAGE names the selftest outside its Testing section"
write "$SERIES/2-selftest/sched-state-testing.diff" "$PAGE"
rm -rf "$tmp/a" "$tmp/b"

# patch 3: the benchmark's lines in the suite's files
files=()
bench()
{
	files+=("$D/$1")
	take "$D/$1" "${@:2}"
}
bench Makefile -e '/^# the benchmark, not in the default run either$/d' \
	-e '/^TEST_GEN_PROGS_EXTENDED += sched_state_bench$/d'
bench .gitignore -e '/^sched_state_bench$/d'
n=$(section "$D/README" Benchmark ---------)
bench README -e "$((n - 1)),\$d"
# the bench verb's three lines, its -ENODEV, SCHED_STATE_BENCH_MAX_CALLS
bench sched_state.h \
	-e '/^ \*   bench <variant> <calls> <cpu>$/,/(sched_state_bench\.c); reply: the ns$/d' \
	-e '/^ \* a bench CPU that is offline, -ENODEV; a fatal signal to the caller of a$/{N;s/.*\n \* long request, -EINTR\.$/ * a fatal signal to the caller of a long request, -EINTR./}' \
	-e '/^#define SCHED_STATE_BENCH_MAX_CALLS\t/d'
bench test_module/Makefile -e 's/^\(test_sched_state-y := core\.o states\.o race\.o\) bench\.o$/\1/'
bench test_module/core.c -e '/^\t{ "bench",\t\t4, sched_state_bench },$/d'
# the prototype, its comment and the blank line before them
bench test_module/test_sched_state.h -e '/^$/{N;/\n\/\* bench\.c \*\/$/{N;d}}'
# what patch 2 adds names no benchmark; its other files are left whole
! grep -rn -i bench "$tmp/a" || die "the lines above name the benchmark still: take them out too"
(cd "$TOP" && xargs grep -l -i bench -- <"$SERIES/2-selftest/files") | sort >"$tmp/named"
printf '%s\n' "${files[@]}" | sort | comm -23 "$tmp/named" - | grep . &&
	die "these files of patch 2 name the benchmark: take its lines out of them here"
write "$SERIES/3-benchmarks/benchmarks.diff" "${files[@]}"
