// gpu_double_kernels - the kernels of the libcuda test double's module
// image "kernels" (tests/doubles/cuda/modules/kernels.c) that
// tests/cuda/cuda_graph_nodes launches, written for a real GPU with the
// same names, parameters and results, so that the double's test program
// runs on the real driver (test_gpu_graph_nodes.sh, with
// CUP_IMAGE_DIR pointing at the cubin).  One thread per element, as the
// double's kernels visit the elements of their launch's threads.
#include <stdint.h>

// fill: p[i] = value + i * stride
extern "C" __global__ void fill(uint32_t *p, uint32_t value, uint32_t stride, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = value + i * stride;
}

// vadd: c = a + b
extern "C" __global__ void vadd(const uint32_t *a, const uint32_t *b, uint32_t *c, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

// racy_scale and racy_xor: two updates that do not commute.
extern "C" __global__ void racy_scale(uint32_t *x, uint32_t k, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * k + i;
}

extern "C" __global__ void racy_xor(uint32_t *x, uint32_t k, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = (x[i] ^ k) + 1;
}
