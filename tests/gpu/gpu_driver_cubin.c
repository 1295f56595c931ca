/*
 * gpu_driver_cubin - a driver-API program: loads a cubin (argv[1]) from bytes,
 * fills a buffer, builds a linked list whose nodes hold device pointers, has
 * gpu_chase follow it, reads back; prints the hash.
 *   gpu_driver_cubin KERNELS.cubin
 */
#include <cuda.h>
#include <string.h>

#include "gpu_common.h"

#define GPU_CK(call)                                                                        \
	do {                                                                                 \
		CUresult r_ = (call);                                                        \
		if (r_ != CUDA_SUCCESS) {                                                    \
			const char *n_ = "?";                                                \
			cuGetErrorName(r_, &n_);                                             \
			fprintf(stderr, "gpu_driver_cubin: line %d: %s: %s\n", __LINE__, #call, n_); \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

struct gpu_node {
	unsigned long long next;
	unsigned value;
	unsigned pad;
};

int main(int argc, char **argv)
{
	const unsigned n = 4096, nodes = 512;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_chase;
	CUdeviceptr d_buf, d_nodes, d_out;
	struct gpu_node *hn = calloc(nodes, sizeof(*hn));
	unsigned *hb = malloc(n * 4), *ho = malloc(nodes * 4);
	uint64_t h = GPU_FNV_SEED;
	FILE *f;
	long size;
	char *image;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: gpu_driver_cubin KERNELS.cubin\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	image = malloc((size_t)size);
	if (!image || fread(image, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "gpu_driver_cubin: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	GPU_CK(cuInit(0));
	GPU_CK(cuDeviceGet(&dev, 0));
	GPU_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	GPU_CK(cuCtxSetCurrent(ctx));
	GPU_CK(cuModuleLoadData(&mod, image));
	free(image);
	GPU_CK(cuModuleGetFunction(&f_fill, mod, "gpu_fill"));
	GPU_CK(cuModuleGetFunction(&f_chase, mod, "gpu_chase"));
	GPU_CK(cuMemAlloc(&d_buf, n * 4));
	GPU_CK(cuMemAlloc(&d_nodes, nodes * sizeof(struct gpu_node)));
	GPU_CK(cuMemAlloc(&d_out, nodes * 4));
	{
		unsigned value = 11, cnt = n;
		void *args[] = { &d_buf, &value, &cnt };
		GPU_CK(cuLaunchKernel(f_fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	}
	for (unsigned i = 0; i < nodes; i++) {
		unsigned next = (i * 97u + 1u) % nodes;
		hn[i].value = i * 13u + 5u;
		hn[i].next = next ? d_nodes + next * sizeof(struct gpu_node) : 0;
	}
	GPU_CK(cuMemcpyHtoD(d_nodes, hn, nodes * sizeof(struct gpu_node)));
	{
		unsigned max = nodes;
		void *args[] = { &d_nodes, &d_out, &max };
		GPU_CK(cuMemsetD32(d_out, 0, nodes));
		GPU_CK(cuLaunchKernel(f_chase, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
	}
	GPU_CK(cuMemcpyDtoH(hb, d_buf, n * 4));
	GPU_CK(cuMemcpyDtoH(ho, d_out, nodes * 4));
	h = gpu_fnv(hb, n * 4, h);
	h = gpu_fnv(ho, nodes * 4, h);
	printf("gpu_driver_cubin: launches 2 hash 0x%016llx\n", (unsigned long long)h);
	GPU_CK(cuModuleUnload(mod));
	GPU_CK(cuDevicePrimaryCtxRelease(dev));
	free(hn);
	free(hb);
	free(ho);
	return 0;
}
