/*
 * rpvk_backend.h - tsreplay's Vulkan backend (replayer/vulkan/, see
 * docs/vulkan-replay.md).  Listed in replayer/tools/tsreplay.c.
 */
#ifndef RPVK_BACKEND_H
#define RPVK_BACKEND_H

#include "replayer/rp.h"

extern const rp_backend_ops rpvk_backend_ops;

#endif /* RPVK_BACKEND_H */
