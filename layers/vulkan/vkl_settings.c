/*
 * vkl_settings.c - layer settings an application chains to
 * vkCreateInstance with VK_EXT_layer_settings (docs/vulkan-layer.md,
 * "Settings").
 *
 * The extension is newer than the Vulkan headers this project builds
 * against (1.3.239), so its structures are defined here, with the values
 * the specification gives them, and kept out of the codec: the recorded
 * vkCreateInstance never carries them (vkl_settings_hide), and a structure
 * holding only settings for this layer is not handed down the chain
 * either, where a driver or a layer of 1.3.239 would not know its sType.
 *
 * Settings for VK_LAYER_tracesmith become the capture runtime's
 * (cap_config_preset), by the name a vk_layer_settings.txt line uses
 * after "tracesmith." (`output`, `stacks`, `trigger`, ...), below the
 * settings file and the TRACESMITH_ variables.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "layers/vulkan/vkl.h"

#define VKL_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT ((VkStructureType)1000496000)

enum { /* VkLayerSettingTypeEXT */
	VKL_SETTING_BOOL32 = 0, VKL_SETTING_INT32 = 1, VKL_SETTING_INT64 = 2,
	VKL_SETTING_UINT32 = 3, VKL_SETTING_UINT64 = 4, VKL_SETTING_FLOAT32 = 5,
	VKL_SETTING_FLOAT64 = 6, VKL_SETTING_STRING = 7
};

typedef struct vkl_layer_setting { /* VkLayerSettingEXT */
	const char *pLayerName;
	const char *pSettingName;
	uint32_t type;
	uint32_t valueCount;
	const void *pValues;
} vkl_layer_setting;

typedef struct vkl_layer_settings_ci { /* VkLayerSettingsCreateInfoEXT */
	VkStructureType sType;
	const void *pNext;
	uint32_t settingCount;
	const vkl_layer_setting *pSettings;
} vkl_layer_settings_ci;

/* The first value of s as text; 0, or -1 for a type or count we do not
 * take (said once per setting). */
static int vkl_setting_text(const vkl_layer_setting *s, char *buf, size_t len)
{
	if (!s->valueCount || !s->pValues)
		return -1;
	switch (s->type) {
	case VKL_SETTING_STRING:
		if (!((const char *const *)s->pValues)[0])
			return -1;
		snprintf(buf, len, "%s", ((const char *const *)s->pValues)[0]);
		return 0;
	case VKL_SETTING_BOOL32:
		snprintf(buf, len, "%d", ((const VkBool32 *)s->pValues)[0] ? 1 : 0);
		return 0;
	case VKL_SETTING_INT32:
		snprintf(buf, len, "%" PRId32, ((const int32_t *)s->pValues)[0]);
		return 0;
	case VKL_SETTING_UINT32:
		snprintf(buf, len, "%" PRIu32, ((const uint32_t *)s->pValues)[0]);
		return 0;
	case VKL_SETTING_INT64:
		snprintf(buf, len, "%" PRId64, ((const int64_t *)s->pValues)[0]);
		return 0;
	case VKL_SETTING_UINT64:
		snprintf(buf, len, "%" PRIu64, ((const uint64_t *)s->pValues)[0]);
		return 0;
	default:
		return -1;
	}
}

/* Whether every setting of ci is this layer's. */
static int vkl_settings_all_ours(const vkl_layer_settings_ci *ci)
{
	for (uint32_t i = 0; i < ci->settingCount; i++)
		if (!ci->pSettings[i].pLayerName ||
		    strcmp(ci->pSettings[i].pLayerName, VKL_LAYER_NAME) != 0)
			return 0;
	return 1;
}

void vkl_settings_apply(const VkInstanceCreateInfo *ci)
{
	const VkBaseInStructure *s;
	for (s = ci ? ci->pNext : NULL; s; s = s->pNext) {
		const vkl_layer_settings_ci *ls = (const vkl_layer_settings_ci *)s;
		if (s->sType != VKL_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT || !ls->pSettings)
			continue;
		for (uint32_t i = 0; i < ls->settingCount; i++) {
			const vkl_layer_setting *st = &ls->pSettings[i];
			char value[1024];
			int r;
			if (!st->pLayerName || strcmp(st->pLayerName, VKL_LAYER_NAME) != 0 ||
			    !st->pSettingName)
				continue;
			if (vkl_setting_text(st, value, sizeof(value)) != 0) {
				CAP_WARN("Vulkan layer: VK_EXT_layer_settings: %s has a type or count this "
				         "layer does not take (type %" PRIu32 ", %" PRIu32 " values); ignored",
				         st->pSettingName, st->type, st->valueCount);
				continue;
			}
			r = cap_config_preset(st->pSettingName, value);
			if (r == -1)
				CAP_WARN("Vulkan layer: VK_EXT_layer_settings: %s = %s came after capture "
				         "was configured (by an earlier instance or another call); ignored",
				         st->pSettingName, value);
			else if (r == -2)
				CAP_WARN("Vulkan layer: VK_EXT_layer_settings: unknown setting %s; ignored",
				         st->pSettingName);
			else if (r != 0)
				CAP_WARN("Vulkan layer: VK_EXT_layer_settings: %s could not be kept; ignored",
				         st->pSettingName);
		}
	}
}

int vkl_settings_hide(const VkInstanceCreateInfo *ci, int all, vkl_settings_link *saved)
{
	VkBaseInStructure *prev = (VkBaseInStructure *)ci;
	saved->prev = NULL;
	saved->node = NULL;
	for (VkBaseInStructure *s = (VkBaseInStructure *)(uintptr_t)ci->pNext; s;
	     prev = s, s = (VkBaseInStructure *)(uintptr_t)s->pNext) {
		if (s->sType != VKL_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT)
			continue;
		if (!all && !vkl_settings_all_ours((const vkl_layer_settings_ci *)s))
			return 0;
		/* The chain is the application's: unlinked for the call, put back
		 * by vkl_settings_restore. */
		saved->prev = prev;
		saved->node = s;
		prev->pNext = s->pNext;
		return 1;
	}
	return 0;
}

void vkl_settings_restore(vkl_settings_link *saved)
{
	if (saved->prev)
		saved->prev->pNext = saved->node;
	saved->prev = NULL;
	saved->node = NULL;
}
