/*
 * cuda_sched_app - a result that depends on scheduling, for tsreplay
 * --schedule-seed (tests/shell/test_schedule_seed.sh):
 *   "fill" writes B on stream 1 while "vadd" reads A and B on stream 2 and
 *   writes C; nothing orders the two launches, so C holds A + B's old
 *   contents or A + the filled values, depending on which ran first.
 *   --event   an event recorded after "fill" on stream 1 and waited for on
 *             stream 2 orders them: C is the same in every order.
 * Both streams are synchronized before C is read back (a synchronous copy),
 * and the program prints the hash of C.
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	unsigned n = 1024, block = 128, grid = (n + block - 1) / block;
	uint32_t value = 1000, stride = 3;
	int event = 0;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_vadd;
	CUdeviceptr d_a, d_b, d_c;
	CUstream s1, s2;
	CUevent ev;
	uint32_t *h = calloc(n, sizeof(uint32_t)), *back = calloc(n, sizeof(uint32_t));
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_sched_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--event")) {
			event = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_sched_app [--event]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_sched_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	if (!h || !back)
		return 1;
	for (unsigned i = 0; i < n; i++)
		h[i] = i * 7u + 2u;
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
	CUP_CK(cuMemAlloc(&d_c, n * 4));
	CUP_CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	/* synchronous uploads: done before anything after them */
	CUP_CK(cuMemcpyHtoD(d_a, h, n * 4));
	CUP_CK(cuMemcpyHtoD(d_b, h, n * 4));
	{
		void *fill_args[] = { &d_b, &value, &stride, &n };
		void *vadd_args[] = { &d_a, &d_b, &d_c, &n };

		CUP_CK(cuLaunchKernel(f_fill, grid, 1, 1, block, 1, 1, 0, s1, fill_args, NULL));
		if (event) {
			CUP_CK(cuEventRecord(ev, s1));
			CUP_CK(cuStreamWaitEvent(s2, ev, 0));
		}
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s2, vadd_args, NULL));
	}
	CUP_CK(cuStreamSynchronize(s1));
	CUP_CK(cuStreamSynchronize(s2));
	CUP_CK(cuMemcpyDtoH(back, d_c, n * 4));
	printf("cuda_sched_app: %s hash 0x%016llx\n", event ? "event" : "race",
	       (unsigned long long)XXH64(back, n * 4, 0));
	CUP_CK(cuEventDestroy(ev));
	CUP_CK(cuStreamDestroy(s1));
	CUP_CK(cuStreamDestroy(s2));
	CUP_CK(cuMemFree(d_a));
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_c));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	free(h);
	free(back);
	return 0;
}
