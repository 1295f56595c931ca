/*
 * thip_graphnm.c - the calls that change a HIP graph or graph exec after
 * its nodes were added (docs/hip.md "Graphs built node by node"): those
 * the compute model covers (hipGraphKernelNodeSetParams,
 * hipGraphDestroyNode, hipGraphRemoveDependencies on a graph the
 * interposer saw built, recorded as themselves; the kernel, memcpy and
 * memset exec setters on such a node, recorded as themselves; child graph
 * nodes: thip_graph.c), and those it does not: nodes of other kinds
 * (host, event record and wait, copies to and from symbols; a child graph
 * the interposer did not see made by hipGraphCreate or stream capture),
 * hipGraphClone, every other node setter, the other exec setters (and
 * those above on a node the interposer did not see added) and
 * hipGraphExecUpdate.  Each is passed through and recorded as
 * hip.tsGraphNotModeled (serializer/sbt_compute.h, as CUDA's): name = the
 * call, parent = the graph it changed (a node's graph is looked up in the
 * table below), or handle = the exec; an added node's record carries the
 * node, its dependencies and sub = its hipGraphNodeType.  Replay refuses a
 * launch of the work such a call changed, naming the call; the exit report
 * counts the graphs and execs changed.
 *
 * State: thip_graphnm_g, the nodes the program added (node -> graph), the
 * graphs made by hipGraphCreate and the graphs and execs changed, under its own mutex, held only to look up
 * or change them.
 */
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

static struct {
	pthread_mutex_t mu;
	cap_umap graph_of_node; /* node -> graph (as a pointer-sized value) */
	cap_umap changed;       /* graph or exec -> 1 */
	cap_umap made;          /* graph made by hipGraphCreate or hipStreamEndCapture,
	                         * not destroyed -> 1 */
	uint64_t nchanged;
} thip_graphnm_g = {.mu = PTHREAD_MUTEX_INITIALIZER};

void thip_graph_node_add(uint64_t node, uint64_t graph)
{
	if (!node || !graph)
		return;
	pthread_mutex_lock(&thip_graphnm_g.mu);
	/* a node handle the runtime reuses belongs to its new graph */
	if (cap_umap_get(&thip_graphnm_g.graph_of_node, node) != (void *)(uintptr_t)graph &&
	    cap_umap_put(&thip_graphnm_g.graph_of_node, node, (void *)(uintptr_t)graph) ==
	            (void *)(uintptr_t)graph)
		CAP_ERROR("hip: out of memory keeping graph node %p", (void *)(uintptr_t)node);
	pthread_mutex_unlock(&thip_graphnm_g.mu);
}

uint64_t thip_graph_nm_count(void)
{
	uint64_t n;

	pthread_mutex_lock(&thip_graphnm_g.mu);
	n = thip_graphnm_g.nchanged;
	pthread_mutex_unlock(&thip_graphnm_g.mu);
	return n;
}

/* The graph node was added to (0: not seen); drop: forget the node. */
static uint64_t thip_graphnm_graph_of(uint64_t node, int drop)
{
	uint64_t g;

	pthread_mutex_lock(&thip_graphnm_g.mu);
	g = (uint64_t)(uintptr_t)cap_umap_get(&thip_graphnm_g.graph_of_node, node);
	if (drop && g)
		cap_umap_del(&thip_graphnm_g.graph_of_node, node);
	pthread_mutex_unlock(&thip_graphnm_g.mu);
	return g;
}

void thip_graph_made(uint64_t graph, int live)
{
	if (!graph)
		return;
	pthread_mutex_lock(&thip_graphnm_g.mu);
	if (!live)
		cap_umap_del(&thip_graphnm_g.made, graph);
	else if (!cap_umap_get(&thip_graphnm_g.made, graph) &&
	         cap_umap_put(&thip_graphnm_g.made, graph, (void *)(uintptr_t)1))
		CAP_ERROR("hip: out of memory keeping graph %p", (void *)(uintptr_t)graph);
	pthread_mutex_unlock(&thip_graphnm_g.mu);
}

int thip_graph_is_made(uint64_t graph)
{
	int made;

	pthread_mutex_lock(&thip_graphnm_g.mu);
	made = graph && cap_umap_get(&thip_graphnm_g.made, graph) != NULL;
	pthread_mutex_unlock(&thip_graphnm_g.mu);
	return made;
}

static void thip_graphnm_mark(uint64_t key)
{
	pthread_mutex_lock(&thip_graphnm_g.mu);
	if (key && !cap_umap_get(&thip_graphnm_g.changed, key) &&
	    !cap_umap_put(&thip_graphnm_g.changed, key, (void *)(uintptr_t)1))
		thip_graphnm_g.nchanged++;
	pthread_mutex_unlock(&thip_graphnm_g.mu);
}

/* A child graph node copies the child as it is: a child changed by a call
 * not modeled changes the parent too (as CUDA's tcu_graph_inherit). */
void thip_graph_inherit(uint64_t parent, uint64_t child)
{
	int changed;

	pthread_mutex_lock(&thip_graphnm_g.mu);
	changed = child && cap_umap_get(&thip_graphnm_g.changed, child) != NULL;
	pthread_mutex_unlock(&thip_graphnm_g.mu);
	if (changed)
		thip_graphnm_mark(parent);
}

/*
 * Record call (hip.tsGraphNotModeled, result r) as having changed exec,
 * or else graph, or else the graph node belongs to.  An add: node = the
 * node it made, deps its dependencies, type its hipGraphNodeType.  A call
 * that failed changed nothing: recorded with its error, not counted.
 */
void thip_graphnm_record(const thip_call *call, hipError_t r, const char *name, uint64_t graph,
                         uint64_t exec, uint64_t node, const hipGraphNode_t *deps, size_t ndeps,
                         unsigned type)
{
	uint8_t *packed = NULL;
	sbt_cm_call c;

	if (!exec && !graph && node)
		graph = thip_graphnm_graph_of(node, 0);
	if (r == hipSuccess) {
		thip_graphnm_mark(exec ? exec : graph ? graph : node);
		CAP_INFO("hip: %s changes a graph in a way the model does not cover: replay refuses its "
		         "work", name);
	}
	if (!call->record)
		return;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.handle = exec;
	c.parent = exec ? 0 : graph;
	c.node = node;
	c.sub = type;
	c.name = (const uint8_t *)name;
	c.name_len = strlen(name);
	/* a call that failed may have refused what deps points to: not read */
	c.deps_len = r == hipSuccess ? thip_graph_pack(deps, ndeps, &packed) : 0;
	c.deps = packed;
	thip_record(SBT_CM_HIP_tsGraphNotModeled, &c, 0);
	free(packed);
}

#define THIP_GRAPHNM_ID(...) __VA_ARGS__

/* A node of a kind the model does not cover: type its hipGraphNodeType,
 * params/args the call's own after the dependencies. */
#define THIP_GRAPHNM_ADD(fname, type, params, args)                                                \
	hipError_t fname(hipGraphNode_t *pGraphNode, hipGraph_t graph,                             \
	                 const hipGraphNode_t *pDependencies, size_t numDependencies,              \
	                 THIP_GRAPHNM_ID params)                                                   \
	{                                                                                          \
		thip_call call;                                                                    \
		hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,  \
		                   THIP_GRAPHNM_ID params) =                                       \
			(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *,      \
			               size_t, THIP_GRAPHNM_ID params))thip_begin(&call,          \
			                                                          THIP_FN_##fname); \
		hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies,     \
		                           THIP_GRAPHNM_ID args)                                   \
		                    : THIP_NO_RUNTIME;                                             \
		uint64_t node = r == hipSuccess && pGraphNode ? THIP_U(*pGraphNode) : 0;         \
                                                                                                   \
		if (!call.nested) {                                                                \
			thip_graph_node_add(node, THIP_U(graph));                                  \
			thip_gorder_add(THIP_U(graph), node, pDependencies, numDependencies);      \
			thip_graphnm_record(&call, r, #fname, THIP_U(graph), 0, node,              \
			                    pDependencies, numDependencies, type);                 \
		}                                                                                  \
		thip_end(&call);                                                                   \
		return r;                                                                          \
	}

/* Another change: graph, exec and node are expressions of the parameters
 * and r (0 where the call names none). */
#define THIP_GRAPHNM(fname, params, args, graph, exec, node)                                       \
	hipError_t fname(THIP_GRAPHNM_ID params)                                                   \
	{                                                                                          \
		thip_call call;                                                                    \
		hipError_t (*real)(THIP_GRAPHNM_ID params) =                                       \
			(hipError_t(*)(THIP_GRAPHNM_ID params))thip_begin(&call, THIP_FN_##fname); \
		hipError_t r = real ? real(THIP_GRAPHNM_ID args) : THIP_NO_RUNTIME;               \
                                                                                                   \
		if (!call.nested)                                                                  \
			thip_graphnm_record(&call, r, #fname, (graph), (exec), (node), NULL, 0,   \
			                    0);                                                    \
		thip_end(&call);                                                                   \
		return r;                                                                          \
	}

THIP_GRAPHNM_ADD(hipGraphAddEventRecordNode, hipGraphNodeTypeEventRecord, (hipEvent_t event),
                 (event))
THIP_GRAPHNM_ADD(hipGraphAddEventWaitNode, hipGraphNodeTypeWaitEvent, (hipEvent_t event), (event))
THIP_GRAPHNM_ADD(hipGraphAddHostNode, hipGraphNodeTypeHost, (const hipHostNodeParams *pNodeParams),
                 (pNodeParams))
THIP_GRAPHNM_ADD(hipGraphAddMemcpyNodeFromSymbol, hipGraphNodeTypeMemcpyFromSymbol,
                 (void *dst, const void *symbol, size_t count, size_t offset, hipMemcpyKind kind),
                 (dst, symbol, count, offset, kind))
THIP_GRAPHNM_ADD(hipGraphAddMemcpyNodeToSymbol, hipGraphNodeTypeMemcpyToSymbol,
                 (const void *symbol, const void *src, size_t count, size_t offset,
                  hipMemcpyKind kind),
                 (symbol, src, count, offset, kind))

/* The clone is a graph the trace never saw built: replay never
 * instantiates it. */
THIP_GRAPHNM(hipGraphClone, (hipGraph_t *pGraphClone, hipGraph_t originalGraph),
             (pGraphClone, originalGraph),
             r == hipSuccess && pGraphClone ? THIP_U(*pGraphClone) : THIP_U(originalGraph), 0, 0)
THIP_GRAPHNM(hipGraphEventRecordNodeSetEvent, (hipGraphNode_t node, hipEvent_t event), (node, event),
             0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphEventWaitNodeSetEvent, (hipGraphNode_t node, hipEvent_t event), (node, event),
             0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphHostNodeSetParams, (hipGraphNode_t node, const hipHostNodeParams *pNodeParams),
             (node, pNodeParams), 0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphKernelNodeSetAttribute,
             (hipGraphNode_t hNode, hipKernelNodeAttrID attr, const hipKernelNodeAttrValue *value),
             (hNode, attr, value), 0, 0, THIP_U(hNode))
THIP_GRAPHNM(hipGraphMemcpyNodeSetParams,
             (hipGraphNode_t node, const hipMemcpy3DParms *pNodeParams), (node, pNodeParams), 0, 0,
             THIP_U(node))
THIP_GRAPHNM(hipGraphMemcpyNodeSetParams1D,
             (hipGraphNode_t node, void *dst, const void *src, size_t count, hipMemcpyKind kind),
             (node, dst, src, count, kind), 0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphMemcpyNodeSetParamsFromSymbol,
             (hipGraphNode_t node, void *dst, const void *symbol, size_t count, size_t offset,
              hipMemcpyKind kind),
             (node, dst, symbol, count, offset, kind), 0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphMemcpyNodeSetParamsToSymbol,
             (hipGraphNode_t node, const void *symbol, const void *src, size_t count, size_t offset,
              hipMemcpyKind kind),
             (node, symbol, src, count, offset, kind), 0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphMemsetNodeSetParams, (hipGraphNode_t node, const hipMemsetParams *pNodeParams),
             (node, pNodeParams), 0, 0, THIP_U(node))
THIP_GRAPHNM(hipGraphExecChildGraphNodeSetParams,
             (hipGraphExec_t hGraphExec, hipGraphNode_t node, hipGraph_t childGraph),
             (hGraphExec, node, childGraph), 0, THIP_U(hGraphExec), THIP_U(node))
THIP_GRAPHNM(hipGraphExecEventRecordNodeSetEvent,
             (hipGraphExec_t hGraphExec, hipGraphNode_t hNode, hipEvent_t event),
             (hGraphExec, hNode, event), 0, THIP_U(hGraphExec), THIP_U(hNode))
THIP_GRAPHNM(hipGraphExecEventWaitNodeSetEvent,
             (hipGraphExec_t hGraphExec, hipGraphNode_t hNode, hipEvent_t event),
             (hGraphExec, hNode, event), 0, THIP_U(hGraphExec), THIP_U(hNode))
THIP_GRAPHNM(hipGraphExecHostNodeSetParams,
             (hipGraphExec_t hGraphExec, hipGraphNode_t node, const hipHostNodeParams *pNodeParams),
             (hGraphExec, node, pNodeParams), 0, THIP_U(hGraphExec), THIP_U(node))
THIP_GRAPHNM(hipGraphExecMemcpyNodeSetParamsFromSymbol,
             (hipGraphExec_t hGraphExec, hipGraphNode_t node, void *dst, const void *symbol,
              size_t count, size_t offset, hipMemcpyKind kind),
             (hGraphExec, node, dst, symbol, count, offset, kind), 0, THIP_U(hGraphExec),
             THIP_U(node))
THIP_GRAPHNM(hipGraphExecMemcpyNodeSetParamsToSymbol,
             (hipGraphExec_t hGraphExec, hipGraphNode_t node, const void *symbol, const void *src,
              size_t count, size_t offset, hipMemcpyKind kind),
             (hGraphExec, node, symbol, src, count, offset, kind), 0, THIP_U(hGraphExec),
             THIP_U(node))

/* Handles as packed u64 LE into a new buffer (*out owned by the caller,
 * NULL when there are none or out of memory), as thip_graph_pack. */
static size_t thip_graphnm_pack(const uint64_t *v, size_t n, uint8_t **out)
{
	uint8_t *b;

	*out = NULL;
	if (!v || !n || n > SIZE_MAX / 8 || !(b = malloc(n * 8)))
		return 0;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			b[i * 8 + (size_t)k] = (uint8_t)(v[i] >> (8 * k));
	*out = b;
	return n * 8;
}

/* The order the runtime's clr pairs nodes in (THIP_GORDER_*), from
 * hipRuntimeGetVersion (major x 10^7 + minor x 10^5 + patch): ROCm 5's
 * level order, ROCm 6.0-6.2's topological order (the clr sources read for
 * it); -1 for any other runtime, whose updates are recorded as not
 * modeled. */
static int thip_graphnm_pair_order(void)
{
	__typeof__(hipRuntimeGetVersion) *get = THIP_RT(hipRuntimeGetVersion);
	int v = 0;

	if (!get || get(&v) != hipSuccess)
		return -1;
	if (v / 10000000 == 5)
		return THIP_GORDER_LEVEL;
	if (v / 10000000 == 6 && v / 100000 % 100 <= 2)
		return THIP_GORDER_TOPO;
	return -1;
}

/*
 * hipGraphExecUpdate: clr pairs the graph's nodes with the exec's, in clr
 * 5.2's level order or clr 6.0-6.2's topological order (thip_gorder.c),
 * and gives each exec node its pair's parameters, stopping at the first
 * pair that fails (the earlier pairs keep their new parameters).  Recorded
 * as itself (handle = the exec, parent = the graph, value = the
 * hipGraphExecUpdateResult, node = the error node, deps = the graph's
 * order, deps_to = the exec's, the pairs index by index, sub = the order
 * they follow: THIP_GORDER_*, absent for the level order;
 * serializer/sbt_compute.h) when both are followed there and the runtime
 * is one of those; else (a graph made by stream capture or a clone, an
 * exec of one, another runtime) as tsGraphNotModeled.  The out-parameters
 * are read only where clr writes them: the result at hipSuccess and
 * hipErrorGraphExecUpdateFailure; the error node at such a failure, but
 * for clr 5.2's changed topology (clr 6 writes NULL there).
 */
hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
                              hipGraphNode_t *hErrorNode_out,
                              hipGraphExecUpdateResult *updateResult_out)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t, hipGraph_t, hipGraphNode_t *, hipGraphExecUpdateResult *) =
		(hipError_t(*)(hipGraphExec_t, hipGraph_t, hipGraphNode_t *,
		               hipGraphExecUpdateResult *))thip_begin(&call, THIP_FN_hipGraphExecUpdate);
	hipError_t r = real ? real(hGraphExec, hGraph, hErrorNode_out, updateResult_out)
	                    : THIP_NO_RUNTIME;
	uint64_t *gn = NULL, *xn = NULL;
	size_t ng = 0, nx = 0;
	uint8_t *pg = NULL, *px = NULL;
	sbt_cm_call c;
	int order;

	if (call.nested)
		goto out;
	if ((order = thip_graphnm_pair_order()) < 0 ||
	    !thip_gorder_pairs(THIP_U(hGraphExec), THIP_U(hGraph), order, &gn, &ng, &xn, &nx)) {
		thip_graphnm_record(&call, r, "hipGraphExecUpdate", 0, THIP_U(hGraphExec), 0, NULL, 0, 0);
		goto out;
	}
	/* a failure past the first pair has set the pairs before it */
	if (r == hipSuccess || r == hipErrorGraphExecUpdateFailure)
		thip_graph_inherit(THIP_U(hGraphExec), THIP_U(hGraph));
	if (!call.record)
		goto out_free;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.handle = THIP_U(hGraphExec);
	c.parent = THIP_U(hGraph);
	if ((r == hipSuccess || r == hipErrorGraphExecUpdateFailure) && updateResult_out) {
		c.value = (uint64_t)*updateResult_out;
		if (r != hipSuccess && hErrorNode_out &&
		    (order == THIP_GORDER_TOPO ||
		     *updateResult_out != hipGraphExecUpdateErrorTopologyChanged))
			c.node = THIP_U(*hErrorNode_out);
	}
	c.sub = (uint64_t)order;
	c.deps_len = thip_graphnm_pack(gn, ng, &pg);
	c.deps = pg;
	c.deps_to_len = thip_graphnm_pack(xn, nx, &px);
	c.deps_to = px;
	thip_record(SBT_CM_HIP_hipGraphExecUpdate, &c, 0);
	free(pg);
	free(px);
out_free:
	free(gn);
	free(xn);
out:
	thip_end(&call);
	return r;
}

/*
 * The changes the model covers (serializer/sbt_compute.h: as CUDA's
 * cuGraphKernelNodeSetParams, cuGraphDestroyNode and
 * cuGraphRemoveDependencies): recorded as themselves when every node they
 * name was added to a graph the interposer saw built (the nodes table),
 * else as tsGraphNotModeled (a node of a graph made by stream capture, or
 * one the trace never saw added).  A call that failed is recorded as
 * itself with its error: it changed nothing.
 */
hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node, const hipKernelNodeParams *pNodeParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t, const hipKernelNodeParams *) =
		(hipError_t(*)(hipGraphNode_t, const hipKernelNodeParams *))thip_begin(
			&call, THIP_FN_hipGraphKernelNodeSetParams);
	hipError_t r = real ? real(node, pNodeParams) : THIP_NO_RUNTIME;
	thip_node n;

	if (!call.nested) {
		memset(&n, 0, sizeof(n));
		n.node = THIP_U(node);
		n.graph = thip_graphnm_graph_of(n.node, 0);
		if (r == hipSuccess && !n.graph) {
			thip_graphnm_record(&call, r, "hipGraphKernelNodeSetParams", 0, 0, n.node, NULL, 0, 0);
		} else {
			call.node = &n;
			thip_kernel_node_record(&call, SBT_CM_HIP_hipGraphKernelNodeSetParams, r, pNodeParams);
		}
	}
	thip_end(&call);
	return r;
}

/* The node is gone afterwards: its graph is looked up before the call. */
hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t) =
		(hipError_t(*)(hipGraphNode_t))thip_begin(&call, THIP_FN_hipGraphDestroyNode);
	uint64_t graph = call.nested ? 0 : thip_graphnm_graph_of(THIP_U(node), 0);
	hipError_t r = real ? real(node) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (!call.nested) {
		if (r == hipSuccess && !graph) {
			thip_graphnm_record(&call, r, "hipGraphDestroyNode", 0, 0, THIP_U(node), NULL, 0, 0);
		} else if (call.record) {
			sbt_cm_call_init(&c);
			c.result = (uint64_t)r;
			c.node = THIP_U(node);
			c.parent = graph;
			thip_record(SBT_CM_HIP_hipGraphDestroyNode, &c, 0);
		}
		if (r == hipSuccess) {
			thip_graphnm_graph_of(THIP_U(node), 1);
			thip_gorder_destroy_node(graph, THIP_U(node));
		}
	}
	thip_end(&call);
	return r;
}

hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                      const hipGraphNode_t *to, size_t numDependencies)
{
	thip_call call;
	hipError_t (*real)(hipGraph_t, const hipGraphNode_t *, const hipGraphNode_t *, size_t) =
		(hipError_t(*)(hipGraph_t, const hipGraphNode_t *, const hipGraphNode_t *, size_t))
			thip_begin(&call, THIP_FN_hipGraphRemoveDependencies);
	hipError_t r = real ? real(graph, from, to, numDependencies) : THIP_NO_RUNTIME;
	uint8_t *pf = NULL, *pt = NULL;
	int known = 1;
	sbt_cm_call c;

	if (call.nested)
		goto out;
	if (r == hipSuccess)
		thip_gorder_edges(THIP_U(graph), from, to, numDependencies, 0);
	/* the runtime read both lists when it worked */
	for (size_t i = 0; r == hipSuccess && known && i < numDependencies; i++)
		known = thip_graphnm_graph_of(THIP_U(from[i]), 0) == THIP_U(graph) &&
		        thip_graphnm_graph_of(THIP_U(to[i]), 0) == THIP_U(graph);
	if (r == hipSuccess && !known) {
		thip_graphnm_record(&call, r, "hipGraphRemoveDependencies", THIP_U(graph), 0, 0, NULL, 0,
		                    0);
		goto out;
	}
	if (!call.record)
		goto out;
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.parent = THIP_U(graph);
	if (r == hipSuccess) {
		c.deps_len = thip_graph_pack(from, numDependencies, &pf);
		c.deps = pf;
		c.deps_to_len = thip_graph_pack(to, numDependencies, &pt);
		c.deps_to = pt;
	}
	thip_record(SBT_CM_HIP_hipGraphRemoveDependencies, &c, 0);
	free(pf);
	free(pt);
out:
	thip_end(&call);
	return r;
}

/*
 * The exec setters the model covers (as CUDA's cuGraphExec*NodeSetParams:
 * the matching add's fields with parent = the exec): recorded as
 * themselves when the node was added to a graph the interposer saw built
 * (clr 5.2 finds the exec's clone of it, hipGraphExec::GetClonedNode, so
 * a setter that worked named a node of the exec's graph), else as
 * tsGraphNotModeled.  A call that failed is recorded as itself with its
 * error: it changed nothing.  The exec's node is set, the graph's keeps
 * its own parameters.
 */
static int thip_graphnm_exec_set(const thip_call *call, hipError_t r, const char *name,
                                  hipGraphExec_t exec, hipGraphNode_t node, thip_node *n)
{
	if (call->nested)
		return 0;
	memset(n, 0, sizeof(*n));
	n->node = THIP_U(node);
	n->graph = THIP_U(exec);
	if (r == hipSuccess && !thip_graphnm_graph_of(n->node, 0)) {
		thip_graphnm_record(call, r, name, 0, THIP_U(exec), n->node, NULL, 0, 0);
		return 0;
	}
	return call->record;
}

hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipKernelNodeParams *pNodeParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t, hipGraphNode_t, const hipKernelNodeParams *) =
		(hipError_t(*)(hipGraphExec_t, hipGraphNode_t, const hipKernelNodeParams *))thip_begin(
			&call, THIP_FN_hipGraphExecKernelNodeSetParams);
	hipError_t r = real ? real(hGraphExec, node, pNodeParams) : THIP_NO_RUNTIME;
	thip_node n;

	if (thip_graphnm_exec_set(&call, r, "hipGraphExecKernelNodeSetParams", hGraphExec, node, &n)) {
		call.node = &n;
		thip_kernel_node_record(&call, SBT_CM_HIP_hipGraphExecKernelNodeSetParams, r, pNodeParams);
	}
	thip_end(&call);
	return r;
}

hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           hipMemcpy3DParms *pNodeParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t, hipGraphNode_t, hipMemcpy3DParms *) =
		(hipError_t(*)(hipGraphExec_t, hipGraphNode_t, hipMemcpy3DParms *))thip_begin(
			&call, THIP_FN_hipGraphExecMemcpyNodeSetParams);
	hipError_t r = real ? real(hGraphExec, node, pNodeParams) : THIP_NO_RUNTIME;
	thip_node n;

	if (thip_graphnm_exec_set(&call, r, "hipGraphExecMemcpyNodeSetParams", hGraphExec, node, &n)) {
		call.node = &n;
		thip_copy3d_record(&call, SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams, r, pNodeParams, 0,
		                   NULL);
	}
	thip_end(&call);
	return r;
}

hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                             void *dst, const void *src, size_t count,
                                             hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t, hipGraphNode_t, void *, const void *, size_t,
	                   hipMemcpyKind) =
		(hipError_t(*)(hipGraphExec_t, hipGraphNode_t, void *, const void *, size_t,
		               hipMemcpyKind))thip_begin(&call, THIP_FN_hipGraphExecMemcpyNodeSetParams1D);
	hipError_t r = real ? real(hGraphExec, node, dst, src, count, kind) : THIP_NO_RUNTIME;
	thip_node n;

	if (thip_graphnm_exec_set(&call, r, "hipGraphExecMemcpyNodeSetParams1D", hGraphExec, node,
	                          &n)) {
		thip_side d = {dst, 0, 0, 0, count, 0, 0}, sr = {src, 0, 0, 0, count, 0, 0};
		call.node = &n;
		thip_pitched_record(&call, SBT_CM_HIP_hipGraphExecMemcpyNodeSetParams1D, r,
		                    thip_copy_dir(kind, dst, src), &d, &sr, count, 1, 0, 0, NULL);
	}
	thip_end(&call);
	return r;
}

hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipMemsetParams *pNodeParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t, hipGraphNode_t, const hipMemsetParams *) =
		(hipError_t(*)(hipGraphExec_t, hipGraphNode_t, const hipMemsetParams *))thip_begin(
			&call, THIP_FN_hipGraphExecMemsetNodeSetParams);
	hipError_t r = real ? real(hGraphExec, node, pNodeParams) : THIP_NO_RUNTIME;
	thip_node n;
	sbt_cm_call c;

	if (thip_graphnm_exec_set(&call, r, "hipGraphExecMemsetNodeSetParams", hGraphExec, node, &n)) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.node = n.node;
		c.parent = n.graph;
		if (pNodeParams) {
			c.dst = THIP_U(pNodeParams->dst);
			c.pitch = pNodeParams->pitch;
			c.value = pNodeParams->value;
			c.elem_size = pNodeParams->elementSize;
			c.width = pNodeParams->width;
			c.height = pNodeParams->height;
		}
		thip_record(SBT_CM_HIP_hipGraphExecMemsetNodeSetParams, &c, 0);
	}
	thip_end(&call);
	return r;
}
