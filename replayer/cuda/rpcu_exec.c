/*
 * rpcu_exec.c - replay of contexts and devices, modules and libraries,
 * kernel launches, streams and events, and the table of calls (at the end)
 * that names, for every kind of record, the function that replays it and
 * whether a keyframe restore replays it.  Each call has its own function,
 * rpcu_do_<call>, or shares one with calls that differ only in an entry
 * point or a flag; those of memory records live in rpcu_place.c,
 * rpcu_copy.c and rpcu_snapshot.c.
 *
 * Captured handles are only keys: every record names the live object
 * through the rpcu_objs table, and a handle the trace never created is an
 * error naming the record.  Launch parameters are the captured bytes, with
 * pointer-valued parameters rewritten when what they point into lives at
 * another address in the replay (rpcu_ranges_patch_params).
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of a name field (owned by the caller). */
static char *rpcu_name_dup(const sbt_cm_call *c)
{
	char *n = malloc(c->name_len + 1);
	if (n) {
		if (c->name_len)
			memcpy(n, c->name, c->name_len);
		n[c->name_len] = '\0';
	}
	return n;
}

/* The live device of a captured CUdevice (one from cuDeviceGet, or else
 * taken as an ordinal, which is what CUdevice values are). */
static rp_status rpcu_device(rpcu_state *s, int64_t cap, CUdevice *live, int *ordinal, rp_diag *diag)
{
	rpcu_obj *o = rpcu_objs_get(&s->objs, RPCU_O_DEVICE, (uint64_t)cap);
	CUresult r;
	int ord;
	if (o) {
		*live = (CUdevice)o->live;
		*ordinal = o->ordinal;
		return RP_OK;
	}
	ord = s->device_base + (int)cap;
	/* Present without --device: the flag's value is what is wrong. */
	if (cap >= 0 && cap < s->device_count && ord >= s->device_count)
		return rpcu_fail(s, diag, RP_ERR_USAGE, "--device %d: the capture's device %lld would be "
		                 "ordinal %d, and the CUDA driver has %d devices", s->device_base,
		                 (long long)cap, ord, s->device_count);
	if (cap < 0 || ord >= s->device_count)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "device %lld is not among the %d devices here%s",
		                 (long long)cap, s->device_count, s->device_base ? " (after --device)" : "");
	r = s->drv.p_cuDeviceGet(live, ord);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuDeviceGet", r, NULL);
	*ordinal = ord;
	return RP_OK;
}

static rp_status rpcu_blob(rpcu_state *s, uint64_t id, void **data, size_t *len, rp_diag *diag)
{
	sbt_status sst;
	if (!id)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the trace holds no image for this module "
		                 "(the capture could not size or read it)");
	sst = sbt_reader_blob_get(s->trace, id, data, len);
	if (sst != SBT_OK)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "blob %llu: %s", (unsigned long long)id,
		                 sbt_strerror(sst));
	return RP_OK;
}

/*
 * A module image as the program handed it to the driver.  Capture unwraps
 * cudart's fatbin wrapper and stores the fatbin; a version 2 wrapper (-rdc
 * builds) also names prelinked fatbins, stored as c->prelinked, and is
 * rebuilt here around the fatbin and a NULL-terminated list of them
 * (sbt_compute.h), so the driver links what it linked at capture.
 * rpcu_image_free releases it.
 */
typedef struct rpcu_image {
	void *img;        /* the stored image (owned) */
	size_t len;
	void **pre;       /* prelinked fatbins, NULL-terminated (owned) */
	uint8_t wrapper[SBT_CM_FATBIN_WRAPPER_BYTES];
	const void *pass; /* what the driver is given */
} rpcu_image;

static void rpcu_image_free(rpcu_image *im)
{
	for (size_t i = 0; im->pre && im->pre[i]; i++)
		free(im->pre[i]);
	free(im->pre);
	free(im->img);
	memset(im, 0, sizeof(*im));
}

static rp_status rpcu_image_get(rpcu_state *s, const sbt_cm_call *c, rpcu_image *im, rp_diag *diag)
{
	size_t n = c->prelinked_len / 8, plen;
	uint64_t fat, list;
	rp_status st;
	memset(im, 0, sizeof(*im));
	if ((st = rpcu_blob(s, c->blob, &im->img, &im->len, diag)) != RP_OK)
		return st;
	im->pass = im->img;
	if (c->value != 2 || !n)
		return RP_OK;
	if (c->prelinked_len % 8 || n > 4096) {
		rpcu_image_free(im);
		return rpcu_fail(s, diag, RP_ERR_DECODE, "the prelinked fatbin list is %zu bytes long",
		                 c->prelinked_len);
	}
	im->pre = calloc(n + 1, sizeof(*im->pre));
	if (!im->pre) {
		rpcu_image_free(im);
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, c->prelinked + i * 8, 8);
		if ((st = rpcu_blob(s, id, &im->pre[i], &plen, diag)) != RP_OK) {
			rpcu_image_free(im);
			return st;
		}
	}
	fat = (uint64_t)(uintptr_t)im->img;
	list = (uint64_t)(uintptr_t)im->pre;
	/* In this process's memory, for its driver: native layout. */
	{
		uint32_t magic = SBT_CM_FATBIN_WRAPPER_MAGIC, version = 2;
		memcpy(im->wrapper, &magic, 4);
		memcpy(im->wrapper + 4, &version, 4);
		memcpy(im->wrapper + 8, &fat, 8);
		memcpy(im->wrapper + 16, &list, 8);
	}
	im->pass = im->wrapper;
	return RP_OK;
}

static rpcu_obj *rpcu_obj_new(rpcu_state *s, rpcu_kind kind, uint64_t cap, uint64_t live, rp_diag *diag,
                              rp_status *st)
{
	rpcu_obj *o = rpcu_objs_put(&s->objs, kind, cap);
	if (!o) {
		*st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		return NULL;
	}
	o->live = live;
	o->ctx = s->cur_ctx;
	*st = RP_OK;
	return o;
}

static rp_status rpcu_lookup(rpcu_state *s, rpcu_kind kind, uint64_t cap, const char *what,
                             rpcu_obj **out, rp_diag *diag)
{
	*out = rpcu_objs_get(&s->objs, kind, cap);
	if (!*out)
		return rpcu_unknown(s, diag, kind, cap, what);
	return RP_OK;
}

/* The object goes (destroyed, or with its module, library or context): a
 * later record naming it is told so (rpcu_unknown). */
static void rpcu_obj_drop(rpcu_state *s, rpcu_obj *o)
{
	rpcu_gone_note(s, (rpcu_kind)o->kind, o->cap);
	rpcu_objs_del(&s->objs, o);
}

/* What was looked up in a module or library that goes: its functions,
 * kernels and modules, and theirs.  No driver call: they go with it. */
static void rpcu_drop_children(rpcu_state *s, uint64_t parent, int depth)
{
	size_t i;
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		uint64_t cap;
		if (o->dead || o->parent != parent ||
		    (o->kind != RPCU_O_FUNCTION && o->kind != RPCU_O_KERNEL && o->kind != RPCU_O_MODULE))
			continue;
		cap = o->cap;
		rpcu_obj_drop(s, o);
		if (depth < 2)
			rpcu_drop_children(s, cap, depth + 1);
	}
}

/* ---- contexts --------------------------------------------------------------------- */

static rp_status rpcu_thread_push(rpcu_state *s, uint64_t ctx, rp_diag *diag)
{
	rpcu_thread *t = rpcu_thread_get(s, s->tid);
	if (!t)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (t->depth == RPCU_CTX_DEPTH)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "more than %d contexts pushed on thread %llu",
		                 RPCU_CTX_DEPTH, (unsigned long long)s->tid);
	t->stack[t->depth++] = ctx;
	return RP_OK;
}

/* The context is gone: no thread has it current any more. */
static void rpcu_ctx_forget(rpcu_state *s, uint64_t cap)
{
	size_t i;
	for (i = 0; i < s->nthreads; i++) {
		rpcu_thread *t = &s->threads[i];
		unsigned k, j = 0;
		for (k = 0; k < t->depth; k++)
			if (t->stack[k] != cap)
				t->stack[j++] = t->stack[k];
		t->depth = j;
		for (k = 0; k < 4; k++)
			if (t->pt_stream[k] && t->pt_ctx[k] == cap) {
				t->pt_stream[k] = NULL; /* destroyed with its context */
				t->pt_ctx[k] = 0;
				t->pt_capturing[k] = 0;
			}
	}
	if (s->cur_ctx_cap == cap) {
		s->cur_ctx_cap = 0;
		s->cur_ctx = NULL;
	}
}

/* Everything made in live context ctx goes with it. */
static void rpcu_objs_forget_ctx(rpcu_state *s, CUcontext ctx)
{
	size_t i;
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_NONE || o->dead || o->ctx != ctx)
			continue;
		if (o->kind == RPCU_O_STREAM || o->kind == RPCU_O_EVENT || o->kind == RPCU_O_MODULE ||
		    o->kind == RPCU_O_FUNCTION)
			rpcu_obj_drop(s, o);
	}
}

static rp_status rpcu_do_cuDeviceGet(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	CUdevice dev;
	int ord;
	CUresult r;
	rpcu_obj *o;

	(void)k;
	if (c->value >= (uint64_t)s->device_count)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "device ordinal %llu is not among the %d here",
		                 (unsigned long long)c->value, s->device_count);
	ord = s->device_base + (int)c->value;
	if (ord >= s->device_count)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND,
		                 "device ordinal %d (%llu after --device %d) is not among the %d here", ord,
		                 (unsigned long long)c->value, s->device_base, s->device_count);
	r = s->drv.p_cuDeviceGet(&dev, ord);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuDeviceGet", r, NULL);
	o = rpcu_obj_new(s, RPCU_O_DEVICE, (uint64_t)c->device, (uint64_t)dev, diag, &st);
	if (o)
		o->ordinal = ord;
	return st;
}

static rp_status rpcu_do_cuCtxCreate(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	CUdevice dev;
	int ord;
	CUresult r;
	rpcu_obj *o;
	CUcontext ctx;

	(void)k;
	if ((st = RPCU_NEED(cuCtxCreate)) != RP_OK ||
	    (st = rpcu_device(s, c->device, &dev, &ord, diag)) != RP_OK)
		return st;
	r = s->drv.p_cuCtxCreate(&ctx, (unsigned)c->flags, dev);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxCreate", r, NULL);
	s->cur_ctx = ctx; /* cuCtxCreate makes it current */
	o = rpcu_obj_new(s, RPCU_O_CTX, c->ctx, (uint64_t)(uintptr_t)ctx, diag, &st);
	if (!o)
		return st;
	o->ordinal = ord;
	o->ctx = ctx;
	s->cur_ctx_cap = c->ctx;
	rpcu_windows_open(s, ord);
	return rpcu_thread_push(s, c->ctx, diag);
}

static rp_status rpcu_do_cuDevicePrimaryCtxRetain(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                                  rp_diag *diag)
{
	rp_status st = RP_OK;
	CUdevice dev;
	int ord;
	CUresult r;
	rpcu_obj *o;
	CUcontext ctx;

	(void)k;
	if ((st = RPCU_NEED(cuDevicePrimaryCtxRetain)) != RP_OK ||
	    (st = rpcu_device(s, c->device, &dev, &ord, diag)) != RP_OK)
		return st;
	r = s->drv.p_cuDevicePrimaryCtxRetain(&ctx, dev);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuDevicePrimaryCtxRetain", r, NULL);
	o = rpcu_objs_get(&s->objs, RPCU_O_CTX, c->ctx);
	if (!o || o->live != (uint64_t)(uintptr_t)ctx) {
		o = rpcu_obj_new(s, RPCU_O_CTX, c->ctx, (uint64_t)(uintptr_t)ctx, diag, &st);
		if (!o)
			return st;
	}
	o->primary = 1;
	o->ordinal = ord;
	o->ctx = ctx;
	o->retains++;
	return RP_OK;
}

/* cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxReset. */
static rp_status rpcu_do_cuDevicePrimaryCtxRelease(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                                   rp_diag *diag)
{
	rp_status st = RP_OK;
	CUdevice dev;
	int ord;
	CUresult r;
	rpcu_obj *o;
	size_t i;

	if ((st = rpcu_device(s, c->device, &dev, &ord, diag)) != RP_OK)
		return st;
	for (i = 0; i < s->objs.cap; i++) {
		o = &s->objs.slot[i];
		if (o->kind != RPCU_O_CTX || o->dead || !o->primary || o->ordinal != ord)
			continue;
		if (k == SBT_CM_K_cuDevicePrimaryCtxReset) {
			/* Everything of the primary context goes; the driver has no
			 * reset entry we ask for, so it is freed at teardown. */
			rpcu_stages_poll(s, 1);
			if ((st = rpcu_profile_ctx_ending(s, (CUcontext)(uintptr_t)o->live, diag)) != RP_OK)
				return st;
			rpcu_mem_forget_ctx(s, (CUcontext)(uintptr_t)o->live);
			rpcu_objs_forget_ctx(s, (CUcontext)(uintptr_t)o->live);
			return RP_OK;
		}
		if (!o->retains)
			break;
		if ((st = RPCU_NEED(cuDevicePrimaryCtxRelease)) != RP_OK)
			return st;
		if (o->retains == 1 &&
		    (st = rpcu_profile_ctx_ending(s, (CUcontext)(uintptr_t)o->live, diag)) != RP_OK)
			return st;
		r = s->drv.p_cuDevicePrimaryCtxRelease(dev);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuDevicePrimaryCtxRelease", r, NULL);
		o->retains--;
		return RP_OK;
	}
	if (k == SBT_CM_K_cuDevicePrimaryCtxReset)
		return RP_OK;
	return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "the trace never retained the primary context of "
	                 "device %lld", (long long)c->device);
}

static rp_status rpcu_do_cuCtxDestroy(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *o;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_CTX, c->ctx, "context", &o, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuCtxDestroy)) != RP_OK)
		return st;
	if (o->primary)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "cuCtxDestroy of the primary context 0x%llx",
		                 (unsigned long long)c->ctx);
	rpcu_stages_poll(s, 1);
	if ((st = rpcu_profile_ctx_ending(s, (CUcontext)(uintptr_t)o->live, diag)) != RP_OK)
		return st;
	rpcu_mem_forget_ctx(s, (CUcontext)(uintptr_t)o->live);
	rpcu_objs_forget_ctx(s, (CUcontext)(uintptr_t)o->live);
	r = s->drv.p_cuCtxDestroy((CUcontext)(uintptr_t)o->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxDestroy", r, NULL);
	rpcu_ctx_forget(s, c->ctx);
	rpcu_obj_drop(s, o);
	return RP_OK;
}

static rp_status rpcu_do_cuCtxSetCurrent(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                         rp_diag *diag)
{
	rp_status st = RP_OK;
	rpcu_thread *t;

	(void)k;
	t = rpcu_thread_get(s, s->tid);
	if (!t)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (!c->ctx) {
		if (t->depth)
			t->depth--;
		return RP_OK;
	}
	if (t->depth)
		t->stack[t->depth - 1] = c->ctx;
	else if ((st = rpcu_thread_push(s, c->ctx, diag)) != RP_OK)
		return st;
	return rpcu_ctx_use(s, c->ctx, diag);
}

static rp_status rpcu_do_cuCtxPushCurrent(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                          rp_diag *diag)
{
	rp_status st = RP_OK;

	(void)k;
	if ((st = rpcu_thread_push(s, c->ctx, diag)) != RP_OK)
		return st;
	return rpcu_ctx_use(s, c->ctx, diag);
}

static rp_status rpcu_do_cuCtxPopCurrent(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                         rp_diag *diag)
{
	rpcu_thread *t;

	(void)k;
	(void)c;
	(void)diag;
	t = rpcu_thread_get(s, s->tid);
	if (t && t->depth)
		t->depth--;
	return RP_OK;
}

static rp_status rpcu_do_cuCtxSynchronize(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                          rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;

	(void)k;
	/* CUDA 13's cuCtxSynchronize_v2(ctx): that context, made current
	 * for the call (the same on every driver). */
	uint64_t was = s->cur_ctx_cap;
	if (c->ctx && c->ctx != was && (st = rpcu_ctx_use(s, c->ctx, diag)) != RP_OK)
		return st;
	r = s->drv.p_cuCtxSynchronize();
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxSynchronize", r, NULL);
	if (c->ctx && c->ctx != was && was)
		return rpcu_ctx_use(s, was, diag);
	return RP_OK;
}

/* ---- modules and libraries ----------------------------------------------------------- */

#define RPCU_MAX_JIT 32

/* The JIT options of a load whose value is a plain value (a register
 * count, an optimization level, a target...), in the driver's arrays; the
 * ones whose value is a pointer into the capturing process (log buffers
 * and their sizes, symbol tables, wall time out) are dropped. */
static unsigned rpcu_jit_options(const sbt_cm_call *c, CUjit_option *opts, void **vals)
{
	size_t n = c->jit_len / SBT_CM_JIT_BYTES, i;
	unsigned out = 0;
	for (i = 0; i < n && out < RPCU_MAX_JIT; i++) {
		const uint8_t *e = c->jit + i * SBT_CM_JIT_BYTES;
		uint32_t id = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
		uint64_t v = 0;
		int b;
		for (b = 7; b >= 0; b--)
			v = v << 8 | e[8 + b];
		switch (id) {
		case CU_JIT_MAX_REGISTERS: case CU_JIT_THREADS_PER_BLOCK: case CU_JIT_OPTIMIZATION_LEVEL:
		case CU_JIT_TARGET_FROM_CUCONTEXT: case CU_JIT_TARGET: case CU_JIT_FALLBACK_STRATEGY:
		case CU_JIT_GENERATE_DEBUG_INFO: case CU_JIT_LOG_VERBOSE: case CU_JIT_GENERATE_LINE_INFO:
		case CU_JIT_CACHE_MODE: case CU_JIT_POSITION_INDEPENDENT_CODE: case CU_JIT_MIN_CTA_PER_SM:
		case CU_JIT_MAX_THREADS_PER_BLOCK: case CU_JIT_OVERRIDE_DIRECTIVE_VALUES:
			opts[out] = (CUjit_option)id;
			vals[out] = (void *)(uintptr_t)v;
			out++;
			break;
		default:
			break;
		}
	}
	return out;
}

/* A load the driver refused; for an image built for another GPU, both
 * architectures. */
static rp_status rpcu_load_fail(rpcu_state *s, rp_diag *diag, const char *fn, CUresult r,
                                const void *img, size_t len)
{
	char archs[96], err[96];
	int major = 0, minor = 0;
	CUdevice dev;
	if (r != CUDA_ERROR_NO_BINARY_FOR_GPU)
		return rpcu_cufail(s, diag, fn, r, "loading the image from the trace");
	if (!rpcu_image_arch(img, len, archs, sizeof(archs)))
		snprintf(archs, sizeof(archs), "an architecture this replay cannot read from it");
	if (s->drv.p_cuDeviceGetAttribute && s->drv.p_cuDeviceGet(&dev, rpcu_current_ordinal(s)) == CUDA_SUCCESS) {
		s->drv.p_cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		s->drv.p_cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	}
	if (major)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "%s failed with %s: the image is built for %s, and "
		                 "device %d is sm_%d%d; replay on a GPU of the capture's architecture", fn,
		                 rpcu_cu_name(&s->drv, r, err, sizeof(err)), archs, rpcu_current_ordinal(s), major,
		                 minor);
	return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "%s failed with %s: the image is built for %s, which "
	                 "device %d (architecture unknown) cannot run", fn,
	                 rpcu_cu_name(&s->drv, r, err, sizeof(err)), archs, rpcu_current_ordinal(s));
}

/* cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx, cuModuleLoadFatBinary. */
static rp_status rpcu_do_cuModuleLoad(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_image im;
	CUmodule m;
	CUjit_option opts[RPCU_MAX_JIT];
	void *vals[RPCU_MAX_JIT];

	unsigned nopts = rpcu_jit_options(c, opts, vals);
	int fat = k == SBT_CM_K_cuModuleLoadFatBinary, ex = !fat && nopts && s->drv.p_cuModuleLoadDataEx;
	const char *fn = fat ? "cuModuleLoadFatBinary" : ex ? "cuModuleLoadDataEx" : "cuModuleLoadData";
	if ((st = fat ? RPCU_NEED(cuModuleLoadFatBinary) : RPCU_NEED(cuModuleLoadData)) != RP_OK ||
	    (st = rpcu_image_get(s, c, &im, diag)) != RP_OK)
		return st;
	r = fat ? s->drv.p_cuModuleLoadFatBinary(&m, im.pass)
	    : ex ? s->drv.p_cuModuleLoadDataEx(&m, im.pass, nopts, opts, vals)
	         : s->drv.p_cuModuleLoadData(&m, im.pass);
	if (r != CUDA_SUCCESS) {
		st = rpcu_load_fail(s, diag, fn, r, im.img, im.len);
		rpcu_image_free(&im);
		return st;
	}
	rpcu_image_free(&im);
	rpcu_obj_new(s, RPCU_O_MODULE, c->handle, (uint64_t)(uintptr_t)m, diag, &st);
	return st;
}

/* cuLibraryLoadData, cuLibraryLoadFromFile. */
static rp_status rpcu_do_cuLibraryLoadData(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                           rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_image im;
	CUlibrary l;
	CUjit_option opts[RPCU_MAX_JIT];
	void *vals[RPCU_MAX_JIT];

	(void)k;
	unsigned nopts = rpcu_jit_options(c, opts, vals);
	if ((st = RPCU_NEED(cuLibraryLoadData)) != RP_OK ||
	    (st = rpcu_image_get(s, c, &im, diag)) != RP_OK)
		return st;
	r = s->drv.p_cuLibraryLoadData(&l, im.pass, nopts ? opts : NULL, nopts ? vals : NULL, nopts,
	                               NULL, NULL, 0);
	if (r != CUDA_SUCCESS) {
		st = rpcu_load_fail(s, diag, "cuLibraryLoadData", r, im.img, im.len);
		rpcu_image_free(&im);
		return st;
	}
	rpcu_image_free(&im);
	rpcu_obj_new(s, RPCU_O_LIBRARY, c->handle, (uint64_t)(uintptr_t)l, diag, &st);
	return st;
}

static rp_status rpcu_do_cuModuleUnload(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                        rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *o;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_MODULE, c->handle, "module", &o, diag)) != RP_OK)
		return st;
	/* Launches of its functions may still run (an unload moved ahead of
	 * its last launches' wait): wait, as a careful application would. */
	rpcu_wait_work(s, o->ctx);
	rpcu_stages_poll(s, 1);
	rpcu_mem_forget_owner(s, c->handle);
	if (!o->parent && s->drv.p_cuModuleUnload) {
		r = s->drv.p_cuModuleUnload((CUmodule)(uintptr_t)o->live);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuModuleUnload", r, NULL);
	}
	rpcu_obj_drop(s, o);
	rpcu_drop_children(s, c->handle, 0);
	return RP_OK;
}

static rp_status rpcu_do_cuLibraryUnload(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                         rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *o;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_LIBRARY, c->handle, "library", &o, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuLibraryUnload)) != RP_OK)
		return st;
	rpcu_wait_work(s, o->ctx);
	rpcu_stages_poll(s, 1);
	rpcu_mem_forget_owner(s, c->handle);
	r = s->drv.p_cuLibraryUnload((CUlibrary)(uintptr_t)o->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuLibraryUnload", r, NULL);
	rpcu_obj_drop(s, o);
	rpcu_drop_children(s, c->handle, 0);
	return RP_OK;
}

/* A function or kernel looked up by name: its object keeps the name (owned,
 * freed here on failure) and the module or library it came from. */
static rp_status rpcu_named_obj(rpcu_state *s, rpcu_kind kind, const sbt_cm_call *c, uint64_t live,
                                char *name, rp_diag *diag)
{
	rp_status st;
	rpcu_obj *o = rpcu_obj_new(s, kind, c->handle, live, diag, &st);
	if (!o) {
		free(name);
		return st;
	}
	o->name = name;
	o->parent = c->parent;
	return RP_OK;
}

static rp_status rpcu_do_cuModuleGetFunction(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                             rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *p;
	char *name = NULL;
	CUfunction f;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_MODULE, c->parent, "module", &p, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuModuleGetFunction)) != RP_OK)
		return st;
	if (!(name = rpcu_name_dup(c)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	r = s->drv.p_cuModuleGetFunction(&f, (CUmodule)(uintptr_t)p->live, name);
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, "cuModuleGetFunction", r, name);
		free(name);
		return st;
	}
	return rpcu_named_obj(s, RPCU_O_FUNCTION, c, (uint64_t)(uintptr_t)f, name, diag);
}

static rp_status rpcu_do_cuLibraryGetKernel(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                            rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *p;
	char *name = NULL;
	CUkernel kern;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_LIBRARY, c->parent, "library", &p, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuLibraryGetKernel)) != RP_OK)
		return st;
	if (!(name = rpcu_name_dup(c)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	r = s->drv.p_cuLibraryGetKernel(&kern, (CUlibrary)(uintptr_t)p->live, name);
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, "cuLibraryGetKernel", r, name);
		free(name);
		return st;
	}
	return rpcu_named_obj(s, RPCU_O_KERNEL, c, (uint64_t)(uintptr_t)kern, name, diag);
}

static rp_status rpcu_do_cuLibraryGetModule(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                            rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *o, *p;
	CUmodule m;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_LIBRARY, c->parent, "library", &p, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuLibraryGetModule)) != RP_OK)
		return st;
	r = s->drv.p_cuLibraryGetModule(&m, (CUlibrary)(uintptr_t)p->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuLibraryGetModule", r, NULL);
	o = rpcu_obj_new(s, RPCU_O_MODULE, c->handle, (uint64_t)(uintptr_t)m, diag, &st);
	if (o)
		o->parent = c->parent; /* the library's: never unloaded on its own */
	return st;
}

static rp_status rpcu_do_cuKernelGetFunction(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                             rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *p;
	char *name = NULL;
	CUfunction f;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_KERNEL, c->parent, "kernel", &p, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuKernelGetFunction)) != RP_OK)
		return st;
	r = s->drv.p_cuKernelGetFunction(&f, (CUkernel)(uintptr_t)p->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuKernelGetFunction", r, NULL);
	name = p->name ? strdup(p->name) : NULL;
	return rpcu_named_obj(s, RPCU_O_FUNCTION, c, (uint64_t)(uintptr_t)f, name, diag);
}

/* cuModuleGetGlobal, cuLibraryGetGlobal. */
static rp_status rpcu_do_cuModuleGetGlobal(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                           rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	rpcu_obj *p;
	char *name = NULL;
	CUdeviceptr d = 0;
	size_t bytes = 0;
	rpcu_range g;
	int lib = k == SBT_CM_K_cuLibraryGetGlobal;

	if ((st = rpcu_lookup(s, lib ? RPCU_O_LIBRARY : RPCU_O_MODULE, c->parent,
	                      lib ? "library" : "module", &p, diag)) != RP_OK ||
	    (st = lib ? RPCU_NEED(cuLibraryGetGlobal) : RPCU_NEED(cuModuleGetGlobal)) != RP_OK)
		return st;
	if (!(name = rpcu_name_dup(c)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	r = lib ? s->drv.p_cuLibraryGetGlobal(&d, &bytes, (CUlibrary)(uintptr_t)p->live, name)
	        : s->drv.p_cuModuleGetGlobal(&d, &bytes, (CUmodule)(uintptr_t)p->live, name);
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, lib ? "cuLibraryGetGlobal" : "cuModuleGetGlobal", r, name);
		free(name);
		return st;
	}
	if (c->size && bytes != c->size) {
		st = rpcu_fail(s, diag, RP_ERR_BACKEND, "global '%s' has %zu bytes here, %llu at capture",
		               name, bytes, (unsigned long long)c->size);
		free(name);
		return st;
	}
	free(name);
	if (!c->dst || !bytes)
		return RP_OK;
	memset(&g, 0, sizeof(g));
	g.cap = c->dst;
	g.size = bytes;
	g.live = (uint64_t)d;
	g.kind = RPCU_R_GLOBAL;
	g.sub = SBT_CM_MEM_GLOBAL;
	g.owner = c->parent;
	return rpcu_mem_add_range(s, &g, diag);
}

/* ---- streams and events ----------------------------------------------------------------- */

/* The capture flag of a stream handle of the current record. */
static rp_status rpcu_set_capturing(rpcu_state *s, uint64_t cap, int on, rp_diag *diag)
{
	if ((cap == 0 && s->ptds) || cap == (uint64_t)(uintptr_t)CU_STREAM_PER_THREAD) {
		rpcu_thread *t = rpcu_thread_get(s, s->tid);
		CUstream live;
		unsigned i;
		rp_status st = rpcu_stream_resolve(s, cap, &live, NULL, diag);
		if (st != RP_OK)
			return st;
		for (i = 0; t && i < 4; i++)
			if (t->pt_stream[i] && t->pt_ctx[i] == s->cur_ctx_cap)
				t->pt_capturing[i] = (uint8_t)on;
		return RP_OK;
	}
	if (cap == 0 || cap == (uint64_t)(uintptr_t)CU_STREAM_LEGACY)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "stream capture on the legacy default stream");
	{
		rpcu_obj *o;
		rp_status st = rpcu_lookup(s, RPCU_O_STREAM, cap, "stream", &o, diag);
		if (st == RP_OK)
			o->capturing = (uint8_t)on;
		return st;
	}
}

int rpcu_capture_skip(const rpcu_state *s, const sbt_cm_call *c, int capturing)
{
	return (c->capture_status || capturing) && !s->capturing;
}

/* cuStreamBeginCapture: a capture on the live stream, so the work recorded
 * with capture_status goes into a graph of the replay's own.  The replay
 * captures in relaxed mode whatever mode was recorded: the program's own
 * calls passed its mode at capture, but the replay's placements (cuMemCreate
 * and cuMemMap for an allocation the program made in relaxed mode, as
 * PyTorch's allocator does inside torch.cuda.graph) are refused in global
 * mode (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED on the H100).  With
 * --streams single (no stream to capture on) the work is skipped as it
 * did not run, and a launch of the graph is refused. */
rp_status rpcu_capture_begin_plain(rpcu_state *s, CUstream live, rp_diag *diag)
{
	CUresult r;
	rp_status st = RPCU_NEED(cuStreamBeginCapture);
	if (st != RP_OK)
		return st;
	r = s->drv.p_cuStreamBeginCapture(live, CU_STREAM_CAPTURE_MODE_RELAXED);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuStreamBeginCapture", r, NULL);
	s->capturing++;
	return RP_OK;
}

static rp_status rpcu_capture_begin(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	(void)k;
	CUstream live;
	rp_status st = rpcu_set_capturing(s, c->stream, 1, diag);
	if (st != RP_OK)
		return st;
	if (s->single_stream)
		return c->parent ? rpcu_graph_capture_single(s, c, diag) : RP_OK;
	if ((st = rpcu_stream_resolve(s, c->stream, &live, NULL, diag)) != RP_OK)
		return st;
	if (c->parent)
		return rpcu_graph_capture_to(s, c, live, diag);
	return rpcu_capture_begin_plain(s, live, diag);
}

static rp_status rpcu_capture_end(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	(void)k;
	rpcu_obj *known;
	CUstream live;
	CUgraph g = NULL;
	CUresult r;
	rp_status st = rpcu_set_capturing(s, c->stream, 0, diag);
	if (st != RP_OK || s->single_stream || !s->capturing)
		return st;
	if ((st = rpcu_stream_resolve(s, c->stream, &live, NULL, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuStreamEndCapture)) != RP_OK)
		return st;
	s->capturing--;
	r = s->drv.p_cuStreamEndCapture(live, &g);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuStreamEndCapture", r, NULL);
	if (c->handle && (known = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, c->handle)) != NULL) {
		/* a capture into a graph of the trace (cuStreamBeginCaptureToGraph):
		 * the driver hands that graph back; one marked was captured into a
		 * graph of its own, which no record names */
		if (g && (uint64_t)(uintptr_t)g != known->live && s->drv.p_cuGraphDestroy)
			s->drv.p_cuGraphDestroy(g);
	} else if (c->handle)
		rpcu_obj_new(s, RPCU_O_GRAPH, c->handle, (uint64_t)(uintptr_t)g, diag, &st);
	else if (g && s->drv.p_cuGraphDestroy)
		s->drv.p_cuGraphDestroy(g); /* no record can name it */
	return st;
}

void rpcu_capture_abandon(rpcu_state *s, const sbt_cm_call *c)
{
	rp_diag ignored;
	CUstream live;
	CUgraph g = NULL;
	if (rpcu_set_capturing(s, c->stream, 0, &ignored) != RP_OK || s->single_stream || !s->capturing ||
	    !s->drv.p_cuStreamEndCapture || rpcu_stream_resolve(s, c->stream, &live, NULL, &ignored) != RP_OK)
		return;
	s->capturing--;
	if (s->drv.p_cuStreamEndCapture(live, &g) == CUDA_SUCCESS && g && s->drv.p_cuGraphDestroy)
		s->drv.p_cuGraphDestroy(g);
}

static rp_status rpcu_do_cuStreamCreate(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                        rp_diag *diag)
{
	rp_status st = RP_OK;
	CUstream made = NULL;
	CUresult r;

	if (!s->single_stream) {
		if (k == SBT_CM_K_cuStreamCreate) {
			if ((st = RPCU_NEED(cuStreamCreate)) != RP_OK)
				return st;
			r = s->drv.p_cuStreamCreate(&made, (unsigned)c->flags);
		} else {
			if ((st = RPCU_NEED(cuStreamCreateWithPriority)) != RP_OK)
				return st;
			r = s->drv.p_cuStreamCreateWithPriority(&made, (unsigned)c->flags, (int)c->priority);
		}
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, k == SBT_CM_K_cuStreamCreate ? "cuStreamCreate"
			                                                          : "cuStreamCreateWithPriority",
			                   r, NULL);
	}
	rpcu_obj_new(s, RPCU_O_STREAM, c->handle, (uint64_t)(uintptr_t)made, diag, &st);
	return st;
}

static rp_status rpcu_do_cuStreamDestroy(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                         rp_diag *diag)
{
	rp_status st;
	rpcu_obj *o;
	CUresult r;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_STREAM, c->stream, "stream", &o, diag)) != RP_OK)
		return st;
	if (o->live && s->drv.p_cuStreamDestroy) {
		r = s->drv.p_cuStreamDestroy((CUstream)(uintptr_t)o->live);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuStreamDestroy", r, NULL);
	}
	rpcu_obj_drop(s, o);
	return RP_OK;
}

/* cuStreamSynchronize, and cuStreamQuery: only successful queries reach
 * here, so the work was done. */
static rp_status rpcu_do_cuStreamSynchronize(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                             rp_diag *diag)
{
	rp_status st;
	CUstream live;
	int capturing;
	CUresult r;

	(void)k;
	if ((st = rpcu_stream_resolve(s, c->stream, &live, &capturing, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuStreamSynchronize)) != RP_OK)
		return st;
	r = s->drv.p_cuStreamSynchronize(live);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuStreamSynchronize", r, NULL);
}

static rp_status rpcu_do_cuStreamWaitEvent(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                           rp_diag *diag)
{
	rp_status st;
	CUstream live;
	int capturing;
	rpcu_obj *e;
	CUresult r;

	(void)k;
	if ((st = rpcu_stream_resolve(s, c->stream, &live, &capturing, diag)) != RP_OK ||
	    (st = rpcu_lookup(s, RPCU_O_EVENT, c->event, "event", &e, diag)) != RP_OK)
		return st;
	if (s->single_stream || rpcu_capture_skip(s, c, capturing))
		return RP_OK; /* one stream: already in order; capturing: a graph edge */
	if ((st = RPCU_NEED(cuStreamWaitEvent)) != RP_OK)
		return st;
	r = s->drv.p_cuStreamWaitEvent(live, (CUevent)(uintptr_t)e->live, (unsigned)c->flags);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuStreamWaitEvent", r, NULL);
}

static rp_status rpcu_do_cuEventCreate(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	CUevent ev;
	CUresult r;

	(void)k;
	if ((st = RPCU_NEED(cuEventCreate)) != RP_OK)
		return st;
	r = s->drv.p_cuEventCreate(&ev, (unsigned)c->flags);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuEventCreate", r, NULL);
	rpcu_obj_new(s, RPCU_O_EVENT, c->event, (uint64_t)(uintptr_t)ev, diag, &st);
	return st;
}

static rp_status rpcu_do_cuEventDestroy(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                        rp_diag *diag)
{
	rp_status st;
	rpcu_obj *e;
	CUresult r;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_EVENT, c->event, "event", &e, diag)) != RP_OK)
		return st;
	if (s->drv.p_cuEventDestroy) {
		r = s->drv.p_cuEventDestroy((CUevent)(uintptr_t)e->live);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuEventDestroy", r, NULL);
	}
	rpcu_obj_drop(s, e);
	return RP_OK;
}

/* cuEventRecord and cuEventRecordWithFlags. */
static rp_status rpcu_do_cuEventRecord(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st;
	CUstream live;
	int capturing;
	rpcu_obj *e;
	CUresult r;

	if ((st = rpcu_stream_resolve(s, c->stream, &live, &capturing, diag)) != RP_OK ||
	    (st = rpcu_lookup(s, RPCU_O_EVENT, c->event, "event", &e, diag)) != RP_OK)
		return st;
	if (rpcu_capture_skip(s, c, capturing))
		return RP_OK;
	if (k == SBT_CM_K_cuEventRecordWithFlags && c->flags) {
		if ((st = RPCU_NEED(cuEventRecordWithFlags)) != RP_OK)
			return st;
		r = s->drv.p_cuEventRecordWithFlags((CUevent)(uintptr_t)e->live, live, (unsigned)c->flags);
	} else {
		if ((st = RPCU_NEED(cuEventRecord)) != RP_OK)
			return st;
		r = s->drv.p_cuEventRecord((CUevent)(uintptr_t)e->live, live);
	}
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuEventRecord", r, NULL);
}

/* cuEventSynchronize, and cuEventQuery: successful, so the program saw the
 * event complete. */
static rp_status rpcu_do_cuEventSynchronize(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                            rp_diag *diag)
{
	rp_status st;
	rpcu_obj *e;
	CUresult r;

	(void)k;
	if ((st = rpcu_lookup(s, RPCU_O_EVENT, c->event, "event", &e, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuEventSynchronize)) != RP_OK)
		return st;
	r = s->drv.p_cuEventSynchronize((CUevent)(uintptr_t)e->live);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuEventSynchronize", r, NULL);
}

/* ---- graphs, host functions, attributes ----------------------------------------------------- */

/* Graphs the trace built were rebuilt: by the replay's own stream capture
 * (rpcu_capture_begin/end) or node by node (rpcu_graph.c); one built
 * before recording began has no record to rebuild it from. */
static rp_status rpcu_do_cuGraphInstantiate(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                            rp_diag *diag)
{
	rp_status st = RP_OK;
	rpcu_obj *o, *g;
	CUgraphExec e;
	CUresult r;

	(void)k;
	g = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, c->parent);
	if (!g)
		return RP_OK; /* not built in the trace: its launch says so */
	if (g->name || !g->live) {
		/* a node replay does not model: the exec is not made, its launch
		 * names the node's call */
		o = rpcu_obj_new(s, RPCU_O_GRAPHEXEC, c->handle, 0, diag, &st);
		if (o && !(o->name = strdup(g->name ? g->name : "a call not recorded")))
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		if (o)
			o->refused = g->refused;
		return st;
	}
	if ((st = RPCU_NEED(cuGraphInstantiateWithFlags)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphInstantiateWithFlags(&e, (CUgraph)(uintptr_t)g->live, c->flags);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphInstantiateWithFlags", r, NULL);
	o = rpcu_obj_new(s, RPCU_O_GRAPHEXEC, c->handle, (uint64_t)(uintptr_t)e, diag, &st);
	if (o)
		o->parent = c->parent;
	return st;
}

static rp_status rpcu_do_cuGraphLaunch(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	char name[48];
	rp_status st;
	CUstream live;
	rpcu_obj *o;
	CUresult r;

	(void)k;
	o = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->handle);
	if (!o && s->single_stream)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "graphs are not rebuilt with --streams "
		                 "single (stream capture needs a stream); replay with --streams multi");
	if (o && o->refused)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "graph exec 0x%llx cannot be replayed: %s; replay a "
		                 "--range that ends before seq %llu", (unsigned long long)c->handle, o->name,
		                 (unsigned long long)s->seq);
	if (o && (!o->live || o->name))
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "graph exec 0x%llx cannot be replayed: it or its "
		                 "graph was changed by %s, which replay does not model; replay a --range that "
		                 "ends before seq %llu", (unsigned long long)c->handle,
		                 o->name ? o->name : "a call", (unsigned long long)s->seq);
	if (o && s->graphs_refused)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "graph exec 0x%llx cannot be replayed: %s; "
		                 "replay a --range that ends before seq %llu", (unsigned long long)c->handle,
		                 s->graphs_refused, (unsigned long long)s->seq);
	if (!o)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "graph exec 0x%llx was not built from the "
		                 "trace: neither its graph's construction (stream capture, or cuGraphCreate "
		                 "and its nodes) nor its instantiation is there (made before recording "
		                 "began?), so it cannot be replayed; replay a --range that ends before seq %llu", (unsigned long long)c->handle,
		                 (unsigned long long)s->seq);
	if ((st = rpcu_stream_resolve(s, c->stream, &live, NULL, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuGraphLaunch)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphLaunch((CUgraphExec)(uintptr_t)o->live, live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphLaunch", r, NULL);
	snprintf(name, sizeof(name), "graph exec 0x%llx", (unsigned long long)c->handle);
	rpcu_not_run_check(s, name);
	return RP_OK;
}

static rp_status rpcu_do_cuGraphExecDestroy(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                            rp_diag *diag)
{
	rpcu_obj *o = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->handle);

	(void)k;
	(void)diag;
	if (o && o->live && s->drv.p_cuGraphExecDestroy)
		s->drv.p_cuGraphExecDestroy((CUgraphExec)(uintptr_t)o->live);
	if (o)
		rpcu_objs_del(&s->objs, o);
	return RP_OK;
}

static rp_status rpcu_do_cuGraphDestroy(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                        rp_diag *diag)
{
	rpcu_obj *o = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, c->handle);

	(void)k;
	(void)diag;
	if (o && o->live && s->drv.p_cuGraphDestroy && !o->embedded)
		s->drv.p_cuGraphDestroy((CUgraph)(uintptr_t)o->live);
	if (o)
		rpcu_objs_del(&s->objs, o);
	/* its graph memory's mappings (the driver frees that memory with it) */
	for (size_t i = s->ranges.n; o && i-- > 0;)
		if (s->ranges.v[i].kind == RPCU_R_GRAPH && s->ranges.v[i].owner == c->handle)
			rpcu_ranges_remove(&s->ranges, i);
	/* its nodes (a graph built node by node) and the graphs embedded in
	 * its child graph nodes go with it */
	for (size_t i = 0; o && i < s->objs.cap; i++) {
		rpcu_obj *n = &s->objs.slot[i];
		if (!n->dead && (n->kind == RPCU_O_GRAPHNODE || (n->kind == RPCU_O_GRAPH && n->embedded)) &&
		    n->parent == c->handle)
			rpcu_objs_del(&s->objs, n);
	}
	return RP_OK;
}

static void CUDA_CB rpcu_host_func_noop(void *data)
{
	(void)data;
}

/* The program's host function is not run; an empty one keeps its place in
 * stream order (the work after it waits for the work before it). */
static rp_status rpcu_do_cuLaunchHostFunc(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                          rp_diag *diag)
{
	CUstream live;
	int capturing;
	rp_status st;
	CUresult r;
	(void)k;
	if (!s->warned_hostfn++ && !s->quiet)
		fprintf(stderr, "tsreplay: cuda: note: seq %llu: cuLaunchHostFunc: host functions are not "
		        "run on replay; each keeps its place in stream order\n", (unsigned long long)s->seq);
	if ((st = rpcu_stream_resolve(s, c->stream, &live, &capturing, diag)) != RP_OK ||
	    rpcu_capture_skip(s, c, capturing) || !s->drv.p_cuLaunchHostFunc)
		return st; /* without the entry point, stream order holds anyway */
	r = s->drv.p_cuLaunchHostFunc(live, rpcu_host_func_noop, NULL);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuLaunchHostFunc", r, NULL);
}

static rp_status rpcu_exec_set_attribute(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c,
                                         rp_diag *diag)
{
	const char *fn = k == SBT_CM_K_cuKernelSetAttribute ? "cuKernelSetAttribute" : "cuFuncSetAttribute";
	rpcu_obj *o;
	rp_status st;
	CUresult r;
	int have = k == SBT_CM_K_cuKernelSetAttribute ? s->drv.p_cuKernelSetAttribute != NULL
	                                              : s->drv.p_cuFuncSetAttribute != NULL;
	if (k == SBT_CM_K_cuKernelSetAttribute)
		st = rpcu_lookup(s, RPCU_O_KERNEL, c->handle, "kernel", &o, diag);
	else
		st = rpcu_lookup(s, RPCU_O_FUNCTION, c->handle, "function", &o, diag);
	if (st != RP_OK)
		return st;
	if (!have) {
		if (!s->warned_attr++)
			rpcu_warn(s, "seq %llu: the CUDA driver %s has no %s: kernel attributes are left at their "
			          "defaults", (unsigned long long)s->seq, s->drv.path, fn);
		return RP_OK;
	}
	if (k == SBT_CM_K_cuKernelSetAttribute) {
		CUdevice dev;
		int ord;
		if ((st = rpcu_device(s, c->device, &dev, &ord, diag)) != RP_OK)
			return st;
		r = s->drv.p_cuKernelSetAttribute((CUfunction_attribute)c->attr, (int)c->ivalue,
		                                  (CUkernel)(uintptr_t)o->live, dev);
	} else {
		r = s->drv.p_cuFuncSetAttribute((CUfunction)(uintptr_t)o->live, (CUfunction_attribute)c->attr,
		                                (int)c->ivalue);
	}
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, fn, r, NULL);
}

/* ---- launches ------------------------------------------------------------------------ */

_Static_assert(sizeof(CUlaunchAttribute) == SBT_CM_ATTR_BYTES,
               "a packed launch attribute is one CUlaunchAttribute");

rp_status rpcu_launch_attr(rpcu_state *s, const sbt_cm_call *c, size_t i, CUlaunchAttribute *out, rp_diag *diag)
{
	uint32_t id;
	const uint8_t *val;
	sbt_cm_attr_at(c, i, &id, &val);
	out->id = (CUlaunchAttributeID)id;
	memcpy(&out->value, val, sizeof(out->value));
	/* Attributes holding handles or addresses name captured ones. */
	if (id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT || id == CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT) {
		CUevent *ev = id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT ? &out->value.programmaticEvent.event
		                                                           : &out->value.launchCompletionEvent.event;
		rpcu_obj *e = rpcu_objs_get(&s->objs, RPCU_O_EVENT, (uint64_t)(uintptr_t)*ev);
		if (!e)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "launch attribute %u names event 0x%llx, which the "
			                 "trace never created", id, (unsigned long long)(uintptr_t)*ev);
		*ev = (CUevent)(uintptr_t)e->live;
	} else if (id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW) {
		uint64_t live;
		void **bp = &out->value.accessPolicyWindow.base_ptr;
		if (*bp && rpcu_ranges_translate(&s->ranges, (uint64_t)(uintptr_t)*bp, 0, &live, NULL) == 0)
			*bp = (void *)(uintptr_t)live;
	}
	return RP_OK;
}

/*
 * With kernelParams the driver copies each of the kernel's own parameters
 * from kernelParams[i], at the kernel's size, not the record's: a record
 * giving fewer parameters than the kernel takes, or one smaller than the
 * kernel's, would make it read past what the replay hands over.  Asked of
 * the driver (cuFuncGetParamInfo, CUDA 12.4 on) where it can tell.
 */
static rp_status rpcu_check_params(rpcu_state *s, const rpcu_obj *f, const sbt_cm_call *c, size_t nlayout,
                                   const char *kernel, rp_diag *diag)
{
	size_t i, off, size;
	if (!s->drv.p_cuFuncGetParamInfo)
		return RP_OK;
	for (i = 0;; i++) {
		uint32_t loff, lsize;
		CUresult r = s->drv.p_cuFuncGetParamInfo((CUfunction)(uintptr_t)f->live, i, &off, &size);
		if (r != CUDA_SUCCESS)
			return RP_OK; /* past the last parameter, or the driver cannot tell */
		if (i >= nlayout)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "kernel '%s' takes more than the %zu parameters the "
			                 "record gives (its parameter %zu is %zu bytes at offset %zu)",
			                 kernel ? kernel : "(unnamed)", nlayout, i, size, off);
		sbt_cm_layout_at(c, i, &loff, &lsize);
		if (lsize < size)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "parameter %zu of kernel '%s' is %zu bytes, and the "
			                 "record gives %u", i, kernel ? kernel : "(unnamed)", size, lsize);
	}
}

rp_status rpcu_kfunc_find(rpcu_state *s, const sbt_cm_call *c, rpcu_obj **out, rp_diag *diag)
{
	rpcu_obj *f;

	f = rpcu_objs_get(&s->objs, c->sub == SBT_CM_FUNC_KERNEL ? RPCU_O_KERNEL : RPCU_O_FUNCTION, c->handle);
	if (!f)
		f = rpcu_objs_get(&s->objs, c->sub == SBT_CM_FUNC_KERNEL ? RPCU_O_FUNCTION : RPCU_O_KERNEL,
		                  c->handle);
	if (!f) {
		uint64_t gone = rpcu_gone_seq(s, RPCU_O_FUNCTION, c->handle);
		if (!gone)
			gone = rpcu_gone_seq(s, RPCU_O_KERNEL, c->handle);
		if (gone)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "function 0x%llx (kernel '%.*s') went at seq %llu "
			                 "(its module, library or context was unloaded or destroyed there), and "
			                 "this launch still uses it", (unsigned long long)c->handle,
			                 (int)c->name_len, c->name ? (const char *)c->name : "",
			                 (unsigned long long)gone);
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "function 0x%llx (kernel '%.*s') was never obtained "
		                 "in the trace", (unsigned long long)c->handle, (int)c->name_len,
		                 c->name ? (const char *)c->name : "");
	}
	*out = f;
	return RP_OK;
}

rp_status rpcu_kargs_make(rpcu_state *s, const sbt_cm_call *c, rpcu_obj *f, rpcu_kargs *a, rp_diag *diag)
{
	rp_status st = RP_OK;
	size_t nlayout = sbt_cm_layout_count(c), i;

	memset(a, 0, sizeof(*a));
	a->buf_len = c->params_len ? c->params_len : c->extra_len;
	for (i = 0; i < nlayout; i++) {
		/* the layout describes the packed bytes, whichever form carried them */
		uint32_t off, size;
		sbt_cm_layout_at(c, i, &off, &size);
		if ((uint64_t)off + size > a->buf_len)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "parameter %zu at [%u, +%u) lies outside the %zu "
			                 "parameter bytes", i, off, size, a->buf_len);
	}
	if (c->name_len || f->name) {
		/* The name in the record wins: it is what the capture saw.  For
		 * messages and notes only: made printable. */
		if (c->name_len)
			snprintf(a->name_buf, sizeof(a->name_buf), "%.*s", (int)c->name_len, (const char *)c->name);
		else
			snprintf(a->name_buf, sizeof(a->name_buf), "%s", f->name);
		rpcu_printable(a->name_buf);
		a->kernel = a->name_buf;
	}
	if (a->buf_len) {
		a->buf = malloc(a->buf_len);
		if (!a->buf)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		memcpy(a->buf, c->params_len ? c->params : c->extra, a->buf_len);
	}
	if (a->buf)
		rpcu_ranges_patch_params(&s->ranges, a->buf, a->buf_len, nlayout ? c->layout : NULL, nlayout, s->seq,
		                         a->kernel);
	if (a->buf && nlayout && (st = rpcu_check_params(s, f, c, nlayout, a->kernel, diag)) != RP_OK)
		goto out_fail;
	if (nlayout && (st = rpcu_texobj_check_launch(s, c, c->params_len ? c->params : c->extra, nlayout, a->kernel,
	                                              diag)) != RP_OK)
		goto out_fail;
	if (a->buf && nlayout) {
		/* kernelParams: one pointer per parameter into the packed bytes */
		a->args = calloc(nlayout, sizeof(*a->args));
		if (!a->args) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			goto out_fail;
		}
		for (i = 0; i < nlayout; i++) {
			uint32_t off, size;
			sbt_cm_layout_at(c, i, &off, &size);
			a->args[i] = a->buf + off;
		}
	} else if (a->buf) {
		/* no layout: the packed buffer as the `extra` form hands it over */
		a->extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
		a->extra[1] = a->buf;
		a->extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
		a->extra[3] = &a->buf_len;
		a->extra[4] = CU_LAUNCH_PARAM_END;
		a->extra_arg = a->extra;
	}
	return RP_OK;
out_fail:
	rpcu_kargs_free(a);
	return st;
}

void rpcu_kargs_free(rpcu_kargs *a)
{
	free(a->args);
	free(a->buf);
	a->args = NULL;
	a->buf = NULL;
}

rp_status rpcu_exec_launch(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *f;
	CUstream stream;
	int capturing;
	rp_status st;
	CUresult r = CUDA_SUCCESS;
	size_t i;
	rpcu_kargs ka;
	void **args, **extra_arg;
	CUlaunchAttribute *attrs = NULL;
	const char *kernel;
	const char *fn_name = k == SBT_CM_K_cuLaunchKernelEx ? "cuLaunchKernelEx"
	                      : k == SBT_CM_K_cuLaunchCooperativeKernel ? "cuLaunchCooperativeKernel"
	                                                                : "cuLaunchKernel";

	if ((st = rpcu_kfunc_find(s, c, &f, diag)) != RP_OK)
		return st;
	if ((st = rpcu_stream_resolve(s, c->stream, &stream, &capturing, diag)) != RP_OK)
		return st;
	if (rpcu_capture_skip(s, c, capturing))
		return RP_OK; /* it became a graph node at capture, it did not run */
	if ((st = rpcu_kargs_make(s, c, f, &ka, diag)) != RP_OK)
		return st;
	args = ka.args;
	extra_arg = ka.extra_arg;
	kernel = ka.kernel;
	switch (k) {
	case SBT_CM_K_cuLaunchKernel:
		if ((st = RPCU_NEED(cuLaunchKernel)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuLaunchKernel((CUfunction)(uintptr_t)f->live, (unsigned)c->grid_x,
		                            (unsigned)c->grid_y, (unsigned)c->grid_z, (unsigned)c->block_x,
		                            (unsigned)c->block_y, (unsigned)c->block_z,
		                            (unsigned)c->shared_mem, stream, args, extra_arg);
		break;
	case SBT_CM_K_cuLaunchCooperativeKernel:
		if ((st = RPCU_NEED(cuLaunchCooperativeKernel)) != RP_OK)
			goto out_free;
		if (extra_arg) {
			st = rpcu_fail(s, diag, RP_ERR_TRACE, "a cooperative launch without a parameter layout");
			goto out_free;
		}
		r = s->drv.p_cuLaunchCooperativeKernel((CUfunction)(uintptr_t)f->live, (unsigned)c->grid_x,
		                                       (unsigned)c->grid_y, (unsigned)c->grid_z,
		                                       (unsigned)c->block_x, (unsigned)c->block_y,
		                                       (unsigned)c->block_z, (unsigned)c->shared_mem, stream,
		                                       args);
		break;
	default: {
		CUlaunchConfig cfg;
		size_t nattrs = sbt_cm_attr_count(c);
		if ((st = RPCU_NEED(cuLaunchKernelEx)) != RP_OK)
			goto out_free;
		memset(&cfg, 0, sizeof(cfg));
		if (nattrs) {
			attrs = calloc(nattrs, sizeof(*attrs));
			if (!attrs) {
				st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
				goto out_free;
			}
		}
		for (i = 0; i < nattrs; i++)
			if ((st = rpcu_launch_attr(s, c, i, &attrs[i], diag)) != RP_OK)
				goto out_free;
		cfg.gridDimX = (unsigned)c->grid_x;
		cfg.gridDimY = (unsigned)c->grid_y;
		cfg.gridDimZ = (unsigned)c->grid_z;
		cfg.blockDimX = (unsigned)c->block_x;
		cfg.blockDimY = (unsigned)c->block_y;
		cfg.blockDimZ = (unsigned)c->block_z;
		cfg.sharedMemBytes = (unsigned)c->shared_mem;
		cfg.hStream = stream;
		cfg.attrs = attrs;
		cfg.numAttrs = (unsigned)nattrs;
		r = s->drv.p_cuLaunchKernelEx(&cfg, (CUfunction)(uintptr_t)f->live, args, extra_arg);
		break;
	}
	}
	if (r != CUDA_SUCCESS) {
		char what[300];
		snprintf(what, sizeof(what), "launching kernel '%s'", kernel ? kernel : "(unnamed)");
		st = rpcu_cufail(s, diag, fn_name, r, what);
	} else if (!s->capturing) {
		rpcu_not_run_check(s, kernel ? kernel : "");
	}
out_free:
	free(attrs);
	rpcu_kargs_free(&ka);
	return st;
}

/* ---- the table of calls ------------------------------------------------------------ */

/* cuInit is done at open, and tsVaWindow records are read at open
 * (rpcu_window.c): replaying either does nothing. */
static rp_status rpcu_exec_at_open(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	(void)s;
	(void)k;
	(void)c;
	(void)diag;
	return RP_OK;
}

typedef rp_status (*rpcu_exec_fn)(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* A copy or memset, on the live stream of its record. */
typedef rp_status (*rpcu_work_fn)(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                                  rp_diag *diag);

static rp_status rpcu_exec_work(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);

/* Every kind of SBT_CM_KIND_LIST, in its order: the function that replays
 * it, and whether it is a state record.  A keyframe restore replays the
 * state records before its snapshot, those that make or drop objects;
 * work (launches, copies, memsets, syncs) is left out, as the snapshot
 * holds its results. */
typedef enum rpcu_call_role { RPCU_CALL_WORK, RPCU_CALL_STATE } rpcu_call_role;

static const struct rpcu_call {
	rpcu_exec_fn run;
	rpcu_call_role role;
	rpcu_work_fn work; /* run is rpcu_exec_work: what it does on the stream */
} rpcu_calls[SBT_CM_KIND_COUNT] = {
	[SBT_CM_K_cuInit] =                     {rpcu_exec_at_open, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuDeviceGet] =                {rpcu_do_cuDeviceGet, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuCtxCreate] =                {rpcu_do_cuCtxCreate, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuCtxDestroy] =               {rpcu_do_cuCtxDestroy, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuCtxSetCurrent] =            {rpcu_do_cuCtxSetCurrent, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuCtxPushCurrent] =           {rpcu_do_cuCtxPushCurrent, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuCtxPopCurrent] =            {rpcu_do_cuCtxPopCurrent, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuCtxSynchronize] =           {rpcu_do_cuCtxSynchronize, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuDevicePrimaryCtxRetain] =   {rpcu_do_cuDevicePrimaryCtxRetain, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuDevicePrimaryCtxRelease] =  {rpcu_do_cuDevicePrimaryCtxRelease, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuDevicePrimaryCtxReset] =    {rpcu_do_cuDevicePrimaryCtxRelease, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleLoad] =               {rpcu_do_cuModuleLoad, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleLoadData] =           {rpcu_do_cuModuleLoad, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleLoadDataEx] =         {rpcu_do_cuModuleLoad, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleLoadFatBinary] =      {rpcu_do_cuModuleLoad, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleUnload] =             {rpcu_do_cuModuleUnload, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleGetFunction] =        {rpcu_do_cuModuleGetFunction, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuModuleGetGlobal] =          {rpcu_do_cuModuleGetGlobal, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLibraryLoadData] =          {rpcu_do_cuLibraryLoadData, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLibraryLoadFromFile] =      {rpcu_do_cuLibraryLoadData, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLibraryUnload] =            {rpcu_do_cuLibraryUnload, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLibraryGetKernel] =         {rpcu_do_cuLibraryGetKernel, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLibraryGetModule] =         {rpcu_do_cuLibraryGetModule, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLibraryGetGlobal] =         {rpcu_do_cuModuleGetGlobal, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuKernelGetFunction] =        {rpcu_do_cuKernelGetFunction, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuLaunchKernel] =             {rpcu_exec_launch, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuLaunchKernelEx] =           {rpcu_exec_launch, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuLaunchCooperativeKernel] =  {rpcu_exec_launch, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuGraphLaunch] =              {rpcu_do_cuGraphLaunch, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuLaunchHostFunc] =           {rpcu_do_cuLaunchHostFunc, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuMemAlloc] =                 {rpcu_alloc_device, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAllocPitch] =            {rpcu_alloc_device, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAllocAsync] =            {rpcu_alloc_device, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAllocFromPoolAsync] =    {rpcu_alloc_device, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAllocManaged] =          {rpcu_alloc_device, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAllocHost] =             {rpcu_alloc_host, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemHostAlloc] =             {rpcu_alloc_host, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemHostRegister] =          {rpcu_alloc_host, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemFree] =                  {rpcu_exec_free, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemFreeAsync] =             {rpcu_exec_free, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemFreeHost] =              {rpcu_exec_free_host, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemHostUnregister] =        {rpcu_exec_free_host, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemCreate] =                {rpcu_do_cuMemCreate, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemRelease] =               {rpcu_do_cuMemRelease, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAddressReserve] =        {rpcu_do_cuMemAddressReserve, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemAddressFree] =           {rpcu_do_cuMemAddressFree, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemMap] =                   {rpcu_do_cuMemMap, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemUnmap] =                 {rpcu_do_cuMemUnmap, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemSetAccess] =             {rpcu_do_cuMemSetAccess, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemcpy] =                   {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_any},
	[SBT_CM_K_cuMemcpyAsync] =              {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_any},
	[SBT_CM_K_cuMemcpyHtoD] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_htod},
	[SBT_CM_K_cuMemcpyHtoDAsync] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_htod},
	[SBT_CM_K_cuMemcpyDtoH] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_dtoh},
	[SBT_CM_K_cuMemcpyDtoHAsync] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_dtoh},
	[SBT_CM_K_cuMemcpyDtoD] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_dtod},
	[SBT_CM_K_cuMemcpyDtoDAsync] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_dtod},
	[SBT_CM_K_cuMemcpyPeer] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_peer},
	[SBT_CM_K_cuMemcpyPeerAsync] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_peer},
	[SBT_CM_K_cuMemcpy2D] =                 {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_3d},
	[SBT_CM_K_cuMemcpy2DUnaligned] =        {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_3d},
	[SBT_CM_K_cuMemcpy2DAsync] =            {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_3d},
	[SBT_CM_K_cuMemcpy3D] =                 {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_3d},
	[SBT_CM_K_cuMemcpy3DAsync] =            {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_3d},
	[SBT_CM_K_cuMemsetD8] =                 {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD16] =                {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD32] =                {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD2D8] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD2D16] =              {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD2D32] =              {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD8Async] =            {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD16Async] =           {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD32Async] =           {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD2D8Async] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD2D16Async] =         {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuMemsetD2D32Async] =         {rpcu_exec_work, RPCU_CALL_WORK, rpcu_memset},
	[SBT_CM_K_cuStreamCreate] =             {rpcu_do_cuStreamCreate, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuStreamCreateWithPriority] = {rpcu_do_cuStreamCreate, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuStreamDestroy] =            {rpcu_do_cuStreamDestroy, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuStreamSynchronize] =        {rpcu_do_cuStreamSynchronize, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamQuery] =              {rpcu_do_cuStreamSynchronize, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamWaitEvent] =          {rpcu_do_cuStreamWaitEvent, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamBeginCapture] =       {rpcu_capture_begin, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuStreamEndCapture] =         {rpcu_capture_end, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuEventCreate] =              {rpcu_do_cuEventCreate, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuEventDestroy] =             {rpcu_do_cuEventDestroy, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuEventRecord] =              {rpcu_do_cuEventRecord, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuEventRecordWithFlags] =     {rpcu_do_cuEventRecord, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuEventSynchronize] =         {rpcu_do_cuEventSynchronize, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuEventQuery] =               {rpcu_do_cuEventSynchronize, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_tsSnapshot] =                 {rpcu_snapshot, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_tsVaWindow] =                 {rpcu_exec_at_open, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuKernelSetAttribute] =       {rpcu_exec_set_attribute, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuFuncSetAttribute] =         {rpcu_exec_set_attribute, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphInstantiate] =         {rpcu_do_cuGraphInstantiate, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecDestroy] =         {rpcu_do_cuGraphExecDestroy, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphDestroy] =             {rpcu_do_cuGraphDestroy, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuTexObjectCreate] =          {rpcu_exec_texobj, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuTexObjectDestroy] =         {rpcu_exec_texobj, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuSurfObjectCreate] =         {rpcu_exec_texobj, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuSurfObjectDestroy] =        {rpcu_exec_texobj, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuArrayCreate] =              {rpcu_exec_array, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuArray3DCreate] =            {rpcu_exec_array, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuArrayDestroy] =             {rpcu_exec_array, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuMemcpyHtoA] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuMemcpyAtoH] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuMemcpyAtoD] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuMemcpyDtoA] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuMemcpyAtoA] =               {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuMemcpyHtoAAsync] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuMemcpyAtoHAsync] =          {rpcu_exec_work, RPCU_CALL_WORK, rpcu_copy_array},
	[SBT_CM_K_cuGraphCreate] =              {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddKernelNode] =       {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddMemcpyNode] =       {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddMemsetNode] =       {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddEmptyNode] =        {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddEventRecordNode] =  {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddEventWaitNode] =    {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddDependencies] =     {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_tsGraphNotModeled] =             {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphKernelNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecKernelNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphDestroyNode] =         {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphRemoveDependencies] =  {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_tsGraphHostSource] =          {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddChildGraphNode] =   {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphClone] =               {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphNodeFindInClone] =     {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphNodeSetEnabled] =      {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddHostNode] =         {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphMemcpyNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecMemcpyNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphMemsetNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecMemsetNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphEventRecordNodeSetEvent] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphEventWaitNodeSetEvent] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecEventRecordNodeSetEvent] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecEventWaitNodeSetEvent] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecUpdate] =          {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphChildGraphNodeGetGraph] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddMemAllocNode] =     {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddMemFreeNode] =      {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphKernelNodeSetAttribute] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphKernelNodeCopyAttributes] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphAddBatchMemOpNode] =   {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphBatchMemOpNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams] = {rpcu_exec_graph_node, RPCU_CALL_STATE, NULL},
	[SBT_CM_K_cuStreamWriteValue32] =       {rpcu_exec_stream_memop, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamWriteValue64] =       {rpcu_exec_stream_memop, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamWaitValue32] =        {rpcu_exec_stream_memop, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamWaitValue64] =        {rpcu_exec_stream_memop, RPCU_CALL_WORK, NULL},
	[SBT_CM_K_cuStreamBatchMemOp] =         {rpcu_exec_stream_memop, RPCU_CALL_WORK, NULL},
};

int rpcu_exec_is_state(sbt_cm_kind k)
{
	return (unsigned)k < SBT_CM_KIND_COUNT && rpcu_calls[k].role == RPCU_CALL_STATE;
}

rp_status rpcu_exec(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	if ((unsigned)k >= SBT_CM_KIND_COUNT || !rpcu_calls[k].run)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "this backend does not replay this call");
	if (rpcu_calls[k].role == RPCU_CALL_WORK) {
		/* for rpcu_wait_work: the device may be busy from here on */
		if (!s->work_pending) {
			s->work_pending = 1;
			s->work_ctx = s->cur_ctx;
		} else if (s->work_ctx != s->cur_ctx) {
			s->work_multi = 1;
		}
	}
	/* --profile times launches, copies and memsets: a synchronous copy or
	 * memset ran on the legacy (or per-thread) default stream. */
	if (s->profile && (rpcu_calls[k].run == rpcu_exec_work || rpcu_calls[k].run == rpcu_exec_launch ||
	                   k == SBT_CM_K_cuGraphLaunch))
		return rpcu_profile_exec(s, k, c,
		                         rpcu_calls[k].run == rpcu_exec_work && !rpcu_is_async(k) ? 0 : c->stream,
		                         rpcu_calls[k].run, diag);
	return rpcu_calls[k].run(s, k, c, diag);
}

/* Copies and memsets: on the record's stream, skipped while it is being
 * captured into a graph (the work did not run then). */
static rp_status rpcu_exec_work(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	int capturing = 0;
	CUstream stream = NULL;
	rp_status st;

	st = rpcu_stream_resolve(s, rpcu_is_async(k) ? c->stream : 0, &stream, &capturing, diag);
	if (st != RP_OK)
		return st;
	if (rpcu_capture_skip(s, c, capturing))
		return RP_OK;
	if (c->capture_status || capturing)
		return rpcu_capture_work(s, k, c, stream, diag);
	return rpcu_calls[k].work(s, k, c, stream, diag);
}
