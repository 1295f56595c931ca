/*
 * vk_compute - a compute program for capture and replay tests: buffers,
 * a descriptor set, a compute pipeline, one submit per round with a fence,
 * and host readback into a persistently mapped HOST_VISIBLE buffer.  It
 * never presents.
 *
 * Each round the host writes inputs through mapped memory (all of them in
 * round 0, a moving quarter after that, so a capture sees partial writes),
 * writes the round's parameters and flushes them, dispatches
 * tests/shaders/vk_compute.comp into a device buffer, copies that into the
 * readback buffer, waits (vkWaitForFences on even rounds, polling
 * vkGetFenceStatus on odd ones), invalidates and checks every result
 * against the same function computed here.
 *
 * --timeline (Vulkan 1.2): each round's submit signals a timeline semaphore
 * to the round's number (from 1) instead of a fence, and the host waits
 * with vkWaitSemaphores on even rounds and by polling
 * vkGetSemaphoreCounterValue on odd ones; where the readback memory is
 * host-coherent it then reads the results without an invalidate (nothing
 * else tells a layer that the host may now read them).
 *
 * Inputs always have 0x1 in their top nibble and results 0xE, so no result
 * word equals an input word: a test that finds result bytes in a trace's
 * blobs has found device-written memory captured as host input.
 *
 * usage: vk_compute [--size N] [--submits K] [--labels] [--results FILE]
 *                   [--inputs FILE] [--app-window A-B] [--execute] [--timeline]
 * Prints one line: size, submits, the XXH3-64 hash of every result word
 * read (all rounds, in order) and the first and last results of the last
 * round.  --results writes those result words (little-endian u32, all
 * rounds) to FILE; --inputs writes the input words of round 0 (all of
 * them, as the host wrote them) to FILE.  --labels enables
 * VK_EXT_debug_utils and puts a command buffer label around each round's
 * work, a queue label after each submit and names on the buffers.
 * --app-window A-B opens a capture window with the in-app API
 * (tracesmith_app.h) before round A (from 1) and closes it after round B's
 * results are read, printing "app window: start RC end RC".
 * --execute: each round's command buffer first executes a secondary
 * command buffer (recorded once: it fills a scratch buffer), then binds
 * the pipeline and the descriptor set and dispatches, as it must, since
 * executing a secondary leaves the primary's state undefined (the
 * hostile-trace test moves the binds ahead of the execute:
 * tests/shell/test_vk_hostile_execute.sh).  The results are the same.
 * --churn K: first creates and destroys an instance with a device K times,
 * one after the other.  --instances N: N - 1 instances, each with a
 * device, are created before the one that does the work and destroyed
 * after it (a program on a GL driver may keep one per context), so the
 * work runs on the N-th live instance and device.  The results are the
 * same.
 */
#include "tests/programs/vk_prog.h"
#include "tracesmith/tracesmith_app.h"

typedef struct vkc_opts {
	uint32_t size;
	uint32_t submits;
	int labels;
	int execute;
	int timeline;
	const char *results;
	const char *inputs;
	uint32_t app_first, app_last; /* --app-window, 0: none */
	uint32_t instances, churn;
} vkc_opts;

static void vkc_usage(FILE *f)
{
	fprintf(f, "usage: vk_compute [--size N] [--submits K] [--labels] [--results FILE]\n"
	           "                  [--inputs FILE]\n"
	           "  --size N      input words per round (64..16777216, default 4096)\n"
	           "  --submits K   rounds, one submit and fence wait each (1..100000, default 4)\n"
	           "  --labels      VK_EXT_debug_utils labels and object names\n"
	           "  --results F   write every result word read (u32 LE, all rounds) to F\n"
	           "  --inputs F    write round 0's input words (u32 LE) to F\n"
	           "  --app-window A-B  in-app capture window over rounds A..B (from 1)\n"
	           "  --execute     each round executes a secondary command buffer first\n"
	           "  --timeline    wait on a timeline semaphore, not a fence (Vulkan 1.2)\n"
	           "  --churn K     first create and destroy an instance and device K times\n"
	           "  --instances N the work on the N-th live instance and device (1..64)\n");
}

static void vkc_parse(int argc, char **argv, vkc_opts *o)
{
	int i;

	o->size = 4096;
	o->submits = 4;
	o->labels = 0;
	o->execute = 0;
	o->timeline = 0;
	o->results = NULL;
	o->inputs = NULL;
	o->app_first = o->app_last = 0;
	o->instances = 1;
	o->churn = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--size")) {
			o->size = vkp_parse_u32("vk_compute", a, vkp_next_arg(argc, argv, &i), 64, 1u << 24);
		} else if (!strcmp(a, "--app-window")) {
			const char *v = vkp_need_arg("vk_compute", a, argc, argv, &i);
			if (sscanf(v, "%u-%u", &o->app_first, &o->app_last) != 2 || !o->app_first ||
			    o->app_last < o->app_first) {
				fprintf(stderr, "vk_compute: --app-window '%s' is not A-B (1 <= A <= B)\n", v);
				exit(2);
			}
		} else if (!strcmp(a, "--submits")) {
			o->submits = vkp_parse_u32("vk_compute", a, vkp_next_arg(argc, argv, &i), 1,
			                           100000);
		} else if (!strcmp(a, "--instances")) {
			o->instances = vkp_parse_u32("vk_compute", a, vkp_next_arg(argc, argv, &i), 1, 64);
		} else if (!strcmp(a, "--churn")) {
			o->churn = vkp_parse_u32("vk_compute", a, vkp_next_arg(argc, argv, &i), 0, 1000);
		} else if (!strcmp(a, "--execute")) {
			o->execute = 1;
		} else if (!strcmp(a, "--timeline")) {
			o->timeline = 1;
		} else if (!strcmp(a, "--labels")) {
			o->labels = 1;
		} else if (!strcmp(a, "--results")) {
			o->results = vkp_need_arg("vk_compute", a, argc, argv, &i);
		} else if (!strcmp(a, "--inputs")) {
			o->inputs = vkp_need_arg("vk_compute", a, argc, argv, &i);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vkc_usage(stdout);
			exit(0);
		} else {
			fprintf(stderr, "vk_compute: unknown option '%s'\n", a);
			vkc_usage(stderr);
			exit(2);
		}
	}
}

/* Submits si signalling timeline to value (--timeline: no fence). */
static void vkc_timeline_submit(const vkp_ctx *c, VkSubmitInfo *si, VkSemaphore timeline,
                                uint64_t value)
{
	VkTimelineSemaphoreSubmitInfo tsi = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		                              .signalSemaphoreValueCount = 1,
		                              .pSignalSemaphoreValues = &value };
	si->pNext = &tsi;
	si->signalSemaphoreCount = 1;
	si->pSignalSemaphores = &timeline;
	VKP_CHECK(c, vkQueueSubmit(c->queue, 1, si, VK_NULL_HANDLE));
	si->pNext = NULL;
}

/* Until timeline reaches value: vkWaitSemaphores, or (poll) polling
 * vkGetSemaphoreCounterValue. */
static void vkc_timeline_wait(const vkp_ctx *c, VkSemaphore timeline, uint64_t value, int wait)
{
	VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		                   .semaphoreCount = 1,
		                   .pSemaphores = &timeline,
		                   .pValues = &value };
	uint64_t now = 0;
	if (wait) {
		VKP_CHECK(c, vkWaitSemaphores(c->device, &wi, UINT64_MAX));
		return;
	}
	for (;;) {
		VKP_CHECK(c, vkGetSemaphoreCounterValue(c->device, timeline, &now));
		if (now >= value)
			return;
		usleep(100);
	}
}

/* Until fence signals: vkWaitForFences, or (poll) polling vkGetFenceStatus. */
static void vkc_fence_wait(const vkp_ctx *c, VkFence fence, int wait)
{
	VkResult st;
	if (wait) {
		VKP_CHECK(c, vkWaitForFences(c->device, 1, &fence, VK_TRUE, UINT64_MAX));
		return;
	}
	while ((st = vkGetFenceStatus(c->device, fence)) == VK_NOT_READY)
		usleep(100);
	VKP_CHECK(c, st);
}

int main(int argc, char **argv)
{
	vkc_opts o;
	int app_start = TRACESMITH_APP_NOT_CAPTURING;
	vkp_ctx c, *others = NULL;
	vkp_buffer params, inputs, work, readback, scratch;
	VkDescriptorPoolSize psizes[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1 },
		                               { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 } };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkDescriptorSetLayout dsl;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb, sec = VK_NULL_HANDLE;
	VkFence fence;
	VkSemaphore timeline = VK_NULL_HANDLE;
	XXH3_state_t *hs;
	uint8_t *all_results = NULL;
	VkDeviceSize bytes;
	uint32_t r, i, *x, *y;
	uint64_t hash;

	vkc_parse(argc, argv, &o);
	bytes = (VkDeviceSize)o.size * 4;
	for (i = 0; i < o.churn; i++) {
		vkp_ctx_init(&c, "vk_compute", 0);
		vkp_ctx_finish(&c);
	}
	if (o.instances > 1) {
		others = calloc(o.instances - 1, sizeof(*others));
		if (!others) {
			fprintf(stderr, "vk_compute: out of memory\n");
			return 1;
		}
		for (i = 0; i + 1 < o.instances; i++)
			vkp_ctx_init(&others[i], "vk_compute", 0);
	}
	vkp_ctx_init(&c, "vk_compute",
	             (o.labels ? VKP_DEBUG_UTILS : 0) | (o.timeline ? VKP_TIMELINE : 0));

	vkp_buffer_create(&c, &params, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0, 1);
	vkp_buffer_create(&c, &inputs, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkp_buffer_create(&c, &work, bytes,
	                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0,
	                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	vkp_buffer_create(&c, &readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	vkp_name(&c, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)inputs.buf, "vk_compute.inputs");
	vkp_name(&c, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)readback.buf, "vk_compute.readback");

	dsl = vkp_compute_set_layout(&c);
	dpci.maxSets = 1;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &pool));
	dsai.descriptorPool = pool;
	dsai.descriptorSetCount = 1;
	dsai.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &set));
	vkp_compute_set_write(&c, set, &params, &inputs, &work);

	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_compute.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));
	if (o.timeline) {
		VkSemaphoreTypeCreateInfo tci = { VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, NULL,
			                          VK_SEMAPHORE_TYPE_TIMELINE, 0 };
		VkSemaphoreCreateInfo sci = { VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &tci, 0 };
		VKP_CHECK(&c, vkCreateSemaphore(c.device, &sci, NULL, &timeline));
	}
	memset(&scratch, 0, sizeof(scratch));
	if (o.execute) {
		VkCommandBufferInheritanceInfo inh = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
		VkCommandBufferBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		vkp_buffer_create(&c, &scratch, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, 0, 0);
		cbai.level = VK_COMMAND_BUFFER_LEVEL_SECONDARY;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &sec));
		sbi.pInheritanceInfo = &inh;
		VKP_CHECK(&c, vkBeginCommandBuffer(sec, &sbi));
		vkCmdFillBuffer(sec, scratch.buf, 0, VK_WHOLE_SIZE, 0x5a5a5a5au);
		VKP_CHECK(&c, vkEndCommandBuffer(sec));
	}

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	if (o.results) {
		all_results = malloc((size_t)bytes * o.submits);
		if (!all_results)
			vkp_die(&c, "out of memory for --results (%llu bytes)",
			        (unsigned long long)bytes * o.submits);
	}

	x = inputs.map;
	y = readback.map;
	for (r = 0; r < o.submits; r++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		uint32_t *pw = params.map;
		uint32_t lo = 0, hi = o.size;
		char label[64];

		if (r + 1 == o.app_first)
			app_start = tracesmith_start_capture();
		/* Round 0 writes every input; later rounds a moving quarter. */
		if (r > 0) {
			lo = (uint32_t)(((uint64_t)r * 5 * o.size / 8) % o.size) & ~15u;
			hi = lo + o.size / 4 < o.size ? lo + o.size / 4 : o.size;
		}
		for (i = lo; i < hi; i++)
			x[i] = vkp_compute_input(i, r);
		if (r == 0 && o.inputs)
			vkp_write_file(&c, o.inputs, x, (size_t)bytes);
		pw[0] = o.size;
		pw[1] = r;
		vkp_buffer_flush(&c, &params);

		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		snprintf(label, sizeof(label), "vk_compute round %u", (unsigned)r);
		vkp_cmd_label_begin(&c, cb, label);
		if (sec)
			vkCmdExecuteCommands(cb, 1, &sec);
		vkp_compute_record(cb, pipe, layout, set, o.size, &work, &readback);
		vkp_cmd_label_end(&c, cb);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));

		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb;
		if (o.timeline)
			vkc_timeline_submit(&c, &si, timeline, r + 1);
		else
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, fence));
		snprintf(label, sizeof(label), "vk_compute submitted %u", (unsigned)r);
		vkp_queue_label(&c, label);
		if (o.timeline) {
			vkc_timeline_wait(&c, timeline, r + 1, r % 2 == 0);
			if (!readback.coherent)
				vkp_buffer_invalidate(&c, &readback);
		} else {
			vkc_fence_wait(&c, fence, r % 2 == 0);
			VKP_CHECK(&c, vkResetFences(c.device, 1, &fence));
			vkp_buffer_invalidate(&c, &readback);
		}

		for (i = 0; i < o.size; i++) {
			uint32_t want = vkp_compute_mix(x[i], r);
			if (y[i] != want)
				vkp_die(&c, "round %u: result %u is 0x%08x, expected 0x%08x (input 0x%08x)",
				        (unsigned)r, (unsigned)i, y[i], want, x[i]);
		}
		if (XXH3_64bits_update(hs, y, (size_t)bytes) != XXH_OK)
			vkp_die(&c, "hash update failed");
		if (all_results)
			memcpy(all_results + (size_t)bytes * r, y, (size_t)bytes);
		if (r + 1 == o.app_last)
			printf("app window: start %d end %d\n", app_start, tracesmith_end_capture());
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_compute: size %u submits %u hash 0x%016llx first 0x%08x last 0x%08x\n",
	       (unsigned)o.size, (unsigned)o.submits, (unsigned long long)hash, y[0],
	       y[o.size - 1]);
	if (all_results)
		vkp_write_file(&c, o.results, all_results, (size_t)bytes * o.submits);

	free(all_results);
	XXH3_freeState(hs);
	vkDestroyFence(c.device, fence, NULL);
	if (timeline)
		vkDestroySemaphore(c.device, timeline, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, mod, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, pool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &work);
	vkp_buffer_destroy(&c, &inputs);
	vkp_buffer_destroy(&c, &params);
	if (scratch.buf)
		vkp_buffer_destroy(&c, &scratch);
	vkp_ctx_finish(&c);
	for (i = 0; i + 1 < o.instances; i++)
		vkp_ctx_finish(&others[i]);
	free(others);
	return 0;
}
