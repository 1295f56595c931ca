/*
 * vk_race_gen - writes a synthetic Vulkan trace for the emulator's
 * benchmark and export tests (no driver: the SBT writer and the Vulkan
 * codec), with a known shape and no race:
 *
 *   Q queues (family q, index 0), each with four 64 KiB buffers and one
 *   command buffer of 8 commands, each after a full memory barrier
 *   (ALL_COMMANDS / MEMORY_WRITE -> ALL_COMMANDS / MEMORY_READ|WRITE):
 *   fill b0, copy b0->b1, fill b1, copy b1->b2, fill b2, copy b2->b3,
 *   fill b3, copy b3->b0.  The command buffers are submitted round-robin
 *   over the queues, one batch each, until COMMANDS commands ran.  Every
 *   16th batch signals a binary semaphore that the next batch (on the next
 *   queue) waits for; every 256 batches the host calls vkDeviceWaitIdle.
 *
 * usage: vk_race_gen OUT.sbt COMMANDS [QUEUES]   (QUEUES 1..16, default 2)
 * Prints "vk_race_gen: COMMANDS commands, B batches, S semaphore waits".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_vk.h"

#define VRG_DEVICE ((VkDevice)(uintptr_t)0xd0)

typedef struct vrg {
	sbt_writer *w;
	sbt_vk_enc enc;
	uint64_t seq;
	const char *path;
} vrg;

static void vrg_check(const vrg *g, int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "vk_race_gen: %s: %s failed\n", g->path, what);
		exit(1);
	}
}

/* One record, 1000 ns after the previous one, thread 1, one-frame stack. */
static void vrg_call(vrg *g, enum sbt_vk_cmd cmd, const void *args)
{
	sbt_record r = { 0 };
	sbt_frame fr;

	g->seq++;
	fr.ip = 0x1000 + (uint64_t)cmd;
	vrg_check(g, sbt_writer_intern(g->w, sbt_vk_cmd_name(cmd), &fr.symbol_id) == SBT_OK, "intern");
	vrg_check(g, sbt_writer_put_stack(g->w, (uint64_t)cmd + 1, &fr, 1, &r.stack_id) == SBT_OK, "stack");
	g->enc.len = 0;
	vrg_check(g, sbt_vk_encode(&g->enc, cmd, args) == SBT_VK_OK, sbt_vk_cmd_name(cmd));
	r.type = SBT_VK_CMD_TYPE(cmd);
	r.seq = g->seq;
	r.time_ns = g->seq * 1000;
	r.thread = 1;
	r.payload = g->enc.data;
	r.payload_len = g->enc.len;
	vrg_check(g, sbt_writer_append(g->w, &r) == SBT_OK, "append");
}

static VkBuffer vrg_buf(unsigned q, unsigned i)
{
	return (VkBuffer)(uintptr_t)(0xb0000 + q * 16 + i);
}

/* Queue q's objects and its recorded command buffer. */
static void vrg_queue(vrg *g, unsigned q)
{
	VkQueue queue = (VkQueue)(uintptr_t)(0x9000 + q);
	VkCommandBuffer cb = (VkCommandBuffer)(uintptr_t)(0xc000 + q);
	VkSemaphore sem = (VkSemaphore)(uintptr_t)(0xe000 + q);
	sbt_vk_args_vkGetDeviceQueue gq = { VRG_DEVICE, q, 0, &queue };
	VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	sbt_vk_args_vkCreateSemaphore cs = { VRG_DEVICE, &sci, NULL, &sem, VK_SUCCESS };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	sbt_vk_args_vkBeginCommandBuffer bc = { cb, &bi, VK_SUCCESS };
	VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_MEMORY_WRITE_BIT,
		               VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT };
	sbt_vk_args_vkCmdPipelineBarrier pb = { cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
		                                VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL };

	vrg_call(g, SBT_VK_CMD_vkGetDeviceQueue, &gq);
	vrg_call(g, SBT_VK_CMD_vkCreateSemaphore, &cs);
	for (unsigned i = 0; i < 4; i++) {
		VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
		VkBuffer b = vrg_buf(q, i);
		sbt_vk_args_vkCreateBuffer cr = { VRG_DEVICE, &ci, NULL, &b, VK_SUCCESS };

		ci.size = 65536;
		ci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
		vrg_call(g, SBT_VK_CMD_vkCreateBuffer, &cr);
	}
	vrg_call(g, SBT_VK_CMD_vkBeginCommandBuffer, &bc);
	for (unsigned i = 0; i < 8; i++) {
		vrg_call(g, SBT_VK_CMD_vkCmdPipelineBarrier, &pb);
		if (i % 2 == 0) {
			sbt_vk_args_vkCmdFillBuffer f = { cb, vrg_buf(q, i / 2), 0, VK_WHOLE_SIZE, i };

			vrg_call(g, SBT_VK_CMD_vkCmdFillBuffer, &f);
		} else {
			VkBufferCopy r = { 0, 0, 65536 };
			sbt_vk_args_vkCmdCopyBuffer c = { cb, vrg_buf(q, i / 2), vrg_buf(q, (i / 2 + 1) % 4), 1, &r };

			vrg_call(g, SBT_VK_CMD_vkCmdCopyBuffer, &c);
		}
	}
}

int main(int argc, char **argv)
{
	vrg g;
	unsigned long long commands, batches, waits = 0;
	unsigned queues = 2;
	char *end;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: vk_race_gen OUT.sbt COMMANDS [QUEUES]\n");
		return 2;
	}
	commands = strtoull(argv[2], &end, 10);
	if (*end || commands < 8 || commands > 100000000ull) {
		fprintf(stderr, "vk_race_gen: COMMANDS must be 8..100000000, not '%s'\n", argv[2]);
		return 2;
	}
	if (argc == 4) {
		queues = (unsigned)strtoul(argv[3], &end, 10);
		if (*end || queues < 1 || queues > 16) {
			fprintf(stderr, "vk_race_gen: QUEUES must be 1..16, not '%s'\n", argv[3]);
			return 2;
		}
	}
	memset(&g, 0, sizeof(g));
	g.path = argv[1];
	sbt_vk_enc_init(&g.enc);
	vrg_check(&g, sbt_writer_open(g.path, NULL, &g.w) == SBT_OK, "open");
	vrg_check(&g, sbt_vk_define_types(g.w) == SBT_OK, "define types");
	vrg_check(&g, sbt_writer_set_meta(g.w, "api", SBT_VK_API_NAME) == SBT_OK, "meta");
	for (unsigned q = 0; q < queues; q++)
		vrg_queue(&g, q);
	batches = commands / 8;
	for (unsigned long long b = 0; b < batches; b++) {
		unsigned q = (unsigned)(b % queues), prev = (unsigned)((b + queues - 1) % queues);
		VkCommandBuffer cb = (VkCommandBuffer)(uintptr_t)(0xc000 + q);
		VkSemaphore signal = (VkSemaphore)(uintptr_t)(0xe000 + q);
		VkSemaphore wait = (VkSemaphore)(uintptr_t)(0xe000 + prev);
		VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		sbt_vk_args_vkQueueSubmit s = { (VkQueue)(uintptr_t)(0x9000 + q), 1, &si, VK_NULL_HANDLE, VK_SUCCESS };

		si.commandBufferCount = 1;
		si.pCommandBuffers = &cb;
		if (b % 16 == 0 && b + 1 < batches) {
			si.signalSemaphoreCount = 1;
			si.pSignalSemaphores = &signal;
		}
		if (b % 16 == 1) {
			si.waitSemaphoreCount = 1;
			si.pWaitSemaphores = &wait;
			si.pWaitDstStageMask = &stage;
			waits++;
		}
		vrg_call(&g, SBT_VK_CMD_vkQueueSubmit, &s);
		if (b % 256 == 255) {
			sbt_vk_args_vkDeviceWaitIdle w = { VRG_DEVICE, VK_SUCCESS };

			vrg_call(&g, SBT_VK_CMD_vkDeviceWaitIdle, &w);
		}
	}
	vrg_check(&g, sbt_writer_close(g.w) == SBT_OK, "close");
	sbt_vk_enc_free(&g.enc);
	printf("vk_race_gen: %llu commands, %llu batches, %llu semaphore waits\n", batches * 8, batches, waits);
	return 0;
}
