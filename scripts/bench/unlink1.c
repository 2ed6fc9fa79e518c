// SPDX-License-Identifier: GPL-2.0
/*
 * unlink1: will-it-scale's unlink1 as commit 642fa448ae measured it with
 * mmtests.  Each of N processes, pinned to CPU i % ncpus, loops open(O_CREAT),
 * close(), unlink() on its own name in one shared directory, so that they
 * contend for, and sleep on, its inode lock.  Every interval the parent sums
 * the processes' loop counters: after the warm-up readings, each is one
 * sample in ops/s.  The statistics are scripts/bench/bench.py's.
 *
 *   unlink1 [-t N,N,...] [-w WARMUP] [-s SAMPLES] [-i MS] [-d DIR] [-o JSON]
 *
 * Task counts: 2, then 1 to 4 x the CPUs (mmtests' ladder, short).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS	256
#define MAX_COUNTS	16
#define SLOT		32	/* longs: a counter per cache line, or more */

static volatile sig_atomic_t stop;
static volatile long *slots;
static pid_t pids[MAX_TASKS];
static int ntasks;
static char dir[256];

static void on_signal(int sig)
{
	stop = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void task(int i, int ncpus)
{
	char name[300];
	cpu_set_t set;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(i % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(name, sizeof(name), "%s/%d", dir, i);
	for (;;) {
		fd = open(name, O_RDWR | O_CREAT, 0600);
		if (fd < 0)
			_exit(1);
		close(fd);
		unlink(name);
		slots[i * SLOT]++;
	}
}

/* kill the tasks, reap them, remove their files; 0 if none had failed */
static int reap(void)
{
	char name[300];
	int i, status, bad = 0;

	for (i = 0; i < ntasks; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < ntasks; i++) {
		waitpid(pids[i], &status, 0);
		bad |= !WIFSIGNALED(status);
		snprintf(name, sizeof(name), "%s/%d", dir, i);
		unlink(name);
	}
	ntasks = 0;
	return bad;
}

static long total(void)
{
	long sum = 0;
	int i;

	for (i = 0; i < ntasks; i++)
		sum += slots[i * SLOT];
	return sum;
}

/* run @n tasks; print and store (JSON) the samples */
static int run(int n, int ncpus, int warmup, int samples, int ms, FILE *json)
{
	struct timespec iv = { ms / 1000, ms % 1000 * 1000000L };
	double t0, t1;
	long c0, c1;
	int r;

	memset((void *)slots, 0, MAX_TASKS * SLOT * sizeof(long));
	for (ntasks = 0; ntasks < n; ntasks++) {
		pids[ntasks] = fork();
		if (pids[ntasks] < 0) {
			perror("fork");
			reap();
			return 1;
		}
		if (!pids[ntasks])
			task(ntasks, ncpus);
	}
	fprintf(json, "\n  \"%d\": [", n);
	printf("unlink1-processes-%d ops/s:", n);
	t0 = now();
	c0 = total();
	for (r = -warmup; r < samples && !stop; r++) {
		nanosleep(&iv, NULL);
		t1 = now();
		c1 = total();
		if (r >= 0) {
			fprintf(json, "%s%.2f", r ? ", " : "", (c1 - c0) / (t1 - t0));
			printf(" %.2f", (c1 - c0) / (t1 - t0));
		}
		t0 = t1;
		c0 = c1;
	}
	fprintf(json, "]");
	printf("\n");
	fflush(stdout);
	return reap() || stop;
}

int main(int argc, char **argv)
{
	int counts[MAX_COUNTS], nc = 0, warmup = 5, samples = 5, ms = 1000;
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), opt, i, bad = 0;
	const char *base = "/tmp", *out = "/dev/null";
	struct utsname uts;
	char *s, *end;
	FILE *json;

	while ((opt = getopt(argc, argv, "t:w:s:i:d:o:")) != -1) {
		switch (opt) {
		case 't':
			for (s = optarg; *s && nc < MAX_COUNTS; s = *end ? end + 1 : end) {
				counts[nc] = strtol(s, &end, 10);
				if (end == s || counts[nc] < 1 ||
				    counts[nc] > MAX_TASKS || (*end && *end != ','))
					goto usage;
				nc++;
			}
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 's':
			samples = atoi(optarg);
			break;
		case 'i':
			ms = atoi(optarg);
			break;
		case 'd':
			base = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (optind < argc || warmup < 0 || samples < 1 || ms < 1)
		goto usage;
	if (!nc) {
		counts[nc++] = 2;
		for (i = 1; i <= 4; i++)
			if (i * ncpus > counts[nc - 1] && i * ncpus <= MAX_TASKS)
				counts[nc++] = i * ncpus;
	}

	slots = mmap(NULL, MAX_TASKS * SLOT * sizeof(long), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(dir, sizeof(dir), "%s/unlink1.XXXXXX", base);
	json = fopen(out, "w");
	if (slots == MAP_FAILED || !mkdtemp(dir) || !json) {
		perror("unlink1");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	uname(&uts);
	fprintf(json, "{\"kernel\": \"%s\", \"ncpus\": %d, \"warmup\": %d, "
		"\"interval_ms\": %d, \"tasks\": {", uts.release, ncpus, warmup, ms);
	for (i = 0; i < nc && !bad; i++) {
		fprintf(json, i ? "," : "");
		bad = run(counts[i], ncpus, warmup, samples, ms, json);
	}
	fprintf(json, "}}\n");
	rmdir(dir);
	bad |= fclose(json) != 0;
	if (bad)
		fprintf(stderr, "unlink1: %s\n", stop ? "interrupted" : "failed");
	if (stop) {
		signal(stop, SIG_DFL);
		raise(stop);
	}
	return bad;

usage:
	fprintf(stderr, "usage: unlink1 [-t N,N,...] [-w N] [-s N] [-i MS] [-d DIR] [-o JSON]\n");
	return 1;
}
