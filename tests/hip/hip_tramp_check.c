/*
 * hip_tramp_check - calls three functions of libhip_fake.so (a fake HIP
 * runtime that returns a checksum of its arguments) with arguments in
 * every integer register and on the stack (hipExtLaunchKernel's nine, two
 * of them dim3 structs passed in register pairs, four on the stack;
 * hipMemRangeGetAttributes' six; calls the interposer does not wrap by
 * hand, so they go through its generated trampolines), and prints what
 * came back and what the fake computes for the same arguments called
 * directly by address: under the interposer the two must agree (its trampolines pass
 * everything through).  Exit status 1 when they differ.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
	typedef hipError_t (*extlaunch_fn)(const void *, dim3, dim3, void **, size_t, hipStream_t,
	                                   hipEvent_t, hipEvent_t, int);
	typedef hipError_t (*range_fn)(void **, size_t *, hipMemRangeAttribute *, size_t, const void *,
	                               size_t);
	/* the fake's own functions, found past any interposer (whose dlsym
	 * hands out its trampolines for their hip* names: hence the aliases) */
	void *lib = dlopen("libhip_fake.so", RTLD_NOW | RTLD_NOLOAD);
	extlaunch_fn directext = lib ? (extlaunch_fn)dlsym(lib, "hipfake_direct_ext_launch") : NULL;
	range_fn directrange = lib ? (range_fn)dlsym(lib, "hipfake_direct_range") : NULL;
	int bad = 0;
	if (!directext || !directrange) {
		fprintf(stderr, "hip_tramp_check: libhip_fake.so not loaded\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		const void *fn = (const void *)(uintptr_t)(0x1000u + i);
		dim3 grid = {7u + (unsigned)i, 8, 9}, block = {64, 2u + (unsigned)i, 1};
		void **kargs = (void **)(uintptr_t)0x6000u;
		hipStream_t stream = (hipStream_t)(uintptr_t)0x7000u;
		hipEvent_t start = (hipEvent_t)(uintptr_t)(0x8000u + i), stop = (hipEvent_t)(uintptr_t)0x9000u;
		void *src = (void *)(uintptr_t)(0x2000u + i);
		void **data = (void **)(uintptr_t)(0x3000u + i);
		size_t *sizes = (size_t *)(uintptr_t)0x4000u;
		hipMemRangeAttribute *attrs = (hipMemRangeAttribute *)(uintptr_t)0x5000u;
		/* nine arguments in eleven words: the last four on the stack */
		int a = (int)hipExtLaunchKernel(fn, grid, block, kargs, 444 + (size_t)i, stream, start,
		                                stop, 555);
		int b = (int)directext(fn, grid, block, kargs, 444 + (size_t)i, stream, start, stop, 555);
		/* six: every integer argument register */
		int c = (int)hipMemRangeGetAttributes(data, sizes, attrs, 4, src, 666 + (size_t)i);
		int d = (int)directrange(data, sizes, attrs, 4, src, 666 + (size_t)i);
		printf("hipExtLaunchKernel %d %d\nhipMemRangeGetAttributes %d %d\n", a, b, c, d);
		bad |= a != b || c != d;
	}
	printf("hipGetLastError %d\n", (int)hipGetLastError());
	return bad;
}
