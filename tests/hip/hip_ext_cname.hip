/*
 * hip_ext_cname.hip - hipExtModuleLaunchKernel under its C name (ROCm 6's),
 * found with dlsym as a program built against another ROCm would: the
 * module built by hipcc --genco (argv[1]) loaded, "scale" launched on 256
 * floats with global work sizes (256 work-items in blocks of 64), the
 * result read back.  ROCm 5.2's runtime exports the name C++-mangled only:
 * the program says so and ends (exit status 0 whatever the runtime).
 * First it says, for the names the HIP interposer exports that ROCm 5.2's
 * runtime lacks, whether dlsym finds each with RTLD_DEFAULT, RTLD_NEXT and
 * on the program's own handle (dlopen(NULL)), and whether dlerror is set
 * when it does not: under tscapture the lines must not change.
 */
#include <hip/hip_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef hipError_t (*ext_launch_fn)(hipFunction_t, uint32_t, uint32_t, uint32_t, uint32_t,
                                    uint32_t, uint32_t, size_t, hipStream_t, void **, void **,
                                    hipEvent_t, hipEvent_t, uint32_t);

/* "NAME: WHERE=found|absent(dlerror)|absent(no dlerror) ..." for each way
 * of looking name up. */
static void lookups(const char *name)
{
	void *self = dlopen(NULL, RTLD_LAZY);
	void *handles[] = {RTLD_DEFAULT, RTLD_NEXT, self};
	const char *where[] = {"default", "next", "self"};
	printf("%s:", name);
	for (int i = 0; i < 3; i++) {
		void *f;
		(void)dlerror();
		f = dlsym(handles[i], name);
		printf(" %s=%s", where[i], f ? "found" : dlerror() ? "absent(dlerror)" : "absent(no dlerror)");
	}
	printf("\n");
	dlclose(self);
}

int main(int argc, char **argv)
{
	static const char *const lacking[] = {
		"hipExtModuleLaunchKernel", "hipGetProcAddress", "hipLaunchHostFunc",
		"hipGraphKernelNodeGetAttribute", "hipGraphKernelNodeSetAttribute",
		"hipTexRefGetMipMappedArray", "hipMalloc"};
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
	for (size_t i = 0; i < sizeof(lacking) / sizeof(lacking[0]); i++)
		lookups(lacking[i]);
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
