/*
 * test_cm_codec.c - the compute record model's payload codec: round trips
 * of every field, absent-means-zero, forward compatibility (unknown tags
 * skipped) and refusal of every malformed payload, plus image sizing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "serializer/sbt_format.h"
#include "tests/support/tst.h"

static size_t enc(const sbt_cm_call *c, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	TST_REQUIRE(sbt_cm_encode(c, buf, cap, &n) == SBT_OK);
	TST_REQUIRE(n <= sbt_cm_encoded_max(c));
	return n;
}

static void test_names(void)
{
	sbt_cm_kind k;
	size_t n = 0;
	const sbt_cm_type_desc *t = sbt_cm_types(&n);
	TST_CHECK_EQ_U64(n, SBT_CM_KIND_COUNT);
	TST_CHECK(strcmp(sbt_cm_type_name(SBT_CM_K_cuLaunchKernel), "cuda.cuLaunchKernel") == 0);
	TST_CHECK(strcmp(sbt_cm_kind_name(SBT_CM_K_cuMemcpyHtoD), "cuMemcpyHtoD") == 0);
	TST_CHECK(sbt_cm_kind_by_name("cuda.cuMemcpyDtoHAsync", &k) == 0 &&
	          k == SBT_CM_K_cuMemcpyDtoHAsync);
	TST_CHECK(sbt_cm_kind_by_name("cuLaunchKernelEx", &k) == 0 && k == SBT_CM_K_cuLaunchKernelEx);
	TST_CHECK(sbt_cm_kind_by_name("cuda.cuNoSuchCall", &k) == -1);
	TST_CHECK(sbt_cm_kind_by_name("hip.cuLaunchKernel", &k) == -1);
	TST_CHECK(sbt_cm_type_name(SBT_CM_KIND_COUNT) == NULL);
	/* Type numbers are BASE + position, the table says the same. */
	for (size_t i = 0; i < n; i++) {
		TST_CHECK_EQ_U64(t[i].type, SBT_CM_TYPE_BASE + i);
		TST_CHECK(strcmp(t[i].name, sbt_cm_type_name((sbt_cm_kind)i)) == 0);
	}
	TST_CHECK(strcmp(sbt_cm_field_name(21), "grid_x") == 0);
	TST_CHECK(sbt_cm_field_name(999) == NULL);
}

static void test_launch_roundtrip(void)
{
	uint8_t params[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	uint8_t layout[2 * SBT_CM_LAYOUT_BYTES];
	uint8_t attrs[SBT_CM_ATTR_BYTES];
	uint8_t val[64];
	uint8_t buf[1024];
	sbt_cm_call c, d;
	uint32_t off, size, id;
	const uint8_t *v;
	size_t n;

	memset(val, 0xab, sizeof(val));
	sbt_cm_layout_put(layout, 0, 8);
	sbt_cm_layout_put(layout + SBT_CM_LAYOUT_BYTES, 8, 4);
	sbt_cm_attr_put(attrs, 7, val);
	sbt_cm_call_init(&c);
	c.result = 0;
	c.handle = 0x7f0012345678ull;
	c.sub = SBT_CM_FUNC_KERNEL;
	c.name = (const uint8_t *)"saxpy";
	c.name_len = 5;
	c.grid_x = 1024;
	c.grid_y = 1;
	c.grid_z = 1;
	c.block_x = 256;
	c.block_y = 1;
	c.block_z = 1;
	c.shared_mem = 4096;
	c.stream = 0xdeadbeef;
	c.params = params;
	c.params_len = sizeof(params);
	c.layout = layout;
	c.layout_len = sizeof(layout);
	c.attrs = attrs;
	c.attrs_len = sizeof(attrs);
	c.device = -3;
	c.priority = -1;
	c.ptds = 1;
	c.capture_status = 1;
	c.capture_id = 99;
	n = enc(&c, buf, sizeof(buf));
	TST_REQUIRE(sbt_cm_decode(buf, n, &d) == SBT_OK);
	TST_CHECK_EQ_U64(d.handle, c.handle);
	TST_CHECK_EQ_U64(d.sub, SBT_CM_FUNC_KERNEL);
	TST_CHECK(d.name_len == 5 && memcmp(d.name, "saxpy", 5) == 0);
	TST_CHECK_EQ_U64(d.grid_x, 1024);
	TST_CHECK_EQ_U64(d.block_x, 256);
	TST_CHECK_EQ_U64(d.shared_mem, 4096);
	TST_CHECK_EQ_U64(d.stream, 0xdeadbeef);
	TST_CHECK(d.device == -3 && d.priority == -1);
	TST_CHECK_EQ_U64(d.ptds, 1);
	TST_CHECK_EQ_U64(d.capture_id, 99);
	TST_CHECK(d.params_len == sizeof(params) && memcmp(d.params, params, sizeof(params)) == 0);
	TST_REQUIRE(sbt_cm_layout_count(&d) == 2);
	sbt_cm_layout_at(&d, 1, &off, &size);
	TST_CHECK(off == 8 && size == 4);
	TST_CHECK(sbt_cm_check_params(&d) == 0);
	TST_REQUIRE(sbt_cm_attr_count(&d) == 1);
	sbt_cm_attr_at(&d, 0, &id, &v);
	TST_CHECK(id == 7 && memcmp(v, val, 64) == 0);
	/* Fields not set decode as zero. */
	TST_CHECK_EQ_U64(d.dst, 0);
	TST_CHECK(d.extra == NULL && d.extra_len == 0);

	/* A layout entry past the parameter bytes is caught. */
	sbt_cm_layout_put(layout + SBT_CM_LAYOUT_BYTES, 8, 8);
	n = enc(&c, buf, sizeof(buf));
	TST_REQUIRE(sbt_cm_decode(buf, n, &d) == SBT_OK);
	TST_CHECK(sbt_cm_check_params(&d) == -1);

	/* Too small a buffer, and a packed array of the wrong length, are refused. */
	TST_CHECK(sbt_cm_encode(&c, buf, 10, &n) == SBT_ERR_ARG);
	c.layout_len = 5;
	TST_CHECK(sbt_cm_encode(&c, buf, sizeof(buf), &n) == SBT_ERR_ARG);
}

static void test_empty_and_all_fields(void)
{
	sbt_cm_call c, d;
	uint8_t buf[2048];
	size_t n;
	sbt_cm_call_init(&c);
	n = enc(&c, buf, sizeof(buf));
	TST_CHECK_EQ_U64(n, 0); /* absent means 0: nothing is written */
	TST_CHECK(sbt_cm_decode(buf, 0, &d) == SBT_OK);
	/* Every scalar field with a distinct value survives. */
	c.result = 1; c.ctx = 2; c.device = 3; c.flags = 4; c.handle = 5; c.parent = 6;
	c.dst = 8; c.src = 9; c.size = 10; c.pitch = 11; c.width = 12; c.height = 13;
	c.depth = 14; c.elem_size = 15; c.stream = 16; c.event = 17; c.blob = 18;
	c.value = 19; c.priority = 20; c.grid_x = 21; c.grid_y = 22; c.grid_z = 23;
	c.block_x = 24; c.block_y = 25; c.block_z = 26; c.shared_mem = 27;
	c.capture_status = 32; c.capture_id = 33; c.host = 34; c.offset = 35; c.sub = 36;
	c.pool = 37; c.align = 38; c.ptds = 39; c.count = 40; c.src_ctx = 41;
	c.dst_type = 42; c.src_type = 43; c.dst_x = 44; c.dst_y = 45; c.dst_z = 46;
	c.src_x = 47; c.src_y = 48; c.src_z = 49; c.dst_pitch = 50; c.src_pitch = 51;
	c.dst_height = 52; c.src_height = 53;
	c.note = (const uint8_t *)"graphs";
	c.note_len = 6;
	c.extra = (const uint8_t *)"xyz";
	c.extra_len = 3;
	n = enc(&c, buf, sizeof(buf));
	TST_REQUIRE(sbt_cm_decode(buf, n, &d) == SBT_OK);
	TST_CHECK(d.result == 1 && d.ctx == 2 && d.device == 3 && d.flags == 4 && d.handle == 5);
	TST_CHECK(d.parent == 6 && d.dst == 8 && d.src == 9 && d.size == 10 && d.pitch == 11);
	TST_CHECK(d.width == 12 && d.height == 13 && d.depth == 14 && d.elem_size == 15);
	TST_CHECK(d.stream == 16 && d.event == 17 && d.blob == 18 && d.value == 19);
	TST_CHECK(d.priority == 20 && d.grid_x == 21 && d.grid_y == 22 && d.grid_z == 23);
	TST_CHECK(d.block_x == 24 && d.block_y == 25 && d.block_z == 26 && d.shared_mem == 27);
	TST_CHECK(d.capture_status == 32 && d.capture_id == 33 && d.host == 34);
	TST_CHECK(d.offset == 35 && d.sub == 36 && d.pool == 37 && d.align == 38);
	TST_CHECK(d.ptds == 39 && d.count == 40 && d.src_ctx == 41 && d.dst_type == 42);
	TST_CHECK(d.src_type == 43 && d.dst_x == 44 && d.dst_y == 45 && d.dst_z == 46);
	TST_CHECK(d.src_x == 47 && d.src_y == 48 && d.src_z == 49 && d.dst_pitch == 50);
	TST_CHECK(d.src_pitch == 51 && d.dst_height == 52 && d.src_height == 53);
	TST_CHECK(d.note_len == 6 && memcmp(d.note, "graphs", 6) == 0);
	TST_CHECK(d.extra_len == 3 && memcmp(d.extra, "xyz", 3) == 0);
}

static size_t put(uint8_t *p, uint64_t v)
{
	return sbt_varint_put(p, v);
}

static void test_bad_payloads(void)
{
	uint8_t buf[64];
	sbt_cm_call d;
	size_t n, good;

	/* A field a newer writer added (tag 120, each wire type) is skipped. */
	n = 0;
	n += put(buf + n, 10u << 2 | 0);
	n += put(buf + n, 4096);
	n += put(buf + n, 120u << 2 | 0);
	n += put(buf + n, 77);
	n += put(buf + n, 121u << 2 | 2);
	n += put(buf + n, 3);
	memcpy(buf + n, "abc", 3);
	n += 3;
	n += put(buf + n, 122u << 2 | 1);
	n += put(buf + n, 5);
	good = n;
	TST_REQUIRE(sbt_cm_decode(buf, n, &d) == SBT_OK);
	TST_CHECK_EQ_U64(d.size, 4096);

	/* Every truncation of it is refused or decodes a prefix, never reads past. */
	for (size_t cut = 0; cut < good; cut++) {
		sbt_status st = sbt_cm_decode(buf, cut, &d);
		TST_CHECK(st == SBT_OK || st == SBT_ERR_CORRUPT);
	}
	/* Cutting inside the bytes field must be refused. */
	TST_CHECK(sbt_cm_decode(buf, good - 4, &d) == SBT_ERR_CORRUPT);

	/* Wire type 3. */
	n = put(buf, 10u << 2 | 3);
	n += put(buf + n, 1);
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* Known tag with the wrong wire type. */
	n = put(buf, 7u << 2 | 0); /* name is bytes */
	n += put(buf + n, 1);
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* Known tag twice. */
	n = put(buf, 10u << 2 | 0);
	n += put(buf + n, 1);
	n += put(buf + n, 10u << 2 | 0);
	n += put(buf + n, 2);
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* Tag 0. */
	n = put(buf, 0);
	n += put(buf + n, 1);
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* Length past the end. */
	n = put(buf, 28u << 2 | 2);
	n += put(buf + n, 1000);
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* A huge length that would wrap a pointer. */
	n = put(buf, 28u << 2 | 2);
	n += put(buf + n, UINT64_MAX);
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* Packed layout not a multiple of 8; attrs not a multiple of 72. */
	n = put(buf, 29u << 2 | 2);
	n += put(buf + n, 7);
	memset(buf + n, 0, 7);
	n += 7;
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	n = put(buf, 31u << 2 | 2);
	n += put(buf + n, 8);
	memset(buf + n, 0, 8);
	n += 8;
	TST_CHECK(sbt_cm_decode(buf, n, &d) == SBT_ERR_CORRUPT);
	/* An over-long varint. */
	memset(buf, 0xff, 12);
	TST_CHECK(sbt_cm_decode(buf, 12, &d) == SBT_ERR_CORRUPT);
}

static void test_images(void)
{
	unsigned kind = 99;
	uint8_t fb[64];
	const char *ptx = "//\n.version 8.0\n.target sm_90\n";
	size_t len = 0;
	unsigned char *self;
	/* PTX: text with its NUL. */
	TST_CHECK_EQ_U64(sbt_cm_image_size(ptx, SIZE_MAX, &kind), strlen(ptx) + 1);
	TST_CHECK_EQ_U64(kind, SBT_CM_IMAGE_PTX);
	TST_CHECK_EQ_U64(sbt_cm_image_size(ptx, 5, &kind), 0); /* no NUL within max */
	/* Fatbin: header size + body size. */
	memset(fb, 0, sizeof(fb));
	sbt_fmt_store_u32(fb, 0xBA55ED50u);
	sbt_fmt_store_u16(fb + 4, 1);
	sbt_fmt_store_u16(fb + 6, 16);
	sbt_fmt_store_u64(fb + 8, 40);
	TST_CHECK_EQ_U64(sbt_cm_image_size(fb, sizeof(fb), &kind), 56);
	TST_CHECK_EQ_U64(kind, SBT_CM_IMAGE_FATBIN);
	TST_CHECK_EQ_U64(sbt_cm_image_size(fb, 40, &kind), 0); /* body past max */
	/* ELF: this test's own executable is sized to exactly its file length. */
	self = tst_read_file("/proc/self/exe", &len);
	TST_REQUIRE(self != NULL);
	TST_CHECK_EQ_U64(sbt_cm_image_size(self, len, &kind), len);
	TST_CHECK_EQ_U64(kind, SBT_CM_IMAGE_ELF);
	TST_CHECK_EQ_U64(sbt_cm_image_size(self, len / 2, &kind), 0);
	free(self);
	/* Binary garbage is not an image. */
	TST_CHECK_EQ_U64(sbt_cm_image_size("\x01\x02\x03\x04\x05", 5, &kind), 0);
	TST_CHECK_EQ_U64(kind, SBT_CM_IMAGE_UNKNOWN);
}

static void test_dump(void)
{
	sbt_dump *d = NULL;
	sbt_dump_buf out = {0};
	sbt_dump_options opt = { .format = SBT_DUMP_TEXT };
	sbt_record rec;
	sbt_cm_call c;
	uint8_t buf[256];
	size_t n;
	TST_REQUIRE(sbt_dump_create(&d) == SBT_OK);
	TST_REQUIRE(sbt_cm_dump_register(d) == SBT_OK);
	sbt_cm_call_init(&c);
	c.dst = 0x1000;
	c.size = 64;
	c.device = -1;
	c.name = (const uint8_t *)"k";
	c.name_len = 1;
	n = enc(&c, buf, sizeof(buf));
	memset(&rec, 0, sizeof(rec));
	rec.type = SBT_CM_TYPE(SBT_CM_K_cuMemAlloc);
	rec.seq = 5;
	rec.payload = buf;
	rec.payload_len = n;
	/* Codecs go by type name, which a trace supplies: write a one-record
	 * trace and dump the record read back. */
	{
		sbt_writer *w = NULL;
		sbt_reader *r = NULL;
		sbt_record got;
		const char *path = tst_path("cm.sbt");
		TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
		TST_REQUIRE(sbt_cm_define_types(w) == SBT_OK);
		TST_REQUIRE(sbt_writer_append(w, &rec) == SBT_OK);
		TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
		TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
		TST_REQUIRE(sbt_reader_next(r, &got) == SBT_OK);
		TST_CHECK(strcmp(sbt_reader_type_name(r, got.type), "cuda.cuMemAlloc") == 0);
		TST_REQUIRE(sbt_dump_record(d, r, &got, &opt, &out) == SBT_OK);
		TST_CHECK(strstr(out.data, "cuda.cuMemAlloc") != NULL);
		TST_CHECK(strstr(out.data, "dst=4096") != NULL);
		TST_CHECK(strstr(out.data, "size=64") != NULL);
		TST_CHECK(strstr(out.data, "device=\"-1\"") != NULL);
		TST_CHECK(strstr(out.data, "payload_error") == NULL);
		if (tst_failures)
			fprintf(stderr, "dump: %s", out.data);
		sbt_reader_close(r);
	}
	sbt_dump_buf_free(&out);
	sbt_dump_free(d);
}

int main(void)
{
	test_names();
	test_launch_roundtrip();
	test_empty_and_all_fields();
	test_bad_payloads();
	test_images();
	test_dump();
	return tst_done();
}
