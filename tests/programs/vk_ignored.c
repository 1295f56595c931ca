/*
 * vk_ignored - one Vulkan call per member the specification says is ignored
 * (serializer/generated/sbt_vk_ignored.h, generated from
 * scripts/vkgen/overrides.py IGNORED_MEMBERS): each case puts a pointer to a
 * PROT_NONE page or a garbage handle in the ignored member, as a program with
 * an uninitialised member would.  A driver must not read it; neither must
 * the capture layer, and its trace must replay.
 *
 *   vk_ignored --list      the rules, one "OWNER.MEMBER" a line; exit 1 when
 *                          a rule has no case here (a new rule needs one)
 *   vk_ignored CASE        run that rule's case; prints "vk_ignored: CASE ok"
 *
 * Exit status: 0 done, 1 a Vulkan failure or a rule without a case, 2 usage.
 * tests/shell/test_vk_ignored.sh runs every case plain, under tscapture and
 * replays the trace, everything under the Khronos validation layer.
 */
#define VK_USE_PLATFORM_XCB_KHR 1

#include <sys/mman.h>

#include "tests/programs/vk_prog.h"
#include "serializer/generated/sbt_vk_ignored.h"

#include <xcb/xcb.h>

#define PROG "vk_ignored"

/* A handle value no Vulkan object has: what an uninitialised member holds. */
#define GARBAGE_HANDLE ((uint64_t)0xdeadbeef00c0ffeeULL)

typedef struct ign {
	vkp_ctx c;
	void *none;      /* a PROT_NONE page: any read of it is SIGSEGV */
	PFN_vkCmdPushDescriptorSetKHR push; /* NULL without VK_KHR_push_descriptor */
	VkBool32 imageless; /* imagelessFramebuffer is enabled */
	VkBool32 dynrender; /* dynamicRendering is enabled */
	int xcb;            /* VK_KHR_xcb_surface and VK_KHR_swapchain are enabled */
	vkp_buffer buf;    /* the storage buffer of the buffer writes */
	VkSampler sampler; /* the sampler of the sampler writes */
	VkDescriptorBufferInfo bi; /* what the writes point at */
	VkDescriptorImageInfo ii;
	VkImage image;     /* the sampled image of the image writes */
	VkDeviceMemory image_mem;
	VkImageView view;
	const void *inherit; /* ign_submit's pInheritanceInfo (primary: ignored) */
} ign;

/* The instance and device of vkp_ctx_init, with VK_KHR_push_descriptor,
 * the imagelessFramebuffer (Vulkan 1.2) and dynamicRendering (1.3) features
 * and xcb surfaces with
 * VK_KHR_swapchain enabled when they are offered. */
static void ign_init(ign *g)
{
	vkp_ctx *c = &g->c;
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	VkPhysicalDeviceDynamicRenderingFeatures dynr = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES
	};
	VkPhysicalDeviceImagelessFramebufferFeatures imageless = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES
	};
	VkPhysicalDeviceFeatures2 feats = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                    .pNext = &imageless };
	const char *dexts[2];
	const char *iexts[2] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME };
	uint32_t ndext = 0, niext = 0;
	VkExtensionProperties props[256];
	VkQueueFamilyProperties fams[16];
	VkPhysicalDevice devs[8];
	uint32_t ndev = 8, nfam = 16, nprop = 256, i;
	const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
	int has_push = 0, has_swapchain = 0;
	float prio = 1.0f;
	VkResult r;

	memset(g, 0, sizeof(*g));
	c->prog = PROG;
	app.pApplicationName = PROG;
	app.apiVersion = VK_API_VERSION_1_3;
	ici.pApplicationInfo = &app;
	r = vkEnumerateInstanceExtensionProperties(NULL, &nprop, props);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		vkp_die(c, "vkEnumerateInstanceExtensionProperties: %s", vkp_result_name(r));
	for (i = 0; i < nprop; i++)
		if (strcmp(props[i].extensionName, iexts[0]) == 0 ||
		    strcmp(props[i].extensionName, iexts[1]) == 0)
			niext++;
	ici.enabledExtensionCount = niext == 2 ? 2 : 0;
	ici.ppEnabledExtensionNames = iexts;
	VKP_CHECK(c, vkCreateInstance(&ici, NULL, &c->instance));
	r = vkEnumeratePhysicalDevices(c->instance, &ndev, devs);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(c, "no Vulkan physical device (%s)", vkp_result_name(r));
	c->phys = devs[0];
	vkGetPhysicalDeviceProperties(c->phys, &c->dev_props);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
	vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &nfam, fams);
	for (i = 0; i < nfam; i++)
		if ((fams[i].queueFlags & want) == want)
			break;
	if (i == nfam)
		vkp_die(c, "no queue family does graphics and compute");
	c->qfam = i;
	nprop = 256;
	r = vkEnumerateDeviceExtensionProperties(c->phys, NULL, &nprop, props);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		vkp_die(c, "vkEnumerateDeviceExtensionProperties: %s", vkp_result_name(r));
	for (i = 0; i < nprop; i++)
		if (strcmp(props[i].extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0)
			has_push = 1;
		else if (strcmp(props[i].extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0)
			has_swapchain = 1;
	qci.queueFamilyIndex = c->qfam;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	if (has_push)
		dexts[ndext++] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
	g->xcb = niext == 2 && has_swapchain;
	if (g->xcb)
		dexts[ndext++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	dci.enabledExtensionCount = ndext;
	dci.ppEnabledExtensionNames = dexts;
	if (c->dev_props.apiVersion >= VK_API_VERSION_1_2) {
		if (c->dev_props.apiVersion >= VK_API_VERSION_1_3)
			imageless.pNext = &dynr;
		vkGetPhysicalDeviceFeatures2(c->phys, &feats);
		g->imageless = imageless.imagelessFramebuffer;
		g->dynrender = dynr.dynamicRendering;
		/* enable what is offered: the chain of those */
		imageless.pNext = g->dynrender ? &dynr : NULL;
		dci.pNext = g->imageless ? (void *)&imageless : g->dynrender ? (void *)&dynr : NULL;
	}
	VKP_CHECK(c, vkCreateDevice(c->phys, &dci, NULL, &c->device));
	vkGetDeviceQueue(c->device, c->qfam, 0, &c->queue);
	if (has_push)
		g->push = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(
			c->device, "vkCmdPushDescriptorSetKHR");
	g->none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->none == MAP_FAILED)
		vkp_die(c, "mmap of a PROT_NONE page: %s", strerror(errno));
}

static VkDescriptorSetLayout ign_set_layout(ign *g, VkDescriptorType type,
                                            VkDescriptorSetLayoutCreateFlags flags,
                                            const VkSampler *immutable)
{
	VkDescriptorSetLayoutBinding b = { 0, type, 1, VK_SHADER_STAGE_COMPUTE_BIT, immutable };
	VkDescriptorSetLayoutCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.flags = flags, .bindingCount = 1, .pBindings = &b
	};
	VkDescriptorSetLayout dsl;
	VKP_CHECK(&g->c, vkCreateDescriptorSetLayout(g->c.device, &ci, NULL, &dsl));
	return dsl;
}

static VkSampler ign_sampler(ign *g)
{
	VkSamplerCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO };
	VkSampler s;
	ci.magFilter = ci.minFilter = VK_FILTER_NEAREST;
	ci.addressModeU = ci.addressModeV = ci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
	ci.maxLod = 0.0f;
	VKP_CHECK(&g->c, vkCreateSampler(g->c.device, &ci, NULL, &s));
	return s;
}

/* vkUpdateDescriptorSets with one write of type, built by fill, into a set
 * of a one-binding layout of that type. */
typedef void ign_fill(ign *g, VkWriteDescriptorSet *w, void *arg);

static void ign_write(ign *g, VkDescriptorType type, ign_fill *fill, void *arg)
{
	vkp_ctx *c = &g->c;
	VkDescriptorPoolSize ps = { type, 1 };
	VkDescriptorPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
	                                   .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps };
	VkDescriptorSetAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	VkDescriptorSetLayout dsl = ign_set_layout(g, type, 0, NULL);
	VkDescriptorPool pool;
	VkDescriptorSet set;

	VKP_CHECK(c, vkCreateDescriptorPool(c->device, &pci, NULL, &pool));
	ai.descriptorPool = pool;
	ai.descriptorSetCount = 1;
	ai.pSetLayouts = &dsl;
	VKP_CHECK(c, vkAllocateDescriptorSets(c->device, &ai, &set));
	w.dstSet = set;
	w.descriptorCount = 1;
	w.descriptorType = type;
	fill(g, &w, arg);
	vkUpdateDescriptorSets(c->device, 1, &w, 0, NULL);
	vkDestroyDescriptorPool(c->device, pool, NULL);
	vkDestroyDescriptorSetLayout(c->device, dsl, NULL);
}

/* A storage buffer write whose image info or texel views (arg: which)
 * point at the PROT_NONE page. */
static void fill_buffer_write(ign *g, VkWriteDescriptorSet *w, void *arg)
{
	const char *which = arg;
	g->bi = (VkDescriptorBufferInfo){ g->buf.buf, 0, VK_WHOLE_SIZE };
	w->pBufferInfo = &g->bi;
	if (strcmp(which, "pImageInfo") == 0)
		w->pImageInfo = g->none;
	else
		w->pTexelBufferView = g->none;
}

/* A sampler write whose buffer infos point at the PROT_NONE page. */
static void fill_sampler_write(ign *g, VkWriteDescriptorSet *w, void *arg)
{
	(void)arg;
	g->ii = (VkDescriptorImageInfo){ g->sampler, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_UNDEFINED };
	w->pImageInfo = &g->ii;
	w->pBufferInfo = g->none;
}

/* A sampler write whose image info's imageView is garbage. */
static void fill_sampler_garbage_view(ign *g, VkWriteDescriptorSet *w, void *arg)
{
	(void)arg;
	g->ii = (VkDescriptorImageInfo){ g->sampler, (VkImageView)GARBAGE_HANDLE,
	                                 VK_IMAGE_LAYOUT_UNDEFINED };
	w->pImageInfo = &g->ii;
}

/* A sampled image write whose image info's sampler is garbage. */
static void fill_image_garbage_sampler(ign *g, VkWriteDescriptorSet *w, void *arg)
{
	(void)arg;
	g->ii = (VkDescriptorImageInfo){ (VkSampler)GARBAGE_HANDLE, g->view,
	                                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
	w->pImageInfo = &g->ii;
}

/* A 4x4 sampled image with its memory and a view (g->image, g->view). */
static void ign_image(ign *g)
{
	vkp_ctx *c = &g->c;
	VkImageCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkImageViewCreateInfo vi = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
	VkMemoryRequirements req;

	ci.imageType = VK_IMAGE_TYPE_2D;
	ci.format = VK_FORMAT_R8G8B8A8_UNORM;
	ci.extent = (VkExtent3D){ 4, 4, 1 };
	ci.mipLevels = 1;
	ci.arrayLayers = 1;
	ci.samples = VK_SAMPLE_COUNT_1_BIT;
	ci.tiling = VK_IMAGE_TILING_OPTIMAL;
	ci.usage = VK_IMAGE_USAGE_SAMPLED_BIT;
	ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(c, vkCreateImage(c->device, &ci, NULL, &g->image));
	vkGetImageMemoryRequirements(c->device, g->image, &req);
	ai.allocationSize = req.size;
	ai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0,
	                                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	VKP_CHECK(c, vkAllocateMemory(c->device, &ai, NULL, &g->image_mem));
	VKP_CHECK(c, vkBindImageMemory(c->device, g->image, g->image_mem, 0));
	vi.image = g->image;
	vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
	vi.format = ci.format;
	vi.subresourceRange = (VkImageSubresourceRange){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	VKP_CHECK(c, vkCreateImageView(c->device, &vi, NULL, &g->view));
}

static void ign_image_destroy(ign *g)
{
	vkDestroyImageView(g->c.device, g->view, NULL);
	vkDestroyImage(g->c.device, g->image, NULL);
	vkFreeMemory(g->c.device, g->image_mem, NULL);
}

/* ---- the cases ------------------------------------------------------------- */

static void case_immutable_samplers(ign *g)
{
	VkDescriptorSetLayout dsl = ign_set_layout(g, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, g->none);
	vkDestroyDescriptorSetLayout(g->c.device, dsl, NULL);
}

static void case_write_buffer(ign *g, const char *member)
{
	vkp_buffer_create(&g->c, &g->buf, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 0);
	ign_write(g, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, fill_buffer_write, (void *)member);
	vkp_buffer_destroy(&g->c, &g->buf);
}

static void case_image_info(ign *g)
{
	case_write_buffer(g, "pImageInfo");
}

static void case_texel_buffer_view(ign *g)
{
	case_write_buffer(g, "pTexelBufferView");
}

static void case_buffer_info(ign *g)
{
	g->sampler = ign_sampler(g);
	ign_write(g, VK_DESCRIPTOR_TYPE_SAMPLER, fill_sampler_write, NULL);
	vkDestroySampler(g->c.device, g->sampler, NULL);
}

/* Records cb with rec, submits it and waits. */
static void ign_submit(ign *g, void (*rec)(ign *, VkCommandBuffer, void *), void *arg)
{
	vkp_ctx *c = &g->c;
	VkCommandPoolCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .queueFamilyIndex = c->qfam };
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                    .commandBufferCount = 1 };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkCommandPool pool;
	VkCommandBuffer cb;

	VKP_CHECK(c, vkCreateCommandPool(c->device, &cpi, NULL, &pool));
	cai.commandPool = pool;
	VKP_CHECK(c, vkAllocateCommandBuffers(c->device, &cai, &cb));
	bi.pInheritanceInfo = g->inherit;
	VKP_CHECK(c, vkBeginCommandBuffer(cb, &bi));
	rec(g, cb, arg);
	VKP_CHECK(c, vkEndCommandBuffer(cb));
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(c, vkQueueSubmit(c->queue, 1, &si, VK_NULL_HANDLE));
	VKP_CHECK(c, vkQueueWaitIdle(c->queue));
	vkDestroyCommandPool(c->device, pool, NULL);
}

static void rec_push(ign *g, VkCommandBuffer cb, void *arg)
{
	VkPipelineLayout layout = *(VkPipelineLayout *)arg;
	VkDescriptorBufferInfo bi = { g->buf.buf, 0, VK_WHOLE_SIZE };
	VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	w.dstSet = (VkDescriptorSet)GARBAGE_HANDLE;
	w.descriptorCount = 1;
	w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
	w.pBufferInfo = &bi;
	g->push(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &w);
}

static void case_push_dst_set(ign *g)
{
	vkp_ctx *c = &g->c;
	VkPipelineLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;

	if (!g->push)
		vkp_die(c, "the device does not offer VK_KHR_push_descriptor");
	dsl = ign_set_layout(g, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
	                     VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR, NULL);
	lci.setLayoutCount = 1;
	lci.pSetLayouts = &dsl;
	VKP_CHECK(c, vkCreatePipelineLayout(c->device, &lci, NULL, &layout));
	vkp_buffer_create(c, &g->buf, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 0);
	ign_submit(g, rec_push, &layout);
	vkp_buffer_destroy(c, &g->buf);
	vkDestroyPipelineLayout(c->device, layout, NULL);
	vkDestroyDescriptorSetLayout(c->device, dsl, NULL);
}

static void case_image_view(ign *g)
{
	g->sampler = ign_sampler(g);
	ign_write(g, VK_DESCRIPTOR_TYPE_SAMPLER, fill_sampler_garbage_view, NULL);
	vkDestroySampler(g->c.device, g->sampler, NULL);
}

static void rec_push_image(ign *g, VkCommandBuffer cb, void *arg)
{
	VkPipelineLayout layout = *(VkPipelineLayout *)arg;
	VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	w.descriptorCount = 1;
	w.descriptorType = VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
	fill_image_garbage_sampler(g, &w, NULL);
	g->push(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &w);
}

/* A sampled image write whose sampler is garbage: by vkUpdateDescriptorSets
 * and, with VK_KHR_push_descriptor, pushed in a command buffer (the layer
 * walks the handles a recorded command names). */
static void case_image_sampler(ign *g)
{
	vkp_ctx *c = &g->c;
	VkPipelineLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;

	ign_image(g);
	ign_write(g, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, fill_image_garbage_sampler, NULL);
	if (g->push) {
		dsl = ign_set_layout(g, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
		                     VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR, NULL);
		lci.setLayoutCount = 1;
		lci.pSetLayouts = &dsl;
		VKP_CHECK(c, vkCreatePipelineLayout(c->device, &lci, NULL, &layout));
		ign_submit(g, rec_push_image, &layout);
		vkDestroyPipelineLayout(c->device, layout, NULL);
		vkDestroyDescriptorSetLayout(c->device, dsl, NULL);
	}
	ign_image_destroy(g);
}

/* A descriptor update template of type ttype over one storage buffer
 * binding; the members that type ignores hold garbage. */
static VkDescriptorUpdateTemplate ign_template(ign *g, VkDescriptorUpdateTemplateType ttype,
                                               VkDescriptorSetLayout dsl,
                                               VkPipelineLayout layout)
{
	VkDescriptorUpdateTemplateEntry ent = { 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0,
		                                    sizeof(VkDescriptorBufferInfo) };
	VkDescriptorUpdateTemplateCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO
	};
	VkDescriptorUpdateTemplate t;
	ci.descriptorUpdateEntryCount = 1;
	ci.pDescriptorUpdateEntries = &ent;
	ci.templateType = ttype;
	if (ttype == VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET) {
		ci.descriptorSetLayout = dsl;
		ci.pipelineBindPoint = (VkPipelineBindPoint)0x7eadbeef;
		ci.pipelineLayout = (VkPipelineLayout)GARBAGE_HANDLE;
		ci.set = 0xdeadbeefu;
	} else {
		ci.descriptorSetLayout = (VkDescriptorSetLayout)GARBAGE_HANDLE;
		ci.pipelineBindPoint = VK_PIPELINE_BIND_POINT_COMPUTE;
		ci.pipelineLayout = layout;
		ci.set = 0;
	}
	VKP_CHECK(&g->c, vkCreateDescriptorUpdateTemplate(g->c.device, &ci, NULL, &t));
	return t;
}

/* A set template whose push-descriptor members are garbage, used by
 * vkUpdateDescriptorSetWithTemplate. */
static void case_template_set(ign *g)
{
	vkp_ctx *c = &g->c;
	VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
	VkDescriptorPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
	                                   .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps };
	VkDescriptorSetAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkDescriptorSetLayout dsl = ign_set_layout(g, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, NULL);
	VkDescriptorUpdateTemplate t;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	VkDescriptorBufferInfo bi;

	vkp_buffer_create(c, &g->buf, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 0);
	t = ign_template(g, VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET, dsl, VK_NULL_HANDLE);
	VKP_CHECK(c, vkCreateDescriptorPool(c->device, &pci, NULL, &pool));
	ai.descriptorPool = pool;
	ai.descriptorSetCount = 1;
	ai.pSetLayouts = &dsl;
	VKP_CHECK(c, vkAllocateDescriptorSets(c->device, &ai, &set));
	bi = (VkDescriptorBufferInfo){ g->buf.buf, 0, VK_WHOLE_SIZE };
	vkUpdateDescriptorSetWithTemplate(c->device, set, t, &bi);
	vkDestroyDescriptorPool(c->device, pool, NULL);
	vkDestroyDescriptorUpdateTemplate(c->device, t, NULL);
	vkDestroyDescriptorSetLayout(c->device, dsl, NULL);
	vkp_buffer_destroy(c, &g->buf);
}

typedef struct ign_push_template {
	VkDescriptorUpdateTemplate t;
	VkPipelineLayout layout;
} ign_push_template;

static void rec_push_template(ign *g, VkCommandBuffer cb, void *arg)
{
	const ign_push_template *p = arg;
	PFN_vkCmdPushDescriptorSetWithTemplateKHR push_t =
	    (PFN_vkCmdPushDescriptorSetWithTemplateKHR)vkGetDeviceProcAddr(
	        g->c.device, "vkCmdPushDescriptorSetWithTemplateKHR");
	VkDescriptorBufferInfo bi = { g->buf.buf, 0, VK_WHOLE_SIZE };
	if (!push_t)
		vkp_die(&g->c, "no vkCmdPushDescriptorSetWithTemplateKHR");
	push_t(cb, p->t, p->layout, 0, &bi);
}

/* A push-descriptor template whose descriptorSetLayout is garbage, pushed
 * with vkCmdPushDescriptorSetWithTemplateKHR. */
static void case_template_push(ign *g)
{
	vkp_ctx *c = &g->c;
	VkPipelineLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkDescriptorSetLayout dsl;
	ign_push_template p;

	if (!g->push)
		vkp_die(c, "the device does not offer VK_KHR_push_descriptor");
	dsl = ign_set_layout(g, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
	                     VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR, NULL);
	lci.setLayoutCount = 1;
	lci.pSetLayouts = &dsl;
	VKP_CHECK(c, vkCreatePipelineLayout(c->device, &lci, NULL, &p.layout));
	p.t = ign_template(g, VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR, VK_NULL_HANDLE,
	                   p.layout);
	vkp_buffer_create(c, &g->buf, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 0);
	ign_submit(g, rec_push_template, &p);
	vkp_buffer_destroy(c, &g->buf);
	vkDestroyDescriptorUpdateTemplate(c->device, p.t, NULL);
	vkDestroyPipelineLayout(c->device, p.layout, NULL);
	vkDestroyDescriptorSetLayout(c->device, dsl, NULL);
}

/* A compute pipeline without VK_PIPELINE_CREATE_DERIVATIVE_BIT whose base
 * handle or index is garbage. */
static void case_compute_base(ign *g, int handle)
{
	vkp_ctx *c = &g->c;
	VkPipelineLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkComputePipelineCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO };
	VkDescriptorSetLayout dsl = vkp_compute_set_layout(c);
	VkShaderModule mod = vkp_shader_load(c, "vk_compute.comp.spv");
	VkPipelineLayout layout;
	VkPipeline p;

	lci.setLayoutCount = 1;
	lci.pSetLayouts = &dsl;
	VKP_CHECK(c, vkCreatePipelineLayout(c->device, &lci, NULL, &layout));
	cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
	cpi.stage.module = mod;
	cpi.stage.pName = "main";
	cpi.layout = layout;
	if (handle)
		cpi.basePipelineHandle = (VkPipeline)GARBAGE_HANDLE;
	else
		cpi.basePipelineIndex = 0x5eed;
	VKP_CHECK(c, vkCreateComputePipelines(c->device, VK_NULL_HANDLE, 1, &cpi, NULL, &p));
	vkDestroyPipeline(c->device, p, NULL);
	vkDestroyPipelineLayout(c->device, layout, NULL);
	vkDestroyShaderModule(c->device, mod, NULL);
	vkDestroyDescriptorSetLayout(c->device, dsl, NULL);
}

static void case_compute_base_handle(ign *g)
{
	case_compute_base(g, 1);
}

static void case_compute_base_index(ign *g)
{
	case_compute_base(g, 0);
}

/* A graphics pipeline (tests/shaders/vk_tri.vert alone, rasterization
 * discarded, no VK_PIPELINE_CREATE_DERIVATIVE_BIT) whose member (a name of
 * VkGraphicsPipelineCreateInfo) is garbage: its base pipeline handle or
 * index, or a state pointer at the PROT_NONE page.  With dynrender
 * (pDepthStencilState, pColorBlendState) rasterization is enabled instead,
 * for dynamic rendering (renderPass VK_NULL_HANDLE) with no attachment
 * formats at all.  For "pViewports" and
 * "pScissors" (members of VkPipelineViewportStateCreateInfo) rasterization
 * is enabled, that state is dynamic and its array (of count 1) is the
 * PROT_NONE page. */
static void case_graphics(ign *g, const char *member, int dynrender)
{
	vkp_ctx *c = &g->c;
	VkAttachmentDescription att = { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT,
	                                VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_STORE,
	                                VK_ATTACHMENT_LOAD_OP_DONT_CARE,
	                                VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
	                                VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
	                             .colorAttachmentCount = 1, .pColorAttachments = &ref };
	VkRenderPassCreateInfo rpi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
	                               .attachmentCount = 1, .pAttachments = &att,
	                               .subpassCount = 1, .pSubpasses = &sub };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, 12 };
	VkPipelineLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	                                   .pushConstantRangeCount = 1,
	                                   .pPushConstantRanges = &pcr };
	VkVertexInputBindingDescription vb = { 0, 20, VK_VERTEX_INPUT_RATE_VERTEX };
	VkVertexInputAttributeDescription va[2] = { { 0, 0, VK_FORMAT_R32G32_SFLOAT, 0 },
	                                            { 1, 0, VK_FORMAT_R32G32B32_SFLOAT, 8 } };
	VkPipelineVertexInputStateCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
		.vertexBindingDescriptionCount = 1, .pVertexBindingDescriptions = &vb,
		.vertexAttributeDescriptionCount = 2, .pVertexAttributeDescriptions = va
	};
	VkPipelineInputAssemblyStateCreateInfo ia = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST
	};
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.rasterizerDiscardEnable = VK_TRUE, .polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE, .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		.lineWidth = 1.0f
	};
	VkPipelineShaderStageCreateInfo st = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		.stage = VK_SHADER_STAGE_VERTEX_BIT, .pName = "main"
	};
	VkViewport viewport = { 0.0f, 0.0f, 4.0f, 4.0f, 0.0f, 1.0f };
	VkRect2D scissor = { { 0, 0 }, { 4, 4 } };
	VkPipelineViewportStateCreateInfo vps = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1, .pViewports = &viewport, .scissorCount = 1, .pScissors = &scissor
	};
	VkPipelineMultisampleStateCreateInfo ms = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT
	};
	VkPipelineColorBlendAttachmentState cba = { .colorWriteMask = 0xf };
	VkPipelineColorBlendStateCreateInfo cb = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = 1, .pAttachments = &cba
	};
	VkDynamicState dyn_state;
	VkPipelineDynamicStateCreateInfo dyn = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		.dynamicStateCount = 1, .pDynamicStates = &dyn_state
	};
	VkGraphicsPipelineCreateInfo gpi = { .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO };
	VkRenderPass rp;
	VkPipelineLayout layout;
	VkPipeline p;

	VKP_CHECK(c, vkCreateRenderPass(c->device, &rpi, NULL, &rp));
	VKP_CHECK(c, vkCreatePipelineLayout(c->device, &lci, NULL, &layout));
	st.module = vkp_shader_load(c, "vk_tri.vert.spv");
	gpi.stageCount = 1;
	gpi.pStages = &st;
	gpi.pVertexInputState = &vi;
	gpi.pInputAssemblyState = &ia;
	gpi.pRasterizationState = &rs;
	gpi.layout = layout;
	gpi.renderPass = rp;
	if (strcmp(member, "basePipelineHandle") == 0)
		gpi.basePipelineHandle = (VkPipeline)GARBAGE_HANDLE;
	else if (strcmp(member, "basePipelineIndex") == 0)
		gpi.basePipelineIndex = 0x5eed;
	else if (strcmp(member, "pViewportState") == 0)
		gpi.pViewportState = g->none;
	else if (strcmp(member, "pMultisampleState") == 0)
		gpi.pMultisampleState = g->none;
	else if (strcmp(member, "pDepthStencilState") == 0)
		gpi.pDepthStencilState = g->none;
	else if (strcmp(member, "pColorBlendState") == 0)
		gpi.pColorBlendState = g->none;
	else if (strcmp(member, "pTessellationState") == 0)
		gpi.pTessellationState = g->none;
	else if (strcmp(member, "pViewports") == 0 || strcmp(member, "pScissors") == 0) {
		rs.rasterizerDiscardEnable = VK_FALSE;
		gpi.pViewportState = &vps;
		gpi.pMultisampleState = &ms;
		gpi.pColorBlendState = &cb;
		gpi.pDynamicState = &dyn;
		if (strcmp(member, "pViewports") == 0) {
			dyn_state = VK_DYNAMIC_STATE_VIEWPORT;
			vps.pViewports = g->none;
		} else {
			dyn_state = VK_DYNAMIC_STATE_SCISSOR;
			vps.pScissors = g->none;
		}
	} else
		vkp_die(c, "case_graphics: no member %s", member);
	if (dynrender) {
		rs.rasterizerDiscardEnable = VK_FALSE;
		gpi.renderPass = VK_NULL_HANDLE;
		gpi.pViewportState = &vps;
		gpi.pMultisampleState = &ms;
	}
	VKP_CHECK(c, vkCreateGraphicsPipelines(c->device, VK_NULL_HANDLE, 1, &gpi, NULL, &p));
	vkDestroyPipeline(c->device, p, NULL);
	vkDestroyShaderModule(c->device, st.module, NULL);
	vkDestroyPipelineLayout(c->device, layout, NULL);
	vkDestroyRenderPass(c->device, rp, NULL);
}

#define GRAPHICS_CASE(m)                 \
	static void case_graphics_##m(ign *g) \
	{                                     \
		case_graphics(g, #m, 0);      \
	}
GRAPHICS_CASE(basePipelineHandle)
GRAPHICS_CASE(basePipelineIndex)
GRAPHICS_CASE(pViewportState)
GRAPHICS_CASE(pMultisampleState)

/* pDepthStencilState and pColorBlendState: ignored with rasterization
 * discarded, and for dynamic rendering without such attachments (two rules,
 * one case each). */
#define GRAPHICS_CASE2(m)                                                                       \
	static void case_graphics_##m(ign *g)                                                   \
	{                                                                                       \
		if (!g->dynrender)                                                              \
			vkp_die(&g->c, "the device does not offer the dynamicRendering feature"); \
		case_graphics(g, #m, 0);                                                        \
		case_graphics(g, #m, 1);                                                        \
	}
GRAPHICS_CASE2(pDepthStencilState)
GRAPHICS_CASE2(pColorBlendState)
GRAPHICS_CASE(pTessellationState)
GRAPHICS_CASE(pViewports)
GRAPHICS_CASE(pScissors)

/* An imageless framebuffer (one color attachment, described by a
 * VkFramebufferAttachmentsCreateInfo) whose pAttachments is the PROT_NONE
 * page. */
static void case_imageless_framebuffer(ign *g)
{
	vkp_ctx *c = &g->c;
	VkFormat fmt = VK_FORMAT_R8G8B8A8_UNORM;
	VkAttachmentDescription att = { 0, fmt, VK_SAMPLE_COUNT_1_BIT,
	                                VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_STORE,
	                                VK_ATTACHMENT_LOAD_OP_DONT_CARE,
	                                VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
	                                VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
	                             .colorAttachmentCount = 1, .pColorAttachments = &ref };
	VkRenderPassCreateInfo rpi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
	                               .attachmentCount = 1, .pAttachments = &att,
	                               .subpassCount = 1, .pSubpasses = &sub };
	VkFramebufferAttachmentImageInfo aii = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, .width = 4, .height = 4,
		.layerCount = 1, .viewFormatCount = 1, .pViewFormats = &fmt
	};
	VkFramebufferAttachmentsCreateInfo fai = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO,
		.attachmentImageInfoCount = 1, .pAttachmentImageInfos = &aii
	};
	VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
	                                .pNext = &fai, .flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT,
	                                .attachmentCount = 1, .width = 4, .height = 4, .layers = 1 };
	VkRenderPass rp;
	VkFramebuffer fb;

	if (!g->imageless)
		vkp_die(c, "the device does not offer the imagelessFramebuffer feature");
	VKP_CHECK(c, vkCreateRenderPass(c->device, &rpi, NULL, &rp));
	fci.renderPass = rp;
	fci.pAttachments = g->none;
	VKP_CHECK(c, vkCreateFramebuffer(c->device, &fci, NULL, &fb));
	vkDestroyFramebuffer(c->device, fb, NULL);
	vkDestroyRenderPass(c->device, rp, NULL);
}

static void case_buffer_queue_families(ign *g)
{
	VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkBuffer b;
	ci.size = 256;
	ci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ci.queueFamilyIndexCount = 3;
	ci.pQueueFamilyIndices = g->none;
	VKP_CHECK(&g->c, vkCreateBuffer(g->c.device, &ci, NULL, &b));
	vkDestroyBuffer(g->c.device, b, NULL);
}

static void case_image_queue_families(ign *g)
{
	VkImageCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkImage im;
	ci.imageType = VK_IMAGE_TYPE_2D;
	ci.format = VK_FORMAT_R8G8B8A8_UNORM;
	ci.extent = (VkExtent3D){ 4, 4, 1 };
	ci.mipLevels = 1;
	ci.arrayLayers = 1;
	ci.samples = VK_SAMPLE_COUNT_1_BIT;
	ci.tiling = VK_IMAGE_TILING_OPTIMAL;
	ci.usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ci.queueFamilyIndexCount = 3;
	ci.pQueueFamilyIndices = g->none;
	ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(&g->c, vkCreateImage(g->c.device, &ci, NULL, &im));
	vkDestroyImage(g->c.device, im, NULL);
}

/* A swapchain of an xcb window (the X display of DISPLAY) with exclusive
 * sharing whose pQueueFamilyIndices is the PROT_NONE page. */
static void case_swapchain_queue_families(ign *g)
{
	vkp_ctx *c = &g->c;
	VkXcbSurfaceCreateInfoKHR xci = { .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR };
	VkSwapchainCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR };
	VkSurfaceCapabilitiesKHR caps;
	VkSurfaceFormatKHR formats[32];
	uint32_t nformats = 32;
	VkBool32 supported = VK_FALSE;
	xcb_connection_t *conn;
	xcb_screen_iterator_t it;
	xcb_window_t win;
	VkSurfaceKHR surface;
	VkSwapchainKHR sc;
	VkResult r;
	int scr, i;

	if (!g->xcb)
		vkp_die(c, "no VK_KHR_xcb_surface on the instance or no VK_KHR_swapchain on the device");
	conn = xcb_connect(NULL, &scr);
	if (xcb_connection_has_error(conn))
		vkp_die(c, "cannot open the X display (DISPLAY=%s)", getenv("DISPLAY"));
	it = xcb_setup_roots_iterator(xcb_get_setup(conn));
	for (i = 0; i < scr; i++)
		xcb_screen_next(&it);
	win = xcb_generate_id(conn);
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, win, it.data->root, 0, 0, 64, 64, 0,
	                  XCB_WINDOW_CLASS_INPUT_OUTPUT, it.data->root_visual, 0, NULL);
	xcb_map_window(conn, win);
	xcb_flush(conn);
	xci.connection = conn;
	xci.window = win;
	VKP_CHECK(c, vkCreateXcbSurfaceKHR(c->instance, &xci, NULL, &surface));
	VKP_CHECK(c, vkGetPhysicalDeviceSurfaceSupportKHR(c->phys, c->qfam, surface, &supported));
	if (!supported)
		vkp_die(c, "queue family %u cannot present to the window", c->qfam);
	VKP_CHECK(c, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->phys, surface, &caps));
	r = vkGetPhysicalDeviceSurfaceFormatsKHR(c->phys, surface, &nformats, formats);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || nformats == 0)
		vkp_die(c, "the surface has no format");
	sci.surface = surface;
	sci.minImageCount = caps.minImageCount;
	sci.imageFormat = formats[0].format;
	sci.imageColorSpace = formats[0].colorSpace;
	sci.imageExtent = caps.currentExtent;
	if (sci.imageExtent.width == UINT32_MAX)
		sci.imageExtent = (VkExtent2D){ 64, 64 };
	sci.imageArrayLayers = 1;
	sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
	sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
	sci.queueFamilyIndexCount = 3;
	sci.pQueueFamilyIndices = g->none;
	sci.preTransform = caps.currentTransform;
	sci.compositeAlpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
	                                                   -caps.supportedCompositeAlpha);
	sci.presentMode = VK_PRESENT_MODE_FIFO_KHR; /* always supported */
	sci.clipped = VK_TRUE;
	VKP_CHECK(c, vkCreateSwapchainKHR(c->device, &sci, NULL, &sc));
	vkDestroySwapchainKHR(c->device, sc, NULL);
	vkDestroySurfaceKHR(c->instance, surface, NULL);
	xcb_destroy_window(conn, win);
	xcb_disconnect(conn);
}

static void rec_nothing(ign *g, VkCommandBuffer cb, void *arg)
{
	(void)g;
	(void)cb;
	(void)arg;
}

/* The generic rule: input arrays of count 0 pointing at the PROT_NONE page,
 * through generated wrappers (vkCreatePipelineLayout, vkUpdateDescriptorSets)
 * and a hand-written one (vkQueueSubmit). */
static void case_zero_count(ign *g)
{
	vkp_ctx *c = &g->c;
	VkPipelineLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkPipelineLayout layout;

	lci.pSetLayouts = g->none;
	lci.pPushConstantRanges = g->none;
	VKP_CHECK(c, vkCreatePipelineLayout(c->device, &lci, NULL, &layout));
	vkDestroyPipelineLayout(c->device, layout, NULL);
	vkUpdateDescriptorSets(c->device, 0, g->none, 0, g->none);
	si.pWaitSemaphores = g->none;
	si.pWaitDstStageMask = g->none;
	si.pCommandBuffers = g->none;
	si.pSignalSemaphores = g->none;
	VKP_CHECK(c, vkQueueSubmit(c->queue, 1, &si, VK_NULL_HANDLE));
	VKP_CHECK(c, vkQueueWaitIdle(c->queue));
	ign_submit(g, rec_nothing, NULL);
}

/* A primary command buffer begun with pInheritanceInfo pointing at the
 * PROT_NONE page. */
static void case_primary_inheritance(ign *g)
{
	g->inherit = g->none;
	ign_submit(g, rec_nothing, NULL);
	g->inherit = NULL;
}

/* Executes a secondary command buffer that continues no render pass and
 * whose inheritance info names a garbage render pass, subpass and
 * framebuffer. */
static void rec_execute_secondary(ign *g, VkCommandBuffer cb, void *arg)
{
	VkCommandBuffer sec = *(VkCommandBuffer *)arg;
	(void)g;
	vkCmdExecuteCommands(cb, 1, &sec);
}

static void case_inheritance_no_pass(ign *g)
{
	vkp_ctx *c = &g->c;
	VkCommandPoolCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                                .queueFamilyIndex = c->qfam };
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                    .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
	                                    .commandBufferCount = 1 };
	VkCommandBufferInheritanceInfo inh = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
		.renderPass = (VkRenderPass)GARBAGE_HANDLE,
		.subpass = 0xdeadbeefu,
		.framebuffer = (VkFramebuffer)GARBAGE_HANDLE,
	};
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .pInheritanceInfo = &inh };
	VkCommandPool pool;
	VkCommandBuffer sec;

	VKP_CHECK(c, vkCreateCommandPool(c->device, &cpi, NULL, &pool));
	cai.commandPool = pool;
	VKP_CHECK(c, vkAllocateCommandBuffers(c->device, &cai, &sec));
	VKP_CHECK(c, vkBeginCommandBuffer(sec, &bi));
	VKP_CHECK(c, vkEndCommandBuffer(sec));
	ign_submit(g, rec_execute_secondary, &sec);
	vkDestroyCommandPool(c->device, pool, NULL);
}

/* One case per rule of sbt_vk_ignored_rules, by "OWNER.MEMBER". */
static const struct {
	const char *name;
	void (*run)(ign *);
} cases[] = {
	{ "VkDescriptorSetLayoutBinding.pImmutableSamplers", case_immutable_samplers },
	{ "VkWriteDescriptorSet.pImageInfo", case_image_info },
	{ "VkWriteDescriptorSet.pBufferInfo", case_buffer_info },
	{ "VkWriteDescriptorSet.pTexelBufferView", case_texel_buffer_view },
	{ "VkWriteDescriptorSet.dstSet", case_push_dst_set },
	{ "VkComputePipelineCreateInfo.basePipelineHandle", case_compute_base_handle },
	{ "VkComputePipelineCreateInfo.basePipelineIndex", case_compute_base_index },
	{ "VkGraphicsPipelineCreateInfo.basePipelineHandle", case_graphics_basePipelineHandle },
	{ "VkGraphicsPipelineCreateInfo.basePipelineIndex", case_graphics_basePipelineIndex },
	{ "VkGraphicsPipelineCreateInfo.pViewportState", case_graphics_pViewportState },
	{ "VkGraphicsPipelineCreateInfo.pMultisampleState", case_graphics_pMultisampleState },
	{ "VkGraphicsPipelineCreateInfo.pDepthStencilState", case_graphics_pDepthStencilState },
	{ "VkGraphicsPipelineCreateInfo.pColorBlendState", case_graphics_pColorBlendState },
	{ "VkGraphicsPipelineCreateInfo.pTessellationState", case_graphics_pTessellationState },
	{ "VkBufferCreateInfo.pQueueFamilyIndices", case_buffer_queue_families },
	{ "VkImageCreateInfo.pQueueFamilyIndices", case_image_queue_families },
	{ "VkPipelineViewportStateCreateInfo.pViewports", case_graphics_pViewports },
	{ "VkPipelineViewportStateCreateInfo.pScissors", case_graphics_pScissors },
	{ "VkFramebufferCreateInfo.pAttachments", case_imageless_framebuffer },
	{ "VkDescriptorImageInfo.sampler", case_image_sampler },
	{ "VkDescriptorImageInfo.imageView", case_image_view },
	{ "VkSwapchainCreateInfoKHR.pQueueFamilyIndices", case_swapchain_queue_families },
	{ "VkCommandBufferBeginInfo.pInheritanceInfo", case_primary_inheritance },
	{ "VkCommandBufferInheritanceInfo.renderPass", case_inheritance_no_pass },
	{ "VkCommandBufferInheritanceInfo.subpass", case_inheritance_no_pass },
	{ "VkCommandBufferInheritanceInfo.framebuffer", case_inheritance_no_pass },
	{ "VkDescriptorUpdateTemplateCreateInfo.descriptorSetLayout", case_template_push },
	{ "VkDescriptorUpdateTemplateCreateInfo.pipelineBindPoint", case_template_set },
	{ "VkDescriptorUpdateTemplateCreateInfo.pipelineLayout", case_template_set },
	{ "VkDescriptorUpdateTemplateCreateInfo.set", case_template_set },
	{ "*.an input array", case_zero_count },
};

static int case_of(const sbt_vk_ignored_rule *r)
{
	char name[256];
	size_t i;
	snprintf(name, sizeof(name), "%s.%s", r->owner, r->member);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(cases[i].name, name) == 0)
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	ign g;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s --list | CASE\n", PROG);
		return 2;
	}
	if (strcmp(argv[1], "--list") == 0) {
		int missing = 0;
		for (i = 0; i < SBT_VK_IGNORED_RULES; i++) {
			const sbt_vk_ignored_rule *r = &sbt_vk_ignored_rules[i];
			if (case_of(r) < 0) {
				fprintf(stderr, "%s: rule %s.%s (%s) has no case here\n", PROG, r->owner,
				        r->member, r->when);
				missing = 1;
			} else {
				printf("%s.%s\n", r->owner, r->member);
			}
		}
		return missing;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(cases[i].name, argv[1]) == 0)
			break;
	if (i == sizeof(cases) / sizeof(cases[0])) {
		fprintf(stderr, "%s: no case '%s' (see --list)\n", PROG, argv[1]);
		return 2;
	}
	ign_init(&g);
	cases[i].run(&g);
	vkDestroyDevice(g.c.device, NULL);
	vkDestroyInstance(g.c.instance, NULL);
	printf("%s: %s ok\n", PROG, argv[1]);
	return 0;
}
