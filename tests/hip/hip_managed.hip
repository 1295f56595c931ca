/*
 * hip_managed.hip - managed memory and pool allocations
 * (tests/shell/test_hip_keyframes.sh): x from hipMallocManaged, written by
 * the CPU directly (no copy the trace could hold: the capture's start
 * keyframe does), y from hipMallocFromPoolAsync on a pool of its own
 * (hipMemPoolCreate), z from the device's default pool
 * (hipDeviceGetDefaultMemPool), both uploaded on a created stream; saxpy
 * reads x and updates y, then z, on that stream; y, z and x are read back
 * (x only by a copy: its bytes are the CPU's); the pool allocations are
 * freed in stream order, x with hipFree.  Prints each call's status and
 * the values read; runs to its end whatever the device.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(void)
{
	enum { N = 1024 };
	static float hy[N], hz[N], hx[N];
	float *x = NULL, *y = NULL, *z = NULL;
	hipStream_t s = NULL;
	hipMemPool_t pool = NULL, dflt = NULL;
	hipMemPoolProps props;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	for (int i = 0; i < N; i++) {
		hy[i] = 1.0f;
		hz[i] = 0.5f;
	}
	printf("hipMallocManaged %d\n", (int)hipMallocManaged((void **)&x, N * sizeof(float), hipMemAttachGlobal));
	if (x)
		for (int i = 0; i < N; i++)
			x[i] = (float)i; /* the CPU writes managed memory directly */
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipMemPoolCreate %d\n", (int)hipMemPoolCreate(&pool, &props));
	printf("hipDeviceGetDefaultMemPool %d\n", (int)hipDeviceGetDefaultMemPool(&dflt, 0));
	printf("hipMallocFromPoolAsync %d\n", (int)hipMallocFromPoolAsync((void **)&y, sizeof(hy), pool, s));
	printf("hipMallocFromPoolAsync %d\n", (int)hipMallocFromPoolAsync((void **)&z, sizeof(hz), dflt, s));
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(y, hy, sizeof(hy), hipMemcpyHostToDevice, s));
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(z, hz, sizeof(hz), hipMemcpyHostToDevice, s));
	saxpy<<<N / 256, 256, 0, s>>>(N, 2.0f, x, y);
	printf("launch %d\n", (int)hipGetLastError());
	saxpy<<<N / 256, 256, 0, s>>>(N, 3.0f, y, z);
	printf("launch %d\n", (int)hipGetLastError());
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(hy, y, sizeof(hy), hipMemcpyDeviceToHost, s));
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(hz, z, sizeof(hz), hipMemcpyDeviceToHost, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipMemcpy %d\n", (int)hipMemcpy(hx, x, sizeof(hx), hipMemcpyDeviceToHost));
	printf("hipFreeAsync %d\n", (int)hipFreeAsync(y, s));
	printf("hipFreeAsync %d\n", (int)hipFreeAsync(z, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipFree %d\n", (int)hipFree(x));
	printf("hipMemPoolDestroy %d\n", (int)hipMemPoolDestroy(pool));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
	printf("y[3] %.1f z[3] %.1f x[3] %.1f\n", hy[3], hz[3], hx[3]);
	return 0;
}
