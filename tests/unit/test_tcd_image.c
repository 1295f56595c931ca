/*
 * test_tcd_image.c - the libcuda double's reader of module images
 * (tests/doubles/cuda/tcd_image.c) on real images from the H100 fixtures:
 * the cubin gpu_driver_cubin loads and the fatbin cudart registered for
 * gpu_saxpy, and nvcc 13 fatbins whose every entry is zstd- or
 * LZ4-compressed (tests/fixtures/nvcc13).  It asserts the kernels and parameter layouts found (the ones
 * the real driver reported for the same kernels), the fatbin wrapper,
 * the architecture rule (sm_90 code runs, sm_80 or sm_100 code alone is
 * no binary for the GPU, PTX is taken for any), PTX layouts, and that
 * every truncation and many byte flips of both images are parsed without a
 * crash or a read past the image (each copy ends at a PROT_NONE page).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/doubles/cuda/tcd_image.h"
#include "tests/support/tst.h"

#define TCI_ARCH 90u

/* A buffer of `len` bytes that ends exactly at an inaccessible page. */
struct tci_fence {
	unsigned char *map;
	size_t map_len;
	unsigned char *p;
};

static void tci_fence_open(struct tci_fence *f, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (len + page - 1) / page * page;

	f->map_len = data + page;
	f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TST_REQUIRE(f->map != MAP_FAILED);
	TST_REQUIRE(mprotect(f->map + data, page, PROT_NONE) == 0);
	f->p = f->map + data - len;
}

static void tci_fence_close(struct tci_fence *f)
{
	munmap(f->map, f->map_len);
}

static unsigned char *tci_fixture(const char *name, size_t *len)
{
	const char *top = getenv("TOP");
	char path[1024];
	unsigned char *b;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top && *top ? top : ".", name);
	b = tst_read_file(path, len);
	if (!b)
		fprintf(stderr, "cannot read %s\n", path);
	TST_REQUIRE(b);
	return b;
}

static tcd_image_status tci_parse(const void *p, size_t len, struct tcd_image **out)
{
	char why[256];
	tcd_image_status s = tcd_image_parse(p, len, TCI_ARCH, out, why, sizeof(why));

	/* Every refusal says why. */
	if (s != TCD_IMAGE_OK)
		TST_CHECK(why[0] != 0);
	return s;
}

static void tci_check_kernel(const struct tcd_image *img, const char *name, uint32_t bytes, uint32_t n,
			     const uint32_t *offsets, const uint32_t *sizes)
{
	const struct tcd_image_kernel *k = tcd_image_kernel_find(img, name);

	TST_CHECK(k != NULL);
	if (!k) {
		fprintf(stderr, "  kernel %s not found\n", name);
		return;
	}
	TST_CHECK_EQ_U64(k->param_bytes, bytes);
	TST_CHECK_EQ_U64(k->param_count, n);
	for (uint32_t i = 0; i < n && i < k->param_count; i++) {
		TST_CHECK_EQ_U64(k->params[i].offset, offsets[i]);
		TST_CHECK_EQ_U64(k->params[i].size, sizes[i]);
	}
}

/* The layouts cuFuncGetParamInfo gave on the H100 (driver_cubin.sbt and
 * saxpy_static.sbt launch records). */
static void tci_check_driver_kernels(const struct tcd_image *img)
{
	static const uint32_t fill_off[] = { 0, 8, 12 }, fill_size[] = { 8, 4, 4 };
	static const uint32_t chase_off[] = { 0, 8, 16 }, chase_size[] = { 8, 8, 4 };

	TST_CHECK_EQ_U64(img->kernel_count, 2);
	tci_check_kernel(img, "gpu_fill", 16, 3, fill_off, fill_size);
	tci_check_kernel(img, "gpu_chase", 20, 3, chase_off, chase_size);
}

static void tci_check_saxpy_kernels(const struct tcd_image *img)
{
	static const uint32_t axpy_off[] = { 0, 8, 16, 24 }, axpy_size[] = { 4, 8, 8, 4 };
	static const uint32_t mix_off[] = { 0, 8, 16 }, mix_size[] = { 8, 8, 4 };

	TST_CHECK_EQ_U64(img->kernel_count, 2);
	tci_check_kernel(img, "_Z8gpu_axpyjPKjPjj", 28, 4, axpy_off, axpy_size);
	tci_check_kernel(img, "_Z7gpu_mixPKjPjj", 20, 3, mix_off, mix_size);
}

static void test_cubin(const unsigned char *cubin, size_t len)
{
	struct tcd_image *img = NULL;
	unsigned char *copy = malloc(len);

	TST_REQUIRE(tci_parse(cubin, len, &img) == TCD_IMAGE_OK);
	TST_CHECK_EQ_U64(img->code, TCD_IMAGE_CODE_CUBIN);
	TST_CHECK_EQ_U64(img->arch, 90);
	tci_check_driver_kernels(img);
	tcd_image_free(img);
	/* Its length comes from its headers when the caller does not know it. */
	TST_REQUIRE(tci_parse(cubin, SIZE_MAX, &img) == TCD_IMAGE_OK);
	tcd_image_free(img);

	/* e_flags bits 8..15 are the arch: sm_80 and sm_100 code is no binary for sm_90. */
	TST_REQUIRE(copy);
	memcpy(copy, cubin, len);
	copy[49] = 80;
	TST_CHECK_EQ_U64(tci_parse(copy, len, &img), TCD_IMAGE_NO_BINARY);
	copy[49] = 100;
	TST_CHECK_EQ_U64(tci_parse(copy, len, &img), TCD_IMAGE_NO_BINARY);
	free(copy);
}

static void test_fatbin(const unsigned char *fatbin, size_t len)
{
	struct tcd_image *img = NULL;
	unsigned char wrapper[24] = { 0xb1, 0x43, 0x62, 0x46, 1, 0, 0, 0 };
	uint64_t ptr = (uint64_t)(uintptr_t)fatbin;
	unsigned char *copy = malloc(len);
	size_t off;
	int elf_entries = 0;

	TST_REQUIRE(tci_parse(fatbin, len, &img) == TCD_IMAGE_OK);
	TST_CHECK_EQ_U64(img->code, TCD_IMAGE_CODE_CUBIN);
	TST_CHECK_EQ_U64(img->arch, 90);
	TST_CHECK(img->in_fatbin && !img->wrapped);
	tci_check_saxpy_kernels(img);
	tcd_image_free(img);

	/* cudart's wrapper (fact 5): the fatbin behind its pointer. */
	memcpy(wrapper + 8, &ptr, sizeof(ptr));
	TST_REQUIRE(tci_parse(wrapper, sizeof(wrapper), &img) == TCD_IMAGE_OK);
	TST_CHECK(img->wrapped && img->in_fatbin);
	tci_check_saxpy_kernels(img);
	tcd_image_free(img);
	memset(wrapper + 8, 0, 8);
	TST_CHECK_EQ_U64(tci_parse(wrapper, sizeof(wrapper), &img), TCD_IMAGE_INVALID);

	/* Every ELF entry made sm_80: PTX (if the fatbin has any) or no binary. */
	TST_REQUIRE(copy);
	memcpy(copy, fatbin, len);
	for (off = 16; off + 64 <= len;) {
		uint32_t ehs, arch = 80;
		uint64_t plen;

		memcpy(&ehs, copy + off + 4, 4);
		memcpy(&plen, copy + off + 8, 8);
		if (copy[off] == 2) {
			memcpy(copy + off + 28, &arch, 4);
			elf_entries++;
		}
		off += ehs + plen;
	}
	TST_CHECK(elf_entries > 0);
	{
		tcd_image_status s = tci_parse(copy, len, &img);

		TST_CHECK(s == TCD_IMAGE_NO_BINARY || (s == TCD_IMAGE_OK && img->code == TCD_IMAGE_CODE_PTX));
		if (s == TCD_IMAGE_OK) {
			tci_check_saxpy_kernels(img);
			tcd_image_free(img);
		}
	}
	free(copy);
}

static void test_ptx(void)
{
	static const char ptx[] =
		"//\n// Generated by hand\n//\n.version 9.0\n.target sm_90\n.address_size 64\n\n"
		".visible .entry k_one(\n"
		"\t.param .u32 k_one_param_0,\n"
		"\t.param .u64 .ptr .global .align 1 k_one_param_1,\n"
		"\t.param .align 16 .b8 k_one_param_2[24],\n"
		"\t.param .u8 k_one_param_3\n"
		")\n{\n\tret;\n}\n"
		"/* a comment .entry not_a_kernel( */\n"
		".entry k_two()\n{\n\tret;\n}\n";
	struct tcd_image *img = NULL;
	static const uint32_t one_off[] = { 0, 8, 16, 40 }, one_size[] = { 4, 8, 24, 1 };

	TST_REQUIRE(tci_parse(ptx, sizeof(ptx), &img) == TCD_IMAGE_OK);
	TST_CHECK_EQ_U64(img->code, TCD_IMAGE_CODE_PTX);
	TST_CHECK_EQ_U64(img->kernel_count, 2);
	tci_check_kernel(img, "k_one", 41, 4, one_off, one_size);
	tci_check_kernel(img, "k_two", 0, 0, NULL, NULL);
	tcd_image_free(img);
	TST_CHECK_EQ_U64(tci_parse(".version 9.0\n.entry broken(.param .u32", 38, &img), TCD_IMAGE_INVALID);
}

/* Cut at every length, then flip bytes: never a crash or an over-read, and
 * no cut image is accepted. */
static void test_damage(const char *what, const unsigned char *img, size_t len)
{
	static const unsigned char masks[] = { 0xff, 0x01, 0x80 };
	struct tci_fence f;
	struct tcd_image *out = NULL;
	size_t ok = 0, flips = 0;

	for (size_t n = 0; n < len; n++) {
		tci_fence_open(&f, n);
		memcpy(f.p, img, n);
		if (tci_parse(f.p, n, &out) == TCD_IMAGE_OK) {
			fprintf(stderr, "%s cut to %zu bytes was accepted\n", what, n);
			TST_CHECK(0);
			tcd_image_free(out);
		}
		tci_fence_close(&f);
	}
	tci_fence_open(&f, len);
	for (size_t i = 0; i < len; i++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			memcpy(f.p, img, len);
			f.p[i] ^= masks[m];
			flips++;
			if (tci_parse(f.p, len, &out) == TCD_IMAGE_OK) {
				ok++;
				tcd_image_free(out);
			}
		}
	}
	tci_fence_close(&f);
	fprintf(stderr, "%s: %zu cuts refused, %zu flips parsed (%zu still accepted)\n", what, len, flips, ok);
}

int main(void)
{
	size_t cubin_len = 0, fatbin_len = 0;
	unsigned char *cubin = tci_fixture("h100/gpu_driver_kernels.cubin", &cubin_len);
	unsigned char *fatbin = tci_fixture("h100/gpu_saxpy.fatbin", &fatbin_len);
	static const char *const packed[] = { "nvcc13/gpu_saxpy.zstd.fatbin", "nvcc13/gpu_saxpy.lz4.fatbin" };

	test_cubin(cubin, cubin_len);
	test_fatbin(fatbin, fatbin_len);
	test_ptx();
	test_damage("gpu_driver_kernels.cubin", cubin, cubin_len);
	test_damage("gpu_saxpy.fatbin", fatbin, fatbin_len);
	/* Every entry compressed (zstd, LZ4): the cubin inside is found all the same. */
	for (size_t i = 0; i < sizeof(packed) / sizeof(packed[0]); i++) {
		size_t len = 0;
		unsigned char *b = tci_fixture(packed[i], &len);
		struct tcd_image *img = NULL;

		TST_REQUIRE(tci_parse(b, len, &img) == TCD_IMAGE_OK);
		TST_CHECK_EQ_U64(img->code, TCD_IMAGE_CODE_CUBIN);
		TST_CHECK_EQ_U64(img->arch, 90);
		tci_check_saxpy_kernels(img);
		tcd_image_free(img);
		test_damage(packed[i], b, len);
		free(b);
	}
	TST_CHECK(strcmp(tcd_image_strerror(TCD_IMAGE_NO_BINARY), "no code for the device's architecture") == 0);
	free(cubin);
	free(fatbin);
	return tst_done();
}
