/*
 * rpcu_texobj.c - CUDA arrays, and texture and surface objects (over
 * linear, pitch-2D or array memory).
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CUDA arrays ------------------------------------------------------------------------- */

/* Arrays a trace can name without a creation record of its own. */
#define RPCU_ARRAY_UNRECORDED "levels of mipmapped arrays and graphics interop arrays are not recorded"

/* Bytes per element of a format of the classic list; 0 for any other
 * (the driver still checks those copies). */
static uint64_t rpcu_format_bytes(uint64_t format)
{
	switch (format) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

static rpcu_array *rpcu_array_find(rpcu_state *s, uint64_t cap)
{
	for (size_t i = s->narrays; i-- > 0;)
		if (s->arrays[i].cap == cap)
			return &s->arrays[i];
	return NULL;
}

rp_status rpcu_exec_array(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUDA_ARRAY3D_DESCRIPTOR d3;
	CUDA_ARRAY_DESCRIPTOR d2;
	rpcu_array *a = rpcu_array_find(s, c->handle);
	uint64_t elem, row;
	CUarray h = NULL;
	rp_status st;
	CUresult r;

	if (k == SBT_CM_K_cuArrayDestroy) {
		if (!a)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "CUDA array 0x%llx was never created in the "
			                 "trace, or was destroyed", (unsigned long long)c->handle);
		if ((st = RPCU_NEED(cuArrayDestroy)) != RP_OK)
			return st;
		/* Copies and launches reading it may still run (a destroy moved
		 * ahead of their wait): wait, as a careful application would. */
		rpcu_wait_work(s, NULL);
		r = s->drv.p_cuArrayDestroy((CUarray)(uintptr_t)a->live);
		memmove(a, a + 1, (size_t)(&s->arrays[--s->narrays] - a) * sizeof(*a));
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuArrayDestroy", r, NULL);
	}
	if (a)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "CUDA array 0x%llx is created again while it is live "
		                 "(made at seq %llu)", (unsigned long long)c->handle, (unsigned long long)a->seq);
	if (!c->handle)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record carries no array handle");
	elem = rpcu_format_bytes(c->format);
	if (__builtin_mul_overflow(c->width, elem * c->channels, &row) || c->width > SIZE_MAX ||
	    c->height > SIZE_MAX || c->depth > SIZE_MAX || c->channels > 4)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the array's descriptor (%llu x %llu x %llu, %llu "
		                 "channels) is not one a driver accepts", (unsigned long long)c->width,
		                 (unsigned long long)c->height, (unsigned long long)c->depth,
		                 (unsigned long long)c->channels);
	if (k == SBT_CM_K_cuArrayCreate) {
		memset(&d2, 0, sizeof(d2));
		d2.Width = (size_t)c->width;
		d2.Height = (size_t)c->height;
		d2.Format = (CUarray_format)c->format;
		d2.NumChannels = (unsigned)c->channels;
		if ((st = RPCU_NEED(cuArrayCreate)) != RP_OK)
			return st;
		r = s->drv.p_cuArrayCreate(&h, &d2);
	} else {
		memset(&d3, 0, sizeof(d3));
		d3.Width = (size_t)c->width;
		d3.Height = (size_t)c->height;
		d3.Depth = (size_t)c->depth;
		d3.Format = (CUarray_format)c->format;
		d3.NumChannels = (unsigned)c->channels;
		d3.Flags = (unsigned)c->flags;
		if ((st = RPCU_NEED(cuArray3DCreate)) != RP_OK)
			return st;
		r = s->drv.p_cuArray3DCreate(&h, &d3);
	}
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, k == SBT_CM_K_cuArrayCreate ? "cuArrayCreate" : "cuArray3DCreate", r, NULL);
	if (s->narrays == s->cap_arrays) {
		size_t ncap = s->cap_arrays ? s->cap_arrays * 2 : 8;
		rpcu_array *n = realloc(s->arrays, ncap * sizeof(*n));
		if (!n) {
			s->drv.p_cuArrayDestroy(h);
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		s->arrays = n;
		s->cap_arrays = ncap;
	}
	a = &s->arrays[s->narrays++];
	a->cap = c->handle;
	a->live = (uint64_t)(uintptr_t)h;
	a->seq = s->seq;
	a->row_bytes = row;
	a->height = c->height ? c->height : 1;
	a->depth = c->depth ? c->depth : 1;
	a->ctx = s->cur_ctx;
	return RP_OK;
}

rp_status rpcu_array_region(rpcu_state *s, const char *what, uint64_t cap, uint64_t x, uint64_t y, uint64_t z,
                            uint64_t width, uint64_t height, uint64_t depth, CUarray *live, rp_diag *diag)
{
	rpcu_array *a = rpcu_array_find(s, cap);
	uint64_t xe, ye, ze;
	if (!a)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "the %s CUDA array 0x%llx was never created in the "
		                 "trace (" RPCU_ARRAY_UNRECORDED "), or was destroyed", what, (unsigned long long)cap);
	if (__builtin_add_overflow(x, width, &xe) || __builtin_add_overflow(y, height, &ye) ||
	    __builtin_add_overflow(z, depth, &ze) || (a->row_bytes && xe > a->row_bytes) ||
	    ye > a->height || ze > a->depth)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the %s region (x %llu bytes, y %llu, z %llu; %llu "
		                 "bytes x %llu x %llu) runs past the CUDA array 0x%llx (rows of %llu bytes, "
		                 "height %llu, depth %llu; made at seq %llu)", what, (unsigned long long)x,
		                 (unsigned long long)y, (unsigned long long)z, (unsigned long long)width,
		                 (unsigned long long)height, (unsigned long long)depth, (unsigned long long)cap,
		                 (unsigned long long)a->row_bytes, (unsigned long long)a->height,
		                 (unsigned long long)a->depth, (unsigned long long)a->seq);
	*live = (CUarray)(uintptr_t)a->live;
	return RP_OK;
}

rp_status rpcu_array_span(rpcu_state *s, const char *what, uint64_t cap, uint64_t offset, uint64_t len,
                          CUarray *live, rp_diag *diag)
{
	rpcu_array *a = rpcu_array_find(s, cap);
	uint64_t total = 0, end;
	if (!a)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "the %s CUDA array 0x%llx was never created in the "
		                 "trace (" RPCU_ARRAY_UNRECORDED "), or was destroyed", what, (unsigned long long)cap);
	if (a->row_bytes && (__builtin_mul_overflow(a->row_bytes, a->height, &total) ||
	                     __builtin_mul_overflow(total, a->depth, &total) ||
	                     __builtin_add_overflow(offset, len, &end) || end > total))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the %s span (offset %llu, %llu bytes) runs past the CUDA "
		                 "array 0x%llx (%llu bytes; made at seq %llu)", what, (unsigned long long)offset,
		                 (unsigned long long)len, (unsigned long long)cap, (unsigned long long)total,
		                 (unsigned long long)a->seq);
	*live = (CUarray)(uintptr_t)a->live;
	return RP_OK;
}

rp_status rpcu_arrays_check_start(rpcu_state *s, uint64_t seq, rp_diag *diag)
{
	if (!s->narrays)
		return RP_OK;
	rp_diag_set(diag, "cannot start at the keyframe at seq %llu: the CUDA array 0x%llx made at seq %llu "
	            "is live there (%zu in all), and this keyframe does not hold the contents of CUDA arrays; "
	            "start the range before seq %llu or after the arrays are destroyed", (unsigned long long)seq,
	            (unsigned long long)s->arrays[0].cap, (unsigned long long)s->arrays[0].seq, s->narrays,
	            (unsigned long long)s->arrays[0].seq);
	return RP_ERR_UNSUPPORTED;
}

rp_status rpcu_snapshot_array(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	CUDA_MEMCPY3D m;
	uint8_t *buf = NULL;
	uint64_t bytes;
	rp_status st;
	CUresult r;

	/* Not read at capture: an array that went with its context (the
	 * recorder keeps no context per array) is gone here too; any other
	 * cannot be restored. */
	if (c->result != CUDA_SUCCESS && !rpcu_array_find(s, c->handle))
		return RP_OK;
	if (c->result != CUDA_SUCCESS)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "rows %llu.. of slice %llu of the CUDA array 0x%llx could not "
		                 "be read at capture", (unsigned long long)c->dst_y, (unsigned long long)c->dst_z,
		                 (unsigned long long)c->handle);
	if (__builtin_mul_overflow(c->width, c->height, &bytes) || bytes != c->size)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "an array snapshot of %llu rows of %llu bytes says it holds "
		                 "%llu bytes", (unsigned long long)c->height, (unsigned long long)c->width,
		                 (unsigned long long)c->size);
	memset(&m, 0, sizeof(m));
	if ((st = rpcu_array_region(s, "snapshot", c->handle, 0, c->dst_y, c->dst_z, c->width, c->height, 1,
	                            &m.dstArray, diag)) != RP_OK)
		return st;
	if (c->value == 1 && !c->blob) {
		if (!(buf = calloc(1, bytes ? bytes : 1)))
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes", (unsigned long long)bytes);
	} else if ((st = rpcu_blob_exact(s, c->blob, bytes, &buf, diag)) != RP_OK) {
		return st;
	}
	m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	m.dstY = (size_t)c->dst_y;
	m.dstZ = (size_t)c->dst_z;
	m.srcMemoryType = CU_MEMORYTYPE_HOST;
	m.srcHost = buf;
	m.srcPitch = (size_t)c->width;
	m.srcHeight = (size_t)c->height;
	m.WidthInBytes = (size_t)c->width;
	m.Height = (size_t)c->height;
	m.Depth = 1;
	if ((st = RPCU_NEED(cuMemcpy3D)) == RP_OK && (r = s->drv.p_cuMemcpy3D(&m)) != CUDA_SUCCESS)
		st = rpcu_cufail(s, diag, "cuMemcpy3D", r, "restoring an array's snapshot");
	free(buf);
	return st;
}

void rpcu_arrays_release(rpcu_state *s)
{
	for (size_t i = s->narrays; i-- > 0;) {
		if (s->arrays[i].ctx)
			s->drv.p_cuCtxSetCurrent(s->arrays[i].ctx);
		if (s->drv.p_cuArrayDestroy)
			s->drv.p_cuArrayDestroy((CUarray)(uintptr_t)s->arrays[i].live);
	}
	free(s->arrays);
	s->arrays = NULL;
	s->narrays = s->cap_arrays = 0;
}

/* ---- texture and surface objects ------------------------------------------------------------ */

/* The device memory under a linear or pitch-2D resource: its live address
 * and the record that allocated it. */
static rp_status rpcu_texobj_memory(rpcu_state *s, uint64_t cap, uint64_t len, const char *what, uint64_t *live,
                                    uint64_t *seq, rp_diag *diag)
{
	rp_status st = rpcu_translate(s, cap, len, what, live, diag);
	long i;
	if (st != RP_OK)
		return st;
	i = rpcu_ranges_find(&s->ranges, cap);
	*seq = i >= 0 ? s->ranges.v[i].seq : 0;
	return RP_OK;
}

/* Whether the memory or array texture object o was made over is still
 * the one it was made over. */
static int rpcu_texobj_resource_lives(rpcu_state *s, const rpcu_obj *o)
{
	if (o->res_type == CU_RESOURCE_TYPE_ARRAY) {
		const rpcu_array *a = rpcu_array_find(s, o->parent);
		return a && a->seq == o->res_seq;
	}
	long i = rpcu_ranges_find(&s->ranges, o->parent);
	return i >= 0 && s->ranges.v[i].seq == o->res_seq;
}

/* The word v of parameter i of a launch (whole: the whole 8-byte
 * parameter; else at byte `at` of a by-value struct of `size` bytes):
 * RP_OK unless it holds a texture or surface object of the trace whose
 * array or memory went since the object was made. */
static rp_status rpcu_texobj_judge(rpcu_state *s, uint64_t v, size_t i, int whole, uint32_t at, uint32_t size,
                                   const char *kernel, rp_diag *diag)
{
	const rpcu_obj *o = v ? rpcu_objs_get(&s->objs, RPCU_O_TEXOBJ, v) : NULL;
	char holds[192];

	if (!o || rpcu_texobj_resource_lives(s, o))
		return RP_OK;
	kernel = kernel ? kernel : "(unnamed)";
	if (whole)
		snprintf(holds, sizeof(holds), "parameter %zu of kernel '%s' holds", i, kernel);
	else
		snprintf(holds, sizeof(holds), "parameter %zu of kernel '%s' (a struct of %u bytes) holds at "
		         "byte %u", i, kernel, size, at);
	if (o->res_type == CU_RESOURCE_TYPE_ARRAY)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%s %s object %llu (made at seq %llu), and its CUDA "
		                 "array 0x%llx (made at seq %llu) was destroyed since: the kernel would reach "
		                 "an array that is gone", holds, o->surface ? "surface" : "texture",
		                 (unsigned long long)v, (unsigned long long)o->made_seq,
		                 (unsigned long long)o->parent, (unsigned long long)o->res_seq);
	return rpcu_fail(s, diag, RP_ERR_TRACE, "%s texture object %llu (made at seq %llu), and its memory "
	                 "at 0x%llx (allocated at seq %llu) was freed since: the kernel would read freed "
	                 "memory", holds, (unsigned long long)v, (unsigned long long)o->made_seq,
	                 (unsigned long long)o->parent, (unsigned long long)o->res_seq);
}

/*
 * A texture or surface object travels in a launch as a whole 8-byte
 * parameter, or as a member of a by-value struct: the layout (the module's
 * parameter info) gives only each parameter's offset and size, so in a
 * parameter larger than 8 bytes every 8-aligned word is looked at (a
 * member of 8 bytes is 8-aligned in the buffer, as the struct holding it
 * is).  Words that equal an object's handle but are integers cannot be
 * told apart (docs/hostile-traces.md).
 */
rp_status rpcu_texobj_check_launch(rpcu_state *s, const sbt_cm_call *c, const uint8_t *buf, size_t nlayout,
                                   const char *kernel, rp_diag *diag)
{
	for (size_t i = 0; s->ntexobjs && i < nlayout; i++) {
		uint32_t off, size, at;
		uint64_t v;
		rp_status st;
		sbt_cm_layout_at(c, i, &off, &size);
		if (size == 8) {
			memcpy(&v, buf + off, 8);
			if ((st = rpcu_texobj_judge(s, v, i, 1, 0, size, kernel, diag)) != RP_OK)
				return st;
			continue;
		}
		for (at = (8 - off % 8) % 8; size > 8 && at <= size - 8; at += 8) {
			memcpy(&v, buf + off + at, 8);
			if ((st = rpcu_texobj_judge(s, v, i, 0, at, size, kernel, diag)) != RP_OK)
				return st;
		}
	}
	return RP_OK;
}

/*
 * Created again from the recorded descriptions, in the recorded order, over
 * the replay's memory (a relocated resource is translated).  Their handles
 * travel in kernel parameters, where they cannot be told from integers, so
 * parameters are never rewritten: a fresh context that creates the same
 * objects in the same order gets the same handles (the driver's are small
 * integers handed out in order), and where it does not, replay says so.
 */
rp_status rpcu_exec_texobj(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	int tex = k == SBT_CM_K_cuTexObjectCreate || k == SBT_CM_K_cuTexObjectDestroy;
	const char *fn = k == SBT_CM_K_cuTexObjectCreate    ? "cuTexObjectCreate"
	                 : k == SBT_CM_K_cuSurfObjectCreate ? "cuSurfObjectCreate"
	                 : tex                              ? "cuTexObjectDestroy"
	                                                    : "cuSurfObjectDestroy";
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC td;
	CUDA_RESOURCE_VIEW_DESC view;
	unsigned long long h = 0;
	uint64_t live = 0, res_cap = 0, res_seq = 0;
	rpcu_obj *o;
	rp_status st;
	CUresult r;

	if (k == SBT_CM_K_cuTexObjectDestroy || k == SBT_CM_K_cuSurfObjectDestroy) {
		o = rpcu_objs_get(&s->objs, RPCU_O_TEXOBJ, c->handle);
		if (!o)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "%s object 0x%llx was never created in "
			                 "the trace", tex ? "texture" : "surface", (unsigned long long)c->handle);
		if ((st = tex ? RPCU_NEED(cuTexObjectDestroy) : RPCU_NEED(cuSurfObjectDestroy)) != RP_OK)
			return st;
		r = tex ? s->drv.p_cuTexObjectDestroy((CUtexObject)o->live)
		        : s->drv.p_cuSurfObjectDestroy((CUsurfObject)o->live);
		rpcu_objs_del(&s->objs, o);
		if (s->ntexobjs)
			s->ntexobjs--;
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, fn, r, NULL);
	}
	if (c->res_desc_len != sizeof(res) || (tex && c->tex_desc_len != sizeof(td)) ||
	    (c->view_desc_len && c->view_desc_len != sizeof(view)))
		return rpcu_fail(s, diag, RP_ERR_DECODE, "the recorded descriptions are %zu, %zu and %zu "
		                 "bytes; this build's CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC and "
		                 "CUDA_RESOURCE_VIEW_DESC are %zu, %zu and %zu", c->res_desc_len,
		                 c->tex_desc_len, c->view_desc_len, sizeof(res), sizeof(td), sizeof(view));
	memcpy(&res, c->res_desc, sizeof(res));
	if (tex)
		memcpy(&td, c->tex_desc, sizeof(td));
	if (c->view_desc_len)
		memcpy(&view, c->view_desc, sizeof(view));
	switch (res.resType) {
	case CU_RESOURCE_TYPE_LINEAR:
		res_cap = res.res.linear.devPtr;
		if ((st = rpcu_texobj_memory(s, res_cap, res.res.linear.sizeInBytes, "the linear texture resource",
		                             &live, &res_seq, diag)) != RP_OK)
			return st;
		res.res.linear.devPtr = (CUdeviceptr)live;
		break;
	case CU_RESOURCE_TYPE_PITCH2D: {
		uint64_t bytes;
		res_cap = res.res.pitch2D.devPtr;
		if (__builtin_mul_overflow((uint64_t)res.res.pitch2D.pitchInBytes, (uint64_t)res.res.pitch2D.height,
		                           &bytes))
			return rpcu_fail(s, diag, RP_ERR_TRACE, "%s: the pitch-2D resource's pitch %zu x height %zu "
			                 "overflows", fn, res.res.pitch2D.pitchInBytes, res.res.pitch2D.height);
		if ((st = rpcu_texobj_memory(s, res_cap, bytes, "the pitch-2D texture resource", &live, &res_seq,
		                             diag)) != RP_OK)
			return st;
		res.res.pitch2D.devPtr = (CUdeviceptr)live;
		break;
	}
	case CU_RESOURCE_TYPE_ARRAY: {
		rpcu_array *a = rpcu_array_find(s, (uint64_t)(uintptr_t)res.res.array.hArray);
		res_cap = (uint64_t)(uintptr_t)res.res.array.hArray;
		if (!a)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "%s: the resource's CUDA array 0x%llx was "
			                 "never created in the trace (" RPCU_ARRAY_UNRECORDED "), or was destroyed", fn,
			                 (unsigned long long)res_cap);
		res_seq = a->seq;
		res.res.array.hArray = (CUarray)(uintptr_t)a->live;
		break;
	}
	case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "%s over a mipmapped array: mipmapped arrays "
		                 "(cuMipmappedArrayCreate) are not recorded, so they cannot be replayed", fn);
	default:
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%s: resource type %d is unknown", fn,
		                 (int)res.resType);
	}
	if ((st = tex ? RPCU_NEED(cuTexObjectCreate) : RPCU_NEED(cuSurfObjectCreate)) != RP_OK)
		return st;
	r = tex ? s->drv.p_cuTexObjectCreate(&h, &res, &td, c->view_desc_len ? &view : NULL)
	        : s->drv.p_cuSurfObjectCreate(&h, &res);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, fn, r, NULL);
	if (!rpcu_objs_get(&s->objs, RPCU_O_TEXOBJ, c->handle))
		s->ntexobjs++;
	o = rpcu_objs_put(&s->objs, RPCU_O_TEXOBJ, c->handle);
	if (!o)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->live = h;
	o->ctx = s->cur_ctx;
	o->parent = res_cap;
	o->res_seq = res_seq;
	o->res_type = (uint8_t)res.resType;
	o->surface = !tex;
	o->made_seq = s->seq;
	if (h != c->handle && !s->warned_texobj) {
		s->warned_texobj = 1;
		rpcu_warn(s, "seq %llu: the %s object was %llu at capture and is %llu in this replay; "
		          "kernel parameters holding it are not rewritten (they cannot be told from "
		          "integers), so kernels reading it may read another object",
		          (unsigned long long)s->seq, tex ? "texture" : "surface",
		          (unsigned long long)c->handle, h);
	}
	return RP_OK;
}
