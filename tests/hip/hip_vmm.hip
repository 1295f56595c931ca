/*
 * hip_vmm.hip - the program's own virtual memory: an address range
 * reserved (hipMemAddressReserve), physical memory made (hipMemCreate) and
 * mapped into it (hipMemMap), made accessible (hipMemSetAccess), data
 * copied in, saxpy launched on the mapped range, the result read back,
 * then unmapped, released and freed.  Prints each call's status (on a
 * machine with no AMD GPU the runtime refuses them and the program still
 * runs to its end, exit status 0).
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
	static float hx[N], hy[N];
	size_t gran = 0, size;
	void *va = NULL;
	float *dx, *dy;
	hipMemGenericAllocationHandle_t h = NULL;
	hipMemAllocationProp prop;
	hipMemAccessDesc access;
	for (int i = 0; i < N; i++) {
		hx[i] = (float)i;
		hy[i] = 1.0f;
	}
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = 0;
	printf("hipMemGetAllocationGranularity %d\n",
	       (int)hipMemGetAllocationGranularity(&gran, &prop, hipMemAllocationGranularityMinimum));
	if (gran == 0)
		gran = 4096;
	size = (2 * sizeof(hx) + gran - 1) / gran * gran;
	printf("hipMemAddressReserve %d\n", (int)hipMemAddressReserve(&va, size, 0, NULL, 0));
	printf("hipMemCreate %d\n", (int)hipMemCreate(&h, size, &prop, 0));
	printf("hipMemMap %d\n", (int)hipMemMap(va, size, 0, h, 0));
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = hipMemAccessFlagsProtReadWrite;
	printf("hipMemSetAccess %d\n", (int)hipMemSetAccess(va, size, &access, 1));
	dx = (float *)va;
	dy = dx + N;
	printf("hipMemcpy %d\n", (int)hipMemcpy(dx, hx, sizeof(hx), hipMemcpyHostToDevice));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dy, hy, sizeof(hy), hipMemcpyHostToDevice));
	saxpy<<<N / 256, 256>>>(N, 2.0f, dx, dy);
	printf("launch %d\n", (int)hipGetLastError());
	printf("hipDeviceSynchronize %d\n", (int)hipDeviceSynchronize());
	printf("hipMemcpy %d\n", (int)hipMemcpy(hy, dy, sizeof(hy), hipMemcpyDeviceToHost));
	printf("hipMemUnmap %d\n", (int)hipMemUnmap(va, size));
	printf("hipMemRelease %d\n", (int)hipMemRelease(h));
	printf("hipMemAddressFree %d\n", (int)hipMemAddressFree(va, size));
	printf("y[3] %.1f\n", hy[3]);
	return 0;
}
