/*
 * rpcu_internal.h - internals of the CUDA replay backend (prefix rpcu_).
 *
 * The backend replays the compute record model (serializer/sbt_compute.h)
 * through a driver it dlopens: libcuda.so.1, or TRACESMITH_CUDA_DRIVER.
 * Nothing links against the driver; every entry point comes from
 * cuGetProcAddress (dlsym when the driver predates it) at the ABI version
 * whose cudaTypedefs.h PFN type the backend calls it through.
 *
 * State a replay keeps:
 *   - objects: captured handle -> live handle, per kind (rpcu_obj, hashed);
 *   - address ranges: captured address range -> live address (rpcu_range,
 *     sorted), for device allocations, module globals, pinned host memory
 *     and VMM reservations.  A device allocation inside a VA window of the
 *     trace is mapped at its captured address in the replay's reservation
 *     of that window ("granules", rpcu_window.c); elsewhere it is placed at
 *     its captured address when the driver lets us reserve it ("pieces":
 *     granularity-aligned reservations backed by cuMemCreate); otherwise
 *     it is allocated anywhere and pointer-valued kernel parameters are
 *     patched;
 *   - handles and addresses only calls that failed at capture returned
 *     (records naming them are skipped), and host buffers graphs captured
 *     in the replay use;
 *   - copies whose host destination a checkpoint will ask for (rpcu_copy);
 *   - host buffers of async uploads still in flight (rpcu_stage);
 *   - per captured thread: its context stack and per-thread stream.
 *
 * Everything is single-threaded: the core calls one backend entry at a
 * time.
 */
#ifndef TRACESMITH_RPCU_INTERNAL_H
#define TRACESMITH_RPCU_INTERNAL_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include <stddef.h>
#include <stdint.h>

#include "replayer/rp.h"
#include "replayer/rp_cm.h"
#include "serializer/sbt_compute.h"

/* ---- the driver ---------------------------------------------------------- */

/* X(name, ABI version, required): the PFN_<name>_v<version> type of
 * cudaTypedefs.h is the one the backend calls it through, and the version
 * is what it asks cuGetProcAddress for, so the variant matches the type. */
#define RPCU_DRIVER_LIST(X)                                                     \
	X(cuGetErrorName, 6000, 0) X(cuInit, 2000, 1)                              \
	X(cuDeviceGetCount, 2000, 1) X(cuDeviceGet, 2000, 1)                       \
	X(cuDevicePrimaryCtxRetain, 7000, 0) X(cuDevicePrimaryCtxRelease, 11000, 0)\
	X(cuCtxCreate, 3020, 0) X(cuCtxDestroy, 4000, 0)                           \
	X(cuCtxSetCurrent, 4000, 1) X(cuCtxSynchronize, 2000, 1)                   \
	X(cuModuleLoadData, 2000, 0) X(cuModuleLoadFatBinary, 2000, 0)             \
	X(cuModuleUnload, 2000, 0) X(cuModuleGetFunction, 2000, 0)                 \
	X(cuModuleGetGlobal, 3020, 0) X(cuLibraryLoadData, 12000, 0)               \
	X(cuLibraryUnload, 12000, 0) X(cuLibraryGetKernel, 12000, 0)               \
	X(cuLibraryGetModule, 12000, 0) X(cuLibraryGetGlobal, 12000, 0)            \
	X(cuKernelGetFunction, 12000, 0) X(cuLaunchKernel, 4000, 0)                \
	X(cuLaunchKernelEx, 11060, 0) X(cuLaunchCooperativeKernel, 9000, 0)        \
	X(cuMemAlloc, 3020, 0) X(cuMemAllocManaged, 6000, 0)                       \
	X(cuMemAllocHost, 3020, 0) X(cuMemHostAlloc, 2020, 0)                      \
	X(cuMemHostRegister, 6050, 0) X(cuMemHostUnregister, 4000, 0)              \
	X(cuMemFree, 3020, 0) X(cuMemFreeHost, 2000, 0)                            \
	X(cuMemGetAllocationGranularity, 10020, 0) X(cuMemCreate, 10020, 0)        \
	X(cuMemRelease, 10020, 0) X(cuMemAddressReserve, 10020, 0)                 \
	X(cuMemAddressFree, 10020, 0) X(cuMemMap, 10020, 0)                        \
	X(cuMemUnmap, 10020, 0) X(cuMemSetAccess, 10020, 0)                        \
	X(cuMemcpyHtoD, 3020, 0) X(cuMemcpyHtoDAsync, 3020, 0)                     \
	X(cuMemcpyDtoH, 3020, 0) X(cuMemcpyDtoHAsync, 3020, 0)                     \
	X(cuMemcpyDtoD, 3020, 0) X(cuMemcpyDtoDAsync, 3020, 0)                     \
	X(cuMemcpy, 4000, 0) X(cuMemcpyAsync, 4000, 0)                             \
	X(cuMemcpyPeer, 4000, 0) X(cuMemcpyPeerAsync, 4000, 0)                     \
	X(cuMemcpy2D, 3020, 0) X(cuMemcpy2DUnaligned, 3020, 0)                     \
	X(cuMemcpy2DAsync, 3020, 0) X(cuMemcpy3D, 3020, 0)                         \
	X(cuMemcpy3DAsync, 3020, 0)                                                \
	X(cuMemsetD8, 3020, 0) X(cuMemsetD16, 3020, 0) X(cuMemsetD32, 3020, 0)     \
	X(cuMemsetD2D8, 3020, 0) X(cuMemsetD2D16, 3020, 0)                         \
	X(cuMemsetD2D32, 3020, 0) X(cuMemsetD8Async, 3020, 0)                      \
	X(cuMemsetD16Async, 3020, 0) X(cuMemsetD32Async, 3020, 0)                  \
	X(cuMemsetD2D8Async, 3020, 0) X(cuMemsetD2D16Async, 3020, 0)               \
	X(cuMemsetD2D32Async, 3020, 0)                                             \
	X(cuStreamCreate, 2000, 0) X(cuStreamCreateWithPriority, 5050, 0)          \
	X(cuStreamDestroy, 4000, 0) X(cuStreamSynchronize, 2000, 0)                \
	X(cuStreamWaitEvent, 3020, 0) X(cuEventCreate, 2000, 0)                    \
	X(cuEventDestroy, 4000, 0) X(cuEventRecord, 2000, 0)                       \
	X(cuEventRecordWithFlags, 11010, 0) X(cuEventSynchronize, 2000, 0)        \
	X(cuEventQuery, 2000, 0) X(cuEventElapsedTime, 2000, 0)                    \
	X(cuDeviceGetName, 2000, 0)                                                \
	X(cuDeviceGetAttribute, 2000, 0) X(cuModuleLoadDataEx, 2010, 0)            \
	X(cuKernelSetAttribute, 12000, 0) X(cuFuncSetAttribute, 9000, 0)           \
	X(cuLaunchHostFunc, 10000, 0)                                              \
	X(cuStreamBeginCapture, 10010, 0) X(cuStreamEndCapture, 10000, 0)          \
	X(cuGraphInstantiateWithFlags, 11040, 0) X(cuGraphLaunch, 10000, 0)        \
	X(cuGraphExecDestroy, 10000, 0) X(cuGraphDestroy, 10000, 0)                \
	X(cuTexObjectCreate, 5000, 0) X(cuTexObjectDestroy, 5000, 0)               \
	X(cuSurfObjectCreate, 5000, 0) X(cuSurfObjectDestroy, 5000, 0)           \
	X(cuArrayCreate, 3020, 0) X(cuArray3DCreate, 3020, 0)                      \
	X(cuArrayDestroy, 2000, 0)                                                 \
	X(cuMemcpyHtoA, 3020, 0) X(cuMemcpyAtoH, 3020, 0) X(cuMemcpyAtoD, 3020, 0) \
	X(cuMemcpyDtoA, 3020, 0) X(cuMemcpyAtoA, 3020, 0)                          \
	X(cuMemcpyHtoAAsync, 3020, 0) X(cuMemcpyAtoHAsync, 3020, 0)                \
	X(cuFuncGetParamInfo, 12040, 0)                                            \
	X(cuGraphCreate, 10000, 0) X(cuGraphAddKernelNode, 12000, 0)               \
	X(cuGraphAddMemcpyNode, 10000, 0) X(cuGraphAddMemsetNode, 10000, 0)        \
	X(cuGraphAddEmptyNode, 10000, 0) X(cuGraphAddEventRecordNode, 11010, 0)    \
	X(cuGraphAddEventWaitNode, 11010, 0) X(cuGraphAddDependencies, 10000, 0)   \
	X(cuGraphKernelNodeSetParams, 12000, 0)                                    \
	X(cuGraphExecKernelNodeSetParams, 12000, 0)                                \
	X(cuGraphDestroyNode, 10000, 0) X(cuGraphRemoveDependencies, 10000, 0)     \
	X(cuGraphAddChildGraphNode, 10000, 0) X(cuGraphClone, 10000, 0)            \
	X(cuGraphNodeFindInClone, 10000, 0) X(cuGraphNodeSetEnabled, 11060, 0)     \
	X(cuGraphMemcpyNodeSetParams, 10000, 0) X(cuGraphMemsetNodeSetParams, 10000, 0) \
	X(cuGraphExecMemcpyNodeSetParams, 10020, 0)                                \
	X(cuGraphExecMemsetNodeSetParams, 10020, 0)                                \
	X(cuGraphEventRecordNodeSetEvent, 11010, 0) X(cuGraphEventWaitNodeSetEvent, 11010, 0) \
	X(cuGraphExecEventRecordNodeSetEvent, 11010, 0)                            \
	X(cuGraphExecEventWaitNodeSetEvent, 11010, 0) X(cuGraphExecUpdate, 12000, 0) \
	X(cuGraphChildGraphNodeGetGraph, 10000, 0) X(cuGraphAddMemAllocNode, 11040, 0) \
	X(cuGraphAddMemFreeNode, 11040, 0) X(cuMemFreeAsync, 11020, 0)            \
	X(cuMemAllocAsync, 11020, 0) X(cuStreamBeginCaptureToGraph, 12030, 0)       \
	X(cuGraphAddNode, 12020, 0) X(cuGraphKernelNodeSetAttribute, 11000, 0)       \
	X(cuGraphKernelNodeCopyAttributes, 11000, 0) X(cuGraphAddBatchMemOpNode, 11070, 0) \
	X(cuGraphBatchMemOpNodeSetParams, 11070, 0) X(cuGraphExecBatchMemOpNodeSetParams, 11070, 0) \
	X(cuStreamWriteValue32, 11070, 0) X(cuStreamWriteValue64, 11070, 0)       \
	X(cuStreamWaitValue32, 11070, 0) X(cuStreamWaitValue64, 11070, 0)         \
	X(cuStreamBatchMemOp, 11070, 0)

/* Members are p_<name>: the bare name would be rewritten by cuda.h's
 * "#define cuMemAlloc cuMemAlloc_v2" table. */
/* The libcuda test double's count of launches that ran nothing (no host
 * twin for the kernel): tests/doubles/cuda/tcd_ext.h defines it; looked up
 * with dlsym, absent from real drivers. */
#define RPCU_NOT_RUN_SYMBOL "tscuda_double_launches_not_run"
typedef unsigned long long (*rpcu_not_run_fn)(void);

typedef struct rpcu_driver {
	void *dl;
	char path[256];
	rpcu_not_run_fn not_run;   /* NULL unless the driver is the test double */
#define RPCU_X_MEMBER(name, ver, req) PFN_##name##_v##ver p_##name;
	RPCU_DRIVER_LIST(RPCU_X_MEMBER)
#undef RPCU_X_MEMBER
} rpcu_driver;

/* ---- objects --------------------------------------------------------------- */

typedef enum rpcu_kind {
	RPCU_O_NONE = 0,
	RPCU_O_DEVICE,   /* captured CUdevice -> live CUdevice (ordinal in aux) */
	RPCU_O_CTX,      /* a context the trace created or retained */
	RPCU_O_MODULE,
	RPCU_O_LIBRARY,
	RPCU_O_FUNCTION,
	RPCU_O_KERNEL,
	RPCU_O_STREAM,
	RPCU_O_EVENT,
	RPCU_O_MEMHANDLE,
	RPCU_O_GRAPH,    /* a graph made by stream capture or cuGraphCreate in the replay;
	                    name: why it cannot be instantiated (a node not modeled) */
	RPCU_O_GRAPHEXEC,
	RPCU_O_TEXOBJ,   /* a texture or surface object */
	RPCU_O_GRAPHNODE, /* a node of a graph built node by node */
	RPCU_O_HOSTSRC   /* a memcpy node's host source, by node and size (rpcu_graph.c):
	                    live = the buffer the node reads (in graph_bufs), bytes
	                    its size, made_seq the node, parent the captured
	                    destination address (for relocation), 0 if none */
} rpcu_kind;

typedef struct rpcu_obj {
	RP_CM_HANDLE_HEAD;  /* cap, kind (rpcu_kind; RPCU_O_NONE: empty slot), dead */
	uint64_t live;      /* the live handle (0 for streams in single mode) */
	uint8_t primary;    /* contexts: a retained primary context */
	uint8_t capturing;  /* streams: between Begin/EndCapture */
	int32_t ordinal;    /* devices and contexts: the live device ordinal */
	unsigned retains;   /* primary contexts: retains to release */
	uint64_t parent;    /* captured module/library/kernel it came from; texture
	                       and surface objects: the captured address of
	                       their memory, or their CUDA array */
	uint64_t res_seq;   /* texture and surface objects: the record that made
	                       that memory or array (a later one at the same
	                       address or handle is not theirs) */
	uint8_t res_type;   /* texture and surface objects: CU_RESOURCE_TYPE_* */
	uint8_t surface;    /* a surface object (else a texture object) */
	uint64_t made_seq;  /* texture and surface objects: their creation record;
	                       graph execs: their last launch passed over while
	                       restoring a keyframe (0: none) */
	CUcontext ctx;      /* live context current when it was made */
	char *name;         /* functions and kernels: owned */
	uint64_t bytes;     /* graph host sources: the buffer's size */
	uint8_t embedded;   /* graphs: the graph embedded in a child graph node
	                       (cuGraphChildGraphNodeGetGraph; the node owns it,
	                       parent = the captured graph holding the node) */
	uint8_t refused;    /* graphs and graph execs: name is the whole reason
	                       replay refuses them (a change the replay's driver
	                       refused, a capture --streams single cannot make),
	                       not a call replay does not model */
} rpcu_obj;

/* The core's table (rp_cm_handles), seen with typed slots. */
typedef union rpcu_objs {
	rp_cm_handles table;
	struct {
		rpcu_obj *slot;
		size_t cap;         /* power of two */
		size_t used;        /* live + dead slots */
	};
} rpcu_objs;

/* An object the trace destroyed (or whose module, library or context
 * went), kept so that a record still naming it is told apart from one
 * naming what never existed: "destroyed at seq N". */
typedef struct rpcu_gone {
	uint64_t cap;
	uint64_t seq;       /* the record that destroyed it, or took its parent */
	uint8_t kind;       /* rpcu_kind */
} rpcu_gone;

/* NULL when absent. */
rpcu_obj *rpcu_objs_get(rpcu_objs *t, rpcu_kind kind, uint64_t cap);
/* Add or replace; NULL when out of memory. */
rpcu_obj *rpcu_objs_put(rpcu_objs *t, rpcu_kind kind, uint64_t cap);
void rpcu_objs_del(rpcu_objs *t, rpcu_obj *o);
void rpcu_objs_free(rpcu_objs *t);

/* ---- address ranges ---------------------------------------------------------- */

typedef enum rpcu_rkind {
	RPCU_R_DEVICE = 1,   /* cuMemAlloc and friends (sub says which) */
	RPCU_R_HOST,         /* pinned/registered host memory */
	RPCU_R_GLOBAL,       /* a module or library global */
	RPCU_R_VMM,          /* a cuMemAddressReserve range */
	RPCU_R_GRAPH         /* graph memory (a memory allocation node's; the
	                        driver owns it: owner = the captured graph) */
} rpcu_rkind;

typedef struct rpcu_range {
	RP_CM_RANGE_HEAD;   /* cap, size, live, seq, kernel_seq, kernel, moved */
	uint8_t kind;       /* rpcu_rkind */
	uint8_t pieces;     /* device memory backed by the reservation pieces */
	uint8_t sub;        /* SBT_CM_MEM_* of the allocating record */
	uint8_t in_window;  /* placed in a VA window: granules (device memory) or
	                       a sub-range of it (the program's own reservation) */
	uint64_t owner;     /* globals: captured module or library; graph memory:
	                       the captured graph of its allocation node */
	CUcontext ctx;      /* live context it was made in */
	void *host_buf;     /* registered host memory: our buffer (owned) */
	uint64_t dirty_seq; /* the last command since the last keyframe compared that
	                       may have written it (its footprint), 0: none */
} rpcu_range;

typedef struct rpcu_ranges {
	rpcu_range *v;       /* sorted by cap, never overlapping */
	size_t n, cap;
} rpcu_ranges;

/* Index of the range holding addr, or -1. */
long rpcu_ranges_find(const rpcu_ranges *m, uint64_t addr);
/* Index of the first range overlapping [addr, addr + len), or -1. */
long rpcu_ranges_overlap(const rpcu_ranges *m, uint64_t addr, uint64_t len);
/* Insert r (which must not overlap any range); -1 when out of memory. */
int rpcu_ranges_insert(rpcu_ranges *m, const rpcu_range *r);
void rpcu_ranges_remove(rpcu_ranges *m, size_t i);
/* The live address of captured [addr, addr + len): 0 and *live_out set when
 * one range holds it all; -1 otherwise (*index_out: the range holding addr,
 * or -1). */
int rpcu_ranges_translate(const rpcu_ranges *m, uint64_t addr, uint64_t len, uint64_t *live_out,
                          long *index_out);
/*
 * Pointer-valued words of a kernel parameter buffer: every 8-byte slot the
 * layout names (size 8), or with no layout every 8-byte-aligned word.  A
 * value inside a range (or one past its end) marks the range as used by
 * this launch (seq, kernel); when the range moved, the value is rewritten
 * to the live address.  Returns the number of values rewritten.
 */
size_t rpcu_ranges_patch_params(rpcu_ranges *m, uint8_t *buf, size_t len, const uint8_t *layout,
                                size_t nlayout, uint64_t seq, const char *kernel);
/* The same rewrite over device data [buf, buf + len) that will live at
 * captured address dst (alignment follows dst): values inside moved ranges
 * only.  Returns the number of values rewritten. */
size_t rpcu_ranges_patch_data(const rpcu_ranges *m, uint8_t *buf, size_t len, uint64_t dst);
void rpcu_ranges_free(rpcu_ranges *m);

/* ---- the backend's state ------------------------------------------------------ */

/* A granularity-aligned reservation at a captured address, backed by one
 * cuMemCreate allocation.  refs: live captured allocations inside it;
 * a piece with none stays mapped (for address reuse) until teardown. */
typedef struct rpcu_piece {
	uint64_t base, size;
	CUmemGenericAllocationHandle handle;
	unsigned refs;
} rpcu_piece;

/*
 * A device address window (see rpcu_window.c): capture placed device
 * allocations inside [base, base + size) of captured device `device`, and
 * the replay reserves the same range once and maps allocations at their
 * captured addresses inside it.  From a tsVaWindow record, or the default
 * window when the trace has none and its allocations lie there.
 */
typedef struct rpcu_window {
	int device;          /* captured device ordinal */
	uint64_t base, size;
	uint8_t from_record; /* a tsVaWindow record (else the default window) */
	uint8_t tried;       /* reservation attempted in this run */
	uint8_t reserved;    /* held at exactly base in this run */
	char why[160];       /* tried and not reserved: why */
} rpcu_window;

/* The default window of captured device n: RPCU_WINDOW_BASE + n *
 * RPCU_WINDOW_SIZE (what same-address capture reserves without a record). */
#define RPCU_WINDOW_BASE 0x200000000000ull
#define RPCU_WINDOW_SIZE ((uint64_t)512 << 30)
#define RPCU_WINDOW_MAX_DEVICES 16

/* One mapped granule of a window: live allocations touching it. */
typedef struct rpcu_granule {
	uint64_t addr;
	unsigned refs;
} rpcu_granule;

/* The replay's result of a copy a checkpoint may name. */
typedef struct rpcu_copy {
	uint64_t seq;          /* the copy's record */
	const char *call;      /* its call's name (static) */
	uint8_t *ptr;          /* its bytes: buf, or live pinned memory */
	uint8_t *buf;          /* owned, or NULL */
	uint64_t len;
	uint64_t vstart;       /* checkpoint coordinate (object + offset) of ptr[0] */
	CUevent done;          /* recorded after an async copy, or NULL */
	CUcontext ctx;         /* where done lives */
	int served;            /* returned to the core: free at the next call */
	const char *why_not;   /* non-NULL: cannot be replayed, says why */
	/* for the mismatch note */
	rp_cm_copy_source src; /* what it read, as it was at the copy */
	uint8_t alloc_sub;     /* the SBT_CM_MEM_* that made it */
} rpcu_copy;

/* Host bytes of an async upload, kept until its event says it is done. */
typedef struct rpcu_stage {
	void *buf;
	size_t len;
	CUevent done;
	CUcontext ctx;
} rpcu_stage;

/* Per captured thread: its context stack and its per-thread stream. */
#define RPCU_CTX_DEPTH 16
typedef struct rpcu_thread {
	uint64_t tid;
	uint64_t stack[RPCU_CTX_DEPTH]; /* captured contexts, [depth - 1] current */
	unsigned depth;
	uint64_t pt_ctx[4];            /* captured context of each per-thread stream */
	CUstream pt_stream[4];
	uint8_t pt_capturing[4];
} rpcu_thread;

/* A CUDA array the trace created (cuArrayCreate, cuArray3DCreate): its
 * extent, to check the copies that name it, and its live handle. */
typedef struct rpcu_array {
	uint64_t cap, live;    /* captured and live CUarray */
	uint64_t seq;          /* the record that created it */
	uint64_t row_bytes;    /* width x element size; 0: a format we cannot size */
	uint64_t height, depth; /* at least 1 */
	CUcontext ctx;         /* live context current when it was made */
} rpcu_array;

/* An application VMM mapping (cuMemMap), for teardown. */
typedef struct rpcu_vmap {
	uint64_t live, size;
} rpcu_vmap;

/* Captured device memory the application's cuMemSetAccess made read-only
 * (CU_MEM_ACCESS_FLAGS_PROT_READ): a copy or memset into it faults on a
 * GPU, so one is refused first. */
/* An allocation the trace freed, for the message of a later record that
 * still names it (the last RPCU_FREED_KEEP frees are kept). */
#define RPCU_FREED_KEEP 64
typedef struct rpcu_freed {
	uint64_t cap, size;
	uint64_t seq;          /* the record that made it */
	uint64_t freed_seq;    /* the free */
} rpcu_freed;

typedef struct rpcu_readonly {
	uint64_t cap, size;
	uint64_t seq;          /* the cuMemSetAccess */
} rpcu_readonly;

typedef struct rpcu_state {
	rpcu_driver drv;
	sbt_reader *trace;
	int quiet;
	/* options */
	int single_stream;      /* --streams single (this run) */
	rp_cm_streams streams;  /* --streams (rp_cm.h) */
	unsigned run;           /* runs begun before this one (reset counts them) */
	int per_command;        /* --per-command */
	rp_cm_results percmd;   /* this run's results, in command order */
	int no_reserve;         /* --cuda-no-reserve */
	int relocate_memory;    /* --cuda-relocate-memory */
	int device_base;        /* --device N */
	int device_count;
	/* record type -> kind */
	uint32_t type_lo;
	size_t ntypes;
	int16_t *kind_of;       /* -1: not a model type */
	/* replay state (reset clears it) */
	rpcu_objs objs;
	rpcu_ranges ranges;
	rpcu_piece *pieces;      /* sorted by base */
	size_t npieces, cap_pieces;
	rpcu_array *arrays;      /* live CUDA arrays, in creation order */
	size_t narrays, cap_arrays;
	rpcu_copy *copies;
	size_t ncopies, cap_copies;
	uint64_t copy_bytes;
	rpcu_stage *stages;      /* FIFO: [stage_head, nstages) */
	size_t nstages, stage_head, cap_stages;
	uint64_t stage_bytes;
	rpcu_thread *threads;
	size_t nthreads, cap_threads;
	rpcu_vmap *vmaps;
	size_t nvmaps, cap_vmaps;
	rpcu_readonly *readonly;
	size_t nreadonly, cap_readonly;
	rpcu_freed freed[RPCU_FREED_KEEP]; /* a ring: the next goes at nfreed % KEEP */
	uint64_t nfreed;
	rpcu_gone *gone;         /* destroyed objects, in the order they went */
	size_t ngone, cap_gone;
	/* Work issued since rpcu_wait_work last saw the device idle: the
	 * context it went to, and whether it went to more than one (then a
	 * wait for one context does not make the device idle). */
	int work_pending;
	int work_multi;
	CUcontext work_ctx;
	rpcu_window *windows;    /* from the scan at open; kept across runs */
	size_t nwindows;
	int windows_pending;    /* some window not tried yet in this run */
	rpcu_granule *granules;  /* sorted by addr */
	size_t ngranules, cap_granules;
	int first_device;       /* captured ordinal of the first cuDeviceGet, -1: none */
	rp_cm_handle_set failed; /* handles only calls that failed at capture returned */
	void **graph_bufs;      /* host buffers captured into graphs: live until teardown */
	size_t ngraph_bufs, cap_graph_bufs;
	char *graphs_refused;   /* owned: a call not modeled changed a node of a graph the
	                           trace cannot name, so every later graph launch is refused
	                           naming it (rpcu_graph.c); NULL when none did */
	unsigned capturing;     /* stream captures begun in the replay and not ended */
	unsigned long long not_run_seen; /* the double's not-run count after the last launch */
	uint64_t not_run_seq;   /* first launch that ran nothing, 0: none */
	uint64_t last_launch_seq; /* the last launch issued, and its kernel */
	char last_kernel[64];
	char **not_run_names;   /* kernels already named once */
	size_t n_not_run_names;
	uint64_t cur_ctx_cap;   /* captured context now current in the replay */
	CUcontext cur_ctx;
	size_t granularity;     /* of the device pieces are made on; 0: not asked */
	int state_only;         /* restoring a keyframe: build objects, run no work */
	uint64_t restore_seq;   /* the keyframe replay started at, 0: none */
	uint64_t snap_left;     /* tsSnapshot records still to apply */
	/* A trimmed trace (one capture window of a run: an SBT_TYPE_WINDOW
	 * record first): the seq of its SBT_TYPE_SNAPSHOT_END, before which
	 * the window's state snapshot lies; 0 for a whole-run trace. */
	uint64_t window_snapshot_end;
	/* the record being executed, for messages */
	uint64_t seq;
	uint64_t tid;
	int ptds;
	const char *call;
	/* once per instance */
	int warned_moved;
	int warned_hostfn;
	int warned_hostnode;  /* the note on graph host nodes was printed */
	int warned_attr;
	int warned_texobj;
	int noted_mismatch;
	size_t ntexobjs;        /* live texture and surface objects */
	uint8_t *scratch;       /* checkpoint bytes read at the checkpoint */
	/* --profile (rpcu_profile.c) */
	rp_profile *profile;    /* borrowed from open's args; NULL: not profiling */
	struct rpcu_prof *prof; /* the timed commands of this run; owned */
	int fast_forward;       /* the record being executed is fast-forwarded */
	/* Full keyframes met mid-replay compared with the replay's memory
	 * (rpcu_snapshot.c; docs/cuda-replay.md "Keyframes compared") */
	int kf_check;           /* the trace has full keyframes, and no --schedule-seed */
	uint64_t kf_left;       /* tsSnapshot records of the full keyframe met mid-replay to come */
	int kf_compare;         /* that keyframe is compared (kf_check), not only its managed memory applied */
	uint64_t kf_seq;        /* its marker */
	int kf_synced;          /* its context work waited for (-1: that failed, not compared) */
	uint64_t kf_ranges_now; /* ranges compared in it so far */
	int kf_differs_now;     /* one of them differed */
	int kf_noted;           /* the first difference was told (once per replay) */
	rp_keyframe_report kf;  /* this run's */
	/* Stream memory waits replayed (rpcu_graph.c): an event of ours
	 * recorded after each record holding one, until it is seen complete;
	 * a keyframe met while one is pending is not compared (its write may
	 * come later in the trace: waiting for all work would never end). */
	struct rpcu_memop_mark { CUevent ev; CUcontext ctx; } *memop_marks;
	size_t nmemop_marks, cap_memop_marks;
	int memop_noted;        /* a keyframe left uncompared for one was told */
	int kf_note_said;       /* a keyframe's note from the recorder was told */
	/* --wait-timeout: the longest one entry point may stay in the driver
	 * (rpcu_bound.c; its own thread and mutex) */
	uint64_t wait_ns;
	struct rpcu_bound *bound;
} rpcu_state;

/* ---- rpcu_driver.c ----------------------------------------------------------- */

/* Open the driver and check for a device: RP_OK, or a message that says
 * which is missing. */
rp_status rpcu_driver_open(rpcu_driver *d, int *device_count, rp_diag *diag);
/* "CUDA_ERROR_INVALID_VALUE (1)" into buf. */
const char *rpcu_cu_name(const rpcu_driver *d, CUresult r, char *buf, size_t len);

/* ---- rpcu_backend.c: messages and shared helpers -------------------------------- */

/* Control characters (from names in a trace) in text become '?', so a
 * message cannot drive the terminal it is printed on. */
void rpcu_printable(char *text);
/* Write "record seq N (cuda.X): <message>" into diag; returns st. */
rp_status rpcu_fail(rpcu_state *s, rp_diag *diag, rp_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A failed driver call: names the call, the result and what it was for. */
rp_status rpcu_cufail(rpcu_state *s, rp_diag *diag, const char *fn, CUresult r, const char *what);
/* A driver entry point the trace needs and the driver lacks. */
rp_status rpcu_missing(rpcu_state *s, rp_diag *diag, const char *fn);
/* A driver entry point the record needs: RP_OK, or rpcu_missing's message. */
rp_status rpcu_need(rpcu_state *s, const void *fn, const char *name, rp_diag *diag);
#define RPCU_NEED(fn) rpcu_need(s, (const void *)(uintptr_t)s->drv.p_##fn, #fn, diag)
void rpcu_warn(rpcu_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The calling captured thread (created on first use); NULL: out of memory. */
rpcu_thread *rpcu_thread_get(rpcu_state *s, uint64_t tid);
/* Make the captured context cap current in the replay. */
rp_status rpcu_ctx_use(rpcu_state *s, uint64_t cap, rp_diag *diag);
/* The live stream for a captured stream handle of the current record
 * (special handles, per-thread streams and --streams single included);
 * *capturing_out: the stream is being captured into a graph. */
rp_status rpcu_stream_resolve(rpcu_state *s, uint64_t cap, CUstream *out, int *capturing_out,
                              rp_diag *diag);
/* cuStreamWriteValue32/64, cuStreamWaitValue32/64 and cuStreamBatchMemOp
 * (rpcu_graph.c): the recorded operations, mapped as a batch memory-op
 * node's, issued on the record's stream. */
rp_status rpcu_exec_stream_memop(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* Whether a stream memory wait replayed so far may still be waiting
 * (completed marks are dropped); rpcu_memop_release drops them all. */
int rpcu_memop_pending(rpcu_state *s);
void rpcu_memop_release(rpcu_state *s);
/* The live device ordinal of the current context. */
int rpcu_current_ordinal(rpcu_state *s);
/* Remember / ask whether a captured handle was only ever returned by a call
 * that failed at capture (records naming it are skipped). */
void rpcu_failed_note(rpcu_state *s, uint64_t cap);
int rpcu_failed_has(const rpcu_state *s, uint64_t cap);
/* Remember that the object (kind, cap) is gone as of the current record;
 * the seq that took it, or 0 when it never went. */
void rpcu_gone_note(rpcu_state *s, rpcu_kind kind, uint64_t cap);
uint64_t rpcu_gone_seq(const rpcu_state *s, rpcu_kind kind, uint64_t cap);
/* The message for a record naming an object the replay does not have:
 * "never created in the trace", or "destroyed at seq N" (what, e.g.
 * "stream", names it). */
rp_status rpcu_unknown(rpcu_state *s, rp_diag *diag, rpcu_kind kind, uint64_t cap, const char *what);
/* Wait for the work in flight in live context ctx (NULL: the current
 * one), as a careful application does before it frees or unloads what
 * that work may use.  Its error, if any, reaches the next call. */
void rpcu_wait_work(rpcu_state *s, CUcontext ctx);
/* After a launch: ask the test double whether it ran nothing, and say so
 * once per kernel. */
void rpcu_not_run_check(rpcu_state *s, const char *kernel);

/* ---- rpcu_window.c: VA windows and their granules ----------------------------------------- */

/* Read the trace once (at open): tsVaWindow records, the default windows
 * its allocations lie in, the first cuDeviceGet. */
rp_status rpcu_windows_scan(rpcu_state *s, rp_diag *diag);
/* Reserve the windows of the device at live ordinal `ordinal` not tried in
 * this run (its context is current). */
void rpcu_windows_open(rpcu_state *s, int ordinal);
/* The window holding all of [addr, addr + len), NULL for none. */
rpcu_window *rpcu_window_of(rpcu_state *s, uint64_t addr, uint64_t len);
/* Map every granule of [cap, cap + size) inside w (reserving w first if
 * needed) and take a reference on each: 0, or -1 with why (nothing taken). */
int rpcu_granules_acquire(rpcu_state *s, rpcu_window *w, uint64_t cap, uint64_t size, char *why,
                          size_t whylen);
/* Drop the references; granules left with none are unmapped. */
void rpcu_granules_release(rpcu_state *s, uint64_t cap, uint64_t size);
/* Unmap every granule and free every window (teardown). */
void rpcu_windows_close(rpcu_state *s);

/* ---- rpcu_image.c: module image architectures ---------------------------------------------- */

/* The SM architecture an image is built for (90 for sm_90): an ELF cubin's
 * e_flags, or each fatbin entry's arch field (written as "sm_90, sm_80"
 * into buf).  0 when unknown. */
unsigned rpcu_image_arch(const void *img, size_t len, char *buf, size_t buflen);

/* ---- rpcu_percmd.c: --per-command ---------------------------------------------- */

/* After the command record seq (call name, decoded c) ran: queue copies
 * of its footprint on its stream. */
rp_status rpcu_percmd_after(rpcu_state *s, uint64_t seq, const char *name, const sbt_cm_call *c,
                            rp_diag *diag);
/* rp_backend_ops.command_results: wait, hand every result to fn, free. */
rp_status rpcu_percmd_results(rpcu_state *s, rp_command_result_fn fn, void *ctx, rp_diag *diag);
/* Free the results of this run (their copies must have finished). */
void rpcu_percmd_free(rpcu_state *s);
/* Wait for the work of every context the trace made (what: for messages). */
rp_status rpcu_sync_contexts(rpcu_state *s, const char *what, rp_diag *diag);

/* ---- rpcu_exec.c: contexts, modules, launches, streams, events ------------------- */

/* Replay one decoded record through the table of calls. */
rp_status rpcu_exec(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* The kind is a state record, replayed while restoring a keyframe. */
int rpcu_exec_is_state(sbt_cm_kind k);
rp_status rpcu_exec_launch(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* The live function or kernel a launch record (or a graph's kernel node)
 * names, or a message saying why there is none. */
rp_status rpcu_kfunc_find(rpcu_state *s, const sbt_cm_call *c, rpcu_obj **out, rp_diag *diag);
/* A launch record's parameters made ready for the driver: the bytes
 * copied and their pointers patched, checked against the kernel, handed
 * over as kernelParams (args) or as the extra form (extra_arg). */
typedef struct rpcu_kargs {
	uint8_t *buf;       /* owned */
	size_t buf_len;
	void **args;        /* owned; NULL when extra_arg is used or nothing is passed */
	void *extra[5];
	void **extra_arg;   /* extra, or NULL */
	char name_buf[256];
	const char *kernel; /* printable name, or NULL */
} rpcu_kargs;
rp_status rpcu_kargs_make(rpcu_state *s, const sbt_cm_call *c, rpcu_obj *f, rpcu_kargs *a, rp_diag *diag);
void rpcu_kargs_free(rpcu_kargs *a);
/* Work recorded while its stream was being captured into a graph (or on a
 * stream the replay has capturing) is skipped unless the replay is
 * capturing too, which puts it in the replay's graph. */
int rpcu_capture_skip(const rpcu_state *s, const sbt_cm_call *c, int capturing);
/* A cuStreamEndCapture that failed at capture (the capture was
 * invalidated): the replay's capture of that stream is ended too and its
 * graph dropped, so the stream is usable again. */
void rpcu_capture_abandon(rpcu_state *s, const sbt_cm_call *c);

/* ---- rpcu_place.c: allocations, pinned host memory, VMM, captured ranges ----------- */

/* Add a range, first dropping (and releasing) any stale range it overlaps:
 * the trace freed those through a call it did not record. */
rp_status rpcu_mem_add_range(rpcu_state *s, const rpcu_range *r, rp_diag *diag);
/* Drop the globals of a module or library being unloaded. */
void rpcu_mem_forget_owner(rpcu_state *s, uint64_t owner);
/* A context is going: forget the memory made in it (it goes with it). */
void rpcu_mem_forget_ctx(rpcu_state *s, CUcontext ctx);
/* Undo what made range i, then forget it.  Returns the failing driver
 * result (the range is forgotten either way). */
CUresult rpcu_range_release(rpcu_state *s, size_t i, int driver);
/* Unmap and free piece i and drop it from the table (teardown). */
void rpcu_piece_free(rpcu_state *s, size_t i);
rp_status rpcu_alloc_device(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_alloc_host(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* cuMemFree, cuMemFreeAsync. */
rp_status rpcu_exec_free(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* cuMemFreeHost, cuMemHostUnregister. */
rp_status rpcu_exec_free_host(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* The application's own VMM calls. */
rp_status rpcu_do_cuMemCreate(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_do_cuMemRelease(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_do_cuMemAddressReserve(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_do_cuMemAddressFree(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_do_cuMemMap(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_do_cuMemUnmap(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
rp_status rpcu_do_cuMemSetAccess(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);

/* ---- rpcu_stage.c: host buffers of async uploads and of copies kept for checkpoints -- */

/* Release every host buffer of an async upload whose event has fired;
 * wait: wait for all of them. */
void rpcu_stages_poll(rpcu_state *s, int wait);
/* An event recorded on stream now, in the current context; NULL if the
 * driver cannot make one (the caller then waits for the stream). */
CUevent rpcu_mark(rpcu_state *s, CUstream stream);
/* Keep buf (owned from here on) until the work on stream so far has run. */
rp_status rpcu_stage_push(rpcu_state *s, void *buf, size_t len, CUstream stream, rp_diag *diag);
/* Remember a copy's result for its checkpoint.  src_cap: the captured
 * source (for the mismatch note). */
rpcu_copy *rpcu_copy_add(rpcu_state *s, uint8_t *ptr, uint8_t *buf, uint64_t len, uint64_t vstart,
                         uint64_t src_cap);
/* Drop kept copy i (its buffer and event). */
void rpcu_copy_drop(rpcu_state *s, size_t i);
/* Free the copies already returned to the core. */
void rpcu_copies_release_served(rpcu_state *s);

/* ---- rpcu_copy.c: copies and memsets -------------------------------------------------- */

/* Forget the read-only spans overlapping captured [addr, addr + len)
 * (their access changed, or their mapping went). */
void rpcu_readonly_forget(rpcu_state *s, uint64_t addr, uint64_t len);
/* The kind is a stream-ordered (async) copy or memset. */
int rpcu_is_async(sbt_cm_kind k);
/* The live address of captured [addr, addr + len), or a message naming what. */
rp_status rpcu_translate(rpcu_state *s, uint64_t addr, uint64_t len, const char *what, uint64_t *live,
                         rp_diag *diag);
/* The blob id, which must hold exactly size bytes, read into *out (owned). */
rp_status rpcu_blob_exact(rpcu_state *s, uint64_t id, uint64_t size, uint8_t **out, rp_diag *diag);
/* Copies and memsets on the live stream of their record; a kind that is
 * not async was host-synchronous, so they wait for the stream after it. */
rp_status rpcu_copy_htod(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag);
rp_status rpcu_copy_dtoh(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag);
rp_status rpcu_copy_dtod(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag);
rp_status rpcu_copy_htoh(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag);
rp_status rpcu_copy_any(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                        rp_diag *diag);
rp_status rpcu_copy_peer(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                         rp_diag *diag);
rp_status rpcu_copy_3d(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream, rp_diag *diag);
/* Graph nodes (rpcu_graph.c): a memcpy node's live copy (host buffers
 * kept for the run), a memset record's live destination (0: nothing to
 * write), host memory a graph node uses, kept (owned) to the run's end. */
rp_status rpcu_copy3d_node(rpcu_state *s, const sbt_cm_call *c, CUDA_MEMCPY3D *m, rp_diag *diag);
rp_status rpcu_memset_dst(rpcu_state *s, const sbt_cm_call *c, int two_d, CUdeviceptr *d_out, rp_diag *diag);
rp_status rpcu_graph_keep(rpcu_state *s, void *buf, rp_diag *diag);
/* Graphs built node by node (rpcu_graph.c), one per kind. */
rp_status rpcu_exec_graph_node(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* Attribute i of c's attrs (a launch's, or a kernel node's), its event
 * handle or access policy window address mapped to the replay's. */
rp_status rpcu_launch_attr(rpcu_state *s, const sbt_cm_call *c, size_t i, CUlaunchAttribute *out, rp_diag *diag);
/* Restoring a keyframe: a cuGraphLaunch passed over (objects only). */
void rpcu_graph_launch_passed(rpcu_state *s, const sbt_cm_call *c);
/* Restoring keyframe kf_seq, whose n snapshot records of stream-ordered
 * memory (sub SBT_CM_MEM_ASYNC) are at the captured addresses addrs:
 * the graph memory among them is allocated again by launching, on the
 * null stream, the exec whose launch left it allocated, then
 * synchronizing (the driver allocates graph memory at launches only). */
rp_status rpcu_graph_gmem_restore(rpcu_state *s, uint64_t kf_seq, const uint64_t *addrs, size_t n, rp_diag *diag);
/* A cuStreamBeginCapture record naming a graph (parent; deps: the nodes
 * the capture follows): cuStreamBeginCaptureToGraph on live, the stream,
 * into the replay's graph; a graph replay gave up on (marked) gets a
 * capture of its own, which rpcu_capture_end drops. */
rp_status rpcu_graph_capture_to(rpcu_state *s, const sbt_cm_call *c, CUstream live, rp_diag *diag);
/* rpcu_exec.c: an ordinary capture begun on live (relaxed mode), counted. */
rp_status rpcu_capture_begin_plain(rpcu_state *s, CUstream live, rp_diag *diag);
/* The same record with --streams single (no stream to capture on): the
 * graph is marked, its later instantiations are refused at launch. */
rp_status rpcu_graph_capture_single(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag);
/* cuMemcpyHtoA, AtoH, AtoD, DtoA, AtoA and the async HtoA and AtoH. */
rp_status rpcu_copy_array(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                          rp_diag *diag);
rp_status rpcu_memset(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream, rp_diag *diag);
/* A copy or memset recorded during stream capture, issued into the
 * replay's capture of the same stream. */
rp_status rpcu_capture_work(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                            rp_diag *diag);

/* ---- rpcu_snapshot.c: keyframe snapshots ------------------------------------------------ */

rp_status rpcu_snapshot(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* A full keyframe (count snapshot records) met mid-replay at marker seq:
 * its managed-memory records are applied and, with compare set, its others
 * compared with the replay's memory as they come. */
void rpcu_snapshot_compare_begin(rpcu_state *s, uint64_t seq, uint64_t count, int compare);

/* ---- rpcu_check.c: checkpoints ---------------------------------------------------------- */

/* The bytes checkpoint cp asks for (borrowed, valid until the next call). */
rp_status rpcu_checkpoint_bytes(rpcu_state *s, const sbt_checkpoint *cp, const void **bytes_out,
                                rp_diag *diag);

/* ---- rpcu_profile.c: --profile ---------------------------------------------------------- */

/* Run one launch, copy or memset (run) between two timing events recorded
 * on its live stream (stream_cap: its captured stream).  Work that is
 * fast-forwarded, restored or captured into a graph is run untimed. */
rp_status rpcu_profile_exec(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, uint64_t stream_cap,
                            rp_status (*run)(rpcu_state *, sbt_cm_kind, const sbt_cm_call *,
                                             rp_diag *),
                            rp_diag *diag);
/* A context is about to go (cuCtxDestroy, the last primary release, a
 * primary reset): measure its timed commands while their events live. */
rp_status rpcu_profile_ctx_ending(rpcu_state *s, CUcontext ctx, rp_diag *diag);
/* Wait for the device; hand every timing of this run to s->profile. */
rp_status rpcu_profile_finish(void *state, rp_diag *diag);
/* Destroy the timing events (teardown, while their contexts live). */
void rpcu_profile_release(rpcu_state *s);

/* ---- rpcu_bound.c: the bound on a call into the driver ------------------------------------ */

/* The default of tsreplay --wait-timeout, as the Vulkan backend's. */
#define RPCU_WAIT_DEFAULT_NS (60ull * 1000000000ull)
/* --wait-timeout SECONDS (> 0, fractions allowed) in ns, or RP_ERR_USAGE. */
rp_status rpcu_bound_parse(const char *text, uint64_t *ns_out);
rp_status rpcu_bound_init(rpcu_state *s, uint64_t ns, rp_diag *diag);
/* An entry point begins: record seq (static call name), or, with seq 0,
 * doing (a static phrase).  Past the bound the process ends with exit 1
 * and a message naming it. */
void rpcu_bound_arm(rpcu_state *s, uint64_t seq, const char *call, const char *doing);
void rpcu_bound_disarm(rpcu_state *s);
/* Stop the watchdog (NULL-safe). */
void rpcu_bound_free(rpcu_state *s);

/* ---- rpcu_texobj.c: CUDA arrays, texture and surface objects ---------------------------- */

rp_status rpcu_exec_texobj(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* A launch whose parameter (8 bytes, as CUtexObject and CUsurfObject
 * are) holds a texture or surface object of the trace whose memory or
 * array was freed or destroyed since it was made: RP_ERR_TRACE naming
 * both, before the kernel reads freed memory.  buf: the record's packed
 * parameters, as captured. */
rp_status rpcu_texobj_check_launch(rpcu_state *s, const sbt_cm_call *c, const uint8_t *buf, size_t nlayout,
                                   const char *kernel, rp_diag *diag);
/* cuArrayCreate, cuArray3DCreate, cuArrayDestroy. */
rp_status rpcu_exec_array(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag);
/* The live handle of the array side of a copy whose region (x in bytes,
 * y, z; width bytes x height x depth) lies inside the array, or a message
 * naming the side ("source", "destination"). */
rp_status rpcu_array_region(rpcu_state *s, const char *what, uint64_t cap, uint64_t x, uint64_t y, uint64_t z,
                            uint64_t width, uint64_t height, uint64_t depth, CUarray *live, rp_diag *diag);
/* A keyframe without SBT_CM_KF_ARRAYS does not hold array contents:
 * RP_ERR_UNSUPPORTED, naming the first live array, when a --range would
 * start at such a keyframe at seq while one is live. */
rp_status rpcu_arrays_check_start(rpcu_state *s, uint64_t seq, rp_diag *diag);
/* The same for a copy by byte offset into the array (cuMemcpyHtoA and
 * the others): offset + len must lie inside the array's bytes. */
rp_status rpcu_array_span(rpcu_state *s, const char *what, uint64_t cap, uint64_t offset, uint64_t len,
                          CUarray *live, rp_diag *diag);
/* A keyframe's tsSnapshot of rows of an array (sub SBT_CM_MEM_ARRAY). */
rp_status rpcu_snapshot_array(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag);
/* Teardown: destroy every live array, each in its own context. */
void rpcu_arrays_release(rpcu_state *s);

#endif
