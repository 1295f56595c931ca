/*
 * test_vk_null_dset - the null Vulkan device's rule on descriptor sets
 * never written (tests/fuzz/vk_null.c, docs/hostile-traces.md), both ways.
 * The replay refuses a used, unwritten binding before the device sees it
 * (rpvk_dset.c), so the device's own rule is driven here directly: its
 * functions are compiled into this test.
 *
 * A compute shader (SPIR-V written out below) declares two storage buffers,
 * set 0 binding 0 and binding 1, and its function uses binding 0 only.
 * A command buffer binds the set, dispatches, and is submitted:
 *   - binding 0 written, binding 1 not (no shader uses it): accepted;
 *   - nothing written: abort naming set 0 binding 0;
 *   - nothing written, binding 0 PARTIALLY_BOUND: accepted;
 *   - binding 0 written after the bind, before the submit: accepted;
 *   - a write of binding 0 with 2 descriptors when it has 1 goes on into
 *     binding 1: accepted, and binding 1 written;
 *   - binding 0 given no descriptors, nothing written: accepted;
 *   - the old rule's case: a set bound and never written, a shader using
 *     none of it: accepted.
 * Each case runs in a child process (an abort is the device's report).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/fuzz/vk_null.c"

/* OpDecorate %10 DescriptorSet 0, Binding 0; %11 DescriptorSet 0,
 * Binding 1; both OpVariable StorageBuffer; a function whose
 * OpAccessChain names %10 (%use) or nothing. */
static const uint32_t tvn_spirv[] = {
	0x07230203u, 0x00010000u, 0, 20, 0,
	(4u << 16) | 71, 10, 34, 0,
	(4u << 16) | 71, 10, 33, 0,
	(4u << 16) | 71, 11, 34, 0,
	(4u << 16) | 71, 11, 33, 1,
	(4u << 16) | 59, 5, 10, 12,
	(4u << 16) | 59, 5, 11, 12,
	(5u << 16) | 54, 1, 2, 0, 3,
	(5u << 16) | 65, 6, 12, 10, 7, /* %use: word 3 names the variable */
	(1u << 16) | 56,
};
#define TVN_USE_WORD 37 /* tvn_spirv's OpAccessChain base operand */

typedef struct tvn_case {
	const char *name;
	int use;          /* the shader uses binding 0 */
	int partial;      /* binding 0 PARTIALLY_BOUND */
	uint32_t count0;  /* binding 0's descriptors */
	int write;        /* 0 none, 1 before the bind, 2 after it, 3 two descriptors */
	int abort_expected;
} tvn_case;

/* The scenario of c, in this process; returns binding 1's written flag. */
static int tvn_run(const tvn_case *c)
{
	VkDevice dev = VK_NULL_HANDLE;
	VkQueue q = VK_NULL_HANDLE;
	VkBuffer buf = VK_NULL_HANDLE;
	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
	VkDescriptorPool pool = VK_NULL_HANDLE;
	VkDescriptorSet set = VK_NULL_HANDLE;
	VkShaderModule mod = VK_NULL_HANDLE;
	VkPipeline pipe = VK_NULL_HANDLE;
	VkCommandPool cpool = VK_NULL_HANDLE;
	VkCommandBuffer cb = VK_NULL_HANDLE;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkDescriptorSetLayoutBinding b[2] = {
		{ 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, c->count0, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
		{ 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
	};
	VkDescriptorBindingFlags flags[2] = { c->partial ? VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT : 0, 0 };
	VkDescriptorSetLayoutBindingFlagsCreateInfo fci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
		.bindingCount = 2, .pBindingFlags = flags };
	VkDescriptorSetLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		                                .pNext = &fci, .bindingCount = 2, .pBindings = b };
	VkDescriptorPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo sai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	uint32_t code[sizeof(tvn_spirv) / 4];
	VkShaderModuleCreateInfo mci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		                         .codeSize = sizeof(code), .pCode = code };
	VkComputePipelineCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo cbbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkDescriptorBufferInfo dbi[2];
	VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	int i1;

	memcpy(code, tvn_spirv, sizeof(code));
	if (!c->use)
		code[TVN_USE_WORD] = 13; /* names no variable */
	qci.queueCount = 1;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	vn_init();
	if (vn_CreateDevice((VkPhysicalDevice)&vn_g.phys, &dci, NULL, &dev) != VK_SUCCESS)
		return -1;
	vn_GetDeviceQueue(dev, 0, 0, &q);
	bci.size = 256;
	mai.allocationSize = 256;
	vn_CreateBuffer(dev, &bci, NULL, &buf);
	vn_AllocateMemory(dev, &mai, NULL, &mem);
	vn_BindBufferMemory(dev, buf, mem, 0);
	vn_CreateDescriptorSetLayout(dev, &lci, NULL, &dsl);
	vn_CreateDescriptorPool(dev, &pci, NULL, &pool);
	sai.descriptorPool = pool;
	sai.descriptorSetCount = 1;
	sai.pSetLayouts = &dsl;
	vn_AllocateDescriptorSets(dev, &sai, &set);
	vn_CreateShaderModule(dev, &mci, NULL, &mod);
	cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
	cpi.stage.module = mod;
	cpi.stage.pName = "main";
	vn_CreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe);
	vn_CreateCommandPool(dev, &cpci, NULL, &cpool);
	cbai.commandPool = cpool;
	cbai.commandBufferCount = 1;
	vn_AllocateCommandBuffers(dev, &cbai, &cb);

	dbi[0].buffer = dbi[1].buffer = buf;
	dbi[0].offset = dbi[1].offset = 0;
	dbi[0].range = dbi[1].range = 64;
	w.dstSet = set;
	w.dstBinding = 0;
	w.descriptorCount = c->write == 3 ? 2 : 1;
	w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
	w.pBufferInfo = dbi;
	if (c->write == 1 || c->write == 3)
		vn_UpdateDescriptorSets(dev, 1, &w, 0, NULL);
	vn_BeginCommandBuffer(cb, &cbbi);
	vn_CmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vn_CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, VK_NULL_HANDLE, 0, 1, &set, 0, NULL);
	vn_CmdDispatch(cb, 1, 1, 1);
	vn_EndCommandBuffer(cb);
	if (c->write == 2)
		vn_UpdateDescriptorSets(dev, 1, &w, 0, NULL);
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	vn_QueueSubmit(q, 1, &si, VK_NULL_HANDLE);
	i1 = vn_dbind_find((vn_obj *)set, 1);
	return i1 >= 0 && ((vn_obj *)set)->binds[i1].written;
}

int main(void)
{
	static const tvn_case cases[] = {
		{ "binding 0 written, unused binding 1 not", 1, 0, 1, 1, 0 },
		{ "nothing written", 1, 0, 1, 0, 1 },
		{ "nothing written, binding 0 partially bound", 1, 1, 1, 0, 0 },
		{ "binding 0 written after the bind", 1, 0, 1, 2, 0 },
		{ "a write going on into binding 1", 1, 0, 1, 3, 0 },
		{ "binding 0 with no descriptors", 1, 0, 0, 0, 0 },
		{ "a set no shader uses, never written", 0, 0, 1, 0, 0 },
	};
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const tvn_case *c = &cases[i];
		int fds[2], status = 0;
		char msg[512] = "";
		ssize_t got;
		pid_t pid;

		fflush(stdout);
		if (pipe(fds) != 0 || (pid = fork()) < 0) {
			perror("test_vk_null_dset");
			return 1;
		}
		if (pid == 0) {
			int w1;
			dup2(fds[1], 2);
			close(fds[0]);
			w1 = tvn_run(c);
			/* exit 10 + binding 1 written: the parent checks the spill case */
			_exit(w1 < 0 ? 3 : 10 + w1);
		}
		close(fds[1]);
		{
			size_t have = 0;
			while ((got = read(fds[0], msg + have, sizeof(msg) - 1 - have)) > 0 &&
			       (have += (size_t)got) < sizeof(msg) - 1)
				;
			msg[have] = 0;
		}
		close(fds[0]);
		waitpid(pid, &status, 0);
		if (c->abort_expected) {
			if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT ||
			    !strstr(msg, "vk_null: vkQueueSubmit: a command buffer is submitted whose draw or "
			                 "dispatch reads descriptor set 0 binding 0, which its shaders use and "
			                 "no write reached")) {
				fprintf(stderr, "FAIL: %s: expected the device to abort naming set 0 binding 0; "
				        "status 0x%x, stderr: %s\n", c->name, status, msg);
				failed++;
			}
		} else if (!WIFEXITED(status) || WEXITSTATUS(status) < 10 ||
		           (c->write == 3 && WEXITSTATUS(status) != 11)) {
			fprintf(stderr, "FAIL: %s: expected the submit accepted%s; status 0x%x, stderr: %s\n",
			        c->name, c->write == 3 ? " and binding 1 written" : "", status, msg);
			failed++;
		}
	}
	if (failed)
		return 1;
	printf("ok\n");
	return 0;
}
