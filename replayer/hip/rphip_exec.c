/*
 * rphip_exec.c - replaying one hip.* record: modules and registration,
 * launches, allocations (placed at the captured address, or moved and
 * patched: rphip_internal.h), copies, memsets, streams, events and graphs
 * rebuilt by stream capture.
 */
#include "replayer/hip/rphip_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPHIP_LIVE(p) ((uint64_t)(uintptr_t)(p))

/* ---- lookups ------------------------------------------------------------------ */

static rp_status rphip_unknown(rphip_state *s, rp_diag *diag, const char *what, uint64_t cap)
{
	return rphip_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx was never created in the trace", what,
	                  (unsigned long long)cap);
}

/*
 * The per-thread default stream of the record's captured thread on the
 * live device current now (clr keeps one per thread and device): a
 * blocking stream of the replay's own, as CUDA's replay makes one
 * (docs/cuda-replay.md), so that work the program put on several threads'
 * per-thread streams is not serialized on the null stream.  It is a
 * stream object under a key no captured handle has (those are aligned
 * pointers; this one ends in 0xa), so teardown destroys it with the
 * others.  With --streams single there is none: the null stream.
 */
static rp_status rphip_pt_stream(rphip_state *s, hipStream_t *out, rphip_obj **obj, rp_diag *diag)
{
	uint64_t key = (s->thread << 12 ^ (uint64_t)(unsigned)s->cur_dev << 4) | 0xa;
	rphip_obj *o;
	hipStream_t live = NULL;
	hipError_t r;

	if (s->single)
		return RP_OK;
	o = rphip_obj_get(s, RPHIP_O_STREAM, key);
	if (!o) {
		r = s->rt.p_hipStreamCreateWithPriority(&live, hipStreamDefault, 0);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipStreamCreateWithPriority (the per-thread stream)", r);
		if (!(o = rphip_obj_put(s, RPHIP_O_STREAM, key))) {
			s->rt.p_hipStreamDestroy(live);
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		o->live = live;
		o->made_seq = s->seq;
	}
	*out = o->live;
	if (obj)
		*obj = o;
	return RP_OK;
}

rp_status rphip_stream(rphip_state *s, uint64_t cap, hipStream_t *out, rphip_obj **obj,
                       rp_diag *diag)
{
	rphip_obj *o;

	*out = NULL;
	if (obj)
		*obj = NULL;
	if (s->build && cap == RPHIP_BUILD_STREAM) {
		*out = s->build->live;
		if (obj)
			*obj = s->build;
		return RP_OK;
	}
	if ((!cap && s->ptds) || cap == (uint64_t)(uintptr_t)hipStreamPerThread)
		return rphip_pt_stream(s, out, obj, diag);
	if (!cap)
		return RP_OK;
	o = rphip_obj_get(s, RPHIP_O_STREAM, cap);
	if (!o)
		return rphip_unknown(s, diag, "stream", cap);
	*out = s->single ? NULL : o->live;
	if (obj)
		*obj = o;
	return RP_OK;
}

rp_status rphip_use_device(rphip_state *s, int64_t device, rp_diag *diag)
{
	int live;
	hipError_t r;

	if (device < 0 || device > 1024)
		return rphip_fail(s, diag, RP_ERR_TRACE, "device %lld is not a device ordinal",
		                  (long long)device);
	live = s->device_base + device < s->live_devices ? s->device_base + (int)device
	                                                 : s->device_base;
	if (live != s->device_base + device && !s->noted_devices && !s->quiet) {
		s->noted_devices = 1;
		if (s->device_base)
			fprintf(stderr, "tsreplay: hip: the trace uses device %lld, which --device %d puts "
			        "on device %lld, and the runtime has %d device%s: the work of every device "
			        "it does not have replays on device %d\n", (long long)device,
			        s->device_base, (long long)(s->device_base + device), s->live_devices,
			        s->live_devices == 1 ? "" : "s", s->device_base);
		else
			fprintf(stderr, "tsreplay: hip: the trace uses device %lld and the runtime has %d "
			        "device%s: the work of every device it does not have replays on device 0\n",
			        (long long)device, s->live_devices, s->live_devices == 1 ? "" : "s");
	}
	if (live == s->cur_dev)
		return RP_OK;
	r = s->rt.p_hipSetDevice(live);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipSetDevice", r);
	s->cur_dev = live;
	return RP_OK;
}

/* The captured thread's entry (made at its first hipSetDevice); NULL when
 * it has none or out of memory (*oom set). */
static struct rphip_thread_dev *rphip_thread_dev(rphip_state *s, int make, int *oom)
{
	struct rphip_thread_dev *t;

	for (size_t i = 0; i < s->nthread_devs; i++)
		if (s->thread_devs[i].thread == s->thread)
			return &s->thread_devs[i];
	if (!make)
		return NULL;
	if (s->nthread_devs == s->capthread_devs) {
		size_t cap = s->capthread_devs ? s->capthread_devs * 2 : 8;
		t = realloc(s->thread_devs, cap * sizeof(*t));
		if (!t) {
			*oom = 1;
			return NULL;
		}
		s->thread_devs = t;
		s->capthread_devs = cap;
	}
	t = &s->thread_devs[s->nthread_devs++];
	t->thread = s->thread;
	t->device = 0;
	return t;
}

rp_status rphip_set_thread_device(rphip_state *s, int64_t device, rp_diag *diag)
{
	int oom = 0;
	struct rphip_thread_dev *t;
	rp_status st;

	if ((st = rphip_use_device(s, device, diag)) != RP_OK)
		return st;
	if (!(t = rphip_thread_dev(s, 1, &oom)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	t->device = device;
	return RP_OK;
}

rp_status rphip_use_thread_device(rphip_state *s, rp_diag *diag)
{
	int oom = 0;
	struct rphip_thread_dev *t = rphip_thread_dev(s, 0, &oom);

	return rphip_use_device(s, t ? t->device : 0, diag);
}

rp_status rphip_translate(rphip_state *s, uint64_t addr, uint64_t len, const char *what,
                                 uint64_t *live, rp_diag *diag)
{
	rp_cm_span t = RP_CM_SPAN(s->ranges, s->nranges);

	if (rp_cm_ranges_translate(&t, addr, len, live, NULL) != 0)
		return rphip_fail(s, diag, RP_ERR_TRACE,
		                  "the %s [0x%llx, +%llu) is not inside an allocation the trace made", what,
		                  (unsigned long long)addr, (unsigned long long)len);
	return RP_OK;
}

/* *len_out: the blob's length when not NULL. */
rp_status rphip_blob(rphip_state *s, uint64_t id, uint64_t size, uint8_t **out,
                            size_t *len_out, rp_diag *diag)
{
	void *data = NULL;
	size_t len = 0;
	sbt_status st;

	if (!id)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the record carries no data (no blob)");
	st = sbt_reader_blob_get(s->trace, id, &data, &len);
	if (st != SBT_OK)
		return rphip_fail(s, diag, RP_ERR_TRACE, "blob %llu: %s", (unsigned long long)id,
		                  sbt_strerror(st));
	if (size != UINT64_MAX && len != size) {
		free(data);
		return rphip_fail(s, diag, RP_ERR_TRACE, "blob %llu holds %zu bytes, the record %llu",
		                  (unsigned long long)id, len, (unsigned long long)size);
	}
	*out = data;
	if (len_out)
		*len_out = len;
	return RP_OK;
}

/* ---- modules --------------------------------------------------------------------- */

static rp_status rphip_module_load(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint8_t *img = NULL;
	size_t size, blen = 0;
	sbt_amd_kind kind;
	hipModule_t m = NULL;
	sbt_amd_meta *meta = NULL;
	char why[200];
	rphip_obj *o;
	hipError_t r;
	rp_status st;

	st = rphip_blob(s, c->blob, UINT64_MAX, &img, &blen, diag);
	if (st != RP_OK)
		return st;
	/* The runtime sizes the image from its header: check it against the
	 * blob before handing it over (a trace is untrusted). */
	if (sbt_amd_image_size(img, blen, &size, &kind) != SBT_AMD_OK || kind == SBT_AMD_IMAGE_WRAPPER) {
		free(img);
		return rphip_fail(s, diag, RP_ERR_TRACE, "blob %llu is not a code object or bundle",
		                  (unsigned long long)c->blob);
	}
	if (sbt_amd_meta_read_image(img, size, &meta, why, sizeof(why)) != SBT_AMD_OK)
		meta = NULL; /* launches then rewrite pointers by value alone */
	r = s->rt.p_hipModuleLoadData(&m, img);
	free(img);
	if (r != hipSuccess) {
		sbt_amd_meta_free(meta);
		return rphip_hipfail(s, diag, "hipModuleLoadData", r);
	}
	o = rphip_obj_put(s, RPHIP_O_MODULE, c->handle);
	if (!o) {
		sbt_amd_meta_free(meta);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = m;
	o->meta = meta;
	return RP_OK;
}

static rp_status rphip_function(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *m = rphip_obj_get(s, RPHIP_O_MODULE, c->parent), *o;
	char name[96];
	hipFunction_t f = NULL;
	hipError_t r;

	if (!m)
		return rphip_failed_has(s, c->parent) ? RP_OK : rphip_unknown(s, diag, "module", c->parent);
	if (!c->name_len || c->name_len >= sizeof(name))
		return rphip_fail(s, diag, RP_ERR_TRACE, "the kernel name is missing or too long");
	memcpy(name, c->name, c->name_len);
	name[c->name_len] = '\0';
	r = s->rt.p_hipModuleGetFunction(&f, m->live, name);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipModuleGetFunction", r);
	{
		const sbt_amd_kernel *k = m->meta ? sbt_amd_meta_find(m->meta, name) : NULL;
		o = rphip_obj_put(s, RPHIP_O_FUNCTION, c->handle);
		if (!o)
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		o->live = f;
		o->k = k;
		o->module = c->parent;
		memcpy(o->name, name, c->name_len + 1);
	}
	return RP_OK;
}

/* A module global (hipModuleGetGlobal: its address) or the host shadow of
 * a __device__ variable (__hipRegisterVar: symbol copies name it). */
static rp_status rphip_global(rphip_state *s, const sbt_cm_call *c, uint64_t cap, rp_diag *diag)
{
	rphip_obj *m = rphip_obj_get(s, RPHIP_O_MODULE, c->parent);
	char name[128];
	hipDeviceptr_t p = NULL;
	size_t size = 0;
	rphip_range rg;
	long i;
	hipError_t r;

	if (!m)
		return rphip_failed_has(s, c->parent) ? RP_OK : rphip_unknown(s, diag, "module", c->parent);
	if (!c->name_len || c->name_len >= sizeof(name) || !cap)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the global's name or address is missing");
	memcpy(name, c->name, c->name_len);
	name[c->name_len] = '\0';
	r = s->rt.p_hipModuleGetGlobal(&p, &size, m->live, name);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipModuleGetGlobal", r);
	if (c->size && c->size != size)
		return rphip_fail(s, diag, RP_ERR_TRACE, "global %s has %zu bytes, %llu at capture", name,
		                  size, (unsigned long long)c->size);
	while ((i = rphip_range_find(s, cap)) >= 0 && s->ranges[i].global)
		rphip_range_remove(s, (size_t)i); /* the same global looked up again */
	memset(&rg, 0, sizeof(rg));
	rg.cap = cap;
	rg.size = size;
	rg.live = RPHIP_LIVE(p);
	rg.moved = rg.live != cap;
	rg.global = 1;
	rg.seq = s->seq;
	if (rphip_range_find(s, cap) >= 0 || rphip_range_add(s, &rg) != 0)
		return rphip_fail(s, diag, RP_ERR_TRACE, "global %s at 0x%llx overlaps an allocation", name,
		                  (unsigned long long)cap);
	return RP_OK;
}

static rp_status rphip_module_unload(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *m = rphip_obj_get(s, RPHIP_O_MODULE, c->handle);
	hipError_t r;

	if (!m)
		return rphip_failed_has(s, c->handle) ? RP_OK : rphip_unknown(s, diag, "module", c->handle);
	s->rt.p_hipDeviceSynchronize();
	r = s->rt.p_hipModuleUnload(m->live);
	/* Its functions' kernel descriptions live in the module's metadata,
	 * freed with it: a later launch of one is refused, never read. */
	for (size_t i = 0; i < s->objs.cap; i++) {
		rphip_obj *o = (rphip_obj *)rp_cm_handles_at(&s->objs, sizeof(rphip_obj), i);
		if (o->kind == RPHIP_O_FUNCTION && !o->dead && o->module == c->handle) {
			o->k = NULL;
			o->unloaded = 1;
		}
	}
	rphip_obj_del(s, m);
	return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipModuleUnload", r);
}

/* ---- launches ------------------------------------------------------------------------ */

/* Rewrite pointers of a moved range in the kernarg bytes (rphip_internal.h
 * says which words are pointers). */
static void rphip_patch(rphip_state *s, const sbt_amd_kernel *k, const char *name, uint8_t *buf,
                        size_t len)
{
	rp_cm_span t = RP_CM_SPAN(s->ranges, s->nranges);

	for (size_t a = 0; k && a < k->explicit_count; a++) {
		const sbt_amd_arg *arg = &k->args[a];
		if ((uint64_t)arg->offset + arg->size > len)
			continue;
		for (uint32_t w = 0; w + 8 <= arg->size; w += 8) {
			if (arg->kind != SBT_AMD_ARG_GLOBAL_BUFFER && arg->kind != SBT_AMD_ARG_BY_VALUE)
				break;
			if ((arg->offset + w) % 8)
				continue;
			rp_cm_ranges_patch_word(&t, buf + arg->offset + w, s->seq, name, 0);
			if (arg->kind == SBT_AMD_ARG_GLOBAL_BUFFER)
				break;
		}
	}
	/* With no metadata: every aligned word (as the CUDA backend does
	 * without a layout). */
	if (!k)
		rp_cm_ranges_patch_params(&t, buf, len, NULL, 0, s->seq, name, 0);
}

static rp_status rphip_launch(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                              rp_diag *diag)
{
	rphip_obj *f = rphip_obj_get(s, RPHIP_O_FUNCTION, c->handle);
	unsigned grid[3] = {(unsigned)c->grid_x, (unsigned)c->grid_y, (unsigned)c->grid_z};
	unsigned block[3] = {(unsigned)c->block_x, (unsigned)c->block_y, (unsigned)c->block_z};
	const uint8_t *src = c->extra_len ? c->extra : c->params;
	size_t len = c->extra_len ? c->extra_len : c->params_len;
	uint8_t *buf;
	void *extra[5];
	hipStream_t stream;
	hipError_t r;
	rp_status st;

	if (!f) {
		if (rphip_failed_has(s, c->handle))
			return RP_OK;
		return rphip_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx was never registered or looked up in "
		                  "the trace", hc == SBT_CM_HIP_hipLaunchKernel ? "kernel stub" : "function",
		                  (unsigned long long)c->handle);
	}
	if (f->unloaded)
		return rphip_fail(s, diag, RP_ERR_TRACE, "function %s (0x%llx): its module was unloaded "
		                  "(hipModuleUnload) before this launch", f->name, (unsigned long long)c->handle);
	if (hc == SBT_CM_HIP_hipExtModuleLaunchKernel) {
		/* work-item counts, not blocks */
		for (int d = 0; d < 3; d++) {
			if (!block[d])
				return rphip_fail(s, diag, RP_ERR_TRACE, "a block dimension is 0");
			grid[d] = (grid[d] + block[d] - 1) / block[d];
		}
	}
	st = rphip_stream(s, c->stream, &stream, NULL, diag);
	if (st != RP_OK)
		return st;
	buf = malloc(len ? len : 1);
	if (!buf)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (len)
		memcpy(buf, src, len);
	rphip_patch(s, f->k, f->name, buf, len);
	extra[0] = HIP_LAUNCH_PARAM_BUFFER_POINTER;
	extra[1] = buf;
	extra[2] = HIP_LAUNCH_PARAM_BUFFER_SIZE;
	extra[3] = &len;
	extra[4] = HIP_LAUNCH_PARAM_END;
	r = s->rt.p_hipModuleLaunchKernel(f->live, grid[0], grid[1], grid[2], block[0], block[1],
	                                  block[2], (unsigned)c->shared_mem, stream, NULL, extra);
	/* The runtime copies the kernarg bytes at the launch (a graph node
	 * keeps its own copy too). */
	free(buf);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipModuleLaunchKernel", r);
	if (s->rt.not_run) {
		unsigned long long n = s->rt.not_run();
		if (n != s->not_run_seen && !s->not_run_seq)
			s->not_run_seq = s->seq;
		s->not_run_seen = n;
	}
	return RP_OK;
}

/* ---- allocations ------------------------------------------------------------------------ */

/* Try to place [cap, cap + size) at cap: 0 and *out filled, or -1. */
static int rphip_place(rphip_state *s, uint64_t cap, uint64_t size, rphip_range *out)
{
	hipMemAllocationProp prop;
	hipMemAccessDesc access;
	void *p = NULL;
	uint64_t rsize;
	hipMemGenericAllocationHandle_t h = NULL;

	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = s->cur_dev;
	if (rphip_granularity(s) == SIZE_MAX || cap % s->granularity)
		return -1;
	rsize = (size + s->granularity - 1) / s->granularity * s->granularity;
	if (s->rt.p_hipMemAddressReserve(&p, rsize, 0, (void *)(uintptr_t)cap, 0) != hipSuccess)
		return -1;
	if (RPHIP_LIVE(p) != cap)
		goto out_free;
	if (s->rt.p_hipMemCreate(&h, rsize, &prop, 0) != hipSuccess)
		goto out_free;
	if (s->rt.p_hipMemMap(p, rsize, 0, h, 0) != hipSuccess)
		goto out_release;
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = hipMemAccessFlagsProtReadWrite;
	if (s->rt.p_hipMemSetAccess(p, rsize, &access, 1) != hipSuccess)
		goto out_unmap;
	memset(out, 0, sizeof(*out));
	out->cap = cap;
	out->size = size;
	out->live = cap;
	out->placed = 1;
	out->res_size = rsize;
	out->handle = h;
	return 0;
out_unmap:
	s->rt.p_hipMemUnmap(p, rsize);
out_release:
	s->rt.p_hipMemRelease(h);
out_free:
	s->rt.p_hipMemAddressFree(p, rsize);
	return -1;
}

void rphip_range_release(rphip_state *s, size_t i)
{
	rphip_range *r = &s->ranges[i];

	if (r->in_window) {
		rphip_window_unmap(s, r->cap, r->size);
	} else if (r->vmm) {
		s->rt.p_hipMemAddressFree((void *)(uintptr_t)r->live, r->size);
	} else if (r->placed) {
		s->rt.p_hipMemUnmap((void *)(uintptr_t)r->live, r->res_size);
		s->rt.p_hipMemRelease(r->handle);
		s->rt.p_hipMemAddressFree((void *)(uintptr_t)r->live, r->res_size);
	} else if (!r->global) {
		s->rt.p_hipFree((void *)(uintptr_t)r->live);
	}
	rphip_range_remove(s, i);
}

static rp_status rphip_alloc(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_range rg;
	void *p = NULL;
	long i;
	hipError_t r;

	if (!c->dst || !c->size)
		return RP_OK;
	/* a range the trace freed through a call it did not record */
	while ((i = rphip_range_find(s, c->dst)) >= 0 ||
	       (i = rphip_range_find(s, c->dst + c->size - 1)) >= 0)
		rphip_range_release(s, (size_t)i);
	if (!s->no_reserve && rphip_window_map(s, c->dst, c->size) == 0) {
		memset(&rg, 0, sizeof(rg));
		rg.cap = c->dst;
		rg.size = c->size;
		rg.live = c->dst;
		rg.in_window = 1;
	} else if (s->no_reserve || rphip_place(s, c->dst, c->size, &rg) != 0) {
		r = s->rt.p_hipMalloc(&p, c->size);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipMalloc", r);
		memset(&rg, 0, sizeof(rg));
		rg.cap = c->dst;
		rg.size = c->size;
		rg.live = RPHIP_LIVE(p);
		rg.moved = rg.live != rg.cap;
	}
	rg.seq = s->seq;
	if (rg.moved)
		s->moved++;
	else
		s->placed++;
	if (rphip_range_add(s, &rg) != 0)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (rg.moved && !s->no_reserve && !s->warned_moved && !s->quiet) {
		s->warned_moved = 1;
		fprintf(stderr, "tsreplay: hip: allocation of seq %llu placed at 0x%llx, not its captured "
		        "0x%llx: pointer arguments of launches are rewritten\n", (unsigned long long)s->seq,
		        (unsigned long long)rg.live, (unsigned long long)rg.cap);
	}
	return RP_OK;
}

static rp_status rphip_free(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	long i;

	if (!c->dst)
		return RP_OK;
	i = rphip_range_find(s, c->dst);
	if (i < 0 || s->ranges[i].cap != c->dst || s->ranges[i].global)
		return rphip_failed_has(s, c->dst) ? RP_OK
		                                   : rphip_unknown(s, diag, "allocation", c->dst);
	/* a stream-ordered free captured into a graph: capture kept the memory
	 * until exit (docs/hip.md), and so does the replay, until the run ends */
	if (c->capture_status)
		return RP_OK;
	/* a careful program waits before it frees what work may use */
	s->rt.p_hipDeviceSynchronize();
	rphip_range_release(s, (size_t)i);
	return RP_OK;
}

/* ---- copies and memsets ------------------------------------------------------------------ */

int rphip_is_async(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipMemcpyAsync: case SBT_CM_HIP_hipMemcpyHtoDAsync:
	case SBT_CM_HIP_hipMemcpyDtoHAsync: case SBT_CM_HIP_hipMemcpyDtoDAsync:
	case SBT_CM_HIP_hipMemcpyToSymbolAsync: case SBT_CM_HIP_hipMemcpyFromSymbolAsync:
	case SBT_CM_HIP_hipMemsetAsync: case SBT_CM_HIP_hipMemsetD8Async:
	case SBT_CM_HIP_hipMemsetD16Async: case SBT_CM_HIP_hipMemsetD32Async:
	case SBT_CM_HIP_hipMemcpy2DAsync: case SBT_CM_HIP_hipMemcpyPeerAsync:
	case SBT_CM_HIP_hipMemset2DAsync: case SBT_CM_HIP_hipMemcpy3DAsync:
	case SBT_CM_HIP_hipMemcpyParam2DAsync: case SBT_CM_HIP_hipMemset3DAsync:
	case SBT_CM_HIP_hipMemcpy2DToArrayAsync: case SBT_CM_HIP_hipMemcpy2DFromArrayAsync:
		return 1;
	default:
		return 0;
	}
}

static int rphip_is_symbol(sbt_cm_hip_call hc)
{
	return hc == SBT_CM_HIP_hipMemcpyToSymbol || hc == SBT_CM_HIP_hipMemcpyToSymbolAsync ||
	       hc == SBT_CM_HIP_hipMemcpyFromSymbol || hc == SBT_CM_HIP_hipMemcpyFromSymbolAsync;
}

/* After a host-synchronous call, or to free a host buffer: wait for the
 * stream (not while the replay captures it: the work became a node). */
rp_status rphip_after(rphip_state *s, hipStream_t stream, const rphip_obj *so, int sync, void *buf,
                      rp_diag *diag)
{
	hipError_t r;

	if (so && so->capturing) {
		if (buf && rphip_keep(s, buf) != 0) {
			free(buf);
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		return RP_OK;
	}
	if (sync || buf) {
		/* --profile: the command ends here, not after the host's wait */
		rp_status st = rphip_profile_end(s, diag);
		if (st != RP_OK) {
			free(buf);
			return st;
		}
		r = s->rt.p_hipStreamSynchronize(stream);
		free(buf);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipStreamSynchronize", r);
	}
	return RP_OK;
}

static rp_status rphip_copy_run(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                            rp_diag *diag)
{
	int sync = !rphip_is_async(hc), sym = rphip_is_symbol(hc);
	uint64_t ldst, lsrc, dst = c->dst + (sym ? c->offset : 0), src = c->src + (sym ? c->offset : 0);
	hipStream_t stream;
	rphip_obj *so;
	uint8_t *buf = NULL;
	hipError_t r;
	rp_status st;

	if (!c->size)
		return RP_OK;
	if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK)
		return st;
	switch (c->sub) {
	case SBT_CM_COPY_HTOD:
		if ((st = rphip_translate(s, dst, c->size, "destination", &ldst, diag)) != RP_OK ||
		    (st = rphip_blob(s, c->blob, c->size, &buf, NULL, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipMemcpyAsync((void *)(uintptr_t)ldst, buf, c->size, hipMemcpyHostToDevice,
		                           stream);
		if (r != hipSuccess) {
			free(buf);
			return rphip_hipfail(s, diag, "hipMemcpyAsync", r);
		}
		return rphip_after(s, stream, so, sync, buf, diag);
	case SBT_CM_COPY_DTOD:
		if ((st = rphip_translate(s, dst, c->size, "destination", &ldst, diag)) != RP_OK ||
		    (st = rphip_translate(s, src, c->size, "source", &lsrc, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipMemcpyAsync((void *)(uintptr_t)ldst, (void *)(uintptr_t)lsrc, c->size,
		                           hipMemcpyDeviceToDevice, stream);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipMemcpyAsync", r);
		return rphip_after(s, stream, so, sync, NULL, diag);
	case SBT_CM_COPY_DTOH:
		if ((st = rphip_translate(s, src, c->size, "source", &lsrc, diag)) != RP_OK)
			return st;
		if (so && so->capturing)
			return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
			                  "a device-to-host copy captured into a graph is not replayed yet");
		if (rphip_copies_room(s) != 0 || !(buf = malloc(c->size)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		r = s->rt.p_hipMemcpyAsync(buf, (void *)(uintptr_t)lsrc, c->size, hipMemcpyDeviceToHost,
		                           stream);
		if (r != hipSuccess) {
			free(buf);
			return rphip_hipfail(s, diag, "hipMemcpyAsync", r);
		}
		rphip_copy_keep(s, src, buf, c->size);
		return rphip_after(s, stream, so, sync, NULL, diag);
	case SBT_CM_COPY_HTOH:
		return RP_OK; /* host memory only: nothing on the device */
	default:
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
		                  "a copy whose direction capture could not tell (sub %llu)",
		                  (unsigned long long)c->sub);
	}
}

static rp_status rphip_memset(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                              rp_diag *diag)
{
	uint64_t live;
	hipStream_t stream;
	rphip_obj *so;
	unsigned elem = c->elem_size ? (unsigned)c->elem_size : 1;
	hipError_t r;
	rp_status st;

	if (!c->size)
		return RP_OK;
	if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK ||
	    (st = rphip_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK)
		return st;
	if (elem == 2)
		r = s->rt.p_hipMemsetD16Async((hipDeviceptr_t)(uintptr_t)live, (unsigned short)c->value,
		                              c->width, stream);
	else if (elem == 4)
		r = s->rt.p_hipMemsetD32Async((hipDeviceptr_t)(uintptr_t)live, (int)c->value, c->width,
		                              stream);
	else
		r = s->rt.p_hipMemsetAsync((void *)(uintptr_t)live, (int)c->value, c->size, stream);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemsetAsync", r);
	return rphip_after(s, stream, so, !rphip_is_async(hc), NULL, diag);
}

/* A pitched region: depth slices of height rows of width bytes, rows
 * pitch apart, slices pitch x slice_rows apart; first = the captured
 * address of its first byte (pointer + position), span = bytes from first
 * to the end of its last row.  rphip_region_of fails on what no copy could
 * make (a trace is untrusted). */
int rphip_region_of(uint64_t ptr, uint64_t x, uint64_t y, uint64_t z, uint64_t pitch,
                        uint64_t slice_rows, uint64_t w, uint64_t h, uint64_t d, rphip_region *out)
{
	uint64_t rows = slice_rows ? slice_rows : h, slice;

	if (!w || !h || !d || w > pitch || rows > UINT64_MAX / pitch)
		return -1;
	slice = pitch * rows;
	if ((z && z > (UINT64_MAX >> 1) / (slice ? slice : 1)) || y > (UINT64_MAX >> 2) / pitch ||
	    (d - 1) > (UINT64_MAX >> 2) / (slice ? slice : 1) || (h - 1) > (UINT64_MAX >> 3) / pitch)
		return -1;
	out->first = ptr + z * slice + y * pitch + x;
	out->span = (d - 1) * slice + (h - 1) * pitch + w;
	out->pitch = pitch;
	out->slice_rows = rows;
	return out->span < w ? -1 : 0;
}

/* Room for one more kept copy, made before the copy is issued (so that a
 * buffer the runtime writes into is never given up); 0, or -1 when out of
 * memory. */
int rphip_copies_room(rphip_state *s)
{
	size_t ncap;
	rphip_copy *nv;

	if (s->ncopies < s->capcopies)
		return 0;
	ncap = s->capcopies * 2 + 8;
	nv = realloc(s->copies, ncap * sizeof(*nv));
	if (!nv)
		return -1;
	s->copies = nv;
	s->capcopies = ncap;
	return 0;
}

/* Keep a device-to-host copy landing in buf (owned from here on) for its
 * checkpoint; rphip_copies_room made room. */
void rphip_copy_keep(rphip_state *s, uint64_t src, uint8_t *buf, uint64_t len)
{
	rphip_copy *cp = &s->copies[s->ncopies++];
	long i = rphip_range_find(s, src);

	memset(cp, 0, sizeof(*cp));
	cp->seq = s->seq;
	cp->vstart = src;
	cp->buf = buf;
	cp->len = len;
	rp_cm_copy_source_take(&cp->src, i >= 0 ? &s->ranges[i].head : NULL);
}

/* Issue one pitched copy between live first bytes: hipMemcpy2DAsync for
 * one slice, hipMemcpy3DAsync for more. */
static hipError_t rphip_pitched_issue(rphip_state *s, void *dst, const rphip_region *dr,
                                      const void *src, const rphip_region *sr, uint64_t w,
                                      uint64_t h, uint64_t d, hipMemcpyKind kind,
                                      hipStream_t stream, const char **fn)
{
	struct hipMemcpy3DParms p;

	if (d == 1) {
		*fn = "hipMemcpy2DAsync";
		return s->rt.p_hipMemcpy2DAsync(dst, dr->pitch, src, sr->pitch, w, h, kind, stream);
	}
	*fn = "hipMemcpy3DAsync";
	memset(&p, 0, sizeof(p));
	p.dstPtr = make_hipPitchedPtr(dst, dr->pitch, w, dr->slice_rows);
	p.srcPtr = make_hipPitchedPtr((void *)(uintptr_t)src, sr->pitch, w, sr->slice_rows);
	p.extent = make_hipExtent(w, h, d);
	p.kind = kind;
	return s->rt.p_hipMemcpy3DAsync(&p, stream);
}

/* Pitched copies: hipMemcpy2D, hipMemcpyParam2D, hipMemcpy3D and their
 * async forms (the record's fields: serializer/sbt_compute.h).  A host
 * source comes packed in the blob, and a host destination's rows are read
 * packed, as capture checkpointed them. */
static rp_status rphip_copy_pitched(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                    rp_diag *diag)
{
	uint64_t w = c->width, h = c->height, d = c->depth ? c->depth : 1, ldst, lsrc;
	rphip_region dr, sr, packed;
	hipStream_t stream;
	rphip_obj *so;
	uint8_t *buf = NULL;
	const char *fn = "";
	hipError_t r;
	rp_status st;

	if (!w || !h)
		return RP_OK;
	if (c->sub == SBT_CM_COPY_ARRAY)
		return rphip_copy_array(s, hc, c, diag);
	if (h > UINT64_MAX / w || d > UINT64_MAX / (w * h) || c->size != w * h * d)
		return rphip_fail(s, diag, RP_ERR_TRACE, "size %llu is not width %llu x height %llu x "
		                  "depth %llu", (unsigned long long)c->size, (unsigned long long)w,
		                  (unsigned long long)h, (unsigned long long)d);
	if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK)
		return st;
	packed = (rphip_region){0, w * h * d, w, h};
	if ((c->sub != SBT_CM_COPY_DTOH &&
	     rphip_region_of(c->dst, c->dst_x, c->dst_y, c->dst_z, c->dst_pitch, c->dst_height, w, h, d,
	                  &dr) != 0) ||
	    (c->sub != SBT_CM_COPY_HTOD &&
	     rphip_region_of(c->src, c->src_x, c->src_y, c->src_z, c->src_pitch, c->src_height, w, h, d,
	                  &sr) != 0))
		return rphip_fail(s, diag, RP_ERR_TRACE, "pitches %llu and %llu (%llu and %llu rows a "
		                  "slice) cannot hold rows of %llu bytes at the positions recorded",
		                  (unsigned long long)c->dst_pitch, (unsigned long long)c->src_pitch,
		                  (unsigned long long)c->dst_height, (unsigned long long)c->src_height,
		                  (unsigned long long)w);
	switch (c->sub) {
	case SBT_CM_COPY_HTOD:
		if ((st = rphip_translate(s, dr.first, dr.span, "destination", &ldst, diag)) != RP_OK ||
		    (st = rphip_blob(s, c->blob, c->size, &buf, NULL, diag)) != RP_OK)
			return st;
		r = rphip_pitched_issue(s, (void *)(uintptr_t)ldst, &dr, buf, &packed, w, h, d,
		                        hipMemcpyHostToDevice, stream, &fn);
		if (r != hipSuccess) {
			free(buf);
			return rphip_hipfail(s, diag, fn, r);
		}
		return rphip_after(s, stream, so, !rphip_is_async(hc), buf, diag);
	case SBT_CM_COPY_DTOD:
		if ((st = rphip_translate(s, dr.first, dr.span, "destination", &ldst, diag)) != RP_OK ||
		    (st = rphip_translate(s, sr.first, sr.span, "source", &lsrc, diag)) != RP_OK)
			return st;
		r = rphip_pitched_issue(s, (void *)(uintptr_t)ldst, &dr, (void *)(uintptr_t)lsrc, &sr, w,
		                        h, d, hipMemcpyDeviceToDevice, stream, &fn);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, fn, r);
		return rphip_after(s, stream, so, !rphip_is_async(hc), NULL, diag);
	case SBT_CM_COPY_DTOH:
		if ((st = rphip_translate(s, sr.first, sr.span, "source", &lsrc, diag)) != RP_OK)
			return st;
		if (so && so->capturing)
			return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
			                  "a device-to-host copy captured into a graph is not replayed yet");
		if (rphip_copies_room(s) != 0 || !(buf = malloc(c->size)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		r = rphip_pitched_issue(s, buf, &packed, (void *)(uintptr_t)lsrc, &sr, w, h, d,
		                        hipMemcpyDeviceToHost, stream, &fn);
		if (r != hipSuccess) {
			free(buf);
			return rphip_hipfail(s, diag, fn, r);
		}
		rphip_copy_keep(s, sr.first, buf, c->size);
		return rphip_after(s, stream, so, !rphip_is_async(hc), NULL, diag);
	case SBT_CM_COPY_HTOH:
		return RP_OK; /* host memory only: nothing on the device */
	default:
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
		                  "a copy whose direction capture could not tell (sub %llu)",
		                  (unsigned long long)c->sub);
	}
}

/* hipMemcpyPeer(Async): the runtime makes it a device-to-device copy
 * (clr's hip_peer.cpp), the same device on both sides included; so does
 * the replay, whichever live devices the two map to (the addresses say
 * which memory). */
static rp_status rphip_copy_peer(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                 rp_diag *diag)
{
	if (c->device < 0 || c->device > 1024 || c->ivalue < 0 || c->ivalue > 1024)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a copy from device %lld to device %lld: not "
		                  "device ordinals", (long long)c->ivalue, (long long)c->device);
	if (c->sub != SBT_CM_COPY_DTOD)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a peer copy that is not device to device "
		                  "(sub %llu)", (unsigned long long)c->sub);
	return rphip_copy_run(s, hc, c, diag);
}

/* hipMemset2D(Async), hipMemset3D(Async): through hipMemset3DAsync with
 * the recorded pitch and rows a slice (a 2D one is one slice of height
 * rows).  The runtime fills width x height x depth bytes in one piece when
 * the pitch is the width (clr's ihipMemset3D), so that is the span then. */
static rp_status rphip_memset_pitched(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                      rp_diag *diag)
{
	uint64_t d = c->depth ? c->depth : 1, live;
	rphip_region rg;
	hipStream_t stream;
	rphip_obj *so;
	hipError_t r;
	rp_status st;

	if (!c->width || !c->height)
		return RP_OK;
	if (rphip_region_of(c->dst, 0, 0, 0, c->pitch, c->pitch == c->width ? c->height : c->dst_height,
	                 c->width, c->height, d, &rg) != 0)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a pitch of %llu (%llu rows a slice) for rows "
		                  "of %llu bytes", (unsigned long long)c->pitch,
		                  (unsigned long long)c->dst_height, (unsigned long long)c->width);
	if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK ||
	    (st = rphip_translate(s, c->dst, rg.span, "destination", &live, diag)) != RP_OK)
		return st;
	r = s->rt.p_hipMemset3DAsync(make_hipPitchedPtr((void *)(uintptr_t)live, c->pitch, c->width,
	                                                rg.slice_rows),
	                             (int)(uint8_t)c->value, make_hipExtent(c->width, c->height, d),
	                             stream);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemset3DAsync", r);
	return rphip_after(s, stream, so, !rphip_is_async(hc), NULL, diag);
}

/* ---- streams, events, graphs ------------------------------------------------------------- */

static rp_status rphip_stream_create(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	hipStream_t st = NULL;
	rphip_obj *o;
	hipError_t r = s->rt.p_hipStreamCreateWithPriority(&st, (unsigned)c->flags, (int)c->priority);

	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipStreamCreateWithPriority", r);
	o = rphip_obj_put(s, RPHIP_O_STREAM, c->handle);
	if (!o)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->live = st;
	return RP_OK;
}

static rp_status rphip_event_create(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	hipEvent_t e = NULL;
	rphip_obj *o;
	hipError_t r = s->rt.p_hipEventCreateWithFlags(&e, (unsigned)c->flags);

	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipEventCreateWithFlags", r);
	o = rphip_obj_put(s, RPHIP_O_EVENT, c->event);
	if (!o)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->live = e;
	return RP_OK;
}

static rp_status rphip_event(rphip_state *s, uint64_t cap, hipEvent_t *out, rp_diag *diag)
{
	rphip_obj *o = rphip_obj_get(s, RPHIP_O_EVENT, cap);

	if (!o)
		return rphip_unknown(s, diag, "event", cap);
	*out = o->live;
	return RP_OK;
}

static rp_status rphip_destroy(rphip_state *s, rphip_kind kind, uint64_t cap, rp_diag *diag)
{
	static const char *what[] = {"", "module", "function", "stream", "event", "graph", "graph exec",
	                             "HIP array", "HIP context", "mipmapped array"};
	rphip_obj *o = rphip_obj_get(s, kind, cap);
	hipError_t r = hipSuccess;
	const char *fn = "";

	if (!o)
		return rphip_failed_has(s, cap) ? RP_OK : rphip_unknown(s, diag, what[kind], cap);
	switch (kind) {
	case RPHIP_O_STREAM:
		s->rt.p_hipStreamSynchronize(o->live);
		r = s->rt.p_hipStreamDestroy(o->live);
		fn = "hipStreamDestroy";
		break;
	case RPHIP_O_EVENT:
		r = s->rt.p_hipEventDestroy(o->live);
		fn = "hipEventDestroy";
		break;
	case RPHIP_O_GRAPH:
		if (o->live) /* a graph built node by node has none until instantiated */
			r = s->rt.p_hipGraphDestroy(o->live);
		fn = "hipGraphDestroy";
		break;
	case RPHIP_O_GRAPHEXEC:
		s->rt.p_hipDeviceSynchronize();
		if (o->live) /* an exec of a graph changed by a call not modeled has none */
			r = s->rt.p_hipGraphExecDestroy(o->live);
		if (o->live_graph)
			s->rt.p_hipGraphDestroy(o->live_graph);
		fn = "hipGraphExecDestroy";
		break;
	default:
		break;
	}
	rphip_obj_del(s, o);
	return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, fn, r);
}

static rp_status rphip_graph(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                             rp_diag *diag)
{
	hipStream_t stream;
	rphip_obj *so, *o;
	hipError_t r;
	rp_status st;

	switch (hc) {
	case SBT_CM_HIP_hipStreamBeginCapture:
		if (s->single)
			return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
			                  "stream capture cannot be replayed with --streams single (it needs "
			                  "a stream); replay with --streams multi");
		if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipStreamBeginCapture(stream, (hipStreamCaptureMode)c->flags);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipStreamBeginCapture", r);
		if (!so)
			return RP_OK;
		so->capturing = 1;
		return rphip_graph_capture_begin(s, so, diag);
	case SBT_CM_HIP_hipStreamEndCapture: {
		hipGraph_t g = NULL;
		struct rphip_gnodes *work = NULL;
		char *why = NULL;
		if ((st = rphip_stream(s, c->stream, &stream, &so, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipStreamEndCapture(stream, &g);
		if (so) {
			/* taken before rphip_obj_put, which may move so */
			so->capturing = 0;
			work = so->cap_gn;
			why = so->cap_why;
			so->cap_gn = NULL;
			so->cap_why = NULL;
		}
		if (r != hipSuccess) {
			st = rphip_hipfail(s, diag, "hipStreamEndCapture", r);
			goto out_end_capture;
		}
		if (!(o = rphip_obj_put(s, RPHIP_O_GRAPH, c->handle))) {
			st = rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			goto out_end_capture;
		}
		o->live = g;
		o->cap_gn = work;
		o->cap_why = why;
		return RP_OK;
	out_end_capture:
		rphip_gnodes_free(work);
		free(why);
		return st;
	}
	case SBT_CM_HIP_hipGraphInstantiate:
	case SBT_CM_HIP_hipGraphInstantiateWithFlags: {
		hipGraphExec_t e = NULL;
		rphip_obj *g = rphip_obj_get(s, RPHIP_O_GRAPH, c->parent);
		if (!g)
			return rphip_unknown(s, diag, "graph", c->parent);
		if (g->not_modeled) { /* kept, never made: its launches are refused */
			if (!(o = rphip_obj_put(s, RPHIP_O_GRAPHEXEC, c->handle)) ||
			    !(o->not_modeled = strdup(g->not_modeled)))
				return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			return RP_OK;
		}
		if (g->gn)
			return rphip_graph_instantiate_nodes(s, g, c, diag);
		r = s->rt.p_hipGraphInstantiate(&e, g->live, NULL, NULL, 0);
		if (r != hipSuccess)
			return rphip_hipfail(s, diag, "hipGraphInstantiate", r);
		if (!(o = rphip_obj_put(s, RPHIP_O_GRAPHEXEC, c->handle)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		o->live = e;
		return RP_OK;
	}
	case SBT_CM_HIP_hipGraphLaunch: {
		rphip_obj *e = rphip_obj_get(s, RPHIP_O_GRAPHEXEC, c->handle);
		if (!e)
			return rphip_unknown(s, diag, "graph exec", c->handle);
		if ((st = rphip_graph_launch_check(s, e, diag)) != RP_OK ||
		    (st = rphip_graph_exec_refresh(s, e, diag)) != RP_OK ||
		    (st = rphip_stream(s, c->stream, &stream, NULL, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipGraphLaunch(e->live, stream);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipGraphLaunch", r);
	}
	case SBT_CM_HIP_hipGraphExecDestroy:
		return rphip_destroy(s, RPHIP_O_GRAPHEXEC, c->handle, diag);
	case SBT_CM_HIP_hipGraphDestroy:
		return rphip_destroy(s, RPHIP_O_GRAPH, c->handle, diag);
	default:
		return RP_OK;
	}
}

/* ---- the table of calls ----------------------------------------------------------------- */

/* Records made on a device (their device field; absent: 0). */
static int rphip_is_per_device(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipMalloc: case SBT_CM_HIP_hipMallocPitch: case SBT_CM_HIP_hipMallocAsync:
	case SBT_CM_HIP_hipMallocFromPoolAsync: case SBT_CM_HIP_hipMallocManaged:
	case SBT_CM_HIP_hipStreamCreate: case SBT_CM_HIP_hipStreamCreateWithFlags:
	case SBT_CM_HIP_hipStreamCreateWithPriority:
	case SBT_CM_HIP_hipModuleLoad: case SBT_CM_HIP_hipModuleLoadData:
	case SBT_CM_HIP_hipModuleLoadDataEx:
	case SBT_CM_HIP_hipMallocArray: case SBT_CM_HIP_hipArrayCreate:
	case SBT_CM_HIP_hipArray3DCreate: case SBT_CM_HIP_hipMalloc3DArray:
	case SBT_CM_HIP_hipMipmappedArrayCreate:
	case SBT_CM_HIP_hipMemCreate: case SBT_CM_HIP_hipMemSetAccess:
		return 1;
	default:
		return 0;
	}
}

/* Work recorded into a capture on a stream the replay does not capture:
 * the capture began where the interposer did not see it (before it was
 * loaded, or through a call it does not wrap; it found the capture at the
 * stream's first work and recorded capture_status), so the replay begins
 * one there now, in relaxed mode as for a recorded hipStreamBeginCapture. */
static rp_status rphip_capture_unseen(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *so = rphip_obj_get(s, RPHIP_O_STREAM, c->stream);
	hipError_t r;

	if (!so || so->capturing)
		return RP_OK; /* an unknown stream: the record's own path names it */
	if (s->single)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
		                  "stream capture cannot be replayed with --streams single (it needs "
		                  "a stream); replay with --streams multi");
	r = s->rt.p_hipStreamBeginCapture(so->live, hipStreamCaptureModeRelaxed);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipStreamBeginCapture", r);
	so->capturing = 1;
	return rphip_graph_capture_begin(s, so, diag);
}

static rp_status rphip_exec_call(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                 rp_diag *diag)
{
	hipStream_t stream;
	hipEvent_t ev = NULL;
	hipError_t r;
	rp_status st;

	if (hc != SBT_CM_HIP_hipSetDevice && !rphip_is_ctx(hc) &&
	    (st = rphip_is_per_device(hc) ? rphip_use_device(s, c->device, diag)
	                                  : rphip_use_thread_device(s, diag)) != RP_OK)
		return st;
	if (c->capture_status == hipStreamCaptureStatusActive && c->stream && !s->build &&
	    (st = rphip_capture_unseen(s, c, diag)) != RP_OK)
		return st;
	switch (hc) {
	case SBT_CM_HIP___hipRegisterFatBinary:
	case SBT_CM_HIP_hipModuleLoad:
	case SBT_CM_HIP_hipModuleLoadData:
	case SBT_CM_HIP_hipModuleLoadDataEx:
		return rphip_module_load(s, c, diag);
	case SBT_CM_HIP___hipUnregisterFatBinary:
	case SBT_CM_HIP_hipModuleUnload:
		return rphip_module_unload(s, c, diag);
	case SBT_CM_HIP___hipRegisterFunction:
	case SBT_CM_HIP_hipModuleGetFunction:
		return rphip_function(s, c, diag);
	case SBT_CM_HIP___hipRegisterVar:
		return rphip_global(s, c, c->host, diag);
	case SBT_CM_HIP_hipModuleGetGlobal:
		return rphip_global(s, c, c->dst, diag);
	case SBT_CM_HIP_hipLaunchKernel:
	case SBT_CM_HIP_hipModuleLaunchKernel:
	case SBT_CM_HIP_hipExtModuleLaunchKernel:
	case SBT_CM_HIP_hipLaunchCooperativeKernel:
		return rphip_launch(s, hc, c, diag);
	case SBT_CM_HIP___hipPushCallConfiguration:
		return RP_OK; /* only recorded when it failed: skipped before here */
	case SBT_CM_HIP_hipLaunchHostFunc:
		return RP_OK; /* host code is never replayed */
	case SBT_CM_HIP_hipInit:
		return RP_OK;
	case SBT_CM_HIP_hipSetDevice:
		return rphip_set_thread_device(s, c->device, diag);
	case SBT_CM_HIP_hipCtxCreate: case SBT_CM_HIP_hipCtxDestroy:
	case SBT_CM_HIP_hipCtxSetCurrent: case SBT_CM_HIP_hipCtxGetCurrent:
	case SBT_CM_HIP_hipCtxPushCurrent: case SBT_CM_HIP_hipCtxPopCurrent:
	case SBT_CM_HIP_hipDevicePrimaryCtxRetain: case SBT_CM_HIP_hipDevicePrimaryCtxRelease:
	case SBT_CM_HIP_hipCtxGetDevice:
		return rphip_ctx(s, hc, c, diag);
	case SBT_CM_HIP_hipDeviceSynchronize:
	case SBT_CM_HIP_hipDeviceReset: /* reset: what it would destroy is rebuilt by the trace */
		r = s->rt.p_hipDeviceSynchronize();
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipDeviceSynchronize", r);
	case SBT_CM_HIP_hipMalloc:
	case SBT_CM_HIP_hipMallocPitch:
	case SBT_CM_HIP_hipMallocAsync:
	case SBT_CM_HIP_hipMallocFromPoolAsync:
	case SBT_CM_HIP_hipMallocManaged:
		if (hc != SBT_CM_HIP_hipMalloc && hc != SBT_CM_HIP_hipMallocPitch) {
			if (!s->warned_nomem_kind && !s->quiet)
				fprintf(stderr, "tsreplay: hip: %s replayed as a device allocation\n", s->call);
			s->warned_nomem_kind = 1;
		}
		return rphip_alloc(s, c, diag);
	case SBT_CM_HIP_hipFree:
	case SBT_CM_HIP_hipFreeAsync:
		return rphip_free(s, c, diag);
	case SBT_CM_HIP_hipHostMalloc:
	case SBT_CM_HIP_hipHostRegister:
	case SBT_CM_HIP_hipHostFree:
	case SBT_CM_HIP_hipHostUnregister:
		return RP_OK; /* host memory: copies carry their bytes */
	case SBT_CM_HIP_hipMemcpy: case SBT_CM_HIP_hipMemcpyAsync:
	case SBT_CM_HIP_hipMemcpyHtoD: case SBT_CM_HIP_hipMemcpyHtoDAsync:
	case SBT_CM_HIP_hipMemcpyDtoH: case SBT_CM_HIP_hipMemcpyDtoHAsync:
	case SBT_CM_HIP_hipMemcpyDtoD: case SBT_CM_HIP_hipMemcpyDtoDAsync:
	case SBT_CM_HIP_hipMemcpyToSymbol: case SBT_CM_HIP_hipMemcpyToSymbolAsync:
	case SBT_CM_HIP_hipMemcpyFromSymbol: case SBT_CM_HIP_hipMemcpyFromSymbolAsync:
		return rphip_copy_run(s, hc, c, diag);
	case SBT_CM_HIP_hipMemset: case SBT_CM_HIP_hipMemsetAsync:
	case SBT_CM_HIP_hipMemsetD8: case SBT_CM_HIP_hipMemsetD16: case SBT_CM_HIP_hipMemsetD32:
	case SBT_CM_HIP_hipMemsetD8Async: case SBT_CM_HIP_hipMemsetD16Async:
	case SBT_CM_HIP_hipMemsetD32Async:
		return rphip_memset(s, hc, c, diag);
	case SBT_CM_HIP_hipMemcpy2D: case SBT_CM_HIP_hipMemcpy2DAsync:
	case SBT_CM_HIP_hipMemcpyParam2D: case SBT_CM_HIP_hipMemcpyParam2DAsync:
	case SBT_CM_HIP_hipMemcpy3D: case SBT_CM_HIP_hipMemcpy3DAsync:
	case SBT_CM_HIP_hipMemcpy2DToArray: case SBT_CM_HIP_hipMemcpy2DToArrayAsync:
	case SBT_CM_HIP_hipMemcpy2DFromArray: case SBT_CM_HIP_hipMemcpy2DFromArrayAsync:
	case SBT_CM_HIP_hipMemcpyToArray: case SBT_CM_HIP_hipMemcpyFromArray:
		return rphip_copy_pitched(s, hc, c, diag);
	case SBT_CM_HIP_hipMallocArray: case SBT_CM_HIP_hipArrayCreate:
	case SBT_CM_HIP_hipArray3DCreate: case SBT_CM_HIP_hipMalloc3DArray:
		return rphip_array_create(s, c, diag);
	case SBT_CM_HIP_hipMipmappedArrayCreate: case SBT_CM_HIP_hipMipmappedArrayGetLevel:
	case SBT_CM_HIP_hipMipmappedArrayDestroy:
		return rphip_mipmap(s, hc, c, diag);
	case SBT_CM_HIP_hipMallocMipmappedArray: case SBT_CM_HIP_hipFreeMipmappedArray:
	case SBT_CM_HIP_hipGetMipmappedArrayLevel:
		/* failed calls (ROCm 5.2's clr answers hipErrorNotSupported) were
		 * skipped before here */
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "a mipmapped array call that worked at "
		                  "capture: mipmapped arrays are not replayed by the HIP backend (ROCm "
		                  "5.2's runtime refuses them with hipErrorNotSupported)");
	case SBT_CM_HIP_hipFreeArray: case SBT_CM_HIP_hipArrayDestroy:
		return rphip_array_destroy(s, c, diag);
	case SBT_CM_HIP_hipMemcpyPeer: case SBT_CM_HIP_hipMemcpyPeerAsync:
		return rphip_copy_peer(s, hc, c, diag);
	case SBT_CM_HIP_hipMemset2D: case SBT_CM_HIP_hipMemset2DAsync:
	case SBT_CM_HIP_hipMemset3D: case SBT_CM_HIP_hipMemset3DAsync:
		return rphip_memset_pitched(s, hc, c, diag);
	case SBT_CM_HIP_hipStreamCreate:
	case SBT_CM_HIP_hipStreamCreateWithFlags:
	case SBT_CM_HIP_hipStreamCreateWithPriority:
		return rphip_stream_create(s, c, diag);
	case SBT_CM_HIP_hipStreamDestroy:
		return rphip_destroy(s, RPHIP_O_STREAM, c->stream, diag);
	case SBT_CM_HIP_hipStreamSynchronize:
	case SBT_CM_HIP_hipStreamQuery:
		if ((st = rphip_stream(s, c->stream, &stream, NULL, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipStreamSynchronize(stream);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipStreamSynchronize", r);
	case SBT_CM_HIP_hipStreamWaitEvent:
		if ((st = rphip_stream(s, c->stream, &stream, NULL, diag)) != RP_OK ||
		    (st = rphip_event(s, c->event, &ev, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipStreamWaitEvent(stream, ev, (unsigned)c->flags);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipStreamWaitEvent", r);
	case SBT_CM_HIP_hipEventCreate:
	case SBT_CM_HIP_hipEventCreateWithFlags:
		return rphip_event_create(s, c, diag);
	case SBT_CM_HIP_hipEventDestroy:
		return rphip_destroy(s, RPHIP_O_EVENT, c->event, diag);
	case SBT_CM_HIP_hipEventRecord:
		if ((st = rphip_stream(s, c->stream, &stream, NULL, diag)) != RP_OK ||
		    (st = rphip_event(s, c->event, &ev, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipEventRecord(ev, stream);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipEventRecord", r);
	case SBT_CM_HIP_hipEventSynchronize:
	case SBT_CM_HIP_hipEventQuery:
		if ((st = rphip_event(s, c->event, &ev, diag)) != RP_OK)
			return st;
		r = s->rt.p_hipEventSynchronize(ev);
		return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipEventSynchronize", r);
	case SBT_CM_HIP_hipStreamBeginCapture:
	case SBT_CM_HIP_hipStreamEndCapture:
	case SBT_CM_HIP_hipGraphInstantiate:
	case SBT_CM_HIP_hipGraphLaunch:
	case SBT_CM_HIP_hipGraphExecDestroy:
	case SBT_CM_HIP_hipGraphDestroy:
	case SBT_CM_HIP_hipGraphInstantiateWithFlags:
		return rphip_graph(s, hc, c, diag);
	case SBT_CM_HIP_hipGraphCreate: case SBT_CM_HIP_hipGraphAddKernelNode:
	case SBT_CM_HIP_hipGraphAddMemcpyNode: case SBT_CM_HIP_hipGraphAddMemcpyNode1D:
	case SBT_CM_HIP_hipGraphAddMemsetNode: case SBT_CM_HIP_hipGraphAddEmptyNode:
	case SBT_CM_HIP_hipGraphAddDependencies: case SBT_CM_HIP_hipGraphKernelNodeSetParams:
	case SBT_CM_HIP_hipGraphDestroyNode: case SBT_CM_HIP_hipGraphRemoveDependencies:
	case SBT_CM_HIP_hipGraphAddChildGraphNode:
		return rphip_graph_build(s, hc, c, diag);
	case SBT_CM_HIP_tsGraphNotModeled:
		return rphip_graph_not_modeled(s, c, diag);
	case SBT_CM_HIP_hipGraphExecKernelNodeSetParams:
	case SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams:
	case SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams1D:
	case SBT_CM_HIP_hipGraphExecMemsetNodeSetParams:
		return rphip_graph_exec_set(s, hc, c, diag);
	case SBT_CM_HIP_hipGraphExecUpdate:
		return rphip_graph_exec_update(s, c, diag);
	case SBT_CM_HIP_tsVaWindow:
		return rphip_window_reserve(s, c, diag);
	case SBT_CM_HIP_hipMemAddressReserve: case SBT_CM_HIP_hipMemAddressFree:
	case SBT_CM_HIP_hipMemCreate: case SBT_CM_HIP_hipMemRelease:
	case SBT_CM_HIP_hipMemMap: case SBT_CM_HIP_hipMemUnmap:
	case SBT_CM_HIP_hipMemSetAccess:
		return rphip_vmm(s, hc, c, diag);
	case SBT_CM_HIP_tsSnapshot:
		return rphip_snapshot(s, c, diag);
	case SBT_CM_HIP_COUNT:
		break;
	}
	return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "not replayed by the HIP backend");
}

int rphip_exec_is_state(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP___hipRegisterFatBinary: case SBT_CM_HIP___hipRegisterFunction:
	case SBT_CM_HIP___hipRegisterVar: case SBT_CM_HIP___hipUnregisterFatBinary:
	case SBT_CM_HIP_hipInit: case SBT_CM_HIP_hipSetDevice:
	case SBT_CM_HIP_hipModuleLoad: case SBT_CM_HIP_hipModuleLoadData:
	case SBT_CM_HIP_hipModuleLoadDataEx: case SBT_CM_HIP_hipModuleUnload:
	case SBT_CM_HIP_hipModuleGetFunction: case SBT_CM_HIP_hipModuleGetGlobal:
	case SBT_CM_HIP_hipGraphInstantiate: case SBT_CM_HIP_hipGraphExecDestroy:
	case SBT_CM_HIP_hipGraphDestroy:
	case SBT_CM_HIP_hipMalloc: case SBT_CM_HIP_hipMallocPitch: case SBT_CM_HIP_hipMallocAsync:
	case SBT_CM_HIP_hipMallocFromPoolAsync: case SBT_CM_HIP_hipMallocManaged:
	case SBT_CM_HIP_hipHostMalloc: case SBT_CM_HIP_hipHostRegister:
	case SBT_CM_HIP_hipFree: case SBT_CM_HIP_hipFreeAsync: case SBT_CM_HIP_hipHostFree:
	case SBT_CM_HIP_hipHostUnregister:
	case SBT_CM_HIP_hipStreamCreate: case SBT_CM_HIP_hipStreamCreateWithFlags:
	case SBT_CM_HIP_hipStreamCreateWithPriority: case SBT_CM_HIP_hipStreamDestroy:
	case SBT_CM_HIP_hipStreamBeginCapture: case SBT_CM_HIP_hipStreamEndCapture:
	case SBT_CM_HIP_hipEventCreate: case SBT_CM_HIP_hipEventCreateWithFlags:
	case SBT_CM_HIP_hipEventDestroy:
	case SBT_CM_HIP_tsVaWindow:
	case SBT_CM_HIP_hipMallocArray: case SBT_CM_HIP_hipArrayCreate:
	case SBT_CM_HIP_hipArray3DCreate: case SBT_CM_HIP_hipFreeArray:
	case SBT_CM_HIP_hipArrayDestroy: case SBT_CM_HIP_hipMalloc3DArray:
	case SBT_CM_HIP_hipCtxCreate: case SBT_CM_HIP_hipCtxDestroy:
	case SBT_CM_HIP_hipCtxSetCurrent: case SBT_CM_HIP_hipCtxGetCurrent:
	case SBT_CM_HIP_hipCtxPushCurrent: case SBT_CM_HIP_hipCtxPopCurrent:
	case SBT_CM_HIP_hipDevicePrimaryCtxRetain:
	case SBT_CM_HIP_hipGraphCreate: case SBT_CM_HIP_hipGraphAddKernelNode:
	case SBT_CM_HIP_hipGraphAddMemcpyNode: case SBT_CM_HIP_hipGraphAddMemcpyNode1D:
	case SBT_CM_HIP_hipGraphAddMemsetNode: case SBT_CM_HIP_hipGraphAddEmptyNode:
	case SBT_CM_HIP_hipGraphAddDependencies: case SBT_CM_HIP_hipGraphInstantiateWithFlags:
	case SBT_CM_HIP_hipMipmappedArrayCreate: case SBT_CM_HIP_hipMipmappedArrayGetLevel:
	case SBT_CM_HIP_hipMipmappedArrayDestroy:
	case SBT_CM_HIP_tsGraphNotModeled: case SBT_CM_HIP_hipGraphKernelNodeSetParams:
	case SBT_CM_HIP_hipGraphDestroyNode: case SBT_CM_HIP_hipGraphRemoveDependencies:
	case SBT_CM_HIP_hipGraphAddChildGraphNode:
	case SBT_CM_HIP_hipGraphExecKernelNodeSetParams:
	case SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams:
	case SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams1D:
	case SBT_CM_HIP_hipGraphExecMemsetNodeSetParams:
	case SBT_CM_HIP_hipGraphExecUpdate:
		return 1;
	default:
		return rphip_is_vmm(hc);
	}
}

/* What --profile times: launches, copies, memsets and graph launches. */
static int rphip_is_timed(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipLaunchKernel: case SBT_CM_HIP_hipModuleLaunchKernel:
	case SBT_CM_HIP_hipExtModuleLaunchKernel: case SBT_CM_HIP_hipLaunchCooperativeKernel:
	case SBT_CM_HIP_hipGraphLaunch:
	case SBT_CM_HIP_hipMemcpy: case SBT_CM_HIP_hipMemcpyAsync:
	case SBT_CM_HIP_hipMemcpyHtoD: case SBT_CM_HIP_hipMemcpyHtoDAsync:
	case SBT_CM_HIP_hipMemcpyDtoH: case SBT_CM_HIP_hipMemcpyDtoHAsync:
	case SBT_CM_HIP_hipMemcpyDtoD: case SBT_CM_HIP_hipMemcpyDtoDAsync:
	case SBT_CM_HIP_hipMemcpyToSymbol: case SBT_CM_HIP_hipMemcpyToSymbolAsync:
	case SBT_CM_HIP_hipMemcpyFromSymbol: case SBT_CM_HIP_hipMemcpyFromSymbolAsync:
	case SBT_CM_HIP_hipMemset: case SBT_CM_HIP_hipMemsetAsync:
	case SBT_CM_HIP_hipMemsetD8: case SBT_CM_HIP_hipMemsetD16: case SBT_CM_HIP_hipMemsetD32:
	case SBT_CM_HIP_hipMemsetD8Async: case SBT_CM_HIP_hipMemsetD16Async:
	case SBT_CM_HIP_hipMemsetD32Async:
	case SBT_CM_HIP_hipMemcpy2D: case SBT_CM_HIP_hipMemcpy2DAsync:
	case SBT_CM_HIP_hipMemcpyPeer: case SBT_CM_HIP_hipMemcpyPeerAsync:
	case SBT_CM_HIP_hipMemset2D: case SBT_CM_HIP_hipMemset2DAsync:
	case SBT_CM_HIP_hipMemcpy3D: case SBT_CM_HIP_hipMemcpy3DAsync:
	case SBT_CM_HIP_hipMemcpyParam2D: case SBT_CM_HIP_hipMemcpyParam2DAsync:
	case SBT_CM_HIP_hipMemset3D: case SBT_CM_HIP_hipMemset3DAsync:
	case SBT_CM_HIP_hipMemcpy2DToArray: case SBT_CM_HIP_hipMemcpy2DToArrayAsync:
	case SBT_CM_HIP_hipMemcpy2DFromArray: case SBT_CM_HIP_hipMemcpy2DFromArrayAsync:
	case SBT_CM_HIP_hipMemcpyToArray: case SBT_CM_HIP_hipMemcpyFromArray:
		return 1;
	default:
		return 0;
	}
}

rp_status rphip_exec(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *e;
	rp_status st;

	/* an exec its setters changed is built again before its launch is
	 * timed (the launch itself does it otherwise) */
	if (hc == SBT_CM_HIP_hipGraphLaunch && s->profile &&
	    (e = rphip_obj_get(s, RPHIP_O_GRAPHEXEC, c->handle)) && !e->not_modeled &&
	    (st = rphip_graph_exec_refresh(s, e, diag)) != RP_OK)
		return st;
	st = s->profile && rphip_is_timed(hc) ? rphip_profile_exec(s, hc, c, rphip_exec_call, diag)
	                                      : rphip_exec_call(s, hc, c, diag);

	/* work replayed into a capture is kept for child graph nodes of its graph */
	if (st == RP_OK && c->capture_status == hipStreamCaptureStatusActive && c->stream &&
	    !s->build)
		st = rphip_graph_capture_note(s, hc, c, diag);
	return st;
}

void rphip_teardown(rphip_state *s)
{
	/* what uses another goes first: graph execs, graphs, events, streams,
	 * then the modules their functions came from */
	static const rphip_kind order[] = {RPHIP_O_GRAPHEXEC, RPHIP_O_GRAPH, RPHIP_O_EVENT,
	                                   RPHIP_O_STREAM, RPHIP_O_MODULE, RPHIP_O_ARRAY,
	                                   RPHIP_O_MIPMAP, RPHIP_O_MEMHANDLE};

	s->rt.p_hipDeviceSynchronize();
	if (s->cur_dev != s->device_base && s->rt.p_hipSetDevice(s->device_base) == hipSuccess)
		s->cur_dev = s->device_base;
	s->nthread_devs = 0;
	rphip_vmm_unmap_all(s);
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		for (size_t i = 0; i < s->objs.cap; i++) {
			rphip_obj *o = (rphip_obj *)rp_cm_handles_at(&s->objs, sizeof(rphip_obj), i);
			if (o->dead || o->kind != order[k])
				continue;
			switch (o->kind) {
			case RPHIP_O_GRAPHEXEC:
				if (o->live)
					s->rt.p_hipGraphExecDestroy(o->live);
				if (o->live_graph)
					s->rt.p_hipGraphDestroy(o->live_graph);
				break;
			case RPHIP_O_GRAPH:
				if (o->live)
					s->rt.p_hipGraphDestroy(o->live);
				break;
			case RPHIP_O_EVENT: s->rt.p_hipEventDestroy(o->live); break;
			case RPHIP_O_STREAM:
				if (o->capturing) {
					hipGraph_t g = NULL;
					if (s->rt.p_hipStreamEndCapture(o->live, &g) == hipSuccess && g)
						s->rt.p_hipGraphDestroy(g);
				}
				s->rt.p_hipStreamDestroy(o->live);
				break;
			case RPHIP_O_MODULE: s->rt.p_hipModuleUnload(o->live); break;
			case RPHIP_O_ARRAY: /* a level's view goes with its mipmapped array */
				if (!o->module)
					s->rt.p_hipFreeArray(o->live);
				break;
			case RPHIP_O_MIPMAP: s->rt.p_hipMipmappedArrayDestroy(o->live); break;
			case RPHIP_O_MEMHANDLE: s->rt.p_hipMemRelease(o->live); break;
			default: break;
			}
		}
	}
	rp_cm_handles_free(&s->objs, sizeof(rphip_obj), rphip_obj_release);
	while (s->nranges)
		rphip_range_release(s, s->nranges - 1);
	rphip_windows_release(s);
	for (size_t i = 0; i < s->ncopies; i++)
		free(s->copies[i].buf);
	s->ncopies = 0;
	for (size_t i = 0; i < s->nkeep; i++)
		free(s->keep[i]);
	s->nkeep = 0;
	s->failed.n = 0;
	s->moved = s->placed = 0;
	s->not_run_seq = 0;
	s->noted_mismatch = 0;
	s->snap_left = 0;
	s->kf_left = 0;
	s->kf_noted = 0;
	s->state_only = 0;
	if (s->rt.not_run)
		s->not_run_seen = s->rt.not_run();
}
