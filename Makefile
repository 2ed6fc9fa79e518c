# SPDX-License-Identifier: GPL-2.0
#
# sched_state: a kselftest for task states under set_current_state().
# This Makefile drives the tooling around the overlay; see README.md.
#
#   make run     build, boot Debian's 6.1 kernel in QEMU, run the suite
#                (then a quick benchmark run in the same kernel)
#   make check   the whole gate (what CI runs)
#   make bench   the commit's two benchmarks in QEMU, generic vs rt (QUICK=1)
#   make bench-host  will-it-scale unlink1 on this host, mmtests-style (QUICK=1)
#   make patches the overlay as a git format-patch series in build/patches/
#                (CHECK=1: git am, build and checkpatch each patch)
#
# Knobs: KERNEL=generic|rt, KSRC=, KDIR=, KIMAGE=, BUILD= (see scripts/lib.sh)

# KERNEL, KSRC, KDIR, KIMAGE and BUILD reach the scripts from the command line
# or the environment; exporting them here would export them empty when unset.

.PHONY: help deps tree build run check checkpatch bench bench-host patches clean

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@scripts/deps.sh

tree: deps
	@scripts/prepare-tree.sh

build: tree
	@scripts/build.sh

# The suite's verdict is make's; a failing benchmark after it only says so.
run: tree
	@scripts/run.sh
	@QUICK=1 scripts/bench.sh && b=done || b="FAILED (not part of the suite's verdict)"; \
	echo "==> make run: the suite passed; the quick benchmark $$b" >&2

check:
	@scripts/check.sh

checkpatch: tree
	@scripts/checkpatch.sh

bench: tree
	@scripts/bench.sh

bench-host: tree
	@scripts/bench-host.sh

patches: deps
	@scripts/patches.sh $(if $(CHECK),--check)

clean:
	rm -rf build
