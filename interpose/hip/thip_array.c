/*
 * thip_array.c - HIP arrays: hipMallocArray, hipArrayCreate,
 * hipArray3DCreate, hipFreeArray, hipArrayDestroy, and the copies to and
 * from arrays by their own calls (hipMemcpy2DToArray(Async),
 * hipMemcpy2DFromArray(Async), hipMemcpyToArray, hipMemcpyFromArray, the
 * _spt forms of the 2D ones), hipMalloc3DArray, and the mipmapped array
 * calls (failed calls under ROCm 5.2),
 * recorded as the compute model's arrays and pitched copies
 * (serializer/sbt_compute.h, docs/hip.md).
 *
 * The table of live arrays (handle, element size, extent) lets a record
 * carry what replay needs in bytes: hipMemcpy3D gives an array side's x
 * and the extent's width in elements, and hipMemcpyToArray / FromArray
 * give a byte count that clr turns into rows by the array's extent
 * (hip_memory.cpp).  Guarded by its own mutex, held only to look up or
 * change it.
 */
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

typedef struct thip_array {
	uint64_t handle;
	thip_array_info info;
	uint64_t mipmap; /* a level's view: its mipmapped array (dropped with it), else 0 */
} thip_array;

static pthread_mutex_t thip_array_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	thip_array *v;
	size_t n, cap;
} thip_arrays;

static void thip_array_add(uint64_t handle, const thip_array_info *info, uint64_t mipmap)
{
	pthread_mutex_lock(&thip_array_mu);
	if (thip_arrays.n == thip_arrays.cap) {
		size_t cap = thip_arrays.cap ? thip_arrays.cap * 2 : 16;
		thip_array *v = realloc(thip_arrays.v, cap * sizeof(*v));
		if (!v)
			goto out_unlock; /* unknown later: its copies are recorded in elements */
		thip_arrays.v = v;
		thip_arrays.cap = cap;
	}
	thip_arrays.v[thip_arrays.n++] = (thip_array){handle, *info, mipmap};
out_unlock:
	pthread_mutex_unlock(&thip_array_mu);
}

/* The views of mipmapped array mipmap's levels: gone with it. */
static void thip_array_remove_levels(uint64_t mipmap)
{
	pthread_mutex_lock(&thip_array_mu);
	for (size_t i = 0; i < thip_arrays.n;)
		if (thip_arrays.v[i].mipmap == mipmap)
			thip_arrays.v[i] = thip_arrays.v[--thip_arrays.n];
		else
			i++;
	pthread_mutex_unlock(&thip_array_mu);
}

static void thip_array_remove(uint64_t handle)
{
	pthread_mutex_lock(&thip_array_mu);
	for (size_t i = 0; i < thip_arrays.n; i++)
		if (thip_arrays.v[i].handle == handle) {
			thip_arrays.v[i] = thip_arrays.v[--thip_arrays.n];
			break;
		}
	pthread_mutex_unlock(&thip_array_mu);
}

int thip_array_get(uint64_t handle, thip_array_info *out)
{
	int found = 0;

	pthread_mutex_lock(&thip_array_mu);
	for (size_t i = 0; i < thip_arrays.n; i++)
		if (thip_arrays.v[i].handle == handle) {
			*out = thip_arrays.v[i].info;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&thip_array_mu);
	return found;
}

size_t thip_array_list(thip_array_live **out)
{
	size_t n = 0;

	pthread_mutex_lock(&thip_array_mu);
	*out = thip_arrays.n ? malloc(thip_arrays.n * sizeof(**out)) : NULL;
	if (*out) {
		for (size_t i = 0; i < thip_arrays.n; i++)
			(*out)[i] = (thip_array_live){thip_arrays.v[i].handle, thip_arrays.v[i].info};
		n = thip_arrays.n;
	}
	pthread_mutex_unlock(&thip_array_mu);
	return n;
}

/* Bytes of one channel of a hipArray_Format (0: not one). */
static uint64_t thip_format_bytes(unsigned format)
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

/* clr's getArrayFormat: the format of a channel descriptor (0: none). */
static unsigned thip_desc_format(const hipChannelFormatDesc *d)
{
	switch (d->f) {
	case hipChannelFormatKindUnsigned:
		return d->x == 8 ? HIP_AD_FORMAT_UNSIGNED_INT8 : d->x == 16 ? HIP_AD_FORMAT_UNSIGNED_INT16
		       : d->x == 32 ? HIP_AD_FORMAT_UNSIGNED_INT32 : 0;
	case hipChannelFormatKindSigned:
		return d->x == 8 ? HIP_AD_FORMAT_SIGNED_INT8 : d->x == 16 ? HIP_AD_FORMAT_SIGNED_INT16
		       : d->x == 32 ? HIP_AD_FORMAT_SIGNED_INT32 : 0;
	case hipChannelFormatKindFloat:
		return d->x == 16 ? HIP_AD_FORMAT_HALF : d->x == 32 ? HIP_AD_FORMAT_FLOAT : 0;
	default:
		return 0;
	}
}

/* A creation: the record, and the array remembered when it was made. */
static void thip_array_created(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                               hipArray **out, uint64_t w, uint64_t h, uint64_t d,
                               unsigned format, unsigned channels, unsigned flags)
{
	uint64_t handle = r == hipSuccess && out ? THIP_U(*out) : 0;
	sbt_cm_call c;

	if (call->nested)
		return;
	if (handle) {
		thip_array_info info = {thip_format_bytes(format) * channels, w, h, d};
		thip_array_add(handle, &info, 0);
	}
	if (!call->record)
		return;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.handle = handle;
	c.width = w;
	c.height = h;
	c.depth = d;
	c.format = format;
	c.channels = channels;
	c.flags = flags;
	thip_record(hcall, &c, 0);
}

hipError_t hipMallocArray(hipArray **array, const hipChannelFormatDesc *desc, size_t width,
                          size_t height, unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(hipArray **, const hipChannelFormatDesc *, size_t, size_t, unsigned) =
		(hipError_t(*)(hipArray **, const hipChannelFormatDesc *, size_t, size_t,
		               unsigned))thip_begin(&call, THIP_FN_hipMallocArray);
	hipError_t r = real ? real(array, desc, width, height, flags) : THIP_NO_RUNTIME;
	unsigned format = desc ? thip_desc_format(desc) : 0;
	unsigned channels = desc ? (unsigned)((desc->x != 0) + (desc->y != 0) + (desc->z != 0) +
	                                      (desc->w != 0))
	                         : 0;
	thip_array_created(&call, SBT_CM_HIP_hipMallocArray, r, array, width, height, 0, format,
	                   channels, flags);
	thip_end(&call);
	return r;
}

hipError_t hipArrayCreate(hipArray **array, const HIP_ARRAY_DESCRIPTOR *desc)
{
	thip_call call;
	hipError_t (*real)(hipArray **, const HIP_ARRAY_DESCRIPTOR *) =
		(hipError_t(*)(hipArray **, const HIP_ARRAY_DESCRIPTOR *))thip_begin(
			&call, THIP_FN_hipArrayCreate);
	hipError_t r = real ? real(array, desc) : THIP_NO_RUNTIME;
	thip_array_created(&call, SBT_CM_HIP_hipArrayCreate, r, array, desc ? desc->Width : 0,
	                   desc ? desc->Height : 0, 0, desc ? (unsigned)desc->Format : 0,
	                   desc ? desc->NumChannels : 0, 0);
	thip_end(&call);
	return r;
}

hipError_t hipArray3DCreate(hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *desc)
{
	thip_call call;
	hipError_t (*real)(hipArray **, const HIP_ARRAY3D_DESCRIPTOR *) =
		(hipError_t(*)(hipArray **, const HIP_ARRAY3D_DESCRIPTOR *))thip_begin(
			&call, THIP_FN_hipArray3DCreate);
	hipError_t r = real ? real(array, desc) : THIP_NO_RUNTIME;
	thip_array_created(&call, SBT_CM_HIP_hipArray3DCreate, r, array, desc ? desc->Width : 0,
	                   desc ? desc->Height : 0, desc ? desc->Depth : 0,
	                   desc ? (unsigned)desc->Format : 0, desc ? desc->NumChannels : 0,
	                   desc ? desc->Flags : 0);
	thip_end(&call);
	return r;
}

static void thip_array_destroyed(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                                 hipArray *array)
{
	sbt_cm_call c;

	if (call->nested)
		return;
	if (r == hipSuccess)
		thip_array_remove(THIP_U(array));
	if (!call->record)
		return;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.handle = THIP_U(array);
	thip_record(hcall, &c, 0);
}

hipError_t hipFreeArray(hipArray *array)
{
	thip_call call;
	hipError_t (*real)(hipArray *) = (hipError_t(*)(hipArray *))thip_begin(&call,
	                                                                        THIP_FN_hipFreeArray);
	hipError_t r = real ? real(array) : THIP_NO_RUNTIME;
	thip_array_destroyed(&call, SBT_CM_HIP_hipFreeArray, r, array);
	thip_end(&call);
	return r;
}

hipError_t hipArrayDestroy(hipArray *array)
{
	thip_call call;
	hipError_t (*real)(hipArray *) =
		(hipError_t(*)(hipArray *))thip_begin(&call, THIP_FN_hipArrayDestroy);
	hipError_t r = real ? real(array) : THIP_NO_RUNTIME;
	thip_array_destroyed(&call, SBT_CM_HIP_hipArrayDestroy, r, array);
	thip_end(&call);
	return r;
}

/* ---- copies ----------------------------------------------------------------------------- */

/* The direction of a copy between an array and a linear pointer: the
 * array counts as device memory; hipMemcpyDefault asks the allocation
 * table about the linear side. */
static unsigned thip_array_dir(hipMemcpyKind kind, int to_array, const void *linear)
{
	int dev;

	switch (kind) {
	case hipMemcpyHostToDevice:
		dev = !to_array;
		break;
	case hipMemcpyDeviceToHost:
		dev = to_array;
		break;
	case hipMemcpyDeviceToDevice:
		dev = 1;
		break;
	case hipMemcpyHostToHost:
		dev = 0;
		break;
	default:
		dev = thip_alloc_base(THIP_U(linear)) != 0;
		break;
	}
	if (to_array)
		return dev ? SBT_CM_COPY_DTOD : SBT_CM_COPY_HTOD;
	return dev ? SBT_CM_COPY_DTOD : SBT_CM_COPY_DTOH;
}

/* One copy between array `arr` (at byte x, row y) and linear memory
 * `linear` (rows pitch apart). */
static void thip_array_copy_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                                   int to_array, const hipArray *arr, uint64_t x, uint64_t y,
                                   const void *linear, uint64_t pitch, uint64_t width,
                                   uint64_t height, hipMemcpyKind kind, int async,
                                   hipStream_t stream)
{
	thip_side a = {arr, x, y, 0, 0, 0, 1}, l = {linear, 0, 0, 0, pitch, 0, 0};
	unsigned dir;

	if (!call->record)
		return;
	dir = thip_array_dir(kind, to_array, linear);
	if (to_array)
		thip_pitched_record(call, hcall, r, dir, &a, &l, width, height, 0, async, stream);
	else
		thip_pitched_record(call, hcall, r, dir, &l, &a, width, height, 0, async, stream);
}

/* hipMemcpy2DToArray and clr's hipMemcpy2DToArray_spt (fn): the _spt one
 * is the same copy on the calling thread's per-thread default stream,
 * synchronous; recorded as hipMemcpy2DToArray with ptds = 1. */
static hipError_t thip_memcpy2d_to_array(thip_fn fn, hipArray *dst, size_t wOffset, size_t hOffset,
                                         const void *src, size_t spitch, size_t width,
                                         size_t height, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(hipArray *, size_t, size_t, const void *, size_t, size_t, size_t,
	                   hipMemcpyKind) =
		(hipError_t(*)(hipArray *, size_t, size_t, const void *, size_t, size_t, size_t,
		               hipMemcpyKind))thip_begin(&call, fn);
	hipError_t r = real ? real(dst, wOffset, hOffset, src, spitch, width, height, kind)
	                    : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpy2DToArray_spt;
	thip_array_copy_record(&call, SBT_CM_HIP_hipMemcpy2DToArray, r, 1, dst, wOffset, hOffset, src,
	                       spitch, width, height, kind, 0, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpy2DToArray(hipArray *dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t spitch, size_t width, size_t height, hipMemcpyKind kind)
{
	return thip_memcpy2d_to_array(THIP_FN_hipMemcpy2DToArray, dst, wOffset, hOffset, src, spitch,
	                              width, height, kind);
}

hipError_t hipMemcpy2DToArray_spt(hipArray *dst, size_t wOffset, size_t hOffset, const void *src,
                                  size_t spitch, size_t width, size_t height, hipMemcpyKind kind)
{
	return thip_memcpy2d_to_array(THIP_FN_hipMemcpy2DToArray_spt, dst, wOffset, hOffset, src,
	                              spitch, width, height, kind);
}

hipError_t hipMemcpy2DToArrayAsync(hipArray *dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
                                   hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipArray *, size_t, size_t, const void *, size_t, size_t, size_t,
	                   hipMemcpyKind, hipStream_t) =
		(hipError_t(*)(hipArray *, size_t, size_t, const void *, size_t, size_t, size_t,
		               hipMemcpyKind, hipStream_t))thip_begin(&call,
		                                                      THIP_FN_hipMemcpy2DToArrayAsync);
	hipError_t r = real ? real(dst, wOffset, hOffset, src, spitch, width, height, kind, stream)
	                    : THIP_NO_RUNTIME;
	thip_array_copy_record(&call, SBT_CM_HIP_hipMemcpy2DToArrayAsync, r, 1, dst, wOffset, hOffset,
	                       src, spitch, width, height, kind, 1, stream);
	thip_end(&call);
	return r;
}

/* hipMemcpy2DFromArray and clr's hipMemcpy2DFromArray_spt (fn), as
 * thip_memcpy2d_to_array. */
static hipError_t thip_memcpy2d_from_array(thip_fn fn, void *dst, size_t dpitch,
                                           hipArray_const_t src, size_t wOffset, size_t hOffset,
                                           size_t width, size_t height, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, hipArray_const_t, size_t, size_t, size_t, size_t,
	                   hipMemcpyKind) =
		(hipError_t(*)(void *, size_t, hipArray_const_t, size_t, size_t, size_t, size_t,
		               hipMemcpyKind))thip_begin(&call, fn);
	hipError_t r = real ? real(dst, dpitch, src, wOffset, hOffset, width, height, kind)
	                    : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpy2DFromArray_spt;
	thip_array_copy_record(&call, SBT_CM_HIP_hipMemcpy2DFromArray, r, 0, src, wOffset, hOffset,
	                       dst, dpitch, width, height, kind, 0, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t width, size_t height, hipMemcpyKind kind)
{
	return thip_memcpy2d_from_array(THIP_FN_hipMemcpy2DFromArray, dst, dpitch, src, wOffset,
	                                hOffset, width, height, kind);
}

hipError_t hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
                                    size_t hOffset, size_t width, size_t height, hipMemcpyKind kind)
{
	return thip_memcpy2d_from_array(THIP_FN_hipMemcpy2DFromArray_spt, dst, dpitch, src, wOffset,
	                                hOffset, width, height, kind);
}

hipError_t hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, hipArray_const_t src,
                                     size_t wOffset, size_t hOffset, size_t width, size_t height,
                                     hipMemcpyKind kind, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, hipArray_const_t, size_t, size_t, size_t, size_t,
	                   hipMemcpyKind, hipStream_t) =
		(hipError_t(*)(void *, size_t, hipArray_const_t, size_t, size_t, size_t, size_t,
		               hipMemcpyKind, hipStream_t))thip_begin(&call,
		                                                      THIP_FN_hipMemcpy2DFromArrayAsync);
	hipError_t r = real ? real(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream)
	                    : THIP_NO_RUNTIME;
	thip_array_copy_record(&call, SBT_CM_HIP_hipMemcpy2DFromArrayAsync, r, 0, src, wOffset,
	                       hOffset, dst, dpitch, width, height, kind, 1, stream);
	thip_end(&call);
	return r;
}

/* clr's hipMemcpyToArray / hipMemcpyFromArray: count bytes are rows of
 * count / (the array's height, or 1) bytes, count / width / element size
 * of them, packed on the linear side.  An array the table does not know
 * (one the runtime refused, or made while recording was off and lost)
 * gives width count and height 1. */
static void thip_count_rows(const hipArray *arr, uint64_t count, uint64_t *w, uint64_t *h)
{
	thip_array_info info;

	if (!thip_array_get(THIP_U(arr), &info) || !info.elem || !info.width) {
		*w = count;
		*h = 1;
		return;
	}
	*w = count / (info.height ? info.height : 1);
	*h = count / info.width / info.elem;
}

hipError_t hipMemcpyToArray(hipArray *dst, size_t wOffset, size_t hOffset, const void *src,
                            size_t count, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(hipArray *, size_t, size_t, const void *, size_t, hipMemcpyKind) =
		(hipError_t(*)(hipArray *, size_t, size_t, const void *, size_t,
		               hipMemcpyKind))thip_begin(&call, THIP_FN_hipMemcpyToArray);
	hipError_t r = real ? real(dst, wOffset, hOffset, src, count, kind) : THIP_NO_RUNTIME;
	uint64_t w, h;

	if (call.record) {
		thip_count_rows(dst, count, &w, &h);
		thip_array_copy_record(&call, SBT_CM_HIP_hipMemcpyToArray, r, 1, dst, wOffset, hOffset,
		                       src, w, w, h, kind, 0, NULL);
	}
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t src, size_t wOffset, size_t hOffset,
                              size_t count, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(void *, hipArray_const_t, size_t, size_t, size_t, hipMemcpyKind) =
		(hipError_t(*)(void *, hipArray_const_t, size_t, size_t, size_t,
		               hipMemcpyKind))thip_begin(&call, THIP_FN_hipMemcpyFromArray);
	hipError_t r = real ? real(dst, src, wOffset, hOffset, count, kind) : THIP_NO_RUNTIME;
	uint64_t w, h;

	if (call.record) {
		thip_count_rows(src, count, &w, &h);
		thip_array_copy_record(&call, SBT_CM_HIP_hipMemcpyFromArray, r, 0, src, wOffset, hOffset,
		                       dst, w, w, h, kind, 0, NULL);
	}
	thip_end(&call);
	return r;
}

/* ---- hipMalloc3DArray and mipmapped arrays -------------------------------------------- */

/* clr's hipMalloc3DArray: hipArray3DCreate's descriptor from the channel
 * descriptor (getArrayFormat, getNumChannels) and the extent. */
hipError_t hipMalloc3DArray(hipArray **array, const struct hipChannelFormatDesc *desc,
                            struct hipExtent extent, unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(hipArray **, const struct hipChannelFormatDesc *, struct hipExtent,
	                   unsigned) =
		(hipError_t(*)(hipArray **, const struct hipChannelFormatDesc *, struct hipExtent,
		               unsigned))thip_begin(&call, THIP_FN_hipMalloc3DArray);
	hipError_t r = real ? real(array, desc, extent, flags) : THIP_NO_RUNTIME;
	unsigned format = desc ? thip_desc_format(desc) : 0;
	unsigned channels = desc ? (unsigned)((desc->x != 0) + (desc->y != 0) + (desc->z != 0) +
	                                      (desc->w != 0))
	                         : 0;
	thip_array_created(&call, SBT_CM_HIP_hipMalloc3DArray, r, array, extent.width, extent.height,
	                   extent.depth, format, channels, flags);
	thip_end(&call);
	return r;
}

/*
 * Mipmapped arrays: ROCm 5.2's clr answers hipErrorNotSupported to all
 * three (hip_memory.cpp), so what is recorded is a failed call, which
 * replay skips.  They are recorded all the same (sub 1: mipmapped), so a
 * runtime that makes them leaves a record replay names rather than a
 * handle it has never seen.
 */
hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *mipmappedArray,
                                   const struct hipChannelFormatDesc *desc,
                                   struct hipExtent extent, unsigned int numLevels,
                                   unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(hipMipmappedArray_t *, const struct hipChannelFormatDesc *,
	                   struct hipExtent, unsigned, unsigned) =
		(hipError_t(*)(hipMipmappedArray_t *, const struct hipChannelFormatDesc *,
		               struct hipExtent, unsigned, unsigned))thip_begin(
			&call, THIP_FN_hipMallocMipmappedArray);
	hipError_t r = real ? real(mipmappedArray, desc, extent, numLevels, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.sub = 1;
		c.handle = r == hipSuccess && mipmappedArray ? THIP_U(*mipmappedArray) : 0;
		c.width = extent.width;
		c.height = extent.height;
		c.depth = extent.depth;
		c.format = desc ? thip_desc_format(desc) : 0;
		c.channels = desc ? (unsigned)((desc->x != 0) + (desc->y != 0) + (desc->z != 0) +
		                               (desc->w != 0))
		                  : 0;
		c.count = numLevels;
		c.flags = flags;
		thip_record(SBT_CM_HIP_hipMallocMipmappedArray, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray)
{
	thip_call call;
	hipError_t (*real)(hipMipmappedArray_t) =
		(hipError_t(*)(hipMipmappedArray_t))thip_begin(&call, THIP_FN_hipFreeMipmappedArray);
	hipError_t r = real ? real(mipmappedArray) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.sub = 1;
		c.handle = THIP_U(mipmappedArray);
		thip_record(SBT_CM_HIP_hipFreeMipmappedArray, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipGetMipmappedArrayLevel(hipArray_t *levelArray, hipMipmappedArray_const_t mipmappedArray,
                                     unsigned int level)
{
	thip_call call;
	hipError_t (*real)(hipArray_t *, hipMipmappedArray_const_t, unsigned) =
		(hipError_t(*)(hipArray_t *, hipMipmappedArray_const_t, unsigned))thip_begin(
			&call, THIP_FN_hipGetMipmappedArrayLevel);
	hipError_t r = real ? real(levelArray, mipmappedArray, level) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.sub = 1;
		c.handle = r == hipSuccess && levelArray ? THIP_U(*levelArray) : 0;
		c.parent = THIP_U(mipmappedArray);
		c.value = level;
		thip_record(SBT_CM_HIP_hipGetMipmappedArrayLevel, &c, 0);
	}
	thip_end(&call);
	return r;
}

/*
 * The driver-style mipmapped arrays, which ROCm 5.2's clr implements: one
 * image with its levels.  hipMipmappedArrayGetLevel hands out a new
 * hipArray (a view of the level) at each call, filled by the runtime with
 * the level's extent, format and channels: the interposer takes them from
 * there into its table of arrays, so copies to and from a level are
 * recorded in bytes and keyframes hold it like any array.
 */
hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *pHandle, HIP_ARRAY3D_DESCRIPTOR *desc,
                                   unsigned int numMipmapLevels)
{
	thip_call call;
	hipError_t (*real)(hipMipmappedArray_t *, HIP_ARRAY3D_DESCRIPTOR *, unsigned) =
		(hipError_t(*)(hipMipmappedArray_t *, HIP_ARRAY3D_DESCRIPTOR *, unsigned))thip_begin(
			&call, THIP_FN_hipMipmappedArrayCreate);
	hipError_t r = real ? real(pHandle, desc, numMipmapLevels) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.sub = 1;
		c.handle = r == hipSuccess && pHandle ? THIP_U(*pHandle) : 0;
		if (desc) {
			c.width = desc->Width;
			c.height = desc->Height;
			c.depth = desc->Depth;
			c.format = (uint64_t)desc->Format;
			c.channels = desc->NumChannels;
			c.flags = desc->Flags;
		}
		c.count = numMipmapLevels;
		thip_record(SBT_CM_HIP_hipMipmappedArrayCreate, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipMipmappedArrayGetLevel(hipArray_t *pLevelArray, hipMipmappedArray_t hMipMappedArray,
                                     unsigned int level)
{
	thip_call call;
	hipError_t (*real)(hipArray_t *, hipMipmappedArray_t, unsigned) =
		(hipError_t(*)(hipArray_t *, hipMipmappedArray_t, unsigned))thip_begin(
			&call, THIP_FN_hipMipmappedArrayGetLevel);
	hipError_t r = real ? real(pLevelArray, hMipMappedArray, level) : THIP_NO_RUNTIME;
	uint64_t handle = r == hipSuccess && pLevelArray ? THIP_U(*pLevelArray) : 0;
	sbt_cm_call c;

	if (handle && !call.nested) {
		const hipArray *a = *pLevelArray;
		thip_array_info info = {thip_format_bytes((unsigned)a->Format) * a->NumChannels, a->width,
		                        a->height, a->depth};
		thip_array_add(handle, &info, THIP_U(hMipMappedArray));
	}
	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.sub = 1;
		c.handle = handle;
		c.parent = THIP_U(hMipMappedArray);
		c.value = level;
		thip_record(SBT_CM_HIP_hipMipmappedArrayGetLevel, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray)
{
	thip_call call;
	hipError_t (*real)(hipMipmappedArray_t) =
		(hipError_t(*)(hipMipmappedArray_t))thip_begin(&call, THIP_FN_hipMipmappedArrayDestroy);
	hipError_t r = real ? real(hMipmappedArray) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (r == hipSuccess && !call.nested && hMipmappedArray)
		thip_array_remove_levels(THIP_U(hMipmappedArray));
	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.sub = 1;
		c.handle = THIP_U(hMipmappedArray);
		thip_record(SBT_CM_HIP_hipMipmappedArrayDestroy, &c, 0);
	}
	thip_end(&call);
	return r;
}
