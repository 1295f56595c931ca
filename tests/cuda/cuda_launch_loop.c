/*
 * cuda_launch_loop - N launches of an empty kernel on one stream, then one
 * synchronisation: the benchmark of what an interposer adds per launch.
 * Prints the launch count and the nanoseconds per launch (host side, from
 * the first launch to the end of the synchronisation).
 *   cuda_launch_loop [--launches N] [--stream legacy|created]
 */
#include <time.h>

#include "tests/cuda/cuprog.h"

static uint64_t cll_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned launches = 10000;
	int created = 1;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CUstream s = NULL;
	uint64_t t0, t1;
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_launch_loop";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--launches") && i + 1 < argc) {
			launches = cup_parse_uint("--launches", argv[++i], 1, 100000000);
		} else if (!strcmp(argv[i], "--stream") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "legacy"))
				created = 0;
			else if (!strcmp(argv[i], "created"))
				created = 1;
			else {
				fprintf(stderr, "cuda_launch_loop: --stream must be legacy or created, got '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_launch_loop [--launches N] [--stream legacy|created]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_launch_loop: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f, mod, "empty"));
	if (created)
		CUP_CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	t0 = cll_now();
	for (unsigned i = 0; i < launches; i++)
		CUP_CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
	CUP_CK(cuStreamSynchronize(s));
	t1 = cll_now();
	printf("cuda_launch_loop: launches %u ns_per_launch %.1f\n", launches, (double)(t1 - t0) / launches);
	if (created)
		CUP_CK(cuStreamDestroy(s));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	return 0;
}
