/*
 * test_emu_race.c - race detection on synthetic traces
 * (tests/support/emu_gen.c): a kernel passing a buffer and a copy reading
 * it on two unordered streams is a possible race, confirmed when keyframes
 * show the kernel wrote the bytes the copy reads, and no race with an event
 * between them; two unordered readers (copies, or kernels whose keyframes
 * show they wrote nothing) are no race; unordered nodes of one graph
 * launch race like commands on two streams; the report names both commands by
 * seq, name and host stack.
 */
#include <string.h>

#include "emulator/emu.h"
#include "tests/support/emu_gen.h"
#include "tests/support/tst.h"

/* Races of the scenario; the report text in report (size cap). */
static emu_race_counts races(const char *scenario, char *report, size_t cap)
{
	const char *path = tst_path(scenario);
	emu_graph *g = NULL;
	emu_options o;
	emu_race_counts n;
	FILE *f = fmemopen(report, cap, "w");
	char err[512];

	TST_REQUIRE(f != NULL);
	TST_REQUIRE(emu_gen_scenario(scenario, path) == 0);
	if (emu_graph_build(path, &g, err, sizeof(err)) != EMU_OK) {
		fprintf(stderr, "%s: %s\n", scenario, err);
		exit(1);
	}
	emu_options_default(&o);
	TST_REQUIRE(emu_schedule(g, &o) == EMU_OK);
	TST_REQUIRE(emu_races_report(g, f, 0, &n) == EMU_OK);
	fclose(f);
	emu_graph_free(g);
	return n;
}

int main(void)
{
	static char rep[16384];
	emu_race_counts n;

	/* fill (seq 5) may write B; the download (seq 6) reads B: possible */
	n = races("race", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 1);
	TST_CHECK(strstr(rep, "race (possible)") != NULL);
	TST_CHECK(strstr(rep, "seq 5 kernel fill on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000100000..0x7000101000") != NULL);
	TST_CHECK(strstr(rep, "seq 6 copy_d2h cuMemcpyDtoHAsync on stream 0x200 (non-blocking) reads "
	                      "0x7000100200..0x7000100600") != NULL);
	TST_CHECK(strstr(rep, "emu_gen!seq5") != NULL);
	TST_CHECK(strstr(rep, "emu_gen!seq6") != NULL);

	n = races("event", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);

	/* keyframes: fill wrote 512 bytes at offset 256, the copy reads from 512 */
	n = races("race_kf", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed, 1);
	TST_CHECK_EQ_U64(n.possible, 0);
	TST_CHECK(strstr(rep, "race (confirmed)") != NULL);
	TST_CHECK(strstr(rep, "kernel fill on stream 0x100 (non-blocking) writes 0x7000100100..0x7000100300") != NULL);

	n = races("readers", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);

	/* two kernels passing A, keyframes showing A unchanged: readers only */
	n = races("readers_kf", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 0);

	/* the ordered scenarios have none */
	n = races("fork", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	n = races("graph", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	/* inside a graph launch: Kb and Kc unordered on one buffer, in each of
	 * the two launches (the launches themselves are ordered) */
	n = races("graph_race", rep, sizeof(rep));
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 2);
	TST_CHECK(strstr(rep, "kernel Kb on stream 0x300") != NULL);
	TST_CHECK(strstr(rep, "kernel Kc on stream 0x300") != NULL);
	return tst_done();
}
