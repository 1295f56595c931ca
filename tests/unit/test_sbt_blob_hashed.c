/*
 * test_sbt_blob_hashed - a blob stored from its page hashes and only the
 * pages the writer lacks (sbt_writer_put_blob_hashed, what the capture
 * runtime's cap_blob_pages ends in) makes the same file content as the
 * same bytes through sbt_writer_put_blob, reads back whole, and a page
 * claimed stored that is not is refused without harming the writer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define BH_PAGE (64u << 10)
#define BH_PAGES 17u
#define BH_LEN (16u * BH_PAGE + 1000u) /* the last page short */

/* Hashes of every page of p, and present[i] = 1 for the pages the writer
 * does not hold yet: not in `known` (the caller's record of what it sent)
 * and not earlier in this blob; those pages' bytes go to out. */
static size_t bh_prepare(const uint8_t *p, uint64_t *hashes, uint8_t *present, uint8_t *out,
                         uint64_t *known, size_t *nknown)
{
	size_t fresh = 0;
	for (size_t i = 0; i < BH_PAGES; i++) {
		size_t n = i + 1 < BH_PAGES ? BH_PAGE : BH_LEN - i * BH_PAGE;
		XXH128_hash_t h = XXH3_128bits(p + i * BH_PAGE, n);
		size_t k;
		hashes[2 * i] = h.low64;
		hashes[2 * i + 1] = h.high64;
		for (k = 0; k < *nknown; k++)
			if (known[2 * k] == h.low64 && known[2 * k + 1] == h.high64)
				break;
		present[i] = k == *nknown;
		if (present[i]) {
			known[2 * *nknown] = h.low64;
			known[2 * *nknown + 1] = h.high64;
			(*nknown)++;
			memcpy(out + fresh, p + i * BH_PAGE, n);
			fresh += n;
		}
	}
	return fresh;
}

static void bh_check_blob(sbt_reader *r, uint64_t id, const uint8_t *want)
{
	void *data = NULL;
	size_t got = 0;
	TST_CHECK(sbt_reader_blob_get(r, id, &data, &got) == SBT_OK);
	TST_CHECK_EQ_U64(got, BH_LEN);
	TST_CHECK(data && memcmp(data, want, BH_LEN) == 0);
	free(data);
}

int main(void)
{
	const char *plain = tst_path("plain.sbt");
	const char *hashed = tst_path("hashed.sbt");
	uint8_t *a = malloc(BH_LEN), *b = malloc(BH_LEN), *out = malloc(BH_LEN);
	uint64_t hashes[2 * BH_PAGES], known[4 * BH_PAGES], x = 88172645463325252ull, id;
	uint8_t present[BH_PAGES];
	size_t nknown = 0, fresh;
	sbt_writer *w;
	sbt_writer_stats s_plain, s_hashed;
	sbt_reader *r;
	sbt_trace_info info;

	TST_REQUIRE(a && b && out);
	for (size_t i = 0; i < BH_LEN; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a[i] = (uint8_t)x;
	}
	/* Pages 3 and 5 repeat page 0; b changes one byte of page 9. */
	memcpy(a + 3 * BH_PAGE, a, BH_PAGE);
	memcpy(a + 5 * BH_PAGE, a, BH_PAGE);
	memcpy(b, a, BH_LEN);
	b[9 * BH_PAGE + 7] ^= 0x5a;

	TST_REQUIRE(sbt_writer_open(plain, NULL, &w) == SBT_OK);
	TST_CHECK(sbt_writer_put_blob(w, 1, a, BH_LEN, NULL) == SBT_OK);
	TST_CHECK(sbt_writer_put_blob(w, 2, b, BH_LEN, NULL) == SBT_OK);
	TST_REQUIRE(sbt_writer_flush(w) == SBT_OK);
	sbt_writer_get_stats(w, &s_plain);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);

	TST_REQUIRE(sbt_writer_open(hashed, NULL, &w) == SBT_OK);
	TST_CHECK_EQ_U64(sbt_writer_page_bytes(w), BH_PAGE);
	fresh = bh_prepare(a, hashes, present, out, known, &nknown);
	TST_CHECK_EQ_U64(fresh, BH_LEN - 2 * BH_PAGE);
	TST_CHECK(sbt_writer_put_blob_hashed(w, 1, BH_LEN, BH_PAGE, hashes, present, out) == SBT_OK);
	fresh = bh_prepare(b, hashes, present, out, known, &nknown);
	TST_CHECK_EQ_U64(fresh, BH_PAGE);
	TST_CHECK(sbt_writer_put_blob_hashed(w, 2, BH_LEN, BH_PAGE, hashes, present, out) == SBT_OK);
	TST_REQUIRE(sbt_writer_flush(w) == SBT_OK);
	sbt_writer_get_stats(w, &s_hashed);

	/* The same content: the same bytes in the file after the header. */
	TST_CHECK_EQ_U64(s_hashed.file_bytes, s_plain.file_bytes);
	TST_CHECK_EQ_U64(s_hashed.blob_bytes_unique, s_plain.blob_bytes_unique);
	TST_CHECK_EQ_U64(s_hashed.blob_bytes_logical, s_plain.blob_bytes_logical);

	/* A page claimed stored that is not: refused, and the writer goes on. */
	memset(present, 0, sizeof(present));
	hashes[0] ^= 1;
	TST_CHECK(sbt_writer_put_blob_hashed(w, 3, BH_LEN, BH_PAGE, hashes, present, out) == SBT_ERR_ARG);
	TST_CHECK(sbt_writer_put_blob_hashed(w, 4, BH_LEN, BH_PAGE / 2, hashes, present, out) == SBT_ERR_ARG);
	id = 0;
	TST_CHECK(sbt_writer_put_blob(w, 5, a, BH_LEN, &id) == SBT_OK);
	TST_CHECK_EQ_U64(id, 5);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);

	TST_REQUIRE(sbt_reader_open(hashed, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.blob_count, 3);
	TST_CHECK_EQ_U64(info.blob_bytes_logical, 3ull * BH_LEN);
	TST_CHECK_EQ_U64(info.blob_bytes_unique, (uint64_t)BH_LEN - BH_PAGE);
	bh_check_blob(r, 1, a);
	bh_check_blob(r, 2, b);
	bh_check_blob(r, 5, a);
	sbt_reader_close(r);
	free(a);
	free(b);
	free(out);
	return tst_done();
}
