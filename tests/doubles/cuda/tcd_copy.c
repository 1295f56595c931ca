/*
 * tcd_copy.c - copies and memsets.  Each is an op on a stream: the
 * synchronous forms go to the default stream (legacy, or per-thread for the
 * _ptds forms) and return once it has run; the Async forms return at once.
 * Device ranges are checked against the allocation registry when the call is
 * made; host pointers can only be checked for NULL.  Data moves when the op
 * runs, so a host buffer changed before an async copy runs is copied as it is
 * then, as with pinned memory on a GPU.  A CUDA array side (2D/3D copies,
 * and the copies by byte offset) is checked against the array's extent
 * (tcd_array.c) and moves bytes of its packed host layout; an array counts
 * as the device side.
 *
 * Bytes moved device->host and host->device are counted for
 * TSCUDA_DOUBLE_STATS when a copy is accepted (a copy captured into a graph
 * counts then, not when the graph runs), so a test can bound what a
 * recorder read back.  Pinned host memory is the host side; device-to-device
 * and host-to-host copies count in neither.
 */
#include "tests/doubles/cuda/tcd.h"

#include <string.h>

enum tcd_side { TCD_HOST, TCD_DEVICE, TCD_ANY };

static CUresult tcd_side_check(uintptr_t p, size_t n, enum tcd_side side, const char *call, const char *what)
{
	if (side == TCD_DEVICE)
		return tcd_range_check(p, n, call, what);
	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s is NULL", what);
	if (side == TCD_ANY && tcd_range_probe(p)) {
		/* unified addressing: a pointer inside an allocation must stay inside it */
		return tcd_range_check(p, n, call, what);
	}
	return CUDA_SUCCESS;
}

/* Counts n bytes of an accepted copy by direction. */
static void tcd_copy_count(uintptr_t dst, enum tcd_side dside, uintptr_t src, enum tcd_side sside, size_t n)
{
	bool dhost = dside == TCD_HOST || (dside == TCD_ANY && tcd_range_is_host_side(dst));
	bool shost = sside == TCD_HOST || (sside == TCD_ANY && tcd_range_is_host_side(src));

	if (dhost && !shost)
		atomic_fetch_add_explicit(&tcd_g.bytes_dtoh, n, memory_order_relaxed);
	else if (shost && !dhost)
		atomic_fetch_add_explicit(&tcd_g.bytes_htod, n, memory_order_relaxed);
}

static CUresult tcd_copy(uintptr_t dst, enum tcd_side dside, uintptr_t src, enum tcd_side sside, size_t n, CUstream h,
			 bool pt, bool sync, const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *op;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	if (n == 0)
		return CUDA_SUCCESS;
	if ((r = tcd_side_check(dst, n, dside, call, "destination")) != CUDA_SUCCESS ||
	    (r = tcd_side_check(src, n, sside, call, "source")) != CUDA_SUCCESS)
		return r;
	op = tcd_op_new(TCD_OP_COPY);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.copy.dst = (unsigned char *)dst;
	op->u.copy.src = (const unsigned char *)src;
	op->u.copy.width = n;
	op->u.copy.height = 1;
	op->u.copy.dpitch = op->u.copy.spitch = n;
	r = sync ? tcd_enqueue_sync(s, op, call) : tcd_enqueue(s, op, call, NULL);
	if (r == CUDA_SUCCESS)
		tcd_copy_count(dst, dside, src, sside, n);
	return r;
}

/* One side of a 2D or 3D copy, the fields CUDA_MEMCPY2D and CUDA_MEMCPY3D share. */
struct tcd_copy_side {
	CUmemorytype type;
	const void *host;
	CUdeviceptr dev;
	CUarray array;
	size_t x, y, z, pitch, height; /* height: rows per slice (3D, host and device sides) */
};

/* A 3D copy is a 2D one with depth 1.  Arrays are reached by their
 * handle, their region checked against their extent; pitch is ignored
 * for them, as the driver documents. */
struct tcd_copy_args {
	struct tcd_copy_side src, dst;
	size_t width, height, depth;
};

static CUresult tcd_copy3d_side(const struct tcd_copy_side *c, const struct tcd_copy_args *a, uintptr_t *out,
				size_t *pitch_out, size_t *slice_out, enum tcd_side *side_out, const char *call,
				const char *what)
{
	uintptr_t base;
	enum tcd_side side;
	size_t span, slice;

	switch (c->type) {
	case CU_MEMORYTYPE_HOST:
		base = (uintptr_t)c->host;
		side = TCD_HOST;
		break;
	case CU_MEMORYTYPE_DEVICE:
		base = (uintptr_t)c->dev;
		side = TCD_DEVICE;
		break;
	case CU_MEMORYTYPE_UNIFIED:
		base = (uintptr_t)c->dev;
		side = TCD_ANY;
		break;
	case CU_MEMORYTYPE_ARRAY: {
		unsigned char *at;
		CUresult r = tcd_array_region(c->array, c->x, c->y, c->z, a->width, a->height, a->depth, call, what,
					      &at, pitch_out, slice_out);
		if (r != CUDA_SUCCESS)
			return r;
		*out = (uintptr_t)at;
		*side_out = TCD_DEVICE; /* for the byte counts; checked above */
		return CUDA_SUCCESS;
	}
	default:
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s memory type %d is unknown", what, (int)c->type);
	}
	if (a->height > 1 && c->pitch < a->width)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s pitch %zu is less than WidthInBytes %zu", what,
				c->pitch, a->width);
	if (a->depth > 1 && c->height < a->height)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s height %zu is less than Height %zu", what, c->height,
				a->height);
	if (!base)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s pointer is NULL", what);
	{
		size_t off, t;
		slice = 0;
		if ((a->depth > 1 && __builtin_mul_overflow(c->pitch, c->height, &slice)) ||
		    __builtin_mul_overflow(c->z, slice, &off) || __builtin_mul_overflow(c->y, c->pitch, &t) ||
		    __builtin_add_overflow(off, t, &off) || __builtin_add_overflow(off, c->x, &off) ||
		    __builtin_add_overflow(base, off, out) || __builtin_mul_overflow(a->depth - 1, slice, &span) ||
		    __builtin_mul_overflow(a->height - 1, c->pitch, &t) || __builtin_add_overflow(span, t, &span) ||
		    __builtin_add_overflow(span, a->width, &span))
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the %s region's extent overflows", what);
	}
	*pitch_out = c->pitch;
	*slice_out = slice;
	*side_out = side;
	return tcd_side_check(*out, span, side, call, what);
}

/* The op of a 2D or 3D copy, checked and counted as accepted; NULL in
 * *out (and success) when there is nothing to copy. */
static CUresult tcd_copy3d_make(const struct tcd_copy_args *a, const char *call, struct tcd_op **out)
{
	struct tcd_op *op;
	uintptr_t src, dst;
	size_t spitch, dpitch, sslice, dslice;
	enum tcd_side sside, dside;
	CUresult r;

	*out = NULL;
	if (!a->width || !a->height || !a->depth)
		return CUDA_SUCCESS;
	r = tcd_copy3d_side(&a->src, a, &src, &spitch, &sslice, &sside, call, "source");
	if (r == CUDA_SUCCESS)
		r = tcd_copy3d_side(&a->dst, a, &dst, &dpitch, &dslice, &dside, call, "destination");
	if (r != CUDA_SUCCESS)
		return r;
	op = tcd_op_new(TCD_OP_COPY);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.copy.dst = (unsigned char *)dst;
	op->u.copy.src = (const unsigned char *)src;
	op->u.copy.width = a->width;
	op->u.copy.height = a->height;
	op->u.copy.dpitch = dpitch;
	op->u.copy.spitch = spitch;
	op->u.copy.depth = a->depth;
	op->u.copy.dslice = dslice;
	op->u.copy.sslice = sslice;
	/* unified addressing: device memory is what lies in an allocation */
	op->u.copy.dst_host = dside == TCD_HOST || (dside == TCD_ANY && !tcd_range_probe(dst));
	op->u.copy.src_host = sside == TCD_HOST || (sside == TCD_ANY && !tcd_range_probe(src));
	tcd_copy_count(dst, dside, src, sside, a->width * a->height * a->depth);
	*out = op;
	return CUDA_SUCCESS;
}

static CUresult tcd_copy3d(const struct tcd_copy_args *a, CUstream h, bool pt, bool sync, const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *op;
	CUresult r;

	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	if ((r = tcd_copy3d_make(a, call, &op)) != CUDA_SUCCESS || !op)
		return r;
	return sync ? tcd_enqueue_sync(s, op, call) : tcd_enqueue(s, op, call, NULL);
}

static CUresult tcd_copy2d(const CUDA_MEMCPY2D *c, CUstream h, bool pt, bool sync, const char *call)
{
	struct tcd_copy_args a;

	if (!c)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pCopy is NULL");
	memset(&a, 0, sizeof(a));
	a.src = (struct tcd_copy_side){c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
				       c->srcXInBytes, c->srcY, 0, c->srcPitch, 0};
	a.dst = (struct tcd_copy_side){c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray,
				       c->dstXInBytes, c->dstY, 0, c->dstPitch, 0};
	a.width = c->WidthInBytes;
	a.height = c->Height;
	a.depth = 1;
	return tcd_copy3d(&a, h, pt, sync, call);
}

/* CUDA_MEMCPY3D as the double's copy arguments. */
static CUresult tcd_copy3d_args(const CUDA_MEMCPY3D *c, const char *call, struct tcd_copy_args *a)
{
	if (!c)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pCopy is NULL");
	if (c->reserved0 || c->reserved1)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "reserved0 and reserved1 must be NULL");
	memset(a, 0, sizeof(*a));
	a->src = (struct tcd_copy_side){c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
					c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch, c->srcHeight};
	a->dst = (struct tcd_copy_side){c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray,
					c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight};
	a->width = c->WidthInBytes;
	a->height = c->Height;
	a->depth = c->Depth;
	return CUDA_SUCCESS;
}

static CUresult tcd_copy3d_desc(const CUDA_MEMCPY3D *c, CUstream h, bool pt, bool sync, const char *call)
{
	struct tcd_copy_args a;
	CUresult r = tcd_copy3d_args(c, call, &a);

	return r != CUDA_SUCCESS ? r : tcd_copy3d(&a, h, pt, sync, call);
}

/* A graph's memcpy node: a copy of nothing is an error there (the node
 * would do nothing the driver can describe). */
CUresult tcd_copy3d_op(const CUDA_MEMCPY3D *c, const char *call, struct tcd_op **out)
{
	struct tcd_copy_args a;
	CUresult r = tcd_copy3d_args(c, call, &a);

	if (r == CUDA_SUCCESS)
		r = tcd_copy3d_make(&a, call, out);
	if (r == CUDA_SUCCESS && !*out)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the copy is empty (%zu x %zu x %zu bytes)", a.width,
			     a.height, a.depth);
	return r;
}

CUresult tcd_memset_op(uintptr_t dst, uint32_t value, unsigned elem, size_t count, const char *call,
		       struct tcd_op **out)
{
	struct tcd_op *op;
	CUresult r;

	*out = NULL;
	if (dst % elem)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dstDevice 0x%lx is not aligned to %u bytes",
				(unsigned long)dst, elem);
	if (count == 0)
		return CUDA_SUCCESS;
	if (count > SIZE_MAX / elem)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "N %zu is too large", count);
	if ((r = tcd_range_check(dst, count * elem, call, "dstDevice")) != CUDA_SUCCESS)
		return r;
	op = tcd_op_new(TCD_OP_MEMSET);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.memset.dst = (unsigned char *)dst;
	op->u.memset.value = value;
	op->u.memset.elem = elem;
	op->u.memset.count = count;
	*out = op;
	return CUDA_SUCCESS;
}

static CUresult tcd_memset(uintptr_t dst, uint32_t value, unsigned elem, size_t count, CUstream h, bool pt,
			   bool sync, const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *op;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	if ((r = tcd_memset_op(dst, value, elem, count, call, &op)) != CUDA_SUCCESS || !op)
		return r;
	return sync ? tcd_enqueue_sync(s, op, call) : tcd_enqueue(s, op, call, NULL);
}

TCD_API(CUresult, cuMemcpyHtoD)(CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyHtoD);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcHost, TCD_HOST, ByteCount, NULL, false, true, "cuMemcpyHtoD");
}
TCD_EXPORT(cuMemcpyHtoD)

TCD_API(CUresult, cuMemcpyHtoD_v2)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyHtoD_v2);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcHost, TCD_HOST, ByteCount, NULL, false, true, "cuMemcpyHtoD_v2");
}
TCD_EXPORT(cuMemcpyHtoD_v2)

TCD_API(CUresult, cuMemcpyHtoD_v2_ptds)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyHtoD_v2_ptds);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcHost, TCD_HOST, ByteCount, NULL, true, true, "cuMemcpyHtoD_v2_ptds");
}
TCD_EXPORT(cuMemcpyHtoD_v2_ptds)

TCD_API(CUresult, cuMemcpyHtoDAsync)(CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyHtoDAsync);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcHost, TCD_HOST, ByteCount, hStream, false, false, "cuMemcpyHtoDAsync");
}
TCD_EXPORT(cuMemcpyHtoDAsync)

TCD_API(CUresult, cuMemcpyHtoDAsync_v2)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyHtoDAsync_v2);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcHost, TCD_HOST, ByteCount, hStream, false, false, "cuMemcpyHtoDAsync_v2");
}
TCD_EXPORT(cuMemcpyHtoDAsync_v2)

TCD_API(CUresult, cuMemcpyHtoDAsync_v2_ptsz)(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyHtoDAsync_v2_ptsz);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcHost, TCD_HOST, ByteCount, hStream, true, false, "cuMemcpyHtoDAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpyHtoDAsync_v2_ptsz)

TCD_API(CUresult, cuMemcpyDtoH)(void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoH);
	return tcd_copy((uintptr_t)dstHost, TCD_HOST, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyDtoH");
}
TCD_EXPORT(cuMemcpyDtoH)

TCD_API(CUresult, cuMemcpyDtoH_v2)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoH_v2);
	return tcd_copy((uintptr_t)dstHost, TCD_HOST, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyDtoH_v2");
}
TCD_EXPORT(cuMemcpyDtoH_v2)

TCD_API(CUresult, cuMemcpyDtoH_v2_ptds)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoH_v2_ptds);
	return tcd_copy((uintptr_t)dstHost, TCD_HOST, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, true, true, "cuMemcpyDtoH_v2_ptds");
}
TCD_EXPORT(cuMemcpyDtoH_v2_ptds)

TCD_API(CUresult, cuMemcpyDtoHAsync)(void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyDtoHAsync);
	return tcd_copy((uintptr_t)dstHost, TCD_HOST, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, hStream, false, false, "cuMemcpyDtoHAsync");
}
TCD_EXPORT(cuMemcpyDtoHAsync)

TCD_API(CUresult, cuMemcpyDtoHAsync_v2)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyDtoHAsync_v2);
	return tcd_copy((uintptr_t)dstHost, TCD_HOST, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, hStream, false, false, "cuMemcpyDtoHAsync_v2");
}
TCD_EXPORT(cuMemcpyDtoHAsync_v2)

TCD_API(CUresult, cuMemcpyDtoHAsync_v2_ptsz)(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyDtoHAsync_v2_ptsz);
	return tcd_copy((uintptr_t)dstHost, TCD_HOST, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, hStream, true, false, "cuMemcpyDtoHAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpyDtoHAsync_v2_ptsz)

TCD_API(CUresult, cuMemcpyDtoD)(CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoD);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyDtoD");
}
TCD_EXPORT(cuMemcpyDtoD)

TCD_API(CUresult, cuMemcpyDtoD_v2)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoD_v2);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyDtoD_v2");
}
TCD_EXPORT(cuMemcpyDtoD_v2)

TCD_API(CUresult, cuMemcpyDtoD_v2_ptds)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoD_v2_ptds);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, true, true, "cuMemcpyDtoD_v2_ptds");
}
TCD_EXPORT(cuMemcpyDtoD_v2_ptds)

TCD_API(CUresult, cuMemcpyDtoDAsync)(CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice, unsigned int ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyDtoDAsync);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, hStream, false, false, "cuMemcpyDtoDAsync");
}
TCD_EXPORT(cuMemcpyDtoDAsync)

TCD_API(CUresult, cuMemcpyDtoDAsync_v2)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyDtoDAsync_v2);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, hStream, false, false, "cuMemcpyDtoDAsync_v2");
}
TCD_EXPORT(cuMemcpyDtoDAsync_v2)

TCD_API(CUresult, cuMemcpyDtoDAsync_v2_ptsz)(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyDtoDAsync_v2_ptsz);
	return tcd_copy((uintptr_t)dstDevice, TCD_DEVICE, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, hStream, true, false, "cuMemcpyDtoDAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpyDtoDAsync_v2_ptsz)

TCD_API(CUresult, cuMemcpy)(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpy);
	return tcd_copy((uintptr_t)dst, TCD_ANY, (uintptr_t)src, TCD_ANY, ByteCount, NULL, false, true, "cuMemcpy");
}
TCD_EXPORT(cuMemcpy)

TCD_API(CUresult, cuMemcpy_ptds)(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpy_ptds);
	return tcd_copy((uintptr_t)dst, TCD_ANY, (uintptr_t)src, TCD_ANY, ByteCount, NULL, true, true, "cuMemcpy_ptds");
}
TCD_EXPORT(cuMemcpy_ptds)

TCD_API(CUresult, cuMemcpyAsync)(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyAsync);
	return tcd_copy((uintptr_t)dst, TCD_ANY, (uintptr_t)src, TCD_ANY, ByteCount, hStream, false, false, "cuMemcpyAsync");
}
TCD_EXPORT(cuMemcpyAsync)

TCD_API(CUresult, cuMemcpyAsync_ptsz)(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyAsync_ptsz);
	return tcd_copy((uintptr_t)dst, TCD_ANY, (uintptr_t)src, TCD_ANY, ByteCount, hStream, true, false, "cuMemcpyAsync_ptsz");
}
TCD_EXPORT(cuMemcpyAsync_ptsz)

TCD_API(CUresult, cuMemcpy2D_v2)(const CUDA_MEMCPY2D *pCopy)
{
	TCD_ENTER_INIT(cuMemcpy2D_v2);
	return tcd_copy2d(pCopy, NULL, false, true, "cuMemcpy2D_v2");
}
TCD_EXPORT(cuMemcpy2D_v2)

TCD_API(CUresult, cuMemcpy2D_v2_ptds)(const CUDA_MEMCPY2D *pCopy)
{
	TCD_ENTER_INIT(cuMemcpy2D_v2_ptds);
	return tcd_copy2d(pCopy, NULL, true, true, "cuMemcpy2D_v2_ptds");
}
TCD_EXPORT(cuMemcpy2D_v2_ptds)

TCD_API(CUresult, cuMemcpy2DAsync_v2)(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpy2DAsync_v2);
	return tcd_copy2d(pCopy, hStream, false, false, "cuMemcpy2DAsync_v2");
}
TCD_EXPORT(cuMemcpy2DAsync_v2)

TCD_API(CUresult, cuMemcpy2DAsync_v2_ptsz)(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpy2DAsync_v2_ptsz);
	return tcd_copy2d(pCopy, hStream, true, false, "cuMemcpy2DAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpy2DAsync_v2_ptsz)

TCD_API(CUresult, cuMemsetD8)(CUdeviceptr_v1 dstDevice, unsigned char uc, unsigned int N)
{
	TCD_ENTER_INIT(cuMemsetD8);
	return tcd_memset((uintptr_t)dstDevice, uc, 1, N, NULL, false, true, "cuMemsetD8");
}
TCD_EXPORT(cuMemsetD8)

TCD_API(CUresult, cuMemsetD8_v2)(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	TCD_ENTER_INIT(cuMemsetD8_v2);
	return tcd_memset((uintptr_t)dstDevice, uc, 1, N, NULL, false, true, "cuMemsetD8_v2");
}
TCD_EXPORT(cuMemsetD8_v2)

TCD_API(CUresult, cuMemsetD8_v2_ptds)(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	TCD_ENTER_INIT(cuMemsetD8_v2_ptds);
	return tcd_memset((uintptr_t)dstDevice, uc, 1, N, NULL, true, true, "cuMemsetD8_v2_ptds");
}
TCD_EXPORT(cuMemsetD8_v2_ptds)

TCD_API(CUresult, cuMemsetD8Async)(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemsetD8Async);
	return tcd_memset((uintptr_t)dstDevice, uc, 1, N, hStream, false, false, "cuMemsetD8Async");
}
TCD_EXPORT(cuMemsetD8Async)

TCD_API(CUresult, cuMemsetD8Async_ptsz)(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemsetD8Async_ptsz);
	return tcd_memset((uintptr_t)dstDevice, uc, 1, N, hStream, true, false, "cuMemsetD8Async_ptsz");
}
TCD_EXPORT(cuMemsetD8Async_ptsz)

TCD_API(CUresult, cuMemsetD16)(CUdeviceptr_v1 dstDevice, unsigned short us, unsigned int N)
{
	TCD_ENTER_INIT(cuMemsetD16);
	return tcd_memset((uintptr_t)dstDevice, us, 2, N, NULL, false, true, "cuMemsetD16");
}
TCD_EXPORT(cuMemsetD16)

TCD_API(CUresult, cuMemsetD16_v2)(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
	TCD_ENTER_INIT(cuMemsetD16_v2);
	return tcd_memset((uintptr_t)dstDevice, us, 2, N, NULL, false, true, "cuMemsetD16_v2");
}
TCD_EXPORT(cuMemsetD16_v2)

TCD_API(CUresult, cuMemsetD16_v2_ptds)(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
	TCD_ENTER_INIT(cuMemsetD16_v2_ptds);
	return tcd_memset((uintptr_t)dstDevice, us, 2, N, NULL, true, true, "cuMemsetD16_v2_ptds");
}
TCD_EXPORT(cuMemsetD16_v2_ptds)

TCD_API(CUresult, cuMemsetD16Async)(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemsetD16Async);
	return tcd_memset((uintptr_t)dstDevice, us, 2, N, hStream, false, false, "cuMemsetD16Async");
}
TCD_EXPORT(cuMemsetD16Async)

TCD_API(CUresult, cuMemsetD16Async_ptsz)(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemsetD16Async_ptsz);
	return tcd_memset((uintptr_t)dstDevice, us, 2, N, hStream, true, false, "cuMemsetD16Async_ptsz");
}
TCD_EXPORT(cuMemsetD16Async_ptsz)

TCD_API(CUresult, cuMemsetD32)(CUdeviceptr_v1 dstDevice, unsigned int ui, unsigned int N)
{
	TCD_ENTER_INIT(cuMemsetD32);
	return tcd_memset((uintptr_t)dstDevice, ui, 4, N, NULL, false, true, "cuMemsetD32");
}
TCD_EXPORT(cuMemsetD32)

TCD_API(CUresult, cuMemsetD32_v2)(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
	TCD_ENTER_INIT(cuMemsetD32_v2);
	return tcd_memset((uintptr_t)dstDevice, ui, 4, N, NULL, false, true, "cuMemsetD32_v2");
}
TCD_EXPORT(cuMemsetD32_v2)

TCD_API(CUresult, cuMemsetD32_v2_ptds)(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
	TCD_ENTER_INIT(cuMemsetD32_v2_ptds);
	return tcd_memset((uintptr_t)dstDevice, ui, 4, N, NULL, true, true, "cuMemsetD32_v2_ptds");
}
TCD_EXPORT(cuMemsetD32_v2_ptds)

TCD_API(CUresult, cuMemsetD32Async)(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemsetD32Async);
	return tcd_memset((uintptr_t)dstDevice, ui, 4, N, hStream, false, false, "cuMemsetD32Async");
}
TCD_EXPORT(cuMemsetD32Async)

TCD_API(CUresult, cuMemsetD32Async_ptsz)(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemsetD32Async_ptsz);
	return tcd_memset((uintptr_t)dstDevice, ui, 4, N, hStream, true, false, "cuMemsetD32Async_ptsz");
}
TCD_EXPORT(cuMemsetD32Async_ptsz)

TCD_API(CUresult, cuMemcpy3D_v2)(const CUDA_MEMCPY3D *pCopy)
{
	TCD_ENTER_INIT(cuMemcpy3D_v2);
	return tcd_copy3d_desc(pCopy, NULL, false, true, "cuMemcpy3D_v2");
}
TCD_EXPORT(cuMemcpy3D_v2)

TCD_API(CUresult, cuMemcpy3D_v2_ptds)(const CUDA_MEMCPY3D *pCopy)
{
	TCD_ENTER_INIT(cuMemcpy3D_v2_ptds);
	return tcd_copy3d_desc(pCopy, NULL, true, true, "cuMemcpy3D_v2_ptds");
}
TCD_EXPORT(cuMemcpy3D_v2_ptds)

TCD_API(CUresult, cuMemcpy3DAsync_v2)(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpy3DAsync_v2);
	return tcd_copy3d_desc(pCopy, hStream, false, false, "cuMemcpy3DAsync_v2");
}
TCD_EXPORT(cuMemcpy3DAsync_v2)

TCD_API(CUresult, cuMemcpy3DAsync_v2_ptsz)(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpy3DAsync_v2_ptsz);
	return tcd_copy3d_desc(pCopy, hStream, true, false, "cuMemcpy3DAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpy3DAsync_v2_ptsz)

/* ---- copies by byte offset into an array (its packed layout, tcd_array.c) ---- */

/* dst or src is an array span when darr or sarr is set. */
static CUresult tcd_copy_array(CUarray darr, size_t doff, uintptr_t dptr, enum tcd_side dside, CUarray sarr,
			       size_t soff, uintptr_t sptr, enum tcd_side sside, size_t n, CUstream h, bool pt, bool sync,
			       const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *op;
	unsigned char *at;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	if (n == 0)
		return CUDA_SUCCESS;
	if (darr) {
		if ((r = tcd_array_span(darr, doff, n, call, "destination", &at)) != CUDA_SUCCESS)
			return r;
		dptr = (uintptr_t)at;
	} else if ((r = tcd_side_check(dptr, n, dside, call, "destination")) != CUDA_SUCCESS) {
		return r;
	}
	if (sarr) {
		if ((r = tcd_array_span(sarr, soff, n, call, "source", &at)) != CUDA_SUCCESS)
			return r;
		sptr = (uintptr_t)at;
	} else if ((r = tcd_side_check(sptr, n, sside, call, "source")) != CUDA_SUCCESS) {
		return r;
	}
	op = tcd_op_new(TCD_OP_COPY);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.copy.dst = (unsigned char *)dptr;
	op->u.copy.src = (const unsigned char *)sptr;
	op->u.copy.width = n;
	op->u.copy.height = 1;
	op->u.copy.dpitch = op->u.copy.spitch = n;
	r = sync ? tcd_enqueue_sync(s, op, call) : tcd_enqueue(s, op, call, NULL);
	if (r == CUDA_SUCCESS)
		tcd_copy_count(dptr, darr ? TCD_DEVICE : dside, sptr, sarr ? TCD_DEVICE : sside, n);
	return r;
}

TCD_API(CUresult, cuMemcpyHtoA_v2)(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyHtoA_v2);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, NULL, 0, (uintptr_t)srcHost, TCD_HOST, ByteCount, NULL, false, true, "cuMemcpyHtoA_v2");
}
TCD_EXPORT(cuMemcpyHtoA_v2)

TCD_API(CUresult, cuMemcpyHtoA_v2_ptds)(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyHtoA_v2_ptds);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, NULL, 0, (uintptr_t)srcHost, TCD_HOST, ByteCount, NULL, true, true, "cuMemcpyHtoA_v2_ptds");
}
TCD_EXPORT(cuMemcpyHtoA_v2_ptds)

TCD_API(CUresult, cuMemcpyAtoH_v2)(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyAtoH_v2);
	return tcd_copy_array(NULL, 0, (uintptr_t)dstHost, TCD_HOST, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyAtoH_v2");
}
TCD_EXPORT(cuMemcpyAtoH_v2)

TCD_API(CUresult, cuMemcpyAtoH_v2_ptds)(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyAtoH_v2_ptds);
	return tcd_copy_array(NULL, 0, (uintptr_t)dstHost, TCD_HOST, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, NULL, true, true, "cuMemcpyAtoH_v2_ptds");
}
TCD_EXPORT(cuMemcpyAtoH_v2_ptds)

TCD_API(CUresult, cuMemcpyAtoD_v2)(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyAtoD_v2);
	return tcd_copy_array(NULL, 0, (uintptr_t)dstDevice, TCD_DEVICE, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyAtoD_v2");
}
TCD_EXPORT(cuMemcpyAtoD_v2)

TCD_API(CUresult, cuMemcpyAtoD_v2_ptds)(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyAtoD_v2_ptds);
	return tcd_copy_array(NULL, 0, (uintptr_t)dstDevice, TCD_DEVICE, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, NULL, true, true, "cuMemcpyAtoD_v2_ptds");
}
TCD_EXPORT(cuMemcpyAtoD_v2_ptds)

TCD_API(CUresult, cuMemcpyDtoA_v2)(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoA_v2);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, NULL, 0, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyDtoA_v2");
}
TCD_EXPORT(cuMemcpyDtoA_v2)

TCD_API(CUresult, cuMemcpyDtoA_v2_ptds)(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyDtoA_v2_ptds);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, NULL, 0, (uintptr_t)srcDevice, TCD_DEVICE, ByteCount, NULL, true, true, "cuMemcpyDtoA_v2_ptds");
}
TCD_EXPORT(cuMemcpyDtoA_v2_ptds)

TCD_API(CUresult, cuMemcpyAtoA_v2)(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyAtoA_v2);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, NULL, false, true, "cuMemcpyAtoA_v2");
}
TCD_EXPORT(cuMemcpyAtoA_v2)

TCD_API(CUresult, cuMemcpyAtoA_v2_ptds)(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
	TCD_ENTER_INIT(cuMemcpyAtoA_v2_ptds);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, NULL, true, true, "cuMemcpyAtoA_v2_ptds");
}
TCD_EXPORT(cuMemcpyAtoA_v2_ptds)

TCD_API(CUresult, cuMemcpyHtoAAsync_v2)(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyHtoAAsync_v2);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, NULL, 0, (uintptr_t)srcHost, TCD_HOST, ByteCount, hStream, false, false, "cuMemcpyHtoAAsync_v2");
}
TCD_EXPORT(cuMemcpyHtoAAsync_v2)

TCD_API(CUresult, cuMemcpyHtoAAsync_v2_ptsz)(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyHtoAAsync_v2_ptsz);
	return tcd_copy_array(dstArray, dstOffset, 0, TCD_DEVICE, NULL, 0, (uintptr_t)srcHost, TCD_HOST, ByteCount, hStream, true, false, "cuMemcpyHtoAAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpyHtoAAsync_v2_ptsz)

TCD_API(CUresult, cuMemcpyAtoHAsync_v2)(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyAtoHAsync_v2);
	return tcd_copy_array(NULL, 0, (uintptr_t)dstHost, TCD_HOST, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, hStream, false, false, "cuMemcpyAtoHAsync_v2");
}
TCD_EXPORT(cuMemcpyAtoHAsync_v2)

TCD_API(CUresult, cuMemcpyAtoHAsync_v2_ptsz)(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemcpyAtoHAsync_v2_ptsz);
	return tcd_copy_array(NULL, 0, (uintptr_t)dstHost, TCD_HOST, srcArray, srcOffset, 0, TCD_DEVICE, ByteCount, hStream, true, false, "cuMemcpyAtoHAsync_v2_ptsz");
}
TCD_EXPORT(cuMemcpyAtoHAsync_v2_ptsz)
