/*
 * test_vkl_memory_keep - the memory of an unmapped mapping kept for the next
 * vkMapMemory of the same size (layers/vulkan/vkl_memory.c, vkl_mem_keep,
 * vkl_mem_keep_take, vkl_mem_take_initial), on a fake device, under each
 * tracker in turn (a child process each: the tracker is chosen once per
 * process; uffd where the kernel has it).  Checks that:
 * - an object mapped again gets the shadow of its last mapping back, and
 *   another object of the same size takes it too;
 * - a kept shadow and reference hold exactly what fresh ones would: the
 *   driver's bytes, zeros where the scan found the driver's pages
 *   unpopulated (while the stale bytes of the last mapping were there),
 *   zeros before the mapping's offset in its first page; the driver's
 *   untouched pages stay unpopulated;
 * - the tracker starts clean: a look right after the map reports no page
 *   (the last mapping's writes are not reported), and reports exactly the
 *   pages the host writes then; the publish records exactly those writes;
 * - the cap (TRACESMITH_VK_MAP_CACHE, set here): a mapping larger than it is
 *   never kept, the bytes kept never exceed it, the least recently kept go
 *   first, and a device keeps at most VKL_MEM_KEEP_SLOTS mappings' memory;
 * - memory no map takes within VKL_MEM_KEEP_AGE submissions is freed at the
 *   submission that makes it due (vkl_memory_submitted), the least recently
 *   kept first, not one submission earlier; memory taken and kept again is
 *   due counting from its new keep;
 * - vkFreeMemory of a mapped object keeps its memory; the device's end frees
 *   all of it (the ASan build checks for leaks).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "layers/vulkan/vkl_memory.c"
#include "layers/vulkan/vkl_objects.c"
#include "layers/vulkan/vkl_track.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_test_device.h"
#include "tests/support/vkl_trim_stubs.h"

/* vkl_record.c's tsMemoryWrite, replaced: each write's place and size. */
typedef struct tst_write {
	uint64_t memory, offset, size;
} tst_write;
static tst_write tst_writes[64];
static size_t tst_nwrites;

uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data, uint64_t size)
{
	tst_write *w = &tst_writes[tst_nwrites++ % 64];
	(void)data;
	w->memory = memory;
	w->offset = offset;
	w->size = size;
	return 1;
}

#include "tests/support/vkl_emit_runs.h"

#define TST_BIG 300    /* pages of the scanned objects: over 1 MiB with 4 KiB pages */
#define TST_OFFSET 256 /* where their mappings start */
#define TST_CAP 1000   /* the cap, in pages: the scanned mapping fits */

static size_t tst_page;

static VkDeviceMemory tst_mem(unsigned k)
{
	return (VkDeviceMemory)(uintptr_t)(0xabc000u + k * 0x1000u);
}

static void tst_alloc(vkl_device *d, unsigned k, size_t pages)
{
	VkMemoryAllocateInfo info;
	memset(&info, 0, sizeof(info));
	info.allocationSize = pages * tst_page;
	vkl_memory_allocated(d, tst_mem(k), &info, 5);
}

/* A fake driver mapping of npages, the pages listed (ending with -1)
 * written with bytes of seed, never 0. */
static uint8_t *tst_real(size_t npages, const int *pages, unsigned seed)
{
	uint8_t *p = mmap(NULL, npages * tst_page, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TST_REQUIRE(p != MAP_FAILED);
	madvise(p, npages * tst_page, MADV_NOHUGEPAGE);
	for (; *pages >= 0; pages++)
		for (size_t i = 0; i < tst_page; i++)
			p[(size_t)*pages * tst_page + i] = (uint8_t)(1 + (seed + *pages * 31 + i * 7) % 255);
	return p;
}

/* Whether page pg of p is resident. */
static int tst_resident(const uint8_t *p, size_t pg)
{
	unsigned char v;
	TST_REQUIRE(mincore((void *)(uintptr_t)(p + pg * tst_page), tst_page, &v) == 0);
	return v & 1;
}

/* Pages a look at the whole shadow region reports. */
typedef struct tst_look {
	size_t pages;
} tst_look;

static void tst_look_run(void *ctx, size_t lo, size_t hi)
{
	tst_look *l = ctx;
	l->pages += (hi - lo + tst_page - 1) / tst_page;
}

static tst_look tst_look_now(vkl_memory *m)
{
	tst_look l = { 0 };
	vkl_track_look(&m->trk, 0, m->shadow_len, tst_look_run, &l);
	return l;
}

static uint8_t *tst_map(vkl_device *d, unsigned k, uint8_t *real, size_t offset, size_t size)
{
	void *p = real + offset;
	TST_REQUIRE(vkl_memory_mapped(d, tst_mem(k), offset, size, &p) == VK_SUCCESS);
	return p;
}

/* tst_map, checked: the map took kept memory (kept 1) or fresh (0), as
 * vkl_mem_maps_kept counts, and the application sees the driver's bytes. */
static uint8_t *tst_map_kept(vkl_device *d, unsigned k, uint8_t *real, size_t offset, size_t size,
                             unsigned kept)
{
	unsigned long long kept0 = atomic_load(&vkl_mem_maps_kept);
	uint8_t *s = tst_map(d, k, real, offset, size);
	TST_CHECK_EQ_U64(atomic_load(&vkl_mem_maps_kept), kept0 + kept);
	TST_CHECK(memcmp(s, real + offset, size) == 0);
	return s;
}

/* Kept memory of a scanned mapping reused for another object whose driver
 * pages are mostly unpopulated. */
static void tst_scan_reuse(vkl_device *d, vkl_track_kind kind)
{
	static const int all[] = { -1 };
	static const int few[] = { 3, 100, 101, 250, -1 };
	size_t size = TST_BIG * tst_page - TST_OFFSET - 512;
	uint8_t *real1 = tst_real(TST_BIG, all, 1), *real2, *s1, *s2, *want;
	unsigned long long kept0;
	vkl_memory *m;
	tst_look l;
	int known;

	/* every page of real1 written */
	memset(real1, 0x5a, TST_BIG * tst_page);
	known = vkl_track_zero_known(real1, TST_BIG * tst_page);
	tst_alloc(d, 1, TST_BIG);
	tst_alloc(d, 2, TST_BIG);
	s1 = tst_map(d, 1, real1, TST_OFFSET, size);
	TST_CHECK(s1[0] == 0x5a && s1[size - 1] == 0x5a);
	/* host writes: published at the unmap, and one more page left written
	 * when the mapping goes */
	memset(s1 + 50 * tst_page, 0x77, 300);
	memset(s1 + 200 * tst_page, 0x66, tst_page);
	tst_nwrites = 0;
	vkl_memory_unmapping(d, tst_mem(1));
	TST_CHECK_EQ_U64(tst_nwrites, 2);
	TST_CHECK(d->kept != NULL);

	/* another object of the same size: takes the kept memory */
	real2 = tst_real(TST_BIG, few, 9);
	want = calloc(TST_BIG, tst_page);
	TST_REQUIRE(want != NULL);
	memcpy(want, real2, 4 * tst_page); /* page 3 and the zero pages before */
	memcpy(want + 100 * tst_page, real2 + 100 * tst_page, 2 * tst_page);
	memcpy(want + 250 * tst_page, real2 + 250 * tst_page, tst_page);
	kept0 = atomic_load(&vkl_mem_maps_kept);
	s2 = tst_map(d, 2, real2, TST_OFFSET, size);
	TST_CHECK_EQ_U64(atomic_load(&vkl_mem_maps_kept), kept0 + 1);
	TST_CHECK(s2 == s1);
	TST_CHECK(d->kept == NULL && d->kept_bytes == 0);
	m = vkl_mem_find(tst_mem(2));
	TST_REQUIRE(m != NULL);
	/* byte for byte what a fresh map holds: the driver's bytes, zeros in
	 * its unpopulated pages, zeros before the offset and after the end */
	TST_CHECK(memcmp(s2, want + TST_OFFSET, size) == 0);
	TST_CHECK(memcmp(m->ref, want + TST_OFFSET, size) == 0);
	for (size_t i = 0; i < TST_OFFSET; i++)
		TST_CHECK(((uint8_t *)m->shadow_base)[i] == 0);
	for (size_t i = TST_OFFSET + size; i < m->shadow_len; i++)
		TST_CHECK(((uint8_t *)m->shadow_base)[i] == 0);
	if (known) {
		/* the scan ran: the driver's untouched pages left alone */
		TST_CHECK(!tst_resident(real2, 50) && !tst_resident(real2, 200) &&
		          !tst_resident(real2, 280));
	} else {
		printf("note: PROCMAP_QUERY is not available on this kernel: the kept memory was "
		       "copied into whole\n");
	}

	/* the tracker: nothing written since the map (the last mapping's
	 * writes are not reported), then the page the host writes */
	l = tst_look_now(m);
	if (kind != VKL_TRACK_SHADOW) {
		TST_CHECK(m->trk.exact);
		TST_CHECK_EQ_U64(l.pages, 0);
	}
	memset(s2 + 200 * tst_page - TST_OFFSET + 16, 0x02, 64);
	/* publish: exactly what the host wrote (a page the tracker missed
	 * would record nothing) */
	tst_nwrites = 0;
	vkl_memory_publish(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].memory, (uintptr_t)tst_mem(2));
	TST_CHECK_EQ_U64(tst_writes[0].offset, 200 * tst_page + 16);
	TST_CHECK_EQ_U64(tst_writes[0].size, 64);
	TST_CHECK(real2[200 * tst_page + 16] == 0x02 && real2[200 * tst_page + 80] == 0);
	/* a page the driver never populated, written with zeros: no change */
	memset(s2 + 280 * tst_page - TST_OFFSET, 0, 128);
	tst_nwrites = 0;
	vkl_memory_publish(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_EQ_U64(tst_nwrites, 0);

	/* freed while mapped: kept as at an unmap */
	vkl_memory_freed(d, tst_mem(2));
	TST_CHECK(d->kept != NULL);
	vkl_memory_freed(d, tst_mem(1));
	free(want);
	munmap(real1, TST_BIG * tst_page);
	munmap(real2, TST_BIG * tst_page);
}

/* Bytes a mapping of npages whole pages keeps: shadow, reference, tmp. */
static size_t tst_kept_size(size_t npages)
{
	return 3 * npages * tst_page;
}

/* Objects of different sizes mapped and unmapped in turn under a cap of
 * TST_CAP pages: A (80 pages, 240 kept), B (160, 480), C (400, 1200: over
 * the cap), E (120, 360). */
static void tst_cap(vkl_device *d)
{
	static const int all[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
	static const size_t pages[] = { 80, 160, 400, 120 };
	uint8_t *real[4], *s, *sa;
	size_t n;
	vkl_mem_kept *e;

	TST_REQUIRE(vkl_mem_keep_max() == TST_CAP * tst_page);
	/* what tst_scan_reuse left: gone */
	while (d->kept) {
		e = d->kept;
		d->kept = e->next;
		d->kept_bytes -= vkl_mem_kept_bytes(e);
		vkl_mem_kept_release(e);
		free(e);
	}
	TST_REQUIRE(d->kept_bytes == 0);
	for (unsigned k = 0; k < 4; k++) {
		real[k] = tst_real(pages[k], all, 20 + k);
		tst_alloc(d, 10 + k, pages[k]);
	}
	/* A, B kept; C over the cap, freed */
	sa = tst_map(d, 10, real[0], 0, pages[0] * tst_page);
	vkl_memory_unmapping(d, tst_mem(10));
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(80));
	tst_map(d, 11, real[1], 0, pages[1] * tst_page);
	vkl_memory_unmapping(d, tst_mem(11));
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(80) + tst_kept_size(160));
	tst_map_kept(d, 12, real[2], 0, pages[2] * tst_page, 0);
	vkl_memory_unmapping(d, tst_mem(12));
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(80) + tst_kept_size(160));

	/* A again: its own shadow back, its bytes the driver's (the device
	 * wrote them while it was unmapped) */
	memset(real[0] + 3 * tst_page, 0xc3, tst_page);
	s = tst_map(d, 10, real[0], 0, pages[0] * tst_page);
	TST_CHECK(s == sa);
	TST_CHECK(memcmp(s, real[0], pages[0] * tst_page) == 0);
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(160));
	vkl_memory_unmapping(d, tst_mem(10));
	/* A (most recent), B; E makes 1080 pages: B, the least recently
	 * kept, goes */
	tst_map(d, 13, real[3], 0, pages[3] * tst_page);
	vkl_memory_unmapping(d, tst_mem(13));
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(120) + tst_kept_size(80));
	tst_map_kept(d, 11, real[1], 0, pages[1] * tst_page, 0);
	vkl_memory_unmapping(d, tst_mem(11));
	/* B, E, A: 1080 pages again, A goes */
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(160) + tst_kept_size(120));
	TST_CHECK(d->kept_bytes <= TST_CAP * tst_page);
	/* a mapping of C at an offset whose page-rounded shadow is E's (120
	 * pages) takes E's memory, its lead cleared */
	s = tst_map_kept(d, 12, real[2], 100, 120 * tst_page - 100, 1);
	for (size_t i = 0; i < 100; i++)
		TST_CHECK(s[(ptrdiff_t)i - 100] == 0);
	vkl_memory_unmapping(d, tst_mem(12));
	for (unsigned k = 0; k < 4; k++) {
		vkl_memory_freed(d, tst_mem(10 + k));
		munmap(real[k], pages[k] * tst_page);
	}

	/* at most VKL_MEM_KEEP_SLOTS entries: one-page objects, more of them */
	static uint8_t ones[VKL_MEM_KEEP_SLOTS + 4][64];
	for (unsigned k = 0; k < VKL_MEM_KEEP_SLOTS + 4; k++) {
		tst_alloc(d, 100 + k, 1);
		memset(ones[k], (int)k, sizeof(ones[k]));
		tst_map(d, 100 + k, ones[k], 0, sizeof(ones[k]));
	}
	for (unsigned k = 0; k < VKL_MEM_KEEP_SLOTS + 4; k++)
		vkl_memory_unmapping(d, tst_mem(100 + k));
	for (n = 0, e = d->kept; e; e = e->next)
		n++;
	TST_CHECK_EQ_U64(n, VKL_MEM_KEEP_SLOTS);
	TST_CHECK(d->kept_bytes <= TST_CAP * tst_page);
	for (unsigned k = 0; k < VKL_MEM_KEEP_SLOTS + 4; k++)
		vkl_memory_freed(d, tst_mem(100 + k));
}

/* Kept memory aged out by submissions: A (4 pages) kept at submission 0,
 * B (8 pages) at 10, then B taken and kept again at 40. */
static void tst_age(vkl_device *d)
{
	static const int four[] = { 0, 1, 2, 3, -1 }, eight[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
	uint8_t *ra = tst_real(4, four, 40), *rb = tst_real(8, eight, 41), *sb, *s;

	vkl_memory_device_gone(d); /* what tst_cap left kept: gone */
	TST_REQUIRE(d->kept == NULL && atomic_load(&d->kept_due) == 0);
	atomic_store(&d->submits, 0);
	tst_alloc(d, 200, 4);
	tst_alloc(d, 201, 8);
	tst_map(d, 200, ra, 0, 4 * tst_page);
	vkl_memory_unmapping(d, tst_mem(200));
	TST_CHECK_EQ_U64(atomic_load(&d->kept_due), VKL_MEM_KEEP_AGE);
	atomic_store(&d->submits, 10);
	vkl_memory_submitted(d, 10);
	sb = tst_map(d, 201, rb, 0, 8 * tst_page);
	vkl_memory_unmapping(d, tst_mem(201));
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(4) + tst_kept_size(8));
	/* due at VKL_MEM_KEEP_AGE: not before */
	vkl_memory_submitted(d, VKL_MEM_KEEP_AGE - 1);
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(4) + tst_kept_size(8));
	/* B taken before it is due: its own shadow back, kept again at 40 */
	atomic_store(&d->submits, 40);
	s = tst_map(d, 201, rb, 0, 8 * tst_page);
	TST_CHECK(s == sb);
	TST_CHECK(memcmp(s, rb, 8 * tst_page) == 0);
	vkl_memory_unmapping(d, tst_mem(201));
	TST_CHECK_EQ_U64(atomic_load(&d->kept_due), VKL_MEM_KEEP_AGE);
	/* A, the least recently kept, goes at its submission; B stays */
	vkl_memory_submitted(d, VKL_MEM_KEEP_AGE);
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(8));
	TST_CHECK(d->kept != NULL && d->kept->next == NULL);
	TST_CHECK_EQ_U64(atomic_load(&d->kept_due), 40 + VKL_MEM_KEEP_AGE);
	vkl_memory_submitted(d, 40 + VKL_MEM_KEEP_AGE - 1);
	TST_CHECK_EQ_U64(d->kept_bytes, tst_kept_size(8));
	/* a later submission than the due one frees it too */
	vkl_memory_submitted(d, 40 + VKL_MEM_KEEP_AGE + 5);
	TST_CHECK(d->kept == NULL);
	TST_CHECK_EQ_U64(d->kept_bytes, 0);
	TST_CHECK_EQ_U64(atomic_load(&d->kept_due), 0);
	TST_CHECK_EQ_U64(atomic_load(&vkl_mem_kept_aged), 2);
	/* the next map: fresh memory, the driver's bytes */
	tst_map_kept(d, 200, ra, 0, 4 * tst_page, 0);
	vkl_memory_unmapping(d, tst_mem(200));
	vkl_memory_freed(d, tst_mem(200));
	vkl_memory_freed(d, tst_mem(201));
	munmap(ra, 4 * tst_page);
	munmap(rb, 8 * tst_page);
}

static int tst_run(const char *tracker)
{
	vkl_device d;
	char cap[32], out[64];
	vkl_track_kind kind;

	setenv("TRACESMITH_VK_TRACKER", tracker, 1);
	snprintf(cap, sizeof(cap), "%zuk", TST_CAP * tst_page / 1024);
	setenv("TRACESMITH_VK_MAP_CACHE", cap, 1);
	snprintf(out, sizeof(out), "keep.%s.sbt", tracker);
	setenv("TRACESMITH_OUTPUT", tst_path(out), 1);
	TST_REQUIRE(cap_active() == 1);
	kind = vkl_track_active();
	if (strcmp(vkl_track_name(kind), tracker) != 0) {
		printf("note: tracker %s is not available here (%s chosen): skipped\n", tracker,
		       vkl_track_name(kind));
		cap_shutdown();
		fflush(stdout);
		return 0;
	}
	tst_device_init(&d);
	tst_scan_reuse(&d, kind);
	tst_cap(&d);
	tst_age(&d);
	TST_CHECK(d.kept != NULL);
	vkl_memory_device_gone(&d);
	TST_CHECK(d.kept == NULL && d.kept_bytes == 0);
	TST_CHECK_EQ_U64(vkl_objects_count(), 0);
	cap_shutdown();
	printf("%s: %s\n", tracker, tst_failures ? "FAILED" : "ok");
	fflush(stdout);
	return tst_failures ? 1 : 0;
}

int main(void)
{
	static const char *const trackers[] = { "uffd", "guard", "shadow" };
	tst_page = (size_t)sysconf(_SC_PAGESIZE);
	tst_tmpdir();
	for (size_t t = 0; t < sizeof(trackers) / sizeof(trackers[0]); t++) {
		int status = 0;
		pid_t pid;
		fflush(stdout);
		pid = fork();
		TST_REQUIRE(pid >= 0);
		if (pid == 0)
			_exit(tst_run(trackers[t]));
		TST_REQUIRE(waitpid(pid, &status, 0) == pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "tracker %s: failed (status 0x%x)\n", trackers[t], status);
			tst_failures++;
		}
	}
	return tst_done();
}
