/*
 * emu_cli.c - `tsreplay --emulate TRACE`: a trace through the emulator
 * with no device at all, reporting the summary and the races
 * (docs/emulator.md "tsreplay --emulate").  tsreplay hands its arguments
 * here when --emulate is among them.  With --schedule-seed N it prints
 * the legal order that seed draws (the order tsreplay --schedule-seed N
 * replays) instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"
#include "serializer/sbt_cli.h"

/* tsreplay --emulate --schedule-seed N TRACE: the order, as the replay
 * would run it; 0, or 2 for a trace no order is made for. */
static int emu_cli_order(const char *path, unsigned long long seed)
{
	emu_order_plan *p = NULL;
	emu_status st;
	char err[1024] = "";

	st = emu_order_open(path, &p, err, sizeof(err));
	if (st != EMU_OK) {
		fprintf(stderr, "tsreplay: --schedule-seed: %s\n", err[0] ? err : emu_strerror(st));
		return 2;
	}
	if (err[0])
		printf("%s\n", err);
	st = emu_order_print(p, seed, stdout);
	emu_order_close(p);
	if (st != EMU_OK) {
		fprintf(stderr, "tsreplay: --schedule-seed: %s: %s\n", path, emu_strerror(st));
		return 2;
	}
	return 0;
}

int emu_cli_emulate(int argc, char **argv)
{
	const char *path = NULL;
	emu_options opt;
	emu_graph *g = NULL;
	emu_race_counts rc = { 0, 0 };
	emu_status st;
	char err[1024];
	int json = 0, status = 2, profiled = 0, seeded = 0, captimes = 0, profile_arg = 0;
	unsigned long long seed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--emulate"))
			continue;
		if (!strcmp(argv[i], "--schedule-seed")) {
			char *end = NULL;

			errno = 0;
			if (i + 1 < argc)
				seed = strtoull(argv[i + 1], &end, 10);
			if (i + 1 >= argc || !end || *end || end == argv[i + 1] || errno ||
			    argv[i + 1][0] == '-')
				return sbt_cli_usage_error("tsreplay", "--schedule-seed: expected a decimal number "
				                           "from 0 to 18446744073709551615, got '%s'",
				                           i + 1 < argc ? argv[i + 1] : "");
			seeded = 1;
			i++;
		} else if (!strcmp(argv[i], "--durations")) {
			if (i + 1 >= argc || strcmp(argv[i + 1], "capture"))
				return sbt_cli_usage_error("tsreplay", "--emulate --durations: expected 'capture', "
				                           "got '%s'", i + 1 < argc ? argv[i + 1] : "");
			captimes = 1;
			i++;
		} else if (!strncmp(argv[i], "--profile", 9) && (!argv[i][9] || argv[i][9] == '=')) {
			profile_arg = 1;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: tsreplay --emulate [--json] [--durations capture] TRACE.sbt\n"
			       "       tsreplay --emulate --schedule-seed N TRACE.sbt\n"
			       "Run a CUDA or Vulkan trace through the emulator, with no device: the\n"
			       "summary (critical path, utilisation, concurrency) and the races.\n"
			       "Durations: TRACE.profile's when it exists, else the cost model;\n"
			       "--durations capture fits them to the host's waits in the trace.\n"
			       "--schedule-seed N prints the order tsreplay --schedule-seed N replays.\n"
			       "Exit status: 0 no race, 1 a race was found, 2 usage or trace error.\n"
			       "tsexport has the machine options and the exports (docs/emulator.md).\n");
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return sbt_cli_usage_error("tsreplay", "--emulate takes only --json, --durations capture "
			                           "or --schedule-seed N and a trace, not '%s' "
			                           "(tsexport has the emulator's other options)", argv[i]);
		} else if (path) {
			return sbt_cli_usage_error("tsreplay", "more than one trace given ('%s', '%s')", path, argv[i]);
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return sbt_cli_usage_error("tsreplay", "--emulate needs a trace");
	if (profile_arg && captimes)
		return sbt_cli_usage_error("tsreplay", "--durations capture and --profile together (a replay "
		                           "profile is a source of durations of its own)");
	if (profile_arg)
		return sbt_cli_usage_error("tsreplay", "--profile writes a replay profile: not with --emulate "
		                           "(which reads TRACE.profile when it exists)");
	if (seeded && json)
		return sbt_cli_usage_error("tsreplay", "--emulate --schedule-seed prints an order: not with --json");
	if (seeded && captimes)
		return sbt_cli_usage_error("tsreplay", "--emulate --schedule-seed prints an order: not with "
		                           "--durations");
	if (seeded)
		return emu_cli_order(path, seed);
	st = emu_graph_build(path, &g, err, sizeof(err));
	if (st != EMU_OK) {
		fprintf(stderr, "tsreplay: %s\n", err[0] ? err : emu_strerror(st));
		return 2;
	}
	/* the trace's replay profile (TRACE.profile) when there is one, unless
	 * the durations come from the capture's times */
	st = captimes ? emu_durations_capture(g) : emu_profile_load(g, NULL, &profiled, err, sizeof(err));
	if (st != EMU_OK) {
		fprintf(stderr, "tsreplay: %s\n", err[0] ? err : emu_strerror(st));
		goto out_free_graph;
	}
	emu_options_default(&opt);
	st = emu_schedule(g, &opt);
	if (st != EMU_OK) {
		fprintf(stderr, "tsreplay: %s: simulation: %s\n", path, emu_strerror(st));
		goto out_free_graph;
	}
	if (json)
		printf("{\"summary\":");
	else
		printf("emulated (no device): %s\n", path);
	if (emu_summary_print(g, stdout, json) != EMU_OK)
		goto out_free_graph;
	if (json)
		printf(",\"races\":{\"list\":");
	st = emu_races_report(g, stdout, json, &rc);
	if (st != EMU_OK) {
		fprintf(stderr, "tsreplay: %s: race detection: %s\n", path, emu_strerror(st));
		goto out_free_graph;
	}
	if (json)
		printf(",\"confirmed\":%llu,\"possible\":%llu}}\n", (unsigned long long)rc.confirmed,
		       (unsigned long long)rc.possible);
	else
		printf("races: %llu confirmed, %llu possible\n", (unsigned long long)rc.confirmed,
		       (unsigned long long)rc.possible);
	status = rc.confirmed + rc.possible ? 1 : 0;
out_free_graph:
	emu_graph_free(g);
	return status;
}
