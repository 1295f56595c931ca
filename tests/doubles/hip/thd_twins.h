/*
 * thd_twins.h - host twins of the project's HIP test kernels
 * (the .hip files of tests/hip): for a kernel of a real hipcc code object, a host
 * function registered under the kernel's mangled name that computes what
 * the GPU computes, for every thread of the grid.  A kernel with no twin
 * runs nothing (thd_ext.h).
 *
 * A twin reads its arguments from the kernarg bytes at the offsets the
 * code object's metadata gives (checked against the launch's length), and
 * reaches device memory only through thd_twin_mem, which answers NULL for
 * bytes outside every allocation: the twin then ends with THD_TWIN_FAULT,
 * which the double reports as hipErrorIllegalAddress.
 */
#ifndef THD_TWINS_H
#define THD_TWINS_H

#include <stddef.h>
#include <stdint.h>

struct ihipModule_t;

typedef struct thd_twin_launch {
	unsigned grid[3], block[3];
	const uint8_t *args; /* kernarg bytes (borrowed) */
	size_t args_len;
	struct ihipModule_t *mod; /* for the kernel's globals */
} thd_twin_launch;

/* The most threads (grid x block) one launch of a twin runs. */
#define THD_TWIN_MAX_THREADS ((uint64_t)1 << 28)

enum thd_twin_result { THD_TWIN_DONE = 0, THD_TWIN_FAULT = 1, THD_TWIN_PARAMS = 2 };

typedef enum thd_twin_result thd_twin_fn(const thd_twin_launch *l);

typedef struct thd_twin {
	const char *name;   /* mangled, as in the code object's metadata */
	thd_twin_fn *fn;
	uint32_t args_size; /* bytes of explicit arguments the twin reads */
} thd_twin;

__attribute__((visibility("hidden"))) const thd_twin *thd_twin_find(const char *name);

#endif /* THD_TWINS_H */
