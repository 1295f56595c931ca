// gpu_launch_loop - the GPU side of the interposer's per-launch benchmark
// (tests/gpu/bench_launch.sh): N launches of an empty kernel through the
// CUDA runtime on one non-blocking stream, then one synchronisation.
// Prints the same line as tests/cuda/cuda_launch_loop on the double, so
// tests/bench/cuda_bench.sh can drive either:
//   gpu_launch_loop: launches N ns_per_launch X
// X is host time from the first timed launch to the end of the
// synchronisation, over N.  One launch and a synchronisation come first,
// untimed: they absorb context creation, lazy module loading and the
// interposer's keyframe at the first launch, so the loop measures launches.
//   gpu_launch_loop [--launches N]
#include <cuda_runtime.h>
#include <string.h>
#include <time.h>

#include "gpu_common.h"

__global__ void gpu_empty(void)
{
}

static unsigned long long gll_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long launches = 10000;
	cudaStream_t s;
	unsigned long long t0, t1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--launches") && i + 1 < argc) {
			char *end;
			const char *v = argv[++i];
			launches = strtoul(v, &end, 10);
			if (*v < '0' || *v > '9' || *end || launches < 1 || launches > 100000000ul) {
				fprintf(stderr, "gpu_launch_loop: --launches must be 1..100000000, got '%s'\n", v);
				return 2;
			}
		} else {
			fprintf(stderr, "gpu_launch_loop: unknown option '%s' (usage: gpu_launch_loop [--launches N])\n",
			        argv[i]);
			return 2;
		}
	}
	GPU_CK_RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	gpu_empty<<<1, 32, 0, s>>>();
	GPU_CK_RT(cudaGetLastError());
	GPU_CK_RT(cudaStreamSynchronize(s));
	t0 = gll_now();
	for (unsigned long i = 0; i < launches; i++)
		gpu_empty<<<1, 32, 0, s>>>();
	// A failed launch leaves its error for cudaGetLastError; checking once
	// keeps the loop free of extra runtime calls.
	GPU_CK_RT(cudaGetLastError());
	GPU_CK_RT(cudaStreamSynchronize(s));
	t1 = gll_now();
	printf("gpu_launch_loop: launches %lu ns_per_launch %.1f\n", launches, (double)(t1 - t0) / launches);
	GPU_CK_RT(cudaStreamDestroy(s));
	return 0;
}
