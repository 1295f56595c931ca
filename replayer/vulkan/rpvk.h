/*
 * rpvk.h - the Vulkan backend of tsreplay (internal to replayer/vulkan/).
 *
 * One record = one Vulkan call.  The backend decodes it with the codec
 * (serializer/sbt_vk.h), input handles mapped captured -> live through
 * rpvk_map, and calls the live function: the generated glue
 * (replayer/generated/rpvk_gen.c) for most commands, the hand-written
 * overrides of rpvk_instance.c, rpvk_memory.c and rpvk_swapchain.c (listed
 * in scripts/vkgen/overrides.py, REPLAY_HANDWRITTEN) for the rest.  Created
 * handles are bound captured -> live after the call; destroyed ones are
 * forgotten.
 *
 * Everything lives in one rpvk, created by open and reused across runs
 * (reset destroys the live objects and clears the maps).  Single-threaded:
 * the core calls the backend from one thread, in sequence order.
 *
 * Ownership: pointers named *_out are written by the callee; others are
 * borrowed for the call.  Decoded arguments live in the arena until the
 * next record.
 */
#ifndef RPVK_H
#define RPVK_H

#include <stddef.h>
#include <stdint.h>

#include "replayer/vulkan/rpvk_vk.h"
#include "replayer/generated/rpvk_gen.h"

/* ---- captured -> live map ---------------------------------------------- */

/* Open addressing on (type, key); value and an aux word (the owner index
 * of dispatchable handles, or a pointer's index).  type 0 never occurs as
 * a VkObjectType key we use, so it marks an empty slot. */
typedef struct rpvk_map_slot {
	uint64_t key;
	uint64_t val;
	uint32_t type;   /* 0: empty; RPVK_MAP_TOMB: deleted */
	int32_t aux;
} rpvk_map_slot;

#define RPVK_MAP_TOMB 0xffffffffu

#define RPVK_MAP_MEMO 16u

typedef struct rpvk_map {
	rpvk_map_slot *slots; /* owned */
	size_t cap;           /* power of two */
	size_t used;          /* live + tombstones */
	size_t live;
	/* Where the last hit of each type & (RPVK_MAP_MEMO - 1) was.  Only a
	 * hint, never invalidated: a slot is taken from it only while it still
	 * holds that (type, key), and a key is in at most one live slot.  A
	 * replay asks for the same few handles (the command buffer being
	 * recorded, its pipeline and layout) call after call. */
	size_t memo[RPVK_MAP_MEMO];
} rpvk_map;

/* 0 on success, -1 out of memory. */
int rpvk_map_put(rpvk_map *m, uint32_t type, uint64_t key, uint64_t val, int32_t aux);
/* The slot by hashing (remembered in the memo), or NULL. */
const rpvk_map_slot *rpvk_map_probe(rpvk_map *m, uint32_t type, uint64_t key);

/* The slot, or NULL. */
static inline const rpvk_map_slot *rpvk_map_get(rpvk_map *m, uint32_t type, uint64_t key)
{
	size_t i = m->memo[type & (RPVK_MAP_MEMO - 1)];
	if (i < m->cap && m->slots[i].type == type && m->slots[i].key == key)
		return &m->slots[i];
	return rpvk_map_probe(m, type, key);
}
void rpvk_map_del(rpvk_map *m, uint32_t type, uint64_t key);
void rpvk_map_clear(rpvk_map *m);
void rpvk_map_free(rpvk_map *m);

/* ---- live objects ------------------------------------------------------ */

/* Instances, devices and physical devices live in arrays of slots that
 * grow as the trace needs them (rpvk_slot_*, rpvk_instance.c): a program
 * may keep many at once (piglit's glx-multithread-clearbuffer on zink, 16
 * of each).  Slots are found by index; a slot's address changes when its
 * array grows, at the creation of another of its kind. */
typedef struct rpvk_instance {
	VkInstance live;           /* VK_NULL_HANDLE: slot free */
	rpvk_itable t;
	int busy_device;           /* one of its devices was left busy: the
	                              instance is left too (destroying it would
	                              free what that work still uses) */
	int win_on;                /* rpvk_window.c: made with the window's extensions */
} rpvk_instance;

typedef struct rpvk_phys {
	VkPhysicalDevice live;     /* NULL: slot free (its instance was destroyed) */
	int inst;
	int have_captured;         /* captured memory properties known */
	int have_live;
	VkPhysicalDeviceMemoryProperties captured_mem, live_mem;
	uint32_t type_map[VK_MAX_MEMORY_TYPES]; /* captured type -> live type */
	VkDeviceSize atom;         /* nonCoherentAtomSize */
	int have_props;            /* atom and max_colors queried (live) */
	uint32_t max_colors;       /* maxColorAttachments (0: not known, not judged) */
} rpvk_phys;

#define RPVK_MAX_QUEUES 16

/* A queue a device was created with, and its family (rpvk_window.c). */
typedef struct rpvk_win_queue {
	VkQueue q;
	uint32_t family;
} rpvk_win_queue;
/* Queue families a device may create queues in (devices report a few). */
#define RPVK_MAX_FAMILIES 64

/* A queue of a device, with the fence checkpoints use to wait for it. */
typedef struct rpvk_queue {
	VkQueue live;
	VkFence fence;             /* ours; VK_NULL_HANDLE until first used */
} rpvk_queue;

typedef struct rpvk_device {
	VkDevice live;             /* VK_NULL_HANDLE: slot free */
	int inst;
	int phys;                  /* index into rpvk.phys */
	rpvk_dtable t;
	VkQueue aux_queue;         /* first queue of the first family it created */
	uint32_t aux_family;
	VkCommandPool aux_pool;    /* screenshots, created on first use */
	rpvk_queue queues[RPVK_MAX_QUEUES]; /* every queue the trace got */
	uint32_t nqueues;
	int busy;                  /* its work did not finish within the wait
	                              bound at teardown: left, not destroyed */
	int pending;               /* work submitted since its queues were last
	                              seen idle (rpvk_device_idle) */
	uint32_t family_queues[RPVK_MAX_FAMILIES]; /* queues created, by family */
	uint32_t live_queues[RPVK_MAX_FAMILIES];   /* of those, how many this device has
	                                              (fewer: captured indexes wrap) */
	int win_on;                /* rpvk_window.c: made with the swapchain extension */
	rpvk_win_queue win_queues[RPVK_MAX_QUEUES]; /* rpvk_window.c: the queues it was */
	uint32_t win_nqueues;                       /* created with (a present names a queue) */
} rpvk_device;

/* A captured VkDeviceMemory. */
typedef struct rpvk_mem {
	VkDeviceMemory live;
	VkDevice device;           /* live; the slot dev may be reused after it is destroyed */
	int dev;
	VkDeviceSize size;         /* live allocation size */
	VkDeviceSize captured_size;
	uint32_t live_type;
	int coherent;
	void *ptr;                 /* live mapping, NULL when unmapped */
	VkDeviceSize map_off, map_size;
	int dedicated;             /* allocated for one buffer or image only */
} rpvk_mem;

/* An offscreen swapchain: plain images with memory. */
typedef struct rpvk_swapchain {
	int dev;
	VkSwapchainCreateInfoKHR info; /* pNext, queue family list dropped */
	uint32_t count;
	VkImage *images;           /* owned array; live images */
	VkDeviceMemory *memory;
	struct rpvk_wsc *win;      /* the live swapchain showing it in a window
	                              (rpvk_window.c), owned; NULL offscreen */
} rpvk_swapchain;

/* Descriptor update template entries, to map handles inside pData. */
typedef struct rpvk_template {
	uint32_t n;
	VkDescriptorUpdateTemplateEntry *entries; /* owned */
} rpvk_template;

/* A call recorded before it ran (its result comes in vulkan.tsResult). */
typedef struct rpvk_pending {
	uint64_t seq;
	enum sbt_vk_cmd cmd;
	VkResult live;
	int done;
} rpvk_pending;

#define RPVK_PENDING 1024u
#define RPVK_MAX_WARNINGS 20u
#define RPVK_REQ_RECENT 64u

typedef struct rpvk_req_pair {
	VkDeviceSize captured, live;
} rpvk_req_pair;

/* Frames first..last of a --screenshot list ("N" is N-N). */
typedef struct rpvk_shot_range {
	uint64_t first, last;
} rpvk_shot_range;

struct rpvk {
	sbt_reader *trace;         /* borrowed: random access (blobs, type names) */
	int quiet;
	int serialise;             /* --schedule-seed: each submit waited for */
	int validate;              /* --validate */
	int spirv_unchecked;       /* --no-spirv-check */
	int offscreen;             /* always 1: the application's swapchain images
	                              are plain images, also in window mode */
	const char *device_sel;    /* --device */
	char shot_dir[1024];
	rpvk_shot_range *shots;    /* --screenshot frames, sorted by first; owned */
	size_t nshots;
	int shot_all;              /* --screenshot-all */
	int shot_png;              /* --screenshot-format png (else ppm) */

	sbt_vk_arena *arena;
	sbt_vk_decode_hooks hooks;
	rp_diag *diag;             /* the current execute's diag */
	uint64_t seq;              /* the record being replayed */
	enum sbt_vk_cmd cmd;
	unsigned cmd_flags;
	void **blobs;              /* loaded for the current record, freed at the next */
	size_t nblobs, blobs_cap;
	/* handles the current decode mapped (to forget destroyed ones) */
	struct { uint32_t type; uint64_t captured, live; } mapped[64];
	size_t nmapped;
	int handle_error;          /* the decode failed on a handle: diag is set */
	/* enum values vk.xml does not name, each warned about once (a newer
	 * driver may know them: they are passed on) */
	struct { const char *field; int64_t value; } unknown_enums[32];
	size_t nunknown_enums;

	rpvk_map handles;          /* (VkObjectType, captured) -> live; aux: owner
	                              (instance or device index; for non-dispatchable
	                              handles the device of the creating call, or
	                              RPVK_OWNER_SWAPCHAIN for swapchain images) */
	rpvk_map owners;           /* (VkObjectType, live dispatchable) -> owner index */
	rpvk_map mems;             /* (MEMORY, captured) -> rpvk_mem* */
	rpvk_map swapchains;       /* (SWAPCHAIN, fake live) -> rpvk_swapchain* */
	rpvk_map templates;        /* (TEMPLATE, live) -> rpvk_template* */
	rpvk_map types;            /* (1, record type) -> kind (rpvk_backend.c) */
	rpvk_map syncs;            /* (FENCE or SEMAPHORE, live) -> state (rpvk_wait.c) */
	rpvk_map cbs;              /* (COMMAND_BUFFER, live) -> its state (rpvk_state.c) */
	rpvk_map sobjs;            /* layouts, pipelines, buffers, images, for the same */
	rpvk_map resmem;           /* (BUFFER or IMAGE, live) -> live memory bound */
	rpvk_map imgs;             /* (IMAGE, live) -> what region checks need (rpvk_region.c) */
	rpvk_map dsets;            /* descriptor sets' contents, views' resources (rpvk_dset.c) */
	rpvk_map shobjs;           /* shaders, layouts, pipelines, framebuffers (rpvk_shader.c) */
	uint64_t wait_ns;          /* --wait-timeout: the longest wait for the device */
	/* types in front of the map, direct-mapped by record type (0: empty;
	 * record types of API calls are never 0) */
	struct { uint32_t type, kind; } kind_memo[64];
	void *args;                /* the current record's decoded arguments:
	                              room for the largest, owned */
	rpvk_instance *inst;       /* ninst slots, owned */
	rpvk_device *dev;          /* ndev slots, owned */
	rpvk_phys *phys;           /* nphys slots, owned */
	int ninst, ndev;
	size_t nphys;
	int cur_inst, cur_dev;     /* owners of the current call's dispatch handle */
	uint64_t next_fake;        /* live values of objects that exist only here */

	rpvk_pending pending[RPVK_PENDING];
	rpvk_req_pair reqs[RPVK_REQ_RECENT];
	size_t nreqs;

	uint64_t settled_seq;      /* the call whose checkpoints found the device settled */
	uint8_t *cp_buf;           /* checkpoint bytes of unmapped memory */
	size_t cp_cap;

	/* counters of the current run */
	unsigned run;
	uint64_t calls;
	uint64_t frames;           /* presents replayed */
	uint64_t frame_base;       /* the capture's frames before the first of
	                              them: a trimmed trace's window.first_frame
	                              - 1, or a restored snapshot's frame; frame
	                              numbers (--screenshot) are the capture's */
	uint64_t shots_written;
	uint64_t warnings;
	uint64_t differing_results;
	/* Frame hashes (TRACESMITH_FRAME_HASH, rpvk_swapchain.c): the last
	 * present replayed, its frame and what it presented (live swapchain,
	 * image index), so that its checkpoints can read those images. */
	uint64_t present_seq;
	uint64_t present_frame;
	uint32_t npresented;
	struct { uint64_t swapchain; uint32_t index; } presented[8];
	uint64_t frame_hashes;     /* frame checkpoints compared, this run */
	uint64_t frame_hashes_differ;
	uint64_t frame_first_differ; /* the first frame that differs (0: none) */
	uint8_t *fh_buf;           /* the image bytes handed to the core; owned */
	size_t fh_cap;

	struct rpvk_win *win;      /* window mode (rpvk_window.c), owned; NULL:
	                              offscreen (no DISPLAY, or --offscreen) */
	uint64_t window_frames;    /* presents shown in a window, this run */

	/* A periodic snapshot met in the middle of a replay (rpvk_keyframe):
	 * the seq of the last of its records skipped; 0 outside one. */
	uint64_t skip_seq;
	/* --profile (rpvk_profile.c) */
	rp_profile *profile;       /* borrowed from open's args; NULL: not profiling */
	struct rpvk_prof *prof;    /* query pools and what they time; owned */
	/* --per-command (rpvk_percmd.c): what command buffers may write, and
	 * the run's results; owned; NULL without the flag */
	struct rpvk_pc *pc;
	/* query results a trimmed trace recorded (rpvk_query.c); owned; NULL
	 * until a vulkan.tsQueryResults record */
	struct rpvk_query *query;
};

/* ---- used by the generated glue and the overrides ---------------------- */

/* The table of the live dispatchable handle; NULL (diag set) if unknown.
 * Sets r->cur_inst / r->cur_dev. */
const rpvk_itable *rpvk_itable_for(rpvk *r, uint64_t live);
const rpvk_dtable *rpvk_dtable_lookup(rpvk *r, uint64_t live);
/* rpvk_dtable_lookup with its common case inline: a command buffer (vkCmd*
 * are most calls) of a live device.  Everything else, failures included,
 * is looked up again there (it tries command buffers first as well). */
static inline const rpvk_dtable *rpvk_dtable_for(rpvk *r, uint64_t live)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->owners, VK_OBJECT_TYPE_COMMAND_BUFFER, live);
	if (s && s->aux >= 0 && s->aux < r->ndev && r->dev[s->aux].live) {
		r->cur_dev = s->aux;
		r->cur_inst = r->dev[s->aux].inst;
		return &r->dev[s->aux].t;
	}
	return rpvk_dtable_lookup(r, live);
}
/* The live function is missing: an error naming seq and call. */
rp_status rpvk_missing(rpvk *r, const char *name);
rp_status rpvk_nomem(rpvk *r);
/* Compare a call's VkResult with the captured one (a warning on a
 * difference; for calls recorded before they ran, kept for tsResult). */
void rpvk_result(rpvk *r, VkResult captured, VkResult live);
/* Owner mark of swapchain images: the swapchain code destroys them. */
#define RPVK_OWNER_SWAPCHAIN (-2)

/* Bind captured -> live; the handle's owner is the current device (the
 * current instance for instances and physical devices). */
rp_status rpvk_bind(rpvk *r, VkObjectType type, uint64_t captured, uint64_t live);
/* Forget the captured handle the current decode mapped to live. */
void rpvk_forget(rpvk *r, VkObjectType type, uint64_t live);
/* A copy of n handles (as u64) in the arena; NULL when n is 0 or no memory. */
uint64_t *rpvk_save_handles(rpvk *r, const void *handles, size_t n);
/* n zeroed bytes in the arena (until the next record). */
void *rpvk_scratch(rpvk *r, size_t n);
/* The live value of a captured handle (0 when null), or -1 with diag set. */
int rpvk_lookup(rpvk *r, VkObjectType type, uint64_t captured, uint64_t *live_out);
/* A new live value for an object that exists only in the replay. */
uint64_t rpvk_fake_handle(rpvk *r);
/* A warning on stderr (counted; the first RPVK_MAX_WARNINGS printed). */
void rpvk_warn(rpvk *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error into the current diag, prefixed with seq and call. */
rp_status rpvk_fail(rpvk *r, rp_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *rpvk_result_name(VkResult res);
const char *rpvk_cmd_label(const rpvk *r);
/* --device SEL as a physical device index: 1 (index in *idx_out) when SEL
 * is plain decimal digits, 0 when it is text to find in a device name. */
int rpvk_device_index(const char *sel, unsigned long *idx_out);

/* ---- rpvk_instance.c / rpvk_memory.c / rpvk_swapchain.c ---------------- */

/* Destroy every live object the maps still hold (reset and close). */
void rpvk_instance_teardown(rpvk *r);
/* Frees the slot arrays (after rpvk_instance_teardown). */
void rpvk_slots_free(rpvk *r);
/* Remember a queue of device d (for rpvk_device_settle). */
void rpvk_device_add_queue(rpvk *r, int d, VkQueue q);
/* Wait (bounded) until the work submitted so far to every queue of
 * device d has finished. */
void rpvk_device_settle(rpvk *r, int d);
/* Wait at most timeout_ns until the work submitted so far to queue only
 * (VK_NULL_HANDLE: every queue) of device d has finished: VK_SUCCESS,
 * VK_TIMEOUT, or the driver's error. */
VkResult rpvk_device_idle(rpvk *r, int d, VkQueue only, uint64_t timeout_ns);

/* ---- rpvk_wait.c: waits that end ---------------------------------------- */

/* --wait-timeout SECONDS (> 0, fractions allowed) in ns; -1 when not one. */
int rpvk_wait_parse(const char *text, uint64_t *ns_out);
/* The default bound (60 s). */
void rpvk_wait_init(rpvk *r);
/* Before a call: a submit that waits on a binary semaphore nothing
 * replayed will signal stops the replay (diag set). */
rp_status rpvk_sync_before(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
/* After a call: the fence and semaphore states it changed. */
void rpvk_sync_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
/* --schedule-seed: after a replayed submit (vkQueueSubmit*, vkQueueBindSparse),
 * wait (bounded) until its queue is idle, so that the device runs the
 * submits one at a time in the order the core hands them over. */
rp_status rpvk_wait_serialised(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
/* vkGetDeviceQueue(2) of a queue index the device here has fewer queues
 * for than the trace's (vkCreateDevice asked more than the family has):
 * index modulo what it has. */
void rpvk_queue_remap(rpvk *r, enum sbt_vk_cmd cmd, void *args);

/* ---- rpvk_state.c: command buffer state ---------------------------------- */

/* Before a call with its rpvk_cmds flags: RP_ERR_TRACE (diag set) when the
 * command buffer state it needs is not there. */
rp_status rpvk_state_before(rpvk *r, enum sbt_vk_cmd cmd, unsigned flags, const void *args);
/* rpvk_spirv.c: a shader module's code checked by SPIRV-Tools' validator
 * (refused with the validator's message when it is not valid SPIR-V). */
rp_status rpvk_spirv_check(rpvk *r, const VkShaderModuleCreateInfo *ci);
/* After a call: the state it changed. */
void rpvk_state_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
void rpvk_state_clear(rpvk *r);
void rpvk_state_free(rpvk *r);
/* A buffer's size as created (0: not known). */
uint64_t rpvk_state_buffer_size(rpvk *r, VkBuffer b);
/* A query pool's queryCount as created (0: not known), and the values
 * each query's result holds (0: not known). */
uint32_t rpvk_state_query_count(rpvk *r, VkQueryPool p, uint32_t *values_out);
/* Whether a command buffer was allocated as a secondary one. */
int rpvk_state_cb_secondary(rpvk *r, VkCommandBuffer cb);
/* Device d was seen idle: none of its command buffers is pending. */
void rpvk_state_idle(rpvk *r, int d);
/* Whether the memory of a buffer or image was freed. */
int rpvk_state_res_freed(rpvk *r, VkObjectType type, uint64_t live);
/* A buffer, image or descriptor set went: the command buffers that use it
 * may not be submitted until recorded again. */
void rpvk_state_gone(rpvk *r, VkObjectType type, uint64_t live);

/* ---- rpvk_query.c: recorded query results -------------------------------- */

/* A vulkan.tsQueryResults record: its queries are substituted from now on. */
rp_status rpvk_query_results(rpvk *r, const uint8_t *payload, size_t len);
/* Before a call: *done_out set when the call was replayed here (recorded
 * results handed out in place of the driver's) and must not be called. */
rp_status rpvk_query_before(rpvk *r, enum sbt_vk_cmd cmd, void *args, int *done_out);
/* Forget every substitution (reset and close). */
void rpvk_query_clear(rpvk *r);

/* ---- rpvk_dset.c: descriptor set contents -------------------------------- */

/* After a call: the sets, views and resources it changed. */
void rpvk_dset_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
/* Whether set holds a resource destroyed or freed since it was written
 * (why says which binding); 0 for sets not known. */
int rpvk_dset_bad(rpvk *r, uint64_t set, char *why, size_t len);
/* Whether binding of set, which a pipeline's shaders use, was never
 * written while the set's layout needs it written (not partially bound,
 * not only immutable samplers, not empty); why says which.  0 for sets and
 * layouts not known. */
int rpvk_dset_unwritten(rpvk *r, uint64_t set, uint32_t binding, char *why, size_t len);
/* Before vkUpdateDescriptorSets: write i names a binding of its set's
 * layout, of the layout's type, and elements the layout has (RP_ERR_TRACE,
 * diag set, otherwise; sets whose layout is not known are not judged). */
rp_status rpvk_dset_write_check(rpvk *r, uint32_t i, const VkWriteDescriptorSet *w);
/* Whether an update of binding of set (all: of bindings not known, a
 * template's) makes a command buffer that binds the set invalid: the
 * set's layout is known and the binding (every binding, for all) lacks
 * UPDATE_AFTER_BIND and UPDATE_UNUSED_WHILE_PENDING; *binding_out the
 * binding named (UINT32_MAX for all). */
int rpvk_dset_update_invalidates(rpvk *r, uint64_t set, uint32_t binding, int all, uint32_t *binding_out);
/* fn(ctx, type, live) for each buffer or image a storage descriptor of set
 * reaches (storage buffer, storage image, storage texel buffer; views
 * resolved to what they view; every entry when the set's layout is not
 * known): what a shader may write through it. */
void rpvk_dset_each_storage(rpvk *r, uint64_t set, void (*fn)(void *ctx, uint32_t type, uint64_t live),
                            void *ctx);
/* Whether a storage descriptor of set may change legally while a command
 * buffer binds it: its layout is known and gives a storage binding (buffer,
 * image, texel buffer) UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING. */
int rpvk_dset_may_change(rpvk *r, uint64_t set);
void rpvk_dset_clear(rpvk *r);
void rpvk_dset_free(rpvk *r);

/* ---- rpvk_shader.c: shaders, layouts, pipelines, framebuffers ------------ */

/* A descriptor set layout's binding, as created. */
typedef struct rpvk_sh_binding {
	uint32_t binding, type, count, stages;
	uint32_t flags;            /* VkDescriptorBindingFlags */
	uint8_t immutable;         /* pImmutableSamplers given */
} rpvk_sh_binding;

/* A descriptor set layout's bindings, sorted by number. */
typedef struct rpvk_sh_layout {
	uint32_t n;
	uint8_t known;             /* 0: a layout the replay did not see made */
	rpvk_sh_binding *b;        /* owned */
} rpvk_sh_layout;

/* Dynamic state a draw reads, as bits (the states judged; rpvk_shader.c's
 * rpvk_sh_dyn table says which call sets each and when a draw reads it).
 * As "on" bits (rpvk_sh_pipe.on, the command buffer's values) the enables
 * mean enabled, RPVK_DYN_TOPOLOGY a line topology, RPVK_DYN_POLYGON_MODE
 * polygonMode LINE, RPVK_DYN_COLOR_BLEND_ENABLE blending enabled for an
 * attachment, RPVK_DYN_LINE_STIPPLE_ENABLE stippled lines,
 * RPVK_DYN_LOGIC_OP_ENABLE the logic op enabled and
 * RPVK_DYN_SAMPLE_LOCATIONS_ENABLE custom sample locations enabled. */
#define RPVK_DYN(n) ((uint64_t)1 << (n))
#define RPVK_DYN_VIEWPORT RPVK_DYN(0)
#define RPVK_DYN_SCISSOR RPVK_DYN(1)
#define RPVK_DYN_VIEWPORT_COUNT RPVK_DYN(2)
#define RPVK_DYN_SCISSOR_COUNT RPVK_DYN(3)
#define RPVK_DYN_TOPOLOGY RPVK_DYN(4)
#define RPVK_DYN_DISCARD RPVK_DYN(5)
#define RPVK_DYN_LINE_WIDTH RPVK_DYN(6)
#define RPVK_DYN_DEPTH_BIAS RPVK_DYN(7)
#define RPVK_DYN_BLEND_CONSTANTS RPVK_DYN(8)
#define RPVK_DYN_DEPTH_BOUNDS RPVK_DYN(9)
#define RPVK_DYN_STENCIL_COMPARE_MASK RPVK_DYN(10)
#define RPVK_DYN_STENCIL_WRITE_MASK RPVK_DYN(11)
#define RPVK_DYN_STENCIL_REFERENCE RPVK_DYN(12)
#define RPVK_DYN_CULL_MODE RPVK_DYN(13)
#define RPVK_DYN_FRONT_FACE RPVK_DYN(14)
#define RPVK_DYN_DEPTH_TEST_ENABLE RPVK_DYN(15)
#define RPVK_DYN_DEPTH_WRITE_ENABLE RPVK_DYN(16)
#define RPVK_DYN_DEPTH_COMPARE_OP RPVK_DYN(17)
#define RPVK_DYN_DEPTH_BOUNDS_TEST_ENABLE RPVK_DYN(18)
#define RPVK_DYN_STENCIL_TEST_ENABLE RPVK_DYN(19)
#define RPVK_DYN_STENCIL_OP RPVK_DYN(20)
#define RPVK_DYN_DEPTH_BIAS_ENABLE RPVK_DYN(21)
#define RPVK_DYN_PRIMITIVE_RESTART_ENABLE RPVK_DYN(22)
#define RPVK_DYN_VERTEX_STRIDE RPVK_DYN(23)
/* VK_EXT_extended_dynamic_state3 (those lavapipe 22.3.6 has) */
#define RPVK_DYN_TESS_DOMAIN_ORIGIN RPVK_DYN(24)
#define RPVK_DYN_DEPTH_CLAMP_ENABLE RPVK_DYN(25)
#define RPVK_DYN_POLYGON_MODE RPVK_DYN(26)
#define RPVK_DYN_RASTERIZATION_SAMPLES RPVK_DYN(27)
#define RPVK_DYN_SAMPLE_MASK RPVK_DYN(28)
#define RPVK_DYN_ALPHA_TO_COVERAGE_ENABLE RPVK_DYN(29)
#define RPVK_DYN_ALPHA_TO_ONE_ENABLE RPVK_DYN(30)
#define RPVK_DYN_LOGIC_OP_ENABLE RPVK_DYN(31)
#define RPVK_DYN_COLOR_BLEND_ENABLE RPVK_DYN(32)
#define RPVK_DYN_COLOR_BLEND_EQUATION RPVK_DYN(33)
#define RPVK_DYN_COLOR_WRITE_MASK RPVK_DYN(34)
#define RPVK_DYN_DEPTH_CLIP_ENABLE RPVK_DYN(35)
#define RPVK_DYN_PROVOKING_VERTEX_MODE RPVK_DYN(36)
#define RPVK_DYN_LINE_RASTERIZATION_MODE RPVK_DYN(37)
#define RPVK_DYN_LINE_STIPPLE_ENABLE RPVK_DYN(38)
#define RPVK_DYN_DEPTH_CLIP_NEGATIVE_ONE_TO_ONE RPVK_DYN(39)
/* VK_EXT_vertex_input_dynamic_state, VK_EXT_line_rasterization,
 * VK_EXT_extended_dynamic_state2, VK_EXT_color_write_enable */
#define RPVK_DYN_VERTEX_INPUT RPVK_DYN(40)
#define RPVK_DYN_LINE_STIPPLE RPVK_DYN(41)
#define RPVK_DYN_LOGIC_OP RPVK_DYN(42)
#define RPVK_DYN_COLOR_WRITE_ENABLE RPVK_DYN(43)
/* VK_EXT_sample_locations (its enable through VK_EXT_extended_dynamic_state3) */
#define RPVK_DYN_SAMPLE_LOCATIONS_ENABLE RPVK_DYN(44)
#define RPVK_DYN_SAMPLE_LOCATIONS RPVK_DYN(45)
#define RPVK_DYN_ALL (RPVK_DYN(46) - 1)

/* The colour-attachment states, set per attachment (RPVK_ATT_*, the
 * setter's firstAttachment and attachmentCount; vkCmdSetColorWriteEnableEXT
 * sets attachments 0 to its attachmentCount - 1 and no others).  A draw
 * needs each for every colour attachment of its pipeline (for the blend
 * equation, every one blending); attachments from 32 on are not judged. */
enum { RPVK_ATT_BLEND_ENABLE, RPVK_ATT_BLEND_EQUATION, RPVK_ATT_WRITE_MASK, RPVK_ATT_WRITE_ENABLE, RPVK_ATT_N };
typedef struct rpvk_att_state {
	uint32_t set[RPVK_ATT_N];  /* attachments each state is set for (valid
	                              while its RPVK_DYN_* bit is set) */
	uint32_t blend_on;         /* attachments the command buffer's
	                              vkCmdSetColorBlendEnableEXT enabled */
} rpvk_att_state;

/* What a pipeline's draws and dispatches need. */
typedef struct rpvk_sh_pipe {
	uint32_t nuse, cap;
	struct { uint32_t set, binding; } *use; /* statically used; owned */
	uint64_t dyn;              /* RPVK_DYN_* it leaves to the command buffer */
	uint64_t on;               /* RPVK_DYN_* enables it has static and on */
	uint8_t dyn_known;         /* 0: linked from a library the replay did
	                              not see made (not judged) */
	uint8_t blend_consts;      /* an enabled blend uses the constants */
	uint8_t vertex_bindings;   /* it has vertex input bindings */
	uint32_t colors;           /* its colour attachments (blend state's
	                              attachmentCount) */
	uint32_t blend_on;         /* those with blending enabled, static */
	uint8_t tess;              /* it has a tessellation evaluation stage */
	uint8_t push;              /* a stage's shader uses push constants */
} rpvk_sh_pipe;

/* The first dynamic state (RPVK_DYN_* bit) the draw with pipeline p reads
 * and the command buffer has not set: set holds the states set (since it
 * began, or since a pipeline with them static was bound), on the values
 * of the enables among them, att the colour attachments each colour state
 * was set for; inherited what a secondary command buffer inherits.  0
 * when none.  *attachment: the colour attachment a state set for others
 * lacks, or UINT32_MAX (the state was never set). */
uint64_t rpvk_shader_dyn_missing(const rpvk_sh_pipe *p, uint64_t set, uint64_t on, uint64_t inherited,
                                 const rpvk_att_state *att, uint32_t *attachment);

/* Before a call: RP_ERR_TRACE (diag set) for a pipeline whose shaders do
 * not fit its layout, or a render pass begun on a framebuffer whose
 * attachments went. */
rp_status rpvk_shader_before(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
void rpvk_shader_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
void rpvk_shader_clear(rpvk *r);
void rpvk_shader_free(rpvk *r);
/* What pipeline needs; NULL when not known. */
const rpvk_sh_pipe *rpvk_shader_pipe(rpvk *r, uint64_t pipeline);
/* A copy of a layout's bindings (out owned by the caller: finish it);
 * 0 (out->known 0) when the layout is not known. */
int rpvk_shader_layout_copy(rpvk *r, VkDescriptorSetLayout layout, rpvk_sh_layout *out);
void rpvk_sh_layout_finish(rpvk_sh_layout *l);
/* The index in l->b of binding, or -1. */
int rpvk_sh_layout_find(const rpvk_sh_layout *l, uint32_t binding);
/* The live image views of the attachments of the render pass begun with bi
 * (its framebuffer's, or for an imageless framebuffer those bi gives) still
 * there, each followed by its image, into out (at most max values); the
 * count. */
int rpvk_shader_pass_attachments(rpvk *r, const VkRenderPassBeginInfo *bi, uint64_t *out, uint32_t max);
/* A name for one RPVK_DYN_* bit. */
const char *rpvk_shader_dyn_name(uint64_t bit);

/* ---- rpvk_region.c: image regions ---------------------------------------- */

/* Before a vkCmd* copy, blit, resolve or clear of an image: RP_ERR_TRACE
 * (diag set) when a region lies outside its image or buffer. */
rp_status rpvk_region_check(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
/* A subresource range inside mips levels and layers layers. */
int rpvk_subrange_in(uint32_t mips, uint32_t layers, const VkImageSubresourceRange *s);
/* An image view's levels and layers inside its image (1 when the image is
 * not known: not judged).  A 2D or 2D array view of a 3D image made 2D-array
 * or 2D-view compatible has one level, whose depth slices are its layers
 * (VUID-VkImageViewCreateInfo-image-02724). */
int rpvk_region_view_in(rpvk *r, const VkImageViewCreateInfo *ci);
/* An image the replay created (ci borrowed), and one it destroyed. */
void rpvk_region_image_created(rpvk *r, VkImage image, const VkImageCreateInfo *ci);
void rpvk_region_image_forget(rpvk *r, VkImage image);
void rpvk_region_clear(rpvk *r);
void rpvk_region_free(rpvk *r);
rpvk_mem *rpvk_mem_find(rpvk *r, uint64_t captured);
void rpvk_mem_clear(rpvk *r);
/* Forget (without freeing) the memory of a device being destroyed. */
void rpvk_mem_forget_device(rpvk *r, int dev);
void rpvk_template_clear(rpvk *r);
rp_status rpvk_memory_write(rpvk *r, const uint8_t *payload, size_t len);
rp_status rpvk_memory_writes(rpvk *r, const uint8_t *payload, size_t len);
/* Before a flush or invalidate: every range of memory the replay allocated
 * lies inside its mapping (RP_ERR_TRACE, diag set, otherwise). */
rp_status rpvk_memory_ranges_check(rpvk *r, uint32_t n, const VkMappedMemoryRange *ranges);
/* Before a bind of live buffer or image res: its requirements fit mem at
 * off, aligned (RP_ERR_TRACE, diag set, otherwise).  plane: 0, or the
 * VK_IMAGE_ASPECT_PLANE_n_BIT of a disjoint image's plane bound
 * (VkBindImagePlaneMemoryInfo), whose own requirements are judged. */
rp_status rpvk_memory_bind_check(rpvk *r, VkObjectType type, uint64_t res, VkDeviceMemory mem,
                                 VkDeviceSize off, VkImageAspectFlagBits plane);
rp_status rpvk_memory_checkpoint(rpvk *r, const sbt_checkpoint *cp, const void **bytes_out);
/* --per-command: all of m (m->size bytes) into out through a mapping: 1
 * read; 0 when m is not host-visible here, or the application has mapped
 * only part of it (read it on the device); -1 (diag set) on failure. */
int rpvk_memory_read_host(rpvk *r, rpvk_mem *m, uint8_t *out);
/* rpvk_swapchain.c: a checkpoint whose call is the present just replayed
 * (a frame hash): 1 with *st its outcome (bytes in *bytes_out), 0 when it
 * is not one. */
int rpvk_frame_checkpoint(rpvk *r, const sbt_checkpoint *cp, const void **bytes_out,
                          rp_status *st);
/* A live memory type for the requirement bits and property flags (-1: none). */
int rpvk_memory_type(const rpvk_phys *p, uint32_t bits, VkMemoryPropertyFlags want);
/* Records the copy of a read back into dst (rpvk_read_back). */
typedef void (*rpvk_read_back_fn)(const rpvk_dtable *t, VkCommandBuffer cb, VkBuffer dst, void *ctx);
/* size bytes read to out through a host-visible buffer and a submit of the
 * replay's own, waited for at most --wait-timeout (rpvk_memory.c). */
rp_status rpvk_read_back(rpvk *r, rpvk_device *dv, VkDeviceSize size, const char *what,
                         rpvk_read_back_fn record, void *ctx, uint8_t *out);
/* Rewrite PRESENT_SRC_KHR layouts of a decoded call (offscreen). */
void rpvk_rewrite_layouts(rpvk *r, enum sbt_vk_cmd cmd, void *args);
void rpvk_swapchain_destroy_all(rpvk *r, int dev);

/* ---- rpvk_profile.c: --profile ----------------------------------------- */

/* Around each replayed call when profiling: before writes the start
 * timestamp of a timed command (and drops the query pools of a device
 * about to be destroyed); after (when the call succeeded) writes its end
 * timestamp, resets the pool after vkBeginCommandBuffer, and after a
 * submit waits for the queue and hands the timings to r->profile. */
rp_status rpvk_profile_before(rpvk *r, enum sbt_vk_cmd cmd, void *args);
rp_status rpvk_profile_after(rpvk *r, enum sbt_vk_cmd cmd, void *args, unsigned flags);
/* The backend's profile_finish: the device's name into the profile. */
rp_status rpvk_profile_finish(void *state, rp_diag *diag);
/* Destroy the query pools (teardown, while the devices live). */
void rpvk_profile_release(rpvk *r);
void rpvk_profile_free(rpvk *r);

/* ---- rpvk_percmd.c: --per-command -------------------------------------- */

rp_status rpvk_percmd_open(rpvk *r);
/* After a call that succeeded (flags: execute's): follow command buffer
 * recording; after a submit not fast-forwarded, wait for its queue and
 * keep what the memory it may have written holds. */
rp_status rpvk_percmd_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args, unsigned flags);
/* Before a call: our objects on a device it destroys, or over a memory it
 * frees, go first. */
rp_status rpvk_percmd_before(rpvk *r, enum sbt_vk_cmd cmd, const void *args);
/* The backend's command_results. */
rp_status rpvk_percmd_results(void *state, rp_command_result_fn fn, void *ctx, rp_diag *diag);
/* The backend's command_part: the vkCmd* of the submit at seq whose own
 * results first differ between this run and run 1. */
int rpvk_percmd_part(void *state, uint64_t seq, rp_command_part *out);
/* Whether the application's free of live memory must not reach the driver
 * yet: a copy --per-command recorded behind a command whose descriptor sets
 * may change after the recording still reads it (rpvk_percmd.c frees it
 * once none does).  0 without --per-command. */
int rpvk_percmd_keeps_memory(rpvk *r, VkDeviceMemory memory);
/* Destroy our objects on the devices (before they go) and forget the
 * command buffers. */
void rpvk_percmd_release(rpvk *r);
/* Forget the command buffers and this run's results (reset; run 1's own
 * results of each command are kept), or everything (close). */
void rpvk_percmd_clear(rpvk *r);
void rpvk_percmd_free(rpvk *r);

/* ---- rpvk_window.c: the swapchain shown in an X window ------------------ */

/* Window mode when DISPLAY is set and --offscreen was not given (connects
 * to nothing yet).  RP_ERR_NOMEM only; trace_path names the windows. */
rp_status rpvk_window_open(rpvk *r, int offscreen_opt, const char *trace_path, rp_diag *diag);
void rpvk_window_close(rpvk *r);
/* Before vkCreateInstance: 1 when the instance will present to windows
 * (it enables VK_KHR_surface, X is reachable, the loader has
 * VK_KHR_xcb_surface), with the extensions that needs appended to exts
 * (room for 2 more than *n); 0 otherwise (a note says why, once). */
int rpvk_window_instance_exts(rpvk *r, const char **exts, uint32_t *n);
void rpvk_window_instance_bind(rpvk *r, int inst, int on);
/* Destroy the windows and live surfaces of instance inst (before it goes). */
void rpvk_window_instance_drop(rpvk *r, int inst);
/* Before vkCreateDevice on an instance: 1 when its swapchains will be
 * shown, with VK_KHR_swapchain appended to exts when missing (room for 1). */
int rpvk_window_device_exts(rpvk *r, int inst, VkPhysicalDevice phys, const char **exts,
                            uint32_t *n);
/* After vkCreateDevice: remember which queues it has, by family. */
void rpvk_window_device_bind(rpvk *r, int dev, int on, const VkDeviceCreateInfo *ci);
void rpvk_window_device_drop(rpvk *r, int dev);
/* A captured surface was bound to fake (its instance is r->cur_inst). */
rp_status rpvk_window_surface_create(rpvk *r, uint64_t fake);
void rpvk_window_surface_destroy(rpvk *r, uint64_t fake);
/* A live swapchain on the surface fake_surface for the plain-image
 * swapchain sc (old: the one the application retires, or NULL).  Failing
 * to make one is a warning: the replay goes on offscreen. */
void rpvk_window_swapchain_create(rpvk *r, rpvk_swapchain *sc, uint64_t fake_surface,
                                  rpvk_swapchain *old);
void rpvk_window_swapchain_destroy(rpvk *r, rpvk_swapchain *sc);
/* Before acquire signals the application: the last copy out of sc's
 * images has finished (it may render into them next). */
void rpvk_window_acquire_wait(rpvk *r, rpvk_swapchain *sc);
/* Show plain image idx of sc (its work submitted to queue, waited for
 * there) in the window: acquire live, copy, present.  Never fails the
 * replay: a window that cannot be shown is a warning. */
void rpvk_window_present(rpvk *r, VkQueue queue, rpvk_swapchain *sc, uint32_t idx);

#endif /* RPVK_H */
