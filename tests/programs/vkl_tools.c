/*
 * vkl_tools - what the Vulkan stack shows an application: the tools
 * vkGetPhysicalDeviceToolProperties and its EXT alias report, the device
 * extensions listed, and what vkCreateDevice / vkGet*ProcAddr do with names
 * a layer may hide.  The layer tests run it with and without
 * VK_LAYER_tracesmith (VK_INSTANCE_LAYERS) and compare.
 *
 *   vkl_tools [--ext NAME]... [--proc NAME]... [--where] [--submits N [--frame-labels]]
 *             [--debug-calls [--debug-utils]]
 *
 * Prints, one per line:
 *   api 1.3.N
 *   tool I: NAME | PURPOSES-HEX | LAYER        (core entry point)
 *   tool-ext I: NAME | PURPOSES-HEX | LAYER    (the EXT alias, when offered)
 *   ext NAME listed|absent                      (for each --ext)
 *   create NAME: RESULT                         (a device enabling it alone)
 *   proc NAME: found|null                       (vkGetDeviceProcAddr, then
 *                                                vkGetInstanceProcAddr)
 *   where NAME: FILE                            (--where: the file name of the
 *                                                shared object holding what
 *                                                vkGetDeviceProcAddr gave, or
 *                                                "-": which layer or driver a
 *                                                device command calls first)
 *   submits N labels L                          (--submits: N empty submits on
 *                                                a device without a swapchain;
 *                                                --frame-labels: a queue label
 *                                                "frame" after every second one)
 *   debug-calls F found C called               (--debug-calls: the eight
 *                                                VK_EXT_debug_utils device
 *                                                commands looked up as many
 *                                                programs do, by
 *                                                vkGetInstanceProcAddr, and
 *                                                those found called on a
 *                                                device of their own, the
 *                                                instance enabling the
 *                                                extension only with
 *                                                --debug-utils)
 * Exit 0 when every query could be made, 1 otherwise.
 */
#include <dlfcn.h> /* dladdr: _GNU_SOURCE is the build's */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#define VKL_TOOLS_MAX_ARGS 32

static void vkl_tools_print(const char *tag, uint32_t n, const VkPhysicalDeviceToolProperties *t)
{
	uint32_t i;
	for (i = 0; i < n; i++)
		printf("%s %u: %s | 0x%x | %s\n", tag, i, t[i].name, (unsigned)t[i].purposes,
		       t[i].layer);
}

static int vkl_tools_list(PFN_vkGetPhysicalDeviceToolProperties fn, VkPhysicalDevice pd,
                          const char *tag)
{
	VkPhysicalDeviceToolProperties *t;
	uint32_t n = 0, i;
	VkResult r = fn(pd, &n, NULL);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vkl_tools: %s count: %d\n", tag, r);
		return 1;
	}
	t = calloc(n ? n : 1, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++)
		t[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
	r = fn(pd, &n, t);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vkl_tools: %s: %d\n", tag, r);
		free(t);
		return 1;
	}
	vkl_tools_print(tag, n, t);
	free(t);
	return 0;
}

static int vkl_tools_has_ext(VkPhysicalDevice pd, const char *name, int *has)
{
	VkExtensionProperties *e;
	uint32_t n = 0, i;
	*has = 0;
	if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS)
		return 1;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e || vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e) != VK_SUCCESS) {
		free(e);
		return 1;
	}
	for (i = 0; i < n; i++)
		if (strcmp(e[i].extensionName, name) == 0)
			*has = 1;
	free(e);
	return 0;
}

static VkResult vkl_tools_create(VkPhysicalDevice pd, const char *ext, VkDevice *out)
{
	float prio = 1.0f;
	VkDeviceQueueCreateInfo q;
	VkDeviceCreateInfo ci;
	memset(&q, 0, sizeof(q));
	memset(&ci, 0, sizeof(ci));
	q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
	ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
	q.queueFamilyIndex = 0;
	q.queueCount = 1;
	q.pQueuePriorities = &prio;
	ci.queueCreateInfoCount = 1;
	ci.pQueueCreateInfos = &q;
	ci.enabledExtensionCount = ext ? 1 : 0;
	ci.ppEnabledExtensionNames = ext ? &ext : NULL;
	return vkCreateDevice(pd, &ci, NULL, out);
}

/* The file name (no folder) of the shared object that holds f, or "-". */
static const char *vkl_tools_where(PFN_vkVoidFunction f)
{
	Dl_info info;
	const char *slash;
	if (!f || !dladdr((void *)f, &info) || !info.dli_fname)
		return "-";
	slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

/* A VK_EXT_debug_utils command as programs look it up (libplacebo, for
 * one): vkGetInstanceProcAddr, whether or not the instance enabled the
 * extension, then vkGetDeviceProcAddr. */
static PFN_vkVoidFunction vkl_tools_debug_fn(VkInstance inst, VkDevice dev, const char *name,
                                             int *found)
{
	PFN_vkVoidFunction f = vkGetInstanceProcAddr(inst, name);
	if (!f)
		f = vkGetDeviceProcAddr(dev, name);
	*found += f != NULL;
	return f;
}

static VkDebugUtilsLabelEXT vkl_tools_label(const char *name)
{
	VkDebugUtilsLabelEXT l;
	memset(&l, 0, sizeof(l));
	l.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT;
	l.pLabelName = name;
	return l;
}

/* --debug-calls: every debug-utils device command found is called: the
 * device, its queue and a command buffer named, the device tagged, labels
 * around and inside a submitted command buffer.  Prints "debug-calls F
 * found C called"; 0 when every Vulkan call made succeeded. */
static int vkl_tools_debug_calls(VkInstance inst, VkPhysicalDevice pd)
{
	static const uint32_t tag = 0x7473u;
	int found = 0, called = 0, rc = 1;
	VkDevice dev;
	VkQueue q;
	VkCommandPool pool = VK_NULL_HANDLE;
	VkCommandBuffer cb;
	VkCommandPoolCreateInfo pci;
	VkCommandBufferAllocateInfo ai;
	VkCommandBufferBeginInfo bi;
	VkSubmitInfo si;
	VkDebugUtilsObjectNameInfoEXT ni;
	VkDebugUtilsObjectTagInfoEXT ti;
	VkDebugUtilsLabelEXT l;
	PFN_vkSetDebugUtilsObjectNameEXT set_name;
	PFN_vkSetDebugUtilsObjectTagEXT set_tag;
	PFN_vkQueueBeginDebugUtilsLabelEXT q_begin;
	PFN_vkQueueInsertDebugUtilsLabelEXT q_insert;
	PFN_vkQueueEndDebugUtilsLabelEXT q_end;
	PFN_vkCmdBeginDebugUtilsLabelEXT c_begin;
	PFN_vkCmdInsertDebugUtilsLabelEXT c_insert;
	PFN_vkCmdEndDebugUtilsLabelEXT c_end;

	if (vkl_tools_create(pd, NULL, &dev) != VK_SUCCESS) {
		fprintf(stderr, "vkl_tools: vkCreateDevice failed\n");
		return 1;
	}
	vkGetDeviceQueue(dev, 0, 0, &q);
	set_name = (PFN_vkSetDebugUtilsObjectNameEXT)vkl_tools_debug_fn(
		inst, dev, "vkSetDebugUtilsObjectNameEXT", &found);
	set_tag = (PFN_vkSetDebugUtilsObjectTagEXT)vkl_tools_debug_fn(
		inst, dev, "vkSetDebugUtilsObjectTagEXT", &found);
	q_begin = (PFN_vkQueueBeginDebugUtilsLabelEXT)vkl_tools_debug_fn(
		inst, dev, "vkQueueBeginDebugUtilsLabelEXT", &found);
	q_insert = (PFN_vkQueueInsertDebugUtilsLabelEXT)vkl_tools_debug_fn(
		inst, dev, "vkQueueInsertDebugUtilsLabelEXT", &found);
	q_end = (PFN_vkQueueEndDebugUtilsLabelEXT)vkl_tools_debug_fn(
		inst, dev, "vkQueueEndDebugUtilsLabelEXT", &found);
	c_begin = (PFN_vkCmdBeginDebugUtilsLabelEXT)vkl_tools_debug_fn(
		inst, dev, "vkCmdBeginDebugUtilsLabelEXT", &found);
	c_insert = (PFN_vkCmdInsertDebugUtilsLabelEXT)vkl_tools_debug_fn(
		inst, dev, "vkCmdInsertDebugUtilsLabelEXT", &found);
	c_end = (PFN_vkCmdEndDebugUtilsLabelEXT)vkl_tools_debug_fn(
		inst, dev, "vkCmdEndDebugUtilsLabelEXT", &found);

	memset(&pci, 0, sizeof(pci));
	pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
	if (vkCreateCommandPool(dev, &pci, NULL, &pool) != VK_SUCCESS)
		goto out;
	memset(&ai, 0, sizeof(ai));
	ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
	ai.commandPool = pool;
	ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	ai.commandBufferCount = 1;
	if (vkAllocateCommandBuffers(dev, &ai, &cb) != VK_SUCCESS)
		goto out;

	memset(&ni, 0, sizeof(ni));
	ni.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT;
	if (set_name) {
		ni.objectType = VK_OBJECT_TYPE_DEVICE;
		ni.objectHandle = (uint64_t)(uintptr_t)dev;
		ni.pObjectName = "vkl_tools device";
		if (set_name(dev, &ni) != VK_SUCCESS)
			goto out;
		ni.objectType = VK_OBJECT_TYPE_QUEUE;
		ni.objectHandle = (uint64_t)(uintptr_t)q;
		ni.pObjectName = "vkl_tools queue";
		if (set_name(dev, &ni) != VK_SUCCESS)
			goto out;
		ni.objectType = VK_OBJECT_TYPE_COMMAND_BUFFER;
		ni.objectHandle = (uint64_t)(uintptr_t)cb;
		ni.pObjectName = "vkl_tools commands";
		if (set_name(dev, &ni) != VK_SUCCESS)
			goto out;
		called += 3;
	}
	if (set_tag) {
		memset(&ti, 0, sizeof(ti));
		ti.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_TAG_INFO_EXT;
		ti.objectType = VK_OBJECT_TYPE_DEVICE;
		ti.objectHandle = (uint64_t)(uintptr_t)dev;
		ti.tagName = 1;
		ti.tagSize = sizeof(tag);
		ti.pTag = &tag;
		if (set_tag(dev, &ti) != VK_SUCCESS)
			goto out;
		called++;
	}

	memset(&bi, 0, sizeof(bi));
	bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
	bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	if (vkBeginCommandBuffer(cb, &bi) != VK_SUCCESS)
		goto out;
	l = vkl_tools_label("vkl_tools pass");
	if (c_begin) {
		c_begin(cb, &l);
		called++;
	}
	l = vkl_tools_label("vkl_tools mark");
	if (c_insert) {
		c_insert(cb, &l);
		called++;
	}
	if (c_begin && c_end) {
		c_end(cb);
		called++;
	}
	if (vkEndCommandBuffer(cb) != VK_SUCCESS)
		goto out;
	l = vkl_tools_label("vkl_tools submit");
	if (q_begin) {
		q_begin(q, &l);
		called++;
	}
	memset(&si, 0, sizeof(si));
	si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	if (vkQueueSubmit(q, 1, &si, VK_NULL_HANDLE) != VK_SUCCESS)
		goto out;
	l = vkl_tools_label("vkl_tools submitted");
	if (q_insert) {
		q_insert(q, &l);
		called++;
	}
	if (q_begin && q_end) {
		q_end(q);
		called++;
	}
	if (vkQueueWaitIdle(q) != VK_SUCCESS)
		goto out;
	printf("debug-calls %d found %d called\n", found, called);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "vkl_tools: --debug-calls: a Vulkan call failed\n");
	if (pool)
		vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyDevice(dev, NULL);
	return rc;
}

int main(int argc, char **argv)
{
	const char *exts[VKL_TOOLS_MAX_ARGS], *procs[VKL_TOOLS_MAX_ARGS];
	const char *debug_utils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	int next = 0, nproc = 0, i, rc = 1, has, submits = 0, frame_labels = 0, where = 0;
	int debug_calls = 0, debug_ext = 0;
	VkApplicationInfo app;
	VkInstanceCreateInfo ici;
	VkInstance inst;
	VkPhysicalDevice pd;
	VkPhysicalDeviceProperties props;
	PFN_vkGetPhysicalDeviceToolProperties ext_fn;
	VkDevice dev = VK_NULL_HANDLE;
	uint32_t n = 1;
	VkResult r;

	for (i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--ext") == 0 && next < VKL_TOOLS_MAX_ARGS)
			exts[next++] = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--proc") == 0 && nproc < VKL_TOOLS_MAX_ARGS)
			procs[nproc++] = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--submits") == 0)
			submits = atoi(argv[++i]);
		else if (strcmp(argv[i], "--frame-labels") == 0)
			frame_labels = 1;
		else if (strcmp(argv[i], "--where") == 0)
			where = 1;
		else if (strcmp(argv[i], "--debug-calls") == 0)
			debug_calls = 1;
		else if (strcmp(argv[i], "--debug-utils") == 0)
			debug_ext = 1;
		else {
			fprintf(stderr, "usage: vkl_tools [--ext NAME]... [--proc NAME]... [--where] "
			                "[--submits N [--frame-labels]] [--debug-calls [--debug-utils]]\n");
			return 2;
		}
	}
	memset(&app, 0, sizeof(app));
	memset(&ici, 0, sizeof(ici));
	app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
	ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
	app.apiVersion = VK_API_VERSION_1_3;
	app.pApplicationName = "vkl_tools";
	ici.pApplicationInfo = &app;
	if (frame_labels || debug_ext) {
		ici.enabledExtensionCount = 1;
		ici.ppEnabledExtensionNames = &debug_utils;
	}
	r = vkCreateInstance(&ici, NULL, &inst);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vkl_tools: vkCreateInstance: %d\n", r);
		goto out;
	}
	r = vkEnumeratePhysicalDevices(inst, &n, &pd);
	if (r < 0 || n == 0) {
		fprintf(stderr, "vkl_tools: no physical device (%d)\n", r);
		goto out_instance;
	}
	vkGetPhysicalDeviceProperties(pd, &props);
	printf("api 1.%u.%u\n", VK_API_VERSION_MINOR(props.apiVersion),
	       VK_API_VERSION_PATCH(props.apiVersion));
	if (vkl_tools_list(vkGetPhysicalDeviceToolProperties, pd, "tool"))
		goto out_instance;
	ext_fn = (PFN_vkGetPhysicalDeviceToolProperties)vkGetInstanceProcAddr(
		inst, "vkGetPhysicalDeviceToolPropertiesEXT");
	if (ext_fn && vkl_tools_list(ext_fn, pd, "tool-ext"))
		goto out_instance;
	for (i = 0; i < next; i++) {
		VkDevice d = VK_NULL_HANDLE;
		if (vkl_tools_has_ext(pd, exts[i], &has))
			goto out_instance;
		printf("ext %s %s\n", exts[i], has ? "listed" : "absent");
		r = vkl_tools_create(pd, exts[i], &d);
		printf("create %s: %d\n", exts[i], r);
		if (r == VK_SUCCESS)
			vkDestroyDevice(d, NULL);
	}
	if (submits > 0) {
		PFN_vkQueueInsertDebugUtilsLabelEXT label_fn =
			(PFN_vkQueueInsertDebugUtilsLabelEXT)vkGetInstanceProcAddr(
				inst, "vkQueueInsertDebugUtilsLabelEXT");
		VkQueue q;
		int labels = 0;
		r = vkl_tools_create(pd, NULL, &dev);
		if (r != VK_SUCCESS || (frame_labels && !label_fn)) {
			fprintf(stderr, "vkl_tools: vkCreateDevice: %d\n", r);
			goto out_instance;
		}
		vkGetDeviceQueue(dev, 0, 0, &q);
		for (i = 0; i < submits; i++) {
			if (vkQueueSubmit(q, 0, NULL, VK_NULL_HANDLE) != VK_SUCCESS)
				break;
			if (frame_labels && i % 2 == 1) {
				VkDebugUtilsLabelEXT l;
				memset(&l, 0, sizeof(l));
				l.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT;
				l.pLabelName = "frame";
				label_fn(q, &l);
				labels++;
			}
		}
		vkQueueWaitIdle(q);
		vkDestroyDevice(dev, NULL);
		dev = VK_NULL_HANDLE;
		printf("submits %d labels %d\n", i, labels);
		if (i != submits)
			goto out_instance;
	}
	if (debug_calls && vkl_tools_debug_calls(inst, pd))
		goto out_instance;
	if (nproc) {
		r = vkl_tools_create(pd, NULL, &dev);
		if (r != VK_SUCCESS) {
			fprintf(stderr, "vkl_tools: vkCreateDevice: %d\n", r);
			goto out_instance;
		}
		for (i = 0; i < nproc; i++) {
			PFN_vkVoidFunction f = vkGetDeviceProcAddr(dev, procs[i]);
			printf("proc %s: %s %s\n", procs[i], f ? "found" : "null",
			       vkGetInstanceProcAddr(inst, procs[i]) ? "found" : "null");
			if (where)
				printf("where %s: %s\n", procs[i], vkl_tools_where(f));
		}
		vkDestroyDevice(dev, NULL);
	}
	rc = 0;
out_instance:
	vkDestroyInstance(inst, NULL);
out:
	return rc;
}
