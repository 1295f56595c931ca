/*
 * bench_stacks - cost of host call stacks on the recording path.
 *
 *   bench_stacks same|distinct N DEPTH WORK_EVERY
 *
 * Records N records from DEPTH nested calls (so every stack has the same
 * depth).  "same": every record comes from the same call path, so after the
 * first the stack is a cache hit.  "distinct": each record's path is chosen
 * by the bits of its index (two functions per level), so up to 2^DEPTH
 * stacks are all different and each must be hashed, sent and symbolized.
 * Every WORK_EVERY-th record carries CAP_REC_WORK (what
 * TRACESMITH_STACKS=work takes stacks for).  The caller sets
 * TRACESMITH_STACKS and TRACESMITH_OUTPUT.  Prints producer time per
 * record and the total until the trace is closed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/cap.h"

#define BENCH_TYPE (SBT_TYPE_FIRST_API + 2)

static volatile uint64_t bench_sink;

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t bench_down_a(unsigned level, uint64_t path, uint64_t i, unsigned flags);
static uint64_t bench_down_b(unsigned level, uint64_t path, uint64_t i, unsigned flags);

/* One level of the call path; the work after the call keeps the compiler
 * from turning it into a jump, so each level is a real frame. */
static __attribute__((noinline)) uint64_t bench_step(unsigned level, uint64_t path,
                                                     uint64_t i, unsigned flags)
{
	uint64_t r;
	if (level == 0)
		return cap_record(BENCH_TYPE, flags, &i, sizeof(i));
	if ((path >> (level - 1)) & 1)
		r = bench_down_b(level - 1, path, i, flags);
	else
		r = bench_down_a(level - 1, path, i, flags);
	bench_sink += r;
	return r + 1;
}

static __attribute__((noinline)) uint64_t bench_down_a(unsigned level, uint64_t path,
                                                       uint64_t i, unsigned flags)
{
	uint64_t r = bench_step(level, path, i, flags);
	bench_sink ^= r;
	return r;
}

static __attribute__((noinline)) uint64_t bench_down_b(unsigned level, uint64_t path,
                                                       uint64_t i, unsigned flags)
{
	uint64_t r = bench_step(level, path, i, flags);
	bench_sink += r;
	return r;
}

int main(int argc, char **argv)
{
	static const cap_type_desc types[] = { { BENCH_TYPE, "bench.stack" } };
	uint64_t n, i, every;
	unsigned depth;
	int distinct;
	double t0, t1, t2;
	cap_stats cs;

	if (argc != 5 || (strcmp(argv[1], "same") != 0 && strcmp(argv[1], "distinct") != 0)) {
		fprintf(stderr, "usage: bench_stacks same|distinct N DEPTH WORK_EVERY\n");
		return 2;
	}
	distinct = strcmp(argv[1], "distinct") == 0;
	n = strtoull(argv[2], NULL, 10);
	depth = (unsigned)strtoul(argv[3], NULL, 10);
	every = strtoull(argv[4], NULL, 10);
	if (n == 0 || depth == 0 || depth > 40 || every == 0) {
		fprintf(stderr, "bench_stacks: bad arguments\n");
		return 2;
	}
	cap_register_api("bench", types, 1);
	/* TRACESMITH_DISABLE=1 runs the same loop without capture: the baseline
	 * that run.sh subtracts. */
	if (!cap_active() && !getenv("TRACESMITH_DISABLE")) {
		fprintf(stderr, "bench_stacks: capture is not recording\n");
		return 1;
	}
	t0 = bench_now();
	for (i = 0; i < n; i++)
		bench_step(depth, distinct ? i : 0, i, i % every == 0 ? CAP_REC_WORK : 0);
	t1 = bench_now();
	cap_shutdown();
	t2 = bench_now();
	cap_get_stats(&cs);
	printf("mode %s records %llu depth %u producer_ns_per_record %.1f total_seconds %.6f "
	       "stacks_taken %llu stacks_unique %llu\n",
	       argv[1], (unsigned long long)n, depth, (t1 - t0) * 1e9 / (double)n, t2 - t0,
	       (unsigned long long)cs.stacks_taken, (unsigned long long)cs.stacks_unique);
	return 0;
}
