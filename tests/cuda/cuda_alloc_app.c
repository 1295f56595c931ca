/*
 * cuda_alloc_app - allocation patterns that same-address capture must
 * survive, each printing a hash of values only (never addresses), so the
 * output is the same at driver addresses and in the window:
 *   --chase N       cuMemAlloc'd nodes of a linked list that holds device
 *                   pointers to other nodes (in device memory), followed by
 *                   the chase kernel; nodes in separate small allocations,
 *                   interleaved with frees so addresses are reused
 *   --churn N       N rounds of allocating and freeing blocks of varied
 *                   sizes (small and large), a fill kernel over the live
 *                   ones, and a readback
 *   --many N        N live 256-byte allocations at once, each written and
 *                   read back through a few
 *   --prealloc MiB  one allocation of MiB (a framework's cache), of which a
 *                   few pages are used; made first and kept until the end,
 *                   so it is live at every launch of the other modes;
 *                   --fill-prealloc fills it with a non-zero pattern
 *   --reserve       the program's own cuMemAddressReserve(addr = 0) + map
 *   --range         cuMemGetAddressRange and cuPointerGetAttribute's range
 *                   of an address inside a small allocation: printed as
 *                   offsets and sizes, which must not depend on placement
 *   --texture       two texture objects over linear device memory, one
 *                   destroyed; a kernel gets the other's handle as a
 *                   parameter and writes it into memory that is read back
 *                   (so a replay that gave it another handle would differ)
 *   --async         stream-ordered allocations: allocate on a stream, fill,
 *                   free on the stream, allocate again before and after
 *                   synchronizing; prints whether the new allocations
 *                   took the freed address (compared, never printed)
 *   --exit-teardown frees its memory and unloads its module from an atexit
 *                   handler registered before the first CUDA call, as
 *                   cudart does
 * Several may be given; they run in the order above, --prealloc first.
 * --device N runs them all on device N (its primary context).
 */
#include "tests/cuda/cuprog.h"

static CUmodule cua_mod;
static int cua_dev; /* the device's ordinal (--device) */
static CUdeviceptr cua_teardown_mem;

static uint64_t cua_mix(uint64_t h, const void *p, size_t n)
{
	return XXH3_64bits_withSeed(p, n, h);
}

static void cua_teardown(void)
{
	/* Runs after main returned, like cudart's __cudaUnregisterBinaryUtil. */
	if (cua_teardown_mem)
		CUP_CK(cuMemFree(cua_teardown_mem));
	if (cua_mod)
		CUP_CK(cuModuleUnload(cua_mod));
}

struct cua_chase_params { /* the chase kernel's parameters */
	const struct krn_node *head;
	uint32_t *out;
	uint32_t max;
};

static uint64_t cua_chase(CUfunction f, unsigned n, uint64_t h)
{
	CUdeviceptr *nodes = calloc(n, sizeof(*nodes)), out, spacer = 0;
	uint32_t *res = calloc(n, sizeof(*res));
	struct cua_chase_params pr;
	void *args[] = { &pr.head, &pr.out, &pr.max };
	if (!nodes || !res)
		exit(1);
	for (unsigned i = 0; i < n; i++) {
		/* Free a spacer every few nodes, so later nodes reuse its range. */
		if (i % 3 == 0) {
			if (spacer)
				CUP_CK(cuMemFree(spacer));
			CUP_CK(cuMemAlloc(&spacer, 64 + i));
		}
		CUP_CK(cuMemAlloc(&nodes[i], sizeof(struct krn_node)));
	}
	for (unsigned i = 0; i < n; i++) {
		/* Visit the nodes in a scrambled order: node k -> node (k*7+3)%n. */
		struct krn_node node = { 0, i * 2654435761u, 0 };
		unsigned next = (i * 7 + 3) % n;
		node.next = i + 1 < n ? nodes[next] : 0;
		CUP_CK(cuMemcpyHtoD(nodes[i], &node, sizeof(node)));
	}
	CUP_CK(cuMemAlloc(&out, n * sizeof(uint32_t)));
	CUP_CK(cuMemsetD32(out, 0, n));
	pr.head = (const struct krn_node *)(uintptr_t)nodes[0];
	pr.out = (uint32_t *)(uintptr_t)out;
	pr.max = n;
	CUP_CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
	CUP_CK(cuMemcpyDtoH(res, out, n * sizeof(uint32_t)));
	h = cua_mix(h, res, n * sizeof(uint32_t));
	for (unsigned i = 0; i < n; i++)
		CUP_CK(cuMemFree(nodes[i]));
	CUP_CK(cuMemFree(out));
	if (spacer)
		CUP_CK(cuMemFree(spacer));
	free(nodes);
	free(res);
	return h;
}

struct cua_fill_params {
	uint32_t *p;
	uint32_t value;
	uint32_t stride;
	uint32_t n;
};

static uint64_t cua_churn(CUfunction fill, unsigned rounds, uint64_t h)
{
	enum { SLOTS = 16 };
	CUdeviceptr live[SLOTS] = { 0 };
	size_t sizes[SLOTS] = { 0 };
	uint32_t buf[64];
	for (unsigned r = 0; r < rounds; r++) {
		unsigned s = (r * 5 + 1) % SLOTS;
		if (live[s])
			CUP_CK(cuMemFree(live[s]));
		/* Mostly small, every fourth large (several granules). */
		sizes[s] = r % 4 == 3 ? (size_t)(3u << 20) + r * 4096 : 256 + (r * 1237) % 60000;
		sizes[s] &= ~(size_t)3;
		CUP_CK(cuMemAlloc(&live[s], sizes[s]));
		{
			struct cua_fill_params pr = { (uint32_t *)(uintptr_t)live[s], r * 17 + 5, 3,
			                              (uint32_t)(sizes[s] / 4) };
			void *args[] = { &pr.p, &pr.value, &pr.stride, &pr.n };
			CUP_CK(cuLaunchKernel(fill, 4, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
		}
		CUP_CK(cuMemcpyDtoH(buf, live[s], sizeof(buf)));
		h = cua_mix(h, buf, sizeof(buf));
	}
	for (unsigned s = 0; s < SLOTS; s++)
		if (live[s])
			CUP_CK(cuMemFree(live[s]));
	return h;
}

static uint64_t cua_many(unsigned n, uint64_t h)
{
	CUdeviceptr *p = calloc(n, sizeof(*p));
	uint32_t v;
	if (!p)
		exit(1);
	for (unsigned i = 0; i < n; i++)
		CUP_CK(cuMemAlloc(&p[i], 256));
	for (unsigned i = 0; i < n; i += n / 7 + 1) {
		v = i * 2246822519u;
		CUP_CK(cuMemcpyHtoD(p[i] + 252, &v, 4));
	}
	for (unsigned i = 0; i < n; i += n / 7 + 1) {
		CUP_CK(cuMemcpyDtoH(&v, p[i] + 252, 4));
		h = cua_mix(h, &v, 4);
	}
	for (unsigned i = 0; i < n; i++)
		CUP_CK(cuMemFree(p[i]));
	free(p);
	return h;
}

static uint64_t cua_prealloc(unsigned mib, int fill, CUdeviceptr *p, uint64_t h)
{
	uint32_t v = 0xfeedf00du, back = 0;
	CUP_CK(cuMemAlloc(p, (size_t)mib << 20));
	if (fill)
		CUP_CK(cuMemsetD32(*p, 0x5a5aa5a5u, (size_t)mib << 18));
	CUP_CK(cuMemcpyHtoD(*p + ((size_t)mib << 19), &v, 4));
	CUP_CK(cuMemcpyDtoH(&back, *p + ((size_t)mib << 19), 4));
	return cua_mix(h, &back, 4);
}

static uint64_t cua_reserve(uint64_t h)
{
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc access = { 0 };
	CUmemGenericAllocationHandle mh;
	CUdeviceptr base;
	size_t gran;
	uint32_t v = 0x5eed, back = 0;
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = cua_dev;
	CUP_CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CUP_CK(cuMemAddressReserve(&base, 4 * gran, 0, 0, 0));
	CUP_CK(cuMemCreate(&mh, gran, &prop, 0));
	CUP_CK(cuMemMap(base + gran, gran, 0, mh, 0));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CUP_CK(cuMemSetAccess(base + gran, gran, &access, 1));
	CUP_CK(cuMemcpyHtoD(base + gran + 8, &v, 4));
	CUP_CK(cuMemcpyDtoH(&back, base + gran + 8, 4));
	h = cua_mix(h, &back, 4);
	CUP_CK(cuMemUnmap(base + gran, gran));
	CUP_CK(cuMemRelease(mh));
	CUP_CK(cuMemAddressFree(base, 4 * gran));
	return h;
}

static uint64_t cua_texture(CUfunction fill, uint64_t h)
{
	CUdeviceptr buf, out;
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC td;
	CUtexObject t1, t2;
	uint32_t back[4];
	struct cua_fill_params pr;
	void *args[] = { &pr.p, &pr.value, &pr.stride, &pr.n };
	CUP_CK(cuMemAlloc(&buf, 4096));
	CUP_CK(cuMemAlloc(&out, sizeof(back)));
	memset(&res, 0, sizeof(res));
	res.resType = CU_RESOURCE_TYPE_LINEAR;
	res.res.linear.devPtr = buf;
	res.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
	res.res.linear.numChannels = 1;
	res.res.linear.sizeInBytes = 4096;
	memset(&td, 0, sizeof(td));
	td.flags = CU_TRSF_READ_AS_INTEGER;
	CUP_CK(cuTexObjectCreate(&t1, &res, &td, NULL));
	res.res.linear.sizeInBytes = 2048;
	CUP_CK(cuTexObjectCreate(&t2, &res, &td, NULL));
	CUP_CK(cuTexObjectDestroy(t1));
	pr.p = (uint32_t *)(uintptr_t)out;
	pr.value = (uint32_t)t2; /* the handle, as a kernel parameter */
	pr.stride = 0;
	pr.n = 4;
	CUP_CK(cuLaunchKernel(fill, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL));
	CUP_CK(cuMemcpyDtoH(back, out, sizeof(back)));
	h = cua_mix(h, back, sizeof(back));
	CUP_CK(cuTexObjectDestroy(t2));
	CUP_CK(cuMemFree(buf));
	CUP_CK(cuMemFree(out));
	return h;
}

static uint64_t cua_async(CUfunction fill, uint64_t h)
{
	CUstream s;
	CUdeviceptr a, b, c;
	uint32_t back[64];
	struct cua_fill_params pr;
	void *args[] = { &pr.p, &pr.value, &pr.stride, &pr.n };
	CUP_CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuMemAllocAsync(&a, 4096, s));
	pr.p = (uint32_t *)(uintptr_t)a;
	pr.value = 77;
	pr.stride = 3;
	pr.n = 1024;
	CUP_CK(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, s, args, NULL));
	CUP_CK(cuMemcpyDtoHAsync(back, a, sizeof(back), s));
	CUP_CK(cuMemFreeAsync(a, s));
	/* The stream may not have reached the free yet: a's range is not free. */
	CUP_CK(cuMemAlloc(&b, 4096));
	CUP_CK(cuStreamSynchronize(s));
	h = cua_mix(h, back, sizeof(back));
	CUP_CK(cuMemAlloc(&c, 4096));
	printf("cuda_alloc_app: async reused before sync %d after sync %d\n", b == a, c == a);
	CUP_CK(cuMemFree(b));
	CUP_CK(cuMemFree(c));
	CUP_CK(cuStreamDestroy(s));
	return h;
}

static uint64_t cua_range(uint64_t h)
{
	CUdeviceptr a, b, base = 0, start = 0;
	size_t size = 0, rsize = 0;
	PFN_cuPointerGetAttribute_v4000 attr = NULL;
	CUdriverProcAddressQueryResult q;
	/* Looked up as the runtime does, so that the program loads on a driver
	 * without it (and then says so). */
	CUP_CK(cuGetProcAddress("cuPointerGetAttribute", (void **)&attr, 13000,
	                        CU_GET_PROC_ADDRESS_DEFAULT, &q));
	CUP_CK(cuMemAlloc(&a, 1000));
	CUP_CK(cuMemAlloc(&b, 3000));
	CUP_CK(cuMemGetAddressRange(&base, &size, b + 100));
	if (!attr) {
		fprintf(stderr, "cuda_alloc_app: the driver has no cuPointerGetAttribute\n");
		exit(1);
	}
	CUP_CK(attr(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, b + 100));
	CUP_CK(attr(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, b + 100));
	printf("cuda_alloc_app: range offset %llu size>=3000 %d attr offset %llu attr size>=3000 %d\n",
	       (unsigned long long)(b + 100 - base), size >= 3000 && size < 4096,
	       (unsigned long long)(b + 100 - start), rsize >= 3000 && rsize < 4096);
	CUP_CK(cuMemFree(a));
	CUP_CK(cuMemFree(b));
	return h;
}

int main(int argc, char **argv)
{
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };
	unsigned chase = 0, churn = 0, many = 0, prealloc = 0;
	int reserve = 0, range = 0, teardown = 0, texture = 0, fill_pre = 0, async = 0;
	unsigned devnum = 0;
	CUdevice dev;
	CUcontext ctx;
	CUfunction f_chase, f_fill;
	CUdeviceptr pre = 0;
	void *image;
	uint64_t h = 0;

	cup_prog = "cuda_alloc_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chase") && i + 1 < argc) {
			chase = cup_parse_uint("--chase", argv[++i], 2, 100000);
		} else if (!strcmp(argv[i], "--churn") && i + 1 < argc) {
			churn = cup_parse_uint("--churn", argv[++i], 1, 1000000);
		} else if (!strcmp(argv[i], "--many") && i + 1 < argc) {
			many = cup_parse_uint("--many", argv[++i], 1, 1000000);
		} else if (!strcmp(argv[i], "--prealloc") && i + 1 < argc) {
			prealloc = cup_parse_uint("--prealloc", argv[++i], 1, 1u << 20);
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			devnum = cup_parse_uint("--device", argv[++i], 0, 64);
		} else if (!strcmp(argv[i], "--fill-prealloc")) {
			fill_pre = 1;
		} else if (!strcmp(argv[i], "--reserve")) {
			reserve = 1;
		} else if (!strcmp(argv[i], "--range")) {
			range = 1;
		} else if (!strcmp(argv[i], "--async")) {
			async = 1;
		} else if (!strcmp(argv[i], "--texture")) {
			texture = 1;
		} else if (!strcmp(argv[i], "--exit-teardown")) {
			teardown = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_alloc_app [--chase N] [--churn N] [--many N] [--prealloc MiB [--fill-prealloc]] "
			       "[--reserve] [--range] [--texture] [--async] [--exit-teardown] [--device N]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_alloc_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	if (teardown)
		atexit(cua_teardown);
	CUP_CK(cuInit(0));
	cua_dev = (int)devnum;
	CUP_CK(cuDeviceGet(&dev, (int)devnum));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&cua_mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_chase, cua_mod, "chase"));
	CUP_CK(cuModuleGetFunction(&f_fill, cua_mod, "fill"));
	if (prealloc)
		h = cua_prealloc(prealloc, fill_pre, &pre, h);
	if (chase)
		h = cua_chase(f_chase, chase, h);
	if (churn)
		h = cua_churn(f_fill, churn, h);
	if (many)
		h = cua_many(many, h);
	if (reserve)
		h = cua_reserve(h);
	if (range)
		h = cua_range(h);
	if (texture)
		h = cua_texture(f_fill, h);
	if (async)
		h = cua_async(f_fill, h);
	if (teardown) {
		CUP_CK(cuMemAlloc(&cua_teardown_mem, 4096));
		CUP_CK(cuMemsetD32(cua_teardown_mem, 7, 1024));
	} else {
		CUP_CK(cuModuleUnload(cua_mod));
	}
	if (pre)
		CUP_CK(cuMemFree(pre));
	printf("cuda_alloc_app: hash 0x%016llx\n", (unsigned long long)h);
	return 0;
}
