/*
 * vk_callbound - the call-bound benchmark program: many submits of many
 * tiny commands, so that what a capture layer spends per call dominates
 * the run time.  Each submit re-records a command buffer of CMDS commands:
 * vkCmdPushConstants (16 bytes) for most of them and, every EVERY pushes, a
 * compute-to-compute barrier and a vkCmdDispatch(1, 1, 1) of
 * tests/shaders/vk_callbound.comp, which folds the last pushed words into a
 * 256-word table.  Two command buffers alternate, each with its fence, so
 * recording one overlaps the device running the other.
 *
 * usage: vk_callbound [--submits S] [--cmds C] [--every E] [--late L [--late-reusable]]
 *                     [--early L] [--sizes]
 *                     [--raise A[,B[,C[,D]]]] [--app-window A,B[,C,D]]
 *                     [--app-trigger A:N]
 * With --late L a third command buffer (one-time-submit; with
 * --late-reusable not) pushes one word and dispatches: recorded again
 * after each of the loop's first three submits and submitted right after
 * it (then a queue wait), recorded a fourth time after the fourth and
 * submitted only after loop submit L (L >= 5):
 * a command buffer re-recorded for each submit, then recorded long before
 * its submit (the trimmed capture's unkept recordings, docs/vulkan-layer.md).
 * With --early L a fourth command buffer, one-time-submit, pushes one word
 * and dispatches: recorded once before the loop and submitted only after
 * loop submit L (then a queue wait), as a program records work at load
 * time that it submits much later.
 * With --sizes a command buffer recorded before the loop (and never
 * submitted) pushes constants of every size from 4 to 128 bytes, byte i of
 * the size-N push being (N * 7 + i) & 0xff: the layer's copies of a call's
 * array, short and long (test_vk_record_sizes.sh).
 * With --raise A[,B[,C[,D]]] the program sends itself SIGUSR1 at the end
 * of loop submit A (and of B, C, D): the signal trigger's toggles at known
 * points (test_vk_trim_held.sh, test_vk_trim_second.sh; without a handler
 * SIGUSR1 ends the program).
 * With --app-window A,B it starts a capture window with the in-app API
 * (tracesmith_app.h) at the end of loop submit A and ends it at the end of
 * B, printing both answers ("app window: start S end E"), and with
 * A,B,C,D a second one from C to D the same way; with
 * --app-trigger A:N it asks for N frames (tracesmith_trigger_capture) at
 * the end of loop submit A, printing the answer ("app trigger: R").
 * Prints the number of Vulkan commands recorded into command buffers, the
 * XXH3-64 hash of the final table (a pure function of S, C and E) and the
 * wall time of the submit loop in milliseconds (set-up excluded).
 */
#include <signal.h>

#include "tests/programs/vk_prog.h"
#include "tracesmith/tracesmith_app.h"

#define VKB_TABLE_WORDS 256

typedef struct vkb_push {
	uint32_t a, b, c, d;
} vkb_push;

static void vkb_usage(FILE *f)
{
	fprintf(f, "usage: vk_callbound [--submits S] [--cmds C] [--every E] [--late L]\n"
	           "                    [--late-reusable] [--early L] [--sizes]\n"
	           "  --submits S  submits (1..1000000, default 200)\n"
	           "  --cmds C     push-constant commands per submit (1..1000000, default 2000)\n"
	           "  --every E    a barrier and a dispatch after every E pushes (1..1000000,\n"
	           "               default 500); each submit ends with one\n"
	           "  --late L     a third command buffer, recorded and submitted after each of\n"
	           "               the first 3 submits, recorded again after the 4th and\n"
	           "               submitted after submit L (5..S), one-time-submit\n"
	           "  --late-reusable  the --late command buffer without one-time-submit\n"
	           "  --early L    a fourth command buffer, one-time-submit, recorded before the\n"
	           "               loop and submitted after submit L (1..S)\n"
	           "  --sizes      first, a command buffer (never submitted) pushing 4..128 bytes\n"
	           "  --raise A[,B[,C[,D]]]  SIGUSR1 to itself after loop submit A (and B, C,\n"
	           "               D; increasing, <= S)\n"
	           "  --app-window A,B[,C,D]  in-app capture start after loop submit A, end\n"
	           "               after B (and again from C to D; increasing)\n"
	           "  --app-trigger A:N  in-app request for N frames after loop submit A\n");
}

/* Up to four increasing loop submits "A[,B[,C[,D]]]" (each 1..1000000)
 * into at[] (the rest 0): how many, or -1.  any 0: two or four only. */
static int vkb_points(const char *v, uint32_t at[4], int any)
{
	uint32_t got[4] = { 0 };
	int n = 0;
	char *end;
	do {
		unsigned long x = strtoul(v, &end, 10);
		if (end == v || x < 1 || x > 1000000 || (n && x <= got[n - 1]))
			return -1;
		got[n++] = (uint32_t)x;
		v = end + 1;
	} while (*end == ',' && n < 4);
	if (*end || (!any && n != 2 && n != 4))
		return -1;
	memcpy(at, got, sizeof(got));
	return n;
}

int main(int argc, char **argv)
{
	uint32_t submits = 200, cmds = 2000, every = 500, late = 0, early = 0, raise_at[4] = { 0 }, s, k;
	int late_reusable = 0;
	uint32_t app_at[4] = { 0 }, trig_at = 0, trig_frames = 0;
	int app_start = 0;
	int sizes = 0;
	vkp_ctx c;
	vkp_buffer table;
	VkDescriptorSetLayoutBinding bind;
	VkDescriptorSetLayoutCreateInfo dslci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
	};
	VkDescriptorPoolSize psize = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
	VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO };
	VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
	VkDescriptorBufferInfo dbi;
	VkWriteDescriptorSet wds = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(vkb_push) };
	VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
	VkDescriptorSetLayout dsl;
	VkDescriptorPool dpool;
	VkDescriptorSet set;
	VkPipelineLayout layout;
	VkShaderModule mod;
	VkPipeline pipe;
	VkCommandPool cpool;
	VkCommandBuffer cb[4];
	VkFence fences[2];
	int pending[2] = { 0, 0 };
	uint64_t calls = 0;
	double t0, t1;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--submits")) {
			submits = vkp_parse_u32("vk_callbound", a, vkp_next_arg(argc, argv, &i), 1, 1000000);
		} else if (!strcmp(a, "--cmds")) {
			cmds = vkp_parse_u32("vk_callbound", a, vkp_next_arg(argc, argv, &i), 1, 1000000);
		} else if (!strcmp(a, "--every")) {
			every = vkp_parse_u32("vk_callbound", a, vkp_next_arg(argc, argv, &i), 1, 1000000);
		} else if (!strcmp(a, "--late")) {
			late = vkp_parse_u32("vk_callbound", a, vkp_next_arg(argc, argv, &i), 5, 1000000);
		} else if (!strcmp(a, "--late-reusable")) {
			late_reusable = 1;
		} else if (!strcmp(a, "--early")) {
			early = vkp_parse_u32("vk_callbound", a, vkp_next_arg(argc, argv, &i), 1, 1000000);
		} else if (!strcmp(a, "--raise")) {
			const char *v = vkp_next_arg(argc, argv, &i);
			if (vkb_points(v, raise_at, 1) < 0) {
				fprintf(stderr, "vk_callbound: --raise '%s' is not A[,B[,C[,D]]] "
				        "(1 <= A < B < C < D)\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--app-window")) {
			const char *v = vkp_next_arg(argc, argv, &i);
			if (vkb_points(v, app_at, 0) < 0) {
				fprintf(stderr, "vk_callbound: --app-window '%s' is not A,B or A,B,C,D "
				        "(1 <= A < B < C < D)\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--app-trigger")) {
			const char *v = vkp_next_arg(argc, argv, &i);
			char *end;
			unsigned long x = strtoul(v, &end, 10), y = 0;
			if (*end == ':')
				y = strtoul(end + 1, &end, 10);
			if (*end || x < 1 || x > 1000000 || y < 1 || y > 1000000) {
				fprintf(stderr, "vk_callbound: --app-trigger '%s' is not A:N (A, N >= 1)\n", v);
				return 2;
			}
			trig_at = (uint32_t)x;
			trig_frames = (uint32_t)y;
		} else if (!strcmp(a, "--sizes")) {
			sizes = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			vkb_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_callbound: unknown option '%s'\n", a);
			vkb_usage(stderr);
			return 2;
		}
	}
	if (raise_at[0] > submits || raise_at[1] > submits || raise_at[2] > submits ||
	    raise_at[3] > submits || app_at[1] > submits || app_at[3] > submits ||
	    trig_at > submits) {
		fprintf(stderr, "vk_callbound: --raise, --app-window or --app-trigger is after the "
		        "last submit (%u)\n", (unsigned)submits);
		return 2;
	}
	if ((late && late > submits) || (early && early > submits)) {
		fprintf(stderr, "vk_callbound: --late or --early %u is after the last submit (%u)\n",
		        (unsigned)(late > submits ? late : early), (unsigned)submits);
		return 2;
	}

	vkp_ctx_init(&c, "vk_callbound", 0);
	vkp_buffer_create(&c, &table, VKB_TABLE_WORDS * 4,
	                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	memset(&bind, 0, sizeof(bind));
	bind.binding = 0;
	bind.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
	bind.descriptorCount = 1;
	bind.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
	dslci.bindingCount = 1;
	dslci.pBindings = &bind;
	VKP_CHECK(&c, vkCreateDescriptorSetLayout(c.device, &dslci, NULL, &dsl));
	dpci.maxSets = 1;
	dpci.poolSizeCount = 1;
	dpci.pPoolSizes = &psize;
	VKP_CHECK(&c, vkCreateDescriptorPool(c.device, &dpci, NULL, &dpool));
	dsai.descriptorPool = dpool;
	dsai.descriptorSetCount = 1;
	dsai.pSetLayouts = &dsl;
	VKP_CHECK(&c, vkAllocateDescriptorSets(c.device, &dsai, &set));
	dbi = (VkDescriptorBufferInfo){ table.buf, 0, VK_WHOLE_SIZE };
	wds.dstSet = set;
	wds.dstBinding = 0;
	wds.descriptorCount = 1;
	wds.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
	wds.pBufferInfo = &dbi;
	vkUpdateDescriptorSets(c.device, 1, &wds, 0, NULL);
	plci.setLayoutCount = 1;
	plci.pSetLayouts = &dsl;
	if (sizes)
		pcr.size = 128; /* the least maxPushConstantsSize a device has */
	plci.pushConstantRangeCount = 1;
	plci.pPushConstantRanges = &pcr;
	VKP_CHECK(&c, vkCreatePipelineLayout(c.device, &plci, NULL, &layout));
	mod = vkp_shader_load(&c, "vk_callbound.comp.spv");
	pipe = vkp_compute_pipeline(&c, layout, mod);
	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 4;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fences[0]));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fences[1]));
	if (sizes) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VkCommandBuffer sb;
		uint8_t bytes[128];

		cbai.commandBufferCount = 1;
		VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &sb));
		VKP_CHECK(&c, vkBeginCommandBuffer(sb, &bi));
		for (uint32_t n = 4; n <= 128; n += 4) {
			for (uint32_t b = 0; b < n; b++)
				bytes[b] = (uint8_t)(n * 7 + b);
			vkCmdPushConstants(sb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, n, bytes);
		}
		VKP_CHECK(&c, vkEndCommandBuffer(sb));
		vkFreeCommandBuffers(c.device, cpool, 1, &sb);
	}

	mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
	mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
	if (early) {
		VkCommandBufferBeginInfo ebi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		vkb_push pc = { 0xeeee0000u, early, ~early, 11 };

		ebi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(cb[3], &ebi));
		vkCmdBindPipeline(cb[3], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(cb[3], VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0,
		                        NULL);
		vkCmdPipelineBarrier(cb[3], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
		                            VK_PIPELINE_STAGE_TRANSFER_BIT,
		                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
		vkCmdPushConstants(cb[3], layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
		vkCmdDispatch(cb[3], 1, 1, 1);
		VKP_CHECK(&c, vkEndCommandBuffer(cb[3]));
		calls += 5;
	}
	t0 = vkp_now();
	for (s = 0; s < submits; s++) {
		VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
		VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
		VkCommandBuffer b = cb[s % 2];
		VkFence f = fences[s % 2];

		if (pending[s % 2])
			vkp_fence_wait_reset(&c, f);
		VKP_CHECK(&c, vkResetCommandBuffer(b, 0));
		bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		VKP_CHECK(&c, vkBeginCommandBuffer(b, &bi));
		if (s == 0) {
			vkCmdFillBuffer(b, table.buf, 0, VK_WHOLE_SIZE, 0);
			calls++;
		}
		vkCmdBindPipeline(b, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
		vkCmdBindDescriptorSets(b, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
		calls += 2;
		for (k = 0; k < cmds; k++) {
			vkb_push pc;

			pc.a = s * cmds + k;
			pc.b = k * 2654435761u;
			pc.c = s;
			pc.d = k ^ (s << 16);
			vkCmdPushConstants(b, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
			calls++;
			if ((k + 1) % every == 0 || k + 1 == cmds) {
				vkCmdPipelineBarrier(b, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
				                        VK_PIPELINE_STAGE_TRANSFER_BIT,
				                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0,
				                     NULL);
				vkCmdDispatch(b, 1, 1, 1);
				calls += 2;
			}
		}
		if (s + 1 == submits) {
			VkMemoryBarrier hb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER };
			hb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
			hb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
			vkCmdPipelineBarrier(b, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			                     VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0, NULL, 0, NULL);
			calls++;
		}
		VKP_CHECK(&c, vkEndCommandBuffer(b));
		si.commandBufferCount = 1;
		si.pCommandBuffers = &b;
		VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &si, f));
		pending[s % 2] = 1;
		if (late && (s < 4 || s + 1 == late)) {
			VkCommandBufferBeginInfo lbi = {
				.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
			};
			VkSubmitInfo lsi = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
			vkb_push pc = { 0x5a5a0000u + s, s, ~s, 7 };
			if (!late_reusable)
				lbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
			if (s < 4) {
				VKP_CHECK(&c, vkResetCommandBuffer(cb[2], 0));
				VKP_CHECK(&c, vkBeginCommandBuffer(cb[2], &lbi));
				vkCmdBindPipeline(cb[2], VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
				vkCmdBindDescriptorSets(cb[2], VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1,
				                        &set, 0, NULL);
				vkCmdPipelineBarrier(cb[2], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
				                            VK_PIPELINE_STAGE_TRANSFER_BIT,
				                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL,
				                     0, NULL);
				vkCmdPushConstants(cb[2], layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc),
				                   &pc);
				vkCmdDispatch(cb[2], 1, 1, 1);
				VKP_CHECK(&c, vkEndCommandBuffer(cb[2]));
				calls += 5;
			}
			if (s < 3 || s + 1 == late) {
				lsi.commandBufferCount = 1;
				lsi.pCommandBuffers = &cb[2];
				VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &lsi, VK_NULL_HANDLE));
				VKP_CHECK(&c, vkQueueWaitIdle(c.queue));
			}
		}
		if (s + 1 == early) {
			VkSubmitInfo esi = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };

			esi.commandBufferCount = 1;
			esi.pCommandBuffers = &cb[3];
			VKP_CHECK(&c, vkQueueSubmit(c.queue, 1, &esi, VK_NULL_HANDLE));
			VKP_CHECK(&c, vkQueueWaitIdle(c.queue));
		}
		if (s + 1 == raise_at[0] || s + 1 == raise_at[1] || s + 1 == raise_at[2] ||
		    s + 1 == raise_at[3])
			raise(SIGUSR1);
		if (s + 1 == app_at[0] || s + 1 == app_at[2])
			app_start = tracesmith_start_capture();
		if (s + 1 == app_at[1] || s + 1 == app_at[3])
			printf("app window: start %d end %d\n", app_start, tracesmith_end_capture());
		if (s + 1 == trig_at)
			printf("app trigger: %d\n", tracesmith_trigger_capture(trig_frames));
	}
	for (i = 0; i < 2; i++)
		if (pending[i])
			vkp_fence_wait_reset(&c, fences[i]);
	t1 = vkp_now();
	printf("vk_callbound: submits %u cmds %u every %u calls %llu hash 0x%016llx loop_ms %.1f\n",
	       (unsigned)submits, (unsigned)cmds, (unsigned)every, (unsigned long long)calls,
	       (unsigned long long)XXH3_64bits(table.map, VKB_TABLE_WORDS * 4),
	       (t1 - t0) * 1000.0);

	vkDestroyFence(c.device, fences[1], NULL);
	vkDestroyFence(c.device, fences[0], NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyPipeline(c.device, pipe, NULL);
	vkDestroyShaderModule(c.device, mod, NULL);
	vkDestroyPipelineLayout(c.device, layout, NULL);
	vkDestroyDescriptorPool(c.device, dpool, NULL);
	vkDestroyDescriptorSetLayout(c.device, dsl, NULL);
	vkp_buffer_destroy(&c, &table);
	vkp_ctx_finish(&c);
	return 0;
}
