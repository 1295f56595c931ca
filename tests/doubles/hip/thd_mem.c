/*
 * thd_mem.c - device memory of the double: hipMalloc and the virtual
 * memory calls (mmap'd host memory), copies and memsets (stream-ordered
 * ones join a capture), symbol copies.  A device pointer a call is given
 * must lie inside an allocation: otherwise hipErrorInvalidValue, as the
 * runtime answers for memory it does not know.
 */
#include "tests/doubles/hip/thd.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define THD_PAGE 4096u

static struct {
	thd_mem *v;
	size_t n, cap;
} thd_mem_g;

static uint64_t thd_round(uint64_t n)
{
	return (n + THD_PAGE - 1) & ~(uint64_t)(THD_PAGE - 1);
}

int thd_mem_add(uint64_t base, uint64_t size, uint64_t map_size, thd_mem_kind kind)
{
	int rc = 0;

	thd_lock();
	if (thd_mem_g.n == thd_mem_g.cap) {
		size_t cap = thd_mem_g.cap ? thd_mem_g.cap * 2 : 64;
		thd_mem *v = realloc(thd_mem_g.v, cap * sizeof(*v));
		if (!v) {
			rc = -1;
			goto out;
		}
		thd_mem_g.v = v;
		thd_mem_g.cap = cap;
	}
	thd_mem_g.v[thd_mem_g.n++] = (thd_mem){base, size, map_size, kind};
out:
	thd_unlock();
	return rc;
}

void thd_mem_remove(uint64_t base)
{
	thd_lock();
	for (size_t i = 0; i < thd_mem_g.n; i++) {
		if (thd_mem_g.v[i].base == base) {
			thd_mem_g.v[i] = thd_mem_g.v[--thd_mem_g.n];
			break;
		}
	}
	thd_unlock();
}

/* Index of the allocation holding addr, or -1 (lock held). */
static long thd_mem_find(uint64_t addr)
{
	for (size_t i = 0; i < thd_mem_g.n; i++)
		if (addr >= thd_mem_g.v[i].base && addr - thd_mem_g.v[i].base < thd_mem_g.v[i].size)
			return (long)i;
	return -1;
}

void *thd_mem_at(uint64_t addr, uint64_t len)
{
	void *p = NULL;
	long i;

	thd_lock();
	i = thd_mem_find(addr);
	if (i >= 0 && len <= thd_mem_g.v[i].size - (addr - thd_mem_g.v[i].base))
		p = (void *)(uintptr_t)addr;
	thd_unlock();
	return p;
}

int thd_mem_is_device(uint64_t addr)
{
	long i;

	thd_lock();
	i = thd_mem_find(addr);
	thd_unlock();
	return i >= 0;
}

/* ---- allocations ------------------------------------------------------------ */

THD_EXPORT hipError_t hipMalloc(void **ptr, size_t size)
{
	void *p;

	if (!ptr)
		return thd_ret(hipErrorInvalidValue);
	if (size == 0) {
		*ptr = NULL;
		return hipSuccess;
	}
	p = mmap(NULL, thd_round(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return thd_ret(hipErrorOutOfMemory);
	if (thd_mem_add((uintptr_t)p, size, thd_round(size), THD_MEM_DEVICE) != 0) {
		munmap(p, thd_round(size));
		return thd_ret(hipErrorOutOfMemory);
	}
	*ptr = p;
	return hipSuccess;
}

/* As clr's ihipMallocPitch: rows THD_PITCH_ALIGN apart (the device's
 * image pitch alignment); a zero width or height makes nothing. */
#define THD_PITCH_ALIGN 256u
THD_EXPORT hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	size_t rows;

	if (!ptr || !pitch)
		return thd_ret(hipErrorInvalidValue);
	if (width == 0 || height == 0) {
		*ptr = NULL;
		return hipSuccess;
	}
	if (width > SIZE_MAX - THD_PITCH_ALIGN)
		return thd_ret(hipErrorOutOfMemory);
	rows = (width + THD_PITCH_ALIGN - 1) / THD_PITCH_ALIGN * THD_PITCH_ALIGN;
	if (height > SIZE_MAX / rows)
		return thd_ret(hipErrorOutOfMemory);
	*pitch = rows;
	return hipMalloc(ptr, rows * height);
}

THD_EXPORT hipError_t hipFree(void *ptr)
{
	uint64_t map_size = 0;
	long i;

	if (!ptr)
		return hipSuccess;
	thd_sync_device(); /* hipFree waits for the device, as the runtime's does */
	thd_lock();
	i = thd_mem_find((uintptr_t)ptr);
	if (i >= 0 && thd_mem_g.v[i].base == (uintptr_t)ptr && thd_mem_g.v[i].kind == THD_MEM_DEVICE) {
		map_size = thd_mem_g.v[i].map_size;
		thd_mem_g.v[i] = thd_mem_g.v[--thd_mem_g.n];
	}
	thd_unlock();
	if (!map_size)
		return thd_ret(hipErrorInvalidValue);
	munmap(ptr, map_size);
	return hipSuccess;
}

/* Stream-ordered allocation (clr's hipMallocAsync / hipFreeAsync on the
 * device's default pool): the memory is there from the call on (at once is
 * a valid stream order) and given back once the stream's work queued
 * before the free has run (here: the free waits for the stream).  Inside a
 * stream capture they would become graph nodes: not modelled,
 * hipErrorNotSupported. */
THD_EXPORT hipError_t hipMallocAsync(void **ptr, size_t size, hipStream_t stream)
{
	int bad;

	if (thd_stream_capture(stream, &bad) || bad)
		return thd_ret(bad ? hipErrorInvalidHandle : hipErrorNotSupported);
	if (!ptr)
		return thd_ret(hipErrorInvalidValue);
	return hipMalloc(ptr, size);
}

THD_EXPORT hipError_t hipFreeAsync(void *ptr, hipStream_t stream)
{
	int bad;
	hipError_t r;

	if (thd_stream_capture(stream, &bad) || bad)
		return thd_ret(bad ? hipErrorInvalidHandle : hipErrorNotSupported);
	if (!ptr)
		return thd_ret(hipErrorInvalidValue);
	r = thd_sync_stream(stream);
	if (r != hipSuccess)
		return thd_ret(r);
	return hipFree(ptr);
}

/* Managed memory (clr's hipMallocManaged): host memory here, as all of
 * the double's device memory is, freed by hipFree.  A null pointer, a
 * zero size or flags other than hipMemAttachGlobal / hipMemAttachHost are
 * hipErrorInvalidValue, as clr checks them. */
THD_EXPORT hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	if (!ptr || !size || (flags != hipMemAttachGlobal && flags != hipMemAttachHost))
		return thd_ret(hipErrorInvalidValue);
	return hipMalloc(ptr, size);
}

/* Memory pools (clr's hip_mempool.cpp): a pool of a device's pinned
 * memory; hipMallocFromPoolAsync allocates as hipMallocAsync does (the
 * memory is there at once), hipFreeAsync gives it back.  Each device's
 * default pool is one object made at its first use. */
struct ihipMemPoolHandle_t {
	uint32_t magic;
};

static struct ihipMemPoolHandle_t *thd_pool_default[THD_MAX_DEVICES];

THD_EXPORT hipError_t hipMemPoolCreate(hipMemPool_t *pool, const hipMemPoolProps *props)
{
	struct ihipMemPoolHandle_t *p;

	if (!pool || !props || props->allocType != hipMemAllocationTypePinned ||
	    props->location.type != hipMemLocationTypeDevice)
		return thd_ret(hipErrorInvalidValue);
	if (!thd_device_ok(props->location.id))
		return thd_ret(hipErrorInvalidDevice);
	p = thd_object_new(sizeof(*p));
	if (!p)
		return thd_ret(hipErrorOutOfMemory);
	p->magic = THD_LIVE;
	*pool = p;
	return hipSuccess;
}

THD_EXPORT hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *pool, int device)
{
	struct ihipMemPoolHandle_t *p;

	if (!pool)
		return thd_ret(hipErrorInvalidValue);
	if (!thd_device_ok(device))
		return thd_ret(hipErrorInvalidDevice);
	thd_lock();
	p = thd_pool_default[device];
	thd_unlock();
	if (!p) {
		p = thd_object_new(sizeof(*p));
		if (!p)
			return thd_ret(hipErrorOutOfMemory);
		p->magic = THD_LIVE;
		thd_lock();
		if (thd_pool_default[device])
			p = thd_pool_default[device]; /* another thread made it first; p stays in the registry */
		else
			thd_pool_default[device] = p;
		thd_unlock();
	}
	*pool = p;
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemPoolDestroy(hipMemPool_t pool)
{
	if (!pool || pool->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	pool->magic = THD_DEAD;
	return hipSuccess;
}

THD_EXPORT hipError_t hipMallocFromPoolAsync(void **ptr, size_t size, hipMemPool_t pool,
                                             hipStream_t stream)
{
	if (!pool || pool->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	return hipMallocAsync(ptr, size, stream);
}

/* As clr: the memory object holding dptr, its base and size (a hipMalloc:
 * the size asked; a hipMemMap: the whole mapping); none is
 * hipErrorInvalidDevicePointer. */
THD_EXPORT hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)
{
	uint64_t base = 0, size = 0;
	long i;

	if (!pbase || !psize)
		return thd_ret(hipErrorInvalidValue);
	thd_lock();
	i = thd_mem_find((uintptr_t)dptr);
	if (i >= 0) {
		base = thd_mem_g.v[i].base;
		size = thd_mem_g.v[i].size;
	}
	thd_unlock();
	if (i < 0)
		return thd_ret(hipErrorInvalidDevicePointer);
	*pbase = (hipDeviceptr_t)(uintptr_t)base;
	*psize = (size_t)size;
	return hipSuccess;
}

/* ---- virtual memory ----------------------------------------------------------- */

/* The end of x86-64's 47-bit user half, where the runtime's address
 * apertures (the HSA thunk's) lie. */
#define THD_USER_END 0x800000000000ull
/* Under ThreadSanitizer its interceptor kills the process for a mapping
 * outside its application ranges, and above 2^39 it keeps its shadow: a
 * hint outside [2^32, 2^39) is then never taken (as the CUDA double). */
#define THD_TSAN_LO (1ull << 32)
#define THD_TSAN_HI (1ull << 39)

/* The reservations made (hipMemAddressReserve) and not freed: as clr,
 * whose memory-object map knows a reserved range as device memory even
 * where nothing is mapped, a copy touching one outside a mapping is
 * refused (never a host memcpy of an inaccessible page).  Guarded by
 * thd_lock. */
static struct {
	struct thd_resv {
		uint64_t base, size;
	} *v;
	size_t n, cap;
} thd_resv_g;

static int thd_resv_add(uint64_t base, uint64_t size)
{
	int rc = 0;

	thd_lock();
	if (thd_resv_g.n == thd_resv_g.cap) {
		size_t ncap = thd_resv_g.cap ? thd_resv_g.cap * 2 : 16;
		struct thd_resv *nv = realloc(thd_resv_g.v, ncap * sizeof(*nv));
		if (nv) {
			thd_resv_g.v = nv;
			thd_resv_g.cap = ncap;
		}
	}
	if (thd_resv_g.n < thd_resv_g.cap) {
		thd_resv_g.v[thd_resv_g.n].base = base;
		thd_resv_g.v[thd_resv_g.n].size = size;
		thd_resv_g.n++;
	} else {
		rc = -1;
	}
	thd_unlock();
	return rc;
}

static void thd_resv_remove(uint64_t base)
{
	thd_lock();
	for (size_t i = 0; i < thd_resv_g.n; i++)
		if (thd_resv_g.v[i].base == base) {
			thd_resv_g.v[i] = thd_resv_g.v[--thd_resv_g.n];
			break;
		}
	thd_unlock();
}

/* Whether [addr, addr + n) meets a reservation. */
static int thd_resv_meets(uint64_t addr, uint64_t n)
{
	int hit = 0;

	thd_lock();
	for (size_t i = 0; i < thd_resv_g.n && !hit; i++)
		hit = addr < thd_resv_g.v[i].base + thd_resv_g.v[i].size &&
		      thd_resv_g.v[i].base < addr + n;
	thd_unlock();
	return hit;
}

/* Whether the hint [addr, addr + size) may be taken at all. */
static int thd_hint_ok(uint64_t addr, uint64_t size)
{
	uint64_t lo = 0, hi = THD_USER_END;

	if (dlsym(RTLD_DEFAULT, "__tsan_init")) {
		lo = THD_TSAN_LO;
		hi = THD_TSAN_HI;
	}
	return addr >= lo && addr < hi && size <= hi - addr;
}

/* Under ThreadSanitizer a reservation no hint placed goes to the top
 * 64 GiB of the range hints are taken in, [THD_TSAN_PLACE_LO, THD_TSAN_HI),
 * not where mmap would put it (above 2^39): a replay asks for the captured
 * address as its hint, and must be able to have it again.  Clear of the
 * windows the tests give the interposers under TSan (from 0x4000000000, 64
 * GiB a device).  First fit from a cursor (thd_lock), each candidate on a
 * 2 MiB boundary and clear of [avoid, avoid + size) (a hint refused stays
 * refused); NULL when nothing there is free. */
#define THD_TSAN_PLACE_LO (7ull << 36)
#define THD_TSAN_PLACE_STEP (2ull << 20)
static void *thd_tsan_place(size_t size, size_t alignment, uint64_t avoid)
{
	static uint64_t cursor = THD_TSAN_PLACE_LO;
	uint64_t step = alignment > THD_TSAN_PLACE_STEP ? alignment : THD_TSAN_PLACE_STEP;
	uint64_t span = THD_TSAN_HI - THD_TSAN_PLACE_LO;
	void *found = NULL;

	if (size > span)
		return NULL;
	thd_lock();
	for (uint64_t tried = 0; !found && tried < span; tried += step) {
		uint64_t cand = (cursor + step - 1) & ~(step - 1);
		void *p;

		if (cand < THD_TSAN_PLACE_LO || cand + size > THD_TSAN_HI)
			cand = THD_TSAN_PLACE_LO;
		if (avoid && cand < avoid + size && avoid < cand + size) {
			cursor = cand + step;
			continue;
		}
		p = mmap((void *)(uintptr_t)cand, size, PROT_NONE,
		         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (void *)(uintptr_t)cand) {
			found = p;
			cursor = cand + size;
		} else {
			if (p != MAP_FAILED)
				munmap(p, size); /* a kernel without MAP_FIXED_NOREPLACE */
			cursor = cand + step;
		}
	}
	thd_unlock();
	return found;
}

/* What clr checks of a property before it asks the device (hip_vm.cpp):
 * pinned device memory of one of the double's devices, no export handle. */
static hipError_t thd_prop_check(const hipMemAllocationProp *prop)
{
	if (!prop || prop->type != hipMemAllocationTypePinned ||
	    prop->location.type != hipMemLocationTypeDevice || !thd_device_ok(prop->location.id))
		return hipErrorInvalidValue;
	if (prop->requestedHandleType != hipMemHandleTypeNone)
		return hipErrorNotSupported;
	return hipSuccess;
}


THD_EXPORT hipError_t hipMemGetAllocationGranularity(size_t *granularity,
                                                     const hipMemAllocationProp *prop,
                                                     hipMemAllocationGranularity_flags option)
{
	if (!granularity || thd_prop_check(prop) != hipSuccess ||
	    (option != hipMemAllocationGranularityMinimum &&
	     option != hipMemAllocationGranularityRecommended))
		return thd_ret(hipErrorInvalidValue);
	*granularity = THD_PAGE;
	return hipSuccess;
}

/* As the runtime (hip_vm.cpp): the address asked for is a hint; a range
 * that is taken, or that reaches past the user half (THD_USER_END), gets
 * another address, with hipSuccess.  TSHIP_DOUBLE_RESERVE=refuse takes no
 * hint at all (tests of the callers' fallback). */
THD_EXPORT hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                           unsigned long long flags)
{
	const char *mode = getenv("TSHIP_DOUBLE_RESERVE");
	uint64_t asked = (uint64_t)(uintptr_t)addr;
	void *p = MAP_FAILED;

	if (!ptr || flags)
		return thd_ret(hipErrorInvalidValue);
	if (size == 0 || size % THD_PAGE || (alignment & (alignment - 1)))
		return thd_ret(hipErrorMemoryAllocation);
	if (mode && *mode && strcmp(mode, "refuse") != 0 && strcmp(mode, "honour") != 0) {
		thd_say("TSHIP_DOUBLE_RESERVE='%s': expected honour or refuse", mode);
		return thd_ret(hipErrorInvalidValue);
	}
	if (mode && strcmp(mode, "refuse") == 0)
		addr = NULL;
	if (addr && !thd_hint_ok((uint64_t)(uintptr_t)addr, size))
		addr = NULL;
	if (addr)
		p = mmap(addr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		         MAP_FIXED_NOREPLACE, -1, 0);
	if (p != MAP_FAILED && p != addr) { /* a kernel without MAP_FIXED_NOREPLACE */
		munmap(p, size);
		p = MAP_FAILED;
	}
	if (p == MAP_FAILED && dlsym(RTLD_DEFAULT, "__tsan_init")) {
		p = thd_tsan_place(size, alignment, asked);
		if (!p)
			return thd_ret(hipErrorOutOfMemory);
	}
	if (p == MAP_FAILED)
		p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return thd_ret(hipErrorOutOfMemory);
	if (thd_resv_add((uint64_t)(uintptr_t)p, size) != 0) {
		munmap(p, size);
		return thd_ret(hipErrorOutOfMemory);
	}
	*ptr = p;
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemAddressFree(void *ptr, size_t size)
{
	if (!ptr || size == 0)
		return thd_ret(hipErrorInvalidValue);
	thd_sync_device();
	if (munmap(ptr, size) != 0)
		return thd_ret(hipErrorInvalidValue);
	thd_resv_remove((uint64_t)(uintptr_t)ptr);
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
                                   const hipMemAllocationProp *prop, unsigned long long flags)
{
	struct ihipMemGenericAllocationHandle *h;
	hipError_t r = thd_prop_check(prop);

	if (r != hipSuccess)
		return thd_ret(r);
	if (!handle || size == 0 || size % THD_PAGE || flags)
		return thd_ret(hipErrorInvalidValue);
	h = thd_object_new(sizeof(*h));
	if (!h)
		return thd_ret(hipErrorOutOfMemory);
	h->magic = THD_LIVE;
	h->size = size;
	*handle = h;
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
	if (!handle || handle->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidHandle);
	handle->magic = THD_DEAD;
	return hipSuccess;
}

/* One handle backs one mapping here (what the replayer and capture make);
 * the pages come fresh, so zeroed. */
THD_EXPORT hipError_t hipMemMap(void *ptr, size_t size, size_t offset,
                                hipMemGenericAllocationHandle_t handle, unsigned long long flags)
{
	if (!ptr || !handle || handle->magic != THD_LIVE || offset || flags ||
	    size != handle->size)
		return thd_ret(hipErrorInvalidValue);
	if (mmap(ptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	    MAP_FAILED)
		return thd_ret(hipErrorOutOfMemory);
	if (thd_mem_add((uintptr_t)ptr, size, 0, THD_MEM_MAPPED) != 0)
		return thd_ret(hipErrorOutOfMemory);
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc,
                                      size_t count)
{
	if (!ptr || !size || !desc || !count)
		return thd_ret(hipErrorInvalidValue);
	for (size_t i = 0; i < count; i++)
		if (desc[i].location.type != hipMemLocationTypeDevice ||
		    !thd_device_ok(desc[i].location.id))
			return thd_ret(hipErrorInvalidValue);
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemUnmap(void *ptr, size_t size)
{
	if (!ptr || !thd_mem_is_device((uintptr_t)ptr))
		return thd_ret(hipErrorInvalidValue);
	thd_sync_device();
	thd_mem_remove((uintptr_t)ptr);
	mmap(ptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	return hipSuccess;
}

/* ---- copies and memsets ---------------------------------------------------------- */

/* Device pointers must lie in an allocation for all n bytes; a reserved
 * range with nothing mapped there is device memory too, never copied; the
 * rest is host memory, which the program owns. */
static int thd_span_ok(const void *p, size_t n)
{
	if (thd_mem_is_device((uintptr_t)p))
		return thd_mem_at((uintptr_t)p, n) != NULL;
	return !thd_resv_meets((uintptr_t)p, n);
}

hipError_t thd_copy(void *dst, const void *src, size_t n)
{
	if (n == 0)
		return hipSuccess;
	if (!dst || !src || !thd_span_ok(dst, n) || !thd_span_ok(src, n))
		return hipErrorInvalidValue;
	memmove(dst, src, n);
	return hipSuccess;
}

hipError_t thd_fill(void *dst, uint32_t value, unsigned elem, size_t count)
{
	uint8_t *p = dst;

	if (count == 0)
		return hipSuccess;
	if (!dst || (elem != 1 && elem != 2 && elem != 4) || count > SIZE_MAX / elem ||
	    !thd_mem_at((uintptr_t)dst, (uint64_t)count * elem))
		return hipErrorInvalidValue;
	if (elem == 1) {
		memset(dst, (int)(value & 0xff), count);
		return hipSuccess;
	}
	for (size_t i = 0; i < count; i++)
		memcpy(p + i * elem, &value, elem); /* little-endian: the low bytes */
	return hipSuccess;
}

hipError_t thd_copy_on(void *dst, const void *src, size_t n, hipStream_t stream)
{
	int bad;
	struct ihipGraph *g = thd_stream_capture(stream, &bad);
	thd_node node;

	if (bad)
		return thd_ret(hipErrorInvalidHandle);
	if (n && (!dst || !src || !thd_span_ok(dst, n) || !thd_span_ok(src, n)))
		return thd_ret(hipErrorInvalidValue);
	memset(&node, 0, sizeof(node));
	node.kind = THD_NODE_COPY;
	node.dst = dst;
	node.src = src;
	node.size = n;
	if (g)
		return thd_ret(thd_graph_add(g, &node));
	if (stream && n && !thd_mem_is_device((uintptr_t)src)) {
		/* host bytes are taken at the call (pageable memory is staged) */
		node.owned = malloc(n);
		if (!node.owned)
			return thd_ret(hipErrorOutOfMemory);
		memcpy(node.owned, src, n);
		node.src = node.owned;
	}
	return thd_ret(thd_enqueue(stream, &node));
}

static hipError_t thd_fill_on(void *dst, uint32_t value, unsigned elem, size_t count,
                              hipStream_t stream)
{
	int bad;
	struct ihipGraph *g = thd_stream_capture(stream, &bad);
	thd_node node;

	if (bad)
		return thd_ret(hipErrorInvalidHandle);
	if (count && (!dst || count > SIZE_MAX / elem || !thd_mem_at((uintptr_t)dst, (uint64_t)count * elem)))
		return thd_ret(hipErrorInvalidValue);
	memset(&node, 0, sizeof(node));
	node.kind = THD_NODE_MEMSET;
	node.dst = dst;
	node.value = value;
	node.elem = elem;
	node.size = (uint64_t)count * elem;
	if (g)
		return thd_ret(thd_graph_add(g, &node));
	return thd_ret(thd_enqueue(stream, &node));
}

THD_EXPORT hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind)
{
	(void)kind;
	return thd_copy_on(dst, src, n, NULL);
}

THD_EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                                     hipStream_t stream)
{
	(void)kind;
	return thd_copy_on(dst, src, n, stream);
}

THD_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t n)
{
	return thd_copy_on(dst, src, n, NULL);
}

THD_EXPORT hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t n)
{
	return thd_copy_on(dst, src, n, NULL);
}

THD_EXPORT hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n)
{
	return thd_copy_on(dst, src, n, NULL);
}

THD_EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t n, hipStream_t s)
{
	return thd_copy_on(dst, src, n, s);
}

THD_EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t n, hipStream_t s)
{
	return thd_copy_on(dst, src, n, s);
}

THD_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n,
                                         hipStream_t s)
{
	return thd_copy_on(dst, src, n, s);
}

THD_EXPORT hipError_t hipMemset(void *dst, int value, size_t n)
{
	return thd_fill_on(dst, (uint8_t)value, 1, n, NULL);
}

THD_EXPORT hipError_t hipMemsetAsync(void *dst, int value, size_t n, hipStream_t stream)
{
	return thd_fill_on(dst, (uint8_t)value, 1, n, stream);
}

THD_EXPORT hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count)
{
	return thd_fill_on(dst, value, 1, count, NULL);
}

THD_EXPORT hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count)
{
	return thd_fill_on(dst, value, 2, count, NULL);
}

THD_EXPORT hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count)
{
	return thd_fill_on(dst, (uint32_t)value, 4, count, NULL);
}

THD_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
                                       hipStream_t s)
{
	return thd_fill_on(dst, value, 1, count, s);
}

THD_EXPORT hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value, size_t count,
                                        hipStream_t s)
{
	return thd_fill_on(dst, value, 2, count, s);
}

THD_EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t s)
{
	return thd_fill_on(dst, (uint32_t)value, 4, count, s);
}

/* ---- pitched copies and memsets, peer copies ----------------------------------
 * clr (hip_memory.cpp) checks what the double checks, in this order: a zero
 * pitch is hipErrorUnknown, a zero width or height copies nothing and is
 * hipSuccess, a width past a pitch is hipErrorInvalidValue.  The runtime
 * copies one rectangle; the double queues one copy per row on the same
 * stream, in order, which nothing after the copy can tell apart.  Every
 * row's device span is checked before the first is queued, so a refused
 * copy changes nothing. */

/* Every row of depth slices of height rows of width bytes at p, rows
 * pitch apart, slices slice apart, lies in one allocation or in host
 * memory. */
static hipError_t thd_rows_check(const void *p, size_t pitch, size_t slice, size_t width,
                                 size_t height, size_t depth)
{
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < height; y++)
			if (!thd_span_ok((const uint8_t *)p + z * slice + y * pitch, width))
				return hipErrorInvalidValue;
	return hipSuccess;
}

/* Both sides of a pitched copy checked, then one copy per row in order. */
static hipError_t thd_copy3d_on(void *dst, size_t dpitch, size_t dslice, const void *src,
                                size_t spitch, size_t sslice, size_t width, size_t height,
                                size_t depth, hipStream_t stream)
{
	hipError_t r;

	if (!dst || !src || width > dpitch || width > spitch || height > SIZE_MAX / dpitch ||
	    height > SIZE_MAX / spitch || (depth > 1 && (depth > SIZE_MAX / (dslice ? dslice : 1) ||
	                                                 depth > SIZE_MAX / (sslice ? sslice : 1))) ||
	    thd_rows_check(dst, dpitch, dslice, width, height, depth) != hipSuccess ||
	    thd_rows_check(src, spitch, sslice, width, height, depth) != hipSuccess)
		return thd_ret(hipErrorInvalidValue);
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < height; y++) {
			r = thd_copy_on((uint8_t *)dst + z * dslice + y * dpitch,
			                (const uint8_t *)src + z * sslice + y * spitch, width, stream);
			if (r != hipSuccess)
				return r;
		}
	return hipSuccess;
}

static hipError_t thd_copy2d_on(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, hipStream_t stream)
{
	if (!dpitch || !spitch)
		return thd_ret(hipErrorUnknown);
	if (!width || !height)
		return hipSuccess;
	return thd_copy3d_on(dst, dpitch, 0, src, spitch, 0, width, height, 1, stream);
}

THD_EXPORT hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                  size_t width, size_t height, hipMemcpyKind kind)
{
	(void)kind;
	return thd_copy2d_on(dst, dpitch, src, spitch, width, height, NULL);
}

THD_EXPORT hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, hipMemcpyKind kind,
                                       hipStream_t stream)
{
	(void)kind;
	return thd_copy2d_on(dst, dpitch, src, spitch, width, height, stream);
}

/* clr (hip_memory.cpp, ihipMemset3D): a pitch equal to the width fills
 * width x height x depth bytes in one piece (slice_rows is not used then);
 * otherwise each row of each slice, slices pitch x slice_rows apart. */
static hipError_t thd_memset3d_on(void *dst, size_t pitch, size_t slice_rows, int value,
                                  size_t width, size_t height, size_t depth, hipStream_t stream)
{
	size_t slice;
	hipError_t r;

	if (!width || !height || !depth)
		return hipSuccess;
	if (!dst || !pitch || width > pitch || height > SIZE_MAX / pitch)
		return thd_ret(hipErrorInvalidValue);
	if (pitch == width) {
		if (depth > SIZE_MAX / (width * height))
			return thd_ret(hipErrorInvalidValue);
		return thd_fill_on(dst, (uint8_t)value, 1, width * height * depth, stream);
	}
	slice = pitch * slice_rows;
	if (depth > 1 && (!slice_rows || slice_rows > SIZE_MAX / pitch || depth > SIZE_MAX / slice))
		return thd_ret(hipErrorInvalidValue);
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < height; y++)
			if (!thd_mem_at((uintptr_t)dst + z * slice + y * pitch, width))
				return thd_ret(hipErrorInvalidValue);
	for (size_t z = 0; z < depth; z++)
		for (size_t y = 0; y < height; y++) {
			r = thd_fill_on((uint8_t *)dst + z * slice + y * pitch, (uint8_t)value, 1, width,
			                stream);
			if (r != hipSuccess)
				return r;
		}
	return hipSuccess;
}

THD_EXPORT hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
	return thd_memset3d_on(dst, pitch, height, value, width, height, 1, NULL);
}

THD_EXPORT hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
                                       size_t height, hipStream_t stream)
{
	return thd_memset3d_on(dst, pitch, height, value, width, height, 1, stream);
}

THD_EXPORT hipError_t hipMemset3D(hipPitchedPtr p, int value, hipExtent extent)
{
	return thd_memset3d_on(p.ptr, p.pitch, p.ysize, value, extent.width, extent.height,
	                       extent.depth, NULL);
}

THD_EXPORT hipError_t hipMemset3DAsync(hipPitchedPtr p, int value, hipExtent extent,
                                       hipStream_t stream)
{
	return thd_memset3d_on(p.ptr, p.pitch, p.ysize, value, extent.width, extent.height,
	                       extent.depth, stream);
}

/* hipMemcpy3D(Async) on linear memory: a side's first byte is ptr + z x
 * pitch x ysize + y x pitch + x, slices pitch x ysize apart (clr's
 * getDrvMemcpy3DDesc).  A side naming an array: thd_array.c. */
static hipError_t thd_copy3d_parms(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
	const hipPitchedPtr *d, *sr;
	size_t dslice, sslice;

	if (!p)
		return thd_ret(hipErrorInvalidValue);
	if (p->dstArray || p->srcArray)
		return thd_array_copy3d(p, stream);
	if (!p->extent.width || !p->extent.height || !p->extent.depth)
		return hipSuccess;
	d = &p->dstPtr;
	sr = &p->srcPtr;
	if (!d->pitch || !sr->pitch || d->ysize > SIZE_MAX / d->pitch || sr->ysize > SIZE_MAX / sr->pitch)
		return thd_ret(hipErrorInvalidValue);
	dslice = d->pitch * d->ysize;
	sslice = sr->pitch * sr->ysize;
	if ((p->dstPos.z && p->dstPos.z > SIZE_MAX / (dslice ? dslice : 1)) ||
	    (p->srcPos.z && p->srcPos.z > SIZE_MAX / (sslice ? sslice : 1)) ||
	    p->dstPos.y > SIZE_MAX / d->pitch || p->srcPos.y > SIZE_MAX / sr->pitch)
		return thd_ret(hipErrorInvalidValue);
	return thd_copy3d_on((uint8_t *)d->ptr + p->dstPos.z * dslice + p->dstPos.y * d->pitch +
	                         p->dstPos.x,
	                     d->pitch, dslice,
	                     (const uint8_t *)sr->ptr + p->srcPos.z * sslice + p->srcPos.y * sr->pitch +
	                         p->srcPos.x,
	                     sr->pitch, sslice, p->extent.width, p->extent.height, p->extent.depth,
	                     stream);
}

THD_EXPORT hipError_t hipMemcpy3D(const struct hipMemcpy3DParms *p)
{
	return thd_copy3d_parms(p, NULL);
}

/* clr's hipMemcpy3D_spt: hipMemcpy3D on the per-thread default stream. */
THD_EXPORT hipError_t hipMemcpy3D_spt(const struct hipMemcpy3DParms *p)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, thd_copy3d_parms(p, s));
}

THD_EXPORT hipError_t hipMemcpy3DAsync(const struct hipMemcpy3DParms *p, hipStream_t stream)
{
	return thd_copy3d_parms(p, stream);
}

/* hipMemcpyParam2D(Async): each side by its memory type; host and device
 * pointers alike are rows at x + y x pitch; an array side: thd_array.c. */
static hipError_t thd_param2d(const hip_Memcpy2D *p, hipStream_t stream)
{
	const uint8_t *src;
	uint8_t *dst;

	if (!p)
		return thd_ret(hipErrorInvalidValue);
	if (p->srcMemoryType == hipMemoryTypeArray || p->dstMemoryType == hipMemoryTypeArray)
		return thd_array_param2d(p, stream);
	if (!p->WidthInBytes || !p->Height)
		return hipSuccess;
	if (!p->srcPitch || !p->dstPitch || p->srcY > SIZE_MAX / p->srcPitch ||
	    p->dstY > SIZE_MAX / p->dstPitch)
		return thd_ret(hipErrorInvalidValue);
	src = p->srcMemoryType == hipMemoryTypeHost ? (const uint8_t *)p->srcHost
	                                            : (const uint8_t *)p->srcDevice;
	dst = p->dstMemoryType == hipMemoryTypeHost ? (uint8_t *)p->dstHost : (uint8_t *)p->dstDevice;
	if (!src || !dst)
		return thd_ret(hipErrorInvalidValue);
	return thd_copy3d_on(dst + p->dstY * p->dstPitch + p->dstXInBytes, p->dstPitch, 0,
	                     src + p->srcY * p->srcPitch + p->srcXInBytes, p->srcPitch, 0,
	                     p->WidthInBytes, p->Height, 1, stream);
}

THD_EXPORT hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)
{
	return thd_param2d(pCopy, NULL);
}

THD_EXPORT hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)
{
	return thd_param2d(pCopy, stream);
}

/* clr (hip_peer.cpp): a device number outside [0, device count) is
 * hipErrorInvalidDevice; otherwise the copy is hipMemcpy(Async) device to
 * device, the same device on both sides included (the double's devices
 * share one memory). */
THD_EXPORT hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId,
                                    size_t n)
{
	if (!thd_device_ok(dstDeviceId) || !thd_device_ok(srcDeviceId))
		return thd_ret(hipErrorInvalidDevice);
	return hipMemcpy(dst, src, n, hipMemcpyDeviceToDevice);
}

THD_EXPORT hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
                                         size_t n, hipStream_t stream)
{
	if (!thd_device_ok(dstDeviceId) || !thd_device_ok(srcDevice))
		return thd_ret(hipErrorInvalidDevice);
	return hipMemcpyAsync(dst, src, n, hipMemcpyDeviceToDevice, stream);
}
