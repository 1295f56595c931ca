/*
 * vkl_frame.c - TRACESMITH_FRAME_HASH=1: a checkpoint of every presented
 * image (docs/vulkan-layer.md, "Frame hashes").
 *
 * A program that only presents leaves nothing in host memory for the
 * replay to compare.  With the setting on, each vkQueuePresentKHR that is
 * recorded is preceded, on the presenting queue, by a submission of the
 * layer's own: it waits the present's semaphores (the application's
 * rendering is done), moves each presented image PRESENT_SRC_KHR ->
 * TRANSFER_SRC_OPTIMAL, copies it (mip 0, layer 0, rows packed) into a
 * host-visible buffer, moves it back to PRESENT_SRC_KHR, and signals a
 * semaphore of the layer's that the present waits instead.  The layer
 * waits for the copy and records the bytes as a checkpoint: call_seq the
 * vkQueuePresentKHR record, object the swapchain handle, offset 0, length
 * width * height * bytes per texel.  tsreplay reads the same image of its
 * plain swapchain and compares (replayer/vulkan/rpvk_swapchain.c).  All of
 * it happens before the present goes down, so no later record of another
 * thread can render into the image first.
 *
 * What it needs is had by hooking the device table (the next layer's
 * entry points the generated wrappers call): vkCreateSwapchainKHR adds
 * TRANSFER_SRC to the images' usage when the surface allows it (the
 * recorded create info stays the application's: the replay's plain images
 * have TRANSFER_SRC anyway) and learns the images, format and extent;
 * vkDestroySwapchainKHR forgets them; vkGetDeviceQueue(2) learn each
 * queue's family (the command pool must be of the presenting queue's).
 * None of the layer's own calls are recorded.
 *
 * Locking: vkl_frame_dev.mu guards everything in it; presents of one
 * device are hashed one at a time.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl.h"

#define VKL_FRAME_IMAGES 16 /* swapchain images a swapchain may have to be hashed */
#define VKL_FRAME_QUEUES 64 /* queues of a device whose family is known */
#define VKL_FRAME_PRESENT 8 /* swapchains of one present that are hashed */

typedef struct vkl_frame_sc {
	VkSwapchainKHR handle;
	VkFormat format;
	VkExtent2D extent;
	uint32_t texel; /* bytes per texel */
	uint32_t count;
	VkImage images[VKL_FRAME_IMAGES];
	VkSemaphore sems[VKL_FRAME_IMAGES]; /* the present waits on it; per image */
	struct vkl_frame_sc *next;
} vkl_frame_sc;

typedef struct vkl_frame_queue {
	VkQueue queue;
	uint32_t family;
} vkl_frame_queue;

struct vkl_frame_dev {
	PFN_vkCreateSwapchainKHR create_swapchain;
	PFN_vkDestroySwapchainKHR destroy_swapchain;
	PFN_vkGetDeviceQueue get_queue;
	PFN_vkGetDeviceQueue2 get_queue2;
	pthread_mutex_t mu;
	vkl_frame_sc *swapchains;
	vkl_frame_queue queues[VKL_FRAME_QUEUES];
	uint32_t nqueues;
	uint32_t family; /* of pool */
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkFence fence;
	VkBuffer buf;
	VkDeviceMemory mem;
	void *ptr;
	VkDeviceSize size;
	int warned; /* a failure was reported (once per device) */
};

/* Bytes per texel of the colour formats swapchains use; 0 for others. */
static uint32_t vkl_frame_texel(VkFormat f)
{
	switch (f) {
	case VK_FORMAT_R5G6B5_UNORM_PACK16:
	case VK_FORMAT_B5G6R5_UNORM_PACK16:
	case VK_FORMAT_R5G5B5A1_UNORM_PACK16:
	case VK_FORMAT_B5G5R5A1_UNORM_PACK16:
	case VK_FORMAT_A1R5G5B5_UNORM_PACK16:
	case VK_FORMAT_R4G4B4A4_UNORM_PACK16:
	case VK_FORMAT_B4G4R4A4_UNORM_PACK16:
		return 2;
	case VK_FORMAT_R8G8B8A8_UNORM:
	case VK_FORMAT_R8G8B8A8_SRGB:
	case VK_FORMAT_B8G8R8A8_UNORM:
	case VK_FORMAT_B8G8R8A8_SRGB:
	case VK_FORMAT_A8B8G8R8_UNORM_PACK32:
	case VK_FORMAT_A8B8G8R8_SRGB_PACK32:
	case VK_FORMAT_A2R10G10B10_UNORM_PACK32:
	case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
	case VK_FORMAT_B10G11R11_UFLOAT_PACK32:
		return 4;
	case VK_FORMAT_R16G16B16A16_UNORM:
	case VK_FORMAT_R16G16B16A16_SFLOAT:
		return 8;
	case VK_FORMAT_R32G32B32A32_SFLOAT:
		return 16;
	default:
		return 0;
	}
}

static void vkl_frame_warn(vkl_frame_dev *f, const char *why)
{
	if (f->warned)
		return;
	f->warned = 1;
	CAP_WARN("Vulkan layer: TRACESMITH_FRAME_HASH: %s; presents go on without their hash", why);
}

/* ---- the hooked device entry points ----------------------------------------- */

static vkl_frame_sc *vkl_frame_sc_find(vkl_frame_dev *f, VkSwapchainKHR sc)
{
	vkl_frame_sc *s;
	for (s = f->swapchains; s && s->handle != sc; s = s->next)
		;
	return s;
}

static void vkl_frame_sc_free(vkl_device *d, vkl_frame_sc *s)
{
	uint32_t i;
	for (i = 0; i < VKL_FRAME_IMAGES; i++)
		if (s->sems[i])
			d->table.DestroySemaphore(d->handle, s->sems[i], NULL);
	free(s);
}

static VKAPI_ATTR VkResult VKAPI_CALL vkl_frame_create_swapchain(
	VkDevice device, const VkSwapchainCreateInfoKHR *ci, const VkAllocationCallbacks *alloc,
	VkSwapchainKHR *out)
{
	vkl_device *d = vkl_device_get(device);
	vkl_frame_dev *f = d->frame;
	VkSwapchainCreateInfoKHR mine = *ci;
	VkSurfaceCapabilitiesKHR caps;
	PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR get_caps =
		d->instance->table.GetPhysicalDeviceSurfaceCapabilitiesKHR;
	uint32_t texel = vkl_frame_texel(ci->imageFormat), n = 0;
	vkl_frame_sc *s = NULL;
	VkResult ret;

	if (!texel)
		CAP_WARN("Vulkan layer: TRACESMITH_FRAME_HASH: swapchain format %d is not one the "
		         "layer hashes (8-bit RGBA/BGRA, 10-bit, 16-bit and 32-bit float RGBA, 16-bit "
		         "packed); its frames are not hashed", (int)ci->imageFormat);
	else if (!get_caps ||
	         get_caps(d->physical, ci->surface, &caps) != VK_SUCCESS ||
	         !(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT)) {
		CAP_WARN("Vulkan layer: TRACESMITH_FRAME_HASH: the surface's images cannot be copied "
		         "from (no TRANSFER_SRC usage); its frames are not hashed");
		texel = 0;
	}
	if (texel)
		mine.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
	ret = f->create_swapchain(device, &mine, alloc, out);
	if (ret < 0 || !texel)
		goto out;
	if (d->table.GetSwapchainImagesKHR(device, *out, &n, NULL) != VK_SUCCESS ||
	    n > VKL_FRAME_IMAGES) {
		CAP_WARN("Vulkan layer: TRACESMITH_FRAME_HASH: a swapchain of %" PRIu32 " images "
		         "(at most %d are hashed); its frames are not hashed", n, VKL_FRAME_IMAGES);
		goto out;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out;
	s->count = n;
	if (d->table.GetSwapchainImagesKHR(device, *out, &s->count, s->images) != VK_SUCCESS) {
		free(s);
		goto out;
	}
	s->handle = *out;
	s->format = ci->imageFormat;
	s->extent = ci->imageExtent;
	s->texel = texel;
	pthread_mutex_lock(&f->mu);
	s->next = f->swapchains;
	f->swapchains = s;
	pthread_mutex_unlock(&f->mu);
out:
	return ret;
}

static VKAPI_ATTR void VKAPI_CALL vkl_frame_destroy_swapchain(VkDevice device,
                                                             VkSwapchainKHR swapchain,
                                                             const VkAllocationCallbacks *alloc)
{
	vkl_device *d = vkl_device_get(device);
	vkl_frame_dev *f = d->frame;
	vkl_frame_sc **pp, *s = NULL;
	pthread_mutex_lock(&f->mu);
	for (pp = &f->swapchains; *pp; pp = &(*pp)->next)
		if ((*pp)->handle == swapchain) {
			s = *pp;
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&f->mu);
	f->destroy_swapchain(device, swapchain, alloc);
	if (s)
		vkl_frame_sc_free(d, s);
}

static void vkl_frame_queue_add(vkl_frame_dev *f, VkQueue queue, uint32_t family)
{
	uint32_t i;
	pthread_mutex_lock(&f->mu);
	for (i = 0; i < f->nqueues && f->queues[i].queue != queue; i++)
		;
	if (i == f->nqueues && f->nqueues < VKL_FRAME_QUEUES)
		f->queues[f->nqueues++].queue = queue;
	if (i < f->nqueues)
		f->queues[i].family = family;
	pthread_mutex_unlock(&f->mu);
}

static VKAPI_ATTR void VKAPI_CALL vkl_frame_get_queue(VkDevice device, uint32_t family,
                                                     uint32_t index, VkQueue *queue)
{
	vkl_frame_dev *f = vkl_device_get(device)->frame;
	f->get_queue(device, family, index, queue);
	if (*queue)
		vkl_frame_queue_add(f, *queue, family);
}

static VKAPI_ATTR void VKAPI_CALL vkl_frame_get_queue2(VkDevice device,
                                                      const VkDeviceQueueInfo2 *info,
                                                      VkQueue *queue)
{
	vkl_frame_dev *f = vkl_device_get(device)->frame;
	f->get_queue2(device, info, queue);
	if (*queue)
		vkl_frame_queue_add(f, *queue, info->queueFamilyIndex);
}

/* ---- device set-up ------------------------------------------------------------ */

void vkl_frame_device_init(vkl_device *d)
{
	vkl_frame_dev *f;
	if (d->disabled || !d->can_present || !cap_config_get()->frame_hash ||
	    !d->table.CreateSwapchainKHR || !d->table.DestroySwapchainKHR ||
	    !d->table.GetDeviceQueue)
		return;
	if (!d->set_loader_data) {
		CAP_WARN("Vulkan layer: TRACESMITH_FRAME_HASH: the loader gave no way to dispatch a "
		         "command buffer of the layer's; frames are not hashed");
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		CAP_WARN("Vulkan layer: TRACESMITH_FRAME_HASH: out of memory; frames are not hashed");
		return;
	}
	pthread_mutex_init(&f->mu, NULL);
	f->family = UINT32_MAX;
	f->create_swapchain = d->table.CreateSwapchainKHR;
	f->destroy_swapchain = d->table.DestroySwapchainKHR;
	f->get_queue = d->table.GetDeviceQueue;
	f->get_queue2 = d->table.GetDeviceQueue2;
	d->frame = f;
	d->table.CreateSwapchainKHR = vkl_frame_create_swapchain;
	d->table.DestroySwapchainKHR = vkl_frame_destroy_swapchain;
	d->table.GetDeviceQueue = vkl_frame_get_queue;
	if (f->get_queue2)
		d->table.GetDeviceQueue2 = vkl_frame_get_queue2;
}

static void vkl_frame_buffer_free(vkl_device *d, vkl_frame_dev *f)
{
	if (f->ptr)
		d->table.UnmapMemory(d->handle, f->mem);
	if (f->buf)
		d->table.DestroyBuffer(d->handle, f->buf, NULL);
	if (f->mem)
		d->table.FreeMemory(d->handle, f->mem, NULL);
	f->ptr = NULL;
	f->buf = VK_NULL_HANDLE;
	f->mem = VK_NULL_HANDLE;
	f->size = 0;
}

static void vkl_frame_pool_free(vkl_device *d, vkl_frame_dev *f)
{
	if (f->pool)
		d->table.DestroyCommandPool(d->handle, f->pool, NULL); /* frees cb */
	f->pool = VK_NULL_HANDLE;
	f->cb = VK_NULL_HANDLE;
	f->family = UINT32_MAX;
}

void vkl_frame_device_gone(vkl_device *d)
{
	vkl_frame_dev *f = d->frame;
	vkl_frame_sc *s, *next;
	if (!f)
		return;
	vkl_frame_pool_free(d, f);
	vkl_frame_buffer_free(d, f);
	if (f->fence)
		d->table.DestroyFence(d->handle, f->fence, NULL);
	for (s = f->swapchains; s; s = next) {
		next = s->next;
		vkl_frame_sc_free(d, s);
	}
	pthread_mutex_destroy(&f->mu);
	free(f);
	d->frame = NULL;
}

/* ---- at present ----------------------------------------------------------------- */

/* A command buffer of family's pool, a fence, and size bytes of
 * host-visible buffer; 0 on success, else the reason. */
static const char *vkl_frame_ready(vkl_device *d, vkl_frame_dev *f, uint32_t family,
                                   VkDeviceSize size)
{
	VkDevice dev = d->handle;
	if (!f->fence) {
		VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		if (d->table.CreateFence(dev, &fi, NULL, &f->fence) != VK_SUCCESS) {
			f->fence = VK_NULL_HANDLE;
			return "no fence";
		}
	}
	if (f->family != family) {
		VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
		VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
		vkl_frame_pool_free(d, f);
		pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
		pi.queueFamilyIndex = family;
		if (d->table.CreateCommandPool(dev, &pi, NULL, &f->pool) != VK_SUCCESS) {
			f->pool = VK_NULL_HANDLE;
			return "no command pool";
		}
		ai.commandPool = f->pool;
		ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		ai.commandBufferCount = 1;
		if (d->table.AllocateCommandBuffers(dev, &ai, &f->cb) != VK_SUCCESS ||
		    d->set_loader_data(dev, f->cb) != VK_SUCCESS) {
			vkl_frame_pool_free(d, f);
			return "no command buffer";
		}
		f->family = family;
	}
	if (f->size < size) {
		VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
		VkMemoryAllocateInfo mi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		const VkMemoryPropertyFlags host =
			VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
		VkMemoryRequirements req;
		uint32_t t, best = UINT32_MAX;
		vkl_frame_buffer_free(d, f);
		bi.size = size;
		bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
		bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
		if (d->table.CreateBuffer(dev, &bi, NULL, &f->buf) != VK_SUCCESS) {
			f->buf = VK_NULL_HANDLE;
			return "no buffer for the copy";
		}
		d->table.GetBufferMemoryRequirements(dev, f->buf, &req);
		/* host-visible and coherent; cached as well when there is such */
		for (t = 0; t < d->mem_props.memoryTypeCount; t++) {
			VkMemoryPropertyFlags fl = d->mem_props.memoryTypes[t].propertyFlags;
			if (!(req.memoryTypeBits & (1u << t)) || (fl & host) != host)
				continue;
			if (best == UINT32_MAX || (fl & VK_MEMORY_PROPERTY_HOST_CACHED_BIT))
				best = t;
			if (fl & VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
				break;
		}
		mi.allocationSize = req.size;
		mi.memoryTypeIndex = best;
		if (best == UINT32_MAX || d->table.AllocateMemory(dev, &mi, NULL, &f->mem) != VK_SUCCESS) {
			f->mem = VK_NULL_HANDLE;
			vkl_frame_buffer_free(d, f);
			return "no host-visible memory for the copy";
		}
		if (d->table.BindBufferMemory(dev, f->buf, f->mem, 0) != VK_SUCCESS ||
		    d->table.MapMemory(dev, f->mem, 0, VK_WHOLE_SIZE, 0, &f->ptr) != VK_SUCCESS) {
			f->ptr = NULL;
			vkl_frame_buffer_free(d, f);
			return "the copy's memory cannot be mapped";
		}
		f->size = size;
	}
	return NULL;
}

static void vkl_frame_barrier(vkl_device *d, VkCommandBuffer cb, VkImage image, int to_copy)
{
	VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
	b.srcAccessMask = to_copy ? VK_ACCESS_MEMORY_WRITE_BIT : 0;
	b.dstAccessMask = to_copy ? VK_ACCESS_TRANSFER_READ_BIT : 0;
	b.oldLayout = to_copy ? VK_IMAGE_LAYOUT_PRESENT_SRC_KHR : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	b.newLayout = to_copy ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL : VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
	b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	b.image = image;
	b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	b.subresourceRange.levelCount = 1;
	b.subresourceRange.layerCount = 1;
	d->table.CmdPipelineBarrier(cb,
	                            to_copy ? VK_PIPELINE_STAGE_ALL_COMMANDS_BIT
	                                    : VK_PIPELINE_STAGE_TRANSFER_BIT,
	                            to_copy ? VK_PIPELINE_STAGE_TRANSFER_BIT
	                                    : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
	                            0, 0, NULL, 0, NULL, 1, &b);
}

int vkl_frame_hash(vkl_device *d, VkQueue queue, const VkPresentInfoKHR *info, uint64_t seq,
                   VkPresentInfoKHR *down)
{
	vkl_frame_dev *f = d->frame;
	vkl_frame_sc *hashed[VKL_FRAME_PRESENT];
	uint32_t index[VKL_FRAME_PRESENT];
	VkDeviceSize offset[VKL_FRAME_PRESENT + 1];
	VkPipelineStageFlags stages[32];
	VkSemaphoreCreateInfo semi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkBufferMemoryBarrier bb = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkSemaphore *sem;
	const char *why = NULL;
	uint32_t i, n = 0, family = UINT32_MAX;
	int replaced = 0;

	if (!f || !seq || !info->pSwapchains || !info->pImageIndices)
		return 0;
	pthread_mutex_lock(&f->mu);
	for (i = 0; i < f->nqueues; i++)
		if (f->queues[i].queue == queue)
			family = f->queues[i].family;
	offset[0] = 0;
	for (i = 0; i < info->swapchainCount && n < VKL_FRAME_PRESENT; i++) {
		vkl_frame_sc *s = vkl_frame_sc_find(f, info->pSwapchains[i]);
		if (!s || info->pImageIndices[i] >= s->count)
			continue;
		hashed[n] = s;
		index[n] = info->pImageIndices[i];
		offset[n + 1] = offset[n] +
		                (VkDeviceSize)s->extent.width * s->extent.height * s->texel;
		n++;
	}
	if (!n)
		goto out;
	if (family == UINT32_MAX)
		why = "the presenting queue was not got through vkGetDeviceQueue(2)";
	else if (info->waitSemaphoreCount > sizeof(stages) / sizeof(stages[0]))
		why = "a present waits more than 32 semaphores";
	else
		why = vkl_frame_ready(d, f, family, offset[n]);
	sem = &hashed[0]->sems[index[0]];
	if (!why && !*sem && d->table.CreateSemaphore(d->handle, &semi, NULL, sem) != VK_SUCCESS) {
		*sem = VK_NULL_HANDLE;
		why = "no semaphore";
	}
	if (why)
		goto out;
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	if (d->table.BeginCommandBuffer(f->cb, &bi) != VK_SUCCESS) {
		why = "vkBeginCommandBuffer failed";
		goto out;
	}
	for (i = 0; i < n; i++) {
		VkBufferImageCopy copy = {0};
		VkImage image = hashed[i]->images[index[i]];
		copy.bufferOffset = offset[i];
		copy.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
		copy.imageSubresource.layerCount = 1;
		copy.imageExtent.width = hashed[i]->extent.width;
		copy.imageExtent.height = hashed[i]->extent.height;
		copy.imageExtent.depth = 1;
		vkl_frame_barrier(d, f->cb, image, 1);
		d->table.CmdCopyImageToBuffer(f->cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, f->buf,
		                              1, &copy);
		vkl_frame_barrier(d, f->cb, image, 0);
	}
	bb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bb.buffer = f->buf;
	bb.size = VK_WHOLE_SIZE;
	d->table.CmdPipelineBarrier(f->cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
	                            0, 0, NULL, 1, &bb, 0, NULL);
	if (d->table.EndCommandBuffer(f->cb) != VK_SUCCESS) {
		why = "vkEndCommandBuffer failed";
		goto out;
	}
	for (i = 0; i < info->waitSemaphoreCount; i++)
		stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
	si.waitSemaphoreCount = info->waitSemaphoreCount;
	si.pWaitSemaphores = info->pWaitSemaphores;
	si.pWaitDstStageMask = stages;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &f->cb;
	si.signalSemaphoreCount = 1;
	si.pSignalSemaphores = sem;
	if (d->table.QueueSubmit(queue, 1, &si, f->fence) != VK_SUCCESS) {
		why = "the copy's submit failed";
		goto out;
	}
	/* The application's semaphores are waited now: the present waits ours. */
	*down = *info;
	down->waitSemaphoreCount = 1;
	down->pWaitSemaphores = sem;
	replaced = 1;
	if (d->table.WaitForFences(d->handle, 1, &f->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS) {
		why = "waiting for the copy failed";
		goto out;
	}
	d->table.ResetFences(d->handle, 1, &f->fence);
	for (i = 0; i < n; i++)
		cap_checkpoint(seq, (uint64_t)(uintptr_t)hashed[i]->handle, 0,
		               (const uint8_t *)f->ptr + offset[i], offset[i + 1] - offset[i]);
out:
	if (why)
		vkl_frame_warn(f, why);
	pthread_mutex_unlock(&f->mu);
	return replaced;
}
