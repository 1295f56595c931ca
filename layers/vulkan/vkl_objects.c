/*
 * vkl_objects.c - the live-object table: every object the application
 * created since the process started, with the seq of its creation record.
 *
 * Trimmed capture recreates them from what each entry keeps (vkl_trim.c:
 * the encoded calls that created it and set its state); the table also
 * holds the layer's per-object state (mapped memory).  Sharded by handle hash:
 * each shard is a chained hash table under its own mutex, so creations and
 * destructions on different shards never contend, and the command-recording
 * path (vkCmd*) never comes here.  Keys are (type, handle): non-dispatchable
 * handles are only unique per type.
 *
 * Removing an object removes its children too (command buffers with their
 * pool, descriptor sets with theirs, swapchain images with their swapchain,
 * everything with its device): a walk of every shard, done only for the
 * object types that can be parents of pooled objects, which are few.
 */
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl.h"

#define VKL_OBJ_SHARDS 64u /* power of two */

typedef struct vkl_obj_node {
	struct vkl_obj_node *next;
	vkl_object obj;
} vkl_obj_node;

/* Aligned so that shards do not share cache lines. */
typedef struct vkl_obj_shard {
	_Alignas(64) pthread_mutex_t mu;
	vkl_obj_node **buckets;
	size_t nbuckets; /* power of two, or 0 before the first insert */
	size_t count;
} vkl_obj_shard;

static vkl_obj_shard vkl_obj_shards[VKL_OBJ_SHARDS];
static pthread_once_t vkl_obj_once = PTHREAD_ONCE_INIT;
static _Atomic(size_t) vkl_obj_total;

static void vkl_obj_init(void)
{
	size_t i;
	for (i = 0; i < VKL_OBJ_SHARDS; i++)
		pthread_mutex_init(&vkl_obj_shards[i].mu, NULL);
}

static uint64_t vkl_obj_hash(VkObjectType type, uint64_t handle)
{
	uint64_t h = (handle ^ ((uint64_t)type << 56)) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static vkl_obj_shard *vkl_obj_shard_of(uint64_t h)
{
	pthread_once(&vkl_obj_once, vkl_obj_init);
	return &vkl_obj_shards[h & (VKL_OBJ_SHARDS - 1)];
}

/* Called with the shard locked. */
static int vkl_obj_grow(vkl_obj_shard *s)
{
	size_t n = s->nbuckets ? s->nbuckets * 2 : 64, i;
	vkl_obj_node **b = calloc(n, sizeof(*b));
	if (!b)
		return -1;
	for (i = 0; i < s->nbuckets; i++) {
		vkl_obj_node *node = s->buckets[i], *next;
		for (; node; node = next) {
			size_t j = (size_t)(vkl_obj_hash(node->obj.type, node->obj.handle) >> 6) & (n - 1);
			next = node->next;
			node->next = b[j];
			b[j] = node;
		}
	}
	free(s->buckets);
	s->buckets = b;
	s->nbuckets = n;
	return 0;
}

static vkl_obj_node **vkl_obj_slot(vkl_obj_shard *s, uint64_t h, VkObjectType type,
                                   uint64_t handle)
{
	vkl_obj_node **pp;
	if (!s->nbuckets)
		return NULL;
	pp = &s->buckets[(size_t)(h >> 6) & (s->nbuckets - 1)];
	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->obj.handle == handle && (*pp)->obj.type == type)
			return pp;
	return NULL;
}

void vkl_objects_add(VkObjectType type, uint64_t handle, uint64_t create_seq,
                     uint64_t parent, void *data)
{
	uint64_t h = vkl_obj_hash(type, handle);
	vkl_obj_shard *s = vkl_obj_shard_of(h);
	vkl_obj_node **pp, *node;
	struct vkl_trim_obj *trim;
	if (!handle)
		return;
	/* before the lock: adopting may look at other entries */
	trim = vkl_trim_adopt(type, handle, parent);
	pthread_mutex_lock(&s->mu);
	pp = vkl_obj_slot(s, h, type, handle);
	if (pp) {
		/* Queues and physical devices are "created" by every query that
		 * returns them: the first record stays their creation. */
		if (data)
			(*pp)->obj.data = data;
		goto out_unlock;
	}
	if (s->count + 1 > s->nbuckets && vkl_obj_grow(s) != 0)
		goto out_nomem;
	node = malloc(sizeof(*node));
	if (!node)
		goto out_nomem;
	node->obj.handle = handle;
	node->obj.type = type;
	node->obj.create_seq = create_seq;
	node->obj.parent = parent;
	node->obj.data = data;
	node->obj.trim = trim;
	trim = NULL;
	pp = &s->buckets[(size_t)(h >> 6) & (s->nbuckets - 1)];
	node->next = *pp;
	*pp = node;
	s->count++;
	atomic_fetch_add_explicit(&vkl_obj_total, 1, memory_order_relaxed);
	goto out_unlock;

out_nomem:
	CAP_ERROR("Vulkan layer: out of memory tracking object 0x%llx", (unsigned long long)handle);
out_unlock:
	pthread_mutex_unlock(&s->mu);
	vkl_trim_discard(trim);
}

int vkl_objects_find(VkObjectType type, uint64_t handle, vkl_object *out)
{
	uint64_t h = vkl_obj_hash(type, handle);
	vkl_obj_shard *s = vkl_obj_shard_of(h);
	vkl_obj_node **pp;
	int found = 0;
	pthread_mutex_lock(&s->mu);
	pp = vkl_obj_slot(s, h, type, handle);
	if (pp) {
		*out = (*pp)->obj;
		found = 1;
	}
	pthread_mutex_unlock(&s->mu);
	return found;
}

/* Whether objects of this type can have children in the table. */
static int vkl_obj_may_parent(VkObjectType type)
{
	switch (type) {
	case VK_OBJECT_TYPE_INSTANCE:
	case VK_OBJECT_TYPE_PHYSICAL_DEVICE:
	case VK_OBJECT_TYPE_DEVICE:
	case VK_OBJECT_TYPE_COMMAND_POOL:
	case VK_OBJECT_TYPE_DESCRIPTOR_POOL:
	case VK_OBJECT_TYPE_SWAPCHAIN_KHR:
	case VK_OBJECT_TYPE_DISPLAY_KHR:
		return 1;
	default:
		return 0;
	}
}

/* Remove every entry whose parent is `parent`, then their children. */
static void vkl_obj_remove_children(uint64_t parent, int depth)
{
	pthread_once(&vkl_obj_once, vkl_obj_init);
	/* Collected per shard so no two shard locks are ever held at once. */
	size_t i;
	if (depth > 4)
		return;
	for (i = 0; i < VKL_OBJ_SHARDS; i++) {
		vkl_obj_shard *s = &vkl_obj_shards[i];
		vkl_obj_node *gone = NULL, *next;
		size_t b;
		pthread_mutex_lock(&s->mu);
		for (b = 0; b < s->nbuckets; b++) {
			vkl_obj_node **pp = &s->buckets[b];
			while (*pp) {
				vkl_obj_node *node = *pp;
				if (node->obj.parent == parent) {
					*pp = node->next;
					node->next = gone;
					gone = node;
					s->count--;
					atomic_fetch_sub_explicit(&vkl_obj_total, 1, memory_order_relaxed);
				} else {
					pp = &node->next;
				}
			}
		}
		pthread_mutex_unlock(&s->mu);
		for (; gone; gone = next) {
			next = gone->next;
			if (vkl_obj_may_parent(gone->obj.type))
				vkl_obj_remove_children(gone->obj.handle, depth + 1);
			vkl_trim_gone(&gone->obj);
			free(gone);
		}
	}
}

void vkl_objects_remove(VkObjectType type, uint64_t handle)
{
	uint64_t h = vkl_obj_hash(type, handle);
	vkl_obj_shard *s = vkl_obj_shard_of(h);
	vkl_obj_node **pp, *node = NULL;
	if (!handle)
		return;
	pthread_mutex_lock(&s->mu);
	pp = vkl_obj_slot(s, h, type, handle);
	if (pp) {
		node = *pp;
		*pp = node->next;
		s->count--;
		atomic_fetch_sub_explicit(&vkl_obj_total, 1, memory_order_relaxed);
	}
	pthread_mutex_unlock(&s->mu);
	if (node)
		vkl_trim_gone(&node->obj);
	free(node);
	if (vkl_obj_may_parent(type))
		vkl_obj_remove_children(handle, 0);
}

void vkl_objects_remove_children(uint64_t parent)
{
	if (parent)
		vkl_obj_remove_children(parent, 0);
}

size_t vkl_objects_count(void)
{
	return atomic_load_explicit(&vkl_obj_total, memory_order_relaxed);
}

vkl_object *vkl_objects_lock(VkObjectType type, uint64_t handle, void **lock_out)
{
	uint64_t h = vkl_obj_hash(type, handle);
	vkl_obj_shard *s = vkl_obj_shard_of(h);
	vkl_obj_node **pp;
	pthread_mutex_lock(&s->mu);
	pp = vkl_obj_slot(s, h, type, handle);
	if (!pp) {
		pthread_mutex_unlock(&s->mu);
		*lock_out = NULL;
		return NULL;
	}
	*lock_out = s;
	return &(*pp)->obj;
}

void vkl_objects_unlock(void *lock)
{
	vkl_obj_shard *s = lock;
	if (s)
		pthread_mutex_unlock(&s->mu);
}

void vkl_objects_each(void (*fn)(vkl_object *o, void *ctx), void *ctx)
{
	size_t i, b;
	pthread_once(&vkl_obj_once, vkl_obj_init);
	for (i = 0; i < VKL_OBJ_SHARDS; i++) {
		vkl_obj_shard *s = &vkl_obj_shards[i];
		pthread_mutex_lock(&s->mu);
		for (b = 0; b < s->nbuckets; b++) {
			vkl_obj_node *node;
			for (node = s->buckets[b]; node; node = node->next)
				fn(&node->obj, ctx);
		}
		pthread_mutex_unlock(&s->mu);
	}
}

/* ---- descriptor update templates -------------------------------------- */

static size_t vkl_template_elem_size(VkDescriptorType t)
{
	switch (t) {
	case VK_DESCRIPTOR_TYPE_SAMPLER:
	case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
	case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
	case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
	case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
		return sizeof(VkDescriptorImageInfo);
	case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
		return sizeof(VkBufferView);
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
	case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
	case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
		return sizeof(VkDescriptorBufferInfo);
	default: /* acceleration structures: a handle each */
		return sizeof(uint64_t);
	}
}

/* The length is kept in the entry's data pointer: templates need no more. */
void vkl_template_created(const VkDescriptorUpdateTemplateCreateInfo *info,
                          VkDescriptorUpdateTemplate tmpl, uint64_t seq, uint64_t parent)
{
	size_t len = 0, end;
	uint32_t i;
	for (i = 0; i < info->descriptorUpdateEntryCount; i++) {
		const VkDescriptorUpdateTemplateEntry *e = &info->pDescriptorUpdateEntries[i];
		if (e->descriptorCount == 0)
			continue;
		if (e->descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK)
			end = e->offset + e->descriptorCount; /* the count is in bytes */
		else
			end = e->offset + (size_t)(e->descriptorCount - 1) * e->stride +
			      vkl_template_elem_size(e->descriptorType);
		if (end > len)
			len = end;
	}
	vkl_objects_add(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, (uint64_t)(uintptr_t)tmpl, seq,
	                parent, (void *)(uintptr_t)len);
}

size_t vkl_template_data_len(VkDescriptorUpdateTemplate tmpl)
{
	vkl_object o;
	if (!vkl_objects_find(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, (uint64_t)(uintptr_t)tmpl, &o))
		return 0;
	return (size_t)(uintptr_t)o.data;
}

/* ---- command buffers -------------------------------------------------- */

const VkCommandBufferBeginInfo *vkl_begin_info_recorded(VkCommandBuffer cb,
                                                        const VkCommandBufferBeginInfo *info,
                                                        VkCommandBufferBeginInfo *fix)
{
	vkl_object o;
	if (!info || !info->pInheritanceInfo ||
	    !vkl_objects_find(VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)cb, &o) ||
	    (uintptr_t)o.data != 1u + (unsigned)VK_COMMAND_BUFFER_LEVEL_PRIMARY)
		return info; /* secondary, or a level we did not see: read as given */
	*fix = *info;
	fix->pInheritanceInfo = NULL;
	return fix;
}
