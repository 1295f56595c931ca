/*
 * sbt_amd_ccob.c - compressed offload bundles (CCOB; formats: sbt_amd.h):
 * their header read and checked, a version 1 bundle sized from its
 * compressed stream, and the bundle inflated (zlib or zstd, as LLVM's
 * llvm::compression::Format numbers them) into the offload bundle it
 * holds.
 *
 * The bytes are untrusted (a trace's blobs on replay, a fuzz target): the
 * inflated size the header states bounds what is inflated (never more is
 * produced, and a stream that makes fewer or more bytes is refused), the
 * output buffer grows only as the stream fills it, and a header stating
 * more than SBT_AMD_CCOB_RAW_MAX is refused before anything is inflated.
 * The truncated MD5 hash in the header is kept, not checked (no MD5 here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "serializer/amdgpu/sbt_amd.h"
#include "serializer/sbt_format.h"

/* Input is handed to the decompressors this much at a time (zlib's
 * counters are 32-bit; a runtime call's image has no length at all). */
#define SBT_AMD_CCOB_CHUNK ((size_t)1 << 20)
/* The first output buffer; it doubles as the stream fills it. */
#define SBT_AMD_CCOB_FIRST ((size_t)1 << 16)

/*
 * Run the stream of method at src (at most src_max bytes: SIZE_MAX trusts
 * it) until it ends; it must make exactly raw bytes.  *out (when out is not
 * NULL) gets them in a new buffer owned by the caller; without out they are
 * made in a scratch buffer and dropped (sizing).  *used gets the compressed
 * bytes the stream took.
 */
static sbt_amd_status sbt_amd_ccob_run(unsigned method, const uint8_t *src, size_t src_max,
                                       uint64_t raw, uint8_t **out, size_t *used, char *why,
                                       size_t n)
{
	uint8_t *buf = NULL, *grown;
	size_t cap = 0, made = 0, taken = 0;
	uint64_t total = 0; /* bytes made in all (the scratch buffer is reused) */
	sbt_amd_status st = SBT_AMD_OK;
	z_stream zs;
	ZSTD_DStream *zd = NULL;
	int done = 0, zinit = 0;

	if (out)
		*out = NULL;
	*used = 0;
	if (method == SBT_AMD_CCOB_ZLIB) {
		memset(&zs, 0, sizeof(zs));
		if (inflateInit(&zs) != Z_OK) {
			sbt_amd_why(why, n, "zlib could not start");
			return SBT_AMD_ERR_NOMEM;
		}
		zinit = 1;
	} else if (!(zd = ZSTD_createDStream()) || ZSTD_isError(ZSTD_initDStream(zd))) {
		ZSTD_freeDStream(zd);
		sbt_amd_why(why, n, "zstd could not start");
		return SBT_AMD_ERR_NOMEM;
	}
	while (!done) {
		size_t in_len = src_max - taken < SBT_AMD_CCOB_CHUNK ? src_max - taken : SBT_AMD_CCOB_CHUNK;
		size_t room, got_in, got_out;
		if (made == cap) {
			if (out) {
				/* grows to at most raw + 1: the byte past raw catches a
				 * stream that makes too many */
				size_t want = cap ? cap * 2 : SBT_AMD_CCOB_FIRST;
				if (want > raw + 1)
					want = (size_t)raw + 1;
				if (!(grown = realloc(buf, want))) {
					st = SBT_AMD_ERR_NOMEM;
					sbt_amd_why(why, n, "out of memory inflating %llu bytes",
					                 (unsigned long long)raw);
					goto out_end;
				}
				buf = grown;
				cap = want;
			} else {
				if (!buf && !(buf = malloc(SBT_AMD_CCOB_FIRST))) {
					st = SBT_AMD_ERR_NOMEM;
					sbt_amd_why(why, n, "out of memory");
					goto out_end;
				}
				cap = SBT_AMD_CCOB_FIRST;
				made = 0;
			}
		}
		room = cap - made;
		if (method == SBT_AMD_CCOB_ZLIB) {
			int zr;
			zs.next_in = (Bytef *)(uintptr_t)(src + taken);
			zs.avail_in = (uInt)in_len;
			zs.next_out = buf + made;
			zs.avail_out = (uInt)room;
			zr = inflate(&zs, Z_NO_FLUSH);
			got_in = in_len - zs.avail_in;
			got_out = room - zs.avail_out;
			done = zr == Z_STREAM_END;
			if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
				st = zr == Z_MEM_ERROR ? SBT_AMD_ERR_NOMEM : SBT_AMD_ERR_CORRUPT;
				sbt_amd_why(why, n, "its zlib stream is damaged near byte %zu (%s)",
				                 taken + got_in, zs.msg ? zs.msg : "no message");
				goto out_end;
			}
		} else {
			ZSTD_inBuffer ib = {src + taken, in_len, 0};
			ZSTD_outBuffer ob = {buf + made, room, 0};
			size_t zr = ZSTD_decompressStream(zd, &ob, &ib);
			got_in = ib.pos;
			got_out = ob.pos;
			if (ZSTD_isError(zr)) {
				st = SBT_AMD_ERR_CORRUPT;
				sbt_amd_why(why, n, "its zstd frame is damaged near byte %zu (%s)",
				                 taken + got_in, ZSTD_getErrorName(zr));
				goto out_end;
			}
			done = zr == 0;
		}
		taken += got_in;
		made += got_out;
		total += got_out;
		if (total > raw) {
			st = SBT_AMD_ERR_CORRUPT;
			sbt_amd_why(why, n, "it inflates past the %llu bytes its header states",
			                 (unsigned long long)raw);
			goto out_end;
		}
		if (!done && !got_in && !got_out && made < cap) {
			/* no progress with room to make more: the input is spent */
			st = taken == src_max ? SBT_AMD_ERR_TRUNCATED : SBT_AMD_ERR_CORRUPT;
			sbt_amd_why(why, n, "its compressed stream ends after %zu bytes, unfinished",
			                 taken);
			goto out_end;
		}
	}
	if (total != raw) {
		st = SBT_AMD_ERR_CORRUPT;
		sbt_amd_why(why, n, "it inflates to %llu bytes where its header states %llu",
		                 (unsigned long long)total, (unsigned long long)raw);
		goto out_end;
	}
	*used = taken;
	if (out) {
		*out = buf;
		buf = NULL;
	}
out_end:
	free(buf);
	if (zinit)
		inflateEnd(&zs);
	ZSTD_freeDStream(zd);
	return st;
}

sbt_amd_status sbt_amd_ccob_header(const void *image, size_t max, sbt_amd_ccob *out, char *why,
                                   size_t n)
{
	const uint8_t *p = image;
	sbt_amd_ccob h;
	size_t used = 0;
	sbt_amd_status st;

	memset(&h, 0, sizeof(h));
	if (out)
		memset(out, 0, sizeof(*out));
	if (!p || max < 8 || memcmp(p, SBT_AMD_CCOB_MAGIC, 4) != 0) {
		sbt_amd_why(why, n, "%s", !p || max < 8 ? "shorter than a compressed bundle's header"
		                                              : "no CCOB magic");
		return !p || max < 8 ? SBT_AMD_ERR_TRUNCATED : SBT_AMD_ERR_UNKNOWN;
	}
	h.version = sbt_fmt_load_u16(p + 4);
	h.method = sbt_fmt_load_u16(p + 6);
	switch (h.version) {
	case 1:
		h.head = 20;
		break;
	case 2:
		h.head = 24;
		break;
	case 3:
		h.head = 32;
		break;
	default:
		sbt_amd_why(why, n, "compressed bundle version %u (this reader knows 1 to 3)",
		                 h.version);
		return SBT_AMD_ERR_UNSUPPORTED;
	}
	if (max < h.head) {
		sbt_amd_why(why, n, "%zu bytes: shorter than its version %u header (%llu)", max,
		                 h.version, (unsigned long long)h.head);
		return SBT_AMD_ERR_TRUNCATED;
	}
	if (h.version == 1) {
		h.raw = sbt_fmt_load_u32(p + 8);
		h.hash = sbt_fmt_load_u64(p + 12);
	} else if (h.version == 2) {
		h.total = sbt_fmt_load_u32(p + 8);
		h.raw = sbt_fmt_load_u32(p + 12);
		h.hash = sbt_fmt_load_u64(p + 16);
	} else {
		h.total = sbt_fmt_load_u64(p + 8);
		h.raw = sbt_fmt_load_u64(p + 16);
		h.hash = sbt_fmt_load_u64(p + 24);
	}
	if (h.method != SBT_AMD_CCOB_ZLIB && h.method != SBT_AMD_CCOB_ZSTD) {
		sbt_amd_why(why, n, "compression method %u (zlib is 0, zstd 1)", h.method);
		return SBT_AMD_ERR_UNSUPPORTED;
	}
	if (h.raw > SBT_AMD_CCOB_RAW_MAX) {
		sbt_amd_why(why, n, "its header states %llu inflated bytes, more than this reader "
		                 "takes (%llu)", (unsigned long long)h.raw,
		                 (unsigned long long)SBT_AMD_CCOB_RAW_MAX);
		return SBT_AMD_ERR_UNSUPPORTED;
	}
	if (h.version > 1) {
		if (h.total < h.head) {
			sbt_amd_why(why, n, "its total size %llu is less than its header",
			                 (unsigned long long)h.total);
			return SBT_AMD_ERR_CORRUPT;
		}
		if (h.total > max) {
			sbt_amd_why(why, n, "its header states %llu bytes, %zu are given",
			                 (unsigned long long)h.total, max);
			return SBT_AMD_ERR_TRUNCATED;
		}
	} else if (h.method == SBT_AMD_CCOB_ZSTD) {
		/* one zstd frame (LLVM compresses the bundle in one): its size is
		 * in its own block headers */
		size_t f = ZSTD_findFrameCompressedSize(p + h.head, max - (size_t)h.head);
		if (ZSTD_isError(f)) {
			sbt_amd_why(why, n, "version 1 with no total size, and its zstd frame cannot be "
			                 "sized (%s)", ZSTD_getErrorName(f));
			return ZSTD_getErrorCode(f) == ZSTD_error_srcSize_wrong ? SBT_AMD_ERR_TRUNCATED
			                                              : SBT_AMD_ERR_CORRUPT;
		}
		h.total = h.head + f;
	} else {
		/* a zlib stream ends itself: run it (output dropped) to find where */
		st = sbt_amd_ccob_run(h.method, p + h.head, max - (size_t)h.head, h.raw, NULL, &used,
		                      why, n);
		if (st != SBT_AMD_OK)
			return st;
		h.total = h.head + used;
	}
	if (out)
		*out = h;
	return SBT_AMD_OK;
}

sbt_amd_status sbt_amd_ccob_inflate(const void *image, size_t len, uint8_t **out, size_t *out_len,
                                    char *why, size_t n)
{
	sbt_amd_ccob h;
	size_t used = 0;
	uint8_t *buf = NULL;
	sbt_amd_status st;

	*out = NULL;
	*out_len = 0;
	if ((st = sbt_amd_ccob_header(image, len, &h, why, n)) != SBT_AMD_OK)
		return st;
	st = sbt_amd_ccob_run(h.method, (const uint8_t *)image + h.head, (size_t)(h.total - h.head),
	                      h.raw, &buf, &used, why, n);
	if (st != SBT_AMD_OK)
		return st;
	if (used != h.total - h.head) {
		free(buf);
		sbt_amd_why(why, n, "its compressed stream ends after %zu of the %llu bytes its "
		                 "header gives it", used, (unsigned long long)(h.total - h.head));
		return SBT_AMD_ERR_CORRUPT;
	}
	*out = buf;
	*out_len = (size_t)h.raw;
	return SBT_AMD_OK;
}
