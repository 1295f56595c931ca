/*
 * rpvk_vk.h - the Vulkan headers as the replayer's Vulkan backend sees them:
 * with the window-system platforms the codec carries (xcb, xlib), so the
 * argument structs of their commands exist, then the codec interface and
 * the replayer core.  Every file of the backend includes this first.
 */
#ifndef RPVK_VK_H
#define RPVK_VK_H

#ifndef VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_XCB_KHR 1
#endif
#ifndef VK_USE_PLATFORM_XLIB_KHR
#define VK_USE_PLATFORM_XLIB_KHR 1
#endif
#ifndef VK_USE_PLATFORM_WAYLAND_KHR
#define VK_USE_PLATFORM_WAYLAND_KHR 1
#endif
#ifndef VK_USE_PLATFORM_XLIB_XRANDR_EXT
#define VK_USE_PLATFORM_XLIB_XRANDR_EXT 1
#endif

#include <vulkan/vulkan.h>

#include "replayer/rp.h"
#include "serializer/sbt_vk.h"

#endif /* RPVK_VK_H */
