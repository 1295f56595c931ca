/*
 * cuda_double_checks - the double's answers to bad parameters and handles,
 * and its cuGetProcAddress choices, each checked against the result the
 * driver documents.  Prints one line per failed check and exits 1 if any
 * failed; otherwise "cuda_double_checks: N checks passed".
 */
#include <dlfcn.h>

#include "tests/cuda/cuprog.h"

static int chk_failed, chk_passed;

static void chk(CUresult got, CUresult want, const char *what, int line)
{
	const char *g = NULL, *w = NULL;

	if (got == want) {
		chk_passed++;
		return;
	}
	cuGetErrorName(got, &g);
	cuGetErrorName(want, &w);
	printf("FAILED line %d: %s returned %s, expected %s\n", line, what, g ? g : "?", w ? w : "?");
	chk_failed++;
}
#define EXPECT(call, want) chk((call), (want), #call, __LINE__)
#define EXPECT_TRUE(cond) chk((cond) ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS, #cond, __LINE__)

static void *chk_proc(const char *name, int version, cuuint64_t flags, CUdriverProcAddressQueryResult *st)
{
	void *fn = (void *)1;

	EXPECT(cuGetProcAddress(name, &fn, version, flags, st), CUDA_SUCCESS);
	return fn;
}

int main(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod, mod2;
	CUfunction f_saxpy, f_fill, f_dead;
	CUlibrary lib;
	CUkernel k_fill;
	CUstream s, dead_s;
	CUevent ev, dead_ev, t0, t1;
	CUdeviceptr d, freed;
	CUdriverProcAddressQueryResult st;
	uint32_t host[64] = { 0 };
	size_t off, size;
	void *image, *libcuda;
	const char *name;
	float ms;

	cup_prog = "cuda_double_checks";
	EXPECT(cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
	EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuInit(0), CUDA_SUCCESS);
	EXPECT(cuDeviceGet(&dev, 7), CUDA_ERROR_INVALID_DEVICE);
	EXPECT(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
	EXPECT(cuMemAlloc(&d, 64), CUDA_ERROR_INVALID_CONTEXT);
	EXPECT(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
	EXPECT(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	EXPECT(cuCtxSetCurrent((CUcontext)host), CUDA_ERROR_INVALID_CONTEXT);

	/* allocations and copies */
	EXPECT(cuMemAlloc(&d, 0), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemAlloc(NULL, 64), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemAlloc(&d, (size_t)1 << 40), CUDA_ERROR_OUT_OF_MEMORY);
	EXPECT(cuMemAlloc(&d, 256), CUDA_SUCCESS);
	EXPECT(cuMemAlloc(&freed, 256), CUDA_SUCCESS);
	EXPECT(cuMemFree(freed), CUDA_SUCCESS);
	EXPECT(cuMemFree(freed), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemFree(d + 4), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyHtoD(d, host, 256), CUDA_SUCCESS);
	EXPECT(cuMemcpyHtoD(d, host, 257), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyHtoD(freed, host, 4), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)host, host, 4), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemcpyDtoH(NULL, d, 4), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemsetD32(d + 2, 0, 4), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemsetD32(d, 0, 65), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuMemsetD32(d, 7, 64), CUDA_SUCCESS);
	EXPECT(cuMemcpyDtoH(host, d, 256), CUDA_SUCCESS);
	EXPECT_TRUE(host[0] == 7 && host[63] == 7);

	/* modules and parameter layout */
	EXPECT(cuModuleLoadData(&mod, "not an image at all"), CUDA_ERROR_INVALID_IMAGE);
	{
		unsigned char cubin[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };

		cubin[16] = 2;   /* ET_EXEC */
		cubin[18] = 190; /* EM_CUDA */
		EXPECT(cuModuleLoadData(&mod, cubin), CUDA_ERROR_INVALID_IMAGE);
	}
	EXPECT(cuModuleLoad(&mod, "/nonexistent/kernels.so"), CUDA_ERROR_FILE_NOT_FOUND);
	image = cup_module_image("kernels", NULL);
	EXPECT(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
	EXPECT(cuModuleGetFunction(&f_saxpy, mod, "saxpy"), CUDA_SUCCESS);
	EXPECT(cuModuleGetFunction(&f_fill, mod, "fill"), CUDA_SUCCESS);
	EXPECT(cuModuleGetFunction(&f_dead, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
	EXPECT(cuFuncGetParamInfo(f_saxpy, 0, &off, &size), CUDA_SUCCESS);
	EXPECT_TRUE(off == 0 && size == 4);
	EXPECT(cuFuncGetParamInfo(f_saxpy, 1, &off, &size), CUDA_SUCCESS);
	EXPECT_TRUE(off == 8 && size == 8);
	EXPECT(cuFuncGetParamInfo(f_saxpy, 3, &off, NULL), CUDA_SUCCESS);
	EXPECT_TRUE(off == 24);
	EXPECT(cuFuncGetParamInfo(f_saxpy, 4, &off, &size), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuFuncGetName(&name, f_saxpy), CUDA_SUCCESS);
	EXPECT_TRUE(!strcmp(name, "saxpy"));
	EXPECT(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0), CUDA_SUCCESS);
	EXPECT(cuLibraryGetKernel(&k_fill, lib, "fill"), CUDA_SUCCESS);
	EXPECT(cuKernelGetParamInfo(k_fill, 3, &off, &size), CUDA_SUCCESS);
	EXPECT_TRUE(off == 16 && size == 4);
	EXPECT(cuKernelGetName(&name, k_fill), CUDA_SUCCESS);
	EXPECT_TRUE(!strcmp(name, "fill"));

	/* launches */
	{
		uint32_t value = 1, stride = 2, n = 64;
		void *args[] = { &d, &value, &stride, &n };

		EXPECT(cuLaunchKernel(f_fill, 0, 1, 1, 32, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuLaunchKernel(f_fill, 1, 1, 1, 0, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuLaunchKernel(f_fill, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuLaunchKernel(f_fill, 1, 1, 1, 64, 1, 1, 1 << 20, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuLaunchKernel(f_fill, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuLaunchKernel((CUfunction)host, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
		EXPECT(cuLaunchKernel(f_fill, 1, 1, 1, 64, 1, 1, 0, (CUstream)host, args, NULL), CUDA_ERROR_INVALID_HANDLE);
		EXPECT(cuLaunchCooperativeKernel(f_fill, 100000, 1, 1, 64, 1, 1, 0, NULL, args),
		       CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
		/* a CUkernel passed as a CUfunction launches */
		EXPECT(cuLaunchKernel((CUfunction)k_fill, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
		EXPECT(cuMemcpyDtoH(host, d, 256), CUDA_SUCCESS);
		EXPECT_TRUE(host[0] == 1 && host[63] == 1 + 63 * 2);
	}
	EXPECT(cuModuleLoadData(&mod2, image), CUDA_SUCCESS);
	EXPECT(cuModuleGetFunction(&f_dead, mod2, "fill"), CUDA_SUCCESS);
	EXPECT(cuModuleUnload(mod2), CUDA_SUCCESS);
	EXPECT(cuModuleUnload(mod2), CUDA_ERROR_INVALID_HANDLE);
	{
		uint32_t value = 1, stride = 2, n = 64;
		void *args[] = { &d, &value, &stride, &n };

		EXPECT(cuLaunchKernel(f_dead, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
	}

	/* streams and events */
	EXPECT(cuStreamCreate(&s, 0x10), CUDA_ERROR_INVALID_VALUE);
	EXPECT(cuStreamCreate(&s, 0), CUDA_SUCCESS);
	EXPECT(cuStreamCreate(&dead_s, 0), CUDA_SUCCESS);
	EXPECT(cuStreamDestroy(dead_s), CUDA_SUCCESS);
	EXPECT(cuStreamSynchronize(dead_s), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuStreamSynchronize((CUstream)host), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuStreamDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuEventCreate(&ev, 0), CUDA_SUCCESS);
	EXPECT(cuEventQuery(ev), CUDA_SUCCESS); /* never recorded */
	EXPECT(cuEventCreate(&dead_ev, 0), CUDA_SUCCESS);
	EXPECT(cuEventDestroy(dead_ev), CUDA_SUCCESS);
	EXPECT(cuEventRecord(dead_ev, s), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuStreamWaitEvent(s, dead_ev, 0), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuEventCreate(&t0, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
	EXPECT(cuEventCreate(&t1, 0), CUDA_SUCCESS);
	EXPECT(cuEventRecord(t0, s), CUDA_SUCCESS);
	EXPECT(cuEventRecord(t1, s), CUDA_SUCCESS);
	EXPECT(cuEventSynchronize(t1), CUDA_SUCCESS);
	EXPECT(cuEventElapsedTime(&ms, t0, t1), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuEventRecord(ev, s), CUDA_SUCCESS);
	EXPECT(cuEventSynchronize(ev), CUDA_SUCCESS);
	EXPECT(cuEventElapsedTime(&ms, t1, ev), CUDA_SUCCESS);
	EXPECT_TRUE(ms >= 0.0f);

	/* stream capture */
	EXPECT(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	EXPECT(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
	EXPECT(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_ERROR_ILLEGAL_STATE);
	EXPECT(cuMemsetD32(d, 0, 4), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
	EXPECT(cuStreamSynchronize(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	{
		CUgraph g = (CUgraph)host;
		CUstreamCaptureStatus cs;

		EXPECT(cuStreamIsCapturing(s, &cs), CUDA_SUCCESS);
		EXPECT_TRUE(cs == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
		EXPECT(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
		EXPECT_TRUE(g == NULL);
		EXPECT(cuStreamEndCapture(s, &g), CUDA_ERROR_ILLEGAL_STATE);
	}

	/* VMM */
	{
		CUmemAllocationProp prop = { 0 };
		CUmemGenericAllocationHandle h;
		CUdeviceptr base;
		size_t gran;

		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = 0;
		EXPECT(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
		EXPECT(cuMemCreate(&h, gran + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemCreate(&h, gran, &prop, 0), CUDA_SUCCESS);
		EXPECT(cuMemAddressReserve(&base, 2 * gran, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemAddressReserve(&base, 2 * gran, 0, 0, 0), CUDA_SUCCESS);
		EXPECT(cuMemMap(base + 2 * gran, gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemMap(base, gran, 0, h, 0), CUDA_SUCCESS);
		EXPECT(cuMemMap(base, gran, 0, h, 0), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemcpyHtoD(base, host, 4), CUDA_ERROR_INVALID_VALUE); /* no access yet */
		EXPECT(cuMemAddressFree(base, 2 * gran), CUDA_ERROR_INVALID_VALUE); /* still mapped */
		EXPECT(cuMemUnmap(base, gran), CUDA_SUCCESS);
		EXPECT(cuMemRelease(h), CUDA_SUCCESS);
		EXPECT(cuMemRelease(h), CUDA_ERROR_INVALID_HANDLE);
		EXPECT(cuMemAddressFree(base, 2 * gran), CUDA_SUCCESS);

		/* An allocation is mapped whole: on the H100 (580.159.04, 2026-11-26,
		 * docs/gpu-validation.md) cuMemMap of the first 2 MiB of a 20 MiB
		 * allocation failed with CUDA_ERROR_NOT_SUPPORTED. */
		EXPECT(cuMemCreate(&h, 2 * gran, &prop, 0), CUDA_SUCCESS);
		EXPECT(cuMemAddressReserve(&base, 2 * gran, 0, 0, 0), CUDA_SUCCESS);
		EXPECT(cuMemMap(base, gran, 0, h, 0), CUDA_ERROR_NOT_SUPPORTED);
		EXPECT(cuMemMap(base + gran, gran, gran, h, 0), CUDA_ERROR_NOT_SUPPORTED);
		EXPECT(cuMemMap(base, 2 * gran, 0, h, 0), CUDA_SUCCESS);
		EXPECT(cuMemUnmap(base, 2 * gran), CUDA_SUCCESS);
		EXPECT(cuMemRelease(h), CUDA_SUCCESS);
		EXPECT(cuMemAddressFree(base, 2 * gran), CUDA_SUCCESS);
	}

	/* cuGetProcAddress picks the variant the driver would */
	libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	EXPECT_TRUE(libcuda != NULL);
	if (libcuda) {
		EXPECT_TRUE(chk_proc("cuMemAlloc", 13000, 0, &st) == dlsym(libcuda, "cuMemAlloc_v2"));
		EXPECT_TRUE(st == CU_GET_PROC_ADDRESS_SUCCESS);
		EXPECT_TRUE(chk_proc("cuMemAlloc", 3000, 0, &st) == dlsym(libcuda, "cuMemAlloc"));
		EXPECT_TRUE(chk_proc("cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st) ==
			    dlsym(libcuda, "cuLaunchKernel"));
		EXPECT_TRUE(chk_proc("cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &st) ==
			    dlsym(libcuda, "cuLaunchKernel"));
		EXPECT_TRUE(chk_proc("cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) ==
			    dlsym(libcuda, "cuLaunchKernel_ptsz"));
		EXPECT_TRUE(chk_proc("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) ==
			    dlsym(libcuda, "cuMemcpyHtoD_v2_ptds"));
		EXPECT_TRUE(chk_proc("cuStreamBeginCapture", 10000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
				     &st) == dlsym(libcuda, "cuStreamBeginCapture_ptsz"));
		EXPECT_TRUE(chk_proc("cuEventElapsedTime", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st) ==
			    dlsym(libcuda, "cuEventElapsedTime_v2"));
		EXPECT_TRUE(chk_proc("cuGetProcAddress", 13000, 0, &st) == dlsym(libcuda, "cuGetProcAddress_v2"));
		EXPECT_TRUE(chk_proc("cuLaunchKernelEx", 11000, 0, &st) == NULL);
		EXPECT_TRUE(st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
		EXPECT_TRUE(chk_proc("cuMemAlloc_v2", 13000, 0, &st) == NULL);
		EXPECT_TRUE(st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
		EXPECT_TRUE(chk_proc("cuNoSuchCall", 13000, 0, &st) == NULL);
		EXPECT_TRUE(st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
		EXPECT_TRUE(dlsym(libcuda, "cuMipmappedArrayCreate") == NULL); /* not modelled: not exported */
		dlclose(libcuda);
	}
	{
		void *fn;

		EXPECT(cuGetProcAddress("cuMemAlloc", &fn, 99999, 0, NULL), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuGetProcAddress("cuMemAlloc", &fn, 13000, 4, NULL), CUDA_ERROR_INVALID_VALUE);
	}
	{
		const void *table = host;
		CUuuid id = { { 0 } };

		EXPECT(cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
		EXPECT(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &name), CUDA_SUCCESS);
		EXPECT_TRUE(!strcmp(name, "CUDA_ERROR_INVALID_HANDLE"));
		EXPECT(cuGetErrorName((CUresult)12345, &name), CUDA_ERROR_INVALID_VALUE);
	}

	{
		/* CUDA arrays: descriptors checked as documented, copies
		 * checked against the array, surfaces need SURFACE_LDST */
		CUDA_ARRAY3D_DESCRIPTOR a3 = { 0 }, got;
		CUDA_ARRAY_DESCRIPTOR a2 = { 0 };
		CUDA_MEMCPY3D c3 = { 0 };
		CUDA_RESOURCE_DESC res = { 0 };
		CUarray arr, plain;
		CUsurfObject so;
		uint32_t in[2 * 3 * 4], out[2 * 3 * 4];

		a3.Width = 4;
		a3.Height = 3;
		a3.Depth = 2;
		a3.Format = CU_AD_FORMAT_UNSIGNED_INT32;
		a3.NumChannels = 3;
		EXPECT(cuArray3DCreate(&arr, &a3), CUDA_ERROR_INVALID_VALUE); /* 3 channels */
		a3.NumChannels = 1;
		a3.Format = (CUarray_format)0x77;
		EXPECT(cuArray3DCreate(&arr, &a3), CUDA_ERROR_INVALID_VALUE); /* unknown format */
		a3.Format = CU_AD_FORMAT_UNSIGNED_INT32;
		a3.Height = 0;
		EXPECT(cuArray3DCreate(&arr, &a3), CUDA_ERROR_INVALID_VALUE); /* (W, 0, D) unlayered */
		a3.Height = 3;
		a3.Width = 20000;
		EXPECT(cuArray3DCreate(&arr, &a3), CUDA_ERROR_INVALID_VALUE); /* above the 3D limit */
		a3.Width = 4;
		a3.Flags = 0x100;
		EXPECT(cuArray3DCreate(&arr, &a3), CUDA_ERROR_INVALID_VALUE); /* unknown flag */
		a3.Flags = CUDA_ARRAY3D_SURFACE_LDST;
		EXPECT(cuArray3DCreate(&arr, &a3), CUDA_SUCCESS);
		EXPECT(cuArray3DGetDescriptor(&got, arr), CUDA_SUCCESS);
		EXPECT_TRUE(got.Width == 4 && got.Height == 3 && got.Depth == 2 && got.Flags == CUDA_ARRAY3D_SURFACE_LDST);
		a2.Width = 4;
		a2.Format = CU_AD_FORMAT_FLOAT;
		a2.NumChannels = 2;
		EXPECT(cuArrayCreate(&plain, &a2), CUDA_SUCCESS); /* 1D */
		for (unsigned i = 0; i < 24; i++)
			in[i] = i * 11;
		c3.srcMemoryType = CU_MEMORYTYPE_HOST;
		c3.srcHost = in;
		c3.srcPitch = 16;
		c3.srcHeight = 3;
		c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		c3.dstArray = arr;
		c3.WidthInBytes = 16;
		c3.Height = 3;
		c3.Depth = 2;
		EXPECT(cuMemcpy3D(&c3), CUDA_SUCCESS);
		c3.dstZ = 1;
		EXPECT(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE); /* one slice past */
		c3.dstZ = 0;
		c3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c3.srcArray = arr;
		c3.dstMemoryType = CU_MEMORYTYPE_HOST;
		c3.dstArray = NULL;
		c3.dstHost = out;
		c3.dstPitch = 16;
		c3.dstHeight = 3;
		EXPECT(cuMemcpy3D(&c3), CUDA_SUCCESS);
		EXPECT_TRUE(!memcmp(in, out, sizeof(in)));
		res.resType = CU_RESOURCE_TYPE_ARRAY;
		res.res.array.hArray = plain;
		EXPECT(cuSurfObjectCreate(&so, &res), CUDA_ERROR_INVALID_VALUE); /* no SURFACE_LDST */
		res.res.array.hArray = arr;
		EXPECT(cuSurfObjectCreate(&so, &res), CUDA_SUCCESS);
		EXPECT(cuSurfObjectDestroy(so), CUDA_SUCCESS);
		EXPECT(cuArrayDestroy(plain), CUDA_SUCCESS);
		EXPECT(cuArrayDestroy(arr), CUDA_SUCCESS);
		EXPECT(cuArrayDestroy(arr), CUDA_ERROR_INVALID_HANDLE);
		EXPECT(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_HANDLE); /* a destroyed array */
	}

	EXPECT(cuStreamDestroy(s), CUDA_SUCCESS);
	EXPECT(cuLibraryUnload(lib), CUDA_SUCCESS);
	EXPECT(cuKernelGetParamInfo(k_fill, 0, &off, &size), CUDA_ERROR_INVALID_HANDLE);
	EXPECT(cuMemFree(d), CUDA_SUCCESS);
	EXPECT(cuModuleUnload(mod), CUDA_SUCCESS);
	free(image);
	if (chk_failed) {
		printf("cuda_double_checks: %d of %d checks failed\n", chk_failed, chk_failed + chk_passed);
		return 1;
	}
	printf("cuda_double_checks: %d checks passed\n", chk_passed);
	return 0;
}
