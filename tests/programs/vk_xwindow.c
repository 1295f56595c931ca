/*
 * vk_xwindow - a windowed Vulkan program for the capture-key test: an X
 * window through xcb (the default) or Xlib (--xlib: libX11 is loaded with
 * dlopen, RTLD_LOCAL, as toolkits that load it at run time do), a surface
 * and a swapchain on it, and a frame loop that clears each acquired image
 * to a colour of the frame number (vkCmdClearColorImage) and presents it,
 * until --frames N frames were presented or the file --quit-file names
 * exists.  No window-manager protocol, no events selected: it only shows
 * frames.
 *
 * --frame-hash-setting chains a VkLayerSettingsCreateInfoEXT (newer than
 * the 1.3.239 headers: spelled out here with the specification's values)
 * to vkCreateInstance setting VK_LAYER_tracesmith's frame_hash to true
 * (a VK_LAYER_tracesmith setting, docs/vulkan-layer.md).
 *
 * --late K records frame K+1's command buffer in frame K, before frame K's
 * present (once frame K's submit completed, into an image acquired ahead:
 * the swapchain then has one image more than the surface's minimum, so two
 * can be held), and submits it in frame K+1; every other frame records and
 * submits its own within the frame.  With --late-wait FILE it then prints
 * "late frame K recorded" and waits for FILE to exist before presenting
 * frame K (the capture-key test presses the key there).
 *
 * --raise A[,B] sends the program SIGUSR1 in frame A (and B) after the
 * frame's submit, then submits nothing (an empty vkQueueSubmit: a submit
 * boundary inside the frame, with its image acquired and drawn) before
 * the present: the signal trigger's window must not open there.
 *
 * --split K submits nothing the same way in frame K, with no signal: a
 * window counted in submits (--submits) can begin there, after the
 * frame's image was drawn and before it is presented.
 *
 * usage: vk_xwindow [--xlib] [--frames N] [--quit-file FILE] [--frame-hash-setting]
 *                   [--late K [--late-wait FILE]] [--raise A[,B]] [--split K]
 * Prints one line at exit: "frames N".
 */
#define VK_USE_PLATFORM_XCB_KHR 1
#define VK_USE_PLATFORM_XLIB_KHR 1

#include <dlfcn.h>
#include <signal.h>

#include "tests/programs/vk_prog.h"

#include <X11/Xlib.h>
#include <xcb/xcb.h>

#define VKW_WIDTH 320
#define VKW_HEIGHT 240
#define VKW_MAX_IMAGES 8

/* The Xlib functions used, from the dlopen'd libX11. */
typedef struct vkw_xlib {
	void *lib;
	Display *(*OpenDisplay)(const char *);
	Window (*CreateSimpleWindow)(Display *, Window, int, int, unsigned, unsigned, unsigned,
	                             unsigned long, unsigned long);
	int (*MapWindow)(Display *, Window);
	int (*Flush)(Display *);
	int (*DestroyWindow)(Display *, Window);
	int (*CloseDisplay)(Display *);
} vkw_xlib;

/* VkLayerSettingEXT and VkLayerSettingsCreateInfoEXT */
typedef struct vkw_setting {
	const char *pLayerName;
	const char *pSettingName;
	uint32_t type; /* VkLayerSettingTypeEXT: 0 BOOL32 */
	uint32_t valueCount;
	const void *pValues;
} vkw_setting;

typedef struct vkw_settings_ci {
	VkStructureType sType;
	const void *pNext;
	uint32_t settingCount;
	const vkw_setting *pSettings;
} vkw_settings_ci;

#define VKW_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT ((VkStructureType)1000496000)

typedef struct vkw {
	vkp_ctx c; /* prog, instance, phys, device, qfam, queue */
	int xlib;
	int frame_hash_setting;
	vkw_xlib x;
	Display *dpy;
	Window xwin;
	xcb_connection_t *conn;
	xcb_window_t cwin;
	VkSurfaceKHR surface;
	VkSwapchainKHR swapchain;
	VkExtent2D extent;
	uint32_t nimages;
	VkImage images[VKW_MAX_IMAGES];
	VkSemaphore rendered[VKW_MAX_IMAGES]; /* per image: present waits on it */
	VkSemaphore acquired;
	VkFence done;
	VkCommandPool pool;
	VkCommandBuffer cb;
	uint32_t late;         /* --late K: frame K records frame K+1's buffer; 0: none */
	const char *late_wait; /* --late-wait FILE */
	uint32_t late_idx;     /* the image frame K+1's buffer clears */
	uint32_t raise_at[2];  /* --raise A[,B]; 0: none */
	uint32_t split;        /* --split K; 0: none */
} vkw;

static void *vkw_sym(vkw *w, const char *name)
{
	void *f = dlsym(w->x.lib, name);
	if (!f)
		vkp_die(&w->c, "libX11.so.6 has no %s", name);
	return f;
}

static void vkw_window_open(vkw *w)
{
	if (w->xlib) {
		int scr;
		w->x.lib = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);
		if (!w->x.lib)
			vkp_die(&w->c, "cannot load libX11.so.6: %s", dlerror());
		*(void **)&w->x.OpenDisplay = vkw_sym(w, "XOpenDisplay");
		*(void **)&w->x.CreateSimpleWindow = vkw_sym(w, "XCreateSimpleWindow");
		*(void **)&w->x.MapWindow = vkw_sym(w, "XMapWindow");
		*(void **)&w->x.Flush = vkw_sym(w, "XFlush");
		*(void **)&w->x.DestroyWindow = vkw_sym(w, "XDestroyWindow");
		*(void **)&w->x.CloseDisplay = vkw_sym(w, "XCloseDisplay");
		w->dpy = w->x.OpenDisplay(NULL);
		if (!w->dpy)
			vkp_die(&w->c, "cannot open the X display (DISPLAY=%s)", getenv("DISPLAY"));
		scr = DefaultScreen(w->dpy);
		w->xwin = w->x.CreateSimpleWindow(w->dpy, RootWindow(w->dpy, scr), 100, 100, VKW_WIDTH,
		                                  VKW_HEIGHT, 0, BlackPixel(w->dpy, scr),
		                                  BlackPixel(w->dpy, scr));
		w->x.MapWindow(w->dpy, w->xwin);
		w->x.Flush(w->dpy);
	} else {
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
		w->cwin = xcb_generate_id(w->conn);
		xcb_create_window(w->conn, XCB_COPY_FROM_PARENT, w->cwin, it.data->root, 100, 100,
		                  VKW_WIDTH, VKW_HEIGHT, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
		                  it.data->root_visual, 0, NULL);
		xcb_map_window(w->conn, w->cwin);
		xcb_flush(w->conn);
	}
}

static void vkw_window_close(vkw *w)
{
	if (w->xlib) {
		w->x.DestroyWindow(w->dpy, w->xwin);
		w->x.CloseDisplay(w->dpy);
		dlclose(w->x.lib);
	} else {
		xcb_destroy_window(w->conn, w->cwin);
		xcb_disconnect(w->conn);
	}
}

static void vkw_instance(vkw *w)
{
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	const char *exts[2] = {VK_KHR_SURFACE_EXTENSION_NAME,
	                       w->xlib ? VK_KHR_XLIB_SURFACE_EXTENSION_NAME
	                               : VK_KHR_XCB_SURFACE_EXTENSION_NAME};
	app.pApplicationName = w->c.prog;
	app.applicationVersion = 1;
	app.pEngineName = "tracesmith-tests";
	app.apiVersion = VK_API_VERSION_1_1;
	const VkBool32 yes = VK_TRUE;
	vkw_setting setting = {"VK_LAYER_tracesmith", "frame_hash", 0, 1, &yes};
	vkw_settings_ci settings = {VKW_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT, NULL, 1,
	                            &setting};
	ici.pApplicationInfo = &app;
	ici.enabledExtensionCount = 2;
	ici.ppEnabledExtensionNames = exts;
	if (w->frame_hash_setting)
		ici.pNext = &settings;
	VKP_CHECK(&w->c, vkCreateInstance(&ici, NULL, &w->c.instance));
	if (w->xlib) {
		VkXlibSurfaceCreateInfoKHR sci = {.sType = VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR};
		sci.dpy = w->dpy;
		sci.window = w->xwin;
		VKP_CHECK(&w->c, vkCreateXlibSurfaceKHR(w->c.instance, &sci, NULL, &w->surface));
	} else {
		VkXcbSurfaceCreateInfoKHR sci = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR};
		sci.connection = w->conn;
		sci.window = w->cwin;
		VKP_CHECK(&w->c, vkCreateXcbSurfaceKHR(w->c.instance, &sci, NULL, &w->surface));
	}
}

/* The first physical device, a queue family that does graphics and
 * presents to the surface, a device with VK_KHR_swapchain. */
static void vkw_device(vkw *w)
{
	VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
	const char *exts[1] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 1, nfam = 16, i;
	float prio = 1.0f;
	VkResult r = vkEnumeratePhysicalDevices(w->c.instance, &ndev, &w->c.phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || ndev == 0)
		vkp_die(&w->c, "no Vulkan physical device");
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
	dci.ppEnabledExtensionNames = exts;
	VKP_CHECK(&w->c, vkCreateDevice(w->c.phys, &dci, NULL, &w->c.device));
	vkGetDeviceQueue(w->c.device, i, 0, &w->c.queue);
}

static void vkw_swapchain(vkw *w)
{
	VkSwapchainCreateInfoKHR sci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
	VkSemaphoreCreateInfo semci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	VkSurfaceCapabilitiesKHR caps;
	VkSurfaceFormatKHR formats[32];
	uint32_t nformats = 32, i;
	VkResult r;
	VKP_CHECK(&w->c, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(w->c.phys, w->surface, &caps));
	r = vkGetPhysicalDeviceSurfaceFormatsKHR(w->c.phys, w->surface, &nformats, formats);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || nformats == 0)
		vkp_die(&w->c, "the surface has no format");
	if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
		vkp_die(&w->c, "the surface's images cannot be cleared (no TRANSFER_DST usage)");
	w->extent = caps.currentExtent;
	if (w->extent.width == UINT32_MAX) {
		w->extent.width = VKW_WIDTH;
		w->extent.height = VKW_HEIGHT;
	}
	sci.surface = w->surface;
	sci.minImageCount = caps.minImageCount < 2 ? 2 : caps.minImageCount;
	if (w->late) {
		/* frame K holds its own image and the next one acquired ahead */
		sci.minImageCount = caps.minImageCount + 1;
		if (caps.maxImageCount && sci.minImageCount > caps.maxImageCount)
			vkp_die(&w->c, "--late needs %u swapchain images, the surface allows %u",
			        sci.minImageCount, caps.maxImageCount);
	}
	if (caps.maxImageCount && sci.minImageCount > caps.maxImageCount)
		sci.minImageCount = caps.maxImageCount;
	sci.imageFormat = formats[0].format;
	sci.imageColorSpace = formats[0].colorSpace;
	sci.imageExtent = w->extent;
	sci.imageArrayLayers = 1;
	sci.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
	sci.preTransform = caps.currentTransform;
	sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	if (!(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR))
		sci.compositeAlpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
		                                                   -caps.supportedCompositeAlpha);
	sci.presentMode = VK_PRESENT_MODE_FIFO_KHR; /* always supported */
	sci.clipped = VK_TRUE;
	VKP_CHECK(&w->c, vkCreateSwapchainKHR(w->c.device, &sci, NULL, &w->swapchain));
	w->nimages = VKW_MAX_IMAGES;
	r = vkGetSwapchainImagesKHR(w->c.device, w->swapchain, &w->nimages, w->images);
	if (r != VK_SUCCESS)
		vkp_die(&w->c, "vkGetSwapchainImagesKHR: %s (more than %d images?)", vkp_result_name(r),
		        VKW_MAX_IMAGES);
	for (i = 0; i < w->nimages; i++)
		VKP_CHECK(&w->c, vkCreateSemaphore(w->c.device, &semci, NULL, &w->rendered[i]));
	VKP_CHECK(&w->c, vkCreateSemaphore(w->c.device, &semci, NULL, &w->acquired));
	fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
	VKP_CHECK(&w->c, vkCreateFence(w->c.device, &fci, NULL, &w->done));
	pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
	pci.queueFamilyIndex = w->c.qfam;
	VKP_CHECK(&w->c, vkCreateCommandPool(w->c.device, &pci, NULL, &w->pool));
	cai.commandPool = w->pool;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 1;
	VKP_CHECK(&w->c, vkAllocateCommandBuffers(w->c.device, &cai, &w->cb));
}

static void vkw_barrier(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to,
                        VkAccessFlags src_access, VkPipelineStageFlags src,
                        VkPipelineStageFlags dst)
{
	VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
	b.srcAccessMask = src_access;
	b.dstAccessMask = to == VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL ? VK_ACCESS_TRANSFER_WRITE_BIT : 0;
	b.oldLayout = from;
	b.newLayout = to;
	b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = image;
	b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	b.subresourceRange.levelCount = 1;
	b.subresourceRange.layerCount = 1;
	vkCmdPipelineBarrier(cb, src, dst, 0, 0, NULL, 0, NULL, 1, &b);
}

/* Acquires an image (signalling w->acquired) and records into w->cb its
 * clear to frame FRAME's colour; returns the image's index.  The caller
 * has waited for w->cb's last submit. */
static uint32_t vkw_record(vkw *w, uint32_t frame)
{
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
	VkClearColorValue color;
	uint32_t idx;
	VkResult r;
	r = vkAcquireNextImageKHR(w->c.device, w->swapchain, UINT64_MAX, w->acquired, VK_NULL_HANDLE,
	                          &idx);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		vkp_die(&w->c, "vkAcquireNextImageKHR: %s", vkp_result_name(r));
	color.float32[0] = (float)(frame % 64) / 63.0f;
	color.float32[1] = (float)(frame % 16) / 15.0f;
	color.float32[2] = 0.5f;
	color.float32[3] = 1.0f;
	VKP_CHECK(&w->c, vkResetCommandBuffer(w->cb, 0));
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VKP_CHECK(&w->c, vkBeginCommandBuffer(w->cb, &bi));
	vkw_barrier(w->cb, w->images[idx], VK_IMAGE_LAYOUT_UNDEFINED,
	            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
	            VK_PIPELINE_STAGE_TRANSFER_BIT);
	vkCmdClearColorImage(w->cb, w->images[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1,
	                     &range);
	vkw_barrier(w->cb, w->images[idx], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	            VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_ACCESS_TRANSFER_WRITE_BIT,
	            VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
	VKP_CHECK(&w->c, vkEndCommandBuffer(w->cb));
	return idx;
}

/* One frame: acquire, clear to the frame's colour, present (frame --late
 * K also records frame K+1's clear; frame K+1 submits it). */
static void vkw_frame(vkw *w, uint32_t frame)
{
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
	VkPipelineStageFlags wait_stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	uint32_t idx;
	VkResult r;
	if (w->late && frame == w->late + 1) {
		idx = w->late_idx; /* recorded in frame K, after its submit completed */
	} else {
		VKP_CHECK(&w->c, vkWaitForFences(w->c.device, 1, &w->done, VK_TRUE, UINT64_MAX));
		VKP_CHECK(&w->c, vkResetFences(w->c.device, 1, &w->done));
		idx = vkw_record(w, frame);
	}
	si.waitSemaphoreCount = 1;
	si.pWaitSemaphores = &w->acquired;
	si.pWaitDstStageMask = &wait_stage;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &w->cb;
	si.signalSemaphoreCount = 1;
	si.pSignalSemaphores = &w->rendered[idx];
	VKP_CHECK(&w->c, vkQueueSubmit(w->c.queue, 1, &si, w->done));
	if (frame == w->raise_at[0] || frame == w->raise_at[1])
		raise(SIGUSR1);
	if (frame == w->raise_at[0] || frame == w->raise_at[1] || frame == w->split)
		VKP_CHECK(&w->c, vkQueueSubmit(w->c.queue, 0, NULL, VK_NULL_HANDLE));
	if (frame == w->late) {
		VKP_CHECK(&w->c, vkWaitForFences(w->c.device, 1, &w->done, VK_TRUE, UINT64_MAX));
		VKP_CHECK(&w->c, vkResetFences(w->c.device, 1, &w->done));
		w->late_idx = vkw_record(w, frame + 1);
		if (w->late_wait) {
			printf("late frame %u recorded\n", frame);
			fflush(stdout);
			while (access(w->late_wait, F_OK) != 0)
				usleep(10000);
		}
	}
	pi.waitSemaphoreCount = 1;
	pi.pWaitSemaphores = &w->rendered[idx];
	pi.swapchainCount = 1;
	pi.pSwapchains = &w->swapchain;
	pi.pImageIndices = &idx;
	r = vkQueuePresentKHR(w->c.queue, &pi);
	if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
		vkp_die(&w->c, "vkQueuePresentKHR: %s", vkp_result_name(r));
}

static void vkw_finish(vkw *w)
{
	uint32_t i;
	VKP_CHECK(&w->c, vkDeviceWaitIdle(w->c.device));
	vkDestroyCommandPool(w->c.device, w->pool, NULL);
	vkDestroyFence(w->c.device, w->done, NULL);
	vkDestroySemaphore(w->c.device, w->acquired, NULL);
	for (i = 0; i < w->nimages; i++)
		vkDestroySemaphore(w->c.device, w->rendered[i], NULL);
	vkDestroySwapchainKHR(w->c.device, w->swapchain, NULL);
	vkDestroyDevice(w->c.device, NULL);
	vkDestroySurfaceKHR(w->c.instance, w->surface, NULL);
	vkDestroyInstance(w->c.instance, NULL);
	vkw_window_close(w);
}

int main(int argc, char **argv)
{
	vkw w;
	const char *quit_file = NULL;
	uint32_t frames = 0, n = 0;
	int i;
	memset(&w, 0, sizeof(w));
	w.c.prog = "vk_xwindow";
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--xlib") == 0)
			w.xlib = 1;
		else if (strcmp(argv[i], "--frames") == 0)
			frames = vkp_parse_u32(w.c.prog, "--frames",
			                       vkp_need_arg(w.c.prog, "--frames", argc, argv, &i), 1,
			                       UINT32_MAX);
		else if (strcmp(argv[i], "--quit-file") == 0)
			quit_file = vkp_need_arg(w.c.prog, "--quit-file", argc, argv, &i);
		else if (strcmp(argv[i], "--frame-hash-setting") == 0)
			w.frame_hash_setting = 1;
		else if (strcmp(argv[i], "--late") == 0)
			w.late = vkp_parse_u32(w.c.prog, "--late",
			                       vkp_need_arg(w.c.prog, "--late", argc, argv, &i), 1,
			                       UINT32_MAX - 1);
		else if (strcmp(argv[i], "--late-wait") == 0)
			w.late_wait = vkp_need_arg(w.c.prog, "--late-wait", argc, argv, &i);
		else if (strcmp(argv[i], "--raise") == 0) {
			const char *v = vkp_need_arg(w.c.prog, "--raise", argc, argv, &i);
			char end;
			int got = sscanf(v, "%u,%u%c", &w.raise_at[0], &w.raise_at[1], &end);
			if ((got != 1 && got != 2) || !w.raise_at[0]) {
				fprintf(stderr, "vk_xwindow: --raise '%s' is not A[,B] (frames from 1)\n", v);
				return 2;
			}
		} else if (strcmp(argv[i], "--split") == 0) {
			w.split = vkp_parse_u32(w.c.prog, "--split",
			                        vkp_need_arg(w.c.prog, "--split", argc, argv, &i), 1,
			                        UINT32_MAX);
		} else {
			fprintf(stderr, "usage: vk_xwindow [--xlib] [--frames N] [--quit-file FILE] "
			        "[--frame-hash-setting] [--late K [--late-wait FILE]] [--raise A[,B]] "
			        "[--split K]\n");
			return 2;
		}
	}
	if (w.late_wait && !w.late) {
		fprintf(stderr, "vk_xwindow: --late-wait needs --late K\n");
		return 2;
	}
	vkw_window_open(&w);
	vkw_instance(&w);
	vkw_device(&w);
	vkw_swapchain(&w);
	while ((frames == 0 || n < frames) && !(quit_file && access(quit_file, F_OK) == 0))
		vkw_frame(&w, ++n);
	vkw_finish(&w);
	printf("frames %u\n", n);
	return 0;
}
