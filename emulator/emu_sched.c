/*
 * emu_sched.c - the simulated execution (docs/emulator.md "Scheduling").
 *
 * List scheduling over the happens-before graph: a command becomes ready
 * when every step it depends on has finished (and, with issue_times, once
 * the host issued it); ready commands take the lowest-numbered free engine
 * of their class in order of (ready time, seq); host functions need no
 * engine.  Each stream's state (Idle, Pending, Running, Waiting, Done) is
 * re-evaluated whenever time advances and the time spent in each is kept.
 * The critical path is the longest path of the graph with unlimited
 * engines, computed apart from the simulation.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"

/* Commands of the critical path --summary lists before eliding the rest. */
#define EMU_CRIT_SHOWN 40

enum { EMU_S_IDLE, EMU_S_PENDING, EMU_S_RUNNING, EMU_S_WAITING, EMU_S_DONE };
static const char *const emu_state_names[5] = { "idle", "pending", "running", "waiting", "done" };

void emu_options_default(emu_options *o)
{
	memset(o, 0, sizeof(*o));
	o->compute_engines = 4;
	o->copy_engines = 2;
	o->kernel_ns = 10000;
	o->memset_ns = 2000;
	o->copy_ns = 5000;
	o->hostfn_ns = 5000;
	o->graph_ns = 20000;
	o->h2d_bw = 25.0;
	o->d2h_bw = 25.0;
	o->d2d_bw = 1000.0;
	o->memset_bw = 1500.0;
}

uint64_t emu_model_cost(const emu_options *o, const emu_node *n)
{
	double bw;

	switch (n->kind) {
	case EMU_K_KERNEL:
	case EMU_K_DISPATCH:
	case EMU_K_DRAW: return o->kernel_ns;
	case EMU_K_GRAPH: return o->graph_ns;
	case EMU_K_HOSTFN: return o->hostfn_ns;
	case EMU_K_PASS: return o->memset_ns;
	case EMU_K_MEMSET:
	case EMU_K_FILL: return o->memset_ns + (uint64_t)((double)n->bytes / o->memset_bw);
	case EMU_K_H2D: bw = o->h2d_bw; break;
	case EMU_K_D2H: bw = o->d2h_bw; break;
	default: bw = o->d2d_bw; break;
	}
	return o->copy_ns + (uint64_t)((double)n->bytes / bw);
}

/* A binary min-heap of node ids ordered by (key[id], id). */
typedef struct emu_heap {
	uint32_t *v;
	size_t n;
	const uint64_t *key;
} emu_heap;

static int emu_heap_less(const emu_heap *h, uint32_t a, uint32_t b)
{
	return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void emu_heap_push(emu_heap *h, uint32_t id)
{
	size_t i = h->n++;

	while (i > 0 && emu_heap_less(h, id, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = id;
}

static uint32_t emu_heap_pop(emu_heap *h)
{
	uint32_t top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && emu_heap_less(h, h->v[c + 1], h->v[c]))
			c++;
		if (!emu_heap_less(h, h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

/* Compressed adjacency: the successors of item i are idx[first[i] .. first[i+1]). */
typedef struct emu_csr {
	uint32_t *first, *idx;
} emu_csr;

static void emu_csr_free(emu_csr *c)
{
	free(c->first);
	free(c->idx);
}

/* Successor steps of each step; successor nodes of each node (internal). */
static int emu_csr_build(const emu_graph *g, emu_csr *steps, emu_csr *nodes)
{
	size_t ns = g->steps.n, nn = g->nodes.n;

	steps->first = calloc(ns + 1, sizeof(uint32_t));
	steps->idx = malloc((g->deps.n + 1) * sizeof(uint32_t));
	nodes->first = calloc(nn + 1, sizeof(uint32_t));
	nodes->idx = malloc((g->ipreds.n + 1) * sizeof(uint32_t));
	if (!steps->first || !steps->idx || !nodes->first || !nodes->idx)
		return -1;
	for (size_t s = 0; s < ns; s++)
		for (uint32_t d = 0; d < g->steps.v[s].dep_count; d++)
			if (!g->deps.v[g->steps.v[s].dep_first + d].node1)
				steps->first[g->deps.v[g->steps.v[s].dep_first + d].step + 1]++;
	for (size_t i = 0; i < ns; i++)
		steps->first[i + 1] += steps->first[i];
	for (size_t s = 0; s < ns; s++)
		for (uint32_t d = 0; d < g->steps.v[s].dep_count; d++)
			if (!g->deps.v[g->steps.v[s].dep_first + d].node1)
				steps->idx[steps->first[g->deps.v[g->steps.v[s].dep_first + d].step]++] = (uint32_t)s;
	for (size_t i = ns; i > 0; i--)
		steps->first[i] = steps->first[i - 1];
	steps->first[0] = 0;
	for (size_t n = 0; n < nn; n++)
		for (uint32_t p = 0; p < g->nodes.v[n].ipred_count; p++)
			nodes->first[g->ipreds.v[g->nodes.v[n].ipred_first + p] + 1]++;
	for (size_t i = 0; i < nn; i++)
		nodes->first[i + 1] += nodes->first[i];
	for (size_t n = 0; n < nn; n++)
		for (uint32_t p = 0; p < g->nodes.v[n].ipred_count; p++)
			nodes->idx[nodes->first[g->ipreds.v[g->nodes.v[n].ipred_first + p]]++] = (uint32_t)n;
	for (size_t i = nn; i > 0; i--)
		nodes->first[i] = nodes->first[i - 1];
	nodes->first[0] = 0;
	return 0;
}

/* Dependencies on a node of a launch, and nodes' own (xdeps): what each
 * waits for, by source (a step s, or ns + a node) and waiter (a step, whose
 * first nodes wait, or ns + a node).  Built only when the graph has them. */
static void emu_ndep_each(const emu_graph *g, emu_csr *x, int fill)
{
	size_t ns = g->steps.n;

	for (size_t s = 0; s < ns; s++)
		for (uint32_t d = 0; d < g->steps.v[s].dep_count; d++) {
			const emu_dep *dp = &g->deps.v[g->steps.v[s].dep_first + d];

			if (!dp->node1)
				continue;
			if (fill)
				x->idx[x->first[ns + emu_dep_node(g, dp)]++] = (uint32_t)s;
			else
				x->first[ns + emu_dep_node(g, dp) + 1]++;
		}
	for (size_t i = 0; i < g->xdeps.n; i++)
		for (uint32_t d = 0; d < g->xdeps.v[i].count; d++) {
			const emu_dep *dp = &g->deps.v[g->xdeps.v[i].first + d];
			size_t src = dp->node1 ? ns + emu_dep_node(g, dp) : dp->step;

			if (fill)
				x->idx[x->first[src]++] = (uint32_t)(ns + g->xdeps.v[i].node);
			else
				x->first[src + 1]++;
		}
}

static int emu_ndep_build(const emu_graph *g, emu_csr *x)
{
	size_t nk = g->steps.n + g->nodes.n, ne;

	x->first = calloc(nk + 2, sizeof(uint32_t));
	if (!x->first)
		return -1;
	emu_ndep_each(g, x, 0);
	for (size_t i = 0; i < nk; i++)
		x->first[i + 1] += x->first[i];
	ne = x->first[nk];
	x->idx = malloc((ne + 1) * sizeof(uint32_t));
	if (!x->idx)
		return -1;
	emu_ndep_each(g, x, 1);
	for (size_t i = nk; i > 0; i--)
		x->first[i] = x->first[i - 1];
	x->first[0] = 0;
	return 0;
}

/* When dependency d is the latest to finish for a node starting no
 * earlier than *est: its finish (eft of a node; for a step the node of it
 * that ends last, sarg) and that node in *pred. */
static void emu_crit_dep(const emu_graph *g, const emu_dep *d, const uint64_t *eft, const uint32_t *sarg,
                         uint64_t *est, uint32_t *pred)
{
	uint32_t q = d->node1 ? emu_dep_node(g, d) : sarg[d->step];

	if (q != EMU_NONE && (eft[q] > *est || *pred == EMU_NONE)) {
		*est = eft[q] > *est ? eft[q] : *est;
		*pred = q;
	}
}

static uint64_t emu_issue_rel(const emu_graph *g, const emu_node *n)
{
	if (!g->opt.issue_times || n->issue_ns < g->first_ns)
		return 0;
	return n->issue_ns - g->first_ns;
}

/* Longest path with unlimited engines; fills g->crit. */
static int emu_critical(emu_graph *g)
{
	size_t nn = g->nodes.n;
	uint64_t *eft = malloc((nn + 1) * sizeof(uint64_t));
	uint32_t *sarg = malloc((g->steps.n + 1) * sizeof(uint32_t));
	uint32_t best = EMU_NONE;
	int rc = -1;

	g->crit.n = 0;
	g->critical_ns = 0;
	if (!eft || !sarg)
		goto out;
	for (size_t s = 0; s < g->steps.n; s++) {
		const emu_step *st = &g->steps.v[s];

		sarg[s] = EMU_NONE;
		for (uint32_t i = 0; i < st->node_count; i++) {
			uint32_t id = st->node_first + i;
			emu_node *n = &g->nodes.v[id];
			uint64_t est = emu_issue_rel(g, n);

			n->crit_pred = EMU_NONE;
			for (uint32_t p = 0; p < n->ipred_count; p++) {
				uint32_t q = g->ipreds.v[n->ipred_first + p];

				if (eft[q] > est || n->crit_pred == EMU_NONE) {
					est = eft[q] > est ? eft[q] : est;
					n->crit_pred = q;
				}
			}
			if (n->ipred_count == 0)
				for (uint32_t d = 0; d < st->dep_count; d++) {
					const emu_dep *dp = &g->deps.v[st->dep_first + d];
					uint32_t q = sarg[dp->step];

					if (dp->node1)
						emu_crit_dep(g, dp, eft, sarg, &est, &n->crit_pred);
					else if (q != EMU_NONE && (eft[q] > est || n->crit_pred == EMU_NONE)) {
						est = eft[q] > est ? eft[q] : est;
						n->crit_pred = q;
					}
				}
			if (g->node_deps) {
				const emu_xdep *x = emu_node_xdeps(g, id);

				for (uint32_t d = 0; x && d < x->count; d++)
					emu_crit_dep(g, &g->deps.v[x->first + d], eft, sarg, &est, &n->crit_pred);
			}
			eft[id] = est + n->cost_ns;
			if (sarg[s] == EMU_NONE || eft[id] > eft[sarg[s]])
				sarg[s] = id;
			if (best == EMU_NONE || eft[id] > eft[best])
				best = id;
		}
	}
	if (best != EMU_NONE) {
		g->critical_ns = eft[best];
		for (uint32_t id = best; id != EMU_NONE; id = g->nodes.v[id].crit_pred)
			if (EMU_PUSH(g->crit, id) != 0)
				goto out;
		for (size_t i = 0; i < g->crit.n / 2; i++) { /* first to last */
			uint32_t t = g->crit.v[i];

			g->crit.v[i] = g->crit.v[g->crit.n - 1 - i];
			g->crit.v[g->crit.n - 1 - i] = t;
		}
	}
	rc = 0;
out:
	free(eft);
	free(sarg);
	return rc;
}

typedef struct emu_sim {
	emu_csr ss, ns;              /* successors */
	emu_csr xs;                  /* node dependencies (emu_ndep_build); NULL first when none */
	emu_csr sn;                  /* nodes of each stream */
	uint32_t *waits;             /* per node: unfinished predecessors */
	uint32_t *step_left;         /* per step: unfinished nodes */
	uint64_t *ready;             /* per node: ready time; then heap key */
	uint64_t *end;               /* per node: end time (completion heap key) */
	emu_heap rq[3], done;
	emu_heap issue;              /* dependencies met, not issued yet (--issue-times) */
	uint8_t *engine_busy;
	uint32_t *running, *nready, *cursor;
	uint8_t *state;
	uint64_t *since;
} emu_sim;

static void emu_sim_free(emu_sim *m)
{
	emu_csr_free(&m->ss);
	emu_csr_free(&m->ns);
	emu_csr_free(&m->xs);
	emu_csr_free(&m->sn);
	free(m->waits);
	free(m->step_left);
	free(m->ready);
	free(m->end);
	for (int c = 0; c < 3; c++)
		free(m->rq[c].v);
	free(m->done.v);
	free(m->issue.v);
	free(m->engine_busy);
	free(m->running);
	free(m->nready);
	free(m->cursor);
	free(m->state);
	free(m->since);
}

/* Node id's dependencies are met at t.  It joins its class's ready queue
 * at once, or, when the host has not issued it yet (--issue-times), at its
 * issue time (emu_issue_due): until then its stream is Idle, not Pending. */
static void emu_make_ready(emu_graph *g, emu_sim *m, uint32_t id, uint64_t t)
{
	const emu_node *n = &g->nodes.v[id];
	uint64_t issue = emu_issue_rel(g, n);

	m->ready[id] = t > issue ? t : issue;
	if (m->ready[id] > t) {
		emu_heap_push(&m->issue, id);
		return;
	}
	emu_heap_push(&m->rq[emu_kind_class(n->kind)], id);
	m->nready[n->stream]++;
}

/* Move the nodes issued by t into their ready queues. */
static void emu_issue_due(emu_graph *g, emu_sim *m, uint64_t t)
{
	while (m->issue.n && m->ready[m->issue.v[0]] <= t) {
		uint32_t id = emu_heap_pop(&m->issue);
		const emu_node *n = &g->nodes.v[id];

		emu_heap_push(&m->rq[emu_kind_class(n->kind)], id);
		m->nready[n->stream]++;
	}
}

/* Re-evaluate every stream's state at time t. */
static void emu_states(emu_graph *g, emu_sim *m, uint64_t t)
{
	for (size_t s = 0; s < g->streams.n; s++) {
		uint32_t *cur = &m->cursor[s], lim = m->sn.first[s + 1];
		unsigned state;

		while (*cur < lim && g->nodes.v[m->sn.idx[*cur]].end_ns != UINT64_MAX &&
		       g->nodes.v[m->sn.idx[*cur]].end_ns <= t && m->waits[m->sn.idx[*cur]] == UINT32_MAX)
			(*cur)++;
		if (m->running[s])
			state = EMU_S_RUNNING;
		else if (m->nready[s])
			state = EMU_S_PENDING;
		else if (*cur >= lim)
			state = EMU_S_DONE;
		else if (emu_issue_rel(g, &g->nodes.v[m->sn.idx[*cur]]) > t)
			state = EMU_S_IDLE;
		else
			state = EMU_S_WAITING;
		if (state != m->state[s]) {
			g->state_ns[s][m->state[s]] += t - m->since[s];
			g->transitions[s]++;
			m->state[s] = (uint8_t)state;
			m->since[s] = t;
		}
	}
}

/* A dependency of step su's first nodes finished at t. */
static void emu_step_notify(emu_graph *g, emu_sim *m, uint32_t su, uint64_t t)
{
	const emu_step *st = &g->steps.v[su];

	for (uint32_t x = 0; x < st->node_count; x++) {
		uint32_t q = st->node_first + x;

		if (g->nodes.v[q].ipred_count == 0 && --m->waits[q] == 0)
			emu_make_ready(g, m, q, t);
	}
}

/* Source src of node dependencies (a step, or ns + a node) finished at t. */
static void emu_notify(emu_graph *g, emu_sim *m, size_t src, uint64_t t)
{
	size_t ns = g->steps.n;

	for (uint32_t k = m->xs.first[src]; k < m->xs.first[src + 1]; k++) {
		uint32_t w = m->xs.idx[k];

		if (w < ns)
			emu_step_notify(g, m, w, t);
		else if (--m->waits[w - ns] == 0)
			emu_make_ready(g, m, (uint32_t)(w - ns), t);
	}
}

emu_status emu_schedule(emu_graph *g, const emu_options *o)
{
	emu_sim m;
	size_t nn, ns, nst;
	unsigned ne, cap[3];
	uint64_t t = 0, finished = 0, running = 0;
	emu_status st = EMU_ERR_NOMEM;

	if (!g || !o || o->compute_engines == 0 || o->copy_engines == 0 || o->h2d_bw <= 0 ||
	    o->d2h_bw <= 0 || o->d2d_bw <= 0 || o->memset_bw <= 0)
		return EMU_ERR_ARG;
	memset(&m, 0, sizeof(m));
	g->opt = *o;
	nn = g->nodes.n;
	ns = g->steps.n;
	nst = g->streams.n;
	ne = o->compute_engines + o->copy_engines;
	cap[EMU_C_COMPUTE] = o->compute_engines;
	cap[EMU_C_COPY] = o->copy_engines;
	cap[EMU_C_HOST] = UINT32_MAX;
	free(g->busy);
	free(g->state_ns);
	free(g->transitions);
	g->busy = calloc(ne, sizeof(uint64_t));
	g->state_ns = calloc(nst + 1, sizeof(*g->state_ns));
	g->transitions = calloc(nst + 1, sizeof(uint64_t));
	g->nengines = ne;
	g->makespan = g->max_conc = g->max_conc_at = 0;
	if (g->dur_capture && emu_captimes_fit(g, o) != 0)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		g->nodes.v[i].cost_ns = g->measured && g->measured[i] != UINT64_MAX
		                            ? g->measured[i] : emu_model_cost(o, &g->nodes.v[i]);
		g->nodes.v[i].end_ns = UINT64_MAX;
		g->nodes.v[i].start_ns = 0;
		g->nodes.v[i].engine = -1;
	}
	if (!g->busy || !g->state_ns || !g->transitions || emu_csr_build(g, &m.ss, &m.ns) != 0 ||
	    (g->node_deps && emu_ndep_build(g, &m.xs) != 0) || emu_critical(g) != 0)
		goto out;
	m.waits = malloc((nn + 1) * sizeof(uint32_t));
	m.step_left = malloc((ns + 1) * sizeof(uint32_t));
	m.ready = calloc(nn + 1, sizeof(uint64_t));
	m.end = calloc(nn + 1, sizeof(uint64_t));
	m.done.v = malloc((nn + 1) * sizeof(uint32_t));
	m.issue.v = malloc((nn + 1) * sizeof(uint32_t));
	m.issue.key = m.ready;
	m.engine_busy = calloc(ne, 1);
	m.running = calloc(nst + 1, sizeof(uint32_t));
	m.nready = calloc(nst + 1, sizeof(uint32_t));
	m.cursor = calloc(nst + 1, sizeof(uint32_t));
	m.state = calloc(nst + 1, 1);
	m.since = calloc(nst + 1, sizeof(uint64_t));
	m.sn.first = calloc(nst + 2, sizeof(uint32_t));
	m.sn.idx = malloc((nn + 1) * sizeof(uint32_t));
	if (!m.waits || !m.step_left || !m.ready || !m.end || !m.done.v || !m.issue.v || !m.engine_busy ||
	    !m.running || !m.nready || !m.cursor || !m.state || !m.since || !m.sn.first || !m.sn.idx)
		goto out;
	for (int c = 0; c < 3; c++) {
		m.rq[c].v = malloc((nn + 1) * sizeof(uint32_t));
		m.rq[c].key = m.ready;
		if (!m.rq[c].v)
			goto out;
	}
	m.done.key = m.end;
	/* nodes of each stream, in index order */
	for (size_t i = 0; i < nn; i++)
		m.sn.first[g->nodes.v[i].stream + 1]++;
	for (size_t s = 0; s < nst; s++)
		m.sn.first[s + 1] += m.sn.first[s];
	for (size_t i = 0; i < nn; i++)
		m.sn.idx[m.sn.first[g->nodes.v[i].stream]++] = (uint32_t)i;
	for (size_t s = nst; s > 0; s--)
		m.sn.first[s] = m.sn.first[s - 1];
	m.sn.first[0] = 0;
	for (size_t s = 0; s < nst; s++) {
		m.cursor[s] = m.sn.first[s];
		m.state[s] = EMU_S_IDLE;
	}

	for (size_t s = 0; s < ns; s++)
		m.step_left[s] = g->steps.v[s].node_count;
	for (size_t i = 0; i < nn; i++) {
		const emu_node *n = &g->nodes.v[i];

		m.waits[i] = n->ipred_count ? n->ipred_count : g->steps.v[n->step].dep_count;
		if (g->node_deps) {
			const emu_xdep *x = emu_node_xdeps(g, (uint32_t)i);

			m.waits[i] += x ? x->count : 0;
		}
		if (m.waits[i] == 0)
			emu_make_ready(g, &m, (uint32_t)i, 0);
	}
	emu_states(g, &m, 0);
	while (finished < nn) {
		uint64_t next = UINT64_MAX;

		emu_issue_due(g, &m, t);
		/* start what can start now */
		for (int c = 0; c < 3; c++) {
			emu_heap *h = &m.rq[c];

			while (h->n && m.ready[h->v[0]] <= t) {
				uint32_t id;
				emu_node *n;
				int eng = -1;

				if (c != EMU_C_HOST) {
					unsigned first = c == EMU_C_COMPUTE ? 0 : o->compute_engines;

					for (unsigned e = first; e < first + cap[c]; e++)
						if (!m.engine_busy[e]) {
							eng = (int)e;
							break;
						}
					if (eng < 0)
						break;
					m.engine_busy[eng] = 1;
				}
				id = emu_heap_pop(h);
				n = &g->nodes.v[id];
				n->engine = eng;
				n->start_ns = t;
				m.end[id] = t + n->cost_ns;
				emu_heap_push(&m.done, id);
				m.nready[n->stream]--;
				m.running[n->stream]++;
				running++;
			}
		}
		if (running > g->max_conc) {
			g->max_conc = running;
			g->max_conc_at = t;
		}
		emu_states(g, &m, t);
		if (m.done.n)
			next = m.end[m.done.v[0]];
		/* (a ready queue holds only what was ready by t: the rest waits
		 * in the issue heap) */
		if (m.issue.n && m.ready[m.issue.v[0]] < next)
			next = m.ready[m.issue.v[0]];
		if (next == UINT64_MAX) {
			st = EMU_ERR_STATE; /* a cycle: cannot happen with backward references */
			goto out;
		}
		t = next;
		while (m.done.n && m.end[m.done.v[0]] == t) {
			uint32_t id = emu_heap_pop(&m.done);
			emu_node *n = &g->nodes.v[id];
			uint32_t step = n->step;

			n->end_ns = t;
			m.waits[id] = UINT32_MAX; /* finished */
			if (n->engine >= 0) {
				m.engine_busy[n->engine] = 0;
				g->busy[n->engine] += n->cost_ns;
			}
			m.running[n->stream]--;
			running--;
			finished++;
			if (t > g->makespan)
				g->makespan = t;
			for (uint32_t k = m.ns.first[id]; k < m.ns.first[id + 1]; k++)
				if (--m.waits[m.ns.idx[k]] == 0)
					emu_make_ready(g, &m, m.ns.idx[k], t);
			if (m.xs.first)
				emu_notify(g, &m, ns + id, t);
			if (--m.step_left[step] == 0) {
				for (uint32_t k = m.ss.first[step]; k < m.ss.first[step + 1]; k++) {
					const emu_step *su = &g->steps.v[m.ss.idx[k]];

					/* (emu_step_notify, kept inline on this path) */
					for (uint32_t x = 0; x < su->node_count; x++) {
						uint32_t q = su->node_first + x;

						if (g->nodes.v[q].ipred_count == 0 && --m.waits[q] == 0)
							emu_make_ready(g, &m, q, t);
					}
				}
				if (m.xs.first)
					emu_notify(g, &m, step, t);
			}
		}
	}
	emu_states(g, &m, t);
	for (size_t s = 0; s < nst; s++)
		g->state_ns[s][m.state[s]] += g->makespan - m.since[s];
	g->scheduled = 1;
	st = EMU_OK;
out:
	emu_sim_free(&m);
	return st;
}

emu_status emu_summary_get(const emu_graph *g, emu_summary *out)
{
	if (!g || !out)
		return EMU_ERR_ARG;
	if (!g->scheduled)
		return EMU_ERR_STATE;
	memset(out, 0, sizeof(*out));
	out->commands = g->nodes.n;
	for (size_t s = 0; s < g->streams.n; s++)
		out->streams += g->streams.v[s].steps > 0;
	for (size_t s = 0; s < g->steps.n; s++)
		for (uint32_t d = 0; d < g->steps.v[s].dep_count; d++) {
			out->edges++;
			out->cross_edges +=
				g->steps.v[g->deps.v[g->steps.v[s].dep_first + d].step].stream != g->steps.v[s].stream;
		}
	for (size_t i = 0; i < g->xdeps.n; i++)
		for (uint32_t d = 0; d < g->xdeps.v[i].count; d++) {
			out->edges++;
			out->cross_edges += g->steps.v[g->deps.v[g->xdeps.v[i].first + d].step].stream !=
			                    g->nodes.v[g->xdeps.v[i].node].stream;
		}
	out->edges += g->ipreds.n;
	out->makespan_ns = g->makespan;
	out->critical_ns = g->critical_ns;
	out->critical_count = g->crit.n;
	out->max_concurrency = g->max_conc;
	out->max_concurrency_at_ns = g->max_conc_at;
	out->engines = g->nengines;
	return EMU_OK;
}

uint64_t emu_engine_busy_ns(const emu_graph *g, unsigned i)
{
	return g && g->busy && i < g->nengines ? g->busy[i] : 0;
}

uint64_t emu_critical_seq(const emu_graph *g, uint64_t i)
{
	return g && i < g->crit.n ? g->nodes.v[g->crit.v[i]].seq : 0;
}

/* Host waits in the trace: records that observed finished work. */
static uint64_t emu_cap_groups(const emu_graph *g)
{
	uint64_t n = 0;

	for (size_t i = 0; i < g->obs.n; i++)
		n += i == 0 || g->obs.v[i].seq != g->obs.v[i - 1].seq;
	return n;
}

static void emu_summary_json(const emu_graph *g, const emu_summary *s, FILE *f)
{
	char lbl[96];

	fprintf(f, "{\"commands\":%llu,\"streams\":%llu,\"dependencies\":%llu,\"cross_stream\":%llu,"
	           "\"compute_engines\":%u,\"copy_engines\":%u,\"makespan_ns\":%llu,\"critical_ns\":%llu,"
	           "\"max_concurrency\":%llu,\"max_concurrency_at_ns\":%llu,",
	        (unsigned long long)s->commands, (unsigned long long)s->streams, (unsigned long long)s->edges,
	        (unsigned long long)s->cross_edges, g->opt.compute_engines, g->opt.copy_engines,
	        (unsigned long long)s->makespan_ns, (unsigned long long)s->critical_ns,
	        (unsigned long long)s->max_concurrency, (unsigned long long)s->max_concurrency_at_ns);
	if (g->dur_capture) {
		fprintf(f, "\"durations\":{\"source\":\"%s\",\"capture\":%llu,\"modeled\":%llu,"
		           "\"bounding_waits\":%llu,\"waits\":%llu,\"profile\":null,\"device\":null",
		        !g->nmeasured ? "model" : g->nmeasured == g->nodes.n ? "capture" : "mixed",
		        (unsigned long long)g->nmeasured, (unsigned long long)(g->nodes.n - g->nmeasured),
		        (unsigned long long)g->cap_waits, (unsigned long long)emu_cap_groups(g));
	} else {
		fprintf(f, "\"durations\":{\"source\":\"%s\",\"measured\":%llu,\"modeled\":%llu,\"profile\":",
		        !g->measured || !g->nmeasured ? "model" : g->nmeasured == g->nodes.n ? "measured" : "mixed",
		        (unsigned long long)g->nmeasured, (unsigned long long)(g->nodes.n - g->nmeasured));
		if (g->measured) {
			emu_json_str(f, g->profile_path);
			fputs(",\"device\":", f);
			emu_json_str(f, g->profile_device);
		} else {
			fputs("null,\"device\":null", f);
		}
	}
	fputs("},\"critical_path\":[", f);
	for (size_t i = 0; i < g->crit.n; i++) {
		const emu_node *n = &g->nodes.v[g->crit.v[i]];

		fprintf(f, "%s{\"seq\":%llu,\"kind\":\"%s\",\"name\":", i ? "," : "", (unsigned long long)n->seq,
		        emu_kind_name(n->kind));
		emu_json_str(f, emu_node_name(g, n));
		fprintf(f, ",\"cost_ns\":%llu}", (unsigned long long)n->cost_ns);
	}
	fprintf(f, "],\"engines\":[");
	for (unsigned e = 0; e < g->nengines; e++)
		fprintf(f, "%s{\"class\":\"%s\",\"busy_ns\":%llu}", e ? "," : "",
		        e >= g->opt.compute_engines ? "copy" : "compute", (unsigned long long)g->busy[e]);
	fprintf(f, "],\"stream_states\":[");
	for (size_t i = 0, k = 0; i < g->streams.n; i++) {
		if (!g->streams.v[i].steps)
			continue;
		fprintf(f, "%s{\"stream\":", k++ ? "," : "");
		emu_json_str(f, emu_stream_label(g, (uint32_t)i, lbl, sizeof(lbl)));
		fprintf(f, ",\"steps\":%u,\"changes\":%llu", g->streams.v[i].steps,
		        (unsigned long long)g->transitions[i]);
		for (int st = 0; st < 5; st++)
			fprintf(f, ",\"%s_ns\":%llu", emu_state_names[st], (unsigned long long)g->state_ns[i][st]);
		fprintf(f, "}");
	}
	fprintf(f, "]}");
}

emu_status emu_summary_print(const emu_graph *g, FILE *f, int json)
{
	emu_summary s;
	emu_status st = emu_summary_get(g, &s);
	char lbl[96];

	if (st != EMU_OK)
		return st;
	if (json) {
		emu_summary_json(g, &s, f);
		return ferror(f) ? EMU_ERR_IO : EMU_OK;
	}
	fprintf(f, "commands: %llu on %llu %s, %llu dependencies (%llu across %s)\n",
	        (unsigned long long)s.commands, (unsigned long long)s.streams, g->vk ? "queues" : "streams",
	        (unsigned long long)s.edges, (unsigned long long)s.cross_edges, g->vk ? "queues" : "streams");
	fprintf(f, "machine: %u compute engines, %u copy engines\n", g->opt.compute_engines,
	        g->opt.copy_engines);
	if (g->unmet_waits)
		fprintf(f, "stream memory waits no write-value operation satisfies: %llu (the first at seq %llu); "
		           "they order nothing\n",
		        (unsigned long long)g->unmet_waits, (unsigned long long)g->unmet_first_seq);
	if (g->dur_capture)
		fprintf(f, "durations: from capture times for %llu of %llu commands (%llu of %llu host waits "
		           "bound them)%s\n",
		        (unsigned long long)g->nmeasured, (unsigned long long)g->nodes.n,
		        (unsigned long long)g->cap_waits, (unsigned long long)emu_cap_groups(g),
		        g->nmeasured < g->nodes.n ? "; cost model for the rest" : "");
	else if (g->measured)
		fprintf(f, "durations: measured for %llu of %llu commands (replay profile %s, device %s)%s\n",
		        (unsigned long long)g->nmeasured, (unsigned long long)g->nodes.n, g->profile_path,
		        g->profile_device, g->nmeasured < g->nodes.n ? "; cost model for the rest" : "");
	else
		fprintf(f, "durations: cost model (no replay profile)\n");
	fprintf(f, "makespan: %llu ns\n", (unsigned long long)s.makespan_ns);
	fprintf(f, "critical path: %llu ns, %llu commands\n", (unsigned long long)s.critical_ns,
	        (unsigned long long)s.critical_count);
	for (size_t i = 0; i < g->crit.n; i++) {
		const emu_node *n = &g->nodes.v[g->crit.v[i]];

		if (i == EMU_CRIT_SHOWN && g->crit.n > EMU_CRIT_SHOWN + 1) {
			fprintf(f, "  ... %zu more\n", g->crit.n - EMU_CRIT_SHOWN - 1);
			i = g->crit.n - 2; /* then the last one */
			continue;
		}
		fprintf(f, "  seq %llu %s %s on %s: %llu ns\n", (unsigned long long)n->seq,
		        emu_kind_name(n->kind), emu_node_name(g, n), emu_stream_label(g, n->stream, lbl, sizeof(lbl)),
		        (unsigned long long)n->cost_ns);
	}
	fprintf(f, "max concurrency: %llu at %llu ns\n", (unsigned long long)s.max_concurrency,
	        (unsigned long long)s.max_concurrency_at_ns);
	for (unsigned e = 0; e < g->nengines; e++) {
		int copy = e >= g->opt.compute_engines;

		fprintf(f, "engine %u (%s %u): busy %llu ns, utilisation %.1f%%\n", e, copy ? "copy" : "compute",
		        copy ? e - g->opt.compute_engines : e, (unsigned long long)g->busy[e],
		        s.makespan_ns ? 100.0 * (double)g->busy[e] / (double)s.makespan_ns : 0.0);
	}
	for (size_t i = 0; i < g->streams.n; i++) {
		if (!g->streams.v[i].steps)
			continue;
		fprintf(f, "%s: %u steps, %llu state changes;", emu_stream_label(g, (uint32_t)i, lbl, sizeof(lbl)),
		        g->streams.v[i].steps, (unsigned long long)g->transitions[i]);
		for (int k = 0; k < 5; k++)
			fprintf(f, " %s %llu ns%s", emu_state_names[k], (unsigned long long)g->state_ns[i][k],
			        k < 4 ? "," : "\n");
	}
	return EMU_OK;
}
