/*
 * test_vk_formats - the format facts generated from vk.xml's <formats>
 * (serializer/generated/sbt_vk_formats.h) against values the Vulkan
 * specification states: texel block sizes and extents of plain, packed,
 * block-compressed and 4:2:2 formats, the aspects and buffer-copy sizes of
 * depth/stencil formats ("Copying Data Between Buffers and Images": 24-bit
 * depth in 4 bytes, stencil in 1), the planes of multi-planar formats, and
 * no entry for VK_FORMAT_UNDEFINED.
 */
#include "serializer/generated/sbt_vk_formats.h"
#include "tests/support/tst.h"

static void check_block(VkFormat f, uint32_t size, uint32_t w, uint32_t h, int compressed)
{
	const sbt_vk_format_info *fi = sbt_vk_format_info_of(f);
	TST_REQUIRE(fi != NULL);
	TST_CHECK_EQ_U64(fi->block_size, size);
	TST_CHECK_EQ_U64(fi->block_extent[0], w);
	TST_CHECK_EQ_U64(fi->block_extent[1], h);
	TST_CHECK_EQ_U64(fi->block_extent[2], 1);
	TST_CHECK_EQ_U64(fi->compressed, compressed);
	TST_CHECK_EQ_U64(fi->planes, 0);
}

static void check_depth(VkFormat f, VkImageAspectFlags aspects, uint32_t depth, uint32_t stencil)
{
	const sbt_vk_format_info *fi = sbt_vk_format_info_of(f);
	TST_REQUIRE(fi != NULL);
	TST_CHECK_EQ_U64(fi->aspects, aspects);
	TST_CHECK_EQ_U64(fi->depth_size, depth);
	TST_CHECK_EQ_U64(fi->stencil_size, stencil);
}

int main(void)
{
	const sbt_vk_format_info *fi;

	TST_CHECK(sbt_vk_format_info_of(VK_FORMAT_UNDEFINED) == NULL);
	TST_CHECK(sbt_vk_format_info_of((VkFormat)0x7ffffff0) == NULL);

	check_block(VK_FORMAT_R8_UNORM, 1, 1, 1, 0);
	check_block(VK_FORMAT_R8G8B8A8_UNORM, 4, 1, 1, 0);
	check_block(VK_FORMAT_R16G16B16A16_SFLOAT, 8, 1, 1, 0);
	check_block(VK_FORMAT_R32G32B32_SFLOAT, 12, 1, 1, 0);
	check_block(VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, 1, 1, 0);
	check_block(VK_FORMAT_BC1_RGB_UNORM_BLOCK, 8, 4, 4, 1);
	check_block(VK_FORMAT_BC7_SRGB_BLOCK, 16, 4, 4, 1);
	check_block(VK_FORMAT_ETC2_R8G8B8A8_UNORM_BLOCK, 16, 4, 4, 1);
	check_block(VK_FORMAT_ASTC_10x8_UNORM_BLOCK, 16, 10, 8, 1);
	check_block(VK_FORMAT_G8B8G8R8_422_UNORM, 4, 2, 1, 0);
	fi = sbt_vk_format_info_of(VK_FORMAT_R8G8B8A8_SRGB);
	TST_REQUIRE(fi != NULL);
	TST_CHECK_EQ_U64(fi->aspects, VK_IMAGE_ASPECT_COLOR_BIT);

	check_depth(VK_FORMAT_D16_UNORM, VK_IMAGE_ASPECT_DEPTH_BIT, 2, 0);
	check_depth(VK_FORMAT_X8_D24_UNORM_PACK32, VK_IMAGE_ASPECT_DEPTH_BIT, 4, 0);
	check_depth(VK_FORMAT_D32_SFLOAT, VK_IMAGE_ASPECT_DEPTH_BIT, 4, 0);
	check_depth(VK_FORMAT_S8_UINT, VK_IMAGE_ASPECT_STENCIL_BIT, 0, 1);
	check_depth(VK_FORMAT_D16_UNORM_S8_UINT, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
	            2, 1);
	check_depth(VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
	            4, 1);
	check_depth(VK_FORMAT_D32_SFLOAT_S8_UINT, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
	            4, 1);

	/* 4:2:0 with two planes: luma whole, chroma halved both ways */
	fi = sbt_vk_format_info_of(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM);
	TST_REQUIRE(fi != NULL);
	TST_CHECK_EQ_U64(fi->planes, 2);
	TST_CHECK_EQ_U64(fi->aspects, VK_IMAGE_ASPECT_COLOR_BIT | VK_IMAGE_ASPECT_PLANE_0_BIT |
	                                  VK_IMAGE_ASPECT_PLANE_1_BIT);
	TST_CHECK_EQ_U64(fi->plane[0].width_divisor, 1);
	TST_CHECK_EQ_U64(fi->plane[0].height_divisor, 1);
	TST_CHECK(fi->plane[0].compatible == VK_FORMAT_R8_UNORM);
	TST_CHECK_EQ_U64(fi->plane[1].width_divisor, 2);
	TST_CHECK_EQ_U64(fi->plane[1].height_divisor, 2);
	TST_CHECK(fi->plane[1].compatible == VK_FORMAT_R8G8_UNORM);
	/* three planes, 4:4:4 */
	fi = sbt_vk_format_info_of(VK_FORMAT_G16_B16_R16_3PLANE_444_UNORM);
	TST_REQUIRE(fi != NULL);
	TST_CHECK_EQ_U64(fi->planes, 3);
	TST_CHECK_EQ_U64(fi->plane[2].width_divisor, 1);
	TST_CHECK(fi->plane[2].compatible == VK_FORMAT_R16_UNORM);
	return tst_done();
}
