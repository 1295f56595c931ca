/*
 * hip_event_sync.c - async device-to-host copies whose results the program
 * sees through an event (docs/hip.md "What is recorded", copies), from
 * plain C (no kernel): on a created non-blocking stream a hipMemsetAsync
 * (0x3c) and a hipMemcpyAsync of it to host, an event recorded after
 * them and hipEventSynchronize; then a second memset (0x4d) and copy, an
 * event and hipEventQuery until it answers hipSuccess; then a third copy
 * with no event after it, which the program never waits for before
 * hipStreamSynchronize.  Prints the bytes read (first, last and a hash of
 * each result) and each failing call; exit status 0 once it ran to its end.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

#define HES_N 1024

static void hes_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void hes_print(const char *what, const unsigned char *b)
{
	unsigned long hash = 5381;

	for (int i = 0; i < HES_N; i++)
		hash = hash * 33 + b[i];
	printf("%s: %02x %02x hash %lu\n", what, b[0], b[HES_N - 1], hash);
}

int main(void)
{
	static unsigned char a[HES_N], b[HES_N], c[HES_N];
	unsigned char *d = NULL;
	hipStream_t s = NULL;
	hipEvent_t e1 = NULL, e2 = NULL;
	hipError_t q;
	int polls = 0;

	hes_check("hipMalloc", hipMalloc((void **)&d, HES_N));
	hes_check("hipStreamCreateWithFlags", hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
	hes_check("hipEventCreate", hipEventCreate(&e1));
	hes_check("hipEventCreate 2", hipEventCreate(&e2));
	hes_check("hipMemsetAsync", hipMemsetAsync(d, 0x3c, HES_N, s));
	hes_check("hipMemcpyAsync", hipMemcpyAsync(a, d, HES_N, hipMemcpyDeviceToHost, s));
	hes_check("hipEventRecord", hipEventRecord(e1, s));
	hes_check("hipEventSynchronize", hipEventSynchronize(e1));
	hes_print("synchronized", a);
	hes_check("hipMemsetAsync 2", hipMemsetAsync(d + 100, 0x4d, 200, s));
	hes_check("hipMemcpyAsync 2", hipMemcpyAsync(b, d, HES_N, hipMemcpyDeviceToHost, s));
	hes_check("hipEventRecord 2", hipEventRecord(e2, s));
	while ((q = hipEventQuery(e2)) == hipErrorNotReady && polls < 1000000)
		polls++;
	hes_check("hipEventQuery", q);
	hes_print("queried", b);
	hes_check("hipMemcpyAsync 3", hipMemcpyAsync(c, d + 1, HES_N - 1, hipMemcpyDeviceToHost, s));
	hes_check("hipStreamSynchronize", hipStreamSynchronize(s));
	hes_print("stream", c);
	hes_check("hipEventDestroy", hipEventDestroy(e1));
	hes_check("hipEventDestroy 2", hipEventDestroy(e2));
	hes_check("hipStreamDestroy", hipStreamDestroy(s));
	hes_check("hipFree", hipFree(d));
	return 0;
}
