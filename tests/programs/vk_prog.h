/*
 * vk_prog.h - what the Vulkan test programs (tests/programs/vk_*.c) share:
 * instance/device set-up on the first physical device, buffers with their
 * memory, SPIR-V loading from the build tree, fatal error reporting and
 * option parsing.  Header-only (static inline) because each tests/programs/NAME.c
 * becomes one program and tests/support/ is linked into every test.
 *
 * The programs are test inputs for the capture layer, so they are written to
 * be valid Vulkan (no VUID- message from VK_LAYER_KHRONOS_validation) and to
 * produce results that are a pure function of their options, printed as an
 * XXH3-64 hash.  Any Vulkan failure ends the program with exit status 1 and
 * a line naming the call and the VkResult; usage errors exit 2.
 */
#ifndef TRACESMITH_VK_PROG_H
#define TRACESMITH_VK_PROG_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vulkan/vulkan.h>
#include <xxhash.h>

/* tests/shaders/vk_compute.comp's function, bit for bit: results always
 * have 0xE in their top nibble. */
static inline uint32_t vkp_compute_mix(uint32_t v, uint32_t r)
{
	v ^= r * 0x9E3779B9u;
	v ^= v >> 16;
	v *= 0x85EBCA6Bu;
	v ^= v >> 13;
	v *= 0xC2B2AE35u;
	v ^= v >> 16;
	return (v & 0x0FFFFFFFu) | 0xE0000000u;
}

/* Input word i of round r for that shader: a pure function whose top
 * nibble is always 0x1, so no input word equals a result word. */
static inline uint32_t vkp_compute_input(uint32_t i, uint32_t r)
{
	uint32_t v = i * 2246822519u + r * 3266489917u + 374761393u;
	v ^= v >> 15;
	v *= 668265263u;
	v ^= v >> 13;
	return (v & 0x0FFFFFFFu) | 0x10000000u;
}

/* Set by vkp_ctx_init; names the program in every message. */
typedef struct vkp_ctx {
	const char *prog;
	VkInstance instance;
	VkPhysicalDevice phys;
	VkDevice device;
	uint32_t qfam;
	VkQueue queue;
	VkPhysicalDeviceMemoryProperties mem_props;
	VkPhysicalDeviceProperties dev_props;
	int debug_utils; /* VK_EXT_debug_utils enabled on the instance */
	PFN_vkCmdBeginDebugUtilsLabelEXT cmd_begin_label;
	PFN_vkCmdEndDebugUtilsLabelEXT cmd_end_label;
	PFN_vkQueueInsertDebugUtilsLabelEXT queue_insert_label;
	PFN_vkSetDebugUtilsObjectNameEXT set_object_name;
} vkp_ctx;

enum {
	VKP_NEED_GRAPHICS = 1 << 0, /* the queue family must do graphics too */
	VKP_DEBUG_UTILS = 1 << 1,   /* enable VK_EXT_debug_utils (labels, names) */
	VKP_TIMELINE = 1 << 2,      /* Vulkan 1.2 with the timelineSemaphore feature */
	VKP_PIPELINE_STATS = 1 << 3, /* the pipelineStatisticsQuery feature */
	VKP_HOST_QUERY_RESET = 1 << 4, /* Vulkan 1.2 with the hostQueryReset feature */
	VKP_SYNC2 = 1 << 5,            /* Vulkan 1.3 with the synchronization2 feature */
	VKP_PRIMITIVES = 1 << 6,       /* VK_EXT_primitives_generated_query (and the
	                                  VK_EXT_transform_feedback it requires) */
	VKP_XFB = 1 << 7,              /* VK_EXT_transform_feedback with its
	                                  transformFeedback feature */
	VKP_TWO_QUEUES = 1 << 8,       /* two queues of the family (fails where
	                                  it has one) */
	VKP_UAB = 1 << 9,              /* Vulkan 1.2, update after bind for
	                                  uniform and storage buffers (fails
	                                  where the device lacks it) */
	VKP_BDA = 1 << 10,             /* Vulkan 1.2 with the bufferDeviceAddress
	                                  feature (fails where the device lacks it) */
	VKP_FLOAT64 = 1 << 11          /* the shaderFloat64 feature (fails where the
	                                  device lacks it) */
};

static inline const char *vkp_result_name(VkResult r)
{
	switch (r) {
#define VKP_X(name) case name: return #name;
	VKP_X(VK_SUCCESS) VKP_X(VK_NOT_READY) VKP_X(VK_TIMEOUT) VKP_X(VK_EVENT_SET)
	VKP_X(VK_EVENT_RESET) VKP_X(VK_INCOMPLETE) VKP_X(VK_ERROR_OUT_OF_HOST_MEMORY)
	VKP_X(VK_ERROR_OUT_OF_DEVICE_MEMORY) VKP_X(VK_ERROR_INITIALIZATION_FAILED)
	VKP_X(VK_ERROR_DEVICE_LOST) VKP_X(VK_ERROR_MEMORY_MAP_FAILED)
	VKP_X(VK_ERROR_LAYER_NOT_PRESENT) VKP_X(VK_ERROR_EXTENSION_NOT_PRESENT)
	VKP_X(VK_ERROR_FEATURE_NOT_PRESENT) VKP_X(VK_ERROR_INCOMPATIBLE_DRIVER)
	VKP_X(VK_ERROR_TOO_MANY_OBJECTS) VKP_X(VK_ERROR_FORMAT_NOT_SUPPORTED)
	VKP_X(VK_ERROR_FRAGMENTED_POOL) VKP_X(VK_ERROR_UNKNOWN)
	VKP_X(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef VKP_X
	default: return "VkResult";
	}
}

static inline void vkp_die(const vkp_ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", c && c->prog ? c->prog : "vk_prog");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Ends the program when a call fails, naming the call and its result. */
#define VKP_CHECK(c, call)                                                    \
	do {                                                                      \
		VkResult vkp_r_ = (call);                                             \
		if (vkp_r_ != VK_SUCCESS)                                             \
			vkp_die((c), "%s failed: %s (%d) at %s:%d", #call,                \
			        vkp_result_name(vkp_r_), (int)vkp_r_, __FILE__, __LINE__); \
	} while (0)

/* Parses a decimal option value in [min, max] or exits 2 naming the flag. */
static inline uint32_t vkp_parse_u32(const char *prog, const char *flag, const char *s,
                                     uint32_t min, uint32_t max)
{
	char *end = NULL;
	unsigned long long v;

	errno = 0;
	v = s ? strtoull(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || *s == '-' || v < min || v > max) {
		fprintf(stderr, "%s: %s needs a number from %u to %u, got '%s'\n", prog, flag,
		        (unsigned)min, (unsigned)max, s ? s : "");
		exit(2);
	}
	return (uint32_t)v;
}

/* The value after argv[*i] (advancing *i), or NULL when there is none. */
static inline const char *vkp_next_arg(int argc, char **argv, int *i)
{
	return *i + 1 < argc ? argv[++*i] : NULL;
}

/* Same, for options whose value is a string: exits 2 when it is missing. */
static inline const char *vkp_need_arg(const char *prog, const char *flag, int argc,
                                       char **argv, int *i)
{
	const char *v = vkp_next_arg(argc, argv, i);

	if (!v) {
		fprintf(stderr, "%s: %s needs a value\n", prog, flag);
		exit(2);
	}
	return v;
}

static inline double vkp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Creates the instance and a device with one queue on the first physical
 * device whose first matching queue family does compute (and graphics with
 * VKP_NEED_GRAPHICS). */
static inline void vkp_ctx_init(vkp_ctx *c, const char *prog, unsigned flags)
{
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO };
	const char *exts[1] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkPhysicalDevice devs[8];
	VkQueueFamilyProperties fams[16];
	uint32_t ndev = 8, nfam = 16, i;
	VkQueueFlags want = VK_QUEUE_COMPUTE_BIT;
	float prio = 1.0f;

	memset(c, 0, sizeof(*c));
	c->prog = prog;
	app.pApplicationName = prog;
	app.applicationVersion = 1;
	app.pEngineName = "tracesmith-tests";
	app.apiVersion = (flags & VKP_SYNC2)                                   ? VK_API_VERSION_1_3
	                 : (flags & (VKP_TIMELINE | VKP_HOST_QUERY_RESET | VKP_UAB | VKP_BDA))
	                         ? VK_API_VERSION_1_2
	                                                                   : VK_API_VERSION_1_1;
	ici.pApplicationInfo = &app;
	if (flags & VKP_DEBUG_UTILS) {
		ici.enabledExtensionCount = 1;
		ici.ppEnabledExtensionNames = exts;
	}
	VKP_CHECK(c, vkCreateInstance(&ici, NULL, &c->instance));
	c->debug_utils = !!(flags & VKP_DEBUG_UTILS);
	{
		VkResult r = vkEnumeratePhysicalDevices(c->instance, &ndev, devs);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE)
			vkp_die(c, "vkEnumeratePhysicalDevices failed: %s (%d)", vkp_result_name(r),
			        (int)r);
	}
	if (ndev == 0)
		vkp_die(c, "no Vulkan physical device (is mesa-vulkan-drivers installed?)");
	c->phys = devs[0];
	vkGetPhysicalDeviceProperties(c->phys, &c->dev_props);
	vkGetPhysicalDeviceMemoryProperties(c->phys, &c->mem_props);
	vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &nfam, fams);
	if (flags & VKP_NEED_GRAPHICS)
		want |= VK_QUEUE_GRAPHICS_BIT;
	for (i = 0; i < nfam; i++)
		if ((fams[i].queueFlags & want) == want)
			break;
	if (i == nfam)
		vkp_die(c, "device '%s' has no queue family with the flags 0x%x", c->dev_props.deviceName,
		        (unsigned)want);
	c->qfam = i;
	qci.queueFamilyIndex = c->qfam;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	if (flags & VKP_TWO_QUEUES) {
		static const float prios[2] = { 1.0f, 1.0f };
		if (fams[i].queueCount < 2)
			vkp_die(c, "device '%s' has %u queue%s in queue family %u: two are needed",
			        c->dev_props.deviceName, fams[i].queueCount, fams[i].queueCount == 1 ? "" : "s",
			        i);
		qci.queueCount = 2;
		qci.pQueuePriorities = prios;
	}
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	if (flags & VKP_UAB) {
		VkPhysicalDeviceVulkan12Features have = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES };
		VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have };
		vkGetPhysicalDeviceFeatures2(c->phys, &f2);
		if (!have.descriptorBindingUniformBufferUpdateAfterBind ||
		    !have.descriptorBindingStorageBufferUpdateAfterBind)
			vkp_die(c, "device '%s' has no update after bind for uniform and storage buffers",
			        c->dev_props.deviceName);
	}
	if (flags & VKP_BDA) {
		VkPhysicalDeviceVulkan12Features have = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES };
		VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have };
		vkGetPhysicalDeviceFeatures2(c->phys, &f2);
		if (!have.bufferDeviceAddress)
			vkp_die(c, "device '%s' has no bufferDeviceAddress feature", c->dev_props.deviceName);
	}
	if (flags & (VKP_TIMELINE | VKP_HOST_QUERY_RESET | VKP_UAB | VKP_BDA)) {
		static VkPhysicalDeviceVulkan12Features f12 = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
		};
		f12.bufferDeviceAddress = !!(flags & VKP_BDA);
		f12.timelineSemaphore = !!(flags & VKP_TIMELINE);
		f12.hostQueryReset = !!(flags & VKP_HOST_QUERY_RESET);
		f12.descriptorBindingUniformBufferUpdateAfterBind = !!(flags & VKP_UAB);
		f12.descriptorBindingStorageBufferUpdateAfterBind = !!(flags & VKP_UAB);
		f12.pNext = (void *)dci.pNext;
		dci.pNext = &f12;
	}
	if (flags & VKP_SYNC2) {
		static VkPhysicalDeviceVulkan13Features f13 = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
			.synchronization2 = VK_TRUE
		};
		f13.pNext = (void *)dci.pNext;
		dci.pNext = &f13;
	}
	if (flags & (VKP_PIPELINE_STATS | VKP_FLOAT64)) {
		static VkPhysicalDeviceFeatures f10;
		VkPhysicalDeviceFeatures have;
		vkGetPhysicalDeviceFeatures(c->phys, &have);
		if ((flags & VKP_PIPELINE_STATS) && !have.pipelineStatisticsQuery)
			vkp_die(c, "device '%s' has no pipelineStatisticsQuery feature",
			        c->dev_props.deviceName);
		if ((flags & VKP_FLOAT64) && !have.shaderFloat64)
			vkp_die(c, "device '%s' has no shaderFloat64 feature", c->dev_props.deviceName);
		f10.pipelineStatisticsQuery = !!(flags & VKP_PIPELINE_STATS);
		f10.shaderFloat64 = !!(flags & VKP_FLOAT64);
		dci.pEnabledFeatures = &f10;
	}
	if (flags & VKP_PRIMITIVES) {
		/* the extension requires VK_EXT_transform_feedback */
		static const char *dexts[2] = { VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME,
			                            VK_EXT_PRIMITIVES_GENERATED_QUERY_EXTENSION_NAME };
		static VkPhysicalDevicePrimitivesGeneratedQueryFeaturesEXT fpg = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRIMITIVES_GENERATED_QUERY_FEATURES_EXT,
			.primitivesGeneratedQuery = VK_TRUE
		};
		fpg.pNext = (void *)dci.pNext;
		dci.pNext = &fpg;
		dci.enabledExtensionCount = 2;
		dci.ppEnabledExtensionNames = dexts;
	}
	if (flags & VKP_XFB) {
		static const char *xexts[1] = { VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME };
		static VkPhysicalDeviceTransformFeedbackFeaturesEXT fxfb = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT,
			.transformFeedback = VK_TRUE
		};
		VkPhysicalDeviceTransformFeedbackFeaturesEXT have = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT
		};
		VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
			                             .pNext = &have };
		vkGetPhysicalDeviceFeatures2(c->phys, &f2);
		if (!have.transformFeedback)
			vkp_die(c, "device '%s' has no transformFeedback feature",
			        c->dev_props.deviceName);
		fxfb.pNext = (void *)dci.pNext;
		dci.pNext = &fxfb;
		if (!(flags & VKP_PRIMITIVES)) {
			dci.enabledExtensionCount = 1;
			dci.ppEnabledExtensionNames = xexts;
		}
	}
	VKP_CHECK(c, vkCreateDevice(c->phys, &dci, NULL, &c->device));
	vkGetDeviceQueue(c->device, c->qfam, 0, &c->queue);
	if (c->debug_utils) {
		c->cmd_begin_label = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			c->instance, "vkCmdBeginDebugUtilsLabelEXT");
		c->cmd_end_label = (PFN_vkCmdEndDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			c->instance, "vkCmdEndDebugUtilsLabelEXT");
		c->queue_insert_label = (PFN_vkQueueInsertDebugUtilsLabelEXT)vkGetInstanceProcAddr(
			c->instance, "vkQueueInsertDebugUtilsLabelEXT");
		c->set_object_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkGetInstanceProcAddr(
			c->instance, "vkSetDebugUtilsObjectNameEXT");
		if (!c->cmd_begin_label || !c->cmd_end_label || !c->queue_insert_label ||
		    !c->set_object_name)
			vkp_die(c, "VK_EXT_debug_utils is enabled but its commands are missing");
	}
}

static inline void vkp_ctx_finish(vkp_ctx *c)
{
	vkDestroyDevice(c->device, NULL);
	vkDestroyInstance(c->instance, NULL);
	c->device = VK_NULL_HANDLE;
	c->instance = VK_NULL_HANDLE;
}

/* Names an object when debug utils are on (a no-op otherwise). */
static inline void vkp_name(const vkp_ctx *c, VkObjectType type, uint64_t handle,
                            const char *name)
{
	VkDebugUtilsObjectNameInfoEXT ni = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT };

	if (!c->debug_utils)
		return;
	ni.objectType = type;
	ni.objectHandle = handle;
	ni.pObjectName = name;
	VKP_CHECK(c, c->set_object_name(c->device, &ni));
}

static inline void vkp_cmd_label_begin(const vkp_ctx *c, VkCommandBuffer cb, const char *name)
{
	VkDebugUtilsLabelEXT l = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT };

	if (!c->debug_utils)
		return;
	l.pLabelName = name;
	l.color[0] = 0.25f;
	l.color[3] = 1.0f;
	c->cmd_begin_label(cb, &l);
}

static inline void vkp_cmd_label_end(const vkp_ctx *c, VkCommandBuffer cb)
{
	if (c->debug_utils)
		c->cmd_end_label(cb);
}

static inline void vkp_queue_label(const vkp_ctx *c, const char *name)
{
	VkDebugUtilsLabelEXT l = { .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT };

	if (!c->debug_utils)
		return;
	l.pLabelName = name;
	c->queue_insert_label(c->queue, &l);
}

/* A memory type allowed by type_bits that has every flag in need; prefers
 * one that also has every flag in prefer.  Dies when there is none. */
static inline uint32_t vkp_memory_type(const vkp_ctx *c, uint32_t type_bits,
                                       VkMemoryPropertyFlags need, VkMemoryPropertyFlags prefer)
{
	uint32_t i, found = UINT32_MAX;

	for (i = 0; i < c->mem_props.memoryTypeCount; i++) {
		VkMemoryPropertyFlags f = c->mem_props.memoryTypes[i].propertyFlags;
		if (!(type_bits & (1u << i)) || (f & need) != need)
			continue;
		if ((f & prefer) == prefer)
			return i;
		if (found == UINT32_MAX)
			found = i;
	}
	if (found == UINT32_MAX)
		vkp_die(c, "no memory type with flags 0x%x in bits 0x%x", (unsigned)need,
		        (unsigned)type_bits);
	return found;
}

/* A buffer with its own allocation; map is the persistent mapping (NULL
 * when not host visible or not asked for). */
typedef struct vkp_buffer {
	VkBuffer buf;
	VkDeviceMemory mem;
	VkDeviceSize size;
	VkDeviceSize alloc_size;
	uint32_t mem_type;
	int coherent;
	void *map;
} vkp_buffer;

static inline void vkp_buffer_create(const vkp_ctx *c, vkp_buffer *b, VkDeviceSize size,
                                     VkBufferUsageFlags usage, VkMemoryPropertyFlags need,
                                     VkMemoryPropertyFlags prefer, int map)
{
	VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO };
	VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO };
	VkMemoryRequirements req;

	memset(b, 0, sizeof(*b));
	bci.size = size;
	bci.usage = usage;
	bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	VKP_CHECK(c, vkCreateBuffer(c->device, &bci, NULL, &b->buf));
	vkGetBufferMemoryRequirements(c->device, b->buf, &req);
	b->size = size;
	b->alloc_size = req.size;
	b->mem_type = vkp_memory_type(c, req.memoryTypeBits, need, prefer);
	b->coherent = !!(c->mem_props.memoryTypes[b->mem_type].propertyFlags &
	                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = b->mem_type;
	VKP_CHECK(c, vkAllocateMemory(c->device, &mai, NULL, &b->mem));
	VKP_CHECK(c, vkBindBufferMemory(c->device, b->buf, b->mem, 0));
	if (map)
		VKP_CHECK(c, vkMapMemory(c->device, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map));
}

static inline void vkp_buffer_destroy(const vkp_ctx *c, vkp_buffer *b)
{
	if (b->map)
		vkUnmapMemory(c->device, b->mem);
	vkDestroyBuffer(c->device, b->buf, NULL);
	vkFreeMemory(c->device, b->mem, NULL);
	memset(b, 0, sizeof(*b));
}

/* Flushes the whole mapping (valid for any memory type). */
static inline void vkp_buffer_flush(const vkp_ctx *c, const vkp_buffer *b)
{
	VkMappedMemoryRange r = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE };

	r.memory = b->mem;
	r.size = VK_WHOLE_SIZE;
	VKP_CHECK(c, vkFlushMappedMemoryRanges(c->device, 1, &r));
}

static inline void vkp_buffer_invalidate(const vkp_ctx *c, const vkp_buffer *b)
{
	VkMappedMemoryRange r = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE };

	r.memory = b->mem;
	r.size = VK_WHOLE_SIZE;
	VKP_CHECK(c, vkInvalidateMappedMemoryRanges(c->device, 1, &r));
}

/* Loads build/tests/shaders/NAME (found beside the program's own folder:
 * dirname(/proc/self/exe)/../shaders/NAME) as a shader module. */
static inline VkShaderModule vkp_shader_load(const vkp_ctx *c, const char *name)
{
	VkShaderModuleCreateInfo smi = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO };
	VkShaderModule mod;
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	FILE *f;
	long len;
	uint32_t *code;

	if (n <= 0)
		vkp_die(c, "cannot read /proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/../shaders/%s", exe, name);
	f = fopen(path, "rb");
	if (!f)
		vkp_die(c, "%s: %s (run make to compile tests/shaders)", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || len % 4 ||
	    fseek(f, 0, SEEK_SET) != 0)
		vkp_die(c, "%s: not a SPIR-V file (size is not a positive multiple of 4)", path);
	code = malloc((size_t)len);
	if (!code)
		vkp_die(c, "out of memory");
	if (fread(code, 1, (size_t)len, f) != (size_t)len)
		vkp_die(c, "%s: short read", path);
	fclose(f);
	if (code[0] != 0x07230203u)
		vkp_die(c, "%s: not a SPIR-V file (bad magic 0x%08x)", path, code[0]);
	smi.codeSize = (size_t)len;
	smi.pCode = code;
	VKP_CHECK(c, vkCreateShaderModule(c->device, &smi, NULL, &mod));
	free(code);
	return mod;
}

/* A compute pipeline from one shader with entry point "main". */
static inline VkPipeline vkp_compute_pipeline(const vkp_ctx *c, VkPipelineLayout layout,
                                              VkShaderModule mod)
{
	VkComputePipelineCreateInfo cpi = { .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO };
	VkPipeline p;

	cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
	cpi.stage.module = mod;
	cpi.stage.pName = "main";
	cpi.layout = layout;
	VKP_CHECK(c, vkCreateComputePipelines(c->device, VK_NULL_HANDLE, 1, &cpi, NULL, &p));
	return p;
}

/* The descriptor set layout of tests/shaders/vk_compute.comp: binding 0
 * the uniform parameters (count, round), 1 the inputs, 2 the outputs. */
static inline VkDescriptorSetLayout vkp_compute_set_layout(const vkp_ctx *c)
{
	VkDescriptorSetLayoutCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
	};
	VkDescriptorSetLayoutBinding binds[3];
	VkDescriptorSetLayout dsl;
	uint32_t k;

	memset(binds, 0, sizeof(binds));
	for (k = 0; k < 3; k++) {
		binds[k].binding = k;
		binds[k].descriptorType = k == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
		                                 : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		binds[k].descriptorCount = 1;
		binds[k].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
	}
	ci.bindingCount = 3;
	ci.pBindings = binds;
	VKP_CHECK(c, vkCreateDescriptorSetLayout(c->device, &ci, NULL, &dsl));
	return dsl;
}

/* A descriptor update template writing a set of that layout from three
 * VkDescriptorBufferInfo in a row (params, inputs, outputs). */
static inline VkDescriptorUpdateTemplate vkp_compute_set_template(const vkp_ctx *c,
                                                                  VkDescriptorSetLayout dsl)
{
	VkDescriptorUpdateTemplateCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO
	};
	VkDescriptorUpdateTemplateEntry e[3];
	VkDescriptorUpdateTemplate t;
	uint32_t k;

	memset(e, 0, sizeof(e));
	for (k = 0; k < 3; k++) {
		e[k].dstBinding = k;
		e[k].descriptorCount = 1;
		e[k].descriptorType = k == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
		                             : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		e[k].offset = k * sizeof(VkDescriptorBufferInfo);
		e[k].stride = sizeof(VkDescriptorBufferInfo);
	}
	ci.descriptorUpdateEntryCount = 3;
	ci.pDescriptorUpdateEntries = e;
	ci.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
	ci.descriptorSetLayout = dsl;
	VKP_CHECK(c, vkCreateDescriptorUpdateTemplate(c->device, &ci, NULL, &t));
	return t;
}

/* Points a set of that layout at its three buffers. */
static inline void vkp_compute_set_write(const vkp_ctx *c, VkDescriptorSet set,
                                         const vkp_buffer *params, const vkp_buffer *inputs,
                                         const vkp_buffer *outputs)
{
	VkDescriptorBufferInfo dbi[3];
	VkWriteDescriptorSet wds[3];
	uint32_t k;

	dbi[0] = (VkDescriptorBufferInfo){ params->buf, 0, 16 };
	dbi[1] = (VkDescriptorBufferInfo){ inputs->buf, 0, inputs->size };
	dbi[2] = (VkDescriptorBufferInfo){ outputs->buf, 0, outputs->size };
	memset(wds, 0, sizeof(wds));
	for (k = 0; k < 3; k++) {
		wds[k].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
		wds[k].dstSet = set;
		wds[k].dstBinding = k;
		wds[k].descriptorCount = 1;
		wds[k].descriptorType = k == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
		                               : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		wds[k].pBufferInfo = &dbi[k];
	}
	vkUpdateDescriptorSets(c->device, 3, wds, 0, NULL);
}

/* Records: dispatch the compute shader over count words, copy the outputs
 * into readback, make the copy visible to the host. */
static inline void vkp_compute_record(VkCommandBuffer cb, VkPipeline pipe, VkPipelineLayout layout,
                                      VkDescriptorSet set, uint32_t count, const vkp_buffer *work,
                                      const vkp_buffer *readback)
{
	VkBufferMemoryBarrier bmb = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER };
	VkBufferCopy region = { 0, 0, (VkDeviceSize)count * 4 };

	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	vkCmdDispatch(cb, (count + 63) / 64, 1, 1);
	bmb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	bmb.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	bmb.buffer = work->buf;
	bmb.size = VK_WHOLE_SIZE;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
	                     0, 0, NULL, 1, &bmb, 0, NULL);
	vkCmdCopyBuffer(cb, work->buf, readback->buf, 1, &region);
	bmb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	bmb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	bmb.buffer = readback->buf;
	vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
	                     NULL, 1, &bmb, 0, NULL);
}

static inline void vkp_fence_wait_reset(const vkp_ctx *c, VkFence f)
{
	VKP_CHECK(c, vkWaitForFences(c->device, 1, &f, VK_TRUE, UINT64_MAX));
	VKP_CHECK(c, vkResetFences(c->device, 1, &f));
}

/* Writes the whole file or dies. */
static inline void vkp_write_file(const vkp_ctx *c, const char *path, const void *data,
                                  size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		vkp_die(c, "%s: %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		vkp_die(c, "%s: write failed: %s", path, strerror(errno));
}

#endif
