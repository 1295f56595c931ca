/*
 * 8 threads record 1M records in total at the same time, each in turn
 * through cap_record, cap_record_begin/commit and a deferred record
 * (cap_record_begin_deferred: a 16-byte raw form the writer thread
 * encodes into the payload, some of them 9,000 bytes long so the writer's
 * encoding buffer must grow).  Read back, every sequence number from 1 to
 * 1M must be there exactly once and in ascending order (the writer's
 * watermark), each thread's payload counter must come in order with the
 * bytes its way of recording gives, and each record must carry the OS
 * thread id of the thread that made it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture/cap.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define MT_THREADS 8
#define MT_PER_THREAD 125000
#define MT_TYPE 64

typedef struct mt_payload {
	uint32_t index;   /* which test thread */
	uint32_t pad;
	uint64_t tid;     /* its OS thread id */
	uint64_t counter; /* from 0 */
} mt_payload;

/* What a deferred record leaves for the writer. */
typedef struct mt_raw {
	uint32_t index;
	uint32_t pad;
	uint64_t counter;
} mt_raw;

static pthread_barrier_t mt_barrier;
static uint64_t mt_tids[MT_THREADS];

/* Bytes after the mt_payload: only some deferred records (counter % 3 == 2) have any. */
static size_t mt_extra(uint64_t counter)
{
	return counter % 999 == 2 ? 9000 : 0;
}

/* The deferred records' encoder, on the writer thread: the thread id is
 * looked up there (mt_tids is written before the thread records). */
static size_t mt_encode(const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_cap)
{
	mt_raw r;
	mt_payload p;
	size_t need;
	if (raw_len != sizeof(r))
		return 0;
	memcpy(&r, raw, sizeof(r));
	need = sizeof(p) + mt_extra(r.counter);
	if (need > out_cap)
		return need;
	memset(&p, 0, sizeof(p));
	p.index = r.index;
	p.tid = mt_tids[r.index];
	p.counter = r.counter;
	memcpy(out, &p, sizeof(p));
	memset(out + sizeof(p), (uint8_t)r.counter, need - sizeof(p));
	return need;
}

/* Record p one of the three ways (by its counter); its seq, 0 on failure. */
static uint64_t mt_record(const mt_payload *p)
{
	cap_rec *rec;
	uint8_t *b;
	switch (p->counter % 3) {
	case 0:
		return cap_record(MT_TYPE, 0, p, sizeof(*p));
	case 1:
		b = cap_record_begin(MT_TYPE, 0, sizeof(*p) + 64, &rec);
		if (!b)
			return 0;
		memcpy(b, p, sizeof(*p));
		return cap_record_commit(rec, sizeof(*p));
	default: {
		mt_raw r = {p->index, 0, p->counter};
		b = cap_record_begin_deferred(MT_TYPE, 0, mt_encode, sizeof(r) + 64, &rec);
		if (!b)
			return 0;
		memcpy(b, &r, sizeof(r));
		return cap_record_commit(rec, sizeof(r));
	}
	}
}

static void *mt_thread(void *arg)
{
	mt_payload p;
	memset(&p, 0, sizeof(p));
	p.index = (uint32_t)(uintptr_t)arg;
	p.tid = (uint64_t)syscall(SYS_gettid);
	mt_tids[p.index] = p.tid;
	pthread_barrier_wait(&mt_barrier);
	for (uint64_t i = 0; i < MT_PER_THREAD; i++) {
		p.counter = i;
		if (mt_record(&p) == 0) {
			TST_CHECK(!"recording returned 0");
			break;
		}
	}
	return NULL;
}

int main(void)
{
	static const cap_type_desc types[] = {{MT_TYPE, "test.mt"}};
	pthread_t th[MT_THREADS];
	uint64_t next_counter[MT_THREADS] = {0};
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record rec;
	sbt_status st;
	uint64_t expect = 1, bad_seq = 0, bad_counter = 0, bad_tid = 0;
	const char *path = tst_path("mt.sbt");
	cap_stats stats;

	setenv("TRACESMITH_OUTPUT", path, 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	setenv("TRACESMITH_STACKS", "work", 1);
	cap_register_api("test", types, 1);
	pthread_barrier_init(&mt_barrier, NULL, MT_THREADS);
	for (int i = 0; i < MT_THREADS; i++)
		TST_REQUIRE(pthread_create(&th[i], NULL, mt_thread, (void *)(uintptr_t)i) == 0);
	for (int i = 0; i < MT_THREADS; i++)
		pthread_join(th[i], NULL);
	TST_REQUIRE(cap_output_path() != NULL);
	TST_CHECK(strcmp(cap_output_path(), path) == 0);
	cap_shutdown();
	cap_get_stats(&stats);
	TST_CHECK_EQ_U64(stats.records, (uint64_t)MT_THREADS * MT_PER_THREAD);
	TST_CHECK(cap_record(MT_TYPE, 0, "x", 1) == 0); /* after shutdown */

	st = sbt_reader_open(path, NULL, &r);
	TST_REQUIRE(st == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.record_count, (uint64_t)MT_THREADS * MT_PER_THREAD);
	TST_CHECK(info.has_index == 1);
	TST_CHECK(info.truncated == 0);
	TST_CHECK(strcmp(sbt_reader_type_name(r, MT_TYPE), "test.mt") == 0);
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		mt_payload p;
		if (rec.seq != expect && bad_seq++ < 5)
			fprintf(stderr, "seq %llu where %llu was expected\n",
			        (unsigned long long)rec.seq, (unsigned long long)expect);
		expect = rec.seq + 1;
		if (rec.type != MT_TYPE || rec.payload_len < sizeof(p)) {
			bad_counter++;
			continue;
		}
		memcpy(&p, rec.payload, sizeof(p));
		if (p.index >= MT_THREADS || rec.payload_len != sizeof(p) + mt_extra(p.counter)) {
			if (bad_counter++ < 5)
				fprintf(stderr, "seq %llu: %zu payload bytes for counter %llu\n",
				        (unsigned long long)rec.seq, rec.payload_len,
				        (unsigned long long)p.counter);
			continue;
		}
		for (size_t i = sizeof(p); i < rec.payload_len; i++)
			if (rec.payload[i] != (uint8_t)p.counter) {
				if (bad_counter++ < 5)
					fprintf(stderr, "seq %llu: encoded byte %zu wrong\n",
					        (unsigned long long)rec.seq, i);
				break;
			}
		if (p.counter != next_counter[p.index] && bad_counter++ < 5)
			fprintf(stderr, "thread %u: counter %llu where %llu was expected\n", p.index,
			        (unsigned long long)p.counter,
			        (unsigned long long)next_counter[p.index]);
		next_counter[p.index] = p.counter + 1;
		if ((rec.thread != p.tid || rec.thread != mt_tids[p.index]) && bad_tid++ < 5)
			fprintf(stderr, "seq %llu: thread %llu, recorded by %llu\n",
			        (unsigned long long)rec.seq, (unsigned long long)rec.thread,
			        (unsigned long long)p.tid);
	}
	TST_CHECK(st == SBT_END);
	TST_CHECK_EQ_U64(bad_seq, 0);
	TST_CHECK_EQ_U64(bad_counter, 0);
	TST_CHECK_EQ_U64(bad_tid, 0);
	TST_CHECK_EQ_U64(expect - 1, (uint64_t)MT_THREADS * MT_PER_THREAD);
	for (int i = 0; i < MT_THREADS; i++)
		TST_CHECK_EQ_U64(next_counter[i], MT_PER_THREAD);
	/* Distinct threads really ran: 8 different OS thread ids. */
	for (int i = 0; i < MT_THREADS; i++)
		for (int j = i + 1; j < MT_THREADS; j++)
			TST_CHECK(mt_tids[i] != mt_tids[j]);
	sbt_reader_close(r);
	return tst_done();
}
