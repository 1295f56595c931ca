/*
 * test_sbt_write_error - a writer whose writes start failing (here: the file
 * size limit) reports SBT_ERR_IO from then on, from every call and from
 * close, and what reached the file is still a readable trace holding every
 * record that was flushed before the failure.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define WE_LIMIT (200u * 1024u)

int main(void)
{
	const char *path = tst_path("limited.sbt");
	sbt_writer_options opt = {4096, 0, 0, 1};
	struct rlimit old, lim;
	sbt_writer *w;
	sbt_reader *r = NULL;
	sbt_record rec;
	sbt_trace_info info;
	uint8_t pay[100];
	uint64_t seq, flushed = 0, got = 0;
	sbt_status st = SBT_OK;
	uint32_t id;

	memset(pay, 0x42, sizeof(pay));
	TST_REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = WE_LIMIT;
	signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG */
	TST_REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);

	TST_REQUIRE(sbt_writer_open(path, &opt, &w) == SBT_OK);
	for (seq = 1; seq < 100000 && st == SBT_OK; seq++) {
		memset(&rec, 0, sizeof(rec));
		rec.type = 64;
		rec.seq = seq;
		rec.time_ns = seq;
		rec.payload = pay;
		rec.payload_len = sizeof(pay);
		st = sbt_writer_append(w, &rec);
		if (st == SBT_OK && seq % 100 == 0) {
			st = sbt_writer_flush(w);
			if (st == SBT_OK)
				flushed = seq;
		}
	}
	TST_CHECK(st == SBT_ERR_IO);
	TST_CHECK(flushed > 0);
	/* Sticky: every later call says the same. */
	TST_CHECK(sbt_writer_intern(w, "after", &id) == SBT_ERR_IO);
	TST_CHECK(sbt_writer_put_blob(w, 0, "x", 1, NULL) == SBT_ERR_IO);
	TST_CHECK(sbt_writer_flush(w) == SBT_ERR_IO);
	TST_CHECK(sbt_writer_close(w) == SBT_ERR_IO);
	TST_REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);

	TST_REQUIRE(sbt_reader_open(path, NULL, &r) == SBT_OK);
	sbt_reader_get_info(r, &info);
	TST_CHECK_EQ_U64(info.has_index, 0);
	TST_CHECK(info.file_size <= WE_LIMIT);
	while (sbt_reader_next(r, &rec) == SBT_OK) {
		got++;
		TST_CHECK_EQ_U64(rec.seq, got);
	}
	/* Everything flushed is there; nothing is invented. */
	TST_CHECK(got >= flushed);
	TST_CHECK(got < seq);
	printf("limit %u bytes: %llu records flushed, %llu read back, torn tail: %d\n", WE_LIMIT,
	       (unsigned long long)flushed, (unsigned long long)got, info.truncated);
	sbt_reader_close(r);
	return tst_done();
}
