/*
 * hip_cuda_mix.c - one process using both CUDA (the driver API) and HIP
 * (tests/shell/test_hip_mixed.sh): each runtime is opened with dlopen
 * (RTLD_GLOBAL, so that preloaded interposers find it after themselves)
 * and its functions are looked up in the global scope, where an
 * interposer's definitions come first.  CUDA: a context, an allocation
 * filled with cuMemsetD32 and read back; HIP: an allocation uploaded,
 * copied device to device and read back.  Prints each call's status and
 * the values read; exit 0 when both runtimes answered every call, 1 when
 * one could not be loaded or failed (named on stderr).
 *
 * The HIP prototypes are written out here (the HIP headers need
 * __HIP_PLATFORM_AMD__, which this directory's programs are not built
 * with): hipError_t is an int, hipMemcpyKind an int enum.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>

typedef int (*hip_malloc_fn)(void **, size_t);
typedef int (*hip_memcpy_fn)(void *, const void *, size_t, int);
typedef int (*hip_free_fn)(void *);
enum { HIP_H2D = 1, HIP_D2H = 2, HIP_D2D = 3 };

/* name from the global scope; NULL (said on stderr) when none. */
static void *mix_sym(const char *name)
{
	void *f = dlsym(RTLD_DEFAULT, name);
	if (!f)
		fprintf(stderr, "hip_cuda_mix: %s not found\n", name);
	return f;
}

static int mix_cuda(void)
{
	CUresult (*init)(unsigned) = (CUresult(*)(unsigned))mix_sym("cuInit");
	CUresult (*get)(CUdevice *, int) = (CUresult(*)(CUdevice *, int))mix_sym("cuDeviceGet");
	CUresult (*create)(CUcontext *, unsigned, CUdevice) =
		(CUresult(*)(CUcontext *, unsigned, CUdevice))mix_sym("cuCtxCreate_v2");
	CUresult (*alloc)(CUdeviceptr *, size_t) = (CUresult(*)(CUdeviceptr *, size_t))mix_sym("cuMemAlloc_v2");
	CUresult (*set)(CUdeviceptr, unsigned, size_t) =
		(CUresult(*)(CUdeviceptr, unsigned, size_t))mix_sym("cuMemsetD32_v2");
	CUresult (*dtoh)(void *, CUdeviceptr, size_t) =
		(CUresult(*)(void *, CUdeviceptr, size_t))mix_sym("cuMemcpyDtoH_v2");
	CUresult (*release)(CUdeviceptr) = (CUresult(*)(CUdeviceptr))mix_sym("cuMemFree_v2");
	CUresult (*destroy)(CUcontext) = (CUresult(*)(CUcontext))mix_sym("cuCtxDestroy_v2");
	enum { N = 256 };
	unsigned host[N];
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	CUdeviceptr d = 0;
	int bad = 0;

	if (!init || !get || !create || !alloc || !set || !dtoh || !release || !destroy)
		return 1;
	memset(host, 0, sizeof(host));
	bad |= init(0) != CUDA_SUCCESS;
	bad |= get(&dev, 0) != CUDA_SUCCESS;
	bad |= create(&ctx, 0, dev) != CUDA_SUCCESS;
	bad |= alloc(&d, sizeof(host)) != CUDA_SUCCESS;
	bad |= set(d, 0x11223344u, N) != CUDA_SUCCESS;
	bad |= dtoh(host, d, sizeof(host)) != CUDA_SUCCESS;
	bad |= release(d) != CUDA_SUCCESS;
	bad |= destroy(ctx) != CUDA_SUCCESS;
	printf("cuda %s host[7] 0x%08x\n", bad ? "failed" : "ok", host[7]);
	return bad;
}

static int mix_hip(void)
{
	hip_malloc_fn alloc = (hip_malloc_fn)mix_sym("hipMalloc");
	hip_memcpy_fn copy = (hip_memcpy_fn)mix_sym("hipMemcpy");
	hip_free_fn release = (hip_free_fn)mix_sym("hipFree");
	enum { N = 256 };
	float in[N], out[N];
	void *a = NULL, *b = NULL;
	int bad = 0;

	if (!alloc || !copy || !release)
		return 1;
	for (int i = 0; i < N; i++) {
		in[i] = (float)i * 0.5f;
		out[i] = 0;
	}
	bad |= alloc(&a, sizeof(in)) != 0;
	bad |= alloc(&b, sizeof(in)) != 0;
	bad |= copy(a, in, sizeof(in), HIP_H2D) != 0;
	bad |= copy(b, a, sizeof(in), HIP_D2D) != 0;
	bad |= copy(out, b, sizeof(out), HIP_D2H) != 0;
	bad |= release(a) != 0;
	bad |= release(b) != 0;
	printf("hip %s out[9] %.1f\n", bad ? "failed" : "ok", out[9]);
	return bad;
}

int main(void)
{
	int bad = 0;
	if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL) ||
	    !dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "hip_cuda_mix: %s\n", dlerror());
		return 1;
	}
	bad |= mix_cuda();
	bad |= mix_hip();
	return bad;
}
