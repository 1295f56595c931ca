/*
 * vk_layer_settings - an application that configures layers through
 * VK_EXT_layer_settings (newer than the 1.3.239 headers: the structures are
 * spelled out here with the specification's values): it chains a
 * VkLayerSettingsCreateInfoEXT to vkCreateInstance holding, for
 * VK_LAYER_tracesmith, output = PATH and stacks = none, and one setting
 * the layer does not know (bogus = 1), then lists the physical devices and
 * destroys the instance.
 *   vk_layer_settings PATH
 * Prints "devices N".
 */
#include <stdio.h>
#include <stdlib.h>

#include <vulkan/vulkan.h>

typedef struct {
	const char *pLayerName;
	const char *pSettingName;
	uint32_t type; /* VkLayerSettingTypeEXT: 0 BOOL32, 7 STRING */
	uint32_t valueCount;
	const void *pValues;
} app_layer_setting;

typedef struct {
	VkStructureType sType; /* VK_STRUCTURE_TYPE_LAYER_SETTINGS_CREATE_INFO_EXT */
	const void *pNext;
	uint32_t settingCount;
	const app_layer_setting *pSettings;
} app_layer_settings_ci;

int main(int argc, char **argv)
{
	const char *output, *none = "none";
	VkBool32 yes = VK_TRUE;
	app_layer_setting settings[3];
	app_layer_settings_ci lsci;
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vk_layer_settings", 1,
	                         NULL, 0, VK_API_VERSION_1_1};
	VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, NULL, 0, NULL, 0, NULL};
	VkInstance inst;
	uint32_t n = 0;
	VkResult r;

	if (argc != 2) {
		fprintf(stderr, "usage: vk_layer_settings PATH\n");
		return 2;
	}
	output = argv[1];
	settings[0] = (app_layer_setting){"VK_LAYER_tracesmith", "output", 7, 1, &output};
	settings[1] = (app_layer_setting){"VK_LAYER_tracesmith", "stacks", 7, 1, &none};
	settings[2] = (app_layer_setting){"VK_LAYER_tracesmith", "bogus", 0, 1, &yes};
	lsci = (app_layer_settings_ci){(VkStructureType)1000496000, NULL, 3, settings};
	ci.pNext = &lsci;
	ci.pApplicationInfo = &app;
	r = vkCreateInstance(&ci, NULL, &inst);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vk_layer_settings: vkCreateInstance: %d\n", (int)r);
		return 1;
	}
	if (ci.pNext != &lsci || lsci.pNext != NULL) {
		fprintf(stderr, "vk_layer_settings: the instance chain was left changed\n");
		return 1;
	}
	r = vkEnumeratePhysicalDevices(inst, &n, NULL);
	printf("devices %u\n", n);
	vkDestroyInstance(inst, NULL);
	return r == VK_SUCCESS ? 0 : 1;
}
