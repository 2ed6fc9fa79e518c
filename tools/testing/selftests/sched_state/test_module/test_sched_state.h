/* SPDX-License-Identifier: GPL-2.0 */
/* What the files of the test_sched_state module share. */
#ifndef TEST_SCHED_STATE_H
#define TEST_SCHED_STATE_H

#include <linux/slab.h>
#include <linux/types.h>

#include "../sched_state.h"

enum verb {
#define SCHED_STATE_VERB(verb, ...)	VERB_##verb,
#include "../sched_state.h"
};

/* A request split into its words, and where its reply goes. */
struct request {
	enum verb verb;
	char *argv[SCHED_STATE_MAX_ARGS];
	char *reply;
	size_t len;
};

/* core.c */
int parse_int(const char *arg, int min, int max, int *val);
int request_reply_len(struct request *req, size_t len);
void wait_for_kthread_stop(void);

/* states.c: the states, and the tasks asleep in them */
int cmd_kthread(struct request *req);
int cmd_state(struct request *req);
int cmd_wake(struct request *req);
int cmd_stop(struct request *req);
int cmd_wakeups(struct request *req);
int cmd_sleep(struct request *req);
void sleepers_stop(void);

/* race.c */
int cmd_race(struct request *req);

/* rtlock.c */
#ifdef CONFIG_PREEMPT_RT
int cmd_rtlock(struct request *req);
#else
static inline int cmd_rtlock(struct request *req)
{
	return -EOPNOTSUPP;
}
#endif

/* bench.c */
int cmd_bench(struct request *req);

#endif /* TEST_SCHED_STATE_H */
