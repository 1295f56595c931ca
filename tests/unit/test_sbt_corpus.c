/*
 * test_sbt_corpus - makes the small traces the fuzz corpus starts from, and
 * checks that each reads the way its name says.
 *
 *   build/tests/test_sbt_corpus --write tests/fuzz/corpus
 *
 * regenerates tests/fuzz/corpus/ (trace ids and start clocks differ on every
 * run; the structure does not).  Without arguments the traces are made in a
 * temp dir and only checked, so the generator cannot rot.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define CO_MAX 65536

typedef struct co_trace {
	const char *name;
	uint8_t *bytes;
	size_t len;
} co_trace;

static uint64_t co_x = 2463534242ull;
static uint32_t co_rand(void)
{
	co_x ^= co_x << 13;
	co_x ^= co_x >> 7;
	co_x ^= co_x << 17;
	return (uint32_t)co_x;
}

/* Writes a trace exercising every chunk and core record type.  keep_open:
 * flush and copy the bytes before close (a writer that was killed);
 * random_blobs: blobs of bytes that do not compress, so that BLOBS chunks
 * are stored uncompressed and keyed (docs/sbt-format.md). */
static void co_make(const char *name, uint32_t chunk, uint32_t page, int no_compress,
                    int nrec, int keep_open, int random_blobs, co_trace *out)
{
	sbt_writer_options opt = {chunk, page, 0, no_compress};
	const char *path = tst_path(name);
	sbt_writer *w;
	uint64_t seq = 1, blob = 0;
	uint32_t sid = 0, stack = 0;
	uint8_t pay[200], *cpbuf;
	size_t cplen;
	sbt_checkpoint cp;
	int i;
	size_t k;

	TST_REQUIRE(sbt_writer_open(path, &opt, &w) == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 64, "vkCmdDraw") == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 65, "cuLaunchKernel") == SBT_OK);
	TST_CHECK(sbt_writer_set_meta(w, "tracesmith.version", "0.1") == SBT_OK);
	TST_CHECK(sbt_writer_set_meta(w, "api", "test") == SBT_OK);
	for (i = 0; i < nrec; i++) {
		sbt_record rec = {0};
		if (i % 16 == 0) {
			char s[32];
			sbt_frame fr[2];
			snprintf(s, sizeof(s), "lib.so!f%d+0x%x", i, i * 3);
			TST_CHECK(sbt_writer_intern(w, s, &sid) == SBT_OK);
			fr[0].ip = 0x1000 + (uint64_t)i;
			fr[0].symbol_id = sid;
			fr[1].ip = 0x2000;
			fr[1].symbol_id = 0;
			TST_CHECK(sbt_writer_put_stack(w, (uint64_t)i / 32, fr, 2, &stack) == SBT_OK);
		}
		if (i % (random_blobs ? 8 : 40) == 5) {
			uint8_t data[700];
			for (k = 0; k < sizeof(data); k++)
				data[k] = (uint8_t)(random_blobs ? co_rand() : k < 300 ? 0 : co_rand() & 7);
			TST_CHECK(sbt_writer_put_blob(w, 0, data,
			                              random_blobs ? sizeof(data)
			                                           : (size_t)(co_rand() % sizeof(data)),
			                              &blob) == SBT_OK);
		}
		seq += 1 + co_rand() % 3;
		rec.seq = seq;
		rec.time_ns = seq * 100 + co_rand() % 50;
		rec.thread = 4242 + (uint64_t)(i % 3);
		rec.stack_id = i % 4 ? stack : 0;
		switch (i % 10) {
		case 9:
			rec.type = SBT_TYPE_FRAME;
			rec.payload_len = sbt_varint_put(pay, (uint64_t)i / 10 + 1);
			rec.payload = pay;
			break;
		case 3:
			rec.type = SBT_TYPE_KEYFRAME;
			break;
		case 5:
			TST_REQUIRE(sbt_checkpoint_compute(pay, sizeof(pay), &cp) == SBT_OK);
			cp.call_seq = seq - 1;
			TST_REQUIRE(sbt_checkpoint_encode(&cp, &cpbuf, &cplen) == SBT_OK);
			rec.type = SBT_TYPE_CHECKPOINT;
			rec.payload = cpbuf;
			rec.payload_len = cplen;
			TST_CHECK(sbt_writer_append(w, &rec) == SBT_OK);
			free(cpbuf);
			sbt_checkpoint_free(&cp);
			continue;
		case 7:
			rec.type = SBT_TYPE_NOTE;
			rec.payload = (const uint8_t *)"hello";
			rec.payload_len = 5;
			break;
		default:
			rec.type = 64 + (uint32_t)(i & 1);
			rec.payload_len = co_rand() % 40;
			for (k = 0; k < rec.payload_len; k++)
				pay[k] = (uint8_t)(blob + k);
			rec.payload = pay;
			break;
		}
		TST_CHECK(sbt_writer_append(w, &rec) == SBT_OK);
	}
	if (keep_open) {
		TST_REQUIRE(sbt_writer_flush(w) == SBT_OK);
		out->bytes = tst_read_file(path, &out->len);
		TST_CHECK(sbt_writer_close(w) == SBT_OK);
	} else {
		TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
		out->bytes = tst_read_file(path, &out->len);
	}
	TST_REQUIRE(out->bytes != NULL);
	out->name = name;
}

/* Offset of the RECORDS chunk nearest the middle of a trace. */
static uint64_t co_middle_chunk(const co_trace *t)
{
	sbt_reader *r;
	sbt_chunk_info ci;
	uint64_t best = 0;
	size_t i;
	TST_REQUIRE(sbt_reader_open_mem(t->bytes, t->len, NULL, &r) == SBT_OK);
	for (i = 0; sbt_reader_chunk_at(r, i, &ci) == SBT_OK; i++)
		if (ci.type == 1 && ci.offset <= t->len / 2)
			best = ci.offset;
	sbt_reader_close(r);
	TST_REQUIRE(best != 0);
	return best;
}

static void co_check(const co_trace *t, sbt_status want_open, int want_truncated,
                     int want_index)
{
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_status st = sbt_reader_open_mem(t->bytes, t->len, NULL, &r);
	if (st != want_open) {
		fprintf(stderr, "%s: open gave %s, expected %s (%s)\n", t->name, sbt_strerror(st),
		        sbt_strerror(want_open), r ? sbt_reader_message(r) : "");
		tst_failures++;
	}
	TST_CHECK(t->len <= CO_MAX);
	if (r) {
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.truncated, want_truncated);
		TST_CHECK_EQ_U64(info.has_index, want_index);
		if (want_open == SBT_OK && !want_truncated && strcmp(t->name, "empty.sbt") != 0)
			TST_CHECK(info.record_count > 0);
	}
	sbt_reader_close(r);
}

int main(int argc, char **argv)
{
	co_trace t[10];
	size_t n = 0, i;
	uint64_t mid;

	co_make("small.sbt", 0, 0, 0, 60, 0, 0, &t[n++]);
	co_make("uncompressed.sbt", 0, 0, 1, 60, 0, 0, &t[n++]);
	co_make("multi_chunk.sbt", 1024, 256, 0, 600, 0, 0, &t[n++]);
	co_make("no_index.sbt", 1024, 256, 0, 200, 1, 0, &t[n++]);
	co_make("empty.sbt", 0, 0, 0, 0, 0, 0, &t[n++]);

	/* Damaged copies of multi_chunk. */
	mid = co_middle_chunk(&t[2]);
	t[n] = t[2];
	t[n].name = "truncated.sbt";
	t[n].bytes = malloc(t[2].len);
	memcpy(t[n].bytes, t[2].bytes, t[2].len);
	t[n].len = (size_t)mid + 100;
	n++;
	t[n] = t[2];
	t[n].name = "corrupt_payload.sbt";
	t[n].bytes = malloc(t[2].len);
	memcpy(t[n].bytes, t[2].bytes, t[2].len);
	t[n].bytes[mid + 64 + 10] ^= 0x21;
	n++;
	t[n] = t[2];
	t[n].name = "corrupt_header.sbt";
	t[n].bytes = malloc(t[2].len);
	memcpy(t[n].bytes, t[2].bytes, t[2].len);
	t[n].bytes[mid + 20] ^= 0x21;
	n++;

	co_check(&t[0], SBT_OK, 0, 1);
	co_check(&t[1], SBT_OK, 0, 1);
	co_check(&t[2], SBT_OK, 0, 1);
	co_check(&t[3], SBT_OK, 0, 0);
	co_check(&t[4], SBT_OK, 0, 1);
	co_check(&t[5], SBT_OK, 1, 0);
	/* With the index intact, payload damage shows when the chunk is read;
	 * the header damage disagrees with the index the same way. */
	co_check(&t[6], SBT_OK, 0, 1);
	co_check(&t[7], SBT_OK, 0, 1);
	{
		sbt_reader_options scan = {0, 0, 1};
		sbt_reader *r = NULL;
		TST_CHECK(sbt_reader_open_mem(t[6].bytes, t[6].len, &scan, &r) == SBT_ERR_CORRUPT);
		sbt_reader_close(r);
		TST_CHECK(sbt_reader_open_mem(t[7].bytes, t[7].len, &scan, &r) == SBT_ERR_CORRUPT);
		sbt_reader_close(r);
	}

	/* keyed BLOBS chunks: the file says so, and reads */
	co_make("keyed_blobs.sbt", 1024, 256, 1, 200, 0, 1, &t[n]);
	co_check(&t[n], SBT_OK, 0, 1);
	{
		sbt_reader *r = NULL;
		sbt_trace_info info;
		TST_REQUIRE(sbt_reader_open_mem(t[n].bytes, t[n].len, NULL, &r) == SBT_OK);
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.header.features, SBT_FEATURE_KEYED_BLOBS);
		for (i = 0; i < info.chunk_count; i++)
			TST_CHECK(sbt_reader_verify_chunk(r, i) == SBT_OK);
		sbt_reader_close(r);
	}
	n++;

	if (argc == 3 && strcmp(argv[1], "--write") == 0) {
		for (i = 0; i < n; i++) {
			char p[1024];
			snprintf(p, sizeof(p), "%s/%s", argv[2], t[i].name);
			if (tst_write_file(p, t[i].bytes, t[i].len) != 0) {
				fprintf(stderr, "cannot write %s\n", p);
				tst_failures++;
			}
			printf("%s: %zu bytes\n", p, t[i].len);
		}
	}
	for (i = 0; i < n; i++)
		free(t[i].bytes);
	return tst_done();
}
