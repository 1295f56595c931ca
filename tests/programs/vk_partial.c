/*
 * vk_partial - a valid compute program that leaves descriptor bindings
 * unwritten, as the Vulkan specification allows (issue 12: the replay
 * must not refuse it).
 *
 * Its pipeline layout (tests/shaders/vk_partial.comp) has two sets of
 * storage buffers.  Set 0: binding 0 the outputs; binding 1 read by the
 * shader only when a push constant asks (never here).  Each is written by
 * a vkUpdateDescriptorSets call of its own, and the layout carries a
 * VkDescriptorSetLayoutBindingFlagsCreateInfo with no flags, so that a
 * test can make binding 1 PARTIALLY_BOUND and leave its write out (lavapipe
 * lacks descriptorBindingPartiallyBound, so the program cannot ask for it
 * itself).  Set 1: one binding no shader uses, bound and never written,
 * which the specification allows.  Each round dispatches y[i] = 3 * i + 1
 * and checks every word on the host.
 *
 * --sets 3 adds a set 2 like set 1 (bound, never written): a pipeline
 * whose layout has three sets with bindings (tsreplay took the count for
 * a buffer's state, "memory freed", and refused the submit).
 *
 * usage: vk_partial [--size N] [--submits K] [--sets 2|3]
 * Prints one line: size, submits and the sum of every result word read.
 */
#include "tests/programs/vk_prog.h"

int main(int argc, char **argv)
{
	uint32_t size = 1024, submits = 2, nsets = 2, r, i, push[2];
	uint64_t sum = 0;
	vkp_ctx c;
	vkp_buffer out;
	VkDescriptorSetLayoutBinding binds[2];
	VkDescriptorBindingFlags bflags[2] = { 0, 0 };
	VkDescriptorSetLayoutBindingFlagsCreateInfo bfci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
		.bindingCount = 2,
		.pBindingFlags = bflags
	};
	VkDescriptorSetLayoutCreateInfo dslci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.pNext = &bfci,
		.bindingCount = 2,
		.pBindings = binds
	};
	VkDescriptorPoolSize psize = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push) };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkWriteDescriptorSet wds = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	VkDescriptorBufferInfo dbi;
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkDescriptorSetLayout dsl[3];
	VkDescriptorPool pool;
	VkDescriptorSet set[3];
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	uint32_t *y;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--size"))
			size = vkp_parse_u32("vk_partial", argv[a], vkp_next_arg(argc, argv, &a), 64, 1u << 20);
		else if (!strcmp(argv[a], "--submits"))
			submits = vkp_parse_u32("vk_partial", argv[a], vkp_next_arg(argc, argv, &a), 1, 1000);
		else if (!strcmp(argv[a], "--sets"))
			nsets = vkp_parse_u32("vk_partial", argv[a], vkp_next_arg(argc, argv, &a), 2, 3);
		else {
			fprintf(stderr, "usage: vk_partial [--size N] [--submits K] [--sets 2|3]\n");
			return 2;
		}
	}
	vkp_ctx_init(&c, "vk_partial", VKP_TIMELINE); /* Vulkan 1.2: the binding flags struct */
	vkp_buffer_create(&c, &out, (VkDeviceSize)size * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 1);
	y = out.map;

	memset(binds, 0, sizeof(binds));
	for (i = 0; i < 2; i++) {
		binds[i].binding = i;
		binds[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		binds[i].descriptorCount = 1;
		binds[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
	}
	VKP_CHECK(&c, vkCreateDescriptorSetLayout(c.device, &dslci, NULL, &dsl[0]));
	dslci.pNext = NULL;
	dslci.bindingCount = 1;
	VKP_CHECK(&c, vkCreateDescriptorSetLayout(c.device, &dslci, NULL, &dsl[1]));
	dsl[2] = dsl[1];
	dpci.maxSets = 3;
	dpci.poolSizeCount = 1;
	dpci.pPoolSizes = &psize;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = nsets;
	dsai.pSetLayouts = dsl;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, set));
	/* set 0's bindings, one call each; sets 1 and 2 stay unwritten */
	dbi = (VkDescriptorBufferInfo){ out.buf, 0, VK_WHOLE_SIZE };
	wds.dstSet = set[0];
	wds.descriptorCount = 1;
	wds.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
	wds.pBufferInfo = &dbi;
	for (i = 0; i < 2; i++) {
		wds.dstBinding = i;
		vkUpdateDescriptorSets(c.device, 1, &wds, 0, NULL);
	}

	plci.setLayoutCount = nsets;
	plci.pSetLayouts = dsl;
	plci.pushConstantRangeCount = 1;
	plci.pPushConstantRanges = &pcr;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_partial.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);

	cpci.queueFamilyIndex = c.qfam;
	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	for (r = 0; r < submits; r++) {
		memset(y, 0, (size_t)size * 4);
		push[0] = size;
		push[1] = 0; /* binding 1 is never reached */
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, nsets, set, 0, NULL);
		vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), push);
		vkCmdDispatch(cb, (size + 63) / 64, 1, 1);
		bmb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
		bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		bmb.buffer = out.buf;
		bmb.size = VK_WHOLE_SIZE;
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
		                     0, NULL, 1, &bmb, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb;
		VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		VKP_CHECK(&c, vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX));
		VKP_CHECK(&c, vkResetFences(c.device, 1, &fence));
		vkp_buffer_invalidate(&c, &out);
		for (i = 0; i < size; i++) {
			if (y[i] != 3 * i + 1)
				vkp_die(&c, "round %u: result %u is 0x%08x, expected 0x%08x", (unsigned)r,
				        (unsigned)i, y[i], 3 * i + 1);
			sum += y[i];
		}
	}
	printf("vk_partial: size %u submits %u sum %llu\n", (unsigned)size, (unsigned)submits,
	       (unsigned long long)sum);

	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, mod, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, pool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl[1], NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl[0], NULL);
	vkp_buffer_destroy(&c, &out);
	vkp_ctx_finish(&c);
	return 0;
}
