/*
 * tcu_model.c - recording of contexts, devices, modules and libraries,
 * launches, streams and events (memory calls are in tcu_mem.c).  Each
 * tcu_m_<call> calls the driver first and records what happened,
 * outputs and result included; sbt_compute.h says what each record holds.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

#define TCU_H(x) ((uint64_t)(uintptr_t)(x))

static void tcu_str(sbt_cm_call *c, const char *s)
{
	if (s) {
		c->name = (const uint8_t *)s;
		c->name_len = strlen(s);
	}
}

/* ---- context and device ---------------------------------------------------- */

CUresult tcu_m_cuInit(tcu_fn id, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuInit real = (tcu_pfn_cuInit)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(flags);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.flags = flags;
		tcu_emit(SBT_CM_K_cuInit, id, &c, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuDeviceGet(tcu_fn id, CUdevice *dev, int ordinal)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuDeviceGet real = (tcu_pfn_cuDeviceGet)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dev, ordinal);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.value = (uint64_t)ordinal;
		c.device = r == CUDA_SUCCESS && dev ? *dev : 0;
		tcu_emit(SBT_CM_K_cuDeviceGet, id, &c, 0);
	}
out:
	tcu_call_end();
	return r;
}

/*
 * Contexts the trace has seen made.  The runtime retains its primary
 * context through a private table (../shared/gpu-fixtures fact 6), so the
 * first call we see naming it is cuCtxSetCurrent; such a context is
 * recorded as the primary context of its device (cuDevicePrimaryCtxRetain,
 * sub = 1) just before the record that names it.
 */
static int tcu_ctx_seen(uint64_t ctx, int add)
{
	int seen;
	pthread_mutex_lock(&tcu_g.mu);
	seen = cap_umap_get(&tcu_g.ctxs, ctx) != NULL;
	if (!seen && add)
		cap_umap_put(&tcu_g.ctxs, ctx, (void *)(uintptr_t)1);
	pthread_mutex_unlock(&tcu_g.mu);
	return seen;
}

/* The record that retains ctx as its device's primary context (sub = 1).
 * current = 1 when ctx is the calling thread's current context. */
static void tcu_ctx_inferred_call(CUcontext ctx, int current, sbt_cm_call *c)
{
	CUdevice dev = 0;
	if (tcu_g.real[TCU_FN_cuCtxGetDevice_v2]) {
		tcu_pfn_cuCtxGetDevice_v2 f = (tcu_pfn_cuCtxGetDevice_v2)tcu_own(TCU_FN_cuCtxGetDevice_v2);
		if (f(&dev, ctx) != CUDA_SUCCESS)
			dev = 0;
	} else if (current && tcu_g.real[TCU_FN_cuCtxGetDevice]) {
		tcu_pfn_cuCtxGetDevice f = (tcu_pfn_cuCtxGetDevice)tcu_own(TCU_FN_cuCtxGetDevice);
		if (f(&dev) != CUDA_SUCCESS)
			dev = 0;
	}
	sbt_cm_call_init(c);
	c->ctx = TCU_H(ctx);
	c->device = dev;
	c->sub = 1;
}

/* Record ctx as its device's primary context if the trace never saw it
 * made, and keep it for capture windows if no kept record made it. */
static void tcu_ctx_infer(tcu_fn id, CUcontext ctx, int current, tcu_mode mode)
{
	sbt_cm_call c;
	int record = mode == TCU_MODE_RECORD && ctx && !tcu_ctx_seen(TCU_H(ctx), 1);
	int keep = mode != TCU_MODE_NESTED && ctx && tcu_tracking() &&
	           !tcu_live_has(TCU_LIVE_CTX, TCU_H(ctx));
	if (!record && !keep)
		return;
	tcu_ctx_inferred_call(ctx, current, &c);
	if (record)
		tcu_emit(SBT_CM_K_cuDevicePrimaryCtxRetain, id, &c, 0);
	if (keep)
		tcu_live_add(TCU_LIVE_CTX, c.ctx, 0, SBT_CM_K_cuDevicePrimaryCtxRetain, id, &c, NULL, 0,
		             NULL, NULL, 0);
}

void tcu_ctx_note_inferred(uint64_t ctx)
{
	sbt_cm_call c;
	tcu_ctx_seen(ctx, 1);
	tcu_ctx_inferred_call((CUcontext)(uintptr_t)ctx, 1, &c);
	tcu_live_add(TCU_LIVE_CTX, ctx, 0, SBT_CM_K_cuDevicePrimaryCtxRetain,
	             TCU_FN_cuDevicePrimaryCtxRetain, &c, NULL, 0, NULL, NULL, 0);
}

static void tcu_ctx_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUcontext ctx, unsigned flags,
                           CUdevice dev)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.ctx = TCU_H(ctx);
	c.flags = flags;
	c.device = dev;
	tcu_emit(k, id, &c, 0);
}

/* A context made or retained: kept for capture windows. */
static void tcu_ctx_keep(sbt_cm_kind k, tcu_fn id, CUcontext ctx, unsigned flags, CUdevice dev)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.ctx = TCU_H(ctx);
	c.flags = flags;
	c.device = dev;
	tcu_live_add(TCU_LIVE_CTX, c.ctx, 0, k, id, &c, NULL, 0, NULL, NULL, 0);
}

CUresult tcu_m_cuCtxCreate_v2(tcu_fn id, CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxCreate_v2 real = (tcu_pfn_cuCtxCreate_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pctx, flags, dev);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && pctx) {
		tcu_ctx_seen(TCU_H(*pctx), 1);
		tcu_ctx_keep(SBT_CM_K_cuCtxCreate, id, *pctx, flags, dev);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuCtxCreate, id, r, r == CUDA_SUCCESS && pctx ? *pctx : NULL,
		               flags, dev);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxCreate_v4(tcu_fn id, CUcontext *pctx, CUctxCreateParams *params,
                              unsigned int flags, CUdevice dev)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxCreate_v4 real = (tcu_pfn_cuCtxCreate_v4)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pctx, params, flags, dev);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && pctx) {
		tcu_ctx_seen(TCU_H(*pctx), 1);
		/* Kept as the _v2 call: the parameters' affinity and CIG settings
		 * are not in the record model. */
		tcu_ctx_keep(SBT_CM_K_cuCtxCreate, TCU_FN_cuCtxCreate_v2, *pctx, flags, dev);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuCtxCreate, id, r, r == CUDA_SUCCESS && pctx ? *pctx : NULL,
		               flags, dev);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxDestroy_v2(tcu_fn id, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxDestroy_v2 real = (tcu_pfn_cuCtxDestroy_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(ctx);
	if (r == CUDA_SUCCESS) { /* the handle may come back for another context */
		pthread_mutex_lock(&tcu_g.mu);
		cap_umap_del(&tcu_g.ctxs, TCU_H(ctx));
		pthread_mutex_unlock(&tcu_g.mu);
		if (mode != TCU_MODE_NESTED)
			tcu_live_drop(TCU_LIVE_CTX, TCU_H(ctx));
	}
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuCtxDestroy, id, r, ctx, 0, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxSetCurrent(tcu_fn id, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxSetCurrent real = (tcu_pfn_cuCtxSetCurrent)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(ctx);
	if (r == CUDA_SUCCESS)
		tcu_ctx_infer(id, ctx, 1, mode);
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuCtxSetCurrent, id, r, ctx, 0, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxPushCurrent_v2(tcu_fn id, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxPushCurrent_v2 real = (tcu_pfn_cuCtxPushCurrent_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(ctx);
	if (r == CUDA_SUCCESS)
		tcu_ctx_infer(id, ctx, 1, mode);
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuCtxPushCurrent, id, r, ctx, 0, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxPopCurrent_v2(tcu_fn id, CUcontext *pctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxPopCurrent_v2 real = (tcu_pfn_cuCtxPopCurrent_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pctx);
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuCtxPopCurrent, id, r,
		               r == CUDA_SUCCESS && pctx ? *pctx : NULL, 0, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxGetCurrent(tcu_fn id, CUcontext *pctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxGetCurrent real = (tcu_pfn_cuCtxGetCurrent)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pctx);
	if (r == CUDA_SUCCESS && pctx)
		tcu_ctx_infer(id, *pctx, 1, mode);
out:
	tcu_call_end();
	return r;
}

/* CUDA 13: synchronizes ctx (NULL: the current context). */
CUresult tcu_m_cuCtxSynchronize_v2(tcu_fn id, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxSynchronize_v2 real = (tcu_pfn_cuCtxSynchronize_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(ctx);
	tcu_ctx_infer(id, ctx, 0, mode);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.ctx = TCU_H(ctx);
		tcu_emit(SBT_CM_K_cuCtxSynchronize, id, &c, 0);
		if (r == CUDA_SUCCESS)
			tcu_pending_flush_all();
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuCtxSynchronize(tcu_fn id)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuCtxSynchronize real = (tcu_pfn_cuCtxSynchronize)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real();
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		tcu_emit(SBT_CM_K_cuCtxSynchronize, id, &c, 0);
		if (r == CUDA_SUCCESS)
			tcu_pending_flush_all();
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuDevicePrimaryCtxRetain(tcu_fn id, CUcontext *pctx, CUdevice dev)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuDevicePrimaryCtxRetain real =
	    (tcu_pfn_cuDevicePrimaryCtxRetain)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pctx, dev);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && pctx) {
		tcu_ctx_seen(TCU_H(*pctx), 1);
		tcu_ctx_keep(SBT_CM_K_cuDevicePrimaryCtxRetain, id, *pctx, 0, dev);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(SBT_CM_K_cuDevicePrimaryCtxRetain, id, r,
		               r == CUDA_SUCCESS && pctx ? *pctx : NULL, 0, dev);
out:
	tcu_call_end();
	return r;
}

/* The legacy exports (the CUDA 13 runtime still calls
 * cuDevicePrimaryCtxRelease without _v2: the H100's exit reports) take the
 * same argument and are recorded the same way. */
static CUresult tcu_primary_ctx_end(sbt_cm_kind k, tcu_fn id, CUdevice dev)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuDevicePrimaryCtxRelease_v2 real =
	    (tcu_pfn_cuDevicePrimaryCtxRelease_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dev);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_primary_release(dev, k == SBT_CM_K_cuDevicePrimaryCtxReset);
	if (mode == TCU_MODE_RECORD)
		tcu_ctx_record(k, id, r, NULL, 0, dev);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuDevicePrimaryCtxRelease_v2(tcu_fn id, CUdevice dev)
{
	return tcu_primary_ctx_end(SBT_CM_K_cuDevicePrimaryCtxRelease, id, dev);
}

CUresult tcu_m_cuDevicePrimaryCtxRelease(tcu_fn id, CUdevice dev)
{
	return tcu_primary_ctx_end(SBT_CM_K_cuDevicePrimaryCtxRelease, id, dev);
}

CUresult tcu_m_cuDevicePrimaryCtxReset_v2(tcu_fn id, CUdevice dev)
{
	return tcu_primary_ctx_end(SBT_CM_K_cuDevicePrimaryCtxReset, id, dev);
}

CUresult tcu_m_cuDevicePrimaryCtxReset(tcu_fn id, CUdevice dev)
{
	return tcu_primary_ctx_end(SBT_CM_K_cuDevicePrimaryCtxReset, id, dev);
}

/* ---- modules and libraries ---------------------------------------------------- */

/* Reads a whole file (for cuModuleLoad / cuLibraryLoadFromFile). */
static void *tcu_read_file(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	void *data = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto out_close;
	data = malloc(n ? (size_t)n : 1);
	if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	*len_out = (size_t)n;
out_close:
	fclose(f);
	return data;
}

/*
 * JIT options as the packed jit field (sbt_compute.h); NULL when there are
 * none.  Owned by the caller.  A pointer-valued option (a log buffer) is
 * kept as its address: only informative.
 */
static uint8_t *tcu_jit_pack(unsigned n, const CUjit_option *opts, void *const *vals,
                             size_t *len_out)
{
	uint8_t *p;
	*len_out = 0;
	if (!n || !opts || n > 4096)
		return NULL;
	p = calloc(n, SBT_CM_JIT_BYTES);
	if (!p)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = vals ? (uint64_t)(uintptr_t)vals[i] : 0;
		uint32_t o = (uint32_t)opts[i];
		memcpy(p + (size_t)i * SBT_CM_JIT_BYTES, &o, 4);
		memcpy(p + (size_t)i * SBT_CM_JIT_BYTES + 8, &v, 8);
	}
	*len_out = (size_t)n * SBT_CM_JIT_BYTES;
	return p;
}

#define TCU_MAX_PRELINKED 4096 /* a list longer than this is taken as garbage */

/* A resolved module image: what the driver reads, and the prelinked
 * fatbins of a version 2 fatbin wrapper (borrowed from the program). */
typedef struct tcu_image {
	const void *data;
	size_t len;   /* 0: not recognised */
	unsigned kind;
	const void *const *prelinked;
	size_t *prelinked_len; /* owned */
	size_t nprelinked;
	uint64_t wrapper_version; /* 0: not wrapped */
} tcu_image;

/*
 * The image a load was handed, as the driver will read it: a fatbin
 * wrapper (cudart's way, ../shared/gpu-fixtures fact 5) is followed to its
 * fatbin (its version goes to the record's value), and a version 2
 * wrapper's prelinked fatbins are listed too.  *why says why it cannot be
 * kept (len 0).
 */
static void tcu_image_resolve(const void *image, tcu_image *out, const char **why)
{
	const void *const *list;
	const void *fatbin;
	unsigned version = 0, k;
	size_t n;
	memset(out, 0, sizeof(*out));
	*why = NULL;
	out->len = sbt_cm_image_size(image, SIZE_MAX, &out->kind);
	out->data = image;
	if (out->kind != SBT_CM_IMAGE_WRAPPER) {
		if (!out->len)
			*why = "the image is not a fatbin wrapper, fatbin, ELF or PTX, so its size is "
			       "unknown";
		return;
	}
	fatbin = sbt_cm_wrapper_fatbin(image, &version);
	out->wrapper_version = version;
	out->len = fatbin ? sbt_cm_image_size(fatbin, SIZE_MAX, &out->kind) : 0;
	out->data = fatbin;
	if (!out->len || out->kind == SBT_CM_IMAGE_WRAPPER) {
		out->len = 0;
		*why = "the fatbin wrapper does not point to a fatbin, ELF or PTX image";
		return;
	}
	if (version == 1)
		return;
	list = version == 2 ? sbt_cm_wrapper_prelinked(image) : NULL;
	if (!list) {
		out->len = 0;
		*why = "the fatbin wrapper's version is neither 1 nor 2";
		return;
	}
	for (n = 0; n < TCU_MAX_PRELINKED && list[n]; n++)
		;
	out->prelinked_len = n ? calloc(n, sizeof(size_t)) : NULL;
	if (n == TCU_MAX_PRELINKED || (n && !out->prelinked_len)) {
		out->len = 0;
		*why = "the fatbin wrapper's prelinked list has no end or cannot be stored";
		return;
	}
	for (size_t i = 0; i < n; i++) {
		out->prelinked_len[i] = sbt_cm_image_size(list[i], SIZE_MAX, &k);
		if (!out->prelinked_len[i] || k == SBT_CM_IMAGE_WRAPPER) {
			out->len = 0;
			*why = "a prelinked fatbin of the wrapper is not a recognised image";
			return;
		}
	}
	out->prelinked = list;
	out->nprelinked = n;
}

/* The prelinked fatbins into the blob store: their ids packed as the
 * record's prelinked field (owned by the caller), NULL when one could not
 * be stored. */
static uint8_t *tcu_image_blob_prelinked(const tcu_image *im)
{
	uint8_t *ids = im->nprelinked ? calloc(im->nprelinked, 8) : NULL;
	for (size_t i = 0; ids && i < im->nprelinked; i++) {
		uint64_t id = cap_blob(im->prelinked[i], im->prelinked_len[i]);
		if (!id) {
			free(ids);
			return NULL;
		}
		memcpy(ids + i * 8, &id, 8);
	}
	return ids;
}

/*
 * A module or library load: recorded (mode RECORD) with the image bytes in
 * the blob store, sized from the image's own header (or the file's
 * length), and kept for capture windows with a copy of the image.  A load
 * that worked but whose image could not be kept is counted for the exit
 * report, and its record says why.
 */
static void tcu_load_note(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, uint64_t handle,
                          const void *image, const char *path, unsigned njit,
                          const CUjit_option *jo, void *const *jv)
{
	sbt_cm_call c;
	tcu_image im;
	void *file = NULL;
	uint8_t *jit, *prelinked = NULL;
	size_t jit_len, file_len = 0;
	const char *why = NULL;
	int keep = mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && tcu_tracking();

	if (mode != TCU_MODE_RECORD && !keep)
		return;
	memset(&im, 0, sizeof(im));
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = handle;
	jit = tcu_jit_pack(njit, jo, jv, &jit_len);
	c.jit = jit;
	c.jit_len = jit_len;
	if (path) {
		tcu_str(&c, path);
		file = tcu_read_file(path, &file_len);
		if (!file)
			why = "the file cannot be read";
		else
			sbt_cm_image_size(file, file_len, &im.kind);
		im.data = file;
		im.len = file ? file_len : 0;
	} else if (image) {
		tcu_image_resolve(image, &im, &why);
		c.value = im.wrapper_version;
	} else {
		why = "no image was passed";
	}
	if (im.data && im.len) {
		c.size = im.len;
		c.sub = im.kind;
	}
	if (keep)
		tcu_live_add(TCU_LIVE_MODULE, handle, TCU_LIVE_IN_CTX, k, id, &c,
		             im.len ? im.data : NULL, im.len, im.prelinked, im.prelinked_len,
		             im.len ? im.nprelinked : 0);
	if (mode != TCU_MODE_RECORD)
		goto out_free;
	if (im.data && im.len) {
		prelinked = tcu_image_blob_prelinked(&im);
		if (im.nprelinked && !prelinked)
			why = "a prelinked fatbin of the wrapper could not be stored";
		else
			c.blob = cap_blob(im.data, im.len);
		c.prelinked = prelinked;
		c.prelinked_len = prelinked ? im.nprelinked * 8 : 0;
	}
	if (!c.blob && r == CUDA_SUCCESS) {
		if (!why)
			why = "the image could not be stored";
		c.note = (const uint8_t *)why;
		c.note_len = strlen(why);
		atomic_fetch_add(&tcu_g.images_missing, 1);
		CAP_WARN("cuda: %s: %s: the module is recorded without its image (replay cannot "
		         "load it)",
		         sbt_cm_kind_name(k), why);
	}
	tcu_emit(k, id, &c, 0);
out_free:
	free(im.prelinked_len);
	free(prelinked);
	free(jit);
	free(file);
}

CUresult tcu_m_cuModuleLoad(tcu_fn id, CUmodule *mod, const char *fname)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleLoad real = (tcu_pfn_cuModuleLoad)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(mod, fname);
	tcu_load_note(SBT_CM_K_cuModuleLoad, id, mode, r,
		                r == CUDA_SUCCESS && mod ? TCU_H(*mod) : 0, NULL, fname, 0, NULL,
		                NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuModuleLoadData(tcu_fn id, CUmodule *mod, const void *image)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleLoadData real = (tcu_pfn_cuModuleLoadData)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(mod, image);
	tcu_load_note(SBT_CM_K_cuModuleLoadData, id, mode, r,
		                r == CUDA_SUCCESS && mod ? TCU_H(*mod) : 0, image, NULL, 0, NULL, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuModuleLoadDataEx(tcu_fn id, CUmodule *mod, const void *image, unsigned int n,
                                  CUjit_option *opts, void **vals)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleLoadDataEx real = (tcu_pfn_cuModuleLoadDataEx)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(mod, image, n, opts, vals);
	tcu_load_note(SBT_CM_K_cuModuleLoadDataEx, id, mode, r,
		                r == CUDA_SUCCESS && mod ? TCU_H(*mod) : 0, image, NULL, n, opts, vals);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuModuleLoadFatBinary(tcu_fn id, CUmodule *mod, const void *fatbin)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleLoadFatBinary real =
	    (tcu_pfn_cuModuleLoadFatBinary)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(mod, fatbin);
	tcu_load_note(SBT_CM_K_cuModuleLoadFatBinary, id, mode, r,
		                r == CUDA_SUCCESS && mod ? TCU_H(*mod) : 0, fatbin, NULL, 0, NULL, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLibraryLoadData(tcu_fn id, CUlibrary *lib, const void *code, CUjit_option *jo,
                                 void **jv, unsigned int njit, CUlibraryOption *lo, void **lv,
                                 unsigned int nlib)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLibraryLoadData real = (tcu_pfn_cuLibraryLoadData)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(lib, code, jo, jv, njit, lo, lv, nlib);
	tcu_load_note(SBT_CM_K_cuLibraryLoadData, id, mode, r,
		                r == CUDA_SUCCESS && lib ? TCU_H(*lib) : 0, code, NULL, njit, jo, jv);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLibraryLoadFromFile(tcu_fn id, CUlibrary *lib, const char *path, CUjit_option *jo,
                                     void **jv, unsigned int njit, CUlibraryOption *lo, void **lv,
                                     unsigned int nlib)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLibraryLoadFromFile real =
	    (tcu_pfn_cuLibraryLoadFromFile)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(lib, path, jo, jv, njit, lo, lv, nlib);
	tcu_load_note(SBT_CM_K_cuLibraryLoadFromFile, id, mode, r,
		                r == CUDA_SUCCESS && lib ? TCU_H(*lib) : 0, NULL, path, njit, jo,
		                jv);
out:
	tcu_call_end();
	return r;
}

static void tcu_handle_record(sbt_cm_kind k, tcu_fn id, CUresult r, uint64_t handle,
                              uint64_t parent, const char *name)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = handle;
	c.parent = parent;
	tcu_str(&c, name);
	tcu_emit(k, id, &c, 0);
}

/* A handle obtained from parent (a function of a module, ...): kept for
 * capture windows as class cls. */
static void tcu_handle_keep(tcu_live_class cls, sbt_cm_kind k, tcu_fn id, uint64_t handle,
                            uint64_t parent, const char *name)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.handle = handle;
	c.parent = parent;
	tcu_str(&c, name);
	tcu_live_add(cls, handle, parent, k, id, &c, NULL, 0, NULL, NULL, 0);
}

CUresult tcu_m_cuModuleUnload(tcu_fn id, CUmodule mod)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleUnload real = (tcu_pfn_cuModuleUnload)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(mod);
	if (r == CUDA_SUCCESS) { /* its function handles may come back, meaning others */
		atomic_fetch_add(&tcu_g.unloads, 1);
		if (mode != TCU_MODE_NESTED)
			tcu_live_drop(TCU_LIVE_MODULE, TCU_H(mod));
	}
	if (mode == TCU_MODE_RECORD)
		tcu_handle_record(SBT_CM_K_cuModuleUnload, id, r, TCU_H(mod), 0, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLibraryUnload(tcu_fn id, CUlibrary lib)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLibraryUnload real = (tcu_pfn_cuLibraryUnload)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(lib);
	if (r == CUDA_SUCCESS) { /* its function handles may come back, meaning others */
		atomic_fetch_add(&tcu_g.unloads, 1);
		if (mode != TCU_MODE_NESTED)
			tcu_live_drop(TCU_LIVE_MODULE, TCU_H(lib));
	}
	if (mode == TCU_MODE_RECORD)
		tcu_handle_record(SBT_CM_K_cuLibraryUnload, id, r, TCU_H(lib), 0, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuModuleGetFunction(tcu_fn id, CUfunction *fn, CUmodule mod, const char *name)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleGetFunction real = (tcu_pfn_cuModuleGetFunction)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(fn, mod, name);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && fn) {
		tcu_func_note(TCU_H(*fn), name, 0);
		tcu_handle_keep(TCU_LIVE_FUNC, SBT_CM_K_cuModuleGetFunction, id, TCU_H(*fn), TCU_H(mod),
		                name);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_handle_record(SBT_CM_K_cuModuleGetFunction, id, r,
		                  r == CUDA_SUCCESS && fn ? TCU_H(*fn) : 0, TCU_H(mod), name);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLibraryGetKernel(tcu_fn id, CUkernel *k, CUlibrary lib, const char *name)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLibraryGetKernel real = (tcu_pfn_cuLibraryGetKernel)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(k, lib, name);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && k) {
		tcu_func_note(TCU_H(*k), name, 1);
		tcu_handle_keep(TCU_LIVE_FUNC, SBT_CM_K_cuLibraryGetKernel, id, TCU_H(*k), TCU_H(lib),
		                name);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_handle_record(SBT_CM_K_cuLibraryGetKernel, id, r,
		                  r == CUDA_SUCCESS && k ? TCU_H(*k) : 0, TCU_H(lib), name);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLibraryGetModule(tcu_fn id, CUmodule *mod, CUlibrary lib)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLibraryGetModule real = (tcu_pfn_cuLibraryGetModule)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(mod, lib);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && mod)
		tcu_handle_keep(TCU_LIVE_MODULE, SBT_CM_K_cuLibraryGetModule, id, TCU_H(*mod), TCU_H(lib),
		                NULL);
	if (mode == TCU_MODE_RECORD)
		tcu_handle_record(SBT_CM_K_cuLibraryGetModule, id, r,
		                  r == CUDA_SUCCESS && mod ? TCU_H(*mod) : 0, TCU_H(lib), NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuKernelGetFunction(tcu_fn id, CUfunction *fn, CUkernel k)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuKernelGetFunction real = (tcu_pfn_cuKernelGetFunction)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(fn, k);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && fn) {
		const tcu_func *kf = tcu_func_get(TCU_H(k));
		tcu_func_note(TCU_H(*fn), kf ? kf->name : NULL, 0);
		tcu_handle_keep(TCU_LIVE_FUNC, SBT_CM_K_cuKernelGetFunction, id, TCU_H(*fn), TCU_H(k),
		                NULL);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_handle_record(SBT_CM_K_cuKernelGetFunction, id, r,
		                  r == CUDA_SUCCESS && fn ? TCU_H(*fn) : 0, TCU_H(k), NULL);
out:
	tcu_call_end();
	return r;
}

static void tcu_global_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUdeviceptr *dptr,
                              size_t *bytes, uint64_t parent, const char *name)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.parent = parent;
	tcu_str(&c, name);
	if (r == CUDA_SUCCESS) {
		c.dst = dptr ? *dptr : 0;
		c.size = bytes ? *bytes : 0;
	}
	tcu_emit(k, id, &c, 0);
}

/* A global is device memory keyframes must carry; its size is only known
 * when the program asked for it, so ask the driver if it did not. */
static void tcu_global_track(sbt_cm_kind k, tcu_fn id, CUresult r, CUdeviceptr *dptr,
                             size_t *bytes, uint64_t parent, const char *name)
{
	sbt_cm_call c;
	if (r != CUDA_SUCCESS || !dptr || !bytes || !*bytes)
		return;
	tcu_alloc_add(*dptr, *bytes, SBT_CM_MEM_GLOBAL);
	sbt_cm_call_init(&c);
	c.parent = parent;
	tcu_str(&c, name);
	c.dst = *dptr;
	c.size = *bytes;
	tcu_live_add(TCU_LIVE_GLOBAL, c.dst, parent, k, id, &c, NULL, 0, NULL, NULL, 0);
}

CUresult tcu_m_cuModuleGetGlobal_v2(tcu_fn id, CUdeviceptr *dptr, size_t *bytes, CUmodule mod,
                                    const char *name)
{
	size_t own_bytes = 0;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuModuleGetGlobal_v2 real =
	    (tcu_pfn_cuModuleGetGlobal_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dptr, bytes ? bytes : &own_bytes, mod, name);
	if (mode != TCU_MODE_NESTED) {
		tcu_global_track(SBT_CM_K_cuModuleGetGlobal, id, r, dptr, bytes ? bytes : &own_bytes,
		                 TCU_H(mod), name);
		if (mode == TCU_MODE_RECORD)
			tcu_global_record(SBT_CM_K_cuModuleGetGlobal, id, r, dptr,
			                  bytes ? bytes : &own_bytes, TCU_H(mod), name);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLibraryGetGlobal(tcu_fn id, CUdeviceptr *dptr, size_t *bytes, CUlibrary lib,
                                  const char *name)
{
	size_t own_bytes = 0;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLibraryGetGlobal real = (tcu_pfn_cuLibraryGetGlobal)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dptr, bytes ? bytes : &own_bytes, lib, name);
	if (mode != TCU_MODE_NESTED) {
		tcu_global_track(SBT_CM_K_cuLibraryGetGlobal, id, r, dptr, bytes ? bytes : &own_bytes,
		                 TCU_H(lib), name);
		if (mode == TCU_MODE_RECORD)
			tcu_global_record(SBT_CM_K_cuLibraryGetGlobal, id, r, dptr,
			                  bytes ? bytes : &own_bytes, TCU_H(lib), name);
	}
out:
	tcu_call_end();
	return r;
}

/* ---- launches ------------------------------------------------------------------ */

typedef struct tcu_launch {
	CUfunction f;
	unsigned grid[3], block[3], shared;
	CUstream stream;
	void **params;
	void **extra;
	const CUlaunchAttribute *attrs;
	unsigned nattrs;
	int capturing;
	uint64_t capture_id;
	int ptds; /* made through a per-thread-default-stream variant */
} tcu_launch;

/* The buffer an `extra` array points at (CU_LAUNCH_PARAM_BUFFER_*);
 * NULL and 0 unless it names both. */
void tcu_extra_buffer(void **extra, const void **buf_out, size_t *len_out)
{
	const void *buf = NULL;
	size_t len = 0;
	for (int i = 0; extra && i < 64 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			buf = extra[i + 1];
		else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
			len = *(const size_t *)extra[i + 1];
	}
	if (buf && len) {
		*buf_out = buf;
		*len_out = len;
	}
}

/* The writer thread's encoder of launch records (tcu_enc.h). */
static size_t tcu_launch_encode(const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_cap)
{
	return tcu_enc_raw_encode(raw, raw_len, out, out_cap);
}

/* The variable parts of l's raw launch (tcu_enc.h): its function's
 * encoding and layout, parameter, extra and attribute bytes. */
typedef struct tcu_launch_parts {
	const tcu_layout *lay;
	const void *extra;
	size_t extra_len, param_bytes, nattrs;
} tcu_launch_parts;

/* Says once that the launched function has no parameter layout (handle:
 * its handle; by value, so that the launch is not built in memory). */
static __attribute__((noinline)) void tcu_launch_no_layout(uint64_t handle)
{
	const tcu_func *f;
	if (atomic_exchange(&tcu_g.layout_warned, 1) != 0)
		return;
	f = tcu_func_get(handle);
	CAP_WARN("cuda: the driver does not give the parameter layout of kernel %s: its "
	         "launches are recorded without parameters and cannot be replayed",
	         f && f->name ? f->name : "(unnamed)");
}

static inline __attribute__((always_inline)) void tcu_launch_parts_get(const tcu_launch *l,
                                                                      tcu_launch_parts *p)
{
	p->lay = tcu_func_launch_layout(TCU_H(l->f));
	p->extra = NULL;
	p->extra_len = p->param_bytes = p->nattrs = 0;
	if (l->params) {
		if (p->lay && p->lay->known > 0)
			p->param_bytes = p->lay->param_bytes;
		else
			tcu_launch_no_layout(TCU_H(l->f));
	} else if (l->extra) {
		/* Its own locals: p's address never escapes, so the inline
		 * launch keeps p in registers. */
		const void *buf = NULL;
		size_t len = 0;
		tcu_extra_buffer(l->extra, &buf, &len);
		p->extra = buf;
		p->extra_len = len;
	}
	if (l->attrs)
		p->nattrs = l->nattrs;
}

/* The parameter bytes, out of line: the launch without parameters keeps
 * its registers, and a launch with them makes one call here instead of
 * one to memcpy per parameter (tcu_enc_param_copy). */
static __attribute__((noinline)) void tcu_launch_params(uint8_t *dst, void *const *params,
                                                        const tcu_layout *lay, size_t param_bytes)
{
	tcu_enc_params(dst, params, lay->pl, lay->nparams, param_bytes);
}

static inline __attribute__((always_inline)) void
tcu_launch_fill(tcu_enc_raw *raw, CUresult r, const tcu_launch *l, const tcu_launch_parts *p)
{
	uint8_t *tail;
	raw->fn = p->lay ? &p->lay->enc : NULL;
	raw->handle = TCU_H(l->f);
	raw->stream = TCU_H(l->stream);
	raw->capture_id = l->capture_id;
	raw->grid[0] = l->grid[0];
	raw->grid[1] = l->grid[1];
	raw->grid[2] = l->grid[2];
	raw->block[0] = l->block[0];
	raw->block[1] = l->block[1];
	raw->block[2] = l->block[2];
	raw->shared_mem = l->shared;
	raw->result = (uint32_t)r;
	raw->capture_status = (uint32_t)l->capturing;
	raw->param_bytes = (uint32_t)p->param_bytes;
	raw->extra_len = (uint32_t)p->extra_len;
	raw->nattrs = (uint32_t)p->nattrs;
	raw->ptds = (uint8_t)l->ptds;
	tail = (uint8_t *)(raw + 1);
	if (p->param_bytes)
		tcu_launch_params(tail, l->params, p->lay, p->param_bytes);
	if (p->extra_len)
		memcpy(tail + p->param_bytes, p->extra, p->extra_len);
	if (p->nattrs && l->attrs)
		memcpy(tail + p->param_bytes + p->extra_len, l->attrs, p->nattrs * TCU_ENC_ATTR_STRIDE);
}

/*
 * The launch record, left raw for the writer thread to encode
 * (cap_record_begin_deferred, tcu_enc.h): the function's entry gives its
 * encoded handle, name and layout by pointer (entries and layouts live as
 * long as the process), so a launch copies its values and parameter bytes
 * and formats, allocates and locks nothing here.  Inlined into each
 * launch wrapper, so that the tcu_launch is never built in memory.  The
 * record is reserved in the thread's block, filled in place and sealed
 * (cap_fast_reserve_deferred / cap_fast_seal_deferred: no open-record
 * state to set and clear, the time read inline from the counter); nothing
 * between the two records on this thread: the fill only copies bytes (and
 * the wrapper is inside cap_enter_inline, so a hooked call would be
 * nested and record nothing).
 */
static inline __attribute__((always_inline)) void tcu_launch_record(sbt_cm_kind k, CUresult r,
                                                                   const tcu_launch *l)
{
	tcu_launch_parts p;
	tcu_enc_raw *raw;
	cap_thread *t;
	cap_entry *e;
	size_t len;

	tcu_launch_parts_get(l, &p);
	len = tcu_enc_raw_size(p.param_bytes, p.extra_len, p.nattrs);
	raw = (tcu_enc_raw *)cap_fast_reserve_deferred(&t, &e, SBT_CM_TYPE(k), CAP_REC_WORK,
	                                               tcu_launch_encode, len);
	if (__builtin_expect(!raw, 0)) {
		/* The clock is not the counter, a stack is wanted (the default
		 * policy's for launches), the block is full or the runtime is
		 * not running: the record opened and committed, inline where
		 * that can be, out of line where not (cap_fast.h). */
		cap_rec *rec;
		raw = (tcu_enc_raw *)cap_fast_begin_deferred(SBT_CM_TYPE(k), CAP_REC_WORK,
		                                             tcu_launch_encode, len, &rec);
		if (!raw)
			return;
		tcu_launch_fill(raw, r, l, &p);
		cap_fast_commit(rec, len);
		return;
	}
	tcu_launch_fill(raw, r, l, &p);
	cap_fast_seal_deferred(t, e, len);
}

/* l's launch record encoded here, as the writer thread would (malloc'd;
 * NULL when out of memory). */
static __attribute__((noinline)) uint8_t *tcu_launch_encoded(const tcu_launch *l, CUresult r,
                                                             size_t *len_out)
{
	tcu_launch_parts p;
	uint8_t *raw, *enc = NULL;
	size_t raw_len, max, n = 0;

	tcu_launch_parts_get(l, &p);
	raw_len = tcu_enc_raw_size(p.param_bytes, p.extra_len, p.nattrs);
	raw = calloc(1, raw_len);
	if (raw) {
		tcu_launch_fill((tcu_enc_raw *)raw, r, l, &p);
		max = tcu_enc_raw_encode(raw, raw_len, NULL, 0);
		enc = malloc(max ? max : 1);
		if (enc)
			n = tcu_enc_raw_encode(raw, raw_len, enc, max);
	}
	free(raw);
	if (enc && !n) {
		free(enc);
		enc = NULL;
	}
	*len_out = n;
	return enc;
}

/* A launch into a stream capture kept for capture windows (tcu_live.c). */
static __attribute__((noinline)) void tcu_launch_keep(sbt_cm_kind k, tcu_fn id, CUresult r,
                                                      tcu_launch l, uint64_t capture_id)
{
	uint8_t *enc;
	size_t n;

	if (r != CUDA_SUCCESS)
		return;
	l.capturing = CU_STREAM_CAPTURE_STATUS_ACTIVE;
	l.capture_id = capture_id;
	enc = tcu_launch_encoded(&l, r, &n);
	if (enc)
		tcu_live_capture_encoded(k, id, TCU_H(l.stream), enc, n);
	else
		CAP_ERROR("cuda: out of memory keeping a captured launch for capture windows: a "
		          "window's trace may lack it");
	free(enc);
}

uint8_t *tcu_kernel_node_encoded(CUfunction f, const unsigned grid[3], const unsigned block[3],
                                 unsigned shared, void **params, void **extra, CUresult r,
                                 size_t *len_out)
{
	tcu_launch l;
	memset(&l, 0, sizeof(l));
	l.f = f;
	for (int i = 0; i < 3; i++) {
		l.grid[i] = grid[i];
		l.block[i] = block[i];
	}
	l.shared = shared;
	l.params = params;
	l.extra = extra;
	return tcu_launch_encoded(&l, r, len_out);
}

_Static_assert(sizeof(CUlaunchAttribute) == TCU_ENC_ATTR_STRIDE &&
                   sizeof(CUlaunchAttributeID) == sizeof(uint32_t) &&
                   offsetof(CUlaunchAttribute, id) == 0 &&
                   offsetof(CUlaunchAttribute, value) == TCU_ENC_ATTR_VALUE_AT,
               "CUlaunchAttribute is laid out as tcu_enc.h reads it");
_Static_assert(sizeof(((CUlaunchAttribute *)0)->value) == 64, "launch attribute values are 64 bytes");

/* cuLaunchKernel and its per-thread-stream form are exported from here
 * (scripts/cudagen/gen.py EXPORTED_BY_MODEL): each is this function with
 * its variant and stream kind constant, nothing between the program and
 * the recording but one call. */
static inline __attribute__((always_inline)) CUresult
tcu_launch_kernel(tcu_fn id, int ptds, CUfunction f, unsigned int gx, unsigned int gy,
                  unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
                  unsigned int shared, CUstream s, void **params, void **extra)
{
	int capturing = 0;
	uint64_t ordinal = 0, capture_id = 0;
	int unit;
	tcu_mode mode;
	tcu_counts *counts;
	CUresult r;
	tcu_pfn_cuLaunchKernel real =
	    (tcu_pfn_cuLaunchKernel)tcu_call_begin_counts(id, &mode, &counts);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	/* mode, capturing and capture_id live in registers: only copies of
	 * them have their address passed on (to the out-of-line halves of
	 * the unit and the bookkeeping, on their slow paths), and the unit's
	 * common case (no trigger: windowed 1) is tested before the copy is
	 * made.  tcu_launch_before always writes st and cid. */
	unit = 0;
	if (atomic_load_explicit(&tcu_g.windowed, memory_order_relaxed) != 1) {
		tcu_mode m = mode;
		unit = tcu_launch_unit_begin(&m);
		mode = m;
	}
	if (mode == TCU_MODE_RECORD) {
		int st;
		uint64_t cid;
		ordinal = tcu_launch_before(counts, f, params, extra, s, ptds, &st, &cid);
		capturing = st;
		capture_id = cid;
	}
	r = real(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
	if (mode == TCU_MODE_RECORD) {
		tcu_launch l = {f,      {gx, gy, gz}, {bx, by, bz}, shared,    s,   params,
		                extra, NULL,         0,            capturing, capture_id, ptds};
		tcu_launch_record(SBT_CM_K_cuLaunchKernel, r, &l);
		/* Ordinal 0: tcu_launch_before found the launch quiet, which
		 * lasts, so there is nothing to do after it either. */
		if (ordinal)
			tcu_launch_after(ordinal, s, ptds, capturing);
	}
	if (unit) {
		uint64_t cid;
		if (tcu_live_captured(mode, s, ptds, &cid)) {
			tcu_launch l = {f,      {gx, gy, gz}, {bx, by, bz}, shared, s,   params,
			                extra, NULL,         0,            0,      0,   ptds};
			tcu_launch_keep(SBT_CM_K_cuLaunchKernel, id, r, l, cid);
		}
	}
	tcu_launch_unit_end(unit);
out:
	tcu_call_end();
	return r;
}

#undef cuLaunchKernel /* cuda.h may name the per-thread variant so */
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                unsigned int bx, unsigned int by, unsigned int bz,
                                unsigned int shared, CUstream s, void **params, void **extra)
{
	return tcu_launch_kernel(TCU_FN_cuLaunchKernel, 0, f, gx, gy, gz, bx, by, bz, shared, s,
	                         params, extra);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                     unsigned int gz, unsigned int bx, unsigned int by,
                                     unsigned int bz, unsigned int shared, CUstream s,
                                     void **params, void **extra)
{
	return tcu_launch_kernel(TCU_FN_cuLaunchKernel_ptsz, 1, f, gx, gy, gz, bx, by, bz, shared,
	                         s, params, extra);
}

CUresult tcu_m_cuLaunchCooperativeKernel(tcu_fn id, CUfunction f, unsigned int gx, unsigned int gy,
                                         unsigned int gz, unsigned int bx, unsigned int by,
                                         unsigned int bz, unsigned int shared, CUstream s,
                                         void **params)
{
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0;
	int capturing = 0;
	uint64_t ordinal = 0, capture_id = 0;
	int unit;
	tcu_mode mode;
	tcu_counts *counts;
	CUresult r;
	tcu_pfn_cuLaunchCooperativeKernel real =
	    (tcu_pfn_cuLaunchCooperativeKernel)tcu_call_begin_counts(id, &mode, &counts);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	unit = tcu_launch_unit_begin(&mode);
	if (mode == TCU_MODE_RECORD)
		ordinal = tcu_launch_before(counts, f, params, NULL, s, ptds, &capturing, &capture_id);
	r = real(f, gx, gy, gz, bx, by, bz, shared, s, params);
	if (mode == TCU_MODE_RECORD) {
		tcu_launch l = {f,      {gx, gy, gz}, {bx, by, bz}, shared,    s,   params,
		                NULL, NULL,         0,            capturing, capture_id, ptds};
		tcu_launch_record(SBT_CM_K_cuLaunchCooperativeKernel, r, &l);
		tcu_launch_after(ordinal, s, ptds, capturing);
	}
	if (unit && tcu_live_captured(mode, s, ptds, &capture_id)) {
		tcu_launch l = {f,      {gx, gy, gz}, {bx, by, bz}, shared, s,   params,
		                NULL, NULL,         0,            0,      0,   ptds};
		tcu_launch_keep(SBT_CM_K_cuLaunchCooperativeKernel, id, r, l, capture_id);
	}
	tcu_launch_unit_end(unit);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLaunchKernelEx(tcu_fn id, const CUlaunchConfig *cfg, CUfunction f, void **params,
                                void **extra)
{
	tcu_launch l;
	uint64_t ordinal = 0;
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0;
	int unit;
	tcu_mode mode;
	tcu_counts *counts;
	CUresult r;
	tcu_pfn_cuLaunchKernelEx real;
	memset(&l, 0, sizeof(l));
	l.ptds = ptds;
	l.f = f;
	l.params = params;
	l.extra = extra;
	if (cfg) {
		l.grid[0] = cfg->gridDimX;
		l.grid[1] = cfg->gridDimY;
		l.grid[2] = cfg->gridDimZ;
		l.block[0] = cfg->blockDimX;
		l.block[1] = cfg->blockDimY;
		l.block[2] = cfg->blockDimZ;
		l.shared = cfg->sharedMemBytes;
		l.stream = cfg->hStream;
		l.attrs = cfg->attrs;
		l.nattrs = cfg->numAttrs;
	}
	real = (tcu_pfn_cuLaunchKernelEx)tcu_call_begin_counts(id, &mode, &counts);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	unit = tcu_launch_unit_begin(&mode);
	if (mode == TCU_MODE_RECORD)
		ordinal = tcu_launch_before(counts, f, params, extra, l.stream, ptds, &l.capturing,
		                            &l.capture_id);
	r = real(cfg, f, params, extra);
	if (mode == TCU_MODE_RECORD) {
		tcu_launch_record(SBT_CM_K_cuLaunchKernelEx, r, &l);
		tcu_launch_after(ordinal, l.stream, ptds, l.capturing);
	}
	{
		uint64_t cid;
		if (unit && tcu_live_captured(mode, l.stream, ptds, &cid))
			tcu_launch_keep(SBT_CM_K_cuLaunchKernelEx, id, r, l, cid);
	}
	tcu_launch_unit_end(unit);
out:
	tcu_call_end();
	return r;
}

/* A graph launch is one launch unit (docs/cuda.md "Capture windows"). */
CUresult tcu_m_cuGraphLaunch(tcu_fn id, CUgraphExec exec, CUstream s)
{
	int unit;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphLaunch real = (tcu_pfn_cuGraphLaunch)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	unit = tcu_launch_unit_begin(&mode);
	/* (an exec without host sources costs this one load) */
	if (mode == TCU_MODE_RECORD && atomic_load_explicit(&tcu_g.hsrc_execs, memory_order_relaxed))
		tcu_graph_hsrc_launch(id, TCU_H(exec));
	r = real(exec, s);
	/* (an exec without graph memory outliving it costs this one load) */
	if (atomic_load_explicit(&tcu_g.gmem_execs, memory_order_relaxed) && mode != TCU_MODE_NESTED &&
	    r == CUDA_SUCCESS)
		tcu_graph_gmem_launch(TCU_H(exec));
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = TCU_H(exec);
		c.stream = TCU_H(s);
		tcu_emit(SBT_CM_K_cuGraphLaunch, id, &c, CAP_REC_WORK);
	}
	tcu_launch_unit_end(unit);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuLaunchHostFunc(tcu_fn id, CUstream s, CUhostFn fn, void *user)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuLaunchHostFunc real = (tcu_pfn_cuLaunchHostFunc)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(s, fn, user);
	if (mode == TCU_MODE_RECORD) {
		static const char note[] = "host code is never replayed";
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.stream = TCU_H(s);
		c.note = (const uint8_t *)note;
		c.note_len = sizeof(note) - 1;
		tcu_emit(SBT_CM_K_cuLaunchHostFunc, id, &c, CAP_REC_WORK);
	}
out:
	tcu_call_end();
	return r;
}

/* ---- function attributes and graphs ----------------------------------------------- */

/* Attributes a launch depends on (the dynamic shared memory a kernel may
 * use above 48 KiB is one): replay sets them again. */

/* The key of a function's attribute (per device for kernels) among kept
 * objects: the last value set stays.  Handles are user-space addresses,
 * below 2^48. */
static uint64_t tcu_attr_key(uint64_t handle, CUfunction_attribute attr, int dev)
{
	return handle ^ ((uint64_t)((unsigned)attr & 0x7f) << 56) ^ ((uint64_t)(dev & 0xff) << 48);
}
CUresult tcu_m_cuKernelSetAttribute(tcu_fn id, CUfunction_attribute attr, int val, CUkernel k,
                                    CUdevice dev)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuKernelSetAttribute real =
	    (tcu_pfn_cuKernelSetAttribute)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(attr, val, k, dev);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = TCU_H(k);
		c.attr = (uint64_t)attr;
		c.ivalue = val;
		c.device = dev;
		if (mode == TCU_MODE_RECORD)
			tcu_emit(SBT_CM_K_cuKernelSetAttribute, id, &c, 0);
		if (r == CUDA_SUCCESS)
			tcu_live_add(TCU_LIVE_ATTR, tcu_attr_key(c.handle, attr, dev), c.handle,
			             SBT_CM_K_cuKernelSetAttribute, id, &c, NULL, 0, NULL, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuFuncSetAttribute(tcu_fn id, CUfunction f, CUfunction_attribute attr, int val)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuFuncSetAttribute real = (tcu_pfn_cuFuncSetAttribute)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(f, attr, val);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = TCU_H(f);
		c.attr = (uint64_t)attr;
		c.ivalue = val;
		if (mode == TCU_MODE_RECORD)
			tcu_emit(SBT_CM_K_cuFuncSetAttribute, id, &c, 0);
		if (r == CUDA_SUCCESS)
			tcu_live_add(TCU_LIVE_ATTR, tcu_attr_key(c.handle, attr, -1), c.handle,
			             SBT_CM_K_cuFuncSetAttribute, id, &c, NULL, 0, NULL, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

static void tcu_graph_record(sbt_cm_kind k, tcu_fn id, CUresult r, uint64_t handle,
                             uint64_t parent, uint64_t flags)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = handle;
	c.parent = parent;
	c.flags = flags;
	tcu_emit(k, id, &c, 0);
}

/* An instantiation of a graph kept for capture windows (tcu_live.c). */
static void tcu_graph_keep(tcu_fn id, CUresult r, uint64_t exec, uint64_t graph, uint64_t flags)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = exec;
	c.parent = graph;
	c.flags = flags;
	tcu_live_graph_exec(id, &c);
	if (r == CUDA_SUCCESS) {
		tcu_graph_hsrc_instantiate(exec, graph);
		tcu_graph_gmem_instantiate(exec, graph);
	}
}

CUresult tcu_m_cuGraphInstantiateWithFlags(tcu_fn id, CUgraphExec *exec, CUgraph g,
                                           unsigned long long flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphInstantiateWithFlags real =
	    (tcu_pfn_cuGraphInstantiateWithFlags)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(exec, g, flags);
	if (mode == TCU_MODE_RECORD)
		tcu_graph_record(SBT_CM_K_cuGraphInstantiate, id, r,
		                 r == CUDA_SUCCESS && exec ? TCU_H(*exec) : 0, TCU_H(g), flags);
	if (mode != TCU_MODE_NESTED)
		tcu_graph_keep(id, r, r == CUDA_SUCCESS && exec ? TCU_H(*exec) : 0, TCU_H(g), flags);
out:
	tcu_call_end();
	return r;
}

/* The upload stream of the parameters is not kept: replay instantiates
 * with the flags and uploads at the first launch. */
CUresult tcu_m_cuGraphInstantiateWithParams(tcu_fn id, CUgraphExec *exec, CUgraph g,
                                            CUDA_GRAPH_INSTANTIATE_PARAMS *params)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphInstantiateWithParams real =
	    (tcu_pfn_cuGraphInstantiateWithParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(exec, g, params);
	if (mode == TCU_MODE_RECORD)
		tcu_graph_record(SBT_CM_K_cuGraphInstantiate, id, r,
		                 r == CUDA_SUCCESS && exec ? TCU_H(*exec) : 0, TCU_H(g),
		                 params ? params->flags : 0);
	if (mode != TCU_MODE_NESTED)
		tcu_graph_keep(id, r, r == CUDA_SUCCESS && exec ? TCU_H(*exec) : 0, TCU_H(g),
		               params ? params->flags : 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecDestroy(tcu_fn id, CUgraphExec exec)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecDestroy real = (tcu_pfn_cuGraphExecDestroy)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(exec);
	if (mode == TCU_MODE_RECORD)
		tcu_graph_record(SBT_CM_K_cuGraphExecDestroy, id, r, TCU_H(exec), 0, 0);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS) {
		tcu_live_graph_exec_destroy(TCU_H(exec));
		tcu_graph_hsrc_exec_destroy(TCU_H(exec));
		tcu_graph_gmem_exec_destroy(TCU_H(exec));
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphDestroy(tcu_fn id, CUgraph g)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphDestroy real = (tcu_pfn_cuGraphDestroy)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(g);
	if (mode == TCU_MODE_RECORD)
		tcu_graph_record(SBT_CM_K_cuGraphDestroy, id, r, TCU_H(g), 0, 0);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS) {
		tcu_live_graph_destroy(TCU_H(g));
		tcu_graph_hsrc_graph_destroy(TCU_H(g));
		tcu_graph_gmem_graph_destroy(TCU_H(g));
		tcu_graph_moved_destroy(TCU_H(g));
	}
out:
	tcu_call_end();
	return r;
}

/* ---- texture and surface objects --------------------------------------------------------- */

/*
 * Their handles travel in kernel parameters, where replay cannot tell them
 * from integers: the descriptions are recorded whole, and replay creates
 * the objects again in the same order (docs/cuda-replay.md).
 */
static void tcu_texobj_record(sbt_cm_kind k, tcu_fn id, int record, CUresult r, uint64_t handle,
                              const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex,
                              const CUDA_RESOURCE_VIEW_DESC *view)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = handle;
	if (res) {
		c.res_desc = (const uint8_t *)res;
		c.res_desc_len = sizeof(*res);
	}
	if (tex) {
		c.tex_desc = (const uint8_t *)tex;
		c.tex_desc_len = sizeof(*tex);
	}
	if (view) {
		c.view_desc = (const uint8_t *)view;
		c.view_desc_len = sizeof(*view);
	}
	if (record)
		tcu_emit(k, id, &c, 0);
	if (r == CUDA_SUCCESS && handle && (k == SBT_CM_K_cuTexObjectCreate || k == SBT_CM_K_cuSurfObjectCreate))
		tcu_live_add(TCU_LIVE_TEXOBJ, handle, TCU_LIVE_IN_CTX, k, id, &c, NULL, 0, NULL, NULL, 0);
	else if (r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_TEXOBJ, handle);
}

CUresult tcu_m_cuTexObjectCreate(tcu_fn id, CUtexObject *out, const CUDA_RESOURCE_DESC *res,
                                 const CUDA_TEXTURE_DESC *tex, const CUDA_RESOURCE_VIEW_DESC *view)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuTexObjectCreate real = (tcu_pfn_cuTexObjectCreate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, res, tex, view);
	if (mode != TCU_MODE_NESTED)
		tcu_texobj_record(SBT_CM_K_cuTexObjectCreate, id, mode == TCU_MODE_RECORD, r,
		                  r == CUDA_SUCCESS && out ? (uint64_t)*out : 0, res, tex, view);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuSurfObjectCreate(tcu_fn id, CUsurfObject *out, const CUDA_RESOURCE_DESC *res)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuSurfObjectCreate real = (tcu_pfn_cuSurfObjectCreate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, res);
	if (mode != TCU_MODE_NESTED)
		tcu_texobj_record(SBT_CM_K_cuSurfObjectCreate, id, mode == TCU_MODE_RECORD, r,
		                  r == CUDA_SUCCESS && out ? (uint64_t)*out : 0, res, NULL, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuTexObjectDestroy(tcu_fn id, CUtexObject h)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuTexObjectDestroy real = (tcu_pfn_cuTexObjectDestroy)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(h);
	if (mode != TCU_MODE_NESTED)
		tcu_texobj_record(SBT_CM_K_cuTexObjectDestroy, id, mode == TCU_MODE_RECORD, r, (uint64_t)h, NULL, NULL, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuSurfObjectDestroy(tcu_fn id, CUsurfObject h)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuSurfObjectDestroy real = (tcu_pfn_cuSurfObjectDestroy)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(h);
	if (mode != TCU_MODE_NESTED)
		tcu_texobj_record(SBT_CM_K_cuSurfObjectDestroy, id, mode == TCU_MODE_RECORD, r, (uint64_t)h, NULL, NULL, NULL);
out:
	tcu_call_end();
	return r;
}

/* ---- CUDA arrays ------------------------------------------------------------------------- */

/*
 * An array is created again on replay from its descriptor and named by
 * its handle in copies and texture or surface resources.  Its contents
 * are opaque (the driver's tiled layout): full keyframes copy them out
 * row by row with cuMemcpy3D (tcu_track.c).
 */
static void tcu_array_record(sbt_cm_kind k, tcu_fn id, CUresult r, uint64_t handle,
                             const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = handle;
	if (d) {
		c.width = d->Width;
		c.height = d->Height;
		c.depth = d->Depth;
		c.format = (uint64_t)d->Format;
		c.channels = d->NumChannels;
		c.flags = d->Flags;
	}
	tcu_emit(k, id, &c, 0);
}

/* A creation: recorded, kept for keyframes and for windows' snapshots. */
static void tcu_array_made(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, const CUarray *out,
                           const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	uint64_t h = r == CUDA_SUCCESS && out ? TCU_H(*out) : 0;
	if (mode == TCU_MODE_RECORD)
		tcu_array_record(k, id, r, h, d);
	if (h && d) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.handle = h;
		c.width = d->Width;
		c.height = d->Height;
		c.depth = d->Depth;
		c.format = (uint64_t)d->Format;
		c.channels = d->NumChannels;
		c.flags = d->Flags;
		tcu_array_add(h, d);
		tcu_live_add(TCU_LIVE_ARRAY, h, TCU_LIVE_IN_CTX, k, id, &c, NULL, 0, NULL, NULL, 0);
	}
}

CUresult tcu_m_cuArrayCreate_v2(tcu_fn id, CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuArrayCreate_v2 real = (tcu_pfn_cuArrayCreate_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, d);
	if (mode != TCU_MODE_NESTED) {
		CUDA_ARRAY3D_DESCRIPTOR d3;
		memset(&d3, 0, sizeof(d3));
		if (d) {
			d3.Width = d->Width;
			d3.Height = d->Height;
			d3.Format = d->Format;
			d3.NumChannels = d->NumChannels;
		}
		tcu_array_made(SBT_CM_K_cuArrayCreate, id, mode, r, out, d ? &d3 : NULL);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuArray3DCreate_v2(tcu_fn id, CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuArray3DCreate_v2 real = (tcu_pfn_cuArray3DCreate_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, d);
	if (mode != TCU_MODE_NESTED)
		tcu_array_made(SBT_CM_K_cuArray3DCreate, id, mode, r, out, d);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuArrayDestroy(tcu_fn id, CUarray a)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuArrayDestroy real = (tcu_pfn_cuArrayDestroy)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(a);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS) {
		tcu_array_drop(TCU_H(a));
		tcu_live_drop(TCU_LIVE_ARRAY, TCU_H(a));
	}
	if (mode == TCU_MODE_RECORD)
		tcu_array_record(SBT_CM_K_cuArrayDestroy, id, r, TCU_H(a), NULL);
out:
	tcu_call_end();
	return r;
}

/* ---- streams and events ----------------------------------------------------------- */

static uint64_t tcu_stream_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUstream s, CUevent e,
                                  unsigned flags)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.stream = TCU_H(s);
	c.event = TCU_H(e);
	c.flags = flags;
	return tcu_emit(k, id, &c, 0);
}

CUresult tcu_m_cuStreamCreate(tcu_fn id, CUstream *ps, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamCreate real = (tcu_pfn_cuStreamCreate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(ps, flags);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = r == CUDA_SUCCESS && ps ? TCU_H(*ps) : 0;
		c.flags = flags;
		if (mode == TCU_MODE_RECORD)
			tcu_emit(SBT_CM_K_cuStreamCreate, id, &c, 0);
		if (r == CUDA_SUCCESS)
			tcu_live_add(TCU_LIVE_STREAM, c.handle, TCU_LIVE_IN_CTX, SBT_CM_K_cuStreamCreate, id,
			             &c, NULL, 0, NULL, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamCreateWithPriority(tcu_fn id, CUstream *ps, unsigned int flags, int prio)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamCreateWithPriority real =
	    (tcu_pfn_cuStreamCreateWithPriority)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(ps, flags, prio);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = r == CUDA_SUCCESS && ps ? TCU_H(*ps) : 0;
		c.flags = flags;
		c.priority = prio;
		if (mode == TCU_MODE_RECORD)
			tcu_emit(SBT_CM_K_cuStreamCreateWithPriority, id, &c, 0);
		if (r == CUDA_SUCCESS)
			tcu_live_add(TCU_LIVE_STREAM, c.handle, TCU_LIVE_IN_CTX,
			             SBT_CM_K_cuStreamCreateWithPriority, id, &c, NULL, 0, NULL, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamDestroy_v2(tcu_fn id, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamDestroy_v2 real = (tcu_pfn_cuStreamDestroy_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(s);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_STREAM, TCU_H(s));
	if (mode == TCU_MODE_RECORD)
		tcu_stream_record(SBT_CM_K_cuStreamDestroy, id, r, s, NULL, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamSynchronize(tcu_fn id, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamSynchronize real = (tcu_pfn_cuStreamSynchronize)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(s);
	if (mode == TCU_MODE_RECORD) {
		tcu_stream_record(SBT_CM_K_cuStreamSynchronize, id, r, s, NULL, 0);
		if (r == CUDA_SUCCESS)
			tcu_pending_flush_stream(TCU_H(s), UINT64_MAX);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamQuery(tcu_fn id, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamQuery real = (tcu_pfn_cuStreamQuery)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(s);
	if (mode == TCU_MODE_RECORD) {
		tcu_stream_record(SBT_CM_K_cuStreamQuery, id, r, s, NULL, 0);
		if (r == CUDA_SUCCESS)
			tcu_pending_flush_stream(TCU_H(s), UINT64_MAX);
	}
out:
	tcu_call_end();
	return r;
}

static void tcu_event_keep(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUevent e, CUstream s,
                           unsigned flags);

CUresult tcu_m_cuStreamWaitEvent(tcu_fn id, CUstream s, CUevent e, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamWaitEvent real = (tcu_pfn_cuStreamWaitEvent)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(s, e, flags);
	if (mode == TCU_MODE_RECORD)
		tcu_stream_record(SBT_CM_K_cuStreamWaitEvent, id, r, s, e, flags);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && tcu_windowed())
		tcu_event_keep(SBT_CM_K_cuStreamWaitEvent, id, mode, e, s, flags);
out:
	tcu_call_end();
	return r;
}

/* Every call that begins a capture is tracked (tcu_capture.c), recording
 * or not; the _v2 and ToGraph forms are model records (ToGraph: tcu_graph.c). */
CUresult tcu_m_cuStreamBeginCapture_v2(tcu_fn id, CUstream s, CUstreamCaptureMode m)
{
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamBeginCapture_v2 real =
	    (tcu_pfn_cuStreamBeginCapture_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	tcu_capture_begin_pre(s, ptds);
	r = real(s, m);
	tcu_capture_begin_post(s, ptds, r);
	if (mode == TCU_MODE_RECORD)
		tcu_stream_record(SBT_CM_K_cuStreamBeginCapture, id, r, s, NULL, (unsigned)m);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && tcu_windowed()) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.stream = TCU_H(s);
		c.flags = (unsigned)m;
		tcu_live_capture_begin(id, &c);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamBeginCapture(tcu_fn id, CUstream s)
{
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamBeginCapture real =
	    (tcu_pfn_cuStreamBeginCapture)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	tcu_capture_begin_pre(s, ptds);
	r = real(s);
	tcu_capture_begin_post(s, ptds, r);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamBeginCaptureToGraph(tcu_fn id, CUstream s, CUgraph g,
                                           const CUgraphNode *deps, const CUgraphEdgeData *data,
                                           size_t ndeps, CUstreamCaptureMode m)
{
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamBeginCaptureToGraph real =
	    (tcu_pfn_cuStreamBeginCaptureToGraph)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	tcu_capture_begin_pre(s, ptds);
	r = real(s, g, deps, data, ndeps, m);
	tcu_capture_begin_post(s, ptds, r);
	tcu_graph_capture_to(id, mode, r, s, g, deps, data, ndeps, m);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuStreamEndCapture(tcu_fn id, CUstream s, CUgraph *graph)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuStreamEndCapture real = (tcu_pfn_cuStreamEndCapture)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(s, graph);
	tcu_capture_end(s, (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0, r);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.stream = TCU_H(s);
		c.handle = r == CUDA_SUCCESS && graph ? TCU_H(*graph) : 0;
		if (tcu_windowed())
			tcu_live_capture_end(id, &c);
		if (mode == TCU_MODE_RECORD)
			tcu_emit(SBT_CM_K_cuStreamEndCapture, id, &c, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuEventCreate(tcu_fn id, CUevent *pe, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuEventCreate real = (tcu_pfn_cuEventCreate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pe, flags);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && pe) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.event = TCU_H(*pe);
		c.flags = flags;
		tcu_live_add(TCU_LIVE_EVENT, c.event, TCU_LIVE_IN_CTX, SBT_CM_K_cuEventCreate, id, &c,
		             NULL, 0, NULL, NULL, 0);
	}
	if (mode == TCU_MODE_RECORD)
		tcu_stream_record(SBT_CM_K_cuEventCreate, id, r, NULL,
		                  r == CUDA_SUCCESS && pe ? *pe : NULL, flags);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuEventDestroy_v2(tcu_fn id, CUevent e)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuEventDestroy_v2 real = (tcu_pfn_cuEventDestroy_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(e);
	if (mode != TCU_MODE_NESTED) {
		pthread_mutex_lock(&tcu_g.mu);
		free(cap_umap_del(&tcu_g.events, TCU_H(e)));
		pthread_mutex_unlock(&tcu_g.mu);
		if (r == CUDA_SUCCESS)
			tcu_live_drop(TCU_LIVE_EVENT, TCU_H(e));
		if (mode == TCU_MODE_RECORD)
			tcu_stream_record(SBT_CM_K_cuEventDestroy, id, r, NULL, e, 0);
	}
out:
	tcu_call_end();
	return r;
}

/* An event recorded (k) or waited on (cuStreamWaitEvent) while windowed:
 * inside a stream capture kept for windows the call is kept with it (the
 * snapshot's capture makes it again); a record outside any capture is
 * recorded again by the snapshot of a later window (tcu_live.c). */
static void tcu_event_keep(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUevent e, CUstream s,
                           unsigned flags)
{
	int status;
	uint64_t cid;
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0;
	if (tcu_live_captured(mode, s, ptds, &cid)) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.event = TCU_H(e);
		c.stream = TCU_H(s);
		c.flags = flags;
		tcu_live_capture_call(k, id, &c, NULL, 0);
		return;
	}
	if (k == SBT_CM_K_cuStreamWaitEvent || tcu_capture_query(s, ptds, &status, &cid))
		return;
	tcu_live_event_recorded(TCU_H(e), TCU_H(s), ptds);
}

CUresult tcu_m_cuEventRecord(tcu_fn id, CUevent e, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuEventRecord real = (tcu_pfn_cuEventRecord)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(e, s);
	if (mode == TCU_MODE_RECORD) {
		uint64_t seq = tcu_stream_record(SBT_CM_K_cuEventRecord, id, r, s, e, 0);
		if (r == CUDA_SUCCESS)
			tcu_event_note(TCU_H(e), TCU_H(s), seq);
	}
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && tcu_windowed())
		tcu_event_keep(SBT_CM_K_cuEventRecord, id, mode, e, s, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuEventRecordWithFlags(tcu_fn id, CUevent e, CUstream s, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuEventRecordWithFlags real =
	    (tcu_pfn_cuEventRecordWithFlags)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(e, s, flags);
	if (mode == TCU_MODE_RECORD) {
		uint64_t seq = tcu_stream_record(SBT_CM_K_cuEventRecordWithFlags, id, r, s, e, flags);
		if (r == CUDA_SUCCESS)
			tcu_event_note(TCU_H(e), TCU_H(s), seq);
	}
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && tcu_windowed())
		tcu_event_keep(SBT_CM_K_cuEventRecordWithFlags, id, mode, e, s, flags);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuEventSynchronize(tcu_fn id, CUevent e)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuEventSynchronize real = (tcu_pfn_cuEventSynchronize)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(e);
	if (mode == TCU_MODE_RECORD) {
		tcu_stream_record(SBT_CM_K_cuEventSynchronize, id, r, NULL, e, 0);
		if (r == CUDA_SUCCESS)
			tcu_pending_flush_event(TCU_H(e));
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuEventQuery(tcu_fn id, CUevent e)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuEventQuery real = (tcu_pfn_cuEventQuery)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(e);
	if (mode == TCU_MODE_RECORD) {
		tcu_stream_record(SBT_CM_K_cuEventQuery, id, r, NULL, e, 0);
		if (r == CUDA_SUCCESS)
			tcu_pending_flush_event(TCU_H(e));
	}
out:
	tcu_call_end();
	return r;
}
