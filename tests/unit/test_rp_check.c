/*
 * test_rp_check.c - checkpoint comparison: a match, and for a changed byte
 * anywhere (first block, middle, a short last block, several changes) the
 * first differing block and its offset in the object.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/rp.h"
#include "tests/support/tst.h"

/* Bytes that differ from block to block, so no two blocks hash alike. */
static uint8_t *test_rp_check_data(size_t len, uint32_t seed)
{
	uint8_t *p = malloc(len ? len : 1);
	size_t i;
	uint32_t x = seed * 2654435761u + 1;
	TST_REQUIRE(p != NULL);
	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
	return p;
}

/* Capture-side checkpoint of data placed at range_offset in object 9. */
static sbt_checkpoint test_rp_check_capture(const uint8_t *data, size_t len, uint64_t range_offset)
{
	sbt_checkpoint cp = {0};
	TST_REQUIRE(sbt_checkpoint_compute(data, len, &cp) == SBT_OK);
	cp.object = 9;
	cp.offset = range_offset;
	cp.call_seq = 41;
	return cp;
}

/* Flip the bytes at offs[] in a copy and check the reported first block. */
static void test_rp_check_flip(size_t len, uint64_t range_offset, const size_t *offs, size_t n)
{
	uint8_t *data = test_rp_check_data(len, (uint32_t)len);
	uint8_t *replay = malloc(len);
	sbt_checkpoint cp = test_rp_check_capture(data, len, range_offset);
	rp_check_result res;
	rp_diag d = {""};
	size_t first = offs[0], i;
	uint64_t bs = cp.block_size;
	uint64_t want_block, want_len;

	TST_REQUIRE(replay != NULL);
	memcpy(replay, data, len);
	for (i = 0; i < n; i++) {
		replay[offs[i]] ^= 0x5a;
		if (offs[i] < first)
			first = offs[i];
	}
	TST_REQUIRE(rp_check_bytes(&cp, replay, len, &res, &d) == RP_OK);
	want_block = first / bs;
	want_len = (want_block + 1) * bs <= len ? bs : len - want_block * bs;
	TST_CHECK(!res.match);
	TST_CHECK(res.located);
	TST_CHECK_EQ_U64(res.block, want_block);
	TST_CHECK_EQ_U64(res.diff_offset, range_offset + want_block * bs);
	TST_CHECK_EQ_U64(res.diff_len, want_len);
	TST_CHECK(res.actual_hash != cp.hash);
	sbt_checkpoint_free(&cp);
	free(replay);
	free(data);
}

int main(void)
{
	rp_check_result res;
	rp_diag d = {""};

	/* Equal bytes match, whatever the size. */
	{
		static const size_t sizes[] = {1, 63, 64, 65, 4096, 300000};
		size_t i;
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			uint8_t *data = test_rp_check_data(sizes[i], 3);
			sbt_checkpoint cp = test_rp_check_capture(data, sizes[i], 128);
			TST_REQUIRE(rp_check_bytes(&cp, data, sizes[i], &res, &d) == RP_OK);
			TST_CHECK(res.match);
			TST_CHECK(!res.located);
			TST_CHECK_EQ_U64(res.actual_hash, cp.hash);
			sbt_checkpoint_free(&cp);
			free(data);
		}
	}
	/* First byte, a middle byte, the last byte of a short last block. */
	{
		size_t o[1];
		o[0] = 0;
		test_rp_check_flip(1000, 0, o, 1);
		o[0] = 500;
		test_rp_check_flip(1000, 4096, o, 1);
		o[0] = 999; /* 1000 = 15 blocks of 64 + 40: the short one */
		test_rp_check_flip(1000, 0, o, 1);
		o[0] = 63; /* last byte of block 0, not block 1 */
		test_rp_check_flip(1000, 0, o, 1);
		o[0] = 64;
		test_rp_check_flip(1000, 0, o, 1);
	}
	/* Several changes: the first one is reported. */
	{
		size_t o[3] = {900, 130, 700};
		test_rp_check_flip(1000, 16, o, 3);
	}
	/* A large range uses bigger blocks; the offset follows them. */
	{
		size_t o[1] = {1000000};
		test_rp_check_flip(3 << 20, 0, o, 1);
	}
	/* Two computed checkpoints (two runs) compare the same way. */
	{
		uint8_t *a = test_rp_check_data(256, 5);
		sbt_checkpoint ca = test_rp_check_capture(a, 256, 0);
		sbt_checkpoint cb;
		a[200] ^= 1;
		cb = test_rp_check_capture(a, 256, 0);
		TST_REQUIRE(rp_check_pair(&ca, &cb, &res, &d) == RP_OK);
		TST_CHECK(!res.match && res.located);
		TST_CHECK_EQ_U64(res.diff_offset, 192);
		TST_CHECK_EQ_U64(res.diff_len, 64);
		/* Block hashes that cannot be compared leave the mismatch unplaced. */
		cb.block_size *= 2;
		TST_REQUIRE(rp_check_pair(&ca, &cb, &res, &d) == RP_OK);
		TST_CHECK(!res.match && !res.located);
		sbt_checkpoint_free(&ca);
		sbt_checkpoint_free(&cb);
		free(a);
	}
	/* A length that is not the checkpoint's is an error naming both. */
	{
		uint8_t *a = test_rp_check_data(100, 6);
		sbt_checkpoint ca = test_rp_check_capture(a, 100, 0);
		TST_CHECK(rp_check_bytes(&ca, a, 99, &res, &d) == RP_ERR_ARG);
		TST_CHECK(strstr(d.text, "object 9 covers 100 bytes, the replay gave 99") != NULL);
		sbt_checkpoint_free(&ca);
		free(a);
	}
	return tst_done();
}
