/*
 * rp_cm_handles.c - a sorted set of captured handles: those only calls
 * that failed at capture returned.  Such a call made nothing, so a later
 * record naming what it "returned" is skipped rather than refused.
 */
#include "replayer/rp_cm.h"

#include <stdlib.h>
#include <string.h>

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
