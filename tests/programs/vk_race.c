/*
 * vk_race - a compute program with a planted missing barrier, for the
 * emulator's race detection (tests/shell/test_emu_vk.sh) and for comparing
 * with the validation layer's synchronization validation.
 *
 * One queue (lavapipe has one): a dispatch of tests/shaders/vk_compute.comp
 * writes a device buffer through a storage descriptor, a vkCmdCopyBuffer
 * reads that buffer into a host-visible one.  Without --barrier nothing
 * orders the copy after the dispatch: a read-after-write hazard.  With
 * --barrier a buffer memory barrier (COMPUTE_SHADER/SHADER_WRITE ->
 * TRANSFER/TRANSFER_READ) sits between them.  --split puts the dispatch and
 * the copy in two command buffers (the barrier, with --barrier, at the
 * start of the second), so the hazard, or its barrier, spans them:
 *   --split          two vkQueueSubmit calls, one after the other
 *   --split-batches  one vkQueueSubmit with two VkSubmitInfo
 *   --split-cbs      one VkSubmitInfo holding both command buffers
 * Between two batches (--split, --split-batches) the order can also come
 * from a binary semaphore the first signals and the second waits for
 * (--semaphore transfer: at the copy's stage; --semaphore compute: at a
 * stage that does not cover the copy), or, with --split, from a fence the
 * host waits for between the two submits (--fence).  --second-queue
 * (with --split) makes the second submit through the handle of a second
 * vkGetDeviceQueue of queue 0 (lavapipe has one queue, so it is the same
 * queue here); tests/programs/vk_requeue then rewrites the trace so that
 * it is queue 1 of the family: a two-queue trace whose barrier no longer
 * orders the copy after the dispatch.  --queue-index1 (with
 * --second-queue) asks the device for two queues of the family and makes
 * that second submit on queue index 1 for real (a GPU's driver: lavapipe
 * has one, and the program then stops naming it).  --map-part puts the buffer the
 * dispatch writes in host-visible memory and maps its first half (the
 * host never reads it), so that tsreplay --per-command, which cannot map
 * all of a memory the application has mapped in part, reads it with a
 * copy on the device (tests/shell/test_vk_percmd.sh).  --neighbours (with
 * --split) surrounds the copy in its command buffer with commands whose
 * results do not depend on the order of the submits: a vkCmdFillBuffer of
 * a buffer of its own before it, a vkCmdUpdateBuffer of that buffer after
 * it (tsreplay --per-command names the copy inside the submit,
 * tests/shell/test_vk_percmd_inner.sh).  --consumer (with --split) puts a
 * second dispatch ahead of the copy in its command buffer: it reads the
 * buffer the first dispatch writes (a second descriptor set) and writes a
 * buffer of its own, so that it is the first command of its submit whose
 * result depends on the order of the submits; with --consumer-secondary
 * its bind and dispatch are recorded in a secondary command buffer (before
 * the first command buffer) that the copy's command buffer executes in
 * their place.  --binding-flags gives the
 * descriptor set layout a VkDescriptorSetLayoutBindingFlagsCreateInfo with
 * no flags (one per binding), so that a test can make its bindings
 * UPDATE_AFTER_BIND in the trace (lavapipe lacks the update-after-bind
 * features of storage and uniform buffers, so the program cannot ask for
 * it itself; tests/shell/test_vk_percmd_uab.sh).  --update-after-bind
 * (with --consumer) does that for real on a device that can (a GPU's
 * driver): every binding UPDATE_AFTER_BIND, the pool and the layout made
 * for it, and the consumer's set written only after the command buffers
 * that bind it were recorded (tests/gpu/test_gpu_vulkan.sh).
 *
 * usage: vk_race [--barrier] [--split|--split-batches|--split-cbs]
 *                [--semaphore transfer|compute] [--fence] [--second-queue]
 *                [--queue-index1] [--map-part] [--neighbours] [--consumer]
 *                [--consumer-secondary] [--binding-flags] [--update-after-bind]
 *                [--size N]
 * Prints "vk_race: barrier B split S size N hash H" (S: 0 none, 1 --split,
 * 2 --split-batches, 3 --split-cbs; H the XXH3-64 of the
 * words read back).  With --barrier the results are checked against the
 * CPU (with --queue-index1 only when a fence or a semaphore waited at the
 * transfer stage orders the two queues); without it they are whatever the
 * device produced.
 */
#include "tests/programs/vk_prog.h"

typedef struct vkr_opts {
	int barrier, split, fence, second_queue, queue_index1, map_part, neighbours, consumer;
	int consumer_secondary, binding_flags, uab;
	VkPipelineStageFlags semaphore; /* the wait's stage; 0: no semaphore */
	uint32_t size;
} vkr_opts;

static void vkr_usage(FILE *f)
{
	fprintf(f, "usage: vk_race [--barrier] [--split|--split-batches|--split-cbs]\n"
	           "               [--semaphore transfer|compute] [--fence] [--size N]\n"
	           "  --barrier        order the copy after the dispatch (else: a missing barrier)\n"
	           "  --split          dispatch and copy in two vkQueueSubmit calls on one queue\n"
	           "  --split-batches  ... in two batches of one vkQueueSubmit\n"
	           "  --split-cbs      ... in two command buffers of one batch\n"
	           "  --semaphore transfer|compute  a semaphore between the two batches,\n"
	           "                   waited for at that stage\n"
	           "  --fence          (--split) the host waits for the first submit's fence\n"
	           "  --second-queue   (--split) the second submit through a second vkGetDeviceQueue\n"
	           "  --queue-index1   (--second-queue) that queue is index 1 of a two-queue device\n"
	           "  --map-part       the dispatch's buffer host-visible, its first half mapped\n"
	           "  --neighbours     (--split) a fill before the copy and an update after it\n"
	           "  --consumer       (--split) a dispatch reading the first one's buffer before the copy\n"
	           "  --consumer-secondary  (--consumer) its dispatch in a secondary command buffer\n"
	           "  --binding-flags  the set layout carries binding flags (none)\n"
	           "  --update-after-bind  (--consumer) every binding UPDATE_AFTER_BIND, the consumer's set\n"
	           "                   written after the recording\n"
	           "  --size N         words (64..1048576, default 1024)\n");
}

static void vkr_parse(int argc, char **argv, vkr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = 1024;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--barrier")) {
			o->barrier = 1;
		} else if (!strcmp(a, "--split")) {
			o->split = 1;
		} else if (!strcmp(a, "--split-batches")) {
			o->split = 2;
		} else if (!strcmp(a, "--split-cbs")) {
			o->split = 3;
		} else if (!strcmp(a, "--semaphore")) {
			const char *v = vkp_need_arg("vk_race", a, argc, argv, &i);

			if (!strcmp(v, "transfer")) {
				o->semaphore = VK_PIPELINE_STAGE_TRANSFER_BIT;
			} else if (!strcmp(v, "compute")) {
				o->semaphore = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
			} else {
				fprintf(stderr, "vk_race: --semaphore takes transfer or compute, not '%s'\n", v);
				exit(2);
			}
		} else if (!strcmp(a, "--fence")) {
			o->fence = 1;
		} else if (!strcmp(a, "--second-queue")) {
			o->second_queue = 1;
		} else if (!strcmp(a, "--queue-index1")) {
			o->queue_index1 = 1;
		} else if (!strcmp(a, "--map-part")) {
			o->map_part = 1;
		} else if (!strcmp(a, "--neighbours")) {
			o->neighbours = 1;
		} else if (!strcmp(a, "--consumer")) {
			o->consumer = 1;
		} else if (!strcmp(a, "--consumer-secondary")) {
			o->consumer_secondary = 1;
		} else if (!strcmp(a, "--update-after-bind")) {
			o->uab = 1;
			o->binding_flags = 1;
		} else if (!strcmp(a, "--binding-flags")) {
			o->binding_flags = 1;
		} else if (!strcmp(a, "--size")) {
			o->size = vkp_parse_u32("vk_race", a, vkp_need_arg("vk_race", a, argc, argv, &i), 64,
			                        1048576);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vkr_usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "vk_race: unknown option '%s'\n", a);
			vkr_usage(stderr);
			exit(2);
		}
	}
	if ((o->semaphore && o->split != 1 && o->split != 2) ||
	    ((o->fence || o->second_queue || o->neighbours || o->consumer) && o->split != 1)) {
		fprintf(stderr, "vk_race: --semaphore needs --split or --split-batches, --fence, "
		        "--second-queue, --neighbours and --consumer need --split\n");
		exit(2);
	}
	if (o->queue_index1 && !o->second_queue) {
		fprintf(stderr, "vk_race: --queue-index1 needs --second-queue\n");
		exit(2);
	}
	if (o->uab && !o->consumer) {
		fprintf(stderr, "vk_race: --update-after-bind needs --consumer\n");
		exit(2);
	}
	if (o->consumer_secondary && !o->consumer) {
		fprintf(stderr, "vk_race: --consumer-secondary needs --consumer\n");
		exit(2);
	}
}

static void vkr_begin(const vkp_ctx *c, VkCommandBuffer cb)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };

	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(c, vkBeginCommandBuffer(cb, &bi));
}

/* A buffer barrier on buf from (src stage, access) to (dst stage, access). */
static void vkr_barrier(VkCommandBuffer cb, VkBuffer buf, VkPipelineStageFlags src, VkAccessFlags srca,
                        VkPipelineStageFlags dst, VkAccessFlags dsta)
{
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };

	bmb.srcAccessMask = srca;
	bmb.dstAccessMask = dsta;
	bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, src, dst, 0, 0, NULL, 1, &bmb, 0, NULL);
}

/* vk_compute.comp's set layout (vkp_compute_set_layout) with binding flags
 * chained: none set, or with uab every binding UPDATE_AFTER_BIND. */
static VkDescriptorSetLayout vkr_flagged_layout(const vkp_ctx *c, int uab)
{
	VkDescriptorBindingFlags f = uab ? VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT : 0;
	VkDescriptorBindingFlags flags[3] = { f, f, f };
	VkDescriptorSetLayoutBindingFlagsCreateInfo bfci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
		.bindingCount = 3,
		.pBindingFlags = flags
	};
	VkDescriptorSetLayoutCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.pNext = &bfci
	};
	VkDescriptorSetLayoutBinding binds[3];
	VkDescriptorSetLayout dsl;

	memset(binds, 0, sizeof(binds));
	for (uint32_t k = 0; k < 3; k++) {
		binds[k].binding = k;
		binds[k].descriptorType = k == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
		                                 : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		binds[k].descriptorCount = 1;
		binds[k].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
	}
	ci.bindingCount = 3;
	ci.pBindings = binds;
	if (uab)
		ci.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
	VKP_CHECK(c, vkCreateDescriptorSetLayout(c->device, &ci, NULL, &dsl));
	return dsl;
}

int main(int argc, char **argv)
{
	vkr_opts o;
	vkp_ctx c;
	vkp_buffer params, inputs, work, readback, side, out2;
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 },
		                           { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VkSemaphore sem = VK_NULL_HANDLE;
	VkFence first_fence = VK_NULL_HANDLE;
	VkSubmitInfo si[2] = { { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO }, { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO } };
	int second;
	VkBufferCopy region;
	VkDescriptorSetLayout dsl;
	VkDescriptorPool pool;
	VkDescriptorSet set, set2 = VK_NULL_HANDLE;
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb[2], sec = VK_NULL_HANDLE;
	VkFence fence;
	VkQueue queue2;
	VkDeviceSize bytes;
	uint32_t *x, *y, *pw;

	vkr_parse(argc, argv, &o);
	bytes = (VkDeviceSize)o.size * 4;
	/* Vulkan 1.2 for the binding flags struct */
	vkp_ctx_init(&c, "vk_race",
	             (o.queue_index1 ? VKP_TWO_QUEUES : 0) | (o.binding_flags ? VKP_TIMELINE : 0) |
	                 (o.uab ? VKP_UAB : 0));
	queue2 = c.queue;
	if (o.second_queue)
		vkGetDeviceQueue(c.device, c.qfam, o.queue_index1 ? 1 : 0, &queue2);
	vkp_buffer_create(&c, &params, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 1);
	vkp_buffer_create(&c, &inputs, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 1);
	vkp_buffer_create(&c, &work, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
	                  o.map_part ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT : 0,
	                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	if (o.map_part)
		VKP_CHECK(&c, vkMapMemory(c.device, work.mem, 0, work.alloc_size / 2, 0, &work.map));
	vkp_buffer_create(&c, &readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	if (o.neighbours)
		vkp_buffer_create(&c, &side, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
		                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	if (o.consumer)
		vkp_buffer_create(&c, &out2, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0,
		                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);

	dsl = o.binding_flags ? vkr_flagged_layout(&c, o.uab) : vkp_compute_set_layout(&c);
	if (o.uab)
		dpci.flags = VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT;
	dpci.maxSets = 2;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = 1;
	dsai.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &set));
	vkp_compute_set_write(&c, set, &params, &inputs, &work);
	if (o.consumer) {
		VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &set2));
		if (!o.uab) /* else after the recording, below */
			vkp_compute_set_write(&c, set2, &params, &work, &out2);
	}
	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_compute.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);

	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 2;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, cb));
	if (o.consumer_secondary) {
		cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &sec));
	}
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));
	if (o.semaphore)
		VKP_CHECK(&c, vkCreateSemaphore(c.device, &sci, NULL, &sem));
	if (o.fence)
		VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &first_fence));

	x = inputs.map;
	for (uint32_t i = 0; i < o.size; i++)
		x[i] = vkp_compute_input(i, 0);
	pw = params.map;
	pw[0] = o.size;
	pw[1] = 0;
	vkp_buffer_flush(&c, &params);

	second = o.split ? 1 : 0;
	if (sec) {
		/* the consumer, executed outside a render pass */
		VkCommandBufferInheritanceInfo inh = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		bi.pInheritanceInfo = &inh;
		VKP_CHECK(&c, vkBeginCommandBuffer(sec, &bi));
		vkCmdBindPipeline(sec, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(sec, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set2, 0, NULL);
		vkCmdDispatch(sec, (o.size + 63) / 64, 1, 1);
		VKP_CHECK(&c, vkEndCommandBuffer(sec));
	}
	/* the dispatch writes work ... */
	vkr_begin(&c, cb[0]);
	vkCmdBindPipeline(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdBindDescriptorSets(cb[0], VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	vkCmdDispatch(cb[0], (o.size + 63) / 64, 1, 1);
	if (o.split) {
		VKP_CHECK(&c, vkEndCommandBuffer(cb[0]));
		vkr_begin(&c, cb[1]);
	}
	if (o.neighbours)
		vkCmdFillBuffer(cb[second], side.buf, 0, VK_WHOLE_SIZE, 0x5a5a5a5au);
	/* ... and the copy reads it: ordered only with --barrier */
	if (o.barrier)
		vkr_barrier(cb[second], work.buf, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
		            VK_PIPELINE_STAGE_TRANSFER_BIT | (o.consumer ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT : 0),
		            VK_ACCESS_TRANSFER_READ_BIT | (o.consumer ? VK_ACCESS_SHADER_READ_BIT : 0));
	if (sec) {
		vkCmdExecuteCommands(cb[second], 1, &sec);
	} else if (o.consumer) {
		/* as does a second dispatch, into out2 */
		vkCmdBindPipeline(cb[second], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(cb[second], VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set2, 0, NULL);
		vkCmdDispatch(cb[second], (o.size + 63) / 64, 1, 1);
	}
	region.srcOffset = 0;
	region.dstOffset = 0;
	region.size = bytes;
	vkCmdCopyBuffer(cb[second], work.buf, readback.buf, 1, &region);
	vkr_barrier(cb[second], readback.buf, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
	            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	if (o.neighbours) {
		static const uint32_t words[4] = {1, 2, 3, 4};
		vkr_barrier(cb[second], side.buf, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
		            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
		vkCmdUpdateBuffer(cb[second], side.buf, 0, sizeof(words), words);
	}
	VKP_CHECK(&c, vkEndCommandBuffer(cb[second]));
	if (o.uab)
		vkp_compute_set_write(&c, set2, &params, &work, &out2);

	si[0].commandBufferCount = o.split == 3 ? 2 : 1;
	si[0].pCommandBuffers = &cb[0];
	si[1].commandBufferCount = 1;
	si[1].pCommandBuffers = &cb[1];
	if (o.semaphore) {
		si[0].signalSemaphoreCount = 1;
		si[0].pSignalSemaphores = &sem;
		si[1].waitSemaphoreCount = 1;
		si[1].pWaitSemaphores = &sem;
		si[1].pWaitDstStageMask = &o.semaphore;
	}
	if (o.split == 1) {
		VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si[0], first_fence));
		if (o.fence)
			VKP_CHECK(&c, vkWaitForFences(c.device, 1, &first_fence, VK_TRUE, UINT64_MAX));
		VKP_CHECK(&c, vkQueueSubmit(queue2, 1, &si[1], fence));
	} else {
		VKP_CHECK(&c, vkQueueSubmit(c.queue, o.split == 2 ? 2 : 1, si, fence));
	}
	VKP_CHECK(&c, vkWaitForFences(c.device, 1, &fence, VK_TRUE, UINT64_MAX));
	/* on two real queues the first submit may still run: wait for it too
	 * before its command buffer and pool go (on one queue the fence of the
	 * second covers it) */
	if (o.queue_index1 && !o.fence)
		VKP_CHECK(&c, vkQueueWaitIdle(c.queue));
	vkp_buffer_invalidate(&c, &readback);
	y = readback.map;
	/* the barrier orders the copy after the dispatch only on one queue;
	 * across two, only a fence or a semaphore waited at the copy's stage */
	if (o.barrier && (!o.queue_index1 || o.fence || o.semaphore == VK_PIPELINE_STAGE_TRANSFER_BIT))
		for (uint32_t i = 0; i < o.size; i++)
			if (y[i] != vkp_compute_mix(x[i], 0))
				vkp_die(&c, "result %u is 0x%08x, expected 0x%08x", (unsigned)i, y[i],
				        vkp_compute_mix(x[i], 0));
	printf("vk_race: barrier %d split %d size %u hash 0x%016llx\n", o.barrier, o.split, (unsigned)o.size,
	       (unsigned long long)XXH3_64bits(y, (size_t)bytes));

	vkDestroyFence(c.device, fence, NULL);
	if (first_fence)
		vkDestroyFence(c.device, first_fence, NULL);
	if (sem)
		vkDestroySemaphore(c.device, sem, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, mod, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, pool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	if (o.neighbours)
		vkp_buffer_destroy(&c, &side);
	if (o.consumer)
		vkp_buffer_destroy(&c, &out2);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &work);
	vkp_buffer_destroy(&c, &inputs);
	vkp_buffer_destroy(&c, &params);
	vkp_ctx_finish(&c);
	return 0;
}
