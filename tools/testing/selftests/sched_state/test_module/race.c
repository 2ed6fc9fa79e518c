// SPDX-License-Identifier: GPL-2.0
/* test_sched_state: the lost-wakeup race (the race verb). */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "test_sched_state.h"

/*
 * race <rounds> <ms>: the lost-wakeup race, on two CPUs.  Each round the two
 * threads meet at a spin barrier and go at once: the sleeper sets its state
 * with set_current_state() and tests the condition, the waker sets the
 * condition and wakes it.  This is the store-buffering shape of
 * tools/memory-model SB+fencembonceonces: without the barrier of
 * set_current_state() a wakeup is lost when the store of the state is still
 * in the sleeper's store buffer as try_to_wake_up() reads it.  To hold it
 * there, the sleeper first stores to RACE_LINES cache lines that the waker
 * has just written (stores drain in order, each of these a miss); a random
 * delay of up to RACE_SWEEP loops sweeps its test across the waker's store.
 *
 * A wakeup is lost when the sleeper is still asleep RACE_BOUND / 2 after
 * wake_up_process() returned, whatever that returned: the waker wakes it
 * again, and counts it when that wakeup finds it asleep.  A sleeper that
 * merely runs late, its vCPU starved by the host, was woken and is not.
 * Past <ms> the sleeper stops; reply the rounds it finished and the
 * wakeups lost.
 */
#define RACE_BOUND	msecs_to_jiffies(100)
#define RACE_MAX_LOST	10
#define RACE_LINES	4
#define RACE_SWEEP	200

struct sched_state_race {
	struct task_struct *sleeper, *waker;
	unsigned int rounds, done, lost;
	unsigned long deadline;	/* in jiffies */
	struct completion finished;
	/* each on a line of its own: the two CPUs write them */
	int cond ____cacheline_aligned;	/* the round the waker has signalled */
	int sleeper_round ____cacheline_aligned;	/* the round each reached */
	int waker_round ____cacheline_aligned;
	struct {
		int v;
	} ____cacheline_aligned line[RACE_LINES];
};

/* Reach @round, then wait for the other thread to reach it. */
static bool race_meet(int *mine, int *theirs, int round)
{
	unsigned long spins = 0;

	WRITE_ONCE(*mine, round);
	while (READ_ONCE(*theirs) < round) {
		if (!(++spins % 1024)) {
			if (kthread_should_stop())
				return false;
			cond_resched();
		}
		cpu_relax();
	}
	return true;
}

static bool race_wait_round(struct sched_state_race *r, int round)
{
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (READ_ONCE(r->cond) >= round)
			return true;
		schedule_timeout(RACE_BOUND);
		if (kthread_should_stop() || time_after(jiffies, r->deadline))
			return false;
	}
}

/* Whether the sleeper ends @round within RACE_BOUND / 2 of its wakeup. */
static bool race_round_ends(struct sched_state_race *r, int round)
{
	unsigned long end = jiffies + RACE_BOUND / 2, spins = 0;

	while ((int)READ_ONCE(r->done) < round) {
		if (READ_ONCE(r->sleeper_round) == INT_MAX)
			return true;
		if (!(++spins % 1024)) {
			if (kthread_should_stop())
				return true;
			if (time_after(jiffies, end))
				return false;
			cond_resched();
		}
		cpu_relax();
	}
	return true;
}

static int race_sleeper_fn(void *data)
{
	struct sched_state_race *r = data;
	unsigned int delay, i;
	int round;

	for (round = 1; round <= r->rounds && READ_ONCE(r->lost) < RACE_MAX_LOST;
	     round++) {
		if (time_after(jiffies, r->deadline))
			break;
		delay = get_random_u32_below(RACE_SWEEP + 1);
		if (!race_meet(&r->sleeper_round, &r->waker_round, round))
			break;
		/* a delay of a few cycles a loop, not a wait: no cpu_relax() */
		while (delay--)
			barrier();
		for (i = 0; i < RACE_LINES; i++)
			WRITE_ONCE(r->line[i].v, round);
		if (!race_wait_round(r, round))
			break;
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(r->done, round);
	}
	__set_current_state(TASK_RUNNING);
	WRITE_ONCE(r->sleeper_round, INT_MAX);
	complete(&r->finished);
	sched_state_wait_for_stop();
	return 0;
}

static int race_waker_fn(void *data)
{
	struct sched_state_race *r = data;
	unsigned int i;
	int round;

	for (round = 1; round <= r->rounds; round++) {
		/* the lines the sleeper's stores will miss on */
		for (i = 0; i < RACE_LINES; i++)
			WRITE_ONCE(r->line[i].v, -round);
		if (!race_meet(&r->waker_round, &r->sleeper_round, round))
			return 0;
		if (READ_ONCE(r->sleeper_round) == INT_MAX)
			break;
		WRITE_ONCE(r->cond, round);
		wake_up_process(r->sleeper);
		/* still asleep: that wakeup was lost, and this one ends the sleep */
		if (!race_round_ends(r, round) && wake_up_process(r->sleeper))
			WRITE_ONCE(r->lost, r->lost + 1);
	}
	sched_state_wait_for_stop();
	return 0;
}

/* Bind the two to two online CPUs and start them; -EOPNOTSUPP if not two. */
static int race_start(struct sched_state_race *r)
{
	unsigned int cpu, other;
	int ret = -EOPNOTSUPP;

	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	other = cpumask_next(cpu, cpu_online_mask);
	if (other < nr_cpu_ids) {
		kthread_bind(r->sleeper, cpu);
		kthread_bind(r->waker, other);
		wake_up_process(r->sleeper);
		wake_up_process(r->waker);
		ret = 0;
	}
	cpus_read_unlock();
	return ret;
}

int sched_state_race(struct sched_state_req *req)
{
	struct sched_state_race *r;
	int rounds, ms, ret;

	if (sched_state_parse_int(req->argv[1], 1, SCHED_STATE_MAX_ROUNDS,
				  &rounds) ||
	    sched_state_parse_int(req->argv[2], 1, SCHED_STATE_MAX_BUSY_MS, &ms))
		return -EINVAL;
	r = kzalloc_obj(*r, GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->rounds = rounds;
	r->deadline = jiffies + msecs_to_jiffies(ms);
	init_completion(&r->finished);

	r->sleeper = kthread_create(race_sleeper_fn, r, "sched_state/rs");
	if (IS_ERR(r->sleeper)) {
		ret = PTR_ERR(r->sleeper);
		goto out_free;
	}
	r->waker = kthread_create(race_waker_fn, r, "sched_state/rw");
	if (IS_ERR(r->waker)) {
		ret = PTR_ERR(r->waker);
		goto out_stop_sleeper;
	}
	ret = race_start(r);
	if (!ret && wait_for_completion_killable(&r->finished))
		ret = -EINTR;
	/* the waker first: it may be waking the sleeper */
	kthread_stop(r->waker);
	if (!ret)
		ret = scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "%u %u\n",
				r->done, r->lost);
out_stop_sleeper:
	kthread_stop(r->sleeper);
out_free:
	kfree(r);
	return ret;
}
