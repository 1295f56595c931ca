/*
 * emu.h - the stream-scheduler emulator: from a CUDA or Vulkan trace, the
 * happens-before graph of every device command, a simulated execution on a
 * configurable number of engines, the races between unordered commands, and
 * exports of all of it (Chrome trace-event JSON, Graphviz DOT, a terminal
 * timeline).  docs/emulator.md says what is modeled and what is not.
 *
 * Lifetime: emu_graph_build reads the whole trace and keeps it open (race
 * reports name host call stacks); emu_schedule simulates; the exports and
 * emu_summary_get read the result.  emu_graph_free releases everything
 * (NULL is a no-op).
 *
 * Threading: a graph is used by one thread at a time; nothing here is
 * global, so different graphs may be used from different threads.
 */
#ifndef TRACESMITH_EMU_H
#define TRACESMITH_EMU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One list yields the enum and the messages (emu_strerror). */
#define EMU_STATUS_LIST(X)                                                    \
	X(EMU_OK, "success")                                                      \
	X(EMU_ERR_NOMEM, "out of memory")                                         \
	X(EMU_ERR_ARG, "invalid argument")                                        \
	X(EMU_ERR_TRACE, "the trace cannot be read")                              \
	X(EMU_ERR_CORRUPT, "a record of the trace is corrupt")                    \
	X(EMU_ERR_NOT_CUDA, "not a CUDA trace")                                   \
	X(EMU_ERR_IO, "I/O error")                                                \
	X(EMU_ERR_STATE, "call not valid in this state")

typedef enum {
#define EMU_X_ENUM(name, msg) name,
	EMU_STATUS_LIST(EMU_X_ENUM)
#undef EMU_X_ENUM
	EMU_STATUS_COUNT
} emu_status;

const char *emu_strerror(emu_status st);

/*
 * The cost model (docs/emulator.md "Cost model") and the machine.  Every
 * duration is in nanoseconds; bandwidths in bytes per nanosecond (= GB/s).
 * emu_options_default fills the documented defaults.
 */
typedef struct emu_options {
	unsigned compute_engines; /* kernels, memsets, graph nodes that are kernels */
	unsigned copy_engines;    /* copies */
	uint64_t kernel_ns;       /* one kernel launch */
	uint64_t memset_ns;       /* fixed part of a memset */
	uint64_t copy_ns;         /* fixed part of a copy */
	uint64_t hostfn_ns;       /* a cuLaunchHostFunc callback */
	uint64_t graph_ns;        /* a graph launch whose nodes the trace lacks */
	double h2d_bw, d2h_bw, d2d_bw, memset_bw;
	int issue_times;          /* 1: no command starts before the host issued it
	                             (its record's time since the trace's first command) */
} emu_options;

void emu_options_default(emu_options *o);

typedef struct emu_graph emu_graph;

/* Read the trace at path and build the graph.  On failure *out is NULL and
 * err (may be NULL) holds a message naming the file, the record's seq or the
 * reader's diagnostic. */
emu_status emu_graph_build(const char *path, emu_graph **out, char *err, size_t errlen);
void emu_graph_free(emu_graph *g);

/*
 * Measured durations from a replay profile (tsreplay --profile; the format:
 * docs/replay.md "Profile sidecar"): path, or NULL for the trace's sidecar
 * TRACE.profile when it exists (*loaded 0 and EMU_OK when it does not).
 * The next emu_schedule uses each matched command's measured duration in
 * place of the cost model's.  EMU_ERR_ARG when the file is the profile of
 * another trace; err names the file and both trace ids.
 */
emu_status emu_profile_load(emu_graph *g, const char *path, int *loaded, char *err, size_t errlen);

/*
 * Durations from the capture's own times (docs/emulator.md "Durations
 * from capture times"): each emu_schedule after this call derives them
 * from the host's waits on finished work and the issue times, the cost
 * model's where nothing bounds a command.  EMU_ERR_STATE when a replay
 * profile was loaded (emu_profile_load refuses one after this call).
 */
emu_status emu_durations_capture(emu_graph *g);

/* Simulate (again) with o's machine and costs; the exports and the summary
 * read the last simulation. */
emu_status emu_schedule(emu_graph *g, const emu_options *o);

/* What the simulation found (all times in ns from the first command). */
typedef struct emu_summary {
	uint64_t commands;          /* device commands (graph nodes counted one by one) */
	uint64_t streams;           /* streams that ran at least one command */
	uint64_t edges;             /* happens-before edges between commands */
	uint64_t cross_edges;       /* of those, between different streams */
	uint64_t makespan_ns;       /* end of the last command */
	uint64_t critical_ns;       /* longest path with unlimited engines */
	uint64_t critical_count;    /* commands on it */
	uint64_t max_concurrency;   /* most commands running at one instant */
	uint64_t max_concurrency_at_ns;
	unsigned engines;           /* compute then copy engines */
} emu_summary;

emu_status emu_summary_get(const emu_graph *g, emu_summary *out);
/* Busy time of engine i (0 .. engines-1: compute engines first). */
uint64_t emu_engine_busy_ns(const emu_graph *g, unsigned i);
/* The critical path's commands, first to last: seq of the i-th. */
uint64_t emu_critical_seq(const emu_graph *g, uint64_t i);

/* The human summary (tsexport --summary): critical path, utilisation per
 * engine, maximum concurrency, time per stream state.  json: the same as
 * one JSON object (docs/emulator.md "--json"), the whole critical path. */
emu_status emu_summary_print(const emu_graph *g, FILE *f, int json);

/*
 * Races (docs/emulator.md "Races"): pairs of commands with no
 * happens-before order whose footprints overlap, one of them writing.
 * Prints every race found to f (may be NULL; json: as a JSON array of
 * objects) and counts them.
 */
typedef struct emu_race_counts {
	uint64_t confirmed;
	uint64_t possible;
} emu_race_counts;
emu_status emu_races_report(emu_graph *g, FILE *f, int json, emu_race_counts *out);

/* The races emu_races_report prints, one call of fn per pair of commands
 * (the confirmed access pair when there is one), for callers that name
 * them in their own words (tsreplay --check-determinism --streams
 * single,multi).  A side's strings are borrowed from g for the call.
 * fn returns nonzero to stop early. */
typedef struct emu_race_side {
	uint64_t seq;        /* the command's record */
	const char *kind;    /* "kernel", "copy_d2h", ... */
	const char *name;    /* the kernel or call name */
	uint64_t lo, hi;     /* [lo, hi): captured device addresses (CUDA) */
	const char *access;  /* "writes", "reads", "reads and may write" */
	uint64_t alloc_seq;  /* the allocating record, 0: none or unknown */
} emu_race_side;
typedef struct emu_race_desc {
	int confirmed;
	emu_race_side first, second;
} emu_race_desc;
emu_status emu_races_each(emu_graph *g, int (*fn)(void *ctx, const emu_race_desc *r), void *ctx);
/* emu_races_each for the pairs with a side touching captured memory
 * [lo, hi) (a checkpoint's, or a --per-command result's).  CUDA and HIP:
 * device addresses, a side's range overlapping it.  Vulkan: lo is a
 * VkDeviceMemory handle plus an offset (the memory the nearest handle at
 * or below lo names); the buffers and images bound there over those bytes
 * are touched, and so, followed backwards through the transfer commands
 * that write them (copies, blits, resolves), the ranges those commands
 * read, again and again: a race on a device-local buffer shows in the
 * host-visible memory it was copied into (docs/emulator.md "Races"). */
emu_status emu_races_touching(emu_graph *g, uint64_t lo, uint64_t hi,
                              int (*fn)(void *ctx, const emu_race_desc *r), void *ctx);

/*
 * Sampled legal orders (tsreplay --schedule-seed; docs/emulator.md
 * "Sampled orders"): orders of a CUDA or HIP trace's commands, or of a
 * Vulkan trace's submits, that keep the happens-before graph and that a
 * replay reading the trace once can issue.  emu_order_open builds the
 * graph of the trace at path and what every sample needs; EMU_ERR_STATE
 * for a trace no sampled order is made for (a CUDA graph launch, commands
 * on two devices), err saying which record and why.  On EMU_OK, err holds
 * a note for the user, or is empty: a Vulkan trace whose submits all go to
 * one queue has only its captured order.  emu_order_close(NULL) is a
 * no-op.
 */
typedef struct emu_order_plan emu_order_plan;

/* One command in a sampled order. */
typedef struct emu_order_item {
	uint64_t seq;            /* the command's record */
	uint64_t release_before; /* issue it before the first record of seq >= this
	                            (UINT64_MAX: after the last); > seq */
} emu_order_item;

emu_status emu_order_open(const char *path, emu_order_plan **out, char *err, size_t errlen);
void emu_order_close(emu_order_plan *p);
/* Draw the order of seed: *items_out (owned by p, valid until its next
 * sample or close) holds every command in the order the device is to run
 * them, release_before never decreasing; *hash_out (may be NULL) the
 * order's hash, *moved_out (may be NULL) how many commands run after one
 * the capture issued later.  The same seed gives the same order. */
emu_status emu_order_sample(emu_order_plan *p, uint64_t seed, const emu_order_item **items_out,
                            size_t *n_out, uint64_t *hash_out, uint64_t *moved_out);
/* The name of the command record seq issued ("fill", "cuMemcpyDtoHAsync")
 * and its kind into *kind_out ("kernel", "copy_d2h", ...; may be NULL);
 * NULL when that record issued no command.  Borrowed from p. */
const char *emu_order_describe(const emu_order_plan *p, uint64_t seq, const char **kind_out);
/* Draw the order of seed and print it to f: a line with its seed, hash,
 * size and moved count, then a line per command ("  seq S KIND on STREAM",
 * a Vulkan submit's KIND "submit", and ", before seq B" where it must run
 * before that record).  tsreplay --emulate --schedule-seed N. */
emu_status emu_order_print(emu_order_plan *p, uint64_t seed, FILE *f);

/* Exports of the last simulation (docs/emulator.md "tsexport"). */
emu_status emu_export_json(const emu_graph *g, FILE *f);
emu_status emu_export_dot(const emu_graph *g, FILE *f);
emu_status emu_export_ascii(const emu_graph *g, FILE *f, unsigned width);
/* A Perfetto protobuf trace (.perfetto-trace); EMU_ERR_STATE when built
 * without protobuf-c. */
emu_status emu_export_perfetto(const emu_graph *g, FILE *f);

/* tsreplay --emulate (argv as tsreplay got it): build, simulate, print
 * the summary and the races; the exit status (0 clean, 1 races, 2 error). */
int emu_cli_emulate(int argc, char **argv);

#endif /* TRACESMITH_EMU_H */
