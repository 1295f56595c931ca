/*
 * thip_internal.h - the HIP interposer (libtracesmith_hip.so): an
 * LD_PRELOAD library over the HIP runtime (libamdhip64.so.5 / .so.6) that
 * records the calls of the compute record model (serializer/sbt_compute.h,
 * "hip.<call>" records) and counts every call it wraps.  docs/hip.md says
 * what it records and what it does not.
 *
 * Real functions are found with dlsym(RTLD_NEXT, name) at their first call
 * (thip_real), so the runtime the program was linked with answers; a
 * runtime the program opened itself with RTLD_LOCAL is found through the
 * first of its functions the program looks up on its handle (thip_adopt:
 * this library's dlsym hands out the wrappers there).  A call
 * made while another wrapped call is in progress on the same thread (the
 * runtime calling its own exports) is passed straight through, neither
 * counted as the program's nor recorded (cap_enter / cap_leave).
 *
 * State: thip_g, one process-wide struct.  Counters are atomics; the
 * registries (modules, functions, variables, allocations, pending
 * checkpoints) are guarded by thip_g.mu, held only to look up or change
 * them, never across a call into the runtime.
 */
#ifndef TRACESMITH_THIP_INTERNAL_H
#define TRACESMITH_THIP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

#include "capture/cap.h"
#include "interpose/hip/generated/thip_gen.h"
#include "serializer/amdgpu/sbt_amd.h"
#include "serializer/sbt_compute.h"

/*
 * Every entry point wrapped by hand: X(name, modeled).  The other
 * functions the HIP headers declare are counted by the generated
 * trampolines of generated/thip_tramp.S (scripts/hipgen/gen.py), which take
 * this list as the one place the hand-written exceptions are named.
 * modeled = 1
 * for those recorded as model records (their name is in SBT_CM_HIP_LIST,
 * or they record as one: hipLaunchKernel_spt as hipLaunchKernel, the
 * C++-mangled hipExtModuleLaunchKernel as hipExtModuleLaunchKernel;
 * __hipPushCallConfiguration when it fails: the <<<>>> launch it
 * configured is then never made); 2 for those whose content another
 * record carries (__hipPopCallConfiguration, and a push that worked: the
 * hipLaunchKernel that follows holds its grid, block, shared memory and
 * stream); 0 for those only counted.
 */
#define THIP_FN_LIST(X)                                                        \
	X(__hipRegisterFatBinary, 1) X(__hipRegisterFunction, 1)                   \
	X(__hipRegisterVar, 1) X(__hipUnregisterFatBinary, 1)                      \
	X(__hipRegisterManagedVar, 0)                                              \
	X(__hipPushCallConfiguration, 1) X(__hipPopCallConfiguration, 2)           \
	X(hipInit, 1) X(hipSetDevice, 1) X(hipDeviceSynchronize, 1)                \
	X(hipDeviceReset, 1)                                                       \
	X(hipModuleLoad, 1) X(hipModuleLoadData, 1) X(hipModuleLoadDataEx, 1)      \
	X(hipModuleUnload, 1) X(hipModuleGetFunction, 1) X(hipModuleGetGlobal, 1)  \
	X(hipLaunchKernel, 1) X(hipLaunchKernel_spt, 1)                            \
	X(hipModuleLaunchKernel, 1) X(hipExtModuleLaunchKernel, 1)                 \
	X(hipExtModuleLaunchKernel_mangled, 1)                                     \
	X(hipLaunchCooperativeKernel, 1) X(hipLaunchCooperativeKernel_spt, 1)      \
	X(hipLaunchHostFunc, 1)                                                    \
	X(hipGraphLaunch, 1) X(hipGraphInstantiate, 1) X(hipGraphExecDestroy, 1)   \
	X(hipGraphDestroy, 1)                                                      \
	X(hipMalloc, 1) X(hipMallocPitch, 1) X(hipMallocAsync, 1)                  \
	X(hipMallocFromPoolAsync, 1)                                               \
	X(hipMallocManaged, 1) X(hipHostMalloc, 1) X(hipHostRegister, 1)           \
	X(hipFree, 1) X(hipFreeAsync, 1) X(hipHostFree, 1) X(hipHostUnregister, 1) \
	X(hipMemGetAddressRange, 0)                                                \
	X(hipMemcpy, 1) X(hipMemcpyAsync, 1) X(hipMemcpyHtoD, 1)                   \
	X(hipMemcpyHtoDAsync, 1) X(hipMemcpyDtoH, 1) X(hipMemcpyDtoHAsync, 1)      \
	X(hipMemcpyDtoD, 1) X(hipMemcpyDtoDAsync, 1) X(hipMemcpyToSymbol, 1)       \
	X(hipMemcpyToSymbolAsync, 1) X(hipMemcpyFromSymbol, 1)                     \
	X(hipMemcpyFromSymbolAsync, 1)                                             \
	X(hipMemcpy2D, 1) X(hipMemcpy2DAsync, 1) X(hipMemcpyPeer, 1)               \
	X(hipMemcpyPeerAsync, 1) X(hipMemcpy3D, 1) X(hipMemcpy3DAsync, 1)          \
	X(hipMemcpyParam2D, 1) X(hipMemcpyParam2DAsync, 1)                         \
	X(hipMemset, 1) X(hipMemsetAsync, 1) X(hipMemsetD8, 1) X(hipMemsetD16, 1)  \
	X(hipMemsetD32, 1) X(hipMemsetD8Async, 1) X(hipMemsetD16Async, 1)         \
	X(hipMemsetD32Async, 1) X(hipMemset2D, 1) X(hipMemset2DAsync, 1)          \
	X(hipMemset3D, 1) X(hipMemset3DAsync, 1)                                   \
	X(hipStreamCreate, 1) X(hipStreamCreateWithFlags, 1)                       \
	X(hipStreamCreateWithPriority, 1) X(hipStreamDestroy, 1)                   \
	X(hipStreamSynchronize, 1) X(hipStreamQuery, 1) X(hipStreamWaitEvent, 1)   \
	X(hipStreamBeginCapture, 1) X(hipStreamEndCapture, 1)                      \
	X(hipEventCreate, 1) X(hipEventCreateWithFlags, 1) X(hipEventDestroy, 1)   \
	X(hipEventRecord, 1) X(hipEventSynchronize, 1) X(hipEventQuery, 1)         \
	X(hipMallocArray, 1) X(hipArrayCreate, 1) X(hipArray3DCreate, 1)           \
	X(hipFreeArray, 1) X(hipArrayDestroy, 1)                                   \
	X(hipMemcpy2DToArray, 1) X(hipMemcpy2DToArrayAsync, 1)                     \
	X(hipMemcpy2DFromArray, 1) X(hipMemcpy2DFromArrayAsync, 1)                 \
	X(hipMemcpyToArray, 1) X(hipMemcpyFromArray, 1)                           \
	X(hipMalloc3DArray, 1) X(hipMallocMipmappedArray, 1)                       \
	X(hipFreeMipmappedArray, 1) X(hipGetMipmappedArrayLevel, 1)                \
	X(hipMemcpy2DToArray_spt, 1) X(hipMemcpy2DFromArray_spt, 1)                \
	X(hipMemcpy3D_spt, 1)                                                      \
	X(hipCtxCreate, 1) X(hipCtxDestroy, 1) X(hipCtxSetCurrent, 1)              \
	X(hipCtxGetCurrent, 1) X(hipCtxPushCurrent, 1) X(hipCtxPopCurrent, 1)      \
	X(hipDevicePrimaryCtxRetain, 1) X(hipDevicePrimaryCtxRelease, 1)           \
	X(hipCtxGetDevice, 1)                                                      \
	X(hipGraphCreate, 1) X(hipGraphAddKernelNode, 1)                           \
	X(hipGraphAddMemcpyNode, 1) X(hipGraphAddMemcpyNode1D, 1)                  \
	X(hipGraphAddMemsetNode, 1) X(hipGraphAddEmptyNode, 1)                     \
	X(hipGraphAddDependencies, 1) X(hipGraphInstantiateWithFlags, 1)           \
	X(hipMipmappedArrayCreate, 1) X(hipMipmappedArrayGetLevel, 1)              \
	X(hipMipmappedArrayDestroy, 1)                                             \
	X(hipMemcpy_spt, 1) X(hipMemcpyAsync_spt, 1) X(hipMemcpyToSymbol_spt, 1)  \
	X(hipMemcpyFromSymbol_spt, 1) X(hipMemcpy2D_spt, 1) X(hipMemset_spt, 1)    \
	X(hipMemset2D_spt, 1) X(hipMemset3D_spt, 1) X(hipStreamSynchronize_spt, 1) \
	X(hipStreamQuery_spt, 1) X(hipStreamWaitEvent_spt, 1)                     \
	X(hipGraphAddChildGraphNode, 1) X(hipGraphAddEventRecordNode, 1)           \
	X(hipGraphAddEventWaitNode, 1) X(hipGraphAddHostNode, 1)                   \
	X(hipGraphAddMemcpyNodeFromSymbol, 1) X(hipGraphAddMemcpyNodeToSymbol, 1)  \
	X(hipGraphClone, 1) X(hipGraphDestroyNode, 1)                              \
	X(hipGraphRemoveDependencies, 1) X(hipGraphEventRecordNodeSetEvent, 1)     \
	X(hipGraphEventWaitNodeSetEvent, 1) X(hipGraphHostNodeSetParams, 1)        \
	X(hipGraphKernelNodeSetAttribute, 1) X(hipGraphKernelNodeSetParams, 1)     \
	X(hipGraphMemcpyNodeSetParams, 1) X(hipGraphMemcpyNodeSetParams1D, 1)      \
	X(hipGraphMemcpyNodeSetParamsFromSymbol, 1)                                \
	X(hipGraphMemcpyNodeSetParamsToSymbol, 1) X(hipGraphMemsetNodeSetParams, 1) \
	X(hipGraphExecChildGraphNodeSetParams, 1)                                  \
	X(hipGraphExecEventRecordNodeSetEvent, 1)                                  \
	X(hipGraphExecEventWaitNodeSetEvent, 1) X(hipGraphExecHostNodeSetParams, 1) \
	X(hipGraphExecKernelNodeSetParams, 1) X(hipGraphExecMemcpyNodeSetParams, 1) \
	X(hipGraphExecMemcpyNodeSetParams1D, 1)                                    \
	X(hipGraphExecMemcpyNodeSetParamsFromSymbol, 1)                            \
	X(hipGraphExecMemcpyNodeSetParamsToSymbol, 1)                              \
	X(hipGraphExecMemsetNodeSetParams, 1) X(hipGraphExecUpdate, 1)             \
	X(hipMemAddressReserve, 1) X(hipMemAddressFree, 1) X(hipMemCreate, 1)      \
	X(hipMemRelease, 1) X(hipMemMap, 1) X(hipMemUnmap, 1) X(hipMemSetAccess, 1) \
	X(hipGetProcAddress, 0)

typedef enum thip_fn {
#define THIP_X_FN(n, m) THIP_FN_##n,
	THIP_FN_LIST(THIP_X_FN)
#undef THIP_X_FN
	THIP_FN_COUNT
} thip_fn;

/* The name the runtime exports it under (the mangled one for
 * THIP_FN_hipExtModuleLaunchKernel_mangled). */
const char *thip_fn_name(thip_fn id);

#define THIP_EXT_LAUNCH_MANGLED                                                \
	"_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j"

/* One wrapped call in progress on this thread. */
typedef struct thip_call {
	thip_fn fn;
	int nested;  /* inside another wrapped call: pass through */
	int record;  /* record it (outermost, recording, TRACESMITH_API lets hip) */
	int ptds;    /* a _spt call: its record says ptds = 1 (set by the wrapper) */
	const struct thip_node *node; /* adding a graph node: its record's node fields */
} thip_call;

/* A graph node being added (thip_graph.c): node, parent and deps of its
 * record.  Its copy is recorded with no checkpoint and no work flag. */
typedef struct thip_node {
	uint64_t node, graph;
	const uint8_t *deps; /* packed u64 LE node handles */
	size_t deps_len;
} thip_node;

/* deps as packed u64 LE handles into a new buffer (*out owned by the
 * caller, NULL when there are none or out of memory); returns its length. */
size_t thip_graph_pack(const hipGraphNode_t *v, size_t n, uint8_t **out);

/* Start a wrapped call: set up on first use, count it, and return the real
 * function (NULL when the runtime does not export it: the caller returns
 * THIP_NO_RUNTIME, and one message said why).  Always pair with
 * thip_end. */
void *thip_begin(thip_call *call, thip_fn fn);
void thip_end(thip_call *call);
/* The runtime's fn for the interposer's own calls (keyframes): neither
 * counted nor recorded; NULL when the runtime does not export it.
 * THIP_OWN(name): the same, typed as the header declares name. */
void *thip_own(thip_fn fn);
#define THIP_OWN(name) ((__typeof__(name) *)thip_own(THIP_FN_##name))
#define THIP_NO_RUNTIME hipErrorNotInitialized

/* The runtime functions the interposer calls for itself that it does not
 * wrap by hand (the generated trampolines count the program's calls of
 * them).  Each is found once, in the same place as its trampoline's
 * (thip_core.c), so there is one answer per function.  THIP_RT(name): the
 * runtime's function typed as the header declares it, NULL when the
 * runtime does not export it. */
#define THIP_RT_LIST(X)                                                        \
	X(hipGetDevice) X(hipGetDeviceCount) X(hipDeviceCanAccessPeer)             \
	X(hipStreamIsCapturing) X(hipMemGetAllocationGranularity)                  \
	X(hipMemAddressReserve) X(hipMemAddressFree) X(hipMemCreate)               \
	X(hipMemRelease) X(hipMemMap) X(hipMemUnmap) X(hipMemSetAccess)           \
	X(hipRuntimeGetVersion)

typedef enum thip_rt {
#define THIP_X_RT(n) THIP_RT_##n,
	THIP_RT_LIST(THIP_X_RT)
#undef THIP_X_RT
	THIP_RT_COUNT
} thip_rt;

void *thip_rt_get(thip_rt id);
#define THIP_RT(name) ((__typeof__(name) *)thip_rt_get(THIP_RT_##name))

/* A lookup of name on a handle (this library's dlsym, hipGetProcAddress)
 * found the runtime's function f: this library's export of name to hand
 * out instead, when the wrapper calls f (or calls nothing yet: f becomes
 * its function, and f's library the runtime asked for the functions
 * RTLD_NEXT does not find); NULL to keep f (not a name this library
 * exports, one of its own, or another runtime's). */
void *thip_adopt(const char *name, void *f);

/* Record c as the HIP call `hcall` (payload encoded here); returns its seq
 * (0 when not recording). */
uint64_t thip_record(sbt_cm_hip_call hcall, const sbt_cm_call *c, unsigned flags);
/* Records of allocations, streams, module loads and arrays carry the
 * thread's current device (device, absent for 0), which a successful
 * hipSetDevice of the program's sets (thip_core.c). */
void thip_device_set(int device);
/* The calling thread's current device as thip_device_set last set it. */
int thip_device_get(void);

/* ---- same-address capture (thip_va.c) ------------------------------------ */

/* Place size bytes for the program's hipMalloc (Pitch, Async) in the current device's
 * window: 1 and *ptr, or 0 when the runtime is to be asked (no window, no
 * room: said once). */
int thip_va_alloc(size_t size, void **ptr);
/* Free what thip_va_alloc placed at ptr (after waiting for the device, as
 * hipFree does): 1, or 0 when ptr is not ours. */
int thip_va_free(void *ptr);
/* hipFreeAsync of what thip_va_alloc placed at ptr, on stream: released
 * once the stream has reached the free (told by an event recorded there
 * now, polled at later allocations and frees).  1, or 0 when ptr is not
 * ours. */
int thip_va_free_async(void *ptr, hipStream_t stream);
/* Stream-ordered frees of placed memory on a capturing stream: kept until
 * exit (the graph runs them). */
uint64_t thip_va_kept(void);
/* The placed allocation holding addr: 1 and its base and the size it
 * asked for, or 0. */
int thip_va_range(uint64_t addr, uint64_t *base_out, uint64_t *asked_out);

/* ---- registries (thip_reg.c) ------------------------------------------- */

/* An image the program handed the runtime, with what its metadata says.
 * blob is 0 when it could not be sized (note says why). */
typedef struct thip_image {
	uint64_t blob;
	size_t size;
	unsigned sub;          /* SBT_CM_IMAGE_* */
	char note[160];
	sbt_amd_meta *meta;    /* owned; NULL when unreadable */
} thip_image;

/* Size, store (cap_blob) and read the image at p (len bytes, SIZE_MAX when
 * the runtime gets no length).  The wrapper is followed to its bundle. */
void thip_image_capture(const void *p, size_t len, int recording, thip_image *out, unsigned *wrapper_version);

/* Modules: a fat binary's handle or a hipModule_t, with its metadata
 * (taken over from img->meta). */
void thip_module_add(uint64_t handle, thip_image *img);
void thip_module_remove(uint64_t handle);

/* Functions: host stubs (__hipRegisterFunction) and hipFunction_t handles,
 * with the kernel's name and explicit argument layout from its module's
 * metadata (none when the module has none). */
void thip_function_add(uint64_t handle, uint64_t module, const char *name);

/* What a launch needs of its function: name (borrowed, lives as long as
 * the process) and the layout of its explicit arguments. */
typedef struct thip_fninfo {
	const char *name;
	size_t nargs;
	uint32_t offset[64];
	uint32_t size[64];
	size_t params_len; /* end of the last explicit argument */
	int known;         /* the layout came from metadata */
} thip_fninfo;
/* The entry of a function handle (borrowed: entries are never freed, nor
 * changed once stored), the newest for a handle stored again; NULL for an
 * unknown handle or 0.  No lock, no allocation, no copy: inline, the entry
 * this thread's last launch found while no entry was stored since (a
 * program launches the same few functions over and over); else a walk of
 * the entries, newest first (thip_reg.c). */
typedef struct thip_fn_cache {
	uint64_t handle, gen;
	const thip_fninfo *info;
} thip_fn_cache;
extern __thread __attribute__((tls_model("initial-exec"))) thip_fn_cache thip_tls_fn;
extern _Atomic uint64_t thip_fn_gen; /* entries stored (thip_reg.c) */
const thip_fninfo *thip_function_find_slow(uint64_t handle);
static inline const thip_fninfo *thip_function_find(uint64_t handle)
{
	if (handle && handle == thip_tls_fn.handle &&
	    atomic_load_explicit(&thip_fn_gen, memory_order_relaxed) == thip_tls_fn.gen)
		return thip_tls_fn.info;
	return thip_function_find_slow(handle);
}

/* Variables registered with __hipRegisterVar by the fat binary module:
 * the device name of the host shadow at address host (NULL when unknown;
 * borrowed, never freed). */
void thip_var_add(uint64_t host, const char *name, size_t size, uint64_t module);
const char *thip_var_name(uint64_t host);

/* Device allocations (kind SBT_CM_MEM_*; recorded: its call was recorded;
 * module: the module of a global hipModuleGetGlobal named, dropped with
 * it, else 0), for hipMemcpyDefault directions, checkpoint objects and
 * keyframes. */
void thip_alloc_add(uint64_t base, uint64_t size, unsigned kind, int recorded, uint64_t module);
void thip_alloc_remove(uint64_t base);
/* Base of the allocation holding addr; 0 when none does. */
uint64_t thip_alloc_base(uint64_t addr);

/* What a keyframe may copy: a live device allocation or module global, or
 * a __device__ variable of a registered fat binary (symbol = 1: addr is
 * its host shadow, read with hipMemcpyFromSymbol). */
typedef struct thip_live {
	uint64_t addr, size;
	unsigned kind;  /* SBT_CM_MEM_* */
	int recorded;   /* made by a recorded call */
	int symbol;
} thip_live;
/* Every one live now, into a new array *out (owned by the caller; NULL
 * and 0 when out of memory). */
size_t thip_live_list(thip_live **out);

/* ---- keyframes (thip_kf.c) --------------------------------------------------------- */

/* Before a kernel launch the program makes on stream (recorded): the
 * launch's ordinal (from 1), after taking the keyframe the snapshot
 * policy asks for here (the start keyframe at the first launch; with
 * TRACESMITH_SNAPSHOT=launch one before every launch).  capturing: a
 * stream capture is going on (no keyframe: the device cannot be
 * synchronized). */
uint64_t thip_kf_before(hipStream_t stream, int capturing);
/* After the launch was recorded: the keyframe after it the policy asks
 * for (launch, or every N-th). */
void thip_kf_after(uint64_t ordinal, hipStream_t stream, int capturing);
/* Keyframes written, for the exit report. */
uint64_t thip_kf_count(void);

/* Async device-to-host copies, checkpointed when the program can see the
 * result: at the stream's synchronize (stream 0 matches any) or a device
 * synchronize. */
void thip_pending_add(uint64_t seq, uint64_t stream, const void *host, uint64_t src, uint64_t size);
/* A pitched region: depth slices of height rows of width bytes, rows
 * pitch bytes apart, slices pitch x slice_rows apart. */
typedef struct thip_rows {
	uint64_t pitch, slice_rows, width, height, depth;
} thip_rows;
/* The same for a pitched copy (hipMemcpy2DAsync, 3D): the region r at
 * host (its first byte); checkpointed packed (width bytes a row). */
void thip_pending_add_rows(uint64_t seq, uint64_t stream, const void *host, const thip_rows *r,
                           uint64_t src);
/* The region r at first packed into a new buffer (owned by the caller);
 * NULL when out of memory or too large. */
uint8_t *thip_rows_pack(const void *first, const thip_rows *r);
void thip_pending_flush(int all, uint64_t stream);
/* Events: hipEventRecord's stream and record seq noted (thip_event_note),
 * so that a hipEventSynchronize or hipEventQuery that worked checkpoints
 * the copies on that stream recorded before the event, as CUDA's
 * interposer does (thip_pending_flush_event); dropped at hipEventDestroy. */
void thip_event_note(uint64_t event, uint64_t stream, uint64_t seq);
void thip_event_drop(uint64_t event);
void thip_pending_flush_event(uint64_t event);

/* ---- pitched copies and arrays (thip_calls.c, thip_array.c) ------------- */

#define THIP_U(p) ((uint64_t)(uintptr_t)(p))

/* One side of a pitched copy: the pointer as passed (an array handle when
 * array is set), the position (bytes, rows, slices), the pitch and the
 * rows a slice (0 for 2D). */
typedef struct thip_side {
	const void *ptr;
	uint64_t x, y, z, pitch, slice_rows;
	int array;
} thip_side;

/* dst_type / src_type: CUmemorytype's numbers, as CUDA's pitched records
 * carry them (serializer/sbt_compute.h), so that readers of the model
 * (the emulator's footprints) take HIP's the same way. */
#define THIP_MEMORYTYPE_HOST 1
#define THIP_MEMORYTYPE_DEVICE 2
#define THIP_MEMORYTYPE_ARRAY 3

/* Record a pitched copy (hipMemcpy2D, hipMemcpyParam2D, hipMemcpy3D, the
 * array copies, and their async forms): depth (0: 2D, one slice) slices
 * of height rows of width bytes; dir as thip_copy_dir gives it, an array
 * side counting as device memory.  A host source's rows are stored
 * packed; a host destination's packed rows are checkpointed (async: at
 * the next synchronization the program can see), with the allocation
 * holding the source's first byte as object, or for an array source
 * object 0 and offset = its handle. */
void thip_pitched_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r, unsigned dir,
                         const thip_side *dst, const thip_side *src, uint64_t width,
                         uint64_t height, uint64_t depth, int async, hipStream_t stream);
/* hipMemcpy3D's record (hcall) of p: the pitched copy fields, array sides
 * in bytes (thip_calls.c). */
void thip_copy3d_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                        const struct hipMemcpy3DParms *p, int async, hipStream_t stream);
/* A kernel node's record (hipGraphAddKernelNode, hipGraphKernelNodeSetParams:
 * hcall): the launch fields of params as hipLaunchKernel records them,
 * with node's fields. */
void thip_kernel_node_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                             const hipKernelNodeParams *params);
/* The direction of a copy of kind between dst and src (hipMemcpyDefault
 * from the allocation table). */
unsigned thip_copy_dir(hipMemcpyKind kind, const void *dst, const void *src);

/* Arrays the program made (thip_array.c): the element size and extent of
 * a live one, 0 when the handle is not one. */
typedef struct thip_array_info {
	uint64_t elem, width, height, depth; /* width in elements; height, depth as created */
} thip_array_info;
int thip_array_get(uint64_t handle, thip_array_info *out);
/* Every live array, into a new array *out (owned by the caller; NULL and
 * 0 when there is none or out of memory). */
typedef struct thip_array_live {
	uint64_t handle;
	thip_array_info info;
} thip_array_live;
size_t thip_array_list(thip_array_live **out);

/* ---- graph changes the model does not cover (thip_graphnm.c) ------------- */

/* A node the program added to graph (recorded or not): its graph, for
 * the setters and destroys that name only the node. */
void thip_graph_node_add(uint64_t node, uint64_t graph);
/* Graphs and execs changed by calls the model does not cover, for the
 * exit report (each counted once). */
uint64_t thip_graph_nm_count(void);
/* A graph made by hipGraphCreate or by a hipStreamEndCapture that worked
 * (live 1) or destroyed (live 0), and
 * whether graph is one made so and not destroyed (a child graph node of
 * any other is not modeled). */
void thip_graph_made(uint64_t graph, int live);
int thip_graph_is_made(uint64_t graph);
/* parent took child's nodes: child's mark of a call not modeled too. */
void thip_graph_inherit(uint64_t parent, uint64_t child);
/* Record call as hip.tsGraphNotModeled (result r) changing exec, else
 * graph, else node's graph; an add: node, its deps and type. */
void thip_graphnm_record(const thip_call *call, hipError_t r, const char *name, uint64_t graph,
                         uint64_t exec, uint64_t node, const hipGraphNode_t *deps, size_t ndeps,
                         unsigned type);

/* ---- the order hipGraphExecUpdate pairs nodes in (thip_gorder.c) -------- */

/* A graph made by hipGraphCreate (live 1; its nodes are followed from
 * here), destroyed or made some other way (0: not followed). */
void thip_gorder_graph(uint64_t graph, int live);
/* A node added to graph after deps (an add that worked). */
void thip_gorder_add(uint64_t graph, uint64_t node, const hipGraphNode_t *deps, size_t ndeps);
/* Edges from[i] -> to[i] added (add 1) or removed (0), as the calls that
 * worked made them. */
void thip_gorder_edges(uint64_t graph, const hipGraphNode_t *from, const hipGraphNode_t *to,
                       size_t n, int add);
void thip_gorder_destroy_node(uint64_t graph, uint64_t node);
/* An exec made of graph (its level and topological orders kept), or
 * destroyed. */
void thip_gorder_instantiate(uint64_t exec, uint64_t graph);
void thip_gorder_exec_destroy(uint64_t exec);
/* The orders in which clr's hipGraphExecUpdate pairs nodes; the record's
 * `sub` says which one its pairs follow (serializer/sbt_compute.h). */
enum {
	THIP_GORDER_LEVEL = 0, /* clr 5.2's ihipGraph::LevelOrder (old traces: no sub) */
	THIP_GORDER_TOPO = 1   /* clr 6.0-6.2's Graph::TopologicalOrder */
};
/* The pairs hipGraphExecUpdate(exec, graph) makes in order `order`
 * (THIP_GORDER_*): graph's order now (*gnodes) and exec's at instantiation
 * (*xnodes), new arrays owned by the caller; 0 (nothing allocated) when
 * either is not followed. */
int thip_gorder_pairs(uint64_t exec, uint64_t graph, int order, uint64_t **gnodes, size_t *ng,
                      uint64_t **xnodes, size_t *nx);

/* ---- counters (thip_core.c) ---------------------------------------------- */

void thip_count_launch(void);
void thip_count_module(int without_image);

#endif /* TRACESMITH_THIP_INTERNAL_H */
