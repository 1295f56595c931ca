/*
 * Bare entries (cap_internal.h, CAP_ENT_DEFERRED_BARE and _T): the
 * record-first path's reservation (cap_fast_reserve_deferred_coarse) and
 * seal (cap_fast_seal_deferred_coarse) write an 8-byte head (the kind word
 * with the len and type in it, the seq's low half) and the raw bytes, which
 * the writer encodes with the
 * encoder set by cap_set_bare_encoder (here: the type's low byte, then the
 * raw bytes); the counter is read for one record in 16 of a thread's,
 * stored after that record's body (BARE_T, 8 bytes more).  Checked in
 * memory: each entry's kind, len, size, type and seq's low half as the
 * writer reads them (the Vulkan layer's 48 raw bytes of a
 * vkCmdPushConstants of 16 bytes take 56), the next entry right after it,
 * the first of the thread's bare
 * records and every 16th after it
 * BARE_T, a reservation left unsealed leaving nothing (the next one gets
 * the same address).  Checked in the trace: every bare record's payload
 * is its type's byte and its raw bytes, every other's its raw bytes, in
 * order, with the seqs they were sealed with; a BARE record's time is its
 * thread's previous
 * record's; a BARE_T one, made after a sleep of 2 ms, is its own, at
 * least 2 ms after the previous record's; the timed records between them
 * (cap_fast_reserve_deferred) keep theirs.  Mode noenc: a bare record
 * with no bare encoder set is written with an empty payload and one
 * warning naming it.  Mode seq: a bare entry's seq completed from its low
 * half and the writer's next expected seq, across 2^32 and beside it, and
 * the largest type and len a bare entry holds, the first ones it refuses.
 * Each mode runs in its own process (tst_modes).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap_fast.h"
#include "tests/support/cap_test_fast.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define BARE_TYPE 83
#define BARE_N 200
#define BARE_MAX 64

/* The bare encoder: the type's low byte, then the raw bytes. */
static size_t bare_encode(uint32_t type, const uint8_t *raw, size_t raw_len, uint8_t *out,
                          size_t out_cap)
{
	if (raw_len + 1 <= out_cap) {
		out[0] = (uint8_t)type;
		memcpy(out + 1, raw, raw_len);
	}
	return raw_len + 1;
}

/* The raw bytes of record i: its length 1 to BARE_MAX, each byte i + k. */
static size_t bare_raw(unsigned i, uint8_t *out)
{
	size_t n = i == 0 ? BARE_MAX : 1 + (i * 7) % BARE_MAX;
	for (size_t k = 0; k < n; k++)
		out[k] = (uint8_t)(i + k);
	return n;
}

static void bare_setup(void)
{
	setenv("TRACESMITH_OUTPUT", tst_path("bare.sbt"), 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	unsetenv("TRACESMITH_TRIGGER");
	unsetenv("TRACESMITH_CLOCK");
}

/* No bare encoder: the record stays, empty, and the writer says so once. */
static int bare_noenc(void)
{
	sbt_reader *r = NULL;
	sbt_record out;
	cap_thread *t;
	cap_entry *e;
	uint8_t *p;
	size_t len = 0;
	unsigned char *err;
	int fd, saved, n = 0;

	bare_setup();
	fd = open(tst_path("err.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(2);
	TST_REQUIRE(fd >= 0 && saved >= 0 && dup2(fd, 2) == 2);
	TST_REQUIRE(cap_active());
	TST_REQUIRE(cap_record(BARE_TYPE + 1, 0, "x", 1) != 0);
	for (int i = 0; i < 2; i++) {
		p = cap_fast_reserve_deferred_coarse(&t, &e, BARE_TYPE, 0, 8);
		TST_REQUIRE(p != NULL);
		memcpy(p, "abcdefgh", 8);
		cap_fast_seal_deferred_coarse(t, e, BARE_TYPE, 8);
	}
	cap_shutdown();
	TST_REQUIRE(dup2(saved, 2) == 2); /* this test's own messages */
	TST_REQUIRE(sbt_reader_open(tst_path("bare.sbt"), NULL, &r) == SBT_OK);
	while (sbt_reader_next(r, &out) == SBT_OK)
		if (out.type == BARE_TYPE) {
			TST_CHECK_EQ_U64(out.payload_len, 0);
			n++;
		}
	sbt_reader_close(r);
	TST_CHECK(n == 2);
	err = tst_read_file(tst_path("err.txt"), &len);
	TST_REQUIRE(err != NULL);
	err = realloc(err, len + 1);
	TST_REQUIRE(err != NULL);
	err[len] = 0;
	TST_CHECK(strstr((char *)err, "(type 83) is bare and no bare encoder was set "
	                              "(cap_set_bare_encoder): its payload is empty") != NULL);
	TST_CHECK(strstr((char *)err, "no bare encoder") ==
	          strstr((char *)err + 1, "no bare encoder")); /* said once */
	free(err);
	return tst_done();
}

static int bare_layout(void)
{
	sbt_reader *r = NULL;
	sbt_record out;
	cap_thread *t;
	cap_entry *e, *unsealed;
	uint8_t raw[BARE_MAX], *p;
	uint8_t kinds[BARE_N];
	uint64_t seqs[BARE_N];
	unsigned i, n = 0, bare_n = 0;
	uint64_t prev_time = 0;
	size_t len;

	bare_setup();
	cap_set_bare_encoder(bare_encode);
	TST_REQUIRE(cap_active());
	/* the thread registers with an out-of-line record (not of BARE_TYPE) */
	TST_REQUIRE(cap_record(BARE_TYPE + 1, 0, "x", 1) != 0);
	TST_REQUIRE(cap_tls_thread->coarse_left == 0);

	/* a reservation never sealed leaves nothing: the next gets its place */
	p = cap_fast_reserve_deferred_coarse(&t, &unsealed, BARE_TYPE, 0, BARE_MAX);
	TST_REQUIRE(p != NULL); /* the clock is the counter (TRACESMITH_CLOCK=auto) */
	TST_CHECK(p == (uint8_t *)unsealed + CAP_ENT_BARE_HEAD);

	for (i = 0; i < BARE_N; i++) {
		len = bare_raw(i, raw);
		if (i % 5 == 4) { /* a record with its own time between */
			p = cap_fast_reserve_deferred(&t, &e, BARE_TYPE, 0, cap_test_encode_copy, BARE_MAX);
			TST_REQUIRE(p != NULL);
			memcpy(p, raw, len);
			cap_fast_seal_deferred(t, e, len);
			TST_CHECK(e->kind == CAP_ENT_DEFERRED);
			TST_CHECK(cap_ent_type(e) == BARE_TYPE);
			seqs[i] = e->seq;
			TST_CHECK_EQ_U64(e->size, cap_rt_entry_size(sizeof(cap_deferred) + len));
			kinds[i] = CAP_ENT_DEFERRED;
			continue;
		}
		if (bare_n % CAP_COARSE_EVERY == 0) { /* this one reads the counter */
			struct timespec ms2 = {0, 2000000};
			nanosleep(&ms2, NULL);
		}
		p = cap_fast_reserve_deferred_coarse(&t, &e, BARE_TYPE, 0, BARE_MAX);
		TST_REQUIRE(p != NULL);
		if (i == 0)
			TST_CHECK(e == unsealed);
		memcpy(p, raw, len);
		seqs[i] = atomic_load(&cap_g.next_seq); /* the seq the seal takes */
		cap_fast_seal_deferred_coarse(t, e, BARE_TYPE, len);
		kinds[i] = (uint8_t)cap_ent_kind(e);
		TST_CHECK(cap_ent_type(e) == BARE_TYPE);
		TST_CHECK(e->seq32 == (uint32_t)seqs[i]);
		TST_CHECK_EQ_U64(cap_ent_seq(e, seqs[i] - 7), seqs[i]);
		if (bare_n % CAP_COARSE_EVERY == 0) {
			TST_CHECK(cap_ent_kind(e) == CAP_ENT_DEFERRED_BARE_T);
			TST_CHECK_EQ_U64(cap_ent_bytes(e), cap_rt_bare_size(len) + 8);
		} else {
			TST_CHECK(cap_ent_kind(e) == CAP_ENT_DEFERRED_BARE);
			TST_CHECK_EQ_U64(cap_ent_bytes(e), cap_rt_bare_size(len));
		}
		if (len == 48) /* 32 bytes of arguments (no pointer), 16 pushed */
			TST_CHECK_EQ_U64(cap_ent_bytes(e) - (kinds[i] == CAP_ENT_DEFERRED_BARE_T ? 8 : 0),
			                 56);
		TST_CHECK_EQ_U64(cap_ent_len(e), len);
		TST_CHECK(t->wptr == (uintptr_t)e + cap_ent_bytes(e));
		bare_n++;
	}
	cap_shutdown();

	TST_REQUIRE(sbt_reader_open(tst_path("bare.sbt"), NULL, &r) == SBT_OK);
	while (sbt_reader_next(r, &out) == SBT_OK) {
		if (out.type != BARE_TYPE)
			continue;
		TST_REQUIRE(n < BARE_N);
		len = bare_raw(n, raw);
		if (kinds[n] == CAP_ENT_DEFERRED) {
			TST_CHECK_EQ_U64(out.payload_len, len);
			TST_CHECK(out.payload_len == len && memcmp(out.payload, raw, len) == 0);
		} else {
			TST_CHECK_EQ_U64(out.payload_len, len + 1);
			TST_CHECK(out.payload_len == len + 1 && out.payload[0] == (uint8_t)BARE_TYPE &&
			          memcmp(out.payload + 1, raw, len) == 0);
		}
		TST_CHECK_EQ_U64(out.stack_id, 0);
		TST_CHECK_EQ_U64(out.seq, seqs[n]);
		if (kinds[n] == CAP_ENT_DEFERRED_BARE)
			TST_CHECK_EQ_U64(out.time_ns, prev_time);
		else if (kinds[n] == CAP_ENT_DEFERRED_BARE_T)
			TST_CHECK(out.time_ns >= prev_time + 2000000 && out.time_ns < prev_time + 10000000000ull);
		else
			TST_CHECK(out.time_ns >= prev_time);
		prev_time = out.time_ns;
		n++;
	}
	TST_CHECK_EQ_U64(n, BARE_N);
	sbt_reader_close(r);
	return tst_done();
}

/* The seq completed from its low half: base is the writer's next expected
 * seq, at most the record's and less than 2^32 below it. */
static int bare_seq(void)
{
	static const uint64_t seqs[] = {1, 2, 0xffffffffull, 0x100000000ull, 0x100000001ull,
	                                0x1fffffffeull, 0x123456789abcdefull, UINT64_MAX - 1};
	static const uint64_t back[] = {0, 1, 2, 0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu};
	cap_entry e;
	size_t i, k;
	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		for (k = 0; k < sizeof(back) / sizeof(back[0]); k++) {
			if (back[k] >= seqs[i])
				continue;
			memset(&e, 0, sizeof(e));
			e.kind = cap_ent_bare_word(CAP_ENT_DEFERRED_BARE, 5, 0x1100 + 42);
			e.seq32 = (uint32_t)seqs[i];
			TST_CHECK_EQ_U64(cap_ent_seq(&e, seqs[i] - back[k]), seqs[i]);
			TST_CHECK_EQ_U64(cap_ent_bare_seq(e.seq32, seqs[i] - back[k]), seqs[i]);
			TST_CHECK(cap_ent_type(&e) == 0x1100 + 42);
			TST_CHECK_EQ_U64(cap_ent_len(&e), 5);
			/* BARE_T, as the seal makes it: the low bits only */
			e.kind += CAP_ENT_DEFERRED_BARE_T - CAP_ENT_DEFERRED_BARE;
			TST_CHECK(cap_ent_kind(&e) == CAP_ENT_DEFERRED_BARE_T);
			TST_CHECK(cap_ent_type(&e) == 0x1100 + 42);
			TST_CHECK_EQ_U64(cap_ent_len(&e), 5);
			TST_CHECK_EQ_U64(cap_ent_bytes(&e), 8 + 8 + 8);
		}
	/* the largest type and len the kind word holds, and what is refused */
	memset(&e, 0, sizeof(e));
	e.kind = cap_ent_bare_word(CAP_ENT_DEFERRED_BARE, CAP_ENT_BARE_LEN_MAX, CAP_ENT_BARE_TYPE_MAX);
	TST_CHECK(cap_ent_kind(&e) == CAP_ENT_DEFERRED_BARE);
	TST_CHECK_EQ_U64(cap_ent_len(&e), CAP_ENT_BARE_LEN_MAX);
	TST_CHECK(cap_ent_type(&e) == CAP_ENT_BARE_TYPE_MAX);
	{
		cap_thread *t;
		cap_entry *ep;
		bare_setup();
		TST_REQUIRE(cap_active());
		TST_REQUIRE(cap_record(BARE_TYPE + 1, 0, "x", 1) != 0);
		TST_CHECK(cap_fast_reserve_deferred_coarse(&t, &ep, CAP_ENT_BARE_TYPE_MAX, 0,
		                                           CAP_ENT_BARE_LEN_MAX) != NULL);
		TST_CHECK(cap_fast_reserve_deferred_coarse(&t, &ep, CAP_ENT_BARE_TYPE_MAX + 1, 0, 8) ==
		          NULL);
		TST_CHECK(cap_fast_reserve_deferred_coarse(&t, &ep, BARE_TYPE, 0,
		                                           CAP_ENT_BARE_LEN_MAX + 1) == NULL);
		cap_shutdown();
	}
	return tst_done();
}

static int bare_run(const char *mode)
{
	if (strcmp(mode, "layout") == 0)
		return bare_layout();
	if (strcmp(mode, "noenc") == 0)
		return bare_noenc();
	if (strcmp(mode, "seq") == 0)
		return bare_seq();
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {"layout", "noenc", "seq"};
	return tst_modes(argc, argv, modes, sizeof(modes) / sizeof(modes[0]), bare_run);
}
