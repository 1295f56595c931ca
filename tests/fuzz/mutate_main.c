/*
 * mutate_main - runs a fuzz target in-process on N mutants of its corpus,
 * without clang or libFuzzer (an ASan build, make asan, catches what they
 * do wrong): each mutant is a corpus file with 1 to 8 random edits (a byte
 * set to a random or boundary value, a bit flipped, a byte inserted or
 * removed, the tail cut, a run of bytes duplicated) that keep the first
 * byte (the parser it picks) and, for Vulkan inputs, the command.
 *
 * usage: mutate_main N SEED FILE...   prints the count and exits 0; a crash
 * or an abort of the target is the failure (the sanitizer names it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/tst.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t mm_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One edit of buf[0, *n) (room for cap bytes), past the first keep bytes. */
static void mm_edit(uint8_t *buf, size_t *n, size_t cap, size_t keep, uint64_t *s)
{
	static const uint8_t special[] = {0, 1, 2, 0x7f, 0x80, 0xff};
	size_t at;
	if (*n <= keep) {
		if (*n < cap)
			buf[(*n)++] = (uint8_t)mm_rand(s);
		return;
	}
	at = keep + (size_t)(mm_rand(s) % (*n - keep));
	switch (mm_rand(s) % 6) {
	case 0:
		buf[at] = special[mm_rand(s) % sizeof(special)];
		break;
	case 1:
		buf[at] ^= (uint8_t)(1u << (mm_rand(s) % 8));
		break;
	case 2:
		if (*n < cap) {
			memmove(buf + at + 1, buf + at, *n - at);
			buf[at] = (uint8_t)mm_rand(s);
			(*n)++;
		}
		break;
	case 3:
		memmove(buf + at, buf + at + 1, *n - at - 1);
		(*n)--;
		break;
	case 4:
		*n = at;
		break;
	default: {
		size_t len = 1 + (size_t)(mm_rand(s) % 8);
		if (at + len <= *n && *n + len <= cap) {
			memmove(buf + at + len, buf + at, *n - at);
			(*n) += len;
		}
		break;
	}
	}
}

int main(int argc, char **argv)
{
	unsigned long long n, seed;
	uint64_t s;
	uint8_t *buf;
	size_t cap = 1 << 16;
	int nfiles = argc - 3;
	unsigned char **files;
	size_t *lens;

	if (argc < 4 || sscanf(argv[1], "%llu", &n) != 1 || sscanf(argv[2], "%llu", &seed) != 1) {
		fprintf(stderr, "usage: mutate_main N SEED FILE...\n");
		return 2;
	}
	files = calloc((size_t)nfiles, sizeof(*files));
	lens = calloc((size_t)nfiles, sizeof(*lens));
	buf = malloc(cap);
	if (!files || !lens || !buf)
		return 1;
	for (int i = 0; i < nfiles; i++) {
		files[i] = tst_read_file(argv[3 + i], &lens[i]);
		if (!files[i] || lens[i] > cap / 2) {
			fprintf(stderr, "%s: cannot read, or too large\n", argv[3 + i]);
			return 1;
		}
	}
	s = seed;
	for (unsigned long long k = 0; k < n; k++) {
		int f = (int)(mm_rand(&s) % (uint64_t)nfiles);
		size_t len = lens[f], keep = len && (files[f][0] & 2) && !(files[f][0] & 1) ? 3 : 1;
		unsigned edits = 1 + (unsigned)(mm_rand(&s) % 8);
		memcpy(buf, files[f], len);
		while (edits--)
			mm_edit(buf, &len, cap, keep < len ? keep : len, &s);
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("%llu mutants of %d inputs: no crash\n", n, nfiles);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(lens);
	free(buf);
	return 0;
}
