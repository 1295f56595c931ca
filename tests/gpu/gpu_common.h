/* gpu_common.h - shared by the nvcc-built GPU test programs: error checks and
 * an FNV-1a hash of what a program read back (no extra libraries). */
#ifndef GPU_COMMON_H
#define GPU_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t gpu_fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}
#define GPU_FNV_SEED 0xcbf29ce484222325ull

#define GPU_CK_RT(call)                                                                               \
	do {                                                                                           \
		cudaError_t e_ = (call);                                                               \
		if (e_ != cudaSuccess) {                                                               \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); \
			exit(1);                                                                       \
		}                                                                                      \
	} while (0)

#endif
