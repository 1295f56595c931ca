/*
 * hip_tramp_check - calls three functions of libhip_fake.so (a fake HIP
 * runtime that returns a checksum of its arguments) with arguments in
 * every integer register and on the stack (hipGraphAddMemcpyNodeToSymbol's
 * nine,
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
	typedef hipError_t (*tosymbol_fn)(hipGraphNode_t *, hipGraph_t, const hipGraphNode_t *, size_t,
	                                  const void *, const void *, size_t, size_t, hipMemcpyKind);
	typedef hipError_t (*range_fn)(void **, size_t *, hipMemRangeAttribute *, size_t, const void *,
	                               size_t);
	/* the fake's own functions, found past any interposer */
	void *lib = dlopen("libhip_fake.so", RTLD_NOW | RTLD_NOLOAD);
	tosymbol_fn directsym = lib ? (tosymbol_fn)dlsym(lib, "hipGraphAddMemcpyNodeToSymbol") : NULL;
	range_fn directrange = lib ? (range_fn)dlsym(lib, "hipMemRangeGetAttributes") : NULL;
	int bad = 0;
	if (!directsym || !directrange) {
		fprintf(stderr, "hip_tramp_check: libhip_fake.so not loaded\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		hipGraphNode_t *node = (hipGraphNode_t *)(uintptr_t)(0x1000u + i);
		hipGraph_t graph = (hipGraph_t)(uintptr_t)0x6000u;
		const hipGraphNode_t *deps = (const hipGraphNode_t *)(uintptr_t)0x7000u;
		const void *sym = (const void *)(uintptr_t)(0x8000u + i);
		void *src = (void *)(uintptr_t)(0x2000u + i);
		void **data = (void **)(uintptr_t)(0x3000u + i);
		size_t *sizes = (size_t *)(uintptr_t)0x4000u;
		hipMemRangeAttribute *attrs = (hipMemRangeAttribute *)(uintptr_t)0x5000u;
		/* nine arguments: the last three on the stack */
		int a = (int)hipGraphAddMemcpyNodeToSymbol(node, graph, deps, 2, sym, src, 444 + (size_t)i,
		                                           555, hipMemcpyHostToDevice);
		int b = (int)directsym(node, graph, deps, 2, sym, src, 444 + (size_t)i, 555,
		                       hipMemcpyHostToDevice);
		/* six: every integer argument register */
		int c = (int)hipMemRangeGetAttributes(data, sizes, attrs, 4, src, 666 + (size_t)i);
		int d = (int)directrange(data, sizes, attrs, 4, src, 666 + (size_t)i);
		printf("hipGraphAddMemcpyNodeToSymbol %d %d\nhipMemRangeGetAttributes %d %d\n", a, b, c, d);
		bad |= a != b || c != d;
	}
	printf("hipGetLastError %d\n", (int)hipGetLastError());
	return bad;
}
