/* cuda_late_lib.h - the helper library of tests/cuda/cuda_late_calls.c. */
#ifndef CUDA_LATE_LIB_H
#define CUDA_LATE_LIB_H

#include <cuda.h>
#include <stdint.h>

enum { CUDA_LATE_DTOR = 1, CUDA_LATE_ATEXIT = 2, CUDA_LATE_LAST = 3, CUDA_LATE_KILL = 4 };

/* After main returns, relaunch fill over buf's n words on stream, read them
 * back, free buf and destroy stream, from the library's exit code chosen by
 * mode (cuda_late_lib.c says where each runs). */
void cuda_late_arm(int mode, CUfunction fill, CUstream stream, CUdeviceptr buf, uint32_t n);

#endif
