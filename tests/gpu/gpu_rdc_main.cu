// gpu_rdc - a program built with -rdc=true (separate compilation): cudart
// hands the driver a version 2 fatbin wrapper whose prelinked list names the
// relocatable fatbins of both translation units.  Prints a hash of its
// result, which capture must not change and replay must reproduce.
#include <cstdio>
#include <cstdint>

__device__ uint32_t gpu_rdc_step(uint32_t x); // gpu_rdc_dev.cu

__global__ void gpu_rdc_kernel(uint32_t *out, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = gpu_rdc_step(i);
}

int main()
{
	const uint32_t n = 1 << 16;
	uint32_t *d = nullptr, *h = new uint32_t[n];
	uint64_t hash = 1469598103934665603ull;
	if (cudaMalloc(&d, n * sizeof(uint32_t)) != cudaSuccess)
		return 1;
	gpu_rdc_kernel<<<n / 256, 256>>>(d, n);
	if (cudaMemcpy(h, d, n * sizeof(uint32_t), cudaMemcpyDeviceToHost) != cudaSuccess)
		return 1;
	for (uint32_t i = 0; i < n; i++)
		hash = (hash ^ h[i]) * 1099511628211ull;
	printf("gpu_rdc: hash 0x%016llx\n", (unsigned long long)hash);
	cudaFree(d);
	delete[] h;
	return 0;
}
