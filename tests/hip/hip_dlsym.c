/*
 * hip_dlsym.c - a program that reaches the HIP runtime only as Triton's
 * HIP driver does: no link-time hip* symbol at all, libamdhip64.so.5
 * opened with dlopen (RTLD_LOCAL, or RTLD_GLOBAL with the argument
 * `global`) and every entry point looked up with dlsym on that handle (with
 * the argument `version`: RTLD_LOCAL, and each entry point but
 * hipGetProcAddress looked up with dlvsym on that handle under the first
 * of the versions ROCm 5.2 exports functions with, hip_4.2 to hip_5.2,
 * that answers, as a program that asks for the ABI of a release would).
 * Through those pointers: hipInit, hipGetDeviceCount, the bundle of
 * hip_module_kernels.hsaco (argv[1]) loaded with hipModuleLoadData, its
 * kernels found with hipModuleGetFunction, hipMalloc, hipStreamCreate,
 * hipMemcpyHtoD, `scale` launched with hipModuleLaunchKernel and
 * kernelParams on the stream, an async device-to-host copy read after
 * hipStreamSynchronize, `add_offset` launched with `extra` on the null
 * stream, hipMemset of the buffer's last element (through the answer of
 * hipGetProcAddress, itself found with dlsym on the handle, when the
 * runtime exports it: ROCm 6 and the test double, not ROCm 5.2), a
 * synchronous hipMemcpy
 * device to host, hipGetErrorString (a call the interposer only counts),
 * then hipStreamDestroy, hipFree, hipModuleUnload.  The data starts as 0,
 * 1, 2, ...: after the launches `mid[3]` is 6.0 and `host[3]` 6.5.
 * Prints each call's status; exit status 0 once it ran to its end, 2 when
 * the runtime or the file cannot be opened.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDL_N 256

/* The versions libamdhip64.so.5 (ROCm 5.2) exports its functions with. */
static const char *const hdl_versions[] = {"hip_4.2", "hip_4.3", "hip_4.4",
                                           "hip_4.5", "hip_5.1", "hip_5.2"};

/* The entry points used, each typed as the header declares it. */
#define HDL_LIST(X)                                                            \
	X(hipInit) X(hipGetDeviceCount) X(hipModuleLoadData)                       \
	X(hipModuleGetFunction) X(hipModuleLaunchKernel) X(hipMalloc)              \
	X(hipStreamCreate) X(hipMemcpyHtoD) X(hipMemcpyAsync)                      \
	X(hipStreamSynchronize) X(hipMemset) X(hipMemcpy) X(hipGetErrorString)     \
	X(hipStreamDestroy) X(hipFree) X(hipModuleUnload)

static struct {
#define HDL_X_MEMBER(name) __typeof__(name) *name;
	HDL_LIST(HDL_X_MEMBER)
#undef HDL_X_MEMBER
} hdl;

/* name on lib: dlvsym under the first version that answers with vsym,
 * else dlsym. */
static void *hdl_lookup(void *lib, const char *name, int vsym)
{
	void *f = NULL;

	if (!vsym)
		return dlsym(lib, name);
	for (size_t i = 0; !f && i < sizeof(hdl_versions) / sizeof(hdl_versions[0]); i++)
		f = dlvsym(lib, name, hdl_versions[i]);
	return f;
}

static unsigned char *hdl_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static float host[HDL_N], mid[HDL_N];
	unsigned char *image;
	void *lib;
	hipModule_t mod = NULL;
	hipFunction_t scale = NULL, add = NULL;
	hipStream_t s = NULL;
	float *dp = NULL;
	int n = HDL_N, count = -1, vsym;
	const char *missing = NULL;
	hipError_t (*getproc)(const char *, void **, int, uint64_t, int *);

	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "global") && strcmp(argv[2], "version"))) {
		fprintf(stderr, "usage: hip_dlsym CODE_OBJECT [global|version]\n");
		return 2;
	}
	vsym = argc == 3 && !strcmp(argv[2], "version");
	lib = dlopen("libamdhip64.so.5", RTLD_NOW | (argc == 3 && !vsym ? RTLD_GLOBAL : RTLD_LOCAL));
	if (!lib) {
		fprintf(stderr, "hip_dlsym: cannot open libamdhip64.so.5: %s\n", dlerror());
		return 2;
	}
#define HDL_X_LOOKUP(name)                                                     \
	if (!(hdl.name = (__typeof__(name) *)hdl_lookup(lib, #name, vsym)) &&      \
	    !missing)                                                              \
		missing = #name;
	HDL_LIST(HDL_X_LOOKUP)
#undef HDL_X_LOOKUP
	if (missing) {
		fprintf(stderr, "hip_dlsym: libamdhip64.so.5 has no %s\n", missing);
		return 2;
	}
	/* as Triton's HIP driver does with a ROCm 6 runtime */
	getproc = (hipError_t(*)(const char *, void **, int, uint64_t, int *))dlsym(lib,
	                                                                            "hipGetProcAddress");
	if (getproc) {
		void *f = NULL;
		if (getproc("hipMemset", &f, 600, 0, NULL) == hipSuccess && f)
			hdl.hipMemset = (__typeof__(hipMemset) *)f;
	}
	image = hdl_read(argv[1]);
	if (!image) {
		fprintf(stderr, "hip_dlsym: cannot read %s\n", argv[1]);
		return 2;
	}
	for (int i = 0; i < HDL_N; i++)
		host[i] = (float)i;
	printf("hipInit %d\n", (int)hdl.hipInit(0));
	printf("hipGetDeviceCount %d\n", (int)hdl.hipGetDeviceCount(&count));
	printf("hipModuleLoadData %d\n", (int)hdl.hipModuleLoadData(&mod, image));
	printf("hipModuleGetFunction %d\n", (int)hdl.hipModuleGetFunction(&scale, mod, "scale"));
	printf("hipModuleGetFunction %d\n",
	       (int)hdl.hipModuleGetFunction(&add, mod, "_Z10add_offsetPffi"));
	printf("hipMalloc %d\n", (int)hdl.hipMalloc((void **)&dp, sizeof(host)));
	printf("hipStreamCreate %d\n", (int)hdl.hipStreamCreate(&s));
	printf("hipMemcpyHtoD %d\n", (int)hdl.hipMemcpyHtoD((hipDeviceptr_t)dp, host, sizeof(host)));
	{
		void *params[] = {&dp, &n};
		printf("hipModuleLaunchKernel %d\n",
		       (int)hdl.hipModuleLaunchKernel(scale, HDL_N / 64, 1, 1, 64, 1, 1, 0, s, params,
		                                      NULL));
	}
	printf("hipMemcpyAsync %d\n",
	       (int)hdl.hipMemcpyAsync(mid, dp, sizeof(mid), hipMemcpyDeviceToHost, s));
	printf("hipStreamSynchronize %d\n", (int)hdl.hipStreamSynchronize(s));
	{
		struct {
			float *p;
			float off;
			int n;
		} args = {dp, 0.5f, n};
		size_t size = sizeof(args);
		void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
		                 &size, HIP_LAUNCH_PARAM_END};
		printf("hipModuleLaunchKernel %d\n",
		       (int)hdl.hipModuleLaunchKernel(add, HDL_N / 64, 1, 1, 64, 1, 1, 0, NULL, NULL,
		                                      extra));
	}
	printf("hipMemset %d\n", (int)hdl.hipMemset(dp + HDL_N - 1, 0, sizeof(float)));
	printf("hipMemcpy %d\n",
	       (int)hdl.hipMemcpy(host, dp, sizeof(host), hipMemcpyDeviceToHost));
	printf("hipGetErrorString %s\n", hdl.hipGetErrorString(hipSuccess));
	printf("hipStreamDestroy %d\n", (int)hdl.hipStreamDestroy(s));
	printf("hipFree %d\n", (int)hdl.hipFree(dp));
	printf("hipModuleUnload %d\n", (int)hdl.hipModuleUnload(mod));
	free(image);
	printf("mid[3] %.1f host[3] %.1f host[%d] %.1f\n", mid[3], host[3], HDL_N - 1,
	       host[HDL_N - 1]);
	return 0;
}
