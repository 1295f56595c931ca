/*
 * fuzz_vk_null.h - one replay of a trace's bytes against the null Vulkan
 * device (tests/fuzz/fuzz_vk_null.c).
 */
#ifndef TS_FUZZ_VK_NULL_H
#define TS_FUZZ_VK_NULL_H

#include <stddef.h>
#include <stdint.h>

enum { FVN_REPLAYED = 0, FVN_STOPPED = 1 };

/* Replay data (a trace's bytes): FVN_REPLAYED, or FVN_STOPPED with the
 * replay's message (naming the record) in msg. */
int fvn_replay(const uint8_t *data, size_t size, char *msg, size_t msg_len);

#endif /* TS_FUZZ_VK_NULL_H */
