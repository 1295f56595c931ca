/*
 * tsinfo_memory.c - tsinfo --memory: the memory a traced program held,
 * over time, per device and kind; the peak and when; what was still live
 * at the end of the trace, with the host call stacks that allocated it.
 *
 * The model (docs/tsinfo.md "--memory" says the same for readers):
 *
 *   CUDA   cuMemAlloc (device), cuMemAllocPitch (pitch), cuMemAllocAsync
 *          (async), cuMemAllocFromPoolAsync (pool), cuMemAllocManaged
 *          (managed), cuMemCreate (vmm: the physical memory, held until
 *          cuMemRelease and the cuMemUnmap of its last mapping, whichever
 *          comes last; reserving address ranges holds none),
 *          cuModuleGetGlobal and cuLibraryGetGlobal (global: counted from
 *          the first lookup of an address until its module or library is
 *          unloaded), and on the host cuMemAllocHost (host), cuMemHostAlloc
 *          (host-alloc), cuMemHostRegister (host-register).  Ended by
 *          cuMemFree, cuMemFreeAsync, cuMemFreeHost, cuMemHostUnregister,
 *          and for what was allocated in a context by its teardown:
 *          cuCtxDestroy, cuDevicePrimaryCtxReset, and the
 *          cuDevicePrimaryCtxRelease that drops the last reference to a
 *          primary context (the driver frees a context's memory with it).
 *          Device memory belongs to the device of the calling thread's
 *          current context (cuCtxCreate, Set/Push/PopCurrent; a thread
 *          that set none uses the context made or made current last, as
 *          the CUDA runtime's threads do), or for cuMemCreate to the
 *          location it names; host memory to "host".  A cuda.tsSnapshot
 *          of memory no recorded allocation holds is memory allocated
 *          before the trace began: counted from there.
 *   Vulkan vkAllocateMemory / vkFreeMemory, per VkDevice and memory type;
 *          the type's heap and property flags, and the device's name,
 *          when the trace holds vkGetPhysicalDeviceMemoryProperties(2) and
 *          vkGetPhysicalDeviceProperties(2) of its physical device.
 *
 * Failed calls change nothing.  A trimmed trace's state snapshot (between
 * WINDOW and SNAPSHOT_END) is memory from before the window: counted, and
 * marked so.  A periodic snapshot of a whole-run capture (a KEYFRAME
 * "snapshot" marker up to its SNAPSHOT_END) re-creates objects the trace
 * already holds, and is skipped.  Times are the records' (host time of the
 * call, nanoseconds since the trace's start); "in use" is what the calls
 * made so far hold, in sequence order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "serializer/sbt_vk.h"
#include "serializer/tools/tsinfo.h"

/* ---- kinds ------------------------------------------------------------ */

/* X(enum suffix, name shown, on the host) */
#define TSI_MEM_KIND_LIST(X)                                                   \
	X(DEVICE, "device", 0) X(PITCH, "pitch", 0) X(ASYNC, "async", 0)           \
	X(POOL, "pool", 0) X(MANAGED, "managed", 0) X(VMM, "vmm", 0)               \
	X(GLOBAL, "global", 0) X(HOST, "host", 1) X(HOST_ALLOC, "host-alloc", 1)   \
	X(HOST_REGISTER, "host-register", 1) X(VK, "memory type", 0)

typedef enum {
#define TSI_MEM_X_ENUM(e, name, host) TSI_MK_##e,
	TSI_MEM_KIND_LIST(TSI_MEM_X_ENUM)
#undef TSI_MEM_X_ENUM
	TSI_MK_COUNT
} tsi_mem_kind;

static const char *const tsi_mem_kind_names[] = {
#define TSI_MEM_X_NAME(e, name, host) name,
	TSI_MEM_KIND_LIST(TSI_MEM_X_NAME)
#undef TSI_MEM_X_NAME
};

static const uint8_t tsi_mem_kind_host[] = {
#define TSI_MEM_X_HOST(e, name, host) host,
	TSI_MEM_KIND_LIST(TSI_MEM_X_HOST)
#undef TSI_MEM_X_HOST
};

/* What a key names, so that a host pointer, a device pointer, a VMM handle
 * and a VkDeviceMemory of the same value stay apart. */
typedef enum { TSI_NS_DEVPTR = 1, TSI_NS_HOSTPTR, TSI_NS_VMM, TSI_NS_VKMEM } tsi_mem_ns;

/* ---- the model -------------------------------------------------------- */

#define TSI_MEM_NO_DEVICE UINT32_MAX

typedef struct tsi_mem_dev {
	int api;              /* TSI_API_* */
	uint64_t id;          /* CUDA: ordinal (UINT64_MAX unknown); Vulkan: VkDevice */
	uint64_t phys;        /* Vulkan: its VkPhysicalDevice, 0 unknown */
	uint64_t in_use, peak, peak_seq, peak_time;
	uint32_t index;       /* in the order first seen (tsi_mem_sort) */
} tsi_mem_dev;

enum { TSI_API_CUDA, TSI_API_HOST, TSI_API_VULKAN };

/* The allocations of one kind (one memory type on Vulkan) on one device. */
typedef struct tsi_mem_group {
	uint32_t dev;
	uint8_t kind;
	uint32_t vk_type;     /* Vulkan memory type index */
	uint64_t allocs, frees, bytes_allocated, in_use, peak, peak_seq, peak_time;
	uint64_t live, live_bytes; /* at the end */
	uint32_t index;       /* in the order first seen (tsi_mem_sort) */
} tsi_mem_group;

typedef struct tsi_mem_alloc {
	uint64_t key;         /* address, VMM handle or VkDeviceMemory */
	uint64_t size, seq, time, thread, free_seq;
	uint64_t ctx;         /* CUDA context it was made in, 0 unknown */
	uint64_t parent;      /* globals: the module or library */
	uint32_t group, stack_id, type;
	uint32_t maps;        /* VMM: live mappings of it */
	uint8_t ns, live;
	uint8_t released;     /* VMM: cuMemRelease came while mapped */
	uint8_t before;       /* 1: in a window's snapshot; 2: a keyframe's older memory */
} tsi_mem_alloc;

/* One change of memory in use, for the timeline. */
typedef struct tsi_mem_event {
	uint64_t seq, time;
	int64_t delta;
	uint64_t dev_in_use;  /* its device's in use after it */
	uint32_t group;
} tsi_mem_event;

typedef struct tsi_mem_ctx {
	uint64_t ctx, device; /* the CUdevice it was made for */
	uint8_t primary;
} tsi_mem_ctx;

typedef struct tsi_mem_thread {
	uint64_t thread;
	uint64_t *v;          /* its context stack; the last is current */
	size_t n, cap;
} tsi_mem_thread;

/* A live cuMemMap of a VMM allocation. */
typedef struct tsi_mem_map {
	uint64_t dst, size;
	uint32_t alloc;       /* index in allocs */
} tsi_mem_map;

typedef struct tsi_mem_devnum {
	uint64_t handle, ordinal; /* cuDeviceGet: CUdevice -> ordinal */
	uint64_t primary_refs;    /* cuDevicePrimaryCtxRetain minus Release */
} tsi_mem_devnum;

typedef struct tsi_mem_vkdev {
	uint64_t device, phys;    /* vkCreateDevice */
} tsi_mem_vkdev;

typedef struct tsi_mem_vkphys {
	uint64_t phys;
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	int has_props;
	VkPhysicalDeviceMemoryProperties props;
} tsi_mem_vkphys;

/* Growable arrays: TSI_PUSH(vec, value) is 0, or -1 when out of memory. */
#define TSI_VEC(T) struct { T *v; size_t n, cap; }
static int tsi_mem_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *nv;

	if (n < *cap)
		return 0;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}
#define TSI_PUSH(vec, val)                                                          \
	(tsi_mem_grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof(*(vec).v)) != 0 \
	     ? -1                                                                       \
	     : ((vec).v[(vec).n++] = (val), 0))

/* Live allocations by (namespace, key): open addressing, linear probing,
 * deletion by backward shift (no tombstones); slots hold index + 1. */
typedef struct tsi_mem_live {
	uint32_t *slots;
	size_t cap, used;     /* cap: a power of two */
} tsi_mem_live;

typedef struct tsi_mem {
	const sbt_reader *r;  /* borrowed */
	TSI_VEC(tsi_mem_dev) devs;
	TSI_VEC(tsi_mem_group) groups;
	TSI_VEC(tsi_mem_alloc) allocs;
	TSI_VEC(tsi_mem_event) events;
	TSI_VEC(tsi_mem_ctx) ctxs;
	TSI_VEC(tsi_mem_thread) threads;
	TSI_VEC(tsi_mem_vkphys) vkphys;
	TSI_VEC(tsi_mem_devnum) devnums;
	TSI_VEC(tsi_mem_vkdev) vkdevs;
	TSI_VEC(tsi_mem_map) maps;
	tsi_mem_live live;
	uint64_t last_ctx;    /* made or made current last, by any thread */
	uint64_t unknown_frees; /* frees of memory the trace never allocated */
	uint64_t first_time, last_time, last_seq, records;
	int16_t *kind_of;     /* record type -> sbt_cm_kind, -1 */
	int32_t *vk_of;       /* record type -> sbt_vk_cmd, -1 */
	size_t ntypes;
	sbt_vk_arena *arena;
	const sbt_record *rec; /* the record being read */
	uint8_t before;       /* tsi_mem_alloc.before for what the record allocates */
	uint32_t snap_hint;   /* index + 1 of the allocation the last snapshot lay in */
} tsi_mem;

static uint64_t tsi_mem_hash(uint64_t key, uint8_t ns)
{
	uint64_t k = key ^ ((uint64_t)ns * 0x9e3779b97f4a7c15ull);
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* Index + 1 of the live allocation (ns, key), or 0; *slot_out its slot. */
static uint32_t tsi_mem_live_find(const tsi_mem *m, uint8_t ns, uint64_t key, size_t *slot_out)
{
	size_t mask = m->live.cap - 1, i;

	if (!m->live.cap)
		return 0;
	for (i = tsi_mem_hash(key, ns) & mask; m->live.slots[i]; i = (i + 1) & mask) {
		const tsi_mem_alloc *a = &m->allocs.v[m->live.slots[i] - 1];
		if (a->key == key && a->ns == ns) {
			if (slot_out)
				*slot_out = i;
			return m->live.slots[i];
		}
	}
	return 0;
}

static int tsi_mem_live_put(tsi_mem *m, uint32_t idx1)
{
	const tsi_mem_alloc *a = &m->allocs.v[idx1 - 1];
	size_t i, mask;

	if ((m->live.used + 1) * 2 > m->live.cap) {
		size_t ncap = m->live.cap ? m->live.cap * 2 : 256, j;
		uint32_t *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return -1;
		for (j = 0; j < m->live.cap; j++) {
			const tsi_mem_alloc *b;
			if (!m->live.slots[j])
				continue;
			b = &m->allocs.v[m->live.slots[j] - 1];
			for (i = tsi_mem_hash(b->key, b->ns) & (ncap - 1); ns[i]; i = (i + 1) & (ncap - 1))
				;
			ns[i] = m->live.slots[j];
		}
		free(m->live.slots);
		m->live.slots = ns;
		m->live.cap = ncap;
	}
	mask = m->live.cap - 1;
	for (i = tsi_mem_hash(a->key, a->ns) & mask; m->live.slots[i]; i = (i + 1) & mask)
		;
	m->live.slots[i] = idx1;
	m->live.used++;
	return 0;
}

static void tsi_mem_live_remove(tsi_mem *m, size_t slot)
{
	size_t mask = m->live.cap - 1, i = slot, j = slot;

	m->live.slots[i] = 0;
	m->live.used--;
	for (;;) {
		const tsi_mem_alloc *b;
		size_t home;
		j = (j + 1) & mask;
		if (!m->live.slots[j])
			return;
		b = &m->allocs.v[m->live.slots[j] - 1];
		home = tsi_mem_hash(b->key, b->ns) & mask;
		/* move j back to the hole at i unless its home lies in (i, j] */
		if ((i <= j) ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->live.slots[i] = m->live.slots[j];
		m->live.slots[j] = 0;
		i = j;
	}
}

/* ---- devices and groups ----------------------------------------------- */

static uint32_t tsi_mem_dev_of(tsi_mem *m, int api, uint64_t id)
{
	tsi_mem_dev d = { 0 };
	size_t i;

	for (i = 0; i < m->devs.n; i++)
		if (m->devs.v[i].api == api && m->devs.v[i].id == id)
			return (uint32_t)i;
	d.api = api;
	d.id = id;
	d.index = (uint32_t)m->devs.n;
	if (api == TSI_API_VULKAN)
		for (i = 0; i < m->vkdevs.n; i++)
			if (m->vkdevs.v[i].device == id)
				d.phys = m->vkdevs.v[i].phys;
	return TSI_PUSH(m->devs, d) == 0 ? (uint32_t)(m->devs.n - 1) : TSI_MEM_NO_DEVICE;
}

static uint32_t tsi_mem_group_of(tsi_mem *m, uint32_t dev, tsi_mem_kind kind, uint32_t vk_type)
{
	tsi_mem_group g = { 0 };
	size_t i;

	for (i = 0; i < m->groups.n; i++)
		if (m->groups.v[i].dev == dev && m->groups.v[i].kind == kind &&
		    m->groups.v[i].vk_type == vk_type)
			return (uint32_t)i;
	g.dev = dev;
	g.kind = (uint8_t)kind;
	g.vk_type = vk_type;
	g.index = (uint32_t)m->groups.n;
	return TSI_PUSH(m->groups, g) == 0 ? (uint32_t)(m->groups.n - 1) : TSI_MEM_NO_DEVICE;
}

/* Memory in use changes by delta for allocation a, at the current record. */
static int tsi_mem_change(tsi_mem *m, const tsi_mem_alloc *a, int64_t delta)
{
	tsi_mem_group *g = &m->groups.v[a->group];
	tsi_mem_dev *d = &m->devs.v[g->dev];
	tsi_mem_event ev;

	g->in_use += (uint64_t)delta;
	d->in_use += (uint64_t)delta;
	if (delta > 0 && g->in_use > g->peak) {
		g->peak = g->in_use;
		g->peak_seq = m->rec->seq;
		g->peak_time = m->rec->time_ns;
	}
	if (delta > 0 && d->in_use > d->peak) {
		d->peak = d->in_use;
		d->peak_seq = m->rec->seq;
		d->peak_time = m->rec->time_ns;
	}
	ev.seq = m->rec->seq;
	ev.time = m->rec->time_ns;
	ev.delta = delta;
	ev.dev_in_use = d->in_use;
	ev.group = a->group;
	return TSI_PUSH(m->events, ev);
}

static int tsi_mem_end_slot(tsi_mem *m, size_t slot);

/* A new live allocation in group of the current record. */
static int tsi_mem_add(tsi_mem *m, uint8_t ns, uint64_t key, uint64_t size, uint32_t group,
                       uint64_t ctx, uint64_t parent)
{
	tsi_mem_alloc a = { 0 };
	size_t slot;
	uint32_t old;

	if (group == TSI_MEM_NO_DEVICE)
		return -1;
	/* the same key allocated again without a free we saw: the old one
	 * ended unseen (say a free that failed to be recorded) */
	old = tsi_mem_live_find(m, ns, key, &slot);
	if (old && tsi_mem_end_slot(m, slot) != 0)
		return -1;
	a.key = key;
	a.ns = ns;
	a.size = size;
	a.seq = m->rec->seq;
	a.time = m->rec->time_ns;
	a.thread = m->rec->thread;
	a.stack_id = m->rec->stack_id;
	a.type = m->rec->type;
	a.group = group;
	a.ctx = ctx;
	a.parent = parent;
	a.live = 1;
	a.before = m->before;
	if (TSI_PUSH(m->allocs, a) != 0 || tsi_mem_live_put(m, (uint32_t)m->allocs.n) != 0)
		return -1;
	m->groups.v[group].allocs++;
	m->groups.v[group].bytes_allocated += size;
	return tsi_mem_change(m, &m->allocs.v[m->allocs.n - 1], (int64_t)size);
}

/* Allocation a ends at the current record. */
static int tsi_mem_finish(tsi_mem *m, tsi_mem_alloc *a)
{
	a->live = 0;
	a->free_seq = m->rec->seq;
	m->groups.v[a->group].frees++;
	return tsi_mem_change(m, a, -(int64_t)a->size);
}

/* The live allocation at slot ends at the current record. */
static int tsi_mem_end_slot(tsi_mem *m, size_t slot)
{
	tsi_mem_alloc *a = &m->allocs.v[m->live.slots[slot] - 1];

	tsi_mem_live_remove(m, slot);
	return tsi_mem_finish(m, a);
}

static int tsi_mem_end(tsi_mem *m, uint8_t ns, uint64_t key)
{
	size_t slot;

	if (!tsi_mem_live_find(m, ns, key, &slot)) {
		if (key)
			m->unknown_frees++;
		return 0;
	}
	return tsi_mem_end_slot(m, slot);
}

/* Ends every live allocation for which match(a, value) holds (context
 * teardown, module unload: rare, so a walk of the table is fine). */
static int tsi_mem_end_where(tsi_mem *m, int (*match)(const tsi_mem *, const tsi_mem_alloc *, uint64_t),
                             uint64_t value)
{
	size_t i = 0;

	while (i < m->live.cap) {
		if (m->live.slots[i] && match(m, &m->allocs.v[m->live.slots[i] - 1], value)) {
			if (tsi_mem_end_slot(m, i) != 0)
				return -1;
			continue; /* the shift may have moved another entry here */
		}
		i++;
	}
	return 0;
}

/* ---- CUDA ------------------------------------------------------------- */

static tsi_mem_thread *tsi_mem_thread_of(tsi_mem *m, uint64_t thread)
{
	tsi_mem_thread t = { 0 };
	size_t i;

	for (i = 0; i < m->threads.n; i++)
		if (m->threads.v[i].thread == thread)
			return &m->threads.v[i];
	t.thread = thread;
	return TSI_PUSH(m->threads, t) == 0 ? &m->threads.v[m->threads.n - 1] : NULL;
}

static int tsi_mem_ctx_push(tsi_mem_thread *t, uint64_t ctx)
{
	return TSI_PUSH(*t, ctx);
}

/* The current context of the record's thread (see the top comment). */
static uint64_t tsi_mem_current_ctx(tsi_mem *m)
{
	size_t i;

	for (i = 0; i < m->threads.n; i++)
		if (m->threads.v[i].thread == m->rec->thread && m->threads.v[i].n)
			return m->threads.v[i].v[m->threads.v[i].n - 1];
	return m->last_ctx;
}

/* The entry of a CUdevice, made when new; NULL when out of memory. */
static tsi_mem_devnum *tsi_mem_devnum_of(tsi_mem *m, uint64_t cudevice)
{
	tsi_mem_devnum dn = { cudevice, cudevice, 0 };
	size_t i;

	for (i = 0; i < m->devnums.n; i++)
		if (m->devnums.v[i].handle == cudevice)
			return &m->devnums.v[i];
	return TSI_PUSH(m->devnums, dn) == 0 ? &m->devnums.v[m->devnums.n - 1] : NULL;
}

static uint64_t tsi_mem_ordinal(const tsi_mem *m, uint64_t cudevice)
{
	size_t i;

	for (i = 0; i < m->devnums.n; i++)
		if (m->devnums.v[i].handle == cudevice)
			return m->devnums.v[i].ordinal;
	return cudevice; /* CUdevice is the ordinal in every driver we know */
}

static uint64_t tsi_mem_ctx_ordinal(const tsi_mem *m, uint64_t ctx)
{
	size_t i;

	for (i = m->ctxs.n; i-- > 0;)
		if (m->ctxs.v[i].ctx == ctx)
			return tsi_mem_ordinal(m, m->ctxs.v[i].device);
	return UINT64_MAX;
}

static int tsi_mem_in_ctx(const tsi_mem *m, const tsi_mem_alloc *a, uint64_t ctx)
{
	(void)m;
	return a->ctx == ctx && (a->ns == TSI_NS_DEVPTR || a->ns == TSI_NS_HOSTPTR);
}

static int tsi_mem_in_module(const tsi_mem *m, const tsi_mem_alloc *a, uint64_t module)
{
	return m->groups.v[a->group].kind == TSI_MK_GLOBAL && a->parent == module;
}

/* cuDevicePrimaryCtxReset(device): the primary contexts of that device. */
static int tsi_mem_in_primary_of(const tsi_mem *m, const tsi_mem_alloc *a, uint64_t device)
{
	size_t i;

	if (!a->ctx || (a->ns != TSI_NS_DEVPTR && a->ns != TSI_NS_HOSTPTR))
		return 0;
	for (i = 0; i < m->ctxs.n; i++)
		if (m->ctxs.v[i].ctx == a->ctx)
			return m->ctxs.v[i].primary && m->ctxs.v[i].device == device;
	return 0;
}

static tsi_mem_kind tsi_mem_kind_of_sub(uint64_t sub)
{
	switch (sub) {
	case SBT_CM_MEM_PITCH: return TSI_MK_PITCH;
	case SBT_CM_MEM_ASYNC: return TSI_MK_ASYNC;
	case SBT_CM_MEM_POOL: return TSI_MK_POOL;
	case SBT_CM_MEM_MANAGED: return TSI_MK_MANAGED;
	case SBT_CM_MEM_HOST: return TSI_MK_HOST;
	case SBT_CM_MEM_HOST_ALLOC: return TSI_MK_HOST_ALLOC;
	case SBT_CM_MEM_HOST_REGISTER: return TSI_MK_HOST_REGISTER;
	case SBT_CM_MEM_VMM_HANDLE:
	case SBT_CM_MEM_VMM_MAP: return TSI_MK_VMM;
	case SBT_CM_MEM_GLOBAL: return TSI_MK_GLOBAL;
	default: return TSI_MK_DEVICE;
	}
}

/* An allocation of kind by the current record, in the current context. */
static int tsi_mem_cuda_alloc(tsi_mem *m, tsi_mem_kind kind, uint64_t key, uint64_t size,
                              uint64_t parent)
{
	uint64_t ctx = tsi_mem_current_ctx(m);
	uint32_t dev = tsi_mem_kind_host[kind]
	                   ? tsi_mem_dev_of(m, TSI_API_HOST, 0)
	                   : tsi_mem_dev_of(m, TSI_API_CUDA, tsi_mem_ctx_ordinal(m, ctx));

	if (dev == TSI_MEM_NO_DEVICE)
		return -1;
	return tsi_mem_add(m, tsi_mem_kind_host[kind] ? TSI_NS_HOSTPTR : TSI_NS_DEVPTR, key, size,
	                   tsi_mem_group_of(m, dev, kind, 0), ctx, parent);
}

/* Whether addr lies in a live allocation of namespace ns.  Keyframes name
 * allocations by their base, or in 32 MiB chunks of one allocation in a
 * row, so the exact lookup and the last hit answer nearly every call; the
 * walk of the table is for the rest. */
static int tsi_mem_covered(tsi_mem *m, uint8_t ns, uint64_t addr)
{
	const tsi_mem_alloc *a;
	size_t i;

	if (tsi_mem_live_find(m, ns, addr, NULL))
		return 1;
	if (m->snap_hint) {
		a = &m->allocs.v[m->snap_hint - 1];
		if (a->live && a->ns == ns && addr >= a->key && addr - a->key < a->size)
			return 1;
	}
	for (i = 0; i < m->live.cap; i++) {
		if (!m->live.slots[i])
			continue;
		a = &m->allocs.v[m->live.slots[i] - 1];
		if (a->ns == ns && addr >= a->key && addr - a->key < a->size) {
			m->snap_hint = m->live.slots[i];
			return 1;
		}
	}
	return 0;
}

/* A keyframe's tsSnapshot of memory no recorded allocation holds: older
 * than the trace.  Capture writes big allocations in chunks of 32 MiB, so
 * a chunk that continues the previous such allocation extends it. */
static int tsi_mem_snapshot(tsi_mem *m, const sbt_cm_call *c)
{
	tsi_mem_kind kind = tsi_mem_kind_of_sub(c->sub);
	uint8_t ns = tsi_mem_kind_host[kind] ? TSI_NS_HOSTPTR : TSI_NS_DEVPTR;
	size_t i;

	if (!c->size || tsi_mem_covered(m, ns, c->dst))
		return 0;
	for (i = m->allocs.n; i-- > 0;) {
		tsi_mem_alloc *a = &m->allocs.v[i];
		if (a->before != 2)
			break;
		if (a->live && a->ns == ns && a->key + a->size == c->dst &&
		    m->groups.v[a->group].kind == kind) {
			a->size += c->size;
			m->groups.v[a->group].bytes_allocated += c->size;
			return tsi_mem_change(m, a, (int64_t)c->size);
		}
	}
	m->before = 2;
	if (tsi_mem_cuda_alloc(m, kind, c->dst, c->size, 0) != 0)
		return -1;
	m->allocs.v[m->allocs.n - 1].ctx = 0; /* made in a context the trace may not know */
	return 0;
}

/* cuMemRelease: the handle goes (its value may come back from a later
 * cuMemCreate); the memory stays while a mapping holds it. */
static int tsi_mem_vmm_release(tsi_mem *m, uint64_t handle)
{
	size_t slot;
	uint32_t idx1 = tsi_mem_live_find(m, TSI_NS_VMM, handle, &slot);
	tsi_mem_alloc *a;

	if (!idx1) {
		if (handle)
			m->unknown_frees++;
		return 0;
	}
	a = &m->allocs.v[idx1 - 1];
	tsi_mem_live_remove(m, slot);
	if (a->maps) {
		a->released = 1;
		return 0;
	}
	return tsi_mem_finish(m, a);
}

static int tsi_mem_vmm_map(tsi_mem *m, const sbt_cm_call *c)
{
	uint32_t idx1 = tsi_mem_live_find(m, TSI_NS_VMM, c->handle, NULL);
	tsi_mem_map x;

	if (!idx1)
		return 0; /* a handle made before the trace: not counted */
	x.dst = c->dst;
	x.size = c->size;
	x.alloc = idx1 - 1;
	m->allocs.v[idx1 - 1].maps++;
	return TSI_PUSH(m->maps, x);
}

/* cuMemUnmap of [dst, dst + size): the mappings in it end; a released
 * allocation with no mapping left ends too. */
static int tsi_mem_vmm_unmap(tsi_mem *m, uint64_t dst, uint64_t size)
{
	size_t i = 0;

	while (i < m->maps.n) {
		tsi_mem_map *x = &m->maps.v[i];
		tsi_mem_alloc *a;
		if (x->dst < dst || x->dst - dst >= size) {
			i++;
			continue;
		}
		a = &m->allocs.v[x->alloc];
		*x = m->maps.v[--m->maps.n];
		if (--a->maps == 0 && a->released && tsi_mem_finish(m, a) != 0)
			return -1;
	}
	return 0;
}

static int tsi_mem_cuda(tsi_mem *m, sbt_cm_kind k, const sbt_cm_call *c)
{
	tsi_mem_thread *t;
	tsi_mem_ctx x;
	tsi_mem_devnum *dn;

	if (c->result != 0)
		return 0;
	switch (k) {
	case SBT_CM_K_cuDeviceGet:
		dn = tsi_mem_devnum_of(m, (uint64_t)c->device);
		if (!dn)
			return -1;
		dn->ordinal = c->value;
		return 0;
	case SBT_CM_K_cuCtxCreate:
	case SBT_CM_K_cuDevicePrimaryCtxRetain:
		if (!c->ctx)
			return 0;
		x.ctx = c->ctx;
		x.device = (uint64_t)c->device;
		x.primary = k == SBT_CM_K_cuDevicePrimaryCtxRetain;
		if (TSI_PUSH(m->ctxs, x) != 0)
			return -1;
		if (x.primary) {
			dn = tsi_mem_devnum_of(m, x.device);
			if (!dn)
				return -1;
			dn->primary_refs++;
		}
		if (k == SBT_CM_K_cuDevicePrimaryCtxRetain && m->last_ctx)
			return 0;
		m->last_ctx = c->ctx;
		if (k != SBT_CM_K_cuCtxCreate)
			return 0;
		t = tsi_mem_thread_of(m, m->rec->thread); /* cuCtxCreate makes it current */
		return t ? tsi_mem_ctx_push(t, c->ctx) : -1;
	case SBT_CM_K_cuCtxSetCurrent:
	case SBT_CM_K_cuCtxPushCurrent:
	case SBT_CM_K_cuCtxPopCurrent:
		t = tsi_mem_thread_of(m, m->rec->thread);
		if (!t)
			return -1;
		if (k != SBT_CM_K_cuCtxPushCurrent && t->n)
			t->n--; /* pop, or set: replaces the top */
		if (k == SBT_CM_K_cuCtxPopCurrent)
			return 0;
		if (c->ctx)
			m->last_ctx = c->ctx;
		return c->ctx || k == SBT_CM_K_cuCtxPushCurrent ? tsi_mem_ctx_push(t, c->ctx) : 0;
	case SBT_CM_K_cuCtxDestroy:
		return tsi_mem_end_where(m, tsi_mem_in_ctx, c->ctx);
	case SBT_CM_K_cuDevicePrimaryCtxReset:
		return tsi_mem_end_where(m, tsi_mem_in_primary_of, (uint64_t)c->device);
	case SBT_CM_K_cuDevicePrimaryCtxRelease:
		dn = tsi_mem_devnum_of(m, (uint64_t)c->device);
		if (!dn)
			return -1;
		if (!dn->primary_refs || --dn->primary_refs)
			return 0;
		return tsi_mem_end_where(m, tsi_mem_in_primary_of, (uint64_t)c->device);
	case SBT_CM_K_cuMemAlloc: return tsi_mem_cuda_alloc(m, TSI_MK_DEVICE, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocPitch: return tsi_mem_cuda_alloc(m, TSI_MK_PITCH, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocAsync: return tsi_mem_cuda_alloc(m, TSI_MK_ASYNC, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocFromPoolAsync:
		return tsi_mem_cuda_alloc(m, TSI_MK_POOL, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocManaged:
		return tsi_mem_cuda_alloc(m, TSI_MK_MANAGED, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocHost: return tsi_mem_cuda_alloc(m, TSI_MK_HOST, c->host, c->size, 0);
	case SBT_CM_K_cuMemHostAlloc:
		return tsi_mem_cuda_alloc(m, TSI_MK_HOST_ALLOC, c->host, c->size, 0);
	case SBT_CM_K_cuMemHostRegister:
		return tsi_mem_cuda_alloc(m, TSI_MK_HOST_REGISTER, c->host, c->size, 0);
	case SBT_CM_K_cuModuleGetGlobal:
	case SBT_CM_K_cuLibraryGetGlobal:
		if (!c->size || tsi_mem_live_find(m, TSI_NS_DEVPTR, c->dst, NULL))
			return 0; /* looked up again */
		return tsi_mem_cuda_alloc(m, TSI_MK_GLOBAL, c->dst, c->size, c->parent);
	case SBT_CM_K_cuModuleUnload:
	case SBT_CM_K_cuLibraryUnload:
		return tsi_mem_end_where(m, tsi_mem_in_module, c->handle);
	case SBT_CM_K_cuMemFree:
	case SBT_CM_K_cuMemFreeAsync: return tsi_mem_end(m, TSI_NS_DEVPTR, c->dst);
	case SBT_CM_K_cuMemFreeHost:
	case SBT_CM_K_cuMemHostUnregister: return tsi_mem_end(m, TSI_NS_HOSTPTR, c->host);
	case SBT_CM_K_cuMemCreate: {
		uint32_t dev = tsi_mem_dev_of(m, TSI_API_CUDA, (uint64_t)c->device);
		if (dev == TSI_MEM_NO_DEVICE)
			return -1;
		return tsi_mem_add(m, TSI_NS_VMM, c->handle, c->size,
		                   tsi_mem_group_of(m, dev, TSI_MK_VMM, 0), 0, 0);
	}
	case SBT_CM_K_cuMemRelease: return tsi_mem_vmm_release(m, c->handle);
	case SBT_CM_K_cuMemMap: return tsi_mem_vmm_map(m, c);
	case SBT_CM_K_cuMemUnmap: return tsi_mem_vmm_unmap(m, c->dst, c->size);
	case SBT_CM_K_tsSnapshot: return tsi_mem_snapshot(m, c);
	default: return 0;
	}
}

/* ---- Vulkan ----------------------------------------------------------- */

static tsi_mem_vkphys *tsi_mem_vkphys_of(tsi_mem *m, uint64_t phys)
{
	tsi_mem_vkphys p;
	size_t i;

	for (i = 0; i < m->vkphys.n; i++)
		if (m->vkphys.v[i].phys == phys)
			return &m->vkphys.v[i];
	memset(&p, 0, sizeof(p));
	p.phys = phys;
	return TSI_PUSH(m->vkphys, p) == 0 ? &m->vkphys.v[m->vkphys.n - 1] : NULL;
}

static int tsi_mem_vk_props(tsi_mem *m, uint64_t phys, const VkPhysicalDeviceProperties *p)
{
	tsi_mem_vkphys *x = tsi_mem_vkphys_of(m, phys);

	if (!x)
		return -1;
	memcpy(x->name, p->deviceName, sizeof(x->name));
	x->name[sizeof(x->name) - 1] = 0;
	return 0;
}

static int tsi_mem_vk_memprops(tsi_mem *m, uint64_t phys, const VkPhysicalDeviceMemoryProperties *p)
{
	tsi_mem_vkphys *x = tsi_mem_vkphys_of(m, phys);

	if (!x)
		return -1;
	x->props = *p;
	if (x->props.memoryTypeCount > VK_MAX_MEMORY_TYPES)
		x->props.memoryTypeCount = VK_MAX_MEMORY_TYPES;
	if (x->props.memoryHeapCount > VK_MAX_MEMORY_HEAPS)
		x->props.memoryHeapCount = VK_MAX_MEMORY_HEAPS;
	x->has_props = 1;
	return 0;
}

/* 0, -1 out of memory; a payload that does not decode is skipped (tsinfo
 * --dump shows it). */
static int tsi_mem_vulkan(tsi_mem *m, enum sbt_vk_cmd cmd)
{
	const sbt_record *rec = m->rec;
	union {
		sbt_vk_args_vkCreateDevice cd;
		sbt_vk_args_vkGetPhysicalDeviceProperties gp;
		sbt_vk_args_vkGetPhysicalDeviceProperties2 gp2;
		sbt_vk_args_vkGetPhysicalDeviceMemoryProperties mp;
		sbt_vk_args_vkGetPhysicalDeviceMemoryProperties2 mp2;
		sbt_vk_args_vkAllocateMemory am;
		sbt_vk_args_vkFreeMemory fm;
	} a;
	int rc = 0;

	sbt_vk_arena_reset(m->arena);
	memset(&a, 0, sizeof(a));
	if (sbt_vk_decode(cmd, rec->payload, rec->payload_len, m->arena, &a, NULL) != SBT_VK_OK)
		return 0;
	switch (cmd) {
	case SBT_VK_CMD_vkCreateDevice:
		if (a.cd.ret == VK_SUCCESS && a.cd.pDevice && *a.cd.pDevice) {
			tsi_mem_vkdev vd = { (uint64_t)(uintptr_t)*a.cd.pDevice,
			                     (uint64_t)(uintptr_t)a.cd.physicalDevice };
			rc = TSI_PUSH(m->vkdevs, vd);
		}
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceProperties:
		if (a.gp.pProperties)
			rc = tsi_mem_vk_props(m, (uint64_t)(uintptr_t)a.gp.physicalDevice, a.gp.pProperties);
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceProperties2:
	case SBT_VK_CMD_vkGetPhysicalDeviceProperties2KHR:
		if (a.gp2.pProperties)
			rc = tsi_mem_vk_props(m, (uint64_t)(uintptr_t)a.gp2.physicalDevice,
			                      &a.gp2.pProperties->properties);
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties:
		if (a.mp.pMemoryProperties)
			rc = tsi_mem_vk_memprops(m, (uint64_t)(uintptr_t)a.mp.physicalDevice,
			                         a.mp.pMemoryProperties);
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties2:
	case SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties2KHR:
		if (a.mp2.pMemoryProperties)
			rc = tsi_mem_vk_memprops(m, (uint64_t)(uintptr_t)a.mp2.physicalDevice,
			                         &a.mp2.pMemoryProperties->memoryProperties);
		break;
	case SBT_VK_CMD_vkAllocateMemory: {
		uint32_t dev;
		if (a.am.ret != VK_SUCCESS || !a.am.pAllocateInfo || !a.am.pMemory || !*a.am.pMemory)
			break;
		dev = tsi_mem_dev_of(m, TSI_API_VULKAN, (uint64_t)(uintptr_t)a.am.device);
		if (dev == TSI_MEM_NO_DEVICE)
			return -1;
		rc = tsi_mem_add(m, TSI_NS_VKMEM, (uint64_t)*a.am.pMemory,
		                 a.am.pAllocateInfo->allocationSize,
		                 tsi_mem_group_of(m, dev, TSI_MK_VK, a.am.pAllocateInfo->memoryTypeIndex),
		                 0, 0);
		break;
	}
	case SBT_VK_CMD_vkFreeMemory:
		rc = tsi_mem_end(m, TSI_NS_VKMEM, (uint64_t)a.fm.memory);
		break;
	default:
		break;
	}
	return rc;
}

/* ---- reading the trace ------------------------------------------------ */

/* Which record types are CUDA calls and which Vulkan commands we read. */
static int tsi_mem_types(tsi_mem *m)
{
	static const enum sbt_vk_cmd vk_cmds[] = {
		SBT_VK_CMD_vkCreateDevice, SBT_VK_CMD_vkGetPhysicalDeviceProperties,
		SBT_VK_CMD_vkGetPhysicalDeviceProperties2, SBT_VK_CMD_vkGetPhysicalDeviceProperties2KHR,
		SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties,
		SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties2,
		SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties2KHR, SBT_VK_CMD_vkAllocateMemory,
		SBT_VK_CMD_vkFreeMemory
	};
	uint32_t type, max = 0;
	const char *name;
	size_t i, j;

	for (i = 0; sbt_reader_type_at(m->r, i, &type, &name) == SBT_OK; i++)
		if (type > max)
			max = type;
	m->ntypes = (size_t)max + 1;
	m->kind_of = malloc(m->ntypes * sizeof(*m->kind_of));
	m->vk_of = malloc(m->ntypes * sizeof(*m->vk_of));
	if (!m->kind_of || !m->vk_of)
		return -1;
	for (i = 0; i < m->ntypes; i++) {
		m->kind_of[i] = -1;
		m->vk_of[i] = -1;
	}
	for (i = 0; sbt_reader_type_at(m->r, i, &type, &name) == SBT_OK; i++) {
		sbt_cm_kind k;
		enum sbt_vk_cmd cmd;
		if (!name)
			continue;
		if (strncmp(name, "cuda.", 5) == 0 && sbt_cm_kind_by_name(name, &k) == 0)
			m->kind_of[type] = (int16_t)k;
		if (strncmp(name, "vulkan.", 7) == 0 && sbt_vk_cmd_by_name(name, &cmd) == 0)
			for (j = 0; j < sizeof(vk_cmds) / sizeof(vk_cmds[0]); j++)
				if (vk_cmds[j] == cmd)
					m->vk_of[type] = (int32_t)cmd;
	}
	return 0;
}

/* Reads every record.  SBT_OK at the end; SBT_ERR_NOMEM; or the reader's
 * error at damage (what came before it is kept). */
static sbt_status tsi_mem_read(tsi_mem *m, sbt_reader *r)
{
	sbt_record rec;
	sbt_status st;
	int window_snapshot = 0, periodic = 0;

	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		sbt_cm_call c;
		m->rec = &rec;
		if (m->records++ == 0) {
			m->first_time = rec.time_ns;
			window_snapshot = rec.type == SBT_TYPE_WINDOW;
		}
		if (rec.time_ns > m->last_time)
			m->last_time = rec.time_ns;
		m->last_seq = rec.seq;
		if (rec.type == SBT_TYPE_SNAPSHOT_END) {
			window_snapshot = periodic = 0;
			continue;
		}
		if (periodic)
			continue;
		if (rec.type == SBT_TYPE_KEYFRAME && !window_snapshot && rec.payload_len >= 8 &&
		    memcmp(rec.payload, "snapshot", 8) == 0) {
			periodic = 1;
			continue;
		}
		m->before = window_snapshot ? 1 : 0;
		if (rec.type >= m->ntypes)
			continue;
		if (m->kind_of[rec.type] >= 0) {
			if (sbt_cm_decode(rec.payload, rec.payload_len, &c) != SBT_OK)
				continue; /* tsinfo --dump shows it */
			if (tsi_mem_cuda(m, (sbt_cm_kind)m->kind_of[rec.type], &c) != 0)
				return SBT_ERR_NOMEM;
		} else if (m->vk_of[rec.type] >= 0) {
			if (tsi_mem_vulkan(m, (enum sbt_vk_cmd)m->vk_of[rec.type]) != 0)
				return SBT_ERR_NOMEM;
		}
	}
	m->rec = NULL;
	return st == SBT_END ? SBT_OK : st;
}

static void tsi_mem_free(tsi_mem *m)
{
	size_t i;

	for (i = 0; i < m->threads.n; i++)
		free(m->threads.v[i].v);
	free(m->devs.v);
	free(m->groups.v);
	free(m->allocs.v);
	free(m->events.v);
	free(m->ctxs.v);
	free(m->threads.v);
	free(m->vkphys.v);
	free(m->devnums.v);
	free(m->vkdevs.v);
	free(m->maps.v);
	free(m->live.slots);
	free(m->kind_of);
	free(m->vk_of);
	sbt_vk_arena_free(m->arena);
}

/* ---- output ----------------------------------------------------------- */

/* "GPU 0", "host", "VkDevice 0x..." and with named, the Vulkan device's name. */
static void tsi_mem_dev_label_as(const tsi_mem *m, const tsi_mem_dev *d, int named, char *out,
                                 size_t n)
{
	size_t i;

	if (d->api == TSI_API_HOST) {
		snprintf(out, n, "host");
	} else if (d->api == TSI_API_CUDA) {
		if (d->id == UINT64_MAX)
			snprintf(out, n, "GPU ? (no context known)");
		else
			snprintf(out, n, "GPU %llu", (unsigned long long)d->id);
	} else {
		const char *name = NULL;
		for (i = 0; i < m->vkphys.n; i++)
			if (m->vkphys.v[i].phys == d->phys && d->phys && m->vkphys.v[i].name[0])
				name = m->vkphys.v[i].name;
		if (name && named)
			snprintf(out, n, "VkDevice 0x%llx (%s)", (unsigned long long)d->id, name);
		else
			snprintf(out, n, "VkDevice 0x%llx", (unsigned long long)d->id);
	}
}

static void tsi_mem_dev_label(const tsi_mem *m, const tsi_mem_dev *d, char *out, size_t n)
{
	tsi_mem_dev_label_as(m, d, 1, out, n);
}

static const VkPhysicalDeviceMemoryProperties *tsi_mem_vk_props_of(const tsi_mem *m, const tsi_mem_dev *d)
{
	size_t i;

	for (i = 0; d->phys && i < m->vkphys.n; i++)
		if (m->vkphys.v[i].phys == d->phys && m->vkphys.v[i].has_props)
			return &m->vkphys.v[i].props;
	return NULL;
}

/* "device", or on Vulkan "memory type 1 (heap 0: device-local host-visible)". */
static void tsi_mem_group_label(const tsi_mem *m, const tsi_mem_group *g, char *out, size_t n)
{
	static const struct { VkMemoryPropertyFlags bit; const char *name; } flags[] = {
		{ VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device-local" },
		{ VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host-visible" },
		{ VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host-coherent" },
		{ VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host-cached" },
		{ VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "lazily-allocated" },
		{ VK_MEMORY_PROPERTY_PROTECTED_BIT, "protected" },
	};
	const VkPhysicalDeviceMemoryProperties *p;
	size_t len, i;

	if (g->kind != TSI_MK_VK) {
		snprintf(out, n, "%s", tsi_mem_kind_names[g->kind]);
		return;
	}
	p = tsi_mem_vk_props_of(m, &m->devs.v[g->dev]);
	snprintf(out, n, "memory type %u", g->vk_type);
	if (!p || g->vk_type >= p->memoryTypeCount)
		return;
	len = strlen(out);
	snprintf(out + len, n - len, " (heap %u:", p->memoryTypes[g->vk_type].heapIndex);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!(p->memoryTypes[g->vk_type].propertyFlags & flags[i].bit))
			continue;
		len = strlen(out);
		snprintf(out + len, n - len, " %s", flags[i].name);
	}
	len = strlen(out);
	snprintf(out + len, n - len, ")");
}

static void tsi_mem_seconds(uint64_t ns, char *out, size_t n)
{
	snprintf(out, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
	         (unsigned long long)(ns % 1000000000u));
}

/* Devices in the order: CUDA GPUs by ordinal, Vulkan devices, host last. */
static int tsi_mem_dev_rank(const tsi_mem_dev *d)
{
	return d->api == TSI_API_CUDA ? 0 : d->api == TSI_API_VULKAN ? 1 : 2;
}

static int tsi_mem_cmp_dev(const void *a, const void *b)
{
	const tsi_mem_dev *x = a, *y = b;
	if (tsi_mem_dev_rank(x) != tsi_mem_dev_rank(y))
		return tsi_mem_dev_rank(x) < tsi_mem_dev_rank(y) ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Groups by device, then kind, then memory type. */
static int tsi_mem_cmp_group(const void *a, const void *b)
{
	const tsi_mem_group *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->vk_type < y->vk_type ? -1 : x->vk_type > y->vk_type;
}

/* Sorts devices and groups for output, renumbering what names them. */
static int tsi_mem_sort(tsi_mem *m)
{
	uint32_t *where = malloc((m->devs.n + m->groups.n + 1) * sizeof(*where));
	size_t i;

	if (!where)
		return -1;
	if (!m->groups.n) /* nothing allocated: no devices either (qsort wants an array) */
		goto out;
	qsort(m->devs.v, m->devs.n, sizeof(*m->devs.v), tsi_mem_cmp_dev);
	for (i = 0; i < m->devs.n; i++)
		where[m->devs.v[i].index] = (uint32_t)i;
	for (i = 0; i < m->groups.n; i++)
		m->groups.v[i].dev = where[m->groups.v[i].dev];
	qsort(m->groups.v, m->groups.n, sizeof(*m->groups.v), tsi_mem_cmp_group);
	for (i = 0; i < m->groups.n; i++)
		where[m->groups.v[i].index] = (uint32_t)i;
	for (i = 0; i < m->allocs.n; i++)
		m->allocs.v[i].group = where[m->allocs.v[i].group];
	for (i = 0; i < m->events.n; i++)
		m->events.v[i].group = where[m->events.v[i].group];
out:
	free(where);
	return 0;
}

static void tsi_mem_totals(tsi_mem *m, uint64_t *allocs, uint64_t *frees, uint64_t *live,
                           uint64_t *live_bytes)
{
	size_t i;

	*allocs = *frees = *live = *live_bytes = 0;
	for (i = 0; i < m->allocs.n; i++)
		if (m->allocs.v[i].live) {
			m->groups.v[m->allocs.v[i].group].live++;
			m->groups.v[m->allocs.v[i].group].live_bytes += m->allocs.v[i].size;
			(*live)++;
			*live_bytes += m->allocs.v[i].size;
		}
	for (i = 0; i < m->groups.n; i++) {
		*allocs += m->groups.v[i].allocs;
		*frees += m->groups.v[i].frees;
	}
}

static const char *tsi_mem_call_name(const tsi_mem *m, const tsi_mem_alloc *a)
{
	const char *n = sbt_dump_type_name(m->r, a->type);
	return n && n[0] ? n : "?";
}

static const char *tsi_mem_before_text(const tsi_mem_alloc *a)
{
	return a->before == 1 ? "in the window's snapshot (allocated before the window)"
	     : a->before == 2 ? "first seen in a keyframe (allocated before the trace)"
	                      : NULL;
}

/* The timeline: TSI_MEM_ROWS intervals of equal time, the most each device
 * held during each (and so the peak lies in one row). */
#define TSI_MEM_ROWS 16

static void tsi_mem_timeline_text(const tsi_mem *m)
{
	uint64_t span = m->last_time - m->first_time, step, *most, *now;
	size_t rows = TSI_MEM_ROWS, row, e = 0, d;
	int *width;
	char s[48];

	if (!m->events.n)
		return;
	if (span < rows)
		rows = span ? (size_t)span : 1;
	step = span / rows + (span % rows != 0);
	if (!step)
		step = 1;
	most = calloc(m->devs.n, sizeof(*most));
	now = calloc(m->devs.n, sizeof(*now));
	width = calloc(m->devs.n, sizeof(*width));
	if (!most || !now || !width)
		goto out;
	printf("\nin use over time (the most each held in each interval, bytes):\n  %-20s", "from (s)");
	for (d = 0; d < m->devs.n; d++) {
		char lbl[160];
		tsi_mem_dev_label_as(m, &m->devs.v[d], 0, lbl, sizeof(lbl));
		width[d] = strlen(lbl) > 14 ? (int)strlen(lbl) : 14;
		printf(" %*s", width[d], lbl);
	}
	printf("\n");
	for (row = 0; row < rows; row++) {
		uint64_t end = m->first_time + (row + 1) * step;
		for (d = 0; d < m->devs.n; d++)
			most[d] = now[d];
		for (; e < m->events.n && (m->events.v[e].time < end || row + 1 == rows); e++) {
			d = m->groups.v[m->events.v[e].group].dev;
			now[d] = m->events.v[e].dev_in_use;
			if (now[d] > most[d])
				most[d] = now[d];
		}
		tsi_mem_seconds(m->first_time + row * step, s, sizeof(s));
		printf("  %-20s", s);
		for (d = 0; d < m->devs.n; d++)
			printf(" %*llu", width[d], (unsigned long long)most[d]);
		printf("\n");
	}
out:
	free(width);
	free(most);
	free(now);
}

static void tsi_mem_stack_text(const tsi_mem *m, const tsi_mem_alloc *a)
{
	const sbt_frame *frames;
	uint32_t n, i, stack_id = a->stack_id;

	if (!stack_id) {
		printf("      (no host stack in the trace%s)\n",
		       a->before ? ": the capture recreated this allocation" : "");
		return;
	}
	if (sbt_reader_stack(m->r, stack_id, &frames, &n) != SBT_OK) {
		printf("      (stack %u not in the trace)\n", stack_id);
		return;
	}
	/* the innermost frames are the capture library's own: left out */
	for (i = 0; i < n; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(m->r, frames[i].symbol_id) : NULL;
		if (!sym || (strncmp(sym, "libtracesmith", 13) != 0 &&
		             strncmp(sym, "libVkLayer_tracesmith", 21) != 0))
			break;
	}
	for (; i < n; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(m->r, frames[i].symbol_id) : NULL;
		printf("      #%-2u 0x%016llx ", i, (unsigned long long)frames[i].ip);
		tsi_print_text(stdout, sym ? sym : "?");
		printf("\n");
	}
}

static void tsi_mem_text(const tsi_mem *m, const char *path, uint64_t allocs, uint64_t frees,
                         uint64_t live, uint64_t live_bytes)
{
	char h[32], lbl[160], kl[160], s[48];
	size_t d, i;

	printf("trace        %s\n", path);
	if (!allocs) {
		printf("memory       no allocations in this trace (no CUDA or Vulkan call that "
		       "allocates memory was recorded)\n");
		if (m->unknown_frees)
			printf("frees        %llu of memory the trace never allocated\n",
			       (unsigned long long)m->unknown_frees);
		return;
	}
	tsi_human(live_bytes, h, sizeof(h));
	printf("allocations  %llu made, %llu freed, %llu live at the end of the trace", (unsigned long long)allocs,
	       (unsigned long long)frees, (unsigned long long)live);
	if (live)
		printf(" (%llu bytes, %s)", (unsigned long long)live_bytes, h);
	printf("\n");
	if (m->unknown_frees)
		printf("frees        %llu more of memory the trace never allocated (made before it "
		       "began, or freed twice)\n", (unsigned long long)m->unknown_frees);
	for (d = 0; d < m->devs.n; d++) {
		const tsi_mem_dev *dv = &m->devs.v[d];
		tsi_mem_dev_label(m, dv, lbl, sizeof(lbl));
		tsi_human(dv->peak, h, sizeof(h));
		tsi_mem_seconds(dv->peak_time, s, sizeof(s));
		printf("peak         %s: %llu bytes (%s) at seq %llu, %s s\n", lbl,
		       (unsigned long long)dv->peak, h, (unsigned long long)dv->peak_seq, s);
	}
	for (d = 0; d < m->devs.n; d++) {
		int w = 13;
		for (i = 0; i < m->groups.n; i++)
			if (m->groups.v[i].dev == d) {
				tsi_mem_group_label(m, &m->groups.v[i], kl, sizeof(kl));
				if ((int)strlen(kl) > w)
					w = (int)strlen(kl);
			}
		tsi_mem_dev_label(m, &m->devs.v[d], lbl, sizeof(lbl));
		printf("\n%s\n  %-*s %8s %8s %6s %16s %16s %10s %16s\n", lbl, w, "kind", "allocs", "frees",
		       "live", "bytes allocated", "peak in use", "peak seq", "live bytes");
		for (i = 0; i < m->groups.n; i++) {
			const tsi_mem_group *g = &m->groups.v[i];
			if (g->dev != d)
				continue;
			tsi_mem_group_label(m, g, kl, sizeof(kl));
			printf("  %-*s %8llu %8llu %6llu %16llu %16llu %10llu %16llu\n", w, kl,
			       (unsigned long long)g->allocs, (unsigned long long)g->frees,
			       (unsigned long long)g->live, (unsigned long long)g->bytes_allocated,
			       (unsigned long long)g->peak, (unsigned long long)g->peak_seq,
			       (unsigned long long)g->live_bytes);
		}
	}
	tsi_mem_timeline_text(m);
	if (!live) {
		printf("\nlive at the end of the trace: nothing (every allocation was freed)\n");
		return;
	}
	printf("\nlive at the end of the trace (leaks): %llu allocation%s, %llu bytes\n",
	       (unsigned long long)live, live == 1 ? "" : "s", (unsigned long long)live_bytes);
	for (i = 0; i < m->allocs.n; i++) {
		const tsi_mem_alloc *a = &m->allocs.v[i];
		const tsi_mem_group *g = &m->groups.v[a->group];
		const char *before = tsi_mem_before_text(a);
		if (!a->live)
			continue;
		tsi_mem_dev_label(m, &m->devs.v[g->dev], lbl, sizeof(lbl));
		tsi_mem_group_label(m, g, kl, sizeof(kl));
		tsi_human(a->size, h, sizeof(h));
		tsi_mem_seconds(a->time, s, sizeof(s));
		printf("  %llu bytes (%s) %s on %s, %s 0x%llx\n", (unsigned long long)a->size, h, kl, lbl,
		       a->ns == TSI_NS_VMM ? "handle" : a->ns == TSI_NS_VKMEM ? "VkDeviceMemory" : "at",
		       (unsigned long long)a->key);
		printf("    by %s at seq %llu, %s s, thread %llu%s%s\n", tsi_mem_call_name(m, a),
		       (unsigned long long)a->seq, s, (unsigned long long)a->thread,
		       before ? ", " : "", before ? before : "");
		tsi_mem_stack_text(m, a);
	}
}

static void tsi_mem_stack_json(const tsi_mem *m, uint32_t stack_id)
{
	const sbt_frame *frames;
	uint32_t n, i;

	printf("[");
	if (stack_id && sbt_reader_stack(m->r, stack_id, &frames, &n) == SBT_OK)
		for (i = 0; i < n; i++) {
			const char *sym = frames[i].symbol_id ? sbt_reader_string(m->r, frames[i].symbol_id) : NULL;
			printf("%s{\"ip\":\"0x%llx\",\"symbol\":", i ? "," : "", (unsigned long long)frames[i].ip);
			if (sym)
				tsi_json_str(stdout, sym);
			else
				printf("null");
			printf("}");
		}
	printf("]");
}

static void tsi_mem_json(const tsi_mem *m, const char *path, uint64_t allocs, uint64_t frees,
                         uint64_t live, uint64_t live_bytes)
{
	char lbl[160], kl[160];
	size_t d, i;
	int first;

	printf("{\"trace\":");
	tsi_json_str(stdout, path);
	printf(",\"allocations\":%llu,\"frees\":%llu,\"unknown_frees\":%llu,\"live\":%llu,"
	       "\"live_bytes\":%llu,\"devices\":[",
	       (unsigned long long)allocs, (unsigned long long)frees,
	       (unsigned long long)m->unknown_frees, (unsigned long long)live,
	       (unsigned long long)live_bytes);
	for (d = 0; d < m->devs.n; d++) {
		const tsi_mem_dev *dv = &m->devs.v[d];
		tsi_mem_dev_label(m, dv, lbl, sizeof(lbl));
		printf("%s{\"device\":", d ? "," : "");
		tsi_json_str(stdout, lbl);
		printf(",\"api\":\"%s\",\"id\":", dv->api == TSI_API_CUDA ? "cuda"
		                                  : dv->api == TSI_API_VULKAN ? "vulkan" : "host");
		if (dv->api == TSI_API_CUDA && dv->id == UINT64_MAX)
			printf("null");
		else
			printf("%llu", (unsigned long long)dv->id);
		printf(",\"peak_bytes\":%llu,\"peak_seq\":%llu,\"peak_time_ns\":%llu,\"in_use_end\":%llu"
		       ",\"kinds\":[",
		       (unsigned long long)dv->peak, (unsigned long long)dv->peak_seq,
		       (unsigned long long)dv->peak_time, (unsigned long long)dv->in_use);
		first = 1;
		for (i = 0; i < m->groups.n; i++) {
			const tsi_mem_group *g = &m->groups.v[i];
			if (g->dev != d)
				continue;
			tsi_mem_group_label(m, g, kl, sizeof(kl));
			printf("%s{\"kind\":\"%s\",\"label\":", first ? "" : ",", tsi_mem_kind_names[g->kind]);
			tsi_json_str(stdout, kl);
			if (g->kind == TSI_MK_VK)
				printf(",\"memory_type\":%u", g->vk_type);
			printf(",\"allocations\":%llu,\"frees\":%llu,\"bytes_allocated\":%llu,"
			       "\"peak_bytes\":%llu,\"peak_seq\":%llu,\"peak_time_ns\":%llu,\"live\":%llu,"
			       "\"live_bytes\":%llu}",
			       (unsigned long long)g->allocs, (unsigned long long)g->frees,
			       (unsigned long long)g->bytes_allocated, (unsigned long long)g->peak,
			       (unsigned long long)g->peak_seq, (unsigned long long)g->peak_time,
			       (unsigned long long)g->live, (unsigned long long)g->live_bytes);
			first = 0;
		}
		printf("]}");
	}
	/* every change, in sequence order: device index, kind, delta, and the
	 * device's memory in use after it */
	printf("],\"events\":[");
	for (i = 0; i < m->events.n; i++) {
		const tsi_mem_event *e = &m->events.v[i];
		const tsi_mem_group *g = &m->groups.v[e->group];
		printf("%s{\"seq\":%llu,\"time_ns\":%llu,\"device\":%u,\"kind\":\"%s\",\"delta\":%lld,"
		       "\"in_use\":%llu}",
		       i ? "," : "", (unsigned long long)e->seq, (unsigned long long)e->time, g->dev,
		       tsi_mem_kind_names[g->kind], (long long)e->delta, (unsigned long long)e->dev_in_use);
	}
	printf("],\"leaks\":[");
	first = 1;
	for (i = 0; i < m->allocs.n; i++) {
		const tsi_mem_alloc *a = &m->allocs.v[i];
		const tsi_mem_group *g = &m->groups.v[a->group];
		if (!a->live)
			continue;
		tsi_mem_dev_label(m, &m->devs.v[g->dev], lbl, sizeof(lbl));
		printf("%s{\"size\":%llu,\"kind\":\"%s\",\"device\":%u,\"device_name\":", first ? "" : ",",
		       (unsigned long long)a->size, tsi_mem_kind_names[g->kind], g->dev);
		tsi_json_str(stdout, lbl);
		if (g->kind == TSI_MK_VK)
			printf(",\"memory_type\":%u", g->vk_type);
		printf(",\"%s\":\"0x%llx\",\"call\":",
		       a->ns == TSI_NS_VMM ? "handle" : a->ns == TSI_NS_VKMEM ? "memory" : "address",
		       (unsigned long long)a->key);
		tsi_json_str(stdout, tsi_mem_call_name(m, a));
		printf(",\"seq\":%llu,\"time_ns\":%llu,\"thread\":%llu,\"before\":%s,\"stack\":",
		       (unsigned long long)a->seq, (unsigned long long)a->time,
		       (unsigned long long)a->thread,
		       a->before == 1 ? "\"window\"" : a->before == 2 ? "\"trace\"" : "null");
		tsi_mem_stack_json(m, a->stack_id);
		printf("}");
		first = 0;
	}
	printf("]}\n");
}

int tsi_memory(const char *path, sbt_reader *r, int json)
{
	tsi_mem m;
	sbt_status st;
	uint64_t allocs, frees, live, live_bytes;
	int rc = TSI_EXIT_BAD;

	memset(&m, 0, sizeof(m));
	m.r = r;
	if (tsi_mem_types(&m) != 0 || sbt_vk_arena_create(0, &m.arena) != SBT_VK_OK) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out;
	}
	st = tsi_mem_read(&m, r);
	if (st == SBT_ERR_NOMEM) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out;
	}
	if (tsi_mem_sort(&m) != 0) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out;
	}
	tsi_mem_totals(&m, &allocs, &frees, &live, &live_bytes);
	if (json)
		tsi_mem_json(&m, path, allocs, frees, live, live_bytes);
	else
		tsi_mem_text(&m, path, allocs, frees, live, live_bytes);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "tsinfo: writing output: %s\n", strerror(errno));
		goto out;
	}
	if (st != SBT_OK) {
		fprintf(stderr, "tsinfo: %s: %s (the profile covers the records before it; --salvage "
		        "skips it)\n", path, sbt_reader_message(r)[0] ? sbt_reader_message(r) : sbt_strerror(st));
		goto out;
	}
	rc = TSI_EXIT_OK;
out:
	tsi_mem_free(&m);
	return rc;
}
