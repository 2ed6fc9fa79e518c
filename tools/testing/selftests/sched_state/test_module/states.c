// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: the states, and the tasks asleep in them (the kthread,
 * state, wake, wake_interruptible, stop, wakeups and sleep requests).
 */
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "test_sched_state.h"

static const struct {
	const char *name;
	unsigned int state;
	bool parked;
} states[] = {
#define SCHED_STATE_STATE(name, parked, state)	{ #name, state, parked },
#include "../sched_state.h"
};

/* What a state request compares a task's __state and exit_state with. */
static const struct {
	const char *name;
	unsigned int state;
	unsigned int exit_state;
} task_states[] = {
#define SCHED_STATE_TASK_STATE(name, state, exit_state)	\
	{ #name, state, exit_state },
#include "../sched_state.h"
};

/*
 * A task asleep in the module: one of its kthreads, or a user task inside a
 * "sleep" request.  Both wait on @wq, so that a waker can use a wait queue's
 * wake mask as well as wake_up_process().
 */
struct sleeper {
	struct list_head node;
	struct task_struct *task;
	unsigned int state;
	bool kthread;
	bool woken;			/* the condition the sleeper waits for */
	unsigned int wakeups;		/* a kthread's: times it found it set */
	int wake_ret;			/* try_to_wake_up()'s answer */
	wait_queue_head_t wq;
	struct wait_queue_entry wait;
};

static LIST_HEAD(sleepers);
static unsigned int nr_sleepers;
static DEFINE_MUTEX(sleepers_lock);

static int sleeper_wake(struct wait_queue_entry *wait, unsigned int mode,
			int sync, void *key)
{
	struct sleeper *s = container_of(wait, struct sleeper, wait);

	s->wake_ret = default_wake_function(wait, mode, sync, key);
	return s->wake_ret;
}

static void sleeper_init(struct sleeper *s, struct task_struct *task,
			 unsigned int state)
{
	s->task = task;
	s->state = state;
	init_waitqueue_head(&s->wq);
	init_waitqueue_func_entry(&s->wait, sleeper_wake);
	s->wait.private = task;
}

static int sleeper_add(struct sleeper *s)
{
	int ret = 0;

	mutex_lock(&sleepers_lock);
	if (nr_sleepers < SCHED_STATE_MAX_SLEEPERS) {
		list_add_tail(&s->node, &sleepers);
		nr_sleepers++;
	} else {
		ret = -ENOSPC;
	}
	mutex_unlock(&sleepers_lock);
	return ret;
}

static void sleeper_del(struct sleeper *s)
{
	mutex_lock(&sleepers_lock);
	list_del(&s->node);
	nr_sleepers--;
	mutex_unlock(&sleepers_lock);
}

/* Called with sleepers_lock held. */
static struct sleeper *sleeper_find(pid_t nr)
{
	struct sleeper *s;

	list_for_each_entry(s, &sleepers, node)
		if (task_pid_vnr(s->task) == nr)
			return s;
	return NULL;
}

/* At module exit, when no request can be in flight. */
void sleepers_stop(void)
{
	struct sleeper *s, *tmp;

	list_for_each_entry_safe(s, tmp, &sleepers, node) {
		kthread_stop(s->task);
		put_task_struct(s->task);
		kfree(s);
	}
}

static int parse_state(const char *arg, unsigned int *i)
{
	for (*i = 0; *i < ARRAY_SIZE(states); (*i)++)
		if (!strcmp(arg, states[*i].name))
			return 0;
	return -EINVAL;
}

static int parse_pid(const char *arg, int *nr)
{
	return parse_int(arg, 1, PID_MAX_LIMIT, nr);
}

static int kthread_sleeper_fn(void *data)
{
	struct sleeper *s = data;

	add_wait_queue(&s->wq, &s->wait);
	for (;;) {
		set_current_state(s->state);
		if (kthread_should_stop())
			break;
		if (kthread_should_park()) {
			__set_current_state(TASK_RUNNING);
			kthread_parkme();
			continue;
		}
		/* woken: count it, then sleep again */
		if (READ_ONCE(s->woken)) {
			__set_current_state(TASK_RUNNING);
			WRITE_ONCE(s->woken, false);
			WRITE_ONCE(s->wakeups, s->wakeups + 1);
			continue;
		}
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&s->wq, &s->wait);
	return 0;
}

/* kthread <state>: start a kthread asleep in <state>; reply its pid. */
int cmd_kthread(struct request *req)
{
	struct task_struct *task;
	struct sleeper *s;
	unsigned int i;
	pid_t nr;
	int ret;

	ret = parse_state(req->argv[1], &i);
	if (ret)
		return ret;
	s = kzalloc_obj(*s, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	task = kthread_create(kthread_sleeper_fn, s, "sched_state/%s",
			      states[i].name);
	if (IS_ERR(task)) {
		ret = PTR_ERR(task);
		goto out_free;
	}
	sleeper_init(s, get_task_struct(task), states[i].state);
	s->kthread = true;
	wake_up_process(task);
	if (states[i].parked)
		kthread_park(task);
	/* once listed, a concurrent "stop <pid>" may free it: pid, park first */
	nr = task_pid_vnr(task);
	ret = sleeper_add(s);
	if (ret)
		goto out_stop;

	return scnprintf(req->reply, req->len, "%d\n", nr);

out_stop:
	kthread_stop(task);
	put_task_struct(task);
out_free:
	kfree(s);
	return ret;
}

/*
 * state <pid> <task state>: compare __state and exit_state of any task with
 * task_states[]; reply whether they are equal, and both in hex.
 */
int cmd_state(struct request *req)
{
	unsigned int state, exit_state, i;
	struct task_struct *task;
	struct pid *pid;
	bool equal;
	int nr, ret;

	ret = parse_pid(req->argv[1], &nr);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(task_states); i++)
		if (!strcmp(req->argv[2], task_states[i].name))
			break;
	if (i == ARRAY_SIZE(task_states))
		return -EINVAL;
	pid = find_get_pid(nr);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	state = READ_ONCE(task->__state);
	exit_state = READ_ONCE(task->exit_state);
	put_task_struct(task);
	equal = state == task_states[i].state &&
		exit_state == task_states[i].exit_state;

	return scnprintf(req->reply, req->len, "%d 0x%x 0x%x\n", equal, state,
			 exit_state);
}

/*
 * Set the condition of sleeper @nr, then wake it with wake_up_process(), or
 * with the TASK_INTERRUPTIBLE @mask through its wait queue (wake_up_state()
 * is not exported).  Return whether try_to_wake_up() found it in a matching
 * state, or -ESRCH.
 */
static int sleeper_wake_up(pid_t nr, bool mask)
{
	struct sleeper *s;
	int ret = -ESRCH;

	mutex_lock(&sleepers_lock);
	s = sleeper_find(nr);
	if (s) {
		s->wake_ret = 0;
		WRITE_ONCE(s->woken, true);
		if (mask)
			wake_up_interruptible(&s->wq);
		else
			s->wake_ret = wake_up_process(s->task);
		ret = s->wake_ret;
	}
	mutex_unlock(&sleepers_lock);
	return ret;
}

/* wake <pid> and wake_interruptible <pid>: reply try_to_wake_up()'s answer. */
int cmd_wake(struct request *req)
{
	int nr, ret;

	ret = parse_pid(req->argv[1], &nr);
	if (!ret)
		ret = sleeper_wake_up(nr, req->verb == VERB_wake_interruptible);
	if (ret < 0)
		return ret;

	return scnprintf(req->reply, req->len, "%d\n", ret);
}

/* wakeups <pid>: reply how often module kthread @pid saw itself woken. */
int cmd_wakeups(struct request *req)
{
	unsigned int wakeups = 0;
	struct sleeper *s;
	int nr, ret;

	ret = parse_pid(req->argv[1], &nr);
	if (ret)
		return ret;
	mutex_lock(&sleepers_lock);
	s = sleeper_find(nr);
	if (s && s->kthread)
		wakeups = READ_ONCE(s->wakeups);
	else
		ret = -ESRCH;
	mutex_unlock(&sleepers_lock);
	if (ret)
		return ret;

	return scnprintf(req->reply, req->len, "%u\n", wakeups);
}

/* Take module kthread @nr off the list of sleepers; NULL if none. */
static struct sleeper *sleeper_take_kthread(pid_t nr)
{
	struct sleeper *s;

	mutex_lock(&sleepers_lock);
	s = sleeper_find(nr);
	if (s && s->kthread) {
		list_del(&s->node);
		nr_sleepers--;
	} else {
		s = NULL;
	}
	mutex_unlock(&sleepers_lock);
	return s;
}

/* stop <pid>: kthread_stop() a module kthread; reply its exit code. */
int cmd_stop(struct request *req)
{
	struct sleeper *s;
	int nr, ret;

	ret = parse_pid(req->argv[1], &nr);
	if (ret)
		return ret;
	s = sleeper_take_kthread(nr);
	if (!s)
		return -ESRCH;
	ret = kthread_stop(s->task);
	put_task_struct(s->task);
	kfree(s);

	return scnprintf(req->reply, req->len, "%d\n", ret);
}

/*
 * sleep <state> <ms>: the calling task sleeps in <state> until a wake
 * request, a signal the state lets through, or <ms> milliseconds.  Reply how
 * it woke ("wake" or "timeout") and the __state it had when
 * schedule_timeout() last returned: what the wakeup left, before the module
 * sets any.  A signal fails the request with -EINTR.
 */
int cmd_sleep(struct request *req)
{
	struct sleeper s = {};
	unsigned int i, state, woke_in;
	long timeout;
	const char *how;
	int ms, ret;

	ret = parse_state(req->argv[1], &i);
	/* only a kthread can be parked (kthread_park()) */
	if (!ret && states[i].parked)
		ret = -EINVAL;
	if (!ret)
		ret = parse_int(req->argv[2], 1, SCHED_STATE_MAX_SLEEP_MS, &ms);
	if (ret)
		return ret;
	state = states[i].state;
	sleeper_init(&s, current, state);
	ret = sleeper_add(&s);
	if (ret)
		return ret;
	add_wait_queue(&s.wq, &s.wait);

	/* what it is in if it never sleeps: its condition held at once */
	woke_in = state;
	timeout = msecs_to_jiffies(ms);
	for (;;) {
		set_current_state(state);
		if (READ_ONCE(s.woken)) {
			how = "wake";
			break;
		}
		if (signal_pending_state(state, current)) {
			how = NULL;
			break;
		}
		if (!timeout) {
			how = "timeout";
			break;
		}
		timeout = schedule_timeout(timeout);
		woke_in = READ_ONCE(current->__state);
	}
	__set_current_state(TASK_RUNNING);

	remove_wait_queue(&s.wq, &s.wait);
	sleeper_del(&s);
	if (!how)
		return -EINTR;

	return scnprintf(req->reply, req->len, "%s 0x%x\n", how, woke_in);
}
