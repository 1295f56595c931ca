// gpu_saxpy - a CUDA runtime program (built twice: default static cudart and
// -cudart shared): uploads, saxpy and a dependent kernel on two streams
// ordered by an event, readback; prints the hash of what it read and the
// number of kernel launches it made.  Integer arithmetic keeps the hash the
// same on every GPU.
#include <cuda_runtime.h>

#include "gpu_common.h"

__global__ void gpu_axpy(unsigned a, const unsigned *x, unsigned *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void gpu_mix(const unsigned *y, unsigned *z, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = y[i] ^ (y[(i + 1) % n] >> 3);
}

int main(void)
{
	const unsigned n = 1 << 16, block = 256, grid = (n + block - 1) / block, rounds = 8;
	unsigned *hx = (unsigned *)malloc(n * 4), *hz = (unsigned *)malloc(n * 4);
	unsigned *x, *y, *z;
	cudaStream_t s1, s2;
	cudaEvent_t ev;

	for (unsigned i = 0; i < n; i++)
		hx[i] = i * 2654435761u;
	GPU_CK_RT(cudaMalloc(&x, n * 4));
	GPU_CK_RT(cudaMalloc(&y, n * 4));
	GPU_CK_RT(cudaMalloc(&z, n * 4));
	GPU_CK_RT(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	GPU_CK_RT(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	GPU_CK_RT(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	GPU_CK_RT(cudaMemcpyAsync(x, hx, n * 4, cudaMemcpyHostToDevice, s1));
	GPU_CK_RT(cudaMemsetAsync(y, 0, n * 4, s1));
	for (unsigned r = 0; r < rounds; r++)
		gpu_axpy<<<grid, block, 0, s1>>>(r + 3, x, y, n);
	GPU_CK_RT(cudaGetLastError());
	GPU_CK_RT(cudaEventRecord(ev, s1));
	GPU_CK_RT(cudaStreamWaitEvent(s2, ev, 0));
	gpu_mix<<<grid, block, 0, s2>>>(y, z, n);
	GPU_CK_RT(cudaGetLastError());
	GPU_CK_RT(cudaMemcpyAsync(hz, z, n * 4, cudaMemcpyDeviceToHost, s2));
	GPU_CK_RT(cudaStreamSynchronize(s2));
	printf("gpu_saxpy: launches %u hash 0x%016llx\n", rounds + 1,
	       (unsigned long long)gpu_fnv(hz, n * 4, GPU_FNV_SEED));
	GPU_CK_RT(cudaFree(x));
	GPU_CK_RT(cudaFree(y));
	GPU_CK_RT(cudaFree(z));
	free(hx);
	free(hz);
	return 0;
}
