/*
 * bench_blob - blob store throughput and dedup (tests/bench/run.sh drives it).
 *
 *   bench_blob gen compressible|random MIB FILE
 *       write MIB MiB of test data to FILE (deterministic PRNG)
 *   bench_blob write IN OUT
 *       read IN into memory (not timed), then time sbt_writer_open +
 *       sbt_writer_put_blob(all of it) + sbt_writer_close into OUT; prints
 *       "seconds S bytes N file_bytes F"
 *   bench_blob dedup IN OUT
 *       put IN's bytes twice as two blobs, flushing after each; prints the
 *       file bytes each put added and the second as a percentage of the first
 *
 * "compressible" data is a mix of 4 KiB blocks typical of GPU buffers:
 * zeros, small integers in 32-bit lanes, a repeated float ramp, and random
 * bytes, chosen by the PRNG (lz4 -1 gets roughly 3:1 on it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tracesmith/sbt.h"

static uint64_t bench_rng(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench_fill_random(uint8_t *p, size_t n, uint64_t *s)
{
	size_t i;
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t v = bench_rng(s);
		memcpy(p + i, &v, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)bench_rng(s);
}

static void bench_fill_compressible(uint8_t *p, size_t n, uint64_t *s)
{
	size_t off;

	for (off = 0; off < n; off += 4096) {
		size_t len = n - off < 4096 ? n - off : 4096;
		unsigned kind = (unsigned)(bench_rng(s) % 10);
		size_t i;
		if (kind < 3) {
			memset(p + off, 0, len);
		} else if (kind < 6) {
			for (i = 0; i + 4 <= len; i += 4) {
				uint32_t v = (uint32_t)(bench_rng(s) % 256);
				memcpy(p + off + i, &v, 4);
			}
		} else if (kind < 8) {
			for (i = 0; i + 4 <= len; i += 4) {
				float f = (float)((i / 4) % 64) * 0.25f;
				memcpy(p + off + i, &f, 4);
			}
		} else {
			bench_fill_random(p + off, len, s);
		}
	}
}

static int bench_gen(const char *kind, const char *mib_s, const char *path)
{
	size_t n = (size_t)strtoull(mib_s, NULL, 10) << 20;
	uint64_t seed = 0x243f6a8885a308d3ull;
	uint8_t *p;
	FILE *f;
	int rc = 1;

	if (n == 0) {
		fprintf(stderr, "bench_blob: bad size '%s'\n", mib_s);
		return 2;
	}
	p = malloc(n);
	if (!p) {
		fprintf(stderr, "bench_blob: out of memory\n");
		return 1;
	}
	if (strcmp(kind, "random") == 0)
		bench_fill_random(p, n, &seed);
	else if (strcmp(kind, "compressible") == 0)
		bench_fill_compressible(p, n, &seed);
	else {
		fprintf(stderr, "bench_blob: unknown data kind '%s'\n", kind);
		rc = 2;
		goto out_free;
	}
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "bench_blob: %s: %s\n", path, strerror(errno));
		goto out_free;
	}
	if (fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "bench_blob: writing %s failed\n", path);
		goto out_free;
	}
	rc = 0;
out_free:
	free(p);
	return rc;
}

static uint8_t *bench_load(const char *path, size_t *n_out)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *p = NULL;

	if (!f) {
		fprintf(stderr, "bench_blob: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) != 0 || st.st_size <= 0)
		goto out_close;
	p = malloc((size_t)st.st_size);
	if (p && fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(p);
		p = NULL;
	}
	*n_out = (size_t)st.st_size;
out_close:
	fclose(f);
	if (!p)
		fprintf(stderr, "bench_blob: cannot load %s\n", path);
	return p;
}

static uint64_t bench_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int bench_write(const char *in, const char *out)
{
	size_t n = 0;
	uint8_t *p = bench_load(in, &n);
	sbt_writer *w = NULL;
	sbt_status st;
	double t0, t1;

	if (!p)
		return 1;
	t0 = bench_now();
	st = sbt_writer_open(out, NULL, &w);
	if (st == SBT_OK)
		st = sbt_writer_put_blob(w, 1, p, n, NULL);
	if (w) {
		sbt_status cst = sbt_writer_close(w);
		if (st == SBT_OK)
			st = cst;
	}
	t1 = bench_now();
	free(p);
	if (st != SBT_OK) {
		fprintf(stderr, "bench_blob: %s: %s\n", out, sbt_strerror(st));
		return 1;
	}
	printf("seconds %.6f bytes %zu file_bytes %llu\n", t1 - t0, n,
	       (unsigned long long)bench_file_size(out));
	return 0;
}

static int bench_dedup(const char *in, const char *out)
{
	size_t n = 0;
	uint8_t *p = bench_load(in, &n);
	sbt_writer *w = NULL;
	sbt_status st;
	uint64_t base, after1, after2, final;

	if (!p)
		return 1;
	st = sbt_writer_open(out, NULL, &w);
	if (st != SBT_OK)
		goto out;
	if ((st = sbt_writer_flush(w)) != SBT_OK)
		goto out_close;
	base = bench_file_size(out);
	if ((st = sbt_writer_put_blob(w, 1, p, n, NULL)) != SBT_OK ||
	    (st = sbt_writer_flush(w)) != SBT_OK)
		goto out_close;
	after1 = bench_file_size(out);
	if ((st = sbt_writer_put_blob(w, 2, p, n, NULL)) != SBT_OK ||
	    (st = sbt_writer_flush(w)) != SBT_OK)
		goto out_close;
	after2 = bench_file_size(out);
	st = sbt_writer_close(w);
	w = NULL;
	if (st != SBT_OK)
		goto out;
	final = bench_file_size(out);
	printf("bytes %zu first_put %llu second_put %llu percent %.4f file_after_close %llu\n", n,
	       (unsigned long long)(after1 - base), (unsigned long long)(after2 - after1),
	       after1 > base ? 100.0 * (double)(after2 - after1) / (double)(after1 - base) : 0.0,
	       (unsigned long long)final);
out_close:
	if (w)
		sbt_writer_close(w);
out:
	free(p);
	if (st != SBT_OK) {
		fprintf(stderr, "bench_blob: %s: %s\n", out, sbt_strerror(st));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "gen") == 0)
		return bench_gen(argv[2], argv[3], argv[4]);
	if (argc == 4 && strcmp(argv[1], "write") == 0)
		return bench_write(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "dedup") == 0)
		return bench_dedup(argv[2], argv[3]);
	fprintf(stderr, "usage: bench_blob gen compressible|random MIB FILE\n"
	                "       bench_blob write IN OUT\n"
	                "       bench_blob dedup IN OUT\n");
	return 2;
}
