/*
 * tcd_tex.c - texture and surface objects.  The double has no texture
 * units: an object is a checked description and a handle, which is what a
 * program and the interposer see (kernels get the handle as a parameter).
 * Handles are small integers: the lowest one not in use, from 1, texture
 * and surface objects sharing them (a descriptor table's slots; the real
 * driver's handles are small integers too, but how it picks them was not
 * measured).  So the same creations and destructions in the same order
 * give the same handles, in a fresh process or after the objects of an
 * earlier run were destroyed.  TSCUDA_DOUBLE_TEX_BASE=N (default 1) makes
 * the first handle N, as a driver that numbers them otherwise would.
 * Linear and pitch-2D resources must lie inside device memory the double
 * allocated; an array resource must be a live CUDA array (tcd_array.c),
 * made with CUDA_ARRAY3D_SURFACE_LDST for a surface, as the driver
 * documents.  Kernels of the double's modules read an array object
 * through tcd_kernel_launch.array_of (tcd_tex_array_of below): only
 * objects over arrays are readable that way.  Mipmapped arrays are not
 * modelled (CUDA_ERROR_NOT_SUPPORTED).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/doubles/cuda/tcd.h"

#define TCD_TEX_MAX 4096

static struct {
	pthread_mutex_t mu;
	unsigned char used[TCD_TEX_MAX]; /* handle i + base is live */
	CUarray array[TCD_TEX_MAX];      /* its array, NULL for linear resources */
} tcd_tex = { PTHREAD_MUTEX_INITIALIZER, { 0 }, { 0 } };

static CUresult tcd_tex_check_res(const CUDA_RESOURCE_DESC *r, bool surface, const char *call)
{
	struct tcd_array *a;
	CUresult e;
	size_t n;
	if (!r)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pResDesc is NULL");
	switch (r->resType) {
	case CU_RESOURCE_TYPE_LINEAR:
		n = r->res.linear.sizeInBytes;
		if (!n)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a linear resource of 0 bytes");
		return tcd_range_check((uintptr_t)r->res.linear.devPtr, n, call, "the linear resource");
	case CU_RESOURCE_TYPE_PITCH2D:
		if (!r->res.pitch2D.height || !r->res.pitch2D.pitchInBytes)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a pitch-2D resource of height or pitch 0");
		n = r->res.pitch2D.pitchInBytes * r->res.pitch2D.height;
		return tcd_range_check((uintptr_t)r->res.pitch2D.devPtr, n, call, "the pitch-2D resource");
	case CU_RESOURCE_TYPE_ARRAY:
		if ((e = tcd_array_get(r->res.array.hArray, call, "the resource's hArray", &a)) != CUDA_SUCCESS)
			return e;
		if (surface && !(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the array was not created with "
					"CUDA_ARRAY3D_SURFACE_LDST");
		return CUDA_SUCCESS;
	case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "mipmapped arrays are not modelled by the double");
	default:
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "resource type %d is unknown", (int)r->resType);
	}
}

/* TSCUDA_DOUBLE_TEX_BASE, read once. */
static unsigned long long tcd_tex_base(void)
{
	static unsigned long long base;
	if (!base) {
		const char *v = getenv("TSCUDA_DOUBLE_TEX_BASE");
		char *end;
		unsigned long long b = 1;
		if (v && *v) {
			b = strtoull(v, &end, 0);
			if (*end || !b || b > (1ull << 40))
				tcd_config_die("TSCUDA_DOUBLE_TEX_BASE", v, "a number from 1 to 2^40");
		}
		base = b;
	}
	return base;
}

static CUresult tcd_tex_new(unsigned long long *out, CUarray array, const char *call)
{
	CUresult r = CUDA_SUCCESS;
	int slot = -1;
	pthread_mutex_lock(&tcd_tex.mu);
	for (int i = 0; i < TCD_TEX_MAX && slot < 0; i++)
		if (!tcd_tex.used[i])
			slot = i;
	if (slot < 0) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "more than %d live texture and surface objects", TCD_TEX_MAX);
	} else {
		tcd_tex.used[slot] = 1;
		tcd_tex.array[slot] = array;
		*out = (unsigned long long)slot + tcd_tex_base();
	}
	pthread_mutex_unlock(&tcd_tex.mu);
	return r;
}

static CUresult tcd_tex_drop(unsigned long long h, const char *call)
{
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&tcd_tex.mu);
	if (h >= tcd_tex_base() && h - tcd_tex_base() < TCD_TEX_MAX && tcd_tex.used[h - tcd_tex_base()]) {
		tcd_tex.used[h - tcd_tex_base()] = 0;
		tcd_tex.array[h - tcd_tex_base()] = NULL;
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&tcd_tex.mu);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "%llu is not a live texture or surface object", h);
	return r;
}

TCD_API(CUresult, cuTexObjectCreate)(CUtexObject *out, const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex,
				     const CUDA_RESOURCE_VIEW_DESC *view)
{
	const char *call = "cuTexObjectCreate";
	struct tcd_ctx *ctx;
	CUresult r;
	TCD_ENTER_INIT(cuTexObjectCreate);
	if ((r = tcd_ctx_require(call, &ctx)) != CUDA_SUCCESS)
		return r;
	if (!out || !tex)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pTexObject or pTexDesc is NULL");
	if (view && res && res->resType != CU_RESOURCE_TYPE_ARRAY && res->resType != CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a resource view is only for array resources");
	if ((r = tcd_tex_check_res(res, false, call)) != CUDA_SUCCESS)
		return r;
	return tcd_tex_new(out, res->resType == CU_RESOURCE_TYPE_ARRAY ? res->res.array.hArray : NULL, call);
}
TCD_EXPORT(cuTexObjectCreate)

TCD_API(CUresult, cuTexObjectDestroy)(CUtexObject h)
{
	TCD_ENTER_INIT(cuTexObjectDestroy);
	return tcd_tex_drop(h, "cuTexObjectDestroy");
}
TCD_EXPORT(cuTexObjectDestroy)

TCD_API(CUresult, cuSurfObjectCreate)(CUsurfObject *out, const CUDA_RESOURCE_DESC *res)
{
	const char *call = "cuSurfObjectCreate";
	struct tcd_ctx *ctx;
	CUresult r;
	TCD_ENTER_INIT(cuSurfObjectCreate);
	if ((r = tcd_ctx_require(call, &ctx)) != CUDA_SUCCESS)
		return r;
	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pSurfObject is NULL");
	/* Surfaces are over arrays only (the documentation). */
	if (res && res->resType != CU_RESOURCE_TYPE_ARRAY)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a surface object's resource must be a CUDA array");
	if ((r = tcd_tex_check_res(res, true, call)) != CUDA_SUCCESS)
		return r;
	return tcd_tex_new(out, res->res.array.hArray, call);
}
TCD_EXPORT(cuSurfObjectCreate)

TCD_API(CUresult, cuSurfObjectDestroy)(CUsurfObject h)
{
	TCD_ENTER_INIT(cuSurfObjectDestroy);
	return tcd_tex_drop(h, "cuSurfObjectDestroy");
}
TCD_EXPORT(cuSurfObjectDestroy)

int tcd_tex_array_of(unsigned long long object, struct tcd_array_view *out)
{
	unsigned long long base = tcd_tex_base();
	CUarray a = NULL;

	pthread_mutex_lock(&tcd_tex.mu);
	if (object >= base && object - base < TCD_TEX_MAX && tcd_tex.used[object - base])
		a = tcd_tex.array[object - base];
	pthread_mutex_unlock(&tcd_tex.mu);
	return a && tcd_array_view(a, out) ? 0 : -1;
}
