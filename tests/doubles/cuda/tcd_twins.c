/*
 * tcd_twins.c - host twins of the project's GPU test kernels
 * (tests/gpu/gpu_saxpy.cu, gpu_driver_kernels.cu, gpu_launch_loop.cu).
 *
 * Each twin runs every thread of grid x block in turn (blocks in x, y, z
 * order, threads likewise), computing what that thread computes in the .cu
 * source with the same 32-bit unsigned arithmetic: the thread index
 * blockIdx.x * blockDim.x + threadIdx.x wraps at 2^32 as it does there,
 * and threads with the same index (grids or blocks with y or z > 1) each
 * run, one after another, which is one of the orders a GPU may choose.
 * Parameters are read from the packed buffer at the offsets the real
 * driver reported for these kernels (the fixture traces' launch layouts).
 */
#include "tests/doubles/cuda/tcd_twins.h"

#include <string.h>

/* One thread's coordinates. */
struct tcd_twin_thread {
	uint32_t block[3];
	uint32_t thread[3];
};

static void *tcd_twin_at(const struct tcd_twin_launch *l, uint64_t addr, size_t bytes)
{
	if (!l->translate)
		return (void *)(uintptr_t)addr;
	return l->translate(l->translate_ctx, addr, bytes);
}

static uint32_t tcd_twin_param_u32(const struct tcd_twin_launch *l, size_t off)
{
	uint32_t v;

	memcpy(&v, l->params + off, sizeof(v));
	return v;
}

static uint64_t tcd_twin_param_u64(const struct tcd_twin_launch *l, size_t off)
{
	uint64_t v;

	memcpy(&v, l->params + off, sizeof(v));
	return v;
}

static int tcd_twin_load32(const struct tcd_twin_launch *l, uint64_t addr, uint32_t *v)
{
	const void *p = tcd_twin_at(l, addr, sizeof(*v));

	if (!p)
		return -1;
	memcpy(v, p, sizeof(*v));
	return 0;
}

static int tcd_twin_load64(const struct tcd_twin_launch *l, uint64_t addr, uint64_t *v)
{
	const void *p = tcd_twin_at(l, addr, sizeof(*v));

	if (!p)
		return -1;
	memcpy(v, p, sizeof(*v));
	return 0;
}

static int tcd_twin_store32(const struct tcd_twin_launch *l, uint64_t addr, uint32_t v)
{
	void *p = tcd_twin_at(l, addr, sizeof(v));

	if (!p)
		return -1;
	memcpy(p, &v, sizeof(v));
	return 0;
}

/* blockIdx.x * blockDim.x + threadIdx.x in 32-bit unsigned arithmetic. */
static uint32_t tcd_twin_index_x(const struct tcd_twin_launch *l, const struct tcd_twin_thread *t)
{
	return t->block[0] * (uint32_t)l->block[0] + t->thread[0];
}

typedef int tcd_twin_thread_fn(const struct tcd_twin_launch *l, const struct tcd_twin_thread *t);

/* Runs fn for every thread; stops at the first fault. */
static enum tcd_twin_result tcd_twin_each(const struct tcd_twin_launch *l, tcd_twin_thread_fn *fn)
{
	struct tcd_twin_thread t;
	uint64_t threads = 1;

	for (int d = 0; d < 3; d++)
		if (__builtin_mul_overflow(threads, (uint64_t)l->grid[d], &threads) ||
		    __builtin_mul_overflow(threads, (uint64_t)l->block[d], &threads))
			return TCD_TWIN_TIMEOUT;
	if (threads > TCD_TWIN_MAX_THREADS)
		return TCD_TWIN_TIMEOUT;
	for (t.block[2] = 0; t.block[2] < l->grid[2]; t.block[2]++)
		for (t.block[1] = 0; t.block[1] < l->grid[1]; t.block[1]++)
			for (t.block[0] = 0; t.block[0] < l->grid[0]; t.block[0]++)
				for (t.thread[2] = 0; t.thread[2] < l->block[2]; t.thread[2]++)
					for (t.thread[1] = 0; t.thread[1] < l->block[1]; t.thread[1]++)
						for (t.thread[0] = 0; t.thread[0] < l->block[0]; t.thread[0]++)
							if (fn(l, &t))
								return TCD_TWIN_FAULT;
	return TCD_TWIN_DONE;
}

/* gpu_axpy(unsigned a, const unsigned *x, unsigned *y, unsigned n):
 * a@0 x@8 y@16 n@24, 28 bytes.  if (i < n) y[i] = a * x[i] + y[i]; */
static int tcd_twin_axpy_thread(const struct tcd_twin_launch *l, const struct tcd_twin_thread *t)
{
	uint32_t i = tcd_twin_index_x(l, t), a = tcd_twin_param_u32(l, 0), n = tcd_twin_param_u32(l, 24);
	uint64_t x = tcd_twin_param_u64(l, 8), y = tcd_twin_param_u64(l, 16);
	uint32_t xv, yv;

	if (i >= n)
		return 0;
	if (tcd_twin_load32(l, x + 4ull * i, &xv) || tcd_twin_load32(l, y + 4ull * i, &yv))
		return -1;
	return tcd_twin_store32(l, y + 4ull * i, a * xv + yv);
}

static enum tcd_twin_result tcd_twin_axpy(const struct tcd_twin_launch *l)
{
	return tcd_twin_each(l, tcd_twin_axpy_thread);
}

/* gpu_mix(const unsigned *y, unsigned *z, unsigned n): y@0 z@8 n@16, 20
 * bytes.  if (i < n) z[i] = y[i] ^ (y[(i + 1) % n] >> 3); */
static int tcd_twin_mix_thread(const struct tcd_twin_launch *l, const struct tcd_twin_thread *t)
{
	uint32_t i = tcd_twin_index_x(l, t), n = tcd_twin_param_u32(l, 16);
	uint64_t y = tcd_twin_param_u64(l, 0), z = tcd_twin_param_u64(l, 8);
	uint32_t a, b;

	if (i >= n)
		return 0;
	if (tcd_twin_load32(l, y + 4ull * i, &a) || tcd_twin_load32(l, y + 4ull * ((i + 1u) % n), &b))
		return -1;
	return tcd_twin_store32(l, z + 4ull * i, a ^ (b >> 3));
}

static enum tcd_twin_result tcd_twin_mix(const struct tcd_twin_launch *l)
{
	return tcd_twin_each(l, tcd_twin_mix_thread);
}

/* gpu_fill(unsigned *p, unsigned value, unsigned n): p@0 value@8 n@12, 16
 * bytes.  if (i < n) p[i] = value + i * 7u; */
static int tcd_twin_fill_thread(const struct tcd_twin_launch *l, const struct tcd_twin_thread *t)
{
	uint32_t i = tcd_twin_index_x(l, t), value = tcd_twin_param_u32(l, 8), n = tcd_twin_param_u32(l, 12);
	uint64_t p = tcd_twin_param_u64(l, 0);

	if (i >= n)
		return 0;
	return tcd_twin_store32(l, p + 4ull * i, value + i * 7u);
}

static enum tcd_twin_result tcd_twin_fill(const struct tcd_twin_launch *l)
{
	return tcd_twin_each(l, tcd_twin_fill_thread);
}

/* gpu_chase(const gpu_node *head, unsigned *out, unsigned max): head@0
 * out@8 max@16, 20 bytes; a node is u64 next @0, u32 value @8.  Every
 * thread walks the list from head:
 *   for (i = 0; nd && i < max; i++) { out[i] = nd->value * 2654435761u + i; nd = nd->next; } */
static int tcd_twin_chase_thread(const struct tcd_twin_launch *l, const struct tcd_twin_thread *t)
{
	uint64_t nd = tcd_twin_param_u64(l, 0), out = tcd_twin_param_u64(l, 8);
	uint32_t max = tcd_twin_param_u32(l, 16);

	(void)t;
	for (uint32_t i = 0; nd && i < max; i++) {
		uint32_t value;

		if (tcd_twin_load32(l, nd + 8, &value) || tcd_twin_store32(l, out + 4ull * i, value * 2654435761u + i) ||
		    tcd_twin_load64(l, nd, &nd))
			return -1;
	}
	return 0;
}

static enum tcd_twin_result tcd_twin_chase(const struct tcd_twin_launch *l)
{
	return tcd_twin_each(l, tcd_twin_chase_thread);
}

/* gpu_empty(void) does nothing. */
static enum tcd_twin_result tcd_twin_empty(const struct tcd_twin_launch *l)
{
	(void)l;
	return TCD_TWIN_DONE;
}

static const struct tcd_twin tcd_twin_table[] = {
	{ "_Z8gpu_axpyjPKjPjj", tcd_twin_axpy, 28 },
	{ "_Z7gpu_mixPKjPjj", tcd_twin_mix, 20 },
	{ "gpu_fill", tcd_twin_fill, 16 },
	{ "gpu_chase", tcd_twin_chase, 20 },
	/* gpu_launch_loop.cu's kernel is C++ (mangled); the extern "C" name too. */
	{ "_Z9gpu_emptyv", tcd_twin_empty, 0 },
	{ "gpu_empty", tcd_twin_empty, 0 },
};

const struct tcd_twin *tcd_twin_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(tcd_twin_table) / sizeof(tcd_twin_table[0]); i++)
		if (!strcmp(tcd_twin_table[i].name, name))
			return &tcd_twin_table[i];
	return NULL;
}

enum tcd_twin_result tcd_twin_run(const struct tcd_twin *t, const struct tcd_twin_launch *l)
{
	if (l->param_bytes < t->param_bytes || (t->param_bytes && !l->params))
		return TCD_TWIN_PARAMS;
	return t->fn(l);
}
