/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol of test_sched_state's root-only control file, shared with
 * the programs.  Each open file carries one transaction: write a request,
 * read the reply from the same descriptor.  <state> is interruptible,
 * uninterruptible, killable, idle or, for a kthread, parked.
 *
 *   kthread <state>           a kthread asleep in <state>, stopped when this
 *                             file is released; reply: its pid
 *   wake <pid>                set a sleeper's condition, wake_up_process();
 *                             reply: its return
 *   wake_interruptible <pid>  the same through a wait queue, the
 *                             TASK_INTERRUPTIBLE mode; reply: 1 if woken
 *   wakeups <pid>             reply: how often a kthread found it set
 *   sleep <state> <ms> <sig>  send ourselves <sig> (0: none), then sleep in
 *                             <state> (test_module/states.c); reply "wake" or
 *                             "timeout", or -EINTR
 *   race <rounds> <ms>        reply: "<rounds run> <wakeups lost>"
 *                             (test_module/race.c)
 *   rtlock                    PREEMPT_RT: reply "<letter> <woke> <kept>" or
 *                             "missed" (test_module/rtlock.c)
 *   bench <variant> <calls> <cpu>
 *                             reply: the ns (test_module/bench.c)
 *
 * Errors: -EINVAL for a malformed request or a value out of range; -EBUSY
 * for a second write; -ESRCH, not a sleeper; -ENOSPC, too many sleepers;
 * -EOPNOTSUPP, not on this kernel or machine; -EINTR, a fatal signal;
 * -ENODEV, a bench CPU offline.
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
#define SCHED_STATE_MAX_ROUNDS		1000000
#define SCHED_STATE_MAX_BUSY_MS		30000
#define SCHED_STATE_BENCH_MAX_CALLS	100000000

#endif /* SCHED_STATE_H */
