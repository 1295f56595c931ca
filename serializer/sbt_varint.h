/*
 * sbt_varint.h - the fast paths of varint decoding, inline, for the reader
 * (record headers: six varints, most 1-4 bytes) and the Vulkan codec
 * (handles: 6-7 byte varints).  Private to serializer/.
 *
 * Promise: for every input these give exactly what the checked
 * byte-at-a-time decoders (sbt_varint_get, the codec's loop) give: the same
 * value and the same length consumed.  They only take what they can decide
 * without checks: a varint of at most 8 bytes with 8 readable bytes (so no
 * byte needs a bounds check, and 56 bits need no overflow check).  Anything
 * else, every error included, is left to the checked decoder.
 * test_sbt_decode_fast holds them to that.
 */
#ifndef TRACESMITH_SBT_VARINT_H
#define TRACESMITH_SBT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "serializer/sbt_format.h"

/* The varint at q when it ends within q's first 8 bytes: its length (1..8)
 * with the value in *v; 0 when it is longer (nothing written).  q must
 * have 8 readable bytes.  The 8 bytes are loaded as one little-endian word,
 * the first byte without a continuation bit ends the varint, and the 7-bit
 * groups are packed by shift-and-mask steps (pairs of bytes, then pairs of
 * 14-bit groups, then of 28-bit groups): about 35 instructions whatever the
 * length, where a byte loop takes about 11 a byte. */
static inline size_t sbt_varint_peek8_word(const uint8_t *q, uint64_t *v)
{
	uint64_t w = sbt_fmt_load_u64(q);
	uint64_t stop = ~w & 0x8080808080808080ull;
	unsigned bits;
	if (!stop)
		return 0;
#if defined(__GNUC__)
	bits = (unsigned)__builtin_ctzll(stop) + 1; /* 8 * length */
#else
	for (bits = 8; !(stop & ((uint64_t)0x80 << (bits - 8))); bits += 8)
		;
#endif
	if (bits < 64)
		w &= ((uint64_t)1 << bits) - 1;
	w = (w & 0x007f007f007f007full) | ((w & 0x7f007f007f007f00ull) >> 1);
	w = (w & 0x00003fff00003fffull) | ((w & 0x3fff00003fff0000ull) >> 2);
	w = (w & 0x000000000fffffffull) | ((w & 0x0fffffff00000000ull) >> 4);
	*v = w;
	return bits >> 3;
}

/* sbt_varint_peek8_word for varints that are mostly short: up to 4 bytes
 * are taken one by one without a loop (about 6 instructions a byte), longer
 * ones by the word path.  Same contract. */
static inline size_t sbt_varint_peek8(const uint8_t *q, uint64_t *v)
{
	uint64_t r = q[0];
	if (r < 0x80) {
		*v = r;
		return 1;
	}
	r = (r & 0x7f) | ((uint64_t)q[1] << 7);
	if (q[1] < 0x80) {
		*v = r;
		return 2;
	}
	r = (r & 0x3fff) | ((uint64_t)q[2] << 14);
	if (q[2] < 0x80) {
		*v = r;
		return 3;
	}
	r = (r & 0x1fffff) | ((uint64_t)q[3] << 21);
	if (q[3] < 0x80) {
		*v = r;
		return 4;
	}
	return sbt_varint_peek8_word(q, v);
}

#endif /* TRACESMITH_SBT_VARINT_H */
