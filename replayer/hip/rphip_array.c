/*
 * rphip_array.c - HIP arrays on replay: creation from the recorded
 * descriptor, destruction, and the copies with an array side (the
 * records: serializer/sbt_compute.h; docs/hip.md "Replay").
 *
 * Every creation goes through hipArray3DCreate (hipMallocArray and
 * hipArrayCreate are 3D descriptors of depth 0 with clr's own
 * ihipArrayCreate behind them too); the captured handle maps to the live
 * one in the handle table (RPHIP_O_ARRAY).  Every copy goes through
 * hipDrvMemcpy3DAsync (HIP_MEMCPY3D: x in bytes on both sides, as the
 * record has it) on the record's stream; a device side is translated to
 * its live first byte, a host source comes packed from its blob, a host
 * destination is a buffer kept for the checkpoint (its coordinate: the
 * array's handle).  The array side's region is checked against the
 * recorded extent before the runtime is asked: a trace is untrusted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/hip/rphip_internal.h"

/* Bytes of one channel of a hipArray_Format; 0 when not one. */
static uint64_t rphip_format_bytes(uint64_t format)
{
	switch (format) {
	case HIP_AD_FORMAT_UNSIGNED_INT8: case HIP_AD_FORMAT_SIGNED_INT8:
		return 1;
	case HIP_AD_FORMAT_UNSIGNED_INT16: case HIP_AD_FORMAT_SIGNED_INT16: case HIP_AD_FORMAT_HALF:
		return 2;
	case HIP_AD_FORMAT_UNSIGNED_INT32: case HIP_AD_FORMAT_SIGNED_INT32: case HIP_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

rp_status rphip_array_create(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	HIP_ARRAY3D_DESCRIPTOR d;
	hipArray *a = NULL;
	rphip_obj *o;
	uint64_t elem = rphip_format_bytes(c->format) * c->channels;
	hipError_t r;

	if (!c->handle)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a HIP array created with no handle");
	if (c->width > UINT32_MAX || c->height > UINT32_MAX || c->depth > UINT32_MAX ||
	    c->channels > 4 || c->flags > UINT32_MAX)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a HIP array of %llu x %llu x %llu elements "
		                  "of %llu channels: no runtime makes one",
		                  (unsigned long long)c->width, (unsigned long long)c->height,
		                  (unsigned long long)c->depth, (unsigned long long)c->channels);
	memset(&d, 0, sizeof(d));
	d.Width = c->width;
	d.Height = c->height;
	d.Depth = c->depth;
	d.Format = (enum hipArray_Format)c->format;
	d.NumChannels = (unsigned)c->channels;
	d.Flags = (unsigned)c->flags;
	r = s->rt.p_hipArray3DCreate(&a, &d);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipArray3DCreate", r);
	o = rphip_obj_put(s, RPHIP_O_ARRAY, c->handle);
	if (!o) {
		s->rt.p_hipFreeArray(a);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = a;
	o->row_bytes = elem ? c->width * elem : 0;
	o->rows = c->height ? c->height : 1;
	o->slices = c->depth ? c->depth : 1;
	o->made_seq = s->seq;
	return RP_OK;
}

rp_status rphip_array_destroy(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *o = rphip_obj_get(s, RPHIP_O_ARRAY, c->handle);
	hipError_t r;

	if (!o)
		return rphip_failed_has(s, c->handle)
		           ? RP_OK
		           : rphip_fail(s, diag, RP_ERR_TRACE, "HIP array 0x%llx was never created in "
		                        "the trace, or was freed", (unsigned long long)c->handle);
	r = s->rt.p_hipFreeArray(o->live);
	rphip_obj_del(s, o);
	return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipFreeArray", r);
}

/* The live array of captured handle cap, with the region (x bytes, y, z;
 * w bytes x h x d) checked against its recorded extent. */
static rp_status rphip_array_region(rphip_state *s, const char *what, uint64_t cap, uint64_t x,
                                    uint64_t y, uint64_t z, uint64_t w, uint64_t h, uint64_t d,
                                    hipArray **live, rp_diag *diag)
{
	rphip_obj *o = rphip_obj_get(s, RPHIP_O_ARRAY, cap);
	uint64_t xe, ye, ze;

	if (!o)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the %s HIP array 0x%llx was never created in "
		                  "the trace, or was freed", what, (unsigned long long)cap);
	if (__builtin_add_overflow(x, w, &xe) || __builtin_add_overflow(y, h, &ye) ||
	    __builtin_add_overflow(z, d, &ze) || (o->row_bytes && xe > o->row_bytes) ||
	    ye > o->rows || ze > o->slices)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the %s region (x %llu bytes, y %llu, z %llu; "
		                  "%llu bytes x %llu x %llu) runs past the HIP array 0x%llx (rows of %llu "
		                  "bytes, height %llu, depth %llu; made at seq %llu)", what,
		                  (unsigned long long)x, (unsigned long long)y, (unsigned long long)z,
		                  (unsigned long long)w, (unsigned long long)h, (unsigned long long)d,
		                  (unsigned long long)cap, (unsigned long long)o->row_bytes,
		                  (unsigned long long)o->rows, (unsigned long long)o->slices,
		                  (unsigned long long)o->made_seq);
	if (x > UINT32_MAX || y > UINT32_MAX || z > UINT32_MAX)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the %s position does not fit the runtime's "
		                  "copy descriptor", what);
	*live = o->live;
	return RP_OK;
}

/* A device side: its rows' span must lie in one live allocation. */
static rp_status rphip_array_linear(rphip_state *s, const char *what, uint64_t ptr, uint64_t x,
                                    uint64_t y, uint64_t z, uint64_t pitch, uint64_t slice_rows,
                                    uint64_t w, uint64_t h, uint64_t d, uint64_t *live,
                                    rphip_region *rg, rp_diag *diag)
{
	if (rphip_region_of(ptr, x, y, z, pitch, slice_rows, w, h, d, rg) != 0 ||
	    rg->pitch > UINT32_MAX || rg->slice_rows > UINT32_MAX)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the %s pitch %llu (%llu rows a slice) cannot "
		                  "hold rows of %llu bytes at the position recorded", what,
		                  (unsigned long long)pitch, (unsigned long long)slice_rows,
		                  (unsigned long long)w);
	return rphip_translate(s, rg->first, rg->span, what, live, diag);
}

rp_status rphip_copy_array(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                           rp_diag *diag)
{
	uint64_t w = c->width, h = c->height, d = c->depth ? c->depth : 1, live;
	int src_host = c->src_type == 1, dst_host = c->dst_type == 1;
	HIP_MEMCPY3D m;
	rphip_region rg;
	hipStream_t stream;
	rphip_obj *so;
	uint8_t *src_buf = NULL, *dst_buf = NULL;
	hipError_t r;
	rp_status st;

	if (c->src_type != 3 && c->dst_type != 3)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a copy marked as an array copy names no array "
		                  "side (types %llu and %llu)", (unsigned long long)c->dst_type,
		                  (unsigned long long)c->src_type);
	if ((c->src_type != 1 && c->src_type != 2 && c->src_type != 3) ||
	    (c->dst_type != 1 && c->dst_type != 2 && c->dst_type != 3) || (src_host && dst_host))
		return rphip_fail(s, diag, RP_ERR_TRACE, "an array copy between memory types %llu and "
		                  "%llu", (unsigned long long)c->src_type,
		                  (unsigned long long)c->dst_type);
	if (h > UINT64_MAX / w || d > UINT64_MAX / (w * h) || c->size != w * h * d ||
	    w > UINT32_MAX || h > UINT32_MAX || d > UINT32_MAX)
		return rphip_fail(s, diag, RP_ERR_TRACE, "size %llu is not width %llu x height %llu x "
		                  "depth %llu", (unsigned long long)c->size, (unsigned long long)w,
		                  (unsigned long long)h, (unsigned long long)d);
	if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK)
		return st;
	memset(&m, 0, sizeof(m));
	m.WidthInBytes = (unsigned)w;
	m.Height = (unsigned)h;
	m.Depth = (unsigned)d;
	if (c->src_type == 3) {
		if ((st = rphip_array_region(s, "source", c->src, c->src_x, c->src_y, c->src_z, w, h, d,
		                             &m.srcArray, diag)) != RP_OK)
			return st;
		m.srcMemoryType = hipMemoryTypeArray;
		m.srcXInBytes = (unsigned)c->src_x;
		m.srcY = (unsigned)c->src_y;
		m.srcZ = (unsigned)c->src_z;
	} else if (c->src_type == 2) {
		if ((st = rphip_array_linear(s, "source", c->src, c->src_x, c->src_y, c->src_z,
		                             c->src_pitch, c->src_height, w, h, d, &live, &rg, diag)) != RP_OK)
			return st;
		m.srcMemoryType = hipMemoryTypeDevice;
		m.srcDevice = (hipDeviceptr_t)(uintptr_t)live;
		m.srcPitch = (unsigned)rg.pitch;
		m.srcHeight = (unsigned)rg.slice_rows;
	}
	if (c->dst_type == 3) {
		if ((st = rphip_array_region(s, "destination", c->dst, c->dst_x, c->dst_y, c->dst_z, w, h,
		                             d, &m.dstArray, diag)) != RP_OK)
			return st;
		m.dstMemoryType = hipMemoryTypeArray;
		m.dstXInBytes = (unsigned)c->dst_x;
		m.dstY = (unsigned)c->dst_y;
		m.dstZ = (unsigned)c->dst_z;
	} else if (c->dst_type == 2) {
		if ((st = rphip_array_linear(s, "destination", c->dst, c->dst_x, c->dst_y, c->dst_z,
		                             c->dst_pitch, c->dst_height, w, h, d, &live, &rg, diag)) != RP_OK)
			return st;
		m.dstMemoryType = hipMemoryTypeDevice;
		m.dstDevice = (hipDeviceptr_t)(uintptr_t)live;
		m.dstPitch = (unsigned)rg.pitch;
		m.dstHeight = (unsigned)rg.slice_rows;
	}
	if (src_host) {
		if ((st = rphip_blob(s, c->blob, c->size, &src_buf, NULL, diag)) != RP_OK)
			return st;
		m.srcMemoryType = hipMemoryTypeHost;
		m.srcHost = src_buf;
		m.srcPitch = (unsigned)w;
		m.srcHeight = (unsigned)h;
	}
	if (dst_host) {
		if (so && so->capturing)
			return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
			                  "a device-to-host copy captured into a graph is not replayed yet");
		if (rphip_copies_room(s) != 0 || !(dst_buf = malloc(c->size)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		m.dstMemoryType = hipMemoryTypeHost;
		m.dstHost = dst_buf;
		m.dstPitch = (unsigned)w;
		m.dstHeight = (unsigned)h;
	}
	r = s->rt.p_hipDrvMemcpy3DAsync(&m, stream);
	if (r != hipSuccess) {
		free(src_buf);
		free(dst_buf);
		return rphip_hipfail(s, diag, "hipDrvMemcpy3DAsync", r);
	}
	if (dst_buf)
		rphip_copy_keep(s, c->src, dst_buf, c->size);
	return rphip_after(s, stream, so, !rphip_is_async(hc), src_buf, diag);
}

rp_status rphip_array_snapshot(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	HIP_MEMCPY3D m;
	uint8_t *buf = NULL;
	hipError_t r;
	rp_status st;

	if (!c->width || !c->height || c->height > UINT64_MAX / c->width ||
	    c->size != c->width * c->height || c->width > UINT32_MAX || c->height > UINT32_MAX)
		return rphip_fail(s, diag, RP_ERR_TRACE, "an array snapshot of %llu rows of %llu bytes "
		                  "says it holds %llu bytes", (unsigned long long)c->height,
		                  (unsigned long long)c->width, (unsigned long long)c->size);
	memset(&m, 0, sizeof(m));
	if ((st = rphip_array_region(s, "snapshot's", c->handle, 0, c->dst_y, c->dst_z, c->width,
	                             c->height, 1, &m.dstArray, diag)) != RP_OK)
		return st;
	if (c->value == 1 && !c->blob)
		buf = calloc(1, (size_t)c->size);
	else if ((st = rphip_blob(s, c->blob, c->size, &buf, NULL, diag)) != RP_OK)
		return st;
	if (!buf)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	m.dstMemoryType = hipMemoryTypeArray;
	m.dstY = (unsigned)c->dst_y;
	m.dstZ = (unsigned)c->dst_z;
	m.srcMemoryType = hipMemoryTypeHost;
	m.srcHost = buf;
	m.srcPitch = (unsigned)c->width;
	m.srcHeight = (unsigned)c->height;
	m.WidthInBytes = (unsigned)c->width;
	m.Height = (unsigned)c->height;
	m.Depth = 1;
	r = s->rt.p_hipDeviceSynchronize();
	if (r == hipSuccess)
		r = s->rt.p_hipDrvMemcpy3DAsync(&m, NULL);
	if (r == hipSuccess)
		r = s->rt.p_hipStreamSynchronize(NULL);
	free(buf);
	return r == hipSuccess ? RP_OK
	                       : rphip_hipfail(s, diag, "hipDrvMemcpy3DAsync (restoring an array snapshot)", r);
}

rp_status rphip_mipmap(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *o;
	hipError_t r;

	switch (hc) {
	case SBT_CM_HIP_hipMipmappedArrayCreate: {
		HIP_ARRAY3D_DESCRIPTOR d;
		hipMipmappedArray_t m = NULL;
		if (!c->handle)
			return rphip_fail(s, diag, RP_ERR_TRACE, "a mipmapped array created with no handle");
		if (c->width > UINT32_MAX || c->height > UINT32_MAX || c->depth > UINT32_MAX ||
		    c->channels > 4 || c->flags > UINT32_MAX || !c->count || c->count > 32)
			return rphip_fail(s, diag, RP_ERR_TRACE, "a mipmapped array of %llu x %llu x %llu "
			                  "elements of %llu channels and %llu levels: no runtime makes one",
			                  (unsigned long long)c->width, (unsigned long long)c->height,
			                  (unsigned long long)c->depth, (unsigned long long)c->channels,
			                  (unsigned long long)c->count);
		memset(&d, 0, sizeof(d));
		d.Width = c->width;
		d.Height = c->height;
		d.Depth = c->depth;
		d.Format = (enum hipArray_Format)c->format;
		d.NumChannels = (unsigned)c->channels;
		d.Flags = (unsigned)c->flags;
		r = s->rt.p_hipMipmappedArrayCreate(&m, &d, (unsigned)c->count);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipMipmappedArrayCreate", r);
		if (!(o = rphip_obj_put(s, RPHIP_O_MIPMAP, c->handle))) {
			s->rt.p_hipMipmappedArrayDestroy(m);
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		o->live = m;
		o->made_seq = s->seq;
		return RP_OK;
	}
	case SBT_CM_HIP_hipMipmappedArrayGetLevel: {
		hipArray_t a = NULL;
		uint64_t elem, made;
		void *live;
		if (!(o = rphip_obj_get(s, RPHIP_O_MIPMAP, c->parent)))
			return rphip_fail(s, diag, RP_ERR_TRACE, "mipmapped array 0x%llx was never created in "
			                  "the trace, or was destroyed", (unsigned long long)c->parent);
		if (!c->handle || c->value > UINT32_MAX)
			return rphip_fail(s, diag, RP_ERR_TRACE, "a level %llu with no array",
			                  (unsigned long long)c->value);
		live = o->live;
		made = o->made_seq;
		r = s->rt.p_hipMipmappedArrayGetLevel(&a, live, (unsigned)c->value);
		if (r != hipSuccess || !a)
			return rphip_hipfail(s, diag, "hipMipmappedArrayGetLevel", r);
		/* the put may move the table's objects: o is not used after it */
		if (!(o = rphip_obj_put(s, RPHIP_O_ARRAY, c->handle)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		elem = rphip_format_bytes((uint64_t)a->Format) * a->NumChannels;
		o->live = a;
		o->module = c->parent;
		o->row_bytes = elem ? (uint64_t)a->width * elem : 0;
		o->rows = a->height ? a->height : 1;
		o->slices = a->depth ? a->depth : 1;
		o->made_seq = made;
		return RP_OK;
	}
	case SBT_CM_HIP_hipMipmappedArrayDestroy:
		if (!(o = rphip_obj_get(s, RPHIP_O_MIPMAP, c->handle)))
			return rphip_fail(s, diag, RP_ERR_TRACE, "mipmapped array 0x%llx was never created in "
			                  "the trace, or was destroyed", (unsigned long long)c->handle);
		r = s->rt.p_hipMipmappedArrayDestroy(o->live);
		rphip_obj_del(s, o);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipMipmappedArrayDestroy", r);
	default:
		return RP_OK;
	}
}
