/*
 * rpvk_dset.c - what the descriptor sets the replay allocated hold, so that
 * a submit never hands the driver a resource reached through a set after
 * it was destroyed or its memory freed (docs/hostile-traces.md).
 *
 * A command buffer reaches buffers and images not only through its
 * commands' parameters (rpvk_state.c follows those) but through the
 * descriptor sets it binds.  The Vulkan specification makes a command
 * buffer invalid when a resource a bound set refers to is destroyed, and a
 * driver executing it reads freed memory.  The replay keeps, for each set,
 * the resource of each (binding, array element) a vkUpdateDescriptorSets
 * write (or copy) put there, and of each view the buffer or image it views;
 * a destroy marks the entries that reach the resource as gone (a later
 * write of the same element replaces it).  A submit of a command buffer
 * that binds a set with a gone entry, or one whose buffer or image has had
 * its memory freed, is refused (rpvk_state.c), as is one that binds a set
 * freed since.  Destroys and frees themselves wait for the device's work
 * in flight first (rpvk_state.c), so work already submitted never loses
 * what it uses.  The replay also keeps which bindings of each set a write
 * or copy reached: a submit whose draws or dispatches use (their
 * pipeline's shaders statically use, rpvk_shader.c) a binding of a bound
 * set that no write reached is refused, unless the layout makes that
 * binding PARTIALLY_BOUND (a valid program may leave it unwritten where
 * the shader does not reach it dynamically), gives it no descriptors, or
 * gives it only immutable samplers: the driver would read what was never
 * initialized (lavapipe: SIGSEGV).  Bindings no shader uses may stay
 * unwritten.  An update through a template counts as a write of every
 * binding.
 *
 * Not followed: the resources of template updates and push descriptors
 * (push descriptors' are the command's, judged when it is recorded), inline uniform blocks and
 * acceleration structures (no buffer or image).  A set with more than
 * RPVK_DSET_MAX entries keeps the first (later ones are not judged).
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPVK_DSET_MAX 4096u

typedef struct rpvk_dset_entry {
	uint32_t binding, elem;
	uint32_t type;             /* VkObjectType of live */
	uint8_t gone;              /* destroyed since it was written */
	uint64_t live;
} rpvk_dset_entry;

/* rpvk.dsets: (DESCRIPTOR_SET, live) -> rpvk_dset* (owned);
 * (IMAGE_VIEW or BUFFER_VIEW, live) -> the live image or buffer viewed. */
typedef struct rpvk_dset {
	uint64_t pool;             /* live VkDescriptorPool */
	rpvk_sh_layout lay;        /* its layout's bindings (lay.known 0: not known) */
	uint8_t *wrote;            /* per lay.b[i]: a write or copy reached it; owned */
	uint32_t n, cap;
	rpvk_dset_entry *e;        /* owned */
} rpvk_dset;

static rpvk_dset *rpvk_dset_get(rpvk *r, uint64_t set)
{
	const rpvk_map_slot *s = set ? rpvk_map_get(&r->dsets, VK_OBJECT_TYPE_DESCRIPTOR_SET, set) : NULL;
	return s ? (rpvk_dset *)(uintptr_t)s->val : NULL;
}

static void rpvk_dset_destroy(rpvk_dset *d)
{
	rpvk_sh_layout_finish(&d->lay);
	free(d->wrote);
	free(d->e);
	free(d);
}

/* Marks the bindings a write (or copy) of count descriptors from (binding,
 * elem) on reaches: one past the end of a binding continues in the next
 * (the specification's update rules). */
static void rpvk_dset_mark(rpvk_dset *d, uint32_t binding, uint32_t elem, uint32_t count)
{
	int at = d->wrote ? rpvk_sh_layout_find(&d->lay, binding) : -1;
	for (uint32_t i = at < 0 ? d->lay.n : (uint32_t)at; i < d->lay.n; i++) {
		uint32_t avail = d->lay.b[i].count > elem ? d->lay.b[i].count - elem : 0;
		if (avail)
			d->wrote[i] = 1;
		if (count <= avail)
			break;
		count -= avail;
		elem = 0;
	}
}

static void rpvk_dset_drop(rpvk *r, uint64_t set)
{
	rpvk_dset *d = rpvk_dset_get(r, set);
	if (!d)
		return;
	rpvk_map_del(&r->dsets, VK_OBJECT_TYPE_DESCRIPTOR_SET, set);
	rpvk_state_gone(r, VK_OBJECT_TYPE_DESCRIPTOR_SET, set);
	rpvk_dset_destroy(d);
}

void rpvk_dset_clear(rpvk *r)
{
	for (size_t i = 0; i < r->dsets.cap; i++) {
		rpvk_map_slot *s = &r->dsets.slots[i];
		if (s->type == VK_OBJECT_TYPE_DESCRIPTOR_SET) {
			rpvk_dset_destroy((rpvk_dset *)(uintptr_t)s->val);
		}
	}
	rpvk_map_clear(&r->dsets);
}

void rpvk_dset_free(rpvk *r)
{
	rpvk_dset_clear(r);
	rpvk_map_free(&r->dsets);
}

/* The resource of (binding, elem) becomes (type, live). */
static void rpvk_dset_put(rpvk_dset *d, uint32_t binding, uint32_t elem, VkObjectType type, uint64_t live)
{
	for (uint32_t i = 0; i < d->n; i++)
		if (d->e[i].binding == binding && d->e[i].elem == elem) {
			d->e[i].type = (uint32_t)type;
			d->e[i].live = live;
			d->e[i].gone = 0;
			return;
		}
	if (!live || d->n >= RPVK_DSET_MAX)
		return;
	if (d->n == d->cap) {
		uint32_t ncap = d->cap ? 2 * d->cap : 8;
		rpvk_dset_entry *ne = realloc(d->e, ncap * sizeof(*ne));
		if (!ne)
			return; /* not judged */
		d->e = ne;
		d->cap = ncap;
	}
	d->e[d->n].binding = binding;
	d->e[d->n].elem = elem;
	d->e[d->n].type = (uint32_t)type;
	d->e[d->n].live = live;
	d->e[d->n].gone = 0;
	d->n++;
}

/* The buffer or image a view views (0: not known). */
static uint64_t rpvk_dset_viewed(rpvk *r, uint32_t type, uint64_t live)
{
	const rpvk_map_slot *s;
	if (type != VK_OBJECT_TYPE_IMAGE_VIEW && type != VK_OBJECT_TYPE_BUFFER_VIEW)
		return 0;
	s = rpvk_map_get(&r->dsets, type, live);
	return s ? s->val : 0;
}

void rpvk_dset_each_storage(rpvk *r, uint64_t set, void (*fn)(void *ctx, uint32_t type, uint64_t live),
                            void *ctx)
{
	rpvk_dset *d = rpvk_dset_get(r, set);
	for (uint32_t i = 0; d && i < d->n; i++) {
		const rpvk_dset_entry *e = &d->e[i];
		uint32_t type = e->type;
		uint64_t live = e->live;
		if (d->lay.known) {
			int b = rpvk_sh_layout_find(&d->lay, e->binding);
			uint32_t dt = b >= 0 ? d->lay.b[b].type : 0;
			if (b < 0 || (dt != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER &&
			              dt != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC &&
			              dt != VK_DESCRIPTOR_TYPE_STORAGE_IMAGE &&
			              dt != VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER))
				continue;
		}
		if (type == VK_OBJECT_TYPE_IMAGE_VIEW || type == VK_OBJECT_TYPE_BUFFER_VIEW) {
			live = rpvk_dset_viewed(r, type, live);
			type = type == VK_OBJECT_TYPE_IMAGE_VIEW ? VK_OBJECT_TYPE_IMAGE : VK_OBJECT_TYPE_BUFFER;
		}
		if (live && (type == VK_OBJECT_TYPE_BUFFER || type == VK_OBJECT_TYPE_IMAGE))
			fn(ctx, type, live);
	}
}

/* Entries that reach (type, live) are gone. */
static void rpvk_dset_resource_gone(rpvk *r, VkObjectType type, uint64_t live)
{
	for (size_t i = 0; live && i < r->dsets.cap; i++) {
		rpvk_map_slot *s = &r->dsets.slots[i];
		rpvk_dset *d;
		if (s->type != VK_OBJECT_TYPE_DESCRIPTOR_SET)
			continue;
		d = (rpvk_dset *)(uintptr_t)s->val;
		for (uint32_t k = 0; k < d->n; k++)
			if ((d->e[k].type == (uint32_t)type && d->e[k].live == live) ||
			    ((type == VK_OBJECT_TYPE_IMAGE || type == VK_OBJECT_TYPE_BUFFER) &&
			     rpvk_dset_viewed(r, d->e[k].type, d->e[k].live) == live))
				d->e[k].gone = 1;
	}
	if (type == VK_OBJECT_TYPE_IMAGE_VIEW || type == VK_OBJECT_TYPE_BUFFER_VIEW)
		rpvk_map_del(&r->dsets, (uint32_t)type, live);
}

/* The elements a write sets.  A write past the end of its binding
 * continues in the next one (the specification's update rules); the
 * bindings' sizes are not kept here, so such elements are recorded under
 * the first binding's element numbers: a later write of them replaces
 * them the same way. */
static void rpvk_dset_write(rpvk *r, const VkWriteDescriptorSet *w)
{
	rpvk_dset *d = rpvk_dset_get(r, (uint64_t)(uintptr_t)w->dstSet);
	if (!d)
		return;
	rpvk_dset_mark(d, w->dstBinding, w->dstArrayElement, w->descriptorCount);
	for (uint32_t j = 0; j < w->descriptorCount; j++) {
		uint32_t elem = w->dstArrayElement + j;
		if (w->pBufferInfo &&
		    (w->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER ||
		     w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
		     w->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
		     w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC))
			rpvk_dset_put(d, w->dstBinding, elem, VK_OBJECT_TYPE_BUFFER,
			              (uint64_t)(uintptr_t)w->pBufferInfo[j].buffer);
		else if (w->pImageInfo &&
		         (w->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE ||
		          w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ||
		          w->descriptorType == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ||
		          w->descriptorType == VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT))
			rpvk_dset_put(d, w->dstBinding, elem, VK_OBJECT_TYPE_IMAGE_VIEW,
			              (uint64_t)(uintptr_t)w->pImageInfo[j].imageView);
		else if (w->pImageInfo && w->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER)
			rpvk_dset_put(d, w->dstBinding, elem, VK_OBJECT_TYPE_SAMPLER,
			              (uint64_t)(uintptr_t)w->pImageInfo[j].sampler);
		else if (w->pTexelBufferView &&
		         (w->descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ||
		          w->descriptorType == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER))
			rpvk_dset_put(d, w->dstBinding, elem, VK_OBJECT_TYPE_BUFFER_VIEW,
			              (uint64_t)(uintptr_t)w->pTexelBufferView[j]);
	}
}

static void rpvk_dset_copy(rpvk *r, const VkCopyDescriptorSet *c)
{
	rpvk_dset *src = rpvk_dset_get(r, (uint64_t)(uintptr_t)c->srcSet);
	rpvk_dset *dst = rpvk_dset_get(r, (uint64_t)(uintptr_t)c->dstSet);
	if (!src || !dst)
		return;
	rpvk_dset_mark(dst, c->dstBinding, c->dstArrayElement, c->descriptorCount);
	for (uint32_t j = 0; j < c->descriptorCount; j++)
		for (uint32_t k = 0; k < src->n; k++)
			if (src->e[k].binding == c->srcBinding && src->e[k].elem == c->srcArrayElement + j) {
				rpvk_dset_put(dst, c->dstBinding, c->dstArrayElement + j, (VkObjectType)src->e[k].type,
				              src->e[k].live);
				if (src->e[k].gone)
					for (uint32_t m = 0; m < dst->n; m++)
						if (dst->e[m].binding == c->dstBinding &&
						    dst->e[m].elem == c->dstArrayElement + j)
							dst->e[m].gone = 1;
			}
}

/* Sets of a pool: all of them go (reset or destroy), and the trace's
 * handles of them name nothing any more (a later use is refused as an
 * unknown handle instead of reaching the driver with a freed set). */
static void rpvk_dset_pool_gone(rpvk *r, uint64_t pool)
{
	/* one pass over the handles (a pool may be reset every frame) */
	for (size_t i = 0; i < r->handles.cap; i++) {
		rpvk_map_slot *s = &r->handles.slots[i];
		rpvk_dset *d;
		if (s->type != VK_OBJECT_TYPE_DESCRIPTOR_SET)
			continue;
		d = rpvk_dset_get(r, s->val);
		if (d && d->pool == pool)
			rpvk_map_del(&r->handles, VK_OBJECT_TYPE_DESCRIPTOR_SET, s->key);
	}
	for (size_t i = 0; i < r->dsets.cap; i++) {
		rpvk_map_slot *s = &r->dsets.slots[i];
		if (s->type == VK_OBJECT_TYPE_DESCRIPTOR_SET && ((rpvk_dset *)(uintptr_t)s->val)->pool == pool)
			rpvk_dset_drop(r, s->key);
	}
}

int rpvk_dset_bad(rpvk *r, uint64_t set, char *why, size_t len)
{
	rpvk_dset *d = rpvk_dset_get(r, set);
	for (uint32_t k = 0; d && k < d->n; k++) {
		const rpvk_dset_entry *e = &d->e[k];
		uint64_t res = e->live;
		uint32_t type = e->type;
		if (type == VK_OBJECT_TYPE_IMAGE_VIEW || type == VK_OBJECT_TYPE_BUFFER_VIEW) {
			res = rpvk_dset_viewed(r, type, e->live);
			type = type == VK_OBJECT_TYPE_IMAGE_VIEW ? VK_OBJECT_TYPE_IMAGE : VK_OBJECT_TYPE_BUFFER;
		}
		if (e->gone)
			snprintf(why, len, "binding %u element %u holds an object destroyed since it was "
			         "written", e->binding, e->elem);
		else if (res && rpvk_state_res_freed(r, (VkObjectType)type, res))
			snprintf(why, len, "binding %u element %u holds a %s whose memory was freed since",
			         e->binding, e->elem, type == VK_OBJECT_TYPE_IMAGE ? "image" : "buffer");
		else
			continue;
		return 1;
	}
	return 0;
}

rp_status rpvk_dset_write_check(rpvk *r, uint32_t i, const VkWriteDescriptorSet *w)
{
	rpvk_dset *d = rpvk_dset_get(r, (uint64_t)(uintptr_t)w->dstSet);
	uint64_t room = 0;
	int at;
	if (!d || !d->lay.known)
		return RP_OK;
	if ((at = rpvk_sh_layout_find(&d->lay, w->dstBinding)) < 0)
		return rpvk_fail(r, RP_ERR_TRACE, "descriptor write %u names binding %u, which its set's "
		                 "layout lacks: a valid application never makes this call, and a driver may "
		                 "crash on it", i, w->dstBinding);
	if (d->lay.b[at].type != (uint32_t)w->descriptorType &&
	    d->lay.b[at].type != (uint32_t)VK_DESCRIPTOR_TYPE_MUTABLE_EXT)
		return rpvk_fail(r, RP_ERR_TRACE, "descriptor write %u gives binding %u descriptor type %u, "
		                 "and its set's layout made it type %u: a valid application never makes "
		                 "this call, and a driver may crash on it", i, w->dstBinding,
		                 (unsigned)w->descriptorType, d->lay.b[at].type);
	/* a write continues into the bindings after its own (all of them
	 * counted here: the rules on which may follow are not judged) */
	for (uint32_t k = (uint32_t)at; k < d->lay.n; k++)
		room += d->lay.b[k].count;
	if ((uint64_t)w->dstArrayElement + w->descriptorCount > room)
		return rpvk_fail(r, RP_ERR_TRACE, "descriptor write %u sets elements %u to %llu from binding "
		                 "%u on, and its set's layout has %llu there: a valid application never makes "
		                 "this call, and a driver may crash on it", i, w->dstArrayElement,
		                 (unsigned long long)w->dstArrayElement + w->descriptorCount - 1, w->dstBinding,
		                 (unsigned long long)room);
	return RP_OK;
}

int rpvk_dset_unwritten(rpvk *r, uint64_t set, uint32_t binding, char *why, size_t len)
{
	rpvk_dset *d = rpvk_dset_get(r, set);
	const rpvk_sh_binding *b;
	int at = d && d->wrote ? rpvk_sh_layout_find(&d->lay, binding) : -1;
	if (at < 0)
		return 0;
	b = &d->lay.b[at];
	if (d->wrote[at] || !b->count || (b->flags & VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT) ||
	    (b->type == VK_DESCRIPTOR_TYPE_SAMPLER && b->immutable))
		return 0;
	snprintf(why, len, "binding %u, which its pipeline's shaders use, was never written, and "
	         "the set's layout does not make it partially bound", binding);
	return 1;
}

int rpvk_dset_update_invalidates(rpvk *r, uint64_t set, uint32_t binding, int all, uint32_t *binding_out)
{
	const VkDescriptorBindingFlags keep = VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT |
	                                      VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT;
	rpvk_dset *d = rpvk_dset_get(r, set);
	int at;
	if (!d || !d->lay.known)
		return 0;
	if (all) {
		/* a template's update: judged only when no binding may be
		 * updated after the bind (which it reaches is not known) */
		for (uint32_t k = 0; k < d->lay.n; k++)
			if (d->lay.b[k].flags & keep)
				return 0;
		if (!d->lay.n)
			return 0;
		*binding_out = UINT32_MAX;
		return 1;
	}
	if ((at = rpvk_sh_layout_find(&d->lay, binding)) < 0 || (d->lay.b[at].flags & keep))
		return 0;
	*binding_out = binding;
	return 1;
}

int rpvk_dset_may_change(rpvk *r, uint64_t set)
{
	const VkDescriptorBindingFlags keep = VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT |
	                                      VK_DESCRIPTOR_BINDING_UPDATE_UNUSED_WHILE_PENDING_BIT;
	const rpvk_dset *d = rpvk_dset_get(r, set);
	for (uint32_t k = 0; d && d->lay.known && k < d->lay.n; k++) {
		uint32_t dt = d->lay.b[k].type;
		if ((d->lay.b[k].flags & keep) &&
		    (dt == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || dt == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ||
		     dt == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER))
			return 1;
	}
	return 0;
}

void rpvk_dset_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	switch (cmd) {
	case SBT_VK_CMD_vkAllocateDescriptorSets: {
		const sbt_vk_args_vkAllocateDescriptorSets *a = args;
		if (a->ret != VK_SUCCESS || !a->pAllocateInfo || !a->pDescriptorSets)
			break;
		for (uint32_t i = 0; i < a->pAllocateInfo->descriptorSetCount; i++) {
			uint64_t set = (uint64_t)(uintptr_t)a->pDescriptorSets[i];
			rpvk_dset *d;
			if (!set)
				continue;
			rpvk_dset_drop(r, set);
			if (!(d = calloc(1, sizeof(*d))))
				continue; /* not judged */
			d->pool = (uint64_t)(uintptr_t)a->pAllocateInfo->descriptorPool;
			if (a->pAllocateInfo->pSetLayouts &&
			    rpvk_shader_layout_copy(r, a->pAllocateInfo->pSetLayouts[i], &d->lay) && d->lay.n &&
			    !(d->wrote = calloc(d->lay.n, 1)))
				rpvk_sh_layout_finish(&d->lay); /* not judged */
			if (rpvk_map_put(&r->dsets, VK_OBJECT_TYPE_DESCRIPTOR_SET, set, (uint64_t)(uintptr_t)d, 0) != 0)
				rpvk_dset_destroy(d);
		}
		break;
	}
	case SBT_VK_CMD_vkFreeDescriptorSets: {
		const sbt_vk_args_vkFreeDescriptorSets *a = args;
		for (uint32_t i = 0; a->pDescriptorSets && i < a->descriptorSetCount; i++)
			rpvk_dset_drop(r, (uint64_t)(uintptr_t)a->pDescriptorSets[i]);
		break;
	}
	case SBT_VK_CMD_vkResetDescriptorPool:
		rpvk_dset_pool_gone(r, (uint64_t)(uintptr_t)((const sbt_vk_args_vkResetDescriptorPool *)args)->descriptorPool);
		break;
	case SBT_VK_CMD_vkDestroyDescriptorPool:
		rpvk_dset_pool_gone(r, (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyDescriptorPool *)args)->descriptorPool);
		break;
	case SBT_VK_CMD_vkUpdateDescriptorSets: {
		const sbt_vk_args_vkUpdateDescriptorSets *a = args;
		for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++)
			rpvk_dset_write(r, &a->pDescriptorWrites[i]);
		for (uint32_t i = 0; a->pDescriptorCopies && i < a->descriptorCopyCount; i++)
			rpvk_dset_copy(r, &a->pDescriptorCopies[i]);
		break;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR: {
		/* written, by a template whose entries are not followed here: its
		 * resources are not judged */
		const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *a = args;
		rpvk_dset *d = rpvk_dset_get(r, (uint64_t)(uintptr_t)a->descriptorSet);
		if (d && d->wrote)
			memset(d->wrote, 1, d->lay.n);
		break;
	}
	case SBT_VK_CMD_vkCreateImageView: {
		const sbt_vk_args_vkCreateImageView *a = args;
		if (a->ret == VK_SUCCESS && a->pView && *a->pView && a->pCreateInfo && a->pCreateInfo->image)
			rpvk_map_put(&r->dsets, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)(uintptr_t)*a->pView,
			             (uint64_t)(uintptr_t)a->pCreateInfo->image, 0);
		break;
	}
	case SBT_VK_CMD_vkCreateBufferView: {
		const sbt_vk_args_vkCreateBufferView *a = args;
		if (a->ret == VK_SUCCESS && a->pView && *a->pView && a->pCreateInfo && a->pCreateInfo->buffer)
			rpvk_map_put(&r->dsets, VK_OBJECT_TYPE_BUFFER_VIEW, (uint64_t)(uintptr_t)*a->pView,
			             (uint64_t)(uintptr_t)a->pCreateInfo->buffer, 0);
		break;
	}
	case SBT_VK_CMD_vkDestroyBuffer:
		rpvk_dset_resource_gone(r, VK_OBJECT_TYPE_BUFFER,
		                        (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyBuffer *)args)->buffer);
		break;
	case SBT_VK_CMD_vkDestroyImage:
		rpvk_dset_resource_gone(r, VK_OBJECT_TYPE_IMAGE,
		                        (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImage *)args)->image);
		break;
	case SBT_VK_CMD_vkDestroyImageView:
		rpvk_dset_resource_gone(r, VK_OBJECT_TYPE_IMAGE_VIEW,
		                        (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImageView *)args)->imageView);
		break;
	case SBT_VK_CMD_vkDestroyBufferView:
		rpvk_dset_resource_gone(r, VK_OBJECT_TYPE_BUFFER_VIEW,
		                        (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyBufferView *)args)->bufferView);
		break;
	case SBT_VK_CMD_vkDestroySampler:
		rpvk_dset_resource_gone(r, VK_OBJECT_TYPE_SAMPLER,
		                        (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroySampler *)args)->sampler);
		break;
	default:
		break;
	}
}
