// SPDX-License-Identifier: GPL-2.0
/*
 * usage: sched_state_fuzz [INPUTS [SEED]]: bad requests to test_sched_state
 * must fail with the errno of sched_state.h, INPUTS junk ones end in HANG_S.
 */
#include <ctype.h>
#include <signal.h>
#include <sys/stat.h>

#include "../kselftest.h"
#include "sched_state_user.h"

#define HANG_S		10

/* Requests the module must refuse with -EINVAL; a '~' is sent as a NUL */
static const char *const einval[] = {
	/* malformed */
	"", "\n", "~", "kthread", "kthread \n", " kthread idle\n", "kthread  idle\n",
	"kthread\tidle\n", "kthread idle\n\n", "kthread idle\r\n", "kthread idle idle\n", "wake\n",
	"sleep idle 1\n", "race 10\n", "bench 1 0\n", "rtlock now\n",
	/* NULs, bytes that are not printable ASCII */
	"kthread~idle\n", "kthread idle~", "kthread idle\n~", "kthread id\x7f" "le\n",
	"kthread id\xff" "le\n",
	/* unknown verbs and states, the old protocol's verbs */
	"nap 1\n", "KTHREAD idle\n", "state 1 running\n", "stop 1\n", "race mb 10\n",
	"kthread sleepy\n", "kthread Idle\n", "kthread running\n", "sleep parked 1 0\n",
	"sleep sleepy 1 0\n", "bench no_such_variant 1 0\n",
	/* numbers out of range, or not numbers */
	"wake 0\n", "wake -1\n", "wake 1x\n", "wake 0x10\n", "wakeups 99999999999\n",
	"sleep idle -1 0\n", "sleep idle 1x 0\n", "sleep idle 1 -1\n", "sleep idle 1 1000\n",
	"sleep idle 1 2147483648\n", "race -1 10\n", "race 10 -1\n",
	"bench set_current_state 0 0\n", "bench set_current_state 1 -1\n",
	"bench set_current_state 1 1000000\n",
};

/* Junk's words: its first from the first 10 (verbs, then two old ones) */
static const char *const words[] = {
	"kthread", "wake", "wake_interruptible", "wakeups", "sleep", "race",
	"rtlock", "bench", "state", "stop", "interruptible", "uninterruptible",
	"killable", "idle", "parked", "set_current_state", "empty_loop", "mb",
	"0", "1", "4", "-1", "+2", "007", "65", "4194304", "2147483648",
	"99999999999999999999", "0x1", "", " ", "\t", "\n", "\xff",
};

#define below(n)	((unsigned int)random() % (n))

/* @len bytes of @buf, escaped, for a message */
static const char *show(const char *buf, size_t len)
{
	static char out[4 * 48 + 4];
	size_t i, n = 0;

	for (i = 0; i < len && i < 48; i++)
		n += sprintf(out + n, isprint((unsigned char)buf[i]) ? "%c" : "\\x%02x",
			     (unsigned char)buf[i]);
	strcpy(out + n, len > 48 ? "..." : "");
	return out;
}

/* One transaction on a file of its own: 0 or -errno */
static int transact(const char *buf, size_t len)
{
	int fd = open(SCHED_STATE_CONTROL, O_RDWR), ret = 0;
	char reply[64];

	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) < 0 || read(fd, reply, sizeof(reply)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The request printf makes of @fmt ('~': a NUL) must fail with -@err */
static bool refused(int err, const char *fmt, ...)
{
	static char buf[5000];	/* past a page */
	int len, ret, i;
	va_list ap;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < len; i++)
		buf[i] = buf[i] == '~' ? '\0' : buf[i];
	ret = transact(buf, len);
	if (ret != -err)
		ksft_print_msg("\"%s\" (%d bytes): expected %s, got %s\n", show(buf, len),
			       len, strerror(err), ret ? strerror(-ret) : "success");
	return ret == -err;
}

/*
 * The module works and holds no sleeper: MAX_SLEEPERS kthreads start, one
 * more gets -ENOSPC; the first sleeps, answers "wakeups", is gone once closed.
 */
static bool sleepers(void)
{
	int fds[SCHED_STATE_MAX_SLEEPERS + 1], n, i, ret;
	pid_t pid = 0, first = 0;
	char seen, reply[32] = "";
	bool gone;

	for (n = 0; n <= SCHED_STATE_MAX_SLEEPERS && pid >= 0; n++) {
		pid = sleeper_kthread("interruptible", &fds[n]);
		first = first ? first : pid;
	}
	seen = wait_for_letter(first, 'S');
	ret = control(reply, sizeof(reply), "wakeups %d\n", first);
	reply[strcspn(reply, "\n")] = '\0';
	for (i = 0; i < n; i++)
		sleeper_kthread_end(&fds[i]);
	gone = first > 0 && !wait_for_letter(first, 0);
	ksft_print_msg("%d kthreads, then %s; the first: state %c, wakeups %s, %s once closed\n",
		       n - (pid < 0), pid < 0 ? strerror(-pid) : "no refusal", seen ? seen : '-',
		       ret ? strerror(-ret) : reply, gone ? "gone" : "not gone");
	return n == SCHED_STATE_MAX_SLEEPERS + 1 && pid == -ENOSPC && seen == 'S' && !ret && gone;
}

static bool bad_requests(void)
{
	static const char *const wakes[] = { "wake", "wake_interruptible", "wakeups" };
	const int pids[] = { 1, 2, getpid() };
	bool ok = sleepers();
	int n, ret, fd;
	unsigned int i;
	struct stat st;

	if (stat(SCHED_STATE_CONTROL, &st) || (st.st_mode & 077)) {
		ksft_print_msg("%s: not root-only\n", SCHED_STATE_CONTROL);
		ok = false;
	}
	for (i = 0; i < ARRAY_SIZE(einval); i++)
		ok &= refused(EINVAL, "%s", einval[i]);
	/* -ESRCH: each wake verb on each pid that is not a module sleeper */
	for (i = 0; i < ARRAY_SIZE(wakes) * ARRAY_SIZE(pids); i++)
		ok &= refused(ESRCH, "%s %d\n", wakes[i % 3], pids[i / 3]);
	/* one past the bounds of sched_state.h */
	ok &= refused(EINVAL, "sleep idle %d 0\n", SCHED_STATE_MAX_SLEEP_MS + 1);
	ok &= refused(EINVAL, "race %d 10\n", SCHED_STATE_MAX_ROUNDS + 1);
	ok &= refused(EINVAL, "race 10 %d\n", SCHED_STATE_MAX_BUSY_MS + 1);
	ok &= refused(EINVAL, "bench set_current_state %d 0\n", SCHED_STATE_BENCH_MAX_CALLS + 1);
	/* the longest request fits, a byte more does not, nor a page */
	ok &= refused(ESRCH, "wakeups %0*d\n", SCHED_STATE_MAX_REQUEST - 9, 1);
	ok &= refused(EINVAL, "wakeups %0*d\n", SCHED_STATE_MAX_REQUEST - 8, 1);
	ok &= refused(EINVAL, "kthread idle%*s", 5000 - 13, "");
	/* one transaction per file: a second write gets -EBUSY */
	n = sleeper_kthread("idle", &fd);
	ret = sched_state_transact(fd, "wakeups 1\n", NULL, 0);
	sleeper_kthread_end(&fd);
	if (n < 0 || ret != -EBUSY)
		ksft_print_msg("kthread idle: %s, then a second write on its file: %s\n",
			       n < 0 ? strerror(-n) : "started", ret ? strerror(-ret) : "success");
	return ok && n > 0 && ret == -EBUSY;
}

/* Junk in @buf, its length: words, mostly a space apart, maybe bytes replaced */
static size_t junk(char *buf)
{
	unsigned int n = below(6);
	size_t len = sprintf(buf, "%s", words[below(10)]);

	while (n--) {
		buf[len++] = below(8) ? ' ' : "\0\t\n "[below(4)];
		len += sprintf(buf + len, "%s", words[8 + below(ARRAY_SIZE(words) - 8)]);
	}
	if (below(4))
		buf[len++] = '\n';
	for (n = below(3) ? 0 : 1 + below(3); n; n--)
		buf[below(len)] = below(256);
	return len;
}

/* Junk naming sleep, race or bench only goes with numbers up to 4: short, safe */
static bool harmless(const char *buf, size_t len)
{
	unsigned int i, v = 0;

	if (!memmem(buf, len, "sleep", 5) && !memmem(buf, len, "race", 4) &&
	    !memmem(buf, len, "bench", 5))
		return true;
	for (i = 0; i < len && v <= 4; i++)
		v = isdigit((unsigned char)buf[i]) ? v * 10 + buf[i] - '0' : 0;
	return v <= 4;
}

static bool fuzz(unsigned long inputs)
{
	unsigned long i, sent = 0;
	char buf[256];
	size_t len;
	time_t t;

	for (i = 0; i < inputs; i++) {
		len = junk(buf);
		if (!harmless(buf, len))
			continue;
		t = time(NULL);
		transact(buf, len);
		sent++;
		if (time(NULL) - t > HANG_S) {
			ksft_print_msg("input %lu \"%s\" took over %d s\n", i, show(buf, len),
				       HANG_S);
			return false;
		}
	}
	ksft_print_msg("%lu of %lu inputs sent\n", sent, inputs);
	return true;
}

int main(int argc, char **argv)
{
	unsigned long inputs = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000;
	unsigned int seed = argc > 2 ? strtoul(argv[2], NULL, 0) :
			    (unsigned int)time(NULL) ^ (unsigned int)getpid() << 16;
	const char *why = no_module();
	int sig;

	ksft_print_header();
	if (why)
		ksft_exit_skip("%s\n", why);
	/* what "sleep <state> <ms> <sig>" may make us send ourselves */
	for (sig = 1; sig <= 4; sig++)
		signal(sig, SIG_IGN);
	ksft_set_plan(3);
	ksft_print_msg("seed %u, %lu inputs\n", seed, inputs);
	srandom(seed);
	ksft_test_result(bad_requests(), "bad requests\n");
	ksft_test_result(fuzz(inputs), "fuzz: %lu inputs\n", inputs);
	ksft_test_result(sleepers(), "sanity after fuzz\n");
	ksft_finished();
}
