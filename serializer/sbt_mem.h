/*
 * sbt_mem.h - memory accounting: which calls of a trace allocate and free
 * memory, and when, per device and kind.  One model, read by tsinfo
 * --memory (serializer/tools/tsinfo_memory.c, docs/tsinfo.md "--memory")
 * and by the emulator's memory counter in the exports (emulator/,
 * docs/emulator.md "tsexport"), so that the two cannot disagree.  Internal
 * to the tools: not part of libtracesmith's public API.
 *
 * The model (docs/tsinfo.md "--memory" says the same for readers):
 *
 *   CUDA   cuMemAlloc (device), cuMemAllocPitch (pitch), cuMemAllocAsync
 *          (async), cuMemAllocFromPoolAsync (pool), cuMemAllocManaged
 *          (managed), cuMemCreate (vmm: the physical memory, held until
 *          cuMemRelease and the cuMemUnmap of its last mapping, whichever
 *          comes last; reserving address ranges holds none),
 *          cuModuleGetGlobal and cuLibraryGetGlobal (global: counted from
 *          the first lookup of an address until its module or library is
 *          unloaded), and on the host cuMemAllocHost (host), cuMemHostAlloc
 *          (host-alloc), cuMemHostRegister (host-register).  Ended by
 *          cuMemFree, cuMemFreeAsync, cuMemFreeHost, cuMemHostUnregister,
 *          and for what was allocated in a context by its teardown:
 *          cuCtxDestroy, cuDevicePrimaryCtxReset, and the
 *          cuDevicePrimaryCtxRelease that drops the last reference to a
 *          primary context (the driver frees a context's memory with it).
 *          Device memory belongs to the device of the calling thread's
 *          current context (cuCtxCreate, Set/Push/PopCurrent; a thread
 *          that set none uses the context made or made current last, as
 *          the CUDA runtime's threads do), or for cuMemCreate to the
 *          location it names; host memory to "host".
 *          Graph memory (graph): an allocation node (cuGraphAddMemAllocNode,
 *          or cuMemAllocAsync / cuMemAllocFromPoolAsync on a capturing
 *          stream, which the driver makes one) allocates nothing when it
 *          is added; each cuGraphLaunch of an exec made from that graph
 *          allocates it anew (CUDA: "graph allocations are considered
 *          recreated every time a graph runs"), on the pool's device (the
 *          node's device; a capture's: the capturing context's), with the
 *          launch's seq and stack.  It ends at that launch when the graph
 *          frees it (a free node, or cuMemFreeAsync on the capturing
 *          stream), else at cuMemFreeAsync / cuMemFree of it, at a launch
 *          of a graph with a free node of it, or at the exec's next launch
 *          when it was instantiated with
 *          CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.  Destroying the
 *          graph or the exec frees none (CUDA's rule), and the physical
 *          memory the driver keeps cached for graphs until
 *          cuDeviceGraphMemTrim is not counted: "in use" is what live
 *          graph allocations hold (the driver's "used", not "reserved").
 *          A capture spans the streams that join it (cuStreamWaitEvent of
 *          an event recorded in it) until cuStreamEndCapture.  A cuda.tsSnapshot
 *          of memory no recorded allocation holds is memory allocated
 *          before the trace began: counted from there.
 *   HIP    each hip.* record as the CUDA call it records as
 *          (serializer/sbt_compute.h): hipMalloc as cuMemAlloc, hipFree as
 *          cuMemFree, and so on.  HIP has no contexts: memory belongs to
 *          the device the thread's last hipSetDevice named (device 0
 *          before any), and hipDeviceReset ends what was allocated on that
 *          device.  A __hipRegisterVar global (size bytes, named by its
 *          host shadow, as symbol copies name it) is counted from its
 *          registration until its __hipUnregisterFatBinary.  hipMallocAsync
 *          and hipFreeAsync on a capturing stream are graph memory as
 *          CUDA's (the HIP interposer records no graph memory nodes).
 *   Vulkan vkAllocateMemory / vkFreeMemory, per VkDevice and memory type;
 *          the type's heap and property flags, and the device's name,
 *          when the trace holds vkGetPhysicalDeviceMemoryProperties(2) and
 *          vkGetPhysicalDeviceProperties(2) of its physical device.
 *
 * Failed calls change nothing.  A trimmed trace's state snapshot (between
 * WINDOW and SNAPSHOT_END) is memory from before the window: counted, and
 * marked so.  A periodic snapshot of a whole-run capture (a KEYFRAME
 * "snapshot" marker up to its SNAPSHOT_END) re-creates objects the trace
 * already holds, and is skipped.  Times are the records' (host time of the
 * call, nanoseconds since the trace's start); "in use" is what the calls
 * made so far hold, in sequence order.
 *
 * Use: sbt_mem_init, then sbt_mem_record for every record in order, then
 * read the tables (devs, groups, allocs, events), then sbt_mem_finish.
 */
#ifndef TRACESMITH_SBT_MEM_H
#define TRACESMITH_SBT_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_vk.h"
#include "tracesmith/sbt.h"

/* ---- kinds ------------------------------------------------------------ */

/* X(enum suffix, name shown, on the host) */
#define SBT_MEM_KIND_LIST(X)                                                   \
	X(DEVICE, "device", 0) X(PITCH, "pitch", 0) X(ASYNC, "async", 0)           \
	X(POOL, "pool", 0) X(MANAGED, "managed", 0) X(VMM, "vmm", 0)               \
	X(GLOBAL, "global", 0) X(GRAPH, "graph", 0) X(HOST, "host", 1)             \
	X(HOST_ALLOC, "host-alloc", 1) X(HOST_REGISTER, "host-register", 1)        \
	X(VK, "memory type", 0)

typedef enum {
#define SBT_MEM_X_ENUM(e, name, host) SBT_MEM_K_##e,
	SBT_MEM_KIND_LIST(SBT_MEM_X_ENUM)
#undef SBT_MEM_X_ENUM
	SBT_MEM_K_COUNT
} sbt_mem_kind;

/* "device", "pitch", ...; 1 for the kinds on the host. */
extern const char *const sbt_mem_kind_names[SBT_MEM_K_COUNT];
extern const uint8_t sbt_mem_kind_host[SBT_MEM_K_COUNT];

/* What a key names, so that a host pointer, a device pointer, a VMM handle
 * and a VkDeviceMemory of the same value stay apart. */
typedef enum { SBT_MEM_NS_DEVPTR = 1, SBT_MEM_NS_HOSTPTR, SBT_MEM_NS_VMM, SBT_MEM_NS_VKMEM } sbt_mem_ns;

/* ---- the model -------------------------------------------------------- */

#define SBT_MEM_NONE UINT32_MAX
/* HIP has no contexts: hipSetDevice(d) makes this stand-in current. */
#define SBT_MEM_HIP_CTX(d) (0x4849500000000000ull | (uint64_t)(uint32_t)(d))
#define SBT_MEM_IS_HIP_CTX(ctx) (((ctx) >> 32) == 0x48495000ull)

typedef struct sbt_mem_dev {
	int api;              /* SBT_MEM_API_* */
	uint64_t id;          /* CUDA: ordinal (UINT64_MAX unknown); Vulkan: VkDevice */
	uint64_t phys;        /* Vulkan: its VkPhysicalDevice, 0 unknown */
	uint64_t in_use, peak, peak_seq, peak_time;
	uint32_t index;       /* in the order first seen (tsinfo sorts them for output) */
} sbt_mem_dev;

enum { SBT_MEM_API_CUDA, SBT_MEM_API_HOST, SBT_MEM_API_VULKAN };

/* The allocations of one kind (one memory type on Vulkan) on one device. */
typedef struct sbt_mem_group {
	uint32_t dev;
	uint8_t kind;
	uint32_t vk_type;     /* Vulkan memory type index */
	uint64_t allocs, frees, bytes_allocated, in_use, peak, peak_seq, peak_time;
	uint64_t live, live_bytes; /* at the end */
	uint32_t index;       /* in the order first seen (tsinfo sorts them for output) */
} sbt_mem_group;

typedef struct sbt_mem_alloc {
	uint64_t key;         /* address, VMM handle or VkDeviceMemory */
	uint64_t size, seq, time, thread, free_seq;
	uint64_t ctx;         /* CUDA context it was made in, 0 unknown */
	uint64_t parent;      /* globals: the module or library */
	uint32_t group, stack_id, type;
	uint32_t maps;        /* VMM: live mappings of it */
	uint8_t ns, live;
	uint8_t released;     /* VMM: cuMemRelease came while mapped */
	uint8_t before;       /* 1: in a window's snapshot; 2: a keyframe's older memory */
} sbt_mem_alloc;

/* One change of memory in use, for the timeline. */
typedef struct sbt_mem_event {
	uint64_t seq, time;
	int64_t delta;
	uint64_t dev_in_use;  /* its device's in use after it */
	uint32_t group;
} sbt_mem_event;

typedef struct sbt_mem_ctx {
	uint64_t ctx, device; /* the CUdevice it was made for */
	uint8_t primary;
} sbt_mem_ctx;

typedef struct sbt_mem_thread {
	uint64_t thread;
	uint64_t *v;          /* its context stack; the last is current */
	size_t n, cap;
} sbt_mem_thread;

/* A live cuMemMap of a VMM allocation. */
typedef struct sbt_mem_map {
	uint64_t dst, size;
	uint32_t alloc;       /* index in allocs */
} sbt_mem_map;

typedef struct sbt_mem_devnum {
	uint64_t handle, ordinal; /* cuDeviceGet: CUdevice -> ordinal */
	uint64_t primary_refs;    /* cuDevicePrimaryCtxRetain minus Release */
} sbt_mem_devnum;

/* A graph memory node (the model: above), as the graph, the exec or the
 * open capture owning it holds it. */
enum { SBT_MEM_GOWN_GRAPH = 1, SBT_MEM_GOWN_EXEC, SBT_MEM_GOWN_CAPTURE };
typedef struct sbt_mem_gnode {
	uint64_t owner;           /* graph or exec handle, capture number */
	uint64_t dst, size;       /* the memory (size 0: a free node) */
	uint64_t device;          /* an allocation node's device ordinal */
	uint8_t own;              /* SBT_MEM_GOWN_* */
	uint8_t auto_free;        /* an exec made with AUTO_FREE_ON_LAUNCH */
} sbt_mem_gnode;

/* A stream in a capture, or an event recorded in one: its number. */
typedef struct sbt_mem_gcap {
	uint64_t handle, capture;
} sbt_mem_gcap;

typedef struct sbt_mem_vkdev {
	uint64_t device, phys;    /* vkCreateDevice */
} sbt_mem_vkdev;

typedef struct sbt_mem_vkphys {
	uint64_t phys;
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	int has_props;
	VkPhysicalDeviceMemoryProperties props;
} sbt_mem_vkphys;

#define SBT_MEM_VEC(T) struct { T *v; size_t n, cap; }

/* Live allocations by (namespace, key): open addressing, linear probing,
 * deletion by backward shift (no tombstones); slots hold index + 1. */
typedef struct sbt_mem_live {
	uint32_t *slots;
	size_t cap, used;     /* cap: a power of two */
} sbt_mem_live;

typedef struct sbt_mem {
	const sbt_reader *r;  /* borrowed */
	SBT_MEM_VEC(sbt_mem_dev) devs;
	SBT_MEM_VEC(sbt_mem_group) groups;
	SBT_MEM_VEC(sbt_mem_alloc) allocs;
	SBT_MEM_VEC(sbt_mem_event) events;
	SBT_MEM_VEC(sbt_mem_ctx) ctxs;
	SBT_MEM_VEC(sbt_mem_thread) threads;
	SBT_MEM_VEC(sbt_mem_vkphys) vkphys;
	SBT_MEM_VEC(sbt_mem_devnum) devnums;
	SBT_MEM_VEC(sbt_mem_vkdev) vkdevs;
	SBT_MEM_VEC(sbt_mem_map) maps;
	SBT_MEM_VEC(sbt_mem_gnode) gnodes; /* graph memory nodes of graphs, execs, captures */
	SBT_MEM_VEC(sbt_mem_gcap) cstreams; /* the streams capturing now */
	SBT_MEM_VEC(sbt_mem_gcap) cevents;  /* events recorded in a capture */
	uint64_t captures;    /* stream captures begun so far */
	int graphs;           /* the trace has allocation nodes or captures: graph calls are read */
	sbt_mem_live live;
	uint64_t last_ctx;    /* made or made current last, by any thread */
	uint64_t unknown_frees; /* frees of memory the trace never allocated */
	uint64_t first_time, last_time, last_seq, records;
	int16_t *kind_of;     /* record type -> sbt_cm_kind, -1 */
	int16_t *hip_of;      /* record type -> sbt_cm_hip_call of a hip.* type, -1 */
	int32_t *vk_of;       /* record type -> sbt_vk_cmd, -1 */
	size_t ntypes;
	sbt_vk_arena *arena;
	const sbt_record *rec; /* the record being read */
	uint8_t before;       /* sbt_mem_alloc.before for what the record allocates */
	uint32_t snap_hint;   /* index + 1 of the allocation the last snapshot lay in */
	int hip;              /* the record being read: its sbt_cm_hip_call, -1 for cuda.* */
	uint32_t hip_device;  /* and on HIP, the device it names (the thread's current one) */
	uint8_t window_snapshot; /* inside a trimmed trace's snapshot (before SNAPSHOT_END) */
	uint8_t periodic;     /* inside a periodic snapshot: skipped */
} sbt_mem;


/* Prepares m to read the records of r (borrowed; only its type table is
 * read here).  0, or -1 when out of memory (then sbt_mem_finish(m)). */
int sbt_mem_init(sbt_mem *m, const sbt_reader *r);
/* Accounts for rec (borrowed; records in sequence order).  call: rec's
 * decoded compute call when the caller already decoded it (cuda.* and
 * hip.* records), else NULL: then it is decoded here if the call changes
 * memory.  A payload that does not decode changes nothing.  0, or -1 when
 * out of memory. */
int sbt_mem_record(sbt_mem *m, const sbt_record *rec, const sbt_cm_call *call);
/* Frees what m holds; m may be zeroed or half initialised. */
void sbt_mem_finish(sbt_mem *m);

#endif /* TRACESMITH_SBT_MEM_H */
