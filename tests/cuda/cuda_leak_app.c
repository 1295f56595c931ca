/*
 * cuda_leak_app - memory of every kind tsinfo --memory tells apart, with a
 * known peak and one leak (tests/shell/test_tsinfo_memory.sh):
 *   1. cuMemAlloc 1 MiB (A), cuMemAllocPitch 1000 x 8 of 4-byte elements
 *      (P, its size the pitch the driver picks times 8), cuMemAllocManaged
 *      256 KiB (M), cuMemAllocHost 64 KiB (H), cuMemCreate of two
 *      granules (V, mapped into a reserved range, then released while
 *      mapped: the mapping keeps it), cuMemAllocAsync 128 KiB on a stream
 *      (S);
 *   2. cuMemAlloc 4 MiB (B): the device's peak, A + P + M + V + S + B;
 *   3. B, S, P, M, H freed, V unmapped (its memory goes with the mapping);
 *   4. cuda_leak_app_leak() allocates 3000 bytes that are never freed;
 *   5. A freed.
 * It prints "cuda_leak_app: ok" when every call succeeded.
 */
#include "tests/cuda/cuprog.h"

/* Not static: the capture's stack symbolizer names exported functions. */
__attribute__((noinline)) CUdeviceptr cuda_leak_app_leak(size_t size);

__attribute__((noinline)) CUdeviceptr cuda_leak_app_leak(size_t size)
{
	CUdeviceptr p;

	CUP_CK(cuMemAlloc(&p, size));
	return p;
}

int main(void)
{
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };
	CUdevice dev;
	CUcontext ctx;
	CUstream s;
	CUdeviceptr a, p, m, b, sa, base, leaked;
	size_t pitch, gran;
	void *h;
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc access = { 0 };
	CUmemGenericAllocationHandle v;

	cup_prog = "cuda_leak_app";
	cup_api_for_errors = &errs;
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuCtxCreate(&ctx, NULL, 0, dev));
	CUP_CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

	CUP_CK(cuMemAlloc(&a, 1 << 20));
	CUP_CK(cuMemAllocPitch(&p, &pitch, 1000, 8, 4));
	CUP_CK(cuMemAllocManaged(&m, 256 << 10, CU_MEM_ATTACH_GLOBAL));
	CUP_CK(cuMemAllocHost(&h, 64 << 10));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	CUP_CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CUP_CK(cuMemAddressReserve(&base, 2 * gran, 0, 0, 0));
	CUP_CK(cuMemCreate(&v, 2 * gran, &prop, 0));
	CUP_CK(cuMemMap(base, 2 * gran, 0, v, 0));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CUP_CK(cuMemSetAccess(base, 2 * gran, &access, 1));
	CUP_CK(cuMemRelease(v)); /* the mapping keeps the memory */
	CUP_CK(cuMemAllocAsync(&sa, 128 << 10, s));
	CUP_CK(cuMemsetD32Async(sa, 7, (128 << 10) / 4, s));

	CUP_CK(cuMemAlloc(&b, 4 << 20)); /* the peak */
	CUP_CK(cuMemsetD32(b, 1, (4 << 20) / 4));

	CUP_CK(cuMemFree(b));
	CUP_CK(cuMemFreeAsync(sa, s));
	CUP_CK(cuStreamSynchronize(s));
	CUP_CK(cuMemFree(p));
	CUP_CK(cuMemFree(m));
	CUP_CK(cuMemFreeHost(h));
	CUP_CK(cuMemUnmap(base, 2 * gran));
	CUP_CK(cuMemAddressFree(base, 2 * gran));

	leaked = cuda_leak_app_leak(3000);
	CUP_CK(cuMemsetD8(leaked, 0, 3000));
	CUP_CK(cuMemFree(a));
	CUP_CK(cuStreamDestroy(s));
	printf("cuda_leak_app: ok\n");
	return 0;
}
