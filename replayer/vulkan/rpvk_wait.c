/*
 * rpvk_wait.c - waits that end: a replay never waits forever for the
 * device, whatever the trace says (docs/hostile-traces.md).
 *
 * A wait that succeeded at capture must succeed at replay too (the
 * checkpoints after it look at what the waited work wrote), so it used to
 * be replayed without a timeout; a wait that a damaged or hostile trace
 * moved ahead of its submit then never returned.  Now:
 *
 *   - Fences and binary semaphores the replay created are tracked: a fence
 *     is "to be signalled" from its creation with VK_FENCE_CREATE_SIGNALED_BIT
 *     or a replayed submit (vkQueueSubmit*, vkQueueBindSparse,
 *     vkAcquireNextImage*) that signals it, until vkResetFences; a binary
 *     semaphore from a replayed signal until a replayed submit or present
 *     waits on it.  A wait for a fence, or a submit waiting on a binary
 *     semaphore, that nothing replayed will signal stops the replay at
 *     once, naming the record, the call and the object.  Objects the
 *     replay did not see created (imported, timeline semaphores) are not
 *     judged here.
 *   - Every other wait that succeeded at capture waits at most
 *     r->wait_ns (tsreplay --wait-timeout SECONDS, 60 s by default: a trace
 *     from a fast GPU replayed on lavapipe legitimately waits longer than
 *     it did), and then stops the replay with the same kind of message.
 *     vkQueueWaitIdle and vkDeviceWaitIdle become an empty submit with a
 *     fence of ours, waited for the same bound.
 *   - Teardown waits for each device the same bound; a device still busy
 *     after it (a shader that never finishes) is left as it is, with a
 *     warning, rather than waited for.
 */
#include "replayer/vulkan/rpvk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tracked states (rpvk.syncs values). */
enum {
	RPVK_SYNC_UNSIGNALED = 1, /* nothing replayed will signal it */
	RPVK_SYNC_SIGNALED = 2    /* signalled, or a signal was submitted */
};

#define RPVK_WAIT_DEFAULT_S 60.0

int rpvk_wait_parse(const char *text, uint64_t *ns_out)
{
	char *end = NULL;
	double s;
	if (!text || !*text)
		return -1;
	s = strtod(text, &end);
	if (!end || *end || !(s > 0) || s > 86400.0 * 365)
		return -1;
	*ns_out = (uint64_t)(s * 1e9);
	return 0;
}

void rpvk_wait_init(rpvk *r)
{
	r->wait_ns = (uint64_t)(RPVK_WAIT_DEFAULT_S * 1e9);
}

static double rpvk_wait_seconds(const rpvk *r)
{
	return (double)r->wait_ns / 1e9;
}

static void rpvk_sync_set(rpvk *r, VkObjectType type, uint64_t live, uint32_t state)
{
	if (live && rpvk_map_put(&r->syncs, (uint32_t)type, live, state, 0) != 0)
		rpvk_map_del(&r->syncs, (uint32_t)type, live); /* no memory: untracked */
}

/* Set the state only of what is tracked. */
static void rpvk_sync_update(rpvk *r, VkObjectType type, uint64_t live, uint32_t state)
{
	if (live && rpvk_map_get(&r->syncs, (uint32_t)type, live))
		rpvk_sync_set(r, type, live, state);
}

static int rpvk_sync_unsignaled(rpvk *r, VkObjectType type, uint64_t live)
{
	const rpvk_map_slot *s = live ? rpvk_map_get(&r->syncs, (uint32_t)type, live) : NULL;
	return s && s->val == RPVK_SYNC_UNSIGNALED;
}

/* The captured value of a live handle the current decode mapped, for
 * messages (the trace's names for objects); the live one when unknown. */
static uint64_t rpvk_sync_captured(const rpvk *r, VkObjectType type, uint64_t live)
{
	for (size_t i = 0; i < r->nmapped; i++)
		if (r->mapped[i].type == (uint32_t)type && r->mapped[i].live == live)
			return r->mapped[i].captured;
	return live;
}

static rp_status rpvk_sync_never(rpvk *r, const char *what, VkObjectType type, uint64_t live)
{
	return rpvk_fail(r, RP_ERR_TRACE, "waits for %s 0x%llx, which nothing replayed so far "
	                 "signals (a wait moved ahead of its submit?): it would never return",
	                 what, (unsigned long long)rpvk_sync_captured(r, type, live));
}

static rp_status rpvk_wait_timed_out(rpvk *r, const char *what)
{
	return rpvk_fail(r, RP_ERR_TRACE, "%s did not finish within %g s, although it did at "
	                 "capture (tsreplay --wait-timeout SECONDS waits longer)", what,
	                 rpvk_wait_seconds(r));
}

/* ---- the state a call changes -------------------------------------------------- */

static int rpvk_sema_is_timeline(const VkSemaphoreCreateInfo *ci)
{
	for (const VkBaseInStructure *b = ci ? ci->pNext : NULL; b; b = b->pNext)
		if (b->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO)
			return ((const VkSemaphoreTypeCreateInfo *)(const void *)b)->semaphoreType ==
			       VK_SEMAPHORE_TYPE_TIMELINE;
	return 0;
}

static rp_status rpvk_sync_check_waits(rpvk *r, uint32_t n, const VkSemaphore *semas)
{
	for (uint32_t i = 0; semas && i < n; i++)
		if (rpvk_sync_unsignaled(r, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)(uintptr_t)semas[i]))
			return rpvk_sync_never(r, "semaphore", VK_OBJECT_TYPE_SEMAPHORE,
			                       (uint64_t)(uintptr_t)semas[i]);
	return RP_OK;
}

static void rpvk_sync_semas(rpvk *r, uint32_t n, const VkSemaphore *semas, uint32_t state)
{
	for (uint32_t i = 0; semas && i < n; i++)
		rpvk_sync_update(r, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)(uintptr_t)semas[i], state);
}

rp_status rpvk_sync_before(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	rp_status st = RP_OK;
	switch (cmd) {
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pSubmits && i < a->submitCount; i++)
			st = rpvk_sync_check_waits(r, a->pSubmits[i].waitSemaphoreCount,
			                           a->pSubmits[i].pWaitSemaphores);
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (uint32_t i = 0; st == RP_OK && a->pSubmits && i < a->submitCount; i++) {
			const VkSubmitInfo2 *s = &a->pSubmits[i];
			for (uint32_t j = 0; st == RP_OK && s->pWaitSemaphoreInfos && j < s->waitSemaphoreInfoCount;
			     j++)
				st = rpvk_sync_check_waits(r, 1, &s->pWaitSemaphoreInfos[j].semaphore);
		}
		break;
	}
	default:
		break;
	}
	return st;
}

void rpvk_sync_after(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	switch (cmd) {
	case SBT_VK_CMD_vkCreateFence: {
		const sbt_vk_args_vkCreateFence *a = args;
		if (a->ret == VK_SUCCESS && a->pFence && a->pCreateInfo)
			rpvk_sync_set(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)*a->pFence,
			              a->pCreateInfo->flags & VK_FENCE_CREATE_SIGNALED_BIT ?
			              RPVK_SYNC_SIGNALED : RPVK_SYNC_UNSIGNALED);
		break;
	}
	case SBT_VK_CMD_vkCreateSemaphore: {
		const sbt_vk_args_vkCreateSemaphore *a = args;
		if (a->ret == VK_SUCCESS && a->pSemaphore && !rpvk_sema_is_timeline(a->pCreateInfo))
			rpvk_sync_set(r, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)(uintptr_t)*a->pSemaphore,
			              RPVK_SYNC_UNSIGNALED);
		break;
	}
	case SBT_VK_CMD_vkDestroyFence: {
		const sbt_vk_args_vkDestroyFence *a = args;
		rpvk_map_del(&r->syncs, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence);
		break;
	}
	case SBT_VK_CMD_vkDestroySemaphore: {
		const sbt_vk_args_vkDestroySemaphore *a = args;
		rpvk_map_del(&r->syncs, VK_OBJECT_TYPE_SEMAPHORE, (uint64_t)(uintptr_t)a->semaphore);
		break;
	}
	case SBT_VK_CMD_vkImportFenceFdKHR: {
		const sbt_vk_args_vkImportFenceFdKHR *a = args;
		if (a->pImportFenceFdInfo)
			rpvk_map_del(&r->syncs, VK_OBJECT_TYPE_FENCE,
			             (uint64_t)(uintptr_t)a->pImportFenceFdInfo->fence);
		break;
	}
	case SBT_VK_CMD_vkImportSemaphoreFdKHR: {
		const sbt_vk_args_vkImportSemaphoreFdKHR *a = args;
		if (a->pImportSemaphoreFdInfo)
			rpvk_map_del(&r->syncs, VK_OBJECT_TYPE_SEMAPHORE,
			             (uint64_t)(uintptr_t)a->pImportSemaphoreFdInfo->semaphore);
		break;
	}
	case SBT_VK_CMD_vkResetFences: {
		const sbt_vk_args_vkResetFences *a = args;
		for (uint32_t i = 0; a->ret == VK_SUCCESS && a->pFences && i < a->fenceCount; i++)
			rpvk_sync_update(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->pFences[i],
			                 RPVK_SYNC_UNSIGNALED);
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit: {
		const sbt_vk_args_vkQueueSubmit *a = args;
		if (a->ret != VK_SUCCESS)
			break;
		for (uint32_t i = 0; a->pSubmits && i < a->submitCount; i++) {
			const VkSubmitInfo *s = &a->pSubmits[i];
			rpvk_sync_semas(r, s->waitSemaphoreCount, s->pWaitSemaphores, RPVK_SYNC_UNSIGNALED);
			rpvk_sync_semas(r, s->signalSemaphoreCount, s->pSignalSemaphores, RPVK_SYNC_SIGNALED);
		}
		rpvk_sync_update(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, RPVK_SYNC_SIGNALED);
		break;
	}
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR: {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		if (a->ret != VK_SUCCESS)
			break;
		for (uint32_t i = 0; a->pSubmits && i < a->submitCount; i++) {
			const VkSubmitInfo2 *s = &a->pSubmits[i];
			for (uint32_t j = 0; s->pWaitSemaphoreInfos && j < s->waitSemaphoreInfoCount; j++)
				rpvk_sync_semas(r, 1, &s->pWaitSemaphoreInfos[j].semaphore, RPVK_SYNC_UNSIGNALED);
			for (uint32_t j = 0; s->pSignalSemaphoreInfos && j < s->signalSemaphoreInfoCount; j++)
				rpvk_sync_semas(r, 1, &s->pSignalSemaphoreInfos[j].semaphore, RPVK_SYNC_SIGNALED);
		}
		rpvk_sync_update(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, RPVK_SYNC_SIGNALED);
		break;
	}
	case SBT_VK_CMD_vkQueueBindSparse: {
		const sbt_vk_args_vkQueueBindSparse *a = args;
		if (a->ret != VK_SUCCESS)
			break;
		for (uint32_t i = 0; a->pBindInfo && i < a->bindInfoCount; i++) {
			const VkBindSparseInfo *s = &a->pBindInfo[i];
			rpvk_sync_semas(r, s->waitSemaphoreCount, s->pWaitSemaphores, RPVK_SYNC_UNSIGNALED);
			rpvk_sync_semas(r, s->signalSemaphoreCount, s->pSignalSemaphores, RPVK_SYNC_SIGNALED);
		}
		rpvk_sync_update(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, RPVK_SYNC_SIGNALED);
		break;
	}
	case SBT_VK_CMD_vkAcquireNextImageKHR: {
		const sbt_vk_args_vkAcquireNextImageKHR *a = args;
		rpvk_sync_semas(r, 1, &a->semaphore, RPVK_SYNC_SIGNALED);
		rpvk_sync_update(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence, RPVK_SYNC_SIGNALED);
		break;
	}
	case SBT_VK_CMD_vkAcquireNextImage2KHR: {
		const sbt_vk_args_vkAcquireNextImage2KHR *a = args;
		if (!a->pAcquireInfo)
			break;
		rpvk_sync_semas(r, 1, &a->pAcquireInfo->semaphore, RPVK_SYNC_SIGNALED);
		rpvk_sync_update(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->pAcquireInfo->fence,
		                 RPVK_SYNC_SIGNALED);
		break;
	}
	case SBT_VK_CMD_vkQueuePresentKHR: {
		const sbt_vk_args_vkQueuePresentKHR *a = args;
		if (a->pPresentInfo)
			rpvk_sync_semas(r, a->pPresentInfo->waitSemaphoreCount,
			                a->pPresentInfo->pWaitSemaphores, RPVK_SYNC_UNSIGNALED);
		break;
	}
	default:
		break;
	}
}

/* ---- the waits ----------------------------------------------------------------- */

rp_status rpvk_o_vkWaitForFences(rpvk *r, void *args)
{
	sbt_vk_args_vkWaitForFences *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkResult cap_ret = a->ret;
	uint32_t never = 0, i;
	if (!t)
		return RP_ERR_BACKEND;
	for (i = 0; a->pFences && i < a->fenceCount; i++)
		never += (uint32_t)rpvk_sync_unsignaled(r, VK_OBJECT_TYPE_FENCE,
		                                        (uint64_t)(uintptr_t)a->pFences[i]);
	/* waitAll needs every fence, wait-any one of them */
	if (cap_ret == VK_SUCCESS && never && (a->waitAll || never == a->fenceCount)) {
		for (i = 0; !rpvk_sync_unsignaled(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->pFences[i]); i++)
			;
		return rpvk_sync_never(r, "fence", VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->pFences[i]);
	}
	/* one that did not succeed at capture (it timed out, or its result
	 * was damaged) waits its own timeout, at most --wait-timeout: with no
	 * timeout, on a fence nothing signals, it would never return */
	if (cap_ret == VK_SUCCESS || a->timeout > r->wait_ns)
		a->timeout = r->wait_ns;
	a->ret = t->WaitForFences(a->device, a->fenceCount, a->pFences, a->waitAll, a->timeout);
	if (cap_ret == VK_SUCCESS && a->ret == VK_TIMEOUT)
		return rpvk_wait_timed_out(r, "the fence wait");
	rpvk_result(r, cap_ret, a->ret);
	return RP_OK;
}

rp_status rpvk_o_vkGetFenceStatus(rpvk *r, void *args)
{
	sbt_vk_args_vkGetFenceStatus *a = args;
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device);
	VkResult cap_ret = a->ret;
	if (!t)
		return RP_ERR_BACKEND;
	if (cap_ret == VK_SUCCESS) {
		/* signalled at capture: the replay waits for it (bounded) */
		if (rpvk_sync_unsignaled(r, VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence))
			return rpvk_sync_never(r, "fence", VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)a->fence);
		a->ret = t->WaitForFences(a->device, 1, &a->fence, VK_TRUE, r->wait_ns);
		if (a->ret == VK_TIMEOUT)
			return rpvk_wait_timed_out(r, "the fence (signalled at capture)");
	} else {
		a->ret = t->GetFenceStatus(a->device, a->fence);
	}
	rpvk_result(r, cap_ret, a->ret);
	return RP_OK;
}

static rp_status rpvk_wait_semaphores(rpvk *r, VkDevice device, const VkSemaphoreWaitInfo *info,
                                      uint64_t timeout, VkResult *ret)
{
	const rpvk_dtable *t = rpvk_dtable_for(r, (uint64_t)(uintptr_t)device);
	PFN_vkWaitSemaphores fn;
	VkResult cap_ret = *ret;
	if (!t)
		return RP_ERR_BACKEND;
	fn = t->WaitSemaphores ? t->WaitSemaphores : t->WaitSemaphoresKHR;
	if (!fn)
		return rpvk_missing(r, "vkWaitSemaphores");
	/* as vkWaitForFences: at most --wait-timeout */
	*ret = fn(device, info, cap_ret == VK_SUCCESS || timeout > r->wait_ns ? r->wait_ns : timeout);
	if (cap_ret == VK_SUCCESS && *ret == VK_TIMEOUT)
		return rpvk_wait_timed_out(r, "the semaphore wait");
	rpvk_result(r, cap_ret, *ret);
	return RP_OK;
}

rp_status rpvk_o_vkWaitSemaphores(rpvk *r, void *args)
{
	sbt_vk_args_vkWaitSemaphores *a = args;
	return rpvk_wait_semaphores(r, a->device, a->pWaitInfo, a->timeout, &a->ret);
}

rp_status rpvk_o_vkWaitSemaphoresKHR(rpvk *r, void *args)
{
	sbt_vk_args_vkWaitSemaphoresKHR *a = args;
	return rpvk_wait_semaphores(r, a->device, a->pWaitInfo, a->timeout, &a->ret);
}

rp_status rpvk_o_vkQueueWaitIdle(rpvk *r, void *args)
{
	sbt_vk_args_vkQueueWaitIdle *a = args;
	VkResult cap_ret = a->ret;
	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->queue))
		return RP_ERR_BACKEND;
	a->ret = rpvk_device_idle(r, r->cur_dev, a->queue, r->wait_ns);
	if (a->ret == VK_TIMEOUT)
		return rpvk_wait_timed_out(r, "the queue");
	rpvk_result(r, cap_ret, a->ret);
	return RP_OK;
}

rp_status rpvk_o_vkDeviceWaitIdle(rpvk *r, void *args)
{
	sbt_vk_args_vkDeviceWaitIdle *a = args;
	VkResult cap_ret = a->ret;
	if (!rpvk_dtable_for(r, (uint64_t)(uintptr_t)a->device))
		return RP_ERR_BACKEND;
	a->ret = rpvk_device_idle(r, r->cur_dev, VK_NULL_HANDLE, r->wait_ns);
	if (a->ret == VK_TIMEOUT)
		return rpvk_wait_timed_out(r, "the device");
	rpvk_result(r, cap_ret, a->ret);
	return RP_OK;
}

rp_status rpvk_wait_serialised(rpvk *r, enum sbt_vk_cmd cmd, const void *args)
{
	VkQueue q;
	VkResult ret;

	switch (cmd) {
	case SBT_VK_CMD_vkQueueSubmit:
		q = ((const sbt_vk_args_vkQueueSubmit *)args)->queue;
		ret = ((const sbt_vk_args_vkQueueSubmit *)args)->ret;
		break;
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR:
		q = ((const sbt_vk_args_vkQueueSubmit2 *)args)->queue;
		ret = ((const sbt_vk_args_vkQueueSubmit2 *)args)->ret;
		break;
	case SBT_VK_CMD_vkQueueBindSparse:
		q = ((const sbt_vk_args_vkQueueBindSparse *)args)->queue;
		ret = ((const sbt_vk_args_vkQueueBindSparse *)args)->ret;
		break;
	default:
		return RP_OK;
	}
	if (ret != VK_SUCCESS || !rpvk_dtable_for(r, (uint64_t)(uintptr_t)q))
		return RP_OK; /* nothing was queued, or not on a device of ours */
	if (rpvk_device_idle(r, r->cur_dev, q, r->wait_ns) == VK_TIMEOUT)
		return rpvk_wait_timed_out(r, "the submit (a sampled order waits for each one)");
	return RP_OK;
}
