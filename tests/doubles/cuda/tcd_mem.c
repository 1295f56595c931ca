/*
 * tcd_mem.c - device, managed, host and VMM memory of the double, and the
 * answers about pointers (cuPointerGetAttribute(s), cuMemGetAddressRange,
 * legacy IPC handles).
 *
 * THE DRIVER HEAP.  Every allocation the double makes itself (cuMemAlloc,
 * pitched, async, managed, pinned host) is its own mapping at an address
 * drawn at random (getrandom, or TSCUDA_DOUBLE_ADDR_SEED) inside the heap
 * [TCD_HEAP_LO, TCD_HEAP_HI) = [0x7f00_0000_0000, 0x7f80_0000_0000), where
 * the real driver was seen to put cuMemAlloc memory (measured fact 1 of
 * ../shared/gpu-fixtures/README.md: 0x7f02fbe00000 in one run,
 * 0x7f6943e00000 in the next), or for the legacy 32-bit ABI inside the low
 * heap [1 GiB, 4 GiB).  So addresses differ from run to run (fact 1) and a
 * replayer that assumes otherwise is caught.  Host libraries live in that
 * range too, as with the real driver; a draw that meets one is drawn again.
 * Kernels use the addresses directly: they are host memory.  The registry
 * below records every range a copy or memset may touch; a range outside it
 * (a freed allocation, or an unmapped hole of a reservation) is rejected
 * with CUDA_ERROR_INVALID_VALUE instead of being written.
 *
 * Memory is lazy: anonymous MAP_NORESERVE mappings and sparse memfds, so an
 * 8 GiB allocation that is never touched costs no memory, and a 512 GiB
 * reservation is PROT_NONE address space only.
 *
 * VMM follows the driver's model: cuMemAddressReserve maps PROT_NONE address
 * space, cuMemCreate is a memfd, cuMemMap maps all of it (never a part, as
 * the real driver) into a reservation still inaccessible, and only cuMemSetAccess makes
 * it readable and writable.
 *
 * WHERE A FIXED-ADDRESS RESERVATION GOES (TSCUDA_DOUBLE_RESERVE).  The hint
 * is only ever taken if the whole range is free.  In the default mode,
 * "measured", it is taken as the real driver (H100, 580.159.04) was
 * measured to take it:
 *   - a hint inside the driver heap is never taken (fact 3: in another
 *     process the driver would not reserve at an address it had chosen for
 *     cuMemAlloc, even with that host range free);
 *   - a hint inside [0x1000_0000_0000, 0x7f00_0000_0000) is taken (fact 2:
 *     64 MiB reservations anywhere there were exact, in a process that had
 *     a context and allocations but had not started cudart);
 *   - once the runtime has started (the primary context was retained
 *     through the side door, as cudart does; fact 4 was measured inside
 *     such an application), a reservation smaller than TCD_RESERVE_LARGE is
 *     placed elsewhere, a larger one is taken (fact 4: 2 MiB reservations at
 *     0x200000000000 were placed elsewhere, one of 512 GiB was exact; the
 *     threshold lies somewhere between, 1 GiB is our choice);
 *   - a hint anywhere else was not measured and is not taken.
 * "honour" takes any free hint, "refuse" never takes one (success, another
 * address), "fail" answers CUDA_ERROR_INVALID_VALUE to any hint.  A hint not
 * taken places the range as the double chooses: up to TCD_RESERVE_LARGE in
 * the heap, larger at random in [0x1000_0000_0000, 0x7f00_0000_0000), never
 * overlapping the address asked for.
 *
 * Under ThreadSanitizer the windows are narrower: TSan's interceptor kills
 * the process ("mmap at bad address") when a mapping lands outside the
 * application ranges of its fixed memory layout, and above 2^39 (512 GiB)
 * x86-64 TSan keeps its shadow.  So when the TSan runtime is in the process
 * the heap is [2^36, 7 * 2^36), everything else the double places goes
 * there too, and an asked-for address outside [2^32, 2^39) is treated as
 * not free (in every mode; "measured" takes that window for the range of
 * fact 2).  Without TSan nothing of this applies.
 *
 * Locking: tcd_mem.lock guards the registry, the reservations and the
 * address cursors; it is never held while waiting for stream work.
 */
#include "tests/doubles/cuda/tcd.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TCD_GRANULARITY ((size_t)2 << 20)
#define TCD_DEVICE_MEMORY ((size_t)16 << 30)
/* The driver heap (fact 1) and its legacy-ABI part. */
#define TCD_HEAP_LO ((uintptr_t)0x7f0000000000)
#define TCD_HEAP_HI ((uintptr_t)0x7f8000000000)
#define TCD_LOW_HEAP_LO ((uintptr_t)1 << 30)
#define TCD_LOW_HEAP_HI ((uintptr_t)1 << 32)
/* Where a hint is taken in a fresh process (fact 2). */
#define TCD_OPEN_LO ((uintptr_t)0x100000000000)
#define TCD_OPEN_HI ((uintptr_t)0x7f0000000000)
/* Fact 4: at or above this size a hint is taken after the runtime started. */
#define TCD_RESERVE_LARGE ((size_t)1 << 30)
/* Under TSan (see the top of the file). */
#define TCD_TSAN_HEAP_LO ((uintptr_t)1 << 36)
#define TCD_TSAN_HEAP_HI ((uintptr_t)7 << 36)
#define TCD_TSAN_OPEN_LO ((uintptr_t)1 << 32)
#define TCD_TSAN_OPEN_HI ((uintptr_t)1 << 39)

struct tcd_range {
	uintptr_t base;
	size_t size;
	enum tcd_range_kind kind;
	size_t map_bytes;             /* what to unmap; 0 for module globals */
	struct tcd_memhandle *handle; /* VMM mappings */
	struct tcd_ctx *ctx;          /* current when it was made; NULL for VMM */
	int device;
	uint64_t id;                  /* CU_POINTER_ATTRIBUTE_BUFFER_ID, never reused */
	bool ipc_ok;                  /* from cuMemAlloc: legacy IPC may export it */
	bool graph_mem;               /* a memory allocation node's (tcd_graph.c) */
	unsigned ipc_opens;           /* cuIpcOpenMemHandle count not yet closed */
};

struct tcd_reservation {
	uintptr_t base;
	size_t size;
};

static struct {
	pthread_mutex_t lock;
	struct tcd_range *ranges; /* sorted by base, never overlapping */
	size_t count, cap;
	struct tcd_reservation *res;
	size_t res_count, res_cap;
	size_t used;
	uint64_t next_id;
	uintptr_t va_next, va_next_low;  /* heap cursors */
	uintptr_t heap_lo, heap_hi;      /* the driver heap */
	uintptr_t open_lo, open_hi;      /* fact 2's range */
	bool tsan;                       /* a hint outside [open_lo, open_hi) is never free */
	uint64_t graph_high;             /* graph memory's high watermark (bytes placed) */
} tcd_mem = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.heap_lo = TCD_HEAP_LO,
	.heap_hi = TCD_HEAP_HI,
	.open_lo = TCD_OPEN_LO,
	.open_hi = TCD_OPEN_HI,
};

/* Looked up at load rather than decided at build time: an uninstrumented
 * double loaded by an instrumented program still has its mmap calls go
 * through TSan's interceptor. */
__attribute__((constructor)) static void tcd_mem_window_init(void)
{
	if (!dlsym(RTLD_DEFAULT, "__tsan_init"))
		return;
	tcd_mem.tsan = true;
	tcd_mem.heap_lo = TCD_TSAN_HEAP_LO;
	tcd_mem.heap_hi = TCD_TSAN_HEAP_HI;
	tcd_mem.open_lo = TCD_TSAN_OPEN_LO;
	tcd_mem.open_hi = TCD_TSAN_OPEN_HI;
}

static size_t tcd_page(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static uintptr_t tcd_align_up(uintptr_t v, size_t a)
{
	return (v + a - 1) & ~(uintptr_t)(a - 1);
}

static bool tcd_overlaps(uintptr_t a, size_t an, uintptr_t b, size_t bn)
{
	return a < b + bn && b < a + an;
}

static bool tcd_inside(uintptr_t p, size_t n, uintptr_t lo, uintptr_t hi)
{
	return p >= lo && p <= hi && n <= hi - p;
}

/* Maps bytes at exactly want if that range is free. */
static void *tcd_va_map_at(uintptr_t want, size_t bytes, int prot)
{
	void *p = mmap((void *)want, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p == (void *)want)
		return p;
	if (p != MAP_FAILED)
		munmap(p, bytes); /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
	return NULL;
}

/* Maps bytes of fresh address space at a random address in [lo, hi), not
 * overlapping [avoid, avoid + avoid_bytes).  With a cursor, the first try
 * is where the last placement ended, so that allocations made one after
 * another land near each other, as the driver's do; each later try is drawn
 * at random.  Under tcd_mem.lock. */
static void *tcd_va_place_locked(size_t bytes, size_t align, int prot, uintptr_t lo, uintptr_t hi, uintptr_t *cursor,
				 uintptr_t avoid, size_t avoid_bytes)
{
	if (bytes > hi - lo)
		return NULL;
	for (int attempt = 0; attempt < 64; attempt++) {
		uintptr_t cand;
		void *p;

		if (cursor && *cursor && !attempt) {
			cand = *cursor;
		} else {
			uint64_t r = tcd_rng_next(&tcd_g.addr_rng);

			cand = tcd_align_up(lo + (uintptr_t)(r % (hi - lo - bytes + 1)), TCD_GRANULARITY);
		}
		cand = tcd_align_up(cand, align);
		if (cand < lo || cand + bytes > hi || (avoid_bytes && tcd_overlaps(cand, bytes, avoid, avoid_bytes)))
			continue;
		p = tcd_va_map_at(cand, bytes, prot);
		if (!p)
			continue;
		if (cursor)
			*cursor = cand + tcd_align_up(bytes, tcd_page()) +
				  (uintptr_t)(tcd_rng_next(&tcd_g.addr_rng) % 16) * 65536;
		return p;
	}
	return NULL;
}

/* An allocation of the double's own, in the driver heap (the low heap for
 * the legacy 32-bit ABI).  Under tcd_mem.lock. */
static void *tcd_heap_map_locked(size_t bytes, bool low)
{
	if (low)
		return tcd_va_place_locked(bytes, 4096, PROT_READ | PROT_WRITE, TCD_LOW_HEAP_LO, TCD_LOW_HEAP_HI,
					   &tcd_mem.va_next_low, 0, 0);
	return tcd_va_place_locked(bytes, 4096, PROT_READ | PROT_WRITE, tcd_mem.heap_lo, tcd_mem.heap_hi,
				   &tcd_mem.va_next, 0, 0);
}

static bool tcd_in_heap(uintptr_t p, size_t n)
{
	return tcd_overlaps(p, n, tcd_mem.heap_lo, tcd_mem.heap_hi - tcd_mem.heap_lo) ||
	       tcd_overlaps(p, n, TCD_LOW_HEAP_LO, TCD_LOW_HEAP_HI - TCD_LOW_HEAP_LO);
}

/* Whether the mode lets a reservation at want be placed there (if it is
 * free); the rules of "measured" are those at the top of the file. */
static bool tcd_hint_takeable(uintptr_t want, size_t size)
{
	if (tcd_mem.tsan && !tcd_inside(want, size, tcd_mem.open_lo, tcd_mem.open_hi))
		return false;
	switch (tcd_g.reserve) {
	case TCD_RESERVE_HONOUR:
		return true;
	case TCD_RESERVE_MEASURED:
		if (tcd_in_heap(want, size))
			return false; /* fact 3 */
		if (!tcd_inside(want, size, tcd_mem.open_lo, tcd_mem.open_hi))
			return false; /* not measured */
		if (atomic_load(&tcd_g.runtime_started) && size < TCD_RESERVE_LARGE)
			return false; /* fact 4, small */
		return true;          /* fact 2; fact 4, large */
	case TCD_RESERVE_REFUSE:
	case TCD_RESERVE_FAIL:
		break;
	}
	return false;
}

/* A reservation placed by the double: where the hint says if the mode takes
 * it and it is free, else small ones in the heap and large ones in fact 2's
 * range, clear of the range asked for.  Under tcd_mem.lock. */
static void *tcd_reserve_map_locked(size_t size, size_t align, uintptr_t want)
{
	void *p;

	if (want && !(want % align) && tcd_hint_takeable(want, size) && (p = tcd_va_map_at(want, size, PROT_NONE)))
		return p;
	if (size < TCD_RESERVE_LARGE || tcd_mem.tsan)
		return tcd_va_place_locked(size, align, PROT_NONE, tcd_mem.heap_lo, tcd_mem.heap_hi, NULL, want,
					   want ? size : 0);
	return tcd_va_place_locked(size, align, PROT_NONE, tcd_mem.open_lo, tcd_mem.open_hi, NULL, want,
				   want ? size : 0);
}

static size_t tcd_range_find_locked(uintptr_t p)
{
	size_t lo = 0, hi = tcd_mem.count;

	/* first entry with base > p */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tcd_mem.ranges[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && p < tcd_mem.ranges[lo - 1].base + tcd_mem.ranges[lo - 1].size)
		return lo - 1;
	return (size_t)-1;
}

static CUresult tcd_range_add_locked(uintptr_t base, size_t size, enum tcd_range_kind kind, size_t map_bytes,
				     struct tcd_memhandle *h)
{
	size_t i = 0;

	if (tcd_mem.count == tcd_mem.cap) {
		size_t cap = tcd_mem.cap ? tcd_mem.cap * 2 : 64;
		struct tcd_range *r = realloc(tcd_mem.ranges, cap * sizeof(*r));

		if (!r)
			return CUDA_ERROR_OUT_OF_MEMORY;
		tcd_mem.ranges = r;
		tcd_mem.cap = cap;
	}
	while (i < tcd_mem.count && tcd_mem.ranges[i].base < base)
		i++;
	memmove(&tcd_mem.ranges[i + 1], &tcd_mem.ranges[i], (tcd_mem.count - i) * sizeof(tcd_mem.ranges[0]));
	tcd_mem.ranges[i] = (struct tcd_range){
		.base = base,
		.size = size,
		.kind = kind,
		.map_bytes = map_bytes,
		.handle = h,
		.id = ++tcd_mem.next_id,
	};
	/* VMM memory belongs to no context (it is the device's); everything
	 * else to the context current when it was made. */
	if (h) {
		tcd_mem.ranges[i].device = h->device;
	} else {
		tcd_mem.ranges[i].ctx = tcd_ctx_current();
		tcd_mem.ranges[i].device = tcd_mem.ranges[i].ctx ? tcd_mem.ranges[i].ctx->device : 0;
	}
	tcd_mem.count++;
	return CUDA_SUCCESS;
}

static void tcd_range_drop_locked(size_t i)
{
	memmove(&tcd_mem.ranges[i], &tcd_mem.ranges[i + 1], (tcd_mem.count - i - 1) * sizeof(tcd_mem.ranges[0]));
	tcd_mem.count--;
}

CUresult tcd_range_add(uintptr_t base, size_t size, enum tcd_range_kind kind, size_t map_bytes)
{
	CUresult r;

	pthread_mutex_lock(&tcd_mem.lock);
	r = tcd_range_add_locked(base, size, kind, map_bytes, NULL);
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}

void tcd_range_remove(uintptr_t base)
{
	size_t i;

	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(base);
	if (i != (size_t)-1 && tcd_mem.ranges[i].base == base)
		tcd_range_drop_locked(i);
	pthread_mutex_unlock(&tcd_mem.lock);
}

/* Whether p is memory the host side of a copy stands for: pinned host
 * memory, or memory the double did not make (for the byte counts of
 * TSCUDA_DOUBLE_STATS). */
bool tcd_range_is_host_side(uintptr_t p)
{
	size_t i;
	bool host;

	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(p);
	host = i == (size_t)-1 || tcd_mem.ranges[i].kind == TCD_RANGE_HOST;
	pthread_mutex_unlock(&tcd_mem.lock);
	return host;
}

/* Whether p lies in any registered range (no message either way). */
bool tcd_range_probe(uintptr_t p)
{
	bool found;

	pthread_mutex_lock(&tcd_mem.lock);
	found = tcd_range_find_locked(p) != (size_t)-1;
	pthread_mutex_unlock(&tcd_mem.lock);
	return found;
}

bool tcd_range_reachable(uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi)
{
	bool ok = false;
	size_t i;

	if (p + n < p)
		return false;
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(p);
	if (i != (size_t)-1 && (tcd_mem.ranges[i].kind & TCD_RANGE_ACCESSIBLE) &&
	    p + n <= tcd_mem.ranges[i].base + tcd_mem.ranges[i].size) {
		*lo = tcd_mem.ranges[i].base;
		*hi = tcd_mem.ranges[i].base + tcd_mem.ranges[i].size;
		ok = true;
	}
	pthread_mutex_unlock(&tcd_mem.lock);
	return ok;
}

CUresult tcd_range_check(uintptr_t p, size_t n, const char *call, const char *what)
{
	uintptr_t cur = p, end = p + n;
	CUresult r = CUDA_SUCCESS;

	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s is NULL", what);
	if (end < p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s 0x%lx + %zu bytes wraps around", what,
				(unsigned long)p, n);
	pthread_mutex_lock(&tcd_mem.lock);
	while (cur < end) {
		size_t i = tcd_range_find_locked(cur);

		if (i == (size_t)-1) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
				     cur == p ? "%s 0x%lx is not inside any allocation (%zu bytes asked)"
					      : "%s 0x%lx + %zu bytes runs past the end of its allocation",
				     what, (unsigned long)p, n);
			break;
		}
		if (tcd_mem.ranges[i].kind == TCD_RANGE_VMM_NOACCESS) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
				     "%s 0x%lx is mapped but cuMemSetAccess has not made it accessible", what,
				     (unsigned long)cur);
			break;
		}
		cur = tcd_mem.ranges[i].base + tcd_mem.ranges[i].size;
	}
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}

/* ---- device, managed and host allocations ---- */

/* ipc_ok: memory from cuMemAlloc (and pitched), which cuIpcGetMemHandle
 * may export; not pool, managed or host memory. */
static CUresult tcd_alloc(uintptr_t *out, size_t bytes, enum tcd_range_kind kind, bool low, bool ipc_ok,
			  const char *call)
{
	size_t map = tcd_align_up(bytes, tcd_page());
	void *p;
	CUresult r;

	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the output pointer is NULL");
	if (bytes == 0)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "bytesize is 0");
	pthread_mutex_lock(&tcd_mem.lock);
	if (kind != TCD_RANGE_HOST && (bytes > TCD_DEVICE_MEMORY || tcd_mem.used + bytes > TCD_DEVICE_MEMORY)) {
		pthread_mutex_unlock(&tcd_mem.lock);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "%zu bytes do not fit the double's 16 GiB", bytes);
	}
	p = tcd_heap_map_locked(map, low);
	if (!p) {
		pthread_mutex_unlock(&tcd_mem.lock);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "no address space for %zu bytes", bytes);
	}
	r = tcd_range_add_locked((uintptr_t)p, bytes, kind, map, NULL);
	if (r != CUDA_SUCCESS) {
		munmap(p, map);
		pthread_mutex_unlock(&tcd_mem.lock);
		return tcd_fail(r, call, "out of host memory");
	}
	tcd_mem.ranges[tcd_range_find_locked((uintptr_t)p)].ipc_ok = ipc_ok;
	if (kind != TCD_RANGE_HOST)
		tcd_mem.used += bytes;
	pthread_mutex_unlock(&tcd_mem.lock);
	*out = (uintptr_t)p;
	return CUDA_SUCCESS;
}

/* Unmaps an allocation now (the caller has made sure no work uses it). */
void tcd_free_now(uintptr_t ptr)
{
	size_t i;

	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(ptr);
	if (i != (size_t)-1 && tcd_mem.ranges[i].base == ptr) {
		struct tcd_range rg = tcd_mem.ranges[i];

		tcd_range_drop_locked(i);
		if (rg.kind != TCD_RANGE_HOST)
			tcd_mem.used -= rg.size;
		munmap((void *)rg.base, rg.map_bytes);
	}
	pthread_mutex_unlock(&tcd_mem.lock);
}

static CUresult tcd_base_check(uintptr_t ptr, unsigned kinds, const char *call, const char *what)
{
	size_t i;
	bool ok;

	if (!ptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s is NULL", what);
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(ptr);
	ok = i != (size_t)-1 && tcd_mem.ranges[i].base == ptr && (tcd_mem.ranges[i].kind & kinds);
	pthread_mutex_unlock(&tcd_mem.lock);
	if (!ok)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%s 0x%lx is not the start of a live allocation of this kind",
				what, (unsigned long)ptr);
	return CUDA_SUCCESS;
}

static CUresult tcd_free(uintptr_t ptr, unsigned kinds, const char *call)
{
	CUresult r = tcd_base_check(ptr, kinds, call, "dptr");

	if (r != CUDA_SUCCESS)
		return r;
	/* Like the driver, freeing waits for work in flight that may use it. */
	r = tcd_sync_all(call);
	if (r == CUDA_SUCCESS)
		tcd_free_now(ptr);
	return r;
}

static CUresult tcd_ctx_check(const char *call)
{
	struct tcd_ctx *c;

	return tcd_ctx_require(call, &c);
}

TCD_API(CUresult, cuMemAlloc)(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	uintptr_t p;
	CUresult r;

	TCD_ENTER_INIT(cuMemAlloc);
	if ((r = tcd_ctx_check("cuMemAlloc")) != CUDA_SUCCESS)
		return r;
	if (!dptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc", "dptr is NULL");
	r = tcd_alloc(&p, bytesize, TCD_RANGE_DEVICE, true, true, "cuMemAlloc");
	if (r == CUDA_SUCCESS)
		*dptr = (CUdeviceptr_v1)p;
	return r;
}
TCD_EXPORT(cuMemAlloc)

/* Graph memory of a memory allocation node (tcd_graph.c): device memory
 * placed as cuMemAlloc's is, which legacy IPC may not export. */
static uint64_t tcd_graph_mem_used_locked(void)
{
	uint64_t used = 0;

	for (size_t i = 0; i < tcd_mem.count; i++)
		if (tcd_mem.ranges[i].graph_mem)
			used += tcd_mem.ranges[i].size;
	return used;
}

CUresult tcd_graph_mem_alloc(uintptr_t *out, size_t bytes, const char *call)
{
	CUresult r = tcd_alloc(out, bytes, TCD_RANGE_DEVICE, false, false, call);

	if (r == CUDA_SUCCESS) {
		uint64_t used;
		pthread_mutex_lock(&tcd_mem.lock);
		tcd_mem.ranges[tcd_range_find_locked(*out)].graph_mem = true;
		used = tcd_graph_mem_used_locked();
		if (used > tcd_mem.graph_high)
			tcd_mem.graph_high = used;
		pthread_mutex_unlock(&tcd_mem.lock);
	}
	return r;
}

/*
 * Graph memory's attributes and trim (driver API documentation; nothing
 * measured): the double keeps no cache for graphs, so the memory reserved
 * is the memory used, both the bytes of graph memory placed now (it stays
 * placed for its graph's lifetime here, launched or not), and one high
 * watermark serves both, reset only to zero; a trim has nothing to give
 * back.
 */
static CUresult tcd_graph_mem_device(CUdevice device, const char *call)
{
	if (device < 0 || device >= tcd_g.devices)
		return tcd_fail(CUDA_ERROR_INVALID_DEVICE, call, "device %d does not exist (the double has %d)", device,
				tcd_g.devices);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuDeviceGraphMemTrim)(CUdevice device)
{
	TCD_ENTER_INIT(cuDeviceGraphMemTrim);
	return tcd_graph_mem_device(device, "cuDeviceGraphMemTrim");
}
TCD_EXPORT(cuDeviceGraphMemTrim)

TCD_API(CUresult, cuDeviceGetGraphMemAttribute)(CUdevice device, CUgraphMem_attribute attr, void *value)
{
	static const char call[] = "cuDeviceGetGraphMemAttribute";
	CUresult r;

	TCD_ENTER_INIT(cuDeviceGetGraphMemAttribute);
	if ((r = tcd_graph_mem_device(device, call)) != CUDA_SUCCESS)
		return r;
	if (!value)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "value is NULL");
	pthread_mutex_lock(&tcd_mem.lock);
	switch (attr) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
		*(cuuint64_t *)value = device == 0 ? tcd_graph_mem_used_locked() : 0;
		break;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
		*(cuuint64_t *)value = device == 0 ? tcd_mem.graph_high : 0;
		break;
	default:
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "attribute %d is not a graph memory attribute", (int)attr);
		break;
	}
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}
TCD_EXPORT(cuDeviceGetGraphMemAttribute)

TCD_API(CUresult, cuDeviceSetGraphMemAttribute)(CUdevice device, CUgraphMem_attribute attr, void *value)
{
	static const char call[] = "cuDeviceSetGraphMemAttribute";
	CUresult r;

	TCD_ENTER_INIT(cuDeviceSetGraphMemAttribute);
	if ((r = tcd_graph_mem_device(device, call)) != CUDA_SUCCESS)
		return r;
	if (!value)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "value is NULL");
	if (attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH && attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "attribute %d cannot be set (only the high watermarks)",
				(int)attr);
	if (*(const cuuint64_t *)value != 0)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a high watermark can only be reset to zero");
	pthread_mutex_lock(&tcd_mem.lock);
	tcd_mem.graph_high = 0;
	pthread_mutex_unlock(&tcd_mem.lock);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuDeviceSetGraphMemAttribute)

/* Whether ptr is the start of graph memory. */
static bool tcd_is_graph_mem(uintptr_t ptr)
{
	size_t i;
	bool is;

	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(ptr);
	is = i != (size_t)-1 && tcd_mem.ranges[i].base == ptr && tcd_mem.ranges[i].graph_mem;
	pthread_mutex_unlock(&tcd_mem.lock);
	return is;
}

TCD_API(CUresult, cuMemAlloc_v2)(CUdeviceptr *dptr, size_t bytesize)
{
	uintptr_t p;
	CUresult r;

	TCD_ENTER_INIT(cuMemAlloc_v2);
	if ((r = tcd_ctx_check("cuMemAlloc_v2")) != CUDA_SUCCESS)
		return r;
	if (!dptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc_v2", "dptr is NULL");
	r = tcd_alloc(&p, bytesize, TCD_RANGE_DEVICE, false, true, "cuMemAlloc_v2");
	if (r == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)p;
	return r;
}
TCD_EXPORT(cuMemAlloc_v2)

TCD_API(CUresult, cuMemFree)(CUdeviceptr_v1 dptr)
{
	TCD_ENTER_INIT(cuMemFree);
	return tcd_free(dptr, TCD_RANGE_DEVICE | TCD_RANGE_MANAGED, "cuMemFree");
}
TCD_EXPORT(cuMemFree)

TCD_API(CUresult, cuMemFree_v2)(CUdeviceptr dptr)
{
	TCD_ENTER_INIT(cuMemFree_v2);
	return tcd_free((uintptr_t)dptr, TCD_RANGE_DEVICE | TCD_RANGE_MANAGED, "cuMemFree_v2");
}
TCD_EXPORT(cuMemFree_v2)

static CUresult tcd_alloc_pitch(uintptr_t *out, size_t *pitch, size_t width, size_t height, unsigned elem, bool low,
				const char *call)
{
	size_t p;
	CUresult r;

	if ((r = tcd_ctx_check(call)) != CUDA_SUCCESS)
		return r;
	if (!out || !pitch)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dptr or pPitch is NULL");
	if (elem != 4 && elem != 8 && elem != 16)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "ElementSizeBytes must be 4, 8 or 16, got %u", elem);
	if (!width || !height)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "WidthInBytes %zu or Height %zu is 0", width, height);
	p = tcd_align_up(width, 512);
	if (height > TCD_DEVICE_MEMORY / p)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "%zu rows of %zu bytes do not fit", height, p);
	r = tcd_alloc(out, p * height, TCD_RANGE_DEVICE, low, true, call);
	if (r == CUDA_SUCCESS)
		*pitch = p;
	return r;
}

TCD_API(CUresult, cuMemAllocPitch)(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes,
				   unsigned int Height, unsigned int ElementSizeBytes)
{
	uintptr_t p = 0;
	size_t pitch = 0;
	CUresult r;

	TCD_ENTER_INIT(cuMemAllocPitch);
	r = tcd_alloc_pitch(dptr && pPitch ? &p : NULL, &pitch, WidthInBytes, Height, ElementSizeBytes, true,
			    "cuMemAllocPitch");
	if (r == CUDA_SUCCESS) {
		*dptr = (CUdeviceptr_v1)p;
		*pPitch = (unsigned)pitch;
	}
	return r;
}
TCD_EXPORT(cuMemAllocPitch)

TCD_API(CUresult, cuMemAllocPitch_v2)(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
				      unsigned int ElementSizeBytes)
{
	uintptr_t p = 0;
	CUresult r;

	TCD_ENTER_INIT(cuMemAllocPitch_v2);
	r = tcd_alloc_pitch(dptr ? &p : NULL, pPitch, WidthInBytes, Height, ElementSizeBytes, false,
			    "cuMemAllocPitch_v2");
	if (r == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)p;
	return r;
}
TCD_EXPORT(cuMemAllocPitch_v2)

/* The registry entry p lies in.  For VMM memory that is the mapping made by
 * one cuMemMap, not the reservation and not any finer allocation a program
 * carved out of it, as the real driver answers: so an interposer that serves
 * cuMemAlloc from pieces of one mapped window must answer
 * cuMemGetAddressRange (and cuPointerGetAttribute's ranges) for its
 * sub-allocations itself, or the program sees the window. */
static CUresult tcd_address_range(uintptr_t *base, size_t *size, uintptr_t p, const char *call)
{
	size_t i;
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(p);
	if (i == (size_t)-1) {
		r = CUDA_ERROR_NOT_FOUND;
	} else {
		if (base)
			*base = tcd_mem.ranges[i].base;
		if (size)
			*size = tcd_mem.ranges[i].size;
	}
	pthread_mutex_unlock(&tcd_mem.lock);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "0x%lx is not inside any allocation", (unsigned long)p);
	return r;
}

TCD_API(CUresult, cuMemGetAddressRange)(CUdeviceptr_v1 *pbase, unsigned int *psize, CUdeviceptr_v1 dptr)
{
	uintptr_t b;
	size_t s;
	CUresult r;

	TCD_ENTER_INIT(cuMemGetAddressRange);
	r = tcd_address_range(&b, &s, dptr, "cuMemGetAddressRange");
	if (r == CUDA_SUCCESS) {
		if (pbase)
			*pbase = (CUdeviceptr_v1)b;
		if (psize)
			*psize = (unsigned)s;
	}
	return r;
}
TCD_EXPORT(cuMemGetAddressRange)

TCD_API(CUresult, cuMemGetAddressRange_v2)(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	uintptr_t b;
	CUresult r;

	TCD_ENTER_INIT(cuMemGetAddressRange_v2);
	r = tcd_address_range(&b, psize, (uintptr_t)dptr, "cuMemGetAddressRange_v2");
	if (r == CUDA_SUCCESS && pbase)
		*pbase = (CUdeviceptr)b;
	return r;
}
TCD_EXPORT(cuMemGetAddressRange_v2)

TCD_API(CUresult, cuMemGetInfo)(unsigned int *free_bytes, unsigned int *total)
{
	TCD_ENTER_INIT(cuMemGetInfo);
	if (!free_bytes || !total)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemGetInfo", "free or total is NULL");
	*free_bytes = 0xffffffffu;
	*total = 0xffffffffu;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuMemGetInfo)

TCD_API(CUresult, cuMemGetInfo_v2)(size_t *free_bytes, size_t *total)
{
	TCD_ENTER_INIT(cuMemGetInfo_v2);
	if (!free_bytes || !total)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemGetInfo_v2", "free or total is NULL");
	pthread_mutex_lock(&tcd_mem.lock);
	*free_bytes = TCD_DEVICE_MEMORY - tcd_mem.used;
	pthread_mutex_unlock(&tcd_mem.lock);
	*total = TCD_DEVICE_MEMORY;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuMemGetInfo_v2)

static CUresult tcd_alloc_async(CUdeviceptr *dptr, size_t bytes, CUstream h, bool pt, const char *call)
{
	struct tcd_stream *s;
	uintptr_t p;
	bool capturing;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	if (!dptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dptr is NULL");
	/* The address is handed out at once; stream order only matters for use.
	 * On a capturing stream it becomes a memory allocation node: graph
	 * memory, whose stream-ordered free in the capture is its free node. */
	pthread_mutex_lock(&tcd_g.lock);
	capturing = s->capture != NULL;
	pthread_mutex_unlock(&tcd_g.lock);
	if (capturing)
		r = tcd_graph_mem_alloc(&p, bytes, call);
	else
		r = tcd_alloc(&p, bytes, TCD_RANGE_DEVICE, false, false, call);
	if (r == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)p;
	return r;
}

TCD_API(CUresult, cuMemAllocAsync)(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemAllocAsync);
	return tcd_alloc_async(dptr, bytesize, hStream, false, "cuMemAllocAsync");
}
TCD_EXPORT(cuMemAllocAsync)

TCD_API(CUresult, cuMemAllocAsync_ptsz)(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemAllocAsync_ptsz);
	return tcd_alloc_async(dptr, bytesize, hStream, true, "cuMemAllocAsync_ptsz");
}
TCD_EXPORT(cuMemAllocAsync_ptsz)

static CUresult tcd_free_async(CUdeviceptr dptr, CUstream h, bool pt, const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *op;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	r = tcd_base_check((uintptr_t)dptr, TCD_RANGE_DEVICE, call, "dptr");
	if (r != CUDA_SUCCESS)
		return r;
	/* Graph memory freed outside its graph (no free node): its address
	 * stays the graph's, which allocates it again at its next launch
	 * (driver API documentation), so the double keeps it placed. */
	if (tcd_is_graph_mem((uintptr_t)dptr))
		return CUDA_SUCCESS;
	op = tcd_op_new(TCD_OP_FREE);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.free.ptr = (uintptr_t)dptr;
	return tcd_enqueue(s, op, call, NULL);
}

TCD_API(CUresult, cuMemFreeAsync)(CUdeviceptr dptr, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemFreeAsync);
	return tcd_free_async(dptr, hStream, false, "cuMemFreeAsync");
}
TCD_EXPORT(cuMemFreeAsync)

TCD_API(CUresult, cuMemFreeAsync_ptsz)(CUdeviceptr dptr, CUstream hStream)
{
	TCD_ENTER_INIT(cuMemFreeAsync_ptsz);
	return tcd_free_async(dptr, hStream, true, "cuMemFreeAsync_ptsz");
}
TCD_EXPORT(cuMemFreeAsync_ptsz)

TCD_API(CUresult, cuMemAllocManaged)(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	uintptr_t p;
	CUresult r;

	TCD_ENTER_INIT(cuMemAllocManaged);
	if ((r = tcd_ctx_check("cuMemAllocManaged")) != CUDA_SUCCESS)
		return r;
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged",
				"flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST, got 0x%x", flags);
	if (!dptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged", "dptr is NULL");
	r = tcd_alloc(&p, bytesize, TCD_RANGE_MANAGED, false, false, "cuMemAllocManaged");
	if (r == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)p;
	return r;
}
TCD_EXPORT(cuMemAllocManaged)

static CUresult tcd_host_alloc(void **pp, size_t bytes, unsigned flags, const char *call)
{
	uintptr_t p;
	CUresult r;
	const unsigned known = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;

	if ((r = tcd_ctx_check(call)) != CUDA_SUCCESS)
		return r;
	if (!pp)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pp is NULL");
	if (flags & ~known)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown flags 0x%x", flags);
	r = tcd_alloc(&p, bytes, TCD_RANGE_HOST, false, false, call);
	if (r == CUDA_SUCCESS)
		*pp = (void *)p;
	return r;
}

TCD_API(CUresult, cuMemAllocHost)(void **pp, unsigned int bytesize)
{
	TCD_ENTER_INIT(cuMemAllocHost);
	return tcd_host_alloc(pp, bytesize, 0, "cuMemAllocHost");
}
TCD_EXPORT(cuMemAllocHost)

TCD_API(CUresult, cuMemAllocHost_v2)(void **pp, size_t bytesize)
{
	TCD_ENTER_INIT(cuMemAllocHost_v2);
	return tcd_host_alloc(pp, bytesize, 0, "cuMemAllocHost_v2");
}
TCD_EXPORT(cuMemAllocHost_v2)

TCD_API(CUresult, cuMemHostAlloc)(void **pp, size_t bytesize, unsigned int Flags)
{
	TCD_ENTER_INIT(cuMemHostAlloc);
	return tcd_host_alloc(pp, bytesize, Flags, "cuMemHostAlloc");
}
TCD_EXPORT(cuMemHostAlloc)

TCD_API(CUresult, cuMemFreeHost)(void *p)
{
	TCD_ENTER_INIT(cuMemFreeHost);
	return tcd_free((uintptr_t)p, TCD_RANGE_HOST, "cuMemFreeHost");
}
TCD_EXPORT(cuMemFreeHost)

static CUresult tcd_host_devptr(uintptr_t *out, void *p, unsigned flags, const char *call)
{
	size_t i;
	bool ok;

	if (!out || !p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pdptr or p is NULL");
	if (flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "Flags must be 0, got 0x%x", flags);
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked((uintptr_t)p);
	ok = i != (size_t)-1 && tcd_mem.ranges[i].kind == TCD_RANGE_HOST;
	pthread_mutex_unlock(&tcd_mem.lock);
	if (!ok)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%p is not memory from cuMemHostAlloc", p);
	*out = (uintptr_t)p; /* unified addressing: the same address */
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuMemHostGetDevicePointer)(CUdeviceptr_v1 *pdptr, void *p, unsigned int Flags)
{
	uintptr_t d;
	CUresult r;

	TCD_ENTER_INIT(cuMemHostGetDevicePointer);
	r = tcd_host_devptr(pdptr ? &d : NULL, p, Flags, "cuMemHostGetDevicePointer");
	if (r != CUDA_SUCCESS)
		return r;
	if (d > 0xffffffffu)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemHostGetDevicePointer",
				"%p does not fit the legacy 32-bit device pointer", p);
	*pdptr = (CUdeviceptr_v1)d;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuMemHostGetDevicePointer)

TCD_API(CUresult, cuMemHostGetDevicePointer_v2)(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
	uintptr_t d;
	CUresult r;

	TCD_ENTER_INIT(cuMemHostGetDevicePointer_v2);
	r = tcd_host_devptr(pdptr ? &d : NULL, p, Flags, "cuMemHostGetDevicePointer_v2");
	if (r == CUDA_SUCCESS)
		*pdptr = (CUdeviceptr)d;
	return r;
}
TCD_EXPORT(cuMemHostGetDevicePointer_v2)

/* ---- virtual memory management ---- */

static CUresult tcd_prop_check(const CUmemAllocationProp *prop, const char *call)
{
	if (!prop)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "prop is NULL");
	if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "prop->type %d is not CU_MEM_ALLOCATION_TYPE_PINNED",
				(int)prop->type);
	if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "prop->location.type %d is not a device",
				(int)prop->location.type);
	if (prop->location.id < 0 || prop->location.id >= tcd_g.devices)
		return tcd_fail(CUDA_ERROR_INVALID_DEVICE, call, "prop->location.id %d is not a device",
				prop->location.id);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuMemGetAllocationGranularity)(size_t *granularity, const CUmemAllocationProp *prop,
						 CUmemAllocationGranularity_flags option)
{
	CUresult r;

	TCD_ENTER_INIT(cuMemGetAllocationGranularity);
	if (!granularity)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationGranularity", "granularity is NULL");
	if ((r = tcd_prop_check(prop, "cuMemGetAllocationGranularity")) != CUDA_SUCCESS)
		return r;
	if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationGranularity", "unknown option %d",
				(int)option);
	*granularity = TCD_GRANULARITY;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuMemGetAllocationGranularity)

TCD_API(CUresult, cuMemCreate)(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
			       unsigned long long flags)
{
	struct tcd_memhandle *m;
	CUresult r;
	int fd;

	TCD_ENTER_INIT(cuMemCreate);
	if (!handle)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemCreate", "handle is NULL");
	if (flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemCreate", "flags must be 0, got 0x%llx", flags);
	if ((r = tcd_prop_check(prop, "cuMemCreate")) != CUDA_SUCCESS)
		return r;
	if (!size || size % TCD_GRANULARITY)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuMemCreate",
				"size %zu is not a non-zero multiple of the granularity %zu", size, TCD_GRANULARITY);
	/* Device memory like cuMemAlloc's, until released and unmapped. */
	pthread_mutex_lock(&tcd_mem.lock);
	if (size > TCD_DEVICE_MEMORY || tcd_mem.used + size > TCD_DEVICE_MEMORY) {
		pthread_mutex_unlock(&tcd_mem.lock);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, "cuMemCreate", "%zu bytes do not fit the double's 16 GiB", size);
	}
	tcd_mem.used += size;
	pthread_mutex_unlock(&tcd_mem.lock);
	/* A sparse memfd: pages cost memory only once touched. */
	fd = memfd_create("tcd-vmm", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, "cuMemCreate", "memfd of %zu bytes: %s", size, strerror(errno));
		goto out_unaccount;
	}
	m = tcd_obj_new(sizeof(*m), TCD_KIND_MEMHANDLE);
	if (!m) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, "cuMemCreate", "out of host memory");
		goto out_close;
	}
	m->memfd = fd;
	m->size = size;
	m->device = prop->location.id;
	m->handle_types = (unsigned)prop->requestedHandleTypes;
	*handle = (CUmemGenericAllocationHandle)(uintptr_t)m;
	return CUDA_SUCCESS;

out_close:
	close(fd);
out_unaccount:
	pthread_mutex_lock(&tcd_mem.lock);
	tcd_mem.used -= size;
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}
TCD_EXPORT(cuMemCreate)

TCD_API(CUresult, cuMemRelease)(CUmemGenericAllocationHandle handle)
{
	struct tcd_memhandle *m;
	CUresult r;

	TCD_ENTER_INIT(cuMemRelease);
	r = tcd_obj_get((void *)(uintptr_t)handle, TCD_KIND_MEMHANDLE, "cuMemRelease", "handle", &m);
	if (r != CUDA_SUCCESS)
		return r;
	/* Mappings keep the memory alive until they are unmapped, as documented. */
	pthread_mutex_lock(&tcd_mem.lock);
	m->released = true;
	close(m->memfd);
	m->memfd = -1;
	tcd_obj_kill(m);
	if (!m->maps)
		tcd_mem.used -= m->size;
	pthread_mutex_unlock(&tcd_mem.lock);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuMemRelease)

static bool tcd_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

static size_t tcd_res_find_locked(uintptr_t p, size_t n)
{
	for (size_t i = 0; i < tcd_mem.res_count; i++)
		if (p >= tcd_mem.res[i].base && p + n <= tcd_mem.res[i].base + tcd_mem.res[i].size)
			return i;
	return (size_t)-1;
}

TCD_API(CUresult, cuMemAddressReserve)(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
				       unsigned long long flags)
{
	const char *call = "cuMemAddressReserve";
	size_t align;
	void *p;

	TCD_ENTER_INIT(cuMemAddressReserve);
	if (!ptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "ptr is NULL");
	if (flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "flags must be 0, got 0x%llx", flags);
	if (!size || size % tcd_page())
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "size %zu is not a non-zero multiple of the page size",
				size);
	if (alignment && !tcd_pow2(alignment))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "alignment %zu is not a power of two", alignment);
	if (addr % tcd_page())
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "addr 0x%llx is not page aligned", addr);
	align = alignment > TCD_GRANULARITY ? alignment : TCD_GRANULARITY;
	if (align > ((size_t)1 << 40))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "alignment %zu is larger than the double allows (1 TiB)",
				alignment);
	if (addr && tcd_g.reserve == TCD_RESERVE_FAIL)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
				"fixed address 0x%llx refused (TSCUDA_DOUBLE_RESERVE=fail)", addr);
	pthread_mutex_lock(&tcd_mem.lock);
	if (tcd_mem.res_count == tcd_mem.res_cap) {
		size_t cap = tcd_mem.res_cap ? tcd_mem.res_cap * 2 : 16;
		struct tcd_reservation *nr = realloc(tcd_mem.res, cap * sizeof(*nr));

		if (!nr) {
			pthread_mutex_unlock(&tcd_mem.lock);
			return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		}
		tcd_mem.res = nr;
		tcd_mem.res_cap = cap;
	}
	p = tcd_reserve_map_locked(size, align, (uintptr_t)addr);
	if (!p) {
		pthread_mutex_unlock(&tcd_mem.lock);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "no address space for %zu bytes", size);
	}
	tcd_mem.res[tcd_mem.res_count].base = (uintptr_t)p;
	tcd_mem.res[tcd_mem.res_count].size = size;
	tcd_mem.res_count++;
	pthread_mutex_unlock(&tcd_mem.lock);
	*ptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuMemAddressReserve)

TCD_API(CUresult, cuMemAddressFree)(CUdeviceptr ptr, size_t size)
{
	const char *call = "cuMemAddressFree";
	CUresult r = CUDA_SUCCESS;
	size_t i;

	TCD_ENTER_INIT(cuMemAddressFree);
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_res_find_locked((uintptr_t)ptr, size);
	if (i == (size_t)-1 || tcd_mem.res[i].base != ptr || tcd_mem.res[i].size != size) {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "0x%llx + %zu is not a reservation from cuMemAddressReserve",
			     ptr, size);
		goto out_unlock;
	}
	for (size_t k = 0; k < tcd_mem.count; k++)
		if (tcd_mem.ranges[k].base >= ptr && tcd_mem.ranges[k].base < ptr + size) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "0x%lx inside the reservation is still mapped",
				     (unsigned long)tcd_mem.ranges[k].base);
			goto out_unlock;
		}
	munmap((void *)(uintptr_t)ptr, size);
	tcd_mem.res[i] = tcd_mem.res[--tcd_mem.res_count];
out_unlock:
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}
TCD_EXPORT(cuMemAddressFree)

TCD_API(CUresult, cuMemMap)(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
			    unsigned long long flags)
{
	const char *call = "cuMemMap";
	struct tcd_memhandle *m;
	uintptr_t p = (uintptr_t)ptr;
	CUresult r;
	void *q;

	TCD_ENTER_INIT(cuMemMap);
	if (flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "flags must be 0, got 0x%llx", flags);
	r = tcd_obj_get((void *)(uintptr_t)handle, TCD_KIND_MEMHANDLE, call, "handle", &m);
	if (r != CUDA_SUCCESS)
		return r;
	if (!size || size % TCD_GRANULARITY || offset % TCD_GRANULARITY || p % TCD_GRANULARITY)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
				"ptr 0x%lx, size %zu and offset %zu must be multiples of the granularity %zu",
				(unsigned long)p, size, offset, TCD_GRANULARITY);
	if (offset > m->size || size > m->size - offset)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "offset %zu + size %zu exceed the allocation's %zu bytes",
				offset, size, m->size);
	/* The real driver maps an allocation whole: on the H100 (580.159.04)
	 * cuMemMap of the first 2 MiB of a 20 MiB cuMemCreate allocation
	 * failed with CUDA_ERROR_NOT_SUPPORTED; the documentation says the
	 * offset must be 0. */
	if (offset || size != m->size)
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call,
				"maps %zu bytes at offset %zu of a %zu-byte allocation: only the whole allocation can be mapped",
				size, offset, m->size);
	pthread_mutex_lock(&tcd_mem.lock);
	if (tcd_res_find_locked(p, size) == (size_t)-1) {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "0x%lx + %zu is not inside a reservation", (unsigned long)p,
			     size);
		goto out_unlock;
	}
	for (size_t k = 0; k < tcd_mem.count; k++)
		if (tcd_mem.ranges[k].base < p + size && p < tcd_mem.ranges[k].base + tcd_mem.ranges[k].size) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "0x%lx + %zu overlaps a mapping at 0x%lx",
				     (unsigned long)p, size, (unsigned long)tcd_mem.ranges[k].base);
			goto out_unlock;
		}
	q = mmap((void *)p, size, PROT_NONE, MAP_SHARED | MAP_FIXED, m->memfd, (off_t)offset);
	if (q != (void *)p) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "mmap at 0x%lx: %s", (unsigned long)p, strerror(errno));
		goto out_unlock;
	}
	r = tcd_range_add_locked(p, size, TCD_RANGE_VMM_NOACCESS, 0, m);
	if (r != CUDA_SUCCESS) {
		mmap((void *)p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
		r = tcd_fail(r, call, "out of host memory");
		goto out_unlock;
	}
	m->maps++;
out_unlock:
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}
TCD_EXPORT(cuMemMap)

/* The mapped entries exactly covering [p, p + n): first index and count. */
static bool tcd_mapped_cover_locked(uintptr_t p, size_t n, size_t *first, size_t *count)
{
	size_t i = tcd_range_find_locked(p), k;
	uintptr_t cur = p;

	if (i == (size_t)-1 || tcd_mem.ranges[i].base != p)
		return false;
	for (k = i; k < tcd_mem.count && cur < p + n; k++) {
		const struct tcd_range *rg = &tcd_mem.ranges[k];

		if (rg->base != cur || !(rg->kind & (TCD_RANGE_VMM | TCD_RANGE_VMM_NOACCESS)))
			return false;
		cur += rg->size;
	}
	if (cur != p + n)
		return false;
	*first = i;
	*count = k - i;
	return true;
}

TCD_API(CUresult, cuMemSetAccess)(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
	const char *call = "cuMemSetAccess";
	CUmemAccess_flags fl = CU_MEM_ACCESS_FLAGS_PROT_NONE;
	size_t first, n;
	CUresult r = CUDA_SUCCESS;
	int prot;

	TCD_ENTER_INIT(cuMemSetAccess);
	if (!desc || !count)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "desc is NULL or count is 0");
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || desc[i].location.id < 0 ||
		    desc[i].location.id >= tcd_g.devices)
			return tcd_fail(CUDA_ERROR_INVALID_DEVICE, call, "desc[%zu] does not name a device", i);
		if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		    desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "desc[%zu].flags %d is unknown", i,
					(int)desc[i].flags);
		if (desc[i].flags > fl)
			fl = desc[i].flags;
	}
	prot = fl == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
	       : fl == CU_MEM_ACCESS_FLAGS_PROT_READ    ? PROT_READ
							: PROT_NONE;
	pthread_mutex_lock(&tcd_mem.lock);
	if (!tcd_mapped_cover_locked((uintptr_t)ptr, size, &first, &n)) {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "0x%llx + %zu is not exactly covered by cuMemMap mappings",
			     ptr, size);
		goto out_unlock;
	}
	if (mprotect((void *)(uintptr_t)ptr, size, prot) != 0) {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "mprotect: %s", strerror(errno));
		goto out_unlock;
	}
	for (size_t k = first; k < first + n; k++)
		tcd_mem.ranges[k].kind = prot == PROT_NONE ? TCD_RANGE_VMM_NOACCESS : TCD_RANGE_VMM;
out_unlock:
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}
TCD_EXPORT(cuMemSetAccess)

TCD_API(CUresult, cuMemUnmap)(CUdeviceptr ptr, size_t size)
{
	const char *call = "cuMemUnmap";
	size_t first, n;
	CUresult r;

	TCD_ENTER_INIT(cuMemUnmap);
	pthread_mutex_lock(&tcd_mem.lock);
	r = tcd_mapped_cover_locked((uintptr_t)ptr, size, &first, &n) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&tcd_mem.lock);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "0x%llx + %zu is not exactly covered by cuMemMap mappings", ptr, size);
	r = tcd_sync_all(call); /* unmapping waits for work that may use it */
	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_mem.lock);
	if (tcd_mapped_cover_locked((uintptr_t)ptr, size, &first, &n)) {
		for (size_t k = first; k < first + n; k++) {
			struct tcd_memhandle *m = tcd_mem.ranges[k].handle;

			/* The last mapping of a released handle frees its memory. */
			if (!--m->maps && m->released)
				tcd_mem.used -= m->size;
		}
		memmove(&tcd_mem.ranges[first], &tcd_mem.ranges[first + n],
			(tcd_mem.count - first - n) * sizeof(tcd_mem.ranges[0]));
		tcd_mem.count -= n;
		/* Back to reserved, inaccessible address space. */
		mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
		     0);
	} else {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "0x%llx was unmapped by another thread", ptr);
	}
	pthread_mutex_unlock(&tcd_mem.lock);
	return r;
}
TCD_EXPORT(cuMemUnmap)

/* ---- pointer attributes ---- */

/* What the registry knows of one address: the allocation or mapping it is
 * in, and the reservation it is in (a mapping's, or an unmapped hole's). */
struct tcd_ptr_info {
	bool mapped;
	struct tcd_range rg;
	bool reserved;
	struct tcd_reservation res;
};

static void tcd_ptr_lookup(uintptr_t p, struct tcd_ptr_info *pi)
{
	size_t i;

	memset(pi, 0, sizeof(*pi));
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked(p);
	if (i != (size_t)-1) {
		pi->mapped = true;
		pi->rg = tcd_mem.ranges[i];
	}
	i = tcd_res_find_locked(p, 1);
	if (i != (size_t)-1) {
		pi->reserved = true;
		pi->res = tcd_mem.res[i];
	}
	pthread_mutex_unlock(&tcd_mem.lock);
}

/* Bytes the driver writes for an attribute (0: not one the double knows). */
static size_t tcd_ptr_attr_size(CUpointer_attribute a)
{
	switch (a) {
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_MAPPED:
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		return sizeof(unsigned int);
	case CU_POINTER_ATTRIBUTE_CONTEXT:
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		return sizeof(uint64_t);
	case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
		return sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS);
	}
	return 0;
}

static void tcd_put_u32(void *data, unsigned v)
{
	memcpy(data, &v, sizeof(v));
}

static void tcd_put_u64(void *data, uint64_t v)
{
	memcpy(data, &v, sizeof(v));
}

/* One attribute of p into data.  An attribute that does not apply to p
 * (a host pointer of device memory, anything of an address the double did
 * not make) is CUDA_ERROR_INVALID_VALUE, as cuPointerGetAttribute answers;
 * the caller turns that into a zero for cuPointerGetAttributes.  Quiet:
 * the caller explains. */
static CUresult tcd_ptr_attr(const struct tcd_ptr_info *pi, CUpointer_attribute a, void *data, uintptr_t p)
{
	bool vmm = pi->mapped && (pi->rg.kind & (TCD_RANGE_VMM | TCD_RANGE_VMM_NOACCESS));

	/* The range attributes, and MAPPED, also answer for an unmapped hole
	 * of a reservation. */
	if (!pi->mapped && !(pi->reserved && (a == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR ||
					       a == CU_POINTER_ATTRIBUTE_RANGE_SIZE ||
					       a == CU_POINTER_ATTRIBUTE_MAPPED)))
		return CUDA_ERROR_INVALID_VALUE;
	switch (a) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		/* Assumed: VMM memory has no context (it is created for a
		 * device, not in a context), so the answer is NULL. */
		tcd_put_u64(data, (uint64_t)(uintptr_t)pi->rg.ctx);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		/* Managed memory is device memory here, as in the driver API
		 * (CU_POINTER_ATTRIBUTE_IS_MANAGED tells it apart). */
		tcd_put_u32(data, pi->rg.kind == TCD_RANGE_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		tcd_put_u64(data, p); /* unified addressing, no disjoint cases */
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!(pi->rg.kind & (TCD_RANGE_HOST | TCD_RANGE_MANAGED)))
			return CUDA_ERROR_INVALID_VALUE;
		tcd_put_u64(data, p);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		tcd_put_u32(data, 0); /* cuPointerSetAttribute is not modelled */
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		tcd_put_u64(data, pi->rg.id);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		tcd_put_u32(data, pi->rg.kind == TCD_RANGE_MANAGED);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		tcd_put_u32(data, (unsigned)pi->rg.device);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
		tcd_put_u32(data, pi->rg.ipc_ok);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		/* As documented: for VMM memory the reservation, not the
		 * mapping (cuMemGetAddressRange gives the mapping). */
		if (vmm || !pi->mapped) {
			tcd_put_u64(data, a == CU_POINTER_ATTRIBUTE_RANGE_SIZE ? pi->res.size : pi->res.base);
			return CUDA_SUCCESS;
		}
		tcd_put_u64(data, a == CU_POINTER_ATTRIBUTE_RANGE_SIZE ? pi->rg.size : pi->rg.base);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		tcd_put_u32(data, pi->mapped);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		tcd_put_u32(data, vmm ? pi->rg.handle->handle_types : CU_MEM_HANDLE_TYPE_NONE);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		tcd_put_u32(data, pi->rg.kind == TCD_RANGE_VMM_NOACCESS ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE
									  : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		tcd_put_u64(data, 0); /* pools are not modelled */
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		tcd_put_u64(data, pi->rg.base);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		tcd_put_u64(data, pi->rg.size);
		return CUDA_SUCCESS;
	default:
		break;
	}
	return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult tcd_ptr_ctx_check(CUpointer_attribute a, const char *call)
{
	struct tcd_ctx *c;

	/* Documented for the device pointer: it is the current context's view. */
	if (a == CU_POINTER_ATTRIBUTE_DEVICE_POINTER)
		return tcd_ctx_require(call, &c);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuPointerGetAttribute)(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
	const char *call = "cuPointerGetAttribute";
	struct tcd_ptr_info pi;
	CUresult r;

	TCD_ENTER_INIT(cuPointerGetAttribute);
	if (!data)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "data is NULL");
	if (!tcd_ptr_attr_size(attribute))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "attribute %d is unknown", (int)attribute);
	if ((r = tcd_ptr_ctx_check(attribute, call)) != CUDA_SUCCESS)
		return r;
	tcd_ptr_lookup((uintptr_t)ptr, &pi);
	r = tcd_ptr_attr(&pi, attribute, data, (uintptr_t)ptr);
	if (r == CUDA_ERROR_NOT_SUPPORTED)
		return tcd_fail(r, call, "attribute %d is not modelled by the double", (int)attribute);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "attribute %d does not apply to 0x%llx (%s)", (int)attribute, ptr,
				pi.mapped ? "not that kind of memory" : "not inside any allocation");
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuPointerGetAttribute)

TCD_API(CUresult, cuPointerGetAttributes)(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
					  CUdeviceptr ptr)
{
	const char *call = "cuPointerGetAttributes";
	struct tcd_ptr_info pi;
	CUresult r;

	TCD_ENTER_INIT(cuPointerGetAttributes);
	if (!numAttributes || !attributes || !data)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "numAttributes is 0 or attributes or data is NULL");
	for (unsigned i = 0; i < numAttributes; i++) {
		if (!data[i])
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "data[%u] is NULL", i);
		if (!tcd_ptr_attr_size(attributes[i]))
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "attributes[%u] %d is unknown", i,
					(int)attributes[i]);
		if ((r = tcd_ptr_ctx_check(attributes[i], call)) != CUDA_SUCCESS)
			return r;
	}
	tcd_ptr_lookup((uintptr_t)ptr, &pi);
	for (unsigned i = 0; i < numAttributes; i++) {
		r = tcd_ptr_attr(&pi, attributes[i], data[i], (uintptr_t)ptr);
		if (r == CUDA_ERROR_NOT_SUPPORTED)
			return tcd_fail(r, call, "attributes[%u] %d is not modelled by the double", i, (int)attributes[i]);
		/* As documented: no error for an address that is not CUDA's
		 * (or an attribute that does not apply); the value is zero. */
		if (r != CUDA_SUCCESS)
			memset(data[i], 0, tcd_ptr_attr_size(attributes[i]));
	}
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuPointerGetAttributes)

/* ---- legacy IPC, within one process ----
 *
 * The handle's 64 bytes carry TCD_IPC_MAGIC, the exporting pid, and the
 * allocation's base, size and buffer id (never reused, so a handle of a
 * freed allocation is recognised as stale even if the address came back).
 * Only cuMemAlloc memory may be exported: the driver documents the call for
 * "an existing device memory allocation created with cuMemAlloc", so VMM,
 * pool, managed and host memory get CUDA_ERROR_INVALID_VALUE (assumed from
 * that text, not measured).  Opening in the exporting process returns the
 * allocation's own address with a count of opens, as documented for a
 * handle opened again; a real driver maps the memory at another address in
 * another process, and may refuse the exporting process (not measured).
 * Handles from another process are refused: the double's memory is private
 * to its process. */

#define TCD_IPC_MAGIC "tcd-ipc1"

struct tcd_ipc_wire {
	char magic[8];
	uint32_t pid;
	uint32_t device;
	uint64_t base;
	uint64_t size;
	uint64_t id;
};
_Static_assert(sizeof(struct tcd_ipc_wire) <= sizeof(((CUipcMemHandle *)0)->reserved), "IPC handle too small");

TCD_API(CUresult, cuIpcGetMemHandle)(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
	const char *call = "cuIpcGetMemHandle";
	struct tcd_ipc_wire w = { TCD_IPC_MAGIC, 0, 0, 0, 0, 0 };
	struct tcd_ptr_info pi;
	CUresult r;

	TCD_ENTER_INIT(cuIpcGetMemHandle);
	if ((r = tcd_ctx_check(call)) != CUDA_SUCCESS)
		return r;
	if (!pHandle)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pHandle is NULL");
	tcd_ptr_lookup((uintptr_t)dptr, &pi);
	if (!pi.mapped || pi.rg.base != dptr || !pi.rg.ipc_ok)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
				"0x%llx is not the base of memory from cuMemAlloc (%s)", dptr,
				!pi.mapped ? "not inside any allocation"
				: pi.rg.base != dptr ? "inside one, not its base"
				: "VMM, pool, managed or host memory cannot be exported this way");
	w.pid = (uint32_t)getpid();
	w.device = (uint32_t)pi.rg.device;
	w.base = pi.rg.base;
	w.size = pi.rg.size;
	w.id = pi.rg.id;
	memset(pHandle, 0, sizeof(*pHandle));
	memcpy(pHandle->reserved, &w, sizeof(w));
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuIpcGetMemHandle)

static CUresult tcd_ipc_open(CUdeviceptr *pdptr, const CUipcMemHandle *handle, unsigned flags, const char *call)
{
	struct tcd_ipc_wire w;
	CUresult r;
	size_t i;

	if ((r = tcd_ctx_check(call)) != CUDA_SUCCESS)
		return r;
	if (!pdptr)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pdptr is NULL");
	if (flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call,
				"Flags must be CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, got 0x%x", flags);
	memcpy(&w, handle->reserved, sizeof(w));
	if (memcmp(w.magic, TCD_IPC_MAGIC, sizeof(w.magic)))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the handle does not come from cuIpcGetMemHandle");
	if (w.pid != (uint32_t)getpid())
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call,
				"the handle comes from process %u: the double cannot share memory between processes",
				w.pid);
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked((uintptr_t)w.base);
	if (i != (size_t)-1 && tcd_mem.ranges[i].base == w.base && tcd_mem.ranges[i].id == w.id) {
		tcd_mem.ranges[i].ipc_opens++;
		*pdptr = (CUdeviceptr)w.base;
	} else {
		r = CUDA_ERROR_INVALID_HANDLE;
	}
	pthread_mutex_unlock(&tcd_mem.lock);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "the allocation at 0x%llx the handle names was freed",
				(unsigned long long)w.base);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuIpcOpenMemHandle)(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
	TCD_ENTER_INIT(cuIpcOpenMemHandle);
	return tcd_ipc_open(pdptr, &handle, Flags, "cuIpcOpenMemHandle");
}
TCD_EXPORT(cuIpcOpenMemHandle)

TCD_API(CUresult, cuIpcOpenMemHandle_v2)(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
	TCD_ENTER_INIT(cuIpcOpenMemHandle_v2);
	return tcd_ipc_open(pdptr, &handle, Flags, "cuIpcOpenMemHandle_v2");
}
TCD_EXPORT(cuIpcOpenMemHandle_v2)

TCD_API(CUresult, cuIpcCloseMemHandle)(CUdeviceptr dptr)
{
	const char *call = "cuIpcCloseMemHandle";
	CUresult r;
	size_t i;

	TCD_ENTER_INIT(cuIpcCloseMemHandle);
	if ((r = tcd_ctx_check(call)) != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_mem.lock);
	i = tcd_range_find_locked((uintptr_t)dptr);
	if (i != (size_t)-1 && tcd_mem.ranges[i].base == dptr && tcd_mem.ranges[i].ipc_opens)
		tcd_mem.ranges[i].ipc_opens--;
	else
		r = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&tcd_mem.lock);
	if (r != CUDA_SUCCESS)
		return tcd_fail(r, call, "0x%llx is not memory opened with cuIpcOpenMemHandle", dptr);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuIpcCloseMemHandle)
