/*
 * test_vkl_memory_runs - the word-at-a-time scans of the layer's mapped
 * memory tracking (layers/vulkan/vkl_memory.c, compiled in) against
 * byte-at-a-time references, on buffers where equal and differing bytes
 * alternate in every pattern a word can hold (runs of 0 to 20 bytes, at
 * every alignment, and differing runs up to 200 and 700 bytes for the
 * 64- and 128-byte steps), the compare that also copies the run (only
 * whole steps found differing, the same bytes into the reference and the
 * driver's mapping, nothing outside the run), then through the public calls on a fake mapping: a
 * device write of 3000 bytes with bytes left equal inside it reaches the
 * shadow whole and is never recorded as a host write, and host bytes that
 * share 8-byte words with device bytes survive an observation; publishing
 * given ranges (what a submission reaches) records the host writes inside
 * them only, and memory marked "always" whole.
 */
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl_memory.c"
#include "layers/vulkan/vkl_objects.c"
#include "layers/vulkan/vkl_track.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_test_device.h"
#include "tests/support/vkl_trim_stubs.h"

static size_t tst_nwrites;
static uint64_t tst_written; /* bytes recorded as host writes */

uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data, uint64_t size)
{
	(void)memory;
	(void)offset;
	(void)data;
	tst_nwrites++;
	tst_written += size;
	return 1;
}

#include "tests/support/vkl_emit_runs.h"

#define TST_N 4096
#define TST_MEM ((VkDeviceMemory)(uintptr_t)0xabc000)

static uint32_t tst_rand_state = 12345;
static uint32_t tst_rand(void)
{
	tst_rand_state = tst_rand_state * 1103515245u + 12345u;
	return tst_rand_state >> 8;
}

static size_t tst_run_ref(const uint8_t *a, const uint8_t *b, size_t i, size_t n)
{
	size_t j = i + 1;
	while (j < n && a[j] != b[j])
		j++;
	return j - i;
}

/* How many of p[lo, hi) still hold the fill byte 0x5a. */
static size_t tst_count(const uint8_t *p, size_t lo, size_t hi)
{
	size_t n = 0;
	for (size_t i = lo; i < hi; i++)
		n += p[i] == 0x5a;
	return n;
}

/* a and b differ in runs of random length 0..longest separated by equal
 * runs of random length 0..20 */
static void tst_fill(uint8_t *a, uint8_t *b, size_t n, size_t longest)
{
	size_t i = 0;
	while (i < n) {
		size_t diff = tst_rand() % (longest + 1), same = tst_rand() % 21;
		for (; diff && i < n; diff--, i++) {
			a[i] = (uint8_t)tst_rand();
			b[i] = (uint8_t)(a[i] ^ (1 + tst_rand() % 255));
		}
		for (; same && i < n; same--, i++)
			a[i] = b[i] = (uint8_t)tst_rand();
	}
}

static void tst_scans(void)
{
	uint8_t *a = malloc(TST_N), *b = malloc(TST_N), *shadow = malloc(TST_N);
	uint8_t *ref = malloc(TST_N), *want_shadow = malloc(TST_N), *out = malloc(TST_N);
	uint8_t *room = malloc(TST_N); /* the capture buffer's stand-in: from the run's start */
	size_t bad_run = 0, bad_take = 0, bad_copy = 0, runs = 0, stored_bytes = 0;
	TST_REQUIRE(a && b && shadow && ref && want_shadow && out && room);
	for (int round = 0; round < 60; round++) {
		/* two rounds in three, runs long enough for the 64-byte steps,
		 * then for the 128-byte ones (AVX2) */
		tst_fill(a, b, TST_N, round % 3 == 0 ? 20 : round % 3 == 1 ? 200 : 700);
		for (size_t i = 0; i < TST_N; i++)
			if (a[i] != b[i]) {
				size_t want = tst_run_ref(a, b, i, TST_N), len, stored;
				runs++;
				if (vkl_mem_run(a, b, i, TST_N) != want)
					bad_run++;
				if (i && a[i - 1] != b[i - 1])
					continue; /* inside a run: copied from its start */
				/* the copying compare, on copies: b's stand-in is ref */
				memcpy(ref, b, TST_N);
				memset(out, 0x5a, TST_N);
				memset(room, 0x5a, TST_N);
				len = vkl_mem_run_copy(a, ref, out, room, i, TST_N, &stored);
				if (len != want || stored < i || stored > i + len ||
				    memcmp(ref + i, a + i, stored - i) != 0 ||
				    memcmp(out + i, a + i, stored - i) != 0 ||
				    memcmp(room, a + i, stored - i) != 0 ||
				    tst_count(room, stored - i, TST_N) != TST_N - (stored - i) ||
				    memcmp(ref, b, i) != 0 ||
				    memcmp(ref + stored, b + stored, TST_N - stored) != 0 ||
				    tst_count(out, 0, i) != i ||
				    tst_count(out, stored, TST_N) != TST_N - stored)
					bad_copy++;
				stored_bytes += stored - i;
			}
		/* a stands for the device's bytes, b for the reference */
		for (size_t off = 0; off < 16; off++) {
			size_t n = TST_N - off - (size_t)(tst_rand() % 16);
			for (size_t i = 0; i < TST_N; i++)
				shadow[i] = (uint8_t)tst_rand();
			memcpy(ref, b, TST_N);
			memcpy(want_shadow, shadow, TST_N);
			for (size_t i = off; i < off + n; i++)
				if (ref[i] != a[i])
					want_shadow[i] = a[i];
			vkl_mem_take_device(shadow + off, ref + off, a + off, n);
			if (memcmp(shadow, want_shadow, TST_N) != 0 || memcmp(ref + off, a + off, n) != 0 ||
			    memcmp(ref, b, off) != 0 ||
			    memcmp(ref + off + n, b + off + n, TST_N - off - n) != 0)
				bad_take++;
		}
	}
	TST_CHECK(runs > 10000);
	TST_CHECK(stored_bytes > 100000); /* the wide steps stored */
	TST_CHECK_EQ_U64(bad_run, 0);
	TST_CHECK_EQ_U64(bad_take, 0);
	TST_CHECK_EQ_U64(bad_copy, 0);
	free(out);
	free(room);
	free(a);
	free(b);
	free(shadow);
	free(ref);
	free(want_shadow);
}

/* A fake device with TST_MEM (TST_N bytes) allocated and mapped over
 * `real`; returns the shadow the application would get. */
static uint8_t *tst_map(vkl_device *d, uint8_t *real)
{
	VkMemoryAllocateInfo info;
	void *p = real;
	tst_device_init(d);
	memset(&info, 0, sizeof(info));
	info.allocationSize = TST_N;
	vkl_memory_allocated(d, TST_MEM, &info, 5);
	TST_REQUIRE(vkl_memory_mapped(d, TST_MEM, 0, VK_WHOLE_SIZE, &p) == VK_SUCCESS);
	return p;
}

static void tst_mapping(void)
{
	vkl_device d;
	uint8_t *real = malloc(TST_N), *before = malloc(TST_N);
	uint8_t *shadow;
	size_t i, device_bytes = 0;

	TST_REQUIRE(real && before);
	for (i = 0; i < TST_N; i++)
		real[i] = (uint8_t)(i * 7);
	shadow = tst_map(&d, real);
	TST_CHECK(vkl_memory_map_recorded(&d, TST_MEM, 6) == 1);
	atomic_store(&d.submits, 1);
	/* the submission, its reach not known: it may write all of the mapping */
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	atomic_store(&d.completed, 1);

	/* the device writes [500, 3500), leaving every 13th byte as it was */
	memcpy(before, real, TST_N);
	for (i = 500; i < 3500; i++)
		if (i % 13) {
			real[i] = (uint8_t)(real[i] ^ 0x5a);
			device_bytes++;
		}
	tst_nwrites = 0;
	tst_written = 0;
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 40);
	TST_CHECK_EQ_U64(tst_nwrites, 0);
	TST_CHECK(memcmp(shadow, real, TST_N) == 0);
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_EQ_U64(tst_nwrites, 0);
	TST_CHECK(device_bytes > 2700);

	/* host and device write alternate bytes of the same words: the host's
	 * are recorded (and only they), the device's reach the shadow, and
	 * neither overwrites the other */
	for (i = 1000; i < 1400; i++) {
		if (i % 2)
			shadow[i] = (uint8_t)(i + 1);
		else
			real[i] = (uint8_t)(i + 2);
	}
	tst_written = 0;
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 41);
	TST_CHECK_EQ_U64(tst_nwrites, 0); /* observing the device publishes nothing */
	for (i = 1000; i < 1400; i++)
		TST_CHECK(shadow[i] == (uint8_t)(i % 2 ? i + 1 : i + 2));
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK(tst_nwrites > 0);
	TST_CHECK(tst_written >= 200);
	for (i = 1000; i < 1400; i++) {
		uint8_t want = (uint8_t)(i % 2 ? i + 1 : i + 2);
		TST_CHECK(shadow[i] == want);
		TST_CHECK(real[i] == want);
	}
	tst_nwrites = 0;
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_EQ_U64(tst_nwrites, 0);

	vkl_memory_unmapping(&d, TST_MEM);
	vkl_memory_freed(&d, TST_MEM);
	vkl_memory_device_gone(&d); /* the memory kept from the mapping freed */
	free(real);
	free(before);
}

/* vkl_memory_publish_ranges: host writes at 100, 1000 and 3000; ranges
 * [0, 200) and [2900, 3100) record the first and the last; device writes
 * are taken from a range only once a submission reached it writable; after
 * vkl_memory_mark_always an empty list records the middle one. */
static void tst_ranges(void)
{
	vkl_device d;
	uint8_t *real = calloc(1, TST_N), *shadow;
	vkl_range r[2] = { { TST_MEM, 0, 200, 0 }, { TST_MEM, 2900, 200, 0 } };

	TST_REQUIRE(real != NULL);
	shadow = tst_map(&d, real);
	atomic_store(&d.submits, 1); /* not the initial contents any more */
	shadow[100] = 1;
	shadow[1000] = 2;
	shadow[3000] = 3;
	tst_nwrites = 0;
	tst_written = 0;
	vkl_memory_publish_ranges(&d, r, 2);
	TST_CHECK_EQ_U64(tst_nwrites, 2);
	TST_CHECK(real[100] == 1 && real[3000] == 3 && real[1000] == 0);
	tst_nwrites = 0;
	vkl_memory_publish_ranges(&d, NULL, 0);
	TST_CHECK_EQ_U64(tst_nwrites, 0);
	/* device writes are looked for only where a submission since the last
	 * idle observation could write: not in ranges it may only read */
	atomic_store(&d.completed, 1);
	real[50] = 9;
	real[3050] = 9;
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 70);
	TST_CHECK(shadow[50] == 0 && shadow[3050] == 0);
	r[1].writable = 1;
	vkl_memory_publish_ranges(&d, r, 2);
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 71);
	TST_CHECK(shadow[50] == 0 && shadow[3050] == 9);
	real[50] = 0;
	tst_nwrites = 0;
	vkl_memory_mark_always(TST_MEM);
	vkl_memory_publish_ranges(&d, NULL, 0);
	TST_CHECK_EQ_U64(tst_nwrites, 1);
	TST_CHECK(real[1000] == 2);
	vkl_memory_unmapping(&d, TST_MEM);
	vkl_memory_freed(&d, TST_MEM);
	vkl_memory_device_gone(&d); /* the memory kept from the mapping freed */
	free(real);
}

int main(void)
{
	setenv("TRACESMITH_OUTPUT", tst_path("runs.sbt"), 1);
	tst_scans();
	tst_mapping();
	tst_ranges();
	cap_shutdown();
	return tst_done();
}
