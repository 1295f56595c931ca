/*
 * hip_saxpy.hip - a <<<>>> launch of saxpy through the HIP runtime, the
 * first of the HIP test programs (built by hipcc, docs/hip.md).  Prints
 * each call's status so that a capture can be checked to leave the
 * program's output unchanged; on a machine with no AMD GPU the runtime
 * answers hipErrorNoDevice / hipErrorInvalidDevice and the program still
 * runs to its end (exit status 0: the program ran, whatever the device).
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
	enum { N = 1024 };
	static float hx[N], hy[N];
	float *dx = NULL, *dy = NULL;
	int count = -1;
	for (int i = 0; i < N; i++) {
		hx[i] = (float)i;
		hy[i] = 1.0f;
	}
	printf("hipGetDeviceCount %d\n", (int)hipGetDeviceCount(&count));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dx, sizeof(hx)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dy, sizeof(hy)));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dx, hx, sizeof(hx), hipMemcpyHostToDevice));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dy, hy, sizeof(hy), hipMemcpyHostToDevice));
	saxpy<<<N / 256, 256>>>(N, 2.0f, dx, dy);
	printf("launch %d\n", (int)hipGetLastError());
	printf("hipDeviceSynchronize %d\n", (int)hipDeviceSynchronize());
	printf("hipMemcpy %d\n", (int)hipMemcpy(hy, dy, sizeof(hy), hipMemcpyDeviceToHost));
	printf("hipFree %d\n", (int)hipFree(dx));
	printf("hipFree %d\n", (int)hipFree(dy));
	printf("y[3] %.1f\n", hy[3]);
	return 0;
}
