/*
 * sbt_mutate - a structure-aware mutator of SBT traces (issue 12).  It
 * reads a whole trace through the reader (every chunk decompressed and
 * checked), changes records, and writes a new trace through the writer
 * (every chunk compressed again, every checksum, size, index and the
 * trailer computed afresh): the damage reaches the decoders and the
 * replayer instead of stopping at a checksum.  Type names, strings,
 * stacks, metadata and blobs are copied as they are (ids kept).
 *
 * usage: sbt_mutate IN OUT OP...
 *   --seed N[:K]      K (default 1 to 4) random mutations, drawn from N
 *   --set SEQ:OFF:B   payload byte OFF of record SEQ becomes B (0-255); a
 *                     negative OFF counts from the end (-1: the last byte)
 *   --cut SEQ:LEN     record SEQ's payload is cut to LEN bytes
 *   --move SEQ:TO     the content (type, payload, stack, thread) of record
 *                     SEQ moves to the place of record TO, the records
 *                     between shifting by one; sequence numbers and times
 *                     stay where they were (they must grow), so the record
 *                     now runs before (or after) what it followed
 *   --varint SEQ:I:V  the I-th varint of record SEQ's payload (from 0;
 *                     each a run of bytes ending with one below 0x80)
 *                     becomes V: a count, a handle, an enum, a size
 *   --drop SEQ        record SEQ is left out
 *   --dup SEQ         record SEQ's content also takes the next seq's place
 *                     (the records after it shift by one; the last is left out)
 * or: sbt_mutate --batch IN DIR FIRST COUNT
 *   writes COUNT mutants of IN, DIR/m<N>.sbt for N from FIRST, each as
 *   "--seed N" would make it (IN read once: for runs over many mutants,
 *   tests/fuzz/vk_null_mutants.sh), and prints "m<N>.sbt: OP; OP" each
 * or: sbt_mutate --extract-vk IN DIR
 *   writes DIR/vk_<call> for the first record of each Vulkan call in IN: a
 *   fuzz_cm_codec input (0x02, the command as u16 LE, the payload).
 * Random mutations are those: a byte set (to a random value or one of 0,
 * 1, 0x7f, 0x80, 0xff), a payload cut, a content move by up to 32
 * records, a drop, a dup, and a varint in the payload replaced by another
 * (a count, a handle, an enum).  Prints what it did, one line each.  Exit
 * 0, or 1 with a message (a trace it cannot read or write, an op naming
 * no record).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_vk.h"
#include "tracesmith/sbt.h"

typedef struct smu_rec {
	uint32_t type, stack_id;
	uint64_t seq, time_ns, thread;
	uint8_t *payload; /* owned */
	size_t len;
} smu_rec;

typedef struct smu_trace {
	smu_rec *recs; /* owned */
	size_t n, cap;
} smu_trace;

static uint64_t smu_rand(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int smu_fail(const char *what, sbt_status st, const sbt_reader *r)
{
	fprintf(stderr, "sbt_mutate: %s: %s%s%s\n", what, sbt_strerror(st),
	        r && sbt_reader_message(r)[0] ? ": " : "", r ? sbt_reader_message(r) : "");
	return 1;
}

static int smu_load(sbt_reader *r, smu_trace *t)
{
	sbt_record rec;
	sbt_status st;
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		smu_rec *x;
		if (t->n == t->cap) {
			size_t ncap = t->cap ? 2 * t->cap : 1024;
			smu_rec *nr = realloc(t->recs, ncap * sizeof(*nr));
			if (!nr)
				return smu_fail("load", SBT_ERR_NOMEM, NULL);
			t->recs = nr;
			t->cap = ncap;
		}
		x = &t->recs[t->n];
		x->type = rec.type;
		x->stack_id = rec.stack_id;
		x->seq = rec.seq;
		x->time_ns = rec.time_ns;
		x->thread = rec.thread;
		x->len = rec.payload_len;
		x->payload = malloc(rec.payload_len ? rec.payload_len : 1);
		if (!x->payload)
			return smu_fail("load", SBT_ERR_NOMEM, NULL);
		if (rec.payload_len)
			memcpy(x->payload, rec.payload, rec.payload_len);
		t->n++;
	}
	return st == SBT_END ? 0 : smu_fail("reading", st, r);
}

/* Type names, strings and stacks (ids kept), metadata, blobs (ids kept). */
static int smu_tables(sbt_reader *r, sbt_writer *w)
{
	const char *name, *key, *value;
	const sbt_frame *frames;
	sbt_trace_info in;
	uint32_t type, nframes, id, got;
	uint64_t bid, found = 0, limit;
	sbt_status st;
	size_t i;

	sbt_reader_get_info(r, &in);
	for (i = 0; sbt_reader_type_at(r, i, &type, &name) == SBT_OK; i++)
		if ((st = sbt_writer_define_type(w, type, name)) != SBT_OK)
			return smu_fail("define_type", st, NULL);
	for (id = 1; id <= in.string_count; id++) {
		const char *s = sbt_reader_string(r, id);
		if (!s || sbt_writer_intern(w, s, &got) != SBT_OK || got != id)
			return smu_fail("string", SBT_ERR_CORRUPT, NULL);
	}
	for (id = 1; id <= in.stack_count; id++) {
		if ((st = sbt_reader_stack(r, id, &frames, &nframes)) != SBT_OK)
			return smu_fail("stack", st, r);
		if (sbt_writer_put_stack(w, id, frames, nframes, &got) != SBT_OK || got != id)
			return smu_fail("stack", SBT_ERR_CORRUPT, NULL);
	}
	for (i = 0; sbt_reader_meta_at(r, i, &key, &value) == SBT_OK; i++)
		if ((st = sbt_writer_set_meta(w, key, value)) != SBT_OK)
			return smu_fail("set_meta", st, NULL);
	/* Blobs have no list: ids are probed from 1 (handed out in order). */
	limit = 4 * in.blob_count + 4096;
	for (bid = 1; found < in.blob_count && bid <= limit; bid++) {
		void *data = NULL;
		size_t len = 0;
		uint64_t gid;
		st = sbt_reader_blob_get(r, bid, &data, &len);
		if (st == SBT_ERR_NOT_FOUND)
			continue;
		if (st != SBT_OK)
			return smu_fail("blob", st, r);
		st = sbt_writer_put_blob(w, bid, data, len, &gid);
		free(data);
		if (st != SBT_OK)
			return smu_fail("put_blob", st, NULL);
		found++;
	}
	return 0;
}

static long smu_find(const smu_trace *t, uint64_t seq)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->recs[i].seq == seq)
			return (long)i;
	fprintf(stderr, "sbt_mutate: no record has seq %llu\n", (unsigned long long)seq);
	return -1;
}

/* Content (everything but seq and time) of record i moves to place j. */
static void smu_move(smu_trace *t, size_t i, size_t j)
{
	smu_rec keep = t->recs[i];
	if (i < j)
		for (size_t k = i; k < j; k++) {
			uint64_t seq = t->recs[k].seq, time = t->recs[k].time_ns;
			t->recs[k] = t->recs[k + 1];
			t->recs[k].seq = seq;
			t->recs[k].time_ns = time;
		}
	else
		for (size_t k = i; k > j; k--) {
			uint64_t seq = t->recs[k].seq, time = t->recs[k].time_ns;
			t->recs[k] = t->recs[k - 1];
			t->recs[k].seq = seq;
			t->recs[k].time_ns = time;
		}
	keep.seq = t->recs[j].seq;
	keep.time_ns = t->recs[j].time_ns;
	t->recs[j] = keep;
}

static void smu_drop(smu_trace *t, size_t i)
{
	free(t->recs[i].payload);
	memmove(&t->recs[i], &t->recs[i + 1], (t->n - i - 1) * sizeof(*t->recs));
	t->n--;
}

/* Record i's content also at i + 1; the last record's content is lost. */
static int smu_dup(smu_trace *t, size_t i)
{
	uint8_t *copy;
	if (i + 1 >= t->n)
		return 0;
	copy = malloc(t->recs[i].len ? t->recs[i].len : 1);
	if (!copy)
		return -1;
	memcpy(copy, t->recs[i].payload, t->recs[i].len);
	free(t->recs[t->n - 1].payload);
	t->recs[t->n - 1].payload = copy;
	t->recs[t->n - 1].len = t->recs[i].len;
	t->recs[t->n - 1].type = t->recs[i].type;
	t->recs[t->n - 1].stack_id = t->recs[i].stack_id;
	t->recs[t->n - 1].thread = t->recs[i].thread;
	smu_move(t, t->n - 1, i + 1);
	return 0;
}

/* A varint starting at or after off, replaced by v (the payload is
 * rebuilt: the new varint may be longer or shorter). */
static int smu_varint(smu_rec *x, size_t off, uint64_t v)
{
	size_t a = off, b, nlen;
	uint8_t enc[10], *np;
	int n = 0;
	while (a > 0 && (x->payload[a - 1] & 0x80))
		a--; /* back to the start of the varint off is in */
	for (b = a; b < x->len && (x->payload[b] & 0x80); b++)
		;
	if (b >= x->len)
		return 0;
	b++;
	do {
		enc[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	nlen = x->len - (b - a) + (size_t)n;
	np = malloc(nlen ? nlen : 1);
	if (!np)
		return -1;
	memcpy(np, x->payload, a);
	memcpy(np + a, enc, (size_t)n);
	memcpy(np + a + n, x->payload + b, x->len - b);
	free(x->payload);
	x->payload = np;
	x->len = nlen;
	return 0;
}

/* One random mutation; its description in what. */
static int smu_random(smu_trace *t, uint64_t *s, char *what, size_t wlen)
{
	static const uint8_t special[] = {0, 1, 0x7f, 0x80, 0xff};
	static const uint64_t values[] = {0, 1, 2, 3, 4, 15, 16, 255, 256, 0xffffffffull,
	                                  0x100000000ull, 0x7fffffff, 1000000000ull};
	size_t i, j;
	smu_rec *x;
	if (!t->n)
		return 0;
	i = (size_t)(smu_rand(s) % t->n);
	x = &t->recs[i];
	switch (smu_rand(s) % 8) {
	case 0:
	case 1:
		if (!x->len)
			break;
		j = (size_t)(smu_rand(s) % x->len);
		x->payload[j] = smu_rand(s) % 2 ? (uint8_t)smu_rand(s)
		                                 : special[smu_rand(s) % sizeof(special)];
		snprintf(what, wlen, "--set %llu:%zu:%u", (unsigned long long)x->seq, j, x->payload[j]);
		return 0;
	case 2:
	case 3: {
		uint64_t v = values[smu_rand(s) % (sizeof(values) / sizeof(values[0]))];
		if (!x->len)
			break;
		j = (size_t)(smu_rand(s) % x->len);
		snprintf(what, wlen, "varint at %llu:%zu := %llu", (unsigned long long)x->seq, j,
		         (unsigned long long)v);
		return smu_varint(x, j, v);
	}
	case 4:
		j = x->len ? (size_t)(smu_rand(s) % x->len) : 0;
		snprintf(what, wlen, "--cut %llu:%zu", (unsigned long long)x->seq, j);
		x->len = j;
		return 0;
	case 5: {
		long d = (long)(smu_rand(s) % 65) - 32;
		long to = (long)i + d;
		if (to < 0)
			to = 0;
		if ((size_t)to >= t->n)
			to = (long)t->n - 1;
		snprintf(what, wlen, "--move %llu:%llu", (unsigned long long)x->seq,
		         (unsigned long long)t->recs[to].seq);
		smu_move(t, i, (size_t)to);
		return 0;
	}
	case 6:
		snprintf(what, wlen, "--drop %llu", (unsigned long long)x->seq);
		smu_drop(t, i);
		return 0;
	default:
		snprintf(what, wlen, "--dup %llu", (unsigned long long)x->seq);
		return smu_dup(t, i);
	}
	snprintf(what, wlen, "(nothing: record %llu is empty)", (unsigned long long)x->seq);
	return 0;
}

static int smu_apply(smu_trace *t, const char *op, const char *arg)
{
	unsigned long long a = 0, b = 0, c = 0;
	long i, j;
	char what[128];
	if (strcmp(op, "--seed") == 0) {
		uint64_t s;
		unsigned k;
		if (sscanf(arg, "%llu:%llu", &a, &b) < 1)
			return -1;
		s = a;
		k = b ? (unsigned)b : 1 + (unsigned)(smu_rand(&s) % 4);
		while (k--) {
			if (smu_random(t, &s, what, sizeof(what)) != 0)
				return -1;
			printf("%s\n", what);
		}
		return 0;
	}
	if (strcmp(op, "--set") == 0) {
		long long off;
		if (sscanf(arg, "%llu:%lld:%llu", &a, &off, &c) != 3 || c > 255 || (i = smu_find(t, a)) < 0)
			return -1;
		if (off < 0)
			off += (long long)t->recs[i].len;
		if (off < 0 || (unsigned long long)off >= t->recs[i].len)
			return -1;
		t->recs[i].payload[off] = (uint8_t)c;
	} else if (strcmp(op, "--varint") == 0) {
		size_t off = 0;
		if (sscanf(arg, "%llu:%llu:%llu", &a, &b, &c) != 3 || (i = smu_find(t, a)) < 0)
			return -1;
		for (; b && off < t->recs[i].len; off++)
			b -= !(t->recs[i].payload[off] & 0x80);
		if (off >= t->recs[i].len || smu_varint(&t->recs[i], off, c) != 0)
			return -1;
	} else if (strcmp(op, "--cut") == 0) {
		if (sscanf(arg, "%llu:%llu", &a, &b) != 2 || (i = smu_find(t, a)) < 0 || b > t->recs[i].len)
			return -1;
		t->recs[i].len = (size_t)b;
	} else if (strcmp(op, "--move") == 0) {
		if (sscanf(arg, "%llu:%llu", &a, &b) != 2 || (i = smu_find(t, a)) < 0 || (j = smu_find(t, b)) < 0)
			return -1;
		smu_move(t, (size_t)i, (size_t)j);
	} else if (strcmp(op, "--drop") == 0) {
		if (sscanf(arg, "%llu", &a) != 1 || (i = smu_find(t, a)) < 0)
			return -1;
		smu_drop(t, (size_t)i);
	} else if (strcmp(op, "--dup") == 0) {
		if (sscanf(arg, "%llu", &a) != 1 || (i = smu_find(t, a)) < 0 || smu_dup(t, (size_t)i) != 0)
			return -1;
	} else {
		return -1;
	}
	printf("%s %s\n", op, arg);
	return 0;
}

/* t written to path, with r's tables. */
static int smu_write(sbt_reader *r, const smu_trace *t, const char *path)
{
	sbt_writer *w = NULL;
	sbt_status st;
	if ((st = sbt_writer_open(path, NULL, &w)) != SBT_OK)
		return smu_fail(path, st, NULL);
	if (smu_tables(r, w) != 0) {
		sbt_writer_close(w);
		return 1;
	}
	for (size_t k = 0; k < t->n; k++) {
		sbt_record rec = {t->recs[k].type, t->recs[k].stack_id, t->recs[k].seq, t->recs[k].time_ns,
		                  t->recs[k].thread, t->recs[k].payload, t->recs[k].len};
		if ((st = sbt_writer_append(w, &rec)) != SBT_OK) {
			sbt_writer_close(w);
			return smu_fail("append", st, NULL);
		}
	}
	if ((st = sbt_writer_close(w)) != SBT_OK)
		return smu_fail("close", st, NULL);
	return 0;
}

static void smu_free(smu_trace *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->recs[k].payload);
	free(t->recs);
	t->recs = NULL;
	t->n = t->cap = 0;
}

/* A copy of t (payloads too) into out; 0 or -1 out of memory. */
static int smu_copy(const smu_trace *t, smu_trace *out)
{
	out->n = out->cap = 0;
	out->recs = malloc((t->n ? t->n : 1) * sizeof(*out->recs));
	if (!out->recs)
		return -1;
	out->cap = t->n;
	for (size_t k = 0; k < t->n; k++) {
		out->recs[k] = t->recs[k];
		out->recs[k].payload = malloc(t->recs[k].len ? t->recs[k].len : 1);
		if (!out->recs[k].payload)
			return -1;
		memcpy(out->recs[k].payload, t->recs[k].payload, t->recs[k].len);
		out->n++;
	}
	return 0;
}

static int smu_batch(const char *in, const char *dir, const char *first_s, const char *count_s)
{
	sbt_reader *r = NULL;
	smu_trace t = {NULL, 0, 0};
	unsigned long long first, count;
	sbt_status st;
	int rc = 1;
	if (sscanf(first_s, "%llu", &first) != 1 || sscanf(count_s, "%llu", &count) != 1) {
		fprintf(stderr, "sbt_mutate: --batch IN DIR FIRST COUNT: numbers expected\n");
		return 2;
	}
	if ((st = sbt_reader_open(in, NULL, &r)) != SBT_OK) {
		smu_fail(in, st, r);
		goto out;
	}
	if (smu_load(r, &t) != 0)
		goto out;
	for (unsigned long long k = first; k < first + count; k++) {
		smu_trace m;
		char path[4096], what[128];
		uint64_t seed = k;
		unsigned n = 1 + (unsigned)(smu_rand(&seed) % 4);
		snprintf(path, sizeof(path), "%s/m%llu.sbt", dir, k);
		if (smu_copy(&t, &m) != 0) {
			smu_free(&m);
			smu_fail("copy", SBT_ERR_NOMEM, NULL);
			goto out;
		}
		printf("m%llu.sbt:", k);
		while (n--) {
			if (smu_random(&m, &seed, what, sizeof(what)) != 0) {
				smu_free(&m);
				smu_fail("mutate", SBT_ERR_NOMEM, NULL);
				goto out;
			}
			printf(" %s;", what);
		}
		printf("\n");
		if (smu_write(r, &m, path) != 0) {
			smu_free(&m);
			goto out;
		}
		smu_free(&m);
	}
	rc = 0;
out:
	sbt_reader_close(r);
	smu_free(&t);
	return rc;
}

/* The first record of each Vulkan call, as fuzz_cm_codec inputs. */
static int smu_extract_vk(const char *in, const char *dir)
{
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_status st;
	uint8_t seen[SBT_VK_CMD_COUNT] = {0};
	unsigned written = 0;
	int rc = 1;
	if ((st = sbt_reader_open(in, NULL, &r)) != SBT_OK)
		return smu_fail(in, st, r);
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		enum sbt_vk_cmd cmd;
		char path[4096];
		FILE *f;
		const char *name = sbt_reader_type_name(r, rec.type);
		if (!name || sbt_vk_cmd_by_name(name, &cmd) != 0 || seen[cmd])
			continue;
		seen[cmd] = 1;
		snprintf(path, sizeof(path), "%s/vk_%s", dir, sbt_vk_cmd_name(cmd));
		f = fopen(path, "wb");
		if (!f || fputc(2, f) == EOF || fputc((int)(cmd & 0xff), f) == EOF ||
		    fputc((int)(cmd >> 8), f) == EOF ||
		    fwrite(rec.payload, 1, rec.payload_len, f) != rec.payload_len || fclose(f) != 0) {
			fprintf(stderr, "sbt_mutate: cannot write %s\n", path);
			goto out;
		}
		written++;
	}
	if (st != SBT_END) {
		smu_fail("reading", st, r);
		goto out;
	}
	printf("%u calls\n", written);
	rc = 0;
out:
	sbt_reader_close(r);
	return rc;
}

int main(int argc, char **argv)
{
	sbt_reader *r = NULL;
	smu_trace t = {NULL, 0, 0};
	sbt_status st;
	int rc = 1, i;

	if (argc == 4 && strcmp(argv[1], "--extract-vk") == 0)
		return smu_extract_vk(argv[2], argv[3]);
	if (argc == 6 && strcmp(argv[1], "--batch") == 0)
		return smu_batch(argv[2], argv[3], argv[4], argv[5]);
	if (argc < 5 || (argc - 3) % 2) {
		fprintf(stderr, "usage: sbt_mutate IN OUT OP ARG [OP ARG]... (ops: --seed N[:K], "
		                "--set SEQ:OFF:B, --varint SEQ:I:V, --cut SEQ:LEN, --move SEQ:TO, --drop SEQ, "
		                "--dup SEQ)\n");
		return 2;
	}
	if ((st = sbt_reader_open(argv[1], NULL, &r)) != SBT_OK) {
		smu_fail(argv[1], st, r);
		goto out;
	}
	if (smu_load(r, &t) != 0)
		goto out;
	for (i = 3; i < argc; i += 2)
		if (smu_apply(&t, argv[i], argv[i + 1]) != 0) {
			fprintf(stderr, "sbt_mutate: cannot apply %s %s\n", argv[i], argv[i + 1]);
			goto out;
		}
	rc = smu_write(r, &t, argv[2]);
out:
	sbt_reader_close(r);
	smu_free(&t);
	return rc;
}
