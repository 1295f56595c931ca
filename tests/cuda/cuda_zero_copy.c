/*
 * cuda_zero_copy - kernels that read pinned host memory directly (zero
 * copy), which the CPU rewrites between launches:
 *   A = pinned host memory (cuMemHostAlloc, DEVICEMAP, or cuMemAllocHost
 *       with --alloc-host), B = device memory, C = device memory.
 *   for round r in 0..ROUNDS-1:
 *       the CPU writes A[i] = i * (r + 3) + r     (no copy: the kernel reads it)
 *       vadd C = A + B; C is read back (a checkpoint)
 *       the CPU writes A again, then vadd B = A + C (B accumulates), its
 *       parameters given as an `extra` buffer
 * Replay gets A's contents only from the trace's snapshots of host memory
 * taken before each launch that reads it.  Prints the hash of what it read.
 *   cuda_zero_copy [--rounds N] [--size N] [--alloc-host]
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	unsigned n = 2048, rounds = 4, block = 128, grid;
	int alloc_host = 0;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_vadd;
	CUdeviceptr d_b, d_c;
	uint32_t *a = NULL, *back;
	XXH64_state_t *hs = XXH64_createState();
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_zero_copy";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = cup_parse_uint("--rounds", argv[++i], 1, 1000);
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			n = cup_parse_uint("--size", argv[++i], 1, 1u << 22);
		} else if (!strcmp(argv[i], "--alloc-host")) {
			alloc_host = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_zero_copy [--rounds N] [--size N] [--alloc-host]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_zero_copy: unknown option '%s' (try --help)\n", argv[i]);
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
	if (alloc_host)
		CUP_CK(cuMemAllocHost((void **)&a, n * 4));
	else
		CUP_CK(cuMemHostAlloc((void **)&a, n * 4, CU_MEMHOSTALLOC_DEVICEMAP));
	CUP_CK(cuMemAlloc(&d_b, n * 4));
	CUP_CK(cuMemAlloc(&d_c, n * 4));
	CUP_CK(cuMemsetD32(d_b, 1, n));
	for (unsigned r = 0; r < rounds; r++) {
		/* With unified addressing the host pointer is the device one. */
		CUdeviceptr d_a = (CUdeviceptr)(uintptr_t)a;
		void *args1[] = { &d_a, &d_b, &d_c, &n };
		struct {
			CUdeviceptr a, b, c;
			uint32_t n;
		} buf2 = { d_a, d_c, d_b, n };
		size_t buf2_size = sizeof(buf2);
		void *extra2[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &buf2, CU_LAUNCH_PARAM_BUFFER_SIZE,
		                   &buf2_size, CU_LAUNCH_PARAM_END };

		for (unsigned i = 0; i < n; i++)
			a[i] = i * (r + 3) + r;
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, NULL, args1, NULL));
		CUP_CK(cuMemcpyDtoH(back, d_c, n * 4));
		XXH64_update(hs, back, n * 4);
		/* The kernel above has finished (the copy waited for it). */
		for (unsigned i = 0; i < n; i++)
			a[i] ^= 0x5a5a0000u + r;
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, NULL, NULL, extra2));
		CUP_CK(cuCtxSynchronize());
	}
	CUP_CK(cuMemcpyDtoH(back, d_b, n * 4));
	XXH64_update(hs, back, n * 4);
	printf("cuda_zero_copy: rounds %u size %u%s hash 0x%016llx\n", rounds, n,
	       alloc_host ? " alloc-host" : "", (unsigned long long)XXH64_digest(hs));
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_c));
	CUP_CK(cuMemFreeHost(a));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	XXH64_freeState(hs);
	free(back);
	return 0;
}
