/*
 * rp_cm_percmd.c - tsreplay --per-command for the compute backends: the
 * footprint of a command (the ranges it may have written) and the results
 * a run keeps until the core asks for them.
 *
 * The backend queues a device-to-host copy of each footprint range right
 * behind the command on the command's own stream, not waited for: waiting
 * after every command would run the work in issue order and hide exactly
 * the races a concurrent run is there to show.  A result therefore holds
 * the range as it was when its stream reached the copy.
 */
#include "replayer/rp_cm.h"

#include <stdlib.h>
#include <string.h>

uint8_t *rp_cm_results_add(rp_cm_results *l, uint64_t seq, uint64_t cap, uint64_t size)
{
	rp_cm_result *p;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? 2 * l->cap : 64;
		rp_cm_result *nv = realloc(l->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		l->v = nv;
		l->cap = ncap;
	}
	p = &l->v[l->n];
	p->seq = seq;
	p->cap = cap;
	p->size = size;
	p->buf = malloc(size ? (size_t)size : 1);
	if (!p->buf)
		return NULL;
	l->n++;
	return p->buf;
}

rp_status rp_cm_results_hand(rp_cm_results *l, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	rp_status st = RP_OK;

	for (size_t i = 0; i < l->n && st == RP_OK; i++)
		st = fn(ctx, l->v[i].seq, l->v[i].cap, l->v[i].buf, l->v[i].size, diag);
	rp_cm_results_clear(l);
	return st;
}

void rp_cm_results_clear(rp_cm_results *l)
{
	while (l->n)
		free(l->v[--l->n].buf);
}

void rp_cm_results_free(rp_cm_results *l)
{
	rp_cm_results_clear(l);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

rp_status rp_cm_footprint(const rp_cm_span *t, rp_cm_foot what, uint64_t seq, uint64_t dst,
                          int (*readable)(const rp_cm_range *r),
                          rp_status (*queue)(void *ctx, const rp_cm_range *r, rp_diag *diag),
                          void *ctx, rp_diag *diag)
{
	rp_status st = RP_OK;
	long at = -1;

	if (what == RP_CM_FOOT_LAUNCH) {
		for (size_t i = 0; i < t->n && st == RP_OK; i++) {
			const rp_cm_range *r = rp_cm_span_at(t, i);
			if (r->kernel_seq == seq && readable(r))
				st = queue(ctx, r, diag);
		}
		return st;
	}
	if (what == RP_CM_FOOT_WRITE)
		at = rp_cm_ranges_find(t, dst);
	if (at >= 0)
		return readable(rp_cm_span_at(t, (size_t)at)) ? queue(ctx, rp_cm_span_at(t, (size_t)at), diag)
		                                              : RP_OK;
	for (size_t i = 0; i < t->n && st == RP_OK; i++)
		if (readable(rp_cm_span_at(t, i)))
			st = queue(ctx, rp_cm_span_at(t, i), diag);
	return st;
}
