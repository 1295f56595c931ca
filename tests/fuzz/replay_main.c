/*
 * replay_main - runs the fuzz target on each file named on the command line,
 * so that `make test` replays the committed corpus (and any crash input a
 * fuzzing run saved) without clang or libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/tst.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i, bad = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		size_t len = 0;
		unsigned char *buf = tst_read_file(argv[i], &len);
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
