#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The static gates (docs/check.md), against each of STATIC_KDIRS and in KSRC.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/kbuild.sh"
set +e

ST=$BUILD/static
export LC_ALL=C		# gcc's quotes plain
read -ra KDIRS <<<"${STATIC_KDIRS:-}"
n=0

# sparse_build DIR KDIR: W=1 C=1; kbuild skipping sparse is a finding
sparse_build()
{
	kept "$2" module_build "$1" "$2" C=1 CHECK="$SPARSE" || return 1
	grep -q '^  CHECK ' "$1.log" || { echo "sparse did not run (no CHECK line); log: $1.log"; return 1; }
}

# user_build gcc|clang: the programs and the tooling's, no diagnostic, not
# even a note (one names our line in a harness macro); KSRC's uapi headers
user_build()
{
	local out=$ST/user-$1 log=$ST/user-$1.log cc=CC=gcc f rc=0 hdr="-isystem $KSRC/usr/include"

	[ "$1" = clang ] && cc=LLVM=1
	rm -rf "$out"
	echo "$1: make -C $SELFTESTS TARGETS=sched_state $cc USERCFLAGS='-Wall -Wextra' O=$out; log: $log"
	{ make -C "$SELFTESTS" TARGETS=sched_state "$cc" USERCFLAGS='-Wall -Wextra' V=1 \
		O="$out" KDIR=/nonexistent KHDR_INCLUDES="$hdr" &&
	  make -f "$TOP/scripts/tree/tooling-programs.mk" CC="$1" SELFTESTS="$SELFTESTS" \
		KHDR_INCLUDES="$hdr" OUTPUT="$out/tooling"; } >"$log" 2>&1 || { cat "$log"; return 1; }
	for f in $(cd "$SELFTESTS/sched_state" && find . -name '*.c' -not -path './test_module/*'); do
		grep -E '^(gcc|clang) ' "$log" | grep -wF "${f#./}" >/dev/null ||
			{ echo "${f#./} was not compiled: is it in the Makefile?"; rc=1; }
	done
	! grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error|fatal error|note): ' "$log" || rc=1
	return $rc
}

# make in TREE, the module against the first KDIR (unchanged); log: $ST/make-N.log
make_in_tree()
{
	n=$((n + 1))
	echo "in $TREE: make $*"
	kept "${KDIRS[0]}" logged "$ST/make-$n.log" \
		make -C "$TREE" TARGETS=sched_state KDIR="${KDIRS[0]}" "$@"
}

# round INSTALL CLEAN BUILD...: make BUILD... installs what run_kselftest.sh
# runs; make CLEAN leaves the overlay as laid, and nothing in INSTALL's O=
round()
{
	local inst=$1 clean=$2 o=${1%/kselftest/kselftest_install}

	make_in_tree "${@:3}" || return 1
	(cd "$inst" 2>/dev/null && find . -type f) | installed "$inst" || return 1
	[[ "${*:3}" != *gen_tar* ]] ||
		tar -tzf "$inst/kselftest-packages/kselftest.tar.gz" | installed "$inst's tarball" || return 1
	# shellcheck disable=SC2086 # words
	make_in_tree $clean || return 1
	tree_clean "$TREE" "make $clean" || return 1
	[ "$o" = "$inst" ] || [ -z "$(find "$o/kselftest/sched_state" -type f 2>/dev/null)" ] ||
		{ echo "make $clean left files in $o/kselftest/sched_state"; return 1; }
}

# Both Makefiles take a relative O= from the top of the tree, even under -C.
tree_gate()
{
	local rc=0 sel=tools/testing/selftests rel clean=$ST/clean-src o
	local inst=kselftest/kselftest_install

	rel=$(realpath -m --relative-to="$KSRC" "$ST")
	rm -rf "$ST"/{o-abs,o-rel,o-top,top-install,tar-install} "$ST"/make-*.log
	TREE=$KSRC
	{ make_in_tree -C $sel clean && tree_clean "$TREE" clean; } || rc=1
	# kselftest.rst: make O= headers first
	for o in "$ST/o-abs" "$rel/o-rel"; do
		make_in_tree O="$o" headers &&
			round "$ST/${o##*/}/$inst" "-C $sel O=$o clean" -C $sel O="$o" all install || rc=1
	done
	round "$ST/top-install" kselftest-clean kselftest-install KSFT_INSTALL_PATH="$ST/top-install" || rc=1
	round "$ST/tar-install" "-C $sel clean" -C $sel gen_tar KSFT_INSTALL_PATH="$ST/tar-install" || rc=1
	# kbuild refuses O= in a tree configured in place, as KSRC is: a hard-
	# linked copy (builds create files, cleans unlink them), unconfigured
	copy_overlay "$clean" "$KSRC" &&
		rm -rf "$clean/.config" "$clean/include/config" "$clean"/arch/*/include/generated || rc=1
	TREE=$clean
	make_in_tree O=../o-top defconfig &&
		round "$ST/o-top/$inst" "O=../o-top kselftest-clean" O=../o-top kselftest-gen_tar W=1 || rc=1
	rm -rf "$clean"
	TREE=$KSRC
	[ $rc -eq 0 ] || make_in_tree -C $sel clean >/dev/null
	return $rc
}

# Every semantic patch, on a copy of the module and a canary of a known finding
# (odd_ptr_err.cocci).  spatch 1.1 needs --use-coccigrep in a git work tree,
# and KBUILD_ABS_SRCTREE to read "../sched_state.h" (else "EXN").
cocci_gate()
{
	local dir=$ST/cocci log=$ST/coccicheck.log mod=$ST/cocci/$OVERLAY/test_module ran all skipped

	copy_overlay "$dir"
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0' '#include <linux/err.h>' \
		'#include "../sched_state.h"' 'long canary(void *a, void *b)' '{' \
		'	if (IS_ERR(a))' '		return PTR_ERR(b);' '	return 0;' '}' >"$mod/static_canary.c"
	echo "make -C $KSRC coccicheck MODE=report J=2 M=$mod KBUILD_ABS_SRCTREE=1 SPFLAGS=--use-coccigrep"
	make -C "$KSRC" coccicheck MODE=report J=2 M="$mod" KBUILD_ABS_SRCTREE=1 \
		SPFLAGS=--use-coccigrep >"$log" 2>&1 || { tail -n 25 "$log"; return 1; }
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
	! grep "^$mod/" "$log" | grep -v "^$mod/static_canary.c:"
}

[ ${#KDIRS[@]} -gt 0 ] || die "STATIC_KDIRS is empty: name the kernel build trees"
SPARSE=$("$TOP/scripts/gates/sparse.sh") || die "no usable sparse (scripts/gates/sparse.sh)"
for f in $(overlay_files); do
	cmp -s "$TOP/$f" "$KSRC/$f" || die "$KSRC/$f is not the repository's: run 'make tree'"
done
mkdir -p "$ST"

echo "sparse: $SPARSE"
for i in "${!KDIRS[@]}"; do
	gate "module: W=1 C=1 (sparse), against ${KDIRS[$i]}" sparse_build "$ST/module-$((i + 1))" "${KDIRS[$i]}"
done
gate "programs: -Wall -Wextra, gcc" user_build gcc
gate "programs: -Wall -Wextra, clang" user_build clang
gate "builds: O= absolute and relative, top-level, gen_tar, clean" tree_gate
gate "coccicheck on the module" cocci_gate

gates static
