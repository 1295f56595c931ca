/*
 * cuda_wait_app - one stream waits for another: the wait_flag kernel on
 * stream A spins until a 32-bit flag in device memory is not 0, and a
 * memset on stream B sets it; then A is synchronised and the kernel's
 * "done" word read back and printed.  Only the two streams running at once
 * let it finish: a trace of it replayed without the memset (or on one
 * stream) has a kernel that never finishes, which is what the replay's
 * wait bound is tested with (tests/shell/test_cuda_hostile_replay.sh).
 * Not for TSCUDA_DOUBLE_SEED, which runs one op at a time.
 *   cuda_wait_app
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_wait;
	CUdeviceptr d_flag, d_done;
	CUstream a, b;
	uint32_t done = 0;
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_wait_app";
	cup_api_for_errors = &errs;
	if (argc > 1) {
		if (!strcmp(argv[1], "--help")) {
			printf("usage: cuda_wait_app\n");
			return 0;
		}
		fprintf(stderr, "cuda_wait_app: unknown option '%s' (try --help)\n", argv[1]);
		return 2;
	}
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_wait, mod, "wait_flag"));
	CUP_CK(cuMemAlloc(&d_flag, 4));
	CUP_CK(cuMemAlloc(&d_done, 4));
	CUP_CK(cuMemsetD32(d_flag, 0, 1));
	CUP_CK(cuMemsetD32(d_done, 0, 1));
	CUP_CK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
	{
		void *args[] = { &d_flag, &d_done };
		CUP_CK(cuLaunchKernel(f_wait, 1, 1, 1, 1, 1, 1, 0, a, args, NULL));
	}
	CUP_CK(cuMemsetD32Async(d_flag, 1, 1, b));
	CUP_CK(cuStreamSynchronize(a));
	CUP_CK(cuMemcpyDtoH(&done, d_done, 4));
	printf("cuda_wait_app: done %u\n", done);
	CUP_CK(cuStreamDestroy(a));
	CUP_CK(cuStreamDestroy(b));
	CUP_CK(cuMemFree(d_flag));
	CUP_CK(cuMemFree(d_done));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	return done == 1 ? 0 : 1;
}
