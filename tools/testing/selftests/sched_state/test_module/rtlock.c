// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: a wakeup across a PREEMPT_RT spinlock_t or rwlock_t (the
 * rtlock and rtlock_rw verbs).
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rbtree.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "test_sched_state.h"

/*
 * On PREEMPT_RT a contended spinlock_t blocks in TASK_RTLOCK_WAIT and keeps
 * the task's own state in saved_state, where a regular wakeup that comes
 * meanwhile lands (kernel/locking/rtmutex.c, ttwu_state_match() in
 * kernel/sched/core.c).  A kthread on another CPU sets TASK_INTERRUPTIBLE
 * and blocks on a spinlock_t we hold.  Once it is a waiter we note the
 * letter the kernel reports for it, wake it and release the lock.  Having
 * the lock, it calls schedule_timeout() with no state of its own: it returns
 * at once if the wakeup was kept, it sleeps out RTLOCK_BOUND if it was lost.
 * wake_up_process() must report the wakeup as done, though the waiter
 * stays blocked on the lock (ttwu_state_match()).  rtlock_nowake: no
 * wakeup comes, so the state it restores sleeps out RTLOCK_NOWAKE_BOUND.
 * rtlock_block: a FIFO kthread on our CPU preempts us, the owner, for
 * RTLOCK_PREEMPT_NS, so that the waiter stops spinning on us and blocks
 * (rtmutex_spin_on_owner(), schedule_rtlock()): a voluntary switch since
 * it went for the lock.
 *
 * rtlock_rw: the kthread write_lock()s an rwlock_t we hold to read; it takes
 * the rwlock's rt_mutex, then waits for the reader in TASK_RTLOCK_WAIT with
 * the same save and restore (rwbase_write_lock() in kernel/locking/rwbase_rt.c).
 *
 * We hold the lock for at most RTLOCK_POLL_NS: the kthread spins until we
 * take it, so it blocks within microseconds, unless its CPU is slow to run
 * it (a loaded host's vCPU).  If it is not a waiter by then, or we moved to
 * its CPU before pinning ourselves there, the reply is "missed", and the
 * caller may try again.
 */
#define RTLOCK_POLL_NS		(10 * NSEC_PER_MSEC)
#define RTLOCK_BOUND	HZ
#define RTLOCK_NOWAKE_BOUND	(HZ / 10)
#define RTLOCK_PREEMPT_NS	(20 * NSEC_PER_MSEC)
#define RTLOCK_WAIT	(3 * HZ)

struct sched_state_rtlock {
	spinlock_t lock;	/* held by the request, wanted by rtlock_fn() */
	rwlock_t rwlock;	/* rtlock_rw: held to read, the same */
	bool rw;
	bool nowake;		/* rtlock_nowake: we do not wake it */
	bool block;		/* rtlock_block: we are preempted */
	int preempt_cpu;	/* where the preempting kthread ran */
	bool go;		/* we hold the lock */
	bool woken;		/* we woke it while it waited for the lock */
	bool kept;		/* its schedule_timeout() returned early */
	struct completion started, done, preempted;
};

static int rtlock_fn(void *data)
{
	struct sched_state_rtlock *r = data;
	unsigned long deadline = jiffies + RTLOCK_BOUND;
	bool woken;

	complete(&r->started);
	while (!READ_ONCE(r->go)) {
		if (kthread_should_stop() || time_after(jiffies, deadline))
			goto out;
		cpu_relax();
	}
	set_current_state(TASK_INTERRUPTIBLE);
	if (r->rw) {
		write_lock(&r->rwlock);
		woken = r->woken;
		write_unlock(&r->rwlock);
	} else {
		spin_lock(&r->lock);
		woken = r->woken;
		spin_unlock(&r->lock);
	}
	r->kept = schedule_timeout(woken ? RTLOCK_BOUND :
					   RTLOCK_NOWAKE_BOUND) > 0;
	__set_current_state(TASK_RUNNING);
out:
	complete(&r->done);
	sched_state_wait_for_stop();
	return 0;
}

static int rtlock_preempt_fn(void *data)
{
	struct sched_state_rtlock *r = data;
	u64 end = ktime_get_ns() + RTLOCK_PREEMPT_NS;

	while (ktime_get_ns() < end)
		cpu_relax();
	r->preempt_cpu = raw_smp_processor_id();
	complete(&r->preempted);
	sched_state_wait_for_stop();
	return 0;
}

/* Holding the lock, let @p preempt us; false if it ran on another CPU. */
static bool rtlock_preempted(struct sched_state_rtlock *r,
			     struct task_struct *p)
{
	wake_up_process(p);
	while (!completion_done(&r->preempted))
		cpu_relax();
	return r->preempt_cpu == raw_smp_processor_id();
}

/*
 * Does @task wait for the lock we hold?  A writer of @r->rwlock waits for
 * our read side with no rt_mutex waiter: only its state says it.
 */
static bool rtlock_waiting(struct sched_state_rtlock *r,
			   struct task_struct *task)
{
	if (r->rw)
		return READ_ONCE(task->__state) & TASK_RTLOCK_WAIT;
	/* rt_mutex internals, read unlocked: only whether there is a waiter */
	return !data_race(RB_EMPTY_ROOT(&r->lock.lock.waiters.rb_root));
}

/* Holding the lock: does @task wait for it within our poll? */
static bool rtlock_waited(struct sched_state_rtlock *r,
			  struct task_struct *task)
{
	u64 deadline = ktime_get_ns() + RTLOCK_POLL_NS;

	while (!rtlock_waiting(r, task)) {
		if (ktime_get_ns() > deadline)
			return false;
		cpu_relax();
	}
	/* its state is stored before it is enqueued (rtlock_slowlock_locked()) */
	smp_rmb();
	return true;
}

/*
 * Start @task on a CPU other than ours: -EOPNOTSUPP if there is none.
 * Not under migrate_disable(): a CPU going offline holds the hotplug lock
 * while it waits for pinned tasks to leave (balance_hotplug_wait()).
 */
static int rtlock_start(struct task_struct *task, unsigned int *cpu)
{
	cpus_read_lock();
	*cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (*cpu < nr_cpu_ids) {
		kthread_bind(task, *cpu);
		wake_up_process(task);
	}
	cpus_read_unlock();
	return *cpu < nr_cpu_ids ? 0 : -ENODEV;
}

static int rtlock_wait(struct completion *done)
{
	long left = wait_for_completion_killable_timeout(done, RTLOCK_WAIT);

	if (left < 0)
		return -EINTR;
	return left ? 0 : -ETIMEDOUT;
}

int sched_state_rtlock(struct sched_state_req *req)
{
	struct task_struct *task, *preempter = NULL;
	struct sched_state_rtlock *r;
	int woke = 0, blocked = 0, ret;
	unsigned long nvcsw = 0;
	unsigned int cpu;
	char letter = 0;

	r = kzalloc_obj(*r, GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->rw = !strcmp(req->argv[0], "rtlock_rw");
	r->nowake = !strcmp(req->argv[0], "rtlock_nowake");
	r->block = !strcmp(req->argv[0], "rtlock_block");
	spin_lock_init(&r->lock);
	rwlock_init(&r->rwlock);
	init_completion(&r->started);
	init_completion(&r->done);
	init_completion(&r->preempted);
	if (r->block) {
		preempter = kthread_create(rtlock_preempt_fn, r,
					   "sched_state/rtp");
		if (IS_ERR(preempter)) {
			ret = PTR_ERR(preempter);
			goto out_free;
		}
		get_task_struct(preempter);
		sched_set_fifo(preempter);
	}
	task = kthread_create(rtlock_fn, r, "sched_state/rt");
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto out_preempter;
	}
	get_task_struct(task);

	ret = rtlock_start(task, &cpu);
	/* stay off its CPU, where it spins until we hold the lock */
	migrate_disable();
	if (preempter)
		kthread_bind(preempter, smp_processor_id());
	if (!ret)
		ret = rtlock_wait(&r->started);
	if (!ret && smp_processor_id() != cpu) {
		if (r->rw)
			read_lock(&r->rwlock);
		else
			spin_lock(&r->lock);
		nvcsw = READ_ONCE(task->nvcsw);
		WRITE_ONCE(r->go, true);
		if (rtlock_waited(r, task)) {
			letter = task_state_to_char(task);
			if (preempter && !rtlock_preempted(r, preempter))
				letter = 0;
			blocked = READ_ONCE(task->nvcsw) != nvcsw;
			r->woken = !r->nowake;
			if (r->woken)
				woke = wake_up_process(task);
		}
		if (r->rw)
			read_unlock(&r->rwlock);
		else
			spin_unlock(&r->lock);
	}
	migrate_enable();
	if (!ret)
		ret = rtlock_wait(&r->done);
	/*
	 * Still a waiter, long after we freed the lock: the unlock did not
	 * wake it from TASK_RTLOCK_WAIT (rt_mutex_wake_up_q()), and nothing
	 * else may.  It cannot be stopped: it, @r and the module stay.
	 */
	if (ret == -ETIMEDOUT && rtlock_waiting(r, task)) {
		__module_get(THIS_MODULE);
		r = NULL;
		goto out_preempter;
	}
	if (!ret && !letter)
		ret = scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "missed\n");
	else if (!ret)
		ret = scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT,
				"%c %d %d %d\n", letter, woke, r->kept,
				blocked);
	kthread_stop(task);
	put_task_struct(task);
out_preempter:
	if (preempter) {
		kthread_stop(preempter);
		put_task_struct(preempter);
	}
out_free:
	kfree(r);
	return ret;
}
