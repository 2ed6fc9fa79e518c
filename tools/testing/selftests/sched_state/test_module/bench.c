// SPDX-License-Identifier: GPL-2.0
/* test_sched_state: the set_current_state() latency benchmark (bench). */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "test_sched_state.h"

/*
 * bench <calls> <repeats> <cpu|all>: the latency of set_current_state() as
 * this kernel builds it (with debug_normal_state_change() and the
 * sched_set_state_tp tracepoint, when configured), against its parts.  A
 * kthread bound to <cpu>, or to each online CPU in turn, times <calls>
 * calls of each variant of SCHED_STATE_BENCH_VARIANT; every variant stores
 * TASK_RUNNING, so the thread never sleeps.  The variants take turns within
 * each of the <repeats> rounds, so that drift hits them alike.  Preemption
 * is off while a chunk runs, at most BENCH_CHUNK_CALLS calls or
 * BENCH_CHUNK_NS, with cond_resched() between chunks; the time of the
 * chunks adds up to a variant's time.  Reply one line per CPU and variant:
 * "<cpu> <variant> <ns of each repeat>...".  Past SCHED_STATE_MAX_BUSY_MS,
 * checked between chunks, it fails.
 */
#define BENCH_BLOCK		1024U		/* calls between clock reads */
#define BENCH_CHUNK_CALLS	(1024U * 1024)
#define BENCH_CHUNK_NS		(10 * NSEC_PER_MSEC)
#define BENCH_MAX_NS		9999999999999ULL	/* 13 digits */
/* "<cpu> <variant>", then " <ns>" a repeat, then the newline */
#define BENCH_LINE_LEN(repeats)	(5 + 19 + 14 * (repeats) + 1)

/* The variants, each @n times: what is timed is never a sleep. */
static noinline void bench_set_current_state(unsigned int n)
{
	while (n--)
		set_current_state(TASK_RUNNING);
}

static noinline void bench___set_current_state(unsigned int n)
{
	while (n--)
		__set_current_state(TASK_RUNNING);
}

static noinline void bench_smp_mb(unsigned int n)
{
	while (n--) {
		/* set_current_state()'s barrier alone */
		smp_mb();
	}
}

/* The loop alone, its overhead; barrier() keeps it from being optimized out. */
static noinline void bench_empty_loop(unsigned int n)
{
	while (n--)
		barrier();
}

static const struct {
	const char *name;
	void (*fn)(unsigned int n);
} bench_variants[] = {
#define SCHED_STATE_BENCH_VARIANT(name)	{ #name, bench_##name },
#include "../sched_state.h"
};

#define NR_BENCH_VARIANTS	ARRAY_SIZE(bench_variants)

struct bench {
	unsigned int calls, repeats;
	int cpu;
	int ret;
	unsigned long deadline;		/* in jiffies, for the whole request */
	struct completion done;
	u64 ns[NR_BENCH_VARIANTS][SCHED_STATE_BENCH_MAX_REPEATS];
};

/* Time the calls of variant @v in repeat @r; -EINTR when told to stop. */
static int bench_time(struct bench *b, unsigned int v, unsigned int r)
{
	unsigned int n, chunk, calls = b->calls;
	u64 start, now, ns = 0;

	while (calls) {
		preempt_disable();
		if (smp_processor_id() != b->cpu) {
			/* the CPU went offline: the results would lie */
			preempt_enable();
			return -ENODEV;
		}
		start = ktime_get_ns();
		now = start;
		for (chunk = 0; calls && chunk < BENCH_CHUNK_CALLS &&
		     now - start < BENCH_CHUNK_NS; chunk += n) {
			n = min(calls, BENCH_BLOCK);
			bench_variants[v].fn(n);
			calls -= n;
			now = ktime_get_ns();
		}
		preempt_enable();
		ns += now - start;
		if (kthread_should_stop())
			return -EINTR;
		if (time_after(jiffies, b->deadline))
			return -ETIMEDOUT;
		cond_resched();
	}
	b->ns[v][r] = ns;
	return ns > BENCH_MAX_NS ? -EOVERFLOW : 0;
}

static int bench_fn(void *data)
{
	struct bench *b = data;
	unsigned int r, v;

	for (r = 0; r < b->repeats && !b->ret; r++)
		for (v = 0; v < NR_BENCH_VARIANTS && !b->ret; v++)
			b->ret = bench_time(b, v, r);
	complete(&b->done);
	wait_for_kthread_stop();
	return 0;
}

/* Run the benchmark on @cpu; a fatal signal stops it within a chunk. */
static int bench_on(struct bench *b, int cpu)
{
	struct task_struct *task;
	int ret;

	b->cpu = cpu;
	b->ret = 0;
	reinit_completion(&b->done);
	task = kthread_create(bench_fn, b, "sched_state/b%d", cpu);
	if (IS_ERR(task))
		return PTR_ERR(task);
	kthread_bind(task, cpu);
	wake_up_process(task);
	ret = wait_for_completion_killable(&b->done);
	kthread_stop(task);
	return ret ? ret : b->ret;
}

/* Append @b's lines to @reply, which holds @used of @len bytes. */
static int bench_reply(struct bench *b, char *reply, size_t len, size_t *used)
{
	unsigned int r, v;

	for (v = 0; v < NR_BENCH_VARIANTS; v++) {
		*used += scnprintf(reply + *used, len - *used, "%d %s", b->cpu,
				   bench_variants[v].name);
		for (r = 0; r < b->repeats; r++)
			*used += scnprintf(reply + *used, len - *used, " %llu",
					   b->ns[v][r]);
		*used += scnprintf(reply + *used, len - *used, "\n");
		/* scnprintf() fills at most len - 1: full may mean cut */
		if (*used >= len - 1)
			return -E2BIG;	/* a CPU came online meanwhile */
	}
	return 0;
}

int cmd_bench(struct request *req)
{
	bool all = !strcmp(req->argv[3], "all");
	int calls, repeats, cpu = 0, ret;
	unsigned int nr_cpus = 1;
	size_t len, used = 0;
	struct bench *b;

	ret = parse_int(req->argv[1], 1, SCHED_STATE_BENCH_MAX_CALLS, &calls);
	if (!ret)
		ret = parse_int(req->argv[2], 1, SCHED_STATE_BENCH_MAX_REPEATS,
				&repeats);
	if (!ret && !all)
		ret = parse_int(req->argv[3], 0, nr_cpu_ids - 1, &cpu);
	if (ret)
		return ret;
	if (all)
		nr_cpus = num_online_cpus();
	else if (!cpu_online(cpu))
		return -ENODEV;
	if ((u64)calls * repeats * NR_BENCH_VARIANTS * nr_cpus >
	    SCHED_STATE_BENCH_MAX_WORK)
		return -E2BIG;
	len = nr_cpus * NR_BENCH_VARIANTS * BENCH_LINE_LEN(repeats) + 1;
	if (len > SCHED_STATE_MAX_REPLY)
		return -E2BIG;
	ret = request_reply_len(req, len);
	if (ret)
		return ret;

	b = kzalloc_obj(*b, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->calls = calls;
	b->repeats = repeats;
	b->deadline = jiffies + msecs_to_jiffies(SCHED_STATE_MAX_BUSY_MS);
	init_completion(&b->done);
	if (all) {
		for_each_online_cpu(cpu) {
			ret = bench_on(b, cpu);
			if (!ret)
				ret = bench_reply(b, req->reply, req->len, &used);
			if (ret)
				break;
		}
	} else {
		ret = bench_on(b, cpu);
		if (!ret)
			ret = bench_reply(b, req->reply, req->len, &used);
	}
	kfree(b);
	return ret ? ret : used;
}
