/*
 * test_vk_decode_invalid - the Vulkan decoder yields only what an encoder
 * of a valid call could have produced (issue 12): each crash class a
 * mutated trace reached a driver with is encoded here as the application
 * would have passed it, and decoding it fails with SBT_VK_ERR_INVALID and
 * a message naming the member:
 *   - VK_NULL_HANDLE where vk.xml requires a handle (vkWaitForFences'
 *     fences, vkBindBufferMemory's memory, vkResetCommandPool's pool: the
 *     handle map is never asked about 0, so the check is the decoder's);
 *   - an array absent while its count is not 0 (vkQueueSubmit with
 *     signalSemaphoreCount 15 and no pSignalSemaphores, vkCmdPipelineBarrier);
 *   - codeSize not a multiple of 4 (the driver would read past pCode);
 *   - a NULL string where one is required (pName, an extension name);
 *   - a fixed-size string with no terminator.
 * What vk.xml allows still decodes: an optional handle (the submit's
 * fence), a null element of an optional= "false,true" array (vertex
 * buffers), an ignored array (pImageInfo of a uniform-buffer write).  An
 * enum value vk.xml does not name decodes as it is, and is reported once.
 */
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_vk.h"
#include "tests/support/tst.h"

static sbt_vk_status map_same(void *ctx, VkObjectType type, uint64_t captured, uint64_t *live)
{
	int *calls = ctx;
	(void)type;
	(*calls)++;
	*live = captured;
	return SBT_VK_OK;
}

/* Encode args as command cmd and decode them back through a handle map;
 * the decode's status, its message in msg. */
static sbt_vk_status roundtrip(enum sbt_vk_cmd cmd, const void *args, void *out, char *msg,
                               size_t msg_len, sbt_vk_arena *ar)
{
	sbt_vk_enc e;
	int calls = 0;
	sbt_vk_decode_hooks h = {&calls, map_same, NULL};
	sbt_vk_status st;
	sbt_vk_enc_init(&e);
	TST_REQUIRE(sbt_vk_encode(&e, cmd, args) == SBT_VK_OK);
	sbt_vk_arena_reset(ar);
	st = sbt_vk_decode(cmd, e.data, e.len, ar, out, &h);
	snprintf(msg, msg_len, "%s", sbt_vk_arena_message(ar));
	sbt_vk_enc_free(&e);
	return st;
}

#define DEV ((VkDevice)(uintptr_t)0x1000)

static void expect_invalid(sbt_vk_status st, const char *msg, const char *want)
{
	TST_CHECK_EQ_U64(st, SBT_VK_ERR_INVALID);
	if (!strstr(msg, want)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", msg, want);
		TST_CHECK(0);
	}
}

static void test_null_handles(sbt_vk_arena *ar)
{
	char msg[256];
	VkFence fences[2] = {(VkFence)(uintptr_t)0x2000, VK_NULL_HANDLE};
	sbt_vk_args_vkWaitForFences w = {DEV, 2, fences, VK_TRUE, 1000, VK_SUCCESS}, wb;
	expect_invalid(roundtrip(SBT_VK_CMD_vkWaitForFences, &w, &wb, msg, sizeof(msg), ar), msg,
	               "vkWaitForFences.pFences (VK_NULL_HANDLE where vk.xml requires a handle)");
	fences[1] = (VkFence)(uintptr_t)0x2001;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkWaitForFences, &w, &wb, msg, sizeof(msg), ar),
	                 SBT_VK_OK);

	sbt_vk_args_vkBindBufferMemory bb = {DEV, (VkBuffer)(uintptr_t)0x3000, VK_NULL_HANDLE, 0,
	                                     VK_SUCCESS}, bbb;
	expect_invalid(roundtrip(SBT_VK_CMD_vkBindBufferMemory, &bb, &bbb, msg, sizeof(msg), ar), msg,
	               "vkBindBufferMemory.memory (VK_NULL_HANDLE");

	sbt_vk_args_vkResetCommandPool rp = {DEV, VK_NULL_HANDLE, 0, VK_SUCCESS}, rpb;
	expect_invalid(roundtrip(SBT_VK_CMD_vkResetCommandPool, &rp, &rpb, msg, sizeof(msg), ar), msg,
	               "vkResetCommandPool.commandPool (VK_NULL_HANDLE");

	/* vkQueueSubmit's fence is optional= */
	sbt_vk_args_vkQueueSubmit qs = {(VkQueue)(uintptr_t)0x4000, 0, NULL, VK_NULL_HANDLE,
	                                VK_SUCCESS}, qsb;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkQueueSubmit, &qs, &qsb, msg, sizeof(msg), ar),
	                 SBT_VK_OK);

	/* vkCmdBindVertexBuffers' pBuffers is optional="false,true": null elements */
	VkBuffer vb[2] = {(VkBuffer)(uintptr_t)0x5000, VK_NULL_HANDLE};
	VkDeviceSize off[2] = {0, 64};
	sbt_vk_args_vkCmdBindVertexBuffers bv = {(VkCommandBuffer)(uintptr_t)0x6000, 0, 2, vb, off}, bvb;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCmdBindVertexBuffers, &bv, &bvb, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	TST_CHECK(bvb.pBuffers && bvb.pBuffers[1] == VK_NULL_HANDLE);
}

static void test_absent_arrays(sbt_vk_arena *ar)
{
	char msg[256];
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .signalSemaphoreCount = 15};
	sbt_vk_args_vkQueueSubmit qs = {(VkQueue)(uintptr_t)0x4000, 1, &si, VK_NULL_HANDLE,
	                                VK_SUCCESS}, qsb;
	expect_invalid(roundtrip(SBT_VK_CMD_vkQueueSubmit, &qs, &qsb, msg, sizeof(msg), ar), msg,
	               "VkSubmitInfo.pSignalSemaphores (absent while its count is not 0)");

	sbt_vk_args_vkCmdPipelineBarrier pb;
	memset(&pb, 0, sizeof(pb));
	pb.commandBuffer = (VkCommandBuffer)(uintptr_t)0x6000;
	pb.srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	pb.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	pb.imageMemoryBarrierCount = 3;
	sbt_vk_args_vkCmdPipelineBarrier pbb;
	expect_invalid(roundtrip(SBT_VK_CMD_vkCmdPipelineBarrier, &pb, &pbb, msg, sizeof(msg), ar), msg,
	               "vkCmdPipelineBarrier.pImageMemoryBarriers (absent while its count is not 0)");

	/* an ignored array may be absent whatever its count: pImageInfo of a
	 * uniform-buffer write */
	VkDescriptorBufferInfo bi = {(VkBuffer)(uintptr_t)0x5000, 0, 64};
	VkWriteDescriptorSet wr = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
	                           .dstSet = (VkDescriptorSet)(uintptr_t)0x7000,
	                           .descriptorCount = 1,
	                           .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
	                           .pBufferInfo = &bi};
	sbt_vk_args_vkUpdateDescriptorSets ud = {DEV, 1, &wr, 0, NULL}, udb;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkUpdateDescriptorSets, &ud, &udb, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	/* ... and the buffer write without its pBufferInfo is refused */
	wr.pBufferInfo = NULL;
	expect_invalid(roundtrip(SBT_VK_CMD_vkUpdateDescriptorSets, &ud, &udb, msg, sizeof(msg), ar),
	               msg, "VkWriteDescriptorSet.pBufferInfo (absent while its count is not 0)");
}

static void test_code_size(sbt_vk_arena *ar)
{
	char msg[256];
	uint32_t code[2] = {0x07230203, 0};
	VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	                               .codeSize = 6, .pCode = code};
	VkShaderModule sm = (VkShaderModule)(uintptr_t)0x8000;
	sbt_vk_args_vkCreateShaderModule a = {DEV, &ci, NULL, &sm, VK_SUCCESS}, b;
	expect_invalid(roundtrip(SBT_VK_CMD_vkCreateShaderModule, &a, &b, msg, sizeof(msg), ar), msg,
	               "VkShaderModuleCreateInfo.pCode (codeSize is not a multiple of 4)");
	ci.codeSize = 8;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCreateShaderModule, &a, &b, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	TST_CHECK(b.pCreateInfo->pCode[0] == 0x07230203);
}

static void test_strings(sbt_vk_arena *ar)
{
	char msg[256];
	VkComputePipelineCreateInfo cp = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		          .stage = VK_SHADER_STAGE_COMPUTE_BIT,
		          .module = (VkShaderModule)(uintptr_t)0x8000, .pName = NULL},
		.layout = (VkPipelineLayout)(uintptr_t)0x9000, .basePipelineIndex = -1};
	VkPipeline pl = (VkPipeline)(uintptr_t)0xa000;
	sbt_vk_args_vkCreateComputePipelines a = {DEV, VK_NULL_HANDLE, 1, &cp, NULL, &pl, VK_SUCCESS}, b;
	expect_invalid(roundtrip(SBT_VK_CMD_vkCreateComputePipelines, &a, &b, msg, sizeof(msg), ar), msg,
	               "VkPipelineShaderStageCreateInfo.pName (NULL where vk.xml requires a string)");
	cp.stage.pName = "main";
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCreateComputePipelines, &a, &b, msg, sizeof(msg), ar),
	                 SBT_VK_OK);

	const char *exts[2] = {"VK_KHR_surface", NULL};
	VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                           .enabledExtensionCount = 2, .ppEnabledExtensionNames = exts};
	VkInstance inst = (VkInstance)(uintptr_t)0xb000;
	sbt_vk_args_vkCreateInstance ci = {&ii, NULL, &inst, VK_SUCCESS}, cib;
	expect_invalid(roundtrip(SBT_VK_CMD_vkCreateInstance, &ci, &cib, msg, sizeof(msg), ar), msg,
	               "VkInstanceCreateInfo.ppEnabledExtensionNames (a NULL string in the array)");

	/* a fixed-size string that fills its array has no terminator */
	VkExtensionProperties props;
	memset(&props, 0, sizeof(props));
	memset(props.extensionName, 'x', sizeof(props.extensionName));
	uint32_t count = 1;
	sbt_vk_args_vkEnumerateInstanceExtensionProperties ep = {NULL, &count, &props, VK_SUCCESS}, epb;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkEnumerateInstanceExtensionProperties, &ep, &epb, msg,
	                           sizeof(msg), ar), SBT_VK_ERR_CORRUPT);
	TST_CHECK(strstr(msg, "VkExtensionProperties.extensionName") != NULL);
	props.extensionName[sizeof(props.extensionName) - 1] = '\0';
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkEnumerateInstanceExtensionProperties, &ep, &epb, msg,
	                           sizeof(msg), ar), SBT_VK_OK);
	TST_CHECK_EQ_U64(strlen(epb.pProperties[0].extensionName), sizeof(props.extensionName) - 1);
}

static void test_unknown_enum(sbt_vk_arena *ar)
{
	char msg[256];
	const char *field = NULL;
	int64_t value = 0;
	sbt_vk_args_vkCmdSetPrimitiveTopology a = {(VkCommandBuffer)(uintptr_t)0x6000,
	                                           (VkPrimitiveTopology)1000777000}, b;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCmdSetPrimitiveTopology, &a, &b, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	TST_CHECK_EQ_U64(b.primitiveTopology, 1000777000); /* passed on as it is */
	TST_REQUIRE(sbt_vk_arena_unknown_enum(ar, &field, &value) == 1);
	TST_CHECK(strcmp(field, "vkCmdSetPrimitiveTopology.primitiveTopology") == 0);
	TST_CHECK_EQ_U64(value, 1000777000);
	a.primitiveTopology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCmdSetPrimitiveTopology, &a, &b, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	TST_CHECK_EQ_U64(sbt_vk_arena_unknown_enum(ar, &field, &value), 0);

	/* two unknown values in one record: a negative one (refused by the
	 * replay) is the one kept, before or after the other */
	sbt_vk_args_vkCmdSetStencilOp so = {(VkCommandBuffer)(uintptr_t)0x6000,
	                                    VK_STENCIL_FACE_FRONT_BIT, (VkStencilOp)1000777000,
	                                    VK_STENCIL_OP_KEEP, VK_STENCIL_OP_KEEP, (VkCompareOp)-5}, sob;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCmdSetStencilOp, &so, &sob, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	TST_REQUIRE(sbt_vk_arena_unknown_enum(ar, &field, &value) == 1);
	TST_CHECK(strcmp(field, "vkCmdSetStencilOp.compareOp") == 0);
	TST_CHECK_EQ_U64((uint64_t)value, (uint64_t)(int64_t)-5);
	so.failOp = (VkStencilOp)-7;
	so.passOp = (VkStencilOp)1000777000;
	TST_CHECK_EQ_U64(roundtrip(SBT_VK_CMD_vkCmdSetStencilOp, &so, &sob, msg, sizeof(msg), ar),
	                 SBT_VK_OK);
	TST_REQUIRE(sbt_vk_arena_unknown_enum(ar, &field, &value) == 1);
	TST_CHECK(strcmp(field, "vkCmdSetStencilOp.failOp") == 0);
	TST_CHECK_EQ_U64((uint64_t)value, (uint64_t)(int64_t)-7);
}

int main(void)
{
	sbt_vk_arena *ar;
	TST_REQUIRE(sbt_vk_arena_create(0, &ar) == SBT_VK_OK);
	test_null_handles(ar);
	test_absent_arrays(ar);
	test_code_size(ar);
	test_strings(ar);
	test_unknown_enum(ar);
	sbt_vk_arena_free(ar);
	return tst_done();
}
