/*
 * gpu_windows.cu - a CUDA runtime program with a marked middle part, for
 * capture windows on a real GPU (tests/gpu/test_gpu_windows.sh): ROUNDS
 * rounds of two kernels and a read-back each; cudaProfilerStart() before
 * round FROM and cudaProfilerStop() after round TO, and an NVTX range
 * named "window" (nvtxRangePushA/Pop) around the same rounds.  Everything
 * the window uses (module, buffers, stream, event) is made before it.
 * Prints the hash of every round's read-back and of the last one.
 *   gpu_windows [ROUNDS FROM TO]
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "gpu_common.h"

#define GW_N (1u << 16)

__global__ void gw_fill(unsigned *z, unsigned value, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = value * 2654435761u + i;
}

__global__ void gw_mix(const unsigned *z, unsigned *y, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * 31u + z[i];
}

int main(int argc, char **argv)
{
	unsigned rounds = 8, from = 3, to = 5;
	unsigned *z, *y, *host;
	cudaStream_t s;
	cudaEvent_t ev;
	uint64_t h = GPU_FNV_SEED;

	if (argc == 4) {
		rounds = (unsigned)strtoul(argv[1], NULL, 0);
		from = (unsigned)strtoul(argv[2], NULL, 0);
		to = (unsigned)strtoul(argv[3], NULL, 0);
	} else if (argc != 1) {
		fprintf(stderr, "usage: gpu_windows [ROUNDS FROM TO]\n");
		return 2;
	}
	GPU_CK_RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	GPU_CK_RT(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	GPU_CK_RT(cudaMalloc(&z, GW_N * sizeof(unsigned)));
	GPU_CK_RT(cudaMalloc(&y, GW_N * sizeof(unsigned)));
	GPU_CK_RT(cudaMallocHost(&host, GW_N * sizeof(unsigned)));
	GPU_CK_RT(cudaMemset(y, 0, GW_N * sizeof(unsigned)));
	for (unsigned r = 1; r <= rounds; r++) {
		if (r == from) {
			GPU_CK_RT(cudaProfilerStart());
			nvtxRangePushA("window");
		}
		gw_fill<<<GW_N / 256, 256, 0, s>>>(z, r, GW_N);
		gw_mix<<<GW_N / 256, 256, 0, s>>>(z, y, GW_N);
		GPU_CK_RT(cudaGetLastError());
		GPU_CK_RT(cudaMemcpyAsync(host, y, GW_N * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
		GPU_CK_RT(cudaEventRecord(ev, s));
		GPU_CK_RT(cudaEventSynchronize(ev));
		h = gpu_fnv(host, GW_N * sizeof(unsigned), h);
		printf("gpu_windows: round %u hash %016llx\n", r,
		       (unsigned long long)gpu_fnv(host, GW_N * sizeof(unsigned), GPU_FNV_SEED));
		if (r == to) {
			nvtxRangePop();
			GPU_CK_RT(cudaProfilerStop());
		}
	}
	printf("gpu_windows: rounds %u hash %016llx\n", rounds, (unsigned long long)h);
	GPU_CK_RT(cudaFreeHost(host));
	GPU_CK_RT(cudaFree(y));
	GPU_CK_RT(cudaFree(z));
	GPU_CK_RT(cudaEventDestroy(ev));
	GPU_CK_RT(cudaStreamDestroy(s));
	return 0;
}
