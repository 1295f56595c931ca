/*
 * hip_launch_loop.hip - the loop the HIP launch path's cost is measured on
 * (docs/benchmarks.md): argv[1] (a count) `<<<>>>` launches of saxpy, then
 * as many hipModuleLaunchKernel of add_offset from the code object at
 * argv[2] (hip_module_kernels.hsaco) with kernelParams, on 256 floats.
 * Prints y[5] after the first loop and p[5] after the second, and each
 * call that failed; exit status 0 once it ran to its end, 2 on bad
 * arguments.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define HLL_N 256

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

static void hll_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static char *hll_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = (char *)malloc((size_t)len)) && fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	float host[HLL_N], *dx = NULL, *dy = NULL, off = 1.0f;
	long count = argc > 2 ? strtol(argv[1], NULL, 10) : 0;
	char *image = argc > 2 ? hll_read(argv[2]) : NULL;
	hipModule_t mod = NULL;
	hipFunction_t add = NULL;
	int n = HLL_N;

	if (count < 1 || !image) {
		fprintf(stderr, "usage: hip_launch_loop COUNT hip_module_kernels.hsaco\n");
		return 2;
	}
	for (int i = 0; i < HLL_N; i++)
		host[i] = (float)i;
	hll_check("hipMalloc", hipMalloc((void **)&dx, sizeof(host)));
	hll_check("hipMalloc", hipMalloc((void **)&dy, sizeof(host)));
	hll_check("hipMemcpy", hipMemcpy(dx, host, sizeof(host), hipMemcpyHostToDevice));
	hll_check("hipMemcpy", hipMemcpy(dy, host, sizeof(host), hipMemcpyHostToDevice));
	for (long i = 0; i < count; i++)
		saxpy<<<HLL_N / 64, 64>>>(n, 1.0f, dx, dy);
	hll_check("hipGetLastError", hipGetLastError());
	hll_check("hipMemcpy", hipMemcpy(host, dy, sizeof(host), hipMemcpyDeviceToHost));
	printf("y[5] %.1f\n", host[5]);

	hll_check("hipModuleLoadData", hipModuleLoadData(&mod, image));
	hll_check("hipModuleGetFunction", hipModuleGetFunction(&add, mod, "_Z10add_offsetPffi"));
	for (long i = 0; i < count; i++) {
		void *params[] = {&dx, &off, &n};
		hll_check("hipModuleLaunchKernel",
		          hipModuleLaunchKernel(add, HLL_N / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
	}
	hll_check("hipMemcpy", hipMemcpy(host, dx, sizeof(host), hipMemcpyDeviceToHost));
	printf("p[5] %.1f\n", host[5]);
	hll_check("hipModuleUnload", hipModuleUnload(mod));
	hll_check("hipFree", hipFree(dx));
	hll_check("hipFree", hipFree(dy));
	free(image);
	return 0;
}
