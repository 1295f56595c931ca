/*
 * vkl_format.h - what a buffer<->image copy moves of a VkFormat, for the
 * layer's snapshots (vkl_trim.c: the copies of an image's contents) and its
 * reach (vkl_reach.c: the bytes a copy into a buffer writes).  From
 * serializer/generated/sbt_vk_formats.h.
 */
#ifndef VKL_FORMAT_H
#define VKL_FORMAT_H

#include <stdint.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "serializer/generated/sbt_vk_formats.h"

/* One aspect of an image a buffer copy names on its own: color, depth,
 * stencil or a plane, the bytes of its texel block in the buffer and the
 * block's extent, and (a plane) the divisors of the image's extent. */
typedef struct vkl_copy_part {
	VkImageAspectFlagBits aspect;
	uint32_t texel;
	uint32_t block[3];
	uint32_t wdiv, hdiv;
} vkl_copy_part;

/* The parts of a format a range of aspectMask mask covers, in the order
 * their copies go (planes 0..2; else color, depth, stencil): COLOR names
 * every plane of a multi-planar format, whose planes copy as their
 * compatible single-plane formats at their own extent ("Copying Data
 * Between Buffers and Images").  Fills out[0..n) and returns n. */
static inline uint32_t vkl_copy_parts(const sbt_vk_format_info *fi, VkImageAspectFlags mask,
                               vkl_copy_part out[3])
{
	static const VkImageAspectFlagBits plain[3] = { VK_IMAGE_ASPECT_COLOR_BIT,
		                                            VK_IMAGE_ASPECT_DEPTH_BIT,
		                                            VK_IMAGE_ASPECT_STENCIL_BIT };
	uint32_t n = 0, p;
	for (p = 0; fi->planes && p < fi->planes && p < 3; p++) {
		VkImageAspectFlagBits a = (VkImageAspectFlagBits)(VK_IMAGE_ASPECT_PLANE_0_BIT << p);
		const sbt_vk_format_info *ci = sbt_vk_format_info_of(fi->plane[p].compatible);
		if (!(mask & (a | VK_IMAGE_ASPECT_COLOR_BIT)) || !ci || !fi->plane[p].width_divisor ||
		    !fi->plane[p].height_divisor)
			continue;
		out[n].aspect = a;
		out[n].texel = ci->block_size;
		memcpy(out[n].block, ci->block_extent, sizeof(out[n].block));
		out[n].wdiv = fi->plane[p].width_divisor;
		out[n].hdiv = fi->plane[p].height_divisor;
		n++;
	}
	for (p = 0; !fi->planes && p < 3; p++) {
		if (!(fi->aspects & plain[p]) || !(mask & plain[p]))
			continue;
		out[n].aspect = plain[p];
		out[n].texel = plain[p] == VK_IMAGE_ASPECT_DEPTH_BIT     ? fi->depth_size
		               : plain[p] == VK_IMAGE_ASPECT_STENCIL_BIT ? fi->stencil_size
		                                                         : fi->block_size;
		memcpy(out[n].block, fi->block_extent, sizeof(out[n].block));
		out[n].wdiv = out[n].hdiv = 1;
		n++;
	}
	return n;
}

#endif /* VKL_FORMAT_H */
