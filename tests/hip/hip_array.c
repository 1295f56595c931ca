/*
 * hip_array.c - HIP arrays by their own calls, from plain C (no kernel):
 * hipMallocArray (a 2D float array, 16 x 8), hipArrayCreate (a 1D array
 * of 32 two-channel 16-bit elements), hipArray3DCreate (a 3D byte array,
 * 8 x 4 x 3), and the copies to and from them: hipMemcpy2DToArray from a
 * host pitch of its own, hipMemcpy2DToArrayAsync from device memory at a
 * position, hipMemcpy2DFromArray to host, hipMemcpy2DFromArrayAsync to
 * device memory and to host (read at the stream's synchronization),
 * hipMemcpyToArray and hipMemcpyFromArray (a byte count), hipMemcpyParam2D
 * into an array at a position, hipMemcpy3D into and out of the 3D array
 * (positions and extent in elements), then hipFreeArray of each.  Prints
 * what the copies made and each failing call; exit status 0 once it ran to
 * its end.  With the argument "past", one more hipMemcpy2DToArray runs a
 * row past the 2D array (the runtime refuses it: its error is printed).
 * With the argument "checks", calls the runtime refuses print their
 * results: three channels, a cubemap, a surface array, a null free, a
 * second free, a pitch below the width, a null array, a direction that
 * is not one.  With the path of hip_module_kernels.hsaco as an argument, the rows read
 * into device memory are doubled by its kernel `scale` (hipModuleLoad,
 * hipModuleLaunchKernel on the stream) and copied back into the array
 * (hipMemcpy2DToArray from device memory) before they are read, so that
 * keyframes at the launch hold arrays the later copies read.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

/* hipMemcpyToArray and hipMemcpyFromArray are deprecated in the headers
 * but exported and used: this program calls them on purpose. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define HIPA_W 16 /* 2D array: elements a row */
#define HIPA_H 8

static void hipa_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static float hipa_sum(const float *v, size_t n)
{
	float s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main(int argc, char **argv)
{
	hipChannelFormatDesc fdesc = {32, 0, 0, 0, hipChannelFormatKindFloat};
	HIP_ARRAY_DESCRIPTOR d1 = {32, 0, HIP_AD_FORMAT_UNSIGNED_INT16, 2};
	HIP_ARRAY3D_DESCRIPTOR d3 = {8, 4, 3, HIP_AD_FORMAT_UNSIGNED_INT8, 1, 0};
	hipArray *a2 = NULL, *a1 = NULL, *a3 = NULL;
	hipStream_t s = NULL;
	float host[HIPA_H][HIPA_W + 4], back[HIPA_H][HIPA_W], rows[3][HIPA_W];
	float *dev = NULL;
	unsigned short line[64], line_back[64]; /* 32 elements of 2 channels */
	unsigned char box[2][3][5], vol[3][4][8];
	hip_Memcpy2D p2;
	struct hipMemcpy3DParms p3;
	const char *module_path = NULL;
	int past = 0, checks = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "past") == 0)
			past = 1;
		else if (strcmp(argv[i], "checks") == 0)
			checks = 1;
		else
			module_path = argv[i];
	}

	for (int y = 0; y < HIPA_H; y++)
		for (int x = 0; x < HIPA_W + 4; x++)
			host[y][x] = (float)(y * 100 + x);
	for (int i = 0; i < 64; i++)
		line[i] = (unsigned short)(i * 3 + 1);
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 5; x++)
				box[z][y][x] = (unsigned char)(0x40 + z * 16 + y * 5 + x);

	hipa_check("hipMallocArray", hipMallocArray(&a2, &fdesc, HIPA_W, HIPA_H, hipArrayDefault));
	hipa_check("hipArrayCreate", hipArrayCreate(&a1, &d1));
	hipa_check("hipArray3DCreate", hipArray3DCreate(&a3, &d3));
	hipa_check("hipStreamCreate", hipStreamCreate(&s));
	hipa_check("hipMalloc", hipMalloc((void **)&dev, sizeof(rows)));

	/* the whole 2D array from a host pitch wider than its rows */
	hipa_check("hipMemcpy2DToArray", hipMemcpy2DToArray(a2, 0, 0, host, sizeof(host[0]),
	                                                    HIPA_W * sizeof(float), HIPA_H,
	                                                    hipMemcpyHostToDevice));
	/* rows 2-4, elements 4-11, replaced from device memory on the stream */
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < HIPA_W; x++)
			rows[y][x] = (float)(-1 - y * HIPA_W - x);
	hipa_check("hipMemcpy (rows)", hipMemcpy(dev, rows, sizeof(rows), hipMemcpyHostToDevice));
	hipa_check("hipMemcpy2DToArrayAsync",
	           hipMemcpy2DToArrayAsync(a2, 4 * sizeof(float), 2, dev, HIPA_W * sizeof(float),
	                                   8 * sizeof(float), 3, hipMemcpyDeviceToDevice, s));
	hipa_check("hipStreamSynchronize", hipStreamSynchronize(s));
	memset(back, 0, sizeof(back));
	hipa_check("hipMemcpy2DFromArray", hipMemcpy2DFromArray(back, sizeof(back[0]), a2, 0, 0,
	                                                        sizeof(back[0]), HIPA_H,
	                                                        hipMemcpyDeviceToHost));
	printf("a2 row 3: %.0f %.0f %.0f %.0f sum %.0f\n", back[3][0], back[3][3], back[3][4],
	       back[3][11], hipa_sum(&back[0][0], HIPA_W * HIPA_H));

	/* rows 5-7 of the array to device memory on the stream, then to host */
	hipa_check("hipMemcpy2DFromArrayAsync (device)",
	           hipMemcpy2DFromArrayAsync(dev, HIPA_W * sizeof(float), a2, 0, 5,
	                                     HIPA_W * sizeof(float), 3, hipMemcpyDeviceToDevice, s));
	memset(rows, 0, sizeof(rows));
	hipa_check("hipStreamSynchronize", hipStreamSynchronize(s));
	if (module_path) {
		hipModule_t mod = NULL;
		hipFunction_t scale = NULL;
		int n = 3 * HIPA_W;
		void *params[] = {&dev, &n};
		hipa_check("hipModuleLoad", hipModuleLoad(&mod, module_path));
		hipa_check("hipModuleGetFunction", hipModuleGetFunction(&scale, mod, "scale"));
		hipa_check("hipModuleLaunchKernel",
		           hipModuleLaunchKernel(scale, 1, 1, 1, 64, 1, 1, 0, s, params, NULL));
		hipa_check("hipStreamSynchronize", hipStreamSynchronize(s));
		hipa_check("hipMemcpy2DToArray (scaled)",
		           hipMemcpy2DToArray(a2, 0, 5, dev, HIPA_W * sizeof(float), HIPA_W * sizeof(float),
		                              3, hipMemcpyDeviceToDevice));
	}
	hipa_check("hipMemcpy (back)", hipMemcpy(rows, dev, sizeof(rows), hipMemcpyDeviceToHost));
	printf("device rows: %.0f %.0f sum %.0f\n", rows[0][0], rows[2][15],
	       hipa_sum(&rows[0][0], 3 * HIPA_W));

	/* a corner of the array straight to host on the stream */
	memset(rows, 0, sizeof(rows));
	hipa_check("hipMemcpy2DFromArrayAsync (host)",
	           hipMemcpy2DFromArrayAsync(rows, sizeof(rows[0]), a2, 2 * sizeof(float), 1,
	                                     6 * sizeof(float), 3, hipMemcpyDeviceToHost, s));
	hipa_check("hipStreamSynchronize", hipStreamSynchronize(s));
	printf("corner: %.0f %.0f %.0f\n", rows[0][0], rows[1][5], rows[2][2]);

	/* hipMemcpyParam2D into the array at (x 12 elements, row 6) from host */
	memset(&p2, 0, sizeof(p2));
	p2.srcMemoryType = hipMemoryTypeHost;
	p2.srcHost = host;
	p2.srcPitch = sizeof(host[0]);
	p2.dstMemoryType = hipMemoryTypeArray;
	p2.dstArray = a2;
	p2.dstXInBytes = 12 * sizeof(float);
	p2.dstY = 6;
	p2.WidthInBytes = 4 * sizeof(float);
	p2.Height = 2;
	hipa_check("hipMemcpyParam2D", hipMemcpyParam2D(&p2));
	hipa_check("hipMemcpy2DFromArray (after)",
	           hipMemcpy2DFromArray(back, sizeof(back[0]), a2, 0, 0, sizeof(back[0]), HIPA_H,
	                                hipMemcpyDeviceToHost));
	printf("a2 row 7: %.0f %.0f %.0f sum %.0f\n", back[7][11], back[7][12], back[7][15],
	       hipa_sum(&back[0][0], HIPA_W * HIPA_H));

	/* the 1D array by byte count, in and out (clr makes the count one row:
	 * count / width / element size rows) */
	hipa_check("hipMemcpyToArray", hipMemcpyToArray(a1, 0, 0, line, sizeof(line),
	                                                hipMemcpyHostToDevice));
	memset(line_back, 0, sizeof(line_back));
	hipa_check("hipMemcpyFromArray", hipMemcpyFromArray(line_back, a1, 0, 0, 32 * 4,
	                                                    hipMemcpyDeviceToHost));
	printf("a1: %u %u %u\n", line_back[0], line_back[1], line_back[63]);

	/* a 5 x 3 x 2 box into the 3D array at (2, 1, 1), then the whole volume out */
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = make_hipPitchedPtr(box, 5, 5, 3);
	p3.dstArray = a3;
	p3.dstPos = make_hipPos(2, 1, 1);
	p3.extent = make_hipExtent(5, 3, 2);
	p3.kind = hipMemcpyHostToDevice;
	hipa_check("hipMemcpy3D (in)", hipMemcpy3D(&p3));
	memset(vol, 0, sizeof(vol));
	memset(&p3, 0, sizeof(p3));
	p3.srcArray = a3;
	p3.dstPtr = make_hipPitchedPtr(vol, 8, 8, 4);
	p3.extent = make_hipExtent(8, 4, 3);
	p3.kind = hipMemcpyDeviceToHost;
	hipa_check("hipMemcpy3D (out)", hipMemcpy3D(&p3));
	printf("vol: %02x %02x %02x %02x\n", vol[1][1][2], vol[2][3][6], vol[1][2][4], vol[0][1][2]);

	if (checks) {
		hipChannelFormatDesc three = {32, 32, 32, 0, hipChannelFormatKindFloat};
		HIP_ARRAY3D_DESCRIPTOR cube = {4, 4, 6, HIP_AD_FORMAT_FLOAT, 1, hipArrayCubemap};
		HIP_ARRAY3D_DESCRIPTOR surf = {4, 4, 0, HIP_AD_FORMAT_FLOAT, 1, hipArraySurfaceLoadStore};
		hipArray *x = NULL;
		printf("three channels %d\n", (int)hipMallocArray(&x, &three, 4, 4, hipArrayDefault));
		printf("cubemap %d\n", (int)hipArray3DCreate(&x, &cube));
		printf("surface %d\n", (int)hipArray3DCreate(&x, &surf));
		printf("null free %d\n", (int)hipFreeArray(NULL));
		hipa_check("hipMallocArray (x)", hipMallocArray(&x, &fdesc, 4, 4, hipArrayDefault));
		hipa_check("hipFreeArray (x)", hipFreeArray(x));
		printf("second free %d\n", (int)hipFreeArray(x));
		printf("pitch below width %d\n",
		       (int)hipMemcpy2DToArray(a2, 0, 0, host, 8, 16, 1, hipMemcpyHostToDevice));
		printf("null array %d\n", (int)hipMemcpy2DToArray(NULL, 0, 0, host, sizeof(host[0]), 16,
		                                                  1, hipMemcpyHostToDevice));
		printf("direction %d\n", (int)hipMemcpy2DFromArray(back, sizeof(back[0]), a2, 0, 0, 16, 1,
		                                                    (hipMemcpyKind)7));
	}
	if (past)
		printf("past the array: %d\n",
		       (int)hipMemcpy2DToArray(a2, 0, 1, host, sizeof(host[0]), HIPA_W * sizeof(float),
		                               HIPA_H, hipMemcpyHostToDevice));

	hipa_check("hipFreeArray (a2)", hipFreeArray(a2));
	hipa_check("hipFreeArray (a1)", hipFreeArray(a1));
	hipa_check("hipFreeArray (a3)", hipFreeArray(a3));
	hipa_check("hipFree", hipFree(dev));
	hipa_check("hipStreamDestroy", hipStreamDestroy(s));
	printf("done\n");
	return 0;
}
