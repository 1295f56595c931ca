/*
 * emu_race.c - races between commands the happens-before graph leaves
 * unordered (docs/emulator.md "Races").
 *
 * Order between steps is answered by vector clocks: every stream is a
 * chain of steps, so step a happens before step b exactly when b's clock
 * has reached a's position on a's stream.  Accesses are grouped by
 * allocation; within a group, each access is compared with the earlier
 * ones, newest first, and a stream is dropped from the scan once one of its
 * accesses is found ordered before (every earlier one on it is too).
 * Nodes of one graph launch are ordered by the graph's own edges, through
 * vector clocks over the launch's chains of nodes (emu_lclk), made once per
 * template; a launch too large for them is searched backwards from the
 * later node.  A dependency on one node of a launch (an event record node's
 * event) is a column of its own beyond the streams' (emu_col), and a node
 * that waits for more than its step (an event wait node before it) has a
 * clock of its own (nvc).
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"
#include "emulator/emu_vk.h"

#define EMU_RACE_MAX 100000u
#define EMU_VC_MAX ((size_t)1 << 28)

/* v joins what dependency d brings: the whole clock of its step, or, for
 * a node of a launch, the clock of that node less the launch itself (the
 * launch's stream up to the step before it) and the node's column. */
static void emu_vc_join(const emu_graph *g, uint32_t *v, const emu_dep *d)
{
	size_t w = g->vc_width;
	const uint32_t *p = g->vc + (size_t)d->step * w;

	if (!d->node1) {
		for (size_t k = 0; k < w; k++)
			if (p[k] > v[k])
				v[k] = p[k];
	} else {
		const emu_step *st = &g->steps.v[d->step];
		uint32_t row = g->nvc_row[emu_dep_node(g, d)], c = 0;
		size_t col;

		uint32_t tmpl = emu_step_tmpl(g, d->step);

		while (c < g->cols.n && (g->cols.v[c].stream != st->stream || g->cols.v[c].tmpl != tmpl ||
		                         g->cols.v[c].tnode != (uint32_t)d->node1 - 1))
			c++;
		if (c == g->cols.n)
			return; /* cannot be: made with the dependency (emu_launch_record) */
		col = (g->streams.n ? g->streams.n : 1) + c;

		if (row != EMU_NONE)
			p = g->nvc + (size_t)row * w;
		for (size_t k = 0; k < w; k++)
			if (k != st->stream && p[k] > v[k])
				v[k] = p[k];
		if (st->pos - 1 > v[st->stream])
			v[st->stream] = st->pos - 1;
		if (st->pos > v[col])
			v[col] = st->pos;
	}
}

/* Clocks of every step, then, for a launch with a node that waits for more
 * than its step (xdeps), a clock for each of its nodes. */
static emu_status emu_vc_build(emu_graph *g)
{
	size_t w = (g->streams.n ? g->streams.n : 1) + g->cols.n, ns = g->steps.n, nn = g->nodes.n, rows = 0;

	if (g->vc)
		return EMU_OK;
	if (ns && w > EMU_VC_MAX / ns)
		return EMU_ERR_NOMEM;
	g->vc = calloc(ns * w + 1, sizeof(uint32_t));
	if (!g->vc)
		return EMU_ERR_NOMEM;
	g->vc_width = w;
	if (g->node_deps) {
		g->nvc_row = malloc((nn + 1) * sizeof(uint32_t));
		if (!g->nvc_row)
			goto nomem;
		for (size_t i = 0; i < nn; i++)
			g->nvc_row[i] = EMU_NONE;
		for (size_t s = 0; s < ns; s++) {
			const emu_step *st = &g->steps.v[s];
			int any = 0;

			for (uint32_t k = 0; k < st->node_count && !any; k++)
				any = emu_node_xdeps(g, st->node_first + k) != NULL;
			for (uint32_t k = 0; any && k < st->node_count; k++)
				g->nvc_row[st->node_first + k] = (uint32_t)rows++;
		}
		g->nvc = rows && w > EMU_VC_MAX / rows ? NULL : calloc(rows * w + 1, sizeof(uint32_t));
		if (!g->nvc)
			goto nomem;
	}
	for (size_t s = 0; s < ns; s++) {
		const emu_step *st = &g->steps.v[s];
		uint32_t *v = g->vc + s * w;

		for (uint32_t d = 0; d < st->dep_count; d++) {
			const emu_dep *dp = &g->deps.v[st->dep_first + d];
			const uint32_t *p = g->vc + (size_t)dp->step * w;

			if (dp->node1) {
				emu_vc_join(g, v, dp);
				continue;
			}
			for (size_t k = 0; k < w; k++)
				if (p[k] > v[k])
					v[k] = p[k];
		}
		v[st->stream] = st->pos;
		if (!g->nvc_row || !st->node_count || g->nvc_row[st->node_first] == EMU_NONE)
			continue;
		for (uint32_t k = 0; k < st->node_count; k++) {
			const emu_node *n = &g->nodes.v[st->node_first + k];
			uint32_t *r = g->nvc + (size_t)g->nvc_row[st->node_first + k] * w;

			memcpy(r, v, w * sizeof(uint32_t));
			const emu_xdep *xd = emu_node_xdeps(g, st->node_first + k);

			for (uint32_t d = 0; xd && d < xd->count; d++)
				emu_vc_join(g, r, &g->deps.v[xd->first + d]);
			for (uint32_t p = 0; p < n->ipred_count; p++) {
				const uint32_t *q = g->nvc + (size_t)g->nvc_row[g->ipreds.v[n->ipred_first + p]] * w;

				for (size_t x = 0; x < w; x++)
					if (q[x] > r[x])
						r[x] = q[x];
			}
		}
	}
	return EMU_OK;
nomem:
	free(g->vc);
	free(g->nvc_row);
	g->vc = g->nvc_row = NULL;
	return EMU_ERR_NOMEM;
}

int emu_step_before(const emu_graph *g, uint32_t a, uint32_t b)
{
	const emu_step *sa = &g->steps.v[a];

	return a != b && g->vc[(size_t)b * g->vc_width + sa->stream] >= sa->pos;
}

/* Whether node a (earlier) reaches node b through the internal edges of
 * their graph launch; -1 when out of memory. */
static int emu_node_reaches(const emu_graph *g, uint32_t a, uint32_t b)
{
	const emu_step *st = &g->steps.v[g->nodes.v[b].step];
	uint32_t *stack = malloc((st->node_count + 1) * sizeof(uint32_t)); /* each node once */
	uint8_t *seen = calloc(st->node_count, 1);
	size_t n = 0;
	int found = 0;

	if (!stack || !seen) {
		found = -1;
		goto out;
	}
	stack[n++] = b;
	while (n && !found) {
		const emu_node *x = &g->nodes.v[stack[--n]];

		for (uint32_t p = 0; p < x->ipred_count; p++) {
			uint32_t q = g->ipreds.v[x->ipred_first + p];

			if (q == a) {
				found = 1;
				break;
			}
			if (q > a && !seen[q - st->node_first]) {
				seen[q - st->node_first] = 1;
				stack[n++] = q;
			}
		}
	}
out:
	free(stack);
	free(seen);
	return found;
}

/* ---- order inside a graph launch: chain clocks ------------------------------------ */

/* Beyond this many clock entries (nodes x chains) a launch's order is
 * answered by searching its edges instead (emu_node_reaches). */
#define EMU_LCLK_MAX ((size_t)1 << 24)

/* The order of one launch's nodes as vector clocks over chains: its nodes
 * (in index order, a topological order) are split into chains, each node
 * extending the chain of a predecessor that is that chain's last node, or
 * starting one; node a comes before node b exactly when b's clock has
 * reached a's position on a's chain.  Launches of one template share the
 * edges, so one is computed per template and checked against each launch
 * (the step it was made for and the steps found alike). */
typedef struct emu_lclk {
	uint32_t step;          /* the launch it was computed for; EMU_NONE: none yet */
	uint32_t gen;           /* which computation (emu_lorder.gen when made) */
	uint32_t nn, w;         /* nodes, chains */
	int search;             /* too many entries: search the edges */
	uint32_t *chain, *pos;  /* per node: its chain, its 1-based place in it */
	uint32_t *clk;          /* nn x w */
} emu_lclk;

typedef struct emu_lorder {
	emu_lclk *t;            /* per template (emu_step_tmpl) */
	size_t nt;
	uint32_t *fits;         /* per step: the gen of clocks found to fit it (0: none) */
	uint32_t gen;           /* computations so far */
	uint32_t last_step;     /* the launch asked for last (EMU_NONE: none) and its clocks */
	const emu_lclk *last;
	uint32_t *cstamp, *cseen; /* per chain (the widest so far): scratch of the race scan */
	size_t ncap;
} emu_lorder;

static void emu_lorder_free(emu_lorder *o)
{
	for (size_t i = 0; o->t && i < o->nt; i++) {
		free(o->t[i].chain);
		free(o->t[i].pos);
		free(o->t[i].clk);
	}
	free(o->t);
	free(o->fits);
	free(o->cstamp);
	free(o->cseen);
}

static int emu_lclk_make(const emu_graph *g, emu_lorder *o, emu_lclk *c, uint32_t s)
{
	const emu_step *st = &g->steps.v[s];
	uint32_t nn = st->node_count, w = 0, *tail = NULL;
	int rc = -1;

	free(c->chain);
	free(c->pos);
	free(c->clk);
	memset(c, 0, sizeof(*c));
	c->step = s;
	c->gen = ++o->gen;
	c->nn = nn;
	c->chain = malloc((nn + 1) * sizeof(uint32_t));
	c->pos = malloc((nn + 1) * sizeof(uint32_t));
	tail = malloc((nn + 1) * sizeof(uint32_t));
	if (!c->chain || !c->pos || !tail)
		goto out;
	for (uint32_t k = 0; k < nn; k++) {
		const emu_node *n = &g->nodes.v[st->node_first + k];
		uint32_t ch = EMU_NONE;

		for (uint32_t p = 0; p < n->ipred_count && ch == EMU_NONE; p++) {
			uint32_t q = g->ipreds.v[n->ipred_first + p] - st->node_first;

			if (tail[c->chain[q]] == q)
				ch = c->chain[q];
		}
		if (ch == EMU_NONE) {
			ch = w++;
			c->pos[k] = 1;
		} else {
			c->pos[k] = c->pos[tail[ch]] + 1;
		}
		c->chain[k] = ch;
		tail[ch] = k;
	}
	c->w = w;
	if ((size_t)nn * w > EMU_LCLK_MAX) {
		c->search = 1;
		rc = 0;
		goto out;
	}
	c->clk = calloc((size_t)nn * w + 1, sizeof(uint32_t));
	if (!c->clk)
		goto out;
	for (uint32_t k = 0; k < nn; k++) {
		const emu_node *n = &g->nodes.v[st->node_first + k];
		uint32_t *v = c->clk + (size_t)k * w;

		for (uint32_t p = 0; p < n->ipred_count; p++) {
			const uint32_t *pv = c->clk + (size_t)(g->ipreds.v[n->ipred_first + p] - st->node_first) * w;

			for (uint32_t x = 0; x < w; x++)
				if (pv[x] > v[x])
					v[x] = pv[x];
		}
		v[c->chain[k]] = c->pos[k];
	}
	if (w > o->ncap) {
		free(o->cstamp);
		free(o->cseen);
		o->cstamp = malloc(w * sizeof(uint32_t));
		o->cseen = malloc(w * sizeof(uint32_t));
		if (!o->cstamp || !o->cseen)
			goto out;
		o->ncap = w;
	}
	for (uint32_t x = 0; x < o->ncap; x++)
		o->cstamp[x] = o->cseen[x] = UINT32_MAX;
	rc = 0;
out:
	free(tail);
	return rc;
}

/* Whether launches a and b have the same internal edges (node for node). */
static int emu_launch_alike(const emu_graph *g, uint32_t a, uint32_t b)
{
	const emu_step *sa = &g->steps.v[a], *sb = &g->steps.v[b];

	if (sa->node_count != sb->node_count)
		return 0;
	for (uint32_t k = 0; k < sa->node_count; k++) {
		const emu_node *na = &g->nodes.v[sa->node_first + k], *nb = &g->nodes.v[sb->node_first + k];

		if (na->ipred_count != nb->ipred_count)
			return 0;
		for (uint32_t p = 0; p < na->ipred_count; p++)
			if (g->ipreds.v[na->ipred_first + p] - sa->node_first !=
			    g->ipreds.v[nb->ipred_first + p] - sb->node_first)
				return 0;
	}
	return 1;
}

/* The chain clocks of launch s (a step of several nodes); NULL when out of
 * memory, or (*search set) when its order is to be searched instead. */
static const emu_lclk *emu_lorder_of(const emu_graph *g, emu_lorder *o, uint32_t s, int *nomem)
{
	uint32_t t;
	emu_lclk *c;

	*nomem = 0;
	if (o->last && o->last_step == s)
		return o->last;
	t = emu_step_tmpl(g, s);
	if (!o->t) {
		for (size_t i = 0; i < g->launch_tmpl.n; i++)
			if (g->launch_tmpl.v[i].tmpl >= o->nt)
				o->nt = (size_t)g->launch_tmpl.v[i].tmpl + 1;
		o->t = calloc(o->nt + 1, sizeof(emu_lclk));
		o->fits = calloc(g->steps.n + 1, sizeof(uint32_t));
		if (!o->t || !o->fits)
			goto nomem;
		for (size_t i = 0; i <= o->nt; i++)
			o->t[i].step = EMU_NONE;
	}
	/* slot nt: launches of no template (not made by the builder today) */
	c = &o->t[t && t < o->nt ? t : o->nt];
	if (c->step == s || (c->step != EMU_NONE && o->fits[s] == c->gen))
		goto out;
	if (c->step != EMU_NONE && t && emu_launch_alike(g, c->step, s)) {
		o->fits[s] = c->gen;
		goto out;
	}
	if (emu_lclk_make(g, o, c, s) != 0)
		goto nomem;
	o->fits[s] = c->gen;
out:
	o->last_step = s;
	o->last = c;
	return c;
nomem:
	*nomem = 1;
	return NULL;
}

/* Whether node a happens before node b of a later step (a's step before
 * b's, or, through a dependency on a node of a's launch, a before or at
 * that node); *full when all of a's step and the steps before it on its
 * stream do.  -1 out of memory. */
static int emu_node_before(const emu_graph *g, emu_lorder *o, uint32_t a, uint32_t b, int *full)
{
	const emu_node *na = &g->nodes.v[a];
	const emu_step *sa = &g->steps.v[na->step];
	uint32_t row = g->nvc_row ? g->nvc_row[b] : EMU_NONE;
	const uint32_t *v = row != EMU_NONE ? g->nvc + (size_t)row * g->vc_width
	                                    : g->vc + (size_t)g->nodes.v[b].step * g->vc_width;
	size_t ws = g->streams.n ? g->streams.n : 1;

	*full = v[sa->stream] >= sa->pos;
	if (*full)
		return 1;
	uint32_t tmpl;

	if (v[sa->stream] + 1 < sa->pos || !(tmpl = emu_step_tmpl(g, na->step)))
		return 0;
	for (size_t c = 0; c < g->cols.n; c++) {
		const emu_col *col = &g->cols.v[c];
		uint32_t x = sa->node_first + col->tnode;
		int nomem;
		const emu_lclk *lc;

		if (col->stream != sa->stream || col->tmpl != tmpl || v[ws + c] < sa->pos || x < a)
			continue;
		if (x == a)
			return 1;
		lc = emu_lorder_of(g, o, na->step, &nomem);
		if (nomem)
			return -1;
		if (lc->search) {
			int r = emu_node_reaches(g, a, x);

			if (r)
				return r;
		} else if (lc->clk[(size_t)col->tnode * lc->w + lc->chain[a - sa->node_first]] >=
		           lc->pos[a - sa->node_first]) {
			return 1;
		}
	}
	return 0;
}

typedef struct emu_race {
	uint32_t a, b;          /* accesses, a's node before b's in index order */
	int confirmed;
} emu_race;

static int emu_acc_cmp(const void *x, const void *y, void *ctx)
{
	const emu_graph *g = ctx;
	const emu_access *a = &g->acc.v[*(const uint32_t *)x];
	const emu_access *b = &g->acc.v[*(const uint32_t *)y];

	if (a->alloc != b->alloc)
		return a->alloc < b->alloc ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* By the pair of commands (first node, second node), confirmed first. */
static int emu_race_cmp(const void *x, const void *y, void *ctx)
{
	const emu_graph *g = ctx;
	const emu_race *a = x, *b = y;
	uint32_t a1 = g->acc.v[a->a].node, a2 = g->acc.v[a->b].node;
	uint32_t b1 = g->acc.v[b->a].node, b2 = g->acc.v[b->b].node;

	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	if (a2 != b2)
		return a2 < b2 ? -1 : 1;
	return b->confirmed - a->confirmed;
}

static const char *emu_mode_text(uint32_t mode)
{
	if (mode & EMU_A_WRITE)
		return "writes";
	if (mode & EMU_A_MAYWRITE)
		return "reads and may write";
	return "reads";
}

/* The subresources [lo, hi) of a Vulkan image (index mip * layers + layer:
 * one mip's layers, or every layer of a run of mips), as words. */
static void emu_print_subres(FILE *f, const emu_alloc *al, uint64_t lo, uint64_t hi)
{
	uint64_t nl = al->layers ? al->layers : 1, mips = al->size / nl;
	uint64_t m0 = lo / nl, m1 = (hi - 1) / nl, l0 = lo % nl, l1 = (hi - 1) % nl;

	if (lo == 0 && hi == al->size) {
		fprintf(f, "whole image");
		return;
	}
	if (m0 == m1)
		fprintf(f, "mip %llu", (unsigned long long)m0);
	else
		fprintf(f, "mips %llu-%llu", (unsigned long long)m0, (unsigned long long)m1);
	fprintf(f, " of %llu", (unsigned long long)mips);
	if (nl > 1 && (l0 || l1 + 1 < nl)) {
		if (l0 == l1)
			fprintf(f, ", layer %llu", (unsigned long long)l0);
		else
			fprintf(f, ", layers %llu-%llu", (unsigned long long)l0, (unsigned long long)l1);
		fprintf(f, " of %llu", (unsigned long long)nl);
	}
}

static void emu_print_side(const emu_graph *g, FILE *f, const emu_access *a)
{
	const emu_node *n = &g->nodes.v[a->node];
	const emu_alloc *al = &g->allocs.v[a->inst ? a->inst : a->alloc]; /* graph memory: the launch's */
	const sbt_frame *frames;
	uint32_t nframes;
	char lbl[96];

	if (g->vk) {
		fprintf(f, "  seq %llu %s %s (submitted at seq %llu) on %s %s ", (unsigned long long)n->seq,
		        emu_kind_name(n->kind), emu_node_name(g, n),
		        (unsigned long long)g->vk->node.v[a->node].submit_seq,
		        emu_stream_label(g, n->stream, lbl, sizeof(lbl)), emu_mode_text(a->mode));
		if (al->vk == EMU_VK_IMAGE) {
			fprintf(f, "image 0x%llx (", (unsigned long long)al->handle);
			emu_print_subres(f, al, a->lo, a->hi);
		} else
			fprintf(f, "buffer 0x%llx bytes %llu..%llu (of %llu", (unsigned long long)al->handle,
			        (unsigned long long)a->lo, (unsigned long long)a->hi, (unsigned long long)al->size);
		fprintf(f, ", created at seq %llu)\n", (unsigned long long)al->seq);
	} else {
		fprintf(f, "  seq %llu %s %s on %s %s 0x%llx..0x%llx", (unsigned long long)n->seq,
		        emu_kind_name(n->kind), emu_node_name(g, n), emu_stream_label(g, n->stream, lbl, sizeof(lbl)),
		        emu_mode_text(a->mode), (unsigned long long)a->lo, (unsigned long long)a->hi);
	}
	if (g->vk)
		;
	else if (al->graph == EMU_GA_LAUNCH)
		fprintf(f, " (graph memory of %llu bytes allocated by the launch at seq %llu)",
		        (unsigned long long)al->size, (unsigned long long)al->seq);
	else if (al->graph == EMU_GA_NODE)
		fprintf(f, " (graph memory of %llu bytes of the allocation node at seq %llu, not launched yet)",
		        (unsigned long long)al->size, (unsigned long long)al->seq);
	else if (a->alloc && al->seq)
		fprintf(f, " (allocation of %llu bytes made at seq %llu)", (unsigned long long)al->size,
		        (unsigned long long)al->seq);
	else if (a->alloc)
		fprintf(f, " (allocation of %llu bytes from before the trace)", (unsigned long long)al->size);
	if (!g->vk)
		fprintf(f, "\n");
	if (n->stack_id && sbt_reader_stack(g->r, n->stack_id, &frames, &nframes) == SBT_OK)
		for (uint32_t i = 0; i < nframes; i++) {
			const char *sym = frames[i].symbol_id ? sbt_reader_string(g->r, frames[i].symbol_id) : NULL;

			fprintf(f, "      #%u 0x%llx %s\n", i, (unsigned long long)frames[i].ip, sym ? sym : "?");
		}
}

/* One side of a race as a JSON object. */
static void emu_json_side(const emu_graph *g, FILE *f, const emu_access *a)
{
	const emu_node *n = &g->nodes.v[a->node];
	const emu_alloc *al = &g->allocs.v[a->inst ? a->inst : a->alloc];
	const sbt_frame *frames;
	uint32_t nframes;
	char lbl[96];

	fprintf(f, "{\"seq\":%llu,\"kind\":\"%s\",\"name\":", (unsigned long long)n->seq, emu_kind_name(n->kind));
	emu_json_str(f, emu_node_name(g, n));
	fprintf(f, ",\"stream\":");
	emu_json_str(f, emu_stream_label(g, n->stream, lbl, sizeof(lbl)));
	fprintf(f, ",\"access\":\"%s\",\"lo\":%llu,\"hi\":%llu,\"allocation_seq\":%llu,\"allocation_size\":%llu,",
	        emu_mode_text(a->mode), (unsigned long long)a->lo, (unsigned long long)a->hi,
	        (unsigned long long)(a->alloc ? al->seq : 0), (unsigned long long)(a->alloc ? al->size : 0));
	if (g->vk)
		fprintf(f, "\"submit_seq\":%llu,\"resource\":\"%s\",\"handle\":%llu,",
		        (unsigned long long)g->vk->node.v[a->node].submit_seq, al->vk == EMU_VK_IMAGE ? "image" : "buffer",
		        (unsigned long long)al->handle);
	if (g->vk && al->vk == EMU_VK_IMAGE)
		fprintf(f, "\"layers\":%u,", al->layers);
	fprintf(f, "\"stack\":[");
	if (n->stack_id && sbt_reader_stack(g->r, n->stack_id, &frames, &nframes) == SBT_OK)
		for (uint32_t i = 0; i < nframes; i++) {
			const char *sym = frames[i].symbol_id ? sbt_reader_string(g->r, frames[i].symbol_id) : NULL;

			fprintf(f, "%s{\"ip\":%llu,\"symbol\":", i ? "," : "", (unsigned long long)frames[i].ip);
			emu_json_str(f, sym ? sym : "");
			fprintf(f, "}");
		}
	fprintf(f, "]}");
}

typedef EMU_VEC(emu_race) emu_racevec;

/* ord[0..na) = the accesses in emu_acc_cmp's order (a total order, so the
 * result is the one qsort_r gives): a counting sort by allocation keeps
 * index order within each allocation, which is already the order by node
 * where accesses were appended command by command; a group that is not is
 * sorted by emu_acc_cmp.  0, or -1 out of memory. */
static int emu_acc_order(const emu_graph *g, uint32_t *ord, size_t na)
{
	uint32_t max = 0, *first;

	for (size_t i = 0; i < na; i++)
		if (g->acc.v[i].alloc > max)
			max = g->acc.v[i].alloc;
	first = calloc((size_t)max + 2, sizeof(uint32_t));
	if (!first)
		return -1;
	for (size_t i = 0; i < na; i++)
		first[g->acc.v[i].alloc + 1]++;
	for (size_t a = 0; a <= max; a++)
		first[a + 1] += first[a];
	for (size_t i = 0; i < na; i++)
		ord[first[g->acc.v[i].alloc]++] = (uint32_t)i;
	/* first[a] is now the end of group a, and the start of group a + 1 */
	for (size_t a = 0, lo = 0; a <= max; lo = first[a], a++) {
		size_t hi = first[a];

		for (size_t j = lo + 1; j < hi; j++)
			if (g->acc.v[ord[j]].node < g->acc.v[ord[j - 1]].node) {
				qsort_r(ord + lo, hi - lo, sizeof(uint32_t), emu_acc_cmp, (void *)g);
				break;
			}
	}
	free(first);
	return 0;
}

/* Vulkan: (*out)[i] summarises every access of ord[i]'s allocation on its
 * queue up to ord[i] (in ord's order), for emu_vk_covers.  0, or -1 out
 * of memory. */
static int emu_vk_sofar_build(const emu_graph *g, const uint32_t *ord, size_t na, emu_vk_sofar **out)
{
	emu_vk_sofar *sofar = malloc((na + 1) * sizeof(*sofar)), *last = calloc(g->streams.n + 1, sizeof(*last));
	uint32_t *group = calloc(g->streams.n + 1, sizeof(uint32_t));

	if (!sofar || !last || !group) {
		free(sofar);
		free(last);
		free(group);
		return -1;
	}
	for (size_t j = 0, start = 0; j < na; j++) {
		const emu_access *a = &g->acc.v[ord[j]];
		uint32_t s = g->nodes.v[a->node].stream;

		if (j && g->acc.v[ord[j - 1]].alloc != a->alloc)
			start = j;
		if (group[s] != start + 1) { /* the stream's first access to this allocation */
			group[s] = (uint32_t)start + 1;
			memset(&last[s], 0, sizeof(last[s]));
		}
		emu_vk_sofar_add(g, &last[s], a);
		sofar[j] = last[s];
	}
	free(last);
	free(group);
	*out = sofar;
	return 0;
}

/* Every racing access pair, sorted by pair of commands (emu_race_cmp). */
static emu_status emu_races_collect(emu_graph *g, emu_racevec *out)
{
	uint32_t *ord = NULL, *stamp = NULL, *seen = NULL;
	emu_vk_sofar *sofar = NULL;
	emu_lorder lorder = { 0 };
	emu_racevec races = { 0 };
	emu_status st;
	size_t na;

	st = emu_vc_build(g);
	if (st != EMU_OK)
		return st;
	na = g->acc.n;
	ord = malloc((na + 1) * sizeof(uint32_t));
	stamp = malloc((g->streams.n + 1) * sizeof(uint32_t));
	seen = calloc(g->streams.n + 1, sizeof(uint32_t));
	if (!ord || !stamp || !seen) {
		st = EMU_ERR_NOMEM;
		goto out;
	}
	if (emu_acc_order(g, ord, na) != 0 || (g->vk && emu_vk_sofar_build(g, ord, na, &sofar) != 0)) {
		st = EMU_ERR_NOMEM;
		goto out;
	}
	for (size_t s = 0; s < g->streams.n; s++)
		stamp[s] = UINT32_MAX;
	for (size_t j = 0, group = 0, nstreams = 0, step_lo = 0, nchains = 0, lo_step = SIZE_MAX;
	     j < na && races.n < EMU_RACE_MAX; j++) {
		const emu_access *aj = &g->acc.v[ord[j]];
		const emu_node *nj = &g->nodes.v[aj->node];
		size_t covered = 0, from = j;

		/* streams with accesses to this allocation so far (a new group
		 * starts where the allocation changes) */
		if (j == 0 || g->acc.v[ord[j - 1]].alloc != aj->alloc) {
			group = j;
			nstreams = 0;
		}
		if (g->streams.v[nj->stream].steps && seen[nj->stream] != group + 1) {
			seen[nj->stream] = (uint32_t)group + 1;
			nstreams++;
		}
		if (!g->vk && g->steps.v[nj->step].node_count > 1) {
			/* inside the launch: an earlier node ordered before nj
			 * orders every earlier node of its chain too */
			int nomem;
			const emu_lclk *lc = emu_lorder_of(g, &lorder, nj->step, &nomem);
			uint32_t first = g->steps.v[nj->step].node_first, ccov = 0;

			/* this allocation's accesses by nodes of nj's launch start at
			 * step_lo (a node's accesses are consecutive, its launch's too) */
			if (lo_step != nj->step || step_lo < group) {
				step_lo = j;
				lo_step = nj->step;
				nchains = 0;
			}
			if (nomem) {
				st = EMU_ERR_NOMEM;
				goto out;
			}
			for (size_t i = j; !lc->search && i-- > step_lo;) {
				const emu_access *ai = &g->acc.v[ord[i]];
				uint32_t ka = ai->node - first, kb = aj->node - first, ch = lc->chain[ka];

				if (ai->node == aj->node || lorder.cstamp[ch] == (uint32_t)j)
					continue;
				if (lc->clk[(size_t)kb * lc->w + ch] >= lc->pos[ka]) {
					lorder.cstamp[ch] = (uint32_t)j;
					if (++ccov == nchains)
						break;
					continue;
				}
				if (ai->hi <= aj->lo || aj->hi <= ai->lo ||
				    !((ai->mode | aj->mode) & (EMU_A_WRITE | EMU_A_MAYWRITE)))
					continue;
				{
					emu_race r = { ord[i], ord[j], (ai->mode & EMU_A_WRITE) || (aj->mode & EMU_A_WRITE) };

					if (EMU_PUSH(races, r) != 0) {
						st = EMU_ERR_NOMEM;
						goto out;
					}
				}
			}
			if (!lc->search) {
				uint32_t ch = lc->chain[aj->node - first];

				/* chains of this launch with accesses to the allocation so far */
				if (lorder.cseen[ch] != (uint32_t)step_lo + 1) {
					lorder.cseen[ch] = (uint32_t)step_lo + 1;
					nchains++;
				}
				from = step_lo;
			}
		}
		for (size_t i = from; i-- > 0 && covered < nstreams;) {
			const emu_access *ai = &g->acc.v[ord[i]];
			const emu_node *ni = &g->nodes.v[ai->node];
			uint32_t wj, wi;

			if (ai->alloc != aj->alloc)
				break;
			if (ai->node == aj->node)
				continue;
			if (g->vk) {
				int full;

				if (stamp[ni->stream] == (uint32_t)j)
					continue;
				if (emu_vk_covers(g, ai, &sofar[i], aj)) {
					/* this and every earlier access on aj's queue is ordered */
					stamp[ni->stream] = (uint32_t)j;
					covered++;
					continue;
				}
				if (ai->hi <= aj->lo || aj->hi <= ai->lo ||
				    !((ai->mode | aj->mode) & (EMU_A_WRITE | EMU_A_MAYWRITE))) {
					/* no conflict; still, an order through completion points covers the queue */
					if (emu_vk_before_full(g, ai, aj)) {
						stamp[ni->stream] = (uint32_t)j;
						covered++;
					}
					continue;
				}
				if (emu_vk_before(g, ai, aj, &full)) {
					if (full) {
						stamp[ni->stream] = (uint32_t)j;
						covered++;
					}
					continue;
				}
			} else if (ni->step != nj->step) {
				int full = 0, before;

				if (stamp[ni->stream] == (uint32_t)j)
					continue;
				if (g->node_deps)
					before = emu_node_before(g, &lorder, ai->node, aj->node, &full);
				else
					before = full = emu_step_before(g, ni->step, nj->step);
				if (before < 0) {
					st = EMU_ERR_NOMEM;
					goto out;
				}
				if (full) {
					/* every earlier access on that stream is ordered too */
					stamp[ni->stream] = (uint32_t)j;
					covered++;
				}
				if (before)
					continue;
			}
			if (ai->hi <= aj->lo || aj->hi <= ai->lo)
				continue;
			wi = ai->mode & (EMU_A_WRITE | EMU_A_MAYWRITE);
			wj = aj->mode & (EMU_A_WRITE | EMU_A_MAYWRITE);
			if (!wi && !wj)
				continue;
			if (!g->vk && ni->step == nj->step) {
				int r = emu_node_reaches(g, ai->node, aj->node);

				if (r < 0) {
					st = EMU_ERR_NOMEM;
					goto out;
				}
				if (r)
					continue;
			}
			{
				emu_race r = { ord[i], ord[j], (ai->mode & EMU_A_WRITE) || (aj->mode & EMU_A_WRITE) };

				if (EMU_PUSH(races, r) != 0) {
					st = EMU_ERR_NOMEM;
					goto out;
				}
			}
		}
	}
	if (races.n)
		qsort_r(races.v, races.n, sizeof(emu_race), emu_race_cmp, g);
	*out = races;
	races.v = NULL;
	st = EMU_OK;
out:
	free(races.v);
	free(ord);
	free(sofar);
	free(stamp);
	free(seen);
	emu_lorder_free(&lorder);
	return st;
}

/* The end of the run of access pairs from i that join the same two
 * commands. */
static size_t emu_race_pair_end(const emu_graph *g, const emu_racevec *races, size_t i)
{
	const emu_race *r = &races->v[i];
	size_t k = i;

	while (k < races->n && g->acc.v[races->v[k].a].node == g->acc.v[r->a].node &&
	       g->acc.v[races->v[k].b].node == g->acc.v[r->b].node)
		k++;
	return k;
}

static void emu_race_side_fill(const emu_graph *g, const emu_access *a, emu_race_side *out)
{
	const emu_node *n = &g->nodes.v[a->node];

	out->seq = n->seq;
	out->kind = emu_kind_name(n->kind);
	out->name = emu_node_name(g, n);
	out->lo = a->lo;
	out->hi = a->hi;
	out->access = emu_mode_text(a->mode);
	out->alloc_seq = a->alloc ? g->allocs.v[a->inst ? a->inst : a->alloc].seq : 0;
}

emu_status emu_races_each(emu_graph *g, int (*fn)(void *ctx, const emu_race_desc *r), void *ctx)
{
	emu_racevec races = { 0 };
	emu_status st;

	if (!g || !fn)
		return EMU_ERR_ARG;
	st = emu_races_collect(g, &races);
	if (st != EMU_OK)
		return st;
	for (size_t i = 0; i < races.n; i = emu_race_pair_end(g, &races, i)) {
		emu_race_desc d;

		d.confirmed = races.v[i].confirmed;
		emu_race_side_fill(g, &g->acc.v[races.v[i].a], &d.first);
		emu_race_side_fill(g, &g->acc.v[races.v[i].b], &d.second);
		if (fn(ctx, &d))
			break;
	}
	free(races.v);
	return EMU_OK;
}

/* ---- races touching memory (emu_races_touching) --------------------------------------- */

/* A range of an allocation the memory asked about reaches. */
typedef struct emu_reach {
	uint32_t alloc;
	uint64_t lo, hi;
} emu_reach;

typedef EMU_VEC(emu_reach) emu_reachvec;

static int emu_reach_hits(const emu_reachvec *t, uint32_t alloc, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].alloc == alloc && t->v[i].lo < hi && lo < t->v[i].hi)
			return 1;
	return 0;
}

/* 1 added, 0 already there (exactly), -1 out of memory. */
static int emu_reach_add(emu_reachvec *t, uint32_t alloc, uint64_t lo, uint64_t hi)
{
	emu_reach r = { alloc, lo, hi };

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].alloc == alloc && t->v[i].lo <= lo && hi <= t->v[i].hi)
			return 0;
	return EMU_PUSH(*t, r) != 0 ? -1 : 1;
}

/* Vulkan: the ranges of buffers and images memory [lo, hi) reaches: those
 * bound over it, then, again and again, what the transfer commands that
 * write a range reached read. */
static emu_status emu_reach_vk(const emu_graph *g, uint64_t lo, uint64_t hi, emu_reachvec *t)
{
	uint64_t mem = 0;
	int grew = 1;

	for (size_t i = 1; i < g->allocs.n; i++)
		if (g->allocs.v[i].mem && g->allocs.v[i].mem <= lo && g->allocs.v[i].mem > mem)
			mem = g->allocs.v[i].mem;
	if (!mem)
		return EMU_OK;
	for (size_t i = 1; i < g->allocs.n; i++) {
		const emu_alloc *a = &g->allocs.v[i];
		uint64_t off_lo = lo - mem, off_hi = hi - mem, blo, bhi;
		/* an image's bytes in memory are not known: its first only */
		uint64_t len = a->vk == EMU_VK_IMAGE ? 1 : a->size;

		if (a->mem != mem || a->mem_off >= off_hi || off_lo >= a->mem_off + len)
			continue;
		/* buffers by byte range; images whole (their layout in memory is the driver's) */
		blo = a->vk == EMU_VK_BUFFER && off_lo > a->mem_off ? off_lo - a->mem_off : 0;
		bhi = a->vk == EMU_VK_BUFFER && off_hi - a->mem_off < a->size ? off_hi - a->mem_off : a->size;
		if (emu_reach_add(t, (uint32_t)i, blo, bhi) < 0)
			return EMU_ERR_NOMEM;
	}
	while (grew) {
		grew = 0;
		for (size_t n = 0; n < g->nodes.n; n++) {
			const emu_node *nd = &g->nodes.v[n];
			int writes = 0;

			if (nd->kind != EMU_K_TRANSFER)
				continue;
			for (uint32_t k = 0; k < nd->acc_count && !writes; k++) {
				const emu_access *a = &g->acc.v[nd->acc_first + k];
				writes = (a->mode & EMU_A_WRITE) && emu_reach_hits(t, a->alloc, a->lo, a->hi);
			}
			for (uint32_t k = 0; writes && k < nd->acc_count; k++) {
				const emu_access *a = &g->acc.v[nd->acc_first + k];
				int r;

				if (!(a->mode & EMU_A_READ) || !a->alloc)
					continue;
				r = emu_reach_add(t, a->alloc, a->lo, a->hi);
				if (r < 0)
					return EMU_ERR_NOMEM;
				grew |= r;
			}
		}
	}
	return EMU_OK;
}

static int emu_touches(const emu_graph *g, const emu_reachvec *t, const emu_access *a, uint64_t lo,
                       uint64_t hi)
{
	if (g->vk)
		return emu_reach_hits(t, a->alloc, a->lo, a->hi);
	return a->lo < hi && lo < a->hi;
}

emu_status emu_races_touching(emu_graph *g, uint64_t lo, uint64_t hi,
                              int (*fn)(void *ctx, const emu_race_desc *r), void *ctx)
{
	emu_racevec races = { 0 };
	emu_reachvec reach = { 0 };
	emu_status st;

	if (!g || !fn)
		return EMU_ERR_ARG;
	if (g->vk) {
		st = emu_reach_vk(g, lo, hi, &reach);
		if (st != EMU_OK)
			goto out_free;
	}
	st = emu_races_collect(g, &races);
	if (st != EMU_OK)
		goto out_free;
	for (size_t i = 0; i < races.n;) {
		size_t k = emu_race_pair_end(g, &races, i);
		size_t hit = k;
		emu_race_desc d;

		/* the command pair touches when one of its access pairs does */
		for (size_t j = i; j < k && hit == k; j++)
			if (emu_touches(g, &reach, &g->acc.v[races.v[j].a], lo, hi) ||
			    emu_touches(g, &reach, &g->acc.v[races.v[j].b], lo, hi))
				hit = j;
		if (hit < k) {
			d.confirmed = races.v[hit].confirmed;
			emu_race_side_fill(g, &g->acc.v[races.v[hit].a], &d.first);
			emu_race_side_fill(g, &g->acc.v[races.v[hit].b], &d.second);
			if (fn(ctx, &d))
				break;
		}
		i = k;
	}
out_free:
	free(races.v);
	free(reach.v);
	return st;
}

/* The step of the command holding unmet wait u: the node issued by its
 * record that reads u's word and carries memory operations; EMU_NONE if
 * none. */
static uint32_t emu_unmet_step(const emu_graph *g, const emu_unmet_wait *u)
{
	uint64_t end = u->addr + (u->wide ? 8 : 4);

	for (size_t i = 0; i < g->nodes.n; i++) {
		const emu_node *n = &g->nodes.v[i];

		if (n->seq != u->seq || !n->mop_len)
			continue;
		for (uint32_t k = 0; k < n->acc_count; k++) {
			const emu_access *a = &g->acc.v[n->acc_first + k];

			if ((a->mode & EMU_A_READ) && a->lo < end && a->hi > u->addr)
				return n->step;
		}
	}
	return EMU_NONE;
}

/*
 * The waits no write-value operation met, and the kernels, copies and
 * memsets that write (a copy's or memset's destination, a keyframe-proven
 * kernel write) or may write (a kernel given a pointer into the
 * allocation) the word one waits on, unordered with it (one ordered
 * before it wrote its value before the wait was read, one after it cannot
 * have met it): such a command may be what meets the wait on the GPU.
 * Only write-value operations order waits (a kernel's write set is an
 * over-approximation at best, and its value unknown), so each is named,
 * not ordered: its accesses race with the wait's read, reported above.
 */
static void emu_unmet_print(const emu_graph *g, FILE *f)
{
	for (size_t u = 0; u < g->unmet.n; u++) {
		const emu_unmet_wait *w = &g->unmet.v[u];
		uint64_t end = w->addr + (w->wide ? 8 : 4);
		uint32_t ws = emu_unmet_step(g, w);
		const emu_access *first = NULL;
		size_t count = 0;
		char lbl[96];

		if (ws == EMU_NONE)
			continue;
		for (size_t i = 0; i < g->acc.n; i++) {
			const emu_access *a = &g->acc.v[i];
			const emu_node *n = &g->nodes.v[a->node];

			if (n->mop_len || !(a->mode & (EMU_A_WRITE | EMU_A_MAYWRITE)) || a->lo >= end ||
			    a->hi <= w->addr || n->step == ws || emu_step_before(g, ws, n->step) ||
			    emu_step_before(g, n->step, ws))
				continue;
			if (first && first->node == a->node)
				continue;
			if (!first)
				first = a;
			count++;
		}
		if (!first)
			continue;
		fprintf(f, "stream memory wait at seq %llu (the %d-bit word at 0x%llx) met by no write-value "
		           "operation: seq %llu %s %s on %s %s that word and may meet it",
		        (unsigned long long)w->seq, w->wide ? 64 : 32, (unsigned long long)w->addr,
		        (unsigned long long)g->nodes.v[first->node].seq, emu_kind_name(g->nodes.v[first->node].kind),
		        emu_node_name(g, &g->nodes.v[first->node]),
		        emu_stream_label(g, g->nodes.v[first->node].stream, lbl, sizeof(lbl)),
		        (first->mode & EMU_A_WRITE) ? "writes" : "may write");
		if (count > 1)
			fprintf(f, " (and %zu more commands)", count - 1);
		fprintf(f, "; only write-value operations order waits, so it orders nothing\n");
	}
}

emu_status emu_races_report(emu_graph *g, FILE *f, int json, emu_race_counts *out)
{
	emu_racevec races = { 0 };
	emu_status st;

	if (!g || !out)
		return EMU_ERR_ARG;
	memset(out, 0, sizeof(*out));
	st = emu_races_collect(g, &races);
	if (st != EMU_OK)
		return st;
	/* one report per pair of commands: the confirmed access pair if any */
	if (f && json)
		fprintf(f, "[");
	for (size_t i = 0; i < races.n;) {
		const emu_race *r = &races.v[i];
		size_t k = emu_race_pair_end(g, &races, i);

		if (r->confirmed)
			out->confirmed++;
		else
			out->possible++;
		if (f && json) {
			fprintf(f, "%s{\"verdict\":\"%s\",\"first\":", out->confirmed + out->possible > 1 ? "," : "",
			        r->confirmed ? "confirmed" : "possible");
			emu_json_side(g, f, &g->acc.v[r->a]);
			fprintf(f, ",\"second\":");
			emu_json_side(g, f, &g->acc.v[r->b]);
			fprintf(f, "}");
		} else if (f) {
			fprintf(f, "race (%s): no happens-before order between\n",
			        r->confirmed ? "confirmed" : "possible");
			emu_print_side(g, f, &g->acc.v[r->a]);
			emu_print_side(g, f, &g->acc.v[r->b]);
		}
		i = k;
	}
	if (f && json)
		fprintf(f, "]");
	if (f && !json && races.n >= EMU_RACE_MAX)
		fprintf(f, "(stopped after %u racing access pairs)\n", EMU_RACE_MAX);
	if (f && !json)
		emu_unmet_print(g, f);
	free(races.v);
	return EMU_OK;
}
