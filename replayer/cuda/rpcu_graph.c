/*
 * rpcu_graph.c - replay of graphs built node by node (docs/cuda-replay.md
 * "Graphs"): cuGraphCreate makes a graph, each recorded cuGraphAdd*Node
 * adds the same node to it with the real driver call (kernel nodes with
 * cuGraphAddKernelNode_v2, their function and parameters mapped as a
 * launch's are; memcpy nodes with cuGraphAddMemcpyNode, addresses mapped;
 * memset, empty, event record, event wait and batch memory-op nodes
 * (addresses mapped); child graph nodes from the replay's child graph
 * (copied, or moved into the node with cuGraphAddNode where the program
 * moved it); host nodes as empty nodes; memory allocation
 * nodes with the captured range mapped to the replay's graph memory, free
 * nodes at the mapped address), after the live
 * nodes its dependencies map to; cuGraphAddDependencies adds the edges;
 * clones, a child graph node's embedded graph, the setters (graph and
 * exec), kernel node attributes, enabled nodes and exec updates
 * are issued again on the mapped objects; tsGraphHostSource writes a
 * memcpy node's host bytes before a launch.  Instantiation and launch are
 * the ones stream-captured graphs use (rpcu_exec.c), on any stream mode:
 * with --streams single the graph is launched on the one stream.  A node
 * the model does not cover, or another change it does not cover (a
 * tsGraphNotModeled record naming the call), marks its graph or exec: a
 * marked graph is not instantiated (the rest of its construction is
 * passed over), and a launch of a marked graph's or exec's work stops the
 * replay naming that call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/cuda/rpcu_internal.h"

/* The live nodes of a packed node list (n entries), or a message naming
 * the one the trace never made; *out owned by the caller. */
static rp_status rpcu_graph_nodes(rpcu_state *s, const uint8_t *packed, size_t n, const char *what,
                                  CUgraphNode **out, rp_diag *diag)
{
	CUgraphNode *v;
	*out = NULL;
	if (!n)
		return RP_OK;
	v = calloc(n, sizeof(*v));
	if (!v)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		uint64_t cap;
		rpcu_obj *o;
		memcpy(&cap, packed + i * 8, 8);
		o = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, cap);
		if (!o) {
			free(v);
			return rpcu_fail(s, diag, RP_ERR_TRACE, "%s %zu names graph node 0x%llx, which the trace "
			                 "never added", what, i, (unsigned long long)cap);
		}
		v[i] = (CUgraphNode)(uintptr_t)o->live;
	}
	*out = v;
	return RP_OK;
}

static rp_status rpcu_graph_get(rpcu_state *s, uint64_t cap, rpcu_obj **out, rp_diag *diag)
{
	*out = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, cap);
	if (!*out)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph 0x%llx was never made in the trace",
		                 (unsigned long long)cap);
	return RP_OK;
}

static rp_status rpcu_graph_create(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	CUgraph g;
	CUresult r;
	rpcu_obj *o;
	rp_status st;
	if ((st = RPCU_NEED(cuGraphCreate)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphCreate(&g, (unsigned)c->flags);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphCreate", r, NULL);
	if (!(o = rpcu_objs_put(&s->objs, RPCU_O_GRAPH, c->handle))) {
		if (s->drv.p_cuGraphDestroy)
			s->drv.p_cuGraphDestroy(g);
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = (uint64_t)(uintptr_t)g;
	o->ctx = s->cur_ctx;
	return RP_OK;
}

/* Marks o (a graph or an exec, NULL: every later graph launch) as
 * changed by the call the record names, the first such call kept. */
static rp_status rpcu_graph_mark(rpcu_state *s, rpcu_obj *o, const sbt_cm_call *c, rp_diag *diag)
{
	char why[240];
	char **slot = o ? &o->name : &s->graphs_refused;
	if (*slot)
		return RP_OK;
	if (o)
		snprintf(why, sizeof(why), "%.*s at seq %llu", (int)c->name_len,
		         c->name ? (const char *)c->name : "a call", (unsigned long long)s->seq);
	else
		snprintf(why, sizeof(why), "%.*s at seq %llu changed node 0x%llx of a graph the trace does not "
		         "name, which replay does not model", (int)c->name_len,
		         c->name ? (const char *)c->name : "a call", (unsigned long long)s->seq,
		         (unsigned long long)c->node);
	rpcu_printable(why);
	*slot = strdup(why);
	if (!*slot)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	/* a graph embedded in a child graph node: the graph holding it too */
	for (int depth = 0; o && o->kind == RPCU_O_GRAPH && o->embedded && depth < 64; depth++) {
		rpcu_obj *up = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, o->parent);
		if (!up || up->name)
			break;
		if (!(up->name = strdup(why)))
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		o = up;
	}
	return RP_OK;
}

/* Marks o (a graph or an exec) with why, another object's mark (a child
 * graph copied into it, the graph it was cloned from). */
static rp_status rpcu_graph_mark_as(rpcu_state *s, rpcu_obj *o, const char *why, rp_diag *diag)
{
	if (o->name)
		return RP_OK;
	o->name = strdup(why);
	return o->name ? RP_OK : rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
}

/* tsGraphNotModeled: a call changed an exec (handle), a graph (parent;
 * one the trace never made, a clone, gets a graph of its own that never
 * instantiates) or a node (the graph it was added to; a node the trace
 * never added: every later graph launch is refused). */
static rp_status rpcu_graph_unmodeled(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *o;
	uint64_t graph = c->parent;
	if (c->handle) {
		o = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->handle);
		return o ? rpcu_graph_mark(s, o, c, diag) : RP_OK; /* no exec: its launch says so */
	}
	if (!graph && c->node) {
		o = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node);
		if (!o)
			return rpcu_graph_mark(s, NULL, c, diag);
		graph = o->parent;
	}
	if (!graph)
		return RP_OK;
	o = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, graph);
	if (!o && !(o = rpcu_objs_put(&s->objs, RPCU_O_GRAPH, graph)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	return rpcu_graph_mark(s, o, c, diag);
}

/* cuGraphAddKernelNode_v2's parameters of a kernel record (what the
 * launch of it passes); a->... owned by the caller. */
static rp_status rpcu_kernel_params(rpcu_state *s, const sbt_cm_call *c, CUDA_KERNEL_NODE_PARAMS *p,
                                    rpcu_kargs *a, rp_diag *diag)
{
	rpcu_obj *f;
	rp_status st;
	if ((st = rpcu_kfunc_find(s, c, &f, diag)) != RP_OK || (st = rpcu_kargs_make(s, c, f, a, diag)) != RP_OK)
		return st;
	memset(p, 0, sizeof(*p));
	if (f->kind == RPCU_O_KERNEL)
		p->kern = (CUkernel)(uintptr_t)f->live;
	else
		p->func = (CUfunction)(uintptr_t)f->live;
	p->gridDimX = (unsigned)c->grid_x;
	p->gridDimY = (unsigned)c->grid_y;
	p->gridDimZ = (unsigned)c->grid_z;
	p->blockDimX = (unsigned)c->block_x;
	p->blockDimY = (unsigned)c->block_y;
	p->blockDimZ = (unsigned)c->block_z;
	p->sharedMemBytes = (unsigned)c->shared_mem;
	p->kernelParams = a->args;
	p->extra = a->extra_arg;
	return RP_OK;
}

/* ---- host sources of memcpy nodes ---- */

/*
 * The buffer a memcpy node reads host bytes from (rpcu_copy3d_node's, kept
 * in graph_bufs), by the captured node and the source's size:
 * tsGraphHostSource writes it before each launch.  A node given another
 * host source of the same size (a setter, on the graph's node or an exec's
 * copy) reads the same buffer: every launch writes the bytes of its exec's
 * own source there first, so the graph and its execs can share it.  Kept
 * after the node's graph goes (a child graph node's copy, a clone's node
 * read it too).
 */
/* A memset node's parameters from its record (destination mapped). */
static rp_status rpcu_memset_node_params(rpcu_state *s, const sbt_cm_call *c,
                                         CUDA_MEMSET_NODE_PARAMS *p, rp_diag *diag)
{
	CUdeviceptr d;
	rp_status st = rpcu_memset_dst(s, c, 1, &d, diag);
	if (st != RP_OK)
		return st;
	memset(p, 0, sizeof(*p));
	p->dst = d;
	p->pitch = c->pitch;
	p->value = (unsigned)c->value;
	p->elementSize = (unsigned)c->elem_size;
	p->width = c->width;
	p->height = c->height;
	return RP_OK;
}

static uint64_t rpcu_graph_hsrc_key(uint64_t node, uint64_t bytes)
{
	return node ^ (bytes * 0x9e3779b97f4a7c15ull);
}

static rpcu_obj *rpcu_graph_hsrc_find(rpcu_state *s, uint64_t node, uint64_t bytes)
{
	rpcu_obj *o = rpcu_objs_get(&s->objs, RPCU_O_HOSTSRC, rpcu_graph_hsrc_key(node, bytes));
	return o && o->made_seq == node && o->bytes == bytes ? o : NULL;
}

/* m (from rpcu_copy3d_node for c) reads host bytes: from the node's buffer
 * of that size when it has one (the bytes copied there, m pointed at it). */
static rp_status rpcu_graph_hsrc_note(rpcu_state *s, const sbt_cm_call *c, CUDA_MEMCPY3D *m, rp_diag *diag)
{
	uint64_t bytes = c->width * c->height * (c->depth ? c->depth : 1);
	uint64_t key = rpcu_graph_hsrc_key(c->node, bytes);
	rpcu_obj *o = rpcu_objs_get(&s->objs, RPCU_O_HOSTSRC, key);
	if (o && (o->made_seq != c->node || o->bytes != bytes))
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "the host sources of memcpy nodes 0x%llx and 0x%llx "
		                 "collide in the replay's table", (unsigned long long)c->node,
		                 (unsigned long long)o->made_seq);
	if (o) {
		/* The node's one buffer stands for every host source the program
		 * gave it, and the program's were its own: it may give a launched
		 * exec another (cuGraphExecMemcpyNodeSetParams) while a launch
		 * still reads the one before.  New bytes go in once the context's
		 * work is done (not while a stream capture is open, which a
		 * synchronize would end); unchanged bytes are not written. */
		if (memcmp((const void *)(uintptr_t)o->live, m->srcHost, bytes) != 0) {
			if (!s->capturing)
				(void)s->drv.p_cuCtxSynchronize();
			memcpy((void *)(uintptr_t)o->live, m->srcHost, bytes);
		}
		m->srcHost = (void *)(uintptr_t)o->live;
	} else if (!(o = rpcu_objs_put(&s->objs, RPCU_O_HOSTSRC, key))) {
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = (uint64_t)(uintptr_t)m->srcHost;
	o->bytes = bytes;
	o->made_seq = c->node;
	o->parent = c->dst_type == CU_MEMORYTYPE_DEVICE ? c->dst : 0;
	return RP_OK;
}

/* tsGraphHostSource: the bytes a memcpy node's host source held at the
 * launch that follows, written into the buffer the node reads.  The
 * program's own ordering (a launch still reading the source was waited
 * for before the program changed it) is the replay's: the record comes
 * where the launch was made. */
static rp_status rpcu_graph_hsrc(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *o = rpcu_graph_hsrc_find(s, c->node, c->size);
	uint8_t *bytes;
	rp_status st;
	if (!o) {
		const rpcu_obj *n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node);
		const rpcu_obj *x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->handle);
		if (!n || !x || !x->live)
			return RP_OK; /* its graph was not rebuilt (not modeled): the launch says why */
		return rpcu_fail(s, diag, RP_ERR_TRACE, "memcpy node 0x%llx was never given a host source of %llu "
		                 "bytes in the trace", (unsigned long long)c->node, (unsigned long long)c->size);
	}
	if ((st = rpcu_blob_exact(s, c->blob, c->size, &bytes, diag)) != RP_OK)
		return st;
	if (s->relocate_memory && o->parent)
		rpcu_ranges_patch_data(&s->ranges, bytes, c->size, o->parent);
	/* Bytes the program left as they were are not written again: the
	 * record comes before every launch, and a launch before this one may
	 * still be reading the buffer (the program did not write it, so it
	 * did not wait; a write here would race with that read). */
	if (memcmp((const void *)(uintptr_t)o->live, bytes, c->size) != 0)
		memcpy((void *)(uintptr_t)o->live, bytes, c->size);
	free(bytes);
	return RP_OK;
}

/*
 * A memory allocation node: the driver chooses graph memory's address
 * (no way to ask for the captured one), so the captured range is mapped
 * to the replay's, as a relocated allocation is: kernel parameters,
 * memcpy and memset nodes and later calls naming the captured address
 * are patched.  The address is the graph's for its lifetime, across
 * launches (driver API documentation), so the mapping stays until the
 * graph is destroyed.  Said once per allocation.
 */
/* The live ordinal of a captured device ordinal. */
static int rpcu_graph_device(rpcu_state *s, int64_t cap)
{
	const rpcu_obj *dev = rpcu_objs_get(&s->objs, RPCU_O_DEVICE, (uint64_t)cap);
	return dev ? (int)dev->live : s->device_base + (int)cap;
}

/* The access descriptors of an allocation node's record (res_desc: 12
 * bytes each, as x86-64 cuda.h lays CUmemAccessDesc out), each device
 * mapped; *out owned by the caller. */
static rp_status rpcu_graph_access(rpcu_state *s, const sbt_cm_call *c, CUmemAccessDesc **out, size_t *n,
                                   rp_diag *diag)
{
	CUmemAccessDesc *v;
	*out = NULL;
	*n = c->res_desc_len / sizeof(CUmemAccessDesc);
	if (c->res_desc_len % sizeof(CUmemAccessDesc))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the memory allocation node's access descriptors are %zu bytes, "
		                 "not a whole number of %zu-byte descriptors", c->res_desc_len, sizeof(CUmemAccessDesc));
	if (!*n)
		return RP_OK;
	if (!(v = malloc(c->res_desc_len)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	memcpy(v, c->res_desc, c->res_desc_len);
	for (size_t i = 0; i < *n; i++) {
		if (v[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
			int type = (int)v[i].location.type;
			free(v);
			return rpcu_fail(s, diag, RP_ERR_TRACE, "access descriptor %zu of the memory allocation node "
			                 "names location type %d, not a device", i, type);
		}
		v[i].location.id = rpcu_graph_device(s, v[i].location.id);
	}
	*out = v;
	return RP_OK;
}

static rp_status rpcu_graph_alloc_node(rpcu_state *s, const sbt_cm_call *c, const rpcu_obj *g,
                                       const CUgraphNode *deps, size_t ndeps, CUgraphNode *node, rp_diag *diag)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p;
	CUmemAccessDesc *access;
	size_t naccess;
	rpcu_range rg;
	rp_status st;
	CUresult r;
	if (!c->dst || !c->size)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the memory allocation node has no address or no size");
	if (c->dst + c->size < c->dst)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "[0x%llx, +%llu) wraps around the address space",
		                 (unsigned long long)c->dst, (unsigned long long)c->size);
	if ((st = rpcu_graph_access(s, c, &access, &naccess, diag)) != RP_OK)
		return st;
	memset(&p, 0, sizeof(p));
	p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.poolProps.location.id = rpcu_graph_device(s, c->device);
	p.accessDescs = access;
	p.accessDescCount = naccess;
	p.bytesize = (size_t)c->size;
	r = s->drv.p_cuGraphAddMemAllocNode(node, (CUgraph)(uintptr_t)g->live, deps, ndeps, &p);
	free(access);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphAddMemAllocNode", r, NULL);
	memset(&rg, 0, sizeof(rg));
	rg.cap = c->dst;
	rg.size = c->size;
	rg.live = (uint64_t)p.dptr;
	rg.kind = RPCU_R_GRAPH;
	rg.seq = s->seq;
	rg.ctx = s->cur_ctx;
	rg.owner = c->parent;
	if (rg.live != rg.cap)
		rpcu_warn(s, "seq %llu: the %llu bytes of graph memory captured at 0x%llx (cuGraphAddMemAllocNode) "
		          "live at 0x%llx in this replay (the driver chooses graph memory addresses); "
		          "pointer-valued kernel parameters are patched, but pointers stored inside device "
		          "memory may be stale%s", (unsigned long long)s->seq, (unsigned long long)rg.size,
		          (unsigned long long)rg.cap, (unsigned long long)rg.live,
		          s->relocate_memory ? "" : " (--cuda-relocate-memory rewrites those in uploaded data)");
	return rpcu_mem_add_range(s, &rg, diag);
}

/*
 * A child graph node that took its child itself (cuGraphAddNode with
 * CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE, flags = that ownership): the only
 * way the documentation gives to put a graph holding memory allocation
 * or free nodes into another.  Issued the same way on the replay's child
 * graph, which then belongs to the node (never destroyed by itself: it
 * goes with g, embedded as cuGraphChildGraphNodeGetGraph's graphs are),
 * and its graph memory's mappings are g's (they go when g is destroyed).
 */
static rp_status rpcu_graph_move(rpcu_state *s, const sbt_cm_call *c, const rpcu_obj *g, rpcu_obj *child,
                                 const CUgraphNode *deps, size_t ndeps, CUgraphNode *node, rp_diag *diag)
{
	CUgraphNodeParams p;
	rp_status st;
	CUresult r;
	if ((st = RPCU_NEED(cuGraphAddNode)) != RP_OK)
		return st;
	memset(&p, 0, sizeof(p));
	p.type = CU_GRAPH_NODE_TYPE_GRAPH;
	p.graph.graph = (CUgraph)(uintptr_t)child->live;
	p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
	r = s->drv.p_cuGraphAddNode(node, (CUgraph)(uintptr_t)g->live, deps, ndeps, &p);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphAddNode (a child graph node, ownership moved)", r, NULL);
	child->embedded = 1;
	child->parent = c->parent;
	for (size_t i = 0; i < s->ranges.n; i++)
		if (s->ranges.v[i].kind == RPCU_R_GRAPH && s->ranges.v[i].owner == c->handle)
			s->ranges.v[i].owner = c->parent;
	return RP_OK;
}

_Static_assert(sizeof(CUstreamBatchMemOpParams) == 48, "a recorded batch memory operation is 48 bytes");

/*
 * A batch memory-op node's operations (params: CUstreamBatchMemOpParams
 * as x86-64 cuda.h lays them out, 48 bytes each), each write's or wait's
 * address mapped to the replay's (the whole 4 or 8 bytes in one
 * allocation of the trace, or the replay stops naming it), the driver's
 * own alias field cleared; p->paramArray owned by the caller.
 */
static rp_status rpcu_memop_params(rpcu_state *s, const sbt_cm_call *c, CUDA_BATCH_MEM_OP_NODE_PARAMS *p, rp_diag *diag)
{
	CUstreamBatchMemOpParams *v;
	size_t n = c->params_len / sizeof(*v);
	memset(p, 0, sizeof(*p));
	if (!n || c->params_len % sizeof(*v))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the batch memory operations are %zu bytes, not a whole "
		                 "number of %zu-byte operations", c->params_len, sizeof(*v));
	if (!(v = malloc(c->params_len)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	memcpy(v, c->params, c->params_len);
	for (size_t i = 0; i < n; i++) {
		CUdeviceptr *addr;
		uint64_t live;
		size_t bytes;
		switch (v[i].operation) {
		case CU_STREAM_MEM_OP_WAIT_VALUE_32:
		case CU_STREAM_MEM_OP_WAIT_VALUE_64:
			addr = &v[i].waitValue.address;
			bytes = v[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_64 ? 8 : 4;
			v[i].waitValue.alias = 0;
			break;
		case CU_STREAM_MEM_OP_WRITE_VALUE_32:
		case CU_STREAM_MEM_OP_WRITE_VALUE_64:
			addr = &v[i].writeValue.address;
			bytes = v[i].operation == CU_STREAM_MEM_OP_WRITE_VALUE_64 ? 8 : 4;
			v[i].writeValue.alias = 0;
			break;
		default:
			continue; /* flushes and barriers name no memory */
		}
		if (rpcu_ranges_translate(&s->ranges, (uint64_t)*addr, bytes, &live, NULL) != 0) {
			free(v);
			return rpcu_fail(s, diag, RP_ERR_TRACE, "batch memory operation %zu names [0x%llx, +%zu), which "
			                 "no allocation of the trace holds", i, (unsigned long long)*addr, bytes);
		}
		*addr = (CUdeviceptr)live;
	}
	p->ctx = s->cur_ctx;
	p->count = (unsigned)n;
	p->paramArray = v;
	p->flags = (unsigned)c->flags;
	return RP_OK;
}

/* Every cuGraphAdd*Node the model covers. */
static rp_status rpcu_graph_add(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *g, *e = NULL, *n;
	CUgraphNode *deps = NULL, node = NULL;
	size_t ndeps = c->deps_len / 8;
	rpcu_kargs ka;
	int have_ka = 0;
	const char *fn = sbt_cm_kind_name(k);
	rp_status st;
	CUresult r = CUDA_ERROR_NOT_FOUND;

	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK ||
	    (st = rpcu_graph_nodes(s, c->deps, ndeps, "dependency", &deps, diag)) != RP_OK)
		return st;
	if ((k == SBT_CM_K_cuGraphAddEventRecordNode || k == SBT_CM_K_cuGraphAddEventWaitNode) &&
	    !(e = rpcu_objs_get(&s->objs, RPCU_O_EVENT, c->event))) {
		st = rpcu_fail(s, diag, RP_ERR_TRACE, "event 0x%llx was never created in the trace",
		               (unsigned long long)c->event);
		goto out_free;
	}
	switch (k) {
	case SBT_CM_K_cuGraphAddKernelNode: {
		CUDA_KERNEL_NODE_PARAMS p;
		if ((st = RPCU_NEED(cuGraphAddKernelNode)) != RP_OK ||
		    (st = rpcu_kernel_params(s, c, &p, &ka, diag)) != RP_OK)
			goto out_free;
		have_ka = 1;
		fn = "cuGraphAddKernelNode_v2";
		r = s->drv.p_cuGraphAddKernelNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps, &p);
		if (r == CUDA_SUCCESS)
			rpcu_not_run_check(s, ka.kernel ? ka.kernel : "");
		break;
	}
	case SBT_CM_K_cuGraphAddMemcpyNode: {
		CUDA_MEMCPY3D m;
		if ((st = RPCU_NEED(cuGraphAddMemcpyNode)) != RP_OK || (st = rpcu_copy3d_node(s, c, &m, diag)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddMemcpyNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps, &m, s->cur_ctx);
		if (r == CUDA_SUCCESS && m.srcMemoryType == CU_MEMORYTYPE_HOST && m.srcHost &&
		    (st = rpcu_graph_hsrc_note(s, c, &m, diag)) != RP_OK)
			goto out_free;
		break;
	}
	case SBT_CM_K_cuGraphAddMemsetNode: {
		CUDA_MEMSET_NODE_PARAMS p;
		if ((st = RPCU_NEED(cuGraphAddMemsetNode)) != RP_OK ||
		    (st = rpcu_memset_node_params(s, c, &p, diag)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddMemsetNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps, &p, s->cur_ctx);
		break;
	}
	case SBT_CM_K_cuGraphAddHostNode:
		if (!s->warned_hostnode++ && !s->quiet)
			fprintf(stderr, "tsreplay: cuda: note: seq %llu: cuGraphAddHostNode: host nodes are rebuilt as "
			        "empty nodes (host functions are not run on replay); each keeps its place in the "
			        "graph\n", (unsigned long long)s->seq);
		/* fall through */
	case SBT_CM_K_cuGraphAddEmptyNode:
		if ((st = RPCU_NEED(cuGraphAddEmptyNode)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddEmptyNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps);
		break;
	case SBT_CM_K_cuGraphAddChildGraphNode: {
		rpcu_obj *child = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, c->handle);
		if (!child || (!child->live && !child->name)) {
			st = rpcu_fail(s, diag, RP_ERR_TRACE, "child graph 0x%llx was never made in the trace",
			               (unsigned long long)c->handle);
			goto out_free;
		}
		if (child->name) { /* its copy holds what replay does not model: so does g */
			st = rpcu_graph_mark_as(s, g, child->name, diag);
			goto out_free;
		}
		if (c->flags == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) {
			if ((st = rpcu_graph_move(s, c, g, child, deps, ndeps, &node, diag)) != RP_OK)
				goto out_free;
			r = CUDA_SUCCESS;
			break;
		}
		if (c->flags != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE) {
			st = rpcu_fail(s, diag, RP_ERR_TRACE, "the child graph node's ownership is %llu, neither "
			               "CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE nor _MOVE", (unsigned long long)c->flags);
			goto out_free;
		}
		if ((st = RPCU_NEED(cuGraphAddChildGraphNode)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddChildGraphNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps,
		                                      (CUgraph)(uintptr_t)child->live);
		break;
	}
	case SBT_CM_K_cuGraphAddEventRecordNode:
		if ((st = RPCU_NEED(cuGraphAddEventRecordNode)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddEventRecordNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps,
		                                       (CUevent)(uintptr_t)e->live);
		break;
	case SBT_CM_K_cuGraphAddBatchMemOpNode: {
		CUDA_BATCH_MEM_OP_NODE_PARAMS p;
		if ((st = RPCU_NEED(cuGraphAddBatchMemOpNode)) != RP_OK || (st = rpcu_memop_params(s, c, &p, diag)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddBatchMemOpNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps, &p);
		free(p.paramArray);
		break;
	}
	case SBT_CM_K_cuGraphAddMemAllocNode:
		if ((st = RPCU_NEED(cuGraphAddMemAllocNode)) != RP_OK ||
		    (st = rpcu_graph_alloc_node(s, c, g, deps, ndeps, &node, diag)) != RP_OK)
			goto out_free;
		r = CUDA_SUCCESS;
		break;
	case SBT_CM_K_cuGraphAddMemFreeNode: {
		long i = rpcu_ranges_find(&s->ranges, c->dst);
		if (i < 0 || s->ranges.v[i].cap != c->dst || s->ranges.v[i].kind != RPCU_R_GRAPH) {
			st = rpcu_fail(s, diag, RP_ERR_TRACE, "cuGraphAddMemFreeNode frees 0x%llx, which no memory "
			               "allocation node of the trace allocated", (unsigned long long)c->dst);
			goto out_free;
		}
		if ((st = RPCU_NEED(cuGraphAddMemFreeNode)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddMemFreeNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps,
		                                   (CUdeviceptr)s->ranges.v[i].live);
		break;
	}
	default:
		if ((st = RPCU_NEED(cuGraphAddEventWaitNode)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddEventWaitNode(&node, (CUgraph)(uintptr_t)g->live, deps, ndeps,
		                                     (CUevent)(uintptr_t)e->live);
		break;
	}
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, fn, r, NULL);
		goto out_free;
	}
	if (!(n = rpcu_objs_put(&s->objs, RPCU_O_GRAPHNODE, c->node))) {
		st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	n->live = (uint64_t)(uintptr_t)node; /* goes with its graph in the driver */
	n->parent = c->parent;
out_free:
	if (have_ka)
		rpcu_kargs_free(&ka);
	free(deps);
	return st;
}

/* cuGraphAddDependencies and cuGraphRemoveDependencies (k). */
static rp_status rpcu_graph_edges(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *g;
	CUgraphNode *from = NULL, *to = NULL;
	size_t n = c->deps_len / 8;
	rp_status st;
	CUresult r;

	if (c->deps_to_len != c->deps_len)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%zu edges start and %zu end", n, c->deps_to_len / 8);
	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK ||
	    (st = rpcu_graph_nodes(s, c->deps, n, "edge start", &from, diag)) != RP_OK ||
	    (st = rpcu_graph_nodes(s, c->deps_to, n, "edge end", &to, diag)) != RP_OK)
		goto out_free;
	if (k == SBT_CM_K_cuGraphAddDependencies) {
		if ((st = RPCU_NEED(cuGraphAddDependencies)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphAddDependencies((CUgraph)(uintptr_t)g->live, from, to, n);
	} else {
		if ((st = RPCU_NEED(cuGraphRemoveDependencies)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuGraphRemoveDependencies((CUgraph)(uintptr_t)g->live, from, to, n);
	}
	if (r != CUDA_SUCCESS)
		st = rpcu_cufail(s, diag, sbt_cm_kind_name(k), r, NULL);
out_free:
	free(from);
	free(to);
	return st;
}

static rp_status rpcu_graph_destroy_node(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node);
	rp_status st;
	CUresult r;
	if (!n)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->node);
	if ((st = RPCU_NEED(cuGraphDestroyNode)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphDestroyNode((CUgraphNode)(uintptr_t)n->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphDestroyNode", r, NULL);
	rpcu_objs_del(&s->objs, n);
	return RP_OK;
}

/* cuGraphKernelNodeSetParams (c->parent 0) and
 * cuGraphExecKernelNodeSetParams (c->parent: the exec). */
static rp_status rpcu_graph_set_params(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node), *x = NULL;
	CUDA_KERNEL_NODE_PARAMS p;
	rpcu_kargs ka;
	rp_status st;
	CUresult r;

	if (k == SBT_CM_K_cuGraphExecKernelNodeSetParams) {
		x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->parent);
		if (!x || !x->live)
			return RP_OK; /* its graph could not be instantiated: its launch says why */
		if ((st = RPCU_NEED(cuGraphExecKernelNodeSetParams)) != RP_OK)
			return st;
	} else if ((st = RPCU_NEED(cuGraphKernelNodeSetParams)) != RP_OK) {
		return st;
	}
	if (!n)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->node);
	if ((st = rpcu_kernel_params(s, c, &p, &ka, diag)) != RP_OK)
		return st;
	if (x)
		r = s->drv.p_cuGraphExecKernelNodeSetParams((CUgraphExec)(uintptr_t)x->live,
		                                            (CUgraphNode)(uintptr_t)n->live, &p);
	else
		r = s->drv.p_cuGraphKernelNodeSetParams((CUgraphNode)(uintptr_t)n->live, &p);
	if (r != CUDA_SUCCESS)
		st = rpcu_cufail(s, diag, x ? "cuGraphExecKernelNodeSetParams_v2" : "cuGraphKernelNodeSetParams_v2",
		                 r, NULL);
	rpcu_kargs_free(&ka);
	return st;
}

/* cuGraphClone: the replay's graph cloned; a clone of a marked graph is
 * marked the same way (never instantiated). */
static rp_status rpcu_graph_clone(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *g, *o;
	CUgraph live = NULL;
	rp_status st;
	CUresult r;
	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (!g->name) {
		if (!g->live)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "graph 0x%llx, which is cloned, was never made in the "
			                 "trace", (unsigned long long)c->parent);
		if ((st = RPCU_NEED(cuGraphClone)) != RP_OK)
			return st;
		r = s->drv.p_cuGraphClone(&live, (CUgraph)(uintptr_t)g->live);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuGraphClone", r, NULL);
	}
	if (!(o = rpcu_objs_put(&s->objs, RPCU_O_GRAPH, c->handle))) {
		if (live && s->drv.p_cuGraphDestroy)
			s->drv.p_cuGraphDestroy(live);
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = (uint64_t)(uintptr_t)live;
	o->ctx = s->cur_ctx;
	return g->name ? rpcu_graph_mark_as(s, o, g->name, diag) : RP_OK;
}

/* cuGraphNodeFindInClone: the clone's copy of a node, mapped. */
static rp_status rpcu_graph_find_in_clone(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *g, *orig, *n;
	CUgraphNode live;
	rp_status st;
	CUresult r;
	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (!(orig = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->handle)))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->handle);
	if ((st = RPCU_NEED(cuGraphNodeFindInClone)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphNodeFindInClone(&live, (CUgraphNode)(uintptr_t)orig->live, (CUgraph)(uintptr_t)g->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuGraphNodeFindInClone", r, NULL);
	if (!(n = rpcu_objs_put(&s->objs, RPCU_O_GRAPHNODE, c->node)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	n->live = (uint64_t)(uintptr_t)live;
	n->parent = c->parent;
	return RP_OK;
}

/* cuGraphChildGraphNodeGetGraph: the replay's child graph node's embedded
 * graph, mapped to the captured one (owned by the node: never destroyed
 * here); a node of a marked graph gives a graph marked the same way. */
static rp_status rpcu_graph_child_get(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *n, *g, *o;
	CUgraph live = NULL;
	rp_status st;
	CUresult r;
	if (c->result != CUDA_SUCCESS)
		return RP_OK;
	if (!(n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node))) {
		g = c->parent ? rpcu_objs_get(&s->objs, RPCU_O_GRAPH, c->parent) : NULL;
		if (!g || !g->name)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "cuGraphChildGraphNodeGetGraph names child graph node "
			                 "0x%llx, which the trace never added", (unsigned long long)c->node);
	} else {
		g = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, n->parent);
	}
	if (!g || !g->name) {
		if ((st = RPCU_NEED(cuGraphChildGraphNodeGetGraph)) != RP_OK)
			return st;
		r = s->drv.p_cuGraphChildGraphNodeGetGraph((CUgraphNode)(uintptr_t)n->live, &live);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuGraphChildGraphNodeGetGraph", r, NULL);
	}
	if (!(o = rpcu_objs_put(&s->objs, RPCU_O_GRAPH, c->handle)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->live = (uint64_t)(uintptr_t)live;
	o->ctx = s->cur_ctx;
	o->embedded = 1;
	o->parent = n ? n->parent : c->parent;
	return g && g->name ? rpcu_graph_mark_as(s, o, g->name, diag) : RP_OK;
}

/* ---- stream memory operations ---------------------------------------------------------- */

/* Whether a wait operation's condition holds for the word read (the
 * driver API documentation of CUstreamWaitValue_flags: GEQ compares as
 * a cyclic difference, (int32_t)(word - value) >= 0 for 32 bits; AND:
 * word & value is not 0; NOR: ~(word | value) is not 0). */
static int rpcu_wait_met(const CUstreamBatchMemOpParams *o, uint64_t word)
{
	int wide = o->operation == CU_STREAM_MEM_OP_WAIT_VALUE_64;
	uint64_t v = wide ? o->waitValue.value64 : o->waitValue.value;
	if (!wide)
		word = (uint32_t)word;
	switch (o->waitValue.flags & ~(unsigned)CU_STREAM_WAIT_VALUE_FLUSH) {
	case CU_STREAM_WAIT_VALUE_GEQ:
		return wide ? (int64_t)(word - v) >= 0 : (int32_t)(uint32_t)(word - v) >= 0;
	case CU_STREAM_WAIT_VALUE_EQ:
		return word == v;
	case CU_STREAM_WAIT_VALUE_AND:
		return (word & v) != 0;
	default:
		return wide ? ~(word | v) != 0 : (uint32_t)~(word | v) != 0;
	}
}

static const char *rpcu_wait_cond(unsigned flags)
{
	switch (flags & ~(unsigned)CU_STREAM_WAIT_VALUE_FLUSH) {
	case CU_STREAM_WAIT_VALUE_GEQ: return "GEQ";
	case CU_STREAM_WAIT_VALUE_EQ: return "EQ";
	case CU_STREAM_WAIT_VALUE_AND: return "AND";
	default: return "NOR";
	}
}

/* Issues operations [i, j) of v on stream as the record's own call (one
 * operation of a single call) or as a batch. */
static rp_status rpcu_memop_issue(rpcu_state *s, sbt_cm_kind k, CUstream stream, CUstreamBatchMemOpParams *v,
                                  unsigned n, unsigned flags, rp_diag *diag)
{
	const char *name = sbt_cm_kind_name(k);
	rp_status st;
	CUresult r;
	switch (k) {
	case SBT_CM_K_cuStreamWriteValue32:
		if ((st = RPCU_NEED(cuStreamWriteValue32)) != RP_OK)
			return st;
		r = s->drv.p_cuStreamWriteValue32(stream, v->writeValue.address, v->writeValue.value, v->writeValue.flags);
		break;
	case SBT_CM_K_cuStreamWriteValue64:
		if ((st = RPCU_NEED(cuStreamWriteValue64)) != RP_OK)
			return st;
		r = s->drv.p_cuStreamWriteValue64(stream, v->writeValue.address, v->writeValue.value64,
		                                  v->writeValue.flags);
		break;
	case SBT_CM_K_cuStreamWaitValue32:
		if ((st = RPCU_NEED(cuStreamWaitValue32)) != RP_OK)
			return st;
		r = s->drv.p_cuStreamWaitValue32(stream, v->waitValue.address, v->waitValue.value, v->waitValue.flags);
		break;
	case SBT_CM_K_cuStreamWaitValue64:
		if ((st = RPCU_NEED(cuStreamWaitValue64)) != RP_OK)
			return st;
		r = s->drv.p_cuStreamWaitValue64(stream, v->waitValue.address, v->waitValue.value64, v->waitValue.flags);
		break;
	default:
		if ((st = RPCU_NEED(cuStreamBatchMemOp)) != RP_OK)
			return st;
		r = s->drv.p_cuStreamBatchMemOp(stream, n, v, flags);
		break;
	}
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, name, r, NULL);
}

/* --streams single: every earlier record's work is on the one stream
 * before this one, and nothing after it can run before it, so a wait is
 * met now or never.  Each write is issued in turn; before each wait the
 * stream is synchronised and the word read: a condition that holds is
 * already ordered and the wait is dropped (as cuStreamWaitEvent is), one
 * that does not stops the replay naming the operation, where the driver
 * would wait for ever. */
static rp_status rpcu_memop_single(rpcu_state *s, sbt_cm_kind k, CUstream stream, CUstreamBatchMemOpParams *v,
                                   unsigned n, unsigned flags, const uint64_t *recorded, rp_diag *diag)
{
	rp_status st;
	CUresult r;
	for (unsigned i = 0; i < n; i++) {
		uint64_t word = 0;
		int wide = v[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_64;
		if (v[i].operation != CU_STREAM_MEM_OP_WAIT_VALUE_32 && !wide) {
			if ((st = rpcu_memop_issue(s, k, stream, &v[i], 1, flags, diag)) != RP_OK)
				return st;
			continue;
		}
		if ((st = RPCU_NEED(cuStreamSynchronize)) != RP_OK || (st = RPCU_NEED(cuMemcpyDtoH)) != RP_OK)
			return st;
		if ((r = s->drv.p_cuStreamSynchronize(stream)) != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuStreamSynchronize", r, NULL);
		if ((r = s->drv.p_cuMemcpyDtoH(&word, v[i].waitValue.address, wide ? 8 : 4)) != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuMemcpyDtoH", r, NULL);
		if (!rpcu_wait_met(&v[i], word))
			return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "operation %u waits until the %d-bit word at 0x%llx "
			                 "is %s 0x%llx, but it holds 0x%llx after all the work replayed before it; with "
			                 "--streams single nothing after it can run first, so it would wait for ever "
			                 "(the write it waits for comes later in the trace: replay with --streams multi)",
			                 i, wide ? 64 : 32, (unsigned long long)recorded[i],
			                 rpcu_wait_cond(v[i].waitValue.flags),
			                 (unsigned long long)(wide ? v[i].waitValue.value64 : v[i].waitValue.value),
			                 (unsigned long long)word);
	}
	return RP_OK;
}

/* After a record holding a wait, issued on stream (not captured): an
 * event of ours recorded there, so that a keyframe comparison can tell
 * whether the wait may still hold its stream (rpcu_memop_pending).  A
 * mark that cannot be made is left out (the comparison then waits). */
static void rpcu_memop_mark(rpcu_state *s, CUstream stream)
{
	CUevent ev = NULL;
	if (!s->drv.p_cuEventCreate || !s->drv.p_cuEventRecord || !s->drv.p_cuEventQuery || !s->drv.p_cuEventDestroy)
		return;
	if (s->nmemop_marks == s->cap_memop_marks) {
		size_t ncap = s->cap_memop_marks ? s->cap_memop_marks * 2 : 8;
		struct rpcu_memop_mark *v = realloc(s->memop_marks, ncap * sizeof(*v));
		if (!v)
			return;
		s->memop_marks = v;
		s->cap_memop_marks = ncap;
	}
	if (s->drv.p_cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return;
	if (s->drv.p_cuEventRecord(ev, stream) != CUDA_SUCCESS) {
		s->drv.p_cuEventDestroy(ev);
		return;
	}
	s->memop_marks[s->nmemop_marks].ev = ev;
	s->memop_marks[s->nmemop_marks].ctx = s->cur_ctx;
	s->nmemop_marks++;
}

int rpcu_memop_pending(rpcu_state *s)
{
	size_t i = 0;
	int pending = 0;
	while (i < s->nmemop_marks) {
		if (s->drv.p_cuEventQuery(s->memop_marks[i].ev) == CUDA_ERROR_NOT_READY) {
			pending = 1;
			i++;
			continue;
		}
		s->drv.p_cuEventDestroy(s->memop_marks[i].ev);
		s->memop_marks[i] = s->memop_marks[--s->nmemop_marks];
	}
	return pending;
}

void rpcu_memop_release(rpcu_state *s)
{
	for (size_t i = 0; i < s->nmemop_marks; i++) {
		if (s->memop_marks[i].ctx && s->drv.p_cuCtxSetCurrent)
			s->drv.p_cuCtxSetCurrent(s->memop_marks[i].ctx);
		s->drv.p_cuEventDestroy(s->memop_marks[i].ev);
	}
	free(s->memop_marks);
	s->memop_marks = NULL;
	s->nmemop_marks = s->cap_memop_marks = 0;
}

rp_status rpcu_exec_stream_memop(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUDA_BATCH_MEM_OP_NODE_PARAMS p;
	CUstream stream = NULL;
	int capturing = 0;
	uint64_t *recorded = NULL;
	rp_status st;
	if (c->result != CUDA_SUCCESS)
		return RP_OK; /* refused at capture: nothing was queued */
	if ((st = rpcu_stream_resolve(s, c->stream, &stream, &capturing, diag)) != RP_OK)
		return st;
	if (rpcu_capture_skip(s, c, capturing))
		return RP_OK;
	if (k != SBT_CM_K_cuStreamBatchMemOp && c->params_len != sizeof(CUstreamBatchMemOpParams))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "a single memory operation's record holds %zu bytes of "
		                 "operations, not one", c->params_len);
	if ((st = rpcu_memop_params(s, c, &p, diag)) != RP_OK)
		return st;
	if (s->single_stream && !capturing) {
		const CUstreamBatchMemOpParams *rec = (const CUstreamBatchMemOpParams *)(const void *)c->params;
		if (!(recorded = malloc(p.count * sizeof(*recorded)))) {
			free(p.paramArray);
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		for (unsigned i = 0; i < p.count; i++) { /* the trace's addresses, for the message */
			CUstreamBatchMemOpParams o;
			memcpy(&o, &rec[i], sizeof(o));
			recorded[i] = (uint64_t)o.waitValue.address; /* first field of every kind */
		}
		st = rpcu_memop_single(s, k, stream, p.paramArray, p.count, p.flags, recorded, diag);
	} else {
		st = rpcu_memop_issue(s, k, stream, p.paramArray, p.count, p.flags, diag);
		for (unsigned i = 0; st == RP_OK && !capturing && i < p.count; i++)
			if (p.paramArray[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 ||
			    p.paramArray[i].operation == CU_STREAM_MEM_OP_WAIT_VALUE_64) {
				rpcu_memop_mark(s, stream);
				break;
			}
	}
	free(recorded);
	free(p.paramArray);
	return st;
}

/* cuGraphBatchMemOpNodeSetParams on the mapped node, and its cuGraphExec*
 * form on the mapped exec (none: its graph could not be instantiated, and
 * its launch says why). */
static rp_status rpcu_graph_memop_set(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node), *x = NULL;
	CUDA_BATCH_MEM_OP_NODE_PARAMS p;
	rp_status st;
	CUresult r;
	if (k == SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams &&
	    (!(x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->parent)) || !x->live))
		return RP_OK;
	if (!n)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->node);
	if ((st = rpcu_memop_params(s, c, &p, diag)) != RP_OK)
		return st;
	if (x) {
		if ((st = RPCU_NEED(cuGraphExecBatchMemOpNodeSetParams)) == RP_OK) {
			r = s->drv.p_cuGraphExecBatchMemOpNodeSetParams((CUgraphExec)(uintptr_t)x->live,
			                                                (CUgraphNode)(uintptr_t)n->live, &p);
			if (r != CUDA_SUCCESS)
				st = rpcu_cufail(s, diag, "cuGraphExecBatchMemOpNodeSetParams", r, NULL);
		}
	} else if ((st = RPCU_NEED(cuGraphBatchMemOpNodeSetParams)) == RP_OK) {
		r = s->drv.p_cuGraphBatchMemOpNodeSetParams((CUgraphNode)(uintptr_t)n->live, &p);
		if (r != CUDA_SUCCESS)
			st = rpcu_cufail(s, diag, "cuGraphBatchMemOpNodeSetParams", r, NULL);
	}
	free(p.paramArray);
	return st;
}

/* cuGraphKernelNodeSetAttribute (the one attribute of attrs, its event
 * or address mapped as a launch's) and cuGraphKernelNodeCopyAttributes
 * (from the mapped source node) on the mapped node. */
static rp_status rpcu_graph_node_attr(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node), *src;
	CUlaunchAttribute a;
	rp_status st;
	CUresult r;
	if (!n)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->node);
	if (k == SBT_CM_K_cuGraphKernelNodeCopyAttributes) {
		if (!(src = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->handle)))
			return rpcu_fail(s, diag, RP_ERR_TRACE, "the attributes are copied from graph node 0x%llx, "
			                 "which the trace never added (or this window's snapshot lacks)",
			                 (unsigned long long)c->handle);
		if ((st = RPCU_NEED(cuGraphKernelNodeCopyAttributes)) != RP_OK)
			return st;
		r = s->drv.p_cuGraphKernelNodeCopyAttributes((CUgraphNode)(uintptr_t)n->live,
		                                             (CUgraphNode)(uintptr_t)src->live);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuGraphKernelNodeCopyAttributes", r, NULL);
	}
	if (sbt_cm_attr_count(c) != 1)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the kernel node attribute record holds %zu attributes, "
		                 "not one", sbt_cm_attr_count(c));
	if ((st = rpcu_launch_attr(s, c, 0, &a, diag)) != RP_OK ||
	    (st = RPCU_NEED(cuGraphKernelNodeSetAttribute)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphKernelNodeSetAttribute((CUgraphNode)(uintptr_t)n->live, (CUkernelNodeAttrID)a.id,
	                                           (const CUkernelNodeAttrValue *)&a.value);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuGraphKernelNodeSetAttribute", r, NULL);
}

/* cuGraphNodeSetEnabled on the replay's exec (none: its graph could not
 * be instantiated, and its launch says why). */
static rp_status rpcu_graph_set_enabled(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->parent);
	rpcu_obj *n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node);
	rp_status st;
	CUresult r;
	if (!x || !x->live)
		return RP_OK;
	if (!n)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->node);
	if ((st = RPCU_NEED(cuGraphNodeSetEnabled)) != RP_OK)
		return st;
	r = s->drv.p_cuGraphNodeSetEnabled((CUgraphExec)(uintptr_t)x->live, (CUgraphNode)(uintptr_t)n->live,
	                                   (unsigned)c->value);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuGraphNodeSetEnabled", r, NULL);
}

/* The memcpy, memset and event node setters: on the graph's node (parent
 * 0) or on the exec's copy (the cuGraphExec* forms; no exec: its graph
 * could not be instantiated, and its launch says why). */
static rp_status rpcu_graph_node_set(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	int on_exec = k == SBT_CM_K_cuGraphExecMemcpyNodeSetParams || k == SBT_CM_K_cuGraphExecMemsetNodeSetParams ||
	              k == SBT_CM_K_cuGraphExecEventRecordNodeSetEvent ||
	              k == SBT_CM_K_cuGraphExecEventWaitNodeSetEvent;
	rpcu_obj *x = NULL, *n, *e = NULL;
	CUgraphNode node;
	CUgraphExec exec = NULL;
	rp_status st = RP_OK;
	CUresult r;

	if (on_exec) {
		x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->parent);
		if (!x || !x->live)
			return RP_OK;
		exec = (CUgraphExec)(uintptr_t)x->live;
	}
	if (!(n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node)))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was never added in the trace",
		                 (unsigned long long)c->node);
	node = (CUgraphNode)(uintptr_t)n->live;
	switch (k) {
	case SBT_CM_K_cuGraphMemcpyNodeSetParams:
	case SBT_CM_K_cuGraphExecMemcpyNodeSetParams: {
		CUDA_MEMCPY3D m;
		if ((st = on_exec ? RPCU_NEED(cuGraphExecMemcpyNodeSetParams) : RPCU_NEED(cuGraphMemcpyNodeSetParams)) !=
		        RP_OK ||
		    (st = rpcu_copy3d_node(s, c, &m, diag)) != RP_OK)
			return st;
		if (m.srcMemoryType == CU_MEMORYTYPE_HOST && m.srcHost &&
		    (st = rpcu_graph_hsrc_note(s, c, &m, diag)) != RP_OK)
			return st;
		r = on_exec ? s->drv.p_cuGraphExecMemcpyNodeSetParams(exec, node, &m, s->cur_ctx)
		            : s->drv.p_cuGraphMemcpyNodeSetParams(node, &m);
		break;
	}
	case SBT_CM_K_cuGraphMemsetNodeSetParams:
	case SBT_CM_K_cuGraphExecMemsetNodeSetParams: {
		CUDA_MEMSET_NODE_PARAMS p;
		if ((st = on_exec ? RPCU_NEED(cuGraphExecMemsetNodeSetParams) : RPCU_NEED(cuGraphMemsetNodeSetParams)) !=
		        RP_OK ||
		    (st = rpcu_memset_node_params(s, c, &p, diag)) != RP_OK)
			return st;
		r = on_exec ? s->drv.p_cuGraphExecMemsetNodeSetParams(exec, node, &p, s->cur_ctx)
		            : s->drv.p_cuGraphMemsetNodeSetParams(node, &p);
		break;
	}
	default: {
		CUevent ev;
		if (!(e = rpcu_objs_get(&s->objs, RPCU_O_EVENT, c->event)))
			return rpcu_fail(s, diag, RP_ERR_TRACE, "event 0x%llx was never created in the trace",
			                 (unsigned long long)c->event);
		ev = (CUevent)(uintptr_t)e->live;
		if (k == SBT_CM_K_cuGraphEventRecordNodeSetEvent) {
			if ((st = RPCU_NEED(cuGraphEventRecordNodeSetEvent)) != RP_OK)
				return st;
			r = s->drv.p_cuGraphEventRecordNodeSetEvent(node, ev);
		} else if (k == SBT_CM_K_cuGraphEventWaitNodeSetEvent) {
			if ((st = RPCU_NEED(cuGraphEventWaitNodeSetEvent)) != RP_OK)
				return st;
			r = s->drv.p_cuGraphEventWaitNodeSetEvent(node, ev);
		} else if (k == SBT_CM_K_cuGraphExecEventRecordNodeSetEvent) {
			if ((st = RPCU_NEED(cuGraphExecEventRecordNodeSetEvent)) != RP_OK)
				return st;
			r = s->drv.p_cuGraphExecEventRecordNodeSetEvent(exec, node, ev);
		} else {
			if ((st = RPCU_NEED(cuGraphExecEventWaitNodeSetEvent)) != RP_OK)
				return st;
			r = s->drv.p_cuGraphExecEventWaitNodeSetEvent(exec, node, ev);
		}
		break;
	}
	}
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, sbt_cm_kind_name(k), r, NULL);
}

/* cuGraphExecUpdate that worked at capture: the replay's exec takes the
 * replay's graph's parameters.  Where it cannot (the graph holds what
 * replay does not model, or the driver refuses the update here), the exec
 * is marked and its later launches are refused naming this record. */
static rp_status rpcu_graph_exec_update(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_obj *x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->handle), *g;
	CUgraphExecUpdateResultInfo info;
	char why[240], err[96];
	rp_status st;
	CUresult r;

	if (!x || !x->live || x->name)
		return RP_OK; /* its launch says why it cannot be replayed */
	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (g->name || !g->live)
		return rpcu_graph_mark_as(s, x, g->name ? g->name : "a call not recorded", diag);
	if ((st = RPCU_NEED(cuGraphExecUpdate)) != RP_OK)
		return st;
	memset(&info, 0, sizeof(info));
	r = s->drv.p_cuGraphExecUpdate((CUgraphExec)(uintptr_t)x->live, (CUgraph)(uintptr_t)g->live, &info);
	if (r == CUDA_SUCCESS)
		return RP_OK;
	snprintf(why, sizeof(why), "the replay's driver refused its cuGraphExecUpdate at seq %llu with %s (update "
	         "result %d), where the capture's driver took it", (unsigned long long)s->seq,
	         rpcu_cu_name(&s->drv, r, err, sizeof(err)), (int)info.result);
	x->refused = 1;
	return rpcu_graph_mark_as(s, x, why, diag);
}

/* The capture's work becomes nodes of the graph after deps, as it did at
 * capture, in relaxed mode as every replay capture (rpcu_capture_begin). */
rp_status rpcu_graph_capture_to(rpcu_state *s, const sbt_cm_call *c, CUstream live, rp_diag *diag)
{
	CUgraphNode *deps = NULL;
	size_t ndeps = c->deps_len / 8;
	rpcu_obj *g;
	rp_status st;
	CUresult r;

	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (g->name || !g->live)
		return rpcu_capture_begin_plain(s, live, diag);
	if ((st = RPCU_NEED(cuStreamBeginCaptureToGraph)) != RP_OK ||
	    (st = rpcu_graph_nodes(s, c->deps, ndeps, "dependency", &deps, diag)) != RP_OK)
		return st;
	r = s->drv.p_cuStreamBeginCaptureToGraph(live, (CUgraph)(uintptr_t)g->live, deps, NULL, ndeps,
	                                         CU_STREAM_CAPTURE_MODE_RELAXED);
	free(deps);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuStreamBeginCaptureToGraph", r, NULL);
	s->capturing++;
	return RP_OK;
}

rp_status rpcu_graph_capture_single(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	char why[200];
	rpcu_obj *g;
	rp_status st;
	if ((st = rpcu_graph_get(s, c->parent, &g, diag)) != RP_OK || g->name)
		return st;
	snprintf(why, sizeof(why), "its graph was captured into at seq %llu (cuStreamBeginCaptureToGraph), which "
	         "--streams single cannot rebuild (stream capture needs a stream): replay with --streams multi",
	         (unsigned long long)s->seq);
	if (!(g->name = strdup(why)))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	g->refused = 1;
	return RP_OK;
}

/* A graph already known to hold a node replay does not model is never
 * instantiated: the rest of its construction (whose nodes may depend on
 * that node, which has no live node) is passed over. */
static int rpcu_graph_given_up(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c)
{
	const rpcu_obj *g, *n;
	uint64_t graph = c->parent;
	if (k == SBT_CM_K_cuGraphCreate || k == SBT_CM_K_cuGraphExecKernelNodeSetParams ||
	    k == SBT_CM_K_tsGraphHostSource || k == SBT_CM_K_cuGraphClone ||
	    k == SBT_CM_K_cuGraphNodeSetEnabled || k == SBT_CM_K_cuGraphExecMemcpyNodeSetParams ||
	    k == SBT_CM_K_cuGraphExecMemsetNodeSetParams || k == SBT_CM_K_cuGraphExecEventRecordNodeSetEvent ||
	    k == SBT_CM_K_cuGraphExecEventWaitNodeSetEvent || k == SBT_CM_K_cuGraphExecUpdate ||
	    k == SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams ||
	    k == SBT_CM_K_cuGraphChildGraphNodeGetGraph)
		return 0;
	if (k == SBT_CM_K_cuGraphKernelNodeSetParams || k == SBT_CM_K_cuGraphDestroyNode ||
	    k == SBT_CM_K_cuGraphKernelNodeSetAttribute || k == SBT_CM_K_cuGraphKernelNodeCopyAttributes ||
	    k == SBT_CM_K_cuGraphBatchMemOpNodeSetParams ||
	    k == SBT_CM_K_cuGraphMemcpyNodeSetParams || k == SBT_CM_K_cuGraphMemsetNodeSetParams ||
	    k == SBT_CM_K_cuGraphEventRecordNodeSetEvent || k == SBT_CM_K_cuGraphEventWaitNodeSetEvent) {
		if (!(n = rpcu_objs_get(&s->objs, RPCU_O_GRAPHNODE, c->node)))
			return 0;
		graph = n->parent;
	}
	g = rpcu_objs_get(&s->objs, RPCU_O_GRAPH, graph);
	return g && g->name;
}

rp_status rpcu_exec_graph_node(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	if (rpcu_graph_given_up(s, k, c))
		return RP_OK;
	switch (k) {
	case SBT_CM_K_cuGraphCreate:
		return rpcu_graph_create(s, c, diag);
	case SBT_CM_K_tsGraphNotModeled:
		return rpcu_graph_unmodeled(s, c, diag);
	case SBT_CM_K_tsGraphHostSource:
		return rpcu_graph_hsrc(s, c, diag);
	case SBT_CM_K_cuGraphClone:
		return rpcu_graph_clone(s, c, diag);
	case SBT_CM_K_cuGraphNodeFindInClone:
		return rpcu_graph_find_in_clone(s, c, diag);
	case SBT_CM_K_cuGraphChildGraphNodeGetGraph:
		return rpcu_graph_child_get(s, c, diag);
	case SBT_CM_K_cuGraphNodeSetEnabled:
		return rpcu_graph_set_enabled(s, c, diag);
	case SBT_CM_K_cuGraphMemcpyNodeSetParams:
	case SBT_CM_K_cuGraphExecMemcpyNodeSetParams:
	case SBT_CM_K_cuGraphMemsetNodeSetParams:
	case SBT_CM_K_cuGraphExecMemsetNodeSetParams:
	case SBT_CM_K_cuGraphEventRecordNodeSetEvent:
	case SBT_CM_K_cuGraphEventWaitNodeSetEvent:
	case SBT_CM_K_cuGraphExecEventRecordNodeSetEvent:
	case SBT_CM_K_cuGraphExecEventWaitNodeSetEvent:
		return rpcu_graph_node_set(s, k, c, diag);
	case SBT_CM_K_cuGraphExecUpdate:
		return rpcu_graph_exec_update(s, c, diag);
	case SBT_CM_K_cuGraphKernelNodeSetAttribute:
	case SBT_CM_K_cuGraphKernelNodeCopyAttributes:
		return rpcu_graph_node_attr(s, k, c, diag);
	case SBT_CM_K_cuGraphBatchMemOpNodeSetParams:
	case SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams:
		return rpcu_graph_memop_set(s, k, c, diag);
	case SBT_CM_K_cuGraphAddDependencies:
	case SBT_CM_K_cuGraphRemoveDependencies:
		return rpcu_graph_edges(s, k, c, diag);
	case SBT_CM_K_cuGraphDestroyNode:
		return rpcu_graph_destroy_node(s, c, diag);
	case SBT_CM_K_cuGraphKernelNodeSetParams:
	case SBT_CM_K_cuGraphExecKernelNodeSetParams:
		return rpcu_graph_set_params(s, k, c, diag);
	default:
		return rpcu_graph_add(s, k, c, diag);
	}
}

/* ---- graph memory live at a restored keyframe ------------------------------------------ */

void rpcu_graph_launch_passed(rpcu_state *s, const sbt_cm_call *c)
{
	rpcu_obj *x = rpcu_objs_get(&s->objs, RPCU_O_GRAPHEXEC, c->handle);
	if (x)
		x->made_seq = s->seq;
}

/* The exec of graph (captured) launched last while the keyframe was
 * restored, that replay can launch; NULL when there is none. */
static rpcu_obj *rpcu_graph_gmem_exec(rpcu_state *s, uint64_t graph)
{
	rpcu_obj *best = NULL;
	for (size_t i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->dead || o->kind != RPCU_O_GRAPHEXEC || o->parent != graph || !o->live || o->name ||
		    !o->made_seq)
			continue;
		if (!best || o->made_seq > best->made_seq)
			best = o;
	}
	return best;
}

/*
 * A whole run's keyframe (TRACESMITH_SNAPSHOT) taken while a graph launch
 * had left graph memory allocated holds that memory (the interposer puts
 * it in its allocation table after the launch); restoring it replays
 * objects only, so the launch that allocated it did not run, and the
 * real driver backs graph memory only between the launch that allocates
 * it and its free.  As a window's snapshot does (docs/cuda.md), the exec
 * launched last for each graph owning such memory is launched again on
 * the null stream and the context synchronized, before the keyframe's
 * records fill the memory: what that launch writes elsewhere the keyframe
 * overwrites (it holds every live allocation).
 */
rp_status rpcu_graph_gmem_restore(rpcu_state *s, uint64_t kf_seq, const uint64_t *addrs, size_t n, rp_diag *diag)
{
	rpcu_obj **execs = NULL;
	size_t nexecs = 0;
	rp_status st = RP_OK;
	for (size_t i = 0; i < n; i++) {
		long r = rpcu_ranges_find(&s->ranges, addrs[i]);
		rpcu_obj *x, **grown;
		size_t j;
		if (r < 0 || s->ranges.v[r].kind != RPCU_R_GRAPH)
			continue;
		x = rpcu_graph_gmem_exec(s, s->ranges.v[r].owner);
		if (!x) {
			rpcu_warn(s, "keyframe seq %llu holds graph memory at 0x%llx, but no launch before it of an "
			          "exec of its graph can be replayed: that memory may not be allocated in this replay",
			          (unsigned long long)kf_seq, (unsigned long long)addrs[i]);
			continue;
		}
		for (j = 0; j < nexecs && execs[j] != x; j++)
			;
		if (j < nexecs)
			continue;
		if (!(grown = realloc(execs, (nexecs + 1) * sizeof(*grown)))) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			goto out_free;
		}
		execs = grown;
		execs[nexecs++] = x;
	}
	if (nexecs && ((st = RPCU_NEED(cuGraphLaunch)) != RP_OK || (st = RPCU_NEED(cuCtxSynchronize)) != RP_OK))
		goto out_free;
	for (size_t i = 0; i < nexecs; i++) {
		CUresult r;
		if (execs[i]->ctx && (r = s->drv.p_cuCtxSetCurrent(execs[i]->ctx)) != CUDA_SUCCESS) {
			st = rpcu_cufail(s, diag, "cuCtxSetCurrent", r, NULL);
			goto out_free;
		}
		if (!s->quiet)
			fprintf(stderr, "tsreplay: cuda: note: keyframe seq %llu: graph exec 0x%llx launched again, as at "
			        "seq %llu, to allocate the graph memory the keyframe fills (the driver allocates it at "
			        "launches only)\n", (unsigned long long)kf_seq, (unsigned long long)execs[i]->cap,
			        (unsigned long long)execs[i]->made_seq);
		if ((r = s->drv.p_cuGraphLaunch((CUgraphExec)(uintptr_t)execs[i]->live, NULL)) != CUDA_SUCCESS) {
			st = rpcu_cufail(s, diag, "cuGraphLaunch", r, NULL);
			goto out_free;
		}
		if ((r = s->drv.p_cuCtxSynchronize()) != CUDA_SUCCESS) {
			st = rpcu_cufail(s, diag, "cuCtxSynchronize", r, NULL);
			goto out_free;
		}
	}
	if (nexecs && s->cur_ctx)
		s->drv.p_cuCtxSetCurrent(s->cur_ctx);
out_free:
	free(execs);
	return st;
}
