/*
 * fuzz_sbt_reader - libFuzzer target for the SBT reader.  Every input is
 * opened from memory in each reader mode (plain, salvage, scan only, scan
 * with verify) and driven through every read path: iteration, seeks by seq
 * and frame, keyframes, tables, blobs, the chunk walk and checkpoint
 * payloads.  The reader must never crash, hang or allocate absurdly,
 * whatever the bytes.  Each input is also replayed with its checksums
 * recomputed, so that mutations reach the payload parsers behind them.  `make fuzz` runs it; tests/fuzz/replay_main.c runs it
 * over the committed corpus in `make test`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_format.h"
#include "tracesmith/sbt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Blobs larger than this are sized but not fetched, so one input cannot
 * spend the fuzzer's memory budget on a legitimately huge blob. */
#define FZ_BLOB_MAX (16u << 20)

static void fz_drive(sbt_reader *r)
{
	sbt_trace_info info;
	sbt_record rec;
	uint64_t seqs[4];
	size_t nseq = 0, i, n;
	const uint64_t *kf;
	uint32_t ty;
	const char *k, *v;

	sbt_reader_get_info(r, &info);
	(void)sbt_reader_message(r);
	for (n = 0; sbt_reader_next(r, &rec) == SBT_OK; n++) {
		if (rec.type == SBT_TYPE_CHECKPOINT) {
			sbt_checkpoint cp;
			if (sbt_checkpoint_decode(rec.payload, rec.payload_len, &cp) == SBT_OK)
				sbt_checkpoint_free(&cp);
		}
		if (rec.stack_id) {
			const sbt_frame *fr;
			uint32_t nf;
			if (sbt_reader_stack(r, rec.stack_id, &fr, &nf) == SBT_OK && nf)
				(void)sbt_reader_string(r, fr[nf - 1].symbol_id);
		}
		(void)sbt_reader_type_name(r, rec.type);
		if (nseq < 4 && (n % 7) == 0)
			seqs[nseq++] = rec.seq;
	}
	for (i = 0; i < nseq; i++) {
		if (sbt_reader_seek_seq(r, seqs[i]) == SBT_OK)
			(void)sbt_reader_next(r, &rec);
		if (sbt_reader_seek_seq(r, seqs[i] + 1) == SBT_OK)
			(void)sbt_reader_next(r, &rec);
	}
	for (i = 1; i <= 4 && i <= info.frame_count + 1; i++) {
		uint64_t fs;
		(void)sbt_reader_frame_seq(r, i, &fs);
		if (sbt_reader_seek_frame(r, i) == SBT_OK)
			(void)sbt_reader_next(r, &rec);
	}
	(void)sbt_reader_keyframes(r, &kf, &n);
	for (i = 0; sbt_reader_type_at(r, i, &ty, &k) == SBT_OK; i++)
		;
	for (i = 0; sbt_reader_meta_at(r, i, &k, &v) == SBT_OK; i++)
		(void)sbt_reader_meta(r, k);
	for (i = 0; i < 12; i++)
		(void)sbt_reader_string(r, (uint32_t)i);
	for (i = 0; i < 12; i++) {
		size_t len;
		void *blob;
		if (sbt_reader_blob_size(r, i, &len) == SBT_OK && len <= FZ_BLOB_MAX &&
		    sbt_reader_blob_get(r, i, &blob, &len) == SBT_OK)
			free(blob);
	}
	for (i = 0; i < 4096; i++) {
		sbt_chunk_info ci;
		if (sbt_reader_chunk_at(r, i, &ci) != SBT_OK)
			break;
		(void)sbt_reader_verify_chunk(r, i);
	}
}

/* Recomputes the file header, chunk and trailer checksums in place, walking
 * chunks by their size fields for as long as those make sense. */
static void fz_fix_checksums(uint8_t *p, size_t size)
{
	uint64_t off;
	uint32_t hs;
	if (size < SBT_FMT_FILE_HDR_SIZE)
		return;
	hs = sbt_fmt_load_u32(p + SBT_FMT_FH_SIZE);
	if (hs < SBT_FMT_FILE_HDR_SIZE || hs > SBT_FMT_FILE_HDR_MAX || hs > size)
		return;
	sbt_fmt_store_u32(p + hs - 4, sbt_fmt_hash32(p, hs - 4));
	for (off = hs; size - off >= SBT_FMT_CHUNK_HDR_SIZE;) {
		uint32_t chs = sbt_fmt_load_u32(p + off);
		uint64_t stored, left, sum;
		const uint8_t *pay;
		const char *why;
		size_t n;
		if (chs < SBT_FMT_CHUNK_HDR_SIZE || chs > SBT_FMT_CHUNK_HDR_MAX || chs > size - off)
			break;
		pay = p + off + chs;
		stored = sbt_fmt_load_u32(p + off + SBT_FMT_CH_STORED);
		left = size - off - chs;
		n = (size_t)(stored < left ? stored : left);
		/* a keyed BLOBS chunk: its sum without the pages' data (a page
		 * whose data does not match its hash stays for the reader to
		 * find) */
		if ((p[off + SBT_FMT_CH_FLAGS] & SBT_CHUNK_FLAG_KEYED) &&
		    sbt_fmt_load_u16(p + off + SBT_FMT_CH_TYPE) == SBT_CHUNK_BLOBS &&
		    p[off + SBT_FMT_CH_CODEC] == SBT_CODEC_NONE &&
		    sbt_fmt_keyed_sum(pay, n, 0, &sum, &why) == 0)
			sbt_fmt_store_u64(p + off + SBT_FMT_CH_PAYLOAD_SUM, sum);
		else
			sbt_fmt_store_u64(p + off + SBT_FMT_CH_PAYLOAD_SUM, sbt_fmt_hash64(pay, n));
		sbt_fmt_store_u32(p + off + chs - 4, sbt_fmt_hash32(p + off, chs - 4));
		if (stored > left)
			break;
		off += chs + stored;
	}
	if (size - off == SBT_FMT_TRAILER_SIZE)
		sbt_fmt_store_u32(p + off + SBT_FMT_TR_CHECKSUM,
		                  sbt_fmt_hash32(p + off, SBT_FMT_TR_CHECKSUM));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed;
	static const sbt_reader_options modes[] = {
		{0, 0, 0}, /* index when valid */
		{1, 0, 0}, /* salvage */
		{0, 1, 1}, /* scan, verify */
		{1, 1, 1}, /* scan, verify, salvage */
	};
	size_t m;
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		sbt_reader *r = NULL;
		(void)sbt_reader_open_mem(data, size, &modes[m], &r);
		if (r)
			fz_drive(r);
		sbt_reader_close(r);
	}
	fixed = malloc(size ? size : 1);
	if (!fixed)
		return 0;
	if (size)
		memcpy(fixed, data, size);
	fz_fix_checksums(fixed, size);
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		sbt_reader *r = NULL;
		(void)sbt_reader_open_mem(fixed, size, &modes[m], &r);
		if (r)
			fz_drive(r);
		sbt_reader_close(r);
	}
	free(fixed);
	return 0;
}
