/*
 * rphip_percmd.c - tsreplay --per-command on HIP: after every command
 * (kernel launch, copy or memset into device memory, graph launch) the
 * ranges it may have written are copied to the host with hipMemcpyAsync
 * on the command's own stream, and handed to the core at the end of the
 * run.  The footprint and the results are the core's (rp_cm_percmd.c, as
 * for CUDA); this file names the commands and queues the copies.
 */
#include "replayer/hip/rphip_internal.h"

#include <string.h>

/* What rp_cm_footprint's queue needs. */
typedef struct rphip_percmd_ctx {
	rphip_state *s;
	uint64_t seq;
	hipStream_t stream;
} rphip_percmd_ctx;

/* Every HIP range is device memory (an allocation, or a module global at
 * its live address); only empty and oversized ones are left out. */
static int rphip_percmd_readable(const rp_cm_range *r)
{
	return r->size && r->size <= RP_CM_PERCMD_MAX_BYTES;
}

static rp_status rphip_percmd_queue(void *ctx, const rp_cm_range *r, rp_diag *diag)
{
	rphip_percmd_ctx *q = ctx;
	rphip_state *s = q->s;
	uint8_t *buf = rp_cm_results_add(&s->percmd, q->seq, r->cap, r->size);
	hipError_t e;

	if (!buf)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "--per-command: out of memory for %llu bytes",
		                  (unsigned long long)r->size);
	e = s->rt.p_hipMemcpyAsync(buf, (void *)(uintptr_t)r->live, (size_t)r->size,
	                           hipMemcpyDeviceToHost, q->stream);
	if (e != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemcpyAsync (reading an allocation for --per-command)", e);
	return RP_OK;
}

/* The footprint kind of call hc with record c; 0 when it is no command
 * (or writes only host memory). */
static int rphip_percmd_kind(sbt_cm_hip_call hc, const sbt_cm_call *c, rp_cm_foot *what,
                             uint64_t *dst)
{
	switch (hc) {
	case SBT_CM_HIP_hipLaunchKernel: case SBT_CM_HIP_hipModuleLaunchKernel:
	case SBT_CM_HIP_hipExtModuleLaunchKernel: case SBT_CM_HIP_hipLaunchCooperativeKernel:
		*what = RP_CM_FOOT_LAUNCH;
		return 1;
	case SBT_CM_HIP_hipMemcpy2D: case SBT_CM_HIP_hipMemcpy2DAsync:
	case SBT_CM_HIP_hipMemcpyParam2D: case SBT_CM_HIP_hipMemcpyParam2DAsync:
	case SBT_CM_HIP_hipMemcpy3D: case SBT_CM_HIP_hipMemcpy3DAsync:
		/* the destination's first byte names its allocation */
		if (c->sub == SBT_CM_COPY_DTOH || c->sub == SBT_CM_COPY_HTOH || c->sub == SBT_CM_COPY_ARRAY)
			return 0;
		*what = RP_CM_FOOT_WRITE;
		*dst = c->dst + c->dst_z * c->dst_pitch * (c->dst_height ? c->dst_height : c->height) +
		       c->dst_y * c->dst_pitch + c->dst_x;
		return 1;
	case SBT_CM_HIP_hipGraphLaunch:
		*what = RP_CM_FOOT_ALL;
		return 1;
	case SBT_CM_HIP_hipMemcpyToSymbol: case SBT_CM_HIP_hipMemcpyToSymbolAsync:
		*what = RP_CM_FOOT_WRITE;
		*dst = c->dst + c->offset;
		return 1;
	case SBT_CM_HIP_hipMemcpy: case SBT_CM_HIP_hipMemcpyAsync:
	case SBT_CM_HIP_hipMemcpyHtoD: case SBT_CM_HIP_hipMemcpyHtoDAsync:
	case SBT_CM_HIP_hipMemcpyDtoD: case SBT_CM_HIP_hipMemcpyDtoDAsync:
	case SBT_CM_HIP_hipMemcpyPeer: case SBT_CM_HIP_hipMemcpyPeerAsync:
		if (c->sub == SBT_CM_COPY_DTOH)
			return 0;
		/* fall through */
	case SBT_CM_HIP_hipMemset: case SBT_CM_HIP_hipMemsetAsync:
	case SBT_CM_HIP_hipMemsetD8: case SBT_CM_HIP_hipMemsetD16: case SBT_CM_HIP_hipMemsetD32:
	case SBT_CM_HIP_hipMemsetD8Async: case SBT_CM_HIP_hipMemsetD16Async:
	case SBT_CM_HIP_hipMemsetD32Async:
	case SBT_CM_HIP_hipMemset2D: case SBT_CM_HIP_hipMemset2DAsync:
	case SBT_CM_HIP_hipMemset3D: case SBT_CM_HIP_hipMemset3DAsync:
		*what = RP_CM_FOOT_WRITE;
		*dst = c->dst;
		return 1;
	default:
		return 0;
	}
}

/* The command may have written r: the next keyframe compares it. */
static rp_status rphip_percmd_mark(void *ctx, const rp_cm_range *r, rp_diag *diag)
{
	rphip_percmd_ctx *q = ctx;
	rphip_state *s = q->s;
	(void)diag;
	s->ranges[(const rphip_range *)(const void *)r - s->ranges].dirty_seq = q->seq;
	return RP_OK;
}

static int rphip_percmd_markable(const rp_cm_range *r)
{
	return r->size != 0;
}

rp_status rphip_percmd_after(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_percmd_ctx q = {s, s->seq, NULL};
	rp_cm_span t = RP_CM_SPAN(s->ranges, s->nranges);
	rp_cm_foot what = RP_CM_FOOT_ALL;
	uint64_t dst = 0;
	rphip_obj *so = NULL;
	rp_status st = RP_OK;

	if (!rphip_percmd_kind(hc, c, &what, &dst))
		return RP_OK;
	/* skipped with what a failed call returned: it ran nothing */
	if (rphip_failed_has(s, c->handle) || rphip_failed_has(s, c->stream))
		return RP_OK;
	if (c->stream) {
		so = rphip_obj_get(s, RPHIP_O_STREAM, c->stream);
		if (!so)
			return RP_OK; /* the record itself said so */
		if (so->capturing)
			return RP_OK; /* recorded into a graph, not run */
		q.stream = s->single ? NULL : so->live;
	}
	if (s->kf_check)
		st = rp_cm_footprint(&t, what, s->seq, dst, rphip_percmd_markable, rphip_percmd_mark, &q, diag);
	if (st != RP_OK || !s->per_command || s->fast_forward)
		return st;
	st = rp_cm_footprint(&t, what, s->seq, dst, rphip_percmd_readable, rphip_percmd_queue, &q, diag);
	/* The program went on after a synchronous copy or memset as after
	 * finished work: its next command, on any stream, may write what the
	 * copies just queued are to read.  They finish before it is issued. */
	if (st == RP_OK && what == RP_CM_FOOT_WRITE && !strstr(sbt_cm_hip_name(hc), "Async")) {
		hipError_t e = s->rt.p_hipStreamSynchronize(q.stream);
		if (e != hipSuccess)
			st = rphip_hipfail(s, diag, "hipStreamSynchronize (waiting for the --per-command copies "
			                   "of a synchronous call)", e);
	}
	return st;
}

rp_status rphip_percmd_results(rphip_state *s, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	hipError_t e = s->rt.p_hipDeviceSynchronize();

	if (e != hipSuccess) {
		rp_cm_results_clear(&s->percmd);
		rp_diag_set(diag, "waiting for the --per-command copies: hipDeviceSynchronize failed with "
		            "%s (%d)", s->rt.p_hipGetErrorName ? s->rt.p_hipGetErrorName(e) : "hipError",
		            (int)e);
		return RP_ERR_BACKEND;
	}
	return rp_cm_results_hand(&s->percmd, fn, ctx, diag);
}
