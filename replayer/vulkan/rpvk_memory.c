/*
 * rpvk_memory.c - device memory (type remap, sizes, mappings, host writes,
 * checkpoints) and descriptor update templates.
 *
 * Memory types: the captured vkGetPhysicalDeviceMemoryProperties[2] output
 * and the live one give a captured -> live type map: the same index when
 * the property flags agree, else the first live type whose flags include
 * the captured type's.  Sizes: a vkGet*MemoryRequirements whose live size
 * exceeds the captured one is remembered, and an allocation of exactly the
 * captured size gets the live size (the replay device may need more).
 *
 * Memory the program imported from its own host allocation
 * (VkImportMemoryHostPointerInfoEXT, VK_EXT_external_memory_host) is
 * allocated here as ordinary memory of the mapped type, which must be
 * host-visible: the capture recorded the contents the program wrote there
 * as host writes, and the program's address means nothing to this process
 * (vkGetMemoryHostPointerPropertiesEXT is answered from the capture).
 *
 * Host writes: a vulkan.tsMemoryWrite record carries the bytes the program
 * wrote into a mapping; they go into the live mapping at the same offset
 * (mapped for the copy when the memory is not mapped now), flushed when the
 * live type is not host-coherent; a vulkan.tsMemoryWrites record carries
 * several runs of one memory object in one blob, written the same way
 * through one access and one flush of the span from the first run to the
 * last (bytes between the runs are not touched).  Checkpoints name a captured
 * VkDeviceMemory and a range of it: the bytes come from the live mapping,
 * invalidated first when the type is not host-coherent.
 *
 * Waits are rpvk_wait.c's.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory types ---------------------------------------------------------- */

int rpvk_memory_type(const rpvk_phys *p, uint32_t bits, VkMemoryPropertyFlags want)
{
	uint32_t i;
	for (i = 0; i < p->live_mem.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (p->live_mem.memoryTypes[i].propertyFlags & want) == want)
			return (int)i;
	return -1;
}

static void rpvk_phys_remap(rpvk_phys *p)
{
	uint32_t i;
	for (i = 0; i < p->captured_mem.memoryTypeCount && i < VK_MAX_MEMORY_TYPES; i++) {
		VkMemoryPropertyFlags want = p->captured_mem.memoryTypes[i].propertyFlags;
		int t;
		if (i < p->live_mem.memoryTypeCount && p->live_mem.memoryTypes[i].propertyFlags == want) {
			p->type_map[i] = i;
			continue;
		}
		t = rpvk_memory_type(p, ~0u, want);
		if (t < 0) /* keep what matters most for replay: host access */
			t = rpvk_memory_type(p, ~0u, want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
		p->type_map[i] = t < 0 ? 0 : (uint32_t)t;
	}
}

static rpvk_phys *rpvk_phys_of(rpvk *r, VkPhysicalDevice live)
{
	size_t i;
	for (i = 0; i < r->nphys; i++)
		if (r->phys[i].live == live)
			return &r->phys[i];
	return NULL;
}

static rp_status rpvk_memprops(rpvk *r, VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties *props,
                               int v2, void *props2)
{
	const rpvk_itable *t = rpvk_itable_for(r, (uint64_t)(uintptr_t)pd);
	VkPhysicalDeviceMemoryProperties captured;
	rpvk_phys *p;
	if (!t)
		return RP_ERR_BACKEND;
	if (!props)
		return RP_OK;
	captured = *props;
	if (v2) {
		PFN_vkGetPhysicalDeviceMemoryProperties2 fn = t->GetPhysicalDeviceMemoryProperties2
		                                                  ? t->GetPhysicalDeviceMemoryProperties2
		                                                  : t->GetPhysicalDeviceMemoryProperties2KHR;
		if (!fn)
			return rpvk_missing(r, "vkGetPhysicalDeviceMemoryProperties2");
		fn(pd, props2);
	} else {
		t->GetPhysicalDeviceMemoryProperties(pd, props);
	}
	p = rpvk_phys_of(r, pd);
	if (!p)
		return RP_OK;
	p->captured_mem = captured;
	p->have_captured = 1;
	p->live_mem = *props;
	p->have_live = 1;
	rpvk_phys_remap(p);
	return RP_OK;
}

rp_status rpvk_o_vkGetPhysicalDeviceMemoryProperties(rpvk *r, void *args)
{
	sbt_vk_args_vkGetPhysicalDeviceMemoryProperties *a = args;
	return rpvk_memprops(r, a->physicalDevice, a->pMemoryProperties, 0, NULL);
}

rp_status rpvk_o_vkGetPhysicalDeviceMemoryProperties2(rpvk *r, void *args)
{
	sbt_vk_args_vkGetPhysicalDeviceMemoryProperties2 *a = args;
	return rpvk_memprops(r, a->physicalDevice,
	                     a->pMemoryProperties ? &a->pMemoryProperties->memoryProperties : NULL, 1,
	                     a->pMemoryProperties);
}

rp_status rpvk_o_vkGetPhysicalDeviceMemoryProperties2KHR(rpvk *r, void *args)
{
	sbt_vk_args_vkGetPhysicalDeviceMemoryProperties2KHR *a = args;
	return rpvk_memprops(r, a->physicalDevice,
	                     a->pMemoryProperties ? &a->pMemoryProperties->memoryProperties : NULL, 1,
	                     a->pMemoryProperties);
}

/* ---- requirements ------------------------------------------------------------ */

static void rpvk_req_note(rpvk *r, VkDeviceSize captured, VkDeviceSize live)
{
	if (live <= captured)
		return;
	r->reqs[r->nreqs % RPVK_REQ_RECENT].captured = captured;
	r->reqs[r->nreqs % RPVK_REQ_RECENT].live = live;
	r->nreqs++;
}

rp_status rpvk_o_vkGetBufferMemoryRequirements(rpvk *r, void *args)
{
	sbt_vk_args_vkGetBufferMemoryRequirements *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkDeviceSize cap;
	if (!t)
		return RP_ERR_BACKEND;
	if (!a->pMemoryRequirements)
		return RP_OK;
	cap = a->pMemoryRequirements->size;
	t->GetBufferMemoryRequirements(a->device, a->buffer, a->pMemoryRequirements);
	rpvk_req_note(r, cap, a->pMemoryRequirements->size);
	return RP_OK;
}

rp_status rpvk_o_vkGetImageMemoryRequirements(rpvk *r, void *args)
{
	sbt_vk_args_vkGetImageMemoryRequirements *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkDeviceSize cap;
	if (!t)
		return RP_ERR_BACKEND;
	if (!a->pMemoryRequirements)
		return RP_OK;
	cap = a->pMemoryRequirements->size;
	t->GetImageMemoryRequirements(a->device, a->image, a->pMemoryRequirements);
	rpvk_req_note(r, cap, a->pMemoryRequirements->size);
	return RP_OK;
}

/* The ...2 forms: one body for the four names (KHR aliases share types). */
#define RPVK_REQ2(name, fn1, fn2, infotype)                                                    \
	rp_status rpvk_o_##name(rpvk *r, void *args)                                               \
	{                                                                                          \
		sbt_vk_args_##name *a = args;                                                          \
		const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);             \
		PFN_vkGet##infotype##MemoryRequirements2 fn;                                           \
		VkDeviceSize cap;                                                                      \
		if (!t)                                                                                \
			return RP_ERR_BACKEND;                                                             \
		fn = t->fn1 ? t->fn1 : t->fn2;                                                         \
		if (!fn)                                                                               \
			return rpvk_missing(r, #name);                                                     \
		if (!a->pMemoryRequirements)                                                           \
			return RP_OK;                                                                      \
		cap = a->pMemoryRequirements->memoryRequirements.size;                                 \
		fn(a->device, a->pInfo, a->pMemoryRequirements);                                       \
		rpvk_req_note(r, cap, a->pMemoryRequirements->memoryRequirements.size);                \
		return RP_OK;                                                                          \
	}

RPVK_REQ2(vkGetBufferMemoryRequirements2, GetBufferMemoryRequirements2,
          GetBufferMemoryRequirements2KHR, Buffer)
RPVK_REQ2(vkGetBufferMemoryRequirements2KHR, GetBufferMemoryRequirements2KHR,
          GetBufferMemoryRequirements2, Buffer)
RPVK_REQ2(vkGetImageMemoryRequirements2, GetImageMemoryRequirements2,
          GetImageMemoryRequirements2KHR, Image)
RPVK_REQ2(vkGetImageMemoryRequirements2KHR, GetImageMemoryRequirements2KHR,
          GetImageMemoryRequirements2, Image)

/* ---- buffer device addresses ------------------------------------------------------ */

/*
 * The address a buffer has here must be the one it had at capture: the
 * trace holds the application's addresses as plain bytes (push constants,
 * buffer and memory contents, shader binding tables), which this replayer
 * does not find or rewrite, so a shader would dereference the capture's
 * address (lavapipe died of SIGSEGV in its compiled shader replaying
 * tests/programs/vk_fresh --address).  A different address stops the
 * replay here, before any command uses it.  The three names share one
 * body (the KHR and EXT forms alias the core types).
 */
#define RPVK_ADDRESS(name, fn1, fn2, fn3)                                                      \
	rp_status rpvk_o_##name(rpvk *r, void *args)                                               \
	{                                                                                          \
		sbt_vk_args_##name *a = args;                                                          \
		const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);             \
		PFN_vkGetBufferDeviceAddress fn;                                                       \
		VkDeviceAddress captured = a->ret;                                                     \
		if (!t)                                                                                \
			return RP_ERR_BACKEND;                                                             \
		fn = t->fn1 ? t->fn1 : t->fn2 ? t->fn2 : t->fn3;                                       \
		if (!fn)                                                                               \
			return rpvk_missing(r, #name);                                                     \
		if (!a->pInfo)                                                                         \
			return rpvk_fail(r, RP_ERR_DECODE, "no VkBufferDeviceAddressInfo");                \
		a->ret = fn(a->device, a->pInfo);                                                      \
		return rpvk_address_check(r, a->pInfo->buffer, captured, a->ret);                      \
	}

static rp_status rpvk_address_check(rpvk *r, VkBuffer buffer, VkDeviceAddress captured,
                                    VkDeviceAddress live)
{
	if (captured == live)
		return RP_OK;
	return rpvk_fail(r, RP_ERR_UNSUPPORTED,
	                 "VkBuffer 0x%llx has device address 0x%llx here but had 0x%llx at "
	                 "capture: the trace's device addresses (in push constants, buffers and "
	                 "memory) would point elsewhere, and tsreplay does not rewrite them; "
	                 "stopped before any command uses it",
	                 (unsigned long long)(uintptr_t)buffer, (unsigned long long)live,
	                 (unsigned long long)captured);
}

RPVK_ADDRESS(vkGetBufferDeviceAddress, GetBufferDeviceAddress, GetBufferDeviceAddressKHR,
             GetBufferDeviceAddressEXT)
RPVK_ADDRESS(vkGetBufferDeviceAddressKHR, GetBufferDeviceAddressKHR, GetBufferDeviceAddress,
             GetBufferDeviceAddressEXT)
RPVK_ADDRESS(vkGetBufferDeviceAddressEXT, GetBufferDeviceAddressEXT, GetBufferDeviceAddress,
             GetBufferDeviceAddressKHR)

/* ---- allocations ------------------------------------------------------------------ */

static void rpvk_mem_sync(rpvk *r, rpvk_mem *m, uint64_t off, uint64_t len, int flush);

rpvk_mem *rpvk_mem_find(rpvk *r, uint64_t captured)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->mems, VK_OBJECT_TYPE_DEVICE_MEMORY, captured);
	return s ? (rpvk_mem *)(uintptr_t)s->val : NULL;
}

/* The captured handle the current decode mapped to this live memory. */
static uint64_t rpvk_mem_captured(const rpvk *r, VkDeviceMemory live)
{
	size_t i;
	for (i = 0; i < r->nmapped; i++)
		if (r->mapped[i].type == VK_OBJECT_TYPE_DEVICE_MEMORY &&
		    r->mapped[i].live == (uint64_t)(uintptr_t)live)
			return r->mapped[i].captured;
	return 0;
}

static void rpvk_mem_release(rpvk *r, rpvk_mem *m, int free_live)
{
	rpvk_device *dv = &r->dev[m->dev];
	/* memory of a device left busy stays: its work may still use it */
	if (free_live && !dv->busy && dv->live == m->device && m->live && dv->t.FreeMemory)
		dv->t.FreeMemory(dv->live, m->live, NULL);
	free(m);
}

void rpvk_mem_clear(rpvk *r)
{
	size_t i;
	for (i = 0; i < r->mems.cap; i++) {
		rpvk_map_slot *s = &r->mems.slots[i];
		if (s->type && s->type != RPVK_MAP_TOMB)
			rpvk_mem_release(r, (rpvk_mem *)(uintptr_t)s->val, 1);
	}
	rpvk_map_clear(&r->mems);
}

void rpvk_mem_forget_device(rpvk *r, int dev)
{
	size_t i;
	for (i = 0; i < r->mems.cap; i++) {
		rpvk_map_slot *s = &r->mems.slots[i];
		rpvk_mem *m;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		m = (rpvk_mem *)(uintptr_t)s->val;
		if (m->dev == dev) {
			rpvk_mem_release(r, m, 0);
			s->type = RPVK_MAP_TOMB;
			r->mems.live--;
		}
	}
}

/*
 * New host-visible memory starts zeroed.  The layer records host writes as
 * the bytes that differ from what the mapping held before, and the memory
 * it was given held zeros (drivers hand out cleared memory), so a zero the
 * program wrote over a zero is not in the trace; a recycled allocation in
 * the replay must hold those zeros too.
 */
static void rpvk_mem_zero(rpvk *r, const rpvk_dtable *t, VkDevice device, rpvk_mem *m,
                          const rpvk_phys *p)
{
	void *ptr = NULL;
	if (!p->have_live || m->live_type >= p->live_mem.memoryTypeCount ||
	    !(p->live_mem.memoryTypes[m->live_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return;
	if (t->MapMemory(device, m->live, 0, VK_WHOLE_SIZE, 0, &ptr) != VK_SUCCESS)
		return;
	memset(ptr, 0, m->size);
	rpvk_mem_sync(r, m, 0, m->size, 1);
	t->UnmapMemory(device, m->live);
}

/* The capturing process's host address means nothing here: answered from
 * the capture (the import itself becomes an ordinary allocation). */
rp_status rpvk_o_vkGetMemoryHostPointerPropertiesEXT(rpvk *r, void *args)
{
	(void)r;
	(void)args;
	return RP_OK;
}

/* Unlink an import of the program's host memory from the allocation's
 * chain (the decoder's copy): 1 when there was one. */
static int rpvk_mem_unimport(VkMemoryAllocateInfo *ai)
{
	VkBaseOutStructure *prev = (VkBaseOutStructure *)(void *)ai, *b;
	for (b = prev->pNext; b; prev = b, b = b->pNext)
		if (b->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT) {
			prev->pNext = b->pNext;
			return 1;
		}
	return 0;
}

rp_status rpvk_o_vkAllocateMemory(rpvk *r, void *args)
{
	sbt_vk_args_vkAllocateMemory *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkMemoryAllocateInfo *ai = (VkMemoryAllocateInfo *)a->pAllocateInfo;
	VkResult cap_ret = a->ret;
	uint64_t captured;
	VkDeviceSize cap_size;
	rpvk_phys *p;
	rpvk_mem *m;
	size_t i;

	if (!t)
		return RP_ERR_BACKEND;
	if (!ai || !a->pMemory)
		return rpvk_fail(r, RP_ERR_DECODE, "no allocate info or output handle");
	captured = (uint64_t)(uintptr_t)*a->pMemory;
	cap_size = ai->allocationSize;
	p = &r->phys[r->dev[r->cur_dev].phys];
	/* what no valid application asks, refused before the driver sees it */
	if (!ai->allocationSize)
		return rpvk_fail(r, RP_ERR_TRACE, "an allocation of 0 bytes: a valid application never "
		                 "makes this call");
	/* a handle a driver handed out once is not handed out again while it
	 * lives: the record was repeated (the replay would lose the first) */
	if (captured && rpvk_map_get(&r->mems, VK_OBJECT_TYPE_DEVICE_MEMORY, captured))
		return rpvk_fail(r, RP_ERR_TRACE, "VkDeviceMemory 0x%llx was allocated already and not "
		                 "freed since: a valid trace never has this call",
		                 (unsigned long long)captured);
	if (ai->memoryTypeIndex >= VK_MAX_MEMORY_TYPES ||
	    (p->have_captured && ai->memoryTypeIndex >= p->captured_mem.memoryTypeCount))
		return rpvk_fail(r, RP_ERR_TRACE, "memory type %u does not exist on the captured device: "
		                 "a valid application never makes this call", ai->memoryTypeIndex);
	if (p->have_captured && ai->memoryTypeIndex < VK_MAX_MEMORY_TYPES) {
		uint32_t to = p->type_map[ai->memoryTypeIndex];
		if (to != ai->memoryTypeIndex && r->run == 1)
			rpvk_warn(r, "seq %llu vkAllocateMemory: captured memory type %u is type %u here",
			          (unsigned long long)r->seq, ai->memoryTypeIndex, to);
		ai->memoryTypeIndex = to;
	}
	if (rpvk_mem_unimport(ai) && p->have_live &&
	    (ai->memoryTypeIndex >= p->live_mem.memoryTypeCount ||
	     !(p->live_mem.memoryTypes[ai->memoryTypeIndex].propertyFlags &
	       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)))
		return rpvk_fail(r, RP_ERR_BACKEND, "memory the program imported from its host memory "
		                 "is allocated here as memory of type %u, which is not host-visible: "
		                 "its contents cannot be written", ai->memoryTypeIndex);
	for (i = 0; i < RPVK_REQ_RECENT && i < r->nreqs; i++)
		if (r->reqs[i].captured == cap_size && r->reqs[i].live > ai->allocationSize)
			ai->allocationSize = r->reqs[i].live;
	/* More than the whole heap cannot succeed here; refused before the
	 * driver is asked (which may otherwise try for a long time: a
	 * host-visible allocation is cleared by the replay). */
	if (p->have_live && ai->memoryTypeIndex < p->live_mem.memoryTypeCount) {
		const VkMemoryHeap *h =
		    &p->live_mem.memoryHeaps[p->live_mem.memoryTypes[ai->memoryTypeIndex].heapIndex];
		if (ai->allocationSize > h->size)
			return rpvk_fail(r, RP_ERR_BACKEND,
			                 "an allocation of %llu bytes is larger than the whole heap of its "
			                 "memory type %u here (%llu bytes)",
			                 (unsigned long long)ai->allocationSize, ai->memoryTypeIndex,
			                 (unsigned long long)h->size);
	}
	a->ret = t->AllocateMemory(a->device, ai, NULL, a->pMemory);
	rpvk_result(r, cap_ret, a->ret);
	if (a->ret != VK_SUCCESS || cap_ret != VK_SUCCESS || !captured)
		return RP_OK;
	m = calloc(1, sizeof(*m));
	if (!m)
		return rpvk_nomem(r);
	m->live = *a->pMemory;
	m->device = a->device;
	m->dev = r->cur_dev;
	m->size = ai->allocationSize;
	m->captured_size = cap_size;
	m->live_type = ai->memoryTypeIndex;
	m->coherent = p->have_live && ai->memoryTypeIndex < p->live_mem.memoryTypeCount &&
	              (p->live_mem.memoryTypes[ai->memoryTypeIndex].propertyFlags &
	               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	for (const VkBaseInStructure *n = ai->pNext; n; n = n->pNext)
		if (n->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO) {
			const VkMemoryDedicatedAllocateInfo *d = (const VkMemoryDedicatedAllocateInfo *)n;
			m->dedicated = d->buffer || d->image;
		}
	if (rpvk_map_put(&r->mems, VK_OBJECT_TYPE_DEVICE_MEMORY, captured, (uint64_t)(uintptr_t)m, 0) != 0) {
		free(m);
		return rpvk_nomem(r);
	}
	rpvk_mem_zero(r, t, a->device, m, p);
	if (rpvk_bind(r, VK_OBJECT_TYPE_DEVICE_MEMORY, captured, (uint64_t)(uintptr_t)*a->pMemory) != RP_OK)
		return rpvk_nomem(r);
	return RP_OK;
}

rp_status rpvk_o_vkFreeMemory(rpvk *r, void *args)
{
	sbt_vk_args_vkFreeMemory *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	uint64_t captured = rpvk_mem_captured(r, a->memory);
	rpvk_mem *m;
	if (!t)
		return RP_ERR_BACKEND;
	if (!a->memory)
		return RP_OK;
	m = captured ? rpvk_mem_find(r, captured) : NULL;
	/* Work in flight may still use it (a trace whose free was moved ahead
	 * of a wait): wait first, as a careful application would, when
	 * anything was submitted since the device was last seen idle. */
	if (r->cur_dev >= 0 && r->cur_dev < r->ndev && r->dev[r->cur_dev].pending &&
	    rpvk_device_idle(r, r->cur_dev, VK_NULL_HANDLE, r->wait_ns) == VK_TIMEOUT)
		return rpvk_fail(r, RP_ERR_TRACE, "the device did not finish within %g s the work that "
		                 "may use the memory being freed (tsreplay --wait-timeout SECONDS waits "
		                 "longer)", (double)r->wait_ns / 1e9);
	/* --per-command may keep it a while (a command buffer's copy of its own
	 * still reads it: rpvk_percmd.c frees it) */
	if (!rpvk_percmd_keeps_memory(r, a->memory))
		t->FreeMemory(a->device, a->memory, NULL);
	if (m) {
		m->live = VK_NULL_HANDLE;
		rpvk_mem_release(r, m, 0);
		rpvk_map_del(&r->mems, VK_OBJECT_TYPE_DEVICE_MEMORY, captured);
	}
	rpvk_forget(r, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)a->memory);
	return RP_OK;
}

rp_status rpvk_o_vkMapMemory(rpvk *r, void *args)
{
	sbt_vk_args_vkMapMemory *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	uint64_t captured = rpvk_mem_captured(r, a->memory);
	rpvk_mem *m = captured ? rpvk_mem_find(r, captured) : NULL;
	VkResult cap_ret = a->ret;
	void *ptr = NULL;
	if (!t)
		return RP_ERR_BACKEND;
	if (!m)
		return rpvk_fail(r, RP_ERR_NOT_FOUND, "memory 0x%llx was not allocated by this replay",
		                 (unsigned long long)captured);
	/* what a valid application never asks (a driver may hand back a
	 * pointer past the allocation, or trip on the second mapping) */
	if (m->ptr)
		return rpvk_fail(r, RP_ERR_TRACE, "memory 0x%llx is mapped already: a valid application "
		                 "never makes this call", (unsigned long long)captured);
	if (a->offset >= m->size || (a->size != VK_WHOLE_SIZE && (!a->size || a->size > m->size - a->offset)))
		return rpvk_fail(r, RP_ERR_TRACE, "range %llu+%llu lies outside the allocation (%llu "
		                 "bytes here): a valid application never makes this call",
		                 (unsigned long long)a->offset, (unsigned long long)a->size,
		                 (unsigned long long)m->size);
	a->ret = t->MapMemory(a->device, a->memory, a->offset, a->size, a->flags, &ptr);
	rpvk_result(r, cap_ret, a->ret);
	if (a->ret != VK_SUCCESS)
		return RP_OK;
	m->ptr = ptr;
	m->map_off = a->offset;
	m->map_size = a->size == VK_WHOLE_SIZE ? m->size - a->offset : a->size;
	return RP_OK;
}

rp_status rpvk_o_vkUnmapMemory(rpvk *r, void *args)
{
	sbt_vk_args_vkUnmapMemory *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	uint64_t captured = rpvk_mem_captured(r, a->memory);
	rpvk_mem *m = captured ? rpvk_mem_find(r, captured) : NULL;
	if (!t)
		return RP_ERR_BACKEND;
	if (m && m->ptr) {
		t->UnmapMemory(a->device, a->memory);
		m->ptr = NULL;
	}
	return RP_OK;
}

/* The memory of a live handle the current decode mapped, or NULL. */
static rpvk_mem *rpvk_mem_live(rpvk *r, VkDeviceMemory live)
{
	uint64_t captured = rpvk_mem_captured(r, live);
	return captured ? rpvk_mem_find(r, captured) : NULL;
}

rp_status rpvk_memory_ranges_check(rpvk *r, uint32_t n, const VkMappedMemoryRange *ranges)
{
	for (uint32_t i = 0; ranges && i < n; i++) {
		const VkMappedMemoryRange *g = &ranges[i];
		rpvk_mem *m = rpvk_mem_live(r, g->memory);
		if (!m)
			continue; /* not ours to judge */
		if (!m->ptr)
			return rpvk_fail(r, RP_ERR_TRACE, "range %u: its memory is not mapped: a valid "
			                 "application never makes this call, and a driver may crash on it", i);
		if (g->offset < m->map_off || g->offset - m->map_off > m->map_size ||
		    (g->size != VK_WHOLE_SIZE && g->size > m->map_size - (g->offset - m->map_off)))
			return rpvk_fail(r, RP_ERR_TRACE, "range %u (%llu+%llu) lies outside the mapped range "
			                 "[%llu, %llu): a valid application never makes this call, and a "
			                 "driver may crash on it", i, (unsigned long long)g->offset,
			                 (unsigned long long)g->size, (unsigned long long)m->map_off,
			                 (unsigned long long)(m->map_off + m->map_size));
	}
	return RP_OK;
}

rp_status rpvk_memory_bind_check(rpvk *r, VkObjectType type, uint64_t res, VkDeviceMemory mem,
                                 VkDeviceSize off, VkImageAspectFlagBits plane)
{
	rpvk_mem *m = rpvk_mem_live(r, mem);
	const rpvk_dtable *t;
	VkMemoryRequirements req;
	if (!m || !res || m->dev < 0 || m->dev >= r->ndev || !r->dev[m->dev].live)
		return RP_OK; /* not ours to judge */
	t = &r->dev[m->dev].t;
	memset(&req, 0, sizeof(req));
	if (type == VK_OBJECT_TYPE_BUFFER && t->GetBufferMemoryRequirements) {
		t->GetBufferMemoryRequirements(r->dev[m->dev].live, (VkBuffer)(uintptr_t)res, &req);
	} else if (type == VK_OBJECT_TYPE_IMAGE && plane) {
		/* a disjoint image's plane: that plane's requirements */
		PFN_vkGetImageMemoryRequirements2 get = t->GetImageMemoryRequirements2
		                                            ? t->GetImageMemoryRequirements2
		                                            : t->GetImageMemoryRequirements2KHR;
		VkImagePlaneMemoryRequirementsInfo pi = {VK_STRUCTURE_TYPE_IMAGE_PLANE_MEMORY_REQUIREMENTS_INFO,
		                                         NULL, plane};
		VkImageMemoryRequirementsInfo2 info = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, &pi,
		                                       (VkImage)(uintptr_t)res};
		VkMemoryRequirements2 req2 = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, NULL, {0, 0, 0}};
		if (!get)
			return RP_OK; /* not ours to judge */
		get(r->dev[m->dev].live, &info, &req2);
		req = req2.memoryRequirements;
	} else if (type == VK_OBJECT_TYPE_IMAGE && t->GetImageMemoryRequirements) {
		t->GetImageMemoryRequirements(r->dev[m->dev].live, (VkImage)(uintptr_t)res, &req);
	}
	if (off > m->size || req.size > m->size - off)
		return rpvk_fail(r, RP_ERR_TRACE, "the %s needs %llu bytes at offset %llu, and the memory "
		                 "has %llu here: a valid application never makes this call, and a driver "
		                 "may crash on it", type == VK_OBJECT_TYPE_BUFFER ? "buffer" : "image",
		                 (unsigned long long)req.size, (unsigned long long)off,
		                 (unsigned long long)m->size);
	if (req.alignment && off % req.alignment)
		return rpvk_fail(r, RP_ERR_TRACE, "offset %llu is not a multiple of the %s's alignment "
		                 "(%llu here): a valid application never makes this call",
		                 (unsigned long long)off, type == VK_OBJECT_TYPE_BUFFER ? "buffer" : "image",
		                 (unsigned long long)req.alignment);
	return RP_OK;
}

/* A pointer to [off, off + len) of m: the live mapping, or a temporary one
 * (*temp set: unmap after use).  NULL with diag set on failure. */
static uint8_t *rpvk_mem_access(rpvk *r, rpvk_mem *m, uint64_t off, uint64_t len, int *temp)
{
	rpvk_device *dv = &r->dev[m->dev];
	void *ptr = NULL;
	VkResult res;
	*temp = 0;
	if (m->ptr && off >= m->map_off && off - m->map_off <= m->map_size &&
	    len <= m->map_size - (off - m->map_off))
		return (uint8_t *)m->ptr + (off - m->map_off);
	if (m->ptr) {
		rpvk_fail(r, RP_ERR_BACKEND, "range [%llu, %llu) of the memory lies outside its "
		          "mapping [%llu, %llu)", (unsigned long long)off, (unsigned long long)(off + len),
		          (unsigned long long)m->map_off, (unsigned long long)(m->map_off + m->map_size));
		return NULL;
	}
	res = dv->t.MapMemory(dv->live, m->live, off, len ? len : VK_WHOLE_SIZE, 0, &ptr);
	if (res != VK_SUCCESS) {
		rpvk_fail(r, RP_ERR_BACKEND, "cannot map the memory here: %s (%d); is its type "
		          "host-visible on this device?", rpvk_result_name(res), (int)res);
		return NULL;
	}
	*temp = 1;
	return ptr;
}

/* Flush or invalidate [off, off+len) of non-coherent memory (whole atoms). */
static void rpvk_mem_sync(rpvk *r, rpvk_mem *m, uint64_t off, uint64_t len, int flush)
{
	rpvk_device *dv = &r->dev[m->dev];
	VkDeviceSize atom = r->phys[dv->phys].atom ? r->phys[dv->phys].atom : 1;
	VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, m->live, 0, 0};
	uint64_t end = off + len;
	if (m->coherent)
		return;
	range.offset = off / atom * atom;
	end = (end + atom - 1) / atom * atom;
	range.size = end >= m->size ? VK_WHOLE_SIZE : end - range.offset;
	if (flush)
		dv->t.FlushMappedMemoryRanges(dv->live, 1, &range);
	else
		dv->t.InvalidateMappedMemoryRanges(dv->live, 1, &range);
}

/* Where a memory-write record's bytes go: memory's [lo, hi), with the
 * blob that holds them (bytes long) read and the memory's range mapped.
 * Close with rpvk_write_close whatever the result. */
typedef struct rpvk_write_target {
	rpvk_mem *m;
	void *data;   /* the blob (owned) */
	uint8_t *dst; /* memory's byte lo, mapped */
	int temp;     /* mapped for this write only */
} rpvk_write_target;

static rp_status rpvk_write_open(rpvk *r, const char *name, uint64_t memory, uint64_t lo,
                                 uint64_t hi, uint64_t blob_id, uint64_t bytes,
                                 rpvk_write_target *t)
{
	size_t got = 0;

	memset(t, 0, sizeof(*t));
	t->m = rpvk_mem_find(r, memory);
	if (!t->m) {
		rp_diag_set(r->diag, "record seq %llu %s: unknown VkDeviceMemory 0x%llx (not allocated "
		            "in this replay)", (unsigned long long)r->seq, name, (unsigned long long)memory);
		return RP_ERR_NOT_FOUND;
	}
	if (lo > hi || hi > t->m->captured_size) {
		rp_diag_set(r->diag, "record seq %llu %s: range [%llu, %llu) exceeds the %llu bytes of "
		            "memory 0x%llx", (unsigned long long)r->seq, name, (unsigned long long)lo,
		            (unsigned long long)hi, (unsigned long long)t->m->captured_size,
		            (unsigned long long)memory);
		return RP_ERR_DECODE;
	}
	if (sbt_reader_blob_get(r->trace, blob_id, &t->data, &got) != SBT_OK || got != bytes) {
		rp_diag_set(r->diag, "record seq %llu %s: blob %llu of %llu bytes cannot be read "
		            "(got %zu)", (unsigned long long)r->seq, name, (unsigned long long)blob_id,
		            (unsigned long long)bytes, got);
		return RP_ERR_TRACE;
	}
	t->dst = rpvk_mem_access(r, t->m, lo, hi - lo, &t->temp);
	if (!t->dst) {
		size_t used = strlen(r->diag->text);
		snprintf(r->diag->text + used, sizeof(r->diag->text) - used, " (memory 0x%llx)",
		         (unsigned long long)memory);
		return RP_ERR_BACKEND;
	}
	return RP_OK;
}

/* Flushes what was written to [lo, hi) (when it was mapped) and lets go. */
static void rpvk_write_close(rpvk *r, rpvk_write_target *t, uint64_t lo, uint64_t hi)
{
	if (t->dst) {
		rpvk_mem_sync(r, t->m, lo, hi - lo, 1);
		if (t->temp)
			r->dev[t->m->dev].t.UnmapMemory(r->dev[t->m->dev].live, t->m->live);
	}
	free(t->data);
}

rp_status rpvk_memory_write(rpvk *r, const uint8_t *payload, size_t len)
{
	sbt_vk_ts_memory_write w;
	rpvk_write_target t;
	rp_status st;

	r->cmd = (enum sbt_vk_cmd)0;
	if (sbt_vk_ts_memory_write_decode(payload, len, &w) != SBT_VK_OK) {
		rp_diag_set(r->diag, "record seq %llu %s: cannot decode its payload (%zu bytes)",
		            (unsigned long long)r->seq, SBT_VK_TS_MEMORY_WRITE_NAME, len);
		return RP_ERR_DECODE;
	}
	if (w.offset > UINT64_MAX - w.size) {
		rp_diag_set(r->diag, "record seq %llu %s: offset %llu + size %llu overflow",
		            (unsigned long long)r->seq, SBT_VK_TS_MEMORY_WRITE_NAME,
		            (unsigned long long)w.offset, (unsigned long long)w.size);
		return RP_ERR_DECODE;
	}
	st = rpvk_write_open(r, SBT_VK_TS_MEMORY_WRITE_NAME, w.memory, w.offset, w.offset + w.size,
	                     w.blob_id, w.size, &t);
	if (st == RP_OK)
		memcpy(t.dst, t.data, w.size);
	rpvk_write_close(r, &t, w.offset, w.offset + w.size);
	return st;
}

rp_status rpvk_memory_writes(rpvk *r, const uint8_t *payload, size_t len)
{
	sbt_vk_ts_memory_writes w;
	sbt_vk_ts_run_iter it;
	rpvk_write_target t;
	uint64_t off, size, at;
	rp_status st;

	r->cmd = (enum sbt_vk_cmd)0;
	if (sbt_vk_ts_memory_writes_decode(payload, len, &w) != SBT_VK_OK) {
		rp_diag_set(r->diag, "record seq %llu %s: cannot decode its payload (%zu bytes)",
		            (unsigned long long)r->seq, SBT_VK_TS_MEMORY_WRITES_NAME, len);
		return RP_ERR_DECODE;
	}
	/* the runs ascend (checked by the decode): the last one ends at hi */
	st = rpvk_write_open(r, SBT_VK_TS_MEMORY_WRITES_NAME, w.memory, w.lo, w.hi, w.blob_id,
	                     w.bytes, &t);
	if (st == RP_OK) {
		sbt_vk_ts_run_iter_init(&it, &w);
		while (sbt_vk_ts_run_iter_next(&it, &off, &size, &at))
			memcpy(t.dst + (off - w.lo), (const uint8_t *)t.data + at, (size_t)size);
	}
	rpvk_write_close(r, &t, w.lo, w.hi);
	return st;
}

rp_status rpvk_memory_checkpoint(rpvk *r, const sbt_checkpoint *cp, const void **bytes_out)
{
	rpvk_mem *m = rpvk_mem_find(r, cp->object);
	uint8_t *src;
	int temp;
	if (!m) {
		rp_diag_set(r->diag, "object 0x%llx is not a VkDeviceMemory of this replay",
		            (unsigned long long)cp->object);
		return RP_ERR_NOT_FOUND;
	}
	if (cp->offset > m->size || cp->length > m->size - cp->offset) {
		rp_diag_set(r->diag, "range [%llu, %llu) exceeds the %llu bytes of memory 0x%llx",
		            (unsigned long long)cp->offset, (unsigned long long)(cp->offset + cp->length),
		            (unsigned long long)m->size, (unsigned long long)cp->object);
		return RP_ERR_TRACE;
	}
	r->seq = cp->call_seq;
	if (r->settled_seq != cp->call_seq) {
		rpvk_device_settle(r, m->dev);
		r->settled_seq = cp->call_seq;
	}
	src = rpvk_mem_access(r, m, cp->offset, cp->length, &temp);
	if (!src)
		return RP_ERR_BACKEND;
	rpvk_mem_sync(r, m, cp->offset, cp->length, 0);
	if (!temp) {
		*bytes_out = src;
		return RP_OK;
	}
	if (r->cp_cap < cp->length) {
		uint8_t *nb = realloc(r->cp_buf, cp->length);
		if (!nb) {
			r->dev[m->dev].t.UnmapMemory(r->dev[m->dev].live, m->live);
			rp_diag_set(r->diag, "out of memory copying %llu bytes", (unsigned long long)cp->length);
			return RP_ERR_NOMEM;
		}
		r->cp_buf = nb;
		r->cp_cap = cp->length;
	}
	memcpy(r->cp_buf, src, cp->length);
	r->dev[m->dev].t.UnmapMemory(r->dev[m->dev].live, m->live);
	*bytes_out = r->cp_buf;
	return RP_OK;
}

int rpvk_memory_read_host(rpvk *r, rpvk_mem *m, uint8_t *out)
{
	const rpvk_phys *p = &r->phys[r->dev[m->dev].phys];
	uint8_t *src;
	int temp;
	if (!p->have_live || m->live_type >= p->live_mem.memoryTypeCount ||
	    !(p->live_mem.memoryTypes[m->live_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return 0;
	if (m->ptr && (m->map_off != 0 || m->map_size < m->size))
		return 0;
	src = rpvk_mem_access(r, m, 0, m->size, &temp);
	if (!src)
		return -1;
	rpvk_mem_sync(r, m, 0, m->size, 0);
	memcpy(out, src, (size_t)m->size);
	if (temp)
		r->dev[m->dev].t.UnmapMemory(r->dev[m->dev].live, m->live);
	return 1;
}

/* ---- descriptor update templates ------------------------------------------------- */

static rp_status rpvk_template_create(rpvk *r, VkDevice device,
                                      const VkDescriptorUpdateTemplateCreateInfo *ci,
                                      VkDescriptorUpdateTemplate *out, VkResult *ret, int khr)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)device);
	PFN_vkCreateDescriptorUpdateTemplate fn;
	VkResult cap_ret = *ret;
	uint64_t captured;
	rpvk_template *tp;
	if (!t)
		return RP_ERR_BACKEND;
	fn = khr ? t->CreateDescriptorUpdateTemplateKHR : t->CreateDescriptorUpdateTemplate;
	if (!fn)
		fn = khr ? t->CreateDescriptorUpdateTemplate : t->CreateDescriptorUpdateTemplateKHR;
	if (!fn)
		return rpvk_missing(r, "vkCreateDescriptorUpdateTemplate");
	if (!ci || !out)
		return rpvk_fail(r, RP_ERR_DECODE, "no create info or output handle");
	captured = (uint64_t)(uintptr_t)*out;
	*ret = fn(device, ci, NULL, out);
	rpvk_result(r, cap_ret, *ret);
	if (*ret != VK_SUCCESS || !captured)
		return RP_OK;
	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return rpvk_nomem(r);
	tp->n = ci->descriptorUpdateEntryCount;
	tp->entries = calloc(tp->n ? tp->n : 1, sizeof(*tp->entries));
	if (!tp->entries) {
		free(tp);
		return rpvk_nomem(r);
	}
	if (tp->n && ci->pDescriptorUpdateEntries)
		memcpy(tp->entries, ci->pDescriptorUpdateEntries, tp->n * sizeof(*tp->entries));
	if (rpvk_map_put(&r->templates, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE,
	                 (uint64_t)(uintptr_t)*out, (uint64_t)(uintptr_t)tp, 0) != 0) {
		free(tp->entries);
		free(tp);
		return rpvk_nomem(r);
	}
	return rpvk_bind(r, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, captured,
	                 (uint64_t)(uintptr_t)*out) == RP_OK ? RP_OK : rpvk_nomem(r);
}

rp_status rpvk_o_vkCreateDescriptorUpdateTemplate(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateDescriptorUpdateTemplate *a = args;
	return rpvk_template_create(r, a->device, a->pCreateInfo, a->pDescriptorUpdateTemplate, &a->ret, 0);
}

rp_status rpvk_o_vkCreateDescriptorUpdateTemplateKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkCreateDescriptorUpdateTemplateKHR *a = args;
	return rpvk_template_create(r, a->device, a->pCreateInfo, a->pDescriptorUpdateTemplate, &a->ret, 1);
}

static void rpvk_template_free(rpvk_template *tp)
{
	if (!tp)
		return;
	free(tp->entries);
	free(tp);
}

void rpvk_template_clear(rpvk *r)
{
	size_t i;
	for (i = 0; i < r->templates.cap; i++) {
		rpvk_map_slot *s = &r->templates.slots[i];
		if (s->type && s->type != RPVK_MAP_TOMB)
			rpvk_template_free((rpvk_template *)(uintptr_t)s->val);
	}
	rpvk_map_clear(&r->templates);
}

static rp_status rpvk_template_destroy(rpvk *r, VkDevice device, VkDescriptorUpdateTemplate tmpl, int khr)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)device);
	PFN_vkDestroyDescriptorUpdateTemplate fn;
	const rpvk_map_slot *s;
	if (!t)
		return RP_ERR_BACKEND;
	fn = khr ? t->DestroyDescriptorUpdateTemplateKHR : t->DestroyDescriptorUpdateTemplate;
	if (!fn)
		fn = khr ? t->DestroyDescriptorUpdateTemplate : t->DestroyDescriptorUpdateTemplateKHR;
	if (!fn)
		return rpvk_missing(r, "vkDestroyDescriptorUpdateTemplate");
	fn(device, tmpl, NULL);
	s = rpvk_map_get(&r->templates, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, (uint64_t)(uintptr_t)tmpl);
	if (s) {
		rpvk_template_free((rpvk_template *)(uintptr_t)s->val);
		rpvk_map_del(&r->templates, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, (uint64_t)(uintptr_t)tmpl);
	}
	rpvk_forget(r, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, (uint64_t)(uintptr_t)tmpl);
	return RP_OK;
}

rp_status rpvk_o_vkDestroyDescriptorUpdateTemplate(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroyDescriptorUpdateTemplate *a = args;
	return rpvk_template_destroy(r, a->device, a->descriptorUpdateTemplate, 0);
}

rp_status rpvk_o_vkDestroyDescriptorUpdateTemplateKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkDestroyDescriptorUpdateTemplateKHR *a = args;
	return rpvk_template_destroy(r, a->device, a->descriptorUpdateTemplate, 1);
}

/* Map one handle inside pData in place.  required: the descriptor type
 * uses it (an unknown one is an error); otherwise it is mapped when known
 * and left alone when not (ignored by the driver, e.g. immutable samplers). */
static int rpvk_map_inplace(rpvk *r, VkObjectType type, uint8_t *at, int required)
{
	uint64_t v, live;
	memcpy(&v, at, sizeof(v));
	if (!v)
		return 0;
	if (!required) {
		const rpvk_map_slot *s = rpvk_map_get(&r->handles, (uint32_t)type, v);
		if (s)
			memcpy(at, &s->val, sizeof(s->val));
		return 0;
	}
	if (rpvk_lookup(r, type, v, &live) != 0)
		return -1;
	memcpy(at, &live, sizeof(live));
	return 0;
}

/* Bytes one descriptor of this type takes in pData. */
static size_t rpvk_template_elem(VkDescriptorType type)
{
	switch (type) {
	case VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK: return 1;
	case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
	case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR: return sizeof(uint64_t);
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC: return sizeof(VkDescriptorBufferInfo);
	default: return sizeof(VkDescriptorImageInfo);
	}
}

/* A copy of pData with its handles live; NULL (diag set) on failure. */
static void *rpvk_template_data(rpvk *r, VkDescriptorUpdateTemplate tmpl, const void *data)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->templates, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE,
	                                      (uint64_t)(uintptr_t)tmpl);
	const rpvk_template *tp;
	size_t extent = 0;
	uint8_t *copy;
	uint32_t e, i;
	if (!s) {
		rpvk_fail(r, RP_ERR_NOT_FOUND, "descriptor update template 0x%llx is unknown",
		          (unsigned long long)(uintptr_t)tmpl);
		return NULL;
	}
	tp = (const rpvk_template *)(uintptr_t)s->val;
	for (e = 0; e < tp->n; e++) {
		const VkDescriptorUpdateTemplateEntry *en = &tp->entries[e];
		size_t elem = rpvk_template_elem(en->descriptorType);
		size_t end;
		if (!en->descriptorCount)
			continue;
		end = en->offset + (en->descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK
		                        ? en->descriptorCount
		                        : en->stride * (en->descriptorCount - 1) + elem);
		if (end > extent)
			extent = end;
	}
	if (!data) {
		if (extent)
			rpvk_fail(r, RP_ERR_DECODE, "pData is absent from the trace (%zu bytes expected)", extent);
		return extent ? NULL : rpvk_scratch(r, 1);
	}
	copy = rpvk_scratch(r, extent ? extent : 1);
	if (!copy) {
		rpvk_nomem(r);
		return NULL;
	}
	memcpy(copy, data, extent);
	for (e = 0; e < tp->n; e++) {
		const VkDescriptorUpdateTemplateEntry *en = &tp->entries[e];
		if (en->descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK)
			continue;
		for (i = 0; i < en->descriptorCount; i++) {
			uint8_t *at = copy + en->offset + (size_t)i * en->stride;
			int bad = 0;
			switch (en->descriptorType) {
			case VK_DESCRIPTOR_TYPE_SAMPLER:
				bad = rpvk_map_inplace(r, VK_OBJECT_TYPE_SAMPLER, at, 0);
				break;
			case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
				bad = rpvk_map_inplace(r, VK_OBJECT_TYPE_SAMPLER, at, 0) ||
				      rpvk_map_inplace(r, VK_OBJECT_TYPE_IMAGE_VIEW,
				                       at + offsetof(VkDescriptorImageInfo, imageView), 1);
				break;
			case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
			case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
			case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
				bad = rpvk_map_inplace(r, VK_OBJECT_TYPE_IMAGE_VIEW,
				                       at + offsetof(VkDescriptorImageInfo, imageView), 1);
				break;
			case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
			case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
			case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
			case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
				bad = rpvk_map_inplace(r, VK_OBJECT_TYPE_BUFFER, at, 1);
				break;
			case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
			case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
				bad = rpvk_map_inplace(r, VK_OBJECT_TYPE_BUFFER_VIEW, at, 1);
				break;
			case VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR:
				bad = rpvk_map_inplace(r, VK_OBJECT_TYPE_ACCELERATION_STRUCTURE_KHR, at, 1);
				break;
			default:
				rpvk_fail(r, RP_ERR_UNSUPPORTED, "descriptor type %d in an update template",
				          (int)en->descriptorType);
				return NULL;
			}
			if (bad)
				return NULL;
		}
	}
	return copy;
}

#define RPVK_TMPL_UPDATE(name, member)                                                          \
	rp_status rpvk_o_##name(rpvk *r, void *args)                                                \
	{                                                                                           \
		sbt_vk_args_##name *a = args;                                                           \
		const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);              \
		void *data;                                                                             \
		if (!t)                                                                                 \
			return RP_ERR_BACKEND;                                                              \
		if (!t->member)                                                                         \
			return rpvk_missing(r, #name);                                                      \
		data = rpvk_template_data(r, a->descriptorUpdateTemplate, a->pData);                    \
		if (!data)                                                                              \
			return RP_ERR_BACKEND;                                                              \
		t->member(a->device, a->descriptorSet, a->descriptorUpdateTemplate, data);              \
		return RP_OK;                                                                           \
	}

RPVK_TMPL_UPDATE(vkUpdateDescriptorSetWithTemplate, UpdateDescriptorSetWithTemplate)
RPVK_TMPL_UPDATE(vkUpdateDescriptorSetWithTemplateKHR, UpdateDescriptorSetWithTemplateKHR)

rp_status rpvk_o_vkCmdPushDescriptorSetWithTemplateKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkCmdPushDescriptorSetWithTemplateKHR *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->commandBuffer);
	void *data;
	if (!t)
		return RP_ERR_BACKEND;
	if (!t->CmdPushDescriptorSetWithTemplateKHR)
		return rpvk_missing(r, "vkCmdPushDescriptorSetWithTemplateKHR");
	data = rpvk_template_data(r, a->descriptorUpdateTemplate, a->pData);
	if (!data)
		return RP_ERR_BACKEND;
	t->CmdPushDescriptorSetWithTemplateKHR(a->commandBuffer, a->descriptorUpdateTemplate, a->layout,
	                                       a->set, data);
	return RP_OK;
}

/* Reads size bytes to the host with a submit of the replay's own on the
 * device's queue: record() records the copy into dst (a host-visible
 * buffer of ours, size bytes); then a barrier for the host, the submit,
 * a wait bounded by --wait-timeout, and every object of the read destroyed
 * again.  out gets the bytes.  what names the use in messages. */
rp_status rpvk_read_back(rpvk *r, rpvk_device *dv, VkDeviceSize size, const char *what,
                         rpvk_read_back_fn record, void *ctx, uint8_t *out)
{
	const rpvk_dtable *t = &dv->t;
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkBufferMemoryBarrier bb = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkMemoryRequirements req;
	VkBuffer buf = VK_NULL_HANDLE;
	VkDeviceMemory mem = VK_NULL_HANDLE;
	VkCommandBuffer cb = VK_NULL_HANDLE;
	VkFence fence = VK_NULL_HANDLE;
	void *ptr = NULL;
	int type;
	rp_status st = RP_OK;

	if (!dv->aux_queue)
		return rpvk_fail(r, RP_ERR_BACKEND, "%s: the device has no queue of ours", what);
	if (!dv->aux_pool) {
		VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
		pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
		pi.queueFamilyIndex = dv->aux_family;
		if (t->CreateCommandPool(dv->live, &pi, NULL, &dv->aux_pool) != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "%s: cannot create a command pool", what);
	}
	bi.size = size;
	bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	if (t->CreateBuffer(dv->live, &bi, NULL, &buf) != VK_SUCCESS) {
		st = rpvk_fail(r, RP_ERR_BACKEND, "%s: cannot create a %llu-byte buffer", what,
		               (unsigned long long)size);
		goto out_free;
	}
	t->GetBufferMemoryRequirements(dv->live, buf, &req);
	type = rpvk_memory_type(&r->phys[dv->phys], req.memoryTypeBits,
	                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	ai.allocationSize = req.size;
	ai.memoryTypeIndex = (uint32_t)type;
	if (type < 0 || t->AllocateMemory(dv->live, &ai, NULL, &mem) != VK_SUCCESS ||
	    t->BindBufferMemory(dv->live, buf, mem, 0) != VK_SUCCESS ||
	    t->MapMemory(dv->live, mem, 0, VK_WHOLE_SIZE, 0, &ptr) != VK_SUCCESS) {
		st = rpvk_fail(r, RP_ERR_BACKEND, "%s: no host-visible memory for the copy", what);
		goto out_free;
	}
	cai.commandPool = dv->aux_pool;
	cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cai.commandBufferCount = 1;
	if (t->AllocateCommandBuffers(dv->live, &cai, &cb) != VK_SUCCESS ||
	    t->CreateFence(dv->live, &fi, NULL, &fence) != VK_SUCCESS) {
		st = rpvk_fail(r, RP_ERR_BACKEND, "%s: cannot allocate a command buffer", what);
		goto out_free;
	}
	begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	t->BeginCommandBuffer(cb, &begin);
	record(t, cb, buf, ctx);
	bb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bb.buffer = buf;
	bb.size = VK_WHOLE_SIZE;
	t->CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL,
	                      1, &bb, 0, NULL);
	t->EndCommandBuffer(cb);
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	if (t->QueueSubmit(dv->aux_queue, 1, &si, fence) != VK_SUCCESS ||
	    t->WaitForFences(dv->live, 1, &fence, VK_TRUE, r->wait_ns) != VK_SUCCESS) {
		st = rpvk_fail(r, RP_ERR_BACKEND, "%s: the copy did not complete within --wait-timeout", what);
		goto out_free;
	}
	memcpy(out, ptr, (size_t)size);
out_free:
	if (fence)
		t->DestroyFence(dv->live, fence, NULL);
	if (cb)
		t->FreeCommandBuffers(dv->live, dv->aux_pool, 1, &cb);
	if (buf)
		t->DestroyBuffer(dv->live, buf, NULL);
	if (mem)
		t->FreeMemory(dv->live, mem, NULL);
	return st;
}
