/*
 * sbt_dump: exact text and JSON for every core record type, string
 * escaping (quotes, control bytes, UTF-8 and bytes that are not), raw
 * fallback with and without a payload the codec rejects, an API codec
 * registered by type name and found through a real trace's type table, and
 * the nesting of path keys in JSON.
 */
#include <string.h>

#include "serializer/sbt_dump.h"
#include "tests/support/tst.h"

#define TD_TYPE_CALL (SBT_TYPE_FIRST_API + 3)
#define TD_TYPE_RAW (SBT_TYPE_FIRST_API + 4)

static sbt_record td_rec(uint32_t type, const void *p, size_t n)
{
	sbt_record r;
	memset(&r, 0, sizeof(r));
	r.type = type;
	r.seq = 5;
	r.time_ns = 1000000002;
	r.thread = 9;
	r.payload = p;
	r.payload_len = n;
	return r;
}

/* Formats rec alone and compares with want. */
static int td_expect(const sbt_dump *d, const sbt_reader *rd, const sbt_record *rec,
                     sbt_dump_format fmt, int with_stack, const char *want, int line)
{
	sbt_dump_options o;
	sbt_dump_buf b = { 0 };
	int ok;

	memset(&o, 0, sizeof(o));
	o.format = fmt;
	o.with_stack = with_stack;
	ok = sbt_dump_record(d, rd, rec, &o, &b) == SBT_OK && b.data && strcmp(b.data, want) == 0;
	if (!ok)
		fprintf(stderr, "line %d:\n  got:  %s  want: %s", line, b.data ? b.data : "(null)\n",
		        want);
	sbt_dump_buf_free(&b);
	return ok;
}
#define TD_EXPECT(d, rd, rec, fmt, ws, want) \
	TST_CHECK(td_expect(d, rd, rec, fmt, ws, want, __LINE__))

static void td_core(const sbt_dump *d)
{
	uint8_t frame[10];
	size_t n = sbt_varint_put(frame, 300);
	sbt_record r = td_rec(SBT_TYPE_FRAME, frame, n);
	uint8_t extra[12];
	static const uint8_t bad[] = { 0x80 };
	static const char note[] = "say \"hi\"\n\t\x01 caf\xc3\xa9 \xff!";
	uint8_t tid[10];

	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0, "seq=5 t=1.000000002 tid=9 FRAME frame=300\n");
	TD_EXPECT(d, NULL, &r, SBT_DUMP_JSON, 0,
	          "{\"seq\":5,\"time_ns\":1000000002,\"thread\":9,\"type\":1,\"name\":\"FRAME\","
	          "\"stack\":0,\"payload_len\":2,\"args\":{\"frame\":300}}\n");

	/* A later version's field after the frame number: counted, not hidden. */
	memcpy(extra, frame, n);
	extra[n] = 0x42;
	r = td_rec(SBT_TYPE_FRAME, extra, n + 1);
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0,
	          "seq=5 t=1.000000002 tid=9 FRAME frame=300 extra_bytes=1\n");

	/* A payload the codec rejects is shown raw, with the reason. */
	r = td_rec(SBT_TYPE_FRAME, bad, sizeof(bad));
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0,
	          "seq=5 t=1.000000002 tid=9 FRAME payload_error=\"payload does not decode\" "
	          "len=1 hex=80\n");
	TD_EXPECT(d, NULL, &r, SBT_DUMP_JSON, 0,
	          "{\"seq\":5,\"time_ns\":1000000002,\"thread\":9,\"type\":1,\"name\":\"FRAME\","
	          "\"stack\":0,\"payload_len\":1,\"payload_hex\":\"80\","
	          "\"payload_error\":\"payload does not decode\"}\n");
	r = td_rec(SBT_TYPE_FRAME, NULL, 0);
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0,
	          "seq=5 t=1.000000002 tid=9 FRAME payload_error=\"payload does not decode\" "
	          "len=0\n");

	/* Without a reader, a string id stays a number. */
	r = td_rec(SBT_TYPE_THREAD, tid, sbt_varint_put(tid, 3));
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0, "seq=5 t=1.000000002 tid=9 THREAD string_id=3\n");
	r.type = SBT_TYPE_UNMODELED;
	r.stack_id = 4;
	TD_EXPECT(d, NULL, &r, SBT_DUMP_JSON, 0,
	          "{\"seq\":5,\"time_ns\":1000000002,\"thread\":9,\"type\":6,\"name\":\"UNMODELED\","
	          "\"stack\":4,\"payload_len\":1,\"args\":{\"string_id\":3}}\n");
	/* A stack id the (absent) reader cannot resolve says so. */
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 1,
	          "seq=5 t=1.000000002 tid=9 UNMODELED string_id=3 stack=4\n"
	          "    (stack 4 not in the trace)\n");

	/* Escaping: C style for text; JSON escapes, U+FFFD for a non-UTF-8 byte. */
	r = td_rec(SBT_TYPE_NOTE, note, sizeof(note) - 1);
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0,
	          "seq=5 t=1.000000002 tid=9 NOTE text=\"say \\\"hi\\\"\\n\\t\\x01 caf\xc3\xa9 \\xff!\"\n");
	TD_EXPECT(d, NULL, &r, SBT_DUMP_JSON, 0,
	          "{\"seq\":5,\"time_ns\":1000000002,\"thread\":9,\"type\":5,\"name\":\"NOTE\","
	          "\"stack\":0,\"payload_len\":20,\"args\":{\"text\":\"say \\\"hi\\\"\\n\\t\\u0001 "
	          "caf\xc3\xa9 \\ufffd!\"}}\n");
	/* Overlong and surrogate encodings are not UTF-8 either. */
	{
		static const char odd[] = "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80";
		r = td_rec(SBT_TYPE_NOTE, odd, sizeof(odd) - 1);
		TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0,
		          "seq=5 t=1.000000002 tid=9 NOTE text=\"\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\"\n");
	}

	/* KEYFRAME: its payload belongs to the API; length and leading bytes. */
	r = td_rec(SBT_TYPE_KEYFRAME, "abc", 3);
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0, "seq=5 t=1.000000002 tid=9 KEYFRAME len=3 hex=616263\n");
}

static void td_checkpoint(const sbt_dump *d)
{
	static const char data[200] = "checkpoint bytes";
	sbt_checkpoint cp;
	uint8_t *enc = NULL;
	size_t len = 0;
	sbt_record r;
	char want[512];

	TST_REQUIRE(sbt_checkpoint_compute(data, sizeof(data), &cp) == SBT_OK);
	cp.call_seq = 4;
	cp.object = 0xbeef;
	cp.offset = 64;
	TST_REQUIRE(sbt_checkpoint_encode(&cp, &enc, &len) == SBT_OK);
	r = td_rec(SBT_TYPE_CHECKPOINT, enc, len);
	snprintf(want, sizeof(want),
	         "seq=5 t=1.000000002 tid=9 CHECKPOINT call_seq=4 object=0x000000000000beef "
	         "offset=64 length=200 hash=0x%016llx block_size=%u blocks=%u\n",
	         (unsigned long long)cp.hash, cp.block_size, cp.nblocks);
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0, want);
	TST_CHECK_EQ_U64(cp.nblocks, (200 + cp.block_size - 1) / cp.block_size);
	/* Cut short: rejected by the codec, shown raw. */
	r.payload_len = len / 2;
	snprintf(want, sizeof(want), "seq=5 t=1.000000002 tid=9 CHECKPOINT payload_error=");
	{
		sbt_dump_buf b = { 0 };
		TST_CHECK(sbt_dump_record(d, NULL, &r, NULL, &b) == SBT_OK);
		TST_CHECK(b.data && strncmp(b.data, want, strlen(want)) == 0);
		sbt_dump_buf_free(&b);
	}
	free(enc);
	sbt_checkpoint_free(&cp);
}

static void td_raw(const sbt_dump *d)
{
	uint8_t p[20];
	sbt_record r;
	sbt_dump_options o;
	sbt_dump_buf b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(p); i++)
		p[i] = (uint8_t)(0xa0 + i);
	r = td_rec(200, p, sizeof(p));
	TD_EXPECT(d, NULL, &r, SBT_DUMP_TEXT, 0,
	          "seq=5 t=1.000000002 tid=9 type#200 len=20 "
	          "hex=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf..(+4)\n");
	TD_EXPECT(d, NULL, &r, SBT_DUMP_JSON, 0,
	          "{\"seq\":5,\"time_ns\":1000000002,\"thread\":9,\"type\":200,\"name\":\"\","
	          "\"stack\":0,\"payload_len\":20,"
	          "\"payload_hex\":\"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3\"}\n");
	memset(&o, 0, sizeof(o));
	o.format = SBT_DUMP_JSON;
	o.max_hex = 2;
	TST_CHECK(sbt_dump_record(d, NULL, &r, &o, &b) == SBT_OK);
	TST_CHECK(b.data && strstr(b.data, "\"payload_hex\":\"a0a1\",\"more_bytes\":18}\n"));
	/* Appending: a second record goes after the first. */
	TST_CHECK(sbt_dump_record(d, NULL, &r, &o, &b) == SBT_OK);
	TST_CHECK(b.data && strstr(b.data, "}\n{\"seq\":5") != NULL);
	sbt_dump_buf_free(&b);
	TST_CHECK(sbt_dump_record(d, NULL, NULL, &o, &b) == SBT_ERR_ARG);
}

/* An API codec, as a front-end will register one. */
static sbt_status td_codec_call(sbt_dump_emit *e, const sbt_reader *r, const sbt_record *rec)
{
	const uint8_t *p = rec->payload, *end = rec->payload + rec->payload_len;
	uint64_t handle, name_id;
	const char *name;

	if (sbt_varint_get(&p, end, &handle) != 0 || sbt_varint_get(&p, end, &name_id) != 0)
		return SBT_ERR_CORRUPT;
	name = r ? sbt_reader_string(r, (uint32_t)name_id) : NULL;
	sbt_dump_emit_hex64(e, "handle", handle);
	if (name)
		sbt_dump_emit_str(e, "kernel", name, strlen(name));
	sbt_dump_emit_bytes(e, "rest", p, (size_t)(end - p), 4);
	return SBT_OK;
}

static sbt_status td_codec_other(sbt_dump_emit *e, const sbt_reader *r, const sbt_record *rec)
{
	(void)r;
	sbt_dump_emit_u64(e, "n", rec->payload_len);
	return SBT_OK;
}

/* Keys that are paths: JSON nests them (docs/tsinfo.md). */
static sbt_status td_codec_paths(sbt_dump_emit *e, const sbt_reader *r, const sbt_record *rec)
{
	(void)r;
	(void)rec;
	sbt_dump_emit_u64(e, "count", 2);
	sbt_dump_emit_u64(e, "p.count", 3); /* the array p; 2 of its 3 elements follow */
	sbt_dump_emit_u64(e, "p[0].a", 1);
	sbt_dump_emit_num(e, "p[0].b", "-0.5", 4);
	sbt_dump_emit_null(e, "p[1]");
	sbt_dump_emit_u64(e, "q.r.s", 7);
	sbt_dump_emit_num(e, "q.r.t", "nan", 3);
	sbt_dump_emit_u64(e, "q.u.count", 0);
	sbt_dump_emit_bytes(e, "z", (const uint8_t *)"\x01\x02\x03", 3, 2);
	return SBT_OK;
}

static void td_registered(sbt_dump *d)
{
	const char *path = tst_path("codec.sbt");
	sbt_writer *w = NULL;
	sbt_reader *rd = NULL;
	sbt_record rec, got;
	uint8_t p[32];
	size_t n;
	uint32_t kid, sym, stack;
	sbt_frame fr[2];
	sbt_dump_buf b = { 0 };
	sbt_dump_options o;

	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	TST_REQUIRE(sbt_writer_define_type(w, TD_TYPE_CALL, "test.launch") == SBT_OK);
	TST_REQUIRE(sbt_writer_define_type(w, TD_TYPE_RAW, "test.raw") == SBT_OK);
	TST_REQUIRE(sbt_writer_intern(w, "my_kernel", &kid) == SBT_OK);
	TST_REQUIRE(sbt_writer_intern(w, "lib.so!f+0x10", &sym) == SBT_OK);
	fr[0].ip = 0x1234;
	fr[0].symbol_id = sym;
	fr[1].ip = 0x5678;
	fr[1].symbol_id = 0;
	TST_REQUIRE(sbt_writer_put_stack(w, 77, fr, 2, &stack) == SBT_OK);
	n = sbt_varint_put(p, 0xfeed);
	n += sbt_varint_put(p + n, kid);
	p[n++] = 1;
	p[n++] = 2;
	rec = td_rec(TD_TYPE_CALL, p, n);
	rec.seq = 1;
	rec.stack_id = stack;
	TST_REQUIRE(sbt_writer_append(w, &rec) == SBT_OK);
	rec = td_rec(TD_TYPE_RAW, "xy", 2);
	rec.seq = 2;
	TST_REQUIRE(sbt_writer_append(w, &rec) == SBT_OK);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);

	TST_REQUIRE(sbt_reader_open(path, NULL, &rd) == SBT_OK);
	TST_CHECK(!sbt_dump_has_codec(d, rd, TD_TYPE_CALL));
	TST_REQUIRE(sbt_reader_next(rd, &got) == SBT_OK);
	TD_EXPECT(d, rd, &got, SBT_DUMP_TEXT, 0,
	          "seq=1 t=1.000000002 tid=9 test.launch len=6 hex=edfd03010102 stack=1\n");
	TST_CHECK(sbt_dump_register(d, "test.launch", td_codec_other) == SBT_OK);
	TST_CHECK(sbt_dump_register(d, "test.launch", td_codec_call) == SBT_OK); /* replaces */
	TST_CHECK(sbt_dump_register(d, "", td_codec_call) == SBT_ERR_ARG);
	TST_CHECK(sbt_dump_register(d, "x", NULL) == SBT_ERR_ARG);
	TST_CHECK(sbt_dump_has_codec(d, rd, TD_TYPE_CALL));
	TST_CHECK(!sbt_dump_has_codec(d, rd, TD_TYPE_RAW));
	TST_CHECK(sbt_dump_has_codec(d, rd, SBT_TYPE_FRAME));
	TD_EXPECT(d, rd, &got, SBT_DUMP_TEXT, 1,
	          "seq=1 t=1.000000002 tid=9 test.launch handle=0x000000000000feed "
	          "kernel=\"my_kernel\" rest=0102 stack=1\n"
	          "    #0  0x0000000000001234 lib.so!f+0x10\n"
	          "    #1  0x0000000000005678 ?\n");
	TD_EXPECT(d, rd, &got, SBT_DUMP_JSON, 1,
	          "{\"seq\":1,\"time_ns\":1000000002,\"thread\":9,\"type\":67,\"name\":\"test.launch\","
	          "\"stack\":1,\"payload_len\":6,\"args\":{\"handle\":\"0x000000000000feed\","
	          "\"kernel\":\"my_kernel\",\"rest\":\"0102\"},\"frames\":[{\"ip\":\"0x1234\","
	          "\"symbol\":\"lib.so!f+0x10\"},{\"ip\":\"0x5678\"}]}\n");
	TST_REQUIRE(sbt_reader_next(rd, &got) == SBT_OK);
	TD_EXPECT(d, rd, &got, SBT_DUMP_TEXT, 0, "seq=2 t=1.000000002 tid=9 test.raw len=2 hex=7879\n");
	TST_CHECK(sbt_dump_register(d, "test.raw", td_codec_paths) == SBT_OK);
	TD_EXPECT(d, rd, &got, SBT_DUMP_TEXT, 0,
	          "seq=2 t=1.000000002 tid=9 test.raw count=2 p.count=3 p[0].a=1 p[0].b=\"-0.5\" "
	          "p[1]=\"NULL\" q.r.s=7 q.r.t=\"nan\" q.u.count=0 z=0102..(+1)\n");
	TD_EXPECT(d, rd, &got, SBT_DUMP_JSON, 0,
	          "{\"seq\":2,\"time_ns\":1000000002,\"thread\":9,\"type\":68,\"name\":\"test.raw\","
	          "\"stack\":0,\"payload_len\":2,\"args\":{\"count\":2,\"p\":[{\"a\":1,\"b\":-0.5},null],"
	          "\"p_more_elements\":1,\"q\":{\"r\":{\"s\":7,\"t\":\"nan\"},\"u\":[]},"
	          "\"z\":{\"hex\":\"0102\",\"more_bytes\":1}}}\n");
	TST_CHECK(strcmp(sbt_dump_type_name(rd, TD_TYPE_RAW), "test.raw") == 0);
	TST_CHECK(strcmp(sbt_dump_type_name(rd, SBT_TYPE_FRAME), "FRAME") == 0);
	TST_CHECK(strcmp(sbt_dump_type_name(rd, 999), "") == 0);

	/* A codec that rejects its payload: fields dropped, raw shown. */
	got = td_rec(TD_TYPE_CALL, "\x80", 1);
	memset(&o, 0, sizeof(o));
	TST_CHECK(sbt_dump_record(d, rd, &got, &o, &b) == SBT_OK);
	TST_CHECK(b.data && strcmp(b.data, "seq=5 t=1.000000002 tid=9 test.launch payload_error="
	                                   "\"payload does not decode\" len=1 hex=80\n") == 0);
	sbt_dump_buf_free(&b);
	sbt_reader_close(rd);
}

/* Long values take the buffer's slow formatting path. */
static void td_long(const sbt_dump *d)
{
	char text[3000];
	sbt_record r;
	sbt_dump_buf b = { 0 };

	memset(text, 'q', sizeof(text));
	r = td_rec(SBT_TYPE_NOTE, text, sizeof(text));
	r.seq = 123456789012345ull;
	TST_CHECK(sbt_dump_record(d, NULL, &r, NULL, &b) == SBT_OK);
	TST_CHECK_EQ_U64(b.len, strlen("seq=123456789012345 t=1.000000002 tid=9 NOTE text=\"\"\n") +
	                            sizeof(text));
	TST_CHECK(b.data && b.data[b.len - 2] == '"' && b.data[b.len] == '\0');
	sbt_dump_buf_free(&b);
	TST_CHECK(sbt_dump_json_string(&b, "a\"b", 3) == SBT_OK && b.data &&
	          strcmp(b.data, "\"a\\\"b\"") == 0);
	sbt_dump_buf_free(&b);
	sbt_dump_buf_free(NULL);
}

int main(void)
{
	sbt_dump *d = NULL;

	TST_REQUIRE(sbt_dump_create(&d) == SBT_OK);
	td_core(d);
	td_checkpoint(d);
	td_raw(d);
	td_registered(d);
	td_long(d);
	sbt_dump_free(d);
	sbt_dump_free(NULL);
	return tst_done();
}
