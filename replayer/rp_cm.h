/*
 * rp_cm.h - the parts of compute replay (serializer/sbt_compute.h records)
 * that do not depend on the API: the CUDA backend (replayer/cuda/) and the
 * HIP backend (replayer/hip/) both build on them (prefix rp_cm_).
 *
 *   rp_cm_streams.c  the --streams option: single|multi, or a list of them
 *                    that --check-determinism runs take in turn;
 *   rp_cm_handles.c  captured handle -> the backend's object (a hash table
 *                    on (kind, handle)), and the set of handles only calls
 *                    that failed at capture returned (records naming them
 *                    are skipped);
 *   rp_cm_ranges.c   captured address ranges and their live addresses:
 *                    lookup by address, and the rewriting of pointer words
 *                    of kernel parameters given a layout;
 *   rp_cm_percmd.c   --per-command: which ranges a command may have
 *                    written, and the results kept until the run ends;
 *   rp_cm_note.c     kept device-to-host copies: where a checkpoint lies in
 *                    one, and the note a first differing copy prints (the
 *                    allocation it read and the last kernel given a
 *                    pointer into it).
 *
 * Nothing here calls a driver or knows its types: what a backend keeps
 * beside these (a range's reservation, its context) lives in its own
 * structs, which start with the shared one.
 */
#ifndef TRACESMITH_RP_CM_H
#define TRACESMITH_RP_CM_H

#include <stddef.h>
#include <stdint.h>

#include "replayer/rp.h"

/* ---- rp_cm_streams.c: --streams ------------------------------------------------ */

#define RP_CM_STREAM_MODES_MAX 16

/* --streams A,B,...: run i (from 0) uses entry i % n; bit i of modes set
 * when entry i is single.  n == 0: the option was not given (multi). */
typedef struct rp_cm_streams {
	unsigned modes, n;
} rp_cm_streams;

/* Parse "single", "multi" or a comma-separated list of them (at most
 * RP_CM_STREAM_MODES_MAX): RP_OK, or RP_ERR_USAGE naming the value. */
rp_status rp_cm_streams_parse(const char *text, rp_cm_streams *out, rp_diag *diag);
/* Whether run number run (runs begun before it) is single; 0 when the
 * option was not given. */
int rp_cm_streams_single(const rp_cm_streams *m, unsigned run);
/* rp_backend_ops.run_mode: "serialised" or "concurrent" for the run now
 * going (single says which), only when the list names both modes; NULL
 * otherwise. */
const char *rp_cm_streams_run_mode(const rp_cm_streams *m, int single);

/* ---- rp_cm_handles.c: captured handles ---------------------------------------------------- */

/* The fields every backend's object starts with (RP_CM_HANDLE_HEAD, as
 * RP_CM_RANGE_HEAD below).  kind 0 is an empty slot. */
#define RP_CM_HANDLE_FIELDS                                                            \
	uint64_t cap;        /* the captured handle */                                 \
	uint8_t kind;        /* the backend's kind; 0: empty slot */                   \
	uint8_t dead;        /* a deleted slot (probing continues past it) */

typedef struct rp_cm_handle {
	RP_CM_HANDLE_FIELDS
} rp_cm_handle;

#define RP_CM_HANDLE_HEAD                                                              \
	union {                                                                        \
		rp_cm_handle head;                                                     \
		struct {                                                               \
			RP_CM_HANDLE_FIELDS                                            \
		};                                                                     \
	}

/* Open addressing on (kind, handle) over slots of elem bytes, each
 * starting with RP_CM_HANDLE_HEAD.  A backend keeps it as a union with a
 * typed view of the same three members ({0} is an empty table). */
typedef struct rp_cm_handles {
	void *slot;
	size_t cap;          /* power of two */
	size_t used;         /* live + dead slots */
} rp_cm_handles;

/* What a backend frees when an object goes (its owned members); may be NULL. */
typedef void (*rp_cm_handle_release_fn)(void *obj);

/* The object (kind, cap), or NULL. */
void *rp_cm_handles_get(const rp_cm_handles *t, size_t elem, uint8_t kind, uint64_t cap);
/* Add (kind, cap), or empty the object already there (release first): a
 * zeroed object with its head set; NULL when out of memory. */
void *rp_cm_handles_put(rp_cm_handles *t, size_t elem, uint8_t kind, uint64_t cap,
                        rp_cm_handle_release_fn release);
void rp_cm_handles_del(rp_cm_handles *t, size_t elem, void *obj, rp_cm_handle_release_fn release);
/* Slot i (0 <= i < t->cap): an object when its kind is set and it is not dead. */
static inline rp_cm_handle *rp_cm_handles_at(const rp_cm_handles *t, size_t elem, size_t i)
{
	return (rp_cm_handle *)(void *)((char *)t->slot + i * elem);
}
/* Release every object and free the table (left empty). */
void rp_cm_handles_free(rp_cm_handles *t, size_t elem, rp_cm_handle_release_fn release);

/* A sorted set of captured handles (and addresses). */
typedef struct rp_cm_handle_set {
	uint64_t *v;
	size_t n, cap;
} rp_cm_handle_set;

int rp_cm_handle_set_has(const rp_cm_handle_set *h, uint64_t cap);
/* Add cap (0 is never added); out of memory only loses the entry. */
void rp_cm_handle_set_add(rp_cm_handle_set *h, uint64_t cap);
void rp_cm_handle_set_remove(rp_cm_handle_set *h, uint64_t cap);
void rp_cm_handle_set_free(rp_cm_handle_set *h);

/* ---- rp_cm_ranges.c: captured address ranges ---------------------------------------------- */

/* The fields every backend's range starts with.  A backend's range type
 * holds them twice over, as a named rp_cm_range and as plain members, in
 * one union (RP_CM_RANGE_HEAD), so its own code reads r->cap while the
 * functions below see the same bytes as an rp_cm_range. */
#define RP_CM_RANGE_FIELDS                                                             \
	uint64_t cap, size;  /* captured [cap, cap + size) */                          \
	uint64_t live;       /* live address of cap */                                 \
	uint64_t seq;        /* the record that made it */                             \
	uint64_t kernel_seq; /* the last launch given a pointer into it, 0: none */    \
	char kernel[64];     /* that launch's kernel */                                \
	uint8_t moved;       /* live != cap: pointers to it are rewritten */

typedef struct rp_cm_range {
	RP_CM_RANGE_FIELDS
} rp_cm_range;

/* The first member of a backend's range type. */
#define RP_CM_RANGE_HEAD                                                               \
	union {                                                                        \
		rp_cm_range head;                                                      \
		struct {                                                               \
			RP_CM_RANGE_FIELDS                                             \
		};                                                                     \
	}

/* A backend's sorted array of ranges (never overlapping), of elements
 * elem bytes long, each starting with RP_CM_RANGE_HEAD. */
typedef struct rp_cm_span {
	void *v;
	size_t n, elem;
} rp_cm_span;

#define RP_CM_SPAN(vec, count) ((rp_cm_span){(void *)(vec), (count), sizeof(*(vec))})

/* Range i of the span. */
static inline rp_cm_range *rp_cm_span_at(const rp_cm_span *t, size_t i)
{
	return (rp_cm_range *)(void *)((char *)t->v + i * t->elem);
}

/* Number of ranges whose cap is <= addr. */
size_t rp_cm_ranges_upper(const rp_cm_span *t, uint64_t addr);
/* Index of the range holding addr, or -1. */
long rp_cm_ranges_find(const rp_cm_span *t, uint64_t addr);
/* Index of the first range overlapping [addr, addr + len), or -1. */
long rp_cm_ranges_overlap(const rp_cm_span *t, uint64_t addr, uint64_t len);
/* Insert r (elem bytes; it must not overlap any range) into the array
 * *v of *n elements and *cap slots, growing it: its index, or -1 when out
 * of memory.  moved is set from live and cap. */
long rp_cm_ranges_insert(void **v, size_t *n, size_t *cap, size_t elem, const void *r);
/* Drop element i of the array v of *n elements. */
void rp_cm_ranges_remove(void *v, size_t *n, size_t elem, size_t i);
/* The live address of captured [addr, addr + len): 0 and *live_out set when
 * one range holds it all; -1 otherwise (*index_out: the range holding addr,
 * or -1; may be NULL). */
int rp_cm_ranges_translate(const rp_cm_span *t, uint64_t addr, uint64_t len, uint64_t *live_out,
                           long *index_out);

/* How a pointer word finds its range. */
enum {
	RP_CM_PTR_END = 1u /* one past a range's end is inside it (loops pass end pointers) */
};

/* One 8-byte parameter word at p (little-endian): the range it points into
 * is marked as used by launch seq of kernel (NULL: "(unnamed)") and, when
 * it moved, the word is rewritten.  1 when rewritten. */
size_t rp_cm_ranges_patch_word(rp_cm_span *t, uint8_t *p, uint64_t seq, const char *kernel,
                               unsigned flags);
/* Every pointer-sized parameter of a kernel's parameter buffer: those the
 * layout (SBT_CM_LAYOUT_BYTES entries, offset and size little-endian)
 * marks 8 bytes long and aligned, or without a layout every aligned word.
 * The number of words rewritten. */
size_t rp_cm_ranges_patch_params(rp_cm_span *t, uint8_t *buf, size_t len, const uint8_t *layout,
                                 size_t nlayout, uint64_t seq, const char *kernel, unsigned flags);
/* Rewrite every 8-aligned (as placed at device address dst) word of data
 * bytes that points into a moved range; the number rewritten. */
size_t rp_cm_ranges_patch_data(const rp_cm_span *t, uint8_t *buf, size_t len, uint64_t dst,
                               unsigned flags);

/* ---- rp_cm_percmd.c: --per-command ---------------------------------------------------- */

/* Ranges over this are left out of footprints (a lazy 8 GiB reservation
 * would be read in full after every command). */
#define RP_CM_PERCMD_MAX_BYTES ((uint64_t)64 << 20)

/* One range's bytes after one command. */
typedef struct rp_cm_result {
	uint64_t seq;        /* the command */
	uint64_t cap, size;  /* the captured range */
	uint8_t *buf;        /* owned; filled by a copy queued behind the command */
} rp_cm_result;

/* A run's results, in command order. */
typedef struct rp_cm_results {
	rp_cm_result *v;
	size_t n, cap;
} rp_cm_results;

/* A new result for range [cap, cap + size) after command seq: its buffer
 * (owned by the list) for the backend's copy to fill; NULL when out of
 * memory. */
uint8_t *rp_cm_results_add(rp_cm_results *l, uint64_t seq, uint64_t cap, uint64_t size);
/* Hand every result to fn in order (stopping at the first error), then
 * free them (the copies must have finished). */
rp_status rp_cm_results_hand(rp_cm_results *l, rp_command_result_fn fn, void *ctx, rp_diag *diag);
/* Free the results (the array is kept for the next run). */
void rp_cm_results_clear(rp_cm_results *l);
void rp_cm_results_free(rp_cm_results *l);

/* What a command may have written, as the emulator takes it
 * (docs/emulator.md "Races"). */
typedef enum rp_cm_foot {
	RP_CM_FOOT_LAUNCH,  /* every range one of its pointer words points into: those
	                       rp_cm_ranges_patch_* marked with the launch's seq */
	RP_CM_FOOT_WRITE,   /* a copy or memset: the range holding its destination,
	                       whole; every range when none does (a destination the
	                       record does not give as a device address) */
	RP_CM_FOOT_ALL      /* every range (a graph launch) */
} rp_cm_foot;

/* Call queue(ctx, r, diag) for each range of command seq's footprint that
 * readable(r) accepts, in address order; the first error stops it. */
rp_status rp_cm_footprint(const rp_cm_span *t, rp_cm_foot what, uint64_t seq, uint64_t dst,
                          int (*readable)(const rp_cm_range *r),
                          rp_status (*queue)(void *ctx, const rp_cm_range *r, rp_diag *diag),
                          void *ctx, rp_diag *diag);

/* ---- rp_cm_note.c: kept device-to-host copies and the mismatch note ---------------------------- */

/* What a kept device-to-host copy read, as it was at the copy. */
typedef struct rp_cm_copy_source {
	uint64_t alloc_cap;    /* the range read; 0: none the trace made */
	uint64_t alloc_size, alloc_seq;
	uint64_t kernel_seq;   /* the last launch given a pointer into it, 0: none */
	char kernel[64];       /* that launch's kernel */
} rp_cm_copy_source;

/* Remember range r as the one a copy reads (r: NULL for none). */
void rp_cm_copy_source_take(rp_cm_copy_source *out, const rp_cm_range *r);
/* Where checkpoint cp's bytes start in a kept copy of len bytes whose
 * first byte is checkpoint coordinate (object + offset) vstart: RP_OK and
 * *off_out, or RP_ERR_TRACE naming the copy at copy_seq and what it did
 * with the bytes (verb: "read", "wrote"). */
rp_status rp_cm_copy_offset(const sbt_checkpoint *cp, uint64_t vstart, uint64_t len, uint64_t copy_seq,
                            const char *verb, uint64_t *off_out, rp_diag *diag);
/* When bytes (the replay's, cp->length of them) differ from checkpoint
 * cp: print to stderr what the copy at copy_seq read (src; how: "made",
 * or the kind of call that made it) and the kernel likeliest to have
 * written it ("tsreplay: <api>: the device-to-host copy at seq N differs
 * ...") and return 1; 0 when they match (or cannot be compared). */
int rp_cm_note_mismatch(const char *api, uint64_t copy_seq, const rp_cm_copy_source *src, const char *how,
                        const sbt_checkpoint *cp, const uint8_t *bytes);
/* Print to stderr where the replay's memory first differs from the full
 * keyframe at keyframe_seq: the allocation src (the range compared), the
 * offset in it of the first differing block (block bytes), the command at
 * command_seq that may have written it last, and the last kernel given a
 * pointer into it ("tsreplay: <api>: the memory after the command at seq N
 * differs from the keyframe at seq K"). */
void rp_cm_note_keyframe(const char *api, uint64_t keyframe_seq, uint64_t command_seq,
                         const rp_cm_copy_source *src, uint64_t offset, uint64_t block);
/* A range of size bytes at captured address object differs from the full
 * keyframe at keyframe_seq (capture: its bytes there; replay: the
 * replay's); command_seq may have written it last.  Kept in kr as the
 * run's first difference when kr holds none yet (then 1, and *at_out the
 * offset of the first differing block of RP_CM_KF_BLOCK bytes, its
 * bytes, the hashes of both sides); 0 when kr had one. */
#define RP_CM_KF_BLOCK 64
int rp_cm_keyframe_differs(rp_keyframe_report *kr, uint64_t keyframe_seq, uint64_t command_seq,
                           uint64_t object, const uint8_t *capture, const uint8_t *replay,
                           uint64_t size, uint64_t *at_out);
/* rp_backend_ops.keyframe_is_start of the compute backends: a partial
 * keyframe (the capture-start keyframe of the default policy) is no place
 * to start, the memory made while recording is not in it. */
int rp_cm_keyframe_is_start(const sbt_record *marker);
/* A restore's first part: every record of trace before seq stop, from the
 * first, handed to run (which leaves out what it does not replay), each
 * with its payload copied (run may move the reader: fetching a module
 * image does).  Stops at run's first failure; a read error is named with
 * the keyframe at stop (RP_ERR_TRACE). */
/* Whether trace holds a full keyframe (one a --range may start at, which
 * a replay compares with its memory mid-run); read at open. */
int rp_cm_trace_has_full_keyframe(sbt_reader *trace);
/* --device N of the compute backends: a plain decimal ordinal from 0 to
 * RP_CM_MAX_DEVICE_ORDINAL (no sign, no spaces), which keeps ordinal plus
 * captured device within an int; api names the devices in the message. */
#define RP_CM_MAX_DEVICE_ORDINAL 1024
rp_status rp_cm_parse_ordinal(const char *text, const char *api, int *out, rp_diag *diag);
typedef rp_status (*rp_cm_record_fn)(void *ctx, sbt_record *rec, rp_diag *diag);
rp_status rp_cm_replay_before(sbt_reader *trace, uint64_t stop, rp_cm_record_fn run, void *ctx,
                              rp_diag *diag);

#endif
