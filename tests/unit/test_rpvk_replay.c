/*
 * test_rpvk_replay - the Vulkan replay backend on a trace this test writes
 * itself: it runs a small transfer workload on the live device (lavapipe
 * here) and records every call with sbt_vk_encode as a layer would (host
 * writes as vulkan.tsMemoryWrite, the mapped result as a checkpoint after
 * the fence wait), then replays the trace through tsreplay's rp_main with
 * the Vulkan backend.
 *
 * Checks: the replay matches every checkpoint (exit 0) and is deterministic
 * over 2 runs; a trace whose recorded host write differs from what the
 * program wrote mismatches (exit 3) at the right checkpoint and offset; a
 * trace naming a handle nothing created fails (exit 1) with a message
 * naming the seq, the call and the handle.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replayer/vulkan/rpvk_vk.h"
#include "replayer/vulkan/rpvk_backend.h"
#include "tests/support/tst.h"

#define TRP_SIZE 4096u
#define TRP_HALF 2048u

enum {
	TRP_PLAIN = 0,
	TRP_ALTER = 1,
	TRP_BAD_HANDLE = 2,
	TRP_PRESENT = 3,
	TRP_BAD_SPIRV = 4,
	TRP_LAX_SPIRV = 5
};

#define TRP_W 64u
#define TRP_H 48u
#define TRP_FRAMES 2u

typedef struct trp {
	sbt_writer *w;
	sbt_vk_enc enc;
	uint64_t seq;
	int ok;
} trp;

static uint64_t trp_rec(trp *t, enum sbt_vk_cmd cmd, const void *args)
{
	sbt_record rec = {0};
	t->enc.len = 0;
	if (sbt_vk_encode(&t->enc, cmd, args) != SBT_VK_OK) {
		fprintf(stderr, "encode %s failed\n", sbt_vk_cmd_name(cmd));
		t->ok = 0;
		return 0;
	}
	rec.type = SBT_VK_CMD_TYPE(cmd);
	rec.seq = ++t->seq;
	rec.payload = t->enc.data;
	rec.payload_len = t->enc.len;
	if (sbt_writer_append(t->w, &rec) != SBT_OK)
		t->ok = 0;
	return rec.seq;
}

static void trp_raw(trp *t, uint32_t type, const void *payload, size_t len)
{
	sbt_record rec = {0};
	rec.type = type;
	rec.seq = ++t->seq;
	rec.payload = payload;
	rec.payload_len = len;
	if (sbt_writer_append(t->w, &rec) != SBT_OK)
		t->ok = 0;
}

#define TRP_REC(t, name, ...)                                           \
	do {                                                                \
		sbt_vk_args_##name trp_a_ = {__VA_ARGS__};                      \
		trp_rec(t, SBT_VK_CMD_##name, &trp_a_);                         \
	} while (0)

/*
 * Two presented frames, written into the trace only (this test has no
 * window): a surface, a swapchain of two images, and per frame an acquire,
 * a clear of the image to red then green, a transition to PRESENT_SRC_KHR
 * and a present.  The captured handles are made up; the replay binds them.
 */
static void trp_present(trp *t, VkInstance inst, VkPhysicalDevice pd, VkDevice dev, VkQueue q,
                        uint32_t qf)
{
	VkSurfaceKHR surf = (VkSurfaceKHR)(uintptr_t)0x5001u;
	VkSwapchainKHR sc = (VkSwapchainKHR)(uintptr_t)0x6001u;
	VkImage img[2] = {(VkImage)(uintptr_t)0x7001u, (VkImage)(uintptr_t)0x7002u};
	VkSemaphore acq = (VkSemaphore)(uintptr_t)0x8001u, done = (VkSemaphore)(uintptr_t)0x8002u;
	VkCommandPool pool = (VkCommandPool)(uintptr_t)0x9001u;
	VkCommandBuffer cb[2] = {(VkCommandBuffer)(uintptr_t)0xa001u, (VkCommandBuffer)(uintptr_t)0xa002u};
	VkXcbSurfaceCreateInfoKHR xci = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
	VkSurfaceCapabilitiesKHR caps = {0};
	VkSwapchainCreateInfoKHR sci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
	VkSemaphoreCreateInfo semci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	uint32_t n = 2, f;

	xci.connection = (xcb_connection_t *)(uintptr_t)0x1234u;
	xci.window = 7;
	TRP_REC(t, vkCreateXcbSurfaceKHR, inst, &xci, NULL, &surf, VK_SUCCESS);
	{
		VkBool32 yes = VK_TRUE;
		TRP_REC(t, vkGetPhysicalDeviceSurfaceSupportKHR, pd, qf, surf, &yes, VK_SUCCESS);
	}
	caps.minImageCount = 2;
	caps.maxImageCount = 4;
	caps.currentExtent.width = TRP_W;
	caps.currentExtent.height = TRP_H;
	caps.maxImageArrayLayers = 1;
	caps.supportedUsageFlags = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	TRP_REC(t, vkGetPhysicalDeviceSurfaceCapabilitiesKHR, pd, surf, &caps, VK_SUCCESS);
	sci.surface = surf;
	sci.minImageCount = 2;
	sci.imageFormat = VK_FORMAT_B8G8R8A8_UNORM;
	sci.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
	sci.imageExtent.width = TRP_W;
	sci.imageExtent.height = TRP_H;
	sci.imageArrayLayers = 1;
	sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
	sci.preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
	sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	sci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
	sci.clipped = VK_TRUE;
	TRP_REC(t, vkCreateSwapchainKHR, dev, &sci, NULL, &sc, VK_SUCCESS);
	TRP_REC(t, vkGetSwapchainImagesKHR, dev, sc, &n, NULL, VK_SUCCESS);
	TRP_REC(t, vkGetSwapchainImagesKHR, dev, sc, &n, img, VK_SUCCESS);
	TRP_REC(t, vkCreateSemaphore, dev, &semci, NULL, &acq, VK_SUCCESS);
	TRP_REC(t, vkCreateSemaphore, dev, &semci, NULL, &done, VK_SUCCESS);
	pci.queueFamilyIndex = qf;
	TRP_REC(t, vkCreateCommandPool, dev, &pci, NULL, &pool, VK_SUCCESS);
	cai.commandPool = pool;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 2;
	TRP_REC(t, vkAllocateCommandBuffers, dev, &cai, cb, VK_SUCCESS);
	for (f = 0; f < TRP_FRAMES; f++) {
		VkClearColorValue color = {{f == 0 ? 1.0f : 0.0f, f == 1 ? 1.0f : 0.0f, 0.0f, 1.0f}};
		VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
		VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
		VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
		VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
		uint32_t idx = f;
		TRP_REC(t, vkAcquireNextImageKHR, dev, sc, UINT64_MAX, acq, VK_NULL_HANDLE, &idx, VK_SUCCESS);
		TRP_REC(t, vkBeginCommandBuffer, cb[f], &cbi, VK_SUCCESS);
		b.srcAccessMask = 0;
		b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
		b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
		b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		b.image = img[idx];
		b.subresourceRange = range;
		TRP_REC(t, vkCmdPipelineBarrier, cb[f], VK_PIPELINE_STAGE_TRANSFER_BIT,
		        VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &b);
		TRP_REC(t, vkCmdClearColorImage, cb[f], img[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color,
		        1, &range);
		b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		b.dstAccessMask = 0;
		b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
		b.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
		TRP_REC(t, vkCmdPipelineBarrier, cb[f], VK_PIPELINE_STAGE_TRANSFER_BIT,
		        VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, 1, &b);
		TRP_REC(t, vkEndCommandBuffer, cb[f], VK_SUCCESS);
		si.waitSemaphoreCount = 1;
		si.pWaitSemaphores = &acq;
		si.pWaitDstStageMask = &stage;
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb[f];
		si.signalSemaphoreCount = 1;
		si.pSignalSemaphores = &done;
		TRP_REC(t, vkQueueSubmit, q, 1, &si, VK_NULL_HANDLE, VK_SUCCESS);
		pi.waitSemaphoreCount = 1;
		pi.pWaitSemaphores = &done;
		pi.swapchainCount = 1;
		pi.pSwapchains = &sc;
		pi.pImageIndices = &idx;
		TRP_REC(t, vkQueuePresentKHR, q, &pi, VK_SUCCESS);
	}
	TRP_REC(t, vkDeviceWaitIdle, dev, VK_SUCCESS);
	TRP_REC(t, vkDestroyCommandPool, dev, pool, NULL);
	TRP_REC(t, vkDestroySemaphore, dev, acq, NULL);
	TRP_REC(t, vkDestroySemaphore, dev, done, NULL);
	TRP_REC(t, vkDestroySwapchainKHR, dev, sc, NULL);
	TRP_REC(t, vkDestroySurfaceKHR, inst, surf, NULL);
}

/* Run the workload on the live device and write its trace to path. */
static int trp_capture(const char *path, int variant)
{
	trp t = {0};
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	VkInstance inst = VK_NULL_HANDLE;
	VkPhysicalDevice pd[8] = {0};
	uint32_t npd = 0, nqf = 0, qf = 0, i;
	VkQueueFamilyProperties qfp[16] = {{0}};
	VkPhysicalDeviceMemoryProperties mp = {0};
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
	VkDevice dev = VK_NULL_HANDLE;
	VkQueue q = VK_NULL_HANDLE;
	VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	VkBuffer buf = VK_NULL_HANDLE;
	VkMemoryRequirements req = {0};
	VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
	VkDeviceMemory mem = VK_NULL_HANDLE;
	void *ptr = NULL;
	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandPool pool = VK_NULL_HANDLE;
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	VkCommandBuffer cb = VK_NULL_HANDLE;
	VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkBufferCopy region = {0, TRP_HALF, TRP_HALF / 2};
	VkBufferMemoryBarrier bmb = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence = VK_NULL_HANDLE;
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkResult res;
	uint8_t input[TRP_HALF];
	uint64_t blob = 0, wait_seq;
	sbt_checkpoint cp = {0};
	uint8_t *cpbuf = NULL;
	size_t cplen = 0;
	int type = -1;

	t.ok = 1;
	if (sbt_writer_open(path, NULL, &t.w) != SBT_OK)
		return -1;
	sbt_vk_enc_init(&t.enc);
	sbt_vk_define_types(t.w);
	sbt_writer_set_meta(t.w, "api", SBT_VK_API_NAME);

	app.apiVersion = VK_API_VERSION_1_1;
	ici.pApplicationInfo = &app;
	res = vkCreateInstance(&ici, NULL, &inst);
	TRP_REC(&t, vkCreateInstance, &ici, NULL, &inst, res);
	TST_REQUIRE(res == VK_SUCCESS);
	res = vkEnumeratePhysicalDevices(inst, &npd, NULL);
	TRP_REC(&t, vkEnumeratePhysicalDevices, inst, &npd, NULL, res);
	TST_REQUIRE(npd > 0);
	if (npd > 8)
		npd = 8;
	res = vkEnumeratePhysicalDevices(inst, &npd, pd);
	TRP_REC(&t, vkEnumeratePhysicalDevices, inst, &npd, pd, res);
	vkGetPhysicalDeviceMemoryProperties(pd[0], &mp);
	TRP_REC(&t, vkGetPhysicalDeviceMemoryProperties, pd[0], &mp);
	vkGetPhysicalDeviceQueueFamilyProperties(pd[0], &nqf, NULL);
	nqf = nqf > 16 ? 16 : nqf;
	vkGetPhysicalDeviceQueueFamilyProperties(pd[0], &nqf, qfp);
	TRP_REC(&t, vkGetPhysicalDeviceQueueFamilyProperties, pd[0], &nqf, qfp);
	for (i = 0; i < nqf; i++)
		if (qfp[i].queueFlags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) {
			qf = i;
			break;
		}
	qci.queueFamilyIndex = qf;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	res = vkCreateDevice(pd[0], &dci, NULL, &dev);
	TRP_REC(&t, vkCreateDevice, pd[0], &dci, NULL, &dev, res);
	TST_REQUIRE(res == VK_SUCCESS);
	vkGetDeviceQueue(dev, qf, 0, &q);
	TRP_REC(&t, vkGetDeviceQueue, dev, qf, 0, &q);

	bci.size = TRP_SIZE;
	bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	res = vkCreateBuffer(dev, &bci, NULL, &buf);
	TRP_REC(&t, vkCreateBuffer, dev, &bci, NULL, &buf, res);
	vkGetBufferMemoryRequirements(dev, buf, &req);
	TRP_REC(&t, vkGetBufferMemoryRequirements, dev, buf, &req);
	for (i = 0; i < mp.memoryTypeCount && type < 0; i++)
		if ((req.memoryTypeBits & (1u << i)) &&
		    (mp.memoryTypes[i].propertyFlags & (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) ==
		        (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
			type = (int)i;
	TST_REQUIRE(type >= 0);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)type;
	res = vkAllocateMemory(dev, &mai, NULL, &mem);
	TRP_REC(&t, vkAllocateMemory, dev, &mai, NULL, &mem, res);
	res = vkBindBufferMemory(dev, buf, mem, 0);
	TRP_REC(&t, vkBindBufferMemory, dev, buf, mem, 0, res);
	res = vkMapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, &ptr);
	TRP_REC(&t, vkMapMemory, dev, mem, 0, VK_WHOLE_SIZE, 0, &ptr, res);
	TST_REQUIRE(res == VK_SUCCESS);

	/* The host writes the first half; the device copies a quarter of it
	 * into the second half and fills the last quarter. */
	for (i = 0; i < TRP_HALF; i++)
		input[i] = (uint8_t)(i * 7 + 3);
	memset(ptr, 0, TRP_SIZE);
	memcpy(ptr, input, TRP_HALF);
	{
		sbt_vk_ts_memory_write mw;
		if (variant == TRP_ALTER)
			input[100] ^= 0x40; /* the trace says the program wrote this */
		sbt_writer_put_blob(t.w, 0, input, TRP_HALF, &blob);
		mw.memory = (uint64_t)(uintptr_t)mem;
		mw.offset = 0;
		mw.size = TRP_HALF;
		mw.blob_id = blob;
		t.enc.len = 0;
		sbt_vk_ts_memory_write_encode(&t.enc, &mw);
		{
			sbt_record rec = {0};
			rec.type = SBT_VK_TYPE_TS_MEMORY_WRITE;
			rec.seq = ++t.seq;
			rec.payload = t.enc.data;
			rec.payload_len = t.enc.len;
			sbt_writer_append(t.w, &rec);
		}
	}

	pci.queueFamilyIndex = qf;
	res = vkCreateCommandPool(dev, &pci, NULL, &pool);
	TRP_REC(&t, vkCreateCommandPool, dev, &pci, NULL, &pool, res);
	cai.commandPool = pool;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 1;
	res = vkAllocateCommandBuffers(dev, &cai, &cb);
	TRP_REC(&t, vkAllocateCommandBuffers, dev, &cai, &cb, res);
	res = vkBeginCommandBuffer(cb, &cbi);
	TRP_REC(&t, vkBeginCommandBuffer, cb, &cbi, res);
	vkCmdCopyBuffer(cb, buf, buf, 1, &region);
	TRP_REC(&t, vkCmdCopyBuffer, cb, buf, buf, 1, &region);
	vkCmdFillBuffer(cb, buf, TRP_HALF + TRP_HALF / 2, TRP_HALF / 2, 0xabcd1234u);
	TRP_REC(&t, vkCmdFillBuffer, cb, buf, TRP_HALF + TRP_HALF / 2, TRP_HALF / 2, 0xabcd1234u);
	bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL,
	                     1, &bmb, 0, NULL);
	TRP_REC(&t, vkCmdPipelineBarrier, cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
	        0, 0, NULL, 1, &bmb, 0, NULL);
	res = vkEndCommandBuffer(cb);
	TRP_REC(&t, vkEndCommandBuffer, cb, res);
	res = vkCreateFence(dev, &fci, NULL, &fence);
	TRP_REC(&t, vkCreateFence, dev, &fci, NULL, &fence, res);
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	/* Recorded before the call, as the layer does. */
	TRP_REC(&t, vkQueueSubmit, q, 1, &si, fence, VK_SUCCESS);
	res = vkQueueSubmit(q, 1, &si, fence);
	TST_REQUIRE(res == VK_SUCCESS);
	res = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
	{
		sbt_vk_args_vkWaitForFences wa = {dev, 1, &fence, VK_TRUE, 1000u, res};
		wait_seq = trp_rec(&t, SBT_VK_CMD_vkWaitForFences, &wa);
	}
	TST_REQUIRE(((uint8_t *)ptr)[TRP_SIZE - 1] == 0xab);
	sbt_checkpoint_compute(ptr, TRP_SIZE, &cp);
	cp.call_seq = wait_seq;
	cp.object = (uint64_t)(uintptr_t)mem;
	cp.offset = 0;
	sbt_checkpoint_encode(&cp, &cpbuf, &cplen);
	trp_raw(&t, SBT_TYPE_CHECKPOINT, cpbuf, cplen);
	free(cpbuf);
	sbt_checkpoint_free(&cp);

	if (variant == TRP_PRESENT)
		trp_present(&t, inst, pd[0], dev, q, qf);
	if (variant == TRP_BAD_HANDLE) {
		VkBuffer bogus = (VkBuffer)(uintptr_t)0xdead0000beefull;
		TRP_REC(&t, vkDestroyBuffer, dev, bogus, NULL);
	}
	if (variant == TRP_BAD_SPIRV) {
		/* the SPIR-V magic and header, then an instruction whose word
		 * count runs past the end: never passed to the driver here */
		static const uint32_t code[8] = { 0x07230203, 0x00010000, 0, 8, 0, 0x00ff0011, 1, 0 };
		VkShaderModuleCreateInfo smci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0,
			                              sizeof(code), code };
		VkShaderModule sm = (VkShaderModule)(uintptr_t)0x5a5a0001ull;
		TRP_REC(&t, vkCreateShaderModule, dev, &smci, NULL, &sm, VK_SUCCESS);
	}
	if (variant == TRP_LAX_SPIRV) {
		/* a compute shader doing nothing, well formed but without
		 * OpCapability Shader (as zink leaves out capabilities lavapipe
		 * does not need): SPIRV-Tools rejects it, lavapipe takes it */
		static const uint32_t code[] = {
			0x07230203, 0x00010000, 0, 5, 0,
			(3u << 16) | 14, 0, 1,                     /* OpMemoryModel Logical GLSL450 */
			(5u << 16) | 15, 5, 3, 0x6e69616d, 0,      /* OpEntryPoint GLCompute %3 "main" */
			(6u << 16) | 16, 3, 17, 1, 1, 1,           /* OpExecutionMode %3 LocalSize 1 1 1 */
			(2u << 16) | 19, 1,                        /* %1 = OpTypeVoid */
			(3u << 16) | 33, 2, 1,                     /* %2 = OpTypeFunction %1 */
			(5u << 16) | 54, 1, 3, 0, 2,               /* %3 = OpFunction %1 None %2 */
			(2u << 16) | 248, 4, (1u << 16) | 253, (1u << 16) | 56
		};
		VkShaderModuleCreateInfo smci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0,
			                              sizeof(code), code };
		VkShaderModule sm = VK_NULL_HANDLE;
		TST_REQUIRE(vkCreateShaderModule(dev, &smci, NULL, &sm) == VK_SUCCESS);
		TRP_REC(&t, vkCreateShaderModule, dev, &smci, NULL, &sm, VK_SUCCESS);
		TRP_REC(&t, vkDestroyShaderModule, dev, sm, NULL);
		vkDestroyShaderModule(dev, sm, NULL);
	}
	TRP_REC(&t, vkDestroyFence, dev, fence, NULL);
	vkDestroyFence(dev, fence, NULL);
	TRP_REC(&t, vkDestroyCommandPool, dev, pool, NULL);
	vkDestroyCommandPool(dev, pool, NULL);
	vkUnmapMemory(dev, mem);
	TRP_REC(&t, vkUnmapMemory, dev, mem);
	TRP_REC(&t, vkDestroyBuffer, dev, buf, NULL);
	vkDestroyBuffer(dev, buf, NULL);
	TRP_REC(&t, vkFreeMemory, dev, mem, NULL);
	vkFreeMemory(dev, mem, NULL);
	TRP_REC(&t, vkDestroyDevice, dev, NULL);
	vkDestroyDevice(dev, NULL);
	TRP_REC(&t, vkDestroyInstance, inst, NULL);
	vkDestroyInstance(inst, NULL);
	sbt_vk_enc_free(&t.enc);
	if (sbt_writer_close(t.w) != SBT_OK)
		t.ok = 0;
	return t.ok ? 0 : -1;
}

/* tsreplay with the Vulkan backend; its stderr and stdout (where the
 * validation layer writes) go to err_path. */
static int trp_replay(const char *err_path, int argc, char **argv)
{
	static const rp_backend_ops *const backends[] = {&rpvk_backend_ops};
	int saved2 = dup(2), saved1 = dup(1), fd, code;
	fflush(stderr);
	fflush(stdout);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	TST_REQUIRE(fd >= 0 && saved1 >= 0 && saved2 >= 0);
	dup2(fd, 2);
	dup2(fd, 1);
	close(fd);
	code = rp_main(argc, argv, backends, 1);
	fflush(stderr);
	fflush(stdout);
	dup2(saved2, 2);
	dup2(saved1, 1);
	close(saved2);
	close(saved1);
	return code;
}

/* frame_N.ppm in dir: 64x48, every pixel (r, g, b). */
static void trp_check_ppm(const char *dir, unsigned frame, int r, int g, int b)
{
	char path[600], head[32];
	size_t len = 0, i, hl;
	unsigned char *data;
	snprintf(path, sizeof(path), "%s/frame_%u.ppm", dir, frame);
	data = tst_read_file(path, &len);
	TST_CHECK(data != NULL);
	if (!data)
		return;
	hl = (size_t)snprintf(head, sizeof(head), "P6\n%u %u\n255\n", TRP_W, TRP_H);
	TST_CHECK_EQ_U64(len, hl + TRP_W * TRP_H * 3);
	TST_CHECK(len >= hl && memcmp(data, head, hl) == 0);
	for (i = hl; i + 2 < len; i += 3)
		if (data[i] != r || data[i + 1] != g || data[i + 2] != b)
			break;
	if (i + 2 < len)
		fprintf(stderr, "%s: pixel %zu is %u,%u,%u, expected %d,%d,%d\n", path, (i - hl) / 3,
		        data[i], data[i + 1], data[i + 2], r, g, b);
	TST_CHECK(i + 2 >= len);
	free(data);
}

static char *trp_text(const char *path)
{
	size_t len = 0;
	unsigned char *b = tst_read_file(path, &len);
	char *s;
	if (!b)
		return NULL;
	s = realloc(b, len + 1);
	if (!s) {
		free(b);
		return NULL;
	}
	s[len] = '\0';
	return s;
}

/* Under `make asan`: the Vulkan driver and loader (lavapipe, loaded with
 * dlopen) leak a little at instance teardown even for a bare
 * vkCreateInstance/vkDestroyInstance, in frames LeakSanitizer cannot name,
 * so leak detection is off for this program; address and UB checks stay. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int main(void)
{
	char p_plain[512], p_alter[512], p_bad[512], p_err[512], p_pres[512], p_dir[600];
	char p_spv[512], p_lax[512];
	char *err;
	int code;

	unsetenv("DISPLAY");
	snprintf(p_plain, sizeof(p_plain), "%s", tst_path("plain.sbt"));
	snprintf(p_alter, sizeof(p_alter), "%s", tst_path("alter.sbt"));
	snprintf(p_bad, sizeof(p_bad), "%s", tst_path("bad.sbt"));
	snprintf(p_err, sizeof(p_err), "%s", tst_path("err.txt"));
	TST_REQUIRE(trp_capture(p_plain, TRP_PLAIN) == 0);
	TST_REQUIRE(trp_capture(p_alter, TRP_ALTER) == 0);
	TST_REQUIRE(trp_capture(p_bad, TRP_BAD_HANDLE) == 0);
	snprintf(p_spv, sizeof(p_spv), "%s", tst_path("spirv.sbt"));
	TST_REQUIRE(trp_capture(p_spv, TRP_BAD_SPIRV) == 0);
	snprintf(p_lax, sizeof(p_lax), "%s", tst_path("lax.sbt"));
	TST_REQUIRE(trp_capture(p_lax, TRP_LAX_SPIRV) == 0);
	snprintf(p_pres, sizeof(p_pres), "%s", tst_path("present.sbt"));
	TST_REQUIRE(trp_capture(p_pres, TRP_PRESENT) == 0);
	snprintf(p_dir, sizeof(p_dir), "%s", tst_tmpdir());

	{
		char *argv[] = {"tsreplay", "--json", p_plain, NULL};
		code = trp_replay(p_err, 3, argv);
		err = trp_text(p_err);
		if (code != 0)
			fprintf(stderr, "plain replay: exit %d: %s\n", code, err ? err : "");
		TST_CHECK_EQ_U64(code, 0);
		free(err);
	}
	{
		char *argv[] = {"tsreplay", "-q", "--check-determinism", "--runs", "2", p_plain, NULL};
		code = trp_replay(p_err, 6, argv);
		TST_CHECK_EQ_U64(code, 0);
	}
	{
		char *argv[] = {"tsreplay", "-q", p_alter, NULL};
		code = trp_replay(p_err, 3, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 3);
		TST_REQUIRE(err != NULL);
		/* byte 100 lies in the block at offset 64 (64-byte blocks) */
		TST_CHECK(strstr(err, "differs from the capture at checkpoint seq") != NULL);
		TST_CHECK(strstr(err, "vulkan.vkWaitForFences") != NULL);
		TST_CHECK(strstr(err, "offset:   64 ") != NULL);
		if (code != 3 || !strstr(err, "offset:   64 "))
			fprintf(stderr, "altered replay said:\n%s\n", err);
		free(err);
	}
	{
		char *argv[] = {"tsreplay", "-q", p_bad, NULL};
		code = trp_replay(p_err, 3, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 1);
		TST_REQUIRE(err != NULL);
		TST_CHECK(strstr(err, "vkDestroyBuffer") != NULL);
		TST_CHECK(strstr(err, "unknown VkBuffer 0xdead0000beef") != NULL);
		if (!strstr(err, "unknown VkBuffer 0xdead0000beef"))
			fprintf(stderr, "bad-handle replay said:\n%s\n", err);
		free(err);
	}
	{
		/* malformed SPIR-V stops the replay before the driver sees it */
		char *argv[] = {"tsreplay", "-q", p_spv, NULL};
		code = trp_replay(p_err, 3, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 1);
		TST_REQUIRE(err != NULL);
		TST_CHECK(strstr(err, "vkCreateShaderModule: the shader module is not valid SPIR-V "
		                      "(32 bytes; SPIRV-Tools: ") != NULL);
		if (code != 1 || !strstr(err, "not valid SPIR-V"))
			fprintf(stderr, "bad SPIR-V replay said:\n%s\n", err);
		free(err);
	}
	{
		/* code the driver took and the validator does not: refused, the
		 * message naming the validator's reason and the way past it ... */
		char *argv[] = {"tsreplay", "-q", p_lax, NULL};
		code = trp_replay(p_err, 3, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 1);
		TST_REQUIRE(err != NULL);
		TST_CHECK(strstr(err, "vkCreateShaderModule: the shader module is not valid SPIR-V "
		                      "(132 bytes; SPIRV-Tools: Operand 2 of MemoryModel requires one of "
		                      "these capabilities: Shader); tsreplay --no-spirv-check passes it "
		                      "to the driver\n") != NULL);
		if (code != 1)
			fprintf(stderr, "lax SPIR-V replay said:\n%s\n", err);
		free(err);
	}
	{
		/* ... which passes it on with a warning, and the replay matches */
		char *argv[] = {"tsreplay", "--no-spirv-check", p_lax, NULL};
		code = trp_replay(p_err, 3, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 0);
		TST_REQUIRE(err != NULL);
		TST_CHECK(strstr(err, "tsreplay: warning: record seq ") != NULL);
		TST_CHECK(strstr(err, " vkCreateShaderModule: the shader code is not valid SPIR-V "
		                      "(132 bytes; SPIRV-Tools: Operand 2 of MemoryModel requires one of "
		                      "these capabilities: Shader); passed to the driver "
		                      "(--no-spirv-check)\n") != NULL);
		TST_CHECK(strstr(err, "checkpoints: 1 compared, 1 matched, 0 differ") != NULL);
		if (code != 0)
			fprintf(stderr, "lax SPIR-V replay with --no-spirv-check said:\n%s\n", err);
		free(err);
	}
	{
		char *argv[] = {"tsreplay", "--screenshot", "0", p_plain, NULL};
		code = trp_replay(p_err, 4, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 2);
		TST_CHECK(err && strstr(err, "--screenshot: expected frame numbers from 1 or ranges "
		                             "A-B (A <= B), comma-separated, got '0'") != NULL);
		free(err);
	}
	{
		/* the offscreen swapchain, under validation: frames 1 and 2 */
		char *argv[] = {"tsreplay", "--validate", "--offscreen", "--screenshot", "2,1",
		                "--screenshot-dir", p_dir, p_pres, NULL};
		code = trp_replay(p_err, 8, argv);
		err = trp_text(p_err);
		TST_CHECK_EQ_U64(code, 0);
		TST_REQUIRE(err != NULL);
		TST_CHECK(strstr(err, "VUID-") == NULL);
		TST_CHECK(strstr(err, "2 frames presented, 2 screenshots") != NULL);
		if (code != 0 || strstr(err, "VUID-") || !strstr(err, "2 screenshots"))
			fprintf(stderr, "present replay said:\n%s\n", err);
		free(err);
		trp_check_ppm(p_dir, 1, 255, 0, 0);
		trp_check_ppm(p_dir, 2, 0, 255, 0);
	}
	return tst_done();
}
