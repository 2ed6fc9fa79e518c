/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault layer of test_sched_state: loaded with fault=<name>, the module
 * breaks one semantic on purpose, so that ../faults.txt can show that the
 * checks guarding it fail.  Where a fault bends the module, it is asked
 * about by name: fault_<name>().
 */
#ifndef TEST_SCHED_STATE_FAULTS_H
#define TEST_SCHED_STATE_FAULTS_H

#include <linux/types.h>

enum fault {
	FAULT_none,
#define SCHED_STATE_FAULT(name)	FAULT_##name,
#include "faults.h"
};

extern enum fault active_fault;

int fault_init(void);

/* fault_<name>(): was the module loaded with fault=<name>? */
#define SCHED_STATE_FAULT(name)						\
static inline bool fault_##name(void)					\
{									\
	return active_fault == FAULT_##name;				\
}

#include "faults.h"

#endif /* TEST_SCHED_STATE_FAULTS_H */

/*
 * SCHED_STATE_FAULT(name): the faults, each with the semantic it breaks,
 * for a file that includes this header again with the macro defined.
 */
#ifdef SCHED_STATE_FAULT
SCHED_STATE_FAULT(report_wrong_state)	/* "state" misreports __state */
SCHED_STATE_FAULT(wake_no_mask)		/* "wake" wakes with an empty mask */
SCHED_STATE_FAULT(wake_any)		/* "wake_interruptible" wakes D too */
SCHED_STATE_FAULT(drop_noload)		/* idle sleeps as uninterruptible */
SCHED_STATE_FAULT(add_noload)		/* uninterruptible sleeps as idle */
SCHED_STATE_FAULT(drop_wakekill)	/* killable sleeps as uninterruptible */
SCHED_STATE_FAULT(interruptible_sleep)	/* "sleep" always sleeps interruptible */
SCHED_STATE_FAULT(ignore_signals)	/* "sleep" ignores a pending signal */
SCHED_STATE_FAULT(no_running)		/* "sleep" leaves its state set */
SCHED_STATE_FAULT(check_before_set)	/* "race" tests before setting state */
SCHED_STATE_FAULT(rtlock_reset)		/* "rtlock" re-sets the state after lock */
SCHED_STATE_FAULT(lax_parsing)		/* requests may carry trailing junk */
#undef SCHED_STATE_FAULT
#endif
