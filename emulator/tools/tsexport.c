/*
 * tsexport - run a CUDA or Vulkan trace through the emulator and export what it did:
 * a Chrome trace-event timeline, the dependency graph, a terminal timeline,
 * the race report, the summary (docs/emulator.md).
 *
 * Exit status: 0 done; 1 --races found a race; 2 usage error or a trace
 * that cannot be read.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"
#include "serializer/sbt_cli.h"

enum { TSE_EXIT_OK = 0, TSE_EXIT_RACE = 1, TSE_EXIT_USAGE = 2 };

enum {
	TSE_OPT_RACES = 256,
	TSE_OPT_SUMMARY,
	TSE_OPT_COMPUTE,
	TSE_OPT_COPY,
	TSE_OPT_KERNEL_NS,
	TSE_OPT_ISSUE,
	TSE_OPT_WIDTH,
	TSE_OPT_JSON,
	TSE_OPT_VERSION,
	TSE_OPT_PROFILE,
	TSE_OPT_NO_PROFILE,
	TSE_OPT_DURATIONS
};

static const struct option tse_longopts[] = {
	{"help", no_argument, NULL, 'h'},
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"races", no_argument, NULL, TSE_OPT_RACES},
	{"summary", no_argument, NULL, TSE_OPT_SUMMARY},
	{"compute-engines", required_argument, NULL, TSE_OPT_COMPUTE},
	{"copy-engines", required_argument, NULL, TSE_OPT_COPY},
	{"kernel-ns", required_argument, NULL, TSE_OPT_KERNEL_NS},
	{"issue-times", no_argument, NULL, TSE_OPT_ISSUE},
	{"width", required_argument, NULL, TSE_OPT_WIDTH},
	{"json", no_argument, NULL, TSE_OPT_JSON},
	{"version", no_argument, NULL, TSE_OPT_VERSION},
	{"profile", required_argument, NULL, TSE_OPT_PROFILE},
	{"no-profile", no_argument, NULL, TSE_OPT_NO_PROFILE},
	{"durations", required_argument, NULL, TSE_OPT_DURATIONS},
	{NULL, 0, NULL, 0}
};

static void tse_usage(FILE *f)
{
	fprintf(f,
	        "usage: tsexport [OPTIONS] TRACE.sbt\n"
	        "Run a CUDA or Vulkan trace through the stream-scheduler emulator (no device).\n"
	        "  -f, --format FMT        json (Chrome trace-event), perfetto (protobuf\n"
	        "                          .perfetto-trace), dot (dependency graph), ascii\n"
	        "                          (terminal timeline)\n"
	        "  -o, --output FILE       write the export there (default: standard output)\n"
	        "      --races             print the race report; exit 1 if a race is found\n"
	        "      --summary           critical path, utilisation, max concurrency (the\n"
	        "                          default when nothing else is asked)\n"
	        "      --compute-engines N engines for kernels and memsets (default 4)\n"
	        "      --copy-engines N    engines for copies (default 2)\n"
	        "      --kernel-ns N       cost of one kernel (default 10000)\n"
	        "      --issue-times       no command starts before the host issued it\n"
	        "      --profile FILE      measured durations from a replay profile (tsreplay\n"
	        "                          --profile); default: TRACE.profile when it exists\n"
	        "      --no-profile        the cost model even when TRACE.profile exists\n"
	        "      --durations SRC     capture: fitted to the host's waits in the trace;\n"
	        "                          model: the cost model (as --no-profile)\n"
	        "      --width N           columns of the ascii timeline (default 100)\n"
	        "      --json              --summary and --races as one JSON object\n"
	        "  -h, --help              this text\n"
	        "      --version           the TraceSmith version\n"
	        "Exit status: 0 done, 1 a race was found (--races), 2 usage or trace error.\n"
	        "docs/emulator.md describes the model and the formats.\n");
}

static int tse_number(const char *opt, const char *v, unsigned long long lo, unsigned long long hi,
                      unsigned long long *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (!*v || *end || errno || n < lo || n > hi) {
		sbt_cli_usage_error("tsexport", "%s needs a number from %llu to %llu, got '%s'", opt, lo, hi,
		                    v);
		return -1;
	}
	*out = n;
	return 0;
}

int main(int argc, char **argv)
{
	emu_options opt;
	emu_graph *g = NULL;
	const char *format = NULL, *output = NULL, *path = NULL;
	int races = 0, summary = 0, json = 0, c, rc = TSE_EXIT_USAGE;
	int no_profile = 0, profiled = 0, captimes = 0;
	const char *durations = NULL;
	const char *profile = NULL;
	unsigned long long n, width = 100;
	char err[1024], msg[256];
	FILE *out = stdout;
	emu_status st;

	emu_options_default(&opt);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-:hf:o:", tse_longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			tse_usage(stdout);
			return TSE_EXIT_OK;
		case TSE_OPT_VERSION:
			sbt_cli_version("tsexport");
			return TSE_EXIT_OK;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "dot") && strcmp(optarg, "ascii") &&
			    strcmp(optarg, "perfetto")) {
				return sbt_cli_usage_error("tsexport", "unknown format '%s' (json, perfetto, dot "
				                           "or ascii)", optarg);
			}
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case TSE_OPT_RACES:
			races = 1;
			break;
		case TSE_OPT_SUMMARY:
			summary = 1;
			break;
		case TSE_OPT_COMPUTE:
			if (tse_number("--compute-engines", optarg, 1, 1024, &n) != 0)
				return TSE_EXIT_USAGE;
			opt.compute_engines = (unsigned)n;
			break;
		case TSE_OPT_COPY:
			if (tse_number("--copy-engines", optarg, 1, 1024, &n) != 0)
				return TSE_EXIT_USAGE;
			opt.copy_engines = (unsigned)n;
			break;
		case TSE_OPT_KERNEL_NS:
			if (tse_number("--kernel-ns", optarg, 0, UINT32_MAX, &n) != 0)
				return TSE_EXIT_USAGE;
			opt.kernel_ns = n;
			break;
		case TSE_OPT_JSON:
			json = 1;
			break;
		case TSE_OPT_ISSUE:
			opt.issue_times = 1;
			break;
		case TSE_OPT_PROFILE:
			profile = optarg;
			break;
		case TSE_OPT_NO_PROFILE:
			no_profile = 1;
			break;
		case TSE_OPT_DURATIONS:
			if (strcmp(optarg, "capture") && strcmp(optarg, "model"))
				return sbt_cli_usage_error("tsexport", "--durations: unknown source '%s' (capture or "
				                           "model)", optarg);
			durations = optarg;
			break;
		case TSE_OPT_WIDTH:
			if (tse_number("--width", optarg, 10, 10000, &width) != 0)
				return TSE_EXIT_USAGE;
			break;
		case 1:
			if (path) {
				return sbt_cli_usage_error("tsexport", "more than one trace given ('%s', '%s')",
				                           path, optarg);
			}
			path = optarg;
			break;
		default:
			sbt_cli_getopt_message(tse_longopts, c, argv, NULL, msg, sizeof(msg));
			return sbt_cli_usage_error("tsexport", "%s", msg);
		}
	}
	if (!path) {
		return sbt_cli_usage_error("tsexport", "no trace given");
	}
	if (!format && !races)
		summary = 1;
	if (output && !format) {
		return sbt_cli_usage_error("tsexport", "-o needs a format (-f json, perfetto, dot or "
		                           "ascii)");
	}
	if (profile && no_profile)
		return sbt_cli_usage_error("tsexport", "--profile and --no-profile together");
	if (durations && profile)
		return sbt_cli_usage_error("tsexport", "--durations %s and --profile together (a replay "
		                           "profile is a source of durations of its own)", durations);
	if (durations) {
		no_profile = 1;
		captimes = !strcmp(durations, "capture");
	}
	st = emu_graph_build(path, &g, err, sizeof(err));
	if (st != EMU_OK) {
		fprintf(stderr, "tsexport: %s\n", err[0] ? err : emu_strerror(st));
		return TSE_EXIT_USAGE;
	}
	if (!no_profile && (st = emu_profile_load(g, profile, &profiled, err, sizeof(err))) != EMU_OK) {
		fprintf(stderr, "tsexport: %s\n", err[0] ? err : emu_strerror(st));
		goto out_free_graph;
	}
	if (captimes && (st = emu_durations_capture(g)) != EMU_OK) {
		fprintf(stderr, "tsexport: %s: %s\n", path, emu_strerror(st));
		goto out_free_graph;
	}
	st = emu_schedule(g, &opt);
	if (st != EMU_OK) {
		fprintf(stderr, "tsexport: %s: simulation: %s\n", path, emu_strerror(st));
		goto out_free_graph;
	}
	if (format) {
		if (output && !(out = fopen(output, "wb"))) {
			fprintf(stderr, "tsexport: cannot create %s: %s\n", output, strerror(errno));
			goto out_free_graph;
		}
		if (!strcmp(format, "json"))
			st = emu_export_json(g, out);
		else if (!strcmp(format, "dot"))
			st = emu_export_dot(g, out);
		else if (!strcmp(format, "perfetto"))
			st = emu_export_perfetto(g, out);
		else
			st = emu_export_ascii(g, out, (unsigned)width);
		if (out != stdout && fclose(out) != 0 && st == EMU_OK)
			st = EMU_ERR_IO;
		if (st == EMU_ERR_STATE) {
			fprintf(stderr, "tsexport: this build has no Perfetto protobuf export (no protobuf-c: "
			                "scripts/deps.sh installs libprotobuf-c-dev)\n");
			goto out_free_graph;
		}
		if (st != EMU_OK) {
			fprintf(stderr, "tsexport: writing %s: %s\n", output ? output : "standard output",
			        emu_strerror(st));
			goto out_free_graph;
		}
	}
	if (json)
		printf("{");
	if (summary) {
		if (json)
			printf("\"summary\":");
		if (emu_summary_print(g, stdout, json) != EMU_OK)
			goto out_free_graph;
	}
	rc = TSE_EXIT_OK;
	if (races) {
		emu_race_counts rcn;

		if (json)
			printf("%s\"races\":{\"list\":", summary ? "," : "");
		st = emu_races_report(g, stdout, json, &rcn);
		if (st != EMU_OK) {
			fprintf(stderr, "tsexport: %s: race detection: %s\n", path, emu_strerror(st));
			rc = TSE_EXIT_USAGE;
			goto out_free_graph;
		}
		if (json)
			printf(",\"confirmed\":%llu,\"possible\":%llu}", (unsigned long long)rcn.confirmed,
			       (unsigned long long)rcn.possible);
		else
			printf("races: %llu confirmed, %llu possible\n", (unsigned long long)rcn.confirmed,
			       (unsigned long long)rcn.possible);
		if (rcn.confirmed + rcn.possible)
			rc = TSE_EXIT_RACE;
	}
	if (json)
		printf("}\n");
out_free_graph:
	emu_graph_free(g);
	return rc;
}
