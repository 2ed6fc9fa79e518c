/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol of the test_sched_state module, shared with its selftest
 * programs.
 *
 * The module exposes one root-only control file.  Each open file carries one
 * transaction, as simple_transaction_get() does: write one request, then
 * read the reply from the same descriptor.  <state> is interruptible,
 * uninterruptible, killable, idle or, for a kthread only, parked: slept in
 * through schedule(); or a way the kernel sleeps in, once, until its own
 * wakeup: wait_event, wait_event_interruptible, wait_event_killable,
 * wait_event_idle, wait_woken (interruptible), completion,
 * completion_interruptible, completion_killable, completion_io
 * (wait_for_completion*()), mutex, mutex_interruptible, mutex_killable
 * (mutex_lock*() of a mutex a holder kthread holds), down,
 * down_interruptible, down_killable (a taken semaphore), msleep,
 * msleep_interruptible, timeout_idle (schedule_timeout_idle()), io_schedule
 * (uninterruptible); for a kthread only, self (it wakes itself before its
 * schedule()), spin (it spins in TASK_UNINTERRUPTIBLE, bound to the first
 * online CPU, for at most 2 s) and created (never woken after
 * kthread_create()).
 * The module puts tasks in states; what follows is the kernel's to decide.
 *
 *   kthread <state>          start a kthread asleep in <state>, parked by
 *                            kthread_park() for "parked"; it is stopped
 *                            (kthread_stop()) when this file is released,
 *                            so it lives no longer than its caller; reply:
 *                            its pid.  In a way, it sleeps once (a timed
 *                            way SCHED_STATE_WAY_MS), then in
 *                            TASK_INTERRUPTIBLE until stopped
 *   wake <pid>               set a module sleeper's condition, then
 *                            wake_up_process(); reply: its return.  In a
 *                            way: wake_up(), complete(), up(), the holder's
 *                            mutex_unlock(), and wake_up_process() only for
 *                            io_schedule and created; reply: 0, or its return
 *   wake_interruptible <pid> set the condition, then wake the sleeper's wait
 *                            queue with the TASK_INTERRUPTIBLE mode; reply: 1
 *                            if try_to_wake_up() woke it, else 0 (a state's
 *                            sleeper only)
 *   wakeups <pid>            reply: how many times a module kthread, back
 *                            from schedule(), found its condition set; in a
 *                            way, 1 once back from it
 *   sleep <state> <ms> <sig> the caller sends itself signal <sig> (0: none),
 *                            then sleeps in <state>: set_current_state() and
 *                            schedule_timeout() with no check of its own
 *                            before it, as kernel code that leaves it to
 *                            schedule() does; until a wake request, <ms>, or
 *                            a signal that <state> lets through; reply "wake"
 *                            or "timeout", or the request fails with -EINTR.
 *                            In a way that a signal can end (interruptible,
 *                            killable), once: <ms> bounds only msleep's
 *   race <rounds> <ms>       the lost-wakeup race on two CPUs for at most
 *                            <ms>; reply: "<rounds run> <wakeups lost>"
 *   rtlock                   PREEMPT_RT: a kthread sets TASK_INTERRUPTIBLE
 *                            and blocks on a spinlock_t we hold; we wake it
 *                            and release the lock.  Reply "<letter> <woke>
 *                            <kept>": the letter the kernel reported for it
 *                            while it waited, wake_up_process()'s return, and
 *                            1 if the wakeup was kept (its next schedule()
 *                            did not sleep), or "missed" if it did not block
 *                            in time
 *   bench <variant> <calls> <cpu>
 *                            a kthread bound to <cpu> times <calls> calls of
 *                            <variant> (sched_state_bench.c); reply: the ns
 *
 * A malformed request, an unknown verb or state, or a number out of range
 * fails the write with -EINVAL; a second write on a file, -EBUSY; a pid
 * that is not a module sleeper, -ESRCH; more than SCHED_STATE_MAX_SLEEPERS
 * sleepers, -ENOSPC; a verb this kernel or machine cannot do, -EOPNOTSUPP;
 * a bench CPU that is offline, -ENODEV; a fatal signal to the caller of a
 * long request, -EINTR.
 */
#ifndef SCHED_STATE_H
#define SCHED_STATE_H

/* The module's debugfs directory, named after it (KBUILD_MODNAME) */
#define SCHED_STATE_DIR		"/sys/kernel/debug/test_sched_state"
#define SCHED_STATE_CONTROL	SCHED_STATE_DIR "/control"

/* Longest request the control file accepts, newline included. */
#define SCHED_STATE_MAX_REQUEST	64

/* The bounds of what requests can make the module hold or do at once. */
#define SCHED_STATE_MAX_SLEEPERS	64
#define SCHED_STATE_MAX_SLEEP_MS	60000
/* How long a kthread sleeps in a timed way (msleep, timeout_idle). */
#define SCHED_STATE_WAY_MS		200
#define SCHED_STATE_MAX_ROUNDS		1000000
#define SCHED_STATE_MAX_BUSY_MS		30000
#define SCHED_STATE_BENCH_MAX_CALLS	100000000

#endif /* SCHED_STATE_H */
