# SPDX-License-Identifier: GPL-2.0
#
# sched_state: a kselftest for task states under set_current_state().
# This Makefile drives the tooling around the overlay; see README.md.
# `make help` prints the lines below that start with "#   ": every target
# (check.sh's gate fails on a .PHONY target it does not name); the
# variables are in docs/variables.md.
#
#   Build the sched_state selftest on a mainline tree, run it in QEMU, gate it.
#   make run       build, boot mainline in QEMU, run the suite and a short
#                  benchmark (KERNEL=6.12, ARCH=arm64, KIMAGE=: docs/kernels.md)
#   make check     the gate CI runs (.ci/run), as docs/check.md says
#   make check-full  the same on every kernel of every arch
#   make mutants   each mutants/*.patch must turn the suite red (MUTANTS=a,b)
#   make bench     the commit's benchmarks, mainline vs mainline-rt (QUICK=1)
#   make bench-host  will-it-scale unlink1 on this host, mmtests-style
#   make patches   the series in build/patches/ (CHECK=1: am, build, checkpatch)
#   make checkpatch  checkpatch.pl --strict on every overlay file
#   make build     the programs and module for KERNEL, in build/<kernel>/
#   make tree      the mainline tree with the overlay, in KSRC (build/linux)
#   make deps      install what make check needs
#   make bump-mainline  pin the newest linux-source in Debian's archive
#   make prune-cache  remove cached kernels and trees unused for DAYS days
#   make clean     remove build/
#   make help      this text
#   Variables (KERNEL=, ARCH=, KSRC=, KIMAGE=, GUEST_ENV=, ...): docs/variables.md

# KERNEL, MAINLINE, KSRC, KDIR, KIMAGE and BUILD reach the scripts from the command line
# or the environment; exporting them here would export them empty when unset.
# ARCH does not: every kernel Makefile reads it, and the makes the scripts
# run (make tree configuring KSRC for this machine) must not inherit it.
# The scripts that pick a kernel get it on their command line.
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))
WITH_ARCH = $(if $(ARCH),ARCH=$(ARCH))
comma := ,

.PHONY: help deps tree build run check check-full checkpatch bench bench-host patches bump-mainline prune-cache mutants clean

help:
	@sed -n 's/^#   /  /p' Makefile

deps:
	@scripts/tree/deps.sh check

tree:
	@$(WITH_ARCH) scripts/tree/deps.sh run
	@scripts/tree/prepare-tree.sh

build: tree
	@$(WITH_ARCH) scripts/tree/build-kselftest.sh

# One guest: the suite, then the quick benchmark.  The suite's verdict is
# make's; a failing benchmark after it only says so.
run: tree
	@$(WITH_ARCH) scripts/vm/run-suite.sh --quick-bench

check:
	@scripts/gates/check.sh

check-full:
	@scripts/gates/check.sh --full

checkpatch:
	@scripts/tree/deps.sh checkpatch
	@scripts/tree/prepare-tree.sh
	@scripts/gates/checkpatch.sh

bench: tree
	@$(WITH_ARCH) scripts/bench/bench.sh

bench-host: tree
	@scripts/bench/bench-host.sh

patches:
	@scripts/tree/deps.sh patches
	@scripts/report/patches.sh $(if $(CHECK),--check)

bump-mainline: deps
	@scripts/tree/mainline.sh --bump

prune-cache:
	@scripts/tree/prune-cache.sh

mutants: tree
	@scripts/gates/mutants.sh $(subst $(comma), ,$(MUTANTS))

clean:
	rm -rf build
