/*
 * vkl_reach.c - the memory a submission reaches.
 *
 * Before a submission the layer publishes the host writes the device may
 * read (vkl_memory.c).  Publishing every mapping of the device would read
 * mappings other threads are writing at that moment for work of their own
 * (legal for them, a data race for us), so a submission publishes only
 * the memory its command buffers reach:
 *
 *   command buffer -> the handles its commands named (sbt_vk_refs, noted
 *                     by vkl_reach_cmd as each vkCmd* is recorded)
 *   secondary command buffer -> its own set, recursively
 *   descriptor set -> what its descriptors hold at submit time
 *   framebuffer    -> its attachments;  image / buffer view -> the resource
 *   buffer, image  -> the range of the memory object it is bound to
 *
 * Memory the device reaches through addresses (a buffer device address
 * handed to the application, descriptor buffers, acceleration structures)
 * is marked "always" and published at every submission.  A buffer's
 * SHADER_DEVICE_ADDRESS usage or its memory's DEVICE_ADDRESS flag alone
 * does not mark it: no address into it exists until
 * vkGetBufferDeviceAddress returns one (Mesa's zink creates every buffer
 * so and asks for none).  Anything this does not model (sparse
 * residency, disjoint planes, acceleration structure and micromap handles,
 * video sessions, a handle type the walk reports as unknown) makes the
 * submission publish every mapping, as before.
 *
 * State: resources, views, framebuffers, descriptor sets, update templates
 * and command buffers live in one table keyed by (object type, handle),
 * sharded with a mutex per shard; an entry's contents are read and written
 * under its shard's lock, except a command buffer's set of handles, which
 * only the thread recording it touches (a command buffer is externally
 * synchronized and is not recorded while it is submitted).  The vkCmd*
 * path finds its command buffer's entry through a per-thread cache that a
 * generation counter invalidates whenever a command buffer entry is freed.
 * Entries are never looked up while another shard is locked.
 */
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl.h"
#include "layers/vulkan/vkl_format.h"
#include "serializer/sbt_vk.h"

/* ---- open-addressed table of (key, type) -> value ------------------------ */

typedef struct vkl_rt_ent {
	uint64_t key;
	uint64_t val;
	uint32_t type;
	uint32_t used;
	uint64_t lo, hi; /* a command buffer's buffer written in regions: their extent */
} vkl_rt_ent;

/* typed: entries match on key and type (handles of different types may
 * share a value); untyped: on key alone (descriptor slots). */
typedef struct vkl_rt {
	vkl_rt_ent *e;
	size_t cap; /* power of two, or 0 */
	size_t n;
	int typed;
} vkl_rt;

static size_t vkl_rt_home(const vkl_rt *t, uint64_t key, uint32_t type)
{
	uint64_t h = (key ^ (t->typed ? (uint64_t)type << 48 : 0)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 29) & (t->cap - 1);
}

static vkl_rt_ent *vkl_rt_find(const vkl_rt *t, uint64_t key, uint32_t type)
{
	size_t i;
	if (!t->cap)
		return NULL;
	for (i = vkl_rt_home(t, key, type);; i = (i + 1) & (t->cap - 1)) {
		vkl_rt_ent *e = &t->e[i];
		if (!e->used)
			return NULL;
		if (e->key == key && (!t->typed || e->type == type))
			return e;
	}
}

static int vkl_rt_grow(vkl_rt *t)
{
	size_t cap = t->cap ? t->cap * 2 : 16, i;
	vkl_rt old = *t;
	vkl_rt_ent *e = calloc(cap, sizeof(*e));
	if (!e)
		return -1;
	t->e = e;
	t->cap = cap;
	t->n = 0;
	for (i = 0; i < old.cap; i++) {
		if (!old.e[i].used)
			continue;
		size_t j = vkl_rt_home(t, old.e[i].key, old.e[i].type);
		while (t->e[j].used)
			j = (j + 1) & (cap - 1);
		t->e[j] = old.e[i];
		t->n++;
	}
	free(old.e);
	return 0;
}

/* Insert key, known not to be there: its entry, or NULL (out of memory). */
static vkl_rt_ent *vkl_rt_insert(vkl_rt *t, uint64_t key, uint32_t type, uint64_t val)
{
	size_t i;
	if ((t->n + 1) * 2 > t->cap && vkl_rt_grow(t) != 0)
		return NULL;
	for (i = vkl_rt_home(t, key, type); t->e[i].used; i = (i + 1) & (t->cap - 1))
		;
	t->e[i].key = key;
	t->e[i].type = type;
	t->e[i].val = val;
	t->e[i].lo = t->e[i].hi = 0;
	t->e[i].used = 1;
	t->n++;
	return &t->e[i];
}

/* Insert or overwrite.  1: inserted, 0: was there (value replaced),
 * -1: out of memory. */
static int vkl_rt_put(vkl_rt *t, uint64_t key, uint32_t type, uint64_t val)
{
	vkl_rt_ent *e = vkl_rt_find(t, key, type);
	if (e) {
		e->val = val;
		e->type = type;
		return 0;
	}
	return vkl_rt_insert(t, key, type, val) ? 1 : -1;
}

/* A command buffer's table: what its commands may do with each handle, the
 * value an SBT_VK_REF_* (sbt_vk.h).  SBT_VK_REF_READS: every command only
 * read it; SBT_VK_REF_REGIONS: besides, commands wrote it in regions whose
 * extent is [lo, hi) (bytes from the buffer's start); SBT_VK_REF_WRITES: a
 * command may have written any of it. */
static int vkl_rt_note(vkl_rt *t, uint64_t key, uint32_t type, uint64_t access, uint64_t lo,
                       uint64_t hi)
{
	vkl_rt_ent *e = vkl_rt_find(t, key, type);
	if (!e) {
		e = vkl_rt_insert(t, key, type, access);
		if (!e)
			return -1;
		e->lo = lo;
		e->hi = hi;
		return 1;
	}
	if (e->val == SBT_VK_REF_WRITES || access == SBT_VK_REF_READS)
		return 0;
	if (access == SBT_VK_REF_WRITES) {
		e->val = SBT_VK_REF_WRITES;
	} else if (e->val == SBT_VK_REF_READS) {
		e->val = SBT_VK_REF_REGIONS;
		e->lo = lo;
		e->hi = hi;
	} else {
		e->lo = lo < e->lo ? lo : e->lo;
		e->hi = hi > e->hi ? hi : e->hi;
	}
	return 0;
}

/* Remove (backward shift: no tombstones); 1 when it was there. */
static int vkl_rt_del(vkl_rt *t, uint64_t key, uint32_t type, uint64_t *val_out)
{
	vkl_rt_ent *e = vkl_rt_find(t, key, type);
	size_t i, j, mask = t->cap - 1;
	if (!e)
		return 0;
	if (val_out)
		*val_out = e->val;
	i = (size_t)(e - t->e);
	t->e[i].used = 0;
	t->n--;
	for (j = (i + 1) & mask; t->e[j].used; j = (j + 1) & mask) {
		size_t k = vkl_rt_home(t, t->e[j].key, t->e[j].type);
		/* move e[j] into the hole when its home is not in (i, j] */
		int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (stays)
			continue;
		t->e[i] = t->e[j];
		t->e[j].used = 0;
		i = j;
	}
	return 1;
}

static void vkl_rt_clear(vkl_rt *t)
{
	if (t->n)
		memset(t->e, 0, t->cap * sizeof(*t->e));
	t->n = 0;
}

static void vkl_rt_free(vkl_rt *t)
{
	free(t->e);
	t->e = NULL;
	t->cap = t->n = 0;
}

/* ---- the objects --------------------------------------------------------- */

typedef struct vkl_res {
	VkObjectType type;
	uint64_t handle;
	uint64_t pool; /* command pool or descriptor pool */
	/* buffers and images */
	VkDeviceMemory memory;
	VkDeviceSize offset, size;
	VkBufferUsageFlags usage;
	VkFormat format; /* images: for the bytes a copy into a buffer writes */
	uint32_t layers;
	int unknown; /* reaches memory this file does not model */
	int addressed; /* buffers: created at an address chosen before (capture
	                  and replay of addresses) */
	/* views: the buffer or image */
	uint64_t target;
	/* descriptor sets: (binding << 32 | element) -> handle, its type;
	 * command buffers: the handles their commands named; framebuffers:
	 * their attachments (keys, typed, as for command buffers) */
	vkl_rt tab;
	int all; /* command buffer: reaches what cannot be known */
	/* descriptor update templates */
	VkDescriptorUpdateTemplateEntry *entries;
	uint32_t nentries;
} vkl_res;

#define VKL_REACH_SHARDS 64u

typedef struct vkl_reach_shard {
	pthread_mutex_t mu;
	vkl_rt tab; /* (handle, type) -> vkl_res * */
} vkl_reach_shard;

static vkl_reach_shard vkl_reach_shards[VKL_REACH_SHARDS];
static pthread_once_t vkl_reach_once = PTHREAD_ONCE_INIT;
/* Bumped before a command buffer's entry is freed: per-thread caches made
 * under an older value are not trusted. */
static _Atomic(uint64_t) vkl_reach_cb_gen;

static __thread struct {
	uint64_t cb;
	vkl_res *r;
	uint64_t gen;
} vkl_reach_tls;

static void vkl_reach_init(void)
{
	unsigned i;
	for (i = 0; i < VKL_REACH_SHARDS; i++) {
		pthread_mutex_init(&vkl_reach_shards[i].mu, NULL);
		vkl_reach_shards[i].tab.typed = 1;
	}
}

static vkl_reach_shard *vkl_reach_lock(VkObjectType type, uint64_t h)
{
	uint64_t x = (h ^ ((uint64_t)type << 40)) * 0xff51afd7ed558ccdull;
	vkl_reach_shard *s = &vkl_reach_shards[(x >> 58) & (VKL_REACH_SHARDS - 1)];
	pthread_once(&vkl_reach_once, vkl_reach_init);
	pthread_mutex_lock(&s->mu);
	return s;
}

/* The entry, with its shard locked by the caller; created when asked. */
static vkl_res *vkl_res_get(vkl_reach_shard *s, VkObjectType type, uint64_t h, int create)
{
	vkl_rt_ent *e = vkl_rt_find(&s->tab, h, (uint32_t)type);
	vkl_res *r;
	if (e)
		return (vkl_res *)(uintptr_t)e->val;
	if (!create)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->type = type;
	r->handle = h;
	r->tab.typed = type != VK_OBJECT_TYPE_DESCRIPTOR_SET;
	if (vkl_rt_put(&s->tab, h, (uint32_t)type, (uint64_t)(uintptr_t)r) < 0) {
		free(r);
		return NULL;
	}
	return r;
}

static void vkl_res_free(vkl_res *r)
{
	vkl_rt_free(&r->tab);
	free(r->entries);
	free(r);
}

static void vkl_reach_forget(VkObjectType type, uint64_t h)
{
	vkl_reach_shard *s = vkl_reach_lock(type, h);
	uint64_t v;
	if (vkl_rt_del(&s->tab, h, (uint32_t)type, &v)) {
		if (type == VK_OBJECT_TYPE_COMMAND_BUFFER)
			atomic_fetch_add_explicit(&vkl_reach_cb_gen, 1, memory_order_acq_rel);
		vkl_res_free((vkl_res *)(uintptr_t)v);
	}
	pthread_mutex_unlock(&s->mu);
}

/* Every entry of `type` whose pool is `pool` (a pool reset or destroyed). */
static void vkl_reach_forget_pool(VkObjectType type, uint64_t pool)
{
	unsigned i;
	if (type == VK_OBJECT_TYPE_COMMAND_BUFFER)
		atomic_fetch_add_explicit(&vkl_reach_cb_gen, 1, memory_order_acq_rel);
	pthread_once(&vkl_reach_once, vkl_reach_init);
	for (i = 0; i < VKL_REACH_SHARDS; i++) {
		vkl_reach_shard *s = &vkl_reach_shards[i];
		size_t j = 0;
		pthread_mutex_lock(&s->mu);
		while (j < s->tab.cap) {
			vkl_rt_ent *e = &s->tab.e[j];
			vkl_res *r = e->used ? (vkl_res *)(uintptr_t)e->val : NULL;
			if (r && r->type == type && r->pool == pool) {
				/* the backward shift may move a later entry here: look again */
				vkl_rt_del(&s->tab, e->key, e->type, NULL);
				vkl_res_free(r);
				continue;
			}
			j++;
		}
		pthread_mutex_unlock(&s->mu);
	}
}

/* ---- recording ----------------------------------------------------------- */

/* A handle a command names, into its command buffer's table (vkl_rt_note).
 * A buffer it writes in regions (SBT_VK_REF_REGIONS) is left to
 * vkl_reach_regions, which reads them from the arguments. */
static void vkl_reach_note(void *ctx, VkObjectType type, uint64_t h, int access)
{
	vkl_res *r = ctx;
	if (access == SBT_VK_REF_REGIONS)
		return;
	if (type == VK_OBJECT_TYPE_UNKNOWN ||
	    vkl_rt_note(&r->tab, h, (uint32_t)type, access == SBT_VK_REF_READS ? SBT_VK_REF_READS
	                                                                      : SBT_VK_REF_WRITES,
	                0, 0) < 0)
		r->all = 1;
}

/* The command buffer's entry (created if missing), through the cache. */
static vkl_res *vkl_reach_cb(uint64_t cb)
{
	uint64_t gen = atomic_load_explicit(&vkl_reach_cb_gen, memory_order_acquire);
	vkl_reach_shard *s;
	vkl_res *r;
	if (vkl_reach_tls.r && vkl_reach_tls.cb == cb && vkl_reach_tls.gen == gen)
		return vkl_reach_tls.r;
	s = vkl_reach_lock(VK_OBJECT_TYPE_COMMAND_BUFFER, cb);
	r = vkl_res_get(s, VK_OBJECT_TYPE_COMMAND_BUFFER, cb, 1);
	pthread_mutex_unlock(&s->mu);
	vkl_reach_tls.cb = cb;
	vkl_reach_tls.r = r;
	vkl_reach_tls.gen = gen;
	return r;
}

/* What image's res says for a copy: its format and layers (0: unknown). */
static VkFormat vkl_reach_image_format(VkImage image, uint32_t *layers)
{
	uint64_t h = (uint64_t)(uintptr_t)image;
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_IMAGE, h);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_IMAGE, h, 0);
	VkFormat f = r ? r->format : VK_FORMAT_UNDEFINED;
	*layers = r ? r->layers : 0;
	pthread_mutex_unlock(&s->mu);
	return f;
}

/*
 * The bytes [*lo, *hi) of a buffer that a buffer<->image copy region of
 * image writes: from off, the region's rows and slices laid out as
 * row_length and image_height say, in texel blocks of the one part (color,
 * depth, stencil or plane) its aspect names.  0 when that is not known (an
 * image or format the layer does not know, more than one part, an empty
 * extent, an overflow).
 */
static int vkl_reach_copy_span(VkImage image, VkDeviceSize off, uint32_t row_length,
                               uint32_t image_height, const VkImageSubresourceLayers *sub,
                               VkExtent3D ext, uint64_t *lo, uint64_t *hi)
{
	uint32_t img_layers;
	const sbt_vk_format_info *fi = sbt_vk_format_info_of(vkl_reach_image_format(image, &img_layers));
	vkl_copy_part part[3];
	uint64_t rows, per_row, slices, last, bytes;
	if (!fi || vkl_copy_parts(fi, sub->aspectMask, part) != 1 || !part[0].texel ||
	    !part[0].block[0] || !part[0].block[1] || !ext.width || !ext.height || !ext.depth)
		return 0;
	row_length = row_length ? row_length : ext.width;
	image_height = image_height ? image_height : ext.height;
	slices = sub->layerCount == VK_REMAINING_ARRAY_LAYERS
	                 ? (img_layers > sub->baseArrayLayer ? img_layers - sub->baseArrayLayer : 0)
	                 : sub->layerCount;
	if (!slices)
		return 0;
	slices *= ext.depth;
	rows = (image_height + part[0].block[1] - 1) / part[0].block[1];
	per_row = (row_length + part[0].block[0] - 1) / part[0].block[0];
	/* the last block's index, then the end of its bytes */
	if (__builtin_mul_overflow(slices - 1, rows, &last) ||
	    __builtin_add_overflow(last, (ext.height + part[0].block[1] - 1) / part[0].block[1] - 1,
	                           &last) ||
	    __builtin_mul_overflow(last, per_row, &last) ||
	    __builtin_add_overflow(last, (ext.width + part[0].block[0] - 1) / part[0].block[0], &last) ||
	    __builtin_mul_overflow(last, (uint64_t)part[0].texel, &bytes) ||
	    __builtin_add_overflow(off, bytes, hi))
		return 0;
	*lo = off;
	return 1;
}

/* The extent [*lo, *hi) grown by the n bytes at a (saturated at the top
 * of the address range; n == VK_WHOLE_SIZE: to the end). */
static void vkl_reach_extend(uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t n)
{
	uint64_t b = n > UINT64_MAX - a ? UINT64_MAX : a + n;
	*lo = a < *lo ? a : *lo;
	*hi = b > *hi ? b : *hi;
}

/* The extent grown by what a copy region from image writes in the buffer
 * (vkl_reach_copy_span), or by all from its offset on when that is not
 * known. */
static void vkl_reach_extend_image(uint64_t *lo, uint64_t *hi, VkImage image, VkDeviceSize off,
                                   uint32_t row_length, uint32_t image_height,
                                   const VkImageSubresourceLayers *sub, VkExtent3D ext)
{
	uint64_t a, b;
	if (vkl_reach_copy_span(image, off, row_length, image_height, sub, ext, &a, &b))
		vkl_reach_extend(lo, hi, a, b - a);
	else
		vkl_reach_extend(lo, hi, off, VK_WHOLE_SIZE);
}

/* Buffer buf written in [lo, hi) by the command noted (an empty extent: a
 * command with no regions writes nothing). */
static void vkl_reach_written(vkl_res *r, VkBuffer buf, uint64_t lo, uint64_t hi)
{
	if (buf == VK_NULL_HANDLE)
		return;
	if (lo >= hi)
		lo = hi = 0;
	if (vkl_rt_note(&r->tab, (uint64_t)(uintptr_t)buf, VK_OBJECT_TYPE_BUFFER, SBT_VK_REF_REGIONS,
	                lo, hi) < 0)
		r->all = 1;
}

/*
 * The destination buffers the walk left to this (SBT_VK_REF_REGIONS:
 * overrides.REFS_WRITES_REGIONS), noted with the extent of the bytes the
 * command's regions write.  A command this does not know (the list grew)
 * makes its command buffer reach everything.
 */
static void vkl_reach_regions(vkl_res *r, uint32_t cmd, const void *args)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	uint32_t i;
	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyBuffer: {
		const sbt_vk_args_vkCmdCopyBuffer *a = args;
		for (i = 0; a->pRegions && i < a->regionCount; i++)
			vkl_reach_extend(&lo, &hi, a->pRegions[i].dstOffset, a->pRegions[i].size);
		vkl_reach_written(r, a->dstBuffer, lo, hi);
		return;
	}
	case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: {
		const VkCopyBufferInfo2 *a = ((const sbt_vk_args_vkCmdCopyBuffer2 *)args)->pCopyBufferInfo;
		if (!a)
			return;
		for (i = 0; a->pRegions && i < a->regionCount; i++)
			vkl_reach_extend(&lo, &hi, a->pRegions[i].dstOffset, a->pRegions[i].size);
		vkl_reach_written(r, a->dstBuffer, lo, hi);
		return;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer: {
		const sbt_vk_args_vkCmdCopyImageToBuffer *a = args;
		for (i = 0; a->pRegions && i < a->regionCount; i++) {
			const VkBufferImageCopy *g = &a->pRegions[i];
			vkl_reach_extend_image(&lo, &hi, a->srcImage, g->bufferOffset, g->bufferRowLength,
			                       g->bufferImageHeight, &g->imageSubresource, g->imageExtent);
		}
		vkl_reach_written(r, a->dstBuffer, lo, hi);
		return;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR: {
		const VkCopyImageToBufferInfo2 *a =
		        ((const sbt_vk_args_vkCmdCopyImageToBuffer2 *)args)->pCopyImageToBufferInfo;
		if (!a)
			return;
		for (i = 0; a->pRegions && i < a->regionCount; i++) {
			const VkBufferImageCopy2 *g = &a->pRegions[i];
			vkl_reach_extend_image(&lo, &hi, a->srcImage, g->bufferOffset, g->bufferRowLength,
			                       g->bufferImageHeight, &g->imageSubresource, g->imageExtent);
		}
		vkl_reach_written(r, a->dstBuffer, lo, hi);
		return;
	}
	case SBT_VK_CMD_vkCmdFillBuffer: {
		const sbt_vk_args_vkCmdFillBuffer *a = args;
		vkl_reach_extend(&lo, &hi, a->dstOffset, a->size);
		vkl_reach_written(r, a->dstBuffer, lo, hi);
		return;
	}
	case SBT_VK_CMD_vkCmdUpdateBuffer: {
		const sbt_vk_args_vkCmdUpdateBuffer *a = args;
		vkl_reach_extend(&lo, &hi, a->dstOffset, a->dataSize);
		vkl_reach_written(r, a->dstBuffer, lo, hi);
		return;
	}
	default:
		r->all = 1;
		return;
	}
}

void vkl_reach_cmd(VkCommandBuffer cb, uint32_t cmd, const void *args)
{
	vkl_res *r = vkl_reach_cb((uint64_t)(uintptr_t)cb);
	if (!r)
		return; /* out of memory: the submit finds no entry and publishes all */
	if (sbt_vk_refs((enum sbt_vk_cmd)cmd, args, vkl_reach_note, r) == 2)
		vkl_reach_regions(r, cmd, args);
}

/* ---- resources ------------------------------------------------------------- */

/* Usage through which the device reaches a buffer by address without the
 * application asking for one (SHADER_DEVICE_ADDRESS: when it asks,
 * vkl_reach_addressed). */
#define VKL_REACH_ADDRESS_USAGE                                                              \
	(VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR |                  \
	 VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR |                                \
	 VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR |                                          \
	 VK_BUFFER_USAGE_SAMPLER_DESCRIPTOR_BUFFER_BIT_EXT |                                     \
	 VK_BUFFER_USAGE_RESOURCE_DESCRIPTOR_BUFFER_BIT_EXT |                                    \
	 VK_BUFFER_USAGE_PUSH_DESCRIPTORS_DESCRIPTOR_BUFFER_BIT_EXT |                            \
	 VK_BUFFER_USAGE_MICROMAP_BUILD_INPUT_READ_ONLY_BIT_EXT |                                \
	 VK_BUFFER_USAGE_MICROMAP_STORAGE_BIT_EXT)

/* Buffer usages through which the device only reads: a buffer with no
 * other usage is never written by the device (the spec requires a writing
 * usage, such as TRANSFER_DST or STORAGE_BUFFER, for every device write). */
#define VKL_REACH_READ_USAGE                                                                  \
	(VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |           \
	 VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |                 \
	 VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |               \
	 VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT)

static void vkl_reach_buffer_created(const VkBufferCreateInfo *ci, VkBuffer buf)
{
	uint64_t h = (uint64_t)(uintptr_t)buf;
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_BUFFER, h);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_BUFFER, h, 1);
	if (r) {
		r->memory = VK_NULL_HANDLE;
		r->size = ci->size;
		r->usage = ci->usage;
		r->unknown = (ci->flags & VK_BUFFER_CREATE_SPARSE_BINDING_BIT) != 0;
		r->addressed = 0;
		for (const VkBaseInStructure *b = ci->pNext; b; b = b->pNext) {
			if (b->sType == VK_STRUCTURE_TYPE_BUFFER_OPAQUE_CAPTURE_ADDRESS_CREATE_INFO &&
			    ((const VkBufferOpaqueCaptureAddressCreateInfo *)(const void *)b)
			            ->opaqueCaptureAddress)
				r->addressed = 1;
			if (b->sType == VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_CREATE_INFO_EXT &&
			    ((const VkBufferDeviceAddressCreateInfoEXT *)(const void *)b)->deviceAddress)
				r->addressed = 1;
		}
	}
	pthread_mutex_unlock(&s->mu);
}

/* The application was handed an address into buffer h (or its opaque
 * capture address): the memory bound to it is reachable by address from
 * now on. */
static void vkl_reach_addressed(uint64_t h)
{
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_BUFFER, h);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_BUFFER, h, 0);
	VkDeviceMemory mem = r ? r->memory : VK_NULL_HANDLE;
	pthread_mutex_unlock(&s->mu);
	if (mem != VK_NULL_HANDLE)
		vkl_memory_mark_always(mem);
}

static void vkl_reach_image_created(const VkImageCreateInfo *ci, VkImage img)
{
	uint64_t h = (uint64_t)(uintptr_t)img;
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_IMAGE, h);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_IMAGE, h, 1);
	if (r) {
		r->memory = VK_NULL_HANDLE;
		r->format = ci->format;
		r->layers = ci->arrayLayers;
		r->unknown = (ci->flags & (VK_IMAGE_CREATE_SPARSE_BINDING_BIT |
		                           VK_IMAGE_CREATE_DISJOINT_BIT)) != 0;
	}
	pthread_mutex_unlock(&s->mu);
}

static void vkl_reach_target(VkObjectType type, uint64_t h, uint64_t target)
{
	vkl_reach_shard *s = vkl_reach_lock(type, h);
	vkl_res *r = vkl_res_get(s, type, h, 1);
	if (r)
		r->target = target;
	pthread_mutex_unlock(&s->mu);
}

static void vkl_reach_framebuffer(const VkFramebufferCreateInfo *ci, VkFramebuffer fb)
{
	uint64_t h = (uint64_t)(uintptr_t)fb;
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_FRAMEBUFFER, h);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_FRAMEBUFFER, h, 1);
	uint32_t i;
	if (r) {
		vkl_rt_clear(&r->tab);
		r->all = 0;
		/* imageless framebuffers name their views at vkCmdBeginRenderPass */
		if (!(ci->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT) && ci->pAttachments)
			for (i = 0; i < ci->attachmentCount; i++)
				vkl_reach_note(r, VK_OBJECT_TYPE_IMAGE_VIEW,
				               (uint64_t)(uintptr_t)ci->pAttachments[i], 0);
	}
	pthread_mutex_unlock(&s->mu);
}

static void vkl_reach_bound(const vkl_device *d, VkObjectType type, uint64_t h,
                            VkDeviceMemory mem, VkDeviceSize offset, int planar)
{
	VkMemoryRequirements req = {0};
	vkl_reach_shard *s;
	vkl_res *r;
	VkBufferUsageFlags usage = 0;
	int addressed = 0;
	if (type == VK_OBJECT_TYPE_IMAGE && mem != VK_NULL_HANDLE && d->table.GetImageMemoryRequirements)
		d->table.GetImageMemoryRequirements(d->handle, (VkImage)(uintptr_t)h, &req);
	s = vkl_reach_lock(type, h);
	r = vkl_res_get(s, type, h, 1);
	if (r) {
		r->memory = mem;
		r->offset = offset;
		if (type == VK_OBJECT_TYPE_IMAGE)
			r->size = req.size ? req.size : VK_WHOLE_SIZE;
		if (planar)
			r->unknown = 1;
		usage = r->usage;
		addressed = r->addressed;
	}
	pthread_mutex_unlock(&s->mu);
	if (mem != VK_NULL_HANDLE && ((usage & VKL_REACH_ADDRESS_USAGE) || addressed))
		vkl_memory_mark_always(mem);
}

/* ---- descriptor sets ------------------------------------------------------------ */

/* What one descriptor of the type holds that reaches memory. */
static VkObjectType vkl_reach_desc_kind(VkDescriptorType t)
{
	switch (t) {
	case VK_DESCRIPTOR_TYPE_SAMPLER:
	case VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK:
		return VK_OBJECT_TYPE_UNKNOWN; /* nothing: no slot */
	case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
	case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
	case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
	case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
	case VK_DESCRIPTOR_TYPE_SAMPLE_WEIGHT_IMAGE_QCOM:
	case VK_DESCRIPTOR_TYPE_BLOCK_MATCH_IMAGE_QCOM:
		return VK_OBJECT_TYPE_IMAGE_VIEW;
	case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
		return VK_OBJECT_TYPE_BUFFER_VIEW;
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
		return VK_OBJECT_TYPE_BUFFER;
	case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR:
		return VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR;
	case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_NV:
		return VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV;
	default:
		return VK_OBJECT_TYPE_MAX_ENUM; /* a type this file does not know */
	}
}

/* Descriptor (binding, element) of a set or a command buffer's push
 * descriptors now holds handle h (0: nothing that reaches memory). */
static void vkl_reach_slot(vkl_res *r, uint32_t binding, uint64_t elem, VkObjectType type,
                           uint64_t h)
{
	uint64_t key = (uint64_t)binding << 32 | (elem & 0xffffffffu);
	if (!r->tab.typed) {
		if (h == 0 && type != VK_OBJECT_TYPE_MAX_ENUM)
			vkl_rt_del(&r->tab, key, 0, NULL);
		else if (vkl_rt_put(&r->tab, key, (uint32_t)type, h) < 0)
			r->all = 1;
		return;
	}
	/* a command buffer (push descriptors): its set of handles */
	if (type == VK_OBJECT_TYPE_MAX_ENUM || type == VK_OBJECT_TYPE_UNKNOWN)
		r->all = 1;
	else if (h)
		vkl_reach_note(r, type, h, 0);
}

static void vkl_reach_write(vkl_res *r, const VkWriteDescriptorSet *w)
{
	VkObjectType kind = vkl_reach_desc_kind(w->descriptorType);
	const VkWriteDescriptorSetAccelerationStructureKHR *as = NULL;
	uint32_t i;
	for (const VkBaseInStructure *b = w->pNext; b; b = b->pNext)
		if (b->sType == VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR)
			as = (const VkWriteDescriptorSetAccelerationStructureKHR *)(const void *)b;
	for (i = 0; i < w->descriptorCount; i++) {
		uint64_t h = 0;
		if (kind == VK_OBJECT_TYPE_IMAGE_VIEW && w->pImageInfo)
			h = (uint64_t)(uintptr_t)w->pImageInfo[i].imageView;
		else if (kind == VK_OBJECT_TYPE_BUFFER_VIEW && w->pTexelBufferView)
			h = (uint64_t)(uintptr_t)w->pTexelBufferView[i];
		else if (kind == VK_OBJECT_TYPE_BUFFER && w->pBufferInfo)
			h = (uint64_t)(uintptr_t)w->pBufferInfo[i].buffer;
		else if (kind == VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR && as &&
		         i < as->accelerationStructureCount)
			h = (uint64_t)(uintptr_t)as->pAccelerationStructures[i];
		else if (kind == VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_NV ||
		         kind == VK_OBJECT_TYPE_MAX_ENUM)
			h = 1; /* reaches what we cannot follow */
		if (kind == VK_OBJECT_TYPE_UNKNOWN)
			h = 0;
		vkl_reach_slot(r, w->dstBinding, (uint64_t)w->dstArrayElement + i,
		               kind == VK_OBJECT_TYPE_UNKNOWN ? VK_OBJECT_TYPE_UNKNOWN : kind, h);
	}
}

static void vkl_reach_update(const VkWriteDescriptorSet *writes, uint32_t nw,
                             const VkCopyDescriptorSet *copies, uint32_t nc)
{
	uint32_t i, j;
	for (i = 0; writes && i < nw; i++) {
		uint64_t set = (uint64_t)(uintptr_t)writes[i].dstSet;
		vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, set);
		vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_SET, set, 1);
		if (r)
			vkl_reach_write(r, &writes[i]);
		pthread_mutex_unlock(&s->mu);
	}
	for (i = 0; copies && i < nc; i++) {
		const VkCopyDescriptorSet *c = &copies[i];
		uint64_t src = (uint64_t)(uintptr_t)c->srcSet, dst = (uint64_t)(uintptr_t)c->dstSet;
		vkl_rt_ent *got = calloc(c->descriptorCount ? c->descriptorCount : 1, sizeof(*got));
		vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, src);
		vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_SET, src, 0);
		for (j = 0; got && r && j < c->descriptorCount; j++) {
			uint64_t key = (uint64_t)c->srcBinding << 32 |
			               (((uint64_t)c->srcArrayElement + j) & 0xffffffffu);
			vkl_rt_ent *e = vkl_rt_find(&r->tab, key, 0);
			if (e)
				got[j] = *e;
		}
		pthread_mutex_unlock(&s->mu);
		s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, dst);
		r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_SET, dst, 1);
		for (j = 0; r && j < c->descriptorCount; j++) {
			if (!got)
				vkl_reach_slot(r, c->dstBinding, (uint64_t)c->dstArrayElement + j,
				               VK_OBJECT_TYPE_MAX_ENUM, 1);
			else
				vkl_reach_slot(r, c->dstBinding, (uint64_t)c->dstArrayElement + j,
				               got[j].used ? (VkObjectType)got[j].type : VK_OBJECT_TYPE_UNKNOWN,
				               got[j].used ? got[j].val : 0);
		}
		pthread_mutex_unlock(&s->mu);
		free(got);
	}
}

static void vkl_reach_template_created(const VkDescriptorUpdateTemplateCreateInfo *ci,
                                       VkDescriptorUpdateTemplate t)
{
	uint64_t h = (uint64_t)(uintptr_t)t;
	VkDescriptorUpdateTemplateEntry *copy = NULL;
	uint32_t n = ci->descriptorUpdateEntryCount;
	vkl_reach_shard *s;
	vkl_res *r;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (copy)
			memcpy(copy, ci->pDescriptorUpdateEntries, n * sizeof(*copy));
	}
	s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, h);
	r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, h, 1);
	if (r) {
		free(r->entries);
		r->entries = copy;
		r->nentries = copy ? n : 0;
		r->unknown = n && !copy;
		copy = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	free(copy);
}

/* pData through template t into r (a set, or a command buffer for push
 * descriptors); r's shard is locked by the caller when r is a set. */
static void vkl_reach_apply_template(vkl_res *r, const VkDescriptorUpdateTemplateEntry *ents,
                                     uint32_t n, const void *data)
{
	const uint8_t *p = data;
	uint32_t i, j;
	for (i = 0; i < n; i++) {
		const VkDescriptorUpdateTemplateEntry *e = &ents[i];
		VkObjectType kind = vkl_reach_desc_kind(e->descriptorType);
		if (kind == VK_OBJECT_TYPE_UNKNOWN)
			continue;
		for (j = 0; j < e->descriptorCount; j++) {
			const uint8_t *q = p + e->offset + (size_t)j * e->stride;
			uint64_t h = 1;
			if (kind == VK_OBJECT_TYPE_IMAGE_VIEW) {
				VkDescriptorImageInfo ii;
				memcpy(&ii, q, sizeof(ii));
				h = (uint64_t)(uintptr_t)ii.imageView;
			} else if (kind == VK_OBJECT_TYPE_BUFFER_VIEW) {
				VkBufferView v;
				memcpy(&v, q, sizeof(v));
				h = (uint64_t)(uintptr_t)v;
			} else if (kind == VK_OBJECT_TYPE_BUFFER) {
				VkDescriptorBufferInfo bi;
				memcpy(&bi, q, sizeof(bi));
				h = (uint64_t)(uintptr_t)bi.buffer;
			} else if (kind == VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR) {
				VkAccelerationStructureKHR a;
				memcpy(&a, q, sizeof(a));
				h = (uint64_t)(uintptr_t)a;
			}
			vkl_reach_slot(r, e->dstBinding, (uint64_t)e->dstArrayElement + j, kind, h);
		}
	}
}

/* A copy of template t's entries (NULL, *n = 0 when it has none; *unknown
 * when they could not be kept). */
static VkDescriptorUpdateTemplateEntry *vkl_reach_template_entries(uint64_t t, uint32_t *n,
                                                                   int *unknown)
{
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, t);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, t, 0);
	VkDescriptorUpdateTemplateEntry *copy = NULL;
	*n = 0;
	*unknown = !r || r->unknown;
	if (r && r->nentries) {
		copy = malloc(r->nentries * sizeof(*copy));
		if (copy) {
			memcpy(copy, r->entries, r->nentries * sizeof(*copy));
			*n = r->nentries;
		} else {
			*unknown = 1;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return copy;
}

static void vkl_reach_update_template(uint64_t set, uint64_t t, const void *data)
{
	uint32_t n;
	int unknown;
	VkDescriptorUpdateTemplateEntry *ents = vkl_reach_template_entries(t, &n, &unknown);
	vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, set);
	vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_SET, set, 1);
	if (r && unknown)
		vkl_reach_slot(r, 0xffffffffu, 0, VK_OBJECT_TYPE_MAX_ENUM, 1);
	else if (r && data)
		vkl_reach_apply_template(r, ents, n, data);
	pthread_mutex_unlock(&s->mu);
	free(ents);
}

static void vkl_reach_push_template(uint64_t cb, uint64_t t, const void *data)
{
	uint32_t n;
	int unknown;
	VkDescriptorUpdateTemplateEntry *ents = vkl_reach_template_entries(t, &n, &unknown);
	vkl_res *r = vkl_reach_cb(cb);
	if (r && unknown)
		r->all = 1;
	else if (r && data)
		vkl_reach_apply_template(r, ents, n, data);
	free(ents);
}

static void vkl_reach_sets_allocated(const VkDescriptorSetAllocateInfo *ai, const VkDescriptorSet *sets)
{
	uint32_t i;
	for (i = 0; i < ai->descriptorSetCount; i++) {
		uint64_t h = (uint64_t)(uintptr_t)sets[i];
		vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_DESCRIPTOR_SET, h);
		vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_DESCRIPTOR_SET, h, 1);
		if (r) {
			vkl_rt_clear(&r->tab);
			r->pool = (uint64_t)(uintptr_t)ai->descriptorPool;
		}
		pthread_mutex_unlock(&s->mu);
	}
}

static void vkl_reach_cbs_allocated(const VkCommandBufferAllocateInfo *ai, const VkCommandBuffer *cbs)
{
	uint32_t i;
	for (i = 0; i < ai->commandBufferCount; i++) {
		uint64_t h = (uint64_t)(uintptr_t)cbs[i];
		vkl_reach_shard *s = vkl_reach_lock(VK_OBJECT_TYPE_COMMAND_BUFFER, h);
		vkl_res *r = vkl_res_get(s, VK_OBJECT_TYPE_COMMAND_BUFFER, h, 1);
		if (r) {
			vkl_rt_clear(&r->tab);
			r->all = 0;
			r->pool = (uint64_t)(uintptr_t)ai->commandPool;
		}
		pthread_mutex_unlock(&s->mu);
	}
}

static void vkl_reach_begin(const sbt_vk_args_vkBeginCommandBuffer *a)
{
	vkl_res *r = vkl_reach_cb((uint64_t)(uintptr_t)a->commandBuffer);
	if (!r)
		return;
	vkl_rt_clear(&r->tab);
	r->all = 0;
	sbt_vk_refs(SBT_VK_CMD_vkBeginCommandBuffer, a, vkl_reach_note, r);
}

void vkl_reach_call(const vkl_device *d, uint32_t cmd, const void *args, int ok)
{
	uint32_t i;
	switch ((enum sbt_vk_cmd)cmd) {
	case SBT_VK_CMD_vkCreateBuffer: {
		const sbt_vk_args_vkCreateBuffer *a = args;
		if (ok && a->pBuffer)
			vkl_reach_buffer_created(a->pCreateInfo, *a->pBuffer);
		break;
	}
	case SBT_VK_CMD_vkCreateImage: {
		const sbt_vk_args_vkCreateImage *a = args;
		if (ok && a->pImage)
			vkl_reach_image_created(a->pCreateInfo, *a->pImage);
		break;
	}
	case SBT_VK_CMD_vkCreateImageView: {
		const sbt_vk_args_vkCreateImageView *a = args;
		if (ok && a->pView)
			vkl_reach_target(VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)(uintptr_t)*a->pView,
			                 (uint64_t)(uintptr_t)a->pCreateInfo->image);
		break;
	}
	case SBT_VK_CMD_vkCreateBufferView: {
		const sbt_vk_args_vkCreateBufferView *a = args;
		if (ok && a->pView)
			vkl_reach_target(VK_OBJECT_TYPE_BUFFER_VIEW, (uint64_t)(uintptr_t)*a->pView,
			                 (uint64_t)(uintptr_t)a->pCreateInfo->buffer);
		break;
	}
	case SBT_VK_CMD_vkCreateFramebuffer: {
		const sbt_vk_args_vkCreateFramebuffer *a = args;
		if (ok && a->pFramebuffer)
			vkl_reach_framebuffer(a->pCreateInfo, *a->pFramebuffer);
		break;
	}
	case SBT_VK_CMD_vkGetBufferDeviceAddress:
	case SBT_VK_CMD_vkGetBufferDeviceAddressKHR:
	case SBT_VK_CMD_vkGetBufferDeviceAddressEXT: {
		const sbt_vk_args_vkGetBufferDeviceAddress *a = args;
		if (a->pInfo)
			vkl_reach_addressed((uint64_t)(uintptr_t)a->pInfo->buffer);
		break;
	}
	case SBT_VK_CMD_vkGetBufferOpaqueCaptureAddress:
	case SBT_VK_CMD_vkGetBufferOpaqueCaptureAddressKHR: {
		const sbt_vk_args_vkGetBufferOpaqueCaptureAddress *a = args;
		if (a->pInfo)
			vkl_reach_addressed((uint64_t)(uintptr_t)a->pInfo->buffer);
		break;
	}
	case SBT_VK_CMD_vkGetDeviceMemoryOpaqueCaptureAddress:
	case SBT_VK_CMD_vkGetDeviceMemoryOpaqueCaptureAddressKHR: {
		const sbt_vk_args_vkGetDeviceMemoryOpaqueCaptureAddress *a = args;
		if (a->pInfo)
			vkl_memory_mark_always(a->pInfo->memory);
		break;
	}
	case SBT_VK_CMD_vkBindBufferMemory: {
		const sbt_vk_args_vkBindBufferMemory *a = args;
		if (ok)
			vkl_reach_bound(d, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer,
			                a->memory, a->memoryOffset, 0);
		break;
	}
	case SBT_VK_CMD_vkBindBufferMemory2:
	case SBT_VK_CMD_vkBindBufferMemory2KHR: {
		const sbt_vk_args_vkBindBufferMemory2 *a = args;
		for (i = 0; ok && i < a->bindInfoCount; i++)
			vkl_reach_bound(d, VK_OBJECT_TYPE_BUFFER,
			                (uint64_t)(uintptr_t)a->pBindInfos[i].buffer,
			                a->pBindInfos[i].memory, a->pBindInfos[i].memoryOffset, 0);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory: {
		const sbt_vk_args_vkBindImageMemory *a = args;
		if (ok)
			vkl_reach_bound(d, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image, a->memory,
			                a->memoryOffset, 0);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory2:
	case SBT_VK_CMD_vkBindImageMemory2KHR: {
		const sbt_vk_args_vkBindImageMemory2 *a = args;
		for (i = 0; ok && i < a->bindInfoCount; i++) {
			const VkBindImageMemoryInfo *b = &a->pBindInfos[i];
			int planar = 0;
			for (const VkBaseInStructure *p = b->pNext; p; p = p->pNext)
				if (p->sType == VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO)
					planar = 1;
			vkl_reach_bound(d, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)b->image, b->memory,
			                b->memoryOffset, planar);
		}
		break;
	}
	case SBT_VK_CMD_vkDestroyBuffer:
		vkl_reach_forget(VK_OBJECT_TYPE_BUFFER,
		                 (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyBuffer *)args)->buffer);
		break;
	case SBT_VK_CMD_vkDestroyImage:
		vkl_reach_forget(VK_OBJECT_TYPE_IMAGE,
		                 (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImage *)args)->image);
		break;
	case SBT_VK_CMD_vkDestroyImageView:
		vkl_reach_forget(VK_OBJECT_TYPE_IMAGE_VIEW,
		                 (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImageView *)args)->imageView);
		break;
	case SBT_VK_CMD_vkDestroyBufferView:
		vkl_reach_forget(VK_OBJECT_TYPE_BUFFER_VIEW,
		                 (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyBufferView *)args)->bufferView);
		break;
	case SBT_VK_CMD_vkDestroyFramebuffer:
		vkl_reach_forget(VK_OBJECT_TYPE_FRAMEBUFFER,
		                 (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyFramebuffer *)args)->framebuffer);
		break;
	case SBT_VK_CMD_vkAllocateCommandBuffers: {
		const sbt_vk_args_vkAllocateCommandBuffers *a = args;
		if (ok && a->pCommandBuffers)
			vkl_reach_cbs_allocated(a->pAllocateInfo, a->pCommandBuffers);
		break;
	}
	case SBT_VK_CMD_vkFreeCommandBuffers: {
		const sbt_vk_args_vkFreeCommandBuffers *a = args;
		for (i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++)
			if (a->pCommandBuffers[i])
				vkl_reach_forget(VK_OBJECT_TYPE_COMMAND_BUFFER,
				                 (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
		break;
	}
	case SBT_VK_CMD_vkDestroyCommandPool:
		vkl_reach_forget_pool(VK_OBJECT_TYPE_COMMAND_BUFFER,
		                      (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyCommandPool *)args)->commandPool);
		break;
	case SBT_VK_CMD_vkBeginCommandBuffer:
		if (ok)
			vkl_reach_begin(args);
		break;
	case SBT_VK_CMD_vkAllocateDescriptorSets: {
		const sbt_vk_args_vkAllocateDescriptorSets *a = args;
		if (ok && a->pDescriptorSets)
			vkl_reach_sets_allocated(a->pAllocateInfo, a->pDescriptorSets);
		break;
	}
	case SBT_VK_CMD_vkFreeDescriptorSets: {
		const sbt_vk_args_vkFreeDescriptorSets *a = args;
		for (i = 0; a->pDescriptorSets && i < a->descriptorSetCount; i++)
			if (a->pDescriptorSets[i])
				vkl_reach_forget(VK_OBJECT_TYPE_DESCRIPTOR_SET,
				                 (uint64_t)(uintptr_t)a->pDescriptorSets[i]);
		break;
	}
	case SBT_VK_CMD_vkResetDescriptorPool:
		vkl_reach_forget_pool(VK_OBJECT_TYPE_DESCRIPTOR_SET,
		                      (uint64_t)(uintptr_t)((const sbt_vk_args_vkResetDescriptorPool *)args)->descriptorPool);
		break;
	case SBT_VK_CMD_vkDestroyDescriptorPool:
		vkl_reach_forget_pool(VK_OBJECT_TYPE_DESCRIPTOR_SET,
		                      (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyDescriptorPool *)args)->descriptorPool);
		break;
	case SBT_VK_CMD_vkUpdateDescriptorSets: {
		const sbt_vk_args_vkUpdateDescriptorSets *a = args;
		vkl_reach_update(a->pDescriptorWrites, a->descriptorWriteCount, a->pDescriptorCopies,
		                 a->descriptorCopyCount);
		break;
	}
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR: {
		const sbt_vk_args_vkCreateDescriptorUpdateTemplate *a = args;
		if (ok && a->pDescriptorUpdateTemplate)
			vkl_reach_template_created(a->pCreateInfo, *a->pDescriptorUpdateTemplate);
		break;
	}
	case SBT_VK_CMD_vkDestroyDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkDestroyDescriptorUpdateTemplateKHR:
		vkl_reach_forget(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE,
		                 (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyDescriptorUpdateTemplate *)args)
		                         ->descriptorUpdateTemplate);
		break;
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR: {
		const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *a = args;
		vkl_reach_update_template((uint64_t)(uintptr_t)a->descriptorSet,
		                          (uint64_t)(uintptr_t)a->descriptorUpdateTemplate, a->pData);
		break;
	}
	case SBT_VK_CMD_vkCmdPushDescriptorSetWithTemplateKHR: {
		const sbt_vk_args_vkCmdPushDescriptorSetWithTemplateKHR *a = args;
		vkl_reach_push_template((uint64_t)(uintptr_t)a->commandBuffer,
		                        (uint64_t)(uintptr_t)a->descriptorUpdateTemplate, a->pData);
		break;
	}
	default:
		break;
	}
}

/* ---- at submit ------------------------------------------------------------------- */

typedef struct vkl_walk {
	vkl_range *ranges;
	size_t n, cap;
	int all;
	vkl_rt seen; /* typed: what was expanded already */
} vkl_walk;

static void vkl_walk_range(vkl_walk *w, VkDeviceMemory mem, VkDeviceSize off, VkDeviceSize size,
                           int writable)
{
	if (mem == VK_NULL_HANDLE)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 32;
		vkl_range *r = realloc(w->ranges, cap * sizeof(*r));
		if (!r) {
			w->all = 1;
			return;
		}
		w->ranges = r;
		w->cap = cap;
	}
	w->ranges[w->n].memory = mem;
	w->ranges[w->n].offset = off;
	w->ranges[w->n].size = size;
	w->ranges[w->n].writable = writable;
	w->n++;
}

static void vkl_walk_at(vkl_walk *w, VkObjectType type, uint64_t h, uint64_t access, uint64_t lo,
                        uint64_t hi);

/* The (type, handle) pairs of an entry's table, copied out under its lock. */
static void vkl_walk_table(vkl_walk *w, VkObjectType type, uint64_t h)
{
	vkl_reach_shard *s = vkl_reach_lock(type, h);
	vkl_res *r = vkl_res_get(s, type, h, 0);
	vkl_rt_ent *copy = NULL;
	size_t n = 0, i;
	int all = 0;
	if (r) {
		all = r->all;
		if (r->tab.n) {
			copy = malloc(r->tab.n * sizeof(*copy));
			if (!copy)
				all = 1;
			for (i = 0; copy && i < r->tab.cap; i++)
				if (r->tab.e[i].used)
					copy[n++] = r->tab.e[i];
		}
	} else if (type == VK_OBJECT_TYPE_COMMAND_BUFFER) {
		all = 1; /* recorded where the layer could not follow */
	}
	pthread_mutex_unlock(&s->mu);
	if (all)
		w->all = 1;
	for (i = 0; i < n && !w->all; i++) {
		/* sets: the slot's value is the handle (what the device does with
		 * it: its usage says); the others: the key, the value what the
		 * commands do with it (vkl_rt_note) */
		int set = type == VK_OBJECT_TYPE_DESCRIPTOR_SET;
		uint64_t ref = set ? copy[i].val : copy[i].key;
		if (copy[i].type == VK_OBJECT_TYPE_MAX_ENUM)
			w->all = 1;
		else if (ref && copy[i].type != VK_OBJECT_TYPE_UNKNOWN)
			vkl_walk_at(w, (VkObjectType)copy[i].type, ref, set ? SBT_VK_REF_WRITES : copy[i].val,
			            copy[i].lo, copy[i].hi);
	}
	free(copy);
}

/*
 * Visit handle h, named by commands that do access with it (an
 * SBT_VK_REF_*; SBT_VK_REF_REGIONS: a buffer written in [lo, hi) of it
 * only).  A buffer or image adds its memory's range to be published, and
 * what of it the device may write.  w->seen: each handle once, except
 * that one named for reads first is visited again for writes, and a
 * buffer written in regions again for each command buffer's regions.
 */
static void vkl_walk_at(vkl_walk *w, VkObjectType type, uint64_t h, uint64_t access, uint64_t lo,
                        uint64_t hi)
{
	vkl_reach_shard *s;
	vkl_res *r;
	vkl_rt_ent *seen;
	VkDeviceMemory mem;
	VkDeviceSize off, size;
	uint64_t target;
	int unknown, writable;
	if (w->all)
		return;
	seen = vkl_rt_find(&w->seen, h, (uint32_t)type);
	if (seen) {
		if (access == SBT_VK_REF_READS || seen->val == SBT_VK_REF_WRITES)
			return;
		seen->val = access;
	} else if (!vkl_rt_insert(&w->seen, h, (uint32_t)type, access)) {
		w->all = 1;
		return;
	}
	switch (type) {
	case VK_OBJECT_TYPE_COMMAND_BUFFER:
	case VK_OBJECT_TYPE_DESCRIPTOR_SET:
	case VK_OBJECT_TYPE_FRAMEBUFFER:
		vkl_walk_table(w, type, h);
		return;
	case VK_OBJECT_TYPE_IMAGE_VIEW:
	case VK_OBJECT_TYPE_BUFFER_VIEW:
		s = vkl_reach_lock(type, h);
		r = vkl_res_get(s, type, h, 0);
		target = r ? r->target : 0;
		pthread_mutex_unlock(&s->mu);
		if (target)
			vkl_walk_at(w, type == VK_OBJECT_TYPE_IMAGE_VIEW ? VK_OBJECT_TYPE_IMAGE
			                                                 : VK_OBJECT_TYPE_BUFFER,
			            target, access == SBT_VK_REF_READS ? SBT_VK_REF_READS : SBT_VK_REF_WRITES,
			            0, 0);
		return;
	case VK_OBJECT_TYPE_BUFFER:
	case VK_OBJECT_TYPE_IMAGE:
		s = vkl_reach_lock(type, h);
		r = vkl_res_get(s, type, h, 0);
		/* not known (swapchain images): no memory the host maps */
		mem = r ? r->memory : VK_NULL_HANDLE;
		off = r ? r->offset : 0;
		size = r ? r->size : 0;
		unknown = r ? r->unknown : 0;
		/* not written by the device: a buffer or image named for reads
		 * only, or a buffer whose usage allows reads only (images: any) */
		writable = access != SBT_VK_REF_READS &&
		           (type == VK_OBJECT_TYPE_IMAGE || !r || (r->usage & ~VKL_REACH_READ_USAGE));
		pthread_mutex_unlock(&s->mu);
		if (unknown) {
			w->all = 1;
		} else if (access != SBT_VK_REF_REGIONS || type != VK_OBJECT_TYPE_BUFFER || !size) {
			vkl_walk_range(w, mem, off, size ? size : VK_WHOLE_SIZE, writable);
		} else {
			/* published whole; written where the regions say, inside it */
			vkl_walk_range(w, mem, off, size, 0);
			hi = hi < size ? hi : size;
			if (writable && lo < hi)
				vkl_walk_range(w, mem, off + lo, hi - lo, 1);
		}
		return;
	case VK_OBJECT_TYPE_DEVICE_MEMORY:
		vkl_walk_range(w, (VkDeviceMemory)(uintptr_t)h, 0, VK_WHOLE_SIZE, 1);
		return;
	default:
		/* acceleration structures, micromaps, video sessions, and whatever
		 * the walk reports as unknown */
		w->all = 1;
		return;
	}
}

/* sbt_vk_refs' callback for a submission's own handles (its command
 * buffers). */
static void vkl_walk_visit(void *ctx, VkObjectType type, uint64_t h, int access)
{
	vkl_walk_at(ctx, type, h, access == SBT_VK_REF_READS ? SBT_VK_REF_READS : SBT_VK_REF_WRITES, 0,
	            0);
}

static int vkl_range_cmp(const void *a, const void *b)
{
	const vkl_range *x = a, *y = b;
	if (x->memory != y->memory)
		return (uintptr_t)x->memory < (uintptr_t)y->memory ? -1 : 1;
	if (x->writable != y->writable)
		return x->writable < y->writable ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

/* The end of range x (VK_WHOLE_SIZE: to the memory's end). */
static VkDeviceSize vkl_range_end(const vkl_range *x)
{
	return x->size == VK_WHOLE_SIZE ? VK_WHOLE_SIZE : x->offset + x->size;
}

/* Merged ranges r[0, n) without those the device does not write that lie
 * inside one of the same memory it may write (a buffer named by one
 * command buffer for a copy into part of it, by another for any write):
 * publishing them again would find nothing new.  Returns the count left. */
static size_t vkl_ranges_drop_covered(vkl_range *r, size_t n)
{
	size_t i, j, k = 0;
	for (i = 0; i < n; i++) {
		int covered = 0;
		for (j = i + 1; !r[i].writable && j < n && r[j].memory == r[i].memory && !covered; j++)
			covered = r[j].writable && r[j].offset <= r[i].offset &&
			          vkl_range_end(&r[j]) >= vkl_range_end(&r[i]);
		if (!covered)
			r[k++] = r[i];
	}
	return k;
}

/* Sort (by memory, then whether the device may write, then offset) and
 * merge overlapping or touching ranges of the same memory and kind. */
static size_t vkl_ranges_merge(vkl_range *r, size_t n)
{
	size_t i, k = 0;
	if (!n)
		return 0;
	qsort(r, n, sizeof(*r), vkl_range_cmp);
	for (i = 1; i < n; i++) {
		vkl_range *last = &r[k];
		VkDeviceSize end = last->size == VK_WHOLE_SIZE ? VK_WHOLE_SIZE : last->offset + last->size;
		/* ranges the device may write merge only with each other: a
		 * buffer published whole and written in part is two ranges */
		if (r[i].memory == last->memory && r[i].offset <= end &&
		    r[i].writable == last->writable) {
			if (end != VK_WHOLE_SIZE) {
				VkDeviceSize e2 = r[i].size == VK_WHOLE_SIZE ? VK_WHOLE_SIZE
				                                             : r[i].offset + r[i].size;
				if (e2 == VK_WHOLE_SIZE)
					last->size = VK_WHOLE_SIZE;
				else if (e2 > end)
					last->size = e2 - last->offset;
			}
			continue;
		}
		r[++k] = r[i];
	}
	return vkl_ranges_drop_covered(r, k + 1);
}

void vkl_reach_publish(vkl_device *d, uint32_t cmd, const void *args)
{
	vkl_walk w;
	memset(&w, 0, sizeof(w));
	w.seen.typed = 1;
	if (!sbt_vk_refs((enum sbt_vk_cmd)cmd, args, vkl_walk_visit, &w) &&
	    cmd != SBT_VK_CMD_vkQueueSubmit && cmd != SBT_VK_CMD_vkQueueSubmit2 &&
	    cmd != SBT_VK_CMD_vkQueueSubmit2KHR)
		w.all = 1; /* vkQueueBindSparse: binds memory this file does not model */
	if (w.all)
		vkl_memory_publish(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	else
		vkl_memory_publish_ranges(d, w.ranges, vkl_ranges_merge(w.ranges, w.n));
	free(w.ranges);
	vkl_rt_free(&w.seen);
}
