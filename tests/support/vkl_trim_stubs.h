/*
 * vkl_trim_stubs.h - the trimmed capture's hooks, stubbed for unit tests
 * that compile the Vulkan layer's object table in without
 * layers/vulkan/vkl_trim.c: no object is tracked for a trimmed capture.
 */
#ifndef TRACESMITH_TESTS_VKL_TRIM_STUBS_H
#define TRACESMITH_TESTS_VKL_TRIM_STUBS_H

struct vkl_trim_obj *vkl_trim_adopt(VkObjectType type, uint64_t handle, uint64_t parent)
{
	(void)type, (void)handle, (void)parent;
	return NULL;
}
void vkl_trim_discard(struct vkl_trim_obj *t)
{
	(void)t;
}
void vkl_trim_gone(vkl_object *o)
{
	(void)o;
}

#endif
