/*
 * cap.h - the capture runtime every front-end (Vulkan layer, CUDA and HIP
 * interposers) shares.
 *
 * Recording a call: the front-end builds the payload and calls cap_record()
 * (or cap_record_begin()/cap_record_commit() to write straight into the
 * thread's buffer).  That assigns the global sequence number and timestamp,
 * takes a host stack if the policy asks for one, and appends to a
 * per-thread buffer.  A single writer thread drains every thread's buffer,
 * orders records by sequence number, compresses and writes the SBT file.
 * Nothing on the recording path takes a process-wide lock or does I/O; when
 * the writer falls behind and the memory bound is reached, producers wait
 * (and the stall is counted) rather than drop a record.
 *
 * The runtime starts lazily on the first recorded call: a process that never
 * records writes no trace.  If the trace cannot be written, recording stops
 * with one message and every call becomes a no-op returning 0.
 *
 * State: one process-wide struct inside capture/, initialised with
 * pthread_once; its locking is documented where it is declared.
 */
#ifndef TRACESMITH_CAP_H
#define TRACESMITH_CAP_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

/* ---- configuration (TRACESMITH_* variables, read once) --------------- */

typedef enum {
	CAP_STACKS_NONE = 0,
	CAP_STACKS_WORK = 1, /* default: records flagged CAP_REC_WORK */
	CAP_STACKS_ALL = 2
} cap_stacks_mode;

typedef enum {
	CAP_SNAPSHOT_NONE = 0,   /* keyframe at capture start only */
	CAP_SNAPSHOT_LAUNCH = 1, /* before and after each launch */
	CAP_SNAPSHOT_EVERY = 2   /* every snapshot_every launches */
} cap_snapshot_mode;

typedef enum {
	CAP_LOG_ERROR = 0,
	CAP_LOG_WARN = 1,
	CAP_LOG_INFO = 2,
	CAP_LOG_DEBUG = 3
} cap_log_level;

typedef struct cap_config {
	const char *output;            /* TRACESMITH_OUTPUT, default "tracesmith.sbt" */
	int exact_output;              /* 1: this process writes exactly `output`;
	                                  0: it writes <stem>-<pid>.sbt */
	cap_log_level log_level;       /* TRACESMITH_LOG: error|warn|info|debug */
	cap_stacks_mode stacks;        /* TRACESMITH_STACKS: none|work|all */
	cap_snapshot_mode snapshot;    /* TRACESMITH_SNAPSHOT: none|launch|N */
	uint64_t snapshot_every;       /* N for CAP_SNAPSHOT_EVERY */
	uint64_t memory_bound;         /* TRACESMITH_MEMORY_MB, bytes */
	uint32_t flush_interval_ms;    /* TRACESMITH_FLUSH_MS, default 1000 */
	int disabled;                  /* TRACESMITH_DISABLE=1 */
} cap_config;

/* The configuration (parsed once, on first use).  Never NULL. */
const cap_config *cap_config_get(void);

/* ---- logging (gated by TRACESMITH_LOG; to stderr, "tracesmith: ") ---- */

void cap_log(cap_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A front-end's one-line exit report: "tracesmith: " and the message,
 * shown at the default level (warn) and above, with no level tag. */
void cap_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define CAP_ERROR(...) cap_log(CAP_LOG_ERROR, __VA_ARGS__)
#define CAP_WARN(...) cap_log(CAP_LOG_WARN, __VA_ARGS__)
#define CAP_INFO(...) cap_log(CAP_LOG_INFO, __VA_ARGS__)
#define CAP_DEBUG(...) cap_log(CAP_LOG_DEBUG, __VA_ARGS__)

/* ---- types and metadata ---------------------------------------------- */

/* Record flags. */
enum {
	CAP_REC_WORK = 1u << 0 /* a queue submit, kernel launch or memory operation:
	                          gets a stack under TRACESMITH_STACKS=work */
};

typedef struct cap_type_desc {
	uint32_t type;    /* >= SBT_TYPE_FIRST_API */
	const char *name; /* "api.call", e.g. "cuda.cuLaunchKernel"; static storage */
} cap_type_desc;

/* Name the types a front-end records and the API it captures (metadata
 * key "api", comma-joined across front-ends).  Call before recording; cheap
 * and idempotent; the names reach the trace before any record of the type. */
void cap_register_api(const char *api, const cap_type_desc *types, size_t ntypes);

/* Key/value metadata for the trace (copied). */
void cap_set_meta(const char *key, const char *value);

/* ---- recording ------------------------------------------------------- */

/* Starts the runtime if needed; 1 while recording, 0 when recording is off
 * (disabled, or stopped after a write error). */
int cap_active(void);

/* Record a call; returns its sequence number (0 when not recording).
 * payload is copied. */
uint64_t cap_record(uint32_t type, unsigned flags, const void *payload, size_t len);

/* Zero-copy form: reserve up to max_len payload bytes in this thread's
 * buffer, fill them, then commit the bytes actually used.  begin returns
 * NULL when not recording (then do not commit).  Nothing else may be
 * recorded on this thread between begin and commit. */
typedef struct cap_rec cap_rec;
uint8_t *cap_record_begin(uint32_t type, unsigned flags, size_t max_len, cap_rec **rec_out);
uint64_t cap_record_commit(cap_rec *rec, size_t len);

/* Attach bulk data (memory contents, module images, shader code): copied
 * now, split into pages and deduplicated by the writer thread.  Returns the
 * blob id to put in a record's payload, or 0 when not recording. */
uint64_t cap_blob(const void *data, size_t len);

/* Record a checkpoint: the hash of bytes the program could observe as the
 * result of call call_seq (hashed here, on the caller's thread; the bytes
 * are not stored).  Returns the checkpoint record's seq, 0 if not recording. */
uint64_t cap_checkpoint(uint64_t call_seq, uint64_t object, uint64_t offset,
                        const void *data, uint64_t len);

/* Frame boundary: frame `frame` (from 1) ended. */
uint64_t cap_frame_end(uint64_t frame);

/* Keyframe marker; the front-end's snapshot records follow it. */
uint64_t cap_keyframe_begin(const void *payload, size_t len);

/* Reentrancy guard for hooked calls made from inside other hooked calls:
 * enter returns 1 if this thread is already inside a recorded call (then
 * record nothing, and still call leave). */
int cap_enter(void);
void cap_leave(void);

/* Called once at shutdown (exit, or the library's destructor), before the
 * trace is closed, so a front-end can record or print its summary. */
void cap_on_shutdown(void (*fn)(void));

/*
 * Close the trace from the library's destructor, after every exit handler,
 * instead of at the runtime's own exit handler.  For front-ends in shared
 * objects linked -z nodelete whose application keeps calling at exit: the
 * CUDA runtime registers its teardown (module unloads, context release)
 * with atexit before the interposer first runs, so that teardown came
 * after the trace was closed.
 */
void cap_shutdown_at_fini(void);

/* Write everything recorded so far to the file and wait until it is there. */
void cap_flush(void);

/* Finish the trace now (flush, index, trailer); later records are dropped
 * with a one-time warning.  Called automatically at exit. */
void cap_shutdown(void);

/* Counters for reports and tests. */
typedef struct cap_stats {
	uint64_t records;
	uint64_t blobs;
	uint64_t blob_bytes;
	uint64_t stalls;          /* times a producer waited on the memory bound */
	uint64_t stall_ns;        /* time producers spent waiting */
	uint64_t stacks_taken;
	uint64_t stacks_unique;
} cap_stats;
void cap_get_stats(cap_stats *out);

/* Path of the trace this process writes (NULL before start). */
const char *cap_output_path(void);

#endif /* TRACESMITH_CAP_H */
