/*
 * vk_tracetool - what the Vulkan capture tests need to look inside a trace
 * without the Vulkan codec: blobs, host memory writes, checkpoints, a byte
 * search, and a copy with one blob byte changed on purpose; and, through
 * the codec (sampleloc only), a copy with one record rewritten into calls
 * of an extension the test's device lacks.
 *
 *   vk_tracetool blobs TRACE
 *       "blobs N of M bytes B largest L": the blobs found (see below), the
 *       count the trace declares, their total and largest length.
 *   vk_tracetool memwrites TRACE
 *       one line per vulkan.tsMemoryWrite record and per run of a
 *       vulkan.tsMemoryWrites record (its lines share seq and blob):
 *       "memwrite seq S memory 0xH offset O size N blob B"
 *   vk_tracetool checkpoints TRACE
 *       one line per checkpoint record:
 *       "checkpoint seq S call C object 0xH offset O length N block K"
 *   vk_tracetool find TRACE PATTERN [--window W]
 *       looks for the bytes of file PATTERN in every blob and every record
 *       payload: windows of W bytes (default 32) taken every W bytes of the
 *       pattern, found at any byte offset, so any run of 2W-1 pattern bytes
 *       present in the trace is found.  Windows of one repeated 32-bit word
 *       (a solid colour, zeros) are skipped.  Prints "hit ..." lines (the
 *       first 10) and "windows N hits H".
 *   vk_tracetool poke IN OUT (--pattern FILE [--at P] | --blob ID --byte K)
 *                           [--xor M]
 *       copies IN to OUT through sbt_reader/sbt_writer, changing one byte
 *       of one blob (XOR M, default 0x01).  --pattern: the first
 *       memory write (a tsMemoryWrite, or a run of a tsMemoryWrites) whose
 *       bytes hold the W=32 bytes of FILE from offset P
 *       (default 0, rounded down to a multiple of 32); the byte changed is
 *       the one at offset P of FILE.  Prints
 *       "poked blob B byte K seq S memory 0xH memory_offset O" (seq, memory,
 *       memory_offset of the tsMemoryWrite, when there is one).
 *   vk_tracetool poke IN OUT --checkpoint SEQ [--xor M]
 *       the same copy with checkpoint record SEQ's hash and the hash of its
 *       middle block XORed with M: a capture that saw other bytes there.
 *       Prints "poked checkpoint seq S call C object 0xH block K".
 *   vk_tracetool poke IN OUT --record SEQ --find HEX [--xor M]
 *       the same copy with the first byte of the first match of the bytes
 *       HEX in record SEQ's payload XORed with M: a call made with other
 *       arguments.  Prints "poked record seq S payload byte K".
 *   vk_tracetool copy IN OUT
 *       the same copy with nothing changed (tests the copier).
 *   vk_tracetool blob TRACE ID OUT
 *       writes the bytes of blob ID to file OUT.
 *   vk_tracetool sampleloc IN OUT --record SEQ (--enable B | --locations N |
 *                          [--dynamic FROM:TO] [--static-enable])
 *       the same copy with record SEQ rewritten through the Vulkan codec,
 *       to make calls of VK_EXT_sample_locations on a device without it:
 *       --enable B: SEQ (a vkCmd* on a command buffer) becomes
 *       vkCmdSetSampleLocationsEnableEXT(its command buffer, B); --locations
 *       N: it becomes vkCmdSetSampleLocationsEXT(its command buffer, N
 *       samples per pixel, a 1x1 grid, N locations); --dynamic and
 *       --static-enable: SEQ (a vkCreateGraphicsPipelines) has dynamic
 *       state FROM replaced by TO (numbers) in every pipeline that names
 *       it, and a VkPipelineSampleLocationsStateCreateInfoEXT enabling the
 *       sample locations chained to every multisample state.  Prints
 *       "sampleloc record seq S: NAME".
 *   vk_tracetool swapcall IN OUT --record SEQ --as NAME
 *       the same copy with record SEQ rewritten through the Vulkan codec
 *       into a call of a presenting extension lavapipe lacks, on the
 *       capture's swapchain: NAME vkCreateSharedSwapchainsKHR rewrites a
 *       vkCreateSwapchainKHR into it (one create info, the same handle
 *       out); vkWaitForPresentKHR (present id 1, timeout 0),
 *       vkGetRefreshCycleDurationGOOGLE, vkGetPastPresentationTimingGOOGLE
 *       (a count of 0), vkGetSwapchainCounterEXT (VBLANK),
 *       vkSetHdrMetadataEXT, vkSetLocalDimmingAMD or
 *       vkReleaseSwapchainImagesEXT (image 0) rewrite a
 *       vkGetSwapchainImagesKHR (its device and swapchain).  Prints
 *       "swapcall record seq S: NAME".
 *   vk_tracetool synth OUT
 *       writes a small trace for this tool's own test: 4 rounds of a
 *       tsMemoryWrite (memory 0xab00 + round % 2, offset 256 * round, 1024
 *       bytes of blob data, a hash of the byte index and the round),
 *       a "vulkan.vkQueueSubmit" record and a checkpoint of those bytes.
 *
 * Blobs have no id listing in sbt.h, so they are found by probing ids from
 * 1 upwards (the writer hands them out in order) until as many as the trace
 * declares are found; the tool fails, saying so, if some cannot be found.
 *
 * The tsMemoryWrite payload is read as serializer/sbt_vk.h specifies it
 * (varints memory, offset, size, blob_id) without linking the codec, and
 * the tsMemoryWrites one too (varints memory, blob_id, count, then count
 * pairs gap, size).
 * Exit: 0 done, 1 an unreadable, damaged or truncated trace (a torn tail
 * is an error here, unlike in tsinfo) or a failed check, 2 usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "serializer/sbt_vk.h"
#include "tracesmith/sbt.h"

#define VKT_MEMWRITE_NAME "vulkan.tsMemoryWrite"
#define VKT_MEMWRITES_NAME "vulkan.tsMemoryWrites"
#define VKT_MAX_MISSES 65536
#define VKT_MAX_HITS_SHOWN 10

typedef struct vkt_blob {
	uint64_t id;
	size_t len;
} vkt_blob;

/* One write: a tsMemoryWrite, or one run of a tsMemoryWrites, whose bytes
 * are [blob_pos, blob_pos + size) of its blob. */
typedef struct vkt_memwrite {
	uint64_t seq, memory, offset, size, blob_id, blob_pos;
} vkt_memwrite;

static int vkt_usage(void)
{
	fprintf(stderr,
	        "usage: vk_tracetool blobs|memwrites|checkpoints TRACE\n"
	        "       vk_tracetool find TRACE PATTERN [--window W]\n"
	        "       vk_tracetool poke IN OUT (--pattern FILE [--at P] | --blob ID --byte K | "
	        "--checkpoint SEQ | --record SEQ --find HEX) [--xor M]\n"
	        "       vk_tracetool copy IN OUT\n"
	        "       vk_tracetool blob TRACE ID OUT\n"
	        "       vk_tracetool sampleloc IN OUT --record SEQ (--enable B | --locations N | "
	        "[--dynamic FROM:TO] [--static-enable])\n"
	        "       vk_tracetool swapcall IN OUT --record SEQ --as NAME\n"
	        "       vk_tracetool synth OUT\n");
	return 2;
}

static sbt_status vkt_open(const char *path, sbt_reader **r)
{
	sbt_status st = sbt_reader_open(path, NULL, r);
	sbt_trace_info info;

	if (st == SBT_OK) {
		/* A tool that answers "is X in the trace" must not answer about
		 * part of one: a dropped torn tail is an error here. */
		sbt_reader_get_info(*r, &info);
		if (info.truncated)
			st = SBT_ERR_TRUNCATED;
	}
	if (st != SBT_OK) {
		const char *msg = *r ? sbt_reader_message(*r) : "";
		fprintf(stderr, "vk_tracetool: %s: %s%s%s\n", path, sbt_strerror(st),
		        *msg ? ": " : "", msg);
	}
	return st;
}

/* Finds the trace's blobs by probing ids (see the top comment). */
static int vkt_blobs_list(sbt_reader *r, const char *path, vkt_blob **out, size_t *n_out)
{
	sbt_trace_info info;
	vkt_blob *v = NULL;
	size_t n = 0;
	uint64_t id, misses = 0;

	sbt_reader_get_info(r, &info);
	if (info.blob_count) {
		v = calloc((size_t)info.blob_count, sizeof(*v));
		if (!v) {
			fprintf(stderr, "vk_tracetool: out of memory\n");
			return -1;
		}
	}
	for (id = 1; n < info.blob_count && misses < VKT_MAX_MISSES; id++) {
		size_t len;
		if (sbt_reader_blob_size(r, id, &len) == SBT_OK) {
			v[n].id = id;
			v[n].len = len;
			n++;
			misses = 0;
		} else {
			misses++;
		}
	}
	if (n < info.blob_count) {
		fprintf(stderr,
		        "vk_tracetool: %s: found %zu of its %llu blobs probing ids 1..%llu "
		        "(ids not handed out in order?)\n",
		        path, n, (unsigned long long)info.blob_count, (unsigned long long)(id - 1));
		free(v);
		return -1;
	}
	*out = v;
	*n_out = n;
	return 0;
}

static int vkt_get_varints(const uint8_t *p, size_t len, uint64_t *v, int n)
{
	const uint8_t *end = p + len;
	int i;

	for (i = 0; i < n; i++)
		if (sbt_varint_get(&p, end, &v[i]) != 0)
			return -1;
	return 0;
}

/* Appends w to *v (n used of *cap); -1 when out of memory. */
static int vkt_memwrite_add(vkt_memwrite **v, size_t *n, size_t *cap, vkt_memwrite w)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		vkt_memwrite *nv = realloc(*v, c * sizeof(**v));
		if (!nv) {
			fprintf(stderr, "vk_tracetool: out of memory\n");
			return -1;
		}
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = w;
	return 0;
}

/* The runs of a tsMemoryWrites payload, appended; -1 when malformed. */
static int vkt_memwrites_runs(const sbt_record *rec, vkt_memwrite **v, size_t *n, size_t *cap)
{
	const uint8_t *p = rec->payload, *end = p + rec->payload_len;
	uint64_t memory, blob, count, gap, size, pos = 0, blob_pos = 0;
	if (sbt_varint_get(&p, end, &memory) != 0 || sbt_varint_get(&p, end, &blob) != 0 ||
	    sbt_varint_get(&p, end, &count) != 0 || !count)
		return -1;
	for (uint64_t k = 0; k < count; k++) {
		if (sbt_varint_get(&p, end, &gap) != 0 || sbt_varint_get(&p, end, &size) != 0 || !size)
			return -1;
		pos += gap;
		if (vkt_memwrite_add(v, n, cap,
		                     (vkt_memwrite){ rec->seq, memory, pos, size, blob, blob_pos }) != 0)
			return -1;
		pos += size;
		blob_pos += size;
	}
	return p == end ? 0 : -1;
}

/* Every tsMemoryWrite record and every run of a tsMemoryWrites, in seq
 * order. */
static int vkt_memwrites_list(sbt_reader *r, const char *path, vkt_memwrite **out,
                              size_t *n_out)
{
	vkt_memwrite *v = NULL;
	size_t n = 0, cap = 0;
	sbt_record rec;
	sbt_status st;

	if ((st = sbt_reader_seek_seq(r, 0)) != SBT_OK && st != SBT_END)
		goto out_read_error;
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		const char *name = sbt_reader_type_name(r, rec.type);
		uint64_t f[4];
		int bad;
		if (strcmp(name, VKT_MEMWRITE_NAME) == 0)
			bad = vkt_get_varints(rec.payload, rec.payload_len, f, 4) != 0 ||
			      vkt_memwrite_add(&v, &n, &cap,
			                       (vkt_memwrite){ rec.seq, f[0], f[1], f[2], f[3], 0 }) != 0;
		else if (strcmp(name, VKT_MEMWRITES_NAME) == 0)
			bad = vkt_memwrites_runs(&rec, &v, &n, &cap) != 0;
		else
			continue;
		if (bad) {
			fprintf(stderr, "vk_tracetool: %s: record seq %llu: malformed %s payload\n", path,
			        (unsigned long long)rec.seq, name);
			free(v);
			return -1;
		}
	}
	if (st != SBT_END)
		goto out_read_error;
	*out = v;
	*n_out = n;
	return 0;

out_read_error:
	fprintf(stderr, "vk_tracetool: %s: %s: %s\n", path, sbt_strerror(st), sbt_reader_message(r));
	free(v);
	return -1;
}

static int vkt_cmd_blobs(const char *path)
{
	sbt_reader *r = NULL;
	vkt_blob *b = NULL;
	sbt_trace_info info;
	size_t n = 0, i, largest = 0;
	uint64_t total = 0;
	int rc = 1;

	if (vkt_open(path, &r) != SBT_OK)
		goto out_close;
	if (vkt_blobs_list(r, path, &b, &n) != 0)
		goto out_close;
	sbt_reader_get_info(r, &info);
	for (i = 0; i < n; i++) {
		total += b[i].len;
		if (b[i].len > largest)
			largest = b[i].len;
	}
	printf("blobs %zu of %llu bytes %llu largest %zu\n", n, (unsigned long long)info.blob_count,
	       (unsigned long long)total, largest);
	rc = 0;
out_close:
	free(b);
	sbt_reader_close(r);
	return rc;
}

static int vkt_cmd_memwrites(const char *path)
{
	sbt_reader *r = NULL;
	vkt_memwrite *w = NULL;
	size_t n = 0, i;
	int rc = 1;

	if (vkt_open(path, &r) != SBT_OK)
		goto out_close;
	if (vkt_memwrites_list(r, path, &w, &n) != 0)
		goto out_close;
	for (i = 0; i < n; i++)
		printf("memwrite seq %llu memory 0x%llx offset %llu size %llu blob %llu\n",
		       (unsigned long long)w[i].seq, (unsigned long long)w[i].memory,
		       (unsigned long long)w[i].offset, (unsigned long long)w[i].size,
		       (unsigned long long)w[i].blob_id);
	rc = 0;
out_close:
	free(w);
	sbt_reader_close(r);
	return rc;
}

static int vkt_cmd_checkpoints(const char *path)
{
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_status st;
	int rc = 1;

	if (vkt_open(path, &r) != SBT_OK)
		goto out_close;
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		sbt_checkpoint cp;
		if (rec.type != SBT_TYPE_CHECKPOINT)
			continue;
		if (sbt_checkpoint_decode(rec.payload, rec.payload_len, &cp) != SBT_OK) {
			fprintf(stderr, "vk_tracetool: %s: record seq %llu: malformed checkpoint\n", path,
			        (unsigned long long)rec.seq);
			goto out_close;
		}
		printf("checkpoint seq %llu call %llu object 0x%llx offset %llu length %llu block %u\n",
		       (unsigned long long)rec.seq, (unsigned long long)cp.call_seq,
		       (unsigned long long)cp.object, (unsigned long long)cp.offset,
		       (unsigned long long)cp.length, (unsigned)cp.block_size);
		sbt_checkpoint_free(&cp);
	}
	if (st != SBT_END) {
		fprintf(stderr, "vk_tracetool: %s: %s: %s\n", path, sbt_strerror(st),
		        sbt_reader_message(r));
		goto out_close;
	}
	rc = 0;
out_close:
	sbt_reader_close(r);
	return rc;
}

static int vkt_parse_u64(const char *flag, const char *s, uint64_t *out)
{
	char *end = NULL;

	errno = 0;
	if (!s || !*s || *s == '-') {
		fprintf(stderr, "vk_tracetool: %s needs a number\n", flag);
		return -1;
	}
	*out = strtoull(s, &end, 0);
	if (*end || errno) {
		fprintf(stderr, "vk_tracetool: %s: '%s' is not a number\n", flag, s);
		return -1;
	}
	return 0;
}

static int vkt_cmd_blob(const char *path, const char *id_text, const char *out)
{
	sbt_reader *r = NULL;
	void *data = NULL;
	size_t len = 0;
	uint64_t id;
	sbt_status st;
	FILE *f;
	int rc = 1;

	if (vkt_parse_u64("blob ID", id_text, &id) != 0)
		return 2;
	if (vkt_open(path, &r) != SBT_OK)
		goto out_close;
	if ((st = sbt_reader_blob_get(r, id, &data, &len)) != SBT_OK) {
		fprintf(stderr, "vk_tracetool: %s: blob %llu: %s\n", path, (unsigned long long)id,
		        sbt_strerror(st));
		goto out_close;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "vk_tracetool: %s: %s\n", out, strerror(errno));
		goto out_close;
	}
	rc = 0;
out_close:
	free(data);
	sbt_reader_close(r);
	return rc;
}

static int vkt_cmd_synth(const char *out)
{
	sbt_writer *w = NULL;
	sbt_status st;
	uint8_t data[1024], payload[64];
	uint64_t seq = 0, blob;
	uint32_t round, i;
	int rc = 1;

	if ((st = sbt_writer_open(out, NULL, &w)) != SBT_OK) {
		fprintf(stderr, "vk_tracetool: %s: %s\n", out, sbt_strerror(st));
		return 1;
	}
	if ((st = sbt_writer_define_type(w, 0x1000, VKT_MEMWRITE_NAME)) != SBT_OK ||
	    (st = sbt_writer_define_type(w, 0x1100, "vulkan.vkQueueSubmit")) != SBT_OK ||
	    (st = sbt_writer_set_meta(w, "api", "vulkan")) != SBT_OK)
		goto out_close;
	for (round = 0; round < 4; round++) {
		sbt_checkpoint cp;
		sbt_record rec;
		uint8_t *cpbuf = NULL;
		size_t cplen = 0, len = 0;

		for (i = 0; i < sizeof(data); i++) {
			uint32_t v = (i + 1) * 2654435761u ^ (round + 1) * 40503u;
			v ^= v >> 13;
			v *= 0x5bd1e995u;
			data[i] = (uint8_t)(v ^ (v >> 15));
		}
		if ((st = sbt_writer_put_blob(w, 0, data, sizeof(data), &blob)) != SBT_OK)
			goto out_close;
		len += sbt_varint_put(payload + len, 0xab00 + round % 2);
		len += sbt_varint_put(payload + len, 256 * round);
		len += sbt_varint_put(payload + len, sizeof(data));
		len += sbt_varint_put(payload + len, blob);
		memset(&rec, 0, sizeof(rec));
		rec.type = 0x1000;
		rec.seq = ++seq;
		rec.time_ns = seq * 100;
		rec.thread = 42;
		rec.payload = payload;
		rec.payload_len = len;
		if ((st = sbt_writer_append(w, &rec)) != SBT_OK)
			goto out_close;
		rec.type = 0x1100;
		rec.seq = ++seq;
		rec.payload_len = 0;
		if ((st = sbt_writer_append(w, &rec)) != SBT_OK)
			goto out_close;
		if ((st = sbt_checkpoint_compute(data, sizeof(data), &cp)) != SBT_OK)
			goto out_close;
		cp.call_seq = seq;
		cp.object = 0xab00 + round % 2;
		cp.offset = 256 * round;
		st = sbt_checkpoint_encode(&cp, &cpbuf, &cplen);
		sbt_checkpoint_free(&cp);
		if (st != SBT_OK)
			goto out_close;
		rec.type = SBT_TYPE_CHECKPOINT;
		rec.seq = ++seq;
		rec.payload = cpbuf;
		rec.payload_len = cplen;
		st = sbt_writer_append(w, &rec);
		free(cpbuf);
		if (st != SBT_OK)
			goto out_close;
	}
	rc = 0;
out_close:
	if (rc)
		fprintf(stderr, "vk_tracetool: %s: %s\n", out, sbt_strerror(st));
	if ((st = sbt_writer_close(w)) != SBT_OK && rc == 0) {
		fprintf(stderr, "vk_tracetool: %s: %s\n", out, sbt_strerror(st));
		rc = 1;
	}
	return rc;
}

/* ---- find ------------------------------------------------------------- */

/* A rolling polynomial hash over W bytes (mod 2^64, odd base), with an
 * open-addressed table of the pattern's windows; every hit is confirmed
 * with memcmp. */
#define VKT_BASE 0x100000001b3ull

typedef struct vkt_finder {
	const uint8_t *pat;
	size_t pat_len, w;
	uint64_t top;       /* BASE^(w-1) */
	uint64_t *keys;     /* hash per slot, 0 = empty (hashes are made nonzero) */
	size_t *offs;       /* pattern offset per slot */
	size_t mask;
	size_t windows;
	uint64_t hits;
} vkt_finder;

static uint64_t vkt_fix(uint64_t h)
{
	return h ? h : 1;
}

static uint64_t vkt_hash_window(const uint8_t *p, size_t w)
{
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < w; i++)
		h = h * VKT_BASE + p[i];
	return h;
}

static int vkt_boring(const uint8_t *p, size_t w)
{
	size_t i;

	for (i = 4; i + 4 <= w; i += 4)
		if (memcmp(p, p + i, 4) != 0)
			return 0;
	return 1;
}

static int vkt_finder_init(vkt_finder *f, const uint8_t *pat, size_t len, size_t w)
{
	size_t slots = 16, i, o;

	memset(f, 0, sizeof(*f));
	f->pat = pat;
	f->pat_len = len;
	f->w = w;
	f->top = 1;
	for (i = 1; i < w; i++)
		f->top *= VKT_BASE;
	while (slots < 2 * (len / w + 1))
		slots *= 2;
	f->keys = calloc(slots, sizeof(*f->keys));
	f->offs = calloc(slots, sizeof(*f->offs));
	if (!f->keys || !f->offs)
		return -1;
	f->mask = slots - 1;
	for (o = 0; o + w <= len; o += w) {
		uint64_t h;
		size_t s;
		if (vkt_boring(pat + o, w))
			continue;
		h = vkt_fix(vkt_hash_window(pat + o, w));
		s = (size_t)(h * 0x9E3779B97F4A7C15ull) & f->mask;
		while (f->keys[s] && !(f->keys[s] == h && !memcmp(pat + f->offs[s], pat + o, w)))
			s = (s + 1) & f->mask;
		if (!f->keys[s]) {
			f->keys[s] = h;
			f->offs[s] = o;
			f->windows++;
		}
	}
	return 0;
}

static void vkt_finder_free(vkt_finder *f)
{
	free(f->keys);
	free(f->offs);
}

/* Looks up the window at p (hash h); returns its pattern offset or -1. */
static long long vkt_finder_lookup(const vkt_finder *f, const uint8_t *p, uint64_t h)
{
	size_t s = (size_t)(vkt_fix(h) * 0x9E3779B97F4A7C15ull) & f->mask;

	h = vkt_fix(h);
	while (f->keys[s]) {
		if (f->keys[s] == h && !memcmp(f->pat + f->offs[s], p, f->w))
			return (long long)f->offs[s];
		s = (s + 1) & f->mask;
	}
	return -1;
}

/* Calls back for every (data offset, pattern offset) hit in data. */
static void vkt_finder_scan(vkt_finder *f, const uint8_t *data, size_t len, const char *where)
{
	uint64_t h;
	size_t i;

	if (len < f->w || !f->windows)
		return;
	h = vkt_hash_window(data, f->w);
	for (i = 0;; i++) {
		long long po = vkt_finder_lookup(f, data + i, h);
		if (po >= 0) {
			if (f->hits < VKT_MAX_HITS_SHOWN)
				printf("hit %s offset %zu pattern_offset %lld\n", where, i, po);
			f->hits++;
		}
		if (i + f->w >= len)
			break;
		h = (h - data[i] * f->top) * VKT_BASE + data[i + f->w];
	}
}

static unsigned char *vkt_read_file(const char *path, size_t *len_out)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	if (!fp) {
		fprintf(stderr, "vk_tracetool: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		fprintf(stderr, "vk_tracetool: %s: cannot size the file\n", path);
		goto out_close;
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		fprintf(stderr, "vk_tracetool: %s: read failed\n", path);
		free(buf);
		buf = NULL;
		goto out_close;
	}
	*len_out = (size_t)len;
out_close:
	fclose(fp);
	return buf;
}

static int vkt_cmd_find(const char *path, const char *pattern, size_t w)
{
	sbt_reader *r = NULL;
	unsigned char *pat = NULL;
	vkt_blob *b = NULL;
	vkt_finder f;
	size_t plen = 0, n = 0, i;
	sbt_record rec;
	sbt_status st;
	char where[96];
	int rc = 1;

	memset(&f, 0, sizeof(f));
	if (!(pat = vkt_read_file(pattern, &plen)))
		goto out_free;
	if (plen < w) {
		fprintf(stderr, "vk_tracetool: %s: %zu bytes, shorter than the window (%zu)\n", pattern,
		        plen, w);
		goto out_free;
	}
	if (vkt_finder_init(&f, pat, plen, w) != 0) {
		fprintf(stderr, "vk_tracetool: out of memory\n");
		goto out_free;
	}
	if (vkt_open(path, &r) != SBT_OK || vkt_blobs_list(r, path, &b, &n) != 0)
		goto out_free;
	for (i = 0; i < n; i++) {
		void *data = NULL;
		size_t len = 0;
		if ((st = sbt_reader_blob_get(r, b[i].id, &data, &len)) != SBT_OK) {
			fprintf(stderr, "vk_tracetool: %s: blob %llu: %s: %s\n", path,
			        (unsigned long long)b[i].id, sbt_strerror(st), sbt_reader_message(r));
			goto out_free;
		}
		snprintf(where, sizeof(where), "blob %llu", (unsigned long long)b[i].id);
		vkt_finder_scan(&f, data, len, where);
		free(data);
	}
	if ((st = sbt_reader_seek_seq(r, 0)) != SBT_OK && st != SBT_END) {
		fprintf(stderr, "vk_tracetool: %s: %s: %s\n", path, sbt_strerror(st),
		        sbt_reader_message(r));
		goto out_free;
	}
	while (st == SBT_OK && (st = sbt_reader_next(r, &rec)) == SBT_OK) {
		snprintf(where, sizeof(where), "record seq %llu type %s", (unsigned long long)rec.seq,
		         sbt_reader_type_name(r, rec.type));
		vkt_finder_scan(&f, rec.payload, rec.payload_len, where);
	}
	if (st != SBT_END) {
		fprintf(stderr, "vk_tracetool: %s: %s: %s\n", path, sbt_strerror(st),
		        sbt_reader_message(r));
		goto out_free;
	}
	printf("windows %zu hits %llu\n", f.windows, (unsigned long long)f.hits);
	rc = 0;
out_free:
	vkt_finder_free(&f);
	free(b);
	free(pat);
	sbt_reader_close(r);
	return rc;
}

/* ---- copy / poke -------------------------------------------------------- */

typedef struct vkt_poke {
	int active;
	uint64_t blob_id;
	size_t byte;
	uint8_t xor_mask;
	uint64_t checkpoint_seq; /* --checkpoint: the record changed instead of a blob */
	uint64_t call_seq, object, block; /* out: what that checkpoint was */
	uint64_t record_seq;     /* --record: its payload changed where find_hex is */
	uint8_t find[64];
	size_t find_len;
	size_t found_at;         /* out: offset of the match in the payload */
	/* sampleloc: record_seq rewritten through the codec instead */
	int sl_op;               /* VKT_SL_* */
	uint32_t sl_value;       /* --enable's B, --locations' N */
	int64_t sl_from, sl_to;  /* --dynamic (sl_from < 0: none) */
	int sl_static;           /* --static-enable */
	sbt_reader *sl_reader;   /* borrowed: the blobs a decode loads */
	const char *sl_name;     /* out: the record's new command */
	enum sbt_vk_cmd sw_to;   /* swapcall: the command record_seq becomes */
} vkt_poke;

enum { VKT_SL_NONE, VKT_SL_ENABLE, VKT_SL_LOCATIONS, VKT_SL_PIPELINE, VKT_SL_SWAP };

/* swapcall: the arguments of to, from a decoded vkCreateSwapchainKHR
 * (to: vkCreateSharedSwapchainsKHR) or vkGetSwapchainImagesKHR (the
 * others), in arena a; NULL with a message when from is not that. */
static void *vkt_swap_args(sbt_vk_arena *a, enum sbt_vk_cmd from, const void *args,
                           enum sbt_vk_cmd to, uint64_t seq)
{
	enum sbt_vk_cmd want = to == SBT_VK_CMD_vkCreateSharedSwapchainsKHR
	                               ? SBT_VK_CMD_vkCreateSwapchainKHR
	                               : SBT_VK_CMD_vkGetSwapchainImagesKHR;
	const sbt_vk_args_vkGetSwapchainImagesKHR *gi = args;
	void *out;
	if (from != want) {
		fprintf(stderr, "vk_tracetool: record seq %llu is %s, not %s\n", (unsigned long long)seq,
		        sbt_vk_cmd_name(from), sbt_vk_cmd_name(want));
		return NULL;
	}
	out = sbt_vk_arena_alloc(a, sbt_vk_args_size(to));
	if (!out)
		return NULL;
	memset(out, 0, sbt_vk_args_size(to));
	switch (to) {
	case SBT_VK_CMD_vkCreateSharedSwapchainsKHR: {
		const sbt_vk_args_vkCreateSwapchainKHR *c = args;
		sbt_vk_args_vkCreateSharedSwapchainsKHR *o = out;
		o->device = c->device;
		o->swapchainCount = 1;
		o->pCreateInfos = c->pCreateInfo;
		o->pAllocator = c->pAllocator;
		o->pSwapchains = c->pSwapchain;
		o->ret = c->ret;
		break;
	}
	case SBT_VK_CMD_vkWaitForPresentKHR: {
		sbt_vk_args_vkWaitForPresentKHR *o = out;
		o->device = gi->device;
		o->swapchain = gi->swapchain;
		o->presentId = 1;
		break;
	}
	case SBT_VK_CMD_vkGetRefreshCycleDurationGOOGLE: {
		sbt_vk_args_vkGetRefreshCycleDurationGOOGLE *o = out;
		VkRefreshCycleDurationGOOGLE *d = sbt_vk_arena_alloc(a, sizeof(*d));
		if (!d)
			return NULL;
		d->refreshDuration = 16666667;
		o->device = gi->device;
		o->swapchain = gi->swapchain;
		o->pDisplayTimingProperties = d;
		break;
	}
	case SBT_VK_CMD_vkGetPastPresentationTimingGOOGLE: {
		sbt_vk_args_vkGetPastPresentationTimingGOOGLE *o = out;
		uint32_t *n = sbt_vk_arena_alloc(a, sizeof(*n));
		if (!n)
			return NULL;
		*n = 0;
		o->device = gi->device;
		o->swapchain = gi->swapchain;
		o->pPresentationTimingCount = n;
		break;
	}
	case SBT_VK_CMD_vkGetSwapchainCounterEXT: {
		sbt_vk_args_vkGetSwapchainCounterEXT *o = out;
		uint64_t *v = sbt_vk_arena_alloc(a, sizeof(*v));
		if (!v)
			return NULL;
		*v = 7;
		o->device = gi->device;
		o->swapchain = gi->swapchain;
		o->counter = VK_SURFACE_COUNTER_VBLANK_BIT_EXT;
		o->pCounterValue = v;
		break;
	}
	case SBT_VK_CMD_vkSetHdrMetadataEXT: {
		sbt_vk_args_vkSetHdrMetadataEXT *o = out;
		VkSwapchainKHR *sc = sbt_vk_arena_alloc(a, sizeof(*sc));
		VkHdrMetadataEXT *m = sbt_vk_arena_alloc(a, sizeof(*m));
		if (!sc || !m)
			return NULL;
		memset(m, 0, sizeof(*m));
		m->sType = VK_STRUCTURE_TYPE_HDR_METADATA_EXT;
		m->maxLuminance = 1000.0f;
		*sc = gi->swapchain;
		o->device = gi->device;
		o->swapchainCount = 1;
		o->pSwapchains = sc;
		o->pMetadata = m;
		break;
	}
	case SBT_VK_CMD_vkReleaseSwapchainImagesEXT: {
		sbt_vk_args_vkReleaseSwapchainImagesEXT *o = out;
		VkReleaseSwapchainImagesInfoEXT *ri = sbt_vk_arena_alloc(a, sizeof(*ri));
		uint32_t *idx = sbt_vk_arena_alloc(a, sizeof(*idx));
		if (!ri || !idx)
			return NULL;
		memset(ri, 0, sizeof(*ri));
		*idx = 0;
		ri->sType = VK_STRUCTURE_TYPE_RELEASE_SWAPCHAIN_IMAGES_INFO_EXT;
		ri->swapchain = gi->swapchain;
		ri->imageIndexCount = 1;
		ri->pImageIndices = idx;
		o->device = gi->device;
		o->pReleaseInfo = ri;
		break;
	}
	case SBT_VK_CMD_vkSetLocalDimmingAMD: {
		sbt_vk_args_vkSetLocalDimmingAMD *o = out;
		o->device = gi->device;
		o->swapChain = gi->swapchain;
		o->localDimmingEnable = VK_TRUE;
		break;
	}
	default:
		return NULL;
	}
	return out;
}

/* Record rec (its type named name) rewritten as pk's sampleloc option
 * asks, appended to w.  -1 (with a message) when rec is not a record that
 * option can rewrite; *st: the writer's status otherwise. */
static int vkt_sl_record(sbt_writer *w, const sbt_record *rec, const char *name, vkt_poke *pk,
                         sbt_status *st)
{
	enum sbt_vk_cmd cmd, to;
	sbt_vk_arena *a = NULL;
	sbt_vk_enc e;
	sbt_vk_reader_blobs blobs;
	sbt_vk_decode_hooks hooks = { &blobs, NULL, sbt_vk_load_reader_blob };
	void *args = NULL;
	sbt_record out = *rec;
	sbt_vk_status vst;
	int rc = -1;

	sbt_vk_enc_init(&e);
	*st = SBT_OK;
	if (!name || sbt_vk_cmd_by_name(name, &cmd) != 0) {
		fprintf(stderr, "vk_tracetool: record seq %llu is not a Vulkan command\n",
		        (unsigned long long)rec->seq);
		goto out;
	}
	if (sbt_vk_arena_create(0, &a) != SBT_VK_OK || !(args = calloc(1, sbt_vk_args_size(cmd)))) {
		*st = SBT_ERR_NOMEM;
		rc = 0;
		goto out;
	}
	blobs.r = pk->sl_reader;
	blobs.arena = a;
	vst = sbt_vk_decode(cmd, rec->payload, rec->payload_len, a, args, &hooks);
	if (vst != SBT_VK_OK) {
		fprintf(stderr, "vk_tracetool: record seq %llu: %s: %s\n", (unsigned long long)rec->seq,
		        sbt_vk_strerror(vst), sbt_vk_arena_message(a));
		goto out;
	}
	if (pk->sl_op == VKT_SL_SWAP) {
		void *to_args = vkt_swap_args(a, cmd, args, pk->sw_to, rec->seq);
		if (!to_args)
			goto out;
		vst = sbt_vk_encode(&e, pk->sw_to, to_args);
		to = pk->sw_to;
		goto encoded;
	}
	if (pk->sl_op == VKT_SL_PIPELINE) {
		sbt_vk_args_vkCreateGraphicsPipelines *gp = args;
		VkGraphicsPipelineCreateInfo *ci;
		uint32_t n;
		if (cmd != SBT_VK_CMD_vkCreateGraphicsPipelines) {
			fprintf(stderr, "vk_tracetool: record seq %llu is %s, not vkCreateGraphicsPipelines\n",
			        (unsigned long long)rec->seq, name);
			goto out;
		}
		n = gp->createInfoCount;
		ci = sbt_vk_arena_alloc(a, (n ? n : 1) * sizeof(*ci));
		if (!ci) {
			*st = SBT_ERR_NOMEM;
			rc = 0;
			goto out;
		}
		for (uint32_t i = 0; i < n; i++) {
			ci[i] = gp->pCreateInfos[i];
			if (pk->sl_from >= 0 && ci[i].pDynamicState) {
				const VkPipelineDynamicStateCreateInfo *d = ci[i].pDynamicState;
				VkPipelineDynamicStateCreateInfo *d2 = sbt_vk_arena_alloc(a, sizeof(*d2));
				VkDynamicState *v = sbt_vk_arena_alloc(a, (d->dynamicStateCount + 1) * sizeof(*v));
				if (!d2 || !v) {
					*st = SBT_ERR_NOMEM;
					rc = 0;
					goto out;
				}
				*d2 = *d;
				for (uint32_t k = 0; k < d->dynamicStateCount; k++)
					v[k] = (int64_t)d->pDynamicStates[k] == pk->sl_from ? (VkDynamicState)pk->sl_to
					                                                      : d->pDynamicStates[k];
				d2->pDynamicStates = v;
				ci[i].pDynamicState = d2;
			}
			if (pk->sl_static && ci[i].pMultisampleState) {
				VkPipelineMultisampleStateCreateInfo *ms = sbt_vk_arena_alloc(a, sizeof(*ms));
				VkPipelineSampleLocationsStateCreateInfoEXT *sl = sbt_vk_arena_alloc(a, sizeof(*sl));
				if (!ms || !sl) {
					*st = SBT_ERR_NOMEM;
					rc = 0;
					goto out;
				}
				*ms = *ci[i].pMultisampleState;
				sl->sType = VK_STRUCTURE_TYPE_PIPELINE_SAMPLE_LOCATIONS_STATE_CREATE_INFO_EXT;
				sl->pNext = ms->pNext;
				sl->sampleLocationsEnable = VK_TRUE;
				sl->sampleLocationsInfo.sType = VK_STRUCTURE_TYPE_SAMPLE_LOCATIONS_INFO_EXT;
				ms->pNext = sl;
				ci[i].pMultisampleState = ms;
			}
		}
		gp->pCreateInfos = ci;
		to = cmd;
	} else {
		/* every vkCmd*'s arguments start with its command buffer */
		VkCommandBuffer cb = *(const VkCommandBuffer *)args;
		if (strncmp(name, "vulkan.vkCmd", 12) != 0 || !cb) {
			fprintf(stderr, "vk_tracetool: record seq %llu (%s) is not a vkCmd* on a command buffer\n",
			        (unsigned long long)rec->seq, name);
			goto out;
		}
		free(args);
		args = calloc(1, sizeof(sbt_vk_args_vkCmdSetSampleLocationsEnableEXT) +
		                 sizeof(sbt_vk_args_vkCmdSetSampleLocationsEXT));
		if (!args) {
			*st = SBT_ERR_NOMEM;
			rc = 0;
			goto out;
		}
		if (pk->sl_op == VKT_SL_ENABLE) {
			sbt_vk_args_vkCmdSetSampleLocationsEnableEXT *en = args;
			to = SBT_VK_CMD_vkCmdSetSampleLocationsEnableEXT;
			en->commandBuffer = cb;
			en->sampleLocationsEnable = pk->sl_value ? VK_TRUE : VK_FALSE;
		} else {
			sbt_vk_args_vkCmdSetSampleLocationsEXT *loc = args;
			VkSampleLocationsInfoEXT *info = sbt_vk_arena_alloc(a, sizeof(*info));
			VkSampleLocationEXT *xy = sbt_vk_arena_alloc(a, pk->sl_value * sizeof(*xy));
			if (!info || !xy) {
				*st = SBT_ERR_NOMEM;
				rc = 0;
				goto out;
			}
			to = SBT_VK_CMD_vkCmdSetSampleLocationsEXT;
			for (uint32_t k = 0; k < pk->sl_value; k++) {
				xy[k].x = (float)(k + 1) / (float)(pk->sl_value + 1);
				xy[k].y = 1.0f - xy[k].x;
			}
			info->sType = VK_STRUCTURE_TYPE_SAMPLE_LOCATIONS_INFO_EXT;
			info->sampleLocationsPerPixel = (VkSampleCountFlagBits)pk->sl_value;
			info->sampleLocationGridSize.width = 1;
			info->sampleLocationGridSize.height = 1;
			info->sampleLocationsCount = pk->sl_value;
			info->pSampleLocations = xy;
			loc->commandBuffer = cb;
			loc->pSampleLocationsInfo = info;
		}
	}
	vst = sbt_vk_encode(&e, to, args);
encoded:
	if (vst != SBT_VK_OK) {
		fprintf(stderr, "vk_tracetool: record seq %llu: encoding %s: %s\n", (unsigned long long)rec->seq,
		        sbt_vk_cmd_name(to), sbt_vk_strerror(vst));
		goto out;
	}
	out.type = SBT_VK_CMD_TYPE(to);
	out.payload = e.data;
	out.payload_len = e.len;
	pk->sl_name = sbt_vk_cmd_name(to);
	*st = sbt_writer_append(w, &out);
	rc = 0;
out:
	free(args);
	sbt_vk_enc_free(&e);
	sbt_vk_arena_free(a);
	return rc;
}

/* Record rec with the first byte of the first match of pk->find in its
 * payload XORed with the mask, appended to w; -1 when there is no match. */
static int vkt_poke_record(sbt_writer *w, const sbt_record *rec, vkt_poke *pk, sbt_status *st)
{
	sbt_record out = *rec;
	uint8_t *p;
	size_t i;
	for (i = 0; i + pk->find_len <= rec->payload_len; i++)
		if (!memcmp(rec->payload + i, pk->find, pk->find_len))
			break;
	if (i + pk->find_len > rec->payload_len)
		return -1;
	p = malloc(rec->payload_len);
	if (!p) {
		*st = SBT_ERR_NOMEM;
		return 0;
	}
	memcpy(p, rec->payload, rec->payload_len);
	p[i] ^= pk->xor_mask;
	pk->found_at = i;
	out.payload = p;
	*st = sbt_writer_append(w, &out);
	free(p);
	return 0;
}

/* The checkpoint record rec with its hash and its middle block's hash
 * XORed with mask, appended to w; its call, object and block in pk. */
static sbt_status vkt_poke_checkpoint(sbt_writer *w, const sbt_record *rec, vkt_poke *pk)
{
	sbt_checkpoint cp;
	sbt_record out = *rec;
	uint8_t *buf = NULL;
	size_t n = 0;
	sbt_status st = sbt_checkpoint_decode(rec->payload, rec->payload_len, &cp);
	if (st != SBT_OK)
		return st;
	cp.hash ^= pk->xor_mask;
	pk->block = cp.nblocks / 2;
	if (cp.nblocks)
		((uint64_t *)(uintptr_t)cp.block_hashes)[pk->block] ^= pk->xor_mask;
	pk->call_seq = cp.call_seq;
	pk->object = cp.object;
	st = sbt_checkpoint_encode(&cp, &buf, &n);
	if (st == SBT_OK) {
		out.payload = buf;
		out.payload_len = n;
		st = sbt_writer_append(w, &out);
	}
	free(buf);
	sbt_checkpoint_free(&cp);
	return st;
}

static int vkt_fail_w(const char *what, sbt_status st)
{
	fprintf(stderr, "vk_tracetool: writing the copy: %s: %s\n", what, sbt_strerror(st));
	return -1;
}

/* Copies everything the reader exposes (types, strings, stacks, metadata,
 * blobs, records) into a new trace, so that ids in payloads stay valid. */
static int vkt_copy(sbt_reader *r, const char *in, const char *out, vkt_poke *pk)
{
	sbt_writer *w = NULL;
	sbt_trace_info info;
	vkt_blob *b = NULL;
	size_t n = 0, i;
	sbt_record rec;
	sbt_status st;
	uint32_t type;
	const char *name, *key, *value;
	uint64_t id;
	int rc = -1, poked = 0;

	sbt_reader_get_info(r, &info);
	if (vkt_blobs_list(r, in, &b, &n) != 0)
		goto out_free;
	if ((st = sbt_writer_open(out, NULL, &w)) != SBT_OK) {
		fprintf(stderr, "vk_tracetool: %s: %s\n", out, sbt_strerror(st));
		goto out_free;
	}
	for (i = 0; sbt_reader_type_at(r, i, &type, &name) == SBT_OK; i++)
		if ((st = sbt_writer_define_type(w, type, name)) != SBT_OK) {
			vkt_fail_w("type", st);
			goto out_close;
		}
	if (pk && pk->sl_op == VKT_SL_SWAP &&
	    (st = sbt_writer_define_type(w, SBT_VK_CMD_TYPE(pk->sw_to), sbt_vk_cmd_type_name(pk->sw_to))) !=
	            SBT_OK) {
		vkt_fail_w("type", st);
		goto out_close;
	}
	if (pk && pk->sl_op && pk->sl_op != VKT_SL_SWAP &&
	    ((st = sbt_writer_define_type(w, SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCmdSetSampleLocationsEXT),
	                                  sbt_vk_cmd_type_name(SBT_VK_CMD_vkCmdSetSampleLocationsEXT))) != SBT_OK ||
	     (st = sbt_writer_define_type(w, SBT_VK_CMD_TYPE(SBT_VK_CMD_vkCmdSetSampleLocationsEnableEXT),
	                                  sbt_vk_cmd_type_name(SBT_VK_CMD_vkCmdSetSampleLocationsEnableEXT))) !=
	             SBT_OK)) {
		vkt_fail_w("type", st);
		goto out_close;
	}
	for (id = 1; id <= info.string_count; id++) {
		const char *s = sbt_reader_string(r, (uint32_t)id);
		uint32_t got;
		if (!s) {
			fprintf(stderr, "vk_tracetool: %s: string id %llu is missing\n", in,
			        (unsigned long long)id);
			goto out_close;
		}
		if ((st = sbt_writer_intern(w, s, &got)) != SBT_OK || got != id) {
			fprintf(stderr, "vk_tracetool: string %llu came back as id %u\n",
			        (unsigned long long)id, got);
			goto out_close;
		}
	}
	for (id = 1; id <= info.stack_count; id++) {
		const sbt_frame *frames;
		uint32_t nframes, got;
		if (sbt_reader_stack(r, (uint32_t)id, &frames, &nframes) != SBT_OK) {
			fprintf(stderr, "vk_tracetool: %s: stack id %llu is missing\n", in,
			        (unsigned long long)id);
			goto out_close;
		}
		st = sbt_writer_put_stack(w, XXH3_64bits_withSeed(frames, nframes * sizeof(*frames), id),
		                          frames, nframes, &got);
		if (st != SBT_OK || got != id) {
			fprintf(stderr, "vk_tracetool: stack %llu came back as id %u\n",
			        (unsigned long long)id, got);
			goto out_close;
		}
	}
	for (i = 0; sbt_reader_meta_at(r, i, &key, &value) == SBT_OK; i++)
		if ((st = sbt_writer_set_meta(w, key, value)) != SBT_OK) {
			vkt_fail_w("metadata", st);
			goto out_close;
		}
	for (i = 0; i < n; i++) {
		void *data = NULL;
		size_t len = 0;
		if ((st = sbt_reader_blob_get(r, b[i].id, &data, &len)) != SBT_OK) {
			fprintf(stderr, "vk_tracetool: %s: blob %llu: %s: %s\n", in,
			        (unsigned long long)b[i].id, sbt_strerror(st), sbt_reader_message(r));
			goto out_close;
		}
		if (pk && pk->active && !pk->checkpoint_seq && !pk->record_seq &&
		    b[i].id == pk->blob_id) {
			if (pk->byte >= len) {
				fprintf(stderr, "vk_tracetool: blob %llu has %zu bytes, no byte %zu\n",
				        (unsigned long long)b[i].id, len, pk->byte);
				free(data);
				goto out_close;
			}
			((uint8_t *)data)[pk->byte] ^= pk->xor_mask;
			poked = 1;
		}
		st = sbt_writer_put_blob(w, b[i].id, data, len, NULL);
		free(data);
		if (st != SBT_OK) {
			vkt_fail_w("blob", st);
			goto out_close;
		}
	}
	if (pk && pk->active && !pk->checkpoint_seq && !pk->record_seq && !poked) {
		fprintf(stderr, "vk_tracetool: %s: no blob %llu\n", in, (unsigned long long)pk->blob_id);
		goto out_close;
	}
	if ((st = sbt_reader_seek_seq(r, 0)) != SBT_OK && st != SBT_END) {
		fprintf(stderr, "vk_tracetool: %s: %s: %s\n", in, sbt_strerror(st),
		        sbt_reader_message(r));
		goto out_close;
	}
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		sbt_status wst;
		if (pk && pk->checkpoint_seq && rec.seq == pk->checkpoint_seq) {
			if (rec.type != SBT_TYPE_CHECKPOINT) {
				fprintf(stderr, "vk_tracetool: %s: record seq %llu is not a checkpoint\n",
				        in, (unsigned long long)rec.seq);
				goto out_close;
			}
			wst = vkt_poke_checkpoint(w, &rec, pk);
			poked = 1;
		} else if (pk && pk->sl_op && rec.seq == pk->record_seq) {
			if (vkt_sl_record(w, &rec, sbt_reader_type_name(r, rec.type), pk, &wst) != 0)
				goto out_close;
			poked = 1;
		} else if (pk && pk->record_seq && rec.seq == pk->record_seq) {
			if (vkt_poke_record(w, &rec, pk, &wst) != 0) {
				fprintf(stderr, "vk_tracetool: %s: record seq %llu does not hold the bytes "
				        "given to --find\n", in, (unsigned long long)rec.seq);
				goto out_close;
			}
			poked = 1;
		} else {
			wst = sbt_writer_append(w, &rec);
		}
		if (wst != SBT_OK) {
			vkt_fail_w("record", wst);
			goto out_close;
		}
	}
	if (st != SBT_END) {
		fprintf(stderr, "vk_tracetool: %s: %s: %s\n", in, sbt_strerror(st),
		        sbt_reader_message(r));
		goto out_close;
	}
	if (pk && (pk->checkpoint_seq || pk->record_seq) && !poked) {
		fprintf(stderr, "vk_tracetool: %s: no record seq %llu\n", in,
		        (unsigned long long)(pk->checkpoint_seq ? pk->checkpoint_seq
		                                                : pk->record_seq));
		goto out_close;
	}
	rc = 0;
out_close:
	st = sbt_writer_close(w);
	if (rc == 0 && st != SBT_OK)
		rc = vkt_fail_w("close", st);
out_free:
	free(b);
	return rc;
}

static int vkt_cmd_poke(int argc, char **argv, int poke)
{
	const char *in, *out, *pattern = NULL;
	uint64_t at = 0, blob = 0, byte = 0, xor_mask = 1, cp_seq = 0, rec_seq = 0;
	int have_blob = 0, have_byte = 0, have_cp = 0, have_rec = 0, i, rc = 1;
	const char *find_hex = NULL;
	sbt_reader *r = NULL;
	vkt_memwrite *mw = NULL, *hit = NULL;
	unsigned char *pat = NULL;
	size_t nmw = 0, plen = 0, k;
	vkt_poke pk;

	if (argc < 4)
		return vkt_usage();
	in = argv[2];
	out = argv[3];
	for (i = 4; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;
		if (!poke) {
			fprintf(stderr, "vk_tracetool: copy takes no option ('%s')\n", a);
			return 2;
		}
		if (!strcmp(a, "--pattern") && v)
			pattern = v;
		else if (!strcmp(a, "--at"))
			bad = vkt_parse_u64(a, v, &at);
		else if (!strcmp(a, "--blob")) {
			bad = vkt_parse_u64(a, v, &blob);
			have_blob = 1;
		} else if (!strcmp(a, "--byte")) {
			bad = vkt_parse_u64(a, v, &byte);
			have_byte = 1;
		}
		else if (!strcmp(a, "--record")) {
			bad = vkt_parse_u64(a, v, &rec_seq) || rec_seq == 0;
			have_rec = 1;
		} else if (!strcmp(a, "--find") && v)
			find_hex = v;
		else if (!strcmp(a, "--checkpoint")) {
			bad = vkt_parse_u64(a, v, &cp_seq) || cp_seq == 0;
			have_cp = 1;
		} else if (!strcmp(a, "--xor"))
			bad = vkt_parse_u64(a, v, &xor_mask) || xor_mask == 0 || xor_mask > 255;
		else {
			fprintf(stderr, "vk_tracetool: unknown option '%s' (or it needs a value)\n", a);
			return vkt_usage();
		}
		if (bad) {
			fprintf(stderr, "vk_tracetool: bad value for %s\n", a);
			return 2;
		}
		i++;
	}
	if (poke && (!!pattern + !!(have_blob && have_byte) + have_cp + (have_rec && find_hex)) != 1) {
		fprintf(stderr, "vk_tracetool: poke needs --pattern FILE, or --blob ID and --byte K, "
		        "or --checkpoint SEQ, or --record SEQ and --find HEX\n");
		return 2;
	}
	memset(&pk, 0, sizeof(pk));
	if (have_rec) {
		size_t hl = strlen(find_hex), k2;
		if (hl == 0 || hl % 2 || hl / 2 > sizeof(pk.find)) {
			fprintf(stderr, "vk_tracetool: --find wants 1 to %zu bytes in hex, got '%s'\n",
			        sizeof(pk.find), find_hex);
			return 2;
		}
		for (k2 = 0; k2 < hl / 2; k2++) {
			unsigned v2;
			if (sscanf(find_hex + 2 * k2, "%2x", &v2) != 1) {
				fprintf(stderr, "vk_tracetool: --find: '%s' is not hex\n", find_hex);
				return 2;
			}
			pk.find[k2] = (uint8_t)v2;
		}
		pk.find_len = hl / 2;
	}
	if (vkt_open(in, &r) != SBT_OK)
		goto out_free;
	if (poke && pattern) {
		const size_t w = 32;
		if (!(pat = vkt_read_file(pattern, &plen)))
			goto out_free;
		if (at >= plen || plen < w) {
			fprintf(stderr, "vk_tracetool: --at %llu is outside %s (%zu bytes, window %zu)\n",
			        (unsigned long long)at, pattern, plen, w);
			goto out_free;
		}
		if (vkt_memwrites_list(r, in, &mw, &nmw) != 0)
			goto out_free;
		{
			size_t start = (size_t)at / w * w;
			if (start + w > plen)
				start = plen - w;
			for (k = 0; k < nmw && !hit; k++) {
				void *data = NULL;
				size_t len = 0, j;
				sbt_status st = sbt_reader_blob_get(r, mw[k].blob_id, &data, &len);
				if (st != SBT_OK) {
					fprintf(stderr, "vk_tracetool: %s: blob %llu of seq %llu: %s\n", in,
					        (unsigned long long)mw[k].blob_id,
					        (unsigned long long)mw[k].seq, sbt_strerror(st));
					goto out_free;
				}
				/* the write's own bytes of its blob */
				if (mw[k].blob_pos + mw[k].size < len)
					len = (size_t)(mw[k].blob_pos + mw[k].size);
				for (j = (size_t)mw[k].blob_pos; j + w <= len; j++)
					if (!memcmp((uint8_t *)data + j, pat + start, w)) {
						hit = &mw[k];
						blob = mw[k].blob_id;
						byte = j + (at - start);
						break;
					}
				free(data);
			}
		}
		if (!hit) {
			fprintf(stderr,
			        "vk_tracetool: %s: no tsMemoryWrite blob holds the 32 bytes of %s at "
			        "offset %llu (%zu memory writes searched)\n",
			        in, pattern, (unsigned long long)(at / 32 * 32), nmw);
			goto out_free;
		}
	}
	if (poke && have_rec) {
		pk.active = 1;
		pk.record_seq = rec_seq;
		pk.xor_mask = (uint8_t)xor_mask;
		if (vkt_copy(r, in, out, &pk) != 0)
			goto out_free;
		printf("poked record seq %llu payload byte %zu\n", (unsigned long long)rec_seq,
		       pk.found_at);
		rc = 0;
		goto out_free;
	}
	if (poke && have_cp) {
		pk.active = 1;
		pk.checkpoint_seq = cp_seq;
		pk.xor_mask = (uint8_t)xor_mask;
		if (vkt_copy(r, in, out, &pk) != 0)
			goto out_free;
		printf("poked checkpoint seq %llu call %llu object 0x%llx block %llu\n",
		       (unsigned long long)cp_seq, (unsigned long long)pk.call_seq,
		       (unsigned long long)pk.object, (unsigned long long)pk.block);
		rc = 0;
		goto out_free;
	}
	if (poke) {
		pk.active = 1;
		pk.blob_id = blob;
		pk.byte = (size_t)byte;
		pk.xor_mask = (uint8_t)xor_mask;
		if (!hit && vkt_memwrites_list(r, in, &mw, &nmw) == 0)
			for (k = 0; k < nmw && !hit; k++)
				if (mw[k].blob_id == blob && byte >= mw[k].blob_pos &&
				    byte - mw[k].blob_pos < mw[k].size)
					hit = &mw[k];
	}
	if (vkt_copy(r, in, out, poke ? &pk : NULL) != 0)
		goto out_free;
	if (poke) {
		printf("poked blob %llu byte %llu", (unsigned long long)blob, (unsigned long long)byte);
		if (hit)
			printf(" seq %llu memory 0x%llx memory_offset %llu", (unsigned long long)hit->seq,
			       (unsigned long long)hit->memory,
			       (unsigned long long)(hit->offset + (byte - hit->blob_pos)));
		printf("\n");
	}
	rc = 0;
out_free:
	free(pat);
	free(mw);
	sbt_reader_close(r);
	return rc;
}

static int vkt_cmd_sampleloc(int argc, char **argv)
{
	vkt_poke pk;
	sbt_reader *r = NULL;
	uint64_t v;
	int i, rc = 1, n_ops = 0;

	if (argc < 4)
		return vkt_usage();
	memset(&pk, 0, sizeof(pk));
	pk.sl_from = -1;
	for (i = 4; i < argc; i += 2) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;
		if (!strcmp(a, "--record"))
			bad = vkt_parse_u64(a, val, &pk.record_seq) || pk.record_seq == 0;
		else if (!strcmp(a, "--enable")) {
			bad = vkt_parse_u64(a, val, &v) || v > 1;
			pk.sl_op = VKT_SL_ENABLE;
			pk.sl_value = (uint32_t)v;
			n_ops++;
		} else if (!strcmp(a, "--locations")) {
			/* a VkSampleCountFlagBits: 1, 2, 4, ... 64 */
			bad = vkt_parse_u64(a, val, &v) || !v || v > 64 || (v & (v - 1));
			pk.sl_op = VKT_SL_LOCATIONS;
			pk.sl_value = (uint32_t)v;
			n_ops++;
		} else if (!strcmp(a, "--dynamic")) {
			long long from, to;
			char tail;
			bad = !val || sscanf(val, "%lld:%lld%c", &from, &to, &tail) != 2 || from < 0 || to < 0 ||
			      from > INT32_MAX || to > INT32_MAX;
			pk.sl_from = from;
			pk.sl_to = to;
		} else if (!strcmp(a, "--static-enable")) {
			pk.sl_static = 1;
			i--; /* takes no value */
		} else {
			fprintf(stderr, "vk_tracetool: unknown option '%s' (or it needs a value)\n", a);
			return vkt_usage();
		}
		if (bad) {
			fprintf(stderr, "vk_tracetool: bad value for %s\n", a);
			return 2;
		}
	}
	if (pk.sl_from >= 0 || pk.sl_static) {
		pk.sl_op = VKT_SL_PIPELINE;
		n_ops++;
	}
	if (!pk.record_seq || n_ops != 1) {
		fprintf(stderr, "vk_tracetool: sampleloc needs --record SEQ and one of --enable B, "
		        "--locations N, or --dynamic FROM:TO and/or --static-enable\n");
		return 2;
	}
	if (vkt_open(argv[2], &r) != SBT_OK)
		return 1;
	pk.sl_reader = r;
	if (vkt_copy(r, argv[2], argv[3], &pk) == 0) {
		printf("sampleloc record seq %llu: %s\n", (unsigned long long)pk.record_seq, pk.sl_name);
		rc = 0;
	}
	sbt_reader_close(r);
	return rc;
}

/* vk_tracetool swapcall IN OUT --record SEQ --as NAME */
static int vkt_cmd_swapcall(int argc, char **argv)
{
	static const enum sbt_vk_cmd can[] = {
		SBT_VK_CMD_vkCreateSharedSwapchainsKHR, SBT_VK_CMD_vkWaitForPresentKHR,
		SBT_VK_CMD_vkGetRefreshCycleDurationGOOGLE, SBT_VK_CMD_vkGetPastPresentationTimingGOOGLE,
		SBT_VK_CMD_vkGetSwapchainCounterEXT, SBT_VK_CMD_vkSetHdrMetadataEXT,
		SBT_VK_CMD_vkSetLocalDimmingAMD, SBT_VK_CMD_vkReleaseSwapchainImagesEXT
	};
	vkt_poke pk;
	sbt_reader *r;
	const char *as = NULL;
	int i, rc = 1;
	size_t k;
	if (argc != 8)
		return vkt_usage();
	memset(&pk, 0, sizeof(pk));
	for (i = 4; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--record")) {
			if (vkt_parse_u64(argv[i], argv[i + 1], &pk.record_seq) || !pk.record_seq) {
				fprintf(stderr, "vk_tracetool: bad value for --record\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--as")) {
			as = argv[i + 1];
		} else {
			return vkt_usage();
		}
	}
	for (k = 0; as && k < sizeof(can) / sizeof(can[0]); k++)
		if (!strcmp(as, sbt_vk_cmd_name(can[k])))
			break;
	if (!pk.record_seq || !as || k == sizeof(can) / sizeof(can[0])) {
		fprintf(stderr, "vk_tracetool: swapcall needs --record SEQ and --as one of "
		        "vkCreateSharedSwapchainsKHR, vkWaitForPresentKHR, "
		        "vkGetRefreshCycleDurationGOOGLE, vkGetPastPresentationTimingGOOGLE, "
		        "vkGetSwapchainCounterEXT, vkSetHdrMetadataEXT, vkSetLocalDimmingAMD, "
		        "vkReleaseSwapchainImagesEXT\n");
		return 2;
	}
	pk.sl_op = VKT_SL_SWAP;
	pk.sw_to = can[k];
	if (vkt_open(argv[2], &r) != SBT_OK)
		return 1;
	pk.sl_reader = r;
	if (vkt_copy(r, argv[2], argv[3], &pk) == 0) {
		printf("swapcall record seq %llu: %s\n", (unsigned long long)pk.record_seq, pk.sl_name);
		rc = 0;
	}
	sbt_reader_close(r);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return vkt_usage();
	if (!strcmp(argv[1], "blobs") && argc == 3)
		return vkt_cmd_blobs(argv[2]);
	if (!strcmp(argv[1], "memwrites") && argc == 3)
		return vkt_cmd_memwrites(argv[2]);
	if (!strcmp(argv[1], "checkpoints") && argc == 3)
		return vkt_cmd_checkpoints(argv[2]);
	if (!strcmp(argv[1], "find") && (argc == 4 || argc == 6)) {
		uint64_t w = 32;
		if (argc == 6 && (strcmp(argv[4], "--window") != 0 ||
		                  vkt_parse_u64("--window", argv[5], &w) != 0 || w < 8 || w > 4096)) {
			fprintf(stderr, "vk_tracetool: find: --window needs 8..4096\n");
			return 2;
		}
		return vkt_cmd_find(argv[2], argv[3], (size_t)w);
	}
	if (!strcmp(argv[1], "blob") && argc == 5)
		return vkt_cmd_blob(argv[2], argv[3], argv[4]);
	if (!strcmp(argv[1], "synth") && argc == 3)
		return vkt_cmd_synth(argv[2]);
	if (!strcmp(argv[1], "poke"))
		return vkt_cmd_poke(argc, argv, 1);
	if (!strcmp(argv[1], "copy"))
		return vkt_cmd_poke(argc, argv, 0);
	if (!strcmp(argv[1], "sampleloc"))
		return vkt_cmd_sampleloc(argc, argv);
	if (!strcmp(argv[1], "swapcall"))
		return vkt_cmd_swapcall(argc, argv);
	return vkt_usage();
}
