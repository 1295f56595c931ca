/*
 * test_sbt_blob_dedup - the blob store keeps each page once per file: a
 * second snapshot of the same 8 MiB costs its manifest, a snapshot with a
 * few changed pages costs those pages, and every snapshot reads back whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define BD_LEN (8u << 20)
#define BD_PAGE (64u << 10)

static uint64_t bd_flushed_size(sbt_writer *w)
{
	sbt_writer_stats st;
	TST_REQUIRE(sbt_writer_flush(w) == SBT_OK);
	sbt_writer_get_stats(w, &st);
	return st.file_bytes;
}

static void bd_check_blob(sbt_reader *r, uint64_t id, const uint8_t *want, size_t len)
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
	const char *path = tst_path("dedup.sbt");
	uint8_t *a = malloc(BD_LEN), *b = malloc(BD_LEN);
	uint64_t s0, s1, s2, s3, x = 88172645463325252ull;
	uint64_t id1, id2, id3;
	sbt_writer *w;
	sbt_reader *r;
	sbt_trace_info info;
	size_t i;
	static const size_t changed[] = {0, 77 * BD_PAGE + 5, BD_LEN - 1};

	TST_REQUIRE(a && b);
	for (i = 0; i < BD_LEN; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(a + i, &x, 8);
	}
	memcpy(b, a, BD_LEN);
	for (i = 0; i < sizeof(changed) / sizeof(changed[0]); i++)
		b[changed[i]] ^= 0xff;

	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	s0 = bd_flushed_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, a, BD_LEN, &id1) == SBT_OK);
	s1 = bd_flushed_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, a, BD_LEN, &id2) == SBT_OK);
	s2 = bd_flushed_size(w);
	TST_CHECK(sbt_writer_put_blob(w, 0, b, BD_LEN, &id3) == SBT_OK);
	s3 = bd_flushed_size(w);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	printf("first %llu bytes, same again +%llu, 3 pages changed +%llu\n",
	       (unsigned long long)(s1 - s0), (unsigned long long)(s2 - s1),
	       (unsigned long long)(s3 - s2));

	/* Random data does not compress: the first copy costs about its size. */
	TST_CHECK(s1 - s0 >= BD_LEN);
	/* The same bytes again: under 1% of them. */
	TST_CHECK((s2 - s1) * 100 < BD_LEN);
	/* Three changed pages: those pages plus the manifest, not a fourth. */
	TST_CHECK(s3 - s2 >= 3 * BD_PAGE);
	TST_CHECK(s3 - s2 < 3 * BD_PAGE + (s2 - s1) + 1024);

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.blob_count, 3);
	TST_CHECK_EQ_U64(info.blob_bytes_logical, 3ull * BD_LEN);
	TST_CHECK_EQ_U64(info.blob_bytes_unique, (uint64_t)BD_LEN + 3 * BD_PAGE);
	bd_check_blob(r, id1, a, BD_LEN);
	bd_check_blob(r, id2, a, BD_LEN);
	bd_check_blob(r, id3, b, BD_LEN);
	sbt_reader_close(r);

	/* The same answers without the index. */
	{
		sbt_reader_options ro = {0, 1, 1};
		TST_REQUIRE(sbt_reader_open(path, &ro, &r) == SBT_OK);
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.has_index, 0);
		TST_CHECK_EQ_U64(info.blob_bytes_unique, (uint64_t)BD_LEN + 3 * BD_PAGE);
		bd_check_blob(r, id3, b, BD_LEN);
		sbt_reader_close(r);
	}
	free(a);
	free(b);
	return tst_done();
}
