/*
 * sbt_vk_internal.h - primitives the generated Vulkan codec is made of.
 *
 * Only serializer/sbt_vk.c and serializer/generated/sbt_vk_*.c include this.
 * Encoding appends to an sbt_vk_enc through a cursor (sbt_vk_e) that grows
 * the buffer when fewer than the needed bytes remain; every put returns 0 or
 * SBT_VK_ERR_NOMEM.  Decoding reads through a cursor (sbt_vk_d) bounded by
 * the payload; every get checks the bytes it needs and the value's range,
 * and the first failure records which field it was (sbt_vk_d_fail).
 *
 * Wire forms (docs/vulkan-codec.md has the full table):
 *   unsigned     LEB128 varint            signed / enum   zigzag varint
 *   float/double 4/8 bytes, host order    handle          varint u64
 *   pointer to one element or array: varint 0 = NULL, else count + 1, then
 *       the elements
 *   raw array (plain data): varint 0 = NULL, 1 = inline (varint count, then
 *       count * element-size bytes), 2 = blob (varint count, varint blob id)
 *   string: varint 0 = NULL, else length + 1, then the bytes (no NUL)
 *   pNext chain: per carried struct varint sType + 1 then its members; 0 ends
 */
#ifndef TRACESMITH_SBT_VK_INTERNAL_H
#define TRACESMITH_SBT_VK_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "serializer/sbt_varint.h"
#include "serializer/sbt_vk.h"

#if defined(__GNUC__)
#define SBT_VK_LIKELY(x) __builtin_expect(!!(x), 1)
#define SBT_VK_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Generated helpers exist for every struct; only those reachable from a
 * carried command are called, and clang warns about the rest. */
#define SBT_VK_MAYBE_UNUSED __attribute__((unused))
/* For the few decode helpers every replayed call goes through. */
#define SBT_VK_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define SBT_VK_LIKELY(x) (x)
#define SBT_VK_UNLIKELY(x) (x)
#define SBT_VK_MAYBE_UNUSED
#define SBT_VK_ALWAYS_INLINE inline
#endif

/* ---- encoding ------------------------------------------------------------ */

typedef struct sbt_vk_e {
	uint8_t *p;   /* next byte to write, inside enc->data */
	uint8_t *end; /* enc->data + enc->cap */
	sbt_vk_enc *enc;
	int ctx;      /* the command whose parameters make members ignored
	               * (generated: codec.py IGNORED_CONTEXTS), 0 elsewhere */
	const void *parent; /* the struct whose members are being encoded, */
	int parent_id;      /* when it is one of codec.py IGNORED_PARENTS (its
	                     * number from 1), else NULL and 0 */
} sbt_vk_e;

/* Make room for n more bytes (moves p/end when the buffer moves). */
sbt_vk_status sbt_vk_e_grow(sbt_vk_e *e, size_t n);

static inline void sbt_vk_e_begin(sbt_vk_e *e, sbt_vk_enc *enc)
{
	e->enc = enc;
	/* An encoder that owns no buffer yet (data NULL, len = cap = 0):
	 * no arithmetic on NULL; sbt_vk_e_grow allocates. */
	e->p = enc->data ? enc->data + enc->len : NULL;
	e->end = enc->data ? enc->data + enc->cap : NULL;
	e->ctx = 0;
	e->parent = NULL;
	e->parent_id = 0;
	enc->skipped_pnext = 0;
}

static inline void sbt_vk_e_commit(sbt_vk_e *e)
{
	e->enc->len = (size_t)(e->p - e->enc->data);
}

static inline sbt_vk_status sbt_vk_e_need(sbt_vk_e *e, size_t n)
{
	if (SBT_VK_LIKELY((size_t)(e->end - e->p) >= n))
		return SBT_VK_OK;
	return sbt_vk_e_grow(e, n);
}

static inline sbt_vk_status sbt_vk_put_u(sbt_vk_e *e, uint64_t v)
{
	if (SBT_VK_UNLIKELY((size_t)(e->end - e->p) < 10) && sbt_vk_e_grow(e, 10))
		return SBT_VK_ERR_NOMEM;
	uint8_t *p = e->p;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	e->p = p;
	return SBT_VK_OK;
}

static inline sbt_vk_status sbt_vk_put_i(sbt_vk_e *e, int64_t v)
{
	return sbt_vk_put_u(e, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Unchecked forms, for after sbt_vk_e_need made room (10 bytes a varint):
 * generated encoders check once for a run of scalar members. */
static inline void sbt_vk_putq_u(sbt_vk_e *e, uint64_t v)
{
	uint8_t *p = e->p;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	e->p = p;
}

static inline void sbt_vk_putq_i(sbt_vk_e *e, int64_t v)
{
	sbt_vk_putq_u(e, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline sbt_vk_status sbt_vk_put_raw(sbt_vk_e *e, const void *src, size_t n)
{
	if (sbt_vk_e_need(e, n))
		return SBT_VK_ERR_NOMEM;
	if (n)
		memcpy(e->p, src, n);
	e->p += n;
	return SBT_VK_OK;
}

static inline sbt_vk_status sbt_vk_put_f32(sbt_vk_e *e, float v)
{
	return sbt_vk_put_raw(e, &v, 4);
}

static inline sbt_vk_status sbt_vk_put_f64(sbt_vk_e *e, double v)
{
	return sbt_vk_put_raw(e, &v, 8);
}

static inline sbt_vk_status sbt_vk_put_handle(sbt_vk_e *e, uint64_t v)
{
	return sbt_vk_put_u(e, v);
}

/* Pointer + count header: 0 for NULL, else count + 1. */
static inline sbt_vk_status sbt_vk_put_count(sbt_vk_e *e, const void *ptr, uint64_t n)
{
	return sbt_vk_put_u(e, ptr ? n + 1 : 0);
}

/* Plain-data array, inline or through the blob store. */
sbt_vk_status sbt_vk_put_rawarr_any(sbt_vk_e *e, const void *ptr, uint64_t count, size_t elsize);

/* Arrays of a few bytes (push constants, viewports, clear values) with
 * room already there are written here without a call; everything else
 * (NULL, blobs, growing the buffer) goes to sbt_vk_put_rawarr_any.  Same
 * wire form either way. */
#define SBT_VK_RAWARR_INLINE_MAX 256
static inline sbt_vk_status sbt_vk_put_rawarr(sbt_vk_e *e, const void *ptr, uint64_t count,
                                              size_t elsize)
{
	size_t bytes = (size_t)count * elsize;
	const sbt_vk_enc *enc = e->enc;
	if (SBT_VK_LIKELY(ptr && count <= SBT_VK_RAWARR_INLINE_MAX &&
	                  bytes <= SBT_VK_RAWARR_INLINE_MAX &&
	                  (size_t)(e->end - e->p) >= bytes + 1 + 10 &&
	                  !(enc->blob_put && enc->blob_threshold && bytes >= enc->blob_threshold))) {
		*e->p++ = 1;
		sbt_vk_putq_u(e, count);
		memcpy(e->p, ptr, bytes);
		e->p += bytes;
		return SBT_VK_OK;
	}
	return sbt_vk_put_rawarr_any(e, ptr, count, elsize);
}

/* A plain-data array whose elements lie stride bytes apart (vk.xml's
 * stride=), written packed: the same wire form as sbt_vk_put_rawarr. */
sbt_vk_status sbt_vk_put_rawarr_strided(sbt_vk_e *e, const void *ptr, uint64_t count,
                                        size_t elsize, size_t stride);

static inline sbt_vk_status sbt_vk_put_str(sbt_vk_e *e, const char *s)
{
	if (!s)
		return sbt_vk_put_u(e, 0);
	size_t n = strlen(s);
	if (sbt_vk_put_u(e, (uint64_t)n + 1))
		return SBT_VK_ERR_NOMEM;
	return sbt_vk_put_raw(e, s, n);
}

/* A char[max] array: its text up to the first NUL (or max bytes). */
static inline sbt_vk_status sbt_vk_put_fixstr(sbt_vk_e *e, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	if (sbt_vk_put_u(e, (uint64_t)n))
		return SBT_VK_ERR_NOMEM;
	return sbt_vk_put_raw(e, s, n);
}

static inline void sbt_vk_e_skipped(sbt_vk_e *e, VkStructureType st)
{
	e->enc->skipped_pnext++;
	e->enc->last_skipped_stype = st;
}

#define SBT_VK_ET(expr)                                                        \
	do {                                                                       \
		if (SBT_VK_UNLIKELY((expr) != SBT_VK_OK))                              \
			return SBT_VK_ERR_NOMEM;                                           \
	} while (0)

/* ---- decode arena ---------------------------------------------------------
 * Blocks of at least SBT_VK_BLOCK_MIN bytes, kept across resets; a reset
 * rewinds every block.  Defined here so that the decoders' common case (room
 * in the current block) is a few inline instructions. */

typedef struct sbt_vk_block {
	struct sbt_vk_block *next;
	size_t size; /* usable bytes after the header */
	size_t used;
} sbt_vk_block;

struct sbt_vk_arena {
	sbt_vk_block *head; /* blocks in use order; reset rewinds to head */
	sbt_vk_block *cur;
	size_t limit;
	size_t total; /* bytes handed out since reset */
	char msg[256];
	const char *unknown_field; /* the first unknown enum value of a decode */
	int64_t unknown_value;
	size_t template_len;       /* bytes of the last decode's template pData */
};

#define SBT_VK_BLOCK_HDR ((sizeof(sbt_vk_block) + 15) & ~(size_t)15)
#define SBT_VK_BLOCK_MIN ((size_t)64 * 1024)

/* n bytes (16-byte aligned, at least 1), NOT cleared: for callers that
 * overwrite all of them; NULL past the limit or out of memory. */
void *sbt_vk_arena_take(sbt_vk_arena *a, size_t n);

/* sbt_vk_arena_take when the current block has room (same bytes, same
 * accounting); the rest goes to sbt_vk_arena_take. */
static SBT_VK_ALWAYS_INLINE void *sbt_vk_arena_bump(sbt_vk_arena *a, size_t n)
{
	size_t rounded = (n + 15) & ~(size_t)15;
	sbt_vk_block *b = a ? a->cur : NULL;
	if (SBT_VK_LIKELY(b && n && rounded >= n && rounded <= a->limit - a->total &&
	                  b->size - b->used >= rounded)) {
		uint8_t *p = (uint8_t *)b + SBT_VK_BLOCK_HDR + b->used;
		b->used += rounded;
		a->total += rounded;
		return p;
	}
	return sbt_vk_arena_take(a, n);
}

/* ---- decoding ------------------------------------------------------------ */

typedef struct sbt_vk_d {
	const uint8_t *p;
	const uint8_t *end;
	const uint8_t *start;
	sbt_vk_arena *a;
	const sbt_vk_decode_hooks *h;
} sbt_vk_d;

/* Start decoding [p, p + len) into a (clears its message). */
static inline void sbt_vk_d_start(sbt_vk_d *d, const uint8_t *p, size_t len, sbt_vk_arena *a,
                                  const sbt_vk_decode_hooks *h)
{
	d->p = p;
	d->end = p + len;
	d->start = p;
	d->a = a;
	d->h = h;
	if (a) {
		a->msg[0] = '\0';
		a->unknown_field = NULL;
		a->template_len = 0;
	}
}

/* Record the first failure (field names the struct and member) in the
 * arena's message; returns st. */
sbt_vk_status sbt_vk_d_fail(sbt_vk_d *d, sbt_vk_status st, const char *field);

#define SBT_VK_DT(expr, field)                                                 \
	do {                                                                       \
		sbt_vk_status sbt_vk_st_ = (expr);                                     \
		if (SBT_VK_UNLIKELY(sbt_vk_st_ != SBT_VK_OK))                          \
			return sbt_vk_d_fail(d, sbt_vk_st_, field);                        \
	} while (0)

/* A varint of more than one byte, or an error (*v untouched then). */
sbt_vk_status sbt_vk_get_u_more(sbt_vk_d *d, uint64_t *v);

/* One-byte varints (counts, flags, small enums) inline; the rest, handles
 * among them, in sbt_vk_get_u_more. */
static inline sbt_vk_status sbt_vk_get_u(sbt_vk_d *d, uint64_t *v)
{
	const uint8_t *p = d->p;
	if (SBT_VK_LIKELY(p < d->end && *p < 0x80)) {
		*v = *p;
		d->p = p + 1;
		return SBT_VK_OK;
	}
	return sbt_vk_get_u_more(d, v);
}

static inline sbt_vk_status sbt_vk_get_i(sbt_vk_d *d, int64_t *v)
{
	uint64_t u;
	sbt_vk_status st = sbt_vk_get_u(d, &u);
	if (st)
		return st;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return SBT_VK_OK;
}

static inline sbt_vk_status sbt_vk_get_ubits(sbt_vk_d *d, uint64_t *v, unsigned bits)
{
	sbt_vk_status st = sbt_vk_get_u(d, v);
	if (st)
		return st;
	if (bits < 64 && (*v >> bits))
		return SBT_VK_ERR_CORRUPT;
	return SBT_VK_OK;
}

static inline sbt_vk_status sbt_vk_get_ibits(sbt_vk_d *d, int64_t *v, unsigned bits)
{
	sbt_vk_status st = sbt_vk_get_i(d, v);
	if (st)
		return st;
	if (bits < 64) {
		int64_t lim = (int64_t)1 << (bits - 1);
		if (*v < -lim || *v >= lim)
			return SBT_VK_ERR_CORRUPT;
	}
	return SBT_VK_OK;
}

static inline sbt_vk_status sbt_vk_get_raw(sbt_vk_d *d, void *dst, size_t n)
{
	if ((size_t)(d->end - d->p) < n)
		return SBT_VK_ERR_TRUNCATED;
	if (n)
		memcpy(dst, d->p, n);
	d->p += n;
	return SBT_VK_OK;
}

static inline sbt_vk_status sbt_vk_get_f32(sbt_vk_d *d, float *v)
{
	return sbt_vk_get_raw(d, v, 4);
}

static inline sbt_vk_status sbt_vk_get_f64(sbt_vk_d *d, double *v)
{
	return sbt_vk_get_raw(d, v, 8);
}

/* A handle; in: an input handle, translated through the map. */
static inline sbt_vk_status sbt_vk_get_handle(sbt_vk_d *d, uint64_t *v, VkObjectType type, int in)
{
	sbt_vk_status st = sbt_vk_get_u(d, v);
	if (SBT_VK_UNLIKELY(st != SBT_VK_OK))
		return st;
	if (in && *v && d->h && d->h->map_handle) {
		uint64_t live = 0;
		st = d->h->map_handle(d->h->ctx, type, *v, &live);
		if (st != SBT_VK_OK)
			return st;
		*v = live;
	}
	return SBT_VK_OK;
}

/* An enum value vk.xml does not name: passed on, the first one noted. */
/* A negative value vk.xml does not name, in a field other than a
 * command's VkResult (".ret"): no Vulkan version defines one, and the
 * replay refuses it, so it is kept in place of a harmless unknown value
 * met earlier in the same record. */
static inline int sbt_vk_d_enum_refused(const char *field, int64_t v)
{
	size_t n;
	if (v >= 0)
		return 0;
	n = strlen(field);
	return n < 4 || strcmp(field + n - 4, ".ret") != 0;
}

/* Keeps the record's first unknown enum value, or its first refused one
 * (above) when it has one. */
static inline void sbt_vk_d_unknown_enum(sbt_vk_d *d, const char *field, int64_t v)
{
	if (d->a && (!d->a->unknown_field ||
	             (sbt_vk_d_enum_refused(field, v) &&
	              !sbt_vk_d_enum_refused(d->a->unknown_field, d->a->unknown_value)))) {
		d->a->unknown_field = field;
		d->a->unknown_value = v;
	}
}

/* Pointer + count header.  *n_out = count (0 for NULL), *present_out;
 * refuses counts that the remaining payload cannot hold when each element
 * takes at least min_wire bytes. */
sbt_vk_status sbt_vk_get_count(sbt_vk_d *d, uint64_t *n_out, int *present_out,
                               size_t min_wire);

/* n * size zeroed arena bytes (at least 1 so a present empty array is not
 * NULL); SBT_VK_ERR_LIMIT past the arena limit. */
sbt_vk_status sbt_vk_d_alloc(sbt_vk_d *d, uint64_t n, size_t size, void **out);

/* Plain-data array (wire form above).  Inline arrays are copied into
 * arena bytes; blob-backed ones come from the load_blob hook. */
sbt_vk_status sbt_vk_get_rawarr_any(sbt_vk_d *d, void **out, uint64_t *count_out,
                                    int *present_out, size_t elsize);

/* sbt_vk_get_rawarr_any with its common case inline: an inline array of
 * fewer than 128 elements (tag and count one byte each) whose bytes are
 * there and fit the current arena block.  Anything else, errors included,
 * is decoded by sbt_vk_get_rawarr_any from the same position.  Arrays of up
 * to 16 bytes (push constants, a viewport, clear values) with 16 payload
 * bytes left are copied as 16 bytes: two instructions instead of a call to
 * memcpy; the arena gives at least 16 bytes (not cleared: the extra ones
 * are no one's). */
static SBT_VK_ALWAYS_INLINE sbt_vk_status sbt_vk_get_rawarr(sbt_vk_d *d, void **out,
                                                            uint64_t *count_out,
                                                            int *present_out, size_t elsize)
{
	const uint8_t *p = d->p;
	if (SBT_VK_LIKELY(d->end - p >= 2 && p[0] == 1 && p[1] < 0x80)) {
		size_t count = p[1];
		size_t bytes = count * elsize;
		size_t avail = (size_t)(d->end - p) - 2;
		if (avail >= bytes) {
			void *dst = sbt_vk_arena_bump(d->a, bytes);
			if (dst) {
				if (bytes <= 16 && avail >= 16)
					memcpy(dst, p + 2, 16);
				else
					memcpy(dst, p + 2, bytes);
				d->p = p + 2 + bytes;
				*out = dst;
				*count_out = count;
				*present_out = 1;
				return SBT_VK_OK;
			}
		}
	}
	return sbt_vk_get_rawarr_any(d, out, count_out, present_out, elsize);
}

sbt_vk_status sbt_vk_get_str(sbt_vk_d *d, const char **out);
sbt_vk_status sbt_vk_get_fixstr(sbt_vk_d *d, char *dst, size_t max);

/* ---- formatting (tsinfo --dump) ---------------------------------------- */

struct sbt_dump_emit;
/* An array the decoder left in a blob: the dump's load_blob hook hands out
 * a placeholder address (never read) and notes which blob it stands for. */
typedef struct sbt_vk_pr_blob_ref {
	const void *at; /* the placeholder */
	uint64_t id;
	size_t len;
} sbt_vk_pr_blob_ref;

typedef struct sbt_vk_pr {
	struct sbt_dump_emit *em;
	char key[256];
	size_t len;     /* of the current key prefix */
	int overflow;   /* key too long: deeper fields are not shown */
	const sbt_vk_pr_blob_ref *blobs; /* this record's blob arrays */
	size_t nblobs;
	size_t max_elems; /* elements shown of each array (SBT_VK_PR_MAX_ELEMS) */
} sbt_vk_pr;

/* Key = current prefix + suffix (".member", "[3]"); pop restores. */
size_t sbt_vk_pr_push(sbt_vk_pr *pr, const char *suffix);
/* Descend into member m ("" stays at the current key); returns the mark. */
size_t sbt_vk_pr_enter(sbt_vk_pr *pr, const char *m);
size_t sbt_vk_pr_pushi(sbt_vk_pr *pr, uint64_t index);
static inline void sbt_vk_pr_pop(sbt_vk_pr *pr, size_t mark)
{
	pr->len = mark;
	pr->key[mark] = '\0';
}
void sbt_vk_pr_u(sbt_vk_pr *pr, const char *m, uint64_t v);
void sbt_vk_pr_i(sbt_vk_pr *pr, const char *m, int64_t v);
void sbt_vk_pr_x(sbt_vk_pr *pr, const char *m, uint64_t v);
void sbt_vk_pr_f(sbt_vk_pr *pr, const char *m, double v);
void sbt_vk_pr_s(sbt_vk_pr *pr, const char *m, const char *s, size_t n);
void sbt_vk_pr_e(sbt_vk_pr *pr, const char *m, const char *name, int64_t v);
void sbt_vk_pr_bytes(sbt_vk_pr *pr, const char *m, const void *p, size_t n);
void sbt_vk_pr_null(sbt_vk_pr *pr, const char *m);
/* One named value of a FlagBits enum (the generated tables). */
typedef struct sbt_vk_flag_bit {
	uint64_t value;
	const char *name;
} sbt_vk_flag_bit;
/* Flags v: hex in text; in JSON the names of its single-bit values of
 * bits[0..n) and the raw value. */
void sbt_vk_pr_flags(sbt_vk_pr *pr, const char *m, const sbt_vk_flag_bit *bits, size_t n,
                     uint64_t v);
/* A handle of type type ("VkBuffer"): hex in text, an id in JSON. */
void sbt_vk_pr_h(sbt_vk_pr *pr, const char *m, const char *type, uint64_t v);
/* An API version (VK_MAKE_API_VERSION) as "1.3.239". */
void sbt_vk_pr_ver(sbt_vk_pr *pr, const char *m, uint32_t v);
/* When p is a blob placeholder, show member m as the blob's reference and
 * return 1; else 0 (p is real data, to be shown as usual). */
int sbt_vk_pr_blob(sbt_vk_pr *pr, const char *m, const void *p);
/* Print a decoded argument struct of cmd (generated, sbt_vk_dump.c). */
void sbt_vk_print_args(sbt_vk_pr *pr, enum sbt_vk_cmd cmd, const void *args);
/* Arrays show at most this many elements (and always their count): the
 * dump options' max_elements (text 8, JSON all by default).  The
 * generated printers name it inside functions that have pr. */
#define SBT_VK_PR_MAX_ELEMS (pr->max_elems)

#endif /* TRACESMITH_SBT_VK_INTERNAL_H */
