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
 * usage: vk_trim_churn [--rounds R] [--size N] [--timeline]
 * Prints one line: rounds, size and the XXH3-64 hash of every result word.
 */
#include "tests/programs/vk_prog.h"

static void vkt_usage(FILE *f)
{
	fprintf(f, "usage: vk_trim_churn [--rounds R] [--size N] [--timeline]\n"
	           "  --rounds R  rounds, one submit and fence wait each (1..10000, default 12)\n"
	           "  --size N    words per round (64..1048576, default 1024)\n"
	           "  --timeline  a timeline semaphore counts the rounds (Vulkan 1.2)\n");
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
	vkp_buffer params, fixed_in, in[2], work, readback;
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 },
		                               { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkDescriptorSetLayout dsl, dsls[2];
	VkDescriptorPool pool;
	VkDescriptorSet sets[2]; /* 0: the fixed input, 1: the churning one */
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cbs[2]; /* 0: recorded once, 1: recorded in odd rounds */
	VkFence fence;
	VkSemaphore timeline = VK_NULL_HANDLE;
	int use_timeline = 0;
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

	vkp_ctx_init(&c, "vk_trim_churn", use_timeline ? VKP_TIMELINE : 0);
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
	dpci.maxSets = 2;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsls[0] = dsls[1] = dsl;
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = 2;
	dsai.pSetLayouts = dsls;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, sets));
	vkp_compute_set_write(&c, sets[0], &params, &fixed_in, &work);

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

		VKP_CHECK(&c, vkResetFences(c.device, 1, &fence));
		/* a new input buffer; the set's update that named the previous
		 * one names a destroyed buffer from now on */
		vkt_inputs(&c, cur, size, r);
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
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_trim_churn: rounds %u size %u hash 0x%016llx\n", (unsigned)rounds,
	       (unsigned)size, (unsigned long long)hash);

	XXH3_freeState(hs);
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
