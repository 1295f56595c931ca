#!/bin/sh
# The record-first vkCmd* wrappers' per-thread device (docs/vulkan-layer.md,
# "What a recorded command costs"): each thread keeps the loader key of the
# device it last recorded a command for, and destroying a device clears it
# in every thread.  A program of the test's own (below) pushes constants on
# command buffers of two devices in turn from one thread, on one of them
# from a second thread, destroys that device while both threads last used
# it and makes another, which often gets its loader key (a few devices are
# made and destroyed first, so that glibc's heap tends to hand the key back;
# the program says whether it did, and the test prints it), then records on the new device
# from both threads, and on the first device from a thread started after the
# second one ended.  Captured under VK_LAYER_tracesmith with the validation
# layer below it, recording the whole run (the record-first wrappers):
#   - the destroy clears the key in both threads (TRACESMITH_LOG=debug);
#   - every push is in the trace, in the program's order, on its command
#     buffer, with its size and bytes;
#   - the trace replays under validation;
#   - the same with TRACESMITH_CLOCK=monotonic (the wrappers' rest only).
set -eu
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$TOP/tests/support/vk_env.sh"
. "$TOP/tests/support/python.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { vk_env_fail "$@"; }

vk_env_init
R=$VK_ENV_BUILD/tsreplay
[ -x "$R" ] || fail "$R is not built"
unset TRACESMITH_TRIGGER TRACESMITH_CLOCK TRACESMITH_DISABLE TRACESMITH_LOG

# the program, built with the build's sanitizer (its layer needs it)
san=
if nm -D "$VK_ENV_BUILD/tsinfo" 2>/dev/null | grep -q ' __tsan_init$'; then
	san=-fsanitize=thread
elif nm -D "$VK_ENV_BUILD/tsinfo" 2>/dev/null | grep -q ' __asan_init$'; then
	san=-fsanitize=address,undefined
fi
cat >"$T/devs.c" <<'EOF'
/* Pushes on command buffers of several devices, from several threads,
 * with a device destroyed and another created between them.  Prints one
 * line per push (command buffer, size, tag) in the order made, and
 * whether the new device got the destroyed one's loader key. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define CHECK(x)                                                               \
	do {                                                                   \
		VkResult r_ = (x);                                             \
		if (r_ != VK_SUCCESS) {                                        \
			fprintf(stderr, "devs: %s: %d\n", #x, (int)r_);       \
			exit(1);                                               \
		}                                                              \
	} while (0)

typedef struct dev {
	VkDevice d;
	VkQueue q;
	VkCommandPool pool;
	VkCommandBuffer cb;
	VkPipelineLayout layout;
} dev;

static VkInstance inst;
static VkPhysicalDevice phys;
static uint32_t qfam;
static uint32_t tag;
static dev A, B, C;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int phase;

static void dev_make(dev *x)
{
	float prio = 1;
	VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                             .queueFamilyIndex = qfam, .queueCount = 1,
	                             .pQueuePriorities = &prio};
	VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                         .queueCreateInfoCount = 1, .pQueueCreateInfos = &q};
	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                               .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                               .queueFamilyIndex = qfam};
	VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                  .commandBufferCount = 1};
	VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 64};
	VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	                                 .pushConstantRangeCount = 1, .pPushConstantRanges = &pr};
	CHECK(vkCreateDevice(phys, &ci, NULL, &x->d));
	vkGetDeviceQueue(x->d, qfam, 0, &x->q);
	CHECK(vkCreateCommandPool(x->d, &pci, NULL, &x->pool));
	ai.commandPool = x->pool;
	CHECK(vkAllocateCommandBuffers(x->d, &ai, &x->cb));
	CHECK(vkCreatePipelineLayout(x->d, &li, NULL, &x->layout));
}

static void dev_free(dev *x)
{
	vkDestroyPipelineLayout(x->d, x->layout, NULL);
	vkDestroyCommandPool(x->d, x->pool, NULL);
	vkDestroyDevice(x->d, NULL);
	memset(x, 0, sizeof(*x));
}

static void begin(dev *x)
{
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                               .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
	CHECK(vkBeginCommandBuffer(x->cb, &bi));
}

static void submit(dev *x)
{
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
	                   .pCommandBuffers = &x->cb};
	CHECK(vkEndCommandBuffer(x->cb));
	CHECK(vkQueueSubmit(x->q, 1, &si, VK_NULL_HANDLE));
	CHECK(vkQueueWaitIdle(x->q));
}

/* Sizes 4 to 64 in turn; byte i of push t is (t * 31 + i) & 0xff. */
static void push(dev *x)
{
	uint8_t b[64];
	uint32_t t = tag++, n = 4 * (t % 16 + 1), i;
	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(t * 31 + i);
	vkCmdPushConstants(x->cb, x->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, n, b);
	printf("push %llu %u %u\n", (unsigned long long)(uintptr_t)x->cb, n, t);
}

static void wait_phase(int p)
{
	pthread_mutex_lock(&mu);
	while (phase < p)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void set_phase(int p)
{
	pthread_mutex_lock(&mu);
	phase = p;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* Records on B, then (after B is gone and C made) on C. */
static void *worker(void *arg)
{
	int i;
	(void)arg;
	wait_phase(1);
	begin(&B);
	for (i = 0; i < 4; i++)
		push(&B);
	submit(&B);
	set_phase(2);
	wait_phase(3);
	begin(&C);
	for (i = 0; i < 4; i++)
		push(&C);
	submit(&C);
	set_phase(4);
	return NULL;
}

/* A thread started after the first one ended: pushes on A. */
static void *late(void *arg)
{
	int i;
	(void)arg;
	begin(&A);
	for (i = 0; i < 3; i++)
		push(&A);
	submit(&A);
	return NULL;
}

int main(void)
{
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                         .pApplicationName = "devs", .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                            .pApplicationInfo = &app};
	uint32_t n = 1, nq = 0, i;
	VkQueueFamilyProperties qp[16];
	pthread_t w, l;
	void *b_key;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	if (vkEnumeratePhysicalDevices(inst, &n, &phys) < 0 || n == 0) {
		fprintf(stderr, "devs: no physical device\n");
		return 1;
	}
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, NULL);
	if (nq > 16)
		nq = 16;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qp);
	for (qfam = 0; qfam < nq && !(qp[qfam].queueFlags & VK_QUEUE_COMPUTE_BIT); qfam++)
		;
	if (qfam == nq) {
		fprintf(stderr, "devs: no compute queue\n");
		return 1;
	}
	dev_make(&A);
	/* a few devices made and destroyed first: from then on the loader
	 * gives a new device the last destroyed one's key (glibc's heap) */
	for (i = 0; i < 4; i++) {
		dev_make(&B);
		dev_free(&B);
	}
	dev_make(&B);
	if (pthread_create(&w, NULL, worker, NULL) != 0)
		return 1;
	/* one thread, two devices in turn */
	begin(&A);
	begin(&B);
	for (i = 0; i < 8; i++) {
		push(&A);
		push(&B);
	}
	submit(&A);
	submit(&B);
	set_phase(1);
	wait_phase(2);
	/* B goes while both threads last used it; C may get its loader key */
	b_key = *(void **)B.d;
	printf("destroy %p\n", (void *)B.d);
	fflush(stdout);
	dev_free(&B);
	dev_make(&C);
	printf("key %s\n", *(void **)C.d == b_key ? "reused" : "new");
	set_phase(3);
	wait_phase(4);
	pthread_join(w, NULL);
	begin(&C);
	for (i = 0; i < 4; i++)
		push(&C);
	push(&C);
	submit(&C);
	if (pthread_create(&l, NULL, late, NULL) != 0)
		return 1;
	pthread_join(l, NULL);
	dev_free(&C);
	dev_free(&A);
	vkDestroyInstance(inst, NULL);
	printf("devs: done\n");
	return 0;
}
EOF
${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -g $san -pthread "$T/devs.c" -o "$T/devs" -lvulkan ||
	fail "cannot build the test's program"

vk_env_layers_validation
vk_env_run "$T/plain.log" "$T/devs" || fail "the program alone: $(tail -5 "$T/plain.log")"
grep -q '^devs: done$' "$T/plain.log" || fail "the program alone did not finish: $(tail -5 "$T/plain.log")"

for clock in auto monotonic; do
	vk_env_layers_ours
	TRACESMITH_CLOCK=$clock TRACESMITH_STACKS=none TRACESMITH_LOG=debug \
		TRACESMITH_OUTPUT=$T/$clock.sbt vk_env_run "$T/$clock.log" "$T/devs" ||
		fail "$clock: capture: $(tail -5 "$T/$clock.log")"
	grep -q '^devs: done$' "$T/$clock.log" || fail "$clock: the program did not finish under the layer"
	echo "$clock: the new device's loader key: $(sed -n 's/^key //p' "$T/$clock.log")"
	dev=$(sed -n 's/^destroy //p' "$T/$clock.log")
	[ -n "$dev" ] || fail "$clock: the program did not say which device it destroyed"
	# (with the monotonic clock the wrappers' rest keeps the device)
	grep -q "Vulkan layer: device $dev destroyed: the last device of 2 thread(s) cleared" "$T/$clock.log" ||
		fail "$clock: destroying $dev: $(grep "device $dev destroyed" "$T/$clock.log" || echo 'no clear logged')"
	grep '^push ' "$T/$clock.log" >"$T/$clock.pushes"
	ts_python - "$T/$clock.sbt" "$T/$clock.pushes" >"$T/$clock.check" 2>&1 <<'PY' ||
import sys
import tracesmith
want = [tuple(int(x) for x in line.split()[1:]) for line in open(sys.argv[2])]
got = [r for r in tracesmith.open(sys.argv[1]) if r.name == "vulkan.vkCmdPushConstants"]
bad = []
for k, (r, (cb, n, t)) in enumerate(zip(got, want)):
    data = bytes((t * 31 + i) & 0xff for i in range(n))
    if int(r.fields["commandBuffer"]["raw"], 16) != cb or r.fields["size"] != n or not r.payload.endswith(data):
        bad.append("push %d: command buffer %s size %s, payload %s; the program's: %d %d %s" % (
            k, r.fields["commandBuffer"], r.fields["size"], r.payload.hex(), cb, n, data.hex()))
if len(got) != len(want) or bad or not want:
    sys.exit("%d pushes recorded, %d made; %s" % (len(got), len(want), "; ".join(bad[:3])))
PY
		fail "$clock: the pushes recorded differ from the program's: $(cat "$T/$clock.check")"
	vk_env_layers_validation # the replay itself is not captured
	vk_env_run "$T/$clock.replay.log" "$R" --validate "$T/$clock.sbt" ||
		fail "$clock: replay: $(tail -5 "$T/$clock.replay.log")"
done
echo "ok"
