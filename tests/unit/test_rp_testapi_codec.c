/*
 * test_rp_testapi_codec.c - the testapi double's payload codec and "device",
 * which the replay backend feeds untrusted trace bytes: every type round
 * trips; every truncated payload, trailing byte and out-of-range id,
 * offset or length is refused with a message naming it; kernels compute
 * the documented results.
 */
#include <string.h>

#include "tests/support/testapi_core.h"
#include "tests/support/tst.h"

static void test_rp_codec_roundtrip(uint32_t type)
{
	testapi_op op = {0}, back;
	uint8_t p[TESTAPI_PAYLOAD_MAX];
	char err[256];
	size_t n, cut;

	op.type = type;
	op.buf = 70000;
	op.a = 2;
	op.b = 3;
	op.off = 1ull << 40;
	op.len = 300;
	op.size = 4096;
	op.value = UINT64_MAX;
	op.blob = 17;
	n = testapi_op_encode(&op, p);
	TST_REQUIRE(n > 0 && n <= TESTAPI_PAYLOAD_MAX);
	TST_REQUIRE(testapi_op_decode(type, p, n, &back, err, sizeof(err)) == 0);
	TST_CHECK_EQ_U64(back.type, type);
	TST_CHECK_EQ_U64(back.buf, 70000);
	/* Fields the type does not carry decode as 0. */
	if (type == TESTAPI_TYPE_ADD) {
		TST_CHECK_EQ_U64(back.a, 2);
		TST_CHECK_EQ_U64(back.b, 3);
		TST_CHECK_EQ_U64(back.off, 0);
	}
	if (type == TESTAPI_TYPE_MIX)
		TST_CHECK_EQ_U64(back.value, UINT64_MAX);
	if (type == TESTAPI_TYPE_WRITE) {
		TST_CHECK_EQ_U64(back.off, 1ull << 40);
		TST_CHECK_EQ_U64(back.blob, 17);
		TST_CHECK_EQ_U64(back.value, 0);
	}
	for (cut = 0; cut < n; cut++) {
		err[0] = '\0';
		TST_CHECK(testapi_op_decode(type, p, cut, &back, err, sizeof(err)) != 0);
		TST_CHECK(strstr(err, "truncated or malformed") != NULL);
	}
	p[n] = 0;
	TST_CHECK(testapi_op_decode(type, p, n + 1, &back, err, sizeof(err)) != 0);
	TST_CHECK(strstr(err, "1 unexpected trailing bytes") != NULL);
}

static void test_rp_codec_refused(testapi_mem *m, const testapi_op *op, const char *want)
{
	char err[256] = "";
	TST_CHECK(testapi_mem_exec(m, op, err, sizeof(err)) != 0);
	if (!strstr(err, want)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", err, want);
		tst_failures++;
	}
}

int main(void)
{
	testapi_mem m = {0};
	testapi_op op = {0};
	uint8_t data[16];
	char err[256];
	const uint8_t *p;
	uint32_t t;

	for (t = TESTAPI_TYPE_ALLOC; t < TESTAPI_TYPE_END; t++)
		test_rp_codec_roundtrip(t);
	TST_CHECK(testapi_op_decode(TESTAPI_TYPE_END, data, 0, &op, err, sizeof(err)) != 0);
	TST_CHECK(strstr(err, "is not a testapi call") != NULL);
	TST_CHECK(testapi_type_name(SBT_TYPE_CHECKPOINT) == NULL);
	TST_CHECK(strcmp(testapi_type_name(TESTAPI_TYPE_MIX), "testapi.mix") == 0);

	/* Allocation limits. */
	op.type = TESTAPI_TYPE_ALLOC;
	op.buf = 0;
	op.size = 16;
	test_rp_codec_refused(&m, &op, "buffer id 0 is outside");
	op.buf = TESTAPI_MAX_BUFFERS;
	test_rp_codec_refused(&m, &op, "is outside 1..");
	op.buf = 1;
	op.size = TESTAPI_MAX_SIZE + 1;
	test_rp_codec_refused(&m, &op, "buffer 1: size 1073741825 is outside");
	op.size = 16;
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0);
	test_rp_codec_refused(&m, &op, "buffer 1 is already allocated");
	op.buf = 2;
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0);

	/* Ranges are checked, including offsets that would overflow. */
	memset(&op, 0, sizeof(op));
	op.type = TESTAPI_TYPE_FILL;
	op.buf = 1;
	op.off = 8;
	op.len = 9;
	test_rp_codec_refused(&m, &op, "range [8, +9) is outside buffer 1 of 16 bytes");
	op.off = UINT64_MAX;
	op.len = 2;
	test_rp_codec_refused(&m, &op, "is outside buffer 1");
	op.buf = 9;
	op.off = 0;
	test_rp_codec_refused(&m, &op, "buffer 9 is not allocated");
	op.buf = 1 << 30;
	test_rp_codec_refused(&m, &op, "is not allocated");

	/* Kernels: fill pattern, add, scale, lengths that must be multiples. */
	op.buf = 1;
	op.off = 0;
	op.len = 16;
	op.value = 0x04030201u;
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0);
	op.buf = 2;
	op.off = 2;
	op.len = 6; /* starts mid-word: bytes follow the offset's position */
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0);
	p = testapi_mem_range(&m, 2, 0, 8, err, sizeof(err));
	TST_REQUIRE(p != NULL);
	TST_CHECK(p[0] == 0 && p[1] == 0 && p[2] == 3 && p[3] == 4 && p[4] == 1 && p[7] == 4);
	memset(&op, 0, sizeof(op));
	op.type = TESTAPI_TYPE_ADD;
	op.buf = 2;
	op.a = 1;
	op.b = 1;
	op.len = 16;
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0);
	p = testapi_mem_range(&m, 2, 0, 4, err, sizeof(err));
	TST_CHECK(p[0] == 2 && p[1] == 4 && p[2] == 6 && p[3] == 8);
	op.len = 6;
	test_rp_codec_refused(&m, &op, "add: length 6 is not a multiple of 4");
	op.len = 32;
	test_rp_codec_refused(&m, &op, "outside buffer 2 of 16 bytes");
	op.type = TESTAPI_TYPE_MIX;
	op.len = 12;
	test_rp_codec_refused(&m, &op, "mix: length 12 is not a multiple of 8");

	/* Write and snapshot need their data; free then use is refused. */
	memset(&op, 0, sizeof(op));
	op.type = TESTAPI_TYPE_WRITE;
	op.buf = 1;
	op.len = 4;
	test_rp_codec_refused(&m, &op, "write to buffer 1 has no data");
	op.type = TESTAPI_TYPE_SNAPSHOT;
	op.size = 4;
	test_rp_codec_refused(&m, &op, "snapshot of buffer 1 has no data");
	memset(data, 0xab, sizeof(data));
	op.data = data;
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0); /* replaces buffer 1 */
	p = testapi_mem_range(&m, 1, 0, 4, err, sizeof(err));
	TST_CHECK(p != NULL && p[3] == 0xab);
	TST_CHECK(testapi_mem_range(&m, 1, 0, 5, err, sizeof(err)) == NULL);
	TST_CHECK_EQ_U64(m.live, 2);
	op.type = TESTAPI_TYPE_FREE;
	TST_REQUIRE(testapi_mem_exec(&m, &op, err, sizeof(err)) == 0);
	TST_CHECK_EQ_U64(m.live, 1);
	test_rp_codec_refused(&m, &op, "buffer 1 is not allocated");
	testapi_mem_clear(&m);
	TST_CHECK_EQ_U64(m.live, 0);
	return tst_done();
}
