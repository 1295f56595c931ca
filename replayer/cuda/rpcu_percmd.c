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
 * writes, plus whatever other streams had written by then.
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
 * RPCU_PERCMD_MAX_BYTES are left out (a lazy 8 GiB reservation would be
 * read in full after every command).
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdlib.h>
#include <string.h>

#define RPCU_PERCMD_MAX_BYTES ((uint64_t)64 << 20)

/* Whether range r belongs in a footprint at all. */
static int rpcu_percmd_readable(const rpcu_range *r)
{
	return (r->kind == RPCU_R_DEVICE || r->kind == RPCU_R_GLOBAL) && r->size &&
	       r->size <= RPCU_PERCMD_MAX_BYTES;
}

static rp_status rpcu_percmd_queue(rpcu_state *s, uint64_t seq, const rpcu_range *r, CUstream stream,
                                   rp_diag *diag)
{
	rpcu_percmd *p;
	CUresult cr;

	if (s->npercmd == s->cap_percmd) {
		size_t ncap = s->cap_percmd ? 2 * s->cap_percmd : 64;
		rpcu_percmd *n = realloc(s->percmd, ncap * sizeof(*n));
		if (!n)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "--per-command: out of memory");
		s->percmd = n;
		s->cap_percmd = ncap;
	}
	p = &s->percmd[s->npercmd];
	p->seq = seq;
	p->cap = r->cap;
	p->size = r->size;
	p->buf = malloc((size_t)r->size);
	if (!p->buf)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "--per-command: out of memory for %llu bytes",
		                 (unsigned long long)r->size);
	s->npercmd++;
	if (!s->drv.p_cuMemcpyDtoHAsync)
		return rpcu_missing(s, diag, "cuMemcpyDtoHAsync");
	cr = s->drv.p_cuMemcpyDtoHAsync(p->buf, (CUdeviceptr)r->live, (size_t)r->size, stream);
	if (cr != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyDtoHAsync", cr, "reading an allocation for --per-command");
	return RP_OK;
}

rp_status rpcu_percmd_after(rpcu_state *s, uint64_t seq, const char *name, const sbt_cm_call *c,
                            rp_diag *diag)
{
	int launch = strncmp(name, "cuLaunch", 8) == 0 && strcmp(name, "cuLaunchHostFunc") != 0;
	int graph = strcmp(name, "cuGraphLaunch") == 0;
	int write = strncmp(name, "cuMemcpy", 8) == 0 || strncmp(name, "cuMemset", 8) == 0;
	CUstream stream = NULL;
	int capturing = 0;
	long at = -1;
	rp_status st;
	size_t i;

	if (!launch && !graph && !write)
		return RP_OK;
	if (write && strstr(name, "DtoH"))
		return RP_OK;
	st = rpcu_stream_resolve(s, c->stream, &stream, &capturing, diag);
	if (st != RP_OK)
		return st;
	if (capturing)
		return RP_OK; /* recorded into a graph, not run */
	if (launch) {
		for (i = 0; i < s->ranges.n; i++)
			if (s->ranges.v[i].kernel_seq == seq && rpcu_percmd_readable(&s->ranges.v[i])) {
				st = rpcu_percmd_queue(s, seq, &s->ranges.v[i], stream, diag);
				if (st != RP_OK)
					return st;
			}
		return RP_OK;
	}
	if (write)
		at = rpcu_ranges_find(&s->ranges, c->dst);
	if (at >= 0 && rpcu_percmd_readable(&s->ranges.v[at]))
		return rpcu_percmd_queue(s, seq, &s->ranges.v[at], stream, diag);
	if (at >= 0)
		return RP_OK; /* host memory or too large */
	for (i = 0; i < s->ranges.n; i++)
		if (rpcu_percmd_readable(&s->ranges.v[i])) {
			st = rpcu_percmd_queue(s, seq, &s->ranges.v[i], stream, diag);
			if (st != RP_OK)
				return st;
		}
	return RP_OK;
}

rp_status rpcu_percmd_results(rpcu_state *s, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	const rpcu_driver *d = &s->drv;
	rp_status st = RP_OK;
	size_t i;

	/* The copies sit on streams of every context the trace made. */
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		CUresult r;
		if (o->kind != RPCU_O_CTX || o->dead ||
		    d->p_cuCtxSetCurrent((CUcontext)(uintptr_t)o->live) != CUDA_SUCCESS)
			continue;
		r = d->p_cuCtxSynchronize();
		if (r != CUDA_SUCCESS) {
			st = rpcu_cufail(s, diag, "cuCtxSynchronize", r, "waiting for the --per-command copies");
			goto out_free;
		}
	}
	if (s->cur_ctx)
		d->p_cuCtxSetCurrent(s->cur_ctx);
	for (i = 0; i < s->npercmd && st == RP_OK; i++)
		st = fn(ctx, s->percmd[i].seq, s->percmd[i].cap, s->percmd[i].buf, s->percmd[i].size, diag);
out_free:
	rpcu_percmd_free(s);
	return st;
}

void rpcu_percmd_free(rpcu_state *s)
{
	while (s->npercmd)
		free(s->percmd[--s->npercmd].buf);
}
