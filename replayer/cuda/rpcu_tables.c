/*
 * rpcu_tables.c - the CUDA backend's two lookup structures: captured handle
 * -> live object (open addressing on (kind, handle)), and captured address
 * range -> live address (a sorted array searched by bisection), with the
 * pointer patching that uses it.  No driver calls here.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- objects ------------------------------------------------------------------ */

static size_t rpcu_objs_hash(rpcu_kind kind, uint64_t cap)
{
	uint64_t x = cap ^ ((uint64_t)kind << 56) ^ 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(x ^ (x >> 31));
}

/* The slot of (kind, cap), or the first free slot of its probe sequence
 * (the first dead one if any) when absent; NULL on an empty table. */
static rpcu_obj *rpcu_objs_slot(rpcu_objs *t, rpcu_kind kind, uint64_t cap, int *found)
{
	size_t mask, i, n;
	rpcu_obj *grave = NULL;
	*found = 0;
	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = rpcu_objs_hash(kind, cap) & mask, n = 0; n < t->cap; i = (i + 1) & mask, n++) {
		rpcu_obj *o = &t->slot[i];
		if (o->dead) {
			if (!grave)
				grave = o;
			continue;
		}
		if (o->kind == RPCU_O_NONE)
			return grave ? grave : o;
		if (o->kind == kind && o->cap == cap) {
			*found = 1;
			return o;
		}
	}
	return grave;
}

rpcu_obj *rpcu_objs_get(rpcu_objs *t, rpcu_kind kind, uint64_t cap)
{
	int found;
	rpcu_obj *o = rpcu_objs_slot(t, kind, cap, &found);
	return found ? o : NULL;
}

static int rpcu_objs_grow(rpcu_objs *t)
{
	rpcu_objs n = {0};
	size_t i;
	n.cap = t->cap ? t->cap * 2 : 64;
	n.slot = calloc(n.cap, sizeof(*n.slot));
	if (!n.slot)
		return -1;
	for (i = 0; i < t->cap; i++) {
		rpcu_obj *o = &t->slot[i];
		int found;
		if (o->kind == RPCU_O_NONE || o->dead)
			continue;
		*rpcu_objs_slot(&n, (rpcu_kind)o->kind, o->cap, &found) = *o;
		n.used++;
	}
	free(t->slot);
	*t = n;
	return 0;
}

rpcu_obj *rpcu_objs_put(rpcu_objs *t, rpcu_kind kind, uint64_t cap)
{
	int found;
	rpcu_obj *o;
	/* Keep at most half the slots used (dead ones count: they lengthen probes). */
	if ((t->used + 1) * 2 > t->cap && rpcu_objs_grow(t) != 0)
		return NULL;
	o = rpcu_objs_slot(t, kind, cap, &found);
	if (!o)
		return NULL;
	if (found) {
		free(o->name);
	} else if (!o->dead) {
		t->used++;
	}
	memset(o, 0, sizeof(*o));
	o->kind = (uint8_t)kind;
	o->cap = cap;
	return o;
}

void rpcu_objs_del(rpcu_objs *t, rpcu_obj *o)
{
	(void)t;
	free(o->name);
	memset(o, 0, sizeof(*o));
	o->dead = 1;
}

void rpcu_objs_free(rpcu_objs *t)
{
	size_t i;
	for (i = 0; i < t->cap; i++)
		if (t->slot[i].kind != RPCU_O_NONE && !t->slot[i].dead)
			free(t->slot[i].name);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- address ranges -------------------------------------------------------------- */

/* Number of ranges whose cap is <= addr. */
static size_t rpcu_ranges_upper(const rpcu_ranges *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid].cap <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long rpcu_ranges_find(const rpcu_ranges *m, uint64_t addr)
{
	size_t i = rpcu_ranges_upper(m, addr);
	if (i && addr - m->v[i - 1].cap < m->v[i - 1].size)
		return (long)(i - 1);
	return -1;
}

long rpcu_ranges_overlap(const rpcu_ranges *m, uint64_t addr, uint64_t len)
{
	size_t i = rpcu_ranges_upper(m, addr);
	if (i && addr - m->v[i - 1].cap < m->v[i - 1].size)
		return (long)(i - 1);
	if (i < m->n && m->v[i].cap - addr < len)
		return (long)i;
	return -1;
}

int rpcu_ranges_insert(rpcu_ranges *m, const rpcu_range *r)
{
	size_t i;
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		rpcu_range *nv = realloc(m->v, ncap * sizeof(*nv));
		if (!nv)
			return -1;
		m->v = nv;
		m->cap = ncap;
	}
	i = rpcu_ranges_upper(m, r->cap);
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = *r;
	m->v[i].moved = r->live != r->cap;
	m->n++;
	return 0;
}

void rpcu_ranges_remove(rpcu_ranges *m, size_t i)
{
	free(m->v[i].host_buf);
	memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(*m->v));
	m->n--;
}

int rpcu_ranges_translate(const rpcu_ranges *m, uint64_t addr, uint64_t len, uint64_t *live_out,
                          long *index_out)
{
	long i = rpcu_ranges_find(m, addr);
	if (index_out)
		*index_out = i;
	if (i < 0)
		return -1;
	if (len > m->v[i].size - (addr - m->v[i].cap))
		return -1;
	*live_out = m->v[i].live + (addr - m->v[i].cap);
	return 0;
}

static uint64_t rpcu_load64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void rpcu_store64(uint8_t *p, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The range a pointer value points into, one past the end included (loops
 * often pass end pointers); -1 for none. */
static long rpcu_ranges_pointee(const rpcu_ranges *m, uint64_t v)
{
	long i;
	if (v == 0)
		return -1;
	i = rpcu_ranges_find(m, v);
	if (i < 0) {
		size_t j = rpcu_ranges_upper(m, v - 1);
		if (j && v - m->v[j - 1].cap == m->v[j - 1].size)
			i = (long)(j - 1);
	}
	return i;
}

/* One parameter word at p: note the launch on its range, rewrite it. */
static size_t rpcu_ranges_patch_word(rpcu_ranges *m, uint8_t *p, uint64_t seq, const char *kernel)
{
	uint64_t v = rpcu_load64(p);
	long i = rpcu_ranges_pointee(m, v);
	rpcu_range *r;
	if (i < 0)
		return 0;
	r = &m->v[i];
	r->kernel_seq = seq;
	snprintf(r->kernel, sizeof(r->kernel), "%s", kernel ? kernel : "(unnamed)");
	if (!r->moved)
		return 0;
	rpcu_store64(p, r->live + (v - r->cap));
	return 1;
}

size_t rpcu_ranges_patch_params(rpcu_ranges *m, uint8_t *buf, size_t len, const uint8_t *layout,
                                size_t nlayout, uint64_t seq, const char *kernel)
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
				n += rpcu_ranges_patch_word(m, buf + off, seq, kernel);
		}
		return n;
	}
	for (i = 0; i + 8 <= len; i += 8)
		n += rpcu_ranges_patch_word(m, buf + i, seq, kernel);
	return n;
}

size_t rpcu_ranges_patch_data(const rpcu_ranges *m, uint8_t *buf, size_t len, uint64_t dst)
{
	size_t i = (size_t)((8 - dst % 8) % 8), n = 0;
	for (; i + 8 <= len && i + 8 > i; i += 8) {
		uint64_t v = rpcu_load64(buf + i);
		long k = rpcu_ranges_pointee(m, v);
		if (k >= 0 && m->v[k].moved) {
			rpcu_store64(buf + i, m->v[k].live + (v - m->v[k].cap));
			n++;
		}
	}
	return n;
}

void rpcu_ranges_free(rpcu_ranges *m)
{
	size_t i;
	for (i = 0; i < m->n; i++)
		free(m->v[i].host_buf);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
