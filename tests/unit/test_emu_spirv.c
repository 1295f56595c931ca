/*
 * test_emu_spirv.c - the descriptor bindings the emulator reads from
 * SPIR-V (emulator/emu_spirv.c), on a shader glslang compiled for this
 * project: vk_compute.comp declares a uniform block (read), a readonly
 * storage block (read) and a writeonly one (written through), each in set
 * 0.  Then the reader on 20,000 mutants of that module (words changed,
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
