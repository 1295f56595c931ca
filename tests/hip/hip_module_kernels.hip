/*
 * hip_module_kernels.hip - kernels built with hipcc --genco into a code
 * object bundle that hip_module.c loads with hipModuleLoadData: one with
 * C linkage (found by its plain name), one mangled, and a global.
 */
#include <hip/hip_runtime.h>

__device__ float scale_factor = 2.0f;

extern "C" __global__ void scale(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] *= scale_factor;
}

__global__ void add_offset(float *p, float off, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += off;
}
