/*
 * test_cap_pages_pool - cap_blob_pages' page hashes computed by the
 * page-hash pool (capture/cap_pages.c) make the same trace content as
 * those computed on the recording thread alone.  The same blobs go
 * through a capture once with TRACESMITH_HASH_THREADS=0 and once with 3
 * helper threads (forced on whatever the CPU count), each capture in a
 * child process of its own (the configuration is read once per process);
 * both traces then hold the same blob ids, the same bytes under each, and
 * the same unique page bytes, which are those of the distinct pages
 * counted here with XXH3-128: a page hashed wrongly by a helper would
 * miss its copy stored by cap_blob (hashed by the writer thread).  The
 * data mixes pages of data, repeated pages, zero pages, a page zero but
 * for its last byte, and a short zero tail page (hashed over its own
 * length, not taken for a whole zero page).  cap_blob_pages_or_zero
 * records nothing for a blob of zero bytes and says so, and takes no
 * blob id for it; a blob zero but for its last byte is stored.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "capture/cap.h"
#include "capture/cap_internal.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define PP_PAGE (64u << 10)
#define PP_PAGES 515u                                /* 32 MiB and 3 pages */
#define PP_LEN ((PP_PAGES - 1u) * PP_PAGE + 1000u)  /* the last page short */
#define PP_ZERO (8u << 20)
#define PP_TYPE 0x7F03u
#define PP_NBLOBS 4u

static void pp_fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* Page i: zero when i % 5 == 0, page 1's bytes again when i % 7 == 1,
 * zero but for its last byte when i % 11 == 3, else its own bytes; the
 * short last page zero. */
static uint8_t *pp_data(void)
{
	uint8_t *p = calloc(1, PP_LEN);
	for (size_t i = 0; p && i + 1 < PP_PAGES; i++) {
		uint8_t *q = p + i * PP_PAGE;
		if (i % 5 == 0)
			continue;
		if (i % 7 == 1 && i > 1)
			memcpy(q, p + PP_PAGE, PP_PAGE);
		else if (i % 11 == 3)
			q[PP_PAGE - 1] = 0x42;
		else
			pp_fill(q, PP_PAGE, (uint32_t)i + 1);
	}
	return p;
}

/* Bytes of the distinct pages of the blobs stored: the data's, and the
 * one page of the zero blob with a last byte. */
static uint64_t pp_unique_bytes(const uint8_t *data)
{
	uint64_t *seen = calloc(PP_PAGES + 1, 2 * sizeof(uint64_t)), total = 0;
	size_t nseen = 0;
	uint8_t *last = calloc(1, PP_PAGE);
	TST_REQUIRE(seen && last);
	last[PP_PAGE - 1] = 1;
	for (size_t i = 0; i <= PP_PAGES; i++) {
		size_t n = i < PP_PAGES ? (i + 1 < PP_PAGES ? PP_PAGE : PP_LEN - i * PP_PAGE) : PP_PAGE;
		XXH128_hash_t h = XXH3_128bits(i < PP_PAGES ? data + i * PP_PAGE : last, n);
		size_t k;
		for (k = 0; k < nseen; k++)
			if (seen[2 * k] == h.low64 && seen[2 * k + 1] == h.high64)
				break;
		if (k == nseen) {
			seen[2 * nseen] = h.low64;
			seen[2 * nseen + 1] = h.high64;
			nseen++;
			total += n;
		}
	}
	free(last);
	free(seen);
	return total;
}

/* The child: one capture with `threads` helpers into path. */
static int pp_capture(const char *path, const char *threads, const uint8_t *data)
{
	static const cap_type_desc types[] = {{PP_TYPE, "test.pages"}};
	uint8_t *zero = calloc(1, PP_ZERO), *last = calloc(1, PP_ZERO);
	uint64_t ids[6];
	int z[3] = {-1, -1, -1};
	if (!zero || !last)
		return 10;
	last[PP_ZERO - 1] = 1;
	setenv("TRACESMITH_OUTPUT", path, 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	setenv("TRACESMITH_HASH_THREADS", threads, 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	cap_register_api("test", types, 1);
	if (!cap_active())
		return 11;
	ids[0] = cap_blob_pages_or_zero(data, PP_LEN, &z[0]);
	ids[1] = cap_blob_pages_or_zero(zero, PP_ZERO, &z[1]);
	ids[2] = cap_blob_pages_or_zero(last, PP_ZERO, &z[2]);
	ids[3] = cap_blob_pages(data, PP_LEN); /* every page sent: hashes only */
	ids[4] = cap_blob(data, PP_LEN);       /* hashed by the writer thread */
	ids[5] = (uint64_t)cap_pages_workers_();
	cap_record(PP_TYPE, 0, ids, sizeof(ids));
	cap_shutdown();
	free(zero);
	free(last);
	/* blob ids 1, -, 2, 3, 4: the zero blob took none */
	if (z[0] != 0 || z[1] != 1 || z[2] != 0)
		return 12;
	if (ids[0] != 1 || ids[1] != 0 || ids[2] != 2 || ids[3] != 3 || ids[4] != 4)
		return 13;
	if (ids[5] != (uint64_t)atoi(threads))
		return 14;
	return 0;
}

static void pp_run(const char *path, const char *threads, const uint8_t *data)
{
	int status = -1;
	pid_t pid = fork();
	TST_REQUIRE(pid >= 0);
	if (pid == 0)
		_exit(pp_capture(path, threads, data));
	TST_REQUIRE(waitpid(pid, &status, 0) == pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "capture with TRACESMITH_HASH_THREADS=%s: status 0x%x\n", threads,
		        status);
	TST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void pp_check_blob(sbt_reader *r, uint64_t id, const uint8_t *want, size_t len)
{
	void *got = NULL;
	size_t n = 0;
	TST_CHECK(sbt_reader_blob_get(r, id, &got, &n) == SBT_OK);
	TST_CHECK_EQ_U64(n, len);
	TST_CHECK(got && n == len && memcmp(got, want, len) == 0);
	free(got);
}

int main(void)
{
	static const char *const threads[2] = {"0", "3"};
	uint8_t *data = pp_data(), *last = calloc(1, PP_ZERO);
	sbt_trace_info info;
	uint64_t unique;
	TST_REQUIRE(data && last);
	last[PP_ZERO - 1] = 1;
	unique = pp_unique_bytes(data);
	for (int k = 0; k < 2; k++) {
		char name[32];
		sbt_reader *r = NULL;
		snprintf(name, sizeof(name), "pool%s.sbt", threads[k]);
		pp_run(tst_path(name), threads[k], data);
		TST_REQUIRE(sbt_reader_open(tst_path(name), NULL, &r) == SBT_OK);
		sbt_reader_get_info(r, &info);
		TST_CHECK_EQ_U64(info.blob_count, PP_NBLOBS);
		TST_CHECK_EQ_U64(info.blob_bytes_logical, 3u * PP_LEN + PP_ZERO);
		TST_CHECK_EQ_U64(info.blob_bytes_unique, unique);
		pp_check_blob(r, 1, data, PP_LEN);
		pp_check_blob(r, 2, last, PP_ZERO);
		pp_check_blob(r, 3, data, PP_LEN);
		pp_check_blob(r, 4, data, PP_LEN);
		sbt_reader_close(r);
	}
	free(last);
	free(data);
	return tst_done();
}
