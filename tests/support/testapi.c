/*
 * testapi.c - the program side of the testapi TEST DOUBLE (see testapi.h):
 * runs each call on host memory and records it through the capture
 * runtime.
 *
 * Keyframes follow the runtime's snapshot policy (TRACESMITH_SNAPSHOT):
 * one at the first call (capture start: no buffers yet), and with
 * "launch" before and after every kernel, with N after every N kernels.
 * A keyframe is the SBT_TYPE_KEYFRAME marker followed by one
 * testapi.snapshot record per live buffer.
 *
 * TESTAPI_DOUBLE_CAPTURE_LOG=path writes "seq name" for every record this
 * front-end makes, so tests can check a replay against what was captured
 * without parsing the trace.  TESTAPI_DOUBLE_KEYFRAMES=0 writes no keyframe
 * at all (a trace a replay can only fast-forward through).
 */
#include "tests/support/testapi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cap.h"
#include "tests/support/testapi_core.h"

/* The front-end's one state struct.  lock serializes every call, so
 * sequence numbers follow execution order; init runs once under once. */
static struct testapi_fe {
	pthread_once_t once;
	pthread_mutex_t lock;
	testapi_mem mem;     /* the "device" */
	uint64_t next_id;    /* next buffer id */
	uint64_t kernels;    /* kernels launched so far */
	int started;         /* the capture-start keyframe is written */
	int no_keyframes;    /* TESTAPI_DOUBLE_KEYFRAMES=0 */
	FILE *log;           /* TESTAPI_DOUBLE_CAPTURE_LOG, or NULL */
	char err[256];
} testapi_fe = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, {NULL, 0, 0}, 1, 0, 0, 0, NULL, ""};

static void testapi_fe_init(void)
{
	static const cap_type_desc testapi_fe_types[TESTAPI_TYPE_COUNT] = {
		{TESTAPI_TYPE_ALLOC, "testapi.alloc"}, {TESTAPI_TYPE_WRITE, "testapi.write"},
		{TESTAPI_TYPE_FILL, "testapi.fill"},   {TESTAPI_TYPE_ADD, "testapi.add"},
		{TESTAPI_TYPE_SCALE, "testapi.scale"}, {TESTAPI_TYPE_MIX, "testapi.mix"},
		{TESTAPI_TYPE_READ, "testapi.read"},   {TESTAPI_TYPE_FREE, "testapi.free"},
		{TESTAPI_TYPE_SNAPSHOT, "testapi.snapshot"},
	};
	const char *log = getenv("TESTAPI_DOUBLE_CAPTURE_LOG");
	const char *kf = getenv("TESTAPI_DOUBLE_KEYFRAMES");
	testapi_fe.no_keyframes = kf && strcmp(kf, "0") == 0;
	cap_register_api("testapi", testapi_fe_types, TESTAPI_TYPE_COUNT);
	if (log && *log) {
		testapi_fe.log = fopen(log, "w");
		if (!testapi_fe.log)
			fprintf(stderr, "testapi: cannot write capture log %s\n", log);
	}
}

static void testapi_fe_log(uint64_t seq, const char *name)
{
	if (testapi_fe.log && seq) {
		fprintf(testapi_fe.log, "%llu %s\n", (unsigned long long)seq, name);
		fflush(testapi_fe.log);
	}
}

/* Record op (its blob already stored); returns the seq. */
static uint64_t testapi_fe_record(const testapi_op *op)
{
	uint8_t payload[TESTAPI_PAYLOAD_MAX];
	size_t n = testapi_op_encode(op, payload);
	uint64_t seq = cap_record(op->type, CAP_REC_WORK, payload, n);
	testapi_fe_log(seq, testapi_type_name(op->type));
	return seq;
}

static void testapi_fe_keyframe(void)
{
	uint8_t payload[10];
	uint64_t id;
	uint64_t seq;
	if (testapi_fe.no_keyframes || !cap_active())
		return;
	seq = cap_keyframe_begin(payload, sbt_varint_put(payload, testapi_fe.mem.live));
	testapi_fe_log(seq, "keyframe");
	for (id = 1; id < testapi_fe.mem.cap; id++) {
		testapi_buffer *b = &testapi_fe.mem.bufs[id];
		testapi_op op = {0};
		if (!b->bytes)
			continue;
		op.type = TESTAPI_TYPE_SNAPSHOT;
		op.buf = id;
		op.size = b->size;
		op.blob = cap_blob(b->bytes, (size_t)b->size);
		testapi_fe_record(&op);
	}
}

/* Lock, start, and give the keyframe policy a say before a kernel. */
static void testapi_fe_enter(void)
{
	pthread_once(&testapi_fe.once, testapi_fe_init);
	pthread_mutex_lock(&testapi_fe.lock);
	if (!testapi_fe.started) {
		testapi_fe.started = 1;
		testapi_fe_keyframe();
	}
}

static void testapi_fe_leave(void)
{
	pthread_mutex_unlock(&testapi_fe.lock);
}

/* Execute and record op; for writes, data is the host bytes. */
static int testapi_fe_call(testapi_op *op)
{
	const cap_config *cfg = cap_config_get();
	int kernel = testapi_type_is_kernel(op->type);
	int rc = -1;

	testapi_fe_enter();
	if (kernel && cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		testapi_fe_keyframe();
	if (testapi_mem_exec(&testapi_fe.mem, op, testapi_fe.err, sizeof(testapi_fe.err)) != 0)
		goto out_unlock;
	if (op->type == TESTAPI_TYPE_WRITE)
		op->blob = cap_blob(op->data, (size_t)op->len);
	testapi_fe_record(op);
	if (kernel) {
		testapi_fe.kernels++;
		if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH ||
		    (cfg->snapshot == CAP_SNAPSHOT_EVERY && cfg->snapshot_every &&
		     testapi_fe.kernels % cfg->snapshot_every == 0))
			testapi_fe_keyframe();
	}
	rc = 0;
out_unlock:
	testapi_fe_leave();
	return rc;
}

uint64_t testapi_alloc(uint64_t size)
{
	testapi_op op = {0};
	uint64_t id;
	testapi_fe_enter();
	id = testapi_fe.next_id;
	op.type = TESTAPI_TYPE_ALLOC;
	op.buf = id;
	op.size = size;
	if (testapi_mem_exec(&testapi_fe.mem, &op, testapi_fe.err, sizeof(testapi_fe.err)) != 0) {
		id = 0;
		goto out_unlock;
	}
	testapi_fe.next_id++;
	testapi_fe_record(&op);
out_unlock:
	testapi_fe_leave();
	return id;
}

int testapi_write(uint64_t buf, uint64_t off, const void *data, uint64_t len)
{
	testapi_op op = {0};
	op.type = TESTAPI_TYPE_WRITE;
	op.buf = buf;
	op.off = off;
	op.len = len;
	op.data = data;
	return testapi_fe_call(&op);
}

int testapi_kernel_fill(uint64_t buf, uint64_t off, uint64_t len, uint32_t value)
{
	testapi_op op = {0};
	op.type = TESTAPI_TYPE_FILL;
	op.buf = buf;
	op.off = off;
	op.len = len;
	op.value = value;
	return testapi_fe_call(&op);
}

int testapi_kernel_add(uint64_t dst, uint64_t a, uint64_t b, uint64_t len)
{
	testapi_op op = {0};
	op.type = TESTAPI_TYPE_ADD;
	op.buf = dst;
	op.a = a;
	op.b = b;
	op.len = len;
	return testapi_fe_call(&op);
}

int testapi_kernel_scale(uint64_t buf, uint64_t off, uint64_t len, uint32_t factor)
{
	testapi_op op = {0};
	op.type = TESTAPI_TYPE_SCALE;
	op.buf = buf;
	op.off = off;
	op.len = len;
	op.value = factor;
	return testapi_fe_call(&op);
}

int testapi_kernel_mix(uint64_t buf, uint64_t off, uint64_t len, uint64_t seed)
{
	testapi_op op = {0};
	op.type = TESTAPI_TYPE_MIX;
	op.buf = buf;
	op.off = off;
	op.len = len;
	op.value = seed;
	return testapi_fe_call(&op);
}

int testapi_read(uint64_t buf, uint64_t off, void *out, uint64_t len)
{
	testapi_op op = {0};
	const uint8_t *src;
	uint64_t seq;
	int rc = -1;

	testapi_fe_enter();
	op.type = TESTAPI_TYPE_READ;
	op.buf = buf;
	op.off = off;
	op.len = len;
	src = testapi_mem_range(&testapi_fe.mem, buf, off, len, testapi_fe.err,
	                        sizeof(testapi_fe.err));
	if (!src)
		goto out_unlock;
	memcpy(out, src, (size_t)len);
	seq = testapi_fe_record(&op);
	if (seq)
		testapi_fe_log(cap_checkpoint(seq, buf, off, out, len), "checkpoint");
	rc = 0;
out_unlock:
	testapi_fe_leave();
	return rc;
}

int testapi_free(uint64_t buf)
{
	testapi_op op = {0};
	op.type = TESTAPI_TYPE_FREE;
	op.buf = buf;
	return testapi_fe_call(&op);
}

const char *testapi_last_error(void)
{
	return testapi_fe.err;
}
