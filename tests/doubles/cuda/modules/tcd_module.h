/*
 * tcd_module.h - the ABI between the libcuda test double and its "module
 * images".
 *
 * A module image is the bytes of a shared object built from
 * tests/doubles/cuda/modules/NAME.c.  The double writes those bytes to a
 * memfd, dlopens /proc/self/fd/N and looks up one symbol, tcd_module_table
 * (struct tcd_module_desc).  Its kernels are host functions that the double's
 * stream workers call; "device pointers" are host addresses that kernels
 * dereference directly.
 *
 * Parameters reach a kernel the way they reach a GPU kernel: packed into one
 * parameter buffer at the offsets the table declares (what cuFuncGetParamInfo
 * reports).  With kernelParams the double copies param i from kernelParams[i]
 * at launch time; with the `extra` form the caller's buffer is copied whole.
 * A kernel reads the buffer through the struct it was laid out from.
 */
#ifndef TCD_MODULE_H
#define TCD_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define TCD_MODULE_MAGIC 0x54434d44u /* "TCMD" */
#define TCD_MODULE_ABI 1u

/* One launch as a kernel sees it: the whole grid runs in one call. */
struct tcd_array_view;

struct tcd_kernel_launch {
	unsigned grid[3];
	unsigned block[3];
	unsigned shared_bytes;
	void *shared;          /* shared_bytes of zeroed scratch, reused per block by the kernel */
	const void *params;    /* the packed parameter buffer (borrowed for the call) */
	/* A kernel calls reach on each range of device memory before it
	 * touches it: unless [p, p + bytes) lies in memory of the double a
	 * kernel may reach, the kernel ends there as a wild access
	 * (CUDA_ERROR_ILLEGAL_ADDRESS, as on a GPU) and reach does not
	 * return; so a bad pointer never reaches the host's own memory. */
	void (*reach)(const void *p, uint64_t bytes);
	/* The array under a live texture or surface object (the handle a
	 * kernel got as a parameter): 0 and *out filled, or -1 when the
	 * object is not live or not over an array.  A kernel treats -1, and
	 * coordinates outside the view, as a wild access (reach(NULL, 1)). */
	int (*array_of)(unsigned long long object, struct tcd_array_view *out);
};

typedef void tcd_kernel_fn(const struct tcd_kernel_launch *launch);

/* A CUDA array as kernels of the double see it through a texture or
 * surface object (tcd_kernel_launch.array_of): elements row-major, rows
 * and slices packed (tests/doubles/cuda/tcd_array.c). */
struct tcd_array_view {
	unsigned char *base;
	uint32_t elem_bytes;
	uint64_t width, height, depth; /* elements, rows, slices: at least 1 */
	uint64_t row_bytes, slice_bytes;
};

struct tcd_param {
	uint32_t offset;
	uint32_t size;
};

struct tcd_kernel_desc {
	const char *name;
	tcd_kernel_fn *fn;
	uint32_t param_count;
	uint32_t param_bytes;           /* size of the packed buffer */
	const struct tcd_param *params; /* param_count entries, increasing offsets */
};

struct tcd_global_desc {
	const char *name;
	void *addr;
	size_t bytes;
};

struct tcd_module_desc {
	uint32_t magic;
	uint32_t abi;
	uint32_t kernel_count;
	uint32_t global_count;
	const struct tcd_kernel_desc *kernels;
	const struct tcd_global_desc *globals;
};

/* Layout helpers for a module: TCD_PARAM(struct saxpy_params, a). */
#define TCD_PARAM(type, field) { (uint32_t)offsetof(type, field), (uint32_t)sizeof(((type *)0)->field) }
#define TCD_KERNEL(name, fn, type, table) \
	{ name, fn, (uint32_t)(sizeof(table) / sizeof((table)[0])), (uint32_t)sizeof(type), table }

/* Total threads of a 1-D launch. */
static inline uint64_t tcd_launch_threads(const struct tcd_kernel_launch *l)
{
	return (uint64_t)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] * l->block[1] * l->block[2];
}

#endif
