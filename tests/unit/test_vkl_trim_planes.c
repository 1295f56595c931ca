/*
 * test_vkl_trim_planes - the copies a trimmed capture's snapshot makes of
 * an image's contents (layers/vulkan/vkl_trim.c, compiled in), for
 * multi-planar formats above all, on the CPU (lavapipe has no
 * multi-planar format; tests/gpu/test_gpu_vk_planar.sh runs the copies):
 *   - the parts a range's aspect mask covers: COLOR names every plane,
 *     each at its subsampling with its compatible format's texel size
 *     (G8_B8R8_2PLANE_420: R8 then R8G8 at half size; 3-plane 4:2:0 and
 *     4:2:2; a single plane named alone), and for other formats color,
 *     or depth and stencil apart;
 *   - the regions of a 2-plane image in one layout (each plane at its
 *     extent, the second at an offset aligned to its texel and 4), of one
 *     whose extent leaves an unaligned end, of a disjoint image whose
 *     planes are in different layouts (a segment per plane) or one plane
 *     still UNDEFINED, and of a 3-plane image with two layers;
 *   - the segments of an image whose planes agree (one, naming COLOR) or
 *     not (one per plane, naming it);
 *   - which memory holds a disjoint image's planes.
 * The layer's other modules are not linked: the few functions vkl_trim.c
 * calls from them are stubs that are never reached here.
 */
#include "layers/vulkan/vkl_trim.c"
#include "layers/vulkan/vkl_map.c"
#include "tests/support/tst.h"

/* ---- stubs: never called by what this test runs ---- */
const vkl_config *vkl_config_get(void)
{
	abort();
}
void vkl_device_completed(vkl_device *d, uint64_t n)
{
	(void)d;
	(void)n;
	abort();
}
uint64_t vkl_emit_query_results(uint64_t pool, uint32_t first, uint32_t count, uint32_t flags,
                                uint32_t stride, const void *bytes)
{
	(void)pool, (void)first, (void)count, (void)flags, (void)stride, (void)bytes;
	abort();
}
uint64_t vkl_memory_snapshot(vkl_device *d, VkDeviceMemory mem)
{
	(void)d, (void)mem;
	abort();
}
int vkl_memory_describe(VkDeviceMemory mem, vkl_memory_desc *out)
{
	(void)mem, (void)out;
	abort();
}
uint64_t vkl_memory_snapshot_bytes(VkDeviceMemory mem, const void *data, size_t size)
{
	(void)mem, (void)data, (void)size;
	abort();
}
void vkl_objects_each(void (*fn)(vkl_object *o, void *ctx), void *ctx)
{
	(void)fn, (void)ctx;
	abort();
}
int vkl_objects_find(VkObjectType type, uint64_t handle, vkl_object *out)
{
	(void)type, (void)handle, (void)out;
	abort();
}
vkl_object *vkl_objects_lock(VkObjectType type, uint64_t handle, void **lock_out)
{
	(void)type, (void)handle, (void)lock_out;
	abort();
}
void vkl_objects_unlock(void *lock)
{
	(void)lock;
	abort();
}
uint64_t vkl_record_call(uint32_t cmd, unsigned flags, const void *args, size_t template_len,
                         const uint8_t **payload_out, size_t *len_out, int *inline_out)
{
	(void)cmd, (void)flags, (void)args, (void)template_len, (void)payload_out, (void)len_out,
		(void)inline_out;
	abort();
}
uint64_t vkl_record_flat(uint32_t cmd, const void *args, size_t args_len, const void *array,
                         size_t array_len, size_t ptr_off)
{
	(void)cmd, (void)args, (void)args_len, (void)array, (void)array_len, (void)ptr_off;
	abort();
}

/* ---- helpers ---- */

static void check_part(const vkl_copy_part *p, VkImageAspectFlags aspect, uint32_t texel,
                       uint32_t wdiv, uint32_t hdiv)
{
	TST_CHECK_EQ_U64(p->aspect, aspect);
	TST_CHECK_EQ_U64(p->texel, texel);
	TST_CHECK_EQ_U64(p->wdiv, wdiv);
	TST_CHECK_EQ_U64(p->hdiv, hdiv);
	TST_CHECK_EQ_U64(p->block[0], 1);
	TST_CHECK_EQ_U64(p->block[1], 1);
}

static void check_region(const VkBufferImageCopy *r, VkDeviceSize offset, VkImageAspectFlags aspect,
                         uint32_t w, uint32_t h, uint32_t layers)
{
	TST_CHECK_EQ_U64(r->bufferOffset, offset);
	TST_CHECK_EQ_U64(r->bufferRowLength, 0);
	TST_CHECK_EQ_U64(r->imageSubresource.aspectMask, aspect);
	TST_CHECK_EQ_U64(r->imageSubresource.mipLevel, 0);
	TST_CHECK_EQ_U64(r->imageSubresource.baseArrayLayer, 0);
	TST_CHECK_EQ_U64(r->imageSubresource.layerCount, layers);
	TST_CHECK_EQ_U64(r->imageExtent.width, w);
	TST_CHECK_EQ_U64(r->imageExtent.height, h);
	TST_CHECK_EQ_U64(r->imageExtent.depth, 1);
}

/* An image with transfer usage, one mip level, in one segment per entry of
 * masks/layouts (all mip levels and layers). */
static void image_init(vkl_snap_image *im, vkl_snap_seg *segs, VkFormat f, uint32_t w, uint32_t h,
                       uint32_t layers, uint32_t nsegs, const VkImageAspectFlags *masks,
                       const VkImageLayout *layouts)
{
	uint32_t k;
	memset(im, 0, sizeof(*im));
	im->format = f;
	im->usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	im->type = VK_IMAGE_TYPE_2D;
	im->extent.width = w;
	im->extent.height = h;
	im->extent.depth = 1;
	im->mips = 1;
	im->layers = layers;
	im->samples = VK_SAMPLE_COUNT_1_BIT;
	for (k = 0; k < nsegs; k++) {
		memset(&segs[k], 0, sizeof(segs[k]));
		segs[k].range.aspectMask = masks[k];
		segs[k].range.levelCount = VK_REMAINING_MIP_LEVELS;
		segs[k].range.layerCount = VK_REMAINING_ARRAY_LAYERS;
		segs[k].layout = layouts[k];
	}
	im->segs = segs;
	im->nsegs = nsegs;
}

int main(void)
{
	const VkImageAspectFlags p0 = VK_IMAGE_ASPECT_PLANE_0_BIT, p1 = VK_IMAGE_ASPECT_PLANE_1_BIT,
	                         p2 = VK_IMAGE_ASPECT_PLANE_2_BIT, color = VK_IMAGE_ASPECT_COLOR_BIT;
	const VkImageLayout src = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, gen = VK_IMAGE_LAYOUT_GENERAL,
	                    undef = VK_IMAGE_LAYOUT_UNDEFINED;
	const sbt_vk_format_info *fi;
	vkl_copy_part parts[3];
	vkl_snap_image im;
	vkl_snap_seg segs[3];
	VkImageLayout sub[3];
	VkDeviceSize size = 0;
	const char *why = NULL;

	/* the parts of a range */
	fi = sbt_vk_format_info_of(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM);
	TST_REQUIRE(fi != NULL);
	TST_REQUIRE(vkl_copy_parts(fi, color, parts) == 2);
	check_part(&parts[0], p0, 1, 1, 1);
	check_part(&parts[1], p1, 2, 2, 2);
	TST_REQUIRE(vkl_copy_parts(fi, p1, parts) == 1);
	check_part(&parts[0], p1, 2, 2, 2);
	TST_CHECK_EQ_U64(vkl_copy_parts(fi, p2, parts), 0); /* no third plane */
	fi = sbt_vk_format_info_of(VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM);
	TST_REQUIRE(fi != NULL);
	TST_REQUIRE(vkl_copy_parts(fi, color, parts) == 3);
	check_part(&parts[0], p0, 1, 1, 1);
	check_part(&parts[1], p1, 1, 2, 2);
	check_part(&parts[2], p2, 1, 2, 2);
	TST_REQUIRE(vkl_copy_parts(fi, p0 | p2, parts) == 2);
	check_part(&parts[1], p2, 1, 2, 2);
	fi = sbt_vk_format_info_of(VK_FORMAT_G16_B16R16_2PLANE_422_UNORM);
	TST_REQUIRE(fi != NULL);
	TST_REQUIRE(vkl_copy_parts(fi, color, parts) == 2);
	check_part(&parts[0], p0, 2, 1, 1);
	check_part(&parts[1], p1, 4, 2, 1);
	fi = sbt_vk_format_info_of(VK_FORMAT_D32_SFLOAT_S8_UINT);
	TST_REQUIRE(fi != NULL);
	TST_REQUIRE(vkl_copy_parts(fi, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
	                           parts) == 2);
	check_part(&parts[0], VK_IMAGE_ASPECT_DEPTH_BIT, 4, 1, 1);
	check_part(&parts[1], VK_IMAGE_ASPECT_STENCIL_BIT, 1, 1, 1);
	fi = sbt_vk_format_info_of(VK_FORMAT_R8G8B8A8_UNORM);
	TST_REQUIRE(fi != NULL);
	TST_REQUIRE(vkl_copy_parts(fi, color, parts) == 1);
	check_part(&parts[0], color, 4, 1, 1);

	/* a 2-plane image in one layout: plane 1 (R8G8, 32x16) after plane 0's
	 * 2048 bytes */
	image_init(&im, segs, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 64, 32, 1, 1, &color, &src);
	TST_REQUIRE(vkl_snap_regions(&im, &size, &why) == 2);
	TST_CHECK(why == NULL);
	check_region(&im.regions[0], 0, p0, 64, 32, 1);
	check_region(&im.regions[1], 2048, p1, 32, 16, 1);
	TST_CHECK_EQ_U64(size, 2048 + 32 * 16 * 2);
	free(im.regions);

	/* 62x30: plane 0 ends at 1860, plane 1 starts at 1864 (a multiple of
	 * its texel, 2, times 4) */
	image_init(&im, segs, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 62, 30, 1, 1, &color, &src);
	TST_REQUIRE(vkl_snap_regions(&im, &size, &why) == 2);
	check_region(&im.regions[0], 0, p0, 62, 30, 1);
	check_region(&im.regions[1], 1864, p1, 31, 15, 1);
	TST_CHECK_EQ_U64(size, 1864 + 31 * 15 * 2);
	free(im.regions);

	/* disjoint, planes in different layouts: a segment per plane */
	{
		const VkImageAspectFlags masks[2] = { p0, p1 };
		const VkImageLayout lays[2] = { src, gen };
		const VkImageLayout half[2] = { src, undef };
		image_init(&im, segs, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 64, 32, 1, 2, masks, lays);
		im.flags = VK_IMAGE_CREATE_DISJOINT_BIT;
		TST_REQUIRE(vkl_snap_regions(&im, &size, &why) == 2);
		check_region(&im.regions[0], 0, p0, 64, 32, 1);
		check_region(&im.regions[1], 2048, p1, 32, 16, 1);
		free(im.regions);
		/* plane 1 never used: only plane 0 is copied */
		image_init(&im, segs, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 64, 32, 1, 2, masks, half);
		TST_REQUIRE(vkl_snap_regions(&im, &size, &why) == 1);
		check_region(&im.regions[0], 0, p0, 64, 32, 1);
		TST_CHECK_EQ_U64(size, 2048);
		free(im.regions);
	}

	/* 3 planes, 2 layers: 32x16 then twice 16x8, each with both layers */
	image_init(&im, segs, VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM, 32, 16, 2, 1, &color, &src);
	TST_REQUIRE(vkl_snap_regions(&im, &size, &why) == 3);
	check_region(&im.regions[0], 0, p0, 32, 16, 2);
	check_region(&im.regions[1], 1024, p1, 16, 8, 2);
	check_region(&im.regions[2], 1280, p2, 16, 8, 2);
	TST_CHECK_EQ_U64(size, 1536);
	free(im.regions);

	/* no transfer usage: left out, saying why */
	image_init(&im, segs, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 64, 32, 1, 1, &color, &src);
	im.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	TST_CHECK_EQ_U64(vkl_snap_regions(&im, &size, &why), 0);
	TST_CHECK(why != NULL && strstr(why, "transfer usage") != NULL);

	/* segments: planes that agree are one segment naming COLOR; planes
	 * apart one each, naming the plane */
	memset(&im, 0, sizeof(im));
	im.format = VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM;
	im.mips = im.layers = 1;
	sub[0] = sub[1] = sub[2] = src;
	im.sub = sub;
	TST_REQUIRE(vkl_snap_segments(&im) == 0);
	TST_REQUIRE(im.nsegs == 1);
	TST_CHECK_EQ_U64(im.segs[0].range.aspectMask, color);
	TST_CHECK_EQ_U64(im.segs[0].layout, src);
	free(im.segs);
	im.segs = NULL;
	im.nsegs = 0;
	sub[2] = gen;
	TST_REQUIRE(vkl_snap_segments(&im) == 0);
	TST_REQUIRE(im.nsegs == 3);
	TST_CHECK_EQ_U64(im.segs[0].range.aspectMask, p0);
	TST_CHECK_EQ_U64(im.segs[1].range.aspectMask, p1);
	TST_CHECK_EQ_U64(im.segs[1].layout, src);
	TST_CHECK_EQ_U64(im.segs[2].range.aspectMask, p2);
	TST_CHECK_EQ_U64(im.segs[2].layout, gen);
	free(im.segs);

	/* which memory holds a disjoint image's planes */
	memset(&im, 0, sizeof(im));
	im.memory = 0x30;
	im.plane_memory[0] = 0x10;
	im.plane_memory[1] = 0x30;
	TST_CHECK(vkl_snap_image_in(&im, 0x10));
	TST_CHECK(vkl_snap_image_in(&im, 0x30));
	TST_CHECK(!vkl_snap_image_in(&im, 0x20));
	return tst_done();
}
