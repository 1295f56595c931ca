/*
 * Record times (capture/cap_clock.h): the counter's conversion to
 * CLOCK_MONOTONIC on made-up points (exact at the points, interpolated
 * between them, never decreasing, older values at the oldest point kept);
 * on this CPU's counter, readings of two threads across sleeps converted
 * within CAP_TEST_TOL_NS of CLOCK_MONOTONIC read around them; and the
 * times of a trace the runtime writes, the counter's way and with
 * TRACESMITH_CLOCK=monotonic (a child process: the mode is chosen once per
 * process), each within the same tolerance of the test's own readings
 * around each record and never decreasing.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap.h"
#include "capture/cap_clock.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

/* What a converted time may be off CLOCK_MONOTONIC: a point's error
 * (the gap between its two counter reads, the closest of a few). */
#define CAP_TEST_TOL_NS 20000u
#define CAP_TEST_SAMPLES 400

typedef struct clk_sample {
	uint64_t before, stamp, after;
} clk_sample;

static void clk_sleep_us(unsigned us)
{
	struct timespec ts = {us / 1000000u, (long)(us % 1000000u) * 1000};
	nanosleep(&ts, NULL);
}

static void clk_synthetic(void)
{
	cap_clock c;
	uint64_t prev = 0;
	memset(&c, 0, sizeof(c));
	c.tsc = 1;
	cap_clock_add_point(&c, 1000, 5000);
	cap_clock_add_point(&c, 2000, 6000);  /* 1 ns a count */
	cap_clock_add_point(&c, 1500, 9000);  /* not past the newest: ignored */
	cap_clock_add_point(&c, 4000, 6500);  /* 0.25 ns a count */
	TST_CHECK_EQ_U64(c.n, 3);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 1000), 5000);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 1500), 5500);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 2000), 6000);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 3000), 6250);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 4000), 6500);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 10), 5000); /* before every point */
	for (uint64_t x = 0; x <= 4000; x += 7) {
		uint64_t m = cap_clock_mono(&c, x);
		TST_CHECK(m >= prev);
		TST_CHECK(m >= 5000 && m <= 6500);
		prev = m;
	}
	/* The ring: the oldest points go, a value older than every point kept
	 * takes the oldest kept. */
	memset(&c, 0, sizeof(c));
	c.tsc = 1;
	for (uint64_t i = 0; i < CAP_CLOCK_POINTS + 44; i++)
		cap_clock_add_point(&c, 1000 * (i + 1), 3000 * (i + 1));
	TST_CHECK_EQ_U64(c.n, CAP_CLOCK_POINTS);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 1000), 3000 * 45);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 45000), 3000 * 45);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 45500), 3000 * 45 + 1500);
	TST_CHECK_EQ_U64(cap_clock_mono(&c, 1000 * (CAP_CLOCK_POINTS + 44)),
	                 3000 * (CAP_CLOCK_POINTS + 44));
}

typedef struct clk_thread_arg {
	clk_sample s[CAP_TEST_SAMPLES];
	unsigned seed;
} clk_thread_arg;

/* Counter readings bracketed by CLOCK_MONOTONIC, across short sleeps and
 * one long one. */
static void *clk_sampler(void *p)
{
	clk_thread_arg *a = p;
	for (int i = 0; i < CAP_TEST_SAMPLES; i++) {
		a->s[i].before = cap_clock_monotonic_ns();
		a->s[i].stamp = cap_clock_rdtscp();
		a->s[i].after = cap_clock_monotonic_ns();
		if (i == CAP_TEST_SAMPLES / 2)
			clk_sleep_us(300000);
		else if (rand_r(&a->seed) % 4 == 0)
			clk_sleep_us((unsigned)(rand_r(&a->seed) % 2000));
	}
	return NULL;
}

static int clk_within(uint64_t t, uint64_t before, uint64_t after)
{
	return t + CAP_TEST_TOL_NS >= before && t <= after + CAP_TEST_TOL_NS;
}

/* Convert as the writer would: this thread's readings in batches as they
 * are taken (points are taken as needed), the other thread's afterwards
 * (into the segments already made). */
static int clk_check(cap_clock *c, const clk_sample *s, int n, uint64_t *prev, int who)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		uint64_t m = cap_clock_mono(c, s[i].stamp);
		if (!clk_within(m, s[i].before, s[i].after) || m < *prev) {
			if (bad++ < 5)
				fprintf(stderr, "thread %d: converted %llu, read between %llu and %llu\n",
				        who, (unsigned long long)m, (unsigned long long)s[i].before,
				        (unsigned long long)s[i].after);
		}
		*prev = m;
	}
	return bad;
}

static void clk_real(void)
{
	static clk_thread_arg other;
	static clk_sample mine[CAP_TEST_SAMPLES];
	pthread_t th;
	cap_clock c;
	uint64_t prev_mine = 0, prev_other = 0;
	unsigned seed = 1;
	int bad = 0;
	cap_clock_init(&c, 1);
	TST_REQUIRE(c.tsc == 1 && c.n == 1);
	other.seed = 2;
	TST_REQUIRE(pthread_create(&th, NULL, clk_sampler, &other) == 0);
	for (int i = 0; i < CAP_TEST_SAMPLES; i++) {
		mine[i].before = cap_clock_monotonic_ns();
		mine[i].stamp = cap_clock_rdtscp();
		mine[i].after = cap_clock_monotonic_ns();
		if (i % 8 == 7)
			bad += clk_check(&c, mine + i - 7, 8, &prev_mine, 0);
		if (i == CAP_TEST_SAMPLES / 2)
			clk_sleep_us(300000);
		else if (rand_r(&seed) % 4 == 0)
			clk_sleep_us((unsigned)(rand_r(&seed) % 2000));
	}
	pthread_join(th, NULL);
	bad += clk_check(&c, other.s, CAP_TEST_SAMPLES, &prev_other, 1);
	TST_CHECK_EQ_U64(bad, 0);
	TST_CHECK(c.n > 10);
}

/* The runtime end to end: records made between two CLOCK_MONOTONIC
 * readings carry a time between them (as ns since the header). */
static int clk_trace(const char *path, int want_tsc)
{
	static uint64_t before[CAP_TEST_SAMPLES], after[CAP_TEST_SAMPLES];
	static const cap_type_desc types[] = {{64, "clock.tick"}};
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record rec;
	uint64_t prev = 0;
	unsigned seed = 3;
	int n = 0, bad = 0;
	setenv("TRACESMITH_OUTPUT", path, 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	unsetenv("TRACESMITH_TRIGGER");
	cap_register_api("clock", types, 1);
	for (int i = 0; i < CAP_TEST_SAMPLES; i++) {
		uint8_t b = (uint8_t)i;
		before[i] = cap_clock_monotonic_ns();
		TST_CHECK(cap_record(64, 0, &b, 1) != 0);
		after[i] = cap_clock_monotonic_ns();
		if (i == 0) /* the runtime has chosen its clock */
			TST_CHECK_EQ_U64(cap_clock_g.tsc, want_tsc);
		if (rand_r(&seed) % 8 == 0)
			clk_sleep_us((unsigned)(rand_r(&seed) % 3000));
	}
	cap_shutdown();
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	while (sbt_reader_next(r, &rec) == SBT_OK) {
		uint64_t t = info.header.start_mono_ns + rec.time_ns;
		if (rec.type != 64)
			continue;
		TST_REQUIRE(n < CAP_TEST_SAMPLES);
		if (!clk_within(t, before[n], after[n]) || rec.time_ns < prev) {
			if (bad++ < 5)
				fprintf(stderr, "record %d: at %llu, made between %llu and %llu\n", n,
				        (unsigned long long)t, (unsigned long long)before[n],
				        (unsigned long long)after[n]);
		}
		prev = rec.time_ns;
		n++;
	}
	sbt_reader_close(r);
	TST_CHECK_EQ_U64(n, CAP_TEST_SAMPLES);
	TST_CHECK_EQ_U64(bad, 0);
	return tst_failures;
}

int main(void)
{
	const char *path_tsc = tst_path("clock_tsc.sbt");
	const char *path_mono = tst_path("clock_mono.sbt");
	int usable = cap_clock_tsc_usable();
	pid_t pid;
	int status = 0;

	clk_synthetic();
	if (usable) {
		clk_real();
	} else {
		cap_clock c;
		cap_clock_init(&c, 1);
		TST_CHECK(c.tsc == 0); /* CLOCK_MONOTONIC, as before */
	}
	printf("the timestamp counter %s used here\n", usable ? "is" : "is not");

	/* TRACESMITH_CLOCK=monotonic, in a child that has not started a
	 * runtime; then this process, in the mode the CPU allows. */
	fflush(NULL);
	pid = fork();
	TST_REQUIRE(pid >= 0);
	if (pid == 0) {
		tst_failures = 0;
		setenv("TRACESMITH_CLOCK", "monotonic", 1);
		_exit(clk_trace(path_mono, 0) ? 1 : 0);
	}
	TST_REQUIRE(waitpid(pid, &status, 0) == pid);
	TST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unsetenv("TRACESMITH_CLOCK");
	clk_trace(path_tsc, usable);
	unlink(path_tsc);
	unlink(path_mono);
	return tst_failures ? 1 : 0;
}
