/*
 * The recording API end to end in one process: type names and the "api"
 * meta, start metadata, frames, checkpoints, keyframes, blobs, the
 * zero-copy begin/commit form, cap_flush (the records are on disk before
 * close), the reentrancy guard, and recording refused after shutdown.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/cap.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

static int rec_shutdown_calls;
static void rec_on_shutdown(void)
{
	/* Runs before the trace is closed: what it records is kept. */
	rec_shutdown_calls++;
	cap_record(65, 0, "bye", 3);
}

int main(void)
{
	static const cap_type_desc types_a[] = {{64, "alpha.call"}, {65, "alpha.other"}};
	static const cap_type_desc types_b[] = {{70, "beta.call"}};
	const char *path = tst_path("rec.sbt");
	uint8_t data[1000];
	uint64_t s_call, s_cp, s_frame, s_key, s_zc, blob;
	cap_rec *rec = NULL;
	uint8_t *p;
	sbt_reader *r = NULL;
	sbt_trace_info info;
	sbt_record out;
	sbt_checkpoint cp, want;
	char pidbuf[32];
	const uint64_t *kf;
	size_t nkf;
	uint64_t frame_seq;
	unsigned char *file;
	size_t file_len = 0;

	setenv("TRACESMITH_OUTPUT", path, 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);

	/* Naming types and setting meta do not start the runtime. */
	cap_register_api("alpha", types_a, 2);
	cap_register_api("beta", types_b, 1);
	cap_register_api("alpha", types_a, 2); /* idempotent */
	cap_set_meta("test.key", "first");
	cap_set_meta("test.key", "second");
	cap_on_shutdown(rec_on_shutdown);
	TST_CHECK(cap_output_path() == NULL);

	TST_CHECK(cap_enter() == 0);
	TST_CHECK(cap_enter() == 1);
	cap_leave();
	cap_leave();
	TST_CHECK(cap_enter() == 0);
	cap_leave();

	TST_CHECK(cap_active() == 1);
	TST_REQUIRE(cap_output_path() && strcmp(cap_output_path(), path) == 0);
	s_call = cap_record(64, CAP_REC_WORK, "hello", 5);
	TST_CHECK_EQ_U64(s_call, 1);
	s_cp = cap_checkpoint(s_call, 42, 16, data, sizeof(data));
	TST_CHECK_EQ_U64(s_cp, 2);
	s_frame = cap_frame_end(1);
	TST_CHECK_EQ_U64(s_frame, 3);
	s_key = cap_keyframe_begin("kf", 2);
	TST_CHECK_EQ_U64(s_key, 4);
	blob = cap_blob(data, sizeof(data));
	TST_CHECK(blob != 0);
	p = cap_record_begin(70, 0, 64, &rec);
	TST_REQUIRE(p != NULL && rec != NULL);
	memcpy(p, &blob, sizeof(blob));
	s_zc = cap_record_commit(rec, sizeof(blob));
	TST_CHECK_EQ_U64(s_zc, 5);

	/* After cap_flush the records are in the file, trace still open. */
	cap_flush();
	file = tst_read_file(path, &file_len);
	TST_REQUIRE(file != NULL);
	free(file);
	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.record_count, 5);
	TST_CHECK(info.has_index == 0);
	sbt_reader_close(r);
	r = NULL;

	cap_shutdown();
	TST_CHECK(rec_shutdown_calls == 1);
	TST_CHECK(cap_active() == 0);
	TST_CHECK(cap_record(64, 0, "late", 4) == 0);
	TST_CHECK(cap_blob(data, 10) == 0);

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.record_count, 6);
	TST_CHECK(info.has_index == 1);
	TST_CHECK_EQ_U64(info.frame_count, 1);
	TST_CHECK_EQ_U64(info.keyframe_count, 1);
	TST_CHECK_EQ_U64(info.first_seq, 1);
	TST_CHECK_EQ_U64(info.last_seq, 6);

	/* Names and metadata. */
	TST_CHECK(strcmp(sbt_reader_type_name(r, 64), "alpha.call") == 0);
	TST_CHECK(strcmp(sbt_reader_type_name(r, 65), "alpha.other") == 0);
	TST_CHECK(strcmp(sbt_reader_type_name(r, 70), "beta.call") == 0);
	TST_CHECK(sbt_reader_meta(r, "api") && strcmp(sbt_reader_meta(r, "api"), "alpha,beta") == 0);
	TST_CHECK(sbt_reader_meta(r, "test.key") &&
	          strcmp(sbt_reader_meta(r, "test.key"), "second") == 0);
	snprintf(pidbuf, sizeof(pidbuf), "%ld", (long)getpid());
	TST_CHECK(sbt_reader_meta(r, "pid") && strcmp(sbt_reader_meta(r, "pid"), pidbuf) == 0);
	TST_CHECK(sbt_reader_meta(r, "argv") &&
	          strstr(sbt_reader_meta(r, "argv"), "test_cap_records") != NULL);
	TST_CHECK(sbt_reader_meta(r, "hostname") && sbt_reader_meta(r, "hostname")[0]);
	TST_CHECK(sbt_reader_meta(r, "tracesmith.version") != NULL);
	TST_CHECK(sbt_reader_meta(r, "start_time") != NULL);
	TST_CHECK(sbt_reader_meta(r, "capture.stalls") &&
	          strcmp(sbt_reader_meta(r, "capture.stalls"), "0") == 0);
	TST_CHECK(sbt_reader_meta(r, "capture.records") &&
	          strcmp(sbt_reader_meta(r, "capture.records"), "6") == 0);

	/* Record by record. */
	TST_REQUIRE(sbt_reader_next(r, &out) == SBT_OK);
	TST_CHECK(out.type == 64 && out.seq == 1 && out.payload_len == 5 &&
	          memcmp(out.payload, "hello", 5) == 0);
	TST_CHECK(out.stack_id == 0); /* TRACESMITH_STACKS=none */
	TST_REQUIRE(sbt_reader_next(r, &out) == SBT_OK);
	TST_CHECK(out.type == SBT_TYPE_CHECKPOINT && out.seq == 2);
	TST_REQUIRE(sbt_checkpoint_decode(out.payload, out.payload_len, &cp) == SBT_OK);
	TST_REQUIRE(sbt_checkpoint_compute(data, sizeof(data), &want) == SBT_OK);
	TST_CHECK_EQ_U64(cp.call_seq, 1);
	TST_CHECK_EQ_U64(cp.object, 42);
	TST_CHECK_EQ_U64(cp.offset, 16);
	TST_CHECK_EQ_U64(cp.length, sizeof(data));
	TST_CHECK_EQ_U64(cp.hash, want.hash);
	TST_CHECK_EQ_U64(cp.nblocks, want.nblocks);
	if (cp.nblocks == want.nblocks)
		TST_CHECK(memcmp(cp.block_hashes, want.block_hashes, cp.nblocks * 8) == 0);
	sbt_checkpoint_free(&cp);
	sbt_checkpoint_free(&want);
	TST_REQUIRE(sbt_reader_next(r, &out) == SBT_OK);
	TST_CHECK(out.type == SBT_TYPE_FRAME && out.seq == 3);
	{
		const uint8_t *q = out.payload;
		uint64_t frame = 0;
		TST_CHECK(sbt_varint_get(&q, out.payload + out.payload_len, &frame) == 0);
		TST_CHECK_EQ_U64(frame, 1);
	}
	TST_REQUIRE(sbt_reader_next(r, &out) == SBT_OK);
	TST_CHECK(out.type == SBT_TYPE_KEYFRAME && out.seq == 4 && out.payload_len == 2);
	TST_REQUIRE(sbt_reader_next(r, &out) == SBT_OK);
	TST_CHECK(out.type == 70 && out.seq == 5 && out.payload_len == sizeof(blob));
	{
		uint64_t id = 0;
		void *bd = NULL;
		size_t bl = 0;
		memcpy(&id, out.payload, sizeof(id));
		TST_CHECK_EQ_U64(id, blob);
		TST_CHECK(sbt_reader_blob_get(r, id, &bd, &bl) == SBT_OK);
		TST_CHECK(bl == sizeof(data) && bd && memcmp(bd, data, sizeof(data)) == 0);
		free(bd);
	}
	TST_REQUIRE(sbt_reader_next(r, &out) == SBT_OK);
	TST_CHECK(out.type == 65 && out.seq == 6 && out.payload_len == 3);
	TST_CHECK(out.thread == (uint64_t)getpid()); /* main thread: tid == pid */
	TST_CHECK(sbt_reader_next(r, &out) == SBT_END);

	TST_CHECK(sbt_reader_frame_seq(r, 1, &frame_seq) == SBT_OK && frame_seq == 3);
	TST_CHECK(sbt_reader_keyframes(r, &kf, &nkf) == SBT_OK && nkf == 1 && kf[0] == 4);
	sbt_reader_close(r);
	return tst_done();
}
