/*
 * test_vkl_queue - when the capture layer takes the device for idle
 * (layers/vulkan/vkl_queue.c, compiled in), with two queues and more,
 * without a device: the wrappers run over a stub driver, and each
 * observation (vkl_memory_observe, stubbed) notes whether the device
 * looked idle then.  Checkpoints are taken only when it does, so a device
 * taken for idle while a queue's work may still run would checkpoint bytes
 * that work is writing.
 * - one queue: a fence completes its submission and those before it;
 * - a fence, a queue wait or a timeline value of one queue says nothing of
 *   another queue's earlier work (before, each completed every submission
 *   up to its own: the device looked idle while the other queue ran);
 * - a wait for any one of several fences completes the earliest when they
 *   went to one queue, nothing when not;
 * - a device wait completes every queue;
 * - past VKL_QUEUES queues, the shared entry is completed by a device wait
 *   only.
 * Lavapipe has one queue, so the programs cannot show this on it.
 */
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl_queue.c"
#include "layers/vulkan/vkl_objects.c"
#include "layers/vulkan/vkl_map.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_trim_stubs.h"

/* ---- stubs ---- */
static uint64_t tst_seq;
static int tst_observed, tst_observed_idle;

const vkl_config *vkl_config_get(void)
{
	static vkl_config c = { .disabled = 0, .frame_submits = 0 };
	return &c;
}
uint64_t vkl_emit(uint32_t cmd, unsigned flags, const void *args)
{
	(void)cmd, (void)flags, (void)args;
	return ++tst_seq;
}
void vkl_emit_result(uint64_t seq, VkResult ret, uint32_t cmd, const void *args)
{
	(void)seq, (void)ret, (void)cmd, (void)args;
}
void vkl_memory_observe(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                        VkDeviceSize size, uint64_t seq)
{
	(void)mem, (void)offset, (void)size, (void)seq;
	tst_observed++;
	tst_observed_idle = vkl_device_idle(d);
}
void vkl_reach_publish(vkl_device *d, uint32_t cmd, const void *args)
{
	(void)d, (void)cmd, (void)args;
}
void vkl_memory_submitted(vkl_device *d, uint64_t n)
{
	(void)d, (void)n;
}
/* never reached here */
int vkl_frame_hash(vkl_device *d, VkQueue queue, const VkPresentInfoKHR *info, uint64_t seq,
                   VkPresentInfoKHR *down)
{
	(void)d, (void)queue, (void)info, (void)seq, (void)down;
	abort();
}
void vkl_hotkey_no_present(void)
{
}
void vkl_hotkey_present(const VkPresentInfoKHR *info)
{
	(void)info;
	abort();
}
void vkl_memory_allocated(vkl_device *d, VkDeviceMemory mem, const VkMemoryAllocateInfo *info,
                          uint64_t seq)
{
	(void)d, (void)mem, (void)info, (void)seq;
	abort();
}
void vkl_memory_freed(vkl_device *d, VkDeviceMemory mem)
{
	(void)d, (void)mem;
	abort();
}
int vkl_memory_map_recorded(vkl_device *d, VkDeviceMemory mem, uint64_t seq)
{
	(void)d, (void)mem, (void)seq;
	abort();
}
VkResult vkl_memory_mapped(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                           VkDeviceSize size, void **pp_data)
{
	(void)d, (void)mem, (void)offset, (void)size, (void)pp_data;
	abort();
}
void vkl_memory_publish(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                        VkDeviceSize size)
{
	(void)d, (void)mem, (void)offset, (void)size;
	abort();
}
void vkl_memory_unmapping(vkl_device *d, VkDeviceMemory mem)
{
	(void)d, (void)mem;
	abort();
}

/* ---- the stub driver: every call succeeds; a counter query answers
 * tst_counter ---- */
static uint64_t tst_counter;

static VKAPI_ATTR VkResult VKAPI_CALL tst_submit(VkQueue q, uint32_t n, const VkSubmitInfo *s,
                                                 VkFence f)
{
	(void)q, (void)n, (void)s, (void)f;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL tst_wait_fences(VkDevice d, uint32_t n, const VkFence *f,
                                                      VkBool32 all, uint64_t t)
{
	(void)d, (void)n, (void)f, (void)all, (void)t;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL tst_queue_idle(VkQueue q)
{
	(void)q;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL tst_device_idle(VkDevice d)
{
	(void)d;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL tst_wait_semaphores(VkDevice d,
                                                          const VkSemaphoreWaitInfo *w,
                                                          uint64_t t)
{
	(void)d, (void)w, (void)t;
	return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL tst_counter_value(VkDevice d, VkSemaphore s, uint64_t *v)
{
	(void)d, (void)s;
	*v = tst_counter;
	return VK_SUCCESS;
}

/* Dispatchable handles: their first word is the loader's key, one for the
 * device and its queues. */
static int tst_key;
typedef struct tst_handle {
	void *key;
} tst_handle;
static tst_handle tst_devh = { &tst_key }, tst_q[VKL_QUEUES + 2];
static vkl_device tst_d;

#define TST_DEV ((VkDevice)(void *)&tst_devh)
#define TST_Q(i) ((VkQueue)(void *)&tst_q[i])
#define TST_FENCE(i) ((VkFence)(uintptr_t)(0xfe00 + (i)))
#define TST_SEM(i) ((VkSemaphore)(uintptr_t)(0x5e00 + (i)))

static void tst_setup(void)
{
	uint32_t i;
	vkl_map_remove(&tst_key);
	memset(&tst_d, 0, sizeof(tst_d));
	pthread_mutex_init(&tst_d.q_mu, NULL);
	pthread_mutex_init(&tst_d.sig_mu, NULL);
	tst_d.table.QueueSubmit = tst_submit;
	tst_d.table.WaitForFences = tst_wait_fences;
	tst_d.table.QueueWaitIdle = tst_queue_idle;
	tst_d.table.DeviceWaitIdle = tst_device_idle;
	tst_d.table.WaitSemaphores = tst_wait_semaphores;
	tst_d.table.GetSemaphoreCounterValue = tst_counter_value;
	TST_CHECK_EQ_U64(vkl_map_insert(&tst_key, &tst_d), 0);
	for (i = 0; i < VKL_QUEUES + 2; i++)
		tst_q[i].key = &tst_key;
	for (i = 0; i < 8; i++) {
		vkl_objects_remove(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)TST_FENCE(i));
		vkl_objects_add(VK_OBJECT_TYPE_FENCE, (uint64_t)(uintptr_t)TST_FENCE(i), 1,
		                (uint64_t)(uintptr_t)TST_DEV, NULL);
	}
}

/* A submission to queue i with fence (VK_NULL_HANDLE: none), signalling
 * timeline semaphore sem to value when sem is not VK_NULL_HANDLE. */
static void tst_submit_to(int i, VkFence fence, VkSemaphore sem, uint64_t value)
{
	VkTimelineSemaphoreSubmitInfo tl = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO };
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
	if (sem != VK_NULL_HANDLE) {
		tl.signalSemaphoreValueCount = 1;
		tl.pSignalSemaphoreValues = &value;
		si.pNext = &tl;
		si.signalSemaphoreCount = 1;
		si.pSignalSemaphores = &sem;
	}
	TST_CHECK_EQ_U64(vkl_o_vkQueueSubmit(TST_Q(i), 1, &si, fence), VK_SUCCESS);
}

/* Whether the device looked idle at the observation of the last wait. */
static int tst_wait(uint32_t n, const VkFence *fences, int all)
{
	TST_CHECK_EQ_U64(vkl_o_vkWaitForFences(TST_DEV, n, fences, all, UINT64_MAX), VK_SUCCESS);
	return tst_observed_idle;
}

static void tst_one_queue(void)
{
	VkFence f0 = TST_FENCE(0), f1 = TST_FENCE(1);
	tst_setup();
	tst_submit_to(0, f0, VK_NULL_HANDLE, 0);
	tst_submit_to(0, f1, VK_NULL_HANDLE, 0);
	TST_CHECK_EQ_U64(tst_wait(1, &f0, 1), 0);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 1);
	TST_CHECK_EQ_U64(tst_wait(1, &f1, 1), 1);
	/* the earlier fence again: nothing moves back */
	TST_CHECK_EQ_U64(tst_wait(1, &f0, 1), 1);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 2);
}

static void tst_two_queues(void)
{
	VkFence f0 = TST_FENCE(0), f1 = TST_FENCE(1), f2 = TST_FENCE(2), f3 = TST_FENCE(3);
	VkFence both[2];
	tst_setup();
	/* queue 1's work, then queue 0's: queue 0's fence leaves queue 1's
	 * earlier submission outstanding */
	tst_submit_to(1, f1, VK_NULL_HANDLE, 0); /* 1 */
	tst_submit_to(0, f0, VK_NULL_HANDLE, 0); /* 2 */
	TST_CHECK_EQ_U64(tst_wait(1, &f0, 1), 0);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 0);
	TST_CHECK_EQ_U64(tst_wait(1, &f1, 1), 1);

	/* a queue wait: that queue's work only */
	tst_submit_to(1, VK_NULL_HANDLE, VK_NULL_HANDLE, 0); /* 3 */
	tst_submit_to(0, VK_NULL_HANDLE, VK_NULL_HANDLE, 0); /* 4 */
	TST_CHECK_EQ_U64(vkl_o_vkQueueWaitIdle(TST_Q(0)), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 0);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 2);
	TST_CHECK_EQ_U64(vkl_o_vkQueueWaitIdle(TST_Q(1)), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 1);

	/* any one of two fences: of two queues, nothing; of one, the earliest */
	tst_submit_to(0, f0, VK_NULL_HANDLE, 0); /* 5 */
	tst_submit_to(1, f1, VK_NULL_HANDLE, 0); /* 6 */
	both[0] = f1;
	both[1] = f0;
	TST_CHECK_EQ_U64(tst_wait(2, both, 0), 0);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 4);
	tst_submit_to(0, f2, VK_NULL_HANDLE, 0); /* 7 */
	tst_submit_to(0, f3, VK_NULL_HANDLE, 0); /* 8 */
	both[0] = f3;
	both[1] = f2;
	TST_CHECK_EQ_U64(tst_wait(2, both, 0), 0);
	/* queue 0 up to 7; queue 1 known only up to 4 (its 6 outstanding) */
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 4);
	TST_CHECK_EQ_U64(tst_wait(1, &f1, 1), 0); /* 8 still outstanding */
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 7);
	both[0] = f3;
	both[1] = f1;
	TST_CHECK_EQ_U64(tst_wait(2, both, 1), 1);

	/* a device wait: every queue */
	tst_submit_to(0, VK_NULL_HANDLE, VK_NULL_HANDLE, 0); /* 9 */
	tst_submit_to(1, VK_NULL_HANDLE, VK_NULL_HANDLE, 0); /* 10 */
	TST_CHECK_EQ_U64(vkl_o_vkDeviceWaitIdle(TST_DEV), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 1);
}

/* Timeline values: each completes the submission that signals it, on its
 * queue; a counter query that completes something observes. */
static void tst_timeline(void)
{
	VkSemaphore s0 = TST_SEM(0), s1 = TST_SEM(1);
	uint64_t v = 1;
	VkSemaphoreWaitInfo wi = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO };
	int before;
	tst_setup();
	tst_submit_to(1, VK_NULL_HANDLE, s1, 1); /* 1 */
	tst_submit_to(0, VK_NULL_HANDLE, s0, 1); /* 2 */
	tst_submit_to(0, VK_NULL_HANDLE, s0, 2); /* 3 */
	/* queue 0's semaphore at 1: submission 2 complete, 1 outstanding */
	tst_counter = 1;
	before = tst_observed;
	TST_CHECK_EQ_U64(vkl_o_vkGetSemaphoreCounterValue(TST_DEV, s0, &v), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed, before + 1);
	TST_CHECK_EQ_U64(tst_observed_idle, 0);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 0);
	/* the same value again: nothing new, no observation */
	TST_CHECK_EQ_U64(vkl_o_vkGetSemaphoreCounterValue(TST_DEV, s0, &v), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed, before + 1);
	/* queue 1's semaphore reached: 1 complete, 3 outstanding */
	wi.semaphoreCount = 1;
	wi.pSemaphores = &s1;
	wi.pValues = &v;
	v = 1;
	TST_CHECK_EQ_U64(vkl_o_vkWaitSemaphores(TST_DEV, &wi, UINT64_MAX), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 0);
	TST_CHECK_EQ_U64(atomic_load(&tst_d.completed), 2);
	v = 2;
	wi.pSemaphores = &s0;
	TST_CHECK_EQ_U64(vkl_o_vkWaitSemaphores(TST_DEV, &wi, UINT64_MAX), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 1);
}

/* Past VKL_QUEUES queues: the last entry is shared, and a fence or queue
 * wait of a queue there completes nothing. */
static void tst_many_queues(void)
{
	VkFence f0 = TST_FENCE(0), f1 = TST_FENCE(1);
	int i;
	tst_setup();
	for (i = 0; i < VKL_QUEUES - 1; i++)
		tst_submit_to(i, VK_NULL_HANDLE, VK_NULL_HANDLE, 0);
	TST_CHECK_EQ_U64(vkl_o_vkDeviceWaitIdle(TST_DEV), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 1);
	tst_submit_to(VKL_QUEUES - 1, f0, VK_NULL_HANDLE, 0);
	TST_CHECK_EQ_U64(tst_wait(1, &f0, 1), 1); /* its own entry still */
	tst_submit_to(VKL_QUEUES, f1, VK_NULL_HANDLE, 0); /* shares it */
	TST_CHECK_EQ_U64(tst_d.qw_shared, 1);
	TST_CHECK_EQ_U64(tst_wait(1, &f1, 1), 0);
	TST_CHECK_EQ_U64(vkl_o_vkQueueWaitIdle(TST_Q(VKL_QUEUES)), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 0);
	TST_CHECK_EQ_U64(vkl_o_vkDeviceWaitIdle(TST_DEV), VK_SUCCESS);
	TST_CHECK_EQ_U64(tst_observed_idle, 1);
}

int main(void)
{
	tst_one_queue();
	tst_two_queues();
	tst_timeline();
	tst_many_queues();
	return tst_done();
}
