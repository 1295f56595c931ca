/*
 * rpcu_tables.c - the CUDA backend's two lookup structures: captured handle
 * -> live object (open addressing on (kind, handle)), and captured address
 * range -> live address: the backend's array of rpcu_range, searched and
 * patched by the shared rp_cm_ranges_* (replayer/rp_cm_ranges.c).  No
 * driver calls here.
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

/* The span rp_cm_ranges_* work on (rp_cm.h). */
static rp_cm_span rpcu_ranges_span(const rpcu_ranges *m)
{
	return RP_CM_SPAN(m->v, m->n);
}

long rpcu_ranges_find(const rpcu_ranges *m, uint64_t addr)
{
	rp_cm_span t = rpcu_ranges_span(m);
	return rp_cm_ranges_find(&t, addr);
}

long rpcu_ranges_overlap(const rpcu_ranges *m, uint64_t addr, uint64_t len)
{
	rp_cm_span t = rpcu_ranges_span(m);
	return rp_cm_ranges_overlap(&t, addr, len);
}

int rpcu_ranges_insert(rpcu_ranges *m, const rpcu_range *r)
{
	void *v = m->v;
	long i = rp_cm_ranges_insert(&v, &m->n, &m->cap, sizeof(*m->v), r);
	m->v = v;
	return i < 0 ? -1 : 0;
}

void rpcu_ranges_remove(rpcu_ranges *m, size_t i)
{
	free(m->v[i].host_buf);
	rp_cm_ranges_remove(m->v, &m->n, sizeof(*m->v), i);
}

int rpcu_ranges_translate(const rpcu_ranges *m, uint64_t addr, uint64_t len, uint64_t *live_out,
                          long *index_out)
{
	rp_cm_span t = rpcu_ranges_span(m);
	return rp_cm_ranges_translate(&t, addr, len, live_out, index_out);
}

size_t rpcu_ranges_patch_params(rpcu_ranges *m, uint8_t *buf, size_t len, const uint8_t *layout,
                                size_t nlayout, uint64_t seq, const char *kernel)
{
	rp_cm_span t = rpcu_ranges_span(m);
	return rp_cm_ranges_patch_params(&t, buf, len, layout, nlayout, seq, kernel, RP_CM_PTR_END);
}

size_t rpcu_ranges_patch_data(const rpcu_ranges *m, uint8_t *buf, size_t len, uint64_t dst)
{
	rp_cm_span t = rpcu_ranges_span(m);
	return rp_cm_ranges_patch_data(&t, buf, len, dst, RP_CM_PTR_END);
}

void rpcu_ranges_free(rpcu_ranges *m)
{
	size_t i;
	for (i = 0; i < m->n; i++)
		free(m->v[i].host_buf);
	free(m->v);
	memset(m, 0, sizeof(*m));
}
