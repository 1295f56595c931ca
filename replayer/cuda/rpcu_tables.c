/*
 * rpcu_tables.c - the CUDA backend's two lookup structures, typed views of
 * the core's (replayer/rp_cm.h): captured handle -> live object
 * (rp_cm_handles, hashed on (kind, handle)), and captured address range ->
 * live address (an array of rpcu_range searched and patched by
 * rp_cm_ranges_*).  No driver calls here.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- objects ------------------------------------------------------------------ */

/* What an object owns (rp_cm_handle_release_fn). */
static void rpcu_obj_release(void *obj)
{
	free(((rpcu_obj *)obj)->name);
}

rpcu_obj *rpcu_objs_get(rpcu_objs *t, rpcu_kind kind, uint64_t cap)
{
	return rp_cm_handles_get(&t->table, sizeof(rpcu_obj), (uint8_t)kind, cap);
}

rpcu_obj *rpcu_objs_put(rpcu_objs *t, rpcu_kind kind, uint64_t cap)
{
	return rp_cm_handles_put(&t->table, sizeof(rpcu_obj), (uint8_t)kind, cap, rpcu_obj_release);
}

void rpcu_objs_del(rpcu_objs *t, rpcu_obj *o)
{
	rp_cm_handles_del(&t->table, sizeof(rpcu_obj), o, rpcu_obj_release);
}

void rpcu_objs_free(rpcu_objs *t)
{
	rp_cm_handles_free(&t->table, sizeof(rpcu_obj), rpcu_obj_release);
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
