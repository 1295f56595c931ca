/*
 * testapi_backend.c - replays testapi records on host memory (see
 * testapi_backend.h for its test hooks and testapi_core.h for payloads).
 *
 * It recomputes every kernel with the same code the program ran; the trace
 * holds the data the program wrote (blobs) and the hashes of what it read,
 * never the results.
 */
#include "tests/support/testapi_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testapi_core.h"

typedef struct testapi_be {
	testapi_mem mem;
	sbt_reader *trace;   /* borrowed from the core */
	unsigned run;        /* 1 for the first run, +1 per reset */
	int restoring;       /* inside the snapshot records of the keyframe we start at */
	int noise;
	int has_corrupt;
	uint64_t corrupt_seq, corrupt_off;
	FILE *log;
} testapi_be;

static rp_status testapi_be_open(const rp_backend_open_args *args, void **state_out,
                                 rp_diag *diag)
{
	testapi_be *be = calloc(1, sizeof(*be));
	const char *noise = getenv("TESTAPI_DOUBLE_NOISE");
	const char *corrupt = getenv("TESTAPI_DOUBLE_CORRUPT");
	const char *log = getenv("TESTAPI_DOUBLE_REPLAY_LOG");
	rp_status st = RP_OK;

	if (!be) {
		rp_diag_set(diag, "testapi: out of memory");
		return RP_ERR_NOMEM;
	}
	be->trace = args->trace;
	be->run = 1;
	be->noise = noise && strcmp(noise, "1") == 0;
	if (corrupt && *corrupt) {
		char *end = NULL;
		be->corrupt_seq = strtoull(corrupt, &end, 10);
		if (end && *end == ':')
			be->corrupt_off = strtoull(end + 1, &end, 10);
		if (!end || *end || end == corrupt) {
			rp_diag_set(diag, "testapi: TESTAPI_DOUBLE_CORRUPT='%s' is not SEQ[:OFFSET]", corrupt);
			st = RP_ERR_ARG;
			goto out_free;
		}
		be->has_corrupt = 1;
	}
	if (log && *log) {
		be->log = fopen(log, "w");
		if (!be->log) {
			rp_diag_set(diag, "testapi: cannot write replay log %s", log);
			st = RP_ERR_ARG;
			goto out_free;
		}
	}
	*state_out = be;
	return RP_OK;
out_free:
	free(be);
	return st;
}

static void testapi_be_log(testapi_be *be, uint64_t seq, const char *name, const char *mode)
{
	if (be->log)
		fprintf(be->log, "%u %llu %s %s\n", be->run, (unsigned long long)seq, name, mode);
}

/* Fetch the blob a write or snapshot names and check its length. */
static rp_status testapi_be_blob(testapi_be *be, const sbt_record *rec, testapi_op *op,
                                 void **data_out, rp_diag *diag)
{
	uint64_t want = op->type == TESTAPI_TYPE_WRITE ? op->len : op->size;
	void *data = NULL;
	size_t n = 0;
	sbt_status sst;

	*data_out = NULL;
	if (want == 0)
		return RP_OK;
	sst = sbt_reader_blob_get(be->trace, op->blob, &data, &n);
	if (sst != SBT_OK) {
		const char *msg = sbt_reader_message(be->trace);
		rp_diag_set(diag, "record seq %llu (%s): blob %llu: %s%s%s", (unsigned long long)rec->seq,
		            testapi_type_name(op->type), (unsigned long long)op->blob, sbt_strerror(sst),
		            *msg ? ": " : "", msg);
		return RP_ERR_TRACE;
	}
	if (n != want) {
		rp_diag_set(diag, "record seq %llu (%s): blob %llu holds %zu bytes, the call needs %llu",
		            (unsigned long long)rec->seq, testapi_type_name(op->type),
		            (unsigned long long)op->blob, n, (unsigned long long)want);
		free(data);
		return RP_ERR_DECODE;
	}
	op->data = data;
	*data_out = data;
	return RP_OK;
}

static rp_status testapi_be_execute(void *state, const sbt_record *rec, unsigned flags,
                                    rp_diag *diag)
{
	testapi_be *be = state;
	testapi_op op;
	char err[256];
	void *blob = NULL;
	const char *mode = (flags & RP_EXEC_FAST_FORWARD) ? "ff" : "exec";
	rp_status st = RP_OK;

	if (testapi_op_decode(rec->type, rec->payload, rec->payload_len, &op, err, sizeof(err)) != 0) {
		rp_diag_set(diag, "record seq %llu: %s", (unsigned long long)rec->seq, err);
		return testapi_type_name(rec->type) ? RP_ERR_DECODE : RP_ERR_UNSUPPORTED;
	}
	if (op.type == TESTAPI_TYPE_SNAPSHOT && !be->restoring) {
		/* Met mid-replay: the replay's own state stands. */
		testapi_be_log(be, rec->seq, testapi_type_name(op.type), "skip");
		return RP_OK;
	}
	if (op.type != TESTAPI_TYPE_SNAPSHOT)
		be->restoring = 0;
	else
		mode = "restore";
	if (op.type == TESTAPI_TYPE_WRITE || op.type == TESTAPI_TYPE_SNAPSHOT) {
		st = testapi_be_blob(be, rec, &op, &blob, diag);
		if (st != RP_OK)
			return st;
	}
	if (testapi_mem_exec(&be->mem, &op, err, sizeof(err)) != 0) {
		rp_diag_set(diag, "record seq %llu (%s): %s", (unsigned long long)rec->seq,
		            testapi_type_name(op.type), err);
		st = RP_ERR_BACKEND;
		goto out_free;
	}
	if (be->noise && op.type == TESTAPI_TYPE_MIX && op.len)
		be->mem.bufs[op.buf].bytes[op.off] += (uint8_t)be->run;
	if (be->has_corrupt && rec->seq == be->corrupt_seq) {
		uint8_t *p = testapi_mem_range(&be->mem, op.buf, be->corrupt_off, 1, err, sizeof(err));
		if (!p) {
			rp_diag_set(diag, "TESTAPI_DOUBLE_CORRUPT at seq %llu: %s",
			            (unsigned long long)rec->seq, err);
			st = RP_ERR_ARG;
			goto out_free;
		}
		*p ^= 0xff;
	}
	testapi_be_log(be, rec->seq, testapi_type_name(op.type), mode);
out_free:
	free(blob);
	return st;
}

static rp_status testapi_be_checkpoint(void *state, const sbt_checkpoint *expected,
                                       const void **bytes_out, rp_diag *diag)
{
	testapi_be *be = state;
	char err[256];
	const uint8_t *p = testapi_mem_range(&be->mem, expected->object, expected->offset,
	                                     expected->length, err, sizeof(err));
	if (!p) {
		rp_diag_set(diag, "checkpoint of call seq %llu: %s",
		            (unsigned long long)expected->call_seq, err);
		return RP_ERR_NOT_FOUND;
	}
	*bytes_out = p;
	return RP_OK;
}

static rp_status testapi_be_keyframe(void *state, const sbt_record *marker, int restore,
                                     rp_diag *diag)
{
	testapi_be *be = state;
	(void)diag;
	be->restoring = restore;
	testapi_be_log(be, marker->seq, "keyframe", restore ? "restore" : "skip");
	return RP_OK;
}

static rp_status testapi_be_reset(void *state, rp_diag *diag)
{
	testapi_be *be = state;
	(void)diag;
	testapi_mem_clear(&be->mem);
	be->restoring = 0;
	be->run++;
	return RP_OK;
}

static void testapi_be_close(void *state)
{
	testapi_be *be = state;
	if (!be)
		return;
	testapi_mem_clear(&be->mem);
	if (be->log)
		fclose(be->log);
	free(be);
}

const rp_backend_ops testapi_backend_ops = {
	.name = "testapi-double",
	.api = "testapi",
	.open = testapi_be_open,
	.execute = testapi_be_execute,
	.checkpoint = testapi_be_checkpoint,
	.keyframe = testapi_be_keyframe,
	.reset = testapi_be_reset,
	.close = testapi_be_close,
};
