/*
 * rpcu_copy.c - copies and memsets, direct or captured into a graph.
 *
 * Copies keep host-synchronous calls host-synchronous: on the legacy
 * stream the synchronous entry point is called; on any other stream (the
 * per-thread one, or all work on one stream) the async entry point
 * followed by a stream synchronization.  Host buffers that must outlive
 * the call are handed to rpcu_stage.c.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rpcu_is_async(sbt_cm_kind k)
{
	return k == SBT_CM_K_cuMemcpyAsync || k == SBT_CM_K_cuMemcpyHtoDAsync ||
	       k == SBT_CM_K_cuMemcpyDtoHAsync || k == SBT_CM_K_cuMemcpyDtoDAsync ||
	       k == SBT_CM_K_cuMemcpyPeerAsync || k == SBT_CM_K_cuMemcpy2DAsync ||
	       k == SBT_CM_K_cuMemcpy3DAsync || k == SBT_CM_K_cuMemsetD8Async ||
	       k == SBT_CM_K_cuMemsetD16Async || k == SBT_CM_K_cuMemsetD32Async ||
	       k == SBT_CM_K_cuMemsetD2D8Async || k == SBT_CM_K_cuMemsetD2D16Async ||
	       k == SBT_CM_K_cuMemsetD2D32Async || k == SBT_CM_K_cuMemcpyHtoAAsync ||
	       k == SBT_CM_K_cuMemcpyAtoHAsync;
}

rp_status rpcu_translate(rpcu_state *s, uint64_t addr, uint64_t len, const char *what, uint64_t *live,
                         rp_diag *diag)
{
	long i;
	if (rpcu_ranges_translate(&s->ranges, addr, len, live, &i) == 0) {
		/* what is written: a copy's or memset's destination, a snapshot */
		int writes = strcmp(what, "destination") == 0 || strcmp(what, "snapshot of") == 0;
		for (size_t k = 0; writes && k < s->nreadonly; k++) {
			const rpcu_readonly *ro = &s->readonly[k];
			if (ro->cap < addr + len && addr < ro->cap + ro->size)
				return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx + %llu is read-only memory "
				                 "(cuMemSetAccess at seq %llu made 0x%llx + %llu "
				                 "CU_MEM_ACCESS_FLAGS_PROT_READ): writing it faults on a GPU",
				                 what, (unsigned long long)addr, (unsigned long long)len,
				                 (unsigned long long)ro->seq, (unsigned long long)ro->cap,
				                 (unsigned long long)ro->size);
		}
		return RP_OK;
	}
	if (i >= 0)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx + %llu runs past the end of the allocation "
		                 "0x%llx (%llu bytes, seq %llu)", what, (unsigned long long)addr,
		                 (unsigned long long)len, (unsigned long long)s->ranges.v[i].cap,
		                 (unsigned long long)s->ranges.v[i].size, (unsigned long long)s->ranges.v[i].seq);
	/* The latest free of an allocation that held it, if one is kept. */
	for (uint64_t k = s->nfreed; k-- > 0 && s->nfreed - k <= RPCU_FREED_KEEP;) {
		const rpcu_freed *f = &s->freed[k % RPCU_FREED_KEEP];
		if (addr >= f->cap && addr - f->cap < f->size)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx (%llu bytes) lies in no allocation the "
			                 "trace made (the allocation 0x%llx of %llu bytes made at seq %llu was freed "
			                 "at seq %llu)", what, (unsigned long long)addr, (unsigned long long)len,
			                 (unsigned long long)f->cap, (unsigned long long)f->size,
			                 (unsigned long long)f->seq, (unsigned long long)f->freed_seq);
	}
	return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx (%llu bytes) lies in no allocation the trace "
	                 "made", what, (unsigned long long)addr, (unsigned long long)len);
}


/* After a host-synchronous call issued as async on a stream of ours. */
static rp_status rpcu_sync_after(rpcu_state *s, int sync, CUstream stream, rp_diag *diag)
{
	CUresult r;
	if (!sync || !stream)
		return RP_OK;
	r = s->drv.p_cuStreamSynchronize ? s->drv.p_cuStreamSynchronize(stream) : s->drv.p_cuCtxSynchronize();
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuStreamSynchronize", r, NULL);
}

rp_status rpcu_blob_exact(rpcu_state *s, uint64_t id, uint64_t size, uint8_t **out, rp_diag *diag)
{
	void *data = NULL;
	size_t len = 0;
	sbt_status sst;
	if (!id)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record carries no data (no blob)");
	sst = sbt_reader_blob_get(s->trace, id, &data, &len);
	if (sst != SBT_OK)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "blob %llu: %s", (unsigned long long)id, sbt_strerror(sst));
	if (len != size) {
		free(data);
		return rpcu_fail(s, diag, RP_ERR_TRACE, "blob %llu holds %zu bytes, the copy %llu",
		                 (unsigned long long)id, len, (unsigned long long)size);
	}
	*out = data;
	return RP_OK;
}

rp_status rpcu_copy_htod(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	uint64_t live;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	if (!c->size)
		return RP_OK;
	if ((st = rpcu_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK ||
	    (st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK)
		return st;
	if (s->relocate_memory)
		rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyHtoD)) == RP_OK &&
		    (r = s->drv.p_cuMemcpyHtoD((CUdeviceptr)live, buf, c->size)) != CUDA_SUCCESS)
			st = rpcu_cufail(s, diag, "cuMemcpyHtoD", r, NULL);
		free(buf);
		return st;
	}
	if ((st = RPCU_NEED(cuMemcpyHtoDAsync)) != RP_OK) {
		free(buf);
		return st;
	}
	r = s->drv.p_cuMemcpyHtoDAsync((CUdeviceptr)live, buf, c->size, stream);
	if (r != CUDA_SUCCESS) {
		free(buf);
		return rpcu_cufail(s, diag, "cuMemcpyHtoDAsync", r, NULL);
	}
	if (sync) {
		st = rpcu_sync_after(s, sync, stream, diag);
		free(buf);
		return st;
	}
	return rpcu_stage_push(s, buf, c->size, stream, diag);
}

rp_status rpcu_copy_dtoh(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	uint64_t live, host;
	uint8_t *buf = NULL, *ptr;
	rpcu_copy *cp;
	rp_status st;
	CUresult r;
	long hi;
	if (!c->size)
		return RP_OK;
	if ((st = rpcu_translate(s, c->src, c->size, "source", &live, diag)) != RP_OK)
		return st;
	/* Into pinned memory the trace allocated: where the program had it. */
	if (c->host && rpcu_ranges_translate(&s->ranges, c->host, c->size, &host, &hi) == 0 &&
	    s->ranges.v[hi].kind == RPCU_R_HOST) {
		ptr = (uint8_t *)(uintptr_t)host;
	} else {
		ptr = buf = malloc(c->size);
		if (!buf)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                 (unsigned long long)c->size);
	}
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyDtoH)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuMemcpyDtoH(ptr, (CUdeviceptr)live, c->size);
	} else {
		if ((st = RPCU_NEED(cuMemcpyDtoHAsync)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuMemcpyDtoHAsync(ptr, (CUdeviceptr)live, c->size, stream);
	}
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, sync && !stream ? "cuMemcpyDtoH" : "cuMemcpyDtoHAsync", r, NULL);
		goto out_free;
	}
	if ((st = rpcu_sync_after(s, sync, stream, diag)) != RP_OK)
		goto out_free;
	cp = rpcu_copy_add(s, ptr, buf, c->size, c->src, c->src);
	if (!cp) {
		st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	if (!sync)
		cp->done = rpcu_mark(s, stream);
	return RP_OK;
out_free:
	free(buf);
	return st;
}

rp_status rpcu_copy_dtod(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	uint64_t ld, ls;
	rp_status st;
	CUresult r;
	if (!c->size)
		return RP_OK;
	if ((st = rpcu_translate(s, c->dst, c->size, "destination", &ld, diag)) != RP_OK ||
	    (st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK)
		return st;
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyDtoD)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoD((CUdeviceptr)ld, (CUdeviceptr)ls, c->size);
	} else {
		if ((st = RPCU_NEED(cuMemcpyDtoDAsync)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoDAsync((CUdeviceptr)ld, (CUdeviceptr)ls, c->size, stream);
	}
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyDtoD", r, NULL);
	return rpcu_sync_after(s, sync, stream, diag);
}

/* Host to host (cuMemcpy with both sides in host memory): replayable when
 * both sides are pinned memory the trace allocated; the source bytes are
 * not in the trace otherwise, and a checkpoint of it says so. */
rp_status rpcu_copy_htoh(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	uint64_t ld, ls;
	long di, si;
	rpcu_copy *cp;
	CUresult r;
	if (!c->size)
		return RP_OK;
	if (rpcu_ranges_translate(&s->ranges, c->dst, c->size, &ld, &di) != 0 ||
	    rpcu_ranges_translate(&s->ranges, c->host, c->size, &ls, &si) != 0 || !s->drv.p_cuMemcpyAsync) {
		cp = rpcu_copy_add(s, NULL, NULL, c->size, c->dst, 0);
		if (!cp)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		cp->why_not = "a host-to-host copy whose source is not memory the trace allocated: its bytes "
		              "are not in the trace";
		return RP_OK;
	}
	r = s->drv.p_cuMemcpyAsync((CUdeviceptr)ld, (CUdeviceptr)ls, c->size, stream);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyAsync", r, NULL);
	if (sync && !stream && (r = s->drv.p_cuCtxSynchronize()) != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxSynchronize", r, NULL);
	if (rpcu_sync_after(s, sync, stream, diag) != RP_OK)
		return RP_ERR_BACKEND;
	cp = rpcu_copy_add(s, (uint8_t *)(uintptr_t)ld, NULL, c->size, c->dst, 0);
	if (!cp)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (!sync)
		cp->done = rpcu_mark(s, stream);
	return RP_OK;
}

rp_status rpcu_copy_peer(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	rpcu_obj *dc = rpcu_objs_get(&s->objs, RPCU_O_CTX, c->ctx);
	rpcu_obj *sc = rpcu_objs_get(&s->objs, RPCU_O_CTX, c->src_ctx);
	uint64_t ld, ls;
	rp_status st;
	CUresult r;
	if (!dc || !sc)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "context 0x%llx was never created in the trace",
		                 (unsigned long long)(dc ? c->src_ctx : c->ctx));
	if ((st = rpcu_translate(s, c->dst, c->size, "destination", &ld, diag)) != RP_OK ||
	    (st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK)
		return st;
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyPeer)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyPeer((CUdeviceptr)ld, (CUcontext)(uintptr_t)dc->live, (CUdeviceptr)ls,
		                          (CUcontext)(uintptr_t)sc->live, c->size);
	} else {
		if ((st = RPCU_NEED(cuMemcpyPeerAsync)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyPeerAsync((CUdeviceptr)ld, (CUcontext)(uintptr_t)dc->live, (CUdeviceptr)ls,
		                               (CUcontext)(uintptr_t)sc->live, c->size, stream);
	}
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyPeer", r, NULL);
	return rpcu_sync_after(s, sync, stream, diag);
}

/*
 * The bytes one device side of a 2D or 3D copy touches, from its base:
 * they start at x + (z * alloc_h + y) * pitch and run (depth - 1) planes
 * of pitch * alloc_h, (height - 1) rows of pitch and width bytes (2D:
 * z = 0, depth = 1).  -1 when that overflows, or rows or planes overlap
 * (a pitch narrower than a row, a plane shorter than the copy): the
 * driver would refuse it, or write what the program did not.
 */
static int rpcu_region(uint64_t x, uint64_t y, uint64_t z, uint64_t pitch, uint64_t alloc_h, uint64_t width,
                       uint64_t height, uint64_t depth, uint64_t *off_out, uint64_t *len_out)
{
	uint64_t plane, rows, start, span;
	if ((height > 1 && pitch < width) || (depth > 1 && alloc_h < height))
		return -1;
	if (__builtin_mul_overflow(pitch, alloc_h, &plane) || __builtin_mul_overflow(z, plane, &start) ||
	    __builtin_mul_overflow(y, pitch, &rows) || __builtin_add_overflow(start, rows, &start) ||
	    __builtin_add_overflow(start, x, &start))
		return -1;
	if (__builtin_mul_overflow(depth - 1, plane, &span) ||
	    __builtin_mul_overflow(height - 1, pitch, &rows) || __builtin_add_overflow(span, rows, &span) ||
	    __builtin_add_overflow(span, width, &span))
		return -1;
	*off_out = start;
	*len_out = span;
	return 0;
}

/* The live base of a device side of a 2D or 3D copy whose region lies in
 * one allocation of the trace, or a message naming the side. */
static rp_status rpcu_region_live(rpcu_state *s, const char *what, uint64_t base, uint64_t x, uint64_t y,
                                  uint64_t z, uint64_t pitch, uint64_t alloc_h, uint64_t width,
                                  uint64_t height, uint64_t depth, uint64_t *live, rp_diag *diag)
{
	uint64_t off, len, at;
	rp_status st;
	if (rpcu_region(x, y, z, pitch, alloc_h, width, height, depth, &off, &len) != 0 ||
	    __builtin_add_overflow(base, off, &at))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the %s region (x %llu, y %llu, z %llu, pitch %llu, "
		                 "height %llu; %llu x %llu x %llu bytes) is not one a valid copy has", what,
		                 (unsigned long long)x, (unsigned long long)y, (unsigned long long)z,
		                 (unsigned long long)pitch, (unsigned long long)alloc_h, (unsigned long long)width,
		                 (unsigned long long)height, (unsigned long long)depth);
	if ((st = rpcu_translate(s, at, len, what, live, diag)) != RP_OK)
		return st;
	*live -= off;
	return RP_OK;
}

/* 2D and 3D copies: host sides are packed rows (width bytes each), the
 * source from the trace, the destination ours; an array side is the live
 * array the trace's handle maps to, its region checked against the
 * recorded extent. */
/* The live CUDA_MEMCPY3D of a 2D or 3D copy record (three_d: its z
 * fields count): a host source's bytes from the trace in *src_out, a
 * host destination in a buffer of ours in *dst_out (both owned by the
 * caller, NULL when none), *bytes_out the bytes copied (0: nothing). */
static rp_status rpcu_copy3d_desc(rpcu_state *s, const sbt_cm_call *c, int three_d, CUDA_MEMCPY3D *m_out,
                                  uint8_t **src_out, uint8_t **dst_out, uint64_t *bytes_out, rp_diag *diag)
{
	CUDA_MEMCPY3D m;
	uint64_t depth = c->depth && three_d ? c->depth : 1, bytes, live;
	uint8_t *src = NULL, *dst = NULL;
	rp_status st = RP_OK;

	*src_out = *dst_out = NULL;
	*bytes_out = 0;
	if (__builtin_mul_overflow(c->width, c->height, &bytes) || __builtin_mul_overflow(bytes, depth, &bytes))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%llu x %llu x %llu bytes overflow", (unsigned long long)c->width,
		                 (unsigned long long)c->height, (unsigned long long)depth);
	if (!bytes)
		return RP_OK;
	memset(&m, 0, sizeof(m));
	m.WidthInBytes = c->width;
	m.Height = c->height;
	m.Depth = depth;
	m.srcMemoryType = (CUmemorytype)c->src_type;
	m.dstMemoryType = (CUmemorytype)c->dst_type;
	if (c->src_type == CU_MEMORYTYPE_HOST) {
		if ((st = rpcu_blob_exact(s, c->blob, bytes, &src, diag)) != RP_OK)
			return st;
		m.srcHost = src;
		m.srcPitch = c->width;
		m.srcHeight = c->height;
	} else if (c->src_type == CU_MEMORYTYPE_ARRAY) {
		if ((st = rpcu_array_region(s, "source", c->src, c->src_x, c->src_y, three_d ? c->src_z : 0, c->width,
		                            c->height, depth, &m.srcArray, diag)) != RP_OK)
			return st;
		m.srcXInBytes = c->src_x;
		m.srcY = c->src_y;
		m.srcZ = three_d ? c->src_z : 0;
	} else {
		if ((st = rpcu_region_live(s, "source", c->src, c->src_x, c->src_y, three_d ? c->src_z : 0,
		                           c->src_pitch, three_d ? c->src_height : c->height, c->width, c->height,
		                           depth, &live, diag)) != RP_OK)
			return st;
		m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		m.srcDevice = (CUdeviceptr)live;
		m.srcXInBytes = c->src_x;
		m.srcY = c->src_y;
		m.srcZ = c->src_z;
		m.srcPitch = c->src_pitch;
		m.srcHeight = c->src_height;
	}
	if (c->dst_type == CU_MEMORYTYPE_ARRAY) {
		if ((st = rpcu_array_region(s, "destination", c->dst, c->dst_x, c->dst_y, three_d ? c->dst_z : 0,
		                            c->width, c->height, depth, &m.dstArray, diag)) != RP_OK)
			goto out_fail;
		m.dstXInBytes = c->dst_x;
		m.dstY = c->dst_y;
		m.dstZ = three_d ? c->dst_z : 0;
	} else if (c->dst_type != CU_MEMORYTYPE_HOST &&
	           (st = rpcu_region_live(s, "destination", c->dst, c->dst_x, c->dst_y, three_d ? c->dst_z : 0,
	                           c->dst_pitch, three_d ? c->dst_height : c->height, c->width, c->height, depth,
	                           &live, diag)) != RP_OK)
		goto out_fail;
	if (c->dst_type == CU_MEMORYTYPE_HOST) {
		dst = malloc(bytes);
		if (!dst) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes", (unsigned long long)bytes);
			goto out_fail;
		}
		m.dstHost = dst;
		m.dstPitch = c->width;
		m.dstHeight = c->height;
	} else if (c->dst_type != CU_MEMORYTYPE_ARRAY) {
		m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m.dstDevice = (CUdeviceptr)live;
		m.dstXInBytes = c->dst_x;
		m.dstY = c->dst_y;
		m.dstZ = c->dst_z;
		m.dstPitch = c->dst_pitch;
		m.dstHeight = c->dst_height;
	}
	*m_out = m;
	*src_out = src;
	*dst_out = dst;
	*bytes_out = bytes;
	return RP_OK;
out_fail:
	free(src);
	free(dst);
	return st;
}

rp_status rpcu_copy_3d(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                       rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	CUDA_MEMCPY3D m;
	int three_d = k == SBT_CM_K_cuMemcpy3D || k == SBT_CM_K_cuMemcpy3DAsync;
	uint64_t bytes;
	uint8_t *src = NULL, *dst = NULL;
	rp_status st = RP_OK;
	CUresult r;
	const char *fn;
	int missing = 0;

	if ((st = rpcu_copy3d_desc(s, c, three_d, &m, &src, &dst, &bytes, diag)) != RP_OK || !bytes)
		return st;
	if (k == SBT_CM_K_cuMemcpy3D || k == SBT_CM_K_cuMemcpy3DAsync) {
		fn = sync && !stream ? "cuMemcpy3D" : "cuMemcpy3DAsync";
		if (sync && !stream)
			r = s->drv.p_cuMemcpy3D ? s->drv.p_cuMemcpy3D(&m) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		else
			r = s->drv.p_cuMemcpy3DAsync ? s->drv.p_cuMemcpy3DAsync(&m, stream) : (missing = 1, CUDA_ERROR_NOT_FOUND);
	} else {
		CUDA_MEMCPY2D m2;
		memset(&m2, 0, sizeof(m2));
		m2.srcXInBytes = m.srcXInBytes;
		m2.srcY = m.srcY;
		m2.srcMemoryType = m.srcMemoryType;
		m2.srcHost = m.srcHost;
		m2.srcDevice = m.srcDevice;
		m2.srcArray = m.srcArray;
		m2.srcPitch = m.srcPitch;
		m2.dstXInBytes = m.dstXInBytes;
		m2.dstY = m.dstY;
		m2.dstMemoryType = m.dstMemoryType;
		m2.dstHost = m.dstHost;
		m2.dstDevice = m.dstDevice;
		m2.dstArray = m.dstArray;
		m2.dstPitch = m.dstPitch;
		m2.WidthInBytes = m.WidthInBytes;
		m2.Height = m.Height;
		if (k == SBT_CM_K_cuMemcpy2DUnaligned) {
			fn = "cuMemcpy2DUnaligned";
			r = s->drv.p_cuMemcpy2DUnaligned ? s->drv.p_cuMemcpy2DUnaligned(&m2) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		} else if (sync && !stream) {
			fn = "cuMemcpy2D";
			r = s->drv.p_cuMemcpy2D ? s->drv.p_cuMemcpy2D(&m2) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		} else {
			fn = "cuMemcpy2DAsync";
			r = s->drv.p_cuMemcpy2DAsync ? s->drv.p_cuMemcpy2DAsync(&m2, stream) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		}
	}
	if (missing) {
		st = rpcu_missing(s, diag, fn);
		goto out_free;
	}
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, fn, r, NULL);
		goto out_free;
	}
	if ((st = rpcu_sync_after(s, sync, stream, diag)) != RP_OK)
		goto out_free;
	if (src && !sync) {
		st = rpcu_stage_push(s, src, bytes, stream, diag);
		src = NULL;
		if (st != RP_OK)
			goto out_free;
	}
	if (dst) {
		/* capture checkpoints it against the source allocation, or the
		 * source array's handle */
		rpcu_copy *cp = rpcu_copy_add(s, dst, dst, bytes,
		                              c->src_type == CU_MEMORYTYPE_DEVICE || c->src_type == CU_MEMORYTYPE_ARRAY
		                                  ? c->src
		                                  : 0,
		                              c->src_type == CU_MEMORYTYPE_DEVICE ? c->src : 0);
		if (!cp) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			goto out_free;
		}
		dst = NULL;
		if (!sync)
			cp->done = rpcu_mark(s, stream);
	}
out_free:
	free(src);
	free(dst);
	return st;
}

/* Copies by byte offset into a CUDA array.  Only HtoA and AtoH have async
 * forms: the others are issued on the legacy stream as recorded (they
 * could not name a stream at capture either). */
rp_status rpcu_copy_array(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream, rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	int legacy = sync && !stream;
	CUarray da = NULL, sa = NULL;
	uint64_t ld = 0, ls = 0;
	uint8_t *buf = NULL;
	rpcu_copy *cp;
	rp_status st;
	CUresult r;

	if (!c->size)
		return RP_OK;
	if ((k == SBT_CM_K_cuMemcpyDtoA || k == SBT_CM_K_cuMemcpyHtoA || k == SBT_CM_K_cuMemcpyHtoAAsync ||
	     k == SBT_CM_K_cuMemcpyAtoA) &&
	    (st = rpcu_array_span(s, "destination", c->dst, c->dst_x, c->size, &da, diag)) != RP_OK)
		return st;
	if ((k == SBT_CM_K_cuMemcpyAtoH || k == SBT_CM_K_cuMemcpyAtoHAsync || k == SBT_CM_K_cuMemcpyAtoD ||
	     k == SBT_CM_K_cuMemcpyAtoA) &&
	    (st = rpcu_array_span(s, "source", c->src, c->src_x, c->size, &sa, diag)) != RP_OK)
		return st;
	switch (k) {
	case SBT_CM_K_cuMemcpyHtoA:
	case SBT_CM_K_cuMemcpyHtoAAsync:
		if ((st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK)
			return st;
		if (legacy) {
			if ((st = RPCU_NEED(cuMemcpyHtoA)) == RP_OK &&
			    (r = s->drv.p_cuMemcpyHtoA(da, (size_t)c->dst_x, buf, c->size)) != CUDA_SUCCESS)
				st = rpcu_cufail(s, diag, "cuMemcpyHtoA", r, NULL);
			free(buf);
			return st;
		}
		if ((st = RPCU_NEED(cuMemcpyHtoAAsync)) != RP_OK) {
			free(buf);
			return st;
		}
		if ((r = s->drv.p_cuMemcpyHtoAAsync(da, (size_t)c->dst_x, buf, c->size, stream)) != CUDA_SUCCESS) {
			free(buf);
			return rpcu_cufail(s, diag, "cuMemcpyHtoAAsync", r, NULL);
		}
		if (sync) {
			st = rpcu_sync_after(s, sync, stream, diag);
			free(buf);
			return st;
		}
		return rpcu_stage_push(s, buf, c->size, stream, diag);
	case SBT_CM_K_cuMemcpyAtoH:
	case SBT_CM_K_cuMemcpyAtoHAsync:
		if (!(buf = malloc(c->size)))
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                 (unsigned long long)c->size);
		if (legacy) {
			if ((st = RPCU_NEED(cuMemcpyAtoH)) != RP_OK)
				goto out_free;
			r = s->drv.p_cuMemcpyAtoH(buf, sa, (size_t)c->src_x, c->size);
		} else {
			if ((st = RPCU_NEED(cuMemcpyAtoHAsync)) != RP_OK)
				goto out_free;
			r = s->drv.p_cuMemcpyAtoHAsync(buf, sa, (size_t)c->src_x, c->size, stream);
		}
		if (r != CUDA_SUCCESS) {
			st = rpcu_cufail(s, diag, legacy ? "cuMemcpyAtoH" : "cuMemcpyAtoHAsync", r, NULL);
			goto out_free;
		}
		if ((st = rpcu_sync_after(s, sync, stream, diag)) != RP_OK)
			goto out_free;
		/* capture checkpoints it at object 0, offset = handle + offset */
		if (!(cp = rpcu_copy_add(s, buf, buf, c->size, c->src + c->src_x, 0))) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			goto out_free;
		}
		if (!sync)
			cp->done = rpcu_mark(s, stream);
		return RP_OK;
	case SBT_CM_K_cuMemcpyAtoD:
		if ((st = rpcu_translate(s, c->dst, c->size, "destination", &ld, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemcpyAtoD)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyAtoD((CUdeviceptr)ld, sa, (size_t)c->src_x, c->size);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyAtoD", r, NULL);
	case SBT_CM_K_cuMemcpyDtoA:
		if ((st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemcpyDtoA)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoA(da, (size_t)c->dst_x, (CUdeviceptr)ls, c->size);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyDtoA", r, NULL);
	case SBT_CM_K_cuMemcpyAtoA:
		if ((st = RPCU_NEED(cuMemcpyAtoA)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyAtoA(da, (size_t)c->dst_x, sa, (size_t)c->src_x, c->size);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyAtoA", r, NULL);
	default:
		return rpcu_fail(s, diag, RP_ERR_TRACE, "not a copy by offset into a CUDA array");
	}
out_free:
	free(buf);
	return st;
}

/* cuMemcpy and cuMemcpyAsync: the direction the driver inferred at capture. */
rp_status rpcu_copy_any(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                        rp_diag *diag)
{
	switch (c->sub) {
	case SBT_CM_COPY_HTOD:
		return rpcu_copy_htod(s, k, c, stream, diag);
	case SBT_CM_COPY_DTOH:
		return rpcu_copy_dtoh(s, k, c, stream, diag);
	case SBT_CM_COPY_DTOD:
		return rpcu_copy_dtod(s, k, c, stream, diag);
	case SBT_CM_COPY_HTOH:
		return rpcu_copy_htoh(s, k, c, stream, diag);
	default:
		return rpcu_fail(s, diag, RP_ERR_TRACE, "copy direction %llu is unknown",
		                 (unsigned long long)c->sub);
	}
}

/* ---- memsets ---------------------------------------------------------------------------------- */

/* The live destination of a memset record (two_d: rows of pitch bytes),
 * checked to lie in one allocation from the record's own width, height
 * and pitch (not its size field); *d_out 0 when it writes nothing. */
rp_status rpcu_memset_dst(rpcu_state *s, const sbt_cm_call *c, int two_d, CUdeviceptr *d_out, rp_diag *diag)
{
	unsigned elem = c->elem_size ? (unsigned)c->elem_size : 1;
	uint64_t extent = 0, row, live;
	size_t w = (size_t)c->width, h = (size_t)c->height, pitch = (size_t)c->pitch;
	rp_status st;

	*d_out = 0;
	if (elem != 1 && elem != 2 && elem != 4)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "element size %u is not 1, 2 or 4", elem);
	if (__builtin_mul_overflow((uint64_t)w, (uint64_t)elem, &row))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%zu elements of %u bytes overflow", w, elem);
	if (!two_d) {
		extent = row;
	} else if (h && row) {
		if (h > 1 && pitch < row)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "the pitch (%zu bytes) is narrower than a row "
			                 "(%llu bytes)", pitch, (unsigned long long)row);
		if (__builtin_mul_overflow((uint64_t)pitch, (uint64_t)(h - 1), &extent) ||
		    __builtin_add_overflow(extent, row, &extent))
			return rpcu_fail(s, diag, RP_ERR_TRACE, "%zu rows of pitch %zu overflow", h, pitch);
	}
	if (!extent)
		return RP_OK;
	if ((st = rpcu_translate(s, c->dst, extent, "destination", &live, diag)) != RP_OK)
		return st;
	*d_out = (CUdeviceptr)live;
	return RP_OK;
}

rp_status rpcu_memset(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream, rp_diag *diag)
{
	int sync = !rpcu_is_async(k);
	int two_d = k == SBT_CM_K_cuMemsetD2D8 || k == SBT_CM_K_cuMemsetD2D16 || k == SBT_CM_K_cuMemsetD2D32 ||
	            k == SBT_CM_K_cuMemsetD2D8Async || k == SBT_CM_K_cuMemsetD2D16Async ||
	            k == SBT_CM_K_cuMemsetD2D32Async;
	unsigned elem = c->elem_size ? (unsigned)c->elem_size : 1;
	CUdeviceptr d;
	size_t w = (size_t)c->width, h = (size_t)c->height, pitch = (size_t)c->pitch;
	int legacy = sync && !stream;
	rp_status st;
	CUresult r = CUDA_ERROR_NOT_FOUND;

	if ((st = rpcu_memset_dst(s, c, two_d, &d, diag)) != RP_OK || !d)
		return st;
	/* Host-synchronous originals off the legacy stream need no wait: a
	 * memset of device memory may return before it is done anyway. */
	switch (elem) {
	case 1:
		if (two_d)
			r = legacy ? (s->drv.p_cuMemsetD2D8 ? s->drv.p_cuMemsetD2D8(d, pitch, (unsigned char)c->value, w, h) : r)
			           : (s->drv.p_cuMemsetD2D8Async ? s->drv.p_cuMemsetD2D8Async(d, pitch, (unsigned char)c->value, w, h, stream) : r);
		else
			r = legacy ? (s->drv.p_cuMemsetD8 ? s->drv.p_cuMemsetD8(d, (unsigned char)c->value, w) : r)
			           : (s->drv.p_cuMemsetD8Async ? s->drv.p_cuMemsetD8Async(d, (unsigned char)c->value, w, stream) : r);
		break;
	case 2:
		if (two_d)
			r = legacy ? (s->drv.p_cuMemsetD2D16 ? s->drv.p_cuMemsetD2D16(d, pitch, (unsigned short)c->value, w, h) : r)
			           : (s->drv.p_cuMemsetD2D16Async ? s->drv.p_cuMemsetD2D16Async(d, pitch, (unsigned short)c->value, w, h, stream) : r);
		else
			r = legacy ? (s->drv.p_cuMemsetD16 ? s->drv.p_cuMemsetD16(d, (unsigned short)c->value, w) : r)
			           : (s->drv.p_cuMemsetD16Async ? s->drv.p_cuMemsetD16Async(d, (unsigned short)c->value, w, stream) : r);
		break;
	case 4:
		if (two_d)
			r = legacy ? (s->drv.p_cuMemsetD2D32 ? s->drv.p_cuMemsetD2D32(d, pitch, (unsigned)c->value, w, h) : r)
			           : (s->drv.p_cuMemsetD2D32Async ? s->drv.p_cuMemsetD2D32Async(d, pitch, (unsigned)c->value, w, h, stream) : r);
		else
			r = legacy ? (s->drv.p_cuMemsetD32 ? s->drv.p_cuMemsetD32(d, (unsigned)c->value, w) : r)
			           : (s->drv.p_cuMemsetD32Async ? s->drv.p_cuMemsetD32Async(d, (unsigned)c->value, w, stream) : r);
		break;
	default:
		return rpcu_fail(s, diag, RP_ERR_TRACE, "element size %u is not 1, 2 or 4", elem);
	}
	if (r == CUDA_ERROR_NOT_FOUND)
		return rpcu_missing(s, diag, legacy ? sbt_cm_kind_name(k) : "the async form of this memset");
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, sbt_cm_kind_name(k), r, NULL);
}


/* ---- work captured into a graph ------------------------------------------------------------------ */

/* Host memory a graph node reads or writes whenever the graph is launched:
 * kept (owned) until the end of the run. */
rp_status rpcu_graph_keep(rpcu_state *s, void *buf, rp_diag *diag)
{
	if (s->ngraph_bufs == s->cap_graph_bufs) {
		size_t ncap = s->cap_graph_bufs ? s->cap_graph_bufs * 2 : 16;
		void **n = realloc(s->graph_bufs, ncap * sizeof(*n));
		if (!n) {
			free(buf);
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		s->graph_bufs = n;
		s->cap_graph_bufs = ncap;
	}
	s->graph_bufs[s->ngraph_bufs++] = buf;
	return RP_OK;
}

/* A copy or memset recorded during stream capture, issued into the
 * replay's capture of the same stream: async forms only (the program could
 * not have made a synchronous call there), host buffers kept for the
 * graph's lifetime, no checkpoint (nothing ran at capture). */
rp_status rpcu_capture_work(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                            rp_diag *diag)
{
	uint64_t live, ls;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	int dir = k == SBT_CM_K_cuMemcpyHtoDAsync ? SBT_CM_COPY_HTOD
	          : k == SBT_CM_K_cuMemcpyDtoHAsync ? SBT_CM_COPY_DTOH
	          : k == SBT_CM_K_cuMemcpyDtoDAsync ? SBT_CM_COPY_DTOD
	          : k == SBT_CM_K_cuMemcpyAsync ? (int)c->sub : 0;

	if (!rpcu_is_async(k))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "a host-synchronous call recorded as captured into a graph");
	if (k == SBT_CM_K_cuMemsetD8Async || k == SBT_CM_K_cuMemsetD16Async || k == SBT_CM_K_cuMemsetD32Async ||
	    k == SBT_CM_K_cuMemsetD2D8Async || k == SBT_CM_K_cuMemsetD2D16Async ||
	    k == SBT_CM_K_cuMemsetD2D32Async)
		return rpcu_memset(s, k, c, stream, diag); /* async kinds only: not waited for */
	if (dir == 0)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "this copy cannot be replayed into a graph yet "
		                 "(only 1D host, device and unified copies can)");
	if (!c->size)
		return RP_OK;
	switch (dir) {
	case SBT_CM_COPY_HTOD:
		if ((st = rpcu_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK ||
		    (st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK ||
		    (st = rpcu_graph_keep(s, buf, diag)) != RP_OK || (st = RPCU_NEED(cuMemcpyHtoDAsync)) != RP_OK)
			return st;
		if (s->relocate_memory)
			rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
		r = s->drv.p_cuMemcpyHtoDAsync((CUdeviceptr)live, buf, c->size, stream);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyHtoDAsync", r, NULL);
	case SBT_CM_COPY_DTOH:
		if ((st = rpcu_translate(s, c->src, c->size, "source", &live, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemcpyDtoHAsync)) != RP_OK)
			return st;
		if (!(buf = malloc(c->size)))
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                 (unsigned long long)c->size);
		if ((st = rpcu_graph_keep(s, buf, diag)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoHAsync(buf, (CUdeviceptr)live, c->size, stream);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyDtoHAsync", r, NULL);
	case SBT_CM_COPY_DTOD:
		if ((st = rpcu_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK ||
		    (st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemcpyDtoDAsync)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoDAsync((CUdeviceptr)live, (CUdeviceptr)ls, c->size, stream);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyDtoDAsync", r, NULL);
	default:
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "this copy cannot be replayed into a graph");
	}
}

/* A graph's memcpy node: the copy of its record (cuMemcpy3D's fields), its
 * host buffers kept for the graph's lifetime (a host source holds the
 * bytes the node was made with; a host destination is ours, no
 * checkpoint: the node's copies run at each launch). */
rp_status rpcu_copy3d_node(rpcu_state *s, const sbt_cm_call *c, CUDA_MEMCPY3D *m, rp_diag *diag)
{
	uint8_t *src, *dst;
	uint64_t bytes;
	rp_status st = rpcu_copy3d_desc(s, c, 1, m, &src, &dst, &bytes, diag);
	if (st != RP_OK)
		return st;
	if (!bytes)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the memcpy node copies nothing");
	if (src && s->relocate_memory && c->dst_type == CU_MEMORYTYPE_DEVICE)
		rpcu_ranges_patch_data(&s->ranges, src, bytes, c->dst);
	if (src && (st = rpcu_graph_keep(s, src, diag)) != RP_OK) {
		free(dst);
		return st;
	}
	if (dst && (st = rpcu_graph_keep(s, dst, diag)) != RP_OK)
		return st;
	return RP_OK;
}
