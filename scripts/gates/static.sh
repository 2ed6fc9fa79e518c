#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The static gates: every one runs, each says PASS or FAIL with its findings
# and its time, and the script exits non-zero if any failed.
#
#   1. the module builds with W=1 and C=1 (sparse) without a warning, against
#      every kernel build tree of STATIC_KDIRS, and leaves each one unchanged;
#   2. every program builds with -Wall -Wextra, under gcc and under clang,
#      through the selftests Makefile, without a warning;
#   3. the selftests build, install and clean with O= (absolute and relative),
#      from the selftests and from the top-level Makefile (kselftest-install,
#      kselftest-gen_tar, kselftest-clean) and with gen_tar; each clean leaves
#      the directory as the overlay laid it, and the module's KDIR (the first
#      of STATIC_KDIRS) is left as it was, Module.symvers and all;
#   4. make coccicheck reports nothing on the module.
#
# STATIC_KDIRS: kernel build trees, space-separated (mainline and mainline-rt,
# say; in-tree or O= builds, or headers packages).  Nothing is written into
# them: a gate that finds a file of one changed fails.
#
# sparse is scripts/gates/sparse.sh's (bookworm's is too old for mainline):
# kbuild saying it skipped sparse, or no CHECK line, fails gate 1.
#
# Gates 1 and 4 work on scratch copies of the overlay; gates 2 and 3 build in
# KSRC, which must carry the overlay as it is now ('make tree').  Everything
# generated goes to $BUILD/static, or into KSRC where a gate checks an
# in-tree build, which it cleans again.
. "$(dirname "$0")/../lib.sh"
set +e

OVERLAY=tools/testing/selftests/sched_state
ST=$BUILD/static
TOOLS="clang spatch ocamlopt rsync"	# packages: clang coccinelle ocaml rsync
read -ra KDIRS <<<"${STATIC_KDIRS:-}"

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

# Is $1 a kernel build tree?
kdir_ok()
{
	[ -f "$1/Makefile" ] && [ -f "$1/Module.symvers" ] && return 0
	echo "$1: not a kernel build tree (no Makefile or Module.symvers)"
	return 1
}

# What a kernel build tree holds, to show it unchanged: Module.symvers'
# checksum and the list of its files with their times.
kdir_state()
{
	sha256sum "$1/Module.symvers" 2>&1
	find "$1" -printf '%P %s %T@\n' | sort
}

# --- gate 1: the module with W=1 and sparse ---------------------------------

# Builds a fresh copy against KDIR $1 (the $2nd): any warning or error from
# gcc or sparse is a finding.  ("Skipping BTF generation" is not one.)
module_build()
{
	local kdir=$1 dir=$ST/module-$2 log=$ST/module-$2.log before findings rc=0

	kdir_ok "$kdir" || return 1
	copy_overlay "$dir"
	before=$(kdir_state "$kdir")
	echo "$kdir ($(cat "$kdir/include/config/kernel.release" 2>/dev/null)):" \
		"make -C $kdir M=$dir/$OVERLAY/test_module W=1 C=1 CHECK=$SPARSE modules"
	if ! make -C "$kdir" M="$dir/$OVERLAY/test_module" W=1 C=1 CHECK="$SPARSE" \
		modules >"$log" 2>&1; then
		cat "$log"
		return 1
	fi
	grep 'is not available or not up to date' "$log" &&
		{ echo "kbuild skipped sparse; log: $log"; rc=1; }
	grep -q '^  CHECK ' "$log" || { echo "sparse did not run (no CHECK line); log: $log"; rc=1; }
	[ "$(kdir_state "$kdir")" = "$before" ] ||
		{ echo "the build changed $kdir:"; diff <(echo "$before") <(kdir_state "$kdir") | head; rc=1; }
	findings=$(grep -E '(warning|error):' "$log")
	[ -z "$findings" ] || { echo "$findings"; rc=1; }
	return $rc
}

module_gate()
{
	local i rc=0

	[ ${#KDIRS[@]} -gt 0 ] ||
		{ echo "STATIC_KDIRS is empty: name the kernel build trees to build the module against"; return 1; }
	echo "sparse: $SPARSE"
	for i in "${!KDIRS[@]}"; do
		module_build "${KDIRS[$i]}" "$((i + 1))" || rc=1
	done
	return $rc
}

# --- gate 2: the programs with -Wall -Wextra --------------------------------

# Prints the compilers' warnings and errors, with their notes (which name
# our line when the text is in a harness macro); false if there is any.
# (6.1's harness warned by itself under -Wextra; mainline's does not.)
diagnostics_clean()
{
	! grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error|fatal error|note): ' "$1"
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
# selftests Makefile points KHDR_INCLUDES at $O/usr/include, which only a
# 'make O= headers' fills (gate 3 does that): name KSRC's own uapi headers
# (make tree installed them).  LC_ALL=C keeps gcc's quotes plain.
user_build()
{
	local out=$ST/user-$1 log=$ST/user-$1.log cc=CC=gcc rc=0

	[ "$1" = clang ] && cc=LLVM=1
	rm -rf "$out"
	echo "$1: make -C $SELFTESTS TARGETS=sched_state $cc USERCFLAGS='-Wall -Wextra' O=$out V=1"
	if ! LC_ALL=C make -C "$SELFTESTS" TARGETS=sched_state "$cc" USERCFLAGS='-Wall -Wextra' V=1 \
		O="$out" KDIR=/nonexistent KHDR_INCLUDES="-isystem $KSRC/usr/include" \
		>"$log" 2>&1; then
		cat "$log"
		return 1
	fi
	all_compiled "$log" || rc=1
	diagnostics_clean "$log" || rc=1
	# the tooling's programs (scripts/tree/tooling-programs.mk), with the
	# same compiler
	echo "$1: make -f scripts/tree/tooling-programs.mk CC=$1 OUTPUT=$out/tooling"
	if ! LC_ALL=C make -f "$TOP/scripts/tree/tooling-programs.mk" CC="$1" SELFTESTS="$SELFTESTS" \
		KHDR_INCLUDES="-isystem $KSRC/usr/include" OUTPUT="$out/tooling" \
		>"$log.tooling" 2>&1; then
		cat "$log.tooling"
		return 1
	fi
	diagnostics_clean "$log.tooling" || rc=1
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

# make in TREE (KSRC, or its clean copy), typed there as a user would, with
# the module built against MODKDIR; all output is kept in $ST/tree.log.
# MODKDIR must stay unchanged.
make_in_tree()
{
	local log=$ST/make_in_tree.log rc

	echo "in $TREE: make $*"
	(cd "$TREE" && make TARGETS=sched_state KDIR="$MODKDIR" "$@") >"$log" 2>&1
	rc=$?
	cat "$log" >>"$ST/tree.log"
	if [ "$(kdir_state "$MODKDIR")" != "$MODKDIR_STATE" ]; then
		echo "make $* changed KDIR=$MODKDIR:"
		diff <(echo "$MODKDIR_STATE") <(kdir_state "$MODKDIR") | head
		return 1
	fi
	[ $rc -eq 0 ] && return 0
	echo "failed:"
	grep -v HDRINST "$log" | tail -n 25
	return 1
}

# Files in TREE's copy of the directory that the overlay does not have ($1 = -13),
# or overlay files that are gone from it ($1 = -23).
tree_diff()
{
	comm "$1" <(overlay_files) <(cd "$TREE" && find "$OVERLAY" -type f | sort)
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
		 sched_state/sched_state.sh sched_state/sched_state_lib.sh \
		 kselftest/ktap_helpers.sh sched_state/settings sched_state/config; do
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

# After a clean with O=, nothing of ours is left in the output directory $1.
out_clean()
{
	local left

	left=$(find "$1/kselftest/sched_state" -type f 2>/dev/null)
	[ -z "$left" ] || { echo "$2 left:"; echo "$left" | sed 's/^/  /'; return 1; }
}

# make O=$1 headers (kselftest.rst: headers first), then make -C
# tools/testing/selftests O=$1 all install, then clean; the output must land
# in $2.
selftests_o()
{
	local o=$1 out=$2

	make_in_tree O="$o" headers || return 1
	make_in_tree -C tools/testing/selftests O="$o" all install || return 1
	note_source_writes "O=$o"
	installed "$out/kselftest/kselftest_install" || return 1
	make_in_tree -C tools/testing/selftests O="$o" clean || return 1
	source_clean "O=$o clean" || return 1
	out_clean "$out" "O=$o clean"
}

# A clean copy of KSRC in $1, hard-linked: kbuild refuses O= on a source
# tree configured in place ("The source tree is not clean"), and KSRC is
# (make tree configures it for in-tree builds).  Builds create files and
# cleans unlink them, so nothing writes through a link.
clean_copy()
{
	rm -rf "$1"
	cp -al "$KSRC" "$1" 2>/dev/null || cp -a "$KSRC" "$1" || return 1
	rm -rf "$1/.config" "$1/include/config" "$1"/arch/*/include/generated
}

# The top-level Makefile's kselftest-gen_tar (which installs) and
# kselftest-clean with O=$1 (relative, landing in $ST/o-top), configured as
# a user does, in a clean copy of KSRC; or kselftest-install and
# kselftest-clean in KSRC without O= (install in $ST/top-install).
top_level()
{
	local inst=$ST/o-top/kselftest/kselftest_install

	if [ -n "$1" ]; then
		make_in_tree O="$1" defconfig || return 1
		make_in_tree O="$1" kselftest-gen_tar || return 1
		note_source_writes "kselftest-gen_tar O=$1"
		installed "$inst" || return 1
		tar -tzf "$inst/kselftest-packages/kselftest.tar.gz" |
			has_install "kselftest-gen_tar O=$1's tar" || return 1
		make_in_tree O="$1" kselftest-clean || return 1
		source_clean "kselftest-clean O=$1" || return 1
		out_clean "$ST/o-top" "kselftest-clean O=$1"
	else
		make_in_tree kselftest-install KSFT_INSTALL_PATH="$ST/top-install" || return 1
		installed "$ST/top-install" || return 1
		make_in_tree kselftest-clean || return 1
		source_clean "kselftest-clean"
	fi
}

gen_tar()
{
	local tar=$ST/tar-install/kselftest-packages/kselftest.tar.gz

	make_in_tree -C tools/testing/selftests gen_tar KSFT_INSTALL_PATH="$ST/tar-install" || return 1
	tar -tzf "$tar" | has_install "$tar" || return 1
	make_in_tree -C tools/testing/selftests clean || return 1
	source_clean "clean after gen_tar"
}

# A relative O= is taken from the top of KSRC by both the top-level and the
# selftests Makefile (the latter does 'cd ../../.. && mkdir -p $(O)'), even
# under make -C from elsewhere.  The relative one used here lands in $ST.
tree_gate()
{
	local rel rc=0 clean=$ST/clean-src

	MODKDIR=${KDIRS[0]:-}
	[ -n "$MODKDIR" ] ||
		{ echo "STATIC_KDIRS is empty: the module is built against its first KDIR"; return 1; }
	kdir_ok "$MODKDIR" || return 1
	MODKDIR_STATE=$(kdir_state "$MODKDIR")
	echo "the module against KDIR=$MODKDIR ($(sha256sum <"$MODKDIR/Module.symvers" | cut -c1-16)... Module.symvers)"
	rel=$(realpath -m --relative-to="$KSRC" "$ST")
	rm -rf "$ST"/o-abs "$ST"/o-rel "$ST"/o-top "$ST"/top-install "$ST"/tar-install
	: >"$ST/tree.log"
	TREE=$KSRC
	# Start from a clean directory: an earlier in-tree build may be there.
	{ make_in_tree -C tools/testing/selftests clean && source_clean "clean"; } || rc=1
	selftests_o "$ST/o-abs" "$ST/o-abs" || rc=1
	selftests_o "$rel/o-rel" "$ST/o-rel" || rc=1
	top_level "" || rc=1
	echo "a clean copy of KSRC in $clean, for the top-level O= build"
	if clean_copy "$clean"; then
		TREE=$clean
		top_level "$(realpath -m --relative-to="$clean" "$ST")/o-top" || rc=1
		rm -rf "$clean"
		TREE=$KSRC
	else
		echo "could not copy KSRC to $clean"
		rc=1
	fi
	gen_tar || rc=1
	# Leave KSRC clean even after a failure.
	[ $rc -eq 0 ] || make_in_tree -C tools/testing/selftests clean >/dev/null
	echo "log: $ST/tree.log"
	return $rc
}

# --- gate 4: coccicheck -------------------------------------------------------

# A file with a known finding (odd_ptr_err.cocci), put beside the copy; it
# includes the protocol header as the module does.
canary()
{
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' '#include <linux/err.h>' \
		'#include "../sched_state.h"' 'long canary(void *a, void *b)' '{' \
		'	if (IS_ERR(a))' '		return PTR_ERR(b);' '	return 0;' '}' >"$1/static_canary.c"
}

# Every semantic patch of the tree runs on a copy of the module (the count
# proves it; the few a mode excludes are named) and any line of the report
# naming a file of the copy is a finding.  Two ways spatch 1.1 reads nothing
# yet passes: inside a git work tree (our ignored build/ is one) it picks
# files with 'git grep' and finds none ("0 files match"), hence
# SPFLAGS=--use-coccigrep; and given a relative --dir (kbuild's srcroot is
# "." for M=), it resolves "../sched_state.h" to "sched_state.h" and gives up
# on the whole file ("EXN: Sys_error"), hence KBUILD_ABS_SRCTREE=1 and a
# gate that fails on any EXN.  The canary's finding must be reported.
cocci_gate()
{
	local dir=$ST/cocci log=$ST/coccicheck.log mod ran all skipped findings

	copy_overlay "$dir"
	mod=$dir/$OVERLAY/test_module
	canary "$mod"
	echo "make -C $KSRC coccicheck MODE=report J=2 M=$mod KBUILD_ABS_SRCTREE=1 SPFLAGS=--use-coccigrep"
	if ! make -C "$KSRC" coccicheck MODE=report J=2 M="$mod" KBUILD_ABS_SRCTREE=1 \
		SPFLAGS=--use-coccigrep >"$log" 2>&1; then
		tail -n 25 "$log"
		return 1
	fi
	all=$(find "$KSRC/scripts/coccinelle" -name '*.cocci' | wc -l)
	ran=$(grep -c "^$(command -v spatch) -D report " "$log")
	skipped=$(grep -cE "^(warning: )?Skipping .*\.cocci" "$log")
	grep -E "^(warning: )?Skipping .*\.cocci" "$log"
	[ "$((ran + skipped))" -eq "$all" ] ||
		{ echo "$ran of $all semantic patches ran, $skipped skipped; log: $log"; return 1; }
	! grep '^EXN' "$log" || { echo "spatch gave up on a file; log: $log"; return 1; }
	grep -q "^$mod/static_canary.c:" "$log" ||
		{ echo "the canary's finding is missing: spatch did not read the copy; log: $log"; return 1; }
	echo "$ran semantic patches ran on $mod, none gave up on a file; the canary was found"
	findings=$(grep "^$mod/" "$log" | grep -v "^$mod/static_canary.c:")
	[ -z "$findings" ] && return 0
	echo "$findings"
	return 1
}

for t in $TOOLS; do
	command -v "$t" >/dev/null ||
		die "$t missing: install the Debian packages clang coccinelle ocaml rsync"
done
SPARSE=$("$TOP/scripts/gates/sparse.sh") || die "no usable sparse (scripts/gates/sparse.sh)"
check_ksrc
mkdir -p "$ST"

gate "module: W=1 C=1 (sparse), against STATIC_KDIRS" module_gate
gate "programs: -Wall -Wextra, gcc and clang" user_gate
gate "builds: O= absolute and relative, top-level, gen_tar, clean" tree_gate
gate "coccicheck on the module" cocci_gate

gates static
