/*
 * vk_trim_layouts - images whose subresources are in different layouts
 * when a trimmed capture's window opens: the snapshot must put each range
 * back in its own layout (and copy each out and in from it).
 *
 *   - image A: R8G8B8A8_UINT, 32x32, 3 mip levels, 4 layers, optimal
 *     tiling; uploaded whole in submit 1, then mip level 0 in
 *     TRANSFER_SRC_OPTIMAL, mip level 1 layers 0-1 in
 *     SHADER_READ_ONLY_OPTIMAL and layers 2-3 in GENERAL, mip level 2 left
 *     in TRANSFER_DST_OPTIMAL;
 *   - image B: R32_UINT, 16x16, 2 mip levels, 2 layers; only mip level 0
 *     of layer 0 is ever used (uploaded, then TRANSFER_SRC_OPTIMAL): the
 *     other subresources stay UNDEFINED;
 *   - image D: D32_SFLOAT_S8_UINT, 16x16; depth and stencil uploaded, then
 *     depth in TRANSFER_SRC_OPTIMAL and stencil in GENERAL (the
 *     separateDepthStencilLayouts feature);
 *   - image E: D32_SFLOAT_S8_UINT, 16x16, a depth/stencil attachment;
 *     uploaded, then left by a render pass that loads and stores it, whose
 *     final layout is TRANSFER_SRC_OPTIMAL for the depth and GENERAL for
 *     the stencil (VkAttachmentDescriptionStencilLayout).
 *
 * Each later round, one submit reads every used subresource into one
 * host-visible buffer, each from the layout the program left it in (mip
 * level 1 layers 0-1 through a barrier to TRANSFER_SRC_OPTIMAL and back),
 * after clearing layer r % 4 of A's mip level 2 to a colour of the round
 * (in TRANSFER_DST_OPTIMAL).  The host zeroes the buffer first, and checks
 * it against its own model after the fence wait.  A barrier whose old
 * layout is not the subresource's, or a copy from a subresource in
 * another layout, is a validation error.
 *
 * usage: vk_trim_layouts [--rounds R]
 * Prints one line: rounds and the XXH3-64 hash of everything read back.
 */
#include "tests/programs/vk_prog.h"

#define VTL_AW 32u
#define VTL_MIPS 3u
#define VTL_LAYERS 4u
#define VTL_BW 16u

static void vtl_usage(FILE *f)
{
	fprintf(f, "usage: vk_trim_layouts [--rounds R]\n"
	           "  --rounds R  rounds: the upload, then R - 1 reads (2..10000, default 8)\n");
}

/* The instance and a device with separateDepthStencilLayouts (Vulkan 1.2)
 * on the first physical device's first graphics queue family. */
static void vtl_ctx_init(vkp_ctx *c)
{
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	VkPhysicalDeviceVulkan12Features f12 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
	};
	VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 1, nfam = 16, i;
	float prio = 1.0f;
	VkResult r;

	memset(c, 0, sizeof(*c));
	c->prog = "vk_trim_layouts";
	app.pApplicationName = c->prog;
	app.applicationVersion = 1;
	app.pEngineName = "tracesmith-tests";
	app.apiVersion = VK_API_VERSION_1_2;
	ici.pApplicationInfo = &app;
	VKP_CHECK(c, vkCreateInstance(&ici, NULL, &c->instance));
	r = vkEnumeratePhysicalDevices(c->instance, &ndev, &c->phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(c, "no Vulkan physical device");
	vkGetPhysicalDeviceProperties(c->phys, &c->dev_props);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
	f2.pNext = &f12;
	vkGetPhysicalDeviceFeatures2(c->phys, &f2);
	if (!f12.separateDepthStencilLayouts)
		vkp_die(c, "device '%s' lacks separateDepthStencilLayouts", c->dev_props.deviceName);
	memset(&f12, 0, sizeof(f12));
	f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
	f12.separateDepthStencilLayouts = VK_TRUE;
	vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &nfam, fams);
	for (i = 0; i < nfam; i++)
		if (fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
			break;
	if (i == nfam)
		vkp_die(c, "no graphics queue family");
	c->qfam = i;
	qci.queueFamilyIndex = i;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.pNext = &f12;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	VKP_CHECK(c, vkCreateDevice(c->phys, &dci, NULL, &c->device));
	vkGetDeviceQueue(c->device, i, 0, &c->queue);
}

static VkImage vtl_image(const vkp_ctx *c, VkFormat format, uint32_t w, uint32_t mips,
                         uint32_t layers, VkImageUsageFlags usage, VkDeviceMemory *mem_out)
{
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryRequirements req;
	VkImage img;
	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = format;
	ici.extent.width = w;
	ici.extent.height = w;
	ici.extent.depth = 1;
	ici.mipLevels = mips;
	ici.arrayLayers = layers;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = usage;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(c, vkCreateImage(c->device, &ici, NULL, &img));
	vkGetImageMemoryRequirements(c->device, img, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0,
	                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, mem_out));
	VKP_CHECK(c, vkBindImageMemory(c->device, img, *mem_out, 0));
	return img;
}

/* A barrier of one range of an image. */
static void vtl_barrier(VkCommandBuffer cb, VkImage img, VkImageAspectFlags aspects, uint32_t mip,
                        uint32_t nmips, uint32_t layer, uint32_t nlayers, VkImageLayout from,
                        VkImageLayout to, VkAccessFlags src, VkAccessFlags dst)
{
	VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
	b.srcAccessMask = src;
	b.dstAccessMask = dst;
	b.oldLayout = from;
	b.newLayout = to;
	b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = img;
	b.subresourceRange.aspectMask = aspects;
	b.subresourceRange.baseMipLevel = mip;
	b.subresourceRange.levelCount = nmips;
	b.subresourceRange.baseArrayLayer = layer;
	b.subresourceRange.layerCount = nlayers;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
	                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* One copy between a buffer and a range of layers of one mip level. */
static VkBufferImageCopy vtl_region(VkDeviceSize at, VkImageAspectFlags aspect, uint32_t w,
                                    uint32_t mip, uint32_t layer, uint32_t nlayers)
{
	VkBufferImageCopy r;
	memset(&r, 0, sizeof(r));
	r.bufferOffset = at;
	r.imageSubresource.aspectMask = aspect;
	r.imageSubresource.mipLevel = mip;
	r.imageSubresource.baseArrayLayer = layer;
	r.imageSubresource.layerCount = nlayers;
	r.imageExtent.width = w >> mip;
	r.imageExtent.height = w >> mip;
	r.imageExtent.depth = 1;
	return r;
}

/* Where the pieces lie in the upload and readback buffers (the same
 * layout in both): A per mip level, layer after layer; B's one
 * subresource; D's depth, then its stencil. */
static VkDeviceSize vtl_a_mip_offset(uint32_t m)
{
	VkDeviceSize at = 0;
	uint32_t i;
	for (i = 0; i < m; i++)
		at += (VkDeviceSize)(VTL_AW >> i) * (VTL_AW >> i) * 4 * VTL_LAYERS;
	return at;
}
#define VTL_B_AT vtl_a_mip_offset(VTL_MIPS)
#define VTL_D_AT (VTL_B_AT + VTL_BW * VTL_BW * 4)
#define VTL_S_AT (VTL_D_AT + VTL_BW * VTL_BW * 4)
#define VTL_E_AT (VTL_S_AT + VTL_BW * VTL_BW)
#define VTL_ES_AT (VTL_E_AT + VTL_BW * VTL_BW * 4)
#define VTL_SIZE (VTL_ES_AT + VTL_BW * VTL_BW)

/* E's render pass: one depth/stencil attachment, loaded and stored, its
 * depth from DEPTH_ATTACHMENT_OPTIMAL to TRANSFER_SRC_OPTIMAL, its stencil
 * from STENCIL_ATTACHMENT_OPTIMAL to GENERAL; the copies of the next submit
 * wait for its writes. */
static VkRenderPass vtl_render_pass(const vkp_ctx *c)
{
	VkAttachmentDescriptionStencilLayout sl = {
		.sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_STENCIL_LAYOUT
	};
	VkAttachmentDescription2 ad = { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2 };
	VkAttachmentReferenceStencilLayout rsl = {
		.sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_STENCIL_LAYOUT
	};
	VkAttachmentReference2 ref = { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2 };
	VkSubpassDescription2 sd = { .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2 };
	VkSubpassDependency2 dep = { .sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2 };
	VkRenderPassCreateInfo2 rci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2 };
	VkRenderPass rp;
	sl.stencilInitialLayout = VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL;
	sl.stencilFinalLayout = VK_IMAGE_LAYOUT_GENERAL;
	ad.pNext = &sl;
	ad.format = VK_FORMAT_D32_SFLOAT_S8_UINT;
	ad.samples = VK_SAMPLE_COUNT_1_BIT;
	ad.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
	ad.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
	ad.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
	ad.stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE;
	ad.initialLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
	ad.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	rsl.stencilLayout = VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL;
	ref.pNext = &rsl;
	ref.attachment = 0;
	ref.layout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
	ref.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
	sd.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
	sd.pDepthStencilAttachment = &ref;
	dep.srcSubpass = 0;
	dep.dstSubpass = VK_SUBPASS_EXTERNAL;
	dep.srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
	dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	dep.srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
	dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	rci.attachmentCount = 1;
	rci.pAttachments = &ad;
	rci.subpassCount = 1;
	rci.pSubpasses = &sd;
	rci.dependencyCount = 1;
	rci.pDependencies = &dep;
	VKP_CHECK(c, vkCreateRenderPass2(c->device, &rci, NULL, &rp));
	return rp;
}

/* The colour round r clears with. */
static void vtl_clear_color(uint32_t r, uint32_t out[4])
{
	out[0] = (r * 41u + 7u) & 0xffu;
	out[1] = (r * 89u + 13u) & 0xffu;
	out[2] = (r * 157u + 1u) & 0xffu;
	out[3] = 0xa5u;
}

static void vtl_submit_wait(const vkp_ctx *c, VkCommandBuffer cb, VkFence fence)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(c, vkQueueSubmit(c->queue, 1, &si, fence));
	VKP_CHECK(c, vkWaitForFences(c->device, 1, &fence, VK_TRUE, UINT64_MAX));
	VKP_CHECK(c, vkResetFences(c->device, 1, &fence));
}

/* The uploads (submit 1), leaving the subresources in their layouts (E's
 * through the render pass rp, on framebuffer fb). */
static void vtl_upload(VkCommandBuffer cb, VkBuffer src, VkImage a, VkImage b, VkImage d,
                       VkImage e, VkRenderPass rp, VkFramebuffer fb)
{
	VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
	VkBufferImageCopy re[2];
	const VkImageAspectFlags ds = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
	const VkAccessFlags tw = VK_ACCESS_TRANSFER_WRITE_BIT, tr = VK_ACCESS_TRANSFER_READ_BIT;
	VkBufferImageCopy ra[VTL_MIPS], rb, rd[2];
	uint32_t m;
	for (m = 0; m < VTL_MIPS; m++)
		ra[m] = vtl_region(vtl_a_mip_offset(m), VK_IMAGE_ASPECT_COLOR_BIT, VTL_AW, m, 0, VTL_LAYERS);
	rb = vtl_region(VTL_B_AT, VK_IMAGE_ASPECT_COLOR_BIT, VTL_BW, 0, 0, 1);
	rd[0] = vtl_region(VTL_D_AT, VK_IMAGE_ASPECT_DEPTH_BIT, VTL_BW, 0, 0, 1);
	rd[1] = vtl_region(VTL_S_AT, VK_IMAGE_ASPECT_STENCIL_BIT, VTL_BW, 0, 0, 1);
	re[0] = vtl_region(VTL_E_AT, VK_IMAGE_ASPECT_DEPTH_BIT, VTL_BW, 0, 0, 1);
	re[1] = vtl_region(VTL_ES_AT, VK_IMAGE_ASPECT_STENCIL_BIT, VTL_BW, 0, 0, 1);
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0,
	            VK_REMAINING_ARRAY_LAYERS, VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, tw);
	vtl_barrier(cb, b, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, tw);
	vtl_barrier(cb, d, ds, 0, 1, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, tw);
	vkCmdCopyBufferToImage(cb, src, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VTL_MIPS, ra);
	vkCmdCopyBufferToImage(cb, src, b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &rb);
	vtl_barrier(cb, e, ds, 0, 1, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, tw);
	vkCmdCopyBufferToImage(cb, src, d, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 2, rd);
	vkCmdCopyBufferToImage(cb, src, e, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 2, re);
	vtl_barrier(cb, e, VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, tw,
	            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
	                VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
	vtl_barrier(cb, e, VK_IMAGE_ASPECT_STENCIL_BIT, 0, 1, 0, 1,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL, tw,
	            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
	                VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
	rbi.renderPass = rp;
	rbi.framebuffer = fb;
	rbi.renderArea.extent.width = VTL_BW;
	rbi.renderArea.extent.height = VTL_BW;
	vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdEndRenderPass(cb);
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, VTL_LAYERS,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, tw, tr);
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 0, 2,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, tw,
	            VK_ACCESS_SHADER_READ_BIT);
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 2, 2,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, tw, tr);
	vtl_barrier(cb, b, VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, tw, tr);
	vtl_barrier(cb, d, VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, tw, tr);
	vtl_barrier(cb, d, VK_IMAGE_ASPECT_STENCIL_BIT, 0, 1, 0, 1,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, tw, tr);
}

/* One round's reads into dst, each from the layout its subresources are
 * in, after the clear of A's mip level 2 layer r % 4. */
static void vtl_read(VkCommandBuffer cb, VkBuffer dst, VkImage a, VkImage b, VkImage d, VkImage e,
                     uint32_t r)
{
	const VkAccessFlags tw = VK_ACCESS_TRANSFER_WRITE_BIT, tr = VK_ACCESS_TRANSFER_READ_BIT;
	VkImageSubresourceRange one = { VK_IMAGE_ASPECT_COLOR_BIT, 2, 1, r % VTL_LAYERS, 1 };
	VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, tw, VK_ACCESS_HOST_READ_BIT };
	VkClearColorValue color;
	VkBufferImageCopy reg;
	const VkImageLayout src = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;

	vtl_clear_color(r, color.uint32);
	vkCmdClearColorImage(cb, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &one);
	/* mip level 0: TRANSFER_SRC_OPTIMAL */
	reg = vtl_region(vtl_a_mip_offset(0), VK_IMAGE_ASPECT_COLOR_BIT, VTL_AW, 0, 0, VTL_LAYERS);
	vkCmdCopyImageToBuffer(cb, a, src, dst, 1, &reg);
	/* mip level 1, layers 0-1: SHADER_READ_ONLY_OPTIMAL, moved for the copy */
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 0, 2,
	            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, src, 0, tr);
	reg = vtl_region(vtl_a_mip_offset(1), VK_IMAGE_ASPECT_COLOR_BIT, VTL_AW, 1, 0, 2);
	vkCmdCopyImageToBuffer(cb, a, src, dst, 1, &reg);
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 0, 2, src,
	            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, tr, VK_ACCESS_SHADER_READ_BIT);
	/* mip level 1, layers 2-3: GENERAL */
	reg = vtl_region(vtl_a_mip_offset(1) + (VkDeviceSize)(VTL_AW >> 1) * (VTL_AW >> 1) * 4 * 2,
	                 VK_IMAGE_ASPECT_COLOR_BIT, VTL_AW, 1, 2, 2);
	vkCmdCopyImageToBuffer(cb, a, VK_IMAGE_LAYOUT_GENERAL, dst, 1, &reg);
	/* mip level 2: TRANSFER_DST_OPTIMAL, just cleared */
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 2, 1, 0, VTL_LAYERS,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, src, tw, tr);
	reg = vtl_region(vtl_a_mip_offset(2), VK_IMAGE_ASPECT_COLOR_BIT, VTL_AW, 2, 0, VTL_LAYERS);
	vkCmdCopyImageToBuffer(cb, a, src, dst, 1, &reg);
	vtl_barrier(cb, a, VK_IMAGE_ASPECT_COLOR_BIT, 2, 1, 0, VTL_LAYERS, src,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, tr, tw);
	/* B's one subresource, D's depth and stencil */
	reg = vtl_region(VTL_B_AT, VK_IMAGE_ASPECT_COLOR_BIT, VTL_BW, 0, 0, 1);
	vkCmdCopyImageToBuffer(cb, b, src, dst, 1, &reg);
	reg = vtl_region(VTL_D_AT, VK_IMAGE_ASPECT_DEPTH_BIT, VTL_BW, 0, 0, 1);
	vkCmdCopyImageToBuffer(cb, d, src, dst, 1, &reg);
	reg = vtl_region(VTL_S_AT, VK_IMAGE_ASPECT_STENCIL_BIT, VTL_BW, 0, 0, 1);
	vkCmdCopyImageToBuffer(cb, d, VK_IMAGE_LAYOUT_GENERAL, dst, 1, &reg);
	/* E's depth and stencil, as the render pass left them */
	reg = vtl_region(VTL_E_AT, VK_IMAGE_ASPECT_DEPTH_BIT, VTL_BW, 0, 0, 1);
	vkCmdCopyImageToBuffer(cb, e, src, dst, 1, &reg);
	reg = vtl_region(VTL_ES_AT, VK_IMAGE_ASPECT_STENCIL_BIT, VTL_BW, 0, 0, 1);
	vkCmdCopyImageToBuffer(cb, e, VK_IMAGE_LAYOUT_GENERAL, dst, 1, &reg);
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
	                     &mb, 0, NULL, 0, NULL);
}

int main(int argc, char **argv)
{
	uint32_t rounds = 8, r, i, x, y, m, l;
	vkp_ctx c;
	vkp_buffer upload, readback;
	VkImage a, b, d, e;
	VkDeviceMemory a_mem, b_mem, d_mem, e_mem;
	VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
	VkImageView e_view;
	VkRenderPass rp;
	VkFramebuffer fb;
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	uint8_t *model;
	XXH3_state_t *hs;
	uint64_t hash;

	for (i = 1; i < (uint32_t)argc; i++) {
		int k = (int)i;
		if (!strcmp(argv[i], "--rounds")) {
			rounds = vkp_parse_u32("vk_trim_layouts", argv[i], vkp_next_arg(argc, argv, &k), 2,
			                       10000);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			vtl_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_trim_layouts: unknown option '%s'\n", argv[i]);
			vtl_usage(stderr);
			return 2;
		}
		i = (uint32_t)k;
	}

	vtl_ctx_init(&c);
	model = malloc((size_t)VTL_SIZE);
	if (!model)
		vkp_die(&c, "out of memory");
	a = vtl_image(&c, VK_FORMAT_R8G8B8A8_UINT, VTL_AW, VTL_MIPS, VTL_LAYERS,
	              VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	              &a_mem);
	b = vtl_image(&c, VK_FORMAT_R32_UINT, VTL_BW, 2, 2,
	              VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	              &b_mem);
	d = vtl_image(&c, VK_FORMAT_D32_SFLOAT_S8_UINT, VTL_BW, 1, 1,
	              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	              &d_mem);
	e = vtl_image(&c, VK_FORMAT_D32_SFLOAT_S8_UINT, VTL_BW, 1, 1,
	              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	              &e_mem);
	vci.image = e;
	vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
	vci.format = VK_FORMAT_D32_SFLOAT_S8_UINT;
	vci.subresourceRange.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
	vci.subresourceRange.levelCount = 1;
	vci.subresourceRange.layerCount = 1;
	VKP_CHECK(&c, vkCreateImageView(c.device, &vci, NULL, &e_view));
	rp = vtl_render_pass(&c);
	fbci.renderPass = rp;
	fbci.attachmentCount = 1;
	fbci.pAttachments = &e_view;
	fbci.width = VTL_BW;
	fbci.height = VTL_BW;
	fbci.layers = 1;
	VKP_CHECK(&c, vkCreateFramebuffer(c.device, &fbci, NULL, &fb));
	vkp_buffer_create(&c, &upload, VTL_SIZE, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkp_buffer_create(&c, &readback, VTL_SIZE, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);

	/* the contents, in the buffers' layout */
	for (m = 0; m < VTL_MIPS; m++)
		for (l = 0; l < VTL_LAYERS; l++)
			for (y = 0; y < VTL_AW >> m; y++)
				for (x = 0; x < VTL_AW >> m; x++)
					for (i = 0; i < 4; i++)
						model[vtl_a_mip_offset(m) +
						      (((VkDeviceSize)l * (VTL_AW >> m) + y) * (VTL_AW >> m) + x) * 4 +
						      i] = (uint8_t)(x * 5 + y * 11 + m * 37 + l * 61 + i * 3);
	for (y = 0; y < VTL_BW; y++)
		for (x = 0; x < VTL_BW; x++) {
			uint32_t word = 0xB0000000u | (((y * VTL_BW + x) * 2654435761u) & 0x0FFFFFFFu);
			float depth = (float)(x + VTL_BW * y) / 512.0f;
			float edepth = (float)(x + VTL_BW * y + 256) / 1024.0f;
			memcpy(model + VTL_B_AT + (y * VTL_BW + x) * 4, &word, 4);
			memcpy(model + VTL_D_AT + (y * VTL_BW + x) * 4, &depth, 4);
			model[VTL_S_AT + y * VTL_BW + x] = (uint8_t)(x * 3 + y * 7 + 1);
			memcpy(model + VTL_E_AT + (y * VTL_BW + x) * 4, &edepth, 4);
			model[VTL_ES_AT + y * VTL_BW + x] = (uint8_t)(x * 5 + y * 3 + 2);
		}
	memcpy(upload.map, model, (size_t)VTL_SIZE);

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
	vtl_upload(cb, upload.buf, a, b, d, e, rp, fb);
	VKP_CHECK(&c, vkEndCommandBuffer(cb));
	vtl_submit_wait(&c, cb, fence);

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	for (r = 1; r < rounds; r++) {
		const uint8_t *got = readback.map;
		uint32_t color[4];
		VkDeviceSize at, n;

		/* the clear, in the model: A's mip level 2, layer r % 4 */
		vtl_clear_color(r, color);
		at = vtl_a_mip_offset(2) + (VkDeviceSize)(r % VTL_LAYERS) * (VTL_AW >> 2) * (VTL_AW >> 2) * 4;
		for (n = 0; n < (VTL_AW >> 2) * (VTL_AW >> 2); n++)
			for (i = 0; i < 4; i++)
				model[at + n * 4 + i] = (uint8_t)color[i];
		memset(readback.map, 0, (size_t)VTL_SIZE);
		vkp_buffer_flush(&c, &readback);
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		vtl_read(cb, readback.buf, a, b, d, e, r);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		vtl_submit_wait(&c, cb, fence);
		vkp_buffer_invalidate(&c, &readback);
		for (n = 0; n < VTL_SIZE; n++)
			if (got[n] != model[n])
				vkp_die(&c, "round %u: byte %llu read back is %u, expected %u", (unsigned)r,
				        (unsigned long long)n, got[n], model[n]);
		if (XXH3_64bits_update(hs, got, (size_t)VTL_SIZE) != XXH_OK)
			vkp_die(&c, "hash update failed");
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_trim_layouts: rounds %u hash 0x%016llx\n", (unsigned)rounds,
	       (unsigned long long)hash);

	XXH3_freeState(hs);
	free(model);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyFramebuffer(c.device, fb, NULL);
	vkDestroyRenderPass(c.device, rp, NULL);
	vkDestroyImageView(c.device, e_view, NULL);
	vkDestroyImage(c.device, e, NULL);
	vkDestroyImage(c.device, d, NULL);
	vkDestroyImage(c.device, b, NULL);
	vkDestroyImage(c.device, a, NULL);
	vkFreeMemory(c.device, e_mem, NULL);
	vkFreeMemory(c.device, d_mem, NULL);
	vkFreeMemory(c.device, b_mem, NULL);
	vkFreeMemory(c.device, a_mem, NULL);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &upload);
	vkp_ctx_finish(&c);
	return 0;
}
