/*
 * test_sbt_blob_probe - the writer's LZ4 probe (serializer/sbt_writer.c,
 * sbt_w_compressible): once a chunk of a type was stored uncompressed, the
 * next large one is compressed only if four 4 KiB slices of it shrink.
 * Every blob reads back byte for byte whichever way its chunks went, a
 * random blob costs at least its size, and compressible data after random
 * data is still compressed: wholly, and where only the end of a chunk
 * turns compressible (the probe's last slice ends with the chunk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define BP_LEN (2u << 20)
#define BP_PAGE (64u << 10)

static uint64_t bp_x = 88172645463325252ull;

static void bp_random(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		bp_x ^= bp_x << 13;
		bp_x ^= bp_x >> 7;
		bp_x ^= bp_x << 17;
		memcpy(p + i, &bp_x, 8);
	}
}

/* Compressible, and no two 64 KiB pages alike (the blob store would keep
 * a repeated page once and hide whether it was compressed): each page a
 * 16-byte pattern naming the page, repeated. */
static void bp_pattern(uint8_t *p, size_t len, uint32_t tag)
{
	for (size_t i = 0; i < len; i += 16) {
		uint32_t w[4] = {tag, (uint32_t)(i / BP_PAGE), 0x5a5a5a5au, ~tag};
		memcpy(p + i, w, 16);
	}
}

static uint64_t bp_size(sbt_writer *w)
{
	sbt_writer_stats st;
	TST_REQUIRE(sbt_writer_flush(w) == SBT_OK);
	sbt_writer_get_stats(w, &st);
	return st.file_bytes;
}

static void bp_check(sbt_reader *r, uint64_t id, const uint8_t *want, size_t len)
{
	void *data = NULL;
	size_t got = 0;
	TST_CHECK(sbt_reader_blob_get(r, id, &data, &got) == SBT_OK);
	TST_CHECK_EQ_U64(got, len);
	TST_CHECK(data && memcmp(data, want, len) == 0);
	free(data);
}

int main(void)
{
	const char *path = tst_path("probe.sbt");
	uint8_t *rnd = malloc(BP_LEN), *cmp = malloc(BP_LEN), *rnd2 = malloc(BP_LEN),
		*tail = malloc(BP_LEN);
	uint64_t s0, s1, s2, s3, s4, id[4];
	sbt_writer *w;
	sbt_reader *r;

	TST_REQUIRE(rnd && cmp && rnd2 && tail);
	bp_random(rnd, BP_LEN);
	bp_pattern(cmp, BP_LEN, 1);
	bp_random(rnd2, BP_LEN);
	/* random, but the last 64 KiB of every 256 KiB compressible: only the
	 * probe's last slice of each chunk can see it */
	bp_random(tail, BP_LEN);
	for (size_t c = 0; c < BP_LEN; c += 256u << 10)
		bp_pattern(tail + c + (192u << 10), BP_PAGE, 2 + (uint32_t)(c >> 18));

	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	s0 = bp_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, rnd, BP_LEN, &id[0]) == SBT_OK);
	s1 = bp_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, cmp, BP_LEN, &id[1]) == SBT_OK);
	s2 = bp_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, rnd2, BP_LEN, &id[2]) == SBT_OK);
	s3 = bp_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, tail, BP_LEN, &id[3]) == SBT_OK);
	s4 = bp_size(w);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);

	/* random: stored whole (no chunk shrank) */
	TST_CHECK(s1 - s0 >= BP_LEN);
	/* compressible after random: compressed, to well under a tenth */
	TST_CHECK(s2 - s1 < BP_LEN / 10);
	TST_CHECK(s3 - s2 >= BP_LEN);
	/* a quarter of each chunk compressible, at its end: compressed, so
	 * under seven eighths of the size */
	TST_CHECK(s4 - s3 < BP_LEN / 8 * 7);

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	bp_check(r, id[0], rnd, BP_LEN);
	bp_check(r, id[1], cmp, BP_LEN);
	bp_check(r, id[2], rnd2, BP_LEN);
	bp_check(r, id[3], tail, BP_LEN);
	sbt_reader_close(r);
	free(rnd);
	free(cmp);
	free(rnd2);
	free(tail);
	return tst_done();
}
