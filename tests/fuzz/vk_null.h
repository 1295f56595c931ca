/*
 * vk_null.h - the null Vulkan device of the replay fuzz target
 * (tests/fuzz/vk_null.c): linked instead of -lvulkan.
 */
#ifndef TS_VK_NULL_H
#define TS_VK_NULL_H

#include <stddef.h>

/* Forget every object (between inputs: a replay that stopped leaves its
 * objects; the backend's teardown frees what it knows). */
void vk_null_reset(void);
/* Objects alive now. */
size_t vk_null_live_objects(void);

#endif /* TS_VK_NULL_H */
