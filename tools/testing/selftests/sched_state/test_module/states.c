// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: the states, and the tasks asleep in them (the kthread,
 * wake, wake_interruptible, wakeups and sleep verbs): through schedule() in
 * a state, or in one of the kernel's ways to sleep.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/semaphore.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "test_sched_state.h"

struct sched_state_way;

/*
 * A task asleep in the module: one of its kthreads, or a task inside a sleep
 * request.  It waits on @wq, so that a waker can use a wake mode as well as
 * wake_up_process(); in a way to sleep, on what that way waits for.
 */
struct sched_state_sleeper {
	struct list_head node;
	struct task_struct *task;
	struct file *owner;		/* a kthread's: the file that started it */
	unsigned int state;
	bool woken;			/* the condition it waits for */
	unsigned long bits;		/* a way's: wait_on_bit() waits for 0 */
	unsigned int wakeups;		/* a kthread's: times it found it set */
	int wake_ret;			/* default_wake_function()'s return */
	wait_queue_head_t wq;
	struct wait_queue_entry wait;	/* a state's, on @wq */
	const struct sched_state_way *way;
	struct completion done;		/* a way's: complete()d by its wake */
	struct completion held;		/* the holder has @mutex, @rwsem */
	struct semaphore sem;		/* taken: down() sleeps until up() */
	struct mutex mutex;
	struct rw_semaphore rwsem;
	struct task_struct *holder;
};

/*
 * The ways to sleep: each sleeps once, until its own wakeup
 * (sched_state_way_wake()), a signal its state lets through (-EINTR), or,
 * for a timed way, @ms (-ETIME).
 */
#define WOKEN(s)	READ_ONCE((s)->woken)

static int way_wait_event(struct sched_state_sleeper *s, unsigned int ms)
{
	wait_event(s->wq, WOKEN(s));
	return 0;
}

static int way_wait_event_interruptible(struct sched_state_sleeper *s,
					unsigned int ms)
{
	return wait_event_interruptible(s->wq, WOKEN(s));
}

static int way_wait_event_killable(struct sched_state_sleeper *s,
				   unsigned int ms)
{
	return wait_event_killable(s->wq, WOKEN(s));
}

static int way_wait_event_idle(struct sched_state_sleeper *s, unsigned int ms)
{
	wait_event_idle(s->wq, WOKEN(s));
	return 0;
}

/* TASK_IDLE | TASK_FREEZABLE, as nfsd waits (net/sunrpc/svc_xprt.c) */
static int way_idle_freezable(struct sched_state_sleeper *s, unsigned int ms)
{
	return wait_event_state(s->wq, WOKEN(s),
				(TASK_IDLE | TASK_FREEZABLE));
}

static int way_wait_woken(struct sched_state_sleeper *s, unsigned int ms)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int ret = 0;

	add_wait_queue(&s->wq, &wait);
	while (!WOKEN(s) && !ret) {
		wait_woken(&wait, TASK_INTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
		if (signal_pending(current))
			ret = -EINTR;
	}
	remove_wait_queue(&s->wq, &wait);
	return ret;
}

static int way_wait_on_bit(struct sched_state_sleeper *s, unsigned int ms)
{
	return wait_on_bit(&s->bits, 0, TASK_UNINTERRUPTIBLE);
}

static int way_wait_on_bit_killable(struct sched_state_sleeper *s,
				    unsigned int ms)
{
	return wait_on_bit(&s->bits, 0, TASK_KILLABLE);
}

/*
 * A kthread asked to park while it slept elsewhere: the park's wakeup ended
 * that sleep, so wait_woken() must see the park and not sleep
 * (kernel/sched/wait.c), else kthread_park() waits SCHED_STATE_PARK_MS.
 * The request parks it once it has set its state (complete(&s->held)).
 */
static int way_wait_woken_park(struct sched_state_sleeper *s,
			       unsigned int ms)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	long timeout = msecs_to_jiffies(SCHED_STATE_PARK_MS);

	set_current_state(TASK_IDLE);
	complete(&s->held);
	schedule_timeout(timeout);
	add_wait_queue(&s->wq, &wait);
	wait_woken(&wait, TASK_INTERRUPTIBLE, timeout);
	remove_wait_queue(&s->wq, &wait);
	/* a park later than both sleeps: wait for it, or for a stop */
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_park() || kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	kthread_parkme();
	return 0;
}

static int way_completion(struct sched_state_sleeper *s, unsigned int ms)
{
	wait_for_completion(&s->done);
	return 0;
}

static int way_completion_interruptible(struct sched_state_sleeper *s,
					unsigned int ms)
{
	return wait_for_completion_interruptible(&s->done);
}

static int way_completion_killable(struct sched_state_sleeper *s,
				   unsigned int ms)
{
	return wait_for_completion_killable(&s->done);
}

static int way_completion_io(struct sched_state_sleeper *s, unsigned int ms)
{
	wait_for_completion_io(&s->done);
	return 0;
}

static int way_mutex(struct sched_state_sleeper *s, unsigned int ms)
{
	mutex_lock(&s->mutex);
	mutex_unlock(&s->mutex);
	return 0;
}

static int way_mutex_interruptible(struct sched_state_sleeper *s,
				   unsigned int ms)
{
	int ret = mutex_lock_interruptible(&s->mutex);

	if (!ret)
		mutex_unlock(&s->mutex);
	return ret;
}

static int way_mutex_killable(struct sched_state_sleeper *s, unsigned int ms)
{
	int ret = mutex_lock_killable(&s->mutex);

	if (!ret)
		mutex_unlock(&s->mutex);
	return ret;
}

static int way_rwsem_read(struct sched_state_sleeper *s, unsigned int ms)
{
	down_read(&s->rwsem);
	up_read(&s->rwsem);
	return 0;
}

static int way_rwsem_write_killable(struct sched_state_sleeper *s,
				    unsigned int ms)
{
	int ret = down_write_killable(&s->rwsem);

	if (!ret)
		up_write(&s->rwsem);
	return ret;
}

static int way_down(struct sched_state_sleeper *s, unsigned int ms)
{
	down(&s->sem);
	return 0;
}

static int way_down_interruptible(struct sched_state_sleeper *s,
				  unsigned int ms)
{
	return down_interruptible(&s->sem);
}

static int way_down_killable(struct sched_state_sleeper *s, unsigned int ms)
{
	return down_killable(&s->sem);
}

static int way_msleep(struct sched_state_sleeper *s, unsigned int ms)
{
	msleep(ms);
	return -ETIME;
}

static int way_msleep_interruptible(struct sched_state_sleeper *s,
				    unsigned int ms)
{
	return msleep_interruptible(ms) ? -EINTR : -ETIME;
}

static int way_timeout_idle(struct sched_state_sleeper *s, unsigned int ms)
{
	return schedule_timeout_idle(msecs_to_jiffies(ms)) ? 0 : -ETIME;
}

/* io_schedule() sleeps in the state its caller set, in I/O wait. */
static int way_io_schedule(struct sched_state_sleeper *s, unsigned int ms)
{
	set_current_state(TASK_UNINTERRUPTIBLE);
	if (!WOKEN(s))
		io_schedule();
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * Spin in TASK_UNINTERRUPTIBLE, bound to a CPU, for at most 2 s: a
 * preemption, or a cond_resched() where nothing else preempts, must not
 * block it (__schedule()).
 */
static int way_spin(struct sched_state_sleeper *s, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(2000);

	set_current_state(TASK_UNINTERRUPTIBLE);
	while (!WOKEN(s) && time_before(jiffies, end))
		cond_resched();
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Woken before its schedule(), current must not block. */
static int way_self(struct sched_state_sleeper *s, unsigned int ms)
{
	set_current_state(TASK_UNINTERRUPTIBLE);
	wake_up_process(current);
	schedule();
	return 0;
}

/* It slept in kthread() (kernel/kthread.c) until its first wakeup. */
static int way_created(struct sched_state_sleeper *s, unsigned int ms)
{
	return 0;
}

#define WAY_PROCESS	BIT(0)	/* woken by wake_up_process() */
#define WAY_HOLD	BIT(1)	/* on @mutex or @rwsem, which a holder holds */
#define WAY_CREATED	BIT(2)	/* a kthread not woken after its creation */
#define WAY_BOUND	BIT(3)	/* a kthread bound to the first online CPU */
#define WAY(name, state, flags)	{ #name, state, false, way_##name, flags }

/*
 * A state, slept in through schedule() (@sleep NULL), or a way to sleep
 * and the state it sleeps in.  A caller may sleep in a way only if a
 * signal can end it: a state with TASK_INTERRUPTIBLE or TASK_WAKEKILL.
 */
static const struct sched_state_way {
	const char *name;
	unsigned int state;
	bool parked;		/* a kthread, then kthread_park() */
	int (*sleep)(struct sched_state_sleeper *s, unsigned int ms);
	unsigned int flags;
} sched_state_states[] = {
	{ "interruptible",	TASK_INTERRUPTIBLE,	false },
	{ "uninterruptible",	TASK_UNINTERRUPTIBLE,	false },
	{ "killable",		TASK_KILLABLE,		false },
	{ "idle",		TASK_IDLE,		false },
	{ "parked",		TASK_INTERRUPTIBLE,	true },
	WAY(wait_event,			TASK_UNINTERRUPTIBLE,	0),
	WAY(wait_event_interruptible,	TASK_INTERRUPTIBLE,	0),
	WAY(wait_event_killable,	TASK_KILLABLE,		0),
	WAY(wait_event_idle,		TASK_IDLE,		0),
	WAY(wait_woken,			TASK_INTERRUPTIBLE,	0),
	WAY(wait_on_bit,		TASK_UNINTERRUPTIBLE,	0),
	WAY(wait_on_bit_killable,	TASK_KILLABLE,		0),
	WAY(completion,			TASK_UNINTERRUPTIBLE,	0),
	WAY(completion_interruptible,	TASK_INTERRUPTIBLE,	0),
	WAY(completion_killable,	TASK_KILLABLE,		0),
	/* bound, woken in place: out of nr_iowait in ttwu_do_activate() */
	WAY(completion_io,		TASK_UNINTERRUPTIBLE,	WAY_BOUND),
	WAY(mutex,			TASK_UNINTERRUPTIBLE,	WAY_HOLD),
	WAY(mutex_interruptible,	TASK_INTERRUPTIBLE,	WAY_HOLD),
	WAY(mutex_killable,		TASK_KILLABLE,		WAY_HOLD),
	WAY(rwsem_read,			TASK_UNINTERRUPTIBLE,	WAY_HOLD),
	WAY(rwsem_write_killable,	TASK_KILLABLE,		WAY_HOLD),
	WAY(down,			TASK_UNINTERRUPTIBLE,	0),
	WAY(down_interruptible,		TASK_INTERRUPTIBLE,	0),
	WAY(down_killable,		TASK_KILLABLE,		0),
	WAY(msleep,			TASK_UNINTERRUPTIBLE,	0),
	WAY(msleep_interruptible,	TASK_INTERRUPTIBLE,	0),
	WAY(timeout_idle,		TASK_IDLE,		0),
	WAY(io_schedule,		TASK_UNINTERRUPTIBLE,	WAY_PROCESS | WAY_BOUND),
	WAY(self,			TASK_UNINTERRUPTIBLE,	0),
	WAY(spin,			TASK_UNINTERRUPTIBLE,	WAY_BOUND),
	WAY(created,	TASK_UNINTERRUPTIBLE,	WAY_PROCESS | WAY_CREATED),
	WAY(idle_freezable,		TASK_IDLE | TASK_FREEZABLE,	0),
	{ "wait_woken_park", TASK_INTERRUPTIBLE, true, way_wait_woken_park },
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

/*
 * A sleeper in a way: nothing on @wq yet, @sem taken, bit 0 of @bits set,
 * @mutex and @rwsem free.
 */
static void sched_state_way_init(struct sched_state_sleeper *s,
				 struct task_struct *task,
				 const struct sched_state_way *way)
{
	s->task = task;
	s->state = way->state;
	s->way = way;
	init_waitqueue_head(&s->wq);
	init_completion(&s->done);
	init_completion(&s->held);
	sema_init(&s->sem, 1);
	down(&s->sem);
	set_bit(0, &s->bits);
	mutex_init(&s->mutex);
	init_rwsem(&s->rwsem);
}

/*
 * Take @mutex and @rwsem (to write) in a kthread of its own, for a WAY_HOLD
 * sleeper to wait on.
 */
static int sched_state_hold_fn(void *data)
{
	struct sched_state_sleeper *s = data;

	mutex_lock(&s->mutex);
	down_write(&s->rwsem);
	complete(&s->held);
	wait_event_idle(s->wq, WOKEN(s));
	up_write(&s->rwsem);
	mutex_unlock(&s->mutex);
	sched_state_wait_for_stop();
	return 0;
}

static int sched_state_way_hold(struct sched_state_sleeper *s)
{
	struct task_struct *task;

	if (!(s->way->flags & WAY_HOLD))
		return 0;
	task = kthread_run(sched_state_hold_fn, s, "sched_state/hold");
	if (IS_ERR(task))
		return PTR_ERR(task);
	s->holder = get_task_struct(task);
	wait_for_completion(&s->held);
	return 0;
}

/*
 * A way's own wakeup: its condition set, then wake_up() on its queue (and
 * the holder's), clear_and_wake_up_bit(), complete(), up(), and
 * wake_up_process() only for
 * WAY_PROCESS; a way ignores what it does not wait for.  Returns
 * wake_up_process()'s return, or 0.
 */
static int sched_state_way_wake(struct sched_state_sleeper *s)
{
	WRITE_ONCE(s->woken, true);
	wake_up(&s->wq);
	clear_and_wake_up_bit(0, &s->bits);
	complete(&s->done);
	up(&s->sem);
	return s->way->flags & WAY_PROCESS ? wake_up_process(s->task) : 0;
}

/* Wake a way's sleeper, and stop its holder. */
static void sched_state_way_put(struct sched_state_sleeper *s)
{
	sched_state_way_wake(s);
	if (s->holder) {
		kthread_stop(s->holder);
		put_task_struct(s->holder);
	}
	s->holder = NULL;
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
	if (s->way)
		sched_state_way_wake(s);
	kthread_stop(s->task);
	put_task_struct(s->task);
	if (s->way)
		sched_state_way_put(s);
	else
		remove_wait_queue(&s->wq, &s->wait);
	kfree(s);
}

static int sched_state_kthread_fn(void *data)
{
	struct sched_state_sleeper *s = data;

	if (s->way) {
		s->way->sleep(s, SCHED_STATE_WAY_MS);
		WRITE_ONCE(s->wakeups, 1);
		sched_state_wait_for_stop();
		return 0;
	}
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
	const struct sched_state_way *way;
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
	way = &sched_state_states[i];
	s->owner = req->file;
	if (!way->sleep) {
		sched_state_sleeper_init(s, get_task_struct(task), way->state);
	} else {
		sched_state_way_init(s, get_task_struct(task), way);
		ret = sched_state_way_hold(s);
		if (ret)
			goto out_put;
	}
	if (way->flags & WAY_BOUND)
		kthread_bind(task, cpumask_first(cpu_online_mask));
	if (!(way->flags & WAY_CREATED))
		wake_up_process(task);
	if (way->parked && way->sleep)
		wait_for_completion(&s->held);
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
 * try_to_wake_up() woke it.  A way's sleeper gets its own wakeup.
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
	} else if (s->way) {
		ret = interruptible ? -EINVAL : sched_state_way_wake(s);
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
 * sleep <way> <ms> <sig>, <sig> sent: sleep once in a way that a signal can
 * end; a holder kthread, if any, lives as long as the request.
 */
static int sched_state_sleep_way(struct sched_state_req *req,
				 const struct sched_state_way *way, int ms)
{
	struct sched_state_sleeper s = {};
	int ret;

	if (!(way->state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)))
		return -EINVAL;
	sched_state_way_init(&s, current, way);
	ret = sched_state_way_hold(&s);
	if (!ret)
		ret = sched_state_sleeper_add(&s);
	if (!ret) {
		ret = way->sleep(&s, ms);
		mutex_lock(&sched_state_lock);
		sched_state_sleeper_del(&s);
		mutex_unlock(&sched_state_lock);
		if (ret >= 0 || ret == -ETIME)
			ret = scnprintf(req->reply, SIMPLE_TRANSACTION_LIMIT,
					"%s\n", ret ? "timeout" : "wake");
		else
			ret = -EINTR;
	}
	sched_state_way_put(&s);
	return ret;
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
	if (sched_state_states[i].sleep)
		return sched_state_sleep_way(req, &sched_state_states[i], ms);
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
