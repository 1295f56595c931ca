/*
 * cuda_alloc_loop - what an allocation costs: N rounds of cuMemAlloc of
 * SIZE bytes and its cuMemFree, with K allocations kept live throughout
 * (so that a placing allocator works among neighbours, not in an empty
 * space).  Prints the rounds and the nanoseconds per allocate+free pair.
 *   cuda_alloc_loop [--rounds N] [--size BYTES] [--live K]
 */
#include <time.h>

#include "tests/cuda/cuprog.h"

static uint64_t cal_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned rounds = 10000, size = 256, live = 64;
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr *keep, p;
	uint64_t t0, t1;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_alloc_loop";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = cup_parse_uint("--rounds", argv[++i], 1, 100000000);
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			size = cup_parse_uint("--size", argv[++i], 1, 1u << 30);
		} else if (!strcmp(argv[i], "--live") && i + 1 < argc) {
			live = cup_parse_uint("--live", argv[++i], 0, 100000);
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_alloc_loop [--rounds N] [--size BYTES] [--live K]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_alloc_loop: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	keep = calloc(live ? live : 1, sizeof(*keep));
	if (!keep)
		return 1;
	for (unsigned i = 0; i < live; i++)
		CUP_CK(cuMemAlloc(&keep[i], size));
	t0 = cal_now();
	for (unsigned i = 0; i < rounds; i++) {
		CUP_CK(cuMemAlloc(&p, size));
		CUP_CK(cuMemFree(p));
	}
	t1 = cal_now();
	printf("cuda_alloc_loop: rounds %u size %u ns_per_pair %.1f\n", rounds, size, (double)(t1 - t0) / rounds);
	for (unsigned i = 0; i < live; i++)
		CUP_CK(cuMemFree(keep[i]));
	free(keep);
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	return 0;
}
