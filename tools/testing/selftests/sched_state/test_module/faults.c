// SPDX-License-Identifier: GPL-2.0
/* The fault layer of test_sched_state: the fault= parameter (faults.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>
#include <linux/stringify.h>

#include "faults.h"

/* In the order of enum fault. */
static const char * const faults[] = {
	"none",
#define SCHED_STATE_FAULT(name)	__stringify(name),
#include "faults.h"
};

static char *fault = "none";
module_param(fault, charp, 0400);
MODULE_PARM_DESC(fault, "break one semantic on purpose (test the tests)");

enum fault active_fault;

int fault_init(void)
{
	int i = match_string(faults, ARRAY_SIZE(faults), fault);

	if (i < 0) {
		pr_err("unknown fault '%s'\n", fault);
		return -EINVAL;
	}
	active_fault = i;
	if (active_fault != FAULT_none)
		pr_info("fault injected: %s\n", faults[active_fault]);
	return 0;
}
