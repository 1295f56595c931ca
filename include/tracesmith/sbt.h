/*
 * sbt.h - read and write SBT (TraceSmith binary trace) files.
 *
 * The container knows bytes and nothing about GPU APIs.  A trace is a fixed
 * header, then self-delimiting chunks (records, strings, stacks, record-type
 * names, metadata, blob pages), then at close an index chunk and a fixed
 * trailer.  docs/sbt-format.md specifies every byte; serializer/sbt_format.h
 * holds the same specification next to the code.
 *
 * Threading: an sbt_writer or sbt_reader is used by one thread at a time.
 * The capture runtime feeds its single writer thread; nothing here locks.
 *
 * Ownership: pointers named *_out / out are written by the callee; every
 * other pointer is borrowed for the duration of the call unless its comment
 * says otherwise.
 */
#ifndef TRACESMITH_SBT_H
#define TRACESMITH_SBT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ---------------------------------------------------------- */

/* One list yields the enum and the messages (sbt_strerror). */
#define SBT_STATUS_LIST(X)                                                    \
	X(SBT_OK, "success")                                                      \
	X(SBT_END, "end of trace")                                                \
	X(SBT_ERR_IO, "I/O error")                                                \
	X(SBT_ERR_NOMEM, "out of memory")                                         \
	X(SBT_ERR_ARG, "invalid argument")                                        \
	X(SBT_ERR_NOT_SBT, "not an SBT trace (bad magic)")                        \
	X(SBT_ERR_VERSION, "unsupported SBT version or required feature")         \
	X(SBT_ERR_CORRUPT, "trace is corrupt")                                    \
	X(SBT_ERR_TRUNCATED, "trace is truncated")                                \
	X(SBT_ERR_NOT_FOUND, "not found")                                         \
	X(SBT_ERR_CODEC, "compression codec error")                               \
	X(SBT_ERR_STATE, "call not valid in this state")

typedef enum {
#define SBT_X_ENUM(name, msg) name,
	SBT_STATUS_LIST(SBT_X_ENUM)
#undef SBT_X_ENUM
	SBT_STATUS_COUNT
} sbt_status;

const char *sbt_strerror(sbt_status st);

/* ---- records --------------------------------------------------------- */

/*
 * Record types below SBT_TYPE_FIRST_API belong to the container and the
 * capture runtime; API front-ends allocate from SBT_TYPE_FIRST_API up and
 * name every type they use with sbt_writer_define_type(), so a reader can
 * summarise any trace without the API's codec.
 */
enum {
	SBT_TYPE_NONE = 0,
	SBT_TYPE_FRAME = 1,      /* end of a frame; payload: varint frame number (from 1) */
	SBT_TYPE_CHECKPOINT = 2, /* observable result; payload: sbt_checkpoint codec */
	SBT_TYPE_KEYFRAME = 3,   /* start of a keyframe (state snapshot); payload API-defined */
	SBT_TYPE_THREAD = 4,     /* thread name; payload: varint string id */
	SBT_TYPE_NOTE = 5,       /* free text from the runtime; payload: UTF-8 bytes */
	SBT_TYPE_UNMODELED = 6,  /* a call the front-end counts but does not model;
	                            payload: varint string id of the call name */
	SBT_TYPE_WINDOW = 7,     /* a capture window opens (the trace is trimmed):
	                            payload: sbt_window codec; first record */
	SBT_TYPE_SNAPSHOT_END = 8, /* the window's state snapshot is complete: the
	                              records after it are the window's own calls;
	                              empty payload */
	SBT_TYPE_FIRST_API = 64
};

/* A decoded record.  For records returned by a reader, payload points into
 * the reader's chunk buffer and stays valid until the next call on it. */
typedef struct sbt_record {
	uint32_t type;
	uint32_t stack_id;    /* 0: no stack */
	uint64_t seq;         /* global sequence number */
	uint64_t time_ns;     /* nanoseconds since the header's start clock */
	uint64_t thread;      /* OS thread id of the caller */
	const uint8_t *payload;
	size_t payload_len;
} sbt_record;

/* ---- file-level information ----------------------------------------- */

#define SBT_VERSION_MAJOR 1
#define SBT_VERSION_MINOR 0

/* Required feature bits (sbt_header_info.features).  KEYED_BLOBS: the file
 * holds BLOBS chunks whose checksum leaves out the page data, each page
 * checked against its own hash (docs/sbt-format.md); readers without it
 * refuse the file. */
#define SBT_FEATURE_KEYED_BLOBS 0x1ull

typedef struct sbt_header_info {
	uint16_t version_major;
	uint16_t version_minor;
	uint64_t features;        /* feature bits (SBT_FEATURE_*) */
	uint8_t trace_id[16];
	uint64_t start_mono_ns;   /* CLOCK_MONOTONIC at trace start */
	uint64_t start_wall_ns;   /* CLOCK_REALTIME at the same instant (anchor) */
} sbt_header_info;

/* Summary a reader knows after open (from the index, or a scan). */
typedef struct sbt_trace_info {
	sbt_header_info header;
	uint64_t file_size;
	uint64_t chunk_count;
	uint64_t record_count;
	uint64_t first_seq, last_seq;   /* valid when record_count > 0 */
	uint64_t first_time_ns, last_time_ns;
	uint64_t frame_count;
	uint64_t keyframe_count;
	uint64_t blob_count;            /* distinct blob ids */
	uint64_t blob_bytes_logical;    /* sum of blob lengths before dedup */
	uint64_t blob_bytes_unique;     /* page bytes stored once (before compression) */
	uint64_t blob_bytes_stored;     /* page bytes on disk (after compression) */
	uint64_t raw_bytes;             /* all chunk payload bytes before compression */
	uint64_t stored_bytes;          /* all chunk payload bytes on disk */
	uint64_t stack_count;
	uint64_t string_count;
	int has_index;                  /* 1: index found via trailer; 0: rebuilt by scan */
	int truncated;                  /* 1: a torn tail was dropped */
	uint64_t truncated_at;          /* offset of the dropped tail */
} sbt_trace_info;

/* ---- writer ----------------------------------------------------------- */

typedef struct sbt_writer sbt_writer;

typedef struct sbt_writer_options {
	uint32_t chunk_target_bytes;  /* raw payload per records chunk; 0: default 256 KiB */
	uint32_t blob_page_bytes;     /* blob page size; 0: default 64 KiB */
	int compression_level;        /* lz4 acceleration; 0: default (1) */
	int no_compress;              /* 1: store payloads uncompressed */
} sbt_writer_options;

/* Creates (truncates) path and writes the fixed header.  opt may be NULL. */
sbt_status sbt_writer_open(const char *path, const sbt_writer_options *opt,
                           sbt_writer **out);
/* Same, on an open descriptor the writer takes over (closed by close).
 * Where it can seek and the file starts at its offset 0 (not O_APPEND),
 * the writer may rewrite the file header in place once (its required
 * features, for keyed BLOBS chunks); elsewhere it writes none of those. */
sbt_status sbt_writer_open_fd(int fd, const sbt_writer_options *opt,
                              sbt_writer **out);

/* Name a record type (any type, core types included).  Idempotent. */
sbt_status sbt_writer_define_type(sbt_writer *w, uint32_t type, const char *name);

/* Intern a string; the same string always yields the same id (ids from 1). */
sbt_status sbt_writer_intern(sbt_writer *w, const char *s, uint32_t *id_out);

/* One frame of a host call stack: the address and, if known, the interned
 * symbol text ("libfoo.so!func+0x1c"), 0 when unknown. */
typedef struct sbt_frame {
	uint64_t ip;
	uint32_t symbol_id;
} sbt_frame;

/* Store a stack once; returns its id (from 1).  key is the caller's hash of
 * the frames: the same key is taken to mean the same stack and costs nothing. */
sbt_status sbt_writer_put_stack(sbt_writer *w, uint64_t key, const sbt_frame *frames,
                                uint32_t nframes, uint32_t *id_out);

/* Append a record.  Records must be appended in ascending seq order: a seq
 * not above the previous record's is refused with SBT_ERR_ARG. */
sbt_status sbt_writer_append(sbt_writer *w, const sbt_record *rec);

/*
 * Store bulk data under blob_id (the caller's choice, nonzero, unique per
 * file; sbt_writer_put_blob with blob_id 0 allocates one and returns it).
 * The data is split into pages, each hashed (XXH3-128) and stored at most
 * once per file; the blob itself is a list of page references.
 */
sbt_status sbt_writer_put_blob(sbt_writer *w, uint64_t blob_id, const void *data,
                               size_t len, uint64_t *blob_id_out);

/*
 * The same blob, from a caller that hashed its pages already (the capture
 * runtime hashes a keyframe's chunk on the thread that took it, and sends
 * the bytes of only the pages it has not sent before): page_bytes must be
 * the writer's (sbt_writer_page_bytes), hashes holds npages pairs of
 * XXH3-128 (low64, high64) of each page, the last page the rest of len;
 * present[i] nonzero when page i's bytes are in data (those pages' bytes
 * back to back), zero when the writer holds the page already.  blob_id is
 * nonzero.  The file is the one sbt_writer_put_blob writes for the same
 * bytes.  SBT_ERR_ARG, and the writer stays usable, when a page without
 * bytes is not stored (the blob is not written then).
 */
sbt_status sbt_writer_put_blob_hashed(sbt_writer *w, uint64_t blob_id, size_t len,
                                      uint32_t page_bytes, const uint64_t *hashes,
                                      const uint8_t *present, const void *data);

/*
 * A blob whose page boundaries the caller chose: npages pages of lens[i]
 * bytes each (1 to sbt_writer_page_bytes; the blob's length is their sum),
 * hashes as for sbt_writer_put_blob_hashed, every page's bytes in data
 * back to back.  The format lets a page of any length stand anywhere in a
 * blob (sbt_format.h), so a caller that gathers several pieces into one
 * blob can keep each piece's pages keyed, and deduplicated, as if the
 * piece were a blob of its own.  blob_id is nonzero.
 */
sbt_status sbt_writer_put_blob_split(sbt_writer *w, uint64_t blob_id, size_t npages,
                                     const uint32_t *lens, const uint64_t *hashes,
                                     const void *data);

/* The blob page size the writer was opened with. */
uint32_t sbt_writer_page_bytes(const sbt_writer *w);

/* Key/value metadata; a later value for the same key wins. */
sbt_status sbt_writer_set_meta(sbt_writer *w, const char *key, const char *value);

/* Write every buffered chunk to the file (a crash after this loses nothing
 * appended before it).  Does not fsync. */
sbt_status sbt_writer_flush(sbt_writer *w);

/* Flush, then write the index chunk and the trailer: the file is a complete
 * trace now, and w stays open.  Anything appended after this is written
 * from where that index began (the file is first cut back there, so a
 * process killed in between leaves a valid, unfinished trace), and the
 * next finish or close writes the index and trailer again.  A finish with
 * nothing appended since the last one writes nothing. */
sbt_status sbt_writer_finish(sbt_writer *w);

/* Flush, write the index chunk and trailer, close the file, free w.
 * Returns the first error seen over the writer's life. NULL is a no-op. */
sbt_status sbt_writer_close(sbt_writer *w);

/* Counters for reports (records, bytes before/after compression). */
typedef struct sbt_writer_stats {
	uint64_t records;
	uint64_t chunks;
	uint64_t raw_bytes;
	uint64_t stored_bytes;
	uint64_t blob_bytes_logical;
	uint64_t blob_bytes_unique;
	uint64_t file_bytes;
} sbt_writer_stats;
void sbt_writer_get_stats(const sbt_writer *w, sbt_writer_stats *out);

/* The file header this writer wrote (trace id, start clocks): record times
 * are nanoseconds since its start_mono_ns. */
void sbt_writer_get_header(const sbt_writer *w, sbt_header_info *out);

/* ---- reader ----------------------------------------------------------- */

typedef struct sbt_reader sbt_reader;

typedef struct sbt_reader_options {
	int salvage;      /* 1: skip past corrupt chunks instead of failing */
	int verify;       /* 1: check every payload checksum while scanning at open */
	int ignore_index; /* 1: always rebuild the index by scanning */
} sbt_reader_options;

/* Open a trace.  A torn tail is dropped (info.truncated, and a message in
 * sbt_reader_message); corruption in the middle fails with SBT_ERR_CORRUPT
 * and a message naming the offset, unless opt->salvage.
 * When the file could be read but is refused or damaged (SBT_ERR_NOT_SBT,
 * _VERSION, _CORRUPT, _TRUNCATED), *out is still set to a reader that holds
 * the message; after SBT_ERR_CORRUPT it also yields the records of the
 * chunks before the damage, then the error again.  Close it in every case
 * (sbt_reader_close(NULL) is a no-op); *out is NULL only when no reader
 * could be made (SBT_ERR_ARG, _IO, _NOMEM). */
sbt_status sbt_reader_open(const char *path, const sbt_reader_options *opt,
                           sbt_reader **out);
/* Same, on bytes in memory (borrowed: they must outlive the reader). */
sbt_status sbt_reader_open_mem(const void *data, size_t len, const sbt_reader_options *opt,
                               sbt_reader **out);
void sbt_reader_close(sbt_reader *r);

/* The most recent diagnostic (what was dropped or damaged, at which offset);
 * "" when there is none.  Valid until the next call on r. */
const char *sbt_reader_message(const sbt_reader *r);

void sbt_reader_get_info(const sbt_reader *r, sbt_trace_info *out);

/* Iterate records in ascending seq order.  Returns SBT_END after the last
 * one, or an error (message names the offset) at damage found while reading. */
sbt_status sbt_reader_next(sbt_reader *r, sbt_record *out);

/* Position so that the next sbt_reader_next returns the first record with
 * seq >= seq.  Uses the index; O(1) chunk lookup plus one chunk decode. */
sbt_status sbt_reader_seek_seq(sbt_reader *r, uint64_t seq);
/* Position at the first record after the end of frame (frame - 1), i.e. the
 * start of frame `frame` (frames count from 1). */
sbt_status sbt_reader_seek_frame(sbt_reader *r, uint64_t frame);
/* Sequence number of the FRAME record that ends `frame`. */
sbt_status sbt_reader_frame_seq(sbt_reader *r, uint64_t frame, uint64_t *seq_out);
/* Keyframe sequence numbers, ascending (borrowed array, count). */
sbt_status sbt_reader_keyframes(sbt_reader *r, const uint64_t **seqs_out,
                                size_t *count_out);

/* Type names ("" when the trace does not name the type). */
const char *sbt_reader_type_name(const sbt_reader *r, uint32_t type);
/* Iterate named types: index i from 0; SBT_END past the last. */
sbt_status sbt_reader_type_at(const sbt_reader *r, size_t i, uint32_t *type_out,
                              const char **name_out);
const char *sbt_reader_string(const sbt_reader *r, uint32_t id); /* NULL if unknown */
/* Stack by id: frames borrowed until the reader is closed. */
sbt_status sbt_reader_stack(const sbt_reader *r, uint32_t id, const sbt_frame **frames_out,
                            uint32_t *nframes_out);
const char *sbt_reader_meta(const sbt_reader *r, const char *key); /* NULL if absent */
/* Iterate metadata: index i from 0; SBT_END past the last. */
sbt_status sbt_reader_meta_at(const sbt_reader *r, size_t i, const char **key_out,
                              const char **value_out);

/* Blob by id.  *data_out is malloc'd and owned by the caller. */
sbt_status sbt_reader_blob_get(sbt_reader *r, uint64_t blob_id, void **data_out,
                               size_t *len_out);
sbt_status sbt_reader_blob_size(sbt_reader *r, uint64_t blob_id, size_t *len_out);

/* Chunk walk for tools (tsinfo --verify) and tests: describes chunk i
 * (0-based, in file order) and checks its payload checksum. */
typedef struct sbt_chunk_info {
	uint64_t offset;        /* of the chunk header */
	uint32_t type;
	uint32_t codec;
	uint32_t raw_size;
	uint32_t stored_size;
	uint32_t record_count;
	uint64_t first_seq;
	uint64_t t_first, t_last;
} sbt_chunk_info;
sbt_status sbt_reader_chunk_at(sbt_reader *r, size_t i, sbt_chunk_info *out);
sbt_status sbt_reader_verify_chunk(sbt_reader *r, size_t i);

/* ---- payload helpers (LEB128 varints, shared by all codecs) ----------- */

/* Encode v at p (room for 10 bytes); returns bytes written. */
size_t sbt_varint_put(uint8_t *p, uint64_t v);
/* Decode from [*p, end); advances *p.  Returns 0 on success, -1 on a
 * truncated or over-long varint (*p unchanged). */
int sbt_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v_out);

/* ---- checkpoints ------------------------------------------------------ */

/*
 * A checkpoint is the hash of bytes the program could observe at some point
 * (a device->host copy, a mapped range after a fence wait).  It is stored as
 * a record of type SBT_TYPE_CHECKPOINT so the replayer core can compare
 * without knowing the API.  Bytes are hashed whole (XXH3-64) and in blocks
 * of block_size (a power of two) so a mismatch can be placed at an offset.
 */
typedef struct sbt_checkpoint {
	uint64_t call_seq;    /* seq of the call whose result this is */
	uint64_t object;      /* API object / allocation id (front-end defined) */
	uint64_t offset;      /* of the hashed range within the object */
	uint64_t length;
	uint32_t block_size;
	uint64_t hash;        /* XXH3-64 of all length bytes */
	uint32_t nblocks;     /* ceil(length / block_size) */
	const uint64_t *block_hashes; /* XXH3-64 per block; borrowed */
} sbt_checkpoint;

/* Block size the runtime uses for len bytes: 64, or the smallest power of
 * two that keeps the block count at or under 4096. */
uint32_t sbt_checkpoint_block_size(uint64_t len);
/* Hash data into cp (allocating cp->block_hashes with malloc: owned by the
 * caller, free with sbt_checkpoint_free). */
sbt_status sbt_checkpoint_compute(const void *data, uint64_t len, sbt_checkpoint *cp);
void sbt_checkpoint_free(sbt_checkpoint *cp);
/* Serialize into a malloc'd buffer (owned by the caller). */
sbt_status sbt_checkpoint_encode(const sbt_checkpoint *cp, uint8_t **buf_out,
                                 size_t *len_out);
/* Parse a payload; block_hashes is decoded into a malloc'd array owned by
 * the caller (sbt_checkpoint_free). */
sbt_status sbt_checkpoint_decode(const uint8_t *p, size_t len, sbt_checkpoint *cp);

/* ---- capture windows ---------------------------------------------------- */

/*
 * A trimmed trace (one capture window of a run, docs/capture.md
 * "Triggers") starts with a record of type SBT_TYPE_WINDOW: which window of
 * the run it is and the run's counts where it opened, so tools can number
 * frames as the run did.  Then the front-ends' state snapshot, one
 * SBT_TYPE_SNAPSHOT_END, and the window's own calls.
 * Payload: varint index, first_frame, first_submit, first_launch, then the
 * trigger text's length and bytes.
 */
typedef struct sbt_window {
	uint64_t index;        /* window of the run, from 1 */
	uint64_t first_frame;  /* number of the first frame in the window (from 1) */
	uint64_t first_submit; /* number of the first submit (from 1) */
	uint64_t first_launch; /* number of the first launch (from 1) */
	char trigger[96];      /* what opened it: "frames 100-110", "key F12", ... */
} sbt_window;

/* Encode into buf (room for SBT_WINDOW_MAX bytes); returns bytes written. */
#define SBT_WINDOW_MAX (4 * 10 + 10 + 96)
size_t sbt_window_encode(const sbt_window *w, uint8_t *buf);
/* Parse a payload; the trigger is cut to fit and always terminated. */
sbt_status sbt_window_decode(const uint8_t *p, size_t len, sbt_window *w);

#ifdef __cplusplus
}
#endif
#endif /* TRACESMITH_SBT_H */
