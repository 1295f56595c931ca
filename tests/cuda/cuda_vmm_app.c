/*
 * cuda_vmm_app - virtual memory management and pointer chasing: reserves an
 * address range (at --addr if given), backs it with two cuMemCreate
 * allocations, maps them, grants access, writes a linked list whose nodes
 * hold device addresses of other nodes in both halves, and has the chase
 * kernel follow it.  The hash covers only values, not addresses, so it is the
 * same wherever the range lands; the line "reserved 0x... asked 0x..." tells
 * where it did.
 *   cuda_vmm_app [--addr ADDR] [--nodes N]
 */
#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	unsigned long long want = 0;
	unsigned nodes = 1000;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_chase;
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc access = { 0 };
	CUmemGenericAllocationHandle h1, h2;
	CUdeviceptr base, d_out;
	size_t gran, half;
	struct krn_node *host;
	uint32_t *out;
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_vmm_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--addr") && i + 1 < argc) {
			char *end;
			want = strtoull(argv[++i], &end, 0);
			if (*end || !want) {
				fprintf(stderr, "cuda_vmm_app: --addr needs a non-zero address, got '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) {
			nodes = cup_parse_uint("--nodes", argv[++i], 2, 100000);
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_vmm_app [--addr ADDR] [--nodes N]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_vmm_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuCtxCreate(&ctx, NULL, 0, dev));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_chase, mod, "chase"));

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	CUP_CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	half = gran;
	while (half < nodes * sizeof(struct krn_node))
		half += gran;
	CUP_CK(cuMemAddressReserve(&base, 2 * half, 0, (CUdeviceptr)want, 0));
	printf("cuda_vmm_app: reserved 0x%llx asked 0x%llx\n", (unsigned long long)base, want);
	CUP_CK(cuMemCreate(&h1, half, &prop, 0));
	CUP_CK(cuMemCreate(&h2, half, &prop, 0));
	CUP_CK(cuMemMap(base, half, 0, h1, 0));
	CUP_CK(cuMemMap(base + half, half, 0, h2, 0));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CUP_CK(cuMemSetAccess(base, 2 * half, &access, 1));
	/* The handles may go now: the mappings keep the memory. */
	CUP_CK(cuMemRelease(h1));
	CUP_CK(cuMemRelease(h2));

	/* Node i lives in half i%2; the list visits them in a scrambled order. */
	host = calloc(2 * half / sizeof(struct krn_node), sizeof(struct krn_node));
	out = calloc(nodes, sizeof(uint32_t));
	if (!host || !out) {
		fprintf(stderr, "cuda_vmm_app: out of memory\n");
		return 1;
	}
	{
		size_t per_half = half / sizeof(struct krn_node);
		unsigned prev = 0;

#define VMM_SLOT(i) (((i) % 2) * per_half + (i) / 2)
		for (unsigned k = 1; k <= nodes; k++) {
			unsigned cur = k == nodes ? 0 : (unsigned)((k * 7919u) % nodes);

			host[VMM_SLOT(prev)].value = prev * 31u + 7u;
			host[VMM_SLOT(prev)].next = cur ? base + VMM_SLOT(cur) * sizeof(struct krn_node) : 0;
			prev = cur;
			if (!cur)
				break;
		}
		CUP_CK(cuMemcpyHtoD(base, host, 2 * half));
#undef VMM_SLOT
	}
	CUP_CK(cuMemAlloc(&d_out, nodes * sizeof(uint32_t)));
	CUP_CK(cuMemsetD32(d_out, 0, nodes));
	{
		CUdeviceptr head = base;
		void *args[] = { &head, &d_out, &nodes };

		CUP_CK(cuLaunchKernel(f_chase, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
	}
	CUP_CK(cuMemcpyDtoH(out, d_out, nodes * sizeof(uint32_t)));
	printf("cuda_vmm_app: nodes %u hash 0x%016llx\n", nodes,
	       (unsigned long long)XXH64(out, nodes * sizeof(uint32_t), 0));
	CUP_CK(cuMemFree(d_out));
	CUP_CK(cuMemUnmap(base, half));
	CUP_CK(cuMemUnmap(base + half, half));
	CUP_CK(cuMemAddressFree(base, 2 * half));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuCtxDestroy(ctx));
	free(host);
	free(out);
	return 0;
}
