/*
 * thd_twins.c - the twins of tests/hip's kernels (thd_twins.h).  Argument
 * offsets are those of the kernels' metadata in the hipcc code objects
 * (tsinfo / hip_reader_check print them); each twin loops over every
 * thread of the grid as the kernel's source says.
 */
#include "tests/doubles/hip/thd_twins.h"
#include "tests/doubles/hip/thd.h"

#include <string.h>

/* Host pointer for n elements of size sz at device address a; NULL when
 * they are not inside one allocation. */
static void *thd_twin_mem(uint64_t a, uint64_t n, size_t sz)
{
	if (n && sz && n > UINT64_MAX / sz)
		return NULL;
	return thd_mem_at(a, n * sz);
}

#define THD_ARG(l, type, off, out) memcpy(&(out), (l)->args + (off), sizeof(type))

static uint64_t thd_twin_threads(const thd_twin_launch *l)
{
	return (uint64_t)l->grid[0] * l->block[0];
}

/* saxpy(int n, float a, const float *x, float *y): args 0+4, 4+4, 8+8, 16+8 */
static enum thd_twin_result thd_twin_saxpy(const thd_twin_launch *l)
{
	int n;
	float a;
	uint64_t x, y;
	float *px, *py;

	THD_ARG(l, int, 0, n);
	THD_ARG(l, float, 4, a);
	THD_ARG(l, uint64_t, 8, x);
	THD_ARG(l, uint64_t, 16, y);
	if (n <= 0)
		return THD_TWIN_DONE;
	for (uint64_t i = 0; i < thd_twin_threads(l) && i < (uint64_t)n; i++) {
		if (!(px = thd_twin_mem(x + i * 4, 1, 4)) || !(py = thd_twin_mem(y + i * 4, 1, 4)))
			return THD_TWIN_FAULT;
		*py = a * *px + *py;
	}
	return THD_TWIN_DONE;
}

/* fill(double *p, double v, int n): 0+8, 8+8, 16+4 */
static enum thd_twin_result thd_twin_fill(const thd_twin_launch *l)
{
	uint64_t p;
	double v;
	int n;
	double *pp;

	THD_ARG(l, uint64_t, 0, p);
	THD_ARG(l, double, 8, v);
	THD_ARG(l, int, 16, n);
	for (uint64_t i = 0; i < thd_twin_threads(l) && (int64_t)i < n; i++) {
		if (!(pp = thd_twin_mem(p + i * 8, 1, 8)))
			return THD_TWIN_FAULT;
		*pp = v;
	}
	return THD_TWIN_DONE;
}

/* axpy_struct(struct axpy_args {const double *x; double *y; double a; int n;}, int bias):
 * the struct 0+32 (x at 0, y at 8, a at 16, n at 24), bias 32+4; thread 0
 * also increments the global launches_seen. */
static enum thd_twin_result thd_twin_axpy_struct(const thd_twin_launch *l)
{
	uint64_t x, y;
	double a;
	int n, bias;
	double *px, *py;
	thd_global *seen = thd_module_global(l->mod, "launches_seen");

	THD_ARG(l, uint64_t, 0, x);
	THD_ARG(l, uint64_t, 8, y);
	THD_ARG(l, double, 16, a);
	THD_ARG(l, int, 24, n);
	THD_ARG(l, int, 32, bias);
	for (uint64_t i = 0; i < thd_twin_threads(l); i++) {
		if ((int64_t)i < n) {
			if (!(px = thd_twin_mem(x + i * 8, 1, 8)) || !(py = thd_twin_mem(y + i * 8, 1, 8)))
				return THD_TWIN_FAULT;
			*py = a * *px + *py + bias;
		}
		if (i == 0) {
			int v;
			if (!seen || seen->size < sizeof(int))
				return THD_TWIN_FAULT;
			memcpy(&v, seen->bytes, sizeof(v));
			v++;
			memcpy(seen->bytes, &v, sizeof(v));
		}
	}
	return THD_TWIN_DONE;
}

/* scale(float *p, int n) (C linkage): p[i] *= the global scale_factor. */
static enum thd_twin_result thd_twin_scale(const thd_twin_launch *l)
{
	uint64_t p;
	int n;
	float f, *pp;
	thd_global *g = thd_module_global(l->mod, "scale_factor");

	THD_ARG(l, uint64_t, 0, p);
	THD_ARG(l, int, 8, n);
	if (!g || g->size < sizeof(float))
		return THD_TWIN_FAULT;
	memcpy(&f, g->bytes, sizeof(f));
	for (uint64_t i = 0; i < thd_twin_threads(l) && (int64_t)i < n; i++) {
		if (!(pp = thd_twin_mem(p + i * 4, 1, 4)))
			return THD_TWIN_FAULT;
		*pp *= f;
	}
	return THD_TWIN_DONE;
}

/* add_offset(float *p, float off, int n): 0+8, 8+4, 12+4 */
static enum thd_twin_result thd_twin_add_offset(const thd_twin_launch *l)
{
	uint64_t p;
	float off, *pp;
	int n;

	THD_ARG(l, uint64_t, 0, p);
	THD_ARG(l, float, 8, off);
	THD_ARG(l, int, 12, n);
	for (uint64_t i = 0; i < thd_twin_threads(l) && (int64_t)i < n; i++) {
		if (!(pp = thd_twin_mem(p + i * 4, 1, 4)))
			return THD_TWIN_FAULT;
		*pp += off;
	}
	return THD_TWIN_DONE;
}

/* poke(float *p, long long index, float v) (hip_graph.hip): p[index] = v,
 * one thread; an index outside the allocation is the wild access the
 * tests use. */
static enum thd_twin_result thd_twin_poke(const thd_twin_launch *l)
{
	uint64_t p;
	int64_t index;
	float v, *pp;

	THD_ARG(l, uint64_t, 0, p);
	THD_ARG(l, int64_t, 8, index);
	THD_ARG(l, float, 16, v);
	if (!(pp = thd_twin_mem(p + (uint64_t)index * 4, 1, 4)))
		return THD_TWIN_FAULT;
	*pp = v;
	return THD_TWIN_DONE;
}

static const thd_twin thd_twins[] = {
	{"_Z5saxpyifPKfPf", thd_twin_saxpy, 24},
	{"_Z4fillPddi", thd_twin_fill, 20},
	{"_Z11axpy_struct9axpy_argsi", thd_twin_axpy_struct, 36},
	{"scale", thd_twin_scale, 12},
	{"_Z10add_offsetPffi", thd_twin_add_offset, 16},
	{"_Z4pokePfxf", thd_twin_poke, 20},
};

const thd_twin *thd_twin_find(const char *name)
{
	for (size_t i = 0; i < sizeof(thd_twins) / sizeof(thd_twins[0]); i++)
		if (strcmp(thd_twins[i].name, name) == 0)
			return &thd_twins[i];
	return NULL;
}
