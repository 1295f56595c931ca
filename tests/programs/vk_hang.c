/*
 * vk_hang - a compute program whose shader never finishes when one word
 * of its input is 0 (tests/shaders/vk_hang.comp: one invocation spins
 * while the "go" word is 0).  The program writes a non-zero go word
 * (VK_HANG_GO) through mapped memory, so it runs at once: one submit with
 * a fence, one vkWaitForFences, the result checked.  A test edits the
 * trace so the word replays as 0 and the replayed wait never ends
 * (tests/shell/test_vk_hostile_hang.sh).
 *
 * usage: vk_hang [--go N] [--groups N]
 * Prints "vk_hang: go 0x600df1a6 result 0x800df1a6 turns 0".  --go N
 * writes N instead (0: the program runs the never-ending case itself) and
 * --groups N dispatches N workgroups of 64 instead of 65535 (with --go 0,
 * to time one: the full dispatch takes that times 65535).
 */
#include "tests/programs/vk_prog.h"

/* A word easy to find among a trace's memory bytes. */
#define VK_HANG_GO 0x600DF1A6u
/* Workgroups of 64 (tests/shaders/vk_hang.comp says why so many). */
#define VK_HANG_GROUPS 65535u

int main(int argc, char **argv)
{
	vkp_ctx c;
	vkp_buffer params, go, outputs;
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1 },
		                               { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkDescriptorSetLayout dsl;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	uint32_t *y, gov = VK_HANG_GO, groups = VK_HANG_GROUPS;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--go")) {
			gov = vkp_parse_u32("vk_hang", argv[i], vkp_next_arg(argc, argv, &i), 0, UINT32_MAX);
		} else if (!strcmp(argv[i], "--groups")) {
			groups = vkp_parse_u32("vk_hang", argv[i], vkp_next_arg(argc, argv, &i), 1, 65535);
		} else {
			fprintf(stderr, "usage: vk_hang [--go N] [--groups N]\n");
			return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
		}
	}
	vkp_ctx_init(&c, "vk_hang", 0);
	vkp_buffer_create(&c, &params, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 0);
	vkp_buffer_create(&c, &go, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkp_buffer_create(&c, &outputs, 256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);

	dsl = vkp_compute_set_layout(&c);
	dpci.maxSets = 1;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = 1;
	dsai.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &set));
	vkp_compute_set_write(&c, set, &params, &go, &outputs);
	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_hang.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);

	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	((uint32_t *)go.map)[0] = gov;
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	vkCmdDispatch(cb, groups, 1, 1);
	bmb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = outputs.buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
	                     NULL, 1, &bmb, 0, NULL);
	VKP_CHECK(&c, vkEndCommandBuffer(cb));
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
	VKP_CHECK(&c, vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX));

	y = outputs.map;
	printf("vk_hang: go 0x%08x result 0x%08x turns %u\n", gov, y[1], y[0]);

	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, mod, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, pool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	vkp_buffer_destroy(&c, &outputs);
	vkp_buffer_destroy(&c, &go);
	vkp_buffer_destroy(&c, &params);
	vkp_ctx_finish(&c);
	return 0;
}
