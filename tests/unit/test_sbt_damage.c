/*
 * test_sbt_damage - a real multi-chunk trace, cut at every chunk boundary
 * and one byte either side, and with bytes flipped in every chunk header and
 * payload, the file header and the trailer.  For each damaged copy, in every
 * reader mode: open and iteration do not crash; every record of the chunks
 * wholly before the damage comes back intact; records are never lost
 * silently (either all come back or the message names the damaged offset);
 * a torn tail is reported with its offset; salvage recovers the chunks after
 * a corrupt one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define DM_NREC 1500
#define DM_MAX_CHUNKS 512
/* bad_off for a cut: records after it are gone, and the torn-tail message is
 * checked by the caller. */
#define DM_CUT (UINT64_MAX - 1)

typedef struct dm_rec {
	sbt_record r;
	uint8_t payload[48];
	size_t chunk; /* position of its RECORDS chunk in the chunk list */
} dm_rec;

typedef struct dm_chunk {
	uint64_t offset, end;
	uint32_t type;
} dm_chunk;

static dm_rec dm_recs[DM_NREC];
static dm_chunk dm_chunks[DM_MAX_CHUNKS];
static size_t dm_nchunks;
static uint8_t *dm_file;
static size_t dm_size;
static uint64_t dm_blob_ids[4];
static uint8_t dm_blob[4][5000];
static unsigned dm_cases;

static uint64_t dm_rand_state = 12345;
static uint64_t dm_rand(void)
{
	dm_rand_state = dm_rand_state * 6364136223846793005ull + 1442695040888963407ull;
	return dm_rand_state >> 33;
}

static void dm_build(const char *path)
{
	sbt_writer_options opt = {2048, 1024, 0, 0};
	sbt_writer *w;
	size_t i, k;
	uint64_t seq = 1;
	uint32_t sid;
	TST_REQUIRE(sbt_writer_open(path, &opt, &w) == SBT_OK);
	TST_CHECK(sbt_writer_define_type(w, 70, "apiCall") == SBT_OK);
	TST_CHECK(sbt_writer_set_meta(w, "k", "v") == SBT_OK);
	for (i = 0; i < DM_NREC; i++) {
		dm_rec *e = &dm_recs[i];
		char name[32];
		if (i % 50 == 0) {
			sbt_frame fr[3];
			snprintf(name, sizeof(name), "sym%zu", i);
			TST_CHECK(sbt_writer_intern(w, name, &sid) == SBT_OK);
			for (k = 0; k < 3; k++) {
				fr[k].ip = 0x400000 + i * 16 + k;
				fr[k].symbol_id = sid;
			}
			TST_CHECK(sbt_writer_put_stack(w, i, fr, 3, &sid) == SBT_OK);
		}
		if (i % 400 == 100) {
			size_t b = i / 400;
			for (k = 0; k < sizeof(dm_blob[b]); k++)
				dm_blob[b][k] = (uint8_t)(k < 2048 ? k : dm_rand()); /* some pages repeat */
			TST_CHECK(sbt_writer_put_blob(w, 0, dm_blob[b], sizeof(dm_blob[b]),
			                              &dm_blob_ids[b]) == SBT_OK);
		}
		seq += 1 + dm_rand() % 3;
		e->r.seq = seq;
		e->r.type = i % 100 == 99 ? SBT_TYPE_FRAME : 70;
		e->r.time_ns = seq * 10;
		e->r.thread = 7;
		e->r.stack_id = sid;
		e->r.payload_len = i % 100 == 99 ? sbt_varint_put(e->payload, i / 100 + 1)
		                                 : (size_t)(dm_rand() % sizeof(e->payload));
		if (e->r.type != SBT_TYPE_FRAME)
			for (k = 0; k < e->r.payload_len; k++)
				e->payload[k] = (uint8_t)dm_rand();
		e->r.payload = e->payload;
		TST_CHECK(sbt_writer_append(w, &e->r) == SBT_OK);
	}
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	dm_file = tst_read_file(path, &dm_size);
	TST_REQUIRE(dm_file != NULL);
}

/* Learns the chunk layout and which chunk holds each record. */
static void dm_learn(const char *path)
{
	sbt_reader *r;
	sbt_chunk_info ci;
	size_t i, rec = 0;
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	for (i = 0; sbt_reader_chunk_at(r, i, &ci) == SBT_OK; i++) {
		uint32_t k;
		TST_REQUIRE(i < DM_MAX_CHUNKS);
		dm_chunks[i].offset = ci.offset;
		dm_chunks[i].end = ci.offset + 64 + ci.stored_size;
		dm_chunks[i].type = ci.type;
		if (ci.type == 1)
			for (k = 0; k < ci.record_count && rec < DM_NREC; k++)
				dm_recs[rec++].chunk = i;
	}
	dm_nchunks = i;
	TST_REQUIRE(rec == DM_NREC);
	TST_REQUIRE(dm_nchunks > 30);
	TST_REQUIRE(dm_chunks[dm_nchunks - 1].type == 7);
	TST_REQUIRE(dm_chunks[dm_nchunks - 1].end + 32 == dm_size);
	{
		int types_seen[8] = {0};
		for (i = 0; i < dm_nchunks; i++)
			types_seen[dm_chunks[i].type & 7] = 1;
		for (i = 1; i < 8; i++)
			TST_REQUIRE(types_seen[i]); /* every chunk type is in the trace */
	}
	/* and keyed BLOBS chunks (the flags byte, bit 0; dm_file is read by
	 * now), whose pages are checked by their hashes */
	{
		size_t keyed = 0;
		for (i = 0; i < dm_nchunks; i++)
			keyed += dm_chunks[i].type == 6 && (dm_file[dm_chunks[i].offset + 11] & 1);
		TST_REQUIRE(keyed > 0);
	}
	sbt_reader_close(r);
}

static int dm_same(const sbt_record *a, const dm_rec *e)
{
	return a->seq == e->r.seq && a->type == e->r.type && a->time_ns == e->r.time_ns &&
	       a->thread == e->r.thread && a->stack_id == e->r.stack_id &&
	       a->payload_len == e->r.payload_len &&
	       (!a->payload_len || memcmp(a->payload, e->payload, a->payload_len) == 0);
}

static int dm_has_offset(const char *msg, uint64_t off)
{
	char needle[48];
	snprintf(needle, sizeof(needle), "offset %llu", (unsigned long long)off);
	return strstr(msg, needle) != NULL;
}

/*
 * Opens a damaged image and iterates it.  intact_before: every record whose
 * chunk ends at or before it must come back.  bad_off: the offset the
 * message must name if anything is missing (UINT64_MAX: nothing may be
 * missing).  skip_chunk: with salvage, the only chunk whose records may be
 * missing (SIZE_MAX: none).  Returns the number of records seen.
 */
static size_t dm_read(const uint8_t *img, size_t len, int salvage, int ignore_index,
                      uint64_t intact_before, uint64_t bad_off, size_t skip_chunk,
                      const char *what, uint64_t where)
{
	sbt_reader_options ro = {salvage, 0, ignore_index};
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_status st, open_st;
	size_t pos = 0, got = 0, k;
	int order_ok = 1, missing = 0, failed = 0;
	char msg[1200] = "";

	dm_cases++;
	open_st = sbt_reader_open_mem(img, len, &ro, &r);
	if (r)
		snprintf(msg, sizeof(msg), "%s", sbt_reader_message(r));
	if (open_st != SBT_OK && open_st != SBT_ERR_CORRUPT) {
		/* Only file header damage may refuse the whole file. */
		if (intact_before > 80 && dm_recs[0].chunk < dm_nchunks &&
		    dm_chunks[dm_recs[0].chunk].end <= intact_before) {
			fprintf(stderr, "%s at %llu (salvage %d, scan %d): open failed: %s / %s\n",
			        what, (unsigned long long)where, salvage, ignore_index,
			        sbt_strerror(open_st), msg);
			tst_failures++;
		}
		sbt_reader_close(r);
		return 0;
	}
	if (open_st == SBT_ERR_CORRUPT)
		failed = 1;
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		/* Records come back in order, each equal to the original. */
		while (pos < DM_NREC && dm_recs[pos].r.seq < rec.seq) {
			if (dm_chunks[dm_recs[pos].chunk].end <= intact_before ||
			    (salvage && skip_chunk != SIZE_MAX && dm_recs[pos].chunk != skip_chunk))
				missing = 1;
			pos++;
		}
		if (pos >= DM_NREC || !dm_same(&rec, &dm_recs[pos]))
			order_ok = 0;
		pos++;
		got++;
		if (got > DM_NREC)
			break;
	}
	if (st != SBT_END) {
		failed = 1;
		snprintf(msg, sizeof(msg), "%s", sbt_reader_message(r));
	}
	for (k = pos; k < DM_NREC; k++) {
		if (dm_chunks[dm_recs[k].chunk].end <= intact_before ||
		    (salvage && skip_chunk != SIZE_MAX && dm_recs[k].chunk != skip_chunk))
			missing = 1;
	}
	if (!order_ok || missing) {
		fprintf(stderr, "%s at %llu (salvage %d, scan %d): %s; got %zu records; msg: %s\n",
		        what, (unsigned long long)where, salvage, ignore_index,
		        order_ok ? "records missing" : "record differs", got, msg);
		tst_failures++;
	}
	/* Anything lost must be explained by a message naming the damage. */
	if (got < DM_NREC && !salvage && bad_off != DM_CUT) {
		if (bad_off == UINT64_MAX) {
			fprintf(stderr, "%s at %llu (scan %d): lost records without damage\n", what,
			        (unsigned long long)where, ignore_index);
			tst_failures++;
		} else if (!dm_has_offset(msg, bad_off)) {
			fprintf(stderr, "%s at %llu (scan %d): message does not name offset %llu: %s\n",
			        what, (unsigned long long)where, ignore_index,
			        (unsigned long long)bad_off, msg);
			tst_failures++;
		}
	}
	if (failed && bad_off == DM_CUT) {
		fprintf(stderr, "%s at %llu: a cut is not an error: %s\n", what,
		        (unsigned long long)where, msg);
		tst_failures++;
	}
	if (failed && bad_off < DM_CUT && !dm_has_offset(msg, bad_off)) {
		fprintf(stderr, "%s at %llu: error message does not name offset %llu: %s\n", what,
		        (unsigned long long)where, (unsigned long long)bad_off, msg);
		tst_failures++;
	}
	/* Blobs either come back intact or fail cleanly. */
	for (k = 0; k < 4; k++) {
		void *data = NULL;
		size_t blen = 0;
		if (sbt_reader_blob_get(r, dm_blob_ids[k], &data, &blen) == SBT_OK) {
			if (blen != sizeof(dm_blob[k]) || memcmp(data, dm_blob[k], blen) != 0) {
				fprintf(stderr, "%s at %llu: blob %zu came back different\n", what,
				        (unsigned long long)where, k);
				tst_failures++;
			}
			free(data);
		}
	}
	/* Seeks on a damaged file do not crash either. */
	sbt_reader_seek_seq(r, dm_recs[DM_NREC / 2].r.seq);
	while (sbt_reader_next(r, &rec) == SBT_OK)
		;
	sbt_reader_seek_frame(r, 5);
	sbt_reader_next(r, &rec);
	sbt_reader_close(r);
	return got;
}

static void dm_cut(uint64_t at)
{
	size_t i;
	uint64_t torn_at = UINT64_MAX;
	int boundary = at == 80 || at == dm_size;
	for (i = 0; i < dm_nchunks; i++) {
		if (dm_chunks[i].end == at)
			boundary = 1;
		if (dm_chunks[i].offset < at && at < dm_chunks[i].end)
			torn_at = dm_chunks[i].offset;
	}
	if (at > dm_chunks[dm_nchunks - 1].end && at < dm_size)
		torn_at = dm_chunks[dm_nchunks - 1].end;
	if (at < 80) {
		sbt_reader *r = NULL;
		sbt_status st = sbt_reader_open_mem(dm_file, (size_t)at, NULL, &r);
		TST_CHECK(st == SBT_ERR_TRUNCATED || (at == 0 && st == SBT_ERR_NOT_SBT));
		TST_CHECK(r && strstr(sbt_reader_message(r), at ? "truncated" : "not an SBT"));
		sbt_reader_close(r);
		return;
	}
	for (i = 0; i < 2; i++) {
		sbt_reader *r = NULL;
		sbt_trace_info info;
		sbt_reader_options ro = {0, 0, (int)i};
		TST_REQUIRE(sbt_reader_open_mem(dm_file, (size_t)at, &ro, &r) == SBT_OK);
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.has_index, at == dm_size && !i);
		if (boundary) {
			TST_CHECK_EQ_U64(info.truncated, 0);
		} else {
			char want[96];
			snprintf(want, sizeof(want), "torn tail at offset %llu (%llu bytes) dropped",
			         (unsigned long long)torn_at, (unsigned long long)(at - torn_at));
			TST_CHECK_EQ_U64(info.truncated, 1);
			TST_CHECK_EQ_U64(info.truncated_at, torn_at);
			if (!strstr(sbt_reader_message(r), want)) {
				fprintf(stderr, "cut at %llu: message \"%s\" lacks \"%s\"\n",
				        (unsigned long long)at, sbt_reader_message(r), want);
				tst_failures++;
			}
		}
		sbt_reader_close(r);
		/* Exactly the records of the whole chunks come back. */
		{
			size_t want_n = 0, got;
			for (got = 0; got < DM_NREC; got++)
				if (dm_chunks[dm_recs[got].chunk].end <= at)
					want_n++;
			got = dm_read(dm_file, (size_t)at, 0, (int)i, at, DM_CUT, SIZE_MAX, "cut",
			              at);
			TST_CHECK_EQ_U64(got, want_n);
		}
	}
}

static void dm_flip(uint64_t pos, uint64_t bad_off, size_t chunk, int is_header_region)
{
	uint8_t *img = malloc(dm_size);
	int mode;
	memcpy(img, dm_file, dm_size);
	img[pos] ^= 0x5a;
	for (mode = 0; mode < 4; mode++) {
		int salvage = mode >= 2, scan = mode & 1;
		uint64_t intact = chunk == SIZE_MAX ? dm_size : dm_chunks[chunk].offset;
		uint64_t expect_bad = bad_off;
		size_t skip = chunk;
		if (is_header_region == 2)
			intact = 0; /* file header: nothing need survive */
		if (chunk != SIZE_MAX && dm_chunks[chunk].type == 7)
			expect_bad = UINT64_MAX, skip = SIZE_MAX; /* a bad index is not damage */
		dm_read(img, dm_size, salvage, scan, intact, expect_bad, skip, "flip", pos);
	}
	free(img);
}

int main(void)
{
	const char *path = tst_path("dm.sbt");
	size_t i;
	uint64_t prev_cut = UINT64_MAX;

	dm_build(path);
	dm_learn(path);

	/* Undamaged: everything, in every mode. */
	for (i = 0; i < 4; i++)
		TST_CHECK_EQ_U64(dm_read(dm_file, dm_size, i >= 2, i & 1, dm_size, UINT64_MAX,
		                         SIZE_MAX, "intact", 0),
		                 DM_NREC);

	/* Cuts at every chunk boundary and one byte either side, and inside
	 * the file header and trailer. */
	for (i = 0; i < dm_nchunks; i++) {
		uint64_t cuts[6] = {dm_chunks[i].offset - 1, dm_chunks[i].offset,
		                    dm_chunks[i].offset + 1, dm_chunks[i].offset + 30,
		                    dm_chunks[i].end - 1, dm_chunks[i].end};
		size_t k;
		for (k = 0; k < 6; k++) {
			if (cuts[k] == prev_cut)
				continue;
			dm_cut(cuts[k]);
			prev_cut = cuts[k];
		}
	}
	dm_cut(0);
	dm_cut(5);
	dm_cut(dm_size - 31);
	dm_cut(dm_size - 1);
	dm_cut(dm_size);

	/* Flipped bytes in every chunk header and payload. */
	for (i = 0; i < dm_nchunks; i++) {
		static const unsigned hdr_pos[] = {0, 5, 8, 10, 13, 18, 22, 26, 35, 44, 50, 57, 62};
		uint64_t plen = dm_chunks[i].end - dm_chunks[i].offset - 64;
		size_t k;
		for (k = 0; k < sizeof(hdr_pos) / sizeof(hdr_pos[0]); k++)
			dm_flip(dm_chunks[i].offset + hdr_pos[k], dm_chunks[i].offset, i, 1);
		if (plen) {
			dm_flip(dm_chunks[i].offset + 64, dm_chunks[i].offset, i, 0);
			dm_flip(dm_chunks[i].offset + 64 + plen / 2, dm_chunks[i].offset, i, 0);
			dm_flip(dm_chunks[i].end - 1, dm_chunks[i].offset, i, 0);
		}
	}
	/* The file header: the whole file is refused, naming offset 0. */
	{
		static const unsigned fh_pos[] = {0, 3, 8, 12, 16, 20, 33, 50, 60, 66, 77};
		for (i = 0; i < sizeof(fh_pos) / sizeof(fh_pos[0]); i++) {
			sbt_reader *r = NULL;
			uint8_t *img = malloc(dm_size);
			sbt_status st;
			memcpy(img, dm_file, dm_size);
			img[fh_pos[i]] ^= 0x5a;
			st = sbt_reader_open_mem(img, dm_size, NULL, &r);
			TST_CHECK(st == SBT_ERR_NOT_SBT || st == SBT_ERR_CORRUPT);
			TST_CHECK(r && (st == SBT_ERR_NOT_SBT || dm_has_offset(sbt_reader_message(r), 0)));
			sbt_reader_close(r);
			dm_flip(fh_pos[i], 0, SIZE_MAX, 2);
			free(img);
		}
	}
	/* The trailer: a scan takes over and nothing is lost. */
	for (i = 0; i < 32; i += 3) {
		sbt_reader *r = NULL;
		sbt_trace_info info;
		uint8_t *img = malloc(dm_size);
		memcpy(img, dm_file, dm_size);
		img[dm_size - 32 + i] ^= 0x5a;
		TST_CHECK(sbt_reader_open_mem(img, dm_size, NULL, &r) == SBT_OK);
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.has_index, 0);
		TST_CHECK_EQ_U64(info.truncated, 0);
		TST_CHECK_EQ_U64(info.record_count, DM_NREC);
		sbt_reader_close(r);
		TST_CHECK_EQ_U64(dm_read(img, dm_size, 0, 0, dm_size, UINT64_MAX, SIZE_MAX, "trailer",
		                         dm_size - 32 + i),
		                 DM_NREC);
		free(img);
	}
	/* A corrupt records chunk in the middle: the exact error, then salvage. */
	for (i = dm_nchunks / 2; i < dm_nchunks; i++) {
		if (dm_chunks[i].type == 1) {
			sbt_reader *r = NULL;
			sbt_record rec;
			uint8_t *img = malloc(dm_size);
			char want[96];
			size_t n = 0;
			sbt_status st;
			memcpy(img, dm_file, dm_size);
			img[dm_chunks[i].offset + 64 + 3] ^= 1;
			TST_REQUIRE(sbt_reader_open_mem(img, dm_size, NULL, &r) == SBT_OK);
			while ((st = sbt_reader_next(r, &rec)) == SBT_OK)
				n++;
			TST_CHECK(st == SBT_ERR_CORRUPT);
			snprintf(want, sizeof(want), "corrupt chunk at offset %llu: payload checksum mismatch",
			         (unsigned long long)dm_chunks[i].offset);
			TST_CHECK(strcmp(sbt_reader_message(r), want) == 0);
			TST_CHECK(sbt_reader_next(r, &rec) == SBT_ERR_CORRUPT); /* sticky */
			sbt_reader_close(r);
			{
				size_t before = 0, k;
				for (k = 0; k < DM_NREC; k++)
					if (dm_recs[k].chunk < i)
						before++;
				TST_CHECK_EQ_U64(n, before);
			}
			free(img);
			break;
		}
	}
	printf("%u damaged images read\n", dm_cases);
	free(dm_file);
	return tst_done();
}
