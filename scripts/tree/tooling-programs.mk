# SPDX-License-Identifier: GPL-2.0
# The workshop's programs, built as lib.mk builds the suite's (static if cross), into OUTPUT/:
#   make -f tooling-programs.mk SELFTESTS=DIR OUTPUT=DIR [CROSS_COMPILE=P] [install]
SCRIPTS := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
MODTESTS := $(addprefix $(SCRIPTS)/gates/module-tests/,sched_state_lifecycle.sh lifecycle_lib.sh)
CC := $(CROSS_COMPILE)gcc
LDFLAGS := $(if $(CROSS_COMPILE),-static)
CFLAGS := -Wall -Wextra -O2 -D_GNU_SOURCE= -I$(SELFTESTS)/sched_state $(KHDR_INCLUDES)
HDRS := $(wildcard $(SELFTESTS)/kselftest.h $(SELFTESTS)/sched_state/*.h)

$(if $(filter %/sched_state.h,$(HDRS)),,$(error SELFTESTS=$(SELFTESTS): no overlay in it))
$(if $(OUTPUT),,$(error OUTPUT= is not set))

.PHONY: all install
all: $(OUTPUT)/module-tests/sched_state_fuzz $(OUTPUT)/bench/unlink1

vpath %.c $(SCRIPTS)/gates $(SCRIPTS)
$(OUTPUT)/%: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

install: all
	cp -p $(MODTESTS) $(OUTPUT)/module-tests/
