/*
 * hip_pitch_alloc.hip - pitched allocations (hipMallocPitch) beside a
 * linear one, filled and read back with pitched copies, for same-address
 * capture (tests/shell/test_hip_va.sh): the rows' pitch the program is
 * given, the range hipMemGetAddressRange gives for a pointer inside the
 * linear one (its own base and size, though it shares a mapping), the
 * bytes it reads back.  No kernel.  Prints each call's status;
 * runs to its end whatever the device.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	enum { W = 100, H = 3 };
	static unsigned char host[H][W], back[H][W];
	unsigned char *a = NULL, *b = NULL, *lin = NULL;
	size_t pa = 0, pb = 0;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			host[y][x] = (unsigned char)(y * 31 + x);
	printf("hipMallocPitch %d\n", (int)hipMallocPitch((void **)&a, &pa, W, H));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&lin, 64));
	printf("hipMallocPitch %d\n", (int)hipMallocPitch((void **)&b, &pb, W, H));
	printf("pitch %zu %zu\n", pa, pb);
	{
		hipDeviceptr_t base = NULL;
		size_t size = 0;
		hipError_t r = hipMemGetAddressRange(&base, &size, lin + 10);
		printf("hipMemGetAddressRange %d: base %+td, %zu bytes\n", (int)r,
		       r == hipSuccess ? (char *)base - (char *)lin : (ptrdiff_t)0, size);
	}
	printf("hipMemcpy2D %d\n", (int)hipMemcpy2D(a, pa, host, W, W, H, hipMemcpyHostToDevice));
	printf("hipMemcpy2D %d\n", (int)hipMemcpy2D(b, pb, a, pa, W, H, hipMemcpyDeviceToDevice));
	memset(back, 0, sizeof(back));
	printf("hipMemcpy2D %d\n", (int)hipMemcpy2D(back, W, b, pb, W, H, hipMemcpyDeviceToHost));
	printf("back[2][7] %d\n", back[2][7]);
	printf("hipFree %d\n", (int)hipFree(a));
	printf("hipFree %d\n", (int)hipFree(lin));
	printf("hipFree %d\n", (int)hipFree(b));
	return 0;
}
