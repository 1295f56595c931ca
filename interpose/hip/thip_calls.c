/*
 * thip_calls.c - the HIP entry points the interposer exports: each calls
 * the runtime's own, then (outermost and recording) records what happened
 * as a "hip.<call>" record of the compute model, failures included with
 * their hipError_t.  Field meanings: serializer/sbt_compute.h; which calls
 * and why: docs/hip.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

/* Not declared by the HIP headers: what hipcc's generated code calls at
 * program start and exit (signatures of ROCm's clr, hip_platform.cpp). */
void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                      size_t size, int constant, int global);
void __hipRegisterManagedVar(void *hipModule, void **pointer, void *init_value, const char *name,
                             size_t size, unsigned align);
void __hipUnregisterFatBinary(void **modules);
/* hip_ext.h declares these for C++ only; ROCm 5.2 exports the mangled one. */
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent, uint32_t flags);
hipError_t thip_ext_module_launch_mangled(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                          uint32_t lx, uint32_t ly, uint32_t lz, size_t shared,
                                          hipStream_t stream, void **params, void **extra,
                                          hipEvent_t start, hipEvent_t stop, uint32_t flags)
	__asm__(THIP_EXT_LAUNCH_MANGLED);
hipError_t hipLaunchKernel_spt(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                               void **args, size_t sharedMemBytes, hipStream_t stream);


/* Stream captures begun and not yet ended (hipStreamBeginCapture /
 * hipStreamEndCapture that worked).  While there are any, the work
 * recorded on a stream asks the runtime whether that stream captures: such
 * work was not executed, it became a graph node.  The runtime knows about
 * joined streams and invalidated captures; this count only spares the
 * question when nothing captures.
 *
 * The first work recorded on each created stream asks too, as CUDA's
 * interposer does (tcu_capture.c): a capture begun before this library
 * was loaded, or through a path it does not see (the runtime's own
 * function found with dlsym on its handle), is found there and counted
 * here as begun, so that the stream's work asks from then on and no
 * keyframe synchronizes the device meanwhile; the hipStreamEndCapture that
 * ends it takes it back (one ended where we do not see it keeps it: every
 * later call asks, correct, only slower).  Only while nothing else
 * captures: a stream found capturing then may have joined a capture we
 * saw.  The null stream and the per-thread one are not asked (clr 5.2
 * does not capture the null stream, and takes no hipStreamPerThread
 * handle in hipStreamIsCapturing).  thip_streams_asked holds the streams
 * asked once (under its mutex; a destroyed stream is dropped). */
static atomic_int thip_captures;
static struct {
	pthread_mutex_t mu;
	cap_umap asked; /* stream -> 1 */
} thip_streams_asked = {.mu = PTHREAD_MUTEX_INITIALIZER};

static hipStreamCaptureStatus thip_capture_ask(hipStream_t stream)
{
	__typeof__(hipStreamIsCapturing) *f = THIP_RT(hipStreamIsCapturing);
	hipStreamCaptureStatus st = hipStreamCaptureStatusNone;

	if (!f || f(stream, &st) != hipSuccess)
		return hipStreamCaptureStatusNone;
	return st;
}

/* Each thread remembers the last stream it found asked, valid while no
 * stream has been forgotten since (thip_streams_gen): a thread's run of
 * work on one stream takes no lock. */
static atomic_uint thip_streams_gen;
static _Thread_local struct {
	hipStream_t stream;
	unsigned gen;
} thip_streams_last;

/* The first work on a created stream: ask whether it captures (a capture
 * we did not see begin is counted as begun). */
static void thip_capture_first(hipStream_t stream)
{
	int first;
	unsigned gen;

	if (!stream || stream == hipStreamPerThread)
		return;
	gen = atomic_load_explicit(&thip_streams_gen, memory_order_acquire);
	if (thip_streams_last.stream == stream && thip_streams_last.gen == gen)
		return;
	thip_streams_last.stream = stream;
	thip_streams_last.gen = gen;
	pthread_mutex_lock(&thip_streams_asked.mu);
	first = !cap_umap_get(&thip_streams_asked.asked, THIP_U(stream)) &&
	        !cap_umap_put(&thip_streams_asked.asked, THIP_U(stream), (void *)(uintptr_t)1);
	pthread_mutex_unlock(&thip_streams_asked.mu);
	if (first && atomic_load(&thip_captures) == 0 &&
	    thip_capture_ask(stream) != hipStreamCaptureStatusNone) {
		atomic_fetch_add(&thip_captures, 1);
		CAP_INFO("hip: stream %p captures, begun where the interposer did not see it",
		         (void *)stream);
	}
}

/* A destroyed stream's handle may come back: ask again then. */
static void thip_capture_forget(hipStream_t stream)
{
	pthread_mutex_lock(&thip_streams_asked.mu);
	cap_umap_del(&thip_streams_asked.asked, THIP_U(stream));
	atomic_fetch_add_explicit(&thip_streams_gen, 1, memory_order_release);
	pthread_mutex_unlock(&thip_streams_asked.mu);
}

static uint64_t thip_capture_status(hipStream_t stream)
{
	thip_capture_first(stream);
	if (atomic_load_explicit(&thip_captures, memory_order_relaxed) <= 0)
		return 0;
	return (uint64_t)thip_capture_ask(stream);
}

/* Whether any stream capture is going on (keyframes wait then), after
 * the first-work question about stream (a launch's). */
static int thip_capturing_any(hipStream_t stream)
{
	thip_capture_first(stream);
	return atomic_load_explicit(&thip_captures, memory_order_relaxed) > 0;
}

/* hipMemcpyKind -> SBT_CM_COPY_*; hipMemcpyDefault from the allocation
 * table (0 when neither side is a known allocation). */
unsigned thip_copy_dir(hipMemcpyKind kind, const void *dst, const void *src)
{
	int dd, sd;
	switch (kind) {
	case hipMemcpyHostToDevice:
		return SBT_CM_COPY_HTOD;
	case hipMemcpyDeviceToHost:
		return SBT_CM_COPY_DTOH;
	case hipMemcpyDeviceToDevice:
		return SBT_CM_COPY_DTOD;
	case hipMemcpyHostToHost:
		return SBT_CM_COPY_HTOH;
	default:
		dd = thip_alloc_base(THIP_U(dst)) != 0;
		sd = thip_alloc_base(THIP_U(src)) != 0;
		if (dd && sd)
			return SBT_CM_COPY_DTOD;
		if (dd)
			return SBT_CM_COPY_HTOD;
		if (sd)
			return SBT_CM_COPY_DTOH;
		return 0;
	}
}

/* ---- registration ----------------------------------------------------------- */

void **__hipRegisterFatBinary(const void *data)
{
	thip_call call;
	void **(*real)(const void *) = (void **(*)(const void *))thip_begin(&call, THIP_FN___hipRegisterFatBinary);
	void **r = real ? real(data) : NULL;
	if (!call.nested) {
		thip_image img;
		unsigned version = 0;
		sbt_cm_call c;
		thip_image_capture(data, SIZE_MAX, call.record, &img, &version);
		if (call.record) {
			sbt_cm_call_init(&c);
			c.handle = THIP_U(r);
			c.blob = img.blob;
			c.size = img.size;
			c.sub = img.sub;
			c.value = version;
			if (!img.blob) {
				c.note = (const uint8_t *)img.note;
				c.note_len = strlen(img.note);
			}
			thip_record(SBT_CM_HIP___hipRegisterFatBinary, &c, 0);
			thip_count_module(!img.blob);
		}
		thip_module_add(THIP_U(r), &img);
	}
	thip_end(&call);
	return r;
}

void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize)
{
	thip_call call;
	void (*real)(void **, const void *, char *, const char *, unsigned int, void *, void *, dim3 *,
	             dim3 *, int *) =
		(void (*)(void **, const void *, char *, const char *, unsigned int, void *, void *, dim3 *,
	              dim3 *, int *))thip_begin(&call, THIP_FN___hipRegisterFunction);
	const char *name = deviceName ? deviceName : deviceFunction;
	if (real)
		real(modules, hostFunction, deviceFunction, deviceName, threadLimit, tid, bid, blockDim,
		     gridDim, wSize);
	if (!call.nested) {
		thip_function_add(THIP_U(hostFunction), THIP_U(modules), name);
		if (call.record) {
			sbt_cm_call c;
			sbt_cm_call_init(&c);
			c.handle = THIP_U(hostFunction);
			c.parent = THIP_U(modules);
			if (name) {
				c.name = (const uint8_t *)name;
				c.name_len = strlen(name);
			}
			thip_record(SBT_CM_HIP___hipRegisterFunction, &c, 0);
		}
	}
	thip_end(&call);
}

void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                      size_t size, int constant, int global)
{
	thip_call call;
	void (*real)(void **, void *, char *, char *, int, size_t, int, int) =
		(void (*)(void **, void *, char *, char *, int, size_t, int, int))thip_begin(
			&call, THIP_FN___hipRegisterVar);
	if (real)
		real(modules, var, hostVar, deviceVar, ext, size, constant, global);
	if (!call.nested) {
		thip_var_add(THIP_U(var), deviceVar, size, THIP_U(modules));
		if (call.record) {
			sbt_cm_call c;
			sbt_cm_call_init(&c);
			c.parent = THIP_U(modules);
			c.host = THIP_U(var);
			c.size = size;
			c.flags = (constant ? 1u : 0u) | (ext ? 2u : 0u);
			if (deviceVar) {
				c.name = (const uint8_t *)deviceVar;
				c.name_len = strlen(deviceVar);
			}
			thip_record(SBT_CM_HIP___hipRegisterVar, &c, 0);
		}
	}
	thip_end(&call);
}

void __hipRegisterManagedVar(void *hipModule, void **pointer, void *init_value, const char *name,
                             size_t size, unsigned align)
{
	thip_call call;
	void (*real)(void *, void **, void *, const char *, size_t, unsigned) =
		(void (*)(void *, void **, void *, const char *, size_t, unsigned))thip_begin(
			&call, THIP_FN___hipRegisterManagedVar);
	if (real)
		real(hipModule, pointer, init_value, name, size, align);
	thip_end(&call);
}

void __hipUnregisterFatBinary(void **modules)
{
	thip_call call;
	void (*real)(void **) = (void (*)(void **))thip_begin(&call, THIP_FN___hipUnregisterFatBinary);
	if (real)
		real(modules);
	if (!call.nested) {
		thip_module_remove(THIP_U(modules));
		if (call.record) {
			sbt_cm_call c;
			sbt_cm_call_init(&c);
			c.handle = THIP_U(modules);
			thip_record(SBT_CM_HIP___hipUnregisterFatBinary, &c, 0);
		}
	}
	thip_end(&call);
}

/* ---- launches --------------------------------------------------------------------- */

/* What one launch passes, as the model records it. */
typedef struct thip_launch {
	uint64_t fn;
	uint32_t grid[3], block[3];
	uint64_t shared, stream;
	void **params;
	void **extra;
	int ptds;
	uint64_t flags, event, value;
	const thip_node *node; /* a kernel node being added, not a launch */
} thip_launch;

/* The HIP_LAUNCH_PARAM_BUFFER_POINTER bytes of an `extra` array (at most
 * 16 pairs are read: the array has no length of its own). */
static const uint8_t *thip_extra_buffer(void **extra, size_t *len_out)
{
	const uint8_t *buf = NULL;
	size_t len = 0;
	for (int i = 0; extra && i < 32 && extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
			buf = extra[i + 1];
		else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
			len = *(const size_t *)extra[i + 1];
		else
			break;
	}
	*len_out = buf ? len : 0;
	return buf;
}

/*
 * A launch as the program's thread leaves it for the writer thread
 * (cap_record_begin_deferred; docs/capture.md "Deferred encoding"): the
 * call's scalars and its function entry (entries are never freed nor
 * changed: they outlive the trace), followed by params_len argument bytes
 * (kernelParams gathered at the layout's offsets, zero between) and
 * extra_len bytes of the `extra` buffer.  The writer makes the record's
 * payload from it (thip_launch_encode), the same one thip_record would
 * have made here.
 */
typedef struct thip_launch_raw {
	const thip_fninfo *fi;
	uint64_t result, handle, shared, stream, ptds, flags, event, value, capture_status;
	uint32_t grid[3], block[3];
	uint32_t params_len, extra_len;
} thip_launch_raw;

/* The payload of a raw launch (cap_encode_fn: on the writer thread, no
 * capture runtime call).  The sbt_cm_call is filled as thip_launch_record
 * fills it for a launch (no node, no device: launches are not per-device
 * records). */
static size_t thip_launch_encode(const uint8_t *raw, size_t raw_len, uint8_t *out,
                                 size_t out_cap)
{
	thip_launch_raw h;
	sbt_cm_call c;
	uint8_t layout[64 * SBT_CM_LAYOUT_BYTES];
	size_t max, len = 0;

	if (raw_len < sizeof(h))
		return 0;
	memcpy(&h, raw, sizeof(h));
	sbt_cm_call_init(&c);
	c.result = h.result;
	c.handle = h.handle;
	c.grid_x = h.grid[0];
	c.grid_y = h.grid[1];
	c.grid_z = h.grid[2];
	c.block_x = h.block[0];
	c.block_y = h.block[1];
	c.block_z = h.block[2];
	c.shared_mem = h.shared;
	c.stream = h.stream;
	c.ptds = h.ptds;
	c.flags = h.flags;
	c.event = h.event;
	c.value = h.value;
	c.capture_status = h.capture_status;
	if (h.fi) {
		c.name = (const uint8_t *)h.fi->name;
		c.name_len = strlen(h.fi->name);
	}
	if (h.fi && h.fi->known) {
		for (size_t a = 0; a < h.fi->nargs; a++)
			sbt_cm_layout_put(layout + a * SBT_CM_LAYOUT_BYTES, h.fi->offset[a],
			                  h.fi->size[a]);
		c.layout = layout;
		c.layout_len = h.fi->nargs * SBT_CM_LAYOUT_BYTES;
	}
	c.params = raw + sizeof(h);
	c.params_len = h.params_len;
	c.extra = raw + sizeof(h) + h.params_len;
	c.extra_len = h.extra_len;
	max = sbt_cm_encoded_max(&c);
	if (max > out_cap)
		return max;
	return sbt_cm_encode(&c, out, out_cap, &len) == SBT_OK ? len : 0;
}

/* A launch's record, left raw for the writer thread to encode: the
 * program's thread copies the scalars, the argument bytes and the `extra`
 * buffer (none of which outlives the call) and asks the capture status. */
static void thip_launch_record_deferred(sbt_cm_hip_call hcall, const thip_launch *l,
                                        hipError_t r)
{
	const thip_fninfo *fi = thip_function_find(l->fn);
	thip_launch_raw h;
	const uint8_t *extra = NULL;
	size_t params_len = 0, extra_len = 0;
	uint8_t *raw;
	cap_rec *rec;

	if (fi && fi->known && l->params)
		params_len = fi->params_len;
	if (l->extra)
		extra = thip_extra_buffer(l->extra, &extra_len);
	memset(&h, 0, sizeof(h));
	h.fi = fi;
	h.result = (uint64_t)r;
	h.handle = l->fn;
	memcpy(h.grid, l->grid, sizeof(h.grid));
	memcpy(h.block, l->block, sizeof(h.block));
	h.shared = l->shared;
	h.stream = l->stream;
	h.ptds = (uint64_t)l->ptds;
	h.flags = l->flags;
	h.event = l->event;
	h.value = l->value;
	h.capture_status = thip_capture_status((hipStream_t)(uintptr_t)l->stream);
	h.params_len = (uint32_t)params_len;
	h.extra_len = extra_len <= UINT32_MAX ? (uint32_t)extra_len : 0;
	raw = cap_record_begin_deferred(SBT_CM_HIP_TYPE(hcall), CAP_REC_WORK, thip_launch_encode,
	                                sizeof(h) + params_len + h.extra_len, &rec);
	if (!raw)
		return;
	memcpy(raw, &h, sizeof(h));
	if (params_len) {
		uint8_t *params = raw + sizeof(h);
		memset(params, 0, params_len);
		for (size_t a = 0; a < fi->nargs; a++)
			if (l->params[a])
				memcpy(params + fi->offset[a], l->params[a], fi->size[a]);
	}
	if (h.extra_len)
		memcpy(raw + sizeof(h) + params_len, extra, h.extra_len);
	cap_record_commit(rec, sizeof(h) + params_len + h.extra_len);
}

/* counted: 1 for a launch, 0 for a failed push (no launch was made).  A
 * launch's record is encoded by the writer thread; a kernel node's (its
 * dependencies are the caller's array) here. */
static void thip_launch_record(sbt_cm_hip_call hcall, const thip_launch *l, hipError_t r,
                               int counted)
{
	const thip_fninfo *fi;
	sbt_cm_call c;
	uint8_t layout[64 * SBT_CM_LAYOUT_BYTES];
	uint8_t *params = NULL;

	if (!l->node) {
		thip_launch_record_deferred(hcall, l, r);
		if (counted)
			thip_count_launch();
		return;
	}
	fi = thip_function_find(l->fn);

	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.handle = l->fn;
	c.grid_x = l->grid[0];
	c.grid_y = l->grid[1];
	c.grid_z = l->grid[2];
	c.block_x = l->block[0];
	c.block_y = l->block[1];
	c.block_z = l->block[2];
	c.shared_mem = l->shared;
	c.stream = l->stream;
	c.ptds = (uint64_t)l->ptds;
	c.flags = l->flags;
	c.event = l->event;
	c.value = l->value;
	c.capture_status = l->node ? 0 : thip_capture_status((hipStream_t)(uintptr_t)l->stream);
	if (l->node) {
		c.node = l->node->node;
		c.parent = l->node->graph;
		c.deps = l->node->deps;
		c.deps_len = l->node->deps_len;
	}
	if (fi) {
		c.name = (const uint8_t *)fi->name;
		c.name_len = strlen(fi->name);
	}
	if (fi && fi->known) {
		for (size_t a = 0; a < fi->nargs; a++)
			sbt_cm_layout_put(layout + a * SBT_CM_LAYOUT_BYTES, fi->offset[a], fi->size[a]);
		c.layout = layout;
		c.layout_len = fi->nargs * SBT_CM_LAYOUT_BYTES;
		/* kernelParams: one pointer per explicit argument, in order. */
		if (l->params && fi->params_len) {
			params = calloc(1, fi->params_len);
			if (params) {
				for (size_t a = 0; a < fi->nargs; a++)
					if (l->params[a])
						memcpy(params + fi->offset[a], l->params[a], fi->size[a]);
				c.params = params;
				c.params_len = fi->params_len;
			}
		}
	}
	if (l->extra) {
		size_t len = 0;
		const uint8_t *buf = thip_extra_buffer(l->extra, &len);
		c.extra = buf;
		c.extra_len = len;
	}
	thip_record(hcall, &c, l->node ? 0 : CAP_REC_WORK);
	if (counted)
		thip_count_launch();
	free(params);
}

void thip_kernel_node_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                             const hipKernelNodeParams *p)
{
	thip_launch l;

	if (!call->record)
		return;
	memset(&l, 0, sizeof(l));
	l.node = call->node;
	if (p) {
		l.fn = THIP_U(p->func);
		l.grid[0] = p->gridDim.x;
		l.grid[1] = p->gridDim.y;
		l.grid[2] = p->gridDim.z;
		l.block[0] = p->blockDim.x;
		l.block[1] = p->blockDim.y;
		l.block[2] = p->blockDim.z;
		l.shared = p->sharedMemBytes;
		l.params = p->kernelParams;
		l.extra = p->extra;
	}
	thip_launch_record(hcall, &l, r, 0);
}

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                      hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(dim3, dim3, size_t, hipStream_t) =
		(hipError_t(*)(dim3, dim3, size_t, hipStream_t))thip_begin(
			&call, THIP_FN___hipPushCallConfiguration);
	hipError_t r = real ? real(gridDim, blockDim, sharedMem, stream) : THIP_NO_RUNTIME;
	/* A push that failed is the only trace of its launch: the code hipcc
	 * generates for <<<>>> skips the kernel's stub then (measured with
	 * ROCm 5.2 and no GPU: 101, and no hipLaunchKernel follows). */
	if (call.record && r != hipSuccess) {
		thip_launch l = {0, {gridDim.x, gridDim.y, gridDim.z}, {blockDim.x, blockDim.y, blockDim.z},
		                 sharedMem, THIP_U(stream), NULL, NULL, 0, 0, 0, 0, NULL};
		thip_launch_record(SBT_CM_HIP___hipPushCallConfiguration, &l, r, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                     hipStream_t *stream)
{
	thip_call call;
	hipError_t (*real)(dim3 *, dim3 *, size_t *, hipStream_t *) =
		(hipError_t(*)(dim3 *, dim3 *, size_t *, hipStream_t *))thip_begin(
			&call, THIP_FN___hipPopCallConfiguration);
	hipError_t r = real ? real(gridDim, blockDim, sharedMem, stream) : THIP_NO_RUNTIME;
	thip_end(&call);
	return r;
}

static hipError_t thip_launch_kernel(thip_fn fn, const void *f, dim3 grid, dim3 block, void **args,
                                     size_t shared, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(const void *, dim3, dim3, void **, size_t, hipStream_t) =
		(hipError_t(*)(const void *, dim3, dim3, void **, size_t, hipStream_t))thip_begin(&call, fn);
	int capturing = thip_capturing_any(stream);
	uint64_t ordinal = call.record && real ? thip_kf_before(stream, capturing) : 0;
	hipError_t r = real ? real(f, grid, block, args, shared, stream) : THIP_NO_RUNTIME;
	if (call.record) {
		thip_launch l = {THIP_U(f), {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
		                 shared, THIP_U(stream), args, NULL, fn == THIP_FN_hipLaunchKernel_spt,
		                 0, 0, 0, NULL};
		thip_launch_record(SBT_CM_HIP_hipLaunchKernel, &l, r, 1);
		if (ordinal)
			thip_kf_after(ordinal, stream, capturing);
	}
	thip_end(&call);
	return r;
}

hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                           void **args, size_t sharedMemBytes, hipStream_t stream)
{
	return thip_launch_kernel(THIP_FN_hipLaunchKernel, function_address, numBlocks, dimBlocks,
	                          args, sharedMemBytes, stream);
}

hipError_t hipLaunchKernel_spt(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                               void **args, size_t sharedMemBytes, hipStream_t stream)
{
	return thip_launch_kernel(THIP_FN_hipLaunchKernel_spt, function_address, numBlocks, dimBlocks,
	                          args, sharedMemBytes, stream);
}

/* hipLaunchCooperativeKernel, and its _spt form (recorded as it with
 * ptds = 1: clr runs it on the thread's per-thread default stream, a
 * stream argument of 0 meaning that stream). */
static hipError_t thip_launch_cooperative(thip_fn fn, const void *f, dim3 gridDim,
                                          dim3 blockDimX, void **kernelParams,
                                          unsigned int sharedMemBytes, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(const void *, dim3, dim3, void **, unsigned int, hipStream_t) =
		(hipError_t(*)(const void *, dim3, dim3, void **, unsigned int, hipStream_t))thip_begin(
			&call, fn);
	int capturing = thip_capturing_any(stream);
	uint64_t ordinal = call.record && real ? thip_kf_before(stream, capturing) : 0;
	hipError_t r = real ? real(f, gridDim, blockDimX, kernelParams, sharedMemBytes, stream)
	                    : THIP_NO_RUNTIME;
	if (call.record) {
		thip_launch l = {THIP_U(f), {gridDim.x, gridDim.y, gridDim.z},
		                 {blockDimX.x, blockDimX.y, blockDimX.z}, sharedMemBytes, THIP_U(stream),
		                 kernelParams, NULL, fn == THIP_FN_hipLaunchCooperativeKernel_spt, 0, 0, 0,
		                 NULL};
		thip_launch_record(SBT_CM_HIP_hipLaunchCooperativeKernel, &l, r, 1);
		if (ordinal)
			thip_kf_after(ordinal, stream, capturing);
	}
	thip_end(&call);
	return r;
}

hipError_t hipLaunchCooperativeKernel(const void *f, dim3 gridDim, dim3 blockDimX,
                                      void **kernelParams, unsigned int sharedMemBytes,
                                      hipStream_t stream)
{
	return thip_launch_cooperative(THIP_FN_hipLaunchCooperativeKernel, f, gridDim, blockDimX,
	                               kernelParams, sharedMemBytes, stream);
}

hipError_t hipLaunchCooperativeKernel_spt(const void *f, dim3 gridDim, dim3 blockDim,
                                          void **kernelParams, uint32_t sharedMemBytes,
                                          hipStream_t hStream)
{
	return thip_launch_cooperative(THIP_FN_hipLaunchCooperativeKernel_spt, f, gridDim, blockDim,
	                               kernelParams, sharedMemBytes, hStream);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void **kernelParams, void **extra)
{
	thip_call call;
	hipError_t (*real)(hipFunction_t, unsigned int, unsigned int, unsigned int, unsigned int,
	                   unsigned int, unsigned int, unsigned int, hipStream_t, void **, void **) =
		(hipError_t(*)(hipFunction_t, unsigned int, unsigned int, unsigned int, unsigned int,
	                   unsigned int, unsigned int, unsigned int, hipStream_t, void **,
	                   void **))thip_begin(&call, THIP_FN_hipModuleLaunchKernel);
	int capturing = thip_capturing_any(stream);
	uint64_t ordinal = call.record && real ? thip_kf_before(stream, capturing) : 0;
	hipError_t r = real ? real(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
	                           sharedMemBytes, stream, kernelParams, extra)
	                    : THIP_NO_RUNTIME;
	if (call.record) {
		thip_launch l = {THIP_U(f), {gridDimX, gridDimY, gridDimZ},
		                 {blockDimX, blockDimY, blockDimZ}, sharedMemBytes, THIP_U(stream),
		                 kernelParams, extra, 0, 0, 0, 0, NULL};
		thip_launch_record(SBT_CM_HIP_hipModuleLaunchKernel, &l, r, 1);
		if (ordinal)
			thip_kf_after(ordinal, stream, capturing);
	}
	thip_end(&call);
	return r;
}

static hipError_t thip_ext_launch(thip_fn fn, hipFunction_t f, uint32_t gx, uint32_t gy,
                                  uint32_t gz, uint32_t lx, uint32_t ly, uint32_t lz,
                                  size_t shared, hipStream_t stream, void **params, void **extra,
                                  hipEvent_t start, hipEvent_t stop, uint32_t flags)
{
	thip_call call;
	hipError_t (*real)(hipFunction_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
	                   size_t, hipStream_t, void **, void **, hipEvent_t, hipEvent_t, uint32_t) =
		(hipError_t(*)(hipFunction_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
	                   size_t, hipStream_t, void **, void **, hipEvent_t, hipEvent_t,
	                   uint32_t))thip_begin(&call, fn);
	int capturing = thip_capturing_any(stream);
	uint64_t ordinal = call.record && real ? thip_kf_before(stream, capturing) : 0;
	hipError_t r = real ? real(f, gx, gy, gz, lx, ly, lz, shared, stream, params, extra, start,
	                           stop, flags)
	                    : THIP_NO_RUNTIME;
	if (call.record) {
		thip_launch l = {THIP_U(f), {gx, gy, gz}, {lx, ly, lz}, shared, THIP_U(stream),
		                 params, extra, 0, flags, THIP_U(start), THIP_U(stop), NULL};
		thip_launch_record(SBT_CM_HIP_hipExtModuleLaunchKernel, &l, r, 1);
		if (ordinal)
			thip_kf_after(ordinal, stream, capturing);
	}
	thip_end(&call);
	return r;
}

hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent, uint32_t flags)
{
	return thip_ext_launch(THIP_FN_hipExtModuleLaunchKernel, f, globalWorkSizeX, globalWorkSizeY,
	                       globalWorkSizeZ, localWorkSizeX, localWorkSizeY, localWorkSizeZ,
	                       sharedMemBytes, hStream, kernelParams, extra, startEvent, stopEvent,
	                       flags);
}

hipError_t thip_ext_module_launch_mangled(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                          uint32_t lx, uint32_t ly, uint32_t lz, size_t shared,
                                          hipStream_t stream, void **params, void **extra,
                                          hipEvent_t start, hipEvent_t stop, uint32_t flags)
{
	return thip_ext_launch(THIP_FN_hipExtModuleLaunchKernel_mangled, f, gx, gy, gz, lx, ly, lz,
	                       shared, stream, params, extra, start, stop, flags);
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)
{
	thip_call call;
	hipError_t (*real)(hipStream_t, hipHostFn_t, void *) =
		(hipError_t(*)(hipStream_t, hipHostFn_t, void *))thip_begin(&call, THIP_FN_hipLaunchHostFunc);
	hipError_t r = real ? real(stream, fn, userData) : THIP_NO_RUNTIME;
	if (call.record) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.stream = THIP_U(stream);
		thip_record(SBT_CM_HIP_hipLaunchHostFunc, &c, CAP_REC_WORK);
	}
	thip_end(&call);
	return r;
}

/* ---- modules ---------------------------------------------------------------------- */

/* A module load: the image stored, the record written, the module's
 * metadata kept for its functions. */
static void thip_module_load_record(sbt_cm_hip_call hcall, const thip_call *call, hipError_t r,
                                    hipModule_t *module, const void *image, size_t len,
                                    const char *file, const uint8_t *jit, size_t jit_len)
{
	thip_image img;
	sbt_cm_call c;
	uint64_t handle = r == hipSuccess && module ? THIP_U(*module) : 0;
	thip_image_capture(image, len, call->record, &img, NULL);
	if (call->record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.handle = handle;
		c.blob = img.blob;
		c.size = img.size;
		c.sub = img.sub;
		if (!img.blob) {
			c.note = (const uint8_t *)img.note;
			c.note_len = strlen(img.note);
		}
		if (file) {
			c.name = (const uint8_t *)file;
			c.name_len = strlen(file);
		}
		c.jit = jit;
		c.jit_len = jit_len;
		thip_record(hcall, &c, 0);
		thip_count_module(!img.blob);
	}
	if (handle)
		thip_module_add(handle, &img);
	sbt_amd_meta_free(img.meta);
}

/* A file's bytes (NULL when it cannot be read; *why says so). */
static uint8_t *thip_read_file(const char *path, size_t *len_out, char *why, size_t n)
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	uint8_t *buf = NULL;
	long len = -1;
	if (!f) {
		snprintf(why, n, "cannot open %s", path ? path : "(null)");
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0)
		len = ftell(f);
	if (len <= 0 || fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc((size_t)len)) ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		snprintf(why, n, "cannot read %s", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len_out = buf ? (size_t)len : 0;
	return buf;
}

hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
	thip_call call;
	hipError_t (*real)(hipModule_t *, const char *) =
		(hipError_t(*)(hipModule_t *, const char *))thip_begin(&call, THIP_FN_hipModuleLoad);
	hipError_t r = real ? real(module, fname) : THIP_NO_RUNTIME;
	if (!call.nested) {
		char why[160] = "";
		size_t len = 0;
		uint8_t *bytes = thip_read_file(fname, &len, why, sizeof(why));
		if (!bytes)
			CAP_WARN("hip: hipModuleLoad: %s: image not captured", why);
		thip_module_load_record(SBT_CM_HIP_hipModuleLoad, &call, r, module, bytes, len, fname,
		                        NULL, 0);
		free(bytes);
	}
	thip_end(&call);
	return r;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
	thip_call call;
	hipError_t (*real)(hipModule_t *, const void *) =
		(hipError_t(*)(hipModule_t *, const void *))thip_begin(&call, THIP_FN_hipModuleLoadData);
	hipError_t r = real ? real(module, image) : THIP_NO_RUNTIME;
	if (!call.nested)
		thip_module_load_record(SBT_CM_HIP_hipModuleLoadData, &call, r, module, image, SIZE_MAX,
		                        NULL, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image, unsigned int numOptions,
                               hipJitOption *options, void **optionValues)
{
	thip_call call;
	hipError_t (*real)(hipModule_t *, const void *, unsigned int, hipJitOption *, void **) =
		(hipError_t(*)(hipModule_t *, const void *, unsigned int, hipJitOption *,
	                   void **))thip_begin(&call, THIP_FN_hipModuleLoadDataEx);
	hipError_t r = real ? real(module, image, numOptions, options, optionValues) : THIP_NO_RUNTIME;
	if (!call.nested) {
		uint8_t *jit = NULL;
		size_t n = options && optionValues && numOptions <= 64 ? numOptions : 0;
		if (n && (jit = calloc(n, SBT_CM_JIT_BYTES)) != NULL) {
			for (size_t i = 0; i < n; i++) {
				uint64_t v = THIP_U(optionValues[i]);
				uint32_t o = (uint32_t)options[i];
				memcpy(jit + i * SBT_CM_JIT_BYTES, &o, 4); /* x86-64: little-endian */
				memcpy(jit + i * SBT_CM_JIT_BYTES + 8, &v, 8);
			}
		}
		thip_module_load_record(SBT_CM_HIP_hipModuleLoadDataEx, &call, r, module, image, SIZE_MAX,
		                        NULL, jit, jit ? n * SBT_CM_JIT_BYTES : 0);
		free(jit);
	}
	thip_end(&call);
	return r;
}

hipError_t hipModuleUnload(hipModule_t module)
{
	thip_call call;
	hipError_t (*real)(hipModule_t) = (hipError_t(*)(hipModule_t))thip_begin(&call, THIP_FN_hipModuleUnload);
	hipError_t r = real ? real(module) : THIP_NO_RUNTIME;
	if (!call.nested && r == hipSuccess)
		thip_module_remove(THIP_U(module));
	if (call.record) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.handle = THIP_U(module);
		thip_record(SBT_CM_HIP_hipModuleUnload, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname)
{
	thip_call call;
	hipError_t (*real)(hipFunction_t *, hipModule_t, const char *) =
		(hipError_t(*)(hipFunction_t *, hipModule_t, const char *))thip_begin(
			&call, THIP_FN_hipModuleGetFunction);
	hipError_t r = real ? real(function, module, kname) : THIP_NO_RUNTIME;
	uint64_t handle = r == hipSuccess && function ? THIP_U(*function) : 0;
	if (!call.nested && handle)
		thip_function_add(handle, THIP_U(module), kname);
	if (call.record) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.handle = handle;
		c.parent = THIP_U(module);
		if (kname) {
			c.name = (const uint8_t *)kname;
			c.name_len = strlen(kname);
		}
		thip_record(SBT_CM_HIP_hipModuleGetFunction, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t hmod,
                              const char *name)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t *, size_t *, hipModule_t, const char *) =
		(hipError_t(*)(hipDeviceptr_t *, size_t *, hipModule_t, const char *))thip_begin(
			&call, THIP_FN_hipModuleGetGlobal);
	hipError_t r = real ? real(dptr, bytes, hmod, name) : THIP_NO_RUNTIME;
	if (call.record) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.parent = THIP_U(hmod);
		c.dst = r == hipSuccess && dptr ? THIP_U(*dptr) : 0;
		c.size = r == hipSuccess && bytes ? *bytes : 0;
		c.sub = SBT_CM_MEM_GLOBAL;
		if (name) {
			c.name = (const uint8_t *)name;
			c.name_len = strlen(name);
		}
		thip_record(SBT_CM_HIP_hipModuleGetGlobal, &c, 0);
	}
	if (!call.nested && r == hipSuccess && dptr && bytes && hmod)
		thip_alloc_add(THIP_U(*dptr), *bytes, SBT_CM_MEM_GLOBAL, call.record, THIP_U(hmod));
	thip_end(&call);
	return r;
}

/* ---- the simple ones: one handle or address in, one result out ------------------ */

/* Record a call whose payload is the fields set by the caller. */
static void thip_simple(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                        sbt_cm_call *c, unsigned flags)
{
	if (!call->record)
		return;
	c->result = (uint64_t)r;
	if (call->ptds)
		c->ptds = 1;
	thip_record(hcall, c, flags);
}

hipError_t hipInit(unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(unsigned int) = (hipError_t(*)(unsigned int))thip_begin(&call, THIP_FN_hipInit);
	hipError_t r = real ? real(flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.flags = flags;
	thip_simple(&call, SBT_CM_HIP_hipInit, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipSetDevice(int deviceId)
{
	thip_call call;
	hipError_t (*real)(int) = (hipError_t(*)(int))thip_begin(&call, THIP_FN_hipSetDevice);
	hipError_t r = real ? real(deviceId) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (r == hipSuccess && !call.nested)
		thip_device_set(deviceId);
	sbt_cm_call_init(&c);
	c.device = deviceId;
	thip_simple(&call, SBT_CM_HIP_hipSetDevice, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipDeviceSynchronize(void)
{
	thip_call call;
	hipError_t (*real)(void) = (hipError_t(*)(void))thip_begin(&call, THIP_FN_hipDeviceSynchronize);
	hipError_t r = real ? real() : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	thip_simple(&call, SBT_CM_HIP_hipDeviceSynchronize, r, &c, 0);
	if (call.record && r == hipSuccess)
		thip_pending_flush(1, 0);
	thip_end(&call);
	return r;
}

hipError_t hipDeviceReset(void)
{
	thip_call call;
	hipError_t (*real)(void) = (hipError_t(*)(void))thip_begin(&call, THIP_FN_hipDeviceReset);
	hipError_t r = real ? real() : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	thip_simple(&call, SBT_CM_HIP_hipDeviceReset, r, &c, 0);
	thip_end(&call);
	return r;
}

/* ---- graphs ------------------------------------------------------------------------ */

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t, hipStream_t) =
		(hipError_t(*)(hipGraphExec_t, hipStream_t))thip_begin(&call, THIP_FN_hipGraphLaunch);
	hipError_t r = real ? real(graphExec, stream) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.handle = THIP_U(graphExec);
	c.stream = THIP_U(stream);
	thip_simple(&call, SBT_CM_HIP_hipGraphLaunch, r, &c, CAP_REC_WORK);
	thip_end(&call);
	return r;
}

hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                               hipGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t *, hipGraph_t, hipGraphNode_t *, char *, size_t) =
		(hipError_t(*)(hipGraphExec_t *, hipGraph_t, hipGraphNode_t *, char *, size_t))thip_begin(
			&call, THIP_FN_hipGraphInstantiate);
	hipError_t r = real ? real(pGraphExec, graph, pErrorNode, pLogBuffer, bufferSize)
	                    : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess && pGraphExec)
		thip_gorder_instantiate(THIP_U(*pGraphExec), THIP_U(graph));
	sbt_cm_call_init(&c);
	c.handle = r == hipSuccess && pGraphExec ? THIP_U(*pGraphExec) : 0;
	c.parent = THIP_U(graph);
	thip_simple(&call, SBT_CM_HIP_hipGraphInstantiate, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t) =
		(hipError_t(*)(hipGraphExec_t))thip_begin(&call, THIP_FN_hipGraphExecDestroy);
	hipError_t r = real ? real(graphExec) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess)
		thip_gorder_exec_destroy(THIP_U(graphExec));
	sbt_cm_call_init(&c);
	c.handle = THIP_U(graphExec);
	thip_simple(&call, SBT_CM_HIP_hipGraphExecDestroy, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipGraphDestroy(hipGraph_t graph)
{
	thip_call call;
	hipError_t (*real)(hipGraph_t) = (hipError_t(*)(hipGraph_t))thip_begin(&call, THIP_FN_hipGraphDestroy);
	hipError_t r = real ? real(graph) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess) { /* the handle may come back as a captured graph */
		thip_graph_made(THIP_U(graph), 0);
		thip_gorder_graph(THIP_U(graph), 0);
	}
	sbt_cm_call_init(&c);
	c.handle = THIP_U(graph);
	thip_simple(&call, SBT_CM_HIP_hipGraphDestroy, r, &c, 0);
	thip_end(&call);
	return r;
}

/* ---- allocations --------------------------------------------------------------------- */

#define THIP_PITCH_ALIGN 256u

/* An allocation call: ptr_out (may be NULL) names the address made. */
static void thip_alloc_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                              sbt_cm_call *c, void **ptr_out, int device)
{
	uint64_t addr = r == hipSuccess && ptr_out ? THIP_U(*ptr_out) : 0;
	if (call->nested)
		return;
	if (device && addr)
		thip_alloc_add(addr, c->size, c->sub, call->record, 0);
	if (c->sub == SBT_CM_MEM_HOST_ALLOC || c->sub == SBT_CM_MEM_HOST_REGISTER)
		c->host = addr ? addr : c->host;
	else
		c->dst = addr;
	thip_simple(call, hcall, r, c, CAP_REC_WORK);
}

hipError_t hipMalloc(void **ptr, size_t size)
{
	thip_call call;
	hipError_t (*real)(void **, size_t) = (hipError_t(*)(void **, size_t))thip_begin(&call, THIP_FN_hipMalloc);
	hipError_t r;
	sbt_cm_call c;
	if (real && call.record && thip_va_alloc(size, ptr))
		r = hipSuccess; /* placed in the address window (thip_va.c) */
	else
		r = real ? real(ptr, size) : THIP_NO_RUNTIME;
	sbt_cm_call_init(&c);
	c.size = size;
	c.sub = SBT_CM_MEM_DEVICE;
	thip_alloc_record(&call, SBT_CM_HIP_hipMalloc, r, &c, ptr, 1);
	thip_end(&call);
	return r;
}

hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	thip_call call;
	hipError_t (*real)(void **, size_t *, size_t, size_t) =
		(hipError_t(*)(void **, size_t *, size_t, size_t))thip_begin(&call, THIP_FN_hipMallocPitch);
	hipError_t r;
	sbt_cm_call c;
	/* Rows THIP_PITCH_ALIGN apart, as the runtime lays them out (clr:
	 * the device's image pitch alignment, 256 bytes). */
	size_t rows = width && width <= SIZE_MAX - THIP_PITCH_ALIGN
	                  ? (width + THIP_PITCH_ALIGN - 1) / THIP_PITCH_ALIGN * THIP_PITCH_ALIGN
	                  : 0;
	if (real && call.record && pitch && rows && height && height <= SIZE_MAX / rows &&
	    thip_va_alloc(rows * height, ptr)) {
		*pitch = rows;
		r = hipSuccess;
	} else {
		r = real ? real(ptr, pitch, width, height) : THIP_NO_RUNTIME;
	}
	sbt_cm_call_init(&c);
	c.width = width;
	c.height = height;
	c.pitch = r == hipSuccess && pitch ? *pitch : 0;
	c.size = c.pitch * height;
	c.sub = SBT_CM_MEM_PITCH;
	thip_alloc_record(&call, SBT_CM_HIP_hipMallocPitch, r, &c, ptr, 1);
	thip_end(&call);
	return r;
}

hipError_t hipMallocAsync(void **dev_ptr, size_t size, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void **, size_t, hipStream_t) =
		(hipError_t(*)(void **, size_t, hipStream_t))thip_begin(&call, THIP_FN_hipMallocAsync);
	hipError_t r;
	sbt_cm_call c;
	if (real && call.record && thip_va_alloc(size, dev_ptr))
		r = hipSuccess; /* placed in the address window: there at once */
	else
		r = real ? real(dev_ptr, size, stream) : THIP_NO_RUNTIME;
	sbt_cm_call_init(&c);
	c.size = size;
	c.stream = THIP_U(stream);
	c.sub = SBT_CM_MEM_ASYNC;
	thip_alloc_record(&call, SBT_CM_HIP_hipMallocAsync, r, &c, dev_ptr, 1);
	thip_end(&call);
	return r;
}

/* From a pool: placed in the window as hipMallocAsync is (the pool's
 * own properties, its release threshold or export handles, do not apply
 * to placed memory; TRACESMITH_HIP_VA=off leaves it to the pool). */
hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool,
                                  hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void **, size_t, hipMemPool_t, hipStream_t) =
		(hipError_t(*)(void **, size_t, hipMemPool_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMallocFromPoolAsync);
	hipError_t r;
	sbt_cm_call c;
	if (real && call.record && mem_pool && thip_va_alloc(size, dev_ptr))
		r = hipSuccess; /* placed in the address window: there at once */
	else
		r = real ? real(dev_ptr, size, mem_pool, stream) : THIP_NO_RUNTIME;
	sbt_cm_call_init(&c);
	c.size = size;
	c.stream = THIP_U(stream);
	c.parent = THIP_U(mem_pool);
	c.sub = SBT_CM_MEM_POOL;
	thip_alloc_record(&call, SBT_CM_HIP_hipMallocFromPoolAsync, r, &c, dev_ptr, 1);
	thip_end(&call);
	return r;
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(void **, size_t, unsigned int) =
		(hipError_t(*)(void **, size_t, unsigned int))thip_begin(&call, THIP_FN_hipMallocManaged);
	hipError_t r = real ? real(dev_ptr, size, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.size = size;
	c.flags = flags;
	c.sub = SBT_CM_MEM_MANAGED;
	thip_alloc_record(&call, SBT_CM_HIP_hipMallocManaged, r, &c, dev_ptr, 1);
	thip_end(&call);
	return r;
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(void **, size_t, unsigned int) =
		(hipError_t(*)(void **, size_t, unsigned int))thip_begin(&call, THIP_FN_hipHostMalloc);
	hipError_t r = real ? real(ptr, size, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.size = size;
	c.flags = flags;
	c.sub = SBT_CM_MEM_HOST_ALLOC;
	thip_alloc_record(&call, SBT_CM_HIP_hipHostMalloc, r, &c, ptr, 0);
	thip_end(&call);
	return r;
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, unsigned int) =
		(hipError_t(*)(void *, size_t, unsigned int))thip_begin(&call, THIP_FN_hipHostRegister);
	hipError_t r = real ? real(hostPtr, sizeBytes, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.size = sizeBytes;
	c.flags = flags;
	c.host = THIP_U(hostPtr);
	c.sub = SBT_CM_MEM_HOST_REGISTER;
	thip_alloc_record(&call, SBT_CM_HIP_hipHostRegister, r, &c, NULL, 0);
	thip_end(&call);
	return r;
}

/* The runtime knows window memory by its mapping (a chunk several
 * allocations share): the range of a placed allocation is the
 * allocator's, the base it was given and the size it asked for, as the
 * runtime answers for its own allocations (clr: the memory object's). */
hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t *, size_t *, hipDeviceptr_t) =
		(hipError_t(*)(hipDeviceptr_t *, size_t *, hipDeviceptr_t))thip_begin(
			&call, THIP_FN_hipMemGetAddressRange);
	uint64_t base = 0, asked = 0;
	hipError_t r;
	if (real && !call.nested && pbase && psize && thip_va_range(THIP_U(dptr), &base, &asked)) {
		*pbase = (hipDeviceptr_t)(uintptr_t)base;
		*psize = (size_t)asked;
		r = hipSuccess;
	} else {
		r = real ? real(pbase, psize, dptr) : THIP_NO_RUNTIME;
	}
	thip_end(&call);
	return r;
}

/* A free: addr is the device address (device = 1) or host address. */
static void thip_free_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                             uint64_t addr, int device, unsigned sub, uint64_t stream)
{
	sbt_cm_call c;
	if (call->nested)
		return;
	if (device && r == hipSuccess)
		thip_alloc_remove(addr);
	sbt_cm_call_init(&c);
	if (device)
		c.dst = addr;
	else
		c.host = addr;
	c.sub = sub;
	c.stream = stream;
	/* on a capturing stream the free became a graph node */
	c.capture_status = hcall == SBT_CM_HIP_hipFreeAsync ? thip_capture_status((hipStream_t)(uintptr_t)stream) : 0;
	thip_simple(call, hcall, r, &c, CAP_REC_WORK);
}

hipError_t hipFree(void *ptr)
{
	thip_call call;
	hipError_t (*real)(void *) = (hipError_t(*)(void *))thip_begin(&call, THIP_FN_hipFree);
	hipError_t r;
	if (real && !call.nested && thip_va_free(ptr))
		r = hipSuccess; /* it was placed in the address window */
	else
		r = real ? real(ptr) : THIP_NO_RUNTIME;
	thip_free_record(&call, SBT_CM_HIP_hipFree, r, THIP_U(ptr), 1, SBT_CM_MEM_DEVICE, 0);
	thip_end(&call);
	return r;
}

hipError_t hipFreeAsync(void *dev_ptr, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, hipStream_t) =
		(hipError_t(*)(void *, hipStream_t))thip_begin(&call, THIP_FN_hipFreeAsync);
	hipError_t r;
	if (real && !call.nested && thip_va_free_async(dev_ptr, stream))
		r = hipSuccess; /* released once the stream reaches it */
	else
		r = real ? real(dev_ptr, stream) : THIP_NO_RUNTIME;
	thip_free_record(&call, SBT_CM_HIP_hipFreeAsync, r, THIP_U(dev_ptr), 1, SBT_CM_MEM_ASYNC,
	                 THIP_U(stream));
	thip_end(&call);
	return r;
}

hipError_t hipHostFree(void *ptr)
{
	thip_call call;
	hipError_t (*real)(void *) = (hipError_t(*)(void *))thip_begin(&call, THIP_FN_hipHostFree);
	hipError_t r = real ? real(ptr) : THIP_NO_RUNTIME;
	thip_free_record(&call, SBT_CM_HIP_hipHostFree, r, THIP_U(ptr), 0, SBT_CM_MEM_HOST_ALLOC, 0);
	thip_end(&call);
	return r;
}

hipError_t hipHostUnregister(void *hostPtr)
{
	thip_call call;
	hipError_t (*real)(void *) = (hipError_t(*)(void *))thip_begin(&call, THIP_FN_hipHostUnregister);
	hipError_t r = real ? real(hostPtr) : THIP_NO_RUNTIME;
	thip_free_record(&call, SBT_CM_HIP_hipHostUnregister, r, THIP_U(hostPtr), 0,
	                 SBT_CM_MEM_HOST_REGISTER, 0);
	thip_end(&call);
	return r;
}

/* ---- copies ------------------------------------------------------------------------------ */

/* One linear copy: the bytes of a host->device copy are stored, a
 * device->host result checkpointed (async: at the next synchronization the
 * program can see).  Only for copies that worked. */
static void thip_copy_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                             unsigned dir, const void *dst, const void *src, size_t size,
                             int async, hipStream_t stream, const char *symbol, size_t offset)
{
	sbt_cm_call c;
	uint64_t seq;
	if (!call->record)
		return;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.sub = dir;
	c.dst = THIP_U(dst);
	c.src = THIP_U(src);
	c.size = size;
	c.offset = offset;
	c.stream = async ? THIP_U(stream) : 0;
	c.ptds = (uint64_t)call->ptds;
	c.capture_status = async ? thip_capture_status(stream) : 0;
	if (dir == SBT_CM_COPY_HTOD) {
		c.host = THIP_U(src);
		c.src = 0;
		if (r == hipSuccess && src && size)
			c.blob = cap_blob(src, size);
	} else if (dir == SBT_CM_COPY_DTOH) {
		c.host = THIP_U(dst);
		c.dst = 0;
	}
	if (symbol) {
		c.name = (const uint8_t *)symbol;
		c.name_len = strlen(symbol);
	}
	seq = thip_record(hcall, &c, CAP_REC_WORK);
	if (seq && r == hipSuccess && dir == SBT_CM_COPY_DTOH && dst && size) {
		uint64_t from = THIP_U(src) + (symbol ? offset : 0);
		if (async) {
			thip_pending_add(seq, THIP_U(stream), dst, from, size);
		} else {
			uint64_t base = symbol ? THIP_U(src) : thip_alloc_base(from);
			cap_checkpoint(seq, base, base ? from - base : from, dst, size);
		}
	}
}

/*
 * The per-thread default stream's calls (_spt) that libamdhip64.so.5
 * exports: clr runs each on the calling thread's per-thread default stream
 * (a stream argument 0 means that stream; the synchronous ones wait).
 * Each shares its twin's body, given fn (the _spt one or not): the record
 * is the twin's, with ptds = 1 for the _spt one.
 */
static hipError_t thip_memcpy(thip_fn fn, void *dst, const void *src, size_t sizeBytes,
                              hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(void *, const void *, size_t, hipMemcpyKind) =
		(hipError_t(*)(void *, const void *, size_t, hipMemcpyKind))thip_begin(&call, fn);
	hipError_t r = real ? real(dst, src, sizeBytes, kind) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpy_spt;
	if (call.record)
		thip_copy_record(&call, SBT_CM_HIP_hipMemcpy, r, thip_copy_dir(kind, dst, src), dst, src,
		                 sizeBytes, 0, NULL, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	return thip_memcpy(THIP_FN_hipMemcpy, dst, src, sizeBytes, kind);
}

hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	return thip_memcpy(THIP_FN_hipMemcpy_spt, dst, src, sizeBytes, kind);
}

static hipError_t thip_memcpy_async(thip_fn fn, void *dst, const void *src, size_t sizeBytes,
                                    hipMemcpyKind kind, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, const void *, size_t, hipMemcpyKind, hipStream_t) =
		(hipError_t(*)(void *, const void *, size_t, hipMemcpyKind, hipStream_t))thip_begin(&call,
		                                                                                   fn);
	hipError_t r = real ? real(dst, src, sizeBytes, kind, stream) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpyAsync_spt;
	if (call.record)
		thip_copy_record(&call, SBT_CM_HIP_hipMemcpyAsync, r, thip_copy_dir(kind, dst, src), dst,
		                 src, sizeBytes, 1, stream, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream)
{
	return thip_memcpy_async(THIP_FN_hipMemcpyAsync, dst, src, sizeBytes, kind, stream);
}

hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                              hipStream_t stream)
{
	return thip_memcpy_async(THIP_FN_hipMemcpyAsync_spt, dst, src, sizeBytes, kind, stream);
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, void *, size_t) =
		(hipError_t(*)(hipDeviceptr_t, void *, size_t))thip_begin(&call, THIP_FN_hipMemcpyHtoD);
	hipError_t r = real ? real(dst, src, sizeBytes) : THIP_NO_RUNTIME;
	thip_copy_record(&call, SBT_CM_HIP_hipMemcpyHtoD, r, SBT_CM_COPY_HTOD, dst, src, sizeBytes, 0,
	                 NULL, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, void *, size_t, hipStream_t) =
		(hipError_t(*)(hipDeviceptr_t, void *, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemcpyHtoDAsync);
	hipError_t r = real ? real(dst, src, sizeBytes, stream) : THIP_NO_RUNTIME;
	thip_copy_record(&call, SBT_CM_HIP_hipMemcpyHtoDAsync, r, SBT_CM_COPY_HTOD, dst, src,
	                 sizeBytes, 1, stream, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
	thip_call call;
	hipError_t (*real)(void *, hipDeviceptr_t, size_t) =
		(hipError_t(*)(void *, hipDeviceptr_t, size_t))thip_begin(&call, THIP_FN_hipMemcpyDtoH);
	hipError_t r = real ? real(dst, src, sizeBytes) : THIP_NO_RUNTIME;
	thip_copy_record(&call, SBT_CM_HIP_hipMemcpyDtoH, r, SBT_CM_COPY_DTOH, dst, src, sizeBytes, 0,
	                 NULL, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, hipDeviceptr_t, size_t, hipStream_t) =
		(hipError_t(*)(void *, hipDeviceptr_t, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemcpyDtoHAsync);
	hipError_t r = real ? real(dst, src, sizeBytes, stream) : THIP_NO_RUNTIME;
	thip_copy_record(&call, SBT_CM_HIP_hipMemcpyDtoHAsync, r, SBT_CM_COPY_DTOH, dst, src,
	                 sizeBytes, 1, stream, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, hipDeviceptr_t, size_t) =
		(hipError_t(*)(hipDeviceptr_t, hipDeviceptr_t, size_t))thip_begin(&call, THIP_FN_hipMemcpyDtoD);
	hipError_t r = real ? real(dst, src, sizeBytes) : THIP_NO_RUNTIME;
	thip_copy_record(&call, SBT_CM_HIP_hipMemcpyDtoD, r, SBT_CM_COPY_DTOD, dst, src, sizeBytes, 0,
	                 NULL, NULL, 0);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                              hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, hipDeviceptr_t, size_t, hipStream_t) =
		(hipError_t(*)(hipDeviceptr_t, hipDeviceptr_t, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemcpyDtoDAsync);
	hipError_t r = real ? real(dst, src, sizeBytes, stream) : THIP_NO_RUNTIME;
	thip_copy_record(&call, SBT_CM_HIP_hipMemcpyDtoDAsync, r, SBT_CM_COPY_DTOD, dst, src,
	                 sizeBytes, 1, stream, NULL, 0);
	thip_end(&call);
	return r;
}

/* hipMemcpyToSymbol and its _spt twin (fn). */
static hipError_t thip_memcpy_to_symbol(thip_fn fn, const void *symbol, const void *src,
                                        size_t sizeBytes, size_t offset, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(const void *, const void *, size_t, size_t, hipMemcpyKind) =
		(hipError_t(*)(const void *, const void *, size_t, size_t, hipMemcpyKind))thip_begin(&call,
		                                                                                   fn);
	hipError_t r = real ? real(symbol, src, sizeBytes, offset, kind) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpyToSymbol_spt;
	if (call.record)
		thip_copy_record(&call, SBT_CM_HIP_hipMemcpyToSymbol, r,
		                 kind == hipMemcpyDeviceToDevice ? SBT_CM_COPY_DTOD : SBT_CM_COPY_HTOD,
		                 symbol, src, sizeBytes, 0, NULL, thip_var_name(THIP_U(symbol)), offset);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t sizeBytes, size_t offset,
                             hipMemcpyKind kind)
{
	return thip_memcpy_to_symbol(THIP_FN_hipMemcpyToSymbol, symbol, src, sizeBytes, offset, kind);
}

hipError_t hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t sizeBytes,
                                 size_t offset, hipMemcpyKind kind)
{
	return thip_memcpy_to_symbol(THIP_FN_hipMemcpyToSymbol_spt, symbol, src, sizeBytes, offset,
	                             kind);
}

hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t sizeBytes,
                                  size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(const void *, const void *, size_t, size_t, hipMemcpyKind, hipStream_t) =
		(hipError_t(*)(const void *, const void *, size_t, size_t, hipMemcpyKind,
	                   hipStream_t))thip_begin(&call, THIP_FN_hipMemcpyToSymbolAsync);
	hipError_t r = real ? real(symbol, src, sizeBytes, offset, kind, stream) : THIP_NO_RUNTIME;
	if (call.record)
		thip_copy_record(&call, SBT_CM_HIP_hipMemcpyToSymbolAsync, r,
		                 kind == hipMemcpyDeviceToDevice ? SBT_CM_COPY_DTOD : SBT_CM_COPY_HTOD,
		                 symbol, src, sizeBytes, 1, stream, thip_var_name(THIP_U(symbol)), offset);
	thip_end(&call);
	return r;
}

/* hipMemcpyFromSymbol and its _spt twin (fn). */
static hipError_t thip_memcpy_from_symbol(thip_fn fn, void *dst, const void *symbol,
                                          size_t sizeBytes, size_t offset, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(void *, const void *, size_t, size_t, hipMemcpyKind) =
		(hipError_t(*)(void *, const void *, size_t, size_t, hipMemcpyKind))thip_begin(&call, fn);
	hipError_t r = real ? real(dst, symbol, sizeBytes, offset, kind) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpyFromSymbol_spt;
	if (call.record)
		thip_copy_record(&call, SBT_CM_HIP_hipMemcpyFromSymbol, r,
		                 kind == hipMemcpyDeviceToDevice ? SBT_CM_COPY_DTOD : SBT_CM_COPY_DTOH,
		                 dst, symbol, sizeBytes, 0, NULL, thip_var_name(THIP_U(symbol)), offset);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t sizeBytes, size_t offset,
                               hipMemcpyKind kind)
{
	return thip_memcpy_from_symbol(THIP_FN_hipMemcpyFromSymbol, dst, symbol, sizeBytes, offset,
	                               kind);
}

hipError_t hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t sizeBytes, size_t offset,
                                   hipMemcpyKind kind)
{
	return thip_memcpy_from_symbol(THIP_FN_hipMemcpyFromSymbol_spt, dst, symbol, sizeBytes, offset,
	                               kind);
}

hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t sizeBytes,
                                    size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, const void *, size_t, size_t, hipMemcpyKind, hipStream_t) =
		(hipError_t(*)(void *, const void *, size_t, size_t, hipMemcpyKind, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemcpyFromSymbolAsync);
	hipError_t r = real ? real(dst, symbol, sizeBytes, offset, kind, stream) : THIP_NO_RUNTIME;
	if (call.record)
		thip_copy_record(&call, SBT_CM_HIP_hipMemcpyFromSymbolAsync, r,
		                 kind == hipMemcpyDeviceToDevice ? SBT_CM_COPY_DTOD : SBT_CM_COPY_DTOH,
		                 dst, symbol, sizeBytes, 1, stream, thip_var_name(THIP_U(symbol)), offset);
	thip_end(&call);
	return r;
}

/* ---- memsets ------------------------------------------------------------------------------ */

static uint64_t thip_side_first(const thip_side *sd)
{
	return THIP_U(sd->ptr) + sd->z * sd->pitch * sd->slice_rows + sd->y * sd->pitch + sd->x;
}

void thip_pitched_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r, unsigned dir,
                         const thip_side *dst, const thip_side *src, uint64_t width,
                         uint64_t height, uint64_t depth, int async, hipStream_t stream)
{
	sbt_cm_call c;
	uint64_t seq, d = depth ? depth : 1;
	int ok = r == hipSuccess && width && height && d && height <= SIZE_MAX / width &&
	         d <= SIZE_MAX / (width * height);
	thip_rows rows;
	if (!call->record)
		return;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.sub = dst->array || src->array ? SBT_CM_COPY_ARRAY : dir;
	c.dst = THIP_U(dst->ptr);
	c.src = THIP_U(src->ptr);
	c.dst_x = dst->x;
	c.dst_y = dst->y;
	c.dst_z = dst->z;
	c.src_x = src->x;
	c.src_y = src->y;
	c.src_z = src->z;
	c.dst_pitch = dst->array ? 0 : dst->pitch;
	c.src_pitch = src->array ? 0 : src->pitch;
	c.dst_height = dst->slice_rows;
	c.src_height = src->slice_rows;
	c.dst_type = dst->array ? THIP_MEMORYTYPE_ARRAY
	             : dir == SBT_CM_COPY_HTOD || dir == SBT_CM_COPY_DTOD ? THIP_MEMORYTYPE_DEVICE
	             : dir ? THIP_MEMORYTYPE_HOST : 0;
	c.src_type = src->array ? THIP_MEMORYTYPE_ARRAY
	             : dir == SBT_CM_COPY_DTOH || dir == SBT_CM_COPY_DTOD ? THIP_MEMORYTYPE_DEVICE
	             : dir ? THIP_MEMORYTYPE_HOST : 0;
	c.width = width;
	c.height = height;
	c.depth = depth;
	c.size = ok ? width * height * d : 0;
	c.stream = async ? THIP_U(stream) : 0;
	c.capture_status = async ? thip_capture_status(stream) : 0;
	c.ptds = (uint64_t)call->ptds;
	if (call->node) {
		c.node = call->node->node;
		c.parent = call->node->graph;
		c.deps = call->node->deps;
		c.deps_len = call->node->deps_len;
	}
	if (c.src_type == THIP_MEMORYTYPE_HOST && c.dst_type != THIP_MEMORYTYPE_HOST) {
		c.host = thip_side_first(src);
		c.src = 0;
		if (ok && src->ptr) {
			rows = (thip_rows){src->pitch, src->slice_rows, width, height, d};
			uint8_t *packed = thip_rows_pack((const void *)(uintptr_t)c.host, &rows);
			if (packed)
				c.blob = cap_blob(packed, c.size);
			free(packed);
		}
	} else if (c.dst_type == THIP_MEMORYTYPE_HOST && c.src_type != THIP_MEMORYTYPE_HOST) {
		c.host = thip_side_first(dst);
		c.dst = 0;
	}
	seq = thip_record(hcall, &c, call->node ? 0 : CAP_REC_WORK);
	/* a node's copy runs at each launch of the graph: no checkpoint here */
	if (seq && ok && !call->node && c.dst_type == THIP_MEMORYTYPE_HOST && c.src_type != THIP_MEMORYTYPE_HOST &&
	    dst->ptr) {
		/* an array's bytes are named by its handle (offset 0 of object 0) */
		uint64_t from = src->array ? THIP_U(src->ptr) : thip_side_first(src);
		rows = (thip_rows){dst->pitch, dst->slice_rows, width, height, d};
		if (async) {
			thip_pending_add_rows(seq, THIP_U(stream), (const void *)(uintptr_t)c.host, &rows, from);
		} else {
			uint64_t base = thip_alloc_base(from);
			uint8_t *packed = thip_rows_pack((const void *)(uintptr_t)c.host, &rows);
			if (packed)
				cap_checkpoint(seq, base, base ? from - base : from, packed, c.size);
			free(packed);
		}
	}
}

/* hipMemcpy2D(Async): rows from the pointers themselves. */
static void thip_copy2d_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                               unsigned dir, void *dst, size_t dpitch, const void *src,
                               size_t spitch, size_t width, size_t height, int async,
                               hipStream_t stream)
{
	thip_side d = {dst, 0, 0, 0, dpitch, 0, 0}, sr = {src, 0, 0, 0, spitch, 0, 0};
	thip_pitched_record(call, hcall, r, dir, &d, &sr, width, height, 0, async, stream);
}

/* hipMemcpy2D and its _spt twin (fn). */
static hipError_t thip_memcpy2d(thip_fn fn, void *dst, size_t dpitch, const void *src,
                                size_t spitch, size_t width, size_t height, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, const void *, size_t, size_t, size_t, hipMemcpyKind) =
		(hipError_t(*)(void *, size_t, const void *, size_t, size_t, size_t, hipMemcpyKind))thip_begin(
			&call, fn);
	hipError_t r = real ? real(dst, dpitch, src, spitch, width, height, kind) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpy2D_spt;
	if (call.record)
		thip_copy2d_record(&call, SBT_CM_HIP_hipMemcpy2D, r, thip_copy_dir(kind, dst, src), dst,
		                   dpitch, src, spitch, width, height, 0, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, hipMemcpyKind kind)
{
	return thip_memcpy2d(THIP_FN_hipMemcpy2D, dst, dpitch, src, spitch, width, height, kind);
}

hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t height, hipMemcpyKind kind)
{
	return thip_memcpy2d(THIP_FN_hipMemcpy2D_spt, dst, dpitch, src, spitch, width, height, kind);
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, const void *, size_t, size_t, size_t, hipMemcpyKind,
	                   hipStream_t) =
		(hipError_t(*)(void *, size_t, const void *, size_t, size_t, size_t, hipMemcpyKind,
		               hipStream_t))thip_begin(&call, THIP_FN_hipMemcpy2DAsync);
	hipError_t r = real ? real(dst, dpitch, src, spitch, width, height, kind, stream)
	                    : THIP_NO_RUNTIME;
	if (call.record)
		thip_copy2d_record(&call, SBT_CM_HIP_hipMemcpy2DAsync, r, thip_copy_dir(kind, dst, src),
		                   dst, dpitch, src, spitch, width, height, 1, stream);
	thip_end(&call);
	return r;
}

/* hipMemcpyParam2D(Async): each side by its memory type (host, device,
 * array; unified resolved from the allocation table). */
static void thip_param2d_side(hipMemoryType type, const void *host, const void *dev, hipArray *array,
                              size_t x, size_t y, size_t pitch, thip_side *out, int *is_dev)
{
	memset(out, 0, sizeof(*out));
	out->x = x;
	out->y = y;
	out->pitch = pitch;
	switch (type) {
	case hipMemoryTypeHost:
		out->ptr = host;
		*is_dev = 0;
		break;
	case hipMemoryTypeArray:
		out->ptr = array;
		out->array = 1;
		*is_dev = 1;
		break;
	case hipMemoryTypeDevice:
		out->ptr = dev;
		*is_dev = 1;
		break;
	default:
		out->ptr = dev;
		*is_dev = thip_alloc_base(THIP_U(dev)) != 0;
		break;
	}
}

static void thip_param2d_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                                const hip_Memcpy2D *p, int async, hipStream_t stream)
{
	thip_side d, sr;
	int dd = 0, sd = 0;
	unsigned dir;
	if (!call->record)
		return;
	if (!p) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.stream = async ? THIP_U(stream) : 0;
		c.ptds = (uint64_t)call->ptds;
		thip_simple(call, hcall, r, &c, CAP_REC_WORK);
		return;
	}
	thip_param2d_side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes,
	                  p->dstY, p->dstPitch, &d, &dd);
	thip_param2d_side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
	                  p->srcY, p->srcPitch, &sr, &sd);
	dir = dd ? (sd ? SBT_CM_COPY_DTOD : SBT_CM_COPY_HTOD) : (sd ? SBT_CM_COPY_DTOH : SBT_CM_COPY_HTOH);
	thip_pitched_record(call, hcall, r, dir, &d, &sr, p->WidthInBytes, p->Height, 0, async, stream);
}

hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)
{
	thip_call call;
	hipError_t (*real)(const hip_Memcpy2D *) =
		(hipError_t(*)(const hip_Memcpy2D *))thip_begin(&call, THIP_FN_hipMemcpyParam2D);
	hipError_t r = real ? real(pCopy) : THIP_NO_RUNTIME;
	thip_param2d_record(&call, SBT_CM_HIP_hipMemcpyParam2D, r, pCopy, 0, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(const hip_Memcpy2D *, hipStream_t) =
		(hipError_t(*)(const hip_Memcpy2D *, hipStream_t))thip_begin(&call,
		                                                             THIP_FN_hipMemcpyParam2DAsync);
	hipError_t r = real ? real(pCopy, stream) : THIP_NO_RUNTIME;
	thip_param2d_record(&call, SBT_CM_HIP_hipMemcpyParam2DAsync, r, pCopy, 1, stream);
	thip_end(&call);
	return r;
}

/* hipMemcpy3D(Async): a side is its array or its pitched pointer (rows a
 * slice: ysize); the direction from kind. */
void thip_copy3d_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                               const struct hipMemcpy3DParms *p, int async, hipStream_t stream)
{
	thip_side d, sr;
	thip_array_info ai;
	uint64_t width;
	unsigned dir;
	if (!call->record)
		return;
	if (!p) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.stream = async ? THIP_U(stream) : 0;
		c.ptds = (uint64_t)call->ptds;
		/* a node's call names its node and graph (or exec) even so */
		if (call->node) {
			c.node = call->node->node;
			c.parent = call->node->graph;
		}
		thip_simple(call, hcall, r, &c, call->node ? 0 : CAP_REC_WORK);
		return;
	}
	d = (thip_side){p->dstArray ? (const void *)p->dstArray : p->dstPtr.ptr, p->dstPos.x,
	                p->dstPos.y, p->dstPos.z, p->dstPtr.pitch, p->dstPtr.ysize, p->dstArray != NULL};
	sr = (thip_side){p->srcArray ? (const void *)p->srcArray : p->srcPtr.ptr, p->srcPos.x,
	                 p->srcPos.y, p->srcPos.z, p->srcPtr.pitch, p->srcPtr.ysize, p->srcArray != NULL};
	/* clr's getDrvMemcpy3DDesc: an array side's x and the width are in
	 * elements (the destination array's when both are arrays) */
	width = p->extent.width;
	if (sr.array && thip_array_get(THIP_U(p->srcArray), &ai))
		sr.x *= ai.elem;
	if (d.array && thip_array_get(THIP_U(p->dstArray), &ai))
		d.x *= ai.elem;
	if ((d.array && thip_array_get(THIP_U(p->dstArray), &ai)) ||
	    (sr.array && thip_array_get(THIP_U(p->srcArray), &ai)))
		width *= ai.elem;
	if (d.array || sr.array) {
		/* an array counts as device memory */
		int dd = d.array || (p->kind == hipMemcpyDefault ? thip_alloc_base(thip_side_first(&d)) != 0
		                                                 : p->kind == hipMemcpyHostToDevice ||
		                                                   p->kind == hipMemcpyDeviceToDevice);
		int sd = sr.array || (p->kind == hipMemcpyDefault ? thip_alloc_base(thip_side_first(&sr)) != 0
		                                                  : p->kind == hipMemcpyDeviceToHost ||
		                                                    p->kind == hipMemcpyDeviceToDevice);
		dir = dd ? (sd ? SBT_CM_COPY_DTOD : SBT_CM_COPY_HTOD)
		         : (sd ? SBT_CM_COPY_DTOH : SBT_CM_COPY_HTOH);
	} else {
		dir = thip_copy_dir(p->kind, (const void *)(uintptr_t)thip_side_first(&d),
		                    (const void *)(uintptr_t)thip_side_first(&sr));
	}
	thip_pitched_record(call, hcall, r, dir, &d, &sr, width, p->extent.height,
	                    p->extent.depth ? p->extent.depth : 1, async, stream);
}

/* hipMemcpy3D and its _spt twin (fn). */
static hipError_t thip_memcpy3d(thip_fn fn, const struct hipMemcpy3DParms *p)
{
	thip_call call;
	hipError_t (*real)(const struct hipMemcpy3DParms *) =
		(hipError_t(*)(const struct hipMemcpy3DParms *))thip_begin(&call, fn);
	hipError_t r = real ? real(p) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemcpy3D_spt;
	thip_copy3d_record(&call, SBT_CM_HIP_hipMemcpy3D, r, p, 0, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
	return thip_memcpy3d(THIP_FN_hipMemcpy3D, p);
}

hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms *p)
{
	return thip_memcpy3d(THIP_FN_hipMemcpy3D_spt, p);
}

hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(const struct hipMemcpy3DParms *, hipStream_t) =
		(hipError_t(*)(const struct hipMemcpy3DParms *, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemcpy3DAsync);
	hipError_t r = real ? real(p, stream) : THIP_NO_RUNTIME;
	thip_copy3d_record(&call, SBT_CM_HIP_hipMemcpy3DAsync, r, p, 1, stream);
	thip_end(&call);
	return r;
}

/* Peer copies: the runtime (clr's hip_peer.cpp) makes them device-to-device
 * hipMemcpy / hipMemcpyAsync calls, which arrive here nested and are
 * passed through; the peer call is the record. */
static void thip_peer_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r, void *dst,
                             int dst_device, const void *src, int src_device, size_t size,
                             hipStream_t stream)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.sub = SBT_CM_COPY_DTOD;
	c.dst = THIP_U(dst);
	c.src = THIP_U(src);
	c.size = size;
	c.device = dst_device;
	c.ivalue = src_device;
	c.stream = THIP_U(stream);
	c.capture_status = call->record ? thip_capture_status(stream) : 0;
	thip_simple(call, hcall, r, &c, CAP_REC_WORK);
}

hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId,
                         size_t sizeBytes)
{
	thip_call call;
	hipError_t (*real)(void *, int, const void *, int, size_t) =
		(hipError_t(*)(void *, int, const void *, int, size_t))thip_begin(&call, THIP_FN_hipMemcpyPeer);
	hipError_t r = real ? real(dst, dstDeviceId, src, srcDeviceId, sizeBytes) : THIP_NO_RUNTIME;
	thip_peer_record(&call, SBT_CM_HIP_hipMemcpyPeer, r, dst, dstDeviceId, src, srcDeviceId,
	                 sizeBytes, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
                              size_t sizeBytes, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, int, const void *, int, size_t, hipStream_t) =
		(hipError_t(*)(void *, int, const void *, int, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemcpyPeerAsync);
	hipError_t r = real ? real(dst, dstDeviceId, src, srcDevice, sizeBytes, stream) : THIP_NO_RUNTIME;
	thip_peer_record(&call, SBT_CM_HIP_hipMemcpyPeerAsync, r, dst, dstDeviceId, src, srcDevice,
	                 sizeBytes, stream);
	thip_end(&call);
	return r;
}

static void thip_memset_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                               const void *dst, uint64_t value, size_t count, unsigned elem,
                               hipStream_t stream)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = THIP_U(dst);
	c.value = value;
	c.width = count;
	c.elem_size = elem;
	c.size = (uint64_t)count * elem;
	c.stream = THIP_U(stream);
	c.capture_status = call->record ? thip_capture_status(stream) : 0;
	thip_simple(call, hcall, r, &c, CAP_REC_WORK);
}

/* hipMemset and its _spt twin (fn). */
static hipError_t thip_memset(thip_fn fn, void *dst, int value, size_t sizeBytes)
{
	thip_call call;
	hipError_t (*real)(void *, int, size_t) = (hipError_t(*)(void *, int, size_t))thip_begin(&call, fn);
	hipError_t r = real ? real(dst, value, sizeBytes) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemset_spt;
	thip_memset_record(&call, SBT_CM_HIP_hipMemset, r, dst, (uint8_t)value, sizeBytes, 1, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes)
{
	return thip_memset(THIP_FN_hipMemset, dst, value, sizeBytes);
}

hipError_t hipMemset_spt(void *dst, int value, size_t sizeBytes)
{
	return thip_memset(THIP_FN_hipMemset_spt, dst, value, sizeBytes);
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, int, size_t, hipStream_t) =
		(hipError_t(*)(void *, int, size_t, hipStream_t))thip_begin(&call, THIP_FN_hipMemsetAsync);
	hipError_t r = real ? real(dst, value, sizeBytes, stream) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetAsync, r, dst, (uint8_t)value, sizeBytes, 1,
	                   stream);
	thip_end(&call);
	return r;
}

hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, unsigned char, size_t) =
		(hipError_t(*)(hipDeviceptr_t, unsigned char, size_t))thip_begin(&call, THIP_FN_hipMemsetD8);
	hipError_t r = real ? real(dest, value, count) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetD8, r, dest, value, count, 1, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, unsigned short, size_t) =
		(hipError_t(*)(hipDeviceptr_t, unsigned short, size_t))thip_begin(&call, THIP_FN_hipMemsetD16);
	hipError_t r = real ? real(dest, value, count) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetD16, r, dest, value, count, 2, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, int, size_t) =
		(hipError_t(*)(hipDeviceptr_t, int, size_t))thip_begin(&call, THIP_FN_hipMemsetD32);
	hipError_t r = real ? real(dest, value, count) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetD32, r, dest, (uint32_t)value, count, 4, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                            hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, unsigned char, size_t, hipStream_t) =
		(hipError_t(*)(hipDeviceptr_t, unsigned char, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemsetD8Async);
	hipError_t r = real ? real(dest, value, count, stream) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetD8Async, r, dest, value, count, 1, stream);
	thip_end(&call);
	return r;
}

hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count,
                             hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, unsigned short, size_t, hipStream_t) =
		(hipError_t(*)(hipDeviceptr_t, unsigned short, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemsetD16Async);
	hipError_t r = real ? real(dest, value, count, stream) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetD16Async, r, dest, value, count, 2, stream);
	thip_end(&call);
	return r;
}

hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipDeviceptr_t, int, size_t, hipStream_t) =
		(hipError_t(*)(hipDeviceptr_t, int, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemsetD32Async);
	hipError_t r = real ? real(dst, value, count, stream) : THIP_NO_RUNTIME;
	thip_memset_record(&call, SBT_CM_HIP_hipMemsetD32Async, r, dst, (uint32_t)value, count, 4,
	                   stream);
	thip_end(&call);
	return r;
}

/* A pitched memset: depth (0: 2D) slices of height rows of width bytes,
 * rows pitch apart, slices pitch x slice_rows apart. */
static void thip_memset3d_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                                 void *dst, size_t pitch, size_t slice_rows, int value,
                                 size_t width, size_t height, size_t depth, hipStream_t stream)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = THIP_U(dst);
	c.pitch = pitch;
	c.dst_height = slice_rows;
	c.value = (uint8_t)value;
	c.width = width;
	c.height = height;
	c.depth = depth;
	c.elem_size = 1;
	c.size = (uint64_t)width * height * (depth ? depth : 1);
	c.stream = THIP_U(stream);
	c.capture_status = call->record ? thip_capture_status(stream) : 0;
	thip_simple(call, hcall, r, &c, CAP_REC_WORK);
}

/* hipMemset2D and its _spt twin (fn). */
static hipError_t thip_memset2d(thip_fn fn, void *dst, size_t pitch, int value, size_t width,
                                size_t height)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, int, size_t, size_t) =
		(hipError_t(*)(void *, size_t, int, size_t, size_t))thip_begin(&call, fn);
	hipError_t r = real ? real(dst, pitch, value, width, height) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemset2D_spt;
	thip_memset3d_record(&call, SBT_CM_HIP_hipMemset2D, r, dst, pitch, 0, value, width, height, 0,
	                     NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
	return thip_memset2d(THIP_FN_hipMemset2D, dst, pitch, value, width, height);
}

hipError_t hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width, size_t height)
{
	return thip_memset2d(THIP_FN_hipMemset2D_spt, dst, pitch, value, width, height);
}

hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height,
                            hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, int, size_t, size_t, hipStream_t) =
		(hipError_t(*)(void *, size_t, int, size_t, size_t, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemset2DAsync);
	hipError_t r = real ? real(dst, pitch, value, width, height, stream) : THIP_NO_RUNTIME;
	thip_memset3d_record(&call, SBT_CM_HIP_hipMemset2DAsync, r, dst, pitch, 0, value, width, height,
	                     0, stream);
	thip_end(&call);
	return r;
}

/* hipMemset3D and its _spt twin (fn). */
static hipError_t thip_memset3d(thip_fn fn, hipPitchedPtr pitchedDevPtr, int value,
                                hipExtent extent)
{
	thip_call call;
	hipError_t (*real)(hipPitchedPtr, int, hipExtent) =
		(hipError_t(*)(hipPitchedPtr, int, hipExtent))thip_begin(&call, fn);
	hipError_t r = real ? real(pitchedDevPtr, value, extent) : THIP_NO_RUNTIME;
	call.ptds = fn == THIP_FN_hipMemset3D_spt;
	thip_memset3d_record(&call, SBT_CM_HIP_hipMemset3D, r, pitchedDevPtr.ptr, pitchedDevPtr.pitch,
	                     pitchedDevPtr.ysize, value, extent.width, extent.height,
	                     extent.depth ? extent.depth : 1, NULL);
	thip_end(&call);
	return r;
}

hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
	return thip_memset3d(THIP_FN_hipMemset3D, pitchedDevPtr, value, extent);
}

hipError_t hipMemset3D_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
	return thip_memset3d(THIP_FN_hipMemset3D_spt, pitchedDevPtr, value, extent);
}

hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
                            hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipPitchedPtr, int, hipExtent, hipStream_t) =
		(hipError_t(*)(hipPitchedPtr, int, hipExtent, hipStream_t))thip_begin(
			&call, THIP_FN_hipMemset3DAsync);
	hipError_t r = real ? real(pitchedDevPtr, value, extent, stream) : THIP_NO_RUNTIME;
	thip_memset3d_record(&call, SBT_CM_HIP_hipMemset3DAsync, r, pitchedDevPtr.ptr,
	                     pitchedDevPtr.pitch, pitchedDevPtr.ysize, value, extent.width,
	                     extent.height, extent.depth ? extent.depth : 1, stream);
	thip_end(&call);
	return r;
}

/* ---- streams and events ---------------------------------------------------------------- */

static hipError_t thip_stream_create(thip_fn fn, sbt_cm_hip_call hcall, hipStream_t *stream,
                                     unsigned int flags, int priority)
{
	thip_call call;
	void *f = thip_begin(&call, fn);
	hipError_t r = THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (f && fn == THIP_FN_hipStreamCreate)
		r = ((hipError_t(*)(hipStream_t *))f)(stream);
	else if (f && fn == THIP_FN_hipStreamCreateWithFlags)
		r = ((hipError_t(*)(hipStream_t *, unsigned int))f)(stream, flags);
	else if (f)
		r = ((hipError_t(*)(hipStream_t *, unsigned int, int))f)(stream, flags, priority);
	sbt_cm_call_init(&c);
	c.handle = r == hipSuccess && stream ? THIP_U(*stream) : 0;
	c.flags = flags;
	c.priority = priority;
	thip_simple(&call, hcall, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
	return thip_stream_create(THIP_FN_hipStreamCreate, SBT_CM_HIP_hipStreamCreate, stream, 0, 0);
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
	return thip_stream_create(THIP_FN_hipStreamCreateWithFlags, SBT_CM_HIP_hipStreamCreateWithFlags,
	                          stream, flags, 0);
}

hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags, int priority)
{
	return thip_stream_create(THIP_FN_hipStreamCreateWithPriority,
	                          SBT_CM_HIP_hipStreamCreateWithPriority, stream, flags, priority);
}

/* A call taking one stream; sync = 1 when its success means the stream's
 * earlier work is done (its async copies to the host can be checkpointed). */
static hipError_t thip_stream_call(thip_fn fn, sbt_cm_hip_call hcall, hipStream_t stream, int sync,
                                   int ptds)
{
	thip_call call;
	hipError_t (*real)(hipStream_t) = (hipError_t(*)(hipStream_t))thip_begin(&call, fn);
	hipError_t r = real ? real(stream) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	call.ptds = ptds;
	sbt_cm_call_init(&c);
	c.stream = THIP_U(stream);
	thip_simple(&call, hcall, r, &c, 0);
	if (call.record && sync && r == hipSuccess)
		thip_pending_flush(0, THIP_U(stream));
	thip_end(&call);
	return r;
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
	thip_capture_forget(stream);
	return thip_stream_call(THIP_FN_hipStreamDestroy, SBT_CM_HIP_hipStreamDestroy, stream, 0, 0);
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
	return thip_stream_call(THIP_FN_hipStreamSynchronize, SBT_CM_HIP_hipStreamSynchronize, stream, 1,
	                        0);
}

/* clr's _spt stream calls: stream 0 is the calling thread's per-thread
 * default stream (recorded as the call without _spt, ptds = 1). */
hipError_t hipStreamSynchronize_spt(hipStream_t stream)
{
	return thip_stream_call(THIP_FN_hipStreamSynchronize_spt, SBT_CM_HIP_hipStreamSynchronize,
	                        stream, 1, 1);
}

hipError_t hipStreamQuery_spt(hipStream_t stream)
{
	return thip_stream_call(THIP_FN_hipStreamQuery_spt, SBT_CM_HIP_hipStreamQuery, stream, 1, 1);
}

hipError_t hipStreamQuery(hipStream_t stream)
{
	return thip_stream_call(THIP_FN_hipStreamQuery, SBT_CM_HIP_hipStreamQuery, stream, 1, 0);
}

static hipError_t thip_stream_wait(thip_fn fn, hipStream_t stream, hipEvent_t event,
                                   unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(hipStream_t, hipEvent_t, unsigned int) =
		(hipError_t(*)(hipStream_t, hipEvent_t, unsigned int))thip_begin(&call, fn);
	hipError_t r = real ? real(stream, event, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	call.ptds = fn == THIP_FN_hipStreamWaitEvent_spt;
	sbt_cm_call_init(&c);
	c.stream = THIP_U(stream);
	c.event = THIP_U(event);
	c.flags = flags;
	thip_simple(&call, SBT_CM_HIP_hipStreamWaitEvent, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
	return thip_stream_wait(THIP_FN_hipStreamWaitEvent, stream, event, flags);
}

hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
	return thip_stream_wait(THIP_FN_hipStreamWaitEvent_spt, stream, event, flags);
}

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)
{
	thip_call call;
	hipError_t (*real)(hipStream_t, hipStreamCaptureMode) =
		(hipError_t(*)(hipStream_t, hipStreamCaptureMode))thip_begin(&call, THIP_FN_hipStreamBeginCapture);
	hipError_t r = real ? real(stream, mode) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess)
		atomic_fetch_add(&thip_captures, 1);
	sbt_cm_call_init(&c);
	c.stream = THIP_U(stream);
	c.flags = (uint64_t)mode;
	thip_simple(&call, SBT_CM_HIP_hipStreamBeginCapture, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)
{
	thip_call call;
	hipError_t (*real)(hipStream_t, hipGraph_t *) =
		(hipError_t(*)(hipStream_t, hipGraph_t *))thip_begin(&call, THIP_FN_hipStreamEndCapture);
	hipError_t r = real ? real(stream, pGraph) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess) {
		int n = atomic_load(&thip_captures);
		while (n > 0 && !atomic_compare_exchange_weak(&thip_captures, &n, n - 1))
			;
		/* replay holds its work too: it may be a child graph node's */
		if (pGraph) {
			thip_graph_made(THIP_U(*pGraph), 1);
			thip_gorder_graph(THIP_U(*pGraph), 0); /* its nodes were never seen added */
		}
	}
	sbt_cm_call_init(&c);
	c.stream = THIP_U(stream);
	c.handle = r == hipSuccess && pGraph ? THIP_U(*pGraph) : 0;
	thip_simple(&call, SBT_CM_HIP_hipStreamEndCapture, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipEventCreate(hipEvent_t *event)
{
	thip_call call;
	hipError_t (*real)(hipEvent_t *) = (hipError_t(*)(hipEvent_t *))thip_begin(&call, THIP_FN_hipEventCreate);
	hipError_t r = real ? real(event) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.event = r == hipSuccess && event ? THIP_U(*event) : 0;
	thip_simple(&call, SBT_CM_HIP_hipEventCreate, r, &c, 0);
	thip_end(&call);
	return r;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
	thip_call call;
	hipError_t (*real)(hipEvent_t *, unsigned) =
		(hipError_t(*)(hipEvent_t *, unsigned))thip_begin(&call, THIP_FN_hipEventCreateWithFlags);
	hipError_t r = real ? real(event, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.event = r == hipSuccess && event ? THIP_U(*event) : 0;
	c.flags = flags;
	thip_simple(&call, SBT_CM_HIP_hipEventCreateWithFlags, r, &c, 0);
	thip_end(&call);
	return r;
}

static hipError_t thip_event_call(thip_fn fn, sbt_cm_hip_call hcall, hipEvent_t event)
{
	thip_call call;
	hipError_t (*real)(hipEvent_t) = (hipError_t(*)(hipEvent_t))thip_begin(&call, fn);
	hipError_t r = real ? real(event) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.event = THIP_U(event);
	thip_simple(&call, hcall, r, &c, 0);
	/* the event has completed: so has what came before it on its stream */
	if (call.record && r == hipSuccess &&
	    (hcall == SBT_CM_HIP_hipEventSynchronize || hcall == SBT_CM_HIP_hipEventQuery))
		thip_pending_flush_event(THIP_U(event));
	if (!call.nested && r == hipSuccess && hcall == SBT_CM_HIP_hipEventDestroy)
		thip_event_drop(THIP_U(event));
	thip_end(&call);
	return r;
}

hipError_t hipEventDestroy(hipEvent_t event)
{
	return thip_event_call(THIP_FN_hipEventDestroy, SBT_CM_HIP_hipEventDestroy, event);
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
	return thip_event_call(THIP_FN_hipEventSynchronize, SBT_CM_HIP_hipEventSynchronize, event);
}

hipError_t hipEventQuery(hipEvent_t event)
{
	return thip_event_call(THIP_FN_hipEventQuery, SBT_CM_HIP_hipEventQuery, event);
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
	thip_call call;
	hipError_t (*real)(hipEvent_t, hipStream_t) =
		(hipError_t(*)(hipEvent_t, hipStream_t))thip_begin(&call, THIP_FN_hipEventRecord);
	hipError_t r = real ? real(event, stream) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.event = THIP_U(event);
	c.stream = THIP_U(stream);
	if (call.record) {
		uint64_t seq;
		c.result = (uint64_t)r;
		seq = thip_record(SBT_CM_HIP_hipEventRecord, &c, 0);
		if (r == hipSuccess && seq)
			thip_event_note(THIP_U(event), THIP_U(stream), seq);
	}
	thip_end(&call);
	return r;
}
