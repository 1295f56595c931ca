/*
 * hip_pitched.hip - pitched copies and memsets and peer copies through the
 * HIP runtime (docs/hip.md).  2D: hipMemset2D over a pitched buffer (its
 * padding too), hipMemcpy2D host to device from a host pitch of its own,
 * hipMemset2DAsync of an inner rectangle on a created stream,
 * hipMemcpy2DAsync device to device into a packed buffer, hipMemcpyPeer
 * and hipMemcpyPeerAsync from device 0 to device 0, hipMemcpy2D device to
 * host into a wider host pitch, hipMemcpy2DAsync device to host read at
 * hipStreamSynchronize, and a linear hipMemcpy of the whole pitched buffer
 * (padding included); then a peer copy naming device 1, which the
 * one-device runtime refuses.  3D: hipMemset3D of a whole two-slice
 * buffer (pitch = width: one piece), hipMemcpy3D host to device into an
 * inner box (a position in bytes, rows and slices), hipMemset3DAsync of a
 * narrower box, hipMemcpyParam2DAsync device to device from a position,
 * hipMemcpy3DAsync device to host into a wider host pitch, and
 * hipMemcpyParam2D device to host at a host position.  Then on two
 * non-blocking streams a hipMemcpy3DAsync upload and a
 * hipMemcpyParam2DAsync reading what it wrote, ordered by an event (with
 * the argument "racy": not ordered), read back.  No kernel: every value comes from copies
 * and memsets.  Prints each call's status; with no AMD GPU the runtime
 * answers with errors and the program still runs to its end (exit 0).
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

enum { W = 5, H = 4, PITCH = 32, HPITCH = 8 };

int main(int argc, char **argv)
{
	static float host[H][W], wide[H][HPITCH], packed[H * W];
	static unsigned char raw[PITCH * H];
	unsigned char *d = NULL;
	float *e = NULL, *f = NULL, *g = NULL;
	hipStream_t s = NULL;
	double sum = 0.0;
	int count = -1;
	static unsigned char cube[2][2][8], box[2 * 3 * 20], flat[20];
	unsigned char *v = NULL, *v2 = NULL;
	struct hipMemcpy3DParms p3;
	hip_Memcpy2D q;
	unsigned bsum = 0;
	hipStream_t a = NULL, b = NULL;
	hipEvent_t ev = NULL;
	unsigned char *w3 = NULL, *w4 = NULL;
	static unsigned char back[16];
	int racy = argc > 1 && strcmp(argv[1], "racy") == 0;

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			host[y][x] = (float)(10 * y + x);
	memset(wide, 0, sizeof(wide));
	memset(packed, 0, sizeof(packed));
	memset(raw, 0, sizeof(raw));
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 8; x++)
				cube[z][y][x] = (unsigned char)(0x40 + 16 * z + 8 * y + x);
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

	/* 3D: v is 2 slices of 3 rows of 16 bytes */
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&v, 96));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&v2, 16));
	printf("hipMemset3D %d\n", (int)hipMemset3D(make_hipPitchedPtr(v, 16, 16, 3), 0x11,
	                                            make_hipExtent(16, 3, 2)));
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = make_hipPitchedPtr(cube, 8, 8, 2);
	p3.dstPtr = make_hipPitchedPtr(v, 16, 16, 3);
	p3.dstPos = make_hipPos(4, 1, 0);
	p3.extent = make_hipExtent(8, 2, 2);
	p3.kind = hipMemcpyHostToDevice;
	printf("hipMemcpy3D %d\n", (int)hipMemcpy3D(&p3));
	printf("hipMemset3DAsync %d\n", (int)hipMemset3DAsync(make_hipPitchedPtr(v + 4, 16, 2, 3), 0,
	                                                      make_hipExtent(2, 2, 2), s));
	memset(&q, 0, sizeof(q));
	q.srcMemoryType = hipMemoryTypeDevice;
	q.srcDevice = v;
	q.srcXInBytes = 6;
	q.srcY = 1;
	q.srcPitch = 16;
	q.dstMemoryType = hipMemoryTypeDevice;
	q.dstDevice = v2;
	q.dstPitch = 8;
	q.WidthInBytes = 8;
	q.Height = 2;
	printf("hipMemcpyParam2DAsync %d\n", (int)hipMemcpyParam2DAsync(&q, s));
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = make_hipPitchedPtr(v, 16, 16, 3);
	p3.srcPos = make_hipPos(2, 0, 0);
	p3.dstPtr = make_hipPitchedPtr(box, 20, 20, 3);
	p3.extent = make_hipExtent(12, 3, 2);
	p3.kind = hipMemcpyDeviceToHost;
	printf("hipMemcpy3DAsync %d\n", (int)hipMemcpy3DAsync(&p3, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	memset(&q, 0, sizeof(q));
	q.srcMemoryType = hipMemoryTypeDevice;
	q.srcDevice = v2;
	q.srcPitch = 8;
	q.dstMemoryType = hipMemoryTypeHost;
	q.dstHost = flat;
	q.dstXInBytes = 1;
	q.dstPitch = 10;
	q.WidthInBytes = 8;
	q.Height = 2;
	printf("hipMemcpyParam2D %d\n", (int)hipMemcpyParam2D(&q));
	printf("hipFree %d\n", (int)hipFree(v));
	printf("hipFree %d\n", (int)hipFree(v2));

	/* Two non-blocking streams: a 3D upload into w3 on one, a pitched copy
	 * reading w3 on the other, ordered by an event unless "racy". */
	printf("hipStreamCreateWithFlags %d\n", (int)hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
	printf("hipStreamCreateWithFlags %d\n", (int)hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
	printf("hipEventCreate %d\n", (int)hipEventCreate(&ev));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&w3, 64));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&w4, 16));
	memset(&p3, 0, sizeof(p3));
	p3.srcPtr = make_hipPitchedPtr(cube, 8, 8, 2);
	p3.dstPtr = make_hipPitchedPtr(w3, 16, 16, 2);
	p3.extent = make_hipExtent(8, 2, 2);
	p3.kind = hipMemcpyHostToDevice;
	printf("hipMemcpy3DAsync %d\n", (int)hipMemcpy3DAsync(&p3, a));
	printf("hipEventRecord %d\n", (int)hipEventRecord(ev, a));
	if (!racy)
		printf("hipStreamWaitEvent %d\n", (int)hipStreamWaitEvent(b, ev, 0));
	memset(&q, 0, sizeof(q));
	q.srcMemoryType = hipMemoryTypeDevice;
	q.srcDevice = w3;
	q.srcY = 1;
	q.srcPitch = 16;
	q.dstMemoryType = hipMemoryTypeDevice;
	q.dstDevice = w4;
	q.dstPitch = 8;
	q.WidthInBytes = 8;
	q.Height = 2;
	printf("hipMemcpyParam2DAsync %d\n", (int)hipMemcpyParam2DAsync(&q, b));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(b));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(a));
	printf("hipMemcpy %d\n", (int)hipMemcpy(back, w4, sizeof(back), hipMemcpyDeviceToHost));
	printf("hipFree %d\n", (int)hipFree(w3));
	printf("hipFree %d\n", (int)hipFree(w4));
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(ev));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(a));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(b));
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
	for (int i = 0; i < (int)sizeof(box); i++)
		bsum += box[i];
	printf("box slice 1 row 1:");
	for (int i = 0; i < 12; i++)
		printf(" %02x", box[60 + 20 + i]);
	printf(" (sum %u)\nflat:", bsum);
	for (int i = 0; i < (int)sizeof(flat); i++)
		printf(" %02x", flat[i]);
	printf("\nback:");
	for (int i = 0; i < (int)sizeof(back); i++)
		printf(" %02x", back[i]);
	printf("\n");
	return 0;
}
