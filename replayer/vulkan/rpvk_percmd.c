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
 * Not followed: push descriptors, template updates (their sets' contents
 * are not kept: rpvk_dset.c), acceleration structures.  Memory that is
 * not host-visible and that no buffer of ours may be bound to (a dedicated
 * allocation, a type or size the buffer does not take) is left out with a
 * warning: no result.
 */
#include "replayer/vulkan/rpvk.h"
#include "replayer/rp_cm.h"

#include <stdlib.h>
#include <string.h>

typedef struct rpvk_pc_res {
	uint32_t type;             /* BUFFER, IMAGE, DESCRIPTOR_SET or COMMAND_BUFFER */
	uint64_t live;
} rpvk_pc_res;

/* What one command buffer may write, since its vkBeginCommandBuffer. */
typedef struct rpvk_pc_cb {
	uint32_t n, cap;
	rpvk_pc_res *v;            /* owned */
} rpvk_pc_cb;

struct rpvk_pc {
	rpvk_map cbs;              /* (COMMAND_BUFFER, live) -> rpvk_pc_cb* (owned) */
	rp_cm_results results;     /* this run's, in submit order */
	uint64_t *mems;            /* live memories of the submit being read; owned */
	size_t nmems, mems_cap;
	uint8_t *buf;              /* bytes of the memory being read; owned */
	size_t buf_cap;
};

rp_status rpvk_percmd_open(rpvk *r)
{
	r->pc = calloc(1, sizeof(*r->pc));
	return r->pc ? RP_OK : RP_ERR_NOMEM;
}

static void rpvk_pc_cbs_clear(struct rpvk_pc *pc)
{
	for (size_t i = 0; i < pc->cbs.cap; i++) {
		rpvk_map_slot *s = &pc->cbs.slots[i];
		if (s->type && s->type != RPVK_MAP_TOMB) {
			rpvk_pc_cb *c = (rpvk_pc_cb *)(uintptr_t)s->val;
			free(c->v);
			free(c);
		}
	}
	rpvk_map_clear(&pc->cbs);
}

void rpvk_percmd_clear(rpvk *r)
{
	if (!r->pc)
		return;
	rpvk_pc_cbs_clear(r->pc);
	rp_cm_results_clear(&r->pc->results);
}

void rpvk_percmd_free(rpvk *r)
{
	if (!r->pc)
		return;
	rpvk_percmd_clear(r);
	rpvk_map_free(&r->pc->cbs);
	rp_cm_results_free(&r->pc->results);
	free(r->pc->mems);
	free(r->pc->buf);
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
	free(c->v);
	free(c);
}

/* vkBeginCommandBuffer: an empty list (made on first use). */
static rp_status rpvk_pc_cb_begin(rpvk *r, VkCommandBuffer cb)
{
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	if (c) {
		c->n = 0;
		return RP_OK;
	}
	c = calloc(1, sizeof(*c));
	if (!c || rpvk_map_put(&r->pc->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)cb,
	                       (uint64_t)(uintptr_t)c, 0) != 0) {
		free(c);
		return rpvk_nomem(r);
	}
	return RP_OK;
}

static rp_status rpvk_pc_add(rpvk *r, VkCommandBuffer cb, VkObjectType type, uint64_t live)
{
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, cb);
	if (!c || !live)
		return RP_OK; /* not begun here: its submit is refused (rpvk_state.c) */
	for (uint32_t i = 0; i < c->n; i++)
		if (c->v[i].type == (uint32_t)type && c->v[i].live == live)
			return RP_OK;
	if (c->n == c->cap) {
		uint32_t ncap = c->cap ? 2 * c->cap : 8;
		rpvk_pc_res *nv = realloc(c->v, ncap * sizeof(*nv));
		if (!nv)
			return rpvk_nomem(r);
		c->v = nv;
		c->cap = ncap;
	}
	c->v[c->n].type = (uint32_t)type;
	c->v[c->n].live = live;
	c->n++;
	return RP_OK;
}

static rp_status rpvk_pc_buffer(rpvk *r, VkCommandBuffer cb, VkBuffer b)
{
	return rpvk_pc_add(r, cb, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)b);
}

static rp_status rpvk_pc_image(rpvk *r, VkCommandBuffer cb, VkImage i)
{
	return rpvk_pc_add(r, cb, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)i);
}

/* The image of a live image view (rpvk_shader.c keeps them), into cb. */
static rp_status rpvk_pc_view(rpvk *r, VkCommandBuffer cb, VkImageView v)
{
	const rpvk_map_slot *s;
	if (!v || !(s = rpvk_map_get(&r->shobjs, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)(uintptr_t)v)))
		return RP_OK;
	return rpvk_pc_add(r, cb, VK_OBJECT_TYPE_IMAGE, s->val);
}

static rp_status rpvk_pc_rendering(rpvk *r, VkCommandBuffer cb, const VkRenderingInfo *ri)
{
	rp_status st = RP_OK;
	if (!ri)
		return RP_OK;
	for (uint32_t i = 0; i < ri->colorAttachmentCount && ri->pColorAttachments && st == RP_OK; i++) {
		st = rpvk_pc_view(r, cb, ri->pColorAttachments[i].imageView);
		if (st == RP_OK)
			st = rpvk_pc_view(r, cb, ri->pColorAttachments[i].resolveImageView);
	}
	if (st == RP_OK && ri->pDepthAttachment)
		st = rpvk_pc_view(r, cb, ri->pDepthAttachment->imageView);
	if (st == RP_OK && ri->pStencilAttachment)
		st = rpvk_pc_view(r, cb, ri->pStencilAttachment->imageView);
	return st;
}

static rp_status rpvk_pc_render_pass(rpvk *r, VkCommandBuffer cb, const VkRenderPassBeginInfo *bi)
{
	uint64_t att[64];
	int n;
	rp_status st = RP_OK;
	if (!bi)
		return RP_OK;
	n = rpvk_shader_fb_attachments(r, bi->framebuffer, att, 64);
	for (int i = 1; i < n && st == RP_OK; i += 2) /* (view, image) pairs */
		st = rpvk_pc_add(r, cb, VK_OBJECT_TYPE_IMAGE, att[i]);
	return st;
}

/* Recording: what a vkCmd* may write, into its command buffer's list. */
static rp_status rpvk_pc_record(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	rp_status st = RP_OK;

	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyBuffer: {
		const sbt_vk_args_vkCmdCopyBuffer *a = args;
		return rpvk_pc_buffer(r, a->commandBuffer, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: {
		const sbt_vk_args_vkCmdCopyBuffer2 *a = args;
		return a->pCopyBufferInfo ? rpvk_pc_buffer(r, a->commandBuffer, a->pCopyBufferInfo->dstBuffer)
		                          : RP_OK;
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer: {
		const sbt_vk_args_vkCmdCopyImageToBuffer *a = args;
		return rpvk_pc_buffer(r, a->commandBuffer, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR: {
		const sbt_vk_args_vkCmdCopyImageToBuffer2 *a = args;
		return a->pCopyImageToBufferInfo
		       ? rpvk_pc_buffer(r, a->commandBuffer, a->pCopyImageToBufferInfo->dstBuffer) : RP_OK;
	}
	case SBT_VK_CMD_vkCmdFillBuffer: {
		const sbt_vk_args_vkCmdFillBuffer *a = args;
		return rpvk_pc_buffer(r, a->commandBuffer, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdUpdateBuffer: {
		const sbt_vk_args_vkCmdUpdateBuffer *a = args;
		return rpvk_pc_buffer(r, a->commandBuffer, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyQueryPoolResults: {
		const sbt_vk_args_vkCmdCopyQueryPoolResults *a = args;
		return rpvk_pc_buffer(r, a->commandBuffer, a->dstBuffer);
	}
	case SBT_VK_CMD_vkCmdCopyImage: {
		const sbt_vk_args_vkCmdCopyImage *a = args;
		return rpvk_pc_image(r, a->commandBuffer, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdCopyImage2:
	case SBT_VK_CMD_vkCmdCopyImage2KHR: {
		const sbt_vk_args_vkCmdCopyImage2 *a = args;
		return a->pCopyImageInfo ? rpvk_pc_image(r, a->commandBuffer, a->pCopyImageInfo->dstImage)
		                         : RP_OK;
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage: {
		const sbt_vk_args_vkCmdCopyBufferToImage *a = args;
		return rpvk_pc_image(r, a->commandBuffer, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR: {
		const sbt_vk_args_vkCmdCopyBufferToImage2 *a = args;
		return a->pCopyBufferToImageInfo
		       ? rpvk_pc_image(r, a->commandBuffer, a->pCopyBufferToImageInfo->dstImage) : RP_OK;
	}
	case SBT_VK_CMD_vkCmdBlitImage: {
		const sbt_vk_args_vkCmdBlitImage *a = args;
		return rpvk_pc_image(r, a->commandBuffer, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR: {
		const sbt_vk_args_vkCmdBlitImage2 *a = args;
		return a->pBlitImageInfo ? rpvk_pc_image(r, a->commandBuffer, a->pBlitImageInfo->dstImage)
		                         : RP_OK;
	}
	case SBT_VK_CMD_vkCmdResolveImage: {
		const sbt_vk_args_vkCmdResolveImage *a = args;
		return rpvk_pc_image(r, a->commandBuffer, a->dstImage);
	}
	case SBT_VK_CMD_vkCmdResolveImage2:
	case SBT_VK_CMD_vkCmdResolveImage2KHR: {
		const sbt_vk_args_vkCmdResolveImage2 *a = args;
		return a->pResolveImageInfo
		       ? rpvk_pc_image(r, a->commandBuffer, a->pResolveImageInfo->dstImage) : RP_OK;
	}
	case SBT_VK_CMD_vkCmdClearColorImage: {
		const sbt_vk_args_vkCmdClearColorImage *a = args;
		return rpvk_pc_image(r, a->commandBuffer, a->image);
	}
	case SBT_VK_CMD_vkCmdClearDepthStencilImage: {
		const sbt_vk_args_vkCmdClearDepthStencilImage *a = args;
		return rpvk_pc_image(r, a->commandBuffer, a->image);
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass: {
		const sbt_vk_args_vkCmdBeginRenderPass *a = args;
		return rpvk_pc_render_pass(r, a->commandBuffer, a->pRenderPassBegin);
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR: {
		const sbt_vk_args_vkCmdBeginRenderPass2 *a = args;
		return rpvk_pc_render_pass(r, a->commandBuffer, a->pRenderPassBegin);
	}
	case SBT_VK_CMD_vkCmdBeginRendering:
	case SBT_VK_CMD_vkCmdBeginRenderingKHR: {
		const sbt_vk_args_vkCmdBeginRendering *a = args;
		return rpvk_pc_rendering(r, a->commandBuffer, a->pRenderingInfo);
	}
	case SBT_VK_CMD_vkCmdBindDescriptorSets: {
		const sbt_vk_args_vkCmdBindDescriptorSets *a = args;
		for (uint32_t i = 0; a->pDescriptorSets && i < a->descriptorSetCount && st == RP_OK; i++)
			st = rpvk_pc_add(r, a->commandBuffer, VK_OBJECT_TYPE_DESCRIPTOR_SET,
			                 (uint64_t)(uintptr_t)a->pDescriptorSets[i]);
		return st;
	}
	case SBT_VK_CMD_vkCmdExecuteCommands: {
		const sbt_vk_args_vkCmdExecuteCommands *a = args;
		for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount && st == RP_OK; i++)
			st = rpvk_pc_add(r, a->commandBuffer, VK_OBJECT_TYPE_COMMAND_BUFFER,
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

/* The memories command buffer cb may write into pc->mems (depth: secondary
 * command buffers it executes, one level down). */
static rp_status rpvk_pc_collect(rpvk *r, uint64_t cb, int depth)
{
	rpvk_pc_cb *c = rpvk_pc_cb_get(r, (VkCommandBuffer)(uintptr_t)cb);
	rpvk_pc_walk w = {r, RP_OK};
	for (uint32_t i = 0; c && i < c->n && w.st == RP_OK; i++) {
		switch (c->v[i].type) {
		case VK_OBJECT_TYPE_BUFFER:
		case VK_OBJECT_TYPE_IMAGE:
			w.st = rpvk_pc_mem_add(r, c->v[i].type, c->v[i].live);
			break;
		case VK_OBJECT_TYPE_DESCRIPTOR_SET:
			rpvk_dset_each_storage(r, c->v[i].live, rpvk_pc_set_res, &w);
			break;
		case VK_OBJECT_TYPE_COMMAND_BUFFER:
			if (depth < 2)
				w.st = rpvk_pc_collect(r, c->v[i].live, depth + 1);
			break;
		default:
			break;
		}
	}
	return w.st;
}

/* The rpvk_mem of a live memory, and its captured handle; NULL if none. */
static rpvk_mem *rpvk_pc_mem_find(rpvk *r, uint64_t live, uint64_t *captured_out)
{
	for (size_t i = 0; i < r->mems.cap; i++) {
		const rpvk_map_slot *s = &r->mems.slots[i];
		rpvk_mem *m;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		m = (rpvk_mem *)(uintptr_t)s->val;
		if (m && (uint64_t)(uintptr_t)m->live == live) {
			*captured_out = s->key;
			return m;
		}
	}
	return NULL;
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
	rpvk_device *dv = &r->dev[m->dev];
	const rpvk_dtable *t = &dv->t;
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
	VkMemoryRequirements req;
	struct rpvk_pc_copy x = {VK_NULL_HANDLE, m->size};
	int ret = 1;

	if (m->dedicated) {
		rpvk_warn(r, "--per-command: memory 0x%llx cannot be read here: it is a dedicated "
		          "allocation, not host-visible, that no buffer of ours may be bound to; its "
		          "results are left out", (unsigned long long)captured);
		return 0;
	}
	bi.size = m->size;
	bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
	if (t->CreateBuffer(dv->live, &bi, NULL, &x.src) != VK_SUCCESS) {
		rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot create a %llu-byte buffer",
		          (unsigned long long)m->size);
		return -1;
	}
	t->GetBufferMemoryRequirements(dv->live, x.src, &req);
	if (!(req.memoryTypeBits & (1u << m->live_type)) || req.size > m->size) {
		rpvk_warn(r, "--per-command: memory 0x%llx (type %u, %llu bytes) cannot be read here: a "
		          "buffer over it needs %llu bytes of types 0x%x; its results are left out",
		          (unsigned long long)captured, m->live_type, (unsigned long long)m->size,
		          (unsigned long long)req.size, req.memoryTypeBits);
		ret = 0;
	} else if (t->BindBufferMemory(dv->live, x.src, m->live, 0) != VK_SUCCESS) {
		rpvk_fail(r, RP_ERR_BACKEND, "--per-command: cannot bind a buffer to memory 0x%llx",
		          (unsigned long long)captured);
		ret = -1;
	} else if (rpvk_read_back(r, dv, m->size, "--per-command", rpvk_pc_copy_record, &x, out) != RP_OK) {
		ret = -1;
	}
	t->DestroyBuffer(dv->live, x.src, NULL);
	return ret;
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

/* After a submit that queued work: wait for its queue, then read. */
static rp_status rpvk_pc_submit(rpvk *r, VkQueue q, uint32_t nbatch, const VkSubmitInfo *s1,
                                const VkSubmitInfo2 *s2)
{
	struct rpvk_pc *pc = r->pc;
	rp_status st = RP_OK;
	VkResult res;

	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)q))
		return RP_OK; /* not a queue of ours: its submit failed already */
	res = rpvk_device_idle(r, r->cur_dev, q, r->wait_ns);
	if (res == VK_TIMEOUT)
		return rpvk_fail(r, RP_ERR_BACKEND, "--per-command: the submit did not finish within "
		                 "--wait-timeout");
	pc->nmems = 0;
	for (uint32_t b = 0; b < nbatch && st == RP_OK; b++) {
		if (s1) {
			for (uint32_t i = 0; s1[b].pCommandBuffers && i < s1[b].commandBufferCount && st == RP_OK; i++)
				st = rpvk_pc_collect(r, (uint64_t)(uintptr_t)s1[b].pCommandBuffers[i], 0);
		} else {
			for (uint32_t i = 0; s2[b].pCommandBufferInfos && i < s2[b].commandBufferInfoCount &&
			                     st == RP_OK; i++)
				st = rpvk_pc_collect(r, (uint64_t)(uintptr_t)s2[b].pCommandBufferInfos[i].commandBuffer, 0);
		}
	}
	for (size_t i = 0; i < pc->nmems && st == RP_OK; i++)
		st = rpvk_pc_read(r, pc->mems[i]);
	return st;
}

rp_status rpvk_percmd_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args, unsigned flags)
{
	switch (cmd) {
	case SBT_VK_CMD_vkBeginCommandBuffer:
		return rpvk_pc_cb_begin(r, ((const sbt_vk_args_vkBeginCommandBuffer *)args)->commandBuffer);
	case SBT_VK_CMD_vkFreeCommandBuffers: {
		const sbt_vk_args_vkFreeCommandBuffers *a = args;
		for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++)
			rpvk_pc_cb_forget(r, a->pCommandBuffers[i]);
		return RP_OK;
	}
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
		return rpvk_pc_record(r, cmd, args);
	}
}

rp_status rpvk_percmd_results(void *state, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	rpvk *r = state;
	return rp_cm_results_hand(&r->pc->results, fn, ctx, diag);
}
