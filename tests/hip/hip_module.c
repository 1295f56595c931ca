/*
 * hip_module.c - the module path of the HIP runtime, from plain C: the
 * code object bundle hipcc --genco built from hip_module_kernels.hip
 * (argv[1]) is loaded with hipModuleLoadData, hipModuleLoadDataEx and
 * hipModuleLoad, its kernels found by name and launched with
 * hipModuleLaunchKernel, once with kernelParams and once with `extra`
 * (HIP_LAUNCH_PARAM_BUFFER_POINTER), and through hipExtModuleLaunchKernel.
 * hipExtModuleLaunchKernel is declared in hip_ext.h for C++ only and
 * exported C++-mangled by ROCm 5.2's libamdhip64, so a C program reaches
 * it by that name (an asm label).  Prints each call's status; exit status 0 once it ran to its end, 2 when
 * the file cannot be read.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hipError_t hipm_ext_module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                  uint32_t bx, uint32_t by, uint32_t bz, size_t shared,
                                  hipStream_t stream, void **params, void **extra,
                                  hipEvent_t start, hipEvent_t stop, uint32_t flags)
	__asm__("_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j");

static unsigned char *hipm_read(const char *path, size_t *len_out)
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
		*len_out = (size_t)n;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	enum { N = 256 };
	size_t len = 0, gsize = 0;
	unsigned char *image;
	hipModule_t mod = NULL, mod_ex = NULL, mod_file = NULL;
	hipFunction_t scale = NULL, add = NULL;
	hipDeviceptr_t gptr = NULL;
	float *dp = NULL;
	int n = N;
	float off = 0.5f;
	static float host[N];
	if (argc != 2) {
		fprintf(stderr, "usage: hip_module CODE_OBJECT\n");
		return 2;
	}
	image = hipm_read(argv[1], &len);
	if (!image) {
		fprintf(stderr, "hip_module: cannot read %s\n", argv[1]);
		return 2;
	}
	for (int i = 0; i < N; i++)
		host[i] = (float)i;
	printf("hipInit %d\n", (int)hipInit(0));
	printf("hipModuleLoadData %d\n", (int)hipModuleLoadData(&mod, image));
	printf("hipModuleLoadDataEx %d\n", (int)hipModuleLoadDataEx(&mod_ex, image, 0, NULL, NULL));
	printf("hipModuleLoad %d\n", (int)hipModuleLoad(&mod_file, argv[1]));
	printf("hipModuleGetFunction %d\n", (int)hipModuleGetFunction(&scale, mod, "scale"));
	printf("hipModuleGetFunction %d\n",
	       (int)hipModuleGetFunction(&add, mod, "_Z10add_offsetPffi"));
	printf("hipModuleGetGlobal %d\n", (int)hipModuleGetGlobal(&gptr, &gsize, mod, "scale_factor"));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dp, sizeof(host)));
	printf("hipMemcpyHtoD %d\n", (int)hipMemcpyHtoD((hipDeviceptr_t)dp, host, sizeof(host)));
	{
		void *params[] = {&dp, &n};
		printf("hipModuleLaunchKernel %d\n",
		       (int)hipModuleLaunchKernel(scale, N / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
	}
	{
		struct {
			float *p;
			float off;
			int n;
		} args = {dp, off, n};
		size_t size = sizeof(args);
		void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
		                 &size, HIP_LAUNCH_PARAM_END};
		printf("hipModuleLaunchKernel %d\n",
		       (int)hipModuleLaunchKernel(add, N / 64, 1, 1, 64, 1, 1, 0, NULL, NULL, extra));
	}
	{
		void *params[] = {&dp, &n};
		printf("hipExtModuleLaunchKernel %d\n",
		       (int)hipm_ext_module_launch(scale, N, 1, 1, 64, 1, 1, 0, NULL, params, NULL,
		                                     NULL, NULL, 0));
	}
	printf("hipMemcpyDtoH %d\n", (int)hipMemcpyDtoH(host, (hipDeviceptr_t)dp, sizeof(host)));
	printf("hipFree %d\n", (int)hipFree(dp));
	printf("hipModuleUnload %d\n", (int)hipModuleUnload(mod));
	free(image);
	printf("host[3] %.1f\n", host[3]);
	printf("done\n");
	return 0;
}
