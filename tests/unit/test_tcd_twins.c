/*
 * test_tcd_twins.c - the libcuda double's host twins (tcd_twins.c) against
 * the real H100.  For every launch in the as-captured traces saxpy_static
 * and driver_cubin (TRACESMITH_SNAPSHOT=launch: the GPU's memory before and
 * after each kernel; the first launch's "before" is the start keyframe,
 * sub SBT_CM_KF_START with the same launch ordinal), the twin registered under the launched kernel's name
 * runs on a copy of the memory before the launch, with the launch's own
 * grid, block and parameter bytes; device addresses in parameters and in
 * memory (gpu_chase's list) are translated to those copies.  The copies
 * must then equal the memory after the launch byte for byte.  Each launch's
 * recorded layout (the real driver's cuFuncGetParamInfo) must also equal
 * the layout tcd_image.c reads from the same kernel's image, and each twin
 * must expect that many parameter bytes.  Finally a twin given an address
 * outside every allocation reports a fault, and a short buffer is refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "tests/doubles/cuda/tcd_image.h"
#include "tests/doubles/cuda/tcd_twins.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define TCT_MAX_LAUNCHES 64

struct tct_alloc {
	uint64_t base;
	size_t size;
	unsigned char *bytes; /* owned */
};

struct tct_keyframe {
	size_t count;
	struct tct_alloc *allocs; /* owned */
};

struct tct_launch {
	int seen;
	char name[256];
	unsigned grid[3], block[3];
	unsigned char *params; /* owned */
	size_t params_len;
	uint32_t layout_off[64], layout_size[64];
	size_t layout_count;
};

struct tct_trace {
	struct tct_keyframe before[TCT_MAX_LAUNCHES + 1], after[TCT_MAX_LAUNCHES + 1];
	struct tct_launch launch[TCT_MAX_LAUNCHES + 1];
	size_t launches;
};

static const char *tct_top(void)
{
	const char *top = getenv("TOP");

	return top && *top ? top : ".";
}

static void tct_add_alloc(struct tct_keyframe *kf, uint64_t base, size_t size, unsigned char *bytes)
{
	struct tct_alloc *a = realloc(kf->allocs, (kf->count + 1) * sizeof(*a));

	TST_REQUIRE(a);
	kf->allocs = a;
	a[kf->count].base = base;
	a[kf->count].size = size;
	a[kf->count].bytes = bytes;
	kf->count++;
}

static int tct_is_launch(const char *type)
{
	return !strcmp(type, "cuda.cuLaunchKernel") || !strcmp(type, "cuda.cuLaunchKernelEx") ||
	       !strcmp(type, "cuda.cuLaunchCooperativeKernel");
}

static void tct_read(const char *name, struct tct_trace *t)
{
	char path[1024];
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_status s;
	struct tct_keyframe *cur = NULL;
	size_t cur_left = 0;

	snprintf(path, sizeof(path), "%s/tests/fixtures/h100/as-captured/%s", tct_top(), name);
	memset(t, 0, sizeof(*t));
	s = sbt_reader_open(path, NULL, &r);
	if (s != SBT_OK)
		fprintf(stderr, "cannot open %s: %s\n", path, r ? sbt_reader_message(r) : "");
	TST_REQUIRE(s == SBT_OK);
	while ((s = sbt_reader_next(r, &rec)) == SBT_OK) {
		const char *type = sbt_reader_type_name(r, rec.type);
		sbt_cm_call c;

		if (rec.type == SBT_TYPE_KEYFRAME) {
			TST_REQUIRE(sbt_cm_decode(rec.payload, rec.payload_len, &c) == SBT_OK);
			TST_REQUIRE(c.value <= TCT_MAX_LAUNCHES);
			/* The first launch's "before" is the trace's start keyframe. */
			if (c.sub == SBT_CM_KF_BEFORE_LAUNCH || c.sub == SBT_CM_KF_START)
				cur = &t->before[c.value];
			else if (c.sub == SBT_CM_KF_AFTER_LAUNCH)
				cur = &t->after[c.value];
			else
				cur = NULL;
			cur_left = cur ? (size_t)c.count : 0;
		} else if (!strcmp(type, "cuda.tsSnapshot")) {
			void *data = NULL;
			size_t len = 0;

			TST_REQUIRE(sbt_cm_decode(rec.payload, rec.payload_len, &c) == SBT_OK);
			if (!cur || !cur_left)
				continue;
			TST_REQUIRE(sbt_reader_blob_get(r, c.blob, &data, &len) == SBT_OK);
			TST_REQUIRE(len == c.size);
			tct_add_alloc(cur, c.dst, (size_t)c.size, data);
			cur_left--;
		} else if (tct_is_launch(type)) {
			struct tct_launch *l;

			TST_REQUIRE(sbt_cm_decode(rec.payload, rec.payload_len, &c) == SBT_OK);
			TST_REQUIRE(t->launches < TCT_MAX_LAUNCHES);
			l = &t->launch[++t->launches];
			l->seen = 1;
			TST_REQUIRE(c.name_len < sizeof(l->name));
			memcpy(l->name, c.name, c.name_len);
			l->grid[0] = (unsigned)c.grid_x;
			l->grid[1] = (unsigned)c.grid_y;
			l->grid[2] = (unsigned)c.grid_z;
			l->block[0] = (unsigned)c.block_x;
			l->block[1] = (unsigned)c.block_y;
			l->block[2] = (unsigned)c.block_z;
			l->params_len = c.params_len;
			l->params = malloc(c.params_len + 1);
			TST_REQUIRE(l->params);
			memcpy(l->params, c.params, c.params_len);
			l->layout_count = sbt_cm_layout_count(&c);
			TST_REQUIRE(l->layout_count <= 64);
			for (size_t i = 0; i < l->layout_count; i++)
				sbt_cm_layout_at(&c, i, &l->layout_off[i], &l->layout_size[i]);
		}
	}
	TST_REQUIRE(s == SBT_END);
	sbt_reader_close(r);
}

static void tct_free(struct tct_trace *t)
{
	for (size_t k = 0; k <= TCT_MAX_LAUNCHES; k++) {
		for (size_t i = 0; i < t->before[k].count; i++)
			free(t->before[k].allocs[i].bytes);
		for (size_t i = 0; i < t->after[k].count; i++)
			free(t->after[k].allocs[i].bytes);
		free(t->before[k].allocs);
		free(t->after[k].allocs);
		free(t->launch[k].params);
	}
}

/* Captured device address -> the test's copy of that allocation. */
static void *tct_translate(void *ctx, uint64_t addr, size_t bytes)
{
	const struct tct_keyframe *kf = ctx;

	for (size_t i = 0; i < kf->count; i++) {
		const struct tct_alloc *a = &kf->allocs[i];

		if (addr >= a->base && bytes <= a->size && addr - a->base <= a->size - bytes)
			return a->bytes + (addr - a->base);
	}
	return NULL;
}

static const struct tct_alloc *tct_find(const struct tct_keyframe *kf, uint64_t base)
{
	for (size_t i = 0; i < kf->count; i++)
		if (kf->allocs[i].base == base)
			return &kf->allocs[i];
	return NULL;
}

/* Runs every launch of the trace through its twin; returns how many matched. */
static size_t tct_check_trace(const char *name, const struct tcd_image *img, size_t want_launches)
{
	struct tct_trace *t = calloc(1, sizeof(*t));
	size_t matched = 0;

	TST_REQUIRE(t);
	tct_read(name, t);
	TST_CHECK_EQ_U64(t->launches, want_launches);
	for (size_t k = 1; k <= t->launches; k++) {
		const struct tct_launch *l = &t->launch[k];
		const struct tcd_twin *twin = tcd_twin_find(l->name);
		const struct tcd_image_kernel *ik = tcd_image_kernel_find(img, l->name);
		struct tct_keyframe *mem = &t->before[k];
		struct tcd_twin_launch tl;
		size_t changed = 0, differ = 0;

		if (!twin || !ik || !mem->count || !t->after[k].count) {
			fprintf(stderr, "%s launch %zu (%s): twin %p image kernel %p, %zu/%zu allocations before/after\n", name,
				k, l->name, (const void *)twin, (const void *)ik, mem->count, t->after[k].count);
			TST_CHECK(0);
			continue;
		}
		/* The driver's layout, the image's, and the twin's buffer agree. */
		TST_CHECK_EQ_U64(l->layout_count, ik->param_count);
		for (size_t i = 0; i < l->layout_count && i < ik->param_count; i++) {
			TST_CHECK_EQ_U64(l->layout_off[i], ik->params[i].offset);
			TST_CHECK_EQ_U64(l->layout_size[i], ik->params[i].size);
		}
		TST_CHECK_EQ_U64(twin->param_bytes, ik->param_bytes);
		TST_CHECK(l->params_len >= twin->param_bytes);

		/* Which allocations the GPU changed (so the test is not vacuous). */
		for (size_t i = 0; i < mem->count; i++) {
			const struct tct_alloc *after = tct_find(&t->after[k], mem->allocs[i].base);

			if (after && after->size == mem->allocs[i].size &&
			    memcmp(after->bytes, mem->allocs[i].bytes, after->size) != 0)
				changed++;
		}
		memset(&tl, 0, sizeof(tl));
		memcpy(tl.grid, l->grid, sizeof(tl.grid));
		memcpy(tl.block, l->block, sizeof(tl.block));
		tl.params = l->params;
		tl.param_bytes = l->params_len;
		tl.translate = tct_translate;
		tl.translate_ctx = mem;
		TST_CHECK_EQ_U64(tcd_twin_run(twin, &tl), TCD_TWIN_DONE);
		TST_CHECK_EQ_U64(mem->count, t->after[k].count);
		for (size_t i = 0; i < mem->count; i++) {
			const struct tct_alloc *a = &mem->allocs[i];
			const struct tct_alloc *after = tct_find(&t->after[k], a->base);

			TST_CHECK(after != NULL);
			if (!after)
				continue;
			TST_CHECK_EQ_U64(after->size, a->size);
			if (after->size == a->size && memcmp(after->bytes, a->bytes, a->size) != 0) {
				size_t at = 0;

				while (after->bytes[at] == a->bytes[at])
					at++;
				fprintf(stderr, "%s launch %zu (%s): allocation 0x%llx differs from the GPU's at byte %zu\n",
					name, k, l->name, (unsigned long long)a->base, at);
				differ++;
			}
		}
		TST_CHECK_EQ_U64(differ, 0);
		if (!differ)
			matched++;
		fprintf(stderr, "%s launch %zu: %s <<<%u,%u>>> equal to the H100's memory (%zu of %zu allocations changed)\n",
			name, k, l->name, l->grid[0], l->block[0], changed, mem->count);
	}
	tct_free(t);
	free(t);
	return matched;
}

static struct tcd_image *tct_image(const char *file)
{
	char path[1024];
	size_t len = 0;
	unsigned char *b;
	struct tcd_image *img = NULL;
	char why[256];

	snprintf(path, sizeof(path), "%s/tests/fixtures/h100/%s", tct_top(), file);
	b = tst_read_file(path, &len);
	TST_REQUIRE(b);
	if (tcd_image_parse(b, len, 90, &img, why, sizeof(why)) != TCD_IMAGE_OK)
		fprintf(stderr, "%s: %s\n", path, why);
	TST_REQUIRE(img);
	/* The image's kernels keep their own copies; only host code points into b. */
	TST_REQUIRE(img->code != TCD_IMAGE_CODE_HOST);
	free(b);
	return img;
}

/* A wild address ends a twin with TCD_TWIN_FAULT; a short buffer is refused. */
static void test_fault(void)
{
	const struct tcd_twin *chase = tcd_twin_find("gpu_chase");
	unsigned char params[20] = { 0 };
	uint64_t head = 0x7000, out = 0x9000;
	uint32_t max = 4;
	struct tct_alloc outa = { 0x9000, 16, NULL };
	unsigned char outb[16];
	struct tct_keyframe kf = { 1, &outa };
	struct tcd_twin_launch tl;

	outa.bytes = outb;
	TST_REQUIRE(chase);
	memcpy(params, &head, 8);
	memcpy(params + 8, &out, 8);
	memcpy(params + 16, &max, 4);
	memset(&tl, 0, sizeof(tl));
	tl.grid[0] = tl.grid[1] = tl.grid[2] = 1;
	tl.block[0] = tl.block[1] = tl.block[2] = 1;
	tl.params = params;
	tl.param_bytes = sizeof(params);
	tl.translate = tct_translate;
	tl.translate_ctx = &kf;
	TST_CHECK_EQ_U64(tcd_twin_run(chase, &tl), TCD_TWIN_FAULT);
	tl.param_bytes = 16;
	TST_CHECK_EQ_U64(tcd_twin_run(chase, &tl), TCD_TWIN_PARAMS);
	TST_CHECK(tcd_twin_find("no_such_kernel") == NULL);
	TST_CHECK(tcd_twin_find("_Z9gpu_emptyv") != NULL);
}

int main(void)
{
	struct tcd_image *cubin = tct_image("gpu_driver_kernels.cubin");
	struct tcd_image *saxpy = tct_image("gpu_saxpy.fatbin");

	/* gpu_saxpy: 8 x gpu_axpy then gpu_mix; gpu_driver_cubin: gpu_fill, gpu_chase. */
	TST_CHECK_EQ_U64(tct_check_trace("saxpy_static.sbt", saxpy, 9), 9);
	TST_CHECK_EQ_U64(tct_check_trace("driver_cubin.sbt", cubin, 2), 2);
	test_fault();
	tcd_image_free(cubin);
	tcd_image_free(saxpy);
	return tst_done();
}
