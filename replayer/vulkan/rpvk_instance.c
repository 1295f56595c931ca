/*
 * rpvk_instance.c - instances, physical devices, devices and the debug
 * objects: the overrides that set up what the generated glue dispatches on.
 *
 * Instance and device creation keep the application's extensions and
 * features (the layer let through only what the codec carries) and drop
 * what belonged to the capture's process: loader/layer pNext structures
 * (the codec never records them), debug callbacks (function pointers decode
 * as NULL) and the layers it enabled.  --validate adds
 * VK_LAYER_KHRONOS_validation.  Physical devices are mapped by enumeration
 * order, or all to the one --device names (an index or part of its name).
 *
 * Window mode (rpvk_window.c) adds what presenting to an X window needs:
 * VK_KHR_surface and VK_KHR_xcb_surface on instances that use surfaces,
 * VK_KHR_swapchain on their devices; their windows and live surfaces go
 * before the instance does.
 */
#include "replayer/vulkan/rpvk.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPVK_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* Unlink pNext structures the replay must not pass on. */
static void rpvk_strip_pnext(const void **pnext)
{
	VkBaseOutStructure **link = (VkBaseOutStructure **)pnext;
	while (*link) {
		VkStructureType st = (*link)->sType;
		if (st == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO ||
		    st == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO ||
		    st == VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT ||
		    st == VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT)
			*link = (*link)->pNext;
		else
			link = &(*link)->pNext;
	}
}

static int rpvk_instance_ext_supported(const char *name)
{
	uint32_t n = 0, i;
	VkExtensionProperties *props;
	int found = 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS)
		return 0;
	props = calloc(n ? n : 1, sizeof(*props));
	if (!props)
		return 0;
	if (vkEnumerateInstanceExtensionProperties(NULL, &n, props) >= 0)
		for (i = 0; i < n && !found; i++)
			found = strcmp(props[i].extensionName, name) == 0;
	free(props);
	return found;
}

/* ---- slots ------------------------------------------------------------------ */

/* *arr (*n slots of sz bytes) doubled, the new slots zeroed; 0 if out of
 * memory (*arr and *n unchanged). */
static int rpvk_slot_grow(void **arr, size_t *n, size_t sz)
{
	size_t want = *n ? *n * 2 : 4;
	char *p;
	if (want > INT32_MAX || want > SIZE_MAX / sz)
		return 0; /* slot indexes are kept in int32 (the owners map's aux) */
	p = realloc(*arr, want * sz);
	if (!p)
		return 0;
	memset(p + *n * sz, 0, (want - *n) * sz);
	*arr = p;
	*n = want;
	return 1;
}

/* A free slot of an array of *n slots of sz bytes whose first member is
 * the live dispatchable handle (NULL: free), the array grown if none is;
 * -1 if out of memory. */
static int rpvk_slot_take(void **arr, int *n, size_t sz)
{
	size_t cap = (size_t)*n;
	int i;
	for (i = 0; i < *n; i++) {
		void *live;
		memcpy(&live, (const char *)*arr + (size_t)i * sz, sizeof(live));
		if (!live)
			return i;
	}
	if (!rpvk_slot_grow(arr, &cap, sz))
		return -1;
	*n = (int)cap;
	return i;
}

_Static_assert(offsetof(rpvk_instance, live) == 0 && offsetof(rpvk_device, live) == 0,
               "rpvk_slot_take reads the live handle first");

static int rpvk_slot_instance(rpvk *r)
{
	void *arr = r->inst;
	int i = rpvk_slot_take(&arr, &r->ninst, sizeof(r->inst[0]));
	r->inst = arr;
	return i;
}

static int rpvk_slot_device(rpvk *r)
{
	void *arr = r->dev;
	int i = rpvk_slot_take(&arr, &r->ndev, sizeof(r->dev[0]));
	r->dev = arr;
	return i;
}

void rpvk_slots_free(rpvk *r)
{
	free(r->inst);
	free(r->dev);
	free(r->phys);
	r->inst = NULL;
	r->dev = NULL;
	r->phys = NULL;
	r->ninst = r->ndev = 0;
	r->nphys = 0;
}

rp_status rpvk_o_vkCreateInstance(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateInstance *a = args;
	VkInstanceCreateInfo *ci = (VkInstanceCreateInfo *)a->pCreateInfo;
	const char **exts, **layers;
	uint32_t i, ne = 0, nl = 0;
	uint64_t captured;
	VkInstance live = VK_NULL_HANDLE;
	VkResult cap_ret = a->ret;
	int slot, windowed;

	if (!ci || !a->pInstance)
		return rpvk_fail(r, RP_ERR_DECODE, "no create info or output handle");
	slot = rpvk_slot_instance(r);
	if (slot < 0)
		return rpvk_nomem(r);
	captured = (uint64_t)(uintptr_t)*a->pInstance;
	/* the loader and its layers crash on some versions no application
	 * asks for (0.513.0: SIGSEGV in the loader); 0 means 1.0 */
	if (ci->pApplicationInfo && ci->pApplicationInfo->apiVersion &&
	    (VK_API_VERSION_VARIANT(ci->pApplicationInfo->apiVersion) ||
	     VK_API_VERSION_MAJOR(ci->pApplicationInfo->apiVersion) != 1 ||
	     VK_API_VERSION_MINOR(ci->pApplicationInfo->apiVersion) > 15))
		return rpvk_fail(r, RP_ERR_TRACE, "apiVersion %u.%u.%u.%u is not a Vulkan 1.x version: a "
		                 "valid application never asks for it",
		                 VK_API_VERSION_VARIANT(ci->pApplicationInfo->apiVersion),
		                 VK_API_VERSION_MAJOR(ci->pApplicationInfo->apiVersion),
		                 VK_API_VERSION_MINOR(ci->pApplicationInfo->apiVersion),
		                 VK_API_VERSION_PATCH(ci->pApplicationInfo->apiVersion));
	rpvk_strip_pnext(&ci->pNext);
	exts = rpvk_scratch(r, (ci->enabledExtensionCount + 3) * sizeof(char *)); /* + window's */
	layers = rpvk_scratch(r, 2 * sizeof(char *));
	if (!exts || !layers)
		return rpvk_nomem(r);
	for (i = 0; i < ci->enabledExtensionCount; i++) {
		const char *e = ci->ppEnabledExtensionNames ? ci->ppEnabledExtensionNames[i] : NULL;
		if (!e)
			continue;
		if (!rpvk_instance_ext_supported(e)) {
			rpvk_warn(r, "seq %llu vkCreateInstance: instance extension %s is not available "
			          "here; replaying without it", (unsigned long long)r->seq, e);
			continue;
		}
		exts[ne++] = e;
	}
	windowed = rpvk_window_instance_exts(r, exts, &ne);
	if (r->validate)
		layers[nl++] = RPVK_VALIDATION_LAYER;
	ci->enabledExtensionCount = ne;
	ci->ppEnabledExtensionNames = ne ? exts : NULL;
	ci->enabledLayerCount = nl;
	ci->ppEnabledLayerNames = nl ? layers : NULL;
	a->ret = vkCreateInstance(ci, NULL, &live);
	if (a->ret == VK_ERROR_LAYER_NOT_PRESENT && r->validate)
		return rpvk_fail(r, RP_ERR_BACKEND, "--validate: %s is not installed",
		                 RPVK_VALIDATION_LAYER);
	rpvk_result(r, cap_ret, a->ret);
	if (a->ret != VK_SUCCESS)
		return rpvk_fail(r, RP_ERR_BACKEND, "vkCreateInstance failed here: %s (%d)",
		                 rpvk_result_name(a->ret), (int)a->ret);
	r->inst[slot].live = live;
	rpvk_itable_fill(&r->inst[slot].t, live, vkGetInstanceProcAddr);
	rpvk_window_instance_bind(r, slot, windowed);
	r->cur_inst = slot;
	return rpvk_bind(r, VK_OBJECT_TYPE_INSTANCE, captured, (uint64_t)(uintptr_t)live) == RP_OK
	           ? RP_OK : rpvk_nomem(r);
}

void rpvk_device_add_queue(rpvk *r, int d, VkQueue q)
{
	rpvk_device *dv = &r->dev[d];
	uint32_t i;
	for (i = 0; i < dv->nqueues; i++)
		if (dv->queues[i].live == q)
			return;
	if (dv->nqueues < RPVK_MAX_QUEUES)
		dv->queues[dv->nqueues++].live = q;
}

/* How long a checkpoint waits for a queue: work that waits on something
 * the trace signals later (a host-set event) would never finish first. */
#define RPVK_SETTLE_NS 2000000000ull

/*
 * The layer checkpoints every mapped range the device changed, also ranges
 * another thread's work writes: at capture that work had finished when the
 * checkpoint was taken, but the replay, running the calls one after the
 * other, only waited for what the checkpoint's own call waited for.  So
 * before a checkpoint every queue gets an empty submit with a fence of
 * ours, which signals once everything submitted before it has finished.
 */
void rpvk_device_settle(rpvk *r, int d)
{
	if (rpvk_device_idle(r, d, VK_NULL_HANDLE, RPVK_SETTLE_NS) == VK_TIMEOUT)
		rpvk_warn(r, "seq %llu: the device's queues did not finish within 2 s before a "
		          "checkpoint (work waiting on a later signal?)", (unsigned long long)r->seq);
}

VkResult rpvk_device_idle(rpvk *r, int d, VkQueue only, uint64_t timeout_ns)
{
	rpvk_device *dv;
	VkFence fences[RPVK_MAX_QUEUES];
	uint32_t i, n = 0;
	VkResult res;
	if (d < 0 || d >= r->ndev || !r->dev[d].live)
		return VK_SUCCESS;
	dv = &r->dev[d];
	if (only)
		rpvk_device_add_queue(r, d, only); /* a queue got some other way */
	for (i = 0; i < dv->nqueues; i++) {
		rpvk_queue *q = &dv->queues[i];
		if (only && q->live != only)
			continue;
		if (!q->fence) {
			VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
			if (dv->t.CreateFence(dv->live, &fi, NULL, &q->fence) != VK_SUCCESS)
				continue;
		}
		if (dv->t.QueueSubmit(q->live, 0, NULL, q->fence) == VK_SUCCESS)
			fences[n++] = q->fence;
	}
	if (!n)
		return VK_SUCCESS;
	res = dv->t.WaitForFences(dv->live, n, fences, VK_TRUE, timeout_ns);
	if (res == VK_SUCCESS) {
		dv->t.ResetFences(dv->live, n, fences);
		if (!only) {
			dv->pending = 0;
			rpvk_state_idle(r, d);
		}
		return VK_SUCCESS;
	}
	/* A fence still pending cannot be reused or destroyed: leave it. */
	for (i = 0; i < dv->nqueues; i++)
		if (dv->queues[i].fence && dv->t.GetFenceStatus(dv->live, dv->queues[i].fence) != VK_SUCCESS)
			dv->queues[i].fence = VK_NULL_HANDLE;
		else if (dv->queues[i].fence)
			dv->t.ResetFences(dv->live, 1, &dv->queues[i].fence);
	return res;
}

/*
 * A replay that stops early (a damaged trace, --range, an error) leaves the
 * trace's objects alive.  Destroy what device d still owns, children before
 * the objects they were made from, so the device goes down clean (the
 * validation layer reports every object left behind).  Memory and
 * swapchains are the memory and swapchain code's; command buffers and
 * descriptor sets go with their pools.
 */
static void rpvk_device_destroy_leftovers(rpvk *r, int d)
{
	static const VkObjectType rpvk_order[] = {
		VK_OBJECT_TYPE_FRAMEBUFFER, VK_OBJECT_TYPE_PIPELINE,
		VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
		VK_OBJECT_TYPE_DESCRIPTOR_POOL,
		VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, VK_OBJECT_TYPE_SHADER_MODULE,
		VK_OBJECT_TYPE_PIPELINE_CACHE, VK_OBJECT_TYPE_RENDER_PASS,
		VK_OBJECT_TYPE_IMAGE_VIEW, VK_OBJECT_TYPE_BUFFER_VIEW, VK_OBJECT_TYPE_SAMPLER,
		VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION, VK_OBJECT_TYPE_IMAGE,
		VK_OBJECT_TYPE_BUFFER, VK_OBJECT_TYPE_QUERY_POOL, VK_OBJECT_TYPE_EVENT,
		VK_OBJECT_TYPE_FENCE, VK_OBJECT_TYPE_SEMAPHORE, VK_OBJECT_TYPE_COMMAND_POOL,
	};
	rpvk_device *dv = &r->dev[d];
	VkDevice dev = dv->live;
	size_t k, i;
	for (k = 0; k < sizeof(rpvk_order) / sizeof(rpvk_order[0]); k++) {
		for (i = 0; i < r->handles.cap; i++) {
			rpvk_map_slot *s = &r->handles.slots[i];
			if (s->type != (uint32_t)rpvk_order[k] || s->aux != d || !s->val)
				continue;
			switch (rpvk_order[k]) {
#define RPVK_DESTROY(objtype, fn, vktype)                                          	case objtype:                                                                  		if (dv->t.fn)                                                              			dv->t.fn(dev, (vktype)(uintptr_t)s->val, NULL);                        		break;
			RPVK_DESTROY(VK_OBJECT_TYPE_FRAMEBUFFER, DestroyFramebuffer, VkFramebuffer)
			RPVK_DESTROY(VK_OBJECT_TYPE_PIPELINE, DestroyPipeline, VkPipeline)
			RPVK_DESTROY(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, DestroyDescriptorUpdateTemplate,
			             VkDescriptorUpdateTemplate)
			RPVK_DESTROY(VK_OBJECT_TYPE_PIPELINE_LAYOUT, DestroyPipelineLayout, VkPipelineLayout)
			RPVK_DESTROY(VK_OBJECT_TYPE_DESCRIPTOR_POOL, DestroyDescriptorPool, VkDescriptorPool)
			RPVK_DESTROY(VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, DestroyDescriptorSetLayout,
			             VkDescriptorSetLayout)
			RPVK_DESTROY(VK_OBJECT_TYPE_SHADER_MODULE, DestroyShaderModule, VkShaderModule)
			RPVK_DESTROY(VK_OBJECT_TYPE_PIPELINE_CACHE, DestroyPipelineCache, VkPipelineCache)
			RPVK_DESTROY(VK_OBJECT_TYPE_RENDER_PASS, DestroyRenderPass, VkRenderPass)
			RPVK_DESTROY(VK_OBJECT_TYPE_IMAGE_VIEW, DestroyImageView, VkImageView)
			RPVK_DESTROY(VK_OBJECT_TYPE_BUFFER_VIEW, DestroyBufferView, VkBufferView)
			RPVK_DESTROY(VK_OBJECT_TYPE_SAMPLER, DestroySampler, VkSampler)
			RPVK_DESTROY(VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION, DestroySamplerYcbcrConversion,
			             VkSamplerYcbcrConversion)
			RPVK_DESTROY(VK_OBJECT_TYPE_IMAGE, DestroyImage, VkImage)
			RPVK_DESTROY(VK_OBJECT_TYPE_BUFFER, DestroyBuffer, VkBuffer)
			RPVK_DESTROY(VK_OBJECT_TYPE_QUERY_POOL, DestroyQueryPool, VkQueryPool)
			RPVK_DESTROY(VK_OBJECT_TYPE_EVENT, DestroyEvent, VkEvent)
			RPVK_DESTROY(VK_OBJECT_TYPE_FENCE, DestroyFence, VkFence)
			RPVK_DESTROY(VK_OBJECT_TYPE_SEMAPHORE, DestroySemaphore, VkSemaphore)
			RPVK_DESTROY(VK_OBJECT_TYPE_COMMAND_POOL, DestroyCommandPool, VkCommandPool)
#undef RPVK_DESTROY
			default:
				break;
			}
			s->val = 0; /* destroyed: never again */
		}
	}
}

/* Destroy one device and everything of ours on it. */
static void rpvk_device_drop(rpvk *r, int d)
{
	rpvk_device *dv = &r->dev[d];
	uint32_t i;
	if (!dv->live)
		return;
	if (!dv->busy && rpvk_device_idle(r, d, VK_NULL_HANDLE, r->wait_ns) == VK_TIMEOUT)
		dv->busy = 1;
	if (dv->busy) {
		/* Its work never finished (a shader that loops, a wait on a signal
		 * that never comes): destroying it would wait for that work. */
		rpvk_warn(r, "a device was still busy %g s after the replay's last wait: left as it "
		          "is, not destroyed", (double)r->wait_ns / 1e9);
		r->inst[dv->inst].busy_device = 1;
		rpvk_map_del(&r->owners, VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)dv->live);
		memset(dv, 0, sizeof(*dv));
		return;
	}
	for (i = 0; i < dv->nqueues; i++)
		if (dv->queues[i].fence)
			dv->t.DestroyFence(dv->live, dv->queues[i].fence, NULL);
	rpvk_swapchain_destroy_all(r, d);
	rpvk_window_device_drop(r, d);
	rpvk_mem_forget_device(r, d);
	if (dv->aux_pool && dv->t.DestroyCommandPool)
		dv->t.DestroyCommandPool(dv->live, dv->aux_pool, NULL);
	if (dv->t.DestroyDevice)
		dv->t.DestroyDevice(dv->live, NULL);
	rpvk_map_del(&r->owners, VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)dv->live);
	memset(dv, 0, sizeof(*dv));
}

static void rpvk_instance_drop(rpvk *r, int i)
{
	size_t p;
	int d;
	if (!r->inst[i].live)
		return;
	for (d = 0; d < r->ndev; d++)
		if (r->dev[d].live && r->dev[d].inst == i)
			rpvk_device_drop(r, d);
	/* its physical devices' slots are free (a later instance's handles
	 * may have the same values) */
	for (p = 0; p < r->nphys; p++)
		if (r->phys[p].live && r->phys[p].inst == i)
			memset(&r->phys[p], 0, sizeof(r->phys[p]));
	rpvk_window_instance_drop(r, i);
	if (r->inst[i].t.DestroyInstance && !r->inst[i].busy_device)
		r->inst[i].t.DestroyInstance(r->inst[i].live, NULL);
	rpvk_map_del(&r->owners, VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)r->inst[i].live);
	memset(&r->inst[i], 0, sizeof(r->inst[i]));
}

void rpvk_instance_teardown(rpvk *r)
{
	int i;
	/* Let every device finish, destroy what the trace left alive, then the
	 * memory, then the devices it belongs to. */
	for (i = 0; i < r->ndev; i++)
		if (r->dev[i].live) {
			if (rpvk_device_idle(r, i, VK_NULL_HANDLE, r->wait_ns) == VK_TIMEOUT)
				r->dev[i].busy = 1; /* rpvk_device_drop leaves it */
			else
				rpvk_device_destroy_leftovers(r, i);
		}
	rpvk_mem_clear(r);
	for (i = 0; i < r->ndev; i++)
		rpvk_device_drop(r, i);
	for (i = 0; i < r->ninst; i++)
		rpvk_instance_drop(r, i);
}

rp_status rpvk_o_vkDestroyInstance(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroyInstance *a = args;
	int i;
	for (i = 0; i < r->ninst; i++)
		if (a->instance && r->inst[i].live == a->instance)
			rpvk_instance_drop(r, i);
	rpvk_forget(r, VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)a->instance);
	return RP_OK;
}

/* The phys[] slot of a live physical device, made on first sight; -1 if
 * out of memory. */
static int rpvk_phys_slot(rpvk *r, VkPhysicalDevice live, int inst)
{
	size_t i, free_slot = r->nphys;
	void *arr = r->phys;
	for (i = 0; i < r->nphys; i++) {
		if (r->phys[i].live == live)
			return (int)i;
		if (!r->phys[i].live && free_slot == r->nphys)
			free_slot = i;
	}
	if (free_slot == r->nphys) {
		if (!rpvk_slot_grow(&arr, &r->nphys, sizeof(r->phys[0])))
			return -1;
		r->phys = arr;
	}
	r->phys[free_slot].live = live;
	r->phys[free_slot].inst = inst;
	for (i = 0; i < VK_MAX_MEMORY_TYPES; i++)
		r->phys[free_slot].type_map[i] = (uint32_t)i;
	return (int)free_slot;
}

/* The live physical devices of the instance, and which one --device picks
 * (-1: none given: map by order). */
static rp_status rpvk_live_physdevs(rpvk *r, const rpvk_itable *t, VkInstance inst,
                                    VkPhysicalDevice **out, uint32_t *n_out, int *pick_out)
{
	uint32_t n = 0, i;
	VkPhysicalDevice *list;
	*pick_out = -1;
	if (t->EnumeratePhysicalDevices(inst, &n, NULL) != VK_SUCCESS || n == 0)
		return rpvk_fail(r, RP_ERR_BACKEND, "the replay's Vulkan has no physical device");
	list = rpvk_scratch(r, n * sizeof(*list));
	if (!list)
		return rpvk_nomem(r);
	if (t->EnumeratePhysicalDevices(inst, &n, list) < 0)
		return rpvk_fail(r, RP_ERR_BACKEND, "vkEnumeratePhysicalDevices failed here");
	if (r->device_sel) {
		unsigned long idx = 0;
		/* Only the device can refuse these, but the flag is still what is
		 * wrong: RP_ERR_USAGE (exit 2). */
		if (rpvk_device_index(r->device_sel, &idx)) {
			if (idx >= n)
				return rpvk_fail(r, RP_ERR_USAGE, "--device %s: the replay's Vulkan has %u "
				                 "physical device%s (indexes 0..%u)", r->device_sel, n,
				                 n == 1 ? "" : "s", n - 1);
			*pick_out = (int)idx;
		} else {
			for (i = 0; i < n && *pick_out < 0; i++) {
				VkPhysicalDeviceProperties p;
				t->GetPhysicalDeviceProperties(list[i], &p);
				if (strstr(p.deviceName, r->device_sel))
					*pick_out = (int)i;
			}
			if (*pick_out < 0)
				return rpvk_fail(r, RP_ERR_USAGE, "--device '%s': none of the %u physical "
				                 "devices has that in its name", r->device_sel, n);
		}
	}
	*out = list;
	*n_out = n;
	return RP_OK;
}

/* Bind captured physical devices to live ones: the k-th captured to the
 * k-th live (or the --device pick). */
static rp_status rpvk_bind_physdevs(rpvk *r, const rpvk_itable *t, VkInstance inst,
                                    const uint64_t *captured, uint32_t n)
{
	VkPhysicalDevice *live = NULL;
	uint32_t nlive = 0, k;
	int pick;
	rp_status st = rpvk_live_physdevs(r, t, inst, &live, &nlive, &pick);
	if (st != RP_OK)
		return st;
	for (k = 0; k < n; k++) {
		VkPhysicalDevice l = pick >= 0 ? live[pick] : live[k < nlive ? k : 0];
		if (pick < 0 && k >= nlive)
			rpvk_warn(r, "seq %llu: captured physical device %u has no counterpart here; "
			          "using device 0", (unsigned long long)r->seq, k);
		if (rpvk_phys_slot(r, l, r->cur_inst) < 0)
			return rpvk_nomem(r);
		if (captured[k] && rpvk_bind(r, VK_OBJECT_TYPE_PHYSICAL_DEVICE, captured[k],
		                             (uint64_t)(uintptr_t)l) != RP_OK)
			return rpvk_nomem(r);
	}
	return RP_OK;
}

rp_status rpvk_o_vkEnumeratePhysicalDevices(rpvk *r, void *args)
{
	sbt_vk_args_vkEnumeratePhysicalDevices *a = args;
	const rpvk_itable *t = rpvk_itable_for(r, (uint64_t)(uintptr_t)a->instance);
	uint32_t n;
	if (!t)
		return RP_ERR_BACKEND;
	if (!a->pPhysicalDevices || !a->pPhysicalDeviceCount)
		return RP_OK; /* a count query: answered from the capture */
	n = *a->pPhysicalDeviceCount;
	return rpvk_bind_physdevs(r, t, a->instance, (const uint64_t *)(const void *)a->pPhysicalDevices, n);
}

static rp_status rpvk_groups(rpvk *r, VkInstance instance, uint32_t *count,
                             VkPhysicalDeviceGroupProperties *groups)
{
	const rpvk_itable *t = rpvk_itable_for(r, (uint64_t)(uintptr_t)instance);
	uint32_t g, total = 0, k = 0;
	uint64_t *all;
	if (!t)
		return RP_ERR_BACKEND;
	if (!groups || !count)
		return RP_OK;
	for (g = 0; g < *count; g++)
		total += groups[g].physicalDeviceCount < VK_MAX_DEVICE_GROUP_SIZE
		             ? groups[g].physicalDeviceCount : VK_MAX_DEVICE_GROUP_SIZE;
	all = rpvk_scratch(r, (total ? total : 1) * sizeof(uint64_t));
	if (!all)
		return rpvk_nomem(r);
	for (g = 0; g < *count; g++) {
		uint32_t j;
		for (j = 0; j < groups[g].physicalDeviceCount && j < VK_MAX_DEVICE_GROUP_SIZE; j++)
			all[k++] = (uint64_t)(uintptr_t)groups[g].physicalDevices[j];
	}
	return rpvk_bind_physdevs(r, t, instance, all, total);
}

rp_status rpvk_o_vkEnumeratePhysicalDeviceGroups(rpvk *r, void *args)
{
	sbt_vk_args_vkEnumeratePhysicalDeviceGroups *a = args;
	return rpvk_groups(r, a->instance, a->pPhysicalDeviceGroupCount, a->pPhysicalDeviceGroupProperties);
}

rp_status rpvk_o_vkEnumeratePhysicalDeviceGroupsKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkEnumeratePhysicalDeviceGroupsKHR *a = args;
	return rpvk_groups(r, a->instance, a->pPhysicalDeviceGroupCount, a->pPhysicalDeviceGroupProperties);
}

static int rpvk_phys_index(const rpvk *r, VkPhysicalDevice live)
{
	size_t i;
	for (i = 0; i < r->nphys; i++)
		if (r->phys[i].live == live)
			return (int)i;
	return -1;
}

/* Live memory properties and the limits kept of a physical device, each
 * queried once (the memory properties may have come already from a
 * replayed vkGetPhysicalDeviceMemoryProperties, rpvk_memory.c). */
static void rpvk_phys_live_mem(rpvk *r, int p)
{
	const rpvk_itable *t;
	VkPhysicalDeviceProperties props;
	if (p < 0 || !r->inst[r->phys[p].inst].live)
		return;
	t = &r->inst[r->phys[p].inst].t;
	if (!r->phys[p].have_props) {
		t->GetPhysicalDeviceProperties(r->phys[p].live, &props);
		r->phys[p].atom = props.limits.nonCoherentAtomSize ? props.limits.nonCoherentAtomSize : 1;
		r->phys[p].max_colors = props.limits.maxColorAttachments;
		r->phys[p].have_props = 1;
	}
	if (r->phys[p].have_live)
		return;
	t->GetPhysicalDeviceMemoryProperties(r->phys[p].live, &r->phys[p].live_mem);
	r->phys[p].have_live = 1;
}

/* A trace made where a queue family had more queues than it has here
 * (a two-queue trace replayed on lavapipe, which has one): ask for what
 * the family has, and let vkGetDeviceQueue(2) wrap the captured indexes
 * onto those (rpvk_queue_remap).  Two captured queues then share a live
 * one, which runs their submits in the order they are replayed.  Counts
 * in dv->live_queues; out of memory only. */
static rp_status rpvk_device_fit_queues(rpvk *r, rpvk_device *dv, const rpvk_itable *t,
                                        VkPhysicalDevice phys, VkDeviceCreateInfo *ci)
{
	VkQueueFamilyProperties fam[RPVK_MAX_FAMILIES];
	VkDeviceQueueCreateInfo *qci;
	uint32_t nfam = RPVK_MAX_FAMILIES;

	if (!ci->pQueueCreateInfos || !ci->queueCreateInfoCount)
		return RP_OK;
	for (uint32_t q = 0; q < ci->queueCreateInfoCount; q++) {
		uint32_t f = ci->pQueueCreateInfos[q].queueFamilyIndex;
		if (f < RPVK_MAX_FAMILIES)
			dv->live_queues[f] = ci->pQueueCreateInfos[q].queueCount;
	}
	if (!t->GetPhysicalDeviceQueueFamilyProperties)
		return RP_OK;
	t->GetPhysicalDeviceQueueFamilyProperties(phys, &nfam, fam);
	qci = rpvk_scratch(r, ci->queueCreateInfoCount * sizeof(*qci));
	if (!qci)
		return RP_ERR_NOMEM;
	memcpy(qci, ci->pQueueCreateInfos, ci->queueCreateInfoCount * sizeof(*qci));
	for (uint32_t q = 0; q < ci->queueCreateInfoCount; q++) {
		uint32_t f = qci[q].queueFamilyIndex;
		if (f >= nfam || f >= RPVK_MAX_FAMILIES || !fam[f].queueCount ||
		    qci[q].queueCount <= fam[f].queueCount)
			continue;
		if (!r->quiet)
			fprintf(stderr, "tsreplay: vulkan: seq %llu vkCreateDevice: queue family %u has %u "
			        "queue%s here, the trace asked for %u: its queues share %s (index modulo %u)\n",
			        (unsigned long long)r->seq, f, fam[f].queueCount,
			        fam[f].queueCount == 1 ? "" : "s", qci[q].queueCount,
			        fam[f].queueCount == 1 ? "that one" : "those", fam[f].queueCount);
		qci[q].queueCount = fam[f].queueCount;
		dv->live_queues[f] = fam[f].queueCount;
	}
	ci->pQueueCreateInfos = qci;
	return RP_OK;
}

void rpvk_queue_remap(rpvk *r, enum sbt_vk_cmd cmd, void *args)
{
	VkDevice dev;
	uint32_t family, *index;

	if (cmd == SBT_VK_CMD_vkGetDeviceQueue) {
		sbt_vk_args_vkGetDeviceQueue *a = args;
		dev = a->device;
		family = a->queueFamilyIndex;
		index = &a->queueIndex;
	} else if (cmd == SBT_VK_CMD_vkGetDeviceQueue2) {
		sbt_vk_args_vkGetDeviceQueue2 *a = args;
		if (!a->pQueueInfo)
			return;
		dev = a->device;
		family = a->pQueueInfo->queueFamilyIndex;
		index = &((VkDeviceQueueInfo2 *)a->pQueueInfo)->queueIndex;
	} else {
		return;
	}
	for (int d = 0; d < r->ndev; d++)
		if (r->dev[d].live && r->dev[d].live == dev && family < RPVK_MAX_FAMILIES &&
		    r->dev[d].live_queues[family] && *index >= r->dev[d].live_queues[family])
			*index %= r->dev[d].live_queues[family];
}

rp_status rpvk_o_vkCreateDevice(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateDevice *a = args;
	const rpvk_itable *t = rpvk_itable_for(r, (uint64_t)(uintptr_t)a->physicalDevice);
	VkDeviceCreateInfo *ci = (VkDeviceCreateInfo *)a->pCreateInfo;
	VkResult cap_ret = a->ret;
	VkDevice live = VK_NULL_HANDLE;
	uint64_t captured;
	rpvk_device *dv = NULL;
	const char **exts;
	uint32_t ne;
	int d, p, windowed;

	if (!t)
		return RP_ERR_BACKEND;
	if (!ci || !a->pDevice)
		return rpvk_fail(r, RP_ERR_DECODE, "no create info or output handle");
	d = rpvk_slot_device(r);
	if (d < 0)
		return rpvk_nomem(r);
	dv = &r->dev[d];
	captured = (uint64_t)(uintptr_t)*a->pDevice;
	rpvk_strip_pnext(&ci->pNext);
	ci->enabledLayerCount = 0; /* deprecated device layers: the instance's apply */
	ci->ppEnabledLayerNames = NULL;
	exts = rpvk_scratch(r, (ci->enabledExtensionCount + 1) * sizeof(char *)); /* + window's */
	if (!exts)
		return rpvk_nomem(r);
	ne = ci->enabledExtensionCount;
	if (ne && ci->ppEnabledExtensionNames)
		memcpy(exts, ci->ppEnabledExtensionNames, ne * sizeof(char *));
	else
		ne = 0;
	windowed = rpvk_window_device_exts(r, r->cur_inst, a->physicalDevice, exts, &ne);
	ci->enabledExtensionCount = ne;
	ci->ppEnabledExtensionNames = ne ? exts : NULL;
	for (uint32_t q = 0; ci->pQueueCreateInfos && q < ci->queueCreateInfoCount; q++)
		if (ci->pQueueCreateInfos[q].queueFamilyIndex < RPVK_MAX_FAMILIES)
			dv->family_queues[ci->pQueueCreateInfos[q].queueFamilyIndex] +=
				ci->pQueueCreateInfos[q].queueCount;
	p = rpvk_phys_index(r, a->physicalDevice);
	if (p < 0)
		p = rpvk_phys_slot(r, a->physicalDevice, r->cur_inst);
	if (p < 0 || rpvk_device_fit_queues(r, dv, t, a->physicalDevice, ci) != RP_OK)
		return rpvk_nomem(r);
	a->ret = t->CreateDevice(a->physicalDevice, ci, NULL, &live);
	rpvk_result(r, cap_ret, a->ret);
	if (a->ret != VK_SUCCESS) {
		memset(dv->family_queues, 0, sizeof(dv->family_queues));
		memset(dv->live_queues, 0, sizeof(dv->live_queues));
		return rpvk_fail(r, RP_ERR_BACKEND, "vkCreateDevice failed here: %s (%d)",
		                 rpvk_result_name(a->ret), (int)a->ret);
	}
	dv->live = live;
	dv->inst = r->cur_inst;
	dv->phys = p;
	rpvk_dtable_fill(&dv->t, live, vkGetDeviceProcAddr);
	rpvk_window_device_bind(r, d, windowed, ci);
	rpvk_phys_live_mem(r, p);
	if (ci->queueCreateInfoCount && ci->pQueueCreateInfos) {
		dv->aux_family = ci->pQueueCreateInfos[0].queueFamilyIndex;
		if (ci->pQueueCreateInfos[0].flags == 0)
			dv->t.GetDeviceQueue(live, dv->aux_family, 0, &dv->aux_queue);
	}
	r->cur_dev = d;
	if (dv->aux_queue)
		rpvk_device_add_queue(r, d, dv->aux_queue);
	if (rpvk_bind(r, VK_OBJECT_TYPE_DEVICE, captured, (uint64_t)(uintptr_t)live) != RP_OK)
		return rpvk_nomem(r);
	/* Our own queue handle dispatches on this device too. */
	if (dv->aux_queue && rpvk_map_put(&r->owners, VK_OBJECT_TYPE_QUEUE,
	                                  (uint64_t)(uintptr_t)dv->aux_queue, 0, d) != 0)
		return rpvk_nomem(r);
	return RP_OK;
}

rp_status rpvk_o_vkDestroyDevice(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroyDevice *a = args;
	int d;
	if (!a->device)
		return RP_OK;
	for (d = 0; d < r->ndev; d++)
		if (r->dev[d].live == a->device) {
			/* memory objects of this device are freed with it */
			rpvk_device_drop(r, d);
		}
	rpvk_forget(r, VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)a->device);
	return RP_OK;
}

/* ---- queries answered from the capture ------------------------------------- */

#define RPVK_FROM_CAPTURE(name)                        \
	rp_status rpvk_o_##name(rpvk *r, void *args)       \
	{                                                  \
		(void)r;                                       \
		(void)args;                                    \
		return RP_OK;                                  \
	}

RPVK_FROM_CAPTURE(vkGetInstanceProcAddr)
RPVK_FROM_CAPTURE(vkGetDeviceProcAddr)
RPVK_FROM_CAPTURE(vkEnumerateInstanceExtensionProperties)
RPVK_FROM_CAPTURE(vkEnumerateInstanceLayerProperties)
RPVK_FROM_CAPTURE(vkEnumerateInstanceVersion)
RPVK_FROM_CAPTURE(vkEnumerateDeviceExtensionProperties)
RPVK_FROM_CAPTURE(vkEnumerateDeviceLayerProperties)

/* ---- debug objects ------------------------------------------------------------- */

/* The capture's callbacks are not in the trace (their pointers decode as
 * NULL): the messengers exist only as fake handles here. */
rp_status rpvk_o_vkCreateDebugUtilsMessengerEXT(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateDebugUtilsMessengerEXT *a = args;
	if (a->pMessenger && *a->pMessenger && a->ret == VK_SUCCESS)
		return rpvk_bind(r, VK_OBJECT_TYPE_DEBUG_UTILS_MESSENGER_EXT,
		                 (uint64_t)(uintptr_t)*a->pMessenger, rpvk_fake_handle(r));
	return RP_OK;
}

rp_status rpvk_o_vkDestroyDebugUtilsMessengerEXT(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroyDebugUtilsMessengerEXT *a = args;
	rpvk_forget(r, VK_OBJECT_TYPE_DEBUG_UTILS_MESSENGER_EXT, (uint64_t)(uintptr_t)a->messenger);
	return RP_OK;
}

rp_status rpvk_o_vkCreateDebugReportCallbackEXT(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateDebugReportCallbackEXT *a = args;
	if (a->pCallback && *a->pCallback && a->ret == VK_SUCCESS)
		return rpvk_bind(r, VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT,
		                 (uint64_t)(uintptr_t)*a->pCallback, rpvk_fake_handle(r));
	return RP_OK;
}

rp_status rpvk_o_vkDestroyDebugReportCallbackEXT(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroyDebugReportCallbackEXT *a = args;
	rpvk_forget(r, VK_OBJECT_TYPE_DEBUG_REPORT_CALLBACK_EXT, (uint64_t)(uintptr_t)a->callback);
	return RP_OK;
}

/* Names and tags: the handle travels as a u64 with its type beside it;
 * objects unknown here (or fake) are skipped, since names change nothing. */
static int rpvk_debug_object(rpvk *r, VkObjectType type, uint64_t *handle)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->handles, (uint32_t)type, *handle);
	if (!s || s->val >= 0x7f5e000000000000ull)
		return 0;
	*handle = s->val;
	return 1;
}

rp_status rpvk_o_vkSetDebugUtilsObjectNameEXT(rpvk *r, void *args)
{
	sbt_vk_args_vkSetDebugUtilsObjectNameEXT *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkDebugUtilsObjectNameInfoEXT *ni = (VkDebugUtilsObjectNameInfoEXT *)a->pNameInfo;
	if (!t)
		return RP_ERR_BACKEND;
	if (!ni || !t->SetDebugUtilsObjectNameEXT || !rpvk_debug_object(r, ni->objectType, &ni->objectHandle))
		return RP_OK;
	a->ret = t->SetDebugUtilsObjectNameEXT(a->device, ni);
	return RP_OK;
}

rp_status rpvk_o_vkSetDebugUtilsObjectTagEXT(rpvk *r, void *args)
{
	sbt_vk_args_vkSetDebugUtilsObjectTagEXT *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkDebugUtilsObjectTagInfoEXT *ti = (VkDebugUtilsObjectTagInfoEXT *)a->pTagInfo;
	if (!t)
		return RP_ERR_BACKEND;
	if (!ti || !t->SetDebugUtilsObjectTagEXT || !rpvk_debug_object(r, ti->objectType, &ti->objectHandle))
		return RP_OK;
	a->ret = t->SetDebugUtilsObjectTagEXT(a->device, ti);
	return RP_OK;
}
