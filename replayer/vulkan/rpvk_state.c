/*
 * rpvk_state.c - the command buffer state a call needs, checked before it
 * reaches the driver (docs/hostile-traces.md).
 *
 * A trace is untrusted input: a record moved, dropped or duplicated makes
 * calls the capturing application never made, and drivers (lavapipe among
 * them) crash on many of them rather than report an error.  The replay
 * follows each command buffer it allocated: initial, recording (and in a
 * render pass or dynamic rendering, or a secondary one continuing a render
 * pass), executable; the pipeline bound at each bind point; whether any
 * descriptor set was bound there, and whether an index buffer was.  Before
 * a call it refuses, naming the record, the call and the command buffer:
 *   - a vkCmd* on a command buffer that is not recording (RPVK_F_CMD);
 *   - a vkCmd* vk.xml says runs inside a render pass with none begun, or
 *     outside one with one begun (renderpass=, RPVK_F_INSIDE/OUTSIDE);
 *   - a draw or dispatch with no pipeline of its kind bound, or with none
 *     of the descriptor sets its pipeline's layout has bindings in bound;
 *     an indexed draw with no index buffer bound since begin;
 *     a draw whose pipeline leaves a state to the command buffer that the
 *     draw reads (rpvk_shader_dyn_missing: rpvk_shader.c's table), when
 *     that state was never set (since begin, or since a pipeline with it
 *     static was bound), in a primary or a secondary command buffer;
 *   - in a primary command buffer after vkCmdExecuteCommands (which leaves
 *     its state undefined but the render pass), a draw or dispatch that
 *     uses its pipeline, descriptor sets, vertex or index buffers, push
 *     constants or dynamic state without binding or setting them again;
 *   - vkCmdExecuteCommands of a secondary command buffer not executable;
 *   - vkEndCommandBuffer of one not recording or inside a render pass;
 *   - a submit of one that is not executable (never ended, or reset), or
 *     that names a buffer or image whose memory was freed or that was
 *     destroyed since, or binds a descriptor set freed since or holding
 *     such a resource (rpvk_dset.c), or whose draws or dispatches use a
 *     binding of a bound set never written (and not partially bound), or
 *     that binds a set updated since the bind in a binding without
 *     UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING (the update made
 *     the command buffer invalid);
 *   - a buffer or image with no memory bound named by a vkCmd* parameter
 *     (rpvk_cmd_resources, generated), a view or a descriptor write (the
 *     driver would read through a null pointer; sparse ones not judged);
 *   - a bind of a buffer or image that has memory already, or whose
 *     requirements do not fit the memory at the offset (rpvk_memory.c);
 *     a flush or invalidate of memory not mapped, or outside its mapping;
 *   - a buffer of 0 bytes, an image with an empty extent, no levels, more
 *     levels than a full chain, or no layers; a descriptor write or copy
 *     that names no set (and one whose set a pending command buffer binds
 *     waits for the device first);
 *   - vkGetDeviceQueue[2] of a queue its device was not created with (the
 *     driver hands back memory past its queue array);
 *   - an image view's subresource range outside its image, a copy, update
 *     or fill outside its buffer (vkCmdCopyBuffer[2], vkCmdUpdateBuffer,
 *     vkCmdFillBuffer); image copies, blits, resolves and clears outside
 *     their images and buffers (rpvk_region.c);
 *   - a query pool of 0 queries; queries a call names outside their pool
 *     (resets, begins, ends, timestamps, result reads and copies), and
 *     results read into fewer bytes than they take (vkGetQueryPoolResults'
 *     dataSize) or copied past the end of their buffer
 *     (vkCmdCopyQueryPoolResults).
 * Command buffers the replay did not allocate are not judged.  The rules
 * are those of the Vulkan specification; a valid application never breaks
 * them, so a valid trace never meets them.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RPVK_CB_INITIAL = 1, RPVK_CB_RECORDING = 2, RPVK_CB_EXECUTABLE = 3 };
#define RPVK_CB_RES 64
#define RPVK_CB_SETS 8     /* set numbers followed per bind point */
#define RPVK_CB_NEED 64    /* (set, binding) pairs its draws and dispatches read */
enum { RPVK_PASS_NONE = 0, RPVK_PASS_RENDER_PASS = 1, RPVK_PASS_RENDERING = 2, RPVK_PASS_CONTINUE = 3 };

typedef struct rpvk_cb {
	uint8_t state;
	uint8_t pass;
	uint8_t secondary;
	uint64_t pool;            /* live VkCommandPool */
	uint64_t pipeline[2];     /* live: graphics, compute */
	uint32_t sets_bound[2];   /* descriptor set binds (any) since begin */
	uint8_t index_bound;      /* an index buffer bound since begin */
	uint8_t stale;            /* a buffer, image, descriptor set, pipeline or
	                             framebuffer it uses was destroyed since it
	                             was recorded */
	uint8_t pending;          /* submitted, and neither its fence nor the
	                             device was seen done since */
	int dev;                  /* its device (index into rpvk.dev) */
	uint64_t fence;           /* live fence of its last submit (0: none) */
	/* buffers and images its commands name (rpvk_cmd_resources), to find
	 * one whose memory was freed before a submit, and the descriptor sets
	 * it binds (rpvk_dset.c); past RPVK_CB_RES not judged */
	struct { uint32_t type; uint64_t live; } res[RPVK_CB_RES];
	uint32_t nres;
	uint64_t bound[2][RPVK_CB_SETS]; /* live set bound at each number */
	/* bindings of bound sets its draws and dispatches read (their
	 * pipeline's shaders use them), judged at submit: a set may be
	 * written after it is bound (UPDATE_AFTER_BIND); past RPVK_CB_NEED
	 * not judged */
	struct { uint64_t set; uint32_t binding; } need[RPVK_CB_NEED];
	uint32_t nneed;
	uint64_t dyn_set;         /* RPVK_DYN_* set since begin, and not
	                             disturbed by a pipeline with it static */
	uint64_t dyn_on;          /* of those, the enables set on (and a line
	                             topology: RPVK_DYN_TOPOLOGY) */
	uint64_t dyn_inherited;   /* a secondary's inherited from the primary
	                             (VK_NV_inherited_viewport_scissor) */
	rpvk_att_state att;       /* the colour states' attachments */
	/* a primary's state vkCmdExecuteCommands left undefined, and not set
	 * again since (RPVK_UNDEF_*), and the record of that execute */
	uint32_t undef;
	uint64_t undef_seq;
	/* a descriptor set it binds was updated since it was bound, in a
	 * binding without UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING:
	 * the command buffer is invalid (0: none) */
	uint64_t upd_seq;
	uint32_t upd_binding;
} rpvk_cb;

/* What vkCmdExecuteCommands leaves undefined in the primary command buffer
 * ("all state of the primary command buffer is undefined after an execute
 * secondary command buffer command is recorded", but the render pass):
 * the pipeline and descriptor sets of each bind point (<< 0 graphics, << 1
 * compute), the vertex and index buffers, the push constants and the
 * dynamic state. */
enum {
	RPVK_UNDEF_PIPELINE = 1u << 0, /* << k */
	RPVK_UNDEF_SETS = 1u << 2,     /* << k */
	RPVK_UNDEF_VERTEX = 1u << 4,
	RPVK_UNDEF_INDEX = 1u << 5,
	RPVK_UNDEF_PUSH = 1u << 6,
	RPVK_UNDEF_DYNAMIC = 1u << 7,
	RPVK_UNDEF_ALL = (1u << 8) - 1
};

/* rpvk.cbs keys: (COMMAND_BUFFER, live) -> rpvk_cb* (owned).
 * rpvk.sobjs: (DESCRIPTOR_SET_LAYOUT, live) -> binding count;
 * (PIPELINE_LAYOUT, live) -> set layouts with bindings;
 * (PIPELINE, live) -> that of its layout;
 * (BUFFER, live) -> RPVK_RES_UNBOUND or RPVK_RES_BOUND | size << 8;
 * (IMAGE, live) -> the same | mipLevels << 8 | arrayLayers << 32;
 * (QUERY_POOL, live) -> queryCount << 8 | values per query << 40 (occlusion
 * and timestamp queries: one; pipeline statistics: one per statistic
 * counted; other types: 0, not known). */
enum { RPVK_RES_UNBOUND = 1, RPVK_RES_BOUND = 2, RPVK_RES_FREED = 3 /* its memory was freed */ };
/* rpvk.resmem: (BUFFER or IMAGE, live) -> the live memory bound to it. */

static rpvk_cb *rpvk_cb_get(rpvk *r, VkCommandBuffer cb)
{
	const rpvk_map_slot *s = rpvk_map_get(&r->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER,
	                                      (uint64_t)(uintptr_t)cb);
	return s ? (rpvk_cb *)(uintptr_t)s->val : NULL;
}

int rpvk_state_cb_secondary(rpvk *r, VkCommandBuffer cb)
{
	const rpvk_cb *c = rpvk_cb_get(r, cb);
	return c && c->secondary;
}

static void rpvk_cb_forget(rpvk *r, VkCommandBuffer cb)
{
	rpvk_cb *c = rpvk_cb_get(r, cb);
	if (!c)
		return;
	rpvk_map_del(&r->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)cb);
	free(c);
}

static void rpvk_cb_reset(rpvk_cb *c, uint8_t state)
{
	c->state = state;
	c->nres = 0;
	c->stale = 0;
	c->pending = 0;
	c->pass = RPVK_PASS_NONE;
	memset(c->pipeline, 0, sizeof(c->pipeline));
	memset(c->sets_bound, 0, sizeof(c->sets_bound));
	c->index_bound = 0;
	memset(c->bound, 0, sizeof(c->bound));
	c->nneed = 0;
	c->dyn_set = 0;
	c->dyn_on = 0;
	c->dyn_inherited = 0;
	memset(&c->att, 0, sizeof(c->att));
	c->undef = 0;
	c->undef_seq = 0;
	c->upd_seq = 0;
	c->upd_binding = 0;
}

void rpvk_state_clear(rpvk *r)
{
	for (size_t i = 0; i < r->cbs.cap; i++)
		if (r->cbs.slots[i].type && r->cbs.slots[i].type != RPVK_MAP_TOMB)
			free((void *)(uintptr_t)r->cbs.slots[i].val);
	rpvk_map_clear(&r->cbs);
	rpvk_map_clear(&r->sobjs);
	rpvk_map_clear(&r->resmem);
	rpvk_region_clear(r);
	rpvk_dset_clear(r);
	rpvk_shader_clear(r);
}

void rpvk_state_free(rpvk *r)
{
	rpvk_state_clear(r);
	rpvk_map_free(&r->cbs);
	rpvk_map_free(&r->sobjs);
	rpvk_map_free(&r->resmem);
	rpvk_region_free(r);
	rpvk_dset_free(r);
	rpvk_shader_free(r);
}

static uint64_t rpvk_sobj(rpvk *r, VkObjectType type, uint64_t live)
{
	const rpvk_map_slot *s = live ? rpvk_map_get(&r->sobjs, (uint32_t)type, live) : NULL;
	return s ? s->val : 0;
}

static int rpvk_bind_point(VkPipelineBindPoint bp)
{
	return bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : bp == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 : -1;
}

static rp_status rpvk_state_refuse(rpvk *r, VkCommandBuffer cb, const char *why)
{
	uint64_t shown = (uint64_t)(uintptr_t)cb;
	for (size_t i = 0; i < r->nmapped; i++)
		if (r->mapped[i].type == VK_OBJECT_TYPE_COMMAND_BUFFER && r->mapped[i].live == shown)
			shown = r->mapped[i].captured; /* the trace's name for it */
	return rpvk_fail(r, RP_ERR_TRACE, "command buffer 0x%llx %s: a valid application never "
	                 "makes this call, and a driver may crash on it", (unsigned long long)shown, why);
}

/* Not usable: no memory bound, or its memory freed. */
static int rpvk_res_unbound(void *ctx, VkObjectType type, uint64_t live)
{
	uint64_t st = rpvk_sobj(ctx, type, live) & 3;
	return st == RPVK_RES_UNBOUND || st == RPVK_RES_FREED;
}

static void rpvk_res_state(rpvk *r, VkObjectType type, uint64_t live, uint64_t state)
{
	uint64_t v = rpvk_sobj(r, type, live);
	if (v)
		rpvk_map_put(&r->sobjs, (uint32_t)type, live, (v & ~(uint64_t)3) | state, 0);
}

static void rpvk_res_bind(rpvk *r, VkObjectType type, uint64_t live, VkDeviceMemory mem)
{
	rpvk_res_state(r, type, live, RPVK_RES_BOUND);
	if (live && mem && rpvk_map_put(&r->resmem, (uint32_t)type, live, (uint64_t)(uintptr_t)mem, 0) != 0)
		rpvk_map_del(&r->resmem, (uint32_t)type, live);
}

void rpvk_state_idle(rpvk *r, int d)
{
	for (size_t i = 0; i < r->cbs.cap; i++) {
		rpvk_map_slot *s = &r->cbs.slots[i];
		if (s->type && s->type != RPVK_MAP_TOMB && ((rpvk_cb *)(uintptr_t)s->val)->dev == d)
			((rpvk_cb *)(uintptr_t)s->val)->pending = 0;
	}
}

/* Fences seen signalled: the command buffers submitted with them are done. */
static void rpvk_state_fences_done(rpvk *r, uint32_t n, const VkFence *fences)
{
	for (size_t i = 0; fences && i < r->cbs.cap; i++) {
		rpvk_map_slot *s = &r->cbs.slots[i];
		rpvk_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_cb *)(uintptr_t)s->val;
		for (uint32_t k = 0; c->pending && c->fence && k < n; k++)
			if (c->fence == (uint64_t)(uintptr_t)fences[k])
				c->pending = 0;
	}
}

/* Before a call that resets or frees command buffer cb (or every one of
 * pool, when cb is NULL): one still pending is waited for first, as a
 * careful application would (a driver would reset what it executes). */
static rp_status rpvk_state_unpend(rpvk *r, VkCommandBuffer cb, uint64_t pool)
{
	int wait = -1;
	for (size_t i = 0; i < r->cbs.cap && wait < 0; i++) {
		rpvk_map_slot *s = &r->cbs.slots[i];
		rpvk_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_cb *)(uintptr_t)s->val;
		if (c->pending && (cb ? s->key == (uint64_t)(uintptr_t)cb : c->pool == pool))
			wait = c->dev;
	}
	if (wait < 0 || wait >= r->ndev || !r->dev[wait].live)
		return RP_OK;
	if (rpvk_device_idle(r, wait, VK_NULL_HANDLE, r->wait_ns) == VK_TIMEOUT)
		return rpvk_fail(r, RP_ERR_TRACE, "the device did not finish within %g s the work of the "
		                 "command buffer being reset (tsreplay --wait-timeout SECONDS waits longer)",
		                 (double)r->wait_ns / 1e9);
	return RP_OK;
}

/* Before a descriptor update of set: a pending command buffer that binds it
 * is waited for first (a driver would change what executing work reads). */
static rp_status rpvk_state_set_settle(rpvk *r, VkDescriptorSet set)
{
	int wait = -1;
	for (size_t i = 0; set && i < r->cbs.cap && wait < 0; i++) {
		rpvk_map_slot *s = &r->cbs.slots[i];
		rpvk_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_cb *)(uintptr_t)s->val;
		for (uint32_t k = 0; c->pending && k < c->nres && wait < 0; k++)
			if (c->res[k].type == VK_OBJECT_TYPE_DESCRIPTOR_SET &&
			    c->res[k].live == (uint64_t)(uintptr_t)set)
				wait = c->dev;
	}
	if (wait < 0 || wait >= r->ndev || !r->dev[wait].live)
		return RP_OK;
	if (rpvk_device_idle(r, wait, VK_NULL_HANDLE, r->wait_ns) == VK_TIMEOUT)
		return rpvk_fail(r, RP_ERR_TRACE, "the device did not finish within %g s the work that "
		                 "reads the descriptor set being updated (tsreplay --wait-timeout SECONDS "
		                 "waits longer)", (double)r->wait_ns / 1e9);
	return RP_OK;
}

/* Whether a buffer's or image's memory was freed (other objects' entries
 * in sobjs hold other things: a pipeline's is a count of sets). */
int rpvk_state_res_freed(rpvk *r, VkObjectType type, uint64_t live)
{
	return (type == VK_OBJECT_TYPE_BUFFER || type == VK_OBJECT_TYPE_IMAGE) &&
	       (rpvk_sobj(r, type, live) & 3) == RPVK_RES_FREED;
}

void rpvk_state_gone(rpvk *r, VkObjectType type, uint64_t live)
{
	for (size_t i = 0; live && i < r->cbs.cap; i++) {
		rpvk_map_slot *s = &r->cbs.slots[i];
		rpvk_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_cb *)(uintptr_t)s->val;
		for (uint32_t k = 0; k < c->nres && !c->stale; k++)
			c->stale = c->res[k].type == (uint32_t)type && c->res[k].live == live;
	}
}

/* Remember a resource a command of the command buffer names. */
static int rpvk_res_note(void *ctx, VkObjectType type, uint64_t live)
{
	rpvk_cb *c = ctx;
	for (uint32_t i = 0; live && i < c->nres; i++)
		if (c->res[i].live == live && c->res[i].type == (uint32_t)type)
			return 0;
	if (live && c->nres < RPVK_CB_RES) {
		c->res[c->nres].type = (uint32_t)type;
		c->res[c->nres].live = live;
		c->nres++;
	}
	return 0;
}

uint64_t rpvk_state_buffer_size(rpvk *r, VkBuffer b)
{
	return rpvk_sobj(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)b) >> 8;
}

/* [off, off + size) inside a buffer of known size (size 0: whole). */
static int rpvk_in_buffer(rpvk *r, VkBuffer b, VkDeviceSize off, VkDeviceSize size)
{
	uint64_t n = rpvk_state_buffer_size(r, b);
	if (!n)
		return 1;
	if (size == VK_WHOLE_SIZE)
		return off < n;
	return off <= n && size <= n - off;
}

static rp_status rpvk_region_refuse(rpvk *r, const char *what, uint32_t i)
{
	return rpvk_fail(r, RP_ERR_TRACE, "%s %u lies outside its buffer: a valid application never "
	                 "makes this call, and a driver may crash on it", what, i);
}

uint32_t rpvk_state_query_count(rpvk *r, VkQueryPool p, uint32_t *values_out)
{
	uint64_t v = rpvk_sobj(r, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)(uintptr_t)p);
	if (values_out)
		*values_out = (uint32_t)(v >> 40) & 0xff;
	return (uint32_t)(v >> 8);
}

/* Queries [first, first + n) of pool p inside it (when the replay saw it
 * created): drivers index their query arrays with them. */
static rp_status rpvk_queries_in(rpvk *r, VkQueryPool p, uint32_t first, uint32_t n)
{
	uint32_t count = rpvk_state_query_count(r, p, NULL);
	if (count && (first > count || n > count - first))
		return rpvk_fail(r, RP_ERR_TRACE, "queries %u+%u lie outside their query pool (%u queries): "
		                 "a valid application never makes this call, and a driver may crash on it",
		                 first, n, count);
	return RP_OK;
}

/* The bytes n results of pool p take written with stride and flags (0
 * when n is 0); UINT64_MAX when that overflows. */
static uint64_t rpvk_query_span(rpvk *r, VkQueryPool p, uint32_t n, VkDeviceSize stride,
                                VkQueryResultFlags flags)
{
	uint32_t known;
	uint64_t vals, one;
	rpvk_state_query_count(r, p, &known);
	vals = known ? known : 1; /* at least one */
	if (flags & (VK_QUERY_RESULT_WITH_AVAILABILITY_BIT | VK_QUERY_RESULT_WITH_STATUS_BIT_KHR))
		vals++;
	one = vals * ((flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4);
	if (!n)
		return 0;
	if (n > 1 && stride > (UINT64_MAX - one) / (n - 1))
		return UINT64_MAX;
	return (uint64_t)(n - 1) * stride + one;
}

static rp_status rpvk_state_regions(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	rp_status st;
	switch (cmd) {
	case SBT_VK_CMD_vkCmdCopyBuffer: {
		const sbt_vk_args_vkCmdCopyBuffer *a = args;
		for (uint32_t i = 0; a->pRegions && i < a->regionCount; i++)
			if (!rpvk_in_buffer(r, a->srcBuffer, a->pRegions[i].srcOffset, a->pRegions[i].size) ||
			    !rpvk_in_buffer(r, a->dstBuffer, a->pRegions[i].dstOffset, a->pRegions[i].size))
				return rpvk_region_refuse(r, "copy region", i);
		break;
	}
	case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: {
		const VkCopyBufferInfo2 *in = ((const sbt_vk_args_vkCmdCopyBuffer2 *)args)->pCopyBufferInfo;
		for (uint32_t i = 0; in && in->pRegions && i < in->regionCount; i++)
			if (!rpvk_in_buffer(r, in->srcBuffer, in->pRegions[i].srcOffset, in->pRegions[i].size) ||
			    !rpvk_in_buffer(r, in->dstBuffer, in->pRegions[i].dstOffset, in->pRegions[i].size))
				return rpvk_region_refuse(r, "copy region", i);
		break;
	}
	case SBT_VK_CMD_vkCmdBindVertexBuffers: {
		const sbt_vk_args_vkCmdBindVertexBuffers *a = args;
		for (uint32_t i = 0; a->pBuffers && a->pOffsets && i < a->bindingCount; i++)
			if (a->pBuffers[i] && !rpvk_in_buffer(r, a->pBuffers[i], a->pOffsets[i], VK_WHOLE_SIZE))
				return rpvk_region_refuse(r, "vertex buffer offset", i);
		break;
	}
	case SBT_VK_CMD_vkCmdBindVertexBuffers2:
	case SBT_VK_CMD_vkCmdBindVertexBuffers2EXT: {
		const sbt_vk_args_vkCmdBindVertexBuffers2 *a = args;
		for (uint32_t i = 0; a->pBuffers && a->pOffsets && i < a->bindingCount; i++)
			if (a->pBuffers[i] && !rpvk_in_buffer(r, a->pBuffers[i], a->pOffsets[i],
			                                      a->pSizes ? a->pSizes[i] : VK_WHOLE_SIZE))
				return rpvk_region_refuse(r, "vertex buffer range", i);
		break;
	}
	case SBT_VK_CMD_vkCmdBindIndexBuffer: {
		const sbt_vk_args_vkCmdBindIndexBuffer *a = args;
		if (!rpvk_in_buffer(r, a->buffer, a->offset, VK_WHOLE_SIZE))
			return rpvk_region_refuse(r, "index buffer offset", 0);
		break;
	}
	case SBT_VK_CMD_vkCmdDispatchIndirect: {
		const sbt_vk_args_vkCmdDispatchIndirect *a = args;
		if (!rpvk_in_buffer(r, a->buffer, a->offset, sizeof(VkDispatchIndirectCommand)))
			return rpvk_region_refuse(r, "indirect dispatch", 0);
		break;
	}
	case SBT_VK_CMD_vkCmdUpdateBuffer: {
		const sbt_vk_args_vkCmdUpdateBuffer *a = args;
		if (!rpvk_in_buffer(r, a->dstBuffer, a->dstOffset, a->dataSize))
			return rpvk_region_refuse(r, "update", 0);
		break;
	}
	case SBT_VK_CMD_vkCmdFillBuffer: {
		const sbt_vk_args_vkCmdFillBuffer *a = args;
		if (!rpvk_in_buffer(r, a->dstBuffer, a->dstOffset, a->size))
			return rpvk_region_refuse(r, "fill", 0);
		break;
	}
	case SBT_VK_CMD_vkCmdResetQueryPool: {
		const sbt_vk_args_vkCmdResetQueryPool *a = args;
		return rpvk_queries_in(r, a->queryPool, a->firstQuery, a->queryCount);
	}
	case SBT_VK_CMD_vkCmdBeginQuery:
	case SBT_VK_CMD_vkCmdBeginQueryIndexedEXT:
	case SBT_VK_CMD_vkCmdEndQuery:
	case SBT_VK_CMD_vkCmdEndQueryIndexedEXT: {
		/* the same leading members: commandBuffer, queryPool, query */
		const sbt_vk_args_vkCmdEndQuery *a = args;
		return rpvk_queries_in(r, a->queryPool, a->query, 1);
	}
	case SBT_VK_CMD_vkCmdWriteTimestamp: {
		const sbt_vk_args_vkCmdWriteTimestamp *a = args;
		return rpvk_queries_in(r, a->queryPool, a->query, 1);
	}
	case SBT_VK_CMD_vkCmdWriteTimestamp2:
	case SBT_VK_CMD_vkCmdWriteTimestamp2KHR: {
		const sbt_vk_args_vkCmdWriteTimestamp2 *a = args;
		return rpvk_queries_in(r, a->queryPool, a->query, 1);
	}
	case SBT_VK_CMD_vkCmdCopyQueryPoolResults: {
		const sbt_vk_args_vkCmdCopyQueryPoolResults *a = args;
		uint64_t span = rpvk_query_span(r, a->queryPool, a->queryCount, a->stride, a->flags);
		if ((st = rpvk_queries_in(r, a->queryPool, a->firstQuery, a->queryCount)) != RP_OK)
			return st;
		if (span == UINT64_MAX || !rpvk_in_buffer(r, a->dstBuffer, a->dstOffset, span))
			return rpvk_region_refuse(r, "query results copy", 0);
		break;
	}
	default:
		return rpvk_region_check(r, cmd, args);
	}
	return RP_OK;
}

static rp_status rpvk_res_refuse(rpvk *r, const char *what)
{
	return rpvk_fail(r, RP_ERR_TRACE, "uses %s with no memory bound (not bound yet, or its "
	                 "memory freed): a valid application never makes this call, and a driver may "
	                 "crash on it", what);
}

/* Whether live device dev was created with queue index of family. */
static int rpvk_queue_created(rpvk *r, VkDevice dev, uint32_t family, uint32_t index)
{
	for (int d = 0; d < r->ndev; d++)
		if (r->dev[d].live == dev)
			return family < RPVK_MAX_FAMILIES && index < r->dev[d].family_queues[family];
	return 1; /* not ours to judge */
}

/* The mip levels of a full chain for extent e (not empty). */
static uint32_t rpvk_state_full_chain(const VkExtent3D *e)
{
	uint32_t m = e->width > e->height ? e->width : e->height, n = 1;
	if (e->depth > m)
		m = e->depth;
	while (m >>= 1)
		n++;
	return n;
}

/* A bind: the resource has no memory yet, and the memory holds it.  A
 * disjoint image's planes are bound one by one (plane: the aspect of
 * VkBindImagePlaneMemoryInfo, else 0): each plane's own requirements are
 * judged, and a plane after the first does not find the image bound. */
static rp_status rpvk_state_bind(rpvk *r, VkObjectType type, uint64_t res, VkDeviceMemory mem, VkDeviceSize off,
                                 VkImageAspectFlagBits plane)
{
	uint64_t st = rpvk_sobj(r, type, res) & 3;
	if ((st == RPVK_RES_BOUND && !plane) || st == RPVK_RES_FREED)
		return rpvk_fail(r, RP_ERR_TRACE, "the %s has memory bound already: a valid application "
		                 "never makes this call, and a driver may crash on it",
		                 type == VK_OBJECT_TYPE_BUFFER ? "buffer" : "image");
	return rpvk_memory_bind_check(r, type, res, mem, off, plane);
}

/* The plane a VkBindImageMemoryInfo binds (VkBindImagePlaneMemoryInfo in
 * its chain), or 0. */
static VkImageAspectFlagBits rpvk_state_bind_plane(const VkBindImageMemoryInfo *b)
{
	for (const VkBaseInStructure *s = b->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO)
			return ((const VkBindImagePlaneMemoryInfo *)s)->planeAspect;
	return (VkImageAspectFlagBits)0;
}

/* A draw (k 0) or dispatch (k 1) with pipeline bound: the bindings of bound
 * sets its shaders use are kept for the submit, and a draw needs the
 * dynamic state its pipeline leaves to the command buffer, and the draw
 * reads (rpvk_shader_dyn_missing), set (and not disturbed since by a
 * pipeline that has it static).  A secondary command buffer inherits no
 * dynamic state but viewport and scissor with
 * VK_NV_inherited_viewport_scissor.  A pipeline linked from a library the
 * replay did not see made is not judged (dyn_known 0). */
static rp_status rpvk_state_draw(rpvk *r, VkCommandBuffer cb, rpvk_cb *c, int k)
{
	const rpvk_sh_pipe *p = rpvk_shader_pipe(r, c->pipeline[k]);
	uint64_t miss;
	uint32_t at;
	char why[400], where[64] = "";
	for (uint32_t u = 0; p && u < p->nuse; u++) {
		uint64_t set = p->use[u].set < RPVK_CB_SETS ? c->bound[k][p->use[u].set] : 0;
		uint32_t i = 0;
		while (i < c->nneed && (c->need[i].set != set || c->need[i].binding != p->use[u].binding))
			i++;
		if (set && i == c->nneed && c->nneed < RPVK_CB_NEED) {
			c->need[i].set = set;
			c->need[i].binding = p->use[u].binding;
			c->nneed++;
		}
	}
	if (k != 0 || !p || !p->dyn_known ||
	    !(miss = rpvk_shader_dyn_missing(p, c->dyn_set, c->dyn_on, c->dyn_inherited, &c->att, &at)))
		return RP_OK;
	if (at != UINT32_MAX)
		snprintf(where, sizeof(where), " for its color attachment %u (of %u)", at, p->colors);
	if (c->undef & RPVK_UNDEF_DYNAMIC)
		snprintf(why, sizeof(why), "draws with a pipeline whose %s is dynamic state, not set%s "
		         "since vkCmdExecuteCommands (record seq %llu) left the primary command buffer's "
		         "state undefined", rpvk_shader_dyn_name(miss), where, (unsigned long long)c->undef_seq);
	else
		snprintf(why, sizeof(why), "draws with a pipeline whose %s is dynamic state, never set%s in "
		         "the command buffer since it began or since a pipeline with it static was bound",
		         rpvk_shader_dyn_name(miss), where);
	return rpvk_state_refuse(r, cb, why);
}

/* vkCmdExecuteCommands: each secondary command buffer the replay allocated
 * is one, and executable (ended, and not reset since). */
static rp_status rpvk_state_execute(rpvk *r, VkCommandBuffer cb, const sbt_vk_args_vkCmdExecuteCommands *a)
{
	char why[160];
	for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++) {
		const rpvk_cb *s = rpvk_cb_get(r, a->pCommandBuffers[i]);
		const char *what;
		if (!s)
			continue;
		if (!s->secondary)
			what = "is a primary command buffer";
		else if (s->state != RPVK_CB_EXECUTABLE)
			what = s->state == RPVK_CB_RECORDING ? "is still recording (no vkEndCommandBuffer)"
			                                     : "has nothing recorded in it (reset, or never begun)";
		else
			continue;
		snprintf(why, sizeof(why), "executes command buffer %u of its list, which %s", i, what);
		return rpvk_state_refuse(r, cb, why);
	}
	return RP_OK;
}

/* Whether cmd is a draw that reads the index buffer. */
static int rpvk_cmd_indexed(enum sbt_vk_cmd cmd)
{
	return cmd == SBT_VK_CMD_vkCmdDrawIndexed || cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirect ||
	       cmd == SBT_VK_CMD_vkCmdDrawMultiIndexedEXT || cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirectCount ||
	       cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirectCountKHR ||
	       cmd == SBT_VK_CMD_vkCmdDrawIndexedIndirectCountAMD;
}

/* A draw (k 0) or dispatch (k 1) in a primary command buffer after
 * vkCmdExecuteCommands: what it reads of the state the execute left
 * undefined was set again since (the pipeline, the descriptor sets when
 * its layout has descriptors, the vertex buffers when it has vertex input
 * bindings, the index buffer for an indexed draw, the push constants when
 * its shaders use them; dynamic state: rpvk_state_draw). */
static rp_status rpvk_state_undefined(rpvk *r, VkCommandBuffer cb, const rpvk_cb *c, enum sbt_vk_cmd cmd, int k)
{
	const rpvk_sh_pipe *p = rpvk_shader_pipe(r, c->pipeline[k]);
	const char *what;
	char why[400];
	int indexed = rpvk_cmd_indexed(cmd);
	if (c->undef & (RPVK_UNDEF_PIPELINE << k))
		what = k ? "the compute pipeline it dispatches with" : "the graphics pipeline it draws with";
	else if ((c->undef & (RPVK_UNDEF_SETS << k)) && rpvk_sobj(r, VK_OBJECT_TYPE_PIPELINE, c->pipeline[k]))
		what = "the descriptor sets its pipeline's layout has";
	else if (k == 0 && (c->undef & RPVK_UNDEF_VERTEX) && p && p->vertex_bindings)
		what = "the vertex buffers its pipeline's vertex input reads";
	else if (k == 0 && (c->undef & RPVK_UNDEF_INDEX) && indexed)
		what = "the index buffer the indexed draw reads";
	else if ((c->undef & RPVK_UNDEF_PUSH) && p && p->push)
		what = "the push constants its pipeline's shaders use";
	else
		return RP_OK;
	snprintf(why, sizeof(why), "uses %s, bound or set before vkCmdExecuteCommands (record seq %llu) "
	         "and not since: executing secondary command buffers leaves the primary command "
	         "buffer's state undefined", what, (unsigned long long)c->undef_seq);
	return rpvk_state_refuse(r, cb, why);
}

/* vkCmdSetColorWriteEnableEXT: no more enables than the device has colour
 * attachments (VUID-vkCmdSetColorWriteEnableEXT-attachmentCount-06656; a
 * driver may keep them in an array or bit mask of that size). */
static rp_status rpvk_state_color_count(rpvk *r, VkCommandBuffer cb,
                                        const sbt_vk_args_vkCmdSetColorWriteEnableEXT *a)
{
	const rpvk_phys *p = NULL;
	char why[200];
	if (rpvk_dtable_for(r, (uint64_t)(uintptr_t)cb) && r->dev[r->cur_dev].phys >= 0 &&
	    (size_t)r->dev[r->cur_dev].phys < r->nphys)
		p = &r->phys[r->dev[r->cur_dev].phys];
	if (!p || !p->max_colors || a->attachmentCount <= p->max_colors)
		return RP_OK;
	snprintf(why, sizeof(why), "sets %u color write enables, more than the %u color attachments "
	         "the device has (maxColorAttachments)", a->attachmentCount, p->max_colors);
	return rpvk_state_refuse(r, cb, why);
}

static rp_status rpvk_state_cmd(rpvk *r, enum sbt_vk_cmd cmd, unsigned flags, const void *args)
{
	VkCommandBuffer cb = *(const VkCommandBuffer *)args;
	rpvk_cb *c = rpvk_cb_get(r, cb);
	int k;
	rp_status st;
	if (rpvk_cmd_resources(cmd, args, rpvk_res_unbound, r))
		return rpvk_res_refuse(r, "a buffer or image");
	if ((st = rpvk_shader_before(r, cmd, args)) != RP_OK)
		return st;
	if ((st = rpvk_state_regions(r, cmd, args)) != RP_OK)
		return st;
	if (!c)
		return RP_OK;
	rpvk_cmd_resources(cmd, args, rpvk_res_note, c);
	if (c->state != RPVK_CB_RECORDING)
		return rpvk_state_refuse(r, cb, c->state == RPVK_CB_INITIAL ?
		                         "is not recording (no vkBeginCommandBuffer since it was reset)" :
		                         "is not recording (vkEndCommandBuffer ended it)");
	if ((flags & RPVK_F_INSIDE) && c->pass == RPVK_PASS_NONE)
		return rpvk_state_refuse(r, cb, "has no render pass begun, and the call belongs inside one");
	if ((flags & RPVK_F_OUTSIDE) && c->pass != RPVK_PASS_NONE)
		return rpvk_state_refuse(r, cb, "is inside a render pass, and the call belongs outside one");
	if (cmd == SBT_VK_CMD_vkCmdExecuteCommands && (st = rpvk_state_execute(r, cb, args)) != RP_OK)
		return st;
	if (cmd == SBT_VK_CMD_vkCmdSetColorWriteEnableEXT && (st = rpvk_state_color_count(r, cb, args)) != RP_OK)
		return st;
	k = (flags & RPVK_F_DRAW) ? 0 : (flags & RPVK_F_DISPATCH) ? 1 : -1;
	if (k >= 0 && !c->pipeline[k])
		return rpvk_state_refuse(r, cb, k ? "has no compute pipeline bound for the dispatch"
		                                  : "has no graphics pipeline bound for the draw");
	if (k >= 0 && !c->sets_bound[k] && rpvk_sobj(r, VK_OBJECT_TYPE_PIPELINE, c->pipeline[k]))
		return rpvk_state_refuse(r, cb, "has no descriptor set bound, and its pipeline's layout "
		                                "has descriptors");
	if (k == 0 && !c->index_bound && rpvk_cmd_indexed(cmd))
		return rpvk_state_refuse(r, cb, "has no index buffer bound for the indexed draw");
	if (k >= 0 && c->undef && (st = rpvk_state_undefined(r, cb, c, cmd, k)) != RP_OK)
		return st;
	if (k >= 0)
		return rpvk_state_draw(r, cb, c, k);
	return RP_OK;
}

static rp_status rpvk_state_submit(rpvk *r, VkCommandBuffer cb, int secondary);

/* The secondary command buffers primary c executes (noted at its
 * vkCmdExecuteCommands), judged as a submit of their own: what they use is
 * used by the submit.  One level: a secondary's own list is not followed. */
static rp_status rpvk_state_submit_secondaries(rpvk *r, VkCommandBuffer cb, const rpvk_cb *c)
{
	char why[200];
	rp_status st;
	for (uint32_t i = 0; i < c->nres; i++) {
		VkCommandBuffer s = (VkCommandBuffer)(uintptr_t)c->res[i].live;
		if (c->res[i].type != VK_OBJECT_TYPE_COMMAND_BUFFER)
			continue;
		if (!rpvk_cb_get(r, s)) {
			snprintf(why, sizeof(why), "is submitted, and the secondary command buffer 0x%llx it "
			         "executes was freed since it was recorded",
			         (unsigned long long)(uintptr_t)s);
			return rpvk_state_refuse(r, cb, why);
		}
		if ((st = rpvk_state_submit(r, s, 1)) != RP_OK)
			return st;
	}
	return RP_OK;
}

/* A submit of cb (secondary: executed by the command buffer submitted). */
static rp_status rpvk_state_submit(rpvk *r, VkCommandBuffer cb, int secondary)
{
	/* what the message says of cb */
	const char *is = secondary ? "is executed by the command buffer submitted" : "is submitted";
	rpvk_cb *c = rpvk_cb_get(r, cb);
	char why[160], text[400];
	rp_status st;
	if (c && c->state == RPVK_CB_EXECUTABLE && !secondary &&
	    (st = rpvk_state_submit_secondaries(r, cb, c)) != RP_OK)
		return st;
	if (c && c->state == RPVK_CB_EXECUTABLE && c->stale) {
		snprintf(text, sizeof(text), "%s, and a buffer, image, descriptor set, pipeline or "
		         "framebuffer it uses was destroyed since it was recorded", is);
		return rpvk_state_refuse(r, cb, text);
	}
	if (c && c->state == RPVK_CB_EXECUTABLE && c->upd_seq) {
		if (c->upd_binding == UINT32_MAX)
			snprintf(text, sizeof(text), "%s, and a descriptor set it binds was updated through a "
			         "template at record seq %llu, after the bind, and its layout has no binding "
			         "with UPDATE_AFTER_BIND or UPDATE_UNUSED_WHILE_PENDING: that update made the "
			         "command buffer invalid", is, (unsigned long long)c->upd_seq);
		else
			snprintf(text, sizeof(text), "%s, and binding %u of a descriptor set it binds was "
			         "updated at record seq %llu, after the bind, without UPDATE_AFTER_BIND or "
			         "UPDATE_UNUSED_WHILE_PENDING in its layout: that update made the command "
			         "buffer invalid", is, c->upd_binding, (unsigned long long)c->upd_seq);
		return rpvk_state_refuse(r, cb, text);
	}
	if (c && c->state == RPVK_CB_EXECUTABLE)
		for (uint32_t i = 0; i < c->nres; i++) {
			if (c->res[i].type == VK_OBJECT_TYPE_DESCRIPTOR_SET) {
				if (!rpvk_dset_bad(r, c->res[i].live, why, sizeof(why)))
					continue;
				snprintf(text, sizeof(text), "%s, and a descriptor set it binds is not valid (%s)",
				         is, why);
				return rpvk_state_refuse(r, cb, text);
			}
			if (rpvk_state_res_freed(r, (VkObjectType)c->res[i].type, c->res[i].live)) {
				snprintf(text, sizeof(text), "%s, and a buffer or image it uses has had its memory "
				         "freed since it was recorded", is);
				return rpvk_state_refuse(r, cb, text);
			}
		}
	for (uint32_t i = 0; c && c->state == RPVK_CB_EXECUTABLE && i < c->nneed; i++)
		if (rpvk_dset_unwritten(r, c->need[i].set, c->need[i].binding, why, sizeof(why))) {
			snprintf(text, sizeof(text), "%s, and a descriptor set it binds is not valid (%s)", is,
			         why);
			return rpvk_state_refuse(r, cb, text);
		}
	if (!c || c->state == RPVK_CB_EXECUTABLE)
		return RP_OK;
	if (secondary)
		return rpvk_state_refuse(r, cb, c->state == RPVK_CB_RECORDING ?
		                         "is executed by the command buffer submitted, and was begun "
		                         "again since (it is recording)" :
		                         "is executed by the command buffer submitted, and was reset "
		                         "since (nothing recorded in it)");
	return rpvk_state_refuse(r, cb, c->state == RPVK_CB_RECORDING ?
	                         "is submitted while still recording (no vkEndCommandBuffer)" :
	                         "is submitted with nothing recorded in it (reset, or never begun)");
}

rp_status rpvk_state_before(rpvk *r, enum sbt_vk_cmd cmd, unsigned flags, const void *args)
{
	rp_status st = RP_OK;
	if (flags & RPVK_F_CMD)
		return rpvk_state_cmd(r, cmd, flags, args);
	if ((st = rpvk_shader_before(r, cmd, args)) != RP_OK)
		return st;
	switch (cmd) {
	case SBT_VK_CMD_vkCreateQueryPool: {
		const sbt_vk_args_vkCreateQueryPool *a = args;
		if (a->pCreateInfo && !a->pCreateInfo->queryCount)
			return rpvk_fail(r, RP_ERR_TRACE, "a query pool of 0 queries: a valid application never "
			                 "makes this call, and a driver may crash on it");
		break;
	}
	case SBT_VK_CMD_vkResetQueryPool:
	case SBT_VK_CMD_vkResetQueryPoolEXT: {
		const sbt_vk_args_vkResetQueryPool *a = args;
		return rpvk_queries_in(r, a->queryPool, a->firstQuery, a->queryCount);
	}
	case SBT_VK_CMD_vkGetQueryPoolResults: {
		const sbt_vk_args_vkGetQueryPoolResults *a = args;
		uint64_t span = rpvk_query_span(r, a->queryPool, a->queryCount, a->stride, a->flags);
		if ((st = rpvk_queries_in(r, a->queryPool, a->firstQuery, a->queryCount)) != RP_OK)
			return st;
		if (span > a->dataSize)
			return rpvk_fail(r, RP_ERR_TRACE, "%u query results with stride %llu take more than "
			                 "dataSize %zu: a valid application never makes this call, and a driver "
			                 "may crash on it", a->queryCount, (unsigned long long)a->stride,
			                 a->dataSize);
		break;
	}
	/* Objects work may use: destroyed only once that work is done, as a
	 * careful application would have waited (a trace whose destroy was
	 * moved ahead of its wait would otherwise pull a resource from under
	 * the device).  Only when something was submitted since the device
	 * was last seen idle. */
	case SBT_VK_CMD_vkDestroyBuffer:
	case SBT_VK_CMD_vkDestroyImage:
	case SBT_VK_CMD_vkDestroyBufferView:
	case SBT_VK_CMD_vkDestroyImageView:
	case SBT_VK_CMD_vkDestroyPipeline:
	case SBT_VK_CMD_vkDestroyPipelineLayout:
	case SBT_VK_CMD_vkDestroyDescriptorPool:
	case SBT_VK_CMD_vkResetDescriptorPool:
	case SBT_VK_CMD_vkFreeDescriptorSets:
	case SBT_VK_CMD_vkDestroyCommandPool:
	case SBT_VK_CMD_vkFreeCommandBuffers:
	case SBT_VK_CMD_vkDestroyFramebuffer:
	case SBT_VK_CMD_vkDestroyRenderPass:
	case SBT_VK_CMD_vkDestroySampler:
	case SBT_VK_CMD_vkDestroyQueryPool:
	case SBT_VK_CMD_vkDestroyEvent:
	case SBT_VK_CMD_vkDestroyFence:
	case SBT_VK_CMD_vkDestroySemaphore:
		if (r->cur_dev >= 0 && r->cur_dev < r->ndev && r->dev[r->cur_dev].pending &&
		    rpvk_device_idle(r, r->cur_dev, VK_NULL_HANDLE, r->wait_ns) == VK_TIMEOUT)
			return rpvk_fail(r, RP_ERR_TRACE, "the device did not finish within %g s the work "
			                 "that may use the object being destroyed (tsreplay --wait-timeout "
			                 "SECONDS waits longer)", (double)r->wait_ns / 1e9);
		break;
	case SBT_VK_CMD_vkResetCommandBuffer:
		return rpvk_state_unpend(r, ((const sbt_vk_args_vkResetCommandBuffer *)args)->commandBuffer, 0);
	case SBT_VK_CMD_vkBeginCommandBuffer:
		return rpvk_state_unpend(r, ((const sbt_vk_args_vkBeginCommandBuffer *)args)->commandBuffer, 0);
	case SBT_VK_CMD_vkResetCommandPool:
		return rpvk_state_unpend(r, NULL, (uint64_t)(uintptr_t)
		                         ((const sbt_vk_args_vkResetCommandPool *)args)->commandPool);
	case SBT_VK_CMD_vkFlushMappedMemoryRanges: {
		const sbt_vk_args_vkFlushMappedMemoryRanges *a = args;
		return rpvk_memory_ranges_check(r, a->memoryRangeCount, a->pMemoryRanges);
	}
	case SBT_VK_CMD_vkInvalidateMappedMemoryRanges: {
		const sbt_vk_args_vkInvalidateMappedMemoryRanges *a = args;
		return rpvk_memory_ranges_check(r, a->memoryRangeCount, a->pMemoryRanges);
	}
	case SBT_VK_CMD_vkBindBufferMemory: {
		const sbt_vk_args_vkBindBufferMemory *a = args;
		return rpvk_state_bind(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer, a->memory,
		                       a->memoryOffset, (VkImageAspectFlagBits)0);
	}
	case SBT_VK_CMD_vkBindImageMemory: {
		const sbt_vk_args_vkBindImageMemory *a = args;
		return rpvk_state_bind(r, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image, a->memory,
		                       a->memoryOffset, (VkImageAspectFlagBits)0);
	}
	case SBT_VK_CMD_vkBindBufferMemory2:
	case SBT_VK_CMD_vkBindBufferMemory2KHR: {
		const sbt_vk_args_vkBindBufferMemory2 *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pBindInfos && i < a->bindInfoCount; i++)
			st = rpvk_state_bind(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->pBindInfos[i].buffer,
			                     a->pBindInfos[i].memory, a->pBindInfos[i].memoryOffset,
			                     (VkImageAspectFlagBits)0);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory2:
	case SBT_VK_CMD_vkBindImageMemory2KHR: {
		const sbt_vk_args_vkBindImageMemory2 *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pBindInfos && i < a->bindInfoCount; i++)
			st = rpvk_state_bind(r, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->pBindInfos[i].image,
			                     a->pBindInfos[i].memory, a->pBindInfos[i].memoryOffset,
			                     rpvk_state_bind_plane(&a->pBindInfos[i]));
		break;
	}
	case SBT_VK_CMD_vkCreateShaderModule: {
		const sbt_vk_args_vkCreateShaderModule *a = args;
		return rpvk_spirv_check(r, a->pCreateInfo);
	}
	case SBT_VK_CMD_vkGetDeviceQueue: {
		const sbt_vk_args_vkGetDeviceQueue *a = args;
		if (!rpvk_queue_created(r, a->device, a->queueFamilyIndex, a->queueIndex))
			return rpvk_fail(r, RP_ERR_TRACE, "queue %u of family %u: the device was not created "
			                 "with it", a->queueIndex, a->queueFamilyIndex);
		break;
	}
	case SBT_VK_CMD_vkGetDeviceQueue2: {
		const sbt_vk_args_vkGetDeviceQueue2 *a = args;
		if (a->pQueueInfo && !rpvk_queue_created(r, a->device, a->pQueueInfo->queueFamilyIndex,
		                                         a->pQueueInfo->queueIndex))
			return rpvk_fail(r, RP_ERR_TRACE, "queue %u of family %u: the device was not created "
			                 "with it", a->pQueueInfo->queueIndex, a->pQueueInfo->queueFamilyIndex);
		break;
	}
	case SBT_VK_CMD_vkCreateImageView: {
		const sbt_vk_args_vkCreateImageView *a = args;
		if (a->pCreateInfo && rpvk_res_unbound(r, VK_OBJECT_TYPE_IMAGE,
		                                       (uint64_t)(uintptr_t)a->pCreateInfo->image))
			return rpvk_res_refuse(r, "an image");
		if (a->pCreateInfo && !rpvk_region_view_in(r, a->pCreateInfo))
			return rpvk_fail(r, RP_ERR_TRACE, "the view's subresource range (mip levels %u+%u, "
			                 "layers %u+%u) lies outside its image: a valid application never "
			                 "makes this call, and a driver may crash on it",
			                 a->pCreateInfo->subresourceRange.baseMipLevel,
			                 a->pCreateInfo->subresourceRange.levelCount,
			                 a->pCreateInfo->subresourceRange.baseArrayLayer,
			                 a->pCreateInfo->subresourceRange.layerCount);
		break;
	}
	case SBT_VK_CMD_vkCreateBufferView: {
		const sbt_vk_args_vkCreateBufferView *a = args;
		if (a->pCreateInfo && rpvk_res_unbound(r, VK_OBJECT_TYPE_BUFFER,
		                                       (uint64_t)(uintptr_t)a->pCreateInfo->buffer))
			return rpvk_res_refuse(r, "a buffer");
		break;
	}
	case SBT_VK_CMD_vkCreateBuffer: {
		const sbt_vk_args_vkCreateBuffer *a = args;
		if (a->pCreateInfo && !a->pCreateInfo->size)
			return rpvk_fail(r, RP_ERR_TRACE, "a buffer of 0 bytes: a valid application never "
			                 "makes this call, and a driver may crash on it");
		break;
	}
	case SBT_VK_CMD_vkCreateImage: {
		const VkImageCreateInfo *ci = ((const sbt_vk_args_vkCreateImage *)args)->pCreateInfo;
		if (ci && (!ci->extent.width || !ci->extent.height || !ci->extent.depth || !ci->mipLevels ||
		           !ci->arrayLayers))
			return rpvk_fail(r, RP_ERR_TRACE, "an empty image (%ux%ux%u, %u mip levels, %u layers): a "
			                 "valid application never makes this call, and a driver may crash on it",
			                 ci->extent.width, ci->extent.height, ci->extent.depth, ci->mipLevels,
			                 ci->arrayLayers);
		/* VUID-VkImageCreateInfo-mipLevels-00958: at most the full chain,
		 * floor(log2(largest dimension)) + 1 (lavapipe died of SIGSEGV at
		 * the memory allocation of a 64x64 image of 256 levels) */
		if (ci && ci->mipLevels > rpvk_state_full_chain(&ci->extent))
			return rpvk_fail(r, RP_ERR_TRACE, "an image of %u mip levels, and its extent "
			                 "%ux%ux%u has %u: a valid application never makes this call, and a "
			                 "driver may crash on it", ci->mipLevels, ci->extent.width,
			                 ci->extent.height, ci->extent.depth, rpvk_state_full_chain(&ci->extent));
		break;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR:
		return rpvk_state_set_settle(r, ((const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *)args)->descriptorSet);
	case SBT_VK_CMD_vkUpdateDescriptorSets: {
		const sbt_vk_args_vkUpdateDescriptorSets *a = args;
		for (uint32_t i = 0; a->pDescriptorCopies && i < a->descriptorCopyCount; i++)
			if (!a->pDescriptorCopies[i].srcSet || !a->pDescriptorCopies[i].dstSet)
				return rpvk_fail(r, RP_ERR_TRACE, "descriptor copy %u names no set: a valid "
				                 "application never makes this call, and a driver may crash on it", i);
			else if ((st = rpvk_state_set_settle(r, a->pDescriptorCopies[i].dstSet)) != RP_OK)
				return st;
		for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++) {
			const VkWriteDescriptorSet *w = &a->pDescriptorWrites[i];
			if (!w->dstSet)
				return rpvk_fail(r, RP_ERR_TRACE, "descriptor write %u names no set: a valid "
				                 "application never makes this call, and a driver may crash on it", i);
			if ((st = rpvk_dset_write_check(r, i, w)) != RP_OK ||
			    (st = rpvk_state_set_settle(r, w->dstSet)) != RP_OK)
				return st;
			for (uint32_t j = 0; w->pBufferInfo && j < w->descriptorCount; j++)
				if (rpvk_res_unbound(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)w->pBufferInfo[j].buffer))
					return rpvk_res_refuse(r, "a buffer");
		}
		break;
	}
	case SBT_VK_CMD_vkEndCommandBuffer: {
		const sbt_vk_args_vkEndCommandBuffer *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		if (c && c->state != RPVK_CB_RECORDING)
			return rpvk_state_refuse(r, a->commandBuffer, "is ended while not recording");
		if (c && (c->pass == RPVK_PASS_RENDER_PASS || c->pass == RPVK_PASS_RENDERING))
			return rpvk_state_refuse(r, a->commandBuffer, "is ended inside a render pass");
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pSubmits && i < a->submitCount; i++)
			for (uint32_t j = 0; st == RP_OK && a->pSubmits[i].pCommandBuffers &&
			                     j < a->pSubmits[i].commandBufferCount; j++)
				st = rpvk_state_submit(r, a->pSubmits[i].pCommandBuffers[j], 0);
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pSubmits && i < a->submitCount; i++)
			for (uint32_t j = 0; st == RP_OK && a->pSubmits[i].pCommandBufferInfos &&
			                     j < a->pSubmits[i].commandBufferInfoCount; j++)
				st = rpvk_state_submit(r, a->pSubmits[i].pCommandBufferInfos[j].commandBuffer, 0);
		break;
	}
	default:
		break;
	}
	return st;
}

static void rpvk_state_submitted(rpvk *r, VkCommandBuffer cb, VkFence fence)
{
	rpvk_cb *c = rpvk_cb_get(r, cb);
	if (!c)
		return;
	c->pending = 1;
	c->dev = r->cur_dev;
	c->fence = (uint64_t)(uintptr_t)fence;
}

static void rpvk_state_pass(rpvk *r, VkCommandBuffer cb, uint8_t pass)
{
	rpvk_cb *c = rpvk_cb_get(r, cb);
	if (c)
		c->pass = pass;
}

static void rpvk_state_sets(rpvk *r, VkCommandBuffer cb, VkPipelineBindPoint bp)
{
	rpvk_cb *c = rpvk_cb_get(r, cb);
	int k = rpvk_bind_point(bp);
	if (c && k >= 0) {
		c->sets_bound[k]++;
		c->undef &= ~(RPVK_UNDEF_SETS << k);
	}
}

/* State a vkCmd* sets again after vkCmdExecuteCommands left it undefined. */
static void rpvk_state_defined(rpvk *r, VkCommandBuffer cb, uint32_t what)
{
	rpvk_cb *c = rpvk_cb_get(r, cb);
	if (c)
		c->undef &= ~what;
}

/* Binding binding of set was updated (written or copied into) at the
 * current record: every command buffer recording or executable that binds
 * the set becomes invalid, unless the binding's layout flags let it be
 * updated after the bind (rpvk_dset_update_invalidates). */
static void rpvk_state_set_updated(rpvk *r, VkDescriptorSet set, uint32_t binding, int all)
{
	uint32_t b = binding;
	if (!set || !rpvk_dset_update_invalidates(r, (uint64_t)(uintptr_t)set, binding, all, &b))
		return;
	for (size_t i = 0; i < r->cbs.cap; i++) {
		rpvk_map_slot *s = &r->cbs.slots[i];
		rpvk_cb *c;
		if (!s->type || s->type == RPVK_MAP_TOMB)
			continue;
		c = (rpvk_cb *)(uintptr_t)s->val;
		if (c->upd_seq || (c->state != RPVK_CB_RECORDING && c->state != RPVK_CB_EXECUTABLE))
			continue;
		for (uint32_t k = 0; k < c->nres; k++)
			if (c->res[k].type == VK_OBJECT_TYPE_DESCRIPTOR_SET &&
			    c->res[k].live == (uint64_t)(uintptr_t)set) {
				c->upd_seq = r->seq;
				c->upd_binding = b;
				break;
			}
	}
}

static void rpvk_state_pipelines(rpvk *r, uint32_t n, const VkPipeline *out, const VkPipelineLayout *layouts,
                                 size_t stride)
{
	for (uint32_t i = 0; out && i < n; i++) {
		VkPipelineLayout l = *(const VkPipelineLayout *)(const void *)((const char *)layouts + i * stride);
		uint64_t sets = rpvk_sobj(r, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)(uintptr_t)l);
		if (out[i] && sets)
			rpvk_map_put(&r->sobjs, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)out[i], sets, 0);
	}
}

/* The attachments of framebuffer fb are used by command buffer c: a
 * destroy of one of them makes it stale. */
static void rpvk_state_fb_note(rpvk *r, rpvk_cb *c, const VkRenderPassBeginInfo *bi)
{
	uint64_t at[32];
	int n = rpvk_shader_pass_attachments(r, bi, at, 32);
	rpvk_res_note(c, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)(uintptr_t)bi->framebuffer);
	for (int i = 0; i + 1 < n; i += 2) {
		rpvk_res_note(c, VK_OBJECT_TYPE_IMAGE_VIEW, at[i]);
		rpvk_res_note(c, VK_OBJECT_TYPE_IMAGE, at[i + 1]);
	}
}

/* The attachments first to first + count - 1 (those from 32 on are not
 * judged). */
static uint32_t rpvk_state_att_range(uint32_t first, uint32_t count)
{
	uint32_t m = 0;
	for (uint32_t i = first; i < 32 && i - first < count; i++)
		m |= (uint32_t)1 << i;
	return m;
}

/* A colour state's setter cmd: the attachments it sets join those set
 * since the state was last unset (vkCmdSetColorWriteEnableEXT's replace
 * them), and the blend enables their values. */
static void rpvk_state_att(rpvk_cb *c, enum sbt_vk_cmd cmd, const void *args, uint64_t bit)
{
	uint32_t m, k, first = 0, count = 0;
	switch (cmd) {
	case SBT_VK_CMD_vkCmdSetColorBlendEnableEXT: {
		const sbt_vk_args_vkCmdSetColorBlendEnableEXT *a = args;
		k = RPVK_ATT_BLEND_ENABLE;
		first = a->firstAttachment;
		count = a->pColorBlendEnables ? a->attachmentCount : 0;
		for (uint32_t i = 0; i < count && first + i < 32; i++)
			c->att.blend_on = a->pColorBlendEnables[i]
			                  ? c->att.blend_on | (uint32_t)1 << (first + i)
			                  : c->att.blend_on & ~((uint32_t)1 << (first + i));
		break;
	}
	case SBT_VK_CMD_vkCmdSetColorBlendEquationEXT: {
		const sbt_vk_args_vkCmdSetColorBlendEquationEXT *a = args;
		k = RPVK_ATT_BLEND_EQUATION;
		first = a->firstAttachment;
		count = a->pColorBlendEquations ? a->attachmentCount : 0;
		break;
	}
	case SBT_VK_CMD_vkCmdSetColorWriteMaskEXT: {
		const sbt_vk_args_vkCmdSetColorWriteMaskEXT *a = args;
		k = RPVK_ATT_WRITE_MASK;
		first = a->firstAttachment;
		count = a->pColorWriteMasks ? a->attachmentCount : 0;
		break;
	}
	case SBT_VK_CMD_vkCmdSetColorWriteEnableEXT: {
		const sbt_vk_args_vkCmdSetColorWriteEnableEXT *a = args;
		c->att.set[RPVK_ATT_WRITE_ENABLE] = rpvk_state_att_range(0, a->pColorWriteEnables ? a->attachmentCount : 0);
		return;
	}
	default:
		return;
	}
	m = rpvk_state_att_range(first, count);
	c->att.set[k] = (c->dyn_set & bit) ? c->att.set[k] | m : m;
}

/* A vkCmdSet* (cmd) of dynamic state bit; on: the value it sets, for the
 * enables and the topology (whether it is a line topology). */
static void rpvk_state_dyn(rpvk *r, enum sbt_vk_cmd cmd, const void *args, uint64_t bit, int on)
{
	rpvk_cb *c = rpvk_cb_get(r, *(const VkCommandBuffer *)args);
	if (!c)
		return;
	rpvk_state_att(c, cmd, args, bit);
	c->dyn_set |= bit;
	c->dyn_on = on ? c->dyn_on | bit : c->dyn_on & ~bit;
}

/* The dynamic state a vkCmd* sets (RPVK_DYN_* bit, and its value into
 * *on), or 0. */
static uint64_t rpvk_state_dyn_call(enum sbt_vk_cmd cmd, const void *args, int *on)
{
	*on = 0;
	switch (cmd) {
	case SBT_VK_CMD_vkCmdSetViewport: return RPVK_DYN_VIEWPORT;
	case SBT_VK_CMD_vkCmdSetScissor: return RPVK_DYN_SCISSOR;
	case SBT_VK_CMD_vkCmdSetViewportWithCount:
	case SBT_VK_CMD_vkCmdSetViewportWithCountEXT: return RPVK_DYN_VIEWPORT_COUNT;
	case SBT_VK_CMD_vkCmdSetScissorWithCount:
	case SBT_VK_CMD_vkCmdSetScissorWithCountEXT: return RPVK_DYN_SCISSOR_COUNT;
	case SBT_VK_CMD_vkCmdSetPrimitiveTopology:
	case SBT_VK_CMD_vkCmdSetPrimitiveTopologyEXT: {
		VkPrimitiveTopology t = ((const sbt_vk_args_vkCmdSetPrimitiveTopology *)args)->primitiveTopology;
		*on = t == VK_PRIMITIVE_TOPOLOGY_LINE_LIST || t == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP ||
		      t == VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY ||
		      t == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY;
		return RPVK_DYN_TOPOLOGY;
	}
	case SBT_VK_CMD_vkCmdSetRasterizerDiscardEnable:
	case SBT_VK_CMD_vkCmdSetRasterizerDiscardEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetRasterizerDiscardEnable *)args)->rasterizerDiscardEnable != 0;
		return RPVK_DYN_DISCARD;
	case SBT_VK_CMD_vkCmdSetLineWidth: return RPVK_DYN_LINE_WIDTH;
	case SBT_VK_CMD_vkCmdSetDepthBias: return RPVK_DYN_DEPTH_BIAS;
	case SBT_VK_CMD_vkCmdSetBlendConstants: return RPVK_DYN_BLEND_CONSTANTS;
	case SBT_VK_CMD_vkCmdSetDepthBounds: return RPVK_DYN_DEPTH_BOUNDS;
	case SBT_VK_CMD_vkCmdSetStencilCompareMask: return RPVK_DYN_STENCIL_COMPARE_MASK;
	case SBT_VK_CMD_vkCmdSetStencilWriteMask: return RPVK_DYN_STENCIL_WRITE_MASK;
	case SBT_VK_CMD_vkCmdSetStencilReference: return RPVK_DYN_STENCIL_REFERENCE;
	case SBT_VK_CMD_vkCmdSetCullMode:
	case SBT_VK_CMD_vkCmdSetCullModeEXT: return RPVK_DYN_CULL_MODE;
	case SBT_VK_CMD_vkCmdSetFrontFace:
	case SBT_VK_CMD_vkCmdSetFrontFaceEXT: return RPVK_DYN_FRONT_FACE;
	case SBT_VK_CMD_vkCmdSetDepthTestEnable:
	case SBT_VK_CMD_vkCmdSetDepthTestEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetDepthTestEnable *)args)->depthTestEnable != 0;
		return RPVK_DYN_DEPTH_TEST_ENABLE;
	case SBT_VK_CMD_vkCmdSetDepthWriteEnable:
	case SBT_VK_CMD_vkCmdSetDepthWriteEnableEXT: return RPVK_DYN_DEPTH_WRITE_ENABLE;
	case SBT_VK_CMD_vkCmdSetDepthCompareOp:
	case SBT_VK_CMD_vkCmdSetDepthCompareOpEXT: return RPVK_DYN_DEPTH_COMPARE_OP;
	case SBT_VK_CMD_vkCmdSetDepthBoundsTestEnable:
	case SBT_VK_CMD_vkCmdSetDepthBoundsTestEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetDepthBoundsTestEnable *)args)->depthBoundsTestEnable != 0;
		return RPVK_DYN_DEPTH_BOUNDS_TEST_ENABLE;
	case SBT_VK_CMD_vkCmdSetStencilTestEnable:
	case SBT_VK_CMD_vkCmdSetStencilTestEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetStencilTestEnable *)args)->stencilTestEnable != 0;
		return RPVK_DYN_STENCIL_TEST_ENABLE;
	case SBT_VK_CMD_vkCmdSetStencilOp:
	case SBT_VK_CMD_vkCmdSetStencilOpEXT: return RPVK_DYN_STENCIL_OP;
	case SBT_VK_CMD_vkCmdSetDepthBiasEnable:
	case SBT_VK_CMD_vkCmdSetDepthBiasEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetDepthBiasEnable *)args)->depthBiasEnable != 0;
		return RPVK_DYN_DEPTH_BIAS_ENABLE;
	case SBT_VK_CMD_vkCmdSetPrimitiveRestartEnable:
	case SBT_VK_CMD_vkCmdSetPrimitiveRestartEnableEXT: return RPVK_DYN_PRIMITIVE_RESTART_ENABLE;
	case SBT_VK_CMD_vkCmdBindVertexBuffers2:
	case SBT_VK_CMD_vkCmdBindVertexBuffers2EXT:
		/* sets the strides only when it gives them */
		return ((const sbt_vk_args_vkCmdBindVertexBuffers2 *)args)->pStrides ? RPVK_DYN_VERTEX_STRIDE : 0;
	case SBT_VK_CMD_vkCmdSetTessellationDomainOriginEXT: return RPVK_DYN_TESS_DOMAIN_ORIGIN;
	case SBT_VK_CMD_vkCmdSetDepthClampEnableEXT: return RPVK_DYN_DEPTH_CLAMP_ENABLE;
	case SBT_VK_CMD_vkCmdSetPolygonModeEXT:
		*on = ((const sbt_vk_args_vkCmdSetPolygonModeEXT *)args)->polygonMode == VK_POLYGON_MODE_LINE;
		return RPVK_DYN_POLYGON_MODE;
	case SBT_VK_CMD_vkCmdSetRasterizationSamplesEXT: return RPVK_DYN_RASTERIZATION_SAMPLES;
	case SBT_VK_CMD_vkCmdSetSampleMaskEXT: return RPVK_DYN_SAMPLE_MASK;
	case SBT_VK_CMD_vkCmdSetAlphaToCoverageEnableEXT: return RPVK_DYN_ALPHA_TO_COVERAGE_ENABLE;
	case SBT_VK_CMD_vkCmdSetAlphaToOneEnableEXT: return RPVK_DYN_ALPHA_TO_ONE_ENABLE;
	case SBT_VK_CMD_vkCmdSetLogicOpEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetLogicOpEnableEXT *)args)->logicOpEnable != 0;
		return RPVK_DYN_LOGIC_OP_ENABLE;
	case SBT_VK_CMD_vkCmdSetColorBlendEnableEXT: {
		/* on: blending enabled for an attachment this call sets */
		const sbt_vk_args_vkCmdSetColorBlendEnableEXT *a = args;
		for (uint32_t i = 0; a->pColorBlendEnables && i < a->attachmentCount; i++)
			*on |= a->pColorBlendEnables[i] != 0;
		return RPVK_DYN_COLOR_BLEND_ENABLE;
	}
	case SBT_VK_CMD_vkCmdSetColorBlendEquationEXT: return RPVK_DYN_COLOR_BLEND_EQUATION;
	case SBT_VK_CMD_vkCmdSetColorWriteMaskEXT: return RPVK_DYN_COLOR_WRITE_MASK;
	case SBT_VK_CMD_vkCmdSetDepthClipEnableEXT: return RPVK_DYN_DEPTH_CLIP_ENABLE;
	case SBT_VK_CMD_vkCmdSetProvokingVertexModeEXT: return RPVK_DYN_PROVOKING_VERTEX_MODE;
	case SBT_VK_CMD_vkCmdSetLineRasterizationModeEXT: return RPVK_DYN_LINE_RASTERIZATION_MODE;
	case SBT_VK_CMD_vkCmdSetLineStippleEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetLineStippleEnableEXT *)args)->stippledLineEnable != 0;
		return RPVK_DYN_LINE_STIPPLE_ENABLE;
	case SBT_VK_CMD_vkCmdSetDepthClipNegativeOneToOneEXT: return RPVK_DYN_DEPTH_CLIP_NEGATIVE_ONE_TO_ONE;
	case SBT_VK_CMD_vkCmdSetVertexInputEXT: return RPVK_DYN_VERTEX_INPUT;
	case SBT_VK_CMD_vkCmdSetLineStippleEXT: return RPVK_DYN_LINE_STIPPLE;
	case SBT_VK_CMD_vkCmdSetLogicOpEXT: return RPVK_DYN_LOGIC_OP;
	case SBT_VK_CMD_vkCmdSetColorWriteEnableEXT: return RPVK_DYN_COLOR_WRITE_ENABLE;
	case SBT_VK_CMD_vkCmdSetSampleLocationsEnableEXT:
		*on = ((const sbt_vk_args_vkCmdSetSampleLocationsEnableEXT *)args)->sampleLocationsEnable != 0;
		return RPVK_DYN_SAMPLE_LOCATIONS_ENABLE;
	case SBT_VK_CMD_vkCmdSetSampleLocationsEXT: return RPVK_DYN_SAMPLE_LOCATIONS;
	default: return 0;
	}
}

void rpvk_state_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	int on;
	uint64_t bit;
	rpvk_shader_after(r, cmd, args);
	rpvk_dset_after(r, cmd, args);
	if ((bit = rpvk_state_dyn_call(cmd, args, &on)) != 0)
		rpvk_state_dyn(r, cmd, args, bit, on);
	switch (cmd) {
	case SBT_VK_CMD_vkDestroyImageView:
		rpvk_state_gone(r, VK_OBJECT_TYPE_IMAGE_VIEW,
		                (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyImageView *)args)->imageView);
		break;
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (uint32_t i = 0; a->pSubmits && i < a->submitCount; i++)
			for (uint32_t j = 0; a->pSubmits[i].pCommandBuffers && j < a->pSubmits[i].commandBufferCount; j++)
				rpvk_state_submitted(r, a->pSubmits[i].pCommandBuffers[j], a->fence);
		if (r->cur_dev >= 0 && r->cur_dev < r->ndev)
			r->dev[r->cur_dev].pending = 1;
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (uint32_t i = 0; a->pSubmits && i < a->submitCount; i++)
			for (uint32_t j = 0; a->pSubmits[i].pCommandBufferInfos &&
			                     j < a->pSubmits[i].commandBufferInfoCount; j++)
				rpvk_state_submitted(r, a->pSubmits[i].pCommandBufferInfos[j].commandBuffer, a->fence);
		if (r->cur_dev >= 0 && r->cur_dev < r->ndev)
			r->dev[r->cur_dev].pending = 1;
		break;
	}
	case SBT_VK_CMD_vkQueueBindSparse:
		if (r->cur_dev >= 0 && r->cur_dev < r->ndev)
			r->dev[r->cur_dev].pending = 1;
		break;
	case SBT_VK_CMD_vkWaitForFences: {
		const sbt_vk_args_vkWaitForFences *a = args;
		if (a->ret == VK_SUCCESS && (a->waitAll || a->fenceCount == 1))
			rpvk_state_fences_done(r, a->fenceCount, a->pFences);
		break;
	}
	case SBT_VK_CMD_vkGetFenceStatus: {
		const sbt_vk_args_vkGetFenceStatus *a = args;
		if (a->ret == VK_SUCCESS)
			rpvk_state_fences_done(r, 1, &a->fence);
		break;
	}
	case SBT_VK_CMD_vkDestroyFramebuffer:
		rpvk_state_gone(r, VK_OBJECT_TYPE_FRAMEBUFFER,
		                (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyFramebuffer *)args)->framebuffer);
		break;
	case SBT_VK_CMD_vkAllocateCommandBuffers: {
		const sbt_vk_args_vkAllocateCommandBuffers *a = args;
		if (a->ret != VK_SUCCESS || !a->pAllocateInfo || !a->pCommandBuffers)
			break;
		for (uint32_t i = 0; i < a->pAllocateInfo->commandBufferCount; i++) {
			rpvk_cb *c = calloc(1, sizeof(*c));
			if (!c)
				break;
			rpvk_cb_forget(r, a->pCommandBuffers[i]);
			rpvk_cb_reset(c, RPVK_CB_INITIAL);
			c->pool = (uint64_t)(uintptr_t)a->pAllocateInfo->commandPool;
			c->secondary = a->pAllocateInfo->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY;
			if (rpvk_map_put(&r->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER,
			                 (uint64_t)(uintptr_t)a->pCommandBuffers[i], (uint64_t)(uintptr_t)c, 0) != 0)
				free(c); /* no memory: not judged */
		}
		break;
	}
	case SBT_VK_CMD_vkFreeCommandBuffers: {
		const sbt_vk_args_vkFreeCommandBuffers *a = args;
		for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++)
			rpvk_cb_forget(r, a->pCommandBuffers[i]);
		break;
	}
	case SBT_VK_CMD_vkResetCommandBuffer: {
		const sbt_vk_args_vkResetCommandBuffer *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		if (c)
			rpvk_cb_reset(c, RPVK_CB_INITIAL);
		break;
	}
	case SBT_VK_CMD_vkResetCommandPool:
	case SBT_VK_CMD_vkDestroyCommandPool: {
		/* both take (device, commandPool, ...): every buffer of the pool */
		uint64_t pool = cmd == SBT_VK_CMD_vkResetCommandPool ?
		                (uint64_t)(uintptr_t)((const sbt_vk_args_vkResetCommandPool *)args)->commandPool :
		                (uint64_t)(uintptr_t)((const sbt_vk_args_vkDestroyCommandPool *)args)->commandPool;
		/* freed with the pool: the trace's handles of its command buffers
		 * name nothing now (one pass over the handles) */
		for (size_t i = 0; cmd == SBT_VK_CMD_vkDestroyCommandPool && i < r->handles.cap; i++) {
			rpvk_map_slot *s = &r->handles.slots[i];
			rpvk_cb *c = s->type == VK_OBJECT_TYPE_COMMAND_BUFFER ?
			             rpvk_cb_get(r, (VkCommandBuffer)(uintptr_t)s->val) : NULL;
			if (c && c->pool == pool) {
				rpvk_map_del(&r->owners, VK_OBJECT_TYPE_COMMAND_BUFFER, s->val);
				rpvk_map_del(&r->handles, VK_OBJECT_TYPE_COMMAND_BUFFER, s->key);
			}
		}
		for (size_t i = 0; i < r->cbs.cap; i++) {
			rpvk_map_slot *s = &r->cbs.slots[i];
			rpvk_cb *c;
			if (!s->type || s->type == RPVK_MAP_TOMB)
				continue;
			c = (rpvk_cb *)(uintptr_t)s->val;
			if (c->pool != pool)
				continue;
			if (cmd == SBT_VK_CMD_vkResetCommandPool) {
				rpvk_cb_reset(c, RPVK_CB_INITIAL);
			} else {
				free(c);
				rpvk_map_del(&r->cbs, VK_OBJECT_TYPE_COMMAND_BUFFER, s->key);
			}
		}
		break;
	}
	case SBT_VK_CMD_vkBeginCommandBuffer: {
		const sbt_vk_args_vkBeginCommandBuffer *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		if (!c || a->ret != VK_SUCCESS)
			break;
		rpvk_cb_reset(c, RPVK_CB_RECORDING);
		if (c->secondary && a->pBeginInfo &&
		    (a->pBeginInfo->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT))
			c->pass = RPVK_PASS_CONTINUE;
		if (c->secondary && a->pBeginInfo && a->pBeginInfo->pInheritanceInfo)
			for (const VkBaseInStructure *n = a->pBeginInfo->pInheritanceInfo->pNext; n; n = n->pNext)
				if (n->sType == VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_VIEWPORT_SCISSOR_INFO_NV &&
				    ((const VkCommandBufferInheritanceViewportScissorInfoNV *)(const void *)n)->viewportScissor2D)
					c->dyn_inherited = RPVK_DYN_VIEWPORT | RPVK_DYN_SCISSOR |
					                   RPVK_DYN_VIEWPORT_COUNT | RPVK_DYN_SCISSOR_COUNT;
		break;
	}
	case SBT_VK_CMD_vkEndCommandBuffer: {
		const sbt_vk_args_vkEndCommandBuffer *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		if (c && a->ret == VK_SUCCESS && c->state == RPVK_CB_RECORDING)
			c->state = RPVK_CB_EXECUTABLE; /* what it uses stays, for its submits */
		break;
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass: {
		const sbt_vk_args_vkCmdBeginRenderPass *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		rpvk_state_pass(r, a->commandBuffer, RPVK_PASS_RENDER_PASS);
		if (c && a->pRenderPassBegin)
			rpvk_state_fb_note(r, c, a->pRenderPassBegin);
		break;
	}
	case SBT_VK_CMD_vkCmdBeginRenderPass2:
	case SBT_VK_CMD_vkCmdBeginRenderPass2KHR: {
		const sbt_vk_args_vkCmdBeginRenderPass2 *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		rpvk_state_pass(r, a->commandBuffer, RPVK_PASS_RENDER_PASS);
		if (c && a->pRenderPassBegin)
			rpvk_state_fb_note(r, c, a->pRenderPassBegin);
		break;
	}
	case SBT_VK_CMD_vkCmdBeginRendering:
	case SBT_VK_CMD_vkCmdBeginRenderingKHR:
		rpvk_state_pass(r, ((const sbt_vk_args_vkCmdBeginRendering *)args)->commandBuffer,
		                RPVK_PASS_RENDERING);
		break;
	case SBT_VK_CMD_vkCmdEndRenderPass:
		rpvk_state_pass(r, ((const sbt_vk_args_vkCmdEndRenderPass *)args)->commandBuffer,
		                RPVK_PASS_NONE);
		break;
	case SBT_VK_CMD_vkCmdEndRenderPass2:
	case SBT_VK_CMD_vkCmdEndRenderPass2KHR:
		rpvk_state_pass(r, ((const sbt_vk_args_vkCmdEndRenderPass2 *)args)->commandBuffer,
		                RPVK_PASS_NONE);
		break;
	case SBT_VK_CMD_vkCmdEndRendering:
	case SBT_VK_CMD_vkCmdEndRenderingKHR:
		rpvk_state_pass(r, ((const sbt_vk_args_vkCmdEndRendering *)args)->commandBuffer,
		                RPVK_PASS_NONE);
		break;
	case SBT_VK_CMD_vkCmdBindPipeline: {
		const sbt_vk_args_vkCmdBindPipeline *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		int k = rpvk_bind_point(a->pipelineBindPoint);
		if (c && k >= 0) {
			c->pipeline[k] = (uint64_t)(uintptr_t)a->pipeline;
			c->undef &= ~(RPVK_UNDEF_PIPELINE << k);
		}
		if (c && k == 0) {
			/* state the new pipeline has static is disturbed; after a
			 * pipeline not known, none is judged */
			const rpvk_sh_pipe *p = rpvk_shader_pipe(r, (uint64_t)(uintptr_t)a->pipeline);
			c->dyn_set = p && p->dyn_known ? c->dyn_set & p->dyn : RPVK_DYN_ALL;
			if (!p || !p->dyn_known)
				memset(c->att.set, 0xff, sizeof(c->att.set));
		}
		if (c)
			rpvk_res_note(c, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)a->pipeline);
		break;
	}
	case SBT_VK_CMD_vkCmdBindDescriptorSets: {
		const sbt_vk_args_vkCmdBindDescriptorSets *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		int k = rpvk_bind_point(a->pipelineBindPoint);
		rpvk_state_sets(r, a->commandBuffer, a->pipelineBindPoint);
		for (uint32_t i = 0; c && a->pDescriptorSets && i < a->descriptorSetCount; i++) {
			rpvk_res_note(c, VK_OBJECT_TYPE_DESCRIPTOR_SET, (uint64_t)(uintptr_t)a->pDescriptorSets[i]);
			if (k >= 0 && a->firstSet < RPVK_CB_SETS && i < RPVK_CB_SETS - a->firstSet)
				c->bound[k][a->firstSet + i] = (uint64_t)(uintptr_t)a->pDescriptorSets[i];
		}
		break;
	}
	case SBT_VK_CMD_vkCmdPushDescriptorSetKHR: {
		const sbt_vk_args_vkCmdPushDescriptorSetKHR *a = args;
		rpvk_state_sets(r, a->commandBuffer, a->pipelineBindPoint);
		break;
	}
	case SBT_VK_CMD_vkCmdBindVertexBuffers:
	case SBT_VK_CMD_vkCmdBindVertexBuffers2:
	case SBT_VK_CMD_vkCmdBindVertexBuffers2EXT:
		/* the same leading member: commandBuffer */
		rpvk_state_defined(r, *(const VkCommandBuffer *)args, RPVK_UNDEF_VERTEX);
		break;
	case SBT_VK_CMD_vkCmdBindIndexBuffer: {
		VkCommandBuffer cb = ((const sbt_vk_args_vkCmdBindIndexBuffer *)args)->commandBuffer;
		rpvk_cb *c = rpvk_cb_get(r, cb);
		if (c)
			c->index_bound = 1;
		rpvk_state_defined(r, cb, RPVK_UNDEF_INDEX);
		break;
	}
	case SBT_VK_CMD_vkCmdPushConstants:
		rpvk_state_defined(r, ((const sbt_vk_args_vkCmdPushConstants *)args)->commandBuffer,
		                   RPVK_UNDEF_PUSH);
		break;
	case SBT_VK_CMD_vkCmdExecuteCommands: {
		/* the secondaries it executes are judged at its submits; the
		 * primary's state is undefined now, but its render pass */
		const sbt_vk_args_vkCmdExecuteCommands *a = args;
		rpvk_cb *c = rpvk_cb_get(r, a->commandBuffer);
		if (!c || c->secondary)
			break;
		for (uint32_t i = 0; a->pCommandBuffers && i < a->commandBufferCount; i++)
			if (rpvk_cb_get(r, a->pCommandBuffers[i]))
				rpvk_res_note(c, VK_OBJECT_TYPE_COMMAND_BUFFER,
				              (uint64_t)(uintptr_t)a->pCommandBuffers[i]);
		c->undef = RPVK_UNDEF_ALL;
		c->undef_seq = r->seq;
		c->dyn_set = 0;
		c->dyn_on = 0;
		break;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSets: {
		const sbt_vk_args_vkUpdateDescriptorSets *a = args;
		for (uint32_t i = 0; a->pDescriptorWrites && i < a->descriptorWriteCount; i++)
			rpvk_state_set_updated(r, a->pDescriptorWrites[i].dstSet, a->pDescriptorWrites[i].dstBinding, 0);
		for (uint32_t i = 0; a->pDescriptorCopies && i < a->descriptorCopyCount; i++)
			rpvk_state_set_updated(r, a->pDescriptorCopies[i].dstSet, a->pDescriptorCopies[i].dstBinding, 0);
		break;
	}
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplate:
	case SBT_VK_CMD_vkUpdateDescriptorSetWithTemplateKHR:
		/* the template's entries are not followed: any binding */
		rpvk_state_set_updated(r, ((const sbt_vk_args_vkUpdateDescriptorSetWithTemplate *)args)->descriptorSet,
		                       0, 1);
		break;
	case SBT_VK_CMD_vkCmdPushDescriptorSetWithTemplateKHR: {
		/* the template's bind point is not at hand: both count */
		const sbt_vk_args_vkCmdPushDescriptorSetWithTemplateKHR *a = args;
		rpvk_state_sets(r, a->commandBuffer, VK_PIPELINE_BIND_POINT_GRAPHICS);
		rpvk_state_sets(r, a->commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE);
		break;
	}
	case SBT_VK_CMD_vkCmdSetDescriptorBufferOffsetsEXT: {
		const sbt_vk_args_vkCmdSetDescriptorBufferOffsetsEXT *a = args;
		rpvk_state_sets(r, a->commandBuffer, a->pipelineBindPoint);
		break;
	}
	case SBT_VK_CMD_vkCreateBuffer: {
		const sbt_vk_args_vkCreateBuffer *a = args;
		if (a->ret == VK_SUCCESS && a->pBuffer && a->pCreateInfo &&
		    !(a->pCreateInfo->flags & VK_BUFFER_CREATE_SPARSE_BINDING_BIT))
			rpvk_map_put(&r->sobjs, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)*a->pBuffer,
			             RPVK_RES_UNBOUND | (a->pCreateInfo->size < ((uint64_t)1 << 56) ?
			                                 a->pCreateInfo->size << 8 : 0), 0);
		break;
	}
	case SBT_VK_CMD_vkCreateImage: {
		const sbt_vk_args_vkCreateImage *a = args;
		if (a->ret == VK_SUCCESS && a->pImage && a->pCreateInfo &&
		    !(a->pCreateInfo->flags & VK_IMAGE_CREATE_SPARSE_BINDING_BIT))
			rpvk_map_put(&r->sobjs, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)*a->pImage,
			             RPVK_RES_UNBOUND | (uint64_t)(a->pCreateInfo->mipLevels & 0xffffff) << 8 |
			             (uint64_t)a->pCreateInfo->arrayLayers << 32, 0);
		if (a->ret == VK_SUCCESS && a->pImage && a->pCreateInfo)
			rpvk_region_image_created(r, *a->pImage, a->pCreateInfo);
		break;
	}
	case SBT_VK_CMD_vkBindBufferMemory: {
		const sbt_vk_args_vkBindBufferMemory *a = args;
		rpvk_res_bind(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer, a->memory);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory: {
		const sbt_vk_args_vkBindImageMemory *a = args;
		rpvk_res_bind(r, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image, a->memory);
		break;
	}
	case SBT_VK_CMD_vkBindBufferMemory2:
	case SBT_VK_CMD_vkBindBufferMemory2KHR: {
		const sbt_vk_args_vkBindBufferMemory2 *a = args;
		for (uint32_t i = 0; a->pBindInfos && i < a->bindInfoCount; i++)
			rpvk_res_bind(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->pBindInfos[i].buffer,
			              a->pBindInfos[i].memory);
		break;
	}
	case SBT_VK_CMD_vkBindImageMemory2:
	case SBT_VK_CMD_vkBindImageMemory2KHR: {
		const sbt_vk_args_vkBindImageMemory2 *a = args;
		for (uint32_t i = 0; a->pBindInfos && i < a->bindInfoCount; i++)
			rpvk_res_bind(r, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->pBindInfos[i].image,
			              a->pBindInfos[i].memory);
		break;
	}
	case SBT_VK_CMD_vkCreateQueryPool: {
		const sbt_vk_args_vkCreateQueryPool *a = args;
		const VkQueryPoolCreateInfo *ci = a->pCreateInfo;
		uint64_t vals = 0;
		if (a->ret != VK_SUCCESS || !a->pQueryPool || !ci || !ci->queryCount)
			break;
		if (ci->queryType == VK_QUERY_TYPE_OCCLUSION || ci->queryType == VK_QUERY_TYPE_TIMESTAMP)
			vals = 1;
		else if (ci->queryType == VK_QUERY_TYPE_PIPELINE_STATISTICS)
			vals = (uint64_t)__builtin_popcount(ci->pipelineStatistics);
		rpvk_map_put(&r->sobjs, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)(uintptr_t)*a->pQueryPool,
		             (uint64_t)ci->queryCount << 8 | vals << 40, 0);
		break;
	}
	case SBT_VK_CMD_vkDestroyQueryPool: {
		const sbt_vk_args_vkDestroyQueryPool *a = args;
		rpvk_map_del(&r->sobjs, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)(uintptr_t)a->queryPool);
		break;
	}
	case SBT_VK_CMD_vkDestroyBuffer: {
		const sbt_vk_args_vkDestroyBuffer *a = args;
		rpvk_map_del(&r->sobjs, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer);
		rpvk_map_del(&r->resmem, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer);
		rpvk_state_gone(r, VK_OBJECT_TYPE_BUFFER, (uint64_t)(uintptr_t)a->buffer);
		break;
	}
	case SBT_VK_CMD_vkDestroyImage: {
		const sbt_vk_args_vkDestroyImage *a = args;
		rpvk_map_del(&r->sobjs, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image);
		rpvk_map_del(&r->resmem, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image);
		rpvk_region_image_forget(r, a->image);
		rpvk_state_gone(r, VK_OBJECT_TYPE_IMAGE, (uint64_t)(uintptr_t)a->image);
		break;
	}
	case SBT_VK_CMD_vkFreeMemory: {
		/* what is bound to it may not be used any more */
		const sbt_vk_args_vkFreeMemory *a = args;
		for (size_t i = 0; a->memory && i < r->resmem.cap; i++) {
			const rpvk_map_slot *sl = &r->resmem.slots[i];
			if (sl->type && sl->type != RPVK_MAP_TOMB && sl->val == (uint64_t)(uintptr_t)a->memory)
				rpvk_res_state(r, (VkObjectType)sl->type, sl->key, RPVK_RES_FREED);
		}
		break;
	}
	case SBT_VK_CMD_vkCreateDescriptorSetLayout: {
		const sbt_vk_args_vkCreateDescriptorSetLayout *a = args;
		const VkDescriptorSetLayoutCreateInfo *ci = a->pCreateInfo;
		if (a->ret != VK_SUCCESS || !a->pSetLayout || !ci || !ci->bindingCount)
			break;
		rpvk_map_put(&r->sobjs, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
		             (uint64_t)(uintptr_t)*a->pSetLayout, ci->bindingCount, 0);
		break;
	}
	case SBT_VK_CMD_vkCreatePipelineLayout: {
		const sbt_vk_args_vkCreatePipelineLayout *a = args;
		uint64_t sets = 0;
		if (a->ret != VK_SUCCESS || !a->pPipelineLayout || !a->pCreateInfo)
			break;
		for (uint32_t i = 0; a->pCreateInfo->pSetLayouts && i < a->pCreateInfo->setLayoutCount; i++)
			sets += rpvk_sobj(r, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
			                  (uint64_t)(uintptr_t)a->pCreateInfo->pSetLayouts[i]) != 0;
		if (sets)
			rpvk_map_put(&r->sobjs, VK_OBJECT_TYPE_PIPELINE_LAYOUT,
			             (uint64_t)(uintptr_t)*a->pPipelineLayout, sets, 0);
		break;
	}
	case SBT_VK_CMD_vkCreateComputePipelines: {
		const sbt_vk_args_vkCreateComputePipelines *a = args;
		if (a->ret == VK_SUCCESS && a->pCreateInfos)
			rpvk_state_pipelines(r, a->createInfoCount, a->pPipelines, &a->pCreateInfos[0].layout,
			                     sizeof(a->pCreateInfos[0]));
		break;
	}
	case SBT_VK_CMD_vkCreateGraphicsPipelines: {
		const sbt_vk_args_vkCreateGraphicsPipelines *a = args;
		if (a->ret == VK_SUCCESS && a->pCreateInfos)
			rpvk_state_pipelines(r, a->createInfoCount, a->pPipelines, &a->pCreateInfos[0].layout,
			                     sizeof(a->pCreateInfos[0]));
		break;
	}
	case SBT_VK_CMD_vkDestroyPipeline: {
		const sbt_vk_args_vkDestroyPipeline *a = args;
		rpvk_map_del(&r->sobjs, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)a->pipeline);
		rpvk_state_gone(r, VK_OBJECT_TYPE_PIPELINE, (uint64_t)(uintptr_t)a->pipeline);
		break;
	}
	case SBT_VK_CMD_vkDestroyPipelineLayout: {
		const sbt_vk_args_vkDestroyPipelineLayout *a = args;
		rpvk_map_del(&r->sobjs, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)(uintptr_t)a->pipelineLayout);
		break;
	}
	case SBT_VK_CMD_vkDestroyDescriptorSetLayout: {
		const sbt_vk_args_vkDestroyDescriptorSetLayout *a = args;
		rpvk_map_del(&r->sobjs, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT,
		             (uint64_t)(uintptr_t)a->descriptorSetLayout);
		break;
	}
	default:
		break;
	}
}
