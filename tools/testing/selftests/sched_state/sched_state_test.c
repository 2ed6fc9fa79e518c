// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state: what a task put to sleep with set_current_state() reports,
 * what may wake it, what it costs the load, and that the barrier in
 * set_current_state() keeps wakeups from being lost.
 *
 * The "child" tests need nothing but /proc, and run without root; the
 * "freezer" ones need root and the v1 cgroup freezer.  All others need the
 * test_sched_state module (see sched_state.h and sched_state.sh) and skip,
 * saying why, without it.  Run it through sched_state.sh, which loads and
 * unloads the module around it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <mntent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "sched_state_user.h"

/* How long a sleeper that must not wake is watched. */
#define STAYS_MS	100

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

/* "voluntary_ctxt_switches" of /proc/PID/status; -1 if gone. */
static long voluntary_switches(pid_t pid)
{
	long n;

	return status_field(pid, "voluntary_ctxt_switches: %ld", &n) ? n : -1;
}

/*
 * A task's voluntary switches once it is off the CPU: @letter, and the
 * count the same over 40 ms; -1 if never.  Each time a sleeper is woken and
 * sleeps again, the count grows: a wakeup no one sees in /proc shows here.
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

/*
 * @pid, asleep in @letter with @before voluntary switches, is not woken:
 * it shows @letter for STAYS_MS and has switched no more.
 */
static void expect_not_woken(struct __test_metadata *_metadata, pid_t pid,
			     char letter, long before)
{
	ASSERT_TRUE(stays(pid, letter));
	EXPECT_EQ(before, settled_switches(pid, letter))
		TH_LOG("woken and asleep again");
}

/* A forked child; teardown kills and reaps whatever is left of it. */
FIXTURE(child) {
	pid_t pid;
	bool traced;
};

FIXTURE_SETUP(child)
{
}

FIXTURE_TEARDOWN(child)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		/* a kernel that let SIGKILL leave it stopped: wake it to die */
		kill(self->pid, SIGCONT);
		if (self->traced)
			ptrace(PTRACE_DETACH, self->pid, 0, 0);
		waitpid(self->pid, NULL, 0);
	}
}

/* /proc/PID/stat and /proc/PID/status agree: @pid shows @letter. */
static void expect_letter(struct __test_metadata *_metadata, pid_t pid,
			  char letter)
{
	ASSERT_EQ(letter, wait_for_letter(pid, letter));
	ASSERT_EQ(letter, status_letter(pid));
}

static pid_t fork_pausing_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		detach_fds(-1);
		for (;;)
			pause();
	}
	return pid;
}

/* Reap @pid, which must die of @sig within SETTLE_MS. */
static void expect_signalled(struct __test_metadata *_metadata, pid_t *pid,
			     int sig)
{
	int ms, status = 0;
	pid_t ret = 0;

	for (ms = 0; ms < SETTLE_MS && !ret; ms++) {
		ret = waitpid(*pid, &status, WNOHANG);
		if (!ret)
			sleep_ms(1);
	}
	ASSERT_EQ(*pid, ret) TH_LOG("still there, in %c", stat_letter(*pid));
	*pid = 0;
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(sig, WTERMSIG(status));
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
	expect_letter(_metadata, self->pid, 'R');
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
	expect_letter(_metadata, self->pid, 'S');

	/* and the write it waits for wakes it */
	ASSERT_EQ(1, write(fds[1], "x", 1));
	ASSERT_EQ(self->pid, waitpid(self->pid, &status, 0));
	self->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	close(fds[1]);
}

/* Stop a pausing child with SIGSTOP, and see it stopped. */
static void stop_child(struct __test_metadata *_metadata, pid_t *pid)
{
	int status;

	*pid = fork_pausing_child();
	ASSERT_LE(0, *pid);
	ASSERT_EQ('S', wait_for_letter(*pid, 'S'));
	ASSERT_EQ(0, kill(*pid, SIGSTOP));
	ASSERT_EQ(*pid, waitpid(*pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
}

/* SIGSTOP parks a child in T; SIGCONT wakes it, to sleep in S again. */
TEST_F(child, sigstop_stops_T)
{
	stop_child(_metadata, &self->pid);
	expect_letter(_metadata, self->pid, 'T');
	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	expect_letter(_metadata, self->pid, 'S');
}

/* A job-control stop is TASK_STOPPED: SIGKILL still wakes and ends it. */
TEST_F(child, sigkill_ends_stopped)
{
	stop_child(_metadata, &self->pid);
	ASSERT_EQ(0, kill(self->pid, SIGKILL));
	expect_signalled(_metadata, &self->pid, SIGKILL);
}

/* Yama's kernel.yama.ptrace_scope; 0 without Yama. */
static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = 0;

	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	return scope;
}

#define PTRACE_FORBIDDEN	"Yama ptrace_scope forbids attaching"

/*
 * PTRACE_SEIZE @pid with @options; false if Yama's ptrace_scope 2 (admin
 * only) or 3 (none) forbids it.
 */
static bool seize(struct __test_metadata *_metadata, pid_t pid, long options)
{
	int err;

	if (!ptrace(PTRACE_SEIZE, pid, 0, options))
		return true;
	err = errno;
	if (err == EPERM && yama_scope() >= 2)
		return false;
	ASSERT_EQ(0, err);
	return false;
}

/* Seize a pausing child and hold it in a ptrace stop; false if forbidden. */
static bool trace_child(struct __test_metadata *_metadata, pid_t *pid,
			bool *traced)
{
	int status;

	*pid = fork_pausing_child();
	ASSERT_LE(0, *pid);
	ASSERT_EQ('S', wait_for_letter(*pid, 'S'));
	if (!seize(_metadata, *pid, 0))
		return false;
	*traced = true;
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, *pid, 0, 0));
	ASSERT_EQ(*pid, waitpid(*pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	return true;
}

/* A ptrace stop is t; PTRACE_CONT wakes it, to sleep in S again. */
TEST_F(child, ptrace_stop_is_t)
{
	if (!trace_child(_metadata, &self->pid, &self->traced))
		SKIP(return, PTRACE_FORBIDDEN);
	expect_letter(_metadata, self->pid, 't');
	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->pid, 0, 0));
	expect_letter(_metadata, self->pid, 'S');
}

/* SIGKILL wakes a tracee from its ptrace stop, and ends it. */
TEST_F(child, sigkill_ends_traced)
{
	if (!trace_child(_metadata, &self->pid, &self->traced))
		SKIP(return, PTRACE_FORBIDDEN);
	ASSERT_EQ(0, kill(self->pid, SIGKILL));
	expect_signalled(_metadata, &self->pid, SIGKILL);
}

/*
 * SIGKILL while we are inside a ptrace request, which holds the tracee in
 * its stop (JOBCTL_PTRACE_FROZEN), ends it once the request is done:
 * ptrace_unfreeze_traced() wakes it, no longer traced, so its tracer sees
 * it killed, never stopped (kernel/ptrace.c).  A second child kills it
 * while we issue requests back to back; not every kill lands in one.
 */
#define REQUEST_KILLS	10

TEST_F(child, sigkill_during_request)
{
	unsigned long msg, n;
	pid_t killer;
	int i;

	for (i = 0; i < REQUEST_KILLS; i++) {
		if (!trace_child(_metadata, &self->pid, &self->traced))
			SKIP(return, PTRACE_FORBIDDEN);
		killer = fork();
		ASSERT_LE(0, killer);
		if (killer == 0) {
			usleep(100 * i);
			kill(self->pid, SIGKILL);
			_exit(0);
		}
		errno = 0;
		for (n = 0; n < 1000000; n++)
			if (ptrace(PTRACE_GETEVENTMSG, self->pid, 0, &msg))
				break;
		ASSERT_EQ(ESRCH, errno) TH_LOG("not killed");
		ASSERT_EQ(killer, waitpid(killer, NULL, 0));
		expect_signalled(_metadata, &self->pid, SIGKILL);
		self->traced = false;
	}
}

/*
 * A fault's signal is forced (force_sig_info_to_task(), kernel/signal.c):
 * blocked, it is unblocked and delivered, here to end the task, where a
 * signal sent to it would stay pending.  No core is dumped.
 */
#define FAULT_COMM	"sched_state_seg"

TEST_F(child, blocked_fault_kills)
{
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		struct rlimit no_core = { 0, 0 };
		sigset_t set;
		int *none;

		prctl(PR_SET_NAME, FAULT_COMM);
		detach_fds(-1);
		sigemptyset(&set);
		sigaddset(&set, SIGSEGV);
		none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		if (none == MAP_FAILED || setrlimit(RLIMIT_CORE, &no_core) ||
		    sigprocmask(SIG_BLOCK, &set, NULL))
			_exit(1);
		*none = 0;
		_exit(0);
	}
	expect_signalled(_metadata, &self->pid, SIGSEGV);
}

/*
 * A child that has exited and is not reaped yet is a zombie.  exit_notify()
 * wakes the parent before the child is done, so wait for the letter.
 */
#define ZOMBIE_COMM	"sched_state_z"

TEST_F(child, unreaped_exit_is_Z)
{
	siginfo_t info = {};

	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		prctl(PR_SET_NAME, ZOMBIE_COMM);
		_exit(0);
	}

	/* wait for the exit, but leave the child unreaped */
	ASSERT_EQ(0, waitid(P_PID, self->pid, &info, WEXITED | WNOWAIT));
	ASSERT_EQ(self->pid, info.si_pid);
	expect_letter(_metadata, self->pid, 'Z');
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
	pid_t hog;		/* a task spinning on its CPU, if any */
	int pipe;		/* its reports: 'r' ready, 's' signalled */
};

FIXTURE(freezer) {
	struct freezer_cg fz;
};

/* A mount of @type (with option @opt, if not NULL), in @dir. */
static bool mount_found(char *dir, size_t len, const char *type,
			const char *opt)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	bool found = false;

	if (!f)
		return false;
	while (!found && (m = getmntent(f)))
		if (!strcmp(m->mnt_type, type) && (!opt || hasmntopt(m, opt)))
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

/* True once a line of @cg's file @name is @line, within SETTLE_MS. */
static bool cg_reads(const char *cg, const char *name, const char *line)
{
	char path[PATH_MAX + 32], want[64], buf[128];
	ssize_t n;
	int fd, ms;

	snprintf(path, sizeof(path), "%s/%s", cg, name);
	snprintf(want, sizeof(want), "\n%s\n", line);
	for (ms = 0; ms < SETTLE_MS; ms++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return false;
		buf[0] = '\n';
		n = read(fd, buf + 1, sizeof(buf) - 2);
		close(fd);
		buf[n > 0 ? n + 1 : 1] = '\0';
		if (strstr(buf, want))
			return true;
		sleep_ms(1);
	}
	return false;
}

/* True once freezer.state reads @state, within SETTLE_MS. */
static bool freezer_is(const char *cg, const char *state)
{
	return cg_reads(cg, "freezer.state", state);
}

/* Ask for freezer.state @state; true once it reads so, within SETTLE_MS. */
static bool freezer_set(const char *cg, const char *state)
{
	return !cg_write(cg, "freezer.state", state) && freezer_is(cg, state);
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

/* Pin the caller to its last CPU (@last), or to its others; -1 if none. */
static int pin_last_cpu(bool last)
{
	cpu_set_t cpus;
	int cpu;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return -1;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0 && !CPU_ISSET(cpu, &cpus); cpu--)
		;
	if (cpu < 0)
		return -1;
	if (last) {
		CPU_ZERO(&cpus);
		CPU_SET(cpu, &cpus);
	} else {
		CPU_CLR(cpu, &cpus);
	}
	return sched_setaffinity(0, sizeof(cpus), &cpus);
}

/* a turn at nice 19 beside the hog: 1 ms on the CPU, in its rare slices */
#define TURN_MS		(3 * SETTLE_MS)

/* Spin until on the CPU for 1 ms without a break of 100 us: one turn. */
static void spin_a_turn(void)
{
	long long now, last = 0, start = 0;
	struct timespec t;

	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
		now = t.tv_sec * 1000000000LL + t.tv_nsec;
		if (now - last > 100000)
			start = now;
		last = now;
	} while (now - start < 1000000);
}

/* A child spinning on our last CPU, at our nice. */
static pid_t fork_hog(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		detach_fds(-1);
		if (pin_last_cpu(true))
			_exit(1);
		for (;;)
			;
	}
	return pid;
}

/*
 * Asleep in nanosleep(); for @mode R spinning in user space instead, for D
 * asleep in the module in TASK_KILLABLE once a signal ends nanosleep(), for
 * L asleep after 1 ms of a turn, at nice 19 on the last CPU.
 */
static void freezer_child(int fd, char mode)
{
	struct sigaction sa = { .sa_handler = freezer_child_signalled };
	struct timespec ts = { 3600, 0 };
	char reply[64];

	freezer_child_fd = detach_fds(fd);
	if (mode == 'L' && (pin_last_cpu(true) || setpriority(PRIO_PROCESS, 0, 19)))
		_exit(1);
	if (sigaction(SIGUSR1, &sa, NULL) || write(freezer_child_fd, "r", 1) != 1)
		_exit(1);
	for (;;) {
		if (mode == 'R')
			continue;
		if (mode == 'L')
			spin_a_turn();
		if (nanosleep(&ts, NULL) && mode == 'D')
			control(reply, sizeof(reply), "sleep killable %d 0\n",
				SCHED_STATE_MAX_SLEEP_MS);
	}
}

/*
 * Undo what setup and the test did: nothing may stay frozen.  A kernel
 * whose thaw does not wake the child leaves it frozen for good: do not
 * wait for it past SETTLE_MS.
 */
static void freezer_release(struct freezer_cg *fz)
{
	if (fz->cg[0])
		freezer_set(fz->cg, "THAWED");
	if (fz->pid > 0) {
		kill(fz->pid, SIGKILL);
		reaped(fz->pid);
		fz->pid = 0;
	}
	if (fz->hog > 0) {
		kill(fz->hog, SIGKILL);
		waitpid(fz->hog, NULL, 0);
		fz->hog = 0;
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
	if (geteuid())
		SKIP(return, "needs root");
	if (!mount_found(fz->mnt, sizeof(fz->mnt), "cgroup", "freezer")) {
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

/* Fork the child in @mode, and wait until it sleeps, or spins. */
static void freezer_fork(struct __test_metadata *_metadata,
			 struct freezer_cg *fz, char mode)
{
	char letter = mode == 'R' ? 'R' : 'S';
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	fz->pid = fork();
	ASSERT_LE(0, fz->pid);
	if (fz->pid == 0) {
		close(fds[0]);
		freezer_child(fds[1], mode);
	}
	close(fds[1]);
	fz->pipe = fds[0];
	ASSERT_EQ('r', child_report(fz->pipe, SETTLE_MS));
	/* TASK_FREEZABLE is not reported */
	ASSERT_EQ(letter, wait_for_letter(fz->pid, letter));
	ASSERT_EQ(letter, status_letter(fz->pid));
}

/* Move the child into the cgroup. */
static void freezer_attach(struct __test_metadata *_metadata,
			   struct freezer_cg *fz)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", fz->pid);
	ASSERT_EQ(0, cg_write(fz->cg, "cgroup.procs", pid));
}

/* Fork the child into the cgroup, asleep in nanosleep(). */
static void freezer_start(struct __test_metadata *_metadata,
			  struct freezer_cg *fz)
{
	freezer_fork(_metadata, fz, 'S');
	freezer_attach(_metadata, fz);
	ASSERT_EQ('S', stat_letter(fz->pid));
}

/*
 * Frozen where it sleeps: TASK_FROZEN, shown as D, with no switch since it
 * fell asleep, so not woken to freeze itself in __refrigerator().  That sets
 * TASK_FROZEN before its schedule(), so count once the child is off the CPU.
 * A child still on the CPU on its way to sleep is woken so: a few tries.
 * The child's voluntary switches, asleep in @before, frozen in @after.
 */
static void freeze_in_place(struct __test_metadata *_metadata,
			    struct freezer_cg *fz, long *before, long *after)
{
	int try;

	for (try = 1; try <= FREEZE_TRIES; try++) {
		*before = settled_switches(fz->pid, 'S');
		ASSERT_LE(0, *before);
		ASSERT_TRUE(freezer_set(fz->cg, "FROZEN"));
		ASSERT_EQ('D', stat_letter(fz->pid));
		ASSERT_EQ('D', status_letter(fz->pid));
		*after = settled_switches(fz->pid, 'D');
		if (*after == *before)
			break;
		TH_LOG("try %d: %ld voluntary switches asleep, %ld frozen",
		       try, *before, *after);
		ASSERT_TRUE(freezer_set(fz->cg, "THAWED"));
	}
}

TEST_F(freezer, frozen_in_place)
{
	long before, after = -1;

	freezer_start(_metadata, &self->fz);
	freeze_in_place(_metadata, &self->fz, &before, &after);
	EXPECT_EQ(before, after);
}

/*
 * A sleeper that blocked with negative lag stays queued (sched_delayed, see
 * dequeue_entity() in kernel/sched/fair.c) until it is picked, and is frozen
 * in place all the same (task_is_runnable() in __set_task_frozen(),
 * kernel/freezer.c).  The child, nice 19 beside a nice 0 hog on one CPU,
 * falls asleep after 1 ms of a turn, which leaves it queued for tens of ms:
 * the freeze comes meanwhile.  SIGUSR1 puts it to sleep so for each try.
 */
TEST_F(freezer, delayed_frozen_in_place)
{
	struct freezer_cg *fz = &self->fz;
	long before = -1, after = -1;
	cpu_set_t cpus;
	int try;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	if (CPU_COUNT(&cpus) < 2)
		SKIP(return, "needs two CPUs");
	fz->hog = fork_hog();
	ASSERT_LE(0, fz->hog);
	freezer_fork(_metadata, fz, 'L');
	freezer_attach(_metadata, fz);
	ASSERT_EQ(0, pin_last_cpu(false));
	for (try = 1; try <= FREEZE_TRIES; try++) {
		ASSERT_EQ(0, kill(fz->pid, SIGUSR1));
		ASSERT_EQ('s', child_report(fz->pipe, TURN_MS));
		ASSERT_EQ('S', wait_asleep(fz->pid));
		before = voluntary_switches(fz->pid);
		ASSERT_TRUE(freezer_set(fz->cg, "FROZEN"));
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
 * A fair task that blocks while not eligible stays queued (sched_delayed,
 * dequeue_entity() in kernel/sched/fair.c) until it is picked; a wakeup
 * meanwhile requeues it (ttwu_runnable(), kernel/sched/core.c), else the
 * pick dequeues it running, never to run again.  A special state is never
 * delayed (DEQUEUE_SPECIAL, block_task()).  The child, nice 19 beside a
 * nice 0 hog on one CPU, reads a socket or stops itself after 1 ms of a
 * turn, which leaves a sleeper queued for tens of ms.
 */
#define DELAYED_TRIES	3
#define DELAYED_COMM	"sched_state_dly"

struct delayed {
	pid_t hog, pid;
	int fd;
};

FIXTURE(delayed) {
	struct delayed d;
};

FIXTURE_SETUP(delayed)
{
	cpu_set_t cpus;

	self->d.fd = -1;
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	if (CPU_COUNT(&cpus) < 2)
		SKIP(return, "needs two CPUs");
}

/* A child that lost its wakeup cannot die: do not wait for it past SETTLE_MS. */
FIXTURE_TEARDOWN(delayed)
{
	struct delayed *d = &self->d;

	if (d->pid > 0) {
		kill(d->pid, SIGKILL);
		reaped(d->pid);
	}
	if (d->hog > 0) {
		kill(d->hog, SIGKILL);
		waitpid(d->hog, NULL, 0);
	}
	if (d->fd >= 0)
		close(d->fd);
}

static void delayed_child(int fd, bool stop)
{
	char c;

	fd = detach_fds(fd);
	prctl(PR_SET_NAME, DELAYED_COMM);
	if (pin_last_cpu(true) || setpriority(PRIO_PROCESS, 0, 19) ||
	    write(fd, "r", 1) != 1)
		_exit(1);
	/* each byte: a turn, then the byte back, then asleep for the next */
	for (;;) {
		if (read(fd, &c, 1) != 1)
			_exit(1);
		do {
			spin_a_turn();
			/* @stop: stopped after each turn */
			if (stop)
				raise(SIGSTOP);
		} while (stop);
		if (write(fd, &c, 1) != 1)
			_exit(1);
	}
}

static void delayed_start(struct __test_metadata *_metadata,
			  struct delayed *self, bool stop)
{
	int fds[2];

	self->hog = fork_hog();
	ASSERT_LE(0, self->hog);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, fds));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0)
		delayed_child(fds[1], stop);
	close(fds[1]);
	self->fd = fds[0];
	ASSERT_EQ('r', child_report(self->fd, SETTLE_MS));
	ASSERT_EQ(0, pin_last_cpu(false));
}

/*
 * Each byte we send once it sleeps, but the first, wakes it queued: it must
 * send it back.
 */
TEST_F(delayed, wakeup_runs_it)
{
	int try;

	delayed_start(_metadata, &self->d, false);
	for (try = 0; try <= DELAYED_TRIES; try++) {
		ASSERT_EQ('S', wait_asleep(self->d.pid));
		ASSERT_EQ(1, write(self->d.fd, "w", 1));
		ASSERT_EQ('w', child_report(self->d.fd, TURN_MS))
			TH_LOG("try %d: woken, it did not run", try);
	}
}

/* The fourth field of /proc/loadavg: the tasks on a runqueue, nr_running() */
static long nr_running_loadavg(void)
{
	long n = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%*s %*s %*s %ld/", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* The fewest (or most) tasks on a runqueue in 10 reads over 10 ms; -1 on error. */
static long running(bool most)
{
	long n, found = most ? 0 : LONG_MAX;
	int i;

	for (i = 0; i < 10; i++) {
		n = nr_running_loadavg();
		if (n < 0)
			return -1;
		if (most ? n > found : n < found)
			found = n;
		sleep_ms(1);
	}
	return found;
}

/*
 * Stopped where a sleeper would stay queued, it leaves the runqueue at once.
 * It shows T before its schedule(): count once that switch is done.
 */
TEST_F(delayed, stopped_leaves_runqueue)
{
	long stopped, later, switches;
	pid_t pid;
	int try, ms;

	delayed_start(_metadata, &self->d, true);
	pid = self->d.pid;
	/* asleep for its first byte */
	switches = settled_switches(pid, 'S');
	ASSERT_LE(0, switches);
	ASSERT_EQ(1, write(self->d.fd, "g", 1));
	for (try = 1; try <= DELAYED_TRIES; try++) {
		for (ms = 0; ms < TURN_MS; ms++) {
			if (stat_letter(pid) == 'T' &&
			    voluntary_switches(pid) > switches)
				break;
			sleep_ms(1);
		}
		ASSERT_GT(TURN_MS, ms) TH_LOG("try %d: not stopped", try);
		/* another task's brief sleep on a busy machine is no drop */
		stopped = running(false);
		sleep_ms(STAYS_MS);
		later = running(true);
		ASSERT_LE(0, stopped);
		EXPECT_GE(later, stopped)
			TH_LOG("try %d: %ld running once stopped, %ld later",
			       try, stopped, later);
		switches = voluntary_switches(pid);
		ASSERT_EQ(0, kill(pid, SIGCONT));
	}
}

/*
 * Thawed, a child frozen in place gets its sleep back and sleeps on, not
 * woken (__restore_freezer_state(), kernel/freezer.c): no switch.  Before
 * v6.7 a thaw woke every frozen task.
 */
TEST_F(freezer, thawed_in_place)
{
	struct freezer_cg *fz = &self->fz;
	long before, after = -1;

	if (!ksft_min_kernel_version(6, 7))
		SKIP(return, "thaw wakes before v6.7");
	freezer_start(_metadata, fz);
	freeze_in_place(_metadata, fz, &before, &after);
	ASSERT_EQ(before, after) TH_LOG("not frozen in place");
	ASSERT_TRUE(freezer_set(fz->cg, "THAWED"));
	expect_not_woken(_metadata, fz->pid, 'S', before);
}

/*
 * A signal to a frozen child is not acted on until the thaw, and then is:
 * the wakeup it brings is kept (in saved_state since v6.6), and does not
 * run the child meanwhile, not even to freeze again.
 */
TEST_F(freezer, signal_waits_for_thaw)
{
	struct freezer_cg *fz = &self->fz;
	long before;

	freezer_start(_metadata, fz);
	ASSERT_TRUE(freezer_set(fz->cg, "FROZEN"));
	before = settled_switches(fz->pid, 'D');
	ASSERT_LE(0, before);
	ASSERT_EQ(0, kill(fz->pid, SIGUSR1));
	expect_not_woken(_metadata, fz->pid, 'D', before);
	ASSERT_EQ(0, child_report(fz->pipe, 0));
	ASSERT_TRUE(freezer_set(fz->cg, "THAWED"));
	EXPECT_EQ('s', child_report(fz->pipe, SETTLE_MS));
}

/*
 * A sleeper moved into a FROZEN cgroup is frozen there, in place, and the
 * cgroup reads FROZEN again (freezer_attach(), in
 * kernel/cgroup/legacy_freezer.c, freezes it once FROZEN is cleared).
 */
TEST_F(freezer, frozen_on_attach)
{
	struct freezer_cg *fz = &self->fz;
	long before;

	ASSERT_TRUE(freezer_set(fz->cg, "FROZEN"));
	freezer_fork(_metadata, fz, 'S');
	before = settled_switches(fz->pid, 'S');
	ASSERT_LE(0, before);
	freezer_attach(_metadata, fz);
	EXPECT_TRUE(freezer_is(fz->cg, "FROZEN"));
	ASSERT_EQ('D', stat_letter(fz->pid));
	ASSERT_EQ('D', status_letter(fz->pid));
	expect_not_woken(_metadata, fz->pid, 'D', before);
}

/* A module kthread asleep in one of the module's states. */
FIXTURE(kthread) {
	pid_t pid;
	int fd;		/* the file that started it: closing it stops it */
};

FIXTURE_VARIANT(kthread) {
	const char *name;
	char letter;		/* /proc/PID/stat field 3 */
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
	.woken_by_wake_up_process = 0,
	.woken_by_interruptible_mask = 0,
};

FIXTURE_SETUP(kthread)
{
	const char *why = no_module();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	self->pid = sleeper_kthread(variant->name, &self->fd);
	ASSERT_LT(0, self->pid);
}

FIXTURE_TEARDOWN(kthread)
{
	sleeper_kthread_end(&self->fd);
}

/* stat and status show the variant's letter. */
TEST_F(kthread, reports_state)
{
	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
	ASSERT_EQ(variant->letter, status_letter(self->pid));
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

	/* asleep, not only in its state: else it sees the condition itself */
	ASSERT_LE(0, settled_switches(self->pid, variant->letter));
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

	ASSERT_LE(0, settled_switches(self->pid, variant->letter));
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
	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
	ASSERT_TRUE(sleeper_kthread_end(&self->fd));
	ASSERT_EQ(0, wait_for_letter(self->pid, 0));
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

/*
 * Fork a child that sleeps in the module for @ms, after sending itself
 * @sig (0: none), and reports how the request ended.
 */
static pid_t start_sleeper(struct sleeper *self, const char *state, int ms,
			   int sig)
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

	/* a D or I sleeper outlives a harness timeout's SIGKILL until woken */
	fds[1] = detach_fds(fds[1]);
	/* a handled signal without SA_RESTART: the request sees -EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	ret = control(reply, sizeof(reply), "sleep %s %d %d\n", state, ms, sig);
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

/*
 * Start a sleeper in the variant's state, with @sig sent first; wait until
 * it is asleep, and return its voluntary switches then.
 */
static long sleeper_asleep(struct __test_metadata *_metadata,
			   struct sleeper *self, const char *state, char letter,
			   int sig)
{
	long n;

	ASSERT_LT(0, start_sleeper(self, state, SCHED_STATE_MAX_SLEEP_MS, sig));
	ASSERT_EQ(letter, wait_for_letter(self->pid, letter));
	n = settled_switches(self->pid, letter);
	ASSERT_LE(0, n);
	return n;
}

static char eintr[16];

/* The sleep and way_signal fixtures' set-up: skip without the module. */
static void sleeper_setup(struct __test_metadata *_metadata, struct sleeper *s)
{
	const char *why = no_module();

	s->result = -1;
	snprintf(eintr, sizeof(eintr), "error %d", EINTR);
	if (why)
		SKIP(return, "%s", why);
}

/* Wake, kill and reap a sleeper that is still there. */
static void sleeper_teardown(struct sleeper *s)
{
	if (s->pid > 0) {
		wake("wake", s->pid);
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	if (s->result >= 0)
		close(s->result);
}

FIXTURE_SETUP(sleep)
{
	sleeper_setup(_metadata, &self->child);
}

FIXTURE_TEARDOWN(sleep)
{
	sleeper_teardown(&self->child);
}

/* wake_up_process() ends the sleep. */
TEST_F(sleep, wake_up_process)
{
	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter,
		       0);
	ASSERT_EQ(1, wake("wake", self->child.pid));
	ASSERT_STREQ("wake\n", sleeper_result(&self->child));
}

/* The TASK_INTERRUPTIBLE mask wakes an S sleeper, and leaves D and I be. */
TEST_F(sleep, wake_interruptible_mask)
{
	long n = sleeper_asleep(_metadata, &self->child, variant->name,
				variant->letter, 0);

	ASSERT_EQ(variant->woken_by_interruptible_mask,
		  wake("wake_interruptible", self->child.pid));
	if (!variant->woken_by_interruptible_mask) {
		expect_not_woken(_metadata, self->child.pid, variant->letter, n);
		ASSERT_EQ(1, wake("wake", self->child.pid));
	}
	ASSERT_STREQ("wake\n", sleeper_result(&self->child));
}

/* A non-fatal signal interrupts an S sleep (-EINTR), and wakes no other. */
TEST_F(sleep, signal)
{
	long n = sleeper_asleep(_metadata, &self->child, variant->name,
				variant->letter, 0);

	ASSERT_EQ(0, kill(self->child.pid, SIGUSR1));
	if (variant->woken_by_signal) {
		ASSERT_STREQ(eintr, sleeper_result(&self->child));
		return;
	}
	expect_not_woken(_metadata, self->child.pid, variant->letter, n);
	ASSERT_EQ(1, wake("wake", self->child.pid));
	ASSERT_STREQ("wake\n", sleeper_result(&self->child));
}

/* SIGKILL ends an S or killable sleep; D and I sleepers die once woken. */
TEST_F(sleep, sigkill)
{
	long n = sleeper_asleep(_metadata, &self->child, variant->name,
				variant->letter, 0);

	ASSERT_EQ(0, kill(self->child.pid, SIGKILL));
	if (!variant->woken_by_sigkill) {
		expect_not_woken(_metadata, self->child.pid, variant->letter, n);
		ASSERT_EQ(1, wake("wake", self->child.pid));
	}
	ASSERT_STREQ("", sleeper_result(&self->child));	/* it died in the request */
	expect_signalled(_metadata, &self->child.pid, SIGKILL);
}

/* A sleep nobody ends times out. */
TEST_F(sleep, times_out)
{
	ASSERT_LT(0, start_sleeper(&self->child, variant->name, 100, 0));
	ASSERT_STREQ("timeout\n", sleeper_result(&self->child));
}

/*
 * A signal already pending when the sleep starts: schedule() must not put
 * an S sleeper to sleep at all (-EINTR at once), and must put the others
 * to sleep as ever.
 */
TEST_F(sleep, signal_pending)
{
	if (variant->woken_by_signal) {
		ASSERT_LT(0, start_sleeper(&self->child, variant->name,
					   SCHED_STATE_MAX_SLEEP_MS, SIGUSR1));
		ASSERT_STREQ(eintr, sleeper_result(&self->child));
		return;
	}
	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter,
		       SIGUSR1);
	ASSERT_TRUE(stays(self->child.pid, variant->letter));
	ASSERT_EQ(1, wake("wake", self->child.pid));
	ASSERT_STREQ("wake\n", sleeper_result(&self->child));
}

/* The same with SIGKILL: S and killable sleeps must not block, D and I must. */
TEST_F(sleep, sigkill_pending)
{
	if (variant->woken_by_sigkill) {
		ASSERT_LT(0, start_sleeper(&self->child, variant->name,
					   SCHED_STATE_MAX_SLEEP_MS, SIGKILL));
		expect_signalled(_metadata, &self->child.pid, SIGKILL);
		return;
	}
	sleeper_asleep(_metadata, &self->child, variant->name, variant->letter,
		       SIGKILL);
	ASSERT_TRUE(stays(self->child.pid, variant->letter));
	ASSERT_EQ(1, wake("wake", self->child.pid));
	expect_signalled(_metadata, &self->child.pid, SIGKILL);
}

/* Sixteen module kthreads asleep in one state, against the load. */
#define LOAD_THREADS	16
/*
 * Tasks the load may count otherwise than we expect, either way: other
 * tasks running or in D, or sleepers a late vCPU tick has not folded in yet.
 */
#define LOAD_NOISE	4

struct sleepers {
	pid_t pids[LOAD_THREADS];
	int fds[LOAD_THREADS];
};

static void sleepers_init(struct sleepers *s)
{
	int i;

	for (i = 0; i < LOAD_THREADS; i++)
		s->fds[i] = -1;
}

/* Start LOAD_THREADS kthreads in @state and wait until all are asleep. */
static void sleepers_start(struct __test_metadata *_metadata,
			   struct sleepers *s, const char *state)
{
	char letter;
	int i;

	for (i = 0; i < LOAD_THREADS; i++) {
		s->pids[i] = sleeper_kthread(state, &s->fds[i]);
		ASSERT_LT(0, s->pids[i]);
	}
	/* until asleep they run, and count whatever their state */
	for (i = 0; i < LOAD_THREADS; i++) {
		letter = wait_asleep(s->pids[i]);
		ASSERT_TRUE(letter && letter != 'R');
	}
}

/* Stop them, and wait until they are gone. */
static void sleepers_stop(struct sleepers *s)
{
	int i;

	for (i = 0; i < LOAD_THREADS; i++)
		sleeper_kthread_end(&s->fds[i]);
	for (i = 0; i < LOAD_THREADS; i++)
		wait_for_letter(s->pids[i], 0);
}

FIXTURE(load) {
	struct sleepers s;
};

FIXTURE_VARIANT(load) {
	const char *name;
	bool counts;	/* does the state count towards the load */
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

#define SCHED_DEBUG	"/sys/kernel/debug/sched/debug"

static long sum_nr_uninterruptible(void);

FIXTURE_SETUP(load)
{
	const char *why = no_module();

	sleepers_init(&self->s);
	/* not ABI: a kernel may move or drop it */
	if (!why && sum_nr_uninterruptible() == LONG_MIN)
		why = "no .nr_uninterruptible in sched/debug";
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(load)
{
	sleepers_stop(&self->s);
}

/*
 * The tasks that count in the load for being asleep, the sum of every
 * runqueue's nr_uninterruptible as kernel/sched/debug.c shows it; only the
 * sum is exact (kernel/sched/loadavg.c).  A runqueue's count may be below
 * zero: it is printed signed where it is unsigned long, and as an unsigned
 * 32-bit number where it is unsigned int (older kernels).  LONG_MIN if the
 * file has no such line.
 */
static long sum_nr_uninterruptible(void)
{
	char line[256];
	long long v;
	long sum = 0;
	bool found = false;
	FILE *f = fopen(SCHED_DEBUG, "r");

	if (!f)
		return LONG_MIN;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " .nr_uninterruptible : %lld", &v) != 1)
			continue;
		if (v >= 0x80000000LL && v <= 0xffffffffLL)
			v -= 0x100000000LL;
		sum += v;
		found = true;
	}
	fclose(f);
	return found ? sum : LONG_MIN;
}

/*
 * Wait, up to SETTLE_MS, for the count to be @lo to @hi above @before; with
 * DELAY_DEQUEUE a sleeper counts once its dequeue is done.  Return the last
 * count seen.
 */
static long nr_uninterruptible_settles(long before, long lo, long hi)
{
	long n = sum_nr_uninterruptible();
	int ms;

	for (ms = 0; ms < SETTLE_MS; ms += 10) {
		if (n - before >= lo && n - before <= hi)
			break;
		sleep_ms(10);
		n = sum_nr_uninterruptible();
	}
	return n;
}

/*
 * Sleepers in D count in the load, from when they block to when they are
 * woken; TASK_IDLE ones never do.  try_to_block_task() counts them, and
 * ttwu_do_activate() takes them off again (kernel/sched/core.c).
 */
TEST_F(load, nr_uninterruptible)
{
	long before, asleep, after;

	before = sum_nr_uninterruptible();
	ASSERT_NE(LONG_MIN, before);
	sleepers_start(_metadata, &self->s, variant->name);
	if (variant->counts) {
		asleep = nr_uninterruptible_settles(before,
						    LOAD_THREADS - LOAD_NOISE,
						    LONG_MAX);
	} else {
		sleep_ms(STAYS_MS);
		asleep = sum_nr_uninterruptible();
	}
	sleepers_stop(&self->s);
	after = nr_uninterruptible_settles(before, LONG_MIN, LOAD_NOISE);
	TH_LOG("nr_uninterruptible %ld, %ld with %d %s sleepers, %ld after",
	       before, asleep, LOAD_THREADS, variant->name, after);
	EXPECT_TRUE(variant->counts ?
		    asleep - before >= LOAD_THREADS - LOAD_NOISE :
		    asleep - before <= LOAD_NOISE);
	EXPECT_GE(LOAD_NOISE, after - before);
}

/*
 * A running child cannot be frozen in place: freeze_task() wakes it with a
 * fake signal to freeze itself in __refrigerator() (kernel/freezer.c), in
 * TASK_FROZEN, shown as D, the cgroup FROZEN.
 */
TEST_F(freezer, running_frozen)
{
	freezer_fork(_metadata, &self->fz, 'R');
	freezer_attach(_metadata, &self->fz);
	ASSERT_TRUE(freezer_set(self->fz.cg, "FROZEN"));
	ASSERT_EQ('D', stat_letter(self->fz.pid));
}

/*
 * The cgroup v2 freezer traps a task in do_freezer_trap() (kernel/signal.c),
 * in TASK_INTERRUPTIBLE | TASK_FREEZABLE, shown as S, not in TASK_FROZEN,
 * until cgroup.freeze is 0 again.  sched_state.sh removes a CGROUP2_MNT
 * left behind.
 */
#define CGROUP2_MNT	"/tmp/sched_state_cgroup2.XXXXXX"

FIXTURE(freezer2) {
	struct freezer_cg fz;
};

FIXTURE_SETUP(freezer2)
{
	struct freezer_cg *fz = &self->fz;
	char path[PATH_MAX + 32];

	fz->pipe = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (!mount_found(fz->mnt, sizeof(fz->mnt), "cgroup2", NULL)) {
		snprintf(fz->mnt, sizeof(fz->mnt), "%s", CGROUP2_MNT);
		ASSERT_EQ(0, mkdtemp(fz->mnt) ? 0 : errno);
		if (mount("sched_state", fz->mnt, "cgroup2", 0, NULL)) {
			rmdir(fz->mnt);
			SKIP(return, "no cgroup2");
		}
		fz->mounted = true;
	}
	if (snprintf(fz->cg, sizeof(fz->cg), "%s/%s", fz->mnt,
		     FREEZER_CGROUP) >= (int)sizeof(fz->cg))
		fz->cg[0] = '\0';
	snprintf(path, sizeof(path), "%s/cgroup.freeze", fz->cg);
	/* a container's cgroup2 may be read-only */
	if ((mkdir(fz->cg, 0755) && errno != EEXIST) || access(path, W_OK)) {
		freezer_release(fz);
		SKIP(return, "no cgroup.freeze");
	}
}

FIXTURE_TEARDOWN(freezer2)
{
	if (self->fz.cg[0])
		cg_write(self->fz.cg, "cgroup.freeze", "0");
	freezer_release(&self->fz);
}

/* A child spinning in user space is trapped asleep, in S. */
TEST_F(freezer2, trapped_in_S)
{
	freezer_fork(_metadata, &self->fz, 'R');
	freezer_attach(_metadata, &self->fz);
	ASSERT_EQ(0, cg_write(self->fz.cg, "cgroup.freeze", "1"));
	ASSERT_TRUE(cg_reads(self->fz.cg, "cgroup.events", "frozen 1"));
	ASSERT_EQ('S', stat_letter(self->fz.pid));
}

/*
 * Thawed, a task frozen in place gets its state back and keeps no copy in
 * saved_state (__restore_freezer_state()), which a later wakeup would match
 * (ttwu_state_match(), kernel/sched/core.c): asleep later in TASK_KILLABLE,
 * the TASK_INTERRUPTIBLE mask must not match it.  Fixed in v6.8.
 */
TEST_F(freezer, thaw_clears_saved_state)
{
	struct freezer_cg *fz = &self->fz;
	const char *why = no_module();
	long before, after = -1;

	if (why)
		SKIP(return, "%s", why);
	freezer_fork(_metadata, fz, 'D');
	freezer_attach(_metadata, fz);
	freeze_in_place(_metadata, fz, &before, &after);
	ASSERT_EQ(before, after) TH_LOG("not frozen in place");
	ASSERT_TRUE(freezer_set(fz->cg, "THAWED"));
	ASSERT_EQ(0, kill(fz->pid, SIGUSR1));
	ASSERT_EQ('s', child_report(fz->pipe, SETTLE_MS));
	ASSERT_EQ('D', wait_for_letter(fz->pid, 'D'));
	ASSERT_LE(0, settled_switches(fz->pid, 'D'));
	EXPECT_EQ(0, wake("wake_interruptible", fz->pid));
}

/* Blocked in TASK_FROZEN, it does not count in the load (block_task()). */
TEST_F(freezer, frozen_not_in_load)
{
	long before = sum_nr_uninterruptible();

	if (before == LONG_MIN)
		SKIP(return, "no .nr_uninterruptible in sched/debug");
	freezer_fork(_metadata, &self->fz, 'R');
	freezer_attach(_metadata, &self->fz);
	ASSERT_TRUE(freezer_set(self->fz.cg, "FROZEN"));
	EXPECT_EQ(before, nr_uninterruptible_settles(before, 0, 0));
}

/*
 * Each LOAD_FREQ (5 s and a tick) calc_global_load() folds the active
 * tasks into avenrun[0], the 1-minute average, fixed point with FSHIFT
 * bits: load = load * e + active * (1 - e), e = EXP_1 / FIXED_1
 * (include/linux/sched/loadavg.h, kernel/sched/loadavg.c).
 */
#define FIXED_1		2048
#define EXP_1		1884
#define LOAD_FREQ_MS	5000
/* a tick is 10 ms at most (HZ >= 100); how far fold and clock may differ */
#define LOAD_SLACK_MS	100

/* /proc/loadavg's first figure in hundredths, within 0.5 of it; -1 on error */
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

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

FIXTURE(loadavg) {
	struct sleepers s;
};

FIXTURE_SETUP(loadavg)
{
	const char *why = no_module();

	sleepers_init(&self->s);
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(loadavg)
{
	sleepers_stop(&self->s);
}

/*
 * One measurement: LOAD_THREADS D sleepers started and asleep (t1), the
 * load seen, then the first fold more than LOAD_SLACK_MS after t1, or a
 * fold's time whatever it shows.  At least all but LOAD_NOISE sleepers
 * were active in it: from below, one fold brings the load at least
 * (A - load) * (1 - e) nearer to A = LOAD_THREADS - LOAD_NOISE, and more
 * folds bring it nearer still; from above it stays above A.  One
 * hundredth is allowed for /proc/loadavg's rounding at each end.
 */
static bool loadavg_in_range(struct __test_metadata *_metadata,
			     struct sleepers *s)
{
	const long active = (LOAD_THREADS - LOAD_NOISE) * 100L;
	long seen, after, t1, t2, bound;

	sleepers_start(_metadata, s, "uninterruptible");
	t1 = now_ms();
	seen = load1();
	ASSERT_LE(0, seen);
	for (t2 = t1; t2 - t1 < LOAD_FREQ_MS + 3 * LOAD_SLACK_MS;
	     t2 = now_ms()) {
		sleep_ms(10);
		after = load1();
		if (after != seen && t2 - t1 > LOAD_SLACK_MS)
			break;
		seen = after;
	}
	after = load1();
	bound = seen >= active ? active :
		seen + (active - seen) * (FIXED_1 - EXP_1) / FIXED_1;
	TH_LOG("load1 %ld.%02ld -> %ld.%02ld %ld ms after %d D sleepers: want >= %ld.%02ld",
	       seen / 100, seen % 100, after / 100, after % 100, t2 - t1,
	       LOAD_THREADS, bound / 100, bound % 100);
	return after >= bound - 2;
}

/*
 * Sixteen D sleepers raise the load average towards 16 by 1 - e of the way
 * each fold (kernel/sched/loadavg.c).  A miss is measured once more.
 */
TEST_F_TIMEOUT(loadavg, fold, 40)
{
	if (loadavg_in_range(_metadata, &self->s))
		return;
	sleepers_stop(&self->s);
	TH_LOG("out of range: once more");
	EXPECT_TRUE(loadavg_in_range(_metadata, &self->s));
}

/*
 * The hung-task detector (kernel/hung_task.c) counts a task blocked in
 * TASK_UNINTERRUPTIBLE longer than hung_task_timeout_secs, never a killable
 * or an idle one, nor one woken now and then, in hung_task_detect_count
 * (Documentation/admin-guide/sysctl/kernel.rst), at each scan it stays hung.
 * With hung_task_warnings at 0 it counts and prints nothing: the run leaves
 * no report in the log.  sched_state_hung_task shows the report itself.
 * sched_state.sh restores the sysctls after a harness timeout.
 */
#define HUNG_SYSCTL	"/proc/sys/kernel/hung_task_"
/* with a 1 s timeout the detector scans each 1 s: a sleeper counts within 3 */
#define HUNG_MS		3500
/* the next scan, and a margin */
#define HUNG_PERIOD_MS	1500

/* All four sleep at once: one scan counts each hung sleeper once. */
static const struct {
	const char *name;
	bool woken;	/* each 100 ms: its switch count moves */
} hung_sleepers[] = {
	{ "uninterruptible", false },
	{ "killable", false },
	{ "idle", false },
	{ "uninterruptible", true },
};

FIXTURE(hung_task_count) {
	int fd[ARRAY_SIZE(hung_sleepers)];
	char timeout[32], warnings[32];
};

/* Read sysctl @path into @buf, then write @value if not NULL. */
static int sysctl_rw(const char *path, char *buf, size_t len,
		     const char *value)
{
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, value ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (n < 0 || (value && pwrite(fd, value, strlen(value), 0) < 0))
		ret = -errno;
	close(fd);
	return ret;
}

static int hung_sysctl(const char *name, char *buf, size_t len,
		       const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), HUNG_SYSCTL "%s", name);
	return sysctl_rw(path, buf, len, value);
}

static long hung_count(void)
{
	char buf[32];

	return hung_sysctl("detect_count", buf, sizeof(buf), NULL) ? -1 :
	       atol(buf);
}

FIXTURE_SETUP(hung_task_count)
{
	const char *why = no_module();
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(self->fd); i++)
		self->fd[i] = -1;
	if (!why && access(HUNG_SYSCTL "timeout_secs", W_OK))
		why = "needs CONFIG_DETECT_HUNG_TASK";
	if (!why && hung_count() < 0)
		why = "no kernel.hung_task_detect_count";
	if (!why && (hung_sysctl("panic", buf, sizeof(buf), NULL) ||
		     atoi(buf)))
		why = "kernel.hung_task_panic is set";
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, hung_sysctl("warnings", self->warnings,
				 sizeof(self->warnings), "0"));
	ASSERT_EQ(0, hung_sysctl("timeout_secs", self->timeout,
				 sizeof(self->timeout), "1"));
}

FIXTURE_TEARDOWN(hung_task_count)
{
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(self->fd); i++)
		sleeper_kthread_end(&self->fd[i]);
	if (self->timeout[0])
		hung_sysctl("timeout_secs", buf, sizeof(buf), self->timeout);
	if (self->warnings[0])
		hung_sysctl("warnings", buf, sizeof(buf), self->warnings);
}

/*
 * The count once it moves from @from, within @ms, polled each 100 ms; each
 * poll wakes the woken sleepers of @pid and adds to @wakes.  A scan counts
 * its tasks in a burst: read again 50 ms later, once the burst is over.
 */
static long hung_count_moves(const pid_t *pid, int *wakes, long from, int ms)
{
	long now = from;

	for (; ms > 0 && now == from; ms -= 100) {
		sleep_ms(100);
		for (size_t i = 0; i < ARRAY_SIZE(hung_sleepers); i++)
			if (hung_sleepers[i].woken)
				*wakes += wake("wake", pid[i]) == 1;
		now = hung_count();
	}
	if (now != from) {
		sleep_ms(50);
		now = hung_count();
	}
	return now;
}

/*
 * Of the four, the detector counts the D sleeper alone: at the first scan
 * that counts anything, one; at the next, one more.  A second sleeper
 * counted at either scan, or first counted a scan later than the D one,
 * leaves a difference of 2 or more.
 */
TEST_F(hung_task_count, only_uninterruptible)
{
	pid_t pid[ARRAY_SIZE(hung_sleepers)];
	long before, first, second;
	int wakes = 0;

	for (size_t i = 0; i < ARRAY_SIZE(hung_sleepers); i++) {
		pid[i] = sleeper_kthread(hung_sleepers[i].name, &self->fd[i]);
		ASSERT_LT(0, pid[i]);
	}
	before = hung_count();
	ASSERT_LE(0, before);
	first = hung_count_moves(pid, &wakes, before, HUNG_MS);
	second = hung_count_moves(pid, &wakes, first, HUNG_PERIOD_MS);
	TH_LOG("hung_task_detect_count %ld, %ld at a scan, %ld at the next",
	       before, first, second);
	EXPECT_EQ(1, first - before) TH_LOG("the first scan that counts");
	EXPECT_EQ(1, second - first) TH_LOG("the next scan");
	EXPECT_LE(10, wakes) TH_LOG("%d wakes", wakes);
}

/* The lost-wakeup race, for SCHED_STATE_RACE_MS (default, and at most). */
#define RACE_MS		2000
#define RACE_MAX_MS	SCHED_STATE_MAX_BUSY_MS
/* the fewest rounds that may be judged, when a slow machine runs few */
#define RACE_MIN_ROUNDS	2000U

FIXTURE(race) {
};

FIXTURE_SETUP(race)
{
	const char *why = no_module();

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(race)
{
}

/*
 * set_current_state() loses no wakeup: a sleeper and a waker on two CPUs,
 * in the store-buffering shape of tools/memory-model's
 * SB+fencembonceonces ("Never").  SCHED_STATE_RACE_MS in the environment
 * runs it longer, up to RACE_MAX_MS.
 */
TEST_F_TIMEOUT(race, lost_wakeups, 60)
{
	const char *env = getenv("SCHED_STATE_RACE_MS");
	int ms = env ? atoi(env) : RACE_MS;
	unsigned int done, lost;
	char reply[64];
	int ret;

	if (ms < 1 || ms > RACE_MAX_MS)
		ms = RACE_MS;
	ret = control(reply, sizeof(reply), "race %d %d\n",
		      SCHED_STATE_MAX_ROUNDS, ms);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "needs two online CPUs");
	ASSERT_EQ(0, ret);
	ret = sscanf(reply, "%u %u", &done, &lost);
	ASSERT_EQ(2, ret);
	TH_LOG("%u of %u wakeups lost in %d ms", lost, done, ms);
	if (done < RACE_MIN_ROUNDS && !lost)
		SKIP(return, "too few race rounds");
	EXPECT_EQ(0U, lost);
}

/*
 * PREEMPT_RT: a task that set TASK_INTERRUPTIBLE and then blocked on a
 * contended spinlock_t, or on an rwlock_t's reader as its writer, in
 * TASK_RTLOCK_WAIT, reports D, and keeps a wakeup that arrives meanwhile
 * (saved_state): once it has the lock, its next schedule() does not sleep.
 * With no wakeup, it restores its own state, and that schedule() sleeps.
 * Its owner preempted, it blocks rather than spin on the owner.  The
 * module's kthread must block in the short time the module holds the lock;
 * on a busy machine that window is tried a few times.
 */
#define RTLOCK_TRIES	10

/* What a check reads of the reply "<letter> <woke> <kept> <blocked>". */
enum rtlock_rule { RTLOCK_D, RTLOCK_KEEPS, RTLOCK_RESTORES, RTLOCK_BLOCKS };

static void rtlock_expect(struct __test_metadata *_metadata, const char *verb,
			  enum rtlock_rule rule)
{
	const char *why = no_module();
	int ret, try, woke, kept, blocked;
	char reply[64], letter;

	if (!why && sysconf(_SC_NPROCESSORS_ONLN) < 2)
		why = "needs two online CPUs";
	if (why)
		SKIP(return, "%s", why);
	for (try = 1; try <= RTLOCK_TRIES; try++) {
		ret = control(reply, sizeof(reply), "%s\n", verb);
		if (ret == -EOPNOTSUPP)
			SKIP(return, "needs CONFIG_PREEMPT_RT");
		/* -ENODEV: the other CPU went offline meanwhile */
		if (ret == -ENODEV)
			continue;
		/* -ETIMEDOUT: the waiter still waits for the lock we freed */
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", verb, strerror(-ret));
		if (strcmp(reply, "missed\n"))
			break;
	}
	if (try > RTLOCK_TRIES)
		SKIP(return, "rtlock window missed");
	ret = sscanf(reply, "%c %d %d %d", &letter, &woke, &kept, &blocked);
	ASSERT_EQ(4, ret);
	switch (rule) {
	case RTLOCK_D:
		EXPECT_EQ('D', letter);
		break;
	case RTLOCK_KEEPS:
		/* the wakeup lands in saved_state: done, and not lost */
		EXPECT_EQ(1, woke);
		EXPECT_EQ(1, kept);
		break;
	case RTLOCK_RESTORES:
		EXPECT_EQ(0, kept);
		break;
	case RTLOCK_BLOCKS:
		EXPECT_EQ(1, blocked);
		break;
	}
}

TEST(rtlock_reports_D)
{
	rtlock_expect(_metadata, "rtlock", RTLOCK_D);
}

TEST(rtlock_keeps_wakeup)
{
	rtlock_expect(_metadata, "rtlock", RTLOCK_KEEPS);
}

TEST(rtlock_restores_state)
{
	rtlock_expect(_metadata, "rtlock_nowake", RTLOCK_RESTORES);
}

/* Its owner preempted, a waiter blocks: a voluntary switch, not a spin. */
TEST(rtlock_waiter_blocks)
{
	rtlock_expect(_metadata, "rtlock_block", RTLOCK_BLOCKS);
}

TEST(rtlock_rwlock_reports_D)
{
	rtlock_expect(_metadata, "rtlock_rw", RTLOCK_D);
}

TEST(rtlock_rwlock_keeps_wakeup)
{
	rtlock_expect(_metadata, "rtlock_rw", RTLOCK_KEEPS);
}

/*
 * The ways kernel code sleeps (sched_state.h): wait_event*(), wait_woken(),
 * wait_on_bit(), completions, mutexes, rwsems, semaphores, msleep*(),
 * schedule_timeout_idle(), io_schedule(), a kthread's first sleep.  A module
 * kthread sleeps once in a way, then in S until stopped: the letter it shows
 * in the way, what ends the way, its own wakeup (wake_up(),
 * clear_and_wake_up_bit(), complete(), up(), the holder's unlock,
 * wake_up_process()) or its timer, and for some whether it
 * counts in procs_blocked (/proc/stat: rq->nr_iowait) while blocked.  The
 * interruptible and killable ways are the caller's, in way_signal below.
 */
enum way_end {
	WAY_WAKE,	/* the module's wake request: the way's own wakeup */
	WAY_TIMER,	/* its timer, after SCHED_STATE_WAY_MS */
	WAY_SELF,	/* itself, before its schedule(): it never sleeps */
};

enum way_io {
	IO_ANY,		/* not looked at */
	IO_NONE,	/* not in procs_blocked */
	IO_COUNTS,	/* in procs_blocked while blocked, and out once woken */
};

FIXTURE(way) {
	pid_t pid;
	int fd;
};

FIXTURE_VARIANT(way) {
	const char *name;
	char letter;	/* in the way; S once back from it */
	enum way_end end;
	enum way_io io;
};

FIXTURE_VARIANT_ADD(way, wait_event_idle) { "wait_event_idle", 'I', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, wait_woken) { "wait_woken", 'S', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, wait_on_bit) { "wait_on_bit", 'D', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, completion) { "completion", 'D', WAY_WAKE, IO_NONE };
FIXTURE_VARIANT_ADD(way, completion_io) { "completion_io", 'D', WAY_WAKE, IO_COUNTS };
FIXTURE_VARIANT_ADD(way, mutex) { "mutex", 'D', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, rwsem_read) { "rwsem_read", 'D', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, down) { "down", 'D', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, msleep) { "msleep", 'D', WAY_TIMER, IO_ANY };
FIXTURE_VARIANT_ADD(way, msleep_interruptible) { "msleep_interruptible", 'S', WAY_TIMER, IO_ANY };
FIXTURE_VARIANT_ADD(way, timeout_idle) { "timeout_idle", 'I', WAY_TIMER, IO_ANY };
FIXTURE_VARIANT_ADD(way, io_schedule) { "io_schedule", 'D', WAY_WAKE, IO_COUNTS };
FIXTURE_VARIANT_ADD(way, self) { "self", 'S', WAY_SELF, IO_ANY };
FIXTURE_VARIANT_ADD(way, created) { "created", 'D', WAY_WAKE, IO_ANY };
FIXTURE_VARIANT_ADD(way, idle_freezable) { "idle_freezable", 'I', WAY_WAKE, IO_ANY };

/*
 * Start a kthread in way @name; false if skipped (no module, or -EOPNOTSUPP:
 * a way this kernel lacks), and the caller returns: a SKIP() here returns
 * from this function only.
 */
static bool way_start(struct __test_metadata *_metadata, const char *name,
		      pid_t *pid, int *fd)
{
	const char *why = no_module();

	*fd = -1;
	if (why)
		SKIP(return false, "%s", why);
	*pid = sleeper_kthread(name, fd);
	if (*pid == -EOPNOTSUPP)
		SKIP(return false, "way not in this kernel");
	ASSERT_LT(0, *pid);
	return true;
}

/* procs_blocked of /proc/stat, the sum of every runqueue's nr_iowait */
static long stat_procs_blocked(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "procs_blocked %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Wait, up to SETTLE_MS, for procs_blocked to be @want; the last seen. */
static long procs_blocked_settles(long want)
{
	long n = stat_procs_blocked();
	int ms;

	for (ms = 0; ms < SETTLE_MS && n != want; ms += 10) {
		sleep_ms(10);
		n = stat_procs_blocked();
	}
	return n;
}

FIXTURE_SETUP(way)
{
	self->fd = -1;
}

FIXTURE_TEARDOWN(way)
{
	sleeper_kthread_end(&self->fd);
}

/*
 * In the way, stat and status show its letter, and procs_blocked counts it
 * or not; its own wakeup, or its timer, ends the way within SETTLE_MS (and
 * takes it out of procs_blocked).  A kthread that woke itself never slept:
 * it is back from the way at once, asleep in S until stopped.
 */
TEST_F(way, sleeps)
{
	long io = 0, asleep;
	int ms, seen = 0;

	if (variant->io != IO_ANY) {
		io = stat_procs_blocked();
		ASSERT_LE(0, io);
	}
	if (!way_start(_metadata, variant->name, &self->pid, &self->fd))
		return;
	ASSERT_EQ(variant->letter, wait_for_letter(self->pid, variant->letter));
	ASSERT_EQ(variant->letter, status_letter(self->pid));
	if (variant->end == WAY_SELF) {
		ASSERT_EQ(1, kthread_wakeups(self->pid));
		return;
	}
	ASSERT_EQ(0, kthread_wakeups(self->pid)) TH_LOG("not in the way");
	if (variant->io != IO_ANY) {
		ASSERT_LE(0, settled_switches(self->pid, variant->letter));
		asleep = variant->io == IO_COUNTS ?
			 procs_blocked_settles(io + 1) : stat_procs_blocked();
		EXPECT_EQ(io + (variant->io == IO_COUNTS), asleep)
			TH_LOG("procs_blocked %ld, %ld asleep", io, asleep);
	}
	if (variant->end == WAY_WAKE)
		ASSERT_LE(0, wake("wake", self->pid));
	for (ms = 0; ms < SETTLE_MS && !seen; ms++) {
		seen = kthread_wakeups(self->pid);
		if (!seen)
			sleep_ms(1);
	}
	ASSERT_EQ(1, seen) TH_LOG("still in %c", stat_letter(self->pid));
	if (variant->io != IO_ANY)
		EXPECT_EQ(io, procs_blocked_settles(io)) TH_LOG("still blocked");
}

/*
 * A kthread asked to park after its test of kthread_should_park(), whose
 * wakeup ended another sleep, then waits in wait_woken(): that must see
 * the park and not sleep (kernel/sched/wait.c), so kthread_park(), and the
 * request, end at once, not after SCHED_STATE_PARK_MS.  Fixed in v6.5.
 */
FIXTURE(park) {
	pid_t pid;
	int fd;
};

FIXTURE_SETUP(park)
{
	self->fd = -1;
}

FIXTURE_TEARDOWN(park)
{
	sleeper_kthread_end(&self->fd);
}

TEST_F(park, wait_woken)
{
	struct timespec start, end;
	long ms;

	if (!ksft_min_kernel_version(6, 5))
		SKIP(return, "wait_woken() sleeps through a park before v6.5");
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &start));
	if (!way_start(_metadata, "wait_woken_park", &self->pid, &self->fd))
		return;
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &end));
	ms = (end.tv_sec - start.tv_sec) * 1000 +
	     (end.tv_nsec - start.tv_nsec) / 1000000;
	ASSERT_EQ('P', stat_letter(self->pid));
	EXPECT_GT(SCHED_STATE_PARK_MS / 2, ms) TH_LOG("parked in %ld ms", ms);
}

/*
 * The caller asleep in a way that a signal can end (the sleep request): a
 * signal ends an interruptible one (-EINTR); a killable one it leaves
 * asleep, and SIGKILL ends it.  wait_event_*() decides in
 * prepare_to_wait_event(), the others in their loops or in schedule().
 */
FIXTURE(way_signal) {
	struct sleeper child;
};

FIXTURE_VARIANT(way_signal) {
	const char *name;
	char letter;
	bool woken_by_signal;
};

FIXTURE_VARIANT_ADD(way_signal, wait_event_interruptible) { "wait_event_interruptible", 'S', true };
FIXTURE_VARIANT_ADD(way_signal, wait_event_killable) { "wait_event_killable", 'D', false };
FIXTURE_VARIANT_ADD(way_signal, wait_on_bit_killable) { "wait_on_bit_killable", 'D', false };
FIXTURE_VARIANT_ADD(way_signal, completion_killable) { "completion_killable", 'D', false };
FIXTURE_VARIANT_ADD(way_signal, mutex_killable) { "mutex_killable", 'D', false };
FIXTURE_VARIANT_ADD(way_signal, rwsem_write_killable) { "rwsem_write_killable", 'D', false };
FIXTURE_VARIANT_ADD(way_signal, down_killable) { "down_killable", 'D', false };
FIXTURE_VARIANT_ADD(way_signal, msleep_interruptible) { "msleep_interruptible", 'S', true };

/* A bound for the timed way, msleep_interruptible(): short of SETTLE_MS */
#define WAY_SLEEP_MS	3000

FIXTURE_SETUP(way_signal)
{
	sleeper_setup(_metadata, &self->child);
}

FIXTURE_TEARDOWN(way_signal)
{
	sleeper_teardown(&self->child);
}

TEST_F(way_signal, signals)
{
	struct pollfd p = { .events = POLLIN };

	ASSERT_LT(0, start_sleeper(&self->child, variant->name, WAY_SLEEP_MS,
				   0));
	ASSERT_EQ(variant->letter,
		  wait_for_letter(self->child.pid, variant->letter));
	ASSERT_EQ(0, kill(self->child.pid, SIGUSR1));
	if (variant->woken_by_signal) {
		ASSERT_STREQ(eintr, sleeper_result(&self->child));
		return;
	}
	p.fd = self->child.result;
	ASSERT_EQ(0, poll(&p, 1, STAYS_MS)) TH_LOG("ended by a signal");
	ASSERT_EQ(variant->letter, stat_letter(self->child.pid));
	ASSERT_EQ(0, kill(self->child.pid, SIGKILL));
	expect_signalled(_metadata, &self->child.pid, SIGKILL);
}

/*
 * A preemption never blocks a task, whatever its state: only its own
 * schedule() in a sleeping state does (__schedule()).  A module kthread
 * spins in TASK_UNINTERRUPTIBLE, shown D, beside a busy child pinned to its
 * CPU: preempted by it, it must still get CPU time (stime, field 15 of
 * /proc/PID/stat), and spin on.
 */
FIXTURE(preempt) {
	pid_t pid;
	int fd;
	pid_t hog;
};

FIXTURE_SETUP(preempt)
{
	self->fd = -1;
	self->hog = 0;
}

FIXTURE_TEARDOWN(preempt)
{
	if (self->hog > 0) {
		kill(self->hog, SIGKILL);
		waitpid(self->hog, NULL, 0);
	}
	sleeper_kthread_end(&self->fd);
}

/* Fields 15 (stime) and 39 (processor) of /proc/PID/stat */
static bool stat_stime_cpu(pid_t pid, long *stime, int *cpu)
{
	char path[64], buf[512], *paren, *tok, *save;
	int field = 2, found = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	if (!paren)
		return false;
	for (tok = strtok_r(paren + 1, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (++field == 15)
			found += sscanf(tok, "%ld", stime);
		else if (field == 39)
			found += sscanf(tok, "%d", cpu);
	}
	return found == 2;
}

TEST_F(preempt, d_spinner_runs)
{
	unsigned long mask;
	long before, after;
	int cpu;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	if (!way_start(_metadata, "spin", &self->pid, &self->fd))
		return;
	ASSERT_EQ('D', wait_for_letter(self->pid, 'D'));
	ASSERT_TRUE(stat_stime_cpu(self->pid, &before, &cpu));
	ASSERT_GT(64, cpu);
	self->hog = fork();
	ASSERT_LE(0, self->hog);
	if (self->hog == 0) {
		mask = 1UL << cpu;
		if (syscall(__NR_sched_setaffinity, 0, sizeof(mask), &mask))
			_exit(1);
		/* as long as the kthread may spin, not for ever */
		before = now_ms() + 2000;
		while (now_ms() < before)
			;
		_exit(0);
	}
	sleep_ms(50);	/* the child preempts it */
	ASSERT_TRUE(stat_stime_cpu(self->pid, &before, &cpu));
	sleep_ms(200);
	ASSERT_TRUE(stat_stime_cpu(self->pid, &after, &cpu));
	ASSERT_EQ(0, kthread_wakeups(self->pid));	/* still spinning */
	EXPECT_LT(before, after) TH_LOG("stime %ld, %ld 200 ms later, in %c",
					before, after, stat_letter(self->pid));
}

/*
 * The blocking calls users' tasks sleep in, one row each: the letter the
 * sleep shows, and what a caught signal does to it.  A child, in a process
 * group of its own, sets the call up so that nothing but a signal ends it,
 * reports that it is about to block, and blocks.  Its SIGUSR1 handler,
 * without SA_RESTART, reports that it ran; the child then reports how the
 * call ended.  A new case is a function that blocks and one CALL() line.
 */
#define CALL_COMM	"sched_state_blk"
/* How long a signal may take to end a sleep, or to show that it did not. */
#define CALL_MS		1000
#define CALL_WATCH_MS	100

/* What a caught signal does to the sleep. */
enum call_signal {
	CALL_ENDS,	/* the handler runs, the call fails with EINTR */
	CALL_RESTARTS,	/* the handler runs, the call sleeps on */
	CALL_SLEEPS,	/* nothing until the sleep ends */
};

/* Set up before the fork: what the parent holds, and what to remove. */
struct call_env {
	int futex;	/* a PI futex the parent owns */
	int msqid;	/* System V objects the child made, or -1 */
	int semid;
	int file;	/* a memfd the parent holds locked, flock and POSIX */
};

static int call_fd = -1;

static void call_say(char c)
{
	if (write(call_fd, &c, 1) != 1)
		_exit(1);
}

static void call_handler(int sig)
{
	(void)sig;
	call_say('h');
}

static void call_setup_failed(void)
{
	call_say('f');
	_exit(1);
}

/* The call is next; what it returned, as its errno (0: none). */
static void call_ready(void)
{
	call_say('r');
}

static int call_errno(long ret)
{
	return ret < 0 ? errno : 0;
}

static int call_pipe_read(struct call_env *e __maybe_unused)
{
	int fds[2];
	char c;

	if (pipe(fds))
		call_setup_failed();
	call_ready();
	return call_errno(read(fds[0], &c, 1));
}

static int call_pipe_write(struct call_env *e __maybe_unused)
{
	static const char buf[PIPE_BUF];
	int fds[2];

	if (pipe(fds) || fcntl(fds[1], F_SETFL, O_NONBLOCK))
		call_setup_failed();
	/* PIPE_BUF at a time: a byte at a time is 1 MiB of writes on 64K pages */
	while (write(fds[1], buf, sizeof(buf)) > 0 || write(fds[1], buf, 1) == 1)
		;
	if (fcntl(fds[1], F_SETFL, 0))
		call_setup_failed();
	call_ready();
	return call_errno(write(fds[1], "x", 1));
}

/* open() of a FIFO for reading, with no writer: fs/pipe.c wait_for_partner() */
/* splice() of an empty pipe to /dev/null: __splice_from_pipe() waits. */
static int call_splice(struct call_env *e __maybe_unused)
{
	int fds[2], null = open("/dev/null", O_WRONLY);

	if (null < 0 || pipe(fds))
		call_setup_failed();
	call_ready();
	return call_errno(splice(fds[0], NULL, null, NULL, 1, 0));
}

static int call_fifo_open(struct call_env *e __maybe_unused)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/sched_state_fifo.%d", getpid());
	if (mkfifo(path, 0600))
		call_setup_failed();
	/* a reader that does not wait for a writer keeps the FIFO */
	fd = open(path, O_RDONLY | O_NONBLOCK);
	unlink(path);
	if (fd < 0)
		call_setup_failed();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	call_ready();
	return call_errno(open(path, O_RDONLY));
}

/* pause(2) itself: some arches have none, and libc sigsuspend()s */
static int call_pause(struct call_env *e __maybe_unused)
{
#ifdef __NR_pause
	call_ready();
	return call_errno(syscall(__NR_pause));
#else
	call_say('u');
	_exit(1);
#endif
}

static int call_nanosleep(struct call_env *e __maybe_unused)
{
	struct timespec ts = { 3600, 0 };

	call_ready();
	return call_errno(nanosleep(&ts, NULL));
}

/* Our CPU time does not run while we sleep: kernel/time/posix-cpu-timers.c */
static int call_clock_nanosleep_cpu(struct call_env *e __maybe_unused)
{
	struct timespec ts = { 3600, 0 };

	call_ready();
	return clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &ts, NULL);
}

static int call_select(struct call_env *e __maybe_unused)
{
	int fds[2];
	fd_set rd;

	if (pipe(fds))
		call_setup_failed();
	FD_ZERO(&rd);
	FD_SET(fds[0], &rd);
	call_ready();
	return call_errno(select(fds[0] + 1, &rd, NULL, NULL, NULL));
}

static int call_poll(struct call_env *e __maybe_unused)
{
	struct pollfd p = { .events = POLLIN };
	int fds[2];

	if (pipe(fds))
		call_setup_failed();
	p.fd = fds[0];
	call_ready();
	return call_errno(poll(&p, 1, -1));
}

static int call_epoll_wait(struct call_env *e __maybe_unused)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fds[2], ep;

	ep = epoll_create1(0);
	if (ep < 0 || pipe(fds) || epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev))
		call_setup_failed();
	call_ready();
	return call_errno(epoll_wait(ep, &ev, 1, -1));
}

static int call_futex_wait(struct call_env *e __maybe_unused)
{
	int word = 0;

	call_ready();
	return call_errno(syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0,
				  NULL, NULL, 0));
}

static int call_futex_waitv(struct call_env *e __maybe_unused)
{
	struct futex_waitv w = { .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG };
	int word = 0;

	w.uaddr = (unsigned long)&word;
	call_ready();
	return call_errno(syscall(__NR_futex_waitv, &w, 1, 0, NULL,
				  CLOCK_MONOTONIC));
}

/* The parent owns the futex; kernel/futex/pi.c restarts on a signal. */
static int call_futex_lock_pi(struct call_env *e)
{
	call_ready();
	return call_errno(syscall(SYS_futex, &e->futex, FUTEX_LOCK_PI, 0, NULL,
				  NULL, 0));
}

/* A child that outlives us by no more than a moment. */
static pid_t call_grandchild(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	if (pid < 0)
		call_setup_failed();
	return pid;
}

static int call_wait4(struct call_env *e __maybe_unused)
{
	pid_t pid = call_grandchild();

	call_ready();
	return call_errno(wait4(pid, NULL, 0, NULL));
}

static int call_sigsuspend(struct call_env *e __maybe_unused)
{
	sigset_t none;

	sigemptyset(&none);
	call_ready();
	return call_errno(sigsuspend(&none));
}

/* Waits for SIGUSR2; SIGUSR1 interrupts it. */
static int call_sigtimedwait(struct call_env *e __maybe_unused)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		call_setup_failed();
	call_ready();
	return call_errno(syscall(SYS_rt_sigtimedwait, &set, NULL, NULL,
				  _NSIG / 8));
}

/* flock() is per open file: open the parent's file anew. */
static int call_flock(struct call_env *e)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", e->file);
	fd = open(path, O_RDWR);
	if (fd < 0)
		call_setup_failed();
	call_ready();
	return call_errno(flock(fd, LOCK_EX));
}

static int call_fcntl_setlkw(struct call_env *e)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	call_ready();
	return call_errno(fcntl(e->file, F_SETLKW, &fl));
}

static int call_eventfd_read(struct call_env *e __maybe_unused)
{
	int fd = eventfd(0, 0);
	uint64_t v;

	if (fd < 0)
		call_setup_failed();
	call_ready();
	return call_errno(read(fd, &v, sizeof(v)));
}

/* A write the count cannot take: it waits for a read. */
static int call_eventfd_write(struct call_env *e __maybe_unused)
{
	uint64_t v = ~0ULL - 1;
	int fd = eventfd(0, 0);

	if (fd < 0 || write(fd, &v, sizeof(v)) != sizeof(v))
		call_setup_failed();
	v = 1;
	call_ready();
	return call_errno(write(fd, &v, sizeof(v)));
}

static int call_signalfd_read(struct call_env *e __maybe_unused)
{
	struct signalfd_siginfo si;
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		call_setup_failed();
	fd = signalfd(-1, &set, 0);
	if (fd < 0)
		call_setup_failed();
	call_ready();
	return call_errno(read(fd, &si, sizeof(si)));
}

static int call_timerfd_read(struct call_env *e __maybe_unused)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	uint64_t v;

	if (fd < 0)
		call_setup_failed();
	call_ready();
	return call_errno(read(fd, &v, sizeof(v)));
}

/* The parent of a vfork() child that does not exit: kernel/fork.c */
static int call_vfork(struct call_env *e __maybe_unused)
{
	pid_t pid;

	call_ready();
	pid = vfork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return call_errno(pid);
}

static int call_msgrcv(struct call_env *e)
{
	struct {
		long type;
		char text[1];
	} msg;

	if (e->msqid < 0)
		e->msqid = msgget(IPC_PRIVATE, 0600);
	if (e->msqid < 0)
		call_setup_failed();
	call_ready();
	return call_errno(msgrcv(e->msqid, &msg, sizeof(msg.text), 0, 0));
}

/* The queue filled up to its msg_qbytes first. */
static int call_msgsnd(struct call_env *e)
{
	struct {
		long type;
		char text[1024];
	} msg = { .type = 1 };

	if (e->msqid < 0)
		e->msqid = msgget(IPC_PRIVATE, 0600);
	if (e->msqid < 0)
		call_setup_failed();
	while (!msgsnd(e->msqid, &msg, sizeof(msg.text), IPC_NOWAIT))
		;
	if (errno != EAGAIN)
		call_setup_failed();
	call_ready();
	return call_errno(msgsnd(e->msqid, &msg, sizeof(msg.text), 0));
}

static int call_semop(struct call_env *e)
{
	struct sembuf down = { .sem_op = -1 };

	if (e->semid < 0)
		e->semid = semget(IPC_PRIVATE, 1, 0600);
	if (e->semid < 0)
		call_setup_failed();
	call_ready();
	return call_errno(semop(e->semid, &down, 1));
}

/* Through syscall(): the name is gone at once, and no -lrt. */
static int call_mq_receive(struct call_env *e __maybe_unused)
{
	char name[32], buf[8192];
	int fd;

	snprintf(name, sizeof(name), "sched_state.%d", getpid());
	fd = syscall(SYS_mq_open, name, O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	if (fd < 0)
		call_setup_failed();
	syscall(SYS_mq_unlink, name);
	call_ready();
	return call_errno(syscall(SYS_mq_timedreceive, fd, buf, sizeof(buf),
				  NULL, NULL));
}

static int call_unix_recv(struct call_env *e __maybe_unused)
{
	int fds[2];
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		call_setup_failed();
	call_ready();
	return call_errno(recv(fds[0], &c, 1, 0));
}

/* A send the peer's full queue has no room for. */
static int call_unix_send(struct call_env *e __maybe_unused)
{
	char buf[4096] = "";
	int fds[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
		call_setup_failed();
	while (send(fds[0], buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	if (errno != EAGAIN)
		call_setup_failed();
	call_ready();
	return call_errno(send(fds[0], buf, sizeof(buf), 0));
}

/* An abstract address, as for accept(), bound once. */
static socklen_t call_unix_address(struct sockaddr_un *sun, char tag)
{
	sun->sun_family = AF_UNIX;
	return offsetof(struct sockaddr_un, sun_path) + 1 +
	       snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
			"sched_state.%c%d", tag, getpid());
}

/* A listener with a backlog of 0 and one connection already queued. */
static int call_unix_connect(struct call_env *e __maybe_unused)
{
	struct sockaddr_un sun;
	socklen_t len = call_unix_address(&sun, 'c');
	static int fd = -1;
	int c;

	if (fd < 0) {
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || c < 0 || bind(fd, (struct sockaddr *)&sun, len) ||
		    listen(fd, 0) || connect(c, (struct sockaddr *)&sun, len))
			call_setup_failed();
	}
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0)
		call_setup_failed();
	call_ready();
	return call_errno(connect(c, (struct sockaddr *)&sun, len));
}

static int call_unix_accept(struct call_env *e __maybe_unused)
{
	struct sockaddr_un sun;
	socklen_t len = call_unix_address(&sun, 'a');
	static int fd = -1;

	if (fd < 0) {
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len) ||
		    listen(fd, 1))
			call_setup_failed();
	}
	call_ready();
	return call_errno(accept(fd, NULL, NULL));
}

static int call_inotify_read(struct call_env *e __maybe_unused)
{
	char buf[256];
	int fd = inotify_init1(0);

	if (fd < 0)
		call_setup_failed();
	call_ready();
	return call_errno(read(fd, buf, sizeof(buf)));
}

FIXTURE(call) {
	pid_t pid;
	pid_t pgrp;		/* its process group: it and what it started */
	int report;		/* the child's reports */
	struct call_env *env;	/* shared with it */
};

/* What a row needs of the kernel, by a file of /proc it brings. */
struct call_need {
	const char *path;
	const char *why;
};

static const struct call_need sysvipc = {
	"/proc/sysvipc", "needs CONFIG_SYSVIPC"
};

static const struct call_need mqueue = {
	"/proc/sys/fs/mqueue", "needs CONFIG_POSIX_MQUEUE"
};

static const struct call_need unix_sockets = {
	"/proc/net/unix", "needs CONFIG_UNIX"
};

static const struct call_need inotify = {
	"/proc/sys/fs/inotify", "needs CONFIG_INOTIFY_USER"
};

FIXTURE_VARIANT(call) {
	int (*block)(struct call_env *e);
	char letter;
	enum call_signal signal;
	const struct call_need *needs;
};

/* One row a call: its function, the letter, a signal's effect, needs */
FIXTURE_VARIANT_ADD(call, pipe_read) { call_pipe_read, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, pipe_write) { call_pipe_write, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, fifo_open) { call_fifo_open, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, splice) { call_splice, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, pause) { call_pause, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, nanosleep) { call_nanosleep, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, clock_nanosleep_cpu) { call_clock_nanosleep_cpu, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, select) { call_select, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, poll) { call_poll, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, epoll_wait) { call_epoll_wait, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, futex_wait) { call_futex_wait, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, futex_waitv) { call_futex_waitv, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, futex_lock_pi) { call_futex_lock_pi, 'S', CALL_RESTARTS, NULL };
FIXTURE_VARIANT_ADD(call, wait4) { call_wait4, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, sigsuspend) { call_sigsuspend, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, sigtimedwait) { call_sigtimedwait, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, flock) { call_flock, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, fcntl_setlkw) { call_fcntl_setlkw, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, eventfd_read) { call_eventfd_read, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, eventfd_write) { call_eventfd_write, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, signalfd_read) { call_signalfd_read, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, timerfd_read) { call_timerfd_read, 'S', CALL_ENDS, NULL };
FIXTURE_VARIANT_ADD(call, vfork) { call_vfork, 'D', CALL_SLEEPS, NULL };
FIXTURE_VARIANT_ADD(call, msgrcv) { call_msgrcv, 'S', CALL_ENDS, &sysvipc };
FIXTURE_VARIANT_ADD(call, msgsnd) { call_msgsnd, 'S', CALL_ENDS, &sysvipc };
FIXTURE_VARIANT_ADD(call, semop) { call_semop, 'S', CALL_ENDS, &sysvipc };
FIXTURE_VARIANT_ADD(call, mq_receive) { call_mq_receive, 'S', CALL_ENDS, &mqueue };
FIXTURE_VARIANT_ADD(call, unix_recv) { call_unix_recv, 'S', CALL_ENDS, &unix_sockets };
FIXTURE_VARIANT_ADD(call, unix_send) { call_unix_send, 'S', CALL_ENDS, &unix_sockets };
FIXTURE_VARIANT_ADD(call, unix_connect) { call_unix_connect, 'S', CALL_ENDS, &unix_sockets };
FIXTURE_VARIANT_ADD(call, unix_accept) { call_unix_accept, 'S', CALL_ENDS, &unix_sockets };
FIXTURE_VARIANT_ADD(call, inotify_read) { call_inotify_read, 'S', CALL_ENDS, &inotify };

FIXTURE_SETUP(call)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct call_env *e;

	self->report = -1;
	if (variant->needs && access(variant->needs->path, F_OK))
		SKIP(return, "%s", variant->needs->why);
	e = mmap(NULL, sizeof(*e), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(e != MAP_FAILED);
	self->env = e;
	e->futex = syscall(SYS_gettid);
	e->msqid = -1;
	e->semid = -1;
	e->file = syscall(__NR_memfd_create, "sched_state", 0);
	ASSERT_LE(0, e->file);
	ASSERT_EQ(0, fcntl(e->file, F_SETLK, &fl));
	ASSERT_EQ(0, flock(e->file, LOCK_EX));
}

FIXTURE_TEARDOWN(call)
{
	struct call_env *e = self->env;

	/* with what it started: a vfork() parent ends with its child */
	if (self->pgrp > 0)
		kill(-self->pgrp, SIGKILL);
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		reaped(self->pid);
	}
	if (self->report >= 0)
		close(self->report);
	if (!e)
		return;
	if (e->msqid >= 0)
		msgctl(e->msqid, IPC_RMID, NULL);
	if (e->semid >= 0)
		semctl(e->semid, 0, IPC_RMID);
	close(e->file);
	munmap(e, sizeof(*e));
}

/* Keep @report as fd 3 and the file as fd 4, nothing else of ours. */
static void call_fds(int report, struct call_env *e)
{
	int fd = open("/dev/null", O_RDWR);
	int r = fcntl(report, F_DUPFD, 10), f = fcntl(e->file, F_DUPFD, 10);

	if (fd < 0 || r < 0 || f < 0 || dup2(fd, 0) || dup2(fd, 1) != 1 ||
	    dup2(fd, 2) != 2 || dup2(r, 3) != 3 || dup2(f, 4) != 4)
		_exit(1);
	call_fd = 3;
	e->file = 4;
#ifdef __NR_close_range
	if (!syscall(__NR_close_range, 5, ~0U, 0))
		return;
#endif
	for (fd = 5; fd < 1024; fd++)
		close(fd);
}

/* Block in the call, report how it ended, and block again. */
static void call_child(int (*block)(struct call_env *e), int report,
		       struct call_env *e)
{
	struct sigaction sa = { .sa_handler = call_handler };

	setpgid(0, 0);
	prctl(PR_SET_NAME, CALL_COMM);
	call_fds(report, e);
	if (sigaction(SIGUSR1, &sa, NULL))
		_exit(1);
	for (;;)
		call_say(block(e) == EINTR ? 'i' : 'o');
}

/* The child reports that it blocks, and sleeps in the row's letter. */
static bool call_blocks(struct __test_metadata *_metadata, pid_t pid,
			int report, char letter)
{
	char c = child_report(report, SETTLE_MS);

	if (c == 'u')
		SKIP(return false, "no such system call here");
	ASSERT_EQ('r', c) TH_LOG("set-up failed");
	ASSERT_EQ(letter, wait_asleep(pid));
	ASSERT_EQ(letter, status_letter(pid));
	return true;
}

/*
 * A caught signal, without SA_RESTART, ends an S sleep with EINTR (or the
 * call restarts it), and wakes no D sleeper: its voluntary switches stay.
 * Sent once the child is asleep in the call, its switches settled: a
 * signal that came first would end the call without a wakeup.
 */
static void call_signal(struct __test_metadata *_metadata, pid_t pid,
			int report, char letter, enum call_signal what)
{
	long n = settled_switches(pid, letter);

	ASSERT_LE(0, n);
	ASSERT_EQ(0, kill(pid, SIGUSR1));
	switch (what) {
	case CALL_ENDS:
		ASSERT_EQ('h', child_report(report, CALL_MS));
		ASSERT_EQ('i', child_report(report, CALL_MS));
		/* and blocks again, for SIGKILL */
		call_blocks(_metadata, pid, report, letter);
		break;
	case CALL_RESTARTS:
		ASSERT_EQ('h', child_report(report, CALL_MS));
		ASSERT_LE(0, settled_switches(pid, letter));
		ASSERT_EQ(0, child_report(report, 0));
		break;
	case CALL_SLEEPS:
		ASSERT_EQ(0, child_report(report, CALL_WATCH_MS));
		ASSERT_EQ(n, settled_switches(pid, letter))
			TH_LOG("woken and asleep again");
		break;
	}
}

/*
 * One child per row, for the time it takes: asleep in the call it shows
 * the row's letter in /proc/PID/stat and status; a caught signal does
 * what the row says; SIGKILL ends the sleep.
 */
TEST_F(call, sleep)
{
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		close(fds[0]);
		call_child(variant->block, fds[1], self->env);
	}
	setpgid(self->pid, self->pid);
	self->pgrp = self->pid;
	close(fds[1]);
	self->report = fds[0];
	if (!call_blocks(_metadata, self->pid, self->report, variant->letter))
		return;
	call_signal(_metadata, self->pid, self->report, variant->letter,
		    variant->signal);
	ASSERT_EQ(0, kill(self->pid, SIGKILL));
	expect_signalled(_metadata, &self->pid, SIGKILL);
}

/*
 * Job control and ptrace, as a parent and a tracer see them: a pausing
 * child, named JOBCTL_COMM, that each check stops, traces or continues.
 * Every wait polls with a deadline: a kernel that never reports a stop
 * fails the check, not the harness's timeout.
 */
#define JOBCTL_COMM	"sched_state_jc"

FIXTURE(jobctl) {
	pid_t pid;
	bool traced;
};

FIXTURE_SETUP(jobctl)
{
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (self->pid == 0) {
		prctl(PR_SET_NAME, JOBCTL_COMM);
		detach_fds(-1);
		for (;;)
			pause();
	}
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));
}

FIXTURE_TEARDOWN(jobctl)
{
	if (self->pid <= 0)
		return;
	kill(self->pid, SIGKILL);
	kill(self->pid, SIGCONT);
	if (self->traced)
		ptrace(PTRACE_DETACH, self->pid, 0, 0);
	reaped(self->pid);
}

/* waitpid() with @flags, polled until it reports, for SETTLE_MS at most. */
static pid_t wait_report(pid_t pid, int *status, int flags)
{
	pid_t ret = 0;
	int ms;

	for (ms = 0; ms < SETTLE_MS && !ret; ms++) {
		ret = waitpid(pid, status, flags | WNOHANG);
		if (!ret)
			sleep_ms(1);
	}
	return ret;
}

/* The parent's wait(WUNTRACED) reports a group stop: kernel/exit.c */
TEST_F(jobctl, stop_reported)
{
	int status = 0;

	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGSTOP, WSTOPSIG(status));
}

/* wait(WCONTINUED) reports the SIGCONT that ended a stop. */
TEST_F(jobctl, continued_reported)
{
	int status = 0;

	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, WUNTRACED));
	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, WCONTINUED));
	ASSERT_TRUE(WIFCONTINUED(status));
}

/*
 * Seize the child; PTRACE_INTERRUPT makes it trap, and the tracer sees it.
 * False if seizing is forbidden.
 */
static bool jobctl_trap(struct __test_metadata *_metadata, pid_t pid,
			bool *traced, long options)
{
	int status = 0;

	if (!seize(_metadata, pid, options))
		return false;
	*traced = true;
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	ASSERT_EQ(pid, wait_report(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);
	return true;
}

/* PTRACE_INTERRUPT wakes the tracee from pause() into a trap, shown t. */
TEST_F(jobctl, interrupt_traps)
{
	if (!jobctl_trap(_metadata, self->pid, &self->traced, 0))
		SKIP(return, PTRACE_FORBIDDEN);
	ASSERT_EQ('t', wait_for_letter(self->pid, 't'));
}

/*
 * A tracee asleep in pause() under PTRACE_SYSCALL, killed: its way out
 * passes the syscall-exit stop, which ptrace_stop() must not enter with
 * SIGKILL pending (kernel/signal.c); it dies, and reports no stop.
 */
TEST_F(jobctl, sigkill_skips_syscall_stop)
{
	int status = 0;

	if (!jobctl_trap(_metadata, self->pid, &self->traced,
			 PTRACE_O_TRACESYSGOOD))
		SKIP(return, PTRACE_FORBIDDEN);
	/* pause() restarts: a syscall-entry stop, then asleep in it */
	ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, self->pid, 0, 0));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP | 0x80, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, self->pid, 0, 0));
	ASSERT_EQ('S', wait_asleep(self->pid));
	ASSERT_EQ(0, kill(self->pid, SIGKILL));
	expect_signalled(_metadata, &self->pid, SIGKILL);
}

/*
 * A seized task in a group stop: PTRACE_LISTEN leaves it stopped, hidden
 * from wait; SIGCONT re-traps it (kernel/signal.c ptrace_trap_notify()),
 * and the tracer sees that.
 */
TEST_F(jobctl, listen_then_sigcont)
{
	int status = 0;

	if (!seize(_metadata, self->pid, 0))
		SKIP(return, PTRACE_FORBIDDEN);
	self->traced = true;
	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_EQ(SIGSTOP, WSTOPSIG(status));	/* signal-delivery stop */
	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->pid, 0, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);	/* group-stop trap */
	ASSERT_EQ(0, ptrace(PTRACE_LISTEN, self->pid, 0, 0));
	sleep_ms(CALL_WATCH_MS);
	ASSERT_EQ('t', stat_letter(self->pid));
	ASSERT_EQ(0, waitpid(self->pid, &status, WNOHANG));
	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);
}

/* Seizing a stopped task moves it from its group stop into a trap, t. */
TEST_F(jobctl, seize_stopped_traps)
{
	int status = 0;

	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, WUNTRACED));
	ASSERT_EQ('T', wait_for_letter(self->pid, 'T'));
	if (!seize(_metadata, self->pid, 0))
		SKIP(return, PTRACE_FORBIDDEN);
	self->traced = true;
	ASSERT_EQ('t', wait_for_letter(self->pid, 't'));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);
}

/*
 * Reports of a task's state beyond its letter, each read for a task asleep
 * in pause() (S) and for one spinning in user space (R): the wchan flag of
 * /proc/PID/stat (field 35) and the symbol of /proc/PID/wchan
 * (fs/proc/array.c, fs/proc/base.c, get_wchan() in kernel/sched/core.c),
 * and a thread's own /proc/PID/task/TID/stat and status, while its thread
 * group leader does the opposite.
 */

#define REPORT_STACK	(64 * 1024)

/* The contents of @path; 0 or -errno. */
static int report_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Field @field (3: the state) of a stat file, after the comm. */
static int report_stat_field(const char *path, int field, char *buf,
			     size_t len)
{
	char stat[512], *p;
	int ret = report_file(path, stat, sizeof(stat));

	if (ret)
		return ret;
	p = strrchr(stat, ')');
	if (!p)
		return -EINVAL;
	for (p++; field > 3 && p; field--)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EINVAL;
	snprintf(buf, len, "%.*s", (int)strcspn(p + 1, "\n "), p + 1);
	return 0;
}

static int report_read_stat_wchan(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];

	(void)tid;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return report_stat_field(path, 35, buf, len);
}

static int report_read_wchan(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	int ret;

	(void)tid;
	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	ret = report_file(path, buf, len);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

static int report_read_thread_stat(pid_t pid, pid_t tid, char *buf,
				   size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	return report_stat_field(path, 3, buf, len);
}

static int report_read_thread_status(pid_t pid, pid_t tid, char *buf,
				     size_t len)
{
	char path[64], status[2048], *p;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	ret = report_file(path, status, sizeof(status));
	if (ret)
		return ret;
	p = strstr(status, "\nState:\t");
	if (!p)
		return -EINVAL;
	snprintf(buf, len, "%c", p[8]);
	return 0;
}

/* The asleep report "a symbol": anything but "0" and "". */
#define REPORT_SYMBOL	NULL

FIXTURE(report) {
	pid_t pid;	/* the child */
	pid_t tid;	/* its second thread, or its pid */
};

FIXTURE_VARIANT(report) {
	const char *probe;	/* a file of ours that the kernel must have */
	bool thread;		/* of a second thread, not of the leader */
	int (*read)(pid_t pid, pid_t tid, char *buf, size_t len);
	const char *asleep;	/* its report of a task asleep in pause() */
	const char *running;	/* and of one spinning in user space */
};

/* /proc/PID/stat field 35: 1 if the task is not running (wchan) */
FIXTURE_VARIANT_ADD(report, stat_wchan) {
	.probe = "/proc/self/stat",
	.read = report_read_stat_wchan,
	.asleep = "1",
	.running = "0",
};

/* /proc/PID/wchan: where the task blocked, 0 while it runs */
FIXTURE_VARIANT_ADD(report, wchan) {
	.probe = "/proc/self/wchan",
	.read = report_read_wchan,
	.asleep = REPORT_SYMBOL,
	.running = "0",
};

/* /proc/PID/task/TID/stat field 3 */
FIXTURE_VARIANT_ADD(report, thread_stat) {
	.probe = "/proc/self/task",
	.thread = true,
	.read = report_read_thread_stat,
	.asleep = "S",
	.running = "R",
};

/* /proc/PID/task/TID/status State: */
FIXTURE_VARIANT_ADD(report, thread_status) {
	.probe = "/proc/self/task",
	.thread = true,
	.read = report_read_thread_status,
	.asleep = "S",
	.running = "R",
};

FIXTURE_SETUP(report)
{
	self->pid = 0;
	if (access(variant->probe, R_OK))
		SKIP(return, "no %s", variant->probe);
}

FIXTURE_TEARDOWN(report)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
}

static char report_sleeps;

/* Asleep in pause() if @asleep is &report_sleeps, else spinning. */
static int report_act(void *asleep)
{
	if (asleep)
		for (;;)
			pause();
	for (;;)
		;
	return 0;
}

/*
 * Fork a child that sleeps (@asleep) or spins; with @thread, that is a
 * second thread's part, and the leader does the other.  The tid reaches
 * us through a pipe.
 */
static pid_t report_child(bool asleep, bool thread, pid_t *tid)
{
	static long stack[REPORT_STACK / sizeof(long)];
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		*tid = getpid();
		if (thread)
			*tid = clone(report_act, (char *)stack + sizeof(stack),
				     CLONE_VM | CLONE_FS | CLONE_FILES |
				     CLONE_SIGHAND | CLONE_THREAD |
				     CLONE_SYSVSEM,
				     asleep ? &report_sleeps : NULL);
		if (write(fds[1], tid, sizeof(*tid)) != sizeof(*tid))
			_exit(1);
		detach_fds(-1);
		report_act(thread != asleep ? &report_sleeps : NULL);
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], tid, sizeof(*tid)) != sizeof(*tid))
		*tid = -1;
	close(fds[0]);
	return pid;
}

/*
 * The variant's report of the child's task within SETTLE_MS, as its
 * asleep or running line wants (REPORT_SYMBOL: a symbol); the leader of a
 * threaded child shows the opposite letter.
 */
static void report_check(struct __test_metadata *_metadata, pid_t *pid,
			 pid_t *tid, bool thread,
			 int (*read)(pid_t pid, pid_t tid, char *buf,
				     size_t len),
			 const char *want, bool asleep)
{
	char seen[128] = "", leader;
	bool match = false;
	int ms, ret = 0;

	*pid = report_child(asleep, thread, tid);
	ASSERT_LT(0, *pid);
	ASSERT_LT(0, *tid);
	/* a child on its way to pause() runs: read it once asleep */
	leader = thread != asleep ? 'S' : 'R';
	ASSERT_EQ(leader, wait_for_letter(*pid, leader));
	for (ms = 0; ms < SETTLE_MS && !match; ms++) {
		if (ms)
			sleep_ms(1);
		ret = read(*pid, *tid, seen, sizeof(seen));
		if (ret)
			break;
		match = want ? !strcmp(seen, want) :
			seen[0] && strcmp(seen, "0");
	}
	ASSERT_EQ(0, ret);
	EXPECT_TRUE(match)
		TH_LOG("%s task: \"%s\", want \"%s\"",
		       asleep ? "sleeping" : "running", seen,
		       want ? want : "a symbol");
}

TEST_F(report, asleep)
{
	report_check(_metadata, &self->pid, &self->tid, variant->thread,
		     variant->read, variant->asleep, true);
}

TEST_F(report, running)
{
	report_check(_metadata, &self->pid, &self->tid, variant->thread,
		     variant->read, variant->running, false);
}

/*
 * /proc/PID/stat field 39 is the CPU the task last ran on (task_cpu() in
 * fs/proc/array.c), not the reader's: a child asleep in pause() on our last
 * CPU, read from our others.
 */
TEST(stat_processor)
{
	char want[16], seen[16] = "", path[64];
	cpu_set_t cpus;
	pid_t pid, tid;
	int cpu;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	if (CPU_COUNT(&cpus) < 2)
		SKIP(return, "needs two CPUs");
	for (cpu = CPU_SETSIZE - 1; !CPU_ISSET(cpu, &cpus); cpu--)
		;
	ASSERT_EQ(0, pin_last_cpu(true));
	pid = report_child(true, false, &tid);
	ASSERT_LT(0, pid);
	CPU_CLR(cpu, &cpus);
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	EXPECT_EQ('S', wait_for_letter(pid, 'S'));
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	EXPECT_EQ(0, report_stat_field(path, 39, seen, sizeof(seen)));
	snprintf(want, sizeof(want), "%d", cpu);
	EXPECT_STREQ(want, seen);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * The switch counts of /proc/PID/status, the instrument of every "not
 * woken" check above: __schedule() counts a switch away from a task that
 * blocks as voluntary (nvcsw), one away from a running task, preempted,
 * as involuntary (nivcsw); getrusage() and wait4() report the same counts.
 */
#define SWITCHES_BUSY_MS	100

/* "nonvoluntary_ctxt_switches" of /proc/PID/status; -1 if gone. */
static long involuntary_switches(pid_t pid)
{
	long n;

	return status_field(pid, "nonvoluntary_ctxt_switches: %ld", &n) ?
	       n : -1;
}

FIXTURE(switches) {
	pid_t pids[2];
	int fd;		/* the write end of a pipe child's pipe */
};

FIXTURE_SETUP(switches)
{
	self->pids[0] = 0;
	self->pids[1] = 0;
	self->fd = -1;
}

FIXTURE_TEARDOWN(switches)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
	if (self->fd >= 0)
		close(self->fd);
}

/* A child that reads the pipe until it reads 'q'; *@fd: the write end. */
static pid_t switches_reader(int *fd)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		while (read(fds[0], &c, 1) == 1 && c != 'q')
			;
		_exit(0);
	}
	close(fds[0]);
	*fd = fds[1];
	return pid;
}

/* Each wakeup of a blocked reader costs it one more voluntary switch. */
TEST_F(switches, blocking_is_voluntary)
{
	long before, after;

	self->pids[0] = switches_reader(&self->fd);
	ASSERT_LT(0, self->pids[0]);
	before = settled_switches(self->pids[0], 'S');
	ASSERT_LE(0, before);
	ASSERT_EQ(1, write(self->fd, "x", 1));
	after = settled_switches(self->pids[0], 'S');
	EXPECT_LE(before + 1, after)
		TH_LOG("voluntary switches %ld before the wakeup, %ld after",
		       before, after);
}

/* wait4() reports the voluntary switches /proc showed before the exit. */
TEST_F(switches, rusage_counts_blocking)
{
	struct rusage ru;
	long seen = -1;
	int i, status;

	self->pids[0] = switches_reader(&self->fd);
	ASSERT_LT(0, self->pids[0]);
	for (i = 0; i < 3; i++) {
		seen = settled_switches(self->pids[0], 'S');
		ASSERT_LE(0, seen);
		ASSERT_EQ(1, write(self->fd, i < 2 ? "x" : "q", 1));
	}
	ASSERT_EQ(self->pids[0], wait4(self->pids[0], &status, 0, &ru));
	self->pids[0] = 0;
	ASSERT_TRUE(WIFEXITED(status));
	TH_LOG("voluntary switches: %ld in /proc, %ld from wait4()",
	       seen, (long)ru.ru_nvcsw);
	EXPECT_LE(3, seen);
	EXPECT_LE(seen, (long)ru.ru_nvcsw);
}

/* A count of /proc/PID/sched (kernel/sched/debug.c); -1 if none. */
static long proc_sched_count(pid_t pid, const char *name)
{
	char path[64], line[256], fmt[64];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	snprintf(fmt, sizeof(fmt), "%s : %%ld", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &n) != 1)
			n = -1;
	fclose(f);
	return n;
}

/* /proc/PID/sched shows a sleeper's switch counts as its status does. */
TEST_F(switches, proc_sched_agrees)
{
	long v, n, sched_v, sched_n;
	int i;

	if (access("/proc/self/sched", R_OK))
		SKIP(return, "no /proc/PID/sched");
	self->pids[0] = switches_reader(&self->fd);
	ASSERT_LT(0, self->pids[0]);
	for (i = 0; i < 3; i++) {
		v = settled_switches(self->pids[0], 'S');
		ASSERT_LE(0, v);
		if (i < 2)
			ASSERT_EQ(1, write(self->fd, "x", 1));
	}
	n = involuntary_switches(self->pids[0]);
	sched_v = proc_sched_count(self->pids[0], "nr_voluntary_switches");
	sched_n = proc_sched_count(self->pids[0], "nr_involuntary_switches");
	TH_LOG("status: %ld voluntary, %ld involuntary; sched: %ld, %ld",
	       v, n, sched_v, sched_n);
	EXPECT_LE(3, v);
	EXPECT_EQ(v, sched_v);
	EXPECT_EQ(n, sched_n);
}

/*
 * Fork two children spinning on one CPU, where they preempt each other;
 * return once both are there, the switches of their move behind them.
 */
static void spin_pinned(struct __test_metadata *_metadata, pid_t *pids)
{
	int i, fds[2];

	ASSERT_EQ(0, pipe(fds));
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			fds[1] = detach_fds(fds[1]);
			if (pin_last_cpu(true) || write(fds[1], "r", 1) != 1)
				_exit(1);
			for (;;)
				;
		}
	}
	close(fds[1]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ('r', child_report(fds[0], SETTLE_MS));
	close(fds[0]);
}

/* Two children spinning on one CPU preempt each other: involuntary. */
TEST_F(switches, preemption_is_involuntary)
{
	long v0[2], n0[2], v1[2], n1[2];
	int i;

	spin_pinned(_metadata, self->pids);
	for (i = 0; i < 2; i++) {
		v0[i] = voluntary_switches(self->pids[i]);
		n0[i] = involuntary_switches(self->pids[i]);
	}
	sleep_ms(SWITCHES_BUSY_MS);
	for (i = 0; i < 2; i++) {
		v1[i] = voluntary_switches(self->pids[i]);
		n1[i] = involuntary_switches(self->pids[i]);
		TH_LOG("child %d in %d ms: %ld voluntary, %ld involuntary switches",
		       i, SWITCHES_BUSY_MS, v1[i] - v0[i], n1[i] - n0[i]);
	}
	for (i = 0; i < 2; i++) {
		ASSERT_LE(0, v0[i]);
		ASSERT_LE(0, n0[i]);
		EXPECT_EQ(v0[i], v1[i]);
		EXPECT_LT(n0[i], n1[i]);
	}
}

/*
 * The count of tasks on a runqueue, nr_running() (kernel/sched/core.c):
 * procs_running of /proc/stat and the fourth field of /proc/loadavg.
 * Spinning children count; stopped, they are off their runqueue and no
 * longer do.  Other tasks may run meanwhile: the count is watched until it
 * has fallen by as many as were stopped.
 */
#define NR_RUNNING_BUSY		4

static long nr_running_stat(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	while (n < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "procs_running %ld", &n) != 1)
			n = -1;
	fclose(f);
	return n;
}

FIXTURE(nr_running) {
	pid_t pids[NR_RUNNING_BUSY];
};

FIXTURE_VARIANT(nr_running) {
	long (*read)(void);
};

FIXTURE_VARIANT_ADD(nr_running, proc_stat) {
	.read = nr_running_stat,
};

FIXTURE_VARIANT_ADD(nr_running, loadavg) {
	.read = nr_running_loadavg,
};

FIXTURE_SETUP(nr_running)
{
	memset(self->pids, 0, sizeof(self->pids));
}

FIXTURE_TEARDOWN(nr_running)
{
	int i;

	for (i = 0; i < NR_RUNNING_BUSY; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
}

/*
 * Wait up to SETTLE_MS for @read to give @lo to @hi; the last seen.  By
 * the clock: each read of /proc/stat walks every interrupt.
 */
static long nr_running_settles(long (*read)(void), long lo, long hi)
{
	long n = read(), end = now_ms() + SETTLE_MS;

	while ((n < lo || n > hi) && now_ms() < end) {
		sleep_ms(1);
		n = read();
	}
	return n;
}

TEST_F(nr_running, counts_runnable_only)
{
	long busy, stopped;
	int i, status;

	for (i = 0; i < NR_RUNNING_BUSY; i++) {
		self->pids[i] = fork();
		ASSERT_LE(0, self->pids[i]);
		if (self->pids[i] == 0) {
			detach_fds(-1);
			for (;;)
				;
		}
	}
	/* and we, who read */
	busy = nr_running_settles(variant->read, NR_RUNNING_BUSY + 1,
				  LONG_MAX);
	for (i = 0; i < NR_RUNNING_BUSY; i++) {
		ASSERT_EQ(0, kill(self->pids[i], SIGSTOP));
		ASSERT_EQ(self->pids[i], waitpid(self->pids[i], &status,
						 WUNTRACED));
	}
	stopped = nr_running_settles(variant->read, 0,
				     busy - NR_RUNNING_BUSY);
	TH_LOG("%ld running with %d children spinning, %ld once stopped",
	       busy, NR_RUNNING_BUSY, stopped);
	EXPECT_LE(NR_RUNNING_BUSY + 1, busy);
	EXPECT_LE(0, stopped);
	EXPECT_GE(busy - NR_RUNNING_BUSY, stopped);
}

/*
 * A task's last switch, in TASK_DEAD, puts its kernel stack
 * (finish_task_switch() in kernel/sched/core.c), which frees it.  Where
 * stacks are vmalloc()ed (CONFIG_VMAP_STACK) VmallocUsed of /proc/meminfo
 * rises with live children, and is back where it was once they are
 * reaped.  KernelStack is no witness: do_exit() takes the stack out of it.
 */
#define DEAD_CHILDREN	48
/* stacks the guest may allocate meanwhile, or keep in a CPU's cache */
#define DEAD_NOISE	16

static long vmalloc_used_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %ld kB", &kb) != 1)
			kb = -1;
	fclose(f);
	return kb;
}

TEST(dead_task_frees_stack)
{
	long before, live, after, stack_kb;
	pid_t pids[DEAD_CHILDREN];
	int i, ms, fds[2];
	char c;

	before = vmalloc_used_kb();
	ASSERT_LE(0, before);
	ASSERT_EQ(0, pipe(fds));
	for (i = 0; i < DEAD_CHILDREN; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			close(fds[1]);
			_exit(read(fds[0], &c, 1) < 0);
		}
	}
	close(fds[0]);
	live = vmalloc_used_kb();
	close(fds[1]);
	for (i = 0; i < DEAD_CHILDREN; i++)
		ASSERT_EQ(pids[i], waitpid(pids[i], NULL, 0));
	stack_kb = (live - before) / DEAD_CHILDREN;
	TH_LOG("VmallocUsed %ld kB, %ld with %d children", before, live,
	       DEAD_CHILDREN);
	if (stack_kb < 4)
		SKIP(return, "kernel stacks not vmalloc()ed");
	/* freed after an RCU grace period (kernel/fork.c) */
	after = vmalloc_used_kb();
	for (ms = 0; ms < SETTLE_MS && after > before + DEAD_NOISE * stack_kb;
	     ms++) {
		sleep_ms(1);
		after = vmalloc_used_kb();
	}
	TH_LOG("%ld kB once reaped", after);
	EXPECT_GE(before + DEAD_NOISE * stack_kb, after);
}

/*
 * The sched_switch tracepoint's prev_state, through a tracefs instance of
 * our own filtered on the children (__trace_sched_switch_state() in
 * include/trace/events/sched.h): S for a task that blocks in read(), R
 * (R+ if preempted in the kernel) for one switched out while it spins.
 */
#define SWITCH_TRACE_MS		100
#define SWITCH_EVENT		"events/sched/sched_switch"

static const char * const tracefs_roots[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

FIXTURE(sched_switch) {
	char dir[PATH_MAX];	/* our instance */
	pid_t pids[2];
	int fd;			/* the write end of the reader's pipe */
};

FIXTURE_SETUP(sched_switch)
{
	char path[PATH_MAX];
	size_t i;

	self->dir[0] = '\0';
	self->pids[0] = 0;
	self->pids[1] = 0;
	self->fd = -1;
	if (geteuid())
		SKIP(return, "needs root");
	for (i = 0; i < sizeof(tracefs_roots) / sizeof(*tracefs_roots); i++) {
		snprintf(path, sizeof(path), "%s/" SWITCH_EVENT,
			 tracefs_roots[i]);
		if (!access(path, F_OK))
			break;
	}
	if (i == sizeof(tracefs_roots) / sizeof(*tracefs_roots))
		SKIP(return, "no sched_switch tracepoint");
	snprintf(self->dir, sizeof(self->dir), "%s/instances/sched_state",
		 tracefs_roots[i]);
	/* one a killed run left behind is ours to reuse */
	if (mkdir(self->dir, 0755) && errno != EEXIST) {
		self->dir[0] = '\0';
		SKIP(return, "no tracefs instances");
	}
}

FIXTURE_TEARDOWN(sched_switch)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
	if (self->fd >= 0)
		close(self->fd);
	if (self->dir[0]) {
		cg_write(self->dir, SWITCH_EVENT "/enable", "0");
		rmdir(self->dir);
	}
}

/* Trace the switches away from @pids (the second may be 0) from now on. */
static int switch_trace_start(const char *dir, const pid_t *pids)
{
	char filter[64];
	int ret;

	snprintf(filter, sizeof(filter), "prev_pid == %d || prev_pid == %d",
		 pids[0], pids[1] ? pids[1] : pids[0]);
	ret = cg_write(dir, SWITCH_EVENT "/filter", filter);
	if (!ret)
		ret = cg_write(dir, SWITCH_EVENT "/enable", "1");
	return ret;
}

/*
 * Stop tracing; of the switches away from @pid traced, return how many
 * there were, and in *@other how many had a prev_state not @state (a
 * prefix, as "R" for R and R+).
 */
static int switch_trace_count(const char *dir, pid_t pid, const char *state,
			      int *other)
{
	char path[PATH_MAX + 8], line[512], prev[32], want[32], *p;
	int n = 0;
	FILE *f;

	*other = 0;
	if (cg_write(dir, SWITCH_EVENT "/enable", "0"))
		return -1;
	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(prev, sizeof(prev), " prev_pid=%d ", pid);
	snprintf(want, sizeof(want), "prev_state=%s", state);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, prev))
			continue;
		p = strstr(line, "prev_state=");
		if (!p)
			continue;
		n++;
		if (strncmp(p, want, strlen(want)))
			(*other)++;
	}
	fclose(f);
	return n;
}

/* A reader woken from its read() blocks again: prev_state=S. */
TEST_F(sched_switch, blocking_is_S)
{
	int n, other;

	self->pids[0] = switches_reader(&self->fd);
	ASSERT_LT(0, self->pids[0]);
	ASSERT_LE(0, settled_switches(self->pids[0], 'S'));
	ASSERT_EQ(0, switch_trace_start(self->dir, self->pids));
	ASSERT_EQ(1, write(self->fd, "x", 1));
	ASSERT_LE(0, settled_switches(self->pids[0], 'S'));
	n = switch_trace_count(self->dir, self->pids[0], "S ", &other);
	TH_LOG("%d switches away from the reader, %d not in S", n, other);
	/* it may also be preempted on its way back to read() */
	EXPECT_LT(0, n - other);
}

/* Spinning children switched out for each other: prev_state=R. */
TEST_F(sched_switch, spinning_is_R)
{
	int i, n, other;

	spin_pinned(_metadata, self->pids);
	ASSERT_EQ(0, switch_trace_start(self->dir, self->pids));
	sleep_ms(SWITCH_TRACE_MS);
	for (i = 0; i < 2; i++) {
		n = switch_trace_count(self->dir, self->pids[i], "R", &other);
		TH_LOG("%d switches away from child %d, %d not in R",
		       n, i, other);
		EXPECT_LT(0, n);
		EXPECT_EQ(0, other);
	}
}

/*
 * A process of several threads, as signals and job control see it: a
 * child named THREADS_COMM whose leader and THREADS - 1 threads of its
 * clone(CLONE_THREAD) sleep in pause().  Each thread's letter is read in
 * /proc/PID/task/TID/stat; a thread whose handler runs writes its index,
 * '0' for the leader, on the child's fd 3.
 */
#define THREADS_COMM	"sched_state_mt"
#define THREADS		3
#define THREADS_STACK	(64 * 1024)
#define THREADS_EXIT	3

enum threads_how {
	THREADS_PAUSE,	/* SIGUSR1 reports */
	THREADS_BLOCK,	/* the leader blocks SIGUSR1 */
	THREADS_EXITS,	/* SIGUSR1 makes the thread that takes it exit_group() */
	THREADS_HOLD,	/* see threads.block_retargets */
};

/* threads.dump_waits_idle dumps to a helper that reads nothing */
#define CORE_PATTERN	"/proc/sys/kernel/core_pattern"
#define CORE_SINK	"|/bin/sleep 3"

FIXTURE(threads) {
	pid_t pid;
	pid_t tids[THREADS];
	pid_t vfork;
	int report;
};

FIXTURE_SETUP(threads)
{
	self->report = -1;
}

static char threads_core_pattern[256];

FIXTURE_TEARDOWN(threads)
{
	char buf[sizeof(threads_core_pattern)];

	if (threads_core_pattern[0])
		sysctl_rw(CORE_PATTERN, buf, sizeof(buf), threads_core_pattern);
	threads_core_pattern[0] = '\0';
	if (self->report >= 0)
		close(self->report);
	if (self->vfork > 0)
		kill(self->vfork, SIGKILL);
	if (self->pid <= 0)
		return;
	kill(self->pid, SIGKILL);
	kill(self->pid, SIGCONT);
	reaped(self->pid);
}

/* What the child's threads and handlers share */
static enum threads_how threads_how;
static pid_t threads_tids[THREADS];
static int threads_started, threads_reported;
static int threads_fd;
static char threads_vforks;

static void threads_signalled(int sig __maybe_unused)
{
	pid_t tid = syscall(SYS_gettid);
	char c = '0';

	if (threads_how == THREADS_EXITS)
		_exit(THREADS_EXIT);
	while (c < '0' + THREADS && threads_tids[c - '0'] != tid)
		c++;
	__atomic_store_n(&threads_reported, 1, __ATOMIC_RELEASE);
	if (write(threads_fd, &c, 1) != 1)
		_exit(1);
}

/* SIGUSR1 of THREADS_HOLD: SIGUSR2 blocked until another thread took it */
static void threads_hold(int sig)
{
	int ms;

	(void)sig;
	for (ms = 0; ms < SETTLE_MS / 2 &&
	     !__atomic_load_n(&threads_reported, __ATOMIC_ACQUIRE); ms++)
		sleep_ms(1);
}

static int threads_act(void *arg)
{
	pid_t pid;

	/* THREADS_HOLD's first thread: asleep in D, as a vfork() parent */
	if (arg) {
		while (!__atomic_load_n(&threads_started, __ATOMIC_ACQUIRE))
			sleep_ms(1);
		pid = vfork();
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			pid = getpid();
			if (write(threads_fd, &pid, sizeof(pid)) != sizeof(pid))
				_exit(1);
			for (;;)
				pause();
		}
	}
	for (;;)
		pause();
	return 0;
}

static void threads_child(int fd)
{
	static long stacks[THREADS][THREADS_STACK / sizeof(long)];
	struct sigaction sa = { .sa_handler = threads_signalled };
	struct sigaction hold = { .sa_handler = threads_hold };
	int i, sig = threads_how == THREADS_HOLD ? SIGUSR2 : SIGUSR1;
	size_t len = sizeof(threads_tids);
	sigset_t set;

	prctl(PR_SET_NAME, THREADS_COMM);
	threads_fd = detach_fds(fd);
	sigemptyset(&hold.sa_mask);
	sigaddset(&hold.sa_mask, SIGUSR2);
	if (sigaction(sig, &sa, NULL) ||
	    (sig == SIGUSR2 && sigaction(SIGUSR1, &hold, NULL)))
		_exit(1);
	threads_tids[0] = getpid();
	for (i = 1; i < THREADS; i++) {
		threads_tids[i] = clone(threads_act,
					(char *)stacks[i] + sizeof(stacks[i]),
					CLONE_VM | CLONE_FS | CLONE_FILES |
					CLONE_SIGHAND | CLONE_THREAD |
					CLONE_SYSVSEM,
					i == 1 && sig == SIGUSR2 ?
					&threads_vforks : NULL);
		if (threads_tids[i] < 0)
			_exit(1);
	}
	/* the others are made: what the leader blocks is its own */
	sigemptyset(&set);
	sigaddset(&set, sig);
	if ((threads_how == THREADS_BLOCK || threads_how == THREADS_HOLD) &&
	    sigprocmask(SIG_BLOCK, &set, NULL))
		_exit(1);
	if (write(threads_fd, threads_tids, len) != (ssize_t)len)
		_exit(1);
	__atomic_store_n(&threads_started, 1, __ATOMIC_RELEASE);
	threads_act(NULL);
}

/*
 * Start the child as @how says; its tids, the leader's first, reach us
 * on the pipe that then carries its handlers' reports.
 */
static void threads_start(struct __test_metadata *_metadata, pid_t *pid,
			  pid_t *tids, int *report, enum threads_how how)
{
	int fds[2];

	ASSERT_EQ(0, pipe(fds));
	threads_how = how;
	*pid = fork();
	ASSERT_LE(0, *pid);
	if (*pid == 0) {
		close(fds[0]);
		threads_child(fds[1]);
	}
	close(fds[1]);
	*report = fds[0];
	ASSERT_EQ((ssize_t)(THREADS * sizeof(*tids)),
		  read(*report, tids, THREADS * sizeof(*tids)));
}

/* Wait until thread @tid of @pid shows @want; return the last letter seen. */
static char wait_thread_letter(pid_t pid, pid_t tid, char want)
{
	char path[64], seen[8] = "";
	int ms;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	for (ms = 0; ms < SETTLE_MS; ms++) {
		if (report_stat_field(path, 3, seen, sizeof(seen)))
			return 0;
		if (seen[0] == want)
			break;
		sleep_ms(1);
	}
	return seen[0];
}

/* Every thread of the child shows @want, within SETTLE_MS. */
static void expect_threads(struct __test_metadata *_metadata, pid_t pid,
			   pid_t *tids, char want)
{
	char seen;
	int i;

	for (i = 0; i < THREADS; i++) {
		seen = wait_thread_letter(pid, tids[i], want);
		ASSERT_EQ(want, seen) TH_LOG("thread %d (0: the leader)", i);
	}
}

/*
 * While a thread dumps core, the others wait for it in coredump_task_exit()
 * in TASK_IDLE | TASK_FREEZABLE, shown I, not D: a slow dump is not a hung
 * task (kernel/exit.c, since v6.12).  SIGQUIT goes to the leader, which
 * dumps into CORE_SINK; sched_state.sh restores core_pattern if killed.
 */
TEST_F(threads, dump_waits_idle)
{
	int i;

	if (geteuid())
		SKIP(return, "needs root");
	if (!ksft_min_kernel_version(6, 12))
		SKIP(return, "a dump's threads wait in D before v6.12");
	if (access(CORE_PATTERN, W_OK))
		SKIP(return, "needs CONFIG_COREDUMP");
	if (access("/bin/sleep", X_OK))
		SKIP(return, "no /bin/sleep");
	ASSERT_EQ(0, sysctl_rw(CORE_PATTERN, threads_core_pattern,
			       sizeof(threads_core_pattern), CORE_SINK));
	threads_start(_metadata, &self->pid, self->tids, &self->report,
		      THREADS_PAUSE);
	expect_threads(_metadata, self->pid, self->tids, 'S');
	ASSERT_EQ(0, kill(self->pid, SIGQUIT));
	for (i = 1; i < THREADS; i++)
		EXPECT_EQ('I', wait_thread_letter(self->pid, self->tids[i], 'I'))
			TH_LOG("thread %d", i);
}

/*
 * SIGSTOP to the process stops every thread: the one that takes it asks
 * the others to stop (kernel/signal.c do_signal_stop()), each shows T,
 * and the parent hears of the stop once all are; SIGCONT wakes each.
 */
TEST_F(threads, sigstop_stops_all)
{
	int status = 0;

	threads_start(_metadata, &self->pid, self->tids, &self->report,
		      THREADS_PAUSE);
	expect_threads(_metadata, self->pid, self->tids, 'S');
	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	expect_threads(_metadata, self->pid, self->tids, 'T');
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	expect_threads(_metadata, self->pid, self->tids, 'S');
}

/*
 * A signal to the process goes to a thread that does not block it, and
 * wakes it (kernel/signal.c wants_signal(), complete_signal()): the
 * leader blocks SIGUSR1, another thread's handler runs.
 */
TEST_F(threads, signal_skips_blocker)
{
	char c;

	threads_start(_metadata, &self->pid, self->tids, &self->report,
		      THREADS_BLOCK);
	expect_threads(_metadata, self->pid, self->tids, 'S');
	ASSERT_EQ(0, kill(self->pid, SIGUSR1));
	c = child_report(self->report, SETTLE_MS);
	ASSERT_TRUE(c > '0' && c < '0' + THREADS) TH_LOG("report '%c'", c);
	expect_threads(_metadata, self->pid, self->tids, 'S');
}

/*
 * Nor does it go to a thread in a ptrace stop (kernel/signal.c
 * wants_signal()): the leader, seized, stops at the entry of the pause()
 * it restarts, with no signal pending; another thread takes it.
 */
TEST_F(threads, signal_skips_traced)
{
	int status = 0;
	char c;

	threads_start(_metadata, &self->pid, self->tids, &self->report,
		      THREADS_PAUSE);
	expect_threads(_metadata, self->pid, self->tids, 'S');
	if (!seize(_metadata, self->pid, PTRACE_O_TRACESYSGOOD))
		SKIP(return, PTRACE_FORBIDDEN);
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, self->pid, 0, 0));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);
	ASSERT_EQ(0, ptrace(PTRACE_SYSCALL, self->pid, 0, 0));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP | 0x80, WSTOPSIG(status));
	ASSERT_EQ('t', wait_thread_letter(self->pid, self->tids[0], 't'));
	ASSERT_EQ(0, kill(self->pid, SIGUSR1));
	c = child_report(self->report, SETTLE_MS);
	ASSERT_TRUE(c > '0' && c < '0' + THREADS) TH_LOG("report '%c'", c);
	ASSERT_EQ('t', stat_letter(self->pid));
}

/*
 * The thread that exits the process kills the others, asleep in pause()
 * (kernel/signal.c zap_other_threads()): the process ends, with its code.
 */
TEST_F(threads, exit_ends_all)
{
	int status = 0;

	threads_start(_metadata, &self->pid, self->tids, &self->report,
		      THREADS_EXITS);
	expect_threads(_metadata, self->pid, self->tids, 'S');
	ASSERT_EQ(0, kill(self->pid, SIGUSR1));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0))
		TH_LOG("thread 1 in %c", stat_letter(self->tids[1]));
	self->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(THREADS_EXIT, WEXITSTATUS(status));
}

/*
 * A thread that blocks a signal of its process, pending for it, hands it
 * to a thread that can take it, and wakes that one (kernel/signal.c
 * retarget_shared_pending()).  The leader blocks SIGUSR2; thread 1, asleep
 * in D as a vfork() parent, is chosen for SIGUSR2 but not woken, and gets
 * a SIGUSR1 of its own; when the vfork ends, the SIGUSR1 handler blocks
 * SIGUSR2 and holds: thread 2 must take SIGUSR2.
 */
TEST_F(threads, block_retargets)
{
	char c;

	threads_start(_metadata, &self->pid, self->tids, &self->report,
		      THREADS_HOLD);
	ASSERT_EQ((ssize_t)sizeof(self->vfork),
		  read(self->report, &self->vfork, sizeof(self->vfork)));
	ASSERT_EQ('D', wait_thread_letter(self->pid, self->tids[1], 'D'));
	ASSERT_EQ('S', wait_thread_letter(self->pid, self->tids[0], 'S'));
	ASSERT_EQ('S', wait_thread_letter(self->pid, self->tids[2], 'S'));
	ASSERT_EQ(0, kill(self->pid, SIGUSR2));
	/* chosen, thread 1 sleeps on; no other thread took it */
	ASSERT_EQ(0, child_report(self->report, CALL_WATCH_MS));
	ASSERT_EQ('D', stat_letter(self->tids[1]));
	ASSERT_EQ(0, syscall(SYS_tgkill, self->pid, self->tids[1], SIGUSR1));
	ASSERT_EQ(0, kill(self->vfork, SIGKILL));
	self->vfork = 0;
	c = child_report(self->report, SETTLE_MS);
	ASSERT_EQ('2', c) TH_LOG("SIGUSR2 taken by thread '%c'", c);
}

/*
 * A tracee detached in its group-stop trap goes back to the group stop,
 * T, and stays there (kernel/ptrace.c __ptrace_unlink()); SIGCONT ends it.
 */
TEST_F(jobctl, detach_keeps_group_stop)
{
	int status = 0;

	if (!seize(_metadata, self->pid, 0))
		SKIP(return, PTRACE_FORBIDDEN);
	self->traced = true;
	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_EQ(SIGSTOP, WSTOPSIG(status));	/* signal-delivery stop */
	ASSERT_EQ(0, ptrace(PTRACE_CONT, self->pid, 0, SIGSTOP));
	ASSERT_EQ(self->pid, wait_report(self->pid, &status, 0));
	ASSERT_EQ(PTRACE_EVENT_STOP, status >> 16);	/* group-stop trap */
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, self->pid, 0, 0));
	self->traced = false;
	ASSERT_EQ('T', wait_for_letter(self->pid, 'T'));
	ASSERT_TRUE(stays(self->pid, 'T'));
	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	ASSERT_EQ('S', wait_for_letter(self->pid, 'S'));
}

TEST_HARNESS_MAIN
