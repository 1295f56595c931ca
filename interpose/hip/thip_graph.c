/*
 * thip_graph.c - HIP graphs built node by node: hipGraphCreate,
 * hipGraphAddKernelNode, hipGraphAddMemcpyNode, hipGraphAddMemcpyNode1D,
 * hipGraphAddMemsetNode, hipGraphAddEmptyNode, hipGraphAddChildGraphNode,
 * hipGraphAddDependencies and hipGraphInstantiateWithFlags, recorded as the compute model's graphs
 * (serializer/sbt_compute.h, as CUDA's cuGraphAdd*Node records;
 * docs/hip.md "Graphs built node by node").  Launches, instantiation by
 * hipGraphInstantiate and the destroys are thip_calls.c's, shared with
 * graphs made by stream capture.
 *
 * A node's record carries the node handle the runtime returned, its
 * graph (parent) and its dependencies (deps, packed u64 LE handles).  A
 * kernel node's kernel is recorded as hipLaunchKernel records a launch (the
 * host stub, its name and argument layout from the registration); a
 * memcpy node as hipMemcpy3D records a copy, a host source's bytes taken
 * when the node is added, with no checkpoint (the copy runs at each
 * launch of the graph, not here).
 */
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

/* deps as packed u64 LE handles into a new buffer (*out owned by the
 * caller, NULL when there are none or out of memory). */
size_t thip_graph_pack(const hipGraphNode_t *v, size_t n, uint8_t **out)
{
	uint8_t *b;

	*out = NULL;
	if (!v || !n || n > SIZE_MAX / 8 || !(b = malloc(n * 8)))
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = THIP_U(v[i]);
		for (int k = 0; k < 8; k++)
			b[i * 8 + (size_t)k] = (uint8_t)(h >> (8 * k));
	}
	*out = b;
	return n * 8;
}

/* The node fields of an add that returned r. */
static void thip_graph_node(thip_node *n, hipError_t r, const hipGraphNode_t *out, hipGraph_t graph,
                            const hipGraphNode_t *deps, size_t ndeps, uint8_t **packed)
{
	n->node = r == hipSuccess && out ? THIP_U(*out) : 0;
	n->graph = THIP_U(graph);
	n->deps_len = thip_graph_pack(deps, ndeps, packed);
	n->deps = *packed;
	thip_graph_node_add(n->node, n->graph);
}

/* An add that worked, followed for hipGraphExecUpdate whether or not it
 * is recorded (thip_gorder.c). */
static void thip_graph_follow(const thip_call *call, hipError_t r, const hipGraphNode_t *out,
                              hipGraph_t graph, const hipGraphNode_t *deps, size_t ndeps)
{
	if (!call->nested && r == hipSuccess && out)
		thip_gorder_add(THIP_U(graph), THIP_U(*out), deps, ndeps);
}

hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)
{
	thip_call call;
	hipError_t (*real)(hipGraph_t *, unsigned) =
		(hipError_t(*)(hipGraph_t *, unsigned))thip_begin(&call, THIP_FN_hipGraphCreate);
	hipError_t r = real ? real(pGraph, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (!call.nested && r == hipSuccess && pGraph) {
		thip_graph_made(THIP_U(*pGraph), 1);
		thip_gorder_graph(THIP_U(*pGraph), 1);
	}
	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.handle = r == hipSuccess && pGraph ? THIP_U(*pGraph) : 0;
		c.flags = flags;
		thip_record(SBT_CM_HIP_hipGraphCreate, &c, 0);
	}
	thip_end(&call);
	return r;
}

hipError_t hipGraphAddKernelNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipKernelNodeParams *pNodeParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
	                   const hipKernelNodeParams *) =
		(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
		               const hipKernelNodeParams *))thip_begin(&call, THIP_FN_hipGraphAddKernelNode);
	hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies, pNodeParams)
	                    : THIP_NO_RUNTIME;
	thip_node n;
	uint8_t *packed = NULL;

	thip_graph_follow(&call, r, pGraphNode, graph, pDependencies, numDependencies);
	if (call.record) {
		thip_graph_node(&n, r, pGraphNode, graph, pDependencies, numDependencies, &packed);
		call.node = &n;
		thip_kernel_node_record(&call, SBT_CM_HIP_hipGraphAddKernelNode, r, pNodeParams);
	}
	free(packed);
	thip_end(&call);
	return r;
}

hipError_t hipGraphAddMemcpyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct hipMemcpy3DParms *pCopyParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
	                   const struct hipMemcpy3DParms *) =
		(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
		               const struct hipMemcpy3DParms *))thip_begin(&call,
		                                                           THIP_FN_hipGraphAddMemcpyNode);
	hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies, pCopyParams)
	                    : THIP_NO_RUNTIME;
	thip_node n;
	uint8_t *packed = NULL;

	thip_graph_follow(&call, r, pGraphNode, graph, pDependencies, numDependencies);
	if (call.record) {
		thip_graph_node(&n, r, pGraphNode, graph, pDependencies, numDependencies, &packed);
		call.node = &n;
		thip_copy3d_record(&call, SBT_CM_HIP_hipGraphAddMemcpyNode, r, pCopyParams, 0, NULL);
	}
	free(packed);
	thip_end(&call);
	return r;
}

hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                   const hipGraphNode_t *pDependencies, size_t numDependencies,
                                   void *dst, const void *src, size_t count, hipMemcpyKind kind)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t, void *,
	                   const void *, size_t, hipMemcpyKind) =
		(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t, void *,
		               const void *, size_t, hipMemcpyKind))thip_begin(
			&call, THIP_FN_hipGraphAddMemcpyNode1D);
	hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies, dst, src, count,
	                           kind)
	                    : THIP_NO_RUNTIME;
	thip_node n;
	uint8_t *packed = NULL;

	thip_graph_follow(&call, r, pGraphNode, graph, pDependencies, numDependencies);
	if (call.record) {
		thip_side d = {dst, 0, 0, 0, count, 0, 0}, sr = {src, 0, 0, 0, count, 0, 0};
		thip_graph_node(&n, r, pGraphNode, graph, pDependencies, numDependencies, &packed);
		call.node = &n;
		thip_pitched_record(&call, SBT_CM_HIP_hipGraphAddMemcpyNode1D, r,
		                    thip_copy_dir(kind, dst, src), &d, &sr, count, 1, 0, 0, NULL);
	}
	free(packed);
	thip_end(&call);
	return r;
}

hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipMemsetParams *pMemsetParams)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
	                   const hipMemsetParams *) =
		(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
		               const hipMemsetParams *))thip_begin(&call, THIP_FN_hipGraphAddMemsetNode);
	hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies, pMemsetParams)
	                    : THIP_NO_RUNTIME;
	thip_node n;
	uint8_t *packed = NULL;
	sbt_cm_call c;

	thip_graph_follow(&call, r, pGraphNode, graph, pDependencies, numDependencies);
	if (call.record) {
		thip_graph_node(&n, r, pGraphNode, graph, pDependencies, numDependencies, &packed);
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.node = n.node;
		c.parent = n.graph;
		c.deps = n.deps;
		c.deps_len = n.deps_len;
		if (pMemsetParams) {
			c.dst = THIP_U(pMemsetParams->dst);
			c.pitch = pMemsetParams->pitch;
			c.value = pMemsetParams->value;
			c.elem_size = pMemsetParams->elementSize;
			c.width = pMemsetParams->width;
			c.height = pMemsetParams->height;
		}
		thip_record(SBT_CM_HIP_hipGraphAddMemsetNode, &c, 0);
	}
	free(packed);
	thip_end(&call);
	return r;
}

hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                const hipGraphNode_t *pDependencies, size_t numDependencies)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t) =
		(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t))thip_begin(
			&call, THIP_FN_hipGraphAddEmptyNode);
	hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies) : THIP_NO_RUNTIME;
	thip_node n;
	uint8_t *packed = NULL;
	sbt_cm_call c;

	thip_graph_follow(&call, r, pGraphNode, graph, pDependencies, numDependencies);
	if (call.record) {
		thip_graph_node(&n, r, pGraphNode, graph, pDependencies, numDependencies, &packed);
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.node = n.node;
		c.parent = n.graph;
		c.deps = n.deps;
		c.deps_len = n.deps_len;
		thip_record(SBT_CM_HIP_hipGraphAddEmptyNode, &c, 0);
	}
	free(packed);
	thip_end(&call);
	return r;
}

/*
 * A child graph node: clr 5.2 clones the child into the node when it is
 * added (hipChildGraphNode), so later changes to the child do not reach
 * the parent.  Recorded as itself (handle = the child) when the child is
 * a graph the interposer saw made by hipGraphCreate or by a
 * hipStreamEndCapture, whose work replay holds (its nodes, or the work
 * recorded into the capture); else (a clone, one never seen) as
 * hip.tsGraphNotModeled.  The child's mark of a call not modeled
 * passes to the parent.
 */
hipError_t hipGraphAddChildGraphNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                     const hipGraphNode_t *pDependencies, size_t numDependencies,
                                     hipGraph_t childGraph)
{
	thip_call call;
	hipError_t (*real)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t, hipGraph_t) =
		(hipError_t(*)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
		               hipGraph_t))thip_begin(&call, THIP_FN_hipGraphAddChildGraphNode);
	hipError_t r = real ? real(pGraphNode, graph, pDependencies, numDependencies, childGraph)
	                    : THIP_NO_RUNTIME;
	uint64_t node = r == hipSuccess && pGraphNode ? THIP_U(*pGraphNode) : 0;
	thip_node n;
	uint8_t *packed = NULL;
	sbt_cm_call c;

	if (call.nested)
		goto out;
	thip_graph_follow(&call, r, pGraphNode, graph, pDependencies, numDependencies);
	if (r == hipSuccess && !thip_graph_is_made(THIP_U(childGraph))) {
		thip_graph_node_add(node, THIP_U(graph));
		thip_graphnm_record(&call, r, "hipGraphAddChildGraphNode", THIP_U(graph), 0, node,
		                    pDependencies, numDependencies, hipGraphNodeTypeGraph);
		goto out;
	}
	if (r == hipSuccess)
		thip_graph_inherit(THIP_U(graph), THIP_U(childGraph));
	if (!call.record)
		goto out;
	thip_graph_node(&n, r, pGraphNode, graph, pDependencies, numDependencies, &packed);
	sbt_cm_call_init(&c);
	c.result = (uint64_t)r;
	c.node = n.node;
	c.parent = n.graph;
	c.deps = n.deps;
	c.deps_len = n.deps_len;
	c.handle = THIP_U(childGraph);
	thip_record(SBT_CM_HIP_hipGraphAddChildGraphNode, &c, 0);
	free(packed);
out:
	thip_end(&call);
	return r;
}

hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                   const hipGraphNode_t *to, size_t numDependencies)
{
	thip_call call;
	hipError_t (*real)(hipGraph_t, const hipGraphNode_t *, const hipGraphNode_t *, size_t) =
		(hipError_t(*)(hipGraph_t, const hipGraphNode_t *, const hipGraphNode_t *, size_t))
			thip_begin(&call, THIP_FN_hipGraphAddDependencies);
	hipError_t r = real ? real(graph, from, to, numDependencies) : THIP_NO_RUNTIME;
	uint8_t *pf = NULL, *pt = NULL;
	sbt_cm_call c;

	if (!call.nested && r == hipSuccess)
		thip_gorder_edges(THIP_U(graph), from, to, numDependencies, 1);
	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.parent = THIP_U(graph);
		c.deps_len = thip_graph_pack(from, numDependencies, &pf);
		c.deps = pf;
		c.deps_to_len = thip_graph_pack(to, numDependencies, &pt);
		c.deps_to = pt;
		thip_record(SBT_CM_HIP_hipGraphAddDependencies, &c, 0);
	}
	free(pf);
	free(pt);
	thip_end(&call);
	return r;
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                        unsigned long long flags)
{
	thip_call call;
	hipError_t (*real)(hipGraphExec_t *, hipGraph_t, unsigned long long) =
		(hipError_t(*)(hipGraphExec_t *, hipGraph_t, unsigned long long))thip_begin(
			&call, THIP_FN_hipGraphInstantiateWithFlags);
	hipError_t r = real ? real(pGraphExec, graph, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	if (!call.nested && r == hipSuccess && pGraphExec)
		thip_gorder_instantiate(THIP_U(*pGraphExec), THIP_U(graph));
	if (call.record) {
		sbt_cm_call_init(&c);
		c.result = (uint64_t)r;
		c.handle = r == hipSuccess && pGraphExec ? THIP_U(*pGraphExec) : 0;
		c.parent = THIP_U(graph);
		c.flags = flags;
		thip_record(SBT_CM_HIP_hipGraphInstantiateWithFlags, &c, 0);
	}
	thip_end(&call);
	return r;
}
