/*
 * hip_copy2d.hip - pitched copies and memsets and peer copies through the
 * HIP runtime (docs/hip.md): hipMemset2D over a pitched buffer (its
 * padding too), hipMemcpy2D host to device from a host pitch of its own,
 * hipMemset2DAsync of an inner rectangle on a created stream,
 * hipMemcpy2DAsync device to device into a packed buffer, hipMemcpyPeer
 * and hipMemcpyPeerAsync from device 0 to device 0, hipMemcpy2D device to
 * host into a wider host pitch, hipMemcpy2DAsync device to host read at
 * hipStreamSynchronize, and a linear hipMemcpy of the whole pitched buffer
 * (padding included); then a peer copy naming device 1, which the
 * one-device runtime refuses.  No kernel: every value comes from copies
 * and memsets.  Prints each call's status; with no AMD GPU the runtime
 * answers with errors and the program still runs to its end (exit 0).
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

enum { W = 5, H = 4, PITCH = 32, HPITCH = 8 };

int main(void)
{
	static float host[H][W], wide[H][HPITCH], packed[H * W];
	static unsigned char raw[PITCH * H];
	unsigned char *d = NULL;
	float *e = NULL, *f = NULL, *g = NULL;
	hipStream_t s = NULL;
	double sum = 0.0;
	int count = -1;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			host[y][x] = (float)(10 * y + x);
	memset(wide, 0, sizeof(wide));
	memset(packed, 0, sizeof(packed));
	memset(raw, 0, sizeof(raw));
	printf("hipGetDeviceCount %d\n", (int)hipGetDeviceCount(&count));
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&d, PITCH * H));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&e, sizeof(packed)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&f, sizeof(packed)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&g, sizeof(packed)));
	printf("hipMemset2D %d\n", (int)hipMemset2D(d, PITCH, 0x7f, PITCH, H));
	printf("hipMemcpy2D %d\n", (int)hipMemcpy2D(d, PITCH, host, sizeof(host[0]), sizeof(host[0]), H,
	                                            hipMemcpyHostToDevice));
	/* columns 1-2 of rows 1-2: 8 zero bytes each */
	printf("hipMemset2DAsync %d\n",
	       (int)hipMemset2DAsync(d + PITCH + sizeof(float), PITCH, 0, 2 * sizeof(float), 2, s));
	printf("hipMemcpy2DAsync %d\n", (int)hipMemcpy2DAsync(e, W * sizeof(float), d, PITCH,
	                                                      W * sizeof(float), H,
	                                                      hipMemcpyDeviceToDevice, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipMemcpyPeer %d\n", (int)hipMemcpyPeer(f, 0, e, 0, sizeof(packed)));
	printf("hipMemcpyPeerAsync %d\n", (int)hipMemcpyPeerAsync(g, 0, f, 0, sizeof(packed), s));
	printf("hipMemcpy2D %d\n", (int)hipMemcpy2D(wide, sizeof(wide[0]), d, PITCH, W * sizeof(float),
	                                            H, hipMemcpyDeviceToHost));
	printf("hipMemcpy2DAsync %d\n", (int)hipMemcpy2DAsync(packed, W * sizeof(float), g,
	                                                      W * sizeof(float), W * sizeof(float), H,
	                                                      hipMemcpyDeviceToHost, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	printf("hipMemcpy %d\n", (int)hipMemcpy(raw, d, sizeof(raw), hipMemcpyDeviceToHost));
	printf("hipMemcpyPeer device 1 %d\n", (int)hipMemcpyPeer(f, 1, e, 0, sizeof(packed)));
	printf("hipFree %d\n", (int)hipFree(d));
	printf("hipFree %d\n", (int)hipFree(e));
	printf("hipFree %d\n", (int)hipFree(f));
	printf("hipFree %d\n", (int)hipFree(g));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
	for (int i = 0; i < H * W; i++)
		sum += packed[i];
	printf("wide[1] %.1f %.1f %.1f %.1f %.1f pad %.1f\n", wide[1][0], wide[1][1], wide[1][2],
	       wide[1][3], wide[1][4], wide[1][5]);
	printf("packed[13] %.1f sum %.1f raw[20] 0x%02x raw[%d] 0x%02x\n", packed[13], sum, raw[20],
	       PITCH * H - 1, raw[PITCH * H - 1]);
	return 0;
}
