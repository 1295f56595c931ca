/*
 * cuda_managed_app - kernels that read managed memory the CPU writes with no
 * recorded call (tests/shell/test_cuda_managed.sh):
 *   M = managed memory (cuMemAllocManaged), B and C = device memory.
 *   the CPU writes M[i] = 3 * i + 7 before any launch
 *   for round r in 0..ROUNDS-1:
 *       vadd C = M + B; C is read back (a checkpoint)
 *       the CPU writes M[i] ^= 0x5a5a0000 + r (the kernel has finished)
 * Replay gets M's contents only from the trace's keyframes: the start
 * keyframe for the first round, the keyframe before each launch for the
 * rounds after.  Prints the hash of what it read.
 *   cuda_managed_app [--rounds N] [--size N]
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	unsigned n = 2048, rounds = 3, block = 128, grid;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_vadd;
	CUdeviceptr d_m, d_b, d_c;
	uint32_t *m, *back;
	XXH64_state_t *hs = XXH64_createState();
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_managed_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = cup_parse_uint("--rounds", argv[++i], 1, 1000);
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			n = cup_parse_uint("--size", argv[++i], 1, 1u << 22);
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_managed_app [--rounds N] [--size N]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_managed_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	grid = (n + block - 1) / block;
	back = calloc(n, sizeof(uint32_t));
	if (!back || !hs)
		return 1;
	XXH64_reset(hs, 0);
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_vadd, mod, "vadd"));
	CUP_CK(cuMemAllocManaged(&d_m, n * 4, CU_MEM_ATTACH_GLOBAL));
	CUP_CK(cuMemAlloc(&d_b, n * 4));
	CUP_CK(cuMemAlloc(&d_c, n * 4));
	CUP_CK(cuMemsetD32(d_b, 1, n));
	m = (uint32_t *)(uintptr_t)d_m;
	for (unsigned i = 0; i < n; i++)
		m[i] = 3 * i + 7;
	for (unsigned r = 0; r < rounds; r++) {
		void *args[] = { &d_m, &d_b, &d_c, &n };

		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, NULL, args, NULL));
		CUP_CK(cuMemcpyDtoH(back, d_c, n * 4));
		XXH64_update(hs, back, n * 4);
		/* The kernel has finished (the copy waited for it). */
		for (unsigned i = 0; i < n; i++)
			m[i] ^= 0x5a5a0000u + r;
	}
	printf("cuda_managed_app: rounds %u size %u hash 0x%016llx\n", rounds, n,
	       (unsigned long long)XXH64_digest(hs));
	CUP_CK(cuMemFree(d_m));
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_c));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	XXH64_freeState(hs);
	free(back);
	return 0;
}
