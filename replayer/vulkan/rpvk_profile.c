/*
 * rpvk_profile.c - tsreplay --profile on Vulkan: timestamp queries around
 * every command the emulator schedules (dispatches, draws, copies, blits,
 * resolves, fills, updates and clears) in the command buffers the replay
 * records.
 *
 * Each primary command buffer gets a query pool of its own (made at its
 * first vkBeginCommandBuffer); the begin is followed by a
 * vkCmdResetQueryPool of the whole pool, so every execution of the buffer
 * starts from unavailable queries, resubmissions included.  A timed
 * command is recorded between vkCmdWriteTimestamp(TOP_OF_PIPE) and
 * vkCmdWriteTimestamp(BOTTOM_OF_PIPE).  After each vkQueueSubmit(2) the
 * replay waits for the queue to go idle and reads the buffers' queries
 * (ticks masked to the queue's timestampValidBits, times
 * timestampPeriod ns), so commands of different submits never overlap in
 * a profiled replay.  The timeline's origin is the first timestamp read.
 *
 * Not timed: secondary command buffers that continue a render pass (the
 * reset cannot go there), commands past RPVK_PROF_CMDS in one buffer (a
 * note says how many), render pass instances as a whole.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPVK_PROF_CMDS 512u /* timed commands per command buffer */

typedef struct rpvk_prof_cb {
	VkCommandBuffer cb;        /* live; NULL: free slot */
	VkDevice device;           /* live */
	int dev;
	VkQueryPool pool;          /* 2 * RPVK_PROF_CMDS timestamps */
	int timed;                 /* 0: this recording is not timed */
	uint32_t n;                /* timed commands recorded */
	uint64_t seq[RPVK_PROF_CMDS];
} rpvk_prof_cb;

struct rpvk_prof {
	rpvk_prof_cb **cbs;        /* owned */
	size_t n, cap;
	int have_base;
	uint64_t base_ticks;
	double period_ns;          /* of the device that timed the first command */
	uint64_t mask;
	int dev_known;
	char device[256];
	uint64_t untimed;          /* commands past RPVK_PROF_CMDS */
};

static int rpvk_prof_is_timed(enum sbt_vk_cmd cmd)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCmdDispatch: case SBT_VK_CMD_vkCmdDispatchBase:
	case SBT_VK_CMD_vkCmdDispatchBaseKHR: case SBT_VK_CMD_vkCmdDispatchIndirect:
	case SBT_VK_CMD_vkCmdDraw: case SBT_VK_CMD_vkCmdDrawIndexed:
	case SBT_VK_CMD_vkCmdDrawIndirect: case SBT_VK_CMD_vkCmdDrawIndexedIndirect:
	case SBT_VK_CMD_vkCmdDrawIndirectCount: case SBT_VK_CMD_vkCmdDrawIndexedIndirectCount:
	case SBT_VK_CMD_vkCmdDrawMultiEXT: case SBT_VK_CMD_vkCmdDrawMultiIndexedEXT:
	case SBT_VK_CMD_vkCmdCopyBuffer: case SBT_VK_CMD_vkCmdCopyBuffer2:
	case SBT_VK_CMD_vkCmdCopyBuffer2KHR: case SBT_VK_CMD_vkCmdCopyImage:
	case SBT_VK_CMD_vkCmdCopyImage2: case SBT_VK_CMD_vkCmdCopyImage2KHR:
	case SBT_VK_CMD_vkCmdBlitImage: case SBT_VK_CMD_vkCmdBlitImage2:
	case SBT_VK_CMD_vkCmdBlitImage2KHR: case SBT_VK_CMD_vkCmdResolveImage:
	case SBT_VK_CMD_vkCmdResolveImage2: case SBT_VK_CMD_vkCmdResolveImage2KHR:
	case SBT_VK_CMD_vkCmdCopyBufferToImage: case SBT_VK_CMD_vkCmdCopyBufferToImage2:
	case SBT_VK_CMD_vkCmdCopyBufferToImage2KHR: case SBT_VK_CMD_vkCmdCopyImageToBuffer:
	case SBT_VK_CMD_vkCmdCopyImageToBuffer2: case SBT_VK_CMD_vkCmdCopyImageToBuffer2KHR:
	case SBT_VK_CMD_vkCmdFillBuffer: case SBT_VK_CMD_vkCmdUpdateBuffer:
	case SBT_VK_CMD_vkCmdClearColorImage: case SBT_VK_CMD_vkCmdClearDepthStencilImage:
		return 1;
	default:
		return 0;
	}
}

static rpvk_prof_cb *rpvk_prof_find(struct rpvk_prof *p, VkCommandBuffer cb)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->cbs[i]->cb == cb)
			return p->cbs[i];
	return NULL;
}

/* The timestamp period and valid bits of device d; RP_ERR_UNSUPPORTED
 * when its queues cannot write timestamps. */
static rp_status rpvk_prof_device(rpvk *r, struct rpvk_prof *p, int d)
{
	const rpvk_device *dev = &r->dev[d];
	const rpvk_itable *it = &r->inst[dev->inst].t;
	VkPhysicalDevice phys = r->phys[dev->phys].live;
	VkPhysicalDeviceProperties props;
	VkQueueFamilyProperties fam[16];
	uint32_t nfam = 16, bits = 64;

	if (p->dev_known)
		return RP_OK;
	if (!it->GetPhysicalDeviceProperties || !it->GetPhysicalDeviceQueueFamilyProperties)
		return rpvk_missing(r, "vkGetPhysicalDeviceProperties");
	it->GetPhysicalDeviceProperties(phys, &props);
	it->GetPhysicalDeviceQueueFamilyProperties(phys, &nfam, fam);
	for (uint32_t i = 0; i < nfam; i++) {
		if (!(fam[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)))
			continue;
		if (fam[i].timestampValidBits == 0)
			return rpvk_fail(r, RP_ERR_UNSUPPORTED, "--profile: %s cannot write timestamps on "
			                 "queue family %u (timestampValidBits 0)", props.deviceName, i);
		if (fam[i].timestampValidBits < bits)
			bits = fam[i].timestampValidBits;
	}
	if (props.limits.timestampPeriod <= 0.0f)
		return rpvk_fail(r, RP_ERR_UNSUPPORTED, "--profile: %s reports timestampPeriod %g",
		                 props.deviceName, (double)props.limits.timestampPeriod);
	p->period_ns = props.limits.timestampPeriod;
	p->mask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
	snprintf(p->device, sizeof(p->device), "%s", props.deviceName);
	p->dev_known = 1;
	return RP_OK;
}

/* vkBeginCommandBuffer was replayed: time this recording. */
static rp_status rpvk_prof_begin(rpvk *r, struct rpvk_prof *p, const sbt_vk_args_vkBeginCommandBuffer *a)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->commandBuffer);
	rpvk_prof_cb *c = rpvk_prof_find(p, a->commandBuffer);
	VkDevice device;
	rp_status st;

	if (!t)
		return RP_ERR_NOT_FOUND;
	device = r->dev[r->cur_dev].live;
	if (c && c->device != device) { /* a handle reused on another device */
		c->cb = VK_NULL_HANDLE;
		c = NULL;
	}
	if (!c) {
		VkQueryPoolCreateInfo qi = {0};
		if ((st = rpvk_prof_device(r, p, r->cur_dev)) != RP_OK)
			return st;
		for (size_t i = 0; i < p->n && !c; i++)
			if (!p->cbs[i]->cb && p->cbs[i]->device == device)
				c = p->cbs[i];
		if (!c) {
			if (p->n == p->cap) {
				size_t ncap = p->cap ? p->cap * 2 : 16;
				rpvk_prof_cb **nv = realloc(p->cbs, ncap * sizeof(*nv));
				if (!nv)
					return rpvk_nomem(r);
				p->cbs = nv;
				p->cap = ncap;
			}
			c = calloc(1, sizeof(*c));
			if (!c)
				return rpvk_nomem(r);
			qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
			qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
			qi.queryCount = 2 * RPVK_PROF_CMDS;
			if (!t->CreateQueryPool || t->CreateQueryPool(device, &qi, NULL, &c->pool) != VK_SUCCESS) {
				free(c);
				return rpvk_fail(r, RP_ERR_BACKEND, "--profile: vkCreateQueryPool failed");
			}
			c->device = device;
			c->dev = r->cur_dev;
			p->cbs[p->n++] = c;
		}
		c->cb = a->commandBuffer;
	}
	c->n = 0;
	c->timed = !(a->pBeginInfo &&
	             (a->pBeginInfo->flags & VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT));
	if (c->timed) {
		if (!t->CmdResetQueryPool || !t->CmdWriteTimestamp)
			return rpvk_missing(r, "vkCmdWriteTimestamp");
		t->CmdResetQueryPool(a->commandBuffer, c->pool, 0, 2 * RPVK_PROF_CMDS);
	}
	return RP_OK;
}

rp_status rpvk_profile_before(rpvk *r, enum sbt_vk_cmd cmd, void *args)
{
	struct rpvk_prof *p = r->prof;
	VkCommandBuffer cb;
	rpvk_prof_cb *c;
	const rpvk_dtable *t;

	if (cmd == SBT_VK_CMD_vkDestroyDevice) {
		/* its query pools go before it */
		VkDevice device = *(VkDevice *)args;
		for (size_t i = 0; p && i < p->n; i++) {
			rpvk_prof_cb *k = p->cbs[i];
			if (k->device != device || !k->pool)
				continue;
			if (r->dev[k->dev].live == device && r->dev[k->dev].t.DestroyQueryPool)
				r->dev[k->dev].t.DestroyQueryPool(device, k->pool, NULL);
			k->pool = VK_NULL_HANDLE;
			k->cb = VK_NULL_HANDLE;
			k->device = VK_NULL_HANDLE;
		}
		return RP_OK;
	}
	if (!p || !rpvk_prof_is_timed(cmd))
		return RP_OK;
	cb = *(VkCommandBuffer *)args; /* every vkCmd's first argument */
	c = rpvk_prof_find(p, cb);
	if (!c || !c->timed || !c->pool)
		return RP_OK;
	if (c->n == RPVK_PROF_CMDS) {
		p->untimed++;
		return RP_OK;
	}
	t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)cb);
	if (!t)
		return RP_ERR_NOT_FOUND;
	t->CmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, c->pool, 2 * c->n);
	return RP_OK;
}

/* After a submit: wait, then read the queries of its command buffers. */
static rp_status rpvk_prof_read(rpvk *r, struct rpvk_prof *p, VkQueue queue,
                                const VkCommandBuffer *cbs, uint32_t ncbs)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)queue);
	uint64_t cap_queue = 0, ticks[2 * RPVK_PROF_CMDS];
	VkResult res;

	if (!t)
		return RP_ERR_NOT_FOUND;
	for (size_t i = 0; i < r->nmapped; i++)
		if (r->mapped[i].type == VK_OBJECT_TYPE_QUEUE && r->mapped[i].live == (uint64_t)(uintptr_t)queue)
			cap_queue = r->mapped[i].captured;
	res = t->QueueWaitIdle(queue);
	if (res != VK_SUCCESS)
		return rpvk_fail(r, RP_ERR_BACKEND, "--profile: vkQueueWaitIdle: %s", rpvk_result_name(res));
	for (uint32_t i = 0; i < ncbs; i++) {
		rpvk_prof_cb *c = rpvk_prof_find(p, cbs[i]);
		if (!c || !c->timed || !c->n)
			continue;
		res = t->GetQueryPoolResults(c->device, c->pool, 0, 2 * c->n, 2 * c->n * sizeof(uint64_t), ticks,
		                             sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
		if (res != VK_SUCCESS)
			return rpvk_fail(r, RP_ERR_BACKEND, "--profile: vkGetQueryPoolResults: %s",
			                 rpvk_result_name(res));
		for (uint32_t k = 0; k < c->n; k++) {
			uint64_t a = ticks[2 * k] & p->mask, b = ticks[2 * k + 1] & p->mask;
			rp_profile_entry e;
			if (!p->have_base) {
				p->base_ticks = a;
				p->have_base = 1;
			}
			if (b < a)
				b = a;
			e.seq = c->seq[k];
			e.submit_seq = r->seq;
			e.stream = cap_queue;
			e.start_ns = a > p->base_ticks ? (uint64_t)((double)(a - p->base_ticks) * p->period_ns) : 0;
			e.end_ns = b > p->base_ticks ? (uint64_t)((double)(b - p->base_ticks) * p->period_ns) : 0;
			if (rp_profile_add(r->profile, &e) != RP_OK)
				return rpvk_nomem(r);
		}
	}
	return RP_OK;
}

rp_status rpvk_profile_after(rpvk *r, enum sbt_vk_cmd cmd, void *args, unsigned flags)
{
	struct rpvk_prof *p = r->prof;
	rp_status st = RP_OK;

	if (!r->profile)
		return RP_OK;
	if (flags & RP_EXEC_FAST_FORWARD)
		return RP_OK; /* not timed: what it records runs untimed */
	if (!p && !(p = r->prof = calloc(1, sizeof(*p))))
		return rpvk_nomem(r);
	if (cmd == SBT_VK_CMD_vkBeginCommandBuffer)
		return rpvk_prof_begin(r, p, args);
	if (rpvk_prof_is_timed(cmd)) {
		VkCommandBuffer cb = *(VkCommandBuffer *)args;
		rpvk_prof_cb *c = rpvk_prof_find(p, cb);
		const rpvk_dtable *t;
		if (!c || !c->timed || !c->pool || c->n == RPVK_PROF_CMDS)
			return RP_OK;
		t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)cb);
		if (!t)
			return RP_ERR_NOT_FOUND;
		t->CmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, c->pool, 2 * c->n + 1);
		c->seq[c->n++] = r->seq;
		return RP_OK;
	}
	if (cmd == SBT_VK_CMD_vkQueueSubmit) {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (uint32_t i = 0; i < a->submitCount && st == RP_OK; i++)
			st = rpvk_prof_read(r, p, a->queue, a->pSubmits[i].pCommandBuffers,
			                    a->pSubmits[i].commandBufferCount);
	} else if (cmd == SBT_VK_CMD_vkQueueSubmit2 || cmd == SBT_VK_CMD_vkQueueSubmit2KHR) {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (uint32_t i = 0; i < a->submitCount && st == RP_OK; i++)
			for (uint32_t k = 0; k < a->pSubmits[i].commandBufferInfoCount && st == RP_OK; k++)
				st = rpvk_prof_read(r, p, a->queue, &a->pSubmits[i].pCommandBufferInfos[k].commandBuffer, 1);
	}
	return st;
}

rp_status rpvk_profile_finish(void *state, rp_diag *diag)
{
	rpvk *r = state;
	struct rpvk_prof *p = r->prof;
	(void)diag;
	rp_profile_set_device(r->profile, p && p->dev_known ? p->device : "unknown");
	if (p && p->untimed && !r->quiet)
		fprintf(stderr, "tsreplay: note: --profile: %llu commands not timed (more than %u in one "
		        "command buffer)\n", (unsigned long long)p->untimed, RPVK_PROF_CMDS);
	return RP_OK;
}

void rpvk_profile_release(rpvk *r)
{
	struct rpvk_prof *p = r->prof;
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		rpvk_prof_cb *c = p->cbs[i];
		if (c->pool && r->dev[c->dev].live == c->device && r->dev[c->dev].t.DestroyQueryPool)
			r->dev[c->dev].t.DestroyQueryPool(c->device, c->pool, NULL);
		free(c);
	}
	free(p->cbs);
	/* the device facts stay: the next run profiles nothing (one run is
	 * profiled), so only the pools go */
	p->cbs = NULL;
	p->n = p->cap = 0;
}

void rpvk_profile_free(rpvk *r)
{
	rpvk_profile_release(r);
	free(r->prof);
	r->prof = NULL;
}
