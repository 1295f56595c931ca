/*
 * The fast paths' word (cap_fast.h): the thread's fast_end[i] for a
 * record's class i, the end of its block's data where cap_g.fast_state[i]
 * (the session's fixed settings) allows the class and the session runs,
 * else 0, whose distance from the cursor wptr (CAP_WPTR_OPEN set in it
 * while a record is open) is the room a fast record may take.  Each case that must turn the fast path
 * away is made and checked, and each record made on either path is read
 * back from the trace (test_cap_fast_stop: the words across threads as
 * the state changes):
 *
 *   run      stacks none: no fast record before the runtime runs or
 *            before this thread registered; one while a record is open
 *            (deferred begin, blob begin) refused, allowed again after its
 *            commit or cancel; a full block refused until the out-of-line
 *            path moves to the next block; a fork child refused; none
 *            after shutdown.  The trace holds every record, in order.
 *   work     stacks work (the default): a CAP_REC_WORK record refused, a
 *            plain one taken; a CAP_REC_WORK one refused while a record is
 *            open past the block's start (its word 0, the cursor flagged:
 *            the room stays negative).
 *   all      stacks all: every fast record refused.
 *   mono     TRACESMITH_CLOCK=monotonic: the reserve (counter) path
 *            refused, the copying path taken.
 *   window   TRACESMITH_TRIGGER=frames:2-2: refused before the window
 *            opens and after it closes, taken while it is open.
 *
 * Each mode runs in its own process (the configuration is read once):
 * main runs this program again for each.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/cap_fast.h"
#include "tests/support/cap_test_fast.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define FW_TYPE 80

/* One record through the copying fast path: 1 taken, 0 refused. */
static int fw_fast(unsigned flags, uint64_t word)
{
	uint32_t a = (uint32_t)word;
	return cap_fast_record_deferred(FW_TYPE, flags, cap_test_encode_copy, word, &a, sizeof(a), NULL, 0);
}

/* The same record through the out-of-line path (every case). */
static uint64_t fw_slow(unsigned flags, uint64_t word)
{
	uint32_t a = (uint32_t)word;
	cap_rec *rec = NULL;
	uint8_t *p = cap_record_begin_deferred(FW_TYPE, flags, cap_test_encode_copy, 12, &rec);
	if (!p)
		return 0;
	memcpy(p, &word, 8);
	memcpy(p + 8, &a, 4);
	return cap_record_commit(rec, 12);
}

/* One record through the reserve/seal path: 1 taken, 0 refused. */
static int fw_reserve(uint64_t word)
{
	cap_thread *t;
	cap_entry *e;
	uint32_t a = (uint32_t)word;
	uint8_t *p = cap_fast_reserve_deferred(&t, &e, FW_TYPE, 0, cap_test_encode_copy, 12);
	if (!p)
		return 0;
	memcpy(p, &word, 8);
	memcpy(p + 8, &a, 4);
	cap_fast_seal_deferred(t, e, 12);
	return 1;
}

/* Room a fast record of class 0 may take on this thread (the word's
 * meaning). */
static long long fw_room(void)
{
	cap_thread *t = cap_tls_thread;
	return (long long)(intptr_t)(atomic_load(&t->fast_end[0]) - t->wptr);
}

/* Whether this thread's words are its block's end for every class the
 * settings allow and 0 for the others (on), or all 0 (off). */
static int fw_words(int on)
{
	return cap_test_words_are(cap_tls_thread, on);
}

static int fw_words_on(void)
{
	return fw_words(1);
}

static void fw_setup(const char *stacks)
{
	setenv("TRACESMITH_OUTPUT", tst_path("fw.sbt"), 1);
	setenv("TRACESMITH_STACKS", stacks, 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	unsetenv("TRACESMITH_TRIGGER");
	unsetenv("TRACESMITH_CLOCK");
}

/* Reads the trace: the FW_TYPE records' words must be `words` in order. */
static void fw_check_trace(const uint64_t *words, size_t n)
{
	sbt_reader *r = NULL;
	sbt_record out;
	size_t i = 0;
	uint64_t last_seq = 0, w;
	uint32_t a;
	TST_REQUIRE(sbt_reader_open(tst_path("fw.sbt"), NULL, &r) == SBT_OK);
	while (sbt_reader_next(r, &out) == SBT_OK) {
		if (out.type != FW_TYPE)
			continue;
		TST_CHECK(out.seq > last_seq);
		last_seq = out.seq;
		TST_REQUIRE(out.payload_len == 12 && i < n);
		memcpy(&w, out.payload, 8);
		memcpy(&a, out.payload + 8, 4);
		TST_CHECK_EQ_U64(w, words[i]);
		TST_CHECK_EQ_U64(a, (uint32_t)words[i]);
		i++;
	}
	TST_CHECK_EQ_U64(i, n);
	sbt_reader_close(r);
}

static int fw_mode_run(void)
{
	static uint64_t words[40000];
	size_t n = 0;
	cap_rec *rec = NULL;
	uint8_t *p;
	long long room;
	size_t need = cap_rt_entry_size(sizeof(cap_deferred) + 12);
	pid_t pid;
	int st = 0, i, refused;
	uint64_t w = 1000;

	fw_setup("none");
	for (i = 0; i < 4; i++)
		TST_CHECK(atomic_load(&cap_g.fast_state[i]) == -1); /* before the global init */
	TST_CHECK(!fw_fast(0, w));                               /* not running, not registered */
	TST_REQUIRE(cap_active());
	TST_CHECK(atomic_load(&cap_g.fast_state[0]) == CAP_ST_RUNNING);
	TST_CHECK(atomic_load(&cap_g.fast_state[CAP_FAST_WORK]) == CAP_ST_RUNNING);
	TST_CHECK(atomic_load(&cap_g.fast_state[CAP_FAST_TSC]) ==
	          (cap_clock_g.tsc ? CAP_ST_RUNNING : -1));
	TST_CHECK(!fw_fast(0, w)); /* running, this thread not registered yet */
	TST_REQUIRE(fw_slow(0, w) != 0);
	words[n++] = w++;
	TST_REQUIRE(cap_tls_thread != &cap_thread_none);
	TST_CHECK(fw_words_on());
	TST_CHECK(fw_fast(0, w));
	words[n++] = w++;
	TST_CHECK(fw_fast(CAP_REC_WORK, w));
	words[n++] = w++;

	/* An open deferred record: refused until its commit. */
	p = cap_record_begin_deferred(FW_TYPE, 0, cap_test_encode_copy, 12, &rec);
	TST_REQUIRE(p != NULL);
	TST_CHECK(cap_rt_in_record(cap_tls_thread));
	TST_CHECK(fw_room() <= 0);
	TST_CHECK(!fw_fast(0, 999));
	TST_CHECK(!fw_reserve(999));
	memcpy(p, &w, 8);
	memcpy(p + 8, &(uint32_t){(uint32_t)w}, 4);
	TST_CHECK(cap_fast_commit(rec, 12) != 0);
	words[n++] = w++;
	TST_CHECK(fw_words_on());
	TST_CHECK(fw_fast(0, w));
	words[n++] = w++;

	/* The same through the inline begin and commit. */
	p = cap_fast_begin_deferred(FW_TYPE, 0, cap_test_encode_copy, 12, &rec);
	TST_REQUIRE(p != NULL);
	TST_CHECK(cap_rt_in_record(cap_tls_thread));
	TST_CHECK(!fw_fast(0, 999));
	memcpy(p, &w, 8);
	memcpy(p + 8, &(uint32_t){(uint32_t)w}, 4);
	TST_CHECK(cap_fast_commit(rec, 12) != 0);
	words[n++] = w++;
	TST_CHECK(fw_words_on());

	/* An open blob: refused until its cancel, and until its commit. */
	TST_REQUIRE(cap_blob_begin(64, 0, &rec) != NULL);
	TST_CHECK(!fw_fast(0, 999));
	cap_blob_cancel(rec);
	TST_CHECK(fw_fast(0, w));
	words[n++] = w++;
	p = cap_blob_begin(64, 0, &rec);
	TST_REQUIRE(p != NULL);
	TST_CHECK(!fw_fast(0, 999));
	memset(p, 7, 64);
	TST_CHECK(cap_blob_commit(rec, 64, 0) != 0);
	TST_CHECK(fw_fast(0, w));
	words[n++] = w++;

	/* A full block: refused exactly when the room is short of one entry,
	 * then the out-of-line record moves to the next block. */
	refused = 0;
	while (n < 30000) {
		room = fw_room();
		if (!fw_fast(0, w)) {
			TST_CHECK(room < (long long)need);
			refused = 1;
			break;
		}
		TST_CHECK(room >= (long long)need);
		words[n++] = w++;
	}
	TST_CHECK(refused);
	TST_REQUIRE(fw_slow(0, w) != 0);
	words[n++] = w++;
	TST_CHECK(fw_words_on());
	TST_CHECK(fw_room() >= (long long)need);
	TST_CHECK(fw_fast(0, w));
	words[n++] = w++;
	if (cap_clock_g.tsc) {
		TST_CHECK(fw_reserve(w));
		words[n++] = w++;
	}

	/* A fork child: this thread's state is the parent's; refused. */
	pid = fork();
	TST_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(fw_fast(0, 999) || fw_reserve(999) ? 3 : 0);
	TST_REQUIRE(waitpid(pid, &st, 0) == pid);
	TST_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	TST_CHECK(fw_fast(0, w));
	words[n++] = w++;

	cap_shutdown();
	TST_CHECK(fw_words(0));
	TST_CHECK(!fw_fast(0, 999));
	TST_CHECK(!fw_reserve(999));
	fw_check_trace(words, n);
	return tst_done();
}

static int fw_mode_stacks(const char *stacks)
{
	uint64_t words[5];
	size_t n = 0;
	int all = strcmp(stacks, "all") == 0;
	fw_setup(stacks);
	TST_REQUIRE(cap_active());
	TST_REQUIRE(fw_slow(0, 1) != 0); /* registers this thread */
	words[n++] = 1;
	TST_CHECK(atomic_load(&cap_g.fast_state[0]) == (all ? -1 : CAP_ST_RUNNING));
	TST_CHECK(atomic_load(&cap_g.fast_state[CAP_FAST_WORK]) == -1);
	TST_CHECK(fw_words_on());
	TST_CHECK_EQ_U64(atomic_load(&cap_tls_thread->fast_end[CAP_FAST_WORK]), 0);
	TST_CHECK(fw_fast(CAP_REC_WORK, 999) == 0);
	if (fw_fast(0, 2))
		words[n++] = 2;
	TST_CHECK(n == (all ? 1u : 2u));
	/* An open record past the block's start, a word of 0: still refused
	 * (with the open flag in the sign bit, 0 - cursor was a large room). */
	{
		cap_rec *rec = NULL;
		uint8_t *p = cap_record_begin_deferred(FW_TYPE, 0, cap_test_encode_copy, 12, &rec);
		TST_REQUIRE(p != NULL);
		TST_CHECK(cap_rt_in_record(cap_tls_thread));
		TST_CHECK((intptr_t)(atomic_load(&cap_tls_thread->fast_end[CAP_FAST_WORK]) -
		                     cap_tls_thread->wptr) < 0);
		TST_CHECK(fw_fast(CAP_REC_WORK, 999) == 0);
		memcpy(p, &(uint64_t){3}, 8);
		memcpy(p + 8, &(uint32_t){3}, 4);
		TST_CHECK(cap_record_commit(rec, 12) != 0);
		words[n++] = 3;
		TST_CHECK(!cap_rt_in_record(cap_tls_thread));
	}
	TST_CHECK(fw_reserve(4) == (!all && cap_clock_g.tsc));
	if (!all && cap_clock_g.tsc)
		words[n++] = 4;
	cap_shutdown();
	fw_check_trace(words, n);
	return tst_done();
}

static int fw_mode_mono(void)
{
	uint64_t words[3] = {1, 2, 3};
	fw_setup("none");
	setenv("TRACESMITH_CLOCK", "monotonic", 1);
	TST_REQUIRE(cap_active());
	TST_CHECK(cap_clock_g.tsc == 0);
	TST_CHECK(atomic_load(&cap_g.fast_state[0]) == CAP_ST_RUNNING);
	TST_CHECK(atomic_load(&cap_g.fast_state[CAP_FAST_TSC]) == -1);
	TST_REQUIRE(fw_slow(0, 1) != 0);
	TST_CHECK(!fw_reserve(999));
	TST_CHECK(fw_fast(0, 2));
	TST_REQUIRE(fw_slow(0, 3) != 0);
	cap_shutdown();
	fw_check_trace(words, 3);
	return tst_done();
}

static int fw_mode_window(void)
{
	fw_setup("none");
	setenv("TRACESMITH_TRIGGER", "frames:2-2", 1);
	TST_CHECK(cap_active() == 0); /* no window open yet */
	TST_CHECK(!fw_fast(0, 999));
	cap_frame_end(1); /* the window opens */
	TST_REQUIRE(cap_active());
	TST_REQUIRE(fw_slow(0, 1) != 0);
	TST_REQUIRE(cap_tls_thread != &cap_thread_none);
	TST_CHECK(fw_fast(0, 2));
	cap_frame_end(2); /* ...and closes */
	TST_CHECK(atomic_load(&cap_g.state) != CAP_ST_RUNNING);
	TST_CHECK(fw_words(0));
	TST_CHECK(!fw_fast(0, 999));
	TST_CHECK(!fw_reserve(999));
	cap_shutdown();
	return tst_done();
}

static int fw_run(const char *mode)
{
	if (strcmp(mode, "run") == 0)
		return fw_mode_run();
	if (strcmp(mode, "work") == 0 || strcmp(mode, "all") == 0)
		return fw_mode_stacks(mode);
	if (strcmp(mode, "mono") == 0)
		return fw_mode_mono();
	if (strcmp(mode, "window") == 0)
		return fw_mode_window();
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {"run", "work", "all", "mono", "window"};
	return tst_modes(argc, argv, modes, sizeof(modes) / sizeof(modes[0]), fw_run);
}
