/*
 * cuda_driver_app - the driver-API workload (cuprog.h) through link-time
 * symbols: context, module from bytes, allocations, uploads, launches on two
 * streams ordered by events (kernelParams, `extra` and cuLaunchKernelEx
 * forms), readback; prints the hash of what it read.
 *   cuda_driver_app [--size N] [--racy]
 * --racy leaves out the events and adds unordered non-commuting launches.
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	struct cup_api a = {
		cuGetErrorName, cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease,
		cuCtxSetCurrent, cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuModuleGetGlobal,
		cuMemAlloc, cuMemFree, cuMemAllocHost, cuMemFreeHost, cuMemcpyHtoD, cuMemcpyDtoH,
		cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemsetD32, cuStreamCreate, cuStreamDestroy,
		cuStreamSynchronize, cuStreamWaitEvent, cuEventCreate, cuEventRecord, cuEventDestroy,
		cuLaunchKernel, cuLaunchKernelEx, cuLaunchKernel,
		NULL, NULL, NULL, NULL, /* context, module and kernels the driver-API way */
	};
	unsigned n = 4096;
	int racy = 0;

	cup_prog = "cuda_driver_app";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			n = cup_parse_uint("--size", argv[++i], 1, 1u << 24);
		} else if (!strcmp(argv[i], "--racy")) {
			racy = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_driver_app [--size N] [--racy]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_driver_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	printf("cuda_driver_app: size %u%s hash 0x%016llx\n", n, racy ? " racy" : "",
	       (unsigned long long)cup_workload(&a, n, racy));
	return 0;
}
