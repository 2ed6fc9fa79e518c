// SPDX-License-Identifier: GPL-2.0
/*
 * unlink1: will-it-scale's unlink1, as commit 642fa448ae ran it with mmtests:
 * task i of N, on CPU i % ncpus, loops open(O_CREAT), close(), unlink() in a
 * directory all share.  Each interval after the warm-up is a sample of their
 * ops/s, printed as JSON.  Task counts: by default 2, then 1 to 4 x the CPUs.
 *
 *   unlink1 WARMUP SAMPLES INTERVAL_MS DIR [TASKS...] >JSON
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS	256
#define SLOT		32	/* longs: a counter per cache line, or more */

static volatile sig_atomic_t stop;
static volatile long *slots;
static char dir[256];

static void on_signal(int sig)
{
	stop = sig;
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

/* @n tasks' ops/s, a sample per interval after the warm-up; 0 if all ran */
static int run(int n, int ncpus, int warmup, int samples, int ms)
{
	struct timespec iv = { ms / 1000, ms % 1000 * 1000000L };
	int nt, i, r, status, bad;
	pid_t pids[MAX_TASKS];
	char name[300];
	long c0 = 0, c1;

	for (nt = 0; nt < n; nt++) {
		slots[nt * SLOT] = 0;
		pids[nt] = fork();
		if (pids[nt] < 0)
			break;
		if (!pids[nt])
			task(nt, ncpus);
	}
	bad = nt < n;
	printf("\n  \"%d\": [", n);
	for (r = -warmup; r < samples && !bad && !stop; r++) {
		nanosleep(&iv, NULL);
		for (c1 = 0, i = 0; i < nt; i++)
			c1 += slots[i * SLOT];
		if (r >= 0)
			printf("%s%.2f", r ? ", " : "", (c1 - c0) * 1000.0 / ms);
		c0 = c1;
	}
	printf("]");
	for (i = 0; i < nt; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
		bad |= !WIFSIGNALED(status);
		snprintf(name, sizeof(name), "%s/%d", dir, i);
		unlink(name);
	}
	return bad || stop;
}

int main(int argc, char **argv)
{
	int ncpus = sysconf(_SC_NPROCESSORS_ONLN), counts[MAX_TASKS], nc;
	int warmup, samples, ms, i, bad = 0;
	struct utsname uts;

	if (argc < 5 || argc - 5 > MAX_TASKS)
		goto usage;
	warmup = atoi(argv[1]);
	samples = atoi(argv[2]);
	ms = atoi(argv[3]);
	for (nc = 0; nc < argc - 5; nc++) {
		counts[nc] = atoi(argv[nc + 5]);
		if (counts[nc] < 1 || counts[nc] > MAX_TASKS)
			goto usage;
	}
	if (warmup < 0 || samples < 1 || ms < 1)
		goto usage;
	if (!nc) {
		counts[nc++] = 2;
		for (i = 1; i <= 4; i++)
			if (i * ncpus > counts[nc - 1] && i * ncpus <= MAX_TASKS)
				counts[nc++] = i * ncpus;
	}

	slots = mmap(NULL, MAX_TASKS * SLOT * sizeof(long), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(dir, sizeof(dir), "%s/unlink1.XXXXXX", argv[4]);
	if (slots == MAP_FAILED || !mkdtemp(dir)) {
		perror("unlink1");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	uname(&uts);
	printf("{\"kernel\": \"%s\", \"ncpus\": %d, \"warmup\": %d, "
	       "\"interval_ms\": %d, \"tasks\": {", uts.release, ncpus, warmup, ms);
	for (i = 0; i < nc && !bad; i++) {
		printf(i ? "," : "");
		bad = run(counts[i], ncpus, warmup, samples, ms);
	}
	printf("}}\n");
	rmdir(dir);
	bad |= fflush(stdout) || ferror(stdout);
	if (bad)
		fprintf(stderr, "unlink1: %s\n", stop ? "interrupted" : "failed");
	return stop ? 128 + stop : bad;

usage:
	fprintf(stderr, "usage: unlink1 WARMUP SAMPLES INTERVAL_MS DIR [TASKS...]\n");
	return 1;
}
