// SPDX-License-Identifier: GPL-2.0
/*
 * set_state_bench: the latency benchmark of commit 642fa448ae ("sched/core:
 * Remove set_task_state()"), which timed some 65 million calls of
 * set_task_state(current, ..) against set_current_state() in the kernel.
 *
 * The timing is done by the test_sched_state module (its "bench" request,
 * see sched_state.h): a kthread bound to one CPU times -n calls of each of
 * set_task_state() as it was (smp_store_mb() through a task pointer),
 * set_current_state(), __set_current_state(), smp_store_release(),
 * WRITE_ONCE() + smp_mb() and an empty loop, the variants taking turns.
 * After an uncounted warm-up round of at most 1000000 calls, this program
 * asks for one repeat on one CPU at a time, -r times per CPU of -c (one CPU,
 * or all online ones in turn), so that every reply is small and progress
 * shows.  It prints the commit's "Avg runtime ...: N msecs" lines and, per
 * variant, min/median/mean/stddev of ns per call, the total time and the
 * mean less the empty loop's, all as KTAP diagnostic lines; with -o it
 * writes the results as JSON.
 *
 * Exit: 0 when the run completed (a benchmark does not fail), 1 on error,
 * 4 (KSFT_SKIP) without root or the module.  A fatal signal stops the
 * kernel's part within one chunk of calls (about 10 ms).
 */
#ifndef _GNU_SOURCE	/* mainline lib.mk passes -D_GNU_SOURCE */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../kselftest.h"
#include "bench_util.h"
#include "sched_state_user.h"

#define DEFAULT_CALLS	65000000
#define DEFAULT_REPEATS	5
#define QUICK_CALLS	1000000
#define QUICK_REPEATS	3
#define WARMUP_CALLS	1000000	/* a round first, not counted */
#define MAX_CPUS	8192
#define REPLY_LEN	8192		/* more than one repeat on one CPU takes */
#define CPU_ONLINE	"/sys/devices/system/cpu/online"

/* The module's variants, in the order of its reply. */
static const struct {
	const char *name;	/* in the module's reply and the JSON */
	const char *label;	/* as the commit printed it */
} variants[] = {
#define SCHED_STATE_BENCH_VARIANT(name, label)	{ #name, label },
#include "sched_state.h"
};

#define NR_VARIANTS	ARRAY_SIZE(variants)
#define EMPTY_LOOP	(NR_VARIANTS - 1)

static int calls = -1;
static int repeats = -1;
static const char *cpu_arg;
static const char *json_path;
static int cpus[MAX_CPUS];
static int nr_cpus;
/* ns[(c * NR_VARIANTS + v) * repeats + r]: CPU c, variant v, repeat r */
static unsigned long long *ns;

static void show_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n CALLS] [-r REPEATS] [-c CPU|all] [-o FILE.json] [-q]\n"
		"  -n  calls of each variant in a repeat (default %d)\n"
		"  -r  repeats (default %d)\n"
		"  -c  the CPU to run on, or all online CPUs in turn\n"
		"      (default: the first online CPU)\n"
		"  -o  write the results as JSON\n"
		"  -q  quick: %d calls, %d repeats, unless -n or -r say\n"
		"needs root and test_sched_state.ko loaded\n",
		prog, DEFAULT_CALLS, DEFAULT_REPEATS, QUICK_CALLS,
		QUICK_REPEATS);
}

/* The online CPUs, from a list such as "0-3,5" in sysfs. */
static int read_online(void)
{
	char buf[4096], *tok, *save = NULL;
	int first, last, n;
	FILE *f;

	f = fopen(CPU_ONLINE, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		ksft_print_msg("%s: %s\n", CPU_ONLINE, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	nr_cpus = 0;
	for (tok = strtok_r(buf, ",\n", &save); tok;
	     tok = strtok_r(NULL, ",\n", &save)) {
		n = sscanf(tok, "%d-%d", &first, &last);
		if (n == 1)
			last = first;
		if (n < 1 || first < 0 || last < first || last >= MAX_CPUS)
			goto bad;
		while (first <= last && nr_cpus < MAX_CPUS)
			cpus[nr_cpus++] = first++;
	}
	if (nr_cpus)
		return 0;
bad:
	ksft_print_msg("%s: cannot parse \"%s\"\n", CPU_ONLINE, buf);
	return -1;
}

/* The CPUs to run on: -c CPU, -c all, or the first online CPU. */
static int pick_cpus(void)
{
	int i, cpu;

	if (read_online())
		return -1;
	if (cpu_arg && !strcmp(cpu_arg, "all"))
		return 0;
	if (!cpu_arg) {
		nr_cpus = 1;
		return 0;
	}
	if (!parse_int(cpu_arg, 0, MAX_CPUS - 1, &cpu)) {
		ksft_print_msg("-c %s: expected a CPU number or all\n",
			       cpu_arg);
		return -1;
	}
	for (i = 0; i < nr_cpus; i++) {
		if (cpus[i] == cpu) {
			cpus[0] = cpu;
			nr_cpus = 1;
			return 0;
		}
	}
	ksft_print_msg("cpu %d is not online\n", cpu);
	return -1;
}

static int parse_args(int argc, char **argv)
{
	bool quick = false;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:c:o:qh")) != -1) {
		switch (opt) {
		case 'n':
			if (!parse_int(optarg, 1, SCHED_STATE_BENCH_MAX_CALLS,
				       &calls))
				return -1;
			break;
		case 'r':
			if (!parse_int(optarg, 1, SCHED_STATE_BENCH_MAX_REPEATS,
				       &repeats))
				return -1;
			break;
		case 'c':
			cpu_arg = optarg;
			break;
		case 'o':
			json_path = optarg;
			break;
		case 'q':
			quick = true;
			break;
		default:
			return -1;
		}
	}
	if (calls < 0)
		calls = quick ? QUICK_CALLS : DEFAULT_CALLS;
	if (repeats < 0)
		repeats = quick ? QUICK_REPEATS : DEFAULT_REPEATS;
	return optind == argc ? 0 : -1;
}

static unsigned long long *slot(int c, unsigned int v, int r)
{
	return &ns[(c * NR_VARIANTS + v) * repeats + r];
}

/*
 * One bench request: @n calls of each variant, once, on cpus[@c]; their ns
 * into @res.  Returns 0, or -errno with the reason printed.
 */
static int bench_once(int c, int n, unsigned long long res[NR_VARIANTS])
{
	char req[SCHED_STATE_MAX_REQUEST + 1], *reply, *line, *save = NULL;
	unsigned long long val;
	bool seen[NR_VARIANTS] = { false };
	char name[64];
	unsigned int v;
	int cpu, ret = 0;

	reply = malloc(REPLY_LEN);
	if (!reply)
		return -ENOMEM;
	snprintf(req, sizeof(req), "bench %d 1 %d\n", n, cpus[c]);
	ret = sched_state_request(req, reply, REPLY_LEN);
	if (ret) {
		ksft_print_msg("request \"bench %d 1 %d\": %s\n", n, cpus[c],
			       strerror(-ret));
		if (ret == -ETIMEDOUT)
			ksft_print_msg("a request may run %d ms: fewer calls (-n)\n",
				       SCHED_STATE_MAX_BUSY_MS);
		goto out;
	}

	for (line = strtok_r(reply, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%d %63s %llu", &cpu, name, &val) != 3 ||
		    cpu != cpus[c])
			goto bad;
		for (v = 0; v < NR_VARIANTS; v++)
			if (!strcmp(name, variants[v].name))
				break;
		if (v == NR_VARIANTS)
			goto bad;
		res[v] = val;
		seen[v] = true;
	}
	for (v = 0; v < NR_VARIANTS; v++) {
		if (!seen[v]) {
			ksft_print_msg("reply without %s\n", variants[v].name);
			ret = -EPROTO;
			goto out;
		}
	}
	goto out;
bad:
	ksft_print_msg("unexpected reply line \"%s\"\n", line);
	ret = -EPROTO;
out:
	free(reply);
	return ret;
}

static double ns_per_call(int c, unsigned int v, int r)
{
	return (double)*slot(c, v, r) / calls;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stats {
	double min, median, mean, stddev, total_ms;
};

/* Over the repeats of variant @v on cpus[@c]. */
static void get_stats(int c, unsigned int v, struct stats *s)
{
	double x[SCHED_STATE_BENCH_MAX_REPEATS], sum = 0, var = 0;
	int i;

	s->total_ms = 0;
	for (i = 0; i < repeats; i++) {
		x[i] = ns_per_call(c, v, i);
		sum += x[i];
		s->total_ms += *slot(c, v, i) / 1e6;
	}
	s->mean = sum / repeats;
	for (i = 0; i < repeats; i++)
		var += (x[i] - s->mean) * (x[i] - s->mean);
	/* the population stddev, as mmtests */
	s->stddev = sqrt(var / repeats);
	qsort(x, repeats, sizeof(x[0]), cmp_double);
	s->min = x[0];
	s->median = repeats % 2 ? x[repeats / 2] :
		    (x[repeats / 2 - 1] + x[repeats / 2]) / 2;
}

static void print_results(int c)
{
	struct stats s, empty;
	unsigned int v;

	ksft_print_msg("cpu %d, %d calls x %d repeats:\n", cpus[c], calls,
		       repeats);
	for (v = 0; v < NR_VARIANTS; v++) {
		get_stats(c, v, &s);
		ksft_print_msg("Avg runtime %s: %.0f msecs\n",
			       variants[v].label, s.total_ms / repeats);
	}
	get_stats(c, EMPTY_LOOP, &empty);
	ksft_print_msg("%-20s %9s %9s %9s %9s %10s %9s\n", "ns/call",
		       "min", "median", "mean", "stddev", "total ms",
		       "corrected");
	for (v = 0; v < NR_VARIANTS; v++) {
		get_stats(c, v, &s);
		ksft_print_msg("%-20s %9.3f %9.3f %9.3f %9.3f %10.1f %9.3f\n",
			       variants[v].name, s.min, s.median, s.mean,
			       s.stddev, s.total_ms, s.mean - empty.mean);
	}
}

static void json_list(FILE *f, unsigned int v, bool ms)
{
	const char *sep = "";
	int c, r;

	fputc('[', f);
	for (c = 0; c < nr_cpus; c++) {
		for (r = 0; r < repeats; r++) {
			if (ms)
				fprintf(f, "%s%.6f", sep, *slot(c, v, r) / 1e6);
			else
				fprintf(f, "%s%.6f", sep, ns_per_call(c, v, r));
			sep = ", ";
		}
	}
	fputc(']', f);
}

/*
 * The results as JSON; with several CPUs each list holds their repeats
 * one CPU after the other, in the order of "cpus".
 */
static int write_json(const char *kernel)
{
	FILE *f = fopen(json_path, "w");
	unsigned int v;
	int c;

	if (!f) {
		ksft_print_msg("%s: %s\n", json_path, strerror(errno));
		return -1;
	}
	fputs("{\n  \"benchmark\": \"set_current_state-latency\",\n", f);
	fputs("  \"kernel\": ", f);
	json_string(f, kernel);
	fprintf(f, ",\n  \"calls\": %d,\n", calls);
	fprintf(f, "  \"repeats\": %d,\n  \"cpus\": [", repeats);
	for (c = 0; c < nr_cpus; c++)
		fprintf(f, "%s%d", c ? ", " : "", cpus[c]);
	fputs("],\n  \"variants\": {", f);
	for (v = 0; v < NR_VARIANTS; v++) {
		fprintf(f, "%s\n    \"%s\": {\"ns_per_call\": ", v ? "," : "",
			variants[v].name);
		json_list(f, v, false);
		fputs(",\n      \"total_ms\": ", f);
		json_list(f, v, true);
		fputc('}', f);
	}
	fputs("\n  }\n}\n", f);
	if (fclose(f)) {
		ksft_print_msg("%s: %s\n", json_path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long res[NR_VARIANTS];
	struct utsname uts;
	char where[32];
	unsigned int v;
	int c, r, ret;

	if (parse_args(argc, argv)) {
		show_usage(argv[0]);
		return KSFT_FAIL;
	}
	if (pick_cpus())
		return KSFT_FAIL;
	if (geteuid()) {
		ksft_print_msg("SKIP: set_state_bench must be run as root\n");
		return KSFT_SKIP;
	}
	if (access(SCHED_STATE_CONTROL, W_OK)) {
		ksft_print_msg("SKIP: %s: %s (load test_sched_state.ko)\n",
			       SCHED_STATE_CONTROL, strerror(errno));
		return KSFT_SKIP;
	}
	ns = calloc((size_t)nr_cpus * NR_VARIANTS * repeats, sizeof(*ns));
	if (!ns) {
		ksft_print_msg("out of memory\n");
		return KSFT_FAIL;
	}
	uname(&uts);
	if (nr_cpus > 1)
		snprintf(where, sizeof(where), "all %d online cpus", nr_cpus);
	else
		snprintf(where, sizeof(where), "cpu %d", cpus[0]);
	ksft_print_msg("set_state_bench: kernel %s, %d calls x %d repeats on %s\n",
		       uts.release, calls, repeats, where);
	fflush(stdout);

	/* a warm-up round on each CPU, not counted: caches, TCG's code */
	for (c = 0; c < nr_cpus; c++) {
		ret = bench_once(c, calls < WARMUP_CALLS ? calls : WARMUP_CALLS,
				 res);
		if (ret == -EINVAL)
			ksft_print_msg("does the module know \"bench\"? (sched_state.h)\n");
		if (ret)
			return KSFT_FAIL;
	}
	for (r = 0; r < repeats; r++) {
		for (c = 0; c < nr_cpus; c++) {
			if (bench_once(c, calls, res))
				return KSFT_FAIL;
			printf("# repeat %d/%d cpu %d, ms:", r + 1, repeats,
			       cpus[c]);
			for (v = 0; v < NR_VARIANTS; v++) {
				*slot(c, v, r) = res[v];
				printf(" %s %.1f", variants[v].name, res[v] / 1e6);
			}
			printf("\n");
			fflush(stdout);
		}
	}

	for (c = 0; c < nr_cpus; c++)
		print_results(c);
	if (json_path && write_json(uts.release))
		return KSFT_FAIL;
	return KSFT_PASS;
}
