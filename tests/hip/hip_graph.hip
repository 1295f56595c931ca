/*
 * hip_graph.hip - a graph built by stream capture (two launches and a
 * memset captured on a stream, instantiated, launched twice), and, given
 * the argument "wild", a launch whose kernel writes far outside its
 * allocation: on a GPU a memory fault, on the test double
 * hipErrorIllegalAddress from the launch, never a crash of the program;
 * given "notwin", a launch of a kernel the test double has no host twin
 * for, and a copy of what it wrote.
 * Prints each call's status; exit status 0 once it ran to its end.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void poke(float *p, long long index, float v)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		p[index] = v;
}

__global__ void no_twin(float *p)
{
	p[threadIdx.x] = 42.0f;
}

int main(int argc, char **argv)
{
	enum { N = 64 };
	static float h[N];
	int wild = argc > 1 && strcmp(argv[1], "wild") == 0;
	int notwin = argc > 1 && strcmp(argv[1], "notwin") == 0;
	hipStream_t s = NULL;
	hipGraph_t g = NULL;
	hipGraphExec_t e = NULL;
	float *d = NULL;
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&d, sizeof(h)));
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(d, 0, sizeof(h), s));
	printf("hipStreamBeginCapture %d\n", (int)hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
	poke<<<1, 1, 0, s>>>(d, 3, 7.0f);
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(d + 8, 0x40, 16, s));
	poke<<<1, 1, 0, s>>>(d, 5, 9.0f);
	printf("hipStreamEndCapture %d\n", (int)hipStreamEndCapture(s, &g));
	printf("hipGraphInstantiate %d\n", (int)hipGraphInstantiate(&e, g, NULL, NULL, 0));
	printf("hipGraphLaunch %d\n", (int)hipGraphLaunch(e, s));
	printf("hipGraphLaunch %d\n", (int)hipGraphLaunch(e, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipMemcpy %d\n", (int)hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
	if (wild) {
		poke<<<1, 1>>>(d, 1LL << 40, 1.0f);
		printf("wild launch %d\n", (int)hipGetLastError());
	}
	if (notwin) {
		no_twin<<<1, 4>>>(d);
		printf("no_twin launch %d\n", (int)hipGetLastError());
		printf("hipMemcpy %d\n", (int)hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
	}
	printf("hipGraphExecDestroy %d\n", (int)hipGraphExecDestroy(e));
	printf("hipGraphDestroy %d\n", (int)hipGraphDestroy(g));
	printf("hipFree %d\n", (int)hipFree(d));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
	printf("h[3] %.1f h[5] %.1f h[8] %.1f\n", h[3], h[5], h[8]);
	return 0;
}
