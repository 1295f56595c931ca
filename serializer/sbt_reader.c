/*
 * sbt_reader.c - reads SBT v1 files (layout and recovery rules in
 * sbt_format.h).
 *
 * Opening is two phases.  First the chunk list is built, from the INDEX
 * chunk the trailer points at, or else by walking chunk headers from the
 * start (the only way to read a trace whose writer was killed).  Then the
 * chunks everything else depends on are decoded: the tables (strings, types,
 * stacks, meta) always; when scanning, also RECORDS (for frames, keyframes
 * and the last seq) and BLOBS (for page and manifest locations), which the
 * index would otherwise have given.  Damage found in either phase either
 * ends the usable part of the file there (the reader keeps the chunks before
 * it and reports SBT_ERR_CORRUPT with the offset) or, with salvage, drops
 * just the damaged chunk or byte range and goes on.
 *
 * The file is untrusted: every payload is checksummed before it is decoded,
 * every varint and length is checked against the bytes that are left, and
 * counts are checked against the bytes that could hold them before anything
 * is allocated, so allocations stay proportional to the file size.
 */
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serializer/sbt_format.h"
#include "serializer/sbt_internal.h"
#include "serializer/sbt_varint.h"

#define SBT_R_MSG_MAX 1024
#define SBT_R_NONE SIZE_MAX
/* A blob may be this many times the file size (pages repeat: all-zero
 * memory costs 16 bytes of manifest per page); beyond it is a crafted file. */
#define SBT_R_BLOB_RATIO 65536ull

typedef struct sbt_r_chunk {
	uint64_t offset;
	uint32_t type;
	uint32_t raw_size, stored_size, record_count;
	uint64_t first_seq, last_seq;
	uint64_t t_first, t_last;
} sbt_r_chunk;

/* Page (key = hash) or manifest (key_lo = blob id) location. */
typedef struct sbt_r_loc {
	uint64_t key_lo, key_hi;
	uint32_t chunk;  /* position in the chunk list */
	uint32_t offset; /* of the entry in the chunk's raw payload */
	uint64_t len;
} sbt_r_loc;

typedef struct sbt_r_frame {
	uint64_t frame;
	uint64_t seq;
} sbt_r_frame;

/* Named things kept in the arena, sorted by key after open. */
typedef struct sbt_r_named {
	uint64_t key; /* record type, or arena offset of the meta key */
	size_t name;  /* arena offset of the name / value */
	size_t order; /* file order: a later definition wins */
} sbt_r_named;

typedef struct sbt_r_stack {
	size_t first; /* into frames */
	uint32_t n;
} sbt_r_stack;

typedef struct sbt_r_cache {
	size_t chunk; /* SBT_R_NONE: empty */
	sbt_buf buf;
	unsigned long long used;
} sbt_r_cache;

struct sbt_reader {
	int fd;             /* -1 for a memory reader */
	const uint8_t *mem; /* borrowed */
	uint64_t size;
	sbt_reader_options opt;
	sbt_trace_info info;
	char msg[SBT_R_MSG_MAX];
	int scanning; /* the chunk list came from a scan */

	sbt_r_chunk *chunks;
	size_t nchunks, chunk_cap;
	size_t *recs; /* positions of RECORDS chunks in chunks */
	size_t nrecs, rec_cap;

	sbt_buf arena; /* NUL-terminated strings, names, keys, values */
	size_t *strings; /* arena offsets by id - 1; SBT_R_NONE for holes */
	size_t nstrings, string_cap;
	sbt_frame *frames_buf;
	size_t nframes_buf, frames_buf_cap;
	sbt_r_stack *stacks;
	size_t nstacks, stack_cap;
	sbt_r_named *types;
	size_t ntypes, type_cap;
	sbt_r_named *meta;
	size_t nmeta, meta_cap;
	sbt_r_frame *frames;
	size_t nframes, frame_cap;
	uint64_t *keyframes;
	size_t nkeyframes, keyframe_cap;

	sbt_map page_map; /* hash low64 -> pages */
	sbt_r_loc *pages;
	size_t npages, page_cap;
	sbt_map blob_map; /* blob id -> manifests */
	sbt_r_loc *manifests;
	size_t nmanifests, manifest_cap;

	sbt_status pending; /* damage that ended the usable file at open */
	uint64_t trailer_index; /* index offset from a valid trailer, or UINT64_MAX */

	sbt_buf io; /* stored payload */
	sbt_buf cur; /* decoded RECORDS chunk being iterated */
	size_t it_rec;   /* position in recs */
	int it_loaded;
	const uint8_t *it_p, *it_end;
	uint32_t it_left;
	uint64_t it_prev_seq, it_t_first;
	int it_first;
	uint64_t it_min_seq;
	sbt_status it_err;

	sbt_r_cache cache[2];
	unsigned long long cache_clock;
};

/* ---- messages and I/O ------------------------------------------------- */

static void sbt_r_vmsg(sbt_reader *r, int append, const char *fmt, va_list ap)
{
	size_t len = append ? strlen(r->msg) : 0;
	if (append && len && len + 2 < sizeof(r->msg)) {
		memcpy(r->msg + len, "; ", 3);
		len += 2;
	}
	if (len < sizeof(r->msg))
		vsnprintf(r->msg + len, sizeof(r->msg) - len, fmt, ap);
}

static void sbt_r_msg(sbt_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sbt_r_msg(sbt_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbt_r_vmsg(r, 0, fmt, ap);
	va_end(ap);
}

static void sbt_r_note(sbt_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sbt_r_note(sbt_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbt_r_vmsg(r, 1, fmt, ap);
	va_end(ap);
}

/* Reads exactly len bytes at off; -1 past EOF or on an I/O error. */
static int sbt_r_read(const sbt_reader *r, uint64_t off, void *dst, size_t len)
{
	uint8_t *d = dst;
	if (off > r->size || len > r->size - off)
		return -1;
	if (r->mem) {
		if (len) /* memcpy's pointers must be valid even for 0 bytes */
			memcpy(d, r->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(r->fd, d, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		d += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- chunk loading ---------------------------------------------------- */

/* Reads and checks the header of chunk i against what the list says. */
static sbt_status sbt_r_chunk_header(sbt_reader *r, size_t i, sbt_fmt_chunk_hdr *h,
                                     const char **why)
{
	const sbt_r_chunk *c = &r->chunks[i];
	uint8_t hb[SBT_FMT_CHUNK_HDR_MAX];
	uint64_t avail = r->size - c->offset;
	int rc;
	if (avail > sizeof(hb))
		avail = sizeof(hb);
	if (sbt_r_read(r, c->offset, hb, (size_t)avail) != 0) {
		*why = "read failed";
		return SBT_ERR_IO;
	}
	rc = sbt_fmt_chunk_hdr_decode(hb, (size_t)avail, h, why);
	if (rc > 0) {
		*why = "header runs past the end of the file";
		return SBT_ERR_CORRUPT;
	}
	if (rc < 0)
		return SBT_ERR_CORRUPT;
	if (h->type != c->type || h->raw_size != c->raw_size ||
	    h->stored_size != c->stored_size || h->record_count != c->record_count ||
	    h->first_seq != c->first_seq) {
		*why = "header does not match the index";
		return SBT_ERR_CORRUPT;
	}
	if ((uint64_t)h->header_size + h->stored_size > r->size - c->offset) {
		*why = "payload runs past the end of the file";
		return SBT_ERR_CORRUPT;
	}
	return SBT_OK;
}

/* Decodes chunk i's payload into dst after checking its checksum.  On
 * damage, sets the message (naming the offset) unless quiet. */
static sbt_status sbt_r_load(sbt_reader *r, size_t i, sbt_buf *dst)
{
	const sbt_r_chunk *c = &r->chunks[i];
	sbt_fmt_chunk_hdr h;
	const char *why = "";
	sbt_status st;

	st = sbt_r_chunk_header(r, i, &h, &why);
	if (st != SBT_OK)
		goto out_damage;
	r->io.len = 0;
	dst->len = 0;
	if (sbt_buf_reserve(&r->io, h.stored_size) != 0 ||
	    sbt_buf_reserve(dst, h.raw_size ? h.raw_size : 1) != 0) {
		st = SBT_ERR_NOMEM;
		why = "out of memory";
		goto out_damage;
	}
	if (sbt_r_read(r, c->offset + h.header_size, r->io.p, h.stored_size) != 0) {
		st = SBT_ERR_IO;
		why = "read failed";
		goto out_damage;
	}
	if ((h.flags & SBT_CHUNK_FLAG_KEYED) && h.type == SBT_CHUNK_BLOBS &&
	    h.codec == SBT_CODEC_NONE) {
		/* keyed: the checksum leaves the pages' data to their hashes */
		uint64_t sum;
		if (sbt_fmt_keyed_sum(r->io.p, h.stored_size, 1, &sum, &why) != 0) {
			st = SBT_ERR_CORRUPT;
			goto out_damage;
		}
		if (sum != h.payload_sum) {
			st = SBT_ERR_CORRUPT;
			why = "payload checksum mismatch";
			goto out_damage;
		}
	} else if (sbt_fmt_hash64(r->io.p, h.stored_size) != h.payload_sum) {
		st = SBT_ERR_CORRUPT;
		why = "payload checksum mismatch";
		goto out_damage;
	}
	if (h.codec == SBT_CODEC_NONE) {
		if (h.raw_size)
			memcpy(dst->p, r->io.p, h.raw_size);
	} else if (LZ4_decompress_safe((const char *)r->io.p, (char *)dst->p,
	                               (int)h.stored_size, (int)h.raw_size) != (int)h.raw_size) {
		st = SBT_ERR_CORRUPT;
		why = "lz4 payload does not decode to its raw size";
		goto out_damage;
	}
	dst->len = h.raw_size;
	return SBT_OK;

out_damage:
	sbt_r_msg(r, "corrupt chunk at offset %llu: %s", (unsigned long long)c->offset, why);
	return st;
}

/* ---- records ------------------------------------------------------------ */

#if defined(__GNUC__)
#define SBT_R_HOT_INLINE __attribute__((always_inline)) inline
#else
#define SBT_R_HOT_INLINE inline
#endif

/* Decodes one record at *p; 0 on success.  Inlined into the iterator
 * (every record of a replay passes here): a call would save and restore
 * six registers for a body of about 100 instructions. */
static SBT_R_HOT_INLINE int sbt_r_rec_decode(const uint8_t **p, const uint8_t *end,
                                             uint64_t base_seq, int first, uint64_t t_first,
                                             sbt_record *out)
{
	const uint8_t *q = *p;
	uint64_t type, dseq, dt, thread, stack, len;
	size_t n1, n2, n3, n4, n5, n6;
	/* With room for six 8-byte varints no field needs a bounds check; a
	 * field longer than 8 bytes (or less room) takes the checked path from
	 * the start, which decides the same way.  Written out, not looped:
	 * every record passes here. */
	if ((size_t)(end - q) >= 6 * 8 && (n1 = sbt_varint_peek8(q, &type)) != 0 &&
	    (n2 = sbt_varint_peek8(q + n1, &dseq)) != 0 &&
	    (n3 = sbt_varint_peek8(q + n1 + n2, &dt)) != 0 &&
	    (n4 = sbt_varint_peek8(q + n1 + n2 + n3, &thread)) != 0 &&
	    (n5 = sbt_varint_peek8(q + n1 + n2 + n3 + n4, &stack)) != 0 &&
	    (n6 = sbt_varint_peek8(q + n1 + n2 + n3 + n4 + n5, &len)) != 0) {
		q += n1 + n2 + n3 + n4 + n5 + n6;
	} else if (sbt_varint_get(&q, end, &type) || sbt_varint_get(&q, end, &dseq) ||
	           sbt_varint_get(&q, end, &dt) || sbt_varint_get(&q, end, &thread) ||
	           sbt_varint_get(&q, end, &stack) || sbt_varint_get(&q, end, &len)) {
		return -1;
	}
	if (type > UINT32_MAX || stack > UINT32_MAX || len > (uint64_t)(end - q))
		return -1;
	if ((!first && dseq == 0) || dseq > UINT64_MAX - base_seq)
		return -1; /* seqs strictly ascend */
	out->type = (uint32_t)type;
	out->seq = base_seq + dseq;
	out->time_ns = t_first + (uint64_t)sbt_fmt_unzigzag(dt);
	out->thread = thread;
	out->stack_id = (uint32_t)stack;
	out->payload = len ? q : NULL;
	out->payload_len = (size_t)len;
	*p = q + len;
	return 0;
}

/* ---- table parsers -------------------------------------------------------
 * Each parser runs twice on a payload: with commit 0 it only validates, with
 * commit 1 it stores; so a chunk is taken whole or not at all. */

static int sbt_r_arena_put(sbt_reader *r, const uint8_t *s, size_t len, size_t *off)
{
	if (sbt_buf_reserve(&r->arena, len + 1) != 0)
		return -1;
	*off = r->arena.len;
	if (len)
		memcpy(r->arena.p + r->arena.len, s, len);
	r->arena.p[r->arena.len + len] = 0;
	r->arena.len += len + 1;
	return 0;
}

static const char *sbt_r_parse_strings(sbt_reader *r, const sbt_r_chunk *c,
                                       const uint8_t *p, const uint8_t *end, int commit)
{
	uint64_t next_id = r->nstrings + 1, i;
	if (c->first_seq < next_id)
		return "string ids overlap earlier strings";
	if (c->first_seq - next_id > r->size)
		return "string id out of range";
	if (commit) {
		if (sbt_array_reserve((void **)&r->strings, &r->string_cap,
		                      (size_t)(c->first_seq - 1 + c->record_count),
		                      sizeof(*r->strings)) != 0)
			return "out of memory";
		while (r->nstrings + 1 < c->first_seq)
			r->strings[r->nstrings++] = SBT_R_NONE;
	}
	for (i = 0; i < c->record_count; i++) {
		uint64_t len;
		if (sbt_varint_get(&p, end, &len) || len > (uint64_t)(end - p))
			return "string overruns the payload";
		if (memchr(p, 0, (size_t)len))
			return "string holds a NUL byte";
		if (commit) {
			if (sbt_r_arena_put(r, p, (size_t)len, &r->strings[r->nstrings]) != 0)
				return "out of memory";
			r->nstrings++;
		}
		p += len;
	}
	return NULL;
}

static const char *sbt_r_parse_stacks(sbt_reader *r, const sbt_r_chunk *c,
                                      const uint8_t *p, const uint8_t *end, int commit)
{
	uint64_t next_id = r->nstacks + 1, i, j;
	if (c->first_seq < next_id)
		return "stack ids overlap earlier stacks";
	if (c->first_seq - next_id > r->size)
		return "stack id out of range";
	if (commit) {
		if (sbt_array_reserve((void **)&r->stacks, &r->stack_cap,
		                      (size_t)(c->first_seq - 1 + c->record_count),
		                      sizeof(*r->stacks)) != 0)
			return "out of memory";
		while (r->nstacks + 1 < c->first_seq) {
			r->stacks[r->nstacks].first = 0;
			r->stacks[r->nstacks++].n = 0;
		}
	}
	for (i = 0; i < c->record_count; i++) {
		uint64_t n;
		if (sbt_varint_get(&p, end, &n) || n > (uint64_t)(end - p) / 2)
			return "stack overruns the payload";
		if (commit) {
			if (sbt_array_reserve((void **)&r->frames_buf, &r->frames_buf_cap,
			                      r->nframes_buf + (size_t)n, sizeof(*r->frames_buf)) != 0)
				return "out of memory";
			r->stacks[r->nstacks].first = r->nframes_buf;
			r->stacks[r->nstacks].n = (uint32_t)n;
			r->nstacks++;
		}
		for (j = 0; j < n; j++) {
			uint64_t ip, sym;
			if (sbt_varint_get(&p, end, &ip) || sbt_varint_get(&p, end, &sym) ||
			    sym > UINT32_MAX)
				return "stack frame overruns the payload";
			if (commit) {
				r->frames_buf[r->nframes_buf].ip = ip;
				r->frames_buf[r->nframes_buf].symbol_id = (uint32_t)sym;
				r->nframes_buf++;
			}
		}
	}
	return NULL;
}

static const char *sbt_r_parse_named(sbt_reader *r, const sbt_r_chunk *c, const uint8_t *p,
                                     const uint8_t *end, int commit, int is_meta)
{
	uint64_t i;
	for (i = 0; i < c->record_count; i++) {
		uint64_t key = 0, klen = 0, vlen;
		const uint8_t *k = NULL;
		sbt_r_named *e;
		if (is_meta) {
			if (sbt_varint_get(&p, end, &klen) || klen > (uint64_t)(end - p) ||
			    memchr(p, 0, (size_t)klen))
				return "meta key overruns the payload";
			k = p;
			p += klen;
		} else if (sbt_varint_get(&p, end, &key) || key > UINT32_MAX) {
			return "type entry overruns the payload";
		}
		if (sbt_varint_get(&p, end, &vlen) || vlen > (uint64_t)(end - p) ||
		    memchr(p, 0, (size_t)vlen))
			return "name or value overruns the payload";
		if (commit) {
			sbt_r_named **arr = is_meta ? &r->meta : &r->types;
			size_t *n = is_meta ? &r->nmeta : &r->ntypes;
			size_t *cap = is_meta ? &r->meta_cap : &r->type_cap;
			if (sbt_array_reserve((void **)arr, cap, *n + 1, sizeof(**arr)) != 0)
				return "out of memory";
			e = &(*arr)[*n];
			if (is_meta) {
				size_t koff;
				if (sbt_r_arena_put(r, k, (size_t)klen, &koff) != 0)
					return "out of memory";
				key = koff;
			}
			e->key = key;
			e->order = *n;
			if (sbt_r_arena_put(r, p, (size_t)vlen, &e->name) != 0)
				return "out of memory";
			(*n)++;
		}
		p += vlen;
	}
	return NULL;
}

static int sbt_r_loc_add(sbt_map *map, sbt_r_loc **arr, size_t *n, size_t *cap,
                         const sbt_r_loc *loc)
{
	size_t cursor;
	uint32_t idx;
	if (sbt_map_first(map, loc->key_lo, &cursor, &idx)) {
		do {
			if ((*arr)[idx].key_hi == loc->key_hi)
				return 0; /* the first location wins */
		} while (sbt_map_next(map, loc->key_lo, &cursor, &idx));
	}
	if (*n >= UINT32_MAX - 1 || sbt_array_reserve((void **)arr, cap, *n + 1, sizeof(**arr)) != 0 ||
	    sbt_map_insert(map, loc->key_lo, (uint32_t)*n) != 0)
		return -1;
	(*arr)[(*n)++] = *loc;
	return 0;
}

/* A blob entry at offset `at` of a BLOBS payload: kind and body bounds. */
static int sbt_r_blob_entry(const uint8_t *base, size_t len, size_t at, unsigned *kind,
                            const uint8_t **body, const uint8_t **body_end)
{
	const uint8_t *p = base + at, *end = base + len;
	uint64_t blen;
	if (at >= len)
		return -1;
	*kind = *p++;
	if (sbt_varint_get(&p, end, &blen) || blen > (uint64_t)(end - p))
		return -1;
	*body = p;
	*body_end = p + blen;
	return 0;
}

/* Manifest body: id, length, npages and where the hashes start. */
static int sbt_r_manifest(const uint8_t *p, const uint8_t *end, uint64_t *id, uint64_t *len,
                          uint64_t *npages, const uint8_t **hashes)
{
	if (sbt_varint_get(&p, end, id) || sbt_varint_get(&p, end, len) ||
	    sbt_varint_get(&p, end, npages) || *npages != (uint64_t)(end - p) / SBT_FMT_HASH_LEN ||
	    (uint64_t)(end - p) % SBT_FMT_HASH_LEN)
		return -1;
	*hashes = p;
	return 0;
}

static const char *sbt_r_parse_blobs(sbt_reader *r, size_t ci, const uint8_t *base,
                                     size_t len, int commit)
{
	const sbt_r_chunk *c = &r->chunks[ci];
	size_t at = 0;
	uint64_t i;
	for (i = 0; i < c->record_count; i++) {
		unsigned kind;
		const uint8_t *body, *bend;
		sbt_r_loc loc;
		if (sbt_r_blob_entry(base, len, at, &kind, &body, &bend) != 0)
			return "blob entry overruns the payload";
		memset(&loc, 0, sizeof(loc));
		loc.chunk = (uint32_t)ci;
		loc.offset = (uint32_t)at;
		if (kind == SBT_BLOB_PAGE) {
			if (bend - body < SBT_FMT_HASH_LEN)
				return "blob page shorter than its hash";
			loc.key_lo = sbt_fmt_load_u64(body);
			loc.key_hi = sbt_fmt_load_u64(body + 8);
			loc.len = (uint64_t)(bend - body) - SBT_FMT_HASH_LEN;
			if (commit && sbt_r_loc_add(&r->page_map, &r->pages, &r->npages, &r->page_cap,
			                            &loc) != 0)
				return "out of memory";
		} else if (kind == SBT_BLOB_MANIFEST) {
			uint64_t id, blen, np;
			const uint8_t *hashes;
			if (sbt_r_manifest(body, bend, &id, &blen, &np, &hashes) != 0)
				return "malformed blob manifest";
			loc.key_lo = id;
			loc.len = blen;
			if (commit && sbt_r_loc_add(&r->blob_map, &r->manifests, &r->nmanifests,
			                            &r->manifest_cap, &loc) != 0)
				return "out of memory";
		}
		at = (size_t)(bend - base);
	}
	return NULL;
}

static int sbt_r_learn(sbt_reader *r, const sbt_record *rec)
{
	if (rec->type == SBT_TYPE_FRAME) {
		const uint8_t *p = rec->payload;
		uint64_t frame;
		if (!rec->payload_len || sbt_varint_get(&p, p + rec->payload_len, &frame) != 0)
			return 0;
		if (sbt_array_reserve((void **)&r->frames, &r->frame_cap, r->nframes + 1,
		                      sizeof(*r->frames)) != 0)
			return -1;
		r->frames[r->nframes].frame = frame;
		r->frames[r->nframes++].seq = rec->seq;
	} else if (rec->type == SBT_TYPE_KEYFRAME) {
		if (sbt_array_reserve((void **)&r->keyframes, &r->keyframe_cap, r->nkeyframes + 1,
		                      sizeof(*r->keyframes)) != 0)
			return -1;
		r->keyframes[r->nkeyframes++] = rec->seq;
	}
	return 0;
}

static const char *sbt_r_parse_records(sbt_reader *r, sbt_r_chunk *c, const uint8_t *p,
                                       const uint8_t *end, int commit)
{
	uint64_t i, seq = c->first_seq;
	for (i = 0; i < c->record_count; i++) {
		sbt_record rec;
		if (sbt_r_rec_decode(&p, end, seq, i == 0, c->t_first, &rec) != 0)
			return "malformed record";
		seq = rec.seq;
		if (commit && sbt_r_learn(r, &rec) != 0)
			return "out of memory";
	}
	if (commit)
		c->last_seq = seq;
	return NULL;
}

/* Decodes and takes in chunk i when open needs it.  Returns SBT_OK, or the
 * damage status with the message set. */
static sbt_status sbt_r_take_chunk(sbt_reader *r, size_t i)
{
	sbt_r_chunk *c = &r->chunks[i];
	int need = c->type == SBT_CHUNK_STRINGS || c->type == SBT_CHUNK_STACKS ||
	           c->type == SBT_CHUNK_TYPES || c->type == SBT_CHUNK_META;
	int commit;
	sbt_status st;
	if (r->scanning && (c->type == SBT_CHUNK_RECORDS || c->type == SBT_CHUNK_BLOBS))
		need = 1;
	/* The index was either loaded already or is being replaced by the scan:
	 * damage in it is never an error by itself. */
	if (!need && (!r->opt.verify || c->type == SBT_CHUNK_INDEX))
		return SBT_OK;
	st = sbt_r_load(r, i, &r->cur);
	if (st != SBT_OK || !need)
		return st;
	for (commit = 0; commit < 2; commit++) {
		const uint8_t *p = r->cur.p, *end = r->cur.p + r->cur.len;
		const char *why = NULL;
		switch (c->type) {
		case SBT_CHUNK_STRINGS:
			why = sbt_r_parse_strings(r, c, p, end, commit);
			break;
		case SBT_CHUNK_STACKS:
			why = sbt_r_parse_stacks(r, c, p, end, commit);
			break;
		case SBT_CHUNK_TYPES:
			why = sbt_r_parse_named(r, c, p, end, commit, 0);
			break;
		case SBT_CHUNK_META:
			why = sbt_r_parse_named(r, c, p, end, commit, 1);
			break;
		case SBT_CHUNK_BLOBS:
			why = sbt_r_parse_blobs(r, i, p, r->cur.len, commit);
			break;
		case SBT_CHUNK_RECORDS:
			why = sbt_r_parse_records(r, c, p, end, commit);
			break;
		default:
			break;
		}
		if (why) {
			sbt_r_msg(r, "corrupt chunk at offset %llu: %s",
			          (unsigned long long)c->offset, why);
			return strcmp(why, "out of memory") ? SBT_ERR_CORRUPT : SBT_ERR_NOMEM;
		}
	}
	return SBT_OK;
}

/* ---- building the chunk list ------------------------------------------ */

static int sbt_r_add_chunk(sbt_reader *r, uint64_t off, const sbt_fmt_chunk_hdr *h)
{
	sbt_r_chunk *c;
	if (sbt_array_reserve((void **)&r->chunks, &r->chunk_cap, r->nchunks + 1,
	                      sizeof(*r->chunks)) != 0)
		return -1;
	c = &r->chunks[r->nchunks++];
	c->offset = off;
	c->type = h->type;
	c->raw_size = h->raw_size;
	c->stored_size = h->stored_size;
	c->record_count = h->record_count;
	c->first_seq = h->first_seq;
	c->last_seq = h->first_seq;
	c->t_first = h->t_first;
	c->t_last = h->t_last;
	return 0;
}

static int sbt_r_all_zero(const sbt_reader *r, uint64_t off)
{
	uint8_t buf[4096];
	while (off < r->size) {
		size_t n = r->size - off < sizeof(buf) ? (size_t)(r->size - off) : sizeof(buf);
		size_t i;
		if (sbt_r_read(r, off, buf, n) != 0)
			return 0;
		for (i = 0; i < n; i++)
			if (buf[i])
				return 0;
		off += n;
	}
	return 1;
}

/* Next offset after `from` holding a chunk header with a valid checksum, or
 * the trailer when it is what is left; r->size when there is none. */
static uint64_t sbt_r_resync(const sbt_reader *r, uint64_t from)
{
	enum { SBT_R_WIN = 65536 };
	static const size_t span = SBT_R_WIN + SBT_FMT_CHUNK_HDR_MAX;
	uint8_t *buf = malloc(span);
	uint64_t pos = from, found = r->size;
	if (!buf)
		return r->size;
	while (pos < r->size && found == r->size) {
		size_t n = r->size - pos < span ? (size_t)(r->size - pos) : span;
		size_t scan_to = n < SBT_R_WIN ? n : SBT_R_WIN, i;
		if (sbt_r_read(r, pos, buf, n) != 0)
			break;
		for (i = 0; i < scan_to; i++) {
			sbt_fmt_chunk_hdr h;
			const char *why;
			if (buf[i] == 0x89 && n - i == SBT_FMT_TRAILER_SIZE &&
			    memcmp(buf + i, SBT_FMT_TRAILER_MAGIC, 8) == 0) {
				found = pos + i;
				break;
			}
			if (i + 8 > n || memcmp(buf + i + 4, SBT_FMT_CHUNK_MAGIC, 4) != 0)
				continue;
			if (sbt_fmt_chunk_hdr_decode(buf + i, n - i, &h, &why) == 0) {
				found = pos + i;
				break;
			}
		}
		pos += scan_to;
	}
	free(buf);
	return found;
}

/* Walks chunk headers from the file header to EOF. */
static sbt_status sbt_r_scan(sbt_reader *r, uint64_t start)
{
	uint64_t off = start;
	uint8_t hb[SBT_FMT_CHUNK_HDR_MAX];
	r->scanning = 1;
	r->nchunks = 0;
	while (off < r->size) {
		uint64_t left = r->size - off;
		size_t avail = left < sizeof(hb) ? (size_t)left : sizeof(hb);
		sbt_fmt_chunk_hdr h;
		const char *why = "";
		int rc;
		if (sbt_r_read(r, off, hb, avail) != 0)
			return SBT_ERR_IO;
		if (left >= SBT_FMT_TRAILER_SIZE) {
			uint64_t io, rc2;
			if (sbt_fmt_trailer_decode(hb, &io, &rc2) == 0) {
				off += SBT_FMT_TRAILER_SIZE;
				continue;
			}
			/* A writer puts the trailer right after the index chunk. */
			if (left == SBT_FMT_TRAILER_SIZE && r->nchunks &&
			    r->chunks[r->nchunks - 1].type == SBT_CHUNK_INDEX) {
				sbt_r_note(r, "damaged trailer at offset %llu ignored",
				           (unsigned long long)off);
				break;
			}
		}
		rc = sbt_fmt_chunk_hdr_decode(hb, avail, &h, &why);
		if (left < SBT_FMT_CHUNK_HDR_SIZE)
			rc = 1; /* a partial header: the writer stopped inside it */
		if (rc == 0 && (uint64_t)h.header_size + h.stored_size > left)
			rc = 1;
		if (rc > 0 || (rc < 0 && sbt_r_all_zero(r, off))) {
			r->info.truncated = 1;
			r->info.truncated_at = off;
			sbt_r_note(r, "torn tail at offset %llu (%llu bytes) dropped",
			           (unsigned long long)off, (unsigned long long)left);
			break;
		}
		if (rc < 0 && off == r->trailer_index) {
			/* The index is only an accelerator; the chunks before it are
			 * all there is to read. */
			sbt_r_note(r, "damaged index chunk at offset %llu ignored",
			           (unsigned long long)off);
			break;
		}
		if (rc < 0) {
			uint64_t next;
			if (!r->opt.salvage) {
				sbt_r_note(r, "corrupt chunk at offset %llu: %s", (unsigned long long)off,
				           why);
				r->pending = SBT_ERR_CORRUPT;
				break;
			}
			next = sbt_r_resync(r, off + 1);
			if (next >= r->size) {
				sbt_r_note(r, "corrupt chunk at offset %llu: %s; no valid chunk after it, "
				              "%llu bytes dropped",
				           (unsigned long long)off, why, (unsigned long long)left);
				break;
			}
			sbt_r_note(r, "corrupt chunk at offset %llu: %s; skipped %llu bytes to offset %llu",
			           (unsigned long long)off, why, (unsigned long long)(next - off),
			           (unsigned long long)next);
			off = next;
			continue;
		}
		if (sbt_r_add_chunk(r, off, &h) != 0)
			return SBT_ERR_NOMEM;
		off += h.header_size + h.stored_size;
	}
	return SBT_OK;
}

/* Reads the INDEX chunk the trailer points at.  Returns 0 when the chunk list
 * and locations came from it; -1 (with a note saying why) to fall back to a
 * scan. */
static int sbt_r_try_index(sbt_reader *r, uint64_t data_start)
{
	uint8_t tb[SBT_FMT_TRAILER_SIZE];
	uint64_t index_off, trailer_records, n, i, prev = 0, total = 0, rec_last = 0;
	int have_rec = 0;
	sbt_fmt_chunk_hdr h;
	const char *why = "";
	const uint8_t *p, *end;
	size_t idx_pos;

	if (r->size < data_start + SBT_FMT_TRAILER_SIZE ||
	    sbt_r_read(r, r->size - SBT_FMT_TRAILER_SIZE, tb, sizeof(tb)) != 0 ||
	    sbt_fmt_trailer_decode(tb, &index_off, &trailer_records) != 0)
		return -1; /* no trailer: a writer that did not close; scanning is normal */
	if (index_off < data_start || index_off >= r->size - SBT_FMT_TRAILER_SIZE) {
		why = "index offset out of range";
		goto out_fallback;
	}
	{
		uint8_t hb[SBT_FMT_CHUNK_HDR_MAX];
		uint64_t left = r->size - SBT_FMT_TRAILER_SIZE - index_off;
		size_t avail = left < sizeof(hb) ? (size_t)left : sizeof(hb);
		if (sbt_r_read(r, index_off, hb, avail) != 0 ||
		    sbt_fmt_chunk_hdr_decode(hb, avail, &h, &why) != 0) {
			if (!why[0])
				why = "index header runs into the trailer";
			goto out_fallback;
		}
		if (h.type != SBT_CHUNK_INDEX ||
		    index_off + h.header_size + h.stored_size != r->size - SBT_FMT_TRAILER_SIZE) {
			why = "trailer does not point at an index chunk";
			goto out_fallback;
		}
	}
	/* Load the index through the normal path: it is the last chunk. */
	r->nchunks = 0;
	if (sbt_r_add_chunk(r, index_off, &h) != 0)
		return -1;
	if (sbt_r_load(r, 0, &r->cur) != SBT_OK) {
		why = "index payload damaged";
		goto out_fallback;
	}
	r->nchunks = 0;
	p = r->cur.p;
	end = r->cur.p + r->cur.len;

	why = "malformed index";
	if (sbt_varint_get(&p, end, &n) || n > (uint64_t)(end - p) / 8 || n != h.record_count)
		goto out_fallback;
	for (i = 0; i < n; i++) {
		uint64_t d, type, first, count, span, t0, t1, raw, stored;
		sbt_fmt_chunk_hdr e;
		if (sbt_varint_get(&p, end, &d) || sbt_varint_get(&p, end, &type) ||
		    sbt_varint_get(&p, end, &first) || sbt_varint_get(&p, end, &count) ||
		    sbt_varint_get(&p, end, &span) || sbt_varint_get(&p, end, &t0) ||
		    sbt_varint_get(&p, end, &t1) || sbt_varint_get(&p, end, &raw) ||
		    sbt_varint_get(&p, end, &stored))
			goto out_fallback;
		if (d > index_off || prev + d < data_start || (i && d == 0) || type > 0xffff ||
		    count > UINT32_MAX || raw > SBT_FMT_MAX_RAW || stored > UINT32_MAX ||
		    span > UINT64_MAX - first ||
		    prev + d + SBT_FMT_CHUNK_HDR_SIZE + stored > index_off)
			goto out_fallback;
		prev += d;
		memset(&e, 0, sizeof(e));
		e.type = (uint32_t)type;
		e.raw_size = (uint32_t)raw;
		e.stored_size = (uint32_t)stored;
		e.record_count = (uint32_t)count;
		e.first_seq = first;
		e.t_first = t0;
		e.t_last = t1;
		if (sbt_r_add_chunk(r, prev, &e) != 0)
			goto out_nomem;
		r->chunks[r->nchunks - 1].last_seq = first + span;
		if (type == SBT_CHUNK_RECORDS) {
			/* RECORDS chunks hold disjoint ascending seq ranges. */
			if ((have_rec && rec_last >= first) || !count)
				goto out_fallback;
			have_rec = 1;
			rec_last = first + span;
			total += count;
		}
	}
	if (total != trailer_records) {
		why = "index and trailer disagree on the record count";
		goto out_fallback;
	}
	if (sbt_varint_get(&p, end, &n) || n > (uint64_t)(end - p) / 2)
		goto out_fallback;
	for (i = 0; i < n; i++) {
		uint64_t frame, seq;
		if (sbt_varint_get(&p, end, &frame) || sbt_varint_get(&p, end, &seq))
			goto out_fallback;
		if (sbt_array_reserve((void **)&r->frames, &r->frame_cap, r->nframes + 1,
		                      sizeof(*r->frames)) != 0)
			goto out_nomem;
		r->frames[r->nframes].frame = frame;
		r->frames[r->nframes++].seq = seq;
	}
	if (sbt_varint_get(&p, end, &n) || n > (uint64_t)(end - p))
		goto out_fallback;
	for (i = 0, prev = 0; i < n; i++) {
		uint64_t d;
		if (sbt_varint_get(&p, end, &d) || d > UINT64_MAX - prev)
			goto out_fallback;
		prev += d;
		if (sbt_array_reserve((void **)&r->keyframes, &r->keyframe_cap, r->nkeyframes + 1,
		                      sizeof(*r->keyframes)) != 0)
			goto out_nomem;
		r->keyframes[r->nkeyframes++] = prev;
	}
	for (idx_pos = 0; idx_pos < 2; idx_pos++) {
		int is_page = idx_pos == 1;
		if (sbt_varint_get(&p, end, &n) || n > (uint64_t)(end - p) / 4)
			goto out_fallback;
		for (i = 0; i < n; i++) {
			sbt_r_loc loc;
			uint64_t chunk, off, len;
			memset(&loc, 0, sizeof(loc));
			if (is_page) {
				if (end - p < SBT_FMT_HASH_LEN)
					goto out_fallback;
				loc.key_lo = sbt_fmt_load_u64(p);
				loc.key_hi = sbt_fmt_load_u64(p + 8);
				p += SBT_FMT_HASH_LEN;
			} else if (sbt_varint_get(&p, end, &loc.key_lo)) {
				goto out_fallback;
			}
			if (sbt_varint_get(&p, end, &chunk) || sbt_varint_get(&p, end, &off) ||
			    sbt_varint_get(&p, end, &len))
				goto out_fallback;
			if (chunk >= r->nchunks || r->chunks[chunk].type != SBT_CHUNK_BLOBS ||
			    off >= r->chunks[chunk].raw_size)
				goto out_fallback;
			loc.chunk = (uint32_t)chunk;
			loc.offset = (uint32_t)off;
			loc.len = len;
			if (is_page ? sbt_r_loc_add(&r->page_map, &r->pages, &r->npages,
			                            &r->page_cap, &loc)
			            : sbt_r_loc_add(&r->blob_map, &r->manifests, &r->nmanifests,
			                            &r->manifest_cap, &loc))
				goto out_nomem;
		}
	}
	/* Totals (absent from an index that ends early, which is allowed). */
	if (p < end) {
		uint64_t recs, strs, stacks, logical, unique;
		if (sbt_varint_get(&p, end, &recs) || sbt_varint_get(&p, end, &strs) ||
		    sbt_varint_get(&p, end, &stacks) || sbt_varint_get(&p, end, &logical) ||
		    sbt_varint_get(&p, end, &unique) || recs != total)
			goto out_fallback;
	}
	/* The index chunk itself is part of the file's chunk list. */
	if (sbt_r_add_chunk(r, index_off, &h) != 0)
		goto out_nomem;
	r->info.has_index = 1;
	return 0;

out_nomem:
	why = "out of memory";
out_fallback:
	sbt_r_note(r, "index unusable (%s); rebuilt by scan", why);
	r->nchunks = 0;
	r->nframes = r->nkeyframes = 0;
	r->npages = r->nmanifests = 0;
	sbt_map_free(&r->page_map);
	sbt_map_free(&r->blob_map);
	return -1;
}

/* ---- open ----------------------------------------------------------------- */

static int sbt_r_frame_cmp(const void *a, const void *b)
{
	const sbt_r_frame *x = a, *y = b;
	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int sbt_r_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* qsort passes no context, so meta keys are resolved to pointers into the
 * arena before sorting. */
typedef struct sbt_r_sortable {
	const char *key;
	uint64_t num;
	size_t order;
	size_t name;
} sbt_r_sortable;

static int sbt_r_sortable_cmp(const void *a, const void *b)
{
	const sbt_r_sortable *x = a, *y = b;
	int c = 0;
	if (x->key && y->key)
		c = strcmp(x->key, y->key);
	else if (x->num != y->num)
		c = x->num < y->num ? -1 : 1;
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts named entries by key and keeps the last definition of each. */
static int sbt_r_finish_named(sbt_reader *r, sbt_r_named *arr, size_t *n, int is_meta)
{
	sbt_r_sortable *s;
	size_t i, out = 0;
	if (*n == 0)
		return 0;
	s = malloc(*n * sizeof(*s));
	if (!s)
		return -1;
	for (i = 0; i < *n; i++) {
		s[i].key = is_meta ? (const char *)r->arena.p + arr[i].key : NULL;
		s[i].num = arr[i].key;
		s[i].order = arr[i].order;
		s[i].name = arr[i].name;
	}
	qsort(s, *n, sizeof(*s), sbt_r_sortable_cmp);
	for (i = 0; i < *n; i++) {
		/* Sorted by key then file order: the last of a run of equal keys
		 * is the definition that wins. */
		if (i + 1 < *n && (is_meta ? strcmp(s[i].key, s[i + 1].key) == 0
		                           : s[i].num == s[i + 1].num))
			continue;
		arr[out].key = s[i].num;
		arr[out].name = s[i].name;
		arr[out].order = s[i].order;
		out++;
	}
	*n = out;
	free(s);
	return 0;
}

static void sbt_r_drop_chunk(sbt_reader *r, size_t i)
{
	memmove(&r->chunks[i], &r->chunks[i + 1], (r->nchunks - i - 1) * sizeof(*r->chunks));
	r->nchunks--;
}

static void sbt_r_fill_info(sbt_reader *r)
{
	sbt_trace_info *in = &r->info;
	size_t i;
	in->file_size = r->size;
	in->chunk_count = r->nchunks;
	in->raw_bytes = in->stored_bytes = 0;
	in->record_count = 0;
	in->blob_bytes_stored = 0;
	for (i = 0; i < r->nchunks; i++) {
		const sbt_r_chunk *c = &r->chunks[i];
		in->raw_bytes += c->raw_size;
		in->stored_bytes += c->stored_size;
		if (c->type == SBT_CHUNK_BLOBS)
			in->blob_bytes_stored += c->stored_size;
		if (c->type != SBT_CHUNK_RECORDS)
			continue;
		if (!in->record_count) {
			in->first_seq = c->first_seq;
			in->first_time_ns = c->t_first;
			in->last_time_ns = c->t_last;
		}
		in->record_count += c->record_count;
		in->last_seq = c->last_seq;
		if (c->t_last > in->last_time_ns)
			in->last_time_ns = c->t_last;
	}
	in->frame_count = r->nframes;
	in->keyframe_count = r->nkeyframes;
	in->blob_count = r->nmanifests;
	in->blob_bytes_logical = 0;
	for (i = 0; i < r->nmanifests; i++)
		in->blob_bytes_logical += r->manifests[i].len;
	in->blob_bytes_unique = 0;
	for (i = 0; i < r->npages; i++)
		in->blob_bytes_unique += r->pages[i].len;
	in->stack_count = r->nstacks;
	in->string_count = r->nstrings;
}

/* How a GFXReconstruct capture starts (its FileHeader's fourcc). */
#define SBT_R_GFXR_MAGIC "GFXR"
#define SBT_R_GFXR_MAGIC_LEN 4

/* Everything after the bytes are reachable: header, chunk list, tables. */
static sbt_status sbt_r_open_body(sbt_reader *r)
{
	uint8_t fh[SBT_FMT_FILE_HDR_MAX];
	uint32_t hs;
	uint64_t req;
	size_t i;
	sbt_status st;

	if (r->size == 0) {
		sbt_r_msg(r, "empty file (0 bytes), not an SBT trace");
		return SBT_ERR_NOT_SBT;
	}
	/* GFXReconstruct's file header starts with the four characters "GFXR"
	 * (its fourcc), then its major and minor format version. */
	if (r->size >= SBT_R_GFXR_MAGIC_LEN && sbt_r_read(r, 0, fh, SBT_R_GFXR_MAGIC_LEN) == 0 &&
	    memcmp(fh, SBT_R_GFXR_MAGIC, SBT_R_GFXR_MAGIC_LEN) == 0) {
		sbt_r_msg(r, "a GFXReconstruct capture, not an SBT trace: replay it with "
		             "gfxrecon-replay");
		return SBT_ERR_NOT_SBT;
	}
	if (r->size < SBT_FMT_MAGIC_LEN) {
		if (sbt_r_read(r, 0, fh, (size_t)r->size) == 0 &&
		    memcmp(fh, SBT_FMT_MAGIC, (size_t)r->size) == 0) {
			sbt_r_msg(r, "file header truncated: file is %llu bytes",
			          (unsigned long long)r->size);
			return SBT_ERR_TRUNCATED;
		}
		sbt_r_msg(r, "not an SBT trace: file is %llu bytes, shorter than the magic",
		          (unsigned long long)r->size);
		return SBT_ERR_NOT_SBT;
	}
	if (sbt_r_read(r, 0, fh, SBT_FMT_MAGIC_LEN) != 0)
		return SBT_ERR_IO;
	if (memcmp(fh, SBT_FMT_MAGIC, SBT_FMT_MAGIC_LEN) != 0) {
		sbt_r_msg(r, "not an SBT trace: bad magic at offset 0");
		return SBT_ERR_NOT_SBT;
	}
	if (r->size < SBT_FMT_FH_MAJOR) {
		sbt_r_msg(r, "file header truncated: file is %llu bytes",
		          (unsigned long long)r->size);
		return SBT_ERR_TRUNCATED;
	}
	if (sbt_r_read(r, 0, fh, SBT_FMT_FH_MAJOR) != 0)
		return SBT_ERR_IO;
	hs = sbt_fmt_load_u32(fh + SBT_FMT_FH_SIZE);
	if (hs < SBT_FMT_FILE_HDR_SIZE || hs > SBT_FMT_FILE_HDR_MAX || (hs & 3)) {
		sbt_r_msg(r, "corrupt file header at offset 0: impossible header size %u", hs);
		return SBT_ERR_CORRUPT;
	}
	if (r->size < hs) {
		sbt_r_msg(r, "file header truncated: file is %llu bytes, header is %u",
		          (unsigned long long)r->size, hs);
		return SBT_ERR_TRUNCATED;
	}
	if (sbt_r_read(r, 0, fh, hs) != 0)
		return SBT_ERR_IO;
	if (sbt_fmt_load_u32(fh + hs - 4) != sbt_fmt_hash32(fh, hs - 4)) {
		sbt_r_msg(r, "corrupt file header at offset 0: header checksum mismatch");
		return SBT_ERR_CORRUPT;
	}
	r->info.header.version_major = sbt_fmt_load_u16(fh + SBT_FMT_FH_MAJOR);
	r->info.header.version_minor = sbt_fmt_load_u16(fh + SBT_FMT_FH_MINOR);
	req = sbt_fmt_load_u64(fh + SBT_FMT_FH_REQUIRED);
	r->info.header.features = req | sbt_fmt_load_u64(fh + SBT_FMT_FH_OPTIONAL);
	memcpy(r->info.header.trace_id, fh + SBT_FMT_FH_TRACE_ID, 16);
	r->info.header.start_mono_ns = sbt_fmt_load_u64(fh + SBT_FMT_FH_START_MONO);
	r->info.header.start_wall_ns = sbt_fmt_load_u64(fh + SBT_FMT_FH_START_WALL);
	if (r->info.header.version_major != SBT_VERSION_MAJOR) {
		sbt_r_msg(r, "unsupported SBT version %u.%u (this reader reads %u.x)",
		          r->info.header.version_major, r->info.header.version_minor,
		          SBT_VERSION_MAJOR);
		return SBT_ERR_VERSION;
	}
	if (req & ~SBT_FMT_KNOWN_REQUIRED_FEATURES) {
		sbt_r_msg(r, "unsupported required feature bits 0x%llx",
		          (unsigned long long)(req & ~SBT_FMT_KNOWN_REQUIRED_FEATURES));
		return SBT_ERR_VERSION;
	}

	r->trailer_index = UINT64_MAX;
	if (r->size >= (uint64_t)hs + SBT_FMT_TRAILER_SIZE) {
		uint8_t tb[SBT_FMT_TRAILER_SIZE];
		uint64_t io, nrec;
		if (sbt_r_read(r, r->size - SBT_FMT_TRAILER_SIZE, tb, sizeof(tb)) == 0 &&
		    sbt_fmt_trailer_decode(tb, &io, &nrec) == 0)
			r->trailer_index = io;
	}
	if (r->opt.ignore_index || sbt_r_try_index(r, hs) != 0) {
		st = sbt_r_scan(r, hs);
		if (st != SBT_OK)
			return st;
	}

	/* Decode what open needs.  Damage ends the usable file (or, salvaging,
	 * drops the chunk). */
	for (i = 0; i < r->nchunks; i++) {
		char saved[SBT_R_MSG_MAX];
		memcpy(saved, r->msg, sizeof(saved));
		st = sbt_r_take_chunk(r, i);
		if (st == SBT_OK)
			continue;
		if (st == SBT_ERR_NOMEM || st == SBT_ERR_IO)
			return st;
		{
			char what[SBT_R_MSG_MAX];
			memcpy(what, r->msg, sizeof(what));
			memcpy(r->msg, saved, sizeof(saved));
			if (r->opt.salvage) {
				sbt_r_note(r, "%s; chunk skipped", what);
				sbt_r_drop_chunk(r, i);
				i--;
				continue;
			}
			sbt_r_note(r, "%s", what);
			r->nchunks = i;
			r->pending = st;
			break;
		}
	}

	if (r->nframes > 1)
		qsort(r->frames, r->nframes, sizeof(*r->frames), sbt_r_frame_cmp);
	if (r->nkeyframes > 1)
		qsort(r->keyframes, r->nkeyframes, sizeof(*r->keyframes), sbt_r_u64_cmp);
	if (sbt_r_finish_named(r, r->types, &r->ntypes, 0) != 0 ||
	    sbt_r_finish_named(r, r->meta, &r->nmeta, 1) != 0)
		return SBT_ERR_NOMEM;
	for (i = 0; i < r->nchunks; i++) {
		if (r->chunks[i].type != SBT_CHUNK_RECORDS || !r->chunks[i].record_count)
			continue;
		if (sbt_array_reserve((void **)&r->recs, &r->rec_cap, r->nrecs + 1,
		                      sizeof(*r->recs)) != 0)
			return SBT_ERR_NOMEM;
		r->recs[r->nrecs++] = i;
	}
	sbt_r_fill_info(r);
	return r->pending;
}

static sbt_reader *sbt_r_new(const sbt_reader_options *opt)
{
	sbt_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->fd = -1;
	if (opt)
		r->opt = *opt;
	r->cache[0].chunk = r->cache[1].chunk = SBT_R_NONE;
	return r;
}

sbt_status sbt_reader_open_mem(const void *data, size_t len, const sbt_reader_options *opt,
                               sbt_reader **out)
{
	sbt_reader *r;
	if (!out || (!data && len))
		return SBT_ERR_ARG;
	*out = NULL;
	r = sbt_r_new(opt);
	if (!r)
		return SBT_ERR_NOMEM;
	r->mem = len ? data : (const uint8_t *)"";
	r->size = len;
	*out = r;
	return sbt_r_open_body(r);
}

sbt_status sbt_reader_open(const char *path, const sbt_reader_options *opt, sbt_reader **out)
{
	sbt_reader *r;
	struct stat stb;
	sbt_status st;
	if (!path || !out)
		return SBT_ERR_ARG;
	*out = NULL;
	r = sbt_r_new(opt);
	if (!r)
		return SBT_ERR_NOMEM;
	/* A trace is a regular file.  Anything else is refused before it is
	 * opened: open() of a FIFO with no writer blocks forever, and opening
	 * a device may act on it (a tape rewinds).  O_NONBLOCK keeps a FIFO
	 * swapped in after the stat from blocking; fstat then refuses it. */
	if (stat(path, &stb) != 0 || !S_ISREG(stb.st_mode)) {
		st = SBT_ERR_IO;
		goto out_free_reader;
	}
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0) {
		st = SBT_ERR_IO;
		goto out_free_reader;
	}
	if (fstat(r->fd, &stb) != 0 || !S_ISREG(stb.st_mode)) {
		st = SBT_ERR_IO;
		goto out_close_fd;
	}
	r->size = (uint64_t)stb.st_size;
	*out = r;
	st = sbt_r_open_body(r);
	if (st == SBT_ERR_NOMEM || st == SBT_ERR_IO) {
		*out = NULL;
		goto out_close_fd;
	}
	return st;

out_close_fd:
	close(r->fd);
	r->fd = -1;
out_free_reader:
	sbt_reader_close(r);
	return st;
}

void sbt_reader_close(sbt_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->chunks);
	free(r->recs);
	sbt_buf_free(&r->arena);
	free(r->strings);
	free(r->frames_buf);
	free(r->stacks);
	free(r->types);
	free(r->meta);
	free(r->frames);
	free(r->keyframes);
	sbt_map_free(&r->page_map);
	free(r->pages);
	sbt_map_free(&r->blob_map);
	free(r->manifests);
	sbt_buf_free(&r->io);
	sbt_buf_free(&r->cur);
	sbt_buf_free(&r->cache[0].buf);
	sbt_buf_free(&r->cache[1].buf);
	free(r);
}

const char *sbt_reader_message(const sbt_reader *r)
{
	return r ? r->msg : "";
}

void sbt_reader_get_info(const sbt_reader *r, sbt_trace_info *out)
{
	if (r && out)
		*out = r->info;
}

/* ---- iteration -------------------------------------------------------- */

sbt_status sbt_reader_next(sbt_reader *r, sbt_record *out)
{
	if (!r || !out)
		return SBT_ERR_ARG;
	for (;;) {
		const sbt_r_chunk *c;
		if (r->it_err != SBT_OK)
			return r->it_err;
		if (!r->it_loaded) {
			sbt_status st;
			if (r->it_rec >= r->nrecs) {
				if (r->pending != SBT_OK)
					r->it_err = r->pending;
				return r->pending != SBT_OK ? r->pending : SBT_END;
			}
			c = &r->chunks[r->recs[r->it_rec]];
			st = sbt_r_load(r, r->recs[r->it_rec], &r->cur);
			if (st != SBT_OK) {
				if (r->opt.salvage && st != SBT_ERR_NOMEM) {
					sbt_r_note(r, "chunk skipped");
					r->it_rec++;
					continue;
				}
				r->it_err = st;
				return st;
			}
			r->it_p = r->cur.p;
			r->it_end = r->cur.p + r->cur.len;
			r->it_left = c->record_count;
			r->it_prev_seq = c->first_seq;
			r->it_t_first = c->t_first;
			r->it_first = 1;
			r->it_loaded = 1;
		}
		c = &r->chunks[r->recs[r->it_rec]];
		if (!r->it_left) {
			r->it_loaded = 0;
			r->it_rec++;
			continue;
		}
		if (sbt_r_rec_decode(&r->it_p, r->it_end, r->it_prev_seq, r->it_first,
		                     r->it_t_first, out) != 0) {
			sbt_r_msg(r, "corrupt chunk at offset %llu: record %u is malformed",
			          (unsigned long long)c->offset, c->record_count - r->it_left);
			if (r->opt.salvage) {
				sbt_r_note(r, "rest of the chunk skipped");
				r->it_loaded = 0;
				r->it_rec++;
				continue;
			}
			r->it_err = SBT_ERR_CORRUPT;
			return SBT_ERR_CORRUPT;
		}
		r->it_first = 0;
		r->it_prev_seq = out->seq;
		r->it_left--;
		if (out->seq >= r->it_min_seq)
			return SBT_OK;
	}
}

sbt_status sbt_reader_seek_seq(sbt_reader *r, uint64_t seq)
{
	size_t lo = 0, hi;
	if (!r)
		return SBT_ERR_ARG;
	/* Last RECORDS chunk whose first seq is <= seq. */
	hi = r->nrecs;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->chunks[r->recs[mid]].first_seq <= seq)
			lo = mid;
		else
			hi = mid;
	}
	r->it_rec = lo;
	r->it_loaded = 0;
	r->it_min_seq = seq;
	r->it_err = SBT_OK;
	return SBT_OK;
}

static size_t sbt_r_frame_find(const sbt_reader *r, uint64_t frame)
{
	size_t lo = 0, hi = r->nframes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->frames[mid].frame < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nframes && r->frames[lo].frame == frame ? lo : SBT_R_NONE;
}

sbt_status sbt_reader_frame_seq(sbt_reader *r, uint64_t frame, uint64_t *seq_out)
{
	size_t i;
	if (!r || !seq_out)
		return SBT_ERR_ARG;
	i = sbt_r_frame_find(r, frame);
	if (i == SBT_R_NONE)
		return SBT_ERR_NOT_FOUND;
	*seq_out = r->frames[i].seq;
	return SBT_OK;
}

sbt_status sbt_reader_seek_frame(sbt_reader *r, uint64_t frame)
{
	uint64_t seq;
	sbt_status st;
	if (!r || frame == 0)
		return SBT_ERR_ARG;
	if (frame == 1)
		return sbt_reader_seek_seq(r, 0);
	st = sbt_reader_frame_seq(r, frame - 1, &seq);
	if (st != SBT_OK)
		return st;
	if (seq == UINT64_MAX)
		return SBT_ERR_NOT_FOUND;
	return sbt_reader_seek_seq(r, seq + 1);
}

sbt_status sbt_reader_keyframes(sbt_reader *r, const uint64_t **seqs_out, size_t *count_out)
{
	if (!r || !seqs_out || !count_out)
		return SBT_ERR_ARG;
	*seqs_out = r->keyframes;
	*count_out = r->nkeyframes;
	return SBT_OK;
}

/* ---- tables ----------------------------------------------------------- */

const char *sbt_reader_type_name(const sbt_reader *r, uint32_t type)
{
	size_t lo = 0, hi;
	if (!r)
		return "";
	hi = r->ntypes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->types[mid].key < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->ntypes && r->types[lo].key == type)
		return (const char *)r->arena.p + r->types[lo].name;
	return "";
}

sbt_status sbt_reader_type_at(const sbt_reader *r, size_t i, uint32_t *type_out,
                              const char **name_out)
{
	if (!r || !type_out || !name_out)
		return SBT_ERR_ARG;
	if (i >= r->ntypes)
		return SBT_END;
	*type_out = (uint32_t)r->types[i].key;
	*name_out = (const char *)r->arena.p + r->types[i].name;
	return SBT_OK;
}

const char *sbt_reader_string(const sbt_reader *r, uint32_t id)
{
	if (!r || id == 0 || id > r->nstrings || r->strings[id - 1] == SBT_R_NONE)
		return NULL;
	return (const char *)r->arena.p + r->strings[id - 1];
}

sbt_status sbt_reader_stack(const sbt_reader *r, uint32_t id, const sbt_frame **frames_out,
                            uint32_t *nframes_out)
{
	if (!r || !frames_out || !nframes_out)
		return SBT_ERR_ARG;
	if (id == 0 || id > r->nstacks)
		return SBT_ERR_NOT_FOUND;
	*frames_out = r->frames_buf ? r->frames_buf + r->stacks[id - 1].first : NULL;
	*nframes_out = r->stacks[id - 1].n;
	return SBT_OK;
}

const char *sbt_reader_meta(const sbt_reader *r, const char *key)
{
	size_t lo = 0, hi;
	if (!r || !key)
		return NULL;
	hi = r->nmeta;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp((const char *)r->arena.p + r->meta[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nmeta && strcmp((const char *)r->arena.p + r->meta[lo].key, key) == 0)
		return (const char *)r->arena.p + r->meta[lo].name;
	return NULL;
}

sbt_status sbt_reader_meta_at(const sbt_reader *r, size_t i, const char **key_out,
                              const char **value_out)
{
	if (!r || !key_out || !value_out)
		return SBT_ERR_ARG;
	if (i >= r->nmeta)
		return SBT_END;
	*key_out = (const char *)r->arena.p + r->meta[i].key;
	*value_out = (const char *)r->arena.p + r->meta[i].name;
	return SBT_OK;
}

/* ---- blobs ------------------------------------------------------------ */

/* Decoded payload of chunk ci from the two-slot cache. */
static sbt_status sbt_r_cached(sbt_reader *r, size_t ci, const sbt_buf **out)
{
	sbt_r_cache *slot;
	sbt_status st;
	int k;
	for (k = 0; k < 2; k++) {
		if (r->cache[k].chunk == ci) {
			r->cache[k].used = ++r->cache_clock;
			*out = &r->cache[k].buf;
			return SBT_OK;
		}
	}
	slot = r->cache[0].used <= r->cache[1].used ? &r->cache[0] : &r->cache[1];
	slot->chunk = SBT_R_NONE;
	st = sbt_r_load(r, ci, &slot->buf);
	if (st != SBT_OK)
		return st;
	slot->chunk = ci;
	slot->used = ++r->cache_clock;
	*out = &slot->buf;
	return SBT_OK;
}

static const sbt_r_loc *sbt_r_find_loc(const sbt_map *map, const sbt_r_loc *arr,
                                       uint64_t lo, uint64_t hi)
{
	size_t cursor;
	uint32_t idx;
	if (!sbt_map_first(map, lo, &cursor, &idx))
		return NULL;
	do {
		if (arr[idx].key_hi == hi)
			return &arr[idx];
	} while (sbt_map_next(map, lo, &cursor, &idx));
	return NULL;
}

sbt_status sbt_reader_blob_size(sbt_reader *r, uint64_t blob_id, size_t *len_out)
{
	const sbt_r_loc *m;
	if (!r || !len_out)
		return SBT_ERR_ARG;
	m = sbt_r_find_loc(&r->blob_map, r->manifests, blob_id, 0);
	if (!m)
		return SBT_ERR_NOT_FOUND;
	if (m->len > SIZE_MAX)
		return SBT_ERR_CORRUPT;
	*len_out = (size_t)m->len;
	return SBT_OK;
}

sbt_status sbt_reader_blob_get(sbt_reader *r, uint64_t blob_id, void **data_out,
                               size_t *len_out)
{
	const sbt_r_loc *m;
	const sbt_buf *cb;
	const uint8_t *body, *bend, *hashes;
	uint64_t id, len, npages, i, sum = 0;
	uint32_t *page_idx = NULL;
	uint8_t *data = NULL;
	unsigned kind;
	sbt_status st;

	if (!r || !data_out || !len_out)
		return SBT_ERR_ARG;
	m = sbt_r_find_loc(&r->blob_map, r->manifests, blob_id, 0);
	if (!m)
		return SBT_ERR_NOT_FOUND;
	st = sbt_r_cached(r, m->chunk, &cb);
	if (st != SBT_OK)
		return st;
	if (sbt_r_blob_entry(cb->p, cb->len, m->offset, &kind, &body, &bend) != 0 ||
	    kind != SBT_BLOB_MANIFEST ||
	    sbt_r_manifest(body, bend, &id, &len, &npages, &hashes) != 0 || id != blob_id) {
		sbt_r_msg(r, "corrupt chunk at offset %llu: blob %llu manifest not where the "
		             "index says",
		          (unsigned long long)r->chunks[m->chunk].offset,
		          (unsigned long long)blob_id);
		return SBT_ERR_CORRUPT;
	}
	if (len > SIZE_MAX / 2 || len > (r->size + 1) * SBT_R_BLOB_RATIO) {
		sbt_r_msg(r, "blob %llu: length %llu is impossible for a %llu-byte file",
		          (unsigned long long)blob_id, (unsigned long long)len,
		          (unsigned long long)r->size);
		return SBT_ERR_CORRUPT;
	}
	if (npages) {
		page_idx = malloc(npages * sizeof(*page_idx));
		if (!page_idx)
			return SBT_ERR_NOMEM;
	}
	/* Resolve every page and check the lengths add up before allocating. */
	for (i = 0; i < npages; i++) {
		const uint8_t *hp = hashes + i * SBT_FMT_HASH_LEN;
		const sbt_r_loc *pg = sbt_r_find_loc(&r->page_map, r->pages, sbt_fmt_load_u64(hp),
		                                     sbt_fmt_load_u64(hp + 8));
		if (!pg) {
			sbt_r_msg(r, "blob %llu: page %llu of %llu is missing",
			          (unsigned long long)blob_id, (unsigned long long)i,
			          (unsigned long long)npages);
			st = SBT_ERR_CORRUPT;
			goto out_free_pages;
		}
		page_idx[i] = (uint32_t)(pg - r->pages);
		sum += pg->len;
		if (sum > len)
			break;
	}
	if (sum != len) {
		sbt_r_msg(r, "blob %llu: pages add up to %s bytes, manifest says %llu",
		          (unsigned long long)blob_id, sum > len ? "more than" : "fewer",
		          (unsigned long long)len);
		st = SBT_ERR_CORRUPT;
		goto out_free_pages;
	}
	data = malloc(len ? (size_t)len : 1);
	if (!data) {
		st = SBT_ERR_NOMEM;
		goto out_free_pages;
	}
	for (i = 0, sum = 0; i < npages; i++) {
		const sbt_r_loc *pg = &r->pages[page_idx[i]];
		st = sbt_r_cached(r, pg->chunk, &cb);
		if (st != SBT_OK)
			goto out_free_data;
		if (sbt_r_blob_entry(cb->p, cb->len, pg->offset, &kind, &body, &bend) != 0 ||
		    kind != SBT_BLOB_PAGE ||
		    (uint64_t)(bend - body) != SBT_FMT_HASH_LEN + pg->len ||
		    sbt_fmt_load_u64(body) != pg->key_lo || sbt_fmt_load_u64(body + 8) != pg->key_hi) {
			sbt_r_msg(r, "corrupt chunk at offset %llu: blob page not where the index says",
			          (unsigned long long)r->chunks[pg->chunk].offset);
			st = SBT_ERR_CORRUPT;
			goto out_free_data;
		}
		memcpy(data + sum, body + SBT_FMT_HASH_LEN, (size_t)pg->len);
		sum += pg->len;
	}
	free(page_idx);
	*data_out = data;
	*len_out = (size_t)len;
	return SBT_OK;

out_free_data:
	free(data);
out_free_pages:
	free(page_idx);
	return st;
}

/* ---- chunk walk ------------------------------------------------------- */

sbt_status sbt_reader_chunk_at(sbt_reader *r, size_t i, sbt_chunk_info *out)
{
	sbt_fmt_chunk_hdr h;
	const char *why = "";
	const sbt_r_chunk *c;
	sbt_status st;
	if (!r || !out)
		return SBT_ERR_ARG;
	if (i >= r->nchunks)
		return SBT_END;
	c = &r->chunks[i];
	st = sbt_r_chunk_header(r, i, &h, &why);
	if (st != SBT_OK) {
		sbt_r_msg(r, "corrupt chunk at offset %llu: %s", (unsigned long long)c->offset, why);
		return st;
	}
	out->offset = c->offset;
	out->type = c->type;
	out->codec = h.codec;
	out->raw_size = c->raw_size;
	out->stored_size = c->stored_size;
	out->record_count = c->record_count;
	out->first_seq = c->first_seq;
	out->t_first = c->t_first;
	out->t_last = c->t_last;
	return SBT_OK;
}

sbt_status sbt_reader_verify_chunk(sbt_reader *r, size_t i)
{
	sbt_buf tmp = {0};
	sbt_status st;
	if (!r)
		return SBT_ERR_ARG;
	if (i >= r->nchunks)
		return SBT_END;
	st = sbt_r_load(r, i, &tmp);
	sbt_buf_free(&tmp);
	return st;
}
