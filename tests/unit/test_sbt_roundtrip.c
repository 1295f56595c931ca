/*
 * test_sbt_roundtrip - everything written through the SBT writer comes back
 * from the reader, byte for byte, with the index and without it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define RT_CHUNK 4096u
#define RT_PAGE 4096u
#define RT_NREC 6000
#define RT_NSTR 300
#define RT_NSTACK 80

typedef struct rt_rec {
	sbt_record r;
	uint8_t *payload;
} rt_rec;

static uint64_t rt_state = 0x9e3779b97f4a7c15ull;
static uint64_t rt_rand(void)
{
	rt_state ^= rt_state << 13;
	rt_state ^= rt_state >> 7;
	rt_state ^= rt_state << 17;
	return rt_state;
}

static void rt_fill(uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rt_rand();
}

typedef struct rt_model {
	rt_rec recs[RT_NREC];
	size_t nrec;
	uint32_t str_ids[RT_NSTR];
	char strs[RT_NSTR][40];
	uint32_t stack_ids[RT_NSTACK];
	sbt_frame stack_frames[RT_NSTACK][8];
	uint32_t stack_n[RT_NSTACK];
	uint64_t frame_seq[RT_NREC]; /* frame number -> seq of its FRAME record */
	uint64_t nframes;
	uint64_t keyframes[RT_NREC];
	size_t nkeyframes;
	uint64_t blob_ids[16];
	uint8_t *blob_data[16];
	size_t blob_len[16];
	size_t nblobs;
} rt_model;

static rt_model rt_m;

static size_t rt_payload_len(size_t i)
{
	switch (rt_rand() % 10) {
	case 0:
		return 0;
	case 1:
		return (size_t)(rt_rand() % (3 * RT_CHUNK)) + RT_CHUNK; /* > chunk size */
	case 2:
		return 1;
	default:
		return (size_t)(rt_rand() % 64) + (i % 3);
	}
}

static void rt_write(const char *path, int close_it, sbt_writer **keep)
{
	sbt_writer_options opt = {RT_CHUNK, RT_PAGE, 0, 0};
	sbt_writer *w = NULL;
	uint64_t seq = 5, t = 1000;
	size_t i;
	uint32_t id;
	static const uint32_t types[] = {SBT_TYPE_NOTE, SBT_TYPE_THREAD, SBT_TYPE_CHECKPOINT,
	                                 SBT_TYPE_UNMODELED, 64, 65, 200, 4000000000u};

	TST_REQUIRE(sbt_writer_open(path, &opt, &w) == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, SBT_TYPE_FRAME, "frame") == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, SBT_TYPE_KEYFRAME, "keyframe") == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 64, "vkQueueSubmit") == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 64, "vkQueueSubmit") == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 65, "old name") == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 65, "cuLaunchKernel") == SBT_OK);
	TST_CHECK(sbt_writer_set_meta(w, "app", "first") == SBT_OK);
	TST_CHECK(sbt_writer_set_meta(w, "host", "box") == SBT_OK);
	TST_CHECK(sbt_writer_set_meta(w, "empty", "") == SBT_OK);

	for (i = 0; i < RT_NSTR; i++) {
		snprintf(rt_m.strs[i], sizeof(rt_m.strs[i]), "libfoo.so!func_%zu+0x%zx", i, i * 7);
		TST_CHECK(sbt_writer_intern(w, rt_m.strs[i], &rt_m.str_ids[i]) == SBT_OK);
		TST_CHECK_EQ_U64(rt_m.str_ids[i], i + 1);
	}
	TST_CHECK(sbt_writer_intern(w, rt_m.strs[17], &id) == SBT_OK);
	TST_CHECK_EQ_U64(id, rt_m.str_ids[17]);

	for (i = 0; i < RT_NSTACK; i++) {
		uint32_t k;
		rt_m.stack_n[i] = (uint32_t)(i % 8);
		for (k = 0; k < rt_m.stack_n[i]; k++) {
			rt_m.stack_frames[i][k].ip = rt_rand();
			rt_m.stack_frames[i][k].symbol_id = rt_m.str_ids[rt_rand() % RT_NSTR];
		}
		TST_CHECK(sbt_writer_put_stack(w, 1000 + i, rt_m.stack_frames[i], rt_m.stack_n[i],
		                               &rt_m.stack_ids[i]) == SBT_OK);
		TST_CHECK_EQ_U64(rt_m.stack_ids[i], i + 1);
	}
	TST_CHECK(sbt_writer_put_stack(w, 1003, NULL, 0, &id) == SBT_OK);
	TST_CHECK_EQ_U64(id, rt_m.stack_ids[3]);

	{
		const size_t sizes[] = {0, 1, RT_PAGE - 1, RT_PAGE, RT_PAGE + 1, 37 * RT_PAGE + 11};
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t n = rt_m.nblobs;
			rt_m.blob_len[n] = sizes[i];
			rt_m.blob_data[n] = malloc(sizes[i] + 1);
			rt_fill(rt_m.blob_data[n], sizes[i]);
			TST_CHECK(sbt_writer_put_blob(w, 100 + i, rt_m.blob_data[n], sizes[i],
			                              &rt_m.blob_ids[n]) == SBT_OK);
			TST_CHECK_EQ_U64(rt_m.blob_ids[n], 100 + i);
			rt_m.nblobs++;
		}
		/* 0 allocates an id; a reused id is refused. */
		rt_m.blob_len[rt_m.nblobs] = 5;
		rt_m.blob_data[rt_m.nblobs] = malloc(5);
		memcpy(rt_m.blob_data[rt_m.nblobs], "hello", 5);
		TST_CHECK(sbt_writer_put_blob(w, 0, "hello", 5, &rt_m.blob_ids[rt_m.nblobs]) == SBT_OK);
		TST_CHECK(rt_m.blob_ids[rt_m.nblobs] != 0);
		rt_m.nblobs++;
		TST_CHECK(sbt_writer_put_blob(w, 101, "x", 1, NULL) == SBT_ERR_ARG);
	}

	for (i = 0; i < RT_NREC; i++) {
		rt_rec *e = &rt_m.recs[rt_m.nrec];
		size_t len = rt_payload_len(i);
		memset(e, 0, sizeof(*e));
		seq += 1 + (rt_rand() % 4 == 0 ? rt_rand() % 1000 : 0);
		t += rt_rand() % 2000;
		e->r.seq = seq;
		e->r.time_ns = (rt_rand() % 17 == 0 && t > 5000) ? t - 5000 : t; /* not monotonic */
		e->r.thread = 1000 + rt_rand() % 5;
		e->r.stack_id = rt_rand() % 3 ? 0 : rt_m.stack_ids[rt_rand() % RT_NSTACK];
		if (i % 97 == 96) {
			uint8_t fb[10];
			size_t n = sbt_varint_put(fb, ++rt_m.nframes);
			e->r.type = SBT_TYPE_FRAME;
			len = n;
			e->payload = malloc(len);
			memcpy(e->payload, fb, n);
			rt_m.frame_seq[rt_m.nframes] = seq;
		} else {
			if (i % 500 == 250) {
				e->r.type = SBT_TYPE_KEYFRAME;
				rt_m.keyframes[rt_m.nkeyframes++] = seq;
			} else {
				e->r.type = types[rt_rand() % (sizeof(types) / sizeof(types[0]))];
			}
			e->payload = malloc(len + 1);
			rt_fill(e->payload, len);
		}
		e->r.payload = len ? e->payload : NULL;
		e->r.payload_len = len;
		TST_CHECK(sbt_writer_append(w, &e->r) == SBT_OK);
		rt_m.nrec++;
	}
	{
		sbt_record low = rt_m.recs[10].r;
		TST_CHECK(sbt_writer_append(w, &low) == SBT_ERR_ARG);
		low = rt_m.recs[rt_m.nrec - 1].r;
		TST_CHECK(sbt_writer_append(w, &low) == SBT_ERR_ARG); /* equal seq */
	}
	TST_CHECK(sbt_writer_set_meta(w, "app", "second") == SBT_OK);
	{
		sbt_writer_stats ws;
		sbt_writer_get_stats(w, &ws);
		TST_CHECK_EQ_U64(ws.records, RT_NREC);
	}
	if (!close_it) {
		TST_REQUIRE(sbt_writer_flush(w) == SBT_OK);
		*keep = w;
		return;
	}
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
}

static int rt_rec_equal(const sbt_record *got, const sbt_record *want)
{
	return got->type == want->type && got->seq == want->seq && got->time_ns == want->time_ns &&
	       got->thread == want->thread && got->stack_id == want->stack_id &&
	       got->payload_len == want->payload_len &&
	       (want->payload_len == 0 || memcmp(got->payload, want->payload, want->payload_len) == 0);
}

/* Index of the first expected record with seq >= s (nrec when none). */
static size_t rt_lower_bound(uint64_t s)
{
	size_t lo = 0, hi = rt_m.nrec;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rt_m.recs[mid].r.seq < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void rt_check_reader(const char *path, int ignore_index, int expect_index,
                            const char *app_value)
{
	sbt_reader_options ro = {0, 1, ignore_index};
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record rec;
	size_t i, n = 0, bad = 0;
	sbt_status st;

	TST_REQUIRE(sbt_reader_open(path, &ro, &r) == SBT_OK);
	TST_CHECK(strcmp(sbt_reader_message(r), "") == 0);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.has_index, expect_index);
	TST_CHECK_EQ_U64(info.truncated, 0);
	TST_CHECK_EQ_U64(info.header.version_major, 1);
	TST_CHECK_EQ_U64(info.record_count, rt_m.nrec);
	TST_CHECK_EQ_U64(info.first_seq, rt_m.recs[0].r.seq);
	TST_CHECK_EQ_U64(info.last_seq, rt_m.recs[rt_m.nrec - 1].r.seq);
	TST_CHECK_EQ_U64(info.first_time_ns, rt_m.recs[0].r.time_ns);
	TST_CHECK_EQ_U64(info.frame_count, rt_m.nframes);
	TST_CHECK_EQ_U64(info.keyframe_count, rt_m.nkeyframes);
	TST_CHECK_EQ_U64(info.string_count, RT_NSTR);
	TST_CHECK_EQ_U64(info.stack_count, RT_NSTACK);
	TST_CHECK_EQ_U64(info.blob_count, rt_m.nblobs);
	TST_CHECK(info.chunk_count > 20);
	TST_CHECK(info.stored_bytes <= info.raw_bytes);
	{
		uint64_t logical = 0, tmax = 0;
		for (i = 0; i < rt_m.nblobs; i++)
			logical += rt_m.blob_len[i];
		TST_CHECK_EQ_U64(info.blob_bytes_logical, logical);
		for (i = 0; i < rt_m.nrec; i++)
			if (rt_m.recs[i].r.time_ns > tmax)
				tmax = rt_m.recs[i].r.time_ns;
		TST_CHECK_EQ_U64(info.last_time_ns, tmax);
	}

	/* Full iteration. */
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		if (n >= rt_m.nrec || !rt_rec_equal(&rec, &rt_m.recs[n].r))
			bad++;
		n++;
	}
	TST_CHECK(st == SBT_END);
	TST_CHECK_EQ_U64(n, rt_m.nrec);
	TST_CHECK_EQ_U64(bad, 0);

	/* Tables. */
	for (i = 0; i < RT_NSTR; i++)
		TST_CHECK(sbt_reader_string(r, rt_m.str_ids[i]) &&
		          strcmp(sbt_reader_string(r, rt_m.str_ids[i]), rt_m.strs[i]) == 0);
	TST_CHECK(sbt_reader_string(r, 0) == NULL);
	TST_CHECK(sbt_reader_string(r, RT_NSTR + 1) == NULL);
	for (i = 0; i < RT_NSTACK; i++) {
		const sbt_frame *fr;
		uint32_t nf, k;
		TST_CHECK(sbt_reader_stack(r, rt_m.stack_ids[i], &fr, &nf) == SBT_OK);
		TST_CHECK_EQ_U64(nf, rt_m.stack_n[i]);
		for (k = 0; k < nf && k < rt_m.stack_n[i]; k++) {
			TST_CHECK_EQ_U64(fr[k].ip, rt_m.stack_frames[i][k].ip);
			TST_CHECK_EQ_U64(fr[k].symbol_id, rt_m.stack_frames[i][k].symbol_id);
		}
	}
	{
		const sbt_frame *fr;
		uint32_t nf;
		TST_CHECK(sbt_reader_stack(r, RT_NSTACK + 1, &fr, &nf) == SBT_ERR_NOT_FOUND);
	}
	TST_CHECK(strcmp(sbt_reader_type_name(r, SBT_TYPE_FRAME), "frame") == 0);
	TST_CHECK(strcmp(sbt_reader_type_name(r, 64), "vkQueueSubmit") == 0);
	TST_CHECK(strcmp(sbt_reader_type_name(r, 65), "cuLaunchKernel") == 0);
	TST_CHECK(strcmp(sbt_reader_type_name(r, 200), "") == 0);
	{
		uint32_t ty;
		const char *name;
		size_t count = 0;
		while (sbt_reader_type_at(r, count, &ty, &name) == SBT_OK)
			count++;
		TST_CHECK_EQ_U64(count, 4);
	}
	TST_CHECK(sbt_reader_meta(r, "app") && strcmp(sbt_reader_meta(r, "app"), app_value) == 0);
	TST_CHECK(sbt_reader_meta(r, "host") && strcmp(sbt_reader_meta(r, "host"), "box") == 0);
	TST_CHECK(sbt_reader_meta(r, "empty") && strcmp(sbt_reader_meta(r, "empty"), "") == 0);
	TST_CHECK(sbt_reader_meta(r, "nope") == NULL);
	{
		const char *k, *v;
		size_t count = 0;
		while (sbt_reader_meta_at(r, count, &k, &v) == SBT_OK)
			count++;
		TST_CHECK_EQ_U64(count, 3);
	}

	/* Blobs. */
	for (i = 0; i < rt_m.nblobs; i++) {
		void *data = NULL;
		size_t len = 12345;
		TST_CHECK(sbt_reader_blob_size(r, rt_m.blob_ids[i], &len) == SBT_OK);
		TST_CHECK_EQ_U64(len, rt_m.blob_len[i]);
		TST_CHECK(sbt_reader_blob_get(r, rt_m.blob_ids[i], &data, &len) == SBT_OK);
		TST_CHECK_EQ_U64(len, rt_m.blob_len[i]);
		TST_CHECK(data && (len == 0 || memcmp(data, rt_m.blob_data[i], len) == 0));
		free(data);
	}
	{
		void *data;
		size_t len;
		TST_CHECK(sbt_reader_blob_get(r, 99999, &data, &len) == SBT_ERR_NOT_FOUND);
	}

	/* Seek to every Nth seq, and to the gap just before it. */
	for (i = 0; i < rt_m.nrec; i += 37) {
		uint64_t targets[2];
		int k;
		targets[0] = rt_m.recs[i].r.seq;
		targets[1] = rt_m.recs[i].r.seq - 1;
		for (k = 0; k < 2; k++) {
			size_t want = rt_lower_bound(targets[k]);
			TST_CHECK(sbt_reader_seek_seq(r, targets[k]) == SBT_OK);
			st = sbt_reader_next(r, &rec);
			if (want == rt_m.nrec) {
				TST_CHECK(st == SBT_END);
			} else {
				TST_CHECK(st == SBT_OK && rt_rec_equal(&rec, &rt_m.recs[want].r));
				if (st == SBT_OK && i + 1 < rt_m.nrec) {
					TST_CHECK(sbt_reader_next(r, &rec) == SBT_OK &&
					          rec.seq == rt_m.recs[want + 1].r.seq);
				}
			}
		}
	}
	TST_CHECK(sbt_reader_seek_seq(r, rt_m.recs[rt_m.nrec - 1].r.seq + 1) == SBT_OK);
	TST_CHECK(sbt_reader_next(r, &rec) == SBT_END);
	TST_CHECK(sbt_reader_seek_seq(r, 0) == SBT_OK);
	TST_CHECK(sbt_reader_next(r, &rec) == SBT_OK && rec.seq == rt_m.recs[0].r.seq);

	/* Frames. */
	for (i = 1; i <= rt_m.nframes; i++) {
		uint64_t s;
		size_t want;
		TST_CHECK(sbt_reader_frame_seq(r, i, &s) == SBT_OK && s == rt_m.frame_seq[i]);
		TST_CHECK(sbt_reader_seek_frame(r, i) == SBT_OK);
		want = i == 1 ? 0 : rt_lower_bound(rt_m.frame_seq[i - 1] + 1);
		TST_CHECK(sbt_reader_next(r, &rec) == SBT_OK && rec.seq == rt_m.recs[want].r.seq);
	}
	{
		uint64_t s;
		TST_CHECK(sbt_reader_frame_seq(r, rt_m.nframes + 1, &s) == SBT_ERR_NOT_FOUND);
		TST_CHECK(sbt_reader_seek_frame(r, rt_m.nframes + 2) == SBT_ERR_NOT_FOUND);
		TST_CHECK(sbt_reader_seek_frame(r, 0) == SBT_ERR_ARG);
	}
	{
		const uint64_t *kf;
		size_t nkf;
		TST_CHECK(sbt_reader_keyframes(r, &kf, &nkf) == SBT_OK);
		TST_CHECK_EQ_U64(nkf, rt_m.nkeyframes);
		for (i = 0; i < nkf && i < rt_m.nkeyframes; i++)
			TST_CHECK_EQ_U64(kf[i], rt_m.keyframes[i]);
	}

	/* Chunk walk: every chunk verifies. */
	{
		sbt_chunk_info ci;
		size_t nc = 0;
		uint64_t prev_off = 0;
		while (sbt_reader_chunk_at(r, nc, &ci) == SBT_OK) {
			TST_CHECK(ci.offset > prev_off);
			prev_off = ci.offset;
			TST_CHECK(sbt_reader_verify_chunk(r, nc) == SBT_OK);
			nc++;
		}
		TST_CHECK_EQ_U64(nc, info.chunk_count);
	}
	sbt_reader_close(r);
}

static void rt_check_checkpoint_record(void)
{
	/* A checkpoint payload written as a record decodes back. */
	const char *path = tst_path("cp.sbt");
	sbt_writer *w;
	sbt_reader *r;
	sbt_record rec = {0};
	sbt_checkpoint cp, back;
	uint8_t data[1000], *buf;
	size_t len;
	rt_fill(data, sizeof(data));
	TST_REQUIRE(sbt_checkpoint_compute(data, sizeof(data), &cp) == SBT_OK);
	cp.call_seq = 41;
	cp.object = 7;
	cp.offset = 128;
	TST_REQUIRE(sbt_checkpoint_encode(&cp, &buf, &len) == SBT_OK);
	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	rec.type = SBT_TYPE_CHECKPOINT;
	rec.seq = 42;
	rec.payload = buf;
	rec.payload_len = len;
	TST_CHECK(sbt_writer_append(w, &rec) == SBT_OK);
	TST_CHECK(sbt_writer_close(w) == SBT_OK);
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	TST_REQUIRE(sbt_reader_next(r, &rec) == SBT_OK);
	TST_CHECK(rec.type == SBT_TYPE_CHECKPOINT && rec.seq == 42);
	TST_REQUIRE(sbt_checkpoint_decode(rec.payload, rec.payload_len, &back) == SBT_OK);
	TST_CHECK(back.call_seq == 41 && back.object == 7 && back.offset == 128 &&
	          back.length == sizeof(data) && back.hash == cp.hash && back.nblocks == cp.nblocks);
	TST_CHECK(memcmp(back.block_hashes, cp.block_hashes, cp.nblocks * 8) == 0);
	TST_CHECK(sbt_reader_next(r, &rec) == SBT_END);
	sbt_checkpoint_free(&back);
	sbt_checkpoint_free(&cp);
	free(buf);
	sbt_reader_close(r);
}

static void rt_check_empty(void)
{
	const char *path = tst_path("empty.sbt");
	sbt_writer *w;
	sbt_reader *r;
	sbt_record rec;
	sbt_trace_info info;
	sbt_header_info h;
	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	sbt_writer_get_header(w, &h);
	TST_CHECK(sbt_writer_close(w) == SBT_OK);
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.record_count, 0);
	TST_CHECK_EQ_U64(info.has_index, 1);
	TST_CHECK(memcmp(info.header.trace_id, h.trace_id, 16) == 0);
	TST_CHECK_EQ_U64(info.header.start_mono_ns, h.start_mono_ns);
	TST_CHECK_EQ_U64(info.header.start_wall_ns, h.start_wall_ns);
	TST_CHECK(sbt_reader_next(r, &rec) == SBT_END);
	TST_CHECK(sbt_reader_seek_frame(r, 1) == SBT_OK);
	TST_CHECK(sbt_reader_next(r, &rec) == SBT_END);
	sbt_reader_close(r);
}

static void rt_check_varints(void)
{
	const uint64_t vals[] = {0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
	                         (uint64_t)UINT32_MAX + 1, UINT64_MAX - 1, UINT64_MAX};
	size_t i;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint8_t b[10];
		const uint8_t *p = b;
		uint64_t v;
		size_t n = sbt_varint_put(b, vals[i]);
		TST_CHECK(sbt_varint_get(&p, b + n, &v) == 0 && v == vals[i] && p == b + n);
		p = b;
		TST_CHECK(sbt_varint_get(&p, b + n - 1, &v) == -1 && p == b); /* truncated */
	}
	{
		uint8_t over[11];
		const uint8_t *p = over;
		uint64_t v;
		memset(over, 0xff, sizeof(over));
		TST_CHECK(sbt_varint_get(&p, over + sizeof(over), &v) == -1);
		over[9] = 0x02; /* tenth byte above the u64 range */
		p = over;
		TST_CHECK(sbt_varint_get(&p, over + sizeof(over), &v) == -1);
	}
	TST_CHECK(strcmp(sbt_strerror(SBT_ERR_CORRUPT), "trace is corrupt") == 0);
	TST_CHECK(strcmp(sbt_strerror((sbt_status)999), "unknown SBT status") == 0);
}

int main(void)
{
	const char *path = tst_path("rt.sbt");
	const char *partial = tst_path("partial.sbt");
	sbt_writer *w = NULL;
	size_t i;

	rt_check_varints();
	rt_write(path, 1, NULL);
	rt_check_reader(path, 0, 1, "second");
	rt_check_reader(path, 1, 0, "second");

	/* A writer that flushed but never closed: the file is a valid trace
	 * without index (the meta change after the records is in it too). */
	rt_state = 0x9e3779b97f4a7c15ull;
	for (i = 0; i < rt_m.nrec; i++)
		free(rt_m.recs[i].payload);
	for (i = 0; i < rt_m.nblobs; i++)
		free(rt_m.blob_data[i]);
	memset(&rt_m, 0, sizeof(rt_m));
	rt_write(partial, 0, &w);
	rt_check_reader(partial, 0, 0, "second");
	TST_CHECK(sbt_writer_close(w) == SBT_OK);
	rt_check_reader(partial, 0, 1, "second");

	rt_check_checkpoint_record();
	rt_check_empty();
	for (i = 0; i < rt_m.nrec; i++)
		free(rt_m.recs[i].payload);
	for (i = 0; i < rt_m.nblobs; i++)
		free(rt_m.blob_data[i]);
	return tst_done();
}
