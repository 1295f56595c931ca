/*
 * hip_ctx.c - HIP contexts from plain C (no kernel), on two devices:
 * hipDevicePrimaryCtxRetain of device 0, hipCtxCreate on device 1 (clr
 * pushes it; the current device stays 0: hipCtxGetDevice says so),
 * hipCtxSetCurrent of device 1's context, then on device 1 a buffer, a
 * stream and a hipMemsetAsync; hipCtxPushCurrent of device 0's context,
 * on device 0 a buffer filled from host and copied into device 1's
 * buffer; hipCtxPopCurrent (clr leaves the current device as it was:
 * still 0), hipCtxGetCurrent (device 0's context, as the retain gave it);
 * hipCtxSetCurrent of device 1's context again, a hipMemsetAsync there and
 * device 1's buffer read back; hipCtxDestroy, hipDevicePrimaryCtxRelease,
 * each buffer freed.  Prints the current device after each switch, the
 * bytes read and each call that failed; exit status 0 once it ran to its
 * end (with one device, the calls naming device 1 fail and the rest runs
 * on device 0).  With the argument "checks", context calls the runtime
 * refuses print their codes.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

/* The context calls are deprecated in the headers but exported and used:
 * this program calls them on purpose. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define HCTX_N 4096

static void hctx_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void hctx_where(const char *when)
{
	hipDevice_t d = -1;
	hctx_check("hipCtxGetDevice", hipCtxGetDevice(&d));
	printf("%s: device %d\n", when, (int)d);
}

int main(int argc, char **argv)
{
	unsigned char *b0 = NULL, *b1 = NULL, host[HCTX_N];
	hipCtx_t c0 = NULL, c1 = NULL, popped = NULL, cur = NULL;
	hipStream_t s1 = NULL;
	unsigned sum = 0;

	hctx_check("hipDevicePrimaryCtxRetain (0)", hipDevicePrimaryCtxRetain(&c0, 0));
	hctx_check("hipCtxCreate (1)", hipCtxCreate(&c1, 0, 1));
	hctx_where("after hipCtxCreate");
	hctx_check("hipCtxSetCurrent (1)", hipCtxSetCurrent(c1));
	hctx_where("after hipCtxSetCurrent");
	hctx_check("hipMalloc (1)", hipMalloc((void **)&b1, HCTX_N));
	hctx_check("hipStreamCreate (1)", hipStreamCreate(&s1));
	hctx_check("hipMemsetAsync (1)", hipMemsetAsync(b1, 0x5a, HCTX_N, s1));
	hctx_check("hipStreamSynchronize (1)", hipStreamSynchronize(s1));

	hctx_check("hipCtxPushCurrent (0)", hipCtxPushCurrent(c0));
	hctx_where("after hipCtxPushCurrent");
	hctx_check("hipMalloc (0)", hipMalloc((void **)&b0, HCTX_N));
	for (int i = 0; i < HCTX_N; i++)
		host[i] = (unsigned char)(i * 7 + 3);
	hctx_check("hipMemcpy (to 0)", hipMemcpy(b0, host, HCTX_N, hipMemcpyHostToDevice));
	hctx_check("hipMemcpy (0 to 1)", hipMemcpy(b1 + HCTX_N / 4, b0, HCTX_N / 2,
	                                           hipMemcpyDeviceToDevice));
	hctx_check("hipCtxPopCurrent", hipCtxPopCurrent(&popped));
	printf("popped %s\n", !popped ? "none" : popped == c0 ? "device 0's context" : "another");
	hctx_where("after hipCtxPopCurrent");
	hctx_check("hipCtxGetCurrent", hipCtxGetCurrent(&cur));
	printf("current %s\n", !cur ? "none" : cur == c0 ? "device 0's context"
	                       : cur == c1 ? "device 1's context" : "another");

	hctx_check("hipCtxSetCurrent (1) again", hipCtxSetCurrent(c1));
	hctx_where("after hipCtxSetCurrent again");
	hctx_check("hipMemsetAsync (1) again", hipMemsetAsync(b1, 0x21, HCTX_N / 8, s1));
	hctx_check("hipStreamSynchronize (1) again", hipStreamSynchronize(s1));
	memset(host, 0, sizeof(host));
	hctx_check("hipMemcpy (from 1)", hipMemcpy(host, b1, HCTX_N, hipMemcpyDeviceToHost));
	for (int i = 0; i < HCTX_N; i++)
		sum = sum * 31 + host[i];
	printf("device 1: %02x %02x %02x hash %u\n", host[0], host[HCTX_N / 4 + 1], host[HCTX_N - 1],
	       sum);

	if (argc > 1 && strcmp(argv[1], "checks") == 0) {
		hipCtx_t x = NULL;
		printf("create on device 99 %d\n", (int)hipCtxCreate(&x, 0, 99));
		printf("push null %d\n", (int)hipCtxPushCurrent(NULL));
		printf("retain device 99 %d\n", (int)hipDevicePrimaryCtxRetain(&x, 99));
		printf("retain null %d\n", (int)hipDevicePrimaryCtxRetain(NULL, 0));
		printf("release device 99 %d\n", (int)hipDevicePrimaryCtxRelease(99));
		printf("destroy null %d\n", (int)hipCtxDestroy(NULL));
		printf("device null %d\n", (int)hipCtxGetDevice(NULL));
	}

	hctx_check("hipStreamDestroy (1)", hipStreamDestroy(s1));
	hctx_check("hipFree (1)", hipFree(b1));
	hctx_check("hipCtxDestroy (1)", hipCtxDestroy(c1));
	hctx_check("hipCtxSetCurrent (0)", hipCtxSetCurrent(c0));
	hctx_check("hipFree (0)", hipFree(b0));
	hctx_check("hipDevicePrimaryCtxRelease (0)", hipDevicePrimaryCtxRelease(0));
	printf("done\n");
	return 0;
}
