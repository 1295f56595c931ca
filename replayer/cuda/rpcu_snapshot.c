/*
 * rpcu_snapshot.c - keyframe snapshots: the tsSnapshot records that put
 * back the contents of device memory when replay starts at a keyframe.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pinned host memory (a SBT_CM_KF_HOST_INPUTS keyframe's, or any
 * keyframe's): the replay's own allocation is written by the CPU, as the
 * program's was, once the work before it is done (a kernel before may
 * still read or write it). */
static rp_status rpcu_snapshot_host(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint64_t live;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	if ((st = rpcu_translate(s, c->dst, c->size, "snapshot of", &live, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuCtxSynchronize)) != RP_OK)
		return st;
	r = s->drv.p_cuCtxSynchronize();
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxSynchronize", r, "restoring pinned host memory");
	if (c->value == 1 && !c->blob) {
		memset((void *)(uintptr_t)live, 0, c->size);
		return RP_OK;
	}
	if ((st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK)
		return st;
	if (s->relocate_memory)
		rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
	memcpy((void *)(uintptr_t)live, buf, c->size);
	free(buf);
	return RP_OK;
}

rp_status rpcu_snapshot(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	uint64_t live;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	(void)k;
	if (!s->snap_left)
		return RP_OK; /* not restoring from this keyframe: changes nothing */
	s->snap_left--;
	if (!c->size)
		return RP_OK;
	if (c->sub == SBT_CM_MEM_ARRAY)
		return rpcu_snapshot_array(s, c, diag);
	if (c->sub == SBT_CM_MEM_HOST || c->sub == SBT_CM_MEM_HOST_ALLOC ||
	    c->sub == SBT_CM_MEM_HOST_REGISTER)
		return rpcu_snapshot_host(s, c, diag);
	if (c->value == 1 && !c->blob) { /* a chunk of zero bytes, recorded without data */
		if ((st = rpcu_translate(s, c->dst, c->size, "snapshot of", &live, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemsetD8)) != RP_OK)
			return st;
		r = s->drv.p_cuMemsetD8((CUdeviceptr)live, 0, c->size);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemsetD8", r, "restoring the snapshot");
	}
	if ((st = rpcu_translate(s, c->dst, c->size, "snapshot of", &live, diag)) != RP_OK ||
	    (st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK || (st = RPCU_NEED(cuMemcpyHtoD)) != RP_OK) {
		free(buf);
		return st;
	}
	if (s->relocate_memory)
		rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
	r = s->drv.p_cuMemcpyHtoD((CUdeviceptr)live, buf, c->size);
	free(buf);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyHtoD", r, "restoring the snapshot");
}
