/*
 * vk_fresh - memory mapped for the first time after submissions, for the
 * capture layer's first-map rule (layers/vulkan/vkl_memory.c,
 * vkl_mem_first_map; docs/vulkan-layer.md, "Mapped memory").
 *
 * Each part allocates host-visible memory after earlier submissions, into
 * a poisoned heap: the program keeps glibc's malloc off mmap and off
 * trimming (mallopt), and fills and frees a heap block a little larger than
 * the allocation just before vkAllocateMemory, so a driver whose memory
 * comes from the heap (lavapipe) hands out memory holding the poison, bytes
 * that neither the trace nor a replay's heap holds.  The program counts the
 * poisoned bytes it finds and prints them; --need-poison makes fewer than
 * 90 % an error (a driver whose memory does not come from the heap).
 *
 *   part 1 (readback)  buffer R in fresh memory allocated with
 *                      VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, usage
 *                      SHADER_DEVICE_ADDRESS (no address asked for, as Mesa's
 *                      zink does); vkCmdFillBuffer writes its first 16 bytes;
 *                      submit, wait, map the whole object: the fill, then
 *                      the driver's initial bytes
 *   part 2 (same)      buffer S in fresh memory; an unrelated submission runs
 *                      and is waited; S is mapped and the host writes the
 *                      poison value over its first half (the bytes it
 *                      already holds) and a pattern over the rest; S copied
 *                      to a readback buffer, read back and checked
 *   part 3 (--address) buffer A in fresh memory allocated for addresses; its
 *                      address asked for (vkGetBufferDeviceAddress);
 *                      vkCmdFillBuffer writes its first half, a compute
 *                      shader (tests/shaders/vk_fresh_addr.comp) the second
 *                      through the address; map: both halves checked
 *
 * Prints "vk_fresh: memory R 0x.. S 0x.. [A 0x..]", the poison counts, and
 * "vk_fresh: hash H" over every byte it read back that a command or the
 * host wrote.
 * usage: vk_fresh [--size N] [--need-poison] [--address]   (bytes per buffer,
 * default 262144, a multiple of 256)
 */
#include <malloc.h>

#include "tests/programs/vk_prog.h"

#define VKF_FILL 0x5eedf111u
#define VKF_SEED 0x7a11u

typedef struct vkf {
	vkp_ctx c;
	VkDeviceSize size;
	int need_poison;
	int address; /* part 3 too */
	uint8_t poison;
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkFence fence;
	vkp_buffer scratch;
	XXH3_state_t *hs;
	PFN_vkGetBufferDeviceAddress get_address;
} vkf;

/* A heap block of the size to come, filled with the poison and freed:
 * the next allocation of about that size takes it. */
static void vkf_poison_heap(vkf *v)
{
	size_t n = (size_t)v->size + (256u << 10);
	uint8_t *p = malloc(n);
	if (!p)
		vkp_die(&v->c, "out of memory");
	memset(p, v->poison, n);
	/* keep the compiler from dropping the fill of a block freed unread */
	__asm__ __volatile__("" : : "r"(p) : "memory");
	free(p);
}

/* A buffer of v->size bytes with usage, in host-visible memory of its own
 * allocated (after poisoning the heap) with flags (0: no
 * VkMemoryAllocateFlagsInfo). */
static void vkf_buffer(vkf *v, vkp_buffer *b, VkBufferUsageFlags usage,
                       VkMemoryAllocateFlags flags)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryAllocateFlagsInfo mafi = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO };
	VkMemoryRequirements req;

	memset(b, 0, sizeof(*b));
	bci.size = v->size;
	bci.usage = usage;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	VKP_CHECK(&v->c, vkCreateBuffer(v->c.device, &bci, NULL, &b->buf));
	vkGetBufferMemoryRequirements(v->c.device, b->buf, &req);
	b->size = v->size;
	b->alloc_size = req.size;
	b->mem_type = vkp_memory_type(&v->c, req.memoryTypeBits,
	                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
	                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                              0);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = b->mem_type;
	if (flags) {
		mafi.flags = flags;
		mai.pNext = &mafi;
	}
	vkf_poison_heap(v);
	VKP_CHECK(&v->c, vkAllocateMemory(v->c.device, &mai, NULL, &b->mem));
	VKP_CHECK(&v->c, vkBindBufferMemory(v->c.device, b->buf, b->mem, 0));
}

static void vkf_begin(vkf *v)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(&v->c, vkResetCommandBuffer(v->cb, 0));
	VKP_CHECK(&v->c, vkBeginCommandBuffer(v->cb, &bi));
}

/* Ends the command buffer with a barrier making transfer and compute writes
 * visible to the host, submits it and waits. */
static void vkf_submit_wait(vkf *v)
{
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
	mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	vkCmdPipelineBarrier(v->cb, VK_PIPELINE_STAGE_TRANSFER_BIT |
	                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
	                     VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
	VKP_CHECK(&v->c, vkEndCommandBuffer(v->cb));
	si.commandBufferCount = 1;
	si.pCommandBuffers = &v->cb;
	VKP_CHECK(&v->c, vkQueueSubmit(v->c.queue, 1, &si, v->fence));
	vkp_fence_wait_reset(&v->c, v->fence);
}

/* Counts the poisoned bytes of p[0, n), checks the share against
 * --need-poison, and prints it. */
static void vkf_poisoned(vkf *v, const char *what, const uint8_t *p, size_t n)
{
	size_t i, k = 0;
	for (i = 0; i < n; i++)
		k += p[i] == v->poison;
	printf("vk_fresh: %s poisoned %zu of %zu\n", what, k, n);
	if (v->need_poison && k < n / 10 * 9)
		vkp_die(&v->c, "%s: only %zu of %zu bytes hold the heap's poison: this driver's memory "
		        "does not come from the heap (--need-poison)", what, k, n);
}

static void vkf_check_words(vkf *v, const char *what, const uint32_t *w, size_t n,
                            uint32_t (*want)(size_t))
{
	for (size_t i = 0; i < n; i++)
		if (w[i] != want(i))
			vkp_die(&v->c, "%s: word %zu is 0x%08x, expected 0x%08x", what, i, w[i], want(i));
	XXH3_64bits_update(v->hs, w, n * 4);
}

static uint32_t vkf_fill_word(size_t i)
{
	(void)i;
	return VKF_FILL;
}

static uint32_t vkf_pattern_word(size_t i)
{
	return (uint32_t)i * 0x9E3779B9u + 1u;
}

static uint32_t vkf_shader_word(size_t i)
{
	return ((uint32_t)i * 2654435761u) ^ VKF_SEED;
}

/* Part 1: a readback buffer the device writes 16 bytes of. */
static VkDeviceMemory vkf_readback(vkf *v)
{
	vkp_buffer r;
	uint8_t *p;
	vkf_buffer(v, &r, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
	           VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT);
	vkf_begin(v);
	vkCmdFillBuffer(v->cb, r.buf, 0, 16, VKF_FILL);
	vkf_submit_wait(v);
	VKP_CHECK(&v->c, vkMapMemory(v->c.device, r.mem, 0, VK_WHOLE_SIZE, 0, (void **)&p));
	vkf_check_words(v, "part 1 (readback)", (const uint32_t *)p, 4, vkf_fill_word);
	vkf_poisoned(v, "part 1 (readback) after the fill", p + 16, (size_t)v->size - 16);
	vkUnmapMemory(v->c.device, r.mem);
	vkDestroyBuffer(v->c.device, r.buf, NULL);
	return r.mem;
}

/* Part 2: a buffer mapped after a submission that does not reach it, the
 * host writing bytes it already holds. */
static VkDeviceMemory vkf_same(vkf *v)
{
	vkp_buffer s, rb;
	uint8_t *p;
	VkBufferCopy region = { 0, 0, v->size };
	size_t half = (size_t)v->size / 2, i;

	vkf_buffer(v, &s, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, 0);
	vkf_begin(v);
	vkCmdFillBuffer(v->cb, v->scratch.buf, 0, VK_WHOLE_SIZE, 0);
	vkf_submit_wait(v);
	VKP_CHECK(&v->c, vkMapMemory(v->c.device, s.mem, 0, VK_WHOLE_SIZE, 0, (void **)&p));
	vkf_poisoned(v, "part 2 (same) at its map", p, (size_t)v->size);
	memset(p, v->poison, half);
	for (i = half; i + 4 <= (size_t)v->size; i += 4) {
		uint32_t w = vkf_pattern_word((i - half) / 4);
		memcpy(p + i, &w, 4);
	}
	vkp_buffer_create(&v->c, &rb, v->size, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkf_begin(v);
	vkCmdCopyBuffer(v->cb, s.buf, rb.buf, 1, &region);
	vkf_submit_wait(v);
	for (i = 0; i < half; i++)
		if (((const uint8_t *)rb.map)[i] != v->poison)
			vkp_die(&v->c, "part 2 (same): byte %zu copied is 0x%02x, the host wrote 0x%02x", i,
			        ((const uint8_t *)rb.map)[i], v->poison);
	vkf_check_words(v, "part 2 (same)", (const uint32_t *)((const uint8_t *)rb.map + half),
	                half / 4, vkf_pattern_word);
	vkp_buffer_destroy(&v->c, &rb);
	vkUnmapMemory(v->c.device, s.mem);
	vkDestroyBuffer(v->c.device, s.buf, NULL);
	return s.mem;
}

/* Part 3: a buffer the shader writes through its address. */
static VkDeviceMemory vkf_address(vkf *v)
{
	struct {
		VkDeviceAddress dst;
		uint32_t count, seed;
	} push;
	VkBufferDeviceAddressInfo ai = { .sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push) };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	vkp_buffer a;
	uint8_t *p;
	size_t half = (size_t)v->size / 2;

	vkf_buffer(v, &a, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
	           VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT);
	ai.buffer = a.buf;
	push.dst = v->get_address(v->c.device, &ai) + half;
	push.count = (uint32_t)(half / 4);
	push.seed = VKF_SEED;
	plci.pushConstantRangeCount = 1;
	plci.pPushConstantRanges = &pcr;
	VKP_CHECK(&v->c, vkCreatePipelineLayout(v->c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&v->c, "vk_fresh_addr.comp.spv");
	pipe = vkp_compute_pipeline(&v->c, layout, mod);
	vkf_begin(v);
	vkCmdFillBuffer(v->cb, a.buf, 0, half, VKF_FILL);
	/* the fill and the shader write different bytes; ordered anyway */
	mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	mb.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
	vkCmdPipelineBarrier(v->cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
	                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
	vkCmdBindPipeline(v->cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdPushConstants(v->cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
	vkCmdDispatch(v->cb, (push.count + 63) / 64, 1, 1);
	vkf_submit_wait(v);
	VKP_CHECK(&v->c, vkMapMemory(v->c.device, a.mem, 0, VK_WHOLE_SIZE, 0, (void **)&p));
	vkf_check_words(v, "part 3 (address) fill", (const uint32_t *)p, half / 4, vkf_fill_word);
	vkf_check_words(v, "part 3 (address) shader", (const uint32_t *)(p + half), half / 4,
	                vkf_shader_word);
	vkUnmapMemory(v->c.device, a.mem);
	vkDestroyPipeline(v->c.device, pipe, NULL);
	vkDestroyShaderModule(v->c.device, mod, NULL);
	vkDestroyPipelineLayout(v->c.device, layout, NULL);
	vkDestroyBuffer(v->c.device, a.buf, NULL);
	return a.mem;
}

int main(int argc, char **argv)
{
	vkf v;
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkDeviceMemory mem[3] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
	int i;

	memset(&v, 0, sizeof(v));
	v.size = 262144;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--size") == 0) {
			const char *s = vkp_need_arg("vk_fresh", "--size", argc, argv, &i);
			char *end;
			unsigned long long n = strtoull(s, &end, 0);
			if (*end || n < 256 || n % 256 || n > ((unsigned long long)1 << 30)) {
				fprintf(stderr, "vk_fresh: --size wants a multiple of 256 from 256 to 1 GiB, "
				        "not '%s'\n", s);
				return 2;
			}
			v.size = n;
		} else if (strcmp(argv[i], "--need-poison") == 0) {
			v.need_poison = 1;
		} else if (strcmp(argv[i], "--address") == 0) {
			v.address = 1;
		} else {
			fprintf(stderr, "usage: vk_fresh [--size N] [--need-poison] [--address]\n");
			return 2;
		}
	}
	/* heap blocks stay in the heap, and freed ones are not given back */
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	/* never 0 (a fresh page's value), never what a replay's heap holds by
	 * accident of a run before */
	v.poison = (uint8_t)(0x80 | (getpid() & 0x7f));

	vkp_ctx_init(&v.c, "vk_fresh", VKP_BDA);
	v.get_address = (PFN_vkGetBufferDeviceAddress)vkGetDeviceProcAddr(v.c.device,
	                                                                   "vkGetBufferDeviceAddress");
	if (!v.get_address)
		vkp_die(&v.c, "vkGetBufferDeviceAddress is missing");
	v.hs = XXH3_createState();
	if (!v.hs)
		vkp_die(&v.c, "out of memory");
	XXH3_64bits_reset(v.hs);
	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = v.c.qfam;
	VKP_CHECK(&v.c, vkCreateCommandPool(v.c.device, &cpci, NULL, &v.pool));
	cbai.commandPool = v.pool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&v.c, vkAllocateCommandBuffers(v.c.device, &cbai, &v.cb));
	VKP_CHECK(&v.c, vkCreateFence(v.c.device, &fci, NULL, &v.fence));
	vkp_buffer_create(&v.c, &v.scratch, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0,
	                  VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
	/* a submission first, so that every part allocates after one */
	vkf_begin(&v);
	vkCmdFillBuffer(v.cb, v.scratch.buf, 0, VK_WHOLE_SIZE, 1);
	vkf_submit_wait(&v);

	mem[0] = vkf_readback(&v);
	mem[1] = vkf_same(&v);
	if (v.address)
		mem[2] = vkf_address(&v);
	printf("vk_fresh: memory R 0x%llx S 0x%llx", (unsigned long long)(uintptr_t)mem[0],
	       (unsigned long long)(uintptr_t)mem[1]);
	if (v.address)
		printf(" A 0x%llx", (unsigned long long)(uintptr_t)mem[2]);
	printf("\n");
	printf("vk_fresh: hash %016llx\n", (unsigned long long)XXH3_64bits_digest(v.hs));
	for (i = 0; i < 3; i++)
		vkFreeMemory(v.c.device, mem[i], NULL);
	vkp_buffer_destroy(&v.c, &v.scratch);
	vkDestroyFence(v.c.device, v.fence, NULL);
	vkDestroyCommandPool(v.c.device, v.pool, NULL);
	XXH3_freeState(v.hs);
	vkp_ctx_finish(&v.c);
	return 0;
}
