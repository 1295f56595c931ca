/*
 * vk_reach - host writes that a submission does not reach, for the layer's
 * reach tracking (layers/vulkan/vkl_reach.c).
 *
 * Before each phase the host writes several mapped ranges; each phase's
 * one submission reaches only some of them, through a different path:
 *
 *   phase 1  vkCmdCopyBuffer from buffer A (own memory)
 *   phase 2  a secondary command buffer (vkCmdExecuteCommands) binding a
 *            descriptor set written with vkUpdateDescriptorSets: params and
 *            input B, both suballocated from shared memory S
 *   phase 3  a descriptor set written through a descriptor update template:
 *            params and input C, also in S, 64 KiB past B
 *   phase 4  vkCmdCopyImageToBuffer from linear image E (own memory)
 *   phase 5  vkCmdCopyBuffer from A again (B is written again, not reached)
 *
 * All host writes before phase 1 (A, B, C, E, params) happen at once, so a
 * layer publishing every mapping at phase 1 records them all there; one
 * that follows reach records each just before the phase that uses it.
 * Each phase's result lands in mapped buffer R and is checked against the
 * CPU.  An empty submission right after mapping separates the mappings'
 * initial contents from the phases.
 *
 * Prints the handles the test needs ("vk_reach: memory A 0x.. S 0x.. E
 * 0x.. offset B O C O") and then "vk_reach: hash H" over every result.
 * usage: vk_reach [--size N]   (words per input, default 1024)
 */
#include "tests/programs/vk_prog.h"

#define VKR_SHARED_STEP 65536u /* B at 1 step into S, C at 2, params at 0 */
#define VKR_IMAGE_DIM 32u

typedef struct vkr {
	vkp_ctx c;
	uint32_t size;
	VkDeviceSize bytes;
	VkDeviceMemory shared;
	void *shared_map;
	VkBuffer params, in_b, in_c;
	vkp_buffer a, work, readback;
	VkImage image;
	VkDeviceMemory image_mem;
	uint8_t *image_map;
	VkSubresourceLayout image_layout;
	VkDescriptorSetLayout dsl;
	VkPipelineLayout layout;
	VkPipeline pipe;
	VkDescriptorPool dpool;
	VkDescriptorSet set_b, set_c;
	VkDescriptorUpdateTemplate tmpl;
	VkCommandPool cpool;
	VkCommandBuffer cb, secondary;
	VkFence fence;
	XXH3_state_t *hs;
} vkr;

static VkBuffer vkr_shared_buffer(vkr *v, VkDeviceSize offset, VkDeviceSize size,
                                  VkBufferUsageFlags usage, uint32_t *type_bits)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryRequirements req;
	VkBuffer b;

	bci.size = size;
	bci.usage = usage;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	VKP_CHECK(&v->c, vkCreateBuffer(v->c.device, &bci, NULL, &b));
	vkGetBufferMemoryRequirements(v->c.device, b, &req);
	if (offset % req.alignment || req.size > VKR_SHARED_STEP)
		vkp_die(&v->c, "a buffer of %llu bytes does not fit a %u-byte step",
		        (unsigned long long)size, VKR_SHARED_STEP);
	*type_bits &= req.memoryTypeBits;
	return b;
}

static void vkr_setup_memory(vkr *v)
{
	const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
	                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
	VkMemoryRequirements req;
	uint32_t bits = ~0u;

	v->params = vkr_shared_buffer(v, 0, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &bits);
	v->in_b = vkr_shared_buffer(v, VKR_SHARED_STEP, v->bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                            &bits);
	v->in_c = vkr_shared_buffer(v, 2 * VKR_SHARED_STEP, v->bytes,
	                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &bits);
	mai.allocationSize = 3 * VKR_SHARED_STEP;
	mai.memoryTypeIndex = vkp_memory_type(&v->c, bits, hv, 0);
	VKP_CHECK(&v->c, vkAllocateMemory(v->c.device, &mai, NULL, &v->shared));
	VKP_CHECK(&v->c, vkBindBufferMemory(v->c.device, v->params, v->shared, 0));
	VKP_CHECK(&v->c, vkBindBufferMemory(v->c.device, v->in_b, v->shared, VKR_SHARED_STEP));
	VKP_CHECK(&v->c, vkBindBufferMemory(v->c.device, v->in_c, v->shared, 2 * VKR_SHARED_STEP));
	VKP_CHECK(&v->c, vkMapMemory(v->c.device, v->shared, 0, VK_WHOLE_SIZE, 0, &v->shared_map));

	vkp_buffer_create(&v->c, &v->a, v->bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, hv, 0, 1);
	vkp_buffer_create(&v->c, &v->work, v->bytes,
	                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0,
	                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	vkp_buffer_create(&v->c, &v->readback, v->bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, hv, 0, 1);

	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = VK_FORMAT_R8G8B8A8_UINT;
	ici.extent = (VkExtent3D){ VKR_IMAGE_DIM, VKR_IMAGE_DIM, 1 };
	ici.mipLevels = 1;
	ici.arrayLayers = 1;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_LINEAR;
	ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_PREINITIALIZED;
	VKP_CHECK(&v->c, vkCreateImage(v->c.device, &ici, NULL, &v->image));
	vkGetImageMemoryRequirements(v->c.device, v->image, &req);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = vkp_memory_type(&v->c, req.memoryTypeBits, hv, 0);
	VKP_CHECK(&v->c, vkAllocateMemory(v->c.device, &mai, NULL, &v->image_mem));
	VKP_CHECK(&v->c, vkBindImageMemory(v->c.device, v->image, v->image_mem, 0));
	vkGetImageSubresourceLayout(v->c.device, v->image, &sub, &v->image_layout);
	VKP_CHECK(&v->c, vkMapMemory(v->c.device, v->image_mem, 0, VK_WHOLE_SIZE, 0,
	                             (void **)&v->image_map));
}

static void vkr_setup_pipeline(vkr *v)
{
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 },
		                               { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkDescriptorSetLayout dsls[2];
	VkDescriptorSet sets[2];
	VkDescriptorBufferInfo dbi[3];
	vkp_buffer pb = { 0 }, bb = { 0 };
	VkShaderModule mod;

	v->dsl = vkp_compute_set_layout(&v->c);
	dpci.maxSets = 2;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&v->c, vkCreateDescriptorPool(v->c.device, &dpci, NULL, &v->dpool));
	dsls[0] = dsls[1] = v->dsl;
	dsai.descriptorPool = v->dpool;
	dsai.descriptorSetCount = 2;
	dsai.pSetLayouts = dsls;
	VKP_CHECK(&v->c, vkAllocateDescriptorSets(v->c.device, &dsai, sets));
	v->set_b = sets[0];
	v->set_c = sets[1];

	/* set B: vkUpdateDescriptorSets */
	pb.buf = v->params;
	bb.buf = v->in_b;
	bb.size = v->bytes;
	vkp_compute_set_write(&v->c, v->set_b, &pb, &bb, &v->work);

	/* set C: a template over three VkDescriptorBufferInfo */
	v->tmpl = vkp_compute_set_template(&v->c, v->dsl);
	dbi[0] = (VkDescriptorBufferInfo){ v->params, 0, 16 };
	dbi[1] = (VkDescriptorBufferInfo){ v->in_c, 0, v->bytes };
	dbi[2] = (VkDescriptorBufferInfo){ v->work.buf, 0, v->bytes };
	vkUpdateDescriptorSetWithTemplate(v->c.device, v->set_c, v->tmpl, dbi);

	plci.setLayoutCount = 1;
	plci.pSetLayouts = &v->dsl;
	VKP_CHECK(&v->c, vkCreatePipelineLayout(v->c.device, &plci, NULL, &v->layout));
	mod = vkp_shader_load(&v->c, "vk_compute.comp.spv");
	v->pipe = vkp_compute_pipeline(&v->c, v->layout, mod);
	vkDestroyShaderModule(v->c.device, mod, NULL);
}

static void vkr_setup_commands(vkr *v)
{
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = v->c.qfam;
	VKP_CHECK(&v->c, vkCreateCommandPool(v->c.device, &cpci, NULL, &v->cpool));
	cbai.commandPool = v->cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&v->c, vkAllocateCommandBuffers(v->c.device, &cbai, &v->cb));
	cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
	VKP_CHECK(&v->c, vkAllocateCommandBuffers(v->c.device, &cbai, &v->secondary));
	VKP_CHECK(&v->c, vkCreateFence(v->c.device, &fci, NULL, &v->fence));
}

static void vkr_begin(vkr *v)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };

	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(&v->c, vkBeginCommandBuffer(v->cb, &bi));
}

static void vkr_submit(vkr *v, uint32_t ncb)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };

	if (ncb)
		VKP_CHECK(&v->c, vkEndCommandBuffer(v->cb));
	si.commandBufferCount = ncb;
	si.pCommandBuffers = &v->cb;
	VKP_CHECK(&v->c, vkQueueSubmit(v->c.queue, 1, &si, v->fence));
	vkp_fence_wait_reset(&v->c, v->fence);
}

/* The readback holds want[0, n) (n words), or the program dies. */
static void vkr_check(vkr *v, uint32_t phase, const uint32_t *want, uint32_t n)
{
	const uint32_t *y = v->readback.map;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (y[i] != want[i])
			vkp_die(&v->c, "phase %u: word %u is 0x%08x, expected 0x%08x", (unsigned)phase,
			        (unsigned)i, y[i], want[i]);
	if (XXH3_64bits_update(v->hs, y, (size_t)n * 4) != XXH_OK)
		vkp_die(&v->c, "hash update failed");
}

/* Readback made visible to the host after the transfer that wrote it. */
static void vkr_readback_to_host(vkr *v)
{
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };

	bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.srcQueueFamilyIndex = bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = v->readback.buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(v->cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
	                     NULL, 1, &bmb, 0, NULL);
}

/* After a dispatch: the work buffer copied into the readback. */
static void vkr_work_to_readback(vkr *v)
{
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkBufferCopy region = { 0, 0, v->bytes };

	bmb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	bmb.srcQueueFamilyIndex = bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = v->work.buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(v->cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
	                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 1, &bmb, 0, NULL);
	vkCmdCopyBuffer(v->cb, v->work.buf, v->readback.buf, 1, &region);
	vkr_readback_to_host(v);
}

static void vkr_copy_a(vkr *v)
{
	VkBufferCopy region = { 0, 0, v->bytes };

	vkr_begin(v);
	vkCmdCopyBuffer(v->cb, v->a.buf, v->readback.buf, 1, &region);
	vkr_readback_to_host(v);
	vkr_submit(v, 1);
}

/* Phase 2: the dispatch in a secondary command buffer. */
static void vkr_dispatch_secondary(vkr *v)
{
	VkCommandBufferInheritanceInfo inh = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };

	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	bi.pInheritanceInfo = &inh;
	VKP_CHECK(&v->c, vkBeginCommandBuffer(v->secondary, &bi));
	vkCmdBindPipeline(v->secondary, VK_PIPELINE_BIND_POINT_COMPUTE, v->pipe);
	vkCmdBindDescriptorSets(v->secondary, VK_PIPELINE_BIND_POINT_COMPUTE, v->layout, 0, 1,
	                        &v->set_b, 0, NULL);
	vkCmdDispatch(v->secondary, (v->size + 63) / 64, 1, 1);
	VKP_CHECK(&v->c, vkEndCommandBuffer(v->secondary));

	vkr_begin(v);
	vkCmdExecuteCommands(v->cb, 1, &v->secondary);
	vkr_work_to_readback(v);
	vkr_submit(v, 1);
}

static void vkr_copy_image(vkr *v)
{
	VkImageMemoryBarrier imb = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
	VkBufferImageCopy region;

	vkr_begin(v);
	imb.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT;
	imb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	imb.oldLayout = VK_IMAGE_LAYOUT_PREINITIALIZED;
	imb.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	imb.srcQueueFamilyIndex = imb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	imb.image = v->image;
	imb.subresourceRange = (VkImageSubresourceRange){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	vkCmdPipelineBarrier(v->cb, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
	                     NULL, 0, NULL, 1, &imb);
	memset(&region, 0, sizeof(region));
	region.imageSubresource = (VkImageSubresourceLayers){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 };
	region.imageExtent = (VkExtent3D){ VKR_IMAGE_DIM, VKR_IMAGE_DIM, 1 };
	vkCmdCopyImageToBuffer(v->cb, v->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	                       v->readback.buf, 1, &region);
	vkr_readback_to_host(v);
	vkr_submit(v, 1);
}

/* Phase 3: set C, written through the template, in the primary itself. */
static void vkr_dispatch_c(vkr *v)
{
	vkr_begin(v);
	vkCmdBindPipeline(v->cb, VK_PIPELINE_BIND_POINT_COMPUTE, v->pipe);
	vkCmdBindDescriptorSets(v->cb, VK_PIPELINE_BIND_POINT_COMPUTE, v->layout, 0, 1, &v->set_c,
	                        0, NULL);
	vkCmdDispatch(v->cb, (v->size + 63) / 64, 1, 1);
	vkr_work_to_readback(v);
	vkr_submit(v, 1);
}

int main(int argc, char **argv)
{
	vkr v;
	uint32_t *a, *b, *cc, *pw, *want, i, x, y;
	int ai;

	memset(&v, 0, sizeof(v));
	v.size = 1024;
	for (ai = 1; ai < argc; ai++) {
		if (!strcmp(argv[ai], "--size")) {
			const char *s = vkp_need_arg("vk_reach", "--size", argc, argv, &ai);
			v.size = vkp_parse_u32("vk_reach", "--size", s, 64, VKR_SHARED_STEP / 4);
		} else {
			fprintf(stderr, "vk_reach: unknown argument '%s'\nusage: vk_reach [--size N]\n",
			        argv[ai]);
			return 2;
		}
	}
	if (v.size < VKR_IMAGE_DIM * VKR_IMAGE_DIM)
		v.size = VKR_IMAGE_DIM * VKR_IMAGE_DIM; /* phase 4 reads the image into R */
	v.bytes = (VkDeviceSize)v.size * 4;
	vkp_ctx_init(&v.c, "vk_reach", 0);
	vkr_setup_memory(&v);
	vkr_setup_pipeline(&v);
	vkr_setup_commands(&v);
	v.hs = XXH3_createState();
	want = malloc(v.bytes);
	if (!v.hs || !want || XXH3_64bits_reset(v.hs) != XXH_OK)
		vkp_die(&v.c, "out of memory");
	printf("vk_reach: memory A 0x%llx S 0x%llx E 0x%llx offset B %u C %u\n",
	       (unsigned long long)(uintptr_t)v.a.mem, (unsigned long long)(uintptr_t)v.shared,
	       (unsigned long long)(uintptr_t)v.image_mem, VKR_SHARED_STEP, 2 * VKR_SHARED_STEP);

	/* Nothing is written yet: the mappings' initial contents stay apart. */
	vkr_submit(&v, 0);

	a = v.a.map;
	pw = v.shared_map;
	b = (uint32_t *)((uint8_t *)v.shared_map + VKR_SHARED_STEP);
	cc = (uint32_t *)((uint8_t *)v.shared_map + 2 * VKR_SHARED_STEP);
	for (i = 0; i < v.size; i++) {
		a[i] = vkp_compute_input(i, 11);
		b[i] = vkp_compute_input(i, 22);
		cc[i] = vkp_compute_input(i, 33);
	}
	pw[0] = v.size;
	pw[1] = 2;
	for (y = 0; y < VKR_IMAGE_DIM; y++)
		for (x = 0; x < VKR_IMAGE_DIM; x++) {
			uint32_t t = vkp_compute_input(y * VKR_IMAGE_DIM + x, 44);
			memcpy(v.image_map + v.image_layout.offset + y * v.image_layout.rowPitch + x * 4,
			       &t, 4);
		}

	vkr_copy_a(&v); /* phase 1 */
	vkr_check(&v, 1, a, v.size);

	vkr_dispatch_secondary(&v); /* phase 2 */
	for (i = 0; i < v.size; i++)
		want[i] = vkp_compute_mix(b[i], 2);
	vkr_check(&v, 2, want, v.size);

	pw[1] = 3;
	vkr_dispatch_c(&v); /* phase 3 */
	for (i = 0; i < v.size; i++)
		want[i] = vkp_compute_mix(cc[i], 3);
	vkr_check(&v, 3, want, v.size);

	vkr_copy_image(&v); /* phase 4 */
	for (i = 0; i < VKR_IMAGE_DIM * VKR_IMAGE_DIM; i++)
		want[i] = vkp_compute_input(i, 44);
	vkr_check(&v, 4, want, VKR_IMAGE_DIM * VKR_IMAGE_DIM);

	for (i = 0; i < v.size; i++) {
		a[i] = vkp_compute_input(i, 55);
		b[i] = vkp_compute_input(i, 66);
	}
	vkr_copy_a(&v); /* phase 5 */
	vkr_check(&v, 5, a, v.size);

	printf("vk_reach: hash %016llx\n", (unsigned long long)XXH3_64bits_digest(v.hs));
	free(want);
	XXH3_freeState(v.hs);
	vkDestroyFence(v.c.device, v.fence, NULL);
	vkDestroyCommandPool(v.c.device, v.cpool, NULL);
	vkDestroyPipeline(v.c.device, v.pipe, NULL);
	vkDestroyPipelineLayout(v.c.device, v.layout, NULL);
	vkDestroyDescriptorUpdateTemplate(v.c.device, v.tmpl, NULL);
	vkDestroyDescriptorPool(v.c.device, v.dpool, NULL);
	vkDestroyDescriptorSetLayout(v.c.device, v.dsl, NULL);
	vkUnmapMemory(v.c.device, v.image_mem);
	vkDestroyImage(v.c.device, v.image, NULL);
	vkFreeMemory(v.c.device, v.image_mem, NULL);
	vkp_buffer_destroy(&v.c, &v.readback);
	vkp_buffer_destroy(&v.c, &v.work);
	vkp_buffer_destroy(&v.c, &v.a);
	vkUnmapMemory(v.c.device, v.shared);
	vkDestroyBuffer(v.c.device, v.in_c, NULL);
	vkDestroyBuffer(v.c.device, v.in_b, NULL);
	vkDestroyBuffer(v.c.device, v.params, NULL);
	vkFreeMemory(v.c.device, v.shared, NULL);
	vkp_ctx_finish(&v.c);
	return 0;
}
