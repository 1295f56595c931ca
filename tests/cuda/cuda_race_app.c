/*
 * cuda_race_app - two non-blocking streams sharing buffers, for the
 * emulator's race detection (tests/shell/test_emulator.sh):
 *   --mode race     "fill" writes B on stream 1; an async copy on stream 2
 *                   reads B back with nothing ordering the two (a race)
 *   --mode event    the same, with an event recorded after "fill" on stream
 *                   1 and waited for on stream 2 (no race)
 *   --mode readers  "vadd" on each stream reads A and B and writes its own
 *                   output (two unordered readers of A and B: no race)
 * Prints the hash of what it read back.
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	unsigned n = 1024, block = 128, grid = (n + block - 1) / block;
	const char *mode = "race";
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_vadd;
	CUdeviceptr d_a, d_b, d_c1, d_c2;
	CUstream s1, s2;
	CUevent ev;
	uint32_t *h = calloc(n, sizeof(uint32_t)), *back = calloc(2 * n, sizeof(uint32_t));
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_race_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			mode = argv[++i];
			if (strcmp(mode, "race") && strcmp(mode, "event") && strcmp(mode, "readers")) {
				fprintf(stderr, "cuda_race_app: --mode is race, event or readers, not '%s'\n", mode);
				return 2;
			}
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_race_app [--mode race|event|readers]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_race_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	if (!h || !back)
		return 1;
	for (unsigned i = 0; i < n; i++)
		h[i] = i * 5u + 1u;
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_fill, mod, "fill"));
	CUP_CK(cuModuleGetFunction(&f_vadd, mod, "vadd"));
	CUP_CK(cuMemAlloc(&d_a, n * 4));
	CUP_CK(cuMemAlloc(&d_b, n * 4));
	CUP_CK(cuMemAlloc(&d_c1, n * 4));
	CUP_CK(cuMemAlloc(&d_c2, n * 4));
	CUP_CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	/* synchronous uploads: ordered before everything after them */
	CUP_CK(cuMemcpyHtoD(d_a, h, n * 4));
	CUP_CK(cuMemcpyHtoD(d_b, h, n * 4));

	if (!strcmp(mode, "readers")) {
		void *args1[] = { &d_a, &d_b, &d_c1, &n };
		void *args2[] = { &d_a, &d_b, &d_c2, &n };

		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s1, args1, NULL));
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s2, args2, NULL));
		CUP_CK(cuMemcpyDtoHAsync(back, d_c1, n * 4, s1));
		CUP_CK(cuMemcpyDtoHAsync(back + n, d_c2, n * 4, s2));
	} else {
		uint32_t value = 7, stride = 3;
		void *args[] = { &d_b, &value, &stride, &n };

		CUP_CK(cuLaunchKernel(f_fill, grid, 1, 1, block, 1, 1, 0, s1, args, NULL));
		if (!strcmp(mode, "event")) {
			CUP_CK(cuEventRecord(ev, s1));
			CUP_CK(cuStreamWaitEvent(s2, ev, 0));
		}
		CUP_CK(cuMemcpyDtoHAsync(back, d_b, n * 4, s2));
	}
	CUP_CK(cuStreamSynchronize(s1));
	CUP_CK(cuStreamSynchronize(s2));
	printf("cuda_race_app: mode %s hash 0x%016llx\n", mode, (unsigned long long)XXH64(back, 2 * n * 4, 0));
	CUP_CK(cuEventDestroy(ev));
	CUP_CK(cuStreamDestroy(s1));
	CUP_CK(cuStreamDestroy(s2));
	CUP_CK(cuMemFree(d_a));
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_c1));
	CUP_CK(cuMemFree(d_c2));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	free(h);
	free(back);
	return 0;
}
