/*
 * rp_cm_ranges.c - captured address ranges and their live addresses: a
 * sorted array (the backend's, of its own range type) searched by
 * bisection, and the rewriting of pointers into ranges that moved.  No
 * driver calls here; what made a range and how to undo it is the
 * backend's.
 */
#include "replayer/rp_cm.h"
#include "serializer/sbt_compute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rp_cm_ranges_upper(const rp_cm_span *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rp_cm_span_at(t, mid)->cap <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long rp_cm_ranges_find(const rp_cm_span *t, uint64_t addr)
{
	size_t i = rp_cm_ranges_upper(t, addr);

	if (i && addr - rp_cm_span_at(t, i - 1)->cap < rp_cm_span_at(t, i - 1)->size)
		return (long)(i - 1);
	return -1;
}

long rp_cm_ranges_overlap(const rp_cm_span *t, uint64_t addr, uint64_t len)
{
	size_t i = rp_cm_ranges_upper(t, addr);

	if (i && addr - rp_cm_span_at(t, i - 1)->cap < rp_cm_span_at(t, i - 1)->size)
		return (long)(i - 1);
	if (i < t->n && rp_cm_span_at(t, i)->cap - addr < len)
		return (long)i;
	return -1;
}

long rp_cm_ranges_insert(void **v, size_t *n, size_t *cap, size_t elem, const void *r)
{
	rp_cm_span t;
	rp_cm_range *at;
	size_t i;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *nv = realloc(*v, ncap * elem);
		if (!nv)
			return -1;
		*v = nv;
		*cap = ncap;
	}
	t = (rp_cm_span){*v, *n, elem};
	i = rp_cm_ranges_upper(&t, ((const rp_cm_range *)r)->cap);
	memmove((char *)*v + (i + 1) * elem, (char *)*v + i * elem, (*n - i) * elem);
	memcpy((char *)*v + i * elem, r, elem);
	at = rp_cm_span_at(&t, i);
	at->moved = at->live != at->cap;
	(*n)++;
	return (long)i;
}

void rp_cm_ranges_remove(void *v, size_t *n, size_t elem, size_t i)
{
	memmove((char *)v + i * elem, (char *)v + (i + 1) * elem, (*n - i - 1) * elem);
	(*n)--;
}

int rp_cm_ranges_translate(const rp_cm_span *t, uint64_t addr, uint64_t len, uint64_t *live_out,
                           long *index_out)
{
	long i = rp_cm_ranges_find(t, addr);
	const rp_cm_range *r;

	if (index_out)
		*index_out = i;
	if (i < 0)
		return -1;
	r = rp_cm_span_at(t, (size_t)i);
	if (len > r->size - (addr - r->cap))
		return -1;
	*live_out = r->live + (addr - r->cap);
	return 0;
}

static uint64_t rp_cm_load64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void rp_cm_store64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The range a pointer value points into (with RP_CM_PTR_END, one past the
 * end included); -1 for none. */
static long rp_cm_ranges_pointee(const rp_cm_span *t, uint64_t v, unsigned flags)
{
	long i;

	if (v == 0)
		return -1;
	i = rp_cm_ranges_find(t, v);
	if (i < 0 && (flags & RP_CM_PTR_END)) {
		size_t j = rp_cm_ranges_upper(t, v - 1);
		if (j && v - rp_cm_span_at(t, j - 1)->cap == rp_cm_span_at(t, j - 1)->size)
			i = (long)(j - 1);
	}
	return i;
}

size_t rp_cm_ranges_patch_word(rp_cm_span *t, uint8_t *p, uint64_t seq, const char *kernel,
                               unsigned flags)
{
	uint64_t v = rp_cm_load64(p);
	long i = rp_cm_ranges_pointee(t, v, flags);
	rp_cm_range *r;

	if (i < 0)
		return 0;
	r = rp_cm_span_at(t, (size_t)i);
	r->kernel_seq = seq;
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernel ? kernel : "(unnamed)");
	if (!r->moved)
		return 0;
	rp_cm_store64(p, r->live + (v - r->cap));
	return 1;
}

size_t rp_cm_ranges_patch_params(rp_cm_span *t, uint8_t *buf, size_t len, const uint8_t *layout,
                                 size_t nlayout, uint64_t seq, const char *kernel, unsigned flags)
{
	size_t i, n = 0;

	if (layout) {
		for (i = 0; i < nlayout; i++) {
			const uint8_t *e = layout + i * SBT_CM_LAYOUT_BYTES;
			uint32_t off = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 |
			               (uint32_t)e[3] << 24;
			uint32_t size = (uint32_t)e[4] | (uint32_t)e[5] << 8 | (uint32_t)e[6] << 16 |
			                (uint32_t)e[7] << 24;
			if (size == 8 && off % 8 == 0 && off <= len && len - off >= 8)
				n += rp_cm_ranges_patch_word(t, buf + off, seq, kernel, flags);
		}
		return n;
	}
	for (i = 0; i + 8 <= len; i += 8)
		n += rp_cm_ranges_patch_word(t, buf + i, seq, kernel, flags);
	return n;
}

size_t rp_cm_ranges_patch_data(const rp_cm_span *t, uint8_t *buf, size_t len, uint64_t dst,
                               unsigned flags)
{
	size_t i = (size_t)((8 - dst % 8) % 8), n = 0;

	for (; i + 8 <= len && i + 8 > i; i += 8) {
		uint64_t v = rp_cm_load64(buf + i);
		long k = rp_cm_ranges_pointee(t, v, flags);
		if (k >= 0 && rp_cm_span_at(t, (size_t)k)->moved) {
			const rp_cm_range *r = rp_cm_span_at(t, (size_t)k);
			rp_cm_store64(buf + i, r->live + (v - r->cap));
			n++;
		}
	}
	return n;
}
