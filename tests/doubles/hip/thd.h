/*
 * thd.h - internals of the libamdhip64.so.5 CPU test double (prefix thd_).
 *
 * The double exists so that the HIP interposer and the HIP replay backend
 * run end to end without an AMD GPU (docs/hip.md "The test double").  It
 * is a test double, not a runtime or a simulator: everything it prints
 * starts "libamdhip64 test double:".  It follows ROCm's clr/hipamd where
 * the project depends on it:
 *   - registration: __hipRegisterFatBinary takes the 24-byte wrapper
 *     (magic 0x48495046, version 1, pointer to a clang offload bundle) and
 *     returns the handle the program passes to __hipRegisterFunction and
 *     __hipRegisterVar; functions are looked up by their host stub;
 *   - modules: hipModuleLoadData and friends take a bundle or a bare
 *     AMDGPU code object, sized from its own header (no length is
 *     passed); the code object for the double's device (gfx90a, else the
 *     first amdgcn entry) is read with serializer/amdgpu's reader: the
 *     kernels and their argument layout from the metadata note, the
 *     globals from the ELF symbol table (initial bytes from their
 *     section);
 *   - launches: hipLaunchKernel's argument pointers are packed into the
 *     kernarg segment by the metadata's offsets and sizes, as the runtime
 *     does; hipModuleLaunchKernel takes kernelParams or extra
 *     (HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE); the kernel runs as its host
 *     twin (thd_twins.c) under a fault guard, so a wild access is
 *     hipErrorIllegalAddress; a kernel with no twin runs nothing and is
 *     named once on stderr (counted: thd_ext.h).
 * Device memory is host memory from mmap (page aligned, so the virtual
 * memory calls can reserve a caller's address with MAP_FIXED_NOREPLACE).
 * Work on created streams is queued and run in a seeded order that keeps
 * only what the program orders (stream order, event waits, the null
 * stream, synchronizations): see thd_sched.c below.
 *
 * Locking: one mutex (thd_g.lock) guards the registries; kernels, copies
 * and memsets run without it.  Objects are never freed while the process
 * lives: a destroyed handle keeps its memory with a dead magic, so a stale
 * handle is reported as hipErrorInvalidHandle, not followed.
 */
#ifndef THD_H
#define THD_H

#include <hip/hip_runtime_api.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "serializer/amdgpu/sbt_amd.h"
#include "tests/doubles/hip/thd_ext.h"

#define THD_HIDDEN __attribute__((visibility("hidden")))
#define THD_EXPORT __attribute__((visibility("default")))

#define THD_LIVE 0x7468644cu /* "thdL" */
#define THD_DEAD 0x74686444u

/* ---- memory ------------------------------------------------------------- */

typedef enum thd_mem_kind {
	THD_MEM_DEVICE = 1, /* hipMalloc */
	THD_MEM_GLOBAL,     /* a module's global variable */
	THD_MEM_MAPPED,     /* hipMemMap into a reservation */
	THD_MEM_ARRAY       /* a HIP array's buffer (thd_array.c) */
} thd_mem_kind;

typedef struct thd_mem {
	uint64_t base, size; /* size as asked (mapped: rounded to pages) */
	uint64_t map_size;   /* what mmap gave (0 for globals: owned by the module) */
	thd_mem_kind kind;
} thd_mem;

/* Host pointer for [addr, addr + len) when it lies inside one device
 * allocation or global; NULL otherwise. */
THD_HIDDEN void *thd_mem_at(uint64_t addr, uint64_t len);
/* Whether addr lies in device memory at all. */
THD_HIDDEN int thd_mem_is_device(uint64_t addr);
THD_HIDDEN int thd_mem_add(uint64_t base, uint64_t size, uint64_t map_size, thd_mem_kind kind);
THD_HIDDEN void thd_mem_remove(uint64_t base);

/* ---- modules ------------------------------------------------------------ */

typedef struct thd_global {
	char *name;
	uint8_t *bytes; /* owned */
	uint64_t size;
} thd_global;

struct ihipModule_t {
	uint32_t magic;
	sbt_amd_meta *meta;     /* owned */
	thd_global *globals;    /* owned */
	size_t nglobals;
	struct ihipModuleSymbol_t **fns; /* owned; made on demand */
	size_t nfns;
	int registered;         /* made by __hipRegisterFatBinary */
};

struct ihipModuleSymbol_t {
	uint32_t magic;
	struct ihipModule_t *mod;
	const sbt_amd_kernel *k; /* in mod->meta */
	char *name;
};

/* The global of module m named name, NULL when absent. */
THD_HIDDEN thd_global *thd_module_global(struct ihipModule_t *m, const char *name);
/* Whether p is a hipFunction_t hipModuleGetFunction handed out (never
 * dereferenced first). */
THD_HIDDEN int thd_function_known(const void *p);

/* ---- streams and stream capture ---------------------------------------- */

typedef enum thd_node_kind {
	THD_NODE_KERNEL = 1,
	THD_NODE_COPY,
	THD_NODE_MEMSET,
	THD_NODE_RECORD,  /* an event recorded (queues only) */
	THD_NODE_WAIT     /* a wait for an event (queues only) */
} thd_node_kind;

/* One piece of work: a node of a graph, or an item of a stream's queue. */
typedef struct thd_node {
	thd_node_kind kind;
	struct ihipModuleSymbol_t *fn;
	unsigned grid[3], block[3];
	uint8_t *args;          /* kernarg bytes (graphs own theirs) */
	size_t args_len;
	void *dst;
	const void *src;
	uint64_t size;          /* copies and memsets: bytes */
	uint32_t value;         /* memsets: the element's bytes */
	unsigned elem;          /* memsets: 1, 2 or 4 */
	struct ihipEvent_t *ev; /* record and wait */
	uint64_t gen;           /* record: the recording it is; wait: the one awaited */
	uint8_t *owned;         /* freed once run (queues: kernarg or staged bytes) */
} thd_node;

struct ihipGraph {
	uint32_t magic;
	thd_node *nodes;
	size_t n;
	struct hipGraphNode **gnodes; /* added node by node (thd_graph.c) */
	size_t ngnodes;
};

/* Instantiation: the graph's work in the order it runs, into a new array
 * (*out owned by the caller): the nodes of a stream capture in order,
 * then those added node by node in an order their dependencies allow
 * (thd_graph.c). */
THD_HIDDEN hipError_t thd_graph_flatten(const struct ihipGraph *g, thd_node **out, size_t *n);
/* The same, with from[i] = the node added node by node that work i came
 * from (NULL: a stream capture's), into a new array (*from owned by the
 * caller). */
struct hipGraphExec;
/* The order hipGraphExecUpdate pairs an exec's nodes in, kept in e at
 * instantiation (thd_graph.c): clr 5.2's level order, or under a runtime
 * version of ROCm 6 (thd_runtime_version) clr 6's topological order with
 * each node's dependency count and copy kind then; clr 6 refuses a graph
 * whose topological order misses a node: hipErrorInvalidValue. */
THD_HIDDEN hipError_t thd_graph_exec_order(const struct ihipGraph *g, struct hipGraphExec *e);
/* The runtime version the double answers (thd_core.c); *bad (may be
 * NULL) set when TSHIP_DOUBLE_RUNTIME_VERSION is not a positive number. */
THD_HIDDEN int thd_runtime_version(int *bad);
THD_HIDDEN hipError_t thd_graph_flatten_from(const struct ihipGraph *g, thd_node **out,
                                             struct hipGraphNode ***from, size_t *n);

struct hipGraphExec {
	uint32_t magic;
	struct ihipGraph *graph; /* borrowed nodes, copied at instantiation */
	thd_node *nodes;
	struct hipGraphNode **from; /* the node each of nodes came from (exec setters) */
	size_t n;
	struct hipGraphNode **clones; /* the graph's nodes at instantiation (owned array) */
	size_t nclones;
	struct hipGraphNode **order; /* the order hipGraphExecUpdate pairs them in
	                              * (thd_graph_exec_order; owned array) */
	size_t norder;
	int topo;                    /* 1: clr 6's topological order; then, index by
	                              * index with order (owned arrays): */
	size_t *ondeps;              /* the clone's dependency count */
	int *okind;                  /* the clone's copy kind (-1: not a copy) */
};

typedef struct thd_item {
	thd_node n;
	struct thd_item *next;
} thd_item;

struct ihipStream_t {
	uint32_t magic;
	unsigned flags;
	int priority;
	struct ihipGraph *capture; /* non-NULL while capturing */
	thd_item *head, *tail;     /* queued work, in order (thd_sched.c) */
	hipError_t error;          /* the first error of its work not yet reported */
};

struct ihipEvent_t {
	uint32_t magic;
	unsigned flags;
	uint64_t gen_queued;       /* recordings queued */
	uint64_t gen_done;         /* recordings run */
	uint64_t ns;               /* time of the last one run */
};

struct ihipMemGenericAllocationHandle {
	uint32_t magic;
	uint64_t size;
};

/* The stream's capture graph (NULL: not capturing); *bad set when the
 * handle is not a live stream.  NULL stream: the null stream. */
THD_HIDDEN struct ihipGraph *thd_stream_capture(hipStream_t s, int *bad);
/* Append a node (copied; args owned from here on). */
THD_HIDDEN hipError_t thd_graph_add(struct ihipGraph *g, const thd_node *n);
THD_HIDDEN hipError_t thd_node_run(const thd_node *n);

/* ---- the scheduler (thd_sched.c) --------------------------------------------
 * Work on a created stream is queued and runs only when something waits
 * for it: a synchronization of its stream, its device or an event, or work
 * on the null stream (which waits for every blocking stream first and then
 * runs at once).  Whenever queued work runs, the next item is drawn from
 * the heads of the streams that may run (a wait for an event not yet run
 * may not) by a generator seeded from TSHIP_DOUBLE_SEED (default 1): work
 * that nothing orders runs in an order that is not the program's, so a
 * replay that drops an event wait can be caught.  A host-to-device copy
 * takes its bytes at the call, as the runtime stages pageable memory. */
THD_HIDDEN void thd_sched_add_stream(struct ihipStream_t *s);
/* Queue n on s (NULL: run it at once after the blocking streams' work);
 * n->owned passes to the queue.  The error of work run at once, else
 * hipSuccess. */
THD_HIDDEN hipError_t thd_enqueue(hipStream_t s, const thd_node *n);
/* Run queued work until s's queue is empty; its first error. */
THD_HIDDEN hipError_t thd_sync_stream(hipStream_t s);
/* Run every queue empty; the first error of any. */
THD_HIDDEN hipError_t thd_sync_device(void);
/* Run queued work until e's last recording has run. */
THD_HIDDEN hipError_t thd_sync_event(struct ihipEvent_t *e);

/* ---- launches ----------------------------------------------------------- */

THD_HIDDEN hipError_t thd_kernel_run(struct ihipModuleSymbol_t *f, const unsigned grid[3],
                                     const unsigned block[3], const uint8_t *args, size_t len);
/* The pointer-guarded copy and memset every copy entry point ends in
 * (memset: count elements of elem bytes, each value's low bytes). */
THD_HIDDEN hipError_t thd_copy(void *dst, const void *src, size_t n);
THD_HIDDEN hipError_t thd_fill(void *dst, uint32_t value, unsigned elem, size_t count);
/* A copy on a stream: into its capture, queued (host bytes staged), or at
 * once on the null stream.  Checks the device spans first. */
THD_HIDDEN hipError_t thd_copy_on(void *dst, const void *src, size_t n, hipStream_t stream);
/* thd_array.c: hipMemcpyParam2D(Async) and hipMemcpy3D(Async) with an
 * array side. */
THD_HIDDEN hipError_t thd_array_param2d(const hip_Memcpy2D *p, hipStream_t stream);
THD_HIDDEN hipError_t thd_array_copy3d(const struct hipMemcpy3DParms *p, hipStream_t stream);

/* ---- state --------------------------------------------------------------- */

/* A zeroed handle object (stream, event, graph, module, ...), kept in a
 * registry until the process ends: never freed (a destroyed one keeps its
 * dead magic), and so never a leak to LeakSanitizer or valgrind.  NULL
 * when out of memory. */
/* Devices (thd_core.c): TSHIP_DOUBLE_DEVICES of them, default 1. */
#define THD_MAX_DEVICES 16
THD_HIDDEN int thd_device_count(void);
THD_HIDDEN int thd_device_ok(long device);
THD_HIDDEN int thd_device_current(void);
/* Make device (checked by the caller) the calling thread's current one. */
THD_HIDDEN void thd_device_make_current(int device);
/* The calling thread's per-thread default stream (the _spt calls'), made
 * at its first use: a blocking stream (NULL when it cannot be made). */
THD_HIDDEN hipStream_t thd_per_thread_stream(void);
/* A synchronous _spt call's end: r, or when it is hipSuccess the first
 * error of the work it queued on stream, run to its end. */
THD_HIDDEN hipError_t thd_spt_finish(hipStream_t stream, hipError_t r);

THD_HIDDEN void *thd_object_new(size_t size);
THD_HIDDEN void thd_lock(void);
THD_HIDDEN void thd_unlock(void);
/* Set the thread's last error (hipGetLastError) when r is not hipSuccess; returns r. */
THD_HIDDEN hipError_t thd_ret(hipError_t r);
/* One line on stderr, prefixed "libamdhip64 test double: ". */
THD_HIDDEN void thd_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* THD_H */
