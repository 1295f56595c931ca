/*
 * sbt_format.h - the SBT v1 byte layout, and the helpers that read and write
 * its fixed-size parts.  This comment is the specification; docs/sbt-format.md
 * repeats it for readers and must be kept in sync.
 *
 * GENERAL
 *   Every integer is little-endian, written and read through sbt_fmt_store_*
 *   and sbt_fmt_load_* (never raw struct I/O).  "varint" is unsigned LEB128
 *   (7 bits a byte, low group first, at most 10 bytes); "zigzag" maps a signed
 *   value s to (s << 1) ^ (s >> 63) before varint encoding.  XXH32 and XXH3 are
 *   from xxHash with seed 0.
 *
 * FILE = file header, chunk*, [INDEX chunk, trailer]
 *   The file header is written once and never patched.  Chunks follow back to
 *   back.  A writer that closes cleanly ends the file with an INDEX chunk and
 *   the trailer; a writer that is killed leaves a prefix that is still a valid
 *   trace (possibly with a torn last chunk).  A writer may finish a file and
 *   go on (sbt_writer_finish): it then cuts the file back to the INDEX
 *   chunk's offset before writing more, and ends it with a new INDEX chunk
 *   and trailer; a file never holds bytes after its trailer.
 *
 * FILE HEADER (80 bytes in v1.0)
 *   0   u8[8]  magic 0x89 'S' 'B' 'T' '\r' '\n' 0x1a '\n'
 *   8   u32    header_size (80; a reader accepts 80..4096 and skips fields it
 *              does not know)
 *   12  u16    version_major (1)      a reader refuses another major version
 *   14  u16    version_minor (0)      a reader accepts any minor version
 *   16  u64    required_features      a reader refuses any bit it does not
 *                                     know: SBT_FEATURE_KEYED_BLOBS (bit 0),
 *                                     set once a keyed BLOBS chunk (below)
 *                                     is in the file
 *   24  u64    optional_features      unknown bits are ignored
 *   32  u8[16] trace_id               random (getrandom)
 *   48  u64    start_mono_ns          CLOCK_MONOTONIC when the trace started
 *   56  u64    start_wall_ns          CLOCK_REALTIME at the same instant
 *   64  u32    chunk_target_bytes     what the writer aimed for (informative)
 *   68  u32    blob_page_bytes        the writer's blob page size (informative)
 *   72  u32    reserved (0)
 *   header_size-4  u32 header_checksum  XXH32 of bytes [0, header_size-4)
 *
 * CHUNK = chunk header (64 bytes in v1.0) + payload (stored_size bytes)
 *   0   u32    header_size (64; a reader accepts 64..1024)
 *   4   u8[4]  chunk magic "SBTC" (salvage resynchronises on it)
 *   8   u16    type (see SBT_CHUNK_*; unknown types are skipped)
 *   10  u8     codec: 0 stored, 1 lz4 block (LZ4_compress_fast); any other
 *              value makes the chunk corrupt
 *   11  u8     flags: bit 0 SBT_CHUNK_FLAG_KEYED (a BLOBS chunk of codec 0
 *              whose checksum leaves out its pages' data, each page checked
 *              against its own hash instead; see BLOBS); unknown bits are
 *              ignored
 *   12  u32    raw_size      payload bytes after decompression
 *   16  u32    stored_size   payload bytes in the file
 *   20  u32    record_count  entries in the payload (meaning per type)
 *   24  u64    first_seq     RECORDS: seq of the first record;
 *                            STRINGS/STACKS: id of the first entry; else 0
 *   32  u64    t_first       RECORDS: time of the first record (the base of
 *                            the time deltas); else 0
 *   40  u64    t_last        RECORDS: largest time in the chunk; else 0
 *   48  u64    payload_checksum  XXH3-64 of the stored payload bytes (keyed:
 *                            of those bytes less each PAGE's data)
 *   56  u32    reserved (0)
 *   header_size-4  u32 header_checksum  XXH32 of bytes [0, header_size-4)
 *   Validity: magic, header checksum, codec 0 or 1, raw_size <= 1 GiB,
 *   codec 0 => stored_size == raw_size, codec 1 => stored_size <=
 *   LZ4_compressBound(raw_size) and raw_size <= 255 * stored_size + 64 (what
 *   lz4 can expand to; it also caps allocations by file size).  A payload is
 *   decoded only after its checksum matched.  Payloads are compressed one
 *   chunk at a time; a payload that lz4 does not shrink is stored (codec 0).
 *
 * CHUNK TYPES AND PAYLOADS
 *   1 RECORDS  record_count records, each:
 *        varint type, varint seq_delta (from the previous record; the first
 *        from first_seq, so 0), zigzag time_delta (time - t_first), varint
 *        thread, varint stack_id, varint payload_len, payload bytes.
 *        Seqs strictly ascend within a chunk and across chunks, so RECORDS
 *        chunks hold disjoint ascending seq ranges.
 *   2 STRINGS  record_count strings with ids first_seq, first_seq+1, ...:
 *        varint len, bytes (UTF-8, no NUL, no embedded NUL).
 *   3 STACKS   record_count stacks with ids first_seq, first_seq+1, ...:
 *        varint nframes, then nframes x (varint ip, varint symbol string id).
 *   4 TYPES    record_count entries: varint record type, varint len, name
 *        bytes.  A later entry for the same type wins.
 *   5 META     record_count entries: varint klen, key, varint vlen, value.
 *        A later entry for the same key wins.
 *   6 BLOBS    record_count entries, each: u8 kind, varint body_len, body
 *        (unknown kinds are skipped):
 *        kind 1 PAGE:     u8[16] hash (XXH3-128 of the data: low64 then
 *                         high64, each u64 LE), data (body_len - 16 bytes).
 *        kind 2 MANIFEST: varint blob_id, varint length, varint npages,
 *                         npages x u8[16] page hash.  The blob is the
 *                         concatenation of its pages; the page lengths must
 *                         add up to length.  A PAGE is written once per file,
 *                         before the first manifest that names it.
 *   7 INDEX    written at close (or finish), followed by the trailer:
 *        varint nchunks, then per chunk before the index, in file order:
 *          varint offset_delta (from the previous chunk's offset, the first
 *          from 0), varint type, varint first_seq, varint record_count,
 *          varint seq_span (RECORDS: last seq - first_seq; else 0),
 *          varint t_first, varint t_last, varint raw_size, varint stored_size
 *        varint nframes, then per FRAME record in seq order whose payload
 *          starts with a valid varint: varint frame number, varint seq
 *        varint nkeyframes, then varint seq_delta each (first from 0)
 *        varint nmanifests, then per manifest: varint blob_id, varint chunk
 *          (position in the chunk list above), varint offset of the entry in
 *          that chunk's raw payload, varint blob length
 *        varint npages, then per page: u8[16] hash, varint chunk, varint
 *          offset of the entry, varint data length
 *        totals: varint records, varint strings, varint stacks, varint
 *          blob bytes before dedup, varint unique page bytes (a reader
 *          checks the record total; the rest is informative)
 *        Bytes after these are ignored (room for later fields).
 *   Tables (STRINGS, TYPES, STACKS, META, BLOBS) referred to by records are
 *   always written before the RECORDS chunk that refers to them.
 *
 * TRAILER (32 bytes, the last bytes of a cleanly closed file)
 *   0   u8[8]  magic 0x89 'S' 'B' 'T' 'E' 'N' 'D' '\n'
 *   8   u64    index_offset  of the INDEX chunk header
 *   16  u64    record_count  records in the file
 *   24  u32    trailer_size (32)
 *   28  u32    trailer_checksum  XXH32 of bytes [0, 28)
 *
 * RECOVERY (what a reader does with damage)
 *   - Trailer valid, pointing at an INDEX chunk that ends where the trailer
 *     starts, index payload intact and self-consistent: the index is used.
 *     Otherwise the reader scans; a bad trailer or index is never an error
 *     by itself (a damaged INDEX chunk the trailer points at, or a damaged
 *     trailer right after an INDEX chunk, ends the scan quietly).
 *   - Scan: chunk headers are walked from header_size.  Fewer than 64 bytes
 *     left that are not the trailer, a header cut short, a valid header whose
 *     payload runs past EOF, or only zero bytes left: a torn tail, dropped
 *     (info.truncated, "torn tail at offset N (M bytes) dropped").
 *   - A chunk with a bad magic, header checksum, impossible sizes, unknown
 *     codec, payload checksum mismatch or a payload that does not parse,
 *     with the file going on after it, is corruption: SBT_ERR_CORRUPT and
 *     "corrupt chunk at offset N: why", after the records of the chunks
 *     before it.  With salvage the damaged chunk is skipped; when its header
 *     is what is damaged, the reader looks for the next offset holding
 *     "SBTC" at +4 and a valid header checksum and goes on from there,
 *     naming the skipped range.
 *   - Every payload is checksummed before it is parsed; every varint, length
 *     and count is checked against the bytes left before use or allocation.
 */
#ifndef TRACESMITH_SBT_FORMAT_H
#define TRACESMITH_SBT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

/* ---- little-endian load/store ----------------------------------------- */

static inline uint16_t sbt_fmt_load_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t sbt_fmt_load_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t sbt_fmt_load_u64(const uint8_t *p)
{
	return (uint64_t)sbt_fmt_load_u32(p) | ((uint64_t)sbt_fmt_load_u32(p + 4) << 32);
}

static inline void sbt_fmt_store_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void sbt_fmt_store_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void sbt_fmt_store_u64(uint8_t *p, uint64_t v)
{
	sbt_fmt_store_u32(p, (uint32_t)v);
	sbt_fmt_store_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t sbt_fmt_zigzag(int64_t s)
{
	return ((uint64_t)s << 1) ^ (uint64_t)(s >> 63);
}

static inline int64_t sbt_fmt_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* ---- file header ------------------------------------------------------ */

#define SBT_FMT_MAGIC "\x89SBT\r\n\x1a\n"
#define SBT_FMT_MAGIC_LEN 8
#define SBT_FMT_FILE_HDR_SIZE 80u
#define SBT_FMT_FILE_HDR_MAX 4096u
enum {
	SBT_FMT_FH_MAGIC = 0,
	SBT_FMT_FH_SIZE = 8,
	SBT_FMT_FH_MAJOR = 12,
	SBT_FMT_FH_MINOR = 14,
	SBT_FMT_FH_REQUIRED = 16,
	SBT_FMT_FH_OPTIONAL = 24,
	SBT_FMT_FH_TRACE_ID = 32,
	SBT_FMT_FH_START_MONO = 48,
	SBT_FMT_FH_START_WALL = 56,
	SBT_FMT_FH_CHUNK_TARGET = 64,
	SBT_FMT_FH_PAGE_BYTES = 68,
	SBT_FMT_FH_RESERVED = 72,
	SBT_FMT_FH_CHECKSUM = 76
};
_Static_assert(SBT_FMT_FH_CHECKSUM + 4 == SBT_FMT_FILE_HDR_SIZE, "file header layout");
_Static_assert(SBT_FMT_FH_START_WALL + 8 == SBT_FMT_FH_CHUNK_TARGET, "file header layout");
_Static_assert(sizeof(SBT_FMT_MAGIC) - 1 == SBT_FMT_MAGIC_LEN, "magic length");

/* Required-feature bits this reader understands. */
#define SBT_FMT_KNOWN_REQUIRED_FEATURES SBT_FEATURE_KEYED_BLOBS

/* ---- chunk header ----------------------------------------------------- */

#define SBT_FMT_CHUNK_MAGIC "SBTC"
#define SBT_FMT_CHUNK_HDR_SIZE 64u
#define SBT_FMT_CHUNK_HDR_MAX 1024u
/* Largest raw payload of one chunk; records and strings larger than this
 * minus a little framing are refused by the writer. */
#define SBT_FMT_MAX_RAW (1u << 30)
enum {
	SBT_FMT_CH_SIZE = 0,
	SBT_FMT_CH_MAGIC = 4,
	SBT_FMT_CH_TYPE = 8,
	SBT_FMT_CH_CODEC = 10,
	SBT_FMT_CH_FLAGS = 11,
	SBT_FMT_CH_RAW = 12,
	SBT_FMT_CH_STORED = 16,
	SBT_FMT_CH_COUNT = 20,
	SBT_FMT_CH_FIRST_SEQ = 24,
	SBT_FMT_CH_T_FIRST = 32,
	SBT_FMT_CH_T_LAST = 40,
	SBT_FMT_CH_PAYLOAD_SUM = 48,
	SBT_FMT_CH_RESERVED = 56,
	SBT_FMT_CH_CHECKSUM = 60
};
_Static_assert(SBT_FMT_CH_CHECKSUM + 4 == SBT_FMT_CHUNK_HDR_SIZE, "chunk header layout");
_Static_assert(SBT_FMT_CH_PAYLOAD_SUM + 8 == SBT_FMT_CH_RESERVED, "chunk header layout");

enum {
	SBT_CHUNK_RECORDS = 1,
	SBT_CHUNK_STRINGS = 2,
	SBT_CHUNK_STACKS = 3,
	SBT_CHUNK_TYPES = 4,
	SBT_CHUNK_META = 5,
	SBT_CHUNK_BLOBS = 6,
	SBT_CHUNK_INDEX = 7
};

enum { SBT_CODEC_NONE = 0, SBT_CODEC_LZ4 = 1 };

/* Chunk header flags.  KEYED: a BLOBS chunk stored with codec 0 whose
 * payload checksum is XXH3-64 of its payload with every PAGE entry's data
 * left out (kinds, lengths, page hashes and every other entry whole, in
 * order); each PAGE's data is checked against its own XXH3-128 hash
 * instead.  Every byte is still checked before it is used, and a writer
 * that keys its pages already (the capture runtime) hashes each byte once,
 * not twice.  A file holding one sets SBT_FEATURE_KEYED_BLOBS, so that a
 * reader without this rule refuses it instead of calling it corrupt. */
#define SBT_CHUNK_FLAG_KEYED 0x01u

/* BLOBS entry kinds. */
enum { SBT_BLOB_PAGE = 1, SBT_BLOB_MANIFEST = 2 };
#define SBT_FMT_HASH_LEN 16

/* A decoded chunk header. */
typedef struct sbt_fmt_chunk_hdr {
	uint32_t header_size;
	uint32_t type;
	uint32_t codec;
	uint32_t flags;
	uint32_t raw_size;
	uint32_t stored_size;
	uint32_t record_count;
	uint64_t first_seq;
	uint64_t t_first;
	uint64_t t_last;
	uint64_t payload_sum;
} sbt_fmt_chunk_hdr;

/* Writes a 64-byte header (computes the header checksum). */
void sbt_fmt_chunk_hdr_encode(uint8_t out[SBT_FMT_CHUNK_HDR_SIZE], const sbt_fmt_chunk_hdr *h);
/* Decodes and validates the header at p (avail bytes readable).  Returns 0
 * when valid; otherwise -1 with *why naming the problem.  When avail is less
 * than the header needs, returns 1 (more bytes needed). */
int sbt_fmt_chunk_hdr_decode(const uint8_t *p, size_t avail, sbt_fmt_chunk_hdr *h,
                             const char **why);

/* ---- trailer ---------------------------------------------------------- */

#define SBT_FMT_TRAILER_MAGIC "\x89SBTEND\n"
#define SBT_FMT_TRAILER_SIZE 32u
enum {
	SBT_FMT_TR_MAGIC = 0,
	SBT_FMT_TR_INDEX_OFF = 8,
	SBT_FMT_TR_RECORDS = 16,
	SBT_FMT_TR_SIZE = 24,
	SBT_FMT_TR_CHECKSUM = 28
};
_Static_assert(SBT_FMT_TR_CHECKSUM + 4 == SBT_FMT_TRAILER_SIZE, "trailer layout");
_Static_assert(sizeof(SBT_FMT_TRAILER_MAGIC) - 1 == 8, "trailer magic length");

void sbt_fmt_trailer_encode(uint8_t out[SBT_FMT_TRAILER_SIZE], uint64_t index_offset,
                            uint64_t record_count);
/* 0 when p holds a valid trailer. */
int sbt_fmt_trailer_decode(const uint8_t *p, uint64_t *index_offset, uint64_t *record_count);

/* XXH32 of bytes [0, len) with seed 0 (header checksums). */
uint32_t sbt_fmt_hash32(const void *p, size_t len);
/* XXH3-64 (payload checksums, checkpoints). */
uint64_t sbt_fmt_hash64(const void *p, size_t len);
/* XXH3-128 (blob page keys): the low and high halves. */
void sbt_fmt_hash128(const void *p, size_t len, uint64_t *lo, uint64_t *hi);

/* The checksum of a keyed BLOBS payload p[0, n) (SBT_CHUNK_FLAG_KEYED):
 * XXH3-64 of its bytes less each PAGE entry's data.  With check_pages,
 * each PAGE's data is also hashed and compared with the hash it carries.
 * Returns 0 and sets *sum; -1 with *why naming the problem when an entry
 * runs past the payload, a page is shorter than its hash, or (checking) a
 * page's data does not match its hash. */
int sbt_fmt_keyed_sum(const uint8_t *p, size_t n, int check_pages, uint64_t *sum,
                      const char **why);

#endif /* TRACESMITH_SBT_FORMAT_H */
