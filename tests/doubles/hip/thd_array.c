/*
 * thd_array.c - HIP arrays on the double: hipMallocArray, hipArrayCreate,
 * hipArray3DCreate, hipFreeArray / hipArrayDestroy, and every copy with an
 * array side (hipMemcpy2DToArray(Async), hipMemcpy2DFromArray(Async),
 * hipMemcpyToArray, hipMemcpyFromArray, hipMemcpyParam2D(Async),
 * hipMemcpy3D(Async), hipDrvMemcpy3D(Async)).
 *
 * An array is a linear buffer: rows of width x the format's element size
 * bytes, packed, height rows a slice (1 for a 1D array), depth slices (1
 * for 1D and 2D).  The buffer sits in the allocation table as
 * THD_MEM_ARRAY (so a stream-ordered copy reads it when the stream runs,
 * not at the call), and the program holds a pointer to the public
 * hipArray of ROCm 5.2's header, filled as clr fills it.
 *
 * What is checked follows clr's hip_memory.cpp (ihipArrayCreate,
 * hipMemcpy2DValidateParams/Buffer/Array, ihipMemcpyParam3D and the HtoA /
 * AtoH validation), in its order:
 *   - creation: a null out pointer or descriptor, channels other than 1,
 *     2 or 4, a format outside hipArray_Format, bits that differ between
 *     channels or follow a zero channel: hipErrorInvalidValue;
 *     hipArrayCubemap: hipErrorInvalidValue; hipArraySurfaceLoadStore or
 *     hipArrayTextureGather: hipErrorNotSupported; a shape that makes no
 *     image (width 0, depth without height unless hipArrayLayered, other
 *     flags): hipErrorInvalidValue.
 *   - free: null is hipErrorInvalidValue, an array not live
 *     hipErrorContextIsDestroyed; the device is synchronized first.
 *   - copies by rectangle: the array side's x and width in bytes are
 *     divided by the element size (clr hands the image whole elements);
 *     the region must lie inside the array (hipErrorInvalidValue); a host
 *     or device side's pitch 0 means rows packed (clr's BufferRect), and
 *     its rows must lie in one allocation or in host memory.
 */
#include "tests/doubles/hip/thd.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define THD_ARRAY_MAGIC 0x74686441u /* "thdA" */

typedef struct thd_array {
	hipArray pub;           /* first: the handle the program holds */
	uint32_t magic;
	uint8_t *bytes;         /* mmap'd; in the allocation table */
	size_t map_size;
	size_t elem;            /* bytes an element */
	size_t row, rows, slices; /* row bytes; rows a slice and slices, at least 1 */
	int view;               /* a mipmapped array's level: bytes are the level's */
} thd_array;

/* Every array ever made (live or freed: the registry keeps them). */
static struct {
	thd_array **v;
	size_t n, cap;
} thd_arrays;

/* The live array behind handle a, or NULL (never dereferences a first). */
static thd_array *thd_array_find(const void *a)
{
	thd_array *found = NULL;

	if (!a)
		return NULL;
	thd_lock();
	for (size_t i = 0; i < thd_arrays.n; i++)
		if ((const void *)thd_arrays.v[i] == a && thd_arrays.v[i]->magic == THD_ARRAY_MAGIC) {
			found = thd_arrays.v[i];
			break;
		}
	thd_unlock();
	return found;
}

static size_t thd_format_bytes(unsigned format)
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

/* clr's getCLMemObjectType: 0 when the shape makes no image. */
static int thd_array_shape_ok(size_t w, size_t h, size_t d, unsigned flags)
{
	if (flags == hipArrayDefault)
		return w && (d == 0 || h);
	if (flags == hipArrayLayered)
		return w && d;
	return 0;
}

/* ihipArrayCreate on a 3D descriptor. */
static hipError_t thd_array_create(hipArray **out, const HIP_ARRAY3D_DESCRIPTOR *desc)
{
	thd_array *a;
	size_t elem, rows, slices, size;
	void *p;

	if (!out)
		return thd_ret(hipErrorInvalidValue);
	if (desc->NumChannels != 1 && desc->NumChannels != 2 && desc->NumChannels != 4)
		return thd_ret(hipErrorInvalidValue);
	if (desc->Flags & hipArrayCubemap)
		return thd_ret(hipErrorInvalidValue);
	if (desc->Flags & (hipArraySurfaceLoadStore | hipArrayTextureGather))
		return thd_ret(hipErrorNotSupported);
	elem = thd_format_bytes(desc->Format) * desc->NumChannels;
	if (!elem || !thd_array_shape_ok(desc->Width, desc->Height, desc->Depth, desc->Flags))
		return thd_ret(hipErrorInvalidValue);
	rows = desc->Height ? desc->Height : 1;
	slices = desc->Depth ? desc->Depth : 1;
	if (desc->Width > SIZE_MAX / elem || rows > SIZE_MAX / (desc->Width * elem) ||
	    slices > SIZE_MAX / (desc->Width * elem * rows))
		return thd_ret(hipErrorOutOfMemory);
	size = desc->Width * elem * rows * slices;
	a = thd_object_new(sizeof(*a));
	if (!a)
		return thd_ret(hipErrorOutOfMemory);
	p = mmap(NULL, (size + 4095) & ~(size_t)4095, PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return thd_ret(hipErrorOutOfMemory);
	a->bytes = p;
	a->map_size = (size + 4095) & ~(size_t)4095;
	if (thd_mem_add((uintptr_t)p, size, a->map_size, THD_MEM_ARRAY) != 0) {
		munmap(p, a->map_size);
		return thd_ret(hipErrorOutOfMemory);
	}
	a->elem = elem;
	a->row = desc->Width * elem;
	a->rows = rows;
	a->slices = slices;
	/* the public struct as clr fills it (data: its memory object) */
	a->pub.data = a;
	a->pub.desc.x = (int)(thd_format_bytes(desc->Format) * 8);
	a->pub.desc.y = desc->NumChannels > 1 ? a->pub.desc.x : 0;
	a->pub.desc.z = desc->NumChannels > 2 ? a->pub.desc.x : 0;
	a->pub.desc.w = desc->NumChannels > 2 ? a->pub.desc.x : 0;
	a->pub.desc.f = desc->Format == HIP_AD_FORMAT_HALF || desc->Format == HIP_AD_FORMAT_FLOAT
	                    ? hipChannelFormatKindFloat
	                : desc->Format >= HIP_AD_FORMAT_SIGNED_INT8 ? hipChannelFormatKindSigned
	                                                            : hipChannelFormatKindUnsigned;
	a->pub.width = (unsigned)desc->Width;
	a->pub.height = (unsigned)desc->Height;
	a->pub.depth = (unsigned)desc->Depth;
	a->pub.Format = desc->Format;
	a->pub.NumChannels = desc->NumChannels;
	thd_lock();
	if (thd_arrays.n == thd_arrays.cap) {
		size_t cap = thd_arrays.cap ? thd_arrays.cap * 2 : 16;
		thd_array **v = realloc(thd_arrays.v, cap * sizeof(*v));
		if (!v) {
			thd_unlock();
			thd_mem_remove((uintptr_t)p);
			munmap(p, a->map_size);
			return thd_ret(hipErrorOutOfMemory);
		}
		thd_arrays.v = v;
		thd_arrays.cap = cap;
	}
	thd_arrays.v[thd_arrays.n++] = a;
	a->magic = THD_ARRAY_MAGIC;
	thd_unlock();
	*out = &a->pub;
	return hipSuccess;
}

/* clr's getArrayFormat: by kind and the first channel's bits (0: none). */
static unsigned thd_desc_format(const hipChannelFormatDesc *d)
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

/* clr's CheckArrayFormat: every channel present has the first one's bits,
 * and none follows an absent one. */
static int thd_desc_ok(const hipChannelFormatDesc *d)
{
	if (!d->x || (d->y && d->y != d->x) || (d->z && d->z != d->x) || (d->w && d->w != d->x))
		return 0;
	if (!d->y)
		return !d->z && !d->w;
	if (!d->z)
		return !d->w;
	return 1;
}

THD_EXPORT hipError_t hipMallocArray(hipArray **array, const hipChannelFormatDesc *desc,
                                     size_t width, size_t height, unsigned int flags)
{
	HIP_ARRAY3D_DESCRIPTOR d;

	if (!array || !desc || !thd_desc_ok(desc))
		return thd_ret(hipErrorInvalidValue);
	memset(&d, 0, sizeof(d));
	d.Width = width;
	d.Height = height;
	d.Format = (enum hipArray_Format)thd_desc_format(desc);
	d.NumChannels = (unsigned)((desc->x != 0) + (desc->y != 0) + (desc->z != 0) + (desc->w != 0));
	d.Flags = flags;
	return thd_array_create(array, &d);
}

THD_EXPORT hipError_t hipArrayCreate(hipArray **array, const HIP_ARRAY_DESCRIPTOR *desc)
{
	HIP_ARRAY3D_DESCRIPTOR d;

	if (!desc)
		return thd_ret(hipErrorInvalidValue);
	memset(&d, 0, sizeof(d));
	d.Width = desc->Width;
	d.Height = desc->Height;
	d.Format = desc->Format;
	d.NumChannels = desc->NumChannels;
	return thd_array_create(array, &d);
}

THD_EXPORT hipError_t hipArray3DCreate(hipArray **array, const HIP_ARRAY3D_DESCRIPTOR *desc)
{
	if (!desc)
		return thd_ret(hipErrorInvalidValue);
	return thd_array_create(array, desc);
}

/* clr's ihipArrayDestroy: null is hipErrorInvalidValue, an array it does
 * not know hipErrorContextIsDestroyed; the device's work finishes first. */
THD_EXPORT hipError_t hipFreeArray(hipArray *array)
{
	thd_array *a;

	if (!array)
		return thd_ret(hipErrorInvalidValue);
	if (!(a = thd_array_find(array)))
		return thd_ret(hipErrorContextIsDestroyed);
	thd_sync_device();
	thd_lock();
	a->magic = THD_DEAD;
	thd_unlock();
	if (!a->view) { /* a level's view leaves the level's bytes to its array */
		thd_mem_remove((uintptr_t)a->bytes);
		munmap(a->bytes, a->map_size);
	}
	a->bytes = NULL;
	return hipSuccess;
}

THD_EXPORT hipError_t hipArrayDestroy(hipArray *array)
{
	return hipFreeArray(array);
}

/* ---- copies -------------------------------------------------------------------- */

/* One side of a copy resolved to linear bytes: its first byte, row pitch
 * and slice pitch. */
typedef struct thd_lin {
	uint8_t *first;
	size_t pitch, slice;
} thd_lin;

/* An array side: the region (x, width in bytes: whole elements) inside
 * the array. */
static hipError_t thd_array_side(hipArray *h, size_t x, size_t y, size_t z, size_t *w,
                                 size_t hgt, size_t d, thd_lin *out)
{
	thd_array *a = thd_array_find(h);
	size_t xe, we;

	if (!a)
		return hipErrorInvalidValue;
	xe = x / a->elem;
	we = *w / a->elem;
	if (!we || xe > a->row / a->elem || we > a->row / a->elem - xe || y > a->rows ||
	    hgt > a->rows - y || z > a->slices || d > a->slices - z)
		return hipErrorInvalidValue;
	*w = we * a->elem;
	out->pitch = a->row;
	out->slice = a->row * a->rows;
	out->first = a->bytes + z * out->slice + y * out->pitch + xe * a->elem;
	return hipSuccess;
}

/* A host or device side: pitch 0 means rows of width bytes packed, rows
 * a slice 0 means height. */
static hipError_t thd_linear_side(const void *ptr, size_t x, size_t y, size_t z, size_t pitch,
                                  size_t slice_rows, size_t w, size_t h, thd_lin *out)
{
	if (!ptr)
		return hipErrorInvalidValue;
	out->pitch = pitch ? pitch : w;
	if (out->pitch < w)
		return hipErrorInvalidValue;
	slice_rows = slice_rows ? slice_rows : h;
	if (slice_rows > SIZE_MAX / out->pitch)
		return hipErrorInvalidValue;
	out->slice = out->pitch * slice_rows;
	if ((z && z > SIZE_MAX / 4 / (out->slice ? out->slice : 1)) || y > SIZE_MAX / 4 / out->pitch ||
	    x > SIZE_MAX / 4)
		return hipErrorInvalidValue;
	out->first = (uint8_t *)(uintptr_t)ptr + z * out->slice + y * out->pitch + x;
	return hipSuccess;
}

/* Every row of a side lies in one allocation, or in host memory. */
static int thd_lin_rows_ok(const thd_lin *l, size_t w, size_t h, size_t d)
{
	for (size_t z = 0; z < d; z++)
		for (size_t y = 0; y < h; y++) {
			uint64_t p = (uintptr_t)(l->first + z * l->slice + y * l->pitch);
			if (thd_mem_is_device(p) && !thd_mem_at(p, w))
				return 0;
		}
	return 1;
}

/* clr's ihipMemcpyParam3D with at least one array side: a zero width,
 * height or depth copies nothing; each side resolved and checked before
 * anything is queued; then one copy a row, in order, on the stream. */
static hipError_t thd_copy_param3d(const HIP_MEMCPY3D *p, hipStream_t stream)
{
	size_t w, h, d;
	thd_lin dl, sl;
	hipError_t r;
	int bad;

	if (!p)
		return thd_ret(hipErrorInvalidValue);
	thd_stream_capture(stream, &bad);
	if (bad)
		return thd_ret(hipErrorContextIsDestroyed);
	w = p->WidthInBytes;
	h = p->Height;
	d = p->Depth;
	if (!w || !h || !d)
		return hipSuccess;
	if (p->srcMemoryType == hipMemoryTypeArray)
		r = thd_array_side(p->srcArray, p->srcXInBytes, p->srcY, p->srcZ, &w, h, d, &sl);
	else
		r = thd_linear_side(p->srcMemoryType == hipMemoryTypeHost ? p->srcHost
		                                                           : (const void *)p->srcDevice,
		                    p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch, p->srcHeight, w, h, &sl);
	if (r != hipSuccess)
		return thd_ret(r);
	if (p->dstMemoryType == hipMemoryTypeArray)
		r = thd_array_side(p->dstArray, p->dstXInBytes, p->dstY, p->dstZ, &w, h, d, &dl);
	else
		r = thd_linear_side(p->dstMemoryType == hipMemoryTypeHost ? (const void *)p->dstHost
		                                                           : (const void *)p->dstDevice,
		                    p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch, p->dstHeight, w, h, &dl);
	if (r != hipSuccess)
		return thd_ret(r);
	if (!thd_lin_rows_ok(&sl, w, h, d) || !thd_lin_rows_ok(&dl, w, h, d))
		return thd_ret(hipErrorInvalidValue);
	for (size_t z = 0; z < d; z++)
		for (size_t y = 0; y < h; y++) {
			r = thd_copy_on(dl.first + z * dl.slice + y * dl.pitch,
			                sl.first + z * sl.slice + y * sl.pitch, w, stream);
			if (r != hipSuccess)
				return r;
		}
	return hipSuccess;
}

hipError_t thd_array_param2d(const hip_Memcpy2D *p, hipStream_t stream)
{
	HIP_MEMCPY3D m;

	if (!p)
		return thd_ret(hipErrorInvalidValue);
	memset(&m, 0, sizeof(m));
	m.srcXInBytes = (unsigned)p->srcXInBytes;
	m.srcY = (unsigned)p->srcY;
	m.srcMemoryType = p->srcMemoryType;
	m.srcHost = p->srcHost;
	m.srcDevice = p->srcDevice;
	m.srcArray = p->srcArray;
	m.srcPitch = (unsigned)p->srcPitch;
	m.dstXInBytes = (unsigned)p->dstXInBytes;
	m.dstY = (unsigned)p->dstY;
	m.dstMemoryType = p->dstMemoryType;
	m.dstHost = p->dstHost;
	m.dstDevice = p->dstDevice;
	m.dstArray = p->dstArray;
	m.dstPitch = (unsigned)p->dstPitch;
	m.WidthInBytes = (unsigned)p->WidthInBytes;
	m.Height = (unsigned)p->Height;
	m.Depth = 1;
	return thd_copy_param3d(&m, stream);
}

/* clr's getDrvMemcpy3DDesc: an array side's x and the extent's width are
 * in elements (the width by the destination array's element size when
 * both sides are arrays). */
hipError_t thd_array_copy3d(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
	HIP_MEMCPY3D m;
	thd_array *sa, *da;

	if (!p)
		return thd_ret(hipErrorInvalidValue);
	sa = thd_array_find(p->srcArray);
	da = thd_array_find(p->dstArray);
	if ((p->srcArray && !sa) || (p->dstArray && !da))
		return thd_ret(hipErrorInvalidValue);
	memset(&m, 0, sizeof(m));
	m.srcXInBytes = (unsigned)(p->srcPos.x * (sa ? sa->elem : 1));
	m.srcY = (unsigned)p->srcPos.y;
	m.srcZ = (unsigned)p->srcPos.z;
	m.srcMemoryType = sa ? hipMemoryTypeArray : hipMemoryTypeDevice;
	m.srcArray = p->srcArray;
	m.srcHost = p->srcPtr.ptr;
	m.srcDevice = p->srcPtr.ptr;
	m.srcPitch = (unsigned)p->srcPtr.pitch;
	m.srcHeight = (unsigned)p->srcPtr.ysize;
	m.dstXInBytes = (unsigned)(p->dstPos.x * (da ? da->elem : 1));
	m.dstY = (unsigned)p->dstPos.y;
	m.dstZ = (unsigned)p->dstPos.z;
	m.dstMemoryType = da ? hipMemoryTypeArray : hipMemoryTypeDevice;
	m.dstArray = p->dstArray;
	m.dstHost = p->dstPtr.ptr;
	m.dstDevice = p->dstPtr.ptr;
	m.dstPitch = (unsigned)p->dstPtr.pitch;
	m.dstHeight = (unsigned)p->dstPtr.ysize;
	m.WidthInBytes = (unsigned)(p->extent.width * (da ? da->elem : sa ? sa->elem : 1));
	m.Height = (unsigned)p->extent.height;
	m.Depth = (unsigned)p->extent.depth;
	return thd_copy_param3d(&m, stream);
}

THD_EXPORT hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D *p)
{
	return thd_copy_param3d(p, NULL);
}

THD_EXPORT hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D *p, hipStream_t stream)
{
	return thd_copy_param3d(p, stream);
}

/* clr's hipMemcpy2DValidateParams, hipMemcpy2DValidateBuffer and
 * hipMemcpy2DValidateArray, in that order. */
static hipError_t thd_2d_array_check(hipMemcpyKind kind, const void *buf, size_t pitch,
                                     const hipArray *arr, size_t woff, size_t hoff, size_t width,
                                     size_t height)
{
	thd_array *a;

	if ((int)kind < hipMemcpyHostToHost || kind > hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	if (!buf)
		return hipErrorInvalidValue;
	if (pitch == 0 || pitch < width)
		return hipErrorInvalidPitchValue;
	if (!arr)
		return hipErrorInvalidHandle;
	if (!(a = thd_array_find(arr)))
		return hipErrorInvalidValue;
	if (width > a->row || woff > a->row - width || height > a->rows || hoff > a->rows - height)
		return hipErrorInvalidValue;
	return hipSuccess;
}

/* The host or device side of kind's linear end (hip::getMemoryType). */
static hipMemoryType thd_kind_side(hipMemcpyKind kind, int src)
{
	if (kind == hipMemcpyHostToHost)
		return hipMemoryTypeHost;
	if (kind == hipMemcpyHostToDevice)
		return src ? hipMemoryTypeHost : hipMemoryTypeDevice;
	if (kind == hipMemcpyDeviceToHost)
		return src ? hipMemoryTypeDevice : hipMemoryTypeHost;
	return hipMemoryTypeDevice;
}

static hipError_t thd_to_array(hipArray *dst, size_t woff, size_t hoff, const void *src,
                               size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
                               hipStream_t stream)
{
	hip_Memcpy2D m;

	if (!dst)
		return thd_ret(hipErrorInvalidResourceHandle);
	memset(&m, 0, sizeof(m));
	m.srcMemoryType = thd_kind_side(kind, 1);
	m.srcHost = src;
	m.srcDevice = (hipDeviceptr_t)(uintptr_t)src;
	m.srcPitch = spitch;
	m.dstXInBytes = woff;
	m.dstY = hoff;
	m.dstMemoryType = hipMemoryTypeArray;
	m.dstArray = dst;
	m.WidthInBytes = width;
	m.Height = height;
	return thd_array_param2d(&m, stream);
}

static hipError_t thd_from_array(void *dst, size_t dpitch, const hipArray *src, size_t woff,
                                 size_t hoff, size_t width, size_t height, hipMemcpyKind kind,
                                 hipStream_t stream)
{
	hip_Memcpy2D m;

	if (!src)
		return thd_ret(hipErrorInvalidResourceHandle);
	memset(&m, 0, sizeof(m));
	m.srcXInBytes = woff;
	m.srcY = hoff;
	m.srcMemoryType = hipMemoryTypeArray;
	m.srcArray = (hipArray *)(uintptr_t)src;
	m.dstMemoryType = thd_kind_side(kind, 0);
	m.dstHost = dst;
	m.dstDevice = dst;
	m.dstPitch = dpitch;
	m.WidthInBytes = width;
	m.Height = height;
	return thd_array_param2d(&m, stream);
}

static hipError_t thd_2d_to_array(hipArray *dst, size_t woff, size_t hoff, const void *src,
                                  size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
                                  hipStream_t stream)
{
	hipError_t r = thd_2d_array_check(kind, src, spitch, dst, woff, hoff, width, height);
	int bad;

	if (r == hipSuccess && (thd_stream_capture(stream, &bad), bad))
		r = hipErrorInvalidValue;
	if (r != hipSuccess)
		return thd_ret(r);
	return thd_to_array(dst, woff, hoff, src, spitch, width, height, kind, stream);
}

static hipError_t thd_2d_from_array(void *dst, size_t dpitch, const hipArray *src, size_t woff,
                                    size_t hoff, size_t width, size_t height, hipMemcpyKind kind,
                                    hipStream_t stream)
{
	hipError_t r = thd_2d_array_check(kind, dst, dpitch, src, woff, hoff, width, height);
	int bad;

	if (r == hipSuccess && (thd_stream_capture(stream, &bad), bad))
		r = hipErrorInvalidValue;
	if (r != hipSuccess)
		return thd_ret(r);
	return thd_from_array(dst, dpitch, src, woff, hoff, width, height, kind, stream);
}

THD_EXPORT hipError_t hipMemcpy2DToArray(hipArray *dst, size_t wOffset, size_t hOffset,
                                         const void *src, size_t spitch, size_t width,
                                         size_t height, hipMemcpyKind kind)
{
	return thd_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL);
}

THD_EXPORT hipError_t hipMemcpy2DToArrayAsync(hipArray *dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t spitch, size_t width,
                                              size_t height, hipMemcpyKind kind,
                                              hipStream_t stream)
{
	return thd_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, stream);
}

THD_EXPORT hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src,
                                           size_t wOffset, size_t hOffset, size_t width,
                                           size_t height, hipMemcpyKind kind)
{
	return thd_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL);
}

THD_EXPORT hipError_t hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, hipArray_const_t src,
                                                size_t wOffset, size_t hOffset, size_t width,
                                                size_t height, hipMemcpyKind kind,
                                                hipStream_t stream)
{
	return thd_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream);
}

/* clr's hipMemcpyToArray / hipMemcpyFromArray: count bytes become rows
 * of count / (the array's height, or 1) bytes, (count / width) / element
 * size of them, packed on the linear side (pitch 0). */
static void thd_count_shape(const thd_array *a, size_t count, size_t *w, size_t *h)
{
	*w = count / (a->pub.height ? a->pub.height : 1);
	*h = a->pub.width ? count / a->pub.width / a->elem : 0;
}

THD_EXPORT hipError_t hipMemcpyToArray(hipArray *dst, size_t wOffset, size_t hOffset,
                                       const void *src, size_t count, hipMemcpyKind kind)
{
	thd_array *a;
	size_t w, h;

	if (!dst)
		return thd_ret(hipErrorInvalidValue);
	if (!(a = thd_array_find(dst)))
		return thd_ret(hipErrorInvalidValue);
	thd_count_shape(a, count, &w, &h);
	return thd_to_array(dst, wOffset, hOffset, src, 0, w, h, kind, NULL);
}

THD_EXPORT hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t src, size_t wOffset,
                                         size_t hOffset, size_t count, hipMemcpyKind kind)
{
	thd_array *a;
	size_t w, h;

	if (!src)
		return thd_ret(hipErrorInvalidValue);
	if (!(a = thd_array_find(src)))
		return thd_ret(hipErrorInvalidValue);
	thd_count_shape(a, count, &w, &h);
	return thd_from_array(dst, 0, src, wOffset, hOffset, w, h, kind, NULL);
}

/* clr's hipMemcpy2DToArray_spt / hipMemcpy2DFromArray_spt: the same
 * checks and copy on the calling thread's per-thread default stream,
 * waited for. */
THD_EXPORT hipError_t hipMemcpy2DToArray_spt(hipArray *dst, size_t wOffset, size_t hOffset,
                                             const void *src, size_t spitch, size_t width,
                                             size_t height, hipMemcpyKind kind)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, thd_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height,
	                                         kind, s));
}

THD_EXPORT hipError_t hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, hipArray_const_t src,
                                               size_t wOffset, size_t hOffset, size_t width,
                                               size_t height, hipMemcpyKind kind)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, thd_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height,
	                                           kind, s));
}

/* clr's hipMalloc3DArray: a null out pointer or descriptor is
 * hipErrorInvalidValue; the descriptor's format (getArrayFormat) and
 * channels (getNumChannels) and the extent make hipArray3DCreate's
 * descriptor, with no check of the channel descriptor's bits (unlike
 * hipMallocArray's CheckArrayFormat): a format clr does not know makes no
 * image (hipErrorInvalidValue here). */
THD_EXPORT hipError_t hipMalloc3DArray(hipArray **array, const struct hipChannelFormatDesc *desc,
                                       struct hipExtent extent, unsigned int flags)
{
	HIP_ARRAY3D_DESCRIPTOR d;

	if (!array || !desc)
		return thd_ret(hipErrorInvalidValue);
	memset(&d, 0, sizeof(d));
	d.Width = extent.width;
	d.Height = extent.height;
	d.Depth = extent.depth;
	d.Format = (enum hipArray_Format)thd_desc_format(desc);
	d.NumChannels = (unsigned)((desc->x != 0) + (desc->y != 0) + (desc->z != 0) + (desc->w != 0));
	d.Flags = flags;
	return thd_array_create(array, &d);
}

/* ROCm 5.2's clr answers every one of these hipErrorNotSupported
 * (hip_memory.cpp), whatever the arguments. */
THD_EXPORT hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *mipmappedArray,
                                              const struct hipChannelFormatDesc *desc,
                                              struct hipExtent extent, unsigned int numLevels,
                                              unsigned int flags)
{
	(void)mipmappedArray;
	(void)desc;
	(void)extent;
	(void)numLevels;
	(void)flags;
	return thd_ret(hipErrorNotSupported);
}

THD_EXPORT hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray)
{
	(void)mipmappedArray;
	return thd_ret(hipErrorNotSupported);
}

THD_EXPORT hipError_t hipGetMipmappedArrayLevel(hipArray_t *levelArray,
                                                hipMipmappedArray_const_t mipmappedArray,
                                                unsigned int level)
{
	(void)levelArray;
	(void)mipmappedArray;
	(void)level;
	return thd_ret(hipErrorNotSupported);
}

/* ---- mipmapped arrays by the driver-style calls ---------------------------------- */

/*
 * clr 5.2 implements hipMipmappedArrayCreate / GetLevel / Destroy (the
 * runtime-style hipMallocMipmappedArray family answers
 * hipErrorNotSupported): one image with its levels; GetLevel makes a new
 * hipArray, a view of the level, each time it is called (width, height
 * and depth of the level: each extent halved per level, at least 1, a
 * layered array's layers kept), and Destroy releases the image after the
 * devices' null streams finish.  Here each level is an array of its own,
 * made with the mipmapped array; a view shares its level's bytes and
 * dies with the mipmapped array.  clr checks nothing more before making
 * the image; the double refuses a null out pointer or descriptor and a
 * level count of 0 or more than the largest extent allows
 * (hipErrorInvalidValue), where clr would fail inside the image.
 */
#define THD_MIP_MAGIC 0x7468644du /* "thdM" */
#define THD_MIP_MAX 16

typedef struct thd_mipmap {
	hipMipmappedArray pub;  /* first: the handle the program holds */
	uint32_t magic;
	unsigned levels;
	unsigned layered;
	thd_array *level[THD_MIP_MAX];
	thd_array **views;      /* every view GetLevel made (owned array) */
	size_t nviews;
} thd_mipmap;

static struct {
	thd_mipmap **v;
	size_t n;
} thd_mipmaps;

static thd_mipmap *thd_mipmap_find(const void *m)
{
	thd_mipmap *found = NULL;

	if (!m)
		return NULL;
	thd_lock();
	for (size_t i = 0; i < thd_mipmaps.n; i++)
		if ((const void *)thd_mipmaps.v[i] == m && thd_mipmaps.v[i]->magic == THD_MIP_MAGIC) {
			found = thd_mipmaps.v[i];
			break;
		}
	thd_unlock();
	return found;
}

static size_t thd_mip_extent(size_t e, unsigned l)
{
	if (!e)
		return 0;
	e >>= l;
	return e ? e : 1;
}

THD_EXPORT hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *pHandle,
                                              HIP_ARRAY3D_DESCRIPTOR *desc, unsigned int levels)
{
	thd_mipmap *m, **v;
	size_t top;
	unsigned most = 0;
	hipError_t r;

	if (!pHandle || !desc || !levels)
		return thd_ret(hipErrorInvalidValue);
	top = desc->Width > desc->Height ? desc->Width : desc->Height;
	if (!(desc->Flags & hipArrayLayered) && desc->Depth > top)
		top = desc->Depth;
	while (most < THD_MIP_MAX && (top >> most))
		most++;
	if (levels > most)
		return thd_ret(hipErrorInvalidValue);
	m = thd_object_new(sizeof(*m));
	if (!m)
		return thd_ret(hipErrorOutOfMemory);
	m->layered = (desc->Flags & hipArrayLayered) != 0;
	for (unsigned l = 0; l < levels; l++) {
		HIP_ARRAY3D_DESCRIPTOR d = *desc;
		hipArray *a = NULL;
		d.Width = thd_mip_extent(desc->Width, l);
		d.Height = thd_mip_extent(desc->Height, l);
		d.Depth = m->layered ? desc->Depth : thd_mip_extent(desc->Depth, l);
		r = thd_array_create(&a, &d);
		if (r != hipSuccess)
			return r; /* the levels made stay in the registry */
		m->level[l] = thd_array_find(a);
		m->levels = l + 1;
	}
	m->pub.data = m;
	m->pub.desc = m->level[0]->pub.desc;
	m->pub.width = (unsigned)desc->Width;
	m->pub.height = (unsigned)desc->Height;
	m->pub.depth = (unsigned)desc->Depth;
	m->pub.max_mipmap_level = levels;
	m->pub.flags = desc->Flags;
	m->pub.format = desc->Format;
	thd_lock();
	v = realloc(thd_mipmaps.v, (thd_mipmaps.n + 1) * sizeof(*v));
	if (v) {
		thd_mipmaps.v = v;
		v[thd_mipmaps.n++] = m;
		m->magic = THD_MIP_MAGIC;
	}
	thd_unlock();
	if (!v)
		return thd_ret(hipErrorOutOfMemory);
	*pHandle = &m->pub;
	return hipSuccess;
}

THD_EXPORT hipError_t hipMipmappedArrayGetLevel(hipArray_t *pLevelArray,
                                                hipMipmappedArray_t hMipMappedArray,
                                                unsigned int level)
{
	thd_mipmap *m;
	thd_array *lv, *a, **v;

	if (!pLevelArray || !hMipMappedArray)
		return thd_ret(hipErrorInvalidValue);
	if (!(m = thd_mipmap_find(hMipMappedArray)) || level >= m->levels)
		return thd_ret(hipErrorInvalidValue);
	lv = m->level[level];
	a = thd_object_new(sizeof(*a));
	if (!a)
		return thd_ret(hipErrorOutOfMemory);
	*a = *lv;
	a->magic = 0;
	a->view = 1;
	a->pub.data = a;
	/* clr fills the view from the level image: a 2D level's depth is 1 */
	a->pub.depth = (unsigned)lv->slices;
	thd_lock();
	v = thd_arrays.v;
	if (thd_arrays.n == thd_arrays.cap) {
		size_t cap = thd_arrays.cap ? thd_arrays.cap * 2 : 16;
		if ((v = realloc(thd_arrays.v, cap * sizeof(*v)))) {
			thd_arrays.v = v;
			thd_arrays.cap = cap;
		}
	}
	if (v)
		v[thd_arrays.n++] = a;
	if (v && (v = realloc(m->views, (m->nviews + 1) * sizeof(*v)))) {
		m->views = v;
		v[m->nviews++] = a;
		a->magic = THD_ARRAY_MAGIC;
	}
	thd_unlock();
	if (a->magic != THD_ARRAY_MAGIC)
		return thd_ret(hipErrorOutOfMemory);
	*pLevelArray = &a->pub;
	return hipSuccess;
}

THD_EXPORT hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray)
{
	thd_mipmap *m;

	if (!hMipmappedArray || !(m = thd_mipmap_find(hMipmappedArray)))
		return thd_ret(hipErrorInvalidValue);
	thd_sync_device();
	thd_lock();
	m->magic = THD_DEAD;
	for (size_t i = 0; i < m->nviews; i++)
		m->views[i]->magic = THD_DEAD;
	thd_unlock();
	for (unsigned l = 0; l < m->levels; l++)
		hipFreeArray(&m->level[l]->pub);
	return hipSuccess;
}
