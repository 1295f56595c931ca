/*
 * cuprog.h - shared by the CUDA test programs in tests/cuda/: error checks,
 * finding the double's module image, and the driver-API workload that
 * cuda_driver_app (link-time symbols) and cuda_runtime_like (entry points
 * from cuGetProcAddress) both run, through a table of function pointers, so
 * that the two must print the same hash.
 *
 * The workload is properly ordered (events between its two streams), so its
 * hash is the same on a GPU, on the double, and under every
 * TSCUDA_DOUBLE_SEED.  With racy set it leaves the events out and adds a
 * pair of non-commuting kernels on two streams: then the hash depends on the
 * order the streams ran in.
 */
#ifndef CUPROG_H
#define CUPROG_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

struct cup_api {
	PFN_cuGetErrorName_v6000 GetErrorName;
	PFN_cuInit_v2000 Init;
	PFN_cuDeviceGet_v2000 DeviceGet;
	PFN_cuDevicePrimaryCtxRetain_v7000 DevicePrimaryCtxRetain;
	PFN_cuDevicePrimaryCtxRelease_v11000 DevicePrimaryCtxRelease;
	PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;
	PFN_cuModuleLoadData_v2000 ModuleLoadData;
	PFN_cuModuleUnload_v2000 ModuleUnload;
	PFN_cuModuleGetFunction_v2000 ModuleGetFunction;
	PFN_cuModuleGetGlobal_v3020 ModuleGetGlobal;
	PFN_cuMemAlloc_v3020 MemAlloc;
	PFN_cuMemFree_v3020 MemFree;
	PFN_cuMemAllocHost_v3020 MemAllocHost;
	PFN_cuMemFreeHost_v2000 MemFreeHost;
	PFN_cuMemcpyHtoD_v3020 MemcpyHtoD;
	PFN_cuMemcpyDtoH_v3020 MemcpyDtoH;
	PFN_cuMemcpyHtoDAsync_v3020 MemcpyHtoDAsync;
	PFN_cuMemcpyDtoHAsync_v3020 MemcpyDtoHAsync;
	PFN_cuMemsetD32_v3020 MemsetD32;
	PFN_cuStreamCreate_v2000 StreamCreate;
	PFN_cuStreamDestroy_v4000 StreamDestroy;
	PFN_cuStreamSynchronize_v2000 StreamSynchronize;
	PFN_cuStreamWaitEvent_v3020 StreamWaitEvent;
	PFN_cuEventCreate_v2000 EventCreate;
	PFN_cuEventRecord_v2000 EventRecord;
	PFN_cuEventDestroy_v4000 EventDestroy;
	PFN_cuLaunchKernel_v4000 LaunchKernel;
	PFN_cuLaunchKernelEx_v11060 LaunchKernelEx;
	/* the launch used on the default stream (stream 0): legacy in
	 * cuda_driver_app, the per-thread-stream variant in cuda_runtime_like */
	PFN_cuLaunchKernel_v4000 LaunchKernelDefault;
	/* cuda_runtime_like only (NULL in cuda_driver_app): reaching the
	 * primary context, the module and its kernels the way cudart does
	 * (side door, cuLibraryLoadData of a fatbin wrapper, CUkernels). */
	CUresult (*RtContext)(CUcontext *ctx, CUdevice dev);
	CUresult (*RtLoad)(CUmodule *mod);
	CUresult (*RtFunction)(CUfunction *f, const char *name);
	CUresult (*RtUnload)(void);
};

static const char *cup_prog = "cuda program";
static const struct cup_api *cup_api_for_errors;

__attribute__((unused)) static void cup_check(CUresult r, const char *what, int line)
{
	const char *name = NULL;

	if (r == CUDA_SUCCESS)
		return;
	if (cup_api_for_errors && cup_api_for_errors->GetErrorName)
		cup_api_for_errors->GetErrorName(r, &name);
	fprintf(stderr, "%s: line %d: %s failed: %s (%d)\n", cup_prog, line, what, name ? name : "?", (int)r);
	exit(1);
}
#define CUP_CK(call) cup_check((call), #call, __LINE__)

/* The bytes of the double's module image NAME.so, found beside the program:
 * dirname(/proc/self/exe)/../doubles/cuda/modules/NAME.so; with
 * CUP_IMAGE_DIR set, DIR/NAME.cubin instead (a real GPU's image of the same
 * kernels: tests/gpu/gpu_double_kernels.cu, test_gpu_graph_nodes.sh). */
__attribute__((unused)) static void *cup_module_image(const char *name, size_t *size_out)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	long size;
	void *buf;

	if (n <= 0) {
		fprintf(stderr, "%s: cannot read /proc/self/exe\n", cup_prog);
		exit(1);
	}
	exe[n] = 0;
	if (getenv("CUP_IMAGE_DIR") && *getenv("CUP_IMAGE_DIR"))
		snprintf(path, sizeof(path), "%s/%s.cubin", getenv("CUP_IMAGE_DIR"), name);
	else
		snprintf(path, sizeof(path), "%s/../doubles/cuda/modules/%s.so", dirname(exe), name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)size)) || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "%s: cannot read the module image %s\n", cup_prog, path);
		exit(1);
	}
	fclose(f);
	if (size_out)
		*size_out = (size_t)size;
	return buf;
}

__attribute__((unused)) static unsigned cup_parse_uint(const char *flag, const char *v, unsigned lo, unsigned hi)
{
	char *end;
	unsigned long n = strtoul(v ? v : "", &end, 0);

	if (!v || !*v || *end || n < lo || n > hi) {
		fprintf(stderr, "%s: %s needs a number from %u to %u, got '%s'\n", cup_prog, flag, lo, hi, v ? v : "");
		exit(2);
	}
	return (unsigned)n;
}

struct krn_node {
	uint64_t next;
	uint32_t value;
	uint32_t pad;
};

/* Runs the workload on n elements; returns the hash of everything read back. */
__attribute__((unused)) static uint64_t cup_workload(const struct cup_api *a, unsigned n, int racy)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_vadd, f_reduce, f_saxpy, f_scale, f_racy_scale, f_racy_xor;
	CUdeviceptr d_a, d_b, d_c, d_part, d_x, d_y, d_table, d_bias, d_r;
	CUstream s1, s2;
	CUevent e_b, e_c;
	uint32_t *h_a = malloc(n * sizeof(uint32_t)), *h_c = malloc(n * sizeof(uint32_t));
	float *h_x = malloc(n * sizeof(float)), *h_y = malloc(n * sizeof(float));
	uint32_t *h_r = malloc(n * sizeof(uint32_t));
	unsigned block = 128, grid = (n + block - 1) / block;
	uint64_t *h_part;
	size_t gsize;
	uint32_t table[16], bias = 11;
	XXH64_state_t *h = XXH64_createState();
	uint64_t out;

	cup_api_for_errors = a;
	if (!h_a || !h_c || !h_x || !h_y || !h_r || !h) {
		fprintf(stderr, "%s: out of memory\n", cup_prog);
		exit(1);
	}
	XXH64_reset(h, 0);
	for (unsigned i = 0; i < n; i++) {
		h_a[i] = i * 7u + 3u;
		h_x[i] = (float)(i % 101) * 0.5f;
		h_y[i] = (float)(i % 13);
	}
	for (unsigned i = 0; i < 16; i++)
		table[i] = i * 3u + 1u;

	CUP_CK(a->Init(0));
	CUP_CK(a->DeviceGet(&dev, 0));
	if (a->RtContext) {
		CUP_CK(a->RtContext(&ctx, dev));
	} else {
		CUP_CK(a->DevicePrimaryCtxRetain(&ctx, dev));
		CUP_CK(a->CtxSetCurrent(ctx));
	}
	if (a->RtLoad) {
		CUP_CK(a->RtLoad(&mod));
	} else {
		void *image = cup_module_image("kernels", NULL);

		CUP_CK(a->ModuleLoadData(&mod, image));
		free(image); /* the driver keeps its own copy */
	}
#define CUP_FUNCTION(f, name) \
	CUP_CK(a->RtFunction ? a->RtFunction(&(f), name) : a->ModuleGetFunction(&(f), mod, name))
	CUP_FUNCTION(f_fill, "fill");
	CUP_FUNCTION(f_vadd, "vadd");
	CUP_FUNCTION(f_reduce, "reduce");
	CUP_FUNCTION(f_saxpy, "saxpy");
	CUP_FUNCTION(f_scale, "scale_by_table");
	CUP_FUNCTION(f_racy_scale, "racy_scale");
	CUP_FUNCTION(f_racy_xor, "racy_xor");
#undef CUP_FUNCTION
	CUP_CK(a->ModuleGetGlobal(&d_table, &gsize, mod, "table"));
	CUP_CK(a->ModuleGetGlobal(&d_bias, NULL, mod, "bias"));

	CUP_CK(a->MemAlloc(&d_a, n * sizeof(uint32_t)));
	CUP_CK(a->MemAlloc(&d_b, n * sizeof(uint32_t)));
	CUP_CK(a->MemAlloc(&d_c, n * sizeof(uint32_t)));
	CUP_CK(a->MemAlloc(&d_part, grid * sizeof(uint64_t)));
	CUP_CK(a->MemAlloc(&d_x, n * sizeof(float)));
	CUP_CK(a->MemAlloc(&d_y, n * sizeof(float)));
	CUP_CK(a->MemAlloc(&d_r, n * sizeof(uint32_t)));
	CUP_CK(a->MemAllocHost((void **)&h_part, grid * sizeof(uint64_t)));
	CUP_CK(a->StreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CUP_CK(a->StreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CUP_CK(a->EventCreate(&e_b, CU_EVENT_DISABLE_TIMING));
	CUP_CK(a->EventCreate(&e_c, CU_EVENT_DISABLE_TIMING));

	/* Synchronous uploads go through the legacy stream. */
	CUP_CK(a->MemcpyHtoD(d_a, h_a, n * sizeof(uint32_t)));
	CUP_CK(a->MemcpyHtoD(d_table, table, sizeof(table)));
	CUP_CK(a->MemcpyHtoD(d_bias, &bias, sizeof(bias)));
	CUP_CK(a->MemsetD32(d_r, 5, n));

	/* s1 produces B; s2 consumes it once e_b says so. */
	{
		uint32_t value = 100, stride = 3;
		void *args[] = { &d_b, &value, &stride, &n };

		CUP_CK(a->LaunchKernel(f_fill, grid, 1, 1, block, 1, 1, 0, s1, args, NULL));
	}
	CUP_CK(a->MemcpyHtoDAsync(d_x, h_x, n * sizeof(float), s1));
	CUP_CK(a->MemcpyHtoDAsync(d_y, h_y, n * sizeof(float), s1));
	CUP_CK(a->EventRecord(e_b, s1));
	if (!racy)
		CUP_CK(a->StreamWaitEvent(s2, e_b, 0));
	{
		/* the `extra` form: one packed buffer in the kernel's layout */
		struct {
			CUdeviceptr a, b, c;
			uint32_t n;
			uint32_t pad;
		} buf = { d_a, d_b, d_c, n, 0 };
		size_t bufsize = sizeof(buf);
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bufsize,
				  CU_LAUNCH_PARAM_END };

		CUP_CK(a->LaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s2, NULL, extra));
	}
	{
		CUlaunchConfig cfg = { grid, 1, 1, block, 1, 1, block * (unsigned)sizeof(uint64_t), s2, NULL, 0 };
		void *args[] = { &d_c, &d_part, &n };

		CUP_CK(a->LaunchKernelEx(&cfg, f_reduce, args, NULL));
	}
	CUP_CK(a->MemcpyDtoHAsync(h_part, d_part, grid * sizeof(uint64_t), s2));
	CUP_CK(a->EventRecord(e_c, s2));
	/* saxpy on s1 after both x/y uploads (same stream: ordered). */
	{
		float alpha = 2.5f;
		void *args[] = { &alpha, &d_x, &d_y, &n };

		CUP_CK(a->LaunchKernel(f_saxpy, grid, 1, 1, block, 1, 1, 0, s1, args, NULL));
	}
	if (!racy)
		CUP_CK(a->StreamWaitEvent(s1, e_c, 0));
	/* scale C by the module's table: must come after the reduce read C. */
	{
		void *args[] = { &d_c, &n };

		CUP_CK(a->LaunchKernel(f_scale, grid, 1, 1, block, 1, 1, 0, s1, args, NULL));
	}
	if (racy) {
		/* two non-commuting updates of R on two unordered streams */
		for (uint32_t round = 0; round < 4; round++) {
			uint32_t k1 = 3 + round, k2 = 0x5a5a0000u + round;
			void *args1[] = { &d_r, &k1, &n };
			void *args2[] = { &d_r, &k2, &n };

			CUP_CK(a->LaunchKernel(f_racy_scale, grid, 1, 1, block, 1, 1, 0, s1, args1, NULL));
			CUP_CK(a->LaunchKernel(f_racy_xor, grid, 1, 1, block, 1, 1, 0, s2, args2, NULL));
		}
	}
	CUP_CK(a->StreamSynchronize(s2));
	CUP_CK(a->StreamSynchronize(s1));
	/* One more update on the default stream, then synchronous readbacks. */
	{
		uint32_t k = 9;
		void *args[] = { &d_r, &k, &n };

		CUP_CK(a->LaunchKernelDefault(f_racy_scale, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL));
	}
	CUP_CK(a->MemcpyDtoH(h_c, d_c, n * sizeof(uint32_t)));
	CUP_CK(a->MemcpyDtoH(h_y, d_y, n * sizeof(float)));
	CUP_CK(a->MemcpyDtoH(h_r, d_r, n * sizeof(uint32_t)));
	XXH64_update(h, h_part, grid * sizeof(uint64_t));
	XXH64_update(h, h_c, n * sizeof(uint32_t));
	XXH64_update(h, h_y, n * sizeof(float));
	XXH64_update(h, h_r, n * sizeof(uint32_t));
	out = XXH64_digest(h);

	CUP_CK(a->EventDestroy(e_b));
	CUP_CK(a->EventDestroy(e_c));
	CUP_CK(a->StreamDestroy(s1));
	CUP_CK(a->StreamDestroy(s2));
	CUP_CK(a->MemFreeHost(h_part));
	CUP_CK(a->MemFree(d_a));
	CUP_CK(a->MemFree(d_b));
	CUP_CK(a->MemFree(d_c));
	CUP_CK(a->MemFree(d_part));
	CUP_CK(a->MemFree(d_x));
	CUP_CK(a->MemFree(d_y));
	CUP_CK(a->MemFree(d_r));
	CUP_CK(a->RtUnload ? a->RtUnload() : a->ModuleUnload(mod));
	CUP_CK(a->DevicePrimaryCtxRelease(dev));
	XXH64_freeState(h);
	free(h_a);
	free(h_c);
	free(h_x);
	free(h_y);
	free(h_r);
	return out;
}

#endif
