# SPDX-License-Identifier: GPL-2.0
#
# sched_state: a kselftest for task states under set_current_state().
# This Makefile drives the tooling around the overlay; see README.md.
# `make help` prints the lines below that start with "#   ", and nothing
# else: every target and every variable, in one place (check.sh's gate
# "make help" fails on a .PHONY target it does not name).
#
# Targets:
#   make run     build, boot the mainline kernel in QEMU, run the suite
#                (then a quick benchmark run in the same guest)
#   make run ARCH=arm64  the same on another arch of scripts/arches.tsv
#                (x86_64, the default; arm64, ppc64le, arm), in TCG: its first
#                kernel in scripts/kernels.tsv, or KERNEL= among its own
#                (ARCH=arm64 KERNEL=6.12-rt: the line 6.12-rt-arm64)
#   make check   the gate CI runs: each kernel as the "check" column of
#                scripts/kernels.tsv says (x86_64 and arm64), the clean
#                Debian 12, the static and build gates
#   make check-full  the same by the "full" column: every kernel of every arch
#   make deps    install what make check needs (run, tree: what they need)
#   make tree    the mainline tree with the overlay, in KSRC
#   make build   the programs and the module for KERNEL, installed as a
#                CI farm ships them, in build/<kernel>/kselftest (and the
#                tooling's own programs beside, in sched_state-tooling/)
#   make checkpatch  checkpatch.pl --strict on every overlay file
#   make bench   the commit's two benchmarks in QEMU, in the commit's
#                layout, and the live path (sched_state_bench):
#                mainline vs mainline-rt (QUICK=1: one kernel);
#                ARCH=<arch>: that arch's kernel and its -rt twin;
#                ARCH=all: Debian's 6.12 on every arch, one report
#   make bench-host  will-it-scale unlink1 on this host, mmtests-style (QUICK=1)
#   make patches the overlay as a git format-patch series in build/patches/
#                (CHECK=1: git am, build and checkpatch each patch)
#   make mutants the suite against the kernel: each mutants/*.patch breaks one
#                state rule in a mainline .c file (or a header the module
#                expands, "Build: module") of the mainline kernel (or of
#                mainline-rt, "Kernel: mainline-rt"); build, boot, run the suite:
#                each must turn checks red (MUTANTS=name1,name2: only those);
#                build/mutants/result.json and table.md
#   make bump-mainline  pin the newest linux-source upload in Debian's archive
#                in scripts/tree/mainline.pin, and say what changed
#   make prune-cache  remove the cached kernels and trees unused for DAYS
#                days (default 14)
#   make clean   remove build/
#   make help    this text
#
# Variables (make's command line or the environment):
#   KERNEL=      a name of scripts/kernels.tsv (mainline, mainline-rt, debug,
#                6.12, 6.12-rt, 6.1, 6.1-rt, 6.12-arm64, ...); default mainline
#   ARCH=        an arch of scripts/arches.tsv or its Debian name; bench: all
#   MAINLINE=X.Y the newest linux-source-X.Y instead of
#                scripts/tree/mainline.pin
#   KSRC=        your own kernel tree to build in (default build/linux)
#   KIMAGE=      your own kernel image to boot, instead of KERNEL
#   KDIR=        the build tree the module is built against (default KERNEL's)
#   BUILD=       where generated files go (default build/)
#   SCHED_STATE_CACHE=  what outlives a clone (default /var/cache/sched_state,
#                ~/.cache/sched_state for a user other than root)
#   KVM=         auto, on or off (default auto: only if a probe boot works)
#   JOBS=        make -j for kernel builds (default: the CPUs)
#   QUICK=1      bench, bench-host: a short run
#   CHECK=1      patches: git am, build and checkpatch each patch
#   DAYS=        prune-cache: the days unused (default 14)
#   MUTANTS=     mutants: the names to run, comma-separated (default all);
#                MUTANT_TIMEOUT= each one's VM timeout (s, 420)
#   STRESS_INPUTS=, STRESS_SEED=, STRESS_TIMEOUT=  check's hostile-input
#                run: fuzz inputs per file (10000), a seed to replay, seconds
#   DEBUG_TIMEOUT=, PORT_KILLS=  check's debug kernel boot (s, 1800) and
#                lifecycle kills (24)
#   VM_LOCK=     the lock one guest at a time holds (none: no lock)
#   GUEST_ENV='NAME=VALUE ...'  run, check, mutants: exported in every
#                guest before the suite runs (scripts/vm/vm.sh --env), e.g.
#                SCHED_STATE_RACE_MS=10000, the race's bound (ms; default
#                2000, at most 30000), which also lengthens the programs'
#                timeout (scripts/vm/guest/suite.sh)
#   PATCHES_SIGNOFF="Name <email>", PATCHES_BASE=  patches: the author, and
#                the pristine tree (default scripts/tree/mainline.sh's)
#   BENCH_KERNELS=, BENCH_ALL=, BENCH_CALLS=, BENCH_REPEATS=, BENCH_CPU=,
#   BENCH_TASKS=, BENCH_WARMUP=, BENCH_SAMPLES=, BENCH_INTERVAL=,
#   BENCH_TIMEOUT=, BENCH_MODE=, BENCH_CONTROL=, BENCH_DIR=,
#   BENCH_LIVE_CALLS=  bench and bench-host (their meaning:
#                scripts/bench/bench.sh, bench-host.sh)
#   BENCH_KEEP=1 bench: keep this run's data in bench/result.json, which
#                the cover letter reports, if it is of one arch (0: never;
#                default: only a full run of the default kernels)

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
	@sed -n -e 's/^# \(Targets:\|Variables .*:\)$$/\1/p' -e 's/^#   /  /p' Makefile

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

checkpatch: deps tree
	@scripts/gates/checkpatch.sh

bench: tree
	@$(WITH_ARCH) scripts/bench/bench.sh

bench-host: tree
	@scripts/bench/bench-host.sh

patches: deps
	@scripts/report/patches.sh $(if $(CHECK),--check)

bump-mainline: deps
	@scripts/tree/mainline.sh --bump

prune-cache:
	@scripts/tree/prune-cache.sh

mutants: tree
	@scripts/gates/mutants.sh $(subst $(comma), ,$(MUTANTS))

clean:
	rm -rf build
