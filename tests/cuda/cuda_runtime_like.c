/*
 * cuda_runtime_like - the same workload as cuda_driver_app, reaching the
 * driver the way the CUDA 13 runtime was measured to on the H100
 * (../shared/gpu-fixtures, the saxpy captures):
 *   - no link-time cu* symbol at all: dlopen("libcuda.so.1"),
 *     dlsym(handle, "cuGetProcAddress_v2"), then every entry point through
 *     cuGetProcAddress with cudaVersion 13000 and default flags, plus one
 *     per-thread-default-stream lookup (cuLaunchKernel, used on stream 0);
 *   - the primary context through a private table from cuGetExportTable
 *     (fact 6: cudart asks for such tables and its calls through them are
 *     not seen), so that the first call naming the context that an
 *     interposer sees is cuCtxSetCurrent, followed by a visible
 *     cuDevicePrimaryCtxRetain (saxpy_static.sbt: seq 3 and 4).  Where the
 *     driver has no such table (cuGetExportTable fails), the context comes
 *     from cuDevicePrimaryCtxRetain instead;
 *   - the module through cuLibraryLoadData of a fatbin wrapper (fact 5:
 *     u32 0x466243b1, u32 version 1, u64 pointer to the fatbin, u64 pointer
 *     to a file name) pointing at a fatbin whose one entry is the double's
 *     kernels.so as sm_90 ELF code, as nvcc embeds a cubin;
 *   - kernels as CUkernels from cuLibraryGetKernel, launched as CUfunctions
 *     (the captures' launches name the cuLibraryGetKernel handles).
 * Prints the same hash as cuda_driver_app.
 *   cuda_runtime_like [--size N] [--rdc]
 * --rdc hands over a version 2 wrapper with a prelinked list, as -rdc builds do.
 */
#include <dlfcn.h>

#include "tests/cuda/cuprog.h"
#include "tests/doubles/cuda/tcd_ext.h"

/* The fatbin layout (tests/doubles/cuda/tcd_image.c has the full story). */
#define CRL_WRAPPER_MAGIC 0x466243b1u
#define CRL_FATBIN_MAGIC 0xba55ed50u
#define CRL_FATBIN_HEADER 16u
#define CRL_ENTRY_HEADER 64u
#define CRL_ENTRY_ELF 2u
#define CRL_ARCH 90u

static PFN_cuGetProcAddress_v12000 crl_gpa;

/* What the runtime keeps: its library and the functions it looked up. */
static struct {
	PFN_cuGetExportTable_v3000 GetExportTable;
	PFN_cuLibraryLoadData_v12000 LibraryLoadData;
	PFN_cuLibraryUnload_v12000 LibraryUnload;
	PFN_cuLibraryGetKernel_v12000 LibraryGetKernel;
	PFN_cuLibraryGetModule_v12000 LibraryGetModule;
	PFN_cuDevicePrimaryCtxRetain_v7000 DevicePrimaryCtxRetain;
	PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;
	CUlibrary lib;
	unsigned char *fatbin; /* kept while the library lives, as cudart keeps its own */
	int rdc;               /* --rdc: a version 2 wrapper, as an -rdc build's */
	const void *prelinked[2]; /* its NULL-terminated list of prelinked fatbins */
	struct {
		uint32_t magic, version;
		uint64_t fatbin, name;
	} wrapper;
} crl;

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

static void crl_put_u16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void crl_put_u32(unsigned char *p, uint32_t v)
{
	crl_put_u16(p, (uint16_t)v);
	crl_put_u16(p + 2, (uint16_t)(v >> 16));
}

static void crl_put_u64(unsigned char *p, uint64_t v)
{
	crl_put_u32(p, (uint32_t)v);
	crl_put_u32(p + 4, (uint32_t)(v >> 32));
}

/* A fatbin of one sm_90 ELF entry holding the double's kernels.so. */
static unsigned char *crl_fatbin(void)
{
	size_t so_len = 0, padded;
	unsigned char *so = cup_module_image("kernels", &so_len), *fb;

	padded = (so_len + 7) & ~(size_t)7;
	fb = calloc(1, CRL_FATBIN_HEADER + CRL_ENTRY_HEADER + padded);
	if (!fb) {
		fprintf(stderr, "cuda_runtime_like: out of memory\n");
		exit(1);
	}
	crl_put_u32(fb, CRL_FATBIN_MAGIC);
	crl_put_u16(fb + 4, 1);
	crl_put_u16(fb + 6, CRL_FATBIN_HEADER);
	crl_put_u64(fb + 8, CRL_ENTRY_HEADER + padded);
	crl_put_u16(fb + 16, CRL_ENTRY_ELF);
	crl_put_u16(fb + 18, 0x0101);
	crl_put_u32(fb + 20, CRL_ENTRY_HEADER);
	crl_put_u64(fb + 24, padded);
	crl_put_u32(fb + 16 + 24, 0x00010008); /* code version 1.8, as nvcc 13 writes for ELF */
	crl_put_u32(fb + 16 + 28, CRL_ARCH);
	crl_put_u64(fb + 16 + 40, 0x11);      /* 64-bit, Linux host */
	memcpy(fb + CRL_FATBIN_HEADER + CRL_ENTRY_HEADER, so, so_len);
	free(so);
	return fb;
}

static CUresult crl_context(CUcontext *ctx, CUdevice dev)
{
	static const CUuuid id = { TCD_SIDEDOOR_UUID_BYTES };
	const void *table = NULL;
	const tcd_sidedoor *door;
	CUresult r;

	if (crl.GetExportTable(&table, &id) == CUDA_SUCCESS && table &&
	    (door = table)->size >= sizeof(tcd_sidedoor) && door->primary_ctx_retain)
		r = door->primary_ctx_retain(ctx, dev);
	else /* no side door in this driver: the exported call instead */
		r = crl.DevicePrimaryCtxRetain(ctx, dev);
	if (r != CUDA_SUCCESS || (r = crl.CtxSetCurrent(*ctx)) != CUDA_SUCCESS)
		return r;
	/* cudart then retains it where an interposer sees it (seq 4 of the capture). */
	return crl.DevicePrimaryCtxRetain(ctx, dev);
}

static CUresult crl_load(CUmodule *mod)
{
	CUresult r;

	crl.fatbin = crl_fatbin();
	crl.wrapper.magic = CRL_WRAPPER_MAGIC;
	crl.wrapper.version = crl.rdc ? 2 : 1;
	crl.wrapper.fatbin = (uint64_t)(uintptr_t)crl.fatbin;
	crl.wrapper.name = 0;
	if (crl.rdc) {
		/* An -rdc build's wrapper names the relocatable fatbins of its
		 * objects (cudart's __cudaRegisterLinkedBinary fills the list);
		 * here the one object's, the same fatbin. */
		crl.prelinked[0] = crl.fatbin;
		crl.prelinked[1] = NULL;
		crl.wrapper.name = (uint64_t)(uintptr_t)crl.prelinked;
	}
	r = crl.LibraryLoadData(&crl.lib, &crl.wrapper, NULL, NULL, 0, NULL, NULL, 0);
	if (r != CUDA_SUCCESS)
		return r;
	/* The module handle serves cuModuleGetGlobal (the workload's globals). */
	return crl.LibraryGetModule(mod, crl.lib);
}

static CUresult crl_function(CUfunction *f, const char *name)
{
	CUkernel k;
	CUresult r = crl.LibraryGetKernel(&k, crl.lib, name);

	if (r == CUDA_SUCCESS)
		*f = (CUfunction)k; /* a CUkernel is launched as a CUfunction, as cudart does */
	return r;
}

static CUresult crl_unload(void)
{
	CUresult r = crl.LibraryUnload(crl.lib);

	free(crl.fatbin);
	crl.fatbin = NULL;
	return r;
}

#define CRL_GET(field, name) a.field = (__typeof__(a.field))crl_get(name, CU_GET_PROC_ADDRESS_DEFAULT)
#define CRL_GET_RT(field, name) crl.field = (__typeof__(crl.field))crl_get(name, CU_GET_PROC_ADDRESS_DEFAULT)

int main(int argc, char **argv)
{
	struct cup_api a = { 0 };
	unsigned n = 4096;
	void *lib;

	cup_prog = "cuda_runtime_like";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			n = cup_parse_uint("--size", argv[++i], 1, 1u << 24);
		} else if (!strcmp(argv[i], "--rdc")) {
			crl.rdc = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_runtime_like [--size N] [--rdc]\n");
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
	CRL_GET_RT(GetExportTable, "cuGetExportTable");
	CRL_GET_RT(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	CRL_GET(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease");
	CRL_GET_RT(CtxSetCurrent, "cuCtxSetCurrent");
	CRL_GET_RT(LibraryLoadData, "cuLibraryLoadData");
	CRL_GET_RT(LibraryUnload, "cuLibraryUnload");
	CRL_GET_RT(LibraryGetKernel, "cuLibraryGetKernel");
	CRL_GET_RT(LibraryGetModule, "cuLibraryGetModule");
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
	a.RtContext = crl_context;
	a.RtLoad = crl_load;
	a.RtFunction = crl_function;
	a.RtUnload = crl_unload;
	printf("cuda_runtime_like: size %u hash 0x%016llx\n", n, (unsigned long long)cup_workload(&a, n, 0));
	return 0;
}
