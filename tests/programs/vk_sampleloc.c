/*
 * vk_sampleloc - custom sample locations (VK_EXT_sample_locations) for the
 * capture and replay tests: a render pass with a 4x multisampled colour
 * attachment resolved into a single-sampled one, a graphics pipeline
 * (tests/shaders/vk_tri.vert + vk_tri.frag) with 4 samples, custom sample
 * locations enabled and the locations left dynamic
 * (VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_EXT), set with
 * vkCmdSetSampleLocationsEXT before the triangle's draw.  The resolved
 * image is copied into a HOST_VISIBLE buffer and read back after a fence
 * wait (the capture checkpoints it), and its XXH3-64 hash printed:
 * "vk_sampleloc: hash 0x..." ("dynamic enable hash" with --dynamic-enable).
 *
 * usage: vk_sampleloc [--dynamic-enable] [--skip-set]
 *   --dynamic-enable  the enable left dynamic too
 *                     (VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_ENABLE_EXT, through
 *                     VK_EXT_extended_dynamic_state3's
 *                     extendedDynamicState3SampleLocationsEnable), set on
 *                     with vkCmdSetSampleLocationsEnableEXT
 *   --skip-set        leave vkCmdSetSampleLocationsEXT out: invalid usage
 *                     (VUID-vkCmdDraw-None-06666), for looking at what a
 *                     driver does; the refusal tests cut the call out of a
 *                     good trace instead of running this
 * Exit 3, saying why, where the device lacks VK_EXT_sample_locations, 4
 * samples in its sampleLocationSampleCounts or the colour format's
 * sample counts, or (with --dynamic-enable) the feature; 0 done, 1 a
 * Vulkan failure, 2 usage.
 */
#include "tests/programs/vk_prog.h"

#define VKS_FORMAT VK_FORMAT_R8G8B8A8_UNORM
#define VKS_SIZE 64u
#define VKS_SAMPLES VK_SAMPLE_COUNT_4_BIT

typedef struct vks_vertex {
	float pos[2];
	float color[3];
} vks_vertex;

typedef struct vks_push {
	float offset[2];
	float scale;
} vks_push;

static void vks_usage(FILE *f)
{
	fprintf(f, "usage: vk_sampleloc [--dynamic-enable] [--skip-set]\n"
	           "  --dynamic-enable  the sample locations enable dynamic too (extended dynamic state 3)\n"
	           "  --skip-set        leave vkCmdSetSampleLocationsEXT out (invalid usage)\n"
	           "exit 3 where the device lacks VK_EXT_sample_locations with 4 samples\n");
}

/* Exit 3 with a message: the device cannot run this program. */
static void vks_unsupported(const vkp_ctx *c, const char *why)
{
	fprintf(stderr, "vk_sampleloc: device '%s' %s: nothing to test here\n", c->dev_props.deviceName, why);
	exit(3);
}

static int vks_has_ext(const vkp_ctx *c, const char *name)
{
	VkExtensionProperties *p;
	uint32_t n = 0, i;
	int found = 0;
	VKP_CHECK(c, vkEnumerateDeviceExtensionProperties(c->phys, NULL, &n, NULL));
	p = calloc(n ? n : 1, sizeof(*p));
	if (!p)
		vkp_die(c, "out of memory");
	VKP_CHECK(c, vkEnumerateDeviceExtensionProperties(c->phys, NULL, &n, p));
	for (i = 0; i < n && !found; i++)
		found = !strcmp(p[i].extensionName, name);
	free(p);
	return found;
}

/* Instance and device with VK_EXT_sample_locations (and, with dyn_enable,
 * VK_EXT_extended_dynamic_state3's sample locations enable); exit 3 where
 * the device lacks them.  *sl_props: the device's sample location limits. */
static void vks_ctx_init(vkp_ctx *c, int dyn_enable, VkPhysicalDeviceSampleLocationsPropertiesEXT *sl_props)
{
	const char *exts[2];
	VkPhysicalDeviceExtendedDynamicState3FeaturesEXT f3 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT
	};
	VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f3 };
	VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		                               .pNext = sl_props };
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	VkPhysicalDeviceExtendedDynamicState3FeaturesEXT on3 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT,
		.extendedDynamicState3SampleLocationsEnable = VK_TRUE
	};
	VkPhysicalDevice devs[8];
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 8, nfam = 16, next = 0, i;
	float prio = 1.0f;
	VkResult r;

	memset(c, 0, sizeof(*c));
	c->prog = "vk_sampleloc";
	app.pApplicationName = c->prog;
	app.apiVersion = VK_API_VERSION_1_1;
	ici.pApplicationInfo = &app;
	VKP_CHECK(c, vkCreateInstance(&ici, NULL, &c->instance));
	r = vkEnumeratePhysicalDevices(c->instance, &ndev, devs);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(c, "no Vulkan physical device");
	c->phys = devs[0];
	vkGetPhysicalDeviceProperties(c->phys, &c->dev_props);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
	if (c->dev_props.apiVersion < VK_API_VERSION_1_1)
		vks_unsupported(c, "is not Vulkan 1.1");
	if (!vks_has_ext(c, VK_EXT_SAMPLE_LOCATIONS_EXTENSION_NAME))
		vks_unsupported(c, "offers no " VK_EXT_SAMPLE_LOCATIONS_EXTENSION_NAME);
	exts[next++] = VK_EXT_SAMPLE_LOCATIONS_EXTENSION_NAME;
	memset(sl_props, 0, sizeof(*sl_props));
	sl_props->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLE_LOCATIONS_PROPERTIES_EXT;
	vkGetPhysicalDeviceProperties2(c->phys, &p2);
	if (!(sl_props->sampleLocationSampleCounts & VKS_SAMPLES))
		vks_unsupported(c, "has no custom sample locations with 4 samples");
	if (!(c->dev_props.limits.framebufferColorSampleCounts & VKS_SAMPLES))
		vks_unsupported(c, "has no 4-sample colour attachments");
	if (dyn_enable) {
		if (!vks_has_ext(c, VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME))
			vks_unsupported(c, "offers no " VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME);
		vkGetPhysicalDeviceFeatures2(c->phys, &f2);
		if (!f3.extendedDynamicState3SampleLocationsEnable)
			vks_unsupported(c, "has no extendedDynamicState3SampleLocationsEnable");
		exts[next++] = VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME;
		dci.pNext = &on3;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &nfam, fams);
	for (i = 0; i < nfam && !(fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT); i++)
		;
	if (i == nfam)
		vkp_die(c, "device '%s' has no graphics queue", c->dev_props.deviceName);
	c->qfam = i;
	qci.queueFamilyIndex = i;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	dci.enabledExtensionCount = next;
	dci.ppEnabledExtensionNames = exts;
	VKP_CHECK(c, vkCreateDevice(c->phys, &dci, NULL, &c->device));
	vkGetDeviceQueue(c->device, c->qfam, 0, &c->queue);
}

static void vks_image(const vkp_ctx *c, VkSampleCountFlagBits samples, VkImageUsageFlags usage, VkImage *img,
                      VkDeviceMemory *mem, VkImageView *view)
{
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkImageViewCreateInfo ivci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkMemoryRequirements req;

	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = VKS_FORMAT;
	ici.extent = (VkExtent3D){ VKS_SIZE, VKS_SIZE, 1 };
	ici.mipLevels = 1;
	ici.arrayLayers = 1;
	ici.samples = samples;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = usage;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(c, vkCreateImage(c->device, &ici, NULL, img));
	vkGetImageMemoryRequirements(c->device, *img, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, mem));
	VKP_CHECK(c, vkBindImageMemory(c->device, *img, *mem, 0));
	ivci.image = *img;
	ivci.viewType = VK_IMAGE_VIEW_TYPE_2D;
	ivci.format = VKS_FORMAT;
	ivci.subresourceRange = (VkImageSubresourceRange){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	VKP_CHECK(c, vkCreateImageView(c->device, &ivci, NULL, view));
}

/* Four locations in the pixel, each clamped into the device's coordinate
 * range, far from the standard 4x pattern (so the edges resolve
 * differently). */
static void vks_locations(const VkPhysicalDeviceSampleLocationsPropertiesEXT *p, VkSampleLocationEXT loc[4])
{
	static const float xy[4][2] = { { 0.125f, 0.125f }, { 0.875f, 0.25f }, { 0.25f, 0.875f }, { 0.75f, 0.75f } };
	float lo = p->sampleLocationCoordinateRange[0], hi = p->sampleLocationCoordinateRange[1];
	for (int i = 0; i < 4; i++) {
		loc[i].x = xy[i][0] < lo ? lo : xy[i][0] > hi ? hi : xy[i][0];
		loc[i].y = xy[i][1] < lo ? lo : xy[i][1] > hi ? hi : xy[i][1];
	}
}

int main(int argc, char **argv)
{
	int dyn_enable = 0, skip_set = 0, i;
	vkp_ctx c;
	VkPhysicalDeviceSampleLocationsPropertiesEXT slp;
	PFN_vkCmdSetSampleLocationsEXT set_locations;
	PFN_vkCmdSetSampleLocationsEnableEXT set_enable = NULL;
	VkSampleLocationEXT loc[4];
	VkSampleLocationsInfoEXT sli = { .sType = VK_STRUCTURE_TYPE_SAMPLE_LOCATIONS_INFO_EXT };
	VkSubpassSampleLocationsEXT post;
	VkRenderPassSampleLocationsBeginInfoEXT rpsl = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_SAMPLE_LOCATIONS_BEGIN_INFO_EXT
	};
	vkp_buffer vbuf, readback;
	VkImage ms_img, res_img;
	VkDeviceMemory ms_mem, res_mem;
	VkImageView views[2];
	VkAttachmentDescription att[2];
	VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkAttachmentReference rref = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub;
	VkSubpassDependency dep;
	VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO };
	VkFramebufferCreateInfo fbci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(vks_push) };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkPipelineShaderStageCreateInfo stages[2];
	VkVertexInputBindingDescription vib = { 0, sizeof(vks_vertex), VK_VERTEX_INPUT_RATE_VERTEX };
	VkVertexInputAttributeDescription via[2] = {
		{ 0, 0, VK_FORMAT_R32G32_SFLOAT, 0 },
		{ 1, 0, VK_FORMAT_R32G32B32_SFLOAT, sizeof(float) * 2 },
	};
	VkPipelineVertexInputStateCreateInfo vis = { .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	VkPipelineInputAssemblyStateCreateInfo ias = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST
	};
	VkPipelineViewportStateCreateInfo vps = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, .viewportCount = 1, .scissorCount = 1
	};
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE, .lineWidth = 1.0f
	};
	VkPipelineSampleLocationsStateCreateInfoEXT pslci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_SAMPLE_LOCATIONS_STATE_CREATE_INFO_EXT,
		.sampleLocationsEnable = VK_TRUE
	};
	VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO, .pNext = &pslci,
		.rasterizationSamples = VKS_SAMPLES
	};
	VkPipelineColorBlendAttachmentState cba = {
		.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
		                  VK_COLOR_COMPONENT_A_BIT
	};
	VkPipelineColorBlendStateCreateInfo cbs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO, .attachmentCount = 1,
		.pAttachments = &cba
	};
	VkDynamicState dyn[4] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR,
		                      VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_EXT,
		                      VK_DYNAMIC_STATE_SAMPLE_LOCATIONS_ENABLE_EXT };
	VkPipelineDynamicStateCreateInfo ds = { .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO };
	VkGraphicsPipelineCreateInfo gpci = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkRenderPassBeginInfo rpbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .pNext = &rpsl };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkViewport vp = { 0, 0, (float)VKS_SIZE, (float)VKS_SIZE, 0.0f, 1.0f };
	VkRect2D scissor = { { 0, 0 }, { VKS_SIZE, VKS_SIZE } };
	VkClearValue clear[2];
	VkBufferImageCopy bic;
	VkDeviceSize zero = 0, bytes = (VkDeviceSize)VKS_SIZE * VKS_SIZE * 4;
	VkRenderPass rp;
	VkFramebuffer fb;
	VkPipelineLayout layout;
	VkShaderModule vs, fs;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	vks_push pc = { { 0.0f, 0.0f }, 1.0f };
	/* one thin triangle: most of its pixels are edge pixels */
	static const vks_vertex tri[3] = {
		{ { -0.9f, -0.7f }, { 1.0f, 0.2f, 0.1f } },
		{ { 0.85f, -0.2f }, { 0.1f, 1.0f, 0.3f } },
		{ { -0.4f, 0.9f }, { 0.2f, 0.3f, 1.0f } },
	};

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dynamic-enable")) {
			dyn_enable = 1;
		} else if (!strcmp(argv[i], "--skip-set")) {
			skip_set = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			vks_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_sampleloc: unknown option '%s'\n", argv[i]);
			vks_usage(stderr);
			return 2;
		}
	}
	vks_ctx_init(&c, dyn_enable, &slp);
	set_locations = (PFN_vkCmdSetSampleLocationsEXT)vkGetDeviceProcAddr(c.device, "vkCmdSetSampleLocationsEXT");
	if (dyn_enable)
		set_enable = (PFN_vkCmdSetSampleLocationsEnableEXT)vkGetDeviceProcAddr(
			c.device, "vkCmdSetSampleLocationsEnableEXT");
	if (!set_locations || (dyn_enable && !set_enable))
		vkp_die(&c, "the extensions are enabled but their commands are missing");

	/* the locations: one 1x1 grid (every device that has the sample
	 * count has at least that grid), the same before and after the
	 * subpass so that a device without variableSampleLocations accepts
	 * vkCmdSetSampleLocationsEXT (VUID-vkCmdSetSampleLocationsEXT-
	 * variableSampleLocations-01530) */
	vks_locations(&slp, loc);
	sli.sampleLocationsPerPixel = VKS_SAMPLES;
	sli.sampleLocationGridSize = (VkExtent2D){ 1, 1 };
	sli.sampleLocationsCount = 4;
	sli.pSampleLocations = loc;
	post.subpassIndex = 0;
	post.sampleLocationsInfo = sli;
	rpsl.postSubpassSampleLocationsCount = 1;
	rpsl.pPostSubpassSampleLocations = &post;
	pslci.sampleLocationsInfo = sli;

	vks_image(&c, VKS_SAMPLES, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, &ms_img, &ms_mem, &views[0]);
	vks_image(&c, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
	          &res_img, &res_mem, &views[1]);
	vkp_buffer_create(&c, &vbuf, sizeof(tri), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
	memcpy(vbuf.map, tri, sizeof(tri));
	vkp_buffer_create(&c, &readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);

	/* attachment 0: 4 samples, cleared, resolved into attachment 1 */
	memset(att, 0, sizeof(att));
	att[0].format = VKS_FORMAT;
	att[0].samples = VKS_SAMPLES;
	att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
	att[0].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	att[0].finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
	att[1] = att[0];
	att[1].samples = VK_SAMPLE_COUNT_1_BIT;
	att[1].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	att[1].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
	att[1].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	memset(&sub, 0, sizeof(sub));
	sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
	sub.colorAttachmentCount = 1;
	sub.pColorAttachments = &cref;
	sub.pResolveAttachments = &rref;
	/* the copy after the pass reads what the resolve stored */
	memset(&dep, 0, sizeof(dep));
	dep.srcSubpass = 0;
	dep.dstSubpass = VK_SUBPASS_EXTERNAL;
	dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
	dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	rpci.attachmentCount = 2;
	rpci.pAttachments = att;
	rpci.subpassCount = 1;
	rpci.pSubpasses = &sub;
	rpci.dependencyCount = 1;
	rpci.pDependencies = &dep;
	VKP_CHECK(&c, vkCreateRenderPass(c.device, &rpci, NULL, &rp));
	fbci.renderPass = rp;
	fbci.attachmentCount = 2;
	fbci.pAttachments = views;
	fbci.width = VKS_SIZE;
	fbci.height = VKS_SIZE;
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
	ds.dynamicStateCount = dyn_enable ? 4 : 3;
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
	VKP_CHECK(&c, vkCreateGraphicsPipelines(c.device, VK_NULL_HANDLE, 1, &gpci, NULL, &pipe));

	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
	memset(clear, 0, sizeof(clear));
	clear[0].color.float32[2] = 0.25f;
	clear[0].color.float32[3] = 1.0f;
	rpbi.renderPass = rp;
	rpbi.framebuffer = fb;
	rpbi.renderArea = scissor;
	rpbi.clearValueCount = 2;
	rpbi.pClearValues = clear;
	vkCmdBeginRenderPass(cb, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
	vkCmdSetViewport(cb, 0, 1, &vp);
	vkCmdSetScissor(cb, 0, 1, &scissor);
	if (dyn_enable)
		set_enable(cb, VK_TRUE);
	if (!skip_set)
		set_locations(cb, &sli);
	vkCmdBindVertexBuffers(cb, 0, 1, &vbuf.buf, &zero);
	vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(pc), &pc);
	vkCmdDraw(cb, 3, 1, 0, 0);
	vkCmdEndRenderPass(cb);
	memset(&bic, 0, sizeof(bic));
	bic.imageSubresource = (VkImageSubresourceLayers){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 };
	bic.imageExtent = (VkExtent3D){ VKS_SIZE, VKS_SIZE, 1 };
	vkCmdCopyImageToBuffer(cb, res_img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buf, 1, &bic);
	bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = readback.buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &bmb, 0,
	                     NULL);
	VKP_CHECK(&c, vkEndCommandBuffer(cb));
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
	vkp_fence_wait_reset(&c, fence);
	printf("vk_sampleloc: %shash 0x%016llx\n", dyn_enable ? "dynamic enable " : "",
	       (unsigned long long)XXH3_64bits(readback.map, (size_t)bytes));

	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, fs, NULL);
	vkDestroyShaderModule(c.device, vs, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyFramebuffer(c.device, fb, NULL);
	vkDestroyRenderPass(c.device, rp, NULL);
	for (i = 0; i < 2; i++)
		vkDestroyImageView(c.device, views[i], NULL);
	vkDestroyImage(c.device, res_img, NULL);
	vkDestroyImage(c.device, ms_img, NULL);
	vkFreeMemory(c.device, res_mem, NULL);
	vkFreeMemory(c.device, ms_mem, NULL);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &vbuf);
	vkp_ctx_finish(&c);
	return 0;
}
