/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol of test_sched_state's root-only control file, shared with
 * the programs.  Each open file carries one transaction: write a request,
 * read the reply from the same descriptor.  <state> is interruptible,
 * uninterruptible, killable, idle or, for a kthread, parked, slept in
 * through schedule(); or a way the kernel sleeps, once, until its own
 * wakeup (test_module/states.c): wait_event{,_interruptible,_killable,_idle},
 * wait_woken, wait_on_bit{,_killable}, completion{,_interruptible,_killable,
 * _io}, mutex{,_interruptible,_killable} and rwsem_read, rwsem_write_killable
 * (held by a holder kthread), down{,_interruptible,_killable},
 * msleep{,_interruptible}, timeout_idle, io_schedule; for a kthread only,
 * self (it wakes itself before its schedule()), spin (spins in D on the
 * first online CPU, at most 2 s) and created (never woken).
 * idle_freezable: in TASK_IDLE | TASK_FREEZABLE (wait_event_state()).
 * wait_woken_park, a kthread's: parked by the request, after a sleep, in
 * wait_woken(); the reply comes once it is parked.
 *
 *   kthread <state>           a kthread asleep in <state>, stopped when this
 *                             file is released; reply: its pid.  In a way,
 *                             it sleeps once (a timed way SCHED_STATE_WAY_MS),
 *                             then in TASK_INTERRUPTIBLE until stopped
 *   wake <pid>                set a sleeper's condition, wake_up_process();
 *                             in a way, its own wakeup (wake_up(),
 *                             clear_and_wake_up_bit(), complete(), up(), the
 *                             holder's unlock); reply: its return or 0
 *   wake_interruptible <pid>  the same through a wait queue, the
 *                             TASK_INTERRUPTIBLE mode; reply: 1 if woken
 *   wakeups <pid>             reply: how often a kthread found it set
 *   sleep <state> <ms> <sig>  send ourselves <sig> (0: none), then sleep in
 *                             <state>, or once in a way a signal can end;
 *                             reply "wake" or "timeout", or -EINTR
 *   race <rounds> <ms>        reply: "<rounds run> <wakeups lost>"
 *                             (test_module/race.c)
 *   rtlock                    PREEMPT_RT: reply "<letter> <woke> <kept>
 *                             <blocked>" or "missed" (test_module/rtlock.c)
 *   rtlock_rw                 the same across an rwlock_t's writer
 *   rtlock_nowake             rtlock, not woken while it waits
 *   rtlock_block              rtlock, its owner preempted meanwhile
 *   bench <variant> <calls> <cpu>
 *                             reply: the ns (test_module/bench.c)
 *
 * Errors: -EINVAL for a malformed request or a value out of range; -EBUSY
 * for a second write; -ESRCH, not a sleeper; -ENOSPC, too many sleepers;
 * -EOPNOTSUPP, not on this kernel or machine; -EINTR, a fatal signal;
 * -ENODEV, the CPU a request needs is offline.
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
/* How long each sleep of the wait_woken_park way may last. */
#define SCHED_STATE_PARK_MS		2000
#define SCHED_STATE_MAX_ROUNDS		1000000
#define SCHED_STATE_MAX_BUSY_MS		30000
#define SCHED_STATE_BENCH_MAX_CALLS	100000000

#endif /* SCHED_STATE_H */
