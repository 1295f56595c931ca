/*
 * rp_main.c - the tsreplay command line: options, the report of the first
 * mismatch or divergence, the summary (text or JSON), the exit status.
 *
 * Where output goes: errors, notes and mismatch reports on stderr; the
 * summary (or the --json document) on stdout, so a script can read the
 * result without the diagnostics.
 */
#include "replayer/rp.h"
#include "replayer/rp_session.h"
#include "serializer/sbt_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RP_MAIN_DEFAULT_RUNS 3u
#define RP_MAIN_MAX_RUNS 1000u
#define RP_MAIN_MAX_BACKEND_OPTIONS 64
#define RP_MAIN_MAX_SEEDS RP_MAIN_MAX_RUNS

static void rp_main_usage(FILE *f, const rp_backend_ops *const *backends, size_t n, int orders)
{
	size_t i;
	fputs("usage: tsreplay [options] TRACE\n"
	      "Replay an SBT trace and compare its checkpoints with the capture.\n"
	      "\n"
	      "  --range A:B            replay records with seq in [A, B); A: and :B allowed.\n"
	      "                         Earlier records are fast-forwarded (from the nearest\n"
	      "                         keyframe when possible), their checkpoints not compared\n"
	      "  --check-determinism    replay several times from clean state; compare every\n"
	      "                         checkpoint across runs and with the capture\n"
	      "  --runs N               runs for --check-determinism (2..1000, default 3)\n"
	      "  --per-command          with --check-determinism: also compare runs after every\n"
	      "                         command (slow; names the first command that differs)\n",
	      f);
	/* only where the build can sample orders (tsreplay: the emulator) */
	if (orders)
		fputs("  --schedule-seed N      run the commands in a legal order drawn from seed N\n"
		      "  --schedule-seeds A,..  with --check-determinism: one run per seed, compared\n",
		      f);
	fputs("  --device STR           device for the backend (its meaning is the backend's)\n"
	      "  --profile[=FILE]       time every command on the device; write the timings to\n"
	      "                         FILE (default TRACE.profile), never to the trace\n"
	      "  --json                 summary as one JSON object on stdout\n"
	      "  -q, --quiet            no progress, notes or summary\n"
	      "  -h, --help             this text\n"
	      "  --version              the TraceSmith version\n"
	      "\n"
	      "Exit status:\n"
	      "  0  replayed; every compared checkpoint matched the capture (and every run\n"
	      "     agreed); the summary counts those a backend could not compare\n"
	      "  1  error: unreadable or damaged trace, no backend, backend failure\n"
	      "  2  usage error: unknown option, bad value, --device not present here\n"
	      "  3  the replay differs from the capture (all runs agree with each other)\n"
	      "  4  runs differ from each other (nondeterministic replay; a likely race\n"
	      "     when a serialised and a concurrent run differ)\n"
	      "\n",
	      f);
	for (i = 0; i < n; i++) {
		const rp_option_desc *o;
		for (o = backends[i]->options; o && o->name; o++) {
			char head[64];
			snprintf(head, sizeof(head), "%s%s%s", o->name, o->value_name ? " " : "",
			         o->value_name ? o->value_name : "");
			fprintf(f, "  %-22s %s\n", head, o->help);
		}
	}
	fputs("Backends in this build:", f);
	if (n == 0)
		fputs(" none", f);
	for (i = 0; i < n; i++)
		fprintf(f, " %s (api %s)", backends[i]->name, backends[i]->api);
	fputs("\n", f);
}

/* Have every backend that lists option v->name check its value (the same
 * name in two backends is checked by both). */
static rp_status rp_main_check_backend_option(const rp_option_value *v,
                                              const rp_backend_ops *const *backends, size_t n,
                                              rp_diag *diag)
{
	size_t i;
	for (i = 0; i < n; i++) {
		const rp_option_desc *o;
		if (!backends[i]->check_option)
			continue;
		for (o = backends[i]->options; o && o->name; o++) {
			rp_status st;
			if (strcmp(o->name, v->name) != 0)
				continue;
			st = backends[i]->check_option(v, diag);
			if (st != RP_OK)
				return st;
			break;
		}
	}
	return RP_OK;
}

/* A usage error: one line, then "try 'tsreplay --help'".  RP_EXIT_USAGE. */
static int rp_main_bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int rp_main_bad_usage(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sbt_cli_usage_error("tsreplay", "%s", msg);
	return RP_EXIT_USAGE;
}

static void rp_main_hex(FILE *f, const uint8_t *b, size_t n, const char *sep)
{
	size_t i;
	for (i = 0; i < n; i++)
		fprintf(f, "%s%02x", i ? sep : "", b[i]);
}

static void rp_main_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Where a trimmed trace starts in its captured run, in the unit its
 * trigger counts: launches and submits for those ranges, frames for frame
 * ranges, the capture key and the in-app API's frame trigger, all three
 * for triggers that count none. */
static void rp_main_print_window(const char *path, const sbt_window *w)
{
	fprintf(stderr, "tsreplay: %s is window %llu of a captured run (trigger '%s'); ", path,
	        (unsigned long long)w->index, w->trigger);
	if (strncmp(w->trigger, "launches", 8) == 0)
		fprintf(stderr, "it starts at launch %llu of that run\n",
		        (unsigned long long)w->first_launch);
	else if (strncmp(w->trigger, "submits", 7) == 0)
		fprintf(stderr, "it starts at submit %llu of that run\n",
		        (unsigned long long)w->first_submit);
	else if (strncmp(w->trigger, "frames", 6) == 0 || strncmp(w->trigger, "key", 3) == 0 ||
	         strncmp(w->trigger, "app trigger", 11) == 0)
		fprintf(stderr, "it starts at frame %llu of that run, and frames keep the run's "
		        "numbers\n", (unsigned long long)w->first_frame);
	else
		fprintf(stderr, "it starts at frame %llu, submit %llu and launch %llu of that run, "
		        "and frames keep the run's numbers\n", (unsigned long long)w->first_frame,
		        (unsigned long long)w->first_submit, (unsigned long long)w->first_launch);
}

static void rp_main_print_mismatch(const rp_session *s, const rp_mismatch *m)
{
	if (m->keyframe && m->other_run == 0)
		fprintf(stderr, "tsreplay: the replay differs from the capture after the command at seq %llu "
		        "(keyframe seq %llu)\n", (unsigned long long)m->call_seq,
		        (unsigned long long)m->checkpoint_seq);
	else if (m->keyframe)
		fprintf(stderr, "tsreplay: runs differ: run %u and run %u part first after the command at "
		        "seq %llu (keyframe seq %llu: one matches the capture there)\n", m->other_run, m->run,
		        (unsigned long long)m->call_seq, (unsigned long long)m->checkpoint_seq);
	else if (m->other_run == 0)
		fprintf(stderr, "tsreplay: the replay differs from the capture at checkpoint seq %llu\n",
		        (unsigned long long)m->checkpoint_seq);
	else if (m->per_command && m->part_found)
		fprintf(stderr, "tsreplay: runs differ: run %u and run %u part first after the command "
		        "at seq %llu (%s, %s %u, index %u in it) of the %s at seq %llu (--per-command)\n",
		        m->other_run, m->run, (unsigned long long)m->part.seq, m->part.call, m->part.group,
		        m->part.group_index, m->part.index, m->part.unit, (unsigned long long)m->call_seq);
	else if (m->per_command)
		fprintf(stderr, "tsreplay: runs differ: run %u and run %u part first after the command "
		        "at seq %llu (--per-command)\n", m->other_run, m->run,
		        (unsigned long long)m->call_seq);
	else
		fprintf(stderr, "tsreplay: runs differ: run %u and run %u part first at checkpoint "
		        "seq %llu\n", m->other_run, m->run, (unsigned long long)m->checkpoint_seq);
	fprintf(stderr, "  call:     seq %llu %s\n", (unsigned long long)m->call_seq,
	        m->call_found ? m->call_name : "(record not found in the trace)");
	if (m->keyframe)
		fprintf(stderr, "  memory:   0x%llx, %llu bytes compared with the keyframe\n",
		        (unsigned long long)m->object, (unsigned long long)m->range_length);
	else if (m->per_command)
		fprintf(stderr, "  memory:   0x%llx, %llu bytes it may have written\n",
		        (unsigned long long)m->object, (unsigned long long)m->range_length);
	else
		fprintf(stderr, "  object:   %llu, checked range [%llu, %llu)\n",
		        (unsigned long long)m->object, (unsigned long long)m->range_offset,
		        (unsigned long long)(m->range_offset + m->range_length));
	if (m->located) {
		fprintf(stderr, "  offset:   %llu (first differing block: %llu bytes)\n",
		        (unsigned long long)m->diff_offset, (unsigned long long)m->diff_len);
		if (m->other_run)
			fprintf(stderr, "  run %u bytes: ", m->run);
		else
			fputs("  replay bytes: ", stderr);
		rp_main_hex(stderr, m->bytes, m->nbytes, " ");
		fputs(m->diff_len > m->nbytes ? " ...\n" : "\n", stderr);
		if (m->keyframe) {
			fputs("  capture bytes: ", stderr);
			rp_main_hex(stderr, m->capture_bytes, m->nbytes, " ");
			fputs(m->diff_len > m->nbytes ? " ...\n" : "\n", stderr);
		}
	} else {
		fputs("  offset:   unknown (block hashes not comparable)\n", stderr);
	}
	if (m->other_run == 0)
		fprintf(stderr, "  hashes:   capture 0x%016llx, replay 0x%016llx\n",
		        (unsigned long long)m->expected_hash, (unsigned long long)m->actual_hash);
	else if (m->keyframe)
		fprintf(stderr, "  hashes:   capture 0x%016llx, run %u 0x%016llx\n",
		        (unsigned long long)m->expected_hash, m->run, (unsigned long long)m->actual_hash);
	else {
		char groups[512];
		rp_session_run_groups(s, m, groups, sizeof(groups));
		fprintf(stderr, "  hashes:   %s\n", groups);
	}
	if (m->call_found && m->stack_id) {
		fputs("  host stack of the call at capture:\n", stderr);
		rp_session_print_stack(s, m->stack_id, stderr);
	}
}

static void rp_main_json_mismatch(FILE *f, const rp_mismatch *m)
{
	if (!m->valid) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"checkpoint_seq\":%llu,\"call_seq\":%llu,\"call\":",
	        (unsigned long long)m->checkpoint_seq, (unsigned long long)m->call_seq);
	rp_main_json_string(f, m->call_found ? m->call_name : "");
	fprintf(f, ",\"object\":%llu,\"range_offset\":%llu,\"range_length\":%llu,",
	        (unsigned long long)m->object, (unsigned long long)m->range_offset,
	        (unsigned long long)m->range_length);
	if (m->located) {
		fprintf(f, "\"offset\":%llu,\"block_bytes\":%llu,\"bytes\":\"",
		        (unsigned long long)m->diff_offset, (unsigned long long)m->diff_len);
		rp_main_hex(f, m->bytes, m->nbytes, "");
		fputs("\",", f);
	} else {
		fputs("\"offset\":null,", f);
	}
	fprintf(f, "\"expected_hash\":\"0x%016llx\",\"actual_hash\":\"0x%016llx\",\"run\":%u,"
	        "\"compared_with\":",
	        (unsigned long long)m->expected_hash, (unsigned long long)m->actual_hash, m->run);
	if (m->other_run)
		fprintf(f, "%u", m->other_run);
	else
		fputs("\"capture\"", f);
	if (m->per_command && m->part_found) {
		fprintf(f, ",\"command\":{\"seq\":%llu,\"call\":", (unsigned long long)m->part.seq);
		rp_main_json_string(f, m->part.call);
		fputs(",\"unit\":", f);
		rp_main_json_string(f, m->part.unit);
		fputs(",\"group\":", f);
		rp_main_json_string(f, m->part.group);
		fprintf(f, ",\"group_index\":%u,\"index\":%u}", m->part.group_index, m->part.index);
	} else if (m->per_command) {
		fputs(",\"command\":null", f);
	}
	if (m->keyframe)
		fprintf(f, ",\"at_keyframe\":%llu}", (unsigned long long)m->checkpoint_seq);
	else
		fputs(",\"at_keyframe\":null}", f);
}

static const char *rp_main_result_name(int code)
{
	switch (code) {
	case RP_EXIT_OK: return "match";
	case RP_EXIT_MISMATCH: return "mismatch";
	case RP_EXIT_NONDETERM: return "nondeterministic";
	case RP_EXIT_USAGE: return "usage";
	default: return "error";
	}
}

/* --schedule-seed: the seed and order of every run done, or null. */
static void rp_main_json_schedule(FILE *f, const rp_options *opt, const rp_session *s,
                                  const rp_report *rep)
{
	unsigned run, shown = 0;
	uint64_t seed;
	rp_order o;

	if (!opt->nschedule_seeds || !s) {
		fputs("null", f);
		return;
	}
	fputs("[", f);
	for (run = 1; run <= rep->runs_done; run++) {
		if (!rp_session_schedule(s, run, &seed, &o))
			continue;
		fprintf(f, "%s{\"run\":%u,\"seed\":%llu,\"order_hash\":\"0x%016llx\",\"commands\":%zu,"
		        "\"out_of_order\":%llu}", shown++ ? "," : "", run, (unsigned long long)seed,
		        (unsigned long long)o.hash, o.n, (unsigned long long)o.moved);
	}
	fputs("]", f);
}

/* --schedule-seed: one line per run saying which order it replayed. */
static void rp_main_schedule_summary(const rp_options *opt, const rp_session *s,
                                     const rp_report *rep)
{
	unsigned run;
	uint64_t seed;
	rp_order o;

	for (run = 1; run <= rep->runs_done; run++) {
		char who[32] = "";
		if (!rp_session_schedule(s, run, &seed, &o))
			continue;
		if (opt->runs > 1)
			snprintf(who, sizeof(who), "run %u: ", run);
		printf("tsreplay: %sschedule seed %llu: order 0x%016llx of %zu commands, %llu of them run "
		       "after a command the capture issued later\n", who, (unsigned long long)seed,
		       (unsigned long long)o.hash, o.n, (unsigned long long)o.moved);
	}
}

static void rp_main_json(const rp_options *opt, const rp_session *s, const rp_report *rep,
                         int code, const char *error)
{
	FILE *f = stdout;
	sbt_window win;
	fputs("{\"trace\":", f);
	rp_main_json_string(f, opt->trace_path);
	fputs(",\"backends\":", f);
	rp_main_json_string(f, rp_session_backends(s));
	fputs(",\"range\":{\"begin\":", f);
	if (opt->range.has_begin)
		fprintf(f, "%llu", (unsigned long long)opt->range.begin);
	else
		fputs("null", f);
	fputs(",\"end\":", f);
	if (opt->range.has_end)
		fprintf(f, "%llu", (unsigned long long)opt->range.end);
	else
		fputs("null", f);
	fprintf(f, "},\"runs\":%u,\"runs_done\":%u,\"keyframe_seq\":", opt->runs, rep->runs_done);
	if (rep->from_keyframe)
		fprintf(f, "%llu", (unsigned long long)rep->keyframe_seq);
	else
		fputs("null", f);
	fputs(",\"window\":", f);
	if (s && rp_session_window(s, &win)) {
		fprintf(f, "{\"index\":%llu,\"trigger\":", (unsigned long long)win.index);
		rp_main_json_string(f, win.trigger);
		fprintf(f, ",\"first_frame\":%llu,\"first_submit\":%llu,\"first_launch\":%llu}",
		        (unsigned long long)win.first_frame, (unsigned long long)win.first_submit,
		        (unsigned long long)win.first_launch);
	} else {
		fputs("null", f);
	}
	fprintf(f, ",\"frames\":%llu,\"frames_cut\":%llu,", (unsigned long long)rep->frames,
	        (unsigned long long)rep->frames_cut);
	if (rep->frames)
		fprintf(f, "\"first_frame\":%llu,\"last_frame\":%llu,",
		        (unsigned long long)rep->first_frame, (unsigned long long)rep->last_frame);
	else
		fputs("\"first_frame\":null,\"last_frame\":null,", f);
	fprintf(f, "\"records_executed\":%llu,\"records_fast_forwarded\":%llu,",
	        (unsigned long long)rep->executed, (unsigned long long)rep->fast_forwarded);
	if (rep->executed)
		fprintf(f, "\"first_executed_seq\":%llu,\"last_executed_seq\":%llu,",
		        (unsigned long long)rep->first_seq, (unsigned long long)rep->last_seq);
	else
		fputs("\"first_executed_seq\":null,\"last_executed_seq\":null,", f);
	fprintf(f, "\"unmodeled\":%llu,\"checkpoints\":%llu,\"matched\":%llu,\"mismatched\":%llu,"
	        "\"not_compared\":%llu,\"not_compared_seqs\":[",
	        (unsigned long long)rep->unmodeled, (unsigned long long)rep->checkpoints,
	        (unsigned long long)rep->matched, (unsigned long long)rep->mismatched,
	        (unsigned long long)rep->not_compared);
	{
		uint64_t i;
		for (i = 0; i < rep->not_compared && i < RP_NOT_COMPARED_LISTED; i++)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)rep->not_compared_seq[i]);
	}
	fputs("],\"first_mismatch\":", f);
	rp_main_json_mismatch(f, &rep->capture);
	fputs(",\"runs_part\":", f);
	rp_main_json_mismatch(f, &rep->runs);
	fputs(",\"command_results\":", f);
	if (opt->per_command)
		fprintf(f, "%llu", (unsigned long long)rep->command_results);
	else
		fputs("null", f);
	fputs(",\"commands_part\":", f);
	rp_main_json_mismatch(f, &rep->command);
	if (rep->keyframes_on)
		fprintf(f, ",\"keyframes_compared\":%llu,\"keyframes_differ\":%llu,\"keyframe_ranges\":%llu,"
		        "\"keyframe_bytes\":%llu", (unsigned long long)rep->keyframes,
		        (unsigned long long)rep->keyframes_differ, (unsigned long long)rep->keyframe_ranges,
		        (unsigned long long)rep->keyframe_bytes);
	else
		fputs(",\"keyframes_compared\":null,\"keyframes_differ\":null,\"keyframe_ranges\":null,"
		      "\"keyframe_bytes\":null", f);
	fputs(",\"profile\":", f);
	if (opt->profile_path && rep->runs_done) {
		fputs("{\"file\":", f);
		rp_main_json_string(f, opt->profile_path);
		fprintf(f, ",\"commands\":%llu,\"device\":", (unsigned long long)rep->profiled);
		rp_main_json_string(f, rep->profile_device);
		fputs("}", f);
	} else {
		fputs("null", f);
	}
	fputs(",\"schedule\":", f);
	rp_main_json_schedule(f, opt, s, rep);
	fprintf(f, ",\"seconds\":%.6f,\"result\":\"%s\",\"exit\":%d,\"error\":", rep->seconds,
	        rp_main_result_name(code), code);
	if (error)
		rp_main_json_string(f, error);
	else
		fputs("null", f);
	fputs("}\n", f);
}

static void rp_main_summary(const rp_options *opt, const rp_session *s, const rp_report *rep)
{
	printf("tsreplay: replayed %llu records of %s with %s in %.3f s", (unsigned long long)rep->executed,
	       opt->trace_path, rp_session_backends(s), rep->seconds);
	if (rep->executed)
		printf(" (seq %llu..%llu)", (unsigned long long)rep->first_seq,
		       (unsigned long long)rep->last_seq);
	if (opt->runs > 1)
		printf(", %u runs", rep->runs_done);
	printf("\n");
	if (rep->fast_forwarded || rep->from_keyframe) {
		printf("tsreplay: %llu records fast-forwarded", (unsigned long long)rep->fast_forwarded);
		if (rep->from_keyframe)
			printf(" from the keyframe at seq %llu", (unsigned long long)rep->keyframe_seq);
		printf("\n");
	}
	printf("tsreplay: checkpoints: %llu compared, %llu matched, %llu differ",
	       (unsigned long long)rep->checkpoints, (unsigned long long)rep->matched,
	       (unsigned long long)rep->mismatched);
	if (rep->not_compared) {
		uint64_t i, n = rep->not_compared < RP_NOT_COMPARED_LISTED ? rep->not_compared
		                                                           : RP_NOT_COMPARED_LISTED;
		printf(", %llu NOT COMPARED\n", (unsigned long long)rep->not_compared);
		printf("tsreplay: not compared (%s): checkpoint seq", rep->not_compared_why);
		for (i = 0; i < n; i++)
			printf("%s %llu", i ? "," : "", (unsigned long long)rep->not_compared_seq[i]);
		printf("%s\n", rep->not_compared > n ? ", ..." : "");
		printf("tsreplay: exit 0 says only that the %llu compared checkpoints matched\n",
		       (unsigned long long)rep->checkpoints);
	} else {
		printf("\n");
	}
	if (rep->keyframes_on && rep->keyframes)
		printf("tsreplay: keyframes: %llu compared with the replay's memory (%llu ranges, %llu bytes), "
		       "%llu differ\n", (unsigned long long)rep->keyframes,
		       (unsigned long long)rep->keyframe_ranges, (unsigned long long)rep->keyframe_bytes,
		       (unsigned long long)rep->keyframes_differ);
	if (rep->checkpoints == 0 && rep->not_compared == 0)
		printf("tsreplay: no checkpoints to compare: the %s holds none (a program that only "
		       "presents makes none: capture it with TRACESMITH_FRAME_HASH=1 to compare its "
		       "presented images); exit 0 says only that the replay ran\n",
		       opt->range.has_begin || opt->range.has_end ? "replayed range" : "trace");
	if (rep->frames) {
		printf("tsreplay: frames %llu-%llu replayed (%llu, numbered as in the captured run)",
		       (unsigned long long)rep->first_frame, (unsigned long long)rep->last_frame,
		       (unsigned long long)rep->frames);
		if (rep->frames_cut == 1)
			printf("; the trace ends after the present of frame %llu, before its FRAME "
			       "record", (unsigned long long)rep->last_frame);
		else if (rep->frames_cut)
			printf("; the trace ends after the presents of frames %llu-%llu, before their "
			       "FRAME records", (unsigned long long)(rep->last_frame - rep->frames_cut + 1),
			       (unsigned long long)rep->last_frame);
		printf("\n");
		/* What gfxrecon-replay prints at its end, for a like comparison. */
		printf("tsreplay: replay time %.3f s, %llu frames, %.1f frames per second\n",
		       rep->seconds, (unsigned long long)rep->frames,
		       rep->seconds > 0 ? (double)rep->frames / rep->seconds : 0.0);
	}
	if (opt->runs > 1)
		printf("tsreplay: runs %s\n", rep->runs.valid || rep->command.valid
		       ? "differ from each other" : opt->per_command
		       ? "agree with each other at every checkpoint and after every command"
		       : "agree with each other at every checkpoint");
	rp_main_schedule_summary(opt, s, rep);
	if (opt->per_command)
		printf("tsreplay: per-command: %llu results (command, allocation) compared per run\n",
		       (unsigned long long)rep->command_results);
	if (rep->unmodeled)
		printf("tsreplay: %llu calls in range were not modeled by the capture\n",
		       (unsigned long long)rep->unmodeled);
	if (opt->profile_path)
		printf("tsreplay: profile: %llu commands timed on %s, written to %s\n",
		       (unsigned long long)rep->profiled, rep->profile_device, opt->profile_path);
}

enum {
	RP_MAIN_OPT_RANGE = 256,
	RP_MAIN_OPT_RUNS,
	RP_MAIN_OPT_DEVICE,
	RP_MAIN_OPT_JSON,
	RP_MAIN_OPT_DETERMINISM,
	RP_MAIN_OPT_VERSION,
	RP_MAIN_OPT_PROFILE,
	RP_MAIN_OPT_PER_COMMAND,
	RP_MAIN_OPT_SCHEDULE_SEED,
	RP_MAIN_OPT_SCHEDULE_SEEDS,
	RP_MAIN_OPT_BACKEND /* + the backend option's index in the table */
};

static const struct option rp_main_fixed_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{"quiet", no_argument, NULL, 'q'},
	{"json", no_argument, NULL, RP_MAIN_OPT_JSON},
	{"check-determinism", no_argument, NULL, RP_MAIN_OPT_DETERMINISM},
	{"range", required_argument, NULL, RP_MAIN_OPT_RANGE},
	{"runs", required_argument, NULL, RP_MAIN_OPT_RUNS},
	{"device", required_argument, NULL, RP_MAIN_OPT_DEVICE},
	{"version", no_argument, NULL, RP_MAIN_OPT_VERSION},
	{"profile", optional_argument, NULL, RP_MAIN_OPT_PROFILE},
	{"per-command", no_argument, NULL, RP_MAIN_OPT_PER_COMMAND},
	{"schedule-seed", required_argument, NULL, RP_MAIN_OPT_SCHEDULE_SEED},
	{"schedule-seeds", required_argument, NULL, RP_MAIN_OPT_SCHEDULE_SEEDS},
};
#define RP_MAIN_NFIXED (sizeof(rp_main_fixed_opts) / sizeof(rp_main_fixed_opts[0]))

/* What the command line asked for, besides rp_options. */
typedef struct rp_main_args {
	int help, version, json, determinism, runs_given;
	int profile;             /* --profile given */
	const char *profile_to;  /* its FILE, NULL: TRACE.profile */
	char profile_path[4096]; /* the sidecar's path */
	int seed_given, seeds_given; /* --schedule-seed, --schedule-seeds */
	uint64_t *seeds;         /* their values; owned */
	size_t nseeds;
} rp_main_args;

/*
 * The getopt_long table: the fixed options, then every backend option
 * once (a name two backends share is one entry; both check its value).
 * *descs_out[k] is the backend option of val RP_MAIN_OPT_BACKEND + k.
 * Both arrays owned by the caller.
 */
static int rp_main_optable(const rp_backend_ops *const *backends, size_t n,
                           struct option **table_out, const rp_option_desc ***descs_out)
{
	size_t total = RP_MAIN_NFIXED, i, k = 0, j;
	const rp_option_desc *o;
	struct option *t;
	const rp_option_desc **descs;

	for (i = 0; i < n; i++)
		for (o = backends[i]->options; o && o->name; o++)
			total++;
	t = calloc(total + 1, sizeof(*t));
	descs = calloc(total + 1, sizeof(*descs));
	if (!t || !descs) {
		free(t);
		free(descs);
		return -1;
	}
	memcpy(t, rp_main_fixed_opts, sizeof(rp_main_fixed_opts));
	for (i = 0; i < n; i++) {
		for (o = backends[i]->options; o && o->name; o++) {
			for (j = 0; j < k && strcmp(descs[j]->name, o->name) != 0; j++)
				;
			if (j < k || strncmp(o->name, "--", 2) != 0)
				continue;
			descs[k] = o;
			t[RP_MAIN_NFIXED + k].name = o->name + 2;
			t[RP_MAIN_NFIXED + k].has_arg = o->value_name ? required_argument : no_argument;
			t[RP_MAIN_NFIXED + k].val = RP_MAIN_OPT_BACKEND + (int)k;
			k++;
		}
	}
	*table_out = t;
	*descs_out = descs;
	return 0;
}

/* What getopt_long refused, as a usage error. */
static int rp_main_getopt_error(int c, char **argv, const struct option *table)
{
	char msg[256];
	const char *needs = optopt == RP_MAIN_OPT_RANGE            ? "a value A:B"
	                    : optopt == RP_MAIN_OPT_RUNS           ? "a number"
	                    : optopt == RP_MAIN_OPT_SCHEDULE_SEED  ? "a seed (a decimal number)"
	                    : optopt == RP_MAIN_OPT_SCHEDULE_SEEDS ? "seeds A,B,..."
	                                                           : NULL;
	sbt_cli_getopt_message(table, c, argv, needs, msg, sizeof(msg));
	return rp_main_bad_usage("%s", msg);
}

/* One seed: plain decimal digits, 0 to 2^64 - 1.  0, or -1. */
static int rp_main_parse_seed(const char *text, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;
	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(text[i] - '0');
		if (text[i] < '0' || text[i] > '9' || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* --schedule-seed N (one seed) or --schedule-seeds A,B,... into ma.
 * 0, or the exit status. */
static int rp_main_seeds(const char *flag, const char *v, int list, rp_main_args *ma)
{
	const char *p = v;
	if (ma->seed_given || ma->seeds_given)
		return rp_main_bad_usage("%s: give one --schedule-seed or one --schedule-seeds list", flag);
	ma->seeds = calloc(RP_MAIN_MAX_SEEDS, sizeof(*ma->seeds));
	if (!ma->seeds) {
		fprintf(stderr, "tsreplay: out of memory\n");
		return RP_EXIT_ERROR;
	}
	for (;;) {
		size_t len = list ? strcspn(p, ",") : strlen(p);
		if (ma->nseeds == RP_MAIN_MAX_SEEDS)
			return rp_main_bad_usage("%s: at most %u seeds", flag, RP_MAIN_MAX_SEEDS);
		if (rp_main_parse_seed(p, len, &ma->seeds[ma->nseeds]) != 0) {
			if (list)
				return rp_main_bad_usage("%s: expected decimal numbers from 0 to %llu separated "
				                         "by commas, got '%.*s' in '%s'", flag,
				                         (unsigned long long)UINT64_MAX, (int)len, p, v);
			return rp_main_bad_usage("%s: expected a decimal number from 0 to %llu, got '%s'",
			                         flag, (unsigned long long)UINT64_MAX, v);
		}
		ma->nseeds++;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	if (list)
		ma->seeds_given = 1;
	else
		ma->seed_given = 1;
	return 0;
}

/* One option getopt_long returned.  0, or the exit status. */
static int rp_main_option(int c, const rp_option_desc *const *descs, rp_options *opt,
                          rp_option_value *bopts, rp_main_args *ma,
                          const rp_backend_ops *const *backends, size_t n)
{
	rp_diag diag = {""};
	const char *v = optarg;
	char *end = NULL;
	unsigned long r;

	switch (c) {
	case 1: /* the trace ("-" leading the option string: in order) */
		if (opt->trace_path)
			return rp_main_bad_usage("more than one trace given ('%s')", v);
		opt->trace_path = v;
		return 0;
	case 'h':
		ma->help = 1;
		return 0;
	case RP_MAIN_OPT_VERSION:
		ma->version = 1;
		return 0;
	case 'q':
		opt->quiet = 1;
		return 0;
	case RP_MAIN_OPT_JSON:
		ma->json = 1;
		return 0;
	case RP_MAIN_OPT_DETERMINISM:
		ma->determinism = 1;
		return 0;
	case RP_MAIN_OPT_PER_COMMAND:
		opt->per_command = 1;
		return 0;
	case RP_MAIN_OPT_RANGE:
		if (rp_range_parse(v, &opt->range, &diag) != RP_OK)
			return rp_main_bad_usage("--range: %s", diag.text);
		return 0;
	case RP_MAIN_OPT_RUNS:
		errno = 0;
		r = strtoul(v, &end, 10);
		if (errno || !*v || *end || v[0] == '-' || r < 2 || r > RP_MAIN_MAX_RUNS)
			return rp_main_bad_usage("--runs '%s': expected a number from 2 to 1000", v);
		opt->runs = (unsigned)r;
		ma->runs_given = 1;
		return 0;
	case RP_MAIN_OPT_DEVICE:
		opt->device = v;
		return 0;
	case RP_MAIN_OPT_SCHEDULE_SEED:
		return rp_main_seeds("--schedule-seed", v, 0, ma);
	case RP_MAIN_OPT_SCHEDULE_SEEDS:
		return rp_main_seeds("--schedule-seeds", v, 1, ma);
	case RP_MAIN_OPT_PROFILE:
		if (v && !*v)
			return rp_main_bad_usage("--profile=: expected a file name after '='");
		ma->profile = 1;
		ma->profile_to = v;
		return 0;
	default:
		break;
	}
	/* a backend option */
	if (opt->nbackend_options == RP_MAIN_MAX_BACKEND_OPTIONS)
		return rp_main_bad_usage("too many backend options (at '%s')",
		                         descs[c - RP_MAIN_OPT_BACKEND]->name);
	bopts[opt->nbackend_options].name = descs[c - RP_MAIN_OPT_BACKEND]->name;
	bopts[opt->nbackend_options].value = descs[c - RP_MAIN_OPT_BACKEND]->value_name ? v : NULL;
	if (rp_main_check_backend_option(&bopts[opt->nbackend_options], backends, n, &diag) != RP_OK)
		return rp_main_bad_usage("%s", diag.text);
	opt->nbackend_options++;
	return 0;
}

/* Parse argv into opt and ma.  0, or the exit status (usage shown). */
static int rp_main_parse(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                         rp_options *opt, rp_option_value *bopts, rp_main_args *ma)
{
	struct option *table = NULL;
	const rp_option_desc **descs = NULL;
	int c, rc = 0;

	if (rp_main_optable(backends, n, &table, &descs) != 0) {
		fprintf(stderr, "tsreplay: out of memory\n");
		return RP_EXIT_ERROR;
	}
	opterr = 0;
	optind = 1;
	while (rc == 0 && !ma->help && (c = getopt_long(argc, argv, "-:hq", table, NULL)) != -1) {
		if (c == '?' || c == ':')
			rc = rp_main_getopt_error(c, argv, table);
		else
			rc = rp_main_option(c, descs, opt, bopts, ma, backends, n);
	}
	for (; rc == 0 && !ma->help && optind < argc; optind++) { /* after "--" */
		optarg = argv[optind];
		rc = rp_main_option(1, descs, opt, bopts, ma, backends, n);
	}
	free(descs);
	free(table);
	return rc;
}

#define RP_MAIN_RACES_SHOWN 8
#define RP_MAIN_RACES_ASKED 256 /* of which those naming the call are shown first */

/* Runs that part where one ran serialised and the other concurrently:
 * the work's order decided the result, so a race is the likely cause.
 * Name the emulator's candidate pairs that touch the checked memory. */
static void rp_main_print_race(const rp_session *s, const rp_mismatch *m, const char *path,
                               rp_race_lookup_fn races)
{
	const char *a = rp_session_run_mode(s, m->other_run), *b = rp_session_run_mode(s, m->run);
	rp_race_pair *pairs = NULL;
	uint64_t lo = m->object + m->range_offset, hi = lo + m->range_length;
	rp_diag d = {""};
	size_t npairs = 0, kept, i, shown = 0;
	int pass;

	if (!a || !b || strcmp(a, b) == 0)
		return;
	if (m->per_command || m->keyframe)
		fprintf(stderr, "tsreplay: likely race: run %u (%s) and run %u (%s) part after the command "
		        "at seq %llu (%s, memory 0x%llx..0x%llx); only the order of the work differed\n",
		        m->other_run, a, m->run, b, (unsigned long long)m->call_seq,
		        m->call_found ? m->call_name : "(not found)", (unsigned long long)lo,
		        (unsigned long long)hi);
	else
		fprintf(stderr, "tsreplay: likely race: run %u (%s) and run %u (%s) part at checkpoint seq "
		        "%llu (call seq %llu %s, memory 0x%llx..0x%llx); only the order of the work "
		        "differed\n", m->other_run, a, m->run, b, (unsigned long long)m->checkpoint_seq,
		        (unsigned long long)m->call_seq, m->call_found ? m->call_name : "(not found)",
		        (unsigned long long)lo, (unsigned long long)hi);
	if (!races) {
		fputs("  (this build has no emulator to name candidate race pairs)\n", stderr);
		return;
	}
	pairs = calloc(RP_MAIN_RACES_ASKED, sizeof(*pairs));
	if (!pairs) {
		fputs("  out of memory looking for races\n", stderr);
		return;
	}
	if (races(path, lo, hi, pairs, RP_MAIN_RACES_ASKED, &npairs, &d) != RP_OK) {
		fprintf(stderr, "  the emulator could not look for races: %s\n", d.text);
		goto out_free;
	}
	if (npairs == 0) {
		fputs("  the emulator finds no unordered pair of commands touching that memory (an order "
		      "it does not model, or work the trace does not show)\n", stderr);
		goto out_free;
	}
	fprintf(stderr, "  the emulator's candidate race pairs touching that memory (%zu; those of "
	        "seq %llu first):\n", npairs, (unsigned long long)m->call_seq);
	kept = npairs < RP_MAIN_RACES_ASKED ? npairs : RP_MAIN_RACES_ASKED;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < kept && shown < RP_MAIN_RACES_SHOWN; i++) {
			const rp_race_pair *p = &pairs[i];
			int names_call = p->first.seq == m->call_seq || p->second.seq == m->call_seq;
			if (names_call != (pass == 0))
				continue;
			shown++;
			fprintf(stderr, "  race (%s): seq %llu %s %s %s 0x%llx..0x%llx <-> seq %llu %s %s %s "
			        "0x%llx..0x%llx\n", p->confirmed ? "confirmed" : "possible",
			        (unsigned long long)p->first.seq, p->first.kind, p->first.name, p->first.access,
			        (unsigned long long)p->first.lo, (unsigned long long)p->first.hi,
			        (unsigned long long)p->second.seq, p->second.kind, p->second.name, p->second.access,
			        (unsigned long long)p->second.lo, (unsigned long long)p->second.hi);
		}
	}
	if (npairs > shown)
		fprintf(stderr, "  ... and %zu more (tsreplay --emulate lists them all)\n", npairs - shown);
out_free:
	free(pairs);
}

int rp_main(int argc, char **argv, const rp_backend_ops *const *backends, size_t n)
{
	return rp_main_ext(argc, argv, backends, n, NULL);
}

int rp_main_races(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                  rp_race_lookup_fn races)
{
	rp_main_extras extras = {races, NULL};
	return rp_main_ext(argc, argv, backends, n, &extras);
}

/* rp_main_ext with what it parses in ma (its seeds freed by the caller). */
static int rp_main_run(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                       const rp_main_extras *extras, rp_main_args *ma);

int rp_main_ext(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                const rp_main_extras *extras)
{
	static const rp_main_extras none = {NULL, NULL};
	rp_main_args ma;
	int code;

	memset(&ma, 0, sizeof(ma));
	code = rp_main_run(argc, argv, backends, n, extras ? extras : &none, &ma);
	free(ma.seeds);
	return code;
}

static int rp_main_run(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                       const rp_main_extras *extras, rp_main_args *ma)
{
	rp_options opt = {0};
	rp_session *s = NULL;
	rp_report rep;
	rp_option_value bopts[RP_MAIN_MAX_BACKEND_OPTIONS];
	rp_diag diag = {""};
	int code = RP_EXIT_OK;
	int failed;
	struct stat sb;
	sbt_window win;
	rp_status st;

	memset(&rep, 0, sizeof(rep));
	opt.range.end = UINT64_MAX;
	opt.backend_options = bopts;
	opt.runs = 1;
	code = rp_main_parse(argc, argv, backends, n, &opt, bopts, ma);
	if (code != 0)
		return code;
	if (ma->help) {
		rp_main_usage(stdout, backends, n, extras->orders != NULL);
		return RP_EXIT_OK;
	}
	if (ma->version) {
		sbt_cli_version("tsreplay");
		return RP_EXIT_OK;
	}
	if (!opt.trace_path)
		return rp_main_bad_usage("no trace given");
	if (ma->runs_given && !ma->determinism)
		return rp_main_bad_usage("--runs needs --check-determinism");
	if (ma->determinism && !ma->runs_given)
		opt.runs = RP_MAIN_DEFAULT_RUNS;
	if (ma->seeds_given && !ma->determinism)
		return rp_main_bad_usage("--schedule-seeds replays once per seed and compares the runs: "
		                         "it needs --check-determinism (one seed: --schedule-seed N)");
	if (ma->seeds_given && !ma->runs_given && ma->nseeds >= 2)
		opt.runs = (unsigned)ma->nseeds;
	if (opt.per_command && !ma->determinism)
		return rp_main_bad_usage("--per-command compares runs with each other after every "
		                         "command: it needs --check-determinism");
	if (ma->profile && ma->determinism)
		return rp_main_bad_usage("--profile times one run; it does not go with "
		                         "--check-determinism");
	if (ma->profile) {
		int len = snprintf(ma->profile_path, sizeof(ma->profile_path), "%s%s",
		                   ma->profile_to ? ma->profile_to : opt.trace_path,
		                   ma->profile_to ? "" : ".profile");
		if (len < 0 || (size_t)len >= sizeof(ma->profile_path))
			return rp_main_bad_usage("--profile: the sidecar's path is too long");
		opt.profile_path = ma->profile_path;
	}
	if (ma->seed_given || ma->seeds_given) {
		opt.schedule_seeds = ma->seeds;
		opt.nschedule_seeds = ma->nseeds;
		opt.orders = extras->orders;
		/* runs of different orders are compared command by command, to
		 * name the first command whose result the order changed */
		if (ma->seeds_given && !opt.per_command)
			opt.per_command = 2; /* where the backends can (rp_session_per_command) */
	}
	opt.progress = !opt.quiet && isatty(STDERR_FILENO);

	if (stat(opt.trace_path, &sb) != 0) {
		rp_diag_set(&diag, "%s: %s", opt.trace_path, strerror(errno));
		code = RP_EXIT_ERROR;
		goto out_report;
	}
	/* From here on, RP_ERR_USAGE is a value only the trace or the device
	 * could refuse (--device for the trace's backend): still a usage error. */
	st = rp_session_open(&opt, backends, n, &s, &diag);
	if (st != RP_OK) {
		code = st == RP_ERR_USAGE ? RP_EXIT_USAGE : RP_EXIT_ERROR;
		goto out_report;
	}
	opt.per_command = rp_session_per_command(s); /* an implied one may be dropped */
	if (!opt.quiet && rp_session_window(s, &win))
		rp_main_print_window(opt.trace_path, &win);
	if (!opt.quiet && rp_session_unclosed(s))
		fprintf(stderr, "tsreplay: note: %s was not closed by its capture (no index: the "
		        "program was killed or died while recording); it holds the calls up to its "
		        "last flush, and the replay ends there\n", opt.trace_path);
	st = rp_session_replay(s, &rep, &diag);
	if (st != RP_OK)
		code = st == RP_ERR_USAGE ? RP_EXIT_USAGE : RP_EXIT_ERROR;
	else if (rep.runs.valid || rep.command.valid)
		code = RP_EXIT_NONDETERM;
	else if (rep.capture.valid)
		code = RP_EXIT_MISMATCH;
	/* A mismatch found before an error is still worth showing. */
	if (rep.capture.valid)
		rp_main_print_mismatch(s, &rep.capture);
	if (rep.capture.valid && !rep.capture.keyframe && rep.mismatched > 1)
		fprintf(stderr, "tsreplay: %llu more checkpoints differ from the capture after it\n",
		        (unsigned long long)(rep.mismatched - 1));
	else if (rep.capture.keyframe && rep.mismatched)
		fprintf(stderr, "tsreplay: %llu checkpoints differ from the capture after it\n",
		        (unsigned long long)rep.mismatched);
	if (rep.command.valid) {
		rp_main_print_mismatch(s, &rep.command);
		rp_main_print_race(s, &rep.command, opt.trace_path, extras->races);
	}
	if (rep.runs.valid) {
		rp_main_print_mismatch(s, &rep.runs);
		rp_main_print_race(s, &rep.runs, opt.trace_path, extras->races);
	}
out_report:
	failed = code == RP_EXIT_ERROR || code == RP_EXIT_USAGE;
	if (failed)
		fprintf(stderr, "tsreplay: %s\n", diag.text[0] ? diag.text : "replay failed");
	if (ma->json)
		rp_main_json(&opt, s, &rep, code, failed ? diag.text : NULL);
	else if (!opt.quiet && s && !failed)
		rp_main_summary(&opt, s, &rep);
	rp_session_close(s);
	return code;
}
