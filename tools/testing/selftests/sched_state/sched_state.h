/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the test_sched_state module and its selftest harness.
 *
 * The module exposes one root-only control file.  Each open file carries one
 * transaction: write a request, then read the reply from the same descriptor.
 *
 *   kthread <state>   start a kthread that sleeps in <state> (interruptible,
 *                     uninterruptible, killable, idle); reply: its pid
 *   state <pid>       reply: the raw task_struct::__state of <pid>, in hex
 *   wake <pid>        wake_up_process() on a module kthread; reply: its return
 *   stop <pid>        kthread_stop() a module kthread; reply: its exit code
 *
 * A malformed request or an unknown verb or state fails the write with
 * -EINVAL; a pid that does not exist, or that wake/stop do not own, -ESRCH.
 */
#ifndef SCHED_STATE_H
#define SCHED_STATE_H

#define SCHED_STATE_DIR		"/sys/kernel/debug/sched_state"
#define SCHED_STATE_CONTROL	SCHED_STATE_DIR "/control"

/* Longest request the control file accepts, newline included. */
#define SCHED_STATE_MAX_REQUEST	64

#endif /* SCHED_STATE_H */
