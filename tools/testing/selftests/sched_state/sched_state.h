/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol of the test_sched_state module, shared with its selftest
 * programs: the one definition of the bounds, states, verbs and benchmark
 * variants, for the module and for user space alike.
 *
 * The module exposes one root-only control file.  Each open file carries one
 * transaction: write a request, then read the reply from the same descriptor.
 * <state> is one of the SCHED_STATE_STATE table below.
 *
 *   kthread <state>          start a kthread asleep in <state>; reply: pid
 *   state <pid> <task state> compare the __state and exit_state of any task
 *                            with a SCHED_STATE_TASK_STATE entry; reply:
 *                            "<1 if equal, else 0> <__state> <exit_state>",
 *                            the two in hex
 *   wake <pid>               set a module sleeper's condition, then
 *                            wake_up_process(); reply: its return
 *   wake_interruptible <pid> the same through the sleeper's wait queue with
 *                            the TASK_INTERRUPTIBLE mask; reply: ttwu's return
 *   stop <pid>               kthread_stop() a module kthread; reply: its code
 *   wakeups <pid>            reply: how many times a module kthread, back
 *                            from schedule(), found its condition set; any
 *                            other pid, -ESRCH
 *   sleep <state> <ms>       the caller sleeps until woken, signalled (then
 *                            -EINTR) or <ms> (at least 1); reply:
 *                            "wake|timeout <__state>", the __state it had
 *                            when schedule_timeout() last returned, in hex
 *   race <mb|nomb> <rounds>  the lost-wakeup race on two CPUs, for at most
 *                            SCHED_STATE_MAX_BUSY_MS; reply:
 *                            "<rounds run> <wakeups lost>"
 *   rtlock                   PREEMPT_RT only: reply "<__state after taking a
 *                            contended spinlock_t> <woke> <was in RTLOCK_WAIT>
 *                            <had reached the lock>"; not there in time, it
 *                            missed the window, and may be asked again
 *   bench <calls> <repeats> <cpu|all>
 *                            the set_current_state() latency benchmark: a
 *                            kthread bound to <cpu>, or to each online CPU in
 *                            turn, times <calls> calls of each variant of the
 *                            SCHED_STATE_BENCH_VARIANT table, the variants
 *                            taking turns <repeats> times; reply one line per
 *                            CPU and variant: "<cpu> <variant> <ns>..." with
 *                            the elapsed ns of each repeat.  A fatal signal
 *                            ends it.
 *
 * A malformed request, an unknown verb or state, or a number out of range
 * fails the write with -EINVAL (-ERANGE on overflow); a pid that does not
 * exist, or that wake and stop do not own, -ESRCH; a verb this kernel or
 * machine cannot do, -EOPNOTSUPP; a bench CPU that is offline (or
 * goes offline), -ENODEV; a bench of more than SCHED_STATE_BENCH_MAX_WORK
 * calls, or whose reply would pass SCHED_STATE_MAX_REPLY, -E2BIG; a bench
 * still running after SCHED_STATE_MAX_BUSY_MS, -ETIMEDOUT.
 */
#ifndef SCHED_STATE_H
#define SCHED_STATE_H

/* The module's debugfs directory, named after it (KBUILD_MODNAME) */
#define SCHED_STATE_DIR		"/sys/kernel/debug/test_sched_state"
#define SCHED_STATE_CONTROL	SCHED_STATE_DIR "/control"

/* Longest request the control file accepts, newline included. */
#define SCHED_STATE_MAX_REQUEST	64
/* Most words in a request, the verb included. */
#define SCHED_STATE_MAX_ARGS	4

/* The bounds of what a request can make the module hold or do at once. */
#define SCHED_STATE_MAX_SLEEPERS	64
#define SCHED_STATE_MAX_SLEEP_MS	60000
#define SCHED_STATE_MAX_ROUNDS		1000000
#define SCHED_STATE_BENCH_MAX_CALLS	1000000000
#define SCHED_STATE_BENCH_MAX_REPEATS	100
/*
 * Most calls one bench request may make in all, calls x repeats x variants
 * x CPUs: more than a CPU at 4 GHz could make, a call a cycle, before
 * SCHED_STATE_MAX_BUSY_MS.
 */
#define SCHED_STATE_BENCH_MAX_WORK	100000000000ULL
/* Longest a race or bench request may run: a race stops, a bench fails. */
#define SCHED_STATE_MAX_BUSY_MS		30000
/*
 * Longest reply: a bench on all CPUs takes some 40 bytes per CPU, variant
 * and repeat, so 2 MB for one repeat on 8192 CPUs.
 */
#define SCHED_STATE_MAX_REPLY		(4 << 20)

#endif /* SCHED_STATE_H */

/*
 * The tables.  A file that includes this header again with one of the
 * macros below defined gets that table, one entry per line, as with
 * kernel/locking/lockdep_states.h; the macro is undefined after it.
 *
 * SCHED_STATE_STATE(name, parked, state): the states a sleeper can be asked
 * for, and the task state it sleeps in.  A parked one is a kthread that
 * kthread_park() parks; only a kthread can be.  Only the kernel uses <state>.
 */
#ifdef SCHED_STATE_STATE
SCHED_STATE_STATE(interruptible,	0, TASK_INTERRUPTIBLE)
SCHED_STATE_STATE(uninterruptible,	0, TASK_UNINTERRUPTIBLE)
SCHED_STATE_STATE(killable,		0, TASK_KILLABLE)
SCHED_STATE_STATE(idle,			0, TASK_IDLE)
SCHED_STATE_STATE(parked,		1, TASK_INTERRUPTIBLE)
#undef SCHED_STATE_STATE
#endif

/*
 * SCHED_STATE_TASK_STATE(name, state, exit_state): the task states a state
 * request compares with, as the kernel sets them; only the kernel uses the
 * values.
 */
#ifdef SCHED_STATE_TASK_STATE
SCHED_STATE_TASK_STATE(running,		TASK_RUNNING,		0)
SCHED_STATE_TASK_STATE(interruptible,	TASK_INTERRUPTIBLE,	0)
SCHED_STATE_TASK_STATE(stopped,		TASK_STOPPED,		0)
SCHED_STATE_TASK_STATE(traced,		TASK_TRACED,		0)
SCHED_STATE_TASK_STATE(parked,		TASK_PARKED,		0)
SCHED_STATE_TASK_STATE(zombie,		TASK_DEAD,		EXIT_ZOMBIE)
#undef SCHED_STATE_TASK_STATE
#endif

/* SCHED_STATE_VERB(verb, argc): the verbs, and the words of a request. */
#ifdef SCHED_STATE_VERB
SCHED_STATE_VERB(kthread,		2)
SCHED_STATE_VERB(state,			3)
SCHED_STATE_VERB(wake,			2)
SCHED_STATE_VERB(wake_interruptible,	2)
SCHED_STATE_VERB(stop,			2)
SCHED_STATE_VERB(wakeups,		2)
SCHED_STATE_VERB(sleep,			3)
SCHED_STATE_VERB(race,			3)
SCHED_STATE_VERB(rtlock,		1)
SCHED_STATE_VERB(bench,			4)
#undef SCHED_STATE_VERB
#endif

/*
 * SCHED_STATE_BENCH_VARIANT(name): the variants the bench request times, in
 * the order of its reply: set_current_state() as this kernel builds it, then
 * the same without its barrier, the barrier alone, and the empty loop, whose
 * time the others include.
 */
#ifdef SCHED_STATE_BENCH_VARIANT
SCHED_STATE_BENCH_VARIANT(set_current_state)
SCHED_STATE_BENCH_VARIANT(__set_current_state)
SCHED_STATE_BENCH_VARIANT(smp_mb)
SCHED_STATE_BENCH_VARIANT(empty_loop)
#undef SCHED_STATE_BENCH_VARIANT
#endif
