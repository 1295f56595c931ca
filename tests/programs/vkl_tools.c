/*
 * vkl_tools - what the Vulkan stack shows an application: the tools
 * vkGetPhysicalDeviceToolProperties and its EXT alias report, the device
 * extensions listed, and what vkCreateDevice / vkGet*ProcAddr do with names
 * a layer may hide.  The layer tests run it with and without
 * VK_LAYER_tracesmith (VK_INSTANCE_LAYERS) and compare.
 *
 *   vkl_tools [--ext NAME]... [--proc NAME]... [--where] [--submits N [--frame-labels]]
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

int main(int argc, char **argv)
{
	const char *exts[VKL_TOOLS_MAX_ARGS], *procs[VKL_TOOLS_MAX_ARGS];
	const char *debug_utils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	int next = 0, nproc = 0, i, rc = 1, has, submits = 0, frame_labels = 0, where = 0;
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
		else {
			fprintf(stderr, "usage: vkl_tools [--ext NAME]... [--proc NAME]... [--where] "
			                "[--submits N [--frame-labels]]\n");
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
	if (frame_labels) {
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
