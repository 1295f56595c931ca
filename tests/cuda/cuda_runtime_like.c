/*
 * cuda_runtime_like - the same workload as cuda_driver_app, reaching the
 * driver exactly as the CUDA runtime does: no link-time cu* symbol at all;
 * dlopen("libcuda.so.1"), dlsym(handle, "cuGetProcAddress_v2"), then every
 * entry point through cuGetProcAddress with cudaVersion 13000 and default
 * flags, plus one per-thread-default-stream lookup (cuLaunchKernel, used on
 * stream 0).  Prints the same hash as cuda_driver_app.
 *   cuda_runtime_like [--size N]
 */
#include <dlfcn.h>

#include "tests/cuda/cuprog.h"

static PFN_cuGetProcAddress_v12000 crl_gpa;

static void *crl_get(const char *name, cuuint64_t flags)
{
	void *fn = NULL;
	CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CUresult r = crl_gpa(name, &fn, 13000, flags, &st);

	if (r != CUDA_SUCCESS || !fn || st != CU_GET_PROC_ADDRESS_SUCCESS) {
		fprintf(stderr, "cuda_runtime_like: cuGetProcAddress(%s) failed: result %d status %d\n", name, (int)r,
			(int)st);
		exit(1);
	}
	return fn;
}

#define CRL_GET(field, name) a.field = (__typeof__(a.field))crl_get(name, CU_GET_PROC_ADDRESS_DEFAULT)

int main(int argc, char **argv)
{
	struct cup_api a;
	unsigned n = 4096;
	void *lib;

	cup_prog = "cuda_runtime_like";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			n = cup_parse_uint("--size", argv[++i], 1, 1u << 24);
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_runtime_like [--size N]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_runtime_like: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "cuda_runtime_like: dlopen libcuda.so.1: %s\n", dlerror());
		return 1;
	}
	crl_gpa = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
	if (!crl_gpa) {
		fprintf(stderr, "cuda_runtime_like: libcuda.so.1 has no cuGetProcAddress_v2\n");
		return 1;
	}
	CRL_GET(GetErrorName, "cuGetErrorName");
	CRL_GET(Init, "cuInit");
	CRL_GET(DeviceGet, "cuDeviceGet");
	CRL_GET(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	CRL_GET(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease");
	CRL_GET(CtxSetCurrent, "cuCtxSetCurrent");
	CRL_GET(ModuleLoadData, "cuModuleLoadData");
	CRL_GET(ModuleUnload, "cuModuleUnload");
	CRL_GET(ModuleGetFunction, "cuModuleGetFunction");
	CRL_GET(ModuleGetGlobal, "cuModuleGetGlobal");
	CRL_GET(MemAlloc, "cuMemAlloc");
	CRL_GET(MemFree, "cuMemFree");
	CRL_GET(MemAllocHost, "cuMemAllocHost");
	CRL_GET(MemFreeHost, "cuMemFreeHost");
	CRL_GET(MemcpyHtoD, "cuMemcpyHtoD");
	CRL_GET(MemcpyDtoH, "cuMemcpyDtoH");
	CRL_GET(MemcpyHtoDAsync, "cuMemcpyHtoDAsync");
	CRL_GET(MemcpyDtoHAsync, "cuMemcpyDtoHAsync");
	CRL_GET(MemsetD32, "cuMemsetD32");
	CRL_GET(StreamCreate, "cuStreamCreate");
	CRL_GET(StreamDestroy, "cuStreamDestroy");
	CRL_GET(StreamSynchronize, "cuStreamSynchronize");
	CRL_GET(StreamWaitEvent, "cuStreamWaitEvent");
	CRL_GET(EventCreate, "cuEventCreate");
	CRL_GET(EventRecord, "cuEventRecord");
	CRL_GET(EventDestroy, "cuEventDestroy");
	CRL_GET(LaunchKernel, "cuLaunchKernel");
	CRL_GET(LaunchKernelEx, "cuLaunchKernelEx");
	a.LaunchKernelDefault =
		(PFN_cuLaunchKernel_v4000)crl_get("cuLaunchKernel", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	printf("cuda_runtime_like: size %u hash 0x%016llx\n", n, (unsigned long long)cup_workload(&a, n, 0));
	return 0;
}
