/*
 * rpcu_percmd.c - tsreplay --per-command on CUDA: after every command
 * (kernel launch, copy, memset, graph launch) the memory it may have
 * written is copied to the host on the command's own stream, and the
 * copies are handed to the core at the end of the run.
 *
 * The copy is queued behind the command, not waited for: waiting after
 * every command would run the work in issue order and hide exactly the
 * races a concurrent run is there to show.  What a result holds is the
 * allocation as it was when its stream reached the copy: the command's
 * writes, plus whatever other streams had written by then.  The footprint
 * walk and the results are the core's (replayer/rp_cm_percmd.c).
 *
 * The footprint, as the emulator takes it (docs/emulator.md "Races"):
 *   - a launch: every allocation one of its 8-byte parameter words points
 *     into (rpcu_ranges_patch_params marks them with the launch's seq);
 *   - a copy or memset whose destination lies in an allocation: that
 *     allocation, whole;
 *   - otherwise (a destination the record does not give as a device
 *     address: 2D/3D and array copies, a graph launch): every live device
 *     allocation and module global, since any of them may have changed.
 * Device-to-host copies write only host memory, which the trace's own
 * checkpoints compare; they are left out.  Allocations over
 * RP_CM_PERCMD_MAX_BYTES are left out (a lazy 8 GiB reservation would be
 * read in full after every command).
 *
 * The same footprint, with no size limit, marks the ranges a command may
 * have written (dirty_seq) when the trace has full keyframes: the next
 * keyframe met mid-replay compares those ranges with the capture's bytes
 * (rpcu_snapshot.c), with or without --per-command.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether range r belongs in a footprint at all. */
static int rpcu_percmd_readable(const rp_cm_range *head)
{
	const rpcu_range *r = (const rpcu_range *)head; /* its first member */
	return (r->kind == RPCU_R_DEVICE || r->kind == RPCU_R_GLOBAL) && r->size &&
	       r->size <= RP_CM_PERCMD_MAX_BYTES;
}

/* What rp_cm_footprint's queue needs. */
typedef struct rpcu_percmd_ctx {
	rpcu_state *s;
	uint64_t seq;
	CUstream stream;
} rpcu_percmd_ctx;

static rp_status rpcu_percmd_queue(void *ctx, const rp_cm_range *r, rp_diag *diag)
{
	rpcu_percmd_ctx *q = ctx;
	rpcu_state *s = q->s;
	uint8_t *buf = rp_cm_results_add(&s->percmd, q->seq, r->cap, r->size);
	CUresult cr;

	if (!buf)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "--per-command: out of memory for %llu bytes",
		                 (unsigned long long)r->size);
	if (!s->drv.p_cuMemcpyDtoHAsync)
		return rpcu_missing(s, diag, "cuMemcpyDtoHAsync");
	cr = s->drv.p_cuMemcpyDtoHAsync(buf, (CUdeviceptr)r->live, (size_t)r->size, q->stream);
	if (cr != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyDtoHAsync", cr, "reading an allocation for --per-command");
	return RP_OK;
}

/* Whether range r can be compared with a keyframe's bytes. */
static int rpcu_percmd_markable(const rp_cm_range *head)
{
	const rpcu_range *r = (const rpcu_range *)head;
	return (r->kind == RPCU_R_DEVICE || r->kind == RPCU_R_GLOBAL) && r->size;
}

/* The command may have written r: the next keyframe compares it. */
static rp_status rpcu_percmd_mark(void *ctx, const rp_cm_range *r, rp_diag *diag)
{
	rpcu_percmd_ctx *q = ctx;
	rpcu_state *s = q->s;
	(void)diag;
	s->ranges.v[(const rpcu_range *)(const void *)r - s->ranges.v].dirty_seq = q->seq;
	return RP_OK;
}

rp_status rpcu_percmd_after(rpcu_state *s, uint64_t seq, const char *name, const sbt_cm_call *c,
                            rp_diag *diag)
{
	int launch = strncmp(name, "cuLaunch", 8) == 0 && strcmp(name, "cuLaunchHostFunc") != 0;
	int graph = strcmp(name, "cuGraphLaunch") == 0;
	int write = strncmp(name, "cuMemcpy", 8) == 0 || strncmp(name, "cuMemset", 8) == 0;
	rpcu_percmd_ctx q = {s, seq, NULL};
	rp_cm_span t = RP_CM_SPAN(s->ranges.v, s->ranges.n);
	int capturing = 0;
	rp_status st;

	if (!launch && !graph && !write)
		return RP_OK;
	if (write && strstr(name, "DtoH"))
		return RP_OK;
	st = rpcu_stream_resolve(s, c->stream, &q.stream, &capturing, diag);
	if (st != RP_OK)
		return st;
	if (capturing)
		return RP_OK; /* recorded into a graph, not run */
	if (s->kf_check)
		st = rp_cm_footprint(&t, launch ? RP_CM_FOOT_LAUNCH : write ? RP_CM_FOOT_WRITE : RP_CM_FOOT_ALL,
		                     seq, c->dst, rpcu_percmd_markable, rpcu_percmd_mark, &q, diag);
	if (st != RP_OK || !s->per_command || s->fast_forward)
		return st;
	st = rp_cm_footprint(&t, launch ? RP_CM_FOOT_LAUNCH : write ? RP_CM_FOOT_WRITE : RP_CM_FOOT_ALL,
	                     seq, c->dst, rpcu_percmd_readable, rpcu_percmd_queue, &q, diag);
	/* The program went on after a synchronous copy or memset as after
	 * finished work: its next command, on any stream, may write what the
	 * copies just queued are to read.  They finish before it is issued. */
	if (st == RP_OK && write && !strstr(name, "Async")) {
		CUresult cr = s->drv.p_cuStreamSynchronize(q.stream);
		if (cr != CUDA_SUCCESS)
			st = rpcu_cufail(s, diag, "cuStreamSynchronize", cr,
			                 "waiting for the --per-command copies of a synchronous call");
	}
	return st;
}

rp_status rpcu_sync_contexts(rpcu_state *s, const char *what, rp_diag *diag)
{
	const rpcu_driver *d = &s->drv;
	rp_status st = RP_OK;
	size_t i;

	for (i = 0; i < s->objs.cap && st == RP_OK; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		CUresult r;
		if (o->kind != RPCU_O_CTX || o->dead ||
		    d->p_cuCtxSetCurrent((CUcontext)(uintptr_t)o->live) != CUDA_SUCCESS)
			continue;
		r = d->p_cuCtxSynchronize();
		if (r != CUDA_SUCCESS)
			st = rpcu_cufail(s, diag, "cuCtxSynchronize", r, what);
	}
	if (s->cur_ctx)
		d->p_cuCtxSetCurrent(s->cur_ctx);
	return st;
}

rp_status rpcu_percmd_results(rpcu_state *s, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	/* The copies sit on streams of every context the trace made. */
	rp_status st = rpcu_sync_contexts(s, "waiting for the --per-command copies", diag);
	if (st != RP_OK) {
		rpcu_percmd_free(s);
		return st;
	}
	return rp_cm_results_hand(&s->percmd, fn, ctx, diag);
}

void rpcu_percmd_free(rpcu_state *s)
{
	rp_cm_results_clear(&s->percmd);
}
