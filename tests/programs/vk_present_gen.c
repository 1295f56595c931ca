/*
 * vk_present_gen - writes a synthetic two-queue Vulkan trace with presents
 * and sparse binds, for the sampled orders of tsreplay --emulate
 * --schedule-seed (tests/shell/test_vk_sched_sync.sh; no driver: the SBT
 * writer and the Vulkan codec).  Per frame, in record order:
 *
 *   vkAcquireNextImageKHR           signals semaphore A (a host call: a barrier)
 *   vkQueueSubmit on queue 0        waits A, a fill, signals R
 *   vkQueueSubmit on queue 1        a fill; nothing orders it against queue 0
 *   vkQueuePresentKHR on queue 0    waits R
 *   vkQueueBindSparse on queue 1    no bind, signals B
 *   vkQueueSubmit on queue 0        waits B, a fill
 *
 * So the present follows the first submit (its semaphore, and its queue),
 * the last submit follows the present (its queue) and the sparse bind (its
 * semaphore), the sparse bind follows queue 1's submit; queue 1's submit and
 * the sparse bind may run before or after the present.
 *
 * usage: vk_present_gen OUT.sbt FRAMES   (FRAMES 1..100000)
 * Prints "vk_present_gen: FRAMES frames, S submits, P presents, B sparse binds".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_vk.h"

#define VPG_DEVICE ((VkDevice)(uintptr_t)0xd0)
#define VPG_SWAPCHAIN ((VkSwapchainKHR)(uintptr_t)0x5c0)

typedef struct vpg {
	sbt_writer *w;
	sbt_vk_enc enc;
	uint64_t seq;
	const char *path;
} vpg;

static void vpg_check(const vpg *g, int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "vk_present_gen: %s: %s failed\n", g->path, what);
		exit(1);
	}
}

/* One record, 1000 ns after the previous one, thread 1, one-frame stack. */
static void vpg_call(vpg *g, enum sbt_vk_cmd cmd, const void *args)
{
	sbt_record r = { 0 };
	sbt_frame fr;

	g->seq++;
	fr.ip = 0x1000 + (uint64_t)cmd;
	vpg_check(g, sbt_writer_intern(g->w, sbt_vk_cmd_name(cmd), &fr.symbol_id) == SBT_OK, "intern");
	vpg_check(g, sbt_writer_put_stack(g->w, (uint64_t)cmd + 1, &fr, 1, &r.stack_id) == SBT_OK, "stack");
	g->enc.len = 0;
	vpg_check(g, sbt_vk_encode(&g->enc, cmd, args) == SBT_VK_OK, sbt_vk_cmd_name(cmd));
	r.type = SBT_VK_CMD_TYPE(cmd);
	r.seq = g->seq;
	r.time_ns = g->seq * 1000;
	r.thread = 1;
	r.payload = g->enc.data;
	r.payload_len = g->enc.len;
	vpg_check(g, sbt_writer_append(g->w, &r) == SBT_OK, "append");
}

static VkQueue vpg_queue(unsigned q)
{
	return (VkQueue)(uintptr_t)(0x9000 + q);
}

static VkCommandBuffer vpg_cb(unsigned q)
{
	return (VkCommandBuffer)(uintptr_t)(0xc000 + q);
}

static VkSemaphore vpg_sem(unsigned i)
{
	return (VkSemaphore)(uintptr_t)(0xe000 + i);
}

/* Queue q, a buffer and a command buffer recorded with one fill of it. */
static void vpg_queue_setup(vpg *g, unsigned q)
{
	VkQueue queue = vpg_queue(q);
	VkCommandBuffer cb = vpg_cb(q);
	VkBuffer buf = (VkBuffer)(uintptr_t)(0xb000 + q);
	VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	sbt_vk_args_vkGetDeviceQueue gq = { VPG_DEVICE, 0, q, &queue };
	sbt_vk_args_vkCreateBuffer cr = { VPG_DEVICE, &ci, NULL, &buf, VK_SUCCESS };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	sbt_vk_args_vkBeginCommandBuffer bc = { cb, &bi, VK_SUCCESS };
	sbt_vk_args_vkCmdFillBuffer f = { cb, buf, 0, VK_WHOLE_SIZE, q };

	ci.size = 4096;
	ci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	vpg_call(g, SBT_VK_CMD_vkGetDeviceQueue, &gq);
	vpg_call(g, SBT_VK_CMD_vkCreateBuffer, &cr);
	vpg_call(g, SBT_VK_CMD_vkBeginCommandBuffer, &bc);
	vpg_call(g, SBT_VK_CMD_vkCmdFillBuffer, &f);
}

/* A submit of queue q's command buffer, waiting for wait and signaling
 * signal (VK_NULL_HANDLE: none). */
static void vpg_submit(vpg *g, unsigned q, VkSemaphore wait, VkSemaphore signal)
{
	VkCommandBuffer cb = vpg_cb(q);
	VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	sbt_vk_args_vkQueueSubmit s = { vpg_queue(q), 1, &si, VK_NULL_HANDLE, VK_SUCCESS };

	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	if (wait) {
		si.waitSemaphoreCount = 1;
		si.pWaitSemaphores = &wait;
		si.pWaitDstStageMask = &stage;
	}
	if (signal) {
		si.signalSemaphoreCount = 1;
		si.pSignalSemaphores = &signal;
	}
	vpg_call(g, SBT_VK_CMD_vkQueueSubmit, &s);
}

int main(int argc, char **argv)
{
	vpg g;
	unsigned long frames;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: vk_present_gen OUT.sbt FRAMES\n");
		return 2;
	}
	frames = strtoul(argv[2], &end, 10);
	if (*end || frames < 1 || frames > 100000) {
		fprintf(stderr, "vk_present_gen: FRAMES must be 1..100000, not '%s'\n", argv[2]);
		return 2;
	}
	memset(&g, 0, sizeof(g));
	g.path = argv[1];
	sbt_vk_enc_init(&g.enc);
	vpg_check(&g, sbt_writer_open(g.path, NULL, &g.w) == SBT_OK, "open");
	vpg_check(&g, sbt_vk_define_types(g.w) == SBT_OK, "define types");
	vpg_check(&g, sbt_writer_set_meta(g.w, "api", SBT_VK_API_NAME) == SBT_OK, "meta");
	for (unsigned q = 0; q < 2; q++)
		vpg_queue_setup(&g, q);
	for (unsigned i = 0; i < 3; i++) {
		VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
		VkSemaphore sem = vpg_sem(i);
		sbt_vk_args_vkCreateSemaphore cs = { VPG_DEVICE, &sci, NULL, &sem, VK_SUCCESS };

		vpg_call(&g, SBT_VK_CMD_vkCreateSemaphore, &cs);
	}
	for (unsigned long f = 0; f < frames; f++) {
		uint32_t index = (uint32_t)(f % 2);
		VkSwapchainKHR sc = VPG_SWAPCHAIN;
		VkSemaphore acquired = vpg_sem(0), rendered = vpg_sem(1), bound = vpg_sem(2);
		sbt_vk_args_vkAcquireNextImageKHR acq = { VPG_DEVICE, sc, UINT64_MAX, acquired, VK_NULL_HANDLE,
			                                  &index, VK_SUCCESS };
		VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR };
		sbt_vk_args_vkQueuePresentKHR pr = { vpg_queue(0), &pi, VK_SUCCESS };
		VkBindSparseInfo bsi = { .sType = VK_STRUCTURE_TYPE_BIND_SPARSE_INFO };
		sbt_vk_args_vkQueueBindSparse bs = { vpg_queue(1), 1, &bsi, VK_NULL_HANDLE, VK_SUCCESS };

		vpg_call(&g, SBT_VK_CMD_vkAcquireNextImageKHR, &acq);
		vpg_submit(&g, 0, acquired, rendered);
		vpg_submit(&g, 1, VK_NULL_HANDLE, VK_NULL_HANDLE);
		pi.waitSemaphoreCount = 1;
		pi.pWaitSemaphores = &rendered;
		pi.swapchainCount = 1;
		pi.pSwapchains = &sc;
		pi.pImageIndices = &index;
		vpg_call(&g, SBT_VK_CMD_vkQueuePresentKHR, &pr);
		bsi.signalSemaphoreCount = 1;
		bsi.pSignalSemaphores = &bound;
		vpg_call(&g, SBT_VK_CMD_vkQueueBindSparse, &bs);
		vpg_submit(&g, 0, bound, VK_NULL_HANDLE);
	}
	vpg_check(&g, sbt_writer_close(g.w) == SBT_OK, "close");
	sbt_vk_enc_free(&g.enc);
	printf("vk_present_gen: %lu frames, %lu submits, %lu presents, %lu sparse binds\n", frames, 3 * frames,
	       frames, frames);
	return 0;
}
