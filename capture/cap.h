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

/* Triggers (TRACESMITH_TRIGGER, a comma-separated list; docs/capture.md). */
enum {
	CAP_TRIG_RANGE = 1u << 0,    /* frames:A-B, submits:A-B or launches:A-B */
	CAP_TRIG_KEY = 1u << 1,      /* key:NAME[:COUNT] (the Vulkan layer reads it) */
	CAP_TRIG_SIGNAL = 1u << 2,   /* signal: SIGUSR1 opens and closes a window */
	CAP_TRIG_APP = 1u << 3,      /* app: the in-app API (tracesmith_app.h) */
	CAP_TRIG_PROFILER = 1u << 4, /* profiler: cuProfilerStart/cuProfilerStop */
	CAP_TRIG_NVTX = 1u << 5      /* nvtx:NAME: inside NVTX ranges named NAME */
};

typedef struct cap_config {
	const char *output;            /* TRACESMITH_OUTPUT, default PROG_YYYYMMDDTHHMMSS_PID.sbt */
	int output_default;            /* 1: TRACESMITH_OUTPUT unset, the name chosen here */
	int exact_output;              /* 1: this process writes exactly `output`;
	                                  0: it writes <stem>-<pid>.sbt */
	cap_log_level log_level;       /* TRACESMITH_LOG: error|warn|info|debug */
	cap_stacks_mode stacks;        /* TRACESMITH_STACKS: none|work|all */
	cap_snapshot_mode snapshot;    /* TRACESMITH_SNAPSHOT: none|launch|N */
	uint64_t snapshot_every;       /* N for CAP_SNAPSHOT_EVERY */
	uint64_t memory_bound;         /* TRACESMITH_MEMORY_MB, bytes */
	/* TRACESMITH_WARM_MB: bytes of warm blocks kept ready (cap_internal.h),
	 * at most a quarter of the bound; warm_fixed 0: the default */
	uint64_t warm_bytes;
	int warm_fixed;
	uint32_t flush_interval_ms;    /* TRACESMITH_FLUSH_MS, default 1000 */
	int disabled;                  /* TRACESMITH_DISABLE=1 */
	/* triggered capture */
	unsigned triggers;             /* CAP_TRIG_*; 0: the whole run */
	int range_unit;                /* cap_unit of a CAP_TRIG_RANGE */
	uint64_t range_first, range_last; /* inclusive, from 1 */
	char key_name[32];             /* CAP_TRIG_KEY: X keysym name, "F12" */
	uint32_t key_frames;           /* frames per press, default 1 */
	char nvtx_name[128];           /* CAP_TRIG_NVTX */
	uint64_t snapshot_frames;      /* TRACESMITH_SNAPSHOT_FRAMES: periodic
	                                  snapshots in a full capture; 0: none */
	char api[64];                  /* TRACESMITH_API, "" = every front-end */
	int frame_hash;                /* TRACESMITH_FRAME_HASH=1: the Vulkan layer
	                                  checkpoints every presented image */
	int clock_monotonic;           /* TRACESMITH_CLOCK=monotonic: records read
	                                  CLOCK_MONOTONIC, never the TSC */
	int hash_threads;              /* TRACESMITH_HASH_THREADS: threads that help
	                                  hash cap_blob_pages' pages (0: none);
	                                  -1 (unset): min(CPUs - 1, 4) */
} cap_config;

/* 1 when TRACESMITH_API lets front-end `api` ("vulkan", "cuda", "hip")
 * record: the list names it, or names only exclusions ("-vulkan") and not
 * it, or is unset. */
int cap_api_enabled(const char *api);

/* The configuration (parsed once, on first use).  Never NULL. */
const cap_config *cap_config_get(void);
/* A setting handed to a front-end through its own API (the Vulkan layer's
 * VK_EXT_layer_settings), by its layer-setting name ("output", "stacks",
 * ...; docs/capture.md "Settings file"), below the settings file and the
 * TRACESMITH_ variables.  0 taken; -1 the configuration was read already
 * (too late); -2 no such setting; -3 out of room or memory. */
int cap_config_preset(const char *name, const char *value);
/* The trace name used when none is given: PROGRAM_YYYYMMDDTHHMMSS_PID.sbt
 * (program's base name, characters other than [A-Za-z0-9._-] as '_';
 * local time; pid) into out (n bytes).  The runtime uses its own program
 * and pid; tscapture the program it runs and its own pid. */
void cap_trace_default_name(const char *program, long pid, char *out, size_t n);

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

/*
 * Deferred encoding, for records made so often that their encoding is
 * worth taking off the caller's thread (CUDA launches): the caller leaves
 * the record in a raw form of its own, and the writer thread turns it into
 * the payload with `encode` just before it writes the record, in seq order
 * with the others.  The trace is the same as if the payload had been
 * recorded.  begin reserves up to max_raw raw bytes (NULL when not
 * recording: then do not commit); cap_record_commit(rec, raw_len) commits
 * the raw bytes used.
 *
 * encode(raw, raw_len, out, out_cap) runs on the writer thread: it writes
 * the payload to out and returns its length; when that would be more than
 * out_cap it writes nothing and returns a length that is enough (it is
 * called again with that much room).  It must not call the capture
 * runtime, and what the raw bytes point to must outlive the trace.
 */
typedef size_t (*cap_encode_fn)(const uint8_t *raw, size_t raw_len, uint8_t *out,
                                size_t out_cap);
uint8_t *cap_record_begin_deferred(uint32_t type, unsigned flags, cap_encode_fn encode,
                                   size_t max_raw, cap_rec **rec_out);

/* The encoder of a front-end's bare records (the record-first path of
 * cap_fast_reserve_deferred_coarse, cap_fast.h), which carry no encoder
 * of their own: as cap_encode_fn, given the record's type.  Set once,
 * before the first such record (the Vulkan layer, at its registration). */
typedef size_t (*cap_encode_type_fn)(uint32_t type, const uint8_t *raw, size_t raw_len,
                                     uint8_t *out, size_t out_cap);
void cap_set_bare_encoder(cap_encode_type_fn encode);

/* Attach bulk data (memory contents, module images, shader code): copied
 * now, split into pages and deduplicated by the writer thread.  Returns the
 * blob id to put in a record's payload, or 0 when not recording. */
uint64_t cap_blob(const void *data, size_t len);

/*
 * The same, the bytes written by the caller straight into this thread's
 * buffer (runs of a mapping, gathered or stored there by the compare that
 * finds them).  begin reserves room for up to max_len bytes and up to
 * max_pieces piece lengths and returns where the bytes go (NULL when not
 * recording: then neither commit nor cancel).  Nothing else may be
 * recorded on this thread until commit or cancel.  commit hands the first
 * len bytes to the writer as a blob and returns its id; with npieces > 0
 * the caller first fills the npieces lengths (adding up to len) at
 * cap_blob_pieces(rec, len), and each piece is split into pages from its
 * own start, so that its pages are keyed, and deduplicated, as those of a
 * blob of its own would be (sbt_writer_put_blob_split); npieces 0: pages
 * of the writer's size over the whole blob, as cap_blob's.  cancel gives
 * the room back unused.
 */
uint8_t *cap_blob_begin(size_t max_len, size_t max_pieces, cap_rec **rec_out);
uint64_t *cap_blob_pieces(cap_rec *rec, size_t len);
uint64_t cap_blob_commit(cap_rec *rec, size_t len, size_t npieces);
void cap_blob_cancel(cap_rec *rec);

/* The same for large snapshots of memory that mostly repeats what this
 * thread stored before (CUDA keyframe chunks): the pages are hashed here,
 * on the caller's thread, and only the bytes of pages this thread has not
 * sent to the current trace file are copied; the writer stores the blob
 * from the hashes (the file is the one cap_blob writes).  Costs a hash of
 * every page on the caller's thread instead of a copy of every byte. */
uint64_t cap_blob_pages(const void *data, size_t len);

/* The same for a chunk that may hold only zero bytes (a keyframe chunk of
 * untouched memory): the zero check is made in the same read of the bytes
 * as the hashes.  When every byte is 0 nothing is recorded, *zero_out is
 * set to 1 and 0 returned; otherwise *zero_out is 0 and the result is
 * cap_blob_pages'.  Large blobs are hashed by this thread and up to
 * TRACESMITH_HASH_THREADS helper threads (docs/capture.md). */
uint64_t cap_blob_pages_or_zero(const void *data, size_t len, int *zero_out);

/* A front-end's keyframe copied `bytes` of device memory, waited wait_ns
 * for the copies and spent store_ns storing them: summed over the run and
 * printed at shutdown at TRACESMITH_LOG=info. */
void cap_keyframe_account(uint64_t bytes, uint64_t wait_ns, uint64_t store_ns);

/* Record a checkpoint: the hash of bytes the program could observe as the
 * result of call call_seq (hashed here, on the caller's thread; the bytes
 * are not stored).  Returns the checkpoint record's seq, 0 if not recording. */
uint64_t cap_checkpoint(uint64_t call_seq, uint64_t object, uint64_t offset,
                        const void *data, uint64_t len);

/* Frame boundary: frame `frame` (from 1) ended.  With a trigger it may
 * close a window after its last frame, or open one before the next frame
 * (the snapshot is then written inside this call). */
uint64_t cap_frame_end(uint64_t frame);

/* Keyframe marker; the front-end's snapshot records follow it. */
uint64_t cap_keyframe_begin(const void *payload, size_t len);

/* ---- capture windows (TRACESMITH_TRIGGER; docs/capture.md "Triggers") --
 *
 * With a trigger set, the run is not recorded whole: each capture window
 * (frames 100-110, the frames after a hotkey press, submits A-B, launches
 * A-B, between SIGUSR1s, between cuProfilerStart/Stop, inside an NVTX range,
 * between the in-app API's start and end) goes to its own trace file.
 * While no window is open cap_active() answers 0 and nothing is written,
 * but cap_tracking() answers 1: a front-end keeps, without recording, what
 * it needs to recreate the live state.  When a window opens the runtime
 * starts the window's file, writes an SBT_TYPE_WINDOW record, calls every
 * cap_on_window_open callback on the opening thread (the front-ends write
 * their state snapshot: records that recreate every live object, memory
 * contents), writes SBT_TYPE_SNAPSHOT_END and only then lets other threads
 * record.  When it closes, the file is finished (index, trailer) and
 * recording stops until the next window.
 *
 * Units are counted by the runtime across the process, from 1: frames (a
 * front-end's cap_frame_end, or the in-app API's frame mark), submits and
 * launches (cap_unit_begin).  Ranges are inclusive.  Blob ids belong to
 * one window's file: never reuse one recorded in an earlier window.
 */

typedef enum {
	CAP_UNIT_FRAME = 0,
	CAP_UNIT_SUBMIT = 1,
	CAP_UNIT_LAUNCH = 2
} cap_unit;

/* 1 when TRACESMITH_TRIGGER names a trigger (the run is captured in
 * windows).  Read once; cheap. */
int cap_windowed(void);

/* 1 when a front-end must keep its live-state tracking (what its snapshot
 * is written from) up to date, whether or not it records now: windowed, or
 * periodic snapshots (TRACESMITH_SNAPSHOT_FRAMES).  Read once; cheap.
 * Record when cap_active(); track when cap_tracking(). */
int cap_tracking(void);

/* The front-end's state snapshot, called on the thread that opens a window
 * after the SBT_TYPE_WINDOW record (cap_active() is 1 on that thread only).
 * Also called, with the window already open, to write a periodic snapshot
 * (TRACESMITH_SNAPSHOT_FRAMES, below).  At most 8 callbacks. */
void cap_on_window_open(void (*fn)(void));

/* A submit or launch: cap_unit_begin before it is recorded (a window that
 * starts with it opens here, its snapshot written first), cap_unit_end after
 * (a window that ends with it closes here).  Cheap when no trigger is set. */
void cap_unit_begin(cap_unit unit);
void cap_unit_end(cap_unit unit);

/* Counted so far (frames ended, submits and launches begun). */
uint64_t cap_units(cap_unit unit);

/* Hotkey: capture the `frames` frames after the current one (the window
 * opens at the next frame end).  Ignored while a window is open. */
void cap_window_request_frames(uint32_t frames);

/* Open a window now, on the calling thread (in-app API, cuProfilerStart, an
 * NVTX range); `why` is the trigger text recorded.  0: opened; 1: one was
 * open already; -1: not windowed or it could not be written. */
int cap_window_start(const char *why);
/* Close the open window now.  0: closed (or a start held back, below, is
 * dropped); 1: none was open. */
int cap_window_end(void);

/* A front-end that cannot write an exact snapshot at this moment answers
 * nonzero (the Vulkan layer: a command buffer recorded without keeping its
 * calls is not submitted yet).  A window with no advance notice (the
 * hotkey's or the in-app API's frames, a SIGUSR1, the in-app API's or an
 * NVTX start) then opens at the next unit boundary (a frame end, a submit
 * or launch beginning or ending) at which the front-end answers 0; a start
 * held back this way returns 0 at once.  `frames` is 1 when the window is
 * counted in frames from here (its frames then begin later).  Called under
 * the window lock on the thread that would open the window; one per
 * runtime.  Ranges (frames:A-B, ...) are not held. */
typedef int (*cap_window_hold_fn)(int frames);
void cap_on_window_hold(cap_window_hold_fn fn);

/* Periodic snapshot of a full capture (TRACESMITH_SNAPSHOT_FRAMES=N, taken
 * by the runtime at every N-th frame end): an SBT_TYPE_KEYFRAME record with
 * the payload "snapshot" and varint frame number, the cap_on_window_open
 * callbacks, SBT_TYPE_SNAPSHOT_END.  A replay of the whole trace skips
 * everything between the two; a replay whose range starts later starts
 * from the nearest such snapshot before it.  Front-ends must record the
 * snapshot with the handles the run used (replay maps them as it maps any
 * recorded handle). */

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

/*
 * A front-end that makes pages fault on purpose (the Vulkan layer's
 * guard-page tracker) names the function that handles such a fault: the
 * runtime's crash handler asks it first about every SIGSEGV the kernel
 * raises, and returns at once when it answers 1 (the fault was its own and
 * is dealt with: the instruction runs again).  So the order in which the
 * two handlers were installed does not matter.  The function runs in a
 * signal handler: async-signal-safe code only.  NULL removes it.
 */
typedef int (*cap_fault_fn)(void *addr);
void cap_fault_owner_set(cap_fault_fn fn);
/* Whether a SIGSEGV reaches fn now: the runtime's crash handler is the one
 * installed and fn the owner it asks. */
int cap_fault_owner_reached(cap_fault_fn fn);

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

/* ---- sorted maps (cap_umap.c) ------------------------------------------ */

/* A sorted map from a 64-bit key (a handle or an address) to a pointer;
 * zero-initialised is empty.  Not thread-safe. */
typedef struct cap_umap {
	uint64_t *keys;
	void **vals;
	size_t n, cap;
} cap_umap;

/* Index of the first key >= key (m->n when none): for range look-ups. */
size_t cap_umap_lower(const cap_umap *m, uint64_t key);
/* The value under key, or NULL. */
void *cap_umap_get(const cap_umap *m, uint64_t key);
/* Sets key to val: returns the value it replaces, NULL for a new key, or
 * val itself when out of memory (the map unchanged). */
void *cap_umap_put(cap_umap *m, uint64_t key, void *val);
/* Removes key: returns its value, or NULL when absent. */
void *cap_umap_del(cap_umap *m, uint64_t key);
/* Frees the map's arrays (not the values); the map is empty after. */
void cap_umap_free(cap_umap *m);

/* ---- same-address windows (cap_va.c) ---------------------------------
 * The deterministic allocator the compute interposers (CUDA, HIP) place
 * device allocations with, inside one address window per device that the
 * interposer reserved (docs/cuda.md "Same-address capture"): requests up to
 * CAP_VA_SMALL bytes are rounded to CAP_VA_ALIGN and sub-allocated first
 * fit from chunks of one granule, tried in address order; larger ones are
 * rounded to the granule and take the lowest free range; freed ranges are
 * reused; a chunk whose last allocation is freed is given back, except the
 * last one to empty; freed large blocks stay backed (CAP_VA_CACHE_BYTES in
 * all, oldest dropped first) for the next request of their exact size.
 * Placement depends only on the sequence of calls.  The interposer makes
 * and drops the physical memory through cap_va_ops, one piece per chunk or
 * block, always mapped whole.  Not thread-safe: the caller serialises
 * every call on one cap_va (and may make runtime calls meanwhile).
 */
#define CAP_VA_MAX_DEVICES 64
#define CAP_VA_SMALL (1u << 20) /* sub-allocated from chunks up to this */
#define CAP_VA_ALIGN 512u       /* what the runtimes' addresses are aligned to */
#define CAP_VA_MIN_GRAN (2u << 20)
#define CAP_VA_CACHE_BYTES (256ull << 20) /* freed large blocks kept backed */

typedef struct cap_va cap_va;
typedef struct cap_va_ops {
	/* Physical memory for [base, base + len) of device's window, mapped
	 * whole and accessible: 0 and *mem_out (the interposer's handle, not
	 * 0), or the runtime's error (not 0) with nothing left behind. */
	int (*back)(void *ctx, int device, uint64_t base, uint64_t len, uint64_t *mem_out);
	/* Unmap and release what back made (the device's work on it is done). */
	void (*unback)(void *ctx, int device, uint64_t base, uint64_t len, uint64_t mem);
	/* Stream-ordered frees (cap_va_defer): 1 when the stream has reached
	 * the free token stands for (an event recorded there), else 0; and
	 * the token of a free whose range was released, the interposer's to
	 * reuse or drop. */
	int (*reached)(void *ctx, uint64_t token);
	void (*retire)(void *ctx, uint64_t token);
	void *ctx; /* borrowed, passed back */
} cap_va_ops;

typedef enum cap_va_status {
	CAP_VA_OK = 0,
	CAP_VA_PASS,    /* not placed here (no window, size 0, not ours): ask the runtime */
	CAP_VA_NO_ROOM, /* the window (or host memory) has no room for it */
	CAP_VA_BACKING  /* ops->back failed; *err_out holds its error */
} cap_va_status;

/* NULL when out of memory; ops copied.  cap_va_free drops the bookkeeping
 * only (what is backed stays backed: the process is ending); NULL is a
 * no-op. */
cap_va *cap_va_create(const cap_va_ops *ops);
void cap_va_free(cap_va *va);
/* TRACESMITH_<API>_VA's value: 1 for "off", 0 and *base, *size (when
 * given; both 2 MiB multiples, not 0) for BASE[:SIZE] with K/M/G/T
 * suffixes, -1 when malformed (nothing written). */
int cap_va_parse(const char *v, uint64_t *base, uint64_t *size);
/* The window the interposer reserved for device: [base, base + size),
 * chunks of gran bytes (a power of two, at least CAP_VA_MIN_GRAN).  0, or
 * -1 when out of memory or device is out of range or has one. */
int cap_va_window_add(cap_va *va, int device, uint64_t base, uint64_t size, uint64_t gran);
/* 1 and device's window, or 0 when it has none. */
int cap_va_window_get(const cap_va *va, int device, uint64_t *base_out, uint64_t *size_out);
/* Place size bytes in device's window (reserve_only: an address range
 * left unbacked, aligned to align and the granule).  *err_out (may be
 * NULL) gets ops->back's error for CAP_VA_BACKING. */
cap_va_status cap_va_alloc(cap_va *va, int device, uint64_t size, int reserve_only, uint64_t align,
                           uint64_t *out, int *err_out);
/* 1 when a placed block starts at addr. */
int cap_va_placed(const cap_va *va, uint64_t addr);
/* Give back the block placed at addr, of the same kind (the caller waited
 * for the device's work on it); CAP_VA_PASS when there is none. */
cap_va_status cap_va_release(cap_va *va, uint64_t addr, int reserve_only);
/* A stream-ordered free of the block placed at addr: kept until
 * cap_va_poll finds ops->reached(token), then released, never before.
 * CAP_VA_PASS when nothing is placed there, CAP_VA_NO_ROOM when out of
 * memory (nothing kept). */
cap_va_status cap_va_defer(cap_va *va, uint64_t addr, uint64_t token);
/* Release the deferred frees whose streams have reached them, oldest
 * first (each token retired). */
void cap_va_poll(cap_va *va);
/* The placed block containing addr: 1 and its base and size as placed,
 * or 0; *asked_out (may be NULL) the size the request asked for. */
int cap_va_lookup(const cap_va *va, uint64_t addr, uint64_t *base_out, uint64_t *size_out,
                  uint64_t *asked_out);

/* Path of the trace this process writes (NULL before start). */
const char *cap_output_path(void);

#endif /* TRACESMITH_CAP_H */
