/*
 * vk_all_instance_ext - a program that enables every instance extension
 * the loader reports (some programs do), creates its instance, lists the
 * physical devices and destroys the instance.  Prints the number of
 * extensions enabled and "devices N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

int main(void)
{
	VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "vk_all_instance_ext", 1,
	                         NULL, 0, VK_API_VERSION_1_1};
	VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL,
	                           0, NULL};
	VkExtensionProperties *props;
	const char **names;
	uint32_t n = 0, devices = 0;
	VkInstance inst;
	VkResult r;

	if (vkEnumerateInstanceExtensionProperties(NULL, &n, NULL) != VK_SUCCESS)
		return 1;
	props = calloc(n ? n : 1, sizeof(*props));
	names = calloc(n ? n : 1, sizeof(*names));
	if (!props || !names || vkEnumerateInstanceExtensionProperties(NULL, &n, props) != VK_SUCCESS)
		return 1;
	for (uint32_t i = 0; i < n; i++) {
		names[i] = props[i].extensionName;
		/* VK_KHR_portability_enumeration asks for the instance flag too */
		if (!strcmp(names[i], VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME))
			ci.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
	}
	ci.enabledExtensionCount = n;
	ci.ppEnabledExtensionNames = names;
	r = vkCreateInstance(&ci, NULL, &inst);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "vk_all_instance_ext: vkCreateInstance with %u extensions: %d\n", n, (int)r);
		return 1;
	}
	r = vkEnumeratePhysicalDevices(inst, &devices, NULL);
	printf("extensions %u devices %u\n", n, devices);
	vkDestroyInstance(inst, NULL);
	free(props);
	free(names);
	return r == VK_SUCCESS ? 0 : 1;
}
