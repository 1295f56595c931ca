/*
 * rphip_snapshot.c - HIP keyframe snapshots (interpose/hip/thip_kf.c
 * writes them): the hip.tsSnapshot records that put back the contents of
 * device memory when a replay starts at a keyframe, or where a partial
 * keyframe stands, and the comparison of a full keyframe met mid-replay
 * with the replay's memory, as the CUDA backend does (docs/cuda-replay.md
 * "Keyframes compared"; the report and the note are the core's:
 * rp_keyframe_report, rp_cm_keyframe_differs, rp_cm_note_keyframe).
 *
 * Mid-replay a full keyframe changes nothing (applying it would hide a
 * divergence), except for managed memory, which the CPU writes with no
 * recorded call (its records are applied, as a partial keyframe's are):
 * with the comparison on (the trace has full keyframes and the order is
 * not sampled) each of its other records whose range a command since the last
 * keyframe may have written (rphip_range.dirty_seq, marked by the
 * --per-command footprint: rphip_percmd.c) is read back once the device's
 * work is done (hipDeviceSynchronize, as capture waited before copying)
 * and compared byte for byte.  The first range that differs in a run is
 * kept and handed to the core with the counts.  Rows of HIP arrays (sub
 * SBT_CM_MEM_ARRAY) are restored (rphip_array_snapshot), never compared:
 * array copies mark no footprint.
 */
#include "replayer/hip/rphip_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of the keyframe being compared: counted, and every range is
 * clean again (the next keyframe compares what the commands after this
 * one may write). */
static void rphip_snapshot_compare_end(rphip_state *s)
{
	if (s->kf_ranges_now)
		s->kf.compared++;
	if (s->kf_differs_now)
		s->kf.differ++;
	for (size_t i = 0; i < s->nranges; i++)
		s->ranges[i].dirty_seq = 0;
	s->kf_left = 0;
}

void rphip_snapshot_compare_begin(rphip_state *s, uint64_t seq, uint64_t count, int compare)
{
	s->kf_compare = compare;
	s->kf_seq = seq;
	s->kf_left = count;
	s->kf_synced = 0;
	s->kf_ranges_now = 0;
	s->kf_differs_now = 0;
	if (!count)
		rphip_snapshot_compare_end(s);
}

/* One record of a full keyframe met mid-replay. */
static rp_status rphip_snapshot_compare(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint8_t *capture = NULL, *replay = NULL;
	const rphip_range *r;
	uint64_t live, at = 0;
	rp_status st = RP_OK;
	long i;

	/* a chunk the capture could not read has neither data nor value=1 */
	if (!s->kf_compare || !c->size || c->result || (!c->blob && c->value != 1) || (i = rphip_range_find(s, c->dst)) < 0)
		goto out_next;
	r = &s->ranges[i];
	if (!r->dirty_seq)
		goto out_next;
	if ((st = rphip_translate(s, c->dst, c->size, "keyframe record of", &live, diag)) != RP_OK)
		goto out_next;
	if (!s->kf_synced) {
		/* Work that failed (a kernel's illegal address) leaves the
		 * keyframe uncompared: the call that waits next reports it, as
		 * without the comparison. */
		s->kf_synced = s->rt.p_hipDeviceSynchronize() == hipSuccess ? 1 : -1;
	}
	if (s->kf_synced < 0)
		goto out_next;
	if (c->value == 1 && !c->blob)
		capture = calloc(1, (size_t)c->size);
	else if ((st = rphip_blob(s, c->blob, c->size, &capture, NULL, diag)) != RP_OK)
		goto out_next;
	replay = malloc((size_t)c->size);
	if (!capture || !replay) {
		st = rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory comparing %llu bytes with the keyframe",
		                (unsigned long long)c->size);
		goto out_next;
	}
	if (s->rt.p_hipMemcpyAsync(replay, (void *)(uintptr_t)live, (size_t)c->size, hipMemcpyDeviceToHost,
	                           NULL) != hipSuccess ||
	    s->rt.p_hipStreamSynchronize(NULL) != hipSuccess) {
		s->kf_synced = -1; /* as above: left to the next call that waits */
		goto out_next;
	}
	s->kf.ranges++;
	s->kf.bytes += c->size;
	s->kf_ranges_now++;
	if (memcmp(capture, replay, (size_t)c->size) == 0)
		goto out_next;
	s->kf_differs_now = 1;
	if (rp_cm_keyframe_differs(&s->kf, s->kf_seq, r->dirty_seq, c->dst, capture, replay, c->size, &at) &&
	    !s->kf_noted && !s->quiet) {
		rp_cm_copy_source src;
		s->kf_noted = 1;
		rp_cm_copy_source_take(&src, &r->head);
		rp_cm_note_keyframe("hip", s->kf_seq, r->dirty_seq, &src, c->dst - r->cap + at,
		                    s->kf.diff_len);
	}
out_next:
	free(capture);
	free(replay);
	if (--s->kf_left == 0)
		rphip_snapshot_compare_end(s);
	return st;
}

/* Restore one record: its bytes (or zeros) into the replay's memory,
 * once the work before it is done. */
static rp_status rphip_snapshot_apply(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint8_t *buf = NULL;
	uint64_t live;
	hipError_t r;
	rp_status st;

	if (!c->size || c->result)
		return RP_OK; /* the capture could not read it: left as the replay has it */
	if (c->sub == SBT_CM_MEM_ARRAY)
		return rphip_array_snapshot(s, c, diag);
	if ((st = rphip_translate(s, c->dst, c->size, "snapshot of", &live, diag)) != RP_OK)
		return st;
	/* every stream's work before the keyframe may use it (the capture
	 * waited for the device before copying) */
	r = s->rt.p_hipDeviceSynchronize();
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipDeviceSynchronize (before restoring the snapshot)", r);
	if (c->value == 1 && !c->blob) {
		r = s->rt.p_hipMemsetAsync((void *)(uintptr_t)live, 0, (size_t)c->size, NULL);
		if (r == hipSuccess)
			r = s->rt.p_hipStreamSynchronize(NULL);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipMemsetAsync (restoring the snapshot)", r);
	}
	if ((st = rphip_blob(s, c->blob, c->size, &buf, NULL, diag)) != RP_OK)
		return st;
	r = s->rt.p_hipMemcpyAsync((void *)(uintptr_t)live, buf, (size_t)c->size, hipMemcpyHostToDevice,
	                           NULL);
	if (r == hipSuccess)
		r = s->rt.p_hipStreamSynchronize(NULL);
	free(buf);
	return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipMemcpyAsync (restoring the snapshot)", r);
}

rp_status rphip_snapshot(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	if (s->snap_left) {
		s->snap_left--;
		return rphip_snapshot_apply(s, c, diag);
	}
	if (s->kf_left && c->sub == SBT_CM_MEM_MANAGED) {
		/* Managed memory is written by the CPU too, with no recorded
		 * call: the keyframe's bytes are applied, not compared, as a
		 * partial keyframe's are. */
		rp_status st = rphip_snapshot_apply(s, c, diag);
		if (--s->kf_left == 0)
			rphip_snapshot_compare_end(s);
		return st;
	}
	if (s->kf_left)
		return rphip_snapshot_compare(s, c, diag);
	return RP_OK;
}
