/*
 * test_vkl_reach - the layer's reach tracking (layers/vulkan/vkl_reach.c,
 * compiled in) without a device:
 * - its hash table against a plain array under 200,000 random inserts,
 *   overwrites and deletes (deletion shifts entries back; a lost entry
 *   would be a write never published);
 * - what a submission reaches, through the hooks the generated wrappers
 *   call: buffers bound into shared memory, a descriptor set written by
 *   vkUpdateDescriptorSets and copied by a VkCopyDescriptorSet, a
 *   template update, a buffer view, a secondary command buffer, an
 *   overwritten descriptor (its old buffer is no longer reached), a
 *   sparse buffer and an acceleration structure (reach everything), a
 *   framebuffer's attachment,
 *   freed command buffers and reset descriptor pools;
 * - which memory is reachable by address (an address handed out, or
 *   chosen before), and what submissions may write of memory not mapped
 *   yet, noted for its first map.
 */
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl_memory.c"
#include "layers/vulkan/vkl_objects.c"
#include "layers/vulkan/vkl_track.c"
#include "layers/vulkan/vkl_reach.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_trim_stubs.h"

uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data, uint64_t size)
{
	(void)memory;
	(void)offset;
	(void)data;
	(void)size;
	return 1;
}

#include "tests/support/vkl_emit_runs.h"

/* TST_CHECK on two strings, printing both when they differ. */
#define TST_CHECK_STR_EQ(got, want)                                                \
	do {                                                                           \
		const char *tst_g_ = (got), *tst_w_ = (want);                              \
		if (strcmp(tst_g_, tst_w_) != 0)                                           \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__,     \
			        tst_g_, tst_w_);                                               \
		TST_CHECK(strcmp(tst_g_, tst_w_) == 0);                                    \
	} while (0)

static uint32_t tst_rand_state = 777;
static uint32_t tst_rand(void)
{
	tst_rand_state = tst_rand_state * 1103515245u + 12345u;
	return tst_rand_state >> 8;
}

#define TST_KEYS 3000

static void tst_table(void)
{
	static uint64_t ref_val[TST_KEYS];
	static uint8_t ref_has[TST_KEYS];
	vkl_rt t;
	size_t bad = 0, n = 0;
	memset(&t, 0, sizeof(t));
	t.typed = 1;
	for (int op = 0; op < 200000; op++) {
		uint32_t k = tst_rand() % TST_KEYS;
		/* keys that collide in their low bits, two types per value */
		uint64_t key = (uint64_t)(k / 2) << 20;
		uint32_t type = k % 2 ? VK_OBJECT_TYPE_BUFFER : VK_OBJECT_TYPE_IMAGE;
		if (tst_rand() % 3) {
			uint64_t v = tst_rand();
			int r = vkl_rt_put(&t, key, type, v);
			if (r != (ref_has[k] ? 0 : 1))
				bad++;
			n += !ref_has[k];
			ref_has[k] = 1;
			ref_val[k] = v;
		} else {
			uint64_t v = 0;
			int r = vkl_rt_del(&t, key, type, &v);
			if (r != ref_has[k] || (r && v != ref_val[k]))
				bad++;
			n -= ref_has[k];
			ref_has[k] = 0;
		}
		if (op % 1000 == 0) {
			for (uint32_t j = 0; j < TST_KEYS; j++) {
				vkl_rt_ent *e = vkl_rt_find(&t, (uint64_t)(j / 2) << 20,
				                            j % 2 ? VK_OBJECT_TYPE_BUFFER : VK_OBJECT_TYPE_IMAGE);
				if (!e != !ref_has[j] || (e && e->val != ref_val[j]))
					bad++;
			}
			if (t.n != n)
				bad++;
		}
	}
	TST_CHECK_EQ_U64(bad, 0);
	vkl_rt_free(&t);
}

#define H(x) ((uint64_t)(x))
#define MEM_S ((VkDeviceMemory)(uintptr_t)0x5000)
#define MEM_T ((VkDeviceMemory)(uintptr_t)0x6000)

static vkl_device tst_dev;

static void tst_buffer(uint64_t h, VkDeviceSize size, VkDeviceMemory mem, VkDeviceSize off,
                       VkBufferCreateFlags flags)
{
	VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkBuffer b = (VkBuffer)(uintptr_t)h;
	sbt_vk_args_vkCreateBuffer ca = { 0 };
	sbt_vk_args_vkBindBufferMemory ba = { 0 };
	ci.size = size;
	ci.flags = flags;
	ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	ca.pCreateInfo = &ci;
	ca.pBuffer = &b;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateBuffer, &ca, 1);
	ba.buffer = b;
	ba.memory = mem;
	ba.memoryOffset = off;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkBindBufferMemory, &ba, 1);
}

static void tst_write(uint64_t set, uint32_t binding, uint64_t buffer)
{
	VkDescriptorBufferInfo bi = { (VkBuffer)(uintptr_t)buffer, 0, VK_WHOLE_SIZE };
	VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
	sbt_vk_args_vkUpdateDescriptorSets a = { 0 };
	w.dstSet = (VkDescriptorSet)(uintptr_t)set;
	w.dstBinding = binding;
	w.descriptorCount = 1;
	w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
	w.pBufferInfo = &bi;
	a.descriptorWriteCount = 1;
	a.pDescriptorWrites = &w;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkUpdateDescriptorSets, &a, 1);
}

static void tst_bind_set(uint64_t cb, uint64_t set)
{
	VkDescriptorSet s = (VkDescriptorSet)(uintptr_t)set;
	sbt_vk_args_vkCmdBindDescriptorSets a = { 0 };
	a.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
	a.descriptorSetCount = 1;
	a.pDescriptorSets = &s;
	vkl_reach_cmd(a.commandBuffer, SBT_VK_CMD_vkCmdBindDescriptorSets, &a);
}

static void tst_begin(uint64_t cb)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	sbt_vk_args_vkBeginCommandBuffer a = { 0 };
	a.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
	a.pBeginInfo = &bi;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkBeginCommandBuffer, &a, 1);
}

/* What submitting command buffers cbs[0, ncb) reaches: "all", or
 * "mem:offset+size" ranges after merging, space-separated; with access,
 * each followed by ":w" where the device may write it, ":r" where not. */
static const char *tst_reach_cbs(const uint64_t *cbs, uint32_t ncb, int access)
{
	static char out[512];
	VkCommandBuffer c[4];
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	sbt_vk_args_vkQueueSubmit a = { 0 };
	vkl_walk w;
	size_t i, n, len = 0;
	for (i = 0; i < ncb && i < 4; i++)
		c[i] = (VkCommandBuffer)(uintptr_t)cbs[i];
	si.commandBufferCount = ncb;
	si.pCommandBuffers = c;
	a.submitCount = 1;
	a.pSubmits = &si;
	memset(&w, 0, sizeof(w));
	w.seen.typed = 1;
	sbt_vk_refs(SBT_VK_CMD_vkQueueSubmit, &a, vkl_walk_visit, &w);
	out[0] = 0;
	if (w.all) {
		strcpy(out, "all");
	} else {
		n = vkl_ranges_merge(w.ranges, w.n);
		for (i = 0; i < n && len < sizeof(out) - 64; i++)
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%llx:%llu+%llu%s",
			                        i ? " " : "", (unsigned long long)(uintptr_t)w.ranges[i].memory,
			                        (unsigned long long)w.ranges[i].offset,
			                        (unsigned long long)w.ranges[i].size,
			                        !access ? "" : w.ranges[i].writable ? ":w" : ":r");
	}
	free(w.ranges);
	vkl_rt_free(&w.seen);
	return out;
}

static const char *tst_reach(uint64_t cb)
{
	return tst_reach_cbs(&cb, 1, 0);
}

/* Submitting a and b together reaches want (with access), in either order. */
#define TST_CHECK_BOTH_ORDERS(a, b, want)                                  \
	do {                                                                   \
		uint64_t tst_ab_[2] = { (a), (b) }, tst_ba_[2] = { (b), (a) };     \
		TST_CHECK_STR_EQ(tst_reach_cbs(tst_ab_, 2, 1), (want));            \
		TST_CHECK_STR_EQ(tst_reach_cbs(tst_ba_, 2, 1), (want));            \
	} while (0)

static void tst_copy(uint64_t cb, uint64_t src, uint64_t dst)
{
	VkBufferCopy r = { 0, 0, 16 };
	sbt_vk_args_vkCmdCopyBuffer a = { 0 };
	a.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
	a.srcBuffer = (VkBuffer)(uintptr_t)src;
	a.dstBuffer = (VkBuffer)(uintptr_t)dst;
	a.regionCount = 1;
	a.pRegions = &r;
	vkl_reach_cmd(a.commandBuffer, SBT_VK_CMD_vkCmdCopyBuffer, &a);
}

static void tst_image(uint64_t h, VkFormat format, VkDeviceMemory mem, VkDeviceSize off)
{
	VkImageCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkImage img = (VkImage)(uintptr_t)h;
	sbt_vk_args_vkCreateImage ia = { 0 };
	sbt_vk_args_vkBindImageMemory ba = { 0 };
	ci.format = format;
	ci.arrayLayers = 2;
	ia.pCreateInfo = &ci;
	ia.pImage = &img;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateImage, &ia, 1);
	ba.image = img;
	ba.memory = mem;
	ba.memoryOffset = off;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkBindImageMemory, &ba, 1);
}

/* Buffers named for the device to read only (overrides.REFS_READS_ONLY)
 * are not taken as written, whatever their usage (here STORAGE); a buffer
 * also named otherwise, in the same command buffer or another of the
 * submission, in either order, is. */
static void tst_reads_only(void)
{
	const uint64_t cb = 0x2c0, cb2 = 0x2c1, set = 0x2d0;
	memset(&tst_dev, 0, sizeof(tst_dev));
	tst_buffer(0x2b0, 256, MEM_S, 0, 0);
	tst_buffer(0x2b1, 4096, MEM_S, 65536, 0);
	tst_buffer(0x2b3, 1024, MEM_T, 0, 0);

	/* a copy from b0 into b3: b0 read, b3 published whole and written in
	 * the copy's 16 bytes (REFS_WRITES_REGIONS) */
	tst_begin(cb);
	tst_copy(cb, 0x2b0, 0x2b3);
	TST_CHECK_STR_EQ(tst_reach_cbs(&cb, 1, 1), "5000:0+256:r 6000:0+1024:r 6000:0+16:w");
	/* and back: both written there */
	tst_copy(cb, 0x2b3, 0x2b0);
	TST_CHECK_STR_EQ(tst_reach_cbs(&cb, 1, 1),
	                 "5000:0+256:r 5000:0+16:w 6000:0+1024:r 6000:0+16:w");

	/* vertex buffer b1 and a barrier on b0: read */
	{
		VkBuffer vb = (VkBuffer)(uintptr_t)0x2b1;
		VkDeviceSize off = 0;
		VkBufferMemoryBarrier bar = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
		sbt_vk_args_vkCmdBindVertexBuffers va = { 0 };
		sbt_vk_args_vkCmdPipelineBarrier pa = { 0 };
		tst_begin(cb);
		va.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
		va.bindingCount = 1;
		va.pBuffers = &vb;
		va.pOffsets = &off;
		vkl_reach_cmd(va.commandBuffer, SBT_VK_CMD_vkCmdBindVertexBuffers, &va);
		bar.buffer = (VkBuffer)(uintptr_t)0x2b0;
		bar.size = VK_WHOLE_SIZE;
		pa.commandBuffer = va.commandBuffer;
		pa.bufferMemoryBarrierCount = 1;
		pa.pBufferMemoryBarriers = &bar;
		vkl_reach_cmd(pa.commandBuffer, SBT_VK_CMD_vkCmdPipelineBarrier, &pa);
		TST_CHECK_STR_EQ(tst_reach_cbs(&cb, 1, 1), "5000:0+256:r 5000:65536+4096:r");
	}

	/* b1 a storage buffer of a set bound in a second command buffer:
	 * written, whichever of the two is submitted first */
	tst_write(set, 0, 0x2b1);
	tst_begin(cb2);
	tst_bind_set(cb2, set);
	TST_CHECK_BOTH_ORDERS(cb, cb2, "5000:0+256:r 5000:65536+4096:w");
}

/* What submitting cb reaches after it records one copy of image into
 * buffer with region r (cb begun again first). */
static const char *tst_download(uint64_t cb, uint64_t image, uint64_t buffer, VkBufferImageCopy r)
{
	sbt_vk_args_vkCmdCopyImageToBuffer a = { 0 };
	tst_begin(cb);
	a.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
	a.srcImage = (VkImage)(uintptr_t)image;
	a.dstBuffer = (VkBuffer)(uintptr_t)buffer;
	a.regionCount = 1;
	a.pRegions = &r;
	vkl_reach_cmd(a.commandBuffer, SBT_VK_CMD_vkCmdCopyImageToBuffer, &a);
	return tst_reach_cbs(&cb, 1, 1);
}

/* Buffers written where regions say (overrides.REFS_WRITES_REGIONS): the
 * extent of a command buffer's regions of a buffer, clipped to it; a copy
 * from an image in texel blocks of its format and aspect, with its row
 * length and image height; from the region's offset on where the image is
 * not known; a whole-buffer write elsewhere wins. */
static void tst_regions(void)
{
	const uint64_t cb = 0x3c0, cb2 = 0x3c1, set = 0x3d0;
	VkBufferImageCopy r;
	memset(&tst_dev, 0, sizeof(tst_dev));
	/* a buffer of 8192 bytes at 4096 in T; the images below are bound in S
	 * (their sizes unknown without a device: to S's end, read) */
	tst_buffer(0x3b0, 8192, MEM_T, 4096, 0);
	tst_buffer(0x3b1, 256, MEM_S, 0, 0);

	/* two copy regions: [64, 96) and [512, 528), their extent */
	{
		VkBufferCopy rg[2] = { { 0, 64, 32 }, { 0, 512, 16 } };
		sbt_vk_args_vkCmdCopyBuffer a = { 0 };
		tst_begin(cb);
		a.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
		a.srcBuffer = (VkBuffer)(uintptr_t)0x3b1;
		a.dstBuffer = (VkBuffer)(uintptr_t)0x3b0;
		a.regionCount = 2;
		a.pRegions = rg;
		vkl_reach_cmd(a.commandBuffer, SBT_VK_CMD_vkCmdCopyBuffer, &a);
		TST_CHECK_STR_EQ(tst_reach_cbs(&cb, 1, 1),
		                 "5000:0+256:r 6000:4096+8192:r 6000:4160+464:w");
	}
	/* a fill to the end from 100, an update of 8 bytes at 40: the extent */
	{
		sbt_vk_args_vkCmdFillBuffer fa = { 0 };
		sbt_vk_args_vkCmdUpdateBuffer ua = { 0 };
		uint32_t data[2] = { 1, 2 };
		tst_begin(cb);
		fa.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
		fa.dstBuffer = (VkBuffer)(uintptr_t)0x3b0;
		fa.dstOffset = 100;
		fa.size = VK_WHOLE_SIZE;
		vkl_reach_cmd(fa.commandBuffer, SBT_VK_CMD_vkCmdFillBuffer, &fa);
		TST_CHECK_STR_EQ(tst_reach_cbs(&cb, 1, 1), "6000:4096+8192:r 6000:4196+8092:w");
		ua.commandBuffer = fa.commandBuffer;
		ua.dstBuffer = fa.dstBuffer;
		ua.dstOffset = 40;
		ua.dataSize = sizeof(data);
		ua.pData = data;
		vkl_reach_cmd(ua.commandBuffer, SBT_VK_CMD_vkCmdUpdateBuffer, &ua);
		TST_CHECK_STR_EQ(tst_reach_cbs(&cb, 1, 1), "6000:4096+8192:r 6000:4136+8152:w");
	}

	/* downloads: RGBA8 16x8 at 256 with rows of 32 texels: 7 rows of 128
	 * bytes and one of 64 */
	tst_image(0x3a0, VK_FORMAT_R8G8B8A8_UNORM, MEM_S, 4096);
	tst_image(0x3a1, VK_FORMAT_BC1_RGB_UNORM_BLOCK, MEM_S, 8192);
	tst_image(0x3a2, VK_FORMAT_D24_UNORM_S8_UINT, MEM_S, 12288);
	tst_image(0x3a3, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, MEM_S, 16384);
	memset(&r, 0, sizeof(r));
	r.bufferOffset = 256;
	r.bufferRowLength = 32;
	r.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	r.imageSubresource.layerCount = 1;
	r.imageExtent = (VkExtent3D){ 16, 8, 1 };
	TST_CHECK_STR_EQ(tst_download(cb, 0x3a0, 0x3b0, r),
	                 "5000:4096+18446744073709551615:r 6000:4096+8192:r 6000:4352+960:w");
	/* both layers, images of 10 rows: one more image of 10 * 128 bytes */
	r.bufferImageHeight = 10;
	r.imageSubresource.layerCount = 2;
	TST_CHECK_STR_EQ(tst_download(cb, 0x3a0, 0x3b0, r),
	                 "5000:4096+18446744073709551615:r 6000:4096+8192:r 6000:4352+2240:w");
	/* BC1, 16x8 texels: 4x2 blocks of 8 bytes */
	r.bufferOffset = 0;
	r.bufferRowLength = r.bufferImageHeight = 0;
	r.imageSubresource.layerCount = 1;
	TST_CHECK_STR_EQ(tst_download(cb, 0x3a1, 0x3b0, r),
	                 "5000:8192+18446744073709551615:r 6000:4096+8192:r 6000:4096+64:w");
	/* depth of D24S8: 4 bytes a texel; its stencil: 1 */
	r.imageSubresource.aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT;
	TST_CHECK_STR_EQ(tst_download(cb, 0x3a2, 0x3b0, r),
	                 "5000:12288+18446744073709551615:r 6000:4096+8192:r 6000:4096+512:w");
	r.imageSubresource.aspectMask = VK_IMAGE_ASPECT_STENCIL_BIT;
	TST_CHECK_STR_EQ(tst_download(cb, 0x3a2, 0x3b0, r),
	                 "5000:12288+18446744073709551615:r 6000:4096+8192:r 6000:4096+128:w");
	/* plane 1 of NV12 (R8G8 texels) at its own 8x4 extent: 64 bytes */
	r.imageSubresource.aspectMask = VK_IMAGE_ASPECT_PLANE_1_BIT;
	r.imageExtent = (VkExtent3D){ 8, 4, 1 };
	TST_CHECK_STR_EQ(tst_download(cb, 0x3a3, 0x3b0, r),
	                 "5000:16384+18446744073709551615:r 6000:4096+8192:r 6000:4096+64:w");
	/* an image the layer does not know: from the offset to the end */
	r.bufferOffset = 1000;
	TST_CHECK_STR_EQ(tst_download(cb, 0x3af, 0x3b0, r), "6000:4096+8192:r 6000:5096+7192:w");

	/* written whole through a set in another command buffer: whole */
	tst_write(set, 0, 0x3b0);
	tst_begin(cb2);
	tst_bind_set(cb2, set);
	TST_CHECK_BOTH_ORDERS(cb, cb2, "6000:4096+8192:w");
}

static void tst_resolution(void)
{
	const uint64_t cb = 0xc0, cb2 = 0xc1, sec = 0xc2, set = 0xd0, set2 = 0xd1;
	memset(&tst_dev, 0, sizeof(tst_dev));
	/* three buffers suballocated from S, one in T */
	tst_buffer(0xb0, 256, MEM_S, 0, 0);
	tst_buffer(0xb1, 4096, MEM_S, 65536, 0);
	tst_buffer(0xb2, 4096, MEM_S, 131072, 0);
	tst_buffer(0xb3, 1024, MEM_T, 0, 0);

	/* a copy from b3 */
	{
		VkBufferCopy r = { 0, 0, 16 };
		sbt_vk_args_vkCmdCopyBuffer a = { 0 };
		tst_begin(cb);
		a.commandBuffer = (VkCommandBuffer)(uintptr_t)cb;
		a.srcBuffer = (VkBuffer)(uintptr_t)0xb3;
		a.dstBuffer = (VkBuffer)(uintptr_t)0xb3;
		a.regionCount = 1;
		a.pRegions = &r;
		vkl_reach_cmd(a.commandBuffer, SBT_VK_CMD_vkCmdCopyBuffer, &a);
		/* published whole, written in the copy's 16 bytes */
		TST_CHECK_STR_EQ(tst_reach(cb), "6000:0+1024 6000:0+16");
	}

	/* a set holding b0 and b1: S's first two ranges, not b2's */
	tst_write(set, 0, 0xb0);
	tst_write(set, 1, 0xb1);
	tst_begin(cb);
	tst_bind_set(cb, set);
	TST_CHECK_STR_EQ(tst_reach(cb), "5000:0+256 5000:65536+4096");
	/* begin again: the old commands are gone */
	tst_begin(cb);
	TST_CHECK_STR_EQ(tst_reach(cb), "");
	/* binding 1 now holds b2: b1 is no longer reached */
	tst_write(set, 1, 0xb2);
	tst_bind_set(cb, set);
	TST_CHECK_STR_EQ(tst_reach(cb), "5000:0+256 5000:131072+4096");

	/* a copy of binding 1 into set2, reached through a secondary buffer */
	{
		VkCopyDescriptorSet cp = { .sType = VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET };
		sbt_vk_args_vkUpdateDescriptorSets a = { 0 };
		VkCommandBuffer s2 = (VkCommandBuffer)(uintptr_t)sec;
		sbt_vk_args_vkCmdExecuteCommands ea = { 0 };
		cp.srcSet = (VkDescriptorSet)(uintptr_t)set;
		cp.srcBinding = 1;
		cp.dstSet = (VkDescriptorSet)(uintptr_t)set2;
		cp.dstBinding = 3;
		cp.descriptorCount = 1;
		a.descriptorCopyCount = 1;
		a.pDescriptorCopies = &cp;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkUpdateDescriptorSets, &a, 1);
		tst_begin(sec);
		tst_bind_set(sec, set2);
		tst_begin(cb2);
		ea.commandBuffer = (VkCommandBuffer)(uintptr_t)cb2;
		ea.commandBufferCount = 1;
		ea.pCommandBuffers = &s2;
		vkl_reach_cmd(ea.commandBuffer, SBT_VK_CMD_vkCmdExecuteCommands, &ea);
		TST_CHECK_STR_EQ(tst_reach(cb2), "5000:131072+4096");
	}

	/* a template update of set2 binding 0 with b3 (stride 24 of 32 bytes) */
	{
		VkDescriptorUpdateTemplateEntry e = { 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8, 32 };
		VkDescriptorUpdateTemplateCreateInfo ci = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO
		};
		VkDescriptorUpdateTemplate t = (VkDescriptorUpdateTemplate)(uintptr_t)0xe0;
		sbt_vk_args_vkCreateDescriptorUpdateTemplate ca = { 0 };
		sbt_vk_args_vkUpdateDescriptorSetWithTemplate ua = { 0 };
		uint8_t data[64] = { 0 };
		VkDescriptorBufferInfo bi = { (VkBuffer)(uintptr_t)0xb3, 0, VK_WHOLE_SIZE };
		ci.descriptorUpdateEntryCount = 1;
		ci.pDescriptorUpdateEntries = &e;
		ca.pCreateInfo = &ci;
		ca.pDescriptorUpdateTemplate = &t;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateDescriptorUpdateTemplate, &ca, 1);
		memcpy(data + 8, &bi, sizeof(bi));
		ua.descriptorSet = (VkDescriptorSet)(uintptr_t)set2;
		ua.descriptorUpdateTemplate = t;
		ua.pData = data;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate, &ua, 1);
		TST_CHECK_STR_EQ(tst_reach(cb2), "5000:131072+4096 6000:0+1024");
	}

	/* a texel buffer view of b0 */
	{
		VkBufferViewCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO };
		VkBufferView v = (VkBufferView)(uintptr_t)0xf0;
		VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
		sbt_vk_args_vkCreateBufferView ca = { 0 };
		sbt_vk_args_vkUpdateDescriptorSets ua = { 0 };
		ci.buffer = (VkBuffer)(uintptr_t)0xb0;
		ca.pCreateInfo = &ci;
		ca.pView = &v;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateBufferView, &ca, 1);
		w.dstSet = (VkDescriptorSet)(uintptr_t)set;
		w.dstBinding = 5;
		w.descriptorCount = 1;
		w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
		w.pTexelBufferView = &v;
		ua.descriptorWriteCount = 1;
		ua.pDescriptorWrites = &w;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkUpdateDescriptorSets, &ua, 1);
		TST_CHECK_STR_EQ(tst_reach(cb), "5000:0+256 5000:131072+4096");
		/* overlapping and touching ranges merge: b0 again through the view */
		tst_write(set, 6, 0xb0);
		TST_CHECK_STR_EQ(tst_reach(cb), "5000:0+256 5000:131072+4096");
	}

	/* a render pass: framebuffer -> attachment view -> image bound in T */
	{
		VkImageViewCreateInfo vci = { .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO };
		VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO };
		VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO };
		VkImage img = (VkImage)(uintptr_t)0x1a0;
		VkImageView view = (VkImageView)(uintptr_t)0x1a1;
		VkFramebuffer fb = (VkFramebuffer)(uintptr_t)0x1a2;
		sbt_vk_args_vkCreateImageView va = { 0 };
		sbt_vk_args_vkCreateFramebuffer fa = { 0 };
		sbt_vk_args_vkCmdBeginRenderPass ra = { 0 };
		tst_image(0x1a0, VK_FORMAT_UNDEFINED, MEM_T, 8192);
		vci.image = img;
		va.pCreateInfo = &vci;
		va.pView = &view;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateImageView, &va, 1);
		fci.attachmentCount = 1;
		fci.pAttachments = &view;
		fa.pCreateInfo = &fci;
		fa.pFramebuffer = &fb;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateFramebuffer, &fa, 1);
		rbi.framebuffer = fb;
		ra.commandBuffer = (VkCommandBuffer)(uintptr_t)0xc3;
		ra.pRenderPassBegin = &rbi;
		tst_begin(0xc3);
		vkl_reach_cmd(ra.commandBuffer, SBT_VK_CMD_vkCmdBeginRenderPass, &ra);
		/* no device here: the image's size is unknown, so to the end */
		TST_CHECK_STR_EQ(tst_reach(0xc3), "6000:8192+18446744073709551615");
	}

	/* what cannot be followed reaches everything */
	tst_buffer(0xb9, 4096, MEM_T, 4096, VK_BUFFER_CREATE_SPARSE_BINDING_BIT);
	tst_write(set, 7, 0xb9);
	TST_CHECK_STR_EQ(tst_reach(cb), "all");
	tst_write(set, 7, 0xb3);
	TST_CHECK_STR_EQ(tst_reach(cb), "5000:0+256 5000:131072+4096 6000:0+1024");
	{
		VkAccelerationStructureKHR as = (VkAccelerationStructureKHR)(uintptr_t)0xa5;
		VkWriteDescriptorSetAccelerationStructureKHR asw = {
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR
		};
		VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET };
		sbt_vk_args_vkUpdateDescriptorSets ua = { 0 };
		asw.accelerationStructureCount = 1;
		asw.pAccelerationStructures = &as;
		w.pNext = &asw;
		w.dstSet = (VkDescriptorSet)(uintptr_t)set2;
		w.dstBinding = 9;
		w.descriptorCount = 1;
		w.descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
		ua.descriptorWriteCount = 1;
		ua.pDescriptorWrites = &w;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkUpdateDescriptorSets, &ua, 1);
		TST_CHECK_STR_EQ(tst_reach(cb2), "all");
	}

	/* a freed command buffer is not known: its submission reaches all */
	{
		VkCommandBuffer c = (VkCommandBuffer)(uintptr_t)cb;
		sbt_vk_args_vkFreeCommandBuffers fa = { 0 };
		fa.commandBufferCount = 1;
		fa.pCommandBuffers = &c;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkFreeCommandBuffers, &fa, 1);
		TST_CHECK_STR_EQ(tst_reach(cb), "all");
	}
	/* a reset pool forgets its sets: a set never written reaches nothing */
	{
		VkDescriptorSet s = (VkDescriptorSet)(uintptr_t)set;
		VkDescriptorSetAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO };
		sbt_vk_args_vkAllocateDescriptorSets aa = { 0 };
		sbt_vk_args_vkResetDescriptorPool ra = { 0 };
		ai.descriptorPool = (VkDescriptorPool)(uintptr_t)0x90;
		ai.descriptorSetCount = 1;
		aa.pAllocateInfo = &ai;
		aa.pDescriptorSets = &s;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkAllocateDescriptorSets, &aa, 1);
		tst_write(set, 0, 0xb3);
		tst_begin(cb);
		tst_bind_set(cb, set);
		TST_CHECK_STR_EQ(tst_reach(cb), "6000:0+1024");
		ra.descriptorPool = ai.descriptorPool;
		vkl_reach_call(&tst_dev, SBT_VK_CMD_vkResetDescriptorPool, &ra, 1);
		TST_CHECK_STR_EQ(tst_reach(cb), "");
	}
}

/* A host-visible memory object of size bytes, allocated with flags
 * (VkMemoryAllocateFlagsInfo; 0: none) and, when capture is not 0, at that
 * opaque capture address. */
static vkl_memory *tst_memory(VkDeviceMemory mem, VkDeviceSize size, VkMemoryAllocateFlags flags,
                              uint64_t capture)
{
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryAllocateFlagsInfo fi = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO };
	VkMemoryOpaqueCaptureAddressAllocateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_OPAQUE_CAPTURE_ADDRESS_ALLOCATE_INFO
	};
	ai.allocationSize = size;
	ai.memoryTypeIndex = 0;
	fi.flags = flags;
	ci.opaqueCaptureAddress = capture;
	fi.pNext = capture ? &ci : NULL;
	ai.pNext = &fi;
	vkl_memory_allocated(&tst_dev, mem, &ai, 1);
	return vkl_mem_find(mem);
}

static void tst_address_buffer(uint64_t h, VkDeviceMemory mem, uint64_t capture)
{
	VkBufferCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkBufferOpaqueCaptureAddressCreateInfo oi = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_OPAQUE_CAPTURE_ADDRESS_CREATE_INFO
	};
	VkBuffer b = (VkBuffer)(uintptr_t)h;
	sbt_vk_args_vkCreateBuffer ca = { 0 };
	sbt_vk_args_vkBindBufferMemory ba = { 0 };
	ci.size = 256;
	ci.usage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	oi.opaqueCaptureAddress = capture;
	ci.pNext = capture ? &oi : NULL;
	ca.pCreateInfo = &ci;
	ca.pBuffer = &b;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkCreateBuffer, &ca, 1);
	ba.buffer = b;
	ba.memory = mem;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkBindBufferMemory, &ba, 1);
}

/* Memory is reachable by address ("always": published at every submit,
 * written anywhere) once an address into it is handed out, not for its
 * DEVICE_ADDRESS flag or a buffer's SHADER_DEVICE_ADDRESS usage alone. */
static void tst_address(void)
{
	VkDeviceMemory m1 = (VkDeviceMemory)(uintptr_t)0x7100, m2 = (VkDeviceMemory)(uintptr_t)0x7200,
	               m3 = (VkDeviceMemory)(uintptr_t)0x7300, m4 = (VkDeviceMemory)(uintptr_t)0x7400;
	VkBufferDeviceAddressInfo info = { .sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO };
	VkDeviceMemoryOpaqueCaptureAddressInfo minfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_MEMORY_OPAQUE_CAPTURE_ADDRESS_INFO
	};
	sbt_vk_args_vkGetBufferDeviceAddress ga = { 0 };
	sbt_vk_args_vkGetDeviceMemoryOpaqueCaptureAddress ma = { 0 };
	vkl_memory *a, *b, *c, *d;
	memset(&tst_dev, 0, sizeof(tst_dev));
	tst_dev.mem_props.memoryTypeCount = 1;
	tst_dev.mem_props.memoryTypes[0].propertyFlags =
	        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	a = tst_memory(m1, 4096, VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, 0);
	b = tst_memory(m2, 4096, VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, 0);
	c = tst_memory(m3, 4096, VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, 0);
	d = tst_memory(m4, 4096, VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT, 0x123000);
	TST_CHECK(a && b && c && d);
	if (!a || !b || !c || !d)
		return;
	tst_address_buffer(0x7110, m1, 0);
	tst_address_buffer(0x7210, m2, 0);
	tst_address_buffer(0x7310, m3, 0x456000);
	TST_CHECK_EQ_U64(atomic_load(&a->always), 0);
	TST_CHECK_EQ_U64(atomic_load(&b->always), 0);
	TST_CHECK_EQ_U64(atomic_load(&c->always), 1); /* the buffer's address chosen before */
	TST_CHECK_EQ_U64(atomic_load(&d->always), 1); /* the memory's */
	info.buffer = (VkBuffer)(uintptr_t)0x7110;
	ga.pInfo = &info;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkGetBufferDeviceAddressKHR, &ga, 1);
	TST_CHECK_EQ_U64(atomic_load(&a->always), 1);
	TST_CHECK_EQ_U64(atomic_load(&b->always), 0);
	minfo.memory = m2;
	ma.pInfo = &minfo;
	vkl_reach_call(&tst_dev, SBT_VK_CMD_vkGetDeviceMemoryOpaqueCaptureAddress, &ma, 1);
	TST_CHECK_EQ_U64(atomic_load(&b->always), 1);
	vkl_memory_freed(&tst_dev, m1);
	vkl_memory_freed(&tst_dev, m2);
	vkl_memory_freed(&tst_dev, m3);
	vkl_memory_freed(&tst_dev, m4);
	TST_CHECK(tst_dev.fresh == NULL);
}

/* "lo+hi ..." of a fresh object's noted ranges, or "all". */
static const char *tst_noted(const vkl_memory *m)
{
	static char out[256];
	size_t len = 0;
	out[0] = 0;
	if (m->wr_all)
		return "all";
	for (size_t i = 0; i < m->nwr && len < sizeof(out) - 48; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%zu-%zu", i ? " " : "",
		                        m->wr[i][0], m->wr[i][1]);
	return out;
}

/* What submissions may write of host-visible memory not mapped yet is
 * noted for its first map: writable ranges only, to the object's end for
 * VK_WHOLE_SIZE, joined where they touch, the closest merged past 16; all
 * of it for a submission whose reach is not known or memory reached by
 * address; nothing once mapped or freed. */
static void tst_fresh(void)
{
	VkDeviceMemory m1 = (VkDeviceMemory)(uintptr_t)0x8100, m2 = (VkDeviceMemory)(uintptr_t)0x8200,
	               m3 = (VkDeviceMemory)(uintptr_t)0x8300;
	vkl_range r[20];
	vkl_memory *a, *b, *c;
	size_t i;
	memset(&tst_dev, 0, sizeof(tst_dev));
	tst_dev.mem_props.memoryTypeCount = 1;
	tst_dev.mem_props.memoryTypes[0].propertyFlags =
	        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	a = tst_memory(m1, 65536, 0, 0);
	b = tst_memory(m2, 65536, 0, 0);
	c = tst_memory(m3, 65536, 0, 0);
	TST_CHECK(a && b && c);
	if (!a || !b || !c)
		return;
	/* sorted by memory, then writable, then offset, as vkl_ranges_merge
	 * leaves them */
	r[0] = (vkl_range){ m1, 0, 4096, 0 };
	r[1] = (vkl_range){ m1, 16, 16, 1 };
	r[2] = (vkl_range){ m1, 32, 32, 1 };
	r[3] = (vkl_range){ m2, 60000, VK_WHOLE_SIZE, 1 };
	vkl_memory_publish_ranges(&tst_dev, r, 4);
	TST_CHECK_STR_EQ(tst_noted(a), "16-64");
	TST_CHECK_STR_EQ(tst_noted(b), "60000-65536");
	TST_CHECK_STR_EQ(tst_noted(c), "");
	/* 18 ranges 1 KiB apart: the closest merged */
	for (i = 0; i < 18; i++)
		r[i] = (vkl_range){ m3, 1024 * i, 8, 1 };
	vkl_memory_publish_ranges(&tst_dev, r, 18);
	TST_CHECK_EQ_U64(c->nwr, VKL_MEM_MAX_CHECKPOINTS);
	{
		size_t lo = (size_t)-1, hi = 0, sum = 0;
		for (i = 0; i < c->nwr; i++) {
			lo = c->wr[i][0] < lo ? c->wr[i][0] : lo;
			hi = c->wr[i][1] > hi ? c->wr[i][1] : hi;
			sum += c->wr[i][1] - c->wr[i][0];
		}
		TST_CHECK_EQ_U64(lo, 0);
		TST_CHECK_EQ_U64(hi, 17 * 1024 + 8);
		/* two merges of 1 KiB gaps over 18 ranges of 8 bytes */
		TST_CHECK_EQ_U64(sum, 18 * 8 + 2 * 1016);
	}
	/* reached by address: all of it, at any submission */
	vkl_memory_mark_always(m2);
	vkl_memory_publish_ranges(&tst_dev, r, 0);
	TST_CHECK_STR_EQ(tst_noted(b), "all");
	TST_CHECK_STR_EQ(tst_noted(a), "16-64");
	/* a submission whose reach is not known: every fresh object */
	vkl_memory_publish(&tst_dev, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_STR_EQ(tst_noted(a), "all");
	vkl_memory_freed(&tst_dev, m2);
	vkl_memory_freed(&tst_dev, m1);
	TST_CHECK(tst_dev.fresh == c && c->fresh_next == NULL);
	vkl_memory_freed(&tst_dev, m3);
	TST_CHECK(tst_dev.fresh == NULL);
}

int main(void)
{
	tst_table();
	tst_resolution();
	tst_reads_only();
	tst_regions();
	tst_address();
	tst_fresh();
	return tst_done();
}
