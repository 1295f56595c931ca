/*
 * test_sbt_blob_dedup - the blob store keeps each page once per file: a
 * second snapshot of the same 8 MiB costs its manifest, a snapshot with a
 * few changed pages costs those pages, and every snapshot reads back whole.
 * And the writer's LZ4 probe (serializer/sbt_writer.c, sbt_w_compressible:
 * once a chunk of a type was stored uncompressed, the next large one is
 * compressed only if four 4 KiB slices of it, each ending at a quarter of
 * it, shrink): random, compressible, random, and random with each 256 KiB
 * stretch's last quarter compressible, written in turn, each read back
 * byte for byte; random costs at least its size, and compressible data
 * after random data is still compressed, wholly or at a chunk's end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define BD_LEN (8u << 20)
#define BD_PAGE (64u << 10)
#define BD_PROBE_LEN (2u << 20)

static uint64_t bd_x = 88172645463325252ull;

static void bd_random(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i += 8) {
		bd_x ^= bd_x << 13;
		bd_x ^= bd_x >> 7;
		bd_x ^= bd_x << 17;
		memcpy(p + i, &bd_x, 8);
	}
}

/* Compressible, and no two 64 KiB pages alike (a repeated page would be
 * kept once and hide whether it was compressed): each page a 16-byte
 * pattern naming the page, repeated. */
static void bd_pattern(uint8_t *p, size_t len, uint32_t tag)
{
	for (size_t i = 0; i < len; i += 16) {
		uint32_t v[4] = {tag, (uint32_t)(i / BD_PAGE), 0x5a5a5a5au, ~tag};
		memcpy(p + i, v, 16);
	}
}

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

static void bd_probe(void)
{
	const char *path = tst_path("probe.sbt");
	uint8_t *blob[4];
	uint64_t size[5], id[4];
	sbt_writer *w;
	sbt_reader *r;

	for (int k = 0; k < 4; k++)
		TST_REQUIRE((blob[k] = malloc(BD_PROBE_LEN)) != NULL);
	bd_random(blob[0], BD_PROBE_LEN);
	bd_pattern(blob[1], BD_PROBE_LEN, 1);
	bd_random(blob[2], BD_PROBE_LEN);
	bd_random(blob[3], BD_PROBE_LEN);
	for (size_t c = 0; c < BD_PROBE_LEN; c += 256u << 10)
		bd_pattern(blob[3] + c + (192u << 10), BD_PAGE, 2 + (uint32_t)(c >> 18));

	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	size[0] = bd_flushed_size(w);
	for (int k = 0; k < 4; k++) {
		TST_CHECK(sbt_writer_put_blob(w, 0, blob[k], BD_PROBE_LEN, &id[k]) == SBT_OK);
		size[k + 1] = bd_flushed_size(w);
	}
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	printf("probe: random +%llu, compressible +%llu, random +%llu, a quarter compressible +%llu\n",
	       (unsigned long long)(size[1] - size[0]), (unsigned long long)(size[2] - size[1]),
	       (unsigned long long)(size[3] - size[2]), (unsigned long long)(size[4] - size[3]));
	TST_CHECK(size[1] - size[0] >= BD_PROBE_LEN);
	TST_CHECK(size[2] - size[1] < BD_PROBE_LEN / 10);
	TST_CHECK(size[3] - size[2] >= BD_PROBE_LEN);
	TST_CHECK(size[4] - size[3] < BD_PROBE_LEN / 8 * 7);

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	for (int k = 0; k < 4; k++)
		bd_check_blob(r, id[k], blob[k], BD_PROBE_LEN);
	sbt_reader_close(r);
	for (int k = 0; k < 4; k++)
		free(blob[k]);
}

int main(void)
{
	const char *path = tst_path("dedup.sbt");
	uint8_t *a = malloc(BD_LEN), *b = malloc(BD_LEN);
	uint64_t s0, s1, s2, s3;
	uint64_t id1, id2, id3;
	sbt_writer *w;
	sbt_reader *r;
	sbt_trace_info info;
	size_t i;
	static const size_t changed[] = {0, 77 * BD_PAGE + 5, BD_LEN - 1};

	TST_REQUIRE(a && b);
	bd_random(a, BD_LEN);
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
	bd_probe();
	return tst_done();
}
