/*
 * test_vk_codec_decode - the Vulkan codec on hand-built calls: exact values
 * back after a round trip, input handles mapped and output handles not,
 * outputs dropped after a failed call, every truncation and single-byte
 * corruption of a payload refused or decoded without a crash, a huge count
 * refused without a huge allocation, a map that refuses a handle, the name
 * tables, what is carried, and the tsinfo text of a record in a real trace.
 */
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_dump.h"
#include "serializer/sbt_vk.h"
#include "tests/support/tst.h"

#define KEY UINT64_C(0x1000000000000)

static sbt_vk_status map_plus(void *ctx, VkObjectType type, uint64_t captured, uint64_t *live)
{
	int *calls = ctx;
	(*calls)++;
	if (type == VK_OBJECT_TYPE_DEVICE && captured == 0xdead)
		return SBT_VK_ERR_HANDLE;
	*live = captured + KEY;
	return SBT_VK_OK;
}

static void fill_create_buffer(sbt_vk_args_vkCreateBuffer *a, VkBufferCreateInfo *ci,
                               uint32_t *qf, VkBuffer *out)
{
	qf[0] = 3;
	qf[1] = 7;
	memset(ci, 0, sizeof(*ci));
	ci->sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
	ci->size = 4096;
	ci->usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	ci->sharingMode = VK_SHARING_MODE_CONCURRENT;
	ci->queueFamilyIndexCount = 2;
	ci->pQueueFamilyIndices = qf;
	*out = (VkBuffer)(uintptr_t)0x5000;
	memset(a, 0, sizeof(*a));
	a->device = (VkDevice)(uintptr_t)0x1234;
	a->pCreateInfo = ci;
	a->pBuffer = out;
	a->ret = VK_SUCCESS;
}

static void test_create_buffer(void)
{
	sbt_vk_args_vkCreateBuffer a, b;
	VkBufferCreateInfo ci;
	uint32_t qf[2];
	VkBuffer out;
	fill_create_buffer(&a, &ci, qf, &out);
	sbt_vk_enc e;
	sbt_vk_enc_init(&e);
	TST_REQUIRE(sbt_vk_encode(&e, SBT_VK_CMD_vkCreateBuffer, &a) == SBT_VK_OK);
	sbt_vk_arena *ar;
	TST_REQUIRE(sbt_vk_arena_create(0, &ar) == SBT_VK_OK);
	int calls = 0;
	sbt_vk_decode_hooks h = {&calls, map_plus, NULL};
	TST_REQUIRE(sbt_vk_decode(SBT_VK_CMD_vkCreateBuffer, e.data, e.len, ar, &b, &h) == SBT_VK_OK);
	TST_CHECK_EQ_U64((uintptr_t)b.device, 0x1234 + KEY); /* input: mapped */
	TST_CHECK_EQ_U64(calls, 1);
	TST_REQUIRE(b.pCreateInfo != NULL);
	TST_CHECK_EQ_U64(b.pCreateInfo->sType, VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
	TST_CHECK_EQ_U64(b.pCreateInfo->size, 4096);
	TST_CHECK_EQ_U64(b.pCreateInfo->usage, ci.usage);
	TST_CHECK_EQ_U64(b.pCreateInfo->sharingMode, VK_SHARING_MODE_CONCURRENT);
	TST_CHECK_EQ_U64(b.pCreateInfo->queueFamilyIndexCount, 2);
	TST_REQUIRE(b.pCreateInfo->pQueueFamilyIndices != NULL);
	TST_CHECK_EQ_U64(b.pCreateInfo->pQueueFamilyIndices[1], 7);
	TST_CHECK(b.pAllocator == NULL);
	TST_REQUIRE(b.pBuffer != NULL);
	TST_CHECK_EQ_U64((uintptr_t)*b.pBuffer, 0x5000); /* output: captured value */

	/* Every truncation fails cleanly and names where. */
	for (size_t n = 0; n < e.len; n++) {
		sbt_vk_arena_reset(ar);
		sbt_vk_status st = sbt_vk_decode(SBT_VK_CMD_vkCreateBuffer, e.data, n, ar, &b, NULL);
		TST_CHECK(st != SBT_VK_OK);
		TST_CHECK(sbt_vk_arena_message(ar)[0] != '\0');
	}
	/* One trailing byte too many is refused too. */
	size_t len = e.len;
	TST_REQUIRE(sbt_vk_encode(&e, SBT_VK_CMD_vkCmdEndRenderPass, &(sbt_vk_args_vkCmdEndRenderPass){0}) == SBT_VK_OK);
	sbt_vk_arena_reset(ar);
	TST_CHECK(sbt_vk_decode(SBT_VK_CMD_vkCreateBuffer, e.data, len + 1, ar, &b, NULL) == SBT_VK_ERR_CORRUPT);
	/* Every single-byte corruption: no crash, and a count that no longer
	 * matches its length member is refused. */
	uint8_t *copy = malloc(len);
	TST_REQUIRE(copy != NULL);
	for (size_t i = 0; i < len; i++) {
		for (int bit = 0; bit < 8; bit++) {
			memcpy(copy, e.data, len);
			copy[i] ^= (uint8_t)(1u << bit);
			sbt_vk_arena_reset(ar);
			(void)sbt_vk_decode(SBT_VK_CMD_vkCreateBuffer, copy, len, ar, &b, NULL);
		}
	}
	free(copy);

	/* A refused handle fails the decode with the map's status. */
	a.device = (VkDevice)(uintptr_t)0xdead;
	e.len = 0;
	TST_REQUIRE(sbt_vk_encode(&e, SBT_VK_CMD_vkCreateBuffer, &a) == SBT_VK_OK);
	sbt_vk_arena_reset(ar);
	TST_CHECK(sbt_vk_decode(SBT_VK_CMD_vkCreateBuffer, e.data, e.len, ar, &b, &h) == SBT_VK_ERR_HANDLE);
	TST_CHECK(strstr(sbt_vk_arena_message(ar), "vkCreateBuffer.device") != NULL);

	/* After a failed call the outputs are not recorded. */
	a.device = (VkDevice)(uintptr_t)0x1234;
	a.ret = VK_ERROR_OUT_OF_DEVICE_MEMORY;
	e.len = 0;
	TST_REQUIRE(sbt_vk_encode(&e, SBT_VK_CMD_vkCreateBuffer, &a) == SBT_VK_OK);
	sbt_vk_arena_reset(ar);
	TST_REQUIRE(sbt_vk_decode(SBT_VK_CMD_vkCreateBuffer, e.data, e.len, ar, &b, NULL) == SBT_VK_OK);
	TST_CHECK(b.pBuffer == NULL);
	TST_CHECK(b.ret == VK_ERROR_OUT_OF_DEVICE_MEMORY);

	sbt_vk_arena_free(ar);
	sbt_vk_enc_free(&e);
}

static void test_huge_count(void)
{
	/* vkCmdSetScissor with a claimed 2^40 rectangles in a few bytes. */
	uint8_t p[32];
	size_t n = 0;
	n += sbt_varint_put(p + n, 0x77);            /* commandBuffer */
	n += sbt_varint_put(p + n, 0);               /* firstScissor */
	n += sbt_varint_put(p + n, 1);               /* scissorCount */
	n += sbt_varint_put(p + n, 1);               /* pScissors: inline raw array */
	n += sbt_varint_put(p + n, (uint64_t)1 << 40); /* ... of 2^40 elements */
	sbt_vk_arena *ar;
	TST_REQUIRE(sbt_vk_arena_create(1 << 20, &ar) == SBT_VK_OK);
	sbt_vk_args_vkCmdSetScissor b;
	sbt_vk_status st = sbt_vk_decode(SBT_VK_CMD_vkCmdSetScissor, p, n, ar, &b, NULL);
	TST_CHECK(st == SBT_VK_ERR_TRUNCATED || st == SBT_VK_ERR_CORRUPT);
	TST_CHECK(strstr(sbt_vk_arena_message(ar), "pScissors") != NULL);
	sbt_vk_arena_free(ar);
}

static void test_instance_and_chain(void)
{
	const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	const char *exts[] = {"VK_EXT_debug_utils", "VK_KHR_surface"};
	VkValidationFeatureEnableEXT en[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
	VkValidationFeaturesEXT vf = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, NULL, 1, en, 0, NULL};
	/* A struct the codec does not know (as the loader inserts) is skipped. */
	VkBaseInStructure unknown = {(VkStructureType)47, (const VkBaseInStructure *)&vf};
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "demo", 3, NULL, 0,
	                         VK_API_VERSION_1_2};
	VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, &unknown, 0, &app, 1, layers, 2,
	                           exts};
	VkInstance inst = (VkInstance)(uintptr_t)0x42;
	sbt_vk_args_vkCreateInstance a = {&ci, NULL, &inst, VK_SUCCESS}, b;
	sbt_vk_enc e;
	sbt_vk_enc_init(&e);
	TST_REQUIRE(sbt_vk_encode(&e, SBT_VK_CMD_vkCreateInstance, &a) == SBT_VK_OK);
	TST_CHECK_EQ_U64(e.skipped_pnext, 1);
	TST_CHECK_EQ_U64(e.last_skipped_stype, 47);
	sbt_vk_arena *ar;
	TST_REQUIRE(sbt_vk_arena_create(0, &ar) == SBT_VK_OK);
	TST_REQUIRE(sbt_vk_decode(SBT_VK_CMD_vkCreateInstance, e.data, e.len, ar, &b, NULL) == SBT_VK_OK);
	TST_CHECK(strcmp(b.pCreateInfo->pApplicationInfo->pApplicationName, "demo") == 0);
	TST_CHECK(b.pCreateInfo->pApplicationInfo->pEngineName == NULL);
	TST_CHECK_EQ_U64(b.pCreateInfo->pApplicationInfo->apiVersion, VK_API_VERSION_1_2);
	TST_CHECK_EQ_U64(b.pCreateInfo->enabledExtensionCount, 2);
	TST_CHECK(strcmp(b.pCreateInfo->ppEnabledExtensionNames[1], "VK_KHR_surface") == 0);
	TST_CHECK(strcmp(b.pCreateInfo->ppEnabledLayerNames[0], "VK_LAYER_KHRONOS_validation") == 0);
	const VkValidationFeaturesEXT *got = b.pCreateInfo->pNext;
	TST_REQUIRE(got != NULL);
	TST_CHECK_EQ_U64(got->sType, VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT);
	TST_CHECK(got->pNext == NULL);
	TST_CHECK_EQ_U64(got->enabledValidationFeatureCount, 1);
	TST_CHECK_EQ_U64(got->pEnabledValidationFeatures[0], en[0]);
	sbt_vk_arena_free(ar);
	sbt_vk_enc_free(&e);
}

static void test_tables(void)
{
	enum sbt_vk_cmd c;
	TST_CHECK(sbt_vk_cmd_by_name("vulkan.vkCmdDraw", &c) == 0 && c == SBT_VK_CMD_vkCmdDraw);
	TST_CHECK(sbt_vk_cmd_by_name("vkQueueSubmit2KHR", &c) == 0 && c == SBT_VK_CMD_vkQueueSubmit2KHR);
	TST_CHECK(sbt_vk_cmd_by_name("vkNoSuchCommand", &c) == -1);
	TST_CHECK(strcmp(sbt_vk_cmd_name(SBT_VK_CMD_vkCreateBuffer), "vkCreateBuffer") == 0);
	TST_CHECK(sbt_vk_cmd_name(SBT_VK_CMD_COUNT) == NULL);
	size_t n = 0;
	const sbt_vk_type_desc *t = sbt_vk_types(&n);
	TST_CHECK_EQ_U64(n, SBT_VK_CMD_COUNT + 4);
	TST_CHECK(strcmp(t[0].name, "vulkan.tsMemoryWrite") == 0);
	TST_CHECK(strcmp(t[3].name, "vulkan.tsMemoryWrites") == 0);
	TST_CHECK_EQ_U64(t[4 + SBT_VK_CMD_vkCmdDraw].type, SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCmdDraw));
	TST_CHECK(sbt_vk_extension_carried("VK_KHR_swapchain"));
	TST_CHECK(sbt_vk_extension_carried("VK_KHR_xcb_surface"));
	TST_CHECK(!sbt_vk_extension_carried("VK_KHR_win32_surface"));
	TST_CHECK(sbt_vk_extension_carried("VK_EXT_external_memory_host"));
	TST_CHECK(!sbt_vk_extension_carried("VK_KHR_from_the_future"));
	TST_CHECK(sbt_vk_stype_carried(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES));
	TST_CHECK(!sbt_vk_stype_carried((VkStructureType)1000999999));
	TST_CHECK(sbt_vk_cmd_carried(SBT_VK_CMD_vkCmdDraw));
	TST_CHECK(!sbt_vk_cmd_carried(SBT_VK_CMD_vkCreateWin32SurfaceKHR));
	TST_CHECK(!sbt_vk_cmd_carried_by_name("vkCmdBuildAccelerationStructuresKHR"));

	sbt_vk_enc e;
	sbt_vk_enc_init(&e);
	sbt_vk_ts_result r = {99, VK_ERROR_DEVICE_LOST, (const uint8_t *)"xyz", 3}, r2;
	TST_REQUIRE(sbt_vk_ts_result_encode(&e, &r) == SBT_VK_OK);
	TST_REQUIRE(sbt_vk_ts_result_decode(e.data, e.len, &r2) == SBT_VK_OK);
	TST_CHECK(r2.seq == 99 && r2.result == VK_ERROR_DEVICE_LOST && r2.outputs_len == 3 &&
	          memcmp(r2.outputs, "xyz", 3) == 0);
	e.len = 0;
	sbt_vk_ts_memory_write w = {0xabc, 64, 1000, 7}, w2;
	TST_REQUIRE(sbt_vk_ts_memory_write_encode(&e, &w) == SBT_VK_OK);
	TST_REQUIRE(sbt_vk_ts_memory_write_decode(e.data, e.len, &w2) == SBT_VK_OK);
	TST_CHECK(w2.memory == 0xabc && w2.offset == 64 && w2.size == 1000 && w2.blob_id == 7);
	TST_CHECK(sbt_vk_ts_memory_write_decode(e.data, e.len - 1, &w2) != SBT_VK_OK);
	e.len = 0;
	{
		/* tsMemoryWrites: runs touching, apart, one past 2^32 */
		const uint64_t runs[3][2] = {{4096, 4096}, {8192, 1}, {(1ull << 32) + 5, 300}};
		uint64_t off, size, at, want_at = 0;
		sbt_vk_ts_memory_writes mw;
		sbt_vk_ts_run_iter it;
		size_t k = 0;
		TST_REQUIRE(sbt_vk_ts_memory_writes_encode(&e, 0xabc, 9, runs, 3) == SBT_VK_OK);
		TST_REQUIRE(sbt_vk_ts_memory_writes_decode(e.data, e.len, &mw) == SBT_VK_OK);
		TST_CHECK(mw.memory == 0xabc && mw.blob_id == 9 && mw.count == 3 && mw.bytes == 4397 &&
		          mw.lo == 4096 && mw.hi == (1ull << 32) + 305);
		sbt_vk_ts_run_iter_init(&it, &mw);
		while (sbt_vk_ts_run_iter_next(&it, &off, &size, &at)) {
			TST_REQUIRE(k < 3);
			TST_CHECK(off == runs[k][0] && size == runs[k][1] && at == want_at);
			want_at += size;
			k++;
		}
		TST_CHECK_EQ_U64(k, 3);
		TST_CHECK(sbt_vk_ts_memory_writes_decode(e.data, e.len - 1, &mw) != SBT_VK_OK);
		/* out of order, overlapping, empty: refused by the encoder */
		const uint64_t back[2][2] = {{100, 10}, {105, 10}}, empty[1][2] = {{5, 0}};
		TST_CHECK(sbt_vk_ts_memory_writes_encode(&e, 1, 1, back, 2) == SBT_VK_ERR_ARG);
		TST_CHECK(sbt_vk_ts_memory_writes_encode(&e, 1, 1, empty, 1) == SBT_VK_ERR_ARG);
		TST_CHECK(sbt_vk_ts_memory_writes_encode(&e, 1, 1, runs, 0) == SBT_VK_ERR_ARG);
		/* a run of size 0, count 0, an end past 2^64: refused by the decoder */
		const uint8_t zero_size[] = {1, 1, 1, 5, 0}, no_runs[] = {1, 1, 0},
		              wraps[] = {1, 1, 2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
		                         1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
		TST_CHECK(sbt_vk_ts_memory_writes_decode(zero_size, sizeof(zero_size), &mw) ==
		          SBT_VK_ERR_CORRUPT);
		TST_CHECK(sbt_vk_ts_memory_writes_decode(no_runs, sizeof(no_runs), &mw) ==
		          SBT_VK_ERR_CORRUPT);
		TST_CHECK(sbt_vk_ts_memory_writes_decode(wraps, sizeof(wraps), &mw) ==
		          SBT_VK_ERR_CORRUPT);
	}
	e.len = 0;
	uint64_t qv[4] = {7, 1, 9, 1}; /* two queries: value, availability */
	sbt_vk_ts_query_results q = {0xdef, 3, 2, 3, 16, (const uint8_t *)qv, sizeof(qv)}, q2;
	TST_REQUIRE(sbt_vk_ts_query_results_encode(&e, &q) == SBT_VK_OK);
	TST_REQUIRE(sbt_vk_ts_query_results_decode(e.data, e.len, &q2) == SBT_VK_OK);
	TST_CHECK(q2.pool == 0xdef && q2.first == 3 && q2.count == 2 && q2.flags == 3 &&
	          q2.stride == 16 && q2.len == sizeof(qv) && memcmp(q2.bytes, qv, sizeof(qv)) == 0);
	TST_CHECK(sbt_vk_ts_query_results_decode(e.data, e.len - 1, &q2) == SBT_VK_ERR_TRUNCATED);
	q.len = 24; /* not count * stride */
	TST_CHECK(sbt_vk_ts_query_results_encode(&e, &q) == SBT_VK_ERR_ARG);
	q.len = sizeof(qv);
	q.stride = 12; /* not a multiple of 8 */
	q.count = 1;
	q.len = 12;
	TST_CHECK(sbt_vk_ts_query_results_encode(&e, &q) == SBT_VK_ERR_ARG);
	sbt_vk_enc_free(&e);
}

static void test_dump(void)
{
	const char *path = tst_path("vk.sbt");
	sbt_writer *w;
	TST_REQUIRE(sbt_writer_open(path, NULL, &w) == SBT_OK);
	TST_REQUIRE(sbt_vk_define_types(w) == SBT_OK);
	sbt_vk_args_vkCreateBuffer a;
	VkBufferCreateInfo ci;
	uint32_t qf[2];
	VkBuffer out;
	fill_create_buffer(&a, &ci, qf, &out);
	sbt_vk_enc e;
	sbt_vk_enc_init(&e);
	TST_REQUIRE(sbt_vk_encode(&e, SBT_VK_CMD_vkCreateBuffer, &a) == SBT_VK_OK);
	sbt_record rec = {SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCreateBuffer), 0, 1, 10, 1, e.data, e.len};
	TST_REQUIRE(sbt_writer_append(w, &rec) == SBT_OK);
	TST_REQUIRE(sbt_writer_close(w) == SBT_OK);
	sbt_vk_enc_free(&e);

	sbt_reader *rd;
	TST_REQUIRE(sbt_reader_open(path, NULL, &rd) == SBT_OK);
	sbt_dump *d;
	TST_REQUIRE(sbt_dump_create(&d) == SBT_OK);
	TST_REQUIRE(sbt_vk_dump_register(d) == SBT_OK);
	sbt_record got;
	TST_REQUIRE(sbt_reader_next(rd, &got) == SBT_OK);
	sbt_dump_buf b = {0};
	sbt_dump_options o = { .format = SBT_DUMP_TEXT };
	TST_REQUIRE(sbt_dump_record(d, rd, &got, &o, &b) == SBT_OK);
	printf("%s", b.data);
	TST_CHECK(strstr(b.data, "vulkan.vkCreateBuffer") != NULL);
	TST_CHECK(strstr(b.data, "device=0x0000000000001234") != NULL);
	TST_CHECK(strstr(b.data, "pCreateInfo.size=4096") != NULL);
	TST_CHECK(strstr(b.data, "pCreateInfo.sharingMode=\"VK_SHARING_MODE_CONCURRENT\"") != NULL);
	TST_CHECK(strstr(b.data, "pCreateInfo.pQueueFamilyIndices.count=2") != NULL);
	TST_CHECK(strstr(b.data, "pCreateInfo.pQueueFamilyIndices[1]=7") != NULL);
	TST_CHECK(strstr(b.data, "pBuffer=0x0000000000005000") != NULL);
	TST_CHECK(strstr(b.data, "ret=\"VK_SUCCESS\"") != NULL);
	TST_CHECK(strstr(b.data, "payload_error") == NULL);
	sbt_dump_buf_free(&b);
	sbt_dump_free(d);
	sbt_reader_close(rd);
}

int main(void)
{
	test_create_buffer();
	test_huge_count();
	test_instance_and_chain();
	test_tables();
	test_dump();
	return tst_done();
}
