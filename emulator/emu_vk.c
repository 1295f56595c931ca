/*
 * emu_vk.c - a Vulkan trace to the happens-before graph of its device
 * commands (docs/emulator.md "Vulkan"; the ordering model: emu_vk.h).
 *
 * One pass over the records, in seq order.  Recording a command buffer
 * keeps, per command buffer, the commands (with their memory footprints,
 * resolved when they are recorded: buffers by byte range, images whole,
 * descriptor sets through their last writes) and the barriers between
 * them.  A submit expands its command buffers into nodes on the queue's
 * stream, one step per batch (VkSubmitInfo), and carries the vector clocks
 * and barrier reach of every node forward: semaphores and fences hold the
 * clock of what they signal, each host thread the clock of what it waited
 * for.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_build.h"
#include "emulator/emu_vk.h"
#include "serializer/generated/sbt_vk_ignored.h"
#include "serializer/sbt_cli.h"
#include "serializer/sbt_vk.h"

#define EMU_VK_SETS 32        /* descriptor sets bound per bind point */
#define EMU_VK_VBUFS 32       /* vertex buffer bindings */
#define EMU_VK_ALL ((1u << EMU_VK_CLASSES) - 1u)
#define EMU_VK_BARRIER 0xffu  /* an item that is a barrier, not a command */

/* ---- a handle -> index map (open addressing; values EMU_NONE when gone) -- */

typedef struct emu_vk_map {
	uint64_t *key;
	uint32_t *val;
	size_t n, cap;
} emu_vk_map;

static uint32_t emu_vk_map_get(const emu_vk_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return EMU_NONE;
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key)
			return m->val[i];
	return EMU_NONE;
}

static int emu_vk_map_put(emu_vk_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (!key)
		return 0;
	if ((m->n + 1) * 2 > m->cap) {
		emu_vk_map old = *m;
		size_t ncap = m->cap ? m->cap * 2 : 64;

		m->key = calloc(ncap, sizeof(uint64_t));
		m->val = malloc(ncap * sizeof(uint32_t));
		if (!m->key || !m->val) {
			free(m->key);
			free(m->val);
			*m = old;
			return -1;
		}
		m->cap = ncap;
		m->n = 0;
		for (size_t k = 0; k < old.cap; k++)
			if (old.key[k] && emu_vk_map_put(m, old.key[k], old.val[k]) != 0)
				return -1;
		free(old.key);
		free(old.val);
	}
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key) {
			m->val[i] = val;
			return 0;
		}
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return 0;
}

static void emu_vk_map_free(emu_vk_map *m)
{
	free(m->key);
	free(m->val);
}

/* ---- the builder's state ---------------------------------------------------- */

typedef uint32_t emu_vk_vc[EMU_VK_QMAX];

/* to = max(to, from) over the first n queues (the others are 0 in both). */
static void emu_vk_vc_max(emu_vk_vc to, const emu_vk_vc from, size_t n)
{
	for (size_t q = 0; q < n; q++)
		to[q] = from[q] > to[q] ? from[q] : to[q];
}

/* One recorded item of a command buffer: a command or a barrier. */
typedef struct emu_vk_item {
	uint64_t seq, bytes;
	uint32_t stack_id, name;
	uint32_t acc_first, acc_count;  /* in the command buffer's acc (node unused) */
	uint8_t kind;                   /* EMU_K_*, or EMU_VK_BARRIER */
	uint8_t cls;
	/* a barrier: classes of its two scopes, and its memory dependency */
	uint8_t src, dst, srcw, dsta, global;
	uint32_t alloc;
	uint64_t lo, hi;
} emu_vk_item;

typedef struct emu_vk_cb {
	EMU_VEC(emu_vk_item) items;
	emu_accvec acc;
	uint64_t pool;
	uint64_t sets[2][EMU_VK_SETS];   /* graphics, compute bind points */
	uint32_t vbuf[EMU_VK_VBUFS];     /* alloc of each vertex binding (0: none) */
	uint64_t vbuf_off[EMU_VK_VBUFS];
	uint32_t ibuf;
	uint64_t ibuf_off;
	uint64_t render_pass;            /* inside vkCmdBeginRenderPass*: its render pass */
} emu_vk_cb;

/* A subpass dependency of a render pass with VK_SUBPASS_EXTERNAL on one
 * side: a barrier before the render pass (into) or after it. */
typedef struct emu_vk_rpdep {
	int into;
	VkPipelineStageFlags2 src, dst;
	VkAccessFlags2 srca, dsta;
} emu_vk_rpdep;

typedef struct emu_vk_rpass {
	EMU_VEC(emu_vk_rpdep) deps;
} emu_vk_rpass;

/* A descriptor: one array element of one binding of a set. */
typedef struct emu_vk_desc {
	uint32_t binding, elem;
	uint32_t alloc;                 /* 0: none (a sampler, a null descriptor) */
	uint32_t mode;
	uint64_t lo, hi;
} emu_vk_desc;

typedef struct emu_vk_set {
	EMU_VEC(emu_vk_desc) d;
} emu_vk_set;

/* A buffer view or image view: what it names. */
typedef struct emu_vk_view {
	uint32_t alloc;
	uint64_t lo, hi;
} emu_vk_view;

typedef struct emu_vk_image {
	uint32_t alloc;
	VkFormat format;
} emu_vk_image;

/* What a signal made known: the clock, and the step that signaled (EMU_NONE: none). */
typedef struct emu_vk_sig {
	uint64_t value;
	uint32_t step;
	emu_vk_vc vc;
} emu_vk_sig;

typedef struct emu_vk_sem {
	int timeline;
	int signaled;                   /* binary: a signal not yet waited on */
	EMU_VEC(emu_vk_sig) sigs;       /* binary: one; timeline: by value */
} emu_vk_sem;

typedef struct emu_vk_queue {
	uint32_t stream;
	uint32_t batch, pos;
	uint32_t last_step;             /* EMU_NONE */
	EMU_VEC(uint32_t) batch_step;   /* per batch: its step or the last one before (EMU_NONE) */
	emu_vk_vc front[EMU_VK_CLASSES]; /* what the next command of each class is after */
	emu_vk_vc all;                  /* what its commands so far are after */
	uint32_t reach[EMU_VK_CLASSES][EMU_VK_CLASSES];
	uint32_t floor[EMU_VK_CLASSES];  /* emu_vk_node.floor of the next command of each class */
	emu_vk_vc host_seen;            /* host clock entries already made dependencies */
} emu_vk_queue;

typedef struct emu_vk_thread {
	uint64_t thread;
	emu_vk_vc vc;
} emu_vk_thread;

typedef struct emu_vk_builder {
	emu_graph *g;
	struct emu_vk_graph *vk;
	const sbt_record *rec;
	sbt_vk_arena *arena;
	void *args;
	int16_t *cmd_of;                /* record type -> sbt_vk_cmd, -1 */
	uint32_t ntypes;
	emu_vk_map buffers, images, bviews, iviews, sets, cbs, queues, sems, fences, memory, swapchains, rpasses;
	EMU_VEC(emu_vk_rpass) rpass;
	EMU_VEC(uint32_t) buffer_alloc;
	EMU_VEC(emu_vk_image) image;
	EMU_VEC(emu_vk_view) view;
	EMU_VEC(emu_vk_set) set;
	EMU_VEC(emu_vk_cb) cb;
	EMU_VEC(emu_vk_queue) q;
	EMU_VEC(emu_vk_sem) sem;
	EMU_VEC(emu_vk_sig) fence;      /* value 1: signaled by a submit */
	EMU_VEC(uint64_t) mem_size;
	EMU_VEC(emu_vk_thread) threads;
	EMU_VEC(emu_vk_sig) present;    /* per (swapchain, image index): what its last present waited for */
	EMU_VEC(uint64_t) present_key;
	EMU_VEC(emu_dep) tmp;
	char *err;
	size_t errlen;
} emu_vk_builder;

/* ---- stages and accesses ------------------------------------------------------ */

#define EMU_VK_GFX_STAGES                                                                      \
	(VK_PIPELINE_STAGE_2_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |            \
	 VK_PIPELINE_STAGE_2_TESSELLATION_CONTROL_SHADER_BIT |                                     \
	 VK_PIPELINE_STAGE_2_TESSELLATION_EVALUATION_SHADER_BIT | VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT | \
	 VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |  \
	 VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT | \
	 VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT | VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT |               \
	 VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT)
#define EMU_VK_XFER_STAGES                                                                     \
	(VK_PIPELINE_STAGE_2_TRANSFER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_RESOLVE_BIT | \
	 VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT)

/* The stage classes a stage mask names.  first: the first synchronization
 * scope (TOP_OF_PIPE names nothing, BOTTOM_OF_PIPE everything), else the
 * second (the reverse). */
static uint8_t emu_vk_classes(VkPipelineStageFlags2 m, int first)
{
	uint8_t c = 0;

	if (m & VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT)
		return EMU_VK_ALL;
	if (m & (first ? VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT))
		return EMU_VK_ALL;
	if (m & EMU_VK_XFER_STAGES)
		c |= 1u << EMU_VK_TRANSFER;
	if (m & VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT)
		c |= 1u << EMU_VK_COMPUTE;
	if (m & EMU_VK_GFX_STAGES)
		c |= 1u << EMU_VK_GRAPHICS;
	if (m & VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT) /* indirect parameters of draws and dispatches */
		c |= (1u << EMU_VK_GRAPHICS) | (1u << EMU_VK_COMPUTE);
	return c;
}

/* Classes (among cls) whose writes access mask m makes available. */
static uint8_t emu_vk_writes(VkAccessFlags2 m, uint8_t cls)
{
	uint8_t c = 0;

	if (m & VK_ACCESS_2_MEMORY_WRITE_BIT)
		return cls;
	if (m & VK_ACCESS_2_TRANSFER_WRITE_BIT)
		c |= 1u << EMU_VK_TRANSFER;
	if (m & (VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT))
		c |= (1u << EMU_VK_COMPUTE) | (1u << EMU_VK_GRAPHICS);
	if (m & (VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT))
		c |= 1u << EMU_VK_GRAPHICS;
	return c & cls;
}

/* Classes (among cls) that access mask m makes memory visible to. */
static uint8_t emu_vk_visible(VkAccessFlags2 m, uint8_t cls)
{
	uint8_t c = 0;

	if (m & (VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT))
		return cls;
	if (m & (VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT))
		c |= 1u << EMU_VK_TRANSFER;
	if (m & (VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_UNIFORM_READ_BIT |
	         VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
	         VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT))
		c |= (1u << EMU_VK_COMPUTE) | (1u << EMU_VK_GRAPHICS);
	if (m & (VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT |
	         VK_ACCESS_2_INPUT_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT |
	         VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
	         VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT))
		c |= 1u << EMU_VK_GRAPHICS;
	return c & cls;
}

/* ---- objects ------------------------------------------------------------------------ */

static uint32_t emu_vk_alloc_new(emu_vk_builder *b, int type, uint64_t handle, uint64_t size)
{
	emu_alloc a = { 0 };

	a.size = size;
	a.seq = b->rec->seq;
	a.stack_id = b->rec->stack_id;
	a.vk = (uint8_t)type;
	a.handle = handle;
	if (EMU_PUSH(b->g->allocs, a) != 0)
		return EMU_NONE;
	return (uint32_t)b->g->allocs.n - 1;
}

static void emu_vk_alloc_end(emu_vk_builder *b, uint32_t al)
{
	if (al != EMU_NONE && al < b->g->allocs.n)
		b->g->allocs.v[al].free_seq = b->rec->seq;
}

static uint32_t emu_vk_buffer(const emu_vk_builder *b, VkBuffer h)
{
	uint32_t i = emu_vk_map_get(&b->buffers, (uint64_t)h);

	return i == EMU_NONE ? 0 : b->buffer_alloc.v[i];
}

static const emu_vk_image *emu_vk_image_of(const emu_vk_builder *b, VkImage h)
{
	uint32_t i = emu_vk_map_get(&b->images, (uint64_t)h);

	return i == EMU_NONE ? NULL : &b->image.v[i];
}

/* Bytes per texel of the common formats; 0 when not known here. */
static uint32_t emu_vk_texel(VkFormat f)
{
	switch (f) {
	case VK_FORMAT_R8_UNORM: case VK_FORMAT_R8_UINT: case VK_FORMAT_R8_SINT: case VK_FORMAT_S8_UINT:
		return 1;
	case VK_FORMAT_R16_UNORM: case VK_FORMAT_R16_UINT: case VK_FORMAT_R16_SFLOAT: case VK_FORMAT_R8G8_UNORM:
	case VK_FORMAT_D16_UNORM:
		return 2;
	case VK_FORMAT_R8G8B8A8_UNORM: case VK_FORMAT_R8G8B8A8_SRGB: case VK_FORMAT_B8G8R8A8_UNORM:
	case VK_FORMAT_B8G8R8A8_SRGB: case VK_FORMAT_R8G8B8A8_UINT: case VK_FORMAT_R32_UINT:
	case VK_FORMAT_R32_SINT: case VK_FORMAT_R32_SFLOAT: case VK_FORMAT_D32_SFLOAT:
	case VK_FORMAT_D24_UNORM_S8_UINT: case VK_FORMAT_X8_D24_UNORM_PACK32: case VK_FORMAT_R16G16_SFLOAT:
	case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
		return 4;
	case VK_FORMAT_R16G16B16A16_SFLOAT: case VK_FORMAT_R16G16B16A16_UNORM: case VK_FORMAT_R32G32_SFLOAT:
	case VK_FORMAT_R32G32_UINT:
		return 8;
	case VK_FORMAT_R32G32B32A32_SFLOAT: case VK_FORMAT_R32G32B32A32_UINT:
		return 16;
	default:
		return 0;
	}
}

static emu_vk_cb *emu_vk_cb_of(emu_vk_builder *b, VkCommandBuffer h)
{
	uint32_t i = emu_vk_map_get(&b->cbs, (uint64_t)(uintptr_t)h);
	emu_vk_cb c;

	if (i != EMU_NONE)
		return &b->cb.v[i];
	/* recorded before the trace began: known from now on */
	memset(&c, 0, sizeof(c));
	if (EMU_PUSH(b->cb, c) != 0 || emu_vk_map_put(&b->cbs, (uint64_t)(uintptr_t)h, (uint32_t)b->cb.n - 1) != 0)
		return NULL;
	return &b->cb.v[b->cb.n - 1];
}

static void emu_vk_cb_clear(emu_vk_cb *c)
{
	c->items.n = 0;
	c->acc.n = 0;
	memset(c->sets, 0, sizeof(c->sets));
	memset(c->vbuf, 0, sizeof(c->vbuf));
	c->ibuf = 0;
	c->render_pass = 0;
}

static emu_vk_queue *emu_vk_queue_of(emu_vk_builder *b, VkQueue h, uint32_t family, uint32_t index, int known)
{
	uint32_t i = emu_vk_map_get(&b->queues, (uint64_t)(uintptr_t)h);
	emu_stream s = { 0 };
	emu_vk_queue q;

	if (i != EMU_NONE) {
		if (known) {
			b->g->streams.v[b->q.v[i].stream].family = family;
			b->g->streams.v[b->q.v[i].stream].index = index;
			b->g->streams.v[b->q.v[i].stream].created = 1;
		}
		return &b->q.v[i];
	}
	if (b->q.n >= EMU_VK_QMAX) {
		snprintf(b->err, b->errlen, "seq %llu: more than %u queues (the emulator's limit)",
		         (unsigned long long)b->rec->seq, EMU_VK_QMAX);
		return NULL;
	}
	s.handle = (uint64_t)(uintptr_t)h;
	s.vk_queue = 1;
	s.created = (uint8_t)known; /* vkGetDeviceQueue seen: family and index known */
	s.family = family;
	s.index = index;
	memset(&q, 0, sizeof(q));
	q.stream = (uint32_t)b->g->streams.n;
	q.last_step = EMU_NONE;
	if (EMU_PUSH(b->g->streams, s) != 0 || EMU_PUSH(b->q, q) != 0 ||
	    emu_vk_map_put(&b->queues, s.handle, (uint32_t)b->q.n - 1) != 0)
		return NULL;
	return &b->q.v[b->q.n - 1];
}

static emu_vk_thread *emu_vk_thread_of(emu_vk_builder *b)
{
	emu_vk_thread t;

	for (size_t i = 0; i < b->threads.n; i++)
		if (b->threads.v[i].thread == b->rec->thread)
			return &b->threads.v[i];
	memset(&t, 0, sizeof(t));
	t.thread = b->rec->thread;
	if (EMU_PUSH(b->threads, t) != 0)
		return NULL;
	return &b->threads.v[b->threads.n - 1];
}

static emu_vk_sem *emu_vk_sem_of(emu_vk_builder *b, VkSemaphore h)
{
	uint32_t i = emu_vk_map_get(&b->sems, (uint64_t)h);
	emu_vk_sem s;

	if (i != EMU_NONE)
		return &b->sem.v[i];
	memset(&s, 0, sizeof(s));
	if (EMU_PUSH(b->sem, s) != 0 || emu_vk_map_put(&b->sems, (uint64_t)h, (uint32_t)b->sem.n - 1) != 0)
		return NULL;
	return &b->sem.v[b->sem.n - 1];
}

static emu_vk_sig *emu_vk_fence_of(emu_vk_builder *b, VkFence h)
{
	uint32_t i = emu_vk_map_get(&b->fences, (uint64_t)h);
	emu_vk_sig s;

	if (i != EMU_NONE)
		return &b->fence.v[i];
	memset(&s, 0, sizeof(s));
	s.step = EMU_NONE;
	if (EMU_PUSH(b->fence, s) != 0 || emu_vk_map_put(&b->fences, (uint64_t)h, (uint32_t)b->fence.n - 1) != 0)
		return NULL;
	return &b->fence.v[b->fence.n - 1];
}

/* A semaphore is signaled with what sig knows. */
static int emu_vk_signal(emu_vk_builder *b, VkSemaphore h, uint64_t value, const emu_vk_sig *sig)
{
	emu_vk_sem *s = emu_vk_sem_of(b, h);
	emu_vk_sig x = *sig;

	if (!s)
		return -1;
	x.value = value;
	if (!s->timeline) {
		s->sigs.n = 0;
		s->signaled = 1;
	}
	return EMU_PUSH(s->sigs, x);
}

/* What a wait on the semaphore (for value, on a timeline one) waits for;
 * NULL when no signal in the trace satisfies it. */
static const emu_vk_sig *emu_vk_wait_sig(emu_vk_builder *b, VkSemaphore h, uint64_t value, int consume)
{
	emu_vk_sem *s = emu_vk_sem_of(b, h);
	const emu_vk_sig *best = NULL;

	if (!s || !s->sigs.n)
		return NULL;
	if (!s->timeline) {
		if (!s->signaled)
			return NULL;
		if (consume)
			s->signaled = 0;
		return &s->sigs.v[s->sigs.n - 1];
	}
	/* the first signal that reached the value (values only grow) */
	for (size_t i = 0; i < s->sigs.n; i++)
		if (s->sigs.v[i].value >= value && (!best || s->sigs.v[i].value < best->value))
			best = &s->sigs.v[i];
	return best;
}

/* ---- recording: footprints ------------------------------------------------------------ */

static int emu_vk_acc(emu_vk_cb *c, uint32_t alloc, uint64_t lo, uint64_t hi, uint32_t mode)
{
	emu_access a;

	if (!alloc || hi <= lo)
		return 0;
	a.lo = lo;
	a.hi = hi;
	a.node = 0;
	a.alloc = alloc;
	a.mode = mode;
	return EMU_PUSH(c->acc, a);
}

/* [off, off+size) of a buffer, VK_WHOLE_SIZE meaning to its end. */
static int emu_vk_acc_buf(emu_vk_builder *b, emu_vk_cb *c, VkBuffer buf, uint64_t off, uint64_t size,
                          uint32_t mode)
{
	uint32_t al = emu_vk_buffer(b, buf);
	uint64_t end;

	if (!al)
		return 0;
	end = b->g->allocs.v[al].size;
	if (size != VK_WHOLE_SIZE && off + size >= off && off + size < end)
		end = off + size;
	return emu_vk_acc(c, al, off, end, mode);
}

static int emu_vk_acc_img(emu_vk_builder *b, emu_vk_cb *c, VkImage img, uint32_t mode)
{
	const emu_vk_image *im = emu_vk_image_of(b, img);

	return im ? emu_vk_acc(c, im->alloc, 0, 1, mode) : 0;
}

/* The buffer side of a buffer<->image copy: the rows it touches when the
 * image format's texel size is known, else from the offset to the end. */
static int emu_vk_acc_bufimg(emu_vk_builder *b, emu_vk_cb *c, VkBuffer buf, VkImage img,
                             const VkBufferImageCopy *r, uint32_t mode)
{
	const emu_vk_image *im = emu_vk_image_of(b, img);
	uint32_t t = im ? emu_vk_texel(im->format) : 0;
	uint64_t w = r->bufferRowLength ? r->bufferRowLength : r->imageExtent.width;
	uint64_t h = r->bufferImageHeight ? r->bufferImageHeight : r->imageExtent.height;
	uint64_t layers = r->imageSubresource.layerCount ? r->imageSubresource.layerCount : 1;
	uint64_t size = VK_WHOLE_SIZE;

	if (t && w && h && r->imageExtent.depth)
		size = t * (w * h * ((uint64_t)r->imageExtent.depth * layers - 1) +
		            w * (r->imageExtent.height - 1) + r->imageExtent.width);
	return emu_vk_acc_buf(b, c, buf, r->bufferOffset, size, mode);
}

/* The descriptors of the sets bound at bind point bp (0 graphics, 1 compute). */
static int emu_vk_acc_sets(emu_vk_builder *b, emu_vk_cb *c, int bp)
{
	for (unsigned i = 0; i < EMU_VK_SETS; i++) {
		uint32_t si = emu_vk_map_get(&b->sets, c->sets[bp][i]);

		if (si == EMU_NONE)
			continue;
		for (size_t k = 0; k < b->set.v[si].d.n; k++) {
			const emu_vk_desc *d = &b->set.v[si].d.v[k];

			if (emu_vk_acc(c, d->alloc, d->lo, d->hi, d->mode) != 0)
				return -1;
		}
	}
	return 0;
}

/* A command recorded into c; its footprint follows in c->acc. */
static emu_vk_item *emu_vk_item_new(emu_vk_builder *b, emu_vk_cb *c, unsigned kind, unsigned cls,
                                    const char *name, uint64_t bytes)
{
	emu_vk_item it;

	memset(&it, 0, sizeof(it));
	it.seq = b->rec->seq;
	it.stack_id = b->rec->stack_id;
	it.kind = (uint8_t)kind;
	it.cls = (uint8_t)cls;
	it.bytes = bytes;
	it.acc_first = (uint32_t)c->acc.n;
	it.name = name ? emu_name_put(b->g, name, strlen(name)) : 0;
	if (it.name == EMU_NONE || EMU_PUSH(c->items, it) != 0)
		return NULL;
	return &c->items.v[c->items.n - 1];
}

static void emu_vk_item_end(emu_vk_cb *c)
{
	emu_vk_item *it = &c->items.v[c->items.n - 1];

	it->acc_count = (uint32_t)(c->acc.n - it->acc_first);
}

/* A barrier item: execution dependency src -> dst (classes), with a memory
 * dependency for the resource (alloc 0: every resource) where the access
 * masks give one. */
static int emu_vk_barrier(emu_vk_builder *b, emu_vk_cb *c, VkPipelineStageFlags2 src,
                          VkPipelineStageFlags2 dst, VkAccessFlags2 srca, VkAccessFlags2 dsta,
                          uint32_t alloc, uint64_t lo, uint64_t hi, int global)
{
	emu_vk_item it;

	memset(&it, 0, sizeof(it));
	it.seq = b->rec->seq;
	it.kind = EMU_VK_BARRIER;
	it.src = emu_vk_classes(src, 1);
	it.dst = emu_vk_classes(dst, 0);
	it.srcw = emu_vk_writes(srca, it.src);
	it.dsta = emu_vk_visible(dsta, it.dst);
	it.global = (uint8_t)global;
	it.alloc = alloc;
	it.lo = lo;
	it.hi = hi;
	if (!global && !alloc)
		it.srcw = it.dsta = 0; /* a resource the trace never created */
	return EMU_PUSH(c->items, it);
}

static int emu_vk_buffer_barrier(emu_vk_builder *b, emu_vk_cb *c, VkPipelineStageFlags2 src,
                                 VkPipelineStageFlags2 dst, VkAccessFlags2 srca, VkAccessFlags2 dsta,
                                 VkBuffer buf, uint64_t off, uint64_t size)
{
	uint32_t al = emu_vk_buffer(b, buf);
	uint64_t end = al ? b->g->allocs.v[al].size : 0;

	if (size != VK_WHOLE_SIZE && off + size >= off && off + size < end)
		end = off + size;
	return emu_vk_barrier(b, c, src, dst, srca, dsta, al, off, end, 0);
}

static int emu_vk_image_barrier(emu_vk_builder *b, emu_vk_cb *c, VkPipelineStageFlags2 src,
                                VkPipelineStageFlags2 dst, VkAccessFlags2 srca, VkAccessFlags2 dsta,
                                VkImage img)
{
	const emu_vk_image *im = emu_vk_image_of(b, img);

	return emu_vk_barrier(b, c, src, dst, srca, dsta, im ? im->alloc : 0, 0, 1, 0);
}

static int emu_vk_dependency(emu_vk_builder *b, emu_vk_cb *c, const VkDependencyInfo *d)
{
	if (!d)
		return 0;
	for (uint32_t i = 0; i < d->memoryBarrierCount && d->pMemoryBarriers; i++) {
		const VkMemoryBarrier2 *m = &d->pMemoryBarriers[i];

		if (emu_vk_barrier(b, c, m->srcStageMask, m->dstStageMask, m->srcAccessMask, m->dstAccessMask, 0,
		                   0, 0, 1) != 0)
			return -1;
	}
	for (uint32_t i = 0; i < d->bufferMemoryBarrierCount && d->pBufferMemoryBarriers; i++) {
		const VkBufferMemoryBarrier2 *m = &d->pBufferMemoryBarriers[i];

		if (emu_vk_buffer_barrier(b, c, m->srcStageMask, m->dstStageMask, m->srcAccessMask,
		                          m->dstAccessMask, m->buffer, m->offset, m->size) != 0)
			return -1;
	}
	for (uint32_t i = 0; i < d->imageMemoryBarrierCount && d->pImageMemoryBarriers; i++) {
		const VkImageMemoryBarrier2 *m = &d->pImageMemoryBarriers[i];

		if (emu_vk_image_barrier(b, c, m->srcStageMask, m->dstStageMask, m->srcAccessMask,
		                         m->dstAccessMask, m->image) != 0)
			return -1;
	}
	return 0;
}

static int emu_vk_barrier1(emu_vk_builder *b, emu_vk_cb *c, const sbt_vk_args_vkCmdPipelineBarrier *a)
{
	/* the execution dependency, then each memory dependency under it */
	if (emu_vk_barrier(b, c, a->srcStageMask, a->dstStageMask, 0, 0, 0, 0, 0, 1) != 0)
		return -1;
	for (uint32_t i = 0; i < a->memoryBarrierCount && a->pMemoryBarriers; i++)
		if (emu_vk_barrier(b, c, a->srcStageMask, a->dstStageMask, a->pMemoryBarriers[i].srcAccessMask,
		                   a->pMemoryBarriers[i].dstAccessMask, 0, 0, 0, 1) != 0)
			return -1;
	for (uint32_t i = 0; i < a->bufferMemoryBarrierCount && a->pBufferMemoryBarriers; i++) {
		const VkBufferMemoryBarrier *m = &a->pBufferMemoryBarriers[i];

		if (emu_vk_buffer_barrier(b, c, a->srcStageMask, a->dstStageMask, m->srcAccessMask,
		                          m->dstAccessMask, m->buffer, m->offset, m->size) != 0)
			return -1;
	}
	for (uint32_t i = 0; i < a->imageMemoryBarrierCount && a->pImageMemoryBarriers; i++) {
		const VkImageMemoryBarrier *m = &a->pImageMemoryBarriers[i];

		if (emu_vk_image_barrier(b, c, a->srcStageMask, a->dstStageMask, m->srcAccessMask,
		                         m->dstAccessMask, m->image) != 0)
			return -1;
	}
	return 0;
}

/* ---- recording: one function per group of vkCmd* ----------------------------------------- */

static const char *emu_vk_name(emu_vk_builder *b)
{
	const char *n = sbt_reader_type_name(b->g->r, b->rec->type);

	return n && !strncmp(n, "vulkan.", 7) ? n + 7 : n;
}

static int emu_vk_r_dispatch(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdDispatch *a = b->args; /* commandBuffer first in every vkCmd* */
	emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);

	if (!c || !emu_vk_item_new(b, c, EMU_K_DISPATCH, EMU_VK_COMPUTE, emu_vk_name(b), 0) ||
	    emu_vk_acc_sets(b, c, 1) != 0)
		return -1;
	if (cmd == SBT_VK_CMD_vkCmdDispatchIndirect) {
		const sbt_vk_args_vkCmdDispatchIndirect *d = b->args;

		if (emu_vk_acc_buf(b, c, d->buffer, d->offset, sizeof(VkDispatchIndirectCommand), EMU_A_READ) != 0)
			return -1;
	}
	emu_vk_item_end(c);
	return 0;
}

static int emu_vk_r_draw(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdDraw *a = b->args;
	emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);
	int indexed = cmd == SBT_VK_CMD_vkCmdDrawIndexed || cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirect ||
	              cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirectCount || cmd == SBT_VK_CMD_vkCmdDrawMultiIndexedEXT;

	if (!c || !emu_vk_item_new(b, c, EMU_K_DRAW, EMU_VK_GRAPHICS, emu_vk_name(b), 0) ||
	    emu_vk_acc_sets(b, c, 0) != 0)
		return -1;
	for (unsigned i = 0; i < EMU_VK_VBUFS; i++)
		if (c->vbuf[i] &&
		    emu_vk_acc(c, c->vbuf[i], c->vbuf_off[i], b->g->allocs.v[c->vbuf[i]].size, EMU_A_READ) != 0)
			return -1;
	if (indexed && c->ibuf && emu_vk_acc(c, c->ibuf, c->ibuf_off, b->g->allocs.v[c->ibuf].size, EMU_A_READ) != 0)
		return -1;
	if (cmd == SBT_VK_CMD_vkCmdDrawIndirect || cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirect) {
		const sbt_vk_args_vkCmdDrawIndirect *d = b->args;

		if (emu_vk_acc_buf(b, c, d->buffer, d->offset, VK_WHOLE_SIZE, EMU_A_READ) != 0)
			return -1;
	} else if (cmd == SBT_VK_CMD_vkCmdDrawIndirectCount || cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirectCount) {
		const sbt_vk_args_vkCmdDrawIndirectCount *d = b->args;

		if (emu_vk_acc_buf(b, c, d->buffer, d->offset, VK_WHOLE_SIZE, EMU_A_READ) != 0 ||
		    emu_vk_acc_buf(b, c, d->countBuffer, d->countBufferOffset, 4, EMU_A_READ) != 0)
			return -1;
	}
	emu_vk_item_end(c);
	return 0;
}

/* Copies, blits, resolves, fills, updates and clears. */
static int emu_vk_r_transfer(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdCopyBuffer *a0 = b->args;
	emu_vk_cb *c = emu_vk_cb_of(b, a0->commandBuffer);
	emu_vk_item *it;
	unsigned kind = EMU_K_TRANSFER;
	int st = 0;

	switch (cmd) {
	case SBT_VK_CMD_vkCmdFillBuffer:
	case SBT_VK_CMD_vkCmdUpdateBuffer:
	case SBT_VK_CMD_vkCmdClearColorImage:
	case SBT_VK_CMD_vkCmdClearDepthStencilImage:
		kind = EMU_K_FILL;
		break;
	default:
		break;
	}
	if (!c || !(it = emu_vk_item_new(b, c, kind, EMU_VK_TRANSFER, emu_vk_name(b), 0)))
		return -1;
	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyBuffer: {
		const sbt_vk_args_vkCmdCopyBuffer *a = b->args;

		for (uint32_t i = 0; i < a->regionCount && a->pRegions && st == 0; i++) {
			const VkBufferCopy *r = &a->pRegions[i];

			it->bytes += r->size;
			st = emu_vk_acc_buf(b, c, a->srcBuffer, r->srcOffset, r->size, EMU_A_READ) |
			     emu_vk_acc_buf(b, c, a->dstBuffer, r->dstOffset, r->size, EMU_A_WRITE);
		}
		break;
	}
	case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: {
		const VkCopyBufferInfo2 *a = ((const sbt_vk_args_vkCmdCopyBuffer2 *)b->args)->pCopyBufferInfo;

		for (uint32_t i = 0; a && i < a->regionCount && a->pRegions && st == 0; i++) {
			const VkBufferCopy2 *r = &a->pRegions[i];

			it->bytes += r->size;
			st = emu_vk_acc_buf(b, c, a->srcBuffer, r->srcOffset, r->size, EMU_A_READ) |
			     emu_vk_acc_buf(b, c, a->dstBuffer, r->dstOffset, r->size, EMU_A_WRITE);
		}
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImage:
	case SBT_VK_CMD_vkCmdBlitImage:
	case SBT_VK_CMD_vkCmdResolveImage: {
		const sbt_vk_args_vkCmdCopyImage *a = b->args; /* srcImage, srcImageLayout, dstImage first */

		st = emu_vk_acc_img(b, c, a->srcImage, EMU_A_READ) | emu_vk_acc_img(b, c, a->dstImage, EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImage2:
	case SBT_VK_CMD_vkCmdCopyImage2KHR: {
		const VkCopyImageInfo2 *a = ((const sbt_vk_args_vkCmdCopyImage2 *)b->args)->pCopyImageInfo;

		if (a)
			st = emu_vk_acc_img(b, c, a->srcImage, EMU_A_READ) |
			     emu_vk_acc_img(b, c, a->dstImage, EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR: {
		const VkBlitImageInfo2 *a = ((const sbt_vk_args_vkCmdBlitImage2 *)b->args)->pBlitImageInfo;

		if (a)
			st = emu_vk_acc_img(b, c, a->srcImage, EMU_A_READ) |
			     emu_vk_acc_img(b, c, a->dstImage, EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR: {
		const VkResolveImageInfo2 *a = ((const sbt_vk_args_vkCmdResolveImage2 *)b->args)->pResolveImageInfo;

		if (a)
			st = emu_vk_acc_img(b, c, a->srcImage, EMU_A_READ) |
			     emu_vk_acc_img(b, c, a->dstImage, EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage: {
		const sbt_vk_args_vkCmdCopyBufferToImage *a = b->args;

		st = emu_vk_acc_img(b, c, a->dstImage, EMU_A_WRITE);
		for (uint32_t i = 0; i < a->regionCount && a->pRegions && st == 0; i++)
			st = emu_vk_acc_bufimg(b, c, a->srcBuffer, a->dstImage, &a->pRegions[i], EMU_A_READ);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer: {
		const sbt_vk_args_vkCmdCopyImageToBuffer *a = b->args;

		st = emu_vk_acc_img(b, c, a->srcImage, EMU_A_READ);
		for (uint32_t i = 0; i < a->regionCount && a->pRegions && st == 0; i++)
			st = emu_vk_acc_bufimg(b, c, a->dstBuffer, a->srcImage, &a->pRegions[i], EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR: {
		const VkCopyBufferToImageInfo2 *a =
		        ((const sbt_vk_args_vkCmdCopyBufferToImage2 *)b->args)->pCopyBufferToImageInfo;

		if (!a)
			break;
		st = emu_vk_acc_img(b, c, a->dstImage, EMU_A_WRITE);
		for (uint32_t i = 0; i < a->regionCount && a->pRegions && st == 0; i++) {
			const VkBufferImageCopy2 *r = &a->pRegions[i];
			VkBufferImageCopy r1 = { r->bufferOffset, r->bufferRowLength, r->bufferImageHeight,
				                 r->imageSubresource, r->imageOffset, r->imageExtent };

			st = emu_vk_acc_bufimg(b, c, a->srcBuffer, a->dstImage, &r1, EMU_A_READ);
		}
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR: {
		const VkCopyImageToBufferInfo2 *a =
		        ((const sbt_vk_args_vkCmdCopyImageToBuffer2 *)b->args)->pCopyImageToBufferInfo;

		if (!a)
			break;
		st = emu_vk_acc_img(b, c, a->srcImage, EMU_A_READ);
		for (uint32_t i = 0; i < a->regionCount && a->pRegions && st == 0; i++) {
			const VkBufferImageCopy2 *r = &a->pRegions[i];
			VkBufferImageCopy r1 = { r->bufferOffset, r->bufferRowLength, r->bufferImageHeight,
				                 r->imageSubresource, r->imageOffset, r->imageExtent };

			st = emu_vk_acc_bufimg(b, c, a->dstBuffer, a->srcImage, &r1, EMU_A_WRITE);
		}
		break;
	}
	case SBT_VK_CMD_vkCmdFillBuffer: {
		const sbt_vk_args_vkCmdFillBuffer *a = b->args;

		st = emu_vk_acc_buf(b, c, a->dstBuffer, a->dstOffset, a->size, EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdUpdateBuffer: {
		const sbt_vk_args_vkCmdUpdateBuffer *a = b->args;

		st = emu_vk_acc_buf(b, c, a->dstBuffer, a->dstOffset, a->dataSize, EMU_A_WRITE);
		break;
	}
	case SBT_VK_CMD_vkCmdClearColorImage:
	case SBT_VK_CMD_vkCmdClearDepthStencilImage: {
		const sbt_vk_args_vkCmdClearColorImage *a = b->args; /* image second in both */

		st = emu_vk_acc_img(b, c, a->image, EMU_A_WRITE);
		break;
	}
	default:
		break;
	}
	if (st != 0)
		return -1;
	it = &c->items.v[c->items.n - 1];
	if (!it->bytes)
		for (uint32_t i = 0; i < (uint32_t)(c->acc.n - it->acc_first); i++)
			if (c->acc.v[it->acc_first + i].mode & EMU_A_WRITE)
				it->bytes += c->acc.v[it->acc_first + i].hi - c->acc.v[it->acc_first + i].lo;
	emu_vk_item_end(c);
	return 0;
}

static int emu_vk_r_bind(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdBindDescriptorSets *a0 = b->args;
	emu_vk_cb *c = emu_vk_cb_of(b, a0->commandBuffer);

	if (!c)
		return -1;
	if (cmd == SBT_VK_CMD_vkCmdBindDescriptorSets) {
		int bp = a0->pipelineBindPoint == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 :
		         a0->pipelineBindPoint == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : -1;

		for (uint32_t i = 0; bp >= 0 && a0->pDescriptorSets && i < a0->descriptorSetCount; i++)
			if (a0->firstSet + i < EMU_VK_SETS)
				c->sets[bp][a0->firstSet + i] = (uint64_t)a0->pDescriptorSets[i];
	} else if (cmd == SBT_VK_CMD_vkCmdBindVertexBuffers || cmd == SBT_VK_CMD_vkCmdBindVertexBuffers2 ||
	           cmd == SBT_VK_CMD_vkCmdBindVertexBuffers2EXT) {
		const sbt_vk_args_vkCmdBindVertexBuffers *a = b->args; /* the same leading members */

		for (uint32_t i = 0; a->pBuffers && a->pOffsets && i < a->bindingCount; i++)
			if (a->firstBinding + i < EMU_VK_VBUFS) {
				c->vbuf[a->firstBinding + i] = emu_vk_buffer(b, a->pBuffers[i]);
				c->vbuf_off[a->firstBinding + i] = a->pOffsets[i];
			}
	} else if (cmd == SBT_VK_CMD_vkCmdBindIndexBuffer) {
		const sbt_vk_args_vkCmdBindIndexBuffer *a = b->args;

		c->ibuf = emu_vk_buffer(b, a->buffer);
		c->ibuf_off = a->offset;
	}
	return 0;
}

static int emu_vk_r_barrier(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdPipelineBarrier *a = b->args;
	emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);

	if (!c)
		return -1;
	switch (cmd) {
	case SBT_VK_CMD_vkCmdPipelineBarrier:
		return emu_vk_barrier1(b, c, a);
	case SBT_VK_CMD_vkCmdWaitEvents: {
		/* taken as a barrier where the wait is: what was recorded between
		 * the vkCmdSetEvent and here counts as ordered too (a race there
		 * is missed, none is invented) */
		const sbt_vk_args_vkCmdWaitEvents *w = b->args;
		sbt_vk_args_vkCmdPipelineBarrier x = { w->commandBuffer, w->srcStageMask, w->dstStageMask, 0,
			                               w->memoryBarrierCount, w->pMemoryBarriers,
			                               w->bufferMemoryBarrierCount, w->pBufferMemoryBarriers,
			                               w->imageMemoryBarrierCount, w->pImageMemoryBarriers };

		return emu_vk_barrier1(b, c, &x);
	}
	case SBT_VK_CMD_vkCmdWaitEvents2:
	case SBT_VK_CMD_vkCmdWaitEvents2KHR: {
		const sbt_vk_args_vkCmdWaitEvents2 *w = b->args;

		for (uint32_t i = 0; w->pDependencyInfos && i < w->eventCount; i++)
			if (emu_vk_dependency(b, c, &w->pDependencyInfos[i]) != 0)
				return -1;
		return 0;
	}
	default:
		return emu_vk_dependency(b, c, ((const sbt_vk_args_vkCmdPipelineBarrier2 *)b->args)->pDependencyInfo);
	}
}

/* vkCmdBeginRenderPass* / vkCmdEndRenderPass*: the render pass's external
 * subpass dependencies, as barriers before and after it. */
static int emu_vk_r_render_pass(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdBeginRenderPass *a = b->args;
	emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);
	int begin = cmd == SBT_VK_CMD_vkCmdBeginRenderPass || cmd == SBT_VK_CMD_vkCmdBeginRenderPass2 ||
	            cmd == SBT_VK_CMD_vkCmdBeginRenderPass2KHR;
	uint32_t ri;

	if (!c)
		return -1;
	if (begin)
		c->render_pass = a->pRenderPassBegin ? (uint64_t)a->pRenderPassBegin->renderPass : 0;
	ri = emu_vk_map_get(&b->rpasses, c->render_pass);
	if (!begin)
		c->render_pass = 0;
	for (size_t i = 0; ri != EMU_NONE && i < b->rpass.v[ri].deps.n; i++) {
		const emu_vk_rpdep *d = &b->rpass.v[ri].deps.v[i];

		if (d->into == begin && emu_vk_barrier(b, c, d->src, d->dst, d->srca, d->dsta, 0, 0, 0, 1) != 0)
			return -1;
	}
	return 0;
}

/* vkCmdExecuteCommands: the secondary command buffers' items, as recorded. */
static int emu_vk_r_execute(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdExecuteCommands *a = b->args;
	emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);

	(void)cmd;
	if (!c)
		return -1;
	for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++) {
		emu_vk_cb *s = emu_vk_cb_of(b, a->pCommandBuffers[i]);

		c = emu_vk_cb_of(b, a->commandBuffer); /* the vector may have moved */
		if (!s || !c)
			return -1;
		for (size_t k = 0; k < s->items.n; k++) {
			emu_vk_item it = s->items.v[k];

			it.acc_first = (uint32_t)c->acc.n;
			for (uint32_t x = 0; x < s->items.v[k].acc_count; x++)
				if (EMU_PUSH(c->acc, s->acc.v[s->items.v[k].acc_first + x]) != 0)
					return -1;
			if (EMU_PUSH(c->items, it) != 0)
				return -1;
		}
	}
	return 0;
}

/* ---- objects and descriptors ---------------------------------------------------------- */

static int emu_vk_desc_put(emu_vk_set *s, const emu_vk_desc *d)
{
	for (size_t i = 0; i < s->d.n; i++)
		if (s->d.v[i].binding == d->binding && s->d.v[i].elem == d->elem) {
			s->d.v[i] = *d;
			return 0;
		}
	return EMU_PUSH(s->d, *d);
}

/* Which descriptor types the shaders may write (docs: "possible writes"). */
static uint32_t emu_vk_desc_mode(VkDescriptorType t)
{
	switch (t) {
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
	case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
	case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
		return EMU_A_READ | EMU_A_MAYWRITE;
	case VK_DESCRIPTOR_TYPE_SAMPLER:
		return 0;
	default:
		return EMU_A_READ;
	}
}

static int emu_vk_update_sets(emu_vk_builder *b)
{
	const sbt_vk_args_vkUpdateDescriptorSets *a = b->args;

	for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++) {
		const VkWriteDescriptorSet *w = &a->pDescriptorWrites[i];
		uint32_t si = emu_vk_map_get(&b->sets, (uint64_t)w->dstSet);
		uint32_t mode = emu_vk_desc_mode(w->descriptorType);

		if (si == EMU_NONE)
			continue;
		for (uint32_t k = 0; k < w->descriptorCount; k++) {
			emu_vk_desc d = { w->dstBinding, w->dstArrayElement + k, 0, mode, 0, 0 };

			/* only the member the descriptor type selects is meaningful */
			if (!sbt_vk_ignored_VkWriteDescriptorSet_pBufferInfo(w) && w->pBufferInfo) {
				const VkDescriptorBufferInfo *bi = &w->pBufferInfo[k];
				uint32_t al = emu_vk_buffer(b, bi->buffer);

				if (al) {
					int dyn = w->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
					          w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;

					d.alloc = al;
					d.lo = bi->offset;
					d.hi = b->g->allocs.v[al].size;
					/* a dynamic offset moves the range: to the end of the buffer */
					if (!dyn && bi->range != VK_WHOLE_SIZE && bi->offset + bi->range < d.hi)
						d.hi = bi->offset + bi->range;
				}
			} else if (!sbt_vk_ignored_VkWriteDescriptorSet_pImageInfo(w) && w->pImageInfo) {
				uint32_t vi = emu_vk_map_get(&b->iviews, (uint64_t)w->pImageInfo[k].imageView);

				if (vi != EMU_NONE) {
					d.alloc = b->view.v[vi].alloc;
					d.lo = 0;
					d.hi = 1;
				}
			} else if (!sbt_vk_ignored_VkWriteDescriptorSet_pTexelBufferView(w) && w->pTexelBufferView) {
				uint32_t vi = emu_vk_map_get(&b->bviews, (uint64_t)w->pTexelBufferView[k]);

				if (vi != EMU_NONE) {
					d.alloc = b->view.v[vi].alloc;
					d.lo = b->view.v[vi].lo;
					d.hi = b->view.v[vi].hi;
				}
			}
			if (emu_vk_desc_put(&b->set.v[si], &d) != 0)
				return -1;
		}
	}
	for (uint32_t i = 0; a->pDescriptorCopies && i < a->descriptorCopyCount; i++) {
		const VkCopyDescriptorSet *cp = &a->pDescriptorCopies[i];
		uint32_t from = emu_vk_map_get(&b->sets, (uint64_t)cp->srcSet);
		uint32_t to = emu_vk_map_get(&b->sets, (uint64_t)cp->dstSet);

		if (from == EMU_NONE || to == EMU_NONE)
			continue;
		for (uint32_t k = 0; k < cp->descriptorCount; k++)
			for (size_t x = 0; x < b->set.v[from].d.n; x++) {
				emu_vk_desc d = b->set.v[from].d.v[x];

				if (d.binding != cp->srcBinding || d.elem != cp->srcArrayElement + k)
					continue;
				d.binding = cp->dstBinding;
				d.elem = cp->dstArrayElement + k;
				if (emu_vk_desc_put(&b->set.v[to], &d) != 0)
					return -1;
				break;
			}
	}
	return 0;
}

static int emu_vk_new_image(emu_vk_builder *b, VkImage h, VkFormat format)
{
	emu_vk_image im = { emu_vk_alloc_new(b, EMU_VK_IMAGE, (uint64_t)h, 1), format };

	if (im.alloc == EMU_NONE || EMU_PUSH(b->image, im) != 0)
		return -1;
	return emu_vk_map_put(&b->images, (uint64_t)h, (uint32_t)b->image.n - 1);
}

/* A render pass: its dependencies on VK_SUBPASS_EXTERNAL. */
static int emu_vk_new_render_pass(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCreateRenderPass *a = b->args;
	const sbt_vk_args_vkCreateRenderPass2 *a2 = b->args;
	emu_vk_rpass rp = { { 0 } };
	uint32_t n;

	if (a->ret != VK_SUCCESS || !a->pRenderPass || !a->pCreateInfo)
		return 0;
	n = cmd == SBT_VK_CMD_vkCreateRenderPass ? a->pCreateInfo->dependencyCount : a2->pCreateInfo->dependencyCount;
	for (uint32_t i = 0; i < n; i++) {
		emu_vk_rpdep d;
		uint32_t from, to;

		if (cmd == SBT_VK_CMD_vkCreateRenderPass) {
			const VkSubpassDependency *x = &a->pCreateInfo->pDependencies[i];

			from = x->srcSubpass;
			to = x->dstSubpass;
			d.src = x->srcStageMask;
			d.dst = x->dstStageMask;
			d.srca = x->srcAccessMask;
			d.dsta = x->dstAccessMask;
		} else {
			const VkSubpassDependency2 *x = &a2->pCreateInfo->pDependencies[i];

			from = x->srcSubpass;
			to = x->dstSubpass;
			d.src = x->srcStageMask;
			d.dst = x->dstStageMask;
			d.srca = x->srcAccessMask;
			d.dsta = x->dstAccessMask;
		}
		if ((from == VK_SUBPASS_EXTERNAL) == (to == VK_SUBPASS_EXTERNAL))
			continue; /* between subpasses, or malformed */
		d.into = from == VK_SUBPASS_EXTERNAL;
		if (EMU_PUSH(rp.deps, d) != 0) {
			free(rp.deps.v);
			return -1;
		}
	}
	if (EMU_PUSH(b->rpass, rp) != 0) {
		free(rp.deps.v);
		return -1;
	}
	return emu_vk_map_put(&b->rpasses, (uint64_t)*a->pRenderPass, (uint32_t)b->rpass.n - 1);
}

/* Creation and destruction of what footprints name. */
static int emu_vk_r_object(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCreateBuffer: {
		const sbt_vk_args_vkCreateBuffer *a = b->args;
		uint32_t al;

		if (a->ret != VK_SUCCESS || !a->pBuffer || !a->pCreateInfo)
			return 0;
		al = emu_vk_alloc_new(b, EMU_VK_BUFFER, (uint64_t)*a->pBuffer, a->pCreateInfo->size);
		if (al == EMU_NONE || EMU_PUSH(b->buffer_alloc, al) != 0)
			return -1;
		return emu_vk_map_put(&b->buffers, (uint64_t)*a->pBuffer, (uint32_t)b->buffer_alloc.n - 1);
	}
	case SBT_VK_CMD_vkDestroyBuffer: {
		const sbt_vk_args_vkDestroyBuffer *a = b->args;
		uint32_t i = emu_vk_map_get(&b->buffers, (uint64_t)a->buffer);

		if (i != EMU_NONE) {
			emu_vk_alloc_end(b, b->buffer_alloc.v[i]);
			return emu_vk_map_put(&b->buffers, (uint64_t)a->buffer, EMU_NONE);
		}
		return 0;
	}
	case SBT_VK_CMD_vkCreateImage: {
		const sbt_vk_args_vkCreateImage *a = b->args;

		if (a->ret != VK_SUCCESS || !a->pImage || !a->pCreateInfo)
			return 0;
		return emu_vk_new_image(b, *a->pImage, a->pCreateInfo->format);
	}
	case SBT_VK_CMD_vkGetSwapchainImagesKHR: {
		const sbt_vk_args_vkGetSwapchainImagesKHR *a = b->args;

		if ((a->ret != VK_SUCCESS && a->ret != VK_INCOMPLETE) || !a->pSwapchainImages || !a->pSwapchainImageCount)
			return 0;
		for (uint32_t i = 0; i < *a->pSwapchainImageCount; i++)
			if (!emu_vk_image_of(b, a->pSwapchainImages[i]) &&
			    emu_vk_new_image(b, a->pSwapchainImages[i], VK_FORMAT_UNDEFINED) != 0)
				return -1;
		return 0;
	}
	case SBT_VK_CMD_vkDestroyImage: {
		const sbt_vk_args_vkDestroyImage *a = b->args;
		const emu_vk_image *im = emu_vk_image_of(b, a->image);

		if (im) {
			emu_vk_alloc_end(b, im->alloc);
			return emu_vk_map_put(&b->images, (uint64_t)a->image, EMU_NONE);
		}
		return 0;
	}
	case SBT_VK_CMD_vkCreateImageView: {
		const sbt_vk_args_vkCreateImageView *a = b->args;
		const emu_vk_image *im;
		emu_vk_view v = { 0, 0, 1 };

		if (a->ret != VK_SUCCESS || !a->pView || !a->pCreateInfo || !(im = emu_vk_image_of(b, a->pCreateInfo->image)))
			return 0;
		v.alloc = im->alloc;
		if (EMU_PUSH(b->view, v) != 0)
			return -1;
		return emu_vk_map_put(&b->iviews, (uint64_t)*a->pView, (uint32_t)b->view.n - 1);
	}
	case SBT_VK_CMD_vkCreateBufferView: {
		const sbt_vk_args_vkCreateBufferView *a = b->args;
		emu_vk_view v = { 0, 0, 0 };

		if (a->ret != VK_SUCCESS || !a->pView || !a->pCreateInfo || !(v.alloc = emu_vk_buffer(b, a->pCreateInfo->buffer)))
			return 0;
		v.lo = a->pCreateInfo->offset;
		v.hi = b->g->allocs.v[v.alloc].size;
		if (a->pCreateInfo->range != VK_WHOLE_SIZE && v.lo + a->pCreateInfo->range < v.hi)
			v.hi = v.lo + a->pCreateInfo->range;
		if (EMU_PUSH(b->view, v) != 0)
			return -1;
		return emu_vk_map_put(&b->bviews, (uint64_t)*a->pView, (uint32_t)b->view.n - 1);
	}
	case SBT_VK_CMD_vkAllocateDescriptorSets: {
		const sbt_vk_args_vkAllocateDescriptorSets *a = b->args;

		if (a->ret != VK_SUCCESS || !a->pDescriptorSets || !a->pAllocateInfo)
			return 0;
		for (uint32_t i = 0; i < a->pAllocateInfo->descriptorSetCount; i++) {
			uint32_t si = emu_vk_map_get(&b->sets, (uint64_t)a->pDescriptorSets[i]);
			emu_vk_set s = { { 0 } };

			if (si != EMU_NONE) { /* a handle used again: a fresh set */
				b->set.v[si].d.n = 0;
				continue;
			}
			if (EMU_PUSH(b->set, s) != 0 ||
			    emu_vk_map_put(&b->sets, (uint64_t)a->pDescriptorSets[i], (uint32_t)b->set.n - 1) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSets:
		return emu_vk_update_sets(b);
	case SBT_VK_CMD_vkCreateRenderPass:
	case SBT_VK_CMD_vkCreateRenderPass2:
	case SBT_VK_CMD_vkCreateRenderPass2KHR:
		return emu_vk_new_render_pass(b, cmd);
	case SBT_VK_CMD_vkAllocateCommandBuffers: {
		const sbt_vk_args_vkAllocateCommandBuffers *a = b->args;

		if (a->ret != VK_SUCCESS || !a->pCommandBuffers || !a->pAllocateInfo)
			return 0;
		for (uint32_t i = 0; i < a->pAllocateInfo->commandBufferCount; i++) {
			emu_vk_cb *c = emu_vk_cb_of(b, a->pCommandBuffers[i]);

			if (!c)
				return -1;
			emu_vk_cb_clear(c);
			c->pool = (uint64_t)a->pAllocateInfo->commandPool;
		}
		return 0;
	}
	case SBT_VK_CMD_vkBeginCommandBuffer:
	case SBT_VK_CMD_vkResetCommandBuffer: {
		const sbt_vk_args_vkBeginCommandBuffer *a = b->args;
		emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);

		if (!c)
			return -1;
		emu_vk_cb_clear(c);
		return 0;
	}
	case SBT_VK_CMD_vkResetCommandPool: {
		const sbt_vk_args_vkResetCommandPool *a = b->args;

		for (size_t i = 0; i < b->cb.n; i++)
			if (b->cb.v[i].pool == (uint64_t)a->commandPool)
				emu_vk_cb_clear(&b->cb.v[i]);
		return 0;
	}
	case SBT_VK_CMD_vkAllocateMemory: {
		const sbt_vk_args_vkAllocateMemory *a = b->args;
		emu_memev m = { b->rec->seq, 0, 0 };

		if (a->ret != VK_SUCCESS || !a->pMemory || !a->pAllocateInfo)
			return 0;
		m.device_delta = (int64_t)a->pAllocateInfo->allocationSize;
		if (EMU_PUSH(b->mem_size, a->pAllocateInfo->allocationSize) != 0 ||
		    emu_vk_map_put(&b->memory, (uint64_t)*a->pMemory, (uint32_t)b->mem_size.n - 1) != 0)
			return -1;
		return EMU_PUSH(b->g->mem, m);
	}
	case SBT_VK_CMD_vkFreeMemory: {
		const sbt_vk_args_vkFreeMemory *a = b->args;
		uint32_t i = emu_vk_map_get(&b->memory, (uint64_t)a->memory);
		emu_memev m = { b->rec->seq, 0, 0 };

		if (i == EMU_NONE)
			return 0;
		m.device_delta = -(int64_t)b->mem_size.v[i];
		if (emu_vk_map_put(&b->memory, (uint64_t)a->memory, EMU_NONE) != 0)
			return -1;
		return EMU_PUSH(b->g->mem, m);
	}
	case SBT_VK_CMD_vkCreateSemaphore: {
		const sbt_vk_args_vkCreateSemaphore *a = b->args;
		emu_vk_sem *s;

		if (a->ret != VK_SUCCESS || !a->pSemaphore || !a->pCreateInfo)
			return 0;
		if (emu_vk_map_put(&b->sems, (uint64_t)*a->pSemaphore, EMU_NONE) != 0 ||
		    !(s = emu_vk_sem_of(b, *a->pSemaphore)))
			return -1;
		for (const VkBaseInStructure *p = a->pCreateInfo->pNext; p; p = p->pNext)
			if (p->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO &&
			    ((const VkSemaphoreTypeCreateInfo *)p)->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE) {
				emu_vk_sig zero;

				memset(&zero, 0, sizeof(zero));
				zero.step = EMU_NONE;
				zero.value = ((const VkSemaphoreTypeCreateInfo *)p)->initialValue;
				s->timeline = 1;
				if (EMU_PUSH(s->sigs, zero) != 0)
					return -1;
			}
		return 0;
	}
	case SBT_VK_CMD_vkCreateFence: {
		const sbt_vk_args_vkCreateFence *a = b->args;
		emu_vk_sig *f;

		if (a->ret != VK_SUCCESS || !a->pFence)
			return 0;
		if (emu_vk_map_put(&b->fences, (uint64_t)*a->pFence, EMU_NONE) != 0 || !(f = emu_vk_fence_of(b, *a->pFence)))
			return -1;
		return 0;
	}
	case SBT_VK_CMD_vkResetFences: {
		const sbt_vk_args_vkResetFences *a = b->args;

		for (uint32_t i = 0; a->pFences && i < a->fenceCount; i++) {
			emu_vk_sig *f = emu_vk_fence_of(b, a->pFences[i]);

			if (!f)
				return -1;
			memset(f, 0, sizeof(*f));
			f->step = EMU_NONE;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- queues: submits, semaphores, fences, host waits ----------------------------------- */

/* Dependencies of the step being made: one per step, kept in b->tmp. */
static int emu_vk_dep(emu_vk_builder *b, uint32_t step, uint32_t kind)
{
	emu_dep d = { step, kind };

	if (step == EMU_NONE)
		return 0;
	for (size_t i = 0; i < b->tmp.n; i++)
		if (b->tmp.v[i].step == step)
			return 0;
	return EMU_PUSH(b->tmp, d);
}

/* The step a clock entry names: the last step of queue qi up to batch k. */
static uint32_t emu_vk_step_of(const emu_vk_builder *b, uint32_t qi, uint32_t k)
{
	return k && k <= b->q.v[qi].batch_step.n ? b->q.v[qi].batch_step.v[k - 1] : EMU_NONE;
}

/* What the queue's work so far signals (a semaphore, a fence, a wait for idle). */
static void emu_vk_queue_sig(const emu_vk_builder *b, uint32_t qi, emu_vk_sig *out)
{
	const emu_vk_queue *q = &b->q.v[qi];

	memset(out, 0, sizeof(*out));
	memcpy(out->vc, q->all, sizeof(emu_vk_vc));
	out->vc[qi] = q->batch;
	out->step = q->last_step;
}

/* The host thread has waited for what sig signals. */
static int emu_vk_host_waits(emu_vk_builder *b, const emu_vk_sig *sig)
{
	emu_vk_thread *t = emu_vk_thread_of(b);

	if (!t)
		return -1;
	emu_vk_vc_max(t->vc, sig->vc, b->q.n);
	return 0;
}

typedef struct emu_vk_wait {
	VkSemaphore sem;
	uint64_t value;
	VkPipelineStageFlags2 stages;
} emu_vk_wait;

/* One batch on queue qi: its waits, its command buffers, its signals. */
static int emu_vk_batch(emu_vk_builder *b, uint32_t qi, const emu_vk_wait *waits, uint32_t nwaits,
                        const VkCommandBuffer *cbs, const VkCommandBufferSubmitInfo *cbs2, uint32_t ncbs,
                        const emu_vk_wait *sigs, uint32_t nsigs)
{
	emu_graph *g = b->g;
	emu_vk_queue *q = &b->q.v[qi];
	emu_vk_thread *t = emu_vk_thread_of(b);
	uint32_t step = EMU_NONE, base = (uint32_t)g->nodes.n;
	emu_vk_sig out;

	if (!t)
		return -1;
	q->batch++;
	b->tmp.n = 0;
	if (emu_vk_dep(b, q->last_step, EMU_D_STREAM) != 0)
		return -1;
	/* what the submitting thread waited for precedes everything submitted */
	for (uint32_t c = 0; c < EMU_VK_CLASSES; c++)
		emu_vk_vc_max(q->front[c], t->vc, b->q.n);
	for (uint32_t o = 0; o < b->q.n; o++)
		if (t->vc[o] > q->host_seen[o]) {
			if (o != qi && emu_vk_dep(b, emu_vk_step_of(b, o, t->vc[o]), EMU_D_HOST) != 0)
				return -1;
			q->host_seen[o] = t->vc[o];
		}
	for (uint32_t i = 0; i < nwaits; i++) {
		const emu_vk_sig *s = emu_vk_wait_sig(b, waits[i].sem, waits[i].value, 1);
		uint8_t cls = emu_vk_classes(waits[i].stages, 0);

		if (!s)
			continue;
		for (uint32_t c = 0; c < EMU_VK_CLASSES; c++)
			if (cls & (1u << c))
				emu_vk_vc_max(q->front[c], s->vc, b->q.n);
		if (emu_vk_dep(b, s->step, EMU_D_SEMAPHORE) != 0)
			return -1;
	}
	for (uint32_t c = 0; c < EMU_VK_CLASSES; c++)
		emu_vk_vc_max(q->all, q->front[c], b->q.n);

	for (uint32_t k = 0; k < ncbs; k++) {
		VkCommandBuffer h = cbs ? cbs[k] : cbs2[k].commandBuffer;
		uint32_t ci = emu_vk_map_get(&b->cbs, (uint64_t)(uintptr_t)h);
		const emu_vk_cb *c;

		if (ci == EMU_NONE)
			continue; /* recorded before the trace: its commands are unknown */
		c = &b->cb.v[ci];
		for (size_t x = 0; x < c->items.n; x++) {
			const emu_vk_item *it = &c->items.v[x];
			emu_vk_node vn;
			emu_node n;

			if (it->kind == EMU_VK_BARRIER) {
				uint32_t nr[EMU_VK_CLASSES][EMU_VK_CLASSES];
				emu_vk_vc from;

				memset(from, 0, sizeof(from));
				for (uint32_t sc = 0; sc < EMU_VK_CLASSES; sc++)
					if (it->src & (1u << sc))
						emu_vk_vc_max(from, q->front[sc], b->q.n);
				memcpy(nr, q->reach, sizeof(nr));
				for (uint32_t d = 0; d < EMU_VK_CLASSES; d++) {
					if (!(it->dst & (1u << d)))
						continue;
					for (uint32_t s = 0; s < EMU_VK_CLASSES; s++) {
						if (!(it->src & (1u << s)))
							continue;
						if (q->pos > nr[d][s])
							nr[d][s] = q->pos;
						for (uint32_t o = 0; o < EMU_VK_CLASSES; o++) /* chains */
							if (q->reach[s][o] > nr[d][o])
								nr[d][o] = q->reach[s][o];
					}
					emu_vk_vc_max(q->front[d], from, b->q.n);
				}
				memcpy(q->reach, nr, sizeof(nr));
				if (it->global && it->src == EMU_VK_ALL && it->srcw == EMU_VK_ALL)
					for (uint32_t d = 0; d < EMU_VK_CLASSES; d++)
						if (it->dsta & (1u << d))
							q->floor[d] = q->pos;
				if (it->srcw && it->dsta) {
					emu_vk_mbar m = { q->pos, it->srcw, it->dsta, it->global, it->alloc, it->lo, it->hi };

					if (EMU_PUSH(b->vk->mbar[q->stream], m) != 0)
						return -1;
					b->vk->nmbar++;
				}
				continue;
			}
			if (step == EMU_NONE) {
				emu_step st = { 0 };

				st.seq = b->rec->seq;
				st.stream = q->stream;
				st.pos = ++g->streams.v[q->stream].steps;
				st.node_first = base;
				st.dep_first = (uint32_t)g->deps.n;
				st.dep_count = (uint32_t)b->tmp.n;
				for (size_t d = 0; d < b->tmp.n; d++)
					if (EMU_PUSH(g->deps, b->tmp.v[d]) != 0)
						return -1;
				if (EMU_PUSH(g->steps, st) != 0)
					return -1;
				step = (uint32_t)g->steps.n - 1;
			}
			q->pos++;
			memset(&n, 0, sizeof(n));
			memset(&vn, 0, sizeof(vn));
			n.seq = it->seq;
			n.issue_ns = b->rec->time_ns;
			n.bytes = it->bytes;
			n.step = step;
			n.stream = q->stream;
			n.name = it->name;
			n.stack_id = it->stack_id;
			n.kind = it->kind;
			n.engine = -1;
			n.crit_pred = EMU_NONE;
			n.acc_first = (uint32_t)g->acc.n;
			n.acc_count = it->acc_count;
			n.ipred_first = (uint32_t)g->ipreds.n;
			for (uint32_t a = 0; a < it->acc_count; a++) {
				emu_access ac = c->acc.v[it->acc_first + a];

				ac.node = (uint32_t)g->nodes.n;
				if (EMU_PUSH(g->acc, ac) != 0)
					return -1;
			}
			/* within the batch: after the last command of each class it is ordered after */
			for (uint32_t o = 0; o < EMU_VK_CLASSES; o++) {
				uint32_t r = q->reach[it->cls][o];

				for (uint32_t p = (uint32_t)g->nodes.n; p-- > base;)
					if (b->vk->node.v[p].cls == o && b->vk->node.v[p].pos <= r) {
						if (EMU_PUSH(g->ipreds, p) != 0)
							return -1;
						n.ipred_count++;
						break;
					}
			}
			vn.submit_seq = b->rec->seq;
			vn.batch = q->batch;
			vn.pos = q->pos;
			vn.cls = it->cls;
			memcpy(vn.reach, q->reach[it->cls], sizeof(vn.reach));
			vn.floor = q->floor[it->cls];
			memcpy(vn.vc, q->front[it->cls], sizeof(vn.vc));
			if (EMU_PUSH(g->nodes, n) != 0 || EMU_PUSH(b->vk->node, vn) != 0)
				return -1;
			g->steps.v[step].node_count++;
		}
	}
	if (step != EMU_NONE) {
		if (g->first_ns == UINT64_MAX)
			g->first_ns = b->rec->time_ns;
		q->last_step = step;
	}
	if (EMU_PUSH(q->batch_step, q->last_step) != 0)
		return -1;
	emu_vk_queue_sig(b, qi, &out);
	for (uint32_t i = 0; i < nsigs; i++)
		if (emu_vk_signal(b, sigs[i].sem, sigs[i].value, &out) != 0)
			return -1;
	return 0;
}

/* The values of a VkTimelineSemaphoreSubmitInfo in a VkSubmitInfo's chain. */
static const VkTimelineSemaphoreSubmitInfo *emu_vk_timeline_info(const void *pnext)
{
	for (const VkBaseInStructure *p = pnext; p; p = p->pNext)
		if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
			return (const VkTimelineSemaphoreSubmitInfo *)p;
	return NULL;
}

static int emu_vk_r_submit(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkQueueSubmit *a = b->args;
	emu_vk_queue *q = emu_vk_queue_of(b, a->queue, 0, 0, 0);
	EMU_VEC(emu_vk_wait) w = { 0 };
	uint32_t qi;
	int st = 0;

	if (!q)
		return -1;
	qi = (uint32_t)(q - b->q.v);
	for (uint32_t i = 0; i < a->submitCount && st == 0; i++) {
		uint32_t nw, ns;

		w.n = 0;
		if (cmd == SBT_VK_CMD_vkQueueSubmit) {
			const VkSubmitInfo *s = &a->pSubmits[i];
			const VkTimelineSemaphoreSubmitInfo *tl = emu_vk_timeline_info(s->pNext);

			for (uint32_t k = 0; k < s->waitSemaphoreCount && s->pWaitSemaphores && st == 0; k++) {
				emu_vk_wait x = { s->pWaitSemaphores[k], 0,
					          s->pWaitDstStageMask ? s->pWaitDstStageMask[k] : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT };

				if (tl && tl->pWaitSemaphoreValues && k < tl->waitSemaphoreValueCount)
					x.value = tl->pWaitSemaphoreValues[k];
				st = EMU_PUSH(w, x);
			}
			nw = (uint32_t)w.n;
			for (uint32_t k = 0; k < s->signalSemaphoreCount && s->pSignalSemaphores && st == 0; k++) {
				emu_vk_wait x = { s->pSignalSemaphores[k], 0, 0 };

				if (tl && tl->pSignalSemaphoreValues && k < tl->signalSemaphoreValueCount)
					x.value = tl->pSignalSemaphoreValues[k];
				st = EMU_PUSH(w, x);
			}
			ns = (uint32_t)w.n - nw;
			if (st == 0)
				st = emu_vk_batch(b, qi, w.v, nw, s->pCommandBuffers, NULL,
				                  s->pCommandBuffers ? s->commandBufferCount : 0, w.v + nw, ns);
		} else {
			const VkSubmitInfo2 *s = &((const sbt_vk_args_vkQueueSubmit2 *)b->args)->pSubmits[i];

			for (uint32_t k = 0; k < s->waitSemaphoreInfoCount && s->pWaitSemaphoreInfos && st == 0; k++) {
				emu_vk_wait x = { s->pWaitSemaphoreInfos[k].semaphore, s->pWaitSemaphoreInfos[k].value,
					          s->pWaitSemaphoreInfos[k].stageMask };

				st = EMU_PUSH(w, x);
			}
			nw = (uint32_t)w.n;
			for (uint32_t k = 0; k < s->signalSemaphoreInfoCount && s->pSignalSemaphoreInfos && st == 0; k++) {
				emu_vk_wait x = { s->pSignalSemaphoreInfos[k].semaphore, s->pSignalSemaphoreInfos[k].value, 0 };

				st = EMU_PUSH(w, x);
			}
			ns = (uint32_t)w.n - nw;
			if (st == 0)
				st = emu_vk_batch(b, qi, w.v, nw, NULL, s->pCommandBufferInfos,
				                  s->pCommandBufferInfos ? s->commandBufferInfoCount : 0, w.v + nw, ns);
		}
	}
	free(w.v);
	if (st == 0 && a->fence) {
		emu_vk_sig *f = emu_vk_fence_of(b, a->fence);

		if (!f)
			return -1;
		emu_vk_queue_sig(b, qi, f);
		f->value = 1;
	}
	return st;
}

/* Host waits, semaphore signals from the host, presentation. */
static int emu_vk_r_sync(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	emu_vk_sig s;

	switch (cmd) {
	case SBT_VK_CMD_vkGetDeviceQueue: {
		const sbt_vk_args_vkGetDeviceQueue *a = b->args;

		return a->pQueue && *a->pQueue && !emu_vk_queue_of(b, *a->pQueue, a->queueFamilyIndex, a->queueIndex, 1)
		               ? -1 : 0;
	}
	case SBT_VK_CMD_vkGetDeviceQueue2: {
		const sbt_vk_args_vkGetDeviceQueue2 *a = b->args;

		return a->pQueue && *a->pQueue && a->pQueueInfo &&
		                       !emu_vk_queue_of(b, *a->pQueue, a->pQueueInfo->queueFamilyIndex,
		                                        a->pQueueInfo->queueIndex, 1)
		               ? -1 : 0;
	}
	case SBT_VK_CMD_vkWaitForFences: {
		const sbt_vk_args_vkWaitForFences *a = b->args;

		/* with waitAll false and several fences, which one signaled is unknown */
		if (a->ret != VK_SUCCESS || !a->pFences || (!a->waitAll && a->fenceCount > 1))
			return 0;
		for (uint32_t i = 0; i < a->fenceCount; i++) {
			emu_vk_sig *f = emu_vk_fence_of(b, a->pFences[i]);

			if (!f || emu_vk_host_waits(b, f) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkGetFenceStatus: {
		const sbt_vk_args_vkGetFenceStatus *a = b->args;
		emu_vk_sig *f;

		if (a->ret != VK_SUCCESS)
			return 0;
		f = emu_vk_fence_of(b, a->fence);
		return !f || emu_vk_host_waits(b, f) != 0 ? -1 : 0;
	}
	case SBT_VK_CMD_vkQueueWaitIdle: {
		const sbt_vk_args_vkQueueWaitIdle *a = b->args;
		emu_vk_queue *q;

		if (a->ret != VK_SUCCESS)
			return 0;
		if (!(q = emu_vk_queue_of(b, a->queue, 0, 0, 0)))
			return -1;
		emu_vk_queue_sig(b, (uint32_t)(q - b->q.v), &s);
		return emu_vk_host_waits(b, &s);
	}
	case SBT_VK_CMD_vkDeviceWaitIdle: {
		const sbt_vk_args_vkDeviceWaitIdle *a = b->args;

		if (a->ret != VK_SUCCESS)
			return 0;
		for (uint32_t i = 0; i < b->q.n; i++) {
			emu_vk_queue_sig(b, i, &s);
			if (emu_vk_host_waits(b, &s) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkWaitSemaphores:
	case SBT_VK_CMD_vkWaitSemaphoresKHR: {
		const sbt_vk_args_vkWaitSemaphores *a = b->args;
		const VkSemaphoreWaitInfo *w = a->pWaitInfo;

		if (a->ret != VK_SUCCESS || !w || !w->pSemaphores || !w->pValues ||
		    ((w->flags & VK_SEMAPHORE_WAIT_ANY_BIT) && w->semaphoreCount > 1))
			return 0;
		for (uint32_t i = 0; i < w->semaphoreCount; i++) {
			const emu_vk_sig *x = emu_vk_wait_sig(b, w->pSemaphores[i], w->pValues[i], 0);

			if (x && emu_vk_host_waits(b, x) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkSignalSemaphore:
	case SBT_VK_CMD_vkSignalSemaphoreKHR: {
		const sbt_vk_args_vkSignalSemaphore *a = b->args;
		emu_vk_thread *t = emu_vk_thread_of(b);

		if (!t || !a->pSignalInfo)
			return t ? 0 : -1;
		memset(&s, 0, sizeof(s));
		memcpy(s.vc, t->vc, sizeof(s.vc));
		s.step = EMU_NONE;
		return emu_vk_signal(b, a->pSignalInfo->semaphore, a->pSignalInfo->value, &s);
	}
	case SBT_VK_CMD_vkQueuePresentKHR: {
		/* the image is given back with what the present waited for; the
		 * acquire that returns it next signals that */
		const sbt_vk_args_vkQueuePresentKHR *a = b->args;
		const VkPresentInfoKHR *p = a->pPresentInfo;

		if (!p)
			return 0;
		memset(&s, 0, sizeof(s));
		s.step = EMU_NONE;
		for (uint32_t i = 0; p->pWaitSemaphores && i < p->waitSemaphoreCount; i++) {
			const emu_vk_sig *x = emu_vk_wait_sig(b, p->pWaitSemaphores[i], 0, 1);

			if (x) {
				emu_vk_vc_max(s.vc, x->vc, b->q.n);
				if (x->step != EMU_NONE && (s.step == EMU_NONE || x->step > s.step))
					s.step = x->step;
			}
		}
		for (uint32_t i = 0; p->pSwapchains && p->pImageIndices && i < p->swapchainCount; i++) {
			uint64_t key = (uint64_t)p->pSwapchains[i] * 31u + p->pImageIndices[i];
			size_t k;

			for (k = 0; k < b->present_key.n && b->present_key.v[k] != key; k++)
				;
			if (k == b->present_key.n && (EMU_PUSH(b->present_key, key) != 0 || EMU_PUSH(b->present, s) != 0))
				return -1;
			b->present.v[k] = s;
		}
		return 0;
	}
	case SBT_VK_CMD_vkAcquireNextImageKHR: {
		const sbt_vk_args_vkAcquireNextImageKHR *a = b->args;
		uint64_t key;

		if ((a->ret != VK_SUCCESS && a->ret != VK_SUBOPTIMAL_KHR) || !a->pImageIndex)
			return 0;
		key = (uint64_t)a->swapchain * 31u + *a->pImageIndex;
		memset(&s, 0, sizeof(s));
		s.step = EMU_NONE;
		for (size_t k = 0; k < b->present_key.n; k++)
			if (b->present_key.v[k] == key)
				s = b->present.v[k];
		if (a->semaphore && emu_vk_signal(b, a->semaphore, 0, &s) != 0)
			return -1;
		if (a->fence) {
			emu_vk_sig *f = emu_vk_fence_of(b, a->fence);

			if (!f)
				return -1;
			*f = s;
			f->value = 1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- the pass ----------------------------------------------------------------------------- */

typedef int (*emu_vk_handler)(emu_vk_builder *b, enum sbt_vk_cmd cmd);

static emu_vk_handler emu_vk_handler_of(enum sbt_vk_cmd cmd)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCmdDispatch:
	case SBT_VK_CMD_vkCmdDispatchBase:
	case SBT_VK_CMD_vkCmdDispatchBaseKHR:
	case SBT_VK_CMD_vkCmdDispatchIndirect:
		return emu_vk_r_dispatch;
	case SBT_VK_CMD_vkCmdDraw:
	case SBT_VK_CMD_vkCmdDrawIndexed:
	case SBT_VK_CMD_vkCmdDrawIndirect:
	case SBT_VK_CMD_vkCmdDrawIndexedIndirect:
	case SBT_VK_CMD_vkCmdDrawIndirectCount:
	case SBT_VK_CMD_vkCmdDrawIndexedIndirectCount:
	case SBT_VK_CMD_vkCmdDrawMultiEXT:
	case SBT_VK_CMD_vkCmdDrawMultiIndexedEXT:
		return emu_vk_r_draw;
	case SBT_VK_CMD_vkCmdCopyBuffer:
	case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR:
	case SBT_VK_CMD_vkCmdCopyImage:
	case SBT_VK_CMD_vkCmdCopyImage2:
	case SBT_VK_CMD_vkCmdCopyImage2KHR:
	case SBT_VK_CMD_vkCmdBlitImage:
	case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR:
	case SBT_VK_CMD_vkCmdResolveImage:
	case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR:
	case SBT_VK_CMD_vkCmdCopyBufferToImage:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR:
	case SBT_VK_CMD_vkCmdFillBuffer:
	case SBT_VK_CMD_vkCmdUpdateBuffer:
	case SBT_VK_CMD_vkCmdClearColorImage:
	case SBT_VK_CMD_vkCmdClearDepthStencilImage:
		return emu_vk_r_transfer;
	case SBT_VK_CMD_vkCmdBindDescriptorSets:
	case SBT_VK_CMD_vkCmdBindVertexBuffers:
	case SBT_VK_CMD_vkCmdBindVertexBuffers2:
	case SBT_VK_CMD_vkCmdBindVertexBuffers2EXT:
	case SBT_VK_CMD_vkCmdBindIndexBuffer:
		return emu_vk_r_bind;
	case SBT_VK_CMD_vkCmdPipelineBarrier:
	case SBT_VK_CMD_vkCmdPipelineBarrier2:
	case SBT_VK_CMD_vkCmdPipelineBarrier2KHR:
	case SBT_VK_CMD_vkCmdWaitEvents:
	case SBT_VK_CMD_vkCmdWaitEvents2:
	case SBT_VK_CMD_vkCmdWaitEvents2KHR:
		return emu_vk_r_barrier;
	case SBT_VK_CMD_vkCmdExecuteCommands:
		return emu_vk_r_execute;
	case SBT_VK_CMD_vkCmdBeginRenderPass:
	case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR:
	case SBT_VK_CMD_vkCmdEndRenderPass:
	case SBT_VK_CMD_vkCmdEndRenderPass2:
	case SBT_VK_CMD_vkCmdEndRenderPass2KHR:
		return emu_vk_r_render_pass;
	case SBT_VK_CMD_vkQueueSubmit:
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR:
		return emu_vk_r_submit;
	case SBT_VK_CMD_vkGetDeviceQueue:
	case SBT_VK_CMD_vkGetDeviceQueue2:
	case SBT_VK_CMD_vkWaitForFences:
	case SBT_VK_CMD_vkGetFenceStatus:
	case SBT_VK_CMD_vkQueueWaitIdle:
	case SBT_VK_CMD_vkDeviceWaitIdle:
	case SBT_VK_CMD_vkWaitSemaphores:
	case SBT_VK_CMD_vkWaitSemaphoresKHR:
	case SBT_VK_CMD_vkSignalSemaphore:
	case SBT_VK_CMD_vkSignalSemaphoreKHR:
	case SBT_VK_CMD_vkQueuePresentKHR:
	case SBT_VK_CMD_vkAcquireNextImageKHR:
		return emu_vk_r_sync;
	case SBT_VK_CMD_vkCreateBuffer:
	case SBT_VK_CMD_vkDestroyBuffer:
	case SBT_VK_CMD_vkCreateImage:
	case SBT_VK_CMD_vkDestroyImage:
	case SBT_VK_CMD_vkGetSwapchainImagesKHR:
	case SBT_VK_CMD_vkCreateImageView:
	case SBT_VK_CMD_vkCreateBufferView:
	case SBT_VK_CMD_vkAllocateDescriptorSets:
	case SBT_VK_CMD_vkUpdateDescriptorSets:
	case SBT_VK_CMD_vkCreateRenderPass:
	case SBT_VK_CMD_vkCreateRenderPass2:
	case SBT_VK_CMD_vkCreateRenderPass2KHR:
	case SBT_VK_CMD_vkAllocateCommandBuffers:
	case SBT_VK_CMD_vkBeginCommandBuffer:
	case SBT_VK_CMD_vkResetCommandBuffer:
	case SBT_VK_CMD_vkResetCommandPool:
	case SBT_VK_CMD_vkAllocateMemory:
	case SBT_VK_CMD_vkFreeMemory:
	case SBT_VK_CMD_vkCreateSemaphore:
	case SBT_VK_CMD_vkCreateFence:
	case SBT_VK_CMD_vkResetFences:
		return emu_vk_r_object;
	default:
		return NULL;
	}
}

/* The record types the trace names "vulkan.<command>", mapped to commands. */
static emu_status emu_vk_types(emu_vk_builder *b)
{
	uint32_t type, max = 0, nvk = 0;
	const char *name;
	enum sbt_vk_cmd cmd;

	for (size_t i = 0; sbt_reader_type_at(b->g->r, i, &type, &name) == SBT_OK; i++)
		if (type > max && type < 0x100000)
			max = type;
	b->ntypes = max + 1;
	b->cmd_of = malloc(b->ntypes * sizeof(int16_t));
	if (!b->cmd_of)
		return EMU_ERR_NOMEM;
	for (uint32_t t = 0; t < b->ntypes; t++)
		b->cmd_of[t] = -1;
	for (size_t i = 0; sbt_reader_type_at(b->g->r, i, &type, &name) == SBT_OK; i++)
		if (type < b->ntypes && strncmp(name, "vulkan.", 7) == 0 && sbt_vk_cmd_by_name(name, &cmd) == 0) {
			b->cmd_of[type] = (int16_t)cmd;
			nvk++;
		}
	return nvk ? EMU_OK : EMU_ERR_NOT_CUDA;
}

static void emu_vk_builder_finish(emu_vk_builder *b)
{
	emu_vk_map *maps[] = { &b->buffers, &b->images, &b->bviews, &b->iviews, &b->sets, &b->cbs,
		               &b->queues, &b->sems, &b->fences, &b->memory, &b->swapchains, &b->rpasses };

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		emu_vk_map_free(maps[i]);
	for (size_t i = 0; i < b->set.n; i++)
		free(b->set.v[i].d.v);
	for (size_t i = 0; i < b->cb.n; i++) {
		free(b->cb.v[i].items.v);
		free(b->cb.v[i].acc.v);
	}
	for (size_t i = 0; i < b->q.n; i++)
		free(b->q.v[i].batch_step.v);
	for (size_t i = 0; i < b->sem.n; i++)
		free(b->sem.v[i].sigs.v);
	for (size_t i = 0; i < b->rpass.n; i++)
		free(b->rpass.v[i].deps.v);
	free(b->rpass.v);
	free(b->buffer_alloc.v);
	free(b->image.v);
	free(b->view.v);
	free(b->set.v);
	free(b->cb.v);
	free(b->q.v);
	free(b->sem.v);
	free(b->fence.v);
	free(b->mem_size.v);
	free(b->threads.v);
	free(b->present.v);
	free(b->present_key.v);
	free(b->tmp.v);
	free(b->cmd_of);
	free(b->args);
	sbt_vk_arena_free(b->arena);
}

void emu_vk_free(struct emu_vk_graph *vk)
{
	if (!vk)
		return;
	free(vk->node.v);
	for (size_t i = 0; vk->mbar && i < EMU_VK_QMAX; i++)
		free(vk->mbar[i].v);
	free(vk->mbar);
	free(vk);
}

emu_status emu_vk_build(emu_graph *g, char *err, size_t errlen)
{
	emu_vk_builder b;
	emu_status st;
	sbt_status ss;
	sbt_record rec;
	size_t argmax = 0;

	memset(&b, 0, sizeof(b));
	b.g = g;
	b.err = err;
	b.errlen = errlen;
	st = emu_vk_types(&b);
	if (st != EMU_OK)
		goto out;
	g->vk = calloc(1, sizeof(*g->vk));
	if (!g->vk || !(g->vk->mbar = calloc(EMU_VK_QMAX, sizeof(emu_vk_mbarvec)))) {
		st = EMU_ERR_NOMEM;
		goto out;
	}
	b.vk = g->vk;
	for (uint32_t c = 0; c < SBT_VK_CMD_COUNT; c++)
		if (sbt_vk_args_size((enum sbt_vk_cmd)c) > argmax)
			argmax = sbt_vk_args_size((enum sbt_vk_cmd)c);
	b.args = malloc(argmax + 16);
	if (!b.args || sbt_vk_arena_create(0, &b.arena) != SBT_VK_OK) {
		st = EMU_ERR_NOMEM;
		goto out;
	}
	while ((ss = sbt_reader_next(g->r, &rec)) == SBT_OK) {
		enum sbt_vk_cmd cmd;
		emu_vk_handler h;
		sbt_vk_status vs;

		if (rec.type >= b.ntypes || b.cmd_of[rec.type] < 0)
			continue;
		cmd = (enum sbt_vk_cmd)b.cmd_of[rec.type];
		h = emu_vk_handler_of(cmd);
		if (!h)
			continue;
		b.rec = &rec;
		sbt_vk_arena_reset(b.arena);
		vs = sbt_vk_decode(cmd, rec.payload, rec.payload_len, b.arena, b.args, NULL);
		if (vs != SBT_VK_OK) {
			snprintf(err, errlen, "%s: seq %llu (%s): %s: %s%s%s", g->path, (unsigned long long)rec.seq,
			         sbt_reader_type_name(g->r, rec.type), emu_strerror(EMU_ERR_CORRUPT), sbt_vk_strerror(vs),
			         *sbt_vk_arena_message(b.arena) ? ": " : "", sbt_vk_arena_message(b.arena));
			st = EMU_ERR_CORRUPT;
			goto out;
		}
		err[0] = 0;
		if (h(&b, cmd) != 0) {
			if (err[0]) {
				char why[256];

				snprintf(why, sizeof(why), "%s", err);
				snprintf(err, errlen, "%s: %s", g->path, why);
				st = EMU_ERR_TRACE;
			} else {
				snprintf(err, errlen, "%s: seq %llu (%s): %s", g->path, (unsigned long long)rec.seq,
				         sbt_reader_type_name(g->r, rec.type), emu_strerror(EMU_ERR_NOMEM));
				st = EMU_ERR_NOMEM;
			}
			goto out;
		}
	}
	if (ss != SBT_END) {
		snprintf(err, errlen, "%s: %s: %s", g->path, sbt_strerror(ss), sbt_reader_message(g->r));
		st = EMU_ERR_TRACE;
		goto out;
	}
	st = EMU_OK;
out:
	emu_vk_builder_finish(&b);
	return st;
}

/* ---- order, for the race detector ---------------------------------------------------------- */

int emu_vk_before(const emu_graph *g, const emu_access *a, const emu_access *b, int *full)
{
	const emu_node *na = &g->nodes.v[a->node], *nb = &g->nodes.v[b->node];
	const emu_vk_node *va = &g->vk->node.v[a->node], *vb = &g->vk->node.v[b->node];
	const emu_vk_mbarvec *mb;
	size_t lo, hi;

	*full = 0;
	if (vb->vc[na->stream] >= va->batch || (na->stream == nb->stream && va->pos <= vb->floor)) {
		*full = 1;
		return 1;
	}
	if (na->stream != nb->stream || vb->reach[va->cls] < va->pos)
		return 0;
	/* ordered by barriers: a read before a write needs nothing more; a
	 * write needs a memory barrier between them that covers its resource */
	if (!(a->mode & (EMU_A_WRITE | EMU_A_MAYWRITE)))
		return 1;
	mb = &g->vk->mbar[na->stream];
	lo = 0;
	hi = mb->n;
	while (lo < hi) { /* the first barrier after a */
		size_t mid = (lo + hi) / 2;

		if (mb->v[mid].after < va->pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < mb->n && mb->v[i].after < vb->pos; i++) {
		const emu_vk_mbar *m = &mb->v[i];

		if (!(m->srcw & (1u << va->cls)) || !(m->dsta & (1u << vb->cls)))
			continue;
		if (m->global || (m->alloc == a->alloc && m->lo < a->hi && a->lo < m->hi))
			return 1;
	}
	return 0;
}
