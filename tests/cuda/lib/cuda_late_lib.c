/*
 * cuda_late_lib - a shared library whose exit code calls the CUDA driver,
 * as libcublas's does when its handles are torn down: glibc's _dl_fini runs
 * this library's destructor after an LD_PRELOADed interposer's, so these
 * calls come after the capture runtime has finished the trace at exit
 * (tests/shell/test_cuda_late_calls.sh).
 *
 * cuda_late_arm hands it the program's work; then, after main returns, one
 * of these relaunches the fill kernel, reads the buffer back (checked, so
 * a recorded checkpoint holds known bytes), frees it and destroys the
 * stream:
 *   CUDA_LATE_DTOR    the library's destructor;
 *   CUDA_LATE_ATEXIT  an exit handler the destructor registers (atexit:
 *                     glibc runs it when it finalises this library);
 *   CUDA_LATE_LAST    an exit handler registered when the library was
 *                     loaded, under no object's handle: glibc runs it last
 *                     of all, after the recorder's own last handler;
 *   CUDA_LATE_KILL    as CUDA_LATE_LAST, but the process SIGKILLs itself
 *                     right after the free.
 * What it did is printed on stdout, a mismatch exits 3.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/cuda/lib/cuda_late_lib.h"

static struct {
	int mode;
	CUfunction fill;
	CUstream stream;
	CUdeviceptr buf;
	uint32_t n;
} cul_g;

static void cul_check(CUresult r, const char *what)
{
	if (r == CUDA_SUCCESS)
		return;
	fprintf(stderr, "cuda_late_lib: %s failed: %d\n", what, (int)r);
	_exit(3);
}
#define CUL_CK(call) cul_check((call), #call)

static void cul_late_work(const char *where)
{
	uint32_t value = 1000, stride = 7, n = cul_g.n;
	void *args[] = { &cul_g.buf, &value, &stride, &n };
	uint32_t *host = malloc(n * sizeof(uint32_t));

	if (!host)
		_exit(3);
	CUL_CK(cuLaunchKernel(cul_g.fill, (n + 63) / 64, 1, 1, 64, 1, 1, 0, cul_g.stream, args, NULL));
	CUL_CK(cuStreamSynchronize(cul_g.stream));
	CUL_CK(cuMemcpyDtoH(host, cul_g.buf, n * sizeof(uint32_t)));
	for (uint32_t i = 0; i < n; i++) {
		if (host[i] != value + i * stride) {
			fprintf(stderr, "cuda_late_lib: element %u read back %u, expected %u\n", i,
			        host[i], value + i * stride);
			_exit(3);
		}
	}
	free(host);
	CUL_CK(cuMemFree(cul_g.buf));
	if (cul_g.mode == CUDA_LATE_KILL)
		kill(getpid(), SIGKILL);
	CUL_CK(cuStreamDestroy(cul_g.stream));
	printf("late calls made from %s: read back %u elements\n", where, n);
	fflush(stdout);
}

/* The C library's exit-handler registration, under an object's handle or
 * none (atexit passes this library's). */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle);

static void cul_atexit(void)
{
	cul_late_work("an exit handler");
}

static void cul_last(void *arg)
{
	(void)arg;
	if (cul_g.mode == CUDA_LATE_LAST || cul_g.mode == CUDA_LATE_KILL)
		cul_late_work("the last exit handler");
}

/* Runs before main (and before the C library registers its own exit
 * handler that runs the destructors), so cul_last comes after them all. */
__attribute__((constructor)) static void cul_constructor(void)
{
	if (__cxa_atexit(cul_last, NULL, NULL) != 0)
		_exit(3);
}

__attribute__((destructor)) static void cul_destructor(void)
{
	if (cul_g.mode == CUDA_LATE_DTOR)
		cul_late_work("a destructor");
	else if (cul_g.mode == CUDA_LATE_ATEXIT && atexit(cul_atexit) != 0)
		_exit(3);
}

void cuda_late_arm(int mode, CUfunction fill, CUstream stream, CUdeviceptr buf, uint32_t n)
{
	cul_g.mode = mode;
	cul_g.fill = fill;
	cul_g.stream = stream;
	cul_g.buf = buf;
	cul_g.n = n;
}
