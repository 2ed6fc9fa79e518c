// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: bench <variant> <calls> <cpu>, the question of commit
 * 642fa448ae on today's kernel: the store and barrier of set_current_state()
 * through current against the same through a task pointer, and the
 * barrier's share.  set_current_state() itself is timed apart: under
 * CONFIG_DEBUG_ATOMIC_SLEEP it also stores current->task_state_change.  A
 * variant is a call of a __noipa function, so that each call derives
 * current anew, as a function that sets its state once does: x86's const
 * per-CPU current and arm64's sp_el0 (a non-volatile asm) may be loaded
 * once for a whole loop, not across a call, and the call is not cloned for
 * its argument.  Every variant stores TASK_RUNNING.  A kthread bound to
 * <cpu> times the calls in chunks of a millisecond at most, with
 * preemption off (migration off on PREEMPT_RT), cond_resched() between
 * them; reply: the sum of their ns.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "test_sched_state.h"

#define BENCH_BLOCK	256U		/* calls between two clock reads */
#define BENCH_CHUNK_NS	NSEC_PER_MSEC	/* the longest with preemption off */

/* not inlined, cloned nor analysed across calls; noinline where no __noipa */
#ifndef __noipa
#define __noipa noinline
#endif

static noinline __noipa void bench_set_current_state(struct task_struct *tsk)
{
	set_current_state(TASK_RUNNING);	/* as this kernel builds it */
}

/* set_current_state()'s store and barrier alone, through current */
static noinline __noipa void bench_current_store_mb(struct task_struct *tsk)
{
	/* the store, then smp_mb(), as set_current_state() expands */
	smp_store_mb(current->__state, TASK_RUNNING);
}

static noinline __noipa void bench_set_task_state(struct task_struct *tsk)
{
	/* v4.10's set_task_state(tsk, TASK_RUNNING): store, then smp_mb() */
	smp_store_mb(tsk->__state, TASK_RUNNING);
}

/* v4.10's __set_task_state(tsk, TASK_RUNNING): the store alone */
static noinline __noipa void bench___set_task_state(struct task_struct *tsk)
{
	WRITE_ONCE(tsk->__state, TASK_RUNNING);
}

/* the call alone; barrier() keeps it from being dropped */
static noinline __noipa void bench_empty_loop(struct task_struct *tsk)
{
	barrier();
}

#define BENCH_LOOP(name)						\
static noinline __noipa void bench_loop_##name(struct task_struct *tsk,	\
					       unsigned int n)		\
{									\
	while (n--)							\
		bench_##name(tsk);					\
}

BENCH_LOOP(set_current_state)
BENCH_LOOP(current_store_mb)
BENCH_LOOP(set_task_state)
BENCH_LOOP(__set_task_state)
BENCH_LOOP(empty_loop)

static const struct {
	const char *name;
	void (*loop)(struct task_struct *tsk, unsigned int n);
} bench_variants[] = {
	{ "set_current_state", bench_loop_set_current_state },
	{ "current_store_mb", bench_loop_current_store_mb },
	{ "set_task_state", bench_loop_set_task_state },
	{ "__set_task_state", bench_loop___set_task_state },
	{ "empty_loop", bench_loop_empty_loop },
};

struct bench {
	void (*loop)(struct task_struct *tsk, unsigned int n);
	int calls, cpu;
	u64 ns;
	struct completion done;
};

/* The kthread is bound: on PREEMPT_RT it needs no more than that. */
static void bench_pin(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_disable();
	else
		preempt_disable();
}

static void bench_unpin(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		migrate_enable();
	else
		preempt_enable();
}

/* Time b->calls calls in chunks; -EINTR when told to stop. */
static int bench_time(struct bench *b)
{
	unsigned int n, left = b->calls;
	u64 start, now;
	int cpu;

	while (left) {
		bench_pin();
		start = ktime_get_ns();
		for (now = start; left && now - start < BENCH_CHUNK_NS; left -= n) {
			n = min(left, BENCH_BLOCK);
			b->loop(current, n);
			now = ktime_get_ns();
		}
		cpu = smp_processor_id();
		bench_unpin();
		b->ns += now - start;
		if (cpu != b->cpu)
			return -ENODEV;	/* offline, or went offline */
		if (kthread_should_stop())
			return -EINTR;
		cond_resched();
	}
	return 0;
}

static int bench_fn(void *data)
{
	struct bench *b = data;
	int ret = bench_time(b);

	complete(&b->done);
	sched_state_wait_for_stop();
	return ret;
}

int sched_state_bench(struct sched_state_req *req)
{
	struct task_struct *task;
	struct bench b = {};
	unsigned int v;
	int ret;

	for (v = 0; v < ARRAY_SIZE(bench_variants); v++)
		if (!strcmp(req->argv[1], bench_variants[v].name))
			break;
	if (v == ARRAY_SIZE(bench_variants))
		return -EINVAL;
	ret = sched_state_parse_int(req->argv[2], 1,
				    SCHED_STATE_BENCH_MAX_CALLS, &b.calls);
	if (!ret)
		ret = sched_state_parse_int(req->argv[3], 0, nr_cpu_ids - 1,
					    &b.cpu);
	if (ret)
		return ret;
	b.loop = bench_variants[v].loop;
	init_completion(&b.done);

	task = kthread_create(bench_fn, &b, "sched_state/bench");
	if (IS_ERR(task))
		return PTR_ERR(task);
	cpus_read_lock();
	if (cpu_online(b.cpu))	/* else its first chunk ends with -ENODEV */
		kthread_bind(task, b.cpu);
	cpus_read_unlock();
	wake_up_process(task);
	/* on a fatal signal, kthread_stop() ends the chunks: -EINTR */
	ret = wait_for_completion_killable(&b.done) ? -EINTR : 0;
	ret = kthread_stop(task) ?: ret;
	if (ret)
		return ret;
	return scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "%llu\n", b.ns);
}
