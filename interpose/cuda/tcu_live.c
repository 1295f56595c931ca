/*
 * tcu_live.c - capture windows (cap.h "capture windows"): the live objects
 * a window's trace must recreate, the snapshot that recreates them when a
 * window opens, and launches as the runtime's CAP_UNIT_LAUNCH units.
 *
 * While capture is windowed (cap_windowed(): a trigger is set), every call
 * that makes an object a replay of a window may need is kept here, whether
 * or not a window is open, as the very record the interposer writes for it
 * (sbt_compute.h), encoded, in creation order: contexts (made, retained,
 * or inferred as primary, tcu_model.c), modules and libraries with a copy
 * of their image (the program may free the buffer it loaded from),
 * functions, kernels, globals, function attributes, streams, events,
 * allocations (placed by tcu_va.c, so the replay maps them at the same
 * addresses), VMM handles, reservations, mappings and access.  The call
 * that ends an object drops it and what belongs to it (a module's
 * functions, a mapping's access).  Graphs made by stream capture are
 * kept as their capture's records and instantiations (below); graphs built
 * node by node are kept as their cuGraphCreate and the calls that built
 * them, the same way.  Events recorded are marked, and recorded again
 * after the snapshot's keyframe, on their stream while it lives.
 *
 * When a window opens the runtime calls tcu_live_snapshot on the opening
 * thread: it writes the tsVaWindow records, then every kept record in
 * creation order (a cuCtxSetCurrent before each one made in another
 * context than the one before), releases of VMM handles still mapped, the
 * thread's current context, then a full keyframe of every live device
 * allocation.  The replay backend runs those records as any others and
 * applies the keyframe (it lies before the window's SNAPSHOT_END).
 *
 * Locking: the registry is under tcu_g.mu (tcu_internal.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

#define TCU_H(x) ((uint64_t)(uintptr_t)(x))

typedef struct tcu_live_obj {
	struct tcu_live_obj *prev, *next; /* creation order */
	tcu_live_class cls;
	uint64_t key, parent;
	uint64_t ctx;      /* the context current when it was made (0: a context) */
	sbt_cm_kind kind;
	tcu_fn id;
	uint32_t refs;     /* primary contexts: retains */
	int released;      /* VMM handles: the program released it while mapped;
	                    * captures: the graph was destroyed, an exec still lives */
	int open;          /* captures: still going on (parent: the stream) */
	int recorded;      /* events: recorded before (the snapshot records it again) */
	uint64_t rec_stream; /* events: the stream of that record */
	int rec_ptds;        /* events: recorded through a per-thread variant */
	uint8_t *payload;  /* the encoded record */
	size_t len;
	uint8_t *image;    /* modules: the image, and prelinked fatbins */
	size_t image_len;
	size_t nprelinked;
	uint8_t **prelinked;
	size_t *prelinked_len;
} tcu_live_obj;

typedef struct tcu_live {
	tcu_live_obj *head, *tail;
	cap_umap by[TCU_LIVE_CLASSES]; /* key -> tcu_live_obj */
	uint64_t serial;              /* the last TCU_LIVE_CAPTURE key */
	cap_umap open;                 /* stream -> its open capture's kept begin */
	atomic_uint capturing;        /* open captures kept (open's entries) */
} tcu_live;

/* ---- configuration ------------------------------------------------------ */

static int tcu_flag_get(atomic_int *flag, int (*read)(void))
{
	int v = atomic_load_explicit(flag, memory_order_relaxed);
	if (!v) {
		v = read() ? 2 : 1;
		atomic_store_explicit(flag, v, memory_order_relaxed);
	}
	return v == 2;
}

/* Windowed and recording at all (TRACESMITH_DISABLE=1 keeps nothing). */
static int tcu_read_windowed(void)
{
	return cap_windowed() && !cap_config_get()->disabled;
}

int tcu_windowed(void)
{
	return tcu_flag_get(&tcu_g.windowed, tcu_read_windowed);
}

/* Kept only for windows: a whole run's periodic snapshots
 * (TRACESMITH_SNAPSHOT_FRAMES, which make cap_tracking() 1 too) need
 * nothing from CUDA, whose trace holds every creation. */
int tcu_tracking(void)
{
	return tcu_windowed();
}

/* ---- the registry ------------------------------------------------------- */

static void tcu_live_free(tcu_live_obj *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nprelinked; i++)
		free(o->prelinked[i]);
	free(o->prelinked);
	free(o->prelinked_len);
	free(o->image);
	free(o->payload);
	free(o);
}

/* With mu held: unlink o and free it. */
static void tcu_live_unlink(tcu_live *l, tcu_live_obj *o)
{
	cap_umap_del(&l->by[o->cls], o->key);
	if (o->prev)
		o->prev->next = o->next;
	else
		l->head = o->next;
	if (o->next)
		o->next->prev = o->prev;
	else
		l->tail = o->prev;
	tcu_live_free(o);
}

/* With mu held: drop o and, depth first, everything it is the parent of. */
static void tcu_live_drop_locked(tcu_live *l, tcu_live_obj *o)
{
	uint64_t key = o->key;
	tcu_live_class cls = o->cls;
	tcu_live_unlink(l, o);
	/* Only these are parents (a scan of everything kept). */
	if (cls != TCU_LIVE_CTX && cls != TCU_LIVE_MODULE && cls != TCU_LIVE_FUNC &&
	    cls != TCU_LIVE_VMM_MAP)
		return;
	for (;;) {
		tcu_live_obj *c;
		for (c = l->head; c && c->parent != key; c = c->next)
			;
		if (!c)
			break;
		tcu_live_drop_locked(l, c);
	}
}

static uint64_t tcu_live_current_ctx(void)
{
	CUcontext ctx = NULL;
	tcu_pfn_cuCtxGetCurrent get = (tcu_pfn_cuCtxGetCurrent)tcu_own(TCU_FN_cuCtxGetCurrent);
	if (!get || get(&ctx) != CUDA_SUCCESS)
		return 0;
	return TCU_H(ctx);
}

/* Owned copies of a module's image and prelinked fatbins into o; -1 when
 * out of memory. */
static int tcu_live_copy_image(tcu_live_obj *o, const void *image, size_t image_len,
                               const void *const *prelinked, const size_t *prelinked_len,
                               size_t nprelinked)
{
	if (image && image_len) {
		o->image = malloc(image_len);
		if (!o->image)
			return -1;
		memcpy(o->image, image, image_len);
		o->image_len = image_len;
	}
	if (!nprelinked)
		return 0;
	o->prelinked = calloc(nprelinked, sizeof(*o->prelinked));
	o->prelinked_len = calloc(nprelinked, sizeof(*o->prelinked_len));
	if (!o->prelinked || !o->prelinked_len)
		return -1;
	o->nprelinked = nprelinked;
	for (size_t i = 0; i < nprelinked; i++) {
		o->prelinked[i] = malloc(prelinked_len[i] ? prelinked_len[i] : 1);
		if (!o->prelinked[i])
			return -1;
		memcpy(o->prelinked[i], prelinked[i], prelinked_len[i]);
		o->prelinked_len[i] = prelinked_len[i];
	}
	return 0;
}

/* With mu held: append o, kept under its class and key; 0, or -1 (o
 * freed) when out of memory. */
static int tcu_live_link_locked(tcu_live *l, tcu_live_obj *o)
{
	if (cap_umap_put(&l->by[o->cls], o->key, o) == o) {
		tcu_live_free(o);
		return -1;
	}
	o->prev = l->tail;
	if (l->tail)
		l->tail->next = o;
	else
		l->head = o;
	l->tail = o;
	return 0;
}

static tcu_live_obj *tcu_live_new(tcu_live_class cls, uint64_t key, uint64_t parent,
                                  sbt_cm_kind kind, tcu_fn id)
{
	tcu_live_obj *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->cls = cls;
	o->key = key;
	o->parent = parent;
	o->kind = kind;
	o->id = id;
	o->refs = 1;
	o->open = cls == TCU_LIVE_CAPTURE;
	o->ctx = cls == TCU_LIVE_CTX ? 0 : tcu_live_current_ctx();
	if (parent == TCU_LIVE_IN_CTX)
		o->parent = o->ctx;
	return o;
}

static void tcu_live_oom(sbt_cm_kind kind)
{
	CAP_ERROR("cuda: out of memory keeping a %s for capture windows: a window's trace may "
	          "lack it",
	          sbt_cm_kind_name(kind));
}

void tcu_live_add(tcu_live_class cls, uint64_t key, uint64_t parent, sbt_cm_kind kind, tcu_fn id,
                  const sbt_cm_call *c, const void *image, size_t image_len,
                  const void *const *prelinked, const size_t *prelinked_len, size_t nprelinked)
{
	sbt_cm_call copy = *c;
	tcu_live_obj *o, *old;
	tcu_live *l = tcu_g.live;
	size_t max;

	if (!l || !key || !tcu_tracking())
		return;
	o = tcu_live_new(cls, key, parent, kind, id);
	if (!o)
		goto out_oom;
	/* Blob ids belong to one window's file: the snapshot stores anew. */
	copy.blob = 0;
	copy.prelinked = NULL;
	copy.prelinked_len = 0;
	max = sbt_cm_encoded_max(&copy);
	o->payload = malloc(max);
	if (!o->payload || sbt_cm_encode(&copy, o->payload, max, &o->len) != SBT_OK ||
	    tcu_live_copy_image(o, image, image_len, prelinked, prelinked_len, nprelinked) != 0)
		goto out_oom;

	pthread_mutex_lock(&tcu_g.mu);
	old = cap_umap_get(&l->by[cls], key);
	if (old && cls == TCU_LIVE_CTX) {
		/* A primary context retained again: one more release to come. */
		old->refs++;
		pthread_mutex_unlock(&tcu_g.mu);
		tcu_live_free(o);
		return;
	}
	if (old && (cls == TCU_LIVE_FUNC || cls == TCU_LIVE_GLOBAL)) {
		/* Asked for again: the first lookup stands. */
		pthread_mutex_unlock(&tcu_g.mu);
		tcu_live_free(o);
		return;
	}
	if (old) /* the handle or address came back for a new object */
		tcu_live_drop_locked(l, old);
	if (tcu_live_link_locked(l, o) != 0) {
		pthread_mutex_unlock(&tcu_g.mu);
		tcu_live_oom(kind);
		return;
	}
	pthread_mutex_unlock(&tcu_g.mu);
	return;
out_oom:
	tcu_live_free(o);
	tcu_live_oom(kind);
}

void tcu_live_drop(tcu_live_class cls, uint64_t key)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *o;
	if (!l || !key || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	o = cap_umap_get(&l->by[cls], key);
	if (o)
		tcu_live_drop_locked(l, o);
	pthread_mutex_unlock(&tcu_g.mu);
}

int tcu_live_has(tcu_live_class cls, uint64_t key)
{
	tcu_live *l = tcu_g.live;
	int has;
	if (!l)
		return 0;
	pthread_mutex_lock(&tcu_g.mu);
	has = cap_umap_get(&l->by[cls], key) != NULL;
	pthread_mutex_unlock(&tcu_g.mu);
	return has;
}

void tcu_live_primary_release(int device, int reset)
{
	tcu_live *l = tcu_g.live;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	for (tcu_live_obj *o = l->head; o; o = o->next) {
		sbt_cm_call c;
		if (o->cls != TCU_LIVE_CTX || o->kind != SBT_CM_K_cuDevicePrimaryCtxRetain ||
		    sbt_cm_decode(o->payload, o->len, &c) != SBT_OK || (int)c.device != device)
			continue;
		if (reset || --o->refs == 0)
			tcu_live_drop_locked(l, o);
		break;
	}
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_live_vmm_release(uint64_t handle)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *h, *o;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	h = cap_umap_get(&l->by[TCU_LIVE_VMM_HANDLE], handle);
	for (o = l->head; h && o; o = o->next)
		if (o->cls == TCU_LIVE_VMM_MAP && o->parent == handle)
			break;
	if (h && o)
		h->released = 1;
	else if (h)
		tcu_live_drop_locked(l, h);
	pthread_mutex_unlock(&tcu_g.mu);
}

/* A mapping went: its handle goes too when the program released it. */
void tcu_live_vmm_unmap(uint64_t addr)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *m, *h, *o;
	uint64_t handle;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	m = cap_umap_get(&l->by[TCU_LIVE_VMM_MAP], addr);
	if (!m)
		goto out_unlock;
	handle = m->parent;
	/* Not through the parent link: the handle is the map's parent. */
	for (o = l->head; o;) {
		tcu_live_obj *next = o->next;
		if (o->cls == TCU_LIVE_VMM_ACCESS && o->parent == addr)
			tcu_live_unlink(l, o);
		o = next;
	}
	tcu_live_unlink(l, m);
	h = cap_umap_get(&l->by[TCU_LIVE_VMM_HANDLE], handle);
	for (o = l->head; h && o; o = o->next)
		if (o->cls == TCU_LIVE_VMM_MAP && o->parent == handle)
			break;
	if (h && h->released && !o)
		tcu_live_unlink(l, h);
out_unlock:
	pthread_mutex_unlock(&tcu_g.mu);
}

/* ---- stream captures and their graphs ------------------------------------ */

/*
 * A graph made by stream capture before a window and launched in it: the
 * window's snapshot captures it again.  Each record from
 * cuStreamBeginCapture to cuStreamEndCapture is kept as a TCU_LIVE_CAPTURE
 * of its own (keyed by a serial, in creation order among the rest: a
 * capture may use a stream or event made while it goes on), its parent
 * the stream while the capture is open, the graph once it ended; each
 * cuGraphInstantiate of such a graph is a TCU_LIVE_EXEC.  The graph's
 * records go once the graph and every exec of it are destroyed.  A graph
 * built node by node is kept the same way: its cuGraphCreate and every
 * call that built it (tcu_graph.c) are TCU_LIVE_CAPTURE records of it,
 * never open, and a kernel node's parameters set on an exec of it are
 * kept with it until that exec goes.
 */

int tcu_live_captured(tcu_mode mode, CUstream s, int ptds, uint64_t *cid)
{
	tcu_live *l = tcu_g.live;
	int status;
	uint64_t id;
	if (mode == TCU_MODE_NESTED || !l ||
	    !atomic_load_explicit(&l->capturing, memory_order_relaxed))
		return 0;
	if (!tcu_capture_query(s, ptds, &status, &id) || status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
		return 0;
	if (cid)
		*cid = id;
	return 1;
}

/* The open capture of stream s kept here: 1. */
static int tcu_live_capture_open(tcu_live *l, uint64_t stream)
{
	int open;
	pthread_mutex_lock(&tcu_g.mu);
	open = cap_umap_get(&l->open, stream) != NULL;
	pthread_mutex_unlock(&tcu_g.mu);
	return open;
}

static uint64_t tcu_live_serial(tcu_live *l)
{
	uint64_t k;
	pthread_mutex_lock(&tcu_g.mu);
	k = ++l->serial;
	pthread_mutex_unlock(&tcu_g.mu);
	return k;
}

void tcu_live_capture_begin(tcu_fn id, const sbt_cm_call *c)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *o;
	uint64_t key;
	if (!l || !tcu_tracking() || c->result != CUDA_SUCCESS)
		return;
	key = tcu_live_serial(l);
	tcu_live_add(TCU_LIVE_CAPTURE, key, c->stream, SBT_CM_K_cuStreamBeginCapture, id, c, NULL, 0,
	             NULL, NULL, 0);
	pthread_mutex_lock(&tcu_g.mu);
	o = cap_umap_get(&l->by[TCU_LIVE_CAPTURE], key);
	/* (out of memory: not kept, and nothing of the capture will be) */
	if (o && cap_umap_put(&l->open, c->stream, o) == NULL)
		atomic_fetch_add_explicit(&l->capturing, 1, memory_order_relaxed);
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_live_capture_call(sbt_cm_kind k, tcu_fn id, const sbt_cm_call *c, const void *host,
                           size_t n)
{
	tcu_live *l = tcu_g.live;
	if (!l || !tcu_tracking() || c->result != CUDA_SUCCESS || !tcu_live_capture_open(l, c->stream))
		return;
	tcu_live_add(TCU_LIVE_CAPTURE, tcu_live_serial(l), c->stream, k, id, c, host, host ? n : 0,
	             NULL, NULL, 0);
}

void tcu_live_capture_encoded(sbt_cm_kind k, tcu_fn id, uint64_t stream, const uint8_t *p,
                              size_t len)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *o;
	if (!l || !tcu_tracking() || !tcu_live_capture_open(l, stream))
		return;
	o = tcu_live_new(TCU_LIVE_CAPTURE, tcu_live_serial(l), stream, k, id);
	if (!o || !(o->payload = malloc(len ? len : 1))) {
		tcu_live_free(o);
		tcu_live_oom(k);
		return;
	}
	memcpy(o->payload, p, len);
	o->len = len;
	pthread_mutex_lock(&tcu_g.mu);
	if (tcu_live_link_locked(l, o) != 0) {
		pthread_mutex_unlock(&tcu_g.mu);
		tcu_live_oom(k);
		return;
	}
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_live_capture_end(tcu_fn id, const sbt_cm_call *c)
{
	tcu_live *l = tcu_g.live;
	int ok = c->result == CUDA_SUCCESS && c->handle;
	if (!l || !tcu_tracking() || !tcu_live_capture_open(l, c->stream))
		return;
	if (ok)
		tcu_live_add(TCU_LIVE_CAPTURE, tcu_live_serial(l), c->stream,
		             SBT_CM_K_cuStreamEndCapture, id, c, NULL, 0, NULL, NULL, 0);
	pthread_mutex_lock(&tcu_g.mu);
	for (tcu_live_obj *o = l->head; o;) {
		tcu_live_obj *next = o->next;
		if (o->cls == TCU_LIVE_CAPTURE && o->open && o->parent == c->stream) {
			if (ok) {
				o->open = 0;
				o->parent = c->handle; /* the graph */
			} else {
				tcu_live_unlink(l, o); /* the capture failed: no graph */
			}
		}
		o = next;
	}
	if (cap_umap_del(&l->open, c->stream))
		atomic_fetch_sub_explicit(&l->capturing, 1, memory_order_relaxed);
	pthread_mutex_unlock(&tcu_g.mu);
}

/* With mu held: whether graph is a kept capture's. */
static int tcu_live_graph_kept_locked(tcu_live *l, uint64_t graph)
{
	for (const tcu_live_obj *o = l->head; o; o = o->next)
		if (o->cls == TCU_LIVE_CAPTURE && !o->open && o->parent == graph)
			return 1;
	return 0;
}

/* The graph a kept graph record needs rebuilt before it (the child of a
 * child graph node, the graph a clone copies, the graph an exec was
 * updated from), or 0. */
static uint64_t tcu_live_graph_ref(const tcu_live_obj *o)
{
	sbt_cm_call c;
	if (o->cls != TCU_LIVE_CAPTURE || o->open ||
	    (o->kind != SBT_CM_K_cuGraphAddChildGraphNode && o->kind != SBT_CM_K_cuGraphClone &&
	     o->kind != SBT_CM_K_cuGraphExecUpdate) ||
	    sbt_cm_decode(o->payload, o->len, &c) != SBT_OK)
		return 0;
	return o->kind == SBT_CM_K_cuGraphAddChildGraphNode ? c.handle : c.parent;
}

/* With mu held: the graph's records go when it was destroyed and no exec
 * of it, and no kept graph made from it (a child graph node, a clone), is
 * left; the graphs its own records needed are looked at again then. */
static void tcu_live_graph_gc_locked(tcu_live *l, uint64_t graph)
{
	tcu_live_obj *o;
	uint64_t *refs = NULL;
	size_t nrefs = 0;
	for (o = l->head; o; o = o->next)
		if ((o->cls == TCU_LIVE_EXEC && o->parent == graph) ||
		    (o->cls == TCU_LIVE_CAPTURE && !o->open && o->parent == graph && !o->released) ||
		    (o->parent != graph && tcu_live_graph_ref(o) == graph))
			return;
	for (o = l->head; o;) {
		tcu_live_obj *next = o->next;
		if (o->cls == TCU_LIVE_CAPTURE && !o->open && o->parent == graph) {
			uint64_t ref = tcu_live_graph_ref(o);
			uint64_t *grown = ref ? realloc(refs, (nrefs + 1) * sizeof(*refs)) : NULL;
			if (grown) {
				refs = grown;
				refs[nrefs++] = ref;
			}
			tcu_live_unlink(l, o);
		}
		o = next;
	}
	for (size_t i = 0; i < nrefs; i++)
		tcu_live_graph_gc_locked(l, refs[i]);
	free(refs);
}

void tcu_live_graph_exec(tcu_fn id, const sbt_cm_call *c)
{
	tcu_live *l = tcu_g.live;
	int kept;
	if (!l || !tcu_tracking() || c->result != CUDA_SUCCESS || !c->handle)
		return;
	pthread_mutex_lock(&tcu_g.mu);
	kept = tcu_live_graph_kept_locked(l, c->parent);
	pthread_mutex_unlock(&tcu_g.mu);
	if (kept)
		tcu_live_add(TCU_LIVE_EXEC, c->handle, c->parent, SBT_CM_K_cuGraphInstantiate, id, c,
		             NULL, 0, NULL, NULL, 0);
}

/* Records that change an exec's node (parent = the exec): they go with it. */
static int tcu_live_exec_setter(sbt_cm_kind k)
{
	return k == SBT_CM_K_cuGraphExecKernelNodeSetParams || k == SBT_CM_K_cuGraphNodeSetEnabled ||
	       k == SBT_CM_K_cuGraphExecMemcpyNodeSetParams || k == SBT_CM_K_cuGraphExecMemsetNodeSetParams ||
	       k == SBT_CM_K_cuGraphExecEventRecordNodeSetEvent ||
	       k == SBT_CM_K_cuGraphExecEventWaitNodeSetEvent || k == SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams;
}

void tcu_live_graph_exec_destroy(uint64_t exec)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *o;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	o = cap_umap_get(&l->by[TCU_LIVE_EXEC], exec);
	if (o) {
		uint64_t graph = o->parent, *updated = NULL;
		size_t nupdated = 0;
		tcu_live_unlink(l, o);
		/* the parameters set on it and its updates go with it */
		for (tcu_live_obj *p = l->head; p;) {
			tcu_live_obj *next = p->next;
			sbt_cm_call c;
			if (p->cls == TCU_LIVE_CAPTURE && p->kind == SBT_CM_K_cuGraphExecUpdate &&
			    sbt_cm_decode(p->payload, p->len, &c) == SBT_OK && c.handle == exec) {
				uint64_t *grown = realloc(updated, (nupdated + 1) * sizeof(*grown));
				if (grown) {
					updated = grown;
					updated[nupdated++] = c.parent;
				}
				tcu_live_unlink(l, p);
			} else if (p->cls == TCU_LIVE_CAPTURE &&
			           ((tcu_live_exec_setter(p->kind) &&
			             sbt_cm_decode(p->payload, p->len, &c) == SBT_OK && c.parent == exec) ||
			            (p->kind == SBT_CM_K_tsGraphNotModeled &&
			             sbt_cm_decode(p->payload, p->len, &c) == SBT_OK && c.handle == exec))) {
				tcu_live_unlink(l, p);
			}
			p = next;
		}
		tcu_live_graph_gc_locked(l, graph);
		for (size_t i = 0; i < nupdated; i++)
			tcu_live_graph_gc_locked(l, updated[i]);
		free(updated);
	}
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_live_graph_destroy(uint64_t graph)
{
	tcu_live *l = tcu_g.live;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	for (tcu_live_obj *o = l->head; o; o = o->next)
		if (o->cls == TCU_LIVE_CAPTURE && !o->open && o->parent == graph)
			o->released = 1;
	tcu_live_graph_gc_locked(l, graph);
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_live_event_recorded(uint64_t event, uint64_t stream, int ptds)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *o;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	o = cap_umap_get(&l->by[TCU_LIVE_EVENT], event);
	if (o) {
		o->recorded = 1;
		o->rec_stream = stream;
		o->rec_ptds = ptds;
	}
	pthread_mutex_unlock(&tcu_g.mu);
}

/* Keeps c as one of graph's records (never open). */
static void tcu_live_graph_keep(sbt_cm_kind k, tcu_fn id, uint64_t graph, const sbt_cm_call *c,
                                const void *host, size_t n)
{
	tcu_live *l = tcu_g.live;
	uint64_t key = tcu_live_serial(l);
	tcu_live_obj *o;
	tcu_live_add(TCU_LIVE_CAPTURE, key, graph, k, id, c, host, host ? n : 0, NULL, NULL, 0);
	pthread_mutex_lock(&tcu_g.mu);
	o = cap_umap_get(&l->by[TCU_LIVE_CAPTURE], key);
	if (o)
		o->open = 0;
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_live_graph_call(sbt_cm_kind k, tcu_fn id, uint64_t graph, const sbt_cm_call *c,
                         const void *host, size_t n)
{
	tcu_live *l = tcu_g.live;
	int kept;
	if (!l || !tcu_tracking() || c->result != CUDA_SUCCESS)
		return;
	if (!graph && k == SBT_CM_K_tsGraphNotModeled && c->handle) {
		/* an exec changed: kept with its graph, until the exec goes */
		tcu_live_obj *x;
		pthread_mutex_lock(&tcu_g.mu);
		x = cap_umap_get(&l->by[TCU_LIVE_EXEC], c->handle);
		graph = x ? x->parent : 0;
		pthread_mutex_unlock(&tcu_g.mu);
	}
	if (!graph)
		return;
	if (k != SBT_CM_K_cuGraphCreate) {
		/* a clone is kept when the graph it copies is */
		pthread_mutex_lock(&tcu_g.mu);
		kept = tcu_live_graph_kept_locked(l, k == SBT_CM_K_cuGraphClone ? c->parent : graph);
		pthread_mutex_unlock(&tcu_g.mu);
		if (!kept)
			return;
	}
	tcu_live_graph_keep(k, id, graph, c, host, n);
}

void tcu_live_graph_exec_update(tcu_fn id, const sbt_cm_call *c)
{
	tcu_live *l = tcu_g.live;
	tcu_live_obj *x;
	uint64_t graph = 0;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	x = cap_umap_get(&l->by[TCU_LIVE_EXEC], c->handle);
	if (x && tcu_live_graph_kept_locked(l, c->parent))
		graph = x->parent;
	pthread_mutex_unlock(&tcu_g.mu);
	if (graph)
		tcu_live_graph_keep(SBT_CM_K_cuGraphExecUpdate, id, graph, c, NULL, 0);
}

void tcu_live_graph_set_params(sbt_cm_kind k, tcu_fn id, const sbt_cm_call *c, const void *host,
                               size_t n)
{
	tcu_live *l = tcu_g.live;
	uint64_t graph;
	if (!l || !tcu_tracking())
		return;
	pthread_mutex_lock(&tcu_g.mu);
	graph = (uint64_t)(uintptr_t)cap_umap_get(&tcu_g.graph_of_node, c->node);
	if (graph && !tcu_live_graph_kept_locked(l, graph))
		graph = 0;
	if (graph && c->parent) { /* on an exec: kept only while the exec is */
		tcu_live_obj *x = cap_umap_get(&l->by[TCU_LIVE_EXEC], c->parent);
		if (!x || x->parent != graph)
			graph = 0;
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (graph)
		tcu_live_graph_keep(k, id, graph, c, host, n);
}

/* ---- the snapshot ------------------------------------------------------- */

static void tcu_live_emit_ctx(sbt_cm_kind k, tcu_fn id, uint64_t ctx)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.ctx = ctx;
	tcu_emit(k, id, &c, 0);
}

/* One kept record, its module image stored anew in this window's file. */
static void tcu_live_emit(const tcu_live_obj *o)
{
	sbt_cm_call c;
	uint8_t *ids = NULL;
	if (sbt_cm_decode(o->payload, o->len, &c) != SBT_OK) {
		CAP_ERROR("cuda: a kept %s record cannot be decoded: the window's trace lacks it",
		          sbt_cm_kind_name(o->kind));
		return;
	}
	if (o->image)
		c.blob = cap_blob(o->image, o->image_len);
	if (o->nprelinked) {
		ids = calloc(o->nprelinked, 8);
		for (size_t i = 0; ids && i < o->nprelinked; i++) {
			uint64_t b = cap_blob(o->prelinked[i], o->prelinked_len[i]);
			memcpy(ids + i * 8, &b, 8);
		}
		c.prelinked = ids;
		c.prelinked_len = ids ? o->nprelinked * 8 : 0;
	}
	tcu_emit(o->kind, o->id, &c, 0);
	free(ids);
}

/* The address windows reserved so far (tcu_va.c), before any allocation. */
static void tcu_live_emit_windows(void)
{
	pthread_mutex_lock(&tcu_g.va_mu);
	for (int d = 0; d < TCU_VA_MAX_DEVICES; d++) {
		uint64_t base, size;
		sbt_cm_call c;
		if (tcu_g.va.win[d].state <= 0 || !tcu_va_window_range(d, &base, &size))
			continue;
		sbt_cm_call_init(&c);
		c.device = d;
		c.dst = base;
		c.size = size;
		tcu_emit(SBT_CM_K_tsVaWindow, TCU_FN_cuMemAddressReserve, &c, 0);
	}
	pthread_mutex_unlock(&tcu_g.va_mu);
}

/* The device of a kept context record; -1 for none. */
static int tcu_live_ctx_device(const tcu_live_obj *o)
{
	sbt_cm_call c;
	if (o->cls != TCU_LIVE_CTX || sbt_cm_decode(o->payload, o->len, &c) != SBT_OK)
		return -1;
	return (int)c.device;
}

/*
 * After the keyframe: every live event recorded before the window is
 * recorded again, so that a wait on it in the window waits for the
 * restored state, as the program's wait waited for work that is done by
 * now (the keyframe's copies synchronized).  It is recorded on the stream
 * it was recorded on while that stream lives (a default stream always
 * does), else on its context's null stream.
 */
static void tcu_live_emit_events(uint64_t mine)
{
	tcu_live *l = tcu_g.live;
	uint64_t cur = mine;
	pthread_mutex_lock(&tcu_g.mu);
	for (const tcu_live_obj *o = l->head; o; o = o->next) {
		sbt_cm_call c;
		if (o->cls != TCU_LIVE_EVENT || !o->recorded)
			continue;
		if (o->ctx && o->ctx != cur) {
			tcu_live_emit_ctx(SBT_CM_K_cuCtxSetCurrent, TCU_FN_cuCtxSetCurrent, o->ctx);
			cur = o->ctx;
		}
		sbt_cm_call_init(&c);
		c.event = o->key;
		if (o->rec_stream == TCU_H(CU_STREAM_LEGACY) ||
		    o->rec_stream == TCU_H(CU_STREAM_PER_THREAD) ||
		    cap_umap_get(&l->by[TCU_LIVE_STREAM], o->rec_stream))
			c.stream = o->rec_stream;
		else if (!o->rec_stream && o->rec_ptds)
			c.stream = TCU_H(CU_STREAM_PER_THREAD);
		tcu_emit(SBT_CM_K_cuEventRecord, TCU_FN_cuEventRecord, &c, 0);
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (mine && mine != cur)
		tcu_live_emit_ctx(SBT_CM_K_cuCtxSetCurrent, TCU_FN_cuCtxSetCurrent, mine);
}

static void tcu_live_snapshot(void)
{
	tcu_live *l = tcu_g.live;
	uint64_t devices_said = 0, cur = 0, first_ctx = 0, mine = tcu_live_current_ctx();
	const cap_config *cfg = cap_config_get();
	CUcontext popped;
	uint64_t *streams = NULL; /* the live streams, for the keyframe's bounded wait */
	size_t nstreams = 0, cap_streams = 0;

	/* A periodic snapshot of a whole-run capture: the trace already holds
	 * every creation, and replay restores from CUDA's own keyframes
	 * (TRACESMITH_SNAPSHOT=N). */
	if (!cfg->triggers || !l)
		return;
	/* The thread's context first seen here (the runtime's primary
	 * context, retained through a table we cannot see). */
	if (mine && !tcu_live_has(TCU_LIVE_CTX, mine))
		tcu_ctx_note_inferred(mine);
	tcu_live_emit_windows();
	pthread_mutex_lock(&tcu_g.mu);
	for (const tcu_live_obj *o = l->head; o; o = o->next) {
		int dev = tcu_live_ctx_device(o);
		if (dev >= 0 && dev < 64 && !(devices_said & (1ull << dev))) {
			sbt_cm_call c;
			devices_said |= 1ull << dev;
			sbt_cm_call_init(&c);
			c.value = (uint64_t)dev;
			c.device = dev;
			tcu_emit(SBT_CM_K_cuDeviceGet, TCU_FN_cuDeviceGet, &c, 0);
		}
		if (o->ctx && o->ctx != cur) {
			tcu_live_emit_ctx(SBT_CM_K_cuCtxSetCurrent, TCU_FN_cuCtxSetCurrent, o->ctx);
			cur = o->ctx;
		}
		tcu_live_emit(o);
		if (o->cls == TCU_LIVE_STREAM) {
			if (nstreams == cap_streams) {
				size_t want = cap_streams ? 2 * cap_streams : 16;
				uint64_t *grown = realloc(streams, want * sizeof(*grown));
				if (grown) {
					streams = grown;
					cap_streams = want;
				}
			}
			if (nstreams < cap_streams)
				streams[nstreams++] = o->key;
		}
		if (o->cls == TCU_LIVE_CTX && !first_ctx)
			first_ctx = o->key;
		if (o->kind == SBT_CM_K_cuCtxCreate) /* it became current */
			cur = o->key;
	}
	for (const tcu_live_obj *o = l->head; o; o = o->next) {
		if (o->cls == TCU_LIVE_VMM_HANDLE && o->released) {
			sbt_cm_call c;
			sbt_cm_call_init(&c);
			c.handle = o->key;
			tcu_emit(SBT_CM_K_cuMemRelease, TCU_FN_cuMemRelease, &c, 0);
		}
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (mine && mine != cur)
		tcu_live_emit_ctx(SBT_CM_K_cuCtxSetCurrent, TCU_FN_cuCtxSetCurrent, mine);
	/* graph memory a launch before the window left allocated: its exec
	 * launched again, so the keyframe below has somewhere to go */
	tcu_graph_gmem_relaunch();
	tcu_pending_forget();
	/* A window opened on a thread without a context (an NVTX range on a
	 * thread of its own): the keyframe's copies go through the first
	 * context kept, made current for them. */
	if (!mine && first_ctx) {
		((tcu_pfn_cuCtxPushCurrent_v2)tcu_own(TCU_FN_cuCtxPushCurrent_v2))(
			(CUcontext)(uintptr_t)first_ctx);
		tcu_keyframe_window(streams, nstreams);
		((tcu_pfn_cuCtxPopCurrent_v2)tcu_own(TCU_FN_cuCtxPopCurrent_v2))(&popped);
	} else {
		tcu_keyframe_window(streams, nstreams);
	}
	free(streams);
	tcu_live_emit_events(mine);
}

void tcu_live_init(void)
{
	if (!tcu_tracking())
		return;
	tcu_g.live = calloc(1, sizeof(*tcu_g.live));
	if (!tcu_g.live) {
		CAP_ERROR("cuda: out of memory: capture windows will lack the CUDA state");
		return;
	}
	cap_on_window_open(tcu_live_snapshot);
}

/* ---- launches as units ---------------------------------------------------- */

/* The flag not read yet, or windowed (tcu_launch_unit_begin's slow path). */
int tcu_launch_unit_begin_windowed(tcu_mode *mode)
{
	if (!tcu_windowed())
		return 0;
	cap_unit_begin(CAP_UNIT_LAUNCH);
	*mode = cap_active() ? TCU_MODE_RECORD : TCU_MODE_COUNTED;
	return 1;
}

/* ---- cuProfilerStart / cuProfilerStop ------------------------------------- */

/*
 * With the profiler trigger (TRACESMITH_TRIGGER=profiler) the program's
 * own profiling markers bound the windows: one opens once cuProfilerStart
 * has returned and closes when cuProfilerStop is called.  The two calls
 * are not records of the model.  Without that trigger they pass through.
 */
static int tcu_profiler_trigger(tcu_mode mode)
{
	return mode != TCU_MODE_NESTED && tcu_windowed() &&
	       (cap_config_get()->triggers & CAP_TRIG_PROFILER);
}

CUresult tcu_m_cuProfilerStart(tcu_fn id)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuProfilerStart real = (tcu_pfn_cuProfilerStart)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real();
	if (r == CUDA_SUCCESS && tcu_profiler_trigger(mode))
		cap_window_start("profiler");
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuProfilerStop(tcu_fn id)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuProfilerStop real = (tcu_pfn_cuProfilerStop)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	if (tcu_profiler_trigger(mode))
		cap_window_end();
	r = real();
out:
	tcu_call_end();
	return r;
}
