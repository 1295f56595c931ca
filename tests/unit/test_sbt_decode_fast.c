/*
 * test_sbt_decode_fast - the inline fast paths of decoding give exactly what
 * the checked byte-at-a-time decoders give: sbt_varint_peek8 and
 * sbt_varint_peek8_word against sbt_varint_get, sbt_vk_get_u against the codec's
 * original loop, sbt_vk_get_rawarr against sbt_vk_get_rawarr_any.  Same
 * status, same value, same bytes consumed, for valid varints of every
 * length, non-canonical and over-long ones, a bad tenth byte, every
 * truncation, and random bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_varint.h"
#include "serializer/sbt_vk_internal.h"
#include "tests/support/tst.h"

/* The codec's varint loop as it was before the fast paths. */
static sbt_vk_status ref_vk_get_u(sbt_vk_d *d, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	const uint8_t *p = d->p;
	while (p < d->end) {
		uint8_t b = *p++;
		if (shift == 63 && (b & 0x7e))
			return SBT_VK_ERR_CORRUPT;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			d->p = p;
			*v = r;
			return SBT_VK_OK;
		}
		shift += 7;
		if (shift > 63)
			return SBT_VK_ERR_CORRUPT;
	}
	return SBT_VK_ERR_TRUNCATED;
}

static uint64_t df_rng = 0x9e3779b97f4a7c15ull;
static uint64_t df_rand(void)
{
	df_rng ^= df_rng << 13;
	df_rng ^= df_rng >> 7;
	df_rng ^= df_rng << 17;
	return df_rng;
}

static unsigned long df_checked;

static void df_check_at(const uint8_t *buf, size_t len);

/* Every decoder on buf[0, len): where bytes after len are readable junk (as
 * in a record buffer), and in a heap copy of exactly len bytes (so that a
 * sanitizer build catches a read past the end). */
static void df_check(const uint8_t *buf, size_t len)
{
	uint8_t *exact = malloc(len ? len : 1);
	TST_REQUIRE(exact != NULL);
	memcpy(exact, buf, len);
	df_check_at(buf, len);
	df_check_at(exact, len);
	free(exact);
}

static void df_check_at(const uint8_t *buf, size_t len)
{
	const uint8_t *p1 = buf;
	uint64_t v1 = 0xaaaa;
	int r1 = sbt_varint_get(&p1, buf + len, &v1);
	int word;
	for (word = 0; word < 2 && len >= 8; word++) {
		uint64_t v3 = 0xbbbb;
		size_t n = word ? sbt_varint_peek8_word(buf, &v3) : sbt_varint_peek8(buf, &v3);
		if (n) {
			TST_CHECK(r1 == 0 && (size_t)(p1 - buf) == n && n <= 8);
			TST_CHECK_EQ_U64(v3, v1);
		} else {
			TST_CHECK(r1 != 0 || p1 - buf > 8);
			TST_CHECK_EQ_U64(v3, 0xbbbb);
		}
	}
	{
		sbt_vk_d a = {buf, buf + len, buf, NULL, NULL};
		sbt_vk_d b = {buf, buf + len, buf, NULL, NULL};
		uint64_t va = 0xcccc, vb = 0xcccc;
		sbt_vk_status sa = ref_vk_get_u(&a, &va);
		sbt_vk_status sb = sbt_vk_get_u(&b, &vb);
		TST_CHECK(sa == sb);
		TST_CHECK(a.p == b.p);
		TST_CHECK_EQ_U64(va, vb);
	}
	df_checked++;
}

/* buf holds a varint of n bytes: check it at every length from 0 to n + 9
 * (so with and without the 8 bytes the word path needs). */
static void df_check_all_ends(uint8_t *buf, size_t n)
{
	size_t len;
	for (len = 0; len <= n + 9; len++)
		df_check(buf, len);
}

static void df_valid(void)
{
	static const uint64_t vals[] = {0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000,
	                                0xfffffff, 0x10000000, 0x7ffffffffull, 0x800000000ull,
	                                0x3ffffffffffull, 0x40000000000ull, 0x1ffffffffffffull,
	                                0x2000000000000ull, 0xffffffffffffffull,
	                                0x100000000000000ull, 0x7fffffffffffffffull,
	                                0x8000000000000000ull, UINT64_MAX,
	                                0x0000562f7599d3c0ull, 0x0000562f7573e5a0ull};
	uint8_t buf[32];
	size_t i, k;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t n;
		memset(buf, 0xff, sizeof(buf));
		n = sbt_varint_put(buf, vals[i]);
		df_check_all_ends(buf, n);
		memset(buf + n, 0x00, sizeof(buf) - n);
		df_check_all_ends(buf, n);
	}
	/* every 64-bit value with one bit set, and one less */
	for (k = 0; k < 64; k++) {
		size_t n;
		memset(buf, 0x80, sizeof(buf));
		n = sbt_varint_put(buf, (uint64_t)1 << k);
		df_check_all_ends(buf, n);
		n = sbt_varint_put(buf, ((uint64_t)1 << k) - 1);
		df_check_all_ends(buf, n);
	}
}

static void df_odd(void)
{
	uint8_t buf[32];
	size_t n;
	/* non-canonical: trailing zero groups of every length */
	for (n = 2; n <= 11; n++) {
		memset(buf, 0, sizeof(buf));
		memset(buf, 0x80, n - 1);
		buf[0] = 0x81;
		df_check_all_ends(buf, n);
	}
	/* over-long: eleven continuation bytes */
	memset(buf, 0x80, sizeof(buf));
	df_check_all_ends(buf, 11);
	/* tenth byte carrying more than the top bit of a u64, and exactly it */
	memset(buf, 0xff, 9);
	buf[9] = 0x02;
	memset(buf + 10, 0, sizeof(buf) - 10);
	df_check_all_ends(buf, 10);
	buf[9] = 0x01;
	df_check_all_ends(buf, 10);
	buf[9] = 0x81;
	df_check_all_ends(buf, 10);
	buf[9] = 0x80;
	df_check_all_ends(buf, 10);
}

static void df_random(void)
{
	uint8_t buf[32];
	int round;
	for (round = 0; round < 200000; round++) {
		size_t i, len = (size_t)(df_rand() % 20);
		unsigned cont = (unsigned)(df_rand() % 100); /* % of continuation bytes */
		for (i = 0; i < sizeof(buf); i++) {
			uint8_t b = (uint8_t)df_rand();
			buf[i] = (df_rand() % 100) < cont ? (uint8_t)(b | 0x80) : (uint8_t)(b & 0x7f);
		}
		df_check(buf, len);
	}
}

/* The inline plain-array path (arena ax) against the checked one (arena
 * ay, in the same state): same status, count, presence, bytes, position. */
static void df_rawarr_one(sbt_vk_arena *ax, sbt_vk_arena *ay, const uint8_t *in, size_t len,
                          size_t elsize)
{
	uint8_t *buf = malloc(len ? len : 1); /* exact: reads past len are caught under ASan */
	TST_REQUIRE(buf != NULL);
	memcpy(buf, in, len);
	sbt_vk_d x = {buf, buf + len, buf, ax, NULL};
	sbt_vk_d y = {buf, buf + len, buf, ay, NULL};
	void *ox = (void *)1, *oy = (void *)1;
	uint64_t cx = 77, cy = 77;
	int px = 5, py = 5;
	sbt_vk_status sx = sbt_vk_get_rawarr(&x, &ox, &cx, &px, elsize);
	sbt_vk_status sy = sbt_vk_get_rawarr_any(&y, &oy, &cy, &py, elsize);
	TST_CHECK(sx == sy);
	TST_CHECK(x.p == y.p);
	if (sx == SBT_VK_OK) {
		TST_CHECK_EQ_U64(cx, cy);
		TST_CHECK(px == py);
		TST_CHECK((ox == NULL) == (oy == NULL));
		if (ox && oy)
			TST_CHECK(memcmp(ox, oy, (size_t)cx * elsize) == 0);
		df_checked++;
	}
	free(buf);
}

static void df_rawarr(void)
{
	sbt_vk_arena *ax = NULL, *ay = NULL;
	uint8_t buf[600];
	size_t count, len, i;
	static const size_t elsizes[] = {1, 4, 8, 16, 24};
	size_t e;
	TST_REQUIRE(sbt_vk_arena_create(1 << 20, &ax) == SBT_VK_OK);
	TST_REQUIRE(sbt_vk_arena_create(1 << 20, &ay) == SBT_VK_OK);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (e = 0; e < sizeof(elsizes) / sizeof(elsizes[0]); e++) {
		for (count = 0; count < 140; count += (count < 40 ? 1 : 17)) {
			size_t n = 0;
			buf[n++] = 1;
			n += sbt_varint_put(buf + n, count);
			for (len = 0; len <= n + count * elsizes[e] + 20 && len <= sizeof(buf); len++) {
				sbt_vk_arena_reset(ax);
				sbt_vk_arena_reset(ay);
				df_rawarr_one(ax, ay, buf, len, elsizes[e]);
			}
		}
	}
	/* NULL and blob tags, a bad tag, an empty buffer */
	buf[0] = 0;
	df_rawarr_one(ax, ay, buf, 1, 4);
	buf[0] = 2;
	buf[1] = 3;
	buf[2] = 9;
	df_rawarr_one(ax, ay, buf, 3, 4);
	buf[0] = 3;
	df_rawarr_one(ax, ay, buf, 3, 4);
	df_rawarr_one(ax, ay, buf, 0, 4);
	sbt_vk_arena_free(ax);
	sbt_vk_arena_free(ay);
	/* arena limit: the fast path refuses what the checked one refuses,
	 * also once earlier arrays filled part of it */
	TST_REQUIRE(sbt_vk_arena_create(64, &ax) == SBT_VK_OK);
	TST_REQUIRE(sbt_vk_arena_create(64, &ay) == SBT_VK_OK);
	buf[0] = 1;
	buf[1] = 100;
	df_rawarr_one(ax, ay, buf, 200, 1);
	buf[1] = 40;
	for (i = 0; i < 3; i++)
		df_rawarr_one(ax, ay, buf, 200, 1);
	sbt_vk_arena_free(ax);
	sbt_vk_arena_free(ay);
}

int main(void)
{
	df_valid();
	df_odd();
	df_random();
	df_rawarr();
	TST_CHECK(df_checked > 200000);
	return tst_done();
}
