// SPDX-License-Identifier: GPL-2.0
/* test_sched_state: a wakeup across a PREEMPT_RT spinlock_t (rtlock). */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "test_sched_state.h"

/*
 * rtlock: on PREEMPT_RT a contended spinlock_t sleeps in TASK_RTLOCK_WAIT and
 * keeps the task's own state in saved_state, where a regular wakeup that
 * arrives meanwhile lands.  A kthread sets TASK_INTERRUPTIBLE and blocks on a
 * spinlock_t we hold; we wake it, then release the lock.  Once it has the
 * lock it must be TASK_RUNNING, or its schedule() would lose that wakeup.
 * Reply its __state after taking the lock, wake_up_process()'s return,
 * whether it was seen blocked in TASK_RTLOCK_WAIT when woken, and whether it
 * had reached spin_lock() by then.
 */

/*
 * How long we wait, holding the lock, for the kthread to reach spin_lock(),
 * then for it to block there.  A spinlock_t holder must not sleep (it is in
 * an RCU read-side section), so we poll; it stays preemptible, so the
 * kthread can run even on our CPU.  The kthread only has to be scheduled
 * once: well under a millisecond, and tens of milliseconds on a loaded,
 * emulated machine; the bound leaves a wide margin.  A kthread that never
 * reached spin_lock() missed the window, and the caller may try again; one
 * that reached it and was not seen in TASK_RTLOCK_WAIT fails the test.
 */
#define RTLOCK_BLOCK_NS		NSEC_PER_SEC
#define RTLOCK_TIMEOUT		(5 * HZ)

struct rtlock {
	spinlock_t lock;	/* held by cmd_rtlock(), wanted by rtlock_fn() */
	unsigned int after;
	bool reached;		/* rtlock_fn() is at spin_lock() */
	struct completion locked;
};

static int rtlock_fn(void *data)
{
	struct rtlock *t = data;

	set_current_state(TASK_INTERRUPTIBLE);
	WRITE_ONCE(t->reached, true);
	spin_lock(&t->lock);
	t->after = READ_ONCE(current->__state);
	spin_unlock(&t->lock);
	__set_current_state(TASK_RUNNING);
	complete(&t->locked);
	wait_for_kthread_stop();
	return 0;
}

/* Holding @t->lock: has @task reached it, then blocked on it, in time? */
static bool rtlock_blocked(struct rtlock *t, struct task_struct *task)
{
	u64 deadline = ktime_get_ns() + RTLOCK_BLOCK_NS;

	while (!READ_ONCE(t->reached)) {
		if (ktime_get_ns() > deadline)
			return false;
		cpu_relax();
	}
	deadline = ktime_get_ns() + RTLOCK_BLOCK_NS;
	while (READ_ONCE(task->__state) != TASK_RTLOCK_WAIT) {
		if (ktime_get_ns() > deadline)
			return false;
		cpu_relax();
	}
	return true;
}

int cmd_rtlock(struct request *req)
{
	struct task_struct *task;
	bool blocked, reached, woke;
	struct rtlock *t;
	long left;
	int ret;

	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	spin_lock_init(&t->lock);
	init_completion(&t->locked);
	task = kthread_create(rtlock_fn, t, "sched_state/rt");
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto out_free;
	}
	get_task_struct(task);

	spin_lock(&t->lock);
	wake_up_process(task);
	blocked = rtlock_blocked(t, task);
	reached = READ_ONCE(t->reached);
	woke = wake_up_process(task);
	spin_unlock(&t->lock);

	left = wait_for_completion_killable_timeout(&t->locked,
						    RTLOCK_TIMEOUT);
	kthread_stop(task);
	put_task_struct(task);
	if (!left)
		ret = -ETIMEDOUT;
	else if (left < 0)
		ret = left;	/* -ERESTARTSYS: killed */
	else
		ret = scnprintf(req->reply, req->len, "0x%x %d %d %d\n",
				t->after, woke, blocked, reached);
out_free:
	kfree(t);
	return ret;
}
