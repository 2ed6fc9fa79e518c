// SPDX-License-Identifier: GPL-2.0
/*
 * unlink_bench: the will-it-scale unlink1/unlink2 scalability benchmark, as
 * commit 642fa448ae ("sched/core: Remove set_task_state()") measured it with
 * mmtests.
 *
 * unlink1: every task loops open(O_CREAT), close(), unlink() on its own file
 * name in ONE shared directory, so the tasks contend for, and sleep on, that
 * directory's inode lock.  unlink2 is the control: one directory per task.
 *
 * Tasks are processes (-m process) or threads (-m thread), each pinned to
 * allowed CPU i % ncpus and released together.  A task counts its loops in
 * its own 256-byte slot of shared memory.  The parent reads the counters
 * every interval (-i, 1000 ms), drops the first -w readings as warm-up (5)
 * and keeps -s samples (5): a sample is the sum over the tasks of that
 * interval's increments, in operations per second.  For each task count it
 * prints Min, Hmean, Stddev (population), CoeffVar and Max of the samples
 * and, with -o, writes every sample to a JSON file.
 *
 * The default task counts are mmtests' "large stride" ladder from 2 to
 * 4 x ncpus (-T changes the end, -t gives an explicit list).
 *
 * Exit: 0 done, 1 error, 4 (KSFT_SKIP) cannot run here; killed by SIGINT,
 * SIGTERM or SIGHUP, it removes its tasks and files, then dies of the signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"

#define SLOT_SIZE	256	/* one counter per slot: no shared cache line */
#define MAX_TASKS	1024
#define MAX_COUNTS	64	/* task counts in one run */
#define MAX_SAMPLES	1000
#define RUN_DIR_LEN	256
#define TASK_DIR_LEN	(RUN_DIR_LEN + 32)
#define NAME_LEN	(TASK_DIR_LEN + 32)
#define NSEC_PER_SEC	1000000000LL
#define READY_TIMEOUT	30	/* seconds for the tasks to get ready */
#define REAP_TIMEOUT	5	/* seconds for the tasks to leave */

/* @s, all of it a decimal number in [@lo, @hi], into @val. */
static bool parse_int(const char *s, int lo, int hi, int *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*val = v;
	return true;
}

/* @s as a JSON string, quoted and escaped. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

enum bench { UNLINK1, UNLINK2 };

struct control {
	int go;			/* futex: the tasks wait here until it is 1 */
	int stop;		/* the tasks leave their loop once it is 1 */
	int ready;		/* tasks pinned and waiting for go */
	int error;		/* first errno a task hit, 0 if none */
	int error_task;
	char error_op[16];
};

union slot {
	struct control ctl;
	unsigned long long count;
	char pad[SLOT_SIZE];
};

struct result {
	int tasks;
	double warmup[MAX_SAMPLES];
	double samples[MAX_SAMPLES];
	double min, hmean, stddev, coeffvar, max;
};

/* The options, and what the run found out about this machine. */
static enum bench bench = UNLINK1;
static bool use_threads;
static int interval_ms = 1000;
static int nr_warmup = 5;
static int nr_samples = 5;
static const char *base_dir;
static const char *json_path;
static int ladder_end;
static bool list_only;
static int counts[MAX_COUNTS];
static int nr_counts;
static int cpus[CPU_SETSIZE];
static int ncpus;

/* The state the cleanup needs. */
static char run_dir[RUN_DIR_LEN];
static char (*names)[NAME_LEN];		/* each task's file */
static char (*dirs)[TASK_DIR_LEN];	/* unlink2: each task's directory */
static int nr_names;
static union slot *shm;			/* control, then one slot a task */
static size_t shm_size;
static pid_t *pids;
static pthread_t *threads;
static int nr_started;
static int got_signal;
static struct result *results;

static void on_signal(int sig)
{
	__atomic_store_n(&got_signal, sig, __ATOMIC_RELAXED);
}

static int pending_signal(void)
{
	return __atomic_load_n(&got_signal, __ATOMIC_RELAXED);
}

static void show_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-b unlink1|unlink2] [-m process|thread] [-t N,N,...]\n"
		"       [-T END] [-i MS] [-w N] [-s N] [-d DIR] [-o FILE.json] [-n]\n"
		"  -b  benchmark: unlink1 (one shared directory, default) or\n"
		"      unlink2 (one directory per task)\n"
		"  -m  tasks are processes (default) or threads\n"
		"  -t  task counts (default: mmtests' large stride, 2..END)\n"
		"  -T  END of the default ladder (default: 4 x allowed CPUs)\n"
		"  -i  sample interval in ms (default 1000)\n"
		"  -w  warm-up samples dropped (default 5)\n"
		"  -s  samples kept (default 5)\n"
		"  -d  where the run's directory is made (default $TMPDIR or /tmp)\n"
		"  -o  write the samples and statistics as JSON\n"
		"  -n  print the task counts and exit\n", prog);
}

static bool parse_counts(char *list)
{
	char *tok, *save = NULL;

	nr_counts = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (nr_counts == MAX_COUNTS ||
		    !parse_int(tok, 1, MAX_TASKS, &counts[nr_counts]))
			return false;
		nr_counts++;
	}
	return nr_counts > 0;
}

static void add_count(int n)
{
	if (nr_counts < MAX_COUNTS)
		counts[nr_counts++] = n;
}

static void add_seq(int first, int step, int last)
{
	int n;

	for (n = first; n <= last; n += step)
		add_count(n);
}

/*
 * mmtests' threads_large_stride_begin, as it ran the 2017 will-it-scale
 * tests: "seq START 3 8; seq 12 9 32; seq 48 31 END" when END > 32,
 * "seq START 2 8; seq 12 6 END" when END > 8, else "seq START 2 END"; END
 * is appended unless it is already last and counts below START are skipped.
 */
static void make_ladder(int start, int end)
{
	int i, j;

	nr_counts = 0;
	if (end > 32) {
		add_seq(start, 3, 8);
		add_seq(12, 9, 32);
		add_seq(48, 31, end);
	} else if (end > 8) {
		add_seq(start, 2, 8);
		add_seq(12, 6, end);
	} else {
		add_seq(start, 2, end);
	}
	if (!nr_counts || counts[nr_counts - 1] != end)
		add_count(end);
	for (i = j = 0; i < nr_counts; i++)
		if (counts[i] >= start)
			counts[j++] = counts[i];
	nr_counts = j;
}

static int find_cpus(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("sched_getaffinity");
		return -1;
	}
	ncpus = 0;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[ncpus++] = cpu;
	return ncpus ? 0 : -1;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void futex_wait(int *uaddr, int val)
{
	syscall(SYS_futex, uaddr, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake_all(int *uaddr)
{
	syscall(SYS_futex, uaddr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void task_error(int nr, const char *op, int err)
{
	struct control *ctl = &shm[0].ctl;
	int none = 0;

	if (__atomic_compare_exchange_n(&ctl->error, &none, err, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		ctl->error_task = nr;
		snprintf(ctl->error_op, sizeof(ctl->error_op), "%s", op);
	}
}

static bool task_must_stop(struct control *ctl)
{
	return __atomic_load_n(&ctl->stop, __ATOMIC_RELAXED) || pending_signal();
}

/* One task: pin, wait for the start, then loop until told to stop. */
static void task_run(int nr)
{
	struct control *ctl = &shm[0].ctl;
	unsigned long long *count = &shm[nr + 1].count;
	const char *name = names[nr];
	unsigned long long loops = 0;
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(cpus[nr % ncpus], &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		task_error(nr, "setaffinity", errno);
	__atomic_add_fetch(&ctl->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&ctl->go, __ATOMIC_ACQUIRE))
		futex_wait(&ctl->go, 0);

	while (!task_must_stop(ctl)) {
		fd = open(name, O_RDWR | O_CREAT, 0600);
		if (fd < 0) {
			task_error(nr, "open", errno);
			break;
		}
		close(fd);
		if (unlink(name)) {
			task_error(nr, "unlink", errno);
			break;
		}
		__atomic_store_n(count, ++loops, __ATOMIC_RELAXED);
	}
}

static void *thread_main(void *arg)
{
	task_run((int)(long)arg);
	return NULL;
}

static int start_tasks(int n)
{
	sigset_t block, old;
	pid_t parent = getpid();
	int i, err;

	if (use_threads) {
		/* Only the main thread takes the signals: its sleep ends. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigaddset(&block, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		for (i = 0; i < n; i++) {
			err = pthread_create(&threads[i], NULL, thread_main,
					     (void *)(long)i);
			if (err) {
				fprintf(stderr, "pthread_create: %s\n",
					strerror(err));
				break;
			}
			nr_started++;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return i == n ? 0 : -1;
	}

	fflush(NULL);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return -1;
		}
		if (!pids[i]) {
			/* Never outlive the parent, even if it is killed. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() == parent)
				task_run(i);
			_exit(0);
		}
		nr_started++;
	}
	return 0;
}

/* Make every task leave, waiting at most REAP_TIMEOUT before SIGKILL. */
static void stop_tasks(void)
{
	struct control *ctl = &shm[0].ctl;
	long long deadline;
	int i, left;
	pid_t r;

	__atomic_store_n(&ctl->stop, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ctl->go, 1, __ATOMIC_SEQ_CST);
	futex_wake_all(&ctl->go);

	if (use_threads) {
		for (i = 0; i < nr_started; i++)
			pthread_join(threads[i], NULL);
		nr_started = 0;
		return;
	}

	deadline = now_ns() + REAP_TIMEOUT * NSEC_PER_SEC;
	do {
		left = 0;
		for (i = 0; i < nr_started; i++) {
			if (pids[i] <= 0)
				continue;
			r = waitpid(pids[i], NULL, WNOHANG);
			if (r == pids[i] || (r < 0 && errno == ECHILD))
				pids[i] = 0;
			else
				left++;
		}
		if (left)
			usleep(1000);
	} while (left && now_ns() < deadline);

	for (i = 0; i < nr_started; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
			pids[i] = 0;
		}
	}
	nr_started = 0;
}

static void remove_names(void)
{
	int i;

	for (i = 0; i < nr_names; i++) {
		unlink(names[i]);
		if (bench == UNLINK2)
			rmdir(dirs[i]);
	}
	nr_names = 0;
}

static void cleanup(void)
{
	if (shm && nr_started)
		stop_tasks();
	remove_names();
	if (run_dir[0] && rmdir(run_dir) && errno != ENOENT)
		fprintf(stderr, "rmdir %s: %s\n", run_dir, strerror(errno));
	run_dir[0] = '\0';
	if (shm)
		munmap(shm, shm_size);
	shm = NULL;
}

/* Give each task a name of its own, as mkstemp() makes them. */
static int make_names(int n)
{
	int fd;

	for (nr_names = 0; nr_names < n; nr_names++) {
		char *name = names[nr_names];

		if (bench == UNLINK1) {
			snprintf(name, NAME_LEN, "%s/unlink1.XXXXXX", run_dir);
			fd = mkstemp(name);
			if (fd < 0)
				goto fail;
			close(fd);
			unlink(name);
			continue;
		}
		snprintf(dirs[nr_names], TASK_DIR_LEN, "%s/unlink2.XXXXXX",
			 run_dir);
		if (!mkdtemp(dirs[nr_names]))
			goto fail;
		snprintf(name, NAME_LEN, "%s/file", dirs[nr_names]);
	}
	return 0;
fail:
	perror(run_dir);
	return -1;
}

static unsigned long long read_total(int n)
{
	unsigned long long sum = 0;
	int i;

	for (i = 1; i <= n; i++)
		sum += __atomic_load_n(&shm[i].count, __ATOMIC_RELAXED);
	return sum;
}

static void summarise(struct result *r)
{
	double sum = 0, inv = 0, var = 0, mean, x;
	bool positive = true;
	int i;

	r->min = r->samples[0];
	r->max = r->samples[0];
	for (i = 0; i < nr_samples; i++) {
		x = r->samples[i];
		sum += x;
		if (x > 0)
			inv += 1 / x;
		else
			positive = false;
		if (x < r->min)
			r->min = x;
		if (x > r->max)
			r->max = x;
	}
	mean = sum / nr_samples;
	for (i = 0; i < nr_samples; i++)
		var += (r->samples[i] - mean) * (r->samples[i] - mean);
	/* As mmtests, no harmonic mean of a sample that is not positive. */
	r->hmean = positive ? nr_samples / inv : 0;
	r->stddev = sqrt(var / nr_samples);
	r->coeffvar = mean ? r->stddev * 100 / mean : 0;
}

/* Wait for the next sampling point; false if a signal cut it short. */
static bool sleep_until(long long t)
{
	struct timespec ts = {
		.tv_sec = t / NSEC_PER_SEC,
		.tv_nsec = t % NSEC_PER_SEC,
	};

	int err;

	do {
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (pending_signal())
			return false;
	} while (err == EINTR);
	if (err)
		fprintf(stderr, "clock_nanosleep: %s\n", strerror(err));
	return !err;
}

static bool tasks_failed(void)
{
	struct control *ctl = &shm[0].ctl;
	int err = __atomic_load_n(&ctl->error, __ATOMIC_SEQ_CST);

	if (!err)
		return false;
	fprintf(stderr, "task %d: %s: %s\n", ctl->error_task, ctl->error_op,
		strerror(err));
	return true;
}

/* Run n tasks and fill in r; 0 on success, -1 on error or signal. */
static int run_one(int n, struct result *r)
{
	struct control *ctl = &shm[0].ctl;
	unsigned long long total, prev = 0;
	long long start, t, prev_t, deadline;
	int i;

	memset(shm, 0, shm_size);
	r->tasks = n;
	if (make_names(n) || start_tasks(n))
		return -1;

	deadline = now_ns() + READY_TIMEOUT * NSEC_PER_SEC;
	while (__atomic_load_n(&ctl->ready, __ATOMIC_SEQ_CST) < n) {
		if (pending_signal() || tasks_failed())
			return -1;
		if (now_ns() > deadline) {
			fprintf(stderr, "%d tasks not ready after %d s\n", n,
				READY_TIMEOUT);
			return -1;
		}
		usleep(1000);
	}
	if (tasks_failed())
		return -1;

	start = now_ns();
	prev_t = start;
	__atomic_store_n(&ctl->go, 1, __ATOMIC_RELEASE);
	futex_wake_all(&ctl->go);

	for (i = 0; i < nr_warmup + nr_samples; i++) {
		if (!sleep_until(start + (i + 1) * interval_ms * 1000000LL))
			return -1;
		t = now_ns();
		total = read_total(n);
		if (tasks_failed())
			return -1;
		if (i < nr_warmup)
			r->warmup[i] = (total - prev) * 1e9 / (t - prev_t);
		else
			r->samples[i - nr_warmup] =
				(total - prev) * 1e9 / (t - prev_t);
		prev = total;
		prev_t = t;
	}
	stop_tasks();
	remove_names();
	summarise(r);
	return 0;
}

static const char *bench_name(void)
{
	return bench == UNLINK1 ? "unlink1" : "unlink2";
}

static const char *mode_name(void)
{
	return use_threads ? "threads" : "processes";
}

static void json_array(FILE *f, const double *v, int n)
{
	int i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.17g", i ? ", " : "", v[i]);
	fputc(']', f);
}

static int write_json(const char *kernel)
{
	FILE *f = fopen(json_path, "w");
	int i;

	if (!f) {
		perror(json_path);
		return -1;
	}
	fprintf(f, "{\n  \"benchmark\": \"%s\",\n  \"mode\": \"%s\",\n",
		bench_name(), mode_name());
	fputs("  \"kernel\": ", f);
	json_string(f, kernel);
	fprintf(f, ",\n  \"ncpus\": %d,\n  \"interval_ms\": %d,\n", ncpus,
		interval_ms);
	fprintf(f, "  \"warmup\": %d,\n  \"nr_samples\": %d,\n",
		nr_warmup, nr_samples);
	fputs("  \"units\": \"ops/sec\",\n  \"results\": [", f);
	for (i = 0; i < nr_counts; i++) {
		struct result *r = &results[i];

		fprintf(f, "%s\n    {\"tasks\": %d, \"samples\": ",
			i ? "," : "", r->tasks);
		json_array(f, r->samples, nr_samples);
		fputs(", \"warmup_samples\": ", f);
		json_array(f, r->warmup, nr_warmup);
		fprintf(f, ",\n     \"min\": %.2f, \"hmean\": %.2f, ",
			r->min, r->hmean);
		fprintf(f, "\"stddev\": %.2f, \"coeffvar\": %.2f, \"max\": %.2f}",
			r->stddev, r->coeffvar, r->max);
	}
	fputs("\n  ]\n}\n", f);
	if (fclose(f)) {
		perror(json_path);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "b:m:t:T:i:w:s:d:o:nh")) != -1) {
		switch (opt) {
		case 'b':
			if (!strcmp(optarg, "unlink1"))
				bench = UNLINK1;
			else if (!strcmp(optarg, "unlink2"))
				bench = UNLINK2;
			else
				return -1;
			break;
		case 'm':
			if (!strcmp(optarg, "process") ||
			    !strcmp(optarg, "processes"))
				use_threads = false;
			else if (!strcmp(optarg, "thread") ||
				 !strcmp(optarg, "threads"))
				use_threads = true;
			else
				return -1;
			break;
		case 't':
			if (!parse_counts(optarg))
				return -1;
			break;
		case 'T':
			if (!parse_int(optarg, 1, MAX_TASKS, &ladder_end))
				return -1;
			break;
		case 'i':
			if (!parse_int(optarg, 10, 60000, &interval_ms))
				return -1;
			break;
		case 'w':
			if (!parse_int(optarg, 0, MAX_SAMPLES, &nr_warmup))
				return -1;
			break;
		case 's':
			if (!parse_int(optarg, 1, MAX_SAMPLES, &nr_samples))
				return -1;
			break;
		case 'd':
			base_dir = optarg;
			break;
		case 'o':
			json_path = optarg;
			break;
		case 'n':
			list_only = true;
			break;
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

static int setup(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	long long secs = 0;
	int i, max = 0;

	/* No SA_RESTART: a signal ends the parent's sleep at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);

	for (i = 0; i < nr_counts; i++) {
		if (counts[i] > max)
			max = counts[i];
		secs += READY_TIMEOUT + REAP_TIMEOUT;
		secs += (nr_warmup + nr_samples) * (long long)interval_ms / 1000;
	}
	/* A bound on the whole run, whatever happens to the tasks. */
	alarm(secs + 60);

	names = calloc(max, sizeof(*names));
	dirs = calloc(max, sizeof(*dirs));
	pids = calloc(max, sizeof(*pids));
	threads = calloc(max, sizeof(*threads));
	results = calloc(nr_counts, sizeof(*results));
	shm_size = (max + 1) * sizeof(union slot);
	shm = mmap(NULL, shm_size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		shm = NULL;
	if (!names || !dirs || !pids || !threads || !results || !shm) {
		fprintf(stderr, "out of memory\n");
		return -1;
	}
	return 0;
}

static void print_header(const char *kernel)
{
	printf("# %s %s, kernel %s, %d cpus, %d warm-up + %d samples of %d ms\n",
	       bench_name(), mode_name(), kernel, ncpus, nr_warmup, nr_samples,
	       interval_ms);
	printf("%8s %12s %12s %12s %12s %12s\n", "tasks", "Min", "Hmean",
	       "Stddev", "CoeffVar", "Max");
	fflush(stdout);
}

static void print_row(const struct result *r)
{
	printf("%8d %12.2f %12.2f %12.2f %12.2f %12.2f\n", r->tasks, r->min,
	       r->hmean, r->stddev, r->coeffvar, r->max);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	struct utsname uts;
	int i, ret = KSFT_FAIL, sig;

	if (find_cpus()) {
		fprintf(stderr, "no CPU to run on\n");
		return KSFT_FAIL;
	}
	if (parse_args(argc, argv)) {
		show_usage(argv[0]);
		return KSFT_FAIL;
	}
	if (!nr_counts)
		make_ladder(2, ladder_end ? ladder_end :
			    (4 * ncpus < MAX_TASKS ? 4 * ncpus : MAX_TASKS));
	if (!nr_counts) {
		fprintf(stderr, "no task counts to run\n");
		return KSFT_FAIL;
	}
	if (list_only) {
		for (i = 0; i < nr_counts; i++)
			printf("%d%c", counts[i], i + 1 < nr_counts ? ',' : '\n');
		return KSFT_PASS;
	}
	if (!base_dir)
		base_dir = tmp && *tmp ? tmp : "/tmp";
	uname(&uts);

	if (setup())
		goto out;

	if (snprintf(run_dir, sizeof(run_dir), "%s/unlink_bench.XXXXXX",
		     base_dir) >= (int)sizeof(run_dir)) {
		fprintf(stderr, "%s: name too long\n", base_dir);
		run_dir[0] = '\0';
		goto out;
	}
	if (!mkdtemp(run_dir)) {
		fprintf(stderr, "cannot make a directory in %s: %s: skipping\n",
			base_dir, strerror(errno));
		run_dir[0] = '\0';
		ret = KSFT_SKIP;
		goto out;
	}

	print_header(uts.release);
	for (i = 0; i < nr_counts; i++) {
		if (run_one(counts[i], &results[i]))
			goto out;
		print_row(&results[i]);
	}
	ret = KSFT_PASS;
	if (json_path && write_json(uts.release))
		ret = KSFT_FAIL;
out:
	cleanup();
	sig = pending_signal();
	if (sig == SIGALRM) {
		fprintf(stderr, "%s: run took too long, stopped\n", argv[0]);
		ret = KSFT_FAIL;
	} else if (sig) {
		fprintf(stderr, "%s: %s, stopped\n", argv[0], strsignal(sig));
		signal(sig, SIG_DFL);
		raise(sig);
		ret = KSFT_FAIL;
	}
	return ret;
}
