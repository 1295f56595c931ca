/*
 * test_sbt_compat - the forward-compatibility rules of the format, on a
 * trace assembled byte by byte: a larger file header, a later minor
 * version, unknown optional features, larger chunk headers, unknown chunk
 * types, unknown chunk flags, unknown blob entry kinds and unknown record
 * types are all read past; an unknown major version or required feature is
 * refused with a message that says which.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "serializer/sbt_format.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

typedef struct cm_buf {
	uint8_t b[4096];
	size_t n;
} cm_buf;

static void cm_put(cm_buf *f, const void *p, size_t n)
{
	TST_REQUIRE(f->n + n <= sizeof(f->b));
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void cm_var(cm_buf *f, uint64_t v)
{
	uint8_t t[10];
	cm_put(f, t, sbt_varint_put(t, v));
}

static void cm_file_header(cm_buf *f, uint32_t hs, uint16_t major, uint16_t minor,
                           uint64_t required, uint64_t optional)
{
	uint8_t h[128];
	memset(h, 0xa5, sizeof(h)); /* fields this reader does not know */
	memcpy(h, SBT_FMT_MAGIC, 8);
	sbt_fmt_store_u32(h + 8, hs);
	sbt_fmt_store_u16(h + 12, major);
	sbt_fmt_store_u16(h + 14, minor);
	sbt_fmt_store_u64(h + 16, required);
	sbt_fmt_store_u64(h + 24, optional);
	sbt_fmt_store_u64(h + 48, 111);
	sbt_fmt_store_u64(h + 56, 222);
	sbt_fmt_store_u32(h + hs - 4, XXH32(h, hs - 4, 0));
	f->n = 0;
	cm_put(f, h, hs);
}

/* A stored (codec 0) chunk with a header of hs bytes. */
static void cm_chunk(cm_buf *f, uint32_t hs, uint32_t type, uint32_t flags, uint32_t count,
                     uint64_t first_seq, uint64_t t_first, uint64_t t_last, const cm_buf *pay)
{
	uint8_t h[SBT_FMT_CHUNK_HDR_MAX];
	sbt_fmt_chunk_hdr ch;
	memset(&ch, 0, sizeof(ch));
	ch.type = type;
	ch.flags = flags;
	ch.raw_size = ch.stored_size = (uint32_t)pay->n;
	ch.record_count = count;
	ch.first_seq = first_seq;
	ch.t_first = t_first;
	ch.t_last = t_last;
	ch.payload_sum = XXH3_64bits(pay->b, pay->n);
	memset(h, 0x3c, sizeof(h));
	sbt_fmt_chunk_hdr_encode(h, &ch);
	sbt_fmt_store_u32(h, hs);
	if (hs > 64)
		memset(h + 56, 0x3c, hs - 60); /* extension fields */
	sbt_fmt_store_u32(h + hs - 4, XXH32(h, hs - 4, 0));
	cm_put(f, h, hs);
	cm_put(f, pay->b, pay->n);
}

static size_t cm_build(cm_buf *f, uint32_t fhs, uint16_t major, uint16_t minor,
                       uint64_t required)
{
	static cm_buf p;
	XXH128_hash_t h = XXH3_128bits("hello world", 11);
	uint8_t hash[16];
	sbt_fmt_store_u64(hash, h.low64);
	sbt_fmt_store_u64(hash + 8, h.high64);

	cm_file_header(f, fhs, major, minor, required, 0xff00);

	p.n = 0; /* strings 1, 2 */
	cm_var(&p, 5);
	cm_put(&p, "alpha", 5);
	cm_var(&p, 4);
	cm_put(&p, "beta", 4);
	cm_chunk(f, 64, SBT_CHUNK_STRINGS, 0, 2, 1, 0, 0, &p);

	p.n = 0; /* a chunk type from the future */
	cm_put(&p, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", 10);
	cm_chunk(f, 80, 200, 0, 1, 0, 0, 0, &p);

	p.n = 0; /* blob entries: an unknown kind, a page, a manifest */
	cm_put(&p, "\x09", 1);
	cm_var(&p, 5);
	cm_put(&p, "later", 5);
	cm_put(&p, "\x01", 1);
	cm_var(&p, 16 + 11);
	cm_put(&p, hash, 16);
	cm_put(&p, "hello world", 11);
	cm_put(&p, "\x02", 1);
	cm_var(&p, 3 + 16);
	cm_var(&p, 7);
	cm_var(&p, 11);
	cm_var(&p, 1);
	cm_put(&p, hash, 16);
	cm_chunk(f, 64, SBT_CHUNK_BLOBS, 0, 3, 0, 0, 0, &p);

	p.n = 0; /* records: seqs 10, 12, 20; times 500, 490, 600 */
	cm_var(&p, 9999);
	cm_var(&p, 0);
	cm_var(&p, sbt_fmt_zigzag(0));
	cm_var(&p, 77);
	cm_var(&p, 0);
	cm_var(&p, 3);
	cm_put(&p, "abc", 3);
	cm_var(&p, SBT_TYPE_NOTE);
	cm_var(&p, 2);
	cm_var(&p, sbt_fmt_zigzag(-10));
	cm_var(&p, 78);
	cm_var(&p, 0);
	cm_var(&p, 0);
	cm_var(&p, 70);
	cm_var(&p, 8);
	cm_var(&p, sbt_fmt_zigzag(100));
	cm_var(&p, 79);
	cm_var(&p, 0);
	cm_var(&p, 1);
	cm_put(&p, "z", 1);
	cm_chunk(f, 72, SBT_CHUNK_RECORDS, 0x80, 3, 10, 500, 600, &p);
	return f->n;
}

int main(void)
{
	static cm_buf f;
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record rec;
	void *blob;
	size_t blen;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		sbt_reader_options ro = {0, 1, mode};
		cm_build(&f, 96, 1, 7, 0);
		TST_REQUIRE(sbt_reader_open_mem(f.b, f.n, &ro, &r) == SBT_OK);
		TST_CHECK(strcmp(sbt_reader_message(r), "") == 0);
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.header.version_minor, 7);
		TST_CHECK_EQ_U64(info.header.features, 0xff00);
		TST_CHECK_EQ_U64(info.header.start_mono_ns, 111);
		TST_CHECK_EQ_U64(info.header.start_wall_ns, 222);
		TST_CHECK_EQ_U64(info.chunk_count, 4);
		TST_CHECK_EQ_U64(info.record_count, 3);
		TST_CHECK_EQ_U64(info.first_seq, 10);
		TST_CHECK_EQ_U64(info.last_seq, 20);
		TST_CHECK_EQ_U64(info.truncated, 0);
		TST_CHECK_EQ_U64(info.has_index, 0);
		TST_CHECK(sbt_reader_next(r, &rec) == SBT_OK && rec.type == 9999 && rec.seq == 10 &&
		          rec.time_ns == 500 && rec.thread == 77 && rec.payload_len == 3 &&
		          memcmp(rec.payload, "abc", 3) == 0);
		TST_CHECK(sbt_reader_next(r, &rec) == SBT_OK && rec.type == SBT_TYPE_NOTE &&
		          rec.seq == 12 && rec.time_ns == 490 && rec.payload_len == 0);
		TST_CHECK(sbt_reader_next(r, &rec) == SBT_OK && rec.type == 70 && rec.seq == 20 &&
		          rec.time_ns == 600 && rec.stack_id == 0 &&
		          rec.payload_len == 1 && rec.payload[0] == (uint8_t)0x7a);
		TST_CHECK(sbt_reader_next(r, &rec) == SBT_END);
		TST_CHECK(sbt_reader_string(r, 2) && strcmp(sbt_reader_string(r, 2), "beta") == 0);
		TST_CHECK(sbt_reader_blob_get(r, 7, &blob, &blen) == SBT_OK && blen == 11 &&
		          memcmp(blob, "hello world", 11) == 0);
		free(blob);
		TST_CHECK(sbt_reader_verify_chunk(r, 1) == SBT_OK); /* the unknown chunk */
		sbt_reader_close(r);
	}

	/* Refused: another major version, an unknown required feature. */
	cm_build(&f, 80, 2, 0, 0);
	TST_CHECK(sbt_reader_open_mem(f.b, f.n, NULL, &r) == SBT_ERR_VERSION);
	TST_CHECK(r && strstr(sbt_reader_message(r), "version 2.0"));
	sbt_reader_close(r);
	cm_build(&f, 80, 1, 0, 0x10);
	TST_CHECK(sbt_reader_open_mem(f.b, f.n, NULL, &r) == SBT_ERR_VERSION);
	TST_CHECK(r && strstr(sbt_reader_message(r), "required feature bits 0x10"));
	sbt_reader_close(r);
	/* A header size that cannot be. */
	cm_build(&f, 80, 1, 0, 0);
	sbt_fmt_store_u32(f.b + 8, 60);
	TST_CHECK(sbt_reader_open_mem(f.b, f.n, NULL, &r) == SBT_ERR_CORRUPT);
	TST_CHECK(r && strstr(sbt_reader_message(r), "offset 0"));
	sbt_reader_close(r);
	/* Not a trace at all. */
	TST_CHECK(sbt_reader_open_mem("hello, this is text\n", 20, NULL, &r) == SBT_ERR_NOT_SBT);
	TST_CHECK(r && strstr(sbt_reader_message(r), "not an SBT trace"));
	sbt_reader_close(r);
	TST_CHECK(sbt_reader_open(tst_path("does-not-exist.sbt"), NULL, &r) == SBT_ERR_IO);
	TST_CHECK(r == NULL);
	return tst_done();
}
