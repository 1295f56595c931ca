/*
 * vkl_queue.c - the hand-written wrappers around memory, submission,
 * presentation and waiting, and the frame counter.
 *
 * Ordering: a submit, sparse bind or present is recorded BEFORE it is
 * passed down (another thread can see its effect, a signalled fence say,
 * before it returns), after the host writes it publishes; a vulkan.tsResult
 * follows when it did not return VK_SUCCESS (or had outputs).  Waits are
 * recorded after they return, then the mapped memory is observed with the
 * wait's seq (vkl_memory.c).  Memory calls carry CAP_REC_WORK.
 *
 * Frames: a process-wide count.  Frame N ends right after the N-th
 * vkQueuePresentKHR record.  A device created without VK_KHR_swapchain
 * can never present: its submits end a frame every
 * TRACESMITH_VK_FRAME_SUBMITS (default 1) until a queue debug-utils label
 * named "frame" is inserted; from then on only those labels do.
 */
#include <string.h>

#include "layers/vulkan/vkl.h"
#include "serializer/sbt_vk.h"

#define VKL_FRAME_LABEL "frame"

static struct {
	_Atomic(uint64_t) frames;  /* frames ended */
	_Atomic(uint64_t) submits; /* submits on devices that cannot present */
	_Atomic(int) labels;       /* a "frame" label was seen */
} vkl_q;

static int vkl_on(void)
{
	return !vkl_config_get()->disabled;
}

void vkl_frame_after_present(void)
{
	cap_frame_end(atomic_fetch_add(&vkl_q.frames, 1) + 1);
}

void vkl_frame_after_submit(const vkl_device *d)
{
	uint32_t every = vkl_config_get()->frame_submits;
	if (!d->can_present)
		vkl_hotkey_no_present();
	if (d->can_present || every == 0 || atomic_load(&vkl_q.labels))
		return;
	if ((atomic_fetch_add(&vkl_q.submits, 1) + 1) % every == 0)
		cap_frame_end(atomic_fetch_add(&vkl_q.frames, 1) + 1);
}

void vkl_frame_after_label(const char *label)
{
	if (!label || strcmp(label, VKL_FRAME_LABEL) != 0)
		return;
	atomic_store(&vkl_q.labels, 1);
	cap_frame_end(atomic_fetch_add(&vkl_q.frames, 1) + 1);
}

/* ---- submissions and their completion ---------------------------------------- */

/*
 * A submission's ticket: its number, and in the top bits its queue's entry
 * in d->qw plus one (0: none).  It rides in its fence's live-object entry
 * and in the timeline signals noted for it, so that what shows the
 * submission complete completes it on its own queue: submissions signal
 * in submission order on one queue, not across queues, so a fence of one
 * queue says nothing of another queue's earlier work.
 */
#define VKL_TICKET_SHIFT 56
#define VKL_TICKET_N(t) ((t) & (((uint64_t)1 << VKL_TICKET_SHIFT) - 1))
#define VKL_TICKET_SLOT(t) ((uint32_t)((t) >> VKL_TICKET_SHIFT))

uint64_t vkl_fence_submission(VkFence fence)
{
	vkl_object o;
	if (!fence || !vkl_objects_find(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)fence, &o))
		return 0;
	return (uint64_t)(uintptr_t)o.data;
}

/* d->completed from the queues' entries: the lowest number up to which a
 * queue with work outstanding is complete, or every submission.  Called
 * with d->q_mu held (which numbers the submissions). */
static void vkl_queues_settle(vkl_device *d)
{
	uint64_t x = atomic_load(&d->submits), cur;
	uint32_t i;
	for (i = 0; i < d->nqw; i++)
		if (d->qw[i].done < d->qw[i].last && d->qw[i].done < x)
			x = d->qw[i].done;
	cur = atomic_load(&d->completed);
	if (x > cur)
		atomic_store(&d->completed, x);
}

/* d->qw's entry for queue, added at its first submission (the last one
 * shared by queues past VKL_QUEUES).  Called with d->q_mu held. */
static uint32_t vkl_queue_slot(vkl_device *d, VkQueue queue)
{
	uint32_t i;
	for (i = 0; i < d->nqw; i++)
		if (d->qw[i].queue == (uintptr_t)queue)
			return i;
	if (d->nqw == VKL_QUEUES) {
		d->qw_shared = 1;
		return VKL_QUEUES - 1;
	}
	d->qw[d->nqw].queue = (uintptr_t)queue;
	d->qw[d->nqw].last = d->qw[d->nqw].done = 0;
	return d->nqw++;
}

/* Numbers a submission to queue; returns its ticket. */
static uint64_t vkl_queue_submission(vkl_device *d, VkQueue queue)
{
	uint64_t n;
	uint32_t slot;
	pthread_mutex_lock(&d->q_mu);
	n = atomic_fetch_add(&d->submits, 1) + 1;
	slot = vkl_queue_slot(d, queue);
	d->qw[slot].last = n;
	pthread_mutex_unlock(&d->q_mu);
	return n | (uint64_t)(slot + 1) << VKL_TICKET_SHIFT;
}

/* The submission of ticket t and those before it on its queue completed;
 * returns whether that completed anything not known complete before. */
static int vkl_ticket_completed(vkl_device *d, uint64_t t)
{
	uint32_t slot = VKL_TICKET_SLOT(t);
	uint64_t n = VKL_TICKET_N(t);
	int more = 0;
	if (!slot || !n || slot > VKL_QUEUES)
		return 0;
	pthread_mutex_lock(&d->q_mu);
	/* the shared entry: which queue's work it was is not known */
	if (!(slot == VKL_QUEUES && d->qw_shared) && slot <= d->nqw && n > d->qw[slot - 1].done) {
		d->qw[slot - 1].done = n;
		more = 1;
		vkl_queues_settle(d);
	}
	pthread_mutex_unlock(&d->q_mu);
	return more;
}

/* All of queue's submissions so far (up to `before`, the count when its
 * wait began) completed. */
static void vkl_queue_idle(vkl_device *d, VkQueue queue, uint64_t before)
{
	uint32_t i;
	pthread_mutex_lock(&d->q_mu);
	for (i = 0; i < d->nqw; i++)
		if (d->qw[i].queue == (uintptr_t)queue)
			break;
	if (i < d->nqw && !(i == VKL_QUEUES - 1 && d->qw_shared) && before > d->qw[i].done) {
		d->qw[i].done = before;
		vkl_queues_settle(d);
	}
	pthread_mutex_unlock(&d->q_mu);
}

void vkl_device_completed(vkl_device *d, uint64_t n)
{
	uint32_t i;
	pthread_mutex_lock(&d->q_mu);
	for (i = 0; i < d->nqw; i++)
		if (n > d->qw[i].done)
			d->qw[i].done = n;
	vkl_queues_settle(d);
	pthread_mutex_unlock(&d->q_mu);
}

/* After waiting on fences successfully: each of them (waitAll, or one
 * fence) completes its submission on its queue; any one of several only
 * the earliest, and only when they all went to one queue (which was
 * reached is not known). */
static void vkl_fences_completed(vkl_device *d, uint32_t n, const VkFence *fences, int all)
{
	uint64_t lo = UINT64_MAX;
	uint32_t i, slot = 0;
	int one_queue = 1;
	for (i = 0; i < n; i++) {
		uint64_t t = vkl_fence_submission(fences[i]);
		if (all || n == 1) {
			vkl_ticket_completed(d, t);
			continue;
		}
		if (i == 0)
			slot = VKL_TICKET_SLOT(t);
		else if (VKL_TICKET_SLOT(t) != slot)
			one_queue = 0;
		if (VKL_TICKET_N(t) < VKL_TICKET_N(lo))
			lo = t;
	}
	if (!all && n > 1 && one_queue && lo != UINT64_MAX)
		vkl_ticket_completed(d, lo);
}

/* ---- memory ---------------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkAllocateMemory(VkDevice device,
                                                      const VkMemoryAllocateInfo *pAllocateInfo,
                                                      const VkAllocationCallbacks *pAllocator,
                                                      VkDeviceMemory *pMemory)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = d->table.AllocateMemory(device, pAllocateInfo, pAllocator, pMemory);
	if (vkl_on()) {
		sbt_vk_args_vkAllocateMemory a;
		uint64_t seq;
		a.device = device;
		a.pAllocateInfo = pAllocateInfo;
		a.pAllocator = pAllocator;
		a.pMemory = pMemory;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkAllocateMemory, CAP_REC_WORK, &a);
		if (ret == VK_SUCCESS)
			vkl_memory_allocated(d, *pMemory, pAllocateInfo, seq);
	}
	return ret;
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkFreeMemory(VkDevice device, VkDeviceMemory memory,
                                              const VkAllocationCallbacks *pAllocator)
{
	vkl_device *d = vkl_device_get(device);
	if (vkl_on() && memory) {
		sbt_vk_args_vkFreeMemory a;
		a.device = device;
		a.memory = memory;
		a.pAllocator = pAllocator;
		vkl_emit(SBT_VK_CMD_vkFreeMemory, CAP_REC_WORK, &a);
		vkl_memory_freed(d, memory);
	}
	d->table.FreeMemory(device, memory, pAllocator);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkMapMemory(VkDevice device, VkDeviceMemory memory,
                                                 VkDeviceSize offset, VkDeviceSize size,
                                                 VkMemoryMapFlags flags, void **ppData)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = d->table.MapMemory(device, memory, offset, size, flags, ppData);
	if (vkl_on()) {
		sbt_vk_args_vkMapMemory a;
		uint64_t seq;
		if (ret == VK_SUCCESS) {
			VkResult sret = vkl_memory_mapped(d, memory, offset, size, ppData);
			if (sret != VK_SUCCESS) {
				d->table.UnmapMemory(device, memory);
				ret = sret;
			}
		}
		a.device = device;
		a.memory = memory;
		a.offset = offset;
		a.size = size;
		a.flags = flags;
		a.ppData = ppData;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkMapMemory, CAP_REC_WORK, &a);
		if (ret == VK_SUCCESS && seq)
			vkl_memory_map_recorded(d, memory, seq);
	}
	return ret;
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkUnmapMemory(VkDevice device, VkDeviceMemory memory)
{
	vkl_device *d = vkl_device_get(device);
	if (vkl_on()) {
		sbt_vk_args_vkUnmapMemory a;
		vkl_memory_unmapping(d, memory);
		a.device = device;
		a.memory = memory;
		vkl_emit(SBT_VK_CMD_vkUnmapMemory, CAP_REC_WORK, &a);
	}
	d->table.UnmapMemory(device, memory);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkFlushMappedMemoryRanges(
	VkDevice device, uint32_t memoryRangeCount, const VkMappedMemoryRange *pMemoryRanges)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret;
	uint64_t seq = 0;
	uint32_t i;
	if (vkl_on()) {
		sbt_vk_args_vkFlushMappedMemoryRanges a;
		for (i = 0; i < memoryRangeCount; i++)
			vkl_memory_publish(d, pMemoryRanges[i].memory, pMemoryRanges[i].offset,
			                   pMemoryRanges[i].size);
		a.device = device;
		a.memoryRangeCount = memoryRangeCount;
		a.pMemoryRanges = pMemoryRanges;
		a.ret = VK_SUCCESS;
		seq = vkl_emit(SBT_VK_CMD_vkFlushMappedMemoryRanges, CAP_REC_WORK, &a);
	}
	ret = d->table.FlushMappedMemoryRanges(device, memoryRangeCount, pMemoryRanges);
	if (ret != VK_SUCCESS)
		vkl_emit_result(seq, ret, SBT_VK_CMD_vkFlushMappedMemoryRanges, NULL);
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkInvalidateMappedMemoryRanges(
	VkDevice device, uint32_t memoryRangeCount, const VkMappedMemoryRange *pMemoryRanges)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = d->table.InvalidateMappedMemoryRanges(device, memoryRangeCount, pMemoryRanges);
	uint32_t i;
	if (vkl_on()) {
		sbt_vk_args_vkInvalidateMappedMemoryRanges a;
		uint64_t seq;
		a.device = device;
		a.memoryRangeCount = memoryRangeCount;
		a.pMemoryRanges = pMemoryRanges;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkInvalidateMappedMemoryRanges, CAP_REC_WORK, &a);
		if (ret == VK_SUCCESS)
			for (i = 0; i < memoryRangeCount; i++)
				vkl_memory_observe(d, pMemoryRanges[i].memory, pMemoryRanges[i].offset,
				                   pMemoryRanges[i].size, seq);
	}
	return ret;
}

/* ---- timeline semaphores ------------------------------------------------------ */

/*
 * A program that waits for its work with a timeline semaphore (vkWaitSemaphores,
 * or polling vkGetSemaphoreCounterValue) and no fence, as zink does, never
 * made the device look idle, so its readbacks stayed pending and were
 * never checkpointed.  Each submission's timeline signals (a value over 0:
 * binary semaphores' values are 0 or ignored) are noted in the device's
 * table before it goes down; a wait or query that shows a semaphore at or
 * past a noted value completes that submission and, as a fence would, those
 * before it on its queue (its ticket).  A wait for any one of several
 * semaphores completes nothing (which one was reached is not known).  The
 * table keeps the VKL_SIGNALS newest signals; an older one dropped only
 * delays a completion to the next signal reached.
 */

/* Takes d->sig_mu at the first signal noted (*locked); t is the
 * submission's ticket. */
static void vkl_signal_note(vkl_device *d, VkSemaphore sem, uint64_t value, uint64_t t,
                            int *locked)
{
	if (!sem || !value)
		return;
	if (!*locked) {
		pthread_mutex_lock(&d->sig_mu);
		*locked = 1;
	}
	if (d->nsig == VKL_SIGNALS) {
		memmove(&d->sig[0], &d->sig[1], (VKL_SIGNALS - 1) * sizeof(d->sig[0]));
		d->nsig--;
	}
	d->sig[d->nsig].semaphore = (uint64_t)(uintptr_t)sem;
	d->sig[d->nsig].value = value;
	d->sig[d->nsig].submission = t;
	d->nsig++;
}

static const void *vkl_chained(const void *next, VkStructureType type)
{
	const VkBaseInStructure *b = next;
	while (b && b->sType != type)
		b = b->pNext;
	return b;
}

/* The signals of a VkSubmitInfo or VkBindSparseInfo (its pNext, its
 * semaphores): their values in a chained VkTimelineSemaphoreSubmitInfo. */
static void vkl_signals_chained(vkl_device *d, const void *pnext, uint32_t count,
                                const VkSemaphore *sems, uint64_t t, int *locked)
{
	const VkTimelineSemaphoreSubmitInfo *tl =
	        vkl_chained(pnext, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
	uint32_t j;
	for (j = 0;
	     tl && tl->pSignalSemaphoreValues && j < count && j < tl->signalSemaphoreValueCount; j++)
		vkl_signal_note(d, sems[j], tl->pSignalSemaphoreValues[j], t, locked);
}

/* The timeline signals of the submission of ticket t (the arguments of
 * cmd); no lock taken when it has none. */
static void vkl_signals_noted(vkl_device *d, uint32_t cmd, const void *args, uint64_t t)
{
	uint32_t i, j;
	int locked = 0;
	if (cmd == SBT_VK_CMD_vkQueueSubmit) {
		const sbt_vk_args_vkQueueSubmit *a = args;
		for (i = 0; i < a->submitCount; i++)
			vkl_signals_chained(d, a->pSubmits[i].pNext, a->pSubmits[i].signalSemaphoreCount,
			                    a->pSubmits[i].pSignalSemaphores, t, &locked);
	} else if (cmd == SBT_VK_CMD_vkQueueSubmit2 || cmd == SBT_VK_CMD_vkQueueSubmit2KHR) {
		const sbt_vk_args_vkQueueSubmit2 *a = args;
		for (i = 0; i < a->submitCount; i++)
			for (j = 0; j < a->pSubmits[i].signalSemaphoreInfoCount; j++)
				vkl_signal_note(d, a->pSubmits[i].pSignalSemaphoreInfos[j].semaphore,
				                a->pSubmits[i].pSignalSemaphoreInfos[j].value, t, &locked);
	} else if (cmd == SBT_VK_CMD_vkQueueBindSparse) {
		const sbt_vk_args_vkQueueBindSparse *a = args;
		for (i = 0; i < a->bindInfoCount; i++)
			vkl_signals_chained(d, a->pBindInfo[i].pNext, a->pBindInfo[i].signalSemaphoreCount,
			                    a->pBindInfo[i].pSignalSemaphores, t, &locked);
	}
	if (locked)
		pthread_mutex_unlock(&d->sig_mu);
}

/* sem is at value or past it: each submission noted as signalling it at
 * or below value completed (signal values on a timeline only rise, so
 * every signal of a lower value happened before), and those signals are
 * forgotten, with any of a submission already complete.  Returns whether
 * that completed anything not known complete before. */
static int vkl_signals_reached(vkl_device *d, VkSemaphore sem, uint64_t value)
{
	uint64_t done = atomic_load(&d->completed), h = (uint64_t)(uintptr_t)sem;
	uint64_t reached[VKL_SIGNALS];
	uint32_t i, k = 0, nr = 0;
	int more = 0;
	pthread_mutex_lock(&d->sig_mu);
	for (i = 0; i < d->nsig; i++) {
		const struct vkl_signal *g = &d->sig[i];
		if (g->semaphore == h && g->value <= value) {
			reached[nr++] = g->submission;
			continue;
		}
		if (VKL_TICKET_N(g->submission) <= done)
			continue;
		d->sig[k++] = *g;
	}
	d->nsig = k;
	pthread_mutex_unlock(&d->sig_mu);
	for (i = 0; i < nr; i++)
		more |= vkl_ticket_completed(d, reached[i]);
	return more;
}

/* ---- submission -------------------------------------------------------------- */

/* Host writes published, the submission numbered (and its fence marked
 * with the number), the call recorded: returns the record's seq. */
static uint64_t vkl_before_submit(vkl_device *d, VkQueue queue, uint32_t cmd, const void *args,
                                  VkFence fence)
{
	uint64_t t, n;
	/* a window that starts with this submit opens here, its snapshot first */
	cap_unit_begin(CAP_UNIT_SUBMIT);
	t = vkl_queue_submission(d, queue);
	n = VKL_TICKET_N(t);
	if (fence) {
		/* the fence's entry exists (vkCreateFence added it); adding it
		 * here would adopt this thread's last kept creation (vkl_trim.c) */
		void *lk;
		vkl_object *o = vkl_objects_lock(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)fence, &lk);
		if (o)
			o->data = (void *)(uintptr_t)t;
		vkl_objects_unlock(lk);
	}
	vkl_signals_noted(d, cmd, args, t);
	vkl_reach_publish(d, cmd, args);
	vkl_memory_submitted(d, n);
	return vkl_emit(cmd, CAP_REC_WORK, args);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkQueueSubmit(VkQueue queue, uint32_t submitCount,
                                                   const VkSubmitInfo *pSubmits, VkFence fence)
{
	vkl_device *d = vkl_device_get(queue);
	sbt_vk_args_vkQueueSubmit a;
	uint64_t seq = 0;
	VkResult ret;
	a.queue = queue;
	a.submitCount = submitCount;
	a.pSubmits = pSubmits;
	a.fence = fence;
	a.ret = VK_SUCCESS;
	if (vkl_on())
		seq = vkl_before_submit(d, queue, SBT_VK_CMD_vkQueueSubmit, &a, fence);
	ret = d->table.QueueSubmit(queue, submitCount, pSubmits, fence);
	if (vkl_on()) {
		if (ret != VK_SUCCESS)
			vkl_emit_result(seq, ret, SBT_VK_CMD_vkQueueSubmit, NULL);
		cap_unit_end(CAP_UNIT_SUBMIT);
		vkl_frame_after_submit(d);
	}
	return ret;
}

static VkResult vkl_submit2(VkQueue queue, uint32_t submitCount, const VkSubmitInfo2 *pSubmits,
                            VkFence fence, uint32_t cmd, int khr)
{
	vkl_device *d = vkl_device_get(queue);
	sbt_vk_args_vkQueueSubmit2 a;
	uint64_t seq = 0;
	VkResult ret;
	a.queue = queue;
	a.submitCount = submitCount;
	a.pSubmits = pSubmits;
	a.fence = fence;
	a.ret = VK_SUCCESS;
	if (vkl_on())
		seq = vkl_before_submit(d, queue, cmd, &a, fence);
	ret = khr ? d->table.QueueSubmit2KHR(queue, submitCount, pSubmits, fence)
	          : d->table.QueueSubmit2(queue, submitCount, pSubmits, fence);
	if (vkl_on()) {
		if (ret != VK_SUCCESS)
			vkl_emit_result(seq, ret, cmd, NULL);
		cap_unit_end(CAP_UNIT_SUBMIT);
		vkl_frame_after_submit(d);
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkQueueSubmit2(VkQueue queue, uint32_t submitCount,
                                                    const VkSubmitInfo2 *pSubmits, VkFence fence)
{
	return vkl_submit2(queue, submitCount, pSubmits, fence, SBT_VK_CMD_vkQueueSubmit2, 0);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkQueueSubmit2KHR(VkQueue queue, uint32_t submitCount,
                                                       const VkSubmitInfo2 *pSubmits, VkFence fence)
{
	return vkl_submit2(queue, submitCount, pSubmits, fence, SBT_VK_CMD_vkQueueSubmit2KHR, 1);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkQueueBindSparse(VkQueue queue, uint32_t bindInfoCount,
                                                       const VkBindSparseInfo *pBindInfo,
                                                       VkFence fence)
{
	vkl_device *d = vkl_device_get(queue);
	sbt_vk_args_vkQueueBindSparse a;
	uint64_t seq = 0;
	VkResult ret;
	a.queue = queue;
	a.bindInfoCount = bindInfoCount;
	a.pBindInfo = pBindInfo;
	a.fence = fence;
	a.ret = VK_SUCCESS;
	if (vkl_on())
		seq = vkl_before_submit(d, queue, SBT_VK_CMD_vkQueueBindSparse, &a, fence);
	ret = d->table.QueueBindSparse(queue, bindInfoCount, pBindInfo, fence);
	if (ret != VK_SUCCESS)
		vkl_emit_result(seq, ret, SBT_VK_CMD_vkQueueBindSparse, NULL);
	if (vkl_on())
		cap_unit_end(CAP_UNIT_SUBMIT);
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkQueuePresentKHR(VkQueue queue,
                                                       const VkPresentInfoKHR *pPresentInfo)
{
	vkl_device *d = vkl_device_get(queue);
	sbt_vk_args_vkQueuePresentKHR a;
	VkPresentInfoKHR hashed;
	uint64_t seq = 0;
	VkResult ret;
	a.queue = queue;
	a.pPresentInfo = pPresentInfo;
	a.ret = VK_SUCCESS;
	if (vkl_on())
		seq = vkl_emit(SBT_VK_CMD_vkQueuePresentKHR, CAP_REC_WORK, &a);
	/* TRACESMITH_FRAME_HASH: the presented images' checkpoints follow the
	 * present's record, and the present then waits the layer's copy */
	if (d->frame && vkl_frame_hash(d, queue, pPresentInfo, seq, &hashed))
		ret = d->table.QueuePresentKHR(queue, &hashed);
	else
		ret = d->table.QueuePresentKHR(queue, pPresentInfo);
	if (vkl_on()) {
		a.ret = ret;
		/* pResults is the only output: the payload again when there is one */
		if (ret != VK_SUCCESS || pPresentInfo->pResults)
			vkl_emit_result(seq, ret, SBT_VK_CMD_vkQueuePresentKHR,
			                pPresentInfo->pResults ? &a : NULL);
		vkl_hotkey_present(pPresentInfo);
		vkl_frame_after_present();
	}
	return ret;
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkQueueInsertDebugUtilsLabelEXT(VkQueue queue,
                                                                 const VkDebugUtilsLabelEXT *pLabelInfo)
{
	vkl_device *d = vkl_device_get(queue);
	d->table.QueueInsertDebugUtilsLabelEXT(queue, pLabelInfo);
	if (vkl_on()) {
		sbt_vk_args_vkQueueInsertDebugUtilsLabelEXT a;
		a.queue = queue;
		a.pLabelInfo = pLabelInfo;
		vkl_emit(SBT_VK_CMD_vkQueueInsertDebugUtilsLabelEXT, 0, &a);
		if (!d->can_present && pLabelInfo)
			vkl_frame_after_label(pLabelInfo->pLabelName);
	}
}

/* ---- waiting: the points where the program sees device results -------------- */

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkWaitForFences(VkDevice device, uint32_t fenceCount,
                                                     const VkFence *pFences, VkBool32 waitAll,
                                                     uint64_t timeout)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = d->table.WaitForFences(device, fenceCount, pFences, waitAll, timeout);
	if (vkl_on()) {
		sbt_vk_args_vkWaitForFences a;
		uint64_t seq;
		a.device = device;
		a.fenceCount = fenceCount;
		a.pFences = pFences;
		a.waitAll = waitAll;
		a.timeout = timeout;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkWaitForFences, 0, &a);
		if (ret == VK_SUCCESS)
			vkl_fences_completed(d, fenceCount, pFences, waitAll);
		if (ret == VK_SUCCESS)
			vkl_memory_observe(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, seq);
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkGetFenceStatus(VkDevice device, VkFence fence)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = d->table.GetFenceStatus(device, fence);
	if (vkl_on()) {
		sbt_vk_args_vkGetFenceStatus a;
		uint64_t seq;
		a.device = device;
		a.fence = fence;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkGetFenceStatus, 0, &a);
		if (ret == VK_SUCCESS)
			vkl_fences_completed(d, 1, &fence, 1);
		if (ret == VK_SUCCESS)
			vkl_memory_observe(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, seq);
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkQueueWaitIdle(VkQueue queue)
{
	vkl_device *d = vkl_device_get(queue);
	uint64_t before = atomic_load(&d->submits);
	VkResult ret = d->table.QueueWaitIdle(queue);
	if (vkl_on()) {
		sbt_vk_args_vkQueueWaitIdle a;
		uint64_t seq;
		a.queue = queue;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkQueueWaitIdle, 0, &a);
		if (ret == VK_SUCCESS)
			vkl_queue_idle(d, queue, before);
		if (ret == VK_SUCCESS)
			vkl_memory_observe(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, seq);
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkDeviceWaitIdle(VkDevice device)
{
	vkl_device *d = vkl_device_get(device);
	uint64_t before = atomic_load(&d->submits);
	VkResult ret = d->table.DeviceWaitIdle(device);
	if (vkl_on()) {
		sbt_vk_args_vkDeviceWaitIdle a;
		uint64_t seq;
		a.device = device;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkDeviceWaitIdle, 0, &a);
		if (ret == VK_SUCCESS)
			vkl_device_completed(d, before);
		if (ret == VK_SUCCESS)
			vkl_memory_observe(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, seq);
	}
	return ret;
}

static VkResult vkl_wait_semaphores(VkDevice device, const VkSemaphoreWaitInfo *pWaitInfo,
                                    uint64_t timeout, uint32_t cmd, int khr)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = khr ? d->table.WaitSemaphoresKHR(device, pWaitInfo, timeout)
	                   : d->table.WaitSemaphores(device, pWaitInfo, timeout);
	if (vkl_on()) {
		sbt_vk_args_vkWaitSemaphores a;
		uint64_t seq;
		a.device = device;
		a.pWaitInfo = pWaitInfo;
		a.timeout = timeout;
		a.ret = ret;
		seq = vkl_emit(cmd, 0, &a);
		if (ret == VK_SUCCESS) {
			/* every semaphore at its value, unless any one was enough */
			uint32_t i;
			if (!(pWaitInfo->flags & VK_SEMAPHORE_WAIT_ANY_BIT) ||
			    pWaitInfo->semaphoreCount == 1)
				for (i = 0; i < pWaitInfo->semaphoreCount; i++)
					vkl_signals_reached(d, pWaitInfo->pSemaphores[i], pWaitInfo->pValues[i]);
			vkl_memory_observe(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, seq);
		}
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkWaitSemaphores(VkDevice device,
                                                      const VkSemaphoreWaitInfo *pWaitInfo,
                                                      uint64_t timeout)
{
	return vkl_wait_semaphores(device, pWaitInfo, timeout, SBT_VK_CMD_vkWaitSemaphores, 0);
}

/* The program can read what the work that signalled the value it sees
 * wrote: an observation, when the value completes a submission not known
 * complete before (a program polling the counter observes once). */
static VkResult vkl_counter_value(VkDevice device, VkSemaphore semaphore, uint64_t *pValue,
                                  uint32_t cmd, int khr)
{
	vkl_device *d = vkl_device_get(device);
	VkResult ret = khr ? d->table.GetSemaphoreCounterValueKHR(device, semaphore, pValue)
	                   : d->table.GetSemaphoreCounterValue(device, semaphore, pValue);
	if (vkl_on()) {
		sbt_vk_args_vkGetSemaphoreCounterValue a;
		uint64_t seq;
		a.device = device;
		a.semaphore = semaphore;
		a.pValue = pValue;
		a.ret = ret;
		seq = vkl_emit(cmd, 0, &a);
		if (ret == VK_SUCCESS && vkl_signals_reached(d, semaphore, *pValue))
			vkl_memory_observe(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, seq);
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkGetSemaphoreCounterValue(VkDevice device,
                                                                VkSemaphore semaphore,
                                                                uint64_t *pValue)
{
	return vkl_counter_value(device, semaphore, pValue, SBT_VK_CMD_vkGetSemaphoreCounterValue,
	                         0);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkGetSemaphoreCounterValueKHR(VkDevice device,
                                                                   VkSemaphore semaphore,
                                                                   uint64_t *pValue)
{
	return vkl_counter_value(device, semaphore, pValue,
	                         SBT_VK_CMD_vkGetSemaphoreCounterValueKHR, 1);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkWaitSemaphoresKHR(VkDevice device,
                                                         const VkSemaphoreWaitInfo *pWaitInfo,
                                                         uint64_t timeout)
{
	return vkl_wait_semaphores(device, pWaitInfo, timeout, SBT_VK_CMD_vkWaitSemaphoresKHR, 1);
}
