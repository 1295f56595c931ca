// gpu_prealloc - a framework's cache on the GPU: one cudaMalloc of GIB GiB
// made first and kept (as JAX preallocates 75 % of the GPU), of which the
// first 4 MiB are used: filled by a kernel, updated by a second launch,
// read back and hashed.  With --fill the whole preallocation is written
// first (so a keyframe of it holds no zero pages).  Prints the hash of
// what it read.  Used by tests/gpu/bench_prealloc.sh.
//   gpu_prealloc [--gib N] [--fill]
#include <cuda_runtime.h>
#include <string.h>

#include "gpu_common.h"

__global__ void gpu_fill(unsigned *p, unsigned n, unsigned k)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = i * 3u + k;
}

__global__ void gpu_step(const unsigned *p, unsigned *q, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		q[i] = p[i] * 7u + (p[(i + 1) % n] >> 5);
}

int main(int argc, char **argv)
{
	size_t gib = 8;
	int fill = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gib") && i + 1 < argc)
			gib = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--fill"))
			fill = 1;
		else {
			fprintf(stderr, "usage: gpu_prealloc [--gib N] [--fill]\n");
			return 2;
		}
	}
	const unsigned n = 1u << 20, block = 256, grid = (n + block - 1) / block;
	unsigned *big, *h = (unsigned *)malloc(n * 4);
	GPU_CK_RT(cudaMalloc(&big, gib << 30));
	if (fill)
		GPU_CK_RT(cudaMemset(big, 0x5a, gib << 30));
	gpu_fill<<<grid, block>>>(big, n, 11u);
	GPU_CK_RT(cudaGetLastError());
	gpu_step<<<grid, block>>>(big, big + n, n);
	GPU_CK_RT(cudaGetLastError());
	GPU_CK_RT(cudaMemcpy(h, big + n, n * 4, cudaMemcpyDeviceToHost));
	printf("gpu_prealloc: %zu GiB hash 0x%016llx\n", gib, (unsigned long long)gpu_fnv(h, n * 4, GPU_FNV_SEED));
	GPU_CK_RT(cudaFree(big));
	free(h);
	return 0;
}
