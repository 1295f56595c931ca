/*
 * rphip_internal.h - internals of the HIP replay backend (prefix rphip_).
 *
 * What a replay keeps:
 *   - objects: captured handle -> live handle, per kind (modules, host
 *     stubs and functions, streams, events, graphs, graph execs), in the
 *     core's table (rp_cm_handles, hashed on (kind, handle), as CUDA's);
 *   - address ranges: captured device range -> live address (sorted by
 *     captured address).  A hipMalloc'd range is placed at its captured
 *     address when the runtime lets us reserve it (hipMemAddressReserve
 *     with the address as hint, hipMemCreate, hipMemMap, hipMemSetAccess);
 *     otherwise it is allocated anywhere and pointer arguments of
 *     launches are rewritten: every global_buffer argument of the code
 *     object's metadata, and every 8-byte word of a by_value argument that
 *     lies inside a moved range (a struct's pointers: the metadata does not
 *     mark them).  Module globals and the host shadows of __device__
 *     variables are ranges too;
 *   - the results of device-to-host copies until their checkpoint asks;
 *   - host buffers a captured graph's copies read, until reset;
 *   - with --per-command, the copies of each command's footprint
 *     (rphip_percmd.c);
 *   - with --profile, the two timing events of each timed command until
 *     the run is measured (rphip_profile.c);
 *   - keyframes (rphip_snapshot.c): the snapshot records left to restore,
 *     or to compare with the replay's memory, and what the comparison
 *     found (per range: the last command that may have written it).
 * Everything is single-threaded: the core calls one entry at a time.
 */
#ifndef TRACESMITH_RPHIP_INTERNAL_H
#define TRACESMITH_RPHIP_INTERNAL_H

#include <hip/hip_runtime_api.h>

#include <stddef.h>
#include <stdint.h>

#include "replayer/hip/rphip_backend.h"
#include "replayer/rp_cm.h"
#include "serializer/amdgpu/sbt_amd.h"
#include "serializer/sbt_compute.h"

/* X(name): each is called through a pointer of the type the header
 * declares it with (__typeof__), looked up with dlsym. */
#define RPHIP_RUNTIME_LIST(X)                                                      \
	X(hipGetDeviceCount) X(hipSetDevice) X(hipDeviceSynchronize) X(hipGetErrorName) \
	X(hipModuleLoadData) X(hipModuleUnload) X(hipModuleGetFunction)                 \
	X(hipModuleGetGlobal) X(hipModuleLaunchKernel)                                  \
	X(hipMalloc) X(hipFree) X(hipMemGetAllocationGranularity)                       \
	X(hipMemAddressReserve) X(hipMemAddressFree) X(hipMemCreate) X(hipMemRelease)   \
	X(hipMemMap) X(hipMemUnmap) X(hipMemSetAccess)                                  \
	X(hipMemcpyAsync) X(hipMemsetAsync) X(hipMemsetD16Async) X(hipMemsetD32Async)   \
	X(hipMemcpy2DAsync) X(hipMemcpy3DAsync) X(hipMemset3DAsync)                     \
	X(hipStreamCreateWithPriority) X(hipStreamDestroy) X(hipStreamSynchronize)      \
	X(hipStreamWaitEvent) X(hipStreamBeginCapture) X(hipStreamEndCapture)           \
	X(hipEventCreateWithFlags) X(hipEventDestroy) X(hipEventRecord)                 \
	X(hipEventSynchronize) X(hipEventElapsedTime) X(hipDeviceGetName)               \
	X(hipGraphInstantiate) X(hipGraphLaunch) X(hipGraphExecDestroy) X(hipGraphDestroy) \
	X(hipArray3DCreate) X(hipFreeArray) X(hipDrvMemcpy3DAsync)                      \
	X(hipMipmappedArrayCreate) X(hipMipmappedArrayGetLevel) X(hipMipmappedArrayDestroy)

/* The test double's count of launches that ran nothing (tests/doubles/hip/
 * thd_ext.h); absent from the real runtime. */
#define RPHIP_NOT_RUN_SYMBOL "tship_double_launches_not_run"

typedef struct rphip_runtime {
	void *dl;
	char path[256];
	unsigned long long (*not_run)(void); /* NULL unless the double */
#define RPHIP_X_MEMBER(name) __typeof__(name) *p_##name;
	RPHIP_RUNTIME_LIST(RPHIP_X_MEMBER)
#undef RPHIP_X_MEMBER
} rphip_runtime;

typedef enum rphip_kind {
	RPHIP_O_NONE = 0,
	RPHIP_O_MODULE,
	RPHIP_O_FUNCTION, /* a hipModuleGetFunction handle, or a <<<>>> host stub */
	RPHIP_O_STREAM,
	RPHIP_O_EVENT,
	RPHIP_O_GRAPH,
	RPHIP_O_GRAPHEXEC,
	RPHIP_O_ARRAY,    /* a HIP array (rphip_array.c) */
	RPHIP_O_CTX,      /* a context: its device (rphip_ctx.c) */
	RPHIP_O_MIPMAP,   /* a mipmapped array (rphip_array.c) */
	RPHIP_O_MEMHANDLE /* the program's hipMemCreate handle (rphip_vmm.c) */
} rphip_kind;

typedef struct rphip_obj {
	RP_CM_HANDLE_HEAD;         /* cap, kind (rphip_kind), dead */
	void *live;
	int capturing;             /* streams: between Begin/EndCapture in the replay */
	sbt_amd_meta *meta;        /* modules: the kernels of its code object (owned) */
	const sbt_amd_kernel *k;   /* functions: in their module's meta */
	uint64_t module;           /* functions from hipModuleGetFunction: the captured module */
	int unloaded;              /* functions: their module was unloaded (k is gone) */
	char name[96];             /* functions: the kernel */
	/* arrays: the recorded extent (row bytes 0: the format's element size
	 * is not known here, the runtime checks), and the record that made it */
	uint64_t row_bytes, rows, slices, made_seq;
	int64_t device;            /* contexts: the trace's device it is */
	struct rphip_gnodes *gn;   /* graphs built node by node: their nodes; execs
	                              of them: the nodes as instantiated, which the
	                              exec setters change (owned) */
	uint64_t set_seq;          /* execs: the first exec setter since the live exec
	                              was built (0: none): rebuilt at its next launch */
	void *live_graph;          /* graph execs of such graphs: the live graph built
	                              for the instantiation (destroyed with the exec) */
	char *not_modeled;         /* graphs and execs: the call (and seq) that changed
	                              them in a way replay does not model (owned; NULL:
	                              none); such an exec has no live one */
	/* streams: the work recorded into the capture going on on them since
	 * it began; graphs made by stream capture: that work, as a chain of
	 * nodes, for a child graph node of them (owned; rphip_graph.c) */
	struct rphip_gnodes *cap_gn;
	char *cap_why;             /* such a capture's first record a child graph
	                              node cannot replay, and its seq (owned) */
} rphip_obj;

typedef struct rphip_range {
	RP_CM_RANGE_HEAD;          /* cap, size, live, seq, kernel_seq, kernel, moved */
	int placed;                /* reserved + mapped at cap (placement pieces) */
	int in_window;             /* at cap in a reserved window (rphip_window.c) */
	int global;                /* a module global or a __device__ shadow: not freed */
	int vmm;                   /* the program's hipMemAddressReserve: freed with
	                              hipMemAddressFree (rphip_vmm.c) */
	uint64_t res_size;         /* placed: the reservation's size */
	uint64_t dirty_seq;        /* the last command since the last keyframe that may
	                              have written it (0: none): compared at the next one */
	hipMemGenericAllocationHandle_t handle;
} rphip_range;

/* A captured address window (tsVaWindow record) reserved at its address. */
typedef struct rphip_window {
	uint64_t base, size;
} rphip_window;

/* Memory mapped in a window: [base, base + len), whole granules, one
 * handle, used by refs live ranges. */
typedef struct rphip_piece {
	uint64_t base, len;
	hipMemGenericAllocationHandle_t h;
	unsigned refs;
} rphip_piece;

/* A device-to-host copy's result, kept for its checkpoint. */
typedef struct rphip_copy {
	uint64_t seq;
	uint64_t vstart;           /* captured source address of buf[0] */
	uint8_t *buf;              /* owned */
	uint64_t len;
	int served;
	rp_cm_copy_source src;     /* for the mismatch note: what it read, as it was */
} rphip_copy;

typedef struct rphip_state {
	rphip_runtime rt;
	sbt_reader *trace;         /* borrowed */
	int quiet;
	int no_reserve;            /* --hip-no-reserve */
	int per_command;           /* --per-command */
	rp_cm_results percmd;      /* this run's --per-command results (rp_cm.h) */
	rp_cm_streams streams;     /* --streams (rp_cm.h) */
	unsigned run;              /* runs begun before this one */
	int single;                /* this run: every stream is the null stream */
	size_t granularity;        /* 0: not asked yet; SIZE_MAX: placement unavailable */
	rp_cm_handles objs;        /* of rphip_obj (rp_cm.h) */
	rphip_window *windows;     /* reserved this run (rphip_window.c) */
	size_t nwindows, capwindows;
	rphip_piece *pieces;       /* sorted by base */
	size_t npieces, cappieces;
	int warned_window;         /* a window could not be had: said once */
	struct rphip_vmap {        /* the program's live hipMemMap mappings (rphip_vmm.c) */
		uint64_t live, size;
	} *vmaps;
	size_t nvmaps, capvmaps;
	rphip_range *ranges;       /* sorted by cap */
	size_t nranges, capranges;
	rphip_copy *copies;
	size_t ncopies, capcopies;
	void **keep;               /* host buffers captured graphs read (owned) */
	size_t nkeep, capkeep;
	rp_cm_handle_set failed;   /* handles only failed calls returned */
	unsigned moved, placed;    /* allocations this run */
	unsigned long long not_run_seen;
	uint64_t not_run_seq;      /* first launch that ran nothing on the double */
	int warned_moved, warned_nomem_kind;
	int noted_mismatch;        /* the first differing copy was described */
	int fast_forward;          /* the record being executed is before --range's start */
	/* keyframes (rphip_snapshot.c) */
	int kf_check;              /* the trace has full keyframes: compare them mid-replay */
	int state_only;            /* restoring a keyframe: objects only, no work */
	uint64_t snap_left;        /* snapshot records left to apply (restore, partial) */
	uint64_t kf_left;          /* records left of a full keyframe met mid-replay */
	int kf_compare;            /* compare them (kf_check), else only apply managed ones */
	uint64_t kf_seq;           /* the keyframe being compared */
	int kf_synced;             /* its wait for the device: 0 not yet, 1 done, -1 failed */
	uint64_t kf_ranges_now;    /* ranges compared at it */
	int kf_differs_now;        /* one of them differed */
	int kf_noted;              /* the first difference was described */
	rp_keyframe_report kf;     /* this run's comparisons */
	/* --profile (rphip_profile.c) */
	rp_profile *profile;       /* borrowed from open's args; NULL: not profiling */
	struct rphip_prof *prof;   /* the timed commands of this run (owned) */
	hipEvent_t prof_end;       /* the end event of the command running, not recorded yet */
	hipStream_t prof_stream;   /* the live stream it goes on */
	/* devices: a trace's device k replays on device base + k when the
	 * runtime has it, else on device base (said once) */
	int live_devices;          /* the runtime's hipGetDeviceCount */
	int device_base;           /* --device N: the trace's device k on N + k */
	int cur_dev;               /* the live device made current last */
	int noted_devices;         /* the note about a device mapped to 0 was given */
	struct rphip_thread_dev {  /* each captured thread's current device (trace's) */
		uint64_t thread;
		int64_t device;
	} *thread_devs;
	size_t nthread_devs, capthread_devs;
	uint64_t thread;           /* the captured thread of the record being executed */
	int ptds;                  /* the record's ptds: its stream 0 is the thread's
	                              per-thread default stream (rphip_stream) */
	rphip_obj *build;          /* a node-built graph's capture stream, while it is built */
	char *graphs_refused;      /* a call not modeled changed a node of a graph the
	                              trace does not name: every later graph launch is
	                              refused (owned; the message) */
	/* the record being executed, for messages */
	uint64_t seq;
	const char *call;
} rphip_state;

/* rphip_backend.c */
rp_status rphip_fail(rphip_state *s, rp_diag *diag, rp_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
rp_status rphip_hipfail(rphip_state *s, rp_diag *diag, const char *fn, hipError_t r);
rphip_obj *rphip_obj_get(rphip_state *s, rphip_kind kind, uint64_t cap);
rphip_obj *rphip_obj_put(rphip_state *s, rphip_kind kind, uint64_t cap);
void rphip_obj_del(rphip_state *s, rphip_obj *o);
/* What an object owns, freed (rp_cm_handle_release_fn). */
void rphip_obj_release(void *obj);
long rphip_range_find(const rphip_state *s, uint64_t addr);
int rphip_range_add(rphip_state *s, const rphip_range *r);
void rphip_range_remove(rphip_state *s, size_t i);
/* Range i's memory given back to the runtime, and the range removed. */
void rphip_range_release(rphip_state *s, size_t i);
int rphip_keep(rphip_state *s, void *buf);
void rphip_failed_note(rphip_state *s, uint64_t cap);
int rphip_failed_has(const rphip_state *s, uint64_t cap);

/* rphip_exec.c */
/* The live device a trace's device replays on, made current (hipSetDevice
 * when it is not already). */
rp_status rphip_use_device(rphip_state *s, int64_t device, rp_diag *diag);
/* Every record but those made on a device of their own runs on its
 * captured thread's current device (0 until the thread's hipSetDevice):
 * the null stream and hipDeviceSynchronize are that device's. */
rp_status rphip_use_thread_device(rphip_state *s, rp_diag *diag);
/* The captured thread's current device becomes the trace's device
 * (hipSetDevice, and the context calls that change it). */
rp_status rphip_set_thread_device(rphip_state *s, int64_t device, rp_diag *diag);

/* rphip_graph.c: graphs built node by node (hipGraphCreate, the
 * hipGraphAdd*Node records, hipGraphAddDependencies): the nodes are kept
 * as records; hipGraphInstantiate(WithFlags) of such a graph builds a live
 * graph by capturing each node's work on a stream of its own, in an order
 * its dependencies allow, and instantiates it. */
int rphip_is_graph_build(sbt_cm_hip_call hc);
rp_status rphip_graph_build(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                            rp_diag *diag);
/* hip.tsGraphNotModeled: marks the graph or exec the call changed. */
rp_status rphip_graph_not_modeled(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
/* A launch of exec e: refused (a message naming the call that changed it
 * or its graph) when a call replay does not model changed it. */
rp_status rphip_graph_launch_check(rphip_state *s, const rphip_obj *e, rp_diag *diag);
/* hipGraphInstantiate(WithFlags) of graph object g, built node by node. */
rp_status rphip_graph_instantiate_nodes(rphip_state *s, rphip_obj *g, const sbt_cm_call *c,
                                        rp_diag *diag);
/* An exec setter (hipGraphExec*NodeSetParams) applied to the exec's copy
 * of its nodes; before a launch of an exec they changed, its live exec is
 * built again from them. */
rp_status rphip_graph_exec_set(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                               rp_diag *diag);
/* hipGraphExecUpdate, worked or failed with hipErrorGraphExecUpdateFailure:
 * the pairs it recorded applied to the exec's copy of its nodes. */
rp_status rphip_graph_exec_update(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
rp_status rphip_graph_exec_refresh(rphip_state *s, rphip_obj *e, rp_diag *diag);
/* What a graph object built node by node owns, freed. */
void rphip_gnodes_free(struct rphip_gnodes *gn);
/* Stream capture, for child graph nodes of graphs it makes: a capture
 * begins on stream object so (what it held before is dropped); record c
 * (hc), replayed into the capture going on on its stream, is kept there;
 * at the end of the capture the graph object made takes so's cap_gn and
 * cap_why. */
rp_status rphip_graph_capture_begin(rphip_state *s, rphip_obj *so, rp_diag *diag);
rp_status rphip_graph_capture_note(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                                   rp_diag *diag);
/* The captured stream handle of the stream the nodes are captured on
 * while one is built: rphip_stream answers s->build for it. */
#define RPHIP_BUILD_STREAM UINT64_MAX

/* rphip_ctx.c: contexts.  Whether hc is a context call, and its replay:
 * a context maps to the trace's device it is (clr's hipCtx_t is its
 * device); hipCtxSetCurrent / PushCurrent make that device the captured
 * thread's current one, PopCurrent and SetCurrent(NULL) the device the
 * record says was current after the call. */
int rphip_is_ctx(sbt_cm_hip_call hc);
rp_status rphip_ctx(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag);
/* The live stream of a captured one (0: the null stream; every stream
 * with --streams single); *obj its object when not NULL (NULL for 0). */
rp_status rphip_stream(rphip_state *s, uint64_t cap, hipStream_t *out, rphip_obj **obj,
                       rp_diag *diag);
rp_status rphip_exec(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag);
/* Undo every live object and range (close and reset). */
void rphip_teardown(rphip_state *s);

/* rphip_array.c: HIP arrays.  hipMallocArray, hipArrayCreate,
 * hipArray3DCreate (all through hipArray3DCreate from the recorded
 * descriptor); hipFreeArray, hipArrayDestroy. */
rp_status rphip_array_create(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
rp_status rphip_array_destroy(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
/* The driver-style mipmapped arrays: hipMipmappedArrayCreate from the
 * recorded descriptor and level count; hipMipmappedArrayGetLevel maps the
 * recorded level array to a new live view (an array whose `module` is
 * its mipmapped array: never freed by itself); hipMipmappedArrayDestroy. */
rp_status rphip_mipmap(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag);
/* A pitched copy with an array side (sub SBT_CM_COPY_ARRAY): through
 * hipDrvMemcpy3DAsync on the record's stream, each array's region checked
 * against its recorded extent first. */
rp_status rphip_copy_array(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                           rp_diag *diag);
/* A keyframe's rows of a HIP array (tsSnapshot sub SBT_CM_MEM_ARRAY:
 * handle, dst_y, dst_z, height rows of width bytes) written back, once the
 * work before it is done. */
rp_status rphip_array_snapshot(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
/* rphip_exec.c's helpers for it. */
int rphip_is_async(sbt_cm_hip_call hc);
rp_status rphip_after(rphip_state *s, hipStream_t stream, const rphip_obj *so, int sync, void *buf,
                      rp_diag *diag);
int rphip_copies_room(rphip_state *s);
/* Keep a device-to-host copy's result (buf, owned from here on) whose
 * first byte is checkpoint coordinate src (an allocation's address, or an
 * array's handle). */
void rphip_copy_keep(rphip_state *s, uint64_t src, uint8_t *buf, uint64_t len);
typedef struct rphip_region {
	uint64_t first, span, pitch, slice_rows;
} rphip_region;
int rphip_region_of(uint64_t ptr, uint64_t x, uint64_t y, uint64_t z, uint64_t pitch,
                    uint64_t slice_rows, uint64_t w, uint64_t h, uint64_t d, rphip_region *out);

/* rphip_window.c: same-address replay of a captured address window.
 * The runtime's minimum allocation granularity (asked once); SIZE_MAX
 * when it has none. */
size_t rphip_granularity(rphip_state *s);
/* A tsVaWindow record: reserve [c->dst, c->dst + c->size) at that address;
 * when the runtime places it elsewhere, release it and say once that its
 * allocations are moved. */
rp_status rphip_window_reserve(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
/* Map what [cap, cap + size) needs inside a reserved window (granules it
 * shares with live ranges are mapped already): 0, or -1 when no window
 * holds it or the runtime refused (nothing left behind). */
int rphip_window_map(rphip_state *s, uint64_t cap, uint64_t size);
/* The range [cap, cap + size) is gone: unmap the granules no live range
 * uses any more (the device's work is done). */
void rphip_window_unmap(rphip_state *s, uint64_t cap, uint64_t size);
/* Every window and what is still mapped in it released (teardown). */
void rphip_windows_release(rphip_state *s);

/* rphip_vmm.c: the program's own virtual-memory calls (hipMemAddressReserve,
 * hipMemAddressFree, hipMemCreate, hipMemRelease, hipMemMap, hipMemUnmap,
 * hipMemSetAccess).  A reservation is a range asked for at its captured
 * address (the runtime's hint), else anywhere with --hip-no-reserve or
 * when the runtime places it elsewhere (moved: pointers into it are
 * rewritten as a moved allocation's); a mapping or access call names its
 * addresses inside one. */
int rphip_is_vmm(sbt_cm_hip_call hc);
rp_status rphip_vmm(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag);
/* Every mapping still live unmapped (teardown, before handles and
 * reservations go). */
void rphip_vmm_unmap_all(rphip_state *s);

/* rphip_profile.c: --profile.  Run command record c (call hc) through
 * run between two timing events recorded on its live stream (not when it
 * is fast-forwarded or captured into a graph). */
rp_status rphip_profile_exec(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                             rp_status (*run)(rphip_state *, sbt_cm_hip_call, const sbt_cm_call *,
                                              rp_diag *),
                             rp_diag *diag);
/* Record the running command's end event now, before the host waits for
 * its stream (a synchronous copy or memset); nothing when none is pending. */
rp_status rphip_profile_end(rphip_state *s, rp_diag *diag);
/* rp_backend_ops.profile_finish: wait, hand every timing to s->profile. */
rp_status rphip_profile_finish(void *state, rp_diag *diag);
/* Destroy the timing events; forget the timed commands. */
void rphip_profile_release(rphip_state *s);

/* rphip_snapshot.c: keyframe snapshots.  A hip.tsSnapshot record:
 * restored (s->snap_left), compared (s->kf_left) or passed over. */
rp_status rphip_snapshot(rphip_state *s, const sbt_cm_call *c, rp_diag *diag);
/* A full keyframe of count records at seq met mid-replay: its managed
 * memory applied, the rest compared when compare is set. */
void rphip_snapshot_compare_begin(rphip_state *s, uint64_t seq, uint64_t count, int compare);
/* Whether call hc makes or drops an object (what a keyframe restore
 * replays from the trace's start). */
int rphip_exec_is_state(sbt_cm_hip_call hc);
/* The live address of captured [addr, addr + len) (what: for the message). */
rp_status rphip_translate(rphip_state *s, uint64_t addr, uint64_t len, const char *what,
                          uint64_t *live, rp_diag *diag);
/* Blob id into *out (owned), holding exactly size bytes (UINT64_MAX: any). */
rp_status rphip_blob(rphip_state *s, uint64_t id, uint64_t size, uint8_t **out, size_t *len_out,
                     rp_diag *diag);

/* rphip_percmd.c: --per-command, and the marks of keyframe comparison.
 * After command record c (call hc, the record being executed) ran: mark
 * the ranges of its footprint as written by it (when the trace has full
 * keyframes), and with --per-command queue copies of them on its
 * stream. */
rp_status rphip_percmd_after(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag);
/* rp_backend_ops.command_results: wait, hand every result to fn, free. */
rp_status rphip_percmd_results(rphip_state *s, rp_command_result_fn fn, void *ctx, rp_diag *diag);

#endif
