/*
 * emu_internal.h - the emulator's data, shared by its files (not a public
 * interface: tools use emu.h).
 *
 * The graph is built in record order, so every reference points backwards:
 * a step's predecessors are earlier steps, a node's internal predecessors
 * earlier nodes of its step.  Index order is therefore a topological order.
 *
 *   step   what the host issued once on one stream: one command, or one
 *          graph launch (its captured nodes, when the trace has them).
 *          Happens-before edges join steps.
 *   node   one command that runs on an engine (a kernel, copy, memset,
 *          host function, or a graph node).
 *   access one memory range a node reads or writes.
 */
#ifndef TRACESMITH_EMU_INTERNAL_H
#define TRACESMITH_EMU_INTERNAL_H

#include "emulator/emu.h"
#include "tracesmith/sbt.h"

#define EMU_NONE UINT32_MAX

enum emu_kind {
	EMU_K_KERNEL, EMU_K_H2D, EMU_K_D2H, EMU_K_D2D, EMU_K_COPY, EMU_K_MEMSET,
	EMU_K_GRAPH, EMU_K_HOSTFN,
	/* Vulkan commands (emu_vk.c) */
	EMU_K_DISPATCH, EMU_K_DRAW, EMU_K_TRANSFER, EMU_K_FILL, EMU_K_PASS,
	EMU_K_COUNT
};
enum emu_class { EMU_C_COMPUTE, EMU_C_COPY, EMU_C_HOST };

/* Why a step waits for another (DOT styles, flows). */
enum emu_dep_kind {
	EMU_D_STREAM,  /* earlier work on the same stream */
	EMU_D_EVENT,   /* cuStreamWaitEvent on an event recorded after it */
	EMU_D_HOST,    /* the host synchronized with it before issuing */
	EMU_D_LEGACY,  /* the legacy default stream's implicit synchronization */
	EMU_D_GRAPH,   /* inside a graph (between its nodes) */
	EMU_D_SEMAPHORE, /* Vulkan: a submit waits for a semaphore signaled by it */
	EMU_D_VALUE,   /* a stream memory wait on the write-value operation that satisfies it */
	EMU_D_COUNT
};

/* access modes (bits) */
enum { EMU_A_READ = 1, EMU_A_WRITE = 2, EMU_A_MAYWRITE = 4 };

/* A dependency on a step: all of it, or (node1 set) one node of a graph
 * launch and what comes before that node in the launch (an event record
 * node's event waits for the nodes before it, not for the whole launch).
 * Such a point is a vector clock column of its own (emu_col, emu_race.c):
 * its stream, template and template node.  8 bytes: a node past the
 * 2^24th of its launch is not named (the dependency is on the whole step). */
#define EMU_DEP_NODES ((1u << 24) - 1)
typedef struct emu_dep {
	uint32_t step;
	uint32_t kind : 8;
	uint32_t node1 : 24;   /* 0: the whole step; else the node's index in the step + 1 */
} emu_dep;

/* A vector clock column beyond the streams': the node tnode of template
 * tmpl (emu_step_tmpl) in the launches of that template on stream. */
typedef struct emu_col {
	uint32_t stream, tmpl, tnode;
} emu_col;

typedef struct emu_node {
	uint64_t seq;          /* of the record that issued it (the graph launch's for graph nodes) */
	uint64_t issue_ns;
	uint64_t tid;          /* the host thread that issued it (the record's) */
	uint64_t bytes;
	uint64_t cost_ns;      /* from the cost model, set by emu_schedule */
	uint64_t start_ns, end_ns;
	uint32_t step;
	uint32_t stream;
	uint32_t name;         /* offset in the name arena */
	uint32_t stack_id;
	uint32_t ipred_first, ipred_count; /* internal predecessors (graph nodes) */
	uint32_t acc_first, acc_count;     /* accesses made when it was recorded */
	uint32_t crit_pred;    /* the predecessor that made it start last (critical path) */
	int32_t engine;        /* -1: none (host functions) */
	uint32_t lane;         /* export lane within its stream's track */
	uint8_t kind;
	uint8_t proven;        /* keyframes give its write set */
	uint32_t mop_off, mop_len; /* a stream memory-op command or graph node: its operations
	                              (48 bytes each) in the builder's arena (emu_build.h) */
} emu_node;

typedef struct emu_step {
	uint64_t seq;
	uint32_t stream;
	uint32_t pos;          /* 1-based position on its stream */
	uint32_t node_first, node_count;
	uint32_t dep_first, dep_count;
} emu_step;

/* A graph launch run as its nodes: its step and template (the builder's
 * caps index + 1); in step order (emu_step_tmpl). */
typedef struct emu_launch {
	uint32_t step, tmpl;
} emu_launch;

/* What node waits for beyond its step's dependencies (the events of the
 * event wait nodes before it in its launch): deps[first .. first + count);
 * in node order (emu_node_xdeps). */
typedef struct emu_xdep {
	uint32_t node, first, count;
} emu_xdep;

typedef struct emu_access {
	uint64_t lo, hi;       /* [lo, hi) */
	uint32_t node;
	uint32_t alloc;        /* index in allocs; 0: memory the trace never allocated */
	uint32_t mode;
	uint32_t inst;         /* graph memory: the launch's allocation reports name
	                          (an EMU_GA_LAUNCH index); 0: alloc itself */
} emu_access;

typedef struct emu_alloc {
	uint64_t base, size;
	uint64_t seq;          /* of the allocating record (0: a snapshot of older memory) */
	uint64_t free_seq;     /* 0 while live */
	uint32_t stack_id;
	uint8_t host;          /* host memory (pinned, registered) */
	uint8_t vk;            /* Vulkan: EMU_VK_BUFFER or EMU_VK_IMAGE (base 0, offsets in it) */
	uint8_t graph;         /* EMU_GA_*: graph memory (docs/emulator.md "graph memory nodes") */
	uint32_t inst;         /* EMU_GA_NODE: its latest launch's EMU_GA_LAUNCH (0: none yet) */
	uint64_t handle;       /* Vulkan: the buffer or image */
	uint64_t mem, mem_off; /* Vulkan: the VkDeviceMemory bound to it (0: none) and where */
	uint32_t layers;       /* Vulkan image: array layers (size: mips * layers subresources) */
} emu_alloc;

enum { EMU_VK_NONE, EMU_VK_BUFFER, EMU_VK_IMAGE };
/* Graph memory: the address range of an allocation node (or of a
 * cuMemAllocAsync in a stream capture), which every access to it resolves
 * to, so that all are compared by happens-before whichever launch's memory
 * they touch; and one launch's allocation of it, which reports name (its
 * seq is the launch's).  Only EMU_GA_NODE ranges are in the live table. */
enum { EMU_GA_NONE, EMU_GA_NODE, EMU_GA_LAUNCH };

typedef struct emu_stream {
	uint64_t handle;
	uint64_t thread;       /* per-thread default streams: the thread */
	uint32_t flags;        /* CU_STREAM_NON_BLOCKING = 1 */
	int32_t device;        /* of the context current when it was made (0 if unknown) */
	uint8_t legacy;        /* the legacy default stream */
	uint8_t ptds;          /* a per-thread default stream */
	uint8_t created;       /* seen being created (else: flags unknown, taken as blocking) */
	uint8_t vk_queue;      /* a Vulkan queue (handle; family and index when seen) */
	uint32_t family, index;
	uint32_t steps;        /* how many steps it holds */
} emu_stream;

/* One memory-in-use change: at the host position seq. */
typedef struct emu_memev {
	uint64_t seq;
	int64_t device_delta, host_delta;
} emu_memev;

/* A host observation of finished work (emu_captimes.c): the record seq,
 * taken at time_ns (the trace's clock), returned from a wait that step had
 * finished by then (a synchronize, a successful query, a synchronous copy,
 * a fence wait). */
typedef struct emu_obs {
	uint64_t seq, time_ns;
	uint32_t step;
} emu_obs;

/* A host thread's latest record times (emu_captimes.c): cur_ns the
 * record being read, prev_ns the one before it (0, the trace's start, when
 * none). */
typedef struct emu_thr_time {
	uint64_t thread, prev_ns, cur_ns;
} emu_thr_time;

#define EMU_VEC(T) struct { T *v; size_t n, cap; }
typedef EMU_VEC(emu_access) emu_accvec;

/* A stream memory wait no write-value operation satisfies. */
typedef struct emu_unmet_wait {
	uint64_t seq;  /* the record holding the wait (a graph launch's for a node) */
	uint64_t addr; /* the word waited on */
	uint8_t wide;  /* 8 bytes, else 4 */
} emu_unmet_wait;
/* Dependencies in the order they were added (emu_depvec.c).  Those added
 * by emu_dep_push and emu_dep_push_dep are there once per (step, node1),
 * the kind of the first kept: from EMU_DEPVEC_INDEX entries on, a hash
 * index beside the list finds a repeat in constant time where a search of
 * the list would make long lists (a stream that waits on many events
 * before it runs) quadratic to build.  v, n and cap read and grow as any
 * EMU_VEC's (EMU_PUSH appends without the check; the index takes such
 * entries in when next used), but the list only shrinks through
 * emu_depvec_clear, and emu_depvec_free releases it.  Moved by value, the
 * copy owns both arrays. */
#define EMU_DEPVEC_INDEX 32
typedef struct emu_depvec {
	emu_dep *v;
	size_t n, cap;
	uint32_t *idx;         /* owned, NULL below EMU_DEPVEC_INDEX: per slot, a position in v + 1 (0: free) */
	unsigned idx_bits;     /* 1 << idx_bits slots, at least twice idx_n */
	size_t idx_n;          /* v[0 .. idx_n) are in idx */
} emu_depvec;

/* Whether dv, of EMU_DEPVEC_INDEX entries or more, holds a dependency on
 * (step, node1): through its index, made or brought up to date first. */
int emu_depvec_has_indexed(emu_depvec *dv, uint32_t step, uint32_t node1);
/* Drops dv's index (it is made again when next needed). */
void emu_depvec_unindex(emu_depvec *dv);
/* Releases what dv owns; it is empty after (free of an empty one: a no-op). */
void emu_depvec_free(emu_depvec *dv);

struct emu_graph {
	sbt_reader *r;         /* owned: stacks are read from it in race reports */
	char path[512];
	EMU_VEC(emu_node) nodes;
	EMU_VEC(emu_step) steps;
	EMU_VEC(emu_dep) deps;
	EMU_VEC(uint32_t) ipreds;
	EMU_VEC(emu_col) cols;      /* partial points of launches (emu_dep.node1) */
	EMU_VEC(emu_launch) launch_tmpl; /* launches run as their nodes, and their templates */
	EMU_VEC(emu_xdep) xdeps;    /* nodes' own dependencies */
	int node_deps;              /* some dependency is on a node, or some node has xdeps */
	emu_accvec acc;
	EMU_VEC(emu_alloc) allocs;  /* [0]: memory the trace never allocated */
	EMU_VEC(emu_stream) streams;
	EMU_VEC(emu_memev) mem;
	EMU_VEC(char) names;
	uint64_t first_ns;
	/* the last simulation */
	int scheduled;
	emu_options opt;
	uint64_t makespan, critical_ns, max_conc, max_conc_at;
	uint32_t crit_end;
	EMU_VEC(uint32_t) crit;     /* node indices, first to last */
	uint64_t *busy;             /* per engine */
	unsigned nengines;
	uint64_t (*state_ns)[5];    /* per stream: time in each state */
	uint64_t *transitions;      /* per stream */
	/* races: vector clocks, vc_width entries (streams, then cols) per step,
	 * and per node with dependencies of its own (xdeps, or after one in
	 * its launch) a row in nvc, nvc_row[node] (EMU_NONE: its step's) (emu_race.c) */
	uint32_t *vc;
	size_t vc_width;
	uint32_t *nvc, *nvc_row;
	struct emu_vk_graph *vk;    /* a Vulkan trace's ordering data (emu_vk.h); NULL for CUDA */
	int hip;                    /* a HIP trace (hip.* records): stream 0 is the "null stream" */
	/* A replay profile (emu_profile.c): per node the measured duration,
	 * UINT64_MAX where none; NULL when no profile was loaded. */
	uint64_t *measured;
	uint64_t nmeasured;         /* nodes with a measured duration */
	char profile_path[600];
	char profile_device[256];
	/* Durations from the capture's own times (emu_durations_capture):
	 * each emu_schedule fits them into measured (nmeasured of them) from
	 * the host observations, in record order; cap_waits: the
	 * observations that bounded some command in the last fit. */
	EMU_VEC(emu_obs) obs;
	EMU_VEC(uint64_t) step_entry; /* per step: the issuing thread's record before its own */
	EMU_VEC(emu_thr_time) thr;
	size_t thr_last;
	int dur_capture;
	uint64_t cap_waits;
	/* Stream memory waits no write-value operation of the trace
	 * satisfies (emu_calls.c): how many, and the first's record. */
	uint64_t unmet_waits, unmet_first_seq;
	/* Each of them: its record, the word it waits on (emu_race.c names
	 * the kernels and copies that may write that word). */
	EMU_VEC(emu_unmet_wait) unmet;
	/* The first record a memory wait held until a later write (0: none):
	 * its steps then follow that write's, out of seq order. */
	uint64_t held_first_seq;
};

/* Grow a vector to hold one more element; 0 or -1 (out of memory). */
int emu_vec_grow(void **v, size_t *cap, size_t n, size_t elem);
#define EMU_PUSH(vec, val)                                                        \
	(((vec).n < (vec).cap || emu_vec_grow((void **)&(vec).v, &(vec).cap, (vec).n, \
	                                      sizeof(*(vec).v)) == 0)                 \
	         ? ((vec).v[(vec).n++] = (val), 0)                                    \
	         : -1)

/* Short lists (most) are read here; long ones go through their index. */
static inline int emu_depvec_has(emu_depvec *dv, uint32_t step, uint32_t node1)
{
	if (dv->n >= EMU_DEPVEC_INDEX)
		return emu_depvec_has_indexed(dv, step, node1);
	for (size_t i = 0; i < dv->n; i++)
		if (dv->v[i].step == step && dv->v[i].node1 == node1)
			return 1;
	return 0;
}

/* Adds a dependency on all of step (of kind) unless dv holds one;
 * EMU_NONE adds nothing.  0, or -1 out of memory. */
static inline int emu_dep_push(emu_depvec *dv, uint32_t step, uint32_t kind)
{
	emu_dep d = { step, kind, 0 };

	if (step == EMU_NONE || emu_depvec_has(dv, step, 0))
		return 0;
	return EMU_PUSH(*dv, d);
}

/* Adds d as kind unless dv holds one on the same (step, node1): one on a
 * node of a launch is kept beside one on the whole launch (the scheduler
 * and the clocks take both).  0, or -1 out of memory. */
static inline int emu_dep_push_dep(emu_depvec *dv, const emu_dep *d, uint32_t kind)
{
	emu_dep x = *d;

	if (!d->node1)
		return emu_dep_push(dv, d->step, kind);
	if (emu_depvec_has(dv, d->step, d->node1))
		return 0;
	x.kind = kind & 0xff;
	return EMU_PUSH(*dv, x);
}

/* Empties dv, keeping its list's memory. */
static inline void emu_depvec_clear(emu_depvec *dv)
{
	dv->n = 0;
	if (dv->idx)
		emu_depvec_unindex(dv);
}

static inline const char *emu_node_name(const emu_graph *g, const emu_node *n)
{
	return g->names.v + n->name;
}
/* Whether n's duration in the last simulation was measured (a replay
 * profile), derived from the capture's times, or the cost model's: the
 * exports say which. */
static inline const char *emu_node_duration_source(const emu_graph *g, const emu_node *n)
{
	if (!g->measured || g->measured[n - g->nodes.v] == UINT64_MAX)
		return "model";
	return g->dur_capture ? "capture" : "measured";
}
/* The cost model's duration of n on o's machine (emu_sched.c). */
uint64_t emu_model_cost(const emu_options *o, const emu_node *n);
/* Fills g->measured from the host observations (emu_captimes.c); 0, or -1
 * out of memory. */
int emu_captimes_fit(emu_graph *g, const emu_options *o);
/* The host observed step s finished by the record (seq, time_ns). */
int emu_obs_add(emu_graph *g, uint64_t seq, uint64_t time_ns, uint32_t s);
/* Every record read, in order, before the builder sees it: its thread's
 * times move on.  0, or -1 out of memory. */
int emu_captimes_record(emu_graph *g, const sbt_record *rec);
/* A step was added by a record of thread: its lower bound on the start
 * (step_entry).  0, or -1 out of memory. */
int emu_captimes_step(emu_graph *g, uint64_t thread);
const char *emu_kind_name(unsigned kind);
unsigned emu_kind_class(unsigned kind);
const char *emu_stream_label(const emu_graph *g, uint32_t s, char *buf, size_t len);

/* Whether step a happens before step b (a < b in index order). */
int emu_step_before(const emu_graph *g, uint32_t a, uint32_t b);

/* The node of step s that ends last in the last simulation (flows leave from it). */
uint32_t emu_step_exit_node(const emu_graph *g, uint32_t s);

/* s as a JSON string, quoted and escaped (emu_export.c). */
void emu_json_str(FILE *f, const char *s);

/* Export lanes (emu_export.c): per node, the lowest lane of its stream
 * free at its start; per stream, its first track id (from 1) and its lane
 * count (0 for a stream that ran nothing). */
typedef struct emu_lanes {
	uint32_t *lane, *track0, *nlanes;
} emu_lanes;
int emu_lanes_build(const emu_graph *g, emu_lanes *l);
void emu_lanes_free(emu_lanes *l);
uint32_t emu_track(const emu_lanes *l, const emu_node *n, uint32_t id);
/* The node a flow for dependency d leaves from: its node, or the node of
 * its step that ends last. */
static inline uint32_t emu_dep_from(const emu_graph *g, const emu_dep *d)
{
	return d->node1 ? g->steps.v[d->step].node_first + d->node1 - 1 : emu_step_exit_node(g, d->step);
}

/* The template (+ 1) of the launch at step s; 0: none (one command). */
static inline uint32_t emu_step_tmpl(const emu_graph *g, uint32_t s)
{
	size_t lo = 0, hi = g->launch_tmpl.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->launch_tmpl.v[mid].step < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->launch_tmpl.n && g->launch_tmpl.v[lo].step == s ? g->launch_tmpl.v[lo].tmpl : 0;
}

/* Node n's own dependencies; NULL: none. */
static inline const emu_xdep *emu_node_xdeps(const emu_graph *g, uint32_t n)
{
	size_t lo = 0, hi = g->xdeps.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->xdeps.v[mid].node < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->xdeps.n && g->xdeps.v[lo].node == n ? &g->xdeps.v[lo] : NULL;
}

/* The node a dependency with node1 set is on (its index in g->nodes). */
static inline uint32_t emu_dep_node(const emu_graph *g, const emu_dep *d)
{
	return g->steps.v[d->step].node_first + d->node1 - 1;
}

/* Emulated time at which the host had reached seq: the start of the first
 * step issued at or after it (the makespan if none). */
uint64_t emu_time_of_seq(const emu_graph *g, uint64_t seq);

#endif /* TRACESMITH_EMU_INTERNAL_H */
