/*
 * thip_va.c - same-address capture for HIP: hipMalloc, hipMallocPitch and
 * hipMallocAsync are served from one address window per device, placed by the allocator
 * the CUDA interposer uses (capture/cap_va.c), so that replay can map
 * every allocation at its captured address and pointers the program keeps
 * (in structs passed by value, in device memory) stay valid.
 *
 * Window: TRACESMITH_HIP_VA=off|BASE[:SIZE] (default 0x400000000000:512G,
 * clear of CUDA's default windows even for 64 devices, so a process using
 * both runtimes does not collide); device n at BASE + n * SIZE.  Reserved
 * with hipMemAddressReserve (the address as hint: the runtime returns
 * another address when it cannot honour it, hip_vm.cpp) at the first
 * allocation on the device, and recorded as the model's tsVaWindow record
 * (hip.tsVaWindow).  Memory:
 * hipMemCreate (pinned device memory of the device) + hipMemMap of the
 * whole handle + hipMemSetAccess for the device and every device that can
 * access it as a peer; one handle per chunk or large block.
 *
 * Fallback, with one note each: no window (off, no device, the reservation
 * refused or placed elsewhere: the real runtime with no GPU answers 101)
 * and a request the window cannot take or back go to the runtime's own
 * hipMalloc, at its addresses, which replay relocates.
 *
 * Only the program's own calls are placed (a call nested in another
 * wrapped call goes to the runtime as it came).  hipFree of placed memory
 * waits for the device first, as the runtime's hipFree does.  hipMallocAsync
 * is placed too; hipFreeAsync of placed memory returns at once: an event
 * recorded on its stream says when the stream has reached the free, and
 * the memory is released at a later allocation or free that finds the
 * event complete, never before (on a capturing stream the free becomes a
 * graph node, and the memory is kept until exit).
 *
 * Locking: thip_va_g.mu guards everything here and is held across the
 * runtime calls made for it (the runtime's own functions, THIP_RT and
 * THIP_OWN, which never re-enter this library's wrappers).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

#define THIP_VA_DEFAULT_BASE 0x400000000000ull
#define THIP_VA_DEFAULT_SIZE (512ull << 30)

typedef struct thip_va_window {
	int state; /* 0 not tried, 1 reserved, -1 unavailable */
	hipMemAccessDesc access[CAP_VA_MAX_DEVICES];
	size_t naccess;
} thip_va_window;

static struct {
	pthread_mutex_t mu;
	int configured, enabled;
	int runtime_ok; /* thip_va_runtime_ok said yes once (it stays so) */
	uint64_t base, size; /* device 0's window; device n at base + n * size */
	thip_va_window win[CAP_VA_MAX_DEVICES];
	cap_va *alloc;
	int fallback_said;
	uint64_t kept; /* freed on a capturing stream: kept until exit */
} thip_va_g = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* Read TRACESMITH_HIP_VA once (mu held). */
static void thip_va_config(void)
{
	const char *v = getenv("TRACESMITH_HIP_VA");
	uint64_t base = THIP_VA_DEFAULT_BASE, size = THIP_VA_DEFAULT_SIZE;
	int rc = 0;

	if (thip_va_g.configured)
		return;
	thip_va_g.configured = 1;
	thip_va_g.enabled = 1;
	if (v && *v)
		rc = cap_va_parse(v, &base, &size);
	if (rc == 1) {
		thip_va_g.enabled = 0;
		CAP_WARN("hip: TRACESMITH_HIP_VA=off: device allocations stay at the runtime's "
		         "addresses, which replay cannot have again: it moves them and rewrites "
		         "pointer arguments of launches only");
		return;
	}
	if (rc < 0)
		CAP_WARN("hip: TRACESMITH_HIP_VA='%s' is not off or BASE[:SIZE] (2 MiB multiples, "
		         "e.g. 0x400000000000:512G); using the default 0x%" PRIx64 ":512G",
		         v, (uint64_t)THIP_VA_DEFAULT_BASE);
	thip_va_g.base = base;
	thip_va_g.size = size;
}

/* Whether the runtime has every function the window needs (the peer
 * ones and those of stream-ordered frees are used when there); mu held.
 * A yes is kept: every allocation asks. */
static int thip_va_runtime_ok(void)
{
	if (thip_va_g.runtime_ok)
		return 1;
	return thip_va_g.runtime_ok = THIP_RT(hipGetDevice) && THIP_OWN(hipDeviceSynchronize) &&
	       THIP_RT(hipMemGetAllocationGranularity) && THIP_RT(hipMemAddressReserve) &&
	       THIP_RT(hipMemAddressFree) && THIP_RT(hipMemCreate) && THIP_RT(hipMemRelease) &&
	       THIP_RT(hipMemMap) && THIP_RT(hipMemUnmap) && THIP_RT(hipMemSetAccess);
}

static void thip_va_fallback_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void thip_va_fallback_note(const char *fmt, ...)
{
	char why[256];
	va_list ap;

	if (thip_va_g.fallback_said)
		return;
	thip_va_g.fallback_said = 1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	CAP_WARN("hip: %s: allocations stay at the runtime's addresses, and replay moves them "
	         "(TRACESMITH_HIP_VA chooses another window)", why);
}

static int thip_va_back(void *ctx, int device, uint64_t base, uint64_t len, uint64_t *mem_out);
static void thip_va_unback(void *ctx, int device, uint64_t base, uint64_t len, uint64_t mem);
static int thip_va_reached(void *ctx, uint64_t token);
static void thip_va_retire(void *ctx, uint64_t token);

/* The current device, its window reserved on first use; -1 when there is
 * none (off, unavailable, no device).  mu held. */
static int thip_va_window_get(void)
{
	static const cap_va_ops ops = {thip_va_back, thip_va_unback, thip_va_reached, thip_va_retire,
	                               NULL};
	hipMemAllocationProp prop;
	thip_va_window *w;
	void *got = NULL;
	size_t gran = 0;
	uint64_t want;
	int dev = -1, ndev = 0;
	hipError_t r;

	thip_va_config();
	if (!thip_va_g.enabled)
		return -1;
	if (!thip_va_runtime_ok()) {
		thip_va_fallback_note("the runtime has no virtual memory management calls");
		return -1;
	}
	r = THIP_RT(hipGetDevice)(&dev);
	if (r != hipSuccess || dev < 0 || dev >= CAP_VA_MAX_DEVICES) {
		thip_va_fallback_note("no current device (hipGetDevice: %d)", (int)r);
		return -1;
	}
	w = &thip_va_g.win[dev];
	if (w->state)
		return w->state > 0 ? dev : -1;
	w->state = -1;
	if (!thip_va_g.alloc && !(thip_va_g.alloc = cap_va_create(&ops)))
		return -1;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = dev;
	if (THIP_RT(hipMemGetAllocationGranularity)(&gran, &prop,
	                                               hipMemAllocationGranularityMinimum) !=
	        hipSuccess || !gran || (gran & (gran - 1)))
		gran = CAP_VA_MIN_GRAN;
	if (gran < CAP_VA_MIN_GRAN)
		gran = CAP_VA_MIN_GRAN;
	want = thip_va_g.base + (uint64_t)dev * thip_va_g.size;
	r = THIP_RT(hipMemAddressReserve)(&got, thip_va_g.size, gran, (void *)(uintptr_t)want, 0);
	if (r != hipSuccess || (uint64_t)(uintptr_t)got != want) {
		if (r == hipSuccess)
			THIP_RT(hipMemAddressFree)(got, thip_va_g.size);
		if (r != hipSuccess)
			thip_va_fallback_note("cannot reserve the address window 0x%" PRIx64 "+0x%" PRIx64
			                      " for device %d (hipMemAddressReserve: %d)",
			                      want, thip_va_g.size, dev, (int)r);
		else
			thip_va_fallback_note("cannot reserve the address window 0x%" PRIx64 "+0x%" PRIx64
			                      " for device %d (the runtime placed it at %p)",
			                      want, thip_va_g.size, dev, got);
		return -1;
	}
	if (cap_va_window_add(thip_va_g.alloc, dev, want, thip_va_g.size, gran) != 0) {
		THIP_RT(hipMemAddressFree)(got, thip_va_g.size);
		return -1;
	}
	/* Access for the device and each device that can reach it as a peer. */
	w->access[0].location.type = hipMemLocationTypeDevice;
	w->access[0].location.id = dev;
	w->access[0].flags = hipMemAccessFlagsProtReadWrite;
	w->naccess = 1;
	if (THIP_RT(hipGetDeviceCount) && THIP_RT(hipDeviceCanAccessPeer) &&
	    THIP_RT(hipGetDeviceCount)(&ndev) == hipSuccess && ndev > 1) {
		for (int d = 0; d < ndev && w->naccess < CAP_VA_MAX_DEVICES; d++) {
			int can = 0;
			if (d == dev || THIP_RT(hipDeviceCanAccessPeer)(&can, d, dev) != hipSuccess || !can)
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
		c.device = (uint32_t)dev;
		c.dst = want;
		c.size = thip_va_g.size;
		thip_record(SBT_CM_HIP_tsVaWindow, &c, 0);
	}
	return dev;
}

/* Physical memory for [base, base + len) (cap_va_ops.back): 0, or the
 * runtime's error. */
static int thip_va_back(void *ctx, int device, uint64_t base, uint64_t len, uint64_t *mem_out)
{
	const thip_va_window *w = &thip_va_g.win[device];
	void *p = (void *)(uintptr_t)base;
	hipMemAllocationProp prop;
	hipMemGenericAllocationHandle_t h = NULL;
	hipError_t r;

	(void)ctx;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = device;
	r = THIP_RT(hipMemCreate)(&h, len, &prop, 0);
	if (r != hipSuccess)
		goto out;
	r = THIP_RT(hipMemMap)(p, len, 0, h, 0);
	if (r != hipSuccess)
		goto out_release;
	r = THIP_RT(hipMemSetAccess)(p, len, w->access, w->naccess);
	if (r != hipSuccess)
		goto out_unmap;
	*mem_out = (uint64_t)(uintptr_t)h;
	goto out;
out_unmap:
	THIP_RT(hipMemUnmap)(p, len);
out_release:
	THIP_RT(hipMemRelease)(h);
out:
	return (int)r;
}

/* Drop the memory behind a range (cap_va_ops.unback; frees waited for the
 * device first). */
static void thip_va_unback(void *ctx, int device, uint64_t base, uint64_t len, uint64_t mem)
{
	(void)ctx;
	(void)device;
	THIP_RT(hipMemUnmap)((void *)(uintptr_t)base, len);
	THIP_RT(hipMemRelease)((hipMemGenericAllocationHandle_t)(uintptr_t)mem);
}

/* Whether a deferred free's stream has reached it (cap_va_ops.reached):
 * its event (the token) has completed. */
static int thip_va_reached(void *ctx, uint64_t token)
{
	(void)ctx;
	return THIP_OWN(hipEventQuery)((hipEvent_t)(uintptr_t)token) == hipSuccess;
}

/* A finished deferred free's event (cap_va_ops.retire). */
static void thip_va_retire(void *ctx, uint64_t token)
{
	(void)ctx;
	THIP_OWN(hipEventDestroy)((hipEvent_t)(uintptr_t)token);
}

int thip_va_alloc(size_t size, void **ptr)
{
	uint64_t addr = 0;
	int dev, err = 0, placed = 0;

	if (!ptr || !size)
		return 0;
	pthread_mutex_lock(&thip_va_g.mu);
	dev = thip_va_window_get();
	if (dev < 0)
		goto out_unlock;
	cap_va_poll(thip_va_g.alloc);
	switch (cap_va_alloc(thip_va_g.alloc, dev, size, 0, 0, &addr, &err)) {
	case CAP_VA_OK:
		*ptr = (void *)(uintptr_t)addr;
		placed = 1;
		break;
	case CAP_VA_PASS:
		break;
	case CAP_VA_NO_ROOM:
		thip_va_fallback_note("the address window of device %d has no room for %zu bytes", dev,
		                      size);
		break;
	case CAP_VA_BACKING:
		thip_va_fallback_note("the runtime cannot back %zu bytes in the address window of "
		                      "device %d (hipMemCreate/Map/SetAccess: %d)", size, dev, err);
		break;
	}
out_unlock:
	pthread_mutex_unlock(&thip_va_g.mu);
	return placed;
}

int thip_va_free(void *ptr)
{
	uint64_t addr = (uint64_t)(uintptr_t)ptr;
	int ours = 0;

	pthread_mutex_lock(&thip_va_g.mu);
	if (!ptr || !cap_va_placed(thip_va_g.alloc, addr))
		goto out_unlock;
	/* hipFree waits for the device: so does ours, before the range can be
	 * handed out again or unmapped. */
	THIP_OWN(hipDeviceSynchronize)();
	cap_va_poll(thip_va_g.alloc);
	ours = cap_va_release(thip_va_g.alloc, addr, 0) == CAP_VA_OK;
out_unlock:
	pthread_mutex_unlock(&thip_va_g.mu);
	return ours;
}

int thip_va_free_async(void *ptr, hipStream_t stream)
{
	uint64_t addr = (uint64_t)(uintptr_t)ptr;
	hipStreamCaptureStatus cs = hipStreamCaptureStatusNone;
	hipEvent_t ev = NULL;
	int ours = 0;

	pthread_mutex_lock(&thip_va_g.mu);
	if (!ptr || !cap_va_placed(thip_va_g.alloc, addr))
		goto out_unlock;
	ours = 1;
	cap_va_poll(thip_va_g.alloc);
	if (THIP_RT(hipStreamIsCapturing) &&
	    THIP_RT(hipStreamIsCapturing)(stream, &cs) == hipSuccess &&
	    cs != hipStreamCaptureStatusNone) {
		/* The free becomes a node of the graph: nothing says when it
		 * runs, so the memory is never handed out again. */
		thip_va_g.kept++;
		goto out_unlock;
	}
	if (!THIP_OWN(hipEventCreateWithFlags) || !THIP_OWN(hipEventRecord) ||
	    !THIP_OWN(hipEventQuery) || !THIP_OWN(hipEventDestroy) ||
	    THIP_OWN(hipEventCreateWithFlags)(&ev, hipEventDisableTiming) != hipSuccess)
		goto out_sync;
	if (THIP_OWN(hipEventRecord)(ev, stream) != hipSuccess ||
	    cap_va_defer(thip_va_g.alloc, addr, (uint64_t)(uintptr_t)ev) != CAP_VA_OK) {
		THIP_OWN(hipEventDestroy)(ev);
		goto out_sync;
	}
	goto out_unlock;
out_sync:
	/* No event to tell when the stream reaches the free: wait for it. */
	if (THIP_OWN(hipStreamSynchronize))
		THIP_OWN(hipStreamSynchronize)(stream);
	else
		THIP_OWN(hipDeviceSynchronize)();
	cap_va_release(thip_va_g.alloc, addr, 0);
out_unlock:
	pthread_mutex_unlock(&thip_va_g.mu);
	return ours;
}

uint64_t thip_va_kept(void)
{
	uint64_t n;

	pthread_mutex_lock(&thip_va_g.mu);
	n = thip_va_g.kept;
	pthread_mutex_unlock(&thip_va_g.mu);
	return n;
}

int thip_va_range(uint64_t addr, uint64_t *base_out, uint64_t *asked_out)
{
	uint64_t placed;
	int found;

	pthread_mutex_lock(&thip_va_g.mu);
	found = cap_va_lookup(thip_va_g.alloc, addr, base_out, &placed, asked_out);
	pthread_mutex_unlock(&thip_va_g.mu);
	return found;
}
