/*
 * rp_cm_handles.c - captured handles of the compute backends: the table
 * captured handle -> the backend's object (open addressing on (kind,
 * handle), linear probing, at most half the slots used, deleted slots kept
 * as tombstones until the table grows), and the sorted set of handles
 * only calls that failed at capture returned.  Such a call made nothing,
 * so a later record naming what it "returned" is skipped rather than
 * refused.
 */
#include "replayer/rp_cm.h"

#include <stdlib.h>
#include <string.h>

/* ---- the table -------------------------------------------------------------------- */

static size_t rp_cm_handles_hash(uint8_t kind, uint64_t cap)
{
	uint64_t x = cap ^ ((uint64_t)kind << 56) ^ 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(x ^ (x >> 31));
}

/* The slot of (kind, cap), or the first free slot of its probe sequence
 * (the first dead one if any) when absent; NULL on an empty table. */
static rp_cm_handle *rp_cm_handles_slot(const rp_cm_handles *t, size_t elem, uint8_t kind, uint64_t cap,
                                        int *found)
{
	rp_cm_handle *grave = NULL;
	size_t mask, i, n;

	*found = 0;
	if (!t->cap)
		return NULL;
	mask = t->cap - 1;
	for (i = rp_cm_handles_hash(kind, cap) & mask, n = 0; n < t->cap; i = (i + 1) & mask, n++) {
		rp_cm_handle *o = rp_cm_handles_at(t, elem, i);
		if (o->dead) {
			if (!grave)
				grave = o;
			continue;
		}
		if (!o->kind)
			return grave ? grave : o;
		if (o->kind == kind && o->cap == cap) {
			*found = 1;
			return o;
		}
	}
	return grave;
}

void *rp_cm_handles_get(const rp_cm_handles *t, size_t elem, uint8_t kind, uint64_t cap)
{
	int found;
	rp_cm_handle *o = rp_cm_handles_slot(t, elem, kind, cap, &found);
	return found ? o : NULL;
}

static int rp_cm_handles_grow(rp_cm_handles *t, size_t elem)
{
	rp_cm_handles n = {0};

	n.cap = t->cap ? t->cap * 2 : 64;
	n.slot = calloc(n.cap, elem);
	if (!n.slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		rp_cm_handle *o = rp_cm_handles_at(t, elem, i);
		int found;
		if (!o->kind || o->dead)
			continue;
		memcpy(rp_cm_handles_slot(&n, elem, o->kind, o->cap, &found), o, elem);
		n.used++;
	}
	free(t->slot);
	*t = n;
	return 0;
}

void *rp_cm_handles_put(rp_cm_handles *t, size_t elem, uint8_t kind, uint64_t cap,
                        rp_cm_handle_release_fn release)
{
	rp_cm_handle *o;
	int found;

	/* Keep at most half the slots used (dead ones count: they lengthen probes). */
	if ((t->used + 1) * 2 > t->cap && rp_cm_handles_grow(t, elem) != 0)
		return NULL;
	o = rp_cm_handles_slot(t, elem, kind, cap, &found);
	if (!o)
		return NULL;
	if (found) {
		if (release)
			release(o);
	} else if (!o->dead) {
		t->used++;
	}
	memset(o, 0, elem);
	o->kind = kind;
	o->cap = cap;
	return o;
}

void rp_cm_handles_del(rp_cm_handles *t, size_t elem, void *obj, rp_cm_handle_release_fn release)
{
	rp_cm_handle *o = obj;

	(void)t;
	if (release)
		release(obj);
	memset(obj, 0, elem);
	o->dead = 1;
}

void rp_cm_handles_free(rp_cm_handles *t, size_t elem, rp_cm_handle_release_fn release)
{
	for (size_t i = 0; release && i < t->cap; i++) {
		rp_cm_handle *o = rp_cm_handles_at(t, elem, i);
		if (o->kind && !o->dead)
			release(o);
	}
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- the set of failed handles ------------------------------------------------------ */

/* Index of the first entry >= cap. */
static size_t rp_cm_handle_set_at(const rp_cm_handle_set *h, uint64_t cap)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->v[mid] < cap)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rp_cm_handle_set_has(const rp_cm_handle_set *h, uint64_t cap)
{
	size_t i = rp_cm_handle_set_at(h, cap);
	return cap && i < h->n && h->v[i] == cap;
}

void rp_cm_handle_set_add(rp_cm_handle_set *h, uint64_t cap)
{
	size_t i;

	if (!cap || rp_cm_handle_set_has(h, cap))
		return;
	if (h->n == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 16;
		uint64_t *nv = realloc(h->v, ncap * sizeof(*nv));
		if (!nv)
			return; /* only a later, clearer error is lost */
		h->v = nv;
		h->cap = ncap;
	}
	i = rp_cm_handle_set_at(h, cap);
	memmove(&h->v[i + 1], &h->v[i], (h->n - i) * sizeof(*h->v));
	h->v[i] = cap;
	h->n++;
}

void rp_cm_handle_set_remove(rp_cm_handle_set *h, uint64_t cap)
{
	size_t i = rp_cm_handle_set_at(h, cap);

	if (!rp_cm_handle_set_has(h, cap))
		return;
	memmove(&h->v[i], &h->v[i + 1], (h->n - i - 1) * sizeof(*h->v));
	h->n--;
}

void rp_cm_handle_set_free(rp_cm_handle_set *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}
