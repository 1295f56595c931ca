/*
 * sbt_vk.c - the hand-written runtime of the Vulkan call codec: buffers,
 * the decode arena, checked primitives the generated code calls, the
 * front-end record kinds, and the dump helpers.  The per-command and
 * per-struct code is generated into serializer/generated/.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_dump.h"
#include "serializer/sbt_vk_internal.h"

static const char *const sbt_vk_status_msgs[] = {
#define SBT_VK_X_MSG(name, msg) msg,
	SBT_VK_STATUS_LIST(SBT_VK_X_MSG)
#undef SBT_VK_X_MSG
};

const char *sbt_vk_strerror(sbt_vk_status st)
{
	if ((unsigned)st >= SBT_VK_STATUS_COUNT)
		return "unknown status";
	return sbt_vk_status_msgs[st];
}

/* ---- encoder buffer ------------------------------------------------------ */

void sbt_vk_enc_init(sbt_vk_enc *e)
{
	memset(e, 0, sizeof(*e));
}

void sbt_vk_enc_free(sbt_vk_enc *e)
{
	if (!e)
		return;
	free(e->data);
	e->data = NULL;
	e->len = 0;
	e->cap = 0;
}

sbt_vk_status sbt_vk_e_grow(sbt_vk_e *e, size_t n)
{
	sbt_vk_enc *enc = e->enc;
	size_t used = enc->data ? (size_t)(e->p - enc->data) : 0;
	size_t need = used + n;
	if (need < used)
		return SBT_VK_ERR_NOMEM;
	size_t cap = enc->cap ? enc->cap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return SBT_VK_ERR_NOMEM;
		cap *= 2;
	}
	uint8_t *nd = realloc(enc->data, cap);
	if (!nd)
		return SBT_VK_ERR_NOMEM;
	enc->data = nd;
	enc->cap = cap;
	e->p = nd + used;
	e->end = nd + cap;
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_put_rawarr_any(sbt_vk_e *e, const void *ptr, uint64_t count, size_t elsize)
{
	if (!ptr)
		return sbt_vk_put_u(e, 0);
	size_t bytes = (size_t)count * elsize;
	sbt_vk_enc *enc = e->enc;
	if (enc->blob_put && enc->blob_threshold && bytes >= enc->blob_threshold) {
		uint64_t id = 0;
		if (enc->blob_put(enc->blob_ctx, ptr, bytes, &id) == 0) {
			SBT_VK_ET(sbt_vk_put_u(e, 2));
			SBT_VK_ET(sbt_vk_put_u(e, count));
			return sbt_vk_put_u(e, id);
		}
		/* The blob store refused: keep the bytes inline rather than lose them. */
	}
	SBT_VK_ET(sbt_vk_put_u(e, 1));
	SBT_VK_ET(sbt_vk_put_u(e, count));
	return sbt_vk_put_raw(e, ptr, bytes);
}

sbt_vk_status sbt_vk_put_rawarr_strided(sbt_vk_e *e, const void *ptr, uint64_t count,
                                        size_t elsize, size_t stride)
{
	uint8_t small[256], *packed;
	size_t bytes;
	sbt_vk_status st;
	if (!ptr || !count || stride == elsize)
		return sbt_vk_put_rawarr(e, ptr, count, elsize);
	/* a stride under the element's size (invalid usage) overlaps
	 * elements: gathered all the same, as the driver would read them;
	 * the blob store copies the packed bytes at once (cap_blob) */
	if (count > SIZE_MAX / elsize)
		return SBT_VK_ERR_NOMEM;
	bytes = (size_t)count * elsize;
	packed = bytes <= sizeof(small) ? small : malloc(bytes);
	if (!packed)
		return SBT_VK_ERR_NOMEM;
	for (uint64_t i = 0; i < count; i++)
		memcpy(packed + i * elsize, (const uint8_t *)ptr + i * stride, elsize);
	st = sbt_vk_put_rawarr(e, packed, count, elsize);
	if (packed != small)
		free(packed);
	return st;
}

/* ---- arena --------------------------------------------------------------- */

/* The arena's layout is in sbt_vk_internal.h (its fast path is inline). */

sbt_vk_status sbt_vk_arena_create(size_t limit_bytes, sbt_vk_arena **out)
{
	if (!out)
		return SBT_VK_ERR_ARG;
	sbt_vk_arena *a = calloc(1, sizeof(*a));
	if (!a)
		return SBT_VK_ERR_NOMEM;
	a->limit = limit_bytes ? limit_bytes : (size_t)256 << 20;
	*out = a;
	return SBT_VK_OK;
}

void sbt_vk_arena_reset(sbt_vk_arena *a)
{
	if (!a)
		return;
	for (sbt_vk_block *b = a->head; b; b = b->next)
		b->used = 0;
	a->cur = a->head;
	a->total = 0;
	a->msg[0] = '\0';
}

void sbt_vk_arena_free(sbt_vk_arena *a)
{
	if (!a)
		return;
	sbt_vk_block *b = a->head;
	while (b) {
		sbt_vk_block *n = b->next;
		free(b);
		b = n;
	}
	free(a);
}

void *sbt_vk_arena_take(sbt_vk_arena *a, size_t n)
{
	if (!a)
		return NULL;
	if (n == 0)
		n = 1;
	size_t rounded = (n + 15) & ~(size_t)15;
	if (rounded < n || rounded > a->limit - a->total)
		return NULL;
	/* Walk the kept blocks first (after a reset they are all empty). */
	while (a->cur && a->cur->size - a->cur->used < rounded)
		a->cur = a->cur->next;
	if (!a->cur) {
		size_t size = rounded > SBT_VK_BLOCK_MIN ? rounded : SBT_VK_BLOCK_MIN;
		sbt_vk_block *b = malloc(SBT_VK_BLOCK_HDR + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = NULL;
		/* Append at the tail so reset keeps the order blocks were made in. */
		sbt_vk_block **tail = &a->head;
		while (*tail)
			tail = &(*tail)->next;
		*tail = b;
		a->cur = b;
	}
	uint8_t *p = (uint8_t *)a->cur + SBT_VK_BLOCK_HDR + a->cur->used;
	a->cur->used += rounded;
	a->total += rounded;
	return p;
}

void *sbt_vk_arena_alloc(sbt_vk_arena *a, size_t n)
{
	void *p = sbt_vk_arena_bump(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

const char *sbt_vk_arena_message(const sbt_vk_arena *a)
{
	return a ? a->msg : "";
}

int sbt_vk_arena_unknown_enum(const sbt_vk_arena *a, const char **field_out, int64_t *value_out)
{
	if (!a || !a->unknown_field)
		return 0;
	*field_out = a->unknown_field;
	*value_out = a->unknown_value;
	return 1;
}

size_t sbt_vk_arena_template_len(const sbt_vk_arena *a)
{
	return a ? a->template_len : 0;
}

/* ---- formats --------------------------------------------------------------- */

_Static_assert(VK_FORMAT_R4G4_UNORM_PACK8 == 1 && VK_FORMAT_E5B9G9R9_UFLOAT_PACK32 == 123 &&
               VK_FORMAT_D16_UNORM == 124 && VK_FORMAT_D16_UNORM_S8_UINT == 128 &&
               VK_FORMAT_D32_SFLOAT_S8_UINT == 130 && VK_FORMAT_BC1_RGB_UNORM_BLOCK == 131 &&
               VK_FORMAT_ASTC_12x12_SRGB_BLOCK == 184,
               "the core format numbering sbt_vk_format_aspects follows");

VkImageAspectFlags sbt_vk_format_aspects(VkFormat f)
{
	if (f >= VK_FORMAT_R4G4_UNORM_PACK8 && f <= VK_FORMAT_E5B9G9R9_UFLOAT_PACK32)
		return VK_IMAGE_ASPECT_COLOR_BIT;
	if (f == VK_FORMAT_D16_UNORM || f == VK_FORMAT_X8_D24_UNORM_PACK32 || f == VK_FORMAT_D32_SFLOAT)
		return VK_IMAGE_ASPECT_DEPTH_BIT;
	if (f == VK_FORMAT_S8_UINT)
		return VK_IMAGE_ASPECT_STENCIL_BIT;
	if (f >= VK_FORMAT_D16_UNORM_S8_UINT && f <= VK_FORMAT_D32_SFLOAT_S8_UINT)
		return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
	if (f >= VK_FORMAT_BC1_RGB_UNORM_BLOCK && f <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK)
		return VK_IMAGE_ASPECT_COLOR_BIT;
	return 0;
}

/* ---- decoding primitives ------------------------------------------------- */

sbt_vk_status sbt_vk_d_fail(sbt_vk_d *d, sbt_vk_status st, const char *field)
{
	if (d->a && d->a->msg[0] == '\0')
		snprintf(d->a->msg, sizeof(d->a->msg), "%s: %s at payload byte %zu of %zu", field,
		         sbt_vk_strerror(st), (size_t)(d->p - d->start),
		         (size_t)(d->end - d->start));
	return st;
}

sbt_vk_status sbt_vk_get_u_more(sbt_vk_d *d, uint64_t *v)
{
	const uint8_t *p = d->p;
	uint64_t r = 0;
	unsigned shift = 0;
	/* Up to 8 bytes at once (handles are 6-7 bytes); the loop below gives
	 * the same value for those and is what decides everything else. */
	if (p < d->end && (size_t)(d->end - p) >= 8) {
		size_t n = sbt_varint_peek8_word(p, v);
		if (n) {
			d->p = p + n;
			return SBT_VK_OK;
		}
	}
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

sbt_vk_status sbt_vk_get_count(sbt_vk_d *d, uint64_t *n_out, int *present_out, size_t min_wire)
{
	uint64_t v;
	sbt_vk_status st = sbt_vk_get_u(d, &v);
	if (st)
		return st;
	if (v == 0) {
		*n_out = 0;
		*present_out = 0;
		return SBT_VK_OK;
	}
	v -= 1;
	if (min_wire && v > (uint64_t)(d->end - d->p) / min_wire)
		return SBT_VK_ERR_TRUNCATED;
	*n_out = v;
	*present_out = 1;
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_d_alloc(sbt_vk_d *d, uint64_t n, size_t size, void **out)
{
	if (size && n > SIZE_MAX / size)
		return SBT_VK_ERR_LIMIT;
	void *p = sbt_vk_arena_alloc(d->a, (size_t)n * size);
	if (!p)
		return SBT_VK_ERR_LIMIT;
	*out = p;
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_get_rawarr_any(sbt_vk_d *d, void **out, uint64_t *count_out,
                                    int *present_out, size_t elsize)
{
	uint64_t tag, count;
	sbt_vk_status st = sbt_vk_get_u(d, &tag);
	if (st)
		return st;
	*out = NULL;
	*count_out = 0;
	*present_out = 0;
	if (tag == 0)
		return SBT_VK_OK;
	if (tag > 2)
		return SBT_VK_ERR_CORRUPT;
	if ((st = sbt_vk_get_u(d, &count)))
		return st;
	if (elsize && count > SIZE_MAX / elsize)
		return SBT_VK_ERR_CORRUPT;
	size_t bytes = (size_t)count * elsize;
	*count_out = count;
	*present_out = 1;
	if (tag == 1) {
		if ((size_t)(d->end - d->p) < bytes)
			return SBT_VK_ERR_TRUNCATED;
		/* every byte is copied over: no need to clear them first */
		void *dst = sbt_vk_arena_bump(d->a, bytes);
		if (!dst)
			return SBT_VK_ERR_LIMIT;
		memcpy(dst, d->p, bytes);
		d->p += bytes;
		*out = dst;
		return SBT_VK_OK;
	}
	uint64_t id;
	if ((st = sbt_vk_get_u(d, &id)))
		return st;
	if (!d->h || !d->h->load_blob)
		return SBT_VK_OK; /* absent: a dump shows the size */
	const void *data = NULL;
	if ((st = d->h->load_blob(d->h->ctx, id, bytes, &data)))
		return st;
	if (!data && bytes)
		return SBT_VK_ERR_BLOB;
	*out = (void *)(uintptr_t)data;
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_get_str(sbt_vk_d *d, const char **out)
{
	uint64_t v;
	sbt_vk_status st = sbt_vk_get_u(d, &v);
	if (st)
		return st;
	if (v == 0) {
		*out = NULL;
		return SBT_VK_OK;
	}
	v -= 1;
	if (v > (uint64_t)(d->end - d->p))
		return SBT_VK_ERR_TRUNCATED;
	char *s;
	if ((st = sbt_vk_d_alloc(d, 1, (size_t)v + 1, (void **)&s)))
		return st;
	memcpy(s, d->p, (size_t)v);
	s[v] = '\0';
	d->p += v;
	*out = s;
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_get_fixstr(sbt_vk_d *d, char *dst, size_t max)
{
	uint64_t n;
	sbt_vk_status st = sbt_vk_get_u(d, &n);
	if (st)
		return st;
	/* the encoder writes strnlen(s, max): a string that fills its array
	 * has no terminator, and no valid call passes one */
	if (n >= max)
		return SBT_VK_ERR_CORRUPT;
	if (n > (uint64_t)(d->end - d->p))
		return SBT_VK_ERR_TRUNCATED;
	memcpy(dst, d->p, (size_t)n);
	if (n < max)
		memset(dst + n, 0, max - (size_t)n);
	d->p += n;
	return SBT_VK_OK;
}

/* ---- front-end records --------------------------------------------------- */

sbt_vk_status sbt_vk_ts_memory_write_encode(sbt_vk_enc *enc, const sbt_vk_ts_memory_write *w)
{
	if (!enc || !w)
		return SBT_VK_ERR_ARG;
	sbt_vk_e e;
	sbt_vk_e_begin(&e, enc);
	SBT_VK_ET(sbt_vk_put_u(&e, w->memory));
	SBT_VK_ET(sbt_vk_put_u(&e, w->offset));
	SBT_VK_ET(sbt_vk_put_u(&e, w->size));
	SBT_VK_ET(sbt_vk_put_u(&e, w->blob_id));
	sbt_vk_e_commit(&e);
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_ts_memory_write_decode(const uint8_t *p, size_t len,
                                            sbt_vk_ts_memory_write *out)
{
	if (!out || (!p && len))
		return SBT_VK_ERR_ARG;
	sbt_vk_d d = {p, p + len, p, NULL, NULL};
	sbt_vk_status st;
	if ((st = sbt_vk_get_u(&d, &out->memory)) || (st = sbt_vk_get_u(&d, &out->offset)) ||
	    (st = sbt_vk_get_u(&d, &out->size)) || (st = sbt_vk_get_u(&d, &out->blob_id)))
		return st;
	return d.p == d.end ? SBT_VK_OK : SBT_VK_ERR_CORRUPT;
}

sbt_vk_status sbt_vk_ts_memory_writes_encode(sbt_vk_enc *enc, uint64_t memory, uint64_t blob_id,
                                             const uint64_t (*runs)[2], size_t count)
{
	uint64_t pos = 0;
	if (!enc || !runs || !count)
		return SBT_VK_ERR_ARG;
	for (size_t k = 0; k < count; k++) {
		if (!runs[k][1] || runs[k][0] < pos || runs[k][1] > UINT64_MAX - runs[k][0])
			return SBT_VK_ERR_ARG;
		pos = runs[k][0] + runs[k][1];
	}
	sbt_vk_e e;
	sbt_vk_e_begin(&e, enc);
	SBT_VK_ET(sbt_vk_put_u(&e, memory));
	SBT_VK_ET(sbt_vk_put_u(&e, blob_id));
	SBT_VK_ET(sbt_vk_put_u(&e, count));
	pos = 0;
	for (size_t k = 0; k < count; k++) {
		SBT_VK_ET(sbt_vk_put_u(&e, runs[k][0] - pos));
		SBT_VK_ET(sbt_vk_put_u(&e, runs[k][1]));
		pos = runs[k][0] + runs[k][1];
	}
	sbt_vk_e_commit(&e);
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_ts_memory_writes_decode(const uint8_t *p, size_t len,
                                             sbt_vk_ts_memory_writes *out)
{
	if (!out || (!p && len))
		return SBT_VK_ERR_ARG;
	sbt_vk_d d = {p, p + len, p, NULL, NULL};
	uint64_t pos = 0, bytes = 0, gap, size;
	sbt_vk_status st;
	if ((st = sbt_vk_get_u(&d, &out->memory)) || (st = sbt_vk_get_u(&d, &out->blob_id)) ||
	    (st = sbt_vk_get_u(&d, &out->count)))
		return st;
	if (!out->count || out->count > (uint64_t)(d.end - d.p) / 2)
		return out->count ? SBT_VK_ERR_TRUNCATED : SBT_VK_ERR_CORRUPT;
	out->runs = d.p;
	for (uint64_t k = 0; k < out->count; k++) {
		if ((st = sbt_vk_get_u(&d, &gap)) || (st = sbt_vk_get_u(&d, &size)))
			return st;
		if (!size || gap > UINT64_MAX - pos || size > UINT64_MAX - pos - gap)
			return SBT_VK_ERR_CORRUPT;
		if (!k)
			out->lo = pos + gap;
		pos += gap + size;
		bytes += size; /* <= pos: cannot wrap */
	}
	if (d.p != d.end)
		return SBT_VK_ERR_CORRUPT;
	out->runs_len = (size_t)(d.p - out->runs);
	out->bytes = bytes;
	out->hi = pos;
	return SBT_VK_OK;
}

void sbt_vk_ts_run_iter_init(sbt_vk_ts_run_iter *it, const sbt_vk_ts_memory_writes *w)
{
	it->p = w->runs;
	it->end = w->runs + w->runs_len;
	it->pos = 0;
	it->blob_pos = 0;
}

int sbt_vk_ts_run_iter_next(sbt_vk_ts_run_iter *it, uint64_t *offset_out, uint64_t *size_out,
                            uint64_t *blob_pos_out)
{
	/* the payload was checked whole by the decode */
	sbt_vk_d d = {it->p, it->end, it->p, NULL, NULL};
	uint64_t gap, size;
	if (it->p >= it->end || sbt_vk_get_u(&d, &gap) || sbt_vk_get_u(&d, &size))
		return 0;
	it->p = d.p;
	*offset_out = it->pos + gap;
	*size_out = size;
	*blob_pos_out = it->blob_pos;
	it->pos += gap + size;
	it->blob_pos += size;
	return 1;
}

sbt_vk_status sbt_vk_ts_result_encode(sbt_vk_enc *enc, const sbt_vk_ts_result *r)
{
	if (!enc || !r || (!r->outputs && r->outputs_len))
		return SBT_VK_ERR_ARG;
	sbt_vk_e e;
	sbt_vk_e_begin(&e, enc);
	SBT_VK_ET(sbt_vk_put_u(&e, r->seq));
	SBT_VK_ET(sbt_vk_put_i(&e, (int64_t)r->result));
	SBT_VK_ET(sbt_vk_put_raw(&e, r->outputs, r->outputs_len));
	sbt_vk_e_commit(&e);
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_ts_result_decode(const uint8_t *p, size_t len, sbt_vk_ts_result *out)
{
	if (!out || (!p && len))
		return SBT_VK_ERR_ARG;
	sbt_vk_d d = {p, p + len, p, NULL, NULL};
	int64_t res;
	sbt_vk_status st;
	if ((st = sbt_vk_get_u(&d, &out->seq)) || (st = sbt_vk_get_ibits(&d, &res, 32)))
		return st;
	out->result = (VkResult)res;
	out->outputs = d.p;
	out->outputs_len = (size_t)(d.end - d.p);
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_ts_query_results_encode(sbt_vk_enc *enc, const sbt_vk_ts_query_results *q)
{
	if (!enc || !q || !q->count || q->stride < 8 || q->stride % 8 || !q->bytes ||
	    q->len != (size_t)q->count * q->stride)
		return SBT_VK_ERR_ARG;
	sbt_vk_e e;
	sbt_vk_e_begin(&e, enc);
	SBT_VK_ET(sbt_vk_put_u(&e, q->pool));
	SBT_VK_ET(sbt_vk_put_u(&e, q->first));
	SBT_VK_ET(sbt_vk_put_u(&e, q->count));
	SBT_VK_ET(sbt_vk_put_u(&e, q->flags));
	SBT_VK_ET(sbt_vk_put_u(&e, q->stride));
	SBT_VK_ET(sbt_vk_put_raw(&e, q->bytes, q->len));
	sbt_vk_e_commit(&e);
	return SBT_VK_OK;
}

sbt_vk_status sbt_vk_ts_query_results_decode(const uint8_t *p, size_t len,
                                             sbt_vk_ts_query_results *out)
{
	if (!out || (!p && len))
		return SBT_VK_ERR_ARG;
	sbt_vk_d d = {p, p + len, p, NULL, NULL};
	uint64_t v[4], rest;
	sbt_vk_status st;
	if ((st = sbt_vk_get_u(&d, &out->pool)) || (st = sbt_vk_get_u(&d, &v[0])) ||
	    (st = sbt_vk_get_u(&d, &v[1])) || (st = sbt_vk_get_u(&d, &v[2])) ||
	    (st = sbt_vk_get_u(&d, &v[3])))
		return st;
	if (v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX ||
	    !v[1] || v[3] < 8 || v[3] % 8)
		return SBT_VK_ERR_CORRUPT;
	rest = (uint64_t)(d.end - d.p);
	if (rest / v[3] < v[1])
		return SBT_VK_ERR_TRUNCATED;
	if (rest != v[1] * v[3])
		return SBT_VK_ERR_CORRUPT;
	out->first = (uint32_t)v[0];
	out->count = (uint32_t)v[1];
	out->flags = (uint32_t)v[2];
	out->stride = (uint32_t)v[3];
	out->bytes = d.p;
	out->len = (size_t)rest;
	return SBT_VK_OK;
}

/* ---- formatting ---------------------------------------------------------- */

size_t sbt_vk_pr_push(sbt_vk_pr *pr, const char *suffix)
{
	size_t mark = pr->len;
	size_t n = strlen(suffix);
	if (pr->len + n + 1 > sizeof(pr->key)) {
		pr->overflow = 1;
		return mark;
	}
	memcpy(pr->key + pr->len, suffix, n + 1);
	pr->len += n;
	return mark;
}

size_t sbt_vk_pr_enter(sbt_vk_pr *pr, const char *m)
{
	if (m[0] == '\0')
		return pr->len;
	if (pr->len == 0)
		return sbt_vk_pr_push(pr, m);
	size_t mark = sbt_vk_pr_push(pr, ".");
	if (pr->overflow)
		return mark;
	sbt_vk_pr_push(pr, m);
	return mark;
}

size_t sbt_vk_pr_pushi(sbt_vk_pr *pr, uint64_t index)
{
	char tmp[32];
	snprintf(tmp, sizeof(tmp), "[%" PRIu64 "]", index);
	return sbt_vk_pr_push(pr, tmp);
}

/* The full key of member m under the current prefix, in buf. */
static const char *sbt_vk_pr_key(sbt_vk_pr *pr, const char *m, char *buf, size_t cap)
{
	if (pr->len == 0)
		snprintf(buf, cap, "%s", m);
	else if (m[0] == '\0')
		snprintf(buf, cap, "%s", pr->key);
	else
		snprintf(buf, cap, "%s.%s", pr->key, m);
	return buf;
}

void sbt_vk_pr_u(sbt_vk_pr *pr, const char *m, uint64_t v)
{
	char k[320];
	sbt_dump_emit_u64(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), v);
}

void sbt_vk_pr_i(sbt_vk_pr *pr, const char *m, int64_t v)
{
	char k[320], t[32];
	if (v >= 0) {
		sbt_vk_pr_u(pr, m, (uint64_t)v);
		return;
	}
	int n = snprintf(t, sizeof(t), "%" PRId64, v);
	sbt_dump_emit_num(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), t, (size_t)n);
}

void sbt_vk_pr_x(sbt_vk_pr *pr, const char *m, uint64_t v)
{
	char k[320];
	sbt_dump_emit_hex64(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), v);
}

void sbt_vk_pr_f(sbt_vk_pr *pr, const char *m, double v)
{
	char k[320], t[40];
	int n = snprintf(t, sizeof(t), "%.9g", v);
	sbt_dump_emit_num(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), t, (size_t)n);
}

void sbt_vk_pr_s(sbt_vk_pr *pr, const char *m, const char *s, size_t n)
{
	char k[320];
	sbt_dump_emit_str(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), s, n);
}

void sbt_vk_pr_e(sbt_vk_pr *pr, const char *m, const char *name, int64_t v)
{
	if (name)
		sbt_vk_pr_s(pr, m, name, strlen(name));
	else
		sbt_vk_pr_i(pr, m, v);
}

void sbt_vk_pr_bytes(sbt_vk_pr *pr, const char *m, const void *p, size_t n)
{
	char k[320];
	sbt_dump_emit_bytes(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), p, n, 32);
}

void sbt_vk_pr_null(sbt_vk_pr *pr, const char *m)
{
	char k[320];
	sbt_dump_emit_null(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)));
}

void sbt_vk_pr_h(sbt_vk_pr *pr, const char *m, const char *type, uint64_t v)
{
	char k[320];
	sbt_dump_emit_handle(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), type, v);
}

void sbt_vk_pr_flags(sbt_vk_pr *pr, const char *m, const sbt_vk_flag_bit *bits, size_t n,
                     uint64_t v)
{
	char k[320];
	const char *names[64];
	size_t count = 0;
	for (size_t i = 0; i < n && count < 64; i++)
		if (bits[i].value && !(bits[i].value & (bits[i].value - 1)) && (v & bits[i].value))
			names[count++] = bits[i].name;
	sbt_dump_emit_flags(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), names, count, v);
}

void sbt_vk_pr_ver(sbt_vk_pr *pr, const char *m, uint32_t v)
{
	char k[320];
	sbt_dump_emit_version(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), v);
}

int sbt_vk_pr_blob(sbt_vk_pr *pr, const char *m, const void *p)
{
	for (size_t i = 0; i < pr->nblobs; i++) {
		if (pr->blobs[i].at == p) {
			char k[320];
			sbt_dump_emit_blob(pr->em, sbt_vk_pr_key(pr, m, k, sizeof(k)), pr->blobs[i].id,
			                   pr->blobs[i].len);
			return 1;
		}
	}
	return 0;
}

/* ---- tsinfo --dump ------------------------------------------------------- */

/* The blob arrays of the record being dumped (sbt_vk_pr_blob_ref). */
typedef struct sbt_vk_dump_blobs {
	sbt_vk_arena *a;
	sbt_vk_pr_blob_ref *refs;
	size_t count;
	size_t cap;
} sbt_vk_dump_blobs;

/* load_blob for the dump: the bytes are not read here (the dump hashes them
 * once per blob, sbt_dump_emit_blob); the array gets a one-byte placeholder
 * that the printer recognises and never reads. */
static sbt_vk_status sbt_vk_dump_load_blob(void *ctx, uint64_t blob_id, size_t len,
                                           const void **data_out)
{
	sbt_vk_dump_blobs *b = ctx;
	if (b->count == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		sbt_vk_pr_blob_ref *refs = realloc(b->refs, cap * sizeof(*refs));
		if (!refs)
			return SBT_VK_ERR_LIMIT;
		b->refs = refs;
		b->cap = cap;
	}
	const void *at = sbt_vk_arena_alloc(b->a, 1);
	if (!at)
		return SBT_VK_ERR_LIMIT;
	b->refs[b->count].at = at;
	b->refs[b->count].id = blob_id;
	b->refs[b->count].len = len;
	b->count++;
	*data_out = at;
	return SBT_VK_OK;
}

static sbt_status sbt_vk_dump_cmd(sbt_dump_emit *em, const sbt_reader *r, const sbt_record *rec)
{
	enum sbt_vk_cmd cmd;
	const char *name = sbt_dump_type_name(r, rec->type);
	if (sbt_vk_cmd_by_name(name, &cmd) != 0) {
		/* No type table: fall back on our own numbering. */
		if (rec->type < SBT_VK_TYPE_BASE || rec->type - SBT_VK_TYPE_BASE >= SBT_VK_CMD_COUNT)
			return SBT_ERR_CORRUPT;
		cmd = (enum sbt_vk_cmd)(rec->type - SBT_VK_TYPE_BASE);
	}
	sbt_status ret = SBT_ERR_CORRUPT;
	sbt_vk_arena *a = NULL;
	if (sbt_vk_arena_create((size_t)64 << 20, &a) != SBT_VK_OK)
		return SBT_ERR_NOMEM;
	size_t size = sbt_vk_args_size(cmd);
	void *args = sbt_vk_arena_alloc(a, size);
	if (!args) {
		ret = SBT_ERR_NOMEM;
		goto out_free_arena;
	}
	/* Blob-backed arrays decode as placeholders, shown as blob references. */
	sbt_vk_dump_blobs blobs = {a, NULL, 0, 0};
	sbt_vk_decode_hooks hooks;
	memset(&hooks, 0, sizeof(hooks));
	hooks.ctx = &blobs;
	hooks.load_blob = sbt_vk_dump_load_blob;
	if (sbt_vk_decode(cmd, rec->payload, rec->payload_len, a, args, &hooks) != SBT_VK_OK)
		goto out_free_blobs;
	sbt_vk_pr pr;
	memset(&pr, 0, sizeof(pr));
	pr.em = em;
	pr.max_elems = sbt_dump_emit_max_elements(em);
	pr.blobs = blobs.refs;
	pr.nblobs = blobs.count;
	sbt_vk_print_args(&pr, cmd, args);
	ret = SBT_OK;
out_free_blobs:
	free(blobs.refs);
out_free_arena:
	sbt_vk_arena_free(a);
	return ret;
}

sbt_vk_status sbt_vk_load_reader_blob(void *ctx, uint64_t blob_id, size_t len, const void **data_out)
{
	sbt_vk_reader_blobs *b = ctx;
	void *data = NULL;
	size_t got = 0;
	void *copy;
	if (sbt_reader_blob_get(b->r, blob_id, &data, &got) != SBT_OK || got != len) {
		free(data);
		return SBT_VK_ERR_BLOB;
	}
	copy = sbt_vk_arena_alloc(b->arena, len ? len : 1);
	if (copy)
		memcpy(copy, data, len);
	free(data);
	*data_out = copy;
	return copy ? SBT_VK_OK : SBT_VK_ERR_NOMEM;
}

static sbt_status sbt_vk_dump_memory_write(sbt_dump_emit *em, const sbt_reader *r,
                                           const sbt_record *rec)
{
	(void)r;
	sbt_vk_ts_memory_write w;
	if (sbt_vk_ts_memory_write_decode(rec->payload, rec->payload_len, &w) != SBT_VK_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_hex64(em, "memory", w.memory);
	sbt_dump_emit_u64(em, "offset", w.offset);
	sbt_dump_emit_u64(em, "size", w.size);
	sbt_dump_emit_u64(em, "blob", w.blob_id);
	return SBT_OK;
}

/* The most runs of one tsMemoryWrites a dump line shows (the count is
 * always there). */
#define SBT_VK_DUMP_RUNS 64

static sbt_status sbt_vk_dump_memory_writes(sbt_dump_emit *em, const sbt_reader *r,
                                            const sbt_record *rec)
{
	(void)r;
	sbt_vk_ts_memory_writes w;
	sbt_vk_ts_run_iter it;
	uint64_t off, size, at;
	char key[32];
	if (sbt_vk_ts_memory_writes_decode(rec->payload, rec->payload_len, &w) != SBT_VK_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_hex64(em, "memory", w.memory);
	sbt_dump_emit_u64(em, "runs", w.count);
	sbt_dump_emit_u64(em, "bytes", w.bytes);
	sbt_dump_emit_blob(em, "blob", w.blob_id, w.bytes);
	sbt_vk_ts_run_iter_init(&it, &w);
	for (unsigned k = 0; k < SBT_VK_DUMP_RUNS && sbt_vk_ts_run_iter_next(&it, &off, &size, &at);
	     k++) {
		snprintf(key, sizeof(key), "offset[%u]", k);
		sbt_dump_emit_u64(em, key, off);
		snprintf(key, sizeof(key), "size[%u]", k);
		sbt_dump_emit_u64(em, key, size);
	}
	return SBT_OK;
}

static sbt_status sbt_vk_dump_result(sbt_dump_emit *em, const sbt_reader *r, const sbt_record *rec)
{
	(void)r;
	sbt_vk_ts_result res;
	if (sbt_vk_ts_result_decode(rec->payload, rec->payload_len, &res) != SBT_VK_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_u64(em, "call_seq", res.seq);
	char t[24];
	int n = snprintf(t, sizeof(t), "%d", (int)res.result);
	sbt_dump_emit_str(em, "result", t, (size_t)n);
	sbt_dump_emit_u64(em, "outputs_bytes", res.outputs_len);
	return SBT_OK;
}

static sbt_status sbt_vk_dump_query_results(sbt_dump_emit *em, const sbt_reader *r,
                                            const sbt_record *rec)
{
	(void)r;
	sbt_vk_ts_query_results q;
	if (sbt_vk_ts_query_results_decode(rec->payload, rec->payload_len, &q) != SBT_VK_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_hex64(em, "queryPool", q.pool);
	sbt_dump_emit_u64(em, "firstQuery", q.first);
	sbt_dump_emit_u64(em, "queryCount", q.count);
	sbt_dump_emit_hex64(em, "flags", q.flags);
	sbt_dump_emit_u64(em, "stride", q.stride);
	sbt_dump_emit_u64(em, "bytes", q.len);
	return SBT_OK;
}

sbt_status sbt_vk_dump_register(struct sbt_dump *d)
{
	size_t n = 0;
	const sbt_vk_type_desc *types = sbt_vk_types(&n);
	sbt_status st = sbt_dump_register(d, SBT_VK_TS_MEMORY_WRITE_NAME, sbt_vk_dump_memory_write);
	if (st == SBT_OK)
		st = sbt_dump_register(d, SBT_VK_TS_RESULT_NAME, sbt_vk_dump_result);
	if (st == SBT_OK)
		st = sbt_dump_register(d, SBT_VK_TS_QUERY_RESULTS_NAME, sbt_vk_dump_query_results);
	if (st == SBT_OK)
		st = sbt_dump_register(d, SBT_VK_TS_MEMORY_WRITES_NAME, sbt_vk_dump_memory_writes);
	for (size_t i = 0; i < n && st == SBT_OK; i++)
		if (types[i].type >= SBT_VK_TYPE_BASE &&
		    sbt_vk_cmd_carried((enum sbt_vk_cmd)(types[i].type - SBT_VK_TYPE_BASE)))
			st = sbt_dump_register(d, types[i].name, sbt_vk_dump_cmd);
	return st;
}
