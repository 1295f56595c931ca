/*
 * cuda_va_checks - the double's address-space behaviour against the real
 * driver's measured facts (../shared/gpu-fixtures/README.md, "Driver facts
 * measured there"), and the pointer queries, legacy IPC and side door that
 * same-address capture relies on.  Each check names the fact it encodes.
 *
 *   cuda_va_checks            every check; prints the addresses it was given
 *                             ("alloc 0x...", for tests/shell/test_cuda_double.sh
 *                             to compare across runs), "dtoh N" / "htod N"
 *                             (bytes it copied each way, to compare with
 *                             TSCUDA_DOUBLE_STATS), then "N checks passed";
 *                             with TSCUDA_DOUBLE_DEVICES=2 it also uses device
 *                             1's memory in device 1's window (base + 512 GiB)
 *   cuda_va_checks --window   only: reserve 512 GiB at 0x200000000000 (no
 *                             hint check), map 2 MiB at 100 GiB into it and
 *                             use it; prints "window 0x... asked 0x..."
 *
 * The first form needs the default TSCUDA_DOUBLE_RESERVE (measured) and a
 * process without TSan (TSan's memory layout has no room at 0x2000_0000_0000).
 */
#include "tests/cuda/cuprog.h"
#include "tests/doubles/cuda/tcd_ext.h"

#include <sys/mman.h>

#define VA_WINDOW 0x200000000000ull
#define VA_GIB ((size_t)1 << 30)
#define VA_MIB ((size_t)1 << 20)
#define VA_WINDOW_BYTES ((size_t)512 << 30)
#define VA_HEAP_LO 0x7f0000000000ull
#define VA_HEAP_HI 0x7f8000000000ull

static int va_failed, va_passed;
static unsigned long long va_dtoh, va_htod;

static void va_chk(CUresult got, CUresult want, const char *what, int line)
{
	const char *g = NULL, *w = NULL;

	if (got == want) {
		va_passed++;
		return;
	}
	cuGetErrorName(got, &g);
	cuGetErrorName(want, &w);
	printf("FAILED line %d: %s returned %s, expected %s\n", line, what, g ? g : "?", w ? w : "?");
	va_failed++;
}
#define EXPECT(call, want) va_chk((call), (want), #call, __LINE__)
#define EXPECT_TRUE(cond) va_chk((cond) ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN, CUDA_SUCCESS, #cond, __LINE__)

/* Copies that are also counted here, to compare with the double's stats. */
static CUresult va_dtoh_copy(void *dst, CUdeviceptr src, size_t n)
{
	CUresult r = cuMemcpyDtoH(dst, src, n);

	if (r == CUDA_SUCCESS)
		va_dtoh += n;
	return r;
}

static CUresult va_htod_copy(CUdeviceptr dst, const void *src, size_t n)
{
	CUresult r = cuMemcpyHtoD(dst, src, n);

	if (r == CUDA_SUCCESS)
		va_htod += n;
	return r;
}

/* Resident anonymous plus shared-memory (memfd) kilobytes of this process. */
static unsigned long long va_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kb = 0, v;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu", &v) == 1 || sscanf(line, "RssShmem: %llu", &v) == 1)
			kb += v;
	fclose(f);
	return kb;
}

/* Whether nothing in this process holds [p, p + n) (a sanitizer keeps its
 * shadow and allocator at fixed addresses, which no driver could have). */
static int va_host_free(CUdeviceptr p, size_t n)
{
	void *q = mmap((void *)(uintptr_t)p, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (q == MAP_FAILED)
		return 0;
	munmap(q, n);
	return q == (void *)(uintptr_t)p;
}

static void va_prop(CUmemAllocationProp *prop, int dev)
{
	memset(prop, 0, sizeof(*prop));
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = dev;
	prop->requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
}

/* Maps a fresh cuMemCreate of bytes at p, read-write; the handle is released
 * (the mapping keeps the memory). */
static CUresult va_map(CUdeviceptr p, size_t bytes, int dev)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc access = { 0 };
	CUmemGenericAllocationHandle h;
	CUresult r;

	va_prop(&prop, dev);
	if ((r = cuMemCreate(&h, bytes, &prop, 0)) != CUDA_SUCCESS)
		return r;
	if ((r = cuMemMap(p, bytes, 0, h, 0)) != CUDA_SUCCESS) {
		cuMemRelease(h);
		return r;
	}
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	r = cuMemSetAccess(p, bytes, &access, 1);
	cuMemRelease(h);
	return r;
}

/* fill on the device: p[i] = value + i * stride for i < n (one block). */
static CUresult va_fill(CUfunction f, CUdeviceptr p, uint32_t value, uint32_t stride, uint32_t n)
{
	void *args[] = { &p, &value, &stride, &n };
	CUresult r = cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, NULL, args, NULL);

	return r == CUDA_SUCCESS ? cuCtxSynchronize() : r;
}

static int va_window_only(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr win = 0;
	uint32_t v[4] = { 0 };
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_api_for_errors = &errs;
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	CUP_CK(cuMemAddressReserve(&win, VA_WINDOW_BYTES, 0, VA_WINDOW, 0));
	printf("cuda_va_checks: window 0x%llx asked 0x%llx\n", (unsigned long long)win, VA_WINDOW);
	CUP_CK(va_map(win + 100 * VA_GIB, 2 * VA_MIB, dev));
	CUP_CK(cuMemsetD32(win + 100 * VA_GIB, 0xabcd1234, 2 * VA_MIB / 4));
	CUP_CK(cuMemcpyDtoH(v, win + 100 * VA_GIB + 4096, sizeof(v)));
	printf("cuda_va_checks: read 0x%x\n", v[0]);
	CUP_CK(cuMemUnmap(win + 100 * VA_GIB, 2 * VA_MIB));
	CUP_CK(cuMemAddressFree(win, VA_WINDOW_BYTES));
	return v[0] == 0xabcd1234u ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const CUdeviceptr fact2[] = { 0x100000000000ull, 0x200000000000ull, 0x300000000000ull,
					     0x500000000000ull, 0x600000000000ull, 0x7e0000000000ull };
	static const unsigned char sidedoor_id[16] = TCD_SIDEDOOR_UUID_BYTES;
	const size_t sizes[4] = { 1 * VA_MIB, 16 * VA_MIB, 2 * VA_MIB, 256 * VA_MIB };
	CUdevice dev;
	CUcontext ctx, ctx2 = NULL;
	CUdeviceptr p[4], r, win = 0, win1 = 0, freed;
	CUmodule mod;
	CUfunction f_fill;
	uint32_t host[64];
	void *image;

	cup_prog = "cuda_va_checks";
	if (argc == 2 && !strcmp(argv[1], "--window"))
		return va_window_only();
	if (argc > 1) {
		fprintf(stderr, "cuda_va_checks: usage: cuda_va_checks [--window]\n");
		return 2;
	}
	EXPECT(cuInit(0), CUDA_SUCCESS);
	EXPECT(cuDeviceGet(&dev, 0), CUDA_SUCCESS);
	EXPECT(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
	EXPECT(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	image = cup_module_image("kernels", NULL);
	EXPECT(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
	free(image);
	EXPECT(cuModuleGetFunction(&f_fill, mod, "fill"), CUDA_SUCCESS);

	/* fact 1: cuMemAlloc memory lies in the driver's own area (0x7f...),
	 * at addresses that change from run to run (the shell test compares
	 * these lines across runs). */
	for (int i = 0; i < 4; i++) {
		EXPECT(cuMemAlloc(&p[i], sizes[i]), CUDA_SUCCESS);
		EXPECT_TRUE(p[i] >= VA_HEAP_LO && p[i] + sizes[i] <= VA_HEAP_HI);
		printf("cuda_va_checks: alloc %zu 0x%llx\n", sizes[i], (unsigned long long)p[i]);
	}

	/* fact 2: with a context and allocations but no runtime, a 64 MiB
	 * reservation anywhere in [0x1000_0000_0000, 0x7f00_0000_0000) is
	 * exact, as probe_va found at each of these addresses. */
	for (size_t i = 0; i < sizeof(fact2) / sizeof(fact2[0]); i++) {
		int host_free = va_host_free(fact2[i], 64 * VA_MIB);

		if (!host_free)
			printf("cuda_va_checks: 0x%llx is taken in this process (a sanitizer's memory?): "
			       "fact 2 not checked there\n", (unsigned long long)fact2[i]);
		EXPECT_TRUE(host_free || fact2[i] != VA_WINDOW);
		r = 0;
		EXPECT(cuMemAddressReserve(&r, 64 * VA_MIB, 0, fact2[i], 0), CUDA_SUCCESS);
		EXPECT_TRUE(!host_free || r == fact2[i]);
		EXPECT(cuMemAddressFree(r, 64 * VA_MIB), CUDA_SUCCESS);
	}

	/* fact 3: an address in the driver's own allocation area is not
	 * honoured, even where nothing is mapped: probe_va's try 512 MiB past
	 * its last allocation, and the address of an allocation just freed. */
	EXPECT(cuMemAddressReserve(&r, 64 * VA_MIB, 0, p[3] + 512 * VA_MIB, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r != p[3] + 512 * VA_MIB);
	EXPECT(cuMemAddressFree(r, 64 * VA_MIB), CUDA_SUCCESS);
	EXPECT(cuMemAlloc(&freed, 64 * VA_MIB), CUDA_SUCCESS);
	EXPECT(cuMemFree(freed), CUDA_SUCCESS);
	EXPECT(cuMemAddressReserve(&r, 64 * VA_MIB, 0, freed, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r != freed);
	EXPECT(cuMemAddressFree(r, 64 * VA_MIB), CUDA_SUCCESS);

	/* fact 2 (probe_va's last step): mapped at the exact address, memset
	 * and read back there. */
	EXPECT(cuMemAddressReserve(&r, 64 * VA_MIB, 0, VA_WINDOW, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r == VA_WINDOW);
	EXPECT(va_map(r, 64 * VA_MIB, dev), CUDA_SUCCESS);
	EXPECT(cuMemsetD32(r, 0xabcd1234, 16 << 18), CUDA_SUCCESS);
	EXPECT(va_dtoh_copy(host, r + 4096, 16), CUDA_SUCCESS);
	EXPECT_TRUE(host[0] == 0xabcd1234u && host[3] == 0xabcd1234u);
	EXPECT(cuMemUnmap(r, 64 * VA_MIB), CUDA_SUCCESS);
	EXPECT(cuMemAddressFree(r, 64 * VA_MIB), CUDA_SUCCESS);

	/* fact 6: the side door retains the primary context without any
	 * exported entry point (the shell test checks the call count). */
	{
		const void *table = NULL;
		const tcd_sidedoor *sd;
		CUuuid id;

		memcpy(id.bytes, sidedoor_id, sizeof(id.bytes));
		EXPECT(cuGetExportTable(&table, &id), CUDA_SUCCESS);
		sd = table;
		EXPECT_TRUE(sd && sd->size >= sizeof(tcd_sidedoor) && sd->primary_ctx_retain);
		if (sd && sd->primary_ctx_retain) {
			EXPECT(sd->primary_ctx_retain(&ctx2, dev), CUDA_SUCCESS);
			EXPECT_TRUE(ctx2 == ctx);
			EXPECT(sd->primary_ctx_retain(&ctx2, 5), CUDA_ERROR_INVALID_DEVICE);
		}
		id.bytes[0] ^= 1;
		EXPECT(cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
	}

	/* fact 4: once the runtime has started, small hinted reservations are
	 * placed elsewhere (2 MiB at 0x200000000000 was), large ones are
	 * exact (512 GiB there was); the double's threshold is 1 GiB. */
	EXPECT(cuMemAddressReserve(&r, 2 * VA_MIB, 0, VA_WINDOW, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r != VA_WINDOW && (r >= VA_WINDOW + 2 * VA_MIB || r + 2 * VA_MIB <= VA_WINDOW));
	EXPECT(cuMemAddressFree(r, 2 * VA_MIB), CUDA_SUCCESS);
	EXPECT(cuMemAddressReserve(&r, VA_GIB - 2 * VA_MIB, 0, 0x500000000000ull, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r != 0x500000000000ull);
	EXPECT(cuMemAddressFree(r, VA_GIB - 2 * VA_MIB), CUDA_SUCCESS);
	EXPECT(cuMemAddressReserve(&r, VA_GIB, 0, 0x500000000000ull, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r == 0x500000000000ull);
	EXPECT(cuMemAddressFree(r, VA_GIB), CUDA_SUCCESS);
	/* fact 3 still holds for a large one inside the driver's area */
	EXPECT(cuMemAddressReserve(&r, VA_GIB, 0, VA_HEAP_LO + 64 * VA_GIB, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r != VA_HEAP_LO + 64 * VA_GIB);
	EXPECT(cuMemAddressFree(r, VA_GIB), CUDA_SUCCESS);

	/* fact 4: the same-address window, one 512 GiB reservation per device
	 * (device n at base + n * 512 GiB), exact and cheap. */
	{
		unsigned long long before = va_rss_kb();

		EXPECT(cuMemAddressReserve(&win, VA_WINDOW_BYTES, 0, VA_WINDOW, 0), CUDA_SUCCESS);
		EXPECT_TRUE(win == VA_WINDOW);
		EXPECT(cuMemAddressReserve(&win1, VA_WINDOW_BYTES, 0, VA_WINDOW + VA_WINDOW_BYTES, 0), CUDA_SUCCESS);
		EXPECT_TRUE(win1 == VA_WINDOW + VA_WINDOW_BYTES);
		EXPECT_TRUE(va_rss_kb() < before + 16 * 1024);
	}
	/* With TSCUDA_DOUBLE_DEVICES=2, device 1's memory in device 1's window. */
	{
		int ndev = 0;
		unsigned v = 0;
		int ordinal = -1;

		EXPECT(cuDeviceGetCount(&ndev), CUDA_SUCCESS);
		if (ndev == 2) {
			EXPECT(va_map(win1, 2 * VA_MIB, 1), CUDA_SUCCESS);
			EXPECT(cuMemsetD32(win1 + 4096, 0x11, 1), CUDA_SUCCESS);
			EXPECT(va_dtoh_copy(&v, win1 + 4096, 4), CUDA_SUCCESS);
			EXPECT_TRUE(v == 0x11);
			EXPECT(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, win1), CUDA_SUCCESS);
			EXPECT_TRUE(ordinal == 1);
			EXPECT(cuMemUnmap(win1, 2 * VA_MIB), CUDA_SUCCESS);
			printf("cuda_va_checks: device 1 window used\n");
		}
	}

	/* fact 4: allocations mapped inside the window work, at any 2 MiB
	 * offset; copies, memsets and kernels reach them; holes are refused. */
	{
		const size_t offs[] = { 0, 2 * VA_MIB * 7, 100 * VA_GIB, VA_WINDOW_BYTES - 2 * VA_MIB };
		CUdeviceptr a = win + 100 * VA_GIB, base = 0;
		size_t size = 0;

		for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
			EXPECT(va_map(win + offs[i], 2 * VA_MIB, dev), CUDA_SUCCESS);
			EXPECT(cuMemsetD32(win + offs[i], (unsigned)i + 1, 64), CUDA_SUCCESS);
			EXPECT(va_dtoh_copy(host, win + offs[i], 256), CUDA_SUCCESS);
			EXPECT_TRUE(host[0] == i + 1 && host[63] == i + 1);
		}
		EXPECT(cuMemMap(win + VA_MIB, 2 * VA_MIB, 0, 0, 0), CUDA_ERROR_INVALID_HANDLE);
		EXPECT(va_map(win + VA_MIB, 2 * VA_MIB, dev), CUDA_ERROR_INVALID_VALUE); /* not granule-aligned */
		EXPECT(va_fill(f_fill, a + 4096, 5, 3, 64), CUDA_SUCCESS);
		EXPECT(va_dtoh_copy(host, a + 4096, 256), CUDA_SUCCESS);
		EXPECT_TRUE(host[0] == 5 && host[63] == 5 + 63 * 3);
		memset(host, 0x5a, sizeof(host));
		EXPECT(va_htod_copy(a + 2 * VA_MIB - 256, host, 256), CUDA_SUCCESS);
		/* a hole, and a copy running from a mapping into a hole */
		EXPECT(cuMemcpyHtoD(win + 50 * VA_GIB, host, 4), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemcpyHtoD(a + 2 * VA_MIB - 128, host, 256), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemsetD8(win + 50 * VA_GIB, 0, 1), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuMemcpyDtoD(a, win + 50 * VA_GIB, 4), CUDA_ERROR_INVALID_VALUE);

		/* cuMemGetAddressRange: the mapping, as the real driver answers
		 * (an interposer serving sub-allocations must answer itself). */
		EXPECT(cuMemGetAddressRange(&base, &size, a + 12345), CUDA_SUCCESS);
		EXPECT_TRUE(base == a && size == 2 * VA_MIB);
		EXPECT(cuMemGetAddressRange(&base, &size, win + 50 * VA_GIB), CUDA_ERROR_NOT_FOUND);

		/* pointer attributes of VMM memory: the range is the reservation
		 * (as documented), the mapping its own attribute, no context */
		{
			CUdeviceptr start = 0, mbase = 0;
			size_t rsize = 0, msize = 0;
			unsigned type = 0, mapped = 9, managed = 9, handles = 0, ipc = 9;
			int ordinal = -1;
			CUcontext c = (CUcontext)host;

			EXPECT(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 8), CUDA_SUCCESS);
			EXPECT(cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a + 8), CUDA_SUCCESS);
			EXPECT_TRUE(start == win && rsize == VA_WINDOW_BYTES);
			EXPECT(cuPointerGetAttribute(&mbase, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, a + 8), CUDA_SUCCESS);
			EXPECT(cuPointerGetAttribute(&msize, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, a + 8), CUDA_SUCCESS);
			EXPECT_TRUE(mbase == a && msize == 2 * VA_MIB);
			EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a), CUDA_SUCCESS);
			EXPECT_TRUE(type == CU_MEMORYTYPE_DEVICE);
			EXPECT(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, a), CUDA_SUCCESS);
			EXPECT_TRUE(mapped == 1);
			EXPECT(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, a), CUDA_SUCCESS);
			EXPECT_TRUE(managed == 0);
			EXPECT(cuPointerGetAttribute(&handles, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, a), CUDA_SUCCESS);
			EXPECT_TRUE(handles == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
			EXPECT(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a), CUDA_SUCCESS);
			EXPECT_TRUE(ordinal == 0);
			EXPECT(cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, a),
			       CUDA_SUCCESS);
			EXPECT_TRUE(ipc == 0);
			EXPECT(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, a), CUDA_SUCCESS);
			EXPECT_TRUE(c == NULL);
			EXPECT(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_HOST_POINTER, a),
			       CUDA_ERROR_INVALID_VALUE);
			/* a hole: in the reservation, not mapped */
			EXPECT(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, win + 50 * VA_GIB),
			       CUDA_SUCCESS);
			EXPECT_TRUE(mapped == 0);
			EXPECT(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, win + 50 * VA_GIB),
			       CUDA_SUCCESS);
			EXPECT_TRUE(start == win);
			EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, win + 50 * VA_GIB),
			       CUDA_ERROR_INVALID_VALUE);
			/* legacy IPC refuses VMM memory */
			{
				CUipcMemHandle ih;

				EXPECT(cuIpcGetMemHandle(&ih, a), CUDA_ERROR_INVALID_VALUE);
			}
		}
		for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
			EXPECT(cuMemUnmap(win + offs[i], 2 * VA_MIB), CUDA_SUCCESS);
	}

	/* fact 4: after the runtime started, a small reservation anywhere is
	 * placed elsewhere, also where it would be free */
	EXPECT(cuMemAddressReserve(&r, 2 * VA_MIB, 0, 0x300000000000ull, 0), CUDA_SUCCESS);
	EXPECT_TRUE(r != 0x300000000000ull);
	EXPECT(cuMemAddressFree(r, 2 * VA_MIB), CUDA_SUCCESS);

	/* Big allocations are lazy: 8 GiB from cuMemAlloc and from cuMemCreate
	 * cost only the pages touched; what a recorder reads back is counted. */
	{
		const size_t big = 8 * VA_GIB;
		unsigned long long before = va_rss_kb();
		size_t freeb = 0, total = 0, free_before = 0;
		CUdeviceptr d;

		EXPECT(cuMemGetInfo(&free_before, &total), CUDA_SUCCESS);
		EXPECT(cuMemAlloc(&d, big), CUDA_SUCCESS);
		EXPECT_TRUE(d >= VA_HEAP_LO && d + big <= VA_HEAP_HI);
		EXPECT(cuMemsetD8(d, 1, 4096), CUDA_SUCCESS);
		EXPECT(cuMemsetD8(d + big - 4096, 2, 4096), CUDA_SUCCESS);
		EXPECT(va_dtoh_copy(host, d + big - 256, 256), CUDA_SUCCESS);
		EXPECT_TRUE(host[63] == 0x02020202u);
		EXPECT(cuMemGetInfo(&freeb, &total), CUDA_SUCCESS);
		EXPECT_TRUE(freeb == free_before - big);
		EXPECT_TRUE(va_rss_kb() < before + 64 * 1024);
		EXPECT(cuMemFree(d), CUDA_SUCCESS);

		before = va_rss_kb();
		EXPECT(va_map(win + 200 * VA_GIB, big, dev), CUDA_SUCCESS);
		EXPECT(cuMemGetInfo(&freeb, &total), CUDA_SUCCESS);
		EXPECT_TRUE(freeb == free_before - big);
		EXPECT(cuMemsetD8(win + 200 * VA_GIB + big - 4096, 3, 4096), CUDA_SUCCESS);
		EXPECT(va_dtoh_copy(host, win + 200 * VA_GIB + big - 256, 256), CUDA_SUCCESS);
		EXPECT_TRUE(host[0] == 0x03030303u);
		EXPECT_TRUE(va_rss_kb() < before + 64 * 1024);
		EXPECT(cuMemUnmap(win + 200 * VA_GIB, big), CUDA_SUCCESS);
		/* released at mapping and now unmapped: its memory is free again */
		EXPECT(cuMemGetInfo(&freeb, &total), CUDA_SUCCESS);
		EXPECT_TRUE(freeb == free_before);
	}
	EXPECT(cuMemAddressFree(win, VA_WINDOW_BYTES), CUDA_SUCCESS);
	EXPECT(cuMemAddressFree(win1, VA_WINDOW_BYTES), CUDA_SUCCESS);

	/* Pointer attributes of the double's own allocations. */
	{
		CUdeviceptr m, start = 0, dp = 0;
		void *h = NULL, *hp = NULL;
		size_t rsize = 0;
		unsigned type = 0, managed = 9, ipc = 9, mapped = 9;
		unsigned long long id1 = 0, id2 = 0;
		int ordinal = -1;
		CUcontext c = NULL;
		CUpointer_attribute attrs[] = { CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
						CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
						CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_RANGE_SIZE };
		void *data[] = { &c, &type, &dp, &hp, &managed, &rsize };

		EXPECT(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p[1] + 100), CUDA_SUCCESS);
		EXPECT_TRUE(c == ctx);
		EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p[1]), CUDA_SUCCESS);
		EXPECT_TRUE(type == CU_MEMORYTYPE_DEVICE);
		EXPECT(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p[1] + 100), CUDA_SUCCESS);
		EXPECT_TRUE(dp == p[1] + 100);
		EXPECT(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, p[1]), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p[1] + 100), CUDA_SUCCESS);
		EXPECT(cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p[1] + 100), CUDA_SUCCESS);
		EXPECT_TRUE(start == p[1] && rsize == sizes[1]);
		EXPECT(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p[1]), CUDA_SUCCESS);
		EXPECT_TRUE(ordinal == 0);
		EXPECT(cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p[1]), CUDA_SUCCESS);
		EXPECT_TRUE(ipc == 1);
		EXPECT(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, p[1]), CUDA_SUCCESS);
		EXPECT_TRUE(mapped == 1);
		EXPECT(cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, p[1]), CUDA_SUCCESS);
		EXPECT(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, p[2]), CUDA_SUCCESS);
		EXPECT_TRUE(id1 && id2 && id1 != id2);
		EXPECT(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)host),
		       CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p[1]), CUDA_ERROR_INVALID_VALUE);
		EXPECT(cuPointerGetAttribute(&type, (CUpointer_attribute)999, p[1]), CUDA_ERROR_INVALID_VALUE);

		EXPECT(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
		EXPECT(cuPointerGetAttributes(6, attrs, data, m + 8), CUDA_SUCCESS);
		EXPECT_TRUE(c == ctx && type == CU_MEMORYTYPE_DEVICE && dp == m + 8 && hp == (void *)(uintptr_t)(m + 8) &&
			    managed == 1 && rsize == 4096);
		EXPECT(cuMemAllocHost(&h, 4096), CUDA_SUCCESS);
		EXPECT(cuPointerGetAttributes(6, attrs, data, (CUdeviceptr)(uintptr_t)h), CUDA_SUCCESS);
		EXPECT_TRUE(c == ctx && type == CU_MEMORYTYPE_HOST && hp == h && managed == 0 && rsize == 4096);
		/* not CUDA's memory: no error, every value zero, as documented */
		EXPECT(cuPointerGetAttributes(6, attrs, data, (CUdeviceptr)(uintptr_t)host), CUDA_SUCCESS);
		EXPECT_TRUE(c == NULL && type == 0 && dp == 0 && hp == NULL && managed == 0 && rsize == 0);
		/* device memory has no host pointer: zero, no error */
		EXPECT(cuPointerGetAttributes(6, attrs, data, p[0]), CUDA_SUCCESS);
		EXPECT_TRUE(c == ctx && type == CU_MEMORYTYPE_DEVICE && hp == NULL && rsize == sizes[0]);
		EXPECT(cuPointerGetAttribute(&ipc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, m), CUDA_SUCCESS);
		EXPECT_TRUE(ipc == 0);

		/* legacy IPC: cuMemAlloc memory only; opened in this process it
		 * is the same memory, counted; a freed allocation's handle is stale */
		{
			CUipcMemHandle ih, bad;
			CUdeviceptr o1 = 0, o2 = 0, d;

			EXPECT(cuIpcGetMemHandle(&ih, p[1]), CUDA_SUCCESS);
			EXPECT(cuIpcGetMemHandle(&bad, p[1] + 64), CUDA_ERROR_INVALID_VALUE);
			EXPECT(cuIpcGetMemHandle(&bad, m), CUDA_ERROR_INVALID_VALUE);
			EXPECT(cuIpcGetMemHandle(&bad, (CUdeviceptr)(uintptr_t)h), CUDA_ERROR_INVALID_VALUE);
			EXPECT(cuIpcGetMemHandle(NULL, p[1]), CUDA_ERROR_INVALID_VALUE);
			EXPECT(cuIpcOpenMemHandle(&o1, ih, 0), CUDA_ERROR_INVALID_VALUE);
			EXPECT(cuIpcOpenMemHandle(&o1, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
			EXPECT(cuIpcOpenMemHandle(&o2, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_SUCCESS);
			EXPECT_TRUE(o1 == p[1] && o2 == p[1]);
			EXPECT(cuMemsetD32(p[1], 0x77, 64), CUDA_SUCCESS);
			EXPECT(va_dtoh_copy(host, o1, 256), CUDA_SUCCESS);
			EXPECT_TRUE(host[0] == 0x77 && host[63] == 0x77);
			EXPECT(cuIpcCloseMemHandle(o1), CUDA_SUCCESS);
			EXPECT(cuIpcCloseMemHandle(o2), CUDA_SUCCESS);
			EXPECT(cuIpcCloseMemHandle(o2), CUDA_ERROR_INVALID_VALUE);
			memset(&bad, 0, sizeof(bad));
			EXPECT(cuIpcOpenMemHandle(&o1, bad, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_VALUE);
			EXPECT(cuMemAlloc(&d, 4096), CUDA_SUCCESS);
			EXPECT(cuIpcGetMemHandle(&ih, d), CUDA_SUCCESS);
			EXPECT(cuMemFree(d), CUDA_SUCCESS);
			EXPECT(cuIpcOpenMemHandle(&o1, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), CUDA_ERROR_INVALID_HANDLE);
		}
		EXPECT(cuMemFree(m), CUDA_SUCCESS);
		EXPECT(cuMemFreeHost(h), CUDA_SUCCESS);
	}

	for (int i = 0; i < 4; i++)
		EXPECT(cuMemFree(p[i]), CUDA_SUCCESS);
	EXPECT(cuModuleUnload(mod), CUDA_SUCCESS);
	printf("cuda_va_checks: dtoh %llu\ncuda_va_checks: htod %llu\n", va_dtoh, va_htod);
	if (va_failed) {
		printf("cuda_va_checks: %d of %d checks failed\n", va_failed, va_failed + va_passed);
		return 1;
	}
	printf("cuda_va_checks: %d checks passed\n", va_passed);
	return 0;
}
