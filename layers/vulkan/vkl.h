/*
 * vkl.h - VK_LAYER_tracesmith internals (prefix vkl_).
 *
 * The layer sits between the loader and the next layer or driver.  Every
 * entry point finds its instance or device from the dispatchable handle's
 * loader key (the loader's dispatch pointer stored in the first word of
 * every VkInstance, VkPhysicalDevice, VkDevice, VkQueue, VkCommandBuffer),
 * calls down through the generated table, encodes the call with the codec
 * (serializer/sbt_vk.h) into a per-thread buffer and records it with the
 * capture runtime (capture/cap.h).
 *
 * Files: vkl_layer.c (negotiation, chain setup, vkGet*ProcAddr, extension
 * and layer enumeration, tool properties, feature and property filters),
 * vkl_map.c (loader key -> instance/device), vkl_objects.c (live objects
 * and their creation records), vkl_memory.c (mapped memory: shadow and
 * reference copies, host writes, checkpoints), vkl_reach.c (the memory a
 * submission reaches: resources, descriptors, command buffers' handles),
 * vkl_queue.c (submits, present and frames, fences and idles),
 * vkl_record.c (encoding and recording), vkl_hotkey.c (the capture key),
 * vkl_trim.c (trimmed capture: what recreates the live state, and the
 * snapshot), generated/ (dispatch tables, the other wrappers).
 *
 * State: one process-wide struct (vkl_g, vkl_layer.c), set up once with
 * pthread_once; instances and devices live in vkl_map (lock-free reads, a
 * mutex for inserts and removals); everything else is per object with its
 * own lock, or per thread.
 */
#ifndef VKL_H
#define VKL_H

#define VK_NO_PROTOTYPES 1 /* the layer must never call the loader's exports */
#define VK_USE_PLATFORM_XLIB_KHR 1
#define VK_USE_PLATFORM_XCB_KHR 1
#define VK_USE_PLATFORM_WAYLAND_KHR 1
#define VK_USE_PLATFORM_XLIB_XRANDR_EXT 1

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include "capture/cap.h"
#include "capture/cap_fast.h"
#include "layers/vulkan/generated/vkl_dispatch.h"
#include "serializer/sbt_vk.h"

#define VKL_LAYER_NAME "VK_LAYER_tracesmith"
#define VKL_LAYER_DESCRIPTION "TraceSmith capture: records every Vulkan call into an SBT trace"
#define VKL_TOOL_NAME "TraceSmith"
#define VKL_TOOL_VERSION "0.1"
/* The newest API this layer's vk.xml knows; drivers reporting more are
 * clamped to it so the application never uses what we cannot record. */
#define VKL_API_VERSION VK_HEADER_VERSION_COMPLETE

/* ---- instances and devices --------------------------------------------- */

typedef struct vkl_instance {
	vkl_instance_table table; /* first: the generated wrappers use it */
	VkInstance handle;
	PFN_vkGetInstanceProcAddr next_gipa;
	uint32_t api_version; /* the application's, from VkApplicationInfo */
	int disabled;         /* vkl_config.disabled, kept here for the wrappers */
} vkl_instance;

struct vkl_memory;
struct vkl_mem_kept;
struct vkl_trim_obj;
typedef struct vkl_frame_dev vkl_frame_dev;

/* Timeline signals a device remembers (vkl_device.sig). */
#define VKL_SIGNALS 64
/* Queues whose completions a device tracks one by one (vkl_queue.c); more
 * share the last entry, which only a device wait completes. */
#define VKL_QUEUES 16

typedef struct vkl_device {
	vkl_device_table table; /* first: the generated wrappers use it */
	VkDevice handle;
	VkPhysicalDevice physical;
	vkl_instance *instance;
	PFN_vkSetDeviceLoaderData set_loader_data; /* for command buffers of our own */
	int disabled; /* vkl_config.disabled, kept here for the wrappers */
	VkPhysicalDeviceMemoryProperties mem_props;
	int can_present; /* VK_KHR_swapchain enabled */
	/* Mapped memory objects of this device (vkl_memory.c), under map_mu. */
	pthread_mutex_t map_mu;
	struct vkl_memory *mapped;
	/* Host-visible memory objects never mapped yet, under map_mu: what
	 * submissions may write of each is noted until its first map. */
	struct vkl_memory *fresh;
	/* The memory of mappings since unmapped, kept for the next vkMapMemory
	 * of the same page-rounded size (vkl_memory.c, vkl_mem_keep), most
	 * recently kept first, and its bytes: under map_mu. */
	struct vkl_mem_kept *kept;
	size_t kept_bytes;
	/* The submission that frees the least recently kept if no map takes
	 * it first (0: nothing kept); read without map_mu at each submit. */
	_Atomic(uint64_t) kept_due;
	/* Submissions so far (each vkQueueSubmit* / vkQueueBindSparse call is
	 * one, numbered from 1), and the highest number up to which every
	 * submission is known complete.  The device is idle when the two are
	 * equal. */
	_Atomic(uint64_t) submits;
	_Atomic(uint64_t) completed;
	/* Per queue submitted to (vkl_queue.c), under q_mu, which also numbers
	 * the submissions: the last made to it, and the number up to which its
	 * submissions are known complete (a fence waited on or found signalled
	 * completes its submission and those before it on its queue, fences
	 * signalling in submission order; a queue wait all of that queue's; a
	 * timeline value reached the submission that signals it; a device wait
	 * every queue's).  `completed` is the lowest such number of a queue
	 * with work outstanding, or `submits` when none has any: another
	 * queue's earlier work may still run.  Queues past VKL_QUEUES share
	 * the last entry (shared), completed by a device wait only. */
	pthread_mutex_t q_mu;
	struct vkl_queue_work {
		uintptr_t queue;
		uint64_t last, done;
	} qw[VKL_QUEUES];
	uint32_t nqw;
	int qw_shared;
	/* Timeline semaphore signals of submissions not yet known reached
	 * (vkl_queue.c): a wait or counter query that shows one reached
	 * completes its submission; oldest first, under sig_mu. */
	pthread_mutex_t sig_mu;
	struct vkl_signal {
		uint64_t semaphore, value, submission; /* submission: as vkl_fence_submission */
	} sig[VKL_SIGNALS];
	uint32_t nsig;
	/* TRACESMITH_FRAME_HASH state (vkl_frame.c); NULL when off. */
	vkl_frame_dev *frame;
} vkl_device;

/* vkl_frame.c: with TRACESMITH_FRAME_HASH=1, hook d's table (swapchain
 * creation and destruction, queue retrieval) before d is published;
 * vkl_frame_device_gone releases what the hashes used. */
void vkl_frame_device_init(vkl_device *d);
void vkl_frame_device_gone(vkl_device *d);
/* Before present `seq` (recorded, not yet passed down): copy each presented
 * image after the present's waits and record its checkpoint.  Returns 1
 * when *down (a copy of info waiting the layer's semaphore instead of the
 * application's) must be passed down in place of info. */
int vkl_frame_hash(vkl_device *d, VkQueue queue, const VkPresentInfoKHR *info, uint64_t seq,
                   VkPresentInfoKHR *down);

/* vkl_queue.c: the ticket of the submission a fence was last submitted
 * with (its number, and its queue's entry in the top bits; 0: none). */
uint64_t vkl_fence_submission(VkFence fence);
/* Note that every submission of d numbered up to n completed, on every
 * queue (a device wait that began after submission n). */
void vkl_device_completed(vkl_device *d, uint64_t n);
static inline int vkl_device_idle(vkl_device *d)
{
	return atomic_load(&d->completed) >= atomic_load(&d->submits);
}

/* Whether a generated wrapper records, tracks and follows the call after
 * passing it down (0 under TRACESMITH_DISABLE=1).  VKL_DISPATCH_ONLY builds
 * the comparison layer of tests/bench/vk_cmd_bench.sh, whose every wrapper
 * only finds the next layer's entry point and calls it. */
#ifdef VKL_DISPATCH_ONLY
#define vkl_records(x) ((void)(x), 0)
#else
#define vkl_records(x) (!(x)->disabled)
#endif

/* Loader key of a dispatchable handle. */
static inline void *vkl_key(const void *dispatchable)
{
	return *(void *const *)dispatchable;
}

/* vkl_map.c: key -> object, lock-free lookup.  The table is open-addressed;
 * every call's look-up (vkl_device_get, inlined in each wrapper) tries the
 * key's home slot and leaves the probe past it to vkl_map_find_probe. */
#define VKL_MAP_SLOTS 1024u /* power of two */
typedef struct vkl_map_slot {
	_Atomic(uintptr_t) key;
	_Atomic(void *) value;
} vkl_map_slot;
extern vkl_map_slot vkl_map_slots[VKL_MAP_SLOTS] __attribute__((visibility("hidden")));
int vkl_map_insert(void *key, void *value);
void vkl_map_remove(void *key);
void *vkl_map_find_probe(uintptr_t key, size_t home);

static inline size_t vkl_map_hash(uintptr_t key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (VKL_MAP_SLOTS - 1);
}

static inline __attribute__((always_inline)) void *vkl_map_find(void *key)
{
	uintptr_t k = (uintptr_t)key;
	size_t i = vkl_map_hash(k);
	if (__builtin_expect(atomic_load_explicit(&vkl_map_slots[i].key, memory_order_acquire) == k, 1))
		return atomic_load_explicit(&vkl_map_slots[i].value, memory_order_acquire);
	return vkl_map_find_probe(k, i);
}

/* The value at key's home slot, or NULL when the key is not there (it may
 * still be further on: vkl_map_find). */
static inline __attribute__((always_inline)) void *vkl_map_find_home(void *key)
{
	uintptr_t k = (uintptr_t)key;
	size_t i = vkl_map_hash(k);
	if (__builtin_expect(atomic_load_explicit(&vkl_map_slots[i].key, memory_order_acquire) == k, 1))
		return atomic_load_explicit(&vkl_map_slots[i].value, memory_order_acquire);
	return NULL;
}

/* Instance of a VkInstance or VkPhysicalDevice; device of a VkDevice, VkQueue
 * or VkCommandBuffer.  The handle must be live (the application's promise);
 * an unknown one is a loader bug, reported and fatal. */
__attribute__((noreturn, cold)) void vkl_map_missing(const char *what, const void *handle);

static inline __attribute__((always_inline)) vkl_instance *vkl_instance_get(const void *dispatchable)
{
	vkl_instance *i = vkl_map_find(vkl_key(dispatchable));
	if (__builtin_expect(i == NULL, 0))
		vkl_map_missing("instance or physical device", dispatchable);
	return i;
}

static inline __attribute__((always_inline)) vkl_device *vkl_device_get(const void *dispatchable)
{
	vkl_device *d = vkl_map_find(vkl_key(dispatchable));
	if (__builtin_expect(d == NULL, 0))
		vkl_map_missing("device, queue or command buffer", dispatchable);
	return d;
}

/*
 * Each thread's last device (vkl_layer.c owns it): the loader key a
 * record-first vkCmd* wrapper last found and its device, so that the
 * wrapper's look-up is a compare with the command buffer's first word and
 * a load (vkl_rec_fast_ready), not the map's hash and slot.  Keyed by the
 * loader key, not the command buffer: command buffers come and go, but a
 * key names its device until the device is destroyed, and
 * vkl_o_vkDestroyDevice clears the key in every thread's entry
 * (vkl_dev_cache_forget) before the device is freed, so an entry never
 * names a destroyed device (the application does not record into a
 * device's command buffers while destroying it, and whatever it does to
 * hand a new device's command buffer to a thread orders that thread after
 * the clear).  Only a registered thread's entry is filled: registered is
 * set, and the thread put on the list the clear walks, by
 * vkl_dev_cache_fill (from the wrappers' rest, vkl_dev_cache_note); thread
 * exit takes it off, a fork child keeps only the forking thread's.  key
 * and dev are atomics because the clear writes them from another thread;
 * the owner reads them relaxed (plain loads).  Initial-exec, as the
 * capture runtime's thread-locals (CAP_TLS) in the same library: one
 * offset load, no TLS descriptor call.
 */
typedef struct vkl_dev_cache {
	_Atomic(uintptr_t) key; /* 0: none */
	_Atomic(const vkl_device *) dev;
	int registered;
	struct vkl_dev_cache *next; /* vkl_layer.c's list, under its mutex */
} vkl_dev_cache;

extern _Thread_local vkl_dev_cache vkl_dev_cache_t
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Register this thread (once) and make key -> d its entry. */
void vkl_dev_cache_fill(uintptr_t key, const vkl_device *d);
/* A device is going: no thread's entry names its key (logged at debug
 * level with the number of entries cleared). */
void vkl_dev_cache_forget(const void *device);

/* From the rest of a record-first wrapper (recording, the device found by
 * the map): keep the device for the next call. */
static inline __attribute__((always_inline)) void vkl_dev_cache_note(const void *dispatchable,
                                                                     const vkl_device *d)
{
	uintptr_t key = (uintptr_t)vkl_key(dispatchable);
	if (__builtin_expect(
	        atomic_load_explicit(&vkl_dev_cache_t.key, memory_order_relaxed) != key, 0))
		vkl_dev_cache_fill(key, d);
}

/* ---- process-wide state (vkl_layer.c) ------------------------------------ */

typedef struct vkl_config {
	int disabled;           /* TRACESMITH_DISABLE=1: pure pass-through */
	uint32_t frame_submits; /* TRACESMITH_VK_FRAME_SUBMITS: for devices that
	                           cannot present, a frame ends every N submits
	                           (default 1; 0 = never) */
	int snapshot_staging;   /* TRACESMITH_VK_SNAPSHOT_STAGING=1: snapshots
	                           read host-visible memory through staging
	                           copies too, as device-local memory is */
	int64_t lead_in;        /* TRACESMITH_VK_LEAD_IN: frames or submits
	                           before a window known ahead from which every
	                           recording is kept (vkl_trim.c); -1: the
	                           default, -2 (`all`): every recording always */
} vkl_config;

const vkl_config *vkl_config_get(void);

/* ---- what the application may see (vkl_layer.c) ------------------------ */

/* 1 when the layer can record the extension (the codec carries it and the
 * layer does not refuse it: see vkl_ext_refused). */
int vkl_extension_visible(const char *name);
/* The reason an extension is hidden, for the log line; NULL if visible. */
const char *vkl_extension_hidden_reason(const char *name);
/* Unlink, from a pNext chain the application passes to a query, the
 * structures the codec does not carry; vkl_chain_restore relinks them.
 * At most VKL_CHAIN_MAX are removed. */
#define VKL_CHAIN_MAX 32
typedef struct vkl_chain_cut {
	VkBaseOutStructure *prev[VKL_CHAIN_MAX];
	VkBaseOutStructure *cut[VKL_CHAIN_MAX];
	int n;
} vkl_chain_cut;
void vkl_chain_strip(void *head, vkl_chain_cut *cut, const char *what);
void vkl_chain_restore(vkl_chain_cut *cut);

/* ---- recording (vkl_record.c) ------------------------------------------- */

/* 1 while the capture runtime records (starts it on first use). */
int vkl_recording(void);
/* Encode and record one call; returns its seq (0 when not recorded).
 * flags: CAP_REC_WORK or 0. */
uint64_t vkl_emit(uint32_t cmd, unsigned flags, const void *args);
/* The same for the commands whose pData layout only a descriptor update
 * template defines: template_len bytes of it are recorded. */
uint64_t vkl_emit_template(uint32_t cmd, unsigned flags, const void *args, size_t template_len);
/* vulkan.tsResult for call `seq` recorded before it ran: result, and the
 * payload again (outputs after the call) when args is not NULL. */
void vkl_emit_result(uint64_t seq, VkResult result, uint32_t cmd, const void *args);
/* vulkan.tsQueryResults: count queries of pool from first, stride bytes
 * each at bytes (read with flags); returns its seq (0: not recorded). */
uint64_t vkl_emit_query_results(uint64_t pool, uint32_t first, uint32_t count, uint32_t flags,
                                uint32_t stride, const void *bytes);
/* vulkan.tsMemoryWrite; returns its seq. */
uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data,
                               uint64_t size);
/* vulkan.tsMemoryWrites: n runs (offset from the start of the memory
 * object, size; ascending, not overlapping) whose bytes are at src +
 * (offset - base); one blob holds them back to back.  Returns its seq
 * (0: not recorded). */
uint64_t vkl_emit_memory_writes(uint64_t memory, uint64_t base, const uint8_t *src,
                                const uint64_t (*runs)[2], size_t n);
/* The same, the runs' bytes already back to back at room, the blob
 * cap_blob_begin opened as rec (with room for n pieces), which this
 * commits. */
uint64_t vkl_emit_memory_writes_room(uint64_t memory, cap_rec *rec, const uint8_t *room,
                                     const uint64_t (*runs)[2], size_t n);
/*
 * A vkCmd* whose arguments have a flat form (sbt_vk_flat; the generated
 * wrappers call vkl_emit_flat for every such command): the argument struct
 * (args_len bytes, a constant where it is inlined) and the one array of
 * plain elements it points to (array_len bytes at array, the pointer at
 * byte ptr_off of the struct; NULL, 0, 0 for none).  Recording the whole
 * run, the raw form [u32 cmd][u32 ptr_off][struct][array] goes into a
 * deferred record (vkl_flat_encode encodes it on the capture runtime's
 * writer thread), inline in the wrapper in one call
 * (cap_fast_record_deferred); everything else (tracking for trimmed
 * capture, arrays for the blob store, the first call, whatever the
 * runtime's fast path leaves) takes vkl_emit_flat_slow.
 */
#define VKL_BLOB_THRESHOLD 1024 /* byte arrays this long go to the blob store */
#define VKL_FLAT_HEAD 8         /* [u32 cmd][u32 ptr_off] */
#define VKL_FLAT_ARGS_MAX 256   /* vkl_flat_encode's room for the struct */
size_t vkl_flat_encode(const uint8_t *raw, size_t raw_len, uint8_t *out, size_t out_cap);
/* The same for a bare record (vkl_rec_fast_begin): no head, the command
 * from the type. */
size_t vkl_flat_encode_bare(uint32_t type, const uint8_t *raw, size_t raw_len, uint8_t *out,
                            size_t out_cap);
void vkl_emit_flat_slow(uint32_t cmd, const void *args, size_t args_len, const void *array,
                        size_t array_len, size_t ptr_off);
void vkl_trim_emit_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
                        size_t array_len, size_t ptr_off);
/* The recording half; returns the seq (0: not recorded).  Arrays of
 * VKL_BLOB_THRESHOLD bytes or more go to the blob store, so those calls
 * are encoded here as vkl_emit does. */
uint64_t vkl_record_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
                         size_t array_len, size_t ptr_off);
/* vkl_trim.c: 1 when tracking (cap_tracking()), 0 when not, -1 until
 * vkl_trim_on first asks. */
extern _Atomic(int) vkl_trim_tracking __attribute__((visibility("hidden")));

/*
 * Trimmed capture's state that the inlined keep of a flat vkCmd* reads
 * (vkl_trim.c owns it and says how it is used).  vkl_trim_g: order, the
 * process-wide count of kept calls; cb_gen, bumped when a command buffer
 * leaves the live-object table (the per-thread caches go stale);
 * snapping, set while a snapshot reads command buffers; recorded, 0 until
 * the first window opens (nothing records before); ready, vkl_trim_init
 * ran.  vkl_trim_t: each thread's state: the command buffer it last looked
 * up (cb, cb_gen, its kept calls cb_cmds and their order cb_order), busy
 * while it appends to them (a snapshot waits), registered in the list a
 * snapshot walks.
 */
typedef struct vkl_trim_global {
	_Atomic(uint64_t) order;
	_Atomic(uint64_t) cb_gen;
	_Atomic(int) snapping;
	_Atomic(int) recorded;
	_Atomic(int) ready;
} vkl_trim_global;

typedef struct vkl_trim_tls {
	sbt_vk_enc enc;                  /* inline encodings (no blob store) */
	struct vkl_trim_rec *pending;    /* the last creation, until the next call */
	uint32_t pending_cmd;
	const void *pending_args;
	uint64_t cb;
	struct vkl_trim_obj *cb_obj;
	uint64_t cb_gen;
	sbt_vk_enc *cb_cmds;             /* &cb_obj->cmds, NULL when cb_obj is */
	uint64_t *cb_order;              /* &cb_obj->cmds_order */
	_Atomic(int) busy;
	int registered;
	struct vkl_trim_tls *next;       /* in vkl_trim.c's list, under its mutex */
	/* the keep-first path (vkl_trim_fast_begin): the command buffer cb
	 * when it may take it (armed by vkl_trim_fast_arm; cb_gen says when
	 * that no longer holds), and its device, whose table the call goes
	 * down through; skip_cb: the same for a command buffer whose calls
	 * this recording does not keep (vkl_trim_fast_skip) */
	uint64_t fast_cb;
	uint64_t skip_cb;
	const vkl_device *fast_dev;
} vkl_trim_tls;

extern vkl_trim_global vkl_trim_g __attribute__((visibility("hidden")));
extern __thread vkl_trim_tls vkl_trim_t __attribute__((visibility("hidden")));

/* A kept entry of a flat call: [u32 type | VKL_TRIM_FLAT][u32 len][struct][array]. */
#define VKL_TRIM_FLAT 0x80000000u

/* The flat vkCmd* whose query writes and resets the tracker follows
 * (vkl_trim.c): never appended by vkl_trim_keep_flat. */
#define VKL_TRIM_QUERY_CMD(cmd)                                                          \
	((cmd) == SBT_VK_CMD_vkCmdResetQueryPool || (cmd) == SBT_VK_CMD_vkCmdWriteTimestamp || \
	 (cmd) == SBT_VK_CMD_vkCmdWriteTimestamp2 || (cmd) == SBT_VK_CMD_vkCmdWriteTimestamp2KHR || \
	 (cmd) == SBT_VK_CMD_vkCmdEndQuery || (cmd) == SBT_VK_CMD_vkCmdEndQueryIndexedEXT)

/* vkl_emit_flat while tracking, inlined: before the first window opens,
 * on a registered thread, no snapshot running, the command buffer the
 * thread last used and room in its buffer, the flat copy is appended
 * here; anything else is vkl_trim_emit_flat's. */
static inline __attribute__((always_inline)) void
vkl_trim_keep_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
                   size_t array_len, size_t ptr_off)
{
	vkl_trim_tls *t = &vkl_trim_t;
	size_t need = 8 + args_len + array_len;
	uint64_t cb;
	sbt_vk_enc *e;
	uint32_t hdr[2];
	uint8_t *p;
	memcpy(&cb, args, sizeof(cb)); /* the command buffer, the first member */
	if (VKL_TRIM_QUERY_CMD(cmd)) /* a constant: the tracker follows them */
		goto slow;
	if (__builtin_expect(!atomic_load_explicit(&vkl_trim_g.ready, memory_order_acquire) ||
	                     atomic_load_explicit(&vkl_trim_g.recorded, memory_order_relaxed) ||
	                     !t->registered, 0))
		goto slow;
	atomic_store(&t->busy, 1);
	if (__builtin_expect(atomic_load(&vkl_trim_g.snapping), 0))
		goto slow_busy;
	e = t->cb_cmds;
	if (__builtin_expect(t->cb != cb || !e ||
	                     t->cb_gen != atomic_load_explicit(&vkl_trim_g.cb_gen,
	                                                        memory_order_acquire) ||
	                     e->cap - e->len < need, 0))
		goto slow_busy;
	p = e->data + e->len;
	hdr[0] = SBT_VK_CMD_TYPE(cmd) | VKL_TRIM_FLAT;
	hdr[1] = (uint32_t)(args_len + array_len);
	memcpy(p, hdr, 8);
	memcpy(p + 8, args, args_len);
	cap_copy_small(p + 8 + args_len, array, array_len);
	e->len += need;
	*t->cb_order = atomic_load_explicit(&vkl_trim_g.order, memory_order_relaxed);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	return;
slow_busy:
	atomic_store_explicit(&t->busy, 0, memory_order_release);
slow:
	vkl_trim_emit_flat(cmd, args, args_len, array, array_len, ptr_off);
}

static inline __attribute__((always_inline)) void
vkl_emit_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
              size_t array_len, size_t ptr_off)
{
	uint32_t head[2] = {cmd, (uint32_t)ptr_off};
	uint64_t word;
	int tracking = atomic_load_explicit(&vkl_trim_tracking, memory_order_relaxed);
	if (tracking > 0) {
		vkl_trim_keep_flat(cmd, args, args_len, array, array_len, ptr_off);
		return;
	}
	memcpy(&word, head, sizeof(word));
	if (__builtin_expect(tracking < 0 || array_len >= VKL_BLOB_THRESHOLD ||
	                         args_len > VKL_FLAT_ARGS_MAX ||
	                         !cap_fast_record_deferred(SBT_VK_CMD_TYPE(cmd), 0, vkl_flat_encode,
	                                                   word, args, args_len, array, array_len),
	                     0))
		vkl_emit_flat_slow(cmd, args, args_len, array, array_len, ptr_off);
}
/* This thread's vkl_trim_t, its address taken once (each use would ask
 * the TLS descriptor again where registers run short). */
static inline __attribute__((always_inline)) vkl_trim_tls *vkl_trim_self(void)
{
	vkl_trim_tls *t = &vkl_trim_t;
	__asm__("" : "+r"(t));
	return t;
}

/* The rest of a wrapper that has a keep-first path: out of line (and the
 * entry point itself where the run does not track: vkl_proc.untracked);
 * in the dispatch-only build, where there is no keep-first path, inlined
 * in the wrapper. */
#ifdef VKL_DISPATCH_ONLY
#define VKL_WRAPPER_REST static inline __attribute__((always_inline))
#else
#define VKL_WRAPPER_REST static __attribute__((noinline))
#endif

/*
 * The keep-first path of a flat vkCmd* while tracking, before any window
 * opened (the generated wrappers of the flat vkCmd* other than the query
 * ones, which the tracker follows, and those that also tell vkl_reach.c or
 * vkl_hotkey.c: overrides.py): when the command buffer is the one this
 * thread last kept a call of through the whole path, which armed it
 * (vkl_trim_emit_flat, before any window opened), the wrapper writes the call's flat form into the
 * command buffer's kept calls before passing it down, without looking the
 * device up, and passes it down as its last act (a tail call: with no
 * other call on the way, nothing is kept across one).
 *
 * vkl_trim_fast_begin: where the entry's argument struct (args_len bytes)
 * and array (array_len bytes, none or VKL_TRIM_FAST_ARRAY_MIN to
 * VKL_TRIM_FAST_ARRAY_MAX: copied without a call) go, after the 8-byte
 * header it wrote, with this thread marked busy; NULL when the fast path
 * does not apply: not armed for cb, another array size, no room, or cb_gen
 * moved since it was armed (the command buffer left the table, or a
 * snapshot started: it bumps cb_gen before it sets snapping and waits for
 * busy threads, and the load comes after this thread's busy store, so a
 * call either is kept before the snapshot reads it or takes the whole
 * path, which waits for the snapshot and records once the window is open).
 * vkl_trim_fast_end: the entry is complete.
 */
#define VKL_TRIM_FAST_ARRAY_MIN 8
#define VKL_TRIM_FAST_ARRAY_MAX 64

static inline __attribute__((always_inline)) uint8_t *
vkl_trim_fast_begin(vkl_trim_tls *t, const void *cb, uint32_t cmd, size_t args_len,
                    size_t array_len)
{
	sbt_vk_enc *e;
	uint32_t hdr[2];
	uint8_t *p;
	if (VKL_TRIM_QUERY_CMD(cmd) || __builtin_expect(t->fast_cb != (uint64_t)(uintptr_t)cb, 0))
		return NULL;
	if (array_len && (array_len < VKL_TRIM_FAST_ARRAY_MIN || array_len > VKL_TRIM_FAST_ARRAY_MAX))
		return NULL;
	atomic_store(&t->busy, 1);
	e = t->cb_cmds;
	if (__builtin_expect(t->cb_gen != atomic_load(&vkl_trim_g.cb_gen) ||
	                     e->cap - e->len < 8 + args_len + array_len, 0)) {
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		return NULL;
	}
	p = e->data + e->len;
	hdr[0] = SBT_VK_CMD_TYPE(cmd) | VKL_TRIM_FLAT;
	hdr[1] = (uint32_t)(args_len + array_len);
	memcpy(p, hdr, 8);
	return p + 8;
}

/*
 * The pass-through of the keep-first wrappers for a command buffer whose
 * current recording keeps nothing (vkl_trim.c, "Recordings that are not
 * kept": a window known ahead is not near, and the command buffer is
 * recorded again for each submit): 1 when this thread is armed for cb
 * (vkl_trim_fast_arm) and cb_gen has not moved since (the command buffer
 * left the table, a begin changed whether it keeps, or a snapshot
 * started); the wrapper then passes the call down through the cached
 * device and nothing else.  The query commands never take it (the
 * tracker follows them: a constant here).
 */
static inline __attribute__((always_inline)) int vkl_trim_fast_skip(const vkl_trim_tls *t,
                                                                    const void *cb, uint32_t cmd)
{
	if (VKL_TRIM_QUERY_CMD(cmd))
		return 0;
	return __builtin_expect(t->skip_cb == (uint64_t)(uintptr_t)cb, 1) &&
	       __builtin_expect(t->cb_gen == atomic_load_explicit(&vkl_trim_g.cb_gen,
	                                                          memory_order_acquire), 1);
}

/* vkl_copy for the sizes vkl_trim_fast_begin lets through (0, or
 * VKL_TRIM_FAST_ARRAY_MIN to VKL_TRIM_FAST_ARRAY_MAX): overlapping 8- or
 * 16-byte moves, never a call. */
static inline __attribute__((always_inline)) void vkl_trim_fast_copy(uint8_t *dst,
                                                                     const void *src, size_t n)
{
	const uint8_t *s = src;
	uint64_t w0, w1;
	struct vkl_copy16 {
		uint64_t a, b;
	} q0, q1, q2, q3;
	if (n == 0)
		return;
	if (n <= 16) {
		memcpy(&w0, s, 8);
		memcpy(&w1, s + n - 8, 8);
		memcpy(dst, &w0, 8);
		memcpy(dst + n - 8, &w1, 8);
	} else if (n <= 32) {
		memcpy(&q0, s, 16);
		memcpy(&q1, s + n - 16, 16);
		memcpy(dst, &q0, 16);
		memcpy(dst + n - 16, &q1, 16);
	} else {
		memcpy(&q0, s, 16);
		memcpy(&q1, s + 16, 16);
		memcpy(&q2, s + n - 32, 16);
		memcpy(&q3, s + n - 16, 16);
		memcpy(dst, &q0, 16);
		memcpy(dst + 16, &q1, 16);
		memcpy(dst + n - 32, &q2, 16);
		memcpy(dst + n - 16, &q3, 16);
	}
}

static inline __attribute__((always_inline)) void vkl_trim_fast_end(vkl_trim_tls *t, size_t len)
{
	t->cb_cmds->len += 8 + len;
	*t->cb_order = atomic_load_explicit(&vkl_trim_g.order, memory_order_relaxed);
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/*
 * The record-first path of a flat vkCmd* where the run records without
 * tracking (the generated vkl_w_<name>_rec, vkl_proc.record_first): the
 * wrapper writes the call's arguments straight into the deferred record
 * (cap_fast_reserve_deferred_coarse, a bare record: [struct][array], which
 * vkl_flat_encode_bare encodes on the writer thread; vkl_emit_flat's raw
 * form without its [u32 cmd][u32 ptr_off] head, which the encoder finds
 * from the record's type), publishes it, and passes the call down
 * as its last act with the arguments read back from the record (an array
 * pointer copied over excepted, below; the block
 * stays this thread's until it moves to the next one; the writer only
 * reads it), so nothing is kept across a call.  It is handed out only where
 * the layer is not disabled and vkl_trim_on() said 0, which it says for
 * the whole run (cap_tracking: the configuration's triggers and periodic
 * snapshots), so it asks neither.
 *
 * vkl_rec_fast_begin: where the argument struct goes (args_len bytes, then
 * room for an array of up to VKL_REC_FAST_ARRAY_MAX bytes when the command
 * has one, its pointer at byte ptr_off), with f filled for the rest; NULL
 * when the runtime's fast path does not apply (cap_fast.h): the wrapper
 * then takes the whole path (its rest).  The arguments are written first,
 * so that they need not be kept while the rest is checked; then
 * vkl_rec_fast_array copies the array (array_len bytes), 0 when it is not
 * a size it takes, and vkl_rec_fast_ready finds the command buffer's
 * device (f->dev: this thread's last, or at its home slot in the handle
 * map), 0 when it is not there; it is given the command buffer as the
 * argument, whose register nothing has needed by then.  After a 0 the
 * record is left unsealed (nothing is recorded) and the wrapper takes its
 * rest with the arguments read back from it.  A command whose array
 * pointer is its struct's last member reserves the struct without it
 * (args_len its offset): the pointer is written there like any argument,
 * the device is found first, and the array is copied over the pointer,
 * which the wrapper read as the copy's source and passes down itself
 * (scripts/vkgen/layer.py, record_first; vkl_flat_encode_bare rebuilds
 * the struct); a check that fails leaves the pointer in the record.
 * vkl_rec_fast_end: the record is complete (len bytes after the head).
 */
typedef struct vkl_rec_fast {
	const vkl_device *dev;
	cap_thread *t;
	cap_entry *e;
	uint32_t type; /* the record's (a constant: the seal's kind word) */
} vkl_rec_fast;

#define VKL_REC_FAST_ARRAY_MIN 4
#define VKL_REC_FAST_ARRAY_MAX VKL_TRIM_FAST_ARRAY_MAX /* vkl_trim_fast_copy's */

/* The record is bare: its raw bytes are the argument struct and the array
 * alone, with no encoder and no [u32 cmd][u32 ptr_off] head; the writer
 * encodes them with vkl_flat_encode_bare (the layer's
 * cap_set_bare_encoder), which finds both from the record's type. */
static inline __attribute__((always_inline)) void *
vkl_rec_fast_begin(vkl_rec_fast *f, uint32_t cmd, size_t args_len, int has_array)
{
	_Static_assert(VKL_REC_FAST_ARRAY_MAX < VKL_BLOB_THRESHOLD, "the path records no blob");
	if (args_len > VKL_FLAT_ARGS_MAX) /* a constant */
		return NULL;
	f->type = SBT_VK_CMD_TYPE(cmd);
	return cap_fast_reserve_deferred_coarse(&f->t, &f->e, SBT_VK_CMD_TYPE(cmd), 0,
	                                        args_len +
	                                            (has_array ? VKL_REC_FAST_ARRAY_MAX : 0));
}

static inline __attribute__((always_inline)) int
vkl_rec_fast_array(const vkl_rec_fast *f, size_t args_len, const void *src, size_t n)
{
	const uint8_t *s = src;
	/* addressed from the entry, as the seal is, so that no second pointer
	 * into the record is kept */
	uint8_t *e = (uint8_t *)f->e;
	const size_t off = CAP_ENT_BARE_HEAD + args_len;
	uint32_t h0, h1;
	uint64_t w0, w1;
	struct vkl_rec_copy16 {
		uint64_t a, b;
	} q0, q1, q2, q3;
	/* one compare for 1 to 64 bytes (an unsigned wrap puts 0 above them),
	 * then 16 to 64 (two 16-byte moves, two more above 32), 8 to 15, 4 to 7
	 * (1 to 3 refused); 16 to 32 laid out straight through (gcc 12 moved
	 * 16 to 64 out of line, a jump back, once the reservation's check was
	 * one compare) */
	if (__builtin_expect(n - 1 > VKL_REC_FAST_ARRAY_MAX - 1, 0))
		return n == 0;
	if (__builtin_expect(n >= 16, 1)) {
		memcpy(&q0, s, 16);
		memcpy(&q1, s + n - 16, 16);
		if (n > 32) {
			memcpy(&q2, s + 16, 16);
			memcpy(&q3, s + n - 32, 16);
			memcpy(e + off + 16, &q2, 16);
			memcpy(e + n + (off - 32), &q3, 16);
		}
		memcpy(e + off, &q0, 16);
		memcpy(e + n + (off - 16), &q1, 16);
	} else if (n >= 8) {
		memcpy(&w0, s, 8);
		memcpy(&w1, s + n - 8, 8);
		memcpy(e + off, &w0, 8);
		memcpy(e + n + (off - 8), &w1, 8);
	} else if (__builtin_expect(n >= VKL_REC_FAST_ARRAY_MIN, 1)) {
		memcpy(&h0, s, 4);
		memcpy(&h1, s + n - 4, 4);
		memcpy(e + off, &h0, 4);
		memcpy(e + n + (off - 4), &h1, 4);
	} else {
		return 0;
	}
	return 1;
}

static inline __attribute__((always_inline)) int vkl_rec_fast_ready(vkl_rec_fast *f,
                                                                    const void *cb)
{
	uintptr_t key = (uintptr_t)vkl_key(cb);
	const vkl_device *d;
	if (__builtin_expect(
	        atomic_load_explicit(&vkl_dev_cache_t.key, memory_order_relaxed) == key, 1)) {
		f->dev = atomic_load_explicit(&vkl_dev_cache_t.dev, memory_order_relaxed);
		return 1;
	}
	/* another device than this thread's last: the map's home slot, kept
	 * for the next call where the thread is registered (otherwise the
	 * rest registers it) */
	d = vkl_map_find_home((void *)key);
	if (__builtin_expect(!d || !vkl_dev_cache_t.registered, 0))
		return 0;
	atomic_store_explicit(&vkl_dev_cache_t.dev, d, memory_order_relaxed);
	atomic_store_explicit(&vkl_dev_cache_t.key, key, memory_order_relaxed);
	f->dev = d;
	return 1;
}

static inline __attribute__((always_inline)) void vkl_rec_fast_end(vkl_rec_fast *f, size_t len)
{
	cap_fast_seal_deferred_coarse(f->t, f->e, f->type, len);
}

/* Before the rest reads the arguments back from a record left unsealed:
 * the compiler must read them from it, not keep the registers they came
 * in (which would hold all six across the checks, and spill others). */
static inline __attribute__((always_inline)) void vkl_rec_fast_unsealed(const void *args)
{
	__asm__ volatile("" : : "r"(args) : "memory");
}

/* Register the record types (idempotent). */
void vkl_record_register(void);
/* Encode with the blob store and record (the recording half of vkl_emit).
 * *payload_out / *len_out: the bytes recorded, in this thread's buffer
 * until its next call; *inline_out: 1 when no byte array went to the blob
 * store (the bytes stand alone).  0 and NULL when not recorded. */
uint64_t vkl_record_call(uint32_t cmd, unsigned flags, const void *args, size_t template_len,
                         const uint8_t **payload_out, size_t *len_out, int *inline_out);

/* ---- trimmed capture (vkl_trim.c) ----------------------------------------- */

/* 1 when the layer keeps what a snapshot recreates (cap_tracking()). */
int vkl_trim_on(void);
/* vkl_emit and vkl_emit_template while tracking: records when recording,
 * and keeps the encoded call when it creates an object or sets state that
 * a snapshot must recreate. */
uint64_t vkl_trim_emit(uint32_t cmd, unsigned flags, const void *args, size_t template_len);
/* From vkl_objects_add, before the entry is inserted: the tracking state of
 * a new object (the creating call this thread just kept, and what the
 * snapshot needs of it); NULL when not tracking.  vkl_trim_discard frees
 * one the table did not take (the object was there already). */
struct vkl_trim_obj *vkl_trim_adopt(VkObjectType type, uint64_t handle, uint64_t parent);
void vkl_trim_discard(struct vkl_trim_obj *t);
/* vkCreateImage's create info as it is passed down and recorded
 * (overrides.py LAYER_ADJUST): while tracking, with transfer usage added
 * where the driver allows it, so that a snapshot can copy the image (a
 * copy in this thread's storage, valid until its next vkCreateImage);
 * otherwise ci itself (borrowed).  vkl_trim_swapchain_info: the same for
 * vkCreateSwapchainKHR's images, where the surface allows both transfers. */
const VkImageCreateInfo *vkl_trim_image_info(const vkl_device *d, const VkImageCreateInfo *ci);
const VkSwapchainCreateInfoKHR *vkl_trim_swapchain_info(const vkl_device *d,
                                                        const VkSwapchainCreateInfoKHR *ci);
/* vkl_trim_emit_flat (declared above): vkl_emit_flat while tracking;
 * records when recording (vkl_record_flat), and appends the flat form to
 * the command buffer's kept calls. */

/* ---- live objects (vkl_objects.c) --------------------------------------- */

/* Every object the application created, from process start: its type, the
 * seq of the record that created it (0 when not recording), its parent
 * (pool, swapchain, device or instance; 0 for none) and layer data.
 * Sharded by handle: creates and destroys on different shards never
 * contend; the vkCmd* path never touches it. */
typedef struct vkl_object {
	uint64_t handle;
	VkObjectType type;
	uint64_t create_seq;
	uint64_t parent;
	void *data; /* layer state owned by the entry's user (vkl_memory for memory) */
	struct vkl_trim_obj *trim; /* vkl_trim.c: what recreates it (NULL when not tracking) */
} vkl_object;

void vkl_objects_add(VkObjectType type, uint64_t handle, uint64_t create_seq,
                     uint64_t parent, void *data);
/* Copies the entry out; 0 when not found. */
int vkl_objects_find(VkObjectType type, uint64_t handle, vkl_object *out);
/* Removes the entry and, recursively, every entry whose parent it is. */
void vkl_objects_remove(VkObjectType type, uint64_t handle);
/* Removes every entry whose parent is `parent` (and theirs), keeping it. */
void vkl_objects_remove_children(uint64_t parent);
size_t vkl_objects_count(void);
/* The entry itself, its shard locked until vkl_objects_unlock(*lock_out);
 * NULL (nothing locked) when not found.  Take no other object lock while
 * holding one. */
vkl_object *vkl_objects_lock(VkObjectType type, uint64_t handle, void **lock_out);
void vkl_objects_unlock(void *lock);
/* Calls fn on every entry, each with its shard locked (fn must not come
 * back into this table). */
void vkl_objects_each(void (*fn)(vkl_object *o, void *ctx), void *ctx);
/* vkl_trim.c: an entry left the table (no lock held): release what it kept. */
void vkl_trim_gone(vkl_object *o);

/* Descriptor update templates: the byte length of the pData they read. */
void vkl_template_created(const VkDescriptorUpdateTemplateCreateInfo *info,
                          VkDescriptorUpdateTemplate tmpl, uint64_t seq, uint64_t parent);
size_t vkl_template_data_len(VkDescriptorUpdateTemplate tmpl);
/* What vkBeginCommandBuffer records: info itself, or for a command buffer
 * allocated PRIMARY a copy in *fix whose pInheritanceInfo is NULL (ignored
 * for a primary command buffer: a program may leave garbage there).  The
 * level comes from the command buffer's object-table entry, which
 * vkAllocateCommandBuffers made with level + 1 as its data. */
const VkCommandBufferBeginInfo *vkl_begin_info_recorded(VkCommandBuffer cb,
                                                        const VkCommandBufferBeginInfo *info,
                                                        VkCommandBufferBeginInfo *fix);

/* ---- mapped memory (vkl_memory.c) --------------------------------------- */

void vkl_memory_allocated(vkl_device *d, VkDeviceMemory mem, const VkMemoryAllocateInfo *info,
                          uint64_t seq);
void vkl_memory_freed(vkl_device *d, VkDeviceMemory mem);
/* Submission n of d is being made: memory kept for VKL_MEM_KEEP_AGE
 * submissions without a map taking it is freed. */
void vkl_memory_submitted(vkl_device *d, uint64_t n);
/* The device is gone: forget its mappings and the memory kept for them. */
void vkl_memory_device_gone(vkl_device *d);
/* Gives the application a shadow of the real mapping (*pp_data in, out). */
VkResult vkl_memory_mapped(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                           VkDeviceSize size, void **pp_data);
/* After vkMapMemory's record `seq`: when nothing was submitted since the
 * allocation, record the mapping's initial contents once (returns 1);
 * otherwise checkpoint the whole mapping as a result when the device is
 * idle (returns 2).  0: neither. */
int vkl_memory_map_recorded(vkl_device *d, VkDeviceMemory mem, uint64_t seq);
/* Publish the host writes and drop the shadow (before vkUnmapMemory): its
 * memory is kept for the next mapping of the same size, within a cap
 * (TRACESMITH_VK_MAP_CACHE). */
void vkl_memory_unmapping(vkl_device *d, VkDeviceMemory mem);
/* Publish host writes (record them, copy them to the real mapping): of
 * every mapped object of d (mem VK_NULL_HANDLE), or of one object's range. */
void vkl_memory_publish(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                        VkDeviceSize size);
/* The program can observe device results now: publish host writes, take
 * device writes into the shadow and reference copies, and checkpoint them
 * as results of call `seq` (all of d, or one range).  While the device is
 * not idle (work another thread submitted may still be writing), the
 * ranges wait and are checkpointed at the next observation that finds it
 * idle, when their bytes are final. */
void vkl_memory_observe(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                        VkDeviceSize size, uint64_t seq);

/* A byte range of a memory object (size VK_WHOLE_SIZE: to its end). */
typedef struct vkl_range {
	VkDeviceMemory memory;
	VkDeviceSize offset;
	VkDeviceSize size;
	int writable; /* the device may write it (a buffer's usage allows) */
} vkl_range;

/* Publish the host writes of ranges[0, n) (sorted by memory, then offset)
 * and of every mapped object marked with vkl_memory_mark_always. */
void vkl_memory_publish_ranges(vkl_device *d, const vkl_range *ranges, size_t n);
/* The device may reach mem through addresses (buffer device addresses,
 * descriptor buffers, acceleration structures): every submission
 * publishes it whole. */
void vkl_memory_mark_always(VkDeviceMemory mem);
/* Snapshot of a trimmed capture: record the memory object's contents as
 * vulkan.tsMemoryWrite records (host-visible memory, read through the
 * application's mapping or a temporary one; all-zero pages skipped: the
 * replay's new memory is zeroed).  Memory that is not host-visible is left
 * out with a warning naming it.  Returns the bytes recorded. */
uint64_t vkl_memory_snapshot(vkl_device *d, VkDeviceMemory mem);
/* What the snapshot needs to know of a memory object; 0 when unknown. */
typedef struct vkl_memory_desc {
	VkDeviceSize size;
	uint32_t type_index;
	VkMemoryPropertyFlags flags;
	int dedicated; /* allocated for one image or buffer */
	int host;      /* imported from the application's host memory */
} vkl_memory_desc;
int vkl_memory_describe(VkDeviceMemory mem, vkl_memory_desc *out);
/* Record bytes as the contents of mem from offset 0, as vkl_memory_snapshot
 * does (all-zero pages left out); returns the bytes recorded. */
uint64_t vkl_memory_snapshot_bytes(VkDeviceMemory mem, const void *data, size_t size);

/* ---- what a submission reaches (vkl_reach.c) ------------------------------ */

/* After a vkCmd* whose parameters name buffers, images, views, descriptor
 * sets, framebuffers or secondary command buffers: note them in the
 * command buffer's set (no lock: command buffers are externally
 * synchronized). */
void vkl_reach_cmd(VkCommandBuffer cb, uint32_t cmd, const void *args);
/* After the calls listed in overrides.py LAYER_REACH (before them for
 * destroys and frees): resources, bindings, views, descriptor contents,
 * command buffer lifetimes.  ok: the call succeeded. */
void vkl_reach_call(const vkl_device *d, uint32_t cmd, const void *args, int ok);
/* Before a submission (vkQueueSubmit*, vkQueueBindSparse): publish the host
 * writes of the memory its command buffers reach, or of all mapped memory
 * when the reach is not known. */
void vkl_reach_publish(vkl_device *d, uint32_t cmd, const void *args);

/* ---- frames (vkl_queue.c) ----------------------------------------------- */

/* Frame N ends at the N-th vkQueuePresentKHR.  A device that cannot present
 * ends one every vkl_config.frame_submits submits, until the application
 * inserts a queue debug-utils label named "frame": from then on each such
 * label ends one. */
void vkl_frame_after_submit(const vkl_device *d);
void vkl_frame_after_present(void);
void vkl_frame_after_label(const char *label);

/* ---- the capture key (vkl_hotkey.c) -------------------------------------- */

/* After the calls listed in overrides.py LAYER_HOTKEY (X surface and
 * swapchain creation, before their destruction): which X connection each
 * surface and swapchain presents to.  args: the call's sbt_vk_args_*; ok:
 * the call succeeded.  Cheap when the key trigger is not set. */
void vkl_hotkey_call(uint32_t cmd, const void *args, int ok);
/* At vkQueuePresentKHR, before the frame ends: read the capture key on the
 * presented swapchains' connections; a new press asks for a window. */
void vkl_hotkey_present(const VkPresentInfoKHR *info);
/* A submit on a device that cannot present: the key is never read from it
 * (one warning when the key trigger is set). */
void vkl_hotkey_no_present(void);

/* ---- vkl_settings.c: VK_EXT_layer_settings ------------------------------- */

/* Hands this layer's settings in ci's chain to the capture runtime
 * (before the configuration is first read). */
void vkl_settings_apply(const VkInstanceCreateInfo *ci);
/* Unlinks the first VkLayerSettingsCreateInfoEXT from ci's chain: always
 * with all, else only when every setting in it is this layer's; 1 when
 * one was unlinked.  vkl_settings_restore puts it back. */
typedef struct vkl_settings_link {
	VkBaseInStructure *prev, *node;
} vkl_settings_link;
int vkl_settings_hide(const VkInstanceCreateInfo *ci, int all, vkl_settings_link *saved);
void vkl_settings_restore(vkl_settings_link *saved);

#endif /* VKL_H */
