/*
 * tcu_graph.c - recording of CUDA graphs built node by node (cudart's
 * cudaGraphAddKernelNode and friends call these): cuGraphCreate, the
 * cuGraphAdd*Node calls (kernel, memcpy, memset, empty, event record and
 * wait, child graph and host nodes, memory allocation and free nodes),
 * cuGraphAddDependencies, edge and node removal, cuGraphClone,
 * cuGraphNodeFindInClone and cuGraphChildGraphNodeGetGraph, the setters of those
 * node kinds (on graphs and on execs, the generic cuGraph(Exec)NodeSetParams
 * of those kinds included), cuGraphNodeSetEnabled, cuGraphExecUpdate and
 * cuStreamBeginCaptureToGraph; batch memory-op nodes and their setters, the
 * stream memory operations (cuStreamWriteValue*, cuStreamWaitValue*,
 * cuStreamBatchMemOp: recorded as the nodes' operations are),
 * kernel node attributes (set and copied), and child graph nodes that take
 * their child (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE: how a child graph may
 * hold memory nodes).
 * sbt_compute.h says what each record holds; a kernel node carries its
 * kernel exactly as a launch record does (the same encoder,
 * tcu_kernel_node_encoded).  A memcpy node's host source is recorded
 * again before each launch of an exec holding it (tsGraphHostSource,
 * below): the driver reads it then.  A node of a kind the model does not
 * cover (allocation nodes of pools other than plain device memory,
 * external semaphore nodes, programmatic edges) and every other call that changes
 * a graph or an exec (the setters of those kinds, of host and child graph
 * nodes) is recorded as tsGraphNotModeled naming
 * the call, so that replay refuses to launch that graph's or exec's work
 * by name instead of running it without the change; such graphs and
 * execs are counted in the exit report.
 *
 * While capture is windowed the records of a graph made by cuGraphCreate
 * (or cloned from a kept one) are kept for a later window's snapshot
 * (tcu_live.c), as a stream capture's are.
 */
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

#define TCU_H(x) ((uint64_t)(uintptr_t)(x))

/* Node handles as the record's packed deps field: u64 LE each (x86-64 is
 * little-endian, and CUgraphNode is a pointer).  NULL when n is 0 or out
 * of memory (the record then lacks them: said). */
static uint8_t *tcu_graph_pack_nodes(const CUgraphNode *nodes, size_t n)
{
	uint8_t *p;
	if (!nodes || !n)
		return NULL;
	p = malloc(n * 8);
	if (!p) {
		CAP_ERROR("cuda: out of memory recording %zu graph dependencies", n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t h = TCU_H(nodes[i]);
		memcpy(p + i * 8, &h, 8);
	}
	return p;
}

/* Records c (and keeps it for windows when its graph is kept); host: the
 * bytes of a memcpy node's host source, stored as its blob. */
/* With mu held: the graph that owns graph, itself unless it is embedded
 * in a child graph node (cuGraphChildGraphNodeGetGraph), then the
 * outermost graph holding that node: a change to the embedded graph
 * changes that graph's work. */
static uint64_t tcu_graph_root_locked(uint64_t graph)
{
	uint64_t up;
	for (int depth = 0; depth < 64 && graph; depth++) {
		up = (uint64_t)(uintptr_t)cap_umap_get(&tcu_g.embedded_in, graph);
		if (!up)
			break;
		graph = up;
	}
	return graph;
}

static uint64_t tcu_graph_root(uint64_t graph)
{
	pthread_mutex_lock(&tcu_g.mu);
	graph = tcu_graph_root_locked(graph);
	pthread_mutex_unlock(&tcu_g.mu);
	return graph;
}

static void tcu_graph_emit(sbt_cm_kind k, tcu_fn id, tcu_mode mode, sbt_cm_call *c, uint64_t graph,
                           const void *host, size_t host_len)
{
	if (mode != TCU_MODE_NESTED && c->result == CUDA_SUCCESS && c->node && graph) {
		pthread_mutex_lock(&tcu_g.mu);
		cap_umap_put(&tcu_g.graph_of_node, c->node, (void *)(uintptr_t)graph);
		pthread_mutex_unlock(&tcu_g.mu);
	}
	if (mode == TCU_MODE_RECORD) {
		uint64_t blob = c->blob;
		if (host && host_len)
			c->blob = cap_blob(host, host_len);
		tcu_emit(k, id, c, 0);
		c->blob = blob;
	}
	if (mode != TCU_MODE_NESTED && c->result == CUDA_SUCCESS)
		tcu_live_graph_call(k, id, tcu_graph_root(graph), c, host, host_len);
}

/* The common fields of an added node. */
static void tcu_graph_node_call(sbt_cm_call *c, CUresult r, const CUgraphNode *out, CUgraph g,
                                uint8_t *deps, size_t ndeps)
{
	c->result = r;
	c->node = r == CUDA_SUCCESS && out ? TCU_H(*out) : 0;
	c->parent = TCU_H(g);
	c->deps = deps;
	c->deps_len = deps ? ndeps * 8 : 0;
}

/* The kernel of a kernel node, decoded into c from the launch encoder's
 * bytes (*enc_out: the bytes c points into, freed by the caller). */
static void tcu_graph_kernel_call(sbt_cm_call *c, CUresult r, CUfunction f, CUkernel kern,
                                  const unsigned grid[3], const unsigned block[3], unsigned shared,
                                  void **params, void **extra, uint8_t **enc_out)
{
	size_t n = 0;
	uint8_t *enc = tcu_kernel_node_encoded(f ? f : (CUfunction)kern, grid, block, shared, params,
	                                       extra, r, &n);
	sbt_cm_call_init(c);
	if (!enc || sbt_cm_decode(enc, n, c) != SBT_OK) {
		CAP_ERROR("cuda: cannot encode a graph's kernel node: its record lacks the kernel");
		sbt_cm_call_init(c);
		c->result = r;
	}
	*enc_out = enc;
}

static void tcu_graph_kernel_v1(sbt_cm_call *c, CUresult r, const CUDA_KERNEL_NODE_PARAMS_v1 *p,
                                uint8_t **enc_out)
{
	unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
	unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
	tcu_graph_kernel_call(c, r, p->func, NULL, grid, block, p->sharedMemBytes, p->kernelParams,
	                      p->extra, enc_out);
}

static void tcu_graph_kernel_v2(sbt_cm_call *c, CUresult r, const CUDA_KERNEL_NODE_PARAMS *p,
                                uint8_t **enc_out)
{
	unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
	unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
	tcu_graph_kernel_call(c, r, p->func, p->kern, grid, block, p->sharedMemBytes, p->kernelParams,
	                      p->extra, enc_out);
	if (!p->func)
		c->ctx = TCU_H(p->ctx);
}

/* ---- the graph ------------------------------------------------------------------ */

CUresult tcu_m_cuGraphCreate(tcu_fn id, CUgraph *out, unsigned int flags)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	tcu_pfn_cuGraphCreate real = (tcu_pfn_cuGraphCreate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, flags);
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = r == CUDA_SUCCESS && out ? TCU_H(*out) : 0;
	c.flags = flags;
	tcu_graph_emit(SBT_CM_K_cuGraphCreate, id, mode, &c, c.handle, NULL, 0);
out:
	tcu_call_end();
	return r;
}

/* ---- nodes the model covers --------------------------------------------------- */

static void tcu_graph_kernel_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out, CUgraph g,
                                  const CUgraphNode *deps, size_t ndeps,
                                  const CUDA_KERNEL_NODE_PARAMS_v1 *p1,
                                  const CUDA_KERNEL_NODE_PARAMS *p2)
{
	sbt_cm_call c;
	uint8_t *enc = NULL, *packed;
	if (mode == TCU_MODE_NESTED || (!p1 && !p2))
		return;
	if (p1)
		tcu_graph_kernel_v1(&c, r, p1, &enc);
	else
		tcu_graph_kernel_v2(&c, r, p2, &enc);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_emit(SBT_CM_K_cuGraphAddKernelNode, id, mode, &c, TCU_H(g), NULL, 0);
	free(packed);
	free(enc);
}

CUresult tcu_m_cuGraphAddKernelNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                    size_t ndeps, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddKernelNode real =
	    (tcu_pfn_cuGraphAddKernelNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p);
	tcu_graph_kernel_node(id, mode, r, out, g, deps, ndeps, p, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphAddKernelNode_v2(tcu_fn id, CUgraphNode *out, CUgraph g,
                                       const CUgraphNode *deps, size_t ndeps,
                                       const CUDA_KERNEL_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddKernelNode_v2 real =
	    (tcu_pfn_cuGraphAddKernelNode_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p);
	tcu_graph_kernel_node(id, mode, r, out, g, deps, ndeps, NULL, p);
out:
	tcu_call_end();
	return r;
}

/* ---- host sources of memcpy nodes --------------------------------------------- */

/*
 * The driver reads a memcpy node's host source at each launch, not when
 * the node is added.  A graph's memcpy nodes that read host memory are
 * kept here (node and copy parameters), copied to each exec made from
 * it; before each launch of such an exec, one tsGraphHostSource record
 * per node carries the bytes as they are then (a blob: unchanged bytes
 * are stored once), which replay writes into the node's host buffer.
 * Launches of execs without such nodes look at nothing but hsrc_execs.
 */
typedef struct tcu_hsrc {
	uint64_t node;
	CUDA_MEMCPY3D p; /* as the node was made (its host pointer borrowed from the program) */
} tcu_hsrc;

typedef struct tcu_hsrc_set {
	size_t n;
	tcu_hsrc v[];
} tcu_hsrc_set;

static tcu_hsrc_set *tcu_hsrc_copy(const tcu_hsrc_set *set)
{
	tcu_hsrc_set *c;
	if (!set || !set->n)
		return NULL;
	c = malloc(sizeof(*c) + set->n * sizeof(c->v[0]));
	if (!c) {
		CAP_ERROR("cuda: out of memory copying a graph's %zu host sources: its launches lack them",
		          set->n);
		return NULL;
	}
	memcpy(c, set, sizeof(*c) + set->n * sizeof(c->v[0]));
	return c;
}

/* With mu held: the set of key in m (hsrc_of_graph or hsrc_of_exec)
 * gains add's n entries. */
static void tcu_hsrc_append_in_locked(cap_umap *m, uint64_t key, const tcu_hsrc *add, size_t n)
{
	tcu_hsrc_set *set = cap_umap_get(m, key), *grown;
	size_t have = set ? set->n : 0;
	if (!n)
		return;
	grown = realloc(set, sizeof(*grown) + (have + n) * sizeof(grown->v[0]));
	if (!grown) {
		CAP_ERROR("cuda: out of memory keeping a memcpy node's host source: its launches lack it");
		return;
	}
	memcpy(grown->v + have, add, n * sizeof(*add));
	grown->n = have + n;
	if (cap_umap_put(m, key, grown) == grown && grown != set) {
		CAP_ERROR("cuda: out of memory keeping a memcpy node's host source: its launches lack it");
		free(grown);
		cap_umap_del(m, key);
		if (set && m == &tcu_g.hsrc_of_exec)
			atomic_fetch_sub_explicit(&tcu_g.hsrc_execs, 1, memory_order_relaxed);
	} else if (!set && m == &tcu_g.hsrc_of_exec) {
		atomic_fetch_add_explicit(&tcu_g.hsrc_execs, 1, memory_order_relaxed);
	}
}

static void tcu_hsrc_append_locked(uint64_t graph, const tcu_hsrc *add, size_t n)
{
	uint64_t root = tcu_graph_root_locked(graph);
	tcu_hsrc_append_in_locked(&tcu_g.hsrc_of_graph, graph, add, n);
	if (root != graph) /* a node of an embedded graph: read at the owner's launches */
		tcu_hsrc_append_in_locked(&tcu_g.hsrc_of_graph, root, add, n);
}

/* A memcpy node's parameters set (exec 0: the graph's node): its host
 * source, if it now has one, replaces what the set held for it. */
static void tcu_hsrc_node_set(uint64_t exec, uint64_t node, const CUDA_MEMCPY3D *p)
{
	cap_umap *m = exec ? &tcu_g.hsrc_of_exec : &tcu_g.hsrc_of_graph;
	uint64_t key;
	tcu_hsrc_set *set;
	pthread_mutex_lock(&tcu_g.mu);
	key = exec ? exec : (uint64_t)(uintptr_t)cap_umap_get(&tcu_g.graph_of_node, node);
	set = key ? cap_umap_get(m, key) : NULL;
	for (size_t i = 0; set && i < set->n;)
		if (set->v[i].node == node)
			set->v[i] = set->v[--set->n];
		else
			i++;
	if (key && p) {
		tcu_hsrc h;
		h.node = node;
		h.p = *p;
		tcu_hsrc_append_in_locked(m, key, &h, 1);
	}
	pthread_mutex_unlock(&tcu_g.mu);
}

static void tcu_hsrc_add(uint64_t graph, uint64_t node, const CUDA_MEMCPY3D *p)
{
	tcu_hsrc h;
	h.node = node;
	h.p = *p;
	pthread_mutex_lock(&tcu_g.mu);
	tcu_hsrc_append_locked(graph, &h, 1);
	pthread_mutex_unlock(&tcu_g.mu);
}

static void tcu_hsrc_node_gone(uint64_t graph, uint64_t node)
{
	tcu_hsrc_set *set;
	pthread_mutex_lock(&tcu_g.mu);
	set = cap_umap_get(&tcu_g.hsrc_of_graph, graph);
	for (size_t i = 0; set && i < set->n;)
		if (set->v[i].node == node)
			set->v[i] = set->v[--set->n];
		else
			i++;
	pthread_mutex_unlock(&tcu_g.mu);
}

/*
 * Sets kept per graph and copied for each exec instantiated from it (the
 * host sources above, the graph memory below): of_graph and of_exec map a
 * handle to its owned set, execs counts of_exec's entries so that a
 * launch or a destroy looks only while there are any.
 */
typedef struct tcu_exec_sets {
	cap_umap *of_graph, *of_exec;
	_Atomic uint64_t *execs;
	void *(*copy)(const void *set); /* NULL for no set or an empty one */
	const char *oom;                /* what an exec lacks when its copy cannot be kept */
} tcu_exec_sets;

static void tcu_exec_sets_instantiate(const tcu_exec_sets *es, uint64_t exec, uint64_t graph)
{
	void *copy, *old;
	if (!exec)
		return;
	pthread_mutex_lock(&tcu_g.mu);
	copy = es->copy(cap_umap_get(es->of_graph, graph));
	old = cap_umap_del(es->of_exec, exec); /* a handle reused */
	if (old)
		atomic_fetch_sub_explicit(es->execs, 1, memory_order_relaxed);
	if (copy && cap_umap_put(es->of_exec, exec, copy) == copy) {
		CAP_ERROR("cuda: out of memory keeping an exec's %s", es->oom);
		free(copy);
		copy = NULL;
	}
	if (copy)
		atomic_fetch_add_explicit(es->execs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&tcu_g.mu);
	free(old);
}

static void tcu_exec_sets_exec_destroy(const tcu_exec_sets *es, uint64_t exec)
{
	void *old;
	if (!atomic_load_explicit(es->execs, memory_order_relaxed))
		return;
	pthread_mutex_lock(&tcu_g.mu);
	old = cap_umap_del(es->of_exec, exec);
	if (old)
		atomic_fetch_sub_explicit(es->execs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&tcu_g.mu);
	free(old);
}

static void tcu_exec_sets_graph_destroy(const tcu_exec_sets *es, uint64_t graph)
{
	void *old;
	pthread_mutex_lock(&tcu_g.mu);
	old = cap_umap_del(es->of_graph, graph);
	pthread_mutex_unlock(&tcu_g.mu);
	free(old);
}

static void *tcu_hsrc_copy_any(const void *set)
{
	return tcu_hsrc_copy(set);
}

static const tcu_exec_sets tcu_hsrc_sets = { &tcu_g.hsrc_of_graph, &tcu_g.hsrc_of_exec, &tcu_g.hsrc_execs,
	                                     tcu_hsrc_copy_any, "host sources: its launches lack them" };

void tcu_graph_hsrc_instantiate(uint64_t exec, uint64_t graph)
{
	tcu_exec_sets_instantiate(&tcu_hsrc_sets, exec, graph);
}

void tcu_graph_hsrc_exec_destroy(uint64_t exec)
{
	tcu_exec_sets_exec_destroy(&tcu_hsrc_sets, exec);
}

void tcu_graph_hsrc_graph_destroy(uint64_t graph)
{
	tcu_exec_sets_graph_destroy(&tcu_hsrc_sets, graph);
}

void tcu_graph_hsrc_launch(tcu_fn id, uint64_t exec)
{
	tcu_hsrc_set *set;
	if (!atomic_load_explicit(&tcu_g.hsrc_execs, memory_order_relaxed))
		return;
	pthread_mutex_lock(&tcu_g.mu);
	set = tcu_hsrc_copy(cap_umap_get(&tcu_g.hsrc_of_exec, exec));
	pthread_mutex_unlock(&tcu_g.mu);
	for (size_t i = 0; set && i < set->n; i++) {
		sbt_cm_call c, h;
		uint8_t *host = NULL;
		size_t bytes = 0;
		tcu_copy3d_node_fill(&set->v[i].p, CUDA_SUCCESS, &c, &host, &bytes);
		if (!host) {
			/* (no longer a host source as the interposer classifies
			 * memory now, or out of memory) */
			CAP_ERROR("cuda: cannot read the host source of graph node %p at a launch: replay uses "
			          "the bytes of the launch before", (void *)(uintptr_t)set->v[i].node);
			continue;
		}
		sbt_cm_call_init(&h);
		h.handle = exec;
		h.node = set->v[i].node;
		h.host = c.host;
		h.size = bytes;
		h.blob = cap_blob(host, bytes);
		tcu_emit(SBT_CM_K_tsGraphHostSource, id, &h, 0);
		free(host);
	}
	free(set);
}

/* ---- graph memory that outlives a launch ------------------------------------- */

/*
 * The driver API documentation: an allocation node's memory freed by no
 * free node of its graph stays allocated after the launch, for the stream
 * work after it, until cuMemFreeAsync, cuMemFree or a free node of another
 * graph frees it (or the next launch of an exec instantiated to free it
 * on launch).  Each graph's such allocations (and the memory its free
 * nodes free that its own allocation nodes did not make: size 0) are kept
 * here and copied to each exec; after a launch the memory is put in the
 * allocation table, so that the frees above take it out and keyframes
 * (a window's snapshot) hold its bytes.  The window's snapshot launches
 * such an exec again first (tcu_graph_gmem_relaunch): replay has no
 * other way to allocate graph memory.
 */
typedef struct tcu_gmem {
	uint64_t addr;
	uint64_t size; /* 0: freed by this graph, allocated by another */
} tcu_gmem;

typedef struct tcu_gmem_set {
	uint64_t graph;
	int launched; /* execs: launched since instantiated */
	size_t n;
	tcu_gmem v[];
} tcu_gmem_set;

static tcu_gmem_set *tcu_gmem_copy(const tcu_gmem_set *set)
{
	tcu_gmem_set *c;
	if (!set || !set->n)
		return NULL;
	c = malloc(sizeof(*c) + set->n * sizeof(c->v[0]));
	if (!c) {
		CAP_ERROR("cuda: out of memory copying a graph's memory: a window's keyframe may lack it");
		return NULL;
	}
	memcpy(c, set, sizeof(*c) + set->n * sizeof(c->v[0]));
	return c;
}

/* An allocation node (size) or a free node (size 0) of graph succeeded. */
static void tcu_gmem_node(uint64_t graph, uint64_t addr, uint64_t size)
{
	tcu_gmem_set *set, *grown;
	pthread_mutex_lock(&tcu_g.mu);
	set = cap_umap_get(&tcu_g.gmem_of_graph, graph);
	if (!size) {
		/* a free node of this graph's own allocation: that memory does
		 * not outlive the launch */
		for (size_t i = 0; set && i < set->n; i++)
			if (set->v[i].addr == addr && set->v[i].size) {
				set->v[i] = set->v[--set->n];
				goto out_unlock;
			}
	}
	grown = realloc(set, sizeof(*grown) + ((set ? set->n : 0) + 1) * sizeof(grown->v[0]));
	if (!grown) {
		CAP_ERROR("cuda: out of memory keeping graph memory: a window's keyframe may lack it");
		goto out_unlock;
	}
	if (!set) {
		grown->graph = graph;
		grown->launched = 0;
		grown->n = 0;
	}
	grown->v[grown->n].addr = addr;
	grown->v[grown->n].size = size;
	grown->n++;
	if (grown != set && cap_umap_put(&tcu_g.gmem_of_graph, graph, grown) == grown) {
		CAP_ERROR("cuda: out of memory keeping graph memory: a window's keyframe may lack it");
		free(grown);
		cap_umap_del(&tcu_g.gmem_of_graph, graph);
	}
out_unlock:
	pthread_mutex_unlock(&tcu_g.mu);
}

static void *tcu_gmem_copy_any(const void *set)
{
	return tcu_gmem_copy(set);
}

static const tcu_exec_sets tcu_gmem_sets = { &tcu_g.gmem_of_graph, &tcu_g.gmem_of_exec, &tcu_g.gmem_execs,
	                                     tcu_gmem_copy_any, "graph memory: a window's keyframe may lack it" };

void tcu_graph_gmem_instantiate(uint64_t exec, uint64_t graph)
{
	tcu_exec_sets_instantiate(&tcu_gmem_sets, exec, graph);
}

void tcu_graph_gmem_exec_destroy(uint64_t exec)
{
	tcu_exec_sets_exec_destroy(&tcu_gmem_sets, exec);
}

void tcu_graph_gmem_graph_destroy(uint64_t graph)
{
	tcu_exec_sets_graph_destroy(&tcu_gmem_sets, graph);
}

void tcu_graph_gmem_launch(uint64_t exec)
{
	tcu_gmem_set *set, *copy = NULL;
	pthread_mutex_lock(&tcu_g.mu);
	set = cap_umap_get(&tcu_g.gmem_of_exec, exec);
	if (set) {
		set->launched = 1;
		copy = tcu_gmem_copy(set);
	}
	pthread_mutex_unlock(&tcu_g.mu);
	for (size_t i = 0; copy && i < copy->n; i++) {
		if (copy->v[i].size)
			tcu_alloc_add(copy->v[i].addr, copy->v[i].size, SBT_CM_MEM_ASYNC);
		else
			tcu_alloc_del(copy->v[i].addr);
	}
	free(copy);
}

/* Whether exec's graph memory is allocated now (in the allocation table);
 * mu held. */
static int tcu_gmem_live_locked(const tcu_gmem_set *set)
{
	if (!set->launched)
		return 0;
	for (size_t i = 0; i < set->n; i++) {
		const tcu_alloc *a;
		if (!set->v[i].size)
			continue;
		a = cap_umap_get(&tcu_g.allocs, set->v[i].addr);
		if (a && a->kind == SBT_CM_MEM_ASYNC && a->size == set->v[i].size)
			return 1;
	}
	return 0;
}

void tcu_graph_gmem_relaunch(void)
{
	uint64_t *execs = NULL;
	size_t n = 0;
	if (!atomic_load_explicit(&tcu_g.gmem_execs, memory_order_relaxed))
		return;
	pthread_mutex_lock(&tcu_g.mu);
	execs = malloc((tcu_g.gmem_of_exec.n ? tcu_g.gmem_of_exec.n : 1) * sizeof(*execs));
	for (size_t i = 0; execs && i < tcu_g.gmem_of_exec.n; i++) {
		const tcu_gmem_set *set = tcu_g.gmem_of_exec.vals[i];
		uint64_t exec = tcu_g.gmem_of_exec.keys[i];
		if (!tcu_gmem_live_locked(set))
			continue;
		if (cap_umap_get(&tcu_g.graphs_partial, exec) || cap_umap_get(&tcu_g.graphs_partial, set->graph)) {
			CAP_WARN("cuda: graph exec %p left graph memory allocated as the window opens, but a call "
			         "the model does not cover changed it: the window's replay cannot allocate that "
			         "memory again", (void *)(uintptr_t)exec);
			continue;
		}
		execs[n++] = exec;
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (!execs)
		CAP_ERROR("cuda: out of memory: a window's snapshot lacks the graph launches that allocate its "
		          "graph memory");
	for (size_t i = 0; i < n; i++) {
		sbt_cm_call c;
		if (!tcu_live_has(TCU_LIVE_EXEC, execs[i])) {
			CAP_WARN("cuda: graph exec %p left graph memory allocated as the window opens, but its "
			         "construction is not kept: the window's replay cannot allocate that memory again",
			         (void *)(uintptr_t)execs[i]);
			continue;
		}
		sbt_cm_call_init(&c);
		c.handle = execs[i];
		tcu_emit(SBT_CM_K_cuGraphLaunch, TCU_FN_cuGraphLaunch, &c, 0);
	}
	if (n) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		tcu_emit(SBT_CM_K_cuCtxSynchronize, TCU_FN_cuCtxSynchronize, &c, 0);
	}
	free(execs);
}

/* A memcpy node: cuMemcpy3D's fields; a host source's bytes as they are
 * now (the driver reads them at every launch of the graph: each launch
 * records them again, above). */
static void tcu_graph_memcpy_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out,
                                  CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                  const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	sbt_cm_call c;
	uint8_t *packed = NULL, *host = NULL;
	size_t bytes = 0;
	if (mode == TCU_MODE_NESTED || !p)
		return;
	tcu_copy3d_node_fill(p, r, &c, &host, &bytes);
	c.ctx = TCU_H(ctx);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_emit(SBT_CM_K_cuGraphAddMemcpyNode, id, mode, &c, TCU_H(g), host, host ? bytes : 0);
	if (host && c.result == CUDA_SUCCESS && c.node)
		tcu_hsrc_add(TCU_H(g), c.node, p);
	free(packed);
	free(host);
}

CUresult tcu_m_cuGraphAddMemcpyNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                    size_t ndeps, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddMemcpyNode real =
	    (tcu_pfn_cuGraphAddMemcpyNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p, ctx);
	tcu_graph_memcpy_node(id, mode, r, out, g, deps, ndeps, p, ctx);
out:
	tcu_call_end();
	return r;
}

static void tcu_graph_memset_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out,
                                  CUgraph g, const CUgraphNode *deps, size_t ndeps, CUdeviceptr dst,
                                  size_t pitch, unsigned value, unsigned elem, size_t width,
                                  size_t height, CUcontext ctx)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	tcu_memset_fields(&c, dst, pitch, value, elem, width, height);
	c.ctx = TCU_H(ctx);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_emit(SBT_CM_K_cuGraphAddMemsetNode, id, mode, &c, TCU_H(g), NULL, 0);
	free(packed);
}

CUresult tcu_m_cuGraphAddMemsetNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                    size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddMemsetNode real =
	    (tcu_pfn_cuGraphAddMemsetNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p, ctx);
	if (p)
		tcu_graph_memset_node(id, mode, r, out, g, deps, ndeps, p->dst, p->pitch, p->value,
		                      p->elementSize, p->width, p->height, ctx);
out:
	tcu_call_end();
	return r;
}

/* Empty, event record and event wait nodes: event is 0 for an empty one. */
static void tcu_graph_plain_node(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r,
                                 CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                 CUevent e)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.event = TCU_H(e);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_emit(k, id, mode, &c, TCU_H(g), NULL, 0);
	free(packed);
}

CUresult tcu_m_cuGraphAddEmptyNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                   size_t ndeps)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddEmptyNode real = (tcu_pfn_cuGraphAddEmptyNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps);
	tcu_graph_plain_node(SBT_CM_K_cuGraphAddEmptyNode, id, mode, r, out, g, deps, ndeps, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphAddEventRecordNode(tcu_fn id, CUgraphNode *out, CUgraph g,
                                         const CUgraphNode *deps, size_t ndeps, CUevent e)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddEventRecordNode real =
	    (tcu_pfn_cuGraphAddEventRecordNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, e);
	tcu_graph_plain_node(SBT_CM_K_cuGraphAddEventRecordNode, id, mode, r, out, g, deps, ndeps, e);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphAddEventWaitNode(tcu_fn id, CUgraphNode *out, CUgraph g,
                                       const CUgraphNode *deps, size_t ndeps, CUevent e)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddEventWaitNode real =
	    (tcu_pfn_cuGraphAddEventWaitNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, e);
	tcu_graph_plain_node(SBT_CM_K_cuGraphAddEventWaitNode, id, mode, r, out, g, deps, ndeps, e);
out:
	tcu_call_end();
	return r;
}

/* ---- calls the model does not cover ------------------------------------------------ */

static void tcu_graph_partial_locked(uint64_t key)
{
	if (key && !cap_umap_get(&tcu_g.graphs_partial, key) &&
	    !cap_umap_put(&tcu_g.graphs_partial, key, (void *)(uintptr_t)1))
		tcu_g.ngraphs_partial++;
}

/* Counts key (a graph or an exec) once for the exit report; a graph
 * embedded in a child graph node marks the graph holding it too. */
static void tcu_graph_partial(uint64_t key)
{
	uint64_t root;
	pthread_mutex_lock(&tcu_g.mu);
	tcu_graph_partial_locked(key);
	root = tcu_graph_root_locked(key);
	if (root != key)
		tcu_graph_partial_locked(root);
	pthread_mutex_unlock(&tcu_g.mu);
}

/* A successful call that changed graph, exec or node (the graph it
 * belongs to looked up) in a way the model does not cover: recorded as
 * tsGraphNotModeled by the call's name (replay refuses that work). */
void tcu_graph_changed(tcu_fn id, tcu_mode mode, CUresult r, uint64_t graph, uint64_t exec,
                       uint64_t node, const char *call)
{
	sbt_cm_call c;
	if (mode == TCU_MODE_NESTED || r != CUDA_SUCCESS)
		return;
	if (!graph && !exec && node) {
		pthread_mutex_lock(&tcu_g.mu);
		graph = (uint64_t)(uintptr_t)cap_umap_get(&tcu_g.graph_of_node, node);
		pthread_mutex_unlock(&tcu_g.mu);
	}
	sbt_cm_call_init(&c);
	c.result = r;
	c.parent = exec ? 0 : graph;
	c.handle = exec;
	c.node = node;
	c.name = (const uint8_t *)call;
	c.name_len = strlen(call);
	tcu_graph_partial(exec ? exec : graph ? graph : node);
	CAP_INFO("cuda: %s changes a graph in a way the model does not cover: replay refuses its work", call);
	if (mode == TCU_MODE_RECORD)
		tcu_emit(SBT_CM_K_tsGraphNotModeled, id, &c, 0);
	tcu_live_graph_call(SBT_CM_K_tsGraphNotModeled, id, graph, &c, NULL, 0);
}

/* Whether any of the n edges carries data other than the default (a
 * programmatic edge), which the model does not cover. */
static int tcu_graph_edges_special(const CUgraphEdgeData *edges, size_t n)
{
	static const CUgraphEdgeData plain;
	for (size_t i = 0; edges && i < n; i++)
		if (memcmp(&edges[i], &plain, sizeof(plain)) != 0)
			return 1;
	return 0;
}

/* The capture's work becomes nodes of g after deps when it ends, and
 * cuStreamEndCapture hands back g: replay begins its own capture into
 * its own g, after the nodes deps map to (docs/cuda-replay.md "Graphs").
 * Kept for windows as any capture (tcu_live.c): at its end the capture's
 * records become g's, after g's own. */
void tcu_graph_capture_to(tcu_fn id, tcu_mode mode, CUresult r, CUstream s, CUgraph g, const CUgraphNode *deps,
                          const CUgraphEdgeData *data, size_t ndeps, CUstreamCaptureMode m)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	if (tcu_graph_edges_special(data, ndeps)) {
		tcu_graph_changed(id, mode, r, TCU_H(g), 0, 0, "cuStreamBeginCaptureToGraph");
		return;
	}
	packed = tcu_graph_pack_nodes(deps, ndeps);
	sbt_cm_call_init(&c);
	c.result = r;
	c.stream = TCU_H(s);
	c.flags = (unsigned)m;
	c.parent = TCU_H(g);
	c.deps = packed;
	c.deps_len = packed ? ndeps * 8 : 0;
	if (mode == TCU_MODE_RECORD)
		tcu_emit(SBT_CM_K_cuStreamBeginCapture, id, &c, 0);
	if (r == CUDA_SUCCESS && tcu_windowed())
		tcu_live_capture_begin(id, &c);
	free(packed);
}

/* A node the model does not cover: recorded as tsGraphNotModeled with
 * the node (sub = its type) and its dependencies. */
static void tcu_graph_unmodeled_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out,
                                     CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                     CUgraphNodeType type, const char *call)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.sub = (uint64_t)type;
	c.name = (const uint8_t *)call;
	c.name_len = strlen(call);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	if (r == CUDA_SUCCESS) {
		tcu_graph_partial(TCU_H(g));
		CAP_INFO("cuda: %s: a graph node the model does not cover; replay refuses graph %p",
		         call, (void *)g);
	}
	tcu_graph_emit(SBT_CM_K_tsGraphNotModeled, id, mode, &c, TCU_H(g), NULL, 0);
	free(packed);
}

/*
 * The wrappers of calls not covered: each passes the call through and
 * marks what it changed.  TCU_GRAPH_NM(canon, (params), (args), graph,
 * exec, node): graph, exec and node are expressions of the parameters
 * (0 where the call names none).
 */
#define TCU_GRAPH_ID(...) __VA_ARGS__
#define TCU_GRAPH_NM(canon, params, args, graph, exec, node)                                       \
	CUresult tcu_m_##canon(tcu_fn id, TCU_GRAPH_ID params)                                         \
	{                                                                                              \
		tcu_mode mode;                                                                             \
		CUresult r;                                                                                \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);                    \
		if (!real) {                                                                               \
			r = tcu_no_driver(id);                                                                 \
			goto out;                                                                              \
		}                                                                                          \
		r = real args;                                                                             \
		tcu_graph_changed(id, mode, r, TCU_H(graph), TCU_H(exec), TCU_H(node), #canon);        \
	out:                                                                                           \
		tcu_call_end();                                                                            \
		return r;                                                                                  \
	}

TCU_GRAPH_NM(cuGraphHostNodeSetParams, (CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p), (n, p), 0, 0, n)
TCU_GRAPH_NM(cuGraphExternalSemaphoresSignalNodeSetParams,
             (CUgraphNode n, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *p), (n, p), 0, 0, n)
TCU_GRAPH_NM(cuGraphExternalSemaphoresWaitNodeSetParams,
             (CUgraphNode n, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *p), (n, p), 0, 0, n)
TCU_GRAPH_NM(cuGraphExecHostNodeSetParams, (CUgraphExec x, CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p),
             (x, n, p), 0, x, n)
TCU_GRAPH_NM(cuGraphExecChildGraphNodeSetParams, (CUgraphExec x, CUgraphNode n, CUgraph c), (x, n, c), 0, x,
             n)
TCU_GRAPH_NM(cuGraphExecExternalSemaphoresSignalNodeSetParams,
             (CUgraphExec x, CUgraphNode n, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *p), (x, n, p), 0, x, n)
TCU_GRAPH_NM(cuGraphExecExternalSemaphoresWaitNodeSetParams,
             (CUgraphExec x, CUgraphNode n, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *p), (x, n, p), 0, x, n)

/* Nodes added by a call of their own that the model does not cover. */
#define TCU_GRAPH_NM_NODE(canon, ptype, type)                                                     \
	CUresult tcu_m_##canon(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,        \
	                       size_t ndeps, ptype p)                                                  \
	{                                                                                              \
		tcu_mode mode;                                                                             \
		CUresult r;                                                                                \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);                    \
		if (!real) {                                                                               \
			r = tcu_no_driver(id);                                                                 \
			goto out;                                                                              \
		}                                                                                          \
		r = real(out, g, deps, ndeps, p);                                                          \
		tcu_graph_unmodeled_node(id, mode, r, out, g, deps, ndeps, type, #canon);                  \
	out:                                                                                           \
		tcu_call_end();                                                                            \
		return r;                                                                                  \
	}

TCU_GRAPH_NM_NODE(cuGraphAddExternalSemaphoresSignalNode, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *,
                  CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL)
TCU_GRAPH_NM_NODE(cuGraphAddExternalSemaphoresWaitNode, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *,
                  CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT)

/* ---- batch memory-op nodes -------------------------------------------------------------- */

_Static_assert(sizeof(CUstreamBatchMemOpParams) == 48, "a batch memory operation is recorded as 48 bytes");
_Static_assert(sizeof(CUDA_BATCH_MEM_OP_NODE_PARAMS_v2) == sizeof(CUDA_BATCH_MEM_OP_NODE_PARAMS) &&
                   offsetof(CUDA_BATCH_MEM_OP_NODE_PARAMS_v2, flags) == offsetof(CUDA_BATCH_MEM_OP_NODE_PARAMS, flags),
               "cuGraphAddNode's batch memory-op parameters are laid out as cuGraphAddBatchMemOpNode's");

/* The fields of a batch memory-op node's parameters: ctx, flags (the
 * node's) and params = its count operations, CUstreamBatchMemOpParams as
 * x86-64 cuda.h lays them out (48 bytes each: the addresses in them are
 * device addresses, mapped on replay).  The driver copies them when the
 * node is made or set. */
static void tcu_graph_memop_fields(sbt_cm_call *c, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
	if (!p)
		return;
	c->ctx = TCU_H(p->ctx);
	c->flags = p->flags;
	if (p->paramArray && p->count) {
		c->params = (const uint8_t *)p->paramArray;
		c->params_len = (size_t)p->count * sizeof(CUstreamBatchMemOpParams);
	}
}

static void tcu_graph_memop_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out, CUgraph g,
                                 const CUgraphNode *deps, size_t ndeps, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_memop_fields(&c, p);
	tcu_graph_emit(SBT_CM_K_cuGraphAddBatchMemOpNode, id, mode, &c, TCU_H(g), NULL, 0);
	free(packed);
}

CUresult tcu_m_cuGraphAddBatchMemOpNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                        size_t ndeps, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddBatchMemOpNode real =
	    (tcu_pfn_cuGraphAddBatchMemOpNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p);
	tcu_graph_memop_node(id, mode, r, out, g, deps, ndeps, p);
out:
	tcu_call_end();
	return r;
}

static void tcu_graph_setter_emit(sbt_cm_kind k, tcu_fn id, tcu_mode mode, sbt_cm_call *c, const void *host,
                                  size_t n);

/* cuGraphBatchMemOpNodeSetParams (x NULL) and its cuGraphExec* form
 * (parent = the exec): node and the node's fields. */
static void tcu_graph_memop_set(tcu_fn id, tcu_mode mode, CUresult r, CUgraphExec x, CUgraphNode node,
                                const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
	sbt_cm_call c;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.result = r;
	c.node = TCU_H(node);
	c.parent = TCU_H(x);
	tcu_graph_memop_fields(&c, p);
	tcu_graph_setter_emit(x ? SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams : SBT_CM_K_cuGraphBatchMemOpNodeSetParams,
	                      id, mode, &c, NULL, 0);
}

CUresult tcu_m_cuGraphBatchMemOpNodeSetParams(tcu_fn id, CUgraphNode node, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphBatchMemOpNodeSetParams real =
	    (tcu_pfn_cuGraphBatchMemOpNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, p);
	tcu_graph_memop_set(id, mode, r, NULL, node, p);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecBatchMemOpNodeSetParams(tcu_fn id, CUgraphExec x, CUgraphNode node,
                                                  const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecBatchMemOpNodeSetParams real =
	    (tcu_pfn_cuGraphExecBatchMemOpNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(x, node, p);
	tcu_graph_memop_set(id, mode, r, x, node, p);
out:
	tcu_call_end();
	return r;
}

/* ---- stream memory operations --------------------------------------------------------- */

/* cuStreamWriteValue32/64, cuStreamWaitValue32/64 (every form) and
 * cuStreamBatchMemOp, each recorded as itself: stream, flags = the call's
 * flags, params = the operations packed as a batch memory-op node's (a
 * single call's one operation built as cuStreamBatchMemOp would take it),
 * so that replay, the emulator and the double treat both alike.  Kept with
 * a stream capture kept for windows, as memsets are. */
static void tcu_stream_memop_record(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, CUstream s,
                                    const CUstreamBatchMemOpParams *ops, unsigned n, unsigned flags)
{
	sbt_cm_call c;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.result = r;
	c.stream = TCU_H(s);
	c.flags = flags;
	if (ops && n) {
		c.params = (const uint8_t *)ops;
		c.params_len = (size_t)n * sizeof(CUstreamBatchMemOpParams);
	}
	int ptds = (tcu_fn_table[id].flags & TCU_FNF_PTDS) != 0, waits = 0;
	for (unsigned i = 0; r == CUDA_SUCCESS && ops && i < n; i++)
		if (ops[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 || ops[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_64)
			waits = 1;
	if (waits)
		atomic_store(&tcu_g.memop_waits, 1); /* keyframes wait for a stream so long (tcu_track.c) */
	if (mode == TCU_MODE_RECORD)
		tcu_emit(k, id, &c, CAP_REC_WORK);
	if (tcu_live_captured(mode, s, ptds, NULL))
		tcu_live_capture_call(k, id, &c, NULL, 0);
	else if (waits && (s == CU_STREAM_PER_THREAD || (!s && ptds)) && tcu_windowed())
		tcu_ptds_wait_mark(ptds);
}

/*
 * A window's opening polls every stream before it synchronizes the
 * context (tcu_window_drain), but cuStreamQuery reaches only the calling
 * thread's per-thread default stream.  So after a wait queued on one, the
 * thread records an event of the recorder's own there (created once per
 * thread and context, never in the trace): the mark completes once the
 * wait is met and what came before it ran, and any thread can ask.  Only
 * when capture is windowed (only a window's opening asks); not while that
 * stream is being captured (tcu_live_captured: the event would
 * join the capture); there the wait is not run.
 */
void tcu_ptds_wait_mark(int ptds_variant)
{
	tcu_pfn_cuCtxGetCurrent get = (tcu_pfn_cuCtxGetCurrent)tcu_own(TCU_FN_cuCtxGetCurrent);
	tcu_pfn_cuEventCreate create = (tcu_pfn_cuEventCreate)tcu_own(TCU_FN_cuEventCreate);
	tcu_pfn_cuEventRecord record = (tcu_pfn_cuEventRecord)tcu_own(
		ptds_variant ? TCU_FN_cuEventRecord_ptsz : TCU_FN_cuEventRecord);
	tcu_ptds_mark *m;
	pthread_t self = pthread_self();
	CUcontext ctx = NULL;
	CUevent ev = NULL;
	if (!get || !create || !record || get(&ctx) != CUDA_SUCCESS || !ctx)
		return;
	pthread_mutex_lock(&tcu_g.mu);
	for (m = tcu_g.ptds_marks; m; m = m->next)
		if (pthread_equal(m->thread, self) && m->ctx == (uint64_t)(uintptr_t)ctx)
			break;
	pthread_mutex_unlock(&tcu_g.mu);
	if (!m) {
		/* only this thread adds its own marks: no other can race it here */
		if (create(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
			return;
		m = calloc(1, sizeof(*m));
		if (!m)
			return; /* the window then synchronizes as before */
		m->thread = self;
		m->ctx = (uint64_t)(uintptr_t)ctx;
		m->event = (uint64_t)(uintptr_t)ev;
		pthread_mutex_lock(&tcu_g.mu);
		m->next = tcu_g.ptds_marks;
		tcu_g.ptds_marks = m;
		pthread_mutex_unlock(&tcu_g.mu);
	}
	record((CUevent)(uintptr_t)m->event, ptds_variant ? NULL : CU_STREAM_PER_THREAD);
}

size_t tcu_ptds_marks_busy(pthread_t *thread_out)
{
	tcu_pfn_cuEventQuery query = (tcu_pfn_cuEventQuery)tcu_own(TCU_FN_cuEventQuery);
	size_t busy = 0;
	if (!query)
		return 0;
	pthread_mutex_lock(&tcu_g.mu);
	for (const tcu_ptds_mark *m = tcu_g.ptds_marks; m; m = m->next)
		if (query((CUevent)(uintptr_t)m->event) == CUDA_ERROR_NOT_READY && !busy++)
			*thread_out = m->thread;
	pthread_mutex_unlock(&tcu_g.mu);
	return busy;
}

/* One operation of a single call: op is a CUstreamMemOpType, wide the
 * 64-bit form. */
static void tcu_stream_memop_one(CUstreamBatchMemOpParams *o, CUstreamBatchMemOpType op, CUdeviceptr addr,
                                 uint64_t value, int wide, unsigned flags)
{
	memset(o, 0, sizeof(*o));
	o->operation = op;
	if (op == CU_STREAM_MEM_OP_WAIT_VALUE_32 || op == CU_STREAM_MEM_OP_WAIT_VALUE_64) {
		o->waitValue.address = addr;
		if (wide)
			o->waitValue.value64 = value;
		else
			o->waitValue.value = (cuuint32_t)value;
		o->waitValue.flags = flags;
	} else {
		o->writeValue.address = addr;
		if (wide)
			o->writeValue.value64 = value;
		else
			o->writeValue.value = (cuuint32_t)value;
		o->writeValue.flags = flags;
	}
}

#define TCU_STREAM_MEMOP(canon, kind, T, op, wide)                                                 \
	CUresult tcu_m_##canon(tcu_fn id, CUstream s, CUdeviceptr addr, T value, unsigned int flags) \
	{                                                                                          \
		tcu_mode mode;                                                                         \
		CUresult r;                                                                            \
		CUstreamBatchMemOpParams one;                                                          \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);                \
		if (!real) {                                                                           \
			r = tcu_no_driver(id);                                                             \
			goto out;                                                                          \
		}                                                                                      \
		r = real(s, addr, value, flags);                                                       \
		tcu_stream_memop_one(&one, op, addr, (uint64_t)value, wide, flags);                    \
		tcu_stream_memop_record(SBT_CM_K_##kind, id, mode, r, s, &one, 1, flags);              \
	out:                                                                                       \
		tcu_call_end();                                                                        \
		return r;                                                                              \
	}

TCU_STREAM_MEMOP(cuStreamWriteValue32, cuStreamWriteValue32, cuuint32_t, CU_STREAM_MEM_OP_WRITE_VALUE_32, 0)
TCU_STREAM_MEMOP(cuStreamWriteValue32_v2, cuStreamWriteValue32, cuuint32_t, CU_STREAM_MEM_OP_WRITE_VALUE_32, 0)
TCU_STREAM_MEMOP(cuStreamWriteValue64, cuStreamWriteValue64, cuuint64_t, CU_STREAM_MEM_OP_WRITE_VALUE_64, 1)
TCU_STREAM_MEMOP(cuStreamWriteValue64_v2, cuStreamWriteValue64, cuuint64_t, CU_STREAM_MEM_OP_WRITE_VALUE_64, 1)
TCU_STREAM_MEMOP(cuStreamWaitValue32, cuStreamWaitValue32, cuuint32_t, CU_STREAM_MEM_OP_WAIT_VALUE_32, 0)
TCU_STREAM_MEMOP(cuStreamWaitValue32_v2, cuStreamWaitValue32, cuuint32_t, CU_STREAM_MEM_OP_WAIT_VALUE_32, 0)
TCU_STREAM_MEMOP(cuStreamWaitValue64, cuStreamWaitValue64, cuuint64_t, CU_STREAM_MEM_OP_WAIT_VALUE_64, 1)
TCU_STREAM_MEMOP(cuStreamWaitValue64_v2, cuStreamWaitValue64, cuuint64_t, CU_STREAM_MEM_OP_WAIT_VALUE_64, 1)

#define TCU_STREAM_BATCH(canon)                                                                        \
	CUresult tcu_m_##canon(tcu_fn id, CUstream s, unsigned int n, CUstreamBatchMemOpParams *ops,      \
	                       unsigned int flags)                                                         \
	{                                                                                                  \
		tcu_mode mode;                                                                                 \
		CUresult r;                                                                                    \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);                        \
		if (!real) {                                                                                   \
			r = tcu_no_driver(id);                                                                     \
			goto out;                                                                                  \
		}                                                                                              \
		r = real(s, n, ops, flags);                                                                    \
		tcu_stream_memop_record(SBT_CM_K_cuStreamBatchMemOp, id, mode, r, s, ops, n, flags);           \
	out:                                                                                               \
		tcu_call_end();                                                                                \
		return r;                                                                                      \
	}

TCU_STREAM_BATCH(cuStreamBatchMemOp)
TCU_STREAM_BATCH(cuStreamBatchMemOp_v2)

/* ---- kernel node attributes ----------------------------------------------------------- */

_Static_assert(sizeof(CUkernelNodeAttrValue) == 64, "a kernel node attribute's value is recorded as 64 bytes");

/* cuGraphKernelNodeSetAttribute: node, attrs = the one attribute (id and
 * its 64 value bytes, packed as a launch's attributes are); kept for
 * windows with the node's graph.  The driver copies the value into the
 * node (and each exec instantiated after takes it). */
CUresult tcu_m_cuGraphKernelNodeSetAttribute(tcu_fn id, CUgraphNode node, CUkernelNodeAttrID attr,
                                             const CUkernelNodeAttrValue *v)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	uint8_t packed[SBT_CM_ATTR_BYTES];
	tcu_pfn_cuGraphKernelNodeSetAttribute real =
	    (tcu_pfn_cuGraphKernelNodeSetAttribute)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, attr, v);
	if (mode == TCU_MODE_NESTED)
		goto out;
	sbt_cm_call_init(&c);
	c.result = r;
	c.node = TCU_H(node);
	if (v) {
		sbt_cm_attr_put(packed, (uint32_t)attr, v);
		c.attrs = packed;
		c.attrs_len = sizeof(packed);
	}
	tcu_graph_setter_emit(SBT_CM_K_cuGraphKernelNodeSetAttribute, id, mode, &c, NULL, 0);
out:
	tcu_call_end();
	return r;
}

/* cuGraphKernelNodeCopyAttributes: node = the destination, handle = the
 * source node (both of graphs the trace names). */
CUresult tcu_m_cuGraphKernelNodeCopyAttributes(tcu_fn id, CUgraphNode dst, CUgraphNode src)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	tcu_pfn_cuGraphKernelNodeCopyAttributes real =
	    (tcu_pfn_cuGraphKernelNodeCopyAttributes)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(dst, src);
	if (mode == TCU_MODE_NESTED)
		goto out;
	sbt_cm_call_init(&c);
	c.result = r;
	c.node = TCU_H(dst);
	c.handle = TCU_H(src);
	tcu_graph_setter_emit(SBT_CM_K_cuGraphKernelNodeCopyAttributes, id, mode, &c, NULL, 0);
out:
	tcu_call_end();
	return r;
}

/* ---- graph memory: allocation and free nodes ----------------------------------------- */

_Static_assert(sizeof(CUmemAccessDesc) == 12, "an allocation node's access descriptors are recorded as 12 bytes each");

/* Whether the n access descriptors all give a device access (peer access
 * to graph memory), which replay gives the mapped device. */
static int tcu_graph_access_modeled(const CUmemAccessDesc *access, size_t n)
{
	if (n && !access)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (access[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
			return 0;
	return 1;
}

/* A memory allocation node (props: its pool's properties, the address the
 * driver chose in dptr; access: its naccess access descriptors).
 * Modeled: pinned device memory with no handle types (what cudart's and
 * PyTorch's graphs ask for), accessed by devices; other kinds are
 * recorded as not modeled. */
static void tcu_graph_alloc_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out, CUgraph g,
                                 const CUgraphNode *deps, size_t ndeps, const CUmemPoolProps *props,
                                 const CUmemAccessDesc *access, size_t naccess, size_t bytesize, CUdeviceptr dptr,
                                 const char *call)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	if (props && (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	              props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->handleTypes ||
	              !tcu_graph_access_modeled(access, naccess))) {
		tcu_graph_unmodeled_node(id, mode, r, out, g, deps, ndeps, CU_GRAPH_NODE_TYPE_MEM_ALLOC, call);
		return;
	}
	sbt_cm_call_init(&c);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	if (props)
		c.device = props->location.id;
	c.size = bytesize;
	c.dst = r == CUDA_SUCCESS ? (uint64_t)dptr : 0;
	/* x86-64 cuda.h's CUmemAccessDesc, 12 bytes each, as the record's res_desc */
	c.res_desc = naccess ? (const uint8_t *)access : NULL;
	c.res_desc_len = naccess * sizeof(CUmemAccessDesc);
	tcu_graph_emit(SBT_CM_K_cuGraphAddMemAllocNode, id, mode, &c, TCU_H(g), NULL, 0);
	if (r == CUDA_SUCCESS && dptr && bytesize)
		tcu_gmem_node(TCU_H(g), (uint64_t)dptr, bytesize);
	free(packed);
}

static void tcu_graph_free_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out, CUgraph g,
                                const CUgraphNode *deps, size_t ndeps, CUdeviceptr dptr)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	c.dst = (uint64_t)dptr;
	tcu_graph_emit(SBT_CM_K_cuGraphAddMemFreeNode, id, mode, &c, TCU_H(g), NULL, 0);
	if (r == CUDA_SUCCESS && dptr)
		tcu_gmem_node(TCU_H(g), (uint64_t)dptr, 0);
	free(packed);
}

CUresult tcu_m_cuGraphAddMemAllocNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                      size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddMemAllocNode real = (tcu_pfn_cuGraphAddMemAllocNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p);
	if (p)
		tcu_graph_alloc_node(id, mode, r, out, g, deps, ndeps, &p->poolProps, p->accessDescs, p->accessDescCount,
		                     p->bytesize,
		                     p->dptr, "cuGraphAddMemAllocNode");
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphAddMemFreeNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                     size_t ndeps, CUdeviceptr dptr)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddMemFreeNode real = (tcu_pfn_cuGraphAddMemFreeNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, dptr);
	tcu_graph_free_node(id, mode, r, out, g, deps, ndeps, dptr);
out:
	tcu_call_end();
	return r;
}

/* ---- child graphs, host nodes, clones ---------------------------------------------- */

/* What graph dst takes from graph src, copied into it (a child graph
 * node) or cloned from it: src's memcpy nodes reading host memory (under
 * src's node handles: replay's copy of such a node reads the buffer of
 * src's node), and the mark of a call not modeled. */
static void tcu_graph_inherit(uint64_t dst, uint64_t src)
{
	tcu_hsrc_set *set;
	int partial;
	pthread_mutex_lock(&tcu_g.mu);
	set = tcu_hsrc_copy(cap_umap_get(&tcu_g.hsrc_of_graph, src));
	if (set)
		tcu_hsrc_append_locked(dst, set->v, set->n);
	partial = cap_umap_get(&tcu_g.graphs_partial, src) != NULL;
	pthread_mutex_unlock(&tcu_g.mu);
	free(set);
	if (partial)
		tcu_graph_partial(dst);
}

/* A graph moved into a child graph node of dst (cuGraphAddNode with
 * CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE): it is dst's from now on, so calls
 * on it change dst (tcu_graph_root), and the graph memory its launches
 * would leave allocated is dst's launches' (copied to dst's execs at
 * their instantiation). */
static void tcu_graph_moved(uint64_t dst, uint64_t child)
{
	tcu_gmem_set *set;
	pthread_mutex_lock(&tcu_g.mu);
	if (cap_umap_put(&tcu_g.embedded_in, child, (void *)(uintptr_t)dst) == (void *)(uintptr_t)dst)
		CAP_ERROR("cuda: out of memory noting a moved graph: changes to it are kept apart from its owner");
	set = tcu_gmem_copy(cap_umap_get(&tcu_g.gmem_of_graph, child));
	pthread_mutex_unlock(&tcu_g.mu);
	for (size_t i = 0; set && i < set->n; i++)
		tcu_gmem_node(dst, set->v[i].addr, set->v[i].size);
	free(set);
}

/* A child graph node: the driver copies the child into it when it is
 * added, so later changes to the child do not reach the parent (replay
 * adds the node from its own child graph, rebuilt as it was then);
 * moved: the node takes the child itself (flags = the
 * CUgraphChildGraphNodeOwnership, CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE). */
static void tcu_graph_child_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out, CUgraph g,
                                 const CUgraphNode *deps, size_t ndeps, CUgraph child, int moved)
{
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.handle = TCU_H(child);
	c.flags = moved ? CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE : CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_emit(SBT_CM_K_cuGraphAddChildGraphNode, id, mode, &c, TCU_H(g), NULL, 0);
	if (r == CUDA_SUCCESS) {
		tcu_graph_inherit(TCU_H(g), TCU_H(child));
		if (moved)
			tcu_graph_moved(TCU_H(g), TCU_H(child));
	}
	free(packed);
}

/* cuGraphDestroy of graph succeeded: the graphs moved into its child
 * graph nodes, and those embedded in them, went with it. */
void tcu_graph_moved_destroy(uint64_t graph)
{
	uint64_t *gone = NULL;
	size_t n = 0;
	pthread_mutex_lock(&tcu_g.mu);
	for (size_t i = 0; i < tcu_g.embedded_in.n; i++) {
		uint64_t *grown;
		if ((uint64_t)(uintptr_t)tcu_g.embedded_in.vals[i] != graph)
			continue;
		if (!(grown = realloc(gone, (n + 1) * sizeof(*gone)))) {
			CAP_ERROR("cuda: out of memory forgetting the graphs of a destroyed graph's child graph nodes");
			break;
		}
		gone = grown;
		gone[n++] = tcu_g.embedded_in.keys[i];
	}
	for (size_t i = 0; i < n; i++)
		cap_umap_del(&tcu_g.embedded_in, gone[i]);
	pthread_mutex_unlock(&tcu_g.mu);
	for (size_t i = 0; i < n; i++) {
		tcu_live_graph_destroy(gone[i]);
		tcu_graph_hsrc_graph_destroy(gone[i]);
		tcu_graph_gmem_graph_destroy(gone[i]);
		tcu_graph_moved_destroy(gone[i]);
	}
	free(gone);
}

CUresult tcu_m_cuGraphAddChildGraphNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                        size_t ndeps, CUgraph child)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddChildGraphNode real =
	    (tcu_pfn_cuGraphAddChildGraphNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, child);
	tcu_graph_child_node(id, mode, r, out, g, deps, ndeps, child, 0);
out:
	tcu_call_end();
	return r;
}

/* cuGraphChildGraphNodeGetGraph: the graph embedded in a child graph node
 * (not a copy: changes to it change the node).  Recorded so that later
 * calls naming it replay on the replay's own embedded graph; calls on it
 * are kept, marked and read at launches as the owning graph's. */
CUresult tcu_m_cuGraphChildGraphNodeGetGraph(tcu_fn id, CUgraphNode node, CUgraph *out)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	uint64_t owner = 0;
	tcu_pfn_cuGraphChildGraphNodeGetGraph real =
	    (tcu_pfn_cuGraphChildGraphNodeGetGraph)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, out);
	if (mode == TCU_MODE_NESTED)
		goto out;
	sbt_cm_call_init(&c);
	c.result = r;
	c.node = TCU_H(node);
	c.handle = r == CUDA_SUCCESS && out ? TCU_H(*out) : 0;
	pthread_mutex_lock(&tcu_g.mu);
	owner = (uint64_t)(uintptr_t)cap_umap_get(&tcu_g.graph_of_node, c.node);
	if (c.handle && owner && c.handle != owner &&
	    cap_umap_get(&tcu_g.embedded_in, c.handle) != (void *)(uintptr_t)owner &&
	    cap_umap_put(&tcu_g.embedded_in, c.handle, (void *)(uintptr_t)owner) == (void *)(uintptr_t)owner)
		CAP_ERROR("cuda: out of memory noting an embedded graph: changes to it are kept apart from its owner");
	pthread_mutex_unlock(&tcu_g.mu);
	c.parent = owner;
	tcu_graph_emit(SBT_CM_K_cuGraphChildGraphNodeGetGraph, id, mode, &c, owner, NULL, 0);
	if (r == CUDA_SUCCESS && owner) {
		int partial;
		pthread_mutex_lock(&tcu_g.mu);
		partial = cap_umap_get(&tcu_g.graphs_partial, owner) != NULL;
		pthread_mutex_unlock(&tcu_g.mu);
		if (partial) /* its node's copy came from a marked graph */
			tcu_graph_partial(c.handle);
	}
out:
	tcu_call_end();
	return r;
}

/* A host node: its place in the graph is recorded, its function is not
 * (host code is never replayed: replay puts an empty node there). */
static void tcu_graph_host_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out, CUgraph g,
                                const CUgraphNode *deps, size_t ndeps)
{
	static const char note[] = "host code is never replayed";
	sbt_cm_call c;
	uint8_t *packed;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.note = (const uint8_t *)note;
	c.note_len = sizeof(note) - 1;
	packed = tcu_graph_pack_nodes(deps, ndeps);
	tcu_graph_node_call(&c, r, out, g, packed, ndeps);
	tcu_graph_emit(SBT_CM_K_cuGraphAddHostNode, id, mode, &c, TCU_H(g), NULL, 0);
	free(packed);
}

CUresult tcu_m_cuGraphAddHostNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                  size_t ndeps, const CUDA_HOST_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddHostNode real = (tcu_pfn_cuGraphAddHostNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p);
	tcu_graph_host_node(id, mode, r, out, g, deps, ndeps);
out:
	tcu_call_end();
	return r;
}

/* The clone is kept for windows as long as the graph it was cloned from
 * is (tcu_live.c): its record names that graph. */
CUresult tcu_m_cuGraphClone(tcu_fn id, CUgraph *out, CUgraph g)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	tcu_pfn_cuGraphClone real = (tcu_pfn_cuGraphClone)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g);
	if (mode == TCU_MODE_NESTED)
		goto out;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = r == CUDA_SUCCESS && out ? TCU_H(*out) : 0;
	c.parent = TCU_H(g);
	tcu_graph_emit(SBT_CM_K_cuGraphClone, id, mode, &c, c.handle, NULL, 0);
	if (c.handle)
		tcu_graph_inherit(c.handle, TCU_H(g));
out:
	tcu_call_end();
	return r;
}

/* The clone's copy of a node: later calls name it (kept with the clone). */
CUresult tcu_m_cuGraphNodeFindInClone(tcu_fn id, CUgraphNode *out, CUgraphNode orig, CUgraph clone)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	tcu_pfn_cuGraphNodeFindInClone real =
	    (tcu_pfn_cuGraphNodeFindInClone)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, orig, clone);
	if (mode == TCU_MODE_NESTED)
		goto out;
	sbt_cm_call_init(&c);
	c.result = r;
	c.node = r == CUDA_SUCCESS && out ? TCU_H(*out) : 0;
	c.handle = TCU_H(orig);
	c.parent = TCU_H(clone);
	tcu_graph_emit(SBT_CM_K_cuGraphNodeFindInClone, id, mode, &c, TCU_H(clone), NULL, 0);
out:
	tcu_call_end();
	return r;
}

/* A node of an exec enabled or disabled: kept with the exec. */
CUresult tcu_m_cuGraphNodeSetEnabled(tcu_fn id, CUgraphExec exec, CUgraphNode node, unsigned int on)
{
	tcu_mode mode;
	CUresult r;
	sbt_cm_call c;
	tcu_pfn_cuGraphNodeSetEnabled real =
	    (tcu_pfn_cuGraphNodeSetEnabled)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(exec, node, on);
	if (mode == TCU_MODE_NESTED)
		goto out;
	sbt_cm_call_init(&c);
	c.result = r;
	c.parent = TCU_H(exec);
	c.node = TCU_H(node);
	c.value = on;
	if (mode == TCU_MODE_RECORD)
		tcu_emit(SBT_CM_K_cuGraphNodeSetEnabled, id, &c, 0);
	if (r == CUDA_SUCCESS)
		tcu_live_graph_set_params(SBT_CM_K_cuGraphNodeSetEnabled, id, &c, NULL, 0);
out:
	tcu_call_end();
	return r;
}

/* ---- the setters of memcpy, memset and event nodes -------------------------------- */

/* c: the setter's record (node; parent = the exec for the cuGraphExec*
 * forms): recorded, and kept for windows with the node's graph (an exec's
 * with the exec); host: a memcpy node's host source bytes. */
static void tcu_graph_setter_emit(sbt_cm_kind k, tcu_fn id, tcu_mode mode, sbt_cm_call *c, const void *host,
                                  size_t n)
{
	if (mode == TCU_MODE_RECORD) {
		uint64_t blob = c->blob;
		if (host && n)
			c->blob = cap_blob(host, n);
		tcu_emit(k, id, c, 0);
		c->blob = blob;
	}
	if (c->result == CUDA_SUCCESS)
		tcu_live_graph_set_params(k, id, c, host, host ? n : 0);
}

static void tcu_graph_memcpy_set(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, CUgraphExec x,
                                 CUgraphNode node, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	sbt_cm_call c;
	uint8_t *host = NULL;
	size_t bytes = 0;
	if (mode == TCU_MODE_NESTED || !p)
		return;
	tcu_copy3d_node_fill(p, r, &c, &host, &bytes);
	c.ctx = TCU_H(ctx);
	c.node = TCU_H(node);
	c.parent = TCU_H(x);
	tcu_graph_setter_emit(k, id, mode, &c, host, host ? bytes : 0);
	if (r == CUDA_SUCCESS)
		tcu_hsrc_node_set(TCU_H(x), c.node, host ? p : NULL);
	free(host);
}

CUresult tcu_m_cuGraphMemcpyNodeSetParams(tcu_fn id, CUgraphNode node, const CUDA_MEMCPY3D *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphMemcpyNodeSetParams real =
	    (tcu_pfn_cuGraphMemcpyNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, p);
	tcu_graph_memcpy_set(SBT_CM_K_cuGraphMemcpyNodeSetParams, id, mode, r, NULL, node, p, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecMemcpyNodeSetParams(tcu_fn id, CUgraphExec x, CUgraphNode node,
                                              const CUDA_MEMCPY3D *p, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecMemcpyNodeSetParams real =
	    (tcu_pfn_cuGraphExecMemcpyNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(x, node, p, ctx);
	tcu_graph_memcpy_set(SBT_CM_K_cuGraphExecMemcpyNodeSetParams, id, mode, r, x, node, p, ctx);
out:
	tcu_call_end();
	return r;
}

static void tcu_graph_memset_set(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, CUgraphExec x,
                                 CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	sbt_cm_call c;
	if (mode == TCU_MODE_NESTED || !p)
		return;
	sbt_cm_call_init(&c);
	tcu_memset_fields(&c, p->dst, p->pitch, p->value, p->elementSize, p->width, p->height);
	c.result = r;
	c.ctx = TCU_H(ctx);
	c.node = TCU_H(node);
	c.parent = TCU_H(x);
	tcu_graph_setter_emit(k, id, mode, &c, NULL, 0);
}

CUresult tcu_m_cuGraphMemsetNodeSetParams(tcu_fn id, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphMemsetNodeSetParams real =
	    (tcu_pfn_cuGraphMemsetNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, p);
	tcu_graph_memset_set(SBT_CM_K_cuGraphMemsetNodeSetParams, id, mode, r, NULL, node, p, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecMemsetNodeSetParams(tcu_fn id, CUgraphExec x, CUgraphNode node,
                                              const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecMemsetNodeSetParams real =
	    (tcu_pfn_cuGraphExecMemsetNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(x, node, p, ctx);
	tcu_graph_memset_set(SBT_CM_K_cuGraphExecMemsetNodeSetParams, id, mode, r, x, node, p, ctx);
out:
	tcu_call_end();
	return r;
}

static void tcu_graph_event_set(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, CUgraphExec x,
                                CUgraphNode node, CUevent e)
{
	sbt_cm_call c;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.result = r;
	c.event = TCU_H(e);
	c.node = TCU_H(node);
	c.parent = TCU_H(x);
	tcu_graph_setter_emit(k, id, mode, &c, NULL, 0);
}

#define TCU_GRAPH_EVENT_SET(canon)                                                                 \
	CUresult tcu_m_##canon(tcu_fn id, CUgraphNode node, CUevent e)                                 \
	{                                                                                              \
		tcu_mode mode;                                                                             \
		CUresult r;                                                                                \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);                    \
		if (!real) {                                                                               \
			r = tcu_no_driver(id);                                                                 \
			goto out;                                                                              \
		}                                                                                          \
		r = real(node, e);                                                                         \
		tcu_graph_event_set(SBT_CM_K_##canon, id, mode, r, NULL, node, e);                         \
	out:                                                                                           \
		tcu_call_end();                                                                            \
		return r;                                                                                  \
	}
#define TCU_GRAPH_EXEC_EVENT_SET(canon)                                                            \
	CUresult tcu_m_##canon(tcu_fn id, CUgraphExec x, CUgraphNode node, CUevent e)                  \
	{                                                                                              \
		tcu_mode mode;                                                                             \
		CUresult r;                                                                                \
		tcu_pfn_##canon real = (tcu_pfn_##canon)tcu_call_begin_mode(id, &mode);                    \
		if (!real) {                                                                               \
			r = tcu_no_driver(id);                                                                 \
			goto out;                                                                              \
		}                                                                                          \
		r = real(x, node, e);                                                                      \
		tcu_graph_event_set(SBT_CM_K_##canon, id, mode, r, x, node, e);                            \
	out:                                                                                           \
		tcu_call_end();                                                                            \
		return r;                                                                                  \
	}

TCU_GRAPH_EVENT_SET(cuGraphEventRecordNodeSetEvent)
TCU_GRAPH_EVENT_SET(cuGraphEventWaitNodeSetEvent)
TCU_GRAPH_EXEC_EVENT_SET(cuGraphExecEventRecordNodeSetEvent)
TCU_GRAPH_EXEC_EVENT_SET(cuGraphExecEventWaitNodeSetEvent)

static void tcu_graph_set_params(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r,
                                 CUgraphExec exec, CUgraphNode node,
                                 const CUDA_KERNEL_NODE_PARAMS_v1 *p1,
                                 const CUDA_KERNEL_NODE_PARAMS *p2);

/* cuGraphNodeSetParams and cuGraphExecNodeSetParams (exec non-NULL): a
 * node type the model covers is recorded as that type's setter; another
 * type (a child graph, a host node, memory nodes, ...) as not modeled. */
static void tcu_graph_generic_set(tcu_fn id, tcu_mode mode, CUresult r, CUgraphExec x, CUgraphNode node,
                                  const CUgraphNodeParams *p, const char *call)
{
	if (mode == TCU_MODE_NESTED || !p)
		return;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		tcu_graph_set_params(x ? SBT_CM_K_cuGraphExecKernelNodeSetParams : SBT_CM_K_cuGraphKernelNodeSetParams,
		                     id, mode, r, x, node, NULL, (const CUDA_KERNEL_NODE_PARAMS *)&p->kernel);
		break;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		tcu_graph_memcpy_set(x ? SBT_CM_K_cuGraphExecMemcpyNodeSetParams : SBT_CM_K_cuGraphMemcpyNodeSetParams,
		                     id, mode, r, x, node, &p->memcpy.copyParams, p->memcpy.copyCtx);
		break;
	case CU_GRAPH_NODE_TYPE_MEMSET: {
		CUDA_MEMSET_NODE_PARAMS m;
		memset(&m, 0, sizeof(m));
		m.dst = p->memset.dst;
		m.pitch = p->memset.pitch;
		m.value = p->memset.value;
		m.elementSize = p->memset.elementSize;
		m.width = p->memset.width;
		m.height = p->memset.height;
		tcu_graph_memset_set(x ? SBT_CM_K_cuGraphExecMemsetNodeSetParams : SBT_CM_K_cuGraphMemsetNodeSetParams,
		                     id, mode, r, x, node, &m, p->memset.ctx);
		break;
	}
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		tcu_graph_event_set(x ? SBT_CM_K_cuGraphExecEventRecordNodeSetEvent : SBT_CM_K_cuGraphEventRecordNodeSetEvent,
		                    id, mode, r, x, node, p->eventRecord.event);
		break;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		tcu_graph_event_set(x ? SBT_CM_K_cuGraphExecEventWaitNodeSetEvent : SBT_CM_K_cuGraphEventWaitNodeSetEvent,
		                    id, mode, r, x, node, p->eventWait.event);
		break;
	case CU_GRAPH_NODE_TYPE_EMPTY:
		break; /* nothing to change */
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		tcu_graph_memop_set(id, mode, r, x, node, (const CUDA_BATCH_MEM_OP_NODE_PARAMS *)&p->memOp);
		break;
	default:
		tcu_graph_changed(id, mode, r, 0, TCU_H(x), TCU_H(node), call);
		break;
	}
}

CUresult tcu_m_cuGraphNodeSetParams(tcu_fn id, CUgraphNode node, CUgraphNodeParams *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphNodeSetParams real = (tcu_pfn_cuGraphNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, p);
	tcu_graph_generic_set(id, mode, r, NULL, node, p, "cuGraphNodeSetParams");
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecNodeSetParams(tcu_fn id, CUgraphExec x, CUgraphNode node, CUgraphNodeParams *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecNodeSetParams real = (tcu_pfn_cuGraphExecNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(x, node, p);
	tcu_graph_generic_set(id, mode, r, x, node, p, "cuGraphExecNodeSetParams");
out:
	tcu_call_end();
	return r;
}

/* ---- exec updates ------------------------------------------------------------------- */

/* An update that worked gives the exec the graph's parameters: its host
 * sources become the graph's (under the graph's nodes, whose buffers the
 * replayed exec then reads); kept for windows with the exec (tcu_live.c:
 * the graph's records with it). */
static void tcu_graph_exec_update(tcu_fn id, tcu_mode mode, CUresult r, CUgraphExec x, CUgraph g,
                                  CUgraphExecUpdateResult res, CUgraphNode err)
{
	sbt_cm_call c;
	if (mode == TCU_MODE_NESTED)
		return;
	sbt_cm_call_init(&c);
	c.result = r;
	c.handle = TCU_H(x);
	c.parent = TCU_H(g);
	c.value = (uint64_t)res;
	c.node = TCU_H(err);
	if (mode == TCU_MODE_RECORD)
		tcu_emit(SBT_CM_K_cuGraphExecUpdate, id, &c, 0);
	if (r != CUDA_SUCCESS)
		return;
	tcu_graph_hsrc_exec_destroy(c.handle);
	tcu_graph_hsrc_instantiate(c.handle, c.parent);
	tcu_live_graph_exec_update(id, &c);
}

CUresult tcu_m_cuGraphExecUpdate(tcu_fn id, CUgraphExec x, CUgraph g, CUgraphNode *err,
                                 CUgraphExecUpdateResult *res)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecUpdate real = (tcu_pfn_cuGraphExecUpdate)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(x, g, err, res);
	tcu_graph_exec_update(id, mode, r, x, g, res ? *res : CU_GRAPH_EXEC_UPDATE_SUCCESS, err ? *err : NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecUpdate_v2(tcu_fn id, CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecUpdate_v2 real = (tcu_pfn_cuGraphExecUpdate_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(x, g, info);
	tcu_graph_exec_update(id, mode, r, x, g, info ? info->result : CU_GRAPH_EXEC_UPDATE_SUCCESS,
	                      info ? info->errorNode : NULL);
out:
	tcu_call_end();
	return r;
}

/* ---- the generic form --------------------------------------------------------------- */

/* cuGraphAddNode(_v2): a node type the model covers is recorded as that
 * type's Add*Node call; edge data other than the default (programmatic
 * edges) and every other type as a node not modeled. */
static void tcu_graph_generic_node(tcu_fn id, tcu_mode mode, CUresult r, CUgraphNode *out,
                                   CUgraph g, const CUgraphNode *deps, const CUgraphEdgeData *edges,
                                   size_t ndeps, const CUgraphNodeParams *p, const char *call)
{
	if (mode == TCU_MODE_NESTED || !p)
		return;
	if (tcu_graph_edges_special(edges, ndeps)) {
		tcu_graph_unmodeled_node(id, mode, r, out, g, deps, ndeps, p->type, call);
		return;
	}
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		tcu_graph_kernel_node(id, mode, r, out, g, deps, ndeps, NULL,
		                      (const CUDA_KERNEL_NODE_PARAMS *)&p->kernel);
		break;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		tcu_graph_memcpy_node(id, mode, r, out, g, deps, ndeps, &p->memcpy.copyParams,
		                      p->memcpy.copyCtx);
		break;
	case CU_GRAPH_NODE_TYPE_MEMSET:
		tcu_graph_memset_node(id, mode, r, out, g, deps, ndeps, p->memset.dst, p->memset.pitch,
		                      p->memset.value, p->memset.elementSize, p->memset.width,
		                      p->memset.height, p->memset.ctx);
		break;
	case CU_GRAPH_NODE_TYPE_EMPTY:
		tcu_graph_plain_node(SBT_CM_K_cuGraphAddEmptyNode, id, mode, r, out, g, deps, ndeps, NULL);
		break;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		tcu_graph_plain_node(SBT_CM_K_cuGraphAddEventRecordNode, id, mode, r, out, g, deps, ndeps,
		                     p->eventRecord.event);
		break;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		tcu_graph_plain_node(SBT_CM_K_cuGraphAddEventWaitNode, id, mode, r, out, g, deps, ndeps,
		                     p->eventWait.event);
		break;
	case CU_GRAPH_NODE_TYPE_GRAPH:
		tcu_graph_child_node(id, mode, r, out, g, deps, ndeps, p->graph.graph,
		                     p->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE);
		break;
	case CU_GRAPH_NODE_TYPE_HOST:
		tcu_graph_host_node(id, mode, r, out, g, deps, ndeps);
		break;
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
		tcu_graph_alloc_node(id, mode, r, out, g, deps, ndeps, &p->alloc.poolProps, p->alloc.accessDescs,
		                     p->alloc.accessDescCount, p->alloc.bytesize, p->alloc.dptr, call);
		break;
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		tcu_graph_free_node(id, mode, r, out, g, deps, ndeps, p->free.dptr);
		break;
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		tcu_graph_memop_node(id, mode, r, out, g, deps, ndeps, (const CUDA_BATCH_MEM_OP_NODE_PARAMS *)&p->memOp);
		break;
	default:
		tcu_graph_unmodeled_node(id, mode, r, out, g, deps, ndeps, p->type, call);
		break;
	}
}

_Static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v3) == sizeof(CUDA_KERNEL_NODE_PARAMS) &&
                   offsetof(CUDA_KERNEL_NODE_PARAMS_v3, ctx) == offsetof(CUDA_KERNEL_NODE_PARAMS, ctx),
               "cuGraphAddNode's kernel parameters are laid out as cuGraphAddKernelNode_v2's");

CUresult tcu_m_cuGraphAddNode(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                              size_t ndeps, CUgraphNodeParams *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddNode real = (tcu_pfn_cuGraphAddNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, ndeps, p);
	tcu_graph_generic_node(id, mode, r, out, g, deps, NULL, ndeps, p, "cuGraphAddNode");
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphAddNode_v2(tcu_fn id, CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                 const CUgraphEdgeData *edges, size_t ndeps, CUgraphNodeParams *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddNode_v2 real = (tcu_pfn_cuGraphAddNode_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(out, g, deps, edges, ndeps, p);
	tcu_graph_generic_node(id, mode, r, out, g, deps, edges, ndeps, p, "cuGraphAddNode_v2");
out:
	tcu_call_end();
	return r;
}

/* ---- edges ---------------------------------------------------------------------------- */

/* cuGraphAddDependencies and cuGraphRemoveDependencies (k). */
static void tcu_graph_edges(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r, CUgraph g,
                            const CUgraphNode *from, const CUgraphNode *to, size_t n)
{
	sbt_cm_call c;
	uint8_t *pf, *pt;
	if (mode == TCU_MODE_NESTED)
		return;
	pf = tcu_graph_pack_nodes(from, n);
	pt = tcu_graph_pack_nodes(to, n);
	sbt_cm_call_init(&c);
	c.result = r;
	c.parent = TCU_H(g);
	if (pf && pt) {
		c.deps = pf;
		c.deps_len = n * 8;
		c.deps_to = pt;
		c.deps_to_len = n * 8;
	}
	tcu_graph_emit(k, id, mode, &c, TCU_H(g), NULL, 0);
	free(pf);
	free(pt);
}

CUresult tcu_m_cuGraphAddDependencies(tcu_fn id, CUgraph g, const CUgraphNode *from,
                                      const CUgraphNode *to, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddDependencies real =
	    (tcu_pfn_cuGraphAddDependencies)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(g, from, to, n);
	tcu_graph_edges(SBT_CM_K_cuGraphAddDependencies, id, mode, r, g, from, to, n);
out:
	tcu_call_end();
	return r;
}

/* Edge data other than the default (programmatic edges) is not modeled:
 * the edges are recorded plain and the graph counted as not modeled. */
CUresult tcu_m_cuGraphAddDependencies_v2(tcu_fn id, CUgraph g, const CUgraphNode *from,
                                         const CUgraphNode *to, const CUgraphEdgeData *edges,
                                         size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphAddDependencies_v2 real =
	    (tcu_pfn_cuGraphAddDependencies_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(g, from, to, edges, n);
	if (mode != TCU_MODE_NESTED && tcu_graph_edges_special(edges, n))
		tcu_graph_changed(id, mode, r, TCU_H(g), 0, 0, "cuGraphAddDependencies_v2 (edge data)");
	tcu_graph_edges(SBT_CM_K_cuGraphAddDependencies, id, mode, r, g, from, to, n);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphRemoveDependencies(tcu_fn id, CUgraph g, const CUgraphNode *from,
                                         const CUgraphNode *to, size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphRemoveDependencies real =
	    (tcu_pfn_cuGraphRemoveDependencies)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(g, from, to, n);
	tcu_graph_edges(SBT_CM_K_cuGraphRemoveDependencies, id, mode, r, g, from, to, n);
out:
	tcu_call_end();
	return r;
}

/* Only default edges can be removed as the model records them: others
 * (programmatic edges) were never added by a modeled call. */
CUresult tcu_m_cuGraphRemoveDependencies_v2(tcu_fn id, CUgraph g, const CUgraphNode *from,
                                            const CUgraphNode *to, const CUgraphEdgeData *edges,
                                            size_t n)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphRemoveDependencies_v2 real =
	    (tcu_pfn_cuGraphRemoveDependencies_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(g, from, to, edges, n);
	if (tcu_graph_edges_special(edges, n))
		tcu_graph_changed(id, mode, r, TCU_H(g), 0, 0, "cuGraphRemoveDependencies_v2 (edge data)");
	tcu_graph_edges(SBT_CM_K_cuGraphRemoveDependencies, id, mode, r, g, from, to, n);
out:
	tcu_call_end();
	return r;
}

/* The node goes with its edges; the record is kept with its graph. */
CUresult tcu_m_cuGraphDestroyNode(tcu_fn id, CUgraphNode node)
{
	tcu_mode mode;
	CUresult r;
	uint64_t graph;
	sbt_cm_call c;
	tcu_pfn_cuGraphDestroyNode real = (tcu_pfn_cuGraphDestroyNode)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node);
	if (mode == TCU_MODE_NESTED)
		goto out;
	pthread_mutex_lock(&tcu_g.mu);
	graph = (uint64_t)(uintptr_t)cap_umap_get(&tcu_g.graph_of_node, TCU_H(node));
	pthread_mutex_unlock(&tcu_g.mu);
	sbt_cm_call_init(&c);
	c.result = r;
	c.node = TCU_H(node);
	if (r == CUDA_SUCCESS)
		tcu_hsrc_node_gone(graph, c.node);
	if (mode == TCU_MODE_RECORD)
		tcu_emit(SBT_CM_K_cuGraphDestroyNode, id, &c, 0);
	if (r == CUDA_SUCCESS)
		tcu_live_graph_call(SBT_CM_K_cuGraphDestroyNode, id, graph, &c, NULL, 0);
out:
	tcu_call_end();
	return r;
}

/* ---- kernel node parameters ------------------------------------------------------------ */

/* exec: 0 for the graph's node (cuGraphKernelNodeSetParams); the graph
 * exec for cuGraphExecKernelNodeSetParams. */
static void tcu_graph_set_params(sbt_cm_kind k, tcu_fn id, tcu_mode mode, CUresult r,
                                 CUgraphExec exec, CUgraphNode node,
                                 const CUDA_KERNEL_NODE_PARAMS_v1 *p1,
                                 const CUDA_KERNEL_NODE_PARAMS *p2)
{
	sbt_cm_call c;
	uint8_t *enc = NULL;
	if (mode == TCU_MODE_NESTED || (!p1 && !p2))
		return;
	if (p1)
		tcu_graph_kernel_v1(&c, r, p1, &enc);
	else
		tcu_graph_kernel_v2(&c, r, p2, &enc);
	c.node = TCU_H(node);
	c.parent = TCU_H(exec);
	if (mode == TCU_MODE_RECORD)
		tcu_emit(k, id, &c, 0);
	if (c.result == CUDA_SUCCESS)
		tcu_live_graph_set_params(k, id, &c, NULL, 0);
	free(enc);
}

CUresult tcu_m_cuGraphKernelNodeSetParams(tcu_fn id, CUgraphNode node,
                                          const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphKernelNodeSetParams real =
	    (tcu_pfn_cuGraphKernelNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, p);
	tcu_graph_set_params(SBT_CM_K_cuGraphKernelNodeSetParams, id, mode, r, NULL, node, p, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphKernelNodeSetParams_v2(tcu_fn id, CUgraphNode node,
                                             const CUDA_KERNEL_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphKernelNodeSetParams_v2 real =
	    (tcu_pfn_cuGraphKernelNodeSetParams_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(node, p);
	tcu_graph_set_params(SBT_CM_K_cuGraphKernelNodeSetParams, id, mode, r, NULL, node, NULL, p);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecKernelNodeSetParams(tcu_fn id, CUgraphExec exec, CUgraphNode node,
                                              const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecKernelNodeSetParams real =
	    (tcu_pfn_cuGraphExecKernelNodeSetParams)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(exec, node, p);
	tcu_graph_set_params(SBT_CM_K_cuGraphExecKernelNodeSetParams, id, mode, r, exec, node, p, NULL);
out:
	tcu_call_end();
	return r;
}

CUresult tcu_m_cuGraphExecKernelNodeSetParams_v2(tcu_fn id, CUgraphExec exec, CUgraphNode node,
                                                 const CUDA_KERNEL_NODE_PARAMS *p)
{
	tcu_mode mode;
	CUresult r;
	tcu_pfn_cuGraphExecKernelNodeSetParams_v2 real =
	    (tcu_pfn_cuGraphExecKernelNodeSetParams_v2)tcu_call_begin_mode(id, &mode);
	if (!real) {
		r = tcu_no_driver(id);
		goto out;
	}
	r = real(exec, node, p);
	tcu_graph_set_params(SBT_CM_K_cuGraphExecKernelNodeSetParams, id, mode, r, exec, node, NULL, p);
out:
	tcu_call_end();
	return r;
}
