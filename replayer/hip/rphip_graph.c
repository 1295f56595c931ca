/*
 * rphip_graph.c - HIP graphs built node by node on replay (the records:
 * serializer/sbt_compute.h; docs/hip.md "Replay").
 *
 * The nodes are not added to a live graph one by one (ROCm 5.2's
 * hipGraphAddKernelNode would take the live hipFunction_t, clr's getFunc
 * falls back to one, but every node's addresses, function and host bytes
 * would have to be mapped a second time beside the paths that map them
 * for launches, copies and memsets).  A graph built node by node is kept
 * as its records
 * (hipGraphCreate makes the graph object, each hipGraphAdd*Node record is
 * re-encoded and kept with its dependencies, hipGraphAddDependencies adds
 * edges), and hipGraphInstantiate(WithFlags) of it builds the live graph
 * the way graphs made by stream capture are rebuilt: on a stream of its
 * own that captures, each node's work is issued through the replay's
 * own launch, copy and memset paths (pointers, functions and host bytes
 * mapped as for any such record), in an order the dependencies allow
 * (Kahn's, ties by the order added); the captured graph is instantiated
 * and kept with the exec.  The live graph is a chain: its nodes run one
 * after another, an order the trace allowed, more than it asked for but
 * never less.  A trace is untrusted: a node or dependency naming a node
 * the graph does not hold, a cycle, or a node the replay cannot issue
 * (a copy to host memory, whose result the interposer does not keep; a
 * memset node taller than one row of wider elements) is refused by name.
 *
 * A child graph node copies its child's nodes.  A child made by stream
 * capture has none: replay keeps, beside the live graph, the launches,
 * copies and memsets replayed into the capture on its stream since it
 * began, as a chain of nodes in the order recorded (the order the program
 * issued them, which every dependency in a capture follows), and those are
 * the child's nodes; a capture holding other work (cap_why) or one whose
 * beginning the replay did not see is refused at the child graph node.
 *
 * An exec of such a graph keeps its own copy of the graph's nodes as they
 * were instantiated (clr 5.2's exec clones them): the exec setters
 * (hipGraphExec{Kernel,Memcpy,Memset}NodeSetParams) change that copy, and
 * the next launch of the exec builds its live exec again from it, as
 * above (the live exec is not set through the runtime's own setters:
 * the captured chain's nodes are not mapped to the trace's).
 * hipGraphExecUpdate changes that copy the same way, pair by pair as the
 * record names them (rphip_graph_exec_update).
 *
 * A hip.tsGraphNotModeled record (a call that changed a graph or an exec
 * in a way the model does not cover: other node kinds, clones, node
 * removal, setters, exec updates of graphs the interposer did not follow)
 * marks what it names, as CUDA's replay
 * does (docs/cuda-replay.md): a marked graph is never built (the rest of
 * its construction is passed over, since its later nodes may depend on
 * the node with no live counterpart), its instantiation makes an exec
 * with no live one, and a launch of a marked graph's or exec's work stops
 * the replay naming the call; launches made before an exec was changed
 * replay as usual.  A change to a node of a graph the trace does not name
 * refuses every later graph launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/hip/rphip_internal.h"

typedef struct rphip_gnode {
	uint64_t cap, seq;
	sbt_cm_hip_call hc;
	uint8_t *rec;        /* the record, re-encoded (owned) */
	size_t rec_len;
	uint64_t *deps;      /* captured node handles it waits for (owned) */
	size_t ndeps;
	struct rphip_gnodes *child; /* a child graph node: the child's nodes as
	                             * they were when it was added (owned) */
} rphip_gnode;

struct rphip_gnodes {
	rphip_gnode *v;
	size_t n, cap;
};

int rphip_is_graph_build(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipGraphCreate: case SBT_CM_HIP_hipGraphAddKernelNode:
	case SBT_CM_HIP_hipGraphAddMemcpyNode: case SBT_CM_HIP_hipGraphAddMemcpyNode1D:
	case SBT_CM_HIP_hipGraphAddMemsetNode: case SBT_CM_HIP_hipGraphAddEmptyNode:
	case SBT_CM_HIP_hipGraphAddDependencies: case SBT_CM_HIP_hipGraphKernelNodeSetParams:
	case SBT_CM_HIP_hipGraphDestroyNode: case SBT_CM_HIP_hipGraphRemoveDependencies:
	case SBT_CM_HIP_hipGraphAddChildGraphNode:
		return 1;
	default:
		return 0;
	}
}

void rphip_gnodes_free(struct rphip_gnodes *gn)
{
	if (!gn)
		return;
	for (size_t i = 0; i < gn->n; i++) {
		free(gn->v[i].rec);
		free(gn->v[i].deps);
		rphip_gnodes_free(gn->v[i].child);
	}
	free(gn->v);
	free(gn);
}

/* A copy of src's nodes, their children's too (NULL when out of memory). */
static struct rphip_gnodes *rphip_gnodes_copy(const struct rphip_gnodes *src)
{
	struct rphip_gnodes *d = calloc(1, sizeof(*d));

	if (!d || !src->n)
		return d;
	if (!(d->v = calloc(src->n, sizeof(*d->v)))) {
		free(d);
		return NULL;
	}
	d->cap = src->n;
	for (; d->n < src->n; d->n++) {
		const rphip_gnode *f = &src->v[d->n];
		rphip_gnode *t = &d->v[d->n];
		*t = *f;
		t->rec = malloc(f->rec_len ? f->rec_len : 1);
		t->deps = f->ndeps ? malloc(f->ndeps * sizeof(*t->deps)) : NULL;
		t->child = f->child ? rphip_gnodes_copy(f->child) : NULL;
		if (!t->rec || (f->ndeps && !t->deps) || (f->child && !t->child)) {
			d->n++;
			rphip_gnodes_free(d);
			return NULL;
		}
		memcpy(t->rec, f->rec, f->rec_len);
		if (f->ndeps)
			memcpy(t->deps, f->deps, f->ndeps * sizeof(*t->deps));
	}
	return d;
}

/* The slot after gn's last node, zeroed (gn->n not yet counting it);
 * NULL when out of memory. */
static rphip_gnode *rphip_gnodes_next(struct rphip_gnodes *gn)
{
	if (gn->n == gn->cap) {
		size_t cap = gn->cap ? gn->cap * 2 : 8;
		rphip_gnode *v = realloc(gn->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		gn->v = v;
		gn->cap = cap;
	}
	memset(&gn->v[gn->n], 0, sizeof(gn->v[gn->n]));
	return &gn->v[gn->n];
}

static uint64_t rphip_u64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* The node of graph g at index *out for captured node cap (what: for the
 * message). */
static rp_status rphip_gnode_find(rphip_state *s, const rphip_obj *g, uint64_t cap, const char *what,
                                  size_t i, size_t *out, rp_diag *diag)
{
	for (size_t k = 0; k < g->gn->n; k++)
		if (g->gn->v[k].cap == cap) {
			*out = k;
			return RP_OK;
		}
	return rphip_fail(s, diag, RP_ERR_TRACE, "%s %zu names graph node 0x%llx, which the trace "
	                  "never added to graph 0x%llx", what, i, (unsigned long long)cap,
	                  (unsigned long long)g->cap);
}

static rp_status rphip_graph_of(rphip_state *s, uint64_t cap, rphip_obj **out, rp_diag *diag)
{
	*out = rphip_obj_get(s, RPHIP_O_GRAPH, cap);
	if (!*out)
		return rphip_fail(s, diag, RP_ERR_TRACE, "graph 0x%llx was never made in the trace",
		                  (unsigned long long)cap);
	if (!(*out)->gn)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "graph 0x%llx was made by stream capture: "
		                  "nodes added to it are not replayed", (unsigned long long)cap);
	return RP_OK;
}

/* Whether the replay can issue node record c (hc) into a capture. */
/* Node nd takes call k's parameters (k's dependencies dropped: the node
 * keeps its own), its work named at this seq. */
static rp_status rphip_gnode_store(rphip_state *s, rphip_gnode *nd, sbt_cm_call k, rp_diag *diag)
{
	uint8_t *rec;
	size_t max, len;
	k.deps = NULL;
	k.deps_len = 0;
	max = sbt_cm_encoded_max(&k);
	if (!(rec = malloc(max)) || sbt_cm_encode(&k, rec, max, &len) != SBT_OK) {
		free(rec);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	free(nd->rec);
	nd->rec = rec;
	nd->rec_len = len;
	nd->seq = s->seq;
	return RP_OK;
}

static rp_status rphip_gnode_check(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                   rp_diag *diag)
{
	if ((hc == SBT_CM_HIP_hipGraphAddMemcpyNode || hc == SBT_CM_HIP_hipGraphAddMemcpyNode1D) &&
	    c->dst_type == 1)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "a graph node copying to host memory is not "
		                  "replayed (capture keeps no result of it to compare)");
	if (hc == SBT_CM_HIP_hipGraphAddMemsetNode &&
	    (c->height != 1 || (c->elem_size != 1 && c->elem_size != 2 && c->elem_size != 4) ||
	     c->width > UINT64_MAX / 4))
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "a memset node of %llu rows of %llu "
		                  "elements of %llu bytes is not replayed (one row of 1, 2 or 4-byte "
		                  "elements is)", (unsigned long long)c->height,
		                  (unsigned long long)c->width, (unsigned long long)c->elem_size);
	return RP_OK;
}

static rp_status rphip_gnode_add(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                 rp_diag *diag)
{
	rphip_obj *g;
	rphip_gnode *n;
	size_t ndeps = c->deps_len / 8, at, max;
	rp_status st;

	if ((st = rphip_graph_of(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (!c->node)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a node added to graph 0x%llx with no handle",
		                  (unsigned long long)c->parent);
	if (c->deps_len % 8)
		return rphip_fail(s, diag, RP_ERR_TRACE, "its dependencies are %zu bytes, not a list of "
		                  "8-byte handles", c->deps_len);
	for (size_t k = 0; k < g->gn->n; k++)
		if (g->gn->v[k].cap == c->node)
			return rphip_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx was added to graph 0x%llx "
			                  "already (seq %llu)", (unsigned long long)c->node,
			                  (unsigned long long)c->parent, (unsigned long long)g->gn->v[k].seq);
	for (size_t i = 0; i < ndeps; i++)
		if ((st = rphip_gnode_find(s, g, rphip_u64_at(c->deps + i * 8), "dependency", i, &at,
		                           diag)) != RP_OK)
			return st;
	if (!(n = rphip_gnodes_next(g->gn)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	max = sbt_cm_encoded_max(c);
	if (!(n->rec = malloc(max)) || (ndeps && !(n->deps = calloc(ndeps, sizeof(*n->deps)))) ||
	    sbt_cm_encode(c, n->rec, max, &n->rec_len) != SBT_OK) {
		free(n->rec);
		free(n->deps);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < ndeps; i++)
		n->deps[i] = rphip_u64_at(c->deps + i * 8);
	n->ndeps = ndeps;
	n->cap = c->node;
	n->seq = s->seq;
	n->hc = hc;
	g->gn->n++;
	return RP_OK;
}

static rp_status rphip_gnode_deps(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *g;
	size_t n = c->deps_len / 8, from = 0, to = 0;
	rp_status st;

	if ((st = rphip_graph_of(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (c->deps_len % 8 || c->deps_len != c->deps_to_len)
		return rphip_fail(s, diag, RP_ERR_TRACE, "%zu bytes of 'from' nodes and %zu of 'to' "
		                  "nodes: not two lists of as many 8-byte handles", c->deps_len,
		                  c->deps_to_len);
	for (size_t i = 0; i < n; i++) {
		rphip_gnode *t;
		uint64_t *v;
		if ((st = rphip_gnode_find(s, g, rphip_u64_at(c->deps + i * 8), "'from' node", i, &from,
		                           diag)) != RP_OK ||
		    (st = rphip_gnode_find(s, g, rphip_u64_at(c->deps_to + i * 8), "'to' node", i, &to,
		                           diag)) != RP_OK)
			return st;
		t = &g->gn->v[to];
		if (t->ndeps == SIZE_MAX / sizeof(*v) ||
		    !(v = realloc(t->deps, (t->ndeps + 1) * sizeof(*v))))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		t->deps = v;
		v[t->ndeps++] = g->gn->v[from].cap;
	}
	return RP_OK;
}

/* The call and seq of a tsGraphNotModeled record, printable, into a new
 * string; NULL when out of memory. */
static char *rphip_graph_why(const rphip_state *s, const sbt_cm_call *c, int unnamed)
{
	char why[240], call[64];
	size_t n = c->name && c->name_len ? c->name_len : 0;

	if (n >= sizeof(call))
		n = sizeof(call) - 1;
	for (size_t i = 0; i < n; i++) /* the trace's bytes: unprintable ones shown as '?' */
		call[i] = c->name[i] >= 0x20 && c->name[i] < 0x7f ? (char)c->name[i] : '?';
	if (!n)
		n = (size_t)snprintf(call, sizeof(call), "a call");
	call[n] = 0;
	if (unnamed)
		snprintf(why, sizeof(why), "%s at seq %llu changed node 0x%llx of a graph the trace does "
		         "not name, which replay does not model", call, (unsigned long long)s->seq,
		         (unsigned long long)c->node);
	else
		snprintf(why, sizeof(why), "%s at seq %llu", call, (unsigned long long)s->seq);
	return strdup(why);
}

rp_status rphip_graph_not_modeled(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *o;
	char **slot;

	if (c->handle) {
		o = rphip_obj_get(s, RPHIP_O_GRAPHEXEC, c->handle);
		if (!o)
			return RP_OK; /* no exec: its launch says so */
	} else if (c->parent) {
		/* a graph the trace never made (a clone) gets one that never builds */
		o = rphip_obj_get(s, RPHIP_O_GRAPH, c->parent);
		if (!o && !(o = rphip_obj_put(s, RPHIP_O_GRAPH, c->parent)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	} else if (c->node) {
		o = NULL;
	} else {
		return RP_OK;
	}
	slot = o ? &o->not_modeled : &s->graphs_refused;
	if (*slot) /* the first such call is the one named */
		return RP_OK;
	if (!(*slot = rphip_graph_why(s, c, !o)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	return RP_OK;
}

rp_status rphip_graph_launch_check(rphip_state *s, const rphip_obj *e, rp_diag *diag)
{
	if (e->not_modeled)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "graph exec 0x%llx cannot be replayed: it or "
		                  "its graph was changed by %s, which replay does not model; replay a "
		                  "--range that ends before seq %llu", (unsigned long long)e->cap,
		                  e->not_modeled, (unsigned long long)s->seq);
	if (s->graphs_refused)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "graph exec 0x%llx cannot be replayed: %s; "
		                  "replay a --range that ends before seq %llu", (unsigned long long)e->cap,
		                  s->graphs_refused, (unsigned long long)s->seq);
	return RP_OK;
}

/*
 * hipGraphKernelNodeSetParams (the node's record becomes this one, its
 * dependencies kept), hipGraphDestroyNode (the node goes, and every edge
 * to it), hipGraphRemoveDependencies (the edges go; one the graph does not
 * hold is a damaged trace: clr refuses to remove it).  On a graph made by
 * stream capture, whose nodes replay does not hold, the change marks the
 * graph as a call not modeled does.
 */
static rp_status rphip_gnode_change(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                    rp_diag *diag)
{
	rphip_obj *g = rphip_obj_get(s, RPHIP_O_GRAPH, c->parent);
	size_t at = 0, n;
	rp_status st;

	if (g && !g->gn) {
		sbt_cm_call nm = *c;
		nm.name = (const uint8_t *)sbt_cm_hip_name(hc);
		nm.name_len = strlen(sbt_cm_hip_name(hc));
		nm.node = 0;
		return rphip_graph_not_modeled(s, &nm, diag);
	}
	if ((st = rphip_graph_of(s, c->parent, &g, diag)) != RP_OK)
		return st;
	if (hc == SBT_CM_HIP_hipGraphRemoveDependencies) {
		n = c->deps_len / 8;
		if (c->deps_len % 8 || c->deps_len != c->deps_to_len)
			return rphip_fail(s, diag, RP_ERR_TRACE, "%zu bytes of 'from' nodes and %zu of 'to' "
			                  "nodes: not two lists of as many 8-byte handles", c->deps_len,
			                  c->deps_to_len);
		for (size_t i = 0; i < n; i++) {
			uint64_t from = rphip_u64_at(c->deps + i * 8);
			rphip_gnode *t;
			size_t k;
			if ((st = rphip_gnode_find(s, g, from, "'from' node", i, &at, diag)) != RP_OK ||
			    (st = rphip_gnode_find(s, g, rphip_u64_at(c->deps_to + i * 8), "'to' node", i,
			                           &at, diag)) != RP_OK)
				return st;
			t = &g->gn->v[at];
			for (k = 0; k < t->ndeps && t->deps[k] != from; k++)
				;
			if (k == t->ndeps)
				return rphip_fail(s, diag, RP_ERR_TRACE, "edge %zu (0x%llx -> 0x%llx) is not in "
				                  "graph 0x%llx", i, (unsigned long long)from,
				                  (unsigned long long)t->cap, (unsigned long long)g->cap);
			t->deps[k] = t->deps[--t->ndeps];
		}
		return RP_OK;
	}
	if ((st = rphip_gnode_find(s, g, c->node, "the node", 0, &at, diag)) != RP_OK)
		return st;
	if (hc == SBT_CM_HIP_hipGraphDestroyNode) {
		rphip_gnode gone = g->gn->v[at];
		memmove(&g->gn->v[at], &g->gn->v[at + 1], (g->gn->n - at - 1) * sizeof(rphip_gnode));
		g->gn->n--;
		for (size_t i = 0; i < g->gn->n; i++) {
			rphip_gnode *t = &g->gn->v[i];
			size_t keep = 0;
			for (size_t k = 0; k < t->ndeps; k++)
				if (t->deps[k] != gone.cap)
					t->deps[keep++] = t->deps[k];
			t->ndeps = keep;
		}
		free(gone.rec);
		free(gone.deps);
		return RP_OK;
	}
	/* hipGraphKernelNodeSetParams */
	{
		rphip_gnode *nd = &g->gn->v[at];
		if (nd->hc != SBT_CM_HIP_hipGraphAddKernelNode)
			return rphip_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx (seq %llu) is not a kernel "
			                  "node", (unsigned long long)nd->cap, (unsigned long long)nd->seq);
		return rphip_gnode_store(s, nd, *c, diag); /* its work named at the record that set it */
	}
}

/*
 * hipGraphAddChildGraphNode: clr copies the child into the node, so the
 * node keeps a copy of the child's nodes as they are now (later changes
 * to the child, or its destroy, do not reach it).  A child a call not
 * modeled changed marks the parent the same way; a child the trace never
 * made, or made by stream capture (the interposer records a child node of
 * such a graph as tsGraphNotModeled), is refused by name.
 */
static rp_status rphip_gnode_child(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *g, *ch;
	struct rphip_gnodes *copy;
	rp_status st;

	if ((st = rphip_graph_of(s, c->parent, &g, diag)) != RP_OK)
		return st;
	ch = rphip_obj_get(s, RPHIP_O_GRAPH, c->handle);
	if (!ch)
		return rphip_fail(s, diag, RP_ERR_TRACE, "child graph 0x%llx was never made in the trace",
		                  (unsigned long long)c->handle);
	if (ch->not_modeled) {
		if (!(g->not_modeled = strdup(ch->not_modeled)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		return RP_OK;
	}
	if (!ch->gn && ch->cap_why)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "child graph 0x%llx was made by a stream "
		                  "capture that holds %s, which a child graph node does not replay "
		                  "(launches, copies and memsets it does)", (unsigned long long)c->handle,
		                  ch->cap_why);
	if (!ch->gn && !ch->cap_gn)
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "child graph 0x%llx was made by a stream "
		                  "capture this replay did not see whole (it began before the range): a "
		                  "child graph node of it is not replayed", (unsigned long long)c->handle);
	/* copied before the node is added: a graph may be its own child */
	if (!(copy = rphip_gnodes_copy(ch->gn ? ch->gn : ch->cap_gn)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if ((st = rphip_gnode_add(s, SBT_CM_HIP_hipGraphAddChildGraphNode, c, diag)) != RP_OK) {
		rphip_gnodes_free(copy);
		return st;
	}
	g->gn->v[g->gn->n - 1].child = copy;
	return RP_OK;
}

rp_status rphip_graph_build(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                            rp_diag *diag)
{
	rphip_obj *g;

	/* a graph a call not modeled changed: the rest of it is passed over */
	if (hc != SBT_CM_HIP_hipGraphCreate && (g = rphip_obj_get(s, RPHIP_O_GRAPH, c->parent)) &&
	    g->not_modeled)
		return RP_OK;
	switch (hc) {
	case SBT_CM_HIP_hipGraphCreate:
		if (!(g = rphip_obj_put(s, RPHIP_O_GRAPH, c->handle)) ||
		    !(g->gn = calloc(1, sizeof(*g->gn))))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		g->made_seq = s->seq;
		return RP_OK;
	case SBT_CM_HIP_hipGraphAddDependencies:
		return rphip_gnode_deps(s, c, diag);
	case SBT_CM_HIP_hipGraphAddChildGraphNode:
		return rphip_gnode_child(s, c, diag);
	case SBT_CM_HIP_hipGraphKernelNodeSetParams:
	case SBT_CM_HIP_hipGraphDestroyNode:
	case SBT_CM_HIP_hipGraphRemoveDependencies:
		return rphip_gnode_change(s, hc, c, diag);
	default:
		return rphip_gnode_add(s, hc, c, diag);
	}
}

rp_status rphip_graph_capture_begin(rphip_state *s, rphip_obj *so, rp_diag *diag)
{
	rphip_gnodes_free(so->cap_gn);
	free(so->cap_why);
	so->cap_why = NULL;
	if (!(so->cap_gn = calloc(1, sizeof(*so->cap_gn))))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	return RP_OK;
}

/* The work a child graph node of a captured graph re-issues: launches,
 * and the copies and memsets a stream captures (a device-to-host one is
 * refused where it was captured). */
static int rphip_is_captured_work(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipLaunchKernel: case SBT_CM_HIP_hipModuleLaunchKernel:
	case SBT_CM_HIP_hipExtModuleLaunchKernel:
	case SBT_CM_HIP_hipMemcpyAsync: case SBT_CM_HIP_hipMemcpyHtoDAsync:
	case SBT_CM_HIP_hipMemcpyDtoDAsync: case SBT_CM_HIP_hipMemcpy2DAsync:
	case SBT_CM_HIP_hipMemcpy3DAsync: case SBT_CM_HIP_hipMemcpyParam2DAsync:
	case SBT_CM_HIP_hipMemsetAsync: case SBT_CM_HIP_hipMemsetD8Async:
	case SBT_CM_HIP_hipMemsetD16Async: case SBT_CM_HIP_hipMemsetD32Async:
	case SBT_CM_HIP_hipMemset2DAsync: case SBT_CM_HIP_hipMemset3DAsync:
		return 1;
	default:
		return 0;
	}
}

/*
 * Record c, replayed into the capture on its stream: kept as the next node
 * of that capture's chain (each node after the one before: the order the
 * program issued them in, which every dependency of a capture follows).
 * Work of another kind (an event recorded or waited for, a host function,
 * a stream-ordered allocation or free, ...) is named in cap_why instead: a
 * child graph node of the graph is refused.  A stream the replay does not
 * know, or one whose capture began before the replay's range, keeps
 * nothing: a child of its graph is refused.
 */
rp_status rphip_graph_capture_note(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                   rp_diag *diag)
{
	rphip_obj *so = rphip_obj_get(s, RPHIP_O_STREAM, c->stream);
	struct rphip_gnodes *gn;
	rphip_gnode *n;
	size_t max;
	char why[96];

	if (!so || !so->cap_gn)
		return RP_OK;
	gn = so->cap_gn;
	if (!rphip_is_captured_work(hc)) {
		if (so->cap_why)
			return RP_OK;
		snprintf(why, sizeof(why), "%s at seq %llu", sbt_cm_hip_name(hc),
		         (unsigned long long)s->seq);
		if (!(so->cap_why = strdup(why)))
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		return RP_OK;
	}
	if (!(n = rphip_gnodes_next(gn)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	max = sbt_cm_encoded_max(c);
	if (!(n->rec = malloc(max)) || (gn->n && !(n->deps = malloc(sizeof(*n->deps)))) ||
	    sbt_cm_encode(c, n->rec, max, &n->rec_len) != SBT_OK) {
		free(n->rec);
		free(n->deps);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	/* a captured record has no node handle: its seq names it in the chain */
	n->cap = s->seq;
	n->seq = s->seq;
	n->hc = hc;
	if (gn->n) {
		n->deps[0] = gn->v[gn->n - 1].cap;
		n->ndeps = 1;
	}
	gn->n++;
	return RP_OK;
}

/* The order the nodes are issued in: each after its dependencies (Kahn's,
 * ties by the order added); -1 on a cycle. */
static int rphip_gnode_order(const struct rphip_gnodes *gn, size_t *order)
{
	unsigned char *done = calloc(gn->n ? gn->n : 1, 1);
	size_t k = 0;

	if (!done)
		return -1;
	while (k < gn->n) {
		size_t pick = gn->n;
		for (size_t i = 0; i < gn->n && pick == gn->n; i++) {
			int ready = !done[i];
			for (size_t d = 0; ready && d < gn->v[i].ndeps; d++)
				for (size_t j = 0; j < gn->n; j++)
					if (gn->v[j].cap == gn->v[i].deps[d] && !done[j])
						ready = 0;
			if (ready)
				pick = i;
		}
		if (pick == gn->n)
			break;
		done[pick] = 1;
		order[k++] = pick;
	}
	free(done);
	return k == gn->n ? 0 : -1;
}

static rp_status rphip_gnodes_issue(rphip_state *s, const struct rphip_gnodes *gn,
                                   const char *what, uint64_t cap, rp_diag *diag);

/* Issue node n's work on the build stream, as the call that makes it; a
 * child graph node's, as its nodes' in their order. */
static rp_status rphip_gnode_issue(rphip_state *s, const rphip_gnode *n, rp_diag *diag)
{
	sbt_cm_call c;
	sbt_cm_hip_call hc;
	rp_status st;

	if (n->hc == SBT_CM_HIP_hipGraphAddEmptyNode)
		return RP_OK;
	if (n->hc == SBT_CM_HIP_hipGraphAddChildGraphNode)
		return n->child ? rphip_gnodes_issue(s, n->child, "child graph node", n->cap, diag)
		                : RP_OK;
	if (sbt_cm_decode(n->rec, n->rec_len, &c) != SBT_OK)
		return rphip_fail(s, diag, RP_ERR_DECODE, "graph node 0x%llx (seq %llu) could not be read "
		                  "back", (unsigned long long)n->cap, (unsigned long long)n->seq);
	/* named at its own seq (s->seq is the node's while it is issued) */
	if ((st = rphip_gnode_check(s, n->hc, &c, diag)) != RP_OK)
		return st;
	c.stream = RPHIP_BUILD_STREAM;
	c.capture_status = hipStreamCaptureStatusActive;
	c.ptds = 0;
	/* work a stream capture recorded (a child of a captured graph): as it was */
	if (!rphip_is_graph_build(n->hc))
		return rphip_exec(s, n->hc, &c, diag);
	switch (n->hc) {
	case SBT_CM_HIP_hipGraphAddKernelNode:
		hc = SBT_CM_HIP_hipLaunchKernel;
		break;
	case SBT_CM_HIP_hipGraphAddMemsetNode:
		hc = c.elem_size == 2 ? SBT_CM_HIP_hipMemsetD16Async
		     : c.elem_size == 4 ? SBT_CM_HIP_hipMemsetD32Async : SBT_CM_HIP_hipMemsetD8Async;
		c.size = c.width * c.elem_size;
		break;
	default: /* the memcpy nodes: pitched copies */
		hc = SBT_CM_HIP_hipMemcpy3DAsync;
		break;
	}
	return rphip_exec(s, hc, &c, diag);
}

/* Issue the nodes of gn (of graph or child graph node cap: what) in an
 * order their dependencies allow, each named at its own record. */
static rp_status rphip_gnodes_issue(rphip_state *s, const struct rphip_gnodes *gn,
                                   const char *what, uint64_t cap, rp_diag *diag)
{
	size_t *order = calloc(gn->n ? gn->n : 1, sizeof(*order));
	rp_status st = RP_OK;

	if (!order)
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (rphip_gnode_order(gn, order) != 0) {
		st = rphip_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx's dependencies make a cycle: no order "
		                "runs its nodes", what, (unsigned long long)cap);
		goto out;
	}
	for (size_t i = 0; i < gn->n && st == RP_OK; i++) {
		const rphip_gnode *n = &gn->v[order[i]];
		s->seq = n->seq;
		s->call = sbt_cm_hip_name(n->hc);
		st = rphip_gnode_issue(s, n, diag);
	}
out:
	free(order);
	return st;
}

/* A live exec of nodes gn (of graph cap) into *exec_out, with the live
 * graph it was instantiated from into *graph_out. */
static rp_status rphip_gnodes_build(rphip_state *s, const struct rphip_gnodes *gn, uint64_t cap,
                                    hipGraphExec_t *exec_out, hipGraph_t *graph_out,
                                    rp_diag *diag)
{
	rphip_obj build;
	hipStream_t stream = NULL;
	hipGraph_t live = NULL;
	hipGraphExec_t exec = NULL;
	uint64_t seq = s->seq;
	const char *call = s->call;
	int single = s->single;
	hipError_t r;
	rp_status st = RP_OK;

	r = s->rt.p_hipStreamCreateWithPriority(&stream, hipStreamNonBlocking, 0);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipStreamCreateWithPriority", r);
	r = s->rt.p_hipStreamBeginCapture(stream, hipStreamCaptureModeRelaxed);
	if (r != hipSuccess) {
		st = rphip_hipfail(s, diag, "hipStreamBeginCapture", r);
		goto out_destroy_stream;
	}
	memset(&build, 0, sizeof(build));
	build.cap = RPHIP_BUILD_STREAM;
	build.kind = RPHIP_O_STREAM;
	build.live = stream;
	build.capturing = 1;
	s->build = &build;
	s->single = 0; /* the nodes go on this stream whatever --streams says */
	st = rphip_gnodes_issue(s, gn, "graph", cap, diag);
	s->seq = seq;
	s->call = call;
	s->single = single;
	s->build = NULL;
	r = s->rt.p_hipStreamEndCapture(stream, &live);
	if (st != RP_OK)
		goto out_destroy_graph;
	if (r != hipSuccess) {
		st = rphip_hipfail(s, diag, "hipStreamEndCapture", r);
		goto out_destroy_graph;
	}
	r = s->rt.p_hipGraphInstantiate(&exec, live, NULL, NULL, 0);
	if (r != hipSuccess) {
		st = rphip_hipfail(s, diag, "hipGraphInstantiate", r);
		goto out_destroy_graph;
	}
	*exec_out = exec;
	*graph_out = live;
	live = NULL;
out_destroy_graph:
	if (live)
		s->rt.p_hipGraphDestroy(live);
out_destroy_stream:
	s->rt.p_hipStreamDestroy(stream);
	return st;
}

rp_status rphip_graph_instantiate_nodes(rphip_state *s, rphip_obj *g, const sbt_cm_call *c,
                                        rp_diag *diag)
{
	struct rphip_gnodes *nodes;
	hipGraph_t live = NULL;
	hipGraphExec_t exec = NULL;
	rphip_obj *eo;
	rp_status st;

	/* the exec keeps its own copy, which its setters change; taken before
	 * rphip_obj_put, which may move g */
	if (!(nodes = rphip_gnodes_copy(g->gn)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if ((st = rphip_gnodes_build(s, nodes, g->cap, &exec, &live, diag)) != RP_OK)
		goto out_free_nodes;
	if (!(eo = rphip_obj_put(s, RPHIP_O_GRAPHEXEC, c->handle))) {
		s->rt.p_hipGraphExecDestroy(exec);
		s->rt.p_hipGraphDestroy(live);
		st = rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		goto out_free_nodes;
	}
	eo->live = exec;
	eo->live_graph = live;
	eo->gn = nodes;
	return RP_OK;
out_free_nodes:
	rphip_gnodes_free(nodes);
	return st;
}

/*
 * An exec setter (c->parent = the exec, c->node = the node of its graph,
 * the node's fields as the matching add records them).  clr 5.2 sets the
 * exec's clone of the node; here the exec's copy of the node's record
 * becomes this one (its dependencies kept, its work named at this seq),
 * and the exec's live counterpart is built again from its nodes at its
 * next launch.  An exec of a graph made by stream capture (replay holds
 * no nodes of it) is marked as a call not modeled marks it.  The node
 * must be one of the exec's, of the setter's kind: clr refuses others
 * (GetClonedNode), so a setter that worked naming one is a damaged trace.
 */
rp_status rphip_graph_exec_set(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                               rp_diag *diag)
{
	rphip_obj *e = rphip_obj_get(s, RPHIP_O_GRAPHEXEC, c->parent);
	sbt_cm_hip_call want = hc == SBT_CM_HIP_hipGraphExecKernelNodeSetParams
	                               ? SBT_CM_HIP_hipGraphAddKernelNode
	                       : hc == SBT_CM_HIP_hipGraphExecMemsetNodeSetParams
	                               ? SBT_CM_HIP_hipGraphAddMemsetNode
	                               : SBT_CM_HIP_hipGraphAddMemcpyNode;
	rphip_gnode *nd;
	sbt_cm_call k = *c;
	size_t at = 0;
	rp_status st;

	if (!e)
		return rphip_failed_has(s, c->parent)
		               ? RP_OK
		               : rphip_fail(s, diag, RP_ERR_TRACE, "graph exec 0x%llx was never created "
		                            "in the trace", (unsigned long long)c->parent);
	if (e->not_modeled) /* its launches are refused already */
		return RP_OK;
	if (!e->gn) {
		sbt_cm_call nm = *c;
		nm.name = (const uint8_t *)sbt_cm_hip_name(hc);
		nm.name_len = strlen(sbt_cm_hip_name(hc));
		nm.handle = c->parent;
		nm.node = 0;
		return rphip_graph_not_modeled(s, &nm, diag);
	}
	for (at = 0; at < e->gn->n && e->gn->v[at].cap != c->node; at++)
		;
	if (at == e->gn->n)
		return rphip_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx is not a node of graph exec "
		                  "0x%llx (its graph did not hold it when it was instantiated)",
		                  (unsigned long long)c->node, (unsigned long long)c->parent);
	nd = &e->gn->v[at];
	if (nd->hc != want &&
	    !(want == SBT_CM_HIP_hipGraphAddMemcpyNode && nd->hc == SBT_CM_HIP_hipGraphAddMemcpyNode1D))
		return rphip_fail(s, diag, RP_ERR_TRACE, "graph node 0x%llx (seq %llu) is a %s node, not "
		                  "one %s sets", (unsigned long long)nd->cap, (unsigned long long)nd->seq,
		                  sbt_cm_hip_name(nd->hc), sbt_cm_hip_name(hc));
	/* checked here too, so that a node replay cannot issue is named at its setter */
	if ((st = rphip_gnode_check(s, want, c, diag)) != RP_OK)
		return st;
	k.parent = 0;
	if ((st = rphip_gnode_store(s, nd, k, diag)) != RP_OK)
		return st;
	if (!e->set_seq)
		e->set_seq = s->seq;
	return RP_OK;
}

/* The index in gn of captured node cap, or gn->n. */
static size_t rphip_gnode_at(const struct rphip_gnodes *gn, uint64_t cap)
{
	size_t k = 0;

	while (k < gn->n && gn->v[k].cap != cap)
		k++;
	return k;
}

static int rphip_gnode_is_copy(sbt_cm_hip_call hc)
{
	return hc == SBT_CM_HIP_hipGraphAddMemcpyNode || hc == SBT_CM_HIP_hipGraphAddMemcpyNode1D;
}

/*
 * hipGraphExecUpdate (handle = the exec, parent = the graph; deps = the
 * graph's nodes in the order the capture's clr paired them at the call,
 * deps_to = the exec's at its instantiation: the pairs it made, index by
 * index; sub = that order: absent for clr 5.2's level order, 1 for clr
 * 6.0-6.2's topological order; value = its hipGraphExecUpdateResult,
 * node = its error node).  As clr does, pair by pair the exec's copy of a
 * node takes the record of the graph's node paired with it (its own
 * dependencies kept; a child graph node the new child's nodes), until the
 * pair that failed; the live exec is built again at its next launch, as
 * after a setter.  Replay never asks its own runtime to pair (it rebuilds
 * the exec from its copy), so the replaying runtime's order does not
 * change what runs: the capture's pairs are applied under either runtime.
 * What the order decides is which checks the capture's clr made, and so
 * what a pair must show: both orders, one kind per pair (clr 6: a 1D copy
 * is a copy); clr 6 also one count of dependencies (the graph's node now,
 * the exec's at instantiation) and one copy kind.  The copy kind is the
 * one check replay cannot make: a copy's record keeps the direction the
 * interposer resolved, not the kind the program gave (hipMemcpyDefault),
 * so a capture's hipGraphExecUpdateErrorParametersChanged naming a copy
 * paired with a copy is taken as it was answered.  An order replay does not
 * know is refused by name.  Where the capture's update worked, lists of two
 * lengths, a node replay does not hold or a pair that fails a check is
 * refused by name (this replay cannot do what the capture's runtime did).
 * Where it failed with hipErrorGraphExecUpdateFailure, replay reproduces
 * the failure: a changed topology must show as lists of two lengths
 * (nothing is set; clr 6 names no error node there), the error node's
 * pair must fail the check its result names (changed kind; clr 6: another
 * count of dependencies as a changed topology; a copy kind as above), the
 * pairs before it are set; any other account is refused by name.  An exec
 * or graph replay holds no nodes of (made by stream capture), or one a call
 * not modeled changed, marks the exec as a call not modeled does.
 */
rp_status rphip_graph_exec_update(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *e = rphip_obj_get(s, RPHIP_O_GRAPHEXEC, c->handle), *g;
	size_t n = c->deps_len / 8, nx = c->deps_to_len / 8, stop = n;
	int failed = c->result != hipSuccess, topo = c->sub == 1;
	char why[200];
	rp_status st;

	if (failed && c->result != hipErrorGraphExecUpdateFailure)
		return RP_OK; /* refused before any pair (a null argument): nothing changed */
	if (c->sub > 1)
		return rphip_fail(s, diag, RP_ERR_TRACE, "graph exec 0x%llx's update from graph 0x%llx "
		                  "pairs its nodes in order %llu, which this replay does not know (0: "
		                  "clr 5.2's level order, 1: clr 6's topological order)",
		                  (unsigned long long)c->handle, (unsigned long long)c->parent,
		                  (unsigned long long)c->sub);
	if (!e)
		return rphip_failed_has(s, c->handle)
		               ? RP_OK
		               : rphip_fail(s, diag, RP_ERR_TRACE, "graph exec 0x%llx was never created "
		                            "in the trace", (unsigned long long)c->handle);
	if (e->not_modeled) /* its launches are refused already */
		return RP_OK;
	g = rphip_obj_get(s, RPHIP_O_GRAPH, c->parent);
	if (!g)
		return rphip_fail(s, diag, RP_ERR_TRACE, "graph 0x%llx was never made in the trace",
		                  (unsigned long long)c->parent);
	if (!e->gn || !g->gn || g->not_modeled) {
		sbt_cm_call nm = *c;
		if (g->not_modeled && (e->not_modeled = strdup(g->not_modeled)))
			return RP_OK;
		nm.name = (const uint8_t *)"hipGraphExecUpdate";
		nm.name_len = strlen("hipGraphExecUpdate");
		nm.node = 0;
		nm.sub = 0;
		return rphip_graph_not_modeled(s, &nm, diag);
	}
	if (c->deps_len % 8 || c->deps_to_len % 8)
		return rphip_fail(s, diag, RP_ERR_TRACE, "%zu bytes of graph nodes and %zu of exec nodes: "
		                  "not lists of 8-byte handles", c->deps_len, c->deps_to_len);
	why[0] = 0;
	if (n != nx) {
		if (failed && c->value == hipGraphExecUpdateErrorTopologyChanged && !(topo && c->node))
			return RP_OK; /* the same failure: nothing set */
		snprintf(why, sizeof(why), "it pairs %zu graph nodes with %zu exec nodes", n, nx);
	}
	for (size_t i = 0; !why[0] && i < n; i++) {
		uint64_t gc = rphip_u64_at(c->deps + i * 8), xc = rphip_u64_at(c->deps_to + i * 8);
		size_t gi = rphip_gnode_at(g->gn, gc), xi = rphip_gnode_at(e->gn, xc);
		const rphip_gnode *gv, *xv;
		uint64_t fails = hipGraphExecUpdateSuccess;
		if (gi == g->gn->n || xi == e->gn->n) {
			snprintf(why, sizeof(why), "pair %zu names %s node 0x%llx, which it does not hold", i,
			         gi == g->gn->n ? "graph" : "exec",
			         (unsigned long long)(gi == g->gn->n ? gc : xc));
			break;
		}
		gv = &g->gn->v[gi];
		xv = &e->gn->v[xi];
		if (gv->hc != xv->hc && !(topo && rphip_gnode_is_copy(gv->hc) && rphip_gnode_is_copy(xv->hc)))
			fails = hipGraphExecUpdateErrorNodeTypeChanged;
		else if (topo && rphip_gnode_is_copy(gv->hc) && failed &&
		         c->value == hipGraphExecUpdateErrorParametersChanged && c->node == gc)
			fails = hipGraphExecUpdateErrorParametersChanged; /* see above: not checkable */
		else if (topo && gv->ndeps != xv->ndeps)
			fails = hipGraphExecUpdateErrorTopologyChanged;
		if (fails == hipGraphExecUpdateSuccess)
			continue;
		if (failed && c->value == fails && c->node == gc) {
			stop = i; /* the same failure, at the same pair */
			break;
		}
		if (fails == hipGraphExecUpdateErrorNodeTypeChanged)
			snprintf(why, sizeof(why), "pair %zu is a %s node (0x%llx) with a %s node (0x%llx)", i,
			         sbt_cm_hip_name(gv->hc), (unsigned long long)gc, sbt_cm_hip_name(xv->hc),
			         (unsigned long long)xc);
		else
			snprintf(why, sizeof(why), "pair %zu is a node of %zu dependencies (0x%llx) with one "
			         "of %zu (0x%llx)", i, gv->ndeps, (unsigned long long)gc, xv->ndeps,
			         (unsigned long long)xc);
	}
	if (!why[0] && failed && stop == n)
		snprintf(why, sizeof(why), "every pair has one kind, where the capture's runtime "
		         "answered update result %llu (error node 0x%llx)", (unsigned long long)c->value,
		         (unsigned long long)c->node);
	if (why[0])
		return rphip_fail(s, diag, RP_ERR_TRACE, "graph exec 0x%llx's update from graph 0x%llx "
		                  "cannot be replayed as %s at capture: %s", (unsigned long long)c->handle,
		                  (unsigned long long)c->parent, failed ? "it failed" : "it worked", why);
	for (size_t i = 0; i < stop; i++) {
		const rphip_gnode *from = &g->gn->v[rphip_gnode_at(g->gn, rphip_u64_at(c->deps + i * 8))];
		rphip_gnode *to = &e->gn->v[rphip_gnode_at(e->gn, rphip_u64_at(c->deps_to + i * 8))];
		sbt_cm_call k;
		if (from->hc == SBT_CM_HIP_hipGraphAddEmptyNode)
			continue;
		if (from->hc == SBT_CM_HIP_hipGraphAddChildGraphNode) {
			struct rphip_gnodes *copy = NULL;
			if (from->child && !(copy = rphip_gnodes_copy(from->child)))
				return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			rphip_gnodes_free(to->child);
			to->child = copy;
			to->seq = s->seq;
			continue;
		}
		if (sbt_cm_decode(from->rec, from->rec_len, &k) != SBT_OK)
			return rphip_fail(s, diag, RP_ERR_DECODE, "graph node 0x%llx (seq %llu) could not be "
			                  "read back", (unsigned long long)from->cap,
			                  (unsigned long long)from->seq);
		if ((st = rphip_gnode_check(s, from->hc, &k, diag)) != RP_OK)
			return st;
		k.parent = 0;
		if ((st = rphip_gnode_store(s, to, k, diag)) != RP_OK)
			return st;
	}
	if (stop && !e->set_seq)
		e->set_seq = s->seq;
	return RP_OK;
}

rp_status rphip_graph_exec_refresh(rphip_state *s, rphip_obj *e, rp_diag *diag)
{
	hipGraph_t live = NULL;
	hipGraphExec_t exec = NULL;
	rp_status st;

	if (!e->set_seq || !e->gn)
		return RP_OK;
	if ((st = rphip_gnodes_build(s, e->gn, e->cap, &exec, &live, diag)) != RP_OK)
		return st;
	/* the old one may still run: its launches finish first */
	s->rt.p_hipDeviceSynchronize();
	if (e->live)
		s->rt.p_hipGraphExecDestroy(e->live);
	if (e->live_graph)
		s->rt.p_hipGraphDestroy(e->live_graph);
	e->live = exec;
	e->live_graph = live;
	e->set_seq = 0;
	return RP_OK;
}
