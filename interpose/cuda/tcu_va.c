/*
 * tcu_va.c - same-address capture: the interposer places device
 * allocations itself, inside one virtual-address window per device, so
 * that replay can take the same addresses again and every pointer the
 * program keeps (in kernel arguments, in structs passed by value, in
 * device memory) stays valid.
 *
 * Why (../shared/gpu-fixtures/README.md, measured on an H100): the real
 * driver never honours, in another process, an address it chose for
 * cuMemAlloc (facts 1 and 3), and once the runtime has started it places
 * small fixed reservations elsewhere but honours one large reservation in
 * a far window (fact 4).  So capture reserves one window per device before
 * the first allocation and serves allocations from it; replay reserves the
 * same window and maps each allocation at its captured address.
 *
 * Window: TRACESMITH_CUDA_VA=off|BASE[:SIZE] (default 0x200000000000:512G);
 * device n at BASE + n * SIZE.  Reserved with cuMemAddressReserve at the
 * first allocation on the device, recorded as a tsVaWindow record.  If the
 * driver does not give exactly that range, capture goes on at driver
 * addresses and says so once.
 *
 * Placement (deterministic: it depends only on the sequence of calls) is
 * capture/cap_va.c's, shared with the HIP interposer: small requests
 * sub-allocated from 2 MiB chunks, larger ones granule-aligned, freed
 * ranges reused, emptied chunks released but the last, freed large blocks
 * kept mapped for a request of their size; the program's own
 * cuMemAddressReserve(addr = 0) takes a range of the window too, left
 * unmapped for the program to map.  This file reserves the windows and
 * makes the memory (and the events of stream-ordered frees, whose list
 * is the shared core's too): cuMemCreate (pinned device memory of the device) +
 * cuMemMap + cuMemSetAccess for the device and every device that can
 * access it as a peer, one allocation per chunk or block, mapped whole.
 *
 * What this changes for the program: cuMemGetAddressRange and the
 * range attributes of cuPointerGetAttribute(s) would name the whole
 * mapping (a chunk), so they are answered from our table; legacy IPC
 * (cuIpcGetMemHandle) does not take VMM memory, which the exit report and
 * docs/cuda.md say (TRACESMITH_CUDA_VA=off is the way out); frees
 * wait for the context's work first, as cuMemFree does; a stream-ordered
 * free (cuMemFreeAsync) releases its memory once its stream has reached
 * it, told by an event recorded there at the free.
 * Managed memory is not placed (the driver migrates it): it is counted.
 *
 * Locking: tcu_g.va_mu guards everything here and is held across the
 * recorder's own driver calls (they go to real[] and never re-enter).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

#define TCU_VA_DEFAULT_BASE 0x200000000000ull
#define TCU_VA_DEFAULT_SIZE (512ull << 30)

static int tcu_va_back(void *ctx, int device, uint64_t base, uint64_t len, uint64_t *mem_out);
static void tcu_va_unback(void *ctx, int device, uint64_t base, uint64_t len, uint64_t mem);
static int tcu_va_reached(void *ctx, uint64_t token);
static void tcu_va_retire(void *ctx, uint64_t token);

/* Read TRACESMITH_CUDA_VA once (under va_mu). */
static void tcu_va_config(void)
{
	const char *v = getenv("TRACESMITH_CUDA_VA");
	uint64_t base = TCU_VA_DEFAULT_BASE, size = TCU_VA_DEFAULT_SIZE;
	int rc = 0;
	if (tcu_g.va.configured)
		return;
	tcu_g.va.configured = 1;
	tcu_g.va.enabled = 1;
	if (v && *v)
		rc = cap_va_parse(v, &base, &size);
	if (rc == 1) {
		tcu_g.va.enabled = 0;
		CAP_WARN("cuda: TRACESMITH_CUDA_VA=off: device allocations stay at the driver's "
		         "addresses, which replay cannot have again: it relocates them and patches "
		         "pointer parameters only");
		return;
	}
	if (rc < 0)
		CAP_WARN("cuda: TRACESMITH_CUDA_VA='%s' is not off or BASE[:SIZE] (2 MiB multiples, "
		         "e.g. 0x200000000000:512G); using the default 0x%" PRIx64 ":512G",
		         v, (uint64_t)TCU_VA_DEFAULT_BASE);
	tcu_g.va.base = base;
	tcu_g.va.size = size;
}

/* ---- windows ---------------------------------------------------------------- */

/* The current context's device, its window reserved on first use; -1
 * when there is none (off, unavailable, no context). */
static int tcu_va_window_get(void)
{
	static const cap_va_ops ops = {tcu_va_back, tcu_va_unback, tcu_va_reached, tcu_va_retire,
	                               NULL};
	tcu_pfn_cuCtxGetDevice getdev;
	tcu_pfn_cuMemAddressReserve reserve;
	tcu_pfn_cuMemGetAllocationGranularity granf;
	tcu_pfn_cuDeviceCanAccessPeer canpeer;
	tcu_pfn_cuDeviceGetCount countf;
	CUmemAllocationProp prop;
	tcu_va_window *w;
	CUdeviceptr got = 0;
	CUdevice dev;
	size_t gran = 0;
	uint64_t want;
	int ndev = 0;
	CUresult r;

	tcu_va_config();
	if (!tcu_g.va.enabled)
		return -1;
	getdev = (tcu_pfn_cuCtxGetDevice)tcu_own(TCU_FN_cuCtxGetDevice);
	if (!getdev || getdev(&dev) != CUDA_SUCCESS || dev < 0 ||
	    dev >= TCU_VA_MAX_DEVICES)
		return -1;
	w = &tcu_g.va.win[dev];
	if (w->state)
		return w->state > 0 ? dev : -1;
	w->state = -1;
	if (!tcu_g.va.alloc && !(tcu_g.va.alloc = cap_va_create(&ops)))
		return -1;
	reserve = (tcu_pfn_cuMemAddressReserve)tcu_own(TCU_FN_cuMemAddressReserve);
	granf = (tcu_pfn_cuMemGetAllocationGranularity)tcu_own(TCU_FN_cuMemGetAllocationGranularity);
	if (!reserve || !tcu_g.real[TCU_FN_cuMemAddressFree] || !granf ||
	    !tcu_g.real[TCU_FN_cuMemCreate] || !tcu_g.real[TCU_FN_cuMemUnmap] ||
	    !tcu_g.real[TCU_FN_cuMemRelease] ||
	    !tcu_g.real[TCU_FN_cuMemMap] || !tcu_g.real[TCU_FN_cuMemSetAccess]) {
		CAP_WARN("cuda: the driver has no virtual memory management calls: device %d's "
		         "allocations stay at driver addresses, and replay relocates them",
		         (int)dev);
		return -1;
	}
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	if (granf(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !gran)
		gran = CAP_VA_MIN_GRAN;
	if (gran < CAP_VA_MIN_GRAN)
		gran = CAP_VA_MIN_GRAN;
	want = tcu_g.va.base + (uint64_t)dev * tcu_g.va.size;
	r = reserve(&got, tcu_g.va.size, gran, want, 0);
	if (r != CUDA_SUCCESS || got != want) {
		if (r == CUDA_SUCCESS)
			((tcu_pfn_cuMemAddressFree)tcu_own(TCU_FN_cuMemAddressFree))(got, tcu_g.va.size);
		CAP_WARN("cuda: cannot reserve the address window 0x%" PRIx64 "+0x%" PRIx64
		         " for device %d (%s): its allocations stay at driver addresses, and replay "
		         "relocates them (TRACESMITH_CUDA_VA chooses another window)",
		         want, tcu_g.va.size, (int)dev,
		         r != CUDA_SUCCESS ? "the driver refused" : "the driver placed it elsewhere");
		return -1;
	}
	if (cap_va_window_add(tcu_g.va.alloc, dev, want, tcu_g.va.size, gran) != 0) {
		((tcu_pfn_cuMemAddressFree)tcu_own(TCU_FN_cuMemAddressFree))(got, tcu_g.va.size);
		return -1;
	}
	/* Access for the device and each device that can reach it as a peer. */
	w->access[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	w->access[0].location.id = dev;
	w->access[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	w->naccess = 1;
	countf = tcu_g.real[TCU_FN_cuDeviceCanAccessPeer]
	             ? (tcu_pfn_cuDeviceGetCount)tcu_own(TCU_FN_cuDeviceGetCount)
	             : NULL;
	if (countf && countf(&ndev) == CUDA_SUCCESS && ndev > 1) {
		canpeer = (tcu_pfn_cuDeviceCanAccessPeer)tcu_own(TCU_FN_cuDeviceCanAccessPeer);
		for (int d = 0; d < ndev && w->naccess < TCU_VA_MAX_DEVICES; d++) {
			int can = 0;
			if (d == dev || canpeer(&can, d, dev) != CUDA_SUCCESS || !can)
				continue;
			w->access[w->naccess] = w->access[0];
			w->access[w->naccess].location.id = d;
			w->naccess++;
		}
	}
	w->state = 1;
	if (cap_active()) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.device = dev;
		c.dst = want;
		c.size = tcu_g.va.size;
		tcu_emit(SBT_CM_K_tsVaWindow, TCU_FN_cuMemAddressReserve, &c, 0);
	}
	return dev;
}

int tcu_va_window_range(int device, uint64_t *base_out, uint64_t *size_out)
{
	return cap_va_window_get(tcu_g.va.alloc, device, base_out, size_out);
}

/* Physical memory for [base, base + len) (cap_va_ops.back): 0, or the
 * driver's error. */
static int tcu_va_back(void *ctx, int device, uint64_t base, uint64_t len, uint64_t *mem_out)
{
	tcu_pfn_cuMemCreate create = (tcu_pfn_cuMemCreate)tcu_own(TCU_FN_cuMemCreate);
	tcu_pfn_cuMemMap map = (tcu_pfn_cuMemMap)tcu_own(TCU_FN_cuMemMap);
	tcu_pfn_cuMemSetAccess access = (tcu_pfn_cuMemSetAccess)tcu_own(TCU_FN_cuMemSetAccess);
	const tcu_va_window *w = &tcu_g.va.win[device];
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h = 0;
	CUresult r;
	(void)ctx;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = device;
	r = create(&h, len, &prop, 0);
	if (r != CUDA_SUCCESS)
		goto out;
	r = map(base, len, 0, h, 0);
	if (r != CUDA_SUCCESS)
		goto out_release;
	r = access(base, len, w->access, w->naccess);
	if (r != CUDA_SUCCESS)
		goto out_unmap;
	*mem_out = h;
	goto out;
out_unmap:
	((tcu_pfn_cuMemUnmap)tcu_own(TCU_FN_cuMemUnmap))(base, len);
out_release:
	((tcu_pfn_cuMemRelease)tcu_own(TCU_FN_cuMemRelease))(h);
out:
	return (int)r;
}

/* Drop the memory behind a range (cap_va_ops.unback; the context's work is
 * done: frees wait for it first). */
static void tcu_va_unback(void *ctx, int device, uint64_t base, uint64_t len, uint64_t mem)
{
	tcu_pfn_cuMemUnmap unmap = (tcu_pfn_cuMemUnmap)tcu_own(TCU_FN_cuMemUnmap);
	tcu_pfn_cuMemRelease release = (tcu_pfn_cuMemRelease)tcu_own(TCU_FN_cuMemRelease);
	(void)ctx;
	(void)device;
	unmap(base, len);
	release(mem);
}

/* ---- allocation ------------------------------------------------------------- */

CUresult tcu_va_alloc(size_t size, int reserve_only, size_t align, uint64_t *out)
{
	CUresult r = CUDA_ERROR_NOT_SUPPORTED;
	int dev, err = 0;
	pthread_mutex_lock(&tcu_g.va_mu);
	dev = tcu_va_window_get();
	if (dev < 0 || size == 0)
		goto out_unlock;
	cap_va_poll(tcu_g.va.alloc);
	switch (cap_va_alloc(tcu_g.va.alloc, dev, size, reserve_only, align, out, &err)) {
	case CAP_VA_OK: r = CUDA_SUCCESS; break;
	case CAP_VA_PASS: r = CUDA_ERROR_NOT_SUPPORTED; break;
	case CAP_VA_NO_ROOM: r = CUDA_ERROR_OUT_OF_MEMORY; break;
	case CAP_VA_BACKING: r = (CUresult)err; break;
	}
out_unlock:
	pthread_mutex_unlock(&tcu_g.va_mu);
	return r;
}

/* Whether a deferred free's stream has reached it (cap_va_ops.reached):
 * its event (the token) has completed. */
static int tcu_va_reached(void *ctx, uint64_t token)
{
	(void)ctx;
	return tcu_g.real[TCU_FN_cuEventQuery] &&
	       ((tcu_pfn_cuEventQuery)tcu_own(TCU_FN_cuEventQuery))((CUevent)(uintptr_t)token) ==
	           CUDA_SUCCESS;
}

/* A finished deferred free's event, kept for the next one
 * (cap_va_ops.retire; va_mu held). */
static void tcu_va_retire(void *ctx, uint64_t token)
{
	(void)ctx;
	if (tcu_g.va.nidle == tcu_g.va.cap_idle) {
		size_t cap = tcu_g.va.cap_idle ? tcu_g.va.cap_idle * 2 : 16;
		CUevent *e = realloc(tcu_g.va.idle_events, cap * sizeof(*e));
		if (!e)
			return;
		tcu_g.va.idle_events = e;
		tcu_g.va.cap_idle = cap;
	}
	tcu_g.va.idle_events[tcu_g.va.nidle++] = (CUevent)(uintptr_t)token;
}

CUresult tcu_va_release(uint64_t addr, int reserve_only)
{
	tcu_pfn_cuCtxSynchronize sync;
	CUresult r = CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&tcu_g.va_mu);
	if (!cap_va_placed(tcu_g.va.alloc, addr))
		goto out_unlock;
	/* cuMemFree waits for the context's work: so does ours, before the
	 * range can be handed out again or unmapped. */
	if (!reserve_only && (sync = (tcu_pfn_cuCtxSynchronize)tcu_own(TCU_FN_cuCtxSynchronize)))
		sync();
	cap_va_poll(tcu_g.va.alloc);
	if (cap_va_release(tcu_g.va.alloc, addr, reserve_only) == CAP_VA_OK)
		r = CUDA_SUCCESS;
out_unlock:
	pthread_mutex_unlock(&tcu_g.va_mu);
	return r;
}

/* An event for a deferred free: a finished one again, or a new one. */
static CUresult tcu_va_event(CUevent *out)
{
	if (tcu_g.va.nidle) {
		*out = tcu_g.va.idle_events[--tcu_g.va.nidle];
		return CUDA_SUCCESS;
	}
	if (!tcu_g.real[TCU_FN_cuEventCreate])
		return CUDA_ERROR_NOT_SUPPORTED;
	return ((tcu_pfn_cuEventCreate)tcu_own(TCU_FN_cuEventCreate))(out, CU_EVENT_DISABLE_TIMING);
}

CUresult tcu_va_release_async(uint64_t addr, CUstream s)
{
	CUevent ev = NULL;
	CUresult r;
	pthread_mutex_lock(&tcu_g.va_mu);
	if (!cap_va_placed(tcu_g.va.alloc, addr)) {
		r = CUDA_ERROR_NOT_SUPPORTED;
		goto out_unlock;
	}
	cap_va_poll(tcu_g.va.alloc);
	r = tcu_va_event(&ev);
	if (r == CUDA_SUCCESS && tcu_g.real[TCU_FN_cuEventRecord])
		r = ((tcu_pfn_cuEventRecord)tcu_own(TCU_FN_cuEventRecord))(ev, s);
	else if (r == CUDA_SUCCESS)
		r = CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_SUCCESS && cap_va_defer(tcu_g.va.alloc, addr, (uint64_t)(uintptr_t)ev) != CAP_VA_OK)
		r = CUDA_ERROR_OUT_OF_MEMORY;
	if (r != CUDA_SUCCESS && ev)
		tcu_va_retire(NULL, (uint64_t)(uintptr_t)ev);
out_unlock:
	pthread_mutex_unlock(&tcu_g.va_mu);
	return r;
}

int tcu_va_lookup(uint64_t addr, uint64_t *base_out, uint64_t *size_out)
{
	int found;
	pthread_mutex_lock(&tcu_g.va_mu);
	found = cap_va_lookup(tcu_g.va.alloc, addr, base_out, size_out, NULL);
	pthread_mutex_unlock(&tcu_g.va_mu);
	return found;
}

void tcu_va_note_unplaced(const char *what)
{
	atomic_fetch_add(&tcu_g.va.unplaced, 1);
	if (atomic_exchange(&tcu_g.va.unplaced_said, 1) == 0)
		CAP_INFO("cuda: %s is not placed in the address window (the driver places it); "
		         "replay relocates it",
		         what);
}
