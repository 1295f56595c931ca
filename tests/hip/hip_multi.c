/*
 * hip_multi.c - two devices from plain C (no kernel): hipGetDeviceCount,
 * then on device 0 a hipMalloc'd buffer filled by hipMemset and a stream;
 * hipSetDevice(1) (and hipGetDevice to see it), on device 1 a buffer, a
 * stream, a hipMemsetAsync and a hipMemcpyPeerAsync of half of device 0's
 * buffer into it, read back with hipMemcpy; back on device 0 a
 * hipMemcpyPeer of device 1's buffer into its own, read back; each buffer
 * freed on its device.  Prints the device count, the current device, the
 * bytes read and each call that failed; exit status 0 once it ran to its
 * end (with one device, hipSetDevice(1) fails and the rest runs on
 * device 0).
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define HIPMD_N 4096

static void hipmd_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void hipmd_show(const char *what, const unsigned char *v)
{
	unsigned sum = 0;
	for (int i = 0; i < HIPMD_N; i++)
		sum += v[i];
	printf("%s: %02x %02x %02x sum %u\n", what, v[0], v[HIPMD_N / 2 - 1], v[HIPMD_N - 1], sum);
}

int main(void)
{
	unsigned char *a0 = NULL, *a1 = NULL, host[HIPMD_N];
	hipStream_t s0 = NULL, s1 = NULL;
	int count = 0, dev = -1;

	hipmd_check("hipGetDeviceCount", hipGetDeviceCount(&count));
	printf("devices %d\n", count);
	hipmd_check("hipSetDevice(0)", hipSetDevice(0));
	hipmd_check("hipMalloc (0)", hipMalloc((void **)&a0, HIPMD_N));
	hipmd_check("hipStreamCreate (0)", hipStreamCreate(&s0));
	hipmd_check("hipMemset (0)", hipMemset(a0, 0x11, HIPMD_N));

	hipmd_check("hipSetDevice(1)", hipSetDevice(1));
	hipmd_check("hipGetDevice", hipGetDevice(&dev));
	printf("current %d\n", dev);
	hipmd_check("hipMalloc (1)", hipMalloc((void **)&a1, HIPMD_N));
	hipmd_check("hipStreamCreate (1)", hipStreamCreate(&s1));
	hipmd_check("hipMemsetAsync (1)", hipMemsetAsync(a1, 0x22, HIPMD_N, s1));
	hipmd_check("hipMemcpyPeerAsync", hipMemcpyPeerAsync(a1, 1, a0, 0, HIPMD_N / 2, s1));
	hipmd_check("hipStreamSynchronize (1)", hipStreamSynchronize(s1));
	memset(host, 0, sizeof(host));
	hipmd_check("hipMemcpy (1)", hipMemcpy(host, a1, HIPMD_N, hipMemcpyDeviceToHost));
	hipmd_show("device 1", host);

	hipmd_check("hipSetDevice(0) again", hipSetDevice(0));
	hipmd_check("hipMemsetAsync (0)", hipMemsetAsync(a0, 0x33, HIPMD_N / 4, s0));
	hipmd_check("hipStreamSynchronize (0)", hipStreamSynchronize(s0));
	hipmd_check("hipMemcpyPeer", hipMemcpyPeer(a0 + HIPMD_N / 2, 0, a1 + HIPMD_N / 2, 1, HIPMD_N / 2));
	memset(host, 0, sizeof(host));
	hipmd_check("hipMemcpy (0)", hipMemcpy(host, a0, HIPMD_N, hipMemcpyDeviceToHost));
	hipmd_show("device 0", host);

	hipmd_check("hipFree (0)", hipFree(a0));
	hipmd_check("hipStreamDestroy (0)", hipStreamDestroy(s0));
	hipmd_check("hipSetDevice(1) to free", hipSetDevice(1));
	hipmd_check("hipFree (1)", hipFree(a1));
	hipmd_check("hipStreamDestroy (1)", hipStreamDestroy(s1));
	printf("done\n");
	return 0;
}
