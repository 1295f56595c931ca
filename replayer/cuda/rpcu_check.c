/*
 * rpcu_check.c - answering the core's checkpoint requests with the bytes a
 * device->host copy read in the replay, and the one report of where they
 * first diverge from the captured bytes.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The result the call at seq had at capture (CUDA_SUCCESS when it cannot
 * be read). */
static CUresult rpcu_failed_result(rpcu_state *s, uint64_t seq)
{
	sbt_record rec;
	sbt_cm_call c;
	if (sbt_reader_seek_seq(s->trace, seq) != SBT_OK || sbt_reader_next(s->trace, &rec) != SBT_OK ||
	    rec.seq != seq || sbt_cm_decode(rec.payload, rec.payload_len, &c) != SBT_OK)
		return CUDA_SUCCESS;
	return (CUresult)c.result;
}

static const char *rpcu_sub_name(unsigned sub)
{
	switch (sub) {
	case SBT_CM_MEM_DEVICE: return "cuMemAlloc";
	case SBT_CM_MEM_PITCH: return "cuMemAllocPitch";
	case SBT_CM_MEM_ASYNC: return "cuMemAllocAsync";
	case SBT_CM_MEM_POOL: return "cuMemAllocFromPoolAsync";
	case SBT_CM_MEM_MANAGED: return "cuMemAllocManaged";
	case SBT_CM_MEM_HOST: return "cuMemAllocHost";
	case SBT_CM_MEM_HOST_ALLOC: return "cuMemHostAlloc";
	case SBT_CM_MEM_HOST_REGISTER: return "cuMemHostRegister";
	case SBT_CM_MEM_VMM_RESERVE: return "cuMemAddressReserve";
	case SBT_CM_MEM_GLOBAL: return "module global";
	default: return "allocation";
	}
}

/* The first difference with the capture, told in CUDA terms: the copy,
 * the allocation it read and where in it, and the last kernel given a
 * pointer into that allocation (the likeliest writer).  Once. */
static void rpcu_note_mismatch(rpcu_state *s, const rpcu_copy *c, const sbt_checkpoint *cp,
                               const uint8_t *bytes)
{
	if (!s->noted_mismatch &&
	    rp_cm_note_mismatch("cuda", c->seq, &c->src, rpcu_sub_name(c->alloc_sub), cp, bytes))
		s->noted_mismatch = 1;
}

rp_status rpcu_checkpoint_bytes(rpcu_state *s, const sbt_checkpoint *cp, const void **bytes_out,
                                rp_diag *diag)
{
	uint64_t pos = cp->object + cp->offset, live, off;
	size_t i;
	CUresult r;

	s->call = NULL;
	for (i = s->ncopies; i-- > 0;) {
		rpcu_copy *c = &s->copies[i];
		if (c->seq != cp->call_seq)
			continue;
		if (c->done && s->drv.not_run)
			s->drv.p_cuEventSynchronize(c->done);
		rpcu_not_run_check(s, NULL); /* a launch the double ran late */
		if (s->not_run_seq && cp->call_seq > s->not_run_seq) {
			/* After a launch that ran nothing: its bytes say nothing. */
			c->served = 1;
			*bytes_out = NULL;
			rp_diag_set(diag, "after the launch at seq %llu, which ran nothing on the test double",
			            (unsigned long long)s->not_run_seq);
			return RP_OK;
		}
		if (c->why_not) {
			rp_diag_set(diag, "the copy at seq %llu cannot be replayed: %s", (unsigned long long)c->seq,
			            c->why_not);
			return RP_ERR_UNSUPPORTED;
		}
		if (c->done) {
			r = s->drv.p_cuEventSynchronize(c->done);
			if (r != CUDA_SUCCESS) {
				char err[96];
				/* An error of this copy or of earlier work on its
				 * context (a kernel's fault is reported late). */
				rp_diag_set(diag, "record seq %llu (%s): waiting for its copy: cuEventSynchronize "
				            "failed with %s", (unsigned long long)c->seq,
				            c->call ? c->call : "a copy", rpcu_cu_name(&s->drv, r, err, sizeof(err)));
				return RP_ERR_BACKEND;
			}
		}
		if (rp_cm_copy_offset(cp, c->vstart, c->len, c->seq, "wrote", &off, diag) != RP_OK)
			return RP_ERR_TRACE;
		c->served = 1;
		*bytes_out = c->ptr + off;
		rpcu_note_mismatch(s, c, cp, c->ptr + off);
		return RP_OK;
	}
	if (!(s->restore_seq && cp->call_seq < s->restore_seq)) {
		CUresult failed = rpcu_failed_result(s, cp->call_seq);
		if (failed != CUDA_SUCCESS) {
			/* The copy failed at capture, so it was not replayed: its
			 * checkpoint holds whatever the host buffer held. */
			char err[96];
			*bytes_out = NULL;
			rp_diag_set(diag, "the copy at seq %llu failed at capture with %s",
			            (unsigned long long)cp->call_seq, rpcu_cu_name(&s->drv, failed, err, sizeof(err)));
			return RP_OK;
		}
		rp_diag_set(diag, "this replay made no device-to-host copy at seq %llu",
		            (unsigned long long)cp->call_seq);
		return RP_ERR_NOT_FOUND;
	}
	/* The copy lies before the keyframe the replay started at: its source
	 * as it is now (the keyframe's contents) is the best there is. */
	if (rpcu_ranges_translate(&s->ranges, pos, cp->length, &live, NULL) != 0) {
		rp_diag_set(diag, "the copy at seq %llu lies before the keyframe at seq %llu, and its source "
		            "0x%llx is not in an allocation the keyframe restored", (unsigned long long)cp->call_seq,
		            (unsigned long long)s->restore_seq, (unsigned long long)pos);
		return RP_ERR_NOT_FOUND;
	}
	{
		uint8_t *n = realloc(s->scratch, cp->length ? cp->length : 1);
		if (!n) {
			rp_diag_set(diag, "out of memory for %llu bytes", (unsigned long long)cp->length);
			return RP_ERR_NOMEM;
		}
		s->scratch = n;
	}
	r = s->drv.p_cuCtxSynchronize();
	if (r == CUDA_SUCCESS && cp->length)
		r = s->drv.p_cuMemcpyDtoH ? s->drv.p_cuMemcpyDtoH(s->scratch, (CUdeviceptr)live, cp->length)
		                          : CUDA_ERROR_NOT_FOUND;
	if (r != CUDA_SUCCESS) {
		char err[96];
		rp_diag_set(diag, "reading 0x%llx for the copy at seq %llu: %s", (unsigned long long)pos,
		            (unsigned long long)cp->call_seq, rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		return RP_ERR_BACKEND;
	}
	*bytes_out = s->scratch;
	return RP_OK;
}
