#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The static gates: every one runs, each says PASS or FAIL with its findings
# and its time, and the script exits non-zero if any failed.
#
#   1. the module builds with W=1 and C=1 (sparse) without a warning, against
#      Debian's generic and PREEMPT_RT headers;
#   2. every program builds with -Wall -Wextra, under gcc and under clang,
#      through the selftests Makefile, without a warning (but the 6.1
#      harness's own, set aside by name);
#   3. the selftests build, install and clean with O= (absolute and relative),
#      from the top-level Makefile (kselftest-install, kselftest-clean) and
#      with gen_tar, and each clean leaves the directory as the overlay laid it;
#   4. make coccicheck reports nothing on the module.
#
# Gates 1 and 4 work on scratch copies of the overlay; gates 2 and 3 build in
# KSRC, which must carry the overlay as it is now ('make tree').  Everything
# generated goes to $BUILD/static, or into KSRC where a gate checks an
# in-tree build, which it cleans again.
. "$(dirname "$0")/lib.sh"
set +e

OVERLAY=tools/testing/selftests/sched_state
ST=$BUILD/static
TOOLS="sparse clang spatch ocamlopt rsync"	# packages: sparse clang coccinelle ocaml rsync

# The overlay's files, relative to TOP, as prepare-tree.sh lays them into KSRC.
overlay_files()
{
	(cd "$TOP" && git ls-files -co --exclude-standard -- "$OVERLAY") | sort
}

# KSRC must build what the repository holds, or gates 2 and 3 test old code.
check_ksrc()
{
	local f

	[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree: run 'make tree'"
	for f in $(overlay_files); do
		cmp -s "$TOP/$f" "$KSRC/$f" ||
			die "$KSRC/$f is not the repository's: run 'make tree'"
	done
}

# A scratch copy of the overlay in $1; the module is in $1/$OVERLAY/test_module.
copy_overlay()
{
	rm -rf "$1"
	mkdir -p "$1"
	overlay_files | rsync -a --files-from=- "$TOP/" "$1/"
}

# The headers of Debian's kernel $1 (generic or rt), found as pick_kernel does.
headers_of()
{
	(KERNEL=$1 KIMAGE='' KDIR=''; pick_kernel; echo "$KDIR")
}

# --- gate 1: the module with W=1 and sparse ---------------------------------

# Builds a fresh copy against kernel $1's headers: any warning or error from
# gcc or sparse is a finding.  ("Skipping BTF generation" is not one.)
module_build()
{
	local dir=$ST/module-$1 log=$ST/module-$1.log kdir findings

	kdir=$(headers_of "$1") || return 1
	copy_overlay "$dir"
	echo "$1: make -C $kdir M=$dir/$OVERLAY/test_module W=1 C=1 modules"
	if ! make -C "$kdir" M="$dir/$OVERLAY/test_module" W=1 C=1 modules >"$log" 2>&1; then
		cat "$log"
		return 1
	fi
	grep -q '^  CHECK ' "$log" || { echo "$1: sparse did not run; log: $log"; return 1; }
	findings=$(grep -E '(warning|error):' "$log")
	[ -z "$findings" ] && return 0
	echo "$findings"
	return 1
}

module_gate()
{
	local rc=0

	module_build generic || rc=1
	module_build rt || rc=1
	return $rc
}

# --- gate 2: the programs with -Wall -Wextra --------------------------------

# Prints the compilers' warnings and errors, each with its notes (which name
# our line when the text is in a harness macro); false if any is ours.
#
# The 6.1 kselftest_harness.h makes -Wextra warn by itself: -Wunused-parameter
# on __timeout_handler()'s ucontext, and on the variant parameter that TEST()
# gives every test body (FIXTURE_SETUP() and co. likewise impose _metadata and
# self).  Those parameters are the harness's, so warnings about them are set
# aside (printed, never dropped silently) and everything else counts.  Judging
# by the file a diagnostic is located in would not do: gcc locates a warning
# raised in a harness macro at the macro's definition, which would set aside
# -Wsign-compare caused by our own EXPECT_EQ() arguments, while clang locates
# the harness's variant warning at our TEST() line.  There is no -Werror for
# the same reason: it would stop the build at the harness's warnings.
diagnostics_clean()
{
	awk '
	function flush() {
		if (msg == "")
			return
		if (msg ~ /unused parameter .(ucontext|variant|_metadata|self).( |$)/)
			print "set aside (harness): " msg
		else {
			print msg notes
			n++
		}
		msg = ""
	}
	/^[^ :]+:[0-9]+:[0-9]+: (warning|error|fatal error): / {
		flush()
		msg = $0
		notes = ""
		next
	}
	/^[^ :]+:[0-9]+:[0-9]+: note: / && msg != "" {
		notes = notes "\n    " $0
	}
	END { flush(); exit n > 0 }
	' "$1"
}

# Every .c of the directory, but the module's, must have been compiled.
all_compiled()
{
	local log=$1 f rc=0

	for f in $(cd "$SELFTESTS/sched_state" && find . -name '*.c' -not -path './test_module/*'); do
		grep -E '^(gcc|clang) ' "$log" | grep -qwF "${f#./}" ||
			{ echo "${f#./} was not compiled: is it in the Makefile?"; rc=1; }
	done
	return $rc
}

# $1: gcc or clang.  KDIR=/nonexistent leaves the module out.  With O= the
# selftests Makefile points KHDR_INCLUDES at $O/usr/include, which nothing
# installs in 6.1, so the tree's own uapi headers are named.  LC_ALL=C keeps
# gcc's quotes plain for diagnostics_clean.
user_build()
{
	local out=$ST/user-$1 log=$ST/user-$1.log cc=CC=gcc rc=0

	[ "$1" = clang ] && cc=LLVM=1
	rm -rf "$out"
	echo "$1: make -C $SELFTESTS TARGETS=sched_state $cc USERCFLAGS='-Wall -Wextra' O=$out"
	if ! LC_ALL=C make -C "$SELFTESTS" TARGETS=sched_state "$cc" USERCFLAGS='-Wall -Wextra' \
		O="$out" KDIR=/nonexistent KHDR_INCLUDES="-isystem $KSRC/usr/include" \
		>"$log" 2>&1; then
		cat "$log"
		return 1
	fi
	all_compiled "$log" || rc=1
	diagnostics_clean "$log" || rc=1
	return $rc
}

user_gate()
{
	local rc=0

	user_build gcc || rc=1
	user_build clang || rc=1
	return $rc
}

# --- gate 3: out-of-tree builds, install, gen_tar and clean -----------------

# make in KSRC, typed there as a user would, with the module built for
# Debian's generic kernel; all output is kept in $ST/tree.log.
kmake()
{
	local log=$ST/kmake.log rc

	echo "in $KSRC: make $*"
	(cd "$KSRC" && make TARGETS=sched_state KDIR="$MODKDIR" "$@") >"$log" 2>&1
	rc=$?
	cat "$log" >>"$ST/tree.log"
	[ $rc -eq 0 ] && return 0
	echo "failed:"
	grep -v HDRINST "$log" | tail -n 25
	return 1
}

# Files in KSRC's copy of the directory that the overlay does not have ($1 = -13),
# or overlay files that are gone from it ($1 = -23).
tree_diff()
{
	comm "$1" <(overlay_files) <(cd "$KSRC" && find "$OVERLAY" -type f | sort)
}

# After a clean ($1 says which) the directory is as the overlay laid it.
source_clean()
{
	local left gone

	left=$(tree_diff -13)
	gone=$(tree_diff -23)
	[ -z "$left$gone" ] && return 0
	[ -n "$left" ] && echo "left behind by $1:" && echo "$left" | sed 's/^/  /'
	[ -n "$gone" ] && echo "removed by $1:" && echo "$gone" | sed 's/^/  /'
	return 1
}

# What a build put into the source directory (kbuild builds the module there).
note_source_writes()
{
	local written

	written=$(tree_diff -13)
	[ -n "$written" ] && echo "note: $1 wrote into the source directory:" &&
		echo "$written" | sed 's/^/  /'
	return 0
}

# The paths (on stdin) of installed tree $1 hold what run_kselftest.sh runs.
has_install()
{
	local list f rc=0

	list=$(sed 's|^\./||')
	for f in run_kselftest.sh kselftest-list.txt sched_state/sched_state_test \
		 sched_state/sched_state.sh sched_state/settings sched_state/config; do
		grep -qx "$f" <<<"$list" || { echo "$1: no $f"; rc=1; }
	done
	grep -qxE 'sched_state/(test_module/)?test_sched_state\.ko' <<<"$list" ||
		{ echo "$1: no test_sched_state.ko"; rc=1; }
	return $rc
}

installed()
{
	(cd "$1" 2>/dev/null && find . -type f) | has_install "$1"
}

# make -C tools/testing/selftests O=$1 all install, then clean; the output
# must land in $2.
selftests_o()
{
	local o=$1 out=$2

	kmake -C tools/testing/selftests O="$o" all install || return 1
	note_source_writes "O=$o"
	installed "$out/kselftest/kselftest_install" || return 1
	kmake -C tools/testing/selftests O="$o" clean || return 1
	source_clean "O=$o clean" || return 1
	[ -z "$(find "$out/kselftest/sched_state" -type f)" ] ||
		{ echo "O=$o clean left $(find "$out/kselftest/sched_state" -type f)"; return 1; }
}

# The top-level Makefile's kselftest-install and kselftest-clean, with O=$1
# (relative) or without (install in $ST/top-install).
top_level()
{
	if [ -n "$1" ]; then
		kmake O="$1" kselftest-install || return 1
		note_source_writes "kselftest-install O=$1"
		installed "$ST/o-top/kselftest/kselftest_install" || return 1
		kmake O="$1" kselftest-clean || return 1
		source_clean "kselftest-clean O=$1"
	else
		kmake kselftest-install KSFT_INSTALL_PATH="$ST/top-install" || return 1
		installed "$ST/top-install" || return 1
		kmake kselftest-clean || return 1
		source_clean "kselftest-clean"
	fi
}

gen_tar()
{
	local tar=$ST/tar-install/kselftest-packages/kselftest.tar.gz

	kmake -C tools/testing/selftests gen_tar KSFT_INSTALL_PATH="$ST/tar-install" || return 1
	tar -tzf "$tar" | has_install "$tar" || return 1
	kmake -C tools/testing/selftests clean || return 1
	source_clean "clean after gen_tar"
}

# A relative O= is taken from the top of KSRC by both the top-level and the
# selftests Makefile (the latter does 'cd ../../.. && mkdir -p $(O)'), even
# under make -C from elsewhere.  The relative one used here lands in $ST.
tree_gate()
{
	local rel rc=0

	MODKDIR=$(headers_of generic) || return 1
	rel=$(realpath -m --relative-to="$KSRC" "$ST")
	rm -rf "$ST"/o-abs "$ST"/o-rel "$ST"/o-top "$ST"/top-install "$ST"/tar-install
	: >"$ST/tree.log"
	# Start from a clean directory: an earlier in-tree build may be there.
	{ kmake -C tools/testing/selftests clean && source_clean "clean"; } || rc=1
	selftests_o "$ST/o-abs" "$ST/o-abs" || rc=1
	selftests_o "$rel/o-rel" "$ST/o-rel" || rc=1
	top_level "$rel/o-top" || rc=1
	top_level "" || rc=1
	gen_tar || rc=1
	# Leave KSRC clean even after a failure.
	[ $rc -eq 0 ] || kmake -C tools/testing/selftests clean >/dev/null
	echo "log: $ST/tree.log"
	return $rc
}

# --- gate 4: coccicheck -------------------------------------------------------

# A file with a known finding (odd_ptr_err.cocci), put beside the copy.
canary()
{
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' '#include <linux/err.h>' \
		'long canary(void *a, void *b)' '{' '	if (IS_ERR(a))' \
		'		return PTR_ERR(b);' '	return 0;' '}' >"$1/static_canary.c"
}

# Every semantic patch of the tree runs on a copy of the module (the count
# proves it) and any line of the report naming a file of the copy is a
# finding.  spatch 1.1 picks the files to read with 'git grep' when it runs
# inside a git work tree, and under our ignored build/ it finds none ("0 files
# match"): every semantic patch would pass without reading a line.  Hence
# SPFLAGS=--use-coccigrep, and a canary whose finding must be reported.
cocci_gate()
{
	local dir=$ST/cocci log=$ST/coccicheck.log mod ran all findings

	copy_overlay "$dir"
	mod=$dir/$OVERLAY/test_module
	canary "$mod"
	echo "make -C $KSRC coccicheck MODE=report J=2 M=$mod SPFLAGS=--use-coccigrep"
	if ! make -C "$KSRC" coccicheck MODE=report J=2 M="$mod" SPFLAGS=--use-coccigrep \
		>"$log" 2>&1; then
		tail -n 25 "$log"
		return 1
	fi
	all=$(find "$KSRC/scripts/coccinelle" -name '*.cocci' | wc -l)
	ran=$(grep -c "^$(command -v spatch) -D report " "$log")
	grep '^Skipping coccinelle SmPL patch' "$log"
	[ "$ran" -eq "$all" ] ||
		{ echo "only $ran of $all semantic patches ran; log: $log"; return 1; }
	grep -q "^$mod/static_canary.c:" "$log" ||
		{ echo "the canary's finding is missing: spatch did not read the copy; log: $log"; return 1; }
	echo "$ran semantic patches ran; the canary was found"
	findings=$(grep "^$mod/" "$log" | grep -v "^$mod/static_canary.c:")
	[ -z "$findings" ] && return 0
	echo "$findings"
	return 1
}

for t in $TOOLS; do
	command -v "$t" >/dev/null ||
		die "$t missing: install the Debian packages sparse clang coccinelle ocaml rsync"
done
check_ksrc
mkdir -p "$ST"

gate "module: W=1 C=1 (sparse), generic and rt headers" module_gate
gate "programs: -Wall -Wextra, gcc and clang" user_gate
gate "builds: O= absolute and relative, top-level, gen_tar, clean" tree_gate
gate "coccicheck on the module" cocci_gate

gates static
