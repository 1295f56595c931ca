/*
 * vk_null.c - a null Vulkan device for fuzzing tsreplay's Vulkan backend
 * without a driver (issue 12, docs/hostile-traces.md "Fuzzing").
 *
 * A program linked with this file instead of -lvulkan gets its
 * vkCreateInstance, vkGetInstanceProcAddr, vkGetDeviceProcAddr and
 * vkEnumerateInstanceExtensionProperties, so the backend (which reaches
 * every other function through those) runs against it.  It executes no
 * work: it keeps the state of the objects it made and checks what it is
 * handed, the way a driver would trip over it, and aborts with a message
 * naming the call (a crash of the fuzz target) where a real driver would
 * read or write memory it must not:
 *
 *   - every handle is a heap object of its own, freed when destroyed: a
 *     destroyed handle handed back is a heap-use-after-free under ASan, and
 *     an object of another type a "handle of type A where B" abort;
 *   - a vkCmd* on a command buffer that is not recording, a submit of one
 *     that is not executable;
 *   - buffer and image regions (copies, fills, updates, binds, maps)
 *     outside their resources;
 *   - an object destroyed, or memory freed, while a submitted command
 *     buffer that uses it (directly, or through a descriptor set bound in
 *     it, or a view of it) has not been waited for: submits complete only
 *     when a fence of theirs, or a later one on the same queue, is waited
 *     for or seen signalled, or the queue or device is waited idle;
 *   - a submit of a command buffer with a draw or dispatch whose
 *     pipeline's shaders statically use a descriptor binding of a bound
 *     set that no write or copy reached, unless the set's layout makes the
 *     binding PARTIALLY_BOUND, gives it no descriptors, or gives it only
 *     immutable samplers (the specification lets such bindings, and those
 *     no shader uses, stay unwritten).  "Statically used": an instruction
 *     of a function of the module names the variable decorated with that
 *     set and binding (a load, store, access chain, copy, atomic, array
 *     length, image texel pointer, function call argument); entry points
 *     are not told apart;
 *   - a wait without a timeout for a fence no submit signals (it would
 *     never return).
 * Functions it does not implement are missing (vkGet*ProcAddr returns
 * NULL): the backend says so and stops, as on a driver without them.
 *
 * One null "driver" per process (its state is this file's, like a real
 * driver's); not thread-safe (the replay is single-threaded).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "tests/fuzz/vk_null.h"

/* The stubs take the full parameter lists of the API and use what they
 * check. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define VN_MAGIC 0x4e554c4cu
#define VN_HEAP ((VkDeviceSize)256 << 20)
#define VN_QUEUES 4u
#define VN_REFS_MAX 4096u
#define VN_SETS 8u                 /* descriptor sets bound per bind point */
#define VN_SPV_MAX_IDS (1u << 22)

/* A binding of a descriptor set layout (a set keeps a copy). */
typedef struct vn_dbind {
	uint32_t binding, count;
	uint8_t must_write;        /* not PARTIALLY_BOUND, descriptors, not only
	                              immutable samplers */
	uint8_t written;           /* sets: a write or copy reached it */
} vn_dbind;

/* An object a descriptor set holds, and the (binding, element) a write
 * or copy put it in (in the write's own terms: a write spilling into the
 * next binding keeps its first binding's numbers). */
typedef struct vn_slot {
	uint32_t binding, elem;
	struct vn_obj *obj;
} vn_slot;

/* A (set, binding) a shader statically uses; for a command buffer's
 * draws and dispatches, the set object and its binding's index too. */
typedef struct vn_use {
	uint32_t set, binding;
	struct vn_obj *dset;
	uint32_t index;
} vn_use;

typedef struct vn_obj vn_obj;
struct vn_obj {
	uint32_t magic;
	VkObjectType type;
	vn_obj *next, *prev;       /* every live object */
	/* buffers, memory: size; images: their create info */
	VkDeviceSize size;
	VkFormat format;
	VkExtent3D extent;
	uint32_t mips, layers;
	vn_obj *mem;               /* buffers, images: memory bound; views: their
	                              buffer or image */
	VkDeviceSize mem_off;
	uint8_t *host;             /* memory: host bytes, made on first map (owned) */
	int mapped;
	/* command buffers */
	int state;                 /* 0 initial, 1 recording, 2 executable; sets:
	                              3 once an object it holds went */
	int invalid;               /* command buffers: an object it uses went */
	int written;               /* descriptor sets: a write or copy reached it */
	vn_obj *pend_queue;        /* submitted to (NULL: not pending) */
	uint64_t pend_serial;
	vn_obj *pool;              /* command buffers, sets: their pool */
	/* command buffers: objects its commands name; sets: what was written */
	vn_obj **refs;
	uint32_t nrefs, refs_cap;
	/* queues: submits made and finished; fences: the submit that signals */
	uint64_t serial, done;
	vn_obj *fence_queue;
	int signaled;
	/* set layouts, sets: the bindings, sorted by number (owned) */
	vn_dbind *binds;
	uint32_t nbinds;
	/* shader modules, pipelines: the (set, binding) pairs used; command
	 * buffers: the set bindings its draws and dispatches read (owned) */
	vn_use *uses;
	uint32_t nuses, uses_cap;
	/* command buffers: per bind point (graphics, compute) the pipeline and
	 * the sets bound */
	vn_obj *bound_pipe[2];
	vn_obj *bound_set[2][VN_SETS];
	/* sets: what each descriptor holds (owned); refs are made from them,
	 * so an object a later write replaced is no longer the set's */
	vn_slot *slots;
	uint32_t nslots, slots_cap;
};

static struct {
	vn_obj head;               /* list of live objects */
	int init;
	struct vn_obj phys;
	uint64_t abort_count;
} vn_g;

static void vn_report(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void vn_report(const char *call, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "vk_null: %s: ", call);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (the replay handed the device what a driver may crash on)\n");
	abort();
}

static void vn_init(void)
{
	if (vn_g.init)
		return;
	vn_g.head.next = vn_g.head.prev = &vn_g.head;
	vn_g.phys.magic = VN_MAGIC;
	vn_g.phys.type = VK_OBJECT_TYPE_PHYSICAL_DEVICE;
	vn_g.init = 1;
}

static vn_obj *vn_new(VkObjectType type)
{
	vn_obj *o = calloc(1, sizeof(*o));
	vn_init();
	if (!o)
		return NULL;
	o->magic = VN_MAGIC;
	o->type = type;
	o->next = vn_g.head.next;
	o->prev = &vn_g.head;
	vn_g.head.next->prev = o;
	vn_g.head.next = o;
	return o;
}

static const char *vn_type_name(VkObjectType t)
{
	switch (t) {
	case VK_OBJECT_TYPE_BUFFER: return "buffer";
	case VK_OBJECT_TYPE_IMAGE: return "image";
	case VK_OBJECT_TYPE_DEVICE_MEMORY: return "memory";
	case VK_OBJECT_TYPE_COMMAND_BUFFER: return "command buffer";
	case VK_OBJECT_TYPE_DESCRIPTOR_SET: return "descriptor set";
	case VK_OBJECT_TYPE_IMAGE_VIEW: return "image view";
	case VK_OBJECT_TYPE_BUFFER_VIEW: return "buffer view";
	case VK_OBJECT_TYPE_SAMPLER: return "sampler";
	case VK_OBJECT_TYPE_FENCE: return "fence";
	default: return "object";
	}
}

/* The object behind a handle the caller passes; NULL for VK_NULL_HANDLE. */
static vn_obj *vn_get(uint64_t h, VkObjectType type, const char *call)
{
	vn_obj *o = (vn_obj *)(uintptr_t)h;
	if (!h)
		return NULL;
	if (o->magic != VN_MAGIC)
		vn_report(call, "handle 0x%llx is not a live object", (unsigned long long)h);
	if (o->type != type)
		vn_report(call, "handle 0x%llx is a %s (type %d) where a %s (type %d) belongs",
		          (unsigned long long)h, vn_type_name(o->type), (int)o->type, vn_type_name(type),
		          (int)type);
	return o;
}

#define VN_GET(h, type, call) vn_get((uint64_t)(uintptr_t)(h), type, call)
#define VN_H(o) ((uint64_t)(uintptr_t)(o))

static void vn_refs_add(vn_obj *o, vn_obj *ref)
{
	if (!ref || o->nrefs >= VN_REFS_MAX)
		return;
	for (uint32_t i = 0; i < o->nrefs; i++)
		if (o->refs[i] == ref)
			return;
	if (o->nrefs == o->refs_cap) {
		uint32_t ncap = o->refs_cap ? 2 * o->refs_cap : 8;
		vn_obj **n = realloc(o->refs, ncap * sizeof(*n));
		if (!n)
			return;
		o->refs = n;
		o->refs_cap = ncap;
	}
	o->refs[o->nrefs++] = ref;
}

static void vn_refs_drop(vn_obj *o, vn_obj *ref)
{
	for (uint32_t i = 0; i < o->nrefs; i++)
		if (o->refs[i] == ref)
			o->refs[i--] = o->refs[--o->nrefs];
}

/* Whether a submitted command buffer has not been waited for. */
static int vn_pending(const vn_obj *cb)
{
	return cb->pend_queue && cb->pend_serial > cb->pend_queue->done;
}

/* Whether reaching ref (through views, sets, memory binds) uses x. */
static int vn_uses(const vn_obj *ref, const vn_obj *x, int depth)
{
	if (ref == x)
		return 1;
	if (depth > 3)
		return 0;
	if (ref->mem && vn_uses(ref->mem, x, depth + 1))
		return 1;
	for (uint32_t i = 0; i < ref->nrefs; i++)
		if (vn_uses(ref->refs[i], x, depth + 1))
			return 1;
	return 0;
}

/* x goes away (destroyed, freed): no pending command buffer may use it; a
 * command buffer that does becomes invalid (submitting it is a use after
 * free), a descriptor set that holds it stale until written again; other
 * objects forget it. */
static void vn_gone(vn_obj *x, const char *call)
{
	for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next) {
		int uses = 0;
		if (o == x || x->type == VK_OBJECT_TYPE_COMMAND_BUFFER)
			continue;
		for (uint32_t i = 0; i < o->nrefs && !uses; i++)
			uses = vn_uses(o->refs[i], x, 0);
		if (!uses)
			continue;
		if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && vn_pending(o))
			vn_report(call, "the %s goes while a submitted command buffer that uses it has not "
			          "been waited for (use after free on a device)", vn_type_name(x->type));
		if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER)
			o->invalid = 1;
		if (o->type == VK_OBJECT_TYPE_DESCRIPTOR_SET)
			o->state = 3;
	}
	for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next) {
		if (o->mem == x)
			o->mem = NULL;
		if (o->pool == x)
			o->pool = NULL;
		if (o->pend_queue == x)
			o->pend_queue = NULL;
		if (o->fence_queue == x)
			o->fence_queue = NULL;
		for (uint32_t bp = 0; bp < 2; bp++) {
			if (o->bound_pipe[bp] == x)
				o->bound_pipe[bp] = NULL;
			for (uint32_t k = 0; k < VN_SETS; k++)
				if (o->bound_set[bp][k] == x)
					o->bound_set[bp][k] = NULL;
		}
		if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER)
			for (uint32_t k = 0; k < o->nuses; k++)
				if (o->uses[k].dset == x)
					o->uses[k--] = o->uses[--o->nuses];
		vn_refs_drop(o, x);
		for (uint32_t k = 0; k < o->nslots; k++)
			if (o->slots[k].obj == x)
				o->slots[k--] = o->slots[--o->nslots];
	}
}

static void vn_free(vn_obj *o, const char *call)
{
	if (!o)
		return;
	if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && vn_pending(o))
		vn_report(call, "a submitted command buffer is freed before it was waited for");
	vn_gone(o, call);
	o->prev->next = o->next;
	o->next->prev = o->prev;
	o->magic = 0;
	free(o->refs);
	free(o->host);
	free(o->binds);
	free(o->uses);
	free(o->slots);
	free(o);
}

/* Free every object whose pool (or owner) is pool. */
static void vn_free_pooled(vn_obj *pool, const char *call)
{
	vn_obj *o = vn_g.head.next;
	while (o != &vn_g.head) {
		vn_obj *next = o->next;
		if (o->pool == pool) {
			vn_free(o, call);
			next = vn_g.head.next; /* the list changed: start over */
		}
		o = next;
	}
}

/* out: a VkX handle of any type (8 bytes); written with memcpy, since a
 * dispatchable handle is a pointer and a uint64_t store may not alias it. */
static VkResult vn_create(VkObjectType type, void *out)
{
	vn_obj *o = vn_new(type);
	uint64_t h;
	if (!o)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	h = VN_H(o);
	memcpy(out, &h, sizeof(h));
	return VK_SUCCESS;
}

#define VN_CREATE(type, out) vn_create(type, (out))

/* ---- instance and physical device -------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *n,
                                                                      VkExtensionProperties *props)
{
	*n = 0;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vkCreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *alloc,
                                                VkInstance *out)
{
	if (ci && ci->enabledLayerCount)
		return VK_ERROR_LAYER_NOT_PRESENT;
	return VN_CREATE(VK_OBJECT_TYPE_INSTANCE, out);
}

static void VKAPI_CALL vn_DestroyInstance(VkInstance inst, const VkAllocationCallbacks *alloc)
{
	vn_free(VN_GET(inst, VK_OBJECT_TYPE_INSTANCE, "vkDestroyInstance"), "vkDestroyInstance");
}

static VkResult VKAPI_CALL vn_EnumeratePhysicalDevices(VkInstance inst, uint32_t *n, VkPhysicalDevice *out)
{
	VN_GET(inst, VK_OBJECT_TYPE_INSTANCE, "vkEnumeratePhysicalDevices");
	if (out && *n >= 1)
		out[0] = (VkPhysicalDevice)&vn_g.phys;
	if (out && *n < 1)
		return VK_INCOMPLETE;
	*n = 1;
	return VK_SUCCESS;
}

static void VKAPI_CALL vn_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p)
{
	memset(p, 0, sizeof(*p));
	p->apiVersion = VK_API_VERSION_1_3;
	p->vendorID = 0x10005;
	p->deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
	snprintf(p->deviceName, sizeof(p->deviceName), "TraceSmith null device");
	p->limits.nonCoherentAtomSize = 64;
	p->limits.maxMemoryAllocationCount = 4096;
	p->limits.timestampPeriod = 1.0f;
	p->limits.timestampComputeAndGraphics = VK_TRUE;
	p->limits.minStorageBufferOffsetAlignment = 16;
	p->limits.minUniformBufferOffsetAlignment = 16;
	p->limits.maxBoundDescriptorSets = 8;
	p->limits.maxImageDimension2D = 16384;
}

static void VKAPI_CALL vn_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p)
{
	vn_GetPhysicalDeviceProperties(pd, &p->properties);
}

static void VKAPI_CALL vn_GetPhysicalDeviceFeatures(VkPhysicalDevice pd, VkPhysicalDeviceFeatures *f)
{
	memset(f, 0, sizeof(*f));
}

static void VKAPI_CALL vn_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f)
{
	memset(&f->features, 0, sizeof(f->features));
}

static void VKAPI_CALL vn_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice pd,
                                                            VkPhysicalDeviceMemoryProperties *m)
{
	static const VkMemoryPropertyFlags types[] = {
		VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
			VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
			VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
		VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
	};
	memset(m, 0, sizeof(*m));
	m->memoryHeapCount = 1;
	m->memoryHeaps[0].size = VN_HEAP;
	m->memoryHeaps[0].flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
	m->memoryTypeCount = sizeof(types) / sizeof(types[0]);
	for (uint32_t i = 0; i < m->memoryTypeCount; i++)
		m->memoryTypes[i].propertyFlags = types[i];
}

static void VKAPI_CALL vn_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice pd,
                                                             VkPhysicalDeviceMemoryProperties2 *m)
{
	vn_GetPhysicalDeviceMemoryProperties(pd, &m->memoryProperties);
}

static void VKAPI_CALL vn_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *n,
                                                                 VkQueueFamilyProperties *q)
{
	if (q && *n >= 1) {
		memset(q, 0, sizeof(*q));
		q->queueFlags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
		q->queueCount = VN_QUEUES;
		q->timestampValidBits = 64;
		q->minImageTransferGranularity.width = q->minImageTransferGranularity.height =
			q->minImageTransferGranularity.depth = 1;
	}
	*n = 1;
}

static void VKAPI_CALL vn_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice pd, uint32_t *n,
                                                                  VkQueueFamilyProperties2 *q)
{
	if (q && *n >= 1)
		vn_GetPhysicalDeviceQueueFamilyProperties(pd, n, &q->queueFamilyProperties);
	*n = 1;
}

static void VKAPI_CALL vn_GetPhysicalDeviceFormatProperties(VkPhysicalDevice pd, VkFormat f,
                                                            VkFormatProperties *p)
{
	p->linearTilingFeatures = p->optimalTilingFeatures = 0x1ffff;
	p->bufferFeatures = 0x7f;
}

static VkResult VKAPI_CALL vn_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *layer,
                                                                 uint32_t *n, VkExtensionProperties *p)
{
	*n = 0;
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                           const VkAllocationCallbacks *alloc, VkDevice *out)
{
	if (pd != (VkPhysicalDevice)&vn_g.phys)
		vn_report("vkCreateDevice", "not our physical device");
	for (uint32_t i = 0; ci->pQueueCreateInfos && i < ci->queueCreateInfoCount; i++)
		if (ci->pQueueCreateInfos[i].queueFamilyIndex != 0 ||
		    ci->pQueueCreateInfos[i].queueCount > VN_QUEUES)
			return VK_ERROR_INITIALIZATION_FAILED;
	return VN_CREATE(VK_OBJECT_TYPE_DEVICE, out);
}

/* ---- device, queues, sync ----------------------------------------------- */

static void vn_queue_idle(vn_obj *q)
{
	if (q)
		q->done = q->serial;
}

static void vn_all_idle(void)
{
	for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next)
		if (o->type == VK_OBJECT_TYPE_QUEUE)
			vn_queue_idle(o);
}

static void VKAPI_CALL vn_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *alloc)
{
	vn_obj *d = VN_GET(dev, VK_OBJECT_TYPE_DEVICE, "vkDestroyDevice");
	if (!d)
		return;
	for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next)
		if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && vn_pending(o))
			vn_report("vkDestroyDevice", "the device is destroyed with work not waited for");
	vn_free_pooled(d, "vkDestroyDevice"); /* its queues */
	vn_free(d, "vkDestroyDevice");
}

static void VKAPI_CALL vn_GetDeviceQueue(VkDevice dev, uint32_t family, uint32_t index, VkQueue *out)
{
	vn_obj *d = VN_GET(dev, VK_OBJECT_TYPE_DEVICE, "vkGetDeviceQueue");
	vn_obj *q;
	if (family != 0 || index >= VN_QUEUES)
		vn_report("vkGetDeviceQueue", "queue %u of family %u was not created", index, family);
	for (q = vn_g.head.next; q != &vn_g.head; q = q->next)
		if (q->type == VK_OBJECT_TYPE_QUEUE && q->pool == d && q->size == index) {
			*out = (VkQueue)q;
			return;
		}
	q = vn_new(VK_OBJECT_TYPE_QUEUE);
	if (q) {
		q->pool = d;
		q->size = index;
	}
	*out = (VkQueue)q;
}

static void VKAPI_CALL vn_GetDeviceQueue2(VkDevice dev, const VkDeviceQueueInfo2 *info, VkQueue *out)
{
	vn_GetDeviceQueue(dev, info->queueFamilyIndex, info->queueIndex, out);
}

static VkResult VKAPI_CALL vn_DeviceWaitIdle(VkDevice dev)
{
	VN_GET(dev, VK_OBJECT_TYPE_DEVICE, "vkDeviceWaitIdle");
	vn_all_idle();
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_QueueWaitIdle(VkQueue queue)
{
	vn_queue_idle(VN_GET(queue, VK_OBJECT_TYPE_QUEUE, "vkQueueWaitIdle"));
	return VK_SUCCESS;
}

static void vn_submit_cb(vn_obj *q, VkCommandBuffer cb, const char *call)
{
	vn_obj *c = VN_GET(cb, VK_OBJECT_TYPE_COMMAND_BUFFER, call);
	if (!c)
		vn_report(call, "a null command buffer is submitted");
	if (c->invalid)
		vn_report(call, "a command buffer is submitted after an object it uses was destroyed or "
		          "its memory freed (use after free on a device)");
	if (c->state != 2)
		vn_report(call, "a command buffer that is not executable is submitted");
	for (uint32_t i = 0; i < c->nuses; i++)
		if (!c->uses[i].dset->binds[c->uses[i].index].written)
			vn_report(call, "a command buffer is submitted whose draw or dispatch reads descriptor "
			          "set %u binding %u, which its shaders use and no write reached (the device "
			          "would read what was never initialized)", c->uses[i].set, c->uses[i].binding);
	for (uint32_t i = 0; i < c->nrefs; i++)
		if (c->refs[i]->type == VK_OBJECT_TYPE_DESCRIPTOR_SET && c->refs[i]->state == 3)
			vn_report(call, "a command buffer is submitted that binds a descriptor set holding "
			          "an object destroyed since (use after free on a device)");
		else if (c->refs[i]->type == VK_OBJECT_TYPE_BUFFER || c->refs[i]->type == VK_OBJECT_TYPE_IMAGE)
			if (!c->refs[i]->mem)
				vn_report(call, "a command buffer using a %s with no memory bound is submitted",
				          vn_type_name(c->refs[i]->type));
	c->pend_queue = q;
	c->pend_serial = q->serial;
}

static void vn_signal(vn_obj *q, VkFence fence, const char *call)
{
	vn_obj *f = VN_GET(fence, VK_OBJECT_TYPE_FENCE, call);
	if (f) {
		f->fence_queue = q;
		f->serial = q->serial;
		f->signaled = 1;
	}
}

static VkResult VKAPI_CALL vn_QueueSubmit(VkQueue queue, uint32_t n, const VkSubmitInfo *s, VkFence fence)
{
	vn_obj *q = VN_GET(queue, VK_OBJECT_TYPE_QUEUE, "vkQueueSubmit");
	q->serial++;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < s[i].commandBufferCount; j++)
			vn_submit_cb(q, s[i].pCommandBuffers[j], "vkQueueSubmit");
	vn_signal(q, fence, "vkQueueSubmit");
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_QueueSubmit2(VkQueue queue, uint32_t n, const VkSubmitInfo2 *s, VkFence fence)
{
	vn_obj *q = VN_GET(queue, VK_OBJECT_TYPE_QUEUE, "vkQueueSubmit2");
	q->serial++;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < s[i].commandBufferInfoCount; j++)
			vn_submit_cb(q, s[i].pCommandBufferInfos[j].commandBuffer, "vkQueueSubmit2");
	vn_signal(q, fence, "vkQueueSubmit2");
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_CreateFence(VkDevice dev, const VkFenceCreateInfo *ci, const VkAllocationCallbacks *a,
                                          VkFence *out)
{
	VkResult res = VN_CREATE(VK_OBJECT_TYPE_FENCE, out);
	if (res == VK_SUCCESS)
		((vn_obj *)(uintptr_t)*out)->signaled = !!(ci->flags & VK_FENCE_CREATE_SIGNALED_BIT);
	return res;
}

static void VKAPI_CALL vn_DestroyFence(VkDevice dev, VkFence f, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(f, VK_OBJECT_TYPE_FENCE, "vkDestroyFence"), "vkDestroyFence");
}

static VkResult VKAPI_CALL vn_ResetFences(VkDevice dev, uint32_t n, const VkFence *f)
{
	for (uint32_t i = 0; i < n; i++) {
		vn_obj *o = VN_GET(f[i], VK_OBJECT_TYPE_FENCE, "vkResetFences");
		if (o)
			o->signaled = 0, o->fence_queue = NULL;
	}
	return VK_SUCCESS;
}

/* A signalled fence seen: the submits up to its own have finished. */
static void vn_fence_seen(vn_obj *f)
{
	if (f->fence_queue && f->fence_queue->done < f->serial)
		f->fence_queue->done = f->serial;
}

static VkResult VKAPI_CALL vn_GetFenceStatus(VkDevice dev, VkFence fence)
{
	vn_obj *f = VN_GET(fence, VK_OBJECT_TYPE_FENCE, "vkGetFenceStatus");
	if (!f->signaled)
		return VK_NOT_READY;
	vn_fence_seen(f);
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_WaitForFences(VkDevice dev, uint32_t n, const VkFence *fences, VkBool32 all,
                                            uint64_t timeout)
{
	int any = 0, every = 1;
	for (uint32_t i = 0; i < n; i++) {
		vn_obj *f = VN_GET(fences[i], VK_OBJECT_TYPE_FENCE, "vkWaitForFences");
		if (!f)
			vn_report("vkWaitForFences", "a null fence");
		any |= f->signaled;
		every &= f->signaled;
	}
	if (all ? !every : !any) {
		if (timeout == UINT64_MAX)
			vn_report("vkWaitForFences", "waits without a timeout for a fence nothing signals "
			          "(it would never return)");
		return VK_TIMEOUT;
	}
	for (uint32_t i = 0; i < n; i++) {
		vn_obj *f = (vn_obj *)(uintptr_t)fences[i];
		if (f->signaled)
			vn_fence_seen(f);
	}
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_CreateSemaphore(VkDevice dev, const VkSemaphoreCreateInfo *ci,
                                              const VkAllocationCallbacks *a, VkSemaphore *out)
{
	return VN_CREATE(VK_OBJECT_TYPE_SEMAPHORE, out);
}

static void VKAPI_CALL vn_DestroySemaphore(VkDevice dev, VkSemaphore s, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(s, VK_OBJECT_TYPE_SEMAPHORE, "vkDestroySemaphore"), "vkDestroySemaphore");
}

static VkResult VKAPI_CALL vn_CreateEvent(VkDevice dev, const VkEventCreateInfo *ci,
                                          const VkAllocationCallbacks *a, VkEvent *out)
{
	return VN_CREATE(VK_OBJECT_TYPE_EVENT, out);
}

static void VKAPI_CALL vn_DestroyEvent(VkDevice dev, VkEvent e, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(e, VK_OBJECT_TYPE_EVENT, "vkDestroyEvent"), "vkDestroyEvent");
}

static VkResult VKAPI_CALL vn_SetEvent(VkDevice dev, VkEvent e)
{
	VN_GET(e, VK_OBJECT_TYPE_EVENT, "vkSetEvent");
	return VK_SUCCESS;
}

/* ---- memory, buffers, images -------------------------------------------- */

static VkResult VKAPI_CALL vn_AllocateMemory(VkDevice dev, const VkMemoryAllocateInfo *ai,
                                             const VkAllocationCallbacks *a, VkDeviceMemory *out)
{
	VkResult res;
	if (ai->allocationSize > VN_HEAP)
		return VK_ERROR_OUT_OF_DEVICE_MEMORY;
	if (ai->memoryTypeIndex >= 5)
		vn_report("vkAllocateMemory", "memory type %u does not exist", ai->memoryTypeIndex);
	res = VN_CREATE(VK_OBJECT_TYPE_DEVICE_MEMORY, out);
	if (res == VK_SUCCESS)
		((vn_obj *)(uintptr_t)*out)->size = ai->allocationSize;
	return res;
}

static void VKAPI_CALL vn_FreeMemory(VkDevice dev, VkDeviceMemory m, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(m, VK_OBJECT_TYPE_DEVICE_MEMORY, "vkFreeMemory"), "vkFreeMemory");
}

static VkResult VKAPI_CALL vn_MapMemory(VkDevice dev, VkDeviceMemory m, VkDeviceSize off, VkDeviceSize size,
                                        VkMemoryMapFlags flags, void **out)
{
	vn_obj *o = VN_GET(m, VK_OBJECT_TYPE_DEVICE_MEMORY, "vkMapMemory");
	if (off >= o->size || (size != VK_WHOLE_SIZE && size > o->size - off))
		vn_report("vkMapMemory", "range %llu+%llu outside the allocation (%llu bytes)",
		          (unsigned long long)off, (unsigned long long)size, (unsigned long long)o->size);
	if (o->mapped)
		vn_report("vkMapMemory", "the memory is mapped already");
	if (!o->host && !(o->host = calloc(1, (size_t)o->size)))
		return VK_ERROR_MEMORY_MAP_FAILED;
	o->mapped = 1;
	*out = o->host + off;
	return VK_SUCCESS;
}

static void VKAPI_CALL vn_UnmapMemory(VkDevice dev, VkDeviceMemory m)
{
	VN_GET(m, VK_OBJECT_TYPE_DEVICE_MEMORY, "vkUnmapMemory")->mapped = 0;
}

static VkResult vn_ranges(uint32_t n, const VkMappedMemoryRange *r, const char *call)
{
	for (uint32_t i = 0; i < n; i++) {
		vn_obj *o = VN_GET(r[i].memory, VK_OBJECT_TYPE_DEVICE_MEMORY, call);
		if (!o->mapped)
			vn_report(call, "range %u: the memory is not mapped", i);
		if (r[i].offset > o->size || (r[i].size != VK_WHOLE_SIZE && r[i].size > o->size - r[i].offset))
			vn_report(call, "range %u outside the allocation", i);
	}
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_FlushMappedMemoryRanges(VkDevice dev, uint32_t n, const VkMappedMemoryRange *r)
{
	return vn_ranges(n, r, "vkFlushMappedMemoryRanges");
}

static VkResult VKAPI_CALL vn_InvalidateMappedMemoryRanges(VkDevice dev, uint32_t n, const VkMappedMemoryRange *r)
{
	return vn_ranges(n, r, "vkInvalidateMappedMemoryRanges");
}

static VkResult VKAPI_CALL vn_CreateBuffer(VkDevice dev, const VkBufferCreateInfo *ci,
                                           const VkAllocationCallbacks *a, VkBuffer *out)
{
	VkResult res;
	if (!ci->size)
		vn_report("vkCreateBuffer", "size 0");
	res = VN_CREATE(VK_OBJECT_TYPE_BUFFER, out);
	if (res == VK_SUCCESS)
		((vn_obj *)(uintptr_t)*out)->size = ci->size;
	return res;
}

static void VKAPI_CALL vn_DestroyBuffer(VkDevice dev, VkBuffer b, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(b, VK_OBJECT_TYPE_BUFFER, "vkDestroyBuffer"), "vkDestroyBuffer");
}

/* v rounded up to a multiple of a (no overflow: the largest multiple) */
static VkDeviceSize vn_align(VkDeviceSize v, VkDeviceSize a)
{
	return v > UINT64_MAX - a ? UINT64_MAX / a * a : (v + a - 1) / a * a;
}

static void VKAPI_CALL vn_GetBufferMemoryRequirements(VkDevice dev, VkBuffer b, VkMemoryRequirements *m)
{
	vn_obj *o = VN_GET(b, VK_OBJECT_TYPE_BUFFER, "vkGetBufferMemoryRequirements");
	m->size = vn_align(o->size, 256);
	m->alignment = 256;
	m->memoryTypeBits = 0x1f;
}

static VkDeviceSize vn_image_bytes(const vn_obj *o)
{
	VkDeviceSize n = (VkDeviceSize)o->extent.width * o->extent.height;
	/* texels of level 0 of every layer, 16 bytes each, twice for the levels */
	if (n > VN_HEAP || (n *= o->extent.depth) > VN_HEAP || (n *= o->layers) > VN_HEAP)
		return VN_HEAP;
	return n * 32;
}

static void VKAPI_CALL vn_GetImageMemoryRequirements(VkDevice dev, VkImage i, VkMemoryRequirements *m)
{
	vn_obj *o = VN_GET(i, VK_OBJECT_TYPE_IMAGE, "vkGetImageMemoryRequirements");
	m->size = vn_align(vn_image_bytes(o), 4096);
	m->alignment = 4096;
	m->memoryTypeBits = 0x1f;
}

static void vn_bind(vn_obj *res, VkDeviceMemory mem, VkDeviceSize off, VkDeviceSize need, const char *call)
{
	vn_obj *m = VN_GET(mem, VK_OBJECT_TYPE_DEVICE_MEMORY, call);
	if (!m)
		vn_report(call, "null memory");
	if (res->mem)
		vn_report(call, "the %s has memory bound already", vn_type_name(res->type));
	if (off > m->size || need > m->size - off)
		vn_report(call, "%llu bytes at offset %llu do not fit the allocation (%llu bytes)",
		          (unsigned long long)need, (unsigned long long)off, (unsigned long long)m->size);
	res->mem = m;
	res->mem_off = off;
}

static VkResult VKAPI_CALL vn_BindBufferMemory(VkDevice dev, VkBuffer b, VkDeviceMemory m, VkDeviceSize off)
{
	vn_obj *o = VN_GET(b, VK_OBJECT_TYPE_BUFFER, "vkBindBufferMemory");
	vn_bind(o, m, off, o->size, "vkBindBufferMemory");
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_BindImageMemory(VkDevice dev, VkImage i, VkDeviceMemory m, VkDeviceSize off)
{
	vn_obj *o = VN_GET(i, VK_OBJECT_TYPE_IMAGE, "vkBindImageMemory");
	vn_bind(o, m, off, vn_align(vn_image_bytes(o), 4096), "vkBindImageMemory");
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_CreateImage(VkDevice dev, const VkImageCreateInfo *ci,
                                          const VkAllocationCallbacks *a, VkImage *out)
{
	VkResult res;
	vn_obj *o;
	if (!ci->extent.width || !ci->extent.height || !ci->extent.depth || !ci->mipLevels || !ci->arrayLayers)
		vn_report("vkCreateImage", "an empty image (%ux%ux%u, %u levels, %u layers)", ci->extent.width,
		          ci->extent.height, ci->extent.depth, ci->mipLevels, ci->arrayLayers);
	if (ci->extent.width > 16384 || ci->extent.height > 16384 || ci->extent.depth > 2048 ||
	    ci->arrayLayers > 2048 || ci->mipLevels > 15)
		return VK_ERROR_FORMAT_NOT_SUPPORTED;
	if ((res = VN_CREATE(VK_OBJECT_TYPE_IMAGE, out)) != VK_SUCCESS)
		return res;
	o = (vn_obj *)(uintptr_t)*out;
	o->format = ci->format;
	o->extent = ci->extent;
	o->mips = ci->mipLevels;
	o->layers = ci->arrayLayers;
	return VK_SUCCESS;
}

static void VKAPI_CALL vn_DestroyImage(VkDevice dev, VkImage i, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(i, VK_OBJECT_TYPE_IMAGE, "vkDestroyImage"), "vkDestroyImage");
}

static VkResult VKAPI_CALL vn_CreateImageView(VkDevice dev, const VkImageViewCreateInfo *ci,
                                              const VkAllocationCallbacks *a, VkImageView *out)
{
	vn_obj *img = VN_GET(ci->image, VK_OBJECT_TYPE_IMAGE, "vkCreateImageView");
	const VkImageSubresourceRange *s = &ci->subresourceRange;
	VkResult res;
	if (!img || !img->mem)
		vn_report("vkCreateImageView", "an image with no memory bound");
	if (s->baseMipLevel >= img->mips || s->baseArrayLayer >= img->layers ||
	    (s->levelCount != VK_REMAINING_MIP_LEVELS && s->levelCount > img->mips - s->baseMipLevel) ||
	    (s->layerCount != VK_REMAINING_ARRAY_LAYERS && s->layerCount > img->layers - s->baseArrayLayer))
		vn_report("vkCreateImageView", "levels or layers outside the image");
	if ((res = VN_CREATE(VK_OBJECT_TYPE_IMAGE_VIEW, out)) == VK_SUCCESS)
		((vn_obj *)(uintptr_t)*out)->mem = img;
	return res;
}

static void VKAPI_CALL vn_DestroyImageView(VkDevice dev, VkImageView v, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(v, VK_OBJECT_TYPE_IMAGE_VIEW, "vkDestroyImageView"), "vkDestroyImageView");
}

static VkResult VKAPI_CALL vn_CreateBufferView(VkDevice dev, const VkBufferViewCreateInfo *ci,
                                               const VkAllocationCallbacks *a, VkBufferView *out)
{
	vn_obj *b = VN_GET(ci->buffer, VK_OBJECT_TYPE_BUFFER, "vkCreateBufferView");
	VkResult res;
	if (!b || !b->mem)
		vn_report("vkCreateBufferView", "a buffer with no memory bound");
	if ((res = VN_CREATE(VK_OBJECT_TYPE_BUFFER_VIEW, out)) == VK_SUCCESS)
		((vn_obj *)(uintptr_t)*out)->mem = b;
	return res;
}

static void VKAPI_CALL vn_DestroyBufferView(VkDevice dev, VkBufferView v, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(v, VK_OBJECT_TYPE_BUFFER_VIEW, "vkDestroyBufferView"), "vkDestroyBufferView");
}

/* ---- objects with no state the checks need -------------------------------- */

#define VN_PLAIN(Name, Type, CreateInfo, TYPE)                                                      \
	static VkResult VKAPI_CALL vn_Create##Name(VkDevice dev, const CreateInfo *ci,                     \
	                                           const VkAllocationCallbacks *a, Type *out)              \
	{                                                                                              \
		return VN_CREATE(TYPE, out);                                                               \
	}                                                                                              \
	static void VKAPI_CALL vn_Destroy##Name(VkDevice dev, Type h, const VkAllocationCallbacks *a) \
	{                                                                                              \
		vn_free(VN_GET(h, TYPE, "vkDestroy" #Name), "vkDestroy" #Name);                            \
	}

VN_PLAIN(Sampler, VkSampler, VkSamplerCreateInfo, VK_OBJECT_TYPE_SAMPLER)
VN_PLAIN(PipelineLayout, VkPipelineLayout, VkPipelineLayoutCreateInfo, VK_OBJECT_TYPE_PIPELINE_LAYOUT)

/* ---- shaders: the resource variables functions use ------------------------- */

static void vn_use_add(vn_obj *o, uint32_t set, uint32_t binding, vn_obj *dset, uint32_t index)
{
	for (uint32_t i = 0; i < o->nuses; i++)
		if (o->uses[i].set == set && o->uses[i].binding == binding && o->uses[i].dset == dset)
			return;
	if (o->nuses == o->uses_cap) {
		uint32_t ncap = o->uses_cap ? 2 * o->uses_cap : 8;
		vn_use *n = realloc(o->uses, ncap * sizeof(*n));
		if (!n)
			return;
		o->uses = n;
		o->uses_cap = ncap;
	}
	o->uses[o->nuses].set = set;
	o->uses[o->nuses].binding = binding;
	o->uses[o->nuses].dset = dset;
	o->uses[o->nuses].index = index;
	o->nuses++;
}

/* Per SPIR-V id: a resource variable (OpVariable of storage class
 * UniformConstant, Uniform or StorageBuffer) and its decorations. */
typedef struct vn_spv_id {
	uint8_t var, has_set, has_binding, used;
	uint32_t set, binding;
} vn_spv_id;

static void vn_spv_mark(vn_spv_id *ids, uint32_t bound, uint32_t id)
{
	if (id < bound && ids[id].var)
		ids[id].used = 1;
}

/* The operands of an instruction that name a pointer it reads, writes or
 * passes on. */
static void vn_spv_operands(vn_spv_id *ids, uint32_t bound, const uint32_t *w, uint32_t n)
{
	uint32_t op = w[0] & 0xffffu;

	switch (op) {
	case 60: case 61: case 65: case 66: case 67: case 68: case 70: case 83: /* texel pointer, load,
		access chains, array length, ptr access chain, copy object: pointer at word 3 */
	case 227: case 229: case 230: case 231: case 232: case 233: case 234: case 235: case 236:
	case 237: case 238: case 239: case 240: case 241: case 242: case 318: /* atomics */
		if (n > 3)
			vn_spv_mark(ids, bound, w[3]);
		break;
	case 62: case 228: case 319: /* store, atomic store, atomic flag clear: pointer at word 1 */
		if (n > 1)
			vn_spv_mark(ids, bound, w[1]);
		break;
	case 63: case 64: /* copy memory (sized): target and source */
		for (uint32_t i = 1; i < 3 && i < n; i++)
			vn_spv_mark(ids, bound, w[i]);
		break;
	case 57: /* function call: the arguments */
		for (uint32_t i = 4; i < n; i++)
			vn_spv_mark(ids, bound, w[i]);
		break;
	default:
		break;
	}
}

/* The (set, binding) of every resource variable the module's functions
 * use, into m->uses.  Code that is not SPIR-V gives none (nothing judged). */
static void vn_spv_scan(vn_obj *m, const uint32_t *code, size_t n)
{
	vn_spv_id *ids;
	uint32_t bound;

	if (!code || n < 5 || code[0] != 0x07230203u || code[3] == 0 || code[3] > VN_SPV_MAX_IDS)
		return;
	bound = code[3];
	ids = calloc(bound, sizeof(*ids));
	if (!ids)
		return;
	for (int pass = 0; pass < 2; pass++) {
		int in_function = 0;
		for (size_t i = 5; i < n;) {
			const uint32_t *w = &code[i];
			uint32_t wc = w[0] >> 16, op = w[0] & 0xffffu;
			if (wc == 0 || wc > n - i)
				break;
			if (op == 54)
				in_function = 1;
			else if (op == 56)
				in_function = 0;
			else if (pass == 1 && in_function)
				vn_spv_operands(ids, bound, w, wc);
			else if (pass == 0 && op == 59 && wc > 3 && w[2] < bound &&
			         (w[3] == 0 || w[3] == 2 || w[3] == 12))
				ids[w[2]].var = 1;
			else if (pass == 0 && op == 71 && wc > 3 && w[1] < bound && w[2] == 34) {
				ids[w[1]].set = w[3];
				ids[w[1]].has_set = 1;
			} else if (pass == 0 && op == 71 && wc > 3 && w[1] < bound && w[2] == 33) {
				ids[w[1]].binding = w[3];
				ids[w[1]].has_binding = 1;
			}
			i += wc;
		}
	}
	for (uint32_t id = 0; id < bound; id++)
		if (ids[id].var && ids[id].used && ids[id].has_set && ids[id].has_binding)
			vn_use_add(m, ids[id].set, ids[id].binding, NULL, 0);
	free(ids);
}

static VkResult VKAPI_CALL vn_CreateShaderModule(VkDevice dev, const VkShaderModuleCreateInfo *ci,
                                                 const VkAllocationCallbacks *a, VkShaderModule *out)
{
	VkResult res = VN_CREATE(VK_OBJECT_TYPE_SHADER_MODULE, out);
	if (res == VK_SUCCESS && ci)
		vn_spv_scan((vn_obj *)(uintptr_t)*out, ci->pCode, ci->codeSize / 4);
	return res;
}

static void VKAPI_CALL vn_DestroyShaderModule(VkDevice dev, VkShaderModule h, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(h, VK_OBJECT_TYPE_SHADER_MODULE, "vkDestroyShaderModule"), "vkDestroyShaderModule");
}

static int vn_dbind_cmp(const void *a, const void *b)
{
	const vn_dbind *x = a, *y = b;
	return x->binding < y->binding ? -1 : x->binding > y->binding;
}

/* The index of binding in o's bindings; -1: none. */
static int vn_dbind_find(const vn_obj *o, uint32_t binding)
{
	for (uint32_t i = 0; i < o->nbinds; i++)
		if (o->binds[i].binding == binding)
			return (int)i;
	return -1;
}

static VkResult VKAPI_CALL vn_CreateDescriptorSetLayout(VkDevice dev, const VkDescriptorSetLayoutCreateInfo *ci,
                                                        const VkAllocationCallbacks *a, VkDescriptorSetLayout *out)
{
	const VkDescriptorSetLayoutBindingFlagsCreateInfo *fl = NULL;
	VkResult res = VN_CREATE(VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, out);
	vn_obj *l;

	if (res != VK_SUCCESS)
		return res;
	l = (vn_obj *)(uintptr_t)*out;
	l->size = ci->bindingCount;
	for (const VkBaseInStructure *p = ci->pNext; p; p = p->pNext)
		if (p->sType == VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO)
			fl = (const VkDescriptorSetLayoutBindingFlagsCreateInfo *)p;
	if (!ci->bindingCount || !ci->pBindings)
		return VK_SUCCESS;
	l->binds = calloc(ci->bindingCount, sizeof(*l->binds));
	if (!l->binds)
		return VK_SUCCESS; /* nothing judged */
	for (uint32_t i = 0; i < ci->bindingCount; i++) {
		const VkDescriptorSetLayoutBinding *b = &ci->pBindings[i];
		int partial = fl && fl->pBindingFlags && i < fl->bindingCount &&
		              (fl->pBindingFlags[i] & VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT);
		int immutable = b->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER && b->pImmutableSamplers;
		l->binds[i].binding = b->binding;
		l->binds[i].count = b->descriptorCount;
		l->binds[i].must_write = !partial && b->descriptorCount && !immutable;
	}
	l->nbinds = ci->bindingCount;
	qsort(l->binds, l->nbinds, sizeof(*l->binds), vn_dbind_cmp);
	return VK_SUCCESS;
}

static void VKAPI_CALL vn_DestroyDescriptorSetLayout(VkDevice dev, VkDescriptorSetLayout h,
                                                     const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(h, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, "vkDestroyDescriptorSetLayout"),
	        "vkDestroyDescriptorSetLayout");
}
VN_PLAIN(PipelineCache, VkPipelineCache, VkPipelineCacheCreateInfo, VK_OBJECT_TYPE_PIPELINE_CACHE)
VN_PLAIN(RenderPass, VkRenderPass, VkRenderPassCreateInfo, VK_OBJECT_TYPE_RENDER_PASS)
VN_PLAIN(Framebuffer, VkFramebuffer, VkFramebufferCreateInfo, VK_OBJECT_TYPE_FRAMEBUFFER)
/* ---- queries: a pool's size, and the queries and bytes a call names ------- */

/* Query pools keep their queryCount in size and the values each query's
 * result holds (pipeline statistics: one per statistic; other types: one,
 * a lower bound for performance queries) in mips. */
static VkResult VKAPI_CALL vn_CreateQueryPool(VkDevice dev, const VkQueryPoolCreateInfo *ci,
                                              const VkAllocationCallbacks *a, VkQueryPool *out)
{
	VkResult res;
	if (!ci->queryCount)
		vn_report("vkCreateQueryPool", "a pool of 0 queries");
	if ((res = VN_CREATE(VK_OBJECT_TYPE_QUERY_POOL, out)) == VK_SUCCESS) {
		vn_obj *o = VN_GET(*out, VK_OBJECT_TYPE_QUERY_POOL, "vkCreateQueryPool");
		o->size = ci->queryCount;
		o->mips = ci->queryType == VK_QUERY_TYPE_PIPELINE_STATISTICS ?
		          (uint32_t)__builtin_popcount(ci->pipelineStatistics) : 1;
	}
	return res;
}

static void VKAPI_CALL vn_DestroyQueryPool(VkDevice dev, VkQueryPool h, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(h, VK_OBJECT_TYPE_QUERY_POOL, "vkDestroyQueryPool"), "vkDestroyQueryPool");
}

/* Queries [first, first + n) of pool p, which must lie inside it (drivers
 * index their query array with them). */
static vn_obj *vn_queries(VkQueryPool p, uint32_t first, uint32_t n, const char *call)
{
	vn_obj *o = VN_GET(p, VK_OBJECT_TYPE_QUERY_POOL, call);
	if (!o)
		vn_report(call, "a null query pool");
	if (first > o->size || n > o->size - first)
		vn_report(call, "queries %u+%u outside the pool (%llu queries)", first, n,
		          (unsigned long long)o->size);
	return o;
}

/* The bytes n results of pool o take written with stride and flags (0
 * when n is 0); UINT64_MAX when that overflows. */
static uint64_t vn_query_bytes(const vn_obj *o, uint32_t n, VkDeviceSize stride, VkQueryResultFlags flags)
{
	uint64_t one = (uint64_t)(o->mips + ((flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) ? 1 : 0)) *
	               ((flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4);
	if (!n)
		return 0;
	if (n > 1 && stride > (UINT64_MAX - one) / (n - 1))
		return UINT64_MAX;
	return (uint64_t)(n - 1) * stride + one;
}
VN_PLAIN(DescriptorUpdateTemplate, VkDescriptorUpdateTemplate, VkDescriptorUpdateTemplateCreateInfo,
         VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE)

static VkResult VKAPI_CALL vn_CreateRenderPass2(VkDevice dev, const VkRenderPassCreateInfo2 *ci,
                                                const VkAllocationCallbacks *a, VkRenderPass *out)
{
	return VN_CREATE(VK_OBJECT_TYPE_RENDER_PASS, out);
}

/* A pipeline using what its stages' modules use. */
static VkResult vn_pipeline(const VkPipelineShaderStageCreateInfo *st, uint32_t nst, VkPipeline *out,
                            const char *call)
{
	vn_obj *p;

	if (VN_CREATE(VK_OBJECT_TYPE_PIPELINE, out) != VK_SUCCESS)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	p = (vn_obj *)(uintptr_t)*out;
	for (uint32_t j = 0; st && j < nst; j++) {
		vn_obj *m = VN_GET(st[j].module, VK_OBJECT_TYPE_SHADER_MODULE, call);
		for (uint32_t k = 0; m && k < m->nuses; k++)
			vn_use_add(p, m->uses[k].set, m->uses[k].binding, NULL, 0);
	}
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_CreateComputePipelines(VkDevice dev, VkPipelineCache c, uint32_t n,
                                                     const VkComputePipelineCreateInfo *ci,
                                                     const VkAllocationCallbacks *a, VkPipeline *out)
{
	for (uint32_t i = 0; i < n; i++)
		if (vn_pipeline(&ci[i].stage, 1, &out[i], "vkCreateComputePipelines") != VK_SUCCESS)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_CreateGraphicsPipelines(VkDevice dev, VkPipelineCache c, uint32_t n,
                                                      const VkGraphicsPipelineCreateInfo *ci,
                                                      const VkAllocationCallbacks *a, VkPipeline *out)
{
	for (uint32_t i = 0; i < n; i++)
		if (vn_pipeline(ci[i].pStages, ci[i].stageCount, &out[i], "vkCreateGraphicsPipelines") != VK_SUCCESS)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
	return VK_SUCCESS;
}

static void VKAPI_CALL vn_DestroyPipeline(VkDevice dev, VkPipeline p, const VkAllocationCallbacks *a)
{
	vn_free(VN_GET(p, VK_OBJECT_TYPE_PIPELINE, "vkDestroyPipeline"), "vkDestroyPipeline");
}

static VkResult VKAPI_CALL vn_GetQueryPoolResults(VkDevice dev, VkQueryPool p, uint32_t first, uint32_t n,
                                                  size_t size, void *data, VkDeviceSize stride,
                                                  VkQueryResultFlags flags)
{
	vn_obj *o = vn_queries(p, first, n, "vkGetQueryPoolResults");
	if (vn_query_bytes(o, n, stride, flags) > size)
		vn_report("vkGetQueryPoolResults", "%u results with stride %llu past dataSize %zu", n,
		          (unsigned long long)stride, size);
	memset(data, 0, size);
	return VK_SUCCESS;
}

/* ---- descriptors ---------------------------------------------------------- */

VN_PLAIN(DescriptorPool, VkDescriptorPool, VkDescriptorPoolCreateInfo, VK_OBJECT_TYPE_DESCRIPTOR_POOL)

static VkResult VKAPI_CALL vn_ResetDescriptorPool(VkDevice dev, VkDescriptorPool p, VkDescriptorPoolResetFlags f)
{
	vn_free_pooled(VN_GET(p, VK_OBJECT_TYPE_DESCRIPTOR_POOL, "vkResetDescriptorPool"),
	               "vkResetDescriptorPool");
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_AllocateDescriptorSets(VkDevice dev, const VkDescriptorSetAllocateInfo *ai,
                                                     VkDescriptorSet *out)
{
	vn_obj *pool = VN_GET(ai->descriptorPool, VK_OBJECT_TYPE_DESCRIPTOR_POOL, "vkAllocateDescriptorSets");
	for (uint32_t i = 0; i < ai->descriptorSetCount; i++) {
		vn_obj *l = VN_GET(ai->pSetLayouts[i], VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, "vkAllocateDescriptorSets");
		if (VN_CREATE(VK_OBJECT_TYPE_DESCRIPTOR_SET, &out[i]) != VK_SUCCESS)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		vn_obj *set = (vn_obj *)(uintptr_t)out[i];
		set->pool = pool;
		set->size = l ? l->size : 0; /* bindings */
		if (l && l->nbinds && (set->binds = malloc(l->nbinds * sizeof(*set->binds))) != NULL) {
			memcpy(set->binds, l->binds, l->nbinds * sizeof(*set->binds));
			set->nbinds = l->nbinds;
		}
	}
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_FreeDescriptorSets(VkDevice dev, VkDescriptorPool p, uint32_t n,
                                                 const VkDescriptorSet *sets)
{
	for (uint32_t i = 0; i < n; i++)
		vn_free(VN_GET(sets[i], VK_OBJECT_TYPE_DESCRIPTOR_SET, "vkFreeDescriptorSets"),
		        "vkFreeDescriptorSets");
	return VK_SUCCESS;
}

/* A write or copy of n descriptors from element e of binding b reached
 * it, and those that do not fit went on into the next bindings (the
 * specification's consecutive binding updates). */
static void vn_dset_written(vn_obj *set, uint32_t b, uint32_t e, uint32_t n)
{
	int i = vn_dbind_find(set, b);

	for (; i >= 0 && (uint32_t)i < set->nbinds && n; i++, e = 0) {
		uint32_t fit = set->binds[i].count > e ? set->binds[i].count - e : 0;
		set->binds[i].written = 1;
		n = n > fit ? n - fit : 0;
	}
}

/* Descriptor (binding, elem) of set now holds obj (NULL: nothing more);
 * clear: what it held before goes. */
static void vn_slot_put(vn_obj *set, uint32_t binding, uint32_t elem, vn_obj *obj, int clear)
{
	if (clear)
		for (uint32_t k = 0; k < set->nslots; k++)
			if (set->slots[k].binding == binding && set->slots[k].elem == elem)
				set->slots[k--] = set->slots[--set->nslots];
	if (!obj)
		return;
	if (set->nslots == set->slots_cap) {
		uint32_t ncap = set->slots_cap ? 2 * set->slots_cap : 8;
		vn_slot *n = realloc(set->slots, ncap * sizeof(*n));
		if (!n)
			return;
		set->slots = n;
		set->slots_cap = ncap;
	}
	set->slots[set->nslots].binding = binding;
	set->slots[set->nslots].elem = elem;
	set->slots[set->nslots].obj = obj;
	set->nslots++;
}

/* A set's refs: the objects its descriptors hold now. */
static void vn_slot_refs(vn_obj *set)
{
	set->nrefs = 0;
	for (uint32_t k = 0; k < set->nslots; k++)
		vn_refs_add(set, set->slots[k].obj);
}

static void VKAPI_CALL vn_UpdateDescriptorSets(VkDevice dev, uint32_t nw, const VkWriteDescriptorSet *w,
                                               uint32_t nc, const VkCopyDescriptorSet *c)
{
	for (uint32_t i = 0; i < nw; i++) {
		vn_obj *set = VN_GET(w[i].dstSet, VK_OBJECT_TYPE_DESCRIPTOR_SET, "vkUpdateDescriptorSets");
		if (!set)
			vn_report("vkUpdateDescriptorSets", "write %u: a null set", i);
		for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next)
			if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && vn_pending(o))
				for (uint32_t k = 0; k < o->nrefs; k++)
					if (o->refs[k] == set)
						vn_report("vkUpdateDescriptorSets", "write %u: the set is bound in a "
						          "submitted command buffer not yet waited for", i);
		set->state = 0;
		set->written = 1;
		vn_dset_written(set, w[i].dstBinding, w[i].dstArrayElement, w[i].descriptorCount);
		for (uint32_t j = 0; j < w[i].descriptorCount; j++) {
			uint32_t b = w[i].dstBinding, e = w[i].dstArrayElement + j;
			vn_slot_put(set, b, e, NULL, 1);
			if (w[i].pBufferInfo) {
				vn_obj *buf = VN_GET(w[i].pBufferInfo[j].buffer, VK_OBJECT_TYPE_BUFFER,
				                     "vkUpdateDescriptorSets");
				if (buf && !buf->mem)
					vn_report("vkUpdateDescriptorSets", "a buffer with no memory bound");
				vn_slot_put(set, b, e, buf, 0);
			}
			if (w[i].pImageInfo) {
				vn_slot_put(set, b, e, VN_GET(w[i].pImageInfo[j].imageView, VK_OBJECT_TYPE_IMAGE_VIEW,
				                              "vkUpdateDescriptorSets"), 0);
				vn_slot_put(set, b, e, VN_GET(w[i].pImageInfo[j].sampler, VK_OBJECT_TYPE_SAMPLER,
				                              "vkUpdateDescriptorSets"), 0);
			}
			if (w[i].pTexelBufferView)
				vn_slot_put(set, b, e, VN_GET(w[i].pTexelBufferView[j], VK_OBJECT_TYPE_BUFFER_VIEW,
				                              "vkUpdateDescriptorSets"), 0);
		}
		vn_slot_refs(set);
	}
	for (uint32_t i = 0; i < nc; i++) {
		vn_obj *src = VN_GET(c[i].srcSet, VK_OBJECT_TYPE_DESCRIPTOR_SET, "vkUpdateDescriptorSets");
		vn_obj *dst = VN_GET(c[i].dstSet, VK_OBJECT_TYPE_DESCRIPTOR_SET, "vkUpdateDescriptorSets");
		for (uint32_t j = 0; src && dst && j < c[i].descriptorCount; j++) {
			uint32_t e = c[i].dstArrayElement + j, n = src->nslots;
			vn_slot_put(dst, c[i].dstBinding, e, NULL, 1);
			for (uint32_t k = 0; k < n; k++)
				if (src->slots[k].binding == c[i].srcBinding &&
				    src->slots[k].elem == c[i].srcArrayElement + j)
					vn_slot_put(dst, c[i].dstBinding, e, src->slots[k].obj, 0);
		}
		if (dst) {
			vn_slot_refs(dst);
			dst->written = 1;
			vn_dset_written(dst, c[i].dstBinding, c[i].dstArrayElement, c[i].descriptorCount);
		}
	}
}

/* ---- command pools and buffers ------------------------------------------- */

static VkResult VKAPI_CALL vn_CreateCommandPool(VkDevice dev, const VkCommandPoolCreateInfo *ci,
                                                const VkAllocationCallbacks *a, VkCommandPool *out)
{
	return VN_CREATE(VK_OBJECT_TYPE_COMMAND_POOL, out);
}

static void VKAPI_CALL vn_DestroyCommandPool(VkDevice dev, VkCommandPool p, const VkAllocationCallbacks *a)
{
	vn_obj *o = VN_GET(p, VK_OBJECT_TYPE_COMMAND_POOL, "vkDestroyCommandPool");
	if (!o)
		return;
	vn_free_pooled(o, "vkDestroyCommandPool");
	vn_free(o, "vkDestroyCommandPool");
}

static void vn_cb_reset(vn_obj *c, const char *call)
{
	if (vn_pending(c))
		vn_report(call, "a command buffer is reset before its submit was waited for");
	c->state = 0;
	c->invalid = 0;
	c->nrefs = 0;
	c->nuses = 0;
	memset(c->bound_pipe, 0, sizeof(c->bound_pipe));
	memset(c->bound_set, 0, sizeof(c->bound_set));
}

static VkResult VKAPI_CALL vn_ResetCommandPool(VkDevice dev, VkCommandPool p, VkCommandPoolResetFlags f)
{
	vn_obj *pool = VN_GET(p, VK_OBJECT_TYPE_COMMAND_POOL, "vkResetCommandPool");
	for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next)
		if (o->type == VK_OBJECT_TYPE_COMMAND_BUFFER && o->pool == pool)
			vn_cb_reset(o, "vkResetCommandPool");
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_AllocateCommandBuffers(VkDevice dev, const VkCommandBufferAllocateInfo *ai,
                                                     VkCommandBuffer *out)
{
	vn_obj *pool = VN_GET(ai->commandPool, VK_OBJECT_TYPE_COMMAND_POOL, "vkAllocateCommandBuffers");
	for (uint32_t i = 0; i < ai->commandBufferCount; i++) {
		if (VN_CREATE(VK_OBJECT_TYPE_COMMAND_BUFFER, &out[i]) != VK_SUCCESS)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		((vn_obj *)(uintptr_t)out[i])->pool = pool;
	}
	return VK_SUCCESS;
}

static void VKAPI_CALL vn_FreeCommandBuffers(VkDevice dev, VkCommandPool p, uint32_t n, const VkCommandBuffer *cbs)
{
	for (uint32_t i = 0; i < n; i++)
		vn_free(VN_GET(cbs[i], VK_OBJECT_TYPE_COMMAND_BUFFER, "vkFreeCommandBuffers"), "vkFreeCommandBuffers");
}

static VkResult VKAPI_CALL vn_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *bi)
{
	vn_obj *c = VN_GET(cb, VK_OBJECT_TYPE_COMMAND_BUFFER, "vkBeginCommandBuffer");
	vn_cb_reset(c, "vkBeginCommandBuffer");
	c->state = 1;
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_EndCommandBuffer(VkCommandBuffer cb)
{
	vn_obj *c = VN_GET(cb, VK_OBJECT_TYPE_COMMAND_BUFFER, "vkEndCommandBuffer");
	if (c->state != 1)
		vn_report("vkEndCommandBuffer", "the command buffer is not recording");
	c->state = 2;
	return VK_SUCCESS;
}

static VkResult VKAPI_CALL vn_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags f)
{
	vn_cb_reset(VN_GET(cb, VK_OBJECT_TYPE_COMMAND_BUFFER, "vkResetCommandBuffer"), "vkResetCommandBuffer");
	return VK_SUCCESS;
}

/* ---- commands -------------------------------------------------------------- */

static vn_obj *vn_cmd(VkCommandBuffer cb, const char *call)
{
	vn_obj *c = VN_GET(cb, VK_OBJECT_TYPE_COMMAND_BUFFER, call);
	if (!c)
		vn_report(call, "a null command buffer");
	if (c->state != 1)
		vn_report(call, "the command buffer is not recording");
	return c;
}

/* A buffer a command uses: bound, [off, off + size) inside (size 0: any). */
static void vn_use_buffer(vn_obj *c, VkBuffer b, VkDeviceSize off, VkDeviceSize size, const char *call)
{
	vn_obj *o = VN_GET(b, VK_OBJECT_TYPE_BUFFER, call);
	if (!o)
		return;
	if (!o->mem)
		vn_report(call, "a buffer with no memory bound");
	if (size == VK_WHOLE_SIZE ? off >= o->size : (off > o->size || size > o->size - off))
		vn_report(call, "bytes %llu+%llu outside the buffer (%llu bytes)", (unsigned long long)off,
		          (unsigned long long)size, (unsigned long long)o->size);
	vn_refs_add(c, o);
}

/* An image region a command uses: bound, level and layers there, the box
 * inside the level. */
static void vn_use_image(vn_obj *c, VkImage i, const VkImageSubresourceLayers *s, const VkOffset3D *off,
                         const VkExtent3D *ext, const char *call)
{
	vn_obj *o = VN_GET(i, VK_OBJECT_TYPE_IMAGE, call);
	uint32_t w, h, d;
	if (!o)
		vn_report(call, "a null image");
	if (!o->mem)
		vn_report(call, "an image with no memory bound");
	vn_refs_add(c, o);
	if (!s)
		return;
	if (s->mipLevel >= o->mips || s->baseArrayLayer >= o->layers ||
	    (s->layerCount != VK_REMAINING_ARRAY_LAYERS && s->layerCount > o->layers - s->baseArrayLayer))
		vn_report(call, "level %u, layers %u+%u outside the image", s->mipLevel, s->baseArrayLayer,
		          s->layerCount);
	w = o->extent.width >> s->mipLevel ? o->extent.width >> s->mipLevel : 1;
	h = o->extent.height >> s->mipLevel ? o->extent.height >> s->mipLevel : 1;
	d = o->extent.depth >> s->mipLevel ? o->extent.depth >> s->mipLevel : 1;
	if (off && ext &&
	    (off->x < 0 || off->y < 0 || off->z < 0 || (uint64_t)off->x + ext->width > w ||
	     (uint64_t)off->y + ext->height > h || (uint64_t)off->z + ext->depth > d))
		vn_report(call, "box (%d,%d,%d)+%ux%ux%u outside level %u (%ux%ux%u)", off->x, off->y, off->z,
		          ext->width, ext->height, ext->depth, s->mipLevel, w, h, d);
}

static void vn_use_range(vn_obj *c, VkImage i, const VkImageSubresourceRange *r, const char *call)
{
	vn_obj *o = VN_GET(i, VK_OBJECT_TYPE_IMAGE, call);
	if (!o->mem)
		vn_report(call, "an image with no memory bound");
	if (r->baseMipLevel >= o->mips || r->baseArrayLayer >= o->layers ||
	    (r->levelCount != VK_REMAINING_MIP_LEVELS && r->levelCount > o->mips - r->baseMipLevel) ||
	    (r->layerCount != VK_REMAINING_ARRAY_LAYERS && r->layerCount > o->layers - r->baseArrayLayer))
		vn_report(call, "levels or layers outside the image");
	vn_refs_add(c, o);
}

#define VN_CMD(Name, Params) static void VKAPI_CALL vn_Cmd##Name Params
#define VN_REC(Name) vn_obj *c = vn_cmd(cb, "vkCmd" #Name); (void)c

/* 0 graphics, 1 compute; -1 another bind point (not judged). */
static int vn_bind_point(VkPipelineBindPoint bp)
{
	return bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : bp == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 : -1;
}

VN_CMD(BindPipeline, (VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipeline p))
{
	VN_REC(BindPipeline);
	vn_obj *o = VN_GET(p, VK_OBJECT_TYPE_PIPELINE, "vkCmdBindPipeline");
	if (vn_bind_point(bp) >= 0)
		c->bound_pipe[vn_bind_point(bp)] = o;
}

VN_CMD(BindDescriptorSets, (VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout l, uint32_t first,
                            uint32_t n, const VkDescriptorSet *sets, uint32_t nd, const uint32_t *dyn))
{
	VN_REC(BindDescriptorSets);
	for (uint32_t i = 0; i < n; i++) {
		vn_obj *set = VN_GET(sets[i], VK_OBJECT_TYPE_DESCRIPTOR_SET, "vkCmdBindDescriptorSets");
		vn_refs_add(c, set);
		if (vn_bind_point(bp) >= 0 && first + i < VN_SETS)
			c->bound_set[vn_bind_point(bp)][first + i] = set;
	}
}

/* A draw (bind point 0) or dispatch (1): the bindings of the bound sets
 * its pipeline's shaders use, that must be written by the submit. */
static void vn_reads(vn_obj *c, int bp)
{
	const vn_obj *p = c->bound_pipe[bp];

	for (uint32_t i = 0; p && i < p->nuses; i++) {
		vn_obj *set = p->uses[i].set < VN_SETS ? c->bound_set[bp][p->uses[i].set] : NULL;
		int k = set ? vn_dbind_find(set, p->uses[i].binding) : -1;
		if (k >= 0 && set->binds[k].must_write)
			vn_use_add(c, p->uses[i].set, p->uses[i].binding, set, (uint32_t)k);
	}
}

VN_CMD(BindVertexBuffers, (VkCommandBuffer cb, uint32_t first, uint32_t n, const VkBuffer *b,
                           const VkDeviceSize *off))
{
	VN_REC(BindVertexBuffers);
	for (uint32_t i = 0; i < n; i++)
		vn_use_buffer(c, b[i], off[i], 0, "vkCmdBindVertexBuffers");
}

VN_CMD(BindIndexBuffer, (VkCommandBuffer cb, VkBuffer b, VkDeviceSize off, VkIndexType t))
{
	VN_REC(BindIndexBuffer);
	vn_use_buffer(c, b, off, 0, "vkCmdBindIndexBuffer");
}

VN_CMD(PushConstants, (VkCommandBuffer cb, VkPipelineLayout l, VkShaderStageFlags s, uint32_t off, uint32_t size,
                       const void *v))
{
	VN_REC(PushConstants);
}

VN_CMD(SetViewport, (VkCommandBuffer cb, uint32_t first, uint32_t n, const VkViewport *v))
{
	VN_REC(SetViewport);
}

VN_CMD(SetScissor, (VkCommandBuffer cb, uint32_t first, uint32_t n, const VkRect2D *r))
{
	VN_REC(SetScissor);
}

/* The other dynamic state (tests/programs/vk_dynstate.c sets each): only
 * recorded.  A draw reading a state never set reads values the driver
 * holds, not memory it must not: the replay judges it (rpvk_sh_dyn), the
 * null device does not. */
#define VN_DYN(Name, Params) VN_CMD(Name, Params) { VN_REC(Name); }
VN_DYN(SetLineWidth, (VkCommandBuffer cb, float w))
VN_DYN(SetDepthBias, (VkCommandBuffer cb, float constant, float clamp, float slope))
VN_DYN(SetBlendConstants, (VkCommandBuffer cb, const float constants[4]))
VN_DYN(SetDepthBounds, (VkCommandBuffer cb, float lo, float hi))
VN_DYN(SetStencilCompareMask, (VkCommandBuffer cb, VkStencilFaceFlags f, uint32_t v))
VN_DYN(SetStencilWriteMask, (VkCommandBuffer cb, VkStencilFaceFlags f, uint32_t v))
VN_DYN(SetStencilReference, (VkCommandBuffer cb, VkStencilFaceFlags f, uint32_t v))
VN_DYN(SetCullMode, (VkCommandBuffer cb, VkCullModeFlags m))
VN_DYN(SetFrontFace, (VkCommandBuffer cb, VkFrontFace f))
VN_DYN(SetPrimitiveTopology, (VkCommandBuffer cb, VkPrimitiveTopology t))
VN_DYN(SetDepthTestEnable, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetDepthWriteEnable, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetDepthCompareOp, (VkCommandBuffer cb, VkCompareOp op))
VN_DYN(SetDepthBoundsTestEnable, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetStencilTestEnable, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetStencilOp, (VkCommandBuffer cb, VkStencilFaceFlags f, VkStencilOp fail, VkStencilOp pass,
                      VkStencilOp depth_fail, VkCompareOp op))
VN_DYN(SetRasterizerDiscardEnable, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetDepthBiasEnable, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetPrimitiveRestartEnable, (VkCommandBuffer cb, VkBool32 on))
/* VK_EXT_extended_dynamic_state3 (vk_dynstate --eds3 sets these) */
VN_DYN(SetTessellationDomainOriginEXT, (VkCommandBuffer cb, VkTessellationDomainOrigin o))
VN_DYN(SetDepthClampEnableEXT, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetPolygonModeEXT, (VkCommandBuffer cb, VkPolygonMode m))
VN_DYN(SetRasterizationSamplesEXT, (VkCommandBuffer cb, VkSampleCountFlagBits s))
VN_DYN(SetSampleMaskEXT, (VkCommandBuffer cb, VkSampleCountFlagBits s, const VkSampleMask *m))
VN_DYN(SetAlphaToCoverageEnableEXT, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetAlphaToOneEnableEXT, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetLogicOpEnableEXT, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetColorBlendEnableEXT, (VkCommandBuffer cb, uint32_t first, uint32_t n, const VkBool32 *on))
VN_DYN(SetColorBlendEquationEXT, (VkCommandBuffer cb, uint32_t first, uint32_t n,
                                  const VkColorBlendEquationEXT *eq))
VN_DYN(SetColorWriteMaskEXT, (VkCommandBuffer cb, uint32_t first, uint32_t n, const VkColorComponentFlags *m))
VN_DYN(SetDepthClipEnableEXT, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetProvokingVertexModeEXT, (VkCommandBuffer cb, VkProvokingVertexModeEXT m))
VN_DYN(SetLineRasterizationModeEXT, (VkCommandBuffer cb, VkLineRasterizationModeEXT m))
VN_DYN(SetLineStippleEnableEXT, (VkCommandBuffer cb, VkBool32 on))
VN_DYN(SetDepthClipNegativeOneToOneEXT, (VkCommandBuffer cb, VkBool32 on))
/* vk_dynstate --more sets these */
VN_DYN(SetVertexInputEXT, (VkCommandBuffer cb, uint32_t nb, const VkVertexInputBindingDescription2EXT *b,
                           uint32_t na, const VkVertexInputAttributeDescription2EXT *at))
VN_DYN(SetLineStippleEXT, (VkCommandBuffer cb, uint32_t factor, uint16_t pattern))
VN_DYN(SetLogicOpEXT, (VkCommandBuffer cb, VkLogicOp op))
VN_DYN(SetColorWriteEnableEXT, (VkCommandBuffer cb, uint32_t n, const VkBool32 *on))
/* VK_EXT_sample_locations (test_vk_hostile_sampleloc.sh's edited traces) */
VN_DYN(SetSampleLocationsEXT, (VkCommandBuffer cb, const VkSampleLocationsInfoEXT *info))
VN_DYN(SetSampleLocationsEnableEXT, (VkCommandBuffer cb, VkBool32 on))

VN_CMD(BindVertexBuffers2, (VkCommandBuffer cb, uint32_t first, uint32_t n, const VkBuffer *b,
                            const VkDeviceSize *off, const VkDeviceSize *sizes, const VkDeviceSize *strides))
{
	VN_REC(BindVertexBuffers2);
	for (uint32_t i = 0; i < n; i++)
		vn_use_buffer(c, b[i], off[i], sizes && sizes[i] != VK_WHOLE_SIZE ? sizes[i] : 0,
		              "vkCmdBindVertexBuffers2");
}

VN_CMD(Dispatch, (VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z))
{
	VN_REC(Dispatch);
	vn_reads(c, 1);
}

VN_CMD(DispatchIndirect, (VkCommandBuffer cb, VkBuffer b, VkDeviceSize off))
{
	VN_REC(DispatchIndirect);
	vn_reads(c, 1);
	vn_use_buffer(c, b, off, sizeof(VkDispatchIndirectCommand), "vkCmdDispatchIndirect");
}

VN_CMD(Draw, (VkCommandBuffer cb, uint32_t nv, uint32_t ni, uint32_t fv, uint32_t fi))
{
	VN_REC(Draw);
	vn_reads(c, 0);
}

VN_CMD(DrawIndexed, (VkCommandBuffer cb, uint32_t n, uint32_t ni, uint32_t fi, int32_t vo, uint32_t fin))
{
	VN_REC(DrawIndexed);
	vn_reads(c, 0);
}

VN_CMD(CopyBuffer, (VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n, const VkBufferCopy *r))
{
	VN_REC(CopyBuffer);
	for (uint32_t i = 0; i < n; i++) {
		vn_use_buffer(c, src, r[i].srcOffset, r[i].size, "vkCmdCopyBuffer");
		vn_use_buffer(c, dst, r[i].dstOffset, r[i].size, "vkCmdCopyBuffer");
	}
}

VN_CMD(UpdateBuffer, (VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, const void *d))
{
	VN_REC(UpdateBuffer);
	vn_use_buffer(c, dst, off, size, "vkCmdUpdateBuffer");
}

VN_CMD(FillBuffer, (VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, uint32_t v))
{
	VN_REC(FillBuffer);
	vn_use_buffer(c, dst, off, size, "vkCmdFillBuffer");
}

VN_CMD(CopyImage, (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,
                   const VkImageCopy *r))
{
	VN_REC(CopyImage);
	for (uint32_t i = 0; i < n; i++) {
		vn_use_image(c, src, &r[i].srcSubresource, &r[i].srcOffset, &r[i].extent, "vkCmdCopyImage");
		vn_use_image(c, dst, &r[i].dstSubresource, &r[i].dstOffset, &r[i].extent, "vkCmdCopyImage");
	}
}

VN_CMD(BlitImage, (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl, uint32_t n,
                   const VkImageBlit *r, VkFilter f))
{
	VN_REC(BlitImage);
	for (uint32_t i = 0; i < n; i++) {
		vn_use_image(c, src, &r[i].srcSubresource, NULL, NULL, "vkCmdBlitImage");
		vn_use_image(c, dst, &r[i].dstSubresource, NULL, NULL, "vkCmdBlitImage");
	}
}

VN_CMD(ResolveImage, (VkCommandBuffer cb, VkImage src, VkImageLayout sl, VkImage dst, VkImageLayout dl,
                      uint32_t n, const VkImageResolve *r))
{
	VN_REC(ResolveImage);
	for (uint32_t i = 0; i < n; i++) {
		vn_use_image(c, src, &r[i].srcSubresource, &r[i].srcOffset, &r[i].extent, "vkCmdResolveImage");
		vn_use_image(c, dst, &r[i].dstSubresource, &r[i].dstOffset, &r[i].extent, "vkCmdResolveImage");
	}
}

/* The buffer side of a buffer<->image copy: tightly packed texels of at
 * most 16 bytes would need at least this many bytes; the exact size is the
 * replay's check (rpvk_region.c), this only catches a far miss. */
static void vn_bufimg(vn_obj *c, VkBuffer b, VkImage img, const VkBufferImageCopy *r, const char *call)
{
	vn_use_image(c, img, &r->imageSubresource, &r->imageOffset, &r->imageExtent, call);
	vn_use_buffer(c, b, r->bufferOffset, 1, call);
}

VN_CMD(CopyBufferToImage, (VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout l, uint32_t n,
                           const VkBufferImageCopy *r))
{
	VN_REC(CopyBufferToImage);
	for (uint32_t i = 0; i < n; i++)
		vn_bufimg(c, src, dst, &r[i], "vkCmdCopyBufferToImage");
}

VN_CMD(CopyImageToBuffer, (VkCommandBuffer cb, VkImage src, VkImageLayout l, VkBuffer dst, uint32_t n,
                           const VkBufferImageCopy *r))
{
	VN_REC(CopyImageToBuffer);
	for (uint32_t i = 0; i < n; i++)
		vn_bufimg(c, dst, src, &r[i], "vkCmdCopyImageToBuffer");
}

VN_CMD(ClearColorImage, (VkCommandBuffer cb, VkImage img, VkImageLayout l, const VkClearColorValue *v, uint32_t n,
                         const VkImageSubresourceRange *r))
{
	VN_REC(ClearColorImage);
	for (uint32_t i = 0; i < n; i++)
		vn_use_range(c, img, &r[i], "vkCmdClearColorImage");
}

VN_CMD(ClearDepthStencilImage, (VkCommandBuffer cb, VkImage img, VkImageLayout l,
                                const VkClearDepthStencilValue *v, uint32_t n, const VkImageSubresourceRange *r))
{
	VN_REC(ClearDepthStencilImage);
	for (uint32_t i = 0; i < n; i++)
		vn_use_range(c, img, &r[i], "vkCmdClearDepthStencilImage");
}

VN_CMD(PipelineBarrier, (VkCommandBuffer cb, VkPipelineStageFlags s, VkPipelineStageFlags d, VkDependencyFlags f,
                         uint32_t nm, const VkMemoryBarrier *m, uint32_t nb, const VkBufferMemoryBarrier *b,
                         uint32_t ni, const VkImageMemoryBarrier *im))
{
	VN_REC(PipelineBarrier);
	for (uint32_t i = 0; i < nb; i++)
		VN_GET(b[i].buffer, VK_OBJECT_TYPE_BUFFER, "vkCmdPipelineBarrier");
	for (uint32_t i = 0; i < ni; i++)
		VN_GET(im[i].image, VK_OBJECT_TYPE_IMAGE, "vkCmdPipelineBarrier");
}

VN_CMD(BeginRenderPass, (VkCommandBuffer cb, const VkRenderPassBeginInfo *bi, VkSubpassContents s))
{
	VN_REC(BeginRenderPass);
	VN_GET(bi->renderPass, VK_OBJECT_TYPE_RENDER_PASS, "vkCmdBeginRenderPass");
	vn_refs_add(c, VN_GET(bi->framebuffer, VK_OBJECT_TYPE_FRAMEBUFFER, "vkCmdBeginRenderPass"));
}

VN_CMD(NextSubpass, (VkCommandBuffer cb, VkSubpassContents s))
{
	VN_REC(NextSubpass);
}

VN_CMD(EndRenderPass, (VkCommandBuffer cb))
{
	VN_REC(EndRenderPass);
}

VN_CMD(ResetQueryPool, (VkCommandBuffer cb, VkQueryPool p, uint32_t first, uint32_t n))
{
	VN_REC(ResetQueryPool);
	vn_refs_add(c, vn_queries(p, first, n, "vkCmdResetQueryPool"));
}

VN_CMD(WriteTimestamp, (VkCommandBuffer cb, VkPipelineStageFlagBits s, VkQueryPool p, uint32_t q))
{
	VN_REC(WriteTimestamp);
	vn_refs_add(c, vn_queries(p, q, 1, "vkCmdWriteTimestamp"));
}

VN_CMD(BeginQuery, (VkCommandBuffer cb, VkQueryPool p, uint32_t q, VkQueryControlFlags f))
{
	VN_REC(BeginQuery);
	vn_refs_add(c, vn_queries(p, q, 1, "vkCmdBeginQuery"));
}

VN_CMD(EndQuery, (VkCommandBuffer cb, VkQueryPool p, uint32_t q))
{
	VN_REC(EndQuery);
	vn_refs_add(c, vn_queries(p, q, 1, "vkCmdEndQuery"));
}

VN_CMD(CopyQueryPoolResults, (VkCommandBuffer cb, VkQueryPool p, uint32_t first, uint32_t n, VkBuffer dst,
                              VkDeviceSize off, VkDeviceSize stride, VkQueryResultFlags flags))
{
	VN_REC(CopyQueryPoolResults);
	vn_obj *o = vn_queries(p, first, n, "vkCmdCopyQueryPoolResults");
	uint64_t bytes = vn_query_bytes(o, n, stride, flags);
	vn_refs_add(c, o);
	if (bytes == UINT64_MAX)
		vn_report("vkCmdCopyQueryPoolResults", "%u results with stride %llu", n, (unsigned long long)stride);
	vn_use_buffer(c, dst, off, bytes, "vkCmdCopyQueryPoolResults");
}

VN_CMD(ExecuteCommands, (VkCommandBuffer cb, uint32_t n, const VkCommandBuffer *cbs))
{
	VN_REC(ExecuteCommands);
	for (uint32_t i = 0; i < n; i++) {
		vn_obj *s = VN_GET(cbs[i], VK_OBJECT_TYPE_COMMAND_BUFFER, "vkCmdExecuteCommands");
		if (!s || s->state != 2)
			vn_report("vkCmdExecuteCommands", "a secondary command buffer that is not executable");
		vn_refs_add(c, s);
	}
}

/* ---- the dispatch --------------------------------------------------------- */

typedef struct vn_fn {
	const char *name;
	PFN_vkVoidFunction fn;
} vn_fn;

#define VN_F(Name) {"vk" #Name, (PFN_vkVoidFunction)vn_##Name}
#define VN_FA(Alias, Name) {"vk" #Alias, (PFN_vkVoidFunction)vn_##Name}

static const vn_fn vn_fns[] = {
	VN_F(DestroyInstance), VN_F(EnumeratePhysicalDevices), VN_F(GetPhysicalDeviceProperties),
	VN_F(GetPhysicalDeviceProperties2), VN_FA(GetPhysicalDeviceProperties2KHR, GetPhysicalDeviceProperties2),
	VN_F(GetPhysicalDeviceFeatures), VN_F(GetPhysicalDeviceFeatures2),
	VN_FA(GetPhysicalDeviceFeatures2KHR, GetPhysicalDeviceFeatures2), VN_F(GetPhysicalDeviceMemoryProperties),
	VN_F(GetPhysicalDeviceMemoryProperties2),
	VN_FA(GetPhysicalDeviceMemoryProperties2KHR, GetPhysicalDeviceMemoryProperties2),
	VN_F(GetPhysicalDeviceQueueFamilyProperties), VN_F(GetPhysicalDeviceQueueFamilyProperties2),
	VN_F(GetPhysicalDeviceFormatProperties), VN_F(EnumerateDeviceExtensionProperties), VN_F(CreateDevice),
	VN_F(DestroyDevice), VN_F(GetDeviceQueue), VN_F(GetDeviceQueue2), VN_F(DeviceWaitIdle), VN_F(QueueWaitIdle),
	VN_F(QueueSubmit), VN_F(QueueSubmit2), VN_FA(QueueSubmit2KHR, QueueSubmit2), VN_F(CreateFence),
	VN_F(DestroyFence), VN_F(ResetFences), VN_F(GetFenceStatus), VN_F(WaitForFences), VN_F(CreateSemaphore),
	VN_F(DestroySemaphore), VN_F(CreateEvent), VN_F(DestroyEvent), VN_F(SetEvent), VN_F(AllocateMemory),
	VN_F(FreeMemory), VN_F(MapMemory), VN_F(UnmapMemory), VN_F(FlushMappedMemoryRanges),
	VN_F(InvalidateMappedMemoryRanges), VN_F(CreateBuffer), VN_F(DestroyBuffer),
	VN_F(GetBufferMemoryRequirements), VN_F(GetImageMemoryRequirements), VN_F(BindBufferMemory),
	VN_F(BindImageMemory), VN_F(CreateImage), VN_F(DestroyImage), VN_F(CreateImageView),
	VN_F(DestroyImageView), VN_F(CreateBufferView), VN_F(DestroyBufferView), VN_F(CreateSampler),
	VN_F(DestroySampler), VN_F(CreateShaderModule), VN_F(DestroyShaderModule), VN_F(CreatePipelineLayout),
	VN_F(DestroyPipelineLayout), VN_F(CreateDescriptorSetLayout), VN_F(DestroyDescriptorSetLayout),
	VN_F(CreatePipelineCache), VN_F(DestroyPipelineCache), VN_F(CreateRenderPass), VN_F(CreateRenderPass2),
	VN_FA(CreateRenderPass2KHR, CreateRenderPass2), VN_F(DestroyRenderPass), VN_F(CreateFramebuffer),
	VN_F(DestroyFramebuffer), VN_F(CreateQueryPool), VN_F(DestroyQueryPool), VN_F(GetQueryPoolResults),
	VN_F(CreateDescriptorUpdateTemplate), VN_F(DestroyDescriptorUpdateTemplate),
	VN_FA(CreateDescriptorUpdateTemplateKHR, CreateDescriptorUpdateTemplate),
	VN_FA(DestroyDescriptorUpdateTemplateKHR, DestroyDescriptorUpdateTemplate), VN_F(CreateComputePipelines),
	VN_F(CreateGraphicsPipelines), VN_F(DestroyPipeline), VN_F(CreateDescriptorPool),
	VN_F(DestroyDescriptorPool), VN_F(ResetDescriptorPool), VN_F(AllocateDescriptorSets),
	VN_F(FreeDescriptorSets), VN_F(UpdateDescriptorSets), VN_F(CreateCommandPool), VN_F(DestroyCommandPool),
	VN_F(ResetCommandPool), VN_F(AllocateCommandBuffers), VN_F(FreeCommandBuffers), VN_F(BeginCommandBuffer),
	VN_F(EndCommandBuffer), VN_F(ResetCommandBuffer), VN_F(CmdBindPipeline), VN_F(CmdBindDescriptorSets),
	VN_F(CmdBindVertexBuffers), VN_F(CmdBindIndexBuffer), VN_F(CmdPushConstants), VN_F(CmdSetViewport),
	VN_F(CmdSetScissor), VN_F(CmdDispatch), VN_F(CmdDispatchIndirect), VN_F(CmdDraw), VN_F(CmdDrawIndexed),
	VN_F(CmdCopyBuffer), VN_F(CmdUpdateBuffer), VN_F(CmdFillBuffer), VN_F(CmdCopyImage), VN_F(CmdBlitImage),
	VN_F(CmdResolveImage), VN_F(CmdCopyBufferToImage), VN_F(CmdCopyImageToBuffer), VN_F(CmdClearColorImage),
	VN_F(CmdClearDepthStencilImage), VN_F(CmdPipelineBarrier), VN_F(CmdBeginRenderPass), VN_F(CmdNextSubpass),
	VN_F(CmdEndRenderPass), VN_F(CmdResetQueryPool), VN_F(CmdWriteTimestamp), VN_F(CmdBeginQuery), VN_F(CmdEndQuery),
	VN_F(CmdCopyQueryPoolResults), VN_F(CmdExecuteCommands),
	VN_F(CmdSetLineWidth), VN_F(CmdSetDepthBias), VN_F(CmdSetBlendConstants), VN_F(CmdSetDepthBounds),
	VN_F(CmdSetStencilCompareMask), VN_F(CmdSetStencilWriteMask), VN_F(CmdSetStencilReference),
	VN_F(CmdSetCullMode), VN_FA(CmdSetCullModeEXT, CmdSetCullMode), VN_F(CmdSetFrontFace),
	VN_FA(CmdSetFrontFaceEXT, CmdSetFrontFace), VN_F(CmdSetPrimitiveTopology),
	VN_FA(CmdSetPrimitiveTopologyEXT, CmdSetPrimitiveTopology), VN_F(CmdSetDepthTestEnable),
	VN_FA(CmdSetDepthTestEnableEXT, CmdSetDepthTestEnable), VN_F(CmdSetDepthWriteEnable),
	VN_FA(CmdSetDepthWriteEnableEXT, CmdSetDepthWriteEnable), VN_F(CmdSetDepthCompareOp),
	VN_FA(CmdSetDepthCompareOpEXT, CmdSetDepthCompareOp), VN_F(CmdSetDepthBoundsTestEnable),
	VN_FA(CmdSetDepthBoundsTestEnableEXT, CmdSetDepthBoundsTestEnable), VN_F(CmdSetStencilTestEnable),
	VN_FA(CmdSetStencilTestEnableEXT, CmdSetStencilTestEnable), VN_F(CmdSetStencilOp),
	VN_FA(CmdSetStencilOpEXT, CmdSetStencilOp), VN_F(CmdSetRasterizerDiscardEnable),
	VN_FA(CmdSetRasterizerDiscardEnableEXT, CmdSetRasterizerDiscardEnable), VN_F(CmdSetDepthBiasEnable),
	VN_FA(CmdSetDepthBiasEnableEXT, CmdSetDepthBiasEnable), VN_F(CmdSetPrimitiveRestartEnable),
	VN_FA(CmdSetPrimitiveRestartEnableEXT, CmdSetPrimitiveRestartEnable), VN_F(CmdBindVertexBuffers2),
	VN_FA(CmdBindVertexBuffers2EXT, CmdBindVertexBuffers2),
	VN_F(CmdSetTessellationDomainOriginEXT), VN_F(CmdSetDepthClampEnableEXT), VN_F(CmdSetPolygonModeEXT),
	VN_F(CmdSetRasterizationSamplesEXT), VN_F(CmdSetSampleMaskEXT), VN_F(CmdSetAlphaToCoverageEnableEXT),
	VN_F(CmdSetAlphaToOneEnableEXT), VN_F(CmdSetLogicOpEnableEXT), VN_F(CmdSetColorBlendEnableEXT),
	VN_F(CmdSetColorBlendEquationEXT), VN_F(CmdSetColorWriteMaskEXT), VN_F(CmdSetDepthClipEnableEXT),
	VN_F(CmdSetProvokingVertexModeEXT), VN_F(CmdSetLineRasterizationModeEXT), VN_F(CmdSetLineStippleEnableEXT),
	VN_F(CmdSetDepthClipNegativeOneToOneEXT), VN_F(CmdSetVertexInputEXT), VN_F(CmdSetLineStippleEXT),
	VN_F(CmdSetLogicOpEXT), VN_F(CmdSetColorWriteEnableEXT), VN_F(CmdSetSampleLocationsEXT),
	VN_F(CmdSetSampleLocationsEnableEXT),
};

static PFN_vkVoidFunction vn_lookup(const char *name)
{
	if (!name)
		return NULL;
	if (strcmp(name, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
	for (size_t i = 0; i < sizeof(vn_fns) / sizeof(vn_fns[0]); i++)
		if (strcmp(vn_fns[i].name, name) == 0)
			return vn_fns[i].fn;
	return NULL;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance inst, const char *name)
{
	return vn_lookup(name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice dev, const char *name)
{
	return vn_lookup(name);
}

void vk_null_reset(void)
{
	vn_init();
	while (vn_g.head.next != &vn_g.head) {
		vn_obj *o = vn_g.head.next;
		o->prev->next = o->next;
		o->next->prev = o->prev;
		o->magic = 0;
		free(o->refs);
		free(o->host);
		free(o->binds);
		free(o->uses);
		free(o->slots);
		free(o);
	}
}

size_t vk_null_live_objects(void)
{
	size_t n = 0;
	vn_init();
	for (vn_obj *o = vn_g.head.next; o != &vn_g.head; o = o->next)
		n++;
	return n;
}
