/*
 * hip_async_alloc.hip - stream-ordered allocations (hipMallocAsync,
 * hipFreeAsync) on a created stream, for same-address capture
 * (tests/shell/test_hip_va.sh): one allocation filled and read back, freed
 * in stream order, a second one made after it on the same stream and read
 * back too.  No kernel.  Prints each call's status and the bytes read;
 * runs to its end whatever the device.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>

int main(void)
{
	enum { N = 4096 };
	static unsigned char ha[N], hb[N];
	unsigned char *a = NULL, *b = NULL;
	hipStream_t s = NULL;
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipMallocAsync %d\n", (int)hipMallocAsync((void **)&a, N, s));
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(a, 7, N, s));
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(ha, a, N, hipMemcpyDeviceToHost, s));
	printf("hipFreeAsync %d\n", (int)hipFreeAsync(a, s));
	printf("hipMallocAsync %d\n", (int)hipMallocAsync((void **)&b, N, s));
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(b, 9, N, s));
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(hb, b, N, hipMemcpyDeviceToHost, s));
	printf("hipFreeAsync %d\n", (int)hipFreeAsync(b, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
	printf("ha[5] %d hb[5] %d\n", ha[5], hb[5]);
	return 0;
}
