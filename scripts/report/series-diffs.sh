#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the series' diffs to files an earlier patch adds: a later patch's lines, taken out of
# the working tree's files; a moved or reworded line fails here, to be followed, not guessed.
. "$(dirname "$0")/../lib.sh"

SERIES=$TOP/patches/series
D=tools/testing/selftests/sched_state
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sched_state-series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# take FILE SED-ARGS...: add to $tmp/diff the diff from $tmp/a/FILE, FILE without them
take()
{
	mkdir -p "$(dirname "$tmp/a/$1")"
	sed "${@:2}" "$TOP/$1" >"$tmp/a/$1"
	! cmp -s "$tmp/a/$1" "$TOP/$1" || die "$1: nothing taken out: follow it in $0"
	diff -u --label "a/$1" --label "b/$1" "$tmp/a/$1" "$TOP/$1" >>"$tmp/diff" || [ $? -eq 1 ] || die "diff $1 failed"
}

# take_last FILE TITLE UNDERLINE: take out FILE's last section, TITLE
take_last()
{
	local n
	n=$(grep -nxF -- "$2" "$TOP/$1" | cut -d: -f1) || n=
	[[ $n =~ ^[0-9]+$ ]] && [ "$(sed -n "$((n - 1)),$((n + 1))p" "$TOP/$1")" = $'\n'"$2"$'\n'"$3" ] &&
		[ "$(tail -n +"$n" "$TOP/$1" | grep -cxF -- "$3")" = 1 ] || die "$1: no last section \"$2\": follow it in $0"
	take "$1" "$((n - 1)),\$d"
}

# write DIFF GREP-ARGS...: the takes since the last write, leaving no line GREP-ARGS match
write()
{
	! grep -rn "${@:2}" "$tmp/a" || die "${1#"$TOP"/}: the lines above are left in: follow them"
	cmp -s "$tmp/diff" "$1" || { cp "$tmp/diff" "$1"; say "series-diffs: wrote ${1#"$TOP"/}"; }
	rm -rf "$tmp/diff" "$tmp/a"
}

# patch 2 adds the selftest and the docs page's Testing section, its pointer to it
take_last Documentation/scheduler/sched-state.rst Testing =======
write "$SERIES/2-selftest/sched-state-testing.diff" selftests

# patch 3 adds the benchmark, and its lines in what patch 2 adds
take $D/Makefile -e '/^# the benchmark, not in the default run either$/d' \
	-e '/^TEST_GEN_PROGS_EXTENDED += sched_state_bench$/d'
take $D/.gitignore -e '/^sched_state_bench$/d'
take_last $D/README Benchmark ---------
# the bench verb's three lines, SCHED_STATE_BENCH_MAX_CALLS
take $D/sched_state.h \
	-e '/^ \*   bench <variant> <calls> <cpu>$/,/reply: the ns (test_module\/bench\.c)$/d' \
	-e '/^#define SCHED_STATE_BENCH_MAX_CALLS\t/d'
take $D/test_module/Makefile -e 's/^\(test_sched_state-y := core\.o states\.o race\.o\) bench\.o$/\1/'
take $D/test_module/core.c -e '/^\t{ "bench",\t\t4, sched_state_bench },$/d'
# the prototype, its comment and the blank line before them
take $D/test_module/test_sched_state.h -e '/^$/{N;/\n\/\* bench\.c \*\/$/{N;d}}'
for f in $(cd "$TOP" && xargs grep -l -i bench -- <"$SERIES/2-selftest/files"); do
	[ -f "$tmp/a/$f" ] || die "$f, of patch 2, names the benchmark: take its lines out of it here"
done
write "$SERIES/3-benchmarks/benchmarks.diff" -i bench
