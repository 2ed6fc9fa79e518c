/* SPDX-License-Identifier: GPL-2.0 */
/* What the files of the test_sched_state module share. */
#ifndef TEST_SCHED_STATE_H
#define TEST_SCHED_STATE_H

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/types.h>

#include "../sched_state.h"

/* v7.0's; CI farms build mainline's selftests against stable kernels too */
#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif

#define SCHED_STATE_MAX_ARGS	4

/*
 * A request split into its words (argv[0] the verb), the file of its
 * transaction, and its reply: at most SIMPLE_TRANSACTION_LIMIT bytes.
 * A verb returns the reply's length or -errno.
 */
struct sched_state_req {
	int argc;
	char *argv[SCHED_STATE_MAX_ARGS];
	struct file *file;
	char *reply;
};

/* core.c */
int sched_state_parse_int(const char *arg, int min, int max, int *val);
void sched_state_wait_for_stop(void);

/* states.c: the tasks asleep in a state */
int sched_state_kthread(struct sched_state_req *req);
int sched_state_wake(struct sched_state_req *req);
int sched_state_wakeups(struct sched_state_req *req);
int sched_state_sleep(struct sched_state_req *req);
void sched_state_release(struct file *file);

/* race.c */
int sched_state_race(struct sched_state_req *req);

/* rtlock.c */
#ifdef CONFIG_PREEMPT_RT
int sched_state_rtlock(struct sched_state_req *req);
#else
static inline int sched_state_rtlock(struct sched_state_req *req)
{
	return -EOPNOTSUPP;
}
#endif

/* bench.c */
int sched_state_bench(struct sched_state_req *req);

#endif /* TEST_SCHED_STATE_H */
