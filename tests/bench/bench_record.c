/*
 * bench_record - cost of appending records through the capture runtime.
 *
 *   bench_record N THREADS [PAYLOAD_BYTES]
 *
 * THREADS threads each call cap_record() N/THREADS times with a small
 * payload (default 16 bytes, no flags) after the runtime has started (the
 * lazy start is not timed).  Prints the producers' wall time and rate, then
 * the time until cap_shutdown() has written everything.  The caller sets
 * TRACESMITH_OUTPUT and TRACESMITH_STACKS (run.sh uses none).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/cap.h"

#define BENCH_TYPE (SBT_TYPE_FIRST_API + 1)

typedef struct bench_thread {
	pthread_t tid;
	uint64_t count;
	size_t payload_len;
	pthread_barrier_t *start;
} bench_thread;

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *bench_producer(void *arg)
{
	bench_thread *t = arg;
	uint8_t payload[256];
	uint64_t i;

	memset(payload, 0x5a, sizeof(payload));
	pthread_barrier_wait(t->start);
	for (i = 0; i < t->count; i++) {
		memcpy(payload, &i, sizeof(i));
		cap_record(BENCH_TYPE, 0, payload, t->payload_len);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const cap_type_desc types[] = { { BENCH_TYPE, "bench.record" } };
	bench_thread th[64];
	pthread_barrier_t start;
	uint64_t n;
	unsigned nthreads, i;
	size_t payload_len = 16;
	double t0, t1, t2;
	cap_stats cs;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: bench_record N THREADS [PAYLOAD_BYTES<=256]\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	nthreads = (unsigned)strtoul(argv[2], NULL, 10);
	if (argc == 4)
		payload_len = (size_t)strtoul(argv[3], NULL, 10);
	if (n == 0 || nthreads == 0 || nthreads > 64 || payload_len > 256) {
		fprintf(stderr, "bench_record: bad arguments\n");
		return 2;
	}
	cap_register_api("bench", types, 1);
	if (!cap_active()) {
		fprintf(stderr, "bench_record: capture is not recording (see messages above)\n");
		return 1;
	}
	pthread_barrier_init(&start, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		th[i].count = n / nthreads + (i < n % nthreads ? 1 : 0);
		th[i].payload_len = payload_len;
		th[i].start = &start;
		if (pthread_create(&th[i].tid, NULL, bench_producer, &th[i]) != 0) {
			fprintf(stderr, "bench_record: pthread_create failed\n");
			return 1;
		}
	}
	pthread_barrier_wait(&start);
	t0 = bench_now();
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i].tid, NULL);
	t1 = bench_now();
	cap_shutdown();
	t2 = bench_now();
	cap_get_stats(&cs);
	pthread_barrier_destroy(&start);
	printf("records %llu threads %u producer_seconds %.6f records_per_s %.0f "
	       "total_seconds %.6f stalls %llu recorded %llu\n",
	       (unsigned long long)n, nthreads, t1 - t0, (double)n / (t1 - t0), t2 - t0,
	       (unsigned long long)cs.stalls, (unsigned long long)cs.records);
	return 0;
}
