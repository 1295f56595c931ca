/*
 * vk_trim_planar - a multi-planar image whose contents a trimmed capture's
 * snapshot must restore plane by plane: written before a window opens,
 * read inside it.
 *
 * One optimal-tiling image, 64x32, one mip level and layer, transfer
 * usage only, in device-local memory: G8_B8R8_2PLANE_420_UNORM (plane 0
 * R8 64x32, plane 1 R8G8 32x16), or with --3plane
 * G8_B8_R8_3PLANE_420_UNORM (three R8 planes, 64x32 and twice 32x16).
 * With --disjoint it is created with VK_IMAGE_CREATE_DISJOINT_BIT, each
 * plane in its own allocation (vkGetImageMemoryRequirements2 per plane,
 * one vkBindImageMemory2 with a VkBindImagePlaneMemoryInfo per plane), and
 * its planes end each round in different layouts (plane 0
 * TRANSFER_SRC_OPTIMAL, the others GENERAL, barriers naming the planes);
 * otherwise every barrier names COLOR and the image ends each round in
 * TRANSFER_SRC_OPTIMAL.
 *
 * Submit 1 fills every plane from a host-visible buffer.  Then each round,
 * one submit: every plane copied into a host-visible readback buffer
 * (zeroed by the host before), then plane r % planes filled again from
 * the upload buffer with the round's bytes.  After the fence wait the
 * readback is checked against the program's own model and hashed.
 *
 * usage: vk_trim_planar [--rounds R] [--3plane] [--disjoint]
 * Prints one line: the format, rounds and the XXH3-64 hash of everything
 * read back.  Exits 3 when the device does not support the format with
 * optimal tiling for transfers (and disjoint planes, with --disjoint).
 */
#include "tests/programs/vk_prog.h"

#define VKT_W 64u
#define VKT_H 32u
#define VKT_UNSUPPORTED 3

static void vkt_usage(FILE *f)
{
	fprintf(f, "usage: vk_trim_planar [--rounds R] [--3plane] [--disjoint]\n"
	           "  --rounds R  rounds, one submit and fence wait each (1..10000, default 8)\n"
	           "  --3plane    G8_B8_R8_3PLANE_420_UNORM (default G8_B8R8_2PLANE_420_UNORM)\n"
	           "  --disjoint  planes bound to memory apart (VK_IMAGE_CREATE_DISJOINT_BIT)\n"
	           "exits 3 when the device does not support the format for transfers\n");
}

/* The planes of the format: extent, bytes per texel, and where each lies
 * in the upload and readback buffers (aligned to 16). */
typedef struct vkt_plane {
	uint32_t w, h, texel;
	VkDeviceSize offset, size;
} vkt_plane;

static uint32_t vkt_planes(int three, vkt_plane *p)
{
	uint32_t n = three ? 3 : 2, i;
	VkDeviceSize at = 0;
	for (i = 0; i < n; i++) {
		p[i].w = i ? VKT_W / 2 : VKT_W;
		p[i].h = i ? VKT_H / 2 : VKT_H;
		p[i].texel = (!three && i == 1) ? 2 : 1;
		p[i].offset = at;
		p[i].size = (VkDeviceSize)p[i].w * p[i].h * p[i].texel;
		at = (at + p[i].size + 15) / 16 * 16;
	}
	return n;
}

/* Byte i of plane p as generation g writes it (0: submit 1; round r
 * writes generation r + 1 into plane r % planes). */
static uint8_t vkt_byte(uint32_t p, uint32_t g, VkDeviceSize i)
{
	return (uint8_t)((i * 7u + (i >> 6) * 3u + p * 61u + g * 29u + 1u) & 0xffu);
}

static VkImageAspectFlags vkt_plane_aspect(uint32_t p)
{
	return (VkImageAspectFlags)VK_IMAGE_ASPECT_PLANE_0_BIT << p;
}

static void vkt_copy_region(const vkt_plane *pl, uint32_t p, VkBufferImageCopy *r)
{
	memset(r, 0, sizeof(*r));
	r->bufferOffset = pl[p].offset;
	r->imageSubresource.aspectMask = vkt_plane_aspect(p);
	r->imageSubresource.layerCount = 1;
	r->imageExtent.width = pl[p].w;
	r->imageExtent.height = pl[p].h;
	r->imageExtent.depth = 1;
}

static void vkt_barrier(VkCommandBuffer cb, VkImage img, VkImageAspectFlags aspects,
                        VkImageLayout from, VkImageLayout to, VkAccessFlags src,
                        VkAccessFlags dst)
{
	VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
	b.srcAccessMask = src;
	b.dstAccessMask = dst;
	b.oldLayout = from;
	b.newLayout = to;
	b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = img;
	b.subresourceRange.aspectMask = aspects;
	b.subresourceRange.levelCount = 1;
	b.subresourceRange.layerCount = 1;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
	                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* Exits VKT_UNSUPPORTED, saying why, when the device cannot run the test. */
static void vkt_require(vkp_ctx *c, VkFormat format, const char *name, VkImageCreateFlags flags,
                        VkImageUsageFlags usage)
{
	const VkFormatFeatureFlags want =
		VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
		((flags & VK_IMAGE_CREATE_DISJOINT_BIT) ? VK_FORMAT_FEATURE_DISJOINT_BIT : 0);
	VkFormatProperties fp;
	VkImageFormatProperties ip;
	const char *why = NULL;
	vkGetPhysicalDeviceFormatProperties(c->phys, format, &fp);
	if ((fp.optimalTilingFeatures & want) != want)
		why = "its optimal-tiling features lack TRANSFER_SRC, TRANSFER_DST or DISJOINT";
	else if (vkGetPhysicalDeviceImageFormatProperties(c->phys, format, VK_IMAGE_TYPE_2D,
	                                                  VK_IMAGE_TILING_OPTIMAL, usage, flags,
	                                                  &ip) != VK_SUCCESS ||
	         ip.maxExtent.width < VKT_W || ip.maxExtent.height < VKT_H)
		why = "vkGetPhysicalDeviceImageFormatProperties refuses a 64x32 image of it";
	if (!why)
		return;
	fprintf(stderr, "vk_trim_planar: device '%s' does not support %s%s for transfers: %s\n",
	        c->dev_props.deviceName, name, (flags & VK_IMAGE_CREATE_DISJOINT_BIT) ? " (disjoint)" : "",
	        why);
	vkp_ctx_finish(c);
	exit(VKT_UNSUPPORTED);
}

/* The image's memory, bound: one device-local allocation, or one per plane
 * (disjoint).  Fills mem[0..n). */
static void vkt_bind(const vkp_ctx *c, VkImage img, int disjoint, uint32_t nplanes,
                     VkDeviceMemory *mem)
{
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkBindImageMemoryInfo bind[3];
	VkBindImagePlaneMemoryInfo planes[3];
	uint32_t p;
	if (!disjoint) {
		VkMemoryRequirements req;
		vkGetImageMemoryRequirements(c->device, img, &req);
		mai.allocationSize = req.size;
		mai.memoryTypeIndex = vkp_memory_type(c, req.memoryTypeBits, 0,
		                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
		VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, &mem[0]));
		VKP_CHECK(c, vkBindImageMemory(c->device, img, mem[0], 0));
		return;
	}
	for (p = 0; p < nplanes; p++) {
		VkImagePlaneMemoryRequirementsInfo pri = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_PLANE_MEMORY_REQUIREMENTS_INFO,
			.planeAspect = (VkImageAspectFlagBits)vkt_plane_aspect(p)
		};
		VkImageMemoryRequirementsInfo2 ri = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
			                                  .pNext = &pri, .image = img };
		VkMemoryRequirements2 req = { .sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2 };
		vkGetImageMemoryRequirements2(c->device, &ri, &req);
		mai.allocationSize = req.memoryRequirements.size;
		mai.memoryTypeIndex = vkp_memory_type(c, req.memoryRequirements.memoryTypeBits, 0,
		                                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
		VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, &mem[p]));
		memset(&planes[p], 0, sizeof(planes[p]));
		planes[p].sType = VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO;
		planes[p].planeAspect = pri.planeAspect;
		memset(&bind[p], 0, sizeof(bind[p]));
		bind[p].sType = VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO;
		bind[p].pNext = &planes[p];
		bind[p].image = img;
		bind[p].memory = mem[p];
	}
	VKP_CHECK(c, vkBindImageMemory2(c->device, nplanes, bind));
}

/* Each plane from the layout its round left it in to `to` (disjoint: plane
 * 0 in TRANSFER_SRC_OPTIMAL, the others in GENERAL; else all in
 * TRANSFER_SRC_OPTIMAL), or back (back = 1). */
static void vkt_round_layouts(VkCommandBuffer cb, VkImage img, int disjoint, uint32_t nplanes,
                              VkImageLayout to, VkAccessFlags src, VkAccessFlags dst, int back)
{
	uint32_t p;
	if (!disjoint) {
		vkt_barrier(cb, img, VK_IMAGE_ASPECT_COLOR_BIT,
		            back ? to : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		            back ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : to, src, dst);
		return;
	}
	for (p = 0; p < nplanes; p++) {
		VkImageLayout rest = p ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
		if (rest != to)
			vkt_barrier(cb, img, vkt_plane_aspect(p), back ? to : rest, back ? rest : to, src,
			            dst);
	}
}

static void vkt_submit_wait(const vkp_ctx *c, VkCommandBuffer cb, VkFence fence)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	VKP_CHECK(c, vkQueueSubmit(c->queue, 1, &si, fence));
	VKP_CHECK(c, vkWaitForFences(c->device, 1, &fence, VK_TRUE, UINT64_MAX));
	VKP_CHECK(c, vkResetFences(c->device, 1, &fence));
}

int main(int argc, char **argv)
{
	const VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
	                                VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	vkt_plane pl[3];
	VkBufferImageCopy regions[3];
	VkDeviceMemory mem[3] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
	VkImageCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO };
	VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	uint32_t rounds = 8, r, i, p, nplanes, gen[3] = { 0, 0, 0 };
	int three = 0, disjoint = 0;
	const char *name;
	VkFormat format;
	VkDeviceSize total;
	vkp_ctx c;
	vkp_buffer upload, readback;
	VkImage img;
	VkCommandPool cpool;
	VkCommandBuffer cb;
	VkFence fence;
	XXH3_state_t *hs;
	uint64_t hash;

	for (i = 1; i < (uint32_t)argc; i++) {
		int k = (int)i;
		if (!strcmp(argv[i], "--rounds")) {
			rounds = vkp_parse_u32("vk_trim_planar", argv[i], vkp_next_arg(argc, argv, &k), 1,
			                       10000);
		} else if (!strcmp(argv[i], "--3plane")) {
			three = 1;
		} else if (!strcmp(argv[i], "--disjoint")) {
			disjoint = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			vkt_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "vk_trim_planar: unknown option '%s'\n", argv[i]);
			vkt_usage(stderr);
			return 2;
		}
		i = (uint32_t)k;
	}
	format = three ? VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM : VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
	name = three ? "G8_B8_R8_3PLANE_420_UNORM" : "G8_B8R8_2PLANE_420_UNORM";
	nplanes = vkt_planes(three, pl);
	total = pl[nplanes - 1].offset + pl[nplanes - 1].size;

	vkp_ctx_init(&c, "vk_trim_planar", 0);
	vkt_require(&c, format, name, disjoint ? VK_IMAGE_CREATE_DISJOINT_BIT : 0, usage);
	ici.flags = disjoint ? VK_IMAGE_CREATE_DISJOINT_BIT : 0;
	ici.imageType = VK_IMAGE_TYPE_2D;
	ici.format = format;
	ici.extent.width = VKT_W;
	ici.extent.height = VKT_H;
	ici.extent.depth = 1;
	ici.mipLevels = 1;
	ici.arrayLayers = 1;
	ici.samples = VK_SAMPLE_COUNT_1_BIT;
	ici.tiling = VK_IMAGE_TILING_OPTIMAL;
	ici.usage = usage;
	ici.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	VKP_CHECK(&c, vkCreateImage(c.device, &ici, NULL, &img));
	vkt_bind(&c, img, disjoint, nplanes, mem);
	vkp_buffer_create(&c, &upload, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
	                  0, 1);
	vkp_buffer_create(&c, &readback, total, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	for (p = 0; p < nplanes; p++)
		vkt_copy_region(pl, p, &regions[p]);

	cpci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	cpci.queueFamilyIndex = c.qfam;
	VKP_CHECK(&c, vkCreateCommandPool(c.device, &cpci, NULL, &cpool));
	cbai.commandPool = cpool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = 1;
	VKP_CHECK(&c, vkAllocateCommandBuffers(c.device, &cbai, &cb));
	VKP_CHECK(&c, vkCreateFence(c.device, &fci, NULL, &fence));

	/* submit 1: every plane, generation 0 */
	for (p = 0; p < nplanes; p++)
		for (i = 0; i < pl[p].size; i++)
			((uint8_t *)upload.map)[pl[p].offset + i] = vkt_byte(p, 0, i);
	VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
	vkt_barrier(cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdCopyBufferToImage(cb, upload.buf, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, nplanes,
	                       regions);
	vkt_round_layouts(cb, img, disjoint, nplanes, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	                  VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 1);
	VKP_CHECK(&c, vkEndCommandBuffer(cb));
	vkt_submit_wait(&c, cb, fence);

	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&c, "out of memory");
	for (r = 0; r < rounds; r++) {
		VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
			                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT };
		uint32_t fill = r % nplanes;
		const uint8_t *got = readback.map;

		for (i = 0; i < pl[fill].size; i++)
			((uint8_t *)upload.map)[pl[fill].offset + i] = vkt_byte(fill, r + 1, i);
		/* zeroed by the host first: each round's results differ from what
		 * the host last wrote over the whole buffer */
		memset(readback.map, 0, (size_t)total);
		vkp_buffer_flush(&c, &readback);
		VKP_CHECK(&c, vkResetCommandBuffer(cb, 0));
		VKP_CHECK(&c, vkBeginCommandBuffer(cb, &bi));
		vkt_round_layouts(cb, img, disjoint, nplanes, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0,
		                  VK_ACCESS_TRANSFER_READ_BIT, 0);
		vkCmdCopyImageToBuffer(cb, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buf,
		                       nplanes, regions);
		vkt_barrier(cb, img, disjoint ? vkt_plane_aspect(fill) : VK_IMAGE_ASPECT_COLOR_BIT,
		            VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		            VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
		vkCmdCopyBufferToImage(cb, upload.buf, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
		                       &regions[fill]);
		vkt_barrier(cb, img, disjoint ? vkt_plane_aspect(fill) : VK_IMAGE_ASPECT_COLOR_BIT,
		            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		            VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
		vkt_round_layouts(cb, img, disjoint, nplanes, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                  VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
		                  VK_ACCESS_TRANSFER_READ_BIT, 1);
		vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
		                     &mb, 0, NULL, 0, NULL);
		VKP_CHECK(&c, vkEndCommandBuffer(cb));
		vkt_submit_wait(&c, cb, fence);
		vkp_buffer_invalidate(&c, &readback);
		for (p = 0; p < nplanes; p++)
			for (i = 0; i < pl[p].size; i++)
				if (got[pl[p].offset + i] != vkt_byte(p, gen[p], i))
					vkp_die(&c, "round %u: byte %u of plane %u is %u, expected %u", (unsigned)r,
					        (unsigned)i, (unsigned)p, got[pl[p].offset + i],
					        vkt_byte(p, gen[p], i));
		if (XXH3_64bits_update(hs, got, (size_t)total) != XXH_OK)
			vkp_die(&c, "hash update failed");
		gen[fill] = r + 1;
	}
	hash = XXH3_64bits_digest(hs);
	printf("vk_trim_planar: %s%s rounds %u hash 0x%016llx\n", name, disjoint ? " disjoint" : "",
	       (unsigned)rounds, (unsigned long long)hash);

	XXH3_freeState(hs);
	vkDestroyFence(c.device, fence, NULL);
	vkDestroyCommandPool(c.device, cpool, NULL);
	vkDestroyImage(c.device, img, NULL);
	for (p = 0; p < 3; p++)
		if (mem[p])
			vkFreeMemory(c.device, mem[p], NULL);
	vkp_buffer_destroy(&c, &readback);
	vkp_buffer_destroy(&c, &upload);
	vkp_ctx_finish(&c);
	return 0;
}
