// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_hung_task: the hung-task detector (kernel/hung_task.c)
 * reports a task blocked in TASK_UNINTERRUPTIBLE, never a killable or an
 * idle one.  With hung_task_timeout_secs lowered to 1 s for the test, a
 * module kthread asleep in each state for a few seconds.
 *
 * The default run checks the same through hung_task_detect_count, and
 * prints nothing.  This program shows the report itself, "INFO: task
 * sched_state/uni:<pid> blocked for more than 1 seconds." and a stack
 * trace, which log scanners count as a kernel problem: it is not in the
 * default run.  Run it through "sched_state.sh hung_task", which loads the
 * module and restores the sysctls however the program ends.
 */
#include <sys/types.h>

#include "../kselftest_harness.h"
#include "sched_state_user.h"

#define HUNG_SYSCTL	"/proc/sys/kernel/hung_task_"
/* How long a sleeper is watched for a report: the detector wakes each 1 s. */
#define REPORT_MS	4000

FIXTURE(hung_task) {
	pid_t pid;
	int fd, kmsg;
	char timeout[32], warnings[32];
};

FIXTURE_VARIANT(hung_task) {
	const char *name;
	bool reported;
};

FIXTURE_VARIANT_ADD(hung_task, uninterruptible) {
	.name = "uninterruptible",
	.reported = true,
};

FIXTURE_VARIANT_ADD(hung_task, killable) {
	.name = "killable",
	.reported = false,
};

FIXTURE_VARIANT_ADD(hung_task, idle) {
	.name = "idle",
	.reported = false,
};

/* Set sysctl hung_task_@name to @value, its old value in @old if not NULL. */
static int sysctl_swap(const char *name, const char *value, char *old,
		       size_t len)
{
	char path[96];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), HUNG_SYSCTL "%s", name);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	if (old) {
		n = read(fd, old, len - 1);
		old[n > 0 ? n : 0] = '\0';
	}
	if (n < 0 || pwrite(fd, value, strlen(value), 0) < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

/* With kernel.hung_task_panic set, the report the test asks for panics. */
static bool hung_task_panics(void)
{
	char buf[16] = "";
	int fd = open(HUNG_SYSCTL "panic", O_RDONLY);

	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return atoi(buf) != 0;
}

/* True if a kernel log record read from @fd from now on holds @needle. */
static bool kmsg_has(int fd, const char *needle)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			return false;
		rec[n] = '\0';
		if (strstr(rec, needle))
			return true;
	}
}

FIXTURE_SETUP(hung_task)
{
	const char *why = no_module();

	self->fd = -1;
	self->kmsg = -1;
	if (!why && access(HUNG_SYSCTL "timeout_secs", W_OK))
		why = "needs CONFIG_DETECT_HUNG_TASK";
	if (!why && hung_task_panics())
		why = "kernel.hung_task_panic is set";
	if (why)
		SKIP(return, "%s", why);
	self->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->kmsg);
	ASSERT_LE(0, lseek(self->kmsg, 0, SEEK_END));
	ASSERT_EQ(0, sysctl_swap("warnings", "-1", self->warnings,
				 sizeof(self->warnings)));
	ASSERT_EQ(0, sysctl_swap("timeout_secs", "1", self->timeout,
				 sizeof(self->timeout)));
}

FIXTURE_TEARDOWN(hung_task)
{
	sleeper_kthread_end(&self->fd);
	if (self->timeout[0])
		sysctl_swap("timeout_secs", self->timeout, NULL, 0);
	if (self->warnings[0])
		sysctl_swap("warnings", self->warnings, NULL, 0);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

TEST_F(hung_task, detector)
{
	char needle[64];
	bool seen = false;
	int ms;

	self->pid = sleeper_kthread(variant->name, &self->fd);
	ASSERT_LT(0, self->pid);
	snprintf(needle, sizeof(needle), ":%d blocked for more than",
		 self->pid);
	for (ms = 0; ms < REPORT_MS && !seen; ms += 100) {
		sleep_ms(100);
		seen = kmsg_has(self->kmsg, needle);
	}
	EXPECT_EQ(variant->reported, seen);
}

TEST_HARNESS_MAIN
