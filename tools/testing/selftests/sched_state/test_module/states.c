// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: the states, and the tasks asleep in them (the kthread,
 * wake, wake_interruptible, wakeups and sleep verbs).
 */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "test_sched_state.h"

static const struct {
	const char *name;
	unsigned int state;
	bool parked;		/* a kthread, then kthread_park() */
} sched_state_states[] = {
	{ "interruptible",	TASK_INTERRUPTIBLE,	false },
	{ "uninterruptible",	TASK_UNINTERRUPTIBLE,	false },
	{ "killable",		TASK_KILLABLE,		false },
	{ "idle",		TASK_IDLE,		false },
	{ "parked",		TASK_INTERRUPTIBLE,	true },
};

/*
 * A task asleep in the module: one of its kthreads, or a task inside a sleep
 * request.  It waits on @wq, so that a waker can use a wake mode as well as
 * wake_up_process().
 */
struct sched_state_sleeper {
	struct list_head node;
	struct task_struct *task;
	struct file *owner;		/* a kthread's: the file that started it */
	unsigned int state;
	bool woken;			/* the condition it waits for */
	unsigned int wakeups;		/* a kthread's: times it found it set */
	int wake_ret;			/* default_wake_function()'s return */
	wait_queue_head_t wq;
	struct wait_queue_entry wait;
};

static LIST_HEAD(sched_state_sleepers);
static unsigned int sched_state_nr_sleepers;
static DEFINE_MUTEX(sched_state_lock);

static int sched_state_wake_fn(struct wait_queue_entry *wait,
			       unsigned int mode, int sync, void *key)
{
	struct sched_state_sleeper *s;

	s = container_of(wait, struct sched_state_sleeper, wait);
	s->wake_ret = default_wake_function(wait, mode, sync, key);
	return s->wake_ret;
}

/* Put @s on its wait queue; then it can be listed. */
static void sched_state_sleeper_init(struct sched_state_sleeper *s,
				     struct task_struct *task,
				     unsigned int state)
{
	s->task = task;
	s->state = state;
	init_waitqueue_head(&s->wq);
	init_waitqueue_func_entry(&s->wait, sched_state_wake_fn);
	s->wait.private = task;
	add_wait_queue(&s->wq, &s->wait);
}

static int sched_state_sleeper_add(struct sched_state_sleeper *s)
{
	int ret = -ENOSPC;

	mutex_lock(&sched_state_lock);
	if (sched_state_nr_sleepers < SCHED_STATE_MAX_SLEEPERS) {
		list_add_tail(&s->node, &sched_state_sleepers);
		sched_state_nr_sleepers++;
		ret = 0;
	}
	mutex_unlock(&sched_state_lock);
	return ret;
}

/* Called with sched_state_lock held. */
static void sched_state_sleeper_del(struct sched_state_sleeper *s)
{
	list_del(&s->node);
	sched_state_nr_sleepers--;
}

/* Called with sched_state_lock held. */
static struct sched_state_sleeper *sched_state_find(const char *arg)
{
	struct sched_state_sleeper *s;
	int nr;

	if (sched_state_parse_int(arg, 1, PID_MAX_LIMIT, &nr))
		return ERR_PTR(-EINVAL);
	list_for_each_entry(s, &sched_state_sleepers, node)
		if (task_pid_vnr(s->task) == nr)
			return s;
	return ERR_PTR(-ESRCH);
}

static int sched_state_parse(const char *arg)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sched_state_states); i++)
		if (!strcmp(arg, sched_state_states[i].name))
			return i;
	return -EINVAL;
}

static void sched_state_kthread_put(struct sched_state_sleeper *s)
{
	kthread_stop(s->task);
	put_task_struct(s->task);
	remove_wait_queue(&s->wq, &s->wait);
	kfree(s);
}

static int sched_state_kthread_fn(void *data)
{
	struct sched_state_sleeper *s = data;

	for (;;) {
		set_current_state(s->state);
		if (kthread_should_stop())
			break;
		if (kthread_should_park()) {
			__set_current_state(TASK_RUNNING);
			kthread_parkme();
			continue;
		}
		if (READ_ONCE(s->woken)) {
			__set_current_state(TASK_RUNNING);
			WRITE_ONCE(s->woken, false);
			WRITE_ONCE(s->wakeups, s->wakeups + 1);
			continue;
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* kthread <state>: reply the pid of a new kthread asleep in <state>. */
int sched_state_kthread(struct sched_state_req *req)
{
	struct sched_state_sleeper *s;
	struct task_struct *task;
	int i, ret;
	pid_t nr;

	i = sched_state_parse(req->argv[1]);
	if (i < 0)
		return i;
	s = kzalloc_obj(*s, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	task = kthread_create(sched_state_kthread_fn, s, "sched_state/%s",
			      sched_state_states[i].name);
	if (IS_ERR(task)) {
		kfree(s);
		return PTR_ERR(task);
	}
	sched_state_sleeper_init(s, get_task_struct(task),
				 sched_state_states[i].state);
	s->owner = req->file;
	wake_up_process(task);
	if (sched_state_states[i].parked) {
		ret = kthread_park(task);
		if (ret)
			goto out_put;
	}
	nr = task_pid_vnr(task);
	ret = sched_state_sleeper_add(s);
	if (ret)
		goto out_put;
	return scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "%d\n", nr);

out_put:
	sched_state_kthread_put(s);
	return ret;
}

/* Stop the kthreads that @file started. */
void sched_state_release(struct file *file)
{
	struct sched_state_sleeper *s, *tmp;
	LIST_HEAD(stopping);

	mutex_lock(&sched_state_lock);
	list_for_each_entry_safe(s, tmp, &sched_state_sleepers, node) {
		if (s->owner != file)
			continue;
		sched_state_sleeper_del(s);
		list_add(&s->node, &stopping);
	}
	mutex_unlock(&sched_state_lock);

	list_for_each_entry_safe(s, tmp, &stopping, node)
		sched_state_kthread_put(s);
}

/*
 * wake <pid>, wake_interruptible <pid>: set a sleeper's condition, then wake
 * it with wake_up_process(), or through its wait queue with the
 * TASK_INTERRUPTIBLE mode (wake_up_state() is not exported); reply whether
 * try_to_wake_up() woke it.
 */
int sched_state_wake(struct sched_state_req *req)
{
	bool interruptible = !strcmp(req->argv[0], "wake_interruptible");
	struct sched_state_sleeper *s;
	int ret;

	mutex_lock(&sched_state_lock);
	s = sched_state_find(req->argv[1]);
	if (IS_ERR(s)) {
		ret = PTR_ERR(s);
	} else {
		s->wake_ret = 0;
		WRITE_ONCE(s->woken, true);
		if (interruptible)
			wake_up_interruptible(&s->wq);
		else
			s->wake_ret = wake_up_process(s->task);
		ret = s->wake_ret;
	}
	mutex_unlock(&sched_state_lock);
	if (ret < 0)
		return ret;
	return scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "%d\n", ret);
}

/* wakeups <pid>: reply how often a module kthread found itself woken. */
int sched_state_wakeups(struct sched_state_req *req)
{
	struct sched_state_sleeper *s;
	unsigned int wakeups = 0;
	int ret = 0;

	mutex_lock(&sched_state_lock);
	s = sched_state_find(req->argv[1]);
	if (IS_ERR(s))
		ret = PTR_ERR(s);
	else if (!s->owner)
		ret = -ESRCH;
	else
		wakeups = READ_ONCE(s->wakeups);
	mutex_unlock(&sched_state_lock);
	if (ret)
		return ret;
	return scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "%u\n", wakeups);
}

/*
 * sleep <state> <ms> <sig>: send ourselves <sig>, then sleep in <state> until
 * a wake request, <ms>, or a signal that <state> lets through (-EINTR).
 * Whether a task with a signal pending blocks is schedule()'s to decide
 * (try_to_block_task() in kernel/sched/core.c): no check before it.
 */
int sched_state_sleep(struct sched_state_req *req)
{
	struct sched_state_sleeper s = {};
	const char *how = NULL;
	unsigned int state;
	int i, ms, sig, ret;
	long timeout;

	i = sched_state_parse(req->argv[1]);
	if (i < 0 || sched_state_states[i].parked ||
	    sched_state_parse_int(req->argv[2], 1, SCHED_STATE_MAX_SLEEP_MS,
				  &ms) ||
	    sched_state_parse_int(req->argv[3], 0, INT_MAX, &sig) ||
	    (sig && !valid_signal(sig)))
		return -EINVAL;
	if (sig) {
		ret = send_sig(sig, current, 1);
		if (ret)
			return ret;
	}
	state = sched_state_states[i].state;
	sched_state_sleeper_init(&s, current, state);
	ret = sched_state_sleeper_add(&s);
	if (ret)
		goto out;

	timeout = msecs_to_jiffies(ms);
	for (;;) {
		set_current_state(state);
		if (READ_ONCE(s.woken)) {
			how = "wake";
			break;
		}
		if (!timeout) {
			how = "timeout";
			break;
		}
		timeout = schedule_timeout(timeout);
		if (signal_pending_state(state, current)) {
			ret = -EINTR;
			break;
		}
	}
	__set_current_state(TASK_RUNNING);

	mutex_lock(&sched_state_lock);
	sched_state_sleeper_del(&s);
	mutex_unlock(&sched_state_lock);
out:
	remove_wait_queue(&s.wq, &s.wait);
	if (ret)
		return ret;
	return scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT, "%s\n", how);
}
