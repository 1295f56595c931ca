/*
 * hip_spt.c - the per-thread default stream's copies, memsets and stream
 * calls from plain C (no kernel): hipMemset_spt, hipMemcpy_spt from host,
 * hipMemcpyAsync_spt device to device on stream 0 (the per-thread one),
 * hipStreamSynchronize_spt(0), hipMemset2D_spt, hipMemset3D_spt,
 * hipMemcpy2D_spt from a host pitch of its own; on a created non-blocking
 * stream a hipMemsetAsync and an event recorded after it, which
 * hipStreamWaitEvent_spt makes the per-thread stream wait for before a
 * hipMemcpyAsync_spt reads what it wrote, hipStreamQuery_spt(0); then the
 * whole buffer read back by hipMemcpy_spt.  Prints the bytes read (a hash
 * and some of them) and each failing call; exit status 0 once it ran to
 * its end.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define HSPT_N 4096

static void hspt_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

int main(void)
{
	unsigned char *d = NULL, pat[512], rows[4][32], back[HSPT_N];
	hipStream_t s = NULL;
	hipEvent_t e = NULL;
	hipPitchedPtr pp;
	hipExtent ext = {16, 2, 2};
	unsigned long hash = 0;

	for (int i = 0; i < 512; i++)
		pat[i] = (unsigned char)(i * 5 + 1);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 32; x++)
			rows[y][x] = (unsigned char)(0x80 + y * 8 + x);
	hspt_check("hipMalloc", hipMalloc((void **)&d, HSPT_N));
	hspt_check("hipStreamCreateWithFlags", hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
	hspt_check("hipEventCreate", hipEventCreate(&e));
	hspt_check("hipMemset_spt", hipMemset_spt(d, 0x11, HSPT_N));
	hspt_check("hipMemcpy_spt (up)", hipMemcpy_spt(d + 256, pat, sizeof(pat), hipMemcpyHostToDevice));
	hspt_check("hipMemcpyAsync_spt", hipMemcpyAsync_spt(d + 1024, d + 256, 256,
	                                                    hipMemcpyDeviceToDevice, NULL));
	hspt_check("hipStreamSynchronize_spt", hipStreamSynchronize_spt(NULL));
	hspt_check("hipMemset2D_spt", hipMemset2D_spt(d + 2048, 64, 0x22, 32, 4));
	pp.ptr = d + 2304;
	pp.pitch = 64;
	pp.xsize = 64;
	pp.ysize = 2;
	hspt_check("hipMemset3D_spt", hipMemset3D_spt(pp, 0x33, ext));
	hspt_check("hipMemcpy2D_spt", hipMemcpy2D_spt(d + 3072, 64, rows, sizeof(rows[0]), 32, 4,
	                                              hipMemcpyHostToDevice));
	hspt_check("hipMemsetAsync", hipMemsetAsync(d + 3840, 0x44, 128, s));
	hspt_check("hipEventRecord", hipEventRecord(e, s));
	hspt_check("hipStreamWaitEvent_spt", hipStreamWaitEvent_spt(NULL, e, 0));
	hspt_check("hipMemcpyAsync_spt (after the event)",
	           hipMemcpyAsync_spt(d + 3968, d + 3840, 64, hipMemcpyDeviceToDevice, NULL));
	hspt_check("hipStreamQuery_spt", hipStreamQuery_spt(NULL));
	memset(back, 0, sizeof(back));
	hspt_check("hipMemcpy_spt (down)", hipMemcpy_spt(back, d, HSPT_N, hipMemcpyDeviceToHost));
	for (int i = 0; i < HSPT_N; i++)
		hash = hash * 31 + back[i];
	printf("read: %02x %02x %02x %02x %02x %02x %02x hash %lu\n", back[0], back[300], back[1030],
	       back[2048 + 64 + 5], back[2304 + 128 + 3], back[3072 + 64 * 3 + 31], back[3968 + 10],
	       hash);
	hspt_check("hipEventDestroy", hipEventDestroy(e));
	hspt_check("hipStreamDestroy", hipStreamDestroy(s));
	hspt_check("hipFree", hipFree(d));
	printf("done\n");
	return 0;
}
