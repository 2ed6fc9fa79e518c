/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two benchmarks of sched_state, set_state_bench and unlink_bench,
 * share: reading a number from the command line and writing JSON strings.
 */
#ifndef SCHED_STATE_BENCH_UTIL_H
#define SCHED_STATE_BENCH_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* @s, all of it a decimal number in [@lo, @hi], into @val. */
static inline bool parse_int(const char *s, int lo, int hi, int *val)
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
static inline void json_string(FILE *f, const char *s)
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

#endif /* SCHED_STATE_BENCH_UTIL_H */
