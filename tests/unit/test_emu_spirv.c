/*
 * test_emu_spirv.c - the descriptor bindings the emulator reads from
 * SPIR-V (emulator/emu_spirv.c), on a shader glslang compiled for this
 * project: vk_compute.comp declares a uniform block (read), a readonly
 * storage block (read) and a writeonly one (written through), each in set
 * 0; a module of EMU_SPV_BINDINGS_MAX bindings is read, one of more is
 * not (a hostile count).  Then the reader on 20,000 mutants of that module (words changed,
 * flipped, cut short): each answer is "not read" or a list of bindings,
 * never a crash (the sanitizer builds run this too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_spirv.h"
#include "tests/support/tst.h"

static uint32_t *load(const char *path, size_t *words)
{
	FILE *f = fopen(path, "rb");
	uint32_t *w;
	long n;

	TST_REQUIRE(f != NULL);
	TST_REQUIRE(fseek(f, 0, SEEK_END) == 0);
	n = ftell(f);
	TST_REQUIRE(n > 20 && n % 4 == 0);
	rewind(f);
	w = malloc((size_t)n);
	TST_REQUIRE(w != NULL);
	TST_REQUIRE(fread(w, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*words = (size_t)n / 4;
	return w;
}

/* A module of n storage block variables, each at set 0 and a binding of
 * its own (w: room for 5 + 12 * n + 16 words). */
static size_t many(uint32_t *w, uint32_t n)
{
	size_t k = 0;

	w[k++] = 0x07230203, w[k++] = 0x00010300, w[k++] = 0, w[k++] = 4 + n, w[k++] = 0;
	for (uint32_t i = 0; i < n; i++) {
		w[k++] = (4u << 16) | 71, w[k++] = 4 + i, w[k++] = 34, w[k++] = 0; /* DescriptorSet 0 */
		w[k++] = (4u << 16) | 71, w[k++] = 4 + i, w[k++] = 33, w[k++] = i; /* Binding i */
	}
	w[k++] = (4u << 16) | 21, w[k++] = 1, w[k++] = 32, w[k++] = 0; /* uint */
	w[k++] = (3u << 16) | 30, w[k++] = 2, w[k++] = 1;              /* struct { uint } */
	w[k++] = (4u << 16) | 32, w[k++] = 3, w[k++] = 12, w[k++] = 2; /* StorageBuffer pointer */
	for (uint32_t i = 0; i < n; i++)
		w[k++] = (4u << 16) | 59, w[k++] = 3, w[k++] = 4 + i, w[k++] = 12;
	return k;
}

static const emu_spv_binding *find(const emu_spv_binding *v, size_t n, uint32_t set, uint32_t binding)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].set == set && v[i].binding == binding)
			return &v[i];
	return NULL;
}

int main(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[4096];
	uint32_t *code, *m;
	size_t words, n;
	emu_spv_binding *v;
	const emu_spv_binding *x;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned answered = 0;

	snprintf(path, sizeof(path), "%s/tests/shaders/vk_compute.comp.spv", build);
	code = load(path, &words);
	TST_REQUIRE(emu_spv_bindings(code, words, &v, &n) == 0);
	TST_CHECK_EQ_U64(n, 3);
	TST_CHECK((x = find(v, n, 0, 0)) != NULL && !x->writes); /* uniform Params */
	TST_CHECK((x = find(v, n, 0, 1)) != NULL && !x->writes); /* readonly buffer Inputs */
	TST_CHECK((x = find(v, n, 0, 2)) != NULL && x->writes);  /* writeonly buffer Outputs */
	free(v);

	/* another byte order, a cut header: not read */
	m = malloc(words * 4);
	TST_REQUIRE(m != NULL);
	memcpy(m, code, words * 4);
	m[0] = 0x03022307;
	TST_CHECK(emu_spv_bindings(m, words, &v, &n) == -1 && v == NULL && n == 0);
	TST_CHECK(emu_spv_bindings(code, 4, &v, &n) == -1);
	TST_CHECK(emu_spv_bindings(NULL, 0, &v, &n) == -1);

	/* as many bindings as are read, and one more: not read */
	{
		uint32_t *w = malloc((5 + 12 * (size_t)(EMU_SPV_BINDINGS_MAX + 1) + 16) * 4);
		size_t nw;

		TST_REQUIRE(w != NULL);
		nw = many(w, EMU_SPV_BINDINGS_MAX);
		TST_CHECK(emu_spv_bindings(w, nw, &v, &n) == 0);
		TST_CHECK_EQ_U64(n, EMU_SPV_BINDINGS_MAX);
		TST_CHECK(n && v[n - 1].writes);
		free(v);
		nw = many(w, EMU_SPV_BINDINGS_MAX + 1);
		TST_CHECK(emu_spv_bindings(w, nw, &v, &n) == -1 && v == NULL);
		free(w);
	}

	for (int i = 0; i < 20000; i++) {
		size_t len = words;

		memcpy(m, code, words * 4);
		for (int k = 0; k < 1 + i % 4; k++) {
			size_t at;
			uint32_t r;

			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			at = 1 + (size_t)(rng % (words - 1));
			r = (uint32_t)(rng >> 32);
			switch (r % 4) {
			case 0: m[at] = r; break;                           /* any word */
			case 1: m[at] ^= 1u << (r >> 8) % 32; break;        /* a bit */
			case 2: m[at] = (m[at] & 0xffff) | (r & 0xffff0000); break; /* a word count */
			default: len = at; break;                           /* cut short */
			}
		}
		if (emu_spv_bindings(m, len, &v, &n) == 0)
			answered++;
		else
			TST_CHECK(v == NULL && n == 0);
		free(v);
	}
	printf("mutants: %u of 20000 read, the rest refused\n", answered);
	free(m);
	free(code);
	return tst_done();
}
