/*
 * hip_tramp_check - calls three functions of libhip_fake.so (a fake HIP
 * runtime that returns a checksum of its arguments) with arguments in
 * every integer register and on the stack, and prints what came back and
 * what the fake computes for the same arguments called directly by
 * address: under the interposer the two must agree (its trampolines pass
 * everything through).  Exit status 1 when they differ.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
	typedef hipError_t (*memcpy2d_fn)(void *, size_t, const void *, size_t, size_t, size_t,
	                                  hipMemcpyKind);
	typedef hipError_t (*peer_fn)(void *, int, const void *, int, size_t, hipStream_t);
	/* the fake's own functions, found past any interposer */
	void *lib = dlopen("libhip_fake.so", RTLD_NOW | RTLD_NOLOAD);
	memcpy2d_fn direct2d = lib ? (memcpy2d_fn)dlsym(lib, "hipMemcpy2D") : NULL;
	peer_fn directpeer = lib ? (peer_fn)dlsym(lib, "hipMemcpyPeerAsync") : NULL;
	int bad = 0;
	if (!direct2d || !directpeer) {
		fprintf(stderr, "hip_tramp_check: libhip_fake.so not loaded\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		void *dst = (void *)(uintptr_t)(0x1000u + i), *src = (void *)(uintptr_t)(0x2000u + i);
		hipStream_t s = (hipStream_t)(uintptr_t)(0x3000u + i);
		int a = (int)hipMemcpy2D(dst, 111 + i, src, 222, 333, 444 + i, hipMemcpyDeviceToHost);
		int b = (int)direct2d(dst, 111 + i, src, 222, 333, 444 + i, hipMemcpyDeviceToHost);
		int c = (int)hipMemcpyPeerAsync(dst, -1 - i, src, 5, 666, s);
		int d = (int)directpeer(dst, -1 - i, src, 5, 666, s);
		printf("hipMemcpy2D %d %d\nhipMemcpyPeerAsync %d %d\n", a, b, c, d);
		bad |= a != b || c != d;
	}
	printf("hipGetLastError %d\n", (int)hipGetLastError());
	return bad;
}
