/*
 * hip_coop_spt.hip - cooperative launches of saxpy (docs/hip.md): one
 * with hipLaunchCooperativeKernel on a created stream, waited for by
 * hipStreamSynchronize, and two with hipLaunchCooperativeKernel_spt on
 * stream 0 (the calling thread's per-thread default stream), the second
 * after a hipMemcpyAsync_spt on that stream, waited for by
 * hipStreamSynchronize_spt; each result read back.  Prints each call's
 * status and some of the results; exit status 0 once it ran to its end.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(void)
{
	enum { N = 512 };
	static float hx[N], hy[N];
	float *dx = NULL, *dy = NULL;
	int n = N;
	float a = 2.0f;
	hipStream_t s = NULL;
	void *args[] = {&n, &a, &dx, &dy};

	for (int i = 0; i < N; i++) {
		hx[i] = (float)i;
		hy[i] = 1.0f;
	}
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dx, sizeof(hx)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dy, sizeof(hy)));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dx, hx, sizeof(hx), hipMemcpyHostToDevice));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dy, hy, sizeof(hy), hipMemcpyHostToDevice));
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipLaunchCooperativeKernel %d\n",
	       (int)hipLaunchCooperativeKernel((const void *)saxpy, dim3(N / 128), dim3(128), args, 0, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipMemcpy %d\n", (int)hipMemcpy(hy, dy, sizeof(hy), hipMemcpyDeviceToHost));
	printf("y[3] %.1f\n", hy[3]);
	printf("hipLaunchCooperativeKernel_spt %d\n",
	       (int)hipLaunchCooperativeKernel_spt((const void *)saxpy, dim3(N / 128), dim3(128), args,
	                                           0, 0));
	a = 0.5f;
	printf("hipMemcpyAsync_spt %d\n",
	       (int)hipMemcpyAsync_spt(dx, dy, sizeof(hx), hipMemcpyDeviceToDevice, 0));
	printf("hipLaunchCooperativeKernel_spt %d\n",
	       (int)hipLaunchCooperativeKernel_spt((const void *)saxpy, dim3(N / 128), dim3(128), args,
	                                           0, 0));
	printf("hipStreamSynchronize_spt %d\n", (int)hipStreamSynchronize_spt(0));
	printf("hipMemcpy %d\n", (int)hipMemcpy(hy, dy, sizeof(hy), hipMemcpyDeviceToHost));
	printf("y[3] %.1f y[500] %.1f\n", hy[3], hy[500]);
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
	printf("hipFree %d\n", (int)hipFree(dx));
	printf("hipFree %d\n", (int)hipFree(dy));
	return 0;
}
