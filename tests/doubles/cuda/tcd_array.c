/*
 * tcd_array.c - CUDA arrays.  A GPU keeps an array in an opaque (tiled)
 * layout reached only through copies and texture or surface objects; the
 * double keeps it in host memory in one defined layout, which kernels of
 * its modules read through tcd_kernel_launch.array_of:
 *
 *   element  NumChannels x the format's size (1, 2 or 4 bytes);
 *   row      Width elements, packed (row_bytes = Width x element);
 *   slice    max(Height, 1) rows, packed;
 *   array    max(Depth, 1) slices (layers, or cube faces), packed.
 *
 * Descriptors are checked as the driver documents (cuArray3DCreate):
 * a known format, 1, 2 or 4 channels, Width from 1; (W, 0, 0) is 1D,
 * (W, H, 0) 2D, (W, H, D) 3D, (W, 0, L) and (W, H, L) layered with
 * CUDA_ARRAY3D_LAYERED, a cubemap square with Depth 6; flags from
 * LAYERED, SURFACE_LDST, CUBEMAP and TEXTURE_GATHER only; sizes within
 * the compute capability 9.0 limits of the CUDA programming guide
 * (1D 131072, 2D 131072 x 65536, 3D 16384^3, layered 32768 x 32768 x
 * 2048 layers, cubemap 32768).  Anything else is CUDA_ERROR_INVALID_VALUE.
 * cuArrayDestroy waits for all work in flight first (a copy or kernel may
 * still use the array), and a destroyed handle is reported, not followed.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/doubles/cuda/tcd.h"

#define TCD_ARRAY_FLAGS (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP | \
			 CUDA_ARRAY3D_TEXTURE_GATHER)

static unsigned tcd_format_bytes(CUarray_format f)
{
	switch (f) {
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

static CUresult tcd_array_check(const CUDA_ARRAY3D_DESCRIPTOR *d, const char *call)
{
	size_t w = d->Width, h = d->Height, n = d->Depth;
	unsigned fl = d->Flags;

	if (!tcd_format_bytes(d->Format))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "Format 0x%x is not a format the double knows",
				(unsigned)d->Format);
	if (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "NumChannels %u is not 1, 2 or 4", d->NumChannels);
	if (fl & ~(unsigned)TCD_ARRAY_FLAGS)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "Flags 0x%x has unknown bits", fl);
	if (!w)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "Width is 0");
	if (fl & CUDA_ARRAY3D_CUBEMAP) {
		if (w != h || (!(fl & CUDA_ARRAY3D_LAYERED) && n != 6) || ((fl & CUDA_ARRAY3D_LAYERED) && (!n || n % 6)))
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a cubemap must be square with Depth 6 "
					"(or a multiple of 6, layered): %zu x %zu x %zu", w, h, n);
		if (w > 32768)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "cubemap width %zu is above 32768", w);
		return CUDA_SUCCESS;
	}
	if (fl & CUDA_ARRAY3D_LAYERED) {
		if (!n || n > 2048 || w > 32768 || h > 32768)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "layered %zu x %zu with %zu layers is outside "
					"32768 x 32768 x 2048 (from 1 layer)", w, h, n);
		return CUDA_SUCCESS;
	}
	if (!h && n)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "Height 0 with Depth %zu is only for layered arrays", n);
	if (n ? (w > 16384 || h > 16384 || n > 16384) : h ? (w > 131072 || h > 65536) : w > 131072)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%zu x %zu x %zu is above the %s limit", w, h, n,
				n ? "3D (16384^3)" : h ? "2D (131072 x 65536)" : "1D (131072)");
	return CUDA_SUCCESS;
}

static CUresult tcd_array_new(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, const char *call)
{
	struct tcd_ctx *ctx;
	struct tcd_array *a;
	size_t elem, row, slice, bytes;
	CUresult r;

	if ((r = tcd_ctx_require(call, &ctx)) != CUDA_SUCCESS)
		return r;
	if (!out || !d)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pHandle or the descriptor is NULL");
	if ((r = tcd_array_check(d, call)) != CUDA_SUCCESS)
		return r;
	elem = (size_t)tcd_format_bytes(d->Format) * d->NumChannels;
	row = d->Width * elem;
	slice = row * (d->Height ? d->Height : 1);
	bytes = slice * (d->Depth ? d->Depth : 1);
	a = tcd_obj_new(sizeof(*a), TCD_KIND_ARRAY);
	if (!a)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	a->data = calloc(1, bytes);
	if (!a->data) {
		tcd_obj_kill(a);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "no host memory for %zu bytes", bytes);
	}
	a->desc = *d;
	a->elem = (unsigned)elem;
	a->row_bytes = row;
	a->height = d->Height ? d->Height : 1;
	a->depth = d->Depth ? d->Depth : 1;
	a->slice_bytes = slice;
	*out = (CUarray)a;
	return CUDA_SUCCESS;
}

CUresult tcd_array_get(CUarray h, const char *call, const char *what, struct tcd_array **out)
{
	return tcd_obj_get(h, TCD_KIND_ARRAY, call, what, out);
}

CUresult tcd_array_region(CUarray h, size_t x, size_t y, size_t z, size_t width, size_t height, size_t depth,
			  const char *call, const char *what, unsigned char **at, size_t *pitch, size_t *slice)
{
	struct tcd_array *a;
	size_t xe, ye, ze;
	CUresult r = tcd_array_get(h, call, what, &a);

	if (r != CUDA_SUCCESS)
		return r;
	if (__builtin_add_overflow(x, width, &xe) || __builtin_add_overflow(y, height, &ye) ||
	    __builtin_add_overflow(z, depth, &ze) || xe > a->row_bytes || ye > a->height || ze > a->depth)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the %s region (x %zu bytes, y %zu, z %zu; %zu bytes x "
				"%zu x %zu) runs past the array (rows of %zu bytes, height %zu, depth %zu)", what, x, y,
				z, width, height, depth, a->row_bytes, a->height, a->depth);
	*at = a->data + z * a->slice_bytes + y * a->row_bytes + x;
	*pitch = a->row_bytes;
	*slice = a->slice_bytes;
	return CUDA_SUCCESS;
}

CUresult tcd_array_span(CUarray h, size_t offset, size_t n, const char *call, const char *what, unsigned char **at)
{
	struct tcd_array *a;
	size_t end;
	CUresult r = tcd_array_get(h, call, what, &a);

	if (r != CUDA_SUCCESS)
		return r;
	if (__builtin_add_overflow(offset, n, &end) || end > a->slice_bytes * a->depth)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the %s span (offset %zu, %zu bytes) runs past the "
				"array (%zu bytes)", what, offset, n, a->slice_bytes * a->depth);
	*at = a->data + offset;
	return CUDA_SUCCESS;
}

bool tcd_array_view(CUarray h, struct tcd_array_view *v)
{
	struct tcd_array *a;
	bool ok = false;

	pthread_mutex_lock(&tcd_g.lock);
	if (tcd_obj_is_locked(h, TCD_KIND_ARRAY)) {
		a = (struct tcd_array *)h;
		v->base = a->data;
		v->elem_bytes = a->elem;
		v->width = a->desc.Width;
		v->height = a->height;
		v->depth = a->depth;
		v->row_bytes = a->row_bytes;
		v->slice_bytes = a->slice_bytes;
		ok = true;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return ok;
}

TCD_API(CUresult, cuArrayCreate_v2)(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *d)
{
	CUDA_ARRAY3D_DESCRIPTOR d3;

	TCD_ENTER_INIT(cuArrayCreate_v2);
	memset(&d3, 0, sizeof(d3));
	if (d) {
		d3.Width = d->Width;
		d3.Height = d->Height;
		d3.Format = d->Format;
		d3.NumChannels = d->NumChannels;
	}
	return tcd_array_new(pHandle, d ? &d3 : NULL, "cuArrayCreate_v2");
}
TCD_EXPORT(cuArrayCreate_v2)

TCD_API(CUresult, cuArray3DCreate_v2)(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	TCD_ENTER_INIT(cuArray3DCreate_v2);
	return tcd_array_new(pHandle, d, "cuArray3DCreate_v2");
}
TCD_EXPORT(cuArray3DCreate_v2)

TCD_API(CUresult, cuArrayGetDescriptor_v2)(CUDA_ARRAY_DESCRIPTOR *out, CUarray h)
{
	struct tcd_array *a;
	CUresult r;

	TCD_ENTER_INIT(cuArrayGetDescriptor_v2);
	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuArrayGetDescriptor_v2", "pArrayDescriptor is NULL");
	if ((r = tcd_array_get(h, "cuArrayGetDescriptor_v2", "hArray", &a)) != CUDA_SUCCESS)
		return r;
	memset(out, 0, sizeof(*out));
	out->Width = a->desc.Width;
	out->Height = a->desc.Height;
	out->Format = a->desc.Format;
	out->NumChannels = a->desc.NumChannels;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuArrayGetDescriptor_v2)

TCD_API(CUresult, cuArray3DGetDescriptor_v2)(CUDA_ARRAY3D_DESCRIPTOR *out, CUarray h)
{
	struct tcd_array *a;
	CUresult r;

	TCD_ENTER_INIT(cuArray3DGetDescriptor_v2);
	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuArray3DGetDescriptor_v2", "pArrayDescriptor is NULL");
	if ((r = tcd_array_get(h, "cuArray3DGetDescriptor_v2", "hArray", &a)) != CUDA_SUCCESS)
		return r;
	*out = a->desc;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuArray3DGetDescriptor_v2)

TCD_API(CUresult, cuArrayDestroy)(CUarray h)
{
	const char *call = "cuArrayDestroy";
	struct tcd_array *a;
	CUresult r;

	TCD_ENTER_INIT(cuArrayDestroy);
	if ((r = tcd_array_get(h, call, "hArray", &a)) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_sync_all(call)) != CUDA_SUCCESS)
		return r;
	free(a->data);
	a->data = NULL;
	tcd_obj_kill(a);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuArrayDestroy)
