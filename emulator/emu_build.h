/*
 * emu_build.h - the graph builder's state and the helpers its per-call
 * handlers (emu_calls.c) share with the pass (emu_graph.c).  Internal to
 * the emulator.
 */
#ifndef TRACESMITH_EMU_BUILD_H
#define TRACESMITH_EMU_BUILD_H

#include "emulator/emu_internal.h"
#include "serializer/sbt_compute.h"
#include "serializer/sbt_mem.h"

#define EMU_STREAM_LEGACY_HANDLE 0x1u
#define EMU_STREAM_PER_THREAD_HANDLE 0x2u
/* HIP has no contexts: hipSetDevice(d) makes this stand-in current. */
#define EMU_HIP_DEVICE_CTX(d) (0x4849500000000000ull | (uint64_t)(uint32_t)(d))

/* ---- the builder's state ------------------------------------------------ */

typedef EMU_VEC(uint32_t) emu_u32vec;

typedef struct emu_bstream {
	uint32_t last;          /* last step, EMU_NONE */
	emu_depvec pending;     /* event waits for its next step */
	uint32_t legacy_seen;   /* (blocking streams) the legacy stream's step it waits for */
	uint32_t legacy_synced; /* the step of this stream the legacy stream already waits for */
	uint32_t capture;       /* capture it belongs to, EMU_NONE */
	emu_u32vec cap_front;   /* inside a capture: the template nodes its next node follows */
	EMU_VEC(uint64_t) host_seen; /* pairs: thread, how many of its syncs are taken */
	uint8_t live;
	/* Held by a stream memory wait no write-value operation recorded so
	 * far satisfies (emu_calls.c): the record holding it and every later
	 * one issuing work on this stream are kept (copies) until a write
	 * satisfies it, then read again in order. */
	uint8_t held;
	uint64_t hold_addr, hold_value; /* the wait that holds it */
	uint32_t hold_flags;
	uint8_t hold_wide;
	EMU_VEC(sbt_record) kept;      /* payloads owned */
} emu_bstream;

/* The last value a write-value operation wrote at an address (4 or 8
 * bytes), and what wrote it. */
typedef struct emu_wval {
	uint64_t addr, value;
	emu_dep dep;               /* the step (a graph launch's: its node) that wrote it */
	uint8_t wide;
} emu_wval;

typedef struct emu_bthread {
	uint64_t thread;
	emu_depvec syncs;       /* what the thread synchronized with, in order (kind unused) */
	EMU_VEC(uint64_t) ctx;  /* its context stack; the last is current */
} emu_bthread;

typedef struct emu_bctx {
	uint64_t ctx;
	int64_t device;
} emu_bctx;

typedef struct emu_bevent {
	uint64_t handle;
	emu_depvec deps;        /* what a wait on it waits for (kind unused) */
	uint32_t capture;       /* recorded inside this capture (EMU_NONE: not) */
	emu_u32vec cap_nodes;   /* then: the template nodes */
} emu_bevent;

/* An event node of a template: its event and, for a record node, what it
 * follows (after[first..+count) the work nodes, after_ev[efirst..+ecount)
 * the events of the wait nodes before it through ordering nodes only);
 * for an xwaits entry, the work node (node) waiting for event. */
typedef struct emu_tevent {
	uint64_t event;
	uint32_t node;
	uint32_t first, count, efirst, ecount;
} emu_tevent;

/* A graph's nodes as templates: a graph built by stream capture, or the
 * snapshot a cuGraphInstantiate took of a graph built node by node (then
 * one per exec, in dependency order, with the node handles the exec's
 * setters name and the events its event nodes record and wait for). */
typedef struct emu_capture {
	uint64_t graph;         /* handle from cuStreamEndCapture, 0 while open (or changed since) */
	EMU_VEC(emu_node) nodes;
	EMU_VEC(uint32_t) ipreds;
	emu_accvec acc;
	EMU_VEC(uint64_t) handles;  /* node-built: per template node, its node handle */
	EMU_VEC(emu_tevent) records; /* node-built: event record nodes */
	EMU_VEC(emu_tevent) waits;   /* node-built: event wait nodes */
	EMU_VEC(emu_tevent) xwaits;  /* node-built: (work node, event) per event wait
	                                node a work node follows through ordering nodes only */
	emu_u32vec after;            /* the work nodes records follow */
	EMU_VEC(uint64_t) after_ev;  /* the events waited for before records */
	emu_u32vec gmem;             /* its graph memory (EMU_GA_NODE allocs): each launch allocates it */
	uint64_t into;               /* cuStreamBeginCaptureToGraph: the graph its nodes join (0: none) */
	emu_u32vec into_deps;        /* then: the nodes of that graph its first nodes follow */
} emu_capture;

/* What a node of a graph built node by node does. */
enum { EMU_GN_WORK, EMU_GN_EMPTY, EMU_GN_RECORD, EMU_GN_WAIT };

/* A node made by cuGraphAdd*Node: work (its template) or an ordering node. */
typedef struct emu_gnode {
	uint64_t handle;
	uint64_t event;         /* EMU_GN_RECORD, EMU_GN_WAIT: the event */
	uint64_t orig;          /* a clone's copy: the original's handle, until
	                           cuGraphNodeFindInClone names it (handle 0 till then) */
	uint8_t what;
	uint8_t live;           /* 0 after cuGraphDestroyNode */
	uint8_t child;          /* the entry or exit of a child graph node's copy */
	uint8_t off;            /* an exec's copy: disabled (cuGraphNodeSetEnabled), an empty node */
	uint8_t inner;          /* added through an embedded graph (emu_inner_call) */
	emu_node n;             /* EMU_GN_WORK: accesses in the graph's acc, node = its index */
} emu_gnode;

typedef struct emu_gedge {
	uint32_t from, to;      /* indices in emu_ngraph.nodes */
} emu_gedge;

/* A graph made by cuGraphCreate, as its calls have built it so far. */
typedef struct emu_ngraph {
	uint64_t handle;        /* 0 once destroyed */
	uint8_t not_modeled;    /* a tsGraphNotModeled change: its launches are one command */
	EMU_VEC(emu_gnode) nodes;
	EMU_VEC(emu_gedge) edges;
	emu_accvec acc;
	emu_u32vec gmem;         /* its allocation nodes' EMU_GA_NODE allocs */
} emu_ngraph;

/* cuGraphChildGraphNodeGetGraph: the graph embedded in a child graph
 * node, whose node calls change that node's copy in the graph holding it. */
typedef struct emu_inner {
	uint64_t handle;        /* the embedded graph */
	uint64_t graph;         /* the graph holding the child node */
	uint64_t node;          /* the child node */
} emu_inner;

typedef struct emu_exec {
	uint64_t handle;
	uint32_t capture;       /* EMU_NONE: its launches are one command */
	uint32_t src;           /* built node by node: its own copy of the graph
	                           (b->ngraphs index), which its setters change */
	uint8_t dirty;          /* the copy changed: its next launch snapshots it again */
} emu_exec;

typedef struct emu_snap {
	uint64_t dst, size, blob;
	int zero;
} emu_snap;

typedef struct emu_kf {
	uint64_t ordinal;
	uint32_t sub, flags;
	uint8_t unwaited;       /* the recorder's note: taken with the stream still busy */
	uint32_t snap_first, snap_count;
} emu_kf;

/* A launch name already in the arena: the function handle it came with. */
typedef struct emu_kname {
	uint64_t handle;
	size_t len;
	uint32_t off;           /* EMU_NONE: empty */
} emu_kname;

#define EMU_KNAMES 256u        /* entries of the cache (a power of two) */

/* The stream emu_stream_of found for a handle, while no stream was made. */
typedef struct emu_scache {
	uint64_t handle;
	uint32_t stream;
	uint32_t gen;           /* b->stream_gen when found */
} emu_scache;

#define EMU_SCACHE 64u         /* entries of the cache (a power of two) */

typedef struct emu_builder {
	emu_graph *g;
	const sbt_record *rec;
	char *err;
	size_t errlen;
	int16_t *kind_of;          /* record type -> sbt_cm_kind, -1 */
	int16_t *hip_of;           /* record type -> sbt_cm_hip_call of a hip.* type, -1 */
	uint32_t ntypes;
	int hip;                   /* the record being read: its sbt_cm_hip_call, -1 for cuda.* */
	EMU_VEC(emu_bstream) bs;   /* parallel to g->streams */
	EMU_VEC(emu_bthread) threads;
	EMU_VEC(emu_bctx) ctxs;    /* context -> device */
	EMU_VEC(emu_bevent) events;
	EMU_VEC(emu_capture) caps;
	EMU_VEC(emu_ngraph) ngraphs; /* graphs built node by node */
	EMU_VEC(emu_exec) execs;
	EMU_VEC(emu_inner) inners; /* embedded graphs named so far */
	EMU_VEC(uint32_t) live;    /* live allocations, sorted by base */
	EMU_VEC(uint32_t) launches; /* node (or EMU_NONE) of each launch ordinal - 1 */
	EMU_VEC(uint64_t) launch_seqs; /* the record of each: a slot is taken when the
	                                  record is first read, so a launch a memory
	                                  wait held keeps its ordinal */
	EMU_VEC(emu_kf) kfs;
	EMU_VEC(emu_snap) snaps;
	sbt_mem mem;               /* memory in use (g->mem is made from it: emu_mem_counter) */
	uint64_t kf_left;          /* snapshots the open keyframe still expects */
	emu_depvec tmp;
	size_t thread_last;        /* threads.v index emu_thread_of found last */
	emu_scache scache[EMU_SCACHE]; /* streams by handle (emu_stream_of) */
	uint32_t stream_gen;       /* streams made so far + 1: a cache entry of another is stale */
	emu_kname knames[EMU_KNAMES]; /* launch names by function handle (emu_kernel_name) */
	EMU_VEC(emu_wval) wvals;   /* stream memory writes: the last value per address */
	EMU_VEC(uint8_t) mops;     /* memory operations of commands and graph nodes (emu_node.mop_off) */
	uint32_t nheld;            /* streams held by a memory wait */
	uint64_t force_seq;        /* the kept record read with its unmet waits passed over */
	int again;                 /* a kept record is being read again */
} emu_builder;

/* ---- helpers (emu_graph.c); 0 / an index, or -1 / EMU_NONE when out of memory */

/* Copy a name into the graph's arena; its offset. */
uint32_t emu_name_put(emu_graph *g, const void *s, size_t len);
/* A new stream (flags, seen created or not). */
uint32_t emu_stream_new(emu_builder *b, uint64_t handle, uint32_t flags, int created);
/* The stream a call names: the legacy one for 0 (unless per-thread) and
 * CU_STREAM_LEGACY, the thread's own for CU_STREAM_PER_THREAD and 0 with
 * ptds, else the live stream of that handle (made on first sight). */
uint32_t emu_stream_of(emu_builder *b, uint64_t handle, int ptds, uint64_t thread);
/* The host thread's state (made on first sight). */
emu_bthread *emu_thread_of(emu_builder *b, uint64_t thread);
/* The event of that handle; made when make is set, else NULL if unknown. */
emu_bevent *emu_event_of(emu_builder *b, uint64_t handle, int make);
/* The host thread has waited for step s; for d (all of a step or a node of it). */
int emu_host_sync(emu_builder *b, uint64_t thread, uint32_t s);
int emu_host_sync_dep(emu_builder *b, uint64_t thread, const emu_dep *d);
/* ... for everything issued so far. */
int emu_host_sync_all(emu_builder *b, uint64_t thread);
/* Index in g->allocs of the live allocation holding addr, or 0. */
uint32_t emu_alloc_find(const emu_builder *b, uint64_t addr);
/* A live allocation from now on. */
int emu_alloc_add(emu_builder *b, uint64_t base, uint64_t size, int host, uint64_t seq,
                  uint32_t stack_id);
/* The allocation at exactly base (if any) ends at seq; with nodes, the
 * address range of graph memory too (else it stays: emu_alloc.graph). */
void emu_alloc_end(emu_builder *b, uint64_t base, uint64_t seq, int nodes);
/* The allocation just added is graph memory's address range: added to
 * *gmem (the graph's or the capture's list).  0, -1 out of memory. */
int emu_alloc_graph_node(emu_builder *b, emu_u32vec *gmem);
/* The exports' memory counter (g->mem) from what m accounted for. */
emu_status emu_mem_counter(emu_graph *g, const sbt_mem *m);
/* A device command issued on stream s: a step of one node; the node. */
uint32_t emu_command(emu_builder *b, uint32_t s, sbt_cm_kind k, const sbt_cm_call *c, unsigned kind,
                     uint32_t name);
/* A command recorded while stream s captures: a node of the capture. */
int emu_capture_node(emu_builder *b, uint32_t s, sbt_cm_kind k, const sbt_cm_call *c, uint32_t name);
/* The template of a graph node: a cuGraphAddKernelNode (or a kernel node
 * setter), cuGraphAddMemcpyNode or cuGraphAddMemsetNode record's command,
 * its accesses appended to acc with node = idx. */
int emu_graph_node_fill(emu_builder *b, sbt_cm_kind k, const sbt_cm_call *c, emu_accvec *acc, uint32_t idx,
                        emu_node *n);
/* cuGraphInstantiate of a graph built node by node: a new template of its
 * live work nodes in dependency order (ordering nodes become edges between
 * the work around them); its index in b->caps, EMU_NONE when the graph
 * has a cycle (then -1 in *rc only when out of memory). */
uint32_t emu_ngraph_snapshot(emu_builder *b, const emu_ngraph *ng, int *rc);
/* cuGraphLaunch: the graph's nodes (captured or snapshot) as one step, else one node. */
int emu_graph_launch(emu_builder *b, uint32_t s, const sbt_cm_call *c);
/* The launch's kernel name (or its function handle) in the arena. */
uint32_t emu_kernel_name(emu_builder *b, const sbt_cm_call *c);

/* Reads one record into the builder (emu_calls.c). */
emu_status emu_record(emu_builder *b, const sbt_record *rec);
/* At the end of the trace: the streams still held by a memory wait no
 * write satisfied are reported (g->unmet_waits) and their kept records
 * read, the wait ordering nothing (emu_calls.c). */
emu_status emu_memop_finish(emu_builder *b);
/* Whether k is a stream memory operation's record or a batch memory-op
 * node's (its params: the operations, 48 bytes each). */
int emu_memop_kind(sbt_cm_kind k);
/* A graph launch on stream s of template cap (tmpl): whether a memory
 * wait of its nodes is met by no write-value operation of the launch before
 * it nor recorded so far: then the stream is held (the launch record kept:
 * 1); 0 to go on; -1 out of memory (emu_calls.c). */
int emu_launch_memop_hold(emu_builder *b, uint32_t s, const emu_capture *cap);
/* After the launch at step (nodes from base) of cap: each memory wait
 * node's dependency on the write that meets it (an earlier node of the
 * launch: an internal predecessor added to ipreds of that node, else
 * xdeps), for node i (n, being made: ipreds appended) into *deps (kind
 * EMU_D_VALUE); then its writes
 * are the last values of their words (emu_calls.c).  Called per node, in
 * order: emu_launch_memop_node, then emu_launch_memop_done. */
int emu_launch_memop_node(emu_builder *b, const emu_capture *cap, uint32_t i, uint32_t base, emu_node *n,
                          emu_depvec *deps);
int emu_launch_memop_done(emu_builder *b, const emu_capture *cap, uint32_t step, uint32_t tmpl, uint32_t base);
/* The vector clock column of template node tnode in the launches of
 * template tmpl on stream s (made on first use); EMU_NONE out of memory. */
uint32_t emu_col_of(emu_graph *g, uint32_t s, uint32_t tmpl, uint32_t tnode);
/* Streams held by a memory wait that the writes of step (just made) meet
 * go on: their kept records are read again (emu_calls.c). */
int emu_memop_wake(emu_builder *b, uint32_t step);

#endif /* TRACESMITH_EMU_BUILD_H */
