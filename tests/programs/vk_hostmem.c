/*
 * vk_hostmem - device memory imported from the program's own host memory
 * (VK_EXT_external_memory_host): the program writes the device's bytes at
 * its own address, with no vkMapMemory in between.
 *
 * Two host allocations, aligned to minImportedHostPointerAlignment, are
 * imported as VkDeviceMemory (VkImportMemoryHostPointerInfoEXT) and bound
 * to a source and a destination buffer (VkExternalMemoryBufferCreateInfo).
 * The source holds a pattern written before the import.  Each round the
 * host writes one page of the source and one word of its first page —
 * through its own pointer in even rounds, through a vkMapMemory of the
 * imported memory (the driver's pointer into the same pages) in odd ones
 * —, then one submit copies the source over the destination and fills 256
 * bytes of a page of it with the round's number; after the fence wait the
 * host checks the destination against its own model.
 *
 * --upload: the source is used as programs use an upload buffer in host
 * memory they imported (mpv through libplacebo): its usage also allows
 * TRANSFER_DST, each copy takes all but its last page, and between the
 * submit and the fence wait the host writes 64 bytes of that last page,
 * as the program's other heap data sharing the imported pages changes
 * while the copy runs.  Those are host writes, not the device's.
 *
 * usage: vk_hostmem [--rounds R] [--upload]
 * Prints one line: rounds, the alignment and the XXH3-64 hash of every
 * round's destination.
 */
#include "tests/programs/vk_prog.h"

#define VHM_PAGES 16u
#define VHM_PAGE 4096u

static void vhm_usage(FILE *f)
{
	fprintf(f, "usage: vk_hostmem [--rounds R] [--upload]\n"
	           "  --rounds R  rounds, one submit and fence wait each (1..10000, default 8)\n"
	           "  --upload    the source as an upload buffer (TRANSFER_SRC | TRANSFER_DST),\n"
	           "              its last page, which no copy reads, written during each copy\n");
}

/* Instance (Vulkan 1.1) and a device with VK_EXT_external_memory_host on
 * the first physical device's first queue family that does transfers. */
static void vhm_ctx_init(vkp_ctx *c, VkDeviceSize *align_out)
{
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
	};
	VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2 };
	const char *ext = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	VkExtensionProperties exts[256];
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 1, nfam = 16, next = 256, i;
	float prio = 1.0f;
	VkResult r;

	memset(c, 0, sizeof(*c));
	c->prog = "vk_hostmem";
	app.pApplicationName = c->prog;
	app.applicationVersion = 1;
	app.pEngineName = "tracesmith-tests";
	app.apiVersion = VK_API_VERSION_1_1;
	ici.pApplicationInfo = &app;
	VKP_CHECK(c, vkCreateInstance(&ici, NULL, &c->instance));
	r = vkEnumeratePhysicalDevices(c->instance, &ndev, &c->phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(c, "no Vulkan physical device");
	vkGetPhysicalDeviceProperties(c->phys, &c->dev_props);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
	r = vkEnumerateDeviceExtensionProperties(c->phys, NULL, &next, exts);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		vkp_die(c, "vkEnumerateDeviceExtensionProperties: %s", vkp_result_name(r));
	for (i = 0; i < next && strcmp(exts[i].extensionName, ext) != 0; i++)
		;
	if (i == next)
		vkp_die(c, "device '%s' does not offer %s", c->dev_props.deviceName, ext);
	p2.pNext = &hp;
	vkGetPhysicalDeviceProperties2(c->phys, &p2);
	*align_out = hp.minImportedHostPointerAlignment;
	vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &nfam, fams);
	for (i = 0; i < nfam; i++)
		if (fams[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
			break;
	if (i == nfam)
		vkp_die(c, "no graphics or compute queue family");
	c->qfam = i;
	qci.queueFamilyIndex = i;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	dci.enabledExtensionCount = 1;
	dci.ppEnabledExtensionNames = &ext;
	VKP_CHECK(c, vkCreateDevice(c->phys, &dci, NULL, &c->device));
	vkGetDeviceQueue(c->device, i, 0, &c->queue);
}

/* A buffer over size bytes of the program's host memory at host, imported;
 * the memory type's flags in *flags_out. */
static VkBuffer vhm_import(const vkp_ctx *c, void *host, VkDeviceSize size,
                           VkBufferUsageFlags usage, VkDeviceMemory *mem_out,
                           VkMemoryPropertyFlags *flags_out)
{
	PFN_vkGetMemoryHostPointerPropertiesEXT props_of =
		(PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
			c->device, "vkGetMemoryHostPointerPropertiesEXT");
	const VkExternalMemoryHandleTypeFlagBits ht =
		VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	VkExternalMemoryBufferCreateInfo ebci = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = ht
	};
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryHostPointerPropertiesEXT hpp = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
	};
	VkImportMemoryHostPointerInfoEXT imp = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT
	};
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryRequirements req;
	VkBuffer buf;
	if (!props_of)
		vkp_die(c, "vkGetMemoryHostPointerPropertiesEXT is not offered");
	VKP_CHECK(c, props_of(c->device, ht, host, &hpp));
	bci.pNext = &ebci;
	bci.size = size;
	bci.usage = usage;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	VKP_CHECK(c, vkCreateBuffer(c->device, &bci, NULL, &buf));
	vkGetBufferMemoryRequirements(c->device, buf, &req);
	imp.handleType = ht;
	imp.pHostPointer = host;
	mai.pNext = &imp;
	mai.allocationSize = size;
	mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits & hpp.memoryTypeBits, 0,
	                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
	                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	*flags_out = c->mem_props.memoryTypes[mai.memoryTypeIndex].propertyFlags;
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, mem_out));
	VKP_CHECK(c, vkBindBufferMemory(c->device, buf, *mem_out, 0));
	return buf;
}

int main(int argc, char **argv)
{
	const VkDeviceSize size = (VkDeviceSize)VHM_PAGES * VHM_PAGE;
	uint32_t rounds = 8, r, i;
	int upload = 0;
	vkp_ctx c;
	VkDeviceSize align;
	uint8_t *src, *dst, *model, *mapped = NULL;
	VkBuffer sbuf, dbuf;
	VkDeviceMemory smem, dmem;
	VkMemoryPropertyFlags sflags, dflags;
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	XXH3_state_t *hs;

	for (i = 1; i < (uint32_t)argc; i++) {
		int k = (int)i;
		if (!strcmp(argv[i], "--rounds")) {
			rounds = vkp_parse_u32("vk_hostmem", argv[i], vkp_next_arg(argc, argv, &k), 1, 10000);
		} else if (!strcmp(argv[i], "--upload")) {
			upload = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			vhm_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_hostmem: unknown option '%s'\n", argv[i]);
			vhm_usage(stderr);
			return 2;
		}
		i = (uint32_t)k;
	}

	vhm_ctx_init(&c, &align);
	if (!align || align > size || size % align)
		vkp_die(&c, "minImportedHostPointerAlignment %llu does not divide %llu",
		        (unsigned long long)align, (unsigned long long)size);
	src = aligned_alloc((size_t)align, (size_t)size);
	dst = aligned_alloc((size_t)align, (size_t)size);
	model = malloc((size_t)size);
	if (!src || !dst || !model)
		vkp_die(&c, "out of memory");
	/* the source's contents before the import; page 3 left zero */
	for (i = 0; i < size; i++)
		src[i] = i / VHM_PAGE == 3 ? 0 : (uint8_t)(i * 7 + i / 251);
	memset(dst, 0, (size_t)size);
	memset(model, 0, (size_t)size);
	sbuf = vhm_import(&c, src, size,
	                  VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
	                      (upload ? VK_BUFFER_USAGE_TRANSFER_DST_BIT : 0),
	                  &smem, &sflags);
	dbuf = vhm_import(&c, dst, size,
	                  VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &dmem,
	                  &dflags);
	if (!(sflags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) ||
	    !(sflags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) ||
	    !(dflags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
		vkp_die(&c, "the imported memory is not host-visible and coherent");
	VKP_CHECK(&c, vkMapMemory(c.device, smem, 0, VK_WHOLE_SIZE, 0, (void **)&mapped));

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	for (r = 0; r < rounds; r++) {
		/* --upload: all but the last page, which the host writes meanwhile */
		VkBufferCopy all = { 0, 0, upload ? size - VHM_PAGE : size };
		VkDeviceSize fill_at = (VkDeviceSize)((r * 3 + 1) % VHM_PAGES) * VHM_PAGE + 512;
		VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
			                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT };
		VkMemoryBarrier tb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
			                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT };
		uint8_t *w = r % 2 ? mapped : src; /* the same bytes, two addresses */
		uint32_t page = (r * 5 + 2) % VHM_PAGES, word = 0xC0DE0000u + r;

		/* the host's writes: one page, one word of the first page */
		memset(w + (size_t)page * VHM_PAGE, (int)(0x40 + r), VHM_PAGE);
		memcpy(w + 8 * (size_t)r % VHM_PAGE, &word, 4);
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		vkCmdCopyBuffer(cb, sbuf, dbuf, 1, &all);
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
		                     1, &tb, 0, NULL, 0, NULL);
		vkCmdFillBuffer(cb, dbuf, fill_at, 256, 0x01010101u * (r + 1));
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
		                     &mb, 0, NULL, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		if (upload)
			memset(src + size - VHM_PAGE + 64 * (r % (VHM_PAGE / 64)), (int)(0xA0 + r), 64);
		VKP_CHECK(&c, vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX));
		VKP_CHECK(&c, vkResetFences(c.device, 1, &fence));
		memcpy(model, src, (size_t)all.size);
		memset(model + fill_at, (int)(r + 1), 256);
		for (i = 0; i < size; i++)
			if (dst[i] != model[i])
				vkp_die(&c, "round %u: byte %u of the destination is %u, expected %u",
				        (unsigned)r, (unsigned)i, dst[i], model[i]);
		if (XXH3_64bits_update(hs, dst, (size_t)size) != XXH_OK)
			vkp_die(&c, "hash update failed");
	}
	printf("vk_hostmem: rounds %u alignment %llu hash 0x%016llx\n", (unsigned)rounds,
	       (unsigned long long)align, (unsigned long long)XXH3_64bits_digest(hs));

	XXH3_freeState(hs);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkUnmapMemory(c.device, smem);
	vkDestroyBuffer(c.device, dbuf, NULL);
	vkDestroyBuffer(c.device, sbuf, NULL);
	vkFreeMemory(c.device, dmem, NULL);
	vkFreeMemory(c.device, smem, NULL);
	vkp_ctx_finish(&c);
	free(model);
	free(dst);
	free(src);
	return 0;
}
