/*
 * tcu_internal.h - the CUDA Driver API interposer's state and helpers
 * (prefix tcu_).  The exported wrappers are generated
 * (generated/tcu_gen.c from scripts/cudagen/gen.py); the calls the compute
 * record model covers are recorded by the hand-written tcu_m_* functions of
 * tcu_model.c and tcu_mem.c; tcu_core.c finds the driver, hands out our
 * wrappers through dlsym and cuGetProcAddress, counts calls and prints the
 * exit report; tcu_track.c keeps the tables recording needs (allocations,
 * functions, events, pending checkpoints) and takes keyframes.
 *
 * Each tcu_m_* function takes one visible path: tcu_call_begin_mode
 * counts the program's call and gives the driver's function and the
 * call's tcu_mode; the call goes to the driver (or, for memory, the
 * address window of tcu_va.c); table upkeep skips TCU_MODE_NESTED calls
 * where a nested call must not count, and records are made only in
 * TCU_MODE_RECORD; every path, the missing-driver one included, leaves
 * through the function's `out:` label, which calls tcu_call_end.
 *
 * State: one struct, tcu_g, set up once by tcu_init (pthread_once).
 * Locking:
 *   - real[] is written by tcu_init before the once completes, and later
 *     only by cuGetProcAddress filling a slot the driver did not export
 *     (atomic store; readers load atomically).
 *   - calls[] and own[] are atomic counters: no lock.
 *   - mu guards the tables (allocations, functions, events, pending
 *     checkpoints, captures, export-table ids, unwrapped names); it is
 *     held only for table operations, never across a driver call.  The
 *     function table and the set of known streams (tcu_lfmap) are written
 *     under mu and read without it, at every launch.
 *   - launch_gate is changed only by atomic read-modify-writes, each of
 *     its own part (see its definition), and read without a lock at every
 *     launch.
 *   - kf_mu serialises keyframes (and owns kf_stream); it is held across
 *     the driver calls of a keyframe, which go to real[] directly and so
 *     never re-enter it.
 */
#ifndef TRACESMITH_TCU_INTERNAL_H
#define TRACESMITH_TCU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "capture/cap.h"
#include "capture/cap_fast.h"
#include "interpose/cuda/generated/tcu_gen.h"
#include "interpose/cuda/tcu_enc.h"
#include "serializer/sbt_compute.h"

#define TCU_ENV_DRIVER "TRACESMITH_CUDA_DRIVER"
#define TCU_DEFAULT_DRIVER "libcuda.so.1"
#define TCU_MAX_EXPORT_TABLES 64
#define TCU_MAX_UNWRAPPED 64
#define TCU_MAX_PARAMS 1024 /* the driver's own limit is far lower */

/* A live allocation (device memory, or host memory the driver knows). */
typedef struct tcu_alloc {
	uint64_t base;
	uint64_t size;
	unsigned kind; /* SBT_CM_MEM_* */
	int recorded;  /* made while recording: replay remakes it from the trace */
} tcu_alloc;

/*
 * A map from a nonzero 64-bit key to a pointer that readers search without
 * a lock (open addressing, linear probing, at most half full).  Writers
 * hold tcu_g.mu.  A slot's key, once set, never changes; its value may be
 * replaced.  Growing publishes a new table and keeps the old ones (readers
 * may still be in them) on a chain that lives as long as the process.
 */
typedef struct tcu_lfslot {
	_Atomic uint64_t key; /* 0: empty */
	void *_Atomic val;
} tcu_lfslot;
typedef struct tcu_lftab {
	unsigned bits; /* 1 << bits slots */
	size_t used;
	struct tcu_lftab *prev;
	tcu_lfslot slot[];
} tcu_lftab;
typedef struct tcu_lfmap {
	tcu_lftab *_Atomic tab;
} tcu_lfmap;

/* A function's parameter layout as the driver gives it, and its encoded
 * layout field (tcu_enc.h).  Immutable once published. */
typedef struct tcu_layout {
	int known;           /* 1, or -1: the driver cannot say */
	uint32_t nparams;
	size_t param_bytes;  /* the end of the furthest parameter */
	tcu_enc_param *pl;   /* nparams entries */
	uint8_t *field;      /* the layout field: tcu_enc_layout */
	size_t field_len;
	tcu_enc_fn enc;      /* what launch records take: the function's head,
	                        this field when known, its kind (raw->fn) */
} tcu_layout;

/*
 * What launches need to know about a function or kernel handle, looked up
 * without a lock at every launch.  Everything but `layout` is fixed when
 * the entry is made (when the handle is obtained); `layout` is asked of
 * the driver at the first launch and published once.  Obtaining the same
 * handle again keeps its entry, unless its name or kind differ or a module
 * was unloaded since (a reloaded module can reuse a handle for another
 * function): then it gets a new entry and the old one is kept on
 * tcu_g.funcs_retired, since a launch may still be reading it.
 */
typedef struct tcu_func {
	uint64_t handle;
	const char *name;   /* NUL-terminated, in this allocation; NULL when unknown */
	size_t name_len;
	int is_kernel;      /* a CUkernel (cuLibraryGetKernel) */
	uint64_t unloads;   /* tcu_g.unloads when it was made */
	const tcu_layout *_Atomic layout; /* NULL until the first launch */
	struct tcu_func *retired_next;
	size_t head_len;
	uint8_t head[];     /* tcu_enc_head(handle, name), then the name */
} tcu_func;

/* A stream capture we saw begin and have not seen end (tcu_capture.c). */
typedef struct tcu_capture {
	uint64_t key;       /* tcu_stream_key; 0: a per-thread default stream */
	pthread_t thread;   /* the thread that began it */
} tcu_capture;

/*
 * tcu_g.launch_gate: what keeps a launch off its quiet path, in one word a
 * launch reads with one load (0: nothing does).  Each part is changed by
 * atomic read-modify-writes of its own bits, by the code that owns it:
 *   bits 0-31   the stream captures we saw begin and have not seen end
 *               (tcu_capture.c, under mu), | TCU_GATE_UNKNOWN once the
 *               driver cannot be trusted to agree with that tracking (a
 *               capture we did not see began);
 *   bits 32-62  live pinned host allocations (tcu_alloc_add and
 *               tcu_alloc_del, under mu): a launch's parameters may point
 *               into them (tcu_host_inputs);
 *   bit 63      TCU_GATE_LOUD, set from the start until tcu_launch_quiet
 *               holds (which lasts), then cleared by it.
 * A count is never taken below 0 (each subtraction undoes an addition made
 * before it under the same lock) nor up to its part's top bit, so no
 * change carries into another part.
 */
#define TCU_GATE_UNKNOWN 0x80000000u
#define TCU_GATE_CAPTURES UINT64_C(0xffffffff)
#define TCU_GATE_HOST_ONE (UINT64_C(1) << 32)
#define TCU_GATE_HOST (UINT64_C(0x7fffffff) << 32)
#define TCU_GATE_LOUD (UINT64_C(1) << 63)

/* The last record of an event: what waiting on it completes. */
typedef struct tcu_event {
	uint64_t stream;
	uint64_t seq; /* a seq taken when it was recorded */
} tcu_event;

/* A per-thread default stream a wait was queued on (tcu_g.ptds_marks):
 * event, created and recorded by the recorder on that stream after each
 * wait, completes once the wait is met. */
typedef struct tcu_ptds_mark {
	struct tcu_ptds_mark *next;
	pthread_t thread;
	uint64_t ctx, event;
} tcu_ptds_mark;

/* An async device->host copy whose checkpoint waits for a synchronization. */
typedef struct tcu_pending {
	uint64_t call_seq;
	uint64_t stream;
	uint64_t object, offset;
	const void *host; /* the program's buffer */
	size_t len;
} tcu_pending;

/* Same-address capture (tcu_va.c; the allocator is capture/cap_va.c's). */
#define TCU_VA_MAX_DEVICES CAP_VA_MAX_DEVICES
typedef struct tcu_va_window {
	int state; /* 0 not tried, 1 reserved, -1 unavailable */
	CUmemAccessDesc access[TCU_VA_MAX_DEVICES]; /* who may use its memory */
	size_t naccess;
} tcu_va_window;
typedef struct tcu_va_state {
	int configured, enabled;
	uint64_t base, size; /* of device 0's window; device n at base + n * size */
	tcu_va_window win[TCU_VA_MAX_DEVICES];
	cap_va *alloc;       /* placement and deferred frees (NULL until the first window) */
	CUevent *idle_events; /* events of finished deferred frees, for reuse */
	size_t nidle, cap_idle;
	_Atomic uint64_t unplaced; /* managed allocations left to the driver */
	atomic_int unplaced_said;
} tcu_va_state;

/* A live CUDA array, for keyframes (tcu_track.c): its extent as the rows
 * a copy reads. */
typedef struct tcu_array {
	uint64_t handle;
	uint64_t row_bytes;     /* width x element size; 0: a format we cannot size */
	uint64_t height, depth; /* at least 1 */
} tcu_array;

typedef struct tcu_state {
	pthread_once_t once;
	atomic_int ready;    /* set after the once has run */
	void *driver;        /* dlopen handle of the real driver; NULL if missing */
	const char *driver_name;
	char driver_error[512];
	void *_Atomic real[TCU_FN_COUNT];
	_Atomic uint64_t calls[TCU_FN_COUNT]; /* made by the program */
	_Atomic uint64_t own[TCU_FN_COUNT];   /* made by the recorder itself */
	atomic_int no_driver_warned;
	/* A stream memory wait (cuStreamWaitValue*, cuStreamBatchMemOp) was
	 * queued: a stream may be held until the program issues its write, so
	 * a keyframe waits for its launch's stream only so long (tcu_track.c);
	 * memop_said: that was said. */
	atomic_int memop_waits, memop_said;
	/* Per-thread default streams a wait was queued on: an event of the
	 * recorder's own recorded after each such wait, one per thread and
	 * context, so that a window's opening can poll another thread's
	 * per-thread stream (tcu_graph.c, tcu_track.c); under mu. */
	struct tcu_ptds_mark *ptds_marks;
	_Atomic uint64_t launches;
	_Atomic uint64_t launch_gate; /* TCU_GATE_*: captures, pinned host memory, loud */
	_Atomic uint64_t images_missing; /* loads that worked, recorded without image */
	_Atomic uint64_t procaddr_fallbacks;

	pthread_mutex_t mu;
	cap_umap allocs;  /* base -> tcu_alloc */
	cap_umap ctxs;    /* contexts the trace saw made (value unused) */
	cap_umap graphs_partial; /* graphs and execs a call changed in a way the model does
	                            not cover (tcu_graph.c) */
	uint64_t ngraphs_partial; /* their number, for the exit report (under mu) */
	cap_umap graph_of_node;   /* node -> the graph built node by node it was added to */
	cap_umap embedded_in;     /* graph embedded in a child graph node (from
	                             cuGraphChildGraphNodeGetGraph) -> the graph holding the node */
	cap_umap hsrc_of_graph;   /* graph -> tcu_hsrc_set: its memcpy nodes reading host memory */
	cap_umap hsrc_of_exec;    /* exec -> tcu_hsrc_set: the same, as instantiated (owned copy) */
	_Atomic uint64_t hsrc_execs; /* entries of hsrc_of_exec: cuGraphLaunch looks only when
	                                some exec has such nodes */
	cap_umap gmem_of_graph;   /* graph -> tcu_gmem_set: graph memory its launches leave
	                             allocated, or free (tcu_graph.c) */
	cap_umap gmem_of_exec;    /* exec -> tcu_gmem_set: the same, as instantiated (owned copy) */
	_Atomic uint64_t gmem_execs; /* entries of gmem_of_exec: cuGraphLaunch looks only when
	                                some exec has such memory */
	tcu_lfmap funcs; /* CUfunction or CUkernel -> tcu_func (lock-free reads) */
	tcu_func *funcs_retired;
	_Atomic uint64_t funcs_gen; /* entries stored in funcs: launches' per-thread
	                               cache of their last entry is good while it holds */
	_Atomic uint64_t unloads; /* successful module and library unloads */
	cap_umap events;  /* CUevent -> tcu_event */
	tcu_array *arrays; /* live CUDA arrays, in creation order */
	size_t narrays, cap_arrays;
	tcu_pending *pending;
	size_t npending, cap_pending;
	uint64_t dropped_pending; /* never synchronized before exit */
	CUuuid export_tables[TCU_MAX_EXPORT_TABLES];
	size_t nexport_tables;
	char *unwrapped[TCU_MAX_UNWRAPPED]; /* cuGetProcAddress names we could not wrap */
	size_t nunwrapped;
	atomic_int layout_warned;

	/* Stream capture (tcu_capture.c): captures we saw begin, under mu;
	 * their number (| TCU_GATE_UNKNOWN) is launch_gate's capture part
	 * (tcu_capture_gate): while it is 0 no stream is capturing and a
	 * launch need not ask the driver. */
	tcu_capture *captures;
	size_t ncaptures, cap_captures;
	atomic_int capture_unseen_said;
	tcu_lfmap streams_known; /* streams asked once: their state is ours to track */

	const cap_config *_Atomic cfg; /* cap_config_get, kept: launches read it */

	pthread_mutex_t va_mu; /* guards va */
	_Atomic uint64_t va_kept; /* stream-ordered frees on capturing streams: kept */
	atomic_int va_ipc_said;
	atomic_int capture_dtoh_said; /* tcu_mem.c: a copy to the host in a capture */
	tcu_va_state va;

	pthread_mutex_t kf_mu;
	CUstream kf_stream;
	/* Keyframe staging (tcu_track.c), under kf_mu: two buffers of
	 * TCU_KF_CHUNK bytes, pinned when the driver gives them, and an event
	 * after each one's copy. */
	void *kf_buf[2];
	int kf_pinned;
	CUevent kf_done[2];
	uint64_t keyframes;
	uint64_t host_snapshots;      /* SBT_CM_KF_HOST_INPUTS keyframes (kf_mu) */
	atomic_int start_keyframe_taken; /* the capture-start keyframe */

	/* Capture windows (tcu_live.c): cap_windowed(), read once (0: not
	 * read yet, 1: no, 2: yes); live is the registry of objects a
	 * window's snapshot recreates, under mu. */
	atomic_int windowed;
	struct tcu_live *live;
} tcu_state;

extern tcu_state tcu_g;

/* ---- tcu_core.c ---------------------------------------------------------- */

void tcu_init(void);
/* What a hooked call does besides passing through to the driver. */
typedef enum tcu_mode {
	TCU_MODE_NESTED,  /* inside another hooked call: pass through only, uncounted */
	TCU_MODE_COUNTED, /* the program's call while recording is off: counted */
	TCU_MODE_RECORD,  /* the program's call while recording: counted and recorded */
} tcu_mode;

/* Count a call of `id` by the program and return the driver's function
 * (NULL when there is no driver).  Pair with tcu_call_end. */
void *tcu_call_begin(tcu_fn id);
/*
 * Per-thread counters of the program's calls and launches: a call adds to
 * its own thread's (a plain load and store), not to a process-wide atomic
 * every thread's calls contend for; the exit report sums them
 * (tcu_calls_total, tcu_launches_total).  A thread's counters are made at
 * its first counted call and kept, listed, for the whole run (a thread
 * that has ended still counts).  Where they cannot be allocated the
 * process-wide counters in tcu_g are used.
 */
typedef struct tcu_counts {
	_Atomic uint64_t calls[TCU_FN_COUNT];
	_Atomic uint64_t launches;
	struct tcu_counts *next;
} tcu_counts;
extern __thread __attribute__((tls_model("initial-exec"))) tcu_counts *tcu_tls_counts;
tcu_counts *tcu_counts_new(void);
uint64_t tcu_calls_total(tcu_fn id);
uint64_t tcu_launches_total(void);

static inline void tcu_count_add(_Atomic uint64_t *c)
{
	/* Only this thread writes it; the report reads it (relaxed). */
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
	                      memory_order_relaxed);
}

/* The thread's counters it counted the call on; NULL where they cannot be
 * made (counted in tcu_g.calls then). */
static inline tcu_counts *tcu_count_call(tcu_fn id)
{
	tcu_counts *c = tcu_tls_counts;
	if (__builtin_expect(!c, 0) && !(c = tcu_counts_new())) {
		atomic_fetch_add_explicit(&tcu_g.calls[id], 1, memory_order_relaxed);
		return NULL;
	}
	tcu_count_add(&c->calls[id]);
	return c;
}

/* Same, and the call's mode in *mode_out, the thread's counters in
 * *counts_out (NULL for a nested call, or as tcu_count_call's); both
 * written always.  Inline: every wrapped call begins here, a launch
 * included (capture/cap_fast.h), which counts itself on those counters
 * too without loading them again (tcu_launch_before). */
static inline void *tcu_call_begin_counts(tcu_fn id, tcu_mode *mode_out, tcu_counts **counts_out)
{
	tcu_counts *c = NULL;
	if (__builtin_expect(!atomic_load_explicit(&tcu_g.ready, memory_order_acquire), 0))
		tcu_init();
	if (cap_enter_inline()) {
		*mode_out = TCU_MODE_NESTED;
	} else {
		c = tcu_count_call(id);
		*mode_out = cap_active_inline() ? TCU_MODE_RECORD : TCU_MODE_COUNTED;
	}
	*counts_out = c;
	return atomic_load_explicit(&tcu_g.real[id], memory_order_acquire);
}
static inline void *tcu_call_begin_mode(tcu_fn id, tcu_mode *mode_out)
{
	tcu_counts *c;
	return tcu_call_begin_counts(id, mode_out, &c);
}
static inline void tcu_call_end(void)
{
	cap_leave_inline();
}
/* Says once that there is no driver; the call's result. */
CUresult tcu_no_driver(tcu_fn id);
/* The driver's function for the recorder's own use (counted in own[]). */
void *tcu_own(tcu_fn id);
/* Record c as `kind`, made through variant id (sets ptds). */
uint64_t tcu_emit(sbt_cm_kind kind, tcu_fn id, sbt_cm_call *c, unsigned flags);
/* Our wrapper for a driver function the program obtained some other way. */
void *tcu_wrap_procaddr(const char *symbol, void *fn, int cuda_version, cuuint64_t flags);
/* Index of an exported name; -1 when we do not export it. */
int tcu_fn_find(const char *name);

/* ---- tcu_model.c --------------------------------------------------------- */

/* A context current on this thread that no kept record made: kept as its
 * device's primary context (sub = 1), for a window's snapshot. */
void tcu_ctx_note_inferred(uint64_t ctx);

/* The fields a launch record of kernel f carries (handle, sub, name,
 * grid, block, shared_mem, layout + params or extra, result), encoded as
 * a launch's are, for a graph's kernel node (tcu_graph.c); malloc'd, NULL
 * when out of memory. */
uint8_t *tcu_kernel_node_encoded(CUfunction f, const unsigned grid[3], const unsigned block[3],
                                 unsigned shared, void **params, void **extra, CUresult r,
                                 size_t *len_out);

/* ---- tcu_graph.c --------------------------------------------------------- */

/* A successful call (r) changed a graph, an exec, or a node's graph in a
 * way the model does not cover: recorded as tsGraphNotModeled naming
 * call, so that replay refuses that work (0 for what the call names
 * none of). */
void tcu_graph_changed(tcu_fn id, tcu_mode mode, CUresult r, uint64_t graph, uint64_t exec,
                       uint64_t node, const char *call);
/* cuStreamBeginCaptureToGraph (r: its result) on stream s into graph g
 * after the ndeps nodes deps (data: their edge data, may be NULL):
 * recorded as a cuStreamBeginCapture record naming g and deps, and kept
 * for windows as a capture is; edge data other than the default is
 * recorded as tsGraphNotModeled instead. */
void tcu_graph_capture_to(tcu_fn id, tcu_mode mode, CUresult r, CUstream s, CUgraph g, const CUgraphNode *deps,
                          const CUgraphEdgeData *data, size_t ndeps, CUstreamCaptureMode m);
/* Host sources of memcpy nodes, which the driver reads at each launch:
 * exec made from graph (its nodes' host sources copied to it), exec
 * destroyed, graph destroyed, and before exec's launch (mode RECORD):
 * one tsGraphHostSource record per such node with the bytes read now. */
void tcu_graph_hsrc_instantiate(uint64_t exec, uint64_t graph);
void tcu_graph_hsrc_exec_destroy(uint64_t exec);
void tcu_graph_hsrc_graph_destroy(uint64_t graph);
void tcu_graph_hsrc_launch(tcu_fn id, uint64_t exec);
/* Graph memory that outlives a launch (an allocation node without a free
 * node in its graph): exec made from graph, exec destroyed, graph
 * destroyed, and after exec's successful launch (in every mode but
 * nested: the memory is then in the allocation table, as device memory of
 * kind SBT_CM_MEM_ASYNC, until cuMemFree(Async) or a free node of another
 * graph frees it, so a window's keyframe holds it).  A window's snapshot
 * calls tcu_graph_gmem_relaunch before its keyframe: one cuGraphLaunch
 * record (null stream) of each kept exec whose memory is live, and a
 * cuCtxSynchronize, so that replay allocates that memory again. */
void tcu_graph_gmem_instantiate(uint64_t exec, uint64_t graph);
void tcu_graph_gmem_exec_destroy(uint64_t exec);
void tcu_graph_gmem_graph_destroy(uint64_t graph);
void tcu_graph_moved_destroy(uint64_t graph);
void tcu_graph_gmem_launch(uint64_t exec);
void tcu_graph_gmem_relaunch(void);

/* ---- tcu_track.c --------------------------------------------------------- */

void tcu_alloc_add(uint64_t base, uint64_t size, unsigned kind);
void tcu_alloc_del(uint64_t base);
/* The buffer an `extra` array points at (CU_LAUNCH_PARAM_BUFFER_*);
 * NULL and 0 unless it names both. */
void tcu_extra_buffer(void **extra, const void **buf_out, size_t *len_out);
/* The allocation containing addr: 1 and its base/kind, or 0. */
int tcu_alloc_find(uint64_t addr, uint64_t *base_out, unsigned *kind_out);
/* 1 when addr lies in device-accessible memory we know (not host). */
int tcu_addr_is_device(uint64_t addr);

/* Lock-free lookup (NULL when absent or key is 0). */
void *tcu_lfmap_get(const tcu_lfmap *m, uint64_t key);
/* With tcu_g.mu held: insert or replace; the old value (NULL when new).
 * -1 in *failed (else 0) when out of memory: the map is unchanged. */
void *tcu_lfmap_put_locked(tcu_lfmap *m, uint64_t key, void *val, int *failed);

/* A function or kernel handle was obtained (name may be NULL). */
void tcu_func_note(uint64_t handle, const char *name, int is_kernel);
/* The entry of a handle, made (nameless) when there is none; NULL for
 * handle 0 or out of memory.  No lock, no allocation once made.  Inline:
 * the entry this thread's last launch found, while tcu_g.funcs_gen says
 * no entry was stored since (a program launches the same few functions
 * over and over); an entry replaced by a store that happens before this
 * call bumped funcs_gen first.  The cache holds an entry only with its
 * layout, once that is published (lay, never NULL then), so that a launch
 * finds the layout it needs in the cache too (tcu_func_launch_layout);
 * its first state (handle 0, gen 0, NULL) is the right answer for handle
 * 0 as well. */
typedef struct tcu_func_cache {
	uint64_t handle, gen;
	tcu_func *f;
	const tcu_layout *lay;
} tcu_func_cache;
extern __thread __attribute__((tls_model("initial-exec"))) tcu_func_cache tcu_tls_func;
tcu_func *tcu_func_get_slow(uint64_t handle);
static inline tcu_func *tcu_func_get(uint64_t handle)
{
	if (handle && handle == tcu_tls_func.handle &&
	    atomic_load_explicit(&tcu_g.funcs_gen, memory_order_relaxed) == tcu_tls_func.gen)
		return tcu_tls_func.f;
	return tcu_func_get_slow(handle);
}
/* Its parameter layout, asked of the driver once (never NULL). */
const tcu_layout *tcu_func_layout_slow(tcu_func *f);
static inline const tcu_layout *tcu_func_layout(tcu_func *f)
{
	const tcu_layout *l = atomic_load_explicit(&f->layout, memory_order_acquire);
	return l ? l : tcu_func_layout_slow(f);
}
/* tcu_func_layout of handle's entry, NULL when tcu_func_get gives none:
 * what a launch needs of the entry, from the cache in the common case
 * (the slow half fills it). */
const tcu_layout *tcu_func_launch_layout_slow(uint64_t handle);
static inline const tcu_layout *tcu_func_launch_layout(uint64_t handle)
{
	if (handle == tcu_tls_func.handle &&
	    atomic_load_explicit(&tcu_g.funcs_gen, memory_order_relaxed) == tcu_tls_func.gen)
		return tcu_tls_func.lay;
	return tcu_func_launch_layout_slow(handle);
}

void tcu_event_note(uint64_t event, uint64_t stream, uint64_t seq);
/* Checkpoint pending async copies the program can now observe:
 * stream = that stream's, all = every one, seq_limit = only calls before. */
/* The same for a checkpoint whose object and offset are given (a copy out
 * of a CUDA array: object 0, offset = the array handle + offset). */
void tcu_pending_add_at(uint64_t call_seq, uint64_t stream, uint64_t object, uint64_t offset,
                        const void *host, size_t len);
/* A CUDA array was made (d: its descriptor) / destroyed: full keyframes
 * hold the live ones. */
void tcu_array_add(uint64_t handle, const CUDA_ARRAY3D_DESCRIPTOR *d);
void tcu_array_drop(uint64_t handle);
void tcu_pending_add(uint64_t call_seq, uint64_t stream, uint64_t src, const void *host,
                     size_t len);
void tcu_pending_flush_stream(uint64_t stream, uint64_t seq_limit);
void tcu_pending_flush_all(void);
void tcu_pending_flush_event(uint64_t event);
/* At exit: forget (and count) what was never synchronized. */
void tcu_pending_drop_all(void);
/* A window opens: forget what an earlier window left pending (the
 * program may have synchronized it since, unrecorded; its checkpoint
 * belongs to no file now).  Not counted. */
void tcu_pending_forget(void);
/* Checkpoint a device->host result now. */
void tcu_checkpoint_dtoh(uint64_t call_seq, uint64_t src, const void *host, size_t len);

/* The keyframe at the start of a window: every live device allocation,
 * after the context's work (unless a stream capture is going on, or,
 * once a stream memory wait was queued, one of streams (borrowed: the
 * live streams, nstreams of them) or the legacy stream is still busy
 * after TCU_KF_MEMOP_WAIT_NS: tcu_track.c). */
void tcu_keyframe_window(const uint64_t *streams, size_t nstreams);
/* After a wait queued on a per-thread default stream (tcu_graph.c): the
 * thread's mark recorded there; tcu_ptds_marks_busy: how many marks are
 * not complete, the first one's thread in *thread_out. */
void tcu_ptds_wait_mark(int ptds_variant);
size_t tcu_ptds_marks_busy(pthread_t *thread_out);

/* Launch bookkeeping: keyframes before and after, per TRACESMITH_SNAPSHOT,
 * and whether the stream is capturing.  Inline, the launch that needs
 * neither a keyframe nor a question to the driver (tcu_g.launch_gate 0,
 * tcu_stream_known_inline): one counter and a few loads. */
uint64_t tcu_launch_before_slow(uint64_t ordinal, CUfunction f, void **params, void **extra,
                                CUstream stream, int ptds, int *capturing_out,
                                uint64_t *capture_id_out);
void tcu_launch_after_slow(uint64_t ordinal, CUstream stream, int ptds);

/* launch_gate's capture part (tcu_capture.c): 0 while no stream capture
 * we saw begin is going on and our tracking is trusted. */
static inline unsigned tcu_capture_gate(void)
{
	return (unsigned)(atomic_load_explicit(&tcu_g.launch_gate, memory_order_acquire) &
	                  TCU_GATE_CAPTURES);
}
/* Some pinned host memory is live (launch_gate's host part). */
static inline int tcu_host_live(void)
{
	return (atomic_load_explicit(&tcu_g.launch_gate, memory_order_relaxed) & TCU_GATE_HOST) != 0;
}

/* No keyframe around a launch: the capture-start one is taken and the
 * policy takes none per launch.  Both last (the configuration is read
 * once), so once it holds TCU_GATE_LOUD is cleared for good. */
static inline int tcu_launch_quiet(void)
{
	const cap_config *cfg;
	if (__builtin_expect(
	        !(atomic_load_explicit(&tcu_g.launch_gate, memory_order_relaxed) & TCU_GATE_LOUD), 1))
		return 1;
	cfg = atomic_load_explicit(&tcu_g.cfg, memory_order_acquire);
	if (!atomic_load_explicit(&tcu_g.start_keyframe_taken, memory_order_relaxed) || !cfg ||
	    cfg->snapshot != CAP_SNAPSHOT_NONE)
		return 0;
	atomic_fetch_and_explicit(&tcu_g.launch_gate, ~TCU_GATE_LOUD, memory_order_relaxed);
	return 1;
}

/*
 * The stream is known (tcu_capture.c: asked about once; streams never
 * become unknown), without working out its key: this thread found the
 * same handle through the same kind of variant known last time
 * (tcu_tls_known_stream holds its tcu_stream_tag), or it is this thread's
 * per-thread default stream, asked about once.  A tag is the handle, with
 * the top bit set for a per-thread variant (NULL names another stream
 * there); no handle has that bit, and the first value matches none.
 */
#define TCU_STREAM_TAG_PTDS (UINT64_C(1) << 63)
#define TCU_STREAM_TAG_NONE UINT64_MAX
static inline uint64_t tcu_stream_tag(CUstream s, int ptds)
{
	return (uint64_t)(uintptr_t)s | (ptds ? TCU_STREAM_TAG_PTDS : 0);
}
extern __thread __attribute__((tls_model("initial-exec"))) uint64_t tcu_tls_known_stream;
extern __thread __attribute__((tls_model("initial-exec"))) int tcu_tls_pt_known;
static inline int tcu_stream_known_inline(CUstream s, int ptds)
{
	uintptr_t h = (uintptr_t)s;
	if (__builtin_expect(tcu_stream_tag(s, ptds) == tcu_tls_known_stream, 1))
		return 1;
	return (h == (uintptr_t)CU_STREAM_PER_THREAD || (!h && ptds)) && tcu_tls_pt_known;
}

/* Before a launch of f with params or extra on stream: its ordinal, and
 * whether the stream is capturing; takes the keyframes the policy asks
 * for, and the snapshot of pinned host memory the parameters point into
 * while any is live (tcu_host_inputs).  c: the thread's counters, from
 * tcu_call_begin_counts (NULL: the slow path). */
static inline __attribute__((always_inline)) uint64_t
tcu_launch_before(tcu_counts *c, CUfunction f, void **params, void **extra, CUstream stream,
                  int ptds, int *capturing_out, uint64_t *capture_id_out)
{
	uint64_t gate = atomic_load_explicit(&tcu_g.launch_gate, memory_order_acquire);
	uint64_t ordinal;
	/* Only TCU_GATE_LOUD: see whether it can go now (once). */
	if (__builtin_expect(gate != 0, 0) && gate == TCU_GATE_LOUD && tcu_launch_quiet())
		gate = 0;
	/* A launch that needs no keyframe is counted on its thread; one that
	 * may take one gets its ordinal from every thread's count. */
	if (__builtin_expect(c && !gate && tcu_stream_known_inline(stream, ptds), 1)) {
		tcu_count_add(&c->launches);
		*capturing_out = 0;
		*capture_id_out = 0;
		return 0;
	}
	atomic_fetch_add_explicit(&tcu_g.launches, 1, memory_order_relaxed);
	ordinal = tcu_launches_total();
	return tcu_launch_before_slow(ordinal, f, params, extra, stream, ptds, capturing_out,
	                              capture_id_out);
}

static inline void tcu_launch_after(uint64_t ordinal, CUstream stream, int ptds, int capturing)
{
	if (capturing || tcu_launch_quiet())
		return;
	tcu_launch_after_slow(ordinal, stream, ptds);
}

/* ---- tcu_mem.c ---------------------------------------------------------- */

/* The copy fields of a record of the 3D copy p (cuMemcpy3D's); a host
 * source's packed rows in *packed_out (malloc'd, or NULL), their length in
 * *bytes_out. */
void tcu_copy3d_node_fill(const CUDA_MEMCPY3D *p, CUresult r, sbt_cm_call *c, uint8_t **packed_out,
                          size_t *bytes_out);
/* A memset's fields in c (a memset call's record and a memset node's). */
void tcu_memset_fields(sbt_cm_call *c, CUdeviceptr dst, size_t pitch, uint64_t value, unsigned elem,
                       size_t width, size_t height);

/* ---- tcu_va.c ------------------------------------------------------------ */

/* Place size bytes in the current device's window (reserve_only: a range
 * for the program's own cuMemAddressReserve, left unmapped; align applies
 * to those).  CUDA_ERROR_NOT_SUPPORTED when there is no window: the caller
 * asks the driver instead. */
CUresult tcu_va_alloc(size_t size, int reserve_only, size_t align, uint64_t *out);
/* Free what tcu_va_alloc placed at addr (of the same kind);
 * CUDA_ERROR_NOT_SUPPORTED when addr is not ours. */
CUresult tcu_va_release(uint64_t addr, int reserve_only);
/* A stream-ordered free of placed memory on stream s: the memory is
 * released once the stream has reached the free (an event recorded on it
 * now, polled at later allocations and frees), never before.  0, or the
 * driver's error. */
CUresult tcu_va_release_async(uint64_t addr, CUstream s);
/* The placed block containing addr: 1 and its base and size, or 0. */
int tcu_va_lookup(uint64_t addr, uint64_t *base_out, uint64_t *size_out);
/* Device's reserved window: 1 and its base and size, or 0 (va_mu held). */
int tcu_va_window_range(int device, uint64_t *base_out, uint64_t *size_out);
/* Memory left at a driver address (managed memory): counted, said once. */
void tcu_va_note_unplaced(const char *what);

/* ---- tcu_live.c ---------------------------------------------------------- */

/*
 * What a window's snapshot recreates (docs/cuda.md "Capture windows").
 * While windowed, every call that makes a live object the replay of
 * a window needs (context, module or library with its image, function,
 * kernel, global, function attribute, stream, event, allocation, VMM
 * handle, reservation, mapping, access, CUDA array, texture or surface
 * object) is kept as the record that makes
 * it, in creation order, keyed by class and handle; the calls that end it
 * drop it (and what depends on it).  Nothing is kept when not tracking.
 */
typedef enum tcu_live_class {
	TCU_LIVE_CTX,
	TCU_LIVE_MODULE,  /* modules and libraries */
	TCU_LIVE_FUNC,    /* functions and kernels */
	TCU_LIVE_GLOBAL,
	TCU_LIVE_ATTR,    /* function and kernel attributes */
	TCU_LIVE_STREAM,
	TCU_LIVE_EVENT,
	TCU_LIVE_MEM,     /* allocations, by address */
	TCU_LIVE_VMM_HANDLE,
	TCU_LIVE_VMM_RESERVE,
	TCU_LIVE_VMM_MAP,
	TCU_LIVE_VMM_ACCESS,
	TCU_LIVE_ARRAY,   /* CUDA arrays */
	TCU_LIVE_TEXOBJ,  /* texture and surface objects (after the arrays they name) */
	TCU_LIVE_CAPTURE, /* a stream capture's records, by serial; parent: its graph */
	TCU_LIVE_EXEC,    /* cuGraphInstantiate of a captured graph, by exec; parent: the graph */
	TCU_LIVE_CLASSES
} tcu_live_class;

/* tcu_live_add's parent for an object that belongs to the context
 * current when it is made (dropped when that context is destroyed). */
#define TCU_LIVE_IN_CTX UINT64_MAX

/* 1 when TRACESMITH_TRIGGER names a trigger; the live state is kept then
 * (tcu_tracking, the same). */
int tcu_windowed(void);
int tcu_tracking(void);
/* Register the snapshot (once, from tcu_init). */
void tcu_live_init(void);
/* Keep c (a successful call of `kind` through variant id) as what makes
 * object key of class cls; parent: the object it belongs to (dropped with
 * it), 0 for none.  image/prelinked: a module's image bytes, copied
 * (c->blob and c->prelinked are rewritten at each snapshot). */
void tcu_live_add(tcu_live_class cls, uint64_t key, uint64_t parent, sbt_cm_kind kind, tcu_fn id,
                  const sbt_cm_call *c, const void *image, size_t image_len,
                  const void *const *prelinked, const size_t *prelinked_len, size_t nprelinked);
/* The object ended: drop it and everything whose parent it is. */
void tcu_live_drop(tcu_live_class cls, uint64_t key);
/* A primary context retained again / released (device's). */
void tcu_live_primary_release(int device, int reset);
int tcu_live_has(tcu_live_class cls, uint64_t key);
/* cuMemRelease of a VMM handle: dropped at once when nothing maps it,
 * else when its last mapping goes (replay needs it to map). */
void tcu_live_vmm_release(uint64_t handle);
/* A mapping went (cuMemUnmap): its access goes, and its handle when the
 * program released it. */
void tcu_live_vmm_unmap(uint64_t addr);
/*
 * Stream captures made outside a window (windowed capture only): the
 * records from cuStreamBeginCapture to cuStreamEndCapture and the
 * instantiations of the graph are kept until the graph and its execs are
 * destroyed.  tcu_live_captured: mode is COUNTED, some capture is going
 * on, and s captures (tcu_capture_query; its capture id in *cid).
 * tcu_live_capture_call keeps a record of a call on such a stream (host,
 * n: the bytes of a copy from the host, kept as its blob);
 * tcu_live_capture_encoded one already encoded (a launch).
 */
int tcu_live_captured(tcu_mode mode, CUstream s, int ptds, uint64_t *cid);
void tcu_live_capture_begin(tcu_fn id, const sbt_cm_call *c);
void tcu_live_capture_call(sbt_cm_kind k, tcu_fn id, const sbt_cm_call *c, const void *host,
                           size_t n);
void tcu_live_capture_encoded(sbt_cm_kind k, tcu_fn id, uint64_t stream, const uint8_t *p,
                              size_t len);
/* cuStreamEndCapture (c: stream, result, graph): the stream's records now
 * belong to the graph, or go when it failed. */
void tcu_live_capture_end(tcu_fn id, const sbt_cm_call *c);
/* cuGraphInstantiate (c: exec in handle, graph in parent): kept when the
 * graph is one of the kept captures. */
void tcu_live_graph_exec(tcu_fn id, const sbt_cm_call *c);
void tcu_live_graph_exec_destroy(uint64_t exec);
void tcu_live_graph_destroy(uint64_t graph);
/* An event was recorded on stream (outside a stream capture; ptds: by a
 * per-thread variant): the snapshot records it again after its keyframe,
 * on that stream while it lives. */
void tcu_live_event_recorded(uint64_t event, uint64_t stream, int ptds);
/* Graphs built node by node (tcu_graph.c): cuGraphCreate (graph = the
 * new graph) and every call that builds one (graph = the graph) are kept
 * as that graph's records, as a stream capture's are, from a graph made
 * while tracking; host: a memcpy node's host bytes, kept as its blob. */
void tcu_live_graph_call(sbt_cm_kind k, tcu_fn id, uint64_t graph, const sbt_cm_call *c,
                         const void *host, size_t n);
/* A kernel node's parameters set (c->parent: the graph exec, 0 for the
 * graph's own node): kept with the node's graph. */
void tcu_live_graph_set_params(sbt_cm_kind k, tcu_fn id, const sbt_cm_call *c, const void *host,
                               size_t n);
/* A successful cuGraphExecUpdate (c: exec in handle, graph in parent):
 * kept with the exec while both are kept, the graph's records with it. */
void tcu_live_graph_exec_update(tcu_fn id, const sbt_cm_call *c);
/* A launch: before it is recorded, and after; *mode is made RECORD when a
 * window opened for it.  Returns 1 when unit_end must follow.  Inline: a
 * launch without a trigger pays one load and two tests. */
int tcu_launch_unit_begin_windowed(tcu_mode *mode);
static inline int tcu_launch_unit_begin(tcu_mode *mode)
{
	if (*mode == TCU_MODE_NESTED ||
	    atomic_load_explicit(&tcu_g.windowed, memory_order_relaxed) == 1)
		return 0;
	return tcu_launch_unit_begin_windowed(mode);
}
static inline void tcu_launch_unit_end(int begun)
{
	if (begun)
		cap_unit_end(CAP_UNIT_LAUNCH);
}

/* ---- tcu_capture.c ------------------------------------------------------- */

/* Around a call that begins a capture on s (any mode, recording or not):
 * before it, and after it with its result. */
void tcu_capture_begin_pre(CUstream s, int ptds);
void tcu_capture_begin_post(CUstream s, int ptds, CUresult r);
/* After cuStreamEndCapture on s returned r. */
void tcu_capture_end(CUstream s, int ptds, CUresult r);
/* A launch on s: 1 and the driver's status and capture id when s is
 * capturing, else 0 (and zeros).  Asks the driver only while a capture is
 * going on, or the first time s is seen. */
int tcu_capture_query(CUstream s, int ptds, int *status_out, uint64_t *id_out);

#endif /* TRACESMITH_TCU_INTERNAL_H */
