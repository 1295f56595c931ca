/*
 * cuda_late_calls - driver calls made after main returns, from a library's
 * exit code (tests/cuda/lib/cuda_late_lib.c), like a cuBLAS handle's
 * teardown:
 *   --dtor     from the library's ELF destructor
 *   --atexit   from an exit handler that destructor registers
 *   --last     from an exit handler the library registered when loaded,
 *              which runs after every other one
 *   --kill     as --last, SIGKILLing the process after the free
 * main fills a buffer with the fill kernel, reads it back (printing its
 * hash) and hands the buffer and stream to the library, which relaunches
 * the kernel, reads the buffer back, checks it, frees it and destroys the
 * stream once main has returned.
 */
#include "tests/cuda/cuprog.h"
#include "tests/cuda/lib/cuda_late_lib.h"

enum { CLC_N = 256 };

int main(int argc, char **argv)
{
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };
	uint32_t value = 5, stride = 3, n = CLC_N, host[CLC_N];
	void *args[4];
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fill;
	CUstream stream;
	CUdeviceptr buf;
	void *image;
	int mode;

	cup_prog = "cuda_late_calls";
	cup_api_for_errors = &errs;
	if (argc == 2 && !strcmp(argv[1], "--dtor")) {
		mode = CUDA_LATE_DTOR;
	} else if (argc == 2 && !strcmp(argv[1], "--atexit")) {
		mode = CUDA_LATE_ATEXIT;
	} else if (argc == 2 && !strcmp(argv[1], "--last")) {
		mode = CUDA_LATE_LAST;
	} else if (argc == 2 && !strcmp(argv[1], "--kill")) {
		mode = CUDA_LATE_KILL;
	} else {
		fprintf(stderr, "usage: cuda_late_calls --dtor|--atexit|--last|--kill\n");
		return 2;
	}
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&fill, mod, "fill"));
	CUP_CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuMemAlloc(&buf, sizeof(host)));
	args[0] = &buf;
	args[1] = &value;
	args[2] = &stride;
	args[3] = &n;
	CUP_CK(cuLaunchKernel(fill, CLC_N / 64, 1, 1, 64, 1, 1, 0, stream, args, NULL));
	CUP_CK(cuStreamSynchronize(stream));
	CUP_CK(cuMemcpyDtoH(host, buf, sizeof(host)));
	printf("main read back %016llx\n", (unsigned long long)XXH3_64bits(host, sizeof(host)));
	cuda_late_arm(mode, fill, stream, buf, CLC_N);
	return 0;
}
