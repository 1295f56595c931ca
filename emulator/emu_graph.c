/*
 * emu_graph.c - a CUDA trace to the happens-before graph of its device
 * commands (docs/emulator.md "What is modeled (CUDA)").
 *
 * One pass over the records, in seq order, keeps what the driver would
 * know at each call: the streams and their flags, the last step of each
 * stream and the event waits not yet followed by work, what each event
 * captured when it was recorded, what each host thread has synchronized
 * with, the live allocations (to resolve kernel pointer arguments), the
 * graphs built by stream capture or node by node, and the snapshot each
 * instantiation of the latter took (the state: emu_build.h; what each call
 * does to it: emu_calls.c).  Keyframes bracketing launches are kept and
 * compared after the pass (emu_kf_apply) to prove write sets.  HIP traces
 * (hip.* records, the same model: docs/emulator.md "HIP") are read the
 * same way.  A trace with no cuda.* or hip.* record type is handed to
 * emu_vk.c (a Vulkan trace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_build.h"
#include "emulator/emu_vk.h"
#include "serializer/sbt_cli.h"

#define EMU_MEMTYPE_HOST 1u
#define EMU_MEMTYPE_DEVICE 2u
#define EMU_MEMTYPE_UNIFIED 4u

const char *emu_strerror(emu_status st)
{
	static const char *const msgs[] = {
#define EMU_X_MSG(name, msg) msg,
		EMU_STATUS_LIST(EMU_X_MSG)
#undef EMU_X_MSG
	};

	return (unsigned)st < EMU_STATUS_COUNT ? msgs[st] : "unknown status";
}

int emu_vec_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -1;
	*v = p;
	*cap = ncap;
	return 0;
}

const char *emu_kind_name(unsigned kind)
{
	static const char *const names[EMU_K_COUNT] = { "kernel", "copy_h2d", "copy_d2h", "copy_d2d",
		                                        "copy", "memset", "graph", "host_fn",
		                                        "dispatch", "draw", "transfer", "fill",
		                                        "render_pass" };
	return kind < EMU_K_COUNT ? names[kind] : "?";
}

unsigned emu_kind_class(unsigned kind)
{
	switch (kind) {
	case EMU_K_H2D:
	case EMU_K_D2H:
	case EMU_K_D2D:
	case EMU_K_COPY:
	case EMU_K_TRANSFER:
	case EMU_K_FILL:
		return EMU_C_COPY;
	case EMU_K_HOSTFN:
		return EMU_C_HOST;
	default:
		return EMU_C_COMPUTE;
	}
}

const char *emu_stream_label(const emu_graph *g, uint32_t s, char *buf, size_t len)
{
	const emu_stream *st = &g->streams.v[s];

	if (st->vk_queue && !st->created)
		snprintf(buf, len, "queue 0x%llx (obtained before the trace)", (unsigned long long)st->handle);
	else if (st->vk_queue)
		snprintf(buf, len, "queue 0x%llx (family %u, index %u)", (unsigned long long)st->handle,
		         st->family, st->index);
	else if (st->legacy)
		snprintf(buf, len, g->hip ? "null stream" : "legacy default stream");
	else if (st->ptds)
		snprintf(buf, len, "per-thread default stream (thread %llu)", (unsigned long long)st->thread);
	else
		snprintf(buf, len, "stream 0x%llx%s", (unsigned long long)st->handle,
		         !st->created ? " (created before the trace)"
		         : (st->flags & 1) ? " (non-blocking)" : "");
	return buf;
}

uint32_t emu_step_exit_node(const emu_graph *g, uint32_t s)
{
	const emu_step *st = &g->steps.v[s];
	uint32_t best = st->node_first;

	for (uint32_t i = 1; i < st->node_count; i++)
		if (g->nodes.v[st->node_first + i].end_ns > g->nodes.v[best].end_ns)
			best = st->node_first + i;
	return best;
}


uint32_t emu_name_put(emu_graph *g, const void *s, size_t len)
{
	uint32_t off = (uint32_t)g->names.n;

	while (g->names.n + len + 1 > g->names.cap)
		if (emu_vec_grow((void **)&g->names.v, &g->names.cap, g->names.cap, 1) != 0)
			return EMU_NONE;
	memcpy(g->names.v + g->names.n, s, len);
	g->names.n += len;
	g->names.v[g->names.n++] = 0;
	return off;
}

/* ---- streams, threads, events ----------------------------------------------- */

/* The device of the thread's current context (0 when the trace does not say). */
static int32_t emu_device_of(emu_builder *b, uint64_t thread)
{
	emu_bthread *t = emu_thread_of(b, thread);
	uint64_t ctx;

	if (!t || t->ctx.n == 0)
		return 0;
	ctx = t->ctx.v[t->ctx.n - 1];
	for (size_t i = b->ctxs.n; i-- > 0;)
		if (b->ctxs.v[i].ctx == ctx)
			return (int32_t)b->ctxs.v[i].device;
	return 0;
}

uint32_t emu_stream_new(emu_builder *b, uint64_t handle, uint32_t flags, int created)
{
	emu_stream s = { 0 };
	emu_bstream bs = { 0 };

	s.handle = handle;
	s.flags = flags;
	s.created = (uint8_t)created;
	s.device = emu_device_of(b, b->rec->thread);
	bs.last = bs.legacy_seen = bs.legacy_synced = bs.capture = EMU_NONE;
	bs.live = 1;
	b->stream_gen++; /* a newer stream may take a handle: emu_stream_of's cache is stale */
	if (EMU_PUSH(b->g->streams, s) != 0 || EMU_PUSH(b->bs, bs) != 0)
		return EMU_NONE;
	return (uint32_t)b->g->streams.n - 1;
}

/* The stream a call names: the legacy one for 0 (unless per-thread) and
 * CU_STREAM_LEGACY, the thread's own for CU_STREAM_PER_THREAD and 0 with
 * ptds, else the live stream of that handle (made on first sight). */
uint32_t emu_stream_of(emu_builder *b, uint64_t handle, int ptds, uint64_t thread)
{
	emu_graph *g = b->g;
	emu_scache *e;
	int32_t dev;
	uint32_t s;

	if ((handle == 0 && !ptds) || handle == EMU_STREAM_LEGACY_HANDLE) {
		dev = emu_device_of(b, thread);
		for (s = 0; s < g->streams.n; s++)
			if (g->streams.v[s].legacy && g->streams.v[s].device == dev)
				return s;
		s = emu_stream_new(b, 0, 0, 1);
		if (s != EMU_NONE)
			g->streams.v[s].legacy = 1;
		return s;
	}
	if (handle == 0 || handle == EMU_STREAM_PER_THREAD_HANDLE) {
		dev = emu_device_of(b, thread);
		for (s = 0; s < g->streams.n; s++)
			if (g->streams.v[s].ptds && g->streams.v[s].thread == thread && g->streams.v[s].device == dev)
				return s;
		s = emu_stream_new(b, EMU_STREAM_PER_THREAD_HANDLE, 0, 1);
		if (s != EMU_NONE) {
			g->streams.v[s].ptds = 1;
			g->streams.v[s].thread = thread;
		}
		return s;
	}
	/* the stream found for a handle stays the newest live one of that
	 * handle until a stream is made (streams only stop being live): the
	 * cache's entries are of one generation of streams */
	e = &b->scache[(handle ^ handle >> 12 ^ handle >> 32) & (EMU_SCACHE - 1)];
	if (e->gen == b->stream_gen && e->handle == handle && b->bs.v[e->stream].live)
		return e->stream;
	for (s = (uint32_t)g->streams.n; s-- > 0;)
		if (b->bs.v[s].live && !g->streams.v[s].legacy && !g->streams.v[s].ptds &&
		    g->streams.v[s].handle == handle)
			break;
	if (s == UINT32_MAX)
		s = emu_stream_new(b, handle, 0, 0);
	if (s != EMU_NONE) {
		e->handle = handle;
		e->stream = s;
		e->gen = b->stream_gen;
	}
	return s;
}

emu_bthread *emu_thread_of(emu_builder *b, uint64_t thread)
{
	emu_bthread t = { 0 };

	if (b->thread_last < b->threads.n && b->threads.v[b->thread_last].thread == thread)
		return &b->threads.v[b->thread_last];
	for (size_t i = 0; i < b->threads.n; i++)
		if (b->threads.v[i].thread == thread) {
			b->thread_last = i;
			return &b->threads.v[i];
		}
	t.thread = thread;
	if (EMU_PUSH(b->threads, t) != 0)
		return NULL;
	return &b->threads.v[b->threads.n - 1];
}

emu_bevent *emu_event_of(emu_builder *b, uint64_t handle, int make)
{
	emu_bevent e = { 0 };

	for (size_t i = b->events.n; i-- > 0;)
		if (b->events.v[i].handle == handle)
			return &b->events.v[i];
	if (!make)
		return NULL;
	e.handle = handle;
	e.capture = EMU_NONE;
	if (EMU_PUSH(b->events, e) != 0)
		return NULL;
	return &b->events.v[b->events.n - 1];
}

/* The host thread has waited for step s. */
int emu_host_sync(emu_builder *b, uint64_t thread, uint32_t s)
{
	if (s == EMU_NONE)
		return 0;
	return emu_host_sync_dep(b, thread, &(emu_dep){ s, EMU_D_HOST, 0 });
}

int emu_host_sync_dep(emu_builder *b, uint64_t thread, const emu_dep *d)
{
	emu_bthread *t = emu_thread_of(b, thread);

	if (!t || EMU_PUSH(t->syncs, *d) != 0)
		return -1;
	/* a wait on part of a launch says nothing of the whole step */
	return d->node1 ? 0 : emu_obs_add(b->g, b->rec->seq, b->rec->time_ns, d->step);
}

/* ... for everything issued so far (context synchronize, frees). */
int emu_host_sync_all(emu_builder *b, uint64_t thread)
{
	for (size_t s = 0; s < b->bs.n; s++)
		if (emu_host_sync(b, thread, b->bs.v[s].last) != 0)
			return -1;
	return 0;
}

/* ---- allocations ---------------------------------------------------------- */

/* Index in g->allocs of the live allocation holding addr, or 0. */
uint32_t emu_alloc_find(const emu_builder *b, uint64_t addr)
{
	const emu_alloc *a = b->g->allocs.v;
	size_t lo = 0, hi = b->live.n;

	while (lo < hi) { /* first live allocation with base > addr */
		size_t mid = (lo + hi) / 2;

		if (a[b->live.v[mid]].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* nested ranges (a global inside a mapped range) are rare: look back a few */
	for (size_t i = lo, k = 0; i-- > 0 && k < 4; k++) {
		const emu_alloc *x = &a[b->live.v[i]];

		if (addr >= x->base && addr - x->base < x->size)
			return b->live.v[i];
	}
	return 0;
}

int emu_alloc_add(emu_builder *b, uint64_t base, uint64_t size, int host, uint64_t seq,
                         uint32_t stack_id)
{
	emu_graph *g = b->g;
	emu_alloc a = { 0 };
	uint32_t idx;
	size_t pos;

	if (size == 0)
		return 0;
	a.base = base;
	a.size = size;
	a.seq = seq;
	a.host = (uint8_t)host;
	a.stack_id = stack_id;
	if (EMU_PUSH(g->allocs, a) != 0 || EMU_PUSH(b->live, 0) != 0)
		return -1;
	idx = (uint32_t)g->allocs.n - 1;
	pos = b->live.n - 1;
	while (pos > 0 && g->allocs.v[b->live.v[pos - 1]].base > base) {
		b->live.v[pos] = b->live.v[pos - 1];
		pos--;
	}
	b->live.v[pos] = idx;
	return 0;
}

void emu_alloc_end(emu_builder *b, uint64_t base, uint64_t seq, int nodes)
{
	for (size_t i = 0; i < b->live.n; i++) {
		emu_alloc *a = &b->g->allocs.v[b->live.v[i]];

		if (a->base == base && (nodes || a->graph != EMU_GA_NODE)) {
			a->free_seq = seq;
			memmove(&b->live.v[i], &b->live.v[i + 1], (b->live.n - i - 1) * sizeof(uint32_t));
			b->live.n--;
			return;
		}
	}
}

int emu_alloc_graph_node(emu_builder *b, emu_u32vec *gmem)
{
	uint32_t idx = (uint32_t)b->g->allocs.n - 1;

	b->g->allocs.v[idx].graph = EMU_GA_NODE;
	return EMU_PUSH(*gmem, idx);
}

/* A launch of cap allocates its graph memory anew: one EMU_GA_LAUNCH
 * allocation per range, named by the launch's accesses to it (and by
 * later work's, until the next launch). */
static int emu_launch_gmem(emu_builder *b, const emu_capture *cap)
{
	emu_graph *g = b->g;

	for (size_t i = 0; i < cap->gmem.n; i++) {
		emu_alloc a = g->allocs.v[cap->gmem.v[i]];

		a.seq = b->rec->seq;
		a.stack_id = b->rec->stack_id;
		a.free_seq = 0;
		a.graph = EMU_GA_LAUNCH;
		a.inst = 0;
		if (EMU_PUSH(g->allocs, a) != 0)
			return -1;
		g->allocs.v[cap->gmem.v[i]].inst = (uint32_t)g->allocs.n - 1;
	}
	return 0;
}

/* The exports' memory counter: every change of memory in use that m
 * accounted for, in sequence order, on the host or on a device. */
emu_status emu_mem_counter(emu_graph *g, const sbt_mem *m)
{
	for (size_t i = 0; i < m->events.n; i++) {
		const sbt_mem_event *e = &m->events.v[i];
		int host = m->devs.v[m->groups.v[e->group].dev].api == SBT_MEM_API_HOST;
		emu_memev x = { e->seq, host ? 0 : e->delta, host ? e->delta : 0 };

		if (e->delta && EMU_PUSH(g->mem, x) != 0)
			return EMU_ERR_NOMEM;
	}
	return EMU_OK;
}

/* ---- steps and nodes -------------------------------------------------------- */

static int emu_dep_add(emu_builder *b, uint32_t step, uint32_t kind)
{
	return emu_dep_push(&b->tmp, step, kind);
}

/* A new step on stream s issued by the record being read: its dependencies
 * by stream order, pending event waits, the legacy stream's implicit
 * synchronization, and what the issuing thread synchronized with. */
static uint32_t emu_step_begin(emu_builder *b, uint32_t s)
{
	emu_graph *g = b->g;
	emu_bstream *bs = &b->bs.v[s];
	const emu_stream *st = &g->streams.v[s];
	emu_step step = { 0 };
	emu_bthread *t;
	size_t seen = 0, i;
	uint32_t id = (uint32_t)g->steps.n;

	if (g->first_ns == UINT64_MAX)
		g->first_ns = b->rec->time_ns;
	emu_depvec_clear(&b->tmp);
	if (emu_dep_add(b, bs->last, EMU_D_STREAM) != 0)
		return EMU_NONE;
	for (i = 0; i < bs->pending.n; i++) /* event waits, and memory waits (EMU_D_VALUE) */
		if (emu_dep_push_dep(&b->tmp, &bs->pending.v[i], bs->pending.v[i].kind) != 0)
			return EMU_NONE;
	emu_depvec_clear(&bs->pending);
	if (st->legacy) {
		/* the legacy stream waits for all blocking streams' work (of its device) */
		for (size_t o = 0; o < b->bs.n; o++) {
			emu_bstream *ob = &b->bs.v[o];

			if (o == s || (g->streams.v[o].flags & 1) || g->streams.v[o].device != st->device ||
			    ob->last == EMU_NONE || ob->last == ob->legacy_synced)
				continue;
			if (emu_dep_add(b, ob->last, EMU_D_LEGACY) != 0)
				return EMU_NONE;
			ob->legacy_synced = ob->last;
		}
	} else if (!(st->flags & 1)) {
		/* a blocking stream waits for the legacy stream's work */
		for (size_t o = 0; o < b->bs.n; o++) {
			emu_bstream *lb = &b->bs.v[o];

			if (!g->streams.v[o].legacy || g->streams.v[o].device != st->device || lb->last == EMU_NONE ||
			    lb->last == bs->legacy_seen)
				continue;
			if (emu_dep_add(b, lb->last, EMU_D_LEGACY) != 0)
				return EMU_NONE;
			bs->legacy_seen = lb->last;
		}
	}
	t = emu_thread_of(b, b->rec->thread);
	if (!t)
		return EMU_NONE;
	for (i = 0; i + 1 < bs->host_seen.n; i += 2)
		if (bs->host_seen.v[i] == t->thread)
			break;
	if (i + 1 < bs->host_seen.n) {
		seen = (size_t)bs->host_seen.v[i + 1];
	} else if (EMU_PUSH(bs->host_seen, t->thread) != 0 || EMU_PUSH(bs->host_seen, 0) != 0) {
		return EMU_NONE;
	}
	for (size_t k = seen; k < t->syncs.n; k++)
		if (emu_dep_push_dep(&b->tmp, &t->syncs.v[k], EMU_D_HOST) != 0)
			return EMU_NONE;
	bs->host_seen.v[i + 1] = t->syncs.n;

	step.seq = b->rec->seq;
	step.stream = s;
	step.pos = ++g->streams.v[s].steps;
	step.node_first = (uint32_t)g->nodes.n;
	step.dep_first = (uint32_t)g->deps.n;
	step.dep_count = (uint32_t)b->tmp.n;
	for (i = 0; i < b->tmp.n; i++)
		if (EMU_PUSH(g->deps, b->tmp.v[i]) != 0)
			return EMU_NONE;
	if (EMU_PUSH(g->steps, step) != 0 || emu_captimes_step(g, b->rec->thread) != 0)
		return EMU_NONE;
	bs->last = id;
	return id;
}

static void emu_node_init(emu_builder *b, emu_node *n, unsigned kind, uint32_t name)
{
	memset(n, 0, sizeof(*n));
	n->seq = b->rec->seq;
	n->issue_ns = b->rec->time_ns;
	n->tid = b->rec->thread;
	n->stack_id = b->rec->stack_id;
	n->kind = (uint8_t)kind;
	n->name = name;
	n->engine = -1;
	n->crit_pred = EMU_NONE;
	n->step = EMU_NONE;
	n->stream = EMU_NONE;
}

/* Where accesses of the node being built go: the graph, or a capture. */
typedef struct emu_target {
	emu_accvec *acc;
	uint32_t node;
} emu_target;

static int emu_access_add(emu_builder *b, emu_target *t, uint64_t addr, uint64_t len, uint32_t mode)
{
	emu_access a;

	if (len == 0 || addr == 0)
		return 0;
	a.lo = addr;
	a.hi = addr + len < addr ? UINT64_MAX : addr + len;
	a.node = t->node;
	a.alloc = emu_alloc_find(b, addr);
	a.mode = mode;
	a.inst = b->g->allocs.v[a.alloc].inst;
	return EMU_PUSH(*t->acc, a);
}

/* One parameter word v: when it points into a live allocation, the whole
 * allocation is read and perhaps written (once per node). */
static int emu_access_word(emu_builder *b, emu_target *t, uint64_t v, size_t first)
{
	uint32_t al = v ? emu_alloc_find(b, v) : 0;

	if (!al)
		return 0;
	for (size_t i = first; i < t->acc->n; i++)
		if (t->acc->v[i].alloc == al)
			return 0;
	{
		const emu_alloc *a = &b->g->allocs.v[al];
		emu_access x = { a->base, a->base + a->size, t->node, al, EMU_A_READ | EMU_A_MAYWRITE, a->inst };

		return EMU_PUSH(*t->acc, x);
	}
}

/* A little-endian word, written out so that the compiler makes it one load. */
static uint64_t emu_load64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
	       (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* Every 8-byte aligned word of the bytes p[0..len) that points into a live
 * allocation. */
static int emu_access_words(emu_builder *b, emu_target *t, const uint8_t *p, size_t len, size_t first)
{
	for (size_t off = 0; off + 8 <= len; off += 8)
		if (emu_access_word(b, t, emu_load64(p + off), first) != 0)
			return -1;
	return 0;
}

/* A launch's pointer arguments.  CUDA: every aligned word of the
 * parameters (or the extra buffer).  HIP: the layout is the code object's
 * explicit arguments (amdhsa metadata, recorded by capture), so only the
 * aligned words inside an argument count, as the HIP replay rewrites them
 * (a global_buffer argument is one word; a by_value struct may hold
 * several pointers the metadata does not mark); with no layout, every
 * aligned word. */
static int emu_access_args(emu_builder *b, emu_target *t, const sbt_cm_call *c, size_t first)
{
	size_t nl = b->hip >= 0 ? sbt_cm_layout_count(c) : 0;

	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *p = pass ? c->extra : c->params;
		size_t len = pass ? c->extra_len : c->params_len;

		if (!nl) {
			if (emu_access_words(b, t, p, len, first) != 0)
				return -1;
			continue;
		}
		for (size_t i = 0; i < nl; i++) {
			uint32_t off, size;

			sbt_cm_layout_at(c, i, &off, &size);
			for (uint64_t w = ((uint64_t)off + 7) & ~7ull; w + 8 <= (uint64_t)off + size && w + 8 <= len; w += 8)
				if (emu_access_word(b, t, emu_load64(p + w), first) != 0)
					return -1;
		}
	}
	return 0;
}

/* The range a 2D/3D copy touches on one side (a superset: whole rows). */
static void emu_range_2d(uint64_t base, uint64_t x, uint64_t y, uint64_t z, uint64_t pitch,
                         uint64_t h, uint64_t width, uint64_t height, uint64_t depth,
                         uint64_t *addr_out, uint64_t *len_out)
{
	uint64_t rows = height ? height : 1, planes = depth ? depth : 1;

	if (!pitch)
		pitch = width;
	*addr_out = base + z * (h ? h : rows) * pitch + y * pitch + x;
	*len_out = (planes - 1) * (h ? h : rows) * pitch + (rows - 1) * pitch + width;
}

/* The stream memory operations of a record (params: 48 bytes each, as
 * x86-64 cuda.h lays out CUstreamBatchMemOpParams: operation, u32 at 0;
 * address, u64 at 8; value (u32) or value64 at 16): a write-value writes
 * its 4 or 8 bytes, a wait-value reads them; barriers and flushes touch
 * no memory.  A memset-like command. */
static int emu_fill_memop(emu_builder *b, const sbt_cm_call *c, emu_node *n, emu_target *t)
{
	size_t len = c->params_len - c->params_len % 48;

	n->kind = EMU_K_MEMSET;
	n->mop_off = (uint32_t)b->mops.n;
	n->mop_len = (uint32_t)len;
	for (size_t i = 0; i < len; i++) /* kept for the waits of graph launches */
		if (EMU_PUSH(b->mops, c->params[i]) != 0)
			return -1;
	for (size_t at = 0; at + 48 <= c->params_len; at += 48) {
		uint32_t op;
		uint64_t addr;

		memcpy(&op, c->params + at, 4);
		memcpy(&addr, c->params + at + 8, 8);
		if (op == 1 || op == 4) { /* WAIT_VALUE_32, _64 */
			if (emu_access_add(b, t, addr, op == 4 ? 8 : 4, EMU_A_READ) != 0)
				return -1;
		} else if (op == 2 || op == 5) { /* WRITE_VALUE_32, _64 */
			if (emu_access_add(b, t, addr, op == 5 ? 8 : 4, EMU_A_WRITE) != 0)
				return -1;
		}
		n->bytes += op == 4 || op == 5 ? 8 : op == 1 || op == 2 ? 4 : 0;
	}
	return 0;
}

/* Fill node n (being built as target t) for a copy or memset record. */
static int emu_fill_transfer(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c, emu_node *n,
                             emu_target *t)
{
	uint64_t addr, len;
	unsigned kind;

	if (emu_memop_kind(k))
		return emu_fill_memop(b, c, n, t);

	switch (c->sub) {
	case SBT_CM_COPY_HTOD: kind = EMU_K_H2D; break;
	case SBT_CM_COPY_DTOH: kind = EMU_K_D2H; break;
	case SBT_CM_COPY_DTOD: kind = EMU_K_D2D; break;
	default: kind = EMU_K_COPY; break;
	}
	switch (k) {
	case SBT_CM_K_cuMemcpyHtoD:
	case SBT_CM_K_cuMemcpyHtoDAsync:
		kind = EMU_K_H2D;
		break;
	case SBT_CM_K_cuMemcpyDtoH:
	case SBT_CM_K_cuMemcpyDtoHAsync:
		kind = EMU_K_D2H;
		break;
	case SBT_CM_K_cuMemcpyDtoD:
	case SBT_CM_K_cuMemcpyDtoDAsync:
	case SBT_CM_K_cuMemcpyPeer:
	case SBT_CM_K_cuMemcpyPeerAsync:
		kind = EMU_K_D2D;
		break;
	case SBT_CM_K_cuMemcpyHtoA:
	case SBT_CM_K_cuMemcpyHtoAAsync:
		n->kind = EMU_K_H2D;
		n->bytes = c->size;
		return 0; /* an array's contents are not device memory by address */
	case SBT_CM_K_cuMemcpyAtoH:
	case SBT_CM_K_cuMemcpyAtoHAsync:
		n->kind = EMU_K_D2H;
		n->bytes = c->size;
		return 0;
	case SBT_CM_K_cuMemcpyAtoD:
	case SBT_CM_K_cuMemcpyDtoA:
	case SBT_CM_K_cuMemcpyAtoA:
		/* the linear side's range (dst_x/src_x are the array sides' offsets) */
		n->kind = EMU_K_D2D;
		n->bytes = c->size;
		if (k == SBT_CM_K_cuMemcpyAtoD)
			return emu_access_add(b, t, c->dst, c->size, EMU_A_WRITE);
		if (k == SBT_CM_K_cuMemcpyDtoA)
			return emu_access_add(b, t, c->src, c->size, EMU_A_READ);
		return 0;
	default:
		break;
	}
	if (k >= SBT_CM_K_cuMemsetD8 && k <= SBT_CM_K_cuMemsetD2D32Async) {
		uint64_t row = c->width * (c->elem_size ? c->elem_size : 1);

		n->kind = EMU_K_MEMSET;
		if (c->height && c->depth && (!c->pitch || c->pitch == row)) {
			/* hipMemset3D whose pitch is its width: one piece of
			 * width x height x depth bytes (the rows a slice unused) */
			addr = c->dst;
			len = n->bytes = row * c->height * c->depth;
		} else if (c->height) {
			/* 2D, and hipMemset3D's slices of dst_height rows */
			emu_range_2d(c->dst, 0, 0, 0, c->pitch, c->dst_height, row, c->height, c->depth,
			             &addr, &len);
			n->bytes = row * c->height * (c->depth ? c->depth : 1);
		} else {
			addr = c->dst;
			len = n->bytes = c->size ? c->size : row;
		}
		return emu_access_add(b, t, addr, len, EMU_A_WRITE);
	}
	n->kind = (uint8_t)kind;
	if (k >= SBT_CM_K_cuMemcpy2D && k <= SBT_CM_K_cuMemcpy3DAsync) {
		n->bytes = c->width * (c->height ? c->height : 1) * (c->depth ? c->depth : 1);
		if (c->dst_type == EMU_MEMTYPE_DEVICE || c->dst_type == EMU_MEMTYPE_UNIFIED) {
			emu_range_2d(c->dst, c->dst_x, c->dst_y, c->dst_z, c->dst_pitch, c->dst_height,
			             c->width, c->height, c->depth, &addr, &len);
			if (emu_access_add(b, t, addr, len, EMU_A_WRITE) != 0)
				return -1;
		}
		if (c->src_type == EMU_MEMTYPE_DEVICE || c->src_type == EMU_MEMTYPE_UNIFIED) {
			emu_range_2d(c->src, c->src_x, c->src_y, c->src_z, c->src_pitch, c->src_height,
			             c->width, c->height, c->depth, &addr, &len);
			if (emu_access_add(b, t, addr, len, EMU_A_READ) != 0)
				return -1;
		}
		return 0;
	}
	n->bytes = c->size;
	if (kind == EMU_K_H2D || kind == EMU_K_D2D || kind == EMU_K_COPY)
		if (emu_access_add(b, t, c->dst, c->size, EMU_A_WRITE) != 0)
			return -1;
	if (kind == EMU_K_D2H || kind == EMU_K_D2D || kind == EMU_K_COPY)
		if (emu_access_add(b, t, c->src, c->size, EMU_A_READ) != 0)
			return -1;
	return 0;
}

/* The arena offset of a launch's name: the copy the last launch of the
 * same function handle put there when it is the same name (a kernel
 * launched a million times keeps one copy), else a new one.  A
 * direct-mapped cache: a collision only costs a second copy. */
static uint32_t emu_name_cached(emu_builder *b, uint64_t handle, const void *s, size_t len)
{
	emu_kname *e = &b->knames[(handle ^ handle >> 17 ^ handle >> 32) & (EMU_KNAMES - 1)];
	uint32_t off;

	if (e->len == len && e->handle == handle && e->off != EMU_NONE &&
	    memcmp(b->g->names.v + e->off, s, len) == 0)
		return e->off;
	off = emu_name_put(b->g, s, len);
	e->handle = handle;
	e->off = off;
	e->len = len;
	return off;
}

uint32_t emu_kernel_name(emu_builder *b, const sbt_cm_call *c)
{
	char buf[40];

	if (c->name_len)
		return emu_name_cached(b, c->handle, c->name, c->name_len);
	snprintf(buf, sizeof(buf), "function 0x%llx", (unsigned long long)c->handle);
	return emu_name_cached(b, c->handle, buf, strlen(buf));
}

/* A command recorded while its stream was capturing: a template node of the
 * capture, after the stream's capture frontier. */
int emu_capture_node(emu_builder *b, uint32_t s, sbt_cm_kind k, const sbt_cm_call *c,
                            uint32_t name)
{
	emu_bstream *bs = &b->bs.v[s];
	emu_capture *cap = &b->caps.v[bs->capture];
	emu_node n;
	emu_target t = { &cap->acc, (uint32_t)cap->nodes.n };

	emu_node_init(b, &n, EMU_K_KERNEL, name);
	n.acc_first = (uint32_t)cap->acc.n;
	n.ipred_first = (uint32_t)cap->ipreds.n;
	n.ipred_count = (uint32_t)bs->cap_front.n;
	for (size_t i = 0; i < bs->cap_front.n; i++)
		if (EMU_PUSH(cap->ipreds, bs->cap_front.v[i]) != 0)
			return -1;
	if (k == SBT_CM_K_cuLaunchKernel || k == SBT_CM_K_cuLaunchKernelEx ||
	    k == SBT_CM_K_cuLaunchCooperativeKernel) {
		if (emu_access_args(b, &t, c, cap->acc.n) != 0)
			return -1;
	} else if (emu_fill_transfer(b, k, c, &n, &t) != 0) {
		return -1;
	}
	n.acc_count = (uint32_t)(cap->acc.n - n.acc_first);
	if (EMU_PUSH(cap->nodes, n) != 0)
		return -1;
	bs->cap_front.n = 0;
	return EMU_PUSH(bs->cap_front, (uint32_t)cap->nodes.n - 1);
}

int emu_graph_node_fill(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c, emu_accvec *acc, uint32_t idx,
                        emu_node *n)
{
	emu_target t = { acc, idx };
	const char *kn = sbt_cm_kind_name(k);
	size_t first = acc->n;

	int memcpy_node = k == SBT_CM_K_cuGraphAddMemcpyNode || k == SBT_CM_K_cuGraphMemcpyNodeSetParams ||
	                  k == SBT_CM_K_cuGraphExecMemcpyNodeSetParams;

	/* a setter's node keeps the name of the call that added it */
	if (memcpy_node)
		kn = sbt_cm_kind_name(SBT_CM_K_cuGraphAddMemcpyNode);
	else if (k == SBT_CM_K_cuGraphMemsetNodeSetParams || k == SBT_CM_K_cuGraphExecMemsetNodeSetParams)
		kn = sbt_cm_kind_name(SBT_CM_K_cuGraphAddMemsetNode);
	/* HIP names the call that added it ("hipGraphAddMemcpyNode1D"); a
	 * setter's node, the add call of its kind */
	if (b->hip >= 0 && (k == SBT_CM_K_cuGraphAddMemcpyNode || k == SBT_CM_K_cuGraphAddMemsetNode))
		kn = sbt_cm_hip_name((sbt_cm_hip_call)b->hip);
	else if (b->hip == SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams1D)
		kn = sbt_cm_hip_name(SBT_CM_HIP_hipGraphAddMemcpyNode1D);
	else if (b->hip >= 0 && memcpy_node)
		kn = sbt_cm_hip_name(SBT_CM_HIP_hipGraphAddMemcpyNode);
	else if (b->hip >= 0 && (k == SBT_CM_K_cuGraphMemsetNodeSetParams ||
	                         k == SBT_CM_K_cuGraphExecMemsetNodeSetParams))
		kn = sbt_cm_hip_name(SBT_CM_HIP_hipGraphAddMemsetNode);
	if (k == SBT_CM_K_cuGraphAddKernelNode || k == SBT_CM_K_cuGraphKernelNodeSetParams ||
	    k == SBT_CM_K_cuGraphExecKernelNodeSetParams) {
		emu_node_init(b, n, EMU_K_KERNEL, emu_kernel_name(b, c));
		if (emu_access_args(b, &t, c, first) != 0)
			return -1;
	} else if (emu_memop_kind(k)) {
		/* a setter's node keeps the name of the call that added it */
		kn = sbt_cm_kind_name(SBT_CM_K_cuGraphAddBatchMemOpNode);
		emu_node_init(b, n, EMU_K_MEMSET, emu_name_put(b->g, kn, strlen(kn)));
		if (emu_fill_memop(b, c, n, &t) != 0)
			return -1;
	} else {
		/* a memcpy node holds a cuMemcpy3D's fields, a memset node a 2D memset's */
		emu_node_init(b, n, EMU_K_COPY, emu_name_put(b->g, kn, strlen(kn)));
		if (emu_fill_transfer(b, memcpy_node ? SBT_CM_K_cuMemcpy3D : SBT_CM_K_cuMemsetD2D8,
		                      c, n, &t) != 0)
			return -1;
	}
	n->acc_first = (uint32_t)first;
	n->acc_count = (uint32_t)(acc->n - first);
	return 0;
}

/* What a node is in a snapshot: a disabled work node (an exec's copy) is
 * an empty one. */
#define EMU_GN_WHAT(gn) ((gn)->off ? (unsigned)EMU_GN_EMPTY : (unsigned)(gn)->what)

uint32_t emu_ngraph_snapshot(emu_builder *b, const emu_ngraph *ng, int *rc)
{
	size_t nn = ng->nodes.n, ne = ng->edges.n, done = 0, live = 0;
	uint32_t *in_first = calloc(nn + 1, sizeof(uint32_t)), *in_from = malloc((ne + 1) * sizeof(uint32_t));
	uint32_t *indeg = calloc(nn + 1, sizeof(uint32_t)), *order = malloc((nn + 1) * sizeof(uint32_t));
	uint32_t *out_first = calloc(nn + 1, sizeof(uint32_t)), *out_to = malloc((ne + 1) * sizeof(uint32_t));
	uint32_t *newidx = malloc((nn + 1) * sizeof(uint32_t)), *fill = calloc(nn + 1, sizeof(uint32_t));
	emu_u32vec *real = calloc(nn + 1, sizeof(emu_u32vec)); /* per node: the work it follows */
	/* per node: the events of the wait nodes it follows through ordering nodes only */
	EMU_VEC(uint64_t) *wev = calloc(nn + 1, sizeof(*wev));
	emu_capture cap = { 0 };
	uint32_t ci = EMU_NONE;

	*rc = -1;
	if (!in_first || !in_from || !indeg || !order || !out_first || !out_to || !newidx || !fill || !real ||
	    !wev)
		goto out_free;
	/* edges by their target and by their source (destroyed nodes have none) */
	for (size_t e = 0; e < ne; e++) {
		in_first[ng->edges.v[e].to]++;
		out_first[ng->edges.v[e].from]++;
		indeg[ng->edges.v[e].to]++;
	}
	for (size_t i = 0, a = 0, o = 0; i <= nn; i++) {
		uint32_t x = in_first[i], y = out_first[i];

		in_first[i] = (uint32_t)a;
		out_first[i] = (uint32_t)o;
		a += x;
		o += y;
	}
	for (size_t e = 0; e < ne; e++) {
		const emu_gedge *ed = &ng->edges.v[e];

		in_from[in_first[ed->to] + fill[ed->to]++] = ed->from;
	}
	memset(fill, 0, (nn + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < ne; e++) {
		const emu_gedge *ed = &ng->edges.v[e];

		out_to[out_first[ed->from] + fill[ed->from]++] = ed->to;
	}
	/* Kahn's order, ready nodes first come first served in creation order */
	for (size_t i = 0; i < nn; i++) {
		if (!ng->nodes.v[i].live)
			continue;
		live++;
		if (indeg[i] == 0)
			order[done++] = (uint32_t)i;
	}
	for (size_t h = 0; h < done; h++)
		for (uint32_t e = out_first[order[h]]; e < out_first[order[h] + 1]; e++)
			if (--indeg[out_to[e]] == 0)
				order[done++] = out_to[e];
	if (done < live) {
		*rc = 0; /* a cycle: CUDA refuses it; the launch stays one command */
		goto out_free;
	}
	cap.graph = 0;
	for (size_t h = 0; h < done; h++) {
		uint32_t i = order[h];
		const emu_gnode *gn = &ng->nodes.v[i];

		/* the work before i: its work predecessors, and what its
		 * ordering predecessors follow */
		for (uint32_t e = in_first[i]; e < in_first[i + 1]; e++) {
			uint32_t p = in_from[e];
			const emu_u32vec *src = &real[p];
			uint32_t one = newidx[p];

			if (EMU_GN_WHAT(&ng->nodes.v[p]) == EMU_GN_WORK)
				src = NULL;
			for (size_t q = 0; q < (src ? src->n : 1); q++) {
				uint32_t w = src ? src->v[q] : one;
				size_t d = 0;

				while (d < real[i].n && real[i].v[d] != w)
					d++;
				if (d == real[i].n && EMU_PUSH(real[i], w) != 0)
					goto out_free;
			}
			/* a wait node's event, and those an ordering node passes on */
			if (EMU_GN_WHAT(&ng->nodes.v[p]) == EMU_GN_WORK)
				continue;
			for (size_t q = 0; q <= wev[p].n; q++) {
				uint64_t ev = q < wev[p].n ? wev[p].v[q] : ng->nodes.v[p].event;
				size_t d = 0;

				if (q == wev[p].n && EMU_GN_WHAT(&ng->nodes.v[p]) != EMU_GN_WAIT)
					break;
				while (d < wev[i].n && wev[i].v[d] != ev)
					d++;
				if (d == wev[i].n && EMU_PUSH(wev[i], ev) != 0)
					goto out_free;
			}
		}
		newidx[i] = EMU_NONE;
		if (EMU_GN_WHAT(gn) == EMU_GN_RECORD) {
			emu_tevent r = { gn->event, EMU_NONE, (uint32_t)cap.after.n, (uint32_t)real[i].n,
			                 (uint32_t)cap.after_ev.n, (uint32_t)wev[i].n };

			if (EMU_PUSH(cap.records, r) != 0)
				goto out_free;
			for (size_t q = 0; q < real[i].n; q++)
				if (EMU_PUSH(cap.after, real[i].v[q]) != 0)
					goto out_free;
			for (size_t q = 0; q < wev[i].n; q++)
				if (EMU_PUSH(cap.after_ev, wev[i].v[q]) != 0)
					goto out_free;
		}
		if (EMU_GN_WHAT(gn) == EMU_GN_WAIT) {
			emu_tevent w = { gn->event, EMU_NONE, 0, 0, 0, 0 };

			if (EMU_PUSH(cap.waits, w) != 0)
				goto out_free;
		}
		if (EMU_GN_WHAT(gn) != EMU_GN_WORK)
			continue;
		for (size_t q = 0; q < wev[i].n; q++) {
			emu_tevent x = { wev[i].v[q], (uint32_t)cap.nodes.n, 0, 0, 0, 0 };

			if (EMU_PUSH(cap.xwaits, x) != 0)
				goto out_free;
		}
		{
			emu_node n = gn->n;

			newidx[i] = (uint32_t)cap.nodes.n;
			n.ipred_first = (uint32_t)cap.ipreds.n;
			n.ipred_count = (uint32_t)real[i].n;
			for (size_t q = 0; q < real[i].n; q++)
				if (EMU_PUSH(cap.ipreds, real[i].v[q]) != 0)
					goto out_free;
			n.acc_first = (uint32_t)cap.acc.n;
			for (uint32_t a = 0; a < gn->n.acc_count; a++) {
				emu_access x = ng->acc.v[gn->n.acc_first + a];

				x.node = newidx[i];
				if (EMU_PUSH(cap.acc, x) != 0)
					goto out_free;
			}
			if (EMU_PUSH(cap.nodes, n) != 0 || EMU_PUSH(cap.handles, gn->handle) != 0)
				goto out_free;
		}
	}
	for (size_t i = 0; i < ng->gmem.n; i++)
		if (EMU_PUSH(cap.gmem, ng->gmem.v[i]) != 0)
			goto out_free;
	if (EMU_PUSH(b->caps, cap) != 0)
		goto out_free;
	memset(&cap, 0, sizeof(cap));
	ci = (uint32_t)b->caps.n - 1;
	*rc = 0;
out_free:
	for (size_t i = 0; real && i < nn; i++)
		free(real[i].v);
	for (size_t i = 0; wev && i < nn; i++)
		free(wev[i].v);
	free(real);
	free(wev);
	free(cap.nodes.v);
	free(cap.ipreds.v);
	free(cap.acc.v);
	free(cap.handles.v);
	free(cap.records.v);
	free(cap.waits.v);
	free(cap.xwaits.v);
	free(cap.after.v);
	free(cap.after_ev.v);
	free(cap.gmem.v);
	free(in_first);
	free(in_from);
	free(indeg);
	free(order);
	free(out_first);
	free(out_to);
	free(newidx);
	free(fill);
	return ci;
}

/* A device command issued on stream s (one node of its own step). */
uint32_t emu_command(emu_builder *b, uint32_t s, sbt_cm_kind k, const sbt_cm_call *c,
                            unsigned kind, uint32_t name)
{
	emu_graph *g = b->g;
	uint32_t step = emu_step_begin(b, s);
	emu_node n;
	emu_target t = { &g->acc, (uint32_t)g->nodes.n };

	if (step == EMU_NONE)
		return EMU_NONE;
	emu_node_init(b, &n, kind, name);
	n.step = step;
	n.stream = s;
	n.acc_first = (uint32_t)g->acc.n;
	if (kind == EMU_K_KERNEL) {
		if (emu_access_args(b, &t, c, g->acc.n) != 0)
			return EMU_NONE;
	} else if (kind != EMU_K_HOSTFN && kind != EMU_K_GRAPH && /* a graph launch touches nothing known */
	           emu_fill_transfer(b, k, c, &n, &t) != 0) {
		return EMU_NONE;
	}
	n.acc_count = (uint32_t)(g->acc.n - n.acc_first);
	if (EMU_PUSH(g->nodes, n) != 0)
		return EMU_NONE;
	g->steps.v[step].node_count = 1;
	return (uint32_t)g->nodes.n - 1;
}

/* The vector clock column of template node tnode in the launches of
 * template tmpl on stream s (made on first use); EMU_NONE out of memory. */
uint32_t emu_col_of(emu_graph *g, uint32_t s, uint32_t tmpl, uint32_t tnode)
{
	emu_col c = { s, tmpl, tnode };

	for (size_t i = 0; i < g->cols.n; i++)
		if (g->cols.v[i].stream == s && g->cols.v[i].tmpl == tmpl && g->cols.v[i].tnode == tnode)
			return (uint32_t)i;
	return EMU_PUSH(g->cols, c) == 0 ? (uint32_t)g->cols.n - 1 : EMU_NONE;
}

/* Appends what event ev (recorded outside any capture) waits for to deps,
 * as kind. */
static int emu_event_deps(emu_builder *b, uint64_t event, emu_depvec *deps, uint32_t kind)
{
	emu_bevent *ev = emu_event_of(b, event, 0);

	for (size_t j = 0; ev && ev->capture == EMU_NONE && j < ev->deps.n; j++)
		if (emu_dep_push_dep(deps, &ev->deps.v[j], kind) != 0)
			return -1;
	return 0;
}

/* What the event of a record node of the launch at step (of template
 * tmpl) waits for, into deps: the work nodes the record node
 * follows (each a dependency on that node of the launch, with its column),
 * the events of the wait nodes before it (as they were when the launch
 * was issued: the caller records every event after), and, when it
 * follows no work node, what the launch waited for. */
static int emu_launch_record(emu_builder *b, const emu_capture *cap, const emu_tevent *r, uint32_t step,
                             uint32_t tmpl, emu_depvec *deps)
{
	emu_graph *g = b->g;

	for (uint32_t k = 0; k < r->count; k++) {
		uint32_t tn = cap->after.v[r->first + k];
		emu_dep d = { step, EMU_D_EVENT, tn + 1 };

		if (tn >= EMU_DEP_NODES) {
			if (emu_dep_push(deps, step, EMU_D_EVENT) != 0)
				return -1;
			continue;
		}
		if (emu_col_of(g, g->steps.v[step].stream, tmpl, tn) == EMU_NONE || EMU_PUSH(*deps, d) != 0)
			return -1;
		g->node_deps = 1;
	}
	for (uint32_t k = 0; k < r->ecount; k++)
		if (emu_event_deps(b, cap->after_ev.v[r->efirst + k], deps, EMU_D_EVENT) != 0)
			return -1;
	if (!r->count) {
		const emu_step *st = &g->steps.v[step];

		for (uint32_t d = 0; d < st->dep_count; d++)
			if (emu_dep_push_dep(deps, &g->deps.v[st->dep_first + d], EMU_D_EVENT) != 0)
				return -1;
	}
	return 0;
}

/* The launch's record nodes record their events (in template order: of
 * two recording one event, the later one's stays). */
static int emu_launch_records(emu_builder *b, const emu_capture *cap, uint32_t step, uint32_t tmpl)
{
	emu_depvec *deps = calloc(cap->records.n + 1, sizeof(emu_depvec));
	int rc = -1;

	if (!deps)
		return -1;
	for (size_t i = 0; i < cap->records.n; i++)
		if (emu_launch_record(b, cap, &cap->records.v[i], step, tmpl, &deps[i]) != 0)
			goto out;
	for (size_t i = 0; i < cap->records.n; i++) {
		emu_bevent *ev = emu_event_of(b, cap->records.v[i].event, 1);

		if (!ev)
			goto out;
		emu_depvec_free(&ev->deps);
		ev->deps = deps[i];
		memset(&deps[i], 0, sizeof(deps[i]));
		ev->cap_nodes.n = 0;
		ev->capture = EMU_NONE;
	}
	rc = 0;
out:
	for (size_t i = 0; i < cap->records.n; i++)
		emu_depvec_free(&deps[i]);
	free(deps);
	return rc;
}

/* cuGraphLaunch: the graph's nodes when its capture (or, built node by
 * node, the snapshot its instantiation took) is in the trace, else one
 * node.  Event nodes of a graph built node by node act per node, as CUDA
 * documents: a work node after an event wait node (through ordering nodes
 * only; later nodes follow it) waits for the event (xdeps), the rest of the
 * launch does not; an event record node records the nodes it follows.
 * The launch ends when all its nodes do, wait nodes included: the
 * stream's next work waits for their events too. */
int emu_graph_launch(emu_builder *b, uint32_t s, const sbt_cm_call *c)
{
	emu_graph *g = b->g;
	const emu_capture *cap = NULL;
	uint32_t step, base, tmpl = 0;
	uint32_t *mfirst = NULL; /* per node, its first memory-wait dependency in md */
	emu_depvec md = { 0 };
	char buf[48];

	for (size_t i = b->execs.n; i-- > 0;)
		if (b->execs.v[i].handle == c->handle) {
			emu_exec *x = &b->execs.v[i];

			if (x->dirty) {
				/* its copy changed since the last snapshot */
				int rc;

				x->capture = emu_ngraph_snapshot(b, &b->ngraphs.v[x->src], &rc);
				x->dirty = 0;
				if (rc != 0)
					return -1;
			}
			if (b->execs.v[i].capture != EMU_NONE) {
				cap = &b->caps.v[b->execs.v[i].capture];
				tmpl = b->execs.v[i].capture + 1;
			}
			break;
		}
	if (cap && emu_launch_gmem(b, cap) != 0)
		return -1;
	if (!cap || cap->nodes.n == 0) {
		/* one command: a graph not seen built, or one of ordering nodes
		 * alone (whose event nodes still act per node: its record nodes
		 * follow no work node) */
		snprintf(buf, sizeof(buf), "graph 0x%llx", (unsigned long long)c->handle);
		if (emu_command(b, s, SBT_CM_K_cuGraphLaunch, c, EMU_K_GRAPH, emu_name_put(g, buf, strlen(buf))) ==
		    EMU_NONE)
			return -1;
		step = b->bs.v[s].last;
		if (!cap)
			return 0;
		for (size_t i = 0; i < cap->waits.n; i++)
			if (emu_event_deps(b, cap->waits.v[i].event, &b->bs.v[s].pending, EMU_D_EVENT) != 0)
				return -1;
		return emu_launch_records(b, cap, step, tmpl);
	}
	switch (emu_launch_memop_hold(b, s, cap)) {
	case 1: return 0; /* kept: read again when a write meets its wait */
	case -1: return -1;
	default: break;
	}
	cap = &b->caps.v[tmpl - 1];
	step = emu_step_begin(b, s);
	if (step == EMU_NONE)
		return -1;
	mfirst = malloc((cap->nodes.n + 1) * sizeof(*mfirst));
	if (!mfirst)
		return -1;
	base = (uint32_t)g->nodes.n;
	for (size_t i = 0; i < cap->nodes.n; i++) {
		emu_node n = cap->nodes.v[i];

		mfirst[i] = (uint32_t)md.n;

		n.seq = b->rec->seq;
		n.issue_ns = b->rec->time_ns;
		n.tid = b->rec->thread;
		n.step = step;
		n.stream = s;
		n.ipred_first = (uint32_t)g->ipreds.n;
		for (uint32_t p = 0; p < n.ipred_count; p++)
			if (EMU_PUSH(g->ipreds, base + cap->ipreds.v[cap->nodes.v[i].ipred_first + p]) != 0)
				goto out_md;
		if (n.mop_len && emu_launch_memop_node(b, cap, (uint32_t)i, base, &n, &md) != 0)
			goto out_md;
		n.acc_first = (uint32_t)g->acc.n;
		for (uint32_t a = 0; a < n.acc_count; a++) {
			emu_access x = cap->acc.v[cap->nodes.v[i].acc_first + a];

			x.node = base + (uint32_t)i;
			x.inst = g->allocs.v[x.alloc].inst; /* this launch's graph memory */
			if (EMU_PUSH(g->acc, x) != 0)
				goto out_md;
		}
		if (EMU_PUSH(g->nodes, n) != 0)
			goto out_md;
	}
	mfirst[cap->nodes.n] = (uint32_t)md.n;
	g->steps.v[step].node_count = (uint32_t)cap->nodes.n;
	{
		emu_launch l = { step, tmpl };

		if (EMU_PUSH(g->launch_tmpl, l) != 0)
			goto out_md;
	}
	/* each node's own dependencies, consecutive in g->deps: the events of
	 * the wait nodes it follows (xwaits), the writes its memory waits
	 * follow (md) */
	for (uint32_t i = 0; i < (uint32_t)cap->nodes.n; i++) {
		emu_depvec tmp = { 0 };
		emu_xdep x = { base + i, (uint32_t)g->deps.n, 0 };
		int rc = 0;

		for (size_t w = 0; rc == 0 && w < cap->xwaits.n; w++)
			if (cap->xwaits.v[w].node == i)
				rc = emu_event_deps(b, cap->xwaits.v[w].event, &tmp, EMU_D_EVENT);
		for (uint32_t d = mfirst[i]; rc == 0 && d < mfirst[i + 1]; d++)
			rc = emu_dep_push_dep(&tmp, &md.v[d], EMU_D_VALUE);
		if (rc == 0 && tmp.n)
			rc = EMU_PUSH(g->xdeps, x);
		for (size_t d = 0; rc == 0 && d < tmp.n; d++) {
			rc = EMU_PUSH(g->deps, tmp.v[d]);
			g->xdeps.v[g->xdeps.n - 1].count++;
			g->node_deps = 1;
		}
		emu_depvec_free(&tmp);
		if (rc != 0)
			goto out_md;
	}
	if (emu_launch_memop_done(b, cap, step, tmpl, base) != 0)
		goto out_md;
	free(mfirst);
	emu_depvec_free(&md);
	for (size_t i = 0; i < cap->waits.n; i++)
		if (emu_event_deps(b, cap->waits.v[i].event, &b->bs.v[s].pending, EMU_D_EVENT) != 0)
			return -1;
	if (emu_launch_records(b, cap, step, tmpl) != 0)
		return -1;
	return emu_memop_wake(b, step); /* streams held by a wait its writes meet go on */
out_md:
	free(mfirst);
	emu_depvec_free(&md);
	return -1;
}

/* The allocation that held addr when the record at seq was made (after
 * the pass, when the live table is gone); 0 if none. */
static uint32_t emu_alloc_at(const emu_graph *g, uint64_t addr, uint64_t seq)
{
	for (size_t i = g->allocs.n; i-- > 1;) {
		const emu_alloc *a = &g->allocs.v[i];

		if (a->graph != EMU_GA_LAUNCH && addr >= a->base && addr - a->base < a->size && a->seq <= seq &&
		    (a->free_seq == 0 || a->free_seq > seq))
			return (uint32_t)i;
	}
	return 0;
}

/* ---- keyframes -------------------------------------------------------------- */

/* After the pass: a launch bracketed by a before and an after keyframe has
 * written exactly the bytes that differ between them; its pointer
 * arguments are then reads only.  Not when either was taken without
 * waiting for the launch's stream (the recorder's note: a stream memory
 * wait held it): the launch may not have run between them. */
static emu_status emu_kf_apply(emu_builder *b)
{
	emu_graph *g = b->g;
	emu_status st = EMU_OK;
	void *d1 = NULL, *d2 = NULL;

	for (size_t i = 0; i + 1 < b->kfs.n; i++) {
		const emu_kf *bef = &b->kfs.v[i], *aft = &b->kfs.v[i + 1];
		uint32_t node;

		/* the first launch's "before" is the start keyframe: usable when full */
		if ((bef->sub != SBT_CM_KF_BEFORE_LAUNCH && bef->sub != SBT_CM_KF_START) ||
		    (bef->flags & SBT_CM_KF_PARTIAL) || aft->sub != SBT_CM_KF_AFTER_LAUNCH ||
		    bef->ordinal != aft->ordinal || bef->ordinal == 0 || bef->ordinal > b->launches.n ||
		    bef->unwaited || aft->unwaited)
			continue;
		node = b->launches.v[bef->ordinal - 1];
		if (node == EMU_NONE)
			continue;
		for (uint32_t a = 0; a < aft->snap_count; a++) {
			const emu_snap *sa = &b->snaps.v[aft->snap_first + a], *sb = NULL;
			size_t l1 = 0, l2 = 0, lo = SIZE_MAX, hi = 0;

			for (uint32_t k = 0; k < bef->snap_count; k++)
				if (b->snaps.v[bef->snap_first + k].dst == sa->dst)
					sb = &b->snaps.v[bef->snap_first + k];
			if (!sb || sb->size != sa->size || (sb->zero && sa->zero))
				continue;
			if ((!sb->zero && sbt_reader_blob_get(g->r, sb->blob, &d1, &l1) != SBT_OK) ||
			    (!sa->zero && sbt_reader_blob_get(g->r, sa->blob, &d2, &l2) != SBT_OK)) {
				free(d1);
				free(d2);
				d1 = d2 = NULL;
				continue;
			}
			for (size_t x = 0; x < sa->size; x++) {
				uint8_t v1 = d1 && x < l1 ? ((uint8_t *)d1)[x] : 0;
				uint8_t v2 = d2 && x < l2 ? ((uint8_t *)d2)[x] : 0;

				if (v1 != v2) {
					if (lo == SIZE_MAX)
						lo = x;
					hi = x + 1;
				}
			}
			free(d1);
			free(d2);
			d1 = d2 = NULL;
			if (lo != SIZE_MAX) {
				emu_access w = { sa->dst + lo, sa->dst + hi, node,
					         emu_alloc_at(g, sa->dst + lo, g->nodes.v[node].seq), EMU_A_WRITE, 0 };

				if (EMU_PUSH(g->acc, w) != 0) {
					st = EMU_ERR_NOMEM;
					goto out;
				}
			}
		}
		g->nodes.v[node].proven = 1;
		for (uint32_t a = 0; a < g->nodes.v[node].acc_count; a++)
			g->acc.v[g->nodes.v[node].acc_first + a].mode &= ~(uint32_t)EMU_A_MAYWRITE;
	}
out:
	return st;
}

/* ---- the pass ------------------------------------------------------------------------ */

static void emu_builder_finish(emu_builder *b)
{
	for (size_t i = 0; i < b->bs.n; i++) {
		emu_depvec_free(&b->bs.v[i].pending);
		free(b->bs.v[i].cap_front.v);
		free(b->bs.v[i].host_seen.v);
		for (size_t k = 0; k < b->bs.v[i].kept.n; k++)
			free((void *)b->bs.v[i].kept.v[k].payload);
		free(b->bs.v[i].kept.v);
	}
	for (size_t i = 0; i < b->threads.n; i++) {
		emu_depvec_free(&b->threads.v[i].syncs);
		free(b->threads.v[i].ctx.v);
	}
	free(b->ctxs.v);
	free(b->wvals.v);
	free(b->mops.v);
	for (size_t i = 0; i < b->events.n; i++) {
		emu_depvec_free(&b->events.v[i].deps);
		free(b->events.v[i].cap_nodes.v);
	}
	for (size_t i = 0; i < b->caps.n; i++) {
		free(b->caps.v[i].nodes.v);
		free(b->caps.v[i].ipreds.v);
		free(b->caps.v[i].acc.v);
		free(b->caps.v[i].handles.v);
		free(b->caps.v[i].records.v);
		free(b->caps.v[i].waits.v);
		free(b->caps.v[i].xwaits.v);
		free(b->caps.v[i].after.v);
		free(b->caps.v[i].after_ev.v);
		free(b->caps.v[i].gmem.v);
		free(b->caps.v[i].into_deps.v);
	}
	for (size_t i = 0; i < b->ngraphs.n; i++) {
		free(b->ngraphs.v[i].nodes.v);
		free(b->ngraphs.v[i].edges.v);
		free(b->ngraphs.v[i].acc.v);
		free(b->ngraphs.v[i].gmem.v);
	}
	free(b->ngraphs.v);
	free(b->inners.v);
	free(b->bs.v);
	free(b->threads.v);
	free(b->events.v);
	free(b->caps.v);
	free(b->execs.v);
	free(b->live.v);
	free(b->launches.v);
	free(b->launch_seqs.v);
	free(b->kfs.v);
	free(b->snaps.v);
	sbt_mem_finish(&b->mem);
	emu_depvec_free(&b->tmp);
	free(b->kind_of);
	free(b->hip_of);
}

/* The HIP call a "hip.<call>" type name names; -1 if none. */
static int emu_hip_call_of(const char *name)
{
	for (int i = 0; i < SBT_CM_HIP_COUNT; i++) {
		const char *n = sbt_cm_hip_type_name((sbt_cm_hip_call)i);

		if (n && strcmp(n, name) == 0)
			return i;
	}
	return -1;
}

/* The record types the trace names "cuda.<call>" or "hip.<call>", mapped
 * to kinds of the compute model (a HIP call to the kind it records as, and
 * to itself where HIP's meaning differs: emu_calls.c). */
static emu_status emu_types(emu_builder *b)
{
	uint32_t type, max = 0, ncuda = 0, nhip = 0;
	const char *name;
	sbt_cm_kind k;

	for (size_t i = 0; sbt_reader_type_at(b->g->r, i, &type, &name) == SBT_OK; i++)
		if (type > max && type < 0x100000)
			max = type;
	b->ntypes = max + 1;
	b->kind_of = malloc(b->ntypes * sizeof(int16_t));
	b->hip_of = malloc(b->ntypes * sizeof(int16_t));
	if (!b->kind_of || !b->hip_of)
		return EMU_ERR_NOMEM;
	for (uint32_t t = 0; t < b->ntypes; t++)
		b->kind_of[t] = b->hip_of[t] = -1;
	for (size_t i = 0; sbt_reader_type_at(b->g->r, i, &type, &name) == SBT_OK; i++) {
		int hip = strncmp(name, "hip.", 4) == 0 ? emu_hip_call_of(name) : -1;

		if (type >= b->ntypes || (strncmp(name, "cuda.", 5) != 0 && hip < 0) ||
		    sbt_cm_kind_by_name(name, &k) != 0)
			continue;
		b->kind_of[type] = (int16_t)k;
		b->hip_of[type] = (int16_t)hip;
		if (hip >= 0)
			nhip++;
		else
			ncuda++;
	}
	b->g->hip = nhip > 0 && ncuda == 0;
	return ncuda || nhip ? EMU_OK : EMU_ERR_NOT_CUDA;
}

emu_status emu_graph_build(const char *path, emu_graph **out, char *err, size_t errlen)
{
	emu_builder b;
	emu_graph *g;
	emu_status st;
	sbt_status ss;
	sbt_record rec;
	char dummy[8];

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	if (!path || !out)
		return EMU_ERR_ARG;
	*out = NULL;
	memset(&b, 0, sizeof(b));
	for (size_t i = 0; i < EMU_KNAMES; i++)
		b.knames[i].off = EMU_NONE;
	b.stream_gen = 1; /* the zeroed cache entries are of generation 0 */
	g = calloc(1, sizeof(*g));
	if (!g)
		return EMU_ERR_NOMEM;
	b.g = g;
	g->first_ns = UINT64_MAX;
	snprintf(g->path, sizeof(g->path), "%s", path);
	ss = sbt_reader_open(path, NULL, &g->r);
	if (ss != SBT_OK) {
		/* The tools' shared wording: a directory, a device, an empty
		 * file or a GFXReconstruct capture named as such. */
		char why[512];
		sbt_cli_open_error(path, ss, g->r, why, sizeof(why));
		snprintf(err, errlen, "%s: %s", path, why);
		st = EMU_ERR_TRACE;
		goto out_free_graph;
	}
	/* the name arena starts with "" so that offset 0 is an empty name */
	{
		emu_alloc none = { 0 };

		if (EMU_PUSH(g->allocs, none) != 0) {
			st = EMU_ERR_NOMEM;
			goto out_free_graph;
		}
	}
	if (emu_name_put(g, "", 0) == EMU_NONE) {
		st = EMU_ERR_NOMEM;
		goto out_free_graph;
	}
	if (sbt_mem_init(&b.mem, g->r) != 0) {
		st = EMU_ERR_NOMEM;
		goto out_free_builder;
	}
	st = emu_types(&b);
	if (st == EMU_ERR_NOT_CUDA) {
		/* no CUDA records: a Vulkan trace, read by emu_vk.c */
		st = emu_vk_build(g, &b.mem, err, errlen);
		if (st == EMU_ERR_NOT_CUDA)
			snprintf(err, errlen, "%s: %s, nor a HIP or Vulkan one (no cuda.*, hip.* or vulkan.* record types)", path,
			         emu_strerror(st));
		if (st != EMU_OK)
			goto out_free_builder;
		if (g->first_ns == UINT64_MAX)
			g->first_ns = 0;
		st = emu_mem_counter(g, &b.mem);
		if (st != EMU_OK)
			goto out_free_builder;
		emu_builder_finish(&b);
		*out = g;
		return EMU_OK;
	}
	if (st != EMU_OK) {
		snprintf(err, errlen, "%s: %s", path, emu_strerror(st));
		goto out_free_builder;
	}
	while ((ss = sbt_reader_next(g->r, &rec)) == SBT_OK) {
		st = emu_captimes_record(g, &rec) != 0 ? EMU_ERR_NOMEM : emu_record(&b, &rec);
		if (st != EMU_OK) {
			snprintf(err, errlen, "%s: seq %llu (%s): %s", path, (unsigned long long)rec.seq,
			         sbt_reader_type_name(g->r, rec.type), emu_strerror(st));
			goto out_free_builder;
		}
	}
	if (ss != SBT_END) {
		snprintf(err, errlen, "%s: %s: %s", path, sbt_strerror(ss), sbt_reader_message(g->r));
		st = EMU_ERR_TRACE;
		goto out_free_builder;
	}
	st = emu_memop_finish(&b);
	if (st != EMU_OK) {
		snprintf(err, errlen, "%s: %s", path, emu_strerror(st));
		goto out_free_builder;
	}
	if (g->first_ns == UINT64_MAX)
		g->first_ns = 0;
	st = emu_kf_apply(&b);
	if (st != EMU_OK) {
		snprintf(err, errlen, "%s: comparing keyframes: %s", path, emu_strerror(st));
		goto out_free_builder;
	}
	st = emu_mem_counter(g, &b.mem);
	if (st != EMU_OK)
		goto out_free_builder;
	emu_builder_finish(&b);
	*out = g;
	return EMU_OK;

out_free_builder:
	emu_builder_finish(&b);
out_free_graph:
	emu_graph_free(g);
	return st;
}

void emu_graph_free(emu_graph *g)
{
	if (!g)
		return;
	sbt_reader_close(g->r);
	free(g->nodes.v);
	free(g->steps.v);
	free(g->deps.v);
	free(g->ipreds.v);
	free(g->acc.v);
	free(g->unmet.v);
	free(g->allocs.v);
	free(g->streams.v);
	free(g->mem.v);
	free(g->names.v);
	free(g->crit.v);
	free(g->busy);
	free(g->state_ns);
	free(g->transitions);
	free(g->vc);
	free(g->nvc);
	free(g->nvc_row);
	free(g->cols.v);
	free(g->launch_tmpl.v);
	free(g->xdeps.v);
	emu_vk_free(g->vk);
	free(g->measured);
	free(g->obs.v);
	free(g->step_entry.v);
	free(g->thr.v);
	free(g);
}
