// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_fuzz: hostile input to every writable file of the
 * test_sched_state module's debugfs directory (today: control).
 *
 * Each input is one transaction: empty, past a page, binary (NULs
 * included), unterminated, negative or overflowing numbers, unknown verbs and
 * states, valid requests with trailing junk or a trailing byte, mutations of
 * valid requests, pwrite() at odd and negative offsets, a second write on the
 * same descriptor, a read before the write, and valid requests that are
 * harmless and bounded (the state of our own pid, sleeps of a few ms, wake,
 * stop and wakeups of pids the module does not own).  A model of the
 * module's parser (split_request(), kstrtoint() and the verbs' bounds)
 * predicts the errno of each input; any other result fails the run: an
 * unexpected errno, or the success of a malformed request.  Requests the
 * model finds valid but not harmless (kthread, race, bench, long sleeps) are
 * never sent.  Before, a fixed table of malformed requests must fail with
 * its errnos; afterwards a kthread interruptible, state, stop round trip
 * must still work.
 *
 * The PRNG is seeded from the time unless -s SEED replays a run; -n sets the
 * inputs per file (default 10000).  Exit: 0 pass, 1 fail, 4 (KSFT_SKIP)
 * without root or the module.
 */
/* pwrite() at 1 << 40 and LLONG_MAX: a 64-bit off_t on 32-bit too */
#define _FILE_OFFSET_BITS 64
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "sched_state_user.h"

static_assert(sizeof(off_t) == sizeof(long long), "off_t is not 64-bit");

#define DEFAULT_INPUTS	10000
#define HUGE_INPUT	9000		/* past a page */
#define PID_MAX_LIMIT	4194304		/* include/linux/threads.h */
#define SAFE_SLEEP_MS	4		/* the longest sleep we send */
#define MAX_ERRNO	4096
#define MAX_REPORTS	20
#define REPLY_LEN	8192

/* The module's tables, from sched_state.h. */
static const struct {
	const char *name;
	bool parked;
} states[] = {
#define SCHED_STATE_STATE(name, parked, ...)	{ #name, parked },
#include "sched_state.h"
};

static const struct {
	const char *name;
} task_states[] = {
#define SCHED_STATE_TASK_STATE(name, ...)	{ #name },
#include "sched_state.h"
};

enum verb {
#define SCHED_STATE_VERB(verb, ...)	V_##verb,
#include "sched_state.h"
};

static const struct {
	const char *name;
	int argc;
} verbs[] = {
#define SCHED_STATE_VERB(verb, argc)	{ #verb, argc },
#include "sched_state.h"
};

/* What an input must get back: an errno, success, or one of two. */
struct expect {
	int err;		/* 0: must succeed */
	int alt;		/* another acceptable errno, or -1 */
	bool own_state;		/* the reply must be our own state, */
	bool own_equal;		/* and say it is the one asked for */
	bool any;		/* success or any errno of expected[] */
	bool send;		/* false: valid but not harmless, never sent */
};

/* Every errno the module or the VFS may answer a hostile input with. */
#define ERR(e)	{ e, #e }
static const struct {
	int err;
	const char *name;
} expected[] = {
	ERR(EINVAL), ERR(ERANGE), ERR(ESRCH), ERR(EFBIG), ERR(EBUSY),
	ERR(EOPNOTSUPP), ERR(ENOSPC), ERR(E2BIG), ERR(ENODEV), ERR(EINTR),
};

static uint64_t rng;
static long ncpus, pid_max = PID_MAX_LIMIT;
static pid_t self;
static unsigned long long rejected[MAX_ERRNO], accepted, inputs;
static unsigned long long reads, early_reads;
static unsigned int failures;

/* splitmix64: deterministic for a given seed */
static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int below(unsigned int n)
{
	return rnd() % n;
}

/* The kernel's isgraph(): printable ASCII, and Latin-1 0xa1..0xff. */
static bool k_isgraph(unsigned char c)
{
	return (c > 0x20 && c < 0x7f) || c > 0xa0;
}

/* The kernel's kstrtoint(s, 10, val). */
static int k_strtoint(const char *s, int *val)
{
	unsigned long long v = 0;
	bool neg = false, over = false;
	const char *p;

	if (*s == '-') {
		neg = true;
		s++;
	} else if (*s == '+') {
		s++;
	}
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (v > (ULLONG_MAX - (*p - '0')) / 10)
			over = true;
		v = v * 10 + (*p - '0');
	}
	if (over)
		return -ERANGE;
	if (p == s || *p)
		return -EINVAL;
	if (neg ? v > (unsigned long long)INT_MAX + 1 : v > INT_MAX)
		return -ERANGE;
	*val = neg ? (int)-(long long)v : (int)v;
	return 0;
}

static int k_parse_int(const char *s, int min, int max, int *val)
{
	int ret = k_strtoint(s, val);

	if (ret)
		return ret;
	return *val >= min && *val <= max ? 0 : -EINVAL;
}

/* The module's parse_state(): the index of state @s, or -EINVAL. */
static int k_parse_state(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(states); i++)
		if (!strcmp(s, states[i].name))
			return i;
	return -EINVAL;
}

/* cmd_state()'s lookup: the index of task state @s, or -EINVAL. */
static int k_parse_task_state(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(task_states); i++)
		if (!strcmp(s, task_states[i].name))
			return i;
	return -EINVAL;
}

/*
 * The module's answer to a request of @len bytes: a negative errno, or 0 with
 * the verb in @verb, its numbers in @num and, for state, the task state's
 * index in @ts.
 */
static int model(const char *buf, size_t len, int *verb, int *num, int *ts)
{
	char copy[SCHED_STATE_MAX_REQUEST + 1], *argv[SCHED_STATE_MAX_ARGS];
	char *p, *word;
	int argc = 0, ret, v;
	unsigned char *c;

	if (!len || len > SCHED_STATE_MAX_REQUEST)
		return -EINVAL;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	if (copy[len - 1] == '\n')
		copy[--len] = '\0';
	if (strlen(copy) != len)
		return -EINVAL;
	p = copy;
	while ((word = strsep(&p, " "))) {
		if (!*word)
			return -EINVAL;
		for (c = (unsigned char *)word; *c; c++)
			if (!k_isgraph(*c))
				return -EINVAL;
		if (argc == SCHED_STATE_MAX_ARGS)
			return -EINVAL;
		argv[argc++] = word;
	}
	for (v = 0; v < (int)ARRAY_SIZE(verbs); v++)
		if (!strcmp(argv[0], verbs[v].name))
			break;
	if (v == ARRAY_SIZE(verbs) || argc != verbs[v].argc)
		return -EINVAL;
	*verb = v;
	switch (v) {
	case V_kthread:
		ret = k_parse_state(argv[1]);
		return ret < 0 ? ret : 0;
	case V_state:	/* the pid, then the task state */
		ret = k_parse_int(argv[1], 1, PID_MAX_LIMIT, num);
		if (ret)
			return ret;
		*ts = k_parse_task_state(argv[2]);
		return *ts < 0 ? *ts : 0;
	case V_wake:
	case V_wake_interruptible:
	case V_stop:
	case V_wakeups:
		return k_parse_int(argv[1], 1, PID_MAX_LIMIT, num);
	case V_sleep:	/* only a kthread can be parked */
		ret = k_parse_state(argv[1]);
		if (ret >= 0 && states[ret].parked)
			ret = -EINVAL;
		return ret < 0 ? ret :
		       k_parse_int(argv[2], 1, SCHED_STATE_MAX_SLEEP_MS, num);
	case V_race:	/* on one CPU: -EOPNOTSUPP (expect_for() allows -EINVAL) */
		if (ncpus < 2)
			return -EOPNOTSUPP;
		ret = k_parse_int(argv[2], 1, SCHED_STATE_MAX_ROUNDS, num);
		if (!ret && strcmp(argv[1], "mb") && strcmp(argv[1], "nomb"))
			ret = -EINVAL;
		return ret;
	case V_bench:
		ret = k_parse_int(argv[1], 1, SCHED_STATE_BENCH_MAX_CALLS, num);
		if (!ret)
			ret = k_parse_int(argv[2], 1,
					  SCHED_STATE_BENCH_MAX_REPEATS, num);
		if (!ret && strcmp(argv[3], "all"))
			ret = k_parse_int(argv[3], 0, INT_MAX, num);
		return ret;
	default: /* V_rtlock */
		return 0;
	}
}

static bool memchr_high(const char *buf, size_t len)
{
	while (len--)
		if ((unsigned char)buf[len] > 0x7f)
			return true;
	return false;
}

/* What the module must answer to @buf, and whether it is safe to send. */
static struct expect expect_for(const char *buf, size_t len)
{
	struct expect e = { .alt = -1, .send = true };
	int verb = -1, num = 0, ts = -1, ret;

	ret = model(buf, len, &verb, &num, &ts);
	if (ret) {
		e.err = -ret;
		/* the module may test the CPUs before or after the words */
		if (ret == -EOPNOTSUPP && verb == V_race)
			e.alt = EINVAL;
		/* a module that takes isgraph() as ASCII rejects them sooner */
		if (len <= SCHED_STATE_MAX_REQUEST && memchr_high(buf, len))
			e.alt = EINVAL;
		return e;
	}
	switch (verb) {
	case V_state:
		if (num == self) {
			e.own_state = true;
			e.own_equal = !strcmp(task_states[ts].name, "running");
		} else if (num > pid_max) {	/* no such task */
			e.err = ESRCH;
		} else {
			e.alt = ESRCH;	/* any task: it may or may not exist */
		}
		break;
	case V_wake:
	case V_wake_interruptible:
	case V_stop:
	case V_wakeups:
		e.err = ESRCH;		/* we own no module sleeper meanwhile */
		break;
	case V_sleep:
		e.send = num <= SAFE_SLEEP_MS;
		break;
	case V_rtlock:
		e.alt = EOPNOTSUPP;	/* PREEMPT_RT only */
		break;
	default:
		e.send = false;		/* kthread, race, bench: not harmless */
	}
	/*
	 * The module bounds pids by this kernel's PID_MAX_LIMIT, 32768 with
	 * CONFIG_BASE_SMALL: above pid_max, that may be -EINVAL.
	 */
	if (verb >= V_state && verb <= V_wakeups && num > pid_max)
		e.alt = EINVAL;
	return e;
}

static void report(const char *file, const char *what, const char *buf,
		   size_t len, const struct expect *e, ssize_t n, int err)
{
	char hex[3 * 48 + 1];
	size_t i;

	failures++;
	if (failures > MAX_REPORTS)
		return;
	for (i = 0; i < len && i < 48; i++)
		snprintf(hex + 3 * i, 4, "%02x ", (unsigned char)buf[i]);
	hex[3 * i] = '\0';
	ksft_print_msg("%s: %s of %zu bytes [%s%s]: expected %s%s%s, got %s\n",
		       file, what, len, hex, len > 48 ? "..." : "",
		       e->err ? strerror(e->err) : "success",
		       e->alt >= 0 ? " or " : "",
		       e->alt > 0 ? strerror(e->alt) : e->alt ? "" : "success",
		       n >= 0 ? "success" : strerror(err));
}

static bool known(int err, bool any)
{
	unsigned int i;

	for (i = 0; any && i < ARRAY_SIZE(expected); i++)
		if (err == expected[i].err)
			return true;
	return false;
}

static const char *errname(int err)
{
	static char other[16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(expected); i++)
		if (err == expected[i].err)
			return expected[i].name;
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

/* Judge one write's result against @e and count it. */
static bool judge(const char *file, const char *what, const char *buf,
		  size_t len, const struct expect *e, ssize_t n, int err)
{
	inputs++;
	if (n >= 0)
		accepted++;
	else if (err > 0 && err < MAX_ERRNO)
		rejected[err]++;
	if (n >= 0 ? e->err == 0 || e->alt == 0 || e->any :
		     err == e->err || err == e->alt || known(err, e->any))
		return n >= 0;
	report(file, what, buf, len, e, n, err);
	return false;
}

static const char *any_task_state(void)
{
	return task_states[below(ARRAY_SIZE(task_states))].name;
}

/* A valid request we know to be harmless, in a random spelling. */
static size_t gen_valid(char *buf)
{
	static const char * const pid_verbs[] = { "wake", "stop", "wakeups" };

	switch (below(10)) {
	case 0:
		return sprintf(buf, "state +%d running\n", self);
	case 1:
		return sprintf(buf, "state 000%d %s", self, any_task_state());
	case 2:
		return sprintf(buf, "state %u %s\n", 1 + below(PID_MAX_LIMIT),
			       any_task_state());
	case 3:
		return sprintf(buf, "sleep %s %u\n",
			       states[below(ARRAY_SIZE(states))].name,
			       1 + below(SAFE_SLEEP_MS));
	case 4:
		return sprintf(buf, "sleep idle 1\n");
	case 5:
		return sprintf(buf, "%s %u\n", pid_verbs[below(3)],
			       1 + below(PID_MAX_LIMIT));
	case 6:
		return sprintf(buf, "wake_interruptible %d\n", self);
	case 7:
		return sprintf(buf, "rtlock\n");
	default:
		return sprintf(buf, "state %d %s\n", self, any_task_state());
	}
}

/* A request template to break: valid in shape, any verb. */
static size_t gen_template(char *buf)
{
	const char *state = states[below(ARRAY_SIZE(states))].name;

	switch (below(9)) {
	case 0:
		return sprintf(buf, "kthread %s", state);
	case 1:
		return sprintf(buf, "sleep %s %u", state, below(100));
	case 2:
		return sprintf(buf, "race %s %u", below(2) ? "mb" : "nomb",
			       1 + below(1000));
	case 3:
		return sprintf(buf, "bench %u %u %s", 1 + below(1000),
			       1 + below(5), below(2) ? "all" : "0");
	case 4:
		return sprintf(buf, "rtlock");
	case 5:
		return sprintf(buf, "wake_interruptible %u", 1 + below(99999));
	case 6:
		return sprintf(buf, "state %d %s", self, any_task_state());
	default:
		return sprintf(buf, "%s %d", verbs[V_wake + below(4)].name, self);
	}
}

static size_t gen_number(char *buf, bool overflow)
{
	static const char * const big[] = {
		"2147483648", "-2147483649", "4294967296", "4194305",
		"9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616",
		"99999999999999999999999999999999999999",
		"-0", "+0", "0", "-1", "-+1", "+-1", "--1", "++1", "0x10",
	};
	const char *n = big[below(ARRAY_SIZE(big))];
	char num[48];

	if (!overflow) {
		snprintf(num, sizeof(num), "-%u", below(below(2) ? 10 : ~0U));
		n = num;
	}
	switch (below(6)) {
	case 0:
		return sprintf(buf, "sleep idle %s\n", n);
	case 1:
		return sprintf(buf, "race mb %s\n", n);
	case 2:
		return sprintf(buf, "bench %s 1 0\n", n);
	case 3:
		return sprintf(buf, "bench 1 %s %s\n", below(2) ? "1" : n, n);
	case 4:
		return sprintf(buf, "state %s %s\n", n, any_task_state());
	default:
		return sprintf(buf, "%s %s\n", verbs[V_wake + below(4)].name, n);
	}
}

static size_t gen_unknown(char *buf)
{
	static const char * const near[] = {
		"STATE", "Kthread", "kthrea", "kthreadx", "stat", "states",
		"sleeps", "wake_", "wake_interruptibl", "stopp", "bench_",
		"rtlocks", "RACE", "wakeinterruptible", "kthread_", "wakeup",
		"wakeupss", "",
	};
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
	size_t len = 0, i, n;

	switch (below(4)) {
	case 0:
		return sprintf(buf, "%s %d\n", near[below(ARRAY_SIZE(near))],
			       self);
	case 1:	/* a known verb, an unknown or near-miss state */
		n = sprintf(buf, "%s %s", below(2) ? "kthread" : "sleep",
			    below(2) ? "Idle" : "interruptible_");
		return n + (buf[0] == 's' ? sprintf(buf + n, " 1\n") : 0);
	case 2:	/* an unknown or near-miss task state */
		return sprintf(buf, "state %d %s\n", self,
			       below(2) ? "Running" : "zombi");
	default:
		n = 1 + below(20);
		for (i = 0; i < n; i++)
			buf[len++] = alphabet[below(sizeof(alphabet) - 1)];
		return len + sprintf(buf + len, " %u\n", below(1000));
	}
}

/* Break a template: insert, delete, replace or duplicate a few bytes. */
static size_t mutate(char *buf, size_t len)
{
	unsigned int i, n = 1 + below(3), pos;

	for (i = 0; i < n; i++) {
		pos = len ? below(len) : 0;
		switch (below(4)) {
		case 0:
			if (len >= SCHED_STATE_MAX_REQUEST + 8)
				break;
			memmove(buf + pos + 1, buf + pos, len - pos);
			buf[pos] = rnd();
			len++;
			break;
		case 1:
			if (!len)
				break;
			memmove(buf + pos, buf + pos + 1, len - pos - 1);
			len--;
			break;
		case 2:
			if (len)
				buf[pos] = rnd();
			break;
		default:
			if (len && len < SCHED_STATE_MAX_REQUEST + 8) {
				memmove(buf + pos + 1, buf + pos, len - pos);
				len++;
			}
		}
	}
	return len;
}

/* One hostile or harmless input into @buf; its length. */
static size_t gen(char *buf)
{
	static const char * const junk[] = {
		" x", "  ", " ", "\t", "\n\n", "\r\n", "\x20\n", "\n ", " 0",
		" idle", "\v", "\x7f", "\xff", "\x80",
	};
	size_t len, i;
	char *c;

	switch (below(16)) {
	case 0:
		return 0;
	case 1:	/* past the bound, past a page */
		len = below(4) ? SCHED_STATE_MAX_REQUEST + 1 + below(200) :
				 4090 + below(HUGE_INPUT - 4090);
		i = gen_template(buf);
		memset(buf + i, below(2) ? ' ' : 'a', len - i);
		return len;
	case 2:	/* binary */
		len = 1 + below(SCHED_STATE_MAX_REQUEST);
		for (i = 0; i < len; i++)
			buf[i] = below(4) ? rnd() : 0;
		return len;
	case 3:	/* a NUL inside a valid request */
		len = gen_valid(buf);
		buf[below(len)] = '\0';
		return len;
	case 4:	/* unterminated: cut anywhere */
		len = gen_template(buf);
		return below(len + 1);
	case 5:
		return gen_number(buf, false);
	case 6:
		return gen_number(buf, true);
	case 7:
	case 8:
		return gen_unknown(buf);
	case 9:	/* trailing junk */
		len = gen_template(buf);
		return len + sprintf(buf + len, "%s", junk[below(ARRAY_SIZE(junk))]);
	case 10: /* a trailing byte */
		len = gen_template(buf);
		buf[len++] = rnd();
		return len;
	case 11:
	case 12:
		len = gen_template(buf);
		if (below(2))
			buf[len++] = '\n';
		return mutate(buf, len);
	case 13: /* case changed */
		len = gen_template(buf);
		for (c = buf; c < buf + len; c++)
			if (*c >= 'a' && *c <= 'z' && !below(4))
				*c -= 'a' - 'A';
		return len;
	default:
		return gen_valid(buf);
	}
}

/* A reply of ours must read back whole, and in pieces at odd offsets. */
static void check_reply(const char *file, int fd, const struct expect *e)
{
	char reply[REPLY_LEN], part[REPLY_LEN];
	ssize_t n, m, off, want;

	reads++;
	n = pread(fd, reply, sizeof(reply) - 1, 0);
	if (n < 0) {
		failures++;
		ksft_print_msg("%s: read of a reply: %s\n", file, strerror(errno));
		return;
	}
	reply[n] = '\0';
	if (e->own_state &&
	    strcmp(reply, e->own_equal ? "1 0x0 0x0\n" : "0 0x0 0x0\n")) {
		failures++;
		ksft_print_msg("%s: state of our own pid: '%s'\n", file, reply);
	}
	off = below(n + 3);	/* within the reply, or just past it */
	want = off < n ? n - off : 0;
	m = pread(fd, part, sizeof(part), off);
	if (m != want || (m > 0 && memcmp(part, reply + off, m))) {
		failures++;
		ksft_print_msg("%s: pread at %zd: %zd bytes, expected %zd\n",
			       file, off, m, want);
	}
	if (pread(fd, part, 1, -1 - (off_t)below(100)) != -1 || errno != EINVAL) {
		failures++;
		ksft_print_msg("%s: pread at a negative offset succeeded\n", file);
	}
}

/* One transaction: maybe read first, write, maybe a second write. */
static void one(const char *path, const char *file, bool control, char *buf)
{
	struct expect e, e2 = { .alt = -1, .send = true };
	char buf2[SCHED_STATE_MAX_REQUEST + 8];
	size_t len, len2;
	off_t off = 0;
	bool pw, ok;
	ssize_t n;
	int fd, mode, err;

	do {
		len = gen(buf);
		e = expect_for(buf, len);
	} while (!e.send);
	e.any = !control;	/* another file's protocol is not modelled */
	fd = open(path, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", path, strerror(errno));
	mode = below(8);
	if (mode == 0) {	/* a read before the write finds nothing */
		char c;

		early_reads++;
		n = read(fd, &c, 1);
		if (n != 0) {
			failures++;
			ksft_print_msg("%s: read before write: %zd\n", file, n);
		}
	}
	pw = mode == 1 || mode == 2;
	if (mode == 1) {
		static const off_t odd[] = { 1, 3, 63, 64, 4095, 4096, 4097,
					     1LL << 40, LLONG_MAX };

		off = below(2) ? odd[below(ARRAY_SIZE(odd))] : (off_t)(rnd() >> 1);
		/* rw_verify_area(): pos + count must not overflow */
		if (off > LLONG_MAX - (off_t)len)
			e = (struct expect){ .err = EINVAL, .alt = -1, .send = true };
	} else if (mode == 2) {
		off = -1 - (off_t)below(4096);
		e = (struct expect){ .err = EINVAL, .alt = -1, .send = true };
	}
	n = pw ? pwrite(fd, buf, len, off) : write(fd, buf, len);
	err = errno;
	ok = judge(file, pw ? "pwrite" : "write", buf, len, &e, n, err);
	if (ok && control)
		check_reply(file, fd, &e);
	if (mode == 3) {	/* one transaction per open */
		do {
			len2 = gen(buf2);
		} while (len2 > sizeof(buf2) || !expect_for(buf2, len2).send);
		if (len2 >= 1 && len2 <= SCHED_STATE_MAX_REQUEST &&
		    len >= 1 && len <= SCHED_STATE_MAX_REQUEST)
			e2.err = EBUSY;
		else
			e2 = expect_for(buf2, len2);
		e2.any = !control;
		n = write(fd, buf2, len2);
		judge(file, "second write", buf2, len2, &e2, n, errno);
	}
	close(fd);
}

static int count_kthreads(void)
{
	char path[PATH_MAX], comm[32];
	struct dirent *d;
	int n = 0;
	DIR *proc;
	FILE *f;

	proc = opendir("/proc");
	if (!proc)
		return -1;
	while ((d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, "sched_state/", 12))
			n++;
		fclose(f);
	}
	closedir(proc);
	return n;
}

/* Malformed requests fail with a clear errno and start nothing. */
static bool bad_requests(void)
{
	static const struct {
		const char *req;
		int err;
	} bad[] = {
		{ "\n",					EINVAL },
		{ "kthread",				EINVAL },
		{ "kthread ",				EINVAL },
		{ "kthread sleepy\n",			EINVAL },
		{ "kthread idle junk\n",		EINVAL },
		{ "kthread  idle\n",			EINVAL },
		{ "kthread idle\n\n",			EINVAL },
		{ "kthread\tidle\n",			EINVAL },
		{ "nap 1\n",				EINVAL },
		{ "state 1\n",				EINVAL },
		{ "state 0 running\n",			EINVAL },
		{ "state -1 running\n",			EINVAL },
		{ "state 1x running\n",			EINVAL },
		{ "state 99999999999 running\n",	ERANGE },
		{ "state 1 sleepy\n",			EINVAL },
		{ "wake 1\n",				ESRCH },
		{ "stop 1\n",				ESRCH },
		{ "wakeups 1\n",			ESRCH },
		{ "sleep idle\n",			EINVAL },
		{ "sleep idle 0\n",			EINVAL },
		{ "sleep idle -1\n",			EINVAL },
		{ "race mb 0\n",			EINVAL },
		{ "race rmb 10\n",			EINVAL },
		{ "rtlock now\n",			EINVAL },
	};
	/* a number one past its bound in sched_state.h */
	static const struct {
		const char *fmt;
		int num;
	} past[] = {
		{ "sleep idle %d\n",	SCHED_STATE_MAX_SLEEP_MS + 1 },
		{ "race mb %d\n",	SCHED_STATE_MAX_ROUNDS + 1 },
	};
	char req[SCHED_STATE_MAX_REQUEST];
	unsigned int i, wrong = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad) + ARRAY_SIZE(past); i++) {
		int err = EINVAL;

		if (i < ARRAY_SIZE(bad)) {
			snprintf(req, sizeof(req), "%s", bad[i].req);
			err = bad[i].err;
		} else {
			snprintf(req, sizeof(req), past[i - ARRAY_SIZE(bad)].fmt,
				 past[i - ARRAY_SIZE(bad)].num);
		}
		ret = sched_state_request(req, NULL, 0);
		if (ret == -err)
			continue;
		wrong++;
		req[strcspn(req, "\n")] = '\0';
		ksft_print_msg("request %u \"%s\": expected %s, got %s\n", i,
			       req, strerror(err),
			       ret ? strerror(-ret) : "success");
	}
	return !wrong;
}

static bool sanity(void)
{
	char req[SCHED_STATE_MAX_REQUEST], reply[64];
	int pid, ret, i;
	bool ok;

	ret = sched_state_request("kthread interruptible\n", reply,
				  sizeof(reply));
	pid = ret ? 0 : strtol(reply, NULL, 10);
	if (pid <= 0) {
		ksft_print_msg("kthread interruptible: %s\n", strerror(-ret));
		return false;
	}
	snprintf(req, sizeof(req), "state %d interruptible\n", pid);
	for (i = 0; i < 200; i++) {
		ret = sched_state_request(req, reply, sizeof(reply));
		if (ret || reply[0] == '1')
			break;
		usleep(10000);
	}
	ok = !ret && reply[0] == '1';
	if (!ok)
		ksft_print_msg("state %d: %s\n", pid,
			       ret ? strerror(-ret) : reply);
	snprintf(req, sizeof(req), "stop %d\n", pid);
	ret = sched_state_request(req, reply, sizeof(reply));
	if (ret || strcmp(reply, "0\n")) {
		ksft_print_msg("stop %d: %s\n", pid, ret ? strerror(-ret) : reply);
		return false;
	}
	return ok;
}

static long read_pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long n = PID_MAX_LIMIT;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = PID_MAX_LIMIT;
		fclose(f);
	}
	return n;
}

static void print_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s SEED] [-n INPUTS_PER_FILE]\n", prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	unsigned long long seed = time(NULL) ^ ((unsigned long long)getpid() << 16);
	char path[PATH_MAX], *buf, counts[512];
	unsigned long n = DEFAULT_INPUTS, i;
	int opt, before, after, files = 0;
	size_t used = 0;
	struct dirent *d;
	struct stat st;
	DIR *dir;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("sched_state_fuzz must be run as root\n");
	if (access(SCHED_STATE_CONTROL, W_OK))
		ksft_exit_skip("%s: %s (load test_sched_state.ko first)\n",
			       SCHED_STATE_CONTROL, strerror(errno));
	ksft_set_plan(3);
	rng = seed;
	self = getpid();
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	pid_max = read_pid_max();
	ksft_print_msg("seed %llu (replay: -s %llu), %lu inputs per file\n",
		       seed, seed, n);
	buf = malloc(HUGE_INPUT + SCHED_STATE_MAX_REQUEST);
	dir = opendir(SCHED_STATE_DIR);
	if (!buf || !dir)
		ksft_exit_fail_msg("%s: %s\n", SCHED_STATE_DIR, strerror(errno));
	before = count_kthreads();
	ksft_test_result(bad_requests(), "bad requests\n");

	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "%s/%s", SCHED_STATE_DIR, d->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		ksft_print_msg("%s: mode %04o\n", d->d_name, st.st_mode & 07777);
		if (st.st_mode & 077) {
			failures++;
			ksft_print_msg("%s: not root-only\n", d->d_name);
		}
		if (!(st.st_mode & 0222))
			continue;
		files++;
		for (i = 0; i < n; i++)
			one(path, d->d_name, !strcmp(d->d_name, "control"), buf);
	}
	closedir(dir);
	free(buf);
	after = count_kthreads();
	ksft_print_msg("%llu replies read back, %llu reads before a write\n",
		       reads, early_reads);
	ksft_print_msg("sched_state kthreads before %d, after %d\n", before,
		       after);
	if (after > before) {
		failures++;
		ksft_print_msg("the fuzz left %d module kthreads\n", after - before);
	}
	if (!files) {
		failures++;
		ksft_print_msg("no writable file in %s\n", SCHED_STATE_DIR);
	}

	for (i = 0; i < MAX_ERRNO && used < sizeof(counts); i++) {
		if (rejected[i])
			used += snprintf(counts + used, sizeof(counts) - used,
					 "%s%s %llu", used ? ", " : "",
					 errname(i), rejected[i]);
	}
	if (failures)
		ksft_print_msg("%u failures (the first %d shown)\n", failures,
			       MAX_REPORTS);
	ksft_test_result(!failures, "fuzz: %llu inputs, %llu rejected (%s), %llu accepted\n",
			 inputs, inputs - accepted, counts, accepted);
	ksft_test_result(sanity(), "sanity after fuzz\n");
	ksft_exit(ksft_get_fail_cnt() == 0);
}
