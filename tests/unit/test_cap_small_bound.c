/*
 * More recording threads than the memory bound has blocks for: with
 * TRACESMITH_MEMORY_MB=1, 24 threads each hold a 64 KiB block (1.5 MiB of
 * last blocks the writer cannot release while their threads may append),
 * and each records enough to need several more.  Waiting alone would never
 * get under the bound; the writer must let waiting threads go once it has
 * drained every chain.  Everything must arrive, in seq order, each
 * thread's records in its own order, well within the time limit (an alarm
 * fails the test instead of letting it hang).  Then one thread records
 * 200,000 records through the same bound: far more blocks than the bound
 * holds, so drained blocks must come back (released or reused) as the
 * writer consumes them.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/cap.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define SB_THREADS 24
#define SB_PER_THREAD 3000 /* 3000 * (48 + 64) bytes: about 5 blocks each */
#define SB_SOLO 200000
#define SB_TYPE 64

typedef struct sb_payload {
	uint32_t thread;
	uint32_t pad;
	uint64_t counter;
	uint8_t fill[48];
} sb_payload;

static pthread_barrier_t sb_barrier;

static void sb_alarm(int sig)
{
	static const char msg[] = "test_cap_small_bound: still recording after 60 s "
	                          "(producers waiting on the memory bound forever?)\n";
	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

static void sb_record_n(uint32_t thread, uint64_t n)
{
	sb_payload p;
	memset(&p, 0, sizeof(p));
	p.thread = thread;
	for (uint64_t i = 0; i < n; i++) {
		p.counter = i;
		memset(p.fill, (int)(i & 0xff), sizeof(p.fill));
		if (cap_record(SB_TYPE, 0, &p, sizeof(p)) == 0) {
			TST_CHECK(!"cap_record returned 0");
			break;
		}
	}
}

static void *sb_thread(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	/* Every thread has its first block before any needs a second. */
	sb_record_n(t, 1);
	pthread_barrier_wait(&sb_barrier);
	sb_record_n(t, SB_PER_THREAD);
	return NULL;
}

int main(void)
{
	static const cap_type_desc types[] = {{SB_TYPE, "test.small_bound"}};
	pthread_t th[SB_THREADS];
	uint64_t next[SB_THREADS + 1];
	uint64_t expect = 1, bad = 0, records = 0;
	const char *path = tst_path("sb.sbt");
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_status st;
	cap_stats stats;

	setenv("TRACESMITH_OUTPUT", path, 1);
	setenv("TRACESMITH_MEMORY_MB", "1", 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	setenv("TRACESMITH_LOG", "error", 1); /* the exit report is a warning */
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	signal(SIGALRM, sb_alarm);
	alarm(60);
	cap_register_api("test", types, 1);
	pthread_barrier_init(&sb_barrier, NULL, SB_THREADS);
	for (int i = 0; i < SB_THREADS; i++)
		TST_REQUIRE(pthread_create(&th[i], NULL, sb_thread, (void *)(uintptr_t)i) == 0);
	for (int i = 0; i < SB_THREADS; i++)
		pthread_join(th[i], NULL);
	/* The threads are gone: this one alone streams through the bound. */
	sb_record_n(SB_THREADS, SB_SOLO);
	cap_shutdown();
	alarm(0);
	cap_get_stats(&stats);
	TST_CHECK_EQ_U64(stats.records, (uint64_t)SB_THREADS * (SB_PER_THREAD + 1) + SB_SOLO);
	/* 24 last blocks are over the bound: threads did have to wait. */
	TST_CHECK(stats.stalls > 0);

	memset(next, 0, sizeof(next));
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		sb_payload p;
		if (rec.type != SB_TYPE)
			continue;
		records++;
		if (rec.seq != expect && bad++ < 5)
			fprintf(stderr, "seq %llu where %llu was expected\n",
			        (unsigned long long)rec.seq, (unsigned long long)expect);
		expect = rec.seq + 1;
		if (rec.payload_len != sizeof(p)) {
			bad++;
			continue;
		}
		memcpy(&p, rec.payload, sizeof(p));
		if (p.thread > SB_THREADS) {
			bad++;
			continue;
		}
		/* Worker threads count from 0 twice (1 record, then the rest). */
		if (p.thread < SB_THREADS && next[p.thread] == 1 && p.counter == 0)
			next[p.thread] = 0;
		if ((p.counter != next[p.thread] || p.fill[47] != (uint8_t)(p.counter & 0xff)) &&
		    bad++ < 5)
			fprintf(stderr, "thread %u: counter %llu where %llu was expected\n", p.thread,
			        (unsigned long long)p.counter, (unsigned long long)next[p.thread]);
		next[p.thread] = p.counter + 1;
	}
	TST_CHECK(st == SBT_END);
	TST_CHECK_EQ_U64(bad, 0);
	TST_CHECK_EQ_U64(records, (uint64_t)SB_THREADS * (SB_PER_THREAD + 1) + SB_SOLO);
	for (int i = 0; i < SB_THREADS; i++)
		TST_CHECK_EQ_U64(next[i], SB_PER_THREAD);
	TST_CHECK_EQ_U64(next[SB_THREADS], SB_SOLO);
	sbt_reader_close(r);
	return tst_done();
}
