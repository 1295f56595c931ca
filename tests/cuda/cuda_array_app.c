/*
 * cuda_array_app - CUDA arrays end to end, printing a hash of the values
 * it reads back (never handles or addresses):
 *   a 2D array (cuArrayCreate, 1 channel of u32) filled from host rows with
 *   cuMemcpy2D, read by the array_read kernel through a texture object;
 *   a 3D array (cuArray3DCreate, SURFACE_LDST) filled from host slices with
 *   cuMemcpy3D, read and incremented by the surf_inc kernel through a
 *   surface object; an array-to-array copy (cuMemcpy3D, 3D -> 3D region),
 *   an array-to-device copy, and array-to-host copies of both arrays
 *   (cuMemcpy2D, cuMemcpy3D), each checkpointed at capture;
 *   a 1D array (cuArrayCreate, Height 0) reached by byte offsets:
 *   cuMemcpyHtoA, cuMemcpyDtoA, cuMemcpyAtoA (from the 2D array),
 *   cuMemcpyAtoD, cuMemcpyAtoH, and cuMemcpyHtoAAsync / cuMemcpyAtoHAsync
 *   on a stream.
 *   --hostile  instead, one cuMemcpy2D into the 2D array whose region runs
 *              one row past it: the driver refuses it, and the program
 *              prints what it returned (capture records the failed call).
 *   --struct   the texture read goes through array_read_s, which takes the
 *              texture object and the output pointer inside a by-value
 *              struct (the same values read, the same hash).
 */
#include "tests/cuda/cuprog.h"

#define CAA_W 16
#define CAA_H 8
#define CAA_D 4

struct caa_params { /* array_read and surf_inc */
	unsigned long long obj;
	CUdeviceptr out;
	uint32_t w, h, d;
	uint32_t add;
};

static void caa_launch(CUfunction f, struct caa_params *p, unsigned n)
{
	void *args[] = { &p->obj, &p->out, &p->w, &p->h, &p->d, &p->add };
	CUP_CK(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
}

/* array_read_s: the object and the output pointer in a by-value struct */
static void caa_launch_struct(CUfunction f, struct caa_params *p, unsigned n)
{
	struct {
		unsigned long long obj;
		CUdeviceptr out;
	} desc = { p->obj, p->out };
	void *args[] = { &desc, &p->w, &p->h, &p->d, &p->add };
	CUP_CK(cuLaunchKernel(f, (n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
}

int main(int argc, char **argv)
{
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };
	static uint32_t host2[CAA_H][CAA_W], host3[CAA_D][CAA_H][CAA_W], back2[CAA_H][CAA_W];
	static uint32_t back3[CAA_D][CAA_H][CAA_W], out[CAA_D * CAA_H * CAA_W];
	int hostile = 0, by_struct = 0;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_read, f_read_s = NULL, f_inc;
	CUarray a2, a3, a3b;
	CUDA_ARRAY_DESCRIPTOR d2;
	CUDA_ARRAY3D_DESCRIPTOR d3;
	CUDA_MEMCPY2D c2;
	CUDA_MEMCPY3D c3;
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC td;
	CUtexObject tex;
	CUsurfObject surf;
	CUdeviceptr dout, dlin;
	struct caa_params p;
	uint64_t h = 0;
	void *image;

	cup_prog = "cuda_array_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hostile")) {
			hostile = 1;
		} else if (!strcmp(argv[i], "--struct")) {
			by_struct = 1;
		} else {
			fprintf(stderr, "cuda_array_app: unknown option '%s' (usage: cuda_array_app [--hostile] "
			        "[--struct])\n", argv[i]);
			return 2;
		}
	}
	for (unsigned y = 0; y < CAA_H; y++)
		for (unsigned x = 0; x < CAA_W; x++)
			host2[y][x] = y * 1000 + x * 7 + 1;
	for (unsigned z = 0; z < CAA_D; z++)
		for (unsigned y = 0; y < CAA_H; y++)
			for (unsigned x = 0; x < CAA_W; x++)
				host3[z][y][x] = z * 100000 + y * 100 + x;

	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_read, mod, "array_read"));
	CUP_CK(cuModuleGetFunction(&f_inc, mod, "surf_inc"));
	if (by_struct)
		CUP_CK(cuModuleGetFunction(&f_read_s, mod, "array_read_s"));

	memset(&d2, 0, sizeof(d2));
	d2.Width = CAA_W;
	d2.Height = CAA_H;
	d2.Format = CU_AD_FORMAT_UNSIGNED_INT32;
	d2.NumChannels = 1;
	CUP_CK(cuArrayCreate(&a2, &d2));

	memset(&c2, 0, sizeof(c2));
	c2.srcMemoryType = CU_MEMORYTYPE_HOST;
	c2.srcHost = host2;
	c2.srcPitch = sizeof(host2[0]);
	c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c2.dstArray = a2;
	c2.WidthInBytes = sizeof(host2[0]);
	c2.Height = CAA_H;
	if (hostile) {
		CUresult r;
		c2.dstY = 1; /* rows 1..CAA_H: one past the array */
		r = cuMemcpy2D(&c2);
		printf("cuda_array_app: copy past the array returned %d\n", (int)r);
		CUP_CK(cuArrayDestroy(a2));
		CUP_CK(cuModuleUnload(mod));
		CUP_CK(cuDevicePrimaryCtxRelease(dev));
		return r == CUDA_ERROR_INVALID_VALUE ? 0 : 1;
	}
	CUP_CK(cuMemcpy2D(&c2));

	memset(&d3, 0, sizeof(d3));
	d3.Width = CAA_W;
	d3.Height = CAA_H;
	d3.Depth = CAA_D;
	d3.Format = CU_AD_FORMAT_UNSIGNED_INT32;
	d3.NumChannels = 1;
	d3.Flags = CUDA_ARRAY3D_SURFACE_LDST;
	CUP_CK(cuArray3DCreate(&a3, &d3));
	CUP_CK(cuArray3DCreate(&a3b, &d3));

	memset(&c3, 0, sizeof(c3));
	c3.srcMemoryType = CU_MEMORYTYPE_HOST;
	c3.srcHost = host3;
	c3.srcPitch = sizeof(host3[0][0]);
	c3.srcHeight = CAA_H;
	c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c3.dstArray = a3;
	c3.WidthInBytes = sizeof(host3[0][0]);
	c3.Height = CAA_H;
	c3.Depth = CAA_D;
	CUP_CK(cuMemcpy3D(&c3));

	CUP_CK(cuMemAlloc(&dout, sizeof(out)));
	CUP_CK(cuMemAlloc(&dlin, sizeof(host2)));

	/* texture over the 2D array: out = a2 * 3 + 5 */
	memset(&res, 0, sizeof(res));
	res.resType = CU_RESOURCE_TYPE_ARRAY;
	res.res.array.hArray = a2;
	memset(&td, 0, sizeof(td));
	td.filterMode = CU_TR_FILTER_MODE_POINT;
	td.flags = CU_TRSF_READ_AS_INTEGER;
	CUP_CK(cuTexObjectCreate(&tex, &res, &td, NULL));
	p = (struct caa_params){ tex, dout, CAA_W, CAA_H, 1, 5 };
	if (by_struct)
		caa_launch_struct(f_read_s, &p, CAA_W * CAA_H);
	else
		caa_launch(f_read, &p, CAA_W * CAA_H);
	CUP_CK(cuMemcpyDtoH(out, dout, sizeof(host2)));
	h = XXH3_64bits_withSeed(out, sizeof(host2), h);

	/* surface over the 3D array: out = a3 * 3 + 9, then a3 += 1 */
	res.res.array.hArray = a3;
	CUP_CK(cuSurfObjectCreate(&surf, &res));
	p = (struct caa_params){ surf, dout, CAA_W, CAA_H, CAA_D, 9 };
	caa_launch(f_inc, &p, CAA_W * CAA_H * CAA_D);
	CUP_CK(cuMemcpyDtoH(out, dout, sizeof(out)));
	h = XXH3_64bits_withSeed(out, sizeof(out), h);

	/* array -> array: slices 1..3 of a3 into slices 0..2 of a3b, x from 8 bytes */
	memset(&c3, 0, sizeof(c3));
	c3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c3.srcArray = a3;
	c3.srcZ = 1;
	c3.srcXInBytes = 8;
	c3.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c3.dstArray = a3b;
	c3.dstXInBytes = 8;
	c3.WidthInBytes = sizeof(host3[0][0]) - 8;
	c3.Height = CAA_H;
	c3.Depth = CAA_D - 1;
	CUP_CK(cuMemcpy3D(&c3));

	/* a3b -> host (checkpointed) */
	memset(&c3, 0, sizeof(c3));
	c3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c3.srcArray = a3b;
	c3.dstMemoryType = CU_MEMORYTYPE_HOST;
	c3.dstHost = back3;
	c3.dstPitch = sizeof(back3[0][0]);
	c3.dstHeight = CAA_H;
	c3.WidthInBytes = sizeof(back3[0][0]);
	c3.Height = CAA_H;
	c3.Depth = CAA_D;
	CUP_CK(cuMemcpy3D(&c3));
	h = XXH3_64bits_withSeed(back3, sizeof(back3), h);

	/* a2 -> device -> host, and a2 -> host */
	memset(&c2, 0, sizeof(c2));
	c2.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	c2.srcArray = a2;
	c2.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c2.dstDevice = dlin;
	c2.dstPitch = sizeof(host2[0]);
	c2.WidthInBytes = sizeof(host2[0]);
	c2.Height = CAA_H;
	CUP_CK(cuMemcpy2D(&c2));
	CUP_CK(cuMemcpyDtoH(back2, dlin, sizeof(back2)));
	h = XXH3_64bits_withSeed(back2, sizeof(back2), h);
	c2.dstMemoryType = CU_MEMORYTYPE_HOST;
	c2.dstHost = back2;
	c2.srcY = 2;
	c2.Height = CAA_H - 2;
	memset(back2, 0, sizeof(back2));
	CUP_CK(cuMemcpy2D(&c2));
	h = XXH3_64bits_withSeed(back2, sizeof(back2), h);

	/* a 1D array of 64 u32 by byte offsets */
	{
		static uint32_t in1[64], back1[64];
		CUarray a1;
		CUstream st;
		for (unsigned i = 0; i < 64; i++)
			in1[i] = 0x1000u + i * 13;
		memset(&d2, 0, sizeof(d2));
		d2.Width = 64;
		d2.Format = CU_AD_FORMAT_UNSIGNED_INT32;
		d2.NumChannels = 1;
		CUP_CK(cuArrayCreate(&a1, &d2));
		CUP_CK(cuMemcpyHtoA(a1, 0, in1, sizeof(in1)));
		CUP_CK(cuMemcpyHtoD(dlin, in1 + 8, 64));
		CUP_CK(cuMemcpyDtoA(a1, 16, dlin, 64));          /* elements 4..19 */
		CUP_CK(cuMemcpyAtoA(a1, 128, a2, 64 * 2, 64));    /* row 2 of a2 into elements 32..47 */
		CUP_CK(cuMemcpyAtoD(dlin, a1, 0, sizeof(in1)));
		CUP_CK(cuMemcpyDtoH(back1, dlin, sizeof(back1)));
		h = XXH3_64bits_withSeed(back1, sizeof(back1), h);
		CUP_CK(cuMemcpyAtoH(back1, a1, 8, 200));
		h = XXH3_64bits_withSeed(back1, 200, h);
		CUP_CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
		CUP_CK(cuMemcpyHtoAAsync(a1, 240, in1, 16, st));
		CUP_CK(cuMemcpyAtoHAsync(back1, a1, 0, sizeof(back1), st));
		CUP_CK(cuStreamSynchronize(st));
		h = XXH3_64bits_withSeed(back1, sizeof(back1), h);
		CUP_CK(cuStreamDestroy(st));
		CUP_CK(cuArrayDestroy(a1));
	}

	CUP_CK(cuTexObjectDestroy(tex));
	CUP_CK(cuSurfObjectDestroy(surf));
	CUP_CK(cuArrayDestroy(a2));
	CUP_CK(cuArrayDestroy(a3));
	CUP_CK(cuArrayDestroy(a3b));
	CUP_CK(cuMemFree(dout));
	CUP_CK(cuMemFree(dlin));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	printf("cuda_array_app: hash %016llx\n", (unsigned long long)h);
	return 0;
}
