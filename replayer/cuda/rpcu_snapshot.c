/*
 * rpcu_snapshot.c - keyframe snapshots: the tsSnapshot records that put
 * back the contents of device memory when replay starts at a keyframe,
 * and the comparison of a full keyframe met mid-replay with the replay's
 * memory.
 *
 * A full keyframe (TRACESMITH_SNAPSHOT=launch or =N) holds the captured
 * bytes of every live allocation after (or before) a launch.  Met in the
 * middle of a replay it changes nothing (applying it would hide a
 * divergence), except for managed memory, which the CPU writes with no
 * recorded call: its records are applied, as a partial keyframe's are
 * (without them the bytes the program wrote before its first launch, or
 * between launches, never reach the replay).  With the comparison on (the
 * trace has full keyframes and the order is not sampled) each of its other
 * device-memory records whose range a
 * command since the last keyframe may have written (rpcu_range.dirty_seq,
 * the --per-command footprint: rpcu_percmd.c) is read back from the
 * device, once the work of every context is done, and compared byte for
 * byte.  The first range that differs names the keyframe, the command
 * (dirty_seq), the allocation and the first differing 64-byte block; the
 * core reports it as a difference from the capture.  Arrays, pinned host
 * memory, managed memory and VMM mappings are not compared.
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

/* The end of the keyframe being compared: counted, and every range is
 * clean again (the next keyframe compares what the commands after this
 * one may write). */
static void rpcu_snapshot_compare_end(rpcu_state *s)
{
	size_t i;
	if (s->kf_ranges_now)
		s->kf.compared++;
	if (s->kf_differs_now)
		s->kf.differ++;
	for (i = 0; i < s->ranges.n; i++)
		s->ranges.v[i].dirty_seq = 0;
	s->kf_left = 0;
}

void rpcu_snapshot_compare_begin(rpcu_state *s, uint64_t seq, uint64_t count, int compare)
{
	s->kf_compare = compare;
	s->kf_seq = seq;
	s->kf_left = count;
	s->kf_synced = 0;
	s->kf_ranges_now = 0;
	s->kf_differs_now = 0;
	if (!count)
		rpcu_snapshot_compare_end(s);
}

/* The first difference: into the run's report (rp_cm_keyframe_differs,
 * shared with HIP), and told once in CUDA terms (the allocation, where in
 * it, the last kernel given a pointer into it). */
static void rpcu_snapshot_differs(rpcu_state *s, const rpcu_range *r, const sbt_cm_call *c,
                                  const uint8_t *capture, const uint8_t *replay)
{
	rp_cm_copy_source src;
	uint64_t at = 0;

	s->kf_differs_now = 1;
	if (!rp_cm_keyframe_differs(&s->kf, s->kf_seq, r->dirty_seq, c->dst, capture, replay, c->size, &at) ||
	    s->kf_noted || s->quiet)
		return;
	s->kf_noted = 1;
	rp_cm_copy_source_take(&src, &r->head);
	rp_cm_note_keyframe("cuda", s->kf_seq, r->dirty_seq, &src, c->dst - r->cap + at, s->kf.diff_len);
}

/* One record of a full keyframe met mid-replay (rpcu_snapshot_compare_begin). */
static rp_status rpcu_snapshot_compare(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint8_t *capture = NULL, *replay = NULL;
	const rpcu_range *r;
	uint64_t live;
	rp_status st = RP_OK;
	long i;
	CUresult cr;

	/* a chunk the capture could not copy has neither data nor value=1 */
	if (!s->kf_compare || !c->size || c->sub == SBT_CM_MEM_ARRAY || (!c->blob && c->value != 1) ||
	    (i = rpcu_ranges_find(&s->ranges, c->dst)) < 0)
		goto out_next;
	r = &s->ranges.v[i];
	if (!r->dirty_seq || (r->kind != RPCU_R_DEVICE && r->kind != RPCU_R_GLOBAL))
		goto out_next;
	if ((st = rpcu_translate(s, c->dst, c->size, "keyframe record of", &live, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuMemcpyDtoH)) != RP_OK)
		goto out_next;
	if (!s->kf_synced) {
		/* the capture waited for the launch's stream; the replay waits
		 * for all its work, so the bytes do not depend on timing.  Work
		 * that failed (a kernel's illegal address) leaves the keyframe
		 * uncompared: the call that waits for it next reports it, as
		 * without the comparison. */
		rp_diag ignored;
		if (rpcu_memop_pending(s)) {
			/* a stream memory wait may hold its stream until a write
			 * later in the trace: waiting for all work would never end */
			if (!s->memop_noted && !s->quiet)
				rpcu_warn(s, "keyframe at seq %llu not compared: a stream memory wait replayed before it "
				          "is still waiting (said once)", (unsigned long long)s->kf_seq);
			s->memop_noted = 1;
			s->kf_synced = -1;
			goto out_next;
		}
		if (rpcu_sync_contexts(s, "waiting for the work before a keyframe", &ignored) != RP_OK) {
			s->kf_synced = -1;
			goto out_next;
		}
		s->kf_synced = 1;
	}
	if (s->kf_synced < 0)
		goto out_next;
	if (c->value == 1 && !c->blob)
		capture = calloc(1, (size_t)c->size);
	else if ((st = rpcu_blob_exact(s, c->blob, c->size, &capture, diag)) != RP_OK)
		goto out_next;
	replay = malloc((size_t)c->size);
	if (!capture || !replay) {
		st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory comparing %llu bytes with the keyframe",
		               (unsigned long long)c->size);
		goto out_next;
	}
	if (s->relocate_memory)
		rpcu_ranges_patch_data(&s->ranges, capture, c->size, c->dst);
	cr = s->drv.p_cuMemcpyDtoH(replay, (CUdeviceptr)live, (size_t)c->size);
	if (cr != CUDA_SUCCESS) {
		s->kf_synced = -1; /* as above: left to the next call that waits */
		goto out_next;
	}
	s->kf.ranges++;
	s->kf.bytes += c->size;
	s->kf_ranges_now++;
	if (memcmp(capture, replay, (size_t)c->size) != 0)
		rpcu_snapshot_differs(s, r, c, capture, replay);
out_next:
	free(capture);
	free(replay);
	if (--s->kf_left == 0)
		rpcu_snapshot_compare_end(s);
	return st;
}

/* Restore one record: its bytes (or zeros) into the replay's memory. */
static rp_status rpcu_snapshot_apply(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint64_t live;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
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

/* A managed-memory record of a full keyframe met mid-replay: applied once
 * the work of every context before the keyframe is done (a kernel before
 * it may still read or write the memory; the capture waited for it). */
static rp_status rpcu_snapshot_managed(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;

	/* a chunk the capture could not copy is left as the replay has it */
	if (c->size && (c->blob || c->value == 1)) {
		if (s->kf_synced <= 0 &&
		    (st = rpcu_sync_contexts(s, "waiting for the work before a keyframe", diag)) != RP_OK)
			goto out_next;
		s->kf_synced = 1;
		st = rpcu_snapshot_apply(s, c, diag);
	}
out_next:
	if (--s->kf_left == 0)
		rpcu_snapshot_compare_end(s);
	return st;
}

rp_status rpcu_snapshot(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	(void)k;
	if (s->snap_left) {
		s->snap_left--;
		return rpcu_snapshot_apply(s, c, diag);
	}
	if (s->kf_left && c->sub == SBT_CM_MEM_MANAGED)
		return rpcu_snapshot_managed(s, c, diag);
	if (s->kf_left)
		return rpcu_snapshot_compare(s, c, diag);
	return RP_OK; /* not restoring from this keyframe: changes nothing */
}
