/*
 * tcd_graph.c - graphs built node by node: cuGraphCreate, the
 * cuGraphAdd*Node calls the double models (kernel, memcpy, memset, empty,
 * event record, event wait, host, child graph, memory allocation and free,
 * batch memory-op, and cuGraphAddNode of those types, a child graph moved
 * into its node included), cuGraphAddDependencies,
 * cuGraphRemoveDependencies, cuGraphDestroyNode, cuGraphClone,
 * cuGraphNodeFindInClone and cuGraphChildGraphNodeGetGraph, the setters
 * of kernel, memcpy, memset, event and batch memory-op nodes (graph and
 * exec forms, and the generic cuGraph(Exec)NodeSetParams of those types),
 * the host node setter, kernel node attributes (set, read, copied),
 * cuGraphNodeSetEnabled / cuGraphNodeGetEnabled, cuGraphExecUpdate (both
 * ABIs), and cuStreamBeginCaptureToGraph (the capture's work becomes one
 * node of the graph after the nodes named, when the capture ends).  What
 * the real driver does with these was not measured: the double follows the
 * driver API documentation (docs/cuda-double.md).
 *
 * A node holds the ops it runs as templates (a memset of several rows is
 * one op per row; a child graph node, its child's ops in the child's
 * order, copied when it is added as the driver copies the child).  As on
 * the driver, parameters are copied when the node is made, and a node's
 * pointers are checked then; a memcpy node's host source is read when it
 * runs.  Instantiation orders the nodes so that every dependency runs
 * first (creation order among independent ones: a topological order,
 * which is all the driver promises) and a launch runs them one after
 * another on the launch stream (tcd_sched.c), skipping an exec's disabled
 * nodes: independent nodes never run at once here, which the driver
 * allows but does not promise.  An event wait node waits for the event's
 * last record as of each launch.  Edge data other than the default
 * (programmatic edges) is refused with CUDA_ERROR_NOT_SUPPORTED.
 */
#include "tests/doubles/cuda/tcd.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void tcd_ops_free(struct tcd_op *op)
{
	while (op) {
		struct tcd_op *next = op->next;
		tcd_op_free(op);
		op = next;
	}
}

/* With the lock held: whether g holds a memory allocation or free node.
 * The driver API documentation forbids such a graph's nodes and edges to
 * be deleted, its use in a child graph node and its cloning; the double
 * refuses those with CUDA_ERROR_NOT_SUPPORTED (the documentation names no
 * error code). */
/* With the lock held: whether g holds a memory allocation or free node,
 * itself or in a graph moved into one of its child graph nodes (depth
 * bounds the walk). */
static bool tcd_graph_holds_mem_locked(const struct tcd_graph *g, int depth)
{
	for (size_t i = 0; depth < 64 && i < g->nnodes; i++) {
		const struct tcd_gnode *n = g->nodes[i];
		if (n->graph_mem ||
		    (n->embedded && n->embedded->owner == n && tcd_graph_holds_mem_locked(n->embedded, depth + 1)))
			return true;
	}
	return false;
}

static CUresult tcd_graph_mem_forbids_locked(const struct tcd_graph *g, const char *call, const char *what)
{
	if (tcd_graph_holds_mem_locked(g, 0))
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "graph %p holds memory allocation or free nodes, "
				"which forbid %s", (void *)g, what);
	return CUDA_SUCCESS;
}

/* With the lock held: a graph moved into a child graph node belongs to
 * that node.  The documentation (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
 * forbids its own destruction and instantiation, its use as another
 * node's child, as the graph of cuGraphExecUpdate, and new memory
 * allocation or free nodes in it; it names no error code, and the double
 * gives CUDA_ERROR_NOT_SUPPORTED as for the memory nodes' restrictions. */
CUresult tcd_graph_moved_check_locked(const struct tcd_graph *g, const char *call, const char *what)
{
	if (g->owner)
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "graph %p was moved into child graph node %p "
				"(CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE), which forbids %s", (void *)g,
				(void *)g->owner, what);
	return CUDA_SUCCESS;
}

/* With the lock held: g is destroyed, and with it every graph moved into
 * one of its child graph nodes (the node owns it, as documented). */
void tcd_graph_kill_locked(struct tcd_graph *g)
{
	for (size_t i = 0; i < g->nnodes; i++) {
		struct tcd_gnode *n = g->nodes[i];
		if (n->embedded && n->embedded->owner == n && tcd_obj_is_locked(n->embedded, TCD_KIND_GRAPH))
			tcd_graph_kill_locked(n->embedded);
	}
	tcd_obj_kill(g);
}

CUresult tcd_graph_node_add(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
			    struct tcd_op *ops, const char *call)
{
	struct tcd_graph *g;
	struct tcd_gnode *n = NULL;
	CUresult r;

	if (!out) {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phGraphNode is NULL");
		goto out_free;
	}
	if (ndeps && !deps) {
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dependencies is NULL with %zu of them", ndeps);
		goto out_free;
	}
	n = tcd_obj_new(sizeof(*n), TCD_KIND_GRAPH_NODE);
	if (!n || (ndeps && !(n->deps = calloc(ndeps, sizeof(*n->deps))))) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		goto out_free;
	}
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g);
	if (r == CUDA_SUCCESS && g->count)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "graph %p was made by stream capture: the double "
			     "adds nodes to graphs made by cuGraphCreate only", (void *)g);
	for (size_t i = 0; r == CUDA_SUCCESS && i < ndeps; i++) {
		struct tcd_gnode *d;
		r = tcd_obj_get_locked(deps[i], TCD_KIND_GRAPH_NODE, call, "dependencies[i]", &d);
		if (r == CUDA_SUCCESS && d->graph != g)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dependencies[%zu] belongs to another graph", i);
		for (size_t j = 0; r == CUDA_SUCCESS && j < i; j++)
			if (n->deps[j] == d)
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dependencies[%zu] repeats dependencies[%zu]",
					     i, j);
		if (r == CUDA_SUCCESS)
			n->deps[i] = d;
	}
	if (r == CUDA_SUCCESS && g->nnodes == g->cap_nodes) {
		size_t cap = g->cap_nodes ? g->cap_nodes * 2 : 8;
		struct tcd_gnode **grown = realloc(g->nodes, cap * sizeof(*grown));
		if (!grown)
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		else {
			g->nodes = grown;
			g->cap_nodes = cap;
		}
	}
	if (r == CUDA_SUCCESS) {
		n->graph = g;
		n->ndeps = ndeps;
		n->ops = ops;
		n->index = g->nnodes;
		g->nodes[g->nnodes++] = n;
		ops = NULL;
		*out = (CUgraphNode)n;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	if (r == CUDA_SUCCESS)
		return r;
out_free:
	if (n) {
		free(n->deps);
		n->deps = NULL;
		tcd_obj_kill(n);
	}
	tcd_ops_free(ops);
	return r;
}

TCD_API(CUresult, cuGraphCreate)(CUgraph *phGraph, unsigned int flags)
{
	struct tcd_graph *g;

	TCD_ENTER_INIT(cuGraphCreate);
	if (!phGraph)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphCreate", "phGraph is NULL");
	if (flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphCreate", "flags must be 0, not 0x%x", flags);
	g = tcd_obj_new(sizeof(*g), TCD_KIND_GRAPH);
	if (!g)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, "cuGraphCreate", "out of host memory");
	g->tail = &g->ops;
	*phGraph = (CUgraph)g;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuGraphCreate)

/* ---- kernel nodes ---- */

static CUresult tcd_kernel_node_op(CUfunction f, CUkernel kern, const unsigned grid[3], const unsigned block[3],
				   unsigned shared, void **params, void **extra, const char *call, struct tcd_op **out)
{
	struct tcd_launch_args a;
	CUresult r;

	memset(&a, 0, sizeof(a));
	a.f = f ? f : (CUfunction)kern;
	memcpy(a.grid, grid, sizeof(a.grid));
	memcpy(a.block, block, sizeof(a.block));
	a.shared = shared;
	a.params = params;
	a.extra = extra;
	r = tcd_kernel_op(&a, call, out);
	if (r == CUDA_SUCCESS)
		tcd_kernel_op_made(*out);
	return r;
}

#define TCD_KNP_OP(p, call, out)                                                                    \
	tcd_kernel_node_op((p)->func, NULL, (const unsigned[3]){(p)->gridDimX, (p)->gridDimY, (p)->gridDimZ}, \
			   (const unsigned[3]){(p)->blockDimX, (p)->blockDimY, (p)->blockDimZ},              \
			   (p)->sharedMemBytes, (p)->kernelParams, (p)->extra, call, out)
#define TCD_KNP2_OP(p, call, out)                                                                   \
	tcd_kernel_node_op((p)->func, (p)->kern,                                                        \
			   (const unsigned[3]){(p)->gridDimX, (p)->gridDimY, (p)->gridDimZ},                 \
			   (const unsigned[3]){(p)->blockDimX, (p)->blockDimY, (p)->blockDimZ},              \
			   (p)->sharedMemBytes, (p)->kernelParams, (p)->extra, call, out)

TCD_API(CUresult, cuGraphAddKernelNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddKernelNode);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphAddKernelNode", "nodeParams is NULL");
	if ((r = TCD_KNP_OP(nodeParams, "cuGraphAddKernelNode", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, op, "cuGraphAddKernelNode");
}
TCD_EXPORT(cuGraphAddKernelNode)

TCD_API(CUresult, cuGraphAddKernelNode_v2)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					   size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddKernelNode_v2);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphAddKernelNode_v2", "nodeParams is NULL");
	if ((r = TCD_KNP2_OP(nodeParams, "cuGraphAddKernelNode_v2", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, op, "cuGraphAddKernelNode_v2");
}
TCD_EXPORT(cuGraphAddKernelNode_v2)

/* ---- copies, memsets, empty and event nodes ---- */

TCD_API(CUresult, cuGraphAddMemcpyNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddMemcpyNode);
	(void)ctx;
	if ((r = tcd_copy3d_op(copyParams, "cuGraphAddMemcpyNode", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, op, "cuGraphAddMemcpyNode");
}
TCD_EXPORT(cuGraphAddMemcpyNode)

/* One memset op per row (rows pitch bytes apart). */
static CUresult tcd_memset_node_ops(CUdeviceptr dst, size_t pitch, unsigned value, unsigned elem, size_t width,
				    size_t height, const char *call, struct tcd_op **out)
{
	struct tcd_op *head = NULL, **tail = &head;

	if (elem != 1 && elem != 2 && elem != 4)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "elementSize %u is not 1, 2 or 4", elem);
	if (!width || !height)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the memset is empty (%zu x %zu)", width, height);
	if (height > 1 && pitch < width * elem)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pitch %zu is narrower than a row of %zu bytes", pitch,
				width * elem);
	for (size_t row = 0; row < height; row++) {
		struct tcd_op *op;
		CUresult r = tcd_memset_op((uintptr_t)dst + row * pitch, value, elem, width, call, &op);
		if (r != CUDA_SUCCESS) {
			tcd_ops_free(head);
			return r;
		}
		*tail = op;
		tail = &op->next;
	}
	*out = head;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuGraphAddMemsetNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	struct tcd_op *ops;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddMemsetNode);
	(void)ctx;
	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphAddMemsetNode", "memsetParams is NULL");
	if ((r = tcd_memset_node_ops(p->dst, p->pitch, p->value, p->elementSize, p->width, p->height,
				     "cuGraphAddMemsetNode", &ops)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, ops, "cuGraphAddMemsetNode");
}
TCD_EXPORT(cuGraphAddMemsetNode)

TCD_API(CUresult, cuGraphAddEmptyNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				       size_t numDependencies)
{
	TCD_ENTER_INIT(cuGraphAddEmptyNode);
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, NULL, "cuGraphAddEmptyNode");
}
TCD_EXPORT(cuGraphAddEmptyNode)

/* kind: TCD_OP_RECORD or TCD_OP_WAIT (resolved at each launch). */
static CUresult tcd_event_node_op(CUevent ev, enum tcd_op_kind kind, const char *call, struct tcd_op **out)
{
	struct tcd_event *e;
	struct tcd_op *op;
	CUresult r = tcd_obj_get(ev, TCD_KIND_EVENT, call, "event", &e);

	if (r != CUDA_SUCCESS)
		return r;
	op = tcd_op_new(kind);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	if (kind == TCD_OP_RECORD)
		op->u.record.event = e;
	else
		op->u.wait.event = e;
	*out = op;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuGraphAddEventRecordNode)(CUgraphNode *phGraphNode, CUgraph hGraph,
					     const CUgraphNode *dependencies, size_t numDependencies, CUevent event)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddEventRecordNode);
	if ((r = tcd_event_node_op(event, TCD_OP_RECORD, "cuGraphAddEventRecordNode", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, op, "cuGraphAddEventRecordNode");
}
TCD_EXPORT(cuGraphAddEventRecordNode)

TCD_API(CUresult, cuGraphAddEventWaitNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					   size_t numDependencies, CUevent event)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddEventWaitNode);
	if ((r = tcd_event_node_op(event, TCD_OP_WAIT, "cuGraphAddEventWaitNode", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, op, "cuGraphAddEventWaitNode");
}
TCD_EXPORT(cuGraphAddEventWaitNode)

/* ---- host nodes ---- */

/* The function runs on the stream's worker when the node's turn comes, as
 * the driver runs it at each launch (it must not call CUDA). */
static CUresult tcd_host_node_op(CUhostFn fn, void *user, const char *call, struct tcd_op **out)
{
	struct tcd_op *op;

	if (!fn)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the host node has no function");
	op = tcd_op_new(TCD_OP_HOST);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.host.fn = fn;
	op->u.host.user = user;
	*out = op;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuGraphAddHostNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				      size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	struct tcd_op *op = NULL;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddHostNode);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphAddHostNode", "nodeParams is NULL");
	if ((r = tcd_host_node_op(nodeParams->fn, nodeParams->userData, "cuGraphAddHostNode", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, op, "cuGraphAddHostNode");
}
TCD_EXPORT(cuGraphAddHostNode)

/* A host node runs another function (or with other data) from the next
 * instantiation on; execs made before keep theirs (the documentation:
 * parameters are copied into the node). */
TCD_API(CUresult, cuGraphHostNodeSetParams)(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	static const char call[] = "cuGraphHostNodeSetParams";
	struct tcd_gnode *n;
	struct tcd_op *op = NULL, *old = NULL;
	CUresult r;

	TCD_ENTER_INIT(cuGraphHostNodeSetParams);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "nodeParams is NULL");
	if ((r = tcd_host_node_op(nodeParams->fn, nodeParams->userData, call, &op)) != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hNode, TCD_KIND_GRAPH_NODE, call, "hNode", &n);
	if (r == CUDA_SUCCESS && (!n->ops || n->ops->kind != TCD_OP_HOST || n->ops->next))
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a host node", (void *)n);
	if (r == CUDA_SUCCESS) {
		old = n->ops;
		n->ops = op;
		op = NULL;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_op_free(old);
	tcd_op_free(op);
	return r;
}
TCD_EXPORT(cuGraphHostNodeSetParams)

/* ---- child graphs ---- */

static CUresult tcd_graph_clone(CUgraph *phGraphClone, CUgraph originalGraph, const char *call);

/* With the lock held: child's ops as one exec would run them, copied. */
static CUresult tcd_graph_flat_locked(const struct tcd_graph *child, const char *call, struct tcd_op **out)
{
	struct tcd_graph flat;
	CUresult r = CUDA_SUCCESS;

	memset(&flat, 0, sizeof(flat));
	flat.tail = &flat.ops;
	if (child->nnodes) {
		r = tcd_graph_nodes_instantiate_locked(child, &flat, call);
	} else {
		for (const struct tcd_op *t = child->ops; t && r == CUDA_SUCCESS; t = t->next) {
			struct tcd_op *op = tcd_op_clone(t);
			if (!op) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				break;
			}
			*flat.tail = op;
			flat.tail = &op->next;
		}
	}
	free(flat.nodes);
	free(flat.node_ops);
	if (r != CUDA_SUCCESS) {
		tcd_ops_free(flat.ops);
		return r;
	}
	*out = flat.ops;
	return CUDA_SUCCESS;
}

/* The child's ops as one exec would run them, copied (the driver copies
 * the child graph into the node). */
static CUresult tcd_child_ops(CUgraph hchild, const char *call, struct tcd_op **out)
{
	struct tcd_graph *child;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hchild, TCD_KIND_GRAPH, call, "childGraph", &child);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_moved_check_locked(child, call, "its use as another child graph node's child");
	if (r == CUDA_SUCCESS)
		r = tcd_graph_mem_forbids_locked(child, call, "its use in a child graph node without "
						 "CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE");
	if (r == CUDA_SUCCESS)
		r = tcd_graph_flat_locked(child, call, out);
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

/*
 * A child graph node that takes the child itself (cuGraphAddNode with
 * CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE): the only way, per the
 * documentation of CUDA_CHILD_GRAPH_NODE_PARAMS, to put a graph holding
 * memory allocation or free nodes into another.  The child is not
 * copied: the node embeds it (cuGraphChildGraphNodeGetGraph hands it
 * out), its memory keeps the addresses its allocation nodes returned,
 * and it goes when the parent goes.
 */
static CUresult tcd_child_move(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t ndeps, CUgraph hchild,
			       const char *call)
{
	struct tcd_graph *child;
	struct tcd_gnode *n;
	struct tcd_op *ops = NULL;
	CUresult r;

	if (hchild == hg)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "a graph cannot be its own child");
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hchild, TCD_KIND_GRAPH, call, "graph.graph", &child);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_moved_check_locked(child, call, "moving it again");
	if (r == CUDA_SUCCESS && child->count)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "graph %p was made by stream capture: the double moves "
			     "graphs made by cuGraphCreate only", (void *)child);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_flat_locked(child, call, &ops);
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS)
		return r;
	if ((r = tcd_graph_node_add(out, hg, deps, ndeps, ops, call)) != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(*out, TCD_KIND_GRAPH_NODE, call, "phGraphNode", &n);
	if (r == CUDA_SUCCESS && !tcd_obj_is_locked(child, TCD_KIND_GRAPH))
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "graph %p was destroyed while it was moved", (void *)child);
	if (r == CUDA_SUCCESS && child->owner)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "graph %p was moved elsewhere meanwhile", (void *)child);
	if (r == CUDA_SUCCESS) {
		n->embedded = child;
		child->owner = n;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

/* A child graph node just added (r: how that went): it keeps a copy of
 * the child as its embedded graph, which cuGraphChildGraphNodeGetGraph
 * hands out and instantiation reads (changes to it change the node, as
 * the driver documents). */
static CUresult tcd_child_embed(CUresult r, CUgraphNode hn, CUgraph hchild, const char *call)
{
	CUgraph emb = NULL;
	struct tcd_gnode *n;

	if (r != CUDA_SUCCESS)
		return r;
	if ((r = tcd_graph_clone(&emb, hchild, call)) != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hn, TCD_KIND_GRAPH_NODE, call, "phGraphNode", &n);
	if (r == CUDA_SUCCESS)
		n->embedded = (struct tcd_graph *)emb;
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuGraphChildGraphNodeGetGraph)(CUgraphNode hNode, CUgraph *phGraph)
{
	static const char call[] = "cuGraphChildGraphNodeGetGraph";
	struct tcd_gnode *n;
	CUresult r;

	TCD_ENTER_INIT(cuGraphChildGraphNodeGetGraph);
	if (!phGraph)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phGraph is NULL");
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hNode, TCD_KIND_GRAPH_NODE, call, "hNode", &n);
	if (r == CUDA_SUCCESS && !n->embedded)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a child graph node (a clone's copy of "
			     "one keeps no embedded graph in the double)", (void *)n);
	if (r == CUDA_SUCCESS)
		*phGraph = (CUgraph)n->embedded;
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphChildGraphNodeGetGraph)

TCD_API(CUresult, cuGraphAddChildGraphNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					    size_t numDependencies, CUgraph childGraph)
{
	struct tcd_op *ops;
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddChildGraphNode);
	if (childGraph == hGraph)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphAddChildGraphNode", "a graph cannot be its own child");
	if ((r = tcd_child_ops(childGraph, "cuGraphAddChildGraphNode", &ops)) != CUDA_SUCCESS)
		return r;
	r = tcd_graph_node_add(phGraphNode, hGraph, dependencies, numDependencies, ops, "cuGraphAddChildGraphNode");
	return tcd_child_embed(r, phGraphNode ? *phGraphNode : NULL, childGraph, "cuGraphAddChildGraphNode");
}
TCD_EXPORT(cuGraphAddChildGraphNode)

/* ---- graph memory ---- */

/*
 * A memory allocation node: pinned device memory, no handle types, on
 * the one device, as the documentation requires of the pool properties.
 * The double places it when the node is added, as cuMemAlloc memory is
 * placed (another address each run), and returns it in dptr; the address
 * stays the graph's while the graph lives (the driver documents that it
 * is fixed for the graph's lifetime).  The node runs nothing: the memory
 * is not made invalid outside the span between the allocation and free
 * nodes, and is not given back before the process ends.
 */
/* A graph moved into a child graph node takes no new memory nodes. */
static CUresult tcd_graph_moved_mem_check(CUgraph hg, const char *call)
{
	struct tcd_graph *g;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_moved_check_locked(g, call, "new memory allocation or free nodes in it");
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

static CUresult tcd_alloc_node(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
			       const CUmemPoolProps *props, const CUmemAccessDesc *access, size_t naccess,
			       size_t bytesize, CUdeviceptr *dptr, const char *call)
{
	struct tcd_gnode *n;
	uintptr_t mem;
	CUresult r;

	if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "poolProps.allocType must be CU_MEM_ALLOCATION_TYPE_PINNED");
	if (props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->location.id != 0)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "poolProps.location must be device 0, the double's one device");
	if (props->handleTypes)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "poolProps.handleTypes must be CU_MEM_HANDLE_TYPE_NONE");
	/* access descriptors (peer access, as documented): devices the double
	 * has, with documented flags; every device reads all memory here, so
	 * they change nothing else */
	if (naccess && !access)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "accessDescs is NULL with %zu of them", naccess);
	if (naccess > (size_t)tcd_g.devices)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%zu access descriptors for %d devices", naccess,
				tcd_g.devices);
	for (size_t i = 0; i < naccess; i++) {
		if (access[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || access[i].location.id < 0 ||
		    access[i].location.id >= tcd_g.devices)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "access descriptor %zu names no device of the double",
					i);
		if (access[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && access[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
		    access[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "access descriptor %zu has flags %d", i,
					(int)access[i].flags);
	}
	if (!bytesize)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "bytesize is 0");
	if ((r = tcd_graph_moved_mem_check(hg, call)) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_graph_mem_alloc(&mem, bytesize, call)) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_graph_node_add(out, hg, deps, ndeps, NULL, call)) != CUDA_SUCCESS)
		return r; /* the memory stays placed, as a failed driver call may leave its pool */
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(*out, TCD_KIND_GRAPH_NODE, call, "phGraphNode", &n)) == CUDA_SUCCESS)
		n->graph_mem = mem;
	pthread_mutex_unlock(&tcd_g.lock);
	if (r == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)mem;
	return r;
}

/* A memory free node: dptr must be what an allocation node of the same
 * graph returned and no other free node of it frees (the driver also
 * takes another graph's allocation; the double does not). */
static CUresult tcd_free_node(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
			      CUdeviceptr dptr, const char *call)
{
	struct tcd_graph *g;
	struct tcd_gnode *n;
	bool allocated = false, freed = false;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_moved_check_locked(g, call, "new memory allocation or free nodes in it");
	for (size_t i = 0; r == CUDA_SUCCESS && i < g->nnodes; i++)
		if (g->nodes[i]->graph_mem == (uintptr_t)dptr) {
			freed |= g->nodes[i]->frees;
			allocated |= !g->nodes[i]->frees;
		}
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS)
		return r;
	if (!allocated)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dptr 0x%llx was not allocated by a memory allocation "
				"node of this graph", (unsigned long long)dptr);
	if (freed)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dptr 0x%llx is already freed by a node of this graph",
				(unsigned long long)dptr);
	if ((r = tcd_graph_node_add(out, hg, deps, ndeps, NULL, call)) != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(*out, TCD_KIND_GRAPH_NODE, call, "phGraphNode", &n)) == CUDA_SUCCESS) {
		n->graph_mem = (uintptr_t)dptr;
		n->frees = true;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuGraphAddMemAllocNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					  size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	TCD_ENTER_INIT(cuGraphAddMemAllocNode);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphAddMemAllocNode", "nodeParams is NULL");
	return tcd_alloc_node(phGraphNode, hGraph, dependencies, numDependencies, &nodeParams->poolProps,
			      nodeParams->accessDescs, nodeParams->accessDescCount, nodeParams->bytesize, &nodeParams->dptr,
			      "cuGraphAddMemAllocNode");
}
TCD_EXPORT(cuGraphAddMemAllocNode)

TCD_API(CUresult, cuGraphAddMemFreeNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					 size_t numDependencies, CUdeviceptr dptr)
{
	TCD_ENTER_INIT(cuGraphAddMemFreeNode);
	return tcd_free_node(phGraphNode, hGraph, dependencies, numDependencies, dptr, "cuGraphAddMemFreeNode");
}
TCD_EXPORT(cuGraphAddMemFreeNode)

/* ---- batch memory-op nodes ---- */

/*
 * A batch memory-op node (cuGraphAddBatchMemOpNode): its operations run in
 * order when the node's turn comes.  A 32-bit write is a memset of one
 * 32-bit word, a 64-bit write two (its low word first: nothing runs
 * between them here), each an atomic store with release order; a wait
 * polls its word with acquire loads until the condition holds
 * (TCD_OP_WAIT_VALUE, tcd_sched.c); a flush of remote writes or a
 * memory barrier runs nothing (the double's memory is one coherent host
 * memory).  Addresses must be reachable memory, aligned to the operation's
 * size.  Not measured: this follows the driver API documentation of
 * cuStreamBatchMemOp and CUDA_BATCH_MEM_OP_NODE_PARAMS.
 */
static CUresult tcd_memop_ops(const CUstreamBatchMemOpParams *v, unsigned n, const char *call, struct tcd_op **out)
{
	struct tcd_op *head = NULL, **tail = &head;
	CUresult r = CUDA_SUCCESS;

	*out = NULL;
	if (!n || !v)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "count is %u and paramArray %p: no operation", n,
				(const void *)v);
	for (unsigned i = 0; r == CUDA_SUCCESS && i < n; i++) {
		const CUstreamBatchMemOpParams *o = &v[i];
		struct tcd_op *op = NULL, *hi = NULL;
		unsigned wide;

		switch (o->operation) {
		case CU_STREAM_MEM_OP_WRITE_VALUE_32:
		case CU_STREAM_MEM_OP_WRITE_VALUE_64:
			wide = o->operation == CU_STREAM_MEM_OP_WRITE_VALUE_64;
			if (o->writeValue.flags & ~(unsigned)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) {
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: write flags 0x%x", i,
					     o->writeValue.flags);
				break;
			}
			if (wide && o->writeValue.address % 8) {
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: address 0x%llx is not aligned to "
					     "8 bytes", i, (unsigned long long)o->writeValue.address);
				break;
			}
			r = tcd_memset_op((uintptr_t)o->writeValue.address,
					  wide ? (uint32_t)o->writeValue.value64 : o->writeValue.value, 4, 1, call, &op);
			if (r == CUDA_SUCCESS && wide)
				r = tcd_memset_op((uintptr_t)o->writeValue.address + 4,
						  (uint32_t)(o->writeValue.value64 >> 32), 4, 1, call, &hi);
			break;
		case CU_STREAM_MEM_OP_WAIT_VALUE_32:
		case CU_STREAM_MEM_OP_WAIT_VALUE_64:
			wide = o->operation == CU_STREAM_MEM_OP_WAIT_VALUE_64;
			if ((o->waitValue.flags & ~(unsigned)CU_STREAM_WAIT_VALUE_FLUSH) > CU_STREAM_WAIT_VALUE_NOR) {
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: wait flags 0x%x", i,
					     o->waitValue.flags);
				break;
			}
			if (o->waitValue.address % (wide ? 8 : 4)) {
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: address 0x%llx is not aligned to "
					     "%u bytes", i, (unsigned long long)o->waitValue.address, wide ? 8 : 4);
				break;
			}
			if ((r = tcd_range_check((uintptr_t)o->waitValue.address, wide ? 8 : 4, call,
						 "waitValue.address")) != CUDA_SUCCESS)
				break;
			if (!(op = tcd_op_new(TCD_OP_WAIT_VALUE))) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				break;
			}
			op->u.waitval.addr = (uintptr_t)o->waitValue.address;
			op->u.waitval.value = wide ? o->waitValue.value64 : o->waitValue.value;
			op->u.waitval.flags = o->waitValue.flags;
			op->u.waitval.wide = wide;
			break;
		case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
			if (o->flushRemoteWrites.flags)
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: flush flags 0x%x, not 0", i,
					     o->flushRemoteWrites.flags);
			break;
		case CU_STREAM_MEM_OP_BARRIER:
			if (o->memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_SYS &&
			    o->memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_GPU)
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: barrier flags 0x%x", i,
					     o->memoryBarrier.flags);
			break;
		default:
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u: type %d is not a batch memory "
				     "operation", i, (int)o->operation);
			break;
		}
		if (op) {
			op->next = hi;
			*tail = op;
			tail = hi ? &hi->next : &op->next;
		} else {
			tcd_op_free(hi);
		}
	}
	if (r != CUDA_SUCCESS) {
		tcd_ops_free(head);
		return r;
	}
	*out = head;
	return CUDA_SUCCESS;
}

/* The node's own copy of the operations (owned by the caller). */
static CUresult tcd_memop_copy(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p, const char *call, CUstreamBatchMemOpParams **out)
{
	*out = malloc(p->count * sizeof(**out));
	if (!*out)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	memcpy(*out, p->paramArray, p->count * sizeof(**out));
	return CUDA_SUCCESS;
}

_Static_assert(sizeof(CUDA_BATCH_MEM_OP_NODE_PARAMS_v2) == sizeof(CUDA_BATCH_MEM_OP_NODE_PARAMS) &&
		       offsetof(CUDA_BATCH_MEM_OP_NODE_PARAMS_v2, flags) == offsetof(CUDA_BATCH_MEM_OP_NODE_PARAMS, flags),
	       "cuGraphAddNode's batch memory-op parameters are laid out as cuGraphAddBatchMemOpNode's");

static CUresult tcd_memop_node(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
			       const CUDA_BATCH_MEM_OP_NODE_PARAMS *p, const char *call)
{
	CUstreamBatchMemOpParams *copy = NULL;
	struct tcd_op *ops = NULL;
	struct tcd_gnode *n;
	CUresult r;

	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "nodeParams is NULL");
	if (p->flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "flags 0x%x: the double knows no node flags", p->flags);
	if ((r = tcd_memop_ops(p->paramArray, p->count, call, &ops)) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_memop_copy(p, call, &copy)) != CUDA_SUCCESS) {
		tcd_ops_free(ops);
		return r;
	}
	if ((r = tcd_graph_node_add(out, hg, deps, ndeps, ops, call)) != CUDA_SUCCESS) {
		free(copy);
		return r;
	}
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(*out, TCD_KIND_GRAPH_NODE, call, "phGraphNode", &n)) == CUDA_SUCCESS) {
		n->memops = copy;
		n->nmemops = p->count;
		copy = NULL;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	free(copy);
	return r;
}

TCD_API(CUresult, cuGraphAddBatchMemOpNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					    size_t numDependencies, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
	TCD_ENTER_INIT(cuGraphAddBatchMemOpNode);
	return tcd_memop_node(phGraphNode, hGraph, dependencies, numDependencies, nodeParams, "cuGraphAddBatchMemOpNode");
}
TCD_EXPORT(cuGraphAddBatchMemOpNode)

/* The graph's node takes new operations (any), from its next
 * instantiation on. */
static CUresult tcd_memop_node_set(CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams, const char *call)
{
	CUstreamBatchMemOpParams *copy = NULL;
	struct tcd_op *ops = NULL, *old = NULL;
	struct tcd_gnode *n;
	CUresult r;

	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "nodeParams is NULL");
	if (nodeParams->flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "flags 0x%x: the double knows no node flags",
				nodeParams->flags);
	if ((r = tcd_memop_ops(nodeParams->paramArray, nodeParams->count, call, &ops)) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_memop_copy(nodeParams, call, &copy)) != CUDA_SUCCESS) {
		tcd_ops_free(ops);
		return r;
	}
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hNode, TCD_KIND_GRAPH_NODE, call, "hNode", &n);
	if (r == CUDA_SUCCESS && !n->memops)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a batch memory-op node", (void *)n);
	if (r == CUDA_SUCCESS) {
		old = n->ops;
		n->ops = ops;
		ops = NULL;
		free(n->memops);
		n->memops = copy;
		n->nmemops = nodeParams->count;
		copy = NULL;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_ops_free(old);
	tcd_ops_free(ops);
	free(copy);
	return r;
}

TCD_API(CUresult, cuGraphBatchMemOpNodeSetParams)(CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
	TCD_ENTER_INIT(cuGraphBatchMemOpNodeSetParams);
	return tcd_memop_node_set(hNode, nodeParams, "cuGraphBatchMemOpNodeSetParams");
}
TCD_EXPORT(cuGraphBatchMemOpNodeSetParams)

/* An exec's copy of the node: as documented, only the addresses, values
 * and a wait's condition may change (not the count, the kinds, a wait's
 * flush bit, a barrier or flush); its ops are changed in place, from the
 * next launch on. */
static CUresult tcd_memop_exec_set(CUgraphExec hGraphExec, CUgraphNode hNode,
				   const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams, const char *call)
{
	struct tcd_op *ops = NULL;
	struct tcd_graph *x;
	struct tcd_gnode *n;
	CUresult r;

	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "nodeParams is NULL");
	if ((r = tcd_memop_ops(nodeParams->paramArray, nodeParams->count, call, &ops)) != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(hGraphExec, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x)) == CUDA_SUCCESS &&
	    (r = tcd_obj_get_locked(hNode, TCD_KIND_GRAPH_NODE, call, "hNode", &n)) == CUDA_SUCCESS && !n->memops)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a batch memory-op node", (void *)n);
	if (r == CUDA_SUCCESS && nodeParams->count != n->nmemops)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "%u operations, the node has %u", nodeParams->count,
			     n->nmemops);
	for (unsigned i = 0; r == CUDA_SUCCESS && i < n->nmemops; i++) {
		const CUstreamBatchMemOpParams *a = &n->memops[i], *b = &nodeParams->paramArray[i];
		if (a->operation != b->operation)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u changes its type", i);
		else if ((a->operation == CU_STREAM_MEM_OP_WAIT_VALUE_32 || a->operation == CU_STREAM_MEM_OP_WAIT_VALUE_64) &&
			 ((a->waitValue.flags ^ b->waitValue.flags) & (unsigned)CU_STREAM_WAIT_VALUE_FLUSH))
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u changes its flush flag", i);
		else if (a->operation == CU_STREAM_MEM_OP_BARRIER && a->memoryBarrier.flags != b->memoryBarrier.flags)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "operation %u changes a barrier", i);
	}
	if (r == CUDA_SUCCESS) {
		size_t i;
		struct tcd_op *t, *o = ops;
		for (i = 0; i < x->nnodes && x->nodes[i] != n; i++)
			;
		if (i == x->nnodes) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not in graph exec %p", (void *)n, (void *)x);
		} else {
			/* the same kinds make the same ops, one for one */
			for (t = x->node_ops[i]; t && o; t = t->next, o = o->next)
				t->u = o->u;
		}
	}
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_ops_free(ops);
	return r;
}

TCD_API(CUresult, cuGraphExecBatchMemOpNodeSetParams)(CUgraphExec hGraphExec, CUgraphNode hNode,
						      const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
	TCD_ENTER_INIT(cuGraphExecBatchMemOpNodeSetParams);
	return tcd_memop_exec_set(hGraphExec, hNode, nodeParams, "cuGraphExecBatchMemOpNodeSetParams");
}
TCD_EXPORT(cuGraphExecBatchMemOpNodeSetParams)

/* ---- stream memory operations ---- */

/*
 * cuStreamBatchMemOp and the single calls (cuStreamWriteValue32/64,
 * cuStreamWaitValue32/64, each in its legacy, _v2 and per-thread forms):
 * the operations are checked and made into ops exactly as a batch
 * memory-op node's (tcd_memop_ops), then queued on the stream in order,
 * so a wait blocks the work after it on its stream until its condition
 * holds, with the same 10 s bound.  The legacy forms behave as _v2 (the
 * double has no device attribute gating them).  Not measured: the driver
 * API documentation of these calls (flags of the batch call reserved,
 * 0).  A batch whose queueing fails part-way (a destroyed stream, a
 * broken context) has queued the operations before it.
 */
static CUresult tcd_stream_memops(CUstream h, bool pt, const CUstreamBatchMemOpParams *v, unsigned n, unsigned flags,
				  const char *call)
{
	struct tcd_stream *s;
	struct tcd_op *ops = NULL;
	CUresult r;

	if (flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "flags 0x%x: reserved, must be 0", flags);
	if ((r = tcd_stream_resolve(h, pt, call, &s)) != CUDA_SUCCESS)
		return r;
	if ((r = tcd_memop_ops(v, n, call, &ops)) != CUDA_SUCCESS)
		return r;
	while (ops && r == CUDA_SUCCESS) {
		struct tcd_op *op = ops;

		ops = op->next;
		op->next = NULL;
		r = tcd_enqueue(s, op, call, NULL);
	}
	tcd_ops_free(ops);
	return r;
}

static CUresult tcd_stream_memop_one(CUstream h, bool pt, CUstreamBatchMemOpType type, CUdeviceptr addr,
				     uint64_t value, unsigned flags, const char *call)
{
	CUstreamBatchMemOpParams o;

	memset(&o, 0, sizeof(o));
	o.operation = type;
	if (type == CU_STREAM_MEM_OP_WAIT_VALUE_32 || type == CU_STREAM_MEM_OP_WAIT_VALUE_64) {
		o.waitValue.address = addr;
		o.waitValue.value64 = type == CU_STREAM_MEM_OP_WAIT_VALUE_64 ? value : (uint32_t)value;
		o.waitValue.flags = flags;
	} else {
		o.writeValue.address = addr;
		o.writeValue.value64 = type == CU_STREAM_MEM_OP_WRITE_VALUE_64 ? value : (uint32_t)value;
		o.writeValue.flags = flags;
	}
	return tcd_stream_memops(h, pt, &o, 1, 0, call);
}

#define TCD_STREAM_MEMOP(sym, T, type, pt)                                                              \
	TCD_API(CUresult, sym)(CUstream stream, CUdeviceptr addr, T value, unsigned int flags)        \
	{                                                                                               \
		TCD_ENTER_INIT(sym);                                                                    \
		return tcd_stream_memop_one(stream, pt, type, addr, (uint64_t)value, flags, #sym);      \
	}                                                                                               \
	TCD_EXPORT(sym)

TCD_STREAM_MEMOP(cuStreamWriteValue32, cuuint32_t, CU_STREAM_MEM_OP_WRITE_VALUE_32, false)
TCD_STREAM_MEMOP(cuStreamWriteValue32_ptsz, cuuint32_t, CU_STREAM_MEM_OP_WRITE_VALUE_32, true)
TCD_STREAM_MEMOP(cuStreamWriteValue32_v2, cuuint32_t, CU_STREAM_MEM_OP_WRITE_VALUE_32, false)
TCD_STREAM_MEMOP(cuStreamWriteValue32_v2_ptsz, cuuint32_t, CU_STREAM_MEM_OP_WRITE_VALUE_32, true)
TCD_STREAM_MEMOP(cuStreamWriteValue64, cuuint64_t, CU_STREAM_MEM_OP_WRITE_VALUE_64, false)
TCD_STREAM_MEMOP(cuStreamWriteValue64_ptsz, cuuint64_t, CU_STREAM_MEM_OP_WRITE_VALUE_64, true)
TCD_STREAM_MEMOP(cuStreamWriteValue64_v2, cuuint64_t, CU_STREAM_MEM_OP_WRITE_VALUE_64, false)
TCD_STREAM_MEMOP(cuStreamWriteValue64_v2_ptsz, cuuint64_t, CU_STREAM_MEM_OP_WRITE_VALUE_64, true)
TCD_STREAM_MEMOP(cuStreamWaitValue32, cuuint32_t, CU_STREAM_MEM_OP_WAIT_VALUE_32, false)
TCD_STREAM_MEMOP(cuStreamWaitValue32_ptsz, cuuint32_t, CU_STREAM_MEM_OP_WAIT_VALUE_32, true)
TCD_STREAM_MEMOP(cuStreamWaitValue32_v2, cuuint32_t, CU_STREAM_MEM_OP_WAIT_VALUE_32, false)
TCD_STREAM_MEMOP(cuStreamWaitValue32_v2_ptsz, cuuint32_t, CU_STREAM_MEM_OP_WAIT_VALUE_32, true)
TCD_STREAM_MEMOP(cuStreamWaitValue64, cuuint64_t, CU_STREAM_MEM_OP_WAIT_VALUE_64, false)
TCD_STREAM_MEMOP(cuStreamWaitValue64_ptsz, cuuint64_t, CU_STREAM_MEM_OP_WAIT_VALUE_64, true)
TCD_STREAM_MEMOP(cuStreamWaitValue64_v2, cuuint64_t, CU_STREAM_MEM_OP_WAIT_VALUE_64, false)
TCD_STREAM_MEMOP(cuStreamWaitValue64_v2_ptsz, cuuint64_t, CU_STREAM_MEM_OP_WAIT_VALUE_64, true)

#define TCD_STREAM_BATCH(sym, pt)                                                                     \
	TCD_API(CUresult, sym)(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, \
			       unsigned int flags)                                                     \
	{                                                                                             \
		TCD_ENTER_INIT(sym);                                                                  \
		return tcd_stream_memops(stream, pt, paramArray, count, flags, #sym);                 \
	}                                                                                             \
	TCD_EXPORT(sym)

TCD_STREAM_BATCH(cuStreamBatchMemOp, false)
TCD_STREAM_BATCH(cuStreamBatchMemOp_ptsz, true)
TCD_STREAM_BATCH(cuStreamBatchMemOp_v2, false)
TCD_STREAM_BATCH(cuStreamBatchMemOp_v2_ptsz, true)

/* ---- the generic form ---- */

static CUresult tcd_edges_plain(const CUgraphEdgeData *edges, size_t n, const char *call)
{
	static const CUgraphEdgeData plain;

	for (size_t i = 0; edges && i < n; i++)
		if (memcmp(&edges[i], &plain, sizeof(plain)) != 0)
			return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call,
					"edge data %zu is not the default: the double has no programmatic edges", i);
	return CUDA_SUCCESS;
}

static CUresult tcd_add_node(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, const CUgraphEdgeData *edges,
			     size_t ndeps, CUgraphNodeParams *p, const char *call)
{
	struct tcd_op *ops = NULL;
	CUresult r;

	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "nodeParams is NULL");
	if ((r = tcd_edges_plain(edges, ndeps, call)) != CUDA_SUCCESS)
		return r;
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		r = TCD_KNP2_OP(&p->kernel, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		r = tcd_copy3d_op(&p->memcpy.copyParams, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_MEMSET:
		r = tcd_memset_node_ops(p->memset.dst, p->memset.pitch, p->memset.value, p->memset.elementSize,
					p->memset.width, p->memset.height, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_EMPTY:
		break;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		r = tcd_event_node_op(p->eventRecord.event, TCD_OP_RECORD, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		r = tcd_event_node_op(p->eventWait.event, TCD_OP_WAIT, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_GRAPH:
		if (p->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
			return tcd_child_move(out, hg, deps, ndeps, p->graph.graph, call);
		if (p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
			return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "graph.ownership %d is neither "
					"CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE nor _MOVE", (int)p->graph.ownership);
		r = tcd_child_ops(p->graph.graph, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_HOST:
		r = tcd_host_node_op(p->host.fn, p->host.userData, call, &ops);
		break;
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
		return tcd_alloc_node(out, hg, deps, ndeps, &p->alloc.poolProps, p->alloc.accessDescs, p->alloc.accessDescCount,
				      p->alloc.bytesize, &p->alloc.dptr, call);
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		return tcd_free_node(out, hg, deps, ndeps, p->free.dptr, call);
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		return tcd_memop_node(out, hg, deps, ndeps, (const CUDA_BATCH_MEM_OP_NODE_PARAMS *)&p->memOp, call);
	default:
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "node type %d is not modelled by the double",
				(int)p->type);
	}
	if (r != CUDA_SUCCESS)
		return r;
	r = tcd_graph_node_add(out, hg, deps, ndeps, ops, call);
	return p->type == CU_GRAPH_NODE_TYPE_GRAPH ? tcd_child_embed(r, out ? *out : NULL, p->graph.graph, call) : r;
}

TCD_API(CUresult, cuGraphAddNode)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				  size_t numDependencies, CUgraphNodeParams *nodeParams)
{
	TCD_ENTER_INIT(cuGraphAddNode);
	return tcd_add_node(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams, "cuGraphAddNode");
}
TCD_EXPORT(cuGraphAddNode)

TCD_API(CUresult, cuGraphAddNode_v2)(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				     const CUgraphEdgeData *dependencyData, size_t numDependencies,
				     CUgraphNodeParams *nodeParams)
{
	TCD_ENTER_INIT(cuGraphAddNode_v2);
	return tcd_add_node(phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams,
			    "cuGraphAddNode_v2");
}
TCD_EXPORT(cuGraphAddNode_v2)

/* ---- edges ---- */

static CUresult tcd_add_edges(CUgraph hg, const CUgraphNode *from, const CUgraphNode *to, size_t n, const char *call)
{
	struct tcd_graph *g;
	CUresult r;

	if (n && (!from || !to))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "from or to is NULL with %zu dependencies", n);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g);
	/* Checked whole before any edge is added. */
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		struct tcd_gnode *a, *b;
		if ((r = tcd_obj_get_locked(from[i], TCD_KIND_GRAPH_NODE, call, "from[i]", &a)) != CUDA_SUCCESS ||
		    (r = tcd_obj_get_locked(to[i], TCD_KIND_GRAPH_NODE, call, "to[i]", &b)) != CUDA_SUCCESS)
			break;
		if (a->graph != g || b->graph != g)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "edge %zu joins a node of another graph", i);
		else if (a == b)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "edge %zu joins a node to itself", i);
		for (size_t j = 0; r == CUDA_SUCCESS && j < b->ndeps; j++)
			if (b->deps[j] == a)
				r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "edge %zu already exists", i);
	}
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		struct tcd_gnode *a = (struct tcd_gnode *)from[i], *b = (struct tcd_gnode *)to[i];
		struct tcd_gnode **grown = realloc(b->deps, (b->ndeps + 1) * sizeof(*grown));
		if (!grown) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			break;
		}
		b->deps = grown;
		b->deps[b->ndeps++] = a;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuGraphAddDependencies)(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
					  size_t numDependencies)
{
	TCD_ENTER_INIT(cuGraphAddDependencies);
	return tcd_add_edges(hGraph, from, to, numDependencies, "cuGraphAddDependencies");
}
TCD_EXPORT(cuGraphAddDependencies)

TCD_API(CUresult, cuGraphAddDependencies_v2)(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
					     const CUgraphEdgeData *edgeData, size_t numDependencies)
{
	CUresult r;

	TCD_ENTER_INIT(cuGraphAddDependencies_v2);
	if ((r = tcd_edges_plain(edgeData, numDependencies, "cuGraphAddDependencies_v2")) != CUDA_SUCCESS)
		return r;
	return tcd_add_edges(hGraph, from, to, numDependencies, "cuGraphAddDependencies_v2");
}
TCD_EXPORT(cuGraphAddDependencies_v2)

/* Edges removed: every one must exist (checked whole first). */
static CUresult tcd_remove_edges(CUgraph hg, const CUgraphNode *from, const CUgraphNode *to, size_t n,
				 const char *call)
{
	struct tcd_graph *g;
	CUresult r;

	if (n && (!from || !to))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "from or to is NULL with %zu dependencies", n);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g);
	if (r == CUDA_SUCCESS && n)
		r = tcd_graph_mem_forbids_locked(g, call, "deleting its edges");
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		struct tcd_gnode *a, *b;
		size_t j;
		if ((r = tcd_obj_get_locked(from[i], TCD_KIND_GRAPH_NODE, call, "from[i]", &a)) != CUDA_SUCCESS ||
		    (r = tcd_obj_get_locked(to[i], TCD_KIND_GRAPH_NODE, call, "to[i]", &b)) != CUDA_SUCCESS)
			break;
		for (j = 0; j < b->ndeps && b->deps[j] != a; j++)
			;
		if (a->graph != g || b->graph != g || j == b->ndeps)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "edge %zu is not an edge of graph %p", i, (void *)g);
	}
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		struct tcd_gnode *a = (struct tcd_gnode *)from[i], *b = (struct tcd_gnode *)to[i];
		size_t j;
		for (j = 0; j < b->ndeps && b->deps[j] != a; j++)
			;
		if (j < b->ndeps) /* (a repeated edge was removed already) */
			b->deps[j] = b->deps[--b->ndeps];
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuGraphRemoveDependencies)(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
					     size_t numDependencies)
{
	TCD_ENTER_INIT(cuGraphRemoveDependencies);
	return tcd_remove_edges(hGraph, from, to, numDependencies, "cuGraphRemoveDependencies");
}
TCD_EXPORT(cuGraphRemoveDependencies)

TCD_API(CUresult, cuGraphRemoveDependencies_v2)(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
						const CUgraphEdgeData *edgeData, size_t numDependencies)
{
	CUresult r;

	TCD_ENTER_INIT(cuGraphRemoveDependencies_v2);
	if ((r = tcd_edges_plain(edgeData, numDependencies, "cuGraphRemoveDependencies_v2")) != CUDA_SUCCESS)
		return r;
	return tcd_remove_edges(hGraph, from, to, numDependencies, "cuGraphRemoveDependencies_v2");
}
TCD_EXPORT(cuGraphRemoveDependencies_v2)

/* The node goes, with the edges to and from it; execs made from its graph
 * keep their copy. */
TCD_API(CUresult, cuGraphDestroyNode)(CUgraphNode hNode)
{
	struct tcd_gnode *n;
	struct tcd_graph *g;
	struct tcd_op *ops = NULL;
	CUresult r;

	TCD_ENTER_INIT(cuGraphDestroyNode);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hNode, TCD_KIND_GRAPH_NODE, "cuGraphDestroyNode", "hNode", &n);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_mem_forbids_locked(n->graph, "cuGraphDestroyNode", "deleting its nodes");
	if (r == CUDA_SUCCESS) {
		g = n->graph;
		for (size_t i = n->index + 1; i < g->nnodes; i++) {
			g->nodes[i - 1] = g->nodes[i];
			g->nodes[i - 1]->index = i - 1;
		}
		g->nnodes--;
		for (size_t i = 0; i < g->nnodes; i++) {
			struct tcd_gnode *m = g->nodes[i];
			for (size_t j = 0; j < m->ndeps;)
				if (m->deps[j] == n)
					m->deps[j] = m->deps[--m->ndeps];
				else
					j++;
		}
		ops = n->ops;
		n->ops = NULL;
		free(n->deps);
		n->deps = NULL;
		n->ndeps = 0;
		tcd_obj_kill(n);
	}
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_ops_free(ops);
	return r;
}
TCD_EXPORT(cuGraphDestroyNode)

/* ---- event node setters ---- */

/* Event node n (of graph: exec hx NULL, or its copy in exec hx) records
 * (kind TCD_OP_RECORD) or waits for (TCD_OP_WAIT) another event from the
 * next launch on. */
static CUresult tcd_event_node_set(CUgraphExec hx, CUgraphNode hn, CUevent event, enum tcd_op_kind kind,
				   const char *call)
{
	struct tcd_graph *x = NULL;
	struct tcd_gnode *n;
	struct tcd_event *e;
	struct tcd_op *op = NULL;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	if ((!hx || (r = tcd_obj_get_locked(hx, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x)) == CUDA_SUCCESS) &&
	    (r = tcd_obj_get_locked(hn, TCD_KIND_GRAPH_NODE, call, "hNode", &n)) == CUDA_SUCCESS &&
	    (r = tcd_obj_get_locked(event, TCD_KIND_EVENT, call, "event", &e)) == CUDA_SUCCESS) {
		if (!x) {
			op = n->ops;
		} else {
			size_t i;
			for (i = 0; i < x->nnodes && x->nodes[i] != n; i++)
				;
			op = i < x->nnodes ? x->node_ops[i] : NULL;
		}
		if (!op || op->kind != kind)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not an event %s node%s", (void *)n,
				     kind == TCD_OP_RECORD ? "record" : "wait", x ? " of the exec" : "");
		else if (kind == TCD_OP_RECORD)
			op->u.record.event = e;
		else
			op->u.wait.event = e;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuGraphExecEventRecordNodeSetEvent)(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
	TCD_ENTER_INIT(cuGraphExecEventRecordNodeSetEvent);
	if (!hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecEventRecordNodeSetEvent", "hGraphExec is NULL");
	return tcd_event_node_set(hGraphExec, hNode, event, TCD_OP_RECORD, "cuGraphExecEventRecordNodeSetEvent");
}
TCD_EXPORT(cuGraphExecEventRecordNodeSetEvent)

TCD_API(CUresult, cuGraphExecEventWaitNodeSetEvent)(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
	TCD_ENTER_INIT(cuGraphExecEventWaitNodeSetEvent);
	if (!hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecEventWaitNodeSetEvent", "hGraphExec is NULL");
	return tcd_event_node_set(hGraphExec, hNode, event, TCD_OP_WAIT, "cuGraphExecEventWaitNodeSetEvent");
}
TCD_EXPORT(cuGraphExecEventWaitNodeSetEvent)

TCD_API(CUresult, cuGraphEventRecordNodeSetEvent)(CUgraphNode hNode, CUevent event)
{
	TCD_ENTER_INIT(cuGraphEventRecordNodeSetEvent);
	return tcd_event_node_set(NULL, hNode, event, TCD_OP_RECORD, "cuGraphEventRecordNodeSetEvent");
}
TCD_EXPORT(cuGraphEventRecordNodeSetEvent)

TCD_API(CUresult, cuGraphEventWaitNodeSetEvent)(CUgraphNode hNode, CUevent event)
{
	TCD_ENTER_INIT(cuGraphEventWaitNodeSetEvent);
	return tcd_event_node_set(NULL, hNode, event, TCD_OP_WAIT, "cuGraphEventWaitNodeSetEvent");
}
TCD_EXPORT(cuGraphEventWaitNodeSetEvent)

/* ---- memcpy and memset node setters ---- */

/* The node's ops (graph: hx NULL) or its ops in exec hx replaced by ops
 * (owned, also on failure), after checking the node is of that kind; an
 * exec's node must stay one-dimensional (one row), as the driver
 * documents for cuGraphExecMemcpyNodeSetParams and
 * cuGraphExecMemsetNodeSetParams, and a copy's sides keep their memory
 * types: the driver documents it, and on the H100 refused a host source
 * changed to a device one with CUDA_ERROR_INVALID_VALUE
 * (test_gpu_graph_nodes.sh). */
static CUresult tcd_node_ops_set(CUgraphExec hx, CUgraphNode hn, struct tcd_op *ops, enum tcd_op_kind kind,
				 const char *call)
{
	struct tcd_graph *x = NULL;
	struct tcd_gnode *n;
	struct tcd_op *old = NULL;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(hn, TCD_KIND_GRAPH_NODE, call, "hNode", &n)) == CUDA_SUCCESS &&
	    (!n->ops || n->ops->kind != kind))
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a %s node", (void *)n,
			     kind == TCD_OP_COPY ? "memcpy" : "memset");
	if (r == CUDA_SUCCESS && hx)
		r = tcd_obj_get_locked(hx, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x);
	if (r == CUDA_SUCCESS && !x) {
		old = n->ops;
		n->ops = ops;
		ops = NULL;
	} else if (r == CUDA_SUCCESS) {
		struct tcd_op **link, *first, *end, *last;
		size_t i, j, nold = 0, nnew = 0;
		for (i = 0; i < x->nnodes && x->nodes[i] != n; i++)
			;
		if (i == x->nnodes || !x->node_ops[i]) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not in graph exec %p", (void *)n,
				     (void *)x);
			goto out_unlock;
		}
		first = x->node_ops[i];
		for (j = i + 1; j < x->nnodes && !x->node_ops[j]; j++)
			;
		end = j < x->nnodes ? x->node_ops[j] : NULL;
		for (const struct tcd_op *t = first; t != end; t = t->next)
			nold++;
		for (last = ops; last; last = last->next) {
			nnew++;
			if (!last->next)
				break;
		}
		if (nold != 1 || nnew != 1 || (kind == TCD_OP_COPY && (first->u.copy.height != 1 ||
								       (first->u.copy.depth > 1) ||
								       ops->u.copy.height != 1 || ops->u.copy.depth > 1))) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the node's operands, at instantiation and now, "
				     "must be one-dimensional");
			goto out_unlock;
		}
		if (kind == TCD_OP_COPY && (first->u.copy.src_host != ops->u.copy.src_host ||
					    first->u.copy.dst_host != ops->u.copy.dst_host)) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the node's source and destination must keep "
				     "their memory types (host or device)");
			goto out_unlock;
		}
		for (link = &x->ops; *link != first; link = &(*link)->next)
			;
		*link = ops;
		last->next = end;
		if (!end)
			x->tail = &last->next;
		first->next = NULL;
		old = first;
		ops->disabled = first->disabled;
		x->node_ops[i] = ops;
		ops = NULL;
	}
out_unlock:
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_ops_free(old);
	tcd_ops_free(ops);
	return r;
}

TCD_API(CUresult, cuGraphMemcpyNodeSetParams)(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphMemcpyNodeSetParams);
	if ((r = tcd_copy3d_op(nodeParams, "cuGraphMemcpyNodeSetParams", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_node_ops_set(NULL, hNode, op, TCD_OP_COPY, "cuGraphMemcpyNodeSetParams");
}
TCD_EXPORT(cuGraphMemcpyNodeSetParams)

TCD_API(CUresult, cuGraphExecMemcpyNodeSetParams)(CUgraphExec hGraphExec, CUgraphNode hNode,
						  const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphExecMemcpyNodeSetParams);
	(void)ctx;
	if (!hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecMemcpyNodeSetParams", "hGraphExec is NULL");
	if ((r = tcd_copy3d_op(copyParams, "cuGraphExecMemcpyNodeSetParams", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_node_ops_set(hGraphExec, hNode, op, TCD_OP_COPY, "cuGraphExecMemcpyNodeSetParams");
}
TCD_EXPORT(cuGraphExecMemcpyNodeSetParams)

TCD_API(CUresult, cuGraphMemsetNodeSetParams)(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *p)
{
	struct tcd_op *ops;
	CUresult r;

	TCD_ENTER_INIT(cuGraphMemsetNodeSetParams);
	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphMemsetNodeSetParams", "nodeParams is NULL");
	if ((r = tcd_memset_node_ops(p->dst, p->pitch, p->value, p->elementSize, p->width, p->height,
				     "cuGraphMemsetNodeSetParams", &ops)) != CUDA_SUCCESS)
		return r;
	return tcd_node_ops_set(NULL, hNode, ops, TCD_OP_MEMSET, "cuGraphMemsetNodeSetParams");
}
TCD_EXPORT(cuGraphMemsetNodeSetParams)

TCD_API(CUresult, cuGraphExecMemsetNodeSetParams)(CUgraphExec hGraphExec, CUgraphNode hNode,
						  const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
	struct tcd_op *ops;
	CUresult r;

	TCD_ENTER_INIT(cuGraphExecMemsetNodeSetParams);
	(void)ctx;
	if (!p || !hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecMemsetNodeSetParams",
				"memsetParams or hGraphExec is NULL");
	if ((r = tcd_memset_node_ops(p->dst, p->pitch, p->value, p->elementSize, p->width, p->height,
				     "cuGraphExecMemsetNodeSetParams", &ops)) != CUDA_SUCCESS)
		return r;
	return tcd_node_ops_set(hGraphExec, hNode, ops, TCD_OP_MEMSET, "cuGraphExecMemsetNodeSetParams");
}
TCD_EXPORT(cuGraphExecMemsetNodeSetParams)

TCD_API(CUresult, cuStreamBeginCaptureToGraph)(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
					       const CUgraphEdgeData *dependencyData, size_t numDependencies,
					       CUstreamCaptureMode mode)
{
	static const char call[] = "cuStreamBeginCaptureToGraph";
	struct tcd_graph *g;
	CUresult r;

	TCD_ENTER_INIT(cuStreamBeginCaptureToGraph);
	if ((r = tcd_edges_plain(dependencyData, numDependencies, call)) != CUDA_SUCCESS ||
	    (r = tcd_obj_get(hGraph, TCD_KIND_GRAPH, call, "hGraph", &g)) != CUDA_SUCCESS)
		return r;
	return tcd_capture_begin(hStream, mode, false, g, dependencies, numDependencies, call);
}
TCD_EXPORT(cuStreamBeginCaptureToGraph)

TCD_API(CUresult, cuStreamBeginCaptureToGraph_ptsz)(CUstream hStream, CUgraph hGraph,
						    const CUgraphNode *dependencies,
						    const CUgraphEdgeData *dependencyData, size_t numDependencies,
						    CUstreamCaptureMode mode)
{
	static const char call[] = "cuStreamBeginCaptureToGraph_ptsz";
	struct tcd_graph *g;
	CUresult r;

	TCD_ENTER_INIT(cuStreamBeginCaptureToGraph_ptsz);
	if ((r = tcd_edges_plain(dependencyData, numDependencies, call)) != CUDA_SUCCESS ||
	    (r = tcd_obj_get(hGraph, TCD_KIND_GRAPH, call, "hGraph", &g)) != CUDA_SUCCESS)
		return r;
	return tcd_capture_begin(hStream, mode, true, g, dependencies, numDependencies, call);
}
TCD_EXPORT(cuStreamBeginCaptureToGraph_ptsz)

/* ---- instantiation ---- */

CUresult tcd_graph_nodes_instantiate_locked(const struct tcd_graph *g, struct tcd_graph *x, const char *call)
{
	size_t n = g->nnodes, done = 0;
	unsigned char *placed = calloc(n ? n : 1, 1);
	struct tcd_op *emb;
	CUresult r = CUDA_SUCCESS;

	x->nodes = calloc(n ? n : 1, sizeof(*x->nodes));
	x->node_ops = calloc(n ? n : 1, sizeof(*x->node_ops));
	if (!placed || !x->nodes || !x->node_ops) {
		free(placed);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	}
	/* Kahn's order, taking the first ready node in creation order each time. */
	while (done < n && r == CUDA_SUCCESS) {
		size_t i;
		for (i = 0; i < n; i++) {
			const struct tcd_gnode *nd = g->nodes[i];
			size_t j;
			if (placed[i])
				continue;
			for (j = 0; j < nd->ndeps && placed[nd->deps[j]->index]; j++)
				;
			if (j == nd->ndeps)
				break;
		}
		if (i == n) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the graph's dependencies make a cycle");
			break;
		}
		placed[i] = 1;
		x->nodes[x->nnodes] = g->nodes[i];
		emb = NULL;
		if (g->nodes[i]->embedded && (r = tcd_graph_flat_locked(g->nodes[i]->embedded, call, &emb)) != CUDA_SUCCESS)
			break;
		for (const struct tcd_op *t = g->nodes[i]->embedded ? emb : g->nodes[i]->ops; t; t = t->next) {
			struct tcd_op *op = tcd_op_clone(t);
			if (!op) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				break;
			}
			if (!x->node_ops[x->nnodes])
				x->node_ops[x->nnodes] = op;
			op->next = NULL;
			*x->tail = op;
			x->tail = &op->next;
			x->count++;
		}
		tcd_ops_free(emb);
		x->nnodes++;
		done++;
	}
	free(placed);
	return r;
}

/* ---- kernel node parameters ---- */

/* Replaces the kernel op of node hn (in graph: exec NULL) or of its copy
 * in exec hx by op (owned, also on failure). */
static CUresult tcd_kernel_node_set(CUgraphExec hx, CUgraphNode hn, struct tcd_op *op, const char *call)
{
	struct tcd_gnode *n;
	struct tcd_graph *x = NULL;
	struct tcd_op *old = NULL;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hn, TCD_KIND_GRAPH_NODE, call, "hNode", &n);
	if (r == CUDA_SUCCESS && (!n->ops || n->ops->kind != TCD_OP_KERNEL || n->ops->next))
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a kernel node", (void *)n);
	if (r == CUDA_SUCCESS && hx)
		r = tcd_obj_get_locked(hx, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x);
	if (r == CUDA_SUCCESS && !x) {
		old = n->ops;
		n->ops = op;
		op = NULL;
	} else if (r == CUDA_SUCCESS) {
		size_t i;
		for (i = 0; i < x->nnodes && x->nodes[i] != n; i++)
			;
		if (i == x->nnodes) {
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not in graph exec %p", (void *)n,
				     (void *)x);
		} else {
			/* The exec's op is its own copy: its parameters and shape change in place. */
			struct tcd_op *t = x->node_ops[i];
			unsigned char *params = t->u.kernel.params;
			t->u.kernel = op->u.kernel;
			op->u.kernel.params = params;
		}
	}
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_op_free(old);
	tcd_op_free(op);
	return r;
}

TCD_API(CUresult, cuGraphKernelNodeSetParams)(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphKernelNodeSetParams);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphKernelNodeSetParams", "nodeParams is NULL");
	if ((r = TCD_KNP_OP(nodeParams, "cuGraphKernelNodeSetParams", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_kernel_node_set(NULL, hNode, op, "cuGraphKernelNodeSetParams");
}
TCD_EXPORT(cuGraphKernelNodeSetParams)

TCD_API(CUresult, cuGraphKernelNodeSetParams_v2)(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphKernelNodeSetParams_v2);
	if (!nodeParams)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphKernelNodeSetParams_v2", "nodeParams is NULL");
	if ((r = TCD_KNP2_OP(nodeParams, "cuGraphKernelNodeSetParams_v2", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_kernel_node_set(NULL, hNode, op, "cuGraphKernelNodeSetParams_v2");
}
TCD_EXPORT(cuGraphKernelNodeSetParams_v2)

/*
 * Kernel node attributes (CUkernelNodeAttrID, the launch attribute ids):
 * the double takes the priority, the access policy window, the memory
 * synchronization domain and the preferred shared memory carveout, each
 * stored on the node as set, the priority clamped to the range streams
 * take (-5 .. 0), as measured on the H100 (a node given priority 1 reads
 * back 0, one given -2 and copied to another -2 there;
 * cuda_graph_nodes --node-attr, docs/gpu-validation.md, eleventh
 * session) (none changes what
 * the double runs: it runs
 * one op at a time, with no priorities, L2 or domains, as none of them
 * changes a result on the driver); cuGraphKernelNodeGetAttribute answers
 * the value last set, or zeros for one never set (not measured),
 * cuGraphKernelNodeCopyAttributes copies the source node's set over the
 * destination's (both kernel nodes, as documented), and a clone's node
 * keeps its original's.  Other attributes are CUDA_ERROR_NOT_SUPPORTED.
 */
static bool tcd_node_attr_taken(CUkernelNodeAttrID attr)
{
	return attr == CU_KERNEL_NODE_ATTRIBUTE_PRIORITY || attr == CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW ||
	       attr == CU_KERNEL_NODE_ATTRIBUTE_MEM_SYNC_DOMAIN ||
	       attr == CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
}

/* With the lock held: hNode as a kernel node. */
static CUresult tcd_kernel_node_get_locked(CUgraphNode hn, const char *call, const char *what, struct tcd_gnode **out)
{
	struct tcd_gnode *n;
	CUresult r = tcd_obj_get_locked(hn, TCD_KIND_GRAPH_NODE, call, what, &n);
	if (r == CUDA_SUCCESS && (!n->ops || n->ops->kind != TCD_OP_KERNEL || n->ops->next))
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a kernel node", (void *)n);
	if (r == CUDA_SUCCESS)
		*out = n;
	return r;
}

TCD_API(CUresult, cuGraphKernelNodeSetAttribute)(CUgraphNode hNode, CUkernelNodeAttrID attr,
						 const CUkernelNodeAttrValue *value)
{
	static const char call[] = "cuGraphKernelNodeSetAttribute";
	struct tcd_gnode *n;
	unsigned i;
	CUresult r;

	TCD_ENTER_INIT(cuGraphKernelNodeSetAttribute);
	if (!value)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "value is NULL");
	if (!tcd_node_attr_taken(attr))
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "attribute %d: the double takes the priority, the "
				"access policy window, the memory synchronization domain and the shared memory carveout",
				(int)attr);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_kernel_node_get_locked(hNode, call, "hNode", &n);
	for (i = 0; r == CUDA_SUCCESS && i < n->nattrs && n->attrs[i].id != (CUlaunchAttributeID)attr; i++)
		;
	if (r == CUDA_SUCCESS) {
		if (i == n->nattrs) /* one slot per attribute taken: always room */
			n->nattrs++;
		n->attrs[i].id = (CUlaunchAttributeID)attr;
		memcpy(&n->attrs[i].value, value, sizeof(n->attrs[i].value));
		if (attr == CU_KERNEL_NODE_ATTRIBUTE_PRIORITY) /* clamped as a stream's */
			n->attrs[i].value.priority = tcd_clamp_priority(value->priority);
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphKernelNodeSetAttribute)

TCD_API(CUresult, cuGraphKernelNodeGetAttribute)(CUgraphNode hNode, CUkernelNodeAttrID attr,
						 CUkernelNodeAttrValue *value_out)
{
	static const char call[] = "cuGraphKernelNodeGetAttribute";
	struct tcd_gnode *n;
	CUresult r;

	TCD_ENTER_INIT(cuGraphKernelNodeGetAttribute);
	if (!value_out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "value_out is NULL");
	if (!tcd_node_attr_taken(attr))
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "attribute %d is not one the double takes", (int)attr);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_kernel_node_get_locked(hNode, call, "hNode", &n);
	if (r == CUDA_SUCCESS) {
		memset(value_out, 0, sizeof(*value_out));
		for (unsigned i = 0; i < n->nattrs; i++)
			if (n->attrs[i].id == (CUlaunchAttributeID)attr)
				memcpy(value_out, &n->attrs[i].value, sizeof(*value_out));
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphKernelNodeGetAttribute)

TCD_API(CUresult, cuGraphKernelNodeCopyAttributes)(CUgraphNode dst, CUgraphNode src)
{
	static const char call[] = "cuGraphKernelNodeCopyAttributes";
	struct tcd_gnode *d, *sn;
	CUresult r;

	TCD_ENTER_INIT(cuGraphKernelNodeCopyAttributes);
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_kernel_node_get_locked(dst, call, "dst", &d)) == CUDA_SUCCESS &&
	    (r = tcd_kernel_node_get_locked(src, call, "src", &sn)) == CUDA_SUCCESS && d != sn) {
		memcpy(d->attrs, sn->attrs, sizeof(d->attrs));
		d->nattrs = sn->nattrs;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphKernelNodeCopyAttributes)

TCD_API(CUresult, cuGraphExecKernelNodeSetParams)(CUgraphExec hGraphExec, CUgraphNode hNode,
						  const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphExecKernelNodeSetParams);
	if (!nodeParams || !hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecKernelNodeSetParams",
				"nodeParams or hGraphExec is NULL");
	if ((r = TCD_KNP_OP(nodeParams, "cuGraphExecKernelNodeSetParams", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_kernel_node_set(hGraphExec, hNode, op, "cuGraphExecKernelNodeSetParams");
}
TCD_EXPORT(cuGraphExecKernelNodeSetParams)

TCD_API(CUresult, cuGraphExecKernelNodeSetParams_v2)(CUgraphExec hGraphExec, CUgraphNode hNode,
						     const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct tcd_op *op;
	CUresult r;

	TCD_ENTER_INIT(cuGraphExecKernelNodeSetParams_v2);
	if (!nodeParams || !hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecKernelNodeSetParams_v2",
				"nodeParams or hGraphExec is NULL");
	if ((r = TCD_KNP2_OP(nodeParams, "cuGraphExecKernelNodeSetParams_v2", &op)) != CUDA_SUCCESS)
		return r;
	return tcd_kernel_node_set(hGraphExec, hNode, op, "cuGraphExecKernelNodeSetParams_v2");
}
TCD_EXPORT(cuGraphExecKernelNodeSetParams_v2)

/* ---- clones ---- */

/* A copy of every node (ops, edges) of a graph built node by node, or of
 * a captured graph's ops; each node of the clone remembers the node it
 * copies, for cuGraphNodeFindInClone.  Later changes to either graph do
 * not reach the other, as the driver documents. */
static CUresult tcd_graph_clone(CUgraph *phGraphClone, CUgraph originalGraph, const char *call)
{
	struct tcd_graph *g, *c = NULL;
	struct tcd_gnode **made = NULL;
	size_t n = 0;
	CUresult r = CUDA_SUCCESS;

	if (!phGraphClone)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phGraphClone is NULL");
	/* the objects are made first (tcd_obj_new takes the lock) */
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(originalGraph, TCD_KIND_GRAPH, call, "originalGraph", &g);
	if (r == CUDA_SUCCESS)
		n = g->nnodes;
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS)
		return r;
	c = tcd_obj_new(sizeof(*c), TCD_KIND_GRAPH);
	made = calloc(n ? n : 1, sizeof(*made));
	if (c && made && n && !(c->nodes = calloc(n, sizeof(*c->nodes))))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; c && made && r == CUDA_SUCCESS && i < n; i++)
		if (!(made[i] = tcd_obj_new(sizeof(*made[i]), TCD_KIND_GRAPH_NODE)))
			r = CUDA_ERROR_OUT_OF_MEMORY;
	if (!c || !made || r != CUDA_SUCCESS) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		goto out_fail;
	}
	c->tail = &c->ops;
	c->cap_nodes = n;
	pthread_mutex_lock(&tcd_g.lock);
	if (!tcd_obj_is_locked(g, TCD_KIND_GRAPH) || g->nnodes != n)
		r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "graph %p changed while it was cloned", (void *)g);
	else
		r = tcd_graph_mem_forbids_locked(g, call, "cloning it");
	for (const struct tcd_op *t = g->ops; r == CUDA_SUCCESS && t; t = t->next) {
		struct tcd_op *op = tcd_op_clone(t);
		if (!op) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			break;
		}
		*c->tail = op;
		c->tail = &op->next;
		c->count++;
	}
	for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
		const struct tcd_gnode *o = g->nodes[i];
		struct tcd_gnode *d = made[i];
		struct tcd_op **tail = &d->ops;
		d->graph = c;
		d->index = i;
		d->origin = g->nodes[i];
		memcpy(d->attrs, o->attrs, sizeof(d->attrs));
		d->nattrs = o->nattrs;
		if (o->nmemops) {
			if (!(d->memops = malloc(o->nmemops * sizeof(*d->memops)))) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				break;
			}
			memcpy(d->memops, o->memops, o->nmemops * sizeof(*d->memops));
			d->nmemops = o->nmemops;
		}
		if (o->ndeps && !(d->deps = calloc(o->ndeps, sizeof(*d->deps)))) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			break;
		}
		d->ndeps = o->ndeps;
		for (size_t j = 0; j < o->ndeps; j++)
			d->deps[j] = made[o->deps[j]->index];
		if (o->embedded) { /* the embedded graph as it is now, flattened */
			if ((r = tcd_graph_flat_locked(o->embedded, call, &d->ops)) != CUDA_SUCCESS)
				break;
			c->nodes[i] = d;
			c->nnodes = i + 1;
			continue;
		}
		for (const struct tcd_op *t = o->ops; t; t = t->next) {
			struct tcd_op *op = tcd_op_clone(t);
			if (!op) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				break;
			}
			*tail = op;
			tail = &op->next;
		}
		c->nodes[i] = d;
		c->nnodes = i + 1;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS)
		goto out_fail;
	free(made);
	*phGraphClone = (CUgraph)c;
	return CUDA_SUCCESS;
out_fail:
	for (size_t i = 0; made && i < n; i++)
		if (made[i]) {
			tcd_ops_free(made[i]->ops);
			made[i]->ops = NULL;
			free(made[i]->deps);
			made[i]->deps = NULL;
			tcd_obj_kill(made[i]);
		}
	free(made);
	if (c) {
		tcd_ops_free(c->ops);
		c->ops = NULL;
		free(c->nodes);
		c->nodes = NULL;
		c->nnodes = 0;
		tcd_obj_kill(c);
	}
	return r;
}

TCD_API(CUresult, cuGraphClone)(CUgraph *phGraphClone, CUgraph originalGraph)
{
	TCD_ENTER_INIT(cuGraphClone);
	return tcd_graph_clone(phGraphClone, originalGraph, "cuGraphClone");
}
TCD_EXPORT(cuGraphClone)

TCD_API(CUresult, cuGraphNodeFindInClone)(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph)
{
	static const char call[] = "cuGraphNodeFindInClone";
	struct tcd_graph *c;
	struct tcd_gnode *o;
	CUresult r;
	size_t i = 0;

	TCD_ENTER_INIT(cuGraphNodeFindInClone);
	if (!phNode)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phNode is NULL");
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(hClonedGraph, TCD_KIND_GRAPH, call, "hClonedGraph", &c)) == CUDA_SUCCESS &&
	    (r = tcd_obj_get_locked(hOriginalNode, TCD_KIND_GRAPH_NODE, call, "hOriginalNode", &o)) == CUDA_SUCCESS) {
		for (i = 0; i < c->nnodes && c->nodes[i]->origin != o; i++)
			;
		if (i == c->nnodes)
			r = tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p has no copy in graph %p (not its clone?)",
				     (void *)o, (void *)c);
		else
			*phNode = (CUgraphNode)c->nodes[i];
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphNodeFindInClone)

/* ---- enabled nodes of an exec ---- */

/* With the lock held: the ops of node hn in exec hx (first, and the op
 * after its last), checked to be a kernel, memset or memcpy node as the
 * driver documents for the enable calls. */
static CUresult tcd_exec_node_ops_locked(CUgraphExec hx, CUgraphNode hn, const char *call, struct tcd_op **first,
					 struct tcd_op **end)
{
	struct tcd_graph *x;
	struct tcd_gnode *n;
	CUresult r;
	size_t i, j;

	if ((r = tcd_obj_get_locked(hx, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x)) != CUDA_SUCCESS ||
	    (r = tcd_obj_get_locked(hn, TCD_KIND_GRAPH_NODE, call, "hNode", &n)) != CUDA_SUCCESS)
		return r;
	for (i = 0; i < x->nnodes && x->nodes[i] != n; i++)
		;
	if (i == x->nnodes)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not in graph exec %p", (void *)n, (void *)x);
	if (!x->node_ops[i] || (x->node_ops[i]->kind != TCD_OP_KERNEL && x->node_ops[i]->kind != TCD_OP_COPY &&
				x->node_ops[i]->kind != TCD_OP_MEMSET))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "node %p is not a kernel, memset or memcpy node: only "
				"those can be disabled", (void *)n);
	for (j = i + 1; j < x->nnodes && !x->node_ops[j]; j++)
		;
	*first = x->node_ops[i];
	*end = j < x->nnodes ? x->node_ops[j] : NULL;
	return CUDA_SUCCESS;
}

/* Disabled, a node runs as an empty node from the next launch on. */
TCD_API(CUresult, cuGraphNodeSetEnabled)(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled)
{
	struct tcd_op *first, *end;
	CUresult r;

	TCD_ENTER_INIT(cuGraphNodeSetEnabled);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_exec_node_ops_locked(hGraphExec, hNode, "cuGraphNodeSetEnabled", &first, &end);
	for (struct tcd_op *t = first; r == CUDA_SUCCESS && t != end; t = t->next)
		__atomic_store_n(&t->disabled, !isEnabled, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphNodeSetEnabled)

TCD_API(CUresult, cuGraphNodeGetEnabled)(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled)
{
	struct tcd_op *first, *end;
	CUresult r;

	TCD_ENTER_INIT(cuGraphNodeGetEnabled);
	if (!isEnabled)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphNodeGetEnabled", "isEnabled is NULL");
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_exec_node_ops_locked(hGraphExec, hNode, "cuGraphNodeGetEnabled", &first, &end);
	if (r == CUDA_SUCCESS)
		*isEnabled = !first->disabled;
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuGraphNodeGetEnabled)

/* ---- exec updates ---- */

/* The exec's position of the graph node made rank-th among the exec's
 * nodes (their creation order in the graph it was made from). */
static size_t tcd_exec_rank(const struct tcd_graph *x, size_t pos)
{
	size_t r = 0;

	for (size_t j = 0; j < x->nnodes; j++)
		if (x->nodes[j]->index < x->nodes[pos]->index)
			r++;
	return r;
}

static size_t tcd_ops_count(const struct tcd_op *op, const struct tcd_op *end)
{
	size_t n = 0;

	for (; op != end; op = op->next)
		n++;
	return n;
}

/* The exec's nodes take the parameters of graph g's nodes, paired in
 * creation order, as the driver documents: the same number of nodes, of
 * the same kinds, with the same edges, or nothing changes and *res says
 * why (CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE).  An enabled or disabled
 * node stays so.  (The exec's edges are compared as its original graph's
 * nodes have them now.) */
static CUresult tcd_exec_update(CUgraphExec hx, CUgraph hg, CUgraphExecUpdateResult *res, CUgraphNode *err,
				const char *call)
{
	struct tcd_graph *x, *g;
	struct tcd_op *ops = NULL, **tail = &ops, **firsts = NULL, *old = NULL;
	size_t *rank = NULL, n = 0, count = 0;
	CUresult r;

	*res = CU_GRAPH_EXEC_UPDATE_ERROR;
	*err = NULL;
	pthread_mutex_lock(&tcd_g.lock);
	if ((r = tcd_obj_get_locked(hx, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x)) != CUDA_SUCCESS ||
	    (r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g)) != CUDA_SUCCESS ||
	    (r = tcd_graph_moved_check_locked(g, call, "updating an exec from it")) != CUDA_SUCCESS)
		goto out_unlock;
	n = x->nnodes;
	if (!n || g->nnodes != n) {
		*res = !n ? CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
		r = tcd_fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, call, "graph %p has %zu nodes, exec %p %zu%s",
			     (void *)g, g->nnodes, (void *)x, n, n ? "" : " (made by stream capture?)");
		goto out_unlock;
	}
	rank = calloc(n, sizeof(*rank));
	firsts = calloc(n, sizeof(*firsts));
	if (!rank || !firsts) {
		r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		goto out_unlock;
	}
	for (size_t k = 0; k < n; k++)
		rank[k] = tcd_exec_rank(x, k);
	for (size_t k = 0; r == CUDA_SUCCESS && k < n; k++) {
		const struct tcd_gnode *on = x->nodes[k], *nn = g->nodes[rank[k]];
		const struct tcd_op *end = NULL;
		size_t j;
		for (j = k + 1; j < n && !x->node_ops[j]; j++)
			;
		end = j < n ? x->node_ops[j] : NULL;
		if ((!x->node_ops[k]) != (!nn->ops) ||
		    (nn->ops && (x->node_ops[k]->kind != nn->ops->kind ||
				 tcd_ops_count(x->node_ops[k], end) != tcd_ops_count(nn->ops, NULL)))) {
			*res = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
			*err = (CUgraphNode)nn;
			r = tcd_fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, call, "node %p is not of its pair's kind",
				     (void *)nn);
			break;
		}
		if (on->ndeps != nn->ndeps) {
			*res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
			*err = (CUgraphNode)nn;
			r = tcd_fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, call, "node %p has other edges", (void *)nn);
			break;
		}
		for (size_t d = 0; r == CUDA_SUCCESS && d < on->ndeps; d++) {
			size_t p, e;
			for (p = 0; p < n && x->nodes[p] != on->deps[d]; p++)
				;
			for (e = 0; p < n && e < nn->ndeps && nn->deps[e]->index != rank[p]; e++)
				;
			if (p == n || e == nn->ndeps) {
				*res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
				*err = (CUgraphNode)nn;
				r = tcd_fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, call, "node %p has other edges",
					     (void *)nn);
			}
		}
	}
	/* the new ops, in the exec's order */
	for (size_t k = 0; r == CUDA_SUCCESS && k < n; k++) {
		bool off = x->node_ops[k] && x->node_ops[k]->disabled;
		for (const struct tcd_op *t = g->nodes[rank[k]]->ops; t; t = t->next) {
			struct tcd_op *op = tcd_op_clone(t);
			if (!op) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				break;
			}
			op->disabled = off;
			if (!firsts[k])
				firsts[k] = op;
			*tail = op;
			tail = &op->next;
			count++;
		}
	}
	if (r == CUDA_SUCCESS) {
		old = x->ops;
		x->ops = ops;
		x->tail = tail;
		x->count = count;
		memcpy(x->node_ops, firsts, n * sizeof(*firsts));
		ops = NULL;
		*res = CU_GRAPH_EXEC_UPDATE_SUCCESS;
	}
out_unlock:
	pthread_mutex_unlock(&tcd_g.lock);
	tcd_ops_free(old);
	tcd_ops_free(ops);
	free(rank);
	free(firsts);
	return r;
}

TCD_API(CUresult, cuGraphExecUpdate)(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
				     CUgraphExecUpdateResult *updateResult_out)
{
	CUgraphExecUpdateResult res;
	CUgraphNode err;
	CUresult r;

	TCD_ENTER_INIT(cuGraphExecUpdate);
	if (!hErrorNode_out || !updateResult_out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecUpdate", "hErrorNode_out or updateResult_out is NULL");
	r = tcd_exec_update(hGraphExec, hGraph, &res, &err, "cuGraphExecUpdate");
	*hErrorNode_out = err;
	*updateResult_out = res;
	return r;
}
TCD_EXPORT(cuGraphExecUpdate)

TCD_API(CUresult, cuGraphExecUpdate_v2)(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{
	CUgraphExecUpdateResult res;
	CUgraphNode err;
	CUresult r;

	TCD_ENTER_INIT(cuGraphExecUpdate_v2);
	if (!resultInfo)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecUpdate_v2", "resultInfo is NULL");
	r = tcd_exec_update(hGraphExec, hGraph, &res, &err, "cuGraphExecUpdate_v2");
	resultInfo->result = res;
	resultInfo->errorNode = err;
	resultInfo->errorFromNode = NULL;
	return r;
}
TCD_EXPORT(cuGraphExecUpdate_v2)

/* ---- the generic setters ---- */

/* A node of a kind the double models gets the type's own parameters
 * (hx NULL: the graph's node; else its copy in exec hx). */
static CUresult tcd_node_set_generic(CUgraphExec hx, CUgraphNode hn, CUgraphNodeParams *p, const char *call)
{
	struct tcd_op *ops = NULL;
	CUresult r;

	if (!p)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "nodeParams is NULL");
	switch (p->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		if ((r = TCD_KNP2_OP(&p->kernel, call, &ops)) != CUDA_SUCCESS)
			return r;
		return tcd_kernel_node_set(hx, hn, ops, call);
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		if ((r = tcd_copy3d_op(&p->memcpy.copyParams, call, &ops)) != CUDA_SUCCESS)
			return r;
		return tcd_node_ops_set(hx, hn, ops, TCD_OP_COPY, call);
	case CU_GRAPH_NODE_TYPE_MEMSET:
		if ((r = tcd_memset_node_ops(p->memset.dst, p->memset.pitch, p->memset.value, p->memset.elementSize,
					     p->memset.width, p->memset.height, call, &ops)) != CUDA_SUCCESS)
			return r;
		return tcd_node_ops_set(hx, hn, ops, TCD_OP_MEMSET, call);
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		return tcd_event_node_set(hx, hn, p->eventRecord.event, TCD_OP_RECORD, call);
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		return tcd_event_node_set(hx, hn, p->eventWait.event, TCD_OP_WAIT, call);
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		return hx ? tcd_memop_exec_set(hx, hn, (const CUDA_BATCH_MEM_OP_NODE_PARAMS *)&p->memOp, call)
			  : tcd_memop_node_set(hn, (const CUDA_BATCH_MEM_OP_NODE_PARAMS *)&p->memOp, call);
	default:
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call, "node type %d is not modelled by the double's setters",
				(int)p->type);
	}
}

TCD_API(CUresult, cuGraphNodeSetParams)(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
	TCD_ENTER_INIT(cuGraphNodeSetParams);
	return tcd_node_set_generic(NULL, hNode, nodeParams, "cuGraphNodeSetParams");
}
TCD_EXPORT(cuGraphNodeSetParams)

TCD_API(CUresult, cuGraphExecNodeSetParams)(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
	TCD_ENTER_INIT(cuGraphExecNodeSetParams);
	if (!hGraphExec)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphExecNodeSetParams", "hGraphExec is NULL");
	return tcd_node_set_generic(hGraphExec, hNode, nodeParams, "cuGraphExecNodeSetParams");
}
TCD_EXPORT(cuGraphExecNodeSetParams)
