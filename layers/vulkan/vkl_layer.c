/*
 * vkl_layer.c - how VK_LAYER_tracesmith joins the loader's chain, and what
 * it lets the application see.
 *
 * The loader negotiates interface version 2 and reaches everything through
 * our vkGetInstanceProcAddr / vkGetDeviceProcAddr (the only exports, with
 * vkNegotiateLoaderLayerInterfaceVersion: see vkl.map).  vkCreateInstance
 * and vkCreateDevice take the next layer's GetProcAddr from the loader's
 * link info in pNext, fill the generated dispatch table and file it under
 * the new handle's loader key.
 *
 * Hiding: an extension the codec does not carry, one this layer refuses
 * (its data bypasses the layer: external memory and synchronisation, host
 * pointers), and anything newer than our vk.xml is left out of device
 * extension enumeration, and refused (VK_ERROR_EXTENSION_NOT_PRESENT) when
 * an instance or device enables it anyway (the loader enumerates instance
 * extensions without asking explicit layers).  Their commands are not
 * offered by vkGet*ProcAddr, and structures the codec does not carry are
 * unlinked from feature and property queries so the driver never fills
 * them.  The API version a driver reports is clamped to our vk.xml's.
 * Each hidden name is logged once at info level.
 *
 * The layer reports itself as a tool (vkGetPhysicalDeviceToolProperties
 * and its EXT alias), before the tools further down, and advertises
 * VK_EXT_tool_info when the driver does not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl.h"
#include "serializer/sbt_vk.h"

/* ---- process-wide state -------------------------------------------------- */

/* Configuration read once; the log-once set of hidden names, under hidden_mu. */
#define VKL_HIDDEN_SLOTS 512u
static struct {
	pthread_once_t once;
	vkl_config cfg;
	pthread_mutex_t hidden_mu;
	uint64_t hidden[VKL_HIDDEN_SLOTS]; /* name hashes already logged; 0 = free */
} vkl_g = {PTHREAD_ONCE_INIT, {0, 1, 0, -1}, PTHREAD_MUTEX_INITIALIZER, {0}};

static void vkl_global_init(void)
{
	const char *v = getenv("TRACESMITH_VK_FRAME_SUBMITS");
	vkl_g.cfg.disabled = cap_config_get()->disabled;
#ifdef VKL_DISPATCH_ONLY
	vkl_g.cfg.disabled = 1; /* the hand-written wrappers pass through too */
#endif
	vkl_g.cfg.frame_submits = 1;
	if (v && *v) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || n > UINT32_MAX)
			CAP_WARN("TRACESMITH_VK_FRAME_SUBMITS='%s' is not a count; using 1", v);
		else
			vkl_g.cfg.frame_submits = (uint32_t)n;
	}
	v = getenv("TRACESMITH_VK_SNAPSHOT_STAGING");
	vkl_g.cfg.snapshot_staging = v && strcmp(v, "1") == 0;
	vkl_g.cfg.lead_in = -1;
	v = getenv("TRACESMITH_VK_LEAD_IN");
	if (v && *v) {
		char *end;
		unsigned long long n = strtoull(v, &end, 10);
		if (!strcmp(v, "all"))
			vkl_g.cfg.lead_in = -2;
		else if (*v == '-' || *end || n > INT64_MAX)
			CAP_WARN("TRACESMITH_VK_LEAD_IN='%s' is neither a count nor 'all'; using the "
			         "default", v);
		else
			vkl_g.cfg.lead_in = (int64_t)n;
	}
}

const vkl_config *vkl_config_get(void)
{
	pthread_once(&vkl_g.once, vkl_global_init);
	return &vkl_g.cfg;
}

/* ---- each thread's last device (vkl.h, vkl_dev_cache) --------------------- */

_Thread_local vkl_dev_cache vkl_dev_cache_t __attribute__((tls_model("initial-exec")));

/* The registered threads' entries, under mu; key unregisters at exit. */
static struct {
	pthread_once_t once;
	pthread_mutex_t mu;
	vkl_dev_cache *head;
	pthread_key_t key;
} vkl_dev_caches = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/* Thread exit: off the list (the storage goes with the thread). */
static void vkl_dev_cache_exit(void *arg)
{
	vkl_dev_cache *c = arg, **pp;
	pthread_mutex_lock(&vkl_dev_caches.mu);
	for (pp = &vkl_dev_caches.head; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	pthread_mutex_unlock(&vkl_dev_caches.mu);
	atomic_store_explicit(&c->key, 0, memory_order_relaxed);
	c->registered = 0;
}

/* A fork child has one thread, the forking one: the other entries are
 * storage of threads that do not exist there (their memory may be reused). */
static void vkl_dev_cache_atfork_prepare(void)
{
	pthread_mutex_lock(&vkl_dev_caches.mu);
}

static void vkl_dev_cache_atfork_parent(void)
{
	pthread_mutex_unlock(&vkl_dev_caches.mu);
}

static void vkl_dev_cache_atfork_child(void)
{
	vkl_dev_cache *c = &vkl_dev_cache_t;
	vkl_dev_caches.head = NULL;
	if (c->registered) {
		c->next = NULL;
		vkl_dev_caches.head = c;
	}
	pthread_mutex_unlock(&vkl_dev_caches.mu);
}

static void vkl_dev_cache_init(void)
{
	pthread_key_create(&vkl_dev_caches.key, vkl_dev_cache_exit);
	pthread_atfork(vkl_dev_cache_atfork_prepare, vkl_dev_cache_atfork_parent,
	               vkl_dev_cache_atfork_child);
}

void vkl_dev_cache_fill(uintptr_t key, const vkl_device *d)
{
	vkl_dev_cache *c = &vkl_dev_cache_t;
	if (!c->registered) {
		pthread_once(&vkl_dev_caches.once, vkl_dev_cache_init);
		pthread_mutex_lock(&vkl_dev_caches.mu);
		c->next = vkl_dev_caches.head;
		vkl_dev_caches.head = c;
		pthread_mutex_unlock(&vkl_dev_caches.mu);
		pthread_setspecific(vkl_dev_caches.key, c);
		c->registered = 1;
	}
	atomic_store_explicit(&c->dev, d, memory_order_relaxed);
	atomic_store_explicit(&c->key, key, memory_order_relaxed);
}

void vkl_dev_cache_forget(const void *device)
{
	uintptr_t key = (uintptr_t)vkl_key(device);
	vkl_dev_cache *c;
	unsigned n = 0;
	pthread_mutex_lock(&vkl_dev_caches.mu);
	for (c = vkl_dev_caches.head; c; c = c->next) {
		if (atomic_load_explicit(&c->key, memory_order_relaxed) == key) {
			atomic_store_explicit(&c->key, 0, memory_order_relaxed);
			n++;
		}
	}
	pthread_mutex_unlock(&vkl_dev_caches.mu);
	CAP_DEBUG("Vulkan layer: device %p destroyed: the last device of %u thread(s) cleared",
	          device, n);
}

/* 1 the first time `kind name` is seen (so it is logged once). */
static int vkl_first_hidden(const char *kind, const char *name)
{
	uint64_t h = 1469598103934665603ull;
	const char *c;
	size_t i, n;
	int first = 0;
	for (c = kind; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	for (c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 1099511628211ull;
	h |= 1;
	pthread_mutex_lock(&vkl_g.hidden_mu);
	for (i = h % VKL_HIDDEN_SLOTS, n = 0; n < VKL_HIDDEN_SLOTS;
	     n++, i = (i + 1) % VKL_HIDDEN_SLOTS) {
		if (vkl_g.hidden[i] == h)
			break;
		if (vkl_g.hidden[i] == 0) {
			vkl_g.hidden[i] = h;
			first = 1;
			break;
		}
	}
	pthread_mutex_unlock(&vkl_g.hidden_mu);
	return first;
}

/* ---- what the application may see -------------------------------------- */

const char *vkl_extension_hidden_reason(const char *name)
{
	size_t i;
	/* listed in scripts/vkgen/overrides.py, generated into vkl_dispatch.c */
	for (i = 0; i < vkl_refused_exts_count; i++)
		if (strcmp(name, vkl_refused_exts[i].name) == 0)
			return vkl_refused_exts[i].why;
	if (strcmp(name, VK_EXT_TOOLING_INFO_EXTENSION_NAME) == 0)
		return NULL;
	if (!sbt_vk_extension_carried(name))
		return "the codec does not carry it (unknown to vk.xml " VKL_VKXML_VERSION
		       ", or excluded)";
	return NULL;
}

int vkl_extension_visible(const char *name)
{
	return vkl_extension_hidden_reason(name) == NULL;
}

static void vkl_log_hidden_ext(const char *name)
{
	const char *why = vkl_extension_hidden_reason(name);
	if (why && vkl_first_hidden("ext", name))
		CAP_INFO("Vulkan layer hides extension %s: %s", name, why);
}

void vkl_chain_strip(void *head, vkl_chain_cut *cut, const char *what)
{
	VkBaseOutStructure *prev = head;
	cut->n = 0;
	while (prev && prev->pNext) {
		VkBaseOutStructure *s = prev->pNext;
		if (!sbt_vk_stype_carried(s->sType) && cut->n < VKL_CHAIN_MAX) {
			char name[48];
			snprintf(name, sizeof(name), "sType %d", (int)s->sType);
			if (vkl_first_hidden(what, name))
				CAP_INFO("Vulkan layer hides structure %s from %s: the codec does "
				         "not carry it",
				         name, what);
			cut->prev[cut->n] = prev;
			cut->cut[cut->n] = s;
			cut->n++;
			prev->pNext = s->pNext;
			continue;
		}
		prev = s;
	}
}

void vkl_chain_restore(vkl_chain_cut *cut)
{
	while (cut->n > 0) {
		cut->n--;
		cut->prev[cut->n]->pNext = cut->cut[cut->n];
	}
}

/* ---- entry-point lookup ------------------------------------------------- */

static const vkl_proc *vkl_proc_find(const char *name)
{
	size_t lo = 0, hi = vkl_procs_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, vkl_procs[mid].name);
		if (c == 0)
			return &vkl_procs[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Our entry point for name at a level, or NULL (logged) when hidden. */
static const vkl_proc *vkl_proc_visible(const char *name)
{
	const vkl_proc *p = vkl_proc_find(name);
	if (p && !sbt_vk_cmd_carried_by_name(name) &&
	    strcmp(name, "vkGetPhysicalDeviceToolPropertiesEXT") != 0)
		p = NULL;
	if (!p && strncmp(name, "vk", 2) == 0 && vkl_first_hidden("cmd", name))
		CAP_INFO("Vulkan layer hides command %s: not carried by the codec "
		         "(unknown to vk.xml " VKL_VKXML_VERSION ", another platform, or excluded)",
		         name);
	return p;
}

static PFN_vkVoidFunction vkl_table_entry(const void *table, uint16_t offset)
{
	PFN_vkVoidFunction f;
	memcpy(&f, (const char *)table + offset, sizeof(f));
	return f;
}

/* Whether a disabled layer hands out the next layer's own entry point for
 * the device command p, so that the command does not pass through the
 * layer at all (TRACESMITH_DISABLE=1 costs a command nothing).  The names
 * offered stay the layer's: what it hides when recording it hides here
 * too, so a program sees the same commands either way.  vkDestroyDevice
 * stays ours, to forget the device.  The dispatch-only build keeps its
 * wrappers: it is built to measure them. */
static int vkl_passes_by(const vkl_proc *p)
{
#ifdef VKL_DISPATCH_ONLY
	(void)p;
	return 0;
#else
	return vkl_config_get()->disabled && p->level == VKL_LEVEL_DEVICE &&
	       p->fn != (PFN_vkVoidFunction)vkl_o_vkDestroyDevice;
#endif
}

/* The entry point of p handed out: the wrappers with a keep-first path are
 * handed out without it where the layer is disabled and still in the path
 * (the dispatch-only build: vkl_passes_by; vkl_proc.untracked)
 * and, with the record-first path in its place, where the run records
 * without tracking (no trigger, no periodic snapshots:
 * vkl_proc.record_first). */
static PFN_vkVoidFunction vkl_proc_entry(const vkl_proc *p)
{
	if (p->untracked && vkl_config_get()->disabled)
		return p->untracked;
	if (p->record_first && !vkl_trim_on())
		return p->record_first;
	return p->fn;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_o_vkGetInstanceProcAddr(VkInstance instance,
                                                                     const char *pName)
{
	const vkl_proc *p;
	vkl_instance *inst;
	PFN_vkVoidFunction next;
	if (!pName)
		return NULL;
	if (strcmp(pName, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)vkl_o_vkGetInstanceProcAddr;
	p = vkl_proc_visible(pName);
	if (!p)
		return NULL;
	if (p->level == VKL_LEVEL_GLOBAL)
		return p->fn;
	/* Layers above ours look vkCreateDevice up with no instance, through
	 * the next vkGetInstanceProcAddr their link info gives (a pattern many
	 * layers share: MangoHud, vkBasalt; the validation layer answers it):
	 * with NULL here, their vkCreateDevice failed or called NULL.  Ours
	 * and the entry points the layer answers itself need no instance; the
	 * others are looked up in it. */
	if (!instance)
		return p->offset == VKL_PROC_ALWAYS ||
		               p->fn == (PFN_vkVoidFunction)vkl_o_vkCreateDevice
		       ? p->fn
		       : NULL;
	inst = vkl_instance_get(instance);
	if (p->offset == VKL_PROC_ALWAYS)
		return p->fn;
	if (p->level == VKL_LEVEL_INSTANCE)
		return vkl_table_entry(&inst->table, p->offset) ? p->fn : NULL;
	/* a device command asked of the instance: offered if the chain has it */
	next = inst->next_gipa(inst->handle, pName);
	if (!next)
		return NULL;
	return vkl_passes_by(p) ? next : vkl_proc_entry(p);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_o_vkGetDeviceProcAddr(VkDevice device,
                                                                   const char *pName)
{
	const vkl_proc *p;
	vkl_device *d;
	if (!pName || !device)
		return NULL;
	if (strcmp(pName, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)vkl_o_vkGetDeviceProcAddr;
	p = vkl_proc_visible(pName);
	if (!p || p->level != VKL_LEVEL_DEVICE)
		return NULL;
	d = vkl_device_get(device);
	if (p->offset == VKL_PROC_ALWAYS)
		return p->fn;
	if (!vkl_table_entry(&d->table, p->offset))
		return NULL;
	return vkl_passes_by(p) ? vkl_table_entry(&d->table, p->offset) : vkl_proc_entry(p);
}

/* ---- exports ---------------------------------------------------------------- */

__attribute__((visibility("default"))) VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *pVersionStruct)
{
	if (!pVersionStruct || pVersionStruct->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (pVersionStruct->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	pVersionStruct->loaderLayerInterfaceVersion = 2;
	pVersionStruct->pfnGetInstanceProcAddr = vkl_o_vkGetInstanceProcAddr;
	pVersionStruct->pfnGetDeviceProcAddr = vkl_o_vkGetDeviceProcAddr;
	pVersionStruct->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}

/* For loaders that look the names up directly (interface version 0/1 style). */
__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vkGetInstanceProcAddr(VkInstance instance, const char *pName)
{
	return vkl_o_vkGetInstanceProcAddr(instance, pName);
}

__attribute__((visibility("default"))) VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vkGetDeviceProcAddr(VkDevice device, const char *pName)
{
	return vkl_o_vkGetDeviceProcAddr(device, pName);
}

/* ---- instance ------------------------------------------------------------- */

static VkLayerInstanceCreateInfo *vkl_instance_link(const VkInstanceCreateInfo *ci)
{
	const VkBaseInStructure *s = ci->pNext;
	for (; s; s = s->pNext) {
		VkLayerInstanceCreateInfo *li = (VkLayerInstanceCreateInfo *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    li->function == VK_LAYER_LINK_INFO)
			return li;
	}
	return NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkCreateInstance(const VkInstanceCreateInfo *pCreateInfo,
                                                      const VkAllocationCallbacks *pAllocator,
                                                      VkInstance *pInstance)
{
	VkLayerInstanceCreateInfo *link = vkl_instance_link(pCreateInfo);
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkCreateInstance create;
	vkl_instance *inst;
	vkl_settings_link hidden;
	VkResult ret;
	uint32_t i;

	if (!link || !link->u.pLayerInfo) {
		CAP_ERROR("Vulkan layer: vkCreateInstance without the loader's link info");
		ret = VK_ERROR_INITIALIZATION_FAILED;
		goto out;
	}
	vkl_settings_apply(pCreateInfo); /* before the configuration is read */
	vkl_config_get();
	for (i = 0; i < pCreateInfo->enabledExtensionCount; i++) {
		const char *e = pCreateInfo->ppEnabledExtensionNames[i];
		if (!vkl_extension_visible(e)) {
			CAP_WARN("Vulkan layer refuses instance extension %s: %s", e,
			         vkl_extension_hidden_reason(e));
			ret = VK_ERROR_EXTENSION_NOT_PRESENT;
			goto out;
		}
	}
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create) {
		ret = VK_ERROR_INITIALIZATION_FAILED;
		goto out;
	}
	inst = calloc(1, sizeof(*inst));
	if (!inst) {
		ret = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto out;
	}
	/* the next layer finds its own link */
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	vkl_settings_hide(pCreateInfo, 0, &hidden);
	ret = create(pCreateInfo, pAllocator, pInstance);
	vkl_settings_restore(&hidden);
	if (ret != VK_SUCCESS)
		goto out_free;
	inst->handle = *pInstance;
	inst->next_gipa = gipa;
	inst->disabled = vkl_config_get()->disabled;
	inst->api_version = pCreateInfo->pApplicationInfo && pCreateInfo->pApplicationInfo->apiVersion
	                        ? pCreateInfo->pApplicationInfo->apiVersion
	                        : VK_API_VERSION_1_0;
	vkl_instance_table_fill(&inst->table, *pInstance, gipa);
	if (vkl_map_insert(vkl_key(*pInstance), inst) != 0) {
		CAP_ERROR("Vulkan layer: too many live instances and devices");
		inst->table.DestroyInstance(*pInstance, pAllocator);
		ret = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto out_free;
	}
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkCreateInstance a;
		uint64_t seq;
		a.pCreateInfo = pCreateInfo;
		a.pAllocator = pAllocator;
		a.pInstance = pInstance;
		a.ret = ret;
		vkl_settings_hide(pCreateInfo, 1, &hidden); /* not a structure of 1.3.239 */
		seq = vkl_emit(SBT_VK_CMD_vkCreateInstance, 0, &a);
		vkl_settings_restore(&hidden);
		vkl_objects_add(VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)*pInstance, seq, 0, NULL);
	}
	goto out;

out_free:
	free(inst);
out:
	return ret;
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkDestroyInstance(VkInstance instance,
                                                   const VkAllocationCallbacks *pAllocator)
{
	vkl_instance *inst;
	if (!instance)
		return;
	inst = vkl_instance_get(instance);
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkDestroyInstance a;
		a.instance = instance;
		a.pAllocator = pAllocator;
		vkl_emit(SBT_VK_CMD_vkDestroyInstance, 0, &a);
		vkl_objects_remove(VK_OBJECT_TYPE_INSTANCE, (uint64_t)(uintptr_t)instance);
	}
	vkl_map_remove(vkl_key(instance));
	inst->table.DestroyInstance(instance, pAllocator);
	free(inst);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkEnumerateInstanceExtensionProperties(
	const char *pLayerName, uint32_t *pPropertyCount, VkExtensionProperties *pProperties)
{
	if (!pLayerName || strcmp(pLayerName, VKL_LAYER_NAME) != 0)
		return VK_ERROR_LAYER_NOT_PRESENT;
	(void)pProperties;
	*pPropertyCount = 0;
	return VK_SUCCESS;
}

static VkResult vkl_copy_out(const VkExtensionProperties *src, uint32_t n, uint32_t *pCount,
                             VkExtensionProperties *dst);

/*
 * The loader lists instance extensions without asking explicit layers; an
 * implicit layer may filter the list through this pre-instance function
 * (named in the implicit manifest, VkLayer_tracesmith_implicit.json.in).
 * tscapture enables the layer that way, so the programs it runs never see
 * an instance extension we cannot record.  Under VK_INSTANCE_LAYERS the
 * list stays the loader's, and vkCreateInstance refuses such an extension.
 */
VKAPI_ATTR VkResult VKAPI_CALL vkl_pre_vkEnumerateInstanceExtensionProperties(
	const VkEnumerateInstanceExtensionPropertiesChain *chain, const char *pLayerName,
	uint32_t *pPropertyCount, VkExtensionProperties *pProperties)
{
	VkExtensionProperties *all = NULL;
	uint32_t n = 0, i, kept = 0;
	VkResult ret;
	if (pLayerName || vkl_config_get()->disabled)
		return chain->pfnNextLayer(chain->pNextLink, pLayerName, pPropertyCount, pProperties);
	do {
		free(all);
		all = NULL;
		ret = chain->pfnNextLayer(chain->pNextLink, NULL, &n, NULL);
		if (ret != VK_SUCCESS)
			return ret;
		all = malloc((n + 1) * sizeof(*all));
		if (!all)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		ret = chain->pfnNextLayer(chain->pNextLink, NULL, &n, all);
	} while (ret == VK_INCOMPLETE);
	if (ret == VK_SUCCESS) {
		for (i = 0; i < n; i++) {
			if (!vkl_extension_visible(all[i].extensionName)) {
				vkl_log_hidden_ext(all[i].extensionName);
				continue;
			}
			all[kept++] = all[i];
		}
		ret = vkl_copy_out(all, kept, pPropertyCount, pProperties);
	}
	free(all);
	return ret;
}

static void vkl_layer_properties(VkLayerProperties *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->layerName, sizeof(p->layerName), "%s", VKL_LAYER_NAME);
	snprintf(p->description, sizeof(p->description), "%s", VKL_LAYER_DESCRIPTION);
	p->specVersion = VKL_API_VERSION;
	p->implementationVersion = 1;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkEnumerateInstanceLayerProperties(uint32_t *pPropertyCount,
                                                                        VkLayerProperties *pProperties)
{
	if (!pProperties) {
		*pPropertyCount = 1;
		return VK_SUCCESS;
	}
	if (*pPropertyCount < 1)
		return VK_INCOMPLETE;
	vkl_layer_properties(pProperties);
	*pPropertyCount = 1;
	return VK_SUCCESS;
}

/* ---- physical-device queries ---------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkEnumerateDeviceLayerProperties(
	VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount, VkLayerProperties *pProperties)
{
	(void)physicalDevice;
	return vkl_o_vkEnumerateInstanceLayerProperties(pPropertyCount, pProperties);
}

/* Copy n properties out with the count/VK_INCOMPLETE protocol. */
static VkResult vkl_copy_out(const VkExtensionProperties *src, uint32_t n, uint32_t *pCount,
                             VkExtensionProperties *dst)
{
	if (!dst) {
		*pCount = n;
		return VK_SUCCESS;
	}
	if (*pCount < n) {
		memcpy(dst, src, *pCount * sizeof(*dst));
		return VK_INCOMPLETE;
	}
	memcpy(dst, src, n * sizeof(*dst));
	*pCount = n;
	return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkEnumerateDeviceExtensionProperties(
	VkPhysicalDevice physicalDevice, const char *pLayerName, uint32_t *pPropertyCount,
	VkExtensionProperties *pProperties)
{
	static const VkExtensionProperties tool_info = {VK_EXT_TOOLING_INFO_EXTENSION_NAME,
	                                                VK_EXT_TOOLING_INFO_SPEC_VERSION};
	vkl_instance *inst;
	VkExtensionProperties *all = NULL;
	uint32_t n = 0, kept = 0, i;
	int have_tool_info = 0;
	VkResult ret;

	if (pLayerName && strcmp(pLayerName, VKL_LAYER_NAME) == 0) {
		ret = vkl_copy_out(&tool_info, 1, pPropertyCount, pProperties);
		goto out;
	}
	inst = vkl_instance_get(physicalDevice);
	if (pLayerName) {
		ret = inst->table.EnumerateDeviceExtensionProperties(physicalDevice, pLayerName,
		                                                      pPropertyCount, pProperties);
		goto out;
	}
	do {
		free(all);
		all = NULL;
		ret = inst->table.EnumerateDeviceExtensionProperties(physicalDevice, NULL, &n, NULL);
		if (ret != VK_SUCCESS)
			goto out;
		all = malloc((n + 1) * sizeof(*all));
		if (!all) {
			ret = VK_ERROR_OUT_OF_HOST_MEMORY;
			goto out;
		}
		ret = inst->table.EnumerateDeviceExtensionProperties(physicalDevice, NULL, &n, all);
	} while (ret == VK_INCOMPLETE);
	if (ret != VK_SUCCESS)
		goto out_free;
	for (i = 0; i < n; i++) {
		if (!vkl_extension_visible(all[i].extensionName)) {
			vkl_log_hidden_ext(all[i].extensionName);
			continue;
		}
		if (strcmp(all[i].extensionName, VK_EXT_TOOLING_INFO_EXTENSION_NAME) == 0)
			have_tool_info = 1;
		all[kept++] = all[i];
	}
	if (!have_tool_info)
		all[kept++] = tool_info;
	ret = vkl_copy_out(all, kept, pPropertyCount, pProperties);
	if (!vkl_config_get()->disabled && pProperties) {
		sbt_vk_args_vkEnumerateDeviceExtensionProperties a;
		a.physicalDevice = physicalDevice;
		a.pLayerName = pLayerName;
		a.pPropertyCount = pPropertyCount;
		a.pProperties = pProperties;
		a.ret = ret;
		vkl_emit(SBT_VK_CMD_vkEnumerateDeviceExtensionProperties, 0, &a);
	}
out_free:
	free(all);
out:
	return ret;
}

static void vkl_tool_fill(VkPhysicalDeviceToolProperties *t)
{
	void *next = t->pNext;
	VkStructureType st = t->sType;
	memset(t, 0, sizeof(*t));
	t->sType = st;
	t->pNext = next;
	snprintf(t->name, sizeof(t->name), "%s", VKL_TOOL_NAME);
	snprintf(t->version, sizeof(t->version), "%s", VKL_TOOL_VERSION);
	t->purposes = VK_TOOL_PURPOSE_TRACING_BIT;
	snprintf(t->description, sizeof(t->description), "%s", VKL_LAYER_DESCRIPTION);
	snprintf(t->layer, sizeof(t->layer), "%s", VKL_LAYER_NAME);
}

static VkResult vkl_tools(VkPhysicalDevice pd, uint32_t *pToolCount,
                          VkPhysicalDeviceToolProperties *pTools, uint32_t cmd, int record)
{
	vkl_instance *inst = vkl_instance_get(pd);
	PFN_vkGetPhysicalDeviceToolProperties core = inst->table.GetPhysicalDeviceToolProperties;
	PFN_vkGetPhysicalDeviceToolProperties ext = inst->table.GetPhysicalDeviceToolPropertiesEXT;
	PFN_vkGetPhysicalDeviceToolProperties next = NULL;
	uint32_t below = 0, n_core = 0, n_ext = 0, room;
	VkResult ret;
	/* Layers below may answer only one of the two names (the validation
	 * layer of 1.3.239 only the EXT one): ask the one that knows more. */
	if (core && core(pd, &n_core, NULL) != VK_SUCCESS)
		n_core = 0;
	if (ext && ext(pd, &n_ext, NULL) != VK_SUCCESS)
		n_ext = 0;
	if (core || ext) {
		next = n_ext > n_core ? ext : (core ? core : ext);
		below = n_ext > n_core ? n_ext : n_core;
	}
	if (!pTools) {
		*pToolCount = 1 + below;
		ret = VK_SUCCESS;
		goto out;
	}
	if (*pToolCount == 0) {
		ret = VK_INCOMPLETE;
		goto out;
	}
	vkl_tool_fill(&pTools[0]);
	room = *pToolCount - 1;
	if (next && below && room) {
		ret = next(pd, &room, pTools + 1);
		if (ret < 0)
			room = 0;
		*pToolCount = 1 + room;
		if (ret < 0)
			ret = VK_SUCCESS;
	} else {
		*pToolCount = 1;
		ret = below ? VK_INCOMPLETE : VK_SUCCESS;
	}
out:
	if (record && !vkl_config_get()->disabled) {
		/* the EXT alias has the same argument layout */
		sbt_vk_args_vkGetPhysicalDeviceToolProperties a;
		a.physicalDevice = pd;
		a.pToolCount = pToolCount;
		a.pToolProperties = pTools;
		a.ret = ret;
		vkl_emit(cmd, 0, &a);
	}
	return ret;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkGetPhysicalDeviceToolProperties(
	VkPhysicalDevice physicalDevice, uint32_t *pToolCount,
	VkPhysicalDeviceToolProperties *pToolProperties)
{
	return vkl_tools(physicalDevice, pToolCount, pToolProperties,
	                 SBT_VK_CMD_vkGetPhysicalDeviceToolProperties, 1);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkGetPhysicalDeviceToolPropertiesEXT(
	VkPhysicalDevice physicalDevice, uint32_t *pToolCount,
	VkPhysicalDeviceToolProperties *pToolProperties)
{
	return vkl_tools(physicalDevice, pToolCount, pToolProperties,
	                 SBT_VK_CMD_vkGetPhysicalDeviceToolPropertiesEXT, 1);
}

static void vkl_clamp_version(VkPhysicalDeviceProperties *p)
{
	if (p->apiVersion > VKL_API_VERSION) {
		if (vkl_first_hidden("api", "version"))
			CAP_INFO("Vulkan layer reports API version 1.%u.%u instead of the driver's "
			         "1.%u.%u (newer than vk.xml " VKL_VKXML_VERSION ")",
			         VK_API_VERSION_MINOR(VKL_API_VERSION), VK_API_VERSION_PATCH(VKL_API_VERSION),
			         VK_API_VERSION_MINOR(p->apiVersion), VK_API_VERSION_PATCH(p->apiVersion));
		p->apiVersion = VKL_API_VERSION;
	}
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkGetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                               VkPhysicalDeviceProperties *pProperties)
{
	vkl_instance *inst = vkl_instance_get(physicalDevice);
	inst->table.GetPhysicalDeviceProperties(physicalDevice, pProperties);
	vkl_clamp_version(pProperties);
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkGetPhysicalDeviceProperties a;
		a.physicalDevice = physicalDevice;
		a.pProperties = pProperties;
		vkl_emit(SBT_VK_CMD_vkGetPhysicalDeviceProperties, 0, &a);
	}
}

static void vkl_props2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p,
                       PFN_vkGetPhysicalDeviceProperties2 next, uint32_t cmd)
{
	vkl_chain_cut cut;
	vkl_chain_strip(p, &cut, "vkGetPhysicalDeviceProperties2");
	next(pd, p);
	vkl_clamp_version(&p->properties);
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkGetPhysicalDeviceProperties2 a;
		a.physicalDevice = pd;
		a.pProperties = p;
		vkl_emit(cmd, 0, &a);
	}
	vkl_chain_restore(&cut);
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkGetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice,
                                                                VkPhysicalDeviceProperties2 *pProperties)
{
	vkl_instance *inst = vkl_instance_get(physicalDevice);
	vkl_props2(physicalDevice, pProperties, inst->table.GetPhysicalDeviceProperties2,
	           SBT_VK_CMD_vkGetPhysicalDeviceProperties2);
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkGetPhysicalDeviceProperties2KHR(
	VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2 *pProperties)
{
	vkl_instance *inst = vkl_instance_get(physicalDevice);
	vkl_props2(physicalDevice, pProperties, inst->table.GetPhysicalDeviceProperties2KHR,
	           SBT_VK_CMD_vkGetPhysicalDeviceProperties2KHR);
}

static void vkl_features2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f,
                          PFN_vkGetPhysicalDeviceFeatures2 next, uint32_t cmd)
{
	vkl_chain_cut cut;
	vkl_chain_strip(f, &cut, "vkGetPhysicalDeviceFeatures2");
	next(pd, f);
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkGetPhysicalDeviceFeatures2 a;
		a.physicalDevice = pd;
		a.pFeatures = f;
		vkl_emit(cmd, 0, &a);
	}
	vkl_chain_restore(&cut);
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkGetPhysicalDeviceFeatures2(VkPhysicalDevice physicalDevice,
                                                              VkPhysicalDeviceFeatures2 *pFeatures)
{
	vkl_instance *inst = vkl_instance_get(physicalDevice);
	vkl_features2(physicalDevice, pFeatures, inst->table.GetPhysicalDeviceFeatures2,
	              SBT_VK_CMD_vkGetPhysicalDeviceFeatures2);
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkGetPhysicalDeviceFeatures2KHR(VkPhysicalDevice physicalDevice,
                                                                 VkPhysicalDeviceFeatures2 *pFeatures)
{
	vkl_instance *inst = vkl_instance_get(physicalDevice);
	vkl_features2(physicalDevice, pFeatures, inst->table.GetPhysicalDeviceFeatures2KHR,
	              SBT_VK_CMD_vkGetPhysicalDeviceFeatures2KHR);
}

/* ---- device --------------------------------------------------------------- */

static VkLayerDeviceCreateInfo *vkl_device_link(const VkDeviceCreateInfo *ci)
{
	const VkBaseInStructure *s = ci->pNext;
	for (; s; s = s->pNext) {
		VkLayerDeviceCreateInfo *li = (VkLayerDeviceCreateInfo *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    li->function == VK_LAYER_LINK_INFO)
			return li;
	}
	return NULL;
}

/* The loader's callback that makes a dispatchable object the layer creates
 * itself (a snapshot's command buffer) dispatchable; NULL if absent. */
static PFN_vkSetDeviceLoaderData vkl_device_loader_data(const VkDeviceCreateInfo *ci)
{
	const VkBaseInStructure *s = ci->pNext;
	for (; s; s = s->pNext) {
		const VkLayerDeviceCreateInfo *li = (const VkLayerDeviceCreateInfo *)(const void *)s;
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    li->function == VK_LOADER_DATA_CALLBACK)
			return li->u.pfnSetDeviceLoaderData;
	}
	return NULL;
}

/* Whether the driver itself lists VK_EXT_tool_info. */
static int vkl_driver_has_tool_info(vkl_instance *inst, VkPhysicalDevice pd)
{
	VkExtensionProperties *all = NULL;
	uint32_t n = 0, i;
	int found = 0;
	if (inst->table.EnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS)
		goto out;
	all = malloc((n + 1) * sizeof(*all));
	if (!all)
		goto out;
	if (inst->table.EnumerateDeviceExtensionProperties(pd, NULL, &n, all) < 0)
		goto out_free;
	for (i = 0; i < n && !found; i++)
		found = strcmp(all[i].extensionName, VK_EXT_TOOLING_INFO_EXTENSION_NAME) == 0;
out_free:
	free(all);
out:
	return found;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_o_vkCreateDevice(VkPhysicalDevice physicalDevice,
                                                    const VkDeviceCreateInfo *pCreateInfo,
                                                    const VkAllocationCallbacks *pAllocator,
                                                    VkDevice *pDevice)
{
	VkLayerDeviceCreateInfo *link = vkl_device_link(pCreateInfo);
	vkl_instance *inst = vkl_instance_get(physicalDevice);
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkCreateDevice create;
	VkDeviceCreateInfo ci = *pCreateInfo;
	const char **names = NULL;
	vkl_device *d;
	VkResult ret;
	uint32_t i;
	int can_present = 0;

	if (!link || !link->u.pLayerInfo) {
		CAP_ERROR("Vulkan layer: vkCreateDevice without the loader's link info");
		ret = VK_ERROR_INITIALIZATION_FAILED;
		goto out;
	}
	names = malloc((ci.enabledExtensionCount + 1) * sizeof(*names));
	if (!names) {
		ret = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto out;
	}
	/* VK_EXT_tool_info is ours when the driver lacks it: not passed down. */
	ci.enabledExtensionCount = 0;
	ci.ppEnabledExtensionNames = names;
	for (i = 0; i < pCreateInfo->enabledExtensionCount; i++) {
		const char *e = pCreateInfo->ppEnabledExtensionNames[i];
		if (!vkl_extension_visible(e)) {
			CAP_WARN("Vulkan layer refuses device extension %s: %s", e,
			         vkl_extension_hidden_reason(e));
			ret = VK_ERROR_EXTENSION_NOT_PRESENT;
			goto out_free_names;
		}
		if (strcmp(e, VK_KHR_SWAPCHAIN_EXTENSION_NAME) == 0)
			can_present = 1;
		if (strcmp(e, VK_EXT_TOOLING_INFO_EXTENSION_NAME) == 0 &&
		    !vkl_driver_has_tool_info(inst, physicalDevice))
			continue;
		names[ci.enabledExtensionCount++] = e;
	}
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	create = (PFN_vkCreateDevice)gipa(inst->handle, "vkCreateDevice");
	if (!create) {
		ret = VK_ERROR_INITIALIZATION_FAILED;
		goto out_free_names;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		ret = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto out_free_names;
	}
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	ret = create(physicalDevice, &ci, pAllocator, pDevice);
	if (ret != VK_SUCCESS)
		goto out_free_device;
	d->handle = *pDevice;
	d->physical = physicalDevice;
	d->instance = inst;
	d->set_loader_data = vkl_device_loader_data(pCreateInfo);
	d->disabled = vkl_config_get()->disabled;
	/* the record types are named before any vkCmd* of the device is
	 * recorded: the inlined vkl_emit_flat does not ask */
	if (!d->disabled)
		vkl_record_register();
	d->can_present = can_present;
	pthread_mutex_init(&d->map_mu, NULL);
	pthread_mutex_init(&d->sig_mu, NULL);
	pthread_mutex_init(&d->q_mu, NULL);
	inst->table.GetPhysicalDeviceMemoryProperties(physicalDevice, &d->mem_props);
	vkl_device_table_fill(&d->table, *pDevice, gdpa, inst->handle, gipa);
	vkl_frame_device_init(d);
	if (vkl_map_insert(vkl_key(*pDevice), d) != 0) {
		CAP_ERROR("Vulkan layer: too many live instances and devices");
		d->table.DestroyDevice(*pDevice, pAllocator);
		ret = VK_ERROR_OUT_OF_HOST_MEMORY;
		goto out_free_device;
	}
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkCreateDevice a;
		uint64_t seq;
		a.physicalDevice = physicalDevice;
		a.pCreateInfo = &ci; /* what the driver got: without our own extension */
		a.pAllocator = pAllocator;
		a.pDevice = pDevice;
		a.ret = ret;
		seq = vkl_emit(SBT_VK_CMD_vkCreateDevice, 0, &a);
		vkl_objects_add(VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)*pDevice, seq,
		                (uint64_t)(uintptr_t)physicalDevice, NULL);
	}
	goto out_free_names;

out_free_device:
	free(d);
out_free_names:
	free(names);
out:
	return ret;
}

VKAPI_ATTR void VKAPI_CALL vkl_o_vkDestroyDevice(VkDevice device,
                                                 const VkAllocationCallbacks *pAllocator)
{
	vkl_device *d;
	if (!device)
		return;
	d = vkl_device_get(device);
	if (!vkl_config_get()->disabled) {
		sbt_vk_args_vkDestroyDevice a;
		a.device = device;
		a.pAllocator = pAllocator;
		vkl_emit(SBT_VK_CMD_vkDestroyDevice, 0, &a);
		vkl_objects_remove(VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)device);
	}
	vkl_map_remove(vkl_key(device));
	vkl_dev_cache_forget(device);
	vkl_frame_device_gone(d);
	d->table.DestroyDevice(device, pAllocator);
	vkl_memory_device_gone(d);
	pthread_mutex_destroy(&d->map_mu);
	pthread_mutex_destroy(&d->sig_mu);
	pthread_mutex_destroy(&d->q_mu);
	free(d);
}
