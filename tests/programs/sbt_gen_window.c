/*
 * sbt_gen_window - writes a trimmed testapi trace (one capture window of a
 * run, docs/capture.md "Triggers") straight through sbt_writer, as the
 * capture runtime will once it writes windows: an SBT_TYPE_WINDOW record,
 * a state snapshot (the buffer allocated and its contents written), an
 * SBT_TYPE_SNAPSHOT_END record, then FRAMES frames numbered from FIRST as
 * in the run, each a kernel, a read with its checkpoint and a FRAME record.
 * tsreplay_test replays it; tsinfo and tsreplay tests compare what they
 * say with the manifest printed on stdout:
 *   records N / snapshot_records N / snapshot_first_seq N / snapshot_last_seq N /
 *   frames N / first_frame N / last_frame N / checkpoints N
 *
 * usage: sbt_gen_window [--first-frame F] [--frames N] [--index K]
 *                       [--trigger TEXT] [--no-window] [--no-snapshot-end]
 *                       [--presents] [--cut] OUT
 * --no-window writes a whole-run trace instead (no WINDOW, no snapshot).
 * --no-snapshot-end ends the trace inside its snapshot.
 * --presents puts a record of a type named vulkan.vkQueuePresentKHR (empty
 * payload: for tsinfo, not replay) before each FRAME record, the order the
 * Vulkan layer records them in; --cut then leaves the last FRAME record
 * out, as a trace cut inside the last present looks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testapi_core.h"
#include "tracesmith/sbt.h"

#define GEN_BUF 1u       /* the one buffer's id */
#define GEN_SIZE 256u    /* its size */
#define GEN_THREAD 4242u
#define GEN_PRESENT_TYPE 200u

typedef struct gen_opts {
	uint64_t first_frame, frames, index;
	const char *trigger;
	int no_window, no_snapshot_end, presents, cut;
	const char *out;
} gen_opts;

typedef struct gen_state {
	sbt_writer *w;
	testapi_mem mem; /* what the program's buffer holds, to checkpoint */
	uint64_t seq, records;
} gen_state;

static int gen_fail(const char *what, sbt_status st)
{
	fprintf(stderr, "sbt_gen_window: %s: %s\n", what, sbt_strerror(st));
	return 1;
}

static sbt_status gen_append(gen_state *g, uint32_t type, const void *payload, size_t len)
{
	sbt_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.type = type;
	rec.seq = ++g->seq;
	rec.time_ns = g->seq * 1000;
	rec.thread = GEN_THREAD;
	rec.payload = payload;
	rec.payload_len = len;
	g->records++;
	return sbt_writer_append(g->w, &rec);
}

/* One testapi call: recorded and run on the local copy of the buffer. */
static sbt_status gen_op(gen_state *g, const testapi_op *op)
{
	uint8_t payload[TESTAPI_PAYLOAD_MAX];
	char err[256];
	if (testapi_mem_exec(&g->mem, op, err, sizeof(err)) != 0) {
		fprintf(stderr, "sbt_gen_window: %s\n", err);
		return SBT_ERR_ARG;
	}
	return gen_append(g, op->type, payload, testapi_op_encode(op, payload));
}

/* A read of the whole buffer and the checkpoint of what it saw. */
static sbt_status gen_read(gen_state *g)
{
	testapi_op op = {.type = TESTAPI_TYPE_READ, .buf = GEN_BUF, .len = GEN_SIZE};
	sbt_checkpoint cp;
	uint8_t *buf = NULL;
	size_t len = 0;
	char err[256];
	sbt_status st = gen_op(g, &op);
	if (st != SBT_OK)
		return st;
	memset(&cp, 0, sizeof(cp));
	st = sbt_checkpoint_compute(testapi_mem_range(&g->mem, GEN_BUF, 0, GEN_SIZE, err, sizeof(err)),
	                            GEN_SIZE, &cp);
	if (st != SBT_OK)
		return st;
	cp.call_seq = g->seq;
	cp.object = GEN_BUF;
	cp.offset = 0;
	st = sbt_checkpoint_encode(&cp, &buf, &len);
	if (st == SBT_OK)
		st = gen_append(g, SBT_TYPE_CHECKPOINT, buf, len);
	free(buf);
	sbt_checkpoint_free(&cp);
	return st;
}

static int gen_number(const char *s, uint64_t min, uint64_t *out)
{
	char *end = NULL;
	unsigned long long v = strtoull(s, &end, 10);
	if (!*s || *end || v < min)
		return -1;
	*out = v;
	return 0;
}

static int gen_parse(int argc, char **argv, gen_opts *o)
{
	int i;
	memset(o, 0, sizeof(*o));
	o->first_frame = 100;
	o->frames = 11;
	o->index = 1;
	o->trigger = "frames 100-110";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--first-frame") == 0 && i + 1 < argc) {
			if (gen_number(argv[++i], 1, &o->first_frame) != 0)
				return -1;
		} else if (strcmp(a, "--frames") == 0 && i + 1 < argc) {
			if (gen_number(argv[++i], 0, &o->frames) != 0)
				return -1;
		} else if (strcmp(a, "--index") == 0 && i + 1 < argc) {
			if (gen_number(argv[++i], 1, &o->index) != 0)
				return -1;
		} else if (strcmp(a, "--trigger") == 0 && i + 1 < argc) {
			o->trigger = argv[++i];
		} else if (strcmp(a, "--no-window") == 0) {
			o->no_window = 1;
		} else if (strcmp(a, "--no-snapshot-end") == 0) {
			o->no_snapshot_end = 1;
		} else if (strcmp(a, "--presents") == 0) {
			o->presents = 1;
		} else if (strcmp(a, "--cut") == 0) {
			o->cut = 1;
		} else if (a[0] != '-' && !o->out) {
			o->out = a;
		} else {
			return -1;
		}
	}
	return o->out ? 0 : -1;
}

int main(int argc, char **argv)
{
	gen_opts o;
	gen_state g;
	sbt_status st;
	uint64_t f, snap_first = 0, snap_last = 0, checkpoints = 0, frames = 0;
	uint8_t init[GEN_SIZE];
	uint32_t t;
	int rc = 1;

	if (gen_parse(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: sbt_gen_window [--first-frame F] [--frames N] [--index K] "
		                "[--trigger TEXT] [--no-window] [--no-snapshot-end] [--presents] "
		                "[--cut] OUT\n");
		return 2;
	}
	if (o.no_window)
		o.first_frame = 1; /* a whole run numbers its frames from 1 */
	memset(&g, 0, sizeof(g));
	if ((st = sbt_writer_open(o.out, NULL, &g.w)) != SBT_OK)
		return gen_fail(o.out, st);
	for (t = TESTAPI_TYPE_ALLOC; t < TESTAPI_TYPE_END; t++)
		if ((st = sbt_writer_define_type(g.w, t, testapi_type_name(t))) != SBT_OK)
			goto out_fail;
	if (o.presents &&
	    (st = sbt_writer_define_type(g.w, GEN_PRESENT_TYPE, "vulkan.vkQueuePresentKHR")) != SBT_OK)
		goto out_fail;
	if ((st = sbt_writer_set_meta(g.w, "api", "testapi")) != SBT_OK ||
	    (st = sbt_writer_set_meta(g.w, "generator", "sbt_gen_window")) != SBT_OK)
		goto out_fail;

	if (!o.no_window) {
		sbt_window w;
		uint8_t payload[SBT_WINDOW_MAX];
		memset(&w, 0, sizeof(w));
		w.index = o.index;
		w.first_frame = o.first_frame;
		w.first_submit = 7 * o.first_frame;
		w.first_launch = 1;
		snprintf(w.trigger, sizeof(w.trigger), "%s", o.trigger);
		if ((st = gen_append(&g, SBT_TYPE_WINDOW, payload, sbt_window_encode(&w, payload))) !=
		    SBT_OK)
			goto out_fail;
		snap_first = g.seq + 1;
	}
	/* The state snapshot (or, without a window, the run's own setup). */
	{
		testapi_op alloc = {.type = TESTAPI_TYPE_ALLOC, .buf = GEN_BUF, .size = GEN_SIZE};
		testapi_op write = {.type = TESTAPI_TYPE_WRITE, .buf = GEN_BUF, .len = GEN_SIZE};
		size_t i;
		for (i = 0; i < sizeof(init); i++)
			init[i] = (uint8_t)(i * 7 + o.first_frame);
		write.data = init;
		if ((st = sbt_writer_put_blob(g.w, 0, init, sizeof(init), &write.blob)) != SBT_OK ||
		    (st = gen_op(&g, &alloc)) != SBT_OK || (st = gen_op(&g, &write)) != SBT_OK)
			goto out_fail;
		snap_last = g.seq;
	}
	if (!o.no_window) {
		if (o.no_snapshot_end)
			goto out_close;
		if ((st = gen_append(&g, SBT_TYPE_SNAPSHOT_END, NULL, 0)) != SBT_OK)
			goto out_fail;
	}
	for (f = o.first_frame; f < o.first_frame + o.frames; f++) {
		testapi_op mix = {.type = TESTAPI_TYPE_MIX, .buf = GEN_BUF, .len = GEN_SIZE,
		                  .value = 0x9e3779b97f4a7c15ull * f};
		uint8_t fp[10];
		if ((st = gen_op(&g, &mix)) != SBT_OK || (st = gen_read(&g)) != SBT_OK)
			goto out_fail;
		checkpoints++;
		if (o.presents && (st = gen_append(&g, GEN_PRESENT_TYPE, NULL, 0)) != SBT_OK)
			goto out_fail;
		frames++;
		if (o.cut && f + 1 == o.first_frame + o.frames)
			break; /* the trace ends inside the last present */
		if ((st = gen_append(&g, SBT_TYPE_FRAME, fp, sbt_varint_put(fp, f))) != SBT_OK)
			goto out_fail;
	}
out_close:
	st = sbt_writer_close(g.w);
	g.w = NULL;
	if (st != SBT_OK)
		goto out_fail;
	printf("records %llu\n", (unsigned long long)g.records);
	if (!o.no_window) {
		printf("snapshot_records %llu\n", (unsigned long long)(snap_last - snap_first + 1));
		printf("snapshot_first_seq %llu\n", (unsigned long long)snap_first);
		printf("snapshot_last_seq %llu\n", (unsigned long long)snap_last);
	}
	printf("frames %llu\n", (unsigned long long)frames);
	printf("first_frame %llu\n", (unsigned long long)o.first_frame);
	printf("last_frame %llu\n", (unsigned long long)(o.first_frame + frames - 1));
	printf("checkpoints %llu\n", (unsigned long long)checkpoints);
	rc = 0;
	goto out;
out_fail:
	gen_fail("writing the trace", st);
	sbt_writer_close(g.w);
out:
	testapi_mem_clear(&g.mem);
	return rc;
}
