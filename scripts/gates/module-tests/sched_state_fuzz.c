// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_fuzz: hostile input to test_sched_state's control file.
 * "bad requests": requests the module must refuse, each with its errno of
 * sched_state.h; a second write on one file; a sleeper too many.
 * "fuzz": -n junk requests (default 10000; -s SEED replays the printed seed),
 * the protocol's words and numbers mutated: any answer will do but none may
 * take HANG_MS.  Junk naming sleep, race or bench goes only if its numbers
 * are at most 4: it runs short, and sends us only signals we ignore.
 * "sanity after fuzz": a kthread starts, sleeps, answers wakeups and leaves
 * /proc once its file is closed; no sleeper is left.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>

#include "../kselftest.h"
#include "sched_state_user.h"

#define DEFAULT_INPUTS	10000
#define JUNK_MAX	5000		/* past a page */
#define HANG_MS		10000

/*
 * A request, and the errno it must get (or alt); size: of the literal, NUL
 * included, or 0 for a format of numbers a (0: our pid) and b.
 */
#define BAD(s, e)		{ s, sizeof(s), e, e, 0, 0 }
#define BAD2(s, e, alt)		{ s, sizeof(s), e, alt, 0, 0 }
#define BADF(f, a, b, e, alt)	{ f, 0, e, alt, a, b }
static const struct {
	const char *req;
	size_t size;
	int err, alt, a, b;
} bad[] = {
	/* malformed words */
	BAD("", EINVAL), BAD("\n", EINVAL), BAD("kthread", EINVAL), BAD("kthread \n", EINVAL),
	BAD(" kthread idle\n", EINVAL), BAD("kthread  idle\n", EINVAL),
	BAD("kthread\tidle\n", EINVAL), BAD("kthread idle\n\n", EINVAL),
	BAD("kthread idle\r\n", EINVAL), BAD("kthread idle idle\n", EINVAL), BAD("wake\n", EINVAL),
	BAD("sleep idle 1\n", EINVAL), BAD("bench 1 0\n", EINVAL),
	BAD2("race 10\n", EINVAL, EOPNOTSUPP), BAD2("rtlock now\n", EINVAL, EOPNOTSUPP),
	/* unknown verbs and states; the old protocol's verbs */
	BAD("nap 1\n", EINVAL), BAD("KTHREAD idle\n", EINVAL), BAD("state 1 running\n", EINVAL),
	BAD("stop 1\n", EINVAL), BAD2("race mb 10\n", EINVAL, EOPNOTSUPP),
	BAD("kthread sleepy\n", EINVAL), BAD("kthread Idle\n", EINVAL),
	BAD("kthread running\n", EINVAL), BAD("sleep parked 1 0\n", EINVAL),
	BAD("sleep sleepy 1 0\n", EINVAL), BAD("bench no_such_variant 1 0\n", EINVAL),
	/* numbers out of range, or not numbers */
	BAD2("wake 0\n", EINVAL, ESRCH), BAD("wake -1\n", EINVAL), BAD("wake 1x\n", EINVAL),
	BAD("wake 0x10\n", EINVAL), BAD("wakeups 99999999999\n", EINVAL),
	BAD("sleep idle -1 0\n", EINVAL), BAD("sleep idle 1x 0\n", EINVAL),
	BAD("sleep idle 1 -1\n", EINVAL), BAD("sleep idle 1 1000\n", EINVAL),
	BAD("sleep idle 1 2147483648\n", EINVAL), BAD2("race -1 10\n", EINVAL, EOPNOTSUPP),
	BAD2("race 10 -1\n", EINVAL, EOPNOTSUPP), BAD("bench set_current_state 0 0\n", EINVAL),
	BAD("bench set_current_state 1 -1\n", EINVAL),
	BAD2("bench set_current_state 1 1000000\n", EINVAL, ENODEV),
	/* NULs, bytes that are not printable ASCII */
	BAD("\0", EINVAL), BAD("kthread\0idle\n", EINVAL), BAD("kthread idle\0", EINVAL),
	BAD("kthread idle\n\0", EINVAL), BAD("kthread id\x7f" "le\n", EINVAL),
	BAD("kthread id\xff" "le\n", EINVAL),
	/* pids that are not module sleepers */
	BAD("wake 1\n", ESRCH), BAD("wake_interruptible 1\n", ESRCH),
	BAD("wakeups 1\n", ESRCH), BAD("wake 2\n", ESRCH),
	BADF("wake %d\n", 0, 0, ESRCH, ESRCH),
	/* one past the bounds of sched_state.h */
	BADF("sleep idle %d 0\n", SCHED_STATE_MAX_SLEEP_MS + 1, 0, EINVAL, EINVAL),
	BADF("race %d 10\n", SCHED_STATE_MAX_ROUNDS + 1, 0, EINVAL, EOPNOTSUPP),
	BADF("race 10 %d\n", SCHED_STATE_MAX_BUSY_MS + 1, 0, EINVAL, EOPNOTSUPP),
	BADF("bench set_current_state %d 0\n", SCHED_STATE_BENCH_MAX_CALLS + 1, 0, EINVAL, EINVAL),
	/* the longest request fits, a byte more does not */
	BADF("wakeups %0*d\n", SCHED_STATE_MAX_REQUEST - 9, 1, ESRCH, ESRCH),
	BADF("wakeups %0*d\n", SCHED_STATE_MAX_REQUEST - 8, 1, EINVAL, EINVAL),
};

static const char *const words[] = {	/* the verbs first, then two old ones */
	"kthread", "wake", "wake_interruptible", "wakeups", "sleep", "race",
	"rtlock", "bench", "state", "stop", "interruptible", "uninterruptible",
	"killable", "idle", "parked", "set_current_state", "empty_loop", "mb",
	"0", "1", "4", "-1", "+2", "007", "65", "4194304", "2147483648",
	"99999999999999999999", "0x1", "", " ", "\t", "\n", "\xff",
};

/* random(): the same stream for the same seed */
#define below(n)	((unsigned int)random() % (n))

/* @len bytes of @buf as a C string, for a message */
static const char *show(const char *buf, size_t len)
{
	static char out[4 * 48 + 4];
	size_t i, n = 0;

	for (i = 0; i < len && i < 48; i++)
		n += sprintf(out + n, buf[i] >= ' ' && buf[i] < 0x7f && buf[i] != '\\' ?
			     "%c" : "\\x%02x", (unsigned char)buf[i]);
	strcpy(out + n, len > 48 ? "..." : "");
	return out;
}

/* One transaction on a file of its own: 0 or -errno */
static int transact(const char *buf, size_t len)
{
	int fd = open(SCHED_STATE_CONTROL, O_RDWR), ret = 0;
	char reply[PATH_MAX];

	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) < 0 || read(fd, reply, sizeof(reply)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool refused(const char *buf, size_t len, int err, int alt)
{
	int ret = transact(buf, len);

	if (ret == -err || ret == -alt)
		return true;
	ksft_print_msg("\"%s\" (%zu bytes): expected %s, got %s\n", show(buf, len),
		       len, strerror(err), ret ? strerror(-ret) : "success");
	return false;
}

/* As many kthreads as SCHED_STATE_MAX_SLEEPERS start, one more gets -ENOSPC */
static bool too_many(void)
{
	int fds[SCHED_STATE_MAX_SLEEPERS + 1], i;
	pid_t pid = 0;
	bool ok;

	for (i = 0; i <= SCHED_STATE_MAX_SLEEPERS && pid >= 0; i++)
		pid = kthread_start("idle", &fds[i]);
	ok = i == SCHED_STATE_MAX_SLEEPERS + 1 && pid == -ENOSPC;
	if (!ok)
		ksft_print_msg("kthread %d of %d: %s\n", i, SCHED_STATE_MAX_SLEEPERS + 1,
			       pid < 0 ? strerror(-pid) : "started");
	while (i--)
		kthread_stop(&fds[i]);
	return ok;
}

static bool bad_requests(void)
{
	static char page[JUNK_MAX];
	int n, ret, fd;
	bool ok = true;
	unsigned int i;
	struct stat st;

	if (stat(SCHED_STATE_CONTROL, &st) || (st.st_mode & 077)) {
		ksft_print_msg("%s: not root-only\n", SCHED_STATE_CONTROL);
		ok = false;
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		n = bad[i].size - 1;
		if (!bad[i].size)
			n = sprintf(page, bad[i].req, bad[i].a ? bad[i].a : getpid(), bad[i].b);
		ok &= refused(bad[i].size ? bad[i].req : page, n, bad[i].err, bad[i].alt);
	}
	memset(page, ' ', sizeof(page));	/* past a page */
	memcpy(page, "kthread idle", 12);
	ok &= refused(page, sizeof(page), EINVAL, EFBIG);
	/* one transaction per file: a second write gets -EBUSY */
	fd = open(SCHED_STATE_CONTROL, O_RDWR);
	n = sched_state_transact(fd, "kthread idle\n", NULL, 0);
	ret = sched_state_transact(fd, "wakeups 1\n", NULL, 0);
	close(fd);
	if (n || ret != -EBUSY)
		ksft_print_msg("kthread idle, then a second write on its file: %s, then %s\n",
			       strerror(-n), ret ? strerror(-ret) : "success");
	ok &= !n && ret == -EBUSY;
	return too_many() && ok;
}

/*
 * Junk in @buf (JUNK_MAX bytes), its length: words (a verb first), sometimes
 * past a page, mostly one space apart, a few or most bytes replaced.
 */
static size_t junk(char *buf)
{
	unsigned int i, n = below(16) ? below(6) : below(1000);
	size_t len = 0;
	const char *w;

	for (i = 0; i < n && len < JUNK_MAX - 32; i++) {
		w = words[i ? 8 + below(ARRAY_SIZE(words) - 8) : below(10)];
		if (i)
			buf[len++] = below(8) ? ' ' : "\0\t\n "[below(4)];
		if (!below(8))
			len += sprintf(buf + len, "%d", getpid());
		else
			len += sprintf(buf + len, "%s", w);
	}
	if (below(4))
		buf[len++] = '\n';
	for (n = below(3) ? 0 : below(8) ? 1 + below(3) : len; n && len; n--)
		buf[below(len)] = below(256);
	return len;
}

/* Junk naming sleep, race or bench goes only with numbers up to 4. */
static bool harmless(const char *buf, size_t len)
{
	bool slow = memmem(buf, len, "sleep", 5) || memmem(buf, len, "race", 4) ||
		    memmem(buf, len, "bench", 5);
	size_t i, digits = 0;

	for (i = 0; slow && i < len; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			digits = 0;
		else if ((buf[i] > '0' || digits) &&	/* leading zeros aside */
			 (++digits > 1 || buf[i] > '4'))
			return false;
	}
	return true;
}

static bool fuzz(unsigned long inputs)
{
	unsigned long i, sent = 0, accepted = 0, hung = 0;
	struct timespec t0, t1;
	long t, slowest = 0;
	char buf[JUNK_MAX];
	size_t len;

	for (i = 0; i < inputs; i++) {
		len = junk(buf);
		if (!harmless(buf, len))
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		accepted += !transact(buf, len);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		t = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		sent++;
		slowest = t > slowest ? t : slowest;
		if (t > HANG_MS && !hung++)
			ksft_print_msg("input %lu \"%s\" took %ld ms\n", i, show(buf, len), t);
	}
	ksft_print_msg("%lu of %lu inputs sent, %lu accepted, the slowest in %ld ms\n",
		       sent, inputs, accepted, slowest);
	return !hung;
}

static bool sanity(void)
{
	int fd, ret;
	pid_t pid = kthread_start("interruptible", &fd);
	char seen, reply[32] = "";

	if (pid <= 0) {
		ksft_print_msg("kthread interruptible: %s\n", strerror(-pid));
		return false;
	}
	seen = wait_for_letter(pid, 'S');
	ret = control(reply, sizeof(reply), "wakeups %d\n", pid);
	kthread_stop(&fd);
	reply[strcspn(reply, "\n")] = '\0';
	ksft_print_msg("kthread %d: state %c, wakeups: %s, closed: %s\n", pid, seen ? seen : '-',
		       ret ? strerror(-ret) : reply, wait_for_letter(pid, 0) ? "still there" : "gone");
	/* and the fuzz left no sleeper: all SCHED_STATE_MAX_SLEEPERS start */
	return seen == 'S' && !ret && !stat_letter(pid) && too_many();
}

int main(int argc, char **argv)
{
	unsigned int seed = time(NULL) ^ ((unsigned int)getpid() << 16);
	unsigned long inputs = DEFAULT_INPUTS;
	int opt, sig;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt != 's' && opt != 'n')
			ksft_exit_fail_msg("usage: %s [-s SEED] [-n INPUTS]\n", argv[0]);
		if (opt == 's')
			seed = strtoul(optarg, NULL, 0);
		else
			inputs = strtoul(optarg, NULL, 0);
	}
	ksft_print_header();
	if (geteuid() || access(SCHED_STATE_CONTROL, W_OK))
		ksft_exit_skip("needs root and %s (load test_sched_state.ko)\n",
			       SCHED_STATE_CONTROL);
	/* what "sleep <state> <ms> <sig>" may make us send ourselves */
	for (sig = 1; sig <= 4; sig++)
		signal(sig, SIG_IGN);
	ksft_set_plan(3);
	ksft_print_msg("seed %u (replay: -s %u), %lu inputs\n", seed, seed, inputs);
	srandom(seed);
	ksft_test_result(bad_requests(), "bad requests\n");
	ksft_test_result(fuzz(inputs), "fuzz: %lu inputs\n", inputs);
	ksft_test_result(sanity(), "sanity after fuzz\n");
	ksft_finished();
}
