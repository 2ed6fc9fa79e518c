# SPDX-License-Identifier: GPL-2.0
# The workshop around the overlay (README.md).  `make help` prints the "#   "
# lines below; check.sh fails on a .PHONY target they do not name.
#
#   Build the sched_state selftest on a mainline tree, run it in QEMU, gate it.
#   make run       build, boot mainline in QEMU, run the suite and a short
#                  benchmark (KERNEL=6.12, ARCH=arm64, KIMAGE=: docs/kernels.md)
#   make check     the gate CI runs (.ci/run), as docs/check.md says
#   make check-full  the same on every kernel of every arch
#   make selftest  the tooling's own tests: no kernel, no root, seconds
#   make mutants   each mutants/*.patch must turn the suite red (MUTANTS=a,b)
#   make race-power  race.lost_wakeups' catch rate on the barrier mutant (KEEP=1)
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

# Kernel Makefiles read ARCH: the scripts get it on their command line, and
# the makes they run (the tree for this machine) must not inherit it.
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))
# ARCH=all, make bench's every arch, is none for the tree (its deps: make bench)
WITH_ARCH = $(if $(filter-out all,$(ARCH)),ARCH=$(ARCH))
comma := ,
SHELL := /bin/bash

.PHONY: help deps tree build run check check-full selftest checkpatch bench bench-host patches bump-mainline prune-cache mutants race-power clean

help:
	@sed -n 's/^#   /  /p' Makefile

deps:
	@scripts/tree/deps.sh check

tree:
	@$(WITH_ARCH) scripts/tree/deps.sh run
	@scripts/tree/prepare-tree.sh

build: tree
	@$(WITH_ARCH) scripts/tree/build-kselftest.sh

# the suite (make's verdict), then, if it passed, the quick benchmark in a guest of its own,
# on one kernel resolved once (scripts/lib.sh's pick_kernel exports it)
run: tree
	@. scripts/lib.sh && $(WITH_ARCH) pick_kernel && scripts/vm/run-suite.sh; \
		QUICK=1 scripts/bench/bench.sh && b=done || b="FAILED (not the suite's verdict)"; \
		echo "==> make run: the suite passed; the quick benchmark $$b"

check:
	@scripts/gates/check.sh

check-full:
	@scripts/gates/check.sh --full

# the parsers', judges' and CI entries' self-tests; the mutants' data and docs agree
selftest:
	@cd scripts/report && for t in ktap.py results.py ci-jobs.py; do \
		out=$$(python3 $$t --self-test) || { echo "$$out"; exit 1; }; \
		echo "$$t: $$(echo "$$out" | tail -n 1)"; done
	@python3 scripts/report/ci-jobs.py
	@python3 scripts/gates/mutants-result.py --check && echo "mutants-result.py --check: PASS"

checkpatch:
	@scripts/tree/deps.sh checkpatch
	@scripts/tree/prepare-tree.sh
	@scripts/gates/checkpatch.sh

bench: tree
	@$(if $(filter all,$(ARCH)),scripts/tree/deps.sh check &&) \
		$(if $(ARCH),ARCH=$(ARCH)) scripts/bench/bench.sh

bench-host: tree
	@scripts/bench/bench.sh --host

patches:
	@scripts/tree/deps.sh patches
	@scripts/report/patches.sh $(if $(CHECK),--check)

bump-mainline: deps
	@scripts/tree/mainline.sh --bump

prune-cache:
	@scripts/tree/prune-cache.sh

mutants: tree
	@scripts/gates/mutants.sh $(subst $(comma), ,$(MUTANTS))

race-power: tree
	@scripts/gates/race-power.sh $(if $(KEEP),--keep) $(RUNS)

clean:
	rm -rf build
