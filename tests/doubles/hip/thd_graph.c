/*
 * thd_graph.c - graphs built node by node on the double, as ROCm 5.2's
 * clr builds them (hip_graph.cpp): hipGraphCreate, hipGraphAddKernelNode,
 * hipGraphAddMemcpyNode, hipGraphAddMemcpyNode1D, hipGraphAddMemsetNode,
 * hipGraphAddEmptyNode, hipGraphAddChildGraphNode, hipGraphAddDependencies,
 * hipGraphKernelNodeSetParams, hipGraphDestroyNode,
 * hipGraphRemoveDependencies, hipGraphInstantiateWithFlags, the exec
 * setters and hipGraphExecUpdate (hipGraphInstantiate, launch and the
 * destroys: thd_core.c, shared with stream capture).  Answering a ROCm 6
 * version (thd_runtime_version), hipGraphExecUpdate, the order an exec
 * keeps at instantiation and hipGraphDestroyNode's in-degrees follow clr
 * 6.0-6.2 instead (hipGraphExecUpdate below).
 *
 * A node is the work its call would queue, made by that call on a stream
 * of the node's own that captures into a graph of its own (so a kernel
 * node's arguments are packed, and a copy node's rows cut, exactly as a
 * launch or copy on a capturing stream does), kept with its dependencies.
 * What is checked follows clr, in its order:
 *   - every add: a null out pointer or graph, or dependencies counted but
 *     not given: hipErrorInvalidValue; a dependency that is not a node of
 *     this graph: hipErrorInvalidValue;
 *   - kernel: null parameters, function or kernelParams:
 *     hipErrorInvalidValue (clr 5.2 takes no kernel node by `extra`); the
 *     function a registered host stub, else a hipFunction_t of
 *     hipModuleGetFunction (clr's getFunc), else
 *     hipErrorInvalidDeviceFunction;
 *   - memset: null parameters, height 0 or an element size other than 1,
 *     2 or 4: hipErrorInvalidValue; height 1 fills width elements of the
 *     element size; a taller one is filled as clr 5.2's node does it
 *     (ihipMemset3DCommand given the element size where the value goes:
 *     width bytes of each of height rows, pitch apart, set to the element
 *     size);
 *   - hipGraphCreate: flags other than 0: hipErrorInvalidValue;
 *   - hipGraphAddDependencies: a null graph, or from / to null with a
 *     count: hipErrorInvalidValue; count 0: hipSuccess; a pair naming a
 *     node of another graph, the same node twice, or an edge already
 *     there: hipErrorInvalidValue;
 *   - hipGraphInstantiateWithFlags: flags other than 0 and
 *     hipGraphInstantiateFlagAutoFreeOnLaunch: hipErrorInvalidValue.
 * Instantiation orders the nodes so that each runs after its
 * dependencies (Kahn's order, ties by the order they were added); a
 * cycle is hipErrorInvalidValue.
 */
#include "tests/doubles/hip/thd.h"

#include <stdlib.h>
#include <string.h>

typedef hipError_t (*thd_build_fn)(const void *, hipStream_t);

struct hipGraphNode {
	uint32_t magic;
	thd_build_fn build;         /* what made its work: its kind (NULL: empty, child) */
	struct ihipGraph *graph;
	size_t index;               /* in graph->gnodes */
	thd_node *items;            /* its work (owned; kernarg bytes too) */
	size_t nitems;
	struct hipGraphNode **deps; /* owned array */
	size_t ndeps;
	/* clr 5.2's bookkeeping for ihipGraph::LevelOrder (hipGraphExecUpdate):
	 * the nodes after it in the order the edges were made, its in-degree
	 * and level as clr keeps them (thd_gedge, thd_gunedge, destroy) */
	struct hipGraphNode **edges; /* owned array */
	size_t nedges;
	size_t indeg;
	uint32_t level;
	/* clr 6's in-degree (Graph::TopologicalOrder), which hipGraphDestroyNode
	 * changes otherwise (thd_gdestroy6), and its copy kind
	 * (GraphMemcpyNode::GetMemcpyKind: hipMemcpyDefault for a 3D copy; -1:
	 * not a copy) */
	size_t indeg6;
	int mkind;
};

/* to after from: its level at least from's + 1, and so on along its
 * edges (clr recurses the same way). */
static void thd_gedge_raise(const struct hipGraphNode *from, struct hipGraphNode *to)
{
	if (to->level >= from->level + 1)
		return;
	to->level = from->level + 1;
	for (size_t i = 0; i < to->nedges; i++)
		thd_gedge_raise(to, to->edges[i]);
}

/* clr's hipGraphNode::AddEdge: from -> to; to's level raised and passed on
 * along its edges (UpdateEdgeLevel; each step only raises one, so a node
 * already high enough ends the walk there).  hipErrorOutOfMemory or
 * hipSuccess. */
static hipError_t thd_gedge(struct hipGraphNode *from, struct hipGraphNode *to)
{
	struct hipGraphNode **e = realloc(from->edges, (from->nedges + 1) * sizeof(*e));

	if (!e)
		return hipErrorOutOfMemory;
	from->edges = e;
	e[from->nedges++] = to;
	to->indeg++;
	to->indeg6++;
	thd_gedge_raise(from, to);
	return hipSuccess;
}

/* clr's hipGraphNode::RemoveEdge: to leaves from's edges, its in-degree
 * drops and its level becomes the largest of its dependencies' + 1, from
 * still among them (clr drops it after); the nodes after it keep theirs.
 * Called before from leaves to->deps. */
static void thd_gunedge(struct hipGraphNode *from, struct hipGraphNode *to)
{
	size_t keep = 0, had = from->nedges;
	uint32_t level = 0;

	for (size_t i = 0; i < from->nedges; i++)
		if (from->edges[i] != to)
			from->edges[keep++] = from->edges[i];
	from->nedges = keep;
	if (keep == had)
		return;
	to->indeg--;
	to->indeg6--;
	for (size_t k = 0; k < to->ndeps; k++)
		if (to->deps[k]->level + 1 > level)
			level = to->deps[k]->level + 1;
	to->level = level;
}

THD_EXPORT hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)
{
	struct ihipGraph *g;

	if (!pGraph || flags)
		return thd_ret(hipErrorInvalidValue);
	g = thd_object_new(sizeof(*g));
	if (!g)
		return thd_ret(hipErrorOutOfMemory);
	g->magic = THD_LIVE;
	*pGraph = g;
	return hipSuccess;
}

static int thd_gnode_of(const struct ihipGraph *g, const struct hipGraphNode *n)
{
	for (size_t i = 0; i < g->ngnodes; i++)
		if (g->gnodes[i] == n)
			return 1;
	return 0;
}

static void thd_items_free(thd_node *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(items[i].args);
	free(items);
}

/* build(ctx) queues a node's work on a capturing stream of its own, whose
 * graph's work becomes the node's (*items owned by the caller). */
static hipError_t thd_gnode_make(hipError_t (*build)(const void *, hipStream_t), const void *ctx,
                                 thd_node **items, size_t *nitems)
{
	struct ihipGraph tmp;
	struct ihipStream_t cap;
	hipError_t r;

	memset(&tmp, 0, sizeof(tmp));
	tmp.magic = THD_LIVE;
	memset(&cap, 0, sizeof(cap));
	cap.magic = THD_LIVE;
	cap.capture = &tmp;
	r = build ? build(ctx, &cap) : hipSuccess;
	if (r != hipSuccess) {
		thd_items_free(tmp.nodes, tmp.n);
		return r;
	}
	*items = tmp.nodes;
	*nitems = tmp.n;
	return hipSuccess;
}

typedef struct thd_copy1d {
	void *dst;
	const void *src;
	size_t count;
	hipMemcpyKind kind;
} thd_copy1d;

static hipError_t thd_build_copy(const void *ctx, hipStream_t s);
static hipError_t thd_build_copy1d(const void *ctx, hipStream_t s);

/* The checks every add makes; then the node's work is made
 * (thd_gnode_make). */
static hipError_t thd_gnode_add(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                                size_t ndeps, hipError_t (*build)(const void *, hipStream_t),
                                const void *ctx)
{
	struct ihipGraph tmp;
	struct hipGraphNode *n, **v;
	hipError_t r;

	if (!out || !graph || graph->magic != THD_LIVE || (ndeps && !deps))
		return thd_ret(hipErrorInvalidValue);
	for (size_t i = 0; i < ndeps; i++)
		if (!deps[i] || !thd_gnode_of(graph, deps[i]))
			return thd_ret(hipErrorInvalidValue);
	memset(&tmp, 0, sizeof(tmp));
	if ((r = thd_gnode_make(build, ctx, &tmp.nodes, &tmp.n)) != hipSuccess)
		return thd_ret(r);
	n = thd_object_new(sizeof(*n));
	v = realloc(graph->gnodes, (graph->ngnodes + 1) * sizeof(*v));
	if (v)
		graph->gnodes = v;
	if (!n || !v || (ndeps && !(n->deps = calloc(ndeps, sizeof(*n->deps))))) {
		for (size_t i = 0; i < tmp.n; i++)
			free(tmp.nodes[i].args);
		free(tmp.nodes);
		return thd_ret(hipErrorOutOfMemory);
	}
	n->build = build;
	n->graph = graph;
	n->index = graph->ngnodes;
	n->items = tmp.nodes;
	n->nitems = tmp.n;
	for (size_t i = 0; i < ndeps; i++)
		n->deps[i] = deps[i];
	n->ndeps = ndeps;
	n->mkind = build == thd_build_copy1d ? (int)((const thd_copy1d *)ctx)->kind
	           : build == thd_build_copy ? (int)hipMemcpyDefault
	                                     : -1;
	n->magic = THD_LIVE;
	v[graph->ngnodes++] = n;
	for (size_t i = 0; i < ndeps; i++)
		if ((r = thd_gedge(deps[i], n)) != hipSuccess)
			return thd_ret(r);
	*out = n;
	return hipSuccess;
}

/* clr's hipGraphKernelNode::getFunc: a host stub a fat binary registered,
 * else the pointer taken as a hipFunction_t (clr then uses it as one; the
 * double answers hipErrorInvalidDeviceFunction for a pointer that is
 * neither, where clr would read through it). */
static hipError_t thd_build_kernel(const void *ctx, hipStream_t s)
{
	const hipKernelNodeParams *p = ctx;
	hipError_t r = hipLaunchKernel(p->func, p->gridDim, p->blockDim, p->kernelParams,
	                               p->sharedMemBytes, s);

	if (r == hipErrorInvalidDeviceFunction && thd_function_known(p->func))
		r = hipModuleLaunchKernel((hipFunction_t)p->func, p->gridDim.x, p->gridDim.y,
		                          p->gridDim.z, p->blockDim.x, p->blockDim.y, p->blockDim.z,
		                          p->sharedMemBytes, s, p->kernelParams, NULL);
	return r == hipErrorInvalidResourceHandle ? hipErrorInvalidDeviceFunction : r;
}

THD_EXPORT hipError_t hipGraphAddKernelNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                            const hipGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            const hipKernelNodeParams *pNodeParams)
{
	if (!pNodeParams || !pNodeParams->func || !pNodeParams->kernelParams)
		return thd_ret(hipErrorInvalidValue);
	return thd_gnode_add(pGraphNode, graph, pDependencies, numDependencies, thd_build_kernel,
	                     pNodeParams);
}

static hipError_t thd_build_copy(const void *ctx, hipStream_t s)
{
	return hipMemcpy3DAsync(ctx, s);
}

THD_EXPORT hipError_t hipGraphAddMemcpyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                            const hipGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            const struct hipMemcpy3DParms *pCopyParams)
{
	if (!pCopyParams)
		return thd_ret(hipErrorInvalidValue);
	return thd_gnode_add(pGraphNode, graph, pDependencies, numDependencies, thd_build_copy,
	                     pCopyParams);
}

static hipError_t thd_build_copy1d(const void *ctx, hipStream_t s)
{
	const thd_copy1d *c = ctx;

	if (!c->dst || !c->src)
		return hipErrorInvalidValue;
	return hipMemcpyAsync(c->dst, c->src, c->count, c->kind, s);
}

THD_EXPORT hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                              const hipGraphNode_t *pDependencies,
                                              size_t numDependencies, void *dst, const void *src,
                                              size_t count, hipMemcpyKind kind)
{
	thd_copy1d c = {dst, src, count, kind};

	return thd_gnode_add(pGraphNode, graph, pDependencies, numDependencies, thd_build_copy1d, &c);
}

static hipError_t thd_build_memset(const void *ctx, hipStream_t s)
{
	const hipMemsetParams *p = ctx;

	if (p->height == 1) {
		switch (p->elementSize) {
		case 1: return hipMemsetD8Async((hipDeviceptr_t)p->dst, (unsigned char)p->value, p->width, s);
		case 2: return hipMemsetD16Async((hipDeviceptr_t)p->dst, (unsigned short)p->value, p->width, s);
		default: return hipMemsetD32Async((hipDeviceptr_t)p->dst, (int)p->value, p->width, s);
		}
	}
	/* clr 5.2's node: the element size where the value goes, width bytes */
	return hipMemset2DAsync(p->dst, p->pitch, (int)p->elementSize, p->width, p->height, s);
}

THD_EXPORT hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                            const hipGraphNode_t *pDependencies,
                                            size_t numDependencies,
                                            const hipMemsetParams *pMemsetParams)
{
	if (!pMemsetParams || !pMemsetParams->height ||
	    (pMemsetParams->elementSize != 1 && pMemsetParams->elementSize != 2 &&
	     pMemsetParams->elementSize != 4))
		return thd_ret(hipErrorInvalidValue);
	return thd_gnode_add(pGraphNode, graph, pDependencies, numDependencies, thd_build_memset,
	                     pMemsetParams);
}

THD_EXPORT hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                           const hipGraphNode_t *pDependencies,
                                           size_t numDependencies)
{
	return thd_gnode_add(pGraphNode, graph, pDependencies, numDependencies, NULL, NULL);
}

THD_EXPORT hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                              const hipGraphNode_t *to, size_t numDependencies)
{
	if (!graph || graph->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	if (!numDependencies)
		return hipSuccess;
	if (!from || !to)
		return thd_ret(hipErrorInvalidValue);
	for (size_t i = 0; i < numDependencies; i++)
		if (!from[i] || !to[i] || from[i] == to[i] || !thd_gnode_of(graph, from[i]) ||
		    !thd_gnode_of(graph, to[i]))
			return thd_ret(hipErrorInvalidValue);
	for (size_t i = 0; i < numDependencies; i++) {
		struct hipGraphNode *t = to[i], **v;
		for (size_t k = 0; k < t->ndeps; k++)
			if (t->deps[k] == from[i])
				return thd_ret(hipErrorInvalidValue);
		v = realloc(t->deps, (t->ndeps + 1) * sizeof(*v));
		if (!v || thd_gedge(from[i], t) != hipSuccess)
			return thd_ret(hipErrorOutOfMemory);
		t->deps = v;
		v[t->ndeps++] = from[i];
	}
	return hipSuccess;
}

hipError_t thd_graph_flatten(const struct ihipGraph *g, thd_node **out, size_t *n)
{
	struct hipGraphNode **from = NULL;
	hipError_t r = thd_graph_flatten_from(g, out, &from, n);

	free(from);
	return r;
}

hipError_t thd_graph_flatten_from(const struct ihipGraph *g, thd_node **out,
                                  struct hipGraphNode ***from, size_t *n)
{
	size_t total = g->n, done = 0, k = 0;
	unsigned char *ran = NULL;
	struct hipGraphNode **f;
	thd_node *v;

	for (size_t i = 0; i < g->ngnodes; i++)
		total += g->gnodes[i]->nitems;
	*out = NULL;
	*from = NULL;
	*n = 0;
	if (!total)
		return hipSuccess;
	v = calloc(total, sizeof(*v));
	f = calloc(total, sizeof(*f));
	ran = calloc(g->ngnodes ? g->ngnodes : 1, 1);
	if (!v || !f || !ran) {
		free(v);
		free(f);
		free(ran);
		return hipErrorOutOfMemory;
	}
	for (size_t i = 0; i < g->n; i++)
		v[k++] = g->nodes[i];
	while (done < g->ngnodes) {
		size_t before = done;
		for (size_t i = 0; i < g->ngnodes; i++) {
			const struct hipGraphNode *gn = g->gnodes[i];
			int ready = !ran[i];
			for (size_t d = 0; ready && d < gn->ndeps; d++)
				ready = ran[gn->deps[d]->index];
			if (!ready)
				continue;
			for (size_t j = 0; j < gn->nitems; j++) {
				f[k] = g->gnodes[i];
				v[k++] = gn->items[j];
			}
			ran[i] = 1;
			done++;
			break; /* the first ready one in the order added, then look again */
		}
		if (done == before) {
			free(v);
			free(f);
			free(ran);
			return hipErrorInvalidValue; /* a cycle */
		}
	}
	free(ran);
	*out = v;
	*from = f;
	*n = k;
	return hipSuccess;
}

/*
 * The exec setters, as clr 5.2's hip_graph.cpp: a null exec, node or
 * parameters is hipErrorInvalidValue; the node is looked up among the
 * exec's clones (hipGraphExec::GetClonedNode), so a node of another graph,
 * or one added after the instantiation, is hipErrorInvalidValue; then the
 * clone takes the new parameters (SetParams), checked as an add checks
 * them; the graph's own node keeps its own.  clr casts the clone to the
 * setter's node kind unchecked; the double answers hipErrorInvalidValue
 * for a node of another kind.  The clone's work is remade (thd_gnode_make)
 * and takes the place of its old work in the exec (kernarg bytes stay,
 * as every graph's do); a clone that had no work (a copy of 0 bytes) has
 * no place in the exec's order here: hipErrorNotSupported.
 */
/* The work of exec e's clone of node becomes items (nitems of them, owned
 * from here on: their kernarg bytes become the exec's), in its place in the
 * exec's order. */
static hipError_t thd_exec_splice(hipGraphExec_t e, hipGraphNode_t node, thd_node *items,
                                  size_t nitems)
{
	thd_node *v;
	struct hipGraphNode **f;
	size_t a = 0, b, n;

	while (a < e->n && e->from[a] != node)
		a++;
	if (a == e->n) {
		thd_items_free(items, nitems);
		return hipErrorNotSupported;
	}
	for (b = a; b < e->n && e->from[b] == node; b++)
		;
	n = e->n - (b - a) + nitems;
	v = calloc(n ? n : 1, sizeof(*v));
	f = calloc(n ? n : 1, sizeof(*f));
	if (!v || !f) {
		free(v);
		free(f);
		thd_items_free(items, nitems);
		return hipErrorOutOfMemory;
	}
	memcpy(v, e->nodes, a * sizeof(*v));
	memcpy(f, e->from, a * sizeof(*f));
	for (size_t i = 0; i < nitems; i++) {
		v[a + i] = items[i];
		f[a + i] = node;
	}
	memcpy(v + a + nitems, e->nodes + b, (e->n - b) * sizeof(*v));
	memcpy(f + a + nitems, e->from + b, (e->n - b) * sizeof(*f));
	free(items); /* the array only: its kernarg bytes are the exec's now */
	free(e->nodes);
	free(e->from);
	e->nodes = v;
	e->from = f;
	e->n = n;
	return hipSuccess;
}

static hipError_t thd_exec_set(hipGraphExec_t e, hipGraphNode_t node, thd_build_fn build,
                               const void *ctx)
{
	thd_node *items = NULL;
	size_t nitems = 0, a = 0, k = 0;
	hipError_t r;

	if (!e || e->magic != THD_LIVE || !node)
		return thd_ret(hipErrorInvalidValue);
	while (k < e->nclones && e->clones[k] != node)
		k++;
	if (k == e->nclones || node->build != build)
		return thd_ret(hipErrorInvalidValue);
	while (a < e->n && e->from[a] != node)
		a++;
	if (a == e->n)
		return thd_ret(hipErrorNotSupported);
	if ((r = thd_gnode_make(build, ctx, &items, &nitems)) != hipSuccess)
		return thd_ret(r);
	if ((r = thd_exec_splice(e, node, items, nitems)) != hipSuccess)
		return thd_ret(r);
	/* clr 6's clone keeps the kind it was set to (hipGraphExecUpdate reads it) */
	for (k = 0; e->okind && k < e->norder; k++)
		if (e->order[k] == node && build == thd_build_copy1d)
			e->okind[k] = (int)((const thd_copy1d *)ctx)->kind;
	return hipSuccess;
}

THD_EXPORT hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                      const hipKernelNodeParams *pNodeParams)
{
	if (!pNodeParams || !pNodeParams->func || !pNodeParams->kernelParams)
		return thd_ret(hipErrorInvalidValue);
	return thd_exec_set(hGraphExec, node, thd_build_kernel, pNodeParams);
}

THD_EXPORT hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                      hipMemcpy3DParms *pNodeParams)
{
	if (!pNodeParams)
		return thd_ret(hipErrorInvalidValue);
	return thd_exec_set(hGraphExec, node, thd_build_copy, pNodeParams);
}

THD_EXPORT hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec,
                                                        hipGraphNode_t node, void *dst,
                                                        const void *src, size_t count,
                                                        hipMemcpyKind kind)
{
	thd_copy1d c = {dst, src, count, kind};

	return thd_exec_set(hGraphExec, node, thd_build_copy1d, &c);
}

THD_EXPORT hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                      const hipMemsetParams *pNodeParams)
{
	if (!pNodeParams || !pNodeParams->height ||
	    (pNodeParams->elementSize != 1 && pNodeParams->elementSize != 2 &&
	     pNodeParams->elementSize != 4))
		return thd_ret(hipErrorInvalidValue);
	return thd_exec_set(hGraphExec, node, thd_build_memset, pNodeParams);
}

THD_EXPORT hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                                   unsigned long long flags)
{
	if (!pGraphExec || !graph)
		return thd_ret(hipErrorInvalidValue);
	if (flags != 0 && flags != hipGraphInstantiateFlagAutoFreeOnLaunch)
		return thd_ret(hipErrorInvalidValue);
	return hipGraphInstantiate(pGraphExec, graph, NULL, NULL, 0);
}

/* A child graph node: clr 5.2 clones the child graph into the node
 * (hipChildGraphNode), so later changes to the child do not reach it; the
 * double copies the child's work, in its order, now.  A null child graph:
 * hipErrorInvalidValue (clr's check), a dead one too (clr would read it);
 * a graph may be its own child (clr clones it before the node joins it). */
static hipError_t thd_build_child(const void *ctx, hipStream_t s)
{
	const struct ihipGraph *child = ctx;
	struct ihipGraph *into;
	thd_node *v;
	size_t n, i;
	hipError_t r;
	int bad = 0;

	if (!(into = thd_stream_capture(s, &bad)) || bad)
		return hipErrorInvalidValue;
	if ((r = thd_graph_flatten(child, &v, &n)) != hipSuccess)
		return r;
	for (i = 0; i < n && r == hipSuccess; i++) {
		thd_node c = v[i];
		c.owned = NULL;
		if (c.args && c.args_len) {
			if (!(c.args = malloc(c.args_len))) {
				r = hipErrorOutOfMemory;
				break;
			}
			memcpy(c.args, v[i].args, c.args_len);
		}
		if ((r = thd_graph_add(into, &c)) != hipSuccess)
			free(c.args);
	}
	free(v);
	return r;
}

THD_EXPORT hipError_t hipGraphAddChildGraphNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                                const hipGraphNode_t *pDependencies,
                                                size_t numDependencies, hipGraph_t childGraph)
{
	if (!childGraph || childGraph->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	return thd_gnode_add(pGraphNode, graph, pDependencies, numDependencies, thd_build_child,
	                     childGraph);
}

/* clr 5.2's hipGraphKernelNodeSetParams: null parameters, function or
 * kernelParams, or a node that is not a kernel node: hipErrorInvalidValue;
 * the node's work is made again from the new parameters (its
 * dependencies stay). */
THD_EXPORT hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node,
                                                  const hipKernelNodeParams *pNodeParams)
{
	thd_node *items;
	size_t n;
	hipError_t r;

	if (!node || node->magic != THD_LIVE || !pNodeParams || !pNodeParams->func ||
	    !pNodeParams->kernelParams || node->nitems != 1 || node->items[0].kind != THD_NODE_KERNEL)
		return thd_ret(hipErrorInvalidValue);
	if ((r = thd_gnode_make(thd_build_kernel, pNodeParams, &items, &n)) != hipSuccess)
		return thd_ret(r);
	thd_items_free(node->items, node->nitems);
	node->items = items;
	node->nitems = n;
	return hipSuccess;
}

/*
 * clr 6's hipGraphDestroyNode first takes the node's edges away one by one
 * (RemoveUpdateEdge: the child's in-degree drops), walking its own list of
 * edges while that list shrinks under it: with libstdc++ the walk reads
 * slot i of the list's storage for i below the count it began with, a
 * slot past the shrunk list still holding what was moved out of it, so a
 * child can be read twice and another never (of edges a, b, c, only a
 * and c go).  A child it never reaches keeps its in-degree, so clr 6's
 * topological order never reaches it.  Only indeg6 is kept here: the
 * node's own edge list is not read again.
 */
static void thd_gdestroy6(const struct hipGraphNode *node)
{
	struct hipGraphNode **slot;
	size_t count = node->nedges, live = node->nedges;

	if (!count || !(slot = malloc(count * sizeof(*slot))))
		return;
	memcpy(slot, node->edges, count * sizeof(*slot));
	for (size_t i = 0; i < count; i++) {
		struct hipGraphNode *child = slot[i];
		size_t at = 0;
		while (at < live && slot[at] != child)
			at++;
		if (at == live)
			continue; /* not in the list any more: RemoveUpdateEdge says false */
		/* std::remove then erase: the later ones move down one slot, the
		 * last slot keeps its old value */
		memmove(&slot[at], &slot[at + 1], (live - at - 1) * sizeof(*slot));
		live--;
		child->indeg6--;
	}
	free(slot);
}

/* clr 5.2's hipGraphDestroyNode: a null or dead node:
 * hipErrorInvalidValue; the node leaves its graph with every edge to it
 * (its handle keeps a dead magic). */
THD_EXPORT hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
	struct ihipGraph *g;

	if (!node || node->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	g = node->graph;
	thd_gdestroy6(node);
	/* clr's destructor: each parent's RemoveEdge (its edge list), the
	 * children only drop the dependency (in-degree and level kept) */
	for (size_t k = 0; k < node->ndeps; k++)
		thd_gunedge(node->deps[k], node);
	memmove(&g->gnodes[node->index], &g->gnodes[node->index + 1],
	        (g->ngnodes - node->index - 1) * sizeof(*g->gnodes));
	g->ngnodes--;
	for (size_t i = 0; i < g->ngnodes; i++) {
		struct hipGraphNode *t = g->gnodes[i];
		size_t keep = 0;
		t->index = i;
		for (size_t k = 0; k < t->ndeps; k++)
			if (t->deps[k] != node)
				t->deps[keep++] = t->deps[k];
		t->ndeps = keep;
	}
	thd_items_free(node->items, node->nitems);
	node->items = NULL;
	node->nitems = 0;
	node->magic = THD_DEAD;
	return hipSuccess;
}

/* clr 5.2's hipGraphRemoveDependencies: the checks of
 * hipGraphAddDependencies, and an edge the graph does not hold:
 * hipErrorInvalidValue (nothing removed then). */
THD_EXPORT hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                                 const hipGraphNode_t *to, size_t numDependencies)
{
	if (!graph || graph->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	if (!numDependencies)
		return hipSuccess;
	if (!from || !to)
		return thd_ret(hipErrorInvalidValue);
	for (size_t i = 0; i < numDependencies; i++) {
		int has = 0;
		if (!from[i] || !to[i] || !thd_gnode_of(graph, from[i]) || !thd_gnode_of(graph, to[i]))
			return thd_ret(hipErrorInvalidValue);
		for (size_t k = 0; k < to[i]->ndeps; k++)
			has |= to[i]->deps[k] == from[i];
		if (!has)
			return thd_ret(hipErrorInvalidValue);
	}
	for (size_t i = 0; i < numDependencies; i++) {
		struct hipGraphNode *t = to[i];
		thd_gunedge(from[i], t);
		for (size_t k = 0; k < t->ndeps; k++)
			if (t->deps[k] == from[i]) {
				t->deps[k] = t->deps[--t->ndeps];
				break;
			}
	}
	return hipSuccess;
}

/* clr 5.2's ihipGraph::LevelOrder of g's nodes added node by node, into
 * a new array (*out owned by the caller). */
static hipError_t thd_graph_level_order(const struct ihipGraph *g, struct hipGraphNode ***out,
                                        size_t *n)
{
	struct hipGraphNode **q = malloc((g->ngnodes ? g->ngnodes : 1) * sizeof(*q));
	unsigned char *seen = calloc(g->ngnodes ? g->ngnodes : 1, 1);
	size_t head = 0, tail = 0;

	*out = NULL;
	*n = 0;
	if (!q || !seen) {
		free(q);
		free(seen);
		return hipErrorOutOfMemory;
	}
	for (size_t i = 0; i < g->ngnodes; i++)
		if (!g->gnodes[i]->indeg)
			q[tail++] = g->gnodes[i];
	while (head < tail) {
		const struct hipGraphNode *x = q[head++];
		for (size_t k = 0; k < x->nedges; k++) {
			struct hipGraphNode *y = x->edges[k];
			if (y->magic != THD_LIVE || seen[y->index] || y->level != x->level + 1 ||
			    tail == g->ngnodes)
				continue;
			seen[y->index] = 1;
			q[tail++] = y;
		}
	}
	free(seen);
	*out = q;
	*n = tail;
	return hipSuccess;
}

/* clr 6's Graph::TopologicalOrder of g's nodes added node by node, into
 * a new array (*out owned by the caller): Kahn's, from the nodes of
 * in-degree 0 in the order added, a node queued when the last edge into
 * it is taken; a node whose in-degree never reaches 0 (a cycle, a child
 * thd_gdestroy6 left counted) is missing. */
static hipError_t thd_graph_topo_order(const struct ihipGraph *g, struct hipGraphNode ***out,
                                       size_t *n)
{
	struct hipGraphNode **q = malloc((g->ngnodes ? g->ngnodes : 1) * sizeof(*q));
	size_t *left = calloc(g->ngnodes ? g->ngnodes : 1, sizeof(*left));
	size_t head = 0, tail = 0;

	*out = NULL;
	*n = 0;
	if (!q || !left) {
		free(q);
		free(left);
		return hipErrorOutOfMemory;
	}
	for (size_t i = 0; i < g->ngnodes; i++) {
		left[i] = g->gnodes[i]->indeg6;
		if (!left[i])
			q[tail++] = g->gnodes[i];
	}
	while (head < tail) {
		const struct hipGraphNode *x = q[head++];
		for (size_t k = 0; k < x->nedges; k++) {
			struct hipGraphNode *y = x->edges[k];
			if (y->magic == THD_LIVE && left[y->index] && !--left[y->index] &&
			    tail < g->ngnodes)
				q[tail++] = y;
		}
	}
	free(left);
	*out = q;
	*n = tail;
	return hipSuccess;
}

/* clr 5.2 and 6 both take a node's type as its kind; clr 6's 1D copy node
 * is a copy node too. */
static int thd_gnode_same_type(const struct hipGraphNode *a, const struct hipGraphNode *b, int topo)
{
	thd_build_fn x = a->build, y = b->build;

	if (topo && x == thd_build_copy1d)
		x = thd_build_copy;
	if (topo && y == thd_build_copy1d)
		y = thd_build_copy;
	return x == y;
}

hipError_t thd_graph_exec_order(const struct ihipGraph *g, struct hipGraphExec *e)
{
	hipError_t r;

	e->topo = thd_runtime_version(NULL) >= 60000000;
	if (!e->topo)
		return thd_graph_level_order(g, &e->order, &e->norder);
	if ((r = thd_graph_topo_order(g, &e->order, &e->norder)) != hipSuccess)
		return r;
	/* clr 6's ihipGraphInstantiate: a topological order that misses a node */
	if (e->norder != g->ngnodes)
		return hipErrorInvalidValue;
	e->ondeps = calloc(e->norder ? e->norder : 1, sizeof(*e->ondeps));
	e->okind = calloc(e->norder ? e->norder : 1, sizeof(*e->okind));
	if (!e->ondeps || !e->okind)
		return hipErrorOutOfMemory;
	for (size_t i = 0; i < e->norder; i++) {
		e->ondeps[i] = e->order[i]->ndeps;
		e->okind[i] = e->order[i]->mkind;
	}
	return hipSuccess;
}

/* A copy of n's work (kernarg bytes copied) into a new array. */
static hipError_t thd_items_copy(const struct hipGraphNode *n, thd_node **out, size_t *nout)
{
	thd_node *v = calloc(n->nitems ? n->nitems : 1, sizeof(*v));

	*out = NULL;
	*nout = 0;
	if (!v)
		return hipErrorOutOfMemory;
	for (size_t i = 0; i < n->nitems; i++) {
		v[i] = n->items[i];
		v[i].owned = NULL;
		v[i].args = NULL;
		if (n->items[i].args && n->items[i].args_len) {
			if (!(v[i].args = malloc(n->items[i].args_len))) {
				thd_items_free(v, i);
				return hipErrorOutOfMemory;
			}
			memcpy(v[i].args, n->items[i].args, n->items[i].args_len);
		}
	}
	*out = v;
	*nout = n->nitems;
	return hipSuccess;
}

/*
 * hipGraphExecUpdate as clr's hip_graph.cpp serves it: a null exec, graph,
 * error node or result pointer is hipErrorInvalidValue (a dead one too:
 * clr would read it).  The graph's nodes, in the order of the exec's
 * runtime (thd_graph_exec_order: clr 5.2's level order, ihipGraph::
 * LevelOrder; clr 6.0-6.2's topological order, Graph::TopologicalOrder),
 * are paired index by index with the exec's (its graph's order at
 * instantiation: GetNodes).  Another count:
 * *updateResult_out = hipGraphExecUpdateErrorTopologyChanged and
 * hipErrorGraphExecUpdateFailure (clr 5.2 leaves the error node as it was,
 * clr 6 sets it to NULL).  Then pair by pair, each failure
 * hipErrorGraphExecUpdateFailure with the graph's node as the error node:
 *   - two types (the call that added each; clr 6's 1D copy is a copy):
 *     hipGraphExecUpdateErrorNodeTypeChanged;
 *   - clr 6 only: two copies of other kinds (GetMemcpyKind, a 3D copy's
 *     always hipMemcpyDefault): hipGraphExecUpdateErrorParametersChanged;
 *     another count of dependencies than the exec's clone had at
 *     instantiation: hipGraphExecUpdateErrorTopologyChanged;
 * else the exec's node takes the graph's node's parameters (SetParams: the
 * double copies its work, kernarg bytes too, into the exec's order where
 * the exec's node's work was; a child graph node takes the new child's
 * work whole; clr 6's clone takes the copy kind too).  A failure leaves the
 * pairs before it set, as clr's loop does.  The double's own limits: an
 * exec node that has no work in the exec (a copy of 0 bytes) given work is
 * hipGraphExecUpdateErrorNotSupported with that error node, and a graph or
 * exec holding work of a stream capture is answered
 * hipGraphExecUpdateErrorNotSupported before any pair (clr pairs its nodes
 * too; the double keeps no nodes of a capture); clr 6's check that the two
 * graphs were made on one device is not made (the double's graphs keep no
 * device).
 */
THD_EXPORT hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
                                         hipGraphNode_t *hErrorNode_out,
                                         hipGraphExecUpdateResult *updateResult_out)
{
	struct hipGraphNode **order = NULL;
	size_t n = 0;
	hipError_t r;
	int topo;

	if (!hGraphExec || !hGraph || !hErrorNode_out || !updateResult_out ||
	    hGraphExec->magic != THD_LIVE || hGraph->magic != THD_LIVE)
		return thd_ret(hipErrorInvalidValue);
	if (hGraph->n || (hGraphExec->n && !hGraphExec->from[0]) ||
	    hGraphExec->graph->n) {
		*updateResult_out = hipGraphExecUpdateErrorNotSupported;
		return thd_ret(hipErrorGraphExecUpdateFailure);
	}
	topo = hGraphExec->topo;
	r = topo ? thd_graph_topo_order(hGraph, &order, &n) : thd_graph_level_order(hGraph, &order, &n);
	if (r != hipSuccess)
		return thd_ret(r);
	if (n != hGraphExec->norder) {
		free(order);
		if (topo)
			*hErrorNode_out = NULL;
		*updateResult_out = hipGraphExecUpdateErrorTopologyChanged;
		return thd_ret(hipErrorGraphExecUpdateFailure);
	}
	for (size_t i = 0; i < n; i++) {
		struct hipGraphNode *x = hGraphExec->order[i], *g = order[i];
		hipGraphExecUpdateResult why = hipGraphExecUpdateSuccess;
		thd_node *items;
		size_t nitems;
		if (!thd_gnode_same_type(x, g, topo))
			why = hipGraphExecUpdateErrorNodeTypeChanged;
		else if (topo && g->mkind >= 0 && g->mkind != hGraphExec->okind[i])
			why = hipGraphExecUpdateErrorParametersChanged;
		else if (topo && g->ndeps != hGraphExec->ondeps[i])
			why = hipGraphExecUpdateErrorTopologyChanged;
		if (why != hipGraphExecUpdateSuccess) {
			free(order);
			*hErrorNode_out = g;
			*updateResult_out = why;
			return thd_ret(hipErrorGraphExecUpdateFailure);
		}
		if ((r = thd_items_copy(g, &items, &nitems)) != hipSuccess) {
			free(order);
			return thd_ret(r);
		}
		r = thd_exec_splice(hGraphExec, x, items, nitems);
		if (r == hipErrorNotSupported && !nitems)
			r = hipSuccess; /* no work before, none after (an empty node, a copy of 0 bytes) */
		if (r != hipSuccess) {
			free(order);
			if (r != hipErrorNotSupported)
				return thd_ret(r);
			*hErrorNode_out = g;
			*updateResult_out = hipGraphExecUpdateErrorNotSupported;
			return thd_ret(hipErrorGraphExecUpdateFailure);
		}
		if (topo)
			hGraphExec->okind[i] = g->mkind;
	}
	free(order);
	*updateResult_out = hipGraphExecUpdateSuccess;
	return hipSuccess;
}
