// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state: what a task put to sleep with set_current_state() reports,
 * what may wake it, what it costs the load average, and that the barrier in
 * set_current_state() keeps wakeups from being lost.
 *
 * The "child.proc" and "freezer" tests need nothing but /proc (and the v1
 * cgroup freezer).  All others need the test_sched_state module (see
 * sched_state.h and sched_state.sh) and skip, saying why, without it.
 * Run it through sched_state.sh, which loads and unloads the module around
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "sched_state_user.h"

/* How long a task may take to reach the state a test waits for. */
#define SETTLE_MS	5000
/* How long a sleeper that must not wake is watched. */
#define STAYS_MS	300

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

/*
 * Scan the first line of /proc/PID/status that @fmt, one conversion, matches
 * into @val; false if the task is gone or no line matches.
 */
static bool status_field(pid_t pid, const char *fmt, void *val)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, fmt, val) == 1;
	fclose(f);
	return found;
}

/* The letter on the "State:" line of /proc/PID/status; 0 if gone. */
static char status_letter(pid_t pid)
{
	char letter;

	return status_field(pid, "State: %c", &letter) ? letter : 0;
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

/* Wait until @pid sleeps, in any state; return the last letter seen. */
static char wait_asleep(pid_t pid)
{
	char seen = 0;
	int ms;

	for (ms = 0; ms < SETTLE_MS; ms++) {
		seen = stat_letter(pid);
		if (seen && seen != 'R')
			break;
		sleep_ms(1);
	}
	return seen;
}

/* True if @pid still shows @letter after STAYS_MS. */
static bool stays(pid_t pid, char letter)
{
	int ms;

	for (ms = 0; ms < STAYS_MS; ms += 10) {
		if (stat_letter(pid) != letter)
			return false;
		sleep_ms(10);
	}
	return stat_letter(pid) == letter;
}

/*
 * One transaction on the module's control file: write the request, read the
 * reply into @reply (if not NULL).  Returns 0 or -errno of the write.
 */
static int control(char *reply, size_t len, const char *fmt, ...)
{
	char req[SCHED_STATE_MAX_REQUEST + 16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	return sched_state_request(req, reply, len);
}

/*
 * Whether the module finds @pid in @task_state, a name of sched_state.h's
 * SCHED_STATE_TASK_STATE table: 1 or 0, or -errno.  @raw gets the
 * "__state exit_state" it saw, for the log.
 */
static int in_task_state(pid_t pid, const char *task_state, char *raw,
			 size_t len)
{
	char reply[64];
	int equal, end = 0;
	int ret = control(reply, sizeof(reply), "state %d %s\n", pid,
			  task_state);

	snprintf(raw, len, "%s", ret ? strerror(-ret) : reply);
	if (ret)
		return ret;
	if (sscanf(reply, "%d %n", &equal, &end) != 1 || !end)
		return -EPROTO;
	snprintf(raw, len, "%s", reply + end);
	raw[strcspn(raw, "\n")] = '\0';
	return equal;
}

/*
 * Why the module's control file cannot be used, or NULL if it can: the
 * reason sched_state.sh gives in SCHED_STATE_NO_MODULE, else our own.
 */
static const char *no_module(void)
{
	const char *why = getenv("SCHED_STATE_NO_MODULE");

	if (why && *why)
		return why;
	if (access("/sys/kernel/debug", X_OK))
		return "no debugfs";
	if (access(SCHED_STATE_CONTROL, W_OK))
		return "module not loaded";
	return NULL;
}

/* Start a module kthread asleep in @state; its pid, or -errno. */
static pid_t kthread_start(const char *state)
{
	char reply[64];
	int ret = control(reply, sizeof(reply), "kthread %s\n", state);

	return ret ? ret : atoi(reply);
}

static int kthread_stop(pid_t pid)
{
	return control(NULL, 0, "stop %d\n", pid);
}

/* wake or wake_interruptible: try_to_wake_up()'s answer, or -errno. */
static int wake(const char *verb, pid_t pid)
{
	char reply[64];
	int ret = control(reply, sizeof(reply), "%s %d\n", verb, pid);

	return ret ? ret : atoi(reply);
}

/* How many wakes module kthread @pid has seen, or -errno. */
static int kthread_wakeups(pid_t pid)
{
	char reply[64];
	int ret = control(reply, sizeof(reply), "wakeups %d\n", pid);

	return ret ? ret : atoi(reply);
}

/* Leave a line in the kernel log, so the run's dmesg scan can scope reports. */
static void kmsg_mark(const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror("/dev/kmsg");
		close(fd);
	}
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

/* A forked child; teardown kills and reaps whatever is left of it. */
FIXTURE(child) {
	pid_t pid;
	bool traced;
};

/*
 * "proc" checks /proc only; "module" also has the module compare the state
 * the kernel set with the kernel's own constants.
 */
FIXTURE_VARIANT(child) {
	const char *name;
	bool module;
};

FIXTURE_VARIANT_ADD(child, proc) {
	.name = "proc",
	.module = false,
};

FIXTURE_VARIANT_ADD(child, module) {
	.name = "module",
	.module = true,
};

FIXTURE_SETUP(child)
{
	const char *why = variant->module ? no_module() : NULL;

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(child)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		if (self->traced)
			ptrace(PTRACE_DETACH, self->pid, 0, 0);
		waitpid(self->pid, NULL, 0);
	}
}

/*
 * /proc/PID/stat, /proc/PID/status and, for "module", the module agree:
 * @pid shows @letter and is in @task_state.
 */
static void expect_state(struct __test_metadata *_metadata, bool module,
			 pid_t pid, char letter, const char *task_state)
{
	char raw[64];

	ASSERT_EQ(letter, stat_letter(pid));
	ASSERT_EQ(letter, status_letter(pid));
	if (!module)
		return;
	EXPECT_EQ(1, in_task_state(pid, task_state, raw, sizeof(raw)))
		TH_LOG("not %s: __state, exit_state %s", task_state, raw);
}

static pid_t fork_pausing_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

/* A child spinning in user space is running. */
TEST_F(child, busy_loop_is_R)
{
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		for (;;)
			;
	}
	ASSERT_EQ('R', wait_for_letter(self->pid, 'R'));
	expect_state(_metadata, variant->module, self->pid, 'R', "running");
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
	expect_state(_metadata, variant->module, self->pid, 'S', "interruptible");

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

	self->pid = fork_pausing_child();
	ASSERT_LE(0, self->pid);
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));

	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	expect_state(_metadata, variant->module, self->pid, 'T', "stopped");

	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));
	expect_state(_metadata, variant->module, self->pid, 'S', "interruptible");
}

/* A ptrace stop is t; PTRACE_CONT lets it sleep in S again. */
TEST_F(child, ptrace_stop_is_t)
{
	int status;

	self->pid = fork_pausing_child();
	ASSERT_LE(0, self->pid);
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));

	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, self->pid, 0, 0));
	self->traced = true;
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, self->pid, 0, 0));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	expect_state(_metadata, variant->module, self->pid, 't', "traced");

	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->pid, 0, 0));
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));
	expect_state(_metadata, variant->module, self->pid, 'S', "interruptible");
}

/*
 * exit_notify() wakes the parent before do_task_dead() sets TASK_DEAD, so
 * a child its parent has seen exit may still be on its way out, its
 * __state still TASK_RUNNING.  Wait, up to SETTLE_MS, for it to be a zombie.
 */
static void wait_for_exit_path(pid_t pid)
{
	char raw[64];
	int ms;

	for (ms = 0; ms < SETTLE_MS; ms++) {
		if (in_task_state(pid, "zombie", raw, sizeof(raw)))
			return;
		sleep_ms(1);
	}
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
	if (variant->module)
		wait_for_exit_path(self->pid);
	expect_state(_metadata, variant->module, self->pid, 'Z', "zombie");
}

/*
 * A child asleep in nanosleep(), TASK_INTERRUPTIBLE | TASK_FREEZABLE
 * (kernel/time/hrtimer.c do_nanosleep()), in a cgroup of the v1 freezer.
 * Frozen, it must be TASK_FROZEN where it slept, shown as D; a signal it
 * gets meanwhile must wait for the thaw, and not be lost.
 *
 * A frozen task cannot die, not even of the SIGKILL a harness timeout sends
 * the test's process group: sched_state.sh thaws and removes a cgroup
 * FREEZER_CGROUP left behind, and unmounts a FREEZER_MNT.
 */
#define FREEZER_CGROUP	"sched_state"
#define FREEZER_MNT	"/tmp/sched_state_freezer.XXXXXX"
/* Freezing a child still on its way to sleep must wake it: tries. */
#define FREEZE_TRIES	3

struct freezer_cg {
	char mnt[PATH_MAX];	/* the hierarchy of the v1 freezer */
	char cg[PATH_MAX];	/* our cgroup in it */
	bool mounted;		/* by us, on a temporary directory */
	pid_t pid;		/* the child */
	int pipe;		/* its reports: 'r' ready, 's' signalled */
};

FIXTURE(freezer) {
	struct freezer_cg fz;
};

/* A mount of the v1 freezer's hierarchy, in @dir. */
static bool freezer_mount_found(char *dir, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool found = false;

	if (!f)
		return false;
	while (!found && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "freezer"))
			found = snprintf(dir, len, "%s", m->mnt_dir) < (int)len;
	endmntent(f);
	return found;
}

/* Write @val to the file @name of cgroup @cg: 0 or -errno. */
static int cg_write(const char *cg, const char *name, const char *val)
{
	char path[PATH_MAX + 32];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", cg, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Ask for freezer.state @state; true once it reads so, within SETTLE_MS. */
static bool freezer_set(const char *cg, const char *state)
{
	char path[PATH_MAX + 32], buf[32];
	ssize_t n;
	int fd, ms;

	if (cg_write(cg, "freezer.state", state))
		return false;
	snprintf(path, sizeof(path), "%s/freezer.state", cg);
	for (ms = 0; ms < SETTLE_MS; ms++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (!strcmp(buf, state))
			return true;
		sleep_ms(1);
	}
	return false;
}

/* "voluntary_ctxt_switches" of /proc/PID/status; -1 if gone. */
static long voluntary_switches(pid_t pid)
{
	long n;

	return status_field(pid, "voluntary_ctxt_switches: %ld", &n) ? n : -1;
}

/*
 * The child's voluntary switches once it is off the CPU: @letter, and the
 * count the same over 40 ms; -1 if never.
 */
static long settled_switches(pid_t pid, char letter)
{
	long n, last = -1;
	int ms, same = 0;

	for (ms = 0; ms < SETTLE_MS; ms += 20) {
		n = voluntary_switches(pid);
		same = n >= 0 && n == last && stat_letter(pid) == letter ?
		       same + 1 : 0;
		if (same == 2)
			return n;
		last = n;
		sleep_ms(20);
	}
	return -1;
}

/* A byte the child wrote within @ms, or 0. */
static char child_report(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, ms) != 1 || read(fd, &c, 1) != 1)
		return 0;
	return c;
}

static int freezer_child_fd;

static void freezer_child_signalled(int sig)
{
	(void)sig;
	if (write(freezer_child_fd, "s", 1) != 1)
		_exit(1);
}

static void freezer_child(int fd)
{
	struct sigaction sa = { .sa_handler = freezer_child_signalled };
	struct timespec ts = { 3600, 0 };

	freezer_child_fd = fd;
	if (sigaction(SIGUSR1, &sa, NULL) || write(fd, "r", 1) != 1)
		_exit(1);
	for (;;)
		nanosleep(&ts, NULL);
}

/* Undo what setup and the test did: nothing may stay frozen. */
static void freezer_release(struct freezer_cg *fz)
{
	if (fz->cg[0])
		freezer_set(fz->cg, "THAWED");
	if (fz->pid > 0) {
		kill(fz->pid, SIGKILL);
		waitpid(fz->pid, NULL, 0);
		fz->pid = 0;
	}
	if (fz->pipe >= 0)
		close(fz->pipe);
	fz->pipe = -1;
	if (fz->cg[0])
		rmdir(fz->cg);
	fz->cg[0] = '\0';
	if (fz->mounted) {
		umount(fz->mnt);
		rmdir(fz->mnt);
	}
	fz->mounted = false;
}

FIXTURE_SETUP(freezer)
{
	struct freezer_cg *fz = &self->fz;
	int err;

	fz->pipe = -1;
	if (!freezer_mount_found(fz->mnt, sizeof(fz->mnt))) {
		snprintf(fz->mnt, sizeof(fz->mnt), "%s", FREEZER_MNT);
		ASSERT_EQ(0, mkdtemp(fz->mnt) ? 0 : errno);
		if (mount("sched_state", fz->mnt, "cgroup", 0, "freezer")) {
			err = errno;
			rmdir(fz->mnt);
			/* bound with other controllers, not mounted here */
			if (err == EBUSY)
				SKIP(return, "v1 freezer busy");
			SKIP(return, "no v1 freezer");
		}
		fz->mounted = true;
	}
	snprintf(fz->cg, sizeof(fz->cg), "%s/%s", fz->mnt, FREEZER_CGROUP);
	/* a failed setup gets no teardown */
	if (mkdir(fz->cg, 0755) && errno != EEXIST) {
		err = errno;
		freezer_release(fz);
		ASSERT_EQ(0, err);
	}
}

FIXTURE_TEARDOWN(freezer)
{
	freezer_release(&self->fz);
}

/* Fork the child into the cgroup, and wait until it sleeps in nanosleep(). */
static void freezer_start(struct __test_metadata *_metadata,
			  struct freezer_cg *fz)
{
	char pid[16];
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	fz->pid = fork();
	ASSERT_LE(0, fz->pid);
	if (fz->pid == 0) {
		close(fds[0]);
		freezer_child(fds[1]);
	}
	close(fds[1]);
	fz->pipe = fds[0];
	snprintf(pid, sizeof(pid), "%d", fz->pid);
	ASSERT_EQ(0, cg_write(fz->cg, "cgroup.procs", pid));
	ASSERT_EQ('r', child_report(fz->pipe, SETTLE_MS));
	/* TASK_FREEZABLE is not reported */
	ASSERT_EQ('S', wait_for_letter(fz->pid, 'S'));
	ASSERT_EQ('S', status_letter(fz->pid));
}

/*
 * Frozen where it sleeps: TASK_FROZEN, shown as D, with no switch since it
 * fell asleep, so not woken to freeze itself in __refrigerator().  That sets
 * TASK_FROZEN before its schedule(), so count once the child is off the CPU.
 * A child still on the CPU on its way to sleep is woken so: a few tries.
 */
TEST_F(freezer, frozen_in_place)
{
	struct freezer_cg *fz = &self->fz;
	long before, after = -1;
	int try;

	freezer_start(_metadata, fz);
	for (try = 1; try <= FREEZE_TRIES; try++) {
		before = settled_switches(fz->pid, 'S');
		ASSERT_LE(0, before);
		ASSERT_TRUE(freezer_set(fz->cg, "FROZEN"));
		ASSERT_EQ('D', stat_letter(fz->pid));
		ASSERT_EQ('D', status_letter(fz->pid));
		after = settled_switches(fz->pid, 'D');
		if (after == before)
			break;
		TH_LOG("try %d: %ld voluntary switches asleep, %ld frozen",
		       try, before, after);
		ASSERT_TRUE(freezer_set(fz->cg, "THAWED"));
	}
	EXPECT_EQ(before, after);
}

/*
 * A signal to a frozen child is not acted on until the thaw, and then is:
 * the wakeup it brings is kept (in saved_state since v6.6).
 */
TEST_F(freezer, signal_waits_for_thaw)
{
	struct freezer_cg *fz = &self->fz;

	freezer_start(_metadata, fz);
	ASSERT_TRUE(freezer_set(fz->cg, "FROZEN"));
	ASSERT_EQ(0, kill(fz->pid, SIGUSR1));
	ASSERT_TRUE(stays(fz->pid, 'D'));
	ASSERT_EQ(0, child_report(fz->pipe, 0));
	ASSERT_TRUE(freezer_set(fz->cg, "THAWED"));
	EXPECT_EQ('s', child_report(fz->pipe, SETTLE_MS));
}

/* A module kthread asleep in one of the module's states. */
FIXTURE(kthread) {
	pid_t pid;
};

/*
 * The state's name for the module, and what the kernel must then show; where
 * the kernel, not the module, sets the state, the module compares it too.
 */
FIXTURE_VARIANT(kthread) {
	const char *name;
	char letter;		/* /proc/PID/stat field 3 */
	const char *task_state;	/* of SCHED_STATE_TASK_STATE, or NULL */
	int woken_by_wake_up_process;
	int woken_by_interruptible_mask;
};

FIXTURE_VARIANT_ADD(kthread, interruptible) {
	.name = "interruptible",
	.letter = 'S',
	.woken_by_wake_up_process = 1,
	.woken_by_interruptible_mask = 1,
};

FIXTURE_VARIANT_ADD(kthread, uninterruptible) {
	.name = "uninterruptible",
	.letter = 'D',
	.woken_by_wake_up_process = 1,
	.woken_by_interruptible_mask = 0,
};

FIXTURE_VARIANT_ADD(kthread, killable) {
	.name = "killable",
	.letter = 'D',
	.woken_by_wake_up_process = 1,
	.woken_by_interruptible_mask = 0,
};

FIXTURE_VARIANT_ADD(kthread, idle) {
	.name = "idle",
	.letter = 'I',
	.woken_by_wake_up_process = 1,
	.woken_by_interruptible_mask = 0,
};

FIXTURE_VARIANT_ADD(kthread, parked) {
	.name = "parked",
	.letter = 'P',
	.task_state = "parked",
	.woken_by_wake_up_process = 0,
	.woken_by_interruptible_mask = 0,
};

FIXTURE_SETUP(kthread)
{
	const char *why = no_module();

	if (why)
		SKIP(return, "%s", why);
	self->pid = kthread_start(variant->name);
	/* nothing may fail after this: a failed setup gets no teardown */
	ASSERT_LT(0, self->pid);
}

FIXTURE_TEARDOWN(kthread)
{
	if (self->pid > 0)
		EXPECT_EQ(0, kthread_stop(self->pid));
}

/* stat and status agree with the variant, and so does the module. */
TEST_F(kthread, reports_state)
{
	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
	expect_state(_metadata, variant->task_state, self->pid, variant->letter,
		     variant->task_state);
}

/*
 * A wake of kthread @pid asleep in @letter, which try_to_wake_up() answered
 * @woken: woken, it sees its condition within SETTLE_MS and sleeps again;
 * not woken, it sees nothing for STAYS_MS.  @before: kthread_wakeups() before.
 */
static void expect_woken(struct __test_metadata *_metadata, pid_t pid,
			 char letter, int woken, int before)
{
	int ms, seen = before;

	if (!woken) {
		for (ms = 0; ms < STAYS_MS && seen == before; ms += 10) {
			sleep_ms(10);
			seen = kthread_wakeups(pid);
		}
		ASSERT_EQ(before, seen);
		ASSERT_EQ(letter, stat_letter(pid));
		return;
	}
	for (ms = 0; ms < SETTLE_MS && seen == before; ms++) {
		sleep_ms(1);
		seen = kthread_wakeups(pid);
	}
	ASSERT_EQ(before + 1, seen);
	ASSERT_EQ(letter, wait_for_letter(pid, letter));
}

/* wake_up_process() wakes S, D and I sleepers (not P); they sleep again. */
TEST_F(kthread, wake_up_process)
{
	int before;

	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
	before = kthread_wakeups(self->pid);
	ASSERT_LE(0, before);
	ASSERT_EQ(variant->woken_by_wake_up_process, wake("wake", self->pid));
	expect_woken(_metadata, self->pid, variant->letter,
		     variant->woken_by_wake_up_process, before);
}

/* The TASK_INTERRUPTIBLE wake mask wakes S sleepers only. */
TEST_F(kthread, wake_interruptible_mask)
{
	int before;

	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
	before = kthread_wakeups(self->pid);
	ASSERT_LE(0, before);
	ASSERT_EQ(variant->woken_by_interruptible_mask,
		  wake("wake_interruptible", self->pid));
	expect_woken(_metadata, self->pid, variant->letter,
		     variant->woken_by_interruptible_mask, before);
}

/* kthread_stop() ends it whatever it sleeps in, and it leaves /proc. */
TEST_F(kthread, stops)
{
	ASSERT_EQ(0, kthread_stop(self->pid));
	ASSERT_EQ(0, wait_for_letter(self->pid, 0));
	self->pid = 0;
}

/*
 * A user task asleep inside the module (the "sleep" request), in a child
 * process.  The child reports how its request ended through a pipe.
 */
struct sleeper {
	pid_t pid;
	int result;	/* read end of the child's report */
};

FIXTURE(sleep) {
	struct sleeper child;
};

FIXTURE_VARIANT(sleep) {
	const char *name;
	char letter;
	bool woken_by_signal;		/* a non-fatal one */
	bool woken_by_sigkill;
	bool woken_by_interruptible_mask;
};

FIXTURE_VARIANT_ADD(sleep, interruptible) {
	.name = "interruptible",
	.letter = 'S',
	.woken_by_signal = true,
	.woken_by_sigkill = true,
	.woken_by_interruptible_mask = true,
};

FIXTURE_VARIANT_ADD(sleep, uninterruptible) {
	.name = "uninterruptible",
	.letter = 'D',
	.woken_by_signal = false,
	.woken_by_sigkill = false,
	.woken_by_interruptible_mask = false,
};

FIXTURE_VARIANT_ADD(sleep, killable) {
	.name = "killable",
	.letter = 'D',
	.woken_by_signal = false,
	.woken_by_sigkill = true,
	.woken_by_interruptible_mask = false,
};

FIXTURE_VARIANT_ADD(sleep, idle) {
	.name = "idle",
	.letter = 'I',
	.woken_by_signal = false,
	.woken_by_sigkill = false,
	.woken_by_interruptible_mask = false,
};

static void on_signal(int sig)
{
	(void)sig;
}

/* Fork a child that sleeps in the module for @ms and reports the outcome. */
static pid_t start_sleeper(struct sleeper *self, const char *state, int ms)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char reply[64], report[80];
	int fds[2], ret;

	if (pipe(fds))
		return -1;
	self->result = fds[0];
	self->pid = fork();
	if (self->pid) {
		close(fds[1]);
		return self->pid;
	}

	/* a handled signal without SA_RESTART: the request sees -EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	ret = control(reply, sizeof(reply), "sleep %s %d\n", state, ms);
	if (ret)
		snprintf(report, sizeof(report), "error %d", -ret);
	else
		snprintf(report, sizeof(report), "%s", reply);
	_exit(write(fds[1], report, strlen(report)) > 0 ? 0 : 1);
}

/*
 * The child's report, waiting up to SETTLE_MS: "" if it died without one,
 * NO_REPORT if it is still inside its request.
 */
#define NO_REPORT	"(still asleep after 5 s)"

static const char *sleeper_result(struct sleeper *self)
{
	static char report[80];
	struct pollfd p = { .fd = self->result, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, SETTLE_MS) != 1)
		return NO_REPORT;
	n = read(self->result, report, sizeof(report) - 1);
	report[n > 0 ? n : 0] = '\0';
	return report;
}

/* Start a sleeper in the variant's state and wait until it is asleep. */
static void sleeper_asleep(struct __test_metadata *_metadata,
			   struct sleeper *self, const char *state, char letter)
{
	ASSERT_LT(0, start_sleeper(self, state, 10000));
	ASSERT_EQ(letter, wait_for_letter(self->pid, letter));
}

FIXTURE_SETUP(sleep)
{
	const char *why = no_module();

	self->child.result = -1;
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(sleep)
{
	if (self->child.pid > 0) {
		wake("wake", self->child.pid);
		kill(self->child.pid, SIGKILL);
		waitpid(self->child.pid, NULL, 0);
	}
	if (self->child.result >= 0)
		close(self->child.result);
}

/* wake_up_process() ends the sleep: its wakeup left TASK_RUNNING. */
TEST_F(sleep, wake_up_process)
{
	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter);
	ASSERT_EQ(1, wake("wake", self->child.pid));
	ASSERT_STREQ("wake 0x0\n", sleeper_result(&self->child));
}

/* The TASK_INTERRUPTIBLE mask wakes an S sleeper, and leaves D and I be. */
TEST_F(sleep, wake_interruptible_mask)
{
	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter);
	ASSERT_EQ(variant->woken_by_interruptible_mask,
		  wake("wake_interruptible", self->child.pid));
	if (!variant->woken_by_interruptible_mask) {
		ASSERT_TRUE(stays(self->child.pid, variant->letter));
		ASSERT_EQ(1, wake("wake", self->child.pid));
	}
	ASSERT_STREQ("wake 0x0\n", sleeper_result(&self->child));
}

/* A non-fatal signal interrupts an S sleep (-EINTR), not a D or I one. */
TEST_F(sleep, signal)
{
	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter);
	ASSERT_EQ(0, kill(self->child.pid, SIGUSR1));
	if (variant->woken_by_signal) {
		char eintr[16];

		snprintf(eintr, sizeof(eintr), "error %d", EINTR);
		ASSERT_STREQ(eintr, sleeper_result(&self->child));
		return;
	}
	ASSERT_TRUE(stays(self->child.pid, variant->letter));
	ASSERT_EQ(1, wake("wake", self->child.pid));
	ASSERT_STREQ("wake 0x0\n", sleeper_result(&self->child));
}

/* SIGKILL ends an S or killable sleep; D and I sleepers die once woken. */
TEST_F(sleep, sigkill)
{
	int status;

	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter);
	ASSERT_EQ(0, kill(self->child.pid, SIGKILL));
	if (!variant->woken_by_sigkill) {
		ASSERT_TRUE(stays(self->child.pid, variant->letter));
		ASSERT_EQ(1, wake("wake", self->child.pid));
	}
	ASSERT_STREQ("", sleeper_result(&self->child));	/* it died in the request */
	ASSERT_EQ(self->child.pid, waitpid(self->child.pid, &status, 0));
	self->child.pid = 0;
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGKILL, WTERMSIG(status));
}

/* A sleep nobody ends times out: the timer's wakeup left TASK_RUNNING. */
TEST_F(sleep, times_out)
{
	ASSERT_LT(0, start_sleeper(&self->child, variant->name, 100));
	ASSERT_STREQ("timeout 0x0\n", sleeper_result(&self->child));
}

/* Sixteen module kthreads asleep in one state, against the load average. */
#define LOAD_THREADS	16

FIXTURE(load) {
	pid_t pids[LOAD_THREADS];
};

FIXTURE_VARIANT(load) {
	const char *name;
	bool counts;	/* does the state count towards the load average */
};

FIXTURE_VARIANT_ADD(load, uninterruptible) {
	.name = "uninterruptible",
	.counts = true,
};

FIXTURE_VARIANT_ADD(load, killable) {
	.name = "killable",
	.counts = true,
};

FIXTURE_VARIANT_ADD(load, idle) {
	.name = "idle",
	.counts = false,
};

FIXTURE_SETUP(load)
{
	const char *why = no_module();

	if (why)
		SKIP(return, "%s", why);
}

/* Stop the sleepers load started, and forget them. */
static void load_stop(pid_t *pids)
{
	int i;

	for (i = 0; i < LOAD_THREADS; i++) {
		if (pids[i] > 0)
			kthread_stop(pids[i]);
		pids[i] = 0;
	}
}

FIXTURE_TEARDOWN(load)
{
	load_stop(self->pids);
}

/*
 * The load average as the kernel keeps it, avenrun[0]: fixed point with
 * FSHIFT bits, one fold per LOAD_FREQ of
 * load = (load * EXP_1 + active * (FIXED_1 - EXP_1)) / FIXED_1
 * (include/linux/sched/loadavg.h, kernel/sched/loadavg.c).
 */
#define FSHIFT		11
#define FIXED_1		2048UL		/* 1 << FSHIFT */
#define EXP_1		1884UL
#define LOAD_FREQ_MS	5000
/* LOAD_FREQ is 5 s and a tick; a tick is 10 ms at most (HZ >= 100) */
#define LOAD_FREQ_MAX_MS (LOAD_FREQ_MS + 10)
/* how far the fold and our clock may be apart at either end */
#define LOAD_SLACK_MS	100
/*
 * Tasks a fold may count otherwise than we expect, either way: other tasks
 * running or in D, or sleepers a late vCPU tick has not folded in yet.
 */
#define LOAD_NOISE	4
/* calc_load_n(), catching up after an idle stretch, rounds otherwise */
#define LOAD_ROUND	1

/* calc_load(): one fold of @load with @active tasks counted */
static unsigned long calc_load(unsigned long load, unsigned long active)
{
	unsigned long newload;

	active *= FIXED_1;
	newload = load * EXP_1 + active * (FIXED_1 - EXP_1);
	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

static unsigned long calc_load_folds(unsigned long load, unsigned long active,
				     int folds)
{
	while (folds-- > 0)
		load = calc_load(load, active);
	return load;
}

/*
 * /proc/loadavg's first figure in hundredths; -1 on error.  fs/proc/loadavg.c
 * shows avenrun[0] + FIXED_1/200, its fraction cut to two digits.
 */
static long load1(void)
{
	unsigned int whole, frac;
	long load = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%u.%2u", &whole, &frac) == 2)
			load = whole * 100L + frac;
		fclose(f);
	}
	return load;
}

/* avenrun[0] as /proc/loadavg shows it, in hundredths */
static long shown(unsigned long avenrun)
{
	return (avenrun + FIXED_1 / 200) * 100 / FIXED_1;
}

/* the least and the most avenrun[0] that shows as @load hundredths */
static unsigned long avenrun_min(long load)
{
	unsigned long a = (load * FIXED_1 + 99) / 100;

	return a > FIXED_1 / 200 ? a - FIXED_1 / 200 : 0;
}

static unsigned long avenrun_max(long load)
{
	return ((load + 1) * FIXED_1 + 99) / 100 - 1 - FIXED_1 / 200;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Folds in @ms: at least (conservatively), and at most. */
static int folds_min(long ms)
{
	return ms > LOAD_SLACK_MS ? (ms - LOAD_SLACK_MS) / LOAD_FREQ_MAX_MS : 0;
}

static int folds_max(long ms)
{
	return (ms + LOAD_SLACK_MS) / LOAD_FREQ_MS + 1;
}

/*
 * One measurement: the load before, LOAD_THREADS sleepers started and
 * asleep, 10.5 s (at least two folds, whatever the phase of LOAD_FREQ), the
 * load after.
 * Returns whether it fell in the range the variant calls for: with the
 * sleepers counted, at least the least that folds_min() folds of all but
 * LOAD_NOISE of them can bring, after a fold that may have seen none of them
 * while they started; not counted, at most the most folds_min() to
 * folds_max() folds of LOAD_NOISE tasks can bring.
 */
static bool loadavg_in_range(struct __test_metadata *_metadata, pid_t *pids,
			     const char *name, bool counts)
{
	long before, after, t0, t1, t2, bound = 0, b;
	unsigned long a;
	int i, pre, pre_max, n, lo, hi;
	char letter;

	before = load1();
	t0 = now_ms();
	ASSERT_LE(0, before);
	for (i = 0; i < LOAD_THREADS; i++) {
		pids[i] = kthread_start(name);
		ASSERT_LT(0, pids[i]);
	}
	/* until asleep they run, and count whatever their state */
	for (i = 0; i < LOAD_THREADS; i++) {
		letter = wait_asleep(pids[i]);
		ASSERT_TRUE(letter && letter != 'R');
	}
	t1 = now_ms();
	sleep_ms(10500);
	after = load1();
	t2 = now_ms();

	if (counts) {
		/* folds that surely saw all of them, and one that may not */
		lo = folds_min(t2 - t1);
		hi = folds_max(t2 - t0);
		bound = LONG_MAX;
		pre_max = t1 - t0 + LOAD_SLACK_MS < LOAD_FREQ_MS ? 1 : hi;
		for (pre = 0; pre <= pre_max; pre++) {
			a = calc_load_folds(avenrun_min(before), 0, pre);
			for (n = lo; n + pre <= hi; n++) {
				b = shown(calc_load_folds(a, LOAD_THREADS -
							  LOAD_NOISE, n));
				bound = b < bound ? b : bound;
			}
		}
	} else {
		lo = folds_min(t2 - t0);
		hi = folds_max(t2 - t0);
		for (n = lo; n <= hi; n++) {
			b = shown(calc_load_folds(avenrun_max(before),
						  LOAD_NOISE, n));
			bound = b > bound ? b : bound;
		}
	}
	TH_LOG("load1 %ld.%02ld -> %ld.%02ld in %ld ms, %d-%d folds, %d %s: %s %ld.%02ld",
	       before / 100, before % 100, after / 100, after % 100, t2 - t0,
	       lo, hi, LOAD_THREADS, name, counts ? "want >=" : "want <=",
	       bound / 100, bound % 100);
	return counts ? after >= bound - LOAD_ROUND :
			after <= bound + LOAD_ROUND;
}

/*
 * Sixteen sleepers that count raise the load average towards 16 by
 * 1 - EXP_1/FIXED_1 of the way each fold; sixteen that do not leave it to
 * decay.  The bounds come from the kernel's own fixed-point folds over the
 * folds the elapsed time allows; a miss is measured once more, from scratch.
 */
TEST_F_TIMEOUT(load, loadavg, 60)
{
	if (loadavg_in_range(_metadata, self->pids, variant->name,
			     variant->counts))
		return;
	load_stop(self->pids);
	TH_LOG("out of range: once more");
	EXPECT_TRUE(loadavg_in_range(_metadata, self->pids, variant->name,
				     variant->counts));
}

/*
 * The hung-task detector, with hung_task_timeout_secs lowered to 1 s for the
 * test: it reports a plain D sleeper, never a killable or an idle one.
 *
 * Opt-in (SCHED_STATE_HUNG_TASK=1): the report has a stack trace, which CI
 * farms' log scanners count as a kernel problem, and with the timeout at 1 s
 * any other task in D for a second is reported too.  A run that sets it must
 * accept the report between the "hung_task window" marks in the kernel log.
 */
#define HUNG_SYSCTL	"/proc/sys/kernel/hung_task_"
#define HUNG_OPT_IN	"SCHED_STATE_HUNG_TASK"

FIXTURE(hung_task) {
	pid_t pid;
	int kmsg;
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

FIXTURE_SETUP(hung_task)
{
	const char *opt_in = getenv(HUNG_OPT_IN);
	const char *why = NULL;

	self->kmsg = -1;
	if (!opt_in || strcmp(opt_in, "1"))
		why = "set " HUNG_OPT_IN "=1";
	if (!why)
		why = no_module();
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
	if (self->pid > 0) {
		kthread_stop(self->pid);
		kmsg_mark("sched_state: hung_task window end pid=%d\n",
			  self->pid);
	}
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

	self->pid = kthread_start(variant->name);
	ASSERT_LT(0, self->pid);
	/* the run's dmesg scan accepts this pid's report inside the window */
	kmsg_mark("sched_state: hung_task window begin pid=%d\n", self->pid);

	snprintf(needle, sizeof(needle), ":%d blocked for more than",
		 self->pid);
	for (ms = 0; ms < 4000 && !seen; ms += 100) {
		sleep_ms(100);
		seen = kmsg_has(self->kmsg, needle);
	}
	EXPECT_EQ(variant->reported, seen);
}

/*
 * The lost-wakeup race between a sleeper and a waker on two CPUs: the
 * rounds asked, and the fewest that may be judged when a slow machine runs
 * out of the module's time bound first.
 */
#define RACE_ROUNDS	200000U
#define RACE_MIN_ROUNDS	2000U

FIXTURE(race) {
};

FIXTURE_VARIANT(race) {
	const char *name;
};

FIXTURE_VARIANT_ADD(race, mb) {
	.name = "mb",
};

FIXTURE_SETUP(race)
{
}

FIXTURE_TEARDOWN(race)
{
}

/*
 * set_current_state() loses no wakeup.  __set_current_state() may lose
 * some (tools/memory-model's SB+poonceonces says "Sometimes"): a measurement,
 * not a check, which the module's "race nomb" makes outside the suite.
 */
TEST_F_TIMEOUT(race, lost_wakeups, 120)
{
	const char *why = no_module();
	unsigned int done, lost;
	char reply[64];
	int ret;

	if (why)
		SKIP(return, "%s", why);
	ret = control(reply, sizeof(reply), "race %s %u\n", variant->name,
		      RACE_ROUNDS);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "needs two online CPUs");
	ASSERT_EQ(0, ret);
	ret = sscanf(reply, "%u %u", &done, &lost);
	ASSERT_EQ(2, ret);
	TH_LOG("%s: %u of %u wakeups lost", variant->name, lost, done);
	if (done < RACE_MIN_ROUNDS && !lost)
		SKIP(return, "only %u rounds ran in %d ms", done,
		     SCHED_STATE_MAX_BUSY_MS);
	EXPECT_EQ(0U, lost);
}

/*
 * PREEMPT_RT: a task that set TASK_INTERRUPTIBLE and then blocked on a
 * contended spinlock_t (TASK_RTLOCK_WAIT) keeps a wakeup that arrives
 * meanwhile in saved_state, and is TASK_RUNNING once it has the lock.
 * The module's kthread must reach the lock while the module holds it (1 s):
 * a busy machine may not run it in time, so that window is tried a few
 * times.  Once it has reached the lock, it must be seen in TASK_RTLOCK_WAIT.
 */
#define RTLOCK_TRIES	3

TEST(rtlock_keeps_wakeup)
{
	const char *why = no_module();
	int woke, blocked, reached, ret, try;
	unsigned int after;
	char reply[64];

	if (why)
		SKIP(return, "%s", why);
	for (try = 1; try <= RTLOCK_TRIES; try++) {
		ret = control(reply, sizeof(reply), "rtlock\n");
		if (ret == -EOPNOTSUPP)
			SKIP(return, "needs CONFIG_PREEMPT_RT");
		ASSERT_EQ(0, ret);
		ret = sscanf(reply, "%x %d %d %d", &after, &woke, &blocked,
			     &reached);
		ASSERT_EQ(4, ret);
		if (blocked || reached)
			break;
		TH_LOG("try %d: the kthread did not reach the lock in time",
		       try);
	}
	if (try > RTLOCK_TRIES)
		SKIP(return, "rtlock window missed");
	ASSERT_EQ(1, blocked);	/* it really waited in TASK_RTLOCK_WAIT */
	ASSERT_EQ(1, woke);	/* the wakeup found it, through saved_state */
	ASSERT_EQ(0U, after);	/* TASK_RUNNING */
}

int main(int argc, char **argv)
{
	if (geteuid()) {
		ksft_print_header();
		ksft_exit_skip("sched_state must be run as root\n");
	}
	return test_harness_run(argc, argv);
}
