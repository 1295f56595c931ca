/*
 * vk_multithread - records command buffers on several threads at once, for
 * the layer's multi-threaded capture.  Each worker thread has its own
 * command pool, command buffer, fence, descriptor set and buffers (inputs
 * written through mapped memory, a device buffer, a mapped readback
 * buffer); they share the device, the pipeline and the queue.
 *
 * Every round, all workers write their inputs and record their command
 * buffers concurrently (tests/shaders/vk_compute.comp, then a copy into the
 * readback buffer).  Then either the main thread submits all of them in one
 * vkQueueSubmit (default), or, with --thread-submit, each worker submits its
 * own under a mutex (the queue is externally synchronized) and waits on its
 * own fence.  Each worker checks its results against the CPU.  With
 * --shared-memory the workers' input buffers are suballocated from one
 * mapped memory object, so threads write neighbouring ranges of the same
 * mapping while others submit.
 *
 * With --quit-file FILE the run ends before R rounds once FILE exists
 * (looked for before each round: by each worker with --thread-submit, by
 * the main thread for all of them otherwise), so that a test can stop a
 * long run when it has what it needs, however slow the build.
 *
 * usage: vk_multithread [--threads T] [--rounds R] [--size N] [--thread-submit]
 *                       [--shared-memory] [--quit-file FILE]
 * Prints the XXH3-64 hash of the per-thread hashes (in thread order) of
 * every result word read; it depends only on T, R and N (and, for a run
 * the quit file ended, on the rounds each thread did, printed before it).
 */
#include <pthread.h>
#include <unistd.h>

#include "tests/programs/vk_prog.h"

#define VKM_MAX_THREADS 16

typedef struct vkm_shared {
	vkp_ctx *c;
	VkPipeline pipe;
	VkPipelineLayout layout;
	uint32_t rounds, size;
	int thread_submit;
	int shared_memory;
	const char *quit_file; /* borrowed from argv; NULL: R rounds */
	int quit;              /* main-submit mode: set by main before `completed` */
	pthread_mutex_t queue_lock;
	pthread_barrier_t recorded;  /* main-submit mode: all recorded */
	pthread_barrier_t completed; /* main-submit mode: the submit finished */
} vkm_shared;

typedef struct vkm_worker {
	vkm_shared *sh;
	uint32_t index;
	pthread_t thread;
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkFence fence;
	VkDescriptorSet set;
	vkp_buffer params, inputs, work, readback;
	uint64_t hash;
	uint32_t rounds_done;
} vkm_worker;

static void vkm_usage(FILE *f)
{
	fprintf(f, "usage: vk_multithread [--threads T] [--rounds R] [--size N] [--thread-submit]\n"
	           "                      [--shared-memory] [--quit-file FILE]\n"
	           "  --threads T      recording threads (1..16, default 4)\n"
	           "  --rounds R       rounds (1..10000, default 3)\n"
	           "  --size N         words per thread (64..1048576, default 2048)\n"
	           "  --thread-submit  each thread submits its own work (under a queue mutex)\n"
	           "  --shared-memory  the inputs of all threads in one mapped memory object\n"
	           "  --quit-file FILE end the run early once FILE exists\n");
}

/* The inputs of every worker as buffers in one host-visible, coherent
 * memory object, mapped once; each worker's vkp_buffer points into it
 * (mem is the shared object: freed once, by the caller). */
static VkDeviceMemory vkm_shared_inputs(vkp_ctx *c, vkm_worker *workers, uint32_t n,
                                        VkDeviceSize bytes)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkDeviceSize stride = 0, offset;
	VkDeviceMemory mem;
	uint32_t bits = ~0u, t;
	uint8_t *base;

	bci.size = bytes;
	bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	for (t = 0; t < n; t++) {
		VkMemoryRequirements req;
		VKP_CHECK(c, vkCreateBuffer(c->device, &bci, NULL, &workers[t].inputs.buf));
		vkGetBufferMemoryRequirements(c->device, workers[t].inputs.buf, &req);
		bits &= req.memoryTypeBits;
		offset = (req.size + req.alignment - 1) / req.alignment * req.alignment;
		if (offset > stride)
			stride = offset;
	}
	mai.allocationSize = stride * n;
	mai.memoryTypeIndex = vkp_memory_type(c, bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
	                                                  VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, &mem));
	VKP_CHECK(c, vkMapMemory(c->device, mem, 0, VK_WHOLE_SIZE, 0, (void **)&base));
	for (t = 0; t < n; t++) {
		vkp_buffer *b = &workers[t].inputs;
		VKP_CHECK(c, vkBindBufferMemory(c->device, b->buf, mem, stride * t));
		b->mem = mem;
		b->size = bytes;
		b->alloc_size = stride;
		b->mem_type = mai.memoryTypeIndex;
		b->coherent = 1;
		b->map = base + stride * t;
	}
	return mem;
}

static void vkm_record(vkm_worker *w, uint32_t r)
{
	vkm_shared *sh = w->sh;
	vkp_ctx *c = sh->c;
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	uint32_t *x = w->inputs.map, *pw = w->params.map, i;

	/* Input words differ per thread: thread t uses indices t*size+i. */
	for (i = 0; i < sh->size; i++)
		x[i] = vkp_compute_input(w->index * sh->size + i, r);
	pw[0] = sh->size;
	pw[1] = r;
	VKP_CHECK(c, vkResetCommandPool(c->device, w->pool, 0));
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(c, vkBeginCommandBuffer(w->cb, &bi));
	vkp_compute_record(w->cb, sh->pipe, sh->layout, w->set, sh->size, &w->work, &w->readback);
	VKP_CHECK(c, vkEndCommandBuffer(w->cb));
}

static void vkm_check(vkm_worker *w, uint32_t r, XXH3_state_t *hs)
{
	const uint32_t *x = w->inputs.map, *y = w->readback.map;
	uint32_t i;

	for (i = 0; i < w->sh->size; i++) {
		uint32_t want = vkp_compute_mix(x[i], r);
		if (y[i] != want)
			vkp_die(w->sh->c, "thread %u round %u: result %u is 0x%08x, expected 0x%08x",
			        (unsigned)w->index, (unsigned)r, (unsigned)i, y[i], want);
	}
	if (XXH3_64bits_update(hs, y, (size_t)w->sh->size * 4) != XXH_OK)
		vkp_die(w->sh->c, "hash update failed");
}

static void *vkm_worker_main(void *arg)
{
	vkm_worker *w = arg;
	vkm_shared *sh = w->sh;
	vkp_ctx *c = sh->c;
	XXH3_state_t *hs = XXH3_createState();
	uint32_t r;

	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(c, "out of memory");
	for (r = 0; r < sh->rounds; r++) {
		if (sh->thread_submit && sh->quit_file && access(sh->quit_file, F_OK) == 0)
			break;
		vkm_record(w, r);
		if (sh->thread_submit) {
			VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
			VkResult res;

			si.commandBufferCount = 1;
			si.pCommandBuffers = &w->cb;
			pthread_mutex_lock(&sh->queue_lock);
			res = vkQueueSubmit(c->queue, 1, &si, w->fence);
			pthread_mutex_unlock(&sh->queue_lock);
			VKP_CHECK(c, res);
			vkp_fence_wait_reset(c, w->fence);
		} else {
			pthread_barrier_wait(&sh->recorded);
			pthread_barrier_wait(&sh->completed);
		}
		vkm_check(w, r, hs);
		w->rounds_done = r + 1;
		if (!sh->thread_submit && sh->quit)
			break;
	}
	w->hash = XXH3_64bits_digest(hs);
	XXH3_freeState(hs);
	return NULL;
}

int main(int argc, char **argv)
{
	vkp_ctx c;
	vkm_shared sh;
	vkm_worker workers[VKM_MAX_THREADS];
	uint64_t hashes[VKM_MAX_THREADS];
	VkCommandBuffer cbs[VKM_MAX_THREADS];
	uint32_t nthreads = 4, t, r;
	VkDescriptorSetLayout dsl;
	VkDescriptorSetLayout dsls[VKM_MAX_THREADS];
	VkDescriptorSet sets[VKM_MAX_THREADS];
	VkDescriptorPoolSize psizes[2];
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkDescriptorPool dpool;
	VkShaderModule mod;
	VkFence main_fence;
	VkDeviceMemory shared_mem = VK_NULL_HANDLE;
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	int i;

	memset(&sh, 0, sizeof(sh));
	sh.rounds = 3;
	sh.size = 2048;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--threads")) {
			nthreads = vkp_parse_u32("vk_multithread", a, vkp_next_arg(argc, argv, &i), 1,
			                         VKM_MAX_THREADS);
		} else if (!strcmp(a, "--rounds")) {
			sh.rounds = vkp_parse_u32("vk_multithread", a, vkp_next_arg(argc, argv, &i), 1, 10000);
		} else if (!strcmp(a, "--size")) {
			sh.size = vkp_parse_u32("vk_multithread", a, vkp_next_arg(argc, argv, &i), 64,
			                        1u << 20);
		} else if (!strcmp(a, "--thread-submit")) {
			sh.thread_submit = 1;
		} else if (!strcmp(a, "--shared-memory")) {
			sh.shared_memory = 1;
		} else if (!strcmp(a, "--quit-file")) {
			sh.quit_file = vkp_need_arg("vk_multithread", a, argc, argv, &i);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vkm_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_multithread: unknown option '%s'\n", a);
			vkm_usage(stderr);
			return 2;
		}
	}

	vkp_ctx_init(&c, "vk_multithread", 0);
	sh.c = &c;
	dsl = vkp_compute_set_layout(&c);
	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &sh.layout));
	mod = vkp_shader_load(&c, "vk_compute.comp.spv");
	sh.pipe = vkp_compute_pipeline(&c, sh.layout, mod);
	psizes[0] = (VkDescriptorPoolSize){ VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nthreads };
	psizes[1] = (VkDescriptorPoolSize){ VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * nthreads };
	dpci.maxSets = nthreads;
	dpci.poolSizeCount = 2;
	dpci.pPoolSizes = psizes;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &dpool));
	for (t = 0; t < nthreads; t++)
		dsls[t] = dsl;
	dsai.descriptorPool = dpool;
	dsai.descriptorSetCount = nthreads;
	dsai.pSetLayouts = dsls;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, sets));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &main_fence));

	memset(workers, 0, sizeof(workers));
	if (sh.shared_memory)
		shared_mem = vkm_shared_inputs(&c, workers, nthreads, (VkDeviceSize)sh.size * 4);
	for (t = 0; t < nthreads; t++) {
		vkm_worker *w = &workers[t];
		VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
		VkCommandBufferAllocateInfo cbai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
		};
		VkDeviceSize bytes = (VkDeviceSize)sh.size * 4;

		w->sh = &sh;
		w->index = t;
		w->set = sets[t];
		cpci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
		cpci.queueFamilyIndex = c.qfam;
		VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &w->pool));
		cbai.commandPool = w->pool;
		cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &w->cb));
		VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &w->fence));
		vkp_buffer_create(&c, &w->params, 256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		if (!sh.shared_memory)
			vkp_buffer_create(&c, &w->inputs, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
			                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
			                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
			                  0, 1);
		vkp_buffer_create(&c, &w->work, bytes,
		                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0,
		                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
		vkp_buffer_create(&c, &w->readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		                  0, 1);
		vkp_compute_set_write(&c, w->set, &w->params, &w->inputs, &w->work);
		cbs[t] = w->cb;
	}

	pthread_mutex_init(&sh.queue_lock, NULL);
	if (!sh.thread_submit) {
		pthread_barrier_init(&sh.recorded, NULL, nthreads + 1);
		pthread_barrier_init(&sh.completed, NULL, nthreads + 1);
	}
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&workers[t].thread, NULL, vkm_worker_main, &workers[t]) != 0)
			vkp_die(&c, "pthread_create failed");
	if (!sh.thread_submit) {
		for (r = 0; r < sh.rounds; r++) {
			VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };

			pthread_barrier_wait(&sh.recorded);
			si.commandBufferCount = nthreads;
			si.pCommandBuffers = cbs;
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, main_fence));
			vkp_fence_wait_reset(&c, main_fence);
			sh.quit = sh.quit_file && access(sh.quit_file, F_OK) == 0;
			pthread_barrier_wait(&sh.completed);
			if (sh.quit)
				break;
		}
	}
	for (t = 0; t < nthreads; t++) {
		pthread_join(workers[t].thread, NULL);
		hashes[t] = workers[t].hash;
		if (workers[t].rounds_done < sh.rounds)
			printf("vk_multithread: thread %u ended by the quit file after %u rounds\n",
			       (unsigned)t, (unsigned)workers[t].rounds_done);
	}
	printf("vk_multithread: threads %u rounds %u size %u hash 0x%016llx\n", (unsigned)nthreads,
	       (unsigned)sh.rounds, (unsigned)sh.size,
	       (unsigned long long)XXH3_64bits(hashes, sizeof(hashes[0]) * nthreads));

	if (!sh.thread_submit) {
		pthread_barrier_destroy(&sh.recorded);
		pthread_barrier_destroy(&sh.completed);
	}
	pthread_mutex_destroy(&sh.queue_lock);
	for (t = 0; t < nthreads; t++) {
		vkm_worker *w = &workers[t];
		vkp_buffer_destroy(&c, &w->readback);
		vkp_buffer_destroy(&c, &w->work);
		if (sh.shared_memory)
			vkDestroyBuffer(c.device, w->inputs.buf, NULL);
		else
			vkp_buffer_destroy(&c, &w->inputs);
		vkp_buffer_destroy(&c, &w->params);
		vkDestroyFence(c.device, w->fence, NULL);
		vkDestroyCommandPool(c.device, w->pool, NULL);
	}
	if (shared_mem != VK_NULL_HANDLE) {
		vkUnmapMemory(c.device, shared_mem);
		vkFreeMemory(c.device, shared_mem, NULL);
	}
	vkDestroyFence(c.device, main_fence, NULL);
	vkDestroyDescriptorPool(c.device, dpool, NULL);
	vkDestroyPipeline(c.device, sh.pipe, NULL);
	vkDestroyShaderModule(c.device, mod, NULL);
	vkDestroyPipelineLayout(c.device, sh.layout, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	vkp_ctx_finish(&c);
	return 0;
}
