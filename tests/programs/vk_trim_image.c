/*
 * vk_trim_image - images whose contents a trimmed capture's snapshot must
 * restore: written before a window opens, read inside it.
 *
 *   - image A: R8G8B8A8_UINT, 64x32, 3 mip levels, 2 layers, optimal
 *     tiling, sampled and transfer usage; uploaded once (copies from a
 *     buffer), then kept in SHADER_READ_ONLY_OPTIMAL;
 *   - image B: R32_UINT, 16x16, storage usage and transfer-destination
 *     usage only (no transfer source: a capture layer that copies it must
 *     add that usage); uploaded once, then kept in GENERAL;
 *   - image D: D32_SFLOAT_S8_UINT, 16x16, 2 mip levels, a depth/stencil
 *     attachment with transfer usage; depth and stencil uploaded once, then
 *     kept in DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
 *   - image C: a colour attachment only, moved to
 *     COLOR_ATTACHMENT_OPTIMAL and never read (no render pass loads it: a
 *     snapshot need not keep its contents, even when a capture layer gave
 *     it transfer usage).
 *
 * Each round, one submit: A copied whole (every mip level, both layers)
 * into a host-visible buffer, then mip level 1 of layer r % 2 cleared to a
 * colour of the round; B read by a compute shader
 * (tests/shaders/vk_trim_image.comp) into another; D's depth and stencil
 * copied into a third; all three zeroed by the host before (so every
 * round's checkpoints cover them whole).  After the
 * fence wait both are checked against the program's own model and hashed.
 *
 * usage: vk_trim_image [--rounds R]
 * Prints one line: rounds and the XXH3-64 hash of everything read back.
 */
#include "tests/programs/vk_prog.h"

#define VKT_AW 64u
#define VKT_AH 32u
#define VKT_MIPS 3u
#define VKT_LAYERS 2u
#define VKT_BW 16u
#define VKT_DMIPS 2u

static void vkt_usage(FILE *f)
{
	fprintf(f, "usage: vk_trim_image [--rounds R]\n"
	           "  --rounds R  rounds, one submit and fence wait each (1..10000, default 8)\n");
}

/* Where mip level m of A (both layers, one after the other) lies in the
 * upload and readback buffers, and its size. */
static VkDeviceSize vkt_mip_offset(uint32_t m)
{
	VkDeviceSize at = 0;
	uint32_t i;
	for (i = 0; i < m; i++)
		at += (VkDeviceSize)(VKT_AW >> i) * (VKT_AH >> i) * 4 * VKT_LAYERS;
	return at;
}

static void vkt_regions(VkBufferImageCopy *r)
{
	uint32_t m;
	memset(r, 0, sizeof(*r) * VKT_MIPS);
	for (m = 0; m < VKT_MIPS; m++) {
		r[m].bufferOffset = vkt_mip_offset(m);
		r[m].imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
		r[m].imageSubresource.mipLevel = m;
		r[m].imageSubresource.layerCount = VKT_LAYERS;
		r[m].imageExtent.width = VKT_AW >> m;
		r[m].imageExtent.height = VKT_AH >> m;
		r[m].imageExtent.depth = 1;
	}
}

static VkImage vkt_image(const vkp_ctx *c, VkFormat format, uint32_t w, uint32_t h, uint32_t mips,
                         uint32_t layers, VkImageUsageFlags usage, VkDeviceMemory *mem_out)
{
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryRequirements req;
	VkImage img;
	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = format;
	ici.extent.width = w;
	ici.extent.height = h;
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

static void vkt_barrier_aspect(VkCommandBuffer cb, VkImage img, VkImageAspectFlags aspects,
                               VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                               VkAccessFlags dst)
{
	VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
	b.srcAccessMask = src;
	b.dstAccessMask = dst;
	b.oldLayout = from;
	b.newLayout = to;
	b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = img;
	b.subresourceRange.aspectMask = aspects;
	b.subresourceRange.levelCount = VK_REMAINING_MIP_LEVELS;
	b.subresourceRange.layerCount = VK_REMAINING_ARRAY_LAYERS;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
	                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

static void vkt_barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from, VkImageLayout to,
                        VkAccessFlags src, VkAccessFlags dst)
{
	vkt_barrier_aspect(cb, img, VK_IMAGE_ASPECT_COLOR_BIT, from, to, src, dst);
}

/* D's copies: depth of mip levels 0 and 1 (4 bytes a texel), then stencil
 * of both (1 byte), packed; returns the bytes they take. */
static VkDeviceSize vkt_d_regions(VkBufferImageCopy *r)
{
	VkDeviceSize at = 0;
	uint32_t i, m;
	memset(r, 0, sizeof(*r) * 2 * VKT_DMIPS);
	for (i = 0; i < 2 * VKT_DMIPS; i++) {
		m = i % VKT_DMIPS;
		r[i].bufferOffset = at;
		r[i].imageSubresource.aspectMask =
			i < VKT_DMIPS ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_STENCIL_BIT;
		r[i].imageSubresource.mipLevel = m;
		r[i].imageSubresource.layerCount = 1;
		r[i].imageExtent.width = VKT_BW >> m;
		r[i].imageExtent.height = VKT_BW >> m;
		r[i].imageExtent.depth = 1;
		at += (VkDeviceSize)(VKT_BW >> m) * (VKT_BW >> m) * (i < VKT_DMIPS ? 4 : 1);
	}
	return at;
}

/* D's contents in the layout of vkt_d_regions: depths in [0, 1) exact in
 * a float, stencil bytes. */
static void vkt_d_fill(uint8_t *p)
{
	uint32_t m, x, y;
	for (m = 0; m < VKT_DMIPS; m++)
		for (y = 0; y < VKT_BW >> m; y++)
			for (x = 0; x < VKT_BW >> m; x++) {
				float depth = (float)(x + VKT_BW * y + 256 * m) / 1024.0f;
				memcpy(p, &depth, 4);
				p += 4;
			}
	for (m = 0; m < VKT_DMIPS; m++)
		for (y = 0; y < VKT_BW >> m; y++)
			for (x = 0; x < VKT_BW >> m; x++)
				*p++ = (uint8_t)(x * 3 + y * 5 + m * 7);
}

/* Texel word (x, y) of B. */
static uint32_t vkt_b_word(uint32_t x, uint32_t y)
{
	return 0xB0000000u | (((y * VKT_BW + x) * 2654435761u) & 0x0FFFFFFFu);
}

/* The colour round r clears with. */
static void vkt_clear_color(uint32_t r, uint32_t out[4])
{
	out[0] = (r * 37u + 11u) & 0xffu;
	out[1] = (r * 73u + 5u) & 0xffu;
	out[2] = (r * 151u + 3u) & 0xffu;
	out[3] = 0xffu;
}

static void vkt_submit_wait(const vkp_ctx *c, VkCommandBuffer cb, VkFence fence)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(c, vkQueueSubmit(c->queue, 1, &si, fence));
	VKP_CHECK(c, vkWaitForFences(c->device, 1, &fence, VK_TRUE, UINT64_MAX));
	VKP_CHECK(c, vkResetFences(c->device, 1, &fence));
}

int main(int argc, char **argv)
{
	const VkDeviceSize a_size = vkt_mip_offset(VKT_MIPS), b_size = VKT_BW * VKT_BW * 4;
	VkBufferImageCopy d_regions[2 * VKT_DMIPS];
	const VkDeviceSize d_size = vkt_d_regions(d_regions);
	uint8_t *d_model;
	uint32_t rounds = 8, r, i, x, y, m, l;
	vkp_ctx c;
	vkp_buffer upload, readback, words, dread;
	VkImage a, b, att, d;
	VkDeviceMemory a_mem, b_mem, att_mem, d_mem;
	VkImageView b_view;
	VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkDescriptorSetLayoutBinding binds[2] = {
		{ 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
		{ 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL }
	};
	VkDescriptorSetLayoutCreateInfo dslci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
	};
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1 },
		                               { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkDescriptorImageInfo dii = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_GENERAL };
	VkDescriptorBufferInfo dbi = { VK_NULL_HANDLE, 0, VK_WHOLE_SIZE };
	VkWriteDescriptorSet wds[2] = { { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET },
		                            { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET } };
	VkBufferImageCopy regions[VKT_MIPS], b_region = { 0 };
	VkDescriptorSetLayout dsl;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	uint8_t *model;
	XXH3_state_t *hs;
	uint64_t hash;

	for (i = 1; i < (uint32_t)argc; i++) {
		int k = (int)i;
		if (!strcmp(argv[i], "--rounds")) {
			rounds = vkp_parse_u32("vk_trim_image", argv[i], vkp_next_arg(argc, argv, &k), 1,
			                       10000);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			vkt_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_trim_image: unknown option '%s'\n", argv[i]);
			vkt_usage(stderr);
			return 2;
		}
		i = (uint32_t)k;
	}

	vkp_ctx_init(&c, "vk_trim_image", 0);
	model = malloc((size_t)a_size);
	d_model = malloc((size_t)d_size);
	if (!model || !d_model)
		vkp_die(&c, "out of memory");
	a = vkt_image(&c, VK_FORMAT_R8G8B8A8_UINT, VKT_AW, VKT_AH, VKT_MIPS, VKT_LAYERS,
	              VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	              &a_mem);
	b = vkt_image(&c, VK_FORMAT_R32_UINT, VKT_BW, VKT_BW, 1, 1,
	              VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &b_mem);
	d = vkt_image(&c, VK_FORMAT_D32_SFLOAT_S8_UINT, VKT_BW, VKT_BW, VKT_DMIPS, 1,
	              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
	              &d_mem);
	att = vkt_image(&c, VK_FORMAT_R8G8B8A8_UINT, VKT_BW, VKT_BW, 1, 1,
	                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, &att_mem);
	vkp_buffer_create(&c, &upload, a_size + b_size + d_size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkp_buffer_create(&c, &readback, a_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	vkp_buffer_create(&c, &words, b_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	vkp_buffer_create(&c, &dread, d_size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);

	/* A's texels, in the buffers' layout: per mip level, layer after layer */
	for (m = 0; m < VKT_MIPS; m++)
		for (l = 0; l < VKT_LAYERS; l++)
			for (y = 0; y < VKT_AH >> m; y++)
				for (x = 0; x < VKT_AW >> m; x++)
					for (i = 0; i < 4; i++)
						model[vkt_mip_offset(m) +
						      (((VkDeviceSize)l * (VKT_AH >> m) + y) * (VKT_AW >> m) + x) * 4 +
						      i] = (uint8_t)(x * 7 + y * 13 + m * 31 + l * 57 + i * 3);
	memcpy(upload.map, model, (size_t)a_size);
	for (y = 0; y < VKT_BW; y++)
		for (x = 0; x < VKT_BW; x++)
			((uint32_t *)((uint8_t *)upload.map + a_size))[y * VKT_BW + x] = vkt_b_word(x, y);
	vkt_d_fill(d_model);
	memcpy((uint8_t *)upload.map + a_size + b_size, d_model, (size_t)d_size);

	vci.image = b;
	vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
	vci.format = VK_FORMAT_R32_UINT;
	vci.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	vci.subresourceRange.levelCount = 1;
	vci.subresourceRange.layerCount = 1;
	VKP_CHECK(&c, vkCreateImageView(c.device, &vci, NULL, &b_view));
	dslci.bindingCount = 2;
	dslci.pBindings = binds;
	VKP_CHECK(&c, vkCreateDescriptorSetLayout(c.device, &dslci, NULL, &dsl));
	dpci.maxSets = 1;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = 1;
	dsai.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &set));
	dii.imageView = b_view;
	dbi.buffer = words.buf;
	for (i = 0; i < 2; i++) {
		wds[i].dstSet = set;
		wds[i].dstBinding = i;
		wds[i].descriptorCount = 1;
		wds[i].descriptorType = binds[i].descriptorType;
	}
	wds[0].pImageInfo = &dii;
	wds[1].pBufferInfo = &dbi;
	vkUpdateDescriptorSets(c.device, 2, wds, 0, NULL);
	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_trim_image.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);
	vkDestroyShaderModule(c.device, mod, NULL);

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	/* the uploads: submit 1 */
	vkt_regions(regions);
	b_region.bufferOffset = a_size;
	b_region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	b_region.imageSubresource.layerCount = 1;
	b_region.imageExtent.width = VKT_BW;
	b_region.imageExtent.height = VKT_BW;
	b_region.imageExtent.depth = 1;
	VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
	vkt_barrier(cb, a, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	            VK_ACCESS_TRANSFER_WRITE_BIT);
	vkt_barrier(cb, b, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	            VK_ACCESS_TRANSFER_WRITE_BIT);
	vkt_barrier_aspect(cb, d, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
	                   VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	                   VK_ACCESS_TRANSFER_WRITE_BIT);
	vkt_barrier(cb, att, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, 0,
	            VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
	vkCmdCopyBufferToImage(cb, upload.buf, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VKT_MIPS,
	                       regions);
	vkCmdCopyBufferToImage(cb, upload.buf, b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
	                       &b_region);
	for (i = 0; i < 2 * VKT_DMIPS; i++)
		d_regions[i].bufferOffset += a_size + b_size;
	vkCmdCopyBufferToImage(cb, upload.buf, d, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	                       2 * VKT_DMIPS, d_regions);
	for (i = 0; i < 2 * VKT_DMIPS; i++)
		d_regions[i].bufferOffset -= a_size + b_size;
	vkt_barrier_aspect(cb, d, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
	                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	                   VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
	                   VK_ACCESS_TRANSFER_WRITE_BIT,
	                   VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT);
	vkt_barrier(cb, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
	            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
	vkt_barrier(cb, b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
	            VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT);
	VKP_CHECK(&c, vkEndCommandBuffer(cb));
	vkt_submit_wait(&c, cb, fence);

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	for (r = 0; r < rounds; r++) {
		VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
			                   VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
			                   VK_ACCESS_HOST_READ_BIT };
		VkImageSubresourceRange one = { VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, r % VKT_LAYERS, 1 };
		VkClearColorValue color;
		const uint8_t *got = readback.map;
		const uint32_t *w = words.map;
		const uint8_t *dgot = dread.map;

		vkt_clear_color(r, color.uint32);
		/* zeroed by the host first: each round's results differ from what
		 * the host last wrote over the whole of both buffers */
		memset(readback.map, 0, (size_t)a_size);
		memset(words.map, 0, (size_t)b_size);
		memset(dread.map, 0, (size_t)d_size);
		vkp_buffer_flush(&c, &readback);
		vkp_buffer_flush(&c, &words);
		vkp_buffer_flush(&c, &dread);
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		vkt_barrier(cb, a, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		            VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0, VK_ACCESS_TRANSFER_READ_BIT);
		vkCmdCopyImageToBuffer(cb, a, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buf,
		                       VKT_MIPS, regions);
		vkt_barrier(cb, a, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT,
		            VK_ACCESS_TRANSFER_WRITE_BIT);
		vkCmdClearColorImage(cb, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1, &one);
		vkt_barrier(cb, a, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
		            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
		vkt_barrier_aspect(cb, d, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
		                   VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
		                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0, VK_ACCESS_TRANSFER_READ_BIT);
		vkCmdCopyImageToBuffer(cb, d, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dread.buf,
		                       2 * VKT_DMIPS, d_regions);
		vkt_barrier_aspect(cb, d, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
		                   VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                   VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
		                   VK_ACCESS_TRANSFER_READ_BIT, 0);
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
		vkCmdDispatch(cb, VKT_BW / 8, VKT_BW / 8, 1);
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		                     0, 1, &mb, 0, NULL, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		vkt_submit_wait(&c, cb, fence);
		vkp_buffer_invalidate(&c, &readback);
		vkp_buffer_invalidate(&c, &words);
		vkp_buffer_invalidate(&c, &dread);
		for (i = 0; i < d_size; i++)
			if (dgot[i] != d_model[i])
				vkp_die(&c, "round %u: byte %u of image D's depth and stencil is %u, expected "
				        "%u", (unsigned)r, (unsigned)i, dgot[i], d_model[i]);
		for (i = 0; i < a_size; i++)
			if (got[i] != model[i])
				vkp_die(&c, "round %u: byte %u of image A is %u, expected %u", (unsigned)r,
				        (unsigned)i, got[i], model[i]);
		for (y = 0; y < VKT_BW; y++)
			for (x = 0; x < VKT_BW; x++)
				if (w[y * VKT_BW + x] != vkt_b_word(x, y))
					vkp_die(&c, "round %u: texel (%u, %u) of image B is 0x%08x, expected "
					        "0x%08x", (unsigned)r, (unsigned)x, (unsigned)y,
					        w[y * VKT_BW + x], vkt_b_word(x, y));
		if (XXH3_64bits_update(hs, got, (size_t)a_size) != XXH_OK ||
		    XXH3_64bits_update(hs, w, (size_t)b_size) != XXH_OK ||
		    XXH3_64bits_update(hs, dgot, (size_t)d_size) != XXH_OK)
			vkp_die(&c, "hash update failed");
		/* the clear, in the model */
		for (i = 0; i < (VKT_AW >> 1) * (VKT_AH >> 1); i++)
			for (l = 0; l < 4; l++)
				model[vkt_mip_offset(1) +
				      ((VkDeviceSize)(r % VKT_LAYERS) * (VKT_AH >> 1) * (VKT_AW >> 1) + i) * 4 + l] =
				    (uint8_t)color.uint32[l];
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_trim_image: rounds %u hash 0x%016llx\n", (unsigned)rounds,
	       (unsigned long long)hash);

	XXH3_freeState(hs);
	free(model);
	free(d_model);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, pool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	vkDestroyImageView(c.device, b_view, NULL);
	vkDestroyImage(c.device, d, NULL);
	vkDestroyImage(c.device, att, NULL);
	vkDestroyImage(c.device, b, NULL);
	vkDestroyImage(c.device, a, NULL);
	vkFreeMemory(c.device, d_mem, NULL);
	vkFreeMemory(c.device, att_mem, NULL);
	vkFreeMemory(c.device, b_mem, NULL);
	vkFreeMemory(c.device, a_mem, NULL);
	vkp_buffer_destroy(&c, &dread);
	vkp_buffer_destroy(&c, &words);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &upload);
	vkp_ctx_finish(&c);
	return 0;
}
