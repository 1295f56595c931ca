/*
 * rpvk_region.c - image copy, blit, resolve and clear regions checked
 * against their images and buffers before the driver sees them
 * (docs/hostile-traces.md).
 *
 * A region a valid application records lies inside its resources: its
 * subresource names levels, layers and aspects the image has, its offset
 * and extent lie inside the extent of that mip level, and the buffer bytes
 * a buffer<->image copy reads or writes lie inside the buffer.  Drivers
 * trust this (lavapipe copies through the pointers it computes), so a
 * mutated region would read or write past an allocation.  The replay keeps
 * the create info of every image a replayed vkCreateImage made (format,
 * type, extent, levels, layers) and refuses, naming the record, the call
 * and the region:
 *   - a subresource whose mip level, layers (none, or past the image's) or
 *     aspects (none, or one its format lacks) the image does not have;
 *   - an offset and extent (a blit's two corners) outside the mip level's
 *     extent, or an empty extent;
 *   - a clear's subresource range outside the image, or with an aspect its
 *     format lacks;
 *   - a buffer<->image copy whose buffer bytes (bufferRowLength,
 *     bufferImageHeight, the format's texel block) pass the end of the
 *     buffer (formats whose block size is not listed here: not judged).
 * Images the replay did not see created (swapchain images) are not judged.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the checks need of an image (rpvk.imgs values, owned). */
typedef struct rpvk_img {
	VkFormat format;
	VkImageType type;
	VkImageCreateFlags flags;
	VkExtent3D extent;
	uint32_t mips, layers;
} rpvk_img;

/* ---- formats ------------------------------------------------------------ */

_Static_assert(VK_FORMAT_R4G4_UNORM_PACK8 == 1 && VK_FORMAT_R8_UNORM == 9 &&
               VK_FORMAT_R8G8B8A8_UNORM == 37 && VK_FORMAT_R16_UNORM == 70 &&
               VK_FORMAT_R32_UINT == 98 && VK_FORMAT_R64G64B64A64_SFLOAT == 121 &&
               VK_FORMAT_E5B9G9R9_UFLOAT_PACK32 == 123 && VK_FORMAT_D16_UNORM == 124 &&
               VK_FORMAT_D32_SFLOAT_S8_UINT == 130 && VK_FORMAT_BC1_RGB_UNORM_BLOCK == 131 &&
               VK_FORMAT_BC7_SRGB_BLOCK == 146 && VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK == 147 &&
               VK_FORMAT_EAC_R11G11_SNORM_BLOCK == 156 && VK_FORMAT_ASTC_4x4_UNORM_BLOCK == 157 &&
               VK_FORMAT_ASTC_12x12_SRGB_BLOCK == 184,
               "the core format numbering the tables below follow");

/* The bytes of one texel block of aspect of format f in a buffer, and the
 * block's width and height in texels; 0 when not listed here. */
static uint32_t rpvk_format_block(VkFormat f, VkImageAspectFlags aspect, uint32_t *bw, uint32_t *bh)
{
	/* ASTC block extents, in VkFormat order (UNORM and SRGB of each) */
	static const uint8_t astc[14][2] = {{4, 4}, {5, 4}, {5, 5}, {6, 5}, {6, 6}, {8, 5}, {8, 6},
	                                    {8, 8}, {10, 5}, {10, 6}, {10, 8}, {10, 10}, {12, 10}, {12, 12}};
	/* texel sizes of the uncompressed color formats, by the first format
	 * of each run of equal size */
	static const struct { uint16_t first; uint8_t bytes; } color[] = {
		{1, 1}, {2, 2}, {9, 1}, {16, 2}, {23, 3}, {37, 4}, {70, 2}, {77, 4}, {84, 6},
		{91, 8}, {98, 4}, {101, 8}, {104, 12}, {107, 16}, {110, 8}, {113, 16}, {116, 24},
		{119, 32}, {122, 4}, {124, 0}};
	*bw = *bh = 1;
	if (f >= VK_FORMAT_R4G4_UNORM_PACK8 && f <= VK_FORMAT_E5B9G9R9_UFLOAT_PACK32) {
		uint8_t bytes = 0;
		for (size_t i = 0; color[i].bytes && (uint32_t)f >= color[i].first; i++)
			bytes = color[i].bytes;
		return bytes;
	}
	if (aspect == VK_IMAGE_ASPECT_STENCIL_BIT)
		return f == VK_FORMAT_S8_UINT || (f >= VK_FORMAT_D16_UNORM_S8_UINT && f <= VK_FORMAT_D32_SFLOAT_S8_UINT);
	if (aspect == VK_IMAGE_ASPECT_DEPTH_BIT)
		return f == VK_FORMAT_D16_UNORM || f == VK_FORMAT_D16_UNORM_S8_UINT ? 2 :
		       f == VK_FORMAT_X8_D24_UNORM_PACK32 || f == VK_FORMAT_D32_SFLOAT ||
		       f == VK_FORMAT_D24_UNORM_S8_UINT || f == VK_FORMAT_D32_SFLOAT_S8_UINT ? 4 : 0;
	if (aspect != VK_IMAGE_ASPECT_COLOR_BIT)
		return 0;
	if (f >= VK_FORMAT_BC1_RGB_UNORM_BLOCK && f <= VK_FORMAT_EAC_R11G11_SNORM_BLOCK) {
		*bw = *bh = 4;
		return f <= VK_FORMAT_BC1_RGBA_SRGB_BLOCK || f == VK_FORMAT_BC4_UNORM_BLOCK ||
		       f == VK_FORMAT_BC4_SNORM_BLOCK || (f >= VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK &&
		       f <= VK_FORMAT_ETC2_R8G8B8A1_SRGB_BLOCK) || f == VK_FORMAT_EAC_R11_UNORM_BLOCK ||
		       f == VK_FORMAT_EAC_R11_SNORM_BLOCK ? 8 : 16;
	}
	if (f >= VK_FORMAT_ASTC_4x4_UNORM_BLOCK && f <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK) {
		*bw = astc[(f - VK_FORMAT_ASTC_4x4_UNORM_BLOCK) / 2][0];
		*bh = astc[(f - VK_FORMAT_ASTC_4x4_UNORM_BLOCK) / 2][1];
		return 16;
	}
	return 0;
}

/* ---- the images the replay created -------------------------------------- */

static const rpvk_img *rpvk_img_get(rpvk *r, VkImage image)
{
	const rpvk_map_slot *s = image ? rpvk_map_get(&r->imgs, VK_OBJECT_TYPE_IMAGE,
	                                              (uint64_t)(uintptr_t)image) : NULL;
	return s ? (const rpvk_img *)(uintptr_t)s->val : NULL;
}

void rpvk_region_image_forget(rpvk *r, VkImage image)
{
	rpvk_img *m = (rpvk_img *)rpvk_img_get(r, image);
	if (!m)
		return;
	rpvk_map_del(&r->imgs, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)image);
	free(m);
}

void rpvk_region_image_created(rpvk *r, VkImage image, const VkImageCreateInfo *ci)
{
	rpvk_img *m;
	if (!image || !ci)
		return;
	rpvk_region_image_forget(r, image);
	if (!(m = malloc(sizeof(*m))))
		return; /* not judged */
	m->format = ci->format;
	m->type = ci->imageType;
	m->flags = ci->flags;
	m->extent = ci->extent;
	m->mips = ci->mipLevels;
	m->layers = ci->arrayLayers;
	if (rpvk_map_put(&r->imgs, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)image,
	                 (uint64_t)(uintptr_t)m, 0) != 0)
		free(m);
}

void rpvk_region_clear(rpvk *r)
{
	for (size_t i = 0; i < r->imgs.cap; i++)
		if (r->imgs.slots[i].type && r->imgs.slots[i].type != RPVK_MAP_TOMB)
			free((void *)(uintptr_t)r->imgs.slots[i].val);
	rpvk_map_clear(&r->imgs);
}

void rpvk_region_free(rpvk *r)
{
	rpvk_region_clear(r);
	rpvk_map_free(&r->imgs);
}

/* ---- the checks --------------------------------------------------------- */

/* Why a region is refused, written into why (NULL: it is not). */
typedef struct rpvk_why {
	char text[160];
} rpvk_why;

/* Level extent of m (1 at least in every dimension the type has). */
static VkExtent3D rpvk_mip_extent(const rpvk_img *m, uint32_t level)
{
	VkExtent3D e;
	e.width = level < 32 ? m->extent.width >> level : 0;
	e.height = level < 32 ? m->extent.height >> level : 0;
	e.depth = level < 32 ? m->extent.depth >> level : 0;
	e.width = e.width ? e.width : 1;
	e.height = e.height ? e.height : 1;
	e.depth = e.depth ? e.depth : 1;
	return e;
}

/* A subresource's levels, layers and aspects in m. */
static int rpvk_sub_ok(const rpvk_img *m, const VkImageSubresourceLayers *s, rpvk_why *w)
{
	VkImageAspectFlags has = sbt_vk_format_aspects(m->format);
	uint32_t count = s->layerCount == VK_REMAINING_ARRAY_LAYERS && s->baseArrayLayer < m->layers ?
	                 m->layers - s->baseArrayLayer : s->layerCount;
	if (s->mipLevel >= m->mips)
		snprintf(w->text, sizeof(w->text), "mip level %u, and the image has %u", s->mipLevel, m->mips);
	else if (!count || s->baseArrayLayer >= m->layers || count > m->layers - s->baseArrayLayer)
		snprintf(w->text, sizeof(w->text), "layers %u+%u, and the image has %u", s->baseArrayLayer,
		         s->layerCount, m->layers);
	else if (!s->aspectMask || (has && (s->aspectMask & ~has)))
		snprintf(w->text, sizeof(w->text), "aspects 0x%x, and the image's format %d has 0x%x",
		         s->aspectMask, (int)m->format, has);
	else
		return 1;
	return 0;
}

/* [off, off + ext) inside the extent of level in every dimension. */
static int rpvk_box_ok(const rpvk_img *m, uint32_t level, VkOffset3D off, VkExtent3D ext, rpvk_why *w)
{
	VkExtent3D e = rpvk_mip_extent(m, level);
	if (!ext.width || !ext.height || !ext.depth)
		snprintf(w->text, sizeof(w->text), "an empty extent %ux%ux%u", ext.width, ext.height, ext.depth);
	else if (off.x < 0 || off.y < 0 || off.z < 0 || (uint32_t)off.x > e.width ||
	         ext.width > e.width - (uint32_t)off.x || (uint32_t)off.y > e.height ||
	         ext.height > e.height - (uint32_t)off.y || (uint32_t)off.z > e.depth ||
	         ext.depth > e.depth - (uint32_t)off.z)
		snprintf(w->text, sizeof(w->text), "offset (%d,%d,%d) extent %ux%ux%u, and mip level %u is "
		         "%ux%ux%u", off.x, off.y, off.z, ext.width, ext.height, ext.depth, level,
		         e.width, e.height, e.depth);
	else
		return 1;
	return 0;
}

/* A blit's corners inside the extent of level (in either order). */
static int rpvk_corners_ok(const rpvk_img *m, uint32_t level, const VkOffset3D o[2], rpvk_why *w)
{
	VkExtent3D e = rpvk_mip_extent(m, level);
	for (int i = 0; i < 2; i++)
		if (o[i].x < 0 || o[i].y < 0 || o[i].z < 0 || (uint32_t)o[i].x > e.width ||
		    (uint32_t)o[i].y > e.height || (uint32_t)o[i].z > e.depth) {
			snprintf(w->text, sizeof(w->text), "corner (%d,%d,%d), and mip level %u is %ux%ux%u",
			         o[i].x, o[i].y, o[i].z, level, e.width, e.height, e.depth);
			return 0;
		}
	return 1;
}

/* One image side of a copy or resolve (image unknown: not judged). */
static int rpvk_side_ok(rpvk *r, VkImage image, const VkImageSubresourceLayers *s, VkOffset3D off,
                        VkExtent3D ext, rpvk_why *w)
{
	const rpvk_img *m = rpvk_img_get(r, image);
	return !m || (rpvk_sub_ok(m, s, w) && rpvk_box_ok(m, s->mipLevel, off, ext, w));
}

static int rpvk_blit_side_ok(rpvk *r, VkImage image, const VkImageSubresourceLayers *s,
                             const VkOffset3D o[2], rpvk_why *w)
{
	const rpvk_img *m = rpvk_img_get(r, image);
	return !m || (rpvk_sub_ok(m, s, w) && rpvk_corners_ok(m, s->mipLevel, o, w));
}

/* The buffer bytes a buffer<->image copy touches inside the buffer. */
static int rpvk_buffer_side_ok(rpvk *r, VkBuffer buffer, VkImage image, VkDeviceSize off,
                               uint32_t row_length, uint32_t image_height,
                               const VkImageSubresourceLayers *s, VkExtent3D ext, rpvk_why *w)
{
	const rpvk_img *m = rpvk_img_get(r, image);
	uint64_t size = rpvk_state_buffer_size(r, buffer), rows, slices, last, bytes;
	uint32_t bw, bh, block;
	if (!m || !size || !(block = rpvk_format_block(m->format, s->aspectMask, &bw, &bh)))
		return 1; /* not judged */
	row_length = row_length ? row_length : ext.width;
	image_height = image_height ? image_height : ext.height;
	if (row_length < ext.width || image_height < ext.height) {
		snprintf(w->text, sizeof(w->text), "buffer rows of %u texels and images of %u rows, "
		         "smaller than its extent %ux%u", row_length, image_height, ext.width, ext.height);
		return 0;
	}
	rows = (image_height + bh - 1) / bh;
	slices = (uint64_t)(s->layerCount == VK_REMAINING_ARRAY_LAYERS ? m->layers - s->baseArrayLayer
	                                                               : s->layerCount) * ext.depth;
	/* the last block's index, then its end, in bytes: ((slice * rows +
	 * row) * blocks per row + block) * block size, overflow refused */
	if (__builtin_mul_overflow(slices - 1, rows, &last) ||
	    __builtin_add_overflow(last, (ext.height + bh - 1) / bh - 1, &last) ||
	    __builtin_mul_overflow(last, (uint64_t)((row_length + bw - 1) / bw), &last) ||
	    __builtin_add_overflow(last, (ext.width + bw - 1) / bw, &last) ||
	    __builtin_mul_overflow(last, (uint64_t)block, &bytes) || off > size || bytes > size - off) {
		snprintf(w->text, sizeof(w->text), "buffer bytes from %llu for %u rows of %u texels in %llu "
		         "slices, past the end of its buffer (%llu bytes)", (unsigned long long)off,
		         ext.height, row_length, (unsigned long long)slices, (unsigned long long)size);
		return 0;
	}
	return 1;
}

/* A clear's subresource range inside its image, with aspects of its format
 * that the call clears (allowed). */
static int rpvk_range_ok(rpvk *r, VkImage image, const VkImageSubresourceRange *s,
                         VkImageAspectFlags allowed, rpvk_why *w)
{
	const rpvk_img *m = rpvk_img_get(r, image);
	VkImageAspectFlags has;
	if (!m)
		return 1;
	has = sbt_vk_format_aspects(m->format) & allowed;
	if (!rpvk_subrange_in(m->mips, m->layers, s))
		snprintf(w->text, sizeof(w->text), "mip levels %u+%u, layers %u+%u, and the image has %u "
		         "levels, %u layers", s->baseMipLevel, s->levelCount, s->baseArrayLayer,
		         s->layerCount, m->mips, m->layers);
	else if (!s->aspectMask || (s->aspectMask & ~allowed) || (has && (s->aspectMask & ~has)))
		snprintf(w->text, sizeof(w->text), "aspects 0x%x, and the call clears 0x%x of the image's "
		         "format %d", s->aspectMask, has ? has : allowed, (int)m->format);
	else
		return 1;
	return 0;
}

int rpvk_region_view_in(rpvk *r, const VkImageViewCreateInfo *ci)
{
	const rpvk_img *m = rpvk_img_get(r, ci->image);
	const VkImageSubresourceRange *s = &ci->subresourceRange;
	uint32_t depth;
	if (!m)
		return 1; /* not judged */
	if (m->type != VK_IMAGE_TYPE_3D ||
	    !(m->flags & (VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT |
	                  VK_IMAGE_CREATE_2D_VIEW_COMPATIBLE_BIT_EXT)) ||
	    (ci->viewType != VK_IMAGE_VIEW_TYPE_2D && ci->viewType != VK_IMAGE_VIEW_TYPE_2D_ARRAY))
		return rpvk_subrange_in(m->mips, m->layers, s);
	/* one level, whose depth slices are the view's layers */
	if (s->baseMipLevel >= m->mips || s->baseMipLevel >= 32 ||
	    (s->levelCount != 1 &&
	     !(s->levelCount == VK_REMAINING_MIP_LEVELS && s->baseMipLevel == m->mips - 1)))
		return 0;
	depth = m->extent.depth >> s->baseMipLevel;
	return rpvk_subrange_in(m->mips, depth ? depth : 1, s);
}

int rpvk_subrange_in(uint32_t mips, uint32_t layers, const VkImageSubresourceRange *s)
{
	if (s->baseMipLevel >= mips || s->baseArrayLayer >= layers)
		return 0;
	if (s->levelCount != VK_REMAINING_MIP_LEVELS && (!s->levelCount || s->levelCount > mips - s->baseMipLevel))
		return 0;
	if (s->layerCount != VK_REMAINING_ARRAY_LAYERS &&
	    (!s->layerCount || s->layerCount > layers - s->baseArrayLayer))
		return 0;
	return 1;
}

static rp_status rpvk_region_refuse(rpvk *r, const char *what, uint32_t i, const rpvk_why *w)
{
	return rpvk_fail(r, RP_ERR_TRACE, "%s %u lies outside its resources (%s): a valid application "
	                 "never makes this call, and a driver may crash on it", what, i, w->text);
}

/* The macros below take the fields every region kind shares, v1 or v2. */
#define RPVK_COPY_OK(src, dst, reg)                                                             \
	(rpvk_side_ok(r, src, &(reg).srcSubresource, (reg).srcOffset, (reg).extent, &w) &&         \
	 rpvk_side_ok(r, dst, &(reg).dstSubresource, (reg).dstOffset, (reg).extent, &w))
#define RPVK_BLIT_OK(src, dst, reg)                                                             \
	(rpvk_blit_side_ok(r, src, &(reg).srcSubresource, (reg).srcOffsets, &w) &&                 \
	 rpvk_blit_side_ok(r, dst, &(reg).dstSubresource, (reg).dstOffsets, &w))
#define RPVK_BUFIMG_OK(buf, img, reg)                                                           \
	(rpvk_side_ok(r, img, &(reg).imageSubresource, (reg).imageOffset, (reg).imageExtent, &w) && \
	 rpvk_buffer_side_ok(r, buf, img, (reg).bufferOffset, (reg).bufferRowLength,               \
	                     (reg).bufferImageHeight, &(reg).imageSubresource, (reg).imageExtent, &w))

rp_status rpvk_region_check(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	rpvk_why w = {""};
	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyImage: {
		const sbt_vk_args_vkCmdCopyImage *a = args;
		for (uint32_t i = 0; a->pRegions && i < a->regionCount; i++)
			if (!RPVK_COPY_OK(a->srcImage, a->dstImage, a->pRegions[i]))
				return rpvk_region_refuse(r, "copy region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImage2:
	case SBT_VK_CMD_vkCmdCopyImage2KHR: {
		const VkCopyImageInfo2 *in = ((const sbt_vk_args_vkCmdCopyImage2 *)args)->pCopyImageInfo;
		for (uint32_t i = 0; in && in->pRegions && i < in->regionCount; i++)
			if (!RPVK_COPY_OK(in->srcImage, in->dstImage, in->pRegions[i]))
				return rpvk_region_refuse(r, "copy region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdResolveImage: {
		const sbt_vk_args_vkCmdResolveImage *a = args;
		for (uint32_t i = 0; a->pRegions && i < a->regionCount; i++)
			if (!RPVK_COPY_OK(a->srcImage, a->dstImage, a->pRegions[i]))
				return rpvk_region_refuse(r, "resolve region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR: {
		const VkResolveImageInfo2 *in = ((const sbt_vk_args_vkCmdResolveImage2 *)args)->pResolveImageInfo;
		for (uint32_t i = 0; in && in->pRegions && i < in->regionCount; i++)
			if (!RPVK_COPY_OK(in->srcImage, in->dstImage, in->pRegions[i]))
				return rpvk_region_refuse(r, "resolve region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdBlitImage: {
		const sbt_vk_args_vkCmdBlitImage *a = args;
		for (uint32_t i = 0; a->pRegions && i < a->regionCount; i++)
			if (!RPVK_BLIT_OK(a->srcImage, a->dstImage, a->pRegions[i]))
				return rpvk_region_refuse(r, "blit region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR: {
		const VkBlitImageInfo2 *in = ((const sbt_vk_args_vkCmdBlitImage2 *)args)->pBlitImageInfo;
		for (uint32_t i = 0; in && in->pRegions && i < in->regionCount; i++)
			if (!RPVK_BLIT_OK(in->srcImage, in->dstImage, in->pRegions[i]))
				return rpvk_region_refuse(r, "blit region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage: {
		const sbt_vk_args_vkCmdCopyBufferToImage *a = args;
		for (uint32_t i = 0; a->pRegions && i < a->regionCount; i++)
			if (!RPVK_BUFIMG_OK(a->srcBuffer, a->dstImage, a->pRegions[i]))
				return rpvk_region_refuse(r, "copy region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR: {
		const VkCopyBufferToImageInfo2 *in =
			((const sbt_vk_args_vkCmdCopyBufferToImage2 *)args)->pCopyBufferToImageInfo;
		for (uint32_t i = 0; in && in->pRegions && i < in->regionCount; i++)
			if (!RPVK_BUFIMG_OK(in->srcBuffer, in->dstImage, in->pRegions[i]))
				return rpvk_region_refuse(r, "copy region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer: {
		const sbt_vk_args_vkCmdCopyImageToBuffer *a = args;
		for (uint32_t i = 0; a->pRegions && i < a->regionCount; i++)
			if (!RPVK_BUFIMG_OK(a->dstBuffer, a->srcImage, a->pRegions[i]))
				return rpvk_region_refuse(r, "copy region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR: {
		const VkCopyImageToBufferInfo2 *in =
			((const sbt_vk_args_vkCmdCopyImageToBuffer2 *)args)->pCopyImageToBufferInfo;
		for (uint32_t i = 0; in && in->pRegions && i < in->regionCount; i++)
			if (!RPVK_BUFIMG_OK(in->dstBuffer, in->srcImage, in->pRegions[i]))
				return rpvk_region_refuse(r, "copy region", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdClearColorImage: {
		const sbt_vk_args_vkCmdClearColorImage *a = args;
		for (uint32_t i = 0; a->pRanges && i < a->rangeCount; i++)
			if (!rpvk_range_ok(r, a->image, &a->pRanges[i], VK_IMAGE_ASPECT_COLOR_BIT, &w))
				return rpvk_region_refuse(r, "clear range", i, &w);
		break;
	}
	case SBT_VK_CMD_vkCmdClearDepthStencilImage: {
		const sbt_vk_args_vkCmdClearDepthStencilImage *a = args;
		for (uint32_t i = 0; a->pRanges && i < a->rangeCount; i++)
			if (!rpvk_range_ok(r, a->image, &a->pRanges[i],
			                   VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, &w))
				return rpvk_region_refuse(r, "clear range", i, &w);
		break;
	}
	default:
		break;
	}
	return RP_OK;
}
