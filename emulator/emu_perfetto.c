/*
 * emu_perfetto.c - the last simulation as a Perfetto protobuf trace
 * (docs/emulator.md "tsexport"), through protobuf-c and the schema subset
 * in emulator/proto/perfetto_trace.proto (generated code in
 * emulator/generated/).
 *
 * The file is a Trace message written one packet at a time: for each, the
 * tag of Trace.packet (field 1, length-delimited), its length, its bytes.
 * Tracks: a process track per device, under it a track per stream lane (as
 * in the JSON export) and two counters (device and host memory in use).
 * Each command is a slice (begin and end events) carrying its seq, engine,
 * bytes, duration ("measured" from a replay profile, or "model") and host
 * call stack as debug annotations; a dependency between
 * commands on different streams is a flow from the slice waited for to the
 * waiting one.  UUIDs: device d = 1<<32 | d+1, track t = 2<<32 | t, memory
 * counters 3<<32 | 1 and 3<<32 | 2.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"

#ifdef TS_HAVE_PROTOBUF_C
#include "emulator/generated/perfetto_trace.pb-c.h"

#define EMU_UUID_DEVICE(d) ((UINT64_C(1) << 32) | (uint64_t)((d) + 1))
#define EMU_UUID_TRACK(t) ((UINT64_C(2) << 32) | (uint64_t)(t))
#define EMU_UUID_MEM_DEVICE ((UINT64_C(3) << 32) | 1)
#define EMU_UUID_MEM_HOST ((UINT64_C(3) << 32) | 2)
#define EMU_UUID_HOST ((UINT64_C(4) << 32) | 1)           /* the captured process */
#define EMU_UUID_THREAD(k) ((UINT64_C(5) << 32) | (uint64_t)(k)) /* its k-th thread */
#define EMU_PF_HOST_PID 1000000 /* the host process's track: apart from the GPUs' */
#define EMU_PF_SEQ 1u

/*
 * Interning (Perfetto's InternedData): an event's name, its category and
 * its debug annotations' names are sent once, as an (iid, string) pair in
 * the packet that first uses them, and by iid after.  The packets form one
 * sequence (trusted_packet_sequence_id 1) whose first packet clears the
 * incremental state (SEQ_INCREMENTAL_STATE_CLEARED) and whose packets that
 * use iids say they need it (SEQ_NEEDS_INCREMENTAL_STATE).  Strings are
 * told apart by content (a table keyed by FNV-1a).
 */
enum { EMU_PF_SEQ_CLEARED = 1, EMU_PF_SEQ_NEEDS_STATE = 2 };

#define EMU_PF_PCACHE 64u /* entries of an intern table's pointer cache (a power of two) */

/* Keys are borrowed: every string interned outlives the export (names in
 * the graph's arena, literals).  So the same pointer is the same string,
 * and a small cache by address answers most look-ups (an annotation's name,
 * a category, a kernel launched again: the arena holds one copy of a
 * launch's name) without hashing the bytes.  The cache is two-way (pairs
 * of entries, the newer first): where the linker happens to put two
 * literals used for every slice ("seq", "engine") in one pair, both stay. */
typedef struct emu_pf_intern {
	const char **key;
	uint64_t *iid;
	size_t cap, n;
	const char *pc_key[EMU_PF_PCACHE];
	uint64_t pc_iid[EMU_PF_PCACHE];
} emu_pf_intern;

typedef struct emu_pf {
	FILE *f;
	uint8_t *buf;
	size_t cap;
	int err;
	int started;                  /* a packet was written (the first clears state) */
	emu_pf_intern names, cats, annos;
} emu_pf;

static uint64_t emu_pf_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* s's iid in t (from 1); *fresh set when s is new.  0 when out of memory. */
static uint64_t emu_pf_iid(emu_pf_intern *t, const char *s, int *fresh)
{
	size_t i, pc = ((uintptr_t)s >> 3 ^ (uintptr_t)s >> 9) & (EMU_PF_PCACHE - 2);
	*fresh = 0;
	if (t->pc_key[pc] == s)
		return t->pc_iid[pc];
	if (t->pc_key[pc + 1] == s)
		return t->pc_iid[pc + 1];
	if (2 * (t->n + 1) > t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 64;
		const char **nk = calloc(ncap, sizeof(*nk));
		uint64_t *ni = calloc(ncap, sizeof(*ni));
		if (!nk || !ni) {
			free(nk);
			free(ni);
			return 0;
		}
		for (i = 0; i < t->cap; i++)
			if (t->key[i]) {
				size_t j = (size_t)emu_pf_hash(t->key[i]) & (ncap - 1);
				while (nk[j])
					j = (j + 1) & (ncap - 1);
				nk[j] = t->key[i];
				ni[j] = t->iid[i];
			}
		free(t->key);
		free(t->iid);
		t->key = nk;
		t->iid = ni;
		t->cap = ncap;
	}
	for (i = (size_t)emu_pf_hash(s) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		if (strcmp(t->key[i], s) == 0)
			goto out_cache;
	t->key[i] = s;
	t->iid[i] = ++t->n;
	*fresh = 1;
out_cache:
	t->pc_key[pc + 1] = t->pc_key[pc];
	t->pc_iid[pc + 1] = t->pc_iid[pc];
	t->pc_key[pc] = s;
	t->pc_iid[pc] = t->iid[i];
	return t->iid[i];
}

static void emu_pf_intern_free(emu_pf_intern *t)
{
	free(t->key);
	free(t->iid);
}

static void emu_pf_put(emu_pf *w, Perfetto__Protos__TracePacket *p)
{
	size_t len, n = 0;
	uint8_t hdr[11];
	uint64_t v;

	p->has_trusted_packet_sequence_id = 1;
	p->trusted_packet_sequence_id = EMU_PF_SEQ;
	if (!w->started) {
		p->has_sequence_flags = 1;
		p->sequence_flags |= EMU_PF_SEQ_CLEARED;
		w->started = 1;
	}
	len = perfetto__protos__trace_packet__get_packed_size(p);
	if (len > w->cap) {
		uint8_t *nb = realloc(w->buf, len * 2);

		if (!nb) {
			w->err = 1;
			return;
		}
		w->buf = nb;
		w->cap = len * 2;
	}
	perfetto__protos__trace_packet__pack(p, w->buf);
	hdr[n++] = (1u << 3) | 2u; /* Trace.packet, length-delimited */
	for (v = len; v >= 0x80; v >>= 7)
		hdr[n++] = (uint8_t)(v | 0x80);
	hdr[n++] = (uint8_t)v;
	if (fwrite(hdr, 1, n, w->f) != n || fwrite(w->buf, 1, len, w->f) != len)
		w->err = 1;
}

static void emu_pf_track(emu_pf *w, uint64_t uuid, uint64_t parent, const char *name, int pid,
                         int counter)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;

	td.has_uuid = 1;
	td.uuid = uuid;
	if (pid) {
		pd.has_pid = 1;
		pd.pid = pid;
		pd.process_name = (char *)name;
		td.process = &pd;
	} else {
		td.name = (char *)name;
		td.has_parent_uuid = 1;
		td.parent_uuid = parent;
	}
	if (counter) {
		cd.has_unit = 1;
		cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
		td.counter = &cd;
	}
	p.track_descriptor = &td;
	emu_pf_put(w, &p);
}

/* The interned entries a packet brings (at most one name, one category
 * and EMU_PF_ANNOS annotation names), and the iids it uses. */
#define EMU_PF_ANNOS 5
typedef struct emu_pf_new {
	Perfetto__Protos__InternedData id;
	Perfetto__Protos__EventName en;
	Perfetto__Protos__EventName *enp;
	Perfetto__Protos__EventCategory ec;
	Perfetto__Protos__EventCategory *ecp;
	Perfetto__Protos__DebugAnnotationName dn[EMU_PF_ANNOS];
	Perfetto__Protos__DebugAnnotationName *dnp[EMU_PF_ANNOS];
	uint64_t cat_iid;
} emu_pf_new;

static void emu_pf_new_init(emu_pf_new *nw)
{
	Perfetto__Protos__InternedData id = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__EventName en = PERFETTO__PROTOS__EVENT_NAME__INIT;
	Perfetto__Protos__EventCategory ec = PERFETTO__PROTOS__EVENT_CATEGORY__INIT;
	nw->id = id;
	nw->en = en;
	nw->ec = ec;
	nw->enp = &nw->en;
	nw->ecp = &nw->ec;
	for (int i = 0; i < EMU_PF_ANNOS; i++) {
		Perfetto__Protos__DebugAnnotationName dn = PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT;
		nw->dn[i] = dn;
		nw->dnp[i] = &nw->dn[i];
	}
}

/* The event's name (and category, when cat) by iid into te, what is new
 * into nw; 0, or -1 out of memory. */
static int emu_pf_event_names(emu_pf *w, emu_pf_new *nw, Perfetto__Protos__TrackEvent *te,
                              const char *name, const char *cat)
{
	int fresh;
	uint64_t iid = emu_pf_iid(&w->names, name, &fresh);
	if (!iid)
		return -1;
	te->has_name_iid = 1;
	te->name_iid = iid;
	if (fresh) {
		nw->en.has_iid = 1;
		nw->en.iid = iid;
		nw->en.name = (char *)name;
		nw->id.n_event_names = 1;
		nw->id.event_names = &nw->enp;
	}
	if (!cat)
		return 0;
	iid = emu_pf_iid(&w->cats, cat, &fresh);
	if (!iid)
		return -1;
	nw->cat_iid = iid;
	te->n_category_iids = 1;
	te->category_iids = &nw->cat_iid;
	if (fresh) {
		nw->ec.has_iid = 1;
		nw->ec.iid = iid;
		nw->ec.name = (char *)cat;
		nw->id.n_event_categories = 1;
		nw->id.event_categories = &nw->ecp;
	}
	return 0;
}

/* Debug annotation a's name by iid; what is new into nw.  0 or -1. */
static int emu_pf_anno_name(emu_pf *w, emu_pf_new *nw, Perfetto__Protos__DebugAnnotation *a,
                            const char *name)
{
	int fresh;
	uint64_t iid = emu_pf_iid(&w->annos, name, &fresh);
	if (!iid)
		return -1;
	a->name = NULL;
	a->has_name_iid = 1;
	a->name_iid = iid;
	if (fresh && nw->id.n_debug_annotation_names < EMU_PF_ANNOS) {
		Perfetto__Protos__DebugAnnotationName *d = &nw->dn[nw->id.n_debug_annotation_names++];
		d->has_iid = 1;
		d->iid = iid;
		d->name = (char *)name;
		nw->id.debug_annotation_names = nw->dnp;
	}
	return 0;
}

/* Attach nw to p when it holds entries; p then needs the sequence's state. */
static void emu_pf_new_attach(Perfetto__Protos__TracePacket *p, emu_pf_new *nw)
{
	if (nw->id.n_event_names || nw->id.n_event_categories || nw->id.n_debug_annotation_names)
		p->interned_data = &nw->id;
	p->has_sequence_flags = 1;
	p->sequence_flags |= EMU_PF_SEQ_NEEDS_STATE;
}

/* A host thread's track, under the host process's. */
static void emu_pf_thread_track(emu_pf *w, uint64_t uuid, uint64_t tid)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	char name[48];

	snprintf(name, sizeof(name), "host thread %llu", (unsigned long long)tid);
	td.has_uuid = 1;
	td.uuid = uuid;
	td.has_parent_uuid = 1;
	td.parent_uuid = EMU_UUID_HOST;
	th.has_pid = 1;
	th.pid = EMU_PF_HOST_PID;
	th.has_tid = 1;
	th.tid = (int32_t)(tid & 0x7fffffff);
	th.thread_name = name;
	td.thread = &th;
	p.track_descriptor = &td;
	emu_pf_put(w, &p);
}

/* The host threads that issued work, in order of first appearance. */
static uint64_t *emu_pf_threads(const emu_graph *g, size_t *n_out)
{
	uint64_t *t = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < g->nodes.n; i++) {
		uint64_t tid = g->nodes.v[i].tid;
		size_t k;
		for (k = 0; k < n && t[k] != tid; k++)
			;
		if (k < n)
			continue;
		if (n == cap) {
			uint64_t *nt = realloc(t, (cap ? 2 * cap : 8) * sizeof(*t));
			if (!nt) {
				free(t);
				return NULL;
			}
			t = nt;
			cap = cap ? 2 * cap : 8;
		}
		t[n++] = tid;
	}
	*n_out = n;
	return t ? t : calloc(1, sizeof(*t));
}

static size_t emu_pf_thread_index(const uint64_t *t, size_t n, uint64_t tid)
{
	size_t k;
	for (k = 0; k < n && t[k] != tid; k++)
		;
	return k;
}

/* One timeline event: a slice begins or ends, or a counter changes. */
typedef struct emu_pf_ev {
	uint64_t ts;
	uint32_t order;  /* at one time: ends, then begins, then zero-length ends, then counters */
	uint32_t what;   /* node, or memory event index */
} emu_pf_ev;

static int emu_pf_ev_cmp(const void *x, const void *y)
{
	const emu_pf_ev *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return a->what < b->what ? -1 : a->what > b->what;
}

enum { EMU_PF_END, EMU_PF_BEGIN, EMU_PF_END0, EMU_PF_COUNTER, EMU_PF_HOST };

/* The host call stack of node n as one line (symbols, innermost first). */
static char *emu_pf_stack(const emu_graph *g, const emu_node *n)
{
	const sbt_frame *frames;
	uint32_t nframes;
	size_t len = 0, cap = 1;
	char *s;

	if (!n->stack_id || sbt_reader_stack(g->r, n->stack_id, &frames, &nframes) != SBT_OK)
		return NULL;
	for (uint32_t i = 0; i < nframes; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(g->r, frames[i].symbol_id) : NULL;

		cap += (sym ? strlen(sym) : 18) + 2;
	}
	s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = 0;
	for (uint32_t i = 0; i < nframes; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(g->r, frames[i].symbol_id) : NULL;

		if (sym)
			len += (size_t)snprintf(s + len, cap - len, "%s%s", i ? "; " : "", sym);
		else
			len += (size_t)snprintf(s + len, cap - len, "%s0x%llx", i ? "; " : "",
			                        (unsigned long long)frames[i].ip);
	}
	return s;
}

emu_status emu_export_perfetto(const emu_graph *g, FILE *f)
{
	emu_pf w = { .f = f };
	emu_lanes l = { 0 };
	emu_pf_ev *ev = NULL;
	uint32_t *fo_first = NULL, *fi_first = NULL;
	uint64_t *fo = NULL, *fi = NULL, nflows = 0;
	size_t nev = 0, nn;
	int64_t dev = 0, host = 0;
	emu_status st = EMU_ERR_NOMEM;
	char lbl[96], name[140];
	uint64_t *threads = NULL;
	size_t nthreads = 0;

	if (!g || !f)
		return EMU_ERR_ARG;
	if (!g->scheduled)
		return EMU_ERR_STATE;
	nn = g->nodes.n;
	if (emu_lanes_build(g, &l) != 0)
		goto out;
	/* flows: out of the waited-for node, into the waiting one (CSR by node) */
	fo_first = calloc(nn + 2, sizeof(uint32_t));
	fi_first = calloc(nn + 2, sizeof(uint32_t));
	if (!fo_first || !fi_first)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t id = 0;

		/* the steps' dependencies (into their first node), then the nodes' own */
		for (size_t s = 0; s < g->steps.n + g->xdeps.n; s++) {
			const emu_step *stp = s < g->steps.n ? &g->steps.v[s] : NULL;
			const emu_xdep *self = stp ? NULL : &g->xdeps.v[s - g->steps.n];
			uint32_t first = stp ? stp->dep_first : self->first;
			uint32_t count = stp ? stp->dep_count : self->count;

			for (uint32_t d = 0; d < count; d++) {
				uint32_t from = emu_dep_from(g, &g->deps.v[first + d]);
				uint32_t to = stp ? stp->node_first : self->node;

				if (g->nodes.v[from].stream == g->nodes.v[to].stream)
					continue;
				id++;
				if (pass == 0) {
					fo_first[from + 2]++;
					fi_first[to + 2]++;
				} else {
					fo[fo_first[from + 1]++] = id;
					fi[fi_first[to + 1]++] = id;
				}
			}
		}
		if (pass == 0) {
			nflows = id;
			for (size_t i = 0; i < nn; i++) {
				fo_first[i + 2] += fo_first[i + 1];
				fi_first[i + 2] += fi_first[i + 1];
			}
			fo = malloc((nflows + 1) * sizeof(uint64_t));
			fi = malloc((nflows + 1) * sizeof(uint64_t));
			if (!fo || !fi)
				goto out;
		}
	}
	/* after the fill, fo_first[i] .. fo_first[i + 1] are node i's flows */

	emu_pf_track(&w, EMU_UUID_DEVICE(0), 0, "GPU 0 (emulated)", 1, 0);
	for (size_t s = 0; s < g->streams.n; s++) {
		int32_t d = g->streams.v[s].device, first = d != 0;

		for (size_t o = 0; o < s; o++)
			if (g->streams.v[o].device == d)
				first = 0;
		if (first) {
			snprintf(name, sizeof(name), "GPU %d (emulated)", d);
			emu_pf_track(&w, EMU_UUID_DEVICE(d), 0, name, d + 1, 0);
		}
	}
	emu_pf_track(&w, EMU_UUID_MEM_DEVICE, EMU_UUID_DEVICE(0), "device memory in use", 0, 1);
	emu_pf_track(&w, EMU_UUID_MEM_HOST, EMU_UUID_DEVICE(0), "host memory in use", 0, 1);
	for (size_t s = 0; s < g->streams.n; s++)
		for (uint32_t k = 0; k < l.nlanes[s]; k++) {
			emu_stream_label(g, (uint32_t)s, lbl, sizeof(lbl));
			if (k == 0)
				snprintf(name, sizeof(name), "%s", lbl);
			else
				snprintf(name, sizeof(name), "%s (overlap %u)", lbl, k);
			emu_pf_track(&w, EMU_UUID_TRACK(l.track0[s] + k), EMU_UUID_DEVICE(g->streams.v[s].device),
			             name, 0, 0);
		}

	/* the host: the captured process and each thread that issued work,
	 * its calls as instants at their capture times */
	threads = emu_pf_threads(g, &nthreads);
	if (!threads)
		goto out;
	{
		Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
		Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
		td.has_uuid = 1;
		td.uuid = EMU_UUID_HOST;
		pd.has_pid = 1;
		pd.pid = EMU_PF_HOST_PID;
		pd.process_name = "host (the captured process)";
		td.process = &pd;
		p.track_descriptor = &td;
		emu_pf_put(&w, &p);
	}
	for (size_t k = 0; k < nthreads; k++)
		emu_pf_thread_track(&w, EMU_UUID_THREAD(k), threads[k]);

	ev = malloc((3 * nn + g->mem.n + 1) * sizeof(*ev));
	if (!ev)
		goto out;
	for (size_t i = 0; i < nn; i++) {
		const emu_node *n = &g->nodes.v[i];
		emu_pf_ev b = { n->start_ns, EMU_PF_BEGIN, (uint32_t)i };
		emu_pf_ev e = { n->end_ns, n->end_ns == n->start_ns ? EMU_PF_END0 : EMU_PF_END, (uint32_t)i };

		ev[nev++] = b;
		ev[nev++] = e;
		if (n->issue_ns >= g->first_ns) {
			emu_pf_ev h = { n->issue_ns - g->first_ns, EMU_PF_HOST, (uint32_t)i };
			ev[nev++] = h;
		}
	}
	for (size_t i = 0; i < g->mem.n; i++) {
		emu_pf_ev c = { emu_time_of_seq(g, g->mem.v[i].seq), EMU_PF_COUNTER, (uint32_t)i };

		ev[nev++] = c;
	}
	qsort(ev, nev, sizeof(*ev), emu_pf_ev_cmp);
	for (size_t i = 0; i < nev && !w.err; i++) {
		Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
		Perfetto__Protos__TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;

		p.has_timestamp = 1;
		p.timestamp = ev[i].ts;
		p.track_event = &te;
		te.has_type = 1;
		te.has_track_uuid = 1;
		if (ev[i].order == EMU_PF_COUNTER) {
			const emu_memev *m = &g->mem.v[ev[i].what];

			dev += m->device_delta;
			host += m->host_delta;
			te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
			te.track_uuid = m->host_delta ? EMU_UUID_MEM_HOST : EMU_UUID_MEM_DEVICE;
			te.has_counter_value = 1;
			te.counter_value = m->host_delta ? host : dev;
			emu_pf_put(&w, &p);
			continue;
		}
		if (ev[i].order == EMU_PF_HOST) {
			const emu_node *n = &g->nodes.v[ev[i].what];
			Perfetto__Protos__DebugAnnotation a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
			Perfetto__Protos__DebugAnnotation *ap = &a;
			emu_pf_new nw;
			emu_pf_new_init(&nw);
			te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
			te.track_uuid = EMU_UUID_THREAD(emu_pf_thread_index(threads, nthreads, n->tid));
			if (emu_pf_event_names(&w, &nw, &te, emu_node_name(g, n), NULL) != 0 ||
			    emu_pf_anno_name(&w, &nw, &a, "seq") != 0) {
				w.err = 1;
				break;
			}
			a.has_uint_value = 1;
			a.uint_value = n->seq;
			te.n_debug_annotations = 1;
			te.debug_annotations = &ap;
			emu_pf_new_attach(&p, &nw);
			emu_pf_put(&w, &p);
			continue;
		}
		{
			uint32_t id = ev[i].what;
			const emu_node *n = &g->nodes.v[id];
			Perfetto__Protos__DebugAnnotation a[5] = {
				PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT, PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT,
				PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT, PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT,
				PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT
			};
			Perfetto__Protos__DebugAnnotation *ap[5] = { &a[0], &a[1], &a[2], &a[3], &a[4] };
			char *cat = (char *)emu_kind_name(n->kind), *stack = NULL;
			emu_pf_new nw;

			te.track_uuid = EMU_UUID_TRACK(emu_track(&l, n, id));
			if (ev[i].order != EMU_PF_BEGIN) {
				te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
				emu_pf_put(&w, &p);
				continue;
			}
			te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
			emu_pf_new_init(&nw);
			if (emu_pf_event_names(&w, &nw, &te, emu_node_name(g, n), cat) != 0) {
				w.err = 1;
				break;
			}
			a[0].name = "seq";
			a[0].has_uint_value = 1;
			a[0].uint_value = n->seq;
			a[1].name = "engine";
			a[1].has_uint_value = n->engine >= 0;
			a[1].uint_value = (uint64_t)(n->engine >= 0 ? n->engine : 0);
			a[1].string_value = n->engine >= 0 ? NULL : "none";
			a[2].name = "bytes";
			a[2].has_uint_value = 1;
			a[2].uint_value = n->bytes;
			a[3].name = "duration";
			a[3].string_value = (char *)emu_node_duration_source(g, n);
			te.n_debug_annotations = 4;
			stack = emu_pf_stack(g, n);
			if (stack) {
				a[4].name = "stack";
				a[4].string_value = stack;
				te.n_debug_annotations = 5;
			}
			for (size_t k = 0; k < te.n_debug_annotations; k++)
				if (emu_pf_anno_name(&w, &nw, &a[k], a[k].name) != 0)
					w.err = 1;
			te.debug_annotations = ap;
			emu_pf_new_attach(&p, &nw);
			te.n_flow_ids = fo_first[id + 1] - fo_first[id];
			te.flow_ids = fo + fo_first[id];
			te.n_terminating_flow_ids = fi_first[id + 1] - fi_first[id];
			te.terminating_flow_ids = fi + fi_first[id];
			emu_pf_put(&w, &p);
			free(stack);
		}
	}
	st = w.err ? (w.cap ? EMU_ERR_IO : EMU_ERR_NOMEM) : EMU_OK;
	if (st == EMU_OK && ferror(f))
		st = EMU_ERR_IO;
out:
	emu_pf_intern_free(&w.names);
	emu_pf_intern_free(&w.cats);
	emu_pf_intern_free(&w.annos);
	emu_lanes_free(&l);
	free(threads);
	free(ev);
	free(fo_first);
	free(fi_first);
	free(fo);
	free(fi);
	free(w.buf);
	return st;
}

#else

emu_status emu_export_perfetto(const emu_graph *g, FILE *f)
{
	(void)g;
	(void)f;
	return EMU_ERR_STATE; /* built without protobuf-c (scripts/deps.sh installs it) */
}

#endif
