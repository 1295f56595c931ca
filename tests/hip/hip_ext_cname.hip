/*
 * hip_ext_cname.hip - hipExtModuleLaunchKernel under its C name (ROCm 6's),
 * found with dlsym as a program built against another ROCm would: the
 * module built by hipcc --genco (argv[1]) loaded, "scale" launched on 256
 * floats with global work sizes (256 work-items in blocks of 64), the
 * result read back.  ROCm 5.2's runtime exports the name C++-mangled only:
 * the program says so and ends (exit status 0 whatever the runtime).
 */
#include <hip/hip_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef hipError_t (*ext_launch_fn)(hipFunction_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                    uint32_t, uint32_t, size_t, hipStream_t, void **, void **,
                                    hipEvent_t, hipEvent_t, uint32_t);

int main(int argc, char **argv)
{
	enum { N = 256 };
	static float host[N];
	hipModule_t mod = NULL;
	hipFunction_t scale = NULL;
	float *dp = NULL;
	int n = N;
	ext_launch_fn launch;
	if (argc != 2) {
		fprintf(stderr, "usage: hip_ext_cname CODE_OBJECT\n");
		return 2;
	}
	launch = (ext_launch_fn)dlsym(RTLD_DEFAULT, "hipExtModuleLaunchKernel");
	if (!launch) {
		printf("no C-named hipExtModuleLaunchKernel\n");
		return 0;
	}
	for (int i = 0; i < N; i++)
		host[i] = (float)i;
	printf("hipModuleLoad %d\n", (int)hipModuleLoad(&mod, argv[1]));
	printf("hipModuleGetFunction %d\n", (int)hipModuleGetFunction(&scale, mod, "scale"));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dp, sizeof(host)));
	printf("hipMemcpyHtoD %d\n", (int)hipMemcpyHtoD((hipDeviceptr_t)dp, host, sizeof(host)));
	{
		void *params[] = {&dp, &n};
		printf("hipExtModuleLaunchKernel %d\n",
		       (int)launch(scale, N, 1, 1, 64, 1, 1, 0, NULL, params, NULL, NULL, NULL, 0));
	}
	printf("hipMemcpyDtoH %d\n", (int)hipMemcpyDtoH(host, (hipDeviceptr_t)dp, sizeof(host)));
	printf("hipFree %d\n", (int)hipFree(dp));
	printf("hipModuleUnload %d\n", (int)hipModuleUnload(mod));
	printf("host[3] %.1f\n", host[3]);
	return 0;
}
