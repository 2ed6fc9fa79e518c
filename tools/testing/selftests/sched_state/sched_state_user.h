/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the user-space programs of sched_state share: transactions on the
 * module's control file (see sched_state.h for the protocol), and what they
 * read of a task in /proc.
 */
#ifndef SCHED_STATE_USER_H
#define SCHED_STATE_USER_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sched_state.h"

/* How long a task may take to reach the state a test waits for. */
#define SETTLE_MS	5000

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Write @req on descriptor @fd, then read the reply into @reply (@len
 * bytes, NUL-terminated) unless @reply is NULL.  Returns 0 or -errno.
 */
static inline int sched_state_transact(int fd, const char *req, char *reply,
				       size_t len)
{
	ssize_t n;

	if (write(fd, req, strlen(req)) < 0)
		return -errno;
	if (!reply)
		return 0;
	n = read(fd, reply, len - 1);
	if (n < 0)
		return -errno;
	reply[n] = '\0';
	return 0;
}

/* One transaction on a descriptor of its own. */
static inline int sched_state_request(const char *req, char *reply,
				      size_t len)
{
	int fd, ret;

	fd = open(SCHED_STATE_CONTROL, O_RDWR);
	if (fd < 0)
		return -errno;
	ret = sched_state_transact(fd, req, reply, len);
	close(fd);
	return ret;
}

/* The same, the request built from @fmt. */
static inline int control(char *reply, size_t len, const char *fmt, ...)
{
	char req[SCHED_STATE_MAX_REQUEST + 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	return sched_state_request(req, reply, len);
}

/*
 * Start a module kthread asleep in @state; its pid, or -errno.  It lives
 * while *@fd is open: closing it stops the kthread, and so does our death.
 */
static inline pid_t sleeper_kthread(const char *state, int *fd)
{
	char req[SCHED_STATE_MAX_REQUEST], reply[32];
	int ret;

	*fd = open(SCHED_STATE_CONTROL, O_RDWR);
	if (*fd < 0)
		return -errno;
	snprintf(req, sizeof(req), "kthread %s\n", state);
	ret = sched_state_transact(*fd, req, reply, sizeof(reply));
	if (!ret)
		return atoi(reply);
	close(*fd);
	*fd = -1;
	return ret;
}

/*
 * A child with no hold on our output, nor on the runner's: one that a
 * broken kernel leaves stopped or frozen must not keep open a pipe that
 * someone reads to its end (kselftest/runner.sh gives its tests fds 3 and
 * 4 too).  Only @keep, if not -1, stays open: as fd 3, which is returned.
 */
static inline int detach_fds(int keep)
{
	int fd = open("/dev/null", O_RDWR), first = keep < 0 ? 3 : 4;

	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	if (keep >= 0 && keep != 3 && dup2(keep, 3) != 3)
		_exit(1);
#ifdef __NR_close_range
	if (!syscall(__NR_close_range, first, ~0U, 0))
		return keep < 0 ? -1 : 3;
#endif
	for (fd = first; fd < 1024; fd++)
		close(fd);
	return keep < 0 ? -1 : 3;
}

/*
 * Reap @pid within SETTLE_MS; false if it has not ended by then (a task a
 * broken kernel left asleep for good, which must not hang us).
 */
static inline bool reaped(pid_t pid)
{
	int ms;

	for (ms = 0; ms < SETTLE_MS; ms++) {
		if (waitpid(pid, NULL, WNOHANG))
			return true;
		sleep_ms(1);
	}
	return false;
}

/*
 * Stop the kthread that *@fd started, if any.  The last close, whose
 * kthread_stop() a lost wakeup would never end, is a child's: false if it
 * has not returned within SETTLE_MS.
 */
static inline bool sleeper_kthread_end(int *fd)
{
	int sync[2] = { -1, -1 };
	pid_t pid = -1;
	char c;

	if (*fd < 0)
		return true;
	if (!pipe(sync))
		pid = fork();
	if (pid == 0) {
		close(sync[1]);
		/* EOF once we are the last to hold *fd */
		if (read(sync[0], &c, 1) < 0)
			_exit(1);
		close(detach_fds(*fd));
		_exit(0);
	}
	close(*fd);
	*fd = -1;
	close(sync[0]);
	close(sync[1]);
	return pid <= 0 || reaped(pid);
}

/*
 * Why the module's control file cannot be used, or NULL if it can: the
 * reason sched_state.sh gives in SCHED_STATE_NO_MODULE, else our own.
 */
static inline const char *no_module(void)
{
	const char *why = getenv("SCHED_STATE_NO_MODULE");

	if (geteuid())
		return "needs root";
	if (why && *why)
		return why;
	if (access("/sys/kernel/debug", X_OK))
		return "no debugfs";
	if (access(SCHED_STATE_CONTROL, W_OK))
		return "module not loaded";
	return NULL;
}

/* Field 3 of /proc/PID/stat, the state's letter; 0 if the task is gone. */
static inline char stat_letter(pid_t pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: the state follows the last ')' */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Wait until /proc/PID/stat shows @want; return the last letter seen. */
static inline char wait_for_letter(pid_t pid, char want)
{
	char seen = 0;
	int ms;

	for (ms = 0; ms < SETTLE_MS; ms++) {
		seen = stat_letter(pid);
		if (seen == want)
			break;
		sleep_ms(1);
	}
	return seen;
}

#endif /* SCHED_STATE_USER_H */
