/*
 * cuda_real_image - real module images on the libcuda double.
 *   cuda_real_image images CUBIN FATBIN
 *       loads the H100 cubin (cuModuleLoadData, cuModuleLoad, cuLibraryLoadData)
 *       and cudart's saxpy fatbin (bare and in a fatbin wrapper); checks the
 *       parameter layouts the real driver reported; runs gpu_fill, gpu_chase,
 *       gpu_axpy and gpu_mix by their host twins and checks every result
 *       element against the .cu sources' arithmetic; an sm_80-only cubin is
 *       CUDA_ERROR_NO_BINARY_FOR_GPU; a PTX kernel with no twin launches
 *       successfully, runs nothing and is counted.  Prints "images ok".
 *   cuda_real_image fault-twin CUBIN | fault-module
 *       gpu_chase (a twin) or the double module's chase follows a pointer
 *       into unmapped memory: the launch succeeds, cuCtxSynchronize answers
 *       CUDA_ERROR_ILLEGAL_ADDRESS and so do later calls in the context.
 *       Prints "fault: NAME then NAME".
 *   cuda_real_image crash
 *       after a kernel ran, the program itself dereferences NULL: it must
 *       die of SIGSEGV (the double's handler is not left behind).
 */
#include <signal.h>

#include "tests/cuda/cuprog.h"
#include "tests/doubles/cuda/tcd_ext.h"

#include <dlfcn.h>

#define CRI_CK(call) CUP_CK(call)

static const struct cup_api cri_errs = { .GetErrorName = cuGetErrorName };

static void cri_expect(CUresult got, CUresult want, const char *what)
{
	const char *g = "?", *w = "?";

	if (got == want)
		return;
	cuGetErrorName(got, &g);
	cuGetErrorName(want, &w);
	fprintf(stderr, "cuda_real_image: %s gave %s, expected %s\n", what, g, w);
	exit(1);
}

static void cri_require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "cuda_real_image: %s\n", what);
		exit(1);
	}
}

static unsigned char *cri_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	unsigned char *b;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(b = malloc((size_t)n)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cuda_real_image: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void cri_layout(CUfunction f, const size_t *off, const size_t *size, size_t n, const char *what)
{
	size_t o, s;

	for (size_t i = 0; i < n; i++) {
		cri_expect(cuFuncGetParamInfo(f, i, &o, &s), CUDA_SUCCESS, what);
		if (o != off[i] || s != size[i]) {
			fprintf(stderr, "cuda_real_image: %s parameter %zu at %zu size %zu, expected %zu size %zu\n", what, i,
				o, s, off[i], size[i]);
			exit(1);
		}
	}
	cri_expect(cuFuncGetParamInfo(f, n, &o, &s), CUDA_ERROR_INVALID_VALUE, what);
}

struct cri_node {
	uint64_t next;
	uint32_t value;
	uint32_t pad;
};

/* gpu_fill and gpu_chase of the cubin, as gpu_driver_cubin runs them. */
static void cri_driver_kernels(CUmodule mod)
{
	static const size_t fill_off[] = { 0, 8, 12 }, fill_size[] = { 8, 4, 4 };
	static const size_t chase_off[] = { 0, 8, 16 }, chase_size[] = { 8, 8, 4 };
	const unsigned n = 1000, nodes = 64;
	CUfunction fill, chase;
	CUdeviceptr buf, dn, out;
	uint32_t hb[1000], ho[64];
	struct cri_node hn[64];

	CRI_CK(cuModuleGetFunction(&fill, mod, "gpu_fill"));
	CRI_CK(cuModuleGetFunction(&chase, mod, "gpu_chase"));
	cri_layout(fill, fill_off, fill_size, 3, "gpu_fill");
	cri_layout(chase, chase_off, chase_size, 3, "gpu_chase");
	CRI_CK(cuMemAlloc(&buf, n * 4));
	CRI_CK(cuMemAlloc(&dn, sizeof(hn)));
	CRI_CK(cuMemAlloc(&out, sizeof(ho)));
	{
		unsigned value = 11, cnt = n;
		void *args[] = { &buf, &value, &cnt };

		CRI_CK(cuLaunchKernel(fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	}
	for (unsigned i = 0; i < nodes; i++) {
		unsigned next = (i * 5u + 1u) % nodes;

		hn[i].value = i * 13u + 5u;
		hn[i].pad = 0;
		hn[i].next = next ? dn + next * sizeof(struct cri_node) : 0;
	}
	CRI_CK(cuMemcpyHtoD(dn, hn, sizeof(hn)));
	CRI_CK(cuMemsetD32(out, 0, nodes));
	{
		unsigned max = nodes;
		void *args[] = { &dn, &out, &max };

		/* 2 x 32 threads: every thread walks the same list. */
		CRI_CK(cuLaunchKernel(chase, 2, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
	}
	CRI_CK(cuMemcpyDtoH(hb, buf, sizeof(hb)));
	CRI_CK(cuMemcpyDtoH(ho, out, sizeof(ho)));
	for (unsigned i = 0; i < n; i++)
		cri_require(hb[i] == 11u + i * 7u, "gpu_fill computed a wrong element");
	{
		uint32_t want[64] = { 0 };
		uint64_t nd = dn;

		for (unsigned i = 0; nd && i < nodes; i++) {
			const struct cri_node *h = &hn[(nd - dn) / sizeof(struct cri_node)];

			want[i] = h->value * 2654435761u + i;
			nd = h->next;
		}
		cri_require(!memcmp(want, ho, sizeof(want)), "gpu_chase computed a wrong element");
	}
	CRI_CK(cuMemFree(buf));
	CRI_CK(cuMemFree(dn));
	CRI_CK(cuMemFree(out));
}

/* gpu_axpy and gpu_mix of cudart's fatbin, through a library's CUkernels. */
static void cri_saxpy_kernels(CUlibrary lib)
{
	static const size_t axpy_off[] = { 0, 8, 16, 24 }, axpy_size[] = { 4, 8, 8, 4 };
	const unsigned n = 3000;
	CUkernel axpy, mix;
	CUdeviceptr x, y, z;
	uint32_t *hx = malloc(n * 4), *hy = malloc(n * 4), *hz = malloc(n * 4);
	size_t o, s;

	cri_require(hx && hy && hz, "out of memory");
	CRI_CK(cuLibraryGetKernel(&axpy, lib, "_Z8gpu_axpyjPKjPjj"));
	CRI_CK(cuLibraryGetKernel(&mix, lib, "_Z7gpu_mixPKjPjj"));
	for (size_t i = 0; i < 4; i++) {
		CRI_CK(cuKernelGetParamInfo(axpy, i, &o, &s));
		cri_require(o == axpy_off[i] && s == axpy_size[i], "gpu_axpy's layout differs from the driver's");
	}
	for (unsigned i = 0; i < n; i++)
		hx[i] = i * 2654435761u;
	CRI_CK(cuMemAlloc(&x, n * 4));
	CRI_CK(cuMemAlloc(&y, n * 4));
	CRI_CK(cuMemAlloc(&z, n * 4));
	CRI_CK(cuMemcpyHtoD(x, hx, n * 4));
	CRI_CK(cuMemsetD32(y, 0, n));
	for (unsigned r = 0; r < 3; r++) {
		unsigned a = r + 3, cnt = n;
		void *args[] = { &a, &x, &y, &cnt };

		CRI_CK(cuLaunchKernel((CUfunction)axpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	}
	{
		unsigned cnt = n;
		void *args[] = { &y, &z, &cnt };

		CRI_CK(cuLaunchKernel((CUfunction)mix, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
	}
	CRI_CK(cuMemcpyDtoH(hz, z, n * 4));
	for (unsigned i = 0; i < n; i++)
		hy[i] = hx[i] * 3u + hx[i] * 4u + hx[i] * 5u;
	for (unsigned i = 0; i < n; i++)
		cri_require(hz[i] == (hy[i] ^ (hy[(i + 1) % n] >> 3)), "gpu_axpy/gpu_mix computed a wrong element");
	CRI_CK(cuMemFree(x));
	CRI_CK(cuMemFree(y));
	CRI_CK(cuMemFree(z));
	free(hx);
	free(hy);
	free(hz);
}

static unsigned long long cri_not_run(void)
{
	tcd_not_run_fn fn = (tcd_not_run_fn)dlsym(RTLD_DEFAULT, TCD_NOT_RUN_SYMBOL);

	cri_require(fn != NULL, "the double does not export " TCD_NOT_RUN_SYMBOL);
	return fn();
}

static int cri_images(const char *cubin_path, const char *fatbin_path)
{
	static const char ptx[] = "//\n.version 9.0\n.target sm_90\n.address_size 64\n"
				  ".visible .entry no_twin_here(\n\t.param .u64 p,\n\t.param .u32 n\n)\n{\n\tret;\n}\n";
	size_t cubin_len, fatbin_len;
	unsigned char *cubin = cri_read(cubin_path, &cubin_len);
	unsigned char *fatbin = cri_read(fatbin_path, &fatbin_len);
	struct {
		uint32_t magic, version;
		uint64_t fatbin, name;
	} wrapper = { 0x466243b1u, 1, (uint64_t)(uintptr_t)fatbin, 0 };
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUlibrary lib;
	CUfunction f;
	CUdeviceptr d;

	CRI_CK(cuInit(0));
	CRI_CK(cuDeviceGet(&dev, 0));
	CRI_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CRI_CK(cuCtxSetCurrent(ctx));

	CRI_CK(cuModuleLoadData(&mod, cubin));
	cri_driver_kernels(mod);
	CRI_CK(cuModuleUnload(mod));
	CRI_CK(cuModuleLoad(&mod, cubin_path));
	cri_driver_kernels(mod);
	CRI_CK(cuModuleUnload(mod));

	CRI_CK(cuLibraryLoadData(&lib, fatbin, NULL, NULL, 0, NULL, NULL, 0));
	cri_saxpy_kernels(lib);
	CRI_CK(cuLibraryUnload(lib));
	CRI_CK(cuLibraryLoadData(&lib, &wrapper, NULL, NULL, 0, NULL, NULL, 0));
	cri_saxpy_kernels(lib);
	CRI_CK(cuLibraryUnload(lib));
	cri_expect(cuModuleLoadFatBinary(&mod, fatbin), CUDA_SUCCESS, "cuModuleLoadFatBinary");
	CRI_CK(cuModuleUnload(mod));

	/* sm_80 code only: e_flags bits 8..15 hold the arch. */
	cubin[49] = 80;
	cri_expect(cuModuleLoadData(&mod, cubin), CUDA_ERROR_NO_BINARY_FOR_GPU, "an sm_80 cubin");
	cubin[49] = 90;

	/* A kernel with no twin: launched, not run, counted, said once. */
	cri_require(cri_not_run() == 0, "launches counted as not run before any");
	CRI_CK(cuModuleLoadDataEx(&mod, ptx, 0, NULL, NULL));
	CRI_CK(cuModuleGetFunction(&f, mod, "no_twin_here"));
	CRI_CK(cuMemAlloc(&d, 64));
	{
		unsigned cnt = 16;
		void *args[] = { &d, &cnt };

		CRI_CK(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
		CRI_CK(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
	}
	CRI_CK(cuCtxSynchronize());
	cri_require(cri_not_run() == 2, "two launches without a twin were not counted");
	CRI_CK(cuMemFree(d));
	CRI_CK(cuModuleUnload(mod));
	CRI_CK(cuDevicePrimaryCtxRelease(dev));
	free(cubin);
	free(fatbin);
	printf("images ok\n");
	return 0;
}

/* A list whose second node's pointer leads into unmapped memory. */
static int cri_fault(const char *cubin_path)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction chase;
	CUdeviceptr dn, out, extra;
	struct cri_node hn[2];
	size_t len;
	CUresult r1, r2;
	const char *n1 = "?", *n2 = "?";

	CRI_CK(cuInit(0));
	CRI_CK(cuDeviceGet(&dev, 0));
	CRI_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CRI_CK(cuCtxSetCurrent(ctx));
	if (cubin_path) {
		unsigned char *cubin = cri_read(cubin_path, &len);

		CRI_CK(cuModuleLoadData(&mod, cubin));
		free(cubin);
		CRI_CK(cuModuleGetFunction(&chase, mod, "gpu_chase"));
	} else {
		void *image = cup_module_image("kernels", NULL);

		CRI_CK(cuModuleLoadData(&mod, image));
		free(image);
		CRI_CK(cuModuleGetFunction(&chase, mod, "chase"));
	}
	CRI_CK(cuMemAlloc(&dn, sizeof(hn)));
	CRI_CK(cuMemAlloc(&out, 64));
	hn[0].value = 1;
	hn[0].next = dn + sizeof(struct cri_node);
	hn[1].value = 2;
	/* A pointer into nothing: the page at 4096 is below every mapping
	 * Linux allows (a freed allocation's range might be mapped again). */
	hn[1].next = 0x1000;
	CRI_CK(cuMemcpyHtoD(dn, hn, sizeof(hn)));
	{
		unsigned max = 8;
		void *args[] = { &dn, &out, &max };

		/* The launch itself succeeds: the error is asynchronous. */
		CRI_CK(cuLaunchKernel(chase, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
	}
	r1 = cuCtxSynchronize();
	r2 = cuMemAlloc(&extra, 64);
	cuGetErrorName(r1, &n1);
	cuGetErrorName(r2, &n2);
	printf("fault: %s then %s\n", n1, n2);
	return r1 == CUDA_ERROR_ILLEGAL_ADDRESS && r2 == CUDA_ERROR_ILLEGAL_ADDRESS ? 0 : 1;
}

/* A kernel runs, then the program faults on its own: that is a crash. */
static int cri_crash(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	void *image = cup_module_image("kernels", NULL);
	volatile int *null = NULL;

	CRI_CK(cuInit(0));
	CRI_CK(cuDeviceGet(&dev, 0));
	CRI_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CRI_CK(cuCtxSetCurrent(ctx));
	CRI_CK(cuModuleLoadData(&mod, image));
	CRI_CK(cuModuleGetFunction(&f, mod, "empty"));
	CRI_CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
	CRI_CK(cuCtxSynchronize());
	printf("crashing now\n");
	fflush(stdout);
	return *null;
}

int main(int argc, char **argv)
{
	cup_prog = "cuda_real_image";
	cup_api_for_errors = &cri_errs;
	if (argc == 4 && !strcmp(argv[1], "images"))
		return cri_images(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "fault-twin"))
		return cri_fault(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "fault-module"))
		return cri_fault(NULL);
	if (argc == 2 && !strcmp(argv[1], "crash"))
		return cri_crash();
	fprintf(stderr, "usage: cuda_real_image images CUBIN FATBIN | fault-twin CUBIN | fault-module | crash\n");
	return 2;
}
