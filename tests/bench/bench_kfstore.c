/*
 * bench_kfstore - the keyframe store path without a GPU: how fast the
 * capture runtime takes 32 MiB chunks of device memory from a reused
 * staging buffer, the way the CUDA interposer's keyframes hand them over
 * (tests/bench/cuda_mem_bench.sh measures the whole keyframe on the test
 * double, whose own copies and page faults count there too).
 *
 *   bench_kfstore MIB same|fresh|repeat|zero [ROUNDS] [blob|pages]
 *
 * ROUNDS keyframes (default 1) of MIB MiB each, in chunks of 32 MiB
 * through two buffers used in turn, each chunk a blob and a record naming
 * it, as tcu_keyframe does: "same" fills every page with one pattern (the
 * blob store keeps one page: the H100's 3.54 GB/s case), "fresh" gives
 * every page of every keyframe its own bytes (nothing to deduplicate),
 * "repeat" gives every page of a keyframe its own bytes and repeats them
 * in later keyframes (memory that did not change), "zero" leaves the
 * buffers zero (the interposer then scans and stores nothing).  The last
 * argument picks the capture call: cap_blob_pages_or_zero (the default,
 * what the interposer's keyframes call; its pages hashed by this thread
 * and TRACESMITH_HASH_THREADS helpers) or cap_blob.  The interposer's chunk
 * path is the same capture call, so what is timed here is cap_blob (or
 * the zero scan) and the writer behind it; the buffer is filled once,
 * untimed, and the memory is bound by TRACESMITH_MEMORY_MB as in a
 * capture.  The caller sets TRACESMITH_OUTPUT.  Prints
 *   "bytes N seconds S gb_per_s R producer_seconds P stalls K"
 * with S the time until cap_shutdown has written the trace.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/cap.h"

#define BENCH_KF_TYPE 0x7F02u
#define BENCH_KF_CHUNK (32u << 20)
#define BENCH_KF_PAGE 4096u

static int bench_kf_pages = 1;

static double bench_kf_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_kf_all_zero(const uint8_t *p, size_t n)
{
	static const uint8_t zero[4096];
	for (; n >= sizeof(zero); p += sizeof(zero), n -= sizeof(zero))
		if (memcmp(p, zero, sizeof(zero)) != 0)
			return 0;
	return memcmp(p, zero, n) == 0;
}

/* One chunk, as tcu_kf_chunk_record stores it: zero chunks are named
 * without a blob (cap_blob_pages_or_zero finds them in the read that
 * hashes the pages; for cap_blob, a scan first), others are a blob and a
 * record that names it. */
static void bench_kf_chunk(const uint8_t *buf, size_t n, uint64_t off)
{
	uint64_t rec[3] = {off, n, 0};
	int zero = 0;
	if (bench_kf_pages)
		rec[2] = cap_blob_pages_or_zero(buf, n, &zero);
	else if (!bench_kf_all_zero(buf, n))
		rec[2] = cap_blob(buf, n);
	cap_record(BENCH_KF_TYPE, 0, rec, sizeof(rec));
}

int main(int argc, char **argv)
{
	static const cap_type_desc types[] = {{BENCH_KF_TYPE, "bench.kfchunk"}};
	uint8_t *buf[2];
	uint64_t mib, bytes, rounds = 1;
	double t0, t1, t2;
	cap_stats cs;
	int mode;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: bench_kfstore MIB same|fresh|repeat|zero [ROUNDS] [blob|pages]\n");
		return 2;
	}
	mib = strtoull(argv[1], NULL, 10);
	mode = !strcmp(argv[2], "same") ? 0 : !strcmp(argv[2], "fresh") ? 1
	       : !strcmp(argv[2], "repeat")                              ? 2
	       : !strcmp(argv[2], "zero")                                ? 3
	                                                                 : -1;
	if (argc >= 4)
		rounds = strtoull(argv[3], NULL, 10);
	if (argc == 5 && strcmp(argv[4], "blob") && strcmp(argv[4], "pages"))
		mode = -1;
	bench_kf_pages = argc < 5 || !strcmp(argv[4], "pages");
	if (mib == 0 || mib % 32 != 0 || mode < 0 || rounds == 0) {
		fprintf(stderr, "bench_kfstore: MIB must be a positive multiple of 32, the data "
		                "same, fresh, repeat or zero, ROUNDS positive, the call blob or pages\n");
		return 2;
	}
	buf[0] = calloc(1, BENCH_KF_CHUNK);
	buf[1] = calloc(1, BENCH_KF_CHUNK);
	if (!buf[0] || !buf[1]) {
		fprintf(stderr, "bench_kfstore: out of memory\n");
		return 1;
	}
	/* A pattern of 8-byte words (not all one value); fresh and repeat
	 * stamp every page's first 16 bytes below, per chunk. */
	for (int b = 0; b < 2 && mode != 3; b++)
		for (size_t i = 0; i < BENCH_KF_CHUNK; i += 8) {
			uint64_t v = 0x5a5a0000u + i % BENCH_KF_PAGE;
			memcpy(buf[b] + i, &v, 8);
		}
	cap_register_api("bench", types, 1);
	if (!cap_active()) {
		fprintf(stderr, "bench_kfstore: capture is not recording (see messages above)\n");
		return 1;
	}
	bytes = mib << 20;
	t0 = bench_kf_now();
	for (uint64_t r = 0; r < rounds; r++)
		for (uint64_t off = 0; off < bytes; off += BENCH_KF_CHUNK) {
			uint8_t *b = buf[(off / BENCH_KF_CHUNK) & 1];
			/* The device address of each page, and the round for fresh:
			 * one store per page, as the DMA would have written it. */
			for (size_t p = 0; (mode == 1 || mode == 2) && p < BENCH_KF_CHUNK; p += BENCH_KF_PAGE) {
				uint64_t stamp[2] = {off + p, mode == 1 ? r : 0};
				memcpy(b + p, stamp, sizeof(stamp));
			}
			bench_kf_chunk(b, BENCH_KF_CHUNK, off);
		}
	t1 = bench_kf_now();
	cap_shutdown();
	t2 = bench_kf_now();
	cap_get_stats(&cs);
	printf("bytes %llu seconds %.4f gb_per_s %.2f producer_seconds %.4f stalls %llu\n",
	       (unsigned long long)(bytes * rounds), t2 - t0, (double)(bytes * rounds) / (t2 - t0) / 1e9,
	       t1 - t0, (unsigned long long)cs.stalls);
	free(buf[0]);
	free(buf[1]);
	return 0;
}
