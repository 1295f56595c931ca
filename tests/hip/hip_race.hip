/*
 * hip_race.hip - two non-blocking streams sharing a buffer: add_offset
 * writes x on s1, saxpy reads x (and writes y) on s2, and an event recorded
 * on s1 and waited for on s2 orders them.  Given the argument "racy", the
 * event is left out: nothing orders the write and the read of x, the race
 * the emulator's race detector must report (tests/shell/test_emu_hip.sh).
 * Given "symbol", a __device__ array is written by hipMemcpyToSymbolAsync
 * on s1 (elements 1 and 2) and read by hipMemcpyFromSymbolAsync on s2
 * (elements 2 and 3) with no event between them: they race on element 2;
 * given "symbol-apart", the read takes elements 3 and 4 (no overlap).
 * Given "ext-stop HSACO" or "ext-start HSACO" (hip_module_kernels.hsaco),
 * after the ordered add_offset, hipExtModuleLaunchKernel runs the module's
 * scale on x on s1 with a start and a stop event, and s2 waits for the stop
 * event (saxpy reads x after scale: ordered) or the start one (before
 * scale: they race).
 * Prints each call's status and y[3] (8.0 when ordered); exit status 0 once
 * it ran to its end.
 */
#include <hip/hip_ext.h>
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

__device__ int table[8];

__global__ void add_offset(float *p, float off, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += off;
}

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
	enum { N = 256 };
	static float hx[N], hy[N];
	int racy = argc > 1 && strcmp(argv[1], "racy") == 0;
	int symbol = argc > 1 && strncmp(argv[1], "symbol", 6) == 0;
	int apart = argc > 1 && strcmp(argv[1], "symbol-apart") == 0;
	static int put[2] = {7, 9}, got[2];
	int ext = argc > 2 && strncmp(argv[1], "ext-", 4) == 0;
	int ext_start = ext && strcmp(argv[1], "ext-start") == 0;
	int n = N;
	hipModule_t mod = NULL;
	hipFunction_t scale = NULL;
	hipEvent_t start = NULL, stop = NULL;
	hipStream_t s1 = NULL, s2 = NULL;
	hipEvent_t ev = NULL;
	float *x = NULL, *y = NULL;
	for (int i = 0; i < N; i++)
		hx[i] = (float)i;
	printf("hipSetDevice %d\n", (int)hipSetDevice(0));
	printf("hipStreamCreateWithFlags %d\n", (int)hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
	printf("hipStreamCreateWithFlags %d\n", (int)hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
	printf("hipEventCreate %d\n", (int)hipEventCreate(&ev));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&x, sizeof(hx)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&y, sizeof(hy)));
	printf("hipMemcpy %d\n", (int)hipMemcpy(x, hx, sizeof(hx), hipMemcpyHostToDevice));
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(y, 0, sizeof(hy), s2));
	add_offset<<<N / 128, 128, 0, s1>>>(x, 1.0f, N);
	printf("add_offset %d\n", (int)hipGetLastError());
	if (!racy) {
		printf("hipEventRecord %d\n", (int)hipEventRecord(ev, s1));
		printf("hipStreamWaitEvent %d\n", (int)hipStreamWaitEvent(s2, ev, 0));
	}
	if (symbol) {
		printf("hipMemcpyToSymbolAsync %d\n", (int)hipMemcpyToSymbolAsync(HIP_SYMBOL(table), put, sizeof(put),
		                                                                    1 * sizeof(int), hipMemcpyHostToDevice, s1));
		printf("hipMemcpyFromSymbolAsync %d\n",
		       (int)hipMemcpyFromSymbolAsync(got, HIP_SYMBOL(table), sizeof(got), (apart ? 3 : 2) * sizeof(int),
		                                     hipMemcpyDeviceToHost, s2));
	}
	if (ext) {
		void *params[] = {&x, &n};
		printf("hipModuleLoad %d\n", (int)hipModuleLoad(&mod, argv[2]));
		printf("hipModuleGetFunction %d\n", (int)hipModuleGetFunction(&scale, mod, "scale"));
		printf("hipEventCreate %d\n", (int)hipEventCreate(&start));
		printf("hipEventCreate %d\n", (int)hipEventCreate(&stop));
		printf("hipExtModuleLaunchKernel %d\n",
		       (int)hipExtModuleLaunchKernel(scale, N, 1, 1, 128, 1, 1, 0, s1, params, NULL, start, stop, 0));
		printf("hipStreamWaitEvent %d\n", (int)hipStreamWaitEvent(s2, ext_start ? start : stop, 0));
	}
	saxpy<<<N / 128, 128, 0, s2>>>(N, 2.0f, x, y);
	printf("saxpy %d\n", (int)hipGetLastError());
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(hy, y, sizeof(hy), hipMemcpyDeviceToHost, s2));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s2));
	printf("hipDeviceSynchronize %d\n", (int)hipDeviceSynchronize());
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(ev));
	if (ext) {
		printf("hipEventDestroy %d\n", (int)hipEventDestroy(start));
		printf("hipEventDestroy %d\n", (int)hipEventDestroy(stop));
		printf("hipModuleUnload %d\n", (int)hipModuleUnload(mod));
	}
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s1));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s2));
	printf("hipFree %d\n", (int)hipFree(x));
	printf("hipFree %d\n", (int)hipFree(y));
	printf("y[3] %.1f\n", hy[3]);
	return 0;
}
