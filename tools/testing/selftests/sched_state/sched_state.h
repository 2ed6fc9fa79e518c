/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the test_sched_state module and its selftest harness.
 *
 * The module exposes one root-only control file.  Each open file carries one
 * transaction: write a request, then read the reply from the same descriptor.
 * <state> is one of interruptible, uninterruptible, killable, idle, parked,
 * interruptible_freezable, killable_freezable.
 *
 *   kthread <state>          start a kthread asleep in <state>; reply: pid
 *   state <pid>              reply: "<__state> <exit_state>" of any task, hex
 *   wake <pid>               set a module sleeper's condition, then
 *                            wake_up_process(); reply: its return
 *   wake_interruptible <pid> the same through the sleeper's wait queue with
 *                            the TASK_INTERRUPTIBLE mask; reply: ttwu's return
 *   stop <pid>               kthread_stop() a module kthread; reply: its code
 *   sleep <state> <ms>       the caller sleeps until woken, signalled (then
 *                            -EINTR) or <ms>; reply: "wake|timeout|now
 *                            <__state once back>"
 *   race <mb|nomb> <rounds>  the lost-wakeup race on two CPUs; reply:
 *                            "<rounds run> <wakeups lost>"
 *   rtlock                   PREEMPT_RT only: reply "<__state after taking a
 *                            contended spinlock_t> <woke> <was in RTLOCK_WAIT>"
 *   bench <calls> <repeats> <cpu|all>
 *                            the set_current_state() latency benchmark: a
 *                            kthread bound to <cpu>, or to each online CPU in
 *                            turn, times <calls> (1..1000000000) calls of each
 *                            variant, the variants taking turns <repeats>
 *                            (1..100) times; reply one line per CPU and
 *                            variant: "<cpu> <variant> <ns>..." with the
 *                            elapsed ns of each repeat.  Variants:
 *                            set_task_state_ptr, set_current_state,
 *                            __set_current_state, smp_store_release,
 *                            write_once_mb, empty_loop.  A fatal signal ends
 *                            it.
 *
 * A malformed request, an unknown verb or state, or a number out of range
 * fails the write with -EINVAL (-ERANGE on overflow); a pid that does not
 * exist, or that wake and stop do not own, -ESRCH; a verb this kernel or
 * machine cannot do, -EOPNOTSUPP; a bench CPU that is offline (or
 * goes offline), -ENODEV; a bench whose reply would not fit in the
 * transaction's page (about 46 repeats for one CPU), -E2BIG.
 */
#ifndef SCHED_STATE_H
#define SCHED_STATE_H

#define SCHED_STATE_DIR		"/sys/kernel/debug/sched_state"
#define SCHED_STATE_CONTROL	SCHED_STATE_DIR "/control"

/* Longest request the control file accepts, newline included. */
#define SCHED_STATE_MAX_REQUEST	64

#endif /* SCHED_STATE_H */
