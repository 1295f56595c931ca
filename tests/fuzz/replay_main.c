/*
 * replay_main - runs the fuzz target on each file named on the command line,
 * so that `make test` replays the committed corpus (and any crash input a
 * fuzzing run saved) without clang or libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *fzr_read(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto out_close;
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
		goto out_close;
	}
	*len_out = (size_t)n;
out_close:
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	int i, bad = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		size_t len = 0;
		unsigned char *buf = fzr_read(argv[i], &len);
		if (!buf) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			bad = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		printf("%s: %zu bytes ok\n", argv[i], len);
	}
	return bad;
}
