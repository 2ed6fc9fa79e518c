// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_seed: commit 642fa448ae's comparison.  Loading it times
 * @calls calls of each variant, @repeats times, and logs the ns for
 * scripts/bench/bench.py.  Preemption is off for 1 ms at most; a fatal
 * signal, or five minutes in all, fails the load.
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
#define SEED_MAX_MS	300000

static uint calls = 65000000;
module_param(calls, uint, 0444);
MODULE_PARM_DESC(calls, "calls of each variant in a repeat");
static uint repeats = 5;
module_param(repeats, uint, 0444);

static noinline void seed_set_task_state_ptr(struct task_struct *tsk,
					     unsigned int n)
{
	while (n--)	/* set_task_state(current, ..) as v4.10 expanded it */
		smp_store_mb(tsk->__state, TASK_RUNNING);
}

static noinline void seed_set_current_state(struct task_struct *tsk,
					    unsigned int n)
{
	while (n--)
		set_current_state(TASK_RUNNING);
}

/* @calls calls of @fn; its ns, or -errno */
static s64 seed_time(void (*fn)(struct task_struct *, unsigned int),
		     unsigned long deadline)
{
	unsigned int n, left = calls;
	u64 start, now, ns = 0;

	while (left) {
		preempt_disable();
		start = ktime_get_ns();
		do {
			n = min(left, SEED_BLOCK);
			fn(current, n);
			left -= n;
			now = ktime_get_ns();
		} while (left && now - start < NSEC_PER_MSEC);
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
	s64 ptr, cur;
	unsigned int r;

	if (!calls || !repeats)
		return -EINVAL;
	pr_info("kernel %s, %u calls x %u repeats\n", init_utsname()->release,
		calls, repeats);
	for (r = 1; r <= repeats; r++) {
		ptr = seed_time(seed_set_task_state_ptr, deadline);
		cur = ptr < 0 ? ptr : seed_time(seed_set_current_state, deadline);
		if (cur < 0)
			return cur;
		pr_info("cpu %d repeat %u ns: set_task_state_ptr %lld set_current_state %lld\n",
			raw_smp_processor_id(), r, ptr, cur);
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
