/*
 * hip_events.hip - hipEventElapsedTime as the runtime answers it (clr's
 * hip_event.cpp, docs/hip.md "The test double"): two timing events
 * (hipEventDefault) around a hipMemsetAsync on a created stream measure
 * 0 ms or more; an event against itself is 0 ms; an event created with
 * hipEventDisableTiming, on either side, is hipErrorInvalidHandle (400);
 * an event never recorded is hipErrorInvalidHandle; a null event is
 * hipErrorInvalidHandle before a null result pointer is
 * hipErrorInvalidValue (1).  Prints each call's status; with no AMD GPU the
 * runtime answers with errors and the program still runs to its end.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>

int main(void)
{
	hipEvent_t a = NULL, b = NULL, off = NULL, never = NULL;
	hipStream_t s = NULL;
	void *d = NULL;
	float ms = -1.0f, self = -1.0f;
	int count = -1;

	printf("hipGetDeviceCount %d\n", (int)hipGetDeviceCount(&count));
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipMalloc %d\n", (int)hipMalloc(&d, 1 << 20));
	printf("hipEventCreateWithFlags %d\n", (int)hipEventCreateWithFlags(&a, hipEventDefault));
	printf("hipEventCreateWithFlags %d\n", (int)hipEventCreateWithFlags(&b, hipEventDefault));
	printf("hipEventCreateWithFlags %d\n", (int)hipEventCreateWithFlags(&off, hipEventDisableTiming));
	printf("hipEventCreateWithFlags %d\n", (int)hipEventCreateWithFlags(&never, hipEventDefault));
	printf("hipEventRecord %d\n", (int)hipEventRecord(a, s));
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(d, 1, 1 << 20, s));
	printf("hipEventRecord %d\n", (int)hipEventRecord(off, s));
	printf("hipEventRecord %d\n", (int)hipEventRecord(b, s));
	printf("hipEventSynchronize %d\n", (int)hipEventSynchronize(b));
	printf("elapsed %d\n", (int)hipEventElapsedTime(&ms, a, b));
	printf("elapsed non-negative %d\n", ms >= 0.0f);
	printf("elapsed self %d %.1f\n", (int)hipEventElapsedTime(&self, a, a), self);
	printf("elapsed disable-timing stop %d\n", (int)hipEventElapsedTime(&ms, a, off));
	printf("elapsed disable-timing start %d\n", (int)hipEventElapsedTime(&ms, off, b));
	printf("elapsed never recorded %d\n", (int)hipEventElapsedTime(&ms, a, never));
	printf("elapsed null event %d\n", (int)hipEventElapsedTime(NULL, NULL, b));
	printf("elapsed null ms %d\n", (int)hipEventElapsedTime(NULL, a, b));
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(a));
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(b));
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(off));
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(never));
	printf("hipFree %d\n", (int)hipFree(d));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
	return 0;
}
