/*
 * vkl_test_device.h - the fake device the Vulkan layer's memory unit tests
 * allocate and map through (they compile layers/vulkan/vkl_memory.c in):
 * one memory type, host-visible and coherent.
 */
#ifndef TRACESMITH_TESTS_VKL_TEST_DEVICE_H
#define TRACESMITH_TESTS_VKL_TEST_DEVICE_H

static void tst_device_init(vkl_device *d)
{
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->map_mu, NULL);
	d->handle = (VkDevice)(uintptr_t)0x1000;
	d->mem_props.memoryTypeCount = 1;
	d->mem_props.memoryTypes[0].propertyFlags =
	        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

#endif
