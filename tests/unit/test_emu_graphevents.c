/*
 * test_emu_graphevents.c - the emulator's races against a brute-force model
 * on random programs mixing stream work and a CUDA graph built node by node
 * with event record, event wait, empty and kernel nodes.
 *
 * Each program (written through tests/support/emu_gen.c) has 2-3
 * non-blocking streams, 1-3 buffers, 1-3 events and a graph of 1-7 nodes
 * with random edges, instantiated once; then 3-14 operations: a kernel on a
 * stream, cuEventRecord, cuStreamWaitEvent, a launch of the graph,
 * cuStreamSynchronize or cuEventSynchronize.  The model gives every
 * operation and every graph node of every launch a node of its own, with
 * CUDA's rules as edges: a stream's operations in order (a launch's nodes
 * after what its stream held, and its end after all of them), an event the
 * point it was recorded at, a wait node after its event as the launch found
 * it, a record node after the nodes before it in the graph (record nodes in
 * the order of the emulator's snapshot: first come first served in
 * creation order, of two recording one event the later wins), a host
 * synchronization before everything issued after it.  Two kernels passing
 * one buffer race unless one reaches the other; the emulator must report
 * exactly those pairs (every kernel argument is a possible write).  With
 * engines enough for every kernel, 1000 ns a kernel and nothing else taking
 * time, its makespan must be the model's longest path.
 */
#include <string.h>

#include "emulator/emu.h"
#include "tests/support/emu_gen.h"
#include "tests/support/tst.h"

#define GE_PROGRAMS 400
#define GE_MAXN 600            /* model nodes */
#define GE_WORDS (GE_MAXN / 64 + 1)
#define GE_PAIRS 4096
#define GE_GN 7                /* graph nodes at most */
#define GE_NONE (-1)

enum { GE_KERNEL, GE_WAIT, GE_RECORD, GE_EMPTY };

typedef struct ge_node {
	int pred[GE_GN + 4], npred;
	uint64_t seq;              /* kernels: the record's seq */
	char name[16];             /* kernels: the name; else empty */
	int buf;
} ge_node;

typedef struct ge_model {
	ge_node n[GE_MAXN];
	int nn;
	uint64_t anc[GE_MAXN][GE_WORDS];
	uint64_t longest;          /* ns, 1000 a kernel */
} ge_model;

typedef struct ge_pair {
	uint64_t s1, s2;
	char a[16], b[16];
} ge_pair;

typedef struct ge_pairs {
	ge_pair v[GE_PAIRS];
	int n;
	int over;
} ge_pairs;

static uint32_t ge_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

static int ge_add(ge_model *m, const int *pred, int npred, uint64_t seq, const char *name, int buf)
{
	ge_node *x = &m->n[m->nn];

	TST_REQUIRE(m->nn < GE_MAXN);
	memset(x, 0, sizeof(*x));
	for (int i = 0; i < npred; i++)
		if (pred[i] != GE_NONE)
			x->pred[x->npred++] = pred[i];
	x->seq = seq;
	x->buf = buf;
	if (name)
		snprintf(x->name, sizeof(x->name), "%s", name);
	return m->nn++;
}

/* Adds a pair of kernel names (ordered by seq, then name) once. */
static void ge_pair_add(ge_pairs *p, uint64_t s1, const char *a, uint64_t s2, const char *b)
{
	ge_pair x;

	if (s1 > s2 || (s1 == s2 && strcmp(a, b) > 0)) {
		ge_pair_add(p, s2, b, s1, a);
		return;
	}
	memset(&x, 0, sizeof(x));
	x.s1 = s1;
	x.s2 = s2;
	snprintf(x.a, sizeof(x.a), "%s", a);
	snprintf(x.b, sizeof(x.b), "%s", b);
	for (int i = 0; i < p->n; i++)
		if (!memcmp(&p->v[i], &x, sizeof(x)))
			return;
	if (p->n == GE_PAIRS) {
		p->over = 1;
		return;
	}
	p->v[p->n++] = x;
}

static int ge_collect(void *ctx, const emu_race_desc *r)
{
	ge_pair_add(ctx, r->first.seq, r->first.name, r->second.seq, r->second.name);
	return 0;
}

static int ge_pairs_equal(const ge_pairs *a, const ge_pairs *b)
{
	if (a->n != b->n || a->over || b->over)
		return 0;
	for (int i = 0; i < a->n; i++) {
		int found = 0;

		for (int j = 0; j < b->n && !found; j++)
			found = !memcmp(&a->v[i], &b->v[j], sizeof(ge_pair));
		if (!found)
			return 0;
	}
	return 1;
}

static void ge_pack(uint8_t *o, uint64_t v)
{
	for (int k = 0; k < 8; k++)
		o[k] = (uint8_t)(v >> (8 * k));
}

/* One random program: its trace at path, the races the model expects in *want. */
static void ge_program(uint64_t seed, const char *path, ge_pairs *want, ge_model *m)
{
	emu_gen *g = emu_gen_open(path);
	sbt_cm_call c;
	uint64_t rs = seed * 0x9e3779b97f4a7c15ull + 1, seq = 0;
	int nst = 2 + ge_rand(&rs) % 2, nbuf = 1 + ge_rand(&rs) % 3, nev = 1 + ge_rand(&rs) % 3;
	int ngn = 1 + ge_rand(&rs) % GE_GN, nops = 3 + ge_rand(&rs) % 12;
	int what[GE_GN], ev[GE_GN], buf[GE_GN], deps[GE_GN][GE_GN], ndeps[GE_GN], order[GE_GN];
	int tail[3] = { GE_NONE, GE_NONE, GE_NONE }, events[3] = { GE_NONE, GE_NONE, GE_NONE }, host = GE_NONE;

	TST_REQUIRE(g != NULL);
	m->nn = 0;
	want->n = want->over = 0;
	for (int s = 0; s < nst; s++, seq++)
		emu_gen_stream(g, 0x100u * (unsigned)(s + 1), 1);
	for (int b = 0; b < nbuf; b++, seq++)
		emu_gen_alloc(g, 0x7000000000ull + (uint64_t)b * 0x100000ull, 4096);
	sbt_cm_call_init(&c);
	c.handle = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphCreate, &c);
	seq++;
	for (int i = 0; i < ngn; i++, seq++) {
		uint64_t dh[GE_GN];
		uint8_t db[8 * GE_GN];
		char nm[16];

		ndeps[i] = 0;
		for (int j = 0; j < i; j++)
			if (ge_rand(&rs) % 3 == 0) {
				deps[i][ndeps[i]] = j;
				dh[ndeps[i]++] = 0x10u + (unsigned)j;
			}
		what[i] = (int)(ge_rand(&rs) % 4);
		ev[i] = (int)(ge_rand(&rs) % (unsigned)nev);
		buf[i] = (int)(ge_rand(&rs) % (unsigned)nbuf);
		if (what[i] == GE_KERNEL) {
			uint64_t p = 0x7000000000ull + (uint64_t)buf[i] * 0x100000ull;

			snprintf(nm, sizeof(nm), "g%d", i);
			emu_gen_kernel_node(g, 0x900, 0x10u + (unsigned)i, dh, (size_t)ndeps[i], nm, &p, 1);
			continue;
		}
		sbt_cm_call_init(&c);
		c.node = 0x10u + (unsigned)i;
		c.parent = 0x900;
		c.event = 0xe0u + (unsigned)ev[i];
		for (int d = 0; d < ndeps[i]; d++)
			ge_pack(db + 8 * d, dh[d]);
		if (ndeps[i]) {
			c.deps = db;
			c.deps_len = (size_t)ndeps[i] * 8;
		}
		emu_gen_call(g, what[i] == GE_WAIT ? SBT_CM_K_cuGraphAddEventWaitNode
		                : what[i] == GE_RECORD ? SBT_CM_K_cuGraphAddEventRecordNode : SBT_CM_K_cuGraphAddEmptyNode,
		             &c);
	}
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	seq++;
	/* the snapshot's order: Kahn's, first come first served in creation order */
	{
		int indeg[GE_GN], h = 0, n = 0;

		for (int i = 0; i < ngn; i++)
			if ((indeg[i] = ndeps[i]) == 0)
				order[n++] = i;
		for (; h < n; h++)
			for (int i = 0; i < ngn; i++)
				for (int d = 0; d < ndeps[i]; d++)
					if (deps[i][d] == order[h] && --indeg[i] == 0)
						order[n++] = i;
		TST_REQUIRE(n == ngn);
	}
	for (int o = 0; o < nops; o++) {
		int op = (int)(ge_rand(&rs) % 7), s = (int)(ge_rand(&rs) % (unsigned)nst);
		int e = (int)(ge_rand(&rs) % (unsigned)nev), b = (int)(ge_rand(&rs) % (unsigned)nbuf);
		uint64_t st = 0x100u * (unsigned)(s + 1), p = 0x7000000000ull + (uint64_t)b * 0x100000ull;
		int pr[GE_GN + 2];
		char nm[16];

		seq++;
		if (op <= 1) {
			snprintf(nm, sizeof(nm), "k%llu", (unsigned long long)seq);
			emu_gen_kernel(g, st, nm, &p, 1, 0);
			pr[0] = tail[s];
			pr[1] = host;
			tail[s] = ge_add(m, pr, 2, seq, nm, b);
		} else if (op == 2) {
			emu_gen_record(g, 0xe0u + (unsigned)e, st);
			pr[0] = tail[s];
			pr[1] = host;
			tail[s] = events[e] = ge_add(m, pr, 2, 0, NULL, 0);
		} else if (op == 3) {
			emu_gen_wait(g, st, 0xe0u + (unsigned)e);
			pr[0] = tail[s];
			pr[1] = host;
			pr[2] = events[e];
			tail[s] = ge_add(m, pr, 3, 0, NULL, 0);
		} else if (op <= 5) {
			int id[GE_GN], entry, all[GE_GN + 1], rec_ev[3];

			sbt_cm_call_init(&c);
			c.handle = 0xe00;
			c.stream = st;
			emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
			pr[0] = tail[s];
			pr[1] = host;
			entry = ge_add(m, pr, 2, 0, NULL, 0);
			for (int k = 0; k < 3; k++)
				rec_ev[k] = events[k];
			for (int i = 0; i < ngn; i++) {
				int np = 0;

				for (int d = 0; d < ndeps[i]; d++)
					pr[np++] = id[deps[i][d]];
				if (!np)
					pr[np++] = entry;
				if (what[i] == GE_WAIT)
					pr[np++] = events[ev[i]];
				snprintf(nm, sizeof(nm), "g%d", i);
				id[i] = ge_add(m, pr, np, seq, what[i] == GE_KERNEL ? nm : NULL, buf[i]);
				all[i] = id[i];
			}
			for (int h = 0; h < ngn; h++)
				if (what[order[h]] == GE_RECORD)
					rec_ev[ev[order[h]]] = id[order[h]];
			for (int k = 0; k < 3; k++)
				events[k] = rec_ev[k];
			all[ngn] = entry;
			tail[s] = ge_add(m, all, ngn + 1, 0, NULL, 0);
		} else if (ge_rand(&rs) % 2) {
			sbt_cm_call_init(&c);
			c.stream = st;
			emu_gen_call(g, SBT_CM_K_cuStreamSynchronize, &c);
			pr[0] = host;
			pr[1] = tail[s];
			host = ge_add(m, pr, 2, 0, NULL, 0);
		} else {
			sbt_cm_call_init(&c);
			c.event = 0xe0u + (unsigned)e;
			emu_gen_call(g, SBT_CM_K_cuEventSynchronize, &c);
			pr[0] = host;
			pr[1] = events[e];
			host = ge_add(m, pr, 2, 0, NULL, 0);
		}
	}
	emu_gen_close(g);
	/* ancestors (every predecessor is an earlier node), then the races */
	for (int i = 0; i < m->nn; i++) {
		memset(m->anc[i], 0, sizeof(m->anc[i]));
		for (int k = 0; k < m->n[i].npred; k++) {
			int q = m->n[i].pred[k];

			for (int w = 0; w < GE_WORDS; w++)
				m->anc[i][w] |= m->anc[q][w];
			m->anc[i][q / 64] |= 1ull << (q % 64);
		}
	}
	{
		uint64_t dist[GE_MAXN];

		m->longest = 0;
		for (int i = 0; i < m->nn; i++) {
			dist[i] = 0;
			for (int k = 0; k < m->n[i].npred; k++)
				if (dist[m->n[i].pred[k]] > dist[i])
					dist[i] = dist[m->n[i].pred[k]];
			dist[i] += m->n[i].name[0] ? 1000 : 0;
			if (dist[i] > m->longest)
				m->longest = dist[i];
		}
	}
	for (int i = 0; i < m->nn; i++)
		for (int j = i + 1; j < m->nn; j++)
			if (m->n[i].name[0] && m->n[j].name[0] && m->n[i].buf == m->n[j].buf &&
			    !(m->anc[j][i / 64] >> (i % 64) & 1))
				ge_pair_add(want, m->n[i].seq, m->n[i].name, m->n[j].seq, m->n[j].name);
}

int main(void)
{
	static ge_model m;
	static ge_pairs want, got;
	int bad = 0, racy = 0, late = 0;
	emu_options o;
	emu_summary sum;

	emu_options_default(&o);
	o.compute_engines = 1024;
	o.kernel_ns = 1000;
	o.graph_ns = 0;

	for (uint64_t seed = 1; seed <= GE_PROGRAMS; seed++) {
		const char *path = tst_path("prog.sbt");
		emu_graph *g = NULL;
		char err[512];

		ge_program(seed, path, &want, &m);
		if (emu_graph_build(path, &g, err, sizeof(err)) != EMU_OK) {
			fprintf(stderr, "seed %llu: %s\n", (unsigned long long)seed, err);
			return 1;
		}
		got.n = got.over = 0;
		TST_REQUIRE(emu_races_each(g, ge_collect, &got) == EMU_OK);
		TST_REQUIRE(emu_schedule(g, &o) == EMU_OK);
		TST_REQUIRE(emu_summary_get(g, &sum) == EMU_OK);
		emu_graph_free(g);
		if (sum.makespan_ns != m.longest) {
			fprintf(stderr, "seed %llu: makespan %llu ns, the model's longest path %llu\n",
			        (unsigned long long)seed, (unsigned long long)sum.makespan_ns,
			        (unsigned long long)m.longest);
			late++;
		}
		racy += want.n > 0;
		if (!ge_pairs_equal(&want, &got)) {
			fprintf(stderr, "seed %llu: the model gives %d racing pairs, the emulator %d\n",
			        (unsigned long long)seed, want.n, got.n);
			bad++;
		}
	}
	TST_CHECK_EQ_U64(bad, 0);
	TST_CHECK_EQ_U64(late, 0);
	/* the programs are not all race-free (nor all racy) */
	TST_CHECK(racy > GE_PROGRAMS / 10 && racy < GE_PROGRAMS * 9 / 10);
	return tst_done();
}
