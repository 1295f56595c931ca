/*
 * The writer's order with a seq taken and not yet published (cap_internal.h,
 * "Sequence numbers"): the main thread opens a record and takes its seq by
 * hand (what cap_rt_seal_entry_clock does, split in two), then holds it
 * unpublished while a second thread records GAP_OTHER records, each with a
 * later seq, and while the writer runs rounds and a flush is asked for.
 * Only then is the held record published.  Read back, every seq from 1 on
 * must be there exactly once, in ascending order, the held record at the
 * seq it took and before every record of the other thread: a writer that
 * passed a missing seq would have emitted the other thread's records first.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "capture/cap_fast.h"
#include "tests/support/cap_test_fast.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define GAP_TYPE 81
#define GAP_OTHER 5000

/* One 8-byte record of word w through the out-of-line path. */
static uint64_t gap_record(uint64_t w)
{
	cap_rec *rec = NULL;
	uint8_t *p = cap_record_begin_deferred(GAP_TYPE, 0, cap_test_encode_copy, 8, &rec);
	if (!p)
		return 0;
	memcpy(p, &w, 8);
	return cap_record_commit(rec, 8);
}

static void *gap_other(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < GAP_OTHER; i++)
		TST_CHECK(gap_record(1000000 + i) != 0);
	return NULL;
}

int main(void)
{
	sbt_reader *r = NULL;
	sbt_record out;
	cap_rec *rec = NULL;
	cap_thread *t;
	cap_entry *e;
	pthread_t th;
	uint8_t *p;
	uint64_t held_seq, w, last = 0, n = 0, others = 0, held_at = 0;
	uint64_t word = 42;
	struct timespec pause = {0, 50 * 1000000};

	setenv("TRACESMITH_OUTPUT", tst_path("gap.sbt"), 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	setenv("TRACESMITH_FLUSH_MS", "1", 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	unsetenv("TRACESMITH_TRIGGER");
	TST_REQUIRE(cap_active());
	TST_REQUIRE(gap_record(1) != 0); /* registers this thread */

	/* The held record: opened, its seq taken, not published. */
	p = cap_record_begin_deferred(GAP_TYPE, 0, cap_test_encode_copy, 8, &rec);
	TST_REQUIRE(p != NULL);
	memcpy(p, &word, 8);
	t = rec->thread;
	e = rec->entry;
	e->len = 8;
	e->size = cap_rt_entry_size(rec->head + 8);
	held_seq = atomic_fetch_add(&cap_g.next_seq, 1);
	e->seq = held_seq;
	e->time_ns = cap_clock_read();

	TST_REQUIRE(pthread_create(&th, NULL, gap_other, NULL) == 0);
	TST_REQUIRE(pthread_join(th, NULL) == 0);
	/* The writer's rounds (every millisecond) and a flush, with the seq
	 * still missing. */
	nanosleep(&pause, NULL);
	cap_flush();
	nanosleep(&pause, NULL);

	cap_rt_record_close(t);
	cap_rt_publish_size(t, e, e->size);
	TST_REQUIRE(gap_record(2) != 0);
	cap_shutdown();

	TST_REQUIRE(sbt_reader_open(tst_path("gap.sbt"), NULL, &r) == SBT_OK);
	while (sbt_reader_next(r, &out) == SBT_OK) {
		TST_CHECK_EQ_U64(out.seq, last + 1);
		last = out.seq;
		if (out.type != GAP_TYPE)
			continue;
		TST_REQUIRE(out.payload_len == 8);
		memcpy(&w, out.payload, 8);
		if (w >= 1000000) {
			TST_CHECK(held_at != 0); /* after the held record */
			TST_CHECK_EQ_U64(w, 1000000 + others);
			TST_CHECK(out.seq > held_seq);
			others++;
		} else if (w == word) {
			TST_CHECK_EQ_U64(out.seq, held_seq);
			held_at = out.seq;
		}
		n++;
	}
	TST_CHECK_EQ_U64(held_at, held_seq);
	TST_CHECK_EQ_U64(others, GAP_OTHER);
	TST_CHECK_EQ_U64(n, GAP_OTHER + 3);
	sbt_reader_close(r);
	return tst_done();
}
