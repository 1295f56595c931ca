/*
 * emu_vk_cmd.c - what a Vulkan trace records into command buffers, and the
 * objects their footprints name (docs/emulator.md "Vulkan": commands,
 * barriers, footprints).
 *
 * Each command buffer keeps its items in recording order: commands with
 * their footprints, resolved when recorded (buffers by byte range, images
 * by subresource, descriptor sets through their last writes, by descriptor
 * type, templates' included), and barriers as the stage classes and
 * accesses they order.  emu_vk.c expands them at each submit.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_vk_build.h"
#include "serializer/generated/sbt_vk_ignored.h"

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
uint8_t emu_vk_classes(VkPipelineStageFlags2 m, int first)
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

/* Memory mem bound to alloc al at off (what emu_races_touching follows). */
static void emu_vk_bound(emu_vk_builder *b, uint32_t al, uint64_t mem, uint64_t off)
{
	if (!al || al >= b->g->allocs.n)
		return;
	b->g->allocs.v[al].mem = mem;
	b->g->allocs.v[al].mem_off = off;
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
	c->pipe[0] = c->pipe[1] = 0;
	c->push[0].d.n = c->push[1].d.n = 0;
	c->push_used[0] = c->push_used[1] = 0;
	c->dynoff[0].n = c->dynoff[1].n = 0;
	memset(c->dyn_count, 0, sizeof(c->dyn_count));
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

/* Subresources of an image: mip levels [mip, mip + nmips) by array layers
 * [layer, layer + nlayers); counts may be VK_REMAINING_*. */
typedef struct emu_vk_sub {
	uint32_t mip, nmips, layer, nlayers;
} emu_vk_sub;

static emu_vk_sub emu_vk_sub_range(const VkImageSubresourceRange *r)
{
	emu_vk_sub s = { r->baseMipLevel, r->levelCount, r->baseArrayLayer, r->layerCount };

	return s;
}

static emu_vk_sub emu_vk_sub_layers(const VkImageSubresourceLayers *l)
{
	emu_vk_sub s = { l->mipLevel, 1, l->baseArrayLayer, l->layerCount };

	return s;
}

/* The k-th index range [*lo, *hi) of subresources s of im (emu_vk_image):
 * one across the mips when s takes every layer, else one per mip; 0 when
 * there is no k-th.  A start past the image's end or a count of 0 (invalid
 * usage; layers of a 3D image's 2D views are its slices) takes them all,
 * VK_REMAINING_* and counts past the end stop at it. */
static int emu_vk_sub_at(const emu_vk_image *im, emu_vk_sub s, uint32_t k, uint64_t *lo, uint64_t *hi)
{
	if (s.mip >= im->mips || !s.nmips) {
		s.mip = 0;
		s.nmips = im->mips;
	}
	if (s.layer >= im->layers || !s.nlayers) {
		s.layer = 0;
		s.nlayers = im->layers;
	}
	if (s.nmips > im->mips - s.mip)
		s.nmips = im->mips - s.mip;
	if (s.nlayers > im->layers - s.layer)
		s.nlayers = im->layers - s.layer;
	if (s.nlayers == im->layers) {
		if (k)
			return 0;
		*lo = (uint64_t)s.mip * im->layers;
		*hi = (uint64_t)(s.mip + s.nmips) * im->layers;
		return 1;
	}
	if (k >= s.nmips)
		return 0;
	*lo = (uint64_t)(s.mip + k) * im->layers + s.layer;
	*hi = *lo + s.nlayers;
	return 1;
}

static int emu_vk_acc_img(emu_vk_builder *b, emu_vk_cb *c, VkImage img, emu_vk_sub s, uint32_t mode)
{
	const emu_vk_image *im = emu_vk_image_of(b, img);
	uint64_t lo, hi;

	for (uint32_t k = 0; im && emu_vk_sub_at(im, s, k, &lo, &hi); k++)
		if (emu_vk_acc(c, im->alloc, lo, hi, mode) != 0)
			return -1;
	return 0;
}

/* One region of a buffer<->image copy: the image's subresources it names,
 * and the buffer's rows it touches when the image format's texel size is
 * known, else the buffer from the offset to the end.  mode is the
 * buffer's (EMU_A_READ or EMU_A_WRITE); the image's is the other. */
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
	if (emu_vk_acc_img(b, c, img, emu_vk_sub_layers(&r->imageSubresource),
	                   mode == EMU_A_READ ? EMU_A_WRITE : EMU_A_READ) != 0)
		return -1;
	return emu_vk_acc_buf(b, c, buf, r->bufferOffset, size, mode);
}

/* The descriptors of set s, bound as set number setno, as accesses of the
 * command being recorded.  sh: what the bound pipeline's shaders declare
 * (NULL, or not known: every descriptor counts as its type says); a binding
 * they do not declare is not reached, one they do not write through is
 * read only. */
/* Where descriptor d of set s, bound with the dynamic offsets dyn[0..ndyn)
 * (ndyn UINT32_MAX: not known), lies: a dynamic buffer's range moved by
 * its offset, whose place among the offsets is its rank among the set
 * layout's dynamic descriptors (by binding number, then element); where
 * that is not known, from the descriptor's offset to the buffer's end. */
static void emu_vk_desc_range(const emu_vk_builder *b, const emu_vk_set *s, const emu_vk_desc *d,
                              const uint32_t *dyn, uint32_t ndyn, uint64_t *lo, uint64_t *hi)
{
	uint64_t size = b->g->allocs.v[d->alloc].size, rank = 0, off;
	const emu_vk_layout *l = s->layout == EMU_NONE ? NULL : &b->layout.v[s->layout];
	size_t i;

	*lo = d->lo;
	*hi = d->hi;
	if (!d->dyn)
		return;
	for (i = 0; l && i < l->dyn.n && l->dyn.v[i].binding < d->binding; i++)
		rank += l->dyn.v[i].count;
	if (!l || i == l->dyn.n || l->dyn.v[i].binding != d->binding || d->elem >= l->dyn.v[i].count ||
	    ndyn == UINT32_MAX || rank + d->elem >= ndyn) {
		*hi = size;
		return;
	}
	off = dyn[rank + d->elem];
	*lo = d->lo + off;
	*hi = d->hi == UINT64_MAX || d->hi + off > size ? size : d->hi + off;
}

static int emu_vk_acc_set(const emu_vk_builder *b, emu_vk_cb *c, const emu_vk_set *s, const emu_vk_shader *sh,
                          uint32_t setno, const uint32_t *dyn, uint32_t ndyn)
{
	for (size_t k = 0; k < s->d.n; k++) {
		const emu_vk_desc *d = &s->d.v[k];
		uint32_t mode = d->mode;
		uint64_t lo, hi;

		if (sh && sh->known) {
			size_t i;

			for (i = 0; i < sh->b.n && (sh->b.v[i].set != setno || sh->b.v[i].binding != d->binding); i++)
				;
			if (i == sh->b.n)
				continue;
			if (!sh->b.v[i].writes)
				mode &= ~(uint32_t)EMU_A_MAYWRITE;
		}
		if (!d->alloc)
			continue;
		emu_vk_desc_range(b, s, d, dyn, ndyn, &lo, &hi);
		if (emu_vk_acc(c, d->alloc, lo, hi, mode) != 0)
			return -1;
	}
	return 0;
}

/* The descriptors of the sets bound at bind point bp (0 graphics, 1
 * compute), the push descriptor set included, as the pipeline bound there
 * uses them. */
static int emu_vk_acc_sets(emu_vk_builder *b, emu_vk_cb *c, int bp)
{
	const emu_vk_shader *sh = c->pipe[bp] ? &b->shader.v[c->pipe[bp] - 1] : NULL;

	for (unsigned i = 0; i < EMU_VK_SETS; i++) {
		uint32_t si = emu_vk_map_get(&b->sets, c->sets[bp][i]);
		uint32_t n = c->dyn_count[bp][i];

		if (si != EMU_NONE && emu_vk_acc_set(b, c, &b->set.v[si], sh, i,
		                                     n && n != UINT32_MAX ? c->dynoff[bp].v + c->dyn_first[bp][i] : NULL,
		                                     n) != 0)
			return -1;
	}
	return c->push_used[bp] ? emu_vk_acc_set(b, c, &c->push[bp], sh, c->push_at[bp], NULL, UINT32_MAX) : 0;
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

/* An image barrier: one barrier item per index range of its subresources
 * (an image the trace never created: the execution dependency alone). */
static int emu_vk_image_barrier(emu_vk_builder *b, emu_vk_cb *c, VkPipelineStageFlags2 src,
                                VkPipelineStageFlags2 dst, VkAccessFlags2 srca, VkAccessFlags2 dsta,
                                VkImage img, const VkImageSubresourceRange *r)
{
	const emu_vk_image *im = emu_vk_image_of(b, img);
	uint64_t lo, hi;

	if (!im)
		return emu_vk_barrier(b, c, src, dst, srca, dsta, 0, 0, 0, 0);
	for (uint32_t k = 0; emu_vk_sub_at(im, emu_vk_sub_range(r), k, &lo, &hi); k++)
		if (emu_vk_barrier(b, c, src, dst, srca, dsta, im->alloc, lo, hi, 0) != 0)
			return -1;
	return 0;
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
		                         m->dstAccessMask, m->image, &m->subresourceRange) != 0)
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
		                         m->dstAccessMask, m->image, &m->subresourceRange) != 0)
			return -1;
	}
	return 0;
}

/* ---- descriptors ------------------------------------------------------------------------- */

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

/* One VkWriteDescriptorSet into set s (its dstSet is the caller's
 * business: ignored for push descriptors). */
static int emu_vk_write_set(emu_vk_builder *b, emu_vk_set *s, const VkWriteDescriptorSet *w)
{
	uint32_t mode = emu_vk_desc_mode(w->descriptorType);

	for (uint32_t k = 0; k < w->descriptorCount; k++) {
		emu_vk_desc d = { w->dstBinding, w->dstArrayElement + k, 0, mode, 0, 0, 0 };

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
				d.dyn = (uint8_t)dyn;
				if (bi->range != VK_WHOLE_SIZE && bi->offset + bi->range >= bi->offset &&
				    (dyn || bi->offset + bi->range < d.hi))
					d.hi = bi->offset + bi->range; /* a dynamic one: moved where bound */
				else if (dyn)
					d.hi = UINT64_MAX;
			}
		} else if (!sbt_vk_ignored_VkWriteDescriptorSet_pImageInfo(w) && w->pImageInfo) {
			uint32_t vi = emu_vk_map_get(&b->iviews, (uint64_t)w->pImageInfo[k].imageView);

			if (vi != EMU_NONE) {
				d.alloc = b->view.v[vi].alloc;
				d.lo = b->view.v[vi].lo;
				d.hi = b->view.v[vi].hi;
			}
		} else if (!sbt_vk_ignored_VkWriteDescriptorSet_pTexelBufferView(w) && w->pTexelBufferView) {
			uint32_t vi = emu_vk_map_get(&b->bviews, (uint64_t)w->pTexelBufferView[k]);

			if (vi != EMU_NONE) {
				d.alloc = b->view.v[vi].alloc;
				d.lo = b->view.v[vi].lo;
				d.hi = b->view.v[vi].hi;
			}
		}
		if (emu_vk_desc_put(s, &d) != 0)
			return -1;
	}
	return 0;
}

#define EMU_VK_TMPL_SAME_MAX 4096 /* elements of a stride-0 template entry read */

/* The pData of a template update (len bytes, as recorded) into set s: each
 * entry's descriptors as one-descriptor writes (emu_vk_write_set); what
 * lies past len, and inline uniform blocks, are left out. */
static int emu_vk_write_tmpl(emu_vk_builder *b, emu_vk_set *s, VkDescriptorUpdateTemplate t, const void *data,
                             size_t len)
{
	uint32_t ti = emu_vk_map_get(&b->tmpls, (uint64_t)t);
	const uint8_t *p = data;

	if (ti == EMU_NONE || !p)
		return 0;
	for (size_t e = 0; e < b->tmpl.v[ti].e.n; e++) {
		const VkDescriptorUpdateTemplateEntry en = b->tmpl.v[ti].e.v[e];
		/* a stride of 0 gives every element the same bytes: the pData's
		 * length does not bound the count then, a cap does */
		uint32_t n = !en.stride && en.descriptorCount > EMU_VK_TMPL_SAME_MAX ? EMU_VK_TMPL_SAME_MAX :
		                                                                      en.descriptorCount;

		for (uint32_t i = 0; en.descriptorType != VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK && i < n; i++) {
			VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
			VkDescriptorBufferInfo bi;
			VkDescriptorImageInfo ii;
			VkBufferView bv = VK_NULL_HANDLE;
			uint64_t at = en.offset + (uint64_t)i * en.stride;
			void *to;
			size_t size;

			w.dstBinding = en.dstBinding;
			w.dstArrayElement = en.dstArrayElement + i;
			w.descriptorCount = 1;
			w.descriptorType = en.descriptorType;
			/* one member is meaningful for the type (sbt_vk_ignored.h) */
			w.pBufferInfo = &bi;
			w.pImageInfo = &ii;
			w.pTexelBufferView = &bv;
			memset(&bi, 0, sizeof(bi));
			memset(&ii, 0, sizeof(ii));
			if (!sbt_vk_ignored_VkWriteDescriptorSet_pBufferInfo(&w))
				to = &bi, size = sizeof(bi);
			else if (!sbt_vk_ignored_VkWriteDescriptorSet_pImageInfo(&w))
				to = &ii, size = sizeof(ii);
			else if (!sbt_vk_ignored_VkWriteDescriptorSet_pTexelBufferView(&w))
				to = &bv, size = sizeof(bv);
			else
				break; /* a type naming no buffer, view or image */
			if (at > len || size > len - at)
				break;
			memcpy(to, p + at, size);
			if (emu_vk_write_set(b, s, &w) != 0)
				return -1;
		}
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

/* The image sides of an image copy, blit or resolve (either form): each
 * region reads its source subresources and writes its destination's. */
static int emu_vk_acc_image_regions(emu_vk_builder *b, emu_vk_cb *c, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdCopyImage *a = b->args; /* the three first forms alike but for regions */
	const VkCopyImageInfo2 *a2 = NULL;            /* the infos alike but for regions */
	VkImage src, dst;
	uint32_t n;

	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyImage:
	case SBT_VK_CMD_vkCmdBlitImage:
	case SBT_VK_CMD_vkCmdResolveImage:
		src = a->srcImage;
		dst = a->dstImage;
		n = a->pRegions ? a->regionCount : 0;
		break;
	default:
		/* each second form's one argument is its info */
		a2 = ((const sbt_vk_args_vkCmdCopyImage2 *)b->args)->pCopyImageInfo;
		if (!a2)
			return 0;
		src = a2->srcImage;
		dst = a2->dstImage;
		n = a2->pRegions ? a2->regionCount : 0;
		break;
	}
	for (uint32_t i = 0; i < n; i++) {
		const VkImageSubresourceLayers *from, *to;

		switch (cmd) {
		case SBT_VK_CMD_vkCmdCopyImage:
			from = &a->pRegions[i].srcSubresource;
			to = &a->pRegions[i].dstSubresource;
			break;
		case SBT_VK_CMD_vkCmdBlitImage:
			from = &((const sbt_vk_args_vkCmdBlitImage *)b->args)->pRegions[i].srcSubresource;
			to = &((const sbt_vk_args_vkCmdBlitImage *)b->args)->pRegions[i].dstSubresource;
			break;
		case SBT_VK_CMD_vkCmdResolveImage:
			from = &((const sbt_vk_args_vkCmdResolveImage *)b->args)->pRegions[i].srcSubresource;
			to = &((const sbt_vk_args_vkCmdResolveImage *)b->args)->pRegions[i].dstSubresource;
			break;
		case SBT_VK_CMD_vkCmdBlitImage2:
		case SBT_VK_CMD_vkCmdBlitImage2KHR:
			from = &((const VkBlitImageInfo2 *)a2)->pRegions[i].srcSubresource;
			to = &((const VkBlitImageInfo2 *)a2)->pRegions[i].dstSubresource;
			break;
		case SBT_VK_CMD_vkCmdResolveImage2:
		case SBT_VK_CMD_vkCmdResolveImage2KHR:
			from = &((const VkResolveImageInfo2 *)a2)->pRegions[i].srcSubresource;
			to = &((const VkResolveImageInfo2 *)a2)->pRegions[i].dstSubresource;
			break;
		default:
			from = &a2->pRegions[i].srcSubresource;
			to = &a2->pRegions[i].dstSubresource;
			break;
		}
		if (emu_vk_acc_img(b, c, src, emu_vk_sub_layers(from), EMU_A_READ) != 0 ||
		    emu_vk_acc_img(b, c, dst, emu_vk_sub_layers(to), EMU_A_WRITE) != 0)
			return -1;
	}
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
	case SBT_VK_CMD_vkCmdResolveImage:
	case SBT_VK_CMD_vkCmdCopyImage2:
	case SBT_VK_CMD_vkCmdCopyImage2KHR:
	case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR:
	case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR:
		st = emu_vk_acc_image_regions(b, c, cmd);
		break;
	case SBT_VK_CMD_vkCmdCopyBufferToImage: {
		const sbt_vk_args_vkCmdCopyBufferToImage *a = b->args;

		for (uint32_t i = 0; i < a->regionCount && a->pRegions && st == 0; i++)
			st = emu_vk_acc_bufimg(b, c, a->srcBuffer, a->dstImage, &a->pRegions[i], EMU_A_READ);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer: {
		const sbt_vk_args_vkCmdCopyImageToBuffer *a = b->args;

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
		const sbt_vk_args_vkCmdClearColorImage *a = b->args; /* image, rangeCount, pRanges alike */

		for (uint32_t i = 0; i < a->rangeCount && a->pRanges && st == 0; i++)
			st = emu_vk_acc_img(b, c, a->image, emu_vk_sub_range(&a->pRanges[i]), EMU_A_WRITE);
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

/* Pushed descriptors go to the push set of bind point bp as set number
 * set: a push to another set number starts it anew, and it replaces a set
 * bound there. */
static void emu_vk_push_at(emu_vk_cb *c, int bp, uint32_t set)
{
	if (!c->push_used[bp] || c->push_at[bp] != set)
		c->push[bp].d.n = 0;
	c->push_used[bp] = 1;
	c->push_at[bp] = set;
	if (set < EMU_VK_SETS)
		c->sets[bp][set] = 0;
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

		uint32_t used = 0, nd = a0->pDynamicOffsets ? a0->dynamicOffsetCount : 0;

		for (uint32_t i = 0; bp >= 0 && a0->pDescriptorSets && i < a0->descriptorSetCount; i++) {
			uint32_t si = emu_vk_map_get(&b->sets, (uint64_t)a0->pDescriptorSets[i]);
			uint32_t li = si == EMU_NONE ? EMU_NONE : b->set.v[si].layout;
			/* each set takes its layout's count of the offsets, in order;
			 * after a set whose layout is unseen the rest are not known */
			uint32_t want = li == EMU_NONE || used == UINT32_MAX ? UINT32_MAX : b->layout.v[li].ndyn;

			if (want != UINT32_MAX && (want > nd - used))
				want = UINT32_MAX; /* fewer offsets than the layouts need: invalid */
			if (a0->firstSet + i < EMU_VK_SETS) {
				c->sets[bp][a0->firstSet + i] = (uint64_t)a0->pDescriptorSets[i];
				c->dyn_count[bp][a0->firstSet + i] = want;
				c->dyn_first[bp][a0->firstSet + i] = (uint32_t)c->dynoff[bp].n;
			}
			for (uint32_t k = 0; want != UINT32_MAX && k < want; k++)
				if (EMU_PUSH(c->dynoff[bp], a0->pDynamicOffsets[used + k]) != 0)
					return -1;
			used = want == UINT32_MAX ? UINT32_MAX : used + want;
			if (c->push_used[bp] && c->push_at[bp] == a0->firstSet + i)
				c->push_used[bp] = 0;
		}
	} else if (cmd == SBT_VK_CMD_vkCmdPushDescriptorSetKHR) {
		/* the writes' dstSet is ignored (sbt_vk_ignored.h): they go to the
		 * command buffer's push descriptor set at set number `set` */
		const sbt_vk_args_vkCmdPushDescriptorSetKHR *a = b->args;
		int bp = a->pipelineBindPoint == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 :
		         a->pipelineBindPoint == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : -1;

		if (bp < 0)
			return 0;
		emu_vk_push_at(c, bp, a->set);
		for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++)
			if (emu_vk_write_set(b, &c->push[bp], &a->pDescriptorWrites[i]) != 0)
				return -1;
	} else if (cmd == SBT_VK_CMD_vkCmdPushDescriptorSetWithTemplateKHR) {
		/* the template's bind point and set are ignored for pushes: the
		 * command's set, at the bind point the template was made for */
		const sbt_vk_args_vkCmdPushDescriptorSetWithTemplateKHR *a = b->args;
		uint32_t ti = emu_vk_map_get(&b->tmpls, (uint64_t)a->descriptorUpdateTemplate);
		int bp = ti == EMU_NONE ? -1 : b->tmpl.v[ti].bind_point;

		if (bp < 0)
			return 0;
		emu_vk_push_at(c, bp, a->set);
		return emu_vk_write_tmpl(b, &c->push[bp], a->descriptorUpdateTemplate, a->pData,
		                         sbt_vk_arena_template_len(b->arena));
	} else if (cmd == SBT_VK_CMD_vkCmdBindVertexBuffers || cmd == SBT_VK_CMD_vkCmdBindVertexBuffers2 ||
	           cmd == SBT_VK_CMD_vkCmdBindVertexBuffers2EXT) {
		const sbt_vk_args_vkCmdBindVertexBuffers *a = b->args; /* the same leading members */

		for (uint32_t i = 0; a->pBuffers && a->pOffsets && i < a->bindingCount; i++)
			if (a->firstBinding + i < EMU_VK_VBUFS) {
				c->vbuf[a->firstBinding + i] = emu_vk_buffer(b, a->pBuffers[i]);
				c->vbuf_off[a->firstBinding + i] = a->pOffsets[i];
			}
	} else if (cmd == SBT_VK_CMD_vkCmdBindPipeline) {
		const sbt_vk_args_vkCmdBindPipeline *a = b->args;
		uint32_t pi = emu_vk_map_get(&b->pipes, (uint64_t)a->pipeline);
		int bp = a->pipelineBindPoint == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 :
		         a->pipelineBindPoint == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : -1;

		if (bp >= 0)
			c->pipe[bp] = pi == EMU_NONE ? 0 : pi + 1;
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

/* ---- render pass attachments ------------------------------------------------- */

/* The access of a load operation: LOAD reads, CLEAR and DONT_CARE write,
 * NONE makes none (an unknown one: both). */
static uint32_t emu_vk_load_mode(VkAttachmentLoadOp op)
{
	switch (op) {
	case VK_ATTACHMENT_LOAD_OP_LOAD:
		return EMU_A_READ;
	case VK_ATTACHMENT_LOAD_OP_CLEAR:
	case VK_ATTACHMENT_LOAD_OP_DONT_CARE:
		return EMU_A_WRITE;
	case VK_ATTACHMENT_LOAD_OP_NONE_EXT:
		return 0;
	default:
		return EMU_A_READ | EMU_A_WRITE;
	}
}

/* The access of a store operation: STORE and DONT_CARE write (also for an
 * attachment only read: the specification counts both as writes), NONE
 * makes none. */
static uint32_t emu_vk_store_mode(VkAttachmentStoreOp op)
{
	return op == VK_ATTACHMENT_STORE_OP_NONE ? 0 : EMU_A_WRITE;
}

/* Whether a depth/stencil attachment in layout l may be written by the
 * commands that use it: in its depth aspect (stencil 0) or its stencil
 * aspect (stencil 1). */
static int emu_vk_ds_writable(VkImageLayout l, int stencil)
{
	switch (l) {
	case VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL:
	case VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL:
		return 0;
	case VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL:
	case VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL:
		return stencil;
	case VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL:
	case VK_IMAGE_LAYOUT_STENCIL_READ_ONLY_OPTIMAL:
		return !stencil;
	default:
		return 1;
	}
}

/* One attachment of a render pass being read (emu_vk_new_render_pass):
 * its format, operations and layouts (the stencil aspect's may differ). */
typedef struct emu_vk_att {
	VkFormat format;
	VkAttachmentLoadOp load, sload;
	VkAttachmentStoreOp store, sstore;
	VkImageLayout init, fin, sinit, sfin;
} emu_vk_att;

enum { EMU_VK_USE_INPUT, EMU_VK_USE_COLOR, EMU_VK_USE_RESOLVE, EMU_VK_USE_DS };

/* The accesses of attachment t without its uses: its load and store
 * operations (a depth/stencil format's stencil aspect by its stencil
 * operations), and a write where its final layout is not its first. */
static uint8_t emu_vk_att_mode(const emu_vk_att *t)
{
	VkImageAspectFlags as = sbt_vk_format_aspects(t->format);
	int d = !!(as & VK_IMAGE_ASPECT_DEPTH_BIT), st = !!(as & VK_IMAGE_ASPECT_STENCIL_BIT);
	uint32_t m = 0;

	if (d || !st)
		m |= emu_vk_load_mode(t->load) | emu_vk_store_mode(t->store);
	if (st)
		m |= emu_vk_load_mode(t->sload) | emu_vk_store_mode(t->sstore);
	if (t->fin != t->init || (st && t->sfin != t->sinit))
		m |= EMU_A_WRITE;
	return (uint8_t)m;
}

/* The accesses a subpass's use of attachment t in layout l (stencil
 * aspect: sl) adds: an input attachment is read, a color attachment read
 * (blending) and written, a resolve attachment written, a depth/stencil
 * attachment read and, unless each aspect it has is in a read-only
 * layout, written; a layout other than the first is a transition, a
 * write. */
static uint8_t emu_vk_use_mode(const emu_vk_att *t, int use, VkImageLayout l, VkImageLayout sl)
{
	VkImageAspectFlags as = sbt_vk_format_aspects(t->format);
	int d = !!(as & VK_IMAGE_ASPECT_DEPTH_BIT), st = !!(as & VK_IMAGE_ASPECT_STENCIL_BIT);
	uint32_t m = 0;

	switch (use) {
	case EMU_VK_USE_INPUT:
		m = EMU_A_READ;
		break;
	case EMU_VK_USE_COLOR:
		m = EMU_A_READ | EMU_A_WRITE;
		break;
	case EMU_VK_USE_RESOLVE:
		m = EMU_A_WRITE;
		break;
	default:
		m = EMU_A_READ;
		if ((d && emu_vk_ds_writable(l, 0)) || (st && emu_vk_ds_writable(sl, 1)) || (!d && !st))
			m |= EMU_A_WRITE;
		break;
	}
	if (l != t->init || (st && sl != t->sinit))
		m |= EMU_A_WRITE;
	return (uint8_t)m;
}

/* The uses of count attachment references (VkAttachmentReference, or with
 * v2 VkAttachmentReference2 and its stencil layout) added to rp->mode; an
 * index past the attachments (invalid usage) adds nothing. */
static void emu_vk_use_refs(emu_vk_rpass *rp, const emu_vk_att *t, int use, const void *refs, uint32_t count,
                            int v2)
{
	for (uint32_t k = 0; refs && k < count; k++) {
		uint32_t a;
		VkImageLayout l, sl;

		if (v2) {
			const VkAttachmentReference2 *r = &((const VkAttachmentReference2 *)refs)[k];

			a = r->attachment;
			l = sl = r->layout;
			for (const VkBaseInStructure *p = r->pNext; p; p = p->pNext)
				if (p->sType == VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_STENCIL_LAYOUT)
					sl = ((const VkAttachmentReferenceStencilLayout *)p)->stencilLayout;
		} else {
			a = ((const VkAttachmentReference *)refs)[k].attachment;
			l = sl = ((const VkAttachmentReference *)refs)[k].layout;
		}
		if (a != VK_ATTACHMENT_UNUSED && a < rp->mode.n)
			rp->mode.v[a] |= emu_vk_use_mode(&t[a], use, l, sl);
	}
}

/* rp->mode of a render pass from its attachment descriptions (ci is a
 * VkRenderPassCreateInfo, or with v2 a VkRenderPassCreateInfo2) and the
 * uses its subpasses name. */
static int emu_vk_rpass_modes(emu_vk_rpass *rp, const void *ci, int v2)
{
	const VkRenderPassCreateInfo *c1 = ci;
	const VkRenderPassCreateInfo2 *c2 = ci;
	uint32_t n = v2 ? (c2->pAttachments ? c2->attachmentCount : 0) : (c1->pAttachments ? c1->attachmentCount : 0);
	uint32_t ns = v2 ? (c2->pSubpasses ? c2->subpassCount : 0) : (c1->pSubpasses ? c1->subpassCount : 0);
	emu_vk_att *t = calloc(n ? n : 1, sizeof(*t));

	rp->mode.v = calloc(n ? n : 1, 1);
	if (!t || !rp->mode.v) {
		free(t);
		return -1;
	}
	rp->mode.n = rp->mode.cap = n;
	for (uint32_t i = 0; i < n; i++) {
		if (v2) {
			const VkAttachmentDescription2 *x = &c2->pAttachments[i];

			t[i] = (emu_vk_att){ x->format, x->loadOp, x->stencilLoadOp, x->storeOp, x->stencilStoreOp,
				             x->initialLayout, x->finalLayout, x->initialLayout, x->finalLayout };
			for (const VkBaseInStructure *p = x->pNext; p; p = p->pNext)
				if (p->sType == VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_STENCIL_LAYOUT) {
					t[i].sinit = ((const VkAttachmentDescriptionStencilLayout *)p)->stencilInitialLayout;
					t[i].sfin = ((const VkAttachmentDescriptionStencilLayout *)p)->stencilFinalLayout;
				}
		} else {
			const VkAttachmentDescription *x = &c1->pAttachments[i];

			t[i] = (emu_vk_att){ x->format, x->loadOp, x->stencilLoadOp, x->storeOp, x->stencilStoreOp,
				             x->initialLayout, x->finalLayout, x->initialLayout, x->finalLayout };
		}
		rp->mode.v[i] = emu_vk_att_mode(&t[i]);
	}
	for (uint32_t s = 0; s < ns; s++) {
		if (v2) {
			const VkSubpassDescription2 *sp = &c2->pSubpasses[s];

			emu_vk_use_refs(rp, t, EMU_VK_USE_INPUT, sp->pInputAttachments, sp->inputAttachmentCount, 1);
			emu_vk_use_refs(rp, t, EMU_VK_USE_COLOR, sp->pColorAttachments, sp->colorAttachmentCount, 1);
			emu_vk_use_refs(rp, t, EMU_VK_USE_RESOLVE, sp->pResolveAttachments, sp->colorAttachmentCount, 1);
			emu_vk_use_refs(rp, t, EMU_VK_USE_DS, sp->pDepthStencilAttachment, 1, 1);
			for (const VkBaseInStructure *p = sp->pNext; p; p = p->pNext)
				if (p->sType == VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE)
					emu_vk_use_refs(rp, t, EMU_VK_USE_RESOLVE,
					                ((const VkSubpassDescriptionDepthStencilResolve *)p)->pDepthStencilResolveAttachment,
					                1, 1);
				else if (p->sType == VK_STRUCTURE_TYPE_FRAGMENT_SHADING_RATE_ATTACHMENT_INFO_KHR)
					emu_vk_use_refs(rp, t, EMU_VK_USE_INPUT,
					                ((const VkFragmentShadingRateAttachmentInfoKHR *)p)->pFragmentShadingRateAttachment,
					                1, 1);
		} else {
			const VkSubpassDescription *sp = &c1->pSubpasses[s];

			emu_vk_use_refs(rp, t, EMU_VK_USE_INPUT, sp->pInputAttachments, sp->inputAttachmentCount, 0);
			emu_vk_use_refs(rp, t, EMU_VK_USE_COLOR, sp->pColorAttachments, sp->colorAttachmentCount, 0);
			emu_vk_use_refs(rp, t, EMU_VK_USE_RESOLVE, sp->pResolveAttachments, sp->colorAttachmentCount, 0);
			emu_vk_use_refs(rp, t, EMU_VK_USE_DS, sp->pDepthStencilAttachment, 1, 0);
		}
	}
	free(t);
	return 0;
}

/* The subresources an image view names, as an attachment accessed in mode
 * (if the view is known). */
static int emu_vk_acc_view(emu_vk_builder *b, emu_vk_cb *c, VkImageView v, uint32_t mode)
{
	uint32_t vi = emu_vk_map_get(&b->iviews, (uint64_t)v);
	const emu_vk_view *w = vi == EMU_NONE ? NULL : &b->view.v[vi];

	return w && mode ? emu_vk_acc(c, w->alloc, w->lo, w->hi, mode) : 0;
}

/* The accesses of attachment i of render pass rp (NULL: one the trace did
 * not create, read and written). */
static uint32_t emu_vk_att_access(const emu_vk_rpass *rp, size_t i)
{
	return rp && i < rp->mode.n ? rp->mode.v[i] : EMU_A_READ | EMU_A_WRITE;
}

/* The attachments of a render pass instance: one command ("render_pass")
 * where it begins, accessing each attachment image as render pass ri says
 * (emu_vk_rpass: load and store operations, layout transitions, and every
 * draw's attachment use; draws inside one instance are ordered for their
 * attachments, so they are not split; a render pass not seen: read and
 * written). */
static int emu_vk_pass_node(emu_vk_builder *b, emu_vk_cb *c, uint32_t ri, const VkRenderPassBeginInfo *rb)
{
	uint32_t fi = rb ? emu_vk_map_get(&b->fbs, (uint64_t)rb->framebuffer) : EMU_NONE;
	const emu_vk_rpass *rp = ri == EMU_NONE ? NULL : &b->rpass.v[ri];
	const emu_vk_fb *fb;

	if (fi == EMU_NONE)
		return 0;
	if (!emu_vk_item_new(b, c, EMU_K_PASS, EMU_VK_GRAPHICS, emu_vk_name(b), 0))
		return -1;
	fb = &b->fb.v[fi];
	for (size_t i = 0; i < fb->att.n; i++)
		if (emu_vk_att_access(rp, i) &&
		    emu_vk_acc(c, fb->att.v[i].alloc, fb->att.v[i].lo, fb->att.v[i].hi, emu_vk_att_access(rp, i)) != 0)
			return -1;
	if (fb->imageless)
		for (const VkBaseInStructure *p = rb->pNext; p; p = p->pNext)
			if (p->sType == VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO) {
				const VkRenderPassAttachmentBeginInfo *ai = (const VkRenderPassAttachmentBeginInfo *)p;

				for (uint32_t k = 0; ai->pAttachments && k < ai->attachmentCount; k++)
					if (emu_vk_acc_view(b, c, ai->pAttachments[k], emu_vk_att_access(rp, k)) != 0)
						return -1;
			}
	emu_vk_item_end(c);
	return 0;
}

/* vkCmdBeginRenderPass* / vkCmdEndRenderPass*: the render pass's external
 * subpass dependencies, as barriers before and after it, and its
 * attachments (emu_vk_pass_node). */
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
	return begin ? emu_vk_pass_node(b, c, ri, a->pRenderPassBegin) : 0;
}

/* The accesses of a dynamic rendering attachment: its load and store
 * operations, and what draws do with it (a color attachment: blend and
 * write; depth or stencil (stencil: 1): read, and written unless its
 * layout is read-only for that aspect). */
static uint32_t emu_vk_rendering_mode(const VkRenderingAttachmentInfo *t, int ds, int stencil)
{
	uint32_t m = emu_vk_load_mode(t->loadOp) | emu_vk_store_mode(t->storeOp) | EMU_A_READ;

	if (!ds || emu_vk_ds_writable(t->imageLayout, stencil))
		m |= EMU_A_WRITE;
	return m;
}

/* vkCmdBeginRendering(KHR): dynamic rendering's attachments, as for a
 * render pass (it has no subpass dependencies: barriers order it); a
 * resolve view is written. */
static int emu_vk_r_rendering(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCmdBeginRendering *a = b->args;
	const VkRenderingInfo *ri = a->pRenderingInfo;
	emu_vk_cb *c = emu_vk_cb_of(b, a->commandBuffer);
	const VkRenderingAttachmentInfo *t;

	(void)cmd;
	if (!c)
		return -1;
	if (!ri)
		return 0;
	if (!emu_vk_item_new(b, c, EMU_K_PASS, EMU_VK_GRAPHICS, emu_vk_name(b), 0))
		return -1;
	for (uint64_t i = 0; i < 2 + (uint64_t)(ri->pColorAttachments ? ri->colorAttachmentCount : 0); i++) {
		t = i == 0 ? ri->pDepthAttachment : i == 1 ? ri->pStencilAttachment : &ri->pColorAttachments[i - 2];
		if (t && (emu_vk_acc_view(b, c, t->imageView, emu_vk_rendering_mode(t, i < 2, i == 1)) != 0 ||
		          emu_vk_acc_view(b, c, t->resolveImageView, t->resolveMode ? EMU_A_WRITE : 0) != 0))
			return -1;
	}
	emu_vk_item_end(c);
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
		if (s == c)
			continue; /* invalid usage: a command buffer executing itself */
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

static int emu_vk_update_sets(emu_vk_builder *b)
{
	const sbt_vk_args_vkUpdateDescriptorSets *a = b->args;

	for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++) {
		const VkWriteDescriptorSet *w = &a->pDescriptorWrites[i];
		uint32_t si = emu_vk_map_get(&b->sets, (uint64_t)w->dstSet);

		if (si != EMU_NONE && emu_vk_write_set(b, &b->set.v[si], w) != 0)
			return -1;
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

/* An image of mips levels by layers array layers (0 taken as 1; more than
 * 32 levels, which no 32-bit extent has, as 32: a range is split per
 * level, and a hostile trace's count must not make billions of them). */
static int emu_vk_new_image(emu_vk_builder *b, VkImage h, VkFormat format, uint32_t mips, uint32_t layers)
{
	emu_vk_image im;

	im.mips = !mips ? 1 : mips > 32 ? 32 : mips;
	im.layers = layers ? layers : 1;
	im.format = format;
	im.alloc = emu_vk_alloc_new(b, EMU_VK_IMAGE, (uint64_t)h, (uint64_t)im.mips * im.layers);
	if (im.alloc == EMU_NONE || EMU_PUSH(b->image, im) != 0)
		return -1;
	b->g->allocs.v[im.alloc].layers = im.layers;
	return emu_vk_map_put(&b->images, (uint64_t)h, (uint32_t)b->image.n - 1);
}

/* ---- shaders: the bindings pipelines declare ------------------------------------------- */

/* What code ci holds declares into sh (left not known when the code is
 * absent, a blob the trace lacks, or not read); -1 out of memory only. */
static int emu_vk_shader_read(emu_vk_shader *sh, const VkShaderModuleCreateInfo *ci)
{
	emu_spv_binding *v;
	size_t n;

	if (!ci->pCode || ci->codeSize < 20 || emu_spv_bindings(ci->pCode, ci->codeSize / 4, &v, &n) != 0)
		return 0;
	sh->b.v = v;
	sh->b.n = sh->b.cap = n;
	sh->known = 1;
	return 0;
}

/* to gets from's bindings too (writes if either writes); not known if
 * either is not. */
static int emu_vk_shader_merge(emu_vk_shader *to, const emu_vk_shader *from)
{
	if (!from->known) {
		to->known = 0;
		return 0;
	}
	for (size_t i = 0; to->known && i < from->b.n; i++) {
		size_t k;

		for (k = 0; k < to->b.n; k++)
			if (to->b.v[k].set == from->b.v[i].set && to->b.v[k].binding == from->b.v[i].binding)
				break;
		if (k < to->b.n)
			to->b.v[k].writes |= from->b.v[i].writes;
		else if (to->b.n == EMU_SPV_BINDINGS_MAX)
			to->known = 0; /* a hostile count: every descriptor counts */
		else if (EMU_PUSH(to->b, from->b.v[i]) != 0)
			return -1;
	}
	return 0;
}

/* sh (taken over) as what handle h of map m names. */
static int emu_vk_shader_put(emu_vk_builder *b, emu_vk_map *m, uint64_t h, emu_vk_shader *sh)
{
	if (EMU_PUSH(b->shader, *sh) != 0) {
		free(sh->b.v);
		return -1;
	}
	return emu_vk_map_put(m, h, (uint32_t)b->shader.n - 1);
}

/* A pipeline stage's shader into sh: its module's, or the code its pNext
 * carries in place of a module (maintenance5, pipeline libraries). */
static int emu_vk_stage_merge(emu_vk_builder *b, emu_vk_shader *sh, const VkPipelineShaderStageCreateInfo *st)
{
	emu_vk_shader one = { { 0 }, 0 };
	uint32_t mi;
	int r;

	if (st->module) {
		mi = emu_vk_map_get(&b->modules, (uint64_t)st->module);
		if (mi == EMU_NONE) {
			sh->known = 0;
			return 0;
		}
		return emu_vk_shader_merge(sh, &b->shader.v[mi]);
	}
	for (const VkBaseInStructure *p = st->pNext; p; p = p->pNext)
		if (p->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO &&
		    emu_vk_shader_read(&one, (const VkShaderModuleCreateInfo *)p) != 0)
			return -1;
	r = emu_vk_shader_merge(sh, &one);
	free(one.b.v);
	return r;
}

/* vkCreateComputePipelines / vkCreateGraphicsPipelines: each pipeline
 * made, with what its stages (and the libraries it links) declare. */
static int emu_vk_new_pipelines(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCreateComputePipelines *a = b->args; /* the two alike but for pCreateInfos */
	const sbt_vk_args_vkCreateGraphicsPipelines *g = b->args;

	if ((a->ret != VK_SUCCESS && a->ret != VK_PIPELINE_COMPILE_REQUIRED) || !a->pPipelines || !a->pCreateInfos)
		return 0;
	for (uint32_t i = 0; i < a->createInfoCount; i++) {
		emu_vk_shader sh = { { 0 }, 1 };
		const void *next;

		if (!a->pPipelines[i])
			continue;
		if (cmd == SBT_VK_CMD_vkCreateComputePipelines) {
			next = a->pCreateInfos[i].pNext;
			if (emu_vk_stage_merge(b, &sh, &a->pCreateInfos[i].stage) != 0)
				goto nomem;
		} else {
			const VkGraphicsPipelineCreateInfo *ci = &g->pCreateInfos[i];

			next = ci->pNext;
			for (uint32_t s = 0; ci->pStages && s < ci->stageCount; s++)
				if (emu_vk_stage_merge(b, &sh, &ci->pStages[s]) != 0)
					goto nomem;
		}
		for (const VkBaseInStructure *p = next; p; p = p->pNext)
			if (p->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR) {
				const VkPipelineLibraryCreateInfoKHR *l = (const VkPipelineLibraryCreateInfoKHR *)p;

				for (uint32_t k = 0; k < l->libraryCount; k++) {
					uint32_t pi = l->pLibraries ? emu_vk_map_get(&b->pipes, (uint64_t)l->pLibraries[k]) : EMU_NONE;

					if (pi == EMU_NONE)
						sh.known = 0;
					else if (emu_vk_shader_merge(&sh, &b->shader.v[pi]) != 0)
						goto nomem;
				}
			}
		if (emu_vk_shader_put(b, &b->pipes, (uint64_t)a->pPipelines[i], &sh) != 0)
			return -1;
		continue;
nomem:
		free(sh.b.v);
		return -1;
	}
	return 0;
}

static int emu_vk_dynb_cmp(const void *x, const void *y)
{
	uint32_t a = ((const emu_vk_dynb *)x)->binding, c = ((const emu_vk_dynb *)y)->binding;

	return a < c ? -1 : a > c;
}

/* A descriptor set layout: its dynamic buffer bindings, in the order of
 * their binding numbers (that of the dynamic offsets). */
static int emu_vk_new_layout(emu_vk_builder *b)
{
	const sbt_vk_args_vkCreateDescriptorSetLayout *a = b->args;
	emu_vk_layout l = { { 0 }, 0 };

	if (a->ret != VK_SUCCESS || !a->pSetLayout || !a->pCreateInfo)
		return 0;
	for (uint32_t i = 0; a->pCreateInfo->pBindings && i < a->pCreateInfo->bindingCount; i++) {
		const VkDescriptorSetLayoutBinding *x = &a->pCreateInfo->pBindings[i];
		emu_vk_dynb d = { x->binding, x->descriptorCount };

		if ((x->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
		     x->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC) && x->descriptorCount) {
			if (EMU_PUSH(l.dyn, d) != 0)
				goto fail;
			l.ndyn = l.ndyn + d.count < l.ndyn ? UINT32_MAX : l.ndyn + d.count;
		}
	}
	if (l.dyn.n > 1)
		qsort(l.dyn.v, l.dyn.n, sizeof(l.dyn.v[0]), emu_vk_dynb_cmp);
	if (EMU_PUSH(b->layout, l) != 0)
		goto fail;
	return emu_vk_map_put(&b->layouts, (uint64_t)*a->pSetLayout, (uint32_t)b->layout.n - 1);
fail:
	free(l.dyn.v);
	return -1;
}

/* A render pass: its dependencies on VK_SUBPASS_EXTERNAL, and the
 * accesses of its attachments (emu_vk_rpass). */
static int emu_vk_new_render_pass(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkCreateRenderPass *a = b->args;
	const sbt_vk_args_vkCreateRenderPass2 *a2 = b->args;
	emu_vk_rpass rp = { { 0 }, { 0 } };
	uint32_t n;

	if (a->ret != VK_SUCCESS || !a->pRenderPass || !a->pCreateInfo)
		return 0;
	if (cmd == SBT_VK_CMD_vkCreateRenderPass)
		n = a->pCreateInfo->pDependencies ? a->pCreateInfo->dependencyCount : 0;
	else
		n = a2->pCreateInfo->pDependencies ? a2->pCreateInfo->dependencyCount : 0;
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
		if (EMU_PUSH(rp.deps, d) != 0)
			goto fail;
	}
	if ((cmd == SBT_VK_CMD_vkCreateRenderPass ? emu_vk_rpass_modes(&rp, a->pCreateInfo, 0)
	                                          : emu_vk_rpass_modes(&rp, a2->pCreateInfo, 1)) != 0 ||
	    EMU_PUSH(b->rpass, rp) != 0)
		goto fail;
	return emu_vk_map_put(&b->rpasses, (uint64_t)*a->pRenderPass, (uint32_t)b->rpass.n - 1);
fail:
	free(rp.deps.v);
	free(rp.mode.v);
	return -1;
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
		/* a 3D image's slices are not layers (emu_vk_sub_at) */
		return emu_vk_new_image(b, *a->pImage, a->pCreateInfo->format, a->pCreateInfo->mipLevels,
		                        a->pCreateInfo->arrayLayers);
	}
	case SBT_VK_CMD_vkGetSwapchainImagesKHR: {
		const sbt_vk_args_vkGetSwapchainImagesKHR *a = b->args;

		if ((a->ret != VK_SUCCESS && a->ret != VK_INCOMPLETE) || !a->pSwapchainImages || !a->pSwapchainImageCount)
			return 0;
		for (uint32_t i = 0; i < *a->pSwapchainImageCount; i++)
			if (!emu_vk_image_of(b, a->pSwapchainImages[i]) &&
			    emu_vk_new_image(b, a->pSwapchainImages[i], VK_FORMAT_UNDEFINED, 1, 1) != 0)
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
		emu_vk_view v = { 0, 0, 0 };
		uint64_t lo, hi;

		if (a->ret != VK_SUCCESS || !a->pView || !a->pCreateInfo || !(im = emu_vk_image_of(b, a->pCreateInfo->image)))
			return 0;
		v.alloc = im->alloc;
		/* from its first subresource to its last: more than it names
		 * when it takes some layers of several mips */
		for (uint32_t k = 0; emu_vk_sub_at(im, emu_vk_sub_range(&a->pCreateInfo->subresourceRange), k, &lo, &hi); k++) {
			v.lo = k ? v.lo : lo;
			v.hi = hi;
		}
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
	case SBT_VK_CMD_vkCreateDescriptorSetLayout:
		return emu_vk_new_layout(b);
	case SBT_VK_CMD_vkAllocateDescriptorSets: {
		const sbt_vk_args_vkAllocateDescriptorSets *a = b->args;

		if (a->ret != VK_SUCCESS || !a->pDescriptorSets || !a->pAllocateInfo)
			return 0;
		for (uint32_t i = 0; i < a->pAllocateInfo->descriptorSetCount; i++) {
			uint32_t si = emu_vk_map_get(&b->sets, (uint64_t)a->pDescriptorSets[i]);
			emu_vk_set s = { { 0 }, EMU_NONE };

			if (a->pAllocateInfo->pSetLayouts)
				s.layout = emu_vk_map_get(&b->layouts, (uint64_t)a->pAllocateInfo->pSetLayouts[i]);
			if (si != EMU_NONE) { /* a handle used again: a fresh set */
				b->set.v[si].d.n = 0;
				b->set.v[si].layout = s.layout;
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
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR: {
		const sbt_vk_args_vkCreateDescriptorUpdateTemplate *a = b->args;
		const VkDescriptorUpdateTemplateCreateInfo *ci = a->pCreateInfo;
		emu_vk_tmpl t = { { 0 }, -1 };

		if (a->ret != VK_SUCCESS || !a->pDescriptorUpdateTemplate || !ci)
			return 0;
		if (ci->templateType == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR)
			t.bind_point = ci->pipelineBindPoint == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 :
			               ci->pipelineBindPoint == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : -1;
		for (uint32_t i = 0; ci->pDescriptorUpdateEntries && i < ci->descriptorUpdateEntryCount; i++)
			if (EMU_PUSH(t.e, ci->pDescriptorUpdateEntries[i]) != 0) {
				free(t.e.v);
				return -1;
			}
		if (EMU_PUSH(b->tmpl, t) != 0) {
			free(t.e.v);
			return -1;
		}
		return emu_vk_map_put(&b->tmpls, (uint64_t)*a->pDescriptorUpdateTemplate, (uint32_t)b->tmpl.n - 1);
	}
	case SBT_VK_CMD_vkDestroyDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkDestroyDescriptorUpdateTemplateKHR: {
		const sbt_vk_args_vkDestroyDescriptorUpdateTemplate *a = b->args;

		if (emu_vk_map_get(&b->tmpls, (uint64_t)a->descriptorUpdateTemplate) == EMU_NONE)
			return 0;
		return emu_vk_map_put(&b->tmpls, (uint64_t)a->descriptorUpdateTemplate, EMU_NONE);
	}
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR: {
		const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *a = b->args;
		uint32_t si = emu_vk_map_get(&b->sets, (uint64_t)a->descriptorSet);

		if (si == EMU_NONE)
			return 0;
		return emu_vk_write_tmpl(b, &b->set.v[si], a->descriptorUpdateTemplate, a->pData,
		                         sbt_vk_arena_template_len(b->arena));
	}
	case SBT_VK_CMD_vkCreateShaderModule: {
		const sbt_vk_args_vkCreateShaderModule *a = b->args;
		emu_vk_shader sh = { { 0 }, 0 };

		if (a->ret != VK_SUCCESS || !a->pShaderModule || !a->pCreateInfo)
			return 0;
		if (emu_vk_shader_read(&sh, a->pCreateInfo) != 0)
			return -1;
		return emu_vk_shader_put(b, &b->modules, (uint64_t)*a->pShaderModule, &sh);
	}
	case SBT_VK_CMD_vkCreateComputePipelines:
	case SBT_VK_CMD_vkCreateGraphicsPipelines:
		return emu_vk_new_pipelines(b, cmd);
	case SBT_VK_CMD_vkCreateRenderPass:
	case SBT_VK_CMD_vkCreateRenderPass2:
	case SBT_VK_CMD_vkCreateRenderPass2KHR:
		return emu_vk_new_render_pass(b, cmd);
	case SBT_VK_CMD_vkCreateFramebuffer: {
		const sbt_vk_args_vkCreateFramebuffer *a = b->args;
		emu_vk_fb fb = { { 0 }, 0 };

		if (a->ret != VK_SUCCESS || !a->pFramebuffer || !a->pCreateInfo)
			return 0;
		fb.imageless = !!(a->pCreateInfo->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT);
		for (uint32_t i = 0; !fb.imageless && a->pCreateInfo->pAttachments && i < a->pCreateInfo->attachmentCount; i++) {
			uint32_t vi = emu_vk_map_get(&b->iviews, (uint64_t)a->pCreateInfo->pAttachments[i]);
			const emu_vk_view none = { 0, 0, 0 }; /* an unknown view keeps its place, reaching nothing */

			if (EMU_PUSH(fb.att, vi != EMU_NONE ? b->view.v[vi] : none) != 0) {
				free(fb.att.v);
				return -1;
			}
		}
		if (EMU_PUSH(b->fb, fb) != 0) {
			free(fb.att.v);
			return -1;
		}
		return emu_vk_map_put(&b->fbs, (uint64_t)*a->pFramebuffer, (uint32_t)b->fb.n - 1);
	}
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
	case SBT_VK_CMD_vkBindBufferMemory: {
		const sbt_vk_args_vkBindBufferMemory *a = b->args;

		if (a->ret == VK_SUCCESS)
			emu_vk_bound(b, emu_vk_buffer(b, a->buffer), (uint64_t)a->memory, a->memoryOffset);
		return 0;
	}
	case SBT_VK_CMD_vkBindBufferMemory2:
	case SBT_VK_CMD_vkBindBufferMemory2KHR: {
		const sbt_vk_args_vkBindBufferMemory2 *a = b->args;

		for (uint32_t i = 0; a->ret == VK_SUCCESS && a->pBindInfos && i < a->bindInfoCount; i++)
			emu_vk_bound(b, emu_vk_buffer(b, a->pBindInfos[i].buffer), (uint64_t)a->pBindInfos[i].memory,
			             a->pBindInfos[i].memoryOffset);
		return 0;
	}
	case SBT_VK_CMD_vkBindImageMemory: {
		const sbt_vk_args_vkBindImageMemory *a = b->args;
		const emu_vk_image *im = emu_vk_image_of(b, a->image);

		if (a->ret == VK_SUCCESS && im)
			emu_vk_bound(b, im->alloc, (uint64_t)a->memory, a->memoryOffset);
		return 0;
	}
	case SBT_VK_CMD_vkBindImageMemory2:
	case SBT_VK_CMD_vkBindImageMemory2KHR: {
		const sbt_vk_args_vkBindImageMemory2 *a = b->args;

		for (uint32_t i = 0; a->ret == VK_SUCCESS && a->pBindInfos && i < a->bindInfoCount; i++) {
			const emu_vk_image *im = emu_vk_image_of(b, a->pBindInfos[i].image);
			if (im)
				emu_vk_bound(b, im->alloc, (uint64_t)a->pBindInfos[i].memory,
				             a->pBindInfos[i].memoryOffset);
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- the recording calls --------------------------------------------------------------------- */

emu_vk_handler emu_vk_cmd_handler(enum sbt_vk_cmd cmd)
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
	case SBT_VK_CMD_vkCmdPushDescriptorSetKHR:
	case SBT_VK_CMD_vkCmdPushDescriptorSetWithTemplateKHR:
	case SBT_VK_CMD_vkCmdBindPipeline:
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
	case SBT_VK_CMD_vkCmdBeginRendering:
	case SBT_VK_CMD_vkCmdBeginRenderingKHR:
		return emu_vk_r_rendering;
	case SBT_VK_CMD_vkCreateBuffer:
	case SBT_VK_CMD_vkDestroyBuffer:
	case SBT_VK_CMD_vkCreateImage:
	case SBT_VK_CMD_vkDestroyImage:
	case SBT_VK_CMD_vkGetSwapchainImagesKHR:
	case SBT_VK_CMD_vkCreateImageView:
	case SBT_VK_CMD_vkCreateBufferView:
	case SBT_VK_CMD_vkCreateDescriptorSetLayout:
	case SBT_VK_CMD_vkAllocateDescriptorSets:
	case SBT_VK_CMD_vkUpdateDescriptorSets:
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkCreateDescriptorUpdateTemplateKHR:
	case SBT_VK_CMD_vkDestroyDescriptorUpdateTemplate:
	case SBT_VK_CMD_vkDestroyDescriptorUpdateTemplateKHR:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR:
	case SBT_VK_CMD_vkCreateShaderModule:
	case SBT_VK_CMD_vkCreateComputePipelines:
	case SBT_VK_CMD_vkCreateGraphicsPipelines:
	case SBT_VK_CMD_vkCreateRenderPass:
	case SBT_VK_CMD_vkCreateRenderPass2:
	case SBT_VK_CMD_vkCreateRenderPass2KHR:
	case SBT_VK_CMD_vkCreateFramebuffer:
	case SBT_VK_CMD_vkAllocateCommandBuffers:
	case SBT_VK_CMD_vkBeginCommandBuffer:
	case SBT_VK_CMD_vkResetCommandBuffer:
	case SBT_VK_CMD_vkResetCommandPool:
	case SBT_VK_CMD_vkBindBufferMemory:
	case SBT_VK_CMD_vkBindBufferMemory2:
	case SBT_VK_CMD_vkBindBufferMemory2KHR:
	case SBT_VK_CMD_vkBindImageMemory:
	case SBT_VK_CMD_vkBindImageMemory2:
	case SBT_VK_CMD_vkBindImageMemory2KHR:
		return emu_vk_r_object;
	default:
		return NULL;
	}
}
