# SPDX-License-Identifier: GPL-2.0
# The tooling's own programs, built as the selftests Makefile builds the
# overlay's (scripts/tree/build-kselftest.sh gives both the same compiler,
# uapi headers and -static): module-tests/, the project's tests of its
# module, and bench/, will-it-scale's unlink1.  They include the overlay's headers
# from SELFTESTS/sched_state, and build with -Wall -Wextra.
#
#   make -f scripts/tree/tooling-programs.mk SELFTESTS=DIR
#        [CROSS_COMPILE=PREFIX] [KHDR_INCLUDES=-isystem...]
#        [LDFLAGS=-static] OUTPUT=DIR install
#
# SELFTESTS: a tree's tools/testing/selftests with the overlay in it;
# OUTPUT: where the programs are built and installed, in module-tests/
# (from scripts/gates/module-tests/) and bench/ (from scripts/bench/),
# beside the scripts they go with.
SCRIPTS := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
CC := $(CROSS_COMPILE)gcc
# -D_GNU_SOURCE= as lib.mk passes it: the sources do not define it
CFLAGS := -Wall -Wextra -O2 -D_GNU_SOURCE= -I$(SELFTESTS)/sched_state $(KHDR_INCLUDES)
PROGS := module-tests/sched_state_fuzz bench/unlink1
HDRS := $(wildcard $(SELFTESTS)/kselftest.h $(SELFTESTS)/sched_state/*.h)

ifeq ($(wildcard $(SELFTESTS)/sched_state/sched_state.h),)
$(error SELFTESTS=$(SELFTESTS): no sched_state/ with the overlay in it)
endif
ifeq ($(OUTPUT),)
$(error OUTPUT= is not set)
endif

.PHONY: all install
all: $(addprefix $(OUTPUT)/,$(PROGS))

$(OUTPUT)/module-tests/%: $(SCRIPTS)/gates/module-tests/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(OUTPUT)/bench/%: $(SCRIPTS)/bench/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

install: all
	install -m 755 $(SCRIPTS)/gates/module-tests/sched_state_lifecycle.sh $(OUTPUT)/module-tests/
	install -m 644 $(SCRIPTS)/gates/module-tests/lifecycle_lib.sh $(OUTPUT)/module-tests/
