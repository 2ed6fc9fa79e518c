# SPDX-License-Identifier: GPL-2.0
#
# sched_state: a kselftest for task states under set_current_state().
# This Makefile drives the tooling around the overlay; see README.md.
#
#   make run     build, boot Debian's 6.1 kernel in QEMU, run the suite
#   make check   the whole gate (what CI runs)
#   make bench-host  will-it-scale unlink1 on this host, mmtests-style (QUICK=1)
#
# Knobs: KERNEL=generic|rt, KSRC=, KDIR=, KIMAGE=, BUILD= (see scripts/lib.sh)

# KERNEL, KSRC, KDIR, KIMAGE and BUILD reach the scripts from the command line
# or the environment; exporting them here would export them empty when unset.

.PHONY: help deps tree build run check checkpatch bench-host clean

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@scripts/deps.sh

tree: deps
	@scripts/prepare-tree.sh

build: tree
	@scripts/build.sh

run: tree
	@scripts/run.sh

check:
	@scripts/check.sh

checkpatch: tree
	@scripts/checkpatch.sh

bench-host: tree
	@scripts/bench-host.sh

clean:
	rm -rf build
