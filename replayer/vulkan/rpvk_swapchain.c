/*
 * rpvk_swapchain.c - the window system, replayed on plain images.
 *
 * Surfaces exist only as fake handles and their queries are answered from
 * the capture (the decoded outputs are left as they are).  A swapchain
 * becomes plain VkImages with their own memory, as many as the capture's
 * vkGetSwapchainImagesKHR returned, with the create info's format, extent,
 * layers and usage plus TRANSFER_SRC (for screenshots).
 *
 * vkAcquireNextImageKHR returns the captured index and signals its
 * semaphore and fence with an empty submit; vkQueuePresentKHR waits its
 * semaphores with an empty submit, counts the frame (frame N is the N-th
 * present, from 1) and, for --screenshot(-all) frames, copies the presented
 * image into a host buffer and writes DIR/frame_N.ppm (or .png).  A
 * checkpoint whose call is that present (TRACESMITH_FRAME_HASH at capture,
 * layers/vulkan/vkl_frame.c) is answered with the same copy of the image
 * the present named (rpvk_frame_checkpoint).
 *
 * Plain images cannot be in VK_IMAGE_LAYOUT_PRESENT_SRC_KHR: every
 * PRESENT_SRC_KHR (and SHARED_PRESENT_KHR) layout in render pass
 * attachments and image barriers is rewritten to VK_IMAGE_LAYOUT_GENERAL,
 * which every use of the image allows; the screenshot copy reads GENERAL.
 *
 * All of that holds in window mode too (DISPLAY set, no --offscreen):
 * rpvk_window.c then also gives each surface an X window and a live
 * surface, each swapchain a live swapchain, and each present a copy of the
 * presented plain image into a live image that it presents.  The hooks
 * are rpvk_window_* calls at surface and swapchain creation and
 * destruction, acquire and present.
 */
#include "replayer/vulkan/rpvk.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPVK_SC_MAX_FAMILIES 16

/* ---- layouts ------------------------------------------------------------- */

static void rpvk_layout_fix(VkImageLayout *l)
{
	if (*l == VK_IMAGE_LAYOUT_PRESENT_SRC_KHR || *l == VK_IMAGE_LAYOUT_SHARED_PRESENT_KHR)
		*l = VK_IMAGE_LAYOUT_GENERAL;
}

static void rpvk_fix_barriers(uint32_t n, const VkImageMemoryBarrier *b)
{
	uint32_t i;
	for (i = 0; b && i < n; i++) {
		rpvk_layout_fix((VkImageLayout *)&b[i].oldLayout);
		rpvk_layout_fix((VkImageLayout *)&b[i].newLayout);
	}
}

static void rpvk_fix_dependency(const VkDependencyInfo *d)
{
	uint32_t i;
	if (!d)
		return;
	for (i = 0; d->pImageMemoryBarriers && i < d->imageMemoryBarrierCount; i++) {
		VkImageMemoryBarrier2 *b = (VkImageMemoryBarrier2 *)&d->pImageMemoryBarriers[i];
		rpvk_layout_fix(&b->oldLayout);
		rpvk_layout_fix(&b->newLayout);
	}
}

static void rpvk_fix_rp2(const VkRenderPassCreateInfo2 *ci)
{
	uint32_t i;
	for (i = 0; ci && ci->pAttachments && i < ci->attachmentCount; i++) {
		VkAttachmentDescription2 *at = (VkAttachmentDescription2 *)&ci->pAttachments[i];
		rpvk_layout_fix(&at->initialLayout);
		rpvk_layout_fix(&at->finalLayout);
	}
}

void rpvk_rewrite_layouts(rpvk *r, enum sbt_vk_cmd cmd, void *args)
{
	uint32_t i;
	(void)r;
	switch (cmd) {
	case SBT_VK_CMD_vkCreateRenderPass: {
		sbt_vk_args_vkCreateRenderPass *a = args;
		for (i = 0; a->pCreateInfo && a->pCreateInfo->pAttachments &&
		            i < a->pCreateInfo->attachmentCount; i++) {
			VkAttachmentDescription *at = (VkAttachmentDescription *)&a->pCreateInfo->pAttachments[i];
			rpvk_layout_fix(&at->initialLayout);
			rpvk_layout_fix(&at->finalLayout);
		}
		break;
	}
	case SBT_VK_CMD_vkCreateRenderPass2:
		rpvk_fix_rp2(((sbt_vk_args_vkCreateRenderPass2 *)args)->pCreateInfo);
		break;
	case SBT_VK_CMD_vkCreateRenderPass2KHR:
		rpvk_fix_rp2(((sbt_vk_args_vkCreateRenderPass2KHR *)args)->pCreateInfo);
		break;
	case SBT_VK_CMD_vkCmdPipelineBarrier: {
		sbt_vk_args_vkCmdPipelineBarrier *a = args;
		rpvk_fix_barriers(a->imageMemoryBarrierCount, a->pImageMemoryBarriers);
		break;
	}
	case SBT_VK_CMD_vkCmdWaitEvents: {
		sbt_vk_args_vkCmdWaitEvents *a = args;
		rpvk_fix_barriers(a->imageMemoryBarrierCount, a->pImageMemoryBarriers);
		break;
	}
	case SBT_VK_CMD_vkCmdPipelineBarrier2:
		rpvk_fix_dependency(((sbt_vk_args_vkCmdPipelineBarrier2 *)args)->pDependencyInfo);
		break;
	case SBT_VK_CMD_vkCmdPipelineBarrier2KHR:
		rpvk_fix_dependency(((sbt_vk_args_vkCmdPipelineBarrier2KHR *)args)->pDependencyInfo);
		break;
	case SBT_VK_CMD_vkCmdSetEvent2:
		rpvk_fix_dependency(((sbt_vk_args_vkCmdSetEvent2 *)args)->pDependencyInfo);
		break;
	case SBT_VK_CMD_vkCmdSetEvent2KHR:
		rpvk_fix_dependency(((sbt_vk_args_vkCmdSetEvent2KHR *)args)->pDependencyInfo);
		break;
	case SBT_VK_CMD_vkCmdWaitEvents2: {
		sbt_vk_args_vkCmdWaitEvents2 *a = args;
		for (i = 0; a->pDependencyInfos && i < a->eventCount; i++)
			rpvk_fix_dependency(&a->pDependencyInfos[i]);
		break;
	}
	case SBT_VK_CMD_vkCmdWaitEvents2KHR: {
		sbt_vk_args_vkCmdWaitEvents2KHR *a = args;
		for (i = 0; a->pDependencyInfos && i < a->eventCount; i++)
			rpvk_fix_dependency(&a->pDependencyInfos[i]);
		break;
	}
	default:
		break;
	}
}

/* ---- surfaces ------------------------------------------------------------------ */

/* A captured surface: a fake handle, and in window mode a window to come. */
static rp_status rpvk_surface_bind(rpvk *r, uint64_t captured)
{
	uint64_t fake = rpvk_fake_handle(r);
	rp_status st = rpvk_bind(r, VK_OBJECT_TYPE_SURFACE_KHR, captured, fake);
	return st == RP_OK ? rpvk_window_surface_create(r, fake) : rpvk_nomem(r);
}

/* Every vkCreate*SurfaceKHR has (instance, info, allocator, pSurface) and a
 * VkResult: only the output handle matters here. */
#define RPVK_FAKE_SURFACE(name)                                                           \
	rp_status rpvk_o_##name(rpvk *r, void *args)                                          \
	{                                                                                     \
		sbt_vk_args_##name *a = args;                                                     \
		if (!a->pSurface || !*a->pSurface || a->ret != VK_SUCCESS)                        \
			return RP_OK;                                                                 \
		if (!rpvk_itable_for(r, (uint64_t)(uintptr_t)a->instance))                        \
			return RP_ERR_BACKEND;                                                        \
		return rpvk_surface_bind(r, (uint64_t)(uintptr_t)*a->pSurface);                   \
	}

RPVK_FAKE_SURFACE(vkCreateXcbSurfaceKHR)
RPVK_FAKE_SURFACE(vkCreateXlibSurfaceKHR)
RPVK_FAKE_SURFACE(vkCreateHeadlessSurfaceEXT)
RPVK_FAKE_SURFACE(vkCreateWaylandSurfaceKHR)

rp_status rpvk_o_vkDestroySurfaceKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroySurfaceKHR *a = args;
	rpvk_window_surface_destroy(r, (uint64_t)(uintptr_t)a->surface);
	rpvk_forget(r, VK_OBJECT_TYPE_SURFACE_KHR, (uint64_t)(uintptr_t)a->surface);
	return RP_OK;
}

#define RPVK_FROM_CAPTURE(name)                  \
	rp_status rpvk_o_##name(rpvk *r, void *args) \
	{                                            \
		(void)r;                                 \
		(void)args;                              \
		return RP_OK;                            \
	}

RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfaceSupportKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfaceCapabilitiesKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfaceCapabilities2KHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfaceCapabilities2EXT)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfaceFormatsKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfaceFormats2KHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceSurfacePresentModesKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDevicePresentRectanglesKHR)
RPVK_FROM_CAPTURE(vkGetDeviceGroupSurfacePresentModesKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceXcbPresentationSupportKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceXlibPresentationSupportKHR)
RPVK_FROM_CAPTURE(vkGetPhysicalDeviceWaylandPresentationSupportKHR)
RPVK_FROM_CAPTURE(vkGetSwapchainStatusKHR)
/* The swapchain is the replay's own plain images (or a copy into a
 * window): nothing of a display's timing to ask or set, and a present is
 * done when vkQueuePresentKHR returns.  Passed on, the driver would get a
 * handle it never made. */
RPVK_FROM_CAPTURE(vkWaitForPresentKHR)
RPVK_FROM_CAPTURE(vkGetRefreshCycleDurationGOOGLE)
RPVK_FROM_CAPTURE(vkGetPastPresentationTimingGOOGLE)
RPVK_FROM_CAPTURE(vkGetSwapchainCounterEXT)
RPVK_FROM_CAPTURE(vkSetHdrMetadataEXT)
RPVK_FROM_CAPTURE(vkSetLocalDimmingAMD)
RPVK_FROM_CAPTURE(vkReleaseSwapchainImagesEXT)

/* ---- swapchains ------------------------------------------------------------------- */

typedef struct rpvk_sc_ext {
	rpvk_swapchain sc;
	uint32_t families[RPVK_SC_MAX_FAMILIES];
} rpvk_sc_ext;

static rpvk_swapchain *rpvk_sc_find(rpvk *r, VkSwapchainKHR live)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->swapchains, VK_OBJECT_TYPE_SWAPCHAIN_KHR,
	                                      (uint64_t)(uintptr_t)live);
	return s ? (rpvk_swapchain *)(uintptr_t)s->val : NULL;
}

static void rpvk_sc_free(rpvk *r, rpvk_swapchain *sc)
{
	rpvk_device *dv = &r->dev[sc->dev];
	uint32_t i;
	rpvk_window_swapchain_destroy(r, sc); /* it may still be copying out of the images */
	for (i = 0; i < sc->count; i++) {
		if (dv->live && sc->images && sc->images[i])
			dv->t.DestroyImage(dv->live, sc->images[i], NULL);
		if (dv->live && sc->memory && sc->memory[i])
			dv->t.FreeMemory(dv->live, sc->memory[i], NULL);
	}
	free(sc->images);
	free(sc->memory);
	free(sc);
}

void rpvk_swapchain_destroy_all(rpvk *r, int dev)
{
	size_t i;
	for (i = 0; i < r->swapchains.cap; i++) {
		rpvk_map_slot *s = &r->swapchains.slots[i];
		rpvk_swapchain *sc;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		sc = (rpvk_swapchain *)(uintptr_t)s->val;
		if (dev >= 0 && sc->dev != dev)
			continue;
		rpvk_sc_free(r, sc);
		s->type = RPVK_MAP_TOMB;
		r->swapchains.live--;
	}
}

rp_status rpvk_o_vkCreateSwapchainKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateSwapchainKHR *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	rpvk_sc_ext *x;
	uint64_t fake;
	if (!t)
		return RP_ERR_BACKEND;
	if (!a->pCreateInfo || !a->pSwapchain)
		return rpvk_fail(r, RP_ERR_DECODE, "no create info or output handle");
	if (a->ret != VK_SUCCESS || !*a->pSwapchain)
		return RP_OK; /* it failed at capture: nothing to make */
	x = calloc(1, sizeof(*x));
	if (!x)
		return rpvk_nomem(r);
	x->sc.dev = r->cur_dev;
	x->sc.info = *a->pCreateInfo;
	x->sc.info.pNext = NULL;
	x->sc.info.oldSwapchain = VK_NULL_HANDLE;
	if (x->sc.info.imageSharingMode == VK_SHARING_MODE_CONCURRENT && a->pCreateInfo->pQueueFamilyIndices &&
	    x->sc.info.queueFamilyIndexCount <= RPVK_SC_MAX_FAMILIES) {
		memcpy(x->families, a->pCreateInfo->pQueueFamilyIndices,
		       x->sc.info.queueFamilyIndexCount * sizeof(uint32_t));
		x->sc.info.pQueueFamilyIndices = x->families;
	} else {
		x->sc.info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
		x->sc.info.queueFamilyIndexCount = 0;
		x->sc.info.pQueueFamilyIndices = NULL;
	}
	fake = rpvk_fake_handle(r);
	if (rpvk_map_put(&r->swapchains, VK_OBJECT_TYPE_SWAPCHAIN_KHR, fake, (uint64_t)(uintptr_t)&x->sc, 0) != 0) {
		free(x);
		return rpvk_nomem(r);
	}
	rpvk_window_swapchain_create(r, &x->sc, (uint64_t)(uintptr_t)a->pCreateInfo->surface,
	                             rpvk_sc_find(r, a->pCreateInfo->oldSwapchain));
	return rpvk_bind(r, VK_OBJECT_TYPE_SWAPCHAIN_KHR, (uint64_t)(uintptr_t)*a->pSwapchain, fake);
}

/* Display swapchains (VK_KHR_display_swapchain): each made as
 * vkCreateSwapchainKHR makes one. */
rp_status rpvk_o_vkCreateSharedSwapchainsKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateSharedSwapchainsKHR *a = args;
	uint32_t i;
	if (!a->pCreateInfos || !a->pSwapchains)
		return rpvk_fail(r, RP_ERR_DECODE, "no create infos or output handles");
	for (i = 0; i < a->swapchainCount; i++) {
		sbt_vk_args_vkCreateSwapchainKHR one;
		rp_status st;
		one.device = a->device;
		one.pCreateInfo = &a->pCreateInfos[i];
		one.pAllocator = a->pAllocator;
		one.pSwapchain = &a->pSwapchains[i];
		one.ret = a->ret;
		st = rpvk_o_vkCreateSwapchainKHR(r, &one);
		if (st != RP_OK)
			return st;
	}
	return RP_OK;
}

rp_status rpvk_o_vkDestroySwapchainKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroySwapchainKHR *a = args;
	rpvk_swapchain *sc = rpvk_sc_find(r, a->swapchain);
	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device))
		return RP_ERR_BACKEND;
	if (sc) {
		r->dev[sc->dev].t.DeviceWaitIdle(r->dev[sc->dev].live);
		rpvk_sc_free(r, sc);
		rpvk_map_del(&r->swapchains, VK_OBJECT_TYPE_SWAPCHAIN_KHR, (uint64_t)(uintptr_t)a->swapchain);
	}
	rpvk_forget(r, VK_OBJECT_TYPE_SWAPCHAIN_KHR, (uint64_t)(uintptr_t)a->swapchain);
	return RP_OK;
}

/* Make the swapchain's n plain images (once). */
static rp_status rpvk_sc_images(rpvk *r, rpvk_swapchain *sc, uint32_t n)
{
	rpvk_device *dv = &r->dev[sc->dev];
	rpvk_phys *p = &r->phys[dv->phys];
	uint32_t i;
	if (sc->images)
		return n <= sc->count ? RP_OK
		                      : rpvk_fail(r, RP_ERR_UNSUPPORTED, "the swapchain has %u images, the "
		                                  "capture used index %u", sc->count, n - 1);
	sc->images = calloc(n ? n : 1, sizeof(*sc->images));
	sc->memory = calloc(n ? n : 1, sizeof(*sc->memory));
	if (!sc->images || !sc->memory)
		return rpvk_nomem(r);
	sc->count = n;
	for (i = 0; i < n; i++) {
		VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
		VkMemoryRequirements req;
		VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		VkResult res;
		int type;
		ci.imageType = VK_IMAGE_TYPE_2D;
		ci.format = sc->info.imageFormat;
		ci.extent.width = sc->info.imageExtent.width;
		ci.extent.height = sc->info.imageExtent.height;
		ci.extent.depth = 1;
		ci.mipLevels = 1;
		ci.arrayLayers = sc->info.imageArrayLayers ? sc->info.imageArrayLayers : 1;
		ci.samples = VK_SAMPLE_COUNT_1_BIT;
		ci.tiling = VK_IMAGE_TILING_OPTIMAL;
		ci.usage = sc->info.imageUsage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
		ci.sharingMode = sc->info.imageSharingMode;
		ci.queueFamilyIndexCount = sc->info.queueFamilyIndexCount;
		ci.pQueueFamilyIndices = sc->info.pQueueFamilyIndices;
		ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
		res = dv->t.CreateImage(dv->live, &ci, NULL, &sc->images[i]);
		if (res != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "offscreen swapchain: vkCreateImage (%ux%u, "
			                 "format %d) failed: %s", ci.extent.width, ci.extent.height,
			                 (int)ci.format, rpvk_result_name(res));
		dv->t.GetImageMemoryRequirements(dv->live, sc->images[i], &req);
		type = rpvk_memory_type(p, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
		if (type < 0)
			type = rpvk_memory_type(p, req.memoryTypeBits, 0);
		if (type < 0)
			return rpvk_fail(r, RP_ERR_BACKEND, "offscreen swapchain: no memory type for its images");
		ai.allocationSize = req.size;
		ai.memoryTypeIndex = (uint32_t)type;
		res = dv->t.AllocateMemory(dv->live, &ai, NULL, &sc->memory[i]);
		if (res == VK_SUCCESS)
			res = dv->t.BindImageMemory(dv->live, sc->images[i], sc->memory[i], 0);
		if (res != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "offscreen swapchain: image memory: %s",
			                 rpvk_result_name(res));
	}
	return RP_OK;
}

rp_status rpvk_o_vkGetSwapchainImagesKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkGetSwapchainImagesKHR *a = args;
	rpvk_swapchain *sc = rpvk_sc_find(r, a->swapchain);
	uint32_t i, n;
	rp_status st;
	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device))
		return RP_ERR_BACKEND;
	if (!sc)
		return rpvk_fail(r, RP_ERR_NOT_FOUND, "the swapchain was not created in this replay");
	if (!a->pSwapchainImages || !a->pSwapchainImageCount || a->ret < 0)
		return RP_OK; /* the count: answered from the capture */
	n = *a->pSwapchainImageCount;
	st = rpvk_sc_images(r, sc, n);
	if (st != RP_OK)
		return st;
	for (i = 0; i < n; i++)
		if (a->pSwapchainImages[i] &&
		    rpvk_map_put(&r->handles, VK_OBJECT_TYPE_IMAGE,
		                 (uint64_t)(uintptr_t)a->pSwapchainImages[i],
		                 (uint64_t)(uintptr_t)sc->images[i], RPVK_OWNER_SWAPCHAIN) != 0)
			return rpvk_nomem(r);
	return RP_OK;
}

/* An empty submit on the device's own queue: signal what acquire would. */
static rp_status rpvk_signal(rpvk *r, rpvk_swapchain *sc, VkSemaphore sem, VkFence fence)
{
	rpvk_device *dv = &r->dev[sc->dev];
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkResult res;
	if (!sem && !fence)
		return RP_OK;
	if (!dv->aux_queue)
		return rpvk_fail(r, RP_ERR_BACKEND, "offscreen acquire: the device has no queue of ours");
	si.signalSemaphoreCount = sem ? 1 : 0;
	si.pSignalSemaphores = &sem;
	res = dv->t.QueueSubmit(dv->aux_queue, 1, &si, fence);
	if (res != VK_SUCCESS)
		return rpvk_fail(r, RP_ERR_BACKEND, "offscreen acquire: empty submit failed: %s",
		                 rpvk_result_name(res));
	return RP_OK;
}

static rp_status rpvk_acquire(rpvk *r, VkDevice device, VkSwapchainKHR swapchain, VkSemaphore sem,
                              VkFence fence, const uint32_t *index, VkResult cap_ret)
{
	rpvk_swapchain *sc = rpvk_sc_find(r, swapchain);
	uint32_t need;
	rp_status st;
	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)device))
		return RP_ERR_BACKEND;
	if (!sc)
		return rpvk_fail(r, RP_ERR_NOT_FOUND, "the swapchain was not created in this replay");
	if (cap_ret != VK_SUCCESS && cap_ret != VK_SUBOPTIMAL_KHR)
		return RP_OK; /* nothing was acquired or signalled at capture */
	if (!index)
		return rpvk_fail(r, RP_ERR_DECODE, "no captured image index");
	need = *index + 1 > sc->info.minImageCount ? *index + 1 : sc->info.minImageCount;
	st = rpvk_sc_images(r, sc, sc->images ? *index + 1 : need);
	if (st != RP_OK)
		return st;
	rpvk_window_acquire_wait(r, sc);
	return rpvk_signal(r, sc, sem, fence);
}

rp_status rpvk_o_vkAcquireNextImageKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkAcquireNextImageKHR *a = args;
	return rpvk_acquire(r, a->device, a->swapchain, a->semaphore, a->fence, a->pImageIndex, a->ret);
}

rp_status rpvk_o_vkAcquireNextImage2KHR(rpvk *r, void *args)
{
	sbt_vk_args_vkAcquireNextImage2KHR *a = args;
	if (!a->pAcquireInfo)
		return rpvk_fail(r, RP_ERR_DECODE, "no acquire info");
	return rpvk_acquire(r, a->device, a->pAcquireInfo->swapchain, a->pAcquireInfo->semaphore,
	                    a->pAcquireInfo->fence, a->pImageIndex, a->ret);
}

/* ---- screenshots -------------------------------------------------------------------- */

static int rpvk_shot_wanted(const rpvk *r, uint64_t frame)
{
	size_t i;
	if (r->shot_all)
		return 1;
	for (i = 0; i < r->nshots && r->shots[i].first <= frame; i++)
		if (frame <= r->shots[i].last)
			return 1;
	return 0;
}

/* Byte order of a 4-byte pixel: 1 = BGRA, 0 = RGBA, -1 unsupported. */
static int rpvk_shot_order(VkFormat f)
{
	switch (f) {
	case VK_FORMAT_B8G8R8A8_UNORM:
	case VK_FORMAT_B8G8R8A8_SRGB:
		return 1;
	case VK_FORMAT_R8G8B8A8_UNORM:
	case VK_FORMAT_R8G8B8A8_SRGB:
	case VK_FORMAT_A8B8G8R8_UNORM_PACK32:
	case VK_FORMAT_A8B8G8R8_SRGB_PACK32:
		return 0;
	default:
		return -1;
	}
}

/* Frame N as frame_N.png (libpng; RGB, 8 bits, the alpha left out as in
 * the PPM). */
static rp_status rpvk_write_png(rpvk *r, uint64_t frame, const uint8_t *px, uint32_t w, uint32_t h,
                                int bgra)
{
	char path[1200];
	png_image img;
	uint8_t *rgb;
	size_t i, n = (size_t)w * h;
	rp_status st = RP_OK;
	snprintf(path, sizeof(path), "%s/frame_%llu.png", r->shot_dir, (unsigned long long)frame);
	rgb = malloc(n * 3 + 1);
	if (!rgb)
		return rpvk_nomem(r);
	for (i = 0; i < n; i++) {
		rgb[3 * i + 0] = px[4 * i + (bgra ? 2 : 0)];
		rgb[3 * i + 1] = px[4 * i + 1];
		rgb[3 * i + 2] = px[4 * i + (bgra ? 0 : 2)];
	}
	memset(&img, 0, sizeof(img));
	img.version = PNG_IMAGE_VERSION;
	img.width = w;
	img.height = h;
	img.format = PNG_FORMAT_RGB;
	if (!png_image_write_to_file(&img, path, 0, rgb, 0, NULL))
		st = rpvk_fail(r, RP_ERR_BACKEND, "screenshot: writing %s: %s", path, img.message);
	png_image_free(&img);
	free(rgb);
	if (st == RP_OK)
		r->shots_written++;
	return st;
}

static rp_status rpvk_write_ppm(rpvk *r, uint64_t frame, const uint8_t *px, uint32_t w, uint32_t h,
                                int bgra)
{
	char path[1200];
	uint8_t *row;
	uint32_t x, y;
	rp_status st = RP_OK;
	FILE *f;
	snprintf(path, sizeof(path), "%s/frame_%llu.ppm", r->shot_dir, (unsigned long long)frame);
	f = fopen(path, "wb");
	if (!f)
		return rpvk_fail(r, RP_ERR_BACKEND, "screenshot: cannot create %s: %s", path, strerror(errno));
	row = malloc((size_t)w * 3 + 1);
	if (!row) {
		st = rpvk_nomem(r);
		goto out_close;
	}
	fprintf(f, "P6\n%u %u\n255\n", w, h);
	for (y = 0; y < h; y++) {
		const uint8_t *s = px + (size_t)y * w * 4;
		for (x = 0; x < w; x++) {
			row[3 * x + 0] = s[4 * x + (bgra ? 2 : 0)];
			row[3 * x + 1] = s[4 * x + 1];
			row[3 * x + 2] = s[4 * x + (bgra ? 0 : 2)];
		}
		if (fwrite(row, 3, w, f) != w) {
			st = rpvk_fail(r, RP_ERR_BACKEND, "screenshot: writing %s: %s", path, strerror(errno));
			break;
		}
	}
	free(row);
out_close:
	if (fclose(f) != 0 && st == RP_OK)
		st = rpvk_fail(r, RP_ERR_BACKEND, "screenshot: writing %s: %s", path, strerror(errno));
	if (st == RP_OK)
		r->shots_written++;
	return st;
}

struct rpvk_sc_copy {
	VkImage image;
	uint32_t w, h;
};

/* The presentable image (GENERAL once presented offscreen) into dst. */
static void rpvk_sc_record(const rpvk_dtable *t, VkCommandBuffer cb, VkBuffer dst, void *ctx)
{
	const struct rpvk_sc_copy *x = ctx;
	VkImageMemoryBarrier ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
	VkBufferImageCopy copy = {0};

	ib.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
	ib.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	ib.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
	ib.newLayout = VK_IMAGE_LAYOUT_GENERAL;
	ib.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	ib.image = x->image;
	ib.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	ib.subresourceRange.levelCount = 1;
	ib.subresourceRange.layerCount = 1;
	t->CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
	                      0, NULL, 0, NULL, 1, &ib);
	copy.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	copy.imageSubresource.layerCount = 1;
	copy.imageExtent.width = x->w;
	copy.imageExtent.height = x->h;
	copy.imageExtent.depth = 1;
	t->CmdCopyImageToBuffer(cb, x->image, VK_IMAGE_LAYOUT_GENERAL, dst, 1, &copy);
}

/* Copy image idx of sc (in GENERAL, its work finished: mip 0, layer 0,
 * rows packed, size bytes) into *out (malloc'd, owned by the caller).
 * what names the use in messages ("screenshot"). */
static rp_status rpvk_sc_read(rpvk *r, rpvk_swapchain *sc, uint32_t idx, VkDeviceSize size,
                              const char *what, uint8_t **out)
{
	struct rpvk_sc_copy x = {sc->images[idx], sc->info.imageExtent.width,
	                         sc->info.imageExtent.height};
	rp_status st;

	*out = malloc(size ? (size_t)size : 1);
	if (!*out)
		return rpvk_nomem(r);
	st = rpvk_read_back(r, &r->dev[sc->dev], size, what, rpvk_sc_record, &x, *out);
	if (st != RP_OK) {
		free(*out);
		*out = NULL;
	}
	return st;
}

/* Image idx of sc as frame_N.ppm or frame_N.png (--screenshot-format). */
static rp_status rpvk_screenshot(rpvk *r, rpvk_swapchain *sc, uint32_t idx, uint64_t frame)
{
	uint32_t w = sc->info.imageExtent.width, h = sc->info.imageExtent.height;
	int order = rpvk_shot_order(sc->info.imageFormat);
	uint8_t *px;
	rp_status st;

	if (order < 0) {
		rpvk_warn(r, "screenshot of frame %llu skipped: image format %d is not 8-bit RGBA/BGRA",
		          (unsigned long long)frame, (int)sc->info.imageFormat);
		return RP_OK;
	}
	st = rpvk_sc_read(r, sc, idx, (VkDeviceSize)w * h * 4, "screenshot", &px);
	if (st != RP_OK)
		return st;
	st = r->shot_png ? rpvk_write_png(r, frame, px, w, h, order)
	                 : rpvk_write_ppm(r, frame, px, w, h, order);
	free(px);
	return st;
}

/* ---- frame hashes ---------------------------------------------------------------------- */

int rpvk_frame_checkpoint(rpvk *r, const sbt_checkpoint *cp, const void **bytes_out,
                          rp_status *st)
{
	rpvk_swapchain *sc = NULL;
	uint64_t live = 0, texel, pixels, first;
	uint32_t i, idx = 0, w, h;
	sbt_checkpoint mine = {0};
	uint8_t *px;

	if (!cp->call_seq || cp->call_seq != r->present_seq)
		return 0;
	r->seq = cp->call_seq;
	*st = RP_OK;
	*bytes_out = NULL;
	if (rpvk_lookup(r, VK_OBJECT_TYPE_SWAPCHAIN_KHR, cp->object, &live) != 0) {
		*st = RP_ERR_NOT_FOUND;
		return 1;
	}
	for (i = 0; i < r->npresented; i++)
		if (r->presented[i].swapchain == live) {
			sc = rpvk_sc_find(r, (VkSwapchainKHR)(uintptr_t)live);
			idx = r->presented[i].index;
			break;
		}
	if (!sc || !sc->images || idx >= sc->count) {
		*st = rpvk_fail(r, RP_ERR_TRACE, "frame %llu: checkpoint of swapchain 0x%llx, which "
		                "the present did not present (or whose image %u does not exist here)",
		                (unsigned long long)r->present_frame, (unsigned long long)cp->object,
		                idx);
		return 1;
	}
	w = sc->info.imageExtent.width;
	h = sc->info.imageExtent.height;
	pixels = (uint64_t)w * h;
	texel = pixels ? cp->length / pixels : 0;
	if (cp->offset != 0 || !texel || texel > 16 || texel * pixels != cp->length) {
		*st = rpvk_fail(r, RP_ERR_TRACE, "frame %llu: the frame hash covers [%llu, %llu), not "
		                "the whole %ux%u image", (unsigned long long)r->present_frame,
		                (unsigned long long)cp->offset,
		                (unsigned long long)(cp->offset + cp->length), w, h);
		return 1;
	}
	/* all the work the present waited for, on any queue */
	r->dev[sc->dev].t.DeviceWaitIdle(r->dev[sc->dev].live);
	*st = rpvk_sc_read(r, sc, idx, cp->length, "frame hash", &px);
	if (*st != RP_OK)
		return 1;
	free(r->fh_buf);
	r->fh_buf = px;
	*bytes_out = px;
	if (r->run > 1)
		return 1;
	/* counted and named here; the core compares too, and its mismatch
	 * makes the exit status 3 */
	r->frame_hashes++;
	if (sbt_checkpoint_compute(px, cp->length, &mine) != SBT_OK || mine.hash == cp->hash) {
		sbt_checkpoint_free(&mine);
		return 1;
	}
	first = 0;
	if (mine.block_size == cp->block_size && mine.nblocks == cp->nblocks && cp->block_hashes)
		for (i = 0; i < mine.nblocks; i++)
			if (mine.block_hashes[i] != cp->block_hashes[i]) {
				first = (uint64_t)i * mine.block_size;
				break;
			}
	sbt_checkpoint_free(&mine);
	r->frame_hashes_differ++;
	if (!r->frame_first_differ)
		r->frame_first_differ = r->present_frame;
	if (!r->quiet)
		fprintf(stderr, "tsreplay: vulkan: frame %llu (seq %llu vkQueuePresentKHR): the "
		        "presented image differs from the capture's (frame hash); first difference "
		        "in row %llu\n", (unsigned long long)r->present_frame,
		        (unsigned long long)cp->call_seq,
		        (unsigned long long)(first / ((uint64_t)w * texel)));
	return 1;
}

/* ---- present ------------------------------------------------------------------------- */

rp_status rpvk_o_vkQueuePresentKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkQueuePresentKHR *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->queue);
	const VkPresentInfoKHR *pi = a->pPresentInfo;
	VkResult cap_ret = a->ret;
	uint64_t frame;
	uint32_t i;
	rp_status st = RP_OK;

	if (!t)
		return RP_ERR_BACKEND;
	if (!pi)
		return rpvk_fail(r, RP_ERR_DECODE, "no present info");
	frame = r->frame_base + ++r->frames;
	/* what a frame hash of this present reads (rpvk_frame_checkpoint) */
	r->present_seq = r->seq;
	r->present_frame = frame;
	r->npresented = 0;
	for (i = 0; pi->pSwapchains && pi->pImageIndices && i < pi->swapchainCount &&
	     r->npresented < sizeof(r->presented) / sizeof(r->presented[0]); i++) {
		r->presented[r->npresented].swapchain = (uint64_t)(uintptr_t)pi->pSwapchains[i];
		r->presented[r->npresented].index = pi->pImageIndices[i];
		r->npresented++;
	}
	if (pi->waitSemaphoreCount && pi->pWaitSemaphores) {
		VkPipelineStageFlags *stages = rpvk_scratch(r, pi->waitSemaphoreCount * sizeof(*stages));
		VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
		VkResult res;
		if (!stages)
			return rpvk_nomem(r);
		for (i = 0; i < pi->waitSemaphoreCount; i++)
			stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
		si.waitSemaphoreCount = pi->waitSemaphoreCount;
		si.pWaitSemaphores = pi->pWaitSemaphores;
		si.pWaitDstStageMask = stages;
		res = t->QueueSubmit(a->queue, 1, &si, VK_NULL_HANDLE);
		if (res != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "present: the empty submit that waits failed: %s",
			                 rpvk_result_name(res));
	}
	if (rpvk_shot_wanted(r, frame) && pi->swapchainCount && pi->pSwapchains && pi->pImageIndices) {
		rpvk_swapchain *sc = rpvk_sc_find(r, pi->pSwapchains[0]);
		uint32_t idx = pi->pImageIndices[0];
		if (!sc || !sc->images || idx >= sc->count)
			return rpvk_fail(r, RP_ERR_BACKEND, "screenshot of frame %llu: image %u of the "
			                 "swapchain does not exist here", (unsigned long long)frame, idx);
		t->QueueWaitIdle(a->queue);
		st = rpvk_screenshot(r, sc, idx, frame);
	}
	/* Window mode: after the waits above, on the same queue. */
	for (i = 0; st == RP_OK && pi->pSwapchains && pi->pImageIndices && i < pi->swapchainCount; i++) {
		rpvk_swapchain *sc = rpvk_sc_find(r, pi->pSwapchains[i]);
		if (sc)
			rpvk_window_present(r, a->queue, sc, pi->pImageIndices[i]);
	}
	for (i = 0; pi->pResults && i < pi->swapchainCount; i++)
		pi->pResults[i] = VK_SUCCESS;
	a->ret = VK_SUCCESS;
	rpvk_result(r, cap_ret, a->ret);
	return st;
}
