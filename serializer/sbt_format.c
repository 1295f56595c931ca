/*
 * sbt_format.c - codecs for the fixed-size parts of an SBT file (chunk
 * header, trailer), the status messages and the varint helpers.  The layout
 * is specified in sbt_format.h.
 */
#include "serializer/sbt_format.h"

#include <lz4.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

uint32_t sbt_fmt_hash32(const void *p, size_t len)
{
	return XXH32(p, len, 0);
}

/* XXH3-64 through libxxhash's dispatcher on x86-64 (AVX2 where the CPU
 * has it; the copy inlined above is built for the baseline, SSE2): the same
 * value at about a third of the instructions on long inputs, which the
 * chunk payload sums of memory contents are (docs/benchmarks.md, sparse).
 * Declared here rather than through xxh_x86dispatch.h, which redefines the
 * XXH3 names the inlined copy provides; Debian's libxxhash (0.8.1) exports
 * it, as capture/cap_writer.c relies on too. */
#if defined(__x86_64__) && defined(__GNUC__)
XXH64_hash_t XXH3_64bits_dispatch(const void *input, size_t len);
XXH128_hash_t XXH3_128bits_dispatch(const void *input, size_t len);
#define SBT_FMT_XXH64 XXH3_64bits_dispatch
#define SBT_FMT_XXH128 XXH3_128bits_dispatch
#else
#define SBT_FMT_XXH64 XXH3_64bits
#define SBT_FMT_XXH128 XXH3_128bits
#endif

uint64_t sbt_fmt_hash64(const void *p, size_t len)
{
	return SBT_FMT_XXH64(p, len);
}

void sbt_fmt_hash128(const void *p, size_t len, uint64_t *lo, uint64_t *hi)
{
	XXH128_hash_t h = SBT_FMT_XXH128(p, len);
	*lo = h.low64;
	*hi = h.high64;
}

/* The bytes a keyed checksum covers are gathered into a buffer of this
 * size and hashed a buffer at a time: a PAGE entry leaves about 20 of
 * them, too few for a streaming update each. */
#define SBT_FMT_KEYED_GATHER 4096u

int sbt_fmt_keyed_sum(const uint8_t *p, size_t n, int check_pages, uint64_t *sum,
                      const char **why)
{
	XXH3_state_t st;
	uint8_t gather[SBT_FMT_KEYED_GATHER];
	size_t at = 0, g = 0;
	XXH3_INITSTATE(&st);
	XXH3_64bits_reset(&st);
	while (at < n) {
		const uint8_t *q = p + at + 1, *end = p + n;
		uint64_t blen;
		size_t head, keep;
		if (sbt_varint_get(&q, end, &blen) != 0 || blen > (uint64_t)(end - q)) {
			*why = "blob entry overruns the payload";
			return -1;
		}
		head = (size_t)(q - (p + at));
		keep = head + (size_t)blen;
		if (p[at] == SBT_BLOB_PAGE) {
			if (blen < SBT_FMT_HASH_LEN) {
				*why = "blob page shorter than its hash";
				return -1;
			}
			keep = head + SBT_FMT_HASH_LEN;
			if (check_pages) {
				uint64_t lo, hi;
				sbt_fmt_hash128(q + SBT_FMT_HASH_LEN, (size_t)blen - SBT_FMT_HASH_LEN,
				                &lo, &hi);
				if (lo != sbt_fmt_load_u64(q) || hi != sbt_fmt_load_u64(q + 8)) {
					*why = "blob page does not match its hash";
					return -1;
				}
			}
		}
		if (g + keep > sizeof(gather)) {
			XXH3_64bits_update(&st, gather, g);
			g = 0;
		}
		if (keep > sizeof(gather)) {
			XXH3_64bits_update(&st, p + at, keep);
		} else {
			memcpy(gather + g, p + at, keep);
			g += keep;
		}
		at += head + (size_t)blen;
	}
	XXH3_64bits_update(&st, gather, g);
	*sum = XXH3_64bits_digest(&st);
	return 0;
}

const char *sbt_strerror(sbt_status st)
{
	static const char *const sbt_messages[] = {
#define SBT_X_MSG(name, msg) msg,
		SBT_STATUS_LIST(SBT_X_MSG)
#undef SBT_X_MSG
	};
	if ((unsigned)st >= (unsigned)SBT_STATUS_COUNT)
		return "unknown SBT status";
	return sbt_messages[st];
}

size_t sbt_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

int sbt_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v_out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	unsigned shift = 0;
	for (;;) {
		uint8_t b;
		if (q >= end)
			return -1;
		b = *q++;
		/* The tenth byte may only carry the top bit of a u64. */
		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return -1;
	}
	*p = q;
	*v_out = v;
	return 0;
}

void sbt_fmt_chunk_hdr_encode(uint8_t out[SBT_FMT_CHUNK_HDR_SIZE], const sbt_fmt_chunk_hdr *h)
{
	memset(out, 0, SBT_FMT_CHUNK_HDR_SIZE);
	sbt_fmt_store_u32(out + SBT_FMT_CH_SIZE, SBT_FMT_CHUNK_HDR_SIZE);
	memcpy(out + SBT_FMT_CH_MAGIC, SBT_FMT_CHUNK_MAGIC, 4);
	sbt_fmt_store_u16(out + SBT_FMT_CH_TYPE, (uint16_t)h->type);
	out[SBT_FMT_CH_CODEC] = (uint8_t)h->codec;
	out[SBT_FMT_CH_FLAGS] = (uint8_t)h->flags;
	sbt_fmt_store_u32(out + SBT_FMT_CH_RAW, h->raw_size);
	sbt_fmt_store_u32(out + SBT_FMT_CH_STORED, h->stored_size);
	sbt_fmt_store_u32(out + SBT_FMT_CH_COUNT, h->record_count);
	sbt_fmt_store_u64(out + SBT_FMT_CH_FIRST_SEQ, h->first_seq);
	sbt_fmt_store_u64(out + SBT_FMT_CH_T_FIRST, h->t_first);
	sbt_fmt_store_u64(out + SBT_FMT_CH_T_LAST, h->t_last);
	sbt_fmt_store_u64(out + SBT_FMT_CH_PAYLOAD_SUM, h->payload_sum);
	sbt_fmt_store_u32(out + SBT_FMT_CH_CHECKSUM,
	                  sbt_fmt_hash32(out, SBT_FMT_CH_CHECKSUM));
}

int sbt_fmt_chunk_hdr_decode(const uint8_t *p, size_t avail, sbt_fmt_chunk_hdr *h,
                             const char **why)
{
	uint32_t hs;
	if (avail < 8)
		return 1;
	if (memcmp(p + SBT_FMT_CH_MAGIC, SBT_FMT_CHUNK_MAGIC, 4) != 0) {
		*why = "bad chunk magic";
		return -1;
	}
	hs = sbt_fmt_load_u32(p + SBT_FMT_CH_SIZE);
	if (hs < SBT_FMT_CHUNK_HDR_SIZE || hs > SBT_FMT_CHUNK_HDR_MAX || (hs & 3)) {
		*why = "impossible header size";
		return -1;
	}
	if (avail < hs)
		return 1;
	if (sbt_fmt_load_u32(p + hs - 4) != sbt_fmt_hash32(p, hs - 4)) {
		*why = "header checksum mismatch";
		return -1;
	}
	h->header_size = hs;
	h->type = sbt_fmt_load_u16(p + SBT_FMT_CH_TYPE);
	h->codec = p[SBT_FMT_CH_CODEC];
	h->flags = p[SBT_FMT_CH_FLAGS];
	h->raw_size = sbt_fmt_load_u32(p + SBT_FMT_CH_RAW);
	h->stored_size = sbt_fmt_load_u32(p + SBT_FMT_CH_STORED);
	h->record_count = sbt_fmt_load_u32(p + SBT_FMT_CH_COUNT);
	h->first_seq = sbt_fmt_load_u64(p + SBT_FMT_CH_FIRST_SEQ);
	h->t_first = sbt_fmt_load_u64(p + SBT_FMT_CH_T_FIRST);
	h->t_last = sbt_fmt_load_u64(p + SBT_FMT_CH_T_LAST);
	h->payload_sum = sbt_fmt_load_u64(p + SBT_FMT_CH_PAYLOAD_SUM);
	if (h->raw_size > SBT_FMT_MAX_RAW) {
		*why = "impossible raw size";
		return -1;
	}
	if (h->codec == SBT_CODEC_NONE) {
		if (h->stored_size != h->raw_size) {
			*why = "impossible stored size";
			return -1;
		}
	} else if (h->codec == SBT_CODEC_LZ4) {
		if (h->stored_size > (uint32_t)LZ4_compressBound((int)h->raw_size) ||
		    (uint64_t)h->raw_size > 255ull * h->stored_size + 64) {
			*why = "impossible stored size";
			return -1;
		}
	} else {
		*why = "unknown codec";
		return -1;
	}
	return 0;
}

void sbt_fmt_trailer_encode(uint8_t out[SBT_FMT_TRAILER_SIZE], uint64_t index_offset,
                            uint64_t record_count)
{
	memcpy(out + SBT_FMT_TR_MAGIC, SBT_FMT_TRAILER_MAGIC, 8);
	sbt_fmt_store_u64(out + SBT_FMT_TR_INDEX_OFF, index_offset);
	sbt_fmt_store_u64(out + SBT_FMT_TR_RECORDS, record_count);
	sbt_fmt_store_u32(out + SBT_FMT_TR_SIZE, SBT_FMT_TRAILER_SIZE);
	sbt_fmt_store_u32(out + SBT_FMT_TR_CHECKSUM, sbt_fmt_hash32(out, SBT_FMT_TR_CHECKSUM));
}

int sbt_fmt_trailer_decode(const uint8_t *p, uint64_t *index_offset, uint64_t *record_count)
{
	if (memcmp(p + SBT_FMT_TR_MAGIC, SBT_FMT_TRAILER_MAGIC, 8) != 0 ||
	    sbt_fmt_load_u32(p + SBT_FMT_TR_SIZE) != SBT_FMT_TRAILER_SIZE ||
	    sbt_fmt_load_u32(p + SBT_FMT_TR_CHECKSUM) != sbt_fmt_hash32(p, SBT_FMT_TR_CHECKSUM))
		return -1;
	*index_offset = sbt_fmt_load_u64(p + SBT_FMT_TR_INDEX_OFF);
	*record_count = sbt_fmt_load_u64(p + SBT_FMT_TR_RECORDS);
	return 0;
}
