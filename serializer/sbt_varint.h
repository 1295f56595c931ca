/*
 * sbt_varint.h - the fast path of varint decoding, inline, shared by the
 * reader (record headers), sbt_varint_get and the Vulkan codec (handles are
 * 6-7 byte varints, most other fields one byte).  Private to serializer/.
 *
 * Promise: for every input these give exactly what the byte-at-a-time
 * decoders give (same value, same length consumed); they only decide
 * earlier.  What they cannot decide cheaply (a varint longer than 8 bytes,
 * fewer than 8 bytes left, any error) they leave to the caller's checked
 * loop, which then reports the error as before.
 */
#ifndef TRACESMITH_SBT_VARINT_H
#define TRACESMITH_SBT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "serializer/sbt_format.h"

#if defined(__GNUC__)
#define SBT_VARINT_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define SBT_VARINT_LIKELY(x) (x)
#endif

/* The varint at q when it ends within q's first 8 bytes: its length (1..8)
 * with the value in *v; 0 when it is longer (nothing written).  q must
 * have 8 readable bytes, so no byte needs a bounds check, and 8 bytes hold
 * at most 56 bits, so none needs an overflow check.
 *
 * One or two bytes are taken as they are.  Longer varints are loaded as one
 * little-endian word: the first byte without a continuation bit ends it,
 * and the 7-bit groups are packed by shift-and-mask steps (pairs of bytes,
 * then pairs of 14-bit groups, then of 28-bit groups), in 32 bits when the
 * varint has at most 4 bytes (immediate masks, fewer steps).  A byte loop
 * costs about 11 instructions a byte; this about 20 for 3-4 bytes and 35
 * for 5-8 (handles are 6-7). */
static inline size_t sbt_varint_peek8(const uint8_t *q, uint64_t *v)
{
	uint64_t w, stop;
	unsigned bits;
	if (q[0] < 0x80) {
		*v = q[0];
		return 1;
	}
	if (q[1] < 0x80) {
		*v = (uint64_t)(q[0] & 0x7f) | ((uint64_t)q[1] << 7);
		return 2;
	}
	w = sbt_fmt_load_u64(q);
	stop = ~w & 0x8080808080808080ull;
	if (!stop)
		return 0;
#if defined(__GNUC__)
	bits = (unsigned)__builtin_ctzll(stop) + 1; /* 8 * length */
#else
	for (bits = 8; !(stop & ((uint64_t)0x80 << (bits - 8))); bits += 8)
		;
#endif
	if (bits <= 32) {
		uint32_t x = (uint32_t)w;
		if (bits < 32)
			x &= ((uint32_t)1 << bits) - 1;
		x = (x & 0x007f007fu) | ((x & 0x7f007f00u) >> 1);
		x = (x & 0x00003fffu) | ((x & 0x3fff0000u) >> 2);
		*v = x;
		return bits >> 3;
	}
	if (bits < 64)
		w &= ((uint64_t)1 << bits) - 1;
	w = (w & 0x007f007f007f007full) | ((w & 0x7f007f007f007f00ull) >> 1);
	w = (w & 0x00003fff00003fffull) | ((w & 0x3fff00003fff0000ull) >> 2);
	w = (w & 0x000000000fffffffull) | ((w & 0x0fffffff00000000ull) >> 4);
	*v = w;
	return bits >> 3;
}

/* sbt_varint_get with its common cases inline: a one-byte varint, and one
 * of up to 8 bytes with 8 bytes left.  Everything else goes to
 * sbt_varint_get (same result, same errors). */
static inline int sbt_varint_next(const uint8_t **p, const uint8_t *end, uint64_t *v_out)
{
	const uint8_t *q = *p;
	if (SBT_VARINT_LIKELY(q < end && *q < 0x80)) {
		*v_out = *q;
		*p = q + 1;
		return 0;
	}
	if (q < end && (size_t)(end - q) >= 8) {
		size_t n = sbt_varint_peek8(q, v_out);
		if (n) {
			*p = q + n;
			return 0;
		}
	}
	return sbt_varint_get(p, end, v_out);
}

#endif /* TRACESMITH_SBT_VARINT_H */
