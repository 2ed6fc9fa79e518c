// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state: what a sleeping task reports, for each way it can sleep.
 *
 * The "child" tests need nothing but /proc.  The "kthread" tests need the
 * test_sched_state module (see sched_state.h and sched_state.sh) and skip,
 * saying why, without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "sched_state.h"

/* How long a task may take to reach the state a test waits for. */
#define SETTLE_MS	5000

/*
 * "fixture[.variant].test", for skip reasons: 6.1's harness prints
 * "ok N # SKIP reason" without the test's name, so the reason carries it and
 * results stay keyed by name on every kernel.
 */
static const char *test_name(struct __test_metadata *t, const char *variant)
{
	static char name[128];

	snprintf(name, sizeof(name), "%s%s%s.%s", t->fixture->name,
		 variant[0] ? "." : "", variant, t->name);
	return name;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Field 3 of /proc/PID/stat; 0 if the task is gone. */
static char stat_letter(pid_t pid)
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

/* The letter on the "State:" line of /proc/PID/status; 0 if gone. */
static char status_letter(pid_t pid)
{
	char path[64], line[256], letter = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "State: %c", &letter) == 1)
			break;
	fclose(f);
	return letter;
}

/* Wait until /proc/PID/stat shows @want; return the last letter seen. */
static char wait_for_letter(pid_t pid, char want)
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

/*
 * One transaction on the module's control file: write @req, read the reply.
 * Returns 0 or -errno of the write.
 */
static int control(const char *req, char *reply, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(SCHED_STATE_CONTROL, O_RDWR);
	if (fd < 0)
		return -errno;
	if (write(fd, req, strlen(req)) < 0) {
		ret = -errno;
	} else if (reply) {
		n = read(fd, reply, len - 1);
		if (n < 0)
			ret = -errno;
		else
			reply[n] = '\0';
	}
	close(fd);
	return ret;
}

/* Why the module-backed tests cannot run here, or NULL if they can. */
static const char *module_missing(void)
{
	if (access("/sys/kernel/debug", X_OK))
		return "debugfs is not mounted at /sys/kernel/debug";
	if (access(SCHED_STATE_CONTROL, W_OK))
		return "test_sched_state is not loaded (run sched_state.sh)";
	return NULL;
}

/* A forked child; teardown kills and reaps whatever is left of it. */
FIXTURE(child) {
	pid_t pid;
};

FIXTURE_SETUP(child)
{
}

FIXTURE_TEARDOWN(child)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

/* A child blocked in read() on an empty pipe sleeps interruptibly. */
TEST_F(child, pipe_read_sleeps_S)
{
	int fds[2], status;
	char c;

	ASSERT_EQ(0, pipe(fds));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fds[0]);

	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));
	ASSERT_EQ('S', status_letter(self->pid));

	/* and the write it waits for wakes it */
	ASSERT_EQ(1, write(fds[1], "x", 1));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(fds[1]);
}

/* SIGSTOP parks a child in T; SIGCONT lets it sleep in S again. */
TEST_F(child, sigstop_stops_T)
{
	int status;

	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		for (;;)
			pause();
	}
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));

	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ('T', stat_letter(self->pid));
	ASSERT_EQ('T', status_letter(self->pid));

	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));
	ASSERT_EQ('S', status_letter(self->pid));
}

/* A child that has exited and is not reaped yet is a zombie. */
TEST_F(child, unreaped_exit_is_Z)
{
	siginfo_t info = {};

	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0)
		_exit(0);

	/* wait for the exit, but leave the child unreaped */
	ASSERT_EQ(0, waitid(P_PID, self->pid, &info, WEXITED | WNOWAIT));
	ASSERT_EQ(self->pid, info.si_pid);
	ASSERT_EQ('Z', stat_letter(self->pid));
	ASSERT_EQ('Z', status_letter(self->pid));
}

/* A module kthread asleep in one of the states of SCHED_STATE_TABLE. */
FIXTURE(kthread) {
	pid_t pid;
	bool skip;	/* 6.1's harness runs the test after SKIP in setup */
};

/* The state's name for the module, and what /proc must then report. */
FIXTURE_VARIANT(kthread) {
	const char *name;
	char letter;		/* /proc/PID/stat field 3 */
	unsigned int raw;	/* task_struct::__state */
};

FIXTURE_VARIANT_ADD(kthread, interruptible) {
	.name = "interruptible",
	.letter = 'S',
	.raw = 0x0001,		/* TASK_INTERRUPTIBLE */
};

FIXTURE_VARIANT_ADD(kthread, uninterruptible) {
	.name = "uninterruptible",
	.letter = 'D',
	.raw = 0x0002,		/* TASK_UNINTERRUPTIBLE */
};

FIXTURE_VARIANT_ADD(kthread, killable) {
	.name = "killable",
	.letter = 'D',
	.raw = 0x0102,		/* TASK_WAKEKILL | TASK_UNINTERRUPTIBLE */
};

FIXTURE_VARIANT_ADD(kthread, idle) {
	.name = "idle",
	.letter = 'I',		/* TASK_REPORT_IDLE */
	.raw = 0x0402,		/* TASK_NOLOAD | TASK_UNINTERRUPTIBLE */
};

FIXTURE_SETUP(kthread)
{
	const char *why = module_missing();
	char req[SCHED_STATE_MAX_REQUEST], reply[32];

	if (why) {
		self->skip = true;
		SKIP(return, "%s: %s", test_name(_metadata, variant->name),
		     why);
	}
	snprintf(req, sizeof(req), "kthread %s\n", variant->name);
	ASSERT_EQ(0, control(req, reply, sizeof(reply)));
	self->pid = atoi(reply);
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
}

FIXTURE_TEARDOWN(kthread)
{
	char req[SCHED_STATE_MAX_REQUEST];

	if (self->pid > 0) {
		snprintf(req, sizeof(req), "stop %d\n", self->pid);
		EXPECT_EQ(0, control(req, NULL, 0));
	}
}

/* stat, status and the raw __state bits all agree with the table. */
TEST_F(kthread, reports_state)
{
	char req[SCHED_STATE_MAX_REQUEST], reply[32];

	if (self->skip)
		return;
	ASSERT_EQ(variant->letter, stat_letter(self->pid));
	ASSERT_EQ(variant->letter, status_letter(self->pid));

	snprintf(req, sizeof(req), "state %d\n", self->pid);
	ASSERT_EQ(0, control(req, reply, sizeof(reply)));
	ASSERT_EQ(variant->raw, strtoul(reply, NULL, 16));
}

/* wake_up_process() finds it asleep, and it goes back to the same sleep. */
TEST_F(kthread, wakes_and_sleeps_again)
{
	char req[SCHED_STATE_MAX_REQUEST], reply[32];

	if (self->skip)
		return;
	snprintf(req, sizeof(req), "wake %d\n", self->pid);
	ASSERT_EQ(0, control(req, reply, sizeof(reply)));
	ASSERT_STREQ("1\n", reply);
	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
}

/* kthread_stop() ends it whatever it sleeps in, and it leaves /proc. */
TEST_F(kthread, stops)
{
	char req[SCHED_STATE_MAX_REQUEST], reply[32];

	if (self->skip)
		return;
	snprintf(req, sizeof(req), "stop %d\n", self->pid);
	ASSERT_EQ(0, control(req, reply, sizeof(reply)));
	ASSERT_STREQ("0\n", reply);
	ASSERT_EQ(0, wait_for_letter(self->pid, 0));
	self->pid = 0;
}

/* Malformed requests fail with a clear errno and start nothing. */
TEST(control_rejects_bad_requests)
{
	static const struct {
		const char *req;
		int err;
	} bad[] = {
		{ "\n",				EINVAL },
		{ "kthread",			EINVAL },
		{ "kthread ",			EINVAL },
		{ "kthread sleepy\n",		EINVAL },
		{ "kthread idle junk\n",	EINVAL },
		{ "kthread  idle\n",		EINVAL },
		{ "kthread idle\n\n",		EINVAL },
		{ "kthread\tidle\n",		EINVAL },
		{ "nap 1\n",			EINVAL },
		{ "state 0\n",			EINVAL },
		{ "state -1\n",			EINVAL },
		{ "state 1x\n",			EINVAL },
		{ "state 99999999999\n",	ERANGE },
		{ "wake 1\n",			ESRCH },
		{ "stop 1\n",			ESRCH },
	};
	const char *why = module_missing();
	unsigned int i;

	if (why)
		SKIP(return, "%s: %s", test_name(_metadata, ""), why);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *req = bad[i].req;

		EXPECT_EQ(-bad[i].err, control(req, NULL, 0))
			TH_LOG("request %u: \"%s\"", i, req);
	}
}

int main(int argc, char **argv)
{
	if (geteuid()) {
		ksft_print_header();
		ksft_exit_skip("sched_state must be run as root\n");
	}
	return test_harness_run(argc, argv);
}
