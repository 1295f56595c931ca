/*
 * TRACESMITH_MEMORY_MB=1 while 4 threads attach 24 MiB of blobs (and one
 * 3 MiB blob, bigger than the bound on its own): producers
 * must wait for the writer (stalls counted, reported in the trace's meta)
 * and nothing may be lost - every blob is read back byte for byte, and
 * every record that names one is there.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cap.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define MB_THREADS 4
#define MB_BLOBS 24
#define MB_BLOB_BYTES (256u * 1024u)
#define MB_TYPE 64

typedef struct mb_ref {
	uint32_t thread, index;
	uint64_t blob_id;
} mb_ref;

/* Deterministic content for blob (thread, index): a per-thread random
 * pattern with every 4 KiB stamped, so no two pages are alike. */
static void mb_fill(uint8_t *buf, uint32_t thread, uint32_t index)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (thread + 1);
	for (size_t i = 0; i < MB_BLOB_BYTES; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	for (size_t off = 0; off < MB_BLOB_BYTES; off += 4096) {
		uint32_t stamp[3] = {thread, index, (uint32_t)off};
		memcpy(buf + off, stamp, sizeof(stamp));
	}
}

/* One blob three times the bound, attached while the others record: it
 * must get in (not starve) and come back whole. */
#define MB_BIG_BYTES (3u << 20)
#define MB_BIG_TYPE 65

static uint8_t mb_big_byte(size_t i)
{
	return (uint8_t)((i * 2654435761u) >> 13);
}

static void mb_big(void)
{
	uint8_t *big = malloc(MB_BIG_BYTES);
	uint64_t id;
	TST_REQUIRE(big != NULL);
	for (size_t i = 0; i < MB_BIG_BYTES; i++)
		big[i] = mb_big_byte(i);
	id = cap_blob(big, MB_BIG_BYTES);
	TST_CHECK(id != 0);
	TST_CHECK(cap_record(MB_BIG_TYPE, 0, &id, sizeof(id)) != 0);
	free(big);
}

static void *mb_thread(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	uint8_t *buf = malloc(MB_BLOB_BYTES);
	TST_REQUIRE(buf != NULL);
	for (uint32_t i = 0; i < MB_BLOBS; i++) {
		mb_ref ref = {t, i, 0};
		if (t == 0 && i == MB_BLOBS / 2)
			mb_big();
		mb_fill(buf, t, i);
		ref.blob_id = cap_blob(buf, MB_BLOB_BYTES);
		TST_CHECK(ref.blob_id != 0);
		TST_CHECK(cap_record(MB_TYPE, CAP_REC_WORK, &ref, sizeof(ref)) != 0);
	}
	free(buf);
	return NULL;
}

int main(void)
{
	pthread_t th[MB_THREADS];
	int seen[MB_THREADS][MB_BLOBS];
	uint8_t *want = malloc(MB_BLOB_BYTES);
	const char *path = tst_path("mb.sbt");
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_status st;
	cap_stats stats;
	const char *stalls;
	uint64_t records = 0, bad = 0, big_seen = 0;

	TST_REQUIRE(want != NULL);
	memset(seen, 0, sizeof(seen));
	setenv("TRACESMITH_OUTPUT", path, 1);
	setenv("TRACESMITH_MEMORY_MB", "1", 1);
	setenv("TRACESMITH_LOG", "error", 1); /* the exit report is a warning */
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	for (int i = 0; i < MB_THREADS; i++)
		TST_REQUIRE(pthread_create(&th[i], NULL, mb_thread, (void *)(uintptr_t)i) == 0);
	for (int i = 0; i < MB_THREADS; i++)
		pthread_join(th[i], NULL);
	cap_shutdown();
	cap_get_stats(&stats);
	TST_CHECK(stats.stalls > 0);
	TST_CHECK(stats.stall_ns > 0);
	TST_CHECK_EQ_U64(stats.blobs, MB_THREADS * MB_BLOBS + 1);
	TST_CHECK_EQ_U64(stats.blob_bytes,
	                 (uint64_t)MB_THREADS * MB_BLOBS * MB_BLOB_BYTES + MB_BIG_BYTES);

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	stalls = sbt_reader_meta(r, "capture.stalls");
	TST_REQUIRE(stalls != NULL);
	TST_CHECK(strtoull(stalls, NULL, 10) == stats.stalls);
	TST_CHECK(sbt_reader_meta(r, "capture.stall_ns") != NULL);
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		mb_ref ref;
		void *data = NULL;
		size_t len = 0;
		records++;
		if (rec.type == MB_BIG_TYPE && rec.payload_len == sizeof(uint64_t)) {
			uint64_t id;
			size_t i = 0;
			memcpy(&id, rec.payload, sizeof(id));
			if (sbt_reader_blob_get(r, id, &data, &len) == SBT_OK && len == MB_BIG_BYTES)
				for (i = 0; i < MB_BIG_BYTES && ((uint8_t *)data)[i] == mb_big_byte(i); i++)
					;
			TST_CHECK(i == MB_BIG_BYTES);
			big_seen++;
			free(data);
			continue;
		}
		if (rec.payload_len != sizeof(ref)) {
			bad++;
			continue;
		}
		memcpy(&ref, rec.payload, sizeof(ref));
		if (ref.thread >= MB_THREADS || ref.index >= MB_BLOBS) {
			bad++;
			continue;
		}
		seen[ref.thread][ref.index]++;
		if (sbt_reader_blob_get(r, ref.blob_id, &data, &len) != SBT_OK ||
		    len != MB_BLOB_BYTES) {
			fprintf(stderr, "blob %llu (thread %u, #%u) missing or wrong size\n",
			        (unsigned long long)ref.blob_id, ref.thread, ref.index);
			bad++;
			free(data);
			continue;
		}
		mb_fill(want, ref.thread, ref.index);
		if (memcmp(data, want, MB_BLOB_BYTES) != 0) {
			fprintf(stderr, "blob %llu (thread %u, #%u) differs\n",
			        (unsigned long long)ref.blob_id, ref.thread, ref.index);
			bad++;
		}
		free(data);
	}
	TST_CHECK(st == SBT_END);
	TST_CHECK_EQ_U64(records, MB_THREADS * MB_BLOBS + 1);
	TST_CHECK_EQ_U64(big_seen, 1);
	TST_CHECK_EQ_U64(bad, 0);
	for (int t = 0; t < MB_THREADS; t++)
		for (int i = 0; i < MB_BLOBS; i++)
			TST_CHECK(seen[t][i] == 1);
	sbt_reader_close(r);
	free(want);
	return tst_done();
}
