/*
 * rpvk_percmd.c - tsreplay --per-command on Vulkan: after every submit,
 * the memory its command buffers may have written.
 *
 * The unit is a submit (vkQueueSubmit, vkQueueSubmit2, vkQueueSubmit2KHR):
 * a command is the work of the command buffers of all its batches.  While
 * a command buffer is recorded the replay keeps what its commands may
 * write: the destinations of copies, blits, resolves, clears, fills,
 * updates and query copies, the attachments of the render passes (and
 * dynamic renderings) it begins, the descriptor sets it binds (their
 * storage buffers, storage images and storage texel buffers, resolved
 * when it is submitted, since a set may be written after it is bound),
 * and the secondary command buffers it executes.  After a submit the
 * replay waits (bounded by --wait-timeout) for its queue to be idle, and
 * reads every VkDeviceMemory bound to one of those buffers and images,
 * whole: through a mapping where the memory is host-visible here (and not
 * mapped only in part), else by a copy on the device into a host-visible
 * buffer of the replay's own (a buffer of its own aliasing the memory,
 * made, bound, copied from and destroyed again).  Each (submit, memory)
 * is one result, its object the captured VkDeviceMemory.
 *
 * Waiting after every submit runs the submits one at a time: a race
 * between queues shows only where the order of the submits differs
 * between runs (--schedule-seeds), not as two submits overlapping.
 *
 * Inside a submit, the command: the replay records, into every primary
 * command buffer, right behind each command that may write outside a
 * render pass (a copy, blit, resolve, clear, fill, update, query copy, a
 * dispatch, vkCmdExecuteCommands) and behind each vkCmdEndRenderPass(2) /
 * vkCmdEndRendering (a render pass is one unit, named by its end), a
 * barrier, a copy of each memory that command may have written into a
 * slot of host-visible staging memory of the replay's own (through a
 * buffer of ours aliasing the memory, as below), and a barrier.  After the
 * submit each slot's hash is kept: run 1's for the whole session, a later
 * run's until its end.  When runs part after a submit, the core asks
 * (rpvk_percmd_part) which command's slots first differ from run 1's: a
 * (command buffer of the submit, index of the command in it) pair.  What a
 * dispatch may write is every storage resource of the sets the command
 * buffer bound before it, as the sets held them when it was recorded --
 * unless one of those sets has a storage binding with UPDATE_AFTER_BIND or
 * UPDATE_UNUSED_WHILE_PENDING (a flexible unit, rpvk_pc_flex): its
 * contents may still change before the submit, so the command copies
 * every memory bound to a buffer or image of the device when it is
 * recorded, and at each submit the sets are resolved again and only the
 * copies of the memories they reach then give results.  Memory they reach
 * that was made after the recording is not covered: the command buffer's
 * own results stop at that command, with a warning.  Memory freed while
 * such a copy still reads it is kept, and freed by us when no command
 * buffer's copy does (rpvk_pc_zombie).
 * Secondary command buffers are not split (their vkCmdExecuteCommands is
 * one unit), nor a dynamic rendering that is suspended (nothing may come
 * between it and its resumption), and a command buffer stops being split
 * once its slots hold RPVK_PC_SPLIT_MAX bytes (a warning).
 *
 * Not followed: push descriptors, template updates (their sets' contents
 * are not kept: rpvk_dset.c), acceleration structures.  Memory that is
 * not host-visible and that no buffer of ours may be bound to (a dedicated
 * allocation, a type or size the buffer does not take) is left out with a
 * warning: no result.
 */
#include "replayer/vulkan/rpvk.h"
#include "replayer/rp_cm.h"
#include "serializer/sbt_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Staging bytes one recording of a command buffer may fill with its
 * commands' own results; past it its commands are not split. */
#define RPVK_PC_SPLIT_MAX (256ull << 20)
/* The smallest staging allocation (later ones double). */
#define RPVK_PC_CHUNK_MIN (64ull << 10)

typedef struct rpvk_pc_res {
	uint32_t type;             /* BUFFER, IMAGE, DESCRIPTOR_SET or COMMAND_BUFFER */
	uint64_t live;
} rpvk_pc_res;

typedef struct rpvk_pc_list {
	uint32_t n, cap;
	rpvk_pc_res *v;            /* owned */
} rpvk_pc_list;

/* A command's own result: a slot of staging memory its command buffer
 * copies one memory into right behind the command. */
typedef struct rpvk_pc_slot {
	uint64_t seq;              /* the vkCmd* record */
	uint32_t cmd;              /* its enum sbt_vk_cmd */
	uint32_t index;            /* its place in the command buffer, from 0 */
	uint64_t memory;           /* the captured VkDeviceMemory copied */
	uint64_t live_mem;         /* and its live handle */
	int flex;                  /* a flexible unit's (rpvk_pc_flex) */
	int out;                   /* a flexible unit's slot outside its footprint at
	                              this submit (rpvk_pc_flex_resolve): no result */
	VkBuffer buf;              /* ours, on chunks[chunk] at off */
	uint32_t chunk;
	VkDeviceSize off, size;
} rpvk_pc_slot;

/* A flexible unit: a command (dispatch, render pass) that binds a set whose
 * storage descriptors may still change after it is recorded
 * (UPDATE_AFTER_BIND, UPDATE_UNUSED_WHILE_PENDING; rpvk_dset_may_change).
 * Its slots copy every memory bound to a buffer or image of the device when
 * it is recorded; at each submit its resources are resolved again, as the
 * sets hold them then, and only the slots of those memories give results. */
typedef struct rpvk_pc_flex {
	uint32_t index;            /* the command's place in its command buffer */
	uint64_t seq;              /* its record */
	uint32_t cmd;              /* its enum sbt_vk_cmd */
	uint32_t first, nslots;    /* its slots */
	rpvk_pc_list res;          /* what it may write (sets unresolved); owned */
} rpvk_pc_flex;

/* Host-visible, coherent staging memory of ours, mapped at ptr. */
typedef struct rpvk_pc_chunk {
	VkDeviceMemory mem;
	uint8_t *ptr;
	uint32_t type;
	VkDeviceSize size, used;
} rpvk_pc_chunk;

/* One command buffer, since its vkBeginCommandBuffer. */
typedef struct rpvk_pc_cb {
	rpvk_pc_list all;          /* what it may write */
	rpvk_pc_list unit;         /* what the command (or render pass) being recorded may write */
	VkDevice device;           /* live */
	int dev;
	uint64_t pool;             /* live VkCommandPool, when its allocation was seen */
	int split;                 /* a primary: its commands are read one by one */
	int in_pass;               /* inside a render pass or dynamic rendering */
	int suspending;            /* that rendering is suspended at its end: nothing
	                              may come between it and its resumption */
	uint32_t ncmds;            /* vkCmd* recorded */
	uint64_t mem_gone;         /* a captured memory its slots copy from, freed
	                              since it was recorded (our buffer over it
	                              went with it); 0: none */
	VkDeviceSize staged;       /* bytes of its slots */
	rpvk_pc_slot *slots;       /* owned */
	uint32_t nslots, slots_cap;
	rpvk_pc_chunk *chunks;     /* owned; kept across recordings */
	uint32_t nchunks;
	rpvk_pc_flex *flex;        /* its flexible units; owned */
	uint32_t nflex, flex_cap;
	int cut;                   /* at this submit, its commands from cut_at on give no
	                              own results (rpvk_pc_flex_resolve) */
	uint32_t cut_at;
} rpvk_pc_cb;

/* A command's own result in one run: the hash of one slot after its submit. */
typedef struct rpvk_pc_inner {
	uint64_t submit;           /* the submit's seq */
	uint32_t cb;               /* the command buffer's place in the submit, from 0 */
	uint32_t index;            /* the command's place in that command buffer */
	uint64_t seq;              /* the command's record */
	uint64_t memory;           /* captured */
	uint64_t hash;
	uint32_t cmd;
} rpvk_pc_inner;

/* Memory the application freed while a flexible unit's slot still copies
 * it (the unit need not reach it any more, so the application may free it
 * before it records the command buffer again): its free is ours, once no
 * slot copies it (rpvk_pc_zombies_reap), with our buffer over it. */
typedef struct rpvk_pc_zombie {
	uint64_t live;             /* the live VkDeviceMemory, not freed yet */
	VkBuffer alias;            /* ours over it (may be VK_NULL_HANDLE) */
	VkDevice device;           /* live */
	int dev;
} rpvk_pc_zombie;

typedef struct rpvk_pc_inners {
	rpvk_pc_inner *v;          /* owned */
	size_t n, cap;
} rpvk_pc_inners;

struct rpvk_pc {
	rpvk_map cbs;              /* (COMMAND_BUFFER, live) -> rpvk_pc_cb* (owned) */
	rpvk_map aliases;          /* (DEVICE_MEMORY, live) -> our VkBuffer over all of it
	                              (0: none may be, warned); aux: its device */
	rpvk_map livemem;          /* (DEVICE_MEMORY, live) -> captured: rpvk_pc_mem_find's memo */
	rp_cm_results results;     /* this run's, in submit order */
	rpvk_pc_inners ref;        /* run 1's commands' own results: kept until free */
	rpvk_pc_inners cur;        /* a later run's, until its end */
	int later;                 /* run 1 has ended: own results go to cur */
	int over_warned;           /* RPVK_PC_SPLIT_MAX met this run */
	int flex_warned;           /* a flexible unit left unresolved this run */
	int submit_cut;            /* a command buffer of the submit being read is cut:
	                              the later ones give no own results */
	uint64_t *mems;            /* live memories of the submit or command being read; owned */
	size_t nmems, mems_cap;
	uint8_t *buf;              /* bytes of the memory being read; owned */
	size_t buf_cap;
	rpvk_pc_zombie *zombies;   /* owned */
	size_t nzombies, zombies_cap;
};

rp_status rpvk_percmd_open(rpvk *r)
{
	r->pc = calloc(1, sizeof(*r->pc));
	return r->pc ? RP_OK : RP_ERR_NOMEM;
}

/* The device objects of c (slots, staging), where its device still lives. */
static void rpvk_pc_cb_drop_slots(rpvk *r, rpvk_pc_cb *c, int chunks_too)
{
	const rpvk_device *dv = c->dev >= 0 && c->dev < r->ndev ? &r->dev[c->dev] : NULL;
	int live = dv && dv->live && dv->live == c->device;
	for (uint32_t i = 0; i < c->nslots; i++)
		if (live && c->slots[i].buf)
			dv->t.DestroyBuffer(c->device, c->slots[i].buf, NULL);
	c->nslots = 0;
	c->staged = 0;
	for (uint32_t i = 0; i < c->nchunks; i++) {
		if (!chunks_too) {
			c->chunks[i].used = 0;
			continue;
		}
		if (live && c->chunks[i].mem)
			dv->t.FreeMemory(c->device, c->chunks[i].mem, NULL); /* unmapped with it */
	}
	if (chunks_too) {
		free(c->chunks);
		c->chunks = NULL;
		c->nchunks = 0;
	}
}

static void rpvk_pc_flex_drop(rpvk_pc_cb *c)
{
	for (uint32_t i = 0; i < c->nflex; i++)
		free(c->flex[i].res.v);
	c->nflex = 0;
}

static void rpvk_pc_cb_free(rpvk *r, rpvk_pc_cb *c)
{
	rpvk_pc_cb_drop_slots(r, c, 1);
	rpvk_pc_flex_drop(c);
	free(c->flex);
	free(c->all.v);
	free(c->unit.v);
	free(c->slots);
	free(c);
}

/* Every command buffer, or only those of device (non-NULL), forgotten
 * and their device objects destroyed. */
static void rpvk_pc_cbs_drop(rpvk *r, VkDevice device)
{
	struct rpvk_pc *pc = r->pc;
	for (size_t i = 0; i < pc->cbs.cap; i++) {
		rpvk_map_slot *s = &pc->cbs.slots[i];
		rpvk_pc_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_pc_cb *)(uintptr_t)s->val;
		if (device && c->device != device)
			continue;
		rpvk_pc_cb_free(r, c);
		s->type = RPVK_MAP_TOMB;
		pc->cbs.live--;
	}
	if (!device)
		rpvk_map_clear(&pc->cbs);
}

/* Our buffers over memories, or only those of device (non-NULL). */
static void rpvk_pc_aliases_drop(rpvk *r, VkDevice device)
{
	struct rpvk_pc *pc = r->pc;
	for (size_t i = 0; i < pc->aliases.cap; i++) {
		rpvk_map_slot *s = &pc->aliases.slots[i];
		const rpvk_device *dv;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		dv = s->aux >= 0 && s->aux < r->ndev ? &r->dev[s->aux] : NULL;
		if (device && (!dv || dv->live != device))
			continue;
		if (s->val && dv && dv->live)
			dv->t.DestroyBuffer(dv->live, (VkBuffer)(uintptr_t)s->val, NULL);
		s->type = RPVK_MAP_TOMB;
		pc->aliases.live--;
	}
	if (!device)
		rpvk_map_clear(&pc->aliases);
}

/* Kept memories no slot copies any more (all of them with all 1, those of
 * device with device non-NULL: their command buffers are gone) freed, with
 * our buffers over them. */
static void rpvk_pc_zombies_reap(rpvk *r, VkDevice device, int all)
{
	struct rpvk_pc *pc = r->pc;
	size_t n = 0;
	for (size_t i = 0; i < pc->nzombies; i++) {
		rpvk_pc_zombie *z = &pc->zombies[i];
		const rpvk_device *dv = z->dev >= 0 && z->dev < r->ndev ? &r->dev[z->dev] : NULL;
		int used = 0;
		if (!all && (!device || device == z->device)) {
			for (size_t k = 0; k < pc->cbs.cap && !used; k++) {
				const rpvk_map_slot *s = &pc->cbs.slots[k];
				const rpvk_pc_cb *c;
				if (!s->type || s->type == RPVK_MAP_TOMB)
					continue;
				c = (const rpvk_pc_cb *)(uintptr_t)s->val;
				for (uint32_t j = 0; c->device == z->device && j < c->nslots && !used; j++)
					used = c->slots[j].live_mem == z->live;
			}
		} else if (!all) {
			used = 1; /* another device's: not asked */
		}
		if (used) {
			pc->zombies[n++] = *z;
			continue;
		}
		if (dv && dv->live && dv->live == z->device) {
			if (z->alias)
				dv->t.DestroyBuffer(dv->live, z->alias, NULL);
			dv->t.FreeMemory(dv->live, (VkDeviceMemory)(uintptr_t)z->live, NULL);
		}
	}
	pc->nzombies = n;
}

int rpvk_percmd_keeps_memory(rpvk *r, VkDeviceMemory memory)
{
	for (size_t i = 0; r->pc && i < r->pc->nzombies; i++)
		if (r->pc->zombies[i].live == (uint64_t)(uintptr_t)memory)
			return 1;
	return 0;
}

void rpvk_percmd_release(rpvk *r)
{
	if (!r->pc)
		return;
	rpvk_pc_cbs_drop(r, VK_NULL_HANDLE);
	rpvk_pc_zombies_reap(r, VK_NULL_HANDLE, 1);
	rpvk_pc_aliases_drop(r, VK_NULL_HANDLE);
	rpvk_map_clear(&r->pc->livemem);
}

void rpvk_percmd_clear(rpvk *r)
{
	if (!r->pc)
		return;
	rpvk_percmd_release(r);
	rp_cm_results_clear(&r->pc->results);
	r->pc->cur.n = 0;
	r->pc->later = 1;
	r->pc->over_warned = 0;
	r->pc->flex_warned = 0;
}

void rpvk_percmd_free(rpvk *r)
{
	if (!r->pc)
		return;
	rpvk_percmd_clear(r);
	rpvk_map_free(&r->pc->cbs);
	rpvk_map_free(&r->pc->aliases);
	rpvk_map_free(&r->pc->livemem);
	rp_cm_results_free(&r->pc->results);
	free(r->pc->ref.v);
	free(r->pc->cur.v);
	free(r->pc->mems);
	free(r->pc->buf);
	free(r->pc->zombies);
	free(r->pc);
	r->pc = NULL;
}

static rpvk_pc_cb *rpvk_pc_cb_get(rpvk *r, VkCommandBuffer cb)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->pc->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER,
	                                      (uint64_t)(uintptr_t)cb);
	return s ? (rpvk_pc_cb *)(uintptr_t)s->val : NULL;
}

static void rpvk_pc_cb_forget(rpvk *r, VkCommandBuffer cb)
{
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	if (!c)
		return;
	rpvk_map_del(&r->pc->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)cb);
	rpvk_pc_cb_free(r, c);
}

/* The entry of a live command buffer of ours, made when missing (NULL
 * with *st RP_OK when cb is not one of ours). */
static rpvk_pc_cb *rpvk_pc_cb_make(rpvk *r, VkCommandBuffer cb, rp_status *st)
{
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	VkDevice device;

	*st = RP_OK;
	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)cb))
		return NULL; /* not a command buffer of ours: its call failed already */
	device = r->dev[r->cur_dev].live;
	if (c && c->device != device) { /* a handle reused on another device */
		rpvk_pc_cb_forget(r, cb);
		c = NULL;
	}
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c || rpvk_map_put(&r->pc->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)cb,
		                       (uint64_t)(uintptr_t)c, 0) != 0) {
			free(c);
			*st = rpvk_nomem(r);
			return NULL;
		}
		c->device = device;
		c->dev = r->cur_dev;
	}
	return c;
}

/* The command buffers of a pool that goes, forgotten (none is pending:
 * the application may not destroy a pool whose buffers are). */
static void rpvk_pc_pool_gone(rpvk *r, uint64_t pool)
{
	struct rpvk_pc *pc = r->pc;
	for (size_t i = 0; pool && i < pc->cbs.cap; i++) {
		rpvk_map_slot *s = &pc->cbs.slots[i];
		rpvk_pc_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_pc_cb *)(uintptr_t)s->val;
		if (c->pool != pool)
			continue;
		rpvk_pc_cb_free(r, c);
		s->type = RPVK_MAP_TOMB;
		pc->cbs.live--;
	}
}

/* vkBeginCommandBuffer: empty lists; a recording before it is no longer
 * pending (the application waited), so its slots go, its staging memory
 * stays for this one. */
static rp_status rpvk_pc_cb_begin(rpvk *r, const sbt_vk_args_vkBeginCommandBuffer *a)
{
	VkCommandBuffer cb = a->commandBuffer;
	rp_status st;
	rpvk_pc_cb *c = rpvk_pc_cb_make(r, cb, &st);

	if (!c)
		return st;
	rpvk_pc_cb_drop_slots(r, c, 0);
	rpvk_pc_flex_drop(c);
	c->all.n = c->unit.n = 0;
	c->ncmds = 0;
	c->mem_gone = 0;
	c->in_pass = 0;
	c->split = !rpvk_state_cb_secondary(r, cb);
	return RP_OK;
}

static rp_status rpvk_pc_list_add(rpvk *r, rpvk_pc_list *l, uint32_t type, uint64_t live)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (l->v[i].type == type && l->v[i].live == live)
			return RP_OK;
	if (l->n == l->cap) {
		uint32_t ncap = l->cap ? 2 * l->cap : 8;
		rpvk_pc_res *nv = realloc(l->v, ncap * sizeof(*nv));
		if (!nv)
			return rpvk_nomem(r);
		l->v = nv;
		l->cap = ncap;
	}
	l->v[l->n].type = type;
	l->v[l->n].live = live;
	l->n++;
	return RP_OK;
}

/* What the command being recorded into c may write: into its command
 * buffer's list and the command's own. */
static rp_status rpvk_pc_add(rpvk *r, rpvk_pc_cb *c, VkObjectType type, uint64_t live)
{
	rp_status st;
	if (!live)
		return RP_OK;
	st = rpvk_pc_list_add(r, &c->all, (uint32_t)type, live);
	return st == RP_OK ? rpvk_pc_list_add(r, &c->unit, (uint32_t)type, live) : st;
}

static rp_status rpvk_pc_buffer(rpvk *r, rpvk_pc_cb *c, VkBuffer b)
{
	return rpvk_pc_add(r, c, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)b);
}

static rp_status rpvk_pc_image(rpvk *r, rpvk_pc_cb *c, VkImage i)
{
	return rpvk_pc_add(r, c, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)i);
}

/* The image of a live image view (rpvk_shader.c keeps them), into c. */
static rp_status rpvk_pc_view(rpvk *r, rpvk_pc_cb *c, VkImageView v)
{
	const rpvk_map_slot *s;
	if (!v || !(s = rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)(uintptr_t)v)) ||
	    !s->val) /* a view of an image not seen made */
		return RP_OK;
	return rpvk_pc_add(r, c, VK_OBJECT_TYPE_IMAGE, s->val);
}

static rp_status rpvk_pc_rendering(rpvk *r, rpvk_pc_cb *c, const VkRenderingInfo *ri)
{
	rp_status st = RP_OK;
	if (!ri)
		return RP_OK;
	for (uint32_t i = 0; i < ri->colorAttachmentCount && ri->pColorAttachments && st == RP_OK; i++) {
		st = rpvk_pc_view(r, c, ri->pColorAttachments[i].imageView);
		if (st == RP_OK)
			st = rpvk_pc_view(r, c, ri->pColorAttachments[i].resolveImageView);
	}
	if (st == RP_OK && ri->pDepthAttachment)
		st = rpvk_pc_view(r, c, ri->pDepthAttachment->imageView);
	if (st == RP_OK && ri->pStencilAttachment)
		st = rpvk_pc_view(r, c, ri->pStencilAttachment->imageView);
	return st;
}

static rp_status rpvk_pc_render_pass(rpvk *r, rpvk_pc_cb *c, const VkRenderPassBeginInfo *bi)
{
	uint64_t att[64];
	int n;
	rp_status st = RP_OK;
	if (!bi)
		return RP_OK;
	n = rpvk_shader_pass_attachments(r, bi, att, 64);
	for (int i = 1; i < n && st == RP_OK; i += 2) /* (view, image) pairs */
		st = rpvk_pc_add(r, c, VK_OBJECT_TYPE_IMAGE, att[i]);
	return st;
}

/* Recording: what a vkCmd* may write, into c's lists. */
static rp_status rpvk_pc_record(rpvk *r, rpvk_pc_cb *c, enum sbt_vk_cmd cmd, const void *args)
{
	rp_status st = RP_OK;

	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyBuffer: {
		const sbt_vk_args_vkCmdCopyBuffer *a = args;
		return rpvk_pc_buffer(r, c, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: {
		const sbt_vk_args_vkCmdCopyBuffer2 *a = args;
		return a->pCopyBufferInfo ? rpvk_pc_buffer(r, c, a->pCopyBufferInfo->dstBuffer)
		                          : RP_OK;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer: {
		const sbt_vk_args_vkCmdCopyImageToBuffer *a = args;
		return rpvk_pc_buffer(r, c, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR: {
		const sbt_vk_args_vkCmdCopyImageToBuffer2 *a = args;
		return a->pCopyImageToBufferInfo
		       ? rpvk_pc_buffer(r, c, a->pCopyImageToBufferInfo->dstBuffer) : RP_OK;
	}
	case SBT_VK_CMD_vkCmdFillBuffer: {
		const sbt_vk_args_vkCmdFillBuffer *a = args;
		return rpvk_pc_buffer(r, c, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdUpdateBuffer: {
		const sbt_vk_args_vkCmdUpdateBuffer *a = args;
		return rpvk_pc_buffer(r, c, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyQueryPoolResults: {
		const sbt_vk_args_vkCmdCopyQueryPoolResults *a = args;
		return rpvk_pc_buffer(r, c, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyImage: {
		const sbt_vk_args_vkCmdCopyImage *a = args;
		return rpvk_pc_image(r, c, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdCopyImage2:
	case SBT_VK_CMD_vkCmdCopyImage2KHR: {
		const sbt_vk_args_vkCmdCopyImage2 *a = args;
		return a->pCopyImageInfo ? rpvk_pc_image(r, c, a->pCopyImageInfo->dstImage)
		                         : RP_OK;
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage: {
		const sbt_vk_args_vkCmdCopyBufferToImage *a = args;
		return rpvk_pc_image(r, c, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR: {
		const sbt_vk_args_vkCmdCopyBufferToImage2 *a = args;
		return a->pCopyBufferToImageInfo
		       ? rpvk_pc_image(r, c, a->pCopyBufferToImageInfo->dstImage) : RP_OK;
	}
	case SBT_VK_CMD_vkCmdBlitImage: {
		const sbt_vk_args_vkCmdBlitImage *a = args;
		return rpvk_pc_image(r, c, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR: {
		const sbt_vk_args_vkCmdBlitImage2 *a = args;
		return a->pBlitImageInfo ? rpvk_pc_image(r, c, a->pBlitImageInfo->dstImage)
		                         : RP_OK;
	}
	case SBT_VK_CMD_vkCmdResolveImage: {
		const sbt_vk_args_vkCmdResolveImage *a = args;
		return rpvk_pc_image(r, c, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR: {
		const sbt_vk_args_vkCmdResolveImage2 *a = args;
		return a->pResolveImageInfo
		       ? rpvk_pc_image(r, c, a->pResolveImageInfo->dstImage) : RP_OK;
	}
	case SBT_VK_CMD_vkCmdClearColorImage: {
		const sbt_vk_args_vkCmdClearColorImage *a = args;
		return rpvk_pc_image(r, c, a->image);
	}
	case SBT_VK_CMD_vkCmdClearDepthStencilImage: {
		const sbt_vk_args_vkCmdClearDepthStencilImage *a = args;
		return rpvk_pc_image(r, c, a->image);
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass: {
		const sbt_vk_args_vkCmdBeginRenderPass *a = args;
		return rpvk_pc_render_pass(r, c, a->pRenderPassBegin);
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR: {
		const sbt_vk_args_vkCmdBeginRenderPass2 *a = args;
		return rpvk_pc_render_pass(r, c, a->pRenderPassBegin);
	}
	case SBT_VK_CMD_vkCmdBeginRendering:
	case SBT_VK_CMD_vkCmdBeginRenderingKHR: {
		const sbt_vk_args_vkCmdBeginRendering *a = args;
		return rpvk_pc_rendering(r, c, a->pRenderingInfo);
	}
	case SBT_VK_CMD_vkCmdBindDescriptorSets: {
		const sbt_vk_args_vkCmdBindDescriptorSets *a = args;
		for (uint32_t i = 0; a->pDescriptorSets && i < a->descriptorSetCount && st == RP_OK; i++)
			if (a->pDescriptorSets[i]) /* bound: a dispatch or render pass after it may write */
				st = rpvk_pc_list_add(r, &c->all, VK_OBJECT_TYPE_DESCRIPTOR_SET,
				                      (uint64_t)(uintptr_t)a->pDescriptorSets[i]);
		return st;
	}
	case SBT_VK_CMD_vkCmdExecuteCommands: {
		const sbt_vk_args_vkCmdExecuteCommands *a = args;
		for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount && st == RP_OK; i++)
			st = rpvk_pc_add(r, c, VK_OBJECT_TYPE_COMMAND_BUFFER,
			                 (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
		return st;
	}
	default:
		return RP_OK;
	}
}

/* ---- after a submit: the memories, and their bytes ------------------------------- */

static rp_status rpvk_pc_mem_add(rpvk *r, uint32_t type, uint64_t res)
{
	struct rpvk_pc *pc = r->pc;
	const rpvk_map_slot *s = rpvk_map_get(&r->resmem, type, res);
	if (!s || !s->val)
		return RP_OK; /* no memory bound (sparse, or not known): not read */
	for (size_t i = 0; i < pc->nmems; i++)
		if (pc->mems[i] == s->val)
			return RP_OK;
	if (pc->nmems == pc->mems_cap) {
		size_t ncap = pc->mems_cap ? 2 * pc->mems_cap : 16;
		uint64_t *nv = realloc(pc->mems, ncap * sizeof(*nv));
		if (!nv)
			return rpvk_nomem(r);
		pc->mems = nv;
		pc->mems_cap = ncap;
	}
	pc->mems[pc->nmems++] = s->val;
	return RP_OK;
}

typedef struct rpvk_pc_walk {
	rpvk *r;
	rp_status st;
} rpvk_pc_walk;

static void rpvk_pc_set_res(void *ctx, uint32_t type, uint64_t live)
{
	rpvk_pc_walk *w = ctx;
	if (w->st == RP_OK)
		w->st = rpvk_pc_mem_add(w->r, type, live);
}

/* The memories list l may write into pc->mems (depth: secondary command
 * buffers it executes, one level down). */
static rp_status rpvk_pc_collect(rpvk *r, const rpvk_pc_list *l, int depth)
{
	rpvk_pc_walk w = {r, RP_OK};
	for (uint32_t i = 0; l && i < l->n && w.st == RP_OK; i++) {
		switch (l->v[i].type) {
		case VK_OBJECT_TYPE_BUFFER:
		case VK_OBJECT_TYPE_IMAGE:
			w.st = rpvk_pc_mem_add(r, l->v[i].type, l->v[i].live);
			break;
		case VK_OBJECT_TYPE_DESCRIPTOR_SET:
			rpvk_dset_each_storage(r, l->v[i].live, rpvk_pc_set_res, &w);
			break;
		case VK_OBJECT_TYPE_COMMAND_BUFFER:
			if (depth < 2) {
				rpvk_pc_cb *k = rpvk_pc_cb_get(r, (VkCommandBuffer)(uintptr_t)l->v[i].live);
				w.st = rpvk_pc_collect(r, k ? &k->all : NULL, depth + 1);
			}
			break;
		default:
			break;
		}
	}
	return w.st;
}

/* The rpvk_mem of a live memory, and its captured handle; NULL if none.
 * Asked after every command that writes: remembered (forgotten when the
 * memory is freed). */
static rpvk_mem *rpvk_pc_mem_find(rpvk *r, uint64_t live, uint64_t *captured_out)
{
	const rpvk_map_slot *memo = rpvk_map_get(&r->pc->livemem, VK_OBJECT_TYPE_DEVICE_MEMORY, live);
	if (memo) {
		const rpvk_map_slot *s = rpvk_map_get(&r->mems, VK_OBJECT_TYPE_DEVICE_MEMORY, memo->val);
		rpvk_mem *m = s ? (rpvk_mem *)(uintptr_t)s->val : NULL;
		if (m && (uint64_t)(uintptr_t)m->live == live) {
			*captured_out = memo->val;
			return m;
		}
	}
	for (size_t i = 0; i < r->mems.cap; i++) {
		const rpvk_map_slot *s = &r->mems.slots[i];
		rpvk_mem *m;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		m = (rpvk_mem *)(uintptr_t)s->val;
		if (m && (uint64_t)(uintptr_t)m->live == live) {
			*captured_out = s->key;
			rpvk_map_put(&r->pc->livemem, VK_OBJECT_TYPE_DEVICE_MEMORY, live, s->key, 0); /* a hint */
			return m;
		}
	}
	return NULL;
}

/* A buffer of ours over all of m (TRANSFER_SRC, bound at 0) into *out: 1;
 * 0 when no buffer may be bound to m here (a warning); -1 (diag set) on
 * failure. */
static int rpvk_pc_alias_make(rpvk *r, rpvk_mem *m, uint64_t captured, VkBuffer *out)
{
	rpvk_device *dv = &r->dev[m->dev];
	const rpvk_dtable *t = &dv->t;
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	VkMemoryRequirements req;
	VkBuffer b = VK_NULL_HANDLE;

	*out = VK_NULL_HANDLE;
	if (m->dedicated) {
		rpvk_warn(r, "--per-command: memory 0x%llx cannot be read here: it is a dedicated "
		          "allocation, not host-visible, that no buffer of ours may be bound to; its "
		          "results are left out", (unsigned long long)captured);
		return 0;
	}
	bi.size = m->size;
	bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
	if (t->CreateBuffer(dv->live, &bi, NULL, &b) != VK_SUCCESS) {
		rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot create a %llu-byte buffer",
		          (unsigned long long)m->size);
		return -1;
	}
	t->GetBufferMemoryRequirements(dv->live, b, &req);
	if (!(req.memoryTypeBits & (1u << m->live_type)) || req.size > m->size) {
		rpvk_warn(r, "--per-command: memory 0x%llx (type %u, %llu bytes) cannot be read here: a "
		          "buffer over it needs %llu bytes of types 0x%x; its results are left out",
		          (unsigned long long)captured, m->live_type, (unsigned long long)m->size,
		          (unsigned long long)req.size, req.memoryTypeBits);
		t->DestroyBuffer(dv->live, b, NULL);
		return 0;
	}
	if (t->BindBufferMemory(dv->live, b, m->live, 0) != VK_SUCCESS) {
		t->DestroyBuffer(dv->live, b, NULL);
		rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot bind a buffer to memory 0x%llx",
		          (unsigned long long)captured);
		return -1;
	}
	*out = b;
	return 1;
}

/* rpvk_pc_alias_make, kept for m until it is freed (and a refusal, so
 * that it is warned once). */
static int rpvk_pc_alias(rpvk *r, rpvk_mem *m, uint64_t captured, VkBuffer *out)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->pc->aliases, VK_OBJECT_TYPE_DEVICE_MEMORY,
	                                      (uint64_t)(uintptr_t)m->live);
	int got;
	if (s) {
		*out = (VkBuffer)(uintptr_t)s->val;
		return s->val ? 1 : 0;
	}
	got = rpvk_pc_alias_make(r, m, captured, out);
	if (got < 0)
		return got;
	if (rpvk_map_put(&r->pc->aliases, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)m->live,
	                 (uint64_t)(uintptr_t)*out, m->dev) != 0) {
		if (*out)
			r->dev[m->dev].t.DestroyBuffer(r->dev[m->dev].live, *out, NULL);
		rpvk_nomem(r);
		return -1;
	}
	return got;
}

/* A slot of size bytes in c's staging memory: a buffer of ours bound there. */
static rp_status rpvk_pc_slot_new(rpvk *r, rpvk_pc_cb *c, VkDeviceSize size, rpvk_pc_slot **out)
{
	rpvk_device *dv = &r->dev[c->dev];
	const rpvk_dtable *t = &dv->t;
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	VkMemoryRequirements req;
	rpvk_pc_slot *sl;
	rpvk_pc_chunk *k = NULL;
	VkDeviceSize off = 0;
	uint32_t i;

	if (c->nslots == c->slots_cap) {
		uint32_t ncap = c->slots_cap ? 2 * c->slots_cap : 8;
		rpvk_pc_slot *nv = realloc(c->slots, ncap * sizeof(*nv));
		if (!nv)
			return rpvk_nomem(r);
		c->slots = nv;
		c->slots_cap = ncap;
	}
	sl = &c->slots[c->nslots];
	memset(sl, 0, sizeof(*sl));
	bi.size = size;
	bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
	if (t->CreateBuffer(dv->live, &bi, NULL, &sl->buf) != VK_SUCCESS)
		return rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot create a %llu-byte buffer",
		                 (unsigned long long)size);
	c->nslots++; /* destroyed with the others from here on */
	t->GetBufferMemoryRequirements(dv->live, sl->buf, &req);
	for (i = 0; i < c->nchunks && !k; i++) {
		VkDeviceSize a = req.alignment ? req.alignment : 1;
		off = (c->chunks[i].used + a - 1) / a * a;
		if ((req.memoryTypeBits & (1u << c->chunks[i].type)) && off + req.size <= c->chunks[i].size)
			k = &c->chunks[i];
	}
	if (!k) {
		VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		int type = rpvk_memory_type(&r->phys[dv->phys], req.memoryTypeBits,
		                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		                            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
		rpvk_pc_chunk *nv = realloc(c->chunks, (c->nchunks + 1) * sizeof(*nv));
		void *ptr = NULL;
		if (!nv)
			return rpvk_nomem(r);
		c->chunks = nv;
		k = &c->chunks[c->nchunks];
		memset(k, 0, sizeof(*k));
		k->size = c->nchunks ? 2 * c->chunks[c->nchunks - 1].size : RPVK_PC_CHUNK_MIN;
		if (k->size < req.size)
			k->size = req.size;
		ai.allocationSize = k->size;
		ai.memoryTypeIndex = (uint32_t)type;
		if (type < 0 || t->AllocateMemory(dv->live, &ai, NULL, &k->mem) != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "--per-command: no host-visible memory for %llu "
			                 "bytes of a command's results", (unsigned long long)k->size);
		c->nchunks++;
		if (t->MapMemory(dv->live, k->mem, 0, VK_WHOLE_SIZE, 0, &ptr) != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot map memory of ours");
		k->ptr = ptr;
		k->type = (uint32_t)type;
		off = 0;
	}
	if (t->BindBufferMemory(dv->live, sl->buf, k->mem, off) != VK_SUCCESS)
		return rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot bind a buffer of ours");
	k->used = off + req.size;
	sl->chunk = (uint32_t)(k - c->chunks);
	sl->off = off;
	sl->size = size;
	c->staged += size;
	*out = sl;
	return RP_OK;
}

/* Whether a unit binds a set whose storage descriptors may change after it
 * is recorded (depth: in the secondary command buffers it executes, one
 * level down, as rpvk_pc_collect reads them). */
static int rpvk_pc_unit_flexible(rpvk *r, const rpvk_pc_list *unit, int depth)
{
	for (uint32_t i = 0; unit && i < unit->n; i++) {
		if (unit->v[i].type == VK_OBJECT_TYPE_DESCRIPTOR_SET && rpvk_dset_may_change(r, unit->v[i].live))
			return 1;
		if (unit->v[i].type == VK_OBJECT_TYPE_COMMAND_BUFFER && depth < 2) {
			const rpvk_pc_cb *k = rpvk_pc_cb_get(r, (VkCommandBuffer)(uintptr_t)unit->v[i].live);
			if (k && rpvk_pc_unit_flexible(r, &k->all, depth + 1))
				return 1;
		}
	}
	return 0;
}

/* The unit of c being ended (cmd, index) becomes a flexible one: its list
 * moves into *out, its slots start here. */
static rp_status rpvk_pc_flex_new(rpvk *r, rpvk_pc_cb *c, enum sbt_vk_cmd cmd, uint32_t index,
                                  rpvk_pc_flex **out)
{
	rpvk_pc_flex *f;
	if (c->nflex == c->flex_cap) {
		uint32_t ncap = c->flex_cap ? 2 * c->flex_cap : 4;
		rpvk_pc_flex *nv = realloc(c->flex, ncap * sizeof(*nv));
		if (!nv)
			return rpvk_nomem(r);
		c->flex = nv;
		c->flex_cap = ncap;
	}
	f = &c->flex[c->nflex++];
	f->index = index;
	f->seq = r->seq;
	f->cmd = (uint32_t)cmd;
	f->first = c->nslots;
	f->nslots = 0;
	f->res = c->unit;
	memset(&c->unit, 0, sizeof(c->unit));
	*out = f;
	return RP_OK;
}

/* Every memory bound to a buffer or image, into pc->mems: what a flexible
 * unit's sets may reach by the time it is submitted (memory made after the
 * recording excepted: rpvk_pc_flex_resolve). */
static rp_status rpvk_pc_mem_every(rpvk *r)
{
	rp_status st = RP_OK;
	for (size_t i = 0; i < r->resmem.cap && st == RP_OK; i++) {
		const rpvk_map_slot *s = &r->resmem.slots[i];
		if (s->type == VK_OBJECT_TYPE_BUFFER || s->type == VK_OBJECT_TYPE_IMAGE)
			st = rpvk_pc_mem_add(r, s->type, s->key);
	}
	return st;
}

/* The command at r->seq (cmd, index in cb) ended a unit: copy each memory
 * it may have written into a slot, in cb right behind it. */
static rp_status rpvk_pc_unit_end(rpvk *r, VkCommandBuffer cb, rpvk_pc_cb *c, enum sbt_vk_cmd cmd,
                                  uint32_t index)
{
	struct rpvk_pc *pc = r->pc;
	const rpvk_dtable *t = &r->dev[c->dev].t;
	VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
	rpvk_pc_flex *f = NULL;
	int copied = 0;
	rp_status st;

	pc->nmems = 0;
	st = rpvk_pc_collect(r, &c->unit, 0);
	if (st == RP_OK && c->split && r->dev[c->dev].live == c->device && rpvk_pc_unit_flexible(r, &c->unit, 0)) {
		st = rpvk_pc_flex_new(r, c, cmd, index, &f);
		if (st == RP_OK)
			st = rpvk_pc_mem_every(r);
	}
	c->unit.n = 0;
	if (st != RP_OK || !c->split || r->dev[c->dev].live != c->device)
		return st;
	for (size_t i = 0; i < pc->nmems && st == RP_OK; i++) {
		uint64_t captured = 0;
		rpvk_mem *m = rpvk_pc_mem_find(r, pc->mems[i], &captured);
		rpvk_pc_slot *sl = NULL;
		VkBuffer src;
		VkBufferCopy region;
		int got;
		if (!m || !m->size || m->dev != c->dev)
			continue;
		if (c->staged + m->size > RPVK_PC_SPLIT_MAX) {
			if (!pc->over_warned)
				rpvk_warn(r, "--per-command: a command buffer's commands are no longer read one "
				          "by one from here on: their results would need more than %llu MiB; a "
				          "difference there names the submit only",
				          (unsigned long long)(RPVK_PC_SPLIT_MAX >> 20));
			pc->over_warned = 1;
			c->split = 0;
			break;
		}
		got = rpvk_pc_alias(r, m, captured, &src);
		if (got < 0)
			return RP_ERR_BACKEND;
		if (!got)
			continue;
		st = rpvk_pc_slot_new(r, c, m->size, &sl);
		if (st != RP_OK)
			return st;
		sl->seq = r->seq;
		sl->cmd = (uint32_t)cmd;
		sl->index = index;
		sl->memory = captured;
		sl->live_mem = pc->mems[i];
		sl->flex = f != NULL;
		if (!copied) {
			/* what the command wrote, before the copies read it */
			mb.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
			mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
			t->CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
			                      0, 1, &mb, 0, NULL, 0, NULL);
			copied = 1;
		}
		region.srcOffset = 0;
		region.dstOffset = 0;
		region.size = m->size;
		t->CmdCopyBuffer(cb, src, sl->buf, 1, &region);
	}
	if (f)
		f->nslots = c->nslots - f->first;
	if (copied) {
		/* the copies before what comes next (it may write what they read),
		 * and their bytes to the host */
		mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		mb.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT |
		                   VK_ACCESS_HOST_READ_BIT;
		t->CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
		                      0, 1, &mb, 0, NULL, 0, NULL);
	}
	return st;
}

/* What ends a unit of a primary command buffer. */
enum rpvk_pc_kind {
	RPVK_PC_OTHER,
	RPVK_PC_WRITE,      /* its own unit outside a render pass */
	RPVK_PC_DISPATCH,   /* its own unit, with the sets bound before it */
	RPVK_PC_PASS_BEGIN,
	RPVK_PC_PASS_END    /* ends the render pass's unit, with the sets bound */
};

static enum rpvk_pc_kind rpvk_pc_kind_of(enum sbt_vk_cmd cmd)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyBuffer: case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: case SBT_VK_CMD_vkCmdCopyImageToBuffer:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2: case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR:
	case SBT_VK_CMD_vkCmdFillBuffer: case SBT_VK_CMD_vkCmdUpdateBuffer:
	case SBT_VK_CMD_vkCmdCopyQueryPoolResults: case SBT_VK_CMD_vkCmdCopyImage:
	case SBT_VK_CMD_vkCmdCopyImage2: case SBT_VK_CMD_vkCmdCopyImage2KHR:
	case SBT_VK_CMD_vkCmdCopyBufferToImage: case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR: case SBT_VK_CMD_vkCmdBlitImage:
	case SBT_VK_CMD_vkCmdBlitImage2: case SBT_VK_CMD_vkCmdBlitImage2KHR:
	case SBT_VK_CMD_vkCmdResolveImage: case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR: case SBT_VK_CMD_vkCmdClearColorImage:
	case SBT_VK_CMD_vkCmdClearDepthStencilImage: case SBT_VK_CMD_vkCmdExecuteCommands:
		return RPVK_PC_WRITE;
	case SBT_VK_CMD_vkCmdDispatch: case SBT_VK_CMD_vkCmdDispatchBase:
	case SBT_VK_CMD_vkCmdDispatchBaseKHR: case SBT_VK_CMD_vkCmdDispatchIndirect:
		return RPVK_PC_DISPATCH;
	case SBT_VK_CMD_vkCmdBeginRenderPass: case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR: case SBT_VK_CMD_vkCmdBeginRendering:
	case SBT_VK_CMD_vkCmdBeginRenderingKHR:
		return RPVK_PC_PASS_BEGIN;
	case SBT_VK_CMD_vkCmdEndRenderPass: case SBT_VK_CMD_vkCmdEndRenderPass2:
	case SBT_VK_CMD_vkCmdEndRenderPass2KHR: case SBT_VK_CMD_vkCmdEndRendering:
	case SBT_VK_CMD_vkCmdEndRenderingKHR:
		return RPVK_PC_PASS_END;
	default:
		return RPVK_PC_OTHER;
	}
}

/* The sets c bound so far, into its unit. */
static rp_status rpvk_pc_unit_sets(rpvk *r, rpvk_pc_cb *c)
{
	rp_status st = RP_OK;
	for (uint32_t i = 0; i < c->all.n && st == RP_OK; i++)
		if (c->all.v[i].type == VK_OBJECT_TYPE_DESCRIPTOR_SET)
			st = rpvk_pc_list_add(r, &c->unit, VK_OBJECT_TYPE_DESCRIPTOR_SET, c->all.v[i].live);
	return st;
}

/* A vkCmd* was recorded into its command buffer (the first argument of
 * every vkCmd*). */
static rp_status rpvk_pc_command(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	VkCommandBuffer cb = *(const VkCommandBuffer *)args;
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	uint32_t index;
	rp_status st;

	if (!c)
		return RP_OK; /* not begun here: its submit is refused (rpvk_state.c) */
	index = c->ncmds++;
	st = rpvk_pc_record(r, c, cmd, args);
	if (st != RP_OK)
		return st;
	switch (rpvk_pc_kind_of(cmd)) {
	case RPVK_PC_PASS_BEGIN:
		c->in_pass = 1;
		c->suspending = (cmd == SBT_VK_CMD_vkCmdBeginRendering || cmd == SBT_VK_CMD_vkCmdBeginRenderingKHR) &&
		                ((const sbt_vk_args_vkCmdBeginRendering *)args)->pRenderingInfo &&
		                (((const sbt_vk_args_vkCmdBeginRendering *)args)->pRenderingInfo->flags &
		                 VK_RENDERING_SUSPENDING_BIT);
		return RP_OK;
	case RPVK_PC_PASS_END:
		c->in_pass = 0;
		if (c->suspending) { /* not split: its submit's results cover it */
			c->unit.n = 0;
			return RP_OK;
		}
		st = rpvk_pc_unit_sets(r, c);
		return st == RP_OK ? rpvk_pc_unit_end(r, cb, c, cmd, index) : st;
	case RPVK_PC_DISPATCH:
		st = rpvk_pc_unit_sets(r, c);
		return st == RP_OK ? rpvk_pc_unit_end(r, cb, c, cmd, index) : st;
	case RPVK_PC_WRITE:
		return c->in_pass ? RP_OK : rpvk_pc_unit_end(r, cb, c, cmd, index);
	default:
		return RP_OK;
	}
}

struct rpvk_pc_copy {
	VkBuffer src;
	VkDeviceSize size;
};

static void rpvk_pc_copy_record(const rpvk_dtable *t, VkCommandBuffer cb, VkBuffer dst, void *ctx)
{
	const struct rpvk_pc_copy *x = ctx;
	VkBufferCopy copy = {0, 0, x->size};
	t->CmdCopyBuffer(cb, x->src, dst, 1, &copy);
}

/* All of m (m->size bytes) into out by a copy on the device: a buffer of
 * ours bound to m at 0, read back (rpvk_read_back).  1 read, 0 when no
 * buffer can alias m here (a warning), -1 (diag set) on failure. */
static int rpvk_pc_read_device(rpvk *r, rpvk_mem *m, uint64_t captured, uint8_t *out)
{
	struct rpvk_pc_copy x = {VK_NULL_HANDLE, m->size};
	int got = rpvk_pc_alias(r, m, captured, &x.src);
	if (got <= 0)
		return got;
	return rpvk_read_back(r, &r->dev[m->dev], m->size, "--per-command", rpvk_pc_copy_record, &x,
	                      out) == RP_OK ? 1 : -1;
}

/* One result: what memory live holds after the submit r->seq. */
static rp_status rpvk_pc_read(rpvk *r, uint64_t live)
{
	struct rpvk_pc *pc = r->pc;
	uint64_t captured = 0;
	rpvk_mem *m = rpvk_pc_mem_find(r, live, &captured);
	uint8_t *out;
	int got;

	if (!m || !m->size)
		return RP_OK;
	if (pc->buf_cap < m->size) {
		uint8_t *nb = realloc(pc->buf, (size_t)m->size);
		if (!nb)
			return rpvk_nomem(r);
		pc->buf = nb;
		pc->buf_cap = (size_t)m->size;
	}
	got = rpvk_memory_read_host(r, m, pc->buf);
	if (got < 0)
		return RP_ERR_BACKEND;
	if (!got)
		got = rpvk_pc_read_device(r, m, captured, pc->buf);
	if (got <= 0)
		return got < 0 ? RP_ERR_BACKEND : RP_OK;
	out = rp_cm_results_add(&pc->results, r->seq, captured, m->size);
	if (!out)
		return rpvk_nomem(r);
	memcpy(out, pc->buf, (size_t)m->size);
	return RP_OK;
}

/* After its submit: the hashes of the slots of command buffer cb, the
 * n-th of the submit r->seq. */
static rp_status rpvk_pc_own_results(rpvk *r, VkCommandBuffer cb, uint32_t n)
{
	struct rpvk_pc *pc = r->pc;
	rpvk_pc_inners *to = pc->later ? &pc->cur : &pc->ref;
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	if (pc->submit_cut)
		return RP_OK;
	for (uint32_t i = 0; c && i < c->nslots; i++) {
		const rpvk_pc_slot *sl = &c->slots[i];
		rpvk_pc_inner *e;
		if (sl->out || (c->cut && sl->index >= c->cut_at))
			continue;
		if (to->n == to->cap) {
			size_t ncap = to->cap ? 2 * to->cap : 64;
			rpvk_pc_inner *nv = realloc(to->v, ncap * sizeof(*nv));
			if (!nv)
				return rpvk_nomem(r);
			to->v = nv;
			to->cap = ncap;
		}
		e = &to->v[to->n++];
		e->submit = r->seq;
		e->cb = n;
		e->index = sl->index;
		e->seq = sl->seq;
		e->memory = sl->memory;
		e->cmd = sl->cmd;
		e->hash = sbt_fmt_hash64(c->chunks[sl->chunk].ptr + sl->off, (size_t)sl->size);
	}
	if (c && c->cut)
		pc->submit_cut = 1; /* a later command buffer may read what the cut command wrote */
	return RP_OK;
}

/* Whether memory live is one of f's slots'. */
static int rpvk_pc_flex_has(const rpvk_pc_cb *c, const rpvk_pc_flex *f, uint64_t live)
{
	for (uint32_t k = f->first; k < f->first + f->nslots && k < c->nslots; k++)
		if (c->slots[k].live_mem == live)
			return 1;
	return 0;
}

/* At a submit of c: each flexible unit's resources as its sets hold them
 * now.  Its slots of other memories give no result; a memory it reaches now
 * that none of its slots copies (made after the recording) cuts c from
 * that unit on (a warning, once a run): a difference there names the
 * submit alone. */
static rp_status rpvk_pc_flex_resolve(rpvk *r, VkCommandBuffer cb, rpvk_pc_cb *c)
{
	struct rpvk_pc *pc = r->pc;
	rp_status st = RP_OK;
	c->cut = 0;
	for (uint32_t i = 0; i < c->nflex && st == RP_OK; i++) {
		const rpvk_pc_flex *f = &c->flex[i];
		pc->nmems = 0;
		st = rpvk_pc_collect(r, &f->res, 0);
		for (uint32_t k = f->first; st == RP_OK && k < f->first + f->nslots && k < c->nslots; k++) {
			size_t j = 0;
			while (j < pc->nmems && pc->mems[j] != c->slots[k].live_mem)
				j++;
			c->slots[k].out = j == pc->nmems;
		}
		for (size_t j = 0; st == RP_OK && j < pc->nmems && !(c->cut && c->cut_at <= f->index); j++) {
			uint64_t captured = 0;
			const rpvk_mem *m = rpvk_pc_mem_find(r, pc->mems[j], &captured);
			const rpvk_map_slot *a = rpvk_map_get(&pc->aliases, VK_OBJECT_TYPE_DEVICE_MEMORY, pc->mems[j]);
			if (!m || !m->size || m->dev != c->dev || (a && !a->val) || rpvk_pc_flex_has(c, f, pc->mems[j]))
				continue; /* not read, or read behind it */
			if (!pc->flex_warned)
				rpvk_warn(r, "--per-command: the command at seq %llu (%s, index %u of command buffer "
				          "0x%llx) reaches VkDeviceMemory 0x%llx through a descriptor set updated after it "
				          "was recorded, and its per-command copies do not cover that memory (made since); "
				          "from it on, a difference in its submit names the submit only",
				          (unsigned long long)f->seq, sbt_vk_cmd_name((enum sbt_vk_cmd)f->cmd), f->index,
				          (unsigned long long)(uintptr_t)cb, (unsigned long long)captured);
			pc->flex_warned = 1;
			c->cut = 1;
			c->cut_at = f->index;
		}
	}
	pc->nmems = 0;
	return st;
}

/* After a submit that queued work: wait for its queue, then read. */
static rp_status rpvk_pc_submit(rpvk *r, VkQueue q, uint32_t nbatch, const VkSubmitInfo *s1,
                                const VkSubmitInfo2 *s2)
{
	struct rpvk_pc *pc = r->pc;
	rp_status st = RP_OK;
	uint32_t n = 0;
	VkResult res;

	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)q))
		return RP_OK; /* not a queue of ours: its submit failed already */
	res = rpvk_device_idle(r, r->cur_dev, q, r->wait_ns);
	if (res == VK_TIMEOUT)
		return rpvk_fail(r, RP_ERR_BACKEND, "--per-command: the submit did not finish within "
		                 "--wait-timeout");
	pc->submit_cut = 0;
	for (uint32_t b = 0; b < nbatch && st == RP_OK; b++) {
		uint32_t ncb = s1 ? (s1[b].pCommandBuffers ? s1[b].commandBufferCount : 0)
		                  : (s2[b].pCommandBufferInfos ? s2[b].commandBufferInfoCount : 0);
		for (uint32_t i = 0; i < ncb && st == RP_OK; i++) {
			VkCommandBuffer cb = s1 ? s1[b].pCommandBuffers[i] : s2[b].pCommandBufferInfos[i].commandBuffer;
			rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
			if (c)
				st = rpvk_pc_flex_resolve(r, cb, c);
		}
	}
	pc->nmems = 0;
	for (uint32_t b = 0; b < nbatch && st == RP_OK; b++) {
		uint32_t ncb = s1 ? (s1[b].pCommandBuffers ? s1[b].commandBufferCount : 0)
		                  : (s2[b].pCommandBufferInfos ? s2[b].commandBufferInfoCount : 0);
		for (uint32_t i = 0; i < ncb && st == RP_OK; i++, n++) {
			VkCommandBuffer cb = s1 ? s1[b].pCommandBuffers[i] : s2[b].pCommandBufferInfos[i].commandBuffer;
			rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
			st = rpvk_pc_collect(r, c ? &c->all : NULL, 0);
			if (st == RP_OK)
				st = rpvk_pc_own_results(r, cb, n);
		}
	}
	for (size_t i = 0; i < pc->nmems && st == RP_OK; i++)
		st = rpvk_pc_read(r, pc->mems[i]);
	return st;
}

int rpvk_percmd_part(void *state, uint64_t seq, rp_command_part *out)
{
	rpvk *r = state;
	const rpvk_pc_inners *ref, *cur;
	size_t a = 0, b;

	if (!r->pc || !r->pc->later)
		return 0;
	ref = &r->pc->ref;
	cur = &r->pc->cur;
	while (a < ref->n && ref->v[a].submit != seq)
		a++;
	for (b = a; b < ref->n && ref->v[b].submit == seq; b++)
		;
	for (size_t i = 0; i < cur->n; i++) {
		const rpvk_pc_inner *x = &cur->v[i];
		size_t j;
		if (x->submit != seq)
			continue;
		for (j = a; j < b; j++)
			if (ref->v[j].cb == x->cb && ref->v[j].index == x->index && ref->v[j].memory == x->memory)
				break;
		if (j < b && ref->v[j].hash == x->hash)
			continue;
		memset(out, 0, sizeof(*out));
		out->seq = x->seq;
		snprintf(out->call, sizeof(out->call), "%s", sbt_vk_cmd_name((enum sbt_vk_cmd)x->cmd));
		snprintf(out->unit, sizeof(out->unit), "submit");
		snprintf(out->group, sizeof(out->group), "command buffer");
		out->group_index = x->cb;
		out->index = x->index;
		return 1;
	}
	return 0;
}

/* Every command buffer with a slot copying captured memory mem (live
 * handle live) notes it gone; flexible units' slots do not (the unit need
 * not reach it any more: a submit whose sets do is refused by rpvk_state.c).
 * 1 when such a slot copies it: the memory is kept (rpvk_pc_zombie). */
static int rpvk_pc_mem_gone(rpvk *r, uint64_t mem, uint64_t live)
{
	struct rpvk_pc *pc = r->pc;
	int keep = 0;
	for (size_t i = 0; i < pc->cbs.cap; i++) {
		const rpvk_map_slot *s = &pc->cbs.slots[i];
		rpvk_pc_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_pc_cb *)(uintptr_t)s->val;
		for (uint32_t k = 0; k < c->nslots; k++) {
			if (c->slots[k].live_mem != live)
				continue;
			if (c->slots[k].flex)
				keep = 1;
			else if (!c->mem_gone)
				c->mem_gone = mem;
		}
	}
	return keep;
}

/* A submitted command buffer whose slots copy memory freed since it was
 * recorded: refused (a valid application records it again first).  The
 * copies of flexible units do not count: that memory is kept. */
static rp_status rpvk_pc_submit_check(rpvk *r, VkCommandBuffer cb)
{
	const rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	if (!c || !c->mem_gone)
		return RP_OK;
	return rpvk_fail(r, RP_ERR_TRACE, "--per-command: command buffer 0x%llx is submitted, and "
	                 "VkDeviceMemory 0x%llx, which its commands' per-command copies read, was "
	                 "freed since it was recorded: a valid application records it again first",
	                 (unsigned long long)(uintptr_t)cb, (unsigned long long)c->mem_gone);
}

rp_status rpvk_percmd_before(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	rp_status st = RP_OK;
	if (cmd == SBT_VK_CMD_vkQueueSubmit) {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pSubmits && i < a->submitCount; i++)
			for (uint32_t j = 0; st == RP_OK && a->pSubmits[i].pCommandBuffers &&
			                     j < a->pSubmits[i].commandBufferCount; j++)
				st = rpvk_pc_submit_check(r, a->pSubmits[i].pCommandBuffers[j]);
		return st;
	}
	if (cmd == SBT_VK_CMD_vkQueueSubmit2 || cmd == SBT_VK_CMD_vkQueueSubmit2KHR) {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pSubmits && i < a->submitCount; i++)
			for (uint32_t j = 0; st == RP_OK && a->pSubmits[i].pCommandBufferInfos &&
			                     j < a->pSubmits[i].commandBufferInfoCount; j++)
				st = rpvk_pc_submit_check(r, a->pSubmits[i].pCommandBufferInfos[j].commandBuffer);
		return st;
	}
	if (cmd == SBT_VK_CMD_vkDestroyDevice) {
		/* our objects on it go before it */
		VkDevice device = *(const VkDevice *)args;
		rpvk_pc_cbs_drop(r, device);
		rpvk_pc_zombies_reap(r, device, 0);
		rpvk_pc_aliases_drop(r, device);
	} else if (cmd == SBT_VK_CMD_vkFreeMemory) {
		const sbt_vk_args_vkFreeMemory *a = args;
		const rpvk_map_slot *s = rpvk_map_get(&r->pc->aliases, VK_OBJECT_TYPE_DEVICE_MEMORY,
		                                      (uint64_t)(uintptr_t)a->memory);
		uint64_t captured;
		int keep = 0;
		/* command buffers whose copies read it through our buffer over it,
		 * which goes now: submitted again unrecorded, they would read
		 * through a destroyed buffer; where a flexible unit's copy reads
		 * it, it stays, with that buffer, until no copy does */
		if (s && s->val && rpvk_pc_mem_find(r, (uint64_t)(uintptr_t)a->memory, &captured))
			keep = rpvk_pc_mem_gone(r, captured, (uint64_t)(uintptr_t)a->memory);
		rpvk_map_del(&r->pc->livemem, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)a->memory);
		if (keep) {
			struct rpvk_pc *pc = r->pc;
			if (pc->nzombies == pc->zombies_cap) {
				size_t ncap = pc->zombies_cap ? 2 * pc->zombies_cap : 8;
				rpvk_pc_zombie *nv = realloc(pc->zombies, ncap * sizeof(*nv));
				if (!nv)
					return rpvk_nomem(r);
				pc->zombies = nv;
				pc->zombies_cap = ncap;
			}
			pc->zombies[pc->nzombies].live = (uint64_t)(uintptr_t)a->memory;
			pc->zombies[pc->nzombies].alias = (VkBuffer)(uintptr_t)s->val;
			pc->zombies[pc->nzombies].device = r->dev[s->aux].live;
			pc->zombies[pc->nzombies].dev = s->aux;
			pc->nzombies++;
			rpvk_map_del(&r->pc->aliases, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)a->memory);
		} else if (s) {
			int d = s->aux;
			if (s->val && d >= 0 && d < r->ndev && r->dev[d].live)
				r->dev[d].t.DestroyBuffer(r->dev[d].live, (VkBuffer)(uintptr_t)s->val, NULL);
			rpvk_map_del(&r->pc->aliases, VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)a->memory);
		}
	}
	return RP_OK;
}

rp_status rpvk_percmd_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args, unsigned flags)
{
	switch (cmd) {
	case SBT_VK_CMD_vkBeginCommandBuffer: {
		rp_status st = rpvk_pc_cb_begin(r, args);
		rpvk_pc_zombies_reap(r, VK_NULL_HANDLE, 0);
		return st;
	}
	case SBT_VK_CMD_vkFreeCommandBuffers: {
		const sbt_vk_args_vkFreeCommandBuffers *a = args;
		for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++)
			rpvk_pc_cb_forget(r, a->pCommandBuffers[i]);
		rpvk_pc_zombies_reap(r, VK_NULL_HANDLE, 0);
		return RP_OK;
	}
	case SBT_VK_CMD_vkAllocateCommandBuffers: {
		/* their pool, so that they go with it */
		const sbt_vk_args_vkAllocateCommandBuffers *a = args;
		rp_status st = RP_OK;
		if (a->ret != VK_SUCCESS || !a->pAllocateInfo || !a->pCommandBuffers)
			return RP_OK;
		for (uint32_t i = 0; i < a->pAllocateInfo->commandBufferCount && st == RP_OK; i++) {
			rpvk_pc_cb *c = rpvk_pc_cb_make(r, a->pCommandBuffers[i], &st);
			if (c)
				c->pool = (uint64_t)(uintptr_t)a->pAllocateInfo->commandPool;
		}
		return st;
	}
	case SBT_VK_CMD_vkDestroyCommandPool:
		rpvk_pc_pool_gone(r, (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyCommandPool *)args)->commandPool);
		rpvk_pc_zombies_reap(r, VK_NULL_HANDLE, 0);
		return RP_OK;
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		if (a->ret != VK_SUCCESS || (flags & RP_EXEC_FAST_FORWARD))
			return RP_OK;
		return rpvk_pc_submit(r, a->queue, a->pSubmits ? a->submitCount : 0, a->pSubmits, NULL);
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		if (a->ret != VK_SUCCESS || (flags & RP_EXEC_FAST_FORWARD))
			return RP_OK;
		return rpvk_pc_submit(r, a->queue, a->pSubmits ? a->submitCount : 0, NULL, a->pSubmits);
	}
	default:
		if (strncmp(sbt_vk_cmd_name(cmd), "vkCmd", 5) != 0)
			return RP_OK;
		return rpvk_pc_command(r, cmd, args);
	}
}

rp_status rpvk_percmd_results(void *state, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	rpvk *r = state;
	return rp_cm_results_hand(&r->pc->results, fn, ctx, diag);
}
