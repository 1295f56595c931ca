/*
 * tcd_twins.h - host twins of real GPU kernels: for a kernel of a real
 * module image (a cubin, PTX), a host function registered under the
 * kernel's (mangled) name that computes exactly what the GPU computes, for
 * every thread of the grid.  The double runs a real kernel through its
 * twin; a kernel with no twin runs nothing (tcd_ext.h, NOT RUN).
 *
 * Free of cuda.h and of the double's state, so a unit test links it alone
 * and checks each twin against the real H100's memory before and after
 * each launch (tests/unit/test_tcd_twins.c).
 *
 * Device addresses: in the double they are host addresses and a twin
 * dereferences them directly (a wild one faults, and the double turns the
 * fault into CUDA_ERROR_ILLEGAL_ADDRESS).  A test gives the twin a
 * translation from captured device addresses to its host copies instead;
 * an address the translation does not know ends the twin with
 * TCD_TWIN_FAULT.
 */
#ifndef TCD_TWINS_H
#define TCD_TWINS_H

#include <stddef.h>
#include <stdint.h>

/* Internal to the double (and to the unit tests that link this file):
 * never exported from libcuda.so.1. */
#define TCD_TWIN_API __attribute__((visibility("hidden")))

/* Host pointer for `bytes` bytes at device address `addr`, or NULL when
 * they are not all inside one known allocation. */
typedef void *tcd_twin_translate_fn(void *ctx, uint64_t addr, size_t bytes);

struct tcd_twin_launch {
	unsigned grid[3];
	unsigned block[3];
	const unsigned char *params;  /* the packed parameter buffer (borrowed) */
	size_t param_bytes;
	tcd_twin_translate_fn *translate; /* NULL: addresses are host addresses */
	void *translate_ctx;
};

enum tcd_twin_result {
	TCD_TWIN_DONE = 0,
	TCD_TWIN_FAULT = 1,  /* an address outside every allocation */
	TCD_TWIN_PARAMS = 2, /* the parameter buffer is too small for the kernel */
	TCD_TWIN_TIMEOUT = 3, /* more than TCD_TWIN_MAX_THREADS threads: not run to the end */
};

/* The most threads (grid x block) one launch of a twin runs: a GPU runs
 * 2^31 blocks of 1024 threads in seconds, a host loop over them takes
 * hours, so a larger launch ends with TCD_TWIN_TIMEOUT (the double then
 * answers CUDA_ERROR_LAUNCH_TIMEOUT, the driver's error for a kernel that
 * ran too long). */
#define TCD_TWIN_MAX_THREADS ((uint64_t)1 << 28)

typedef enum tcd_twin_result tcd_twin_fn(const struct tcd_twin_launch *l);

struct tcd_twin {
	const char *name;     /* the kernel's symbol name, mangled as in the cubin */
	tcd_twin_fn *fn;
	uint32_t param_bytes; /* the real kernel's parameter buffer size */
};

/* The twin registered under `name`, or NULL. */
TCD_TWIN_API const struct tcd_twin *tcd_twin_find(const char *name);

/* Runs twin t for launch l: TCD_TWIN_PARAMS when l's buffer is smaller
 * than the kernel's, else what the twin returned. */
TCD_TWIN_API enum tcd_twin_result tcd_twin_run(const struct tcd_twin *t, const struct tcd_twin_launch *l);

#endif /* TCD_TWINS_H */
