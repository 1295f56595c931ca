/*
 * vkl_trim.c - trimmed capture: keep what recreates the live state, and
 * write it as a snapshot when a capture window opens.
 *
 * While the runtime tracks (cap_tracking(): a trigger is set, or periodic
 * snapshots), every call that creates an object or sets state a later
 * window needs is encoded as it would be recorded (inline: no blob ids,
 * which belong to one window's file) and kept with the live-object entry
 * it belongs to (vkl_objects.c), in a refcounted vkl_trim_rec:
 *
 *   creations (vkCreate*, vkAllocate*, vkGetDeviceQueue*,
 *   vkEnumeratePhysicalDevices, vkGetSwapchainImagesKHR)
 *                        -> every object the call returned, adopted in
 *                           vkl_objects_add from this thread's last call
 *   bind memory (with the memory's allocation), memory requirements,
 *   vkMapMemory (dropped at the unmap),
 *   descriptor updates  -> the object they set (each destination set)
 *   physical-device queries (not surface ones; identical ones kept once)
 *                        -> the physical device
 *   what a pipeline, pipeline layout, descriptor set layout, set, image
 *   view or framebuffer was created from (shader modules, layouts, render
 *   passes, samplers, a view's image with what it keeps, a framebuffer's
 *   views)            -> also kept by the object created from it, so a
 *                           module destroyed after its pipeline's creation
 *                           (or a framebuffer's view, its image, memory)
 *                           is recreated for it and destroyed again at the
 *                           end of the snapshot
 *   vkBeginCommandBuffer, every vkCmd*, vkEndCommandBuffer
 *                        -> the command buffer's own byte buffer, emptied
 *                           by the next begin, a reset or a pool reset
 *
 * Each kept call takes the next number of a process-wide order, so the
 * snapshot writes them in the order they happened; a command buffer's
 * calls are written together after the last kept call that preceded its
 * last command (everything it names existed then).  Destroying an object
 * drops what it kept (and its children's, through the table).
 *
 * State that calls do not carry is tracked beside: image layouts per
 * subresource range (image barriers and render pass final layouts of
 * command buffers, a primary taking on those of the secondaries it
 * executes, applied in order when they are submitted; an image keeps one
 * layout until its subresources part), which queries hold results (writes
 * and resets, the same way, and host resets), fence signal state (created signalled, submitted,
 * reset), binary semaphore state (signalled by a submit or an acquire,
 * waited by a submit or a present), and the swapchain images acquired and
 * not yet presented.
 *
 * The snapshot (cap_on_window_open, on the thread that opens the window):
 * every device waits idle; the kept calls are recorded in order, except
 * those that name an object destroyed since (decoded and checked first);
 * then memory contents (vkl_memory_snapshot through a mapping, or, for
 * memory the host cannot map, through staging copies: each image's
 * contents per mip level and aspect, the rest through a buffer bound over
 * the memory); then, per device, calls with handles of the layer's own
 * (VKL_TRIM_HANDLE_BASE and up: non-canonical addresses, never a driver's
 * handle) that copy staged memory and images back, put each range of
 * each image in its current layout, signal fences and semaphores, reset
 * fences created signalled, reset query pools and write their timestamps again, and
 * acquire the images the application holds; last, objects recreated only
 * for others are destroyed again.  A live object whose creation is left
 * out is marked, and its destroy in a window is not recorded.  So that images can be
 * copied, vkCreateImage gets transfer usage while tracking
 * (vkl_trim_image_info).
 *
 * Cost while no window is open: a vkCmd* is a per-thread cache hit for its
 * command buffer and a copy of its arguments in flat form (sbt_vk_flat;
 * encoded when a snapshot writes them; the vkCmd* without a flat form are
 * encoded at once).  Most flat vkCmd* take the keep-first path of their
 * generated wrapper (vkl_trim_fast_begin, vkl.h: the copy before the call
 * down, through the device cached with the command buffer, no look-up),
 * armed for a command buffer once the whole path (vkl_trim_keep_flat,
 * inlined; its slow half vkl_trim_emit_flat) kept one of its calls; other
 * calls that keep nothing are not encoded.  With a window known ahead, a
 * recording made again for each submit keeps no calls before the window's
 * lead-in (vkl_trim_cb_begin: "Recordings that are not kept"); with no
 * notice, one submitted in the frame it began, the window being held back
 * while such a recording is unsubmitted (vkl_trim_hold), and again once a
 * window has closed (vkl_trim_reopen_check); the same
 * wrappers pass its calls straight down (vkl_trim_fast_skip).
 *
 * Threading: kept records are shared read-only once made (atomic refs).
 * An object's list and tracking state are under its table shard's lock; a
 * command buffer's byte buffer is written only by the thread recording it
 * (command buffers are externally synchronized), found through a
 * per-thread cache that a generation counter invalidates whenever a
 * command buffer leaves the table.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl.h"
#include "serializer/sbt_vk.h"
#include "layers/vulkan/vkl_format.h"
#include "serializer/generated/sbt_vk_formats.h"
#include "serializer/generated/sbt_vk_ignored.h"

/* Boundaries in a row a window with no notice is held for a swapchain
 * image acquired and not presented (vkl_trim_hold). */
#define VKL_TRIM_ACQ_HOLDS 256
/* The lead-in's defaults (TRACESMITH_VK_LEAD_IN), in the range's unit. */
#define VKL_TRIM_LEAD_FRAMES 8
#define VKL_TRIM_LEAD_SUBMITS 64
/* A one-time-submit recording is left unkept when the command buffer's
 * recording before was submitted soon after it began (with no notice in
 * the frame it began, with a lead-in within lead_slack units) and this
 * one was begun after that submit.  A recording that is not one-time-
 * submit is always kept: it may be submitted again, in the window, with
 * nothing to tell that it will be. */
#define VKL_TRIM_RERECORDS 1

/* Which recordings may keep no calls ("Recordings that are not kept"). */
typedef enum {
	VKL_TRIM_KEEP_ALL = 0, /* none: every recording keeps its calls */
	VKL_TRIM_LEAD_IN,      /* a window known ahead: those before its lead-in */
	VKL_TRIM_HELD          /* no notice: the window is held back (vkl_trim_hold) */
} vkl_trim_mode;

/* First handle value of the snapshot's own objects. */
#define VKL_TRIM_HANDLE_BASE 0xfff5000000000000ull

typedef struct vkl_trim_rec {
	_Atomic(uint32_t) refs;
	uint32_t type;  /* record type */
	uint64_t order; /* process-wide order of the call */
	/* the object it created (the first to adopt it), for the destroy of
	 * one recreated only for others */
	VkObjectType otype;
	uint64_t handle, device;
	_Atomic(int) dead; /* that object was destroyed */
	size_t len;
	uint8_t data[];
} vkl_trim_rec;

/* A kept call in an object's list; sig: for a descriptor set, which
 * descriptors the call writes there (0: not known), so that a later call
 * writing exactly those replaces it. */
typedef struct vkl_trim_kept {
	vkl_trim_rec *r;
	uint64_t sig;
} vkl_trim_kept;

/* A layout a command buffer leaves a range of an image's subresources in
 * (the range as the barrier or view gave it: VK_REMAINING_* are resolved
 * against the image when the layout is applied). */
typedef struct vkl_trim_layout {
	uint64_t image;
	VkImageSubresourceRange range;
	VkImageLayout layout;
} vkl_trim_layout;

/* A command buffer's query writes and resets, in order, applied to the
 * pools when it is submitted. */
typedef struct vkl_trim_qop {
	uint64_t pool;
	uint32_t first, count;
	int written; /* 1: the queries are written, 0: reset */
} vkl_trim_qop;

/* A secondary command buffer a primary's recording executes, and which
 * recording of it (vkl_trim_obj.rec_id) that was. */
typedef struct vkl_trim_exec {
	uint64_t cb, rec_id;
} vkl_trim_exec;

typedef struct vkl_trim_obj {
	VkObjectType type;
	uint64_t handle, parent;
	uint64_t device; /* the VkDevice it belongs to (0: instance level) */
	vkl_trim_kept *recs;
	uint32_t nrecs, caprecs;
	/* command buffers: their calls since the last begin, as
	 * [u32 type][u32 len][payload]..., the order before their last call,
	 * and the image layouts they leave */
	sbt_vk_enc cmds;
	uint64_t cmds_order;
	/* the current recording's number (vkl_trim.rec_ids: a recording begun
	 * later, of any command buffer, has a larger one; 0: none since its
	 * allocation), and the secondaries it executes: the Vulkan
	 * specification makes a primary invalid when a secondary it executes
	 * is reset, recorded again or freed, and a snapshot leaves such a
	 * recording out (vkl_snap_execs_valid); execs_lost: one was not noted
	 * (out of memory) */
	uint64_t rec_id;
	vkl_trim_exec *execs;
	uint32_t nexecs, capexecs;
	uint8_t execs_lost;
	uint8_t sc_image; /* an image of a swapchain (the parent) */
	vkl_trim_layout *tr;
	uint32_t ntr, captr;
	vkl_trim_qop *qops;
	uint32_t nqops, capqops;
	/* images: format, layouts, the usage the driver got (with the transfer
	 * usage vkl_trim_image_info added) and what copies of them need.
	 * layout is every subresource's while they share one; once they part,
	 * sub holds one per subresource, [slot][mip][layer] (slots:
	 * vkl_trim_image_slots), until they agree again */
	VkFormat format;
	VkImageLayout initial, layout;
	VkImageLayout *sub;
	VkImageUsageFlags usage, app_usage; /* the driver's; the application's */
	VkImageType itype;
	VkExtent3D extent;
	uint32_t mips, layers;
	VkSampleCountFlagBits samples;
	VkImageCreateFlags iflags;
	/* buffers and images: the memory they are bound to (a disjoint
	 * image: the last plane bound; plane_memory: each plane's) */
	uint64_t memory;
	uint64_t plane_memory[3];
	/* image views: their image and subresources; framebuffers: their
	 * attachments */
	uint64_t image;
	VkImageSubresourceRange vrange;
	uint64_t *views;
	uint32_t nviews;
	/* render passes: the attachments' final layouts (of the stencil apart,
	 * VkAttachmentDescriptionStencilLayout), formats, and whether the pass
	 * reads their contents (load op LOAD) */
	VkImageLayout *finals, *sfinals;
	VkFormat *formats;
	uint8_t *loads;
	uint32_t nfinals;
	/* fences and binary semaphores */
	int created_signaled, signaled, binary;
	/* timeline semaphores: the value they were created with */
	uint64_t initial_value;
	/* descriptor update templates: which descriptors an update through
	 * them writes (vkl_trim_sig_step over their entries; 0: none) */
	uint64_t tmpl_sig;
	/* swapchains: images acquired and not presented (bit per index) */
	uint64_t acquired;
	/* queues */
	uint32_t family;
	/* a swapchain's images (sc_image set): the index */
	uint32_t sc_index;
	/* query pools: type, size, which queries hold a result written by a
	 * submitted command buffer and not reset since */
	VkQueryType qtype;
	VkQueryPipelineStatisticFlags qstats; /* pipeline statistics pools */
	uint32_t qcount;
	uint8_t *qwritten;
	/* a snapshot left its creation out (it names an object that cannot be
	 * recreated): its destroy in a window is not recorded */
	int left_out;
	/* command buffers ("Recordings that are not kept" below): a secondary;
	 * submits of the current recording; begins in a row that each followed
	 * a submit of the recording before; once submitted twice in one
	 * recording (never left unkept again); the current recording's calls
	 * are not kept; its submit in a window was reported; with no notice,
	 * the recording was first submitted in a later frame than it began
	 * (late) and the count of the unit at its begin; with a lead-in, a
	 * recording of it was once first submitted more than lead_slack units
	 * after it began (slow: every recording keeps its calls from then on).  Under the entry's lock,
	 * except unkept, which only the recording thread reads without it
	 * (command buffers are externally synchronized).  unsent: the current
	 * recording keeps no calls and is not submitted yet (counted in
	 * vkl_trim.unsent; vkl_trim_hold) */
	uint8_t secondary, resubmitted, unkept, unkept_said, late, slow;
	_Atomic(uint8_t) unsent;
	uint32_t submits, rerecords;
	uint64_t begin_unit;
} vkl_trim_obj;

/* What a call is to the tracker. */
enum {
	VKL_TC_NONE = 0,
	VKL_TC_CREATE,    /* adopted by the objects it returns */
	VKL_TC_CB_BEGIN,  /* starts the command buffer's calls */
	VKL_TC_CB_CMD,    /* vkCmd*, vkEndCommandBuffer */
	VKL_TC_CB_RESET,  /* vkResetCommandBuffer: empties them */
	VKL_TC_STATE,     /* kept by the object(s) it sets */
	VKL_TC_PHYS_QUERY /* kept by the physical device, once */
};

static struct {
	uint8_t cls[SBT_VK_CMD_COUNT];
	_Atomic(uint64_t) kept_bytes;
	/* objects a snapshot left out so far (vkl_trim_left_out_destroy looks
	 * a destroy's object up only when some were) */
	_Atomic(uint64_t) left_out;
	/* recordings that are not kept: the range's unit and the count of it
	 * (cap_units) from which every recording is kept again, the lead-in;
	 * lead_unit -1: no lead-in; a recording first submitted more than
	 * lead_slack units after it began makes its command buffer slow */
	vkl_trim_mode mode;
	int lead_unit;
	uint64_t lead_from, lead_slack;
	/* recordings that keep no calls and are not submitted yet; a window
	 * with no notice was asked to open (from then on, until that window
	 * has opened and closed, every recording keeps its calls: the hold it
	 * met ends); the hold was said */
	_Atomic(uint64_t) unsent;
	atomic_int opening;
	int held_said; /* the runtime's win_mu */
	/* Windows after the first (vkl_trim_reopen_check): whether the run goes back
	 * to the state before any window once one closed (triggers with no
	 * notice only: every opening then follows a hold); snapshots taken
	 * (window g opened by the g-th); the last window seen open (a thread
	 * saw cap_active() after the snapshot that opened it); holds asked,
	 * and their count when the last window opened (a request since: not
	 * back); recordings that kept no calls since the last snapshot (said
	 * at the next).  snaps, asks and asks_open change under mu, seen too;
	 * mu is taken under the runtime's win_mu (the snapshot, the hold),
	 * never the other way round. */
	int reopen;
	pthread_mutex_t mu;
	_Atomic(uint64_t) snaps, seen;
	uint64_t asks, asks_open;
	_Atomic(uint64_t) unkept_n;
	/* the last recording number given (vkl_trim_obj.rec_id) */
	_Atomic(uint64_t) rec_ids;
	/* swapchain images acquired and not presented, all swapchains; holds
	 * in a row for them, and that one was said (vkl_trim_hold: the
	 * runtime's win_mu) */
	_Atomic(int64_t) acquired_n;
	uint32_t acq_holds;
	int acq_said;
} vkl_trim;

/* vkl.h: what the inlined vkl_trim_keep_flat reads (order, cb_gen,
 * snapping, recorded, ready) and each thread's state. */
vkl_trim_global vkl_trim_g;
__thread vkl_trim_tls vkl_trim_t;

static pthread_once_t vkl_trim_once = PTHREAD_ONCE_INIT;

/* Every thread that wrote a command buffer's calls, so that a snapshot can
 * wait for those in the middle of one (vkl_trim_enter). */
static struct {
	pthread_mutex_t mu;
	vkl_trim_tls *head;
	pthread_key_t key; /* unregisters at thread exit */
} vkl_trim_threads = { PTHREAD_MUTEX_INITIALIZER, NULL, 0 };

static void vkl_trim_snapshot(void);
static int vkl_trim_hold(int frames);
static void vkl_trim_thread_exit(void *arg);
static void vkl_trim_atfork_prepare(void);
static void vkl_trim_atfork_parent(void);
static void vkl_trim_atfork_child(void);
static void vkl_trim_cb_sent(vkl_trim_obj *cb);

static int vkl_trim_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Recordings that are not kept: for a window known ahead, the one range
 * of frames or submits and no other trigger, until lead_from (from then on
 * every recording is kept again); for triggers with no notice (no range),
 * those submitted in the frame they began, the window being held back
 * while one is unsubmitted (vkl_trim_hold). */
static void vkl_trim_lead_init(void)
{
	const cap_config *cfg = cap_config_get();
	int64_t lead = vkl_config_get()->lead_in;
	vkl_trim.mode = VKL_TRIM_KEEP_ALL;
	vkl_trim.lead_unit = -1;
	/* one range (alone or with other triggers) is not held, so its opening
	 * cannot be told from a closed window: after it every recording keeps
	 * its calls, as after any window of a run with a range */
	vkl_trim.reopen = cap_windowed() && !cfg->snapshot_frames &&
	                  !(cfg->triggers & CAP_TRIG_RANGE);
	if (!cap_windowed() || cfg->snapshot_frames || lead == -2)
		return;
	if (!(cfg->triggers & CAP_TRIG_RANGE)) {
		vkl_trim.mode = VKL_TRIM_HELD;
		CAP_INFO("Vulkan trimmed capture: a one-time-submit command buffer recorded again for "
		         "each submit, within one frame, keeps no calls; a window with no notice opens "
		         "where no such recording is unsubmitted");
		return;
	}
	if (cfg->triggers != CAP_TRIG_RANGE ||
	    (cfg->range_unit != CAP_UNIT_FRAME && cfg->range_unit != CAP_UNIT_SUBMIT))
		return;
	vkl_trim.mode = VKL_TRIM_LEAD_IN;
	if (lead < 0)
		lead = cfg->range_unit == CAP_UNIT_FRAME ? VKL_TRIM_LEAD_FRAMES : VKL_TRIM_LEAD_SUBMITS;
	vkl_trim.lead_unit = cfg->range_unit;
	/* the window opens once range_first - 1 units are counted */
	vkl_trim.lead_from = cfg->range_first > (uint64_t)lead + 1
		                     ? cfg->range_first - 1 - (uint64_t)lead
		                     : 0;
	vkl_trim.lead_slack = lead >= 2 ? (uint64_t)lead / 2 : 1;
	CAP_INFO("Vulkan trimmed capture: a one-time-submit command buffer recorded again for each submit keeps "
	         "no calls until %llu %s are counted (a lead-in of %lld before the window)",
	         (unsigned long long)vkl_trim.lead_from,
	         cfg->range_unit == CAP_UNIT_FRAME ? "frames" : "submits", (long long)lead);
}

static void vkl_trim_init(void)
{
	uint32_t c;
	for (c = 0; c < SBT_VK_CMD_COUNT; c++) {
		const char *n = sbt_vk_cmd_name((enum sbt_vk_cmd)c);
		uint8_t k = VKL_TC_NONE;
		if (!n)
			continue;
		if (!strcmp(n, "vkBeginCommandBuffer"))
			k = VKL_TC_CB_BEGIN;
		else if (!strcmp(n, "vkResetCommandBuffer"))
			k = VKL_TC_CB_RESET;
		else if (vkl_trim_prefix(n, "vkCmd") || !strcmp(n, "vkEndCommandBuffer"))
			k = VKL_TC_CB_CMD;
		else if (vkl_trim_prefix(n, "vkCreate") || vkl_trim_prefix(n, "vkAllocate") ||
		         vkl_trim_prefix(n, "vkGetDeviceQueue") ||
		         !strcmp(n, "vkEnumeratePhysicalDevices") ||
		         !strcmp(n, "vkGetSwapchainImagesKHR"))
			k = VKL_TC_CREATE;
		else if (vkl_trim_prefix(n, "vkBindBufferMemory") ||
		         vkl_trim_prefix(n, "vkBindImageMemory") ||
		         vkl_trim_prefix(n, "vkGetBufferMemoryRequirements") ||
		         vkl_trim_prefix(n, "vkGetImageMemoryRequirements") ||
		         !strcmp(n, "vkMapMemory") || vkl_trim_prefix(n, "vkUpdateDescriptorSet"))
			k = VKL_TC_STATE;
		else if (vkl_trim_prefix(n, "vkGetPhysicalDevice") && !strstr(n, "Surface") &&
		         !strstr(n, "Present") && !strstr(n, "Display"))
			k = VKL_TC_PHYS_QUERY;
		vkl_trim.cls[c] = k;
	}
	pthread_mutex_init(&vkl_trim.mu, NULL);
	pthread_key_create(&vkl_trim_threads.key, vkl_trim_thread_exit);
	pthread_atfork(vkl_trim_atfork_prepare, vkl_trim_atfork_parent, vkl_trim_atfork_child);
	/* periodic snapshots of a full capture: recording from the start */
	if (!cap_windowed())
		atomic_store(&vkl_trim_g.recorded, 1);
	vkl_trim_lead_init();
	cap_on_window_open(vkl_trim_snapshot);
	cap_on_window_hold(vkl_trim_hold);
	atomic_store(&vkl_trim_g.ready, 1);
}

/* A fork child has one thread, the forking one: the other entries are
 * storage of threads that do not run there, and one caught busy in the
 * middle of a command buffer's calls would hold a child's snapshot waiting
 * for ever (vkl_trim_enter's handshake). */
static void vkl_trim_atfork_prepare(void)
{
	pthread_mutex_lock(&vkl_trim.mu);
	pthread_mutex_lock(&vkl_trim_threads.mu);
}

static void vkl_trim_atfork_parent(void)
{
	pthread_mutex_unlock(&vkl_trim_threads.mu);
	pthread_mutex_unlock(&vkl_trim.mu);
}

static void vkl_trim_atfork_child(void)
{
	vkl_trim_tls *t = &vkl_trim_t;
	vkl_trim_threads.head = NULL;
	if (t->registered) {
		t->next = NULL;
		vkl_trim_threads.head = t;
	}
	pthread_mutex_unlock(&vkl_trim_threads.mu);
	pthread_mutex_unlock(&vkl_trim.mu);
}

/* Thread exit: out of the list (the storage goes with the thread). */
static void vkl_trim_thread_exit(void *arg)
{
	vkl_trim_tls *t = arg, **pp;
	pthread_mutex_lock(&vkl_trim_threads.mu);
	for (pp = &vkl_trim_threads.head; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	pthread_mutex_unlock(&vkl_trim_threads.mu);
	sbt_vk_enc_free(&t->enc);
	t->registered = 0;
}

/* First time a thread writes a command buffer's calls: into the list a
 * snapshot waits on. */
static __attribute__((noinline)) void vkl_trim_register(vkl_trim_tls *t)
{
	pthread_mutex_lock(&vkl_trim_threads.mu);
	t->next = vkl_trim_threads.head;
	vkl_trim_threads.head = t;
	pthread_mutex_unlock(&vkl_trim_threads.mu);
	pthread_setspecific(vkl_trim_threads.key, t);
	t->registered = 1;
}

/* Start writing a command buffer's calls: 1, or 0 after waiting for a
 * snapshot that was reading them (the caller starts over: the window may
 * be open now).  A store, a fence and a load when no snapshot runs: the
 * snapshot sets snapping, then waits for every busy thread. */
static inline int vkl_trim_enter(vkl_trim_tls *t)
{
	if (__builtin_expect(!t->registered, 0))
		vkl_trim_register(t);
	atomic_store(&t->busy, 1);
	if (__builtin_expect(!atomic_load(&vkl_trim_g.snapping), 1))
		return 1;
	atomic_store_explicit(&t->busy, 0, memory_order_release);
	while (atomic_load(&vkl_trim_g.snapping))
		sched_yield();
	return 0;
}

static void vkl_trim_leave(vkl_trim_tls *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

/* cap_tracking() is read once; -1 until then. */
_Atomic(int) vkl_trim_tracking = -1;

int vkl_trim_on(void)
{
	int on = atomic_load_explicit(&vkl_trim_tracking, memory_order_relaxed);
	if (__builtin_expect(on < 0, 0)) {
		on = cap_tracking();
		atomic_store_explicit(&vkl_trim_tracking, on, memory_order_relaxed);
	}
	return on;
}

/* ---- kept records ---------------------------------------------------------- */

static vkl_trim_rec *vkl_trim_rec_new(uint32_t cmd, const uint8_t *p, size_t len)
{
	vkl_trim_rec *r = malloc(sizeof(*r) + len);
	if (!r) {
		CAP_ERROR("Vulkan layer: out of memory keeping %s for trimmed capture",
		          sbt_vk_cmd_name((enum sbt_vk_cmd)cmd));
		return NULL;
	}
	atomic_init(&r->refs, 1);
	r->type = SBT_VK_CMD_TYPE(cmd);
	r->order = atomic_fetch_add(&vkl_trim_g.order, 1) + 1;
	r->otype = VK_OBJECT_TYPE_UNKNOWN;
	r->handle = r->device = 0;
	atomic_init(&r->dead, 0);
	r->len = len;
	if (len)
		memcpy(r->data, p, len);
	atomic_fetch_add_explicit(&vkl_trim.kept_bytes, len, memory_order_relaxed);
	return r;
}

static vkl_trim_rec *vkl_trim_rec_ref(vkl_trim_rec *r)
{
	atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
	return r;
}

static void vkl_trim_rec_release(vkl_trim_rec *r)
{
	if (r && atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) == 1) {
		atomic_fetch_sub_explicit(&vkl_trim.kept_bytes, r->len, memory_order_relaxed);
		free(r);
	}
}

/* Add r to o's list (a reference of its own); once when dedupe is set and
 * an identical call is there. */
static void vkl_trim_keep_sig(vkl_trim_obj *o, vkl_trim_rec *r, int dedupe, uint64_t sig)
{
	uint32_t i, j;
	for (i = 0; i < o->nrecs; i++) {
		vkl_trim_rec *x = o->recs[i].r;
		if (x == r || (dedupe && x->type == r->type && x->len == r->len &&
		               memcmp(x->data, r->data, r->len) == 0))
			return;
	}
	if (sig) {
		/* an earlier call writing exactly these descriptors is superseded */
		for (i = j = 0; i < o->nrecs; i++) {
			if (o->recs[i].sig == sig)
				vkl_trim_rec_release(o->recs[i].r);
			else
				o->recs[j++] = o->recs[i];
		}
		o->nrecs = j;
	}
	if (o->nrecs == o->caprecs) {
		uint32_t cap = o->caprecs ? o->caprecs * 2 : 4;
		vkl_trim_kept *v = realloc(o->recs, cap * sizeof(*v));
		if (!v)
			return;
		o->recs = v;
		o->caprecs = cap;
	}
	o->recs[o->nrecs].r = vkl_trim_rec_ref(r);
	o->recs[o->nrecs].sig = sig;
	o->nrecs++;
}

static void vkl_trim_keep_locked(vkl_trim_obj *o, vkl_trim_rec *r, int dedupe)
{
	vkl_trim_keep_sig(o, r, dedupe, 0);
}

static void vkl_trim_keep(VkObjectType type, uint64_t handle, vkl_trim_rec *r, int dedupe)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(type, handle, &lk);
	if (o && o->trim)
		vkl_trim_keep_locked(o->trim, r, dedupe);
	vkl_objects_unlock(lk);
}

static vkl_trim_rec *vkl_trim_creation_ref(VkObjectType type, uint64_t handle);

/* A bind: kept by the resource, which notes its memory (per plane, for
 * a plane of a disjoint image: plane 0..2, else -1) and keeps the
 * memory's allocation too (an image view outliving its image and that
 * image's memory recreates both). */
static void vkl_trim_bind(VkObjectType type, uint64_t handle, VkDeviceMemory memory, int plane,
                          vkl_trim_rec *r)
{
	void *lk;
	vkl_trim_rec *alloc = vkl_trim_creation_ref(VK_OBJECT_TYPE_DEVICE_MEMORY,
	                                            (uint64_t)(uintptr_t)memory);
	vkl_object *o = vkl_objects_lock(type, handle, &lk);
	if (o && o->trim) {
		if (alloc)
			vkl_trim_keep_locked(o->trim, alloc, 0);
		vkl_trim_keep_locked(o->trim, r, 0);
		o->trim->memory = (uint64_t)(uintptr_t)memory;
		if (plane >= 0 && plane < 3)
			o->trim->plane_memory[plane] = (uint64_t)(uintptr_t)memory;
	}
	vkl_objects_unlock(lk);
	vkl_trim_rec_release(alloc);
}

/* Drop o's kept calls of record type `type` (the mapping, at the unmap). */
static void vkl_trim_drop(VkObjectType type, uint64_t handle, uint32_t rtype)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(type, handle, &lk);
	if (o && o->trim) {
		uint32_t i, j = 0;
		for (i = 0; i < o->trim->nrecs; i++) {
			if (o->trim->recs[i].r->type == rtype)
				vkl_trim_rec_release(o->trim->recs[i].r);
			else
				o->trim->recs[j++] = o->trim->recs[i];
		}
		o->trim->nrecs = j;
	}
	vkl_objects_unlock(lk);
}

/* ---- objects --------------------------------------------------------------- */

/* dst keeps everything src keeps (src's creation and what it came from). */
static void vkl_trim_share(vkl_trim_obj *dst, VkObjectType type, uint64_t handle)
{
	void *lk;
	vkl_object *o;
	if (!handle)
		return;
	o = vkl_objects_lock(type, handle, &lk);
	if (o && o->trim) {
		uint32_t i;
		for (i = 0; i < o->trim->nrecs; i++)
			vkl_trim_keep_locked(dst, o->trim->recs[i].r, 0);
	}
	vkl_objects_unlock(lk);
}

/* A swapchain image's device, format, layers, extent and usages: its
 * swapchain's tracking state, read under its lock. */
static void vkl_trim_swapchain_image(vkl_trim_obj *im, uint64_t swapchain)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_SWAPCHAIN_KHR, swapchain, &lk);
	if (o && o->trim) {
		im->device = o->trim->device;
		im->format = o->trim->format;
		im->layers = o->trim->layers;
		im->extent = o->trim->extent;
		im->usage = o->trim->usage;
		im->app_usage = o->trim->app_usage;
	}
	vkl_objects_unlock(lk);
}

/* The types whose creation is recreated for others that outlive them (and
 * destroyed again, vkl_snap_destroy). */
static int vkl_trim_shared_type(VkObjectType t)
{
	return t == VK_OBJECT_TYPE_SHADER_MODULE || t == VK_OBJECT_TYPE_PIPELINE_LAYOUT ||
	       t == VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT || t == VK_OBJECT_TYPE_RENDER_PASS ||
	       t == VK_OBJECT_TYPE_SAMPLER || t == VK_OBJECT_TYPE_IMAGE_VIEW ||
	       t == VK_OBJECT_TYPE_IMAGE || t == VK_OBJECT_TYPE_DEVICE_MEMORY ||
	       t == VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE;
}

/* The call that created the object, referenced (NULL: none kept). */
static vkl_trim_rec *vkl_trim_creation_ref(VkObjectType type, uint64_t handle)
{
	vkl_trim_rec *r = NULL;
	void *lk;
	vkl_object *o = vkl_objects_lock(type, handle, &lk);
	if (o && o->trim) {
		uint32_t i;
		for (i = 0; i < o->trim->nrecs; i++)
			if (o->trim->recs[i].r->handle == handle && o->trim->recs[i].r->otype == type) {
				r = vkl_trim_rec_ref(o->trim->recs[i].r);
				break;
			}
	}
	vkl_objects_unlock(lk);
	return r;
}

static int vkl_trim_pass_alloc(vkl_trim_obj *o, uint32_t n)
{
	o->finals = calloc(n ? n : 1, sizeof(*o->finals));
	o->sfinals = calloc(n ? n : 1, sizeof(*o->sfinals));
	o->formats = calloc(n ? n : 1, sizeof(*o->formats));
	o->loads = calloc(n ? n : 1, 1);
	if (!o->finals || !o->sfinals || !o->formats || !o->loads)
		return -1;
	o->nfinals = n;
	return 0;
}

static void vkl_trim_pass_attachment(vkl_trim_obj *o, uint32_t i, VkFormat format,
                                     VkAttachmentLoadOp load, VkAttachmentLoadOp stencil_load,
                                     VkImageLayout final, VkImageLayout stencil_final)
{
	o->finals[i] = final;
	o->sfinals[i] = stencil_final;
	o->formats[i] = format;
	o->loads[i] = load == VK_ATTACHMENT_LOAD_OP_LOAD || stencil_load == VK_ATTACHMENT_LOAD_OP_LOAD;
}

/* Where vkl_trim_image_info puts the create info it changes (read by the
 * driver, the record and vkl_trim_adopt_args before this thread's next
 * vkCreateImage), and the usage the application asked for. */
static __thread VkImageCreateInfo vkl_trim_image_ci;
static __thread VkImageUsageFlags vkl_trim_image_app_usage;
/* The same for vkl_trim_swapchain_info. */
static __thread VkSwapchainCreateInfoKHR vkl_trim_sc_ci;
static __thread VkImageUsageFlags vkl_trim_sc_app_usage;

/* One write (or template entry) in a descriptor update's signature. */
#define VKL_TRIM_SIG_SEED 0x84222325cbf29ce4ull
static inline uint64_t vkl_trim_sig_step(uint64_t h, uint32_t binding, uint32_t elem,
                                         uint32_t count)
{
	h = (h ^ binding) * 0x100000001b3ull;
	h = (h ^ elem) * 0x100000001b3ull;
	return (h ^ count) * 0x100000001b3ull;
}

/* What the new object came from, by the creating call's arguments. */
static void vkl_trim_adopt_args(vkl_trim_obj *o, uint32_t cmd, const void *args)
{
	uint32_t i, j;
	switch ((enum sbt_vk_cmd)cmd) {
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR: {
		const VkDescriptorUpdateTemplateCreateInfo *ci =
			((const sbt_vk_args_vkCreateDescriptorUpdateTemplate *)args)->pCreateInfo;
		uint64_t h = VKL_TRIM_SIG_SEED;
		for (i = 0; i < ci->descriptorUpdateEntryCount; i++) {
			const VkDescriptorUpdateTemplateEntry *e = &ci->pDescriptorUpdateEntries[i];
			if (e->descriptorCount)
				h = vkl_trim_sig_step(h, e->dstBinding, e->dstArrayElement,
				                      e->descriptorCount);
		}
		o->tmpl_sig = ci->templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET &&
		                      h ? h : 0;
		/* what its creation names, for a template outliving them */
		if (ci->templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET)
			vkl_trim_share(o, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
			               (uint64_t)(uintptr_t)ci->descriptorSetLayout);
		else
			vkl_trim_share(o, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
			               (uint64_t)(uintptr_t)ci->pipelineLayout);
		break;
	}
	case SBT_VK_CMD_vkCreateImage: {
		const sbt_vk_args_vkCreateImage *a = args;
		const VkImageCreateInfo *ci = a->pCreateInfo;
		o->format = ci->format;
		o->initial = o->layout = ci->initialLayout;
		o->usage = ci->usage;
		o->app_usage = ci == &vkl_trim_image_ci ? vkl_trim_image_app_usage : ci->usage;
		o->itype = ci->imageType;
		o->extent = ci->extent;
		o->mips = ci->mipLevels;
		o->layers = ci->arrayLayers;
		o->samples = ci->samples;
		o->iflags = ci->flags;
		break;
	}
	case SBT_VK_CMD_vkAllocateCommandBuffers: {
		const sbt_vk_args_vkAllocateCommandBuffers *a = args;
		o->secondary = a->pAllocateInfo->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		break;
	}
	case SBT_VK_CMD_vkCreateSwapchainKHR: {
		const sbt_vk_args_vkCreateSwapchainKHR *a = args;
		const VkSwapchainCreateInfoKHR *ci = a->pCreateInfo;
		o->format = ci->imageFormat;
		o->layers = ci->imageArrayLayers;
		o->usage = ci->imageUsage;
		o->app_usage = ci == &vkl_trim_sc_ci ? vkl_trim_sc_app_usage : ci->imageUsage;
		o->extent.width = ci->imageExtent.width;
		o->extent.height = ci->imageExtent.height;
		o->extent.depth = 1;
		break;
	}
	case SBT_VK_CMD_vkGetSwapchainImagesKHR: {
		const sbt_vk_args_vkGetSwapchainImagesKHR *a = args;
		vkl_trim_swapchain_image(o, o->parent);
		o->mips = 1;
		o->samples = VK_SAMPLE_COUNT_1_BIT;
		o->itype = VK_IMAGE_TYPE_2D;
		o->initial = o->layout = VK_IMAGE_LAYOUT_UNDEFINED;
		o->sc_image = 1;
		for (i = 0; a->pSwapchainImages && i < *a->pSwapchainImageCount; i++)
			if ((uint64_t)(uintptr_t)a->pSwapchainImages[i] == o->handle)
				o->sc_index = i;
		break;
	}
	case SBT_VK_CMD_vkCreateImageView: {
		const sbt_vk_args_vkCreateImageView *a = args;
		o->image = (uint64_t)(uintptr_t)a->pCreateInfo->image;
		o->vrange = a->pCreateInfo->subresourceRange;
		/* the image's creation, memory and bind, for a view outliving it */
		vkl_trim_share(o, VK_OBJECT_TYPE_IMAGE, o->image);
		break;
	}
	case SBT_VK_CMD_vkCreateFramebuffer: {
		const sbt_vk_args_vkCreateFramebuffer *a = args;
		const VkFramebufferCreateInfo *ci = a->pCreateInfo;
		vkl_trim_share(o, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)(uintptr_t)ci->renderPass);
		if (ci->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT)
			break;
		o->views = calloc(ci->attachmentCount ? ci->attachmentCount : 1, sizeof(uint64_t));
		if (!o->views)
			break;
		for (i = 0; i < ci->attachmentCount; i++) {
			o->views[i] = (uint64_t)(uintptr_t)ci->pAttachments[i];
			vkl_trim_share(o, VK_OBJECT_TYPE_IMAGE_VIEW, o->views[i]);
		}
		o->nviews = ci->attachmentCount;
		break;
	}
	case SBT_VK_CMD_vkCreateRenderPass: {
		const sbt_vk_args_vkCreateRenderPass *a = args;
		const VkRenderPassCreateInfo *ci = a->pCreateInfo;
		if (vkl_trim_pass_alloc(o, ci->attachmentCount) != 0)
			break;
		for (i = 0; i < ci->attachmentCount; i++)
			vkl_trim_pass_attachment(o, i, ci->pAttachments[i].format,
			                         ci->pAttachments[i].loadOp,
			                         ci->pAttachments[i].stencilLoadOp,
			                         ci->pAttachments[i].finalLayout,
			                         ci->pAttachments[i].finalLayout);
		break;
	}
	case SBT_VK_CMD_vkCreateRenderPass2:
	case SBT_VK_CMD_vkCreateRenderPass2KHR: {
		const sbt_vk_args_vkCreateRenderPass2 *a = args;
		const VkRenderPassCreateInfo2 *ci = a->pCreateInfo;
		if (vkl_trim_pass_alloc(o, ci->attachmentCount) != 0)
			break;
		for (i = 0; i < ci->attachmentCount; i++) {
			const VkAttachmentDescription2 *ad = &ci->pAttachments[i];
			VkImageLayout sfinal = ad->finalLayout;
			const VkBaseInStructure *b;
			for (b = ad->pNext; b; b = b->pNext)
				if (b->sType == VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_STENCIL_LAYOUT)
					sfinal = ((const VkAttachmentDescriptionStencilLayout *)(const void *)b)
					             ->stencilFinalLayout;
			vkl_trim_pass_attachment(o, i, ad->format, ad->loadOp, ad->stencilLoadOp,
			                         ad->finalLayout, sfinal);
		}
		break;
	}
	case SBT_VK_CMD_vkCreateQueryPool: {
		const sbt_vk_args_vkCreateQueryPool *a = args;
		o->qtype = a->pCreateInfo->queryType;
		o->qstats = a->pCreateInfo->pipelineStatistics;
		o->qwritten = calloc(a->pCreateInfo->queryCount ? a->pCreateInfo->queryCount : 1, 1);
		o->qcount = o->qwritten ? a->pCreateInfo->queryCount : 0;
		break;
	}
	case SBT_VK_CMD_vkCreateFence: {
		const sbt_vk_args_vkCreateFence *a = args;
		o->created_signaled = o->signaled =
			(a->pCreateInfo->flags & VK_FENCE_CREATE_SIGNALED_BIT) != 0;
		break;
	}
	case SBT_VK_CMD_vkCreateSemaphore: {
		const sbt_vk_args_vkCreateSemaphore *a = args;
		const VkBaseInStructure *b;
		o->binary = 1;
		for (b = a->pCreateInfo->pNext; b; b = b->pNext)
			if (b->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO &&
			    ((const VkSemaphoreTypeCreateInfo *)(const void *)b)->semaphoreType ==
			            VK_SEMAPHORE_TYPE_TIMELINE) {
				o->binary = 0;
				o->initial_value =
				    ((const VkSemaphoreTypeCreateInfo *)(const void *)b)->initialValue;
			}
		break;
	}
	case SBT_VK_CMD_vkGetDeviceQueue: {
		const sbt_vk_args_vkGetDeviceQueue *a = args;
		o->family = a->queueFamilyIndex;
		break;
	}
	case SBT_VK_CMD_vkGetDeviceQueue2: {
		const sbt_vk_args_vkGetDeviceQueue2 *a = args;
		o->family = a->pQueueInfo->queueFamilyIndex;
		break;
	}
	case SBT_VK_CMD_vkCreateGraphicsPipelines: {
		const sbt_vk_args_vkCreateGraphicsPipelines *a = args;
		for (i = 0; i < a->createInfoCount; i++) {
			const VkGraphicsPipelineCreateInfo *ci = &a->pCreateInfos[i];
			for (j = 0; ci->pStages && j < ci->stageCount; j++)
				vkl_trim_share(o, VK_OBJECT_TYPE_SHADER_MODULE,
				               (uint64_t)(uintptr_t)ci->pStages[j].module);
			vkl_trim_share(o, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)(uintptr_t)ci->layout);
			vkl_trim_share(o, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)(uintptr_t)ci->renderPass);
		}
		break;
	}
	case SBT_VK_CMD_vkCreateComputePipelines: {
		const sbt_vk_args_vkCreateComputePipelines *a = args;
		for (i = 0; i < a->createInfoCount; i++) {
			const VkComputePipelineCreateInfo *ci = &a->pCreateInfos[i];
			vkl_trim_share(o, VK_OBJECT_TYPE_SHADER_MODULE,
			               (uint64_t)(uintptr_t)ci->stage.module);
			vkl_trim_share(o, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)(uintptr_t)ci->layout);
		}
		break;
	}
	case SBT_VK_CMD_vkCreatePipelineLayout: {
		const sbt_vk_args_vkCreatePipelineLayout *a = args;
		for (i = 0; i < a->pCreateInfo->setLayoutCount; i++)
			vkl_trim_share(o, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
			               (uint64_t)(uintptr_t)a->pCreateInfo->pSetLayouts[i]);
		break;
	}
	case SBT_VK_CMD_vkCreateDescriptorSetLayout: {
		const sbt_vk_args_vkCreateDescriptorSetLayout *a = args;
		for (i = 0; i < a->pCreateInfo->bindingCount; i++) {
			const VkDescriptorSetLayoutBinding *b = &a->pCreateInfo->pBindings[i];
			if (sbt_vk_ignored_VkDescriptorSetLayoutBinding_pImmutableSamplers(b))
				continue; /* may hold anything */
			for (j = 0; b->pImmutableSamplers && j < b->descriptorCount; j++)
				vkl_trim_share(o, VK_OBJECT_TYPE_SAMPLER,
				               (uint64_t)(uintptr_t)b->pImmutableSamplers[j]);
		}
		break;
	}
	case SBT_VK_CMD_vkAllocateDescriptorSets: {
		const sbt_vk_args_vkAllocateDescriptorSets *a = args;
		for (i = 0; i < a->pAllocateInfo->descriptorSetCount; i++)
			vkl_trim_share(o, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
			               (uint64_t)(uintptr_t)a->pAllocateInfo->pSetLayouts[i]);
		break;
	}
	default:
		break;
	}
}

struct vkl_trim_obj *vkl_trim_adopt(VkObjectType type, uint64_t handle, uint64_t parent)
{
	vkl_trim_tls *t = &vkl_trim_t;
	vkl_trim_obj *o;
	if (!vkl_trim_on())
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->type = type;
	o->handle = handle;
	o->parent = parent;
	if (type == VK_OBJECT_TYPE_DEVICE)
		o->device = handle;
	else if (type != VK_OBJECT_TYPE_INSTANCE && type != VK_OBJECT_TYPE_PHYSICAL_DEVICE &&
	         type != VK_OBJECT_TYPE_SURFACE_KHR)
		o->device = parent; /* pooled objects: fixed below from the call */
	if (t->pending) {
		vkl_trim_rec *r = t->pending;
		if (!r->handle) {
			r->otype = type;
			r->handle = handle;
		}
		vkl_trim_keep_locked(o, r, 0);
		vkl_trim_adopt_args(o, t->pending_cmd, t->pending_args);
		/* the device is the creating call's first argument */
		if (type == VK_OBJECT_TYPE_COMMAND_BUFFER || type == VK_OBJECT_TYPE_DESCRIPTOR_SET ||
		    type == VK_OBJECT_TYPE_QUEUE)
			o->device = (uint64_t)(uintptr_t)*(void *const *)t->pending_args;
		if (!r->device)
			r->device = o->device;
	}
	return o;
}

#define VKL_TRIM_TRANSFER (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)

/* Whether the driver takes an image of these parameters with transfer
 * usage added: the format's features for the tiling include both
 * transfers, and vkGetPhysicalDeviceImageFormatProperties accepts it with
 * the usage and covers its extent, mip levels and layers. */
static int vkl_trim_takes_transfer(const vkl_device *d, VkFormat format, VkImageType type,
                                   VkImageTiling tiling, VkImageUsageFlags usage,
                                   VkImageCreateFlags flags, VkExtent3D extent, uint32_t mips,
                                   uint32_t layers)
{
	const VkFormatFeatureFlags both = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
	                                  VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
	const vkl_instance_table *it = &d->instance->table;
	VkFormatProperties fp;
	VkImageFormatProperties ip;
	if (!it->GetPhysicalDeviceFormatProperties || !it->GetPhysicalDeviceImageFormatProperties)
		return 0;
	it->GetPhysicalDeviceFormatProperties(d->physical, format, &fp);
	if (((tiling == VK_IMAGE_TILING_LINEAR ? fp.linearTilingFeatures
	                                       : fp.optimalTilingFeatures) & both) != both)
		return 0;
	return it->GetPhysicalDeviceImageFormatProperties(d->physical, format, type, tiling,
	                                                  usage | VKL_TRIM_TRANSFER, flags,
	                                                  &ip) == VK_SUCCESS &&
	       ip.maxMipLevels >= mips && ip.maxArrayLayers >= layers &&
	       ip.maxExtent.width >= extent.width && ip.maxExtent.height >= extent.height &&
	       ip.maxExtent.depth >= extent.depth;
}

/* Transfer usage, so that a snapshot can copy the image out and back in:
 * added while tracking where the driver allows it (not to transient
 * attachments, multisampled or sparse images, nor where a separate
 * stencil usage is given; vkl_trim_takes_transfer). */
const VkImageCreateInfo *vkl_trim_image_info(const vkl_device *d, const VkImageCreateInfo *ci)
{
	const VkImageCreateFlags refused = VK_IMAGE_CREATE_SPARSE_BINDING_BIT |
	                                   VK_IMAGE_CREATE_SPARSE_RESIDENCY_BIT |
	                                   VK_IMAGE_CREATE_SPARSE_ALIASED_BIT;
	const VkBaseInStructure *b;
	if (!ci || (ci->usage & VKL_TRIM_TRANSFER) == VKL_TRIM_TRANSFER || !vkl_trim_on())
		return ci;
	if ((ci->usage & VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT) || (ci->flags & refused) ||
	    ci->samples != VK_SAMPLE_COUNT_1_BIT ||
	    (ci->tiling != VK_IMAGE_TILING_OPTIMAL && ci->tiling != VK_IMAGE_TILING_LINEAR))
		return ci;
	for (b = ci->pNext; b; b = b->pNext)
		if (b->sType == VK_STRUCTURE_TYPE_IMAGE_STENCIL_USAGE_CREATE_INFO)
			return ci;
	if (!vkl_trim_takes_transfer(d, ci->format, ci->imageType, ci->tiling, ci->usage, ci->flags,
	                             ci->extent, ci->mipLevels, ci->arrayLayers))
		return ci;
	vkl_trim_image_ci = *ci;
	vkl_trim_image_ci.usage |= VKL_TRIM_TRANSFER;
	vkl_trim_image_app_usage = ci->usage;
	return &vkl_trim_image_ci;
}

/* Transfer usage for a swapchain's images, so that a snapshot can copy
 * out the images the application holds when the window opens (a present
 * in the window may show one drawn before it) and the replay copy them
 * back: added while tracking where the surface allows both and the
 * driver takes the images the swapchain implies with them
 * (VUID-VkSwapchainCreateInfoKHR-imageFormat-01778; vkl_trim_takes_transfer). */
const VkSwapchainCreateInfoKHR *vkl_trim_swapchain_info(const vkl_device *d,
                                                        const VkSwapchainCreateInfoKHR *ci)
{
	PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR get_caps =
		d->instance->table.GetPhysicalDeviceSurfaceCapabilitiesKHR;
	VkImageCreateFlags flags = 0;
	VkSurfaceCapabilitiesKHR caps;
	VkExtent3D extent;
	if (!ci || (ci->imageUsage & VKL_TRIM_TRANSFER) == VKL_TRIM_TRANSFER || !vkl_trim_on() ||
	    !get_caps || get_caps(d->physical, ci->surface, &caps) != VK_SUCCESS ||
	    (caps.supportedUsageFlags & VKL_TRIM_TRANSFER) != VKL_TRIM_TRANSFER)
		return ci;
	if (ci->flags & VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR)
		flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
	if (ci->flags & VK_SWAPCHAIN_CREATE_PROTECTED_BIT_KHR)
		flags |= VK_IMAGE_CREATE_PROTECTED_BIT;
	extent.width = ci->imageExtent.width;
	extent.height = ci->imageExtent.height;
	extent.depth = 1;
	if (!vkl_trim_takes_transfer(d, ci->imageFormat, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
	                             ci->imageUsage, flags, extent, 1, ci->imageArrayLayers))
		return ci;
	vkl_trim_sc_ci = *ci;
	vkl_trim_sc_ci.imageUsage |= VKL_TRIM_TRANSFER;
	vkl_trim_sc_app_usage = ci->imageUsage;
	return &vkl_trim_sc_ci;
}

static void vkl_trim_obj_free(vkl_trim_obj *o)
{
	uint32_t i;
	if (!o)
		return;
	vkl_trim_cb_sent(o);
	if (o->acquired) /* a swapchain destroyed with images acquired */
		atomic_fetch_sub(&vkl_trim.acquired_n, __builtin_popcountll(o->acquired));
	for (i = 0; i < o->nrecs; i++)
		vkl_trim_rec_release(o->recs[i].r);
	free(o->recs);
	sbt_vk_enc_free(&o->cmds);
	free(o->execs);
	free(o->tr);
	free(o->sub);
	free(o->qops);
	free(o->qwritten);
	free(o->views);
	free(o->finals);
	free(o->sfinals);
	free(o->formats);
	free(o->loads);
	free(o);
}

void vkl_trim_discard(struct vkl_trim_obj *t)
{
	vkl_trim_obj_free(t);
}

void vkl_trim_gone(vkl_object *obj)
{
	vkl_trim_obj *o = obj->trim;
	uint32_t i;
	if (!o)
		return;
	obj->trim = NULL;
	if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER)
		atomic_fetch_add_explicit(&vkl_trim_g.cb_gen, 1, memory_order_acq_rel);
	/* its creation, if others still keep it, is recreated for them and
	 * destroyed again */
	for (i = 0; i < o->nrecs; i++)
		if (o->recs[i].r->handle == o->handle && o->recs[i].r->otype == o->type &&
		    vkl_trim_shared_type(o->type) &&
		    o->recs[i].r->type != SBT_VK_CMD_TYPE(SBT_VK_CMD_vkGetSwapchainImagesKHR))
			atomic_store(&o->recs[i].r->dead, 1);
	vkl_trim_obj_free(o);
}

/* ---- command buffers -------------------------------------------------------- */

/* Arm the keep-first path of the flat vkCmd* (vkl_trim_fast_begin, vkl.h)
 * for the command buffer this thread's cache now holds, when it is tracked,
 * the thread registered, and no window opened yet, or the last closed
 * (recorded clear: vkl_trim_reopen_check; a snapshot bumps cb_gen
 * after it sets recorded, so an arming that misses the store is undone
 * before the path is taken again); its skip (vkl_trim_fast_skip) instead
 * when the command buffer's recording keeps nothing. */
static void vkl_trim_fast_arm(vkl_trim_tls *t)
{
	if (!t->cb_obj || !t->registered || atomic_load(&vkl_trim_g.recorded))
		return;
	t->fast_dev = vkl_device_get((const void *)(uintptr_t)t->cb);
	if (t->cb_obj->unkept)
		t->skip_cb = t->cb;
	else
		t->fast_cb = t->cb;
}

static __attribute__((noinline)) vkl_trim_obj *vkl_trim_cb_miss(vkl_trim_tls *t, uint64_t cb,
                                                                 uint64_t gen)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_COMMAND_BUFFER, cb, &lk);
	t->cb = cb;
	t->fast_cb = 0; /* the keep-first path follows t->cb (vkl_trim_fast_arm) */
	t->skip_cb = 0;
	t->cb_obj = o ? o->trim : NULL;
	t->cb_gen = gen;
	/* none for a recording not kept: vkl_trim_keep_flat goes the whole way */
	t->cb_cmds = t->cb_obj && !t->cb_obj->unkept ? &t->cb_obj->cmds : NULL;
	t->cb_order = t->cb_obj ? &t->cb_obj->cmds_order : NULL;
	vkl_objects_unlock(lk);
	vkl_trim_fast_arm(t);
	return t->cb_obj;
}

/* The command buffer's tracking state, through the per-thread cache. */
static inline vkl_trim_obj *vkl_trim_cb(vkl_trim_tls *t, uint64_t cb)
{
	uint64_t gen = atomic_load_explicit(&vkl_trim_g.cb_gen, memory_order_acquire);
	if (__builtin_expect(t->cb == cb && t->cb_gen == gen && t->cb_obj, 1))
		return t->cb_obj;
	return vkl_trim_cb_miss(t, cb, gen);
}

/* The command buffer's recording starts over (a begin, a reset of it or
 * of its pool): a new recording number. */
static void vkl_trim_cb_clear(vkl_trim_obj *cb)
{
	cb->cmds.len = 0;
	cb->ntr = 0;
	cb->nqops = 0;
	cb->nexecs = 0;
	cb->execs_lost = 0;
	cb->rec_id = atomic_fetch_add_explicit(&vkl_trim.rec_ids, 1, memory_order_relaxed) + 1;
}

/*
 * Recordings that are not kept.  Keeping every vkCmd* of every recording
 * costs a copy per call on the application's thread, while most programs
 * record most command buffers again for each submit: such a recording is
 * only needed by a snapshot when its submit falls in the window.  With a
 * window known ahead (vkl_trim_lead_init) a primary command buffer's
 * recording keeps nothing when
 *
 *   - it begins before the lead-in (fewer than lead_from frames or submits
 *     counted) and before any window opened;
 *   - it is one-time-submit (VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT:
 *     it cannot be submitted twice; any other recording may be submitted
 *     again, in the window, as a program that re-records a command buffer
 *     only when what it draws changed does, and is kept);
 *   - the command buffer's last recording was submitted within lead_slack
 *     units (half the lead-in) of its begin and then begun again
 *     (re-recorded for each submit, as every frame).  So a command
 *     buffer's first recording is always kept (one recorded at load time
 *     and submitted in the window is whole); and
 *   - no recording of it was ever submitted twice (a program's error for
 *     a one-time-submit one), nor submitted late (slow: one held that
 *     long may be held into the window).
 *
 * Such a recording still tells the tracker what is not a call (image
 * layouts, query writes), so the state the snapshot restores is whole.
 * Its calls are not in the snapshot.  A submit of it inside a window
 * (a program whose recordings had each been submitted soon, that
 * records one before the lead-in and submits it only then) is reported
 * at once with an error naming the command buffer
 * (vkl_trim_cb_submit): the trimmed trace lacks its contents.  The next
 * begin decides again (a reset leaves nothing to submit until then).
 *
 * With no notice (triggers without a range: VKL_TRIM_HELD) there is no
 * lead-in; instead a one-time-submit recording keeps nothing when the one
 * before was first submitted in the frame it began (late: a frame end,
 * where a hotkey's window opens, came between), and not once a window
 * was asked to open, until that window has closed
 * (vkl_trim_reopen_check).  Each such recording counts as unsent until
 * its first submit, a reset, the next begin or its free; vkl_trim_hold
 * holds a window back while any is, so the window never needs calls that
 * were not kept.
 *
 * Returns 1 when whether cb's calls are kept changed with this begin
 * (the caller moves cb_gen, so that no thread's cache takes the old path).
 */
static int vkl_trim_cb_begin(vkl_trim_obj *cb, const sbt_vk_args_vkBeginCommandBuffer *a)
{
	void *lk;
	int was, skip, once;
	(void)vkl_objects_lock(VK_OBJECT_TYPE_COMMAND_BUFFER, cb->handle, &lk); /* cb is its */
	vkl_trim_cb_sent(cb); /* the recording before is gone */
	was = cb->unkept;
	if (cb->submits && !cb->late)
		cb->rerecords++;
	else
		cb->rerecords = 0;
	cb->submits = 0;
	cb->late = 0;
	once = (a->pBeginInfo->flags & VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT) != 0;
	if (vkl_trim.mode == VKL_TRIM_HELD)
		cb->begin_unit = cap_units(CAP_UNIT_FRAME);
	else if (vkl_trim.mode == VKL_TRIM_LEAD_IN)
		cb->begin_unit = cap_units((cap_unit)vkl_trim.lead_unit);
	skip = vkl_trim.mode != VKL_TRIM_KEEP_ALL && once && !cb->secondary && !cb->resubmitted &&
	       cb->rerecords >= VKL_TRIM_RERECORDS &&
	       !atomic_load_explicit(&vkl_trim_g.recorded, memory_order_relaxed);
	if (skip && vkl_trim.mode == VKL_TRIM_LEAD_IN)
		skip = !cb->slow && cb->begin_unit < vkl_trim.lead_from;
	if (skip) {
		/* against vkl_trim_hold: either it sees this recording counted or
		 * this sees that a window asked to open (then keep the calls) */
		atomic_store(&cb->unsent, 1);
		atomic_fetch_add(&vkl_trim.unsent, 1);
		if (atomic_load(&vkl_trim.opening)) {
			vkl_trim_cb_sent(cb);
			skip = 0;
		}
	}
	if (skip)
		atomic_fetch_add_explicit(&vkl_trim.unkept_n, 1, memory_order_relaxed);
	cb->unkept = (uint8_t)skip;
	cb->unkept_said = 0;
	vkl_objects_unlock(lk);
	return skip != was;
}

/* The command buffer's recording is no longer an unsubmitted one that
 * keeps no calls: submitted, reset, begun again or freed. */
static void vkl_trim_cb_sent(vkl_trim_obj *cb)
{
	if (atomic_load_explicit(&cb->unsent, memory_order_relaxed) &&
	    atomic_exchange(&cb->unsent, 0))
		atomic_fetch_sub(&vkl_trim.unsent, 1);
}

/* The command buffers vkl_trim_hold names (the first 4 found). */
typedef struct vkl_trim_unsent_list {
	uint64_t cb[4];
	uint32_t n;
} vkl_trim_unsent_list;

static void vkl_trim_unsent_one(vkl_object *o, void *ctx)
{
	vkl_trim_unsent_list *l = ctx;
	if (l->n < 4 && o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && o->trim &&
	    atomic_load(&o->trim->unsent))
		l->cb[l->n++] = o->handle;
}

/*
 * cap_on_window_hold: a window with no notice (the hotkey, a signal, the
 * in-app API) opens only where no recording that kept no calls is
 * unsubmitted, so that every command buffer the window can submit without
 * recording it again has its calls in the snapshot.  Once one is asked to
 * open, every later recording keeps its calls (opening, until the window
 * has opened and closed: vkl_trim_reopen_check), so the
 * hold lasts until the recordings counted now are submitted, reset or
 * begun again.  A recording submitted before the window and submitted
 * again in it is still reported at that submit (vkl_trim_cb_submit).
 */
static int vkl_trim_hold(int frames)
{
	vkl_trim_unsent_list l = { { 0 }, 0 };
	char names[4 * 20 + 8] = "";
	size_t len = 0;
	uint32_t i;
	/* counted, so that a window that closes leaves the opening flag set
	 * for this request (vkl_trim_reopen_check) */
	pthread_mutex_lock(&vkl_trim.mu);
	vkl_trim.asks++;
	atomic_store(&vkl_trim.opening, 1);
	pthread_mutex_unlock(&vkl_trim.mu);
	/* A window opening with a swapchain image acquired begins with its
	 * present of what was drawn into it before the window (vkd3d-gears
	 * under --signal, opened at a submit's end).  The snapshot copies such
	 * an image where the surface let the swapchain have transfer usage
	 * (vkl_trim_swapchain_info); still, a window with no notice waits for
	 * a boundary where none is, the frame end after the present: its
	 * first frame whole, no swapchain image copied, and none lost where
	 * the surface refused the usage.  Not for ever (VKL_TRIM_ACQ_HOLDS
	 * asks in a row): a program may hold an image acquired at every
	 * present. */
	if (!frames && atomic_load(&vkl_trim.acquired_n) > 0) {
		if (vkl_trim.acq_holds < VKL_TRIM_ACQ_HOLDS) {
			vkl_trim.acq_holds++;
			if (!vkl_trim.acq_said) {
				vkl_trim.acq_said = 1;
				CAP_INFO("Vulkan trimmed capture: the capture window opens at a later frame "
				         "end, not here: a swapchain image is acquired and not presented yet");
			}
			return 1;
		}
		if (vkl_trim.acq_holds == VKL_TRIM_ACQ_HOLDS) {
			vkl_trim.acq_holds++; /* said once */
			CAP_WARN("Vulkan trimmed capture: a swapchain image was acquired at each of the "
			         "last %d boundaries; the capture window opens with one acquired (its "
			         "contents are in the snapshot only where the surface allowed transfer "
			         "usage)", VKL_TRIM_ACQ_HOLDS);
		}
	}
	if (!atomic_load(&vkl_trim.unsent)) {
		vkl_trim.held_said = 0;
		vkl_trim.acq_holds = 0; /* the window opens here */
		vkl_trim.acq_said = 0;
		return 0;
	}
	if (!vkl_trim.held_said) {
		vkl_trim.held_said = 1;
		vkl_objects_each(vkl_trim_unsent_one, &l);
		for (i = 0; i < l.n && len < sizeof(names); i++)
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s0x%llx",
			                        i ? ", " : "", (unsigned long long)l.cb[i]);
		cap_log(frames ? CAP_LOG_WARN : CAP_LOG_INFO,
		        "Vulkan trimmed capture: the capture window opens at a later frame end or "
		        "submit, not here: recordings that kept no calls are not submitted yet "
		        "(%llu: VkCommandBuffer %s%s); every recording keeps its calls from now on "
		        "until the window closes",
		        (unsigned long long)atomic_load(&vkl_trim.unsent), names,
		        atomic_load(&vkl_trim.unsent) > l.n ? ", ..." : "");
	}
	return 1;
}

/*
 * Windows after the first (triggers with no notice: vkl_trim.reopen).  A
 * snapshot sets vkl_trim_g.recorded: from then on every recording keeps
 * its calls and the keep-first and skip paths are off, as the open window
 * needs.  Once that window has closed, with no window asked for since it
 * opened, the run goes back to the state it had before any window:
 * recorded and opening are cleared, so that recordings keep no calls
 * again under the same conditions and the next request is held exactly as
 * the first was.  Checked on the calls that take the whole path
 * (vkl_trim_emit: the begins among them), which ask cap_active() anyway:
 *
 *   - seen: a thread that read snaps == g and then cap_active() == 1 saw
 *     window g open (the runtime's state it read comes after the opening
 *     that preceded the g-th snapshot's increment; a later window needs
 *     another snapshot, which moves snaps under mu, checked there);
 *   - back: under mu, window snaps seen, no hold since it opened (asks ==
 *     asks_open: each opening with no notice follows a hold, which counts
 *     itself under mu before the window's state leaves closed, so none is
 *     on its way) and cap_active() == 0 read now (after the read that saw
 *     the window open, through mu): the window has closed, and the next
 *     snapshot, which sets recorded under mu, comes after this.  Nothing
 *     records in between, so the state is the one before the first window
 *     and the same arguments hold: the begin's unsent count against the
 *     hold's opening flag, the keep-first path against the snapshot's
 *     handshake (vkl_trim_emit_flat).  cb_gen moves after the store, so
 *     that every thread's cache arms its paths again (vkl_trim_fast_arm).
 *
 * A window one range opens is not held, so its opening cannot be told
 * from a closed window here: with a range every recording keeps its calls
 * after the first window, as before (one range is allowed, so a window
 * after it comes only from another trigger).
 */
static void vkl_trim_reopen_check(void)
{
	uint64_t g = atomic_load(&vkl_trim.snaps);
	int back = 0;
	if (!g)
		return;
	if (cap_active()) {
		if (atomic_load_explicit(&vkl_trim.seen, memory_order_relaxed) == g)
			return;
		pthread_mutex_lock(&vkl_trim.mu);
		if (atomic_load(&vkl_trim.snaps) == g)
			atomic_store(&vkl_trim.seen, g);
		pthread_mutex_unlock(&vkl_trim.mu);
		return;
	}
	if (atomic_load(&vkl_trim.seen) != g)
		return;
	pthread_mutex_lock(&vkl_trim.mu);
	if (atomic_load(&vkl_trim.snaps) == g && atomic_load(&vkl_trim.seen) == g &&
	    vkl_trim.asks == vkl_trim.asks_open && atomic_load(&vkl_trim_g.recorded) &&
	    !cap_active()) {
		atomic_store(&vkl_trim_g.recorded, 0);
		atomic_store(&vkl_trim.opening, 0);
		atomic_fetch_add_explicit(&vkl_trim_g.cb_gen, 1, memory_order_acq_rel);
		back = 1;
	}
	pthread_mutex_unlock(&vkl_trim.mu);
	if (back && vkl_trim.mode == VKL_TRIM_HELD)
		CAP_INFO("Vulkan trimmed capture: capture window %llu closed: a one-time-submit command "
		         "buffer recorded again for each submit, within one frame, keeps no calls again",
		         (unsigned long long)g);
}

/* A submit of the command buffer: counted for vkl_trim_cb_begin; inside a
 * window, a recording whose calls were not kept is reported (once). */
static void vkl_trim_cb_submit(uint64_t cbh)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_COMMAND_BUFFER, cbh, &lk);
	int say = 0;
	if (o && o->trim) {
		vkl_trim_obj *cb = o->trim;
		vkl_trim_cb_sent(cb);
		if (++cb->submits >= 2)
			cb->resubmitted = 1;
		else if (vkl_trim.mode == VKL_TRIM_HELD && cap_units(CAP_UNIT_FRAME) != cb->begin_unit)
			cb->late = 1; /* a frame end, where a hotkey's window opens, came between */
		else if (vkl_trim.mode == VKL_TRIM_LEAD_IN &&
		         cap_units((cap_unit)vkl_trim.lead_unit) - cb->begin_unit > vkl_trim.lead_slack)
			cb->slow = 1; /* held long: it might be held into the window */
		if (cb->unkept && !cb->unkept_said && cap_active()) {
			cb->unkept_said = 1;
			say = 1;
		}
	}
	vkl_objects_unlock(lk);
	if (say)
		CAP_ERROR("Vulkan trimmed capture: VkCommandBuffer 0x%llx is submitted in the window, "
		          "but it was recorded before the window's lead-in and its calls were not "
		          "kept: the trace lacks them, and its replay stops at this submit "
		          "(TRACESMITH_VK_LEAD_IN=all keeps every recording)",
		          (unsigned long long)cbh);
}

static void vkl_trim_cb_qop(vkl_trim_obj *cb, uint64_t pool, uint32_t first, uint32_t count,
                            int written)
{
	if (!pool || !count)
		return;
	if (cb->nqops == cb->capqops) {
		uint32_t cap = cb->capqops ? cb->capqops * 2 : 8;
		vkl_trim_qop *v = realloc(cb->qops, cap * sizeof(*v));
		if (!v)
			return;
		cb->qops = v;
		cb->capqops = cap;
	}
	cb->qops[cb->nqops].pool = pool;
	cb->qops[cb->nqops].first = first;
	cb->qops[cb->nqops].count = count;
	cb->qops[cb->nqops].written = written;
	cb->nqops++;
}

/* The query commands (all of flat form: vkl_trim_keep_flat leaves them to
 * vkl_trim_emit_flat, which calls this). */
static void vkl_trim_cb_note_query(vkl_trim_obj *cb, uint32_t cmd, const void *args)
{
	switch ((enum sbt_vk_cmd)cmd) {
	case SBT_VK_CMD_vkCmdResetQueryPool: {
		const sbt_vk_args_vkCmdResetQueryPool *a = args;
		vkl_trim_cb_qop(cb, (uint64_t)(uintptr_t)a->queryPool, a->firstQuery, a->queryCount, 0);
		break;
	}
	case SBT_VK_CMD_vkCmdWriteTimestamp: {
		const sbt_vk_args_vkCmdWriteTimestamp *a = args;
		vkl_trim_cb_qop(cb, (uint64_t)(uintptr_t)a->queryPool, a->query, 1, 1);
		break;
	}
	case SBT_VK_CMD_vkCmdWriteTimestamp2:
	case SBT_VK_CMD_vkCmdWriteTimestamp2KHR: {
		const sbt_vk_args_vkCmdWriteTimestamp2 *a = args;
		vkl_trim_cb_qop(cb, (uint64_t)(uintptr_t)a->queryPool, a->query, 1, 1);
		break;
	}
	case SBT_VK_CMD_vkCmdEndQuery: {
		const sbt_vk_args_vkCmdEndQuery *a = args;
		vkl_trim_cb_qop(cb, (uint64_t)(uintptr_t)a->queryPool, a->query, 1, 1);
		break;
	}
	case SBT_VK_CMD_vkCmdEndQueryIndexedEXT: {
		const sbt_vk_args_vkCmdEndQueryIndexedEXT *a = args;
		vkl_trim_cb_qop(cb, (uint64_t)(uintptr_t)a->queryPool, a->query, 1, 1);
		break;
	}
	default:
		break;
	}
}

/* A query pool's queries [first, first + count) are written or reset. */
static void vkl_trim_queries_set(uint64_t pool, uint32_t first, uint32_t count, int written)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_QUERY_POOL, pool, &lk);
	if (o && o->trim && o->trim->qwritten && first < o->trim->qcount) {
		if (count > o->trim->qcount - first)
			count = o->trim->qcount - first;
		memset(o->trim->qwritten + first, written, count);
	}
	vkl_objects_unlock(lk);
}

/* A command buffer's calls are entries [u32 type][u32 len][bytes].  With
 * VKL_TRIM_FLAT in the type the bytes are the call's flat form
 * (sbt_vk_flat: the argument struct, then the one array it points to),
 * copied now and encoded only when a snapshot writes it: a copy costs a
 * fraction of an encode, and most calls are never written. */
/* VKL_TRIM_FLAT: vkl.h. */

static __attribute__((noinline)) int vkl_trim_cb_grow(sbt_vk_enc *e, size_t need)
{
	size_t cap = e->cap ? e->cap * 2 : 1024;
	uint8_t *p;
	while (cap - e->len < need)
		cap *= 2;
	p = realloc(e->data, cap);
	if (!p)
		return 0;
	e->data = p;
	e->cap = cap;
	return 1;
}

static inline int vkl_trim_cb_room(sbt_vk_enc *e, size_t need)
{
	if (__builtin_expect(e->cap - e->len >= need, 1))
		return 1;
	return vkl_trim_cb_grow(e, need);
}

/* Append one call: the recorded bytes when they hold no blob id, else its
 * flat form, else encoded here (inline). */
static void vkl_trim_cb_append(vkl_trim_obj *cb, uint32_t cmd, const void *args,
                               size_t template_len, const uint8_t *rec, size_t rec_len)
{
	sbt_vk_enc *e = &cb->cmds;
	size_t at = e->len, n = 0, alen = 0, off;
	const void *arr = NULL;
	uint32_t hdr[2];
	hdr[0] = SBT_VK_CMD_TYPE(cmd);
	if (!rec)
		n = sbt_vk_flat((enum sbt_vk_cmd)cmd, args, &arr, &alen, &off);
	if (!vkl_trim_cb_room(e, 8 + (rec ? rec_len : n ? n + alen : 64)))
		return;
	if (rec) {
		memcpy(e->data + at + 8, rec, rec_len);
		e->len = at + 8 + rec_len;
	} else if (n) {
		memcpy(e->data + at + 8, args, n);
		if (alen)
			memcpy(e->data + at + 8 + n, arr, alen);
		e->len = at + 8 + n + alen;
		hdr[0] |= VKL_TRIM_FLAT;
	} else {
		e->len = at + 8;
		e->template_data_len = template_len;
		if (sbt_vk_encode(e, (enum sbt_vk_cmd)cmd, args) != SBT_VK_OK) {
			e->len = at;
			return;
		}
	}
	hdr[1] = (uint32_t)(e->len - at - 8);
	memcpy(e->data + at, hdr, 8);
	cb->cmds_order = atomic_load_explicit(&vkl_trim_g.order, memory_order_relaxed);
}

/* Append one call in its flat form (vkl_emit_flat's arguments).  None of
 * the commands vkl_trim_cb_note follows has one. */
static void vkl_trim_cb_put_flat(vkl_trim_obj *cb, uint32_t cmd, const void *args,
                                 size_t args_len, const void *array, size_t array_len)
{
	sbt_vk_enc *e = &cb->cmds;
	uint32_t hdr[2];
	uint8_t *p;
	if (!vkl_trim_cb_room(e, 8 + args_len + array_len))
		return;
	p = e->data + e->len;
	hdr[0] = SBT_VK_CMD_TYPE(cmd) | VKL_TRIM_FLAT;
	hdr[1] = (uint32_t)(args_len + array_len);
	memcpy(p, hdr, 8);
	cap_copy_small(p + 8, args, args_len);
	cap_copy_small(p + 8 + args_len, array, array_len);
	e->len += 8 + args_len + array_len;
	cb->cmds_order = atomic_load_explicit(&vkl_trim_g.order, memory_order_relaxed);
}

/* ---- image layouts, per subresource --------------------------------------------- */

/* The aspects of an image whose layouts are followed apart ("slots"):
 * depth and stencil of a format that has both, each plane of a
 * multi-planar one, else one.  Fills aspects_out[0..n) and returns n. */
static uint32_t vkl_trim_image_slots(VkFormat format, VkImageAspectFlags aspects_out[3])
{
	const sbt_vk_format_info *fi = sbt_vk_format_info_of(format);
	const VkImageAspectFlags ds = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
	uint32_t i;
	if (fi && fi->planes > 1) {
		for (i = 0; i < fi->planes && i < 3; i++)
			aspects_out[i] = (VkImageAspectFlags)VK_IMAGE_ASPECT_PLANE_0_BIT << i;
		return i;
	}
	if (fi && (fi->aspects & ds) == ds) {
		aspects_out[0] = VK_IMAGE_ASPECT_DEPTH_BIT;
		aspects_out[1] = VK_IMAGE_ASPECT_STENCIL_BIT;
		return 2;
	}
	aspects_out[0] = fi ? fi->aspects : VK_IMAGE_ASPECT_COLOR_BIT;
	return 1;
}

/* The slots (bit per slot) an aspect mask names: COLOR names every plane
 * of a multi-planar image. */
static uint32_t vkl_trim_slot_mask(const VkImageAspectFlags *aspects, uint32_t n,
                                   VkImageAspectFlags mask)
{
	uint32_t bits = 0, i;
	if (n == 1)
		return mask ? 1u : 0u;
	for (i = 0; i < n; i++)
		if ((mask & aspects[i]) ||
		    ((mask & VK_IMAGE_ASPECT_COLOR_BIT) && aspects[i] >= VK_IMAGE_ASPECT_PLANE_0_BIT))
			bits |= 1u << i;
	return bits;
}

/* A range's end (exclusive), VK_REMAINING_* and overruns cut at n. */
static uint32_t vkl_trim_range_end(uint32_t base, uint32_t count, uint32_t n)
{
	return count == VK_REMAINING_MIP_LEVELS || count > n - base ? n : base + count;
}

/* The image's subresources of range r are in layout now. */
static void vkl_trim_image_set(vkl_trim_obj *o, const VkImageSubresourceRange *r,
                               VkImageLayout layout)
{
	VkImageAspectFlags aspects[3];
	uint32_t ns = vkl_trim_image_slots(o->format, aspects);
	uint32_t mips = o->mips ? o->mips : 1, layers = o->layers ? o->layers : 1;
	uint32_t slots = vkl_trim_slot_mask(aspects, ns, r->aspectMask);
	uint32_t m0 = r->baseMipLevel, l0 = r->baseArrayLayer, m1, l1, sl, m, l;
	size_t n = (size_t)ns * mips * layers, i;
	if (o->itype == VK_IMAGE_TYPE_3D)
		l0 = 0; /* a 2D array view's layers are slices of the one layer */
	if (!slots || m0 >= mips || l0 >= layers)
		return;
	m1 = vkl_trim_range_end(m0, r->levelCount, mips);
	l1 = o->itype == VK_IMAGE_TYPE_3D ? 1 : vkl_trim_range_end(l0, r->layerCount, layers);
	if (slots == (1u << ns) - 1 && m0 == 0 && m1 == mips && l0 == 0 && l1 == layers) {
		o->layout = layout;
		free(o->sub);
		o->sub = NULL;
		return;
	}
	if (!o->sub) {
		o->sub = malloc(n * sizeof(*o->sub));
		if (!o->sub) {
			CAP_ERROR("Vulkan layer: out of memory following the layouts of VkImage 0x%llx "
			          "per subresource: the snapshot takes them as one",
			          (unsigned long long)o->handle);
			o->layout = layout;
			return;
		}
		for (i = 0; i < n; i++)
			o->sub[i] = o->layout;
	}
	for (sl = 0; sl < ns; sl++)
		for (m = m0; (slots & (1u << sl)) && m < m1; m++)
			for (l = l0; l < l1; l++)
				o->sub[((size_t)sl * mips + m) * layers + l] = layout;
	for (i = 1; i < n && o->sub[i] == o->sub[0]; i++)
		;
	if (i == n) { /* one layout again */
		o->layout = o->sub[0];
		free(o->sub);
		o->sub = NULL;
	}
}

/* Whether some subresource of the image is in a layout other than its
 * creation layout and UNDEFINED. */
static int vkl_trim_image_moved(const vkl_trim_obj *o)
{
	size_t n, i;
	if (!o->sub)
		return o->layout != o->initial && o->layout != VK_IMAGE_LAYOUT_UNDEFINED;
	{
		VkImageAspectFlags aspects[3];
		n = (size_t)vkl_trim_image_slots(o->format, aspects) * (o->mips ? o->mips : 1) *
		    (o->layers ? o->layers : 1);
	}
	for (i = 0; i < n; i++)
		if (o->sub[i] != o->initial && o->sub[i] != VK_IMAGE_LAYOUT_UNDEFINED)
			return 1;
	return 0;
}

/* Whether range a holds all of range b (counts of VK_REMAINING_* reach
 * every level or layer). */
static int vkl_trim_range_holds(const VkImageSubresourceRange *a, const VkImageSubresourceRange *b)
{
	uint64_t ae = a->levelCount == VK_REMAINING_MIP_LEVELS
	                  ? UINT64_MAX
	                  : (uint64_t)a->baseMipLevel + a->levelCount;
	uint64_t be = b->levelCount == VK_REMAINING_MIP_LEVELS
	                  ? UINT64_MAX
	                  : (uint64_t)b->baseMipLevel + b->levelCount;
	uint64_t al = a->layerCount == VK_REMAINING_ARRAY_LAYERS
	                  ? UINT64_MAX
	                  : (uint64_t)a->baseArrayLayer + a->layerCount;
	uint64_t bl = b->layerCount == VK_REMAINING_ARRAY_LAYERS
	                  ? UINT64_MAX
	                  : (uint64_t)b->baseArrayLayer + b->layerCount;
	return (b->aspectMask & ~a->aspectMask) == 0 && a->baseMipLevel <= b->baseMipLevel &&
	       be <= ae && a->baseArrayLayer <= b->baseArrayLayer && bl <= al;
}

/* The command buffer leaves range r of the image in layout (after what
 * it left before: applied in order at its submit).  Earlier entries of
 * the same image that r covers are dropped, so that a command buffer
 * moving the same subresources again and again keeps one entry. */
static void vkl_trim_cb_layout(vkl_trim_obj *cb, uint64_t image, const VkImageSubresourceRange *r,
                               VkImageLayout layout)
{
	uint32_t i, k;
	if (!image || layout == VK_IMAGE_LAYOUT_UNDEFINED)
		return;
	for (i = k = 0; i < cb->ntr; i++)
		if (cb->tr[i].image != image || !vkl_trim_range_holds(r, &cb->tr[i].range))
			cb->tr[k++] = cb->tr[i];
	cb->ntr = k;
	if (cb->ntr == cb->captr) {
		uint32_t cap = cb->captr ? cb->captr * 2 : 8;
		vkl_trim_layout *v = realloc(cb->tr, cap * sizeof(*v));
		if (!v)
			return;
		cb->tr = v;
		cb->captr = cap;
	}
	cb->tr[cb->ntr].image = image;
	cb->tr[cb->ntr].range = *r;
	cb->tr[cb->ntr].layout = layout;
	cb->ntr++;
}

/* A render pass leaves each attachment (its view's subresources) in its
 * final layout, the stencil of one with a stencil final layout of its own
 * in that. */
static void vkl_trim_cb_render_pass(vkl_trim_obj *cb, VkRenderPass rp, VkFramebuffer fb)
{
	VkImageLayout finals[32], sfinals[32];
	uint64_t views[32];
	uint32_t nf = 0, nv = 0, i;
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)(uintptr_t)rp, &lk);
	if (o && o->trim) {
		nf = o->trim->nfinals < 32 ? o->trim->nfinals : 32;
		if (nf) {
			memcpy(finals, o->trim->finals, nf * sizeof(*finals));
			memcpy(sfinals, o->trim->sfinals, nf * sizeof(*sfinals));
		}
	}
	vkl_objects_unlock(lk);
	o = vkl_objects_lock(VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)(uintptr_t)fb, &lk);
	if (o && o->trim) {
		nv = o->trim->nviews < 32 ? o->trim->nviews : 32;
		if (nv)
			memcpy(views, o->trim->views, nv * sizeof(*views));
	}
	vkl_objects_unlock(lk);
	for (i = 0; i < nf && i < nv; i++) {
		uint64_t image = 0;
		VkImageSubresourceRange range;
		memset(&range, 0, sizeof(range));
		o = vkl_objects_lock(VK_OBJECT_TYPE_IMAGE_VIEW, views[i], &lk);
		if (o && o->trim) {
			image = o->trim->image;
			range = o->trim->vrange;
		}
		vkl_objects_unlock(lk);
		if (!image)
			continue;
		if (sfinals[i] != finals[i] && (range.aspectMask & VK_IMAGE_ASPECT_STENCIL_BIT)) {
			VkImageSubresourceRange stencil = range;
			stencil.aspectMask = VK_IMAGE_ASPECT_STENCIL_BIT;
			range.aspectMask &= ~(VkImageAspectFlags)VK_IMAGE_ASPECT_STENCIL_BIT;
			if (range.aspectMask)
				vkl_trim_cb_layout(cb, image, &range, finals[i]);
			vkl_trim_cb_layout(cb, image, &stencil, sfinals[i]);
		} else {
			vkl_trim_cb_layout(cb, image, &range, finals[i]);
		}
	}
}

/* A copy of a command buffer's layouts and query operations, taken under
 * its entry's lock (owned arrays; both NULL when it has none), and its
 * recording's number (rec_id_out may be NULL; 0 for an unknown one). */
static void vkl_trim_cb_state(uint64_t cbh, vkl_trim_layout **tr_out, uint32_t *ntr_out,
                              vkl_trim_qop **qops_out, uint32_t *nqops_out,
                              uint64_t *rec_id_out)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_COMMAND_BUFFER, cbh, &lk);
	if (rec_id_out)
		*rec_id_out = o && o->trim ? o->trim->rec_id : 0;
	*tr_out = NULL;
	*qops_out = NULL;
	*ntr_out = *nqops_out = 0;
	if (o && o->trim && o->trim->ntr && (*tr_out = malloc(o->trim->ntr * sizeof(**tr_out)))) {
		memcpy(*tr_out, o->trim->tr, o->trim->ntr * sizeof(**tr_out));
		*ntr_out = o->trim->ntr;
	}
	if (o && o->trim && o->trim->nqops &&
	    (*qops_out = malloc(o->trim->nqops * sizeof(**qops_out)))) {
		memcpy(*qops_out, o->trim->qops, o->trim->nqops * sizeof(**qops_out));
		*nqops_out = o->trim->nqops;
	}
	vkl_objects_unlock(lk);
}

/* A secondary command buffer executed by cb leaves its images in the
 * layouts its barriers left (it is executable, so no thread records it
 * now: its list is read under its entry's lock only against its removal),
 * and cb notes which recording of it it executes. */
static void vkl_trim_cb_secondary(vkl_trim_obj *cb, uint64_t secondary)
{
	vkl_trim_layout *tr;
	vkl_trim_qop *qops;
	uint32_t n, nq, i;
	uint64_t rec_id;
	vkl_trim_cb_state(secondary, &tr, &n, &qops, &nq, &rec_id);
	if (cb->nexecs == cb->capexecs) {
		uint32_t cap = cb->capexecs ? cb->capexecs * 2 : 4;
		vkl_trim_exec *e = realloc(cb->execs, cap * sizeof(*e));
		if (e) {
			cb->execs = e;
			cb->capexecs = cap;
		}
	}
	if (cb->nexecs < cb->capexecs)
		cb->execs[cb->nexecs++] = (vkl_trim_exec){ secondary, rec_id };
	else
		cb->execs_lost = 1; /* out of memory: never written by a snapshot */
	for (i = 0; i < n; i++)
		vkl_trim_cb_layout(cb, tr[i].image, &tr[i].range, tr[i].layout);
	for (i = 0; i < nq; i++)
		vkl_trim_cb_qop(cb, qops[i].pool, qops[i].first, qops[i].count, qops[i].written);
	free(tr);
	free(qops);
}

static void vkl_trim_cb_note(vkl_trim_obj *cb, uint32_t cmd, const void *args)
{
	uint32_t i;
	switch ((enum sbt_vk_cmd)cmd) {
	case SBT_VK_CMD_vkCmdPipelineBarrier: {
		const sbt_vk_args_vkCmdPipelineBarrier *a = args;
		for (i = 0; i < a->imageMemoryBarrierCount; i++)
			vkl_trim_cb_layout(cb, (uint64_t)(uintptr_t)a->pImageMemoryBarriers[i].image,
			                   &a->pImageMemoryBarriers[i].subresourceRange,
			                   a->pImageMemoryBarriers[i].newLayout);
		break;
	}
	case SBT_VK_CMD_vkCmdPipelineBarrier2:
	case SBT_VK_CMD_vkCmdPipelineBarrier2KHR: {
		const sbt_vk_args_vkCmdPipelineBarrier2 *a = args;
		for (i = 0; i < a->pDependencyInfo->imageMemoryBarrierCount; i++)
			vkl_trim_cb_layout(
				cb, (uint64_t)(uintptr_t)a->pDependencyInfo->pImageMemoryBarriers[i].image,
				&a->pDependencyInfo->pImageMemoryBarriers[i].subresourceRange,
				a->pDependencyInfo->pImageMemoryBarriers[i].newLayout);
		break;
	}
	case SBT_VK_CMD_vkCmdExecuteCommands: {
		const sbt_vk_args_vkCmdExecuteCommands *a = args;
		for (i = 0; i < a->commandBufferCount; i++)
			vkl_trim_cb_secondary(cb, (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
		break;
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass: {
		const sbt_vk_args_vkCmdBeginRenderPass *a = args;
		vkl_trim_cb_render_pass(cb, a->pRenderPassBegin->renderPass,
		                        a->pRenderPassBegin->framebuffer);
		break;
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR: {
		const sbt_vk_args_vkCmdBeginRenderPass2 *a = args;
		vkl_trim_cb_render_pass(cb, a->pRenderPassBegin->renderPass,
		                        a->pRenderPassBegin->framebuffer);
		break;
	}
	default:
		break;
	}
}

/* vkResetCommandPool: every command buffer of the pool starts over. */
static void vkl_trim_pool_reset_one(vkl_object *o, void *ctx)
{
	if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && o->trim &&
	    o->parent == *(const uint64_t *)ctx) {
		vkl_trim_cb_clear(o->trim);
		vkl_trim_cb_sent(o->trim);
	}
}

/* ---- synchronisation and presentation state ----------------------------------- */

static void vkl_trim_set_signaled(VkObjectType type, uint64_t h, int signaled)
{
	void *lk;
	vkl_object *o;
	if (!h)
		return;
	o = vkl_objects_lock(type, h, &lk);
	if (o && o->trim)
		o->trim->signaled = signaled;
	vkl_objects_unlock(lk);
}

static void vkl_trim_set_acquired(uint64_t swapchain, uint32_t index, int acquired)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_SWAPCHAIN_KHR, swapchain, &lk);
	if (o && o->trim && index < 64) {
		uint64_t bit = 1ull << index;
		if (acquired && !(o->trim->acquired & bit))
			atomic_fetch_add(&vkl_trim.acquired_n, 1);
		else if (!acquired && (o->trim->acquired & bit))
			atomic_fetch_sub(&vkl_trim.acquired_n, 1);
		if (acquired)
			o->trim->acquired |= bit;
		else
			o->trim->acquired &= ~bit;
	}
	vkl_objects_unlock(lk);
}

/* A submitted command buffer's layouts become its images' layouts (in
 * the order it left them), its query writes and resets its pools'. */
static void vkl_trim_submitted(VkCommandBuffer cbh)
{
	vkl_trim_layout *tr;
	vkl_trim_qop *qops;
	uint32_t n, nq, i;
	void *lk;
	vkl_object *o;
	vkl_trim_cb_submit((uint64_t)(uintptr_t)cbh);
	vkl_trim_cb_state((uint64_t)(uintptr_t)cbh, &tr, &n, &qops, &nq, NULL);
	for (i = 0; i < n; i++) {
		o = vkl_objects_lock(VK_OBJECT_TYPE_IMAGE, tr[i].image, &lk);
		if (o && o->trim)
			vkl_trim_image_set(o->trim, &tr[i].range, tr[i].layout);
		vkl_objects_unlock(lk);
	}
	for (i = 0; i < nq; i++)
		vkl_trim_queries_set(qops[i].pool, qops[i].first, qops[i].count, qops[i].written);
	free(tr);
	free(qops);
}

static void vkl_trim_sync(uint32_t cmd, const void *args)
{
	uint32_t i, j;
	switch ((enum sbt_vk_cmd)cmd) {
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (i = 0; i < a->submitCount; i++) {
			const VkSubmitInfo *s = &a->pSubmits[i];
			for (j = 0; j < s->waitSemaphoreCount; j++)
				vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
				                      (uint64_t)(uintptr_t)s->pWaitSemaphores[j], 0);
			for (j = 0; j < s->commandBufferCount; j++)
				vkl_trim_submitted(s->pCommandBuffers[j]);
			for (j = 0; j < s->signalSemaphoreCount; j++)
				vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
				                      (uint64_t)(uintptr_t)s->pSignalSemaphores[j], 1);
		}
		vkl_trim_set_signaled(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, 1);
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (i = 0; i < a->submitCount; i++) {
			const VkSubmitInfo2 *s = &a->pSubmits[i];
			for (j = 0; j < s->waitSemaphoreInfoCount; j++)
				vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
				                      (uint64_t)(uintptr_t)s->pWaitSemaphoreInfos[j].semaphore, 0);
			for (j = 0; j < s->commandBufferInfoCount; j++)
				vkl_trim_submitted(s->pCommandBufferInfos[j].commandBuffer);
			for (j = 0; j < s->signalSemaphoreInfoCount; j++)
				vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
				                      (uint64_t)(uintptr_t)s->pSignalSemaphoreInfos[j].semaphore, 1);
		}
		vkl_trim_set_signaled(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, 1);
		break;
	}
	case SBT_VK_CMD_vkQueueBindSparse: {
		const sbt_vk_args_vkQueueBindSparse *a = args;
		for (i = 0; i < a->bindInfoCount; i++) {
			const VkBindSparseInfo *s = &a->pBindInfo[i];
			for (j = 0; j < s->waitSemaphoreCount; j++)
				vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
				                      (uint64_t)(uintptr_t)s->pWaitSemaphores[j], 0);
			for (j = 0; j < s->signalSemaphoreCount; j++)
				vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
				                      (uint64_t)(uintptr_t)s->pSignalSemaphores[j], 1);
		}
		vkl_trim_set_signaled(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, 1);
		break;
	}
	case SBT_VK_CMD_vkResetQueryPool:
	case SBT_VK_CMD_vkResetQueryPoolEXT: {
		const sbt_vk_args_vkResetQueryPool *a = args;
		vkl_trim_queries_set((uint64_t)(uintptr_t)a->queryPool, a->firstQuery, a->queryCount, 0);
		break;
	}
	case SBT_VK_CMD_vkResetFences: {
		const sbt_vk_args_vkResetFences *a = args;
		for (i = 0; i < a->fenceCount; i++)
			vkl_trim_set_signaled(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->pFences[i], 0);
		break;
	}
	case SBT_VK_CMD_vkAcquireNextImageKHR: {
		const sbt_vk_args_vkAcquireNextImageKHR *a = args;
		if (a->ret != VK_SUCCESS && a->ret != VK_SUBOPTIMAL_KHR)
			break;
		vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)(uintptr_t)a->semaphore, 1);
		vkl_trim_set_signaled(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, 1);
		vkl_trim_set_acquired((uint64_t)(uintptr_t)a->swapchain, *a->pImageIndex, 1);
		break;
	}
	case SBT_VK_CMD_vkAcquireNextImage2KHR: {
		const sbt_vk_args_vkAcquireNextImage2KHR *a = args;
		if (a->ret != VK_SUCCESS && a->ret != VK_SUBOPTIMAL_KHR)
			break;
		vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
		                      (uint64_t)(uintptr_t)a->pAcquireInfo->semaphore, 1);
		vkl_trim_set_signaled(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->pAcquireInfo->fence, 1);
		vkl_trim_set_acquired((uint64_t)(uintptr_t)a->pAcquireInfo->swapchain, *a->pImageIndex, 1);
		break;
	}
	case SBT_VK_CMD_vkQueuePresentKHR: {
		const VkPresentInfoKHR *p = ((const sbt_vk_args_vkQueuePresentKHR *)args)->pPresentInfo;
		for (j = 0; j < p->waitSemaphoreCount; j++)
			vkl_trim_set_signaled(VK_OBJECT_TYPE_SEMAPHORE,
			                      (uint64_t)(uintptr_t)p->pWaitSemaphores[j], 0);
		for (j = 0; j < p->swapchainCount; j++)
			vkl_trim_set_acquired((uint64_t)(uintptr_t)p->pSwapchains[j], p->pImageIndices[j], 0);
		break;
	}
	case SBT_VK_CMD_vkResetCommandPool: {
		const sbt_vk_args_vkResetCommandPool *a = args;
		uint64_t pool = (uint64_t)(uintptr_t)a->commandPool;
		vkl_objects_each(vkl_trim_pool_reset_one, &pool);
		break;
	}
	case SBT_VK_CMD_vkUnmapMemory: {
		const sbt_vk_args_vkUnmapMemory *a = args;
		vkl_trim_drop(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)a->memory,
		              SBT_VK_CMD_TYPE(SBT_VK_CMD_vkMapMemory));
		break;
	}
	default:
		break;
	}
}

/* ---- keeping calls ------------------------------------------------------------- */

/* Which descriptors of `set` the update writes, as a hash of (binding,
 * first element, count) in call order; 0 when it also copies into the set
 * (what a copy brings depends on the source's state).  An update through
 * a template hashes its entries the same way (vkl_trim_template_sig). */
static uint64_t vkl_trim_update_sig(const sbt_vk_args_vkUpdateDescriptorSets *a,
                                    VkDescriptorSet set)
{
	uint64_t h = VKL_TRIM_SIG_SEED;
	uint32_t i;
	for (i = 0; i < a->descriptorCopyCount; i++)
		if (a->pDescriptorCopies[i].dstSet == set)
			return 0;
	for (i = 0; i < a->descriptorWriteCount; i++) {
		const VkWriteDescriptorSet *w = &a->pDescriptorWrites[i];
		if (w->dstSet == set)
			h = vkl_trim_sig_step(h, w->dstBinding, w->dstArrayElement, w->descriptorCount);
	}
	return h ? h : 1;
}

/* Which descriptors an update through template t writes (its entries, as
 * vkl_trim_update_sig hashes writes); 0 for a template not known. */
static uint64_t vkl_trim_template_sig(VkDescriptorUpdateTemplate t)
{
	void *lk;
	uint64_t sig = 0;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE,
	                                 (uint64_t)(uintptr_t)t, &lk);
	if (o && o->trim)
		sig = o->trim->tmpl_sig;
	vkl_objects_unlock(lk);
	return sig;
}

/* A set updated through template t keeps what recreates t (its creation,
 * and what that names): a program may destroy a template once its sets
 * are written, and the snapshot then recreates it for the update and
 * destroys it again.  The template's list is copied under its lock, kept
 * under the set's. */
static void vkl_trim_keep_template(VkDescriptorSet set, VkDescriptorUpdateTemplate t)
{
	vkl_trim_rec **refs = NULL;
	uint32_t n = 0, i;
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE,
	                                 (uint64_t)(uintptr_t)t, &lk);
	if (o && o->trim && o->trim->nrecs && (refs = malloc(o->trim->nrecs * sizeof(*refs))))
		for (; n < o->trim->nrecs; n++)
			refs[n] = vkl_trim_rec_ref(o->trim->recs[n].r);
	vkl_objects_unlock(lk);
	if (!n) {
		free(refs);
		return;
	}
	o = vkl_objects_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, (uint64_t)(uintptr_t)set, &lk);
	for (i = 0; o && o->trim && i < n; i++)
		vkl_trim_keep_locked(o->trim, refs[i], 0);
	vkl_objects_unlock(lk);
	for (i = 0; i < n; i++)
		vkl_trim_rec_release(refs[i]);
	free(refs);
}

static void vkl_trim_keep_update(VkDescriptorSet set, vkl_trim_rec *r, uint64_t sig)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, (uint64_t)(uintptr_t)set, &lk);
	if (o && o->trim)
		vkl_trim_keep_sig(o->trim, r, 0, sig);
	vkl_objects_unlock(lk);
}

/* The plane a bind names (VkBindImagePlaneMemoryInfo, binding one plane
 * of a disjoint image): 0..2, or -1 for the whole image. */
static int vkl_trim_bind_plane(const VkBindImageMemoryInfo *b)
{
	const VkBaseInStructure *x;
	for (x = b->pNext; x; x = x->pNext)
		if (x->sType == VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO) {
			VkImageAspectFlagBits a = ((const VkBindImagePlaneMemoryInfo *)(const void *)x)
			                              ->planeAspect;
			return a == VK_IMAGE_ASPECT_PLANE_0_BIT   ? 0
			       : a == VK_IMAGE_ASPECT_PLANE_1_BIT ? 1
			       : a == VK_IMAGE_ASPECT_PLANE_2_BIT ? 2
			                                          : -1;
		}
	return -1;
}

/* The objects a state-setting call belongs to. */
static void vkl_trim_state(uint32_t cmd, const void *args, vkl_trim_rec *r)
{
	uint32_t i;
	switch ((enum sbt_vk_cmd)cmd) {
	case SBT_VK_CMD_vkBindBufferMemory: {
		const sbt_vk_args_vkBindBufferMemory *a = args;
		if (a->ret == VK_SUCCESS)
			vkl_trim_bind(VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer, a->memory, -1,
			              r);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory: {
		const sbt_vk_args_vkBindImageMemory *a = args;
		if (a->ret == VK_SUCCESS)
			vkl_trim_bind(VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image, a->memory, -1, r);
		break;
	}
	case SBT_VK_CMD_vkBindBufferMemory2:
	case SBT_VK_CMD_vkBindBufferMemory2KHR: {
		const sbt_vk_args_vkBindBufferMemory2 *a = args;
		for (i = 0; a->ret == VK_SUCCESS && i < a->bindInfoCount; i++)
			vkl_trim_bind(VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->pBindInfos[i].buffer,
			              a->pBindInfos[i].memory, -1, r);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory2:
	case SBT_VK_CMD_vkBindImageMemory2KHR: {
		const sbt_vk_args_vkBindImageMemory2 *a = args;
		for (i = 0; a->ret == VK_SUCCESS && i < a->bindInfoCount; i++)
			vkl_trim_bind(VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->pBindInfos[i].image,
			              a->pBindInfos[i].memory, vkl_trim_bind_plane(&a->pBindInfos[i]), r);
		break;
	}
	case SBT_VK_CMD_vkGetBufferMemoryRequirements: {
		const sbt_vk_args_vkGetBufferMemoryRequirements *a = args;
		vkl_trim_keep(VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer, r, 1);
		break;
	}
	case SBT_VK_CMD_vkGetImageMemoryRequirements: {
		const sbt_vk_args_vkGetImageMemoryRequirements *a = args;
		vkl_trim_keep(VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image, r, 1);
		break;
	}
	case SBT_VK_CMD_vkGetBufferMemoryRequirements2:
	case SBT_VK_CMD_vkGetBufferMemoryRequirements2KHR: {
		const sbt_vk_args_vkGetBufferMemoryRequirements2 *a = args;
		vkl_trim_keep(VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->pInfo->buffer, r, 1);
		break;
	}
	case SBT_VK_CMD_vkGetImageMemoryRequirements2:
	case SBT_VK_CMD_vkGetImageMemoryRequirements2KHR: {
		const sbt_vk_args_vkGetImageMemoryRequirements2 *a = args;
		vkl_trim_keep(VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->pInfo->image, r, 1);
		break;
	}
	case SBT_VK_CMD_vkMapMemory: {
		const sbt_vk_args_vkMapMemory *a = args;
		if (a->ret == VK_SUCCESS)
			vkl_trim_keep(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)a->memory, r, 0);
		break;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSets: {
		const sbt_vk_args_vkUpdateDescriptorSets *a = args;
		for (i = 0; i < a->descriptorWriteCount; i++) {
			VkDescriptorSet set = a->pDescriptorWrites[i].dstSet;
			vkl_trim_keep_update(set, r, vkl_trim_update_sig(a, set));
		}
		for (i = 0; i < a->descriptorCopyCount; i++)
			vkl_trim_keep(VK_OBJECT_TYPE_DESCRIPTOR_SET,
			              (uint64_t)(uintptr_t)a->pDescriptorCopies[i].dstSet, r, 0);
		break;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR: {
		const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *a = args;
		/* a set updated each frame keeps the last update alone */
		vkl_trim_keep_template(a->descriptorSet, a->descriptorUpdateTemplate);
		vkl_trim_keep_update(a->descriptorSet, r,
		                     vkl_trim_template_sig(a->descriptorUpdateTemplate));
		break;
	}
	default:
		break;
	}
}

/* The object a vkDestroy* / vkFreeMemory destroys: 1 and *type_out,
 * *handle_out, or 0 for other calls. */
static int vkl_trim_destroyed(uint32_t cmd, const void *args, VkObjectType *type_out,
                              uint64_t *handle_out)
{
#define VKL_TRIM_DESTROY(name, member, otype)                                      \
	case SBT_VK_CMD_##name:                                                        \
		*type_out = otype;                                                         \
		*handle_out = (uint64_t)(uintptr_t)((const sbt_vk_args_##name *)args)->member; \
		return 1;
	switch ((enum sbt_vk_cmd)cmd) {
	VKL_TRIM_DESTROY(vkDestroyBuffer, buffer, VK_OBJECT_TYPE_BUFFER)
	VKL_TRIM_DESTROY(vkDestroyBufferView, bufferView, VK_OBJECT_TYPE_BUFFER_VIEW)
	VKL_TRIM_DESTROY(vkDestroyImage, image, VK_OBJECT_TYPE_IMAGE)
	VKL_TRIM_DESTROY(vkDestroyImageView, imageView, VK_OBJECT_TYPE_IMAGE_VIEW)
	VKL_TRIM_DESTROY(vkDestroySampler, sampler, VK_OBJECT_TYPE_SAMPLER)
	VKL_TRIM_DESTROY(vkFreeMemory, memory, VK_OBJECT_TYPE_DEVICE_MEMORY)
	VKL_TRIM_DESTROY(vkDestroyDescriptorSetLayout, descriptorSetLayout,
	                 VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT)
	VKL_TRIM_DESTROY(vkDestroyDescriptorPool, descriptorPool, VK_OBJECT_TYPE_DESCRIPTOR_POOL)
	VKL_TRIM_DESTROY(vkDestroyPipeline, pipeline, VK_OBJECT_TYPE_PIPELINE)
	VKL_TRIM_DESTROY(vkDestroyPipelineLayout, pipelineLayout, VK_OBJECT_TYPE_PIPELINE_LAYOUT)
	VKL_TRIM_DESTROY(vkDestroyRenderPass, renderPass, VK_OBJECT_TYPE_RENDER_PASS)
	VKL_TRIM_DESTROY(vkDestroyFramebuffer, framebuffer, VK_OBJECT_TYPE_FRAMEBUFFER)
	VKL_TRIM_DESTROY(vkDestroyShaderModule, shaderModule, VK_OBJECT_TYPE_SHADER_MODULE)
	VKL_TRIM_DESTROY(vkDestroyCommandPool, commandPool, VK_OBJECT_TYPE_COMMAND_POOL)
	VKL_TRIM_DESTROY(vkDestroyEvent, event, VK_OBJECT_TYPE_EVENT)
	VKL_TRIM_DESTROY(vkDestroyQueryPool, queryPool, VK_OBJECT_TYPE_QUERY_POOL)
	VKL_TRIM_DESTROY(vkDestroyFence, fence, VK_OBJECT_TYPE_FENCE)
	VKL_TRIM_DESTROY(vkDestroySemaphore, semaphore, VK_OBJECT_TYPE_SEMAPHORE)
	VKL_TRIM_DESTROY(vkDestroySwapchainKHR, swapchain, VK_OBJECT_TYPE_SWAPCHAIN_KHR)
	default:
		return 0;
	}
#undef VKL_TRIM_DESTROY
}

/* Whether the call destroys an object a snapshot left out, whose destroy
 * must not be recorded (the replay would stop on the unknown handle). */
static int vkl_trim_left_out_destroy(uint32_t cmd, const void *args)
{
	/* set: gcc -O1 cannot see that vkl_trim_destroyed fills both when it
	 * answers 1 (make asan / tsan build with -Werror) */
	VkObjectType type = VK_OBJECT_TYPE_UNKNOWN;
	uint64_t h = 0;
	void *lk;
	vkl_object *o;
	int left = 0;
	if (!atomic_load_explicit(&vkl_trim.left_out, memory_order_relaxed) ||
	    !vkl_trim_destroyed(cmd, args, &type, &h) || !h)
		return 0;
	o = vkl_objects_lock(type, h, &lk);
	left = o && o->trim && o->trim->left_out;
	vkl_objects_unlock(lk);
	if (left)
		CAP_INFO("Vulkan: a %s of 0x%llx is not recorded: the snapshot left that object out",
		         sbt_vk_cmd_name((enum sbt_vk_cmd)cmd), (unsigned long long)h);
	return left;
}

uint64_t vkl_trim_emit(uint32_t cmd, unsigned flags, const void *args, size_t template_len)
{
	vkl_trim_tls *t = &vkl_trim_t;
	const uint8_t *p = NULL;
	size_t len = 0;
	int in = 0;
	uint64_t seq = 0;
	uint8_t cls;
	vkl_trim_rec *r;
	/* one thread-local lookup per call: the compiler would otherwise
	 * redo it (a call in a shared object) wherever t is used */
	__asm__("" : "+r"(t));
	if (__builtin_expect(!atomic_load_explicit(&vkl_trim_g.ready, memory_order_acquire), 0))
		pthread_once(&vkl_trim_once, vkl_trim_init);
	if (vkl_trim.reopen && atomic_load_explicit(&vkl_trim_g.recorded, memory_order_relaxed))
		vkl_trim_reopen_check();
	if (t->pending) {
		vkl_trim_rec_release(t->pending);
		t->pending = NULL;
	}
	cls = vkl_trim.cls[cmd];
again:
	if (cap_active() && !vkl_trim_left_out_destroy(cmd, args))
		seq = vkl_record_call(cmd, flags, args, template_len, &p, &len, &in);
	if (!in)
		p = NULL; /* what is kept must not name the window's blobs */
	switch (cls) {
	case VKL_TC_NONE:
		break;
	case VKL_TC_CB_BEGIN:
	case VKL_TC_CB_CMD:
	case VKL_TC_CB_RESET: {
		vkl_trim_obj *cb;
		if (!vkl_trim_enter(t)) {
			if (!seq)
				goto again; /* not recorded: the window may be open now */
			while (!vkl_trim_enter(t))
				;
		}
		cb = vkl_trim_cb(t, (uint64_t)(uintptr_t)*(void *const *)args);
		if (cb && cls == VKL_TC_CB_BEGIN && vkl_trim_cb_begin(cb, args)) {
			/* kept or not changed: every thread's cache looks again */
			uint64_t gen = atomic_fetch_add_explicit(&vkl_trim_g.cb_gen, 1,
			                                         memory_order_acq_rel) + 1;
			cb = vkl_trim_cb_miss(t, cb->handle, gen);
		}
		if (cb) {
			if (cls == VKL_TC_CB_RESET)
				vkl_trim_cb_sent(cb);
			if (cls != VKL_TC_CB_CMD)
				vkl_trim_cb_clear(cb);
			if (cls != VKL_TC_CB_RESET) {
				if (!cb->unkept)
					vkl_trim_cb_append(cb, cmd, args, template_len, p, len);
				vkl_trim_cb_note(cb, cmd, args);
				if (VKL_TRIM_QUERY_CMD(cmd))
					vkl_trim_cb_note_query(cb, cmd, args);
			}
		}
		vkl_trim_leave(t);
		break;
	}
	default:
		if (!p) {
			t->enc.len = 0;
			t->enc.template_data_len = template_len;
			if (sbt_vk_encode(&t->enc, (enum sbt_vk_cmd)cmd, args) != SBT_VK_OK)
				break;
			p = t->enc.data;
			len = t->enc.len;
		}
		r = vkl_trim_rec_new(cmd, p, len);
		if (!r)
			break;
		if (cls == VKL_TC_CREATE) {
			t->pending = r; /* adopted by vkl_objects_add, right after */
			t->pending_cmd = cmd;
			t->pending_args = args;
			break;
		}
		if (cls == VKL_TC_PHYS_QUERY)
			vkl_trim_keep(VK_OBJECT_TYPE_PHYSICAL_DEVICE,
			              (uint64_t)(uintptr_t)*(void *const *)args, r, 1);
		else
			vkl_trim_state(cmd, args, r);
		vkl_trim_rec_release(r);
		break;
	}
	if (cls < VKL_TC_CB_BEGIN || cls > VKL_TC_CB_RESET)
		vkl_trim_sync(cmd, args);
	return seq;
}

void vkl_trim_emit_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
                        size_t array_len, size_t ptr_off)
{
	vkl_trim_tls *t = &vkl_trim_t;
	uint64_t seq = 0;
	vkl_trim_obj *cb;
	__asm__("" : "+r"(t)); /* one thread-local lookup (see vkl_trim_emit) */
	if (__builtin_expect(!atomic_load_explicit(&vkl_trim_g.ready, memory_order_acquire), 0))
		pthread_once(&vkl_trim_once, vkl_trim_init);
again:
	/* Before the first window opens, and once one closed (recorded cleared
	 * again, vkl_trim_reopen_check), nothing records.  A thread that
	 * misses the snapshot's store of vkl_trim_g.recorded either enters
	 * before the snapshot's wait (its call is kept and in the snapshot)
	 * or fails to enter, and then sees it on the way round. */
	if (atomic_load_explicit(&vkl_trim_g.recorded, memory_order_relaxed) && cap_active())
		seq = vkl_record_flat(cmd, args, args_len, array, array_len, ptr_off);
	if (__builtin_expect(!vkl_trim_enter(t), 0)) {
		if (!seq)
			goto again; /* not recorded: the window may be open now */
		while (!vkl_trim_enter(t))
			;
	}
	cb = vkl_trim_cb(t, (uint64_t)(uintptr_t)*(void *const *)args);
	if (cb) {
		if (!cb->unkept)
			vkl_trim_cb_put_flat(cb, cmd, args, args_len, array, array_len);
		if (VKL_TRIM_QUERY_CMD(cmd))
			vkl_trim_cb_note_query(cb, cmd, args);
	}
	vkl_trim_leave(t);
}

/* ---- the snapshot ------------------------------------------------------------------ */

/* One call to write: a kept record, or a command buffer's calls. */
typedef struct vkl_snap_item {
	/* order * 4; for a command buffer's calls, the order before its last
	 * call * 4 + 1 (a secondary) or + 2 (a primary): a secondary's calls
	 * end before a primary executes them, so with no kept record between
	 * the two (a primary begun first) the secondary is written first */
	uint64_t key;
	vkl_trim_rec *rec;
	uint8_t *cmds; /* owned copy */
	size_t cmds_len;
	uint64_t cb; /* whose calls they are */
	/* the order before their last call (key may move them later:
	 * vkl_snap_cb_keys), their recording's number, the secondaries they
	 * execute (owned copy), one of those not noted; cmds holds no flat
	 * call any more (vkl_snap_cb_encode); written whole by the snapshot */
	uint64_t order, rec_id;
	vkl_trim_exec *execs;
	uint32_t nexecs;
	uint8_t execs_lost, encoded, written;
	/* the object that keeps rec, and whether rec is its creation */
	VkObjectType otype;
	uint64_t obj;
	int creates;
} vkl_snap_item;

/* A range of an image's subresources in one layout (counts resolved,
 * or VK_REMAINING_* for the whole image). */
typedef struct vkl_snap_seg {
	VkImageSubresourceRange range;
	VkImageLayout layout;
} vkl_snap_seg;

/* An image: its layouts (from its creation layout to its current ones, one
 * per segment), and for one bound to memory that is read through staging
 * copies, its contents, copied out per segment, aspect and mip level
 * (vkl_snap_regions). */
typedef struct vkl_snap_image {
	uint64_t image, device, memory;
	uint64_t plane_memory[3]; /* a disjoint image's, per plane (0: not bound apart) */
	int tried;                /* its contents were read, or reading them failed */
	VkFormat format;
	VkImageLayout from, to; /* to: every subresource's, when sub is NULL */
	VkImageLayout *sub;     /* owned: per subresource, as vkl_trim_obj's */
	vkl_snap_seg *segs;     /* owned: the current layouts, vkl_snap_segments */
	uint32_t nsegs;
	VkBufferImageCopy *regions; /* owned: the copies of its contents */
	uint32_t nregions;
	VkImageUsageFlags usage, app_usage; /* the driver's; the application's */
	VkImageType type;
	VkExtent3D extent;
	uint32_t mips, layers;
	VkSampleCountFlagBits samples;
	VkImageCreateFlags flags;
	uint64_t swapchain;         /* a swapchain's image: the swapchain (0: not one) */
	uint32_t sc_index;          /* and its index there */
	uint8_t *bytes;             /* owned; NULL: not read */
	VkDeviceSize size;
	uint32_t staging_type;      /* host-visible type for the replay's staging memory */
	VkDeviceSize staging_size;
} vkl_snap_image;

typedef struct vkl_snap_sync {
	VkObjectType type;
	uint64_t handle, device;
	int signal; /* fences: 1 signal, 0 reset */
	uint64_t acquired;
	int timeline;   /* a timeline semaphore: signalled from the host to value */
	uint64_t value;
} vkl_snap_sync;

/* A query pool holding results written before the window.  Queries
 * other than timestamps: their results as the driver gives them when the
 * window opens, written as vulkan.tsQueryResults (results NULL: the type's
 * results cannot be read that way, or reading them failed). */
typedef struct vkl_snap_query {
	uint64_t pool, device;
	VkQueryType type;
	VkQueryPipelineStatisticFlags stats;
	uint32_t count, nwritten;
	uint8_t *written; /* owned: per query, 1 when it holds a result */
	uint32_t stride;  /* bytes per query in results */
	uint8_t *results; /* owned: count * stride bytes; those of written queries read */
} vkl_snap_query;

typedef struct vkl_snap_queue {
	uint64_t queue, device;
	uint32_t family;
} vkl_snap_queue;

/* A resource bound to memory: whether the snapshot needs that memory's
 * contents for it. */
typedef struct vkl_snap_bound {
	uint64_t memory;
	VkFormat format; /* images only attachments use */
	int needed;      /* buffers, images something else may read */
	int image;
} vkl_snap_bound;

/* A memory object read through a staging copy, restored the same way. */
typedef struct vkl_snap_staged {
	uint64_t memory, device;
	VkDeviceSize size;
	uint32_t staging_type;      /* host-visible type for the replay's staging memory */
	VkDeviceSize staging_size;
	uint8_t *bytes;             /* owned */
} vkl_snap_staged;

typedef struct vkl_snap {
	vkl_snap_item *items;
	size_t nitems, capitems;
	vkl_snap_image *images;
	size_t nimages, capimages;
	vkl_snap_sync *syncs;
	size_t nsyncs, capsyncs;
	vkl_snap_queue *queues;
	size_t nqueues, capqueues;
	uint64_t *memories; /* pairs: memory, device */
	size_t nmemories, capmemories;
	uint64_t *devices;
	size_t ndevices, capdevices;
	vkl_snap_bound *bound;
	size_t nbound, capbound;
	VkFormat *loaded; /* formats of attachments some live render pass loads */
	size_t nloaded, caploaded;
	vkl_snap_staged *staged;
	size_t nstaged, capstaged;
	vkl_snap_query *queries;
	size_t nqueries, capqueries;
	int nomem;
} vkl_snap;

/* Usage through which only a render pass reaches an image's contents. */
#define VKL_TRIM_ATTACHMENT_USAGE                                                   \
	(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | \
	 VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT)

/* Grow an array of elem-size elements by one; NULL when out of memory. */
static void *vkl_snap_push(vkl_snap *s, void **v, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *x = realloc(*v, c * elem);
		if (!x) {
			s->nomem = 1;
			return NULL;
		}
		*v = x;
		*cap = c;
	}
	return (uint8_t *)*v + (*n)++ * elem;
}

#define VKL_SNAP_PUSH(s, arr, n, cap) \
	vkl_snap_push((s), (void **)&(s)->arr, &(s)->n, &(s)->cap, sizeof(*(s)->arr))

static void vkl_snap_devices(vkl_object *o, void *ctx)
{
	vkl_snap *s = ctx;
	uint64_t *d;
	if (o->type == VK_OBJECT_TYPE_DEVICE && (d = VKL_SNAP_PUSH(s, devices, ndevices, capdevices)))
		*d = o->handle;
}

/* A timeline semaphore's counter, from the driver. */
static int vkl_snap_timeline_value(const vkl_trim_obj *o, uint64_t *value_out)
{
	vkl_device *d = vkl_device_get((const void *)(uintptr_t)o->device);
	VkDevice dev = (VkDevice)(uintptr_t)o->device;
	VkSemaphore sem = (VkSemaphore)(uintptr_t)o->handle;
	if (!d)
		return -1;
	if (d->table.GetSemaphoreCounterValue)
		return d->table.GetSemaphoreCounterValue(dev, sem, value_out) == VK_SUCCESS ? 0 : -1;
	if (d->table.GetSemaphoreCounterValueKHR)
		return d->table.GetSemaphoreCounterValueKHR(dev, sem, value_out) == VK_SUCCESS ? 0 : -1;
	return -1;
}

/* Memory k of a resource: 0 the one it was bound to, 1..3 those of a
 * disjoint image's planes. */
static uint64_t vkl_snap_obj_memory(const vkl_trim_obj *o, uint32_t k)
{
	return k ? o->plane_memory[k - 1] : o->memory;
}

static void vkl_snap_collect(vkl_object *obj, void *ctx)
{
	vkl_snap *s = ctx;
	vkl_trim_obj *o = obj->trim;
	uint32_t i, mi, k;
	if (!o)
		return;
	for (i = 0; i < o->nrecs; i++) {
		vkl_snap_item *it = VKL_SNAP_PUSH(s, items, nitems, capitems);
		if (!it)
			return;
		it->key = o->recs[i].r->order * 4;
		it->rec = vkl_trim_rec_ref(o->recs[i].r);
		it->cmds = NULL;
		it->cmds_len = 0;
		it->cb = 0;
		it->execs = NULL;
		it->nexecs = 0;
		it->otype = o->type;
		it->obj = o->handle;
		it->creates = i == 0 && vkl_trim.cls[o->recs[i].r->type - SBT_VK_TYPE_BASE] ==
		                            VKL_TC_CREATE;
	}
	switch (o->type) {
	case VK_OBJECT_TYPE_COMMAND_BUFFER:
		if (o->cmds.len) {
			vkl_snap_item *it = VKL_SNAP_PUSH(s, items, nitems, capitems);
			if (!it)
				return;
			it->key = o->cmds_order * 4 + (o->secondary ? 1 : 2);
			it->rec = NULL;
			it->cb = o->handle;
			it->order = o->cmds_order;
			it->rec_id = o->rec_id;
			it->execs_lost = o->execs_lost;
			it->encoded = 0;
			it->written = 0;
			it->nexecs = 0;
			it->execs = o->nexecs ? malloc(o->nexecs * sizeof(*it->execs)) : NULL;
			if (it->execs) {
				memcpy(it->execs, o->execs, o->nexecs * sizeof(*it->execs));
				it->nexecs = o->nexecs;
			} else if (o->nexecs) {
				it->execs_lost = 1;
				s->nomem = 1;
			}
			it->otype = o->type;
			it->obj = o->handle;
			it->creates = 0;
			it->cmds = malloc(o->cmds.len);
			it->cmds_len = it->cmds ? o->cmds.len : 0;
			if (it->cmds)
				memcpy(it->cmds, o->cmds.data, o->cmds.len);
			else
				s->nomem = 1;
		}
		break;
	case VK_OBJECT_TYPE_BUFFER:
	case VK_OBJECT_TYPE_IMAGE:
		/* its memory, or each memory a plane of a disjoint image is in */
		for (mi = 0; mi < 4; mi++) {
			uint64_t mem = vkl_snap_obj_memory(o, mi);
			vkl_snap_bound *b;
			for (k = 0; mem && k < mi; k++)
				if (vkl_snap_obj_memory(o, k) == mem)
					mem = 0; /* named before */
			if (!mem)
				continue;
			b = VKL_SNAP_PUSH(s, bound, nbound, capbound);
			if (b) {
				b->memory = mem;
				b->format = o->format;
				b->needed = o->type == VK_OBJECT_TYPE_BUFFER ||
				            (o->app_usage & ~(VkImageUsageFlags)VKL_TRIM_ATTACHMENT_USAGE) != 0;
				b->image = o->type == VK_OBJECT_TYPE_IMAGE;
			}
		}
		if (o->type == VK_OBJECT_TYPE_IMAGE && (o->memory || vkl_trim_image_moved(o))) {
			vkl_snap_image *im = VKL_SNAP_PUSH(s, images, nimages, capimages);
			if (im) {
				memset(im, 0, sizeof(*im));
				im->image = o->handle;
				im->device = o->device;
				im->memory = o->memory;
				memcpy(im->plane_memory, o->plane_memory, sizeof(im->plane_memory));
				im->format = o->format;
				im->from = o->initial;
				im->to = o->layout;
				if (o->sub) {
					VkImageAspectFlags aspects[3];
					size_t n = (size_t)vkl_trim_image_slots(o->format, aspects) *
					           (o->mips ? o->mips : 1) * (o->layers ? o->layers : 1);
					im->sub = malloc(n * sizeof(*im->sub));
					if (im->sub)
						memcpy(im->sub, o->sub, n * sizeof(*im->sub));
					else
						s->nomem = 1;
				}
				im->usage = o->usage;
				im->app_usage = o->app_usage;
				im->type = o->itype;
				im->extent = o->extent;
				im->mips = o->mips;
				im->layers = o->layers;
				im->samples = o->samples;
				im->flags = o->iflags;
				if (o->sc_image) {
					im->swapchain = o->parent;
					im->sc_index = o->sc_index;
				}
			}
		}
		break;
	case VK_OBJECT_TYPE_FENCE:
	case VK_OBJECT_TYPE_SEMAPHORE:
	case VK_OBJECT_TYPE_SWAPCHAIN_KHR: {
		vkl_snap_sync y = { o->type, o->handle, o->device, o->signaled, o->acquired, 0, 0 };
		vkl_snap_sync *p;
		if (o->type == VK_OBJECT_TYPE_FENCE && o->signaled == o->created_signaled)
			break;
		if (o->type == VK_OBJECT_TYPE_SEMAPHORE && !o->binary) {
			/* The counter as the window opens; the replay's starts at the
			 * initial value and is signalled up to it. */
			if (vkl_snap_timeline_value(o, &y.value) != 0 || y.value <= o->initial_value)
				break;
			y.timeline = 1;
		} else if (o->type == VK_OBJECT_TYPE_SEMAPHORE && !o->signaled) {
			break;
		}
		if (o->type == VK_OBJECT_TYPE_SWAPCHAIN_KHR && !o->acquired)
			break;
		if ((p = VKL_SNAP_PUSH(s, syncs, nsyncs, capsyncs)))
			*p = y;
		break;
	}
	case VK_OBJECT_TYPE_RENDER_PASS:
		for (i = 0; i < o->nfinals; i++) {
			VkFormat *f;
			if (o->loads[i] && (f = VKL_SNAP_PUSH(s, loaded, nloaded, caploaded)))
				*f = o->formats[i];
		}
		break;
	case VK_OBJECT_TYPE_QUERY_POOL: {
		uint32_t n = 0;
		vkl_snap_query *q;
		for (i = 0; i < o->qcount; i++)
			n += o->qwritten[i];
		if (!n || !(q = VKL_SNAP_PUSH(s, queries, nqueries, capqueries)))
			break;
		q->pool = o->handle;
		q->device = o->device;
		q->type = o->qtype;
		q->stats = o->qstats;
		q->count = o->qcount;
		q->stride = 0;
		q->results = NULL; /* read once the collection is done */
		q->nwritten = n;
		q->written = malloc(o->qcount);
		if (q->written)
			memcpy(q->written, o->qwritten, o->qcount);
		else
			s->nomem = 1;
		break;
	}
	case VK_OBJECT_TYPE_QUEUE: {
		vkl_snap_queue *q = VKL_SNAP_PUSH(s, queues, nqueues, capqueues);
		if (q) {
			q->queue = o->handle;
			q->device = o->device;
			q->family = o->family;
		}
		break;
	}
	case VK_OBJECT_TYPE_DEVICE_MEMORY: {
		uint64_t *m = VKL_SNAP_PUSH(s, memories, nmemories, capmemories);
		uint64_t *m2 = m ? VKL_SNAP_PUSH(s, memories, nmemories, capmemories) : NULL;
		if (m2) {
			s->memories[s->nmemories - 2] = o->handle;
			s->memories[s->nmemories - 1] = o->device;
		}
		break;
	}
	default:
		break;
	}
}

/* Whether the window may read the memory's contents as they are now: it
 * is bound to a buffer, to an image something other than a render pass
 * reads, to an attachment of a format some live render pass loads, or to
 * nothing the layer saw.  Attachments no render pass loads are cleared or
 * discarded before anything reads them. */
static int vkl_snap_memory_needed(const vkl_snap *s, uint64_t mem)
{
	size_t i, j;
	int bound = 0;
	for (i = 0; i < s->nbound; i++) {
		const vkl_snap_bound *b = &s->bound[i];
		if (b->memory != mem)
			continue;
		bound = 1;
		if (b->needed)
			return 1;
		for (j = 0; j < s->nloaded; j++)
			if (s->loaded[j] == b->format)
				return 1;
	}
	return !bound;
}

static int vkl_snap_item_cmp(const void *a, const void *b)
{
	const vkl_snap_item *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* ---- what may be written: every handle a kept call names must exist ---- */

/* A kept call can name an object destroyed since: a descriptor update of
 * a buffer the set no longer holds, a command buffer recorded before its
 * framebuffer was destroyed (the application must record it again before
 * submitting it).  Such calls are left out: their replay would stop on the
 * unknown handle.  Each call is decoded, its input handles looked up in
 * the live-object table; objects recreated only for others count. */
typedef struct vkl_snap_check {
	sbt_vk_arena *arena;
	sbt_vk_enc enc;  /* flat calls encoded (inline) */
	uint8_t *flat;   /* a flat call's bytes, aligned */
	size_t flat_cap;
	const vkl_trim_rec **zombies; /* recreated for others so far */
	size_t nzombies, capzombies;
	VkObjectType bad_type;
	uint64_t bad;
	sbt_vk_arena *tmpl_arena; /* a template's creation, decoded (made on demand) */
	/* the order of the call checked: what it names was created at or
	 * before it (vkl_snap_alive; 0: not known) */
	uint64_t order;
} vkl_snap_check;

/* The types every creation of which the table holds. */
static int vkl_snap_tracked_type(VkObjectType t)
{
	switch (t) {
	case VK_OBJECT_TYPE_BUFFER:
	case VK_OBJECT_TYPE_IMAGE:
	case VK_OBJECT_TYPE_IMAGE_VIEW:
	case VK_OBJECT_TYPE_BUFFER_VIEW:
	case VK_OBJECT_TYPE_SAMPLER:
	case VK_OBJECT_TYPE_DEVICE_MEMORY:
	case VK_OBJECT_TYPE_DESCRIPTOR_SET:
	case VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT:
	case VK_OBJECT_TYPE_DESCRIPTOR_POOL:
	case VK_OBJECT_TYPE_PIPELINE:
	case VK_OBJECT_TYPE_PIPELINE_LAYOUT:
	case VK_OBJECT_TYPE_RENDER_PASS:
	case VK_OBJECT_TYPE_FRAMEBUFFER:
	case VK_OBJECT_TYPE_SHADER_MODULE:
	case VK_OBJECT_TYPE_COMMAND_BUFFER:
	case VK_OBJECT_TYPE_COMMAND_POOL:
	case VK_OBJECT_TYPE_EVENT:
	case VK_OBJECT_TYPE_QUERY_POOL:
	case VK_OBJECT_TYPE_FENCE:
	case VK_OBJECT_TYPE_SEMAPHORE:
	case VK_OBJECT_TYPE_SWAPCHAIN_KHR:
	case VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE:
	case VK_OBJECT_TYPE_PIPELINE_CACHE:
		return 1;
	default:
		return 0;
	}
}

/* Whether object h, as the call checked (ck->order) named it, is live: a
 * live object with that handle created at or before the call.  One created
 * after it is another object that got a destroyed one's handle: lavapipe's
 * handles and the NVIDIA driver's are addresses, which a destroy frees for
 * the next creation (the validation layer's are numbers it never reuses,
 * so the tests under it never saw this; vk_trim_churn --template without
 * it wrote an update naming a destroyed buffer, whose handle a later
 * buffer had, and the replay stopped at it). */
static int vkl_snap_alive(const vkl_snap_check *ck, VkObjectType type, uint64_t h)
{
	void *lk;
	vkl_object *o = vkl_objects_lock(type, h, &lk);
	int alive = o != NULL;
	if (o && o->trim && o->trim->nrecs && ck->order && o->trim->recs[0].r->order > ck->order)
		alive = 0;
	vkl_objects_unlock(lk);
	return alive;
}

static sbt_vk_status vkl_snap_map(void *ctx, VkObjectType type, uint64_t h, uint64_t *live_out)
{
	vkl_snap_check *ck = ctx;
	size_t i;
	*live_out = h;
	if (!h || !vkl_snap_tracked_type(type) || vkl_snap_alive(ck, type, h))
		return SBT_VK_OK;
	for (i = 0; i < ck->nzombies; i++)
		if (ck->zombies[i]->handle == h && ck->zombies[i]->otype == type)
			return SBT_VK_OK;
	ck->bad_type = type;
	ck->bad = h;
	return SBT_VK_ERR_HANDLE;
}

/* The creation of descriptor update template t, kept by the live template
 * or recreated for others, decoded into ck->tmpl_arena; NULL when neither
 * is known.  A live template created after the call checked (ck->order)
 * is another one with the same handle (vkl_snap_alive): not its. */
static const VkDescriptorUpdateTemplateCreateInfo *vkl_snap_template(vkl_snap_check *ck,
                                                                     uint64_t t)
{
	const uint32_t c1 = SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCreateDescriptorUpdateTemplate);
	const uint32_t c2 = SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR);
	sbt_vk_args_vkCreateDescriptorUpdateTemplate *a;
	vkl_trim_rec *r = NULL;
	vkl_object *o;
	void *lk;
	size_t i;
	sbt_vk_status st;
	o = vkl_objects_lock(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, t, &lk);
	if (o && o->trim && o->trim->nrecs &&
	    (o->trim->recs[0].r->type == c1 || o->trim->recs[0].r->type == c2) &&
	    (!ck->order || o->trim->recs[0].r->order <= ck->order))
		r = vkl_trim_rec_ref(o->trim->recs[0].r);
	vkl_objects_unlock(lk);
	for (i = 0; !r && i < ck->nzombies; i++)
		if (ck->zombies[i]->handle == t &&
		    ck->zombies[i]->otype == VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE)
			r = vkl_trim_rec_ref((vkl_trim_rec *)ck->zombies[i]);
	if (!r)
		return NULL;
	if (!ck->tmpl_arena && sbt_vk_arena_create(0, &ck->tmpl_arena) != SBT_VK_OK)
		ck->tmpl_arena = NULL;
	a = NULL;
	if (ck->tmpl_arena) {
		sbt_vk_arena_reset(ck->tmpl_arena);
		a = sbt_vk_arena_alloc(ck->tmpl_arena, sizeof(*a));
	}
	st = a ? sbt_vk_decode((enum sbt_vk_cmd)(r->type - SBT_VK_TYPE_BASE), r->data, r->len,
	                       ck->tmpl_arena, a, NULL)
	       : SBT_VK_ERR_NOMEM;
	vkl_trim_rec_release(r);
	return st == SBT_VK_OK ? a->pCreateInfo : NULL;
}

/* The handles a template update's data holds, read through the
 * template's entries: each descriptor's image view, buffer, buffer view
 * or acceleration structure must exist (the replay requires them, as it
 * does not samplers, which an immutable sampler makes ignored).  1 when
 * none is destroyed, or the template is not known. */
static int vkl_snap_template_valid(vkl_snap_check *ck, VkDescriptorUpdateTemplate tmpl,
                                   const void *data)
{
	const VkDescriptorUpdateTemplateCreateInfo *ci;
	uint32_t e, i;
	uint64_t live;
	if (!data || !(ci = vkl_snap_template(ck, (uint64_t)(uintptr_t)tmpl)))
		return 1;
	for (e = 0; e < ci->descriptorUpdateEntryCount; e++) {
		const VkDescriptorUpdateTemplateEntry *en = &ci->pDescriptorUpdateEntries[e];
		VkObjectType type;
		size_t off = 0;
		switch (en->descriptorType) {
		case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
		case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
		case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
		case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
			type = VK_OBJECT_TYPE_IMAGE_VIEW;
			off = offsetof(VkDescriptorImageInfo, imageView);
			break;
		case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
		case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
		case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
		case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
			type = VK_OBJECT_TYPE_BUFFER;
			break;
		case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
		case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
			type = VK_OBJECT_TYPE_BUFFER_VIEW;
			break;
		case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR:
			type = VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR;
			break;
		default:
			continue;
		}
		for (i = 0; i < en->descriptorCount; i++) {
			uint64_t h;
			memcpy(&h, (const uint8_t *)data + en->offset + (size_t)i * en->stride + off,
			       sizeof(h));
			if (vkl_snap_map(ck, type, h, &live) != SBT_VK_OK)
				return 0;
		}
	}
	return 1;
}

/* 1 when the call names no destroyed object (or cannot be checked). */
static int vkl_snap_valid(vkl_snap_check *ck, uint32_t type, const uint8_t *p, size_t len)
{
	sbt_vk_decode_hooks hooks = { ck, vkl_snap_map, NULL };
	enum sbt_vk_cmd cmd;
	sbt_vk_status st;
	void *args;
	if (!ck->arena || type < SBT_VK_TYPE_BASE || type - SBT_VK_TYPE_BASE >= SBT_VK_CMD_COUNT)
		return 1;
	cmd = (enum sbt_vk_cmd)(type - SBT_VK_TYPE_BASE);
	sbt_vk_arena_reset(ck->arena);
	args = sbt_vk_arena_alloc(ck->arena, sbt_vk_args_size(cmd));
	if (!args)
		return 1;
	st = sbt_vk_decode(cmd, p, len, ck->arena, args, &hooks);
	if (st != SBT_VK_OK)
		return st != SBT_VK_ERR_HANDLE;
	switch (cmd) {
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR: {
		const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *a = args;
		return vkl_snap_template_valid(ck, a->descriptorUpdateTemplate, a->pData);
	}
	case SBT_VK_CMD_vkCmdPushDescriptorSetWithTemplateKHR: {
		const sbt_vk_args_vkCmdPushDescriptorSetWithTemplateKHR *a = args;
		return vkl_snap_template_valid(ck, a->descriptorUpdateTemplate, a->pData);
	}
	default:
		return 1;
	}
}

/* A swapchain created with an oldSwapchain destroyed since: recreated
 * without it (a swapchain may always be created without one; the retired
 * swapchain no longer exists to be named).  *p and *len are replaced by
 * the re-encoded call (in ck->enc, valid until its next use). */
static void vkl_snap_swapchain_unretire(vkl_snap_check *ck, const uint8_t **p, size_t *len)
{
	sbt_vk_args_vkCreateSwapchainKHR *a;
	VkSwapchainCreateInfoKHR *ci;
	uint64_t old;
	if (!ck->arena)
		return;
	sbt_vk_arena_reset(ck->arena);
	a = sbt_vk_arena_alloc(ck->arena, sizeof(*a));
	if (!a || sbt_vk_decode(SBT_VK_CMD_vkCreateSwapchainKHR, *p, *len, ck->arena, a, NULL) !=
	                  SBT_VK_OK ||
	    !a->pCreateInfo)
		return;
	ci = (VkSwapchainCreateInfoKHR *)a->pCreateInfo; /* the arena's copy */
	old = (uint64_t)(uintptr_t)ci->oldSwapchain;
	if (!old || vkl_snap_alive(ck, VK_OBJECT_TYPE_SWAPCHAIN_KHR, old))
		return;
	ci->oldSwapchain = VK_NULL_HANDLE;
	ck->enc.len = 0;
	ck->enc.template_data_len = 0;
	if (sbt_vk_encode(&ck->enc, SBT_VK_CMD_vkCreateSwapchainKHR, a) != SBT_VK_OK)
		return;
	*p = ck->enc.data;
	*len = ck->enc.len;
	CAP_INFO("Vulkan snapshot: VkSwapchainKHR 0x%llx is created without its oldSwapchain "
	         "0x%llx, destroyed since", (unsigned long long)(uintptr_t)*a->pSwapchain,
	         (unsigned long long)old);
}

/* A pipeline created through a pipeline cache destroyed since (libplacebo
 * makes a cache for each pipeline, reads its data and destroys it): the
 * creation is written without it (a pipeline may always be created
 * without one, and the cache changes nothing of the pipeline); before,
 * the replay of mpv's window (--vo=gpu) stopped at the unknown cache.
 * *p and *len are replaced by the re-encoded call (in ck->enc, valid until
 * its next use).  ck->order is the call's. */
static void vkl_snap_pipeline_uncache(vkl_snap_check *ck, uint32_t type, const uint8_t **p,
                                      size_t *len)
{
	enum sbt_vk_cmd cmd = (enum sbt_vk_cmd)(type - SBT_VK_TYPE_BASE);
	VkPipelineCache *cache;
	void *a;
	uint64_t c;
	if (!ck->arena || (cmd != SBT_VK_CMD_vkCreateGraphicsPipelines &&
	                   cmd != SBT_VK_CMD_vkCreateComputePipelines))
		return;
	sbt_vk_arena_reset(ck->arena);
	a = sbt_vk_arena_alloc(ck->arena, sbt_vk_args_size(cmd));
	if (!a || sbt_vk_decode(cmd, *p, *len, ck->arena, a, NULL) != SBT_VK_OK)
		return;
	cache = cmd == SBT_VK_CMD_vkCreateGraphicsPipelines
		        ? &((sbt_vk_args_vkCreateGraphicsPipelines *)a)->pipelineCache
		        : &((sbt_vk_args_vkCreateComputePipelines *)a)->pipelineCache;
	c = (uint64_t)(uintptr_t)*cache;
	if (!c || vkl_snap_alive(ck, VK_OBJECT_TYPE_PIPELINE_CACHE, c))
		return;
	*cache = VK_NULL_HANDLE;
	ck->enc.len = 0;
	ck->enc.template_data_len = 0;
	if (sbt_vk_encode(&ck->enc, cmd, a) != SBT_VK_OK)
		return;
	*p = ck->enc.data;
	*len = ck->enc.len;
	CAP_INFO("Vulkan snapshot: a %s is written without its pipelineCache 0x%llx, destroyed "
	         "since", sbt_vk_cmd_name(cmd), (unsigned long long)c);
}

static const char *vkl_snap_type_name(uint32_t type)
{
	const char *n = sbt_vk_cmd_name((enum sbt_vk_cmd)(type - SBT_VK_TYPE_BASE));
	return n ? n : "?";
}

/* Encode the flat calls of a command buffer's entries in place (a new
 * buffer), once.  0 when out of memory or a call does not encode. */
static int vkl_snap_cb_encode(vkl_snap_check *ck, vkl_snap_item *it)
{
	sbt_vk_enc out;
	size_t at, step;
	uint32_t hdr[2];
	if (it->encoded)
		return 1;
	sbt_vk_enc_init(&out);
	for (at = 0; at + 8 <= it->cmds_len; at += 8 + step) {
		const uint8_t *p;
		size_t len, alen, off;
		const void *arr;
		memcpy(hdr, it->cmds + at, 8);
		step = hdr[1];
		if (at + 8 + step > it->cmds_len)
			goto out_fail;
		p = it->cmds + at + 8;
		len = step;
		if (hdr[0] & VKL_TRIM_FLAT) {
			enum sbt_vk_cmd cmd = (enum sbt_vk_cmd)((hdr[0] & ~VKL_TRIM_FLAT) - SBT_VK_TYPE_BASE);
			size_t n = sbt_vk_args_size(cmd);
			if (ck->flat_cap < len) {
				uint8_t *f = realloc(ck->flat, len);
				if (!f)
					goto out_fail;
				ck->flat = f;
				ck->flat_cap = len;
			}
			memcpy(ck->flat, p, len);
			if (sbt_vk_flat(cmd, ck->flat, &arr, &alen, &off) != n || n + alen != len)
				goto out_fail;
			if (alen) {
				void *a = ck->flat + n;
				memcpy(ck->flat + off, &a, sizeof(a));
			}
			ck->enc.len = 0;
			ck->enc.template_data_len = 0;
			if (sbt_vk_encode(&ck->enc, cmd, ck->flat) != SBT_VK_OK)
				goto out_fail;
			p = ck->enc.data;
			len = ck->enc.len;
		}
		if (!vkl_trim_cb_room(&out, 8 + len))
			goto out_fail;
		hdr[0] &= ~VKL_TRIM_FLAT;
		hdr[1] = (uint32_t)len;
		memcpy(out.data + out.len, hdr, 8);
		memcpy(out.data + out.len + 8, p, len);
		out.len += 8 + len;
	}
	free(it->cmds);
	it->cmds = out.data;
	it->cmds_len = out.len;
	it->encoded = 1;
	return 1;

out_fail:
	sbt_vk_enc_free(&out);
	return 0;
}

/* Command buffers' calls by handle (vkl_snap_execs_valid). */
static int vkl_snap_cb_cmp(const void *a, const void *b)
{
	const vkl_snap_item *x = *(vkl_snap_item *const *)a, *y = *(vkl_snap_item *const *)b;
	return x->cb < y->cb ? -1 : x->cb > y->cb;
}

/* The command buffers' items, sorted by handle (*n of them; NULL when none,
 * or out of memory with *n set). */
static vkl_snap_item **vkl_snap_cb_index(vkl_snap *s, size_t *n)
{
	vkl_snap_item **cbs;
	size_t i, k = 0;
	*n = 0;
	for (i = 0; i < s->nitems; i++)
		*n += !s->items[i].rec;
	cbs = *n ? malloc(*n * sizeof(*cbs)) : NULL;
	for (i = 0; cbs && i < s->nitems; i++)
		if (!s->items[i].rec)
			cbs[k++] = &s->items[i];
	if (cbs)
		qsort(cbs, *n, sizeof(*cbs), vkl_snap_cb_cmp);
	return cbs;
}

/* The latest kept call of descriptor set `set` (its allocation or an
 * update): 0 when none. */
static uint64_t vkl_snap_set_order(uint64_t set)
{
	void *lk;
	uint64_t m = 0;
	uint32_t i;
	vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, set, &lk);
	for (i = 0; o && o->trim && i < o->trim->nrecs; i++)
		if (o->trim->recs[i].r->order > m)
			m = o->trim->recs[i].r->order;
	vkl_objects_unlock(lk);
	return m;
}

/* A command buffer's calls are written after the kept calls of the
 * descriptor sets they bind.  A set updated after a recording bound it
 * keeps only the later update (vkl_trim_update_sig), so written at its
 * place the recording would bind a set the replay has not updated yet:
 * the validation layer reports VUID-vkCmdDispatch-None-02699 ("never been
 * updated") at the replay's record (vk_trim_churn trimmed at a round
 * whose set was updated after the submit before recorded it).  Such a
 * recording is invalid for the application until recorded again, unless
 * the set's bindings are update-after-bind; either way recording it after
 * the update is what a valid resubmission would use.  And a primary's
 * calls after those of the secondaries they execute (moved so). */
static void vkl_snap_cb_keys(vkl_snap_check *ck, vkl_snap *s)
{
	const uint32_t bind = SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCmdBindDescriptorSets);
	vkl_snap_item **cbs;
	size_t i, ncbs, at;
	uint32_t hdr[2], j, k;
	if (!ck->arena)
		return;
	for (i = 0; i < s->nitems; i++) {
		vkl_snap_item *it = &s->items[i];
		uint64_t m = 0;
		if (it->rec || !vkl_snap_cb_encode(ck, it))
			continue;
		for (at = 0; at + 8 <= it->cmds_len; at += 8 + (size_t)hdr[1]) {
			sbt_vk_args_vkCmdBindDescriptorSets *a;
			memcpy(hdr, it->cmds + at, 8);
			if (at + 8 + hdr[1] > it->cmds_len)
				break;
			if (hdr[0] != bind)
				continue;
			sbt_vk_arena_reset(ck->arena);
			a = sbt_vk_arena_alloc(ck->arena, sizeof(*a));
			if (!a || sbt_vk_decode(SBT_VK_CMD_vkCmdBindDescriptorSets, it->cmds + at + 8,
			                        hdr[1], ck->arena, a, NULL) != SBT_VK_OK)
				continue;
			for (j = 0; j < a->descriptorSetCount; j++) {
				uint64_t o = vkl_snap_set_order((uint64_t)(uintptr_t)a->pDescriptorSets[j]);
				if (o > m)
					m = o;
			}
		}
		if (m * 4 > it->key)
			it->key = m * 4 + it->key % 4;
	}
	cbs = vkl_snap_cb_index(s, &ncbs);
	for (i = 0; cbs && i < ncbs; i++)
		for (k = 0; k < cbs[i]->nexecs; k++) {
			vkl_snap_item key = { .cb = cbs[i]->execs[k].cb };
			const vkl_snap_item *kp = &key;
			vkl_snap_item *const *f = bsearch(&kp, cbs, ncbs, sizeof(*cbs), vkl_snap_cb_cmp);
			if (f && (*f)->key / 4 * 4 + 2 > cbs[i]->key)
				cbs[i]->key = (*f)->key / 4 * 4 + 2;
		}
	free(cbs);
}

/* A primary's calls may be written only when each secondary they execute
 * still holds the recording they executed, written whole before them (the
 * items' order).  Otherwise the specification makes the primary invalid:
 * the application records it again before it submits it, and the replay
 * of its calls would stop at a secondary with nothing recorded, or execute
 * another recording.  cbs: the command buffers' items, sorted by handle. */
static int vkl_snap_execs_valid(vkl_snap_item *const *cbs, size_t ncbs, const vkl_snap_item *it)
{
	uint32_t i;
	if (it->execs_lost) {
		CAP_INFO("Vulkan snapshot: VkCommandBuffer 0x%llx is left out: a secondary command "
		         "buffer it executes was not noted (out of memory)", (unsigned long long)it->cb);
		return 0;
	}
	for (i = 0; i < it->nexecs; i++) {
		vkl_snap_item key = { .cb = it->execs[i].cb };
		const vkl_snap_item *kp = &key;
		vkl_snap_item *const *f = bsearch(&kp, cbs, ncbs, sizeof(*cbs), vkl_snap_cb_cmp);
		const char *why = NULL;
		if (!f || (*f)->rec_id != it->execs[i].rec_id)
			why = "reset, recorded again or freed since";
		else if (!(*f)->written)
			why = "itself left out";
		if (why) {
			CAP_INFO("Vulkan snapshot: VkCommandBuffer 0x%llx is left out: it executes "
			         "VkCommandBuffer 0x%llx, %s (the application records it again before "
			         "submitting it)", (unsigned long long)it->cb,
			         (unsigned long long)it->execs[i].cb, why);
			return 0;
		}
	}
	return 1;
}

/* Record a command buffer's calls when all of them may be. */
static size_t vkl_snap_write_cb(vkl_snap_check *ck, vkl_snap_item *it)
{
	size_t at, n = 0;
	uint32_t hdr[2];
	if (!vkl_snap_cb_encode(ck, it)) {
		CAP_ERROR("Vulkan snapshot: VkCommandBuffer 0x%llx is left out: its calls could not "
		          "be encoded", (unsigned long long)it->cb);
		return 0;
	}
	for (at = 0; at + 8 <= it->cmds_len; at += 8 + (size_t)hdr[1]) {
		memcpy(hdr, it->cmds + at, 8);
		if (at + 8 + hdr[1] > it->cmds_len)
			return 0;
		ck->order = it->order;
		if (!vkl_snap_valid(ck, hdr[0], it->cmds + at + 8, hdr[1])) {
			CAP_INFO("Vulkan snapshot: VkCommandBuffer 0x%llx is left out: its %s names "
			         "object 0x%llx (type %d), destroyed since",
			         (unsigned long long)it->cb, vkl_snap_type_name(hdr[0]),
			         (unsigned long long)ck->bad, (int)ck->bad_type);
			return 0;
		}
	}
	for (at = 0; at + 8 <= it->cmds_len; at += 8 + (size_t)hdr[1]) {
		memcpy(hdr, it->cmds + at, 8);
		cap_record(hdr[0], 0, it->cmds + at + 8, hdr[1]);
		n++;
	}
	return n;
}

/* Record a call of the snapshot's own. */
static void vkl_snap_put(uint32_t cmd, const void *args)
{
	const uint8_t *p;
	size_t len;
	int in;
	vkl_record_call(cmd, 0, args, 0, &p, &len, &in);
}

/* The aspects a barrier of the whole image names: color for a
 * multi-planar format, all its planes (the only aspect the specification
 * lets a barrier of one that is not disjoint name), else the format's. */
static VkImageAspectFlags vkl_snap_aspect(VkFormat f)
{
	const sbt_vk_format_info *fi = sbt_vk_format_info_of(f);
	if (!fi || fi->planes)
		return VK_IMAGE_ASPECT_COLOR_BIT;
	return fi->aspects;
}

/* Whether an image (image 1) or a buffer (image 0) is bound to the memory. */
static int vkl_snap_memory_holds(const vkl_snap *s, uint64_t mem, int image)
{
	size_t i;
	for (i = 0; i < s->nbound; i++)
		if (s->bound[i].memory == mem && s->bound[i].image == image)
			return 1;
	return 0;
}

/* Whether the image (a plane of it, disjoint) is bound to the memory. */
static int vkl_snap_image_in(const vkl_snap_image *im, uint64_t mem)
{
	return im->memory == mem || im->plane_memory[0] == mem || im->plane_memory[1] == mem ||
	       im->plane_memory[2] == mem;
}

/* Whether the window may read the image's contents as they are now: the
 * rule of vkl_snap_memory_needed for one image. */
static int vkl_snap_image_needed(const vkl_snap *s, const vkl_snap_image *im)
{
	size_t j;
	if (im->app_usage & ~(VkImageUsageFlags)VKL_TRIM_ATTACHMENT_USAGE)
		return 1;
	for (j = 0; j < s->nloaded; j++)
		if (s->loaded[j] == im->format)
			return 1;
	return 0;
}

/* Whether a swapchain's image is acquired and not presented as the window
 * opens. */
static int vkl_snap_held(const vkl_snap *s, const vkl_snap_image *im)
{
	size_t j;
	for (j = 0; j < s->nsyncs; j++)
		if (s->syncs[j].type == VK_OBJECT_TYPE_SWAPCHAIN_KHR &&
		    s->syncs[j].handle == im->swapchain)
			return im->sc_index < 64 && (s->syncs[j].acquired >> im->sc_index & 1);
	return 0;
}

/* The first queue of the device the layer saw; NULL if none. */
static const vkl_snap_queue *vkl_snap_queue_of(const vkl_snap *s, uint64_t dev)
{
	size_t i;
	for (i = 0; i < s->nqueues; i++)
		if (s->queues[i].device == dev)
			return &s->queues[i];
	return NULL;
}

/* The image's current layouts as segments (im->segs): the whole image
 * when its subresources share one; else per group of slots (depth and
 * stencil, or the planes, together when their layouts agree everywhere),
 * per run of layers of one layout in a mip level, runs in consecutive mip
 * levels with the same layers and layout joined.  0, or -1 when out of
 * memory. */
static int vkl_snap_segments(vkl_snap_image *im)
{
	VkImageAspectFlags aspects[3];
	uint32_t mips = im->mips ? im->mips : 1, layers = im->layers ? im->layers : 1;
	uint32_t ns, ng, g, m, l, e, k;
	size_t per = (size_t)mips * layers;
	int same = 1;
	if (!im->sub) {
		im->segs = calloc(1, sizeof(*im->segs));
		if (!im->segs)
			return -1;
		im->segs[0].range.aspectMask = vkl_snap_aspect(im->format);
		im->segs[0].range.levelCount = VK_REMAINING_MIP_LEVELS;
		im->segs[0].range.layerCount = VK_REMAINING_ARRAY_LAYERS;
		im->segs[0].layout = im->to;
		im->nsegs = 1;
		return 0;
	}
	ns = vkl_trim_image_slots(im->format, aspects);
	im->segs = malloc(ns * per * sizeof(*im->segs));
	if (!im->segs)
		return -1;
	for (g = 1; g < ns; g++)
		if (memcmp(im->sub + g * per, im->sub, per * sizeof(*im->sub)) != 0)
			same = 0;
	ng = same ? 1 : ns;
	for (g = 0; g < ng; g++) {
		const VkImageLayout *sub = im->sub + g * per;
		VkImageAspectFlags mask = same ? vkl_snap_aspect(im->format) : aspects[g];
		for (m = 0; m < mips; m++) {
			for (l = 0; l < layers; l = e) {
				VkImageLayout lay = sub[(size_t)m * layers + l];
				vkl_snap_seg *x;
				for (e = l + 1; e < layers && sub[(size_t)m * layers + e] == lay; e++)
					;
				for (k = 0; k < im->nsegs; k++) {
					x = &im->segs[k];
					if (x->range.aspectMask == mask && x->layout == lay &&
					    x->range.baseArrayLayer == l && x->range.layerCount == e - l &&
					    x->range.baseMipLevel + x->range.levelCount == m)
						break;
				}
				if (k < im->nsegs) {
					im->segs[k].range.levelCount++;
					continue;
				}
				x = &im->segs[im->nsegs++];
				x->range.aspectMask = mask;
				x->range.baseMipLevel = m;
				x->range.levelCount = 1;
				x->range.baseArrayLayer = l;
				x->range.layerCount = e - l;
				x->layout = lay;
			}
		}
	}
	return 0;
}

/* Whether some subresource of the image is in a defined layout (one never
 * used since its creation holds nothing). */
static int vkl_snap_image_defined(const vkl_snap_image *im)
{
	uint32_t k;
	for (k = 0; k < im->nsegs; k++)
		if (im->segs[k].layout != VK_IMAGE_LAYOUT_UNDEFINED)
			return 1;
	return 0;
}

/*
 * The copies of an image's contents to or from a buffer (im->regions):
 * per segment in a defined layout, per part (color, depth and stencil
 * separately, or each plane: vkl_copy_parts), per mip level, the
 * segment's layers, tightly packed one after the other, each at an offset
 * aligned to 4 and to the part's texel block (for an image in one layout:
 * every mip level, all layers).  Returns the number of regions (0: the
 * image cannot be copied, *why_out says why) and the buffer size in
 * *size_out.
 */
static uint32_t vkl_snap_regions(vkl_snap_image *im, VkDeviceSize *size_out,
                                 const char **why_out)
{
	const sbt_vk_format_info *fi = sbt_vk_format_info_of(im->format);
	vkl_copy_part parts[3];
	VkDeviceSize at = 0;
	uint32_t n = 0, np, a, m, k, count = 0;
	*why_out = NULL;
	if (im->samples != VK_SAMPLE_COUNT_1_BIT)
		*why_out = "it is multisampled";
	else if (im->flags & VK_IMAGE_CREATE_SPARSE_BINDING_BIT)
		*why_out = "it is sparse";
	else if ((im->usage & (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)) !=
	         (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT))
		*why_out = "it has no transfer usage (the driver did not allow adding it)";
	else if (!fi)
		*why_out = "its format is not one the layer knows";
	else if (!im->mips || !im->layers)
		*why_out = "its mip levels or layers are out of range";
	for (k = 0; !*why_out && k < im->nsegs; k++) {
		const vkl_snap_seg *g = &im->segs[k];
		if (g->layout == VK_IMAGE_LAYOUT_PREINITIALIZED)
			*why_out = "its layout is PREINITIALIZED (it cannot return to it after a copy)";
		else if (g->layout != VK_IMAGE_LAYOUT_UNDEFINED)
			count += vkl_copy_parts(fi, g->range.aspectMask, parts) *
			         (vkl_trim_range_end(g->range.baseMipLevel, g->range.levelCount, im->mips) -
			          g->range.baseMipLevel);
	}
	if (!*why_out && !count)
		*why_out = "no subresource is in a defined layout";
	if (!*why_out && !(im->regions = calloc(count, sizeof(*im->regions))))
		*why_out = "out of memory";
	if (*why_out)
		return 0;
	for (k = 0; k < im->nsegs; k++) {
		const vkl_snap_seg *g = &im->segs[k];
		uint32_t m1 = vkl_trim_range_end(g->range.baseMipLevel, g->range.levelCount, im->mips);
		uint32_t l0 = g->range.baseArrayLayer;
		uint32_t nl = vkl_trim_range_end(l0, g->range.layerCount, im->layers) - l0;
		if (g->layout == VK_IMAGE_LAYOUT_UNDEFINED)
			continue;
		np = vkl_copy_parts(fi, g->range.aspectMask, parts);
		for (a = 0; a < np; a++) {
			const vkl_copy_part *pt = &parts[a];
			for (m = g->range.baseMipLevel; m < m1; m++) {
				VkBufferImageCopy *r = &im->regions[n++];
				uint32_t w = (im->extent.width / pt->wdiv) >> m,
				         h = (im->extent.height / pt->hdiv) >> m, d = im->extent.depth >> m;
				VkDeviceSize align = (VkDeviceSize)pt->texel * 4, bw, bh, bd;
				w = w ? w : 1;
				h = h ? h : 1;
				d = d ? d : 1;
				bw = (w + pt->block[0] - 1) / pt->block[0];
				bh = (h + pt->block[1] - 1) / pt->block[1];
				bd = (d + pt->block[2] - 1) / pt->block[2];
				at = (at + align - 1) / align * align;
				r->bufferOffset = at;
				r->imageSubresource.aspectMask = pt->aspect;
				r->imageSubresource.mipLevel = m;
				r->imageSubresource.baseArrayLayer = l0;
				r->imageSubresource.layerCount = nl;
				r->imageExtent.width = w;
				r->imageExtent.height = h;
				r->imageExtent.depth = d;
				at += bw * bh * bd * pt->texel * nl;
			}
		}
	}
	im->nregions = n;
	*size_out = at;
	return n;
}

/* A host-visible, coherent buffer of the layer's own (down the chain, not
 * recorded), mapped. */
typedef struct vkl_snap_host {
	VkBuffer buf;
	VkDeviceMemory mem;
	void *map;
	uint32_t type;     /* its memory type */
	VkDeviceSize size; /* its memory's size */
} vkl_snap_host;

static void vkl_snap_host_free(vkl_device *d, vkl_snap_host *h)
{
	if (h->map)
		d->table.UnmapMemory(d->handle, h->mem);
	if (h->buf)
		d->table.DestroyBuffer(d->handle, h->buf, NULL);
	if (h->mem)
		d->table.FreeMemory(d->handle, h->mem, NULL);
	memset(h, 0, sizeof(*h));
}

/* 0 and h filled, or -1 (h freed). */
static int vkl_snap_host_new(vkl_device *d, VkDeviceSize size, vkl_snap_host *h)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	const VkMemoryPropertyFlags host =
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	VkMemoryRequirements req;
	uint32_t t;
	memset(h, 0, sizeof(*h));
	bci.size = size ? size : 1;
	bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	if (d->table.CreateBuffer(d->handle, &bci, NULL, &h->buf) != VK_SUCCESS) {
		h->buf = VK_NULL_HANDLE;
		goto out_fail;
	}
	d->table.GetBufferMemoryRequirements(d->handle, h->buf, &req);
	for (t = 0; t < d->mem_props.memoryTypeCount; t++)
		if ((req.memoryTypeBits & (1u << t)) &&
		    (d->mem_props.memoryTypes[t].propertyFlags & host) == host)
			break;
	if (t == d->mem_props.memoryTypeCount)
		goto out_fail;
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = t;
	if (d->table.AllocateMemory(d->handle, &mai, NULL, &h->mem) != VK_SUCCESS) {
		h->mem = VK_NULL_HANDLE;
		goto out_fail;
	}
	if (d->table.BindBufferMemory(d->handle, h->buf, h->mem, 0) != VK_SUCCESS ||
	    d->table.MapMemory(d->handle, h->mem, 0, VK_WHOLE_SIZE, 0, &h->map) != VK_SUCCESS) {
		h->map = NULL;
		goto out_fail;
	}
	/* the gaps an image's aligned regions leave are never copied into:
	 * zeros, not heap garbage, go into the trace */
	memset(h->map, 0, (size_t)req.size);
	h->type = t;
	h->size = req.size;
	return 0;

out_fail:
	vkl_snap_host_free(d, h);
	return -1;
}

/* A one-time command buffer of the layer's own on q, begun; NULL (nothing
 * left) when that fails.  vkl_snap_once_run submits it, waits and frees it. */
static VkCommandBuffer vkl_snap_once_begin(vkl_device *d, const vkl_snap_queue *q,
                                           VkCommandPool *pool_out)
{
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkCommandBuffer cb = VK_NULL_HANDLE;
	pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
	pci.queueFamilyIndex = q->family;
	if (d->table.CreateCommandPool(d->handle, &pci, NULL, pool_out) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	cai.commandPool = *pool_out;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 1;
	if (d->table.AllocateCommandBuffers(d->handle, &cai, &cb) != VK_SUCCESS)
		goto out_pool;
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	if (d->set_loader_data(d->handle, cb) != VK_SUCCESS ||
	    d->table.BeginCommandBuffer(cb, &bi) != VK_SUCCESS)
		goto out_cb;
	return cb;

out_cb:
	d->table.FreeCommandBuffers(d->handle, *pool_out, 1, &cb);
out_pool:
	d->table.DestroyCommandPool(d->handle, *pool_out, NULL);
	return VK_NULL_HANDLE;
}

/* Make the staging buffer's transfer writes visible to the host, submit,
 * wait for the queue, free; 0 when all of it succeeded. */
static int vkl_snap_once_run(vkl_device *d, const vkl_snap_queue *q, VkCommandPool pool,
                             VkCommandBuffer cb, VkBuffer staging)
{
	VkBufferMemoryBarrier bar = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkQueue queue = (VkQueue)(uintptr_t)q->queue;
	int rc = -1;
	bar.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bar.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bar.srcQueueFamilyIndex = bar.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bar.buffer = staging;
	bar.size = VK_WHOLE_SIZE;
	d->table.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
	                            0, 0, NULL, 1, &bar, 0, NULL);
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	if (d->table.EndCommandBuffer(cb) == VK_SUCCESS &&
	    d->table.QueueSubmit(queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS &&
	    d->table.QueueWaitIdle(queue) == VK_SUCCESS)
		rc = 0;
	d->table.FreeCommandBuffers(d->handle, pool, 1, &cb);
	d->table.DestroyCommandPool(d->handle, pool, NULL);
	return rc;
}

/* Why the device cannot run copies of the layer's own; NULL when it can. */
static const char *vkl_snap_no_copies(const vkl_device *d, const vkl_snap_queue *q)
{
	if (!q)
		return "the device has no queue the layer saw";
	if (!d->set_loader_data)
		return "the loader gave no way to dispatch a command buffer of the layer's";
	return NULL;
}

/* Read a memory object through a buffer bound over all of it, copied on
 * the device into host-visible memory of the layer's own (down the chain,
 * not recorded).  Fills out and returns 1, or warns and returns 0. */
static int vkl_snap_read_staged(vkl_device *d, const vkl_snap_queue *q, VkDeviceMemory mem,
                                const vkl_memory_desc *md, vkl_snap_staged *out)
{
	VkDevice dev = d->handle;
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkBuffer src = VK_NULL_HANDLE;
	VkCommandPool pool = VK_NULL_HANDLE;
	VkCommandBuffer cb;
	VkMemoryRequirements req;
	VkBufferCopy region = { 0, 0, md->size };
	vkl_snap_host stg = { 0 };
	const char *why = vkl_snap_no_copies(d, q);

	if (!why && md->dedicated)
		why = "it is a dedicated allocation";
	if (why)
		goto out;
	bci.size = md->size;
	bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	why = "no buffer can be bound over all of it";
	if (d->table.CreateBuffer(dev, &bci, NULL, &src) != VK_SUCCESS) {
		src = VK_NULL_HANDLE;
		goto out;
	}
	d->table.GetBufferMemoryRequirements(dev, src, &req);
	if (!(req.memoryTypeBits & (1u << md->type_index)) || req.size > md->size ||
	    d->table.BindBufferMemory(dev, src, mem, 0) != VK_SUCCESS)
		goto out;
	why = "no staging memory";
	if (vkl_snap_host_new(d, md->size, &stg) != 0)
		goto out;
	why = "the copy failed";
	if (!(cb = vkl_snap_once_begin(d, q, &pool)))
		goto out;
	d->table.CmdCopyBuffer(cb, src, stg.buf, 1, &region);
	if (vkl_snap_once_run(d, q, pool, cb, stg.buf) != 0)
		goto out;
	why = "out of memory";
	out->bytes = malloc(md->size ? (size_t)md->size : 1);
	if (!out->bytes)
		goto out;
	memcpy(out->bytes, stg.map, (size_t)md->size);
	out->memory = (uint64_t)(uintptr_t)mem;
	out->size = md->size;
	out->staging_type = stg.type;
	out->staging_size = stg.size;
	why = NULL;
out:
	vkl_snap_host_free(d, &stg);
	if (src)
		d->table.DestroyBuffer(dev, src, NULL);
	if (why)
		CAP_WARN("Vulkan snapshot: VkDeviceMemory 0x%llx (%llu bytes) is not host-visible and "
		         "its contents are left out of the snapshot: %s",
		         (unsigned long long)(uintptr_t)mem, (unsigned long long)md->size, why);
	return why == NULL;
}

/* A barrier of a range of an image between two layouts. */
static void vkl_snap_image_barrier(VkImageMemoryBarrier *b, const vkl_snap_image *im,
                                   const VkImageSubresourceRange *range, VkImageLayout from,
                                   VkImageLayout to, VkAccessFlags src_access,
                                   VkAccessFlags dst_access)
{
	memset(b, 0, sizeof(*b));
	b->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
	b->srcAccessMask = src_access;
	b->dstAccessMask = dst_access;
	b->oldLayout = from;
	b->newLayout = to;
	b->srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b->image = (VkImage)(uintptr_t)im->image;
	b->subresourceRange = *range;
}

/*
 * Read an image's contents (vkl_snap_regions) on the device into
 * host-visible memory of the layer's own (down the chain, not recorded):
 * each segment from its layout to TRANSFER_SRC_OPTIMAL (an image all in
 * GENERAL stays there), the copies, and back.  Fills im->bytes and
 * returns 1, or warns and returns 0.
 */
static int vkl_snap_read_image(vkl_device *d, const vkl_snap_queue *q, vkl_snap_image *im)
{
	VkImageMemoryBarrier *bars = NULL;
	VkImage image = (VkImage)(uintptr_t)im->image;
	VkImageLayout src_layout = VK_IMAGE_LAYOUT_GENERAL;
	VkCommandPool pool = VK_NULL_HANDLE;
	VkCommandBuffer cb;
	VkDeviceSize size = 0;
	vkl_snap_host stg = { 0 };
	const char *why = NULL;
	uint32_t n = vkl_snap_regions(im, &size, &why), nb = 0, k;

	if (!n)
		goto out;
	why = vkl_snap_no_copies(d, q);
	if (why)
		goto out;
	why = "out of memory";
	bars = calloc(im->nsegs, sizeof(*bars));
	if (!bars)
		goto out;
	for (k = 0; k < im->nsegs; k++)
		if (im->segs[k].layout != VK_IMAGE_LAYOUT_UNDEFINED &&
		    im->segs[k].layout != VK_IMAGE_LAYOUT_GENERAL)
			src_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	why = "no staging memory";
	if (vkl_snap_host_new(d, size, &stg) != 0)
		goto out;
	why = "the copy failed";
	if (!(cb = vkl_snap_once_begin(d, q, &pool)))
		goto out;
	for (k = 0; k < im->nsegs; k++)
		if (im->segs[k].layout != VK_IMAGE_LAYOUT_UNDEFINED && im->segs[k].layout != src_layout)
			vkl_snap_image_barrier(&bars[nb++], im, &im->segs[k].range, im->segs[k].layout,
			                       src_layout, VK_ACCESS_MEMORY_WRITE_BIT,
			                       VK_ACCESS_TRANSFER_READ_BIT);
	if (nb)
		d->table.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
		                            VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, nb, bars);
	d->table.CmdCopyImageToBuffer(cb, image, src_layout, stg.buf, n, im->regions);
	for (k = 0; k < nb; k++) {
		VkImageSubresourceRange range = bars[k].subresourceRange;
		VkImageLayout back = bars[k].oldLayout;
		vkl_snap_image_barrier(&bars[k], im, &range, src_layout, back, 0,
		                       VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
	}
	if (nb)
		d->table.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                            VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, nb,
		                            bars);
	if (vkl_snap_once_run(d, q, pool, cb, stg.buf) != 0)
		goto out;
	why = "out of memory";
	im->bytes = malloc(size ? (size_t)size : 1);
	if (!im->bytes)
		goto out;
	memcpy(im->bytes, stg.map, (size_t)size);
	im->size = size;
	im->staging_type = stg.type;
	im->staging_size = stg.size;
	why = NULL;
out:
	vkl_snap_host_free(d, &stg);
	free(bars);
	if (why && im->swapchain)
		CAP_WARN("Vulkan snapshot: VkImage 0x%llx (image %u of VkSwapchainKHR 0x%llx, "
		         "acquired) is left out of the snapshot: %s; a present in the window may "
		         "show it other than it was", (unsigned long long)im->image, im->sc_index,
		         (unsigned long long)im->swapchain, why);
	else if (why)
		CAP_WARN("Vulkan snapshot: VkImage 0x%llx (in VkDeviceMemory 0x%llx) is read through "
		         "a staging copy and its contents are left out of the snapshot: %s",
		         (unsigned long long)im->image, (unsigned long long)im->memory, why);
	return why == NULL;
}

/* The barriers the snapshot's command buffer moves the image with: from
 * its creation layout to each segment's current layout, or, for a copy
 * of its contents, to TRANSFER_DST_OPTIMAL before the copies (returned),
 * and after them on to the current layouts (*after_out).  Segments in no
 * defined layout stay as they were created. */
static uint32_t vkl_snap_image_moves(const vkl_snap_image *im, uint32_t *after_out)
{
	uint32_t k, n = 0, after = 0;
	for (k = 0; k < im->nsegs; k++) {
		VkImageLayout to = im->segs[k].layout;
		if (to == VK_IMAGE_LAYOUT_UNDEFINED)
			continue;
		if (im->bytes) {
			n++;
			after += to != VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
		} else {
			n += to != im->from;
		}
	}
	if (after_out)
		*after_out = after;
	return n;
}

/* Record an image's staged contents as a staging buffer and memory of the
 * snapshot's own (handles from *next_handle); their handles in out[0..1]. */
static void vkl_snap_image_staging(VkDevice device, const vkl_snap_image *im,
                                   uint64_t *next_handle, uint64_t *out)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkBuffer stg = (VkBuffer)(uintptr_t)(*next_handle)++;
	VkDeviceMemory smem = (VkDeviceMemory)(uintptr_t)(*next_handle)++;
	sbt_vk_args_vkCreateBuffer cb = { device, &bci, NULL, &stg, VK_SUCCESS };
	sbt_vk_args_vkAllocateMemory am = { device, &mai, NULL, &smem, VK_SUCCESS };
	sbt_vk_args_vkBindBufferMemory bb = { device, stg, smem, 0, VK_SUCCESS };
	bci.size = im->size ? im->size : 1;
	bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	mai.allocationSize = im->staging_size;
	mai.memoryTypeIndex = im->staging_type;
	vkl_snap_put(SBT_VK_CMD_vkCreateBuffer, &cb);
	vkl_snap_put(SBT_VK_CMD_vkAllocateMemory, &am);
	vkl_snap_put(SBT_VK_CMD_vkBindBufferMemory, &bb);
	vkl_memory_snapshot_bytes(smem, im->bytes, (size_t)im->size);
	out[0] = (uint64_t)(uintptr_t)stg;
	out[1] = (uint64_t)(uintptr_t)smem;
}

/* Values vkGetQueryPoolResults writes per query of a pool (before the
 * availability word); 0 for the types whose results the snapshot does not
 * record (performance queries have no availability word, video and
 * acceleration structure queries are not followed). */
static uint32_t vkl_snap_query_values(const vkl_snap_query *q)
{
	switch (q->type) {
	case VK_QUERY_TYPE_OCCLUSION:
	case VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT:
	case VK_QUERY_TYPE_MESH_PRIMITIVES_GENERATED_EXT:
		return 1;
	case VK_QUERY_TYPE_PIPELINE_STATISTICS:
		return (uint32_t)__builtin_popcount(q->stats);
	case VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT:
		return 2;
	default:
		return 0;
	}
}

/* The results of a pool's queries that hold one, read from the driver
 * (the device is idle), each run of written queries with one call; 0 when
 * they were read (q->results set).  A run the driver does not report
 * available is a warning, and leaves the whole pool out. */
static int vkl_snap_query_read(vkl_snap_query *q)
{
	vkl_device *d = vkl_device_get((const void *)(uintptr_t)q->device);
	uint32_t nv = vkl_snap_query_values(q), i;
	const VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT |
	                                 VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
	if (!d || !nv || !q->written || !d->table.GetQueryPoolResults)
		return -1;
	q->stride = (nv + 1) * 8;
	q->results = calloc(q->count, q->stride);
	if (!q->results)
		return -1;
	for (i = 0; i < q->count;) {
		uint32_t n = 0, k;
		VkResult res;
		if (!q->written[i]) {
			i++;
			continue;
		}
		while (i + n < q->count && q->written[i + n])
			n++;
		res = d->table.GetQueryPoolResults(d->handle, (VkQueryPool)(uintptr_t)q->pool, i, n,
		                                   (size_t)n * q->stride,
		                                   q->results + (size_t)i * q->stride, q->stride, flags);
		for (k = 0; res == VK_SUCCESS && k < n; k++) {
			uint64_t avail;
			memcpy(&avail, q->results + (size_t)(i + k) * q->stride + nv * 8, 8);
			if (!avail)
				res = VK_NOT_READY;
		}
		if (res != VK_SUCCESS) {
			CAP_WARN("Vulkan snapshot: VkQueryPool 0x%llx: vkGetQueryPoolResults of queries "
			         "%u-%u on an idle device returned %d: their results are left out",
			         (unsigned long long)q->pool, i, i + n - 1, (int)res);
			free(q->results);
			q->results = NULL;
			return -1;
		}
		i += n;
	}
	return 0;
}

/* vulkan.tsQueryResults for each run of a pool's queries holding results,
 * right after the pool's creation: command buffers the snapshot records
 * next may copy them. */
static void vkl_snap_query_results(const vkl_snap_query *q)
{
	uint32_t i;
	for (i = 0; q->results && i < q->count;) {
		uint32_t n = 0;
		if (!q->written[i]) {
			i++;
			continue;
		}
		while (i + n < q->count && q->written[i + n])
			n++;
		vkl_emit_query_results(q->pool, i, n,
		                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT,
		                       q->stride, q->results + (size_t)i * q->stride);
		i += n;
	}
}

/* A query pool's queries that hold results when the window opens: the
 * whole pool reset (a new pool's queries must be before use), then each
 * timestamp query written again (a time: no two runs agree on it, so the
 * replay of a full capture does not reproduce it either); other queries'
 * results cannot be set or measured again, and are left out with a
 * warning. */
static void vkl_snap_queries(VkCommandBuffer cb, const vkl_snap_query *q)
{
	VkQueryPool pool = (VkQueryPool)(uintptr_t)q->pool;
	sbt_vk_args_vkCmdResetQueryPool rq = { cb, pool, 0, q->count };
	uint32_t i;
	if (q->results) {
		/* the queries holding results stay as they are (the replay hands
		 * out the recorded ones, vkl_snap_query_results); the rest reset */
		for (i = 0; i < q->count;) {
			uint32_t n = 0;
			while (i + n < q->count && !q->written[i + n])
				n++;
			if (n) {
				rq.firstQuery = i;
				rq.queryCount = n;
				vkl_snap_put(SBT_VK_CMD_vkCmdResetQueryPool, &rq);
			}
			i += n;
			while (i < q->count && q->written[i])
				i++;
		}
		return;
	}
	vkl_snap_put(SBT_VK_CMD_vkCmdResetQueryPool, &rq);
	if (q->type != VK_QUERY_TYPE_TIMESTAMP || !q->written) {
		CAP_WARN("Vulkan snapshot: VkQueryPool 0x%llx (query type %d): the results of %u "
		         "queries written before the window are left out of the snapshot (results "
		         "of this type are not recorded: a window that reads them finds them reset "
		         "on replay)",
		         (unsigned long long)q->pool, (int)q->type, q->nwritten);
		return;
	}
	for (i = 0; i < q->count; i++) {
		sbt_vk_args_vkCmdWriteTimestamp wt = { cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, i };
		if (q->written[i])
			vkl_snap_put(SBT_VK_CMD_vkCmdWriteTimestamp, &wt);
	}
}

/* One device's memory copies, image layouts and contents, fences,
 * semaphores and acquires, through calls with the snapshot's own pool and
 * command buffer.  Its one command buffer: the staged memory's buffer
 * copies; one barrier moving each image from its creation layout to its
 * current one, or to TRANSFER_DST_OPTIMAL when its contents are copied in;
 * those copies; a barrier moving the copied images on to their current
 * layouts. */
static void vkl_snap_device(vkl_snap *s, uint64_t dev, uint64_t *next_handle)
{
	VkDevice device = (VkDevice)(uintptr_t)dev;
	const vkl_snap_queue *q = vkl_snap_queue_of(s, dev);
	VkImageMemoryBarrier *bars = NULL, *after = NULL; /* before the image copies, after */
	VkSemaphore *sems = NULL;
	uint64_t *staged = NULL; /* per staged memory: dst buffer, staging buffer, its memory */
	uint64_t *istaged = NULL; /* per copied image: staging buffer, its memory */
	uint32_t nbars = 0, nafter = 0, nsems = 0, nstaged = 0, ncopies = 0, fence_submits = 0;
	uint32_t nqueries = 0;
	size_t i, k;
	VkQueue queue;
	for (i = 0; i < s->nimages; i++) {
		const vkl_snap_image *im = &s->images[i];
		uint32_t nmoved_after;
		if (im->device != dev)
			continue;
		nbars += vkl_snap_image_moves(im, &nmoved_after);
		nafter += nmoved_after;
		ncopies += im->bytes != NULL;
	}
	for (i = 0; i < s->nsyncs; i++)
		nsems += s->syncs[i].device == dev && s->syncs[i].type == VK_OBJECT_TYPE_SEMAPHORE;
	for (i = 0; i < s->nstaged; i++)
		nstaged += s->staged[i].device == dev;
	for (i = 0; i < s->nqueries; i++)
		nqueries += s->queries[i].device == dev;
	if (!q) {
		if (nbars || nsems || nqueries)
			CAP_WARN("Vulkan snapshot: VkDevice 0x%llx has no queue the layer saw: image "
			         "layouts and semaphore states are left out of the snapshot",
			         (unsigned long long)dev);
		goto out_sync;
	}
	queue = (VkQueue)(uintptr_t)q->queue;
	bars = calloc(nbars ? nbars : 1, sizeof(*bars));
	after = calloc(nafter ? nafter : 1, sizeof(*after));
	sems = calloc(nsems ? nsems : 1, sizeof(*sems));
	staged = calloc(nstaged ? 3 * (size_t)nstaged : 1, sizeof(*staged));
	istaged = calloc(ncopies ? 2 * (size_t)ncopies : 1, sizeof(*istaged));
	if (!bars || !after || !sems || !staged || !istaged)
		goto out_free;
	nbars = nafter = nsems = 0;
	for (i = 0; i < s->nimages; i++) {
		const vkl_snap_image *im = &s->images[i];
		uint32_t g;
		if (im->device != dev)
			continue;
		for (g = 0; g < im->nsegs; g++) {
			const vkl_snap_seg *seg = &im->segs[g];
			if (seg->layout == VK_IMAGE_LAYOUT_UNDEFINED)
				continue;
			if (!im->bytes) {
				if (seg->layout != im->from)
					vkl_snap_image_barrier(&bars[nbars++], im, &seg->range, im->from,
					                       seg->layout, 0,
					                       VK_ACCESS_MEMORY_READ_BIT |
					                           VK_ACCESS_MEMORY_WRITE_BIT);
				continue;
			}
			/* after the buffer copies, which may write the same memory */
			vkl_snap_image_barrier(&bars[nbars++], im, &seg->range, im->from,
			                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
			                       VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
			if (seg->layout != VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL)
				vkl_snap_image_barrier(&after[nafter++], im, &seg->range,
				                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, seg->layout,
				                       VK_ACCESS_TRANSFER_WRITE_BIT,
				                       VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
		}
	}
	for (i = 0; i < s->nsyncs; i++)
		if (s->syncs[i].device == dev && s->syncs[i].type == VK_OBJECT_TYPE_SEMAPHORE &&
		    !s->syncs[i].timeline)
			sems[nsems++] = (VkSemaphore)(uintptr_t)s->syncs[i].handle;
	if (nbars || nsems || nstaged || nqueries) {
		VkCommandPool pool = (VkCommandPool)(uintptr_t)(*next_handle)++;
		VkCommandBuffer cb = (VkCommandBuffer)(uintptr_t)(*next_handle)++;
		VkCommandPoolCreateInfo pci = { VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0,
			                            q->family };
		VkCommandBufferAllocateInfo ai = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL,
			                               pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1 };
		VkCommandBufferBeginInfo bi = { VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
			                            VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL };
		VkSubmitInfo si = { VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, nsems,
			                sems };
		sbt_vk_args_vkCreateCommandPool cp = { device, &pci, NULL, &pool, VK_SUCCESS };
		sbt_vk_args_vkAllocateCommandBuffers acb = { device, &ai, &cb, VK_SUCCESS };
		sbt_vk_args_vkBeginCommandBuffer bcb = { cb, &bi, VK_SUCCESS };
		sbt_vk_args_vkCmdPipelineBarrier pb = { cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			                                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
			                                    NULL, nbars, bars };
		sbt_vk_args_vkCmdPipelineBarrier pa = { cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
			                                    VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
			                                    NULL, nafter, after };
		sbt_vk_args_vkEndCommandBuffer ecb = { cb, VK_SUCCESS };
		sbt_vk_args_vkQueueSubmit qs = { queue, 1, &si, VK_NULL_HANDLE, VK_SUCCESS };
		sbt_vk_args_vkQueueWaitIdle wi = { queue, VK_SUCCESS };
		sbt_vk_args_vkDestroyCommandPool dp = { device, pool, NULL };
		vkl_snap_put(SBT_VK_CMD_vkCreateCommandPool, &cp);
		vkl_snap_put(SBT_VK_CMD_vkAllocateCommandBuffers, &acb);
		/* memory read through staging: a staging buffer of ours with its
		 * bytes, copied into a buffer bound over the memory */
		for (i = k = 0; i < s->nstaged; i++) {
			const vkl_snap_staged *g = &s->staged[i];
			VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
			VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
			VkBuffer dst = (VkBuffer)(uintptr_t)(*next_handle)++;
			VkBuffer stg = (VkBuffer)(uintptr_t)(*next_handle)++;
			VkDeviceMemory smem = (VkDeviceMemory)(uintptr_t)(*next_handle)++;
			sbt_vk_args_vkCreateBuffer cb1 = { device, &bci, NULL, &dst, VK_SUCCESS };
			sbt_vk_args_vkCreateBuffer cb2 = { device, &bci, NULL, &stg, VK_SUCCESS };
			sbt_vk_args_vkBindBufferMemory bb1 = { device, dst,
				                                   (VkDeviceMemory)(uintptr_t)g->memory, 0,
				                                   VK_SUCCESS };
			sbt_vk_args_vkAllocateMemory am = { device, &mai, NULL, &smem, VK_SUCCESS };
			sbt_vk_args_vkBindBufferMemory bb2 = { device, stg, smem, 0, VK_SUCCESS };
			if (g->device != dev)
				continue;
			bci.size = g->size;
			bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
			bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
			mai.allocationSize = g->staging_size;
			mai.memoryTypeIndex = g->staging_type;
			vkl_snap_put(SBT_VK_CMD_vkCreateBuffer, &cb1);
			vkl_snap_put(SBT_VK_CMD_vkBindBufferMemory, &bb1);
			vkl_snap_put(SBT_VK_CMD_vkCreateBuffer, &cb2);
			vkl_snap_put(SBT_VK_CMD_vkAllocateMemory, &am);
			vkl_snap_put(SBT_VK_CMD_vkBindBufferMemory, &bb2);
			vkl_memory_snapshot_bytes(smem, g->bytes, (size_t)g->size);
			staged[k++] = (uint64_t)(uintptr_t)dst;
			staged[k++] = (uint64_t)(uintptr_t)stg;
			staged[k++] = (uint64_t)(uintptr_t)smem;
		}
		for (i = k = 0; i < s->nimages; i++)
			if (s->images[i].device == dev && s->images[i].bytes) {
				vkl_snap_image_staging(device, &s->images[i], next_handle, &istaged[k]);
				k += 2;
			}
		vkl_snap_put(SBT_VK_CMD_vkBeginCommandBuffer, &bcb);
		for (i = 0; i < s->nqueries; i++)
			if (s->queries[i].device == dev)
				vkl_snap_queries(cb, &s->queries[i]);
		for (i = k = 0; i < s->nstaged; i++) {
			VkBufferCopy region = { 0, 0, s->staged[i].size };
			sbt_vk_args_vkCmdCopyBuffer cc = { cb, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &region };
			if (s->staged[i].device != dev)
				continue;
			cc.dstBuffer = (VkBuffer)(uintptr_t)staged[k];
			cc.srcBuffer = (VkBuffer)(uintptr_t)staged[k + 1];
			k += 3;
			vkl_snap_put(SBT_VK_CMD_vkCmdCopyBuffer, &cc);
		}
		if (nbars)
			vkl_snap_put(SBT_VK_CMD_vkCmdPipelineBarrier, &pb);
		for (i = k = 0; i < s->nimages; i++) {
			const vkl_snap_image *im = &s->images[i];
			sbt_vk_args_vkCmdCopyBufferToImage ci = {
				cb, VK_NULL_HANDLE, (VkImage)(uintptr_t)im->image,
				VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, im->nregions, im->regions
			};
			if (im->device != dev || !im->bytes)
				continue;
			ci.srcBuffer = (VkBuffer)(uintptr_t)istaged[k];
			k += 2;
			vkl_snap_put(SBT_VK_CMD_vkCmdCopyBufferToImage, &ci);
		}
		if (nafter)
			vkl_snap_put(SBT_VK_CMD_vkCmdPipelineBarrier, &pa);
		vkl_snap_put(SBT_VK_CMD_vkEndCommandBuffer, &ecb);
		vkl_snap_put(SBT_VK_CMD_vkQueueSubmit, &qs);
		vkl_snap_put(SBT_VK_CMD_vkQueueWaitIdle, &wi);
		for (k = 0; k < 3 * (size_t)nstaged; k += 3) {
			sbt_vk_args_vkDestroyBuffer d1 = { device, (VkBuffer)(uintptr_t)staged[k], NULL };
			sbt_vk_args_vkDestroyBuffer d2 = { device, (VkBuffer)(uintptr_t)staged[k + 1], NULL };
			sbt_vk_args_vkFreeMemory fm = { device, (VkDeviceMemory)(uintptr_t)staged[k + 2], NULL };
			vkl_snap_put(SBT_VK_CMD_vkDestroyBuffer, &d1);
			vkl_snap_put(SBT_VK_CMD_vkDestroyBuffer, &d2);
			vkl_snap_put(SBT_VK_CMD_vkFreeMemory, &fm);
		}
		for (k = 0; k < 2 * (size_t)ncopies; k += 2) {
			sbt_vk_args_vkDestroyBuffer d1 = { device, (VkBuffer)(uintptr_t)istaged[k], NULL };
			sbt_vk_args_vkFreeMemory fm = { device, (VkDeviceMemory)(uintptr_t)istaged[k + 1],
				                            NULL };
			vkl_snap_put(SBT_VK_CMD_vkDestroyBuffer, &d1);
			vkl_snap_put(SBT_VK_CMD_vkFreeMemory, &fm);
		}
		vkl_snap_put(SBT_VK_CMD_vkDestroyCommandPool, &dp);
	}
out_sync:
	for (i = 0; i < s->nsyncs; i++) {
		const vkl_snap_sync *y = &s->syncs[i];
		if (y->device != dev)
			continue;
		if (y->type == VK_OBJECT_TYPE_FENCE && y->signal && q) {
			sbt_vk_args_vkQueueSubmit qs = { (VkQueue)(uintptr_t)q->queue, 0, NULL,
				                             (VkFence)(uintptr_t)y->handle, VK_SUCCESS };
			vkl_snap_put(SBT_VK_CMD_vkQueueSubmit, &qs);
			fence_submits++;
		} else if (y->type == VK_OBJECT_TYPE_FENCE && !y->signal) {
			VkFence f = (VkFence)(uintptr_t)y->handle;
			sbt_vk_args_vkResetFences rf = { device, 1, &f, VK_SUCCESS };
			vkl_snap_put(SBT_VK_CMD_vkResetFences, &rf);
		} else if (y->type == VK_OBJECT_TYPE_SEMAPHORE && y->timeline) {
			VkSemaphoreSignalInfo si = { VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, NULL,
				                         (VkSemaphore)(uintptr_t)y->handle, y->value };
			sbt_vk_args_vkSignalSemaphore ss = { device, &si, VK_SUCCESS };
			vkl_snap_put(SBT_VK_CMD_vkSignalSemaphore, &ss);
		} else if (y->type == VK_OBJECT_TYPE_SWAPCHAIN_KHR) {
			/* Each held image again, with a fence of the snapshot's own (an
			 * acquire needs a semaphore or a fence: VUID-vkAcquireNextImageKHR-
			 * semaphore-01780), waited for before the window goes on. */
			uint32_t idx;
			for (idx = 0; idx < 64; idx++) {
				VkFence f = (y->acquired & (1ull << idx))
				                ? (VkFence)(uintptr_t)(*next_handle)++
				                : VK_NULL_HANDLE;
				VkFenceCreateInfo fci = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, NULL, 0 };
				sbt_vk_args_vkCreateFence cf = { device, &fci, NULL, &f, VK_SUCCESS };
				sbt_vk_args_vkAcquireNextImageKHR an = {
					device, (VkSwapchainKHR)(uintptr_t)y->handle, UINT64_MAX, VK_NULL_HANDLE,
					f, &idx, VK_SUCCESS
				};
				sbt_vk_args_vkWaitForFences wf = { device, 1, &f, VK_TRUE, UINT64_MAX, VK_SUCCESS };
				sbt_vk_args_vkDestroyFence df = { device, f, NULL };
				if (!f)
					continue;
				vkl_snap_put(SBT_VK_CMD_vkCreateFence, &cf);
				vkl_snap_put(SBT_VK_CMD_vkAcquireNextImageKHR, &an);
				vkl_snap_put(SBT_VK_CMD_vkWaitForFences, &wf);
				vkl_snap_put(SBT_VK_CMD_vkDestroyFence, &df);
			}
		}
	}
	/* The fences were signalled when the window opened, not pending: a
	 * window that begins by resetting one (vk_multithread) must find the
	 * empty submits done, or the reset meets a fence in use. */
	if (fence_submits) {
		sbt_vk_args_vkQueueWaitIdle wi = { (VkQueue)(uintptr_t)q->queue, VK_SUCCESS };
		vkl_snap_put(SBT_VK_CMD_vkQueueWaitIdle, &wi);
	}
out_free:
	free(bars);
	free(after);
	free(sems);
	free(staged);
	free(istaged);
}

/* Destroy an object recreated only for others that keep its creation. */
static void vkl_snap_destroy(const vkl_trim_rec *r)
{
	VkDevice device = (VkDevice)(uintptr_t)r->device;
	switch (r->otype) {
#define VKL_SNAP_DESTROY(objtype, cmd, vktype)                                  \
	case objtype: {                                                             \
		sbt_vk_args_##cmd a = { device, (vktype)(uintptr_t)r->handle, NULL }; \
		vkl_snap_put(SBT_VK_CMD_##cmd, &a);                                   \
		break;                                                                \
	}
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_SHADER_MODULE, vkDestroyShaderModule, VkShaderModule)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_PIPELINE_LAYOUT, vkDestroyPipelineLayout, VkPipelineLayout)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, vkDestroyDescriptorSetLayout,
	                 VkDescriptorSetLayout)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_RENDER_PASS, vkDestroyRenderPass, VkRenderPass)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_SAMPLER, vkDestroySampler, VkSampler)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_IMAGE_VIEW, vkDestroyImageView, VkImageView)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_IMAGE, vkDestroyImage, VkImage)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_DEVICE_MEMORY, vkFreeMemory, VkDeviceMemory)
	VKL_SNAP_DESTROY(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, vkDestroyDescriptorUpdateTemplate,
	                 VkDescriptorUpdateTemplate)
#undef VKL_SNAP_DESTROY
	default:
		break;
	}
}

/* The creation r is about to be written, and an object recreated for
 * others holds its handle still (the driver gave a destroyed object's
 * handle to a later one: vkl_snap_alive).  Every call naming the older
 * came before r and is written already (the items' order), so it is
 * destroyed now: in the replay one handle names one object at a time. */
static void vkl_snap_retire_zombie(vkl_snap_check *ck, const vkl_trim_rec *r)
{
	size_t i;
	for (i = 0; i < ck->nzombies; i++)
		if (ck->zombies[i]->handle == r->handle && ck->zombies[i]->otype == r->otype) {
			CAP_INFO("Vulkan snapshot: object 0x%llx (type %d), recreated for others, is "
			         "destroyed before a later object with its handle is created",
			         (unsigned long long)r->handle, (int)r->otype);
			vkl_snap_destroy(ck->zombies[i]);
			memmove(&ck->zombies[i], &ck->zombies[i + 1],
			        (ck->nzombies - i - 1) * sizeof(*ck->zombies));
			ck->nzombies--;
			return;
		}
}

/* A live object whose creation the snapshot leaves out: its destroy in
 * the window is not recorded either.  1 when newly marked. */
static int vkl_snap_left_out(const vkl_snap_item *it)
{
	void *lk;
	int marked = 0;
	vkl_object *o = vkl_objects_lock(it->otype, it->obj, &lk);
	if (o && o->trim && !o->trim->left_out) {
		o->trim->left_out = 1;
		marked = 1;
	}
	vkl_objects_unlock(lk);
	if (marked) {
		atomic_fetch_add(&vkl_trim.left_out, 1);
		CAP_INFO("Vulkan snapshot: object 0x%llx (type %d) is left out; a destroy of it in "
		         "a window is not recorded", (unsigned long long)it->obj, (int)it->otype);
	}
	return marked;
}

static void vkl_trim_snapshot(void)
{
	vkl_snap s;
	vkl_snap_check ck;
	size_t i, n, nw = 0, ncmds = 0, nrec, nlayouts = 0, ncopied = 0, nleft = 0, nqresults = 0;
	size_t ncbs;
	vkl_snap_item **cbs;
	int ok = 1;
	uint64_t next_handle = VKL_TRIM_HANDLE_BASE + 1, mem_bytes = 0, unkept;
	vkl_trim_tls *th;
	memset(&s, 0, sizeof(s));
	memset(&ck, 0, sizeof(ck));

	/* no other thread in the middle of a command buffer's calls, none
	 * starting one until the snapshot is written */
	pthread_mutex_lock(&vkl_trim.mu); /* against vkl_trim_reopen_check */
	atomic_store(&vkl_trim_g.recorded, 1); /* before snapping: see vkl_trim_emit_flat */
	atomic_fetch_add(&vkl_trim.snaps, 1);
	vkl_trim.asks_open = vkl_trim.asks;
	pthread_mutex_unlock(&vkl_trim.mu);
	unkept = atomic_exchange(&vkl_trim.unkept_n, 0);
	if (vkl_trim.mode != VKL_TRIM_KEEP_ALL && cap_windowed())
		CAP_INFO("Vulkan trimmed capture: %llu recordings kept no calls before this window "
		         "(since %s)", (unsigned long long)unkept,
		         atomic_load(&vkl_trim.snaps) > 1 ? "the window before" : "the start");
	/* every keep-first path disarmed (vkl_trim_fast_begin reads cb_gen
	 * after seeing no snapshot running) */
	atomic_fetch_add_explicit(&vkl_trim_g.cb_gen, 1, memory_order_acq_rel);
	atomic_store(&vkl_trim_g.snapping, 1);
	pthread_mutex_lock(&vkl_trim_threads.mu);
	for (th = vkl_trim_threads.head; th; th = th->next)
		while (th != &vkl_trim_t && atomic_load(&th->busy))
			sched_yield();
	pthread_mutex_unlock(&vkl_trim_threads.mu);

	/* idle: what memory holds is final, every fence of a submission signalled */
	vkl_objects_each(vkl_snap_devices, &s);
	for (i = 0; i < s.ndevices; i++) {
		vkl_device *d = vkl_device_get((const void *)(uintptr_t)s.devices[i]);
		uint64_t before = atomic_load(&d->submits);
		if (d->table.DeviceWaitIdle(d->handle) == VK_SUCCESS)
			vkl_device_completed(d, before);
	}

	vkl_objects_each(vkl_snap_collect, &s);
	for (i = 0; i < s.nimages; i++)
		if (vkl_snap_segments(&s.images[i]) != 0)
			s.nomem = 1;
	if (s.nomem)
		CAP_ERROR("Vulkan snapshot: out of memory collecting the snapshot: it is incomplete");
	for (i = 0; i < s.nqueries; i++)
		if (s.queries[i].type != VK_QUERY_TYPE_TIMESTAMP)
			nqresults += vkl_snap_query_read(&s.queries[i]) == 0;
	if (sbt_vk_arena_create(0, &ck.arena) != SBT_VK_OK)
		ck.arena = NULL; /* nothing is checked */
	vkl_snap_cb_keys(&ck, &s);
	qsort(s.items, s.nitems, sizeof(*s.items), vkl_snap_item_cmp);
	cbs = vkl_snap_cb_index(&s, &ncbs);
	if (ncbs && !cbs)
		CAP_ERROR("Vulkan snapshot: out of memory: command buffers that execute secondary "
		          "ones are left out");
	for (i = 0; i < s.nitems; i++) {
		vkl_snap_item *it = &s.items[i];
		const uint8_t *p;
		size_t len;
		if (!it->rec) {
			if (it->nexecs || it->execs_lost) {
				if (!cbs || !vkl_snap_execs_valid(cbs, ncbs, it))
					continue;
			}
			n = vkl_snap_write_cb(&ck, it);
			it->written = n > 0;
			ncmds += n;
			continue;
		}
		if (i > 0 && s.items[i - 1].rec == it->rec) {
			/* kept by several objects: written once */
			if (!ok && it->creates)
				nleft += vkl_snap_left_out(it);
			continue;
		}
		p = it->rec->data;
		len = it->rec->len;
		ck.order = it->rec->order;
		if (it->rec->type == SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCreateSwapchainKHR))
			vkl_snap_swapchain_unretire(&ck, &p, &len);
		vkl_snap_pipeline_uncache(&ck, it->rec->type, &p, &len);
		ok = vkl_snap_valid(&ck, it->rec->type, p, len);
		if (!ok) {
			CAP_INFO("Vulkan snapshot: a %s is left out: it names object 0x%llx (type %d), "
			         "destroyed since", vkl_snap_type_name(it->rec->type),
			         (unsigned long long)ck.bad, (int)ck.bad_type);
			if (it->creates)
				nleft += vkl_snap_left_out(it);
			continue;
		}
		if (it->rec->handle &&
		    vkl_trim.cls[it->rec->type - SBT_VK_TYPE_BASE] == VKL_TC_CREATE)
			vkl_snap_retire_zombie(&ck, it->rec);
		cap_record(it->rec->type, 0, p, len);
		nw++;
		if (it->rec->type == SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCreateQueryPool)) {
			size_t j;
			for (j = 0; j < s.nqueries; j++)
				if (s.queries[j].pool == it->rec->handle)
					vkl_snap_query_results(&s.queries[j]);
		}
		if (atomic_load(&it->rec->dead) && it->rec->handle) {
			const vkl_trim_rec **z = vkl_snap_push(&s, (void **)&ck.zombies, &ck.nzombies,
			                                       &ck.capzombies, sizeof(*ck.zombies));
			if (z)
				*z = it->rec;
		}
	}
	sbt_vk_arena_free(ck.arena);
	sbt_vk_arena_free(ck.tmpl_arena);
	sbt_vk_enc_free(&ck.enc);
	free(ck.flat);
	nrec = nw;

	for (i = 0; i + 1 < s.nmemories; i += 2) {
		vkl_device *d = vkl_device_get((const void *)(uintptr_t)s.memories[i + 1]);
		VkDeviceMemory mem = (VkDeviceMemory)(uintptr_t)s.memories[i];
		const vkl_snap_queue *q = vkl_snap_queue_of(&s, s.memories[i + 1]);
		vkl_memory_desc md;
		vkl_snap_staged g;
		int host, images, buffers;
		size_t j;
		if (!vkl_snap_memory_needed(&s, s.memories[i])) {
			CAP_INFO("Vulkan snapshot: VkDeviceMemory 0x%llx holds only attachments no render "
			         "pass loads: its contents are left out of the snapshot",
			         (unsigned long long)s.memories[i]);
			continue;
		}
		if (!vkl_memory_describe(mem, &md))
			continue;
		host = (md.flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
		/* through a mapping when the host can, unless asked to copy;
		 * memory imported from the application's host memory always (a
		 * buffer of the layer's own bound to it would need the import's
		 * handle type: VUID-vkBindBufferMemory-memory-02727) */
		if ((host && !vkl_config_get()->snapshot_staging) || md.host) {
			mem_bytes += vkl_memory_snapshot(d, mem);
			continue;
		}
		/* else through staging copies: the images' contents image by
		 * image (an image's bytes are not its contents on every device),
		 * in their current layouts (an image never used since its
		 * creation holds nothing); the bytes of the rest through a buffer
		 * bound over all of it */
		images = vkl_snap_memory_holds(&s, s.memories[i], 1);
		buffers = vkl_snap_memory_holds(&s, s.memories[i], 0) || !images;
		for (j = 0; j < s.nimages; j++) {
			vkl_snap_image *im = &s.images[j];
			if (im->tried || !vkl_snap_image_in(im, s.memories[i]) ||
			    !vkl_snap_image_defined(im) || !vkl_snap_image_needed(&s, im))
				continue;
			im->tried = 1; /* once, for every plane, whichever memory comes first */
			if (vkl_snap_read_image(d, q, im))
				mem_bytes += im->size;
		}
		memset(&g, 0, sizeof(g));
		if (buffers && vkl_snap_read_staged(d, q, mem, &md, &g)) {
			vkl_snap_staged *x = VKL_SNAP_PUSH(&s, staged, nstaged, capstaged);
			g.device = s.memories[i + 1];
			if (x) {
				*x = g;
				mem_bytes += g.size;
			} else {
				free(g.bytes);
			}
		}
	}
	/* the swapchain images the application holds, drawn before the window:
	 * a present in the window may show one */
	for (i = 0; i < s.nimages; i++) {
		vkl_snap_image *im = &s.images[i];
		if (im->swapchain && im->device && vkl_snap_held(&s, im) && vkl_snap_image_defined(im) &&
		    vkl_snap_read_image(vkl_device_get((const void *)(uintptr_t)im->device),
		                        vkl_snap_queue_of(&s, im->device), im))
			mem_bytes += im->size;
	}
	for (i = 0; i < s.ndevices; i++)
		vkl_snap_device(&s, s.devices[i], &next_handle);

	/* objects recreated for others only, newest first, memory last (after
	 * the images bound to it) */
	for (i = ck.nzombies; i-- > 0;)
		if (ck.zombies[i]->otype != VK_OBJECT_TYPE_DEVICE_MEMORY)
			vkl_snap_destroy(ck.zombies[i]);
	for (i = ck.nzombies; i-- > 0;)
		if (ck.zombies[i]->otype == VK_OBJECT_TYPE_DEVICE_MEMORY)
			vkl_snap_destroy(ck.zombies[i]);
	free(ck.zombies);
	for (i = 0; i < s.nimages; i++) {
		nlayouts += vkl_snap_image_moves(&s.images[i], NULL) != 0;
		ncopied += s.images[i].bytes != NULL;
	}
	CAP_INFO("Vulkan snapshot: %zu calls, %zu command buffer calls, %llu bytes "
	         "of memory, %zu image layouts, %zu images copied, %zu objects recreated for "
	         "others, %zu live objects not recreated, %zu query pools' results recorded",
	         nrec, ncmds, (unsigned long long)mem_bytes, nlayouts, ncopied, ck.nzombies, nleft,
	         nqresults);

	for (i = 0; i < s.nitems; i++) {
		vkl_trim_rec_release(s.items[i].rec);
		free(s.items[i].cmds);
		free(s.items[i].execs);
	}
	free(cbs);
	free(s.items);
	for (i = 0; i < s.nimages; i++) {
		free(s.images[i].bytes);
		free(s.images[i].sub);
		free(s.images[i].segs);
		free(s.images[i].regions);
	}
	free(s.images);
	free(s.syncs);
	free(s.queues);
	free(s.memories);
	free(s.devices);
	free(s.bound);
	free(s.loaded);
	for (i = 0; i < s.nstaged; i++)
		free(s.staged[i].bytes);
	free(s.staged);
	for (i = 0; i < s.nqueries; i++) {
		free(s.queries[i].written);
		free(s.queries[i].results);
	}
	free(s.queries);
	atomic_store(&vkl_trim_g.snapping, 0);
}
