/*
 * thip_gorder.c - the order in which ROCm 5.2's clr pairs the nodes of a
 * graph with those of an exec in hipGraphExecUpdate, kept so that the
 * update can be recorded with the pairs it made (docs/hip.md "Graphs built
 * node by node").
 *
 * clr 5.2 (hip_graph.cpp, hip_graph_internal.{hpp,cpp}) keeps with every
 * node a level and an in-degree, changed as edges come and go:
 *   - an edge from -> to (an add's dependency, hipGraphAddDependencies):
 *     from's list of edges gets `to` at its end, to's in-degree grows,
 *     to's level becomes max(to's, from's + 1), and every node after `to`
 *     along edges is raised the same way (UpdateEdgeLevel);
 *   - hipGraphRemoveDependencies: `to` leaves from's edges, to's in-degree
 *     drops, to's level becomes the largest of its dependencies' levels + 1
 *     (from still counted: clr computes it before dropping from);
 *   - hipGraphDestroyNode: the node leaves the graph and its parents'
 *     edges; its children keep their in-degree and level (clr's destructor
 *     drops only their dependency on it).
 * Its level order (ihipGraph::LevelOrder) starts from the nodes of
 * in-degree 0 in the order they were added and goes breadth first, a node
 * reached along an edge entering the queue only the first time and only
 * from a node one level above it.  An exec keeps the level order of its
 * graph at instantiation (hipGraphExec::GetNodes); hipGraphExecUpdate pairs
 * the graph's level order, as it is then, with that one, index by index.
 *
 * clr 6.0-6.2 (hip_graph.cpp, hip_graph_internal.{hpp,cpp}, read at the
 * tags rocm-6.0.0 to rocm-6.2.2) pairs in a topological order instead
 * (Graph::TopologicalOrder: Kahn's, from the nodes of in-degree 0 in the
 * order added, a node queued when the last edge into it is taken; the
 * exec keeps its graph's at instantiation) and keeps the in-degree as 5.2
 * does but for hipGraphDestroyNode: it takes the node's edges away one by
 * one (the child's in-degree drops), walking the node's own list of edges
 * while that list shrinks under it, so that with libstdc++ some children
 * are never reached and keep their in-degree (thip_gshape_destroy6).  A
 * vertex keeps both in-degrees; the runtime's version picks the order
 * (thip_graphnm.c).
 *
 * Only graphs made by hipGraphCreate are followed (a graph made by stream
 * capture or hipGraphClone has nodes the interposer never saw added):
 * an update naming any other graph, or an exec of one, is recorded as not
 * modeled (thip_graphnm.c).
 *
 * State: thip_gorder_g, under its own mutex, held only to look up or
 * change the tables, never across a call into the runtime.
 */
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

typedef struct thip_gvert {
	uint64_t node;
	uint32_t level;
	size_t indeg;
	size_t indeg6;   /* clr 6's */
	uint64_t *edges; /* the nodes after it, in the order the edges were made (owned) */
	size_t nedges;
} thip_gvert;

typedef struct thip_gshape {
	thip_gvert *v; /* in the order added (owned) */
	size_t n;
} thip_gshape;

typedef struct thip_xorder {
	uint64_t *nodes; /* the graph's level order at instantiation (owned) */
	size_t n;
	uint64_t *topo;  /* its topological order then (owned) */
	size_t ntopo;
} thip_xorder;

static struct {
	pthread_mutex_t mu;
	cap_umap shapes; /* graph -> thip_gshape * */
	cap_umap execs;  /* exec -> thip_xorder * */
} thip_gorder_g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void thip_gshape_free(thip_gshape *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].edges);
	free(s->v);
	free(s);
}

static thip_gvert *thip_gshape_find(thip_gshape *s, uint64_t node)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].node == node)
			return &s->v[i];
	return NULL;
}

/* A shape that can no longer be followed (out of memory) is dropped: its
 * updates are recorded as not modeled then. */
static void thip_gorder_forget(uint64_t graph)
{
	thip_gshape_free(cap_umap_del(&thip_gorder_g.shapes, graph));
	CAP_ERROR("hip: out of memory following graph %p: its exec updates are not modeled",
	          (void *)(uintptr_t)graph);
}

void thip_gorder_graph(uint64_t graph, int live)
{
	thip_gshape *s = NULL;

	if (!graph)
		return;
	pthread_mutex_lock(&thip_gorder_g.mu);
	thip_gshape_free(cap_umap_del(&thip_gorder_g.shapes, graph));
	if (live && (!(s = calloc(1, sizeof(*s))) ||
	             cap_umap_put(&thip_gorder_g.shapes, graph, s) == s)) {
		free(s);
		CAP_ERROR("hip: out of memory following graph %p: its exec updates are not modeled",
		          (void *)(uintptr_t)graph);
	}
	pthread_mutex_unlock(&thip_gorder_g.mu);
}

/* clr's AddEdge: from -> to, to's level raised and passed on along its
 * edges (a work list in place of clr's recursion: the same levels, since
 * each step only raises one).  0 when out of memory. */
static int thip_gshape_edge(thip_gshape *s, thip_gvert *from, uint64_t to_node)
{
	thip_gvert *to = thip_gshape_find(s, to_node);
	uint64_t *e, *work = NULL;
	size_t nwork = 0, cwork = 0;
	int ok = 1;

	if (!to)
		return 1; /* not a node of this graph: the runtime refused it */
	if (!(e = realloc(from->edges, (from->nedges + 1) * sizeof(*e))))
		return 0;
	from->edges = e;
	e[from->nedges++] = to_node;
	to->indeg++;
	to->indeg6++;
	if (to->level >= from->level + 1)
		return 1;
	to->level = from->level + 1;
	if (!(work = malloc(16 * sizeof(*work))))
		return 0;
	cwork = 16;
	work[nwork++] = to_node;
	while (nwork) {
		thip_gvert *x = thip_gshape_find(s, work[--nwork]);
		for (size_t i = 0; x && i < x->nedges; i++) {
			thip_gvert *y = thip_gshape_find(s, x->edges[i]);
			if (!y || y->level >= x->level + 1)
				continue;
			y->level = x->level + 1;
			if (nwork == cwork) {
				uint64_t *w = realloc(work, cwork * 2 * sizeof(*w));
				if (!w) {
					ok = 0;
					goto out;
				}
				work = w;
				cwork *= 2;
			}
			work[nwork++] = y->node;
		}
	}
out:
	free(work);
	return ok;
}

void thip_gorder_add(uint64_t graph, uint64_t node, const hipGraphNode_t *deps, size_t ndeps)
{
	thip_gshape *s;
	thip_gvert *v;

	if (!graph || !node)
		return;
	pthread_mutex_lock(&thip_gorder_g.mu);
	if (!(s = cap_umap_get(&thip_gorder_g.shapes, graph)))
		goto out;
	if (!(v = realloc(s->v, (s->n + 1) * sizeof(*v)))) {
		thip_gorder_forget(graph);
		goto out;
	}
	s->v = v;
	memset(&v[s->n], 0, sizeof(v[s->n]));
	v[s->n++].node = node;
	for (size_t i = 0; deps && i < ndeps; i++) {
		thip_gvert *d = thip_gshape_find(s, THIP_U(deps[i]));
		if (d && !thip_gshape_edge(s, d, node)) {
			thip_gorder_forget(graph);
			break;
		}
	}
out:
	pthread_mutex_unlock(&thip_gorder_g.mu);
}

/* clr's RemoveEdge: the level from every dependency, from included. */
static void thip_gshape_unedge(thip_gshape *s, thip_gvert *from, uint64_t to_node)
{
	thip_gvert *to = thip_gshape_find(s, to_node);
	size_t keep = 0, had = from->nedges;
	uint32_t level = 0;

	for (size_t i = 0; i < from->nedges; i++)
		if (from->edges[i] != to_node)
			from->edges[keep++] = from->edges[i];
	from->nedges = keep;
	if (!to || keep == had)
		return;
	to->indeg--;
	to->indeg6--;
	for (size_t i = 0; i < s->n; i++) {
		int dep = &s->v[i] == from;
		for (size_t k = 0; !dep && k < s->v[i].nedges; k++)
			dep = s->v[i].edges[k] == to_node;
		if (dep && s->v[i].level + 1 > level)
			level = s->v[i].level + 1;
	}
	to->level = level;
}

void thip_gorder_edges(uint64_t graph, const hipGraphNode_t *from, const hipGraphNode_t *to,
                       size_t n, int add)
{
	thip_gshape *s;

	pthread_mutex_lock(&thip_gorder_g.mu);
	if (!(s = cap_umap_get(&thip_gorder_g.shapes, graph)) || !from || !to)
		goto out;
	for (size_t i = 0; i < n; i++) {
		thip_gvert *f = thip_gshape_find(s, THIP_U(from[i]));
		if (!f)
			continue;
		if (!add) {
			thip_gshape_unedge(s, f, THIP_U(to[i]));
		} else if (!thip_gshape_edge(s, f, THIP_U(to[i]))) {
			thip_gorder_forget(graph);
			break;
		}
	}
out:
	pthread_mutex_unlock(&thip_gorder_g.mu);
}

/* clr 6's hipGraphDestroyNode before the node goes: a range-for over its
 * edges, each RemoveUpdateEdge'd (std::remove, then erase) while the loop
 * keeps the end it began with, so that it reads slot i of the list's
 * storage, a slot past the shrunk list still holding what was moved out
 * of it (of edges a, b, c: a and c go, b keeps its in-degree).  0 when
 * out of memory. */
static int thip_gshape_destroy6(thip_gshape *s, const thip_gvert *v)
{
	size_t count = v->nedges, live = v->nedges;
	uint64_t *slot;

	if (!count)
		return 1;
	if (!(slot = malloc(count * sizeof(*slot))))
		return 0;
	memcpy(slot, v->edges, count * sizeof(*slot));
	for (size_t i = 0; i < count; i++) {
		uint64_t child = slot[i];
		size_t at = 0;
		thip_gvert *c;
		while (at < live && slot[at] != child)
			at++;
		if (at == live)
			continue; /* RemoveUpdateEdge finds nothing */
		memmove(&slot[at], &slot[at + 1], (live - at - 1) * sizeof(*slot));
		live--;
		if ((c = thip_gshape_find(s, child)))
			c->indeg6--;
	}
	free(slot);
	return 1;
}

void thip_gorder_destroy_node(uint64_t graph, uint64_t node)
{
	thip_gshape *s;
	thip_gvert *v;

	pthread_mutex_lock(&thip_gorder_g.mu);
	if (!(s = cap_umap_get(&thip_gorder_g.shapes, graph)) || !(v = thip_gshape_find(s, node)))
		goto out;
	if (!thip_gshape_destroy6(s, v)) {
		thip_gorder_forget(graph);
		goto out;
	}
	free(v->edges);
	memmove(v, v + 1, (size_t)(&s->v[s->n] - (v + 1)) * sizeof(*v));
	s->n--;
	/* its parents drop the edge to it (RemoveEdge on a node no longer in
	 * the graph changes only their lists); its children keep theirs */
	for (size_t i = 0; i < s->n; i++) {
		thip_gvert *p = &s->v[i];
		size_t keep = 0;
		for (size_t k = 0; k < p->nedges; k++)
			if (p->edges[k] != node)
				p->edges[keep++] = p->edges[k];
		p->nedges = keep;
	}
out:
	pthread_mutex_unlock(&thip_gorder_g.mu);
}

/* clr's ihipGraph::LevelOrder of s into a new array (*out owned by the
 * caller); 0 when out of memory. */
static int thip_gshape_order(const thip_gshape *s, uint64_t **out, size_t *n)
{
	uint64_t *q = malloc((s->n ? s->n : 1) * sizeof(*q));
	unsigned char *seen = calloc(s->n ? s->n : 1, 1);
	size_t head = 0, tail = 0;

	if (!q || !seen) {
		free(q);
		free(seen);
		return 0;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].indeg)
			q[tail++] = s->v[i].node;
	while (head < tail) {
		const thip_gvert *x = thip_gshape_find((thip_gshape *)s, q[head++]);
		for (size_t k = 0; x && k < x->nedges; k++) {
			thip_gvert *y = thip_gshape_find((thip_gshape *)s, x->edges[k]);
			size_t at;
			if (!y)
				continue;
			at = (size_t)(y - s->v);
			if (seen[at] || y->level != x->level + 1 || tail == s->n)
				continue;
			seen[at] = 1;
			q[tail++] = y->node;
		}
	}
	free(seen);
	*out = q;
	*n = tail;
	return 1;
}

/* clr 6's Graph::TopologicalOrder of s into a new array (*out owned by
 * the caller; a node whose in-degree never reaches 0 is missing); 0 when
 * out of memory. */
static int thip_gshape_topo(const thip_gshape *s, uint64_t **out, size_t *n)
{
	uint64_t *q = malloc((s->n ? s->n : 1) * sizeof(*q));
	size_t *left = calloc(s->n ? s->n : 1, sizeof(*left));
	size_t head = 0, tail = 0;

	if (!q || !left) {
		free(q);
		free(left);
		return 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		left[i] = s->v[i].indeg6;
		if (!left[i])
			q[tail++] = s->v[i].node;
	}
	while (head < tail) {
		const thip_gvert *x = thip_gshape_find((thip_gshape *)s, q[head++]);
		for (size_t k = 0; x && k < x->nedges; k++) {
			thip_gvert *y = thip_gshape_find((thip_gshape *)s, x->edges[k]);
			size_t at;
			if (!y)
				continue;
			at = (size_t)(y - s->v);
			if (left[at] && !--left[at] && tail < s->n)
				q[tail++] = y->node;
		}
	}
	free(left);
	*out = q;
	*n = tail;
	return 1;
}

static void thip_xorder_free(thip_xorder *x)
{
	if (!x)
		return;
	free(x->nodes);
	free(x->topo);
	free(x);
}

void thip_gorder_instantiate(uint64_t exec, uint64_t graph)
{
	thip_gshape *s;
	thip_xorder *x = NULL;

	if (!exec)
		return;
	pthread_mutex_lock(&thip_gorder_g.mu);
	thip_xorder_free(cap_umap_del(&thip_gorder_g.execs, exec));
	if (!(s = cap_umap_get(&thip_gorder_g.shapes, graph)))
		goto out;
	if (!(x = calloc(1, sizeof(*x))) || !thip_gshape_order(s, &x->nodes, &x->n) ||
	    !thip_gshape_topo(s, &x->topo, &x->ntopo) ||
	    cap_umap_put(&thip_gorder_g.execs, exec, x) == x) {
		thip_xorder_free(x);
		CAP_ERROR("hip: out of memory following graph exec %p: its updates are not modeled",
		          (void *)(uintptr_t)exec);
	}
out:
	pthread_mutex_unlock(&thip_gorder_g.mu);
}

void thip_gorder_exec_destroy(uint64_t exec)
{
	pthread_mutex_lock(&thip_gorder_g.mu);
	thip_xorder_free(cap_umap_del(&thip_gorder_g.execs, exec));
	pthread_mutex_unlock(&thip_gorder_g.mu);
}

int thip_gorder_pairs(uint64_t exec, uint64_t graph, int order, uint64_t **gnodes, size_t *ng,
                      uint64_t **xnodes, size_t *nx)
{
	thip_gshape *s;
	thip_xorder *x;
	const uint64_t *xv;
	size_t xn;
	int ok = 0;

	*gnodes = *xnodes = NULL;
	*ng = *nx = 0;
	pthread_mutex_lock(&thip_gorder_g.mu);
	s = cap_umap_get(&thip_gorder_g.shapes, graph);
	x = cap_umap_get(&thip_gorder_g.execs, exec);
	if (!s || !x ||
	    !(order == THIP_GORDER_TOPO ? thip_gshape_topo(s, gnodes, ng) : thip_gshape_order(s, gnodes, ng)))
		goto out;
	xv = order == THIP_GORDER_TOPO ? x->topo : x->nodes;
	xn = order == THIP_GORDER_TOPO ? x->ntopo : x->n;
	if (!(*xnodes = malloc((xn ? xn : 1) * sizeof(**xnodes)))) {
		free(*gnodes);
		*gnodes = NULL;
		*ng = 0;
		goto out;
	}
	if (xn)
		memcpy(*xnodes, xv, xn * sizeof(**xnodes));
	*nx = xn;
	ok = 1;
out:
	pthread_mutex_unlock(&thip_gorder_g.mu);
	return ok;
}
