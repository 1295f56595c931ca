/*
 * rp.h - the replayer core and the interface its backends implement.
 *
 * The core knows ranges, checkpoints and hashes; a backend knows one API.
 * The core reads a trace in sequence order and hands every API record
 * (type >= SBT_TYPE_FIRST_API) to the backend whose API owns the record's
 * type name ("api.call": the part before the first '.').  At each record of
 * type SBT_TYPE_CHECKPOINT it asks that backend for the replay's bytes of the
 * checkpointed object range, hashes them and compares with the capture.
 *
 * Backends are linked statically and listed in a table that a main program
 * passes to rp_main(): tsreplay proper lists the real backends, test programs
 * add test doubles.  A backend is reused for several runs of the same trace
 * (--check-determinism): open once, reset between runs, close at the end.
 *
 * Ownership: pointers named *_out / out are written by the callee; every
 * other pointer is borrowed for the duration of the call unless its comment
 * says otherwise.  Nothing here keeps global state: a backend's state lives
 * in the pointer its open returns.
 */
#ifndef TRACESMITH_RP_H
#define TRACESMITH_RP_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

/* ---- status ---------------------------------------------------------- */

#define RP_STATUS_LIST(X)                                                     \
	X(RP_OK, "success")                                                       \
	X(RP_ERR_ARG, "invalid argument")                                         \
	X(RP_ERR_NOMEM, "out of memory")                                          \
	X(RP_ERR_TRACE, "trace could not be read")                                \
	X(RP_ERR_DECODE, "record payload could not be decoded")                   \
	X(RP_ERR_UNSUPPORTED, "not supported by this backend")                    \
	X(RP_ERR_NOT_FOUND, "object not found")                                   \
	X(RP_ERR_BACKEND, "backend failure")                                      \
	X(RP_ERR_USAGE, "bad command-line value")

typedef enum {
#define RP_X_ENUM(name, msg) name,
	RP_STATUS_LIST(RP_X_ENUM)
#undef RP_X_ENUM
	RP_STATUS_COUNT
} rp_status;

const char *rp_strerror(rp_status st);

/* A caller-owned buffer an operation writes its error text into, naming
 * the thing that failed (record seq, object, offset). */
typedef struct rp_diag {
	char text[512];
} rp_diag;

void rp_diag_set(rp_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- replay profiling (tsreplay --profile; rp_profile.c owns the format) -- */

/* The timings of one profiled run, written as the sidecar file
 * docs/replay.md "Profile sidecar" describes.  A backend adds one entry
 * per command it timed; the core writes the file. */
typedef struct rp_profile rp_profile;

typedef struct rp_profile_entry {
	uint64_t seq;        /* the command's record (a vkCmd* record on Vulkan) */
	uint64_t submit_seq; /* the record that made it run: the submit on Vulkan,
	                        seq itself on CUDA */
	uint64_t stream;     /* captured stream or queue handle (0: legacy stream) */
	uint64_t start_ns, end_ns; /* device timeline, from the run's first timed command */
} rp_profile_entry;

/* Add one entry (copied).  RP_ERR_NOMEM when out of memory. */
rp_status rp_profile_add(rp_profile *p, const rp_profile_entry *e);
/* The device the timings come from, one line (copied). */
void rp_profile_set_device(rp_profile *p, const char *name);

/* ---- backend interface ------------------------------------------------ */

/* A backend-specific command-line option (listed in the backend's ops;
 * tsreplay accepts it, shows it in --help, has the backend's check_option
 * check its value while parsing the command line, and hands what was given
 * to the backend's open).  Options of backends a trace does not use are
 * checked like the others, then ignored. */
typedef struct rp_option_desc {
	const char *name;       /* "--screenshot" */
	const char *value_name; /* "N[,M...]", or NULL for a flag */
	const char *help;       /* one line */
} rp_option_desc;

/* One backend option as given on the command line. */
typedef struct rp_option_value {
	const char *name;       /* as in rp_option_desc */
	const char *value;      /* NULL for a flag; borrowed from argv */
} rp_option_value;

typedef struct rp_backend_open_args {
	/* A reader of the trace for random access (blobs, strings, type names,
	 * metadata), borrowed until close.  It is not the reader the core
	 * iterates, so using it never moves the replay's position. */
	sbt_reader *trace;
	const char *trace_path;
	const char *device; /* --device argument, NULL when not given */
	int quiet;          /* 1: print nothing but errors */
	/* Backend options given (every backend's; a backend reads its own),
	 * in command-line order. */
	const rp_option_value *options;
	size_t noptions;
	/* The captured run's number of the trace's first frame: 1, or for a
	 * trimmed trace (one capture window, docs/replay.md "Frames") the
	 * window's first frame.  A backend that numbers frames (--screenshot,
	 * its summary) numbers them from here, as the run did. */
	uint64_t first_frame;
	/* --profile: where the timings of the first run go (borrowed until
	 * close); NULL when not profiling.  A backend that profiles times the
	 * commands it executes (not fast-forwarded ones) and hands the
	 * timings over in profile_finish. */
	rp_profile *profile;
	/* --per-command: keep, for every command executed (not fast-forwarded),
	 * the bytes it left in the memory it may have written, and hand them
	 * over in command_results at the end of each run. */
	int per_command;
	/* --schedule-seed: the core hands the commands over in a sampled
	 * order, not in seq order (a command record may come after records
	 * the capture made later; docs/replay.md "Sampled orders").  The
	 * device must run every command in the order execute gets it, each
	 * after the one before has finished (one stream or queue).  Only
	 * given to backends whose ops say serialises. */
	int serialise;
} rp_backend_open_args;

/* One command's result for --per-command: what the memory it may have
 * written (one captured range of it) held once the command finished.
 * bytes is borrowed for the call.  Returns RP_OK to go on. */
typedef rp_status (*rp_command_result_fn)(void *ctx, uint64_t seq, uint64_t object,
                                          const void *bytes, uint64_t len, rp_diag *diag);

/* --per-command: the command inside one of a backend's units of results
 * (a Vulkan submit: its command buffers' vkCmd*) whose own result first
 * differs between two runs (rp_backend_ops.command_part). */
typedef struct rp_command_part {
	uint64_t seq;              /* its record */
	char call[48];             /* its call: "vkCmdDispatch" */
	char unit[24];             /* what the unit is: "submit" */
	char group[24];            /* what holds it in the unit: "command buffer" */
	uint32_t group_index;      /* which of the unit's groups, from 0 */
	uint32_t index;            /* its place in that group, from 0 */
} rp_command_part;

/* What a backend found comparing the full keyframes it met in the middle
 * of one run with the replay's memory there (docs/replay.md "Keyframes
 * compared with the capture"). */
typedef struct rp_keyframe_report {
	uint64_t compared;      /* keyframes with at least one range compared */
	uint64_t differ;        /* of them, those where some range differed */
	uint64_t ranges;        /* (keyframe, range) pairs compared */
	uint64_t bytes;         /* bytes compared */
	/* The first range that differed (valid when differ): */
	uint64_t keyframe_seq;  /* the keyframe's marker */
	uint64_t command_seq;   /* the last command before it that may have written the range */
	uint64_t object;        /* captured address where the compared range starts */
	uint64_t length;        /* bytes compared there */
	uint64_t diff_offset;   /* first differing block, from object */
	uint64_t diff_len;      /* its bytes */
	uint8_t bytes_replay[16], bytes_capture[16]; /* from diff_offset */
	size_t nbytes;
	uint64_t expected_hash, actual_hash; /* of the whole range: capture, replay */
} rp_keyframe_report;

/* Flags for execute. */
enum {
	/* The record lies before the range's start: it is executed to build
	 * state, and its checkpoints are not compared. */
	RP_EXEC_FAST_FORWARD = 1u << 0
};

typedef struct rp_backend_ops {
	const char *name; /* e.g. "cuda", "testapi-double"; shown in --help */
	const char *api;  /* matched against the trace's meta "api" and the
	                     prefix of its type names, e.g. "vulkan", "testapi" */

	/* Create a backend instance in clean state (*state_out owned by the
	 * core, released with close). */
	rp_status (*open)(const rp_backend_open_args *args, void **state_out, rp_diag *diag);

	/* Execute one API record.  rec->payload is valid for this call only.
	 * Results must be computed, not taken from the trace: the trace holds
	 * only their hashes. */
	rp_status (*execute)(void *state, const sbt_record *rec, unsigned flags, rp_diag *diag);

	/* The replay's bytes of expected->object at [expected->offset,
	 * expected->offset + expected->length), as of now.  *bytes_out is owned
	 * by the backend and valid until its next call.  RP_OK with *bytes_out
	 * NULL: the backend knows its bytes say nothing about the capture (the
	 * work behind them did not run on this driver); diag says why, and the
	 * checkpoint is counted as not compared, neither a match nor a
	 * mismatch. */
	rp_status (*checkpoint)(void *state, const sbt_checkpoint *expected,
	                        const void **bytes_out, rp_diag *diag);

	/* Called at every SBT_TYPE_KEYFRAME record.  restore = 1 when the
	 * replay starts at this keyframe: the backend is in clean state and the
	 * snapshot records that follow the marker rebuild every live object.
	 * restore = 0 when the keyframe is met in the middle of a replay: its
	 * snapshot records must then change nothing (applying them would hide
	 * a divergence).  NULL: the backend cannot restore keyframes and the
	 * core fast-forwards from the start of the trace instead. */
	rp_status (*keyframe)(void *state, const sbt_record *marker, int restore,
	                      rp_diag *diag);

	/* Whether a replay may start at this keyframe (a --range restore point).
	 * NULL: every keyframe may.  A keyframe holding only the memory that
	 * replay cannot rebuild from the recorded calls may not. */
	int (*keyframe_is_start)(const sbt_record *marker);

	/* Back to the state open left, for another run. */
	rp_status (*reset)(void *state, rp_diag *diag);

	/* Release everything.  NULL state is a no-op. */
	void (*close)(void *state);

	/* Options this backend accepts, ended by an entry with a NULL name;
	 * NULL: none. */
	const rp_option_desc *options;

	/* Check one command-line value without touching a device, so that a
	 * bad one is a usage error (exit 2) before anything is replayed.
	 * Called for each of this backend's options as soon as it is parsed
	 * (whatever API the trace has), and for "--device" when given, once
	 * the trace shows this backend is used and before its open.  Returns
	 * RP_OK, or RP_ERR_USAGE with a message naming the flag and the value
	 * ("--streams: expected single or multi, got 'bogus'").  What needs
	 * the device (an index beyond the devices present) is checked by open
	 * or execute, which return RP_ERR_USAGE for it too.  NULL: every value
	 * is accepted here. */
	rp_status (*check_option)(const rp_option_value *opt, rp_diag *diag);

	/* With --profile, after the first run's last record: wait for the
	 * device, then add every command timed in that run to the profile
	 * given at open (rp_profile_add).  NULL: this backend cannot profile,
	 * and tsreplay --profile refuses its traces. */
	rp_status (*profile_finish)(void *state, rp_diag *diag);

	/* How the run now starting schedules its work, when runs of one
	 * session differ in it (CUDA --streams single,multi: "serialised" or
	 * "concurrent"); NULL or a NULL answer: every run alike.  Asked after
	 * open and after each reset.  Runs that part where one was serialised
	 * and the other concurrent point at a race (tsreplay reports it so). */
	const char *(*run_mode)(void *state);

	/* --per-command, after a run's last record: wait for the device, then
	 * call fn once per (command, range) in the order the commands were
	 * executed, each range once per command (the backend names the
	 * footprint it keeps; docs/replay.md "Per-command checkpoints").  NULL:
	 * this backend cannot, and tsreplay --per-command refuses its traces. */
	rp_status (*command_results)(void *state, rp_command_result_fn fn, void *ctx, rp_diag *diag);

	/* 1: open honours rp_backend_open_args.serialise (the backend runs
	 * its commands one at a time, in execute order).  0: tsreplay
	 * --schedule-seed refuses this backend's traces. */
	int serialises;

	/* After each run's last record (before command_results): what the
	 * backend found comparing the full keyframes met mid-replay with its
	 * memory, into *out (zeroed by the caller).  NULL: this backend does
	 * not compare keyframes (their snapshots only change nothing). */
	rp_status (*keyframe_results)(void *state, rp_keyframe_report *out, rp_diag *diag);

	/* --per-command (optional), after command_results of a run whose
	 * result of the command at seq (a unit of several commands) differs
	 * from run 1's: the command inside it whose own result first differs
	 * between this run and run 1, into *out.  1: named; 0: none found
	 * (the unit is named alone).  NULL: results name whole commands. */
	int (*command_part)(void *state, uint64_t seq, rp_command_part *out);
} rp_backend_ops;

/* ---- the program ------------------------------------------------------ */

/* Exit statuses of rp_main (documented in --help and docs/replay.md). */
enum {
	RP_EXIT_OK = 0,         /* every checkpoint matched; all runs agreed */
	RP_EXIT_ERROR = 1,      /* unreadable or damaged trace, no backend, backend failure */
	RP_EXIT_USAGE = 2,      /* bad command line, or RP_ERR_USAGE from a backend */
	RP_EXIT_MISMATCH = 3,   /* the replay differs from the capture (runs agree) */
	RP_EXIT_NONDETERM = 4   /* runs differ from each other */
};

/* The whole tsreplay command: parse argv, replay, report, return the exit
 * status.  backends: the table of this build's backends (n may be 0). */
int rp_main(int argc, char **argv, const rp_backend_ops *const *backends, size_t n);

/* One command of a candidate race pair, as the emulator names it. */
typedef struct rp_race_side {
	uint64_t seq;
	char kind[24];
	char name[96];
	char access[24];     /* "writes", "reads", "reads and may write" */
	uint64_t lo, hi;     /* captured addresses [lo, hi) */
} rp_race_side;

typedef struct rp_race_pair {
	int confirmed;
	rp_race_side first, second;
} rp_race_pair;

/* The candidate races of the trace at path (pairs of commands nothing
 * orders, one writing) with a side touching captured memory [lo, hi):
 * up to max of them into pairs, their number (all, not only those kept)
 * into *n_out.  tsreplay answers with the emulator (emulator/emu.h). */
typedef rp_status (*rp_race_lookup_fn)(const char *path, uint64_t lo, uint64_t hi,
                                       rp_race_pair *pairs, size_t max, size_t *n_out,
                                       rp_diag *diag);

/* rp_main, with a race lookup for runs that part between a serialised
 * and a concurrent run (NULL: such a difference is reported without the
 * pairs). */
int rp_main_races(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                  rp_race_lookup_fn races);

/*
 * Sampled orders for --schedule-seed (docs/replay.md "Sampled orders"):
 * where the commands come from.  tsreplay answers with the emulator
 * (emu_order_*, emulator/emu.h).  The core holds every command record
 * the order names when it reads it and hands it to its backend before the
 * record the order says, in the order's sequence.
 */
typedef struct rp_order_item {
	uint64_t seq;            /* the command's record */
	uint64_t release_before; /* executed before the first record of seq >= this
	                            (UINT64_MAX: after the last); > seq */
} rp_order_item;

typedef struct rp_order {
	const rp_order_item *items; /* in the order the device runs them; borrowed
	                               from the source until its next sample or close */
	size_t n;
	uint64_t hash;              /* of the order (equal orders, equal hashes) */
	uint64_t moved;             /* commands run after one the capture issued later */
} rp_order;

typedef struct rp_order_source {
	/* Read the trace at path; *ctx_out owned by the source until close.
	 * RP_ERR_USAGE, with diag saying why, for a trace no order is made for. */
	rp_status (*open)(const char *path, void **ctx_out, rp_diag *diag);
	/* The order of seed (the same seed, the same order). */
	rp_status (*sample)(void *ctx, uint64_t seed, rp_order *out, rp_diag *diag);
	/* What the command of record seq is, for reports ("kernel vadd");
	 * written into buf, empty when nothing is known. */
	void (*describe)(void *ctx, uint64_t seq, char *buf, size_t len);
	void (*close)(void *ctx);
} rp_order_source;

/* What a tsreplay build adds to rp_main: the emulator's race lookup and
 * sampled orders (either may be NULL). */
typedef struct rp_main_extras {
	rp_race_lookup_fn races;
	const rp_order_source *orders;
} rp_main_extras;

int rp_main_ext(int argc, char **argv, const rp_backend_ops *const *backends, size_t n,
                const rp_main_extras *extras);

/* ---- core helpers (exposed for tests) ---------------------------------- */

/* A half-open range [begin, end) of global sequence numbers. */
typedef struct rp_range {
	uint64_t begin;  /* 0 when "A" was omitted */
	uint64_t end;    /* UINT64_MAX when "B" was omitted */
	int has_begin, has_end;
} rp_range;

/* Parse "A:B", "A:" or ":B" (decimal).  Fails with a message naming the
 * problem for anything else, for A >= B, and for numbers over 2^64 - 1. */
rp_status rp_range_parse(const char *text, rp_range *out, rp_diag *diag);

/* Outcome of comparing bytes (or a second checkpoint) with a checkpoint. */
typedef struct rp_check_result {
	int match;              /* 1: whole-range hashes are equal */
	int located;            /* 1 (when !match): a differing block was found */
	uint64_t block;         /* index of the first differing block */
	uint64_t diff_offset;   /* in the object: expected.offset + block * block_size */
	uint64_t diff_len;      /* bytes in that block */
	uint64_t actual_hash;
} rp_check_result;

/* Hash len bytes of data (the replay's view of expected's range) and
 * compare with expected: the whole hash, then block by block to find the
 * first differing block.  len must equal expected->length. */
rp_status rp_check_bytes(const sbt_checkpoint *expected, const void *data, uint64_t len,
                         rp_check_result *out, rp_diag *diag);

/* Compare two computed checkpoints of the same range (two runs). */
rp_status rp_check_pair(const sbt_checkpoint *expected, const sbt_checkpoint *actual,
                        rp_check_result *out, rp_diag *diag);

#endif /* TRACESMITH_RP_H */
