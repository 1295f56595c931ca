/*
 * hip_array3d.c - HIP arrays made by hipMalloc3DArray, the per-thread
 * default stream's array copies and mipmapped arrays, from plain C (no
 * kernel):
 *   - hipMalloc3DArray of a 3D float array (8 x 4 x 3), filled whole by
 *     hipMemcpy3D from host, two slices read at a position into device
 *     memory by hipMemcpy3D_spt, that memory read back (hipMemcpy), and a
 *     box read to host by hipMemcpy3DAsync on a created stream;
 *   - hipMalloc3DArray of a layered 2D array (hipArrayLayered: 16 x 4
 *     two-channel bytes, 2 layers), its second layer written by hipMemcpy3D
 *     from device memory and both layers read to host by hipMemcpy3D;
 *   - hipMalloc3DArray of depth 0 (a 2D array of 16 x 8 unsigned 16-bit
 *     elements) written by hipMemcpy2DToArray_spt from a host pitch of its
 *     own and read by hipMemcpy2DFromArray_spt to host;
 *   - hipMallocMipmappedArray, hipGetMipmappedArrayLevel and
 *     hipFreeMipmappedArray (ROCm 5.2 answers each hipErrorNotSupported:
 *     their codes are printed); the driver-style hipMipmappedArrayCreate
 *     (16 x 8 floats, 3 levels, which ROCm 5.2 makes), level 1 (8 x 4)
 *     written by hipMemcpy2DToArray through one hipMipmappedArrayGetLevel
 *     view and a region read by hipMemcpy2DFromArray through a second
 *     view, hipMipmappedArrayDestroy;
 *   - hipFreeArray of each.
 * Prints a sum of every read and each failing call; exit status 0 once it
 * ran to its end.  With the argument "checks", hipMalloc3DArray calls the
 * runtime refuses print their codes (a null out pointer, a null
 * descriptor, a cubemap, a surface array, three channels).
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

static void ha3_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void ha3_sum(const char *what, const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned long sum = 0;

	for (size_t i = 0; i < n; i++)
		sum = sum * 31 + b[i];
	printf("%s: %zu bytes, hash %lu\n", what, n, sum);
}

static struct hipPitchedPtr ha3_ptr(void *p, size_t pitch, size_t xsize, size_t ysize)
{
	struct hipPitchedPtr r = {p, pitch, xsize, ysize};
	return r;
}

int main(int argc, char **argv)
{
	struct hipChannelFormatDesc f32 = {32, 0, 0, 0, hipChannelFormatKindFloat};
	struct hipChannelFormatDesc u8x2 = {8, 8, 0, 0, hipChannelFormatKindUnsigned};
	struct hipChannelFormatDesc u16 = {16, 0, 0, 0, hipChannelFormatKindUnsigned};
	hipArray *vol = NULL, *lay = NULL, *flat = NULL;
	float vhost[3][4][8], vbox[2][2][3];
	unsigned char lhost[2][4][32], lsrc[4][32], *dev = NULL;
	unsigned short fhost[8][20], fback[8][16];
	float slices[2][4][8];
	hipMemcpy3DParms p;
	hipStream_t s = NULL;
	hipMipmappedArray_t mip = NULL;
	hipArray_t level = NULL;

	for (int z = 0; z < 3; z++)
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 8; x++)
				vhost[z][y][x] = (float)(z * 100 + y * 10 + x);
	ha3_check("hipStreamCreate", hipStreamCreate(&s));
	ha3_check("hipMalloc", hipMalloc((void **)&dev, 4096));

	/* a 3D array */
	ha3_check("hipMalloc3DArray (3D)", hipMalloc3DArray(&vol, &f32, (struct hipExtent){8, 4, 3}, 0));
	memset(&p, 0, sizeof(p));
	p.srcPtr = ha3_ptr(vhost, sizeof(vhost[0][0]), 8, 4);
	p.dstArray = vol;
	p.extent = (struct hipExtent){8, 4, 3};
	p.kind = hipMemcpyHostToDevice;
	ha3_check("hipMemcpy3D (to the 3D array)", hipMemcpy3D(&p));
	memset(&p, 0, sizeof(p));
	p.srcArray = vol;
	p.srcPos = (struct hipPos){0, 0, 1};
	p.dstPtr = ha3_ptr(dev, 8 * sizeof(float), 8, 4);
	p.extent = (struct hipExtent){8, 4, 2};
	p.kind = hipMemcpyDeviceToDevice;
	ha3_check("hipMemcpy3D_spt (from the 3D array)", hipMemcpy3D_spt(&p));
	memset(slices, 0, sizeof(slices));
	ha3_check("hipMemcpy (slices)", hipMemcpy(slices, dev, sizeof(slices), hipMemcpyDeviceToHost));
	ha3_sum("slices 1-2", slices, sizeof(slices));
	memset(&p, 0, sizeof(p));
	p.srcArray = vol;
	p.srcPos = (struct hipPos){4, 1, 1};
	p.dstPtr = ha3_ptr(vbox, 3 * sizeof(float), 3, 2);
	p.extent = (struct hipExtent){3, 2, 2};
	p.kind = hipMemcpyDeviceToHost;
	memset(vbox, 0, sizeof(vbox));
	ha3_check("hipMemcpy3DAsync (box)", hipMemcpy3DAsync(&p, s));
	ha3_check("hipStreamSynchronize", hipStreamSynchronize(s));
	ha3_sum("box", vbox, sizeof(vbox));
	printf("box[1][1][2] %.1f\n", vbox[1][1][2]);

	/* a layered 2D array */
	ha3_check("hipMalloc3DArray (layered)",
	          hipMalloc3DArray(&lay, &u8x2, (struct hipExtent){16, 4, 2}, hipArrayLayered));
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 32; x++)
			lsrc[y][x] = (unsigned char)(y * 32 + x + 7);
	ha3_check("hipMemcpy (layer source)", hipMemcpy(dev, lsrc, sizeof(lsrc), hipMemcpyHostToDevice));
	memset(&p, 0, sizeof(p));
	p.srcPtr = ha3_ptr(dev, 32, 16, 4);
	p.dstArray = lay;
	p.dstPos = (struct hipPos){0, 0, 1};
	p.extent = (struct hipExtent){16, 4, 1};
	p.kind = hipMemcpyDeviceToDevice;
	ha3_check("hipMemcpy3D (to layer 1)", hipMemcpy3D(&p));
	memset(&p, 0, sizeof(p));
	p.srcArray = lay;
	p.dstPtr = ha3_ptr(lhost, 32, 16, 4);
	p.extent = (struct hipExtent){16, 4, 2};
	p.kind = hipMemcpyDeviceToHost;
	memset(lhost, 0xee, sizeof(lhost));
	ha3_check("hipMemcpy3D (layers)", hipMemcpy3D(&p));
	ha3_sum("layers", lhost, sizeof(lhost));

	/* a 2D array from hipMalloc3DArray, through the per-thread stream */
	ha3_check("hipMalloc3DArray (2D)", hipMalloc3DArray(&flat, &u16, (struct hipExtent){16, 8, 0}, 0));
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 20; x++)
			fhost[y][x] = (unsigned short)(y * 1000 + x);
	ha3_check("hipMemcpy2DToArray_spt",
	          hipMemcpy2DToArray_spt(flat, 0, 0, fhost, sizeof(fhost[0]), 16 * 2, 8,
	                                 hipMemcpyHostToDevice));
	memset(fback, 0, sizeof(fback));
	ha3_check("hipMemcpy2DFromArray_spt",
	          hipMemcpy2DFromArray_spt(fback, sizeof(fback[0]), flat, 4, 2, 12 * 2, 6,
	                                   hipMemcpyDeviceToHost));
	ha3_sum("flat", fback, sizeof(fback));
	printf("flat[5][11] %u\n", fback[5][11]);

	/* mipmapped arrays */
	printf("hipMallocMipmappedArray %d\n",
	       (int)hipMallocMipmappedArray(&mip, &f32, (struct hipExtent){8, 8, 0}, 3, 0));
	printf("hipGetMipmappedArrayLevel %d\n", (int)hipGetMipmappedArrayLevel(&level, mip, 1));
	printf("hipFreeMipmappedArray %d\n", (int)hipFreeMipmappedArray(mip));

	/* the driver-style mipmapped array, which ROCm 5.2 makes: 16 x 8
	 * floats, 3 levels; level 1 (8 x 4) written through one view and read
	 * through another */
	{
		HIP_ARRAY3D_DESCRIPTOR md;
		hipMipmappedArray_t mm = NULL;
		hipArray_t l1 = NULL, l1b = NULL;
		float lv[4][8], back[2][3];
		memset(&md, 0, sizeof(md));
		md.Width = 16;
		md.Height = 8;
		md.Format = HIP_AD_FORMAT_FLOAT;
		md.NumChannels = 1;
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 8; x++)
				lv[y][x] = (float)(y * 8 + x) + 0.25f;
		ha3_check("hipMipmappedArrayCreate", hipMipmappedArrayCreate(&mm, &md, 3));
		ha3_check("hipMipmappedArrayGetLevel (1)", hipMipmappedArrayGetLevel(&l1, mm, 1));
		if (l1)
			printf("level 1: %u x %u\n", l1->width, l1->height);
		ha3_check("hipMemcpy2DToArray (level 1)",
		          hipMemcpy2DToArray(l1, 0, 0, lv, sizeof(lv[0]), sizeof(lv[0]), 4,
		                             hipMemcpyHostToDevice));
		ha3_check("hipMipmappedArrayGetLevel (1) again", hipMipmappedArrayGetLevel(&l1b, mm, 1));
		printf("level 1's views %s\n", l1 && l1b && l1 != l1b ? "differ" : "do not differ");
		memset(back, 0, sizeof(back));
		ha3_check("hipMemcpy2DFromArray (level 1)",
		          hipMemcpy2DFromArray(back, sizeof(back[0]), l1b, 4 * sizeof(float), 2,
		                               sizeof(back[0]), 2, hipMemcpyDeviceToHost));
		printf("level 1 [3][6] %.2f\n", back[1][2]);
		ha3_check("hipMipmappedArrayDestroy", hipMipmappedArrayDestroy(mm));
	}

	if (argc > 1 && strcmp(argv[1], "checks") == 0) {
		struct hipChannelFormatDesc three = {8, 8, 8, 0, hipChannelFormatKindUnsigned};
		hipArray *x = NULL;
		printf("null out %d\n", (int)hipMalloc3DArray(NULL, &f32, (struct hipExtent){4, 4, 4}, 0));
		printf("null desc %d\n", (int)hipMalloc3DArray(&x, NULL, (struct hipExtent){4, 4, 4}, 0));
		printf("cubemap %d\n",
		       (int)hipMalloc3DArray(&x, &f32, (struct hipExtent){4, 4, 6}, hipArrayCubemap));
		printf("surface %d\n", (int)hipMalloc3DArray(&x, &f32, (struct hipExtent){4, 4, 4},
		                                             hipArraySurfaceLoadStore));
		printf("three channels %d\n", (int)hipMalloc3DArray(&x, &three, (struct hipExtent){4, 4, 4}, 0));
	}

	ha3_check("hipFreeArray (3D)", hipFreeArray(vol));
	ha3_check("hipFreeArray (layered)", hipFreeArray(lay));
	ha3_check("hipFreeArray (2D)", hipFreeArray(flat));
	ha3_check("hipFree", hipFree(dev));
	ha3_check("hipStreamDestroy", hipStreamDestroy(s));
	printf("done\n");
	return 0;
}
