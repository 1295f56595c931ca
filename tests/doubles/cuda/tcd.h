/*
 * tcd.h - internals of the libcuda.so.1 CPU test double (prefix tcd_).
 *
 * The double exists so that the CUDA interposer and the CUDA replay backend
 * can run end to end without a GPU.  It is not a simulator: kernels are host
 * functions from a module shared object (modules/tcd_module.h), or, for real
 * images (cubins, fatbins, PTX: tcd_image.c), host twins registered under
 * the kernels' names (tcd_twins.c), run under a fault guard (tcd_guard.c) so
 * that a wild access is CUDA_ERROR_ILLEGAL_ADDRESS, not a crash; device memory
 * is host memory at randomised addresses, and each stream is a worker thread
 * running its queue in order.  It is written so that ordering is NOT
 * trivially right: streams run concurrently, and with TSCUDA_DOUBLE_SEED the
 * work not ordered by events, stream waits or the legacy stream is run in a
 * seeded random order.  Everything it prints starts "libcuda test double:".
 *
 * cuda.h is included with __CUDA_API_VERSION_INTERNAL, as the driver itself
 * is built: every legacy, _v2, _ptds and _ptsz prototype is then declared
 * under its own name, and each exported function is checked against it.
 *
 * Locking: one mutex (tcd_g.lock) guards every object, queue and registry;
 * one condition variable (tcd_g.cond) is broadcast whenever work completes or
 * is queued.  Kernels, copies and memsets run without the lock held.
 * Objects are never freed while the process lives: a destroyed handle keeps
 * its memory with a dead magic, so a stale handle is reported, not followed.
 */
#ifndef TCD_H
#define TCD_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cudaProfiler.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/doubles/cuda/modules/tcd_module.h"
#include "tests/doubles/cuda/tcd_api.h"

#define TCD_HIDDEN __attribute__((visibility("hidden")))

/* Exported entry points: the body is tcd_api_<sym> (hidden, so the double's
 * own table points at its own code even under an LD_PRELOAD interposer), and
 * <sym> is an alias with the type cuda.h declares for it. */
#define TCD_API(ret, sym) TCD_HIDDEN ret CUDAAPI tcd_api_##sym
#define TCD_EXPORT(sym) \
	extern __typeof__(tcd_api_##sym) sym __attribute__((alias("tcd_api_" #sym), visibility("default")));

#define TCD_FN_ENUM(sym) TCD_FN_##sym,
enum tcd_fn { TCD_EXPORTS(TCD_FN_ENUM) TCD_FN_COUNT };
#undef TCD_FN_ENUM

/* Counts the call, then refuses everything but the pre-init calls until
 * cuInit has succeeded. */
#define TCD_ENTER(sym) tcd_count(TCD_FN_##sym)
#define TCD_ENTER_INIT(sym)                                                  \
	do {                                                                 \
		tcd_count(TCD_FN_##sym);                                     \
		if (!tcd_initialized())                                      \
			return tcd_fail(CUDA_ERROR_NOT_INITIALIZED, #sym, "cuInit has not been called"); \
	} while (0)

#define TCD_MAGIC_LIVE 0x7cd0b1e5u
#define TCD_MAGIC_DEAD 0xdeadd0b1u

enum tcd_kind {
	TCD_KIND_CTX = 1,
	TCD_KIND_STREAM,
	TCD_KIND_EVENT,
	TCD_KIND_MODULE,
	TCD_KIND_FUNCTION,
	TCD_KIND_LIBRARY,
	TCD_KIND_KERNEL,
	TCD_KIND_GRAPH,
	TCD_KIND_GRAPH_EXEC,
	TCD_KIND_MEMHANDLE,
	TCD_KIND_ARRAY,
	TCD_KIND_GRAPH_NODE,
};

/* First member of every handle object. */
struct tcd_obj {
	uint32_t magic;
	uint32_t kind;
};

struct tcd_stream;
struct tcd_graph;

/* A CUDA array (tcd_array.c says how its bytes are laid out). */
struct tcd_array {
	struct tcd_obj h;
	CUDA_ARRAY3D_DESCRIPTOR desc; /* as created (cuArrayCreate: Depth 0, Flags 0) */
	unsigned elem;                /* bytes per element */
	size_t row_bytes, slice_bytes;
	size_t height, depth;         /* at least 1 */
	unsigned char *data;          /* owned; NULL once destroyed */
};

struct tcd_ctx {
	struct tcd_obj h;
	int device;
	bool primary;
	unsigned retains;   /* primary context: cuDevicePrimaryCtxRetain count */
	unsigned flags;
	struct tcd_stream *legacy;
	struct tcd_stream *streams; /* every stream of this context, via next_in_ctx */
	/* The error a kernel left (CUDA_ERROR_ILLEGAL_ADDRESS), 0 when none:
	 * sticky, as on the driver: later calls and work in the context get it. */
	atomic_int sticky;
};

enum tcd_stream_special { TCD_STREAM_PLAIN, TCD_STREAM_LEGACY, TCD_STREAM_PER_THREAD };

struct tcd_dep {
	struct tcd_stream *stream;
	uint64_t seq;
};

enum tcd_op_kind {
	TCD_OP_KERNEL,
	TCD_OP_COPY,
	TCD_OP_MEMSET,
	TCD_OP_RECORD,
	TCD_OP_WAIT,
	TCD_OP_FREE,
	TCD_OP_HOST, /* a graph's host node: fn(user) in stream order */
	TCD_OP_WAIT_VALUE, /* a batch memory-op node's wait: polls memory */
};

struct tcd_event;

struct tcd_op {
	struct tcd_op *next;
	enum tcd_op_kind kind;
	bool disabled; /* an exec's template: its node disabled (cuGraphNodeSetEnabled) */
	uint64_t seq;
	unsigned ndeps;
	struct tcd_dep *deps; /* owned */
	union {
		struct {
			const struct tcd_kernel_desc *k;
			const struct tcd_function *f; /* what was launched (borrowed: never freed) */
			unsigned grid[3], block[3], shared;
			unsigned char *params; /* owned, k->param_bytes */
		} kernel;
		struct {
			unsigned char *dst;
			const unsigned char *src;
			size_t width, height, dpitch, spitch; /* 1-D copies: height 1 */
			size_t depth, dslice, sslice;         /* 3-D copies; depth 0 is 1 */
			bool dst_host, src_host;              /* the side is host memory */
		} copy;
		struct {
			unsigned char *dst;
			uint32_t value;
			unsigned elem;
			size_t count;
		} memset;
		struct {
			struct tcd_event *event;
			uint64_t generation;
			bool external; /* CU_EVENT_RECORD_EXTERNAL: a node when captured */
		} record;
		struct {
			uintptr_t ptr;
		} free;
		struct {
			CUhostFn fn;
			void *user;
		} host;
		struct {
			struct tcd_event *event; /* a graph's wait node: resolved at each launch */
		} wait;
		struct {
			uintptr_t addr;
			uint64_t value;
			unsigned flags; /* CUstreamWaitValue_flags */
			bool wide;      /* 64-bit */
		} waitval;
	} u;
};

struct tcd_stream {
	struct tcd_obj h;
	struct tcd_ctx *ctx;
	enum tcd_stream_special special;
	unsigned flags;
	int priority;
	uint64_t id;
	pthread_t worker;
	bool worker_running;
	bool destroying;
	struct tcd_op *head, *tail;
	uint64_t submitted, completed;
	struct tcd_graph *capture;       /* non-NULL while capturing */
	/* cuStreamBeginCaptureToGraph: the graph the capture ends in, as one
	 * node after these nodes (owned array). */
	struct tcd_graph *capture_into;
	CUgraphNode *capture_deps;
	size_t ncapture_deps;
	CUstreamCaptureMode capture_mode;
	bool capture_invalid;
	struct tcd_stream *next_in_ctx;
	struct tcd_stream *next_all;
};

struct tcd_event {
	struct tcd_obj h;
	unsigned flags;
	struct tcd_stream *stream; /* last record, or NULL */
	uint64_t seq;
	uint64_t generation;
	bool timed;
	uint64_t ns;               /* completion time of the last record */
	/* Its last record was made in a stream capture (no node: it marks
	 * where that capture stood, for waits in the same capture). */
	const struct tcd_graph *capture;
	const struct tcd_stream *capture_stream;
};

struct tcd_gnode;

/* The kernel node attributes the double takes (tcd_graph.c). */
#define TCD_NODE_ATTRS 4

struct tcd_graph {
	struct tcd_obj h;
	struct tcd_op *ops; /* templates in capture (an exec: launch) order, deps unused */
	size_t count;
	struct tcd_op **tail;
	/* Built node by node (tcd_graph.c): its nodes in creation order.  An
	 * exec of such a graph: its nodes in launch order, and the first op
	 * each one put in ops (NULL for a node without one). */
	struct tcd_gnode **nodes;
	size_t nnodes, cap_nodes;
	struct tcd_op **node_ops;
	/* Moved into this child graph node (cuGraphAddNode with
	 * CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE): the node owns it, and it can
	 * no longer be destroyed, instantiated, used as a child again, used
	 * to update an exec or given memory nodes on its own. */
	struct tcd_gnode *owner;
};

/* A node of a graph built node by node: the ops it runs (templates, in
 * order; none for an empty node) and the nodes it depends on. */
struct tcd_gnode {
	struct tcd_obj h;
	struct tcd_graph *graph;
	size_t index;             /* in graph->nodes */
	struct tcd_op *ops;       /* owned */
	struct tcd_gnode **deps;  /* owned array */
	size_t ndeps;
	struct tcd_gnode *origin; /* a clone's node: the node it copies (cuGraphNodeFindInClone) */
	struct tcd_graph *embedded; /* a child graph node: the copy of its child, whose ops
	                               replace ops at instantiation (cuGraphChildGraphNodeGetGraph) */
	uintptr_t graph_mem;        /* a memory allocation node: its memory; a free node: what it frees */
	bool frees;                 /* a memory free node */
	/* A kernel node's attributes set (cuGraphKernelNodeSetAttribute or
	 * CopyAttributes), one entry per id, the last value set. */
	CUlaunchAttribute attrs[TCD_NODE_ATTRS];
	unsigned nattrs;
	/* A batch memory-op node: its operations as given (owned; the ops
	 * are made from them). */
	CUstreamBatchMemOpParams *memops;
	unsigned nmemops;
};

struct tcd_image;
struct tcd_twin;

struct tcd_module {
	struct tcd_obj h;
	/* A real image (cubin, PTX): its parse and the table made from it
	 * (owned, kept after unload as launches and graphs may still point in). */
	struct tcd_image *image;
	struct tcd_module_desc *real_desc;
	void *dl;
	int memfd;
	size_t image_bytes;
	const struct tcd_module_desc *desc;
	struct tcd_function **funcs; /* one per kernel */
	struct tcd_library *library; /* owning library, or NULL */
};

struct tcd_function {
	struct tcd_obj h;
	struct tcd_module *module;
	const struct tcd_kernel_desc *k;
	bool real;                    /* a kernel of a real image: runs by its twin, if any */
	const struct tcd_twin *twin;  /* NULL: the launch runs nothing (tcd_ext.h, NOT RUN) */
};

struct tcd_library {
	struct tcd_obj h;
	struct tcd_module *module;
	struct tcd_kernel_obj **kernels; /* one per kernel */
};

struct tcd_kernel_obj {
	struct tcd_obj h;
	struct tcd_library *library;
	struct tcd_function *function;
};

struct tcd_memhandle {
	struct tcd_obj h;
	int memfd;
	size_t size;
	int device;
	unsigned maps;
	bool released;
	unsigned handle_types; /* prop->requestedHandleTypes, for CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES */
};

/* TSCUDA_DOUBLE_RESERVE; MEASURED (the default) follows the real driver's
 * measured placement rules (tcd_mem.c says which fact each rule encodes). */
enum tcd_reserve_mode { TCD_RESERVE_HONOUR, TCD_RESERVE_REFUSE, TCD_RESERVE_FAIL, TCD_RESERVE_MEASURED };

/* The double's one state struct (it is the "driver" of its process). */
struct tcd_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	atomic_int initialized;
	atomic_ulong counts[TCD_FN_COUNT];
	/* configuration, read once from TSCUDA_DOUBLE_* */
	int devices;
	bool seeded;
	bool quiet;
	enum tcd_reserve_mode reserve;
	char *stats_path;
	/* TSCUDA_DOUBLE_RACY under ThreadSanitizer: its annotations that
	 * hide a worker's accesses to memory (tcd_sched.c); NULL without */
	void (*racy_hide[4])(const char *file, int line);
	uint64_t sched_rng;
	uint64_t addr_rng;
	uintptr_t va_next;
	/* under lock */
	struct tcd_stream *granted;  /* seeded mode: the one stream allowed to run */
	struct tcd_stream *all_streams;
	uint64_t next_stream_id;
	struct tcd_ctx *primary[2];
	void **handles;              /* open-addressing set of every object ever made */
	size_t handle_cap, handle_count;
	size_t device_bytes_used;
	char **not_run_names;        /* kernels already reported as having no twin */
	size_t not_run_count;
	atomic_ullong launches_not_run; /* tscuda_double_launches_not_run() */
	/* Set once the primary context is retained through the side door, as
	 * cudart does when it starts: the driver's "runtime has started" state
	 * of measured fact 4 (tcd_mem.c). */
	atomic_bool runtime_started;
	/* Bytes copies moved device->host and host->device, for
	 * TSCUDA_DOUBLE_STATS (counted when the copy is accepted). */
	atomic_ullong bytes_dtoh, bytes_htod;
	/* Prelinked fatbins of version 2 wrappers loaded (TSCUDA_DOUBLE_STATS). */
	atomic_ullong prelinked_fatbins;
};

extern struct tcd_state tcd_g TCD_HIDDEN;

/* tcd_core.c */
TCD_HIDDEN void tcd_count(enum tcd_fn fn);
TCD_HIDDEN bool tcd_initialized(void);
TCD_HIDDEN CUresult tcd_fail(CUresult r, const char *call, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
TCD_HIDDEN void tcd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
TCD_HIDDEN const char *tcd_error_name(CUresult r);
TCD_HIDDEN uint64_t tcd_rng_next(uint64_t *state);
TCD_HIDDEN void *tcd_obj_new(size_t bytes, enum tcd_kind kind);
TCD_HIDDEN void tcd_obj_kill(void *obj);
TCD_HIDDEN CUresult tcd_obj_get(const void *handle, enum tcd_kind kind, const char *call,
				const char *what, void *out);
TCD_HIDDEN CUresult tcd_obj_get_locked(const void *handle, enum tcd_kind kind, const char *call,
				       const char *what, void *out);
TCD_HIDDEN bool tcd_obj_is_locked(const void *handle, enum tcd_kind kind);
TCD_HIDDEN struct tcd_ctx *tcd_ctx_current(void);
TCD_HIDDEN CUresult tcd_ctx_require(const char *call, struct tcd_ctx **out);
TCD_HIDDEN uint64_t tcd_now_ns(void);
TCD_HIDDEN CUresult tcd_primary_retain(CUcontext *pctx, CUdevice dev, const char *call);

/* tcd_sched.c */
TCD_HIDDEN struct tcd_stream *tcd_stream_new(struct tcd_ctx *ctx, enum tcd_stream_special special,
					     unsigned flags, int priority);
TCD_HIDDEN CUresult tcd_stream_resolve(CUstream h, bool per_thread, const char *call, struct tcd_stream **out);
/* A launch's arguments (tcd_module.c); a graph's kernel node has them too. */
struct tcd_launch_args {
	CUfunction f;
	unsigned grid[3], block[3], shared;
	CUstream stream;
	void **params;
	void **extra;
	bool cooperative;
	bool per_thread;
};
/* The kernel op of a launch, checked, its parameters copied (a->stream
 * unused); tcd_kernel_op_made counts a real kernel without twin as not
 * run once the launch (or the node) is made. */
TCD_HIDDEN CUresult tcd_kernel_op(const struct tcd_launch_args *a, const char *call, struct tcd_op **out);
TCD_HIDDEN void tcd_kernel_op_made(const struct tcd_op *op);
/* The op of a 3D copy (cuMemcpy3D's checks; counted as accepted) and of
 * a 1D memset (tcd_copy.c), for graph nodes. */
TCD_HIDDEN CUresult tcd_copy3d_op(const CUDA_MEMCPY3D *c, const char *call, struct tcd_op **out);
TCD_HIDDEN CUresult tcd_memset_op(uintptr_t dst, uint32_t value, unsigned elem, size_t count, const char *call,
				  struct tcd_op **out);
TCD_HIDDEN struct tcd_op *tcd_op_clone(const struct tcd_op *t);
/* With the lock held: the ops of graph g built node by node, in an order
 * that keeps every dependency (creation order among independent nodes),
 * cloned into exec x.  CUDA_ERROR_INVALID_VALUE when the edges make a
 * cycle (tcd_graph.c). */
/* Adds a node holding ops (owned, also on failure) to graph hg after
 * deps (tcd_graph.c); *out gets it. */
TCD_HIDDEN CUresult tcd_graph_node_add(CUgraphNode *out, CUgraph hg, const CUgraphNode *deps, size_t ndeps,
				       struct tcd_op *ops, const char *call);
/* Begins a capture on stream h (tcd_sched.c); into: the graph it ends in
 * (cuStreamBeginCaptureToGraph: after the ndeps nodes deps), or NULL. */
TCD_HIDDEN CUresult tcd_capture_begin(CUstream h, CUstreamCaptureMode mode, bool pt, struct tcd_graph *into,
				      const CUgraphNode *deps, size_t ndeps, const char *call);
TCD_HIDDEN CUresult tcd_graph_mem_alloc(uintptr_t *out, size_t bytes, const char *call);
TCD_HIDDEN CUresult tcd_graph_moved_check_locked(const struct tcd_graph *g, const char *call, const char *what);
TCD_HIDDEN void tcd_graph_kill_locked(struct tcd_graph *g);
TCD_HIDDEN CUresult tcd_graph_nodes_instantiate_locked(const struct tcd_graph *g, struct tcd_graph *x,
						       const char *call);
TCD_HIDDEN struct tcd_op *tcd_op_new(enum tcd_op_kind kind);
TCD_HIDDEN void tcd_op_free(struct tcd_op *op);
TCD_HIDDEN CUresult tcd_enqueue(struct tcd_stream *s, struct tcd_op *op, const char *call, uint64_t *seq_out);
TCD_HIDDEN CUresult tcd_enqueue_sync(struct tcd_stream *s, struct tcd_op *op, const char *call);
TCD_HIDDEN CUresult tcd_sync_all(const char *call);
TCD_HIDDEN CUresult tcd_sync_ctx(struct tcd_ctx *ctx, const char *call);
TCD_HIDDEN bool tcd_capture_active_global(void);
/* A stream's or kernel node's priority clamped to the range the H100's
 * cuCtxGetStreamPriorityRange gave (0 least, -5 greatest; measured,
 * docs/gpu-validation.md, eleventh session). */
static inline int tcd_clamp_priority(int p)
{
	return p < -5 ? -5 : p > 0 ? 0 : p;
}

/* tcd_mem.c */
enum tcd_range_kind {
	TCD_RANGE_DEVICE = 1,
	TCD_RANGE_MANAGED = 2,
	TCD_RANGE_HOST = 4,
	TCD_RANGE_GLOBAL = 8,
	TCD_RANGE_VMM = 16,
	TCD_RANGE_VMM_NOACCESS = 32,
};
#define TCD_RANGE_ACCESSIBLE (TCD_RANGE_DEVICE | TCD_RANGE_MANAGED | TCD_RANGE_HOST | TCD_RANGE_GLOBAL | TCD_RANGE_VMM)
TCD_HIDDEN CUresult tcd_range_add(uintptr_t base, size_t size, enum tcd_range_kind kind, size_t map_bytes);
TCD_HIDDEN void tcd_range_remove(uintptr_t base);
TCD_HIDDEN CUresult tcd_range_check(uintptr_t p, size_t n, const char *call, const char *what);
TCD_HIDDEN bool tcd_range_probe(uintptr_t p);
/* Whether [p, p + n) lies in one range a kernel may reach (device,
 * managed, pinned host, global or accessible VMM memory), and that
 * range's bounds (no message either way). */
TCD_HIDDEN bool tcd_range_reachable(uintptr_t p, size_t n, uintptr_t *lo, uintptr_t *hi);
TCD_HIDDEN bool tcd_range_is_host_side(uintptr_t p);
TCD_HIDDEN void tcd_free_now(uintptr_t ptr);
/* A malformed TSCUDA_DOUBLE_* value: says which and exits 2. */
TCD_HIDDEN void tcd_config_die(const char *var, const char *value, const char *want);

/* tcd_module.c: runs a kernel op of a stream of ctx; a wild access breaks ctx. */
TCD_HIDDEN void tcd_kernel_run(const struct tcd_op *op, struct tcd_ctx *ctx);
/* The context's sticky error, reported for call (CUDA_SUCCESS when none). */
TCD_HIDDEN CUresult tcd_ctx_sticky(struct tcd_ctx *ctx, const char *call);

/* tcd_guard.c: runs fn(arg); true when it faulted (SIGSEGV/SIGBUS), with
 * the faulting address in *fault_addr. */
TCD_HIDDEN bool tcd_guard_call(void (*fn)(void *arg), void *arg, uintptr_t *fault_addr);
/* Inside a guarded call: end it as a fault at addr (a kernel's wild access
 * found before it was made); tcd_guard_call then returns true. */
TCD_HIDDEN _Noreturn void tcd_guard_fault(uintptr_t addr);

/* tcd_array.c */
TCD_HIDDEN CUresult tcd_array_get(CUarray h, const char *call, const char *what, struct tcd_array **out);
/* Where the region (x in bytes, y, z; width bytes x height x depth) of
 * array h starts in its storage, with its row and slice pitch; refused
 * (CUDA_ERROR_INVALID_VALUE, naming what) when it runs past the array. */
TCD_HIDDEN CUresult tcd_array_region(CUarray h, size_t x, size_t y, size_t z, size_t width, size_t height,
				     size_t depth, const char *call, const char *what, unsigned char **at,
				     size_t *pitch, size_t *slice);
/* Where [offset, offset + n) of array h's bytes (the packed layout) starts;
 * refused when it runs past the array (cuMemcpyHtoA and the others). */
TCD_HIDDEN CUresult tcd_array_span(CUarray h, size_t offset, size_t n, const char *call, const char *what,
				   unsigned char **at);
/* A live array's layout for a kernel; false when h is not a live array. */
TCD_HIDDEN bool tcd_array_view(CUarray h, struct tcd_array_view *v);
/* tcd_tex.c: tcd_kernel_launch.array_of. */
TCD_HIDDEN int tcd_tex_array_of(unsigned long long object, struct tcd_array_view *out);

#endif
