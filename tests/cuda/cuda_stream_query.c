/*
 * cuda_stream_query - what cuStreamQuery answers for each kind of stream
 * while one stream is held by a stream memory wait (cuStreamWaitValue32 on
 * a device word that only a later write meets).  The stream held is, in
 * turn: a created blocking stream, a created non-blocking stream, the main
 * thread's per-thread default stream (CU_STREAM_PER_THREAD) and the legacy
 * default stream (CU_STREAM_LEGACY).  While it is held, each stream below
 * is queried, from the main thread and from a second thread:
 *   legacy       CU_STREAM_LEGACY (what NULL means to cuStreamQuery)
 *   ptds         the querying thread's CU_STREAM_PER_THREAD
 *   blocking     another created blocking stream, idle
 *   nonblocking  another created non-blocking stream, idle
 *   held         the held stream itself (created ones only)
 * and one line per case is printed, "held=KIND main: legacy=R ... other:
 * legacy=R ptds=R" (R: SUCCESS or NOT_READY).  The word is then set by a
 * memset on a third, non-blocking stream, which releases the wait.  The
 * capture recorder's window drain (interpose/cuda/tcu_track.c) queries
 * the legacy stream: this says what that answer means on the real driver.
 * An alarm (30 s) ends the program (SIGALRM) if a release does not.
 *   cuda_stream_query
 */
#include <pthread.h>

#include "tests/cuda/cuprog.h"

static CUcontext csq_ctx;
static CUstream csq_blocking, csq_nonblocking;

static const char *csq_query(CUstream s)
{
	static const char *const names[] = {"SUCCESS", "NOT_READY"};
	CUresult r = cuStreamQuery(s);
	const char *n = "?";

	if (r == CUDA_SUCCESS)
		return names[0];
	if (r == CUDA_ERROR_NOT_READY)
		return names[1];
	cuGetErrorName(r, &n);
	return n;
}

/* the second thread's view: its legacy and its own per-thread stream */
static void *csq_other(void *p)
{
	char *line = p;

	CUP_CK(cuCtxSetCurrent(csq_ctx));
	snprintf(line, 128, "other: legacy=%s ptds=%s", csq_query(CU_STREAM_LEGACY),
	         csq_query(CU_STREAM_PER_THREAD));
	return NULL;
}

static void csq_case(const char *kind, CUstream held, int created, CUstream releaser)
{
	CUdeviceptr flag;
	pthread_t t;
	char other[128];

	CUP_CK(cuMemAlloc(&flag, 4));
	CUP_CK(cuMemsetD32(flag, 0, 1));
	CUP_CK(cuCtxSynchronize());
	CUP_CK(cuStreamWaitValue32(held, flag, 1, CU_STREAM_WAIT_VALUE_GEQ));
	usleep(20000);
	printf("held=%s main: legacy=%s ptds=%s blocking=%s nonblocking=%s", kind,
	       csq_query(CU_STREAM_LEGACY), csq_query(CU_STREAM_PER_THREAD),
	       held == csq_blocking ? "(held)" : csq_query(csq_blocking),
	       held == csq_nonblocking ? "(held)" : csq_query(csq_nonblocking));
	if (created)
		printf(" held=%s", csq_query(held));
	if (pthread_create(&t, NULL, csq_other, other) != 0 || pthread_join(t, NULL) != 0) {
		fprintf(stderr, "cuda_stream_query: pthread_create failed\n");
		exit(1);
	}
	printf(" %s\n", other);
	fflush(stdout);
	CUP_CK(cuMemsetD32Async(flag, 1, 1, releaser));
	CUP_CK(cuStreamSynchronize(releaser));
	CUP_CK(cuCtxSynchronize());
	printf("held=%s released: legacy=%s\n", kind, csq_query(CU_STREAM_LEGACY));
	CUP_CK(cuMemFree(flag));
}

int main(void)
{
	CUdevice dev;
	CUstream releaser;

	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_stream_query";
	cup_api_for_errors = &errs;
	alarm(30);
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&csq_ctx, dev));
	CUP_CK(cuCtxSetCurrent(csq_ctx));
	CUP_CK(cuStreamCreate(&csq_blocking, CU_STREAM_DEFAULT));
	CUP_CK(cuStreamCreate(&csq_nonblocking, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuStreamCreate(&releaser, CU_STREAM_NON_BLOCKING));
	csq_case("blocking", csq_blocking, 1, releaser);
	csq_case("nonblocking", csq_nonblocking, 1, releaser);
	csq_case("ptds", CU_STREAM_PER_THREAD, 0, releaser);
	csq_case("legacy", CU_STREAM_LEGACY, 0, releaser);
	printf("cuda_stream_query: done\n");
	return 0;
}
