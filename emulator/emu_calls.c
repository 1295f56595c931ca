/*
 * emu_calls.c - what each modeled CUDA call does to the graph being built
 * (docs/emulator.md "What is modeled (CUDA)"): one handler per group of calls,
 * found by the record's kind in a table.  A HIP record goes to the handler
 * of the kind it records as (serializer/sbt_compute.h); where HIP's meaning
 * differs, the handler asks b->hip (docs/emulator.md "HIP").
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_build.h"

static int emu_is_async(sbt_cm_kind k)
{
	const char *n = sbt_cm_kind_name(k);

	return n && strstr(n, "Async") != NULL;
}

/*
 * One handler per group of calls: each reads the decoded call c of the
 * record being read (b->rec) and returns 0, or -1 when out of memory.
 * A call that failed (result not 0) changes nothing, except where said.
 */
typedef int (*emu_handler)(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c);

/* The stream a call names, for the handlers (EMU_NONE: out of memory). */
static uint32_t emu_call_stream(emu_builder *b, const sbt_cm_call *c)
{
	return emu_stream_of(b, c->stream, (int)c->ptds, b->rec->thread);
}

static int emu_r_event_record(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c);

/* hipExtModuleLaunchKernel's start (event) or stop (value) event: recorded
 * on the launch's stream just before or just after it. */
static int emu_hip_launch_event(emu_builder *b, const sbt_cm_call *c, uint64_t event)
{
	sbt_cm_call e;

	if (b->hip != SBT_CM_HIP_hipExtModuleLaunchKernel || !event || c->result != 0)
		return 0;
	memset(&e, 0, sizeof(e));
	e.stream = c->stream;
	e.ptds = c->ptds;
	e.event = event;
	return emu_r_event_record(b, SBT_CM_K_cuEventRecord, &e);
}

/* A stream capture begun where the interposer did not see it (docs/hip.md:
 * through the runtime's own entry point): the stream's first work recorded
 * with capture_status 1 while no capture is open on it begins one there,
 * as replay does. */
static int emu_capture_unseen(emu_builder *b, uint32_t s, const sbt_cm_call *c)
{
	emu_capture cap = { 0 };

	if (c->result != 0 || c->capture_status != 1 || b->bs.v[s].capture != EMU_NONE)
		return 0;
	if (EMU_PUSH(b->caps, cap) != 0)
		return -1;
	b->bs.v[s].capture = (uint32_t)b->caps.n - 1;
	b->bs.v[s].cap_front.n = 0;
	return 0;
}

/* Every launch counts (keyframes number them); captured ones become graph nodes. */
static int emu_r_launch(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s = emu_call_stream(b, c), node = EMU_NONE;

	if (s == EMU_NONE || emu_hip_launch_event(b, c, c->event) != 0 || emu_capture_unseen(b, s, c) != 0)
		return -1;
	if (c->result == 0 && c->capture_status == 0) {
		node = emu_command(b, s, k, c, EMU_K_KERNEL, emu_kernel_name(b, c));
		if (node == EMU_NONE)
			return -1;
	} else if (c->result == 0 && b->bs.v[s].capture != EMU_NONE) {
		if (emu_capture_node(b, s, k, c, emu_kernel_name(b, c)) != 0)
			return -1;
	}
	if (emu_hip_launch_event(b, c, c->value) != 0)
		return -1;
	/* its ordinal's slot, taken when the record was first read (emu_record) */
	for (size_t i = b->launches.n; i-- > 0;)
		if (b->launch_seqs.v[i] == b->rec->seq) {
			b->launches.v[i] = node;
			break;
		}
	return 0;
}

static int emu_r_host_func(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s;

	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	if (s == EMU_NONE || emu_capture_unseen(b, s, c) != 0)
		return -1;
	if (b->bs.v[s].capture != EMU_NONE)
		return 0;
	return emu_command(b, s, k, c, EMU_K_HOSTFN, emu_name_put(b->g, "host function", 13)) == EMU_NONE
	               ? -1
	               : 0;
}

static int emu_r_graph_launch(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s;

	(void)k;
	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	return s == EMU_NONE ? -1 : emu_graph_launch(b, s, c);
}

/* Copies and memsets: the synchronous forms go to the default stream. */
static int emu_r_transfer(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_graph *g = b->g;
	int async = emu_is_async(k);
	const char *kn = sbt_cm_kind_name(k);
	sbt_cm_call sym;
	uint32_t s, node;
	unsigned nk;

	if (c->result != 0)
		return 0;
	if (b->hip >= 0) {
		/* HIP names the call itself: "hipMemcpyToSymbolAsync" is async */
		kn = sbt_cm_hip_name((sbt_cm_hip_call)b->hip);
		async = strstr(kn, "Async") != NULL;
		/* symbol copies name the host shadow of the global (its stand-in
		 * range, emu_r_range) and an offset into it */
		if (b->hip == SBT_CM_HIP_hipMemcpyToSymbol || b->hip == SBT_CM_HIP_hipMemcpyToSymbolAsync ||
		    b->hip == SBT_CM_HIP_hipMemcpyFromSymbol || b->hip == SBT_CM_HIP_hipMemcpyFromSymbolAsync) {
			sym = *c;
			if (b->hip == SBT_CM_HIP_hipMemcpyToSymbol || b->hip == SBT_CM_HIP_hipMemcpyToSymbolAsync)
				sym.dst += c->offset;
			else
				sym.src += c->offset;
			c = &sym;
		}
	}
	s = emu_stream_of(b, async ? c->stream : 0, (int)c->ptds, b->rec->thread);
	if (s == EMU_NONE || emu_capture_unseen(b, s, c) != 0)
		return -1;
	if (b->bs.v[s].capture != EMU_NONE)
		return emu_capture_node(b, s, k, c, emu_name_put(g, kn, strlen(kn)));
	if (c->capture_status != 0)
		return 0;
	node = emu_command(b, s, k, c, EMU_K_COPY, emu_name_put(g, kn, strlen(kn)));
	if (node == EMU_NONE)
		return -1;
	/* a synchronous copy to or from host memory returns when it is done;
	 * device-to-device copies and memsets do not wait */
	nk = g->nodes.v[node].kind;
	if (!async && (nk == EMU_K_H2D || nk == EMU_K_D2H || nk == EMU_K_COPY))
		return emu_host_sync(b, b->rec->thread, g->nodes.v[node].step);
	return 0;
}

/* ---- stream memory operations ----------------------------------------------------------- */

int emu_memop_kind(sbt_cm_kind k)
{
	return k == SBT_CM_K_cuStreamWriteValue32 || k == SBT_CM_K_cuStreamWriteValue64 ||
	       k == SBT_CM_K_cuStreamWaitValue32 || k == SBT_CM_K_cuStreamWaitValue64 ||
	       k == SBT_CM_K_cuStreamBatchMemOp || k == SBT_CM_K_cuGraphAddBatchMemOpNode ||
	       k == SBT_CM_K_cuGraphBatchMemOpNodeSetParams || k == SBT_CM_K_cuGraphExecBatchMemOpNodeSetParams;
}

/* One operation of a record's params (48 bytes each, as x86-64 cuda.h
 * lays out CUstreamBatchMemOpParams): op 1 wait 32, 2 write 32, 4 wait
 * 64, 5 write 64 (3 flush, 6 barrier); value is the u32 or u64 at 16,
 * flags the u32 at 24. */
typedef struct emu_memop {
	uint32_t op, flags;
	uint64_t addr, value;
	uint8_t wide;
} emu_memop;

static emu_memop emu_memop_raw(const uint8_t *p)
{
	emu_memop o;
	uint32_t v32;

	memcpy(&o.op, p, 4);
	memcpy(&o.addr, p + 8, 8);
	o.wide = o.op == 4 || o.op == 5;
	if (o.wide) {
		memcpy(&o.value, p + 16, 8);
	} else {
		memcpy(&v32, p + 16, 4);
		o.value = v32;
	}
	memcpy(&o.flags, p + 24, 4);
	return o;
}

static emu_memop emu_memop_at(const sbt_cm_call *c, size_t i)
{
	return emu_memop_raw(c->params + i * 48);
}

/* Whether the word (value written there) meets a wait's condition, as the
 * driver API documents CUstreamWaitValue_flags: GEQ compares as a cyclic
 * difference ((int32_t)(word - value) >= 0 for 32 bits), EQ, AND (word &
 * value not 0), NOR (~(word | value) not 0); the FLUSH bit changes
 * nothing here. */
static int emu_wait_met(uint32_t flags, int wide, uint64_t value, uint64_t word)
{
	if (!wide) {
		word = (uint32_t)word;
		value = (uint32_t)value;
	}
	switch (flags & ~(1u << 30)) {
	case 0: return wide ? (int64_t)(word - value) >= 0 : (int32_t)(uint32_t)(word - value) >= 0;
	case 1: return word == value;
	case 2: return (word & value) != 0;
	default: return wide ? ~(word | value) != 0 : (uint32_t)~(word | value) != 0;
	}
}

/* The word a wait at addr (wide: 8 bytes) reads from a write: the write's
 * value when at the same address, the half of a 64-bit write a 32-bit
 * wait reads; 0 when the write does not cover it. */
static int emu_wval_word(const emu_wval *w, uint64_t addr, int wide, uint64_t *word)
{
	if (w->addr == addr && (w->wide || !wide)) {
		*word = w->value;
		return 1;
	}
	if (w->wide && !wide && w->addr + 4 == addr) {
		*word = w->value >> 32;
		return 1;
	}
	return 0;
}

/* The last write-value recorded that covers the wait's word, or NULL. */
static const emu_wval *emu_wval_last(const emu_builder *b, uint64_t addr, int wide, uint64_t *word)
{
	for (size_t i = b->wvals.n; i-- > 0;)
		if (emu_wval_word(&b->wvals.v[i], addr, wide, word))
			return &b->wvals.v[i];
	return NULL;
}

/* The write wrote [addr, +4/8): what it overwrote goes, it stays. */
static int emu_wval_put(emu_builder *b, const emu_memop *o, emu_dep dep)
{
	emu_wval w = { o->addr, o->value, dep, o->wide };
	uint64_t lo = o->addr, hi = o->addr + (o->wide ? 8 : 4);

	for (size_t i = 0; i < b->wvals.n;) {
		const emu_wval *x = &b->wvals.v[i];

		if (x->addr < hi && x->addr + (x->wide ? 8u : 4u) > lo)
			b->wvals.v[i] = b->wvals.v[--b->wvals.n];
		else
			i++;
	}
	return EMU_PUSH(b->wvals, w);
}

/* The stream a record issues work on while some stream is held (EMU_NONE:
 * none, or not work: syncs, queries and everything else go on). */
static uint32_t emu_work_stream(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	switch (k) {
	case SBT_CM_K_cuLaunchKernel:
	case SBT_CM_K_cuLaunchKernelEx:
	case SBT_CM_K_cuLaunchCooperativeKernel:
	case SBT_CM_K_cuLaunchHostFunc:
	case SBT_CM_K_cuGraphLaunch:
	case SBT_CM_K_cuEventRecord:
	case SBT_CM_K_cuEventRecordWithFlags:
	case SBT_CM_K_cuStreamWaitEvent:
	case SBT_CM_K_cuStreamWriteValue32:
	case SBT_CM_K_cuStreamWriteValue64:
	case SBT_CM_K_cuStreamWaitValue32:
	case SBT_CM_K_cuStreamWaitValue64:
	case SBT_CM_K_cuStreamBatchMemOp:
		break;
	default:
		if (!emu_is_async(k))
			return EMU_NONE;
		break;
	}
	if (c->result != 0)
		return EMU_NONE;
	return emu_call_stream(b, c);
}

/* Keeps a copy of the record being read on held stream s. */
static int emu_keep(emu_builder *b, uint32_t s)
{
	sbt_record r = *b->rec;
	uint8_t *p = malloc(r.payload_len ? r.payload_len : 1);

	if (!p)
		return -1;
	memcpy(p, r.payload, r.payload_len);
	r.payload = p;
	if (EMU_PUSH(b->bs.v[s].kept, r) != 0) {
		free(p);
		return -1;
	}
	return 0;
}

/* Stream s is no longer held: its kept records are read again, in order
 * (one may hold it again: those after it are kept again).  force: the
 * first is read with its unmet waits passed over. */
static int emu_release(emu_builder *b, uint32_t s, int force)
{
	const sbt_record *cur = b->rec;
	int hip = b->hip;
	sbt_record *v = b->bs.v[s].kept.v;
	size_t n = b->bs.v[s].kept.n;
	int rc = 0;

	b->bs.v[s].held = 0;
	b->nheld--;
	memset(&b->bs.v[s].kept, 0, sizeof(b->bs.v[s].kept));
	for (size_t i = 0; i < n; i++) {
		if (rc == 0) {
			int again = b->again;

			if (i == 0 && force)
				b->force_seq = v[i].seq;
			b->again = 1;
			rc = emu_record(b, &v[i]) == EMU_OK ? 0 : -1;
			b->again = again;
			b->force_seq = 0;
		}
		free((void *)v[i].payload);
	}
	free(v);
	b->rec = cur;
	b->hip = hip;
	return rc;
}

/* A wait no write satisfies: counted (the summary reports it), its stream
 * read on with the wait ordering nothing. */
static int emu_unmet(emu_builder *b, uint32_t s)
{
	const emu_bstream *h = &b->bs.v[s];
	emu_unmet_wait u = { h->kept.n ? h->kept.v[0].seq : 0, h->hold_addr, h->hold_wide };

	if (!b->g->unmet_waits++)
		b->g->unmet_first_seq = u.seq;
	if (EMU_PUSH(b->g->unmet, u) != 0)
		return -1;
	return emu_release(b, s, 1);
}

emu_status emu_memop_finish(emu_builder *b)
{
	for (size_t s = 0; s < b->bs.n; s++)
		if (b->bs.v[s].held && emu_unmet(b, (uint32_t)s) != 0)
			return EMU_ERR_NOMEM;
	return EMU_OK;
}

static int emu_hold(emu_builder *b, uint32_t s, const emu_memop *o);

/* cuStreamWriteValue*, cuStreamWaitValue*, cuStreamBatchMemOp: one
 * command of their operations.  Each wait is ordered after the write-value
 * operation that gives its word the value it waits for: an earlier one of
 * the same record, or the last recorded to that word when its value meets
 * the condition; otherwise the stream is held (this record and the work
 * after it on the stream kept) until a write-value operation meeting it is
 * read, or, at the end of the trace, reported as met by no write. */
static int emu_r_memop(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	const char *kn = sbt_cm_kind_name(k);
	size_t n = c->params_len / 48;
	uint32_t s, node;

	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	if (s == EMU_NONE || emu_capture_unseen(b, s, c) != 0)
		return -1;
	if (b->bs.v[s].capture != EMU_NONE)
		return emu_capture_node(b, s, k, c, emu_name_put(b->g, kn, strlen(kn)));
	if (c->capture_status != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		emu_memop o = emu_memop_at(c, i), w;
		const emu_wval *last;
		uint64_t word = 0;
		int inside = 0;

		if (o.op != 1 && o.op != 4)
			continue;
		for (size_t j = i; j-- > 0 && !inside;) { /* an earlier write of the record */
			emu_wval x;

			w = emu_memop_at(c, j);
			x.addr = w.addr;
			x.value = w.value;
			x.wide = w.wide;
			if ((w.op == 2 || w.op == 5) && emu_wval_word(&x, o.addr, o.wide, &word))
				inside = 1 + emu_wait_met(o.flags, o.wide, o.value, word);
		}
		if (inside == 2)
			continue;
		last = inside ? NULL : emu_wval_last(b, o.addr, o.wide, &word);
		if (last && emu_wait_met(o.flags, o.wide, o.value, word)) {
			if (emu_dep_push_dep(&b->bs.v[s].pending, &last->dep, EMU_D_VALUE) != 0)
				return -1;
			continue;
		}
		if (b->force_seq == b->rec->seq)
			continue; /* met by no write (emu_unmet) */
		return emu_hold(b, s, &o);
	}
	node = emu_command(b, s, k, c, EMU_K_MEMSET, emu_name_put(b->g, kn, strlen(kn)));
	if (node == EMU_NONE)
		return -1;
	for (size_t i = 0; i < n; i++) {
		emu_memop o = emu_memop_at(c, i);
		emu_dep d = { b->g->nodes.v[node].step, EMU_D_VALUE, 0 };

		if ((o.op == 2 || o.op == 5) && emu_wval_put(b, &o, d) != 0)
			return -1;
	}
	return emu_memop_wake(b, b->g->nodes.v[node].step);
}

int emu_memop_wake(emu_builder *b, uint32_t step)
{
	for (size_t t = 0; b->nheld && t < b->bs.n; t++) {
		const emu_bstream *h = &b->bs.v[t];
		uint64_t word;
		const emu_wval *last;

		if (!h->held)
			continue;
		last = emu_wval_last(b, h->hold_addr, h->hold_wide, &word);
		if (last && last->dep.step == step && emu_wait_met(h->hold_flags, h->hold_wide, h->hold_value, word) &&
		    emu_release(b, (uint32_t)t, 0) != 0)
			return -1;
	}
	return 0;
}

/* Holds stream s at the record being read for the wait o. */
static int emu_hold(emu_builder *b, uint32_t s, const emu_memop *o)
{
	b->bs.v[s].held = 1;
	b->bs.v[s].hold_addr = o->addr;
	b->bs.v[s].hold_value = o->value;
	b->bs.v[s].hold_flags = o->flags;
	b->bs.v[s].hold_wide = o->wide;
	b->nheld++;
	if (!b->g->held_first_seq)
		b->g->held_first_seq = b->rec->seq;
	emu_depvec_clear(&b->bs.v[s].pending); /* taken again when read again */
	return emu_keep(b, s);
}

/* The last write of the launch's nodes before node i (template order, a
 * topological one) to the word of wait o: 1 and its node in *tn, *word. */
static int emu_launch_local(const emu_builder *b, const emu_capture *cap, uint32_t i, const emu_memop *o,
                            uint32_t *tn, uint64_t *word)
{
	for (uint32_t j = i; j-- > 0;) {
		const emu_node *n = &cap->nodes.v[j];

		for (uint32_t k = n->mop_len / 48; k-- > 0;) {
			emu_memop w = emu_memop_raw(b->mops.v + n->mop_off + k * 48);
			emu_wval x = { w.addr, w.value, { 0, 0, 0 }, w.wide };

			if ((w.op == 2 || w.op == 5) && emu_wval_word(&x, o->addr, o->wide, word)) {
				*tn = j;
				return 1;
			}
		}
	}
	return 0;
}

/* Whether wait k of node i is met inside its own node (an earlier write of
 * it): 2 met, 1 written there but not met, 0 not written there. */
static int emu_node_local(const emu_builder *b, const emu_node *n, uint32_t k, const emu_memop *o)
{
	uint64_t word;

	for (uint32_t j = k; j-- > 0;) {
		emu_memop w = emu_memop_raw(b->mops.v + n->mop_off + j * 48);
		emu_wval x = { w.addr, w.value, { 0, 0, 0 }, w.wide };

		if ((w.op == 2 || w.op == 5) && emu_wval_word(&x, o->addr, o->wide, &word))
			return 1 + emu_wait_met(o->flags, o->wide, o->value, word);
	}
	return 0;
}

/* Graph launches: each memory wait of a node is met by the last write to
 * its word of the node itself, of an earlier node of the launch (which then
 * becomes an internal predecessor), or of what was recorded before (a
 * dependency of the node's own); a wait none meets holds the stream at the
 * launch, as a stream wait does. */
int emu_launch_memop_hold(emu_builder *b, uint32_t s, const emu_capture *cap)
{
	for (uint32_t i = 0; i < (uint32_t)cap->nodes.n; i++) {
		const emu_node *n = &cap->nodes.v[i];

		for (uint32_t k = 0; k < n->mop_len / 48; k++) {
			emu_memop o = emu_memop_raw(b->mops.v + n->mop_off + k * 48);
			const emu_wval *last;
			uint32_t tn;
			uint64_t word;
			int in;

			if (o.op != 1 && o.op != 4)
				continue;
			if ((in = emu_node_local(b, n, k, &o)) != 0 ||
			    emu_launch_local(b, cap, i, &o, &tn, &word)) {
				if (in == 2 || (!in && emu_wait_met(o.flags, o.wide, o.value, word)))
					continue;
			} else if ((last = emu_wval_last(b, o.addr, o.wide, &word)) &&
			           emu_wait_met(o.flags, o.wide, o.value, word)) {
				continue;
			}
			if (b->force_seq == b->rec->seq)
				continue; /* met by no write (emu_unmet) */
			return emu_hold(b, s, &o) == 0 ? 1 : -1;
		}
	}
	return 0;
}

int emu_launch_memop_node(emu_builder *b, const emu_capture *cap, uint32_t i, uint32_t base, emu_node *n,
                          emu_depvec *deps)
{
	for (uint32_t k = 0; k < n->mop_len / 48; k++) {
		emu_memop o = emu_memop_raw(b->mops.v + n->mop_off + k * 48);
		const emu_wval *last;
		uint32_t tn;
		uint64_t word;

		if ((o.op != 1 && o.op != 4) || emu_node_local(b, n, k, &o))
			continue;
		if (emu_launch_local(b, cap, i, &o, &tn, &word)) {
			if (!emu_wait_met(o.flags, o.wide, o.value, word))
				continue;
			if (EMU_PUSH(b->g->ipreds, base + tn) != 0)
				return -1;
			n->ipred_count++;
		} else if ((last = emu_wval_last(b, o.addr, o.wide, &word)) &&
		           emu_wait_met(o.flags, o.wide, o.value, word)) {
			if (EMU_PUSH(*deps, last->dep) != 0)
				return -1;
		}
	}
	return 0;
}

int emu_launch_memop_done(emu_builder *b, const emu_capture *cap, uint32_t step, uint32_t tmpl, uint32_t base)
{
	emu_graph *g = b->g;

	(void)base;
	for (uint32_t i = 0; i < (uint32_t)cap->nodes.n; i++) {
		const emu_node *n = &cap->nodes.v[i];

		for (uint32_t k = 0; k < n->mop_len / 48; k++) {
			emu_memop o = emu_memop_raw(b->mops.v + n->mop_off + k * 48);
			emu_dep d = { step, EMU_D_VALUE, i + 1 };

			if (o.op != 2 && o.op != 5)
				continue;
			/* a later wait follows this node of the launch (its column) */
			if (i >= EMU_DEP_NODES)
				d.node1 = 0;
			else if (emu_col_of(g, g->steps.v[step].stream, tmpl, i) == EMU_NONE)
				return -1;
			else
				g->node_deps = 1;
			if (emu_wval_put(b, &o, d) != 0)
				return -1;
		}
	}
	return 0;
}

/* Contexts: which device a thread's streams belong to. */
static int emu_r_ctx_made(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_bctx x = { c->ctx, c->device };
	emu_bthread *t;

	if (c->result != 0 || !c->ctx)
		return 0;
	if (EMU_PUSH(b->ctxs, x) != 0)
		return -1;
	/* clr's hipCtxCreate pushes the context but leaves the current device
	 * (docs/hip.md "Contexts"): what HIP's streams follow */
	if (k != SBT_CM_K_cuCtxCreate || b->hip >= 0)
		return 0;
	t = emu_thread_of(b, b->rec->thread); /* cuCtxCreate makes it current */
	return !t || EMU_PUSH(t->ctx, c->ctx) != 0 ? -1 : 0;
}

static int emu_r_ctx_current(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_bthread *t;

	if (c->result != 0)
		return 0;
	t = emu_thread_of(b, b->rec->thread);
	if (!t)
		return -1;
	if (b->hip >= 0) {
		/* HIP's streams follow the current device, which hipSetDevice,
		 * hipCtxSetCurrent, hipCtxPushCurrent and hipCtxPopCurrent record
		 * as it is after the call (clr's pop leaves it): the device's
		 * stand-in becomes the thread's current context */
		emu_bctx x = { EMU_HIP_DEVICE_CTX(c->device), c->device };

		if (EMU_PUSH(b->ctxs, x) != 0)
			return -1;
		if (t->ctx.n)
			t->ctx.n--;
		return EMU_PUSH(t->ctx, x.ctx);
	}
	if (k != SBT_CM_K_cuCtxPushCurrent && t->ctx.n)
		t->ctx.n--; /* pop, or set: replaces the top */
	return k == SBT_CM_K_cuCtxPopCurrent ? 0 : EMU_PUSH(t->ctx, c->ctx);
}

/* Streams: a handle made again names a new stream; destroyed ones are kept
 * (their work still runs) but no longer found by handle. */
static void emu_stream_forget(emu_builder *b, uint64_t handle)
{
	for (size_t i = 0; i < b->bs.n; i++)
		if (b->g->streams.v[i].handle == handle && !b->g->streams.v[i].legacy && !b->g->streams.v[i].ptds)
			b->bs.v[i].live = 0;
}

static int emu_r_stream_create(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	if (c->result != 0)
		return 0;
	emu_stream_forget(b, c->handle);
	return emu_stream_new(b, c->handle, (uint32_t)c->flags, 1) == EMU_NONE ? -1 : 0;
}

static int emu_r_stream_destroy(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	emu_stream_forget(b, c->stream);
	return 0;
}

/* cuStreamSynchronize, a successful cuStreamQuery: the host waited for the
 * stream, the event waits it holds included (a graph launch's event wait
 * nodes that no node follows are such waits: emu_graph_launch). */
static int emu_r_stream_sync(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s;

	(void)k;
	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	if (s == EMU_NONE)
		return -1;
	for (size_t i = 0; i < b->bs.v[s].pending.n; i++)
		if (emu_host_sync_dep(b, b->rec->thread, &b->bs.v[s].pending.v[i]) != 0)
			return -1;
	return emu_host_sync(b, b->rec->thread, b->bs.v[s].last);
}

/* cuCtxSynchronize and the frees that wait for the device: the host waited
 * for everything; the frees end their allocation's range. */
static int emu_r_sync_all(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	if (c->result != 0)
		return 0;
	if (emu_host_sync_all(b, b->rec->thread) != 0)
		return -1;
	if (k != SBT_CM_K_cuCtxSynchronize)
		emu_alloc_end(b, k == SBT_CM_K_cuMemFree ? c->dst : c->host, b->rec->seq, 0);
	return 0;
}

/* cuMemFreeAsync, cuMemUnmap: the range ends, nothing waits (graph
 * memory's stays: emu_alloc.graph). */
static int emu_r_release(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	if (c->result == 0)
		emu_alloc_end(b, c->dst, b->rec->seq, 0);
	return 0;
}

/* An event captures everything issued to the stream so far, waits
 * included; on a capturing stream, the capture's frontier. */
static int emu_r_event_record(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s;
	emu_bstream *bs;
	emu_bevent *ev;

	(void)k;
	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	ev = emu_event_of(b, c->event, 1);
	if (s == EMU_NONE || !ev)
		return -1;
	bs = &b->bs.v[s];
	emu_depvec_clear(&ev->deps);
	ev->cap_nodes.n = 0;
	ev->capture = bs->capture;
	if (ev->capture != EMU_NONE) {
		for (size_t i = 0; i < bs->cap_front.n; i++)
			if (EMU_PUSH(ev->cap_nodes, bs->cap_front.v[i]) != 0)
				return -1;
		return 0;
	}
	if (emu_dep_push(&ev->deps, bs->last, EMU_D_EVENT) != 0)
		return -1;
	for (size_t i = 0; i < bs->pending.n; i++)
		if (emu_dep_push_dep(&ev->deps, &bs->pending.v[i], EMU_D_EVENT) != 0)
			return -1;
	return 0;
}

/* The stream's next step waits for what the event captured; an event
 * recorded in a capture makes the stream join it. */
static int emu_r_wait_event(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s;
	emu_bstream *bs;
	emu_bevent *ev;

	(void)k;
	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	if (s == EMU_NONE)
		return -1;
	bs = &b->bs.v[s];
	ev = emu_event_of(b, c->event, 0);
	if (!ev)
		return 0; /* never recorded: the wait is a no-op */
	if (ev->capture != EMU_NONE) {
		if (bs->capture == EMU_NONE) {
			bs->capture = ev->capture;
			bs->cap_front.n = 0;
		}
		for (size_t i = 0; i < ev->cap_nodes.n; i++)
			if (EMU_PUSH(bs->cap_front, ev->cap_nodes.v[i]) != 0)
				return -1;
		return 0;
	}
	for (size_t i = 0; i < ev->deps.n; i++)
		if (emu_dep_push_dep(&bs->pending, &ev->deps.v[i], EMU_D_EVENT) != 0)
			return -1;
	return 0;
}

/* A new event (or a handle reused after a destroy) waits for nothing until
 * recorded; forgetting destroyed events keeps lookups short. */
static int emu_r_event_reset(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_bevent *ev = emu_event_of(b, c->event, 0);

	(void)k;
	if (ev && c->result == 0) {
		emu_depvec_free(&ev->deps);
		free(ev->cap_nodes.v);
		*ev = b->events.v[--b->events.n];
	}
	return 0;
}

/* cuEventSynchronize, a successful cuEventQuery. */
static int emu_r_event_sync(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_bevent *ev;

	(void)k;
	if (c->result != 0)
		return 0;
	ev = emu_event_of(b, c->event, 0);
	for (size_t i = 0; ev && i < ev->deps.n; i++)
		if (emu_host_sync_dep(b, b->rec->thread, &ev->deps.v[i]) != 0)
			return -1;
	return 0;
}

static emu_ngraph *emu_ngraph_of(emu_builder *b, uint64_t handle);
static uint32_t emu_gnode_in(const emu_ngraph *ng, uint64_t node);
static void emu_capture_changed(emu_builder *b, uint64_t graph);
static int emu_gedge_add(emu_ngraph *ng, uint32_t from, uint32_t to, size_t first);

/* cuStreamBeginCapture; cuStreamBeginCaptureToGraph is one with parent =
 * the graph the capture's nodes join and deps = the nodes of it they
 * follow (emu_capture_join).  A dependency on a node not seen made makes
 * that graph not modeled. */
static int emu_r_begin_capture(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_capture cap = { 0 };
	emu_ngraph *ng;
	uint32_t s;

	(void)k;
	if (c->result != 0)
		return 0;
	s = emu_call_stream(b, c);
	if (s == EMU_NONE)
		return -1;
	cap.into = c->parent;
	ng = c->parent ? emu_ngraph_of(b, c->parent) : NULL;
	for (size_t off = 0; ng && off + 8 <= c->deps_len; off += 8) {
		uint64_t h = 0;
		uint32_t idx;

		for (int i = 7; i >= 0; i--)
			h = h << 8 | c->deps[off + (size_t)i];
		idx = emu_gnode_in(ng, h);
		if (idx == EMU_NONE)
			ng->not_modeled = 1;
		else if (EMU_PUSH(cap.into_deps, idx) != 0)
			goto out_free_deps;
	}
	if (EMU_PUSH(b->caps, cap) != 0)
		goto out_free_deps;
	b->bs.v[s].capture = (uint32_t)b->caps.n - 1;
	b->bs.v[s].cap_front.n = 0;
	return 0;
out_free_deps:
	free(cap.into_deps.v);
	return -1;
}

/* A capture into a graph that ended: its nodes join the graph as the
 * driver adds them, each after the capture's nodes it follows, the ones
 * that follow none after the capture's deps; its graph memory is the
 * graph's.  The nodes have no handle (the program never named them: a
 * call naming one finds none and makes the graph not modeled).  Into a
 * graph not seen built, or one a stream capture made: that graph's
 * launches are one command. */
static int emu_capture_join(emu_builder *b, const emu_capture *cap)
{
	emu_ngraph *ng = emu_ngraph_of(b, cap->into);
	uint32_t base;
	size_t acc0;

	if (!ng) {
		emu_capture_changed(b, cap->into);
		return 0;
	}
	base = (uint32_t)ng->nodes.n;
	acc0 = ng->acc.n;
	for (size_t i = 0; i < cap->nodes.n; i++) {
		emu_gnode gn;

		memset(&gn, 0, sizeof(gn));
		gn.live = 1;
		gn.what = EMU_GN_WORK;
		gn.n = cap->nodes.v[i];
		gn.n.acc_first += (uint32_t)acc0;
		gn.n.ipred_first = gn.n.ipred_count = 0;
		if (EMU_PUSH(ng->nodes, gn) != 0)
			return -1;
	}
	for (size_t a = 0; a < cap->acc.n; a++) {
		emu_access x = cap->acc.v[a];

		x.node += base;
		if (EMU_PUSH(ng->acc, x) != 0)
			return -1;
	}
	for (size_t i = 0; i < cap->nodes.n; i++) {
		const emu_node *n = &cap->nodes.v[i];
		size_t first = ng->edges.n;
		uint32_t to = base + (uint32_t)i;

		for (uint32_t p = 0; p < n->ipred_count; p++)
			if (emu_gedge_add(ng, base + cap->ipreds.v[n->ipred_first + p], to, first) != 0)
				return -1;
		for (size_t d = 0; n->ipred_count == 0 && d < cap->into_deps.n; d++)
			if (emu_gedge_add(ng, cap->into_deps.v[d], to, first) != 0)
				return -1;
	}
	for (size_t i = 0; i < cap->gmem.n; i++)
		if (EMU_PUSH(ng->gmem, cap->gmem.v[i]) != 0)
			return -1;
	return 0;
}

/* Every stream of the capture leaves it, even when the call failed. */
static int emu_r_end_capture(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s = emu_call_stream(b, c), cap;

	(void)k;
	if (s == EMU_NONE)
		return -1;
	cap = b->bs.v[s].capture;
	if (cap == EMU_NONE)
		return 0;
	for (size_t i = 0; i < b->bs.n; i++)
		if (b->bs.v[i].capture == cap)
			b->bs.v[i].capture = EMU_NONE;
	if (c->result != 0)
		return 0;
	if (!b->caps.v[cap].into) {
		b->caps.v[cap].graph = c->handle;
		return 0;
	}
	return emu_capture_join(b, &b->caps.v[cap]);
}

/* ---- graphs built node by node ------------------------------------------------
 * Their calls build an emu_ngraph; cuGraphInstantiate snapshots it into a
 * template of its own (emu_ngraph_snapshot), which the exec's kernel node
 * setter changes and each launch runs.  A graph or exec changed by a call
 * the model does not cover (tsGraphNotModeled) is launched as one command. */

static emu_ngraph *emu_ngraph_of(emu_builder *b, uint64_t handle)
{
	for (size_t i = b->ngraphs.n; handle && i-- > 0;)
		if (b->ngraphs.v[i].handle == handle)
			return &b->ngraphs.v[i];
	return NULL;
}

/* The live node of that handle in ng: its index, EMU_NONE if none. */
static uint32_t emu_gnode_in(const emu_ngraph *ng, uint64_t node)
{
	for (size_t i = ng->nodes.n; node && i-- > 0;)
		if (ng->nodes.v[i].live && ng->nodes.v[i].handle == node)
			return (uint32_t)i;
	return EMU_NONE;
}

/* The first live node of that handle in ng: a child graph node's entry
 * (emu_gnode_in finds its exit), else the node itself. */
static uint32_t emu_gnode_entry(const emu_ngraph *ng, uint64_t node)
{
	for (size_t i = 0; node && i < ng->nodes.n; i++)
		if (ng->nodes.v[i].live && ng->nodes.v[i].handle == node)
			return (uint32_t)i;
	return EMU_NONE;
}

/* The graph holding the live node of that handle (its index in *idx). */
static emu_ngraph *emu_gnode_find(emu_builder *b, uint64_t node, uint32_t *idx)
{
	for (size_t i = b->ngraphs.n; i-- > 0;) {
		emu_ngraph *ng = &b->ngraphs.v[i];

		if (ng->handle && (*idx = emu_gnode_in(ng, node)) != EMU_NONE)
			return ng;
	}
	return NULL;
}

/* A graph made by stream capture changed by node calls: its later
 * instantiations are launched as one command (execs made before keep
 * what they snapshot). */
static void emu_capture_changed(emu_builder *b, uint64_t graph)
{
	for (size_t i = 0; graph && i < b->caps.n; i++)
		if (b->caps.v[i].graph == graph)
			b->caps.v[i].graph = 0;
}

static int emu_r_graph_create(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph ng = { 0 };

	(void)k;
	if (c->result != 0 || !c->handle)
		return 0;
	ng.handle = c->handle;
	return EMU_PUSH(b->ngraphs, ng);
}

static int emu_r_graph_destroy(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng = emu_ngraph_of(b, c->handle);

	(void)k;
	if (c->result != 0)
		return 0;
	if (ng) {
		ng->handle = 0;
		ng->nodes.n = ng->edges.n = ng->acc.n = 0;
	}
	emu_capture_changed(b, c->handle);
	return 0;
}

/* An edge from -> to of ng, once (the edges before first are known not
 * to hold it: a new node's dependencies look only at its own). */
static int emu_gedge_add(emu_ngraph *ng, uint32_t from, uint32_t to, size_t first)
{
	emu_gedge e = { from, to };

	for (size_t i = first; i < ng->edges.n; i++)
		if (ng->edges.v[i].from == from && ng->edges.v[i].to == to)
			return 0;
	return EMU_PUSH(ng->edges, e);
}

/* cuGraphAdd{Kernel,Memcpy,Memset,Empty,EventRecord,EventWait}Node: a node
 * after its dependencies. */
static int emu_r_graph_node(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng;
	emu_gnode gn;
	uint32_t idx;
	size_t first;

	if (c->result != 0)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	if (!ng) {
		emu_capture_changed(b, c->parent);
		return 0;
	}
	memset(&gn, 0, sizeof(gn));
	idx = (uint32_t)ng->nodes.n;
	gn.handle = c->node;
	gn.live = 1;
	gn.event = c->event;
	gn.what = k == SBT_CM_K_cuGraphAddEmptyNode         ? EMU_GN_EMPTY
	          : k == SBT_CM_K_cuGraphAddEventRecordNode ? EMU_GN_RECORD
	          : k == SBT_CM_K_cuGraphAddEventWaitNode   ? EMU_GN_WAIT
	                                                    : EMU_GN_WORK;
	if (gn.what == EMU_GN_WORK && emu_graph_node_fill(b, k, c, &ng->acc, idx, &gn.n) != 0)
		return -1;
	if (EMU_PUSH(ng->nodes, gn) != 0)
		return -1;
	first = ng->edges.n;
	for (size_t off = 0; off + 8 <= c->deps_len; off += 8) {
		uint64_t h = 0;
		uint32_t from;

		for (int i = 7; i >= 0; i--)
			h = h << 8 | c->deps[off + (size_t)i];
		from = emu_gnode_in(ng, h);
		/* a dependency on a node not seen made (one not modeled marked
		 * the graph already; a clone's node not found yet) */
		if (from == EMU_NONE)
			ng->not_modeled = 1;
		else if (from != idx && emu_gedge_add(ng, from, idx, first) != 0)
			return -1;
	}
	return 0;
}

/* cuGraphAddChildGraphNode: the child's nodes and edges as they are now
 * (the driver copies them) join the parent between an entry node after
 * the node's deps and an exit node after the child's sinks, both ordering
 * nodes of the child node's handle (a dependency on it leaves the exit,
 * one to it reaches the entry).  A child not seen built, or not modeled,
 * makes the parent not modeled. */
static int emu_r_graph_child(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng, *ch;
	emu_gnode gn;
	uint32_t entry, exit_, base;
	size_t nn, ne, na;
	uint8_t *io;
	int live = 0, rc = 0;

	if (c->result != 0)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	if (!ng) {
		emu_capture_changed(b, c->parent);
		return 0;
	}
	ch = emu_ngraph_of(b, c->handle);
	if (!ch || ch->not_modeled || ch == ng) {
		ng->not_modeled = 1;
		return 0;
	}
	/* the entry: an empty node after deps */
	if (emu_r_graph_node(b, SBT_CM_K_cuGraphAddEmptyNode, c) != 0)
		return -1;
	entry = (uint32_t)ng->nodes.n - 1;
	ng->nodes.v[entry].child = 1;
	base = (uint32_t)ng->nodes.n;
	nn = ch->nodes.n;
	ne = ch->edges.n;
	na = ch->acc.n;
	for (size_t i = 0; i < nn; i++) {
		gn = ch->nodes.v[i];
		gn.handle = gn.orig = 0; /* the copy's nodes are the parent's own */
		gn.child = 0;
		gn.n.acc_first += (uint32_t)ng->acc.n;
		if (EMU_PUSH(ng->nodes, gn) != 0)
			return -1;
	}
	for (size_t a = 0; a < na; a++) {
		emu_access x = ch->acc.v[a];

		x.node += base;
		if (EMU_PUSH(ng->acc, x) != 0)
			return -1;
	}
	for (size_t e = 0; e < ne; e++) {
		emu_gedge x = { ch->edges.v[e].from + base, ch->edges.v[e].to + base };

		if (EMU_PUSH(ng->edges, x) != 0)
			return -1;
	}
	memset(&gn, 0, sizeof(gn));
	gn.handle = c->node;
	gn.live = gn.child = 1;
	gn.what = EMU_GN_EMPTY;
	exit_ = (uint32_t)ng->nodes.n;
	if (EMU_PUSH(ng->nodes, gn) != 0)
		return -1;
	/* sources after the entry, sinks before the exit (the exit after the
	 * entry only when the child is empty: else a needless edge) */
	io = calloc(nn + 1, 1); /* per child node: 1 has an edge in, 2 one out */
	if (!io)
		return -1;
	for (size_t e = 0; e < ne; e++) {
		io[ch->edges.v[e].to] |= 1;
		io[ch->edges.v[e].from] |= 2;
	}
	for (size_t i = 0; i < nn && rc == 0; i++) {
		if (!ch->nodes.v[i].live)
			continue;
		live = 1;
		if (!(io[i] & 1) && emu_gedge_add(ng, entry, base + (uint32_t)i, ng->edges.n) != 0)
			rc = -1;
		else if (!(io[i] & 2) && emu_gedge_add(ng, base + (uint32_t)i, exit_, ng->edges.n) != 0)
			rc = -1;
	}
	free(io);
	(void)k;
	if (rc == 0 && !live)
		rc = emu_gedge_add(ng, entry, exit_, ng->edges.n);
	return rc;
}

/* cuGraphAddHostNode: no command (the host function is not the device's),
 * an ordering node that keeps the graph's edges. */
static int emu_r_graph_host_node(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	return emu_r_graph_node(b, SBT_CM_K_cuGraphAddEmptyNode, c);
}

/* cuGraphAddMemAllocNode: an ordering node after its deps, and the graph
 * memory's address range (EMU_GA_NODE) from now on: kernel pointer
 * arguments and memcpy/memset nodes into it resolve to it, in the graph
 * and outside, whether a free node, cuMemFreeAsync or cuMemFree freed a
 * launch's memory or not (CUDA fixes the address for the node's lifetime,
 * which the execs made from the graph extend, and allocates the memory
 * anew at each launch: emu_launch_gmem), so that every access to it is
 * judged by happens-before.  Another allocation at its address ends it. */
static int emu_r_graph_mem_alloc(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng;

	(void)k;
	if (emu_r_graph_node(b, SBT_CM_K_cuGraphAddEmptyNode, c) != 0)
		return -1;
	ng = c->result == 0 ? emu_ngraph_of(b, c->parent) : NULL;
	if (!ng || !c->size)
		return 0;
	emu_alloc_end(b, c->dst, b->rec->seq, 1); /* an address used again */
	if (emu_alloc_add(b, c->dst, c->size, 0, b->rec->seq, b->rec->stack_id) != 0)
		return -1;
	return emu_alloc_graph_node(b, &ng->gmem);
}

/* cuGraphAddMemFreeNode: an ordering node after its deps (the range
 * stays: emu_r_graph_mem_alloc). */
static int emu_r_graph_mem_free(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	return emu_r_graph_node(b, SBT_CM_K_cuGraphAddEmptyNode, c);
}

/* cuGraphChildGraphNodeGetGraph: the embedded graph's handle names the
 * child node's copy from now on (emu_inner_call).  A child node the
 * emulator did not see added makes the graph holding it not modeled. */
static int emu_r_child_get_graph(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng;
	emu_inner in = { c->handle, c->parent, c->node };
	uint32_t idx;

	(void)k;
	if (c->result != 0 || !c->handle)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	idx = ng ? emu_gnode_in(ng, c->node) : EMU_NONE;
	if (idx != EMU_NONE && ng->nodes.v[idx].child)
		return EMU_PUSH(b->inners, in);
	ng = emu_gnode_find(b, c->node, &idx);
	if (!ng)
		ng = emu_ngraph_of(b, c->parent);
	if (ng)
		ng->not_modeled = 1;
	emu_capture_changed(b, c->parent);
	return 0;
}

/* A copy of b->ngraphs.v[si] (nodes, edges, footprints) as a new graph of
 * that handle (0: an exec's own, found by no handle lookup); with
 * to_orig, its nodes' handles move to orig (a clone's, named by
 * cuGraphNodeFindInClone).  Its index, EMU_NONE when out of memory. */
static uint32_t emu_ngraph_copy(emu_builder *b, uint32_t si, uint64_t handle, int to_orig)
{
	emu_ngraph cp = { 0 };
	emu_ngraph *src, *dst;

	cp.handle = handle;
	cp.not_modeled = b->ngraphs.v[si].not_modeled;
	if (EMU_PUSH(b->ngraphs, cp) != 0)
		return EMU_NONE;
	src = &b->ngraphs.v[si];
	dst = &b->ngraphs.v[b->ngraphs.n - 1];
	for (size_t i = 0; i < src->edges.n; i++)
		if (EMU_PUSH(dst->edges, src->edges.v[i]) != 0)
			return EMU_NONE;
	for (size_t i = 0; i < src->acc.n; i++)
		if (EMU_PUSH(dst->acc, src->acc.v[i]) != 0)
			return EMU_NONE;
	for (size_t i = 0; i < src->gmem.n; i++)
		if (EMU_PUSH(dst->gmem, src->gmem.v[i]) != 0)
			return EMU_NONE;
	for (size_t i = 0; i < src->nodes.n; i++) {
		emu_gnode gn = src->nodes.v[i];

		if (to_orig) {
			gn.orig = gn.handle;
			gn.handle = 0;
		}
		if (EMU_PUSH(dst->nodes, gn) != 0)
			return EMU_NONE;
	}
	return (uint32_t)b->ngraphs.n - 1;
}

/* cuGraphClone: a graph of its own, the original's nodes and edges; its
 * nodes have no handle until cuGraphNodeFindInClone names them. */
static int emu_r_graph_clone(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *src;

	(void)k;
	if (c->result != 0 || !c->handle)
		return 0;
	src = emu_ngraph_of(b, c->parent);
	if (!src) {
		/* a graph not seen built: the clone is not either */
		emu_capture_changed(b, c->parent);
		return 0;
	}
	return emu_ngraph_copy(b, (uint32_t)(src - b->ngraphs.v), c->handle, 1) == EMU_NONE ? -1 : 0;
}

/* cuGraphNodeFindInClone (node = the clone's node, handle = the
 * original's, parent = the clone): the copy gets its handle. */
static int emu_r_graph_find_in_clone(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng;

	(void)k;
	if (c->result != 0)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	for (size_t i = 0; ng && c->handle && i < ng->nodes.n; i++)
		if (ng->nodes.v[i].orig == c->handle)
			ng->nodes.v[i].handle = c->node;
	return 0;
}

/* cuGraphAddDependencies, cuGraphRemoveDependencies: deps[i] -> deps_to[i]. */
static int emu_r_graph_deps(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng;

	if (c->result != 0)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	if (!ng) {
		emu_capture_changed(b, c->parent);
		return 0;
	}
	for (size_t off = 0; off + 8 <= c->deps_len && off + 8 <= c->deps_to_len; off += 8) {
		uint64_t hf = 0, ht = 0;
		uint32_t from, to;

		for (int i = 7; i >= 0; i--) {
			hf = hf << 8 | c->deps[off + (size_t)i];
			ht = ht << 8 | c->deps_to[off + (size_t)i];
		}
		from = emu_gnode_in(ng, hf);
		to = emu_gnode_entry(ng, ht);
		if (from == EMU_NONE || to == EMU_NONE) {
			/* a node not seen made (a clone's not found yet, say) */
			ng->not_modeled = 1;
			continue;
		}
		if (k == SBT_CM_K_cuGraphAddDependencies) {
			if (emu_gedge_add(ng, from, to, 0) != 0)
				return -1;
			continue;
		}
		for (size_t e = 0; e < ng->edges.n; e++)
			if (ng->edges.v[e].from == from && ng->edges.v[e].to == to) {
				ng->edges.v[e] = ng->edges.v[--ng->edges.n];
				break;
			}
	}
	return 0;
}

/* cuGraphDestroyNode: the node and its edges go. */
static int emu_r_graph_destroy_node(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t idx;
	emu_ngraph *ng;

	(void)k;
	if (c->result != 0)
		return 0;
	ng = emu_gnode_find(b, c->node, &idx);
	if (!ng)
		return 0;
	if (ng->nodes.v[idx].child || ng->nodes.v[idx].inner) {
		/* a child graph node is its copy's nodes too; a node of an
		 * embedded graph would leave its dependents without the copy's
		 * entry (emu_inner_call) */
		ng->not_modeled = 1;
		return 0;
	}
	ng->nodes.v[idx].live = 0;
	for (size_t e = ng->edges.n; e-- > 0;)
		if (ng->edges.v[e].from == idx || ng->edges.v[e].to == idx)
			ng->edges.v[e] = ng->edges.v[--ng->edges.n];
	return 0;
}

/* Whether a setter of kind k fits node n (a kernel setter a kernel node,
 * a memcpy or memset setter a copy or memset). */
static int emu_setter_fits(sbt_cm_kind k, const emu_gnode *gn)
{
	if (gn->what != EMU_GN_WORK)
		return 0;
	if (k == SBT_CM_K_cuGraphKernelNodeSetParams || k == SBT_CM_K_cuGraphExecKernelNodeSetParams)
		return gn->n.kind == EMU_K_KERNEL;
	return gn->n.kind != EMU_K_KERNEL;
}

/* cuGraph{Kernel,Memcpy,Memset}NodeSetParams: the node's command (and
 * accesses) from now on. */
static int emu_r_kernel_node_set(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t idx;
	emu_ngraph *ng;
	emu_gnode *gn;

	if (c->result != 0)
		return 0;
	ng = emu_gnode_find(b, c->node, &idx);
	if (!ng)
		return 0;
	gn = &ng->nodes.v[idx];
	if (!emu_setter_fits(k, gn)) {
		ng->not_modeled = 1;
		return 0;
	}
	return emu_graph_node_fill(b, k, c, &ng->acc, idx, &gn->n);
}

/* cuGraphEvent{Record,Wait}NodeSetEvent: the node's event from now on. */
static int emu_r_event_node_set(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t idx;
	emu_ngraph *ng;
	emu_gnode *gn;
	unsigned what = k == SBT_CM_K_cuGraphEventRecordNodeSetEvent ? EMU_GN_RECORD : EMU_GN_WAIT;

	if (c->result != 0)
		return 0;
	ng = emu_gnode_find(b, c->node, &idx);
	if (!ng)
		return 0;
	gn = &ng->nodes.v[idx];
	if (gn->what != what)
		ng->not_modeled = 1;
	else
		gn->event = c->event;
	return 0;
}

/* The exec that handle names (the last made). */
static emu_exec *emu_exec_of(emu_builder *b, uint64_t handle)
{
	for (size_t i = b->execs.n; handle && i-- > 0;)
		if (b->execs.v[i].handle == handle)
			return &b->execs.v[i];
	return NULL;
}

/* The exec's launches are one command from now on. */
static void emu_exec_not_modeled(emu_exec *x)
{
	x->capture = x->src = EMU_NONE;
	x->dirty = 0;
}

/* The node of that handle in the exec's own copy of its graph (*out), or
 * NULL (the exec made one command) when the exec has no copy (a captured
 * graph's) or the node is not in it. */
static emu_gnode *emu_exec_node(emu_builder *b, emu_exec *x, uint64_t node, emu_ngraph **out)
{
	emu_ngraph *ng;
	uint32_t idx;

	if (x->src == EMU_NONE) {
		emu_exec_not_modeled(x);
		return NULL;
	}
	ng = &b->ngraphs.v[x->src];
	idx = emu_gnode_in(ng, node);
	if (idx == EMU_NONE) {
		emu_exec_not_modeled(x);
		return NULL;
	}
	*out = ng;
	return &ng->nodes.v[idx];
}

/* cuGraphExec{Kernel,Memcpy,Memset}NodeSetParams (parent = the exec):
 * that exec's node from its next launch on (emu_graph_launch snapshots
 * the exec's copy again).  A node the exec does not hold (a captured
 * graph's) makes its launches one command. */
static int emu_r_exec_kernel_node_set(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_exec *x;
	emu_ngraph *ng = NULL;
	emu_gnode *gn;

	if (c->result != 0)
		return 0;
	x = emu_exec_of(b, c->parent);
	if (!x || !(gn = emu_exec_node(b, x, c->node, &ng)))
		return 0;
	if (!emu_setter_fits(k, gn)) {
		emu_exec_not_modeled(x);
		return 0;
	}
	x->dirty = 1;
	return emu_graph_node_fill(b, k, c, &ng->acc, (uint32_t)(gn - ng->nodes.v), &gn->n);
}

/* cuGraphExecEvent{Record,Wait}NodeSetEvent: that exec's node's event. */
static int emu_r_exec_event_node_set(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_exec *x;
	emu_ngraph *ng = NULL;
	emu_gnode *gn;
	unsigned what = k == SBT_CM_K_cuGraphExecEventRecordNodeSetEvent ? EMU_GN_RECORD : EMU_GN_WAIT;

	if (c->result != 0)
		return 0;
	x = emu_exec_of(b, c->parent);
	if (!x || !(gn = emu_exec_node(b, x, c->node, &ng)))
		return 0;
	if (gn->what != what) {
		emu_exec_not_modeled(x);
		return 0;
	}
	gn->event = c->event;
	x->dirty = 1;
	return 0;
}

/* cuGraphNodeSetEnabled (parent = the exec, value = enabled): a disabled
 * node is an empty node of that exec (CUDA: "functionally equivalent to
 * empty nodes until they are reenabled"): no command, its edges kept. */
static int emu_r_node_set_enabled(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_exec *x;
	emu_ngraph *ng = NULL;
	emu_gnode *gn;

	(void)k;
	if (c->result != 0)
		return 0;
	x = emu_exec_of(b, c->parent);
	if (!x || !(gn = emu_exec_node(b, x, c->node, &ng)))
		return 0;
	if (gn->what != EMU_GN_WORK) {
		emu_exec_not_modeled(x); /* CUDA takes kernel, memcpy and memset nodes only */
		return 0;
	}
	if (gn->off != !c->value) {
		gn->off = !c->value;
		x->dirty = 1;
	}
	return 0;
}

/* cuGraphExecUpdate (handle = the exec, parent = the graph, value = the
 * CUgraphExecUpdateResult): when it worked, the exec takes the graph's
 * nodes and parameters as they are now, paired with its own in creation
 * order (the shapes match: CUDA refuses others), so its node handles (the
 * ones its setters name) and enabled states stay.  One that failed
 * changes nothing. */
static int emu_r_exec_update(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_exec *x;
	emu_ngraph *ng, *old, *cp;
	uint32_t ci;
	size_t i = 0, j = 0;

	(void)k;
	if (c->result != 0 || c->value != 0)
		return 0;
	x = emu_exec_of(b, c->handle);
	if (!x)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	if (!ng || ng->not_modeled || x->src == EMU_NONE) {
		emu_exec_not_modeled(x);
		return 0;
	}
	ci = emu_ngraph_copy(b, (uint32_t)(ng - b->ngraphs.v), 0, 0);
	if (ci == EMU_NONE)
		return -1;
	old = &b->ngraphs.v[x->src];
	cp = &b->ngraphs.v[ci];
	for (;; i++, j++) {
		while (i < cp->nodes.n && !cp->nodes.v[i].live)
			i++;
		while (j < old->nodes.n && !old->nodes.v[j].live)
			j++;
		if (i == cp->nodes.n || j == old->nodes.n)
			break;
		cp->nodes.v[i].handle = old->nodes.v[j].handle;
		cp->nodes.v[i].off = old->nodes.v[j].off && cp->nodes.v[i].what == EMU_GN_WORK;
	}
	if (i != cp->nodes.n || j != old->nodes.n) {
		emu_exec_not_modeled(x); /* not one shape after all */
		return 0;
	}
	x->src = ci;
	x->dirty = 1;
	return 0;
}

/* tsGraphNotModeled: the graph (parent, or the one holding node) or the
 * exec (handle) is launched as one command from now on (unless the call
 * failed: hip_graph_nm's hipGraphAddChildGraphNode with no child). */
static int emu_r_graph_not_modeled(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_exec *x = emu_exec_of(b, c->handle);
	emu_ngraph *ng = emu_ngraph_of(b, c->parent);
	uint32_t idx;

	(void)k;
	if (c->result != 0)
		return 0; /* the call failed: nothing changed */
	if (x)
		emu_exec_not_modeled(x);
	if (!ng && !c->parent && !c->handle)
		ng = emu_gnode_find(b, c->node, &idx);
	if (ng)
		ng->not_modeled = 1;
	emu_capture_changed(b, c->parent);
	return 0;
}

/* cuGraphInstantiate: an exec of a graph built node by node keeps a copy
 * of the graph of its own (its setters, enabled states and updates change
 * that copy) and the snapshot of it its launches run; one of a captured
 * graph runs the capture's template. */
static int emu_r_instantiate(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_ngraph *ng;
	emu_exec e = { .handle = c->handle, .capture = EMU_NONE, .src = EMU_NONE };
	int rc;

	(void)k;
	if (c->result != 0 || !c->parent)
		return 0;
	ng = emu_ngraph_of(b, c->parent);
	if (ng) {
		if (!ng->not_modeled) {
			e.capture = emu_ngraph_snapshot(b, ng, &rc);
			if (rc != 0)
				return -1;
			if (e.capture != EMU_NONE) {
				e.src = emu_ngraph_copy(b, (uint32_t)(ng - b->ngraphs.v), 0, 0);
				if (e.src == EMU_NONE)
					return -1;
			}
		}
		return EMU_PUSH(b->execs, e);
	}
	for (size_t i = b->caps.n; i-- > 0;)
		if (b->caps.v[i].graph == c->parent) {
			e.capture = (uint32_t)i;
			return EMU_PUSH(b->execs, e);
		}
	return 0;
}

/* Whether some stream captures now. */
static int emu_capture_open(const emu_builder *b)
{
	for (size_t i = 0; i < b->bs.n; i++)
		if (b->bs.v[i].capture != EMU_NONE)
			return 1;
	return 0;
}

/* An allocation; cuMemAllocAsync and cuMemAllocFromPoolAsync on a
 * capturing stream are an allocation node of the capture's graph (graph
 * memory, as emu_r_graph_mem_alloc's). */
static int emu_r_alloc(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	int host = k == SBT_CM_K_cuMemAllocHost || k == SBT_CM_K_cuMemHostAlloc ||
	           k == SBT_CM_K_cuMemHostRegister;
	uint64_t base = host ? c->host : c->dst;
	uint32_t s = EMU_NONE, al;
	size_t n0 = b->g->allocs.n;

	if (c->result != 0 || !c->size)
		return 0;
	/* its stream only while a capture is open: a stream that allocates
	 * and runs nothing is no track of the exports */
	if ((k == SBT_CM_K_cuMemAllocAsync || k == SBT_CM_K_cuMemAllocFromPoolAsync) && emu_capture_open(b)) {
		s = emu_call_stream(b, c);
		if (s == EMU_NONE)
			return -1;
	}
	al = emu_alloc_find(b, base);
	if (al && b->g->allocs.v[al].graph == EMU_GA_NODE && b->g->allocs.v[al].base == base)
		emu_alloc_end(b, base, b->rec->seq, 1); /* graph memory's address used again */
	if (emu_alloc_add(b, base, c->size, host, b->rec->seq, b->rec->stack_id) != 0)
		return -1;
	if (s == EMU_NONE || b->bs.v[s].capture == EMU_NONE || b->g->allocs.n == n0)
		return 0;
	return emu_alloc_graph_node(b, &b->caps.v[b->bs.v[s].capture].gmem);
}

/* Module globals and mapped VMM ranges: memory kernels reach (what they
 * count for in memory in use is serializer/sbt_mem.c's to say). */
static int emu_r_range(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	/* __hipRegisterVar gives no device address: its host shadow, which
	 * symbol copies name, stands for the global */
	uint64_t base = b->hip == SBT_CM_HIP___hipRegisterVar ? c->host : c->dst;

	(void)k;
	if (c->result != 0 || !base || emu_alloc_find(b, base))
		return 0;
	return emu_alloc_add(b, base, c->size, 0, b->rec->seq, b->rec->stack_id);
}

/* hipDeviceReset: the runtime waits for the device before tearing it down. */
static int emu_r_device_reset(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	if (c->result != 0 || b->hip < 0)
		return 0;
	return emu_host_sync_all(b, b->rec->thread);
}

/* A snapshot names memory older than the trace, and belongs to the open keyframe. */
static int emu_r_snapshot(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	(void)k;
	if (!emu_alloc_find(b, c->dst) && emu_alloc_add(b, c->dst, c->size, c->sub == SBT_CM_MEM_HOST, 0, 0) != 0)
		return -1;
	if (b->kf_left > 0 && b->kfs.n > 0) {
		emu_snap sn = { c->dst, c->size, c->blob, c->value == 1 && c->blob == 0 };

		if (EMU_PUSH(b->snaps, sn) != 0)
			return -1;
		b->kfs.v[b->kfs.n - 1].snap_count++;
		b->kf_left--;
	}
	return 0;
}

#define EMU_H(kind, fn) [SBT_CM_K_##kind] = fn
static const emu_handler emu_handlers[SBT_CM_KIND_COUNT] = {
	EMU_H(cuLaunchKernel, emu_r_launch), EMU_H(cuLaunchKernelEx, emu_r_launch),
	EMU_H(cuLaunchCooperativeKernel, emu_r_launch), EMU_H(cuLaunchHostFunc, emu_r_host_func),
	EMU_H(cuGraphLaunch, emu_r_graph_launch),
	EMU_H(cuMemcpy, emu_r_transfer), EMU_H(cuMemcpyAsync, emu_r_transfer),
	EMU_H(cuMemcpyHtoD, emu_r_transfer), EMU_H(cuMemcpyHtoDAsync, emu_r_transfer),
	EMU_H(cuMemcpyDtoH, emu_r_transfer), EMU_H(cuMemcpyDtoHAsync, emu_r_transfer),
	EMU_H(cuMemcpyDtoD, emu_r_transfer), EMU_H(cuMemcpyDtoDAsync, emu_r_transfer),
	EMU_H(cuMemcpyPeer, emu_r_transfer), EMU_H(cuMemcpyPeerAsync, emu_r_transfer),
	EMU_H(cuMemcpy2D, emu_r_transfer), EMU_H(cuMemcpy2DUnaligned, emu_r_transfer),
	EMU_H(cuMemcpy2DAsync, emu_r_transfer), EMU_H(cuMemcpy3D, emu_r_transfer),
	EMU_H(cuMemcpy3DAsync, emu_r_transfer),
	EMU_H(cuMemcpyHtoA, emu_r_transfer), EMU_H(cuMemcpyAtoH, emu_r_transfer),
	EMU_H(cuMemcpyAtoD, emu_r_transfer), EMU_H(cuMemcpyDtoA, emu_r_transfer),
	EMU_H(cuMemcpyAtoA, emu_r_transfer), EMU_H(cuMemcpyHtoAAsync, emu_r_transfer),
	EMU_H(cuMemcpyAtoHAsync, emu_r_transfer),
	EMU_H(cuMemsetD8, emu_r_transfer), EMU_H(cuMemsetD16, emu_r_transfer),
	EMU_H(cuMemsetD32, emu_r_transfer), EMU_H(cuMemsetD2D8, emu_r_transfer),
	EMU_H(cuMemsetD2D16, emu_r_transfer), EMU_H(cuMemsetD2D32, emu_r_transfer),
	EMU_H(cuMemsetD8Async, emu_r_transfer), EMU_H(cuMemsetD16Async, emu_r_transfer),
	EMU_H(cuMemsetD32Async, emu_r_transfer), EMU_H(cuMemsetD2D8Async, emu_r_transfer),
	EMU_H(cuMemsetD2D16Async, emu_r_transfer), EMU_H(cuMemsetD2D32Async, emu_r_transfer),
	EMU_H(cuCtxCreate, emu_r_ctx_made), EMU_H(cuDevicePrimaryCtxRetain, emu_r_ctx_made),
	EMU_H(cuCtxSetCurrent, emu_r_ctx_current), EMU_H(cuCtxPushCurrent, emu_r_ctx_current),
	EMU_H(cuCtxPopCurrent, emu_r_ctx_current),
	EMU_H(cuStreamCreate, emu_r_stream_create), EMU_H(cuStreamCreateWithPriority, emu_r_stream_create),
	EMU_H(cuStreamDestroy, emu_r_stream_destroy),
	EMU_H(cuStreamSynchronize, emu_r_stream_sync), EMU_H(cuStreamQuery, emu_r_stream_sync),
	EMU_H(cuCtxSynchronize, emu_r_sync_all), EMU_H(cuMemFree, emu_r_sync_all),
	EMU_H(cuMemFreeHost, emu_r_sync_all), EMU_H(cuMemHostUnregister, emu_r_sync_all),
	EMU_H(cuMemFreeAsync, emu_r_release), EMU_H(cuMemUnmap, emu_r_release),
	EMU_H(cuEventRecord, emu_r_event_record), EMU_H(cuEventRecordWithFlags, emu_r_event_record),
	EMU_H(cuStreamWaitEvent, emu_r_wait_event),
	EMU_H(cuStreamWriteValue32, emu_r_memop), EMU_H(cuStreamWriteValue64, emu_r_memop),
	EMU_H(cuStreamWaitValue32, emu_r_memop), EMU_H(cuStreamWaitValue64, emu_r_memop),
	EMU_H(cuStreamBatchMemOp, emu_r_memop),
	EMU_H(cuGraphAddBatchMemOpNode, emu_r_graph_node),
	EMU_H(cuGraphBatchMemOpNodeSetParams, emu_r_kernel_node_set),
	EMU_H(cuGraphExecBatchMemOpNodeSetParams, emu_r_exec_kernel_node_set),
	EMU_H(cuEventCreate, emu_r_event_reset), EMU_H(cuEventDestroy, emu_r_event_reset),
	EMU_H(cuEventSynchronize, emu_r_event_sync), EMU_H(cuEventQuery, emu_r_event_sync),
	EMU_H(cuStreamBeginCapture, emu_r_begin_capture), EMU_H(cuStreamEndCapture, emu_r_end_capture),
	EMU_H(cuGraphInstantiate, emu_r_instantiate),
	EMU_H(cuGraphCreate, emu_r_graph_create), EMU_H(cuGraphDestroy, emu_r_graph_destroy),
	EMU_H(cuGraphAddKernelNode, emu_r_graph_node), EMU_H(cuGraphAddMemcpyNode, emu_r_graph_node),
	EMU_H(cuGraphAddMemsetNode, emu_r_graph_node), EMU_H(cuGraphAddEmptyNode, emu_r_graph_node),
	EMU_H(cuGraphAddEventRecordNode, emu_r_graph_node), EMU_H(cuGraphAddEventWaitNode, emu_r_graph_node),
	EMU_H(cuGraphAddDependencies, emu_r_graph_deps), EMU_H(cuGraphRemoveDependencies, emu_r_graph_deps),
	EMU_H(cuGraphDestroyNode, emu_r_graph_destroy_node),
	EMU_H(cuGraphKernelNodeSetParams, emu_r_kernel_node_set),
	EMU_H(cuGraphMemcpyNodeSetParams, emu_r_kernel_node_set),
	EMU_H(cuGraphMemsetNodeSetParams, emu_r_kernel_node_set),
	EMU_H(cuGraphExecKernelNodeSetParams, emu_r_exec_kernel_node_set),
	EMU_H(cuGraphExecMemcpyNodeSetParams, emu_r_exec_kernel_node_set),
	EMU_H(cuGraphExecMemsetNodeSetParams, emu_r_exec_kernel_node_set),
	EMU_H(cuGraphEventRecordNodeSetEvent, emu_r_event_node_set),
	EMU_H(cuGraphEventWaitNodeSetEvent, emu_r_event_node_set),
	EMU_H(cuGraphExecEventRecordNodeSetEvent, emu_r_exec_event_node_set),
	EMU_H(cuGraphExecEventWaitNodeSetEvent, emu_r_exec_event_node_set),
	EMU_H(cuGraphAddChildGraphNode, emu_r_graph_child), EMU_H(cuGraphAddHostNode, emu_r_graph_host_node),
	EMU_H(cuGraphClone, emu_r_graph_clone), EMU_H(cuGraphNodeFindInClone, emu_r_graph_find_in_clone),
	EMU_H(cuGraphNodeSetEnabled, emu_r_node_set_enabled), EMU_H(cuGraphExecUpdate, emu_r_exec_update),
	EMU_H(tsGraphNotModeled, emu_r_graph_not_modeled),
	EMU_H(cuGraphAddMemAllocNode, emu_r_graph_mem_alloc), EMU_H(cuGraphAddMemFreeNode, emu_r_graph_mem_free),
	EMU_H(cuGraphChildGraphNodeGetGraph, emu_r_child_get_graph),
	EMU_H(cuMemAlloc, emu_r_alloc), EMU_H(cuMemAllocPitch, emu_r_alloc),
	EMU_H(cuMemAllocAsync, emu_r_alloc), EMU_H(cuMemAllocFromPoolAsync, emu_r_alloc),
	EMU_H(cuMemAllocManaged, emu_r_alloc), EMU_H(cuMemAllocHost, emu_r_alloc),
	EMU_H(cuMemHostAlloc, emu_r_alloc), EMU_H(cuMemHostRegister, emu_r_alloc),
	EMU_H(cuModuleGetGlobal, emu_r_range), EMU_H(cuLibraryGetGlobal, emu_r_range),
	EMU_H(cuMemMap, emu_r_range), EMU_H(cuDevicePrimaryCtxReset, emu_r_device_reset),
	EMU_H(tsSnapshot, emu_r_snapshot),
};
#undef EMU_H

/* The keyframe marker opens a keyframe: its snapshots follow. */
static emu_status emu_keyframe(emu_builder *b, const sbt_record *rec)
{
	sbt_cm_call c;
	emu_kf kf = { 0 };

	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK)
		return EMU_ERR_CORRUPT;
	kf.ordinal = c.value;
	kf.sub = (uint32_t)c.sub;
	kf.flags = (uint32_t)c.flags;
	kf.unwaited = c.note_len != 0;
	kf.snap_first = (uint32_t)b->snaps.n;
	b->kf_left = c.count;
	return EMU_PUSH(b->kfs, kf) == 0 ? EMU_OK : EMU_ERR_NOMEM;
}

/* The embedded graph of that handle (the latest cuGraphChildGraphNodeGetGraph
 * naming it), NULL if none. */
static const emu_inner *emu_inner_of(const emu_builder *b, uint64_t handle)
{
	for (size_t i = b->inners.n; i-- > 0;)
		if (b->inners.v[i].handle == handle)
			return &b->inners.v[i];
	return NULL;
}

/* The calls that change a graph named by parent (emu_inner_call's). */
static int emu_inner_kind(sbt_cm_kind k)
{
	switch (k) {
	case SBT_CM_K_cuGraphAddKernelNode:
	case SBT_CM_K_cuGraphAddMemcpyNode:
	case SBT_CM_K_cuGraphAddMemsetNode:
	case SBT_CM_K_cuGraphAddEmptyNode:
	case SBT_CM_K_cuGraphAddEventRecordNode:
	case SBT_CM_K_cuGraphAddEventWaitNode:
	case SBT_CM_K_cuGraphAddHostNode:
	case SBT_CM_K_cuGraphAddChildGraphNode:
	case SBT_CM_K_cuGraphAddMemAllocNode:
	case SBT_CM_K_cuGraphAddMemFreeNode:
	case SBT_CM_K_cuGraphAddBatchMemOpNode:
	case SBT_CM_K_cuGraphAddDependencies:
	case SBT_CM_K_cuGraphRemoveDependencies:
	case SBT_CM_K_tsGraphNotModeled:
		return 1;
	default:
		return 0;
	}
}

/* A call on an embedded graph changes the child node's copy in the graph
 * holding it: a node added joins it between the copy's entry (when it has
 * no dependencies) and its exit; an edge added is the holder's.  A removed
 * edge, a destroyed node (emu_r_graph_destroy_node) or a change not
 * modeled makes the holder not modeled (a node left without its edges
 * would escape the copy's entry and exit). */
static int emu_inner_call(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c, const emu_inner *in)
{
	emu_ngraph *ng = emu_ngraph_of(b, in->graph);
	sbt_cm_call cc = *c;
	uint32_t entry, exit_, last;
	size_t n0;

	if (!ng || c->result != 0)
		return 0;
	entry = emu_gnode_entry(ng, in->node);
	exit_ = emu_gnode_in(ng, in->node);
	if (entry == EMU_NONE || entry == exit_ || k == SBT_CM_K_cuGraphRemoveDependencies ||
	    k == SBT_CM_K_tsGraphNotModeled) {
		ng->not_modeled = 1;
		return 0;
	}
	cc.parent = in->graph;
	n0 = ng->nodes.n;
	if (emu_handlers[k](b, k, &cc) != 0)
		return -1;
	ng = emu_ngraph_of(b, in->graph);
	if (k == SBT_CM_K_cuGraphAddDependencies || !ng || ng->nodes.n == n0)
		return 0;
	last = (uint32_t)ng->nodes.n - 1;
	for (size_t i = n0; i <= last; i++)
		ng->nodes.v[i].inner = 1;
	if (c->deps_len == 0 && emu_gedge_add(ng, entry, (uint32_t)n0, ng->edges.n) != 0)
		return -1;
	return emu_gedge_add(ng, last, exit_, ng->edges.n);
}

/* The host waits for a held stream (its synchronize or query, a context
 * synchronize, the stream's destruction): in the program no write can
 * come later, so the hold ends there, unmet. */
static int emu_hold_ends(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c)
{
	uint32_t s;

	switch (k) {
	case SBT_CM_K_cuStreamSynchronize:
	case SBT_CM_K_cuStreamQuery:
	case SBT_CM_K_cuStreamDestroy:
		if (c->result != 0 && k != SBT_CM_K_cuStreamDestroy)
			return 0;
		s = emu_call_stream(b, c);
		if (s == EMU_NONE)
			return -1;
		return b->bs.v[s].held ? emu_unmet(b, s) : 0;
	case SBT_CM_K_cuCtxSynchronize:
		for (size_t t = 0; c->result == 0 && t < b->bs.n; t++)
			if (b->bs.v[t].held && emu_unmet(b, (uint32_t)t) != 0)
				return -1;
		return 0;
	default:
		return 0;
	}
}

/* Every record also goes to the memory accounting (the one tsinfo
 * --memory reads: the exports' counter), with the call when decoded here.
 * A periodic snapshot (a KEYFRAME "snapshot" marker up to its
 * SNAPSHOT_END) re-creates what the trace already holds: the accounting
 * says so, and it is passed over, as a replay of the whole trace does. */
emu_status emu_record(emu_builder *b, const sbt_record *rec)
{
	sbt_cm_call c;
	sbt_cm_kind k;

	b->rec = rec;
	b->hip = rec->type < b->ntypes ? b->hip_of[rec->type] : -1;
	if (rec->type >= b->ntypes || b->kind_of[rec->type] < 0 ||
	    !emu_handlers[b->kind_of[rec->type]]) {
		if (sbt_mem_record(&b->mem, rec, NULL) != 0)
			return EMU_ERR_NOMEM;
		if (rec->type != SBT_TYPE_KEYFRAME || b->mem.periodic)
			return EMU_OK;
		return emu_keyframe(b, rec);
	}
	k = (sbt_cm_kind)b->kind_of[rec->type];
	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK)
		return EMU_ERR_CORRUPT;
	if (!b->again && sbt_mem_record(&b->mem, rec, &c) != 0) /* a kept record was accounted when read */
		return EMU_ERR_NOMEM;
	if (b->mem.periodic)
		return EMU_OK;
	/* launches are numbered in record order (keyframes name them so),
	 * also one kept on a held stream and read again later */
	if (!b->again && emu_handlers[k] == emu_r_launch &&
	    (EMU_PUSH(b->launches, EMU_NONE) != 0 || EMU_PUSH(b->launch_seqs, rec->seq) != 0))
		return EMU_ERR_NOMEM;
	if (b->nheld) {
		/* work on a stream a memory wait holds is kept until it goes on;
		 * a wait for such a stream's work ends the hold, unmet */
		uint32_t s = emu_work_stream(b, k, &c);

		if (s != EMU_NONE && b->bs.v[s].held)
			return emu_keep(b, s) == 0 ? EMU_OK : EMU_ERR_NOMEM;
		if (emu_hold_ends(b, k, &c) != 0)
			return EMU_ERR_NOMEM;
	}
	if (b->inners.n && c.parent) {
		const emu_inner *in = emu_inner_of(b, c.parent);

		if (in && emu_inner_kind(k))
			return emu_inner_call(b, k, &c, in) == 0 ? EMU_OK : EMU_ERR_NOMEM;
	}
	return emu_handlers[k](b, k, &c) == 0 ? EMU_OK : EMU_ERR_NOMEM;
}
