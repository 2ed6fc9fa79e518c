// SPDX-License-Identifier: GPL-2.0
/*
 * test_sched_state: tasks put to sleep in a named state with
 * set_current_state(), on demand, for tools/testing/selftests/sched_state.
 *
 * The harness talks to /sys/kernel/debug/sched_state/control; the protocol is
 * described in ../sched_state.h, shared with the harness.  Loading the module
 * with fault=<name> breaks one semantic on purpose (see faults[] below), so
 * that the harness can show that its checks fail when the semantic breaks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "../sched_state.h"

/* kzalloc_obj(): v7.0, and backported to some stable trees; not in 6.1 */
#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif

/* Bounds what a caller can make the module hold or do at once. */
#define MAX_SLEEPERS	64
#define MAX_SLEEP_MS	60000
#define MAX_ROUNDS	1000000

/*
 * The states a task can be asked to sleep in.  "parked" is reached through
 * kthread_park(), not here.
 */
static const struct {
	const char *name;
	unsigned int state;
} states[] = {
	{ "interruptible",		TASK_INTERRUPTIBLE },
	{ "uninterruptible",		TASK_UNINTERRUPTIBLE },
	{ "killable",			TASK_KILLABLE },
	{ "idle",			TASK_IDLE },
	{ "parked",			TASK_INTERRUPTIBLE },
	{ "interruptible_freezable",	TASK_FREEZABLE | TASK_INTERRUPTIBLE },
	{ "killable_freezable",		TASK_FREEZABLE | TASK_KILLABLE },
};

/* One fault at a time, chosen at load time; each breaks one semantic. */
enum fault {
	FAULT_NONE,
	FAULT_REPORT_WRONG_STATE,	/* "state" misreports __state */
	FAULT_WAKE_NO_MASK,		/* "wake" wakes with an empty mask */
	FAULT_WAKE_ANY,			/* "wake_interruptible" wakes D too */
	FAULT_DROP_NOLOAD,		/* idle sleeps as uninterruptible */
	FAULT_ADD_NOLOAD,		/* uninterruptible sleeps as idle */
	FAULT_DROP_WAKEKILL,		/* killable sleeps as uninterruptible */
	FAULT_INTERRUPTIBLE_SLEEP,	/* "sleep" always sleeps interruptible */
	FAULT_IGNORE_SIGNALS,		/* "sleep" ignores a pending signal */
	FAULT_NO_RUNNING,		/* "sleep" leaves its state set */
	FAULT_CHECK_BEFORE_SET,		/* "race" tests before setting state */
	FAULT_RTLOCK_RESET,		/* "rtlock" re-sets the state after lock */
	FAULT_LAX_PARSING,		/* requests may carry trailing junk */
};

static const char * const faults[] = {
	[FAULT_NONE]			= "none",
	[FAULT_REPORT_WRONG_STATE]	= "report_wrong_state",
	[FAULT_WAKE_NO_MASK]		= "wake_no_mask",
	[FAULT_WAKE_ANY]		= "wake_any",
	[FAULT_DROP_NOLOAD]		= "drop_noload",
	[FAULT_ADD_NOLOAD]		= "add_noload",
	[FAULT_DROP_WAKEKILL]		= "drop_wakekill",
	[FAULT_INTERRUPTIBLE_SLEEP]	= "interruptible_sleep",
	[FAULT_IGNORE_SIGNALS]		= "ignore_signals",
	[FAULT_NO_RUNNING]		= "no_running",
	[FAULT_CHECK_BEFORE_SET]	= "check_before_set",
	[FAULT_RTLOCK_RESET]		= "rtlock_reset",
	[FAULT_LAX_PARSING]		= "lax_parsing",
};

static char *fault = "none";
module_param(fault, charp, 0400);
MODULE_PARM_DESC(fault, "break one semantic on purpose (test the tests)");

static enum fault active_fault;

static bool faulty(enum fault f)
{
	return active_fault == f;
}

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
	int wake_ret;			/* try_to_wake_up()'s answer */
	wait_queue_head_t wq;
	struct wait_queue_entry wait;
};

static LIST_HEAD(sleepers);
static unsigned int nr_sleepers;
static DEFINE_MUTEX(sleepers_lock);
static struct dentry *sched_state_dir;

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
	if (nr_sleepers < MAX_SLEEPERS) {
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

/* The state to sleep in for states[i], as the active fault bends it. */
static unsigned int sleep_state(unsigned int i)
{
	unsigned int state = states[i].state;
	bool plain_d = (state & TASK_NORMAL) == TASK_UNINTERRUPTIBLE &&
		       !(state & (TASK_WAKEKILL | TASK_NOLOAD));

	if ((state & TASK_IDLE) == TASK_IDLE && faulty(FAULT_DROP_NOLOAD))
		return state & ~TASK_NOLOAD;
	if (plain_d && faulty(FAULT_ADD_NOLOAD))
		return state | TASK_NOLOAD;
	if ((state & TASK_KILLABLE) == TASK_KILLABLE &&
	    faulty(FAULT_DROP_WAKEKILL))
		return state & ~TASK_WAKEKILL;
	return state;
}

static int parse_state(const char *arg, unsigned int *i)
{
	for (*i = 0; *i < ARRAY_SIZE(states); (*i)++)
		if (!strcmp(arg, states[*i].name))
			return 0;
	return -EINVAL;
}

static int parse_int(const char *arg, int min, int max, int *val)
{
	int ret = kstrtoint(arg, 10, val);

	if (ret)
		return ret;
	return *val >= min && *val <= max ? 0 : -EINVAL;
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
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&s->wq, &s->wait);
	return 0;
}

/* kthread <state>: start a kthread asleep in <state>; reply its pid. */
static int cmd_kthread(char **argv, char *reply, size_t len)
{
	struct task_struct *task;
	struct sleeper *s;
	unsigned int i;
	int ret;

	ret = parse_state(argv[1], &i);
	if (ret)
		return ret;
	s = kzalloc_obj(*s, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	task = kthread_create(kthread_sleeper_fn, s, "sched_state/%s",
			      states[i].name);
	if (IS_ERR(task)) {
		kfree(s);
		return PTR_ERR(task);
	}
	sleeper_init(s, get_task_struct(task), sleep_state(i));
	s->kthread = true;
	ret = sleeper_add(s);
	if (ret) {
		kthread_stop(task);
		put_task_struct(task);
		kfree(s);
		return ret;
	}
	wake_up_process(task);
	if (!strcmp(states[i].name, "parked"))
		kthread_park(task);

	return scnprintf(reply, len, "%d\n", task_pid_vnr(task));
}

/* state <pid>: reply __state and exit_state of any task, in hex. */
static int cmd_state(char **argv, char *reply, size_t len)
{
	unsigned int state, exit_state;
	struct task_struct *task;
	struct pid *pid;
	int nr, ret;

	ret = parse_int(argv[1], 1, PID_MAX_LIMIT, &nr);
	if (ret)
		return ret;
	pid = find_get_pid(nr);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return -ESRCH;
	state = READ_ONCE(task->__state);
	exit_state = READ_ONCE(task->exit_state);
	put_task_struct(task);
	if (faulty(FAULT_REPORT_WRONG_STATE))
		state ^= TASK_INTERRUPTIBLE;

	return scnprintf(reply, len, "0x%x 0x%x\n", state, exit_state);
}

/*
 * wake <pid> and wake_interruptible <pid>: set the sleeper's condition, then
 * wake it with wake_up_process(), or through its wait queue with the
 * TASK_INTERRUPTIBLE mask (wake_up_state() is not exported).  Reply whether
 * try_to_wake_up() found it in a matching state.
 */
static int wake(char **argv, char *reply, size_t len, bool interruptible)
{
	struct sleeper *s;
	int nr, ret;

	ret = parse_int(argv[1], 1, PID_MAX_LIMIT, &nr);
	if (ret)
		return ret;
	mutex_lock(&sleepers_lock);
	s = sleeper_find(nr);
	if (s) {
		s->wake_ret = 0;
		WRITE_ONCE(s->woken, true);
		if (interruptible && !faulty(FAULT_WAKE_ANY))
			wake_up_interruptible(&s->wq);
		else if (interruptible)
			wake_up(&s->wq);
		else if (faulty(FAULT_WAKE_NO_MASK))
			__wake_up(&s->wq, 0, 1, NULL);
		else
			s->wake_ret = wake_up_process(s->task);
		ret = s->wake_ret;
	}
	mutex_unlock(&sleepers_lock);
	if (!s)
		return -ESRCH;

	return scnprintf(reply, len, "%d\n", ret);
}

static int cmd_wake(char **argv, char *reply, size_t len)
{
	return wake(argv, reply, len, false);
}

static int cmd_wake_interruptible(char **argv, char *reply, size_t len)
{
	return wake(argv, reply, len, true);
}

/* stop <pid>: kthread_stop() a module kthread; reply its exit code. */
static int cmd_stop(char **argv, char *reply, size_t len)
{
	struct sleeper *s;
	int nr, ret;

	ret = parse_int(argv[1], 1, PID_MAX_LIMIT, &nr);
	if (ret)
		return ret;
	mutex_lock(&sleepers_lock);
	s = sleeper_find(nr);
	if (s && s->kthread) {
		list_del(&s->node);
		nr_sleepers--;
	} else {
		s = NULL;
	}
	mutex_unlock(&sleepers_lock);
	if (!s)
		return -ESRCH;
	ret = kthread_stop(s->task);
	put_task_struct(s->task);
	kfree(s);

	return scnprintf(reply, len, "%d\n", ret);
}

/*
 * sleep <state> <ms>: the calling task sleeps in <state> until a wake
 * request, a signal the state lets through, or <ms> milliseconds.  Reply how
 * it woke ("wake", "timeout", or "now" when <ms> is 0 and it never slept) and
 * its __state once back, which must be TASK_RUNNING.  A signal fails the
 * request with -EINTR.
 */
static int cmd_sleep(char **argv, char *reply, size_t len)
{
	struct sleeper s = {};
	unsigned int i, state;
	long timeout;
	const char *how;
	int ms, ret;

	ret = parse_state(argv[1], &i);
	/* only a kthread can be parked (kthread_park()) */
	if (!ret && !strcmp(states[i].name, "parked"))
		ret = -EINVAL;
	if (!ret)
		ret = parse_int(argv[2], 0, MAX_SLEEP_MS, &ms);
	if (ret)
		return ret;
	state = faulty(FAULT_INTERRUPTIBLE_SLEEP) ? TASK_INTERRUPTIBLE :
						    sleep_state(i);
	sleeper_init(&s, current, state);
	ret = sleeper_add(&s);
	if (ret)
		return ret;
	add_wait_queue(&s.wq, &s.wait);

	timeout = msecs_to_jiffies(ms);
	for (;;) {
		set_current_state(state);
		if (!ms) {
			how = "now";
			break;
		}
		if (READ_ONCE(s.woken)) {
			how = "wake";
			break;
		}
		if (signal_pending_state(state, current) &&
		    !faulty(FAULT_IGNORE_SIGNALS)) {
			how = NULL;
			break;
		}
		if (!timeout) {
			how = "timeout";
			break;
		}
		timeout = schedule_timeout(timeout);
	}
	if (!faulty(FAULT_NO_RUNNING))
		__set_current_state(TASK_RUNNING);
	state = READ_ONCE(current->__state);
	/* the fault shows in the reply; never return to user space asleep */
	__set_current_state(TASK_RUNNING);

	remove_wait_queue(&s.wq, &s.wait);
	sleeper_del(&s);
	if (!how)
		return -EINTR;

	return scnprintf(reply, len, "%s 0x%x\n", how, state);
}

/*
 * race <mb|nomb> <rounds>: the lost-wakeup race, on two CPUs.  Each round
 * the sleeper sets its state, tests the condition and sleeps; the waker sets
 * the condition and wakes it.  This is the store-buffering shape of
 * tools/memory-model SB+fencembonceonces: with set_current_state()'s barrier
 * ("mb") no wakeup may be lost; __set_current_state() ("nomb") allows it.
 * A wakeup is lost when wake_up_process() found the sleeper still running
 * (returned 0) and the sleeper then slept out RACE_BOUND all the same, the
 * wakeup long past.  A sleeper that merely ran late, its vCPU starved by the
 * host, was woken (1) and does not count.  Reply the rounds run and the
 * wakeups lost.
 */
#define RACE_BOUND	msecs_to_jiffies(100)
#define RACE_MAX_LOST	10

struct race {
	struct task_struct *sleeper, *waker;
	unsigned int rounds, done, lost;
	bool barrier;
	int ready;		/* the round the sleeper waits in */
	int cond;		/* the round the waker has signalled */
	int woken_round;	/* the last round whose wakeup has returned */
	int woke;		/* what wake_up_process() returned then */
	u64 woken_ns;		/* and when it returned */
	struct completion finished;
};

static void race_wait_for_stop(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static bool race_wait_round(struct race *r, int round)
{
	long left;

	for (;;) {
		if (r->barrier && faulty(FAULT_CHECK_BEFORE_SET)) {
			if (READ_ONCE(r->cond) >= round)
				return true;
			/* stands for the code real callers have in between */
			ndelay(get_random_u32_below(20000));
			set_current_state(TASK_UNINTERRUPTIBLE);
		} else {
			if (r->barrier)
				set_current_state(TASK_UNINTERRUPTIBLE);
			else
				__set_current_state(TASK_UNINTERRUPTIBLE);
			if (READ_ONCE(r->cond) >= round)
				return true;
		}
		left = schedule_timeout(RACE_BOUND);
		if (kthread_should_stop())
			return false;
		/* pairs with the waker's release: woken_ns is that round's */
		if (!left && smp_load_acquire(&r->woken_round) >= round &&
		    !READ_ONCE(r->woke) &&
		    ktime_get_ns() - READ_ONCE(r->woken_ns) >
		    jiffies_to_nsecs(RACE_BOUND) / 2) {
			r->lost++;
			return true;
		}
	}
}

static int race_sleeper_fn(void *data)
{
	struct race *r = data;
	int round;

	for (round = 1; round <= r->rounds && r->lost < RACE_MAX_LOST; round++) {
		WRITE_ONCE(r->ready, round);
		if (!race_wait_round(r, round))
			break;
		__set_current_state(TASK_RUNNING);
		r->done = round;
	}
	__set_current_state(TASK_RUNNING);
	WRITE_ONCE(r->ready, INT_MAX);
	complete(&r->finished);
	race_wait_for_stop();
	return 0;
}

static int race_waker_fn(void *data)
{
	struct race *r = data;
	unsigned long spins = 0;
	int round;

	for (round = 1; round <= r->rounds; round++) {
		while (READ_ONCE(r->ready) < round) {
			if (kthread_should_stop())
				return 0;
			if (!(++spins % 1024))
				cond_resched();
			cpu_relax();
		}
		if (READ_ONCE(r->ready) == INT_MAX)
			break;
		/* sweep the wakeup across the sleeper's window */
		ndelay(get_random_u32_below(2000));
		WRITE_ONCE(r->cond, round);
		WRITE_ONCE(r->woke, wake_up_process(r->sleeper));
		WRITE_ONCE(r->woken_ns, ktime_get_ns());
		/* publish woke and woken_ns with the round: race_wait_round() */
		smp_store_release(&r->woken_round, round);
	}
	race_wait_for_stop();
	return 0;
}

static int cmd_race(char **argv, char *reply, size_t len)
{
	struct race *r;
	int rounds, ret;

	ret = parse_int(argv[2], 1, MAX_ROUNDS, &rounds);
	if (ret)
		return ret;
	if (strcmp(argv[1], "mb") && strcmp(argv[1], "nomb"))
		return -EINVAL;
	if (num_online_cpus() < 2)
		return -EOPNOTSUPP;
	r = kzalloc_obj(*r, GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->rounds = rounds;
	r->barrier = !strcmp(argv[1], "mb");
	init_completion(&r->finished);

	r->sleeper = kthread_create(race_sleeper_fn, r, "sched_state/rs");
	if (IS_ERR(r->sleeper)) {
		ret = PTR_ERR(r->sleeper);
		goto out_free;
	}
	r->waker = kthread_create(race_waker_fn, r, "sched_state/rw");
	if (IS_ERR(r->waker)) {
		ret = PTR_ERR(r->waker);
		kthread_stop(r->sleeper);
		goto out_free;
	}
	kthread_bind(r->sleeper, cpumask_first(cpu_online_mask));
	kthread_bind(r->waker, cpumask_next(cpumask_first(cpu_online_mask),
					    cpu_online_mask));
	wake_up_process(r->sleeper);
	wake_up_process(r->waker);

	ret = wait_for_completion_killable(&r->finished);
	kthread_stop(r->sleeper);
	kthread_stop(r->waker);
	if (!ret)
		ret = scnprintf(reply, len, "%u %u\n", r->done, r->lost);
out_free:
	kfree(r);
	return ret;
}

#ifdef CONFIG_PREEMPT_RT
/*
 * rtlock: on PREEMPT_RT a contended spinlock_t sleeps in TASK_RTLOCK_WAIT and
 * keeps the task's own state in saved_state, where a regular wakeup that
 * arrives meanwhile lands.  A kthread sets TASK_INTERRUPTIBLE and blocks on a
 * spinlock_t we hold; we wake it, then release the lock.  Once it has the
 * lock it must be TASK_RUNNING, or its schedule() would lose that wakeup.
 * Reply its __state after taking the lock, wake_up_process()'s return, and
 * whether it was seen blocked in TASK_RTLOCK_WAIT when woken.
 */
struct rtlock {
	spinlock_t lock;	/* held by cmd_rtlock(), wanted by rtlock_fn() */
	unsigned int after;
	struct completion locked;
};

static int rtlock_fn(void *data)
{
	struct rtlock *t = data;

	set_current_state(TASK_INTERRUPTIBLE);
	spin_lock(&t->lock);
	if (faulty(FAULT_RTLOCK_RESET))
		set_current_state(TASK_INTERRUPTIBLE);
	t->after = READ_ONCE(current->__state);
	spin_unlock(&t->lock);
	__set_current_state(TASK_RUNNING);
	complete(&t->locked);
	race_wait_for_stop();
	return 0;
}

static int cmd_rtlock(char **argv, char *reply, size_t len)
{
	struct task_struct *task;
	struct rtlock *t;
	int woke, blocked, ret;
	u64 deadline;

	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	spin_lock_init(&t->lock);
	init_completion(&t->locked);
	task = kthread_create(rtlock_fn, t, "sched_state/rt");
	if (IS_ERR(task)) {
		kfree(t);
		return PTR_ERR(task);
	}
	get_task_struct(task);

	spin_lock(&t->lock);
	wake_up_process(task);
	/* cannot sleep here: an rtlock holder is in an RCU read section */
	deadline = ktime_get_ns() + NSEC_PER_SEC;
	while (READ_ONCE(task->__state) != TASK_RTLOCK_WAIT &&
	       ktime_get_ns() < deadline)
		cpu_relax();
	blocked = READ_ONCE(task->__state) == TASK_RTLOCK_WAIT;
	woke = wake_up_process(task);
	spin_unlock(&t->lock);

	ret = wait_for_completion_killable_timeout(&t->locked, 5 * HZ);
	kthread_stop(task);
	put_task_struct(task);
	if (ret > 0)
		ret = scnprintf(reply, len, "0x%x %d %d\n", t->after, woke,
				blocked);
	else if (!ret)
		ret = -ETIMEDOUT;
	kfree(t);
	return ret;
}
#else
static int cmd_rtlock(char **argv, char *reply, size_t len)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * bench <calls> <repeats> <cpu|all>: the latency benchmark of commit
 * 642fa448ae ("sched/core: Remove set_task_state()"), which timed some 65
 * million calls of set_task_state(current, ..) against set_current_state().
 * A kthread bound to <cpu>, or to each online CPU in turn, times <calls>
 * calls of each variant below; every variant stores TASK_RUNNING, so the
 * thread never sleeps.  The variants take turns within each of the <repeats>
 * rounds, so that drift hits them alike.  Preemption is off while a chunk
 * runs, at most BENCH_CHUNK_CALLS calls or BENCH_CHUNK_NS, with cond_resched()
 * between chunks; the time of the chunks adds up to a variant's time.  Reply
 * one line per CPU and variant: "<cpu> <variant> <ns of each repeat>...".
 */
#define BENCH_MAX_CALLS		1000000000
#define BENCH_MAX_REPEATS	100
#define BENCH_BLOCK		1024U		/* calls between clock reads */
#define BENCH_CHUNK_CALLS	(1024U * 1024)
#define BENCH_CHUNK_NS		(10 * NSEC_PER_MSEC)
#define BENCH_MAX_NS		9999999999999ULL	/* 13 digits */
/* "<cpu> <variant>", then " <ns>" a repeat, then the newline */
#define BENCH_LINE_LEN(repeats)	(5 + 19 + 14 * (repeats) + 1)

/*
 * The variants: each stores TASK_RUNNING @n times, so what is timed is the
 * store and its ordering, never a sleep.
 */
static noinline void bench_current_state(struct task_struct *tsk,
					 unsigned int n)
{
	while (n--)
		set_current_state(TASK_RUNNING);
}

/* The removed set_task_state(): @tsk comes in as lock slowpaths pass it. */
static noinline void bench_task_state_ptr(struct task_struct *tsk,
					  unsigned int n)
{
	while (n--) {
		/* what set_task_state() was: the store, then a full barrier */
		smp_store_mb(tsk->__state, TASK_RUNNING);
	}
}

static noinline void bench_current_state_nomb(struct task_struct *tsk,
					      unsigned int n)
{
	while (n--)
		__set_current_state(TASK_RUNNING);
}

static noinline void bench_store_release(struct task_struct *tsk,
					 unsigned int n)
{
	while (n--) {
		/* orders earlier accesses only: no store-load ordering */
		smp_store_release(&current->__state, TASK_RUNNING);
	}
}

static noinline void bench_write_once_mb(struct task_struct *tsk,
					 unsigned int n)
{
	while (n--) {
		WRITE_ONCE(current->__state, TASK_RUNNING);
		/* the generic smp_store_mb(): a store, then a full barrier */
		smp_mb();
	}
}

/* The loop alone, its overhead; barrier() keeps it from being optimized out. */
static noinline void bench_empty_loop(struct task_struct *tsk, unsigned int n)
{
	while (n--)
		barrier();
}

/* In the order of scripts/compare.py, which reads the names. */
static const struct {
	const char *name;
	void (*fn)(struct task_struct *tsk, unsigned int n);
} bench_variants[] = {
	{ "set_task_state_ptr",		bench_task_state_ptr },
	{ "set_current_state",		bench_current_state },
	{ "__set_current_state",	bench_current_state_nomb },
	{ "smp_store_release",		bench_store_release },
	{ "write_once_mb",		bench_write_once_mb },
	{ "empty_loop",			bench_empty_loop },
};

#define NR_BENCH_VARIANTS	ARRAY_SIZE(bench_variants)

struct bench {
	unsigned int calls, repeats;
	int cpu;
	int ret;
	struct completion done;
	u64 ns[NR_BENCH_VARIANTS][BENCH_MAX_REPEATS];
};

/* Time the calls of variant @v in repeat @r; -EINTR when told to stop. */
static int bench_time(struct bench *b, unsigned int v, unsigned int r)
{
	unsigned int n, chunk, calls = b->calls;
	struct task_struct *tsk = current;
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
			bench_variants[v].fn(tsk, n);
			calls -= n;
			now = ktime_get_ns();
		}
		preempt_enable();
		ns += now - start;
		if (kthread_should_stop())
			return -EINTR;
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
	race_wait_for_stop();
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
			return -E2BIG;
	}
	return 0;
}

static int cmd_bench(char **argv, char *reply, size_t len)
{
	bool all = !strcmp(argv[3], "all");
	int calls, repeats, cpu = 0, ret;
	unsigned int nr_cpus = 1;
	size_t used = 0;
	struct bench *b;

	ret = parse_int(argv[1], 1, BENCH_MAX_CALLS, &calls);
	if (!ret)
		ret = parse_int(argv[2], 1, BENCH_MAX_REPEATS, &repeats);
	if (!ret && !all)
		ret = parse_int(argv[3], 0, nr_cpu_ids - 1, &cpu);
	if (ret)
		return ret;
	if (all)
		nr_cpus = num_online_cpus();
	else if (!cpu_online(cpu))
		return -ENODEV;
	if (nr_cpus * NR_BENCH_VARIANTS * BENCH_LINE_LEN(repeats) >= len)
		return -E2BIG;

	b = kzalloc_obj(*b, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->calls = calls;
	b->repeats = repeats;
	init_completion(&b->done);
	if (all) {
		for_each_online_cpu(cpu) {
			ret = bench_on(b, cpu);
			if (!ret)
				ret = bench_reply(b, reply, len, &used);
			if (ret)
				break;
		}
	} else {
		ret = bench_on(b, cpu);
		if (!ret)
			ret = bench_reply(b, reply, len, &used);
	}
	kfree(b);
	if (ret)
		return ret;
	return used;
}

static const struct {
	const char *verb;
	int argc;
	int (*fn)(char **argv, char *reply, size_t len);
} cmds[] = {
	{ "kthread",		2, cmd_kthread },
	{ "state",		2, cmd_state },
	{ "wake",		2, cmd_wake },
	{ "wake_interruptible",	2, cmd_wake_interruptible },
	{ "stop",		2, cmd_stop },
	{ "sleep",		3, cmd_sleep },
	{ "race",		3, cmd_race },
	{ "rtlock",		1, cmd_rtlock },
	{ "bench",		4, cmd_bench },
};

#define MAX_ARGS	4

/*
 * A request is words of printable ASCII separated by single spaces, with at
 * most one trailing newline.  Anything else is -EINVAL, before any verb runs.
 */
static int split_request(char *buf, size_t len, char **argv)
{
	char *word, *c;
	int argc = 0;

	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (strlen(buf) != len)
		return -EINVAL;
	while ((word = strsep(&buf, " "))) {
		if (!*word)
			return -EINVAL;
		for (c = word; *c; c++)
			if (!isascii(*c) || !isgraph(*c))
				return -EINVAL;
		if (argc == MAX_ARGS)
			return faulty(FAULT_LAX_PARSING) ? argc : -EINVAL;
		argv[argc++] = word;
	}
	return argc;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char *buf, *reply, *argv[MAX_ARGS];
	unsigned int i;
	int argc, ret;

	if (!count || count > SCHED_STATE_MAX_REQUEST)
		return -EINVAL;
	buf = simple_transaction_get(file, ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	argc = split_request(buf, count, argv);
	if (argc < 0)
		return argc;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[0], cmds[i].verb))
			break;
	if (i == ARRAY_SIZE(cmds))
		return -EINVAL;
	if (argc != cmds[i].argc &&
	    !(faulty(FAULT_LAX_PARSING) && argc > cmds[i].argc))
		return -EINVAL;
	/* the reply replaces the request in the transaction's buffer */
	reply = kmalloc(SIMPLE_TRANSACTION_LIMIT, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	ret = cmds[i].fn(argv, reply, SIMPLE_TRANSACTION_LIMIT);
	if (ret >= 0) {
		memcpy(buf, reply, ret);
		simple_transaction_set(file, ret);
		ret = count;
	}
	kfree(reply);
	return ret;
}

static const struct file_operations control_fops = {
	.owner		= THIS_MODULE,
	.write		= control_write,
	.read		= simple_transaction_read,
	.release	= simple_transaction_release,
	.llseek		= default_llseek,
};

static int __init sched_state_init(void)
{
	int i = match_string(faults, ARRAY_SIZE(faults), fault);

	if (i < 0) {
		pr_err("unknown fault '%s'\n", fault);
		return -EINVAL;
	}
	active_fault = i;
	if (active_fault != FAULT_NONE)
		pr_info("fault injected: %s\n", faults[active_fault]);

	sched_state_dir = debugfs_create_dir("sched_state", NULL);
	if (IS_ERR(sched_state_dir))
		return PTR_ERR(sched_state_dir);
	debugfs_create_file("control", 0600, sched_state_dir, NULL,
			    &control_fops);
	return 0;
}

static void __exit sched_state_exit(void)
{
	struct sleeper *s, *tmp;

	/* No request is in flight once the files are gone. */
	debugfs_remove_recursive(sched_state_dir);
	list_for_each_entry_safe(s, tmp, &sleepers, node) {
		kthread_stop(s->task);
		put_task_struct(s->task);
		kfree(s);
	}
}

module_init(sched_state_init);
module_exit(sched_state_exit);
MODULE_DESCRIPTION("Task states under set_current_state(), for kselftest");
MODULE_LICENSE("GPL");
