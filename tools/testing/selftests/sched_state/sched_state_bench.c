// SPDX-License-Identifier: GPL-2.0
/*
 * sched_state_bench: commit 642fa448ae's question, the store and barrier
 * of set_current_state() through current against the same through a task
 * pointer (set_task_state()), the barrier's share (against
 * __set_task_state()), and what set_current_state() adds to its store and
 * barrier (CONFIG_DEBUG_ATOMIC_SLEEP's task_state_change), timed by
 * test_sched_state.ko (test_module/bench.c), the variants taking turns in
 * each repeat.  KTAP: per variant the median, min and max ns/call, then
 * the median of each per-repeat difference, "below resolution" when no
 * larger than the spread (max - min) of either variant compared.  The one
 * result fails if a request fails, or if a variant ran faster than the
 * empty loop, the call alone, by more than that: the timing is broken.
 * Exit 0 when it ran, 1 on an error, 4 to skip (no root, no module).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../kselftest.h"
#include "sched_state_user.h"

#define MAX_REPEATS	100

static const char * const variants[] = {
	"set_current_state", "current_store_mb", "set_task_state",
	"__set_task_state", "empty_loop",
};

enum { SCS, CUR_MB, STS, STS_NOMB, EMPTY, NR_VARIANTS };

/* What is printed: a's ns/call minus b's, repeat by repeat; a does more */
static const struct {
	int a, b;
	const char *what;
} diffs[] = {
	{ CUR_MB, STS, "current, smp_store_mb() through current over set_task_state()" },
	{ STS, STS_NOMB, "barrier, set_task_state() over __set_task_state()" },
	{ SCS, CUR_MB, "set_current_state() over its smp_store_mb() (debug hooks)" },
	{ SCS, EMPTY, "set_current_state() over the empty loop" },
	{ STS, EMPTY, "set_task_state() over the empty loop" },
	{ STS_NOMB, EMPTY, "__set_task_state() over the empty loop" },
};

/* Signs of a virtual machine: a word in a file */
static const char * const vm_signs[][2] = {
	{ "/proc/cpuinfo", "hypervisor" },	/* x86's CPUID flag */
	{ "/proc/cpuinfo", "qemu" },		/* pseries */
	{ "/sys/hypervisor/type", "xen" },
	{ "/sys/devices/virtual/dmi/id/sys_vendor", "QEMU" },
	{ "/sys/devices/virtual/dmi/id/product_name", "Standard PC" },
	{ "/sys/firmware/devicetree/base/compatible", "dummy-virt" },
};

/* A CPU's model in /proc/cpuinfo: x86 and arm, powerpc, arm64 */
static const char * const models[] = { "model name", "cpu\t", "CPU part" };

static int calls = 1000000, repeats = 5;
static double ns[NR_VARIANTS][MAX_REPEATS];	/* one CPU's ns/call */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *x, double *min, double *max)
{
	double s[MAX_REPEATS];

	memcpy(s, x, repeats * sizeof(*s));
	qsort(s, repeats, sizeof(*s), cmp_double);
	*min = s[0];
	*max = s[repeats - 1];
	return (s[(repeats - 1) / 2] + s[repeats / 2]) / 2;
}

/* @word in the first 64 KiB of file @path: where, or NULL */
static const char *file_find(const char *path, const char *word)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, word);
}

/* The model of @cpu: its block of /proc/cpuinfo, or NULL */
static const char *cpu_model(int cpu, int *len)
{
	char want[32];
	const char *block, *end, *m;
	size_t i;

	snprintf(want, sizeof(want), "processor\t: %d\n", cpu);
	block = file_find("/proc/cpuinfo", want);
	if (!block)
		return NULL;
	end = strstr(block, "\n\n");
	for (i = 0; i < ARRAY_SIZE(models); i++) {
		m = strstr(block, models[i]);
		if (m && (!end || m < end)) {
			*len = strcspn(m, "\n");
			return m;
		}
	}
	return NULL;
}

/* ns/call of variant @v on @cpu into *@out, or -errno */
static int time_variant(int v, int cpu, double *out)
{
	char req[SCHED_STATE_MAX_REQUEST], reply[32], *end;
	int ret;

	snprintf(req, sizeof(req), "bench %s %d %d", variants[v], calls, cpu);
	ret = sched_state_request(req, reply, sizeof(reply));
	*out = ret ? 0 : (double)strtoull(reply, &end, 10) / calls;
	if (!ret && (end == reply || *end != '\n'))
		ret = -EPROTO;
	if (ret)
		ksft_print_msg("request \"%s\": %s\n", req, strerror(-ret));
	return ret;
}

static int bench_cpu(int cpu)
{
	double d[MAX_REPEATS], med, min, max, spread[NR_VARIANTS], res;
	bool broken = false;
	int r, v, ret;
	size_t i;

	for (r = 0; r < repeats; r++) {
		for (v = 0; v < NR_VARIANTS; v++) {
			ret = time_variant(v, cpu, &ns[v][r]);
			if (ret)
				return ret;
		}
		printf("# cpu %d repeat %d ns/call:", cpu, r + 1);
		for (v = 0; v < NR_VARIANTS; v++)
			printf(" %s %.3f", variants[v], ns[v][r]);
		printf("\n");
	}
	for (v = 0; v < NR_VARIANTS; v++) {
		med = median(ns[v], &min, &max);
		spread[v] = max - min;
		ksft_print_msg("cpu %d %-17s ns/call median %8.3f min %8.3f max %8.3f\n",
			       cpu, variants[v], med, min, max);
	}
	for (i = 0; i < ARRAY_SIZE(diffs); i++) {
		res = spread[diffs[i].a] > spread[diffs[i].b] ?
		      spread[diffs[i].a] : spread[diffs[i].b];
		for (r = 0; r < repeats; r++)
			d[r] = ns[diffs[i].a][r] - ns[diffs[i].b][r];
		med = median(d, &min, &max);
		if (med > res) {
			ksft_print_msg("cpu %d %s: %.3f ns/call more (resolution %.3f)\n",
				       cpu, diffs[i].what, med, res);
			continue;
		}
		/* within the spread, or the other way: no cost measured */
		ksft_print_msg("cpu %d %s: below resolution (%.3f)\n", cpu,
			       diffs[i].what, res);
		if (med < -res && diffs[i].b == EMPTY) {
			ksft_print_msg("cpu %d %s ran faster than the call alone\n",
				       cpu, variants[diffs[i].a]);
			broken = true;
		}
	}
	return broken ? -ERANGE : 0;
}

int main(int argc, char **argv)
{
	int opt, cpu = 0, len = 0;
	const char *model;
	struct utsname uts;
	size_t i;

	while ((opt = getopt(argc, argv, "n:r:c:")) != -1) {
		if (opt == 'n')
			calls = atoi(optarg);
		else if (opt == 'r')
			repeats = atoi(optarg);
		else if (opt == 'c')
			cpu = atoi(optarg);
		else
			break;
	}
	if (opt != -1 || optind != argc || calls < 1 || cpu < 0 ||
	    calls > SCHED_STATE_BENCH_MAX_CALLS || repeats < 3 ||
	    repeats > MAX_REPEATS) {
		fprintf(stderr, "usage: %s [-n CALLS (1-%d)] [-r REPEATS (3-%d)] [-c CPU]\n",
			argv[0], SCHED_STATE_BENCH_MAX_CALLS, MAX_REPEATS);
		return KSFT_FAIL;
	}
	ksft_print_header();
	ksft_set_plan(1);
	if (geteuid() || access(SCHED_STATE_CONTROL, W_OK)) {
		printf("ok 1 sched_state_bench # SKIP %s\n",
		       geteuid() ? "not root" : "no module");
		return KSFT_SKIP;
	}
	uname(&uts);
	ksft_print_msg("sched_state_bench: kernel %s, %d calls x %d repeats, %s, cpu %d\n",
		       uts.release, calls, repeats, uts.machine, cpu);
	model = cpu_model(cpu, &len);
	if (model)
		ksft_print_msg("cpu %d cpuinfo: %.*s\n", cpu, len, model);
	for (i = 0; i < ARRAY_SIZE(vm_signs); i++)
		if (file_find(vm_signs[i][0], vm_signs[i][1]))
			break;
	if (i < ARRAY_SIZE(vm_signs))
		ksft_print_msg("emulated or virtualized (%s %s): figures describe the emulator\n",
			       vm_signs[i][0], vm_signs[i][1]);
	else
		ksft_print_msg("no hypervisor seen: figures describe this CPU\n");
	ksft_test_result(!bench_cpu(cpu), "sched_state_bench\n");
	ksft_finished();
}
