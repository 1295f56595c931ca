/*
 * test_cap_blob_keys - the writer thread keys a cap_blob's pages by the
 * XXH3-128 of their bytes, whichever implementation computes it
 * (capture/cap_writer.c hashes through libxxhash's dispatcher, AVX2 where
 * the CPU has it; cap_blob_pages through the same one, on the caller's
 * thread and the page-hash pool's, capture/cap_pages.c): a page repeated inside a blob is stored once, a page that
 * cap_blob_pages sends again after cap_blob stored it is not stored a
 * second time (the two keys are equal), and both blobs read back whole.
 * A blob whose bytes the caller writes into the room cap_blob_begin hands
 * out (gathered from two places, as the Vulkan layer gathers the runs of
 * a publish) is stored and keyed the same way: its pages, already stored,
 * add nothing, and it reads back whole; nothing else may be recorded
 * between its begin and its commit.  Given in pieces, each piece is paged
 * from its own start: a stored page at a piece's start is found again.
 * sbt_writer_put_blob_split, which stores such blobs, refuses page
 * lengths out of range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "capture/cap.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define BK_PAGE (64u << 10) /* the writer's default blob page */
#define BK_LEN (3u * BK_PAGE + 1000u)

static void bk_fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static void bk_check_blob(sbt_reader *r, uint64_t id, const uint8_t *want, size_t len)
{
	void *data = NULL;
	size_t got = 0;
	TST_CHECK(sbt_reader_blob_get(r, id, &data, &got) == SBT_OK);
	TST_CHECK_EQ_U64(got, len);
	TST_CHECK(data && got == len && memcmp(data, want, len) == 0);
	free(data);
}

int main(void)
{
	const char *path = tst_path("keys.sbt");
	uint8_t *first = malloc(BK_LEN), *second = malloc(2u * BK_PAGE);
	uint64_t id_first, id_second, id_third, id_fourth, *pieces = NULL;
	uint8_t *room;
	cap_rec *rec = NULL;
	sbt_reader *r = NULL;
	sbt_trace_info info;
	TST_REQUIRE(first && second);
	setenv("TRACESMITH_OUTPUT", path, 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");

	/* first: pages A B A and a short tail C; second: B and a new page D */
	bk_fill(first, BK_PAGE, 1);
	bk_fill(first + BK_PAGE, BK_PAGE, 2);
	memcpy(first + 2u * BK_PAGE, first, BK_PAGE);
	bk_fill(first + 3u * BK_PAGE, 1000, 3);
	memcpy(second, first + BK_PAGE, BK_PAGE);
	bk_fill(second + BK_PAGE, BK_PAGE, 4);

	TST_REQUIRE(cap_active() == 1);
	id_first = cap_blob(first, BK_LEN);
	TST_CHECK(id_first != 0);
	/* stored in that order: the writer drains one thread's entries in turn */
	id_second = cap_blob_pages(second, 2u * BK_PAGE);
	TST_CHECK(id_second != 0);
	/* third, gathered: D then A */
	room = cap_blob_begin(3u * BK_PAGE, 0, &rec); /* more room than used */
	TST_REQUIRE(room != NULL && rec != NULL);
	TST_CHECK(cap_blob(first, 16) == 0); /* refused: a blob is open */
	memcpy(room, second + BK_PAGE, BK_PAGE);
	memcpy(room + BK_PAGE, first, BK_PAGE);
	id_third = cap_blob_commit(rec, 2u * BK_PAGE, 0);
	TST_CHECK(id_third != 0 && id_third != id_second);
	/* given back unused: nothing stored */
	room = cap_blob_begin(BK_PAGE, 4, &rec);
	TST_REQUIRE(room != NULL);
	cap_blob_cancel(rec);
	/* fourth, in pieces: C (1000 bytes), then A: A starts a page of its
	 * own, so it is found stored; in pages of the writer's size it would
	 * straddle two pages no one stored */
	room = cap_blob_begin(2u * BK_PAGE, 3, &rec);
	TST_REQUIRE(room != NULL);
	memcpy(room, first + 3u * BK_PAGE, 1000);
	memcpy(room + 1000, first, BK_PAGE);
	pieces = cap_blob_pieces(rec, 1000u + BK_PAGE);
	TST_REQUIRE(pieces != NULL);
	pieces[0] = 1000;
	pieces[1] = BK_PAGE;
	id_fourth = cap_blob_commit(rec, 1000u + BK_PAGE, 2);
	TST_CHECK(id_fourth != 0 && id_fourth != id_third);
	cap_shutdown();

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.blob_bytes_logical, BK_LEN + 5u * BK_PAGE + 1000u);
	/* A, B, C and D once each: B's second copy found by its key, D's and
	 * A's in the gathered blob too, C's and A's in the one in pieces */
	TST_CHECK_EQ_U64(info.blob_bytes_unique, 3u * BK_PAGE + 1000u);
	bk_check_blob(r, id_first, first, BK_LEN);
	bk_check_blob(r, id_second, second, 2u * BK_PAGE);
	memcpy(second, second + BK_PAGE, BK_PAGE);
	memcpy(second + BK_PAGE, first, BK_PAGE);
	bk_check_blob(r, id_third, second, 2u * BK_PAGE);
	memcpy(second, first + 3u * BK_PAGE, 1000);
	memcpy(second + 1000, first, BK_PAGE);
	bk_check_blob(r, id_fourth, second, 1000u + BK_PAGE);
	sbt_reader_close(r);

	/* sbt_writer_put_blob_split refuses a page of 0 bytes, one longer
	 * than the writer's page, and a missing length list; the writer stays
	 * usable and stores the blob given right */
	{
		sbt_writer *w = NULL;
		uint32_t lens[2] = {1000, 0};
		uint64_t hashes[4] = {1, 2, 3, 4};
		TST_REQUIRE(sbt_writer_open(tst_path("split.sbt"), NULL, &w) == SBT_OK);
		TST_CHECK(sbt_writer_put_blob_split(w, 1, 2, lens, hashes, first) == SBT_ERR_ARG);
		lens[1] = BK_PAGE + 1;
		TST_CHECK(sbt_writer_put_blob_split(w, 1, 2, lens, hashes, first) == SBT_ERR_ARG);
		TST_CHECK(sbt_writer_put_blob_split(w, 1, 2, NULL, hashes, first) == SBT_ERR_ARG);
		lens[1] = 24;
		for (int k = 0; k < 2; k++) {
			XXH128_hash_t h = XXH3_128bits(first + (k ? 1000 : 0), lens[k]);
			hashes[2 * k] = h.low64;
			hashes[2 * k + 1] = h.high64;
		}
		TST_CHECK(sbt_writer_put_blob_split(w, 1, 2, lens, hashes, first) == SBT_OK);
		TST_CHECK(sbt_writer_close(w) == SBT_OK);
		TST_REQUIRE(sbt_reader_open(tst_path("split.sbt"), NULL, &r) == SBT_OK);
		bk_check_blob(r, 1, first, 1024);
		sbt_reader_close(r);
	}
	free(first);
	free(second);
	return tst_done();
}
