/*
 * rp_session.h - the replay engine behind rp_main (internal to replayer/).
 *
 * A session opens a trace twice (one reader the engine iterates, one for
 * random access that backends and reports use), opens the backends the
 * trace's "api" metadata names, and replays the selected range once per
 * run, comparing every checkpoint with the capture and, from the second
 * run on, with the first run.  rp_main turns the report into text or JSON.
 */
#ifndef TRACESMITH_RP_SESSION_H
#define TRACESMITH_RP_SESSION_H

#include "replayer/rp.h"

typedef struct rp_options {
	const char *trace_path;
	rp_range range;
	unsigned runs;       /* 1, or N for --check-determinism */
	const char *device;
	int quiet;
	int progress;        /* 1: a counter on stderr (a terminal, not --quiet) */
	const rp_option_value *backend_options; /* for the backends' open */
	size_t nbackend_options;
	const char *profile_path; /* --profile: the sidecar to write; NULL: none */
	int per_command;     /* --per-command: runs compared after every command;
	                        2: implied (--schedule-seeds), dropped for the
	                        checkpoints where a backend cannot check after
	                        every command (rp_session_per_command says) */
	/* --schedule-seed(s): run r replays its commands in the order sampled
	 * from seed schedule_seeds[(r - 1) % nschedule_seeds] (docs/replay.md
	 * "Sampled orders"); NULL: in seq order.  orders must then be set. */
	const uint64_t *schedule_seeds;
	size_t nschedule_seeds;
	const rp_order_source *orders;
} rp_options;

/* One place where two results part: the replay and the capture (other_run
 * 0) or two runs. */
typedef struct rp_mismatch {
	int valid;
	unsigned run;             /* the run whose bytes are shown (from 1) */
	unsigned other_run;       /* 0: the capture; else the run compared with */
	size_t index;             /* checkpoint index within the range */
	uint64_t checkpoint_seq;
	uint64_t call_seq;
	uint64_t object;
	uint64_t range_offset, range_length;
	uint64_t expected_hash, actual_hash;
	int located;
	uint64_t diff_offset, diff_len;
	uint32_t block_size;
	uint8_t bytes[16];        /* the run's bytes at diff_offset */
	size_t nbytes;
	int per_command;          /* a --per-command result: checkpoint_seq = call_seq = the
	                             command, object = the captured allocation */
	int part_found;           /* --per-command: part names the command inside the
	                             unit at call_seq (rp_backend_ops.command_part) */
	rp_command_part part;
	int call_found;           /* the call record was found in the trace */
	uint32_t call_type;
	char call_name[96];
	uint32_t stack_id;
	/* A keyframe compared with the replay's memory (rp_keyframe_report):
	 * checkpoint_seq = the keyframe, call_seq = the last command that may
	 * have written the range, object = where the range starts (captured),
	 * range_offset 0; capture_bytes the keyframe's at diff_offset. */
	int keyframe;
	uint8_t capture_bytes[16];
} rp_mismatch;

#define RP_NOT_COMPARED_LISTED 32

typedef struct rp_report {
	unsigned runs_done;
	uint64_t executed;           /* API records in range, per run */
	uint64_t fast_forwarded;     /* API records before the range start, per run */
	uint64_t first_seq, last_seq; /* of executed records (valid when executed) */
	uint64_t checkpoints;        /* compared per run */
	uint64_t matched;            /* in run 1 */
	uint64_t mismatched;         /* in run 1 */
	uint64_t not_compared;       /* in run 1: the backend had no comparable bytes */
	uint64_t not_compared_seq[RP_NOT_COMPARED_LISTED]; /* the first of them (checkpoint seqs) */
	char not_compared_why[160];  /* the backend's reason for the first */
	uint64_t unmodeled;          /* SBT_TYPE_UNMODELED records met in range */
	int from_keyframe;
	uint64_t keyframe_seq;
	/* Frames replayed (not fast-forwarded), with the captured run's
	 * numbers: FRAME records, plus presents at the end of the trace whose
	 * FRAME record was cut off (frames_cut; docs/replay.md "Frames"). */
	uint64_t frames;
	uint64_t first_frame, last_frame; /* valid when frames > 0 */
	uint64_t frames_cut;
	rp_mismatch capture;         /* first mismatch with the capture (run 1) */
	rp_mismatch runs;            /* first place where runs part */
	rp_mismatch command;         /* --per-command: first command after which runs part */
	uint64_t command_results;    /* --per-command: (command, range) results per run */
	int keyframes_on;            /* some backend compares keyframes (keyframe_results) */
	uint64_t keyframes, keyframes_differ; /* in run 1: compared, and of them differing */
	uint64_t keyframe_ranges, keyframe_bytes; /* in run 1: (keyframe, range) pairs, bytes */
	double seconds;
	uint64_t profiled;           /* --profile: commands timed (entries written) */
	char profile_device[256];    /* --profile: the device that timed them */
} rp_report;

typedef struct rp_session rp_session;

rp_status rp_session_open(const rp_options *opt, const rp_backend_ops *const *backends,
                          size_t nbackends, rp_session **out, rp_diag *diag);
/* Replay every run; fills the report even when it fails part way. */
rp_status rp_session_replay(rp_session *s, rp_report *rep, rp_diag *diag);
/* 1 and the window when the trace is trimmed (its first record is
 * SBT_TYPE_WINDOW: one capture window of a run), else 0. */
int rp_session_window(const rp_session *s, sbt_window *out);
/* 1 when the trace was not closed by its writer (no index: the program was
 * killed or died before its capture finished) and no torn tail was dropped:
 * it holds the calls up to its last flush. */
int rp_session_unclosed(const rp_session *s);
/* Names of the backends in use, comma-separated ("" before open). */
const char *rp_session_backends(const rp_session *s);
/* Print the captured host stack of stack_id to f, indented; nothing when
 * the trace has none. */
void rp_session_print_stack(const rp_session *s, uint32_t stack_id, void *f);
/* Runs grouped by the hash they got where m parts them, e.g.
 * "runs 1,2: 0x...; run 3: 0x..." ("" when unknown). */
void rp_session_run_groups(const rp_session *s, const rp_mismatch *m, char *buf, size_t len);
/* How run (from 1) scheduled its work, as a backend's run_mode said
 * ("serialised", "concurrent"); NULL when no backend tells runs apart. */
const char *rp_session_run_mode(const rp_session *s, unsigned run);
/* The sampled order run (from 1) replayed in: 1 and *seed_out, *out
 * (out->items NULL: only the counts and the hash are kept), or 0 when
 * the run kept seq order. */
int rp_session_schedule(const rp_session *s, unsigned run, uint64_t *seed_out, rp_order *out);
/* Whether the runs are compared after every command (1) or at the
 * checkpoints (0): --per-command, or --schedule-seeds where every backend
 * in use can. */
int rp_session_per_command(const rp_session *s);
void rp_session_close(rp_session *s);

/* rp_profile.c: the sidecar of --profile (rp.h has the backends' part). */
rp_status rp_profile_create(const uint8_t trace_id[16], const char *api, rp_profile **out);
size_t rp_profile_count(const rp_profile *p);
const char *rp_profile_device(const rp_profile *p);
/* Write the sidecar to path (entries sorted by submit, then seq). */
rp_status rp_profile_write(rp_profile *p, const char *path, rp_diag *diag);
void rp_profile_free(rp_profile *p);

#endif
