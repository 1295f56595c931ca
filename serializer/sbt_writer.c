/*
 * sbt_writer.c - writes SBT v1 files (layout in sbt_format.h).
 *
 * The writer keeps one open buffer per chunk type.  Records are varint-encoded
 * straight into the RECORDS buffer (no allocation per record once the buffer
 * has grown); when it reaches chunk_target_bytes, or on flush, every pending
 * table buffer (strings, types, stacks, meta, blobs, in that order) is written
 * first and then the records, so a record never precedes a table entry it
 * refers to.  Table buffers that fill up are written on their own, which is
 * always safe: tables may come early, never late.
 *
 * Everything the INDEX chunk needs (chunk list, frames, keyframes, blob
 * locations) is kept in memory and written at close, followed by the
 * trailer.  A writer killed before close leaves a file a reader can still
 * open by scanning.
 *
 * sbt_writer_finish writes that index and trailer without closing: the
 * file is complete, and the writer remembers where its index began.  The
 * next chunk written cuts the file back to there first (ftruncate, then
 * the chunk), so the file is at every moment either complete or a valid
 * prefix without an index, never an index followed by stray bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "serializer/sbt_format.h"
#include "serializer/sbt_internal.h"

/* LZ4 on incompressible bytes (memory contents, most of all) still reads
 * all of them and then gives up: a chunk of at least SBT_W_PROBE_MIN
 * bytes of a type whose last chunk did not compress is first probed with
 * SBT_W_PROBE_SLICES slices of SBT_W_PROBE_SLICE bytes, each ending where
 * an equal share of the chunk does (so the last ends with the chunk), and
 * compressed only when LZ4 shrinks them at all (sbt_w_compressible).
 * After SBT_W_PROBE_RUN such chunks in a row, only the last slice is
 * probed, but for every SBT_W_PROBE_FULL-th chunk of the run: data turning
 * compressible still shows at the end of the chunk it starts in, and
 * compressible stretches inside chunks of incompressible ones at the next
 * full probe. */
#define SBT_W_PROBE_MIN (64u * 1024u)
#define SBT_W_PROBE_SLICES 4u
#define SBT_W_PROBE_SLICE 4096u
#define SBT_W_PROBE_RUN 4u
#define SBT_W_PROBE_FULL 8u
/* A BLOBS chunk stored uncompressed is keyed (sbt_w_keyed) from this size,
 * or from the chunk target when that is smaller: a smaller one (a blob's
 * last pages, manifests) saves too little to make the file need a newer
 * reader. */
#define SBT_W_KEYED_MIN (64u * 1024u)
#define SBT_W_CHUNK_TYPES 8u

#define SBT_W_DEFAULT_CHUNK (256u * 1024u)
#define SBT_W_DEFAULT_PAGE (64u * 1024u)
#define SBT_W_MAX_TARGET (SBT_FMT_MAX_RAW / 4)
/* Room for the varint fields of one record / table entry. */
#define SBT_W_FIELDS_MAX 64u
#define SBT_W_MAX_FRAMES (1u << 20)

typedef struct sbt_w_chunk {
	uint64_t offset;
	uint32_t type;
	uint32_t record_count;
	uint64_t first_seq, last_seq;
	uint64_t t_first, t_last;
	uint32_t raw_size, stored_size;
} sbt_w_chunk;

/* Location of a blob page or manifest: chunk (UINT32_MAX while its chunk is
 * still being filled) and the entry's offset in that chunk's raw payload. */
typedef struct sbt_w_blobloc {
	uint64_t key_lo, key_hi; /* page: hash; manifest: blob id, 0 */
	uint32_t chunk;
	uint32_t offset;
	uint64_t len;
} sbt_w_blobloc;

typedef struct sbt_w_frame {
	uint64_t frame;
	uint64_t seq;
} sbt_w_frame;

typedef struct sbt_w_type {
	uint32_t type;
	uint64_t name_hash;
} sbt_w_type;

/* One table buffer waiting to become a chunk. */
typedef struct sbt_w_table {
	sbt_buf buf;
	uint32_t count;
	uint64_t first_id;
} sbt_w_table;

struct sbt_writer {
	int fd;
	sbt_status err; /* first error; every later call returns it */
	uint32_t chunk_target;
	uint32_t page_bytes;
	int accel;
	int no_compress;
	/* per chunk type below SBT_W_CHUNK_TYPES: how many of its last chunks
	 * in a row were stored uncompressed (LZ4 did not shrink them, or the
	 * probe said it would not) */
	uint32_t raw_run[SBT_W_CHUNK_TYPES];
	uint64_t off; /* bytes written so far */
	sbt_header_info hdr;

	/* RECORDS chunk being filled */
	sbt_buf recs;
	uint32_t rec_count;
	uint64_t rec_first_seq, rec_prev_seq, rec_t_first, rec_t_last;
	int have_seq;
	uint64_t last_seq;

	sbt_w_table strings, types, stacks, meta, blobs;

	/* string interning: hash -> id-1; text kept in str_arena at str_off[id-1] */
	sbt_map str_map;
	sbt_buf str_arena;
	size_t *str_off;
	size_t str_cap, str_count;

	sbt_map stack_map; /* caller key -> id-1 */
	uint32_t stack_count;

	sbt_map type_map; /* type -> index into type_list */
	sbt_w_type *type_list;
	size_t type_cap, type_len;

	sbt_map page_map; /* hash low64 -> index into pages */
	sbt_w_blobloc *pages;
	size_t page_cap, page_len, pages_pending;
	sbt_map blob_map; /* blob id -> index into manifests */
	sbt_w_blobloc *manifests;
	size_t manifest_cap, manifest_len, manifests_pending;
	uint64_t next_blob_id;
	sbt_buf manifest_scratch;

	sbt_w_chunk *chunks;
	size_t chunk_cap, chunk_len;
	sbt_w_frame *frames;
	size_t frame_cap, frame_len;
	uint64_t *keyframes;
	size_t keyframe_cap, keyframe_len;

	sbt_buf zbuf; /* compression output */
	LZ4_stream_t *probe; /* sbt_w_compressible's, made on first use (owned) */
	sbt_writer_stats stats;

	/* sbt_writer_finish: the file ends with an index and trailer written
	 * from index_off, and the INDEX chunk is the last of chunks[] */
	int finished;
	uint64_t index_off;

	/* keyed BLOBS chunks (SBT_CHUNK_FLAG_KEYED): the file header as
	 * written, its required bit set in place before the first such chunk
	 * (keyed = 1); keyed = -1 when the header could not be rewritten (an
	 * output that cannot seek): every chunk then summed whole */
	uint8_t fh[SBT_FMT_FILE_HDR_SIZE];
	int keyed;
};

static sbt_status sbt_w_fail(sbt_writer *w, sbt_status st)
{
	if (w->err == SBT_OK)
		w->err = st;
	return st;
}

static sbt_status sbt_w_write_all(sbt_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t n = write(w->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sbt_w_fail(w, SBT_ERR_IO);
		}
		if (n == 0)
			return sbt_w_fail(w, SBT_ERR_IO);
		p += n;
		len -= (size_t)n;
		w->off += (uint64_t)n;
	}
	return SBT_OK;
}

/* Take a finished file back to where its index began (sbt_writer_finish):
 * the INDEX chunk leaves the chunk list, and its bytes and the trailer's
 * leave the file before anything else is written. */
static sbt_status sbt_w_unfinish(sbt_writer *w)
{
	const sbt_w_chunk *ic = &w->chunks[w->chunk_len - 1];
	w->finished = 0;
	w->chunk_len--;
	w->stats.chunks--;
	w->stats.raw_bytes -= ic->raw_size;
	w->stats.stored_bytes -= ic->stored_size;
	if (ftruncate(w->fd, (off_t)w->index_off) != 0 ||
	    lseek(w->fd, (off_t)w->index_off, SEEK_SET) < 0)
		return sbt_w_fail(w, SBT_ERR_IO);
	w->off = w->index_off;
	w->stats.file_bytes = w->off;
	return SBT_OK;
}

/* Whether a payload of a type whose last chunk was stored uncompressed is
 * worth compressing: its probe slices, each compressed on its own into
 * w->zbuf, come to fewer bytes than they hold.  Chunks are filled in
 * order, so data that turns compressible shows first at a chunk's end,
 * where the last slice is.  A chunk whose slices do not compress but
 * whose other bytes would (a compressible stretch shorter than a slice at
 * the end, or away from every slice) is stored uncompressed: larger,
 * never wrong; the next chunk of its type is probed again.  Slices from
 * `first` on are probed (the last: SBT_W_PROBE_SLICES - 1).  The slices go
 * through one stream, reset without clearing its table
 * (LZ4_resetStream_fast: each slice an independent block), since
 * LZ4_compress_fast clears 16 KiB of state at every call. */
static int sbt_w_compressible(sbt_writer *w, const sbt_buf *payload, unsigned first)
{
	size_t step = payload->len / SBT_W_PROBE_SLICES, in = 0, out = 0;
	int bound = LZ4_compressBound((int)SBT_W_PROBE_SLICE);
	w->zbuf.len = 0;
	if (sbt_buf_reserve(&w->zbuf, (size_t)bound) != 0)
		return 1;
	if (!w->probe && !(w->probe = LZ4_createStream()))
		return 1;
	for (unsigned k = first; k < SBT_W_PROBE_SLICES; k++) {
		int n;
		LZ4_resetStream_fast(w->probe);
		n = LZ4_compress_fast_continue(w->probe,
		                               (const char *)payload->p + (k + 1) * step -
		                                       SBT_W_PROBE_SLICE,
		                               (char *)w->zbuf.p, (int)SBT_W_PROBE_SLICE, bound,
		                               w->accel);
		in += SBT_W_PROBE_SLICE;
		out += n > 0 ? (size_t)n : SBT_W_PROBE_SLICE;
	}
	return out < in;
}

/* Whether a BLOBS chunk stored uncompressed may be keyed: its pages carry
 * their hashes (the capture runtime's are computed once, for the keys), so
 * its checksum need not pass over their data again (SBT_CHUNK_FLAG_KEYED,
 * serializer/sbt_format.h).  The first time, the file header's required
 * bit is set where the header was written, so that no file holds a keyed
 * chunk without it, even one cut short after that chunk; a descriptor
 * that cannot seek, appends, or did not start the file gets none. */
static int sbt_w_keyed(sbt_writer *w)
{
	uint64_t req;
	int fl;
	if (w->keyed)
		return w->keyed > 0;
	/* the header is at offset 0 only if the file began there (the offset
	 * now is what this writer wrote), and pwrite appends under O_APPEND */
	fl = fcntl(w->fd, F_GETFL);
	if (fl < 0 || (fl & O_APPEND) || lseek(w->fd, 0, SEEK_CUR) != (off_t)w->off) {
		w->keyed = -1;
		return 0;
	}
	req = sbt_fmt_load_u64(w->fh + SBT_FMT_FH_REQUIRED) | SBT_FEATURE_KEYED_BLOBS;
	sbt_fmt_store_u64(w->fh + SBT_FMT_FH_REQUIRED, req);
	sbt_fmt_store_u32(w->fh + SBT_FMT_FH_CHECKSUM, sbt_fmt_hash32(w->fh, SBT_FMT_FH_CHECKSUM));
	if (pwrite(w->fd, w->fh, sizeof(w->fh), 0) != (ssize_t)sizeof(w->fh)) {
		w->keyed = -1;
		return 0;
	}
	w->keyed = 1;
	w->hdr.features |= SBT_FEATURE_KEYED_BLOBS;
	return 1;
}

/* Compresses payload (when that shrinks it), writes header and payload and
 * records the chunk for the index. */
static sbt_status sbt_w_emit(sbt_writer *w, uint32_t type, const sbt_buf *payload,
                             uint32_t count, uint64_t first_seq, uint64_t t_first,
                             uint64_t t_last)
{
	uint8_t hdr[SBT_FMT_CHUNK_HDR_SIZE];
	sbt_fmt_chunk_hdr h;
	const uint8_t *stored = payload->p;
	size_t stored_len = payload->len;
	sbt_w_chunk *c;
	sbt_status st;
	/* the index, one a file, is probed as if after a raw chunk: with many
	 * pages it is mostly their hashes, which do not compress */
	uint32_t run = type == SBT_CHUNK_INDEX ? 1 : type < SBT_W_CHUNK_TYPES ? w->raw_run[type] : 0;

	if (payload->len > SBT_FMT_MAX_RAW)
		return sbt_w_fail(w, SBT_ERR_ARG);
	if (w->finished && (st = sbt_w_unfinish(w)) != SBT_OK)
		return st;
	memset(&h, 0, sizeof(h));
	h.codec = SBT_CODEC_NONE;
	if (!w->no_compress && payload->len &&
	    (!run || payload->len < SBT_W_PROBE_MIN ||
	     sbt_w_compressible(w, payload,
	                        run < SBT_W_PROBE_RUN || run % SBT_W_PROBE_FULL == 0
	                                ? 0
	                                : SBT_W_PROBE_SLICES - 1))) {
		int bound = LZ4_compressBound((int)payload->len);
		int n;
		w->zbuf.len = 0;
		if (sbt_buf_reserve(&w->zbuf, (size_t)bound) != 0)
			return sbt_w_fail(w, SBT_ERR_NOMEM);
		n = LZ4_compress_fast((const char *)payload->p, (char *)w->zbuf.p,
		                      (int)payload->len, bound, w->accel);
		if (n > 0 && (size_t)n < payload->len) {
			h.codec = SBT_CODEC_LZ4;
			stored = w->zbuf.p;
			stored_len = (size_t)n;
		}
	}
	if (sbt_array_reserve((void **)&w->chunks, &w->chunk_cap, w->chunk_len + 1,
	                      sizeof(*w->chunks)) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	h.type = type;
	h.raw_size = (uint32_t)payload->len;
	h.stored_size = (uint32_t)stored_len;
	h.record_count = count;
	h.first_seq = first_seq;
	h.t_first = t_first;
	h.t_last = t_last;
	if (type < SBT_W_CHUNK_TYPES && type != SBT_CHUNK_INDEX) /* the index's is always 1 */
		w->raw_run[type] = h.codec == SBT_CODEC_NONE ? run + (run < UINT32_MAX) : 0;
	if (type == SBT_CHUNK_BLOBS && h.codec == SBT_CODEC_NONE &&
	    stored_len >= (w->chunk_target < SBT_W_KEYED_MIN ? w->chunk_target : SBT_W_KEYED_MIN) &&
	    sbt_w_keyed(w)) {
		const char *why;
		if (sbt_fmt_keyed_sum(stored, stored_len, 0, &h.payload_sum, &why) != 0)
			return sbt_w_fail(w, SBT_ERR_ARG); /* its own entries: cannot be */
		h.flags = SBT_CHUNK_FLAG_KEYED;
	} else {
		h.payload_sum = sbt_fmt_hash64(stored, stored_len);
	}
	sbt_fmt_chunk_hdr_encode(hdr, &h);

	c = &w->chunks[w->chunk_len];
	c->offset = w->off;
	c->type = type;
	c->record_count = count;
	c->first_seq = first_seq;
	c->last_seq = first_seq;
	c->t_first = t_first;
	c->t_last = t_last;
	c->raw_size = h.raw_size;
	c->stored_size = h.stored_size;

	st = sbt_w_write_all(w, hdr, sizeof(hdr));
	if (st == SBT_OK)
		st = sbt_w_write_all(w, stored, stored_len);
	if (st != SBT_OK)
		return st;
	w->chunk_len++;
	w->stats.chunks++;
	w->stats.raw_bytes += payload->len;
	w->stats.stored_bytes += stored_len;
	w->stats.file_bytes = w->off;
	return SBT_OK;
}

static sbt_status sbt_w_emit_table(sbt_writer *w, uint32_t type, sbt_w_table *t)
{
	sbt_status st;
	if (!t->count)
		return SBT_OK;
	st = sbt_w_emit(w, type, &t->buf, t->count, t->first_id, 0, 0);
	if (st != SBT_OK)
		return st;
	if (type == SBT_CHUNK_BLOBS) {
		uint32_t ci = (uint32_t)(w->chunk_len - 1);
		for (; w->pages_pending < w->page_len; w->pages_pending++)
			w->pages[w->pages_pending].chunk = ci;
		for (; w->manifests_pending < w->manifest_len; w->manifests_pending++)
			w->manifests[w->manifests_pending].chunk = ci;
	}
	t->buf.len = 0;
	t->count = 0;
	t->first_id = 0;
	return SBT_OK;
}

/* Writes every table buffer in dependency order (strings before the stacks
 * and types that name them), then the records. */
static sbt_status sbt_w_cut(sbt_writer *w)
{
	sbt_status st;
	if ((st = sbt_w_emit_table(w, SBT_CHUNK_STRINGS, &w->strings)) != SBT_OK ||
	    (st = sbt_w_emit_table(w, SBT_CHUNK_TYPES, &w->types)) != SBT_OK ||
	    (st = sbt_w_emit_table(w, SBT_CHUNK_STACKS, &w->stacks)) != SBT_OK ||
	    (st = sbt_w_emit_table(w, SBT_CHUNK_META, &w->meta)) != SBT_OK ||
	    (st = sbt_w_emit_table(w, SBT_CHUNK_BLOBS, &w->blobs)) != SBT_OK)
		return st;
	if (!w->rec_count)
		return SBT_OK;
	st = sbt_w_emit(w, SBT_CHUNK_RECORDS, &w->recs, w->rec_count, w->rec_first_seq,
	                w->rec_t_first, w->rec_t_last);
	if (st != SBT_OK)
		return st;
	w->chunks[w->chunk_len - 1].last_seq = w->rec_prev_seq;
	w->recs.len = 0;
	w->rec_count = 0;
	return SBT_OK;
}

/* A table buffer that reached the target is written now; strings go first
 * so that a stack chunk never precedes the strings it names. */
static sbt_status sbt_w_table_full(sbt_writer *w, uint32_t type, sbt_w_table *t)
{
	sbt_status st;
	if (t->buf.len < w->chunk_target)
		return SBT_OK;
	if (type != SBT_CHUNK_STRINGS &&
	    (st = sbt_w_emit_table(w, SBT_CHUNK_STRINGS, &w->strings)) != SBT_OK)
		return st;
	return sbt_w_emit_table(w, type, t);
}

static void sbt_w_random_id(uint8_t id[16])
{
	ssize_t n = getrandom(id, 16, 0);
	if (n != 16) {
		/* No entropy source: an id unique enough to tell traces apart. */
		struct timespec ts;
		XXH128_hash_t h;
		uint64_t seed[3];
		clock_gettime(CLOCK_REALTIME, &ts);
		seed[0] = (uint64_t)ts.tv_sec;
		seed[1] = (uint64_t)ts.tv_nsec;
		seed[2] = (uint64_t)getpid();
		h = XXH3_128bits(seed, sizeof(seed));
		sbt_fmt_store_u64(id, h.low64);
		sbt_fmt_store_u64(id + 8, h.high64);
	}
}

static uint64_t sbt_w_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

sbt_status sbt_writer_open_fd(int fd, const sbt_writer_options *opt, sbt_writer **out)
{
	sbt_writer *w;
	uint8_t fh[SBT_FMT_FILE_HDR_SIZE];
	sbt_status st;

	if (!out || fd < 0)
		return SBT_ERR_ARG;
	*out = NULL;
	if (opt && (opt->chunk_target_bytes > SBT_W_MAX_TARGET ||
	            opt->blob_page_bytes > SBT_W_MAX_TARGET || opt->compression_level < 0))
		return SBT_ERR_ARG;
	w = calloc(1, sizeof(*w));
	if (!w)
		return SBT_ERR_NOMEM;
	w->fd = fd;
	w->chunk_target = opt && opt->chunk_target_bytes ? opt->chunk_target_bytes
	                                                 : SBT_W_DEFAULT_CHUNK;
	w->page_bytes = opt && opt->blob_page_bytes ? opt->blob_page_bytes : SBT_W_DEFAULT_PAGE;
	w->accel = opt && opt->compression_level ? opt->compression_level : 1;
	w->no_compress = opt ? opt->no_compress : 0;
	w->next_blob_id = 1;

	w->hdr.version_major = SBT_VERSION_MAJOR;
	w->hdr.version_minor = SBT_VERSION_MINOR;
	sbt_w_random_id(w->hdr.trace_id);
	w->hdr.start_mono_ns = sbt_w_clock(CLOCK_MONOTONIC);
	w->hdr.start_wall_ns = sbt_w_clock(CLOCK_REALTIME);

	memset(fh, 0, sizeof(fh));
	memcpy(fh + SBT_FMT_FH_MAGIC, SBT_FMT_MAGIC, SBT_FMT_MAGIC_LEN);
	sbt_fmt_store_u32(fh + SBT_FMT_FH_SIZE, SBT_FMT_FILE_HDR_SIZE);
	sbt_fmt_store_u16(fh + SBT_FMT_FH_MAJOR, SBT_VERSION_MAJOR);
	sbt_fmt_store_u16(fh + SBT_FMT_FH_MINOR, SBT_VERSION_MINOR);
	memcpy(fh + SBT_FMT_FH_TRACE_ID, w->hdr.trace_id, 16);
	sbt_fmt_store_u64(fh + SBT_FMT_FH_START_MONO, w->hdr.start_mono_ns);
	sbt_fmt_store_u64(fh + SBT_FMT_FH_START_WALL, w->hdr.start_wall_ns);
	sbt_fmt_store_u32(fh + SBT_FMT_FH_CHUNK_TARGET, w->chunk_target);
	sbt_fmt_store_u32(fh + SBT_FMT_FH_PAGE_BYTES, w->page_bytes);
	sbt_fmt_store_u32(fh + SBT_FMT_FH_CHECKSUM, sbt_fmt_hash32(fh, SBT_FMT_FH_CHECKSUM));
	memcpy(w->fh, fh, sizeof(fh));
	st = sbt_w_write_all(w, fh, sizeof(fh));
	if (st != SBT_OK)
		goto out_free_writer;
	w->stats.file_bytes = w->off;
	*out = w;
	return SBT_OK;

out_free_writer:
	free(w); /* the descriptor stays the caller's when open fails */
	return st;
}

sbt_status sbt_writer_open(const char *path, const sbt_writer_options *opt, sbt_writer **out)
{
	int fd;
	sbt_status st;
	if (!path || !out)
		return SBT_ERR_ARG;
	/* Traces hold memory contents: readable by the owner only. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return SBT_ERR_IO;
	st = sbt_writer_open_fd(fd, opt, out);
	if (st != SBT_OK)
		close(fd);
	return st;
}

void sbt_writer_get_header(const sbt_writer *w, sbt_header_info *out)
{
	if (w && out)
		*out = w->hdr;
}

sbt_status sbt_writer_define_type(sbt_writer *w, uint32_t type, const char *name)
{
	size_t len, cur;
	uint64_t h;
	uint32_t idx;
	uint8_t *q;
	if (!w || !name)
		return SBT_ERR_ARG;
	if (w->err)
		return w->err;
	len = strlen(name);
	if (len > SBT_W_MAX_TARGET)
		return SBT_ERR_ARG;
	h = sbt_fmt_hash64(name, len);
	if (sbt_map_first(&w->type_map, type, &cur, &idx)) {
		if (w->type_list[idx].name_hash == h)
			return SBT_OK;
		w->type_list[idx].name_hash = h;
	} else {
		if (sbt_array_reserve((void **)&w->type_list, &w->type_cap, w->type_len + 1,
		                      sizeof(*w->type_list)) != 0 ||
		    sbt_map_insert(&w->type_map, type, (uint32_t)w->type_len) != 0)
			return sbt_w_fail(w, SBT_ERR_NOMEM);
		w->type_list[w->type_len].type = type;
		w->type_list[w->type_len].name_hash = h;
		w->type_len++;
	}
	if (sbt_buf_reserve(&w->types.buf, SBT_W_FIELDS_MAX + len) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	q = w->types.buf.p + w->types.buf.len;
	q += sbt_varint_put(q, type);
	q += sbt_varint_put(q, len);
	memcpy(q, name, len);
	w->types.buf.len = (size_t)(q + len - w->types.buf.p);
	w->types.count++;
	return sbt_w_table_full(w, SBT_CHUNK_TYPES, &w->types);
}

sbt_status sbt_writer_intern(sbt_writer *w, const char *s, uint32_t *id_out)
{
	size_t len, cur;
	uint64_t h;
	uint32_t idx;
	uint8_t *q;
	if (!w || !s || !id_out)
		return SBT_ERR_ARG;
	if (w->err)
		return w->err;
	len = strlen(s);
	if (len > SBT_W_MAX_TARGET)
		return SBT_ERR_ARG;
	h = sbt_fmt_hash64(s, len);
	if (sbt_map_first(&w->str_map, h, &cur, &idx)) {
		do {
			const char *known = (const char *)w->str_arena.p + w->str_off[idx];
			if (strcmp(known, s) == 0) {
				*id_out = idx + 1;
				return SBT_OK;
			}
		} while (sbt_map_next(&w->str_map, h, &cur, &idx));
	}
	if (w->str_count >= UINT32_MAX - 1)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	if (sbt_array_reserve((void **)&w->str_off, &w->str_cap, w->str_count + 1,
	                      sizeof(*w->str_off)) != 0 ||
	    sbt_buf_reserve(&w->strings.buf, SBT_W_FIELDS_MAX + len) != 0 ||
	    sbt_map_insert(&w->str_map, h, (uint32_t)w->str_count) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	w->str_off[w->str_count] = w->str_arena.len;
	if (sbt_buf_append(&w->str_arena, s, len + 1) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	w->str_count++;
	if (!w->strings.count)
		w->strings.first_id = w->str_count;
	q = w->strings.buf.p + w->strings.buf.len;
	q += sbt_varint_put(q, len);
	memcpy(q, s, len);
	w->strings.buf.len = (size_t)(q + len - w->strings.buf.p);
	w->strings.count++;
	*id_out = (uint32_t)w->str_count;
	return sbt_w_table_full(w, SBT_CHUNK_STRINGS, &w->strings);
}

sbt_status sbt_writer_put_stack(sbt_writer *w, uint64_t key, const sbt_frame *frames,
                                uint32_t nframes, uint32_t *id_out)
{
	size_t cur;
	uint32_t idx, i;
	uint8_t *q;
	if (!w || !id_out || (nframes && !frames) || nframes > (1u << 20))
		return SBT_ERR_ARG;
	if (w->err)
		return w->err;
	if (sbt_map_first(&w->stack_map, key, &cur, &idx)) {
		*id_out = idx + 1;
		return SBT_OK;
	}
	if (w->stack_count >= UINT32_MAX - 1)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	if (sbt_buf_reserve(&w->stacks.buf, 10 + (size_t)nframes * 20) != 0 ||
	    sbt_map_insert(&w->stack_map, key, w->stack_count) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	w->stack_count++;
	if (!w->stacks.count)
		w->stacks.first_id = w->stack_count;
	q = w->stacks.buf.p + w->stacks.buf.len;
	q += sbt_varint_put(q, nframes);
	for (i = 0; i < nframes; i++) {
		q += sbt_varint_put(q, frames[i].ip);
		q += sbt_varint_put(q, frames[i].symbol_id);
	}
	w->stacks.buf.len = (size_t)(q - w->stacks.buf.p);
	w->stacks.count++;
	*id_out = w->stack_count;
	return sbt_w_table_full(w, SBT_CHUNK_STACKS, &w->stacks);
}

sbt_status sbt_writer_set_meta(sbt_writer *w, const char *key, const char *value)
{
	size_t kl, vl;
	uint8_t *q;
	if (!w || !key || !value)
		return SBT_ERR_ARG;
	if (w->err)
		return w->err;
	kl = strlen(key);
	vl = strlen(value);
	if (kl > SBT_W_MAX_TARGET || vl > SBT_W_MAX_TARGET)
		return SBT_ERR_ARG;
	if (sbt_buf_reserve(&w->meta.buf, SBT_W_FIELDS_MAX + kl + vl) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	q = w->meta.buf.p + w->meta.buf.len;
	q += sbt_varint_put(q, kl);
	memcpy(q, key, kl);
	q += kl;
	q += sbt_varint_put(q, vl);
	memcpy(q, value, vl);
	w->meta.buf.len = (size_t)(q + vl - w->meta.buf.p);
	w->meta.count++;
	return sbt_w_table_full(w, SBT_CHUNK_META, &w->meta);
}

/* Learns frame boundaries and keyframes for the index. */
static sbt_status sbt_w_learn(sbt_writer *w, const sbt_record *rec)
{
	if (rec->type == SBT_TYPE_FRAME) {
		const uint8_t *p = rec->payload;
		uint64_t frame;
		if (!rec->payload_len || sbt_varint_get(&p, p + rec->payload_len, &frame) != 0)
			return SBT_OK; /* not a frame number: nothing to index */
		if (sbt_array_reserve((void **)&w->frames, &w->frame_cap, w->frame_len + 1,
		                      sizeof(*w->frames)) != 0)
			return sbt_w_fail(w, SBT_ERR_NOMEM);
		w->frames[w->frame_len].frame = frame;
		w->frames[w->frame_len].seq = rec->seq;
		w->frame_len++;
	} else if (rec->type == SBT_TYPE_KEYFRAME) {
		if (sbt_array_reserve((void **)&w->keyframes, &w->keyframe_cap,
		                      w->keyframe_len + 1, sizeof(*w->keyframes)) != 0)
			return sbt_w_fail(w, SBT_ERR_NOMEM);
		w->keyframes[w->keyframe_len++] = rec->seq;
	}
	return SBT_OK;
}

sbt_status sbt_writer_append(sbt_writer *w, const sbt_record *rec)
{
	uint8_t *q;
	sbt_status st;
	size_t need;
	if (!w || !rec || (rec->payload_len && !rec->payload))
		return SBT_ERR_ARG;
	if (w->err)
		return w->err;
	if ((w->have_seq && rec->seq <= w->last_seq) ||
	    rec->payload_len > SBT_FMT_MAX_RAW - SBT_W_FIELDS_MAX)
		return SBT_ERR_ARG;
	need = SBT_W_FIELDS_MAX + rec->payload_len;
	if (w->rec_count && w->recs.len + need > SBT_FMT_MAX_RAW &&
	    (st = sbt_w_cut(w)) != SBT_OK)
		return st;
	if (sbt_buf_reserve(&w->recs, need) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	if (!w->rec_count) {
		w->rec_first_seq = rec->seq;
		w->rec_prev_seq = rec->seq;
		w->rec_t_first = rec->time_ns;
		w->rec_t_last = rec->time_ns;
	}
	q = w->recs.p + w->recs.len;
	q += sbt_varint_put(q, rec->type);
	q += sbt_varint_put(q, rec->seq - w->rec_prev_seq);
	q += sbt_varint_put(q, sbt_fmt_zigzag((int64_t)(rec->time_ns - w->rec_t_first)));
	q += sbt_varint_put(q, rec->thread);
	q += sbt_varint_put(q, rec->stack_id);
	q += sbt_varint_put(q, rec->payload_len);
	if (rec->payload_len)
		memcpy(q, rec->payload, rec->payload_len);
	w->recs.len = (size_t)(q + rec->payload_len - w->recs.p);
	w->rec_count++;
	w->rec_prev_seq = rec->seq;
	if (rec->time_ns > w->rec_t_last)
		w->rec_t_last = rec->time_ns;
	w->have_seq = 1;
	w->last_seq = rec->seq;
	w->stats.records++;
	if (rec->type == SBT_TYPE_FRAME || rec->type == SBT_TYPE_KEYFRAME) {
		st = sbt_w_learn(w, rec);
		if (st != SBT_OK)
			return st;
	}
	if (w->recs.len >= w->chunk_target || w->rec_count == UINT32_MAX)
		return sbt_w_cut(w);
	return SBT_OK;
}

static int sbt_w_page_find(const sbt_writer *w, XXH128_hash_t h)
{
	size_t cur;
	uint32_t idx;
	if (!sbt_map_first(&w->page_map, h.low64, &cur, &idx))
		return 0;
	do {
		if (w->pages[idx].key_hi == h.high64)
			return 1;
	} while (sbt_map_next(&w->page_map, h.low64, &cur, &idx));
	return 0;
}

static sbt_status sbt_w_blob_entry_done(sbt_writer *w)
{
	w->blobs.count++;
	return sbt_w_table_full(w, SBT_CHUNK_BLOBS, &w->blobs);
}

/* The checks and the manifest's scratch for a blob of npages pages;
 * picks the id when *blob_id is 0. */
static sbt_status sbt_w_blob_begin_n(sbt_writer *w, uint64_t *blob_id, size_t npages)
{
	size_t cur;
	uint32_t idx;
	if (w->err)
		return w->err;
	if (*blob_id == 0) {
		while (sbt_map_first(&w->blob_map, w->next_blob_id, &cur, &idx))
			w->next_blob_id++;
		*blob_id = w->next_blob_id++;
	} else if (sbt_map_first(&w->blob_map, *blob_id, &cur, &idx)) {
		return SBT_ERR_ARG; /* ids are unique per file */
	}
	if (npages > (SBT_FMT_MAX_RAW - SBT_W_FIELDS_MAX) / SBT_FMT_HASH_LEN)
		return SBT_ERR_ARG;
	w->manifest_scratch.len = 0;
	if (sbt_buf_reserve(&w->manifest_scratch, npages * SBT_FMT_HASH_LEN) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	return SBT_OK;
}

/* The same for a blob of len bytes in pages of the writer's size. */
static sbt_status sbt_w_blob_begin(sbt_writer *w, uint64_t *blob_id, size_t len, size_t *npages_out)
{
	size_t npages = len / w->page_bytes + (len % w->page_bytes != 0);
	*npages_out = npages;
	return sbt_w_blob_begin_n(w, blob_id, npages);
}

/* One page of the blob being stored: its hash goes into the manifest, its
 * n bytes into the blob table unless a page with that hash is there
 * already.  bytes NULL: the caller says the page is stored already;
 * SBT_ERR_ARG (the writer stays usable) when it is not. */
static sbt_status sbt_w_blob_page(sbt_writer *w, XXH128_hash_t h, const uint8_t *bytes, size_t n)
{
	uint8_t *hq = w->manifest_scratch.p + w->manifest_scratch.len;
	uint8_t *q;
	sbt_fmt_store_u64(hq, h.low64);
	sbt_fmt_store_u64(hq + 8, h.high64);
	w->manifest_scratch.len += SBT_FMT_HASH_LEN;
	if (sbt_w_page_find(w, h))
		return SBT_OK;
	if (!bytes)
		return SBT_ERR_ARG;
	if (sbt_array_reserve((void **)&w->pages, &w->page_cap, w->page_len + 1,
	                      sizeof(*w->pages)) != 0 ||
	    sbt_buf_reserve(&w->blobs.buf, 1 + 10 + SBT_FMT_HASH_LEN + n) != 0 ||
	    sbt_map_insert(&w->page_map, h.low64, (uint32_t)w->page_len) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	w->pages[w->page_len].key_lo = h.low64;
	w->pages[w->page_len].key_hi = h.high64;
	w->pages[w->page_len].chunk = UINT32_MAX;
	w->pages[w->page_len].offset = (uint32_t)w->blobs.buf.len;
	w->pages[w->page_len].len = n;
	w->page_len++;
	q = w->blobs.buf.p + w->blobs.buf.len;
	*q++ = SBT_BLOB_PAGE;
	q += sbt_varint_put(q, SBT_FMT_HASH_LEN + n);
	memcpy(q, hq, SBT_FMT_HASH_LEN);
	memcpy(q + SBT_FMT_HASH_LEN, bytes, n);
	w->blobs.buf.len = (size_t)(q + SBT_FMT_HASH_LEN + n - w->blobs.buf.p);
	w->stats.blob_bytes_unique += n;
	return sbt_w_blob_entry_done(w);
}

/* The blob's manifest, after its npages pages. */
static sbt_status sbt_w_blob_finish(sbt_writer *w, uint64_t blob_id, size_t len, size_t npages,
                                    uint64_t *blob_id_out)
{
	uint8_t head[30];
	size_t hl = 0, body;
	uint8_t *q;
	sbt_status st;
	sbt_w_blobloc *m;

	hl += sbt_varint_put(head + hl, blob_id);
	hl += sbt_varint_put(head + hl, len);
	hl += sbt_varint_put(head + hl, npages);
	body = hl + w->manifest_scratch.len;
	if (w->blobs.count && w->blobs.buf.len + 1 + 10 + body > SBT_FMT_MAX_RAW &&
	    (st = sbt_w_emit_table(w, SBT_CHUNK_BLOBS, &w->blobs)) != SBT_OK)
		return st;
	if (sbt_array_reserve((void **)&w->manifests, &w->manifest_cap,
	                      w->manifest_len + 1, sizeof(*w->manifests)) != 0 ||
	    sbt_buf_reserve(&w->blobs.buf, 1 + 10 + body) != 0 ||
	    sbt_map_insert(&w->blob_map, blob_id, (uint32_t)w->manifest_len) != 0)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	m = &w->manifests[w->manifest_len++];
	m->key_lo = blob_id;
	m->key_hi = 0;
	m->chunk = UINT32_MAX;
	m->offset = (uint32_t)w->blobs.buf.len;
	m->len = len;
	q = w->blobs.buf.p + w->blobs.buf.len;
	*q++ = SBT_BLOB_MANIFEST;
	q += sbt_varint_put(q, body);
	memcpy(q, head, hl);
	if (w->manifest_scratch.len)
		memcpy(q + hl, w->manifest_scratch.p, w->manifest_scratch.len);
	w->blobs.buf.len = (size_t)(q + body - w->blobs.buf.p);
	w->stats.blob_bytes_logical += len;
	if (blob_id_out)
		*blob_id_out = blob_id;
	return sbt_w_blob_entry_done(w);
}

sbt_status sbt_writer_put_blob(sbt_writer *w, uint64_t blob_id, const void *data, size_t len,
                               uint64_t *blob_id_out)
{
	const uint8_t *src = data;
	size_t off, npages;
	sbt_status st;

	if (!w || (len && !data))
		return SBT_ERR_ARG;
	if ((st = sbt_w_blob_begin(w, &blob_id, len, &npages)) != SBT_OK)
		return st;
	for (off = 0; off < len; off += w->page_bytes) {
		size_t n = len - off < w->page_bytes ? len - off : w->page_bytes;
		if ((st = sbt_w_blob_page(w, XXH3_128bits(src + off, n), src + off, n)) != SBT_OK)
			return st;
	}
	return sbt_w_blob_finish(w, blob_id, len, npages, blob_id_out);
}

sbt_status sbt_writer_put_blob_hashed(sbt_writer *w, uint64_t blob_id, size_t len,
                                      uint32_t page_bytes, const uint64_t *hashes,
                                      const uint8_t *present, const void *data)
{
	const uint8_t *src = data;
	size_t i, npages;
	sbt_status st;

	if (!w || blob_id == 0 || page_bytes != w->page_bytes || (len && (!hashes || !present)))
		return SBT_ERR_ARG;
	if ((st = sbt_w_blob_begin(w, &blob_id, len, &npages)) != SBT_OK)
		return st;
	for (i = 0; i < npages; i++) {
		size_t n = len - i * page_bytes < page_bytes ? len - i * page_bytes : page_bytes;
		XXH128_hash_t h;
		h.low64 = hashes[2 * i];
		h.high64 = hashes[2 * i + 1];
		if ((st = sbt_w_blob_page(w, h, present[i] ? src : NULL, n)) != SBT_OK)
			return st;
		if (present[i])
			src += n;
	}
	return sbt_w_blob_finish(w, blob_id, len, npages, NULL);
}

sbt_status sbt_writer_put_blob_split(sbt_writer *w, uint64_t blob_id, size_t npages,
                                     const uint32_t *lens, const uint64_t *hashes,
                                     const void *data)
{
	const uint8_t *src = data;
	size_t i, len = 0;
	sbt_status st;

	if (!w || blob_id == 0 || (npages && (!lens || !hashes || !data)))
		return SBT_ERR_ARG;
	for (i = 0; i < npages; i++) {
		if (!lens[i] || lens[i] > w->page_bytes)
			return SBT_ERR_ARG;
		len += lens[i];
	}
	if ((st = sbt_w_blob_begin_n(w, &blob_id, npages)) != SBT_OK)
		return st;
	for (i = 0; i < npages; i++) {
		XXH128_hash_t h;
		h.low64 = hashes[2 * i];
		h.high64 = hashes[2 * i + 1];
		if ((st = sbt_w_blob_page(w, h, src, lens[i])) != SBT_OK)
			return st;
		src += lens[i];
	}
	return sbt_w_blob_finish(w, blob_id, len, npages, NULL);
}

uint32_t sbt_writer_page_bytes(const sbt_writer *w)
{
	return w ? w->page_bytes : 0;
}

sbt_status sbt_writer_flush(sbt_writer *w)
{
	if (!w)
		return SBT_ERR_ARG;
	if (w->err)
		return w->err;
	return sbt_w_cut(w);
}

static int sbt_w_put_var(sbt_buf *b, uint64_t v)
{
	if (sbt_buf_reserve(b, 10) != 0)
		return -1;
	b->len += sbt_varint_put(b->p + b->len, v);
	return 0;
}

static int sbt_w_frame_cmp(const void *a, const void *b)
{
	const sbt_w_frame *x = a, *y = b;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Builds the INDEX payload (layout in sbt_format.h). */
static sbt_status sbt_w_build_index(sbt_writer *w, sbt_buf *b)
{
	size_t i;
	uint64_t prev = 0;
	int bad = 0;
	bad |= sbt_w_put_var(b, w->chunk_len);
	for (i = 0; i < w->chunk_len && !bad; i++) {
		const sbt_w_chunk *c = &w->chunks[i];
		bad |= sbt_w_put_var(b, c->offset - prev);
		bad |= sbt_w_put_var(b, c->type);
		bad |= sbt_w_put_var(b, c->first_seq);
		bad |= sbt_w_put_var(b, c->record_count);
		bad |= sbt_w_put_var(b, c->last_seq - c->first_seq);
		bad |= sbt_w_put_var(b, c->t_first);
		bad |= sbt_w_put_var(b, c->t_last);
		bad |= sbt_w_put_var(b, c->raw_size);
		bad |= sbt_w_put_var(b, c->stored_size);
		prev = c->offset;
	}
	/* Frames are kept in the order readers look them up in. */
	if (w->frame_len > 1)
		qsort(w->frames, w->frame_len, sizeof(*w->frames), sbt_w_frame_cmp);
	bad |= sbt_w_put_var(b, w->frame_len);
	for (i = 0; i < w->frame_len && !bad; i++) {
		bad |= sbt_w_put_var(b, w->frames[i].frame);
		bad |= sbt_w_put_var(b, w->frames[i].seq);
	}
	bad |= sbt_w_put_var(b, w->keyframe_len);
	for (i = 0, prev = 0; i < w->keyframe_len && !bad; i++) {
		bad |= sbt_w_put_var(b, w->keyframes[i] - prev);
		prev = w->keyframes[i];
	}
	bad |= sbt_w_put_var(b, w->manifest_len);
	for (i = 0; i < w->manifest_len && !bad; i++) {
		bad |= sbt_w_put_var(b, w->manifests[i].key_lo);
		bad |= sbt_w_put_var(b, w->manifests[i].chunk);
		bad |= sbt_w_put_var(b, w->manifests[i].offset);
		bad |= sbt_w_put_var(b, w->manifests[i].len);
	}
	bad |= sbt_w_put_var(b, w->page_len);
	for (i = 0; i < w->page_len && !bad; i++) {
		uint8_t h[SBT_FMT_HASH_LEN];
		sbt_fmt_store_u64(h, w->pages[i].key_lo);
		sbt_fmt_store_u64(h + 8, w->pages[i].key_hi);
		bad |= sbt_buf_append(b, h, sizeof(h));
		bad |= sbt_w_put_var(b, w->pages[i].chunk);
		bad |= sbt_w_put_var(b, w->pages[i].offset);
		bad |= sbt_w_put_var(b, w->pages[i].len);
	}
	/* Totals, for tools that summarise a trace from the index alone. */
	bad |= sbt_w_put_var(b, w->stats.records);
	bad |= sbt_w_put_var(b, w->str_count);
	bad |= sbt_w_put_var(b, w->stack_count);
	bad |= sbt_w_put_var(b, w->stats.blob_bytes_logical);
	bad |= sbt_w_put_var(b, w->stats.blob_bytes_unique);
	if (bad)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	if (b->len > SBT_FMT_MAX_RAW)
		return sbt_w_fail(w, SBT_ERR_NOMEM);
	return SBT_OK;
}

/* 1 when a table or the records hold entries not yet in the file. */
static int sbt_w_pending(const sbt_writer *w)
{
	return w->rec_count || w->strings.count || w->types.count || w->stacks.count ||
	       w->meta.count || w->blobs.count;
}

static sbt_status sbt_w_finish(sbt_writer *w)
{
	sbt_buf idx = {0};
	uint8_t tr[SBT_FMT_TRAILER_SIZE];
	uint64_t index_off;
	sbt_status st;

	if (w->err)
		return w->err;
	if (w->finished && !sbt_w_pending(w))
		return SBT_OK; /* the index and trailer on disk are current */
	if (w->finished && (st = sbt_w_unfinish(w)) != SBT_OK)
		return st; /* a new index must follow the old one's chunks, not it */
	if ((st = sbt_w_cut(w)) != SBT_OK)
		return st;
	if ((st = sbt_w_build_index(w, &idx)) != SBT_OK)
		goto out_free_index;
	index_off = w->off;
	st = sbt_w_emit(w, SBT_CHUNK_INDEX, &idx, (uint32_t)w->chunk_len, 0, 0, 0);
	if (st != SBT_OK)
		goto out_free_index;
	sbt_fmt_trailer_encode(tr, index_off, w->stats.records);
	st = sbt_w_write_all(w, tr, sizeof(tr));
	w->stats.file_bytes = w->off;
	if (st == SBT_OK) {
		w->finished = 1;
		w->index_off = index_off;
	}
out_free_index:
	sbt_buf_free(&idx);
	return st;
}

sbt_status sbt_writer_finish(sbt_writer *w)
{
	if (!w)
		return SBT_ERR_ARG;
	return sbt_w_finish(w);
}

sbt_status sbt_writer_close(sbt_writer *w)
{
	sbt_status st;
	if (!w)
		return SBT_OK;
	sbt_w_finish(w);
	if (close(w->fd) != 0)
		sbt_w_fail(w, SBT_ERR_IO);
	st = w->err;
	sbt_buf_free(&w->recs);
	sbt_buf_free(&w->strings.buf);
	sbt_buf_free(&w->types.buf);
	sbt_buf_free(&w->stacks.buf);
	sbt_buf_free(&w->meta.buf);
	sbt_buf_free(&w->blobs.buf);
	sbt_map_free(&w->str_map);
	sbt_buf_free(&w->str_arena);
	free(w->str_off);
	sbt_map_free(&w->stack_map);
	sbt_map_free(&w->type_map);
	free(w->type_list);
	sbt_map_free(&w->page_map);
	free(w->pages);
	sbt_map_free(&w->blob_map);
	free(w->manifests);
	sbt_buf_free(&w->manifest_scratch);
	free(w->chunks);
	free(w->frames);
	free(w->keyframes);
	sbt_buf_free(&w->zbuf);
	LZ4_freeStream(w->probe);
	free(w);
	return st;
}

void sbt_writer_get_stats(const sbt_writer *w, sbt_writer_stats *out)
{
	if (!w || !out)
		return;
	*out = w->stats;
}
