/*
 * rpcu_stage.c - host buffers that outlive the call that filled them: the
 * bytes of an async upload live until an event recorded after the copy has
 * fired (at most RPCU_STAGE_LIMIT in flight), and the host destination of
 * a device->host copy lives until its checkpoint has been served (at most
 * RPCU_COPY_LIMIT unserved).
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPCU_STAGE_LIMIT ((uint64_t)256 << 20) /* in-flight upload bytes before waiting */
#define RPCU_COPY_LIMIT ((uint64_t)1 << 30)    /* unserved copy bytes before dropping */

void rpcu_stages_poll(rpcu_state *s, int wait)
{
	while (s->stage_head < s->nstages) {
		rpcu_stage *g = &s->stages[s->stage_head];
		if (g->done) {
			CUresult r = wait ? s->drv.p_cuEventSynchronize(g->done) : s->drv.p_cuEventQuery(g->done);
			if (r == CUDA_ERROR_NOT_READY)
				break;
			s->drv.p_cuEventDestroy(g->done);
		}
		free(g->buf);
		s->stage_bytes -= g->len;
		s->stage_head++;
	}
	if (s->stage_head == s->nstages)
		s->stage_head = s->nstages = 0;
}

/* An event recorded on stream now, in the current context; NULL if the
 * driver cannot make one (the caller then waits for the stream). */
CUevent rpcu_mark(rpcu_state *s, CUstream stream)
{
	CUevent e = NULL;
	if (!s->drv.p_cuEventCreate || !s->drv.p_cuEventRecord || !s->drv.p_cuEventDestroy ||
	    !s->drv.p_cuEventQuery)
		return NULL;
	if (s->drv.p_cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return NULL;
	if (s->drv.p_cuEventRecord(e, stream) != CUDA_SUCCESS) {
		s->drv.p_cuEventDestroy(e);
		return NULL;
	}
	return e;
}

/* Keep buf (owned from here on) until the upload issued on stream is done. */
rp_status rpcu_stage_push(rpcu_state *s, void *buf, size_t len, CUstream stream, rp_diag *diag)
{
	CUevent e = rpcu_mark(s, stream);
	if (!e) {
		CUresult r = s->drv.p_cuStreamSynchronize ? s->drv.p_cuStreamSynchronize(stream)
		                                          : s->drv.p_cuCtxSynchronize();
		free(buf);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuStreamSynchronize", r, NULL);
	}
	if (s->nstages == s->cap_stages) {
		size_t ncap = s->cap_stages ? s->cap_stages * 2 : 32;
		rpcu_stage *ng = realloc(s->stages, ncap * sizeof(*ng));
		if (!ng) {
			s->drv.p_cuEventSynchronize(e);
			s->drv.p_cuEventDestroy(e);
			free(buf);
			return RP_OK;
		}
		s->stages = ng;
		s->cap_stages = ncap;
	}
	s->stages[s->nstages].buf = buf;
	s->stages[s->nstages].len = len;
	s->stages[s->nstages].done = e;
	s->stages[s->nstages].ctx = s->cur_ctx;
	s->nstages++;
	s->stage_bytes += len;
	if (s->stage_bytes > RPCU_STAGE_LIMIT)
		rpcu_stages_poll(s, 1);
	return RP_OK;
}

/* ---- copies kept for checkpoints ------------------------------------------------------------ */

void rpcu_copy_drop(rpcu_state *s, size_t i)
{
	rpcu_copy *c = &s->copies[i];
	if (c->done)
		s->drv.p_cuEventDestroy(c->done);
	if (c->buf)
		s->copy_bytes -= c->len;
	free(c->buf);
	memmove(&s->copies[i], &s->copies[i + 1], (s->ncopies - i - 1) * sizeof(*s->copies));
	s->ncopies--;
}

void rpcu_copies_release_served(rpcu_state *s)
{
	size_t i;
	for (i = s->ncopies; i-- > 0;)
		if (s->copies[i].served)
			rpcu_copy_drop(s, i);
}

/* Remember a copy's result for its checkpoint.  src_cap: the captured
 * source (for the mismatch note). */
rpcu_copy *rpcu_copy_add(rpcu_state *s, uint8_t *ptr, uint8_t *buf, uint64_t len, uint64_t vstart,
                         uint64_t src_cap)
{
	rpcu_copy *c;
	long i;
	if (s->ncopies == s->cap_copies) {
		size_t ncap = s->cap_copies ? s->cap_copies * 2 : 32;
		rpcu_copy *nc = realloc(s->copies, ncap * sizeof(*nc));
		if (!nc)
			return NULL;
		s->copies = nc;
		s->cap_copies = ncap;
	}
	c = &s->copies[s->ncopies++];
	memset(c, 0, sizeof(*c));
	c->seq = s->seq;
	c->call = s->call;
	c->ptr = ptr;
	c->buf = buf;
	c->len = len;
	c->vstart = vstart;
	c->ctx = s->cur_ctx;
	if (buf)
		s->copy_bytes += len;
	i = src_cap ? rpcu_ranges_find(&s->ranges, src_cap) : -1;
	rp_cm_copy_source_take(&c->src, i >= 0 ? &s->ranges.v[i].head : NULL);
	if (i >= 0)
		c->alloc_sub = s->ranges.v[i].sub;
	/* Copies no checkpoint asked for (async ones never synchronized)
	 * must not pile up: the oldest go first. */
	while (s->copy_bytes > RPCU_COPY_LIMIT && s->ncopies > 1 && &s->copies[0] != c) {
		rpcu_copy_drop(s, 0);
		c--;
	}
	return c;
}
