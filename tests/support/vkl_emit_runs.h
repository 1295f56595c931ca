/*
 * vkl_emit_runs.h - the Vulkan layer's emitters of a publish's runs
 * (vulkan.tsMemoryWrites, from the compare's buffer or from the capture
 * buffer's room), for unit tests that compile layers/vulkan/vkl_memory.c
 * in: each run goes to the test's own vkl_emit_memory_write, which the
 * test defines before it includes this file, so that a test sees every
 * run as a single write.
 */
#ifndef TRACESMITH_TESTS_VKL_EMIT_RUNS_H
#define TRACESMITH_TESTS_VKL_EMIT_RUNS_H

uint64_t vkl_emit_memory_writes(uint64_t memory, uint64_t base, const uint8_t *src,
                                const uint64_t (*runs)[2], size_t n)
{
	for (size_t k = 0; k < n; k++)
		vkl_emit_memory_write(memory, runs[k][0], src + (runs[k][0] - base), runs[k][1]);
	return n ? 1 : 0;
}

/* The same from the room (its blob given back). */
uint64_t vkl_emit_memory_writes_room(uint64_t memory, cap_rec *rec, const uint8_t *room,
                                     const uint64_t (*runs)[2], size_t n)
{
	size_t at = 0;
	for (size_t k = 0; k < n; k++) {
		vkl_emit_memory_write(memory, runs[k][0], room + at, runs[k][1]);
		at += runs[k][1];
	}
	cap_blob_cancel(rec);
	return n ? 1 : 0;
}

#endif
