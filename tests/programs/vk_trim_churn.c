/*
 * vk_trim_churn - a compute program whose live state churns, for trimmed
 * capture tests: what a snapshot taken in the middle must get right.
 *
 *   - the shader module is destroyed right after the pipeline is made;
 *   - the fence is created signalled and reset at the start of each round;
 *   - a command buffer recorded once, before the rounds, is submitted in
 *     every even round (its set reads a fixed input buffer);
 *   - every round makes a new input buffer, points the second set at it
 *     and destroys the previous one, so older updates of that set name
 *     destroyed buffers; odd rounds record a second command buffer anew
 *     with that set and submit it.
 *
 * Each round: one submit, a fence wait, results checked against
 * vkp_compute_mix and hashed.
 *
 * With --timeline (Vulkan 1.2): a timeline semaphore the submit of round r
 * signals to r + 1; before it the host waits for value r (reached by the
 * round before: a window opening mid-run must start from the counter's
 * value), after it the counter must read r + 1.
 *
 * With --orphans: objects that outlive what they were created from, made
 * before the rounds: a framebuffer whose image view, image, the image's
 * memory and render pass are destroyed right after it is made, and a
 * texel buffer view whose buffer (and its memory) is destroyed; both are
 * destroyed at the start of round R - 4 (inside a window of the last
 * rounds: a trimmed capture must recreate what the framebuffer needs, or
 * at least not record the destroy of an object its snapshot left out).
 *
 * With --secondary: a 16x16 R32_UINT image whose upload (barrier from
 * UNDEFINED, copy, barrier to TRANSFER_SRC_OPTIMAL) is recorded in a
 * secondary command buffer, which a primary executes in round 0's submit;
 * every later round's submit also copies the image (in
 * TRANSFER_SRC_OPTIMAL) into a host-visible buffer the host zeroes before,
 * and checks and hashes it (a snapshot must know the layout the secondary
 * left).
 *
 * With --timestamps: round 0's submit also writes two timestamp queries
 * (reset, top of pipe, bottom of pipe); every later round reads them from
 * the host (vkGetQueryPoolResults, waiting) and checks the second is not
 * before the first: results written before a window, read inside it.
 *
 * With --occlusion: round 0's submit also resets three occlusion queries
 * and begins and ends the first two (on the graphics queue, nothing
 * drawn); every later round's submit adds a command buffer recorded once,
 * before the rounds, that resets, begins and ends the third, then copies
 * all three results into a host-visible buffer the host zeroes before
 * (64-bit with availability at offset 0, stride 16; 32-bit with
 * availability at offset 48, stride 8; both waiting), and the host reads
 * them too (vkGetQueryPoolResults, 64-bit with availability, not
 * waiting): all of them must be available and agree, and the buffer is
 * hashed.  Results other than timestamps written before a window, read
 * inside it: the first two never reset, the third measured again in
 * every submit that reads it.
 *
 * With --statistics (the pipelineStatisticsQuery feature): round 0's submit
 * also runs the compute work once more inside a pipeline statistics query
 * counting compute shader invocations; every later round reads it from
 * the host (64-bit with availability, not waiting) and copies it into a
 * host-visible buffer (32-bit with availability), which must equal the
 * invocations dispatched; the buffer is hashed.  A result no run of the
 * same work changes, written before a window, read inside it.
 *
 * With --submit2 (Vulkan 1.3, the synchronization2 feature; not with
 * --timeline): every round submits through vkQueueSubmit2, the same
 * command buffers in the same order.
 *
 * With --occlusion --query-secondary: the command buffer that measures
 * the third occlusion query again and copies the three results does it
 * all in a secondary command buffer, which it executes
 * (vkCmdExecuteCommands) and then ends with its barrier; and in round
 * R - 5 the submit ends with a primary executing a secondary that resets
 * the second query (vkCmdResetQueryPool, nothing else), after which the
 * host reads it (not waiting): VK_NOT_READY, unavailable; round R - 4's
 * submit begins and ends it again (no reset) before the copies.  A query
 * written before a window, reset inside it by a secondary.
 *
 * With --occlusion --host-reset (Vulkan 1.2, the hostQueryReset feature):
 * in round R - 5 the host resets the first occlusion query
 * (vkResetQueryPool) before the submit and reads it (64-bit with
 * availability, not waiting): it must be VK_NOT_READY and unavailable;
 * that round's submit begins and ends it again (a command buffer recorded
 * once, no reset in it) before the copies.  A query written before a
 * window, reset from the host inside it.
 *
 * With --frame-secondaries: every round ends with a second submit (and
 * fence wait), of five primary command buffers recorded after the first
 * submit's wait, executing secondaries (one-time-submit, all of them) that
 * each fill one word of a host-visible buffer with a value of the round,
 * which the host zeroes before and checks and hashes after: round r's
 * submits are 2r + 1 and 2r + 2, counted from 1.  The first four
 * primaries are each begun before their four secondaries are recorded, so
 * these recordings end with no call between them that a trimmed capture
 * keeps (a renderer that begins its frame's primary, records secondaries
 * on worker threads, then executes them: DDNet's Vulkan backend); the
 * fifth primary's one secondary is recorded with the next round's value
 * after the round's wait, which leaves that primary's recording invalid
 * until it is recorded again.  A window opening at a round's first submit
 * (an odd one) must write each secondary before the primary executing it,
 * and leave the fifth primary's recording out.
 *
 * With --template: the churning set is updated through a descriptor
 * update template (vkUpdateDescriptorSetWithTemplate) each round, and a
 * third set is updated through it once, before the rounds, with an input
 * buffer destroyed right after (never used), and another input buffer
 * made right after that lives to the end; the fixed set is written
 * through a second template, destroyed right after.  A snapshot keeps the
 * churning set's last update alone, leaves out the third set's, whose
 * data names a destroyed buffer, and recreates the second template for
 * the fixed set's update (and destroys it again).
 *
 * With --primitives (VK_EXT_primitives_generated_query): round 0's submit
 * also draws one triangle (vk_tri.vert alone, a render pass without
 * attachments) inside a primitives generated query; every later round
 * reads it from the host (64-bit with availability, not waiting) and
 * copies it into a host-visible buffer (32-bit with availability), which
 * must count one primitive; the buffer is hashed.
 *
 * With --xfb (VK_EXT_transform_feedback): the same triangle, drawn by
 * vk_xfb.vert into a transform feedback buffer inside query 0 of a
 * transform feedback stream query (vkCmdBeginQueryIndexedEXT, stream 0:
 * two values a query, primitives written and primitives needed); every
 * later round reads it from the host and copies it as --primitives does,
 * both values must be 1, and the copy and the feedback buffer's three
 * vertices are hashed.
 *
 * usage: vk_trim_churn [--rounds R] [--size N] [--timeline] [--orphans]
 *                      [--secondary] [--timestamps] [--occlusion]
 *                      [--statistics] [--submit2] [--query-secondary]
 *                      [--host-reset] [--primitives] [--xfb]
 *                      [--frame-secondaries] [--template]
 * Prints one line: rounds, size and the XXH3-64 hash of every result word.
 */
#include "tests/programs/vk_prog.h"

static void vkt_usage(FILE *f)
{
	fprintf(f, "usage: vk_trim_churn [--rounds R] [--size N] [--timeline] [--orphans]\n"
	           "                     [--secondary] [--timestamps] [--occlusion]\n"
	           "                     [--statistics] [--submit2] [--query-secondary]\n"
	           "                     [--host-reset] [--primitives] [--xfb]\n"
	           "                     [--frame-secondaries] [--template]\n"
	           "  --rounds R   rounds, one submit and fence wait each (1..10000, default 12)\n"
	           "  --size N     words per round (64..1048576, default 1024)\n"
	           "  --timeline   a timeline semaphore counts the rounds (Vulkan 1.2)\n"
	           "  --orphans    a framebuffer and a buffer view outlive what they were made\n"
	           "               from; destroyed in round R - 4\n"
	           "  --secondary  an image uploaded by a secondary command buffer, read back\n"
	           "               every round\n"
	           "  --timestamps two timestamps written in round 0, read every later round\n"
	           "  --occlusion  two occlusion queries written in round 0, a third in every\n"
	           "               later round, all copied and read in those rounds\n"
	           "  --statistics compute invocations counted in round 0, copied and read\n"
	           "               every later round\n"
	           "  --submit2    submit through vkQueueSubmit2 (Vulkan 1.3; not with --timeline)\n"
	           "  --query-secondary  with --occlusion: the copies recorded in a secondary\n"
	           "               command buffer\n"
	           "  --host-reset with --occlusion: the host resets the first query in round\n"
	           "               R - 5, and that round measures it again (Vulkan 1.2)\n"
	           "  --primitives a triangle's primitives generated query written in round 0,\n"
	           "               copied and read every later round\n"
	           "  --xfb        a triangle's transform feedback stream query and feedback\n"
	           "               buffer written in round 0, read every later round\n"
	           "  --frame-secondaries  five primaries recorded every round, executing\n"
	           "               secondaries; four begun before theirs are recorded, the\n"
	           "               fifth's recorded for the next round after the wait\n"
	           "  --template   the churning set updated through a descriptor update template,\n"
	           "               and a third set once, with a buffer destroyed right after\n");
}

/* --primitives: a render pass without attachments and a pipeline of
 * vk_tri.vert alone (push constants: offset, scale) drawing one triangle
 * of vb, recorded into cb inside query 0 of pool (reset first).  With xb
 * (--xfb), vk_xfb.vert draws it with transform feedback into xb, inside
 * query 0 begun on stream 0 by vkCmdBeginQueryIndexedEXT. */
static void vkt_primitives(const vkp_ctx *c, VkCommandBuffer cb, VkQueryPool pool,
                           const vkp_buffer *vb, const vkp_buffer *xb, VkRenderPass *rp_out,
                           VkFramebuffer *fb_out, VkPipelineLayout *layout_out,
                           VkPipeline *pipe_out)
{
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS };
	VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
	VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, 12 };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkPipelineShaderStageCreateInfo stage = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
	};
	VkVertexInputBindingDescription vib = { 0, 20, VK_VERTEX_INPUT_RATE_VERTEX };
	VkVertexInputAttributeDescription via[2] = { { 0, 0, VK_FORMAT_R32G32_SFLOAT, 0 },
		                                         { 1, 0, VK_FORMAT_R32G32B32_SFLOAT, 8 } };
	VkPipelineVertexInputStateCreateInfo vis = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO
	};
	VkPipelineInputAssemblyStateCreateInfo ias = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO
	};
	VkViewport vp = { 0, 0, 16, 16, 0, 1 };
	VkRect2D sc = { { 0, 0 }, { 16, 16 } };
	VkPipelineViewportStateCreateInfo vps = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO
	};
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO
	};
	VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO
	};
	VkGraphicsPipelineCreateInfo gpci = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
	VkRenderPassBeginInfo rpbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
	const float push[3] = { 0.0f, 0.0f, 1.0f };
	const float tri[15] = { -0.5f, -0.5f, 1, 0, 0, 0.5f, -0.5f, 0, 1, 0, 0.0f, 0.5f, 0, 0, 1 };
	VkDeviceSize zero = 0;
	VkShaderModule vs;

	rpci.subpassCount = 1;
	rpci.pSubpasses = &sub;
	VKP_CHECK(c, vkCreateRenderPass(c->device, &rpci, NULL, rp_out));
	fbci.renderPass = *rp_out;
	fbci.width = fbci.height = 16;
	fbci.layers = 1;
	VKP_CHECK(c, vkCreateFramebuffer(c->device, &fbci, NULL, fb_out));
	plci.pushConstantRangeCount = 1;
	plci.pPushConstantRanges = &pcr;
	VKP_CHECK(c, vkCreatePipelineLayout(c->device, &plci, NULL, layout_out));
	vs = vkp_shader_load(c, xb ? "vk_xfb.vert.spv" : "vk_tri.vert.spv");
	stage.stage = VK_SHADER_STAGE_VERTEX_BIT;
	stage.module = vs;
	stage.pName = "main";
	vis.vertexBindingDescriptionCount = 1;
	vis.pVertexBindingDescriptions = &vib;
	vis.vertexAttributeDescriptionCount = 2;
	vis.pVertexAttributeDescriptions = via;
	ias.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
	vps.viewportCount = 1;
	vps.pViewports = &vp;
	vps.scissorCount = 1;
	vps.pScissors = &sc;
	rs.polygonMode = VK_POLYGON_MODE_FILL;
	rs.cullMode = VK_CULL_MODE_NONE;
	rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
	rs.lineWidth = 1.0f;
	ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
	gpci.stageCount = 1;
	gpci.pStages = &stage;
	gpci.pVertexInputState = &vis;
	gpci.pInputAssemblyState = &ias;
	gpci.pViewportState = &vps;
	gpci.pRasterizationState = &rs;
	gpci.pMultisampleState = &ms;
	gpci.layout = *layout_out;
	gpci.renderPass = *rp_out;
	VKP_CHECK(c, vkCreateGraphicsPipelines(c->device, VK_NULL_HANDLE, 1, &gpci, NULL, pipe_out));
	vkDestroyShaderModule(c->device, vs, NULL);
	memcpy(vb->map, tri, sizeof(tri));

	vkCmdResetQueryPool(cb, pool, 0, 1);
	if (xb) {
		PFN_vkCmdBindTransformFeedbackBuffersEXT bind_xfb =
			(PFN_vkCmdBindTransformFeedbackBuffersEXT)vkGetDeviceProcAddr(
				c->device, "vkCmdBindTransformFeedbackBuffersEXT");
		PFN_vkCmdBeginQueryIndexedEXT begin_q = (PFN_vkCmdBeginQueryIndexedEXT)
			vkGetDeviceProcAddr(c->device, "vkCmdBeginQueryIndexedEXT");
		if (!bind_xfb || !begin_q)
			vkp_die(c, "VK_EXT_transform_feedback is enabled but its commands are missing");
		bind_xfb(cb, 0, 1, &xb->buf, &zero, NULL);
		begin_q(cb, pool, 0, 0, 0);
	} else {
		vkCmdBeginQuery(cb, pool, 0, 0);
	}
	rpbi.renderPass = *rp_out;
	rpbi.framebuffer = *fb_out;
	rpbi.renderArea = sc;
	vkCmdBeginRenderPass(cb, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, *pipe_out);
	vkCmdBindVertexBuffers(cb, 0, 1, &vb->buf, &zero);
	vkCmdPushConstants(cb, *layout_out, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), push);
	if (xb) {
		PFN_vkCmdBeginTransformFeedbackEXT begin_xfb = (PFN_vkCmdBeginTransformFeedbackEXT)
			vkGetDeviceProcAddr(c->device, "vkCmdBeginTransformFeedbackEXT");
		PFN_vkCmdEndTransformFeedbackEXT end_xfb = (PFN_vkCmdEndTransformFeedbackEXT)
			vkGetDeviceProcAddr(c->device, "vkCmdEndTransformFeedbackEXT");
		PFN_vkCmdEndQueryIndexedEXT end_q = (PFN_vkCmdEndQueryIndexedEXT)vkGetDeviceProcAddr(
			c->device, "vkCmdEndQueryIndexedEXT");
		if (!begin_xfb || !end_xfb || !end_q)
			vkp_die(c, "VK_EXT_transform_feedback is enabled but its commands are missing");
		begin_xfb(cb, 0, 0, NULL, NULL);
		vkCmdDraw(cb, 3, 1, 0, 0);
		end_xfb(cb, 0, 0, NULL, NULL);
		vkCmdEndRenderPass(cb);
		end_q(cb, pool, 0, 0);
		return;
	}
	vkCmdDraw(cb, 3, 1, 0, 0);
	vkCmdEndRenderPass(cb);
	vkCmdEndQuery(cb, pool, 0);
}

/* Submits si's command buffers through vkQueueSubmit2 (no semaphores:
 * --submit2 excludes --timeline). */
static VkResult vkt_submit2(const vkp_ctx *c, const VkSubmitInfo *si, VkFence fence)
{
	VkCommandBufferSubmitInfo cbi[8];
	VkSubmitInfo2 s2 = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2 };
	uint32_t i;
	if (si->commandBufferCount > 8)
		vkp_die(c, "vkt_submit2: %u command buffers (at most 8)",
		        (unsigned)si->commandBufferCount);
	for (i = 0; i < si->commandBufferCount; i++) {
		memset(&cbi[i], 0, sizeof(cbi[i]));
		cbi[i].sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO;
		cbi[i].commandBuffer = si->pCommandBuffers[i];
	}
	s2.commandBufferInfoCount = si->commandBufferCount;
	s2.pCommandBufferInfos = cbi;
	return vkQueueSubmit2(c->queue, 1, &s2, fence);
}

#define VKT_IW 16u /* --secondary's image: VKT_IW x VKT_IW R32_UINT */

/* --orphans: a framebuffer whose view, image, memory and render pass are
 * destroyed, and a texel buffer view whose buffer is; returned live. */
static void vkt_orphans(const vkp_ctx *c, VkFramebuffer *fb_out, VkBufferView *bv_out)
{
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkAttachmentDescription ad = { 0 };
	VkAttachmentReference ar = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sd = { 0 };
	VkRenderPassCreateInfo rci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
	VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
	VkBufferViewCreateInfo bvci = { .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO };
	VkMemoryRequirements req;
	VkRenderPass rp;
	VkImage img;
	VkDeviceMemory mem;
	VkImageView view;
	vkp_buffer tb;

	ad.format = VK_FORMAT_R8G8B8A8_UNORM;
	ad.samples = VK_SAMPLE_COUNT_1_BIT;
	ad.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	ad.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	ad.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	ad.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	ad.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	ad.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
	sd.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
	sd.colorAttachmentCount = 1;
	sd.pColorAttachments = &ar;
	rci.attachmentCount = 1;
	rci.pAttachments = &ad;
	rci.subpassCount = 1;
	rci.pSubpasses = &sd;
	VKP_CHECK(c, vkCreateRenderPass(c->device, &rci, NULL, &rp));

	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = VK_FORMAT_R8G8B8A8_UNORM;
	ici.extent.width = ici.extent.height = 16;
	ici.extent.depth = 1;
	ici.mipLevels = ici.arrayLayers = 1;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(c, vkCreateImage(c->device, &ici, NULL, &img));
	vkGetImageMemoryRequirements(c->device, img, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0,
	                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, &mem));
	VKP_CHECK(c, vkBindImageMemory(c->device, img, mem, 0));
	vci.image = img;
	vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
	vci.format = ici.format;
	vci.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	vci.subresourceRange.levelCount = vci.subresourceRange.layerCount = 1;
	VKP_CHECK(c, vkCreateImageView(c->device, &vci, NULL, &view));
	fci.renderPass = rp;
	fci.attachmentCount = 1;
	fci.pAttachments = &view;
	fci.width = fci.height = 16;
	fci.layers = 1;
	VKP_CHECK(c, vkCreateFramebuffer(c->device, &fci, NULL, fb_out));
	/* the framebuffer outlives all four */
	vkDestroyImageView(c->device, view, NULL);
	vkDestroyImage(c->device, img, NULL);
	vkFreeMemory(c->device, mem, NULL);
	vkDestroyRenderPass(c->device, rp, NULL);

	vkp_buffer_create(c, &tb, 256, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, 0, 0, 0);
	bvci.buffer = tb.buf;
	bvci.format = VK_FORMAT_R32_UINT;
	bvci.range = VK_WHOLE_SIZE;
	VKP_CHECK(c, vkCreateBufferView(c->device, &bvci, NULL, bv_out));
	vkp_buffer_destroy(c, &tb); /* the view outlives its buffer */
}

/* A barrier of the whole colour image between two layouts. */
static void vkt_image_barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from,
                              VkImageLayout to, VkAccessFlags src, VkAccessFlags dst)
{
	VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
	b.srcAccessMask = src;
	b.dstAccessMask = dst;
	b.oldLayout = from;
	b.newLayout = to;
	b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = img;
	b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	b.subresourceRange.levelCount = b.subresourceRange.layerCount = 1;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
	                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* The word at texel i of --secondary's image. */
static uint32_t vkt_texel(uint32_t i)
{
	return vkp_compute_input(i, 7777);
}

/* --secondary: the image, uploaded by a secondary command buffer that the
 * returned primary executes (*upload_out), and a primary copying it into
 * `read` (*read_out).  `src` holds the upload's bytes. */
static VkImage vkt_secondary(const vkp_ctx *c, VkCommandPool pool, const vkp_buffer *src,
                             const vkp_buffer *read, VkDeviceMemory *mem_out,
                             VkCommandBuffer *sec_out, VkCommandBuffer *upload_out,
                             VkCommandBuffer *read_out)
{
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferInheritanceInfo ii = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO
	};
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkBufferImageCopy region = { 0 };
	VkMemoryRequirements req;
	VkCommandBuffer prim[2];
	VkImage img;

	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = VK_FORMAT_R32_UINT;
	ici.extent.width = ici.extent.height = VKT_IW;
	ici.extent.depth = 1;
	ici.mipLevels = ici.arrayLayers = 1;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(c, vkCreateImage(c->device, &ici, NULL, &img));
	vkGetImageMemoryRequirements(c->device, img, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0,
	                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, mem_out));
	VKP_CHECK(c, vkBindImageMemory(c->device, img, *mem_out, 0));

	region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	region.imageSubresource.layerCount = 1;
	region.imageExtent.width = region.imageExtent.height = VKT_IW;
	region.imageExtent.depth = 1;

	ai.commandPool = pool;
	ai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
	ai.commandBufferCount = 1;
	VKP_CHECK(c, vkAllocateCommandBuffers(c->device, &ai, sec_out));
	bi.pInheritanceInfo = &ii;
	VKP_CHECK(c, vkBeginCommandBuffer(*sec_out, &bi));
	vkt_image_barrier(*sec_out, img, VK_IMAGE_LAYOUT_UNDEFINED,
	                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdCopyBufferToImage(*sec_out, src->buf, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
	                       &region);
	vkt_image_barrier(*sec_out, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	                  VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
	                  VK_ACCESS_TRANSFER_READ_BIT);
	VKP_CHECK(c, vkEndCommandBuffer(*sec_out));

	ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	ai.commandBufferCount = 2;
	VKP_CHECK(c, vkAllocateCommandBuffers(c->device, &ai, prim));
	bi.pInheritanceInfo = NULL;
	VKP_CHECK(c, vkBeginCommandBuffer(prim[0], &bi));
	vkCmdExecuteCommands(prim[0], 1, sec_out);
	VKP_CHECK(c, vkEndCommandBuffer(prim[0]));
	VKP_CHECK(c, vkBeginCommandBuffer(prim[1], &bi));
	vkCmdCopyImageToBuffer(prim[1], img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, read->buf, 1,
	                       &region);
	VKP_CHECK(c, vkEndCommandBuffer(prim[1]));
	*upload_out = prim[0];
	*read_out = prim[1];
	return img;
}

/* --frame-secondaries: VKT_FS_P primaries begun before their VKT_FS_S
 * secondaries each (primary p executes secondaries p * VKT_FS_S ...), and
 * one more executing the last secondary (VKT_FS_LAST), recorded early;
 * secondary k fills word k of read. */
#define VKT_FS_P 4u
#define VKT_FS_S 4u
#define VKT_FS_LAST (VKT_FS_P * VKT_FS_S)
typedef struct vkt_frame_sec {
	VkCommandBuffer prim[VKT_FS_P + 1], sec[VKT_FS_LAST + 1];
	vkp_buffer read;
} vkt_frame_sec;

static uint32_t vkt_fs_value(uint32_t k, uint32_t r)
{
	return 0x5ec00000u + k * 0x10000u + r;
}

static void vkt_fs_secondary(const vkp_ctx *c, vkt_frame_sec *f, uint32_t k, uint32_t r)
{
	VkCommandBufferInheritanceInfo inh = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO
	};
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	bi.pInheritanceInfo = &inh;
	VKP_CHECK(c, vkBeginCommandBuffer(f->sec[k], &bi));
	vkCmdFillBuffer(f->sec[k], f->read.buf, 4 * k, 4, vkt_fs_value(k, r));
	VKP_CHECK(c, vkEndCommandBuffer(f->sec[k]));
}

/* Round r's recording of primary p (and, but for the last, of its
 * secondaries). */
static void vkt_fs_primary(const vkp_ctx *c, vkt_frame_sec *f, uint32_t p, uint32_t r)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	uint32_t j, first = p < VKT_FS_P ? p * VKT_FS_S : VKT_FS_LAST;
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(c, vkBeginCommandBuffer(f->prim[p], &bi));
	for (j = 0; p < VKT_FS_P && j < VKT_FS_S; j++)
		vkt_fs_secondary(c, f, first + j, r);
	vkCmdExecuteCommands(f->prim[p], p < VKT_FS_P ? VKT_FS_S : 1, &f->sec[first]);
	bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.srcQueueFamilyIndex = bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = f->read.buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(f->prim[p], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
	                     0, 0, NULL, 1, &bmb, 0, NULL);
	VKP_CHECK(c, vkEndCommandBuffer(f->prim[p]));
}

/* --template: vkp_compute_set_write through template t
 * (vkp_compute_set_template). */
static void vkt_set_write_template(const vkp_ctx *c, VkDescriptorUpdateTemplate t,
                                   VkDescriptorSet set, const vkp_buffer *params,
                                   const vkp_buffer *inputs, const vkp_buffer *outputs)
{
	VkDescriptorBufferInfo dbi[3];
	dbi[0] = (VkDescriptorBufferInfo){ params->buf, 0, 16 };
	dbi[1] = (VkDescriptorBufferInfo){ inputs->buf, 0, inputs->size };
	dbi[2] = (VkDescriptorBufferInfo){ outputs->buf, 0, outputs->size };
	vkUpdateDescriptorSetWithTemplate(c->device, set, t, dbi);
}

/* A host-visible input buffer filled with round r's inputs. */
static void vkt_inputs(const vkp_ctx *c, vkp_buffer *b, uint32_t size, uint32_t r)
{
	uint32_t i, *x;
	vkp_buffer_create(c, b, (VkDeviceSize)size * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	x = b->map;
	for (i = 0; i < size; i++)
		x[i] = vkp_compute_input(i, r);
}

int main(int argc, char **argv)
{
	uint32_t rounds = 12, size = 1024, r, i;
	vkp_ctx c;
	vkp_buffer params, fixed_in, in[2], work, readback, keep = { 0 };
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 3 },
		                               { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 6 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkDescriptorSetLayout dsl, dsls[3];
	VkDescriptorPool pool;
	/* 0: the fixed input, 1: the churning one, 2: --template's, once */
	VkDescriptorSet sets[3];
	VkDescriptorUpdateTemplate tmpl = VK_NULL_HANDLE;
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cbs[2]; /* 0: recorded once, 1: recorded in odd rounds */
	VkFence fence;
	VkSemaphore timeline = VK_NULL_HANDLE;
	int use_timeline = 0, orphans = 0, secondary = 0, timestamps = 0;
	VkQueryPool qpool = VK_NULL_HANDLE;
	int occlusion = 0, statistics = 0, submit2 = 0, query_secondary = 0, host_reset = 0;
	uint32_t reset_round = 0;
	int primitives = 0, xfb = 0, frame_secondaries = 0, use_template = 0;
	vkt_frame_sec fs;
	uint32_t pg_values = 1; /* values a query: 2 for --xfb's stream query */
	VkQueryPool pg_pool = VK_NULL_HANDLE;
	VkCommandBuffer pg_cb = VK_NULL_HANDLE, pg_copy = VK_NULL_HANDLE;
	VkRenderPass pg_rp = VK_NULL_HANDLE;
	VkFramebuffer pg_fb = VK_NULL_HANDLE;
	VkPipelineLayout pg_layout = VK_NULL_HANDLE;
	VkPipeline pg_pipe = VK_NULL_HANDLE;
	vkp_buffer pg_vb, pg_read, pg_xfb;
	/* occ_redo[q]: begins and ends occlusion query q (no reset);
	 * occ_unset: executes occ_unset_sec, which resets query 1 */
	VkCommandBuffer occ_sec = VK_NULL_HANDLE, occ_redo[2] = { VK_NULL_HANDLE, VK_NULL_HANDLE };
	VkCommandBuffer occ_unset = VK_NULL_HANDLE, occ_unset_sec = VK_NULL_HANDLE;
	VkQueryPool st_pool = VK_NULL_HANDLE;
	VkCommandBuffer st_cb = VK_NULL_HANDLE, st_copy = VK_NULL_HANDLE;
	vkp_buffer st_read;
	VkQueryPool occ_pool = VK_NULL_HANDLE;
	VkCommandBuffer occ_cb = VK_NULL_HANDLE, occ_copy = VK_NULL_HANDLE;
	vkp_buffer occ_read;
	VkCommandBuffer ts_cb = VK_NULL_HANDLE;
	VkFramebuffer orphan_fb = VK_NULL_HANDLE;
	VkBufferView orphan_bv = VK_NULL_HANDLE;
	uint32_t orphan_round = 0;
	vkp_buffer img_src, img_read;
	VkImage img = VK_NULL_HANDLE;
	VkDeviceMemory img_mem = VK_NULL_HANDLE;
	VkCommandBuffer img_sec = VK_NULL_HANDLE, img_upload = VK_NULL_HANDLE,
	                img_readcb = VK_NULL_HANDLE;
	XXH3_state_t *hs;
	uint64_t hash;

	for (i = 1; i < (uint32_t)argc; i++) {
		int k = (int)i;
		if (!strcmp(argv[i], "--rounds")) {
			rounds = vkp_parse_u32("vk_trim_churn", argv[i], vkp_next_arg(argc, argv, &k), 1,
			                       10000);
		} else if (!strcmp(argv[i], "--size")) {
			size = vkp_parse_u32("vk_trim_churn", argv[i], vkp_next_arg(argc, argv, &k), 64,
			                     1u << 20);
		} else if (!strcmp(argv[i], "--timeline")) {
			use_timeline = 1;
		} else if (!strcmp(argv[i], "--orphans")) {
			orphans = 1;
		} else if (!strcmp(argv[i], "--secondary")) {
			secondary = 1;
		} else if (!strcmp(argv[i], "--timestamps")) {
			timestamps = 1;
		} else if (!strcmp(argv[i], "--occlusion")) {
			occlusion = 1;
		} else if (!strcmp(argv[i], "--statistics")) {
			statistics = 1;
		} else if (!strcmp(argv[i], "--submit2")) {
			submit2 = 1;
		} else if (!strcmp(argv[i], "--query-secondary")) {
			query_secondary = 1;
		} else if (!strcmp(argv[i], "--host-reset")) {
			host_reset = 1;
		} else if (!strcmp(argv[i], "--primitives")) {
			primitives = 1;
		} else if (!strcmp(argv[i], "--xfb")) {
			xfb = 1;
		} else if (!strcmp(argv[i], "--frame-secondaries")) {
			frame_secondaries = 1;
		} else if (!strcmp(argv[i], "--template")) {
			use_template = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			vkt_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_trim_churn: unknown option '%s'\n", argv[i]);
			vkt_usage(stderr);
			return 2;
		}
		i = (uint32_t)k;
	}
	if (submit2 && use_timeline) {
		fprintf(stderr, "vk_trim_churn: --submit2 does not go with --timeline\n");
		return 2;
	}
	if (primitives && xfb) {
		fprintf(stderr, "vk_trim_churn: --primitives does not go with --xfb\n");
		return 2;
	}
	if (xfb) {
		primitives = 1; /* the same draw, submits and reads */
		pg_values = 2;
	}
	if ((query_secondary || host_reset) && !occlusion) {
		fprintf(stderr, "vk_trim_churn: --query-secondary and --host-reset need --occlusion\n");
		return 2;
	}

	vkp_ctx_init(&c, "vk_trim_churn",
	             (use_timeline ? VKP_TIMELINE : 0) |
	                 (occlusion || primitives ? VKP_NEED_GRAPHICS : 0) |
	                 (xfb ? VKP_XFB : primitives ? VKP_PRIMITIVES : 0) |
	                 (statistics ? VKP_PIPELINE_STATS : 0) | (submit2 ? VKP_SYNC2 : 0) |
	                 (host_reset ? VKP_HOST_QUERY_RESET : 0));
	if (use_timeline) {
		VkSemaphoreTypeCreateInfo sti = { VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, NULL,
			                              VK_SEMAPHORE_TYPE_TIMELINE, 0 };
		VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &sti, 0 };
		VKP_CHECK(&c, vkCreateSemaphore(c.device, &sci, NULL, &timeline));
	}
	vkp_buffer_create(&c, &params, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 1);
	vkt_inputs(&c, &fixed_in, size, 0);
	vkp_buffer_create(&c, &work, (VkDeviceSize)size * 4,
	                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0,
	                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	vkp_buffer_create(&c, &readback, (VkDeviceSize)size * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);

	dsl = vkp_compute_set_layout(&c);
	dpci.maxSets = 3;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsls[0] = dsls[1] = dsls[2] = dsl;
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = use_template ? 3 : 2;
	dsai.pSetLayouts = dsls;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, sets));
	if (use_template) {
		VkDescriptorUpdateTemplate once = vkp_compute_set_template(&c, dsl);
		vkt_set_write_template(&c, once, sets[0], &params, &fixed_in, &work);
		vkDestroyDescriptorUpdateTemplate(c.device, once, NULL);
	} else {
		vkp_compute_set_write(&c, sets[0], &params, &fixed_in, &work);
	}
	if (use_template) {
		vkp_buffer gone;
		tmpl = vkp_compute_set_template(&c, dsl);
		vkt_inputs(&c, &gone, size, 0);
		vkt_set_write_template(&c, tmpl, sets[2], &params, &gone, &work);
		vkp_buffer_destroy(&c, &gone);
		/* made right after: a driver whose handles are addresses gives it
		 * the destroyed buffer's (lavapipe, with glibc's allocator) */
		vkt_inputs(&c, &keep, size, 0);
	}

	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_compute.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);
	vkDestroyShaderModule(c.device, mod, NULL); /* the pipeline outlives it */

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 2;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, cbs));
	VKP_CHECK(&c, vkBeginCommandBuffer(cbs[0], &bi));
	vkp_compute_record(cbs[0], pipe, layout, sets[0], size, &work, &readback);
	VKP_CHECK(&c, vkEndCommandBuffer(cbs[0]));
	fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));
	if (orphans) {
		vkt_orphans(&c, &orphan_fb, &orphan_bv);
		orphan_round = rounds > 4 ? rounds - 4 : 0;
	}
	if (secondary) {
		uint32_t *w;
		vkp_buffer_create(&c, &img_src, VKT_IW * VKT_IW * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		vkp_buffer_create(&c, &img_read, VKT_IW * VKT_IW * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		w = img_src.map;
		for (i = 0; i < VKT_IW * VKT_IW; i++)
			w[i] = vkt_texel(i);
		img = vkt_secondary(&c, cpool, &img_src, &img_read, &img_mem, &img_sec, &img_upload,
		                    &img_readcb);
	}
	if (timestamps) {
		VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
		qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
		qci.queryCount = 2;
		VKP_CHECK(&c, vkCreateQueryPool(c.device, &qci, NULL, &qpool));
		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &ts_cb));
		VKP_CHECK(&c, vkBeginCommandBuffer(ts_cb, &bi));
		vkCmdResetQueryPool(ts_cb, qpool, 0, 2);
		vkCmdWriteTimestamp(ts_cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qpool, 0);
		vkCmdWriteTimestamp(ts_cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qpool, 1);
		VKP_CHECK(&c, vkEndCommandBuffer(ts_cb));
	}

	if (occlusion) {
		VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
		VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
		qci.queryType = VK_QUERY_TYPE_OCCLUSION;
		qci.queryCount = 3;
		VKP_CHECK(&c, vkCreateQueryPool(c.device, &qci, NULL, &occ_pool));
		vkp_buffer_create(&c, &occ_read, 72, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &occ_cb));
		VKP_CHECK(&c, vkBeginCommandBuffer(occ_cb, &bi));
		vkCmdResetQueryPool(occ_cb, occ_pool, 0, 3);
		for (i = 0; i < 2; i++) {
			vkCmdBeginQuery(occ_cb, occ_pool, i, 0);
			vkCmdEndQuery(occ_cb, occ_pool, i);
		}
		VKP_CHECK(&c, vkEndCommandBuffer(occ_cb));
		reset_round = rounds > 5 ? rounds - 5 : 1;
		for (i = 0; i < 2; i++) {
			if (!(i == 0 ? host_reset : query_secondary))
				continue;
			VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &occ_redo[i]));
			VKP_CHECK(&c, vkBeginCommandBuffer(occ_redo[i], &bi));
			vkCmdBeginQuery(occ_redo[i], occ_pool, i, 0);
			vkCmdEndQuery(occ_redo[i], occ_pool, i);
			VKP_CHECK(&c, vkEndCommandBuffer(occ_redo[i]));
		}
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &occ_copy));
		if (query_secondary) {
			VkCommandBufferInheritanceInfo inh = {
				.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO
			};
			VkCommandBufferBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
			sbi.pInheritanceInfo = &inh;
			cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
			VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &occ_sec));
			cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
			VKP_CHECK(&c, vkBeginCommandBuffer(occ_sec, &sbi));
		}
		{
			VkCommandBuffer rec = query_secondary ? occ_sec : occ_copy;
			if (!query_secondary)
				VKP_CHECK(&c, vkBeginCommandBuffer(occ_copy, &bi));
			vkCmdResetQueryPool(rec, occ_pool, 2, 1);
			vkCmdBeginQuery(rec, occ_pool, 2, 0);
			vkCmdEndQuery(rec, occ_pool, 2);
			vkCmdCopyQueryPoolResults(rec, occ_pool, 0, 3, occ_read.buf, 0, 16,
			                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT |
			                              VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
			vkCmdCopyQueryPoolResults(rec, occ_pool, 0, 3, occ_read.buf, 48, 8,
			                          VK_QUERY_RESULT_WAIT_BIT |
			                              VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
			if (query_secondary) {
				VKP_CHECK(&c, vkEndCommandBuffer(occ_sec));
				VKP_CHECK(&c, vkBeginCommandBuffer(occ_copy, &bi));
				vkCmdExecuteCommands(occ_copy, 1, &occ_sec);
			}
		}
		if (query_secondary) {
			VkCommandBufferInheritanceInfo inh = {
				.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO
			};
			VkCommandBufferBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
			sbi.pInheritanceInfo = &inh;
			cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
			VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &occ_unset_sec));
			cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
			VKP_CHECK(&c, vkBeginCommandBuffer(occ_unset_sec, &sbi));
			vkCmdResetQueryPool(occ_unset_sec, occ_pool, 1, 1);
			VKP_CHECK(&c, vkEndCommandBuffer(occ_unset_sec));
			VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &occ_unset));
			VKP_CHECK(&c, vkBeginCommandBuffer(occ_unset, &bi));
			vkCmdExecuteCommands(occ_unset, 1, &occ_unset_sec);
			VKP_CHECK(&c, vkEndCommandBuffer(occ_unset));
		}
		bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		bmb.srcQueueFamilyIndex = bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.buffer = occ_read.buf;
		bmb.size = VK_WHOLE_SIZE;
		vkCmdPipelineBarrier(occ_copy, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                     VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &bmb, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(occ_copy));
	}

	if (statistics) {
		VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
		VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
		qci.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
		qci.queryCount = 1;
		qci.pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;
		VKP_CHECK(&c, vkCreateQueryPool(c.device, &qci, NULL, &st_pool));
		vkp_buffer_create(&c, &st_read, 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &st_cb));
		VKP_CHECK(&c, vkBeginCommandBuffer(st_cb, &bi));
		vkCmdResetQueryPool(st_cb, st_pool, 0, 1);
		vkCmdBeginQuery(st_cb, st_pool, 0, 0);
		vkp_compute_record(st_cb, pipe, layout, sets[0], size, &work, &readback);
		vkCmdEndQuery(st_cb, st_pool, 0);
		VKP_CHECK(&c, vkEndCommandBuffer(st_cb));
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &st_copy));
		VKP_CHECK(&c, vkBeginCommandBuffer(st_copy, &bi));
		vkCmdCopyQueryPoolResults(st_copy, st_pool, 0, 1, st_read.buf, 0, 8,
		                          VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
		bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		bmb.srcQueueFamilyIndex = bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.buffer = st_read.buf;
		bmb.size = VK_WHOLE_SIZE;
		vkCmdPipelineBarrier(st_copy, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                     VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &bmb, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(st_copy));
	}

	if (primitives) {
		VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO };
		VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
		qci.queryType = xfb ? VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT
		                    : VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT;
		qci.queryCount = 1;
		VKP_CHECK(&c, vkCreateQueryPool(c.device, &qci, NULL, &pg_pool));
		vkp_buffer_create(&c, &pg_vb, 60, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		if (xfb)
			vkp_buffer_create(&c, &pg_xfb, 48, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
			                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
			                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
			                  0, 1);
		vkp_buffer_create(&c, &pg_read, 4 * (pg_values + 1), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &pg_cb));
		VKP_CHECK(&c, vkBeginCommandBuffer(pg_cb, &bi));
		vkt_primitives(&c, pg_cb, pg_pool, &pg_vb, xfb ? &pg_xfb : NULL, &pg_rp, &pg_fb,
		               &pg_layout, &pg_pipe);
		VKP_CHECK(&c, vkEndCommandBuffer(pg_cb));
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &pg_copy));
		VKP_CHECK(&c, vkBeginCommandBuffer(pg_copy, &bi));
		vkCmdCopyQueryPoolResults(pg_copy, pg_pool, 0, 1, pg_read.buf, 0, 4 * (pg_values + 1),
		                          VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
		bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		bmb.srcQueueFamilyIndex = bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.buffer = pg_read.buf;
		bmb.size = VK_WHOLE_SIZE;
		vkCmdPipelineBarrier(pg_copy, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                     VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &bmb, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(pg_copy));
	}

	if (frame_secondaries) {
		vkp_buffer_create(&c, &fs.read, 4 * (VKT_FS_LAST + 1), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		cbai.commandBufferCount = VKT_FS_P + 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, fs.prim));
		cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		cbai.commandBufferCount = VKT_FS_LAST + 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, fs.sec));
		cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		vkt_fs_secondary(&c, &fs, VKT_FS_LAST, 0);
	}

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	memset(in, 0, sizeof(in));
	for (r = 0; r < rounds; r++) {
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		vkp_buffer *cur = &in[r % 2], *prev = &in[(r + 1) % 2];
		const uint32_t *x, *y = readback.map;
		uint32_t *pw = params.map;
		int odd = r % 2;

		VkCommandBuffer subs[6];
		VKP_CHECK(&c, vkResetFences(c.device, 1, &fence));
		if (orphans && r == orphan_round) {
			vkDestroyFramebuffer(c.device, orphan_fb, NULL);
			vkDestroyBufferView(c.device, orphan_bv, NULL);
		}
		if (secondary && r > 0)
			memset(img_read.map, 0, VKT_IW * VKT_IW * 4);
		/* a new input buffer; the set's update that named the previous
		 * one names a destroyed buffer from now on */
		vkt_inputs(&c, cur, size, r);
		if (use_template)
			vkt_set_write_template(&c, tmpl, sets[1], &params, cur, &work);
		else
			vkp_compute_set_write(&c, sets[1], &params, cur, &work);
		if (prev->buf)
			vkp_buffer_destroy(&c, prev);
		pw[0] = size;
		pw[1] = r;
		vkp_buffer_flush(&c, &params);
		if (odd) {
			VKP_CHECK(&c, vkResetCommandBuffer(cbs[1], 0));
			VKP_CHECK(&c, vkBeginCommandBuffer(cbs[1], &bi));
			vkp_compute_record(cbs[1], pipe, layout, sets[1], size, &work, &readback);
			VKP_CHECK(&c, vkEndCommandBuffer(cbs[1]));
		}
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cbs[odd];
		if (secondary) {
			/* round 0: the upload first; later rounds: the read after */
			subs[0] = r == 0 ? img_upload : cbs[odd];
			subs[1] = r == 0 ? cbs[odd] : img_readcb;
			si.commandBufferCount = 2;
			si.pCommandBuffers = subs;
		}
		if (timestamps && r == 0) {
			if (si.commandBufferCount == 1)
				subs[0] = cbs[odd];
			subs[si.commandBufferCount++] = ts_cb;
			si.pCommandBuffers = subs;
		}
		if (occlusion) {
			if (si.commandBufferCount == 1)
				subs[0] = cbs[odd];
			if (host_reset && r == reset_round) {
				uint64_t got[2] = { 7, 7 };
				VkResult res;
				vkResetQueryPool(c.device, occ_pool, 0, 1);
				res = vkGetQueryPoolResults(c.device, occ_pool, 0, 1, sizeof(got), got, 16,
				                            VK_QUERY_RESULT_64_BIT |
				                                VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
				if (res != VK_NOT_READY || got[1] != 0)
					vkp_die(&c, "round %u: occlusion query 0 after a host reset: %s, "
					        "available %llu", (unsigned)r, vkp_result_name(res),
					        (unsigned long long)got[1]);
				subs[si.commandBufferCount++] = occ_redo[0];
			}
			if (query_secondary && r == reset_round + 1)
				subs[si.commandBufferCount++] = occ_redo[1];
			subs[si.commandBufferCount++] = r == 0 ? occ_cb : occ_copy;
			if (query_secondary && r == reset_round)
				subs[si.commandBufferCount++] = occ_unset;
			si.pCommandBuffers = subs;
			if (r > 0)
				memset(occ_read.map, 0, 72);
		}
		if (statistics) {
			if (si.commandBufferCount == 1)
				subs[0] = cbs[odd];
			subs[si.commandBufferCount++] = r == 0 ? st_cb : st_copy;
			si.pCommandBuffers = subs;
			if (r > 0)
				memset(st_read.map, 0, 8);
		}
		if (primitives) {
			if (si.commandBufferCount == 1)
				subs[0] = cbs[odd];
			subs[si.commandBufferCount++] = r == 0 ? pg_cb : pg_copy;
			si.pCommandBuffers = subs;
			if (r > 0)
				memset(pg_read.map, 0, 4 * (pg_values + 1));
		}
		if (use_timeline) {
			/* round r - 1 left the counter at r: wait for it from the host,
			 * and have this submit move it to r + 1 */
			uint64_t wait_value = r, signal_value = r + 1, now = 0;
			VkSemaphoreWaitInfo wi = { VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, NULL, 0, 1,
				                       &timeline, &wait_value };
			static VkTimelineSemaphoreSubmitInfo tsi = {
				VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO, NULL, 0, NULL, 0, NULL
			};
			VKP_CHECK(&c, vkWaitSemaphores(c.device, &wi, UINT64_MAX));
			VKP_CHECK(&c, vkGetSemaphoreCounterValue(c.device, timeline, &now));
			if (now != r)
				vkp_die(&c, "round %u: the timeline reads %llu, expected %u", (unsigned)r,
				        (unsigned long long)now, (unsigned)r);
			tsi.signalSemaphoreValueCount = 1;
			tsi.pSignalSemaphoreValues = &signal_value;
			si.pNext = &tsi;
			si.signalSemaphoreCount = 1;
			si.pSignalSemaphores = &timeline;
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		} else if (submit2) {
			VKP_CHECK(&c, vkt_submit2(&c, &si, fence));
		} else {
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		}
		VKP_CHECK(&c, vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX));
		vkp_buffer_invalidate(&c, &readback);
		x = odd ? cur->map : fixed_in.map;
		for (i = 0; i < size; i++) {
			uint32_t want = vkp_compute_mix(x[i], r);
			if (y[i] != want)
				vkp_die(&c, "round %u: result %u is 0x%08x, expected 0x%08x", (unsigned)r,
				        (unsigned)i, y[i], want);
		}
		if (XXH3_64bits_update(hs, y, (size_t)size * 4) != XXH_OK)
			vkp_die(&c, "hash update failed");
		if (timestamps && r > 0) {
			uint64_t ts[2] = { 0, 0 };
			VKP_CHECK(&c, vkGetQueryPoolResults(c.device, qpool, 0, 2, sizeof(ts), ts,
			                                    sizeof(ts[0]),
			                                    VK_QUERY_RESULT_64_BIT |
			                                        VK_QUERY_RESULT_WAIT_BIT));
			if (ts[1] < ts[0])
				vkp_die(&c, "round %u: timestamp 1 (%llu) is before timestamp 0 (%llu)",
				        (unsigned)r, (unsigned long long)ts[1], (unsigned long long)ts[0]);
		}
		if (occlusion && r > 0) {
			uint64_t got[6] = { 0, 0, 0, 0, 0, 0 };
			const uint64_t *w64 = occ_read.map;
			const uint32_t *w32 = (const uint32_t *)occ_read.map + 12;
			if (query_secondary && r == reset_round) {
				/* query 1 was reset after the copies: those compare with
				 * what the host read before it (round r - 1's) */
				VkResult res = vkGetQueryPoolResults(c.device, occ_pool, 1, 1, 16, got + 2, 16,
				                                     VK_QUERY_RESULT_64_BIT |
				                                         VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
				if (res != VK_NOT_READY || got[3] != 0)
					vkp_die(&c, "round %u: occlusion query 1 after a reset in a secondary: "
					        "%s, available %llu", (unsigned)r, vkp_result_name(res),
					        (unsigned long long)got[3]);
				got[3] = 1;
				got[2] = w64[2];
				VKP_CHECK(&c, vkGetQueryPoolResults(c.device, occ_pool, 0, 1, 16, got, 16,
				                                    VK_QUERY_RESULT_64_BIT |
				                                        VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
				VKP_CHECK(&c, vkGetQueryPoolResults(c.device, occ_pool, 2, 1, 16, got + 4, 16,
				                                    VK_QUERY_RESULT_64_BIT |
				                                        VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
			} else {
				VKP_CHECK(&c, vkGetQueryPoolResults(c.device, occ_pool, 0, 3, sizeof(got), got,
				                                    16, VK_QUERY_RESULT_64_BIT |
				                                            VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
			}
			for (i = 0; i < 3; i++)
				if (got[2 * i + 1] != 1 || w64[2 * i] != got[2 * i] || w64[2 * i + 1] != 1 ||
				    w32[2 * i] != (uint32_t)got[2 * i] || w32[2 * i + 1] != 1)
					vkp_die(&c, "round %u: occlusion query %u: host %llu (available %llu), "
					        "copied %llu (%llu) and %u (%u)", (unsigned)r, (unsigned)i,
					        (unsigned long long)got[2 * i],
					        (unsigned long long)got[2 * i + 1],
					        (unsigned long long)w64[2 * i], (unsigned long long)w64[2 * i + 1],
					        (unsigned)w32[2 * i], (unsigned)w32[2 * i + 1]);
			if (XXH3_64bits_update(hs, occ_read.map, 72) != XXH_OK)
				vkp_die(&c, "hash update failed");
		}
		if (statistics && r > 0) {
			uint64_t got[2] = { 0, 0 };
			const uint32_t *w32 = st_read.map;
			uint64_t want = (uint64_t)((size + 63) / 64) * 64;
			VKP_CHECK(&c, vkGetQueryPoolResults(c.device, st_pool, 0, 1, sizeof(got), got, 16,
			                                    VK_QUERY_RESULT_64_BIT |
			                                        VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
			if (got[0] != want || got[1] != 1 || w32[0] != want || w32[1] != 1)
				vkp_die(&c, "round %u: compute invocations: host %llu (available %llu), "
				        "copied %u (%u), dispatched %llu", (unsigned)r,
				        (unsigned long long)got[0], (unsigned long long)got[1],
				        (unsigned)w32[0], (unsigned)w32[1], (unsigned long long)want);
			if (XXH3_64bits_update(hs, st_read.map, 8) != XXH_OK)
				vkp_die(&c, "hash update failed");
		}
		if (primitives && r > 0) {
			/* values, then availability: every word is 1 */
			uint64_t got[3] = { 0, 0, 0 };
			const uint32_t *w32 = pg_read.map;
			uint32_t v;
			VKP_CHECK(&c, vkGetQueryPoolResults(c.device, pg_pool, 0, 1, 8 * (pg_values + 1),
			                                    got, 8 * (pg_values + 1),
			                                    VK_QUERY_RESULT_64_BIT |
			                                        VK_QUERY_RESULT_WITH_AVAILABILITY_BIT));
			for (v = 0; v <= pg_values; v++)
				if (got[v] != 1 || w32[v] != 1)
					vkp_die(&c, "round %u: %s word %u: host %llu, copied %u, drawn 1",
					        (unsigned)r,
					        xfb ? "transform feedback stream" : "primitives generated",
					        (unsigned)v, (unsigned long long)got[v], (unsigned)w32[v]);
			if (XXH3_64bits_update(hs, pg_read.map, 4 * (pg_values + 1)) != XXH_OK ||
			    (xfb && XXH3_64bits_update(hs, pg_xfb.map, 48) != XXH_OK))
				vkp_die(&c, "hash update failed");
		}
		if (frame_secondaries) {
			VkSubmitInfo fsi = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
			const uint32_t *w = fs.read.map;
			memset(fs.read.map, 0, 4 * (VKT_FS_LAST + 1));
			for (i = 0; i <= VKT_FS_P; i++)
				vkt_fs_primary(&c, &fs, i, r);
			fsi.commandBufferCount = VKT_FS_P + 1;
			fsi.pCommandBuffers = fs.prim;
			VKP_CHECK(&c, vkResetFences(c.device, 1, &fence));
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &fsi, fence));
			VKP_CHECK(&c, vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX));
			for (i = 0; i <= VKT_FS_LAST; i++)
				if (w[i] != vkt_fs_value(i, r))
					vkp_die(&c, "round %u: secondary %u filled 0x%08x, expected 0x%08x",
					        (unsigned)r, (unsigned)i, w[i], vkt_fs_value(i, r));
			if (XXH3_64bits_update(hs, w, 4 * (VKT_FS_LAST + 1)) != XXH_OK)
				vkp_die(&c, "hash update failed");
			/* the next round's, early: the last primary's recording is
			 * invalid until that round records it again */
			vkt_fs_secondary(&c, &fs, VKT_FS_LAST, r + 1);
		}
		if (secondary && r > 0) {
			const uint32_t *t = img_read.map;
			for (i = 0; i < VKT_IW * VKT_IW; i++)
				if (t[i] != vkt_texel(i))
					vkp_die(&c, "round %u: image texel %u is 0x%08x, expected 0x%08x",
					        (unsigned)r, (unsigned)i, t[i], vkt_texel(i));
			if (XXH3_64bits_update(hs, t, VKT_IW * VKT_IW * 4) != XXH_OK)
				vkp_die(&c, "hash update failed");
		}
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_trim_churn: rounds %u size %u hash 0x%016llx\n", (unsigned)rounds,
	       (unsigned)size, (unsigned long long)hash);

	XXH3_freeState(hs);
	if (qpool)
		vkDestroyQueryPool(c.device, qpool, NULL);
	if (st_pool) {
		vkDestroyQueryPool(c.device, st_pool, NULL);
		vkp_buffer_destroy(&c, &st_read);
	}
	if (pg_pool) {
		vkDestroyQueryPool(c.device, pg_pool, NULL);
		vkDestroyPipeline(c.device, pg_pipe, NULL);
		vkDestroyPipelineLayout(c.device, pg_layout, NULL);
		vkDestroyFramebuffer(c.device, pg_fb, NULL);
		vkDestroyRenderPass(c.device, pg_rp, NULL);
		vkp_buffer_destroy(&c, &pg_read);
		vkp_buffer_destroy(&c, &pg_vb);
		if (xfb)
			vkp_buffer_destroy(&c, &pg_xfb);
	}
	if (frame_secondaries)
		vkp_buffer_destroy(&c, &fs.read);
	if (tmpl) {
		vkDestroyDescriptorUpdateTemplate(c.device, tmpl, NULL);
		vkp_buffer_destroy(&c, &keep);
	}
	if (occ_pool) {
		vkDestroyQueryPool(c.device, occ_pool, NULL);
		vkp_buffer_destroy(&c, &occ_read);
	}
	if (secondary) {
		vkDestroyImage(c.device, img, NULL);
		vkFreeMemory(c.device, img_mem, NULL);
		vkp_buffer_destroy(&c, &img_read);
		vkp_buffer_destroy(&c, &img_src);
	}
	if (timeline)
		vkDestroySemaphore(c.device, timeline, NULL);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, pool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	for (i = 0; i < 2; i++)
		if (in[i].buf)
			vkp_buffer_destroy(&c, &in[i]);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &work);
	vkp_buffer_destroy(&c, &fixed_in);
	vkp_buffer_destroy(&c, &params);
	vkp_ctx_finish(&c);
	return 0;
}
