/*
 * sbt_mem.c - memory accounting (the model: sbt_mem.h): one reading of a
 * trace's allocations and frees for tsinfo --memory and the emulator's
 * memory counter.
 */
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_mem.h"

/* ---- kinds ------------------------------------------------------------ */

const char *const sbt_mem_kind_names[SBT_MEM_K_COUNT] = {
#define SBT_MEM_X_NAME(e, name, host) name,
	SBT_MEM_KIND_LIST(SBT_MEM_X_NAME)
#undef SBT_MEM_X_NAME
};

const uint8_t sbt_mem_kind_host[SBT_MEM_K_COUNT] = {
#define SBT_MEM_X_HOST(e, name, host) host,
	SBT_MEM_KIND_LIST(SBT_MEM_X_HOST)
#undef SBT_MEM_X_HOST
};

/* Growable arrays: SBT_MEM_PUSH(vec, value) is 0, or -1 when out of memory. */
static int sbt_mem_grow(void **v, size_t *cap, size_t n, size_t elem)
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
#define SBT_MEM_PUSH(vec, val)                                                          \
	(sbt_mem_grow((void **)&(vec).v, &(vec).cap, (vec).n, sizeof(*(vec).v)) != 0 \
	     ? -1                                                                       \
	     : ((vec).v[(vec).n++] = (val), 0))


static uint64_t sbt_mem_hash(uint64_t key, uint8_t ns)
{
	uint64_t k = key ^ ((uint64_t)ns * 0x9e3779b97f4a7c15ull);
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* Index + 1 of the live allocation (ns, key), or 0; *slot_out its slot. */
static uint32_t sbt_mem_live_find(const sbt_mem *m, uint8_t ns, uint64_t key, size_t *slot_out)
{
	size_t mask = m->live.cap - 1, i;

	if (!m->live.cap)
		return 0;
	for (i = sbt_mem_hash(key, ns) & mask; m->live.slots[i]; i = (i + 1) & mask) {
		const sbt_mem_alloc *a = &m->allocs.v[m->live.slots[i] - 1];
		if (a->key == key && a->ns == ns) {
			if (slot_out)
				*slot_out = i;
			return m->live.slots[i];
		}
	}
	return 0;
}

static int sbt_mem_live_put(sbt_mem *m, uint32_t idx1)
{
	const sbt_mem_alloc *a = &m->allocs.v[idx1 - 1];
	size_t i, mask;

	if ((m->live.used + 1) * 2 > m->live.cap) {
		size_t ncap = m->live.cap ? m->live.cap * 2 : 256, j;
		uint32_t *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return -1;
		for (j = 0; j < m->live.cap; j++) {
			const sbt_mem_alloc *b;
			if (!m->live.slots[j])
				continue;
			b = &m->allocs.v[m->live.slots[j] - 1];
			for (i = sbt_mem_hash(b->key, b->ns) & (ncap - 1); ns[i]; i = (i + 1) & (ncap - 1))
				;
			ns[i] = m->live.slots[j];
		}
		free(m->live.slots);
		m->live.slots = ns;
		m->live.cap = ncap;
	}
	mask = m->live.cap - 1;
	for (i = sbt_mem_hash(a->key, a->ns) & mask; m->live.slots[i]; i = (i + 1) & mask)
		;
	m->live.slots[i] = idx1;
	m->live.used++;
	return 0;
}

static void sbt_mem_live_remove(sbt_mem *m, size_t slot)
{
	size_t mask = m->live.cap - 1, i = slot, j = slot;

	m->live.slots[i] = 0;
	m->live.used--;
	for (;;) {
		const sbt_mem_alloc *b;
		size_t home;
		j = (j + 1) & mask;
		if (!m->live.slots[j])
			return;
		b = &m->allocs.v[m->live.slots[j] - 1];
		home = sbt_mem_hash(b->key, b->ns) & mask;
		/* move j back to the hole at i unless its home lies in (i, j] */
		if ((i <= j) ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->live.slots[i] = m->live.slots[j];
		m->live.slots[j] = 0;
		i = j;
	}
}

/* ---- devices and groups ----------------------------------------------- */

static uint32_t sbt_mem_dev_of(sbt_mem *m, int api, uint64_t id)
{
	sbt_mem_dev d = { 0 };
	size_t i;

	for (i = 0; i < m->devs.n; i++)
		if (m->devs.v[i].api == api && m->devs.v[i].id == id)
			return (uint32_t)i;
	d.api = api;
	d.id = id;
	d.index = (uint32_t)m->devs.n;
	if (api == SBT_MEM_API_VULKAN)
		for (i = 0; i < m->vkdevs.n; i++)
			if (m->vkdevs.v[i].device == id)
				d.phys = m->vkdevs.v[i].phys;
	return SBT_MEM_PUSH(m->devs, d) == 0 ? (uint32_t)(m->devs.n - 1) : SBT_MEM_NONE;
}

static uint32_t sbt_mem_group_of(sbt_mem *m, uint32_t dev, sbt_mem_kind kind, uint32_t vk_type)
{
	sbt_mem_group g = { 0 };
	size_t i;

	for (i = 0; i < m->groups.n; i++)
		if (m->groups.v[i].dev == dev && m->groups.v[i].kind == kind &&
		    m->groups.v[i].vk_type == vk_type)
			return (uint32_t)i;
	g.dev = dev;
	g.kind = (uint8_t)kind;
	g.vk_type = vk_type;
	g.index = (uint32_t)m->groups.n;
	return SBT_MEM_PUSH(m->groups, g) == 0 ? (uint32_t)(m->groups.n - 1) : SBT_MEM_NONE;
}

/* Memory in use changes by delta for allocation a, at the current record. */
static int sbt_mem_change(sbt_mem *m, const sbt_mem_alloc *a, int64_t delta)
{
	sbt_mem_group *g = &m->groups.v[a->group];
	sbt_mem_dev *d = &m->devs.v[g->dev];
	sbt_mem_event ev;

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
	return SBT_MEM_PUSH(m->events, ev);
}

static int sbt_mem_end_slot(sbt_mem *m, size_t slot);

/* A new live allocation in group of the current record. */
static int sbt_mem_add(sbt_mem *m, uint8_t ns, uint64_t key, uint64_t size, uint32_t group,
                       uint64_t ctx, uint64_t parent)
{
	sbt_mem_alloc a = { 0 };
	size_t slot;
	uint32_t old;

	if (group == SBT_MEM_NONE)
		return -1;
	/* the same key allocated again without a free we saw: the old one
	 * ended unseen (say a free that failed to be recorded) */
	old = sbt_mem_live_find(m, ns, key, &slot);
	if (old && sbt_mem_end_slot(m, slot) != 0)
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
	if (SBT_MEM_PUSH(m->allocs, a) != 0 || sbt_mem_live_put(m, (uint32_t)m->allocs.n) != 0)
		return -1;
	m->groups.v[group].allocs++;
	m->groups.v[group].bytes_allocated += size;
	return sbt_mem_change(m, &m->allocs.v[m->allocs.n - 1], (int64_t)size);
}

/* Allocation a ends at the current record. */
static int sbt_mem_retire(sbt_mem *m, sbt_mem_alloc *a)
{
	a->live = 0;
	a->free_seq = m->rec->seq;
	m->groups.v[a->group].frees++;
	return sbt_mem_change(m, a, -(int64_t)a->size);
}

/* The live allocation at slot ends at the current record. */
static int sbt_mem_end_slot(sbt_mem *m, size_t slot)
{
	sbt_mem_alloc *a = &m->allocs.v[m->live.slots[slot] - 1];

	sbt_mem_live_remove(m, slot);
	return sbt_mem_retire(m, a);
}

static int sbt_mem_end_key(sbt_mem *m, uint8_t ns, uint64_t key)
{
	size_t slot;

	if (!sbt_mem_live_find(m, ns, key, &slot)) {
		if (key)
			m->unknown_frees++;
		return 0;
	}
	return sbt_mem_end_slot(m, slot);
}

/* Ends every live allocation for which match(a, value) holds (context
 * teardown, module unload: rare, so a walk of the table is fine). */
static int sbt_mem_end_where(sbt_mem *m, int (*match)(const sbt_mem *, const sbt_mem_alloc *, uint64_t),
                             uint64_t value)
{
	size_t i = 0;

	while (i < m->live.cap) {
		if (m->live.slots[i] && match(m, &m->allocs.v[m->live.slots[i] - 1], value)) {
			if (sbt_mem_end_slot(m, i) != 0)
				return -1;
			continue; /* the shift may have moved another entry here */
		}
		i++;
	}
	return 0;
}

/* ---- CUDA ------------------------------------------------------------- */

static sbt_mem_thread *sbt_mem_thread_of(sbt_mem *m, uint64_t thread)
{
	sbt_mem_thread t = { 0 };
	size_t i;

	for (i = 0; i < m->threads.n; i++)
		if (m->threads.v[i].thread == thread)
			return &m->threads.v[i];
	t.thread = thread;
	return SBT_MEM_PUSH(m->threads, t) == 0 ? &m->threads.v[m->threads.n - 1] : NULL;
}

static int sbt_mem_ctx_push(sbt_mem_thread *t, uint64_t ctx)
{
	return SBT_MEM_PUSH(*t, ctx);
}

/* The current context of the record's thread (see the top comment). */
static uint64_t sbt_mem_current_ctx(sbt_mem *m)
{
	size_t i;

	for (i = 0; i < m->threads.n; i++)
		if (m->threads.v[i].thread == m->rec->thread && m->threads.v[i].n)
			return m->threads.v[i].v[m->threads.v[i].n - 1];
	return m->last_ctx;
}

/* The entry of a CUdevice, made when new; NULL when out of memory. */
static sbt_mem_devnum *sbt_mem_devnum_of(sbt_mem *m, uint64_t cudevice)
{
	sbt_mem_devnum dn = { cudevice, cudevice, 0 };
	size_t i;

	for (i = 0; i < m->devnums.n; i++)
		if (m->devnums.v[i].handle == cudevice)
			return &m->devnums.v[i];
	return SBT_MEM_PUSH(m->devnums, dn) == 0 ? &m->devnums.v[m->devnums.n - 1] : NULL;
}

static uint64_t sbt_mem_ordinal(const sbt_mem *m, uint64_t cudevice)
{
	size_t i;

	for (i = 0; i < m->devnums.n; i++)
		if (m->devnums.v[i].handle == cudevice)
			return m->devnums.v[i].ordinal;
	return cudevice; /* CUdevice is the ordinal in every driver we know */
}

static uint64_t sbt_mem_ctx_ordinal(const sbt_mem *m, uint64_t ctx)
{
	size_t i;

	if (SBT_MEM_IS_HIP_CTX(ctx))
		return ctx & 0xffffffffu;
	for (i = m->ctxs.n; i-- > 0;)
		if (m->ctxs.v[i].ctx == ctx)
			return sbt_mem_ordinal(m, m->ctxs.v[i].device);
	return UINT64_MAX;
}

static int sbt_mem_in_ctx(const sbt_mem *m, const sbt_mem_alloc *a, uint64_t ctx)
{
	(void)m;
	return a->ctx == ctx && (a->ns == SBT_MEM_NS_DEVPTR || a->ns == SBT_MEM_NS_HOSTPTR);
}

static int sbt_mem_in_module(const sbt_mem *m, const sbt_mem_alloc *a, uint64_t module)
{
	return m->groups.v[a->group].kind == SBT_MEM_K_GLOBAL && a->parent == module;
}

/* cuDevicePrimaryCtxReset(device): the primary contexts of that device. */
static int sbt_mem_in_primary_of(const sbt_mem *m, const sbt_mem_alloc *a, uint64_t device)
{
	size_t i;

	if (!a->ctx || (a->ns != SBT_MEM_NS_DEVPTR && a->ns != SBT_MEM_NS_HOSTPTR))
		return 0;
	for (i = 0; i < m->ctxs.n; i++)
		if (m->ctxs.v[i].ctx == a->ctx)
			return m->ctxs.v[i].primary && m->ctxs.v[i].device == device;
	return 0;
}

static sbt_mem_kind sbt_mem_kind_of_sub(uint64_t sub)
{
	switch (sub) {
	case SBT_CM_MEM_PITCH: return SBT_MEM_K_PITCH;
	case SBT_CM_MEM_ASYNC: return SBT_MEM_K_ASYNC;
	case SBT_CM_MEM_POOL: return SBT_MEM_K_POOL;
	case SBT_CM_MEM_MANAGED: return SBT_MEM_K_MANAGED;
	case SBT_CM_MEM_HOST: return SBT_MEM_K_HOST;
	case SBT_CM_MEM_HOST_ALLOC: return SBT_MEM_K_HOST_ALLOC;
	case SBT_CM_MEM_HOST_REGISTER: return SBT_MEM_K_HOST_REGISTER;
	case SBT_CM_MEM_VMM_HANDLE:
	case SBT_CM_MEM_VMM_MAP: return SBT_MEM_K_VMM;
	case SBT_CM_MEM_GLOBAL: return SBT_MEM_K_GLOBAL;
	default: return SBT_MEM_K_DEVICE;
	}
}

/* An allocation of kind by the current record, in the current context
 * (HIP: the device the record names, the thread's current one). */
/* The context the current record's memory belongs to (HIP: the device's
 * stand-in). */
static uint64_t sbt_mem_ctx_now(sbt_mem *m)
{
	return m->hip >= 0 ? SBT_MEM_HIP_CTX(m->hip_device) : sbt_mem_current_ctx(m);
}

static int sbt_mem_cuda_alloc(sbt_mem *m, sbt_mem_kind kind, uint64_t key, uint64_t size,
                              uint64_t parent)
{
	uint64_t ctx = sbt_mem_ctx_now(m);
	uint32_t dev = sbt_mem_kind_host[kind]
	                   ? sbt_mem_dev_of(m, SBT_MEM_API_HOST, 0)
	                   : sbt_mem_dev_of(m, SBT_MEM_API_CUDA, sbt_mem_ctx_ordinal(m, ctx));

	if (dev == SBT_MEM_NONE)
		return -1;
	return sbt_mem_add(m, sbt_mem_kind_host[kind] ? SBT_MEM_NS_HOSTPTR : SBT_MEM_NS_DEVPTR, key, size,
	                   sbt_mem_group_of(m, dev, kind, 0), ctx, parent);
}

/* Whether addr lies in a live allocation of namespace ns.  Keyframes name
 * allocations by their base, or in 32 MiB chunks of one allocation in a
 * row, so the exact lookup and the last hit answer nearly every call; the
 * walk of the table is for the rest. */
static int sbt_mem_covered(sbt_mem *m, uint8_t ns, uint64_t addr)
{
	const sbt_mem_alloc *a;
	size_t i;

	if (sbt_mem_live_find(m, ns, addr, NULL))
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
static int sbt_mem_snapshot(sbt_mem *m, const sbt_cm_call *c)
{
	sbt_mem_kind kind = sbt_mem_kind_of_sub(c->sub);
	uint8_t ns = sbt_mem_kind_host[kind] ? SBT_MEM_NS_HOSTPTR : SBT_MEM_NS_DEVPTR;
	size_t i;

	if (!c->size || sbt_mem_covered(m, ns, c->dst))
		return 0;
	for (i = m->allocs.n; i-- > 0;) {
		sbt_mem_alloc *a = &m->allocs.v[i];
		if (a->before != 2)
			break;
		if (a->live && a->ns == ns && a->key + a->size == c->dst &&
		    m->groups.v[a->group].kind == kind) {
			a->size += c->size;
			m->groups.v[a->group].bytes_allocated += c->size;
			return sbt_mem_change(m, a, (int64_t)c->size);
		}
	}
	m->before = 2;
	if (sbt_mem_cuda_alloc(m, kind, c->dst, c->size, 0) != 0)
		return -1;
	m->allocs.v[m->allocs.n - 1].ctx = 0; /* made in a context the trace may not know */
	return 0;
}

/* cuMemRelease: the handle goes (its value may come back from a later
 * cuMemCreate); the memory stays while a mapping holds it. */
static int sbt_mem_vmm_release(sbt_mem *m, uint64_t handle)
{
	size_t slot;
	uint32_t idx1 = sbt_mem_live_find(m, SBT_MEM_NS_VMM, handle, &slot);
	sbt_mem_alloc *a;

	if (!idx1) {
		if (handle)
			m->unknown_frees++;
		return 0;
	}
	a = &m->allocs.v[idx1 - 1];
	sbt_mem_live_remove(m, slot);
	if (a->maps) {
		a->released = 1;
		return 0;
	}
	return sbt_mem_retire(m, a);
}

static int sbt_mem_vmm_map(sbt_mem *m, const sbt_cm_call *c)
{
	uint32_t idx1 = sbt_mem_live_find(m, SBT_MEM_NS_VMM, c->handle, NULL);
	sbt_mem_map x;

	if (!idx1)
		return 0; /* a handle made before the trace: not counted */
	x.dst = c->dst;
	x.size = c->size;
	x.alloc = idx1 - 1;
	m->allocs.v[idx1 - 1].maps++;
	return SBT_MEM_PUSH(m->maps, x);
}

/* cuMemUnmap of [dst, dst + size): the mappings in it end; a released
 * allocation with no mapping left ends too. */
static int sbt_mem_vmm_unmap(sbt_mem *m, uint64_t dst, uint64_t size)
{
	size_t i = 0;

	while (i < m->maps.n) {
		sbt_mem_map *x = &m->maps.v[i];
		sbt_mem_alloc *a;
		if (x->dst < dst || x->dst - dst >= size) {
			i++;
			continue;
		}
		a = &m->allocs.v[x->alloc];
		*x = m->maps.v[--m->maps.n];
		if (--a->maps == 0 && a->released && sbt_mem_retire(m, a) != 0)
			return -1;
	}
	return 0;
}

/* ---- graph memory (the model: sbt_mem.h) ------------------------------- */

/* Index + 1 in v of handle, or 0. */
static size_t sbt_mem_gcap_find(const sbt_mem_gcap *v, size_t n, uint64_t handle)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].handle == handle)
			return i + 1;
	return 0;
}

/* The capture the current record's stream belongs to, 0 if none.  The
 * per-thread default stream is one per thread. */
static uint64_t sbt_mem_capture_of(const sbt_mem *m, uint64_t stream)
{
	size_t i;

	if (!m->cstreams.n)
		return 0;
	if (stream == 0 || stream == 2) /* CU_STREAM_PER_THREAD, or 0 under ptds */
		stream = 0x8000000000000000ull | m->rec->thread;
	i = sbt_mem_gcap_find(m->cstreams.v, m->cstreams.n, stream);
	return i ? m->cstreams.v[i - 1].capture : 0;
}

static int sbt_mem_capture_join(sbt_mem *m, uint64_t stream, uint64_t capture)
{
	sbt_mem_gcap x = { stream, capture };

	if (stream == 0 || stream == 2)
		x.handle = 0x8000000000000000ull | m->rec->thread;
	return SBT_MEM_PUSH(m->cstreams, x);
}

/* Drops the nodes of (own, owner). */
static void sbt_mem_gnodes_drop(sbt_mem *m, uint8_t own, uint64_t owner)
{
	size_t i, j = 0;

	for (i = 0; i < m->gnodes.n; i++)
		if (m->gnodes.v[i].own != own || m->gnodes.v[i].owner != owner)
			m->gnodes.v[j++] = m->gnodes.v[i];
	m->gnodes.n = j;
}

static int sbt_mem_gnode_add(sbt_mem *m, uint8_t own, uint64_t owner, uint64_t dst, uint64_t size,
                             uint64_t device)
{
	sbt_mem_gnode x = { owner, dst, size, device, own, 0 };

	return SBT_MEM_PUSH(m->gnodes, x);
}

/* cuStreamEndCapture: the capture's streams leave it; its nodes become
 * the graph's (none when the capture failed). */
static void sbt_mem_capture_end(sbt_mem *m, const sbt_cm_call *c)
{
	uint64_t cap = sbt_mem_capture_of(m, c->stream);
	size_t i, j = 0;

	if (!cap)
		return;
	for (i = 0; i < m->cstreams.n; i++)
		if (m->cstreams.v[i].capture != cap)
			m->cstreams.v[j++] = m->cstreams.v[i];
	m->cstreams.n = j;
	if (c->result != 0 || !c->handle) {
		sbt_mem_gnodes_drop(m, SBT_MEM_GOWN_CAPTURE, cap);
		return;
	}
	for (i = 0; i < m->gnodes.n; i++)
		if (m->gnodes.v[i].own == SBT_MEM_GOWN_CAPTURE && m->gnodes.v[i].owner == cap) {
			m->gnodes.v[i].own = SBT_MEM_GOWN_GRAPH;
			m->gnodes.v[i].owner = c->handle;
		}
}

/* cuGraphInstantiate: the exec holds the graph's nodes as they are now. */
static int sbt_mem_graph_instantiate(sbt_mem *m, const sbt_cm_call *c)
{
	size_t i, n;

	sbt_mem_gnodes_drop(m, SBT_MEM_GOWN_EXEC, c->handle); /* a handle used again */
	n = m->gnodes.n;
	for (i = 0; i < n; i++) {
		sbt_mem_gnode x = m->gnodes.v[i];

		if (x.own != SBT_MEM_GOWN_GRAPH || x.owner != c->parent)
			continue;
		x.own = SBT_MEM_GOWN_EXEC;
		x.owner = c->handle;
		x.auto_free = (c->flags & 1) != 0; /* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
		if (SBT_MEM_PUSH(m->gnodes, x) != 0)
			return -1;
	}
	return 0;
}

/* Whether the exec's nodes allocate dst. */
static int sbt_mem_exec_allocates(const sbt_mem *m, uint64_t exec, uint64_t dst)
{
	for (size_t i = 0; i < m->gnodes.n; i++) {
		const sbt_mem_gnode *x = &m->gnodes.v[i];

		if (x->own == SBT_MEM_GOWN_EXEC && x->owner == exec && x->size && x->dst == dst)
			return 1;
	}
	return 0;
}

/* The live graph allocation at dst (made by a launch) ends, if any.  With
 * drop, one the launch itself made and freed leaves no entry in allocs
 * (only live ones are read there: the groups and events keep the counts),
 * so that a graph launched a million times does not hold a million. */
static int sbt_mem_graph_free(sbt_mem *m, uint64_t dst, int drop)
{
	size_t slot;
	uint32_t idx1 = sbt_mem_live_find(m, SBT_MEM_NS_DEVPTR, dst, &slot);

	if (!idx1 || m->groups.v[m->allocs.v[idx1 - 1].group].kind != SBT_MEM_K_GRAPH)
		return 0;
	if (sbt_mem_end_slot(m, slot) != 0)
		return -1;
	if (drop && idx1 == m->allocs.n && m->allocs.v[idx1 - 1].seq == m->rec->seq) {
		m->allocs.n--;
		if (m->snap_hint == idx1)
			m->snap_hint = 0;
	}
	return 0;
}

/* cuGraphLaunch of an exec holding graph memory nodes, in this order: an
 * AUTO_FREE_ON_LAUNCH exec frees what its earlier launches left; the free
 * nodes of memory other graphs (or streams) allocated free it; every
 * allocation node allocates; the free nodes of those free them. */
static int sbt_mem_graph_launch(sbt_mem *m, uint64_t exec)
{
	uint64_t ctx = sbt_mem_ctx_now(m);
	size_t i;

	for (int pass = 0; pass < 4; pass++)
		for (i = 0; i < m->gnodes.n; i++) {
			const sbt_mem_gnode x = m->gnodes.v[i];
			uint32_t dev, group;
			int own;

			if (x.own != SBT_MEM_GOWN_EXEC || x.owner != exec)
				continue;
			own = !x.size && sbt_mem_exec_allocates(m, exec, x.dst);
			if (pass == 0 && x.size && x.auto_free && sbt_mem_graph_free(m, x.dst, 0) != 0)
				return -1;
			if (pass == 1 && !x.size && !own && sbt_mem_end_key(m, SBT_MEM_NS_DEVPTR, x.dst) != 0)
				return -1;
			if (pass == 2 && x.size) {
				dev = sbt_mem_dev_of(m, SBT_MEM_API_CUDA, x.device);
				if (dev == SBT_MEM_NONE)
					return -1;
				group = sbt_mem_group_of(m, dev, SBT_MEM_K_GRAPH, 0);
				if (sbt_mem_add(m, SBT_MEM_NS_DEVPTR, x.dst, x.size, group, ctx, exec) != 0)
					return -1;
			}
			if (pass == 3 && own && sbt_mem_graph_free(m, x.dst, 1) != 0)
				return -1;
		}
	return 0;
}

/* The calls graph memory depends on (sbt_mem_kind_used with graphs);
 * 1 when k was one of them (*rc its result). */
static int sbt_mem_graph_call(sbt_mem *m, sbt_cm_kind k, const sbt_cm_call *c, int *rc)
{
	uint64_t cap;
	size_t i;

	*rc = 0;
	switch (k) {
	case SBT_CM_K_cuStreamBeginCapture:
		if (!sbt_mem_capture_of(m, c->stream))
			*rc = sbt_mem_capture_join(m, c->stream, ++m->captures);
		return 1;
	case SBT_CM_K_cuStreamEndCapture:
		sbt_mem_capture_end(m, c); /* even when it failed: the streams leave */
		return 1;
	case SBT_CM_K_cuEventRecord:
	case SBT_CM_K_cuEventRecordWithFlags:
		cap = c->result == 0 ? sbt_mem_capture_of(m, c->stream) : 0;
		i = sbt_mem_gcap_find(m->cevents.v, m->cevents.n, c->event);
		if (i && cap)
			m->cevents.v[i - 1].capture = cap;
		else if (i)
			m->cevents.v[i - 1] = m->cevents.v[--m->cevents.n];
		else if (cap) {
			sbt_mem_gcap x = { c->event, cap };
			*rc = SBT_MEM_PUSH(m->cevents, x);
		}
		return 1;
	case SBT_CM_K_cuStreamWaitEvent:
		i = c->result == 0 ? sbt_mem_gcap_find(m->cevents.v, m->cevents.n, c->event) : 0;
		if (!i || sbt_mem_capture_of(m, c->stream))
			return 1;
		cap = m->cevents.v[i - 1].capture;
		for (i = 0; i < m->cstreams.n; i++)
			if (m->cstreams.v[i].capture == cap) /* the capture is still open */
				return (*rc = sbt_mem_capture_join(m, c->stream, cap)), 1;
		return 1;
	case SBT_CM_K_cuMemAllocAsync:
	case SBT_CM_K_cuMemAllocFromPoolAsync:
		cap = c->result == 0 ? sbt_mem_capture_of(m, c->stream) : 0;
		if (!cap)
			return 0; /* not captured: memory now */
		if (c->size)
			*rc = sbt_mem_gnode_add(m, SBT_MEM_GOWN_CAPTURE, cap, c->dst, c->size,
			                        sbt_mem_ctx_ordinal(m, sbt_mem_ctx_now(m)));
		return 1;
	case SBT_CM_K_cuMemFreeAsync:
		cap = c->result == 0 ? sbt_mem_capture_of(m, c->stream) : 0;
		if (!cap)
			return 0;
		*rc = sbt_mem_gnode_add(m, SBT_MEM_GOWN_CAPTURE, cap, c->dst, 0, 0);
		return 1;
	case SBT_CM_K_cuGraphAddMemAllocNode:
		if (c->result == 0 && c->parent && c->size)
			*rc = sbt_mem_gnode_add(m, SBT_MEM_GOWN_GRAPH, c->parent, c->dst, c->size, (uint64_t)c->device);
		return 1;
	case SBT_CM_K_cuGraphAddMemFreeNode:
		if (c->result == 0 && c->parent)
			*rc = sbt_mem_gnode_add(m, SBT_MEM_GOWN_GRAPH, c->parent, c->dst, 0, 0);
		return 1;
	case SBT_CM_K_cuGraphInstantiate:
		if (c->result == 0 && c->handle)
			*rc = sbt_mem_graph_instantiate(m, c);
		return 1;
	case SBT_CM_K_cuGraphExecDestroy:
		sbt_mem_gnodes_drop(m, SBT_MEM_GOWN_EXEC, c->handle);
		return 1;
	case SBT_CM_K_cuGraphDestroy:
		sbt_mem_gnodes_drop(m, SBT_MEM_GOWN_GRAPH, c->handle);
		return 1;
	case SBT_CM_K_cuGraphLaunch:
		if (c->result == 0)
			*rc = sbt_mem_graph_launch(m, c->handle);
		return 1;
	default:
		return 0;
	}
}

static int sbt_mem_cuda(sbt_mem *m, sbt_cm_kind k, const sbt_cm_call *c)
{
	sbt_mem_thread *t;
	sbt_mem_ctx x;
	sbt_mem_devnum *dn;

	if (c->result != 0) {
		if (m->graphs && k == SBT_CM_K_cuStreamEndCapture)
			sbt_mem_capture_end(m, c); /* the streams leave it all the same */
		return 0;
	}
	if (m->hip >= 0) {
		m->hip_device = (uint32_t)c->device;
		switch (k) {
		case SBT_CM_K_cuCtxSetCurrent: /* hipSetDevice */
			t = sbt_mem_thread_of(m, m->rec->thread);
			if (!t)
				return -1;
			if (t->n)
				t->n--;
			return sbt_mem_ctx_push(t, SBT_MEM_HIP_CTX(c->device));
		case SBT_CM_K_cuDevicePrimaryCtxReset: { /* hipDeviceReset: the thread's device */
			uint64_t ctx = sbt_mem_current_ctx(m);

			return sbt_mem_end_where(m, sbt_mem_in_ctx, SBT_MEM_IS_HIP_CTX(ctx) ? ctx : SBT_MEM_HIP_CTX(0));
		}
		case SBT_CM_K_cuModuleGetGlobal: /* __hipRegisterVar: its host shadow names it */
			if (!c->size || sbt_mem_live_find(m, SBT_MEM_NS_DEVPTR, c->host, NULL))
				return 0;
			return sbt_mem_cuda_alloc(m, SBT_MEM_K_GLOBAL, c->host, c->size, c->parent);
		case SBT_CM_K_cuCtxCreate:
		case SBT_CM_K_cuDevicePrimaryCtxRetain:
		case SBT_CM_K_cuCtxPushCurrent:
		case SBT_CM_K_cuCtxPopCurrent:
		case SBT_CM_K_cuCtxDestroy:
		case SBT_CM_K_cuDevicePrimaryCtxRelease:
			return 0; /* no HIP call records as these */
		default:
			break;
		}
	}
	if (m->graphs) {
		int rc;

		if (sbt_mem_graph_call(m, k, c, &rc))
			return rc;
	}
	switch (k) {
	case SBT_CM_K_cuDeviceGet:
		dn = sbt_mem_devnum_of(m, (uint64_t)c->device);
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
		if (SBT_MEM_PUSH(m->ctxs, x) != 0)
			return -1;
		if (x.primary) {
			dn = sbt_mem_devnum_of(m, x.device);
			if (!dn)
				return -1;
			dn->primary_refs++;
		}
		if (k == SBT_CM_K_cuDevicePrimaryCtxRetain && m->last_ctx)
			return 0;
		m->last_ctx = c->ctx;
		if (k != SBT_CM_K_cuCtxCreate)
			return 0;
		t = sbt_mem_thread_of(m, m->rec->thread); /* cuCtxCreate makes it current */
		return t ? sbt_mem_ctx_push(t, c->ctx) : -1;
	case SBT_CM_K_cuCtxSetCurrent:
	case SBT_CM_K_cuCtxPushCurrent:
	case SBT_CM_K_cuCtxPopCurrent:
		t = sbt_mem_thread_of(m, m->rec->thread);
		if (!t)
			return -1;
		if (k != SBT_CM_K_cuCtxPushCurrent && t->n)
			t->n--; /* pop, or set: replaces the top */
		if (k == SBT_CM_K_cuCtxPopCurrent)
			return 0;
		if (c->ctx)
			m->last_ctx = c->ctx;
		return c->ctx || k == SBT_CM_K_cuCtxPushCurrent ? sbt_mem_ctx_push(t, c->ctx) : 0;
	case SBT_CM_K_cuCtxDestroy:
		return sbt_mem_end_where(m, sbt_mem_in_ctx, c->ctx);
	case SBT_CM_K_cuDevicePrimaryCtxReset:
		return sbt_mem_end_where(m, sbt_mem_in_primary_of, (uint64_t)c->device);
	case SBT_CM_K_cuDevicePrimaryCtxRelease:
		dn = sbt_mem_devnum_of(m, (uint64_t)c->device);
		if (!dn)
			return -1;
		if (!dn->primary_refs || --dn->primary_refs)
			return 0;
		return sbt_mem_end_where(m, sbt_mem_in_primary_of, (uint64_t)c->device);
	case SBT_CM_K_cuMemAlloc: return sbt_mem_cuda_alloc(m, SBT_MEM_K_DEVICE, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocPitch: return sbt_mem_cuda_alloc(m, SBT_MEM_K_PITCH, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocAsync: return sbt_mem_cuda_alloc(m, SBT_MEM_K_ASYNC, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocFromPoolAsync:
		return sbt_mem_cuda_alloc(m, SBT_MEM_K_POOL, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocManaged:
		return sbt_mem_cuda_alloc(m, SBT_MEM_K_MANAGED, c->dst, c->size, 0);
	case SBT_CM_K_cuMemAllocHost: return sbt_mem_cuda_alloc(m, SBT_MEM_K_HOST, c->host, c->size, 0);
	case SBT_CM_K_cuMemHostAlloc:
		return sbt_mem_cuda_alloc(m, SBT_MEM_K_HOST_ALLOC, c->host, c->size, 0);
	case SBT_CM_K_cuMemHostRegister:
		return sbt_mem_cuda_alloc(m, SBT_MEM_K_HOST_REGISTER, c->host, c->size, 0);
	case SBT_CM_K_cuModuleGetGlobal:
	case SBT_CM_K_cuLibraryGetGlobal:
		if (!c->size || sbt_mem_live_find(m, SBT_MEM_NS_DEVPTR, c->dst, NULL))
			return 0; /* looked up again */
		return sbt_mem_cuda_alloc(m, SBT_MEM_K_GLOBAL, c->dst, c->size, c->parent);
	case SBT_CM_K_cuModuleUnload:
	case SBT_CM_K_cuLibraryUnload:
		return sbt_mem_end_where(m, sbt_mem_in_module, c->handle);
	case SBT_CM_K_cuMemFree:
	case SBT_CM_K_cuMemFreeAsync: return sbt_mem_end_key(m, SBT_MEM_NS_DEVPTR, c->dst);
	case SBT_CM_K_cuMemFreeHost:
	case SBT_CM_K_cuMemHostUnregister: return sbt_mem_end_key(m, SBT_MEM_NS_HOSTPTR, c->host);
	case SBT_CM_K_cuMemCreate: {
		uint32_t dev = sbt_mem_dev_of(m, SBT_MEM_API_CUDA, (uint64_t)c->device);
		if (dev == SBT_MEM_NONE)
			return -1;
		return sbt_mem_add(m, SBT_MEM_NS_VMM, c->handle, c->size,
		                   sbt_mem_group_of(m, dev, SBT_MEM_K_VMM, 0), 0, 0);
	}
	case SBT_CM_K_cuMemRelease: return sbt_mem_vmm_release(m, c->handle);
	case SBT_CM_K_cuMemMap: return sbt_mem_vmm_map(m, c);
	case SBT_CM_K_cuMemUnmap: return sbt_mem_vmm_unmap(m, c->dst, c->size);
	case SBT_CM_K_tsSnapshot: return sbt_mem_snapshot(m, c);
	default: return 0;
	}
}

/* ---- Vulkan ----------------------------------------------------------- */

static sbt_mem_vkphys *sbt_mem_vkphys_of(sbt_mem *m, uint64_t phys)
{
	sbt_mem_vkphys p;
	size_t i;

	for (i = 0; i < m->vkphys.n; i++)
		if (m->vkphys.v[i].phys == phys)
			return &m->vkphys.v[i];
	memset(&p, 0, sizeof(p));
	p.phys = phys;
	return SBT_MEM_PUSH(m->vkphys, p) == 0 ? &m->vkphys.v[m->vkphys.n - 1] : NULL;
}

static int sbt_mem_vk_props(sbt_mem *m, uint64_t phys, const VkPhysicalDeviceProperties *p)
{
	sbt_mem_vkphys *x = sbt_mem_vkphys_of(m, phys);

	if (!x)
		return -1;
	memcpy(x->name, p->deviceName, sizeof(x->name));
	x->name[sizeof(x->name) - 1] = 0;
	return 0;
}

static int sbt_mem_vk_memprops(sbt_mem *m, uint64_t phys, const VkPhysicalDeviceMemoryProperties *p)
{
	sbt_mem_vkphys *x = sbt_mem_vkphys_of(m, phys);

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
static int sbt_mem_vulkan(sbt_mem *m, enum sbt_vk_cmd cmd)
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
			sbt_mem_vkdev vd = { (uint64_t)(uintptr_t)*a.cd.pDevice,
			                     (uint64_t)(uintptr_t)a.cd.physicalDevice };
			rc = SBT_MEM_PUSH(m->vkdevs, vd);
		}
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceProperties:
		if (a.gp.pProperties)
			rc = sbt_mem_vk_props(m, (uint64_t)(uintptr_t)a.gp.physicalDevice, a.gp.pProperties);
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceProperties2:
	case SBT_VK_CMD_vkGetPhysicalDeviceProperties2KHR:
		if (a.gp2.pProperties)
			rc = sbt_mem_vk_props(m, (uint64_t)(uintptr_t)a.gp2.physicalDevice,
			                      &a.gp2.pProperties->properties);
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties:
		if (a.mp.pMemoryProperties)
			rc = sbt_mem_vk_memprops(m, (uint64_t)(uintptr_t)a.mp.physicalDevice,
			                         a.mp.pMemoryProperties);
		break;
	case SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties2:
	case SBT_VK_CMD_vkGetPhysicalDeviceMemoryProperties2KHR:
		if (a.mp2.pMemoryProperties)
			rc = sbt_mem_vk_memprops(m, (uint64_t)(uintptr_t)a.mp2.physicalDevice,
			                         &a.mp2.pMemoryProperties->memoryProperties);
		break;
	case SBT_VK_CMD_vkAllocateMemory: {
		uint32_t dev;
		if (a.am.ret != VK_SUCCESS || !a.am.pAllocateInfo || !a.am.pMemory || !*a.am.pMemory)
			break;
		dev = sbt_mem_dev_of(m, SBT_MEM_API_VULKAN, (uint64_t)(uintptr_t)a.am.device);
		if (dev == SBT_MEM_NONE)
			return -1;
		rc = sbt_mem_add(m, SBT_MEM_NS_VKMEM, (uint64_t)*a.am.pMemory,
		                 a.am.pAllocateInfo->allocationSize,
		                 sbt_mem_group_of(m, dev, SBT_MEM_K_VK, a.am.pAllocateInfo->memoryTypeIndex),
		                 0, 0);
		break;
	}
	case SBT_VK_CMD_vkFreeMemory:
		rc = sbt_mem_end_key(m, SBT_MEM_NS_VKMEM, (uint64_t)a.fm.memory);
		break;
	default:
		break;
	}
	return rc;
}

/* ---- reading the trace ------------------------------------------------ */

/* Whether a call of kind k can change memory in use (sbt_mem_cuda);
 * graphs: the trace has graph memory nodes or stream captures, so that
 * graph launches, captures and events count (sbt_mem_graph_call). */
static int sbt_mem_kind_used(sbt_cm_kind k, int graphs)
{
	switch (k) {
	case SBT_CM_K_cuStreamBeginCapture:
	case SBT_CM_K_cuStreamEndCapture:
	case SBT_CM_K_cuEventRecord:
	case SBT_CM_K_cuEventRecordWithFlags:
	case SBT_CM_K_cuStreamWaitEvent:
	case SBT_CM_K_cuGraphAddMemAllocNode:
	case SBT_CM_K_cuGraphAddMemFreeNode:
	case SBT_CM_K_cuGraphInstantiate:
	case SBT_CM_K_cuGraphExecDestroy:
	case SBT_CM_K_cuGraphDestroy:
	case SBT_CM_K_cuGraphLaunch: return graphs;
	case SBT_CM_K_cuDeviceGet:
	case SBT_CM_K_cuCtxCreate:
	case SBT_CM_K_cuDevicePrimaryCtxRetain:
	case SBT_CM_K_cuCtxSetCurrent:
	case SBT_CM_K_cuCtxPushCurrent:
	case SBT_CM_K_cuCtxPopCurrent:
	case SBT_CM_K_cuCtxDestroy:
	case SBT_CM_K_cuDevicePrimaryCtxReset:
	case SBT_CM_K_cuDevicePrimaryCtxRelease:
	case SBT_CM_K_cuMemAlloc:
	case SBT_CM_K_cuMemAllocPitch:
	case SBT_CM_K_cuMemAllocAsync:
	case SBT_CM_K_cuMemAllocFromPoolAsync:
	case SBT_CM_K_cuMemAllocManaged:
	case SBT_CM_K_cuMemAllocHost:
	case SBT_CM_K_cuMemHostAlloc:
	case SBT_CM_K_cuMemHostRegister:
	case SBT_CM_K_cuModuleGetGlobal:
	case SBT_CM_K_cuLibraryGetGlobal:
	case SBT_CM_K_cuModuleUnload:
	case SBT_CM_K_cuLibraryUnload:
	case SBT_CM_K_cuMemFree:
	case SBT_CM_K_cuMemFreeAsync:
	case SBT_CM_K_cuMemFreeHost:
	case SBT_CM_K_cuMemHostUnregister:
	case SBT_CM_K_cuMemCreate:
	case SBT_CM_K_cuMemRelease:
	case SBT_CM_K_cuMemMap:
	case SBT_CM_K_cuMemUnmap:
	case SBT_CM_K_tsSnapshot: return 1;
	default: return 0;
	}
}

/* The HIP call a "hip.<call>" type name names; -1 if none. */
static int sbt_mem_hip_call_of(const char *name)
{
	for (int i = 0; i < SBT_CM_HIP_COUNT; i++) {
		const char *n = sbt_cm_hip_type_name((sbt_cm_hip_call)i);

		if (n && strcmp(n, name) == 0)
			return i;
	}
	return -1;
}

/* Record types from here on are none of ours (the writers number theirs
 * below 0x4000, sbt_compute.h, sbt_vk.h): passed over, so that a type
 * number in a hostile trace cannot make the tables below huge (the
 * emulator reads the same bound). */
#define SBT_MEM_TYPE_LIMIT 0x100000u

/* Which record types are CUDA or HIP calls that change memory, and which
 * Vulkan commands we read; every other record is passed over unread. */
static int sbt_mem_types(sbt_mem *m)
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
		if (type > max && type < SBT_MEM_TYPE_LIMIT)
			max = type;
	m->ntypes = (size_t)max + 1;
	m->kind_of = malloc(m->ntypes * sizeof(*m->kind_of));
	m->hip_of = malloc(m->ntypes * sizeof(*m->hip_of));
	m->vk_of = malloc(m->ntypes * sizeof(*m->vk_of));
	if (!m->kind_of || !m->hip_of || !m->vk_of)
		return -1;
	for (i = 0; i < m->ntypes; i++) {
		m->kind_of[i] = -1;
		m->hip_of[i] = -1;
		m->vk_of[i] = -1;
	}
	/* graph launches, captures and events are read only where graph
	 * memory can be: a trace with allocation nodes or stream captures */
	for (i = 0; sbt_reader_type_at(m->r, i, &type, &name) == SBT_OK; i++) {
		sbt_cm_kind k;
		if (name && (strncmp(name, "cuda.", 5) == 0 || strncmp(name, "hip.", 4) == 0) &&
		    sbt_cm_kind_by_name(name, &k) == 0 &&
		    (k == SBT_CM_K_cuGraphAddMemAllocNode || k == SBT_CM_K_cuStreamBeginCapture))
			m->graphs = 1;
	}
	for (i = 0; sbt_reader_type_at(m->r, i, &type, &name) == SBT_OK; i++) {
		sbt_cm_kind k;
		enum sbt_vk_cmd cmd;
		int hip;
		if (!name || type >= SBT_MEM_TYPE_LIMIT)
			continue;
		hip = strncmp(name, "hip.", 4) == 0 ? sbt_mem_hip_call_of(name) : -1;
		if ((strncmp(name, "cuda.", 5) == 0 || hip >= 0) && sbt_cm_kind_by_name(name, &k) == 0 &&
		    sbt_mem_kind_used(k, m->graphs)) {
			m->kind_of[type] = (int16_t)k;
			m->hip_of[type] = (int16_t)hip;
		}
		if (strncmp(name, "vulkan.", 7) == 0 && sbt_vk_cmd_by_name(name, &cmd) == 0)
			for (j = 0; j < sizeof(vk_cmds) / sizeof(vk_cmds[0]); j++)
				if (vk_cmds[j] == cmd)
					m->vk_of[type] = (int32_t)cmd;
	}
	return 0;
}

int sbt_mem_init(sbt_mem *m, const sbt_reader *r)
{
	memset(m, 0, sizeof(*m));
	m->r = r;
	if (sbt_mem_types(m) != 0 || sbt_vk_arena_create(0, &m->arena) != SBT_VK_OK)
		return -1;
	return 0;
}

int sbt_mem_record(sbt_mem *m, const sbt_record *rec, const sbt_cm_call *call)
{
	sbt_cm_call c;
	int rc = 0;

	if (m->records++ == 0) {
		m->first_time = rec->time_ns;
		m->window_snapshot = rec->type == SBT_TYPE_WINDOW;
	}
	if (rec->time_ns > m->last_time)
		m->last_time = rec->time_ns;
	m->last_seq = rec->seq;
	if (rec->type == SBT_TYPE_SNAPSHOT_END) {
		m->window_snapshot = m->periodic = 0;
		return 0;
	}
	if (m->periodic)
		return 0;
	if (rec->type == SBT_TYPE_KEYFRAME && !m->window_snapshot && rec->payload_len >= 8 &&
	    memcmp(rec->payload, "snapshot", 8) == 0) {
		m->periodic = 1;
		return 0;
	}
	if (rec->type >= m->ntypes)
		return 0;
	m->before = m->window_snapshot ? 1 : 0;
	m->rec = rec;
	if (m->kind_of[rec->type] >= 0) {
		if (!call) {
			if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK)
				goto out; /* tsinfo --dump shows it */
			call = &c;
		}
		m->hip = m->hip_of[rec->type];
		rc = sbt_mem_cuda(m, (sbt_cm_kind)m->kind_of[rec->type], call);
	} else if (m->vk_of[rec->type] >= 0) {
		rc = sbt_mem_vulkan(m, (enum sbt_vk_cmd)m->vk_of[rec->type]);
	}
out:
	m->rec = NULL;
	return rc;
}

void sbt_mem_finish(sbt_mem *m)
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
	free(m->gnodes.v);
	free(m->cstreams.v);
	free(m->cevents.v);
	free(m->live.slots);
	free(m->kind_of);
	free(m->hip_of);
	free(m->vk_of);
	sbt_vk_arena_free(m->arena);
	memset(m, 0, sizeof(*m));
}
