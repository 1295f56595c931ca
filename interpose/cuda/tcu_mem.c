/*
 * tcu_mem.c - recording of allocations, frees, copies and memsets.
 * Host->device copies carry their bytes (copied when the call is made);
 * device->host copies are checkpointed once the program can see the result
 * (tcu_track.c keeps the async ones until a synchronization).
 */
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

#define TCU_H(x) ((uint64_t)(uintptr_t)(x))

/* ---- allocations ------------------------------------------------------------ */

/*
 * Device memory the program asks for is placed in the address window
 * (tcu_va.c) when there is one; *placed says whether it was.  Calls nested
 * in another hooked call (TCU_MODE_NESTED) and bad arguments go to the
 * driver, which answers them as it always does.
 */
static CUresult tcu_place(tcu_mode mode, CUdeviceptr *p, size_t size, int *placed)
{
	uint64_t addr = 0;
	CUresult r = CUDA_ERROR_NOT_SUPPORTED;
	*placed = 0;
	if (mode != TCU_MODE_NESTED && p && size)
		r = tcu_va_alloc(size, 0, 0, &addr);
	if (r == CUDA_SUCCESS) {
		*p = (CUdeviceptr)addr;
		*placed = 1;
	}
	return r;
}

static void tcu_alloc_record(sbt_cm_kind k, tcu_fn id, const sbt_cm_call *in)
{
	sbt_cm_call c = *in;
	tcu_emit(k, id, &c, CAP_REC_WORK);
}

/*
 * An allocation call: recorded in mode RECORD, and when it worked kept for
 * capture windows as object key of class cls.  A stream-ordered one is
 * kept on the legacy stream (0): its stream may be gone by the time a
 * window opens, and the memory is there then anyway.
 */
static void tcu_alloc_note(tcu_mode mode, sbt_cm_kind k, tcu_fn id, const sbt_cm_call *c,
                           tcu_live_class cls, uint64_t key)
{
	if (mode == TCU_MODE_RECORD)
		tcu_alloc_record(k, id, c);
	if (c->result == CUDA_SUCCESS && key) {
		sbt_cm_call kept = *c;
		kept.stream = 0;
		tcu_live_add(cls, key, 0, k, id, &kept, NULL, 0, NULL, NULL, 0);
	}
}

CUresult tcu_m_cuMemAlloc_v2(tcu_fn id, CUdeviceptr *p, size_t size)
{
	int placed;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAlloc_v2 real = (tcu_pfn_cuMemAlloc_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = tcu_place(mode, p, size, &placed);
	if (!placed && r != CUDA_ERROR_OUT_OF_MEMORY)
		r = real(p, size);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && p)
		tcu_alloc_add(*p, size, SBT_CM_MEM_DEVICE);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = r == CUDA_SUCCESS && p ? *p : 0;
		c.size = size;
		c.sub = SBT_CM_MEM_DEVICE;
		tcu_alloc_note(mode, SBT_CM_K_cuMemAlloc, id, &c, TCU_LIVE_MEM, c.dst);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemAllocPitch_v2(tcu_fn id, CUdeviceptr *p, size_t *pitch, size_t width,
                                  size_t height, unsigned int elem)
{
	int placed = 0;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAllocPitch_v2 real = (tcu_pfn_cuMemAllocPitch_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = CUDA_ERROR_NOT_SUPPORTED;
	/* Rows 512-byte aligned, as the real driver's pitches are. */
	if (pitch && width && height && (elem == 4 || elem == 8 || elem == 16) &&
	    width <= SIZE_MAX / 2 && ((width + 511) & ~(size_t)511) <= SIZE_MAX / height) {
		size_t pw = (width + 511) & ~(size_t)511;
		r = tcu_place(mode, p, pw * height, &placed);
		if (placed)
			*pitch = pw;
	}
	if (!placed && r != CUDA_ERROR_OUT_OF_MEMORY)
		r = real(p, pitch, width, height, elem);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && p && pitch)
		tcu_alloc_add(*p, *pitch * height, SBT_CM_MEM_PITCH);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		if (r == CUDA_SUCCESS && p && pitch) {
			c.dst = *p;
			c.pitch = *pitch;
			c.size = *pitch * height;
		}
		c.width = width;
		c.height = height;
		c.elem_size = elem;
		c.sub = SBT_CM_MEM_PITCH;
		tcu_alloc_note(mode, SBT_CM_K_cuMemAllocPitch, id, &c, TCU_LIVE_MEM, c.dst);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemAllocAsync(tcu_fn id, CUdeviceptr *p, size_t size, CUstream s)
{
	int placed;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAllocAsync real = (tcu_pfn_cuMemAllocAsync)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	/* Placed at once: the memory is usable earlier than stream order
	 * promises, never later. */
	r = tcu_place(mode, p, size, &placed);
	if (!placed && r != CUDA_ERROR_OUT_OF_MEMORY)
		r = real(p, size, s);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && p)
		tcu_alloc_add(*p, size, SBT_CM_MEM_ASYNC);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = r == CUDA_SUCCESS && p ? *p : 0;
		c.size = size;
		c.stream = TCU_H(s);
		c.sub = SBT_CM_MEM_ASYNC;
		tcu_alloc_note(mode, SBT_CM_K_cuMemAllocAsync, id, &c, TCU_LIVE_MEM, c.dst);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemAllocFromPoolAsync(tcu_fn id, CUdeviceptr *p, size_t size, CUmemoryPool pool,
                                       CUstream s)
{
	int placed;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAllocFromPoolAsync real =
	    (tcu_pfn_cuMemAllocFromPoolAsync)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	/* The pool's properties (export handles, attributes) do not apply to
	 * window memory: docs/cuda.md says so. */
	r = tcu_place(mode, p, size, &placed);
	if (!placed && r != CUDA_ERROR_OUT_OF_MEMORY)
		r = real(p, size, pool, s);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && p)
		tcu_alloc_add(*p, size, SBT_CM_MEM_POOL);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = r == CUDA_SUCCESS && p ? *p : 0;
		c.size = size;
		c.pool = TCU_H(pool);
		c.stream = TCU_H(s);
		c.sub = SBT_CM_MEM_POOL;
		tcu_alloc_note(mode, SBT_CM_K_cuMemAllocFromPoolAsync, id, &c, TCU_LIVE_MEM, c.dst);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemAllocManaged(tcu_fn id, CUdeviceptr *p, size_t size, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAllocManaged real = (tcu_pfn_cuMemAllocManaged)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, size, flags);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_va_note_unplaced("managed memory (cuMemAllocManaged)");
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && p)
		tcu_alloc_add(*p, size, SBT_CM_MEM_MANAGED);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = r == CUDA_SUCCESS && p ? *p : 0;
		c.size = size;
		c.flags = flags;
		c.sub = SBT_CM_MEM_MANAGED;
		tcu_alloc_note(mode, SBT_CM_K_cuMemAllocManaged, id, &c, TCU_LIVE_MEM, c.dst);
	}
out:
	tcu_call_end();
	return r;
}

static void tcu_host_record(sbt_cm_kind k, tcu_fn id, CUresult r, const void *host, size_t size,
                            unsigned flags, unsigned kind)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.host = TCU_H(host);
	c.size = size;
	c.flags = flags;
	c.sub = kind;
	tcu_alloc_record(k, id, &c);
}

/* Host memory the driver knows, kept for capture windows. */
static void tcu_host_keep(sbt_cm_kind k, tcu_fn id, const void *host, size_t size, unsigned flags,
                          unsigned kind)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.host = TCU_H(host);
	c.size = size;
	c.flags = flags;
	c.sub = kind;
	tcu_live_add(TCU_LIVE_MEM, c.host, 0, k, id, &c, NULL, 0, NULL, NULL, 0);
}

CUresult tcu_m_cuMemAllocHost_v2(tcu_fn id, void **pp, size_t size)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAllocHost_v2 real = (tcu_pfn_cuMemAllocHost_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pp, size);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && pp)
		tcu_alloc_add(TCU_H(*pp), size, SBT_CM_MEM_HOST);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_host_keep(SBT_CM_K_cuMemAllocHost, id, pp ? *pp : NULL, size, 0, SBT_CM_MEM_HOST);
	if (mode == TCU_MODE_RECORD)
		tcu_host_record(SBT_CM_K_cuMemAllocHost, id, r, r == CUDA_SUCCESS && pp ? *pp : NULL,
		                size, 0, SBT_CM_MEM_HOST);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemHostAlloc(tcu_fn id, void **pp, size_t size, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemHostAlloc real = (tcu_pfn_cuMemHostAlloc)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(pp, size, flags);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && pp)
		tcu_alloc_add(TCU_H(*pp), size, SBT_CM_MEM_HOST_ALLOC);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_host_keep(SBT_CM_K_cuMemHostAlloc, id, pp ? *pp : NULL, size, flags, SBT_CM_MEM_HOST_ALLOC);
	if (mode == TCU_MODE_RECORD)
		tcu_host_record(SBT_CM_K_cuMemHostAlloc, id, r, r == CUDA_SUCCESS && pp ? *pp : NULL,
		                size, flags, SBT_CM_MEM_HOST_ALLOC);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemHostRegister_v2(tcu_fn id, void *p, size_t size, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemHostRegister_v2 real =
	    (tcu_pfn_cuMemHostRegister_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, size, flags);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_add(TCU_H(p), size, SBT_CM_MEM_HOST_REGISTER);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_host_keep(SBT_CM_K_cuMemHostRegister, id, p, size, flags, SBT_CM_MEM_HOST_REGISTER);
	if (mode == TCU_MODE_RECORD)
		tcu_host_record(SBT_CM_K_cuMemHostRegister, id, r, p, size, flags,
		                SBT_CM_MEM_HOST_REGISTER);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemFreeHost(tcu_fn id, void *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemFreeHost real = (tcu_pfn_cuMemFreeHost)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_del(TCU_H(p));
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_MEM, TCU_H(p));
	if (mode == TCU_MODE_RECORD)
		tcu_host_record(SBT_CM_K_cuMemFreeHost, id, r, p, 0, 0, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemHostUnregister(tcu_fn id, void *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemHostUnregister real = (tcu_pfn_cuMemHostUnregister)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_del(TCU_H(p));
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_MEM, TCU_H(p));
	if (mode == TCU_MODE_RECORD)
		tcu_host_record(SBT_CM_K_cuMemHostUnregister, id, r, p, 0, 0, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemFree_v2(tcu_fn id, CUdeviceptr p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemFree_v2 real = (tcu_pfn_cuMemFree_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = mode != TCU_MODE_NESTED && p ? tcu_va_release(p, 0) : CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		r = real(p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_del(p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_MEM, p);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = p;
		tcu_alloc_record(SBT_CM_K_cuMemFree, id, &c);
	}
out:
	tcu_call_end();
	return r;
}

/*
 * A stream-ordered free of window memory: released once the stream has
 * reached it (tcu_va.c), never early.  On a capturing stream the free
 * becomes a graph node, run at each launch of the graph; there the memory
 * is kept until exit and counted.
 */
static CUresult tcu_free_async_placed(CUdeviceptr p, CUstream s)
{
	tcu_pfn_cuStreamIsCapturing isc = (tcu_pfn_cuStreamIsCapturing)tcu_own(TCU_FN_cuStreamIsCapturing);
	CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
	if (isc && isc(s, &cs) == CUDA_SUCCESS && cs != CU_STREAM_CAPTURE_STATUS_NONE) {
		atomic_fetch_add(&tcu_g.va_kept, 1);
		return CUDA_SUCCESS;
	}
	return tcu_va_release_async(p, s);
}

CUresult tcu_m_cuMemFreeAsync(tcu_fn id, CUdeviceptr p, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemFreeAsync real = (tcu_pfn_cuMemFreeAsync)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = CUDA_ERROR_NOT_SUPPORTED;
	if (mode != TCU_MODE_NESTED && p && tcu_va_lookup(p, &(uint64_t){0}, &(uint64_t){0}))
		r = tcu_free_async_placed(p, s);
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		r = real(p, s);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_del(p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_MEM, p);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = p;
		c.stream = TCU_H(s);
		tcu_alloc_record(SBT_CM_K_cuMemFreeAsync, id, &c);
	}
out:
	tcu_call_end();
	return r;
}

/* ---- questions about placed memory ---------------------------------------------- */

/* The driver knows window memory as mappings of whole chunks; the
 * program asked for allocations, so the range questions are ours. */
CUresult tcu_m_cuMemGetAddressRange_v2(tcu_fn id, CUdeviceptr *pbase, size_t *psize,
                                       CUdeviceptr p)
{
	uint64_t base, size;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemGetAddressRange_v2 real =
	    (tcu_pfn_cuMemGetAddressRange_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	if (mode != TCU_MODE_NESTED && (pbase || psize) && tcu_va_lookup(p, &base, &size)) {
		if (pbase)
			*pbase = (CUdeviceptr)base;
		if (psize)
			*psize = (size_t)size;
		r = CUDA_SUCCESS;
	} else {
		r = real(pbase, psize, p);
	}
out:
	tcu_call_end();
	return r;
}

/* Answer the range attributes of one attribute query from our table. */
static void tcu_ptr_attr_fix(CUpointer_attribute a, void *data, uint64_t base, uint64_t size)
{
	if (!data)
		return;
	if (a == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
		*(CUdeviceptr *)data = (CUdeviceptr)base;
	else if (a == CU_POINTER_ATTRIBUTE_RANGE_SIZE)
		*(size_t *)data = (size_t)size;
}

CUresult tcu_m_cuPointerGetAttribute(tcu_fn id, void *data, CUpointer_attribute a, CUdeviceptr p)
{
	uint64_t base, size;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuPointerGetAttribute real =
	    (tcu_pfn_cuPointerGetAttribute)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(data, a, p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && tcu_va_lookup(p, &base, &size))
		tcu_ptr_attr_fix(a, data, base, size);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuPointerGetAttributes(tcu_fn id, unsigned int n, CUpointer_attribute *a,
                                      void **data, CUdeviceptr p)
{
	uint64_t base, size;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuPointerGetAttributes real =
	    (tcu_pfn_cuPointerGetAttributes)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(n, a, data, p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS && a && data && tcu_va_lookup(p, &base, &size))
		for (unsigned i = 0; i < n; i++)
			tcu_ptr_attr_fix(a[i], data[i], base, size);
out:
	tcu_call_end();
	return r;
}

/* Legacy IPC takes only memory of cuMemAlloc's own; window memory is
 * refused by the driver, and the program is told how to capture it. */
CUresult tcu_m_cuIpcGetMemHandle(tcu_fn id, CUipcMemHandle *h, CUdeviceptr p)
{
	uint64_t base, size;
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuIpcGetMemHandle real = (tcu_pfn_cuIpcGetMemHandle)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(h, p);
	if (mode != TCU_MODE_NESTED && r != CUDA_SUCCESS && tcu_va_lookup(p, &base, &size) &&
	    atomic_exchange(&tcu_g.va_ipc_said, 1) == 0)
		CAP_WARN("cuda: cuIpcGetMemHandle failed on memory placed in the address window "
		         "(same-address capture); capture this program with TRACESMITH_CUDA_VA=off");
out:
	tcu_call_end();
	return r;
}

/* ---- virtual memory management ------------------------------------------------- */

CUresult tcu_m_cuMemCreate(tcu_fn id, CUmemGenericAllocationHandle *h, size_t size,
                           const CUmemAllocationProp *prop, unsigned long long flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemCreate real = (tcu_pfn_cuMemCreate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(h, size, prop, flags);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = r == CUDA_SUCCESS && h ? *h : 0;
		c.size = size;
		c.device = prop ? prop->location.id : 0;
		c.flags = flags;
		c.sub = SBT_CM_MEM_VMM_HANDLE;
		tcu_alloc_note(mode, SBT_CM_K_cuMemCreate, id, &c, TCU_LIVE_VMM_HANDLE, c.handle);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemRelease(tcu_fn id, CUmemGenericAllocationHandle h)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemRelease real = (tcu_pfn_cuMemRelease)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(h);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_vmm_release(h);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.handle = h;
		tcu_alloc_record(SBT_CM_K_cuMemRelease, id, &c);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemAddressReserve(tcu_fn id, CUdeviceptr *p, size_t size, size_t align,
                                   CUdeviceptr addr, unsigned long long flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAddressReserve real = (tcu_pfn_cuMemAddressReserve)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = CUDA_ERROR_NOT_SUPPORTED;
	/* The program's own reservation at no fixed address is placed in the
	 * window too, so what it maps there replays at the same address. */
	if (mode != TCU_MODE_NESTED && p && size && !addr) {
		uint64_t got = 0;
		r = tcu_va_alloc(size, 1, align, &got);
		if (r == CUDA_SUCCESS)
			*p = got;
	}
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		r = real(p, size, align, addr, flags);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = r == CUDA_SUCCESS && p ? *p : 0;
		c.size = size;
		c.align = align;
		c.src = addr;
		c.flags = flags;
		c.sub = SBT_CM_MEM_VMM_RESERVE;
		tcu_alloc_note(mode, SBT_CM_K_cuMemAddressReserve, id, &c, TCU_LIVE_VMM_RESERVE, c.dst);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemAddressFree(tcu_fn id, CUdeviceptr p, size_t size)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemAddressFree real = (tcu_pfn_cuMemAddressFree)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = mode != TCU_MODE_NESTED && p ? tcu_va_release(p, 1) : CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		r = real(p, size);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_drop(TCU_LIVE_VMM_RESERVE, p);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = p;
		c.size = size;
		tcu_alloc_record(SBT_CM_K_cuMemAddressFree, id, &c);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemMap(tcu_fn id, CUdeviceptr p, size_t size, size_t offset,
                        CUmemGenericAllocationHandle h, unsigned long long flags)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemMap real = (tcu_pfn_cuMemMap)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, size, offset, h, flags);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_add(p, size, SBT_CM_MEM_VMM_MAP);
	if (mode != TCU_MODE_NESTED) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = p;
		c.size = size;
		c.offset = offset;
		c.handle = h;
		c.flags = flags;
		c.sub = SBT_CM_MEM_VMM_MAP;
		if (mode == TCU_MODE_RECORD)
			tcu_alloc_record(SBT_CM_K_cuMemMap, id, &c);
		if (r == CUDA_SUCCESS)
			tcu_live_add(TCU_LIVE_VMM_MAP, p, h, SBT_CM_K_cuMemMap, id, &c, NULL, 0, NULL, NULL,
			             0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemUnmap(tcu_fn id, CUdeviceptr p, size_t size)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemUnmap real = (tcu_pfn_cuMemUnmap)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, size);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_alloc_del(p);
	if (mode != TCU_MODE_NESTED && r == CUDA_SUCCESS)
		tcu_live_vmm_unmap(p);
	if (mode == TCU_MODE_RECORD) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.result = r;
		c.dst = p;
		c.size = size;
		tcu_alloc_record(SBT_CM_K_cuMemUnmap, id, &c);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemSetAccess(tcu_fn id, CUdeviceptr p, size_t size, const CUmemAccessDesc *desc,
                              size_t count)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemSetAccess real = (tcu_pfn_cuMemSetAccess)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, size, desc, count);
	if (mode != TCU_MODE_NESTED) {
		/* One record per access descriptor: location and flags each. */
		for (size_t i = 0; i < (desc ? count : 0) || (i == 0 && !count); i++) {
			sbt_cm_call c;
			sbt_cm_call_init(&c);
			c.result = r;
			c.dst = p;
			c.size = size;
			if (desc && count) {
				c.device = desc[i].location.id;
				c.flags = (uint64_t)desc[i].flags;
			}
			if (mode == TCU_MODE_RECORD)
				tcu_alloc_record(SBT_CM_K_cuMemSetAccess, id, &c);
			if (r == CUDA_SUCCESS)
				tcu_live_add(TCU_LIVE_VMM_ACCESS, p ^ ((uint64_t)(c.device & 0xff) << 56), p,
				             SBT_CM_K_cuMemSetAccess, id, &c, NULL, 0, NULL, NULL, 0);
			if (!count)
				break;
		}
	}
out:
	tcu_call_end();
	return r;
}

/* ---- linear copies ------------------------------------------------------------- */

/* Records a linear copy; a host source's bytes go in as a blob.  Returns
 * the record's seq for the checkpoint of a host destination. */
static void tcu_copy_call(sbt_cm_call *c, CUresult r, unsigned dir, uint64_t dst, uint64_t src,
                          const void *host, size_t n, CUstream s)
{
	sbt_cm_call_init(c);
	c->result = r;
	c->sub = dir;
	c->dst = dst;
	c->src = src;
	c->host = TCU_H(host);
	c->size = n;
	c->stream = TCU_H(s);
}

static uint64_t tcu_copy_record(sbt_cm_kind k, tcu_fn id, CUresult r, unsigned dir, uint64_t dst,
                                uint64_t src, const void *host, size_t n, CUstream s)
{
	sbt_cm_call c;
	tcu_copy_call(&c, r, dir, dst, src, host, n, s);
	if (dir == SBT_CM_COPY_HTOD && r == CUDA_SUCCESS && host && n)
		c.blob = cap_blob(host, n);
	return tcu_emit(k, id, &c, CAP_REC_WORK);
}

/* An async copy into a stream capture kept for capture windows
 * (tcu_live.c): the bytes of a host source kept as its blob. */
static void tcu_copy_keep(tcu_mode mode, sbt_cm_kind k, tcu_fn id, CUresult r, unsigned dir,
                          uint64_t dst, uint64_t src, const void *host, size_t n, CUstream s)
{
	sbt_cm_call c;
	if (!tcu_live_captured(mode, s, (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0, NULL))
		return;
	tcu_copy_call(&c, r, dir, dst, src, host, n, s);
	tcu_live_capture_call(k, id, &c, dir == SBT_CM_COPY_HTOD ? host : NULL, n);
}

CUresult tcu_m_cuMemcpyHtoD_v2(tcu_fn id, CUdeviceptr dst, const void *src, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyHtoD_v2 real = (tcu_pfn_cuMemcpyHtoD_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n);
	if (mode == TCU_MODE_RECORD)
		tcu_copy_record(SBT_CM_K_cuMemcpyHtoD, id, r, SBT_CM_COPY_HTOD, dst, 0, src, n, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyHtoDAsync_v2(tcu_fn id, CUdeviceptr dst, const void *src, size_t n,
                                    CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyHtoDAsync_v2 real =
	    (tcu_pfn_cuMemcpyHtoDAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n, s);
	if (mode == TCU_MODE_RECORD)
		tcu_copy_record(SBT_CM_K_cuMemcpyHtoDAsync, id, r, SBT_CM_COPY_HTOD, dst, 0, src, n, s);
	tcu_copy_keep(mode, SBT_CM_K_cuMemcpyHtoDAsync, id, r, SBT_CM_COPY_HTOD, dst, 0, src, n, s);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyDtoH_v2(tcu_fn id, void *dst, CUdeviceptr src, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyDtoH_v2 real = (tcu_pfn_cuMemcpyDtoH_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n);
	if (mode == TCU_MODE_RECORD) {
		uint64_t seq = tcu_copy_record(SBT_CM_K_cuMemcpyDtoH, id, r, SBT_CM_COPY_DTOH, 0, src,
		                               dst, n, NULL);
		if (r == CUDA_SUCCESS)
			tcu_checkpoint_dtoh(seq, src, dst, n);
	}
out:
	tcu_call_end();
	return r;
}

/*
 * An async copy to the host on a capturing stream did not run: it became a
 * graph node, and its bytes are written whenever the graph is launched.  No
 * checkpoint is taken for it (the host buffer would be hashed before the
 * graph ran); the graph's results are checked where the program reads them
 * back outside the capture.
 */
static int tcu_dtoh_checkpointable(CUstream s, tcu_fn id)
{
	int status;
	uint64_t cid;
	if (!tcu_capture_query(s, (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0, &status, &cid))
		return 1;
	if (atomic_exchange(&tcu_g.capture_dtoh_said, 1) == 0)
		CAP_INFO("cuda: copies to the host during stream capture become graph nodes: they get "
		         "no checkpoint of their own");
	return 0;
}

CUresult tcu_m_cuMemcpyDtoHAsync_v2(tcu_fn id, void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyDtoHAsync_v2 real =
	    (tcu_pfn_cuMemcpyDtoHAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n, s);
	if (mode == TCU_MODE_RECORD) {
		uint64_t seq = tcu_copy_record(SBT_CM_K_cuMemcpyDtoHAsync, id, r, SBT_CM_COPY_DTOH, 0,
		                               src, dst, n, s);
		if (r == CUDA_SUCCESS && tcu_dtoh_checkpointable(s, id))
			tcu_pending_add(seq, TCU_H(s), src, dst, n);
	}
	tcu_copy_keep(mode, SBT_CM_K_cuMemcpyDtoHAsync, id, r, SBT_CM_COPY_DTOH, 0, src, dst, n, s);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyDtoD_v2(tcu_fn id, CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyDtoD_v2 real = (tcu_pfn_cuMemcpyDtoD_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n);
	if (mode == TCU_MODE_RECORD)
		tcu_copy_record(SBT_CM_K_cuMemcpyDtoD, id, r, SBT_CM_COPY_DTOD, dst, src, NULL, n, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyDtoDAsync_v2(tcu_fn id, CUdeviceptr dst, CUdeviceptr src, size_t n,
                                    CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyDtoDAsync_v2 real =
	    (tcu_pfn_cuMemcpyDtoDAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n, s);
	if (mode == TCU_MODE_RECORD)
		tcu_copy_record(SBT_CM_K_cuMemcpyDtoDAsync, id, r, SBT_CM_COPY_DTOD, dst, src, NULL, n, s);
	tcu_copy_keep(mode, SBT_CM_K_cuMemcpyDtoDAsync, id, r, SBT_CM_COPY_DTOD, dst, src, NULL, n, s);
out:
	tcu_call_end();
	return r;
}

/* Unified addressing: which side is host is decided by what we know. */
static unsigned tcu_unified_dir(CUdeviceptr dst, CUdeviceptr src)
{
	int d = tcu_addr_is_device(dst), s = tcu_addr_is_device(src);
	return d ? (s ? SBT_CM_COPY_DTOD : SBT_CM_COPY_HTOD) : (s ? SBT_CM_COPY_DTOH : SBT_CM_COPY_HTOH);
}

static void tcu_unified_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUdeviceptr dst,
                               CUdeviceptr src, size_t n, CUstream s, int async)
{
	unsigned dir = tcu_unified_dir(dst, src);
	const void *host = NULL;
	uint64_t seq;
	if (dir == SBT_CM_COPY_HTOD || dir == SBT_CM_COPY_HTOH)
		host = (const void *)(uintptr_t)src;
	else if (dir == SBT_CM_COPY_DTOH)
		host = (const void *)(uintptr_t)dst;
	seq = tcu_copy_record(k, id, r, dir, dir == SBT_CM_COPY_DTOH ? 0 : dst,
	                      dir == SBT_CM_COPY_HTOD || dir == SBT_CM_COPY_HTOH ? 0 : src, host, n, s);
	if (dir == SBT_CM_COPY_HTOH && r == CUDA_SUCCESS && !async)
		cap_checkpoint(seq, 0, dst, (const void *)(uintptr_t)dst, n);
	if (dir == SBT_CM_COPY_DTOH && r == CUDA_SUCCESS) {
		if (!async)
			tcu_checkpoint_dtoh(seq, src, host, n);
		else if (tcu_dtoh_checkpointable(s, id))
			tcu_pending_add(seq, TCU_H(s), src, host, n);
	}
}

CUresult tcu_m_cuMemcpy(tcu_fn id, CUdeviceptr dst, CUdeviceptr src, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpy real = (tcu_pfn_cuMemcpy)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n);
	if (mode == TCU_MODE_RECORD)
		tcu_unified_record(SBT_CM_K_cuMemcpy, id, r, dst, src, n, NULL, 0);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyAsync(tcu_fn id, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyAsync real = (tcu_pfn_cuMemcpyAsync)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, n, s);
	if (mode == TCU_MODE_RECORD)
		tcu_unified_record(SBT_CM_K_cuMemcpyAsync, id, r, dst, src, n, s, 1);
out:
	tcu_call_end();
	return r;
}

static void tcu_peer_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUdeviceptr dst, CUcontext dctx,
                            CUdeviceptr src, CUcontext sctx, size_t n, CUstream s)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	c.sub = SBT_CM_COPY_DTOD;
	c.dst = dst;
	c.ctx = TCU_H(dctx);
	c.src = src;
	c.src_ctx = TCU_H(sctx);
	c.size = n;
	c.stream = TCU_H(s);
	tcu_emit(k, id, &c, CAP_REC_WORK);
}

CUresult tcu_m_cuMemcpyPeer(tcu_fn id, CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                            CUcontext sctx, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyPeer real = (tcu_pfn_cuMemcpyPeer)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, dctx, src, sctx, n);
	if (mode == TCU_MODE_RECORD)
		tcu_peer_record(SBT_CM_K_cuMemcpyPeer, id, r, dst, dctx, src, sctx, n, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyPeerAsync(tcu_fn id, CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                                 CUcontext sctx, size_t n, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyPeerAsync real = (tcu_pfn_cuMemcpyPeerAsync)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, dctx, src, sctx, n, s);
	if (mode == TCU_MODE_RECORD)
		tcu_peer_record(SBT_CM_K_cuMemcpyPeerAsync, id, r, dst, dctx, src, sctx, n, s);
out:
	tcu_call_end();
	return r;
}

/* ---- 2D and 3D copies --------------------------------------------------------------- */

/* A 3D copy seen as a 2D one has depth 1; the fields that differ are passed. */
typedef struct tcu_copy3 {
	CUmemorytype dtype, stype;
	size_t dx, dy, dz, sx, sy, sz;
	size_t dpitch, spitch, dheight, sheight;
	uint64_t ddev, sdev;
	const void *shost;
	void *dhost;
	CUarray darr, sarr;
	size_t width, height, depth;
} tcu_copy3;

/* Unified addressing resolved by our tables. */
static CUmemorytype tcu_resolve_type(CUmemorytype t, uint64_t dev)
{
	if (t != CU_MEMORYTYPE_UNIFIED)
		return t;
	return tcu_addr_is_device(dev) ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
}

/* The rows a copy touches in host memory, packed (width bytes each). */
static uint8_t *tcu_pack_rows(const uint8_t *base, size_t x, size_t y, size_t z, size_t pitch,
                              size_t height, const tcu_copy3 *k)
{
	size_t rows = k->height * k->depth;
	uint8_t *out = malloc(rows * k->width + 1);
	size_t slice = pitch * (height ? height : k->height);
	if (!out)
		return NULL;
	for (size_t d = 0; d < k->depth; d++)
		for (size_t h = 0; h < k->height; h++)
			memcpy(out + (d * k->height + h) * k->width,
			       base + (z + d) * slice + (y + h) * pitch + x, k->width);
	return out;
}

/* The fields of a 2D or 3D copy's record (its stream apart); a host
 * source's packed rows in *packed_out (malloc'd; NULL when none, or out
 * of memory), bytes in *bytes_out. */
static void tcu_copy3_fill(CUresult r, const tcu_copy3 *m, sbt_cm_call *c, uint8_t **packed_out,
                           size_t *bytes_out)
{
	CUmemorytype dt = tcu_resolve_type(m->dtype, m->ddev);
	CUmemorytype st = tcu_resolve_type(m->stype, m->sdev);
	const uint8_t *shost = m->stype == CU_MEMORYTYPE_UNIFIED ? (const uint8_t *)(uintptr_t)m->sdev
	                                                          : m->shost;
	size_t bytes = m->width * m->height * m->depth;

	sbt_cm_call_init(c);
	c->result = r;
	c->dst_type = dt;
	c->src_type = st;
	c->dst_x = m->dx;
	c->dst_y = m->dy;
	c->dst_z = m->dz;
	c->src_x = m->sx;
	c->src_y = m->sy;
	c->src_z = m->sz;
	c->dst_pitch = m->dpitch;
	c->src_pitch = m->spitch;
	c->dst_height = m->dheight;
	c->src_height = m->sheight;
	c->width = m->width;
	c->height = m->height;
	c->depth = m->depth;
	c->size = bytes;
	c->dst = dt == CU_MEMORYTYPE_ARRAY ? TCU_H(m->darr) : dt == CU_MEMORYTYPE_HOST ? 0 : m->ddev;
	c->src = st == CU_MEMORYTYPE_ARRAY ? TCU_H(m->sarr) : st == CU_MEMORYTYPE_HOST ? 0 : m->sdev;
	if (dt == CU_MEMORYTYPE_ARRAY || st == CU_MEMORYTYPE_ARRAY)
		c->sub = SBT_CM_COPY_ARRAY;
	else if (st == CU_MEMORYTYPE_HOST)
		c->sub = dt == CU_MEMORYTYPE_HOST ? SBT_CM_COPY_HTOH : SBT_CM_COPY_HTOD;
	else
		c->sub = dt == CU_MEMORYTYPE_HOST ? SBT_CM_COPY_DTOH : SBT_CM_COPY_DTOD;
	*packed_out = NULL;
	*bytes_out = bytes;
	if (st == CU_MEMORYTYPE_HOST && shost && r == CUDA_SUCCESS && bytes) {
		*packed_out = tcu_pack_rows(shost, m->sx, m->sy, m->sz, m->spitch, m->sheight, m);
		c->host = TCU_H(shost);
	}
}

static void tcu_copy3_record(sbt_cm_kind k, tcu_fn id, CUresult r, const tcu_copy3 *m, CUstream s,
                             int async)
{
	sbt_cm_call c;
	CUmemorytype dt = tcu_resolve_type(m->dtype, m->ddev);
	CUmemorytype st = tcu_resolve_type(m->stype, m->sdev);
	uint8_t *dhost = m->dtype == CU_MEMORYTYPE_UNIFIED ? (uint8_t *)(uintptr_t)m->ddev : m->dhost;
	uint8_t *packed = NULL;
	size_t bytes;
	uint64_t seq;

	tcu_copy3_fill(r, m, &c, &packed, &bytes);
	c.stream = TCU_H(s);
	if (packed)
		c.blob = cap_blob(packed, bytes);
	free(packed);
	packed = NULL;
	seq = tcu_emit(k, id, &c, CAP_REC_WORK);
	/* A host destination is what the program observes: checkpoint its
	 * packed rows.  Only synchronous copies are checkpointed: the async
	 * 2D/3D forms to host are not (a known gap, in docs/cuda.md). */
	if (dt == CU_MEMORYTYPE_HOST && dhost && r == CUDA_SUCCESS && bytes && !async) {
		packed = tcu_pack_rows(dhost, m->dx, m->dy, m->dz, m->dpitch, m->dheight, m);
		if (packed)
			cap_checkpoint(seq, st == CU_MEMORYTYPE_DEVICE  ? m->sdev
			                    : st == CU_MEMORYTYPE_ARRAY ? TCU_H(m->sarr)
			                                                : 0,
			               0, packed, bytes);
		free(packed);
	}
}

static void tcu_copy3_from_2d(const CUDA_MEMCPY2D *p, tcu_copy3 *m)
{
	memset(m, 0, sizeof(*m));
	m->dtype = p->dstMemoryType;
	m->stype = p->srcMemoryType;
	m->dx = p->dstXInBytes;
	m->dy = p->dstY;
	m->sx = p->srcXInBytes;
	m->sy = p->srcY;
	m->dpitch = p->dstPitch;
	m->spitch = p->srcPitch;
	m->ddev = p->dstDevice;
	m->sdev = p->srcDevice;
	m->dhost = p->dstHost;
	m->shost = p->srcHost;
	m->darr = p->dstArray;
	m->sarr = p->srcArray;
	m->width = p->WidthInBytes;
	m->height = p->Height;
	m->depth = 1;
}

static void tcu_copy3_from_3d(const CUDA_MEMCPY3D *p, tcu_copy3 *m)
{
	memset(m, 0, sizeof(*m));
	m->dtype = p->dstMemoryType;
	m->stype = p->srcMemoryType;
	m->dx = p->dstXInBytes;
	m->dy = p->dstY;
	m->dz = p->dstZ;
	m->sx = p->srcXInBytes;
	m->sy = p->srcY;
	m->sz = p->srcZ;
	m->dpitch = p->dstPitch;
	m->spitch = p->srcPitch;
	m->dheight = p->dstHeight;
	m->sheight = p->srcHeight;
	m->ddev = p->dstDevice;
	m->sdev = p->srcDevice;
	m->dhost = p->dstHost;
	m->shost = p->srcHost;
	m->darr = p->dstArray;
	m->sarr = p->srcArray;
	m->width = p->WidthInBytes;
	m->height = p->Height;
	m->depth = p->Depth ? p->Depth : 1;
}

/* A graph's memcpy node (tcu_graph.c): its record's copy fields. */
void tcu_copy3d_node_fill(const CUDA_MEMCPY3D *p, CUresult r, sbt_cm_call *c, uint8_t **packed_out,
                          size_t *bytes_out)
{
	tcu_copy3 m;
	tcu_copy3_from_3d(p, &m);
	tcu_copy3_fill(r, &m, c, packed_out, bytes_out);
}

CUresult tcu_m_cuMemcpy2D_v2(tcu_fn id, const CUDA_MEMCPY2D *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpy2D_v2 real = (tcu_pfn_cuMemcpy2D_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p);
	if (mode == TCU_MODE_RECORD && p) {
		tcu_copy3 m;
		tcu_copy3_from_2d(p, &m);
		tcu_copy3_record(SBT_CM_K_cuMemcpy2D, id, r, &m, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpy2DUnaligned_v2(tcu_fn id, const CUDA_MEMCPY2D *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpy2DUnaligned_v2 real =
	    (tcu_pfn_cuMemcpy2DUnaligned_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p);
	if (mode == TCU_MODE_RECORD && p) {
		tcu_copy3 m;
		tcu_copy3_from_2d(p, &m);
		tcu_copy3_record(SBT_CM_K_cuMemcpy2DUnaligned, id, r, &m, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpy2DAsync_v2(tcu_fn id, const CUDA_MEMCPY2D *p, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpy2DAsync_v2 real = (tcu_pfn_cuMemcpy2DAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, s);
	if (mode == TCU_MODE_RECORD && p) {
		tcu_copy3 m;
		tcu_copy3_from_2d(p, &m);
		tcu_copy3_record(SBT_CM_K_cuMemcpy2DAsync, id, r, &m, s, 1);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpy3D_v2(tcu_fn id, const CUDA_MEMCPY3D *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpy3D_v2 real = (tcu_pfn_cuMemcpy3D_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p);
	if (mode == TCU_MODE_RECORD && p) {
		tcu_copy3 m;
		tcu_copy3_from_3d(p, &m);
		tcu_copy3_record(SBT_CM_K_cuMemcpy3D, id, r, &m, NULL, 0);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpy3DAsync_v2(tcu_fn id, const CUDA_MEMCPY3D *p, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpy3DAsync_v2 real = (tcu_pfn_cuMemcpy3DAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(p, s);
	if (mode == TCU_MODE_RECORD && p) {
		tcu_copy3 m;
		tcu_copy3_from_3d(p, &m);
		tcu_copy3_record(SBT_CM_K_cuMemcpy3DAsync, id, r, &m, s, 1);
	}
out:
	tcu_call_end();
	return r;
}

/* ---- copies to and from CUDA arrays by byte offset ------------------------------------ */

/* dst_type/src_type say which side is the array; its handle is dst or src
 * and its offset dst_x or src_x. */
static uint64_t tcu_acopy_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUmemorytype dt, uint64_t dst,
                                 size_t doff, CUmemorytype st, uint64_t src, size_t soff, const void *host,
                                 size_t n, CUstream s)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	if (st == CU_MEMORYTYPE_HOST && r == CUDA_SUCCESS && host && n)
		c.blob = cap_blob(host, n);
	c.result = r;
	c.sub = SBT_CM_COPY_ARRAY;
	c.dst_type = dt;
	c.src_type = st;
	c.dst = dst;
	c.dst_x = doff;
	c.src = src;
	c.src_x = soff;
	c.host = TCU_H(host);
	c.size = n;
	c.width = n;
	c.height = 1;
	c.depth = 1;
	c.stream = TCU_H(s);
	return tcu_emit(k, id, &c, CAP_REC_WORK);
}

CUresult tcu_m_cuMemcpyHtoA_v2(tcu_fn id, CUarray dst, size_t off, const void *src, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyHtoA_v2 real = (tcu_pfn_cuMemcpyHtoA_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, off, src, n);
	if (mode == TCU_MODE_RECORD)
		tcu_acopy_record(SBT_CM_K_cuMemcpyHtoA, id, r, CU_MEMORYTYPE_ARRAY, TCU_H(dst), off,
		                 CU_MEMORYTYPE_HOST, 0, 0, src, n, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyHtoAAsync_v2(tcu_fn id, CUarray dst, size_t off, const void *src, size_t n,
                                    CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyHtoAAsync_v2 real = (tcu_pfn_cuMemcpyHtoAAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, off, src, n, s);
	if (mode == TCU_MODE_RECORD)
		tcu_acopy_record(SBT_CM_K_cuMemcpyHtoAAsync, id, r, CU_MEMORYTYPE_ARRAY, TCU_H(dst), off,
		                 CU_MEMORYTYPE_HOST, 0, 0, src, n, s);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyAtoH_v2(tcu_fn id, void *dst, CUarray src, size_t off, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyAtoH_v2 real = (tcu_pfn_cuMemcpyAtoH_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, off, n);
	if (mode == TCU_MODE_RECORD) {
		uint64_t seq = tcu_acopy_record(SBT_CM_K_cuMemcpyAtoH, id, r, CU_MEMORYTYPE_HOST, 0, 0,
		                                CU_MEMORYTYPE_ARRAY, TCU_H(src), off, dst, n, NULL);
		if (r == CUDA_SUCCESS && seq && dst)
			cap_checkpoint(seq, 0, TCU_H(src) + off, dst, n);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyAtoHAsync_v2(tcu_fn id, void *dst, CUarray src, size_t off, size_t n, CUstream s)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyAtoHAsync_v2 real = (tcu_pfn_cuMemcpyAtoHAsync_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, off, n, s);
	if (mode == TCU_MODE_RECORD) {
		uint64_t seq = tcu_acopy_record(SBT_CM_K_cuMemcpyAtoHAsync, id, r, CU_MEMORYTYPE_HOST, 0, 0,
		                                CU_MEMORYTYPE_ARRAY, TCU_H(src), off, dst, n, s);
		if (r == CUDA_SUCCESS && tcu_dtoh_checkpointable(s, id))
			tcu_pending_add_at(seq, TCU_H(s), 0, TCU_H(src) + off, dst, n);
	}
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyAtoD_v2(tcu_fn id, CUdeviceptr dst, CUarray src, size_t off, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyAtoD_v2 real = (tcu_pfn_cuMemcpyAtoD_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src, off, n);
	if (mode == TCU_MODE_RECORD)
		tcu_acopy_record(SBT_CM_K_cuMemcpyAtoD, id, r, CU_MEMORYTYPE_DEVICE, dst, 0, CU_MEMORYTYPE_ARRAY,
		                 TCU_H(src), off, NULL, n, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyDtoA_v2(tcu_fn id, CUarray dst, size_t off, CUdeviceptr src, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyDtoA_v2 real = (tcu_pfn_cuMemcpyDtoA_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, off, src, n);
	if (mode == TCU_MODE_RECORD)
		tcu_acopy_record(SBT_CM_K_cuMemcpyDtoA, id, r, CU_MEMORYTYPE_ARRAY, TCU_H(dst), off,
		                 CU_MEMORYTYPE_DEVICE, src, 0, NULL, n, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuMemcpyAtoA_v2(tcu_fn id, CUarray dst, size_t doff, CUarray src, size_t soff, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuMemcpyAtoA_v2 real = (tcu_pfn_cuMemcpyAtoA_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, doff, src, soff, n);
	if (mode == TCU_MODE_RECORD)
		tcu_acopy_record(SBT_CM_K_cuMemcpyAtoA, id, r, CU_MEMORYTYPE_ARRAY, TCU_H(dst), doff,
		                 CU_MEMORYTYPE_ARRAY, TCU_H(src), soff, NULL, n, NULL);
out:
	tcu_call_end();
	return r;
}

/* ---- memsets ----------------------------------------------------------------------- */

/* A memset's fields, as a memset call and a graph's memset node record
 * them: width elements of elem bytes, height rows pitch bytes apart. */
void tcu_memset_fields(sbt_cm_call *c, CUdeviceptr dst, size_t pitch, uint64_t value, unsigned elem,
                       size_t width, size_t height)
{
	c->dst = dst;
	c->pitch = pitch;
	c->value = value;
	c->elem_size = elem;
	c->width = width;
	c->height = height;
	c->size = (uint64_t)width * elem * (height ? height : 1);
}

/* Records a memset; with keep (tcu_mode), instead keeps it when s is a
 * stream capture kept for capture windows (tcu_live.c). */
static void tcu_memset_record(sbt_cm_kind k, tcu_fn id, CUresult r, CUdeviceptr dst, size_t pitch,
                              uint64_t value, unsigned elem, size_t width, size_t height,
                              CUstream s, int keep)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.result = r;
	tcu_memset_fields(&c, dst, pitch, value, elem, width, height);
	c.stream = TCU_H(s);
	if (keep)
		tcu_live_capture_call(k, id, &c, NULL, 0);
	else
		tcu_emit(k, id, &c, CAP_REC_WORK);
}

#define TCU_MEMSET_1D(canon, kind, T, elem)                                            \
	CUresult tcu_m_##canon(tcu_fn id, CUdeviceptr dst, T v, size_t n)                  \
	{                                                                                  \
		tcu_mode mode;                                                                 \
		CUresult r;                                                                    \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);        \
		if (!real) {                                                                   \
			r = tcu_no_driver(id);                                                     \
			goto out;                                                                  \
		}                                                                              \
		r = real(dst, v, n);                                                           \
		if (mode == TCU_MODE_RECORD)                                                   \
			tcu_memset_record(SBT_CM_K_##kind, id, r, dst, 0, v, elem, n, 0, NULL, 0); \
	out:                                                                               \
		tcu_call_end();                                                                \
		return r;                                                                      \
	}
#define TCU_MEMSET_1D_ASYNC(canon, kind, T, elem)                                      \
	CUresult tcu_m_##canon(tcu_fn id, CUdeviceptr dst, T v, size_t n, CUstream s)      \
	{                                                                                  \
		tcu_mode mode;                                                                 \
		CUresult r;                                                                    \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);        \
		if (!real) {                                                                   \
			r = tcu_no_driver(id);                                                     \
			goto out;                                                                  \
		}                                                                              \
		r = real(dst, v, n, s);                                                        \
		if (mode == TCU_MODE_RECORD)                                                   \
			tcu_memset_record(SBT_CM_K_##kind, id, r, dst, 0, v, elem, n, 0, s, 0);    \
		if (tcu_live_captured(mode, s, (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0, NULL)) \
			tcu_memset_record(SBT_CM_K_##kind, id, r, dst, 0, v, elem, n, 0, s, 1);    \
	out:                                                                               \
		tcu_call_end();                                                                \
		return r;                                                                      \
	}
#define TCU_MEMSET_2D(canon, kind, T, elem)                                            \
	CUresult tcu_m_##canon(tcu_fn id, CUdeviceptr dst, size_t pitch, T v, size_t w,    \
	                       size_t h)                                                   \
	{                                                                                  \
		tcu_mode mode;                                                                 \
		CUresult r;                                                                    \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);        \
		if (!real) {                                                                   \
			r = tcu_no_driver(id);                                                     \
			goto out;                                                                  \
		}                                                                              \
		r = real(dst, pitch, v, w, h);                                                 \
		if (mode == TCU_MODE_RECORD)                                                   \
			tcu_memset_record(SBT_CM_K_##kind, id, r, dst, pitch, v, elem, w, h, NULL, 0); \
	out:                                                                               \
		tcu_call_end();                                                                \
		return r;                                                                      \
	}
#define TCU_MEMSET_2D_ASYNC(canon, kind, T, elem)                                      \
	CUresult tcu_m_##canon(tcu_fn id, CUdeviceptr dst, size_t pitch, T v, size_t w,    \
	                       size_t h, CUstream s)                                       \
	{                                                                                  \
		tcu_mode mode;                                                                 \
		CUresult r;                                                                    \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);        \
		if (!real) {                                                                   \
			r = tcu_no_driver(id);                                                     \
			goto out;                                                                  \
		}                                                                              \
		r = real(dst, pitch, v, w, h, s);                                              \
		if (mode == TCU_MODE_RECORD)                                                   \
			tcu_memset_record(SBT_CM_K_##kind, id, r, dst, pitch, v, elem, w, h, s, 0); \
		if (tcu_live_captured(mode, s, (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0, NULL)) \
			tcu_memset_record(SBT_CM_K_##kind, id, r, dst, pitch, v, elem, w, h, s, 1); \
	out:                                                                               \
		tcu_call_end();                                                                \
		return r;                                                                      \
	}

TCU_MEMSET_1D(cuMemsetD8_v2, cuMemsetD8, unsigned char, 1)
TCU_MEMSET_1D(cuMemsetD16_v2, cuMemsetD16, unsigned short, 2)
TCU_MEMSET_1D(cuMemsetD32_v2, cuMemsetD32, unsigned int, 4)
TCU_MEMSET_1D_ASYNC(cuMemsetD8Async, cuMemsetD8Async, unsigned char, 1)
TCU_MEMSET_1D_ASYNC(cuMemsetD16Async, cuMemsetD16Async, unsigned short, 2)
TCU_MEMSET_1D_ASYNC(cuMemsetD32Async, cuMemsetD32Async, unsigned int, 4)
TCU_MEMSET_2D(cuMemsetD2D8_v2, cuMemsetD2D8, unsigned char, 1)
TCU_MEMSET_2D(cuMemsetD2D16_v2, cuMemsetD2D16, unsigned short, 2)
TCU_MEMSET_2D(cuMemsetD2D32_v2, cuMemsetD2D32, unsigned int, 4)
TCU_MEMSET_2D_ASYNC(cuMemsetD2D8Async, cuMemsetD2D8Async, unsigned char, 1)
TCU_MEMSET_2D_ASYNC(cuMemsetD2D16Async, cuMemsetD2D16Async, unsigned short, 2)
TCU_MEMSET_2D_ASYNC(cuMemsetD2D32Async, cuMemsetD2D32Async, unsigned int, 4)
