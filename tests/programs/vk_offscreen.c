/*
 * vk_offscreen - an offscreen graphics program for capture and replay
 * tests: a render pass over one colour image, a graphics pipeline
 * (tests/shaders/vk_tri.vert + vk_tri.frag) with its vertex buffer written
 * through mapped memory, two draws per frame with push constants, the image
 * copied into a HOST_VISIBLE buffer and read back after a fence wait.  It
 * never presents and needs no display.
 *
 * usage: vk_offscreen [--width W] [--height H] [--frames N] [--out FILE.ppm]
 * Renders N frames (the triangles move from frame to frame; the vertex
 * buffer is rewritten before each), reads each back and prints the XXH3-64
 * hash of all frames' pixels (RGBA8, rows top to bottom) and of the last
 * frame.  --out writes the last frame as a binary PPM (RGB).
 */
#include "tests/programs/vk_prog.h"

#define VKO_FORMAT VK_FORMAT_R8G8B8A8_UNORM
#define VKO_VERTS 6

typedef struct vko_vertex {
	float pos[2];
	float color[3];
} vko_vertex;

typedef struct vko_push {
	float offset[2];
	float scale;
} vko_push;

typedef struct vko_opts {
	uint32_t width, height, frames;
	const char *out;
} vko_opts;

static void vko_usage(FILE *f)
{
	fprintf(f, "usage: vk_offscreen [--width W] [--height H] [--frames N] [--out FILE.ppm]\n"
	           "  --width W, --height H   image size (16..4096, default 256 x 192)\n"
	           "  --frames N              frames rendered and read back (1..10000, default 1)\n"
	           "  --out FILE              write the last frame as a binary PPM\n");
}

static void vko_parse(int argc, char **argv, vko_opts *o)
{
	int i;

	o->width = 256;
	o->height = 192;
	o->frames = 1;
	o->out = NULL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--width")) {
			o->width = vkp_parse_u32("vk_offscreen", a, vkp_next_arg(argc, argv, &i), 16, 4096);
		} else if (!strcmp(a, "--height")) {
			o->height = vkp_parse_u32("vk_offscreen", a, vkp_next_arg(argc, argv, &i), 16, 4096);
		} else if (!strcmp(a, "--frames")) {
			o->frames = vkp_parse_u32("vk_offscreen", a, vkp_next_arg(argc, argv, &i), 1, 10000);
		} else if (!strcmp(a, "--out")) {
			o->out = vkp_need_arg("vk_offscreen", a, argc, argv, &i);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vko_usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "vk_offscreen: unknown option '%s'\n", a);
			vko_usage(stderr);
			exit(2);
		}
	}
}

/* Two triangles whose corners move with the frame number. */
static void vko_fill_vertices(vko_vertex *v, uint32_t frame)
{
	float t = (float)(frame % 64) / 64.0f;
	const vko_vertex base[VKO_VERTS] = {
		{ { 0.0f, -0.8f }, { 1.0f, 0.1f, 0.1f } },  { { 0.8f, 0.7f }, { 0.1f, 1.0f, 0.1f } },
		{ { -0.8f, 0.7f }, { 0.1f, 0.1f, 1.0f } },  { { -0.9f, -0.9f }, { 1.0f, 1.0f, 0.0f } },
		{ { -0.2f, -0.9f }, { 0.0f, 1.0f, 1.0f } }, { { -0.9f, -0.2f }, { 1.0f, 0.0f, 1.0f } },
	};
	int i;

	for (i = 0; i < VKO_VERTS; i++) {
		v[i] = base[i];
		v[i].pos[0] += (i < 3 ? 0.1f : -0.05f) * t;
		v[i].color[2] = v[i].color[2] * (1.0f - t) + t * 0.5f;
	}
}

static void vko_write_ppm(const vkp_ctx *c, const char *path, const uint8_t *rgba, uint32_t w,
                          uint32_t h)
{
	size_t n = (size_t)w * h, i;
	char head[64];
	int hl = snprintf(head, sizeof(head), "P6\n%u %u\n255\n", (unsigned)w, (unsigned)h);
	uint8_t *buf = malloc((size_t)hl + n * 3);

	if (!buf)
		vkp_die(c, "out of memory");
	memcpy(buf, head, (size_t)hl);
	for (i = 0; i < n; i++)
		memcpy(buf + hl + i * 3, rgba + i * 4, 3);
	vkp_write_file(c, path, buf, (size_t)hl + n * 3);
	free(buf);
}

int main(int argc, char **argv)
{
	vko_opts o;
	vkp_ctx c;
	vkp_buffer vbuf, readback;
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkImageViewCreateInfo ivci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkAttachmentDescription att;
	VkAttachmentReference aref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub;
	VkSubpassDependency deps[2];
	VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
	VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(vko_push) };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkPipelineShaderStageCreateInfo stages[2];
	VkVertexInputBindingDescription vib = { 0, sizeof(vko_vertex), VK_VERTEX_INPUT_RATE_VERTEX };
	VkVertexInputAttributeDescription via[2] = {
		{ 0, 0, VK_FORMAT_R32G32_SFLOAT, 0 },
		{ 1, 0, VK_FORMAT_R32G32B32_SFLOAT, sizeof(float) * 2 },
	};
	VkPipelineVertexInputStateCreateInfo vis = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO
	};
	VkPipelineInputAssemblyStateCreateInfo ias = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO
	};
	VkPipelineViewportStateCreateInfo vps = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO
	};
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO
	};
	VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO
	};
	VkPipelineColorBlendAttachmentState cba;
	VkPipelineColorBlendStateCreateInfo cbs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO
	};
	VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
	VkPipelineDynamicStateCreateInfo ds = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO
	};
	VkGraphicsPipelineCreateInfo gpci = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkMemoryRequirements req;
	VkImage image;
	VkDeviceMemory image_mem;
	VkImageView view;
	VkRenderPass rp;
	VkFramebuffer fb;
	VkPipelineLayout layout;
	VkShaderModule vs, fs;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	XXH3_state_t *hs;
	VkDeviceSize bytes;
	uint64_t hash, last_hash = 0;
	uint32_t f;

	vko_parse(argc, argv, &o);
	bytes = (VkDeviceSize)o.width * o.height * 4;
	vkp_ctx_init(&c, "vk_offscreen", VKP_NEED_GRAPHICS);

	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = VKO_FORMAT;
	ici.extent = (VkExtent3D){ o.width, o.height, 1 };
	ici.mipLevels = 1;
	ici.arrayLayers = 1;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(&c, vkCreateImage(c.device, &ici, NULL, &image));
	vkGetImageMemoryRequirements(c.device, image, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(&c, req.memoryTypeBits, 0,
	                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(&c, vkAllocateMemory(c.device, &mai, NULL, &image_mem));
	VKP_CHECK(&c, vkBindImageMemory(c.device, image, image_mem, 0));
	ivci.image = image;
	ivci.viewType = VK_IMAGE_VIEW_TYPE_2D;
	ivci.format = VKO_FORMAT;
	ivci.subresourceRange = (VkImageSubresourceRange){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	VKP_CHECK(&c, vkCreateImageView(c.device, &ivci, NULL, &view));

	vkp_buffer_create(&c, &vbuf, sizeof(vko_vertex) * VKO_VERTS,
	                  VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkp_buffer_create(&c, &readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);

	memset(&att, 0, sizeof(att));
	att.format = VKO_FORMAT;
	att.samples = VK_SAMPLE_COUNT_1_BIT;
	att.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
	att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
	att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	att.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	memset(&sub, 0, sizeof(sub));
	sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
	sub.colorAttachmentCount = 1;
	sub.pColorAttachments = &aref;
	/* In: the previous frame's copy read the image before this clear.
	 * Out: the copy after the pass reads what the pass stored. */
	memset(deps, 0, sizeof(deps));
	deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
	deps[0].dstSubpass = 0;
	deps[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	deps[0].srcAccessMask = 0;
	deps[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
	deps[1].srcSubpass = 0;
	deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
	deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
	deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	rpci.attachmentCount = 1;
	rpci.pAttachments = &att;
	rpci.subpassCount = 1;
	rpci.pSubpasses = &sub;
	rpci.dependencyCount = 2;
	rpci.pDependencies = deps;
	VKP_CHECK(&c, vkCreateRenderPass(c.device, &rpci, NULL, &rp));
	fbci.renderPass = rp;
	fbci.attachmentCount = 1;
	fbci.pAttachments = &view;
	fbci.width = o.width;
	fbci.height = o.height;
	fbci.layers = 1;
	VKP_CHECK(&c, vkCreateFramebuffer(c.device, &fbci, NULL, &fb));

	plci.pushConstantRangeCount = 1;
	plci.pPushConstantRanges = &pcr;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	vs = vkp_shader_load(&c, "vk_tri.vert.spv");
	fs = vkp_shader_load(&c, "vk_tri.frag.spv");
	memset(stages, 0, sizeof(stages));
	stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
	stages[0].module = vs;
	stages[0].pName = "main";
	stages[1] = stages[0];
	stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
	stages[1].module = fs;
	vis.vertexBindingDescriptionCount = 1;
	vis.pVertexBindingDescriptions = &vib;
	vis.vertexAttributeDescriptionCount = 2;
	vis.pVertexAttributeDescriptions = via;
	ias.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
	vps.viewportCount = 1;
	vps.scissorCount = 1;
	rs.polygonMode = VK_POLYGON_MODE_FILL;
	rs.cullMode = VK_CULL_MODE_NONE;
	rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
	rs.lineWidth = 1.0f;
	ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
	memset(&cba, 0, sizeof(cba));
	cba.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
	                     VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
	cbs.attachmentCount = 1;
	cbs.pAttachments = &cba;
	ds.dynamicStateCount = 2;
	ds.pDynamicStates = dyn;
	gpci.stageCount = 2;
	gpci.pStages = stages;
	gpci.pVertexInputState = &vis;
	gpci.pInputAssemblyState = &ias;
	gpci.pViewportState = &vps;
	gpci.pRasterizationState = &rs;
	gpci.pMultisampleState = &ms;
	gpci.pColorBlendState = &cbs;
	gpci.pDynamicState = &ds;
	gpci.layout = layout;
	gpci.renderPass = rp;
	gpci.subpass = 0;
	VKP_CHECK(&c, vkCreateGraphicsPipelines(c.device, VK_NULL_HANDLE, 1, &gpci, NULL, &pipe));

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	for (f = 0; f < o.frames; f++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VkRenderPassBeginInfo rpbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
		VkClearValue clear;
		VkViewport vp = { 0, 0, (float)o.width, (float)o.height, 0.0f, 1.0f };
		VkRect2D scissor = { { 0, 0 }, { o.width, o.height } };
		VkDeviceSize zero = 0;
		VkBufferImageCopy bic;
		VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		vko_push pc;

		vko_fill_vertices(vbuf.map, f);
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		memset(&clear, 0, sizeof(clear));
		clear.color.float32[0] = 0.05f;
		clear.color.float32[1] = 0.05f;
		clear.color.float32[2] = 0.2f + 0.5f * (float)(f % 8) / 8.0f;
		clear.color.float32[3] = 1.0f;
		rpbi.renderPass = rp;
		rpbi.framebuffer = fb;
		rpbi.renderArea = scissor;
		rpbi.clearValueCount = 1;
		rpbi.pClearValues = &clear;
		vkCmdBeginRenderPass(cb, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
		vkCmdSetViewport(cb, 0, 1, &vp);
		vkCmdSetScissor(cb, 0, 1, &scissor);
		vkCmdBindVertexBuffers(cb, 0, 1, &vbuf.buf, &zero);
		pc.offset[0] = 0.0f;
		pc.offset[1] = 0.0f;
		pc.scale = 1.0f;
		vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(pc), &pc);
		vkCmdDraw(cb, VKO_VERTS, 1, 0, 0);
		pc.offset[0] = 0.45f;
		pc.offset[1] = 0.4f;
		pc.scale = 0.4f;
		vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(pc), &pc);
		vkCmdDraw(cb, 3, 1, 0, 0);
		vkCmdEndRenderPass(cb);
		memset(&bic, 0, sizeof(bic));
		bic.imageSubresource = (VkImageSubresourceLayers){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 };
		bic.imageExtent = (VkExtent3D){ o.width, o.height, 1 };
		vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buf, 1,
		                       &bic);
		bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.buffer = readback.buf;
		bmb.size = VK_WHOLE_SIZE;
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
		                     0, NULL, 1, &bmb, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb;
		VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		vkp_fence_wait_reset(&c, fence);
		if (XXH3_64bits_update(hs, readback.map, (size_t)bytes) != XXH_OK)
			vkp_die(&c, "hash update failed");
		last_hash = XXH3_64bits(readback.map, (size_t)bytes);
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_offscreen: %ux%u frames %u hash 0x%016llx last 0x%016llx\n", (unsigned)o.width,
	       (unsigned)o.height, (unsigned)o.frames, (unsigned long long)hash,
	       (unsigned long long)last_hash);
	if (o.out)
		vko_write_ppm(&c, o.out, readback.map, o.width, o.height);

	XXH3_freeState(hs);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, fs, NULL);
	vkDestroyShaderModule(c.device, vs, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyFramebuffer(c.device, fb, NULL);
	vkDestroyRenderPass(c.device, rp, NULL);
	vkDestroyImageView(c.device, view, NULL);
	vkDestroyImage(c.device, image, NULL);
	vkFreeMemory(c.device, image_mem, NULL);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &vbuf);
	vkp_ctx_finish(&c);
	return 0;
}
