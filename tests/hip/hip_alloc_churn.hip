/*
 * hip_alloc_churn.hip - N device allocations of 256 bytes (argument 1,
 * default 1000), every one freed, then N again: the allocation cost of
 * same-address capture against the runtime's own hipMalloc
 * (docs/benchmarks.md, "HIP allocations").  Prints how many calls failed
 * and the seconds the loop took; no kernel.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	void **p;
	long failed = 0;
	struct timespec t0, t1;
	if (n <= 0 || !(p = (void **)calloc((size_t)n, sizeof(*p))))
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int round = 0; round < 2; round++) {
		for (long i = 0; i < n; i++)
			failed += hipMalloc(&p[i], 256) != hipSuccess;
		for (long i = 0; i < n; i++)
			failed += hipFree(p[i]) != hipSuccess;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("failed %ld\n", failed);
	fprintf(stderr, "seconds %.3f\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(p);
	return 0;
}
