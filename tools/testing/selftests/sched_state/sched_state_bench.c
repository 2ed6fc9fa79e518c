// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_bench: the latency of set_current_state() as the running
 * kernel builds it, against __set_current_state(), smp_mb() and an empty
 * loop, timed by test_sched_state.ko's bench request (sched_state.h) on one
 * CPU or on each online CPU in turn.
 *
 * One KTAP result; before it, per CPU, the ns per call of each variant in
 * each repeat, then per variant its median, min and max over the repeats,
 * "net", the median less the empty loop's, and "ratio", net over
 * set_current_state()'s net.  Under emulation only the ratios mean anything.
 *
 * Exit: 0 when the run completed, 1 on an error, 4 (KSFT_SKIP) without root
 * or the module.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../kselftest.h"
#include "sched_state_user.h"

#define TEST_NAME	"sched_state_bench"

static const struct {
	const char *name;
} variants[] = {
#define SCHED_STATE_BENCH_VARIANT(name)	{ #name },
#include "sched_state.h"
};

enum {
#define SCHED_STATE_BENCH_VARIANT(name)	V_##name,
#include "sched_state.h"
	NR_VARIANTS
};

static int calls = 1000000, repeats = 5;
/* one CPU's ns per call, [variant][repeat] */
static double ns[NR_VARIANTS][SCHED_STATE_BENCH_MAX_REPEATS];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *x, double *min, double *max)
{
	double s[SCHED_STATE_BENCH_MAX_REPEATS];

	memcpy(s, x, repeats * sizeof(*s));
	qsort(s, repeats, sizeof(*s), cmp_double);
	*min = s[0];
	*max = s[repeats - 1];
	return repeats % 2 ? s[repeats / 2] :
	       (s[repeats / 2 - 1] + s[repeats / 2]) / 2;
}

static void print_cpu(int cpu)
{
	double med[NR_VARIANTS], min[NR_VARIANTS], max[NR_VARIANTS], net, ref;
	int r, v;

	for (r = 0; r < repeats; r++) {
		printf("# cpu %d repeat %d ns/call:", cpu, r + 1);
		for (v = 0; v < NR_VARIANTS; v++)
			printf(" %s %.3f", variants[v].name, ns[v][r]);
		printf("\n");
	}
	for (v = 0; v < NR_VARIANTS; v++)
		med[v] = median(ns[v], &min[v], &max[v]);
	ref = med[V_set_current_state] - med[V_empty_loop];
	for (v = 0; v < NR_VARIANTS; v++) {
		printf("# cpu %d %-19s ns/call median %8.3f min %8.3f max %8.3f",
		       cpu, variants[v].name, med[v], min[v], max[v]);
		net = med[v] - med[V_empty_loop];
		if (v == V_empty_loop)
			printf("\n");
		else
			printf(" net %8.3f ratio %6.3f\n", net,
			       ref > 0 ? net / ref : 0);
	}
}

/* Parse the reply, a line "<cpu> <variant> <ns>..." per CPU and variant. */
static int report(char *reply)
{
	char *line, *save = NULL, *p, *end, name[32];
	int cpu = -1, c, n, r, v = 0;

	for (line = strtok_r(reply, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), v = (v + 1) % NR_VARIANTS) {
		if (sscanf(line, "%d %31s%n", &c, name, &n) != 2 ||
		    (v && c != cpu) || strcmp(name, variants[v].name))
			goto bad;
		cpu = c;
		for (p = line + n, r = 0; r < repeats; r++, p = end) {
			ns[v][r] = (double)strtoull(p, &end, 10) / calls;
			if (end == p)
				goto bad;
		}
		if (*p)
			goto bad;
		if (v == NR_VARIANTS - 1)
			print_cpu(cpu);
	}
	if (!v && cpu >= 0)
		return 0;
	ksft_print_msg("reply cut short\n");
	return -1;
bad:
	ksft_print_msg("unexpected reply line \"%s\"\n", line);
	return -1;
}

int main(int argc, char **argv)
{
	char req[SCHED_STATE_MAX_REQUEST], *reply, *cpu = "0";
	struct utsname uts;
	int opt, ret;

	while ((opt = getopt(argc, argv, "n:r:c:")) != -1) {
		if (opt == 'n')
			calls = atoi(optarg);
		else if (opt == 'r')
			repeats = atoi(optarg);
		else if (opt == 'c')
			cpu = optarg;
		else
			break;
	}
	if (opt != -1 || optind != argc || calls < 1 || repeats < 1 ||
	    repeats > SCHED_STATE_BENCH_MAX_REPEATS || strlen(cpu) > 8) {
		fprintf(stderr, "usage: %s [-n CALLS] [-r REPEATS (1-%d)] [-c CPU|all]\n",
			argv[0], SCHED_STATE_BENCH_MAX_REPEATS);
		return KSFT_FAIL;
	}

	ksft_print_header();
	ksft_set_plan(1);
	if (geteuid() || access(SCHED_STATE_CONTROL, W_OK)) {
		printf("ok 1 %s # SKIP %s\n", TEST_NAME,
		       geteuid() ? "not root" : "no module");
		return KSFT_SKIP;
	}
	uname(&uts);
	ksft_print_msg("%s: kernel %s, %d calls x %d repeats on cpu %s\n",
		       TEST_NAME, uts.release, calls, repeats, cpu);

	reply = malloc(SCHED_STATE_MAX_REPLY);
	if (!reply)
		ksft_exit_fail_msg("out of memory\n");
	snprintf(req, sizeof(req), "bench %d %d %s\n", calls, repeats, cpu);
	ret = sched_state_request(req, reply, SCHED_STATE_MAX_REPLY);
	if (ret)
		ksft_print_msg("request \"bench %d %d %s\": %s\n", calls,
			       repeats, cpu, strerror(-ret));
	else
		ret = report(reply);
	ksft_test_result(!ret, "%s\n", TEST_NAME);
	free(reply);
	ksft_finished();
}
