/*
 * test_sbt_checkpoint - checkpoint hashing, block sizes, and the payload
 * codec: a round trip is exact, a changed byte changes the hash of exactly
 * the block that holds it, and malformed payloads are refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

static void cp_block_sizes(void)
{
	TST_CHECK_EQ_U64(sbt_checkpoint_block_size(0), 64);
	TST_CHECK_EQ_U64(sbt_checkpoint_block_size(1), 64);
	TST_CHECK_EQ_U64(sbt_checkpoint_block_size(64 * 4096), 64);
	TST_CHECK_EQ_U64(sbt_checkpoint_block_size(64 * 4096 + 1), 128);
	TST_CHECK_EQ_U64(sbt_checkpoint_block_size(1u << 20), 256);
	TST_CHECK_EQ_U64(sbt_checkpoint_block_size(1ull << 30), 1u << 18);
	/* The rule itself: a power of two, at least 64, at most 4096 blocks,
	 * and the smallest such. */
	{
		uint64_t len;
		for (len = 1; len < (1ull << 40); len = len * 3 + 7) {
			uint32_t bs = sbt_checkpoint_block_size(len);
			TST_CHECK(bs >= 64 && (bs & (bs - 1)) == 0);
			TST_CHECK((len + bs - 1) / bs <= 4096);
			TST_CHECK(bs == 64 || (len + bs / 2 - 1) / (bs / 2) > 4096);
		}
	}
}

static void cp_compute_and_codec(uint64_t len)
{
	uint8_t *data = malloc(len + 1);
	sbt_checkpoint cp, back, changed;
	uint8_t *buf;
	size_t blen, i;
	uint64_t pos;
	for (i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 131 + (i >> 9));
	TST_REQUIRE(sbt_checkpoint_compute(data, len, &cp) == SBT_OK);
	TST_CHECK_EQ_U64(cp.length, len);
	TST_CHECK_EQ_U64(cp.block_size, sbt_checkpoint_block_size(len));
	TST_CHECK_EQ_U64(cp.nblocks, (len + cp.block_size - 1) / cp.block_size);
	TST_CHECK_EQ_U64(cp.hash, XXH3_64bits(data, len));
	for (i = 0; i < cp.nblocks; i++) {
		uint64_t off = i * cp.block_size;
		uint64_t n = len - off < cp.block_size ? len - off : cp.block_size;
		TST_CHECK_EQ_U64(cp.block_hashes[i], XXH3_64bits(data + off, n));
	}
	cp.call_seq = 1234567;
	cp.object = 0xdeadbeefcafeull;
	cp.offset = 4096;
	TST_REQUIRE(sbt_checkpoint_encode(&cp, &buf, &blen) == SBT_OK);
	TST_REQUIRE(sbt_checkpoint_decode(buf, blen, &back) == SBT_OK);
	TST_CHECK(back.call_seq == cp.call_seq && back.object == cp.object &&
	          back.offset == cp.offset && back.length == cp.length &&
	          back.block_size == cp.block_size && back.hash == cp.hash &&
	          back.nblocks == cp.nblocks);
	TST_CHECK(cp.nblocks == 0 ||
	          memcmp(back.block_hashes, cp.block_hashes, cp.nblocks * sizeof(uint64_t)) == 0);
	/* Every truncation of the payload is refused. */
	for (i = 0; i < blen; i++) {
		sbt_checkpoint t;
		TST_CHECK(sbt_checkpoint_decode(buf, i, &t) == SBT_ERR_CORRUPT);
	}
	sbt_checkpoint_free(&back);
	free(buf);

	/* A changed byte changes the hash of its block and no other. */
	if (len) {
		for (pos = 0; pos < len; pos += len / 5 + 1) {
			size_t diff = 0, where = SIZE_MAX;
			data[pos] ^= 0x40;
			TST_REQUIRE(sbt_checkpoint_compute(data, len, &changed) == SBT_OK);
			TST_CHECK(changed.hash != cp.hash);
			for (i = 0; i < cp.nblocks; i++) {
				if (changed.block_hashes[i] != cp.block_hashes[i]) {
					diff++;
					where = i;
				}
			}
			TST_CHECK_EQ_U64(diff, 1);
			TST_CHECK_EQ_U64(where, pos / cp.block_size);
			sbt_checkpoint_free(&changed);
			data[pos] ^= 0x40;
		}
	}
	sbt_checkpoint_free(&cp);
	free(data);
}

static void cp_bad_payloads(void)
{
	uint8_t p[64], *q;
	sbt_checkpoint cp, good;
	size_t n;
	uint8_t *buf;
	/* Block size not a power of two. */
	q = p;
	q += sbt_varint_put(q, 1);
	q += sbt_varint_put(q, 2);
	q += sbt_varint_put(q, 0);
	q += sbt_varint_put(q, 100);
	q += sbt_varint_put(q, 48);
	memset(q, 0, 8);
	q += 8;
	q += sbt_varint_put(q, 3);
	memset(q, 0, 24);
	q += 24;
	TST_CHECK(sbt_checkpoint_decode(p, (size_t)(q - p), &cp) == SBT_ERR_CORRUPT);
	/* Block count that does not match the length. */
	TST_REQUIRE(sbt_checkpoint_compute("abcdefgh", 8, &good) == SBT_OK);
	TST_REQUIRE(sbt_checkpoint_encode(&good, &buf, &n) == SBT_OK);
	good.nblocks = 2;
	TST_CHECK(sbt_checkpoint_encode(&good, &q, &n) == SBT_ERR_ARG);
	good.nblocks = 1;
	buf[n - 9] = 2; /* the nblocks varint */
	TST_CHECK(sbt_checkpoint_decode(buf, n, &cp) == SBT_ERR_CORRUPT);
	free(buf);
	sbt_checkpoint_free(&good);
	TST_CHECK(sbt_checkpoint_decode(NULL, 0, &cp) == SBT_ERR_CORRUPT);
}

int main(void)
{
	static const uint64_t lens[] = {0, 1, 63, 64, 65, 1000, 64 * 4096, 64 * 4096 + 1,
	                                3 * 1024 * 1024 + 5};
	size_t i;
	cp_block_sizes();
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		cp_compute_and_codec(lens[i]);
	cp_bad_payloads();
	return tst_done();
}
