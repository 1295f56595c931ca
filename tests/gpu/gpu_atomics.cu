// gpu_atomics - many threads add into few accumulators with atomics.
// Default: float atomicAdd, whose result depends on the order the adds land
// in (float addition does not associate), so two runs, and two replays,
// really differ: --check-determinism must flag it.  --int: the same with
// integer adds, which commute exactly: every run agrees.
#include <cstdio>
#include <cstdint>
#include <cstring>

__global__ void gpu_atomics_float(float *acc, uint32_t nacc, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&acc[i % nacc], 1.0f / (float)(1 + i % 977) + (float)(i % 13) * 1e-3f);
}

__global__ void gpu_atomics_int(uint32_t *acc, uint32_t nacc, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&acc[i % nacc], i * 2654435761u);
}

int main(int argc, char **argv)
{
	const uint32_t n = 1 << 22, nacc = 8;
	int use_int = argc > 1 && strcmp(argv[1], "--int") == 0;
	void *d = nullptr;
	uint32_t h[nacc];
	uint64_t hash = 1469598103934665603ull;
	if (cudaMalloc(&d, nacc * 4) != cudaSuccess || cudaMemset(d, 0, nacc * 4) != cudaSuccess)
		return 1;
	if (use_int)
		gpu_atomics_int<<<n / 256, 256>>>((uint32_t *)d, nacc, n);
	else
		gpu_atomics_float<<<n / 256, 256>>>((float *)d, nacc, n);
	if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess)
		return 1;
	for (uint32_t i = 0; i < nacc; i++)
		hash = (hash ^ h[i]) * 1099511628211ull;
	// The float sums differ in their last bits from run to run: print them
	// rounded, so that the plain and captured runs print the same line.
	if (use_int)
		printf("gpu_atomics: int hash 0x%016llx\n", (unsigned long long)hash);
	else
		printf("gpu_atomics: float first %.1f\n", (double)((float *)h)[0]);
	cudaFree(d);
	return 0;
}
