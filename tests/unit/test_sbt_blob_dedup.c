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
 * And keyed BLOBS chunks (SBT_CHUNK_FLAG_KEYED: the checksum of a chunk
 * stored uncompressed leaves its pages' data to their own hashes): the
 * file says so in its required features, a byte changed in a page's data,
 * in a page's hash or in a manifest is found and named, a file of
 * compressible blobs only keeps the features it had, and an output that
 * cannot seek (a pipe) or appends gets chunks summed whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The offset of the first BLOBS chunk stored uncompressed, and whether
 * its header says keyed; 0 when there is none. */
static uint64_t bd_raw_blobs(const char *path, int *keyed)
{
	sbt_reader *r;
	sbt_trace_info info;
	uint64_t at = 0;
	size_t len;
	unsigned char *file = tst_read_file(path, &len);
	TST_REQUIRE(file && sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	for (size_t i = 0; i < info.chunk_count && !at; i++) {
		sbt_chunk_info ci;
		TST_REQUIRE(sbt_reader_chunk_at(r, i, &ci) == SBT_OK);
		if (ci.type == 6 && ci.codec == 0 && ci.raw_size > 4096) {
			at = ci.offset;
			*keyed = (file[at + 11] & 1) != 0; /* the header's flags */
		}
	}
	sbt_reader_close(r);
	free(file);
	return at;
}

/* A copy of path with byte `at` flipped, read: the blob fails with the
 * message naming `why`. */
static void bd_keyed_damage(const char *path, uint64_t at, uint64_t id, const char *why)
{
	const char *bad = tst_path("keyed_bad.sbt");
	sbt_reader *r;
	void *data = NULL;
	size_t len, got = 0;
	unsigned char *file = tst_read_file(path, &len);
	TST_REQUIRE(file && at < len);
	file[at] ^= 0x10;
	TST_REQUIRE(tst_write_file(bad, file, len) == 0);
	free(file);
	TST_REQUIRE(sbt_reader_open(bad, NULL, &r) == SBT_OK);
	TST_CHECK(sbt_reader_blob_get(r, id, &data, &got) == SBT_ERR_CORRUPT);
	TST_CHECK(strstr(sbt_reader_message(r), why) != NULL);
	if (!strstr(sbt_reader_message(r), why))
		printf("keyed damage at %llu: %s (wanted: %s)\n", (unsigned long long)at,
		       sbt_reader_message(r), why);
	free(data);
	sbt_reader_close(r);
}

/* path holds blob id with want's len bytes, read back whole, and the
 * required features it should. */
static void bd_check_file(const char *path, uint64_t features, uint64_t id, const uint8_t *want,
                          size_t len)
{
	sbt_reader *r;
	sbt_trace_info info;
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.header.features, features);
	bd_check_blob(r, id, want, len);
	sbt_reader_close(r);
}

static void bd_keyed(void)
{
	const char *path = tst_path("keyed.sbt"), *piped = tst_path("keyed_pipe.sbt");
	uint8_t *rnd = malloc(BD_PROBE_LEN), *pat = malloc(BD_PROBE_LEN);
	uint64_t id, at, id_pat;
	sbt_writer *w;
	sbt_reader *r;
	sbt_trace_info info;
	int keyed = 0, fds[2], status;
	pid_t child;

	TST_REQUIRE(rnd && pat);
	bd_random(rnd, BD_PROBE_LEN);
	bd_pattern(pat, BD_PROBE_LEN, 9);

	/* random pages: stored uncompressed, keyed; read back whole */
	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	TST_CHECK(sbt_writer_put_blob(w, 0, rnd, BD_PROBE_LEN, &id) == SBT_OK);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	bd_check_file(path, SBT_FEATURE_KEYED_BLOBS, id, rnd, BD_PROBE_LEN);
	at = bd_raw_blobs(path, &keyed);
	TST_REQUIRE(at != 0);
	TST_CHECK(keyed);
	/* the chunk's first entry is a page: kind, a 3-byte length, its hash,
	 * then its data; the last entry of the file's last BLOBS chunk is the
	 * manifest, whose hashes end 16 bytes before the chunk */
	bd_keyed_damage(path, at + 64 + 4 + 16 + 1000, id, "blob page does not match its hash");
	bd_keyed_damage(path, at + 64 + 4 + 3, id, "blob page does not match its hash");
	bd_keyed_damage(path, at + 64 + 2, id, "corrupt chunk");
	{
		sbt_chunk_info ci;
		size_t i;
		TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
		sbt_reader_get_info(r, &info);
		for (i = info.chunk_count; i-- > 0;) {
			TST_REQUIRE(sbt_reader_chunk_at(r, i, &ci) == SBT_OK);
			if (ci.type == 6)
				break;
		}
		sbt_reader_close(r);
		TST_CHECK(ci.type == 6 && ci.codec == 0);
		bd_keyed_damage(path, ci.offset + 64 + ci.stored_size - 5, id,
		                "payload checksum mismatch");
	}

	/* compressible pages only: no keyed chunk, no required feature */
	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	TST_CHECK(sbt_writer_put_blob(w, 0, pat, BD_PROBE_LEN, &id_pat) == SBT_OK);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	bd_check_file(path, 0, id_pat, pat, BD_PROBE_LEN);

	/* through a pipe: the header cannot be rewritten, so the random
	 * pages' chunks are summed whole and the file needs no feature */
	TST_REQUIRE(pipe(fds) == 0);
	child = fork();
	TST_REQUIRE(child >= 0);
	if (child == 0) {
		FILE *f = fopen(piped, "wb");
		char buf[65536];
		ssize_t n;
		close(fds[1]);
		while (f && (n = read(fds[0], buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)n, f);
		_exit(!f || fclose(f) != 0);
	}
	close(fds[0]);
	TST_REQUIRE(sbt_writer_open_fd(fds[1], NULL, &w) == SBT_OK);
	TST_CHECK(sbt_writer_put_blob(w, 0, rnd, BD_PROBE_LEN, &id) == SBT_OK);
	TST_CHECK(sbt_writer_close(w) == SBT_OK);
	TST_REQUIRE(waitpid(child, &status, 0) == child);
	TST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	bd_check_file(piped, 0, id, rnd, BD_PROBE_LEN);
	keyed = 1;
	TST_CHECK(bd_raw_blobs(piped, &keyed) != 0);
	TST_CHECK(!keyed);

	/* a descriptor opened to append: pwrite would append, so no keyed
	 * chunks either */
	fds[1] = open(piped, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	TST_REQUIRE(fds[1] >= 0);
	TST_REQUIRE(sbt_writer_open_fd(fds[1], NULL, &w) == SBT_OK);
	TST_CHECK(sbt_writer_put_blob(w, 0, rnd, BD_PROBE_LEN, &id) == SBT_OK);
	TST_CHECK(sbt_writer_close(w) == SBT_OK);
	bd_check_file(piped, 0, id, rnd, BD_PROBE_LEN);
	free(rnd);
	free(pat);
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
	bd_keyed();
	return tst_done();
}
