// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_seed: the comparison of commit 642fa448ae ("sched/core: Remove
 * set_task_state()"), some 65 million calls of set_task_state(current, ..)
 * against set_current_state(), its "Avg runtime" lines.  set_task_state() is
 * gone since; what it was, smp_store_mb() through a task pointer, is timed
 * here against today's set_current_state().  Tooling only: the overlay's
 * bench request times the live path.
 *
 * Loading it runs the benchmark in the loader's context, calls=N calls of
 * each variant, the variants taking turns in each of repeats=R rounds, and
 * prints to the kernel log, for scripts/bench/bench.py:
 *   sched_state_seed: kernel <release>, <calls> calls x <repeats> repeats
 *   sched_state_seed: cpu <cpu> repeat <r> ns: <variant> <ns> ...
 * Preemption is off for chunks of at most 1 ms, with cond_resched() between
 * them; a fatal signal, or five minutes in all, fails the load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>

#define SEED_BLOCK	1024U
#define SEED_CHUNK_NS	NSEC_PER_MSEC
#define SEED_MAX_MS	300000
#define SEED_REPEATS	100

static uint calls = 65000000;
module_param(calls, uint, 0444);
MODULE_PARM_DESC(calls, "calls of each variant in a repeat");
static uint repeats = 5;
module_param(repeats, uint, 0444);
MODULE_PARM_DESC(repeats, "repeats, at most 100");

static noinline void seed_set_task_state_ptr(struct task_struct *tsk,
					     unsigned int n)
{
	while (n--) {
		/* set_task_state(current, ..) as v4.10 expanded it */
		smp_store_mb(tsk->__state, TASK_RUNNING);
	}
}

static noinline void seed_set_current_state(struct task_struct *tsk,
					    unsigned int n)
{
	while (n--)
		set_current_state(TASK_RUNNING);
}

static const struct {
	const char *name;
	void (*fn)(struct task_struct *tsk, unsigned int n);
} variants[] = {
	{ "set_task_state_ptr", seed_set_task_state_ptr },
	{ "set_current_state", seed_set_current_state },
};

/* @calls calls of variant @v; its ns, or -errno */
static s64 seed_time(unsigned int v, unsigned long deadline, int *cpu)
{
	unsigned int n, left = calls;
	u64 start, now, ns = 0;

	while (left) {
		preempt_disable();
		*cpu = smp_processor_id();
		start = ktime_get_ns();
		now = start;
		while (left && now - start < SEED_CHUNK_NS) {
			n = min(left, SEED_BLOCK);
			variants[v].fn(current, n);
			left -= n;
			now = ktime_get_ns();
		}
		preempt_enable();
		ns += now - start;
		if (fatal_signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		cond_resched();
	}
	return ns;
}

static int __init seed_init(void)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(SEED_MAX_MS);
	s64 ns[ARRAY_SIZE(variants)];
	unsigned int r, v;
	int cpu = 0;

	if (!calls || !repeats || repeats > SEED_REPEATS)
		return -EINVAL;
	pr_info("kernel %s, %u calls x %u repeats\n", init_utsname()->release,
		calls, repeats);
	for (r = 1; r <= repeats; r++) {
		for (v = 0; v < ARRAY_SIZE(variants); v++) {
			ns[v] = seed_time(v, deadline, &cpu);
			if (ns[v] < 0)
				return ns[v];
		}
		pr_info("cpu %d repeat %u ns: %s %lld %s %lld\n", cpu, r,
			variants[0].name, ns[0], variants[1].name, ns[1]);
	}
	return 0;
}
module_init(seed_init);

static void __exit seed_exit(void)
{
}
module_exit(seed_exit);

MODULE_DESCRIPTION("set_task_state() as it was against set_current_state()");
MODULE_LICENSE("GPL");
