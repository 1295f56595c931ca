/*
 * test_rpvk_view - the replay's rule on an image view's subresource range
 * (rpvk_region_view_in, replayer/vulkan/rpvk_region.c): inside its image's
 * levels and layers, except that a 2D or 2D array view of a 3D image made
 * 2D-array or 2D-view compatible has one level, whose depth slices are its
 * layers (VUID-VkImageViewCreateInfo-image-02724).  zink makes such views
 * to render into a slice of a 3D texture; tsreplay refused them as lying
 * outside the image (piglit's fbo-3d, test_vk_piglit.sh).
 */
#include <stdlib.h>

#include "replayer/vulkan/rpvk.h"
#include "tests/support/tst.h"

static int tv_in(rpvk *r, uint64_t image, VkImageViewType type, uint32_t mip, uint32_t mips,
                 uint32_t layer, uint32_t layers)
{
	VkImageViewCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	ci.image = (VkImage)(uintptr_t)image;
	ci.viewType = type;
	ci.format = VK_FORMAT_R8G8B8A8_UNORM;
	ci.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	ci.subresourceRange.baseMipLevel = mip;
	ci.subresourceRange.levelCount = mips;
	ci.subresourceRange.baseArrayLayer = layer;
	ci.subresourceRange.layerCount = layers;
	return rpvk_region_view_in(r, &ci);
}

int main(void)
{
	rpvk *r = calloc(1, sizeof(*r));
	VkImageCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	const uint64_t arr3d = 0x1000, view3d = 0x2000, plain3d = 0x3000, arr2d = 0x4000;
	TST_REQUIRE(r != NULL);
	ci.imageType = VK_IMAGE_TYPE_3D;
	ci.format = VK_FORMAT_R8G8B8A8_UNORM;
	ci.extent = (VkExtent3D){ 32, 32, 32 };
	ci.mipLevels = 3;
	ci.arrayLayers = 1;
	ci.flags = VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT;
	rpvk_region_image_created(r, (VkImage)(uintptr_t)arr3d, &ci);
	ci.flags = VK_IMAGE_CREATE_2D_VIEW_COMPATIBLE_BIT_EXT;
	rpvk_region_image_created(r, (VkImage)(uintptr_t)view3d, &ci);
	ci.flags = 0;
	rpvk_region_image_created(r, (VkImage)(uintptr_t)plain3d, &ci);
	ci.imageType = VK_IMAGE_TYPE_2D;
	ci.extent = (VkExtent3D){ 32, 32, 1 };
	ci.mipLevels = 1;
	ci.arrayLayers = 4;
	rpvk_region_image_created(r, (VkImage)(uintptr_t)arr2d, &ci);

	/* slices of level 0 (32 deep), 1 (16) and 2 (8) */
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 31, 1), 1);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 32, 1), 0);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D, 1, 1, 15, 1), 1);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D, 1, 1, 16, 1), 0);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D_ARRAY, 2, 1, 0, 8), 1);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D_ARRAY, 2, 1, 0, 9), 0);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D_ARRAY, 2, VK_REMAINING_MIP_LEVELS, 4,
	                       VK_REMAINING_ARRAY_LAYERS), 1);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D, 3, 1, 0, 1), 0);
	/* such a view has one level */
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 2, 0, 1), 0);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_2D, 0, VK_REMAINING_MIP_LEVELS, 0, 1), 0);
	/* the 2D-view compatible flag (VK_EXT_image_2d_view_of_3d) alike */
	TST_CHECK_EQ_U64(tv_in(r, view3d, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 20, 1), 1);
	TST_CHECK_EQ_U64(tv_in(r, view3d, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 32, 1), 0);
	/* a 3D view of either: its one layer, every level */
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_3D, 0, 3, 0, 1), 1);
	TST_CHECK_EQ_U64(tv_in(r, arr3d, VK_IMAGE_VIEW_TYPE_3D, 0, 1, 1, 1), 0);
	/* a 3D image without the flags has one layer whatever the view */
	TST_CHECK_EQ_U64(tv_in(r, plain3d, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 0, 1), 1);
	TST_CHECK_EQ_U64(tv_in(r, plain3d, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 1, 1), 0);
	/* a 2D array image: its layers */
	TST_CHECK_EQ_U64(tv_in(r, arr2d, VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 1, 0, 4), 1);
	TST_CHECK_EQ_U64(tv_in(r, arr2d, VK_IMAGE_VIEW_TYPE_2D_ARRAY, 0, 1, 2, 3), 0);
	/* an image the replay did not see created (a swapchain's): not judged */
	TST_CHECK_EQ_U64(tv_in(r, 0x5000, VK_IMAGE_VIEW_TYPE_2D, 0, 1, 3, 1), 1);

	rpvk_region_free(r);
	free(r);
	return tst_done();
}
