/*
 * kernels.c - the double's main module image: the kernels the CUDA test
 * programs launch.  Each is a host function over the whole grid; thread i of
 * a 1-D launch handles element i, so elements past grid*block are left alone,
 * as on a GPU.  The parameter structs are the kernels' device-side parameter
 * layout (what cuFuncGetParamInfo reports).
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "tests/doubles/cuda/modules/tcd_module.h"

#define KRN_EACH(l, n, i) for (uint64_t i = 0, i##_end = tcd_launch_threads(l); i < i##_end && i < (n); i++)

/* The elements KRN_EACH visits. */
static uint64_t krn_count(const struct tcd_kernel_launch *l, uint64_t n)
{
	uint64_t t = tcd_launch_threads(l);
	return t < n ? t : n;
}

/* Before touching count elements at p: a wild range ends the kernel
 * (tcd_kernel_launch.reach). */
#define KRN_REACH(l, p, count) (l)->reach((p), (count) * sizeof(*(p)))

/* saxpy: y = a * x + y */
struct krn_saxpy_params {
	float a;
	const float *x;
	float *y;
	uint32_t n;
};
static const struct tcd_param krn_saxpy_layout[] = {
	TCD_PARAM(struct krn_saxpy_params, a), TCD_PARAM(struct krn_saxpy_params, x),
	TCD_PARAM(struct krn_saxpy_params, y), TCD_PARAM(struct krn_saxpy_params, n),
};
static void krn_saxpy(const struct tcd_kernel_launch *l)
{
	const struct krn_saxpy_params *p = l->params;

	KRN_REACH(l, p->x, krn_count(l, p->n));
	KRN_REACH(l, p->y, krn_count(l, p->n));
	KRN_EACH(l, p->n, i)
		p->y[i] = p->a * p->x[i] + p->y[i];
}

/* fill: p[i] = value + i * stride */
struct krn_fill_params {
	uint32_t *p;
	uint32_t value;
	uint32_t stride;
	uint32_t n;
};
static const struct tcd_param krn_fill_layout[] = {
	TCD_PARAM(struct krn_fill_params, p), TCD_PARAM(struct krn_fill_params, value),
	TCD_PARAM(struct krn_fill_params, stride), TCD_PARAM(struct krn_fill_params, n),
};
static void krn_fill(const struct tcd_kernel_launch *l)
{
	const struct krn_fill_params *p = l->params;

	KRN_REACH(l, p->p, krn_count(l, p->n));
	/* Each word stored whole, with release order: a program may set a flag
	 * with fill that another stream's cuStreamWaitValue32 polls while the
	 * kernel runs (cuda_stream_memop --kernel-write), as a GPU's word store
	 * is seen whole; the wait's acquire load (tcd_sched.c) then orders what
	 * this stream did before after it, as the GPU's flush at the kernel's end. */
	KRN_EACH(l, p->n, i)
		__atomic_store_n(&p->p[i], p->value + (uint32_t)i * p->stride, __ATOMIC_RELEASE);
}

/* vadd: c = a + b (unsigned, so results are exact) */
struct krn_vadd_params {
	const uint32_t *a;
	const uint32_t *b;
	uint32_t *c;
	uint32_t n;
};
static const struct tcd_param krn_vadd_layout[] = {
	TCD_PARAM(struct krn_vadd_params, a), TCD_PARAM(struct krn_vadd_params, b),
	TCD_PARAM(struct krn_vadd_params, c), TCD_PARAM(struct krn_vadd_params, n),
};
static void krn_vadd(const struct tcd_kernel_launch *l)
{
	const struct krn_vadd_params *p = l->params;

	KRN_REACH(l, p->a, krn_count(l, p->n));
	KRN_REACH(l, p->b, krn_count(l, p->n));
	KRN_REACH(l, p->c, krn_count(l, p->n));
	KRN_EACH(l, p->n, i)
		p->c[i] = p->a[i] + p->b[i];
}

/* reduce: out[block] = sum of the block's elements, through shared memory
 * (blockDim.x words of it), as a GPU reduction would. */
struct krn_reduce_params {
	const uint32_t *in;
	uint64_t *out;
	uint32_t n;
};
static const struct tcd_param krn_reduce_layout[] = {
	TCD_PARAM(struct krn_reduce_params, in), TCD_PARAM(struct krn_reduce_params, out),
	TCD_PARAM(struct krn_reduce_params, n),
};
static void krn_reduce(const struct tcd_kernel_launch *l)
{
	const struct krn_reduce_params *p = l->params;
	uint64_t *sh = l->shared;
	unsigned bd = l->block[0];

	if (!sh || l->shared_bytes < bd * sizeof(uint64_t))
		return; /* a launch without enough shared memory computes nothing */
	KRN_REACH(l, p->in, p->n < (uint64_t)l->grid[0] * bd ? p->n : (uint64_t)l->grid[0] * bd);
	KRN_REACH(l, p->out, (uint64_t)l->grid[0]);
	for (unsigned b = 0; b < l->grid[0]; b++) {
		for (unsigned t = 0; t < bd; t++) {
			uint64_t i = (uint64_t)b * bd + t;
			sh[t] = i < p->n ? p->in[i] : 0;
		}
		if (bd & (bd - 1)) { /* not a power of two: no tree */
			for (unsigned t = 1; t < bd; t++)
				sh[0] += sh[t];
		} else {
			for (unsigned s = bd / 2; s; s /= 2)
				for (unsigned t = 0; t < s; t++)
					sh[t] += sh[t + s];
		}
		p->out[b] = sh[0];
	}
}

/* chase: follow a list whose nodes hold device pointers to the next node,
 * writing each value; the pointers live in device memory, so replay must
 * put the nodes back at their captured addresses. */
struct krn_node {
	uint64_t next; /* device address of the next node, 0 at the end */
	uint32_t value;
	uint32_t pad;
};
struct krn_chase_params {
	const struct krn_node *head;
	uint32_t *out;
	uint32_t max;
};
static const struct tcd_param krn_chase_layout[] = {
	TCD_PARAM(struct krn_chase_params, head), TCD_PARAM(struct krn_chase_params, out),
	TCD_PARAM(struct krn_chase_params, max),
};
static void krn_chase(const struct tcd_kernel_launch *l)
{
	const struct krn_chase_params *p = l->params;
	const struct krn_node *n = p->head;

	for (uint32_t i = 0; n && i < p->max; i++) {
		KRN_REACH(l, &n->value, 1);
		KRN_REACH(l, &p->out[i], 1);
		p->out[i] = n->value * 2654435761u + i;
		KRN_REACH(l, &n->next, 1);
		n = (const struct krn_node *)(uintptr_t)n->next;
	}
}

/* The racy pair: two updates that do not commute, so their order shows. */
struct krn_racy_params {
	uint32_t *x;
	uint32_t k;
	uint32_t n;
};
static const struct tcd_param krn_racy_layout[] = {
	TCD_PARAM(struct krn_racy_params, x), TCD_PARAM(struct krn_racy_params, k),
	TCD_PARAM(struct krn_racy_params, n),
};
static void krn_racy_scale(const struct tcd_kernel_launch *l)
{
	const struct krn_racy_params *p = l->params;

	KRN_REACH(l, p->x, krn_count(l, p->n));
	KRN_EACH(l, p->n, i)
		p->x[i] = p->x[i] * p->k + (uint32_t)i;
}
static void krn_racy_xor(const struct tcd_kernel_launch *l)
{
	const struct krn_racy_params *p = l->params;

	KRN_REACH(l, p->x, krn_count(l, p->n));
	KRN_EACH(l, p->n, i)
		p->x[i] = (p->x[i] ^ p->k) + 1;
}

/* scale_by_table: x[i] = x[i] * krn_table[i % 16] + krn_bias (module globals
 * that the program sets through cuModuleGetGlobal). */
static uint32_t krn_table[16];
static uint32_t krn_bias;
struct krn_scale_params {
	uint32_t *x;
	uint32_t n;
};
static const struct tcd_param krn_scale_layout[] = {
	TCD_PARAM(struct krn_scale_params, x), TCD_PARAM(struct krn_scale_params, n),
};
static void krn_scale_by_table(const struct tcd_kernel_launch *l)
{
	const struct krn_scale_params *p = l->params;

	KRN_REACH(l, p->x, krn_count(l, p->n));
	KRN_EACH(l, p->n, i)
		p->x[i] = p->x[i] * krn_table[i % 16] + krn_bias;
}

/* array_read and surf_inc: thread i takes element (x, y, z) = (i % w,
 * i / w % h, i / (w * h)) of the 32-bit-element array under the texture
 * or surface object obj (a point fetch by integer coordinates) and writes
 * out[i] = element * 3 + add; surf_inc also stores element + 1 back
 * through the surface.  An object not over a live array, an element that
 * is not 4 bytes, or a coordinate outside the array is a wild access. */
struct krn_array_params {
	unsigned long long obj;
	uint32_t *out;
	uint32_t w, h, d;
	uint32_t add;
};
static const struct tcd_param krn_array_layout[] = {
	TCD_PARAM(struct krn_array_params, obj), TCD_PARAM(struct krn_array_params, out),
	TCD_PARAM(struct krn_array_params, w),   TCD_PARAM(struct krn_array_params, h),
	TCD_PARAM(struct krn_array_params, d),   TCD_PARAM(struct krn_array_params, add),
};
static void krn_array_run(const struct tcd_kernel_launch *l, int store)
{
	const struct krn_array_params *p = l->params;
	uint64_t n = (uint64_t)p->w * p->h * p->d;
	struct tcd_array_view v;

	if (l->array_of(p->obj, &v) != 0 || v.elem_bytes != 4 || p->w > v.width || p->h > v.height ||
	    p->d > v.depth)
		l->reach(NULL, 1);
	KRN_REACH(l, p->out, krn_count(l, n));
	KRN_EACH(l, n, i) {
		uint64_t x = i % p->w, y = i / p->w % p->h, z = i / ((uint64_t)p->w * p->h);
		unsigned char *at = v.base + z * v.slice_bytes + y * v.row_bytes + x * 4;
		uint32_t e;
		memcpy(&e, at, 4);
		p->out[i] = e * 3 + p->add;
		if (store) {
			e += 1;
			memcpy(at, &e, 4);
		}
	}
}
static void krn_array_read(const struct tcd_kernel_launch *l)
{
	krn_array_run(l, 0);
}
static void krn_surf_inc(const struct tcd_kernel_launch *l)
{
	krn_array_run(l, 1);
}

/* array_read_s: array_read with its object and output pointer inside a
 * by-value struct (one 16-byte parameter, as nvcc lays out such a struct
 * and the driver's parameter info reports it). */
struct krn_array_s_params {
	struct {
		unsigned long long obj;
		uint32_t *out;
	} desc;
	uint32_t w, h, d;
	uint32_t add;
};
static const struct tcd_param krn_array_s_layout[] = {
	TCD_PARAM(struct krn_array_s_params, desc), TCD_PARAM(struct krn_array_s_params, w),
	TCD_PARAM(struct krn_array_s_params, h),    TCD_PARAM(struct krn_array_s_params, d),
	TCD_PARAM(struct krn_array_s_params, add),
};
static void krn_array_read_s(const struct tcd_kernel_launch *l)
{
	const struct krn_array_s_params *p = l->params;
	struct krn_array_params flat = { p->desc.obj, p->desc.out, p->w, p->h, p->d, p->add };
	struct tcd_kernel_launch fl = *l;

	fl.params = &flat;
	krn_array_run(&fl, 0);
}

/* wait_flag: spin until the 32-bit word at flag is not 0, then write 1
 * to done: a consumer waiting for a producer on another stream, the shape
 * of a GPU kernel that never finishes when the producer's work is gone
 * (a replay's wait bound is tested with it).  The flag is read with
 * acquire loads, as a GPU's volatile load sees another stream's store. */
struct krn_wait_params {
	uint32_t *flag;
	uint32_t *done;
};
static const struct tcd_param krn_wait_layout[] = {
	TCD_PARAM(struct krn_wait_params, flag), TCD_PARAM(struct krn_wait_params, done),
};
static void krn_wait_flag(const struct tcd_kernel_launch *l)
{
	const struct krn_wait_params *p = l->params;

	KRN_REACH(l, p->flag, 1);
	KRN_REACH(l, p->done, 1);
	while (!__atomic_load_n(p->flag, __ATOMIC_ACQUIRE))
		sched_yield();
	*p->done = 1;
}

static void krn_empty(const struct tcd_kernel_launch *l)
{
	(void)l;
}

static const struct tcd_kernel_desc krn_kernels[] = {
	TCD_KERNEL("saxpy", krn_saxpy, struct krn_saxpy_params, krn_saxpy_layout),
	TCD_KERNEL("fill", krn_fill, struct krn_fill_params, krn_fill_layout),
	TCD_KERNEL("vadd", krn_vadd, struct krn_vadd_params, krn_vadd_layout),
	TCD_KERNEL("reduce", krn_reduce, struct krn_reduce_params, krn_reduce_layout),
	TCD_KERNEL("chase", krn_chase, struct krn_chase_params, krn_chase_layout),
	TCD_KERNEL("racy_scale", krn_racy_scale, struct krn_racy_params, krn_racy_layout),
	TCD_KERNEL("racy_xor", krn_racy_xor, struct krn_racy_params, krn_racy_layout),
	TCD_KERNEL("scale_by_table", krn_scale_by_table, struct krn_scale_params, krn_scale_layout),
	TCD_KERNEL("array_read", krn_array_read, struct krn_array_params, krn_array_layout),
	TCD_KERNEL("surf_inc", krn_surf_inc, struct krn_array_params, krn_array_layout),
	TCD_KERNEL("array_read_s", krn_array_read_s, struct krn_array_s_params, krn_array_s_layout),
	TCD_KERNEL("wait_flag", krn_wait_flag, struct krn_wait_params, krn_wait_layout),
	{ "empty", krn_empty, 0, 0, NULL },
};

static const struct tcd_global_desc krn_globals[] = {
	{ "table", krn_table, sizeof(krn_table) },
	{ "bias", &krn_bias, sizeof(krn_bias) },
};

const struct tcd_module_desc tcd_module_table = {
	TCD_MODULE_MAGIC,
	TCD_MODULE_ABI,
	sizeof(krn_kernels) / sizeof(krn_kernels[0]),
	sizeof(krn_globals) / sizeof(krn_globals[0]),
	krn_kernels,
	krn_globals,
};
