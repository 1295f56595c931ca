/*
 * emu_gen_trace - writes one of the emulator's synthetic CUDA traces
 * (tests/support/emu_gen.c lists them) for tests/shell/test_emulator.sh.
 *   emu_gen_trace SCENARIO OUT.sbt
 */
#include <stdio.h>

#include "tests/support/emu_gen.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: emu_gen_trace SCENARIO OUT.sbt\n");
		return 2;
	}
	if (emu_gen_scenario(argv[1], argv[2]) != 0) {
		fprintf(stderr, "emu_gen_trace: no scenario '%s' (tests/support/emu_gen.c lists them)\n", argv[1]);
		return 2;
	}
	return 0;
}
