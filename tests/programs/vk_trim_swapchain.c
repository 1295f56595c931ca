/*
 * vk_trim_swapchain - a windowed program that recreates its swapchain:
 * the first swapchain presents frames 1 to --recreate-at, then a second
 * one is created with the first as its oldSwapchain, the first is
 * destroyed, and the second presents the rest.  A trimmed capture whose
 * window opens after that must recreate the second swapchain without the
 * oldSwapchain that no longer exists.
 *
 * Each frame: acquire, clear the image to a colour of the frame number
 * (vkCmdClearColorImage), copy it into a host-visible buffer, present,
 * wait for the frame's fence; the host checks the copy (every texel the
 * frame's colour) after the wait and zeroes the buffer for the next frame.
 * An X window through xcb on DISPLAY; no events selected.
 *
 * usage: vk_trim_swapchain [--frames N] [--recreate-at K]
 * Prints one line at exit: frames, swapchains and the XXH3-64 hash of
 * what was read back.
 */
#define VK_USE_PLATFORM_XCB_KHR 1

#include "tests/programs/vk_prog.h"

#include <xcb/xcb.h>

#define VTS_WIDTH 64
#define VTS_HEIGHT 48
#define VTS_MAX_IMAGES 8

typedef struct vts {
	vkp_ctx c; /* prog, instance, phys, device, qfam, queue */
	xcb_connection_t *conn;
	xcb_window_t win;
	VkSurfaceKHR surface;
	VkSwapchainKHR swapchain;
	VkFormat format;
	VkColorSpaceKHR color_space;
	VkExtent2D extent;
	uint32_t nimages, nswapchains;
	VkImage images[VTS_MAX_IMAGES];
	VkSemaphore rendered[VTS_MAX_IMAGES]; /* per image: present waits on it */
	VkSemaphore acquired;
	VkFence done;
	VkCommandPool pool;
	VkCommandBuffer cb;
	vkp_buffer readback;
} vts;

static void vts_window_open(vts *w)
{
	const xcb_setup_t *setup;
	xcb_screen_iterator_t it;
	int scr, i;
	w->conn = xcb_connect(NULL, &scr);
	if (xcb_connection_has_error(w->conn))
		vkp_die(&w->c, "cannot open the X display (DISPLAY=%s)", getenv("DISPLAY"));
	setup = xcb_get_setup(w->conn);
	it = xcb_setup_roots_iterator(setup);
	for (i = 0; i < scr; i++)
		xcb_screen_next(&it);
	w->win = xcb_generate_id(w->conn);
	xcb_create_window(w->conn, XCB_COPY_FROM_PARENT, w->win, it.data->root, 0, 0, VTS_WIDTH,
	                  VTS_HEIGHT, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT, it.data->root_visual, 0,
	                  NULL);
	xcb_map_window(w->conn, w->win);
	xcb_flush(w->conn);
}

/* Instance with the xcb surface, the first physical device, a queue family
 * that does graphics and presents to the surface, a device with
 * VK_KHR_swapchain. */
static void vts_device(vts *w)
{
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkXcbSurfaceCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	const char *iexts[2] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME };
	const char *dexts[1] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 1, nfam = 16, i;
	float prio = 1.0f;
	VkResult r;
	app.pApplicationName = w->c.prog;
	app.applicationVersion = 1;
	app.pEngineName = "tracesmith-tests";
	app.apiVersion = VK_API_VERSION_1_1;
	ici.pApplicationInfo = &app;
	ici.enabledExtensionCount = 2;
	ici.ppEnabledExtensionNames = iexts;
	VKP_CHECK(&w->c, vkCreateInstance(&ici, NULL, &w->c.instance));
	sci.connection = w->conn;
	sci.window = w->win;
	VKP_CHECK(&w->c, vkCreateXcbSurfaceKHR(w->c.instance, &sci, NULL, &w->surface));
	r = vkEnumeratePhysicalDevices(w->c.instance, &ndev, &w->c.phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(&w->c, "no Vulkan physical device");
	vkGetPhysicalDeviceMemoryProperties(w->c.phys, &w->c.mem_props);
	vkGetPhysicalDeviceQueueFamilyProperties(w->c.phys, &nfam, fams);
	for (i = 0; i < nfam; i++) {
		VkBool32 present = VK_FALSE;
		VKP_CHECK(&w->c, vkGetPhysicalDeviceSurfaceSupportKHR(w->c.phys, i, w->surface,
		                                                      &present));
		if ((fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && present)
			break;
	}
	if (i == nfam)
		vkp_die(&w->c, "no queue family does graphics and presents to the window");
	w->c.qfam = i;
	qci.queueFamilyIndex = i;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	dci.enabledExtensionCount = 1;
	dci.ppEnabledExtensionNames = dexts;
	VKP_CHECK(&w->c, vkCreateDevice(w->c.phys, &dci, NULL, &w->c.device));
	vkGetDeviceQueue(w->c.device, i, 0, &w->c.queue);
}

/* A swapchain on the surface (the previous one as its oldSwapchain, which
 * is then destroyed), and its images. */
static void vts_swapchain(vts *w)
{
	VkSwapchainCreateInfoKHR sci = { .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR };
	VkSurfaceCapabilitiesKHR caps;
	VkSwapchainKHR old = w->swapchain;
	const VkImageUsageFlags usage =
		VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	VkResult r;
	VKP_CHECK(&w->c, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(w->c.phys, w->surface, &caps));
	if ((caps.supportedUsageFlags & usage) != usage)
		vkp_die(&w->c, "the surface's images cannot be cleared and copied");
	w->extent = caps.currentExtent;
	if (w->extent.width == UINT32_MAX) {
		w->extent.width = VTS_WIDTH;
		w->extent.height = VTS_HEIGHT;
	}
	sci.surface = w->surface;
	sci.minImageCount = caps.minImageCount < 2 ? 2 : caps.minImageCount;
	if (caps.maxImageCount && sci.minImageCount > caps.maxImageCount)
		sci.minImageCount = caps.maxImageCount;
	sci.imageFormat = w->format;
	sci.imageColorSpace = w->color_space;
	sci.imageExtent = w->extent;
	sci.imageArrayLayers = 1;
	sci.imageUsage = usage;
	sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
	sci.preTransform = caps.currentTransform;
	sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	if (!(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR))
		sci.compositeAlpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
		                                                   -caps.supportedCompositeAlpha);
	sci.presentMode = VK_PRESENT_MODE_FIFO_KHR; /* always supported */
	sci.clipped = VK_TRUE;
	sci.oldSwapchain = old;
	VKP_CHECK(&w->c, vkCreateSwapchainKHR(w->c.device, &sci, NULL, &w->swapchain));
	if (old) {
		/* every frame waited for its fence: nothing uses the old one */
		VKP_CHECK(&w->c, vkQueueWaitIdle(w->c.queue));
		vkDestroySwapchainKHR(w->c.device, old, NULL);
	}
	w->nimages = VTS_MAX_IMAGES;
	r = vkGetSwapchainImagesKHR(w->c.device, w->swapchain, &w->nimages, w->images);
	if (r != VK_SUCCESS)
		vkp_die(&w->c, "vkGetSwapchainImagesKHR: %s (more than %d images?)", vkp_result_name(r),
		        VTS_MAX_IMAGES);
	w->nswapchains++;
}

static void vts_objects(vts *w)
{
	VkSemaphoreCreateInfo semci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
	VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO };
	VkSurfaceFormatKHR formats[32];
	uint32_t nformats = 32, i;
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(w->c.phys, w->surface, &nformats, formats);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || nformats == 0)
		vkp_die(&w->c, "the surface has no format");
	for (i = 0; i < nformats; i++)
		if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM ||
		    formats[i].format == VK_FORMAT_R8G8B8A8_UNORM)
			break;
	if (i == nformats)
		vkp_die(&w->c, "the surface has no B8G8R8A8_UNORM or R8G8B8A8_UNORM format");
	w->format = formats[i].format;
	w->color_space = formats[i].colorSpace;
	for (i = 0; i < VTS_MAX_IMAGES; i++)
		VKP_CHECK(&w->c, vkCreateSemaphore(w->c.device, &semci, NULL, &w->rendered[i]));
	VKP_CHECK(&w->c, vkCreateSemaphore(w->c.device, &semci, NULL, &w->acquired));
	VKP_CHECK(&w->c, vkCreateFence(w->c.device, &fci, NULL, &w->done));
	pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	pci.queueFamilyIndex = w->c.qfam;
	VKP_CHECK(&w->c, vkCreateCommandPool(w->c.device, &pci, NULL, &w->pool));
	cai.commandPool = w->pool;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 1;
	VKP_CHECK(&w->c, vkAllocateCommandBuffers(w->c.device, &cai, &w->cb));
}

static void vts_barrier(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to,
                        VkAccessFlags src_access, VkAccessFlags dst_access)
{
	VkImageMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER };
	b.srcAccessMask = src_access;
	b.dstAccessMask = dst_access;
	b.oldLayout = from;
	b.newLayout = to;
	b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = image;
	b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	b.subresourceRange.levelCount = 1;
	b.subresourceRange.layerCount = 1;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
	                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* The frame's colour, as the clear value (UNORM channels of 1/255 steps,
 * exact in any 8-bit format) and as the bytes a B8G8R8A8 or R8G8B8A8 texel
 * holds. */
static void vts_color(uint32_t frame, VkClearColorValue *cv, uint8_t rgba[4])
{
	rgba[0] = (uint8_t)(frame * 29u + 3u);
	rgba[1] = (uint8_t)(frame * 71u + 9u);
	rgba[2] = (uint8_t)(frame * 113u + 17u);
	rgba[3] = 0xff;
	cv->float32[0] = (float)rgba[0] / 255.0f;
	cv->float32[1] = (float)rgba[1] / 255.0f;
	cv->float32[2] = (float)rgba[2] / 255.0f;
	cv->float32[3] = 1.0f;
}

/* One frame: acquire, clear, copy out, present, wait, check. */
static void vts_frame(vts *w, uint32_t frame, XXH3_state_t *hs)
{
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR };
	VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
		                   VK_ACCESS_HOST_READ_BIT };
	VkBufferImageCopy reg;
	VkClearColorValue color;
	uint8_t rgba[4], want[4];
	const uint8_t *got = w->readback.map;
	size_t n = (size_t)w->extent.width * w->extent.height, i;
	uint32_t idx;
	VkResult r;
	vts_color(frame, &color, rgba);
	memcpy(want, rgba, 4);
	if (w->format == VK_FORMAT_B8G8R8A8_UNORM) {
		want[0] = rgba[2];
		want[2] = rgba[0];
	}
	memset(w->readback.map, 0, n * 4);
	vkp_buffer_flush(&w->c, &w->readback);
	r = vkAcquireNextImageKHR(w->c.device, w->swapchain, UINT64_MAX, w->acquired, VK_NULL_HANDLE,
	                          &idx);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		vkp_die(&w->c, "vkAcquireNextImageKHR: %s", vkp_result_name(r));
	memset(&reg, 0, sizeof(reg));
	reg.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	reg.imageSubresource.layerCount = 1;
	reg.imageExtent.width = w->extent.width;
	reg.imageExtent.height = w->extent.height;
	reg.imageExtent.depth = 1;
	VKP_CHECK(&w->c, vkResetCommandBuffer(w->cb, 0));
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(&w->c, vkBeginCommandBuffer(w->cb, &bi));
	vts_barrier(w->cb, w->images[idx], VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdClearColorImage(w->cb, w->images[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1,
	                     &range);
	vts_barrier(w->cb, w->images[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	            VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
	            VK_ACCESS_TRANSFER_READ_BIT);
	vkCmdCopyImageToBuffer(w->cb, w->images[idx], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	                       w->readback.buf, 1, &reg);
	vts_barrier(w->cb, w->images[idx], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	            VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_READ_BIT, 0);
	vkCmdPipelineBarrier(w->cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
	                     &mb, 0, NULL, 0, NULL);
	VKP_CHECK(&w->c, vkEndCommandBuffer(w->cb));
	si.waitSemaphoreCount = 1;
	si.pWaitSemaphores = &w->acquired;
	si.pWaitDstStageMask = &wait_stage;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &w->cb;
	si.signalSemaphoreCount = 1;
	si.pSignalSemaphores = &w->rendered[idx];
	VKP_CHECK(&w->c, vkQueueSubmit(w->c.queue, 1, &si, w->done));
	pi.waitSemaphoreCount = 1;
	pi.pWaitSemaphores = &w->rendered[idx];
	pi.swapchainCount = 1;
	pi.pSwapchains = &w->swapchain;
	pi.pImageIndices = &idx;
	r = vkQueuePresentKHR(w->c.queue, &pi);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		vkp_die(&w->c, "vkQueuePresentKHR: %s", vkp_result_name(r));
	VKP_CHECK(&w->c, vkWaitForFences(w->c.device, 1, &w->done, VK_TRUE, UINT64_MAX));
	VKP_CHECK(&w->c, vkResetFences(w->c.device, 1, &w->done));
	vkp_buffer_invalidate(&w->c, &w->readback);
	for (i = 0; i < n; i++)
		if (memcmp(got + i * 4, want, 4) != 0)
			vkp_die(&w->c, "frame %u: texel %zu read back is %02x%02x%02x%02x, expected "
			        "%02x%02x%02x%02x", (unsigned)frame, i, got[i * 4], got[i * 4 + 1],
			        got[i * 4 + 2], got[i * 4 + 3], want[0], want[1], want[2], want[3]);
	if (XXH3_64bits_update(hs, got, n * 4) != XXH_OK)
		vkp_die(&w->c, "hash update failed");
}

int main(int argc, char **argv)
{
	vts w;
	uint32_t frames = 10, recreate_at = 3, n, i;
	XXH3_state_t *hs;
	int k;
	memset(&w, 0, sizeof(w));
	w.c.prog = "vk_trim_swapchain";
	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--frames") == 0)
			frames = vkp_parse_u32(w.c.prog, "--frames",
			                       vkp_need_arg(w.c.prog, "--frames", argc, argv, &k), 1, 100000);
		else if (strcmp(argv[k], "--recreate-at") == 0)
			recreate_at = vkp_parse_u32(w.c.prog, "--recreate-at",
			                            vkp_need_arg(w.c.prog, "--recreate-at", argc, argv, &k),
			                            1, 100000);
		else {
			fprintf(stderr, "usage: vk_trim_swapchain [--frames N] [--recreate-at K]\n");
			return 2;
		}
	}
	hs = XXH3_createState();
	if (!hs || XXH3_64bits_reset(hs) != XXH_OK)
		vkp_die(&w.c, "out of memory");
	vts_window_open(&w);
	vts_device(&w);
	vts_objects(&w);
	vts_swapchain(&w);
	vkp_buffer_create(&w.c, &w.readback, (VkDeviceSize)w.extent.width * w.extent.height * 4,
	                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
	                  VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1);
	for (n = 1; n <= frames; n++) {
		vts_frame(&w, n, hs);
		if (n == recreate_at)
			vts_swapchain(&w);
	}
	VKP_CHECK(&w.c, vkDeviceWaitIdle(w.c.device));
	printf("vk_trim_swapchain: frames %u swapchains %u hash 0x%016llx\n", (unsigned)frames,
	       (unsigned)w.nswapchains, (unsigned long long)XXH3_64bits_digest(hs));
	XXH3_freeState(hs);
	vkp_buffer_destroy(&w.c, &w.readback);
	vkDestroyCommandPool(w.c.device, w.pool, NULL);
	vkDestroyFence(w.c.device, w.done, NULL);
	vkDestroySemaphore(w.c.device, w.acquired, NULL);
	for (i = 0; i < VTS_MAX_IMAGES; i++)
		vkDestroySemaphore(w.c.device, w.rendered[i], NULL);
	vkDestroySwapchainKHR(w.c.device, w.swapchain, NULL);
	vkDestroyDevice(w.c.device, NULL);
	vkDestroySurfaceKHR(w.c.instance, w.surface, NULL);
	vkDestroyInstance(w.c.instance, NULL);
	xcb_destroy_window(w.conn, w.win);
	xcb_disconnect(w.conn);
	return 0;
}
