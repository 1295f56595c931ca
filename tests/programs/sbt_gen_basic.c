/*
 * sbt_gen_basic - writes a small, fully known trace straight through
 * sbt_writer (no capture runtime) so that tsinfo's tests can compare what
 * tsinfo reports with what was written.  On stdout it prints a manifest of
 * what it wrote, one fact per line:
 *   records N / first_seq N / last_seq N / frames N / keyframes N /
 *   stacks N / type NAME COUNT / thread TID NAME COUNT / meta KEY VALUE
 *
 * usage: sbt_gen_basic [--records N] [--threads N] [--frames N]
 *                      [--chunk-bytes N] [--blob-bytes N] [--no-close] OUT
 * --no-close flushes and exits without the index and trailer, as a killed
 * capture would leave the file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracesmith/sbt.h"

#define GEN_NTYPES 3
#define GEN_MAX_THREADS 16

typedef struct gen_opts {
	uint64_t records;
	unsigned threads;
	uint64_t frames;
	uint32_t chunk_bytes;
	size_t blob_bytes;
	int no_close;
	const char *out;
} gen_opts;

typedef struct gen_state {
	sbt_writer *w;
	uint64_t seq;
	uint64_t n_records;
	uint64_t core_counts[SBT_TYPE_FIRST_API];
	uint64_t type_counts[GEN_NTYPES];
	uint64_t thread_counts[GEN_MAX_THREADS];
} gen_state;

static const char *const gen_type_names[GEN_NTYPES] = { "fake.alpha", "fake.beta",
	                                                    "other.gamma" };
static const char *const gen_core_names[SBT_TYPE_FIRST_API] = {
	[SBT_TYPE_FRAME] = "FRAME",       [SBT_TYPE_CHECKPOINT] = "CHECKPOINT",
	[SBT_TYPE_KEYFRAME] = "KEYFRAME", [SBT_TYPE_THREAD] = "THREAD",
	[SBT_TYPE_NOTE] = "NOTE",         [SBT_TYPE_UNMODELED] = "UNMODELED",
};

static int gen_fail(const char *what, sbt_status st)
{
	fprintf(stderr, "sbt_gen_basic: %s: %s\n", what, sbt_strerror(st));
	return 1;
}

static uint64_t gen_tid(unsigned t)
{
	return 1000 + t;
}

/* Appends one record as thread t, counting it for the manifest. */
static sbt_status gen_append(gen_state *g, unsigned t, uint32_t type, uint32_t stack,
                             const void *payload, size_t len)
{
	sbt_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = type;
	rec.stack_id = stack;
	rec.seq = ++g->seq;
	rec.time_ns = 1000 * rec.seq + 7;
	rec.thread = gen_tid(t);
	rec.payload = payload;
	rec.payload_len = len;
	g->n_records++;
	g->thread_counts[t]++;
	if (type < SBT_TYPE_FIRST_API)
		g->core_counts[type]++;
	else
		g->type_counts[type - SBT_TYPE_FIRST_API]++;
	return sbt_writer_append(g->w, &rec);
}

static sbt_status gen_varint_record(gen_state *g, unsigned t, uint32_t type, uint64_t v)
{
	uint8_t buf[10];
	return gen_append(g, t, type, 0, buf, sbt_varint_put(buf, v));
}

static int gen_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (!*s || *end)
		return -1;
	*v = x;
	return 0;
}

static int gen_args(int argc, char **argv, gen_opts *o)
{
	int i;

	o->records = 1000;
	o->threads = 3;
	o->frames = 10;
	o->chunk_bytes = 0;
	o->blob_bytes = 200000;
	o->no_close = 0;
	o->out = NULL;
	for (i = 1; i < argc; i++) {
		uint64_t v = 0;
		const char *a = argv[i];
		int takes = strcmp(a, "--records") == 0 || strcmp(a, "--threads") == 0 ||
		            strcmp(a, "--frames") == 0 || strcmp(a, "--chunk-bytes") == 0 ||
		            strcmp(a, "--blob-bytes") == 0;
		if (takes) {
			if (i + 1 >= argc || gen_parse_u64(argv[i + 1], &v) != 0) {
				fprintf(stderr, "sbt_gen_basic: %s needs a number\n", a);
				return -1;
			}
			i++;
		}
		if (strcmp(a, "--records") == 0)
			o->records = v;
		else if (strcmp(a, "--threads") == 0)
			o->threads = (unsigned)v;
		else if (strcmp(a, "--frames") == 0)
			o->frames = v;
		else if (strcmp(a, "--chunk-bytes") == 0)
			o->chunk_bytes = (uint32_t)v;
		else if (strcmp(a, "--blob-bytes") == 0)
			o->blob_bytes = (size_t)v;
		else if (strcmp(a, "--no-close") == 0)
			o->no_close = 1;
		else if (a[0] == '-' || o->out) {
			fprintf(stderr, "sbt_gen_basic: unexpected argument '%s'\n", a);
			return -1;
		} else
			o->out = a;
	}
	if (!o->out || o->threads == 0 || o->threads > GEN_MAX_THREADS || o->frames == 0) {
		fprintf(stderr, "usage: sbt_gen_basic [--records N] [--threads 1..16] "
		                "[--frames N>0] [--chunk-bytes N] [--blob-bytes N] [--no-close] OUT\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	gen_opts o;
	gen_state g;
	sbt_writer_options wo;
	sbt_status st;
	uint32_t stack_ids[2] = { 0, 0 };
	uint32_t call_id;
	uint8_t *blob = NULL;
	uint64_t i, frame = 0, keyframes = 0, per_frame;
	unsigned t;
	static const char note[] = "generated \"trace\"\twith\nescapes";

	if (gen_args(argc, argv, &o) != 0)
		return 2;
	memset(&g, 0, sizeof(g));
	memset(&wo, 0, sizeof(wo));
	wo.chunk_target_bytes = o.chunk_bytes;
	st = sbt_writer_open(o.out, &wo, &g.w);
	if (st != SBT_OK)
		return gen_fail(o.out, st);

	for (i = 0; i < GEN_NTYPES; i++) {
		st = sbt_writer_define_type(g.w, (uint32_t)(SBT_TYPE_FIRST_API + i), gen_type_names[i]);
		if (st != SBT_OK)
			return gen_fail("define_type", st);
	}
	if ((st = sbt_writer_set_meta(g.w, "api", "fake,other")) != SBT_OK ||
	    (st = sbt_writer_set_meta(g.w, "capture.stalls", "0")) != SBT_OK ||
	    (st = sbt_writer_set_meta(g.w, "generator", "sbt_gen_basic")) != SBT_OK)
		return gen_fail("set_meta", st);

	/* Two stacks with symbols, one without. */
	{
		uint32_t s1, s2;
		sbt_frame f[3];
		if ((st = sbt_writer_intern(g.w, "libfake.so!fake_submit+0x1c", &s1)) != SBT_OK ||
		    (st = sbt_writer_intern(g.w, "app!main+0x40", &s2)) != SBT_OK)
			return gen_fail("intern", st);
		f[0].ip = 0x7f0000001000;
		f[0].symbol_id = s1;
		f[1].ip = 0x400040;
		f[1].symbol_id = s2;
		f[2].ip = 0x400000;
		f[2].symbol_id = 0;
		if ((st = sbt_writer_put_stack(g.w, 111, f, 3, &stack_ids[0])) != SBT_OK ||
		    (st = sbt_writer_put_stack(g.w, 222, f + 1, 2, &stack_ids[1])) != SBT_OK)
			return gen_fail("put_stack", st);
	}

	for (t = 0; t < o.threads; t++) {
		char name[32];
		uint32_t id;
		snprintf(name, sizeof(name), "worker-%u", t);
		if ((st = sbt_writer_intern(g.w, name, &id)) != SBT_OK ||
		    (st = gen_varint_record(&g, t, SBT_TYPE_THREAD, id)) != SBT_OK)
			return gen_fail("thread record", st);
	}
	if ((st = gen_append(&g, 0, SBT_TYPE_NOTE, 0, note, sizeof(note) - 1)) != SBT_OK)
		return gen_fail("note", st);
	if ((st = sbt_writer_intern(g.w, "fakeUnmodeledCall", &call_id)) != SBT_OK ||
	    (st = gen_varint_record(&g, 0, SBT_TYPE_UNMODELED, call_id)) != SBT_OK)
		return gen_fail("unmodeled", st);

	/* A keyframe at the start, as capture writes one. */
	if ((st = gen_append(&g, 0, SBT_TYPE_KEYFRAME, 0, "kf", 2)) != SBT_OK)
		return gen_fail("keyframe", st);
	keyframes++;

	/* Blobs: the same bytes twice (the second costs only a manifest). */
	if (o.blob_bytes) {
		uint64_t x = 0x9e3779b97f4a7c15ull;
		size_t k;
		blob = malloc(o.blob_bytes);
		if (!blob)
			return gen_fail("malloc", SBT_ERR_NOMEM);
		for (k = 0; k < o.blob_bytes; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			blob[k] = (uint8_t)x;
		}
		if ((st = sbt_writer_put_blob(g.w, 1, blob, o.blob_bytes, NULL)) != SBT_OK ||
		    (st = sbt_writer_put_blob(g.w, 2, blob, o.blob_bytes, NULL)) != SBT_OK)
			return gen_fail("put_blob", st);
	}

	per_frame = o.records / o.frames;
	if (per_frame == 0)
		per_frame = 1;
	for (i = 0; i < o.records; i++) {
		uint8_t payload[64];
		size_t len = (size_t)(i % 40);
		unsigned typ = (unsigned)(i % GEN_NTYPES);
		uint32_t stack = (i % 10 == 0) ? stack_ids[(i / 10) % 2] : 0;
		size_t k;
		for (k = 0; k < len; k++)
			payload[k] = (uint8_t)(i + k);
		st = gen_append(&g, (unsigned)(i % o.threads), SBT_TYPE_FIRST_API + typ, stack,
		                payload, len);
		if (st != SBT_OK)
			return gen_fail("append", st);
		if ((i + 1) % per_frame == 0 && frame < o.frames) {
			sbt_checkpoint cp;
			uint8_t *enc;
			size_t enc_len;
			uint64_t call = g.seq;
			if ((st = sbt_checkpoint_compute(payload, len, &cp)) != SBT_OK)
				return gen_fail("checkpoint", st);
			cp.call_seq = call;
			cp.object = 0xabc0 + frame;
			cp.offset = 0;
			st = sbt_checkpoint_encode(&cp, &enc, &enc_len);
			sbt_checkpoint_free(&cp);
			if (st != SBT_OK)
				return gen_fail("checkpoint encode", st);
			st = gen_append(&g, 0, SBT_TYPE_CHECKPOINT, 0, enc, enc_len);
			free(enc);
			if (st != SBT_OK)
				return gen_fail("checkpoint append", st);
			if ((st = gen_varint_record(&g, 0, SBT_TYPE_FRAME, ++frame)) != SBT_OK)
				return gen_fail("frame", st);
		}
	}
	free(blob);

	printf("records %llu\n", (unsigned long long)g.n_records);
	printf("first_seq 1\nlast_seq %llu\n", (unsigned long long)g.seq);
	printf("frames %llu\nkeyframes %llu\nstacks 2\n", (unsigned long long)frame,
	       (unsigned long long)keyframes);
	for (i = 0; i < SBT_TYPE_FIRST_API; i++)
		if (g.core_counts[i])
			printf("type %s %llu\n", gen_core_names[i], (unsigned long long)g.core_counts[i]);
	for (i = 0; i < GEN_NTYPES; i++)
		if (g.type_counts[i])
			printf("type %s %llu\n", gen_type_names[i], (unsigned long long)g.type_counts[i]);
	for (t = 0; t < o.threads; t++)
		printf("thread %llu worker-%u %llu\n", (unsigned long long)gen_tid(t), t,
		       (unsigned long long)g.thread_counts[t]);
	printf("meta capture.stalls 0\n");
	fflush(stdout);

	if (o.no_close) {
		st = sbt_writer_flush(g.w);
		if (st != SBT_OK)
			return gen_fail("flush", st);
		_exit(0); /* leave the file as a killed capture would */
	}
	st = sbt_writer_close(g.w);
	if (st != SBT_OK)
		return gen_fail("close", st);
	return 0;
}
