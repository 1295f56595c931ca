/*
 * test_vkl_memory_scan - vkMapMemory reads only the driver's populated
 * pages (layers/vulkan/vkl_memory.c, vkl_mem_take_initial; vkl_track.c,
 * vkl_track_zero_known and vkl_track_populated), on a fake mapping: "real"
 * is anonymous memory standing for the driver's mapping, some of its pages
 * written with bytes before the map, one only read (the shared zero page),
 * the rest never touched.  Checks that:
 * - vkl_track_populated reports exactly the written pages, reads none of
 *   the others (mincore: still not resident), and that shared anonymous
 *   memory, a file's private mapping and TRACESMITH_VK_MAP_SCAN=0 are not
 *   taken for memory whose holes read as zero;
 * - the application's shadow holds the driver's bytes, the initial
 *   contents recorded are the driver's bytes (every one of them: hashed),
 *   a host write is published into the driver's mapping, and the pages of
 *   the driver's mapping never touched are still not resident after all
 *   of it;
 * - with TRACESMITH_VK_MAP_SCAN=0 (the whole copy, as before, and what a
 *   file, shared or device mapping gets) the same bytes, and then the
 *   driver's pages are resident (the whole copy read them); and a shared
 *   driver mapping takes the same whole copy;
 * - a mapping smaller than VKL_MEM_SCAN_MIN (1 MiB) takes the whole copy
 *   with the scan allowed: the same bytes, every page it covers read and
 *   none beyond.
 * The trimmed capture's snapshot of a mapped memory object
 * (vkl_memory_snapshot) writes the same records reading only the
 * populated pages as reading all of them, and leaves pages far from
 * them unpopulated.
 * On a kernel without PROCMAP_QUERY (6.11) or PAGEMAP_SCAN (6.7) the
 * checks that need them are skipped, with a note; the bytes are checked
 * everywhere.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xxhash.h>

#include "layers/vulkan/vkl_memory.c"
#include "layers/vulkan/vkl_objects.c"
#include "layers/vulkan/vkl_track.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_test_device.h"
#include "tests/support/vkl_trim_stubs.h"

/* vkl_record.c's tsMemoryWrite, replaced: each write's place, size and the
 * hash of all its bytes. */
typedef struct tst_write {
	uint64_t offset, size, hash;
} tst_write;
static tst_write tst_writes[64];
static size_t tst_nwrites;

uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data, uint64_t size)
{
	tst_write *w = &tst_writes[tst_nwrites++ % 64];
	(void)memory;
	w->offset = offset;
	w->size = size;
	w->hash = XXH3_64bits(data, (size_t)size);
	return 1;
}

#include "tests/support/vkl_emit_runs.h"

#define TST_PAGES 512 /* the fake memory object: 2 MiB with 4 KiB pages */
#define TST_SMALL 64  /* a small mapping's pages, from the object's start */
#define TST_OFFSET 256 /* the mapping starts this far into it ... */
#define TST_TAIL 512   /* ... and ends this far before its end */
#define TST_MEM ((VkDeviceMemory)(uintptr_t)0xabc000)

static size_t tst_page;

/* Two strings equal, both printed where not. */
#define TST_CHECK_STR(got, want)                                                      \
	do {                                                                              \
		if (strcmp((got), (want)) != 0) {                                             \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, (got), \
			        (want));                                                          \
			tst_failures++;                                                           \
		}                                                                             \
	} while (0)

/* Pages of [p, p + npages pages) resident, as a string of 0 and 1. */
static void tst_resident(const uint8_t *p, size_t npages, char *out)
{
	unsigned char v[TST_PAGES];
	TST_REQUIRE(npages <= TST_PAGES);
	TST_REQUIRE(mincore((void *)(uintptr_t)p, npages * tst_page, v) == 0);
	for (size_t i = 0; i < npages; i++)
		out[i] = (v[i] & 1) ? '1' : '0';
	out[npages] = 0;
}

/* Runs vkl_track_populated reports, as "lo-hi " in pages. */
typedef struct tst_runs {
	char text[256];
	size_t at;
} tst_runs;

static void tst_run(void *ctx, size_t lo, size_t hi)
{
	tst_runs *r = ctx;
	r->at += (size_t)snprintf(r->text + r->at, sizeof(r->text) - r->at, "%zu-%zu ", lo, hi);
}

/* The written pages of a fake driver mapping: their bytes, all nonzero. */
static void tst_fill(uint8_t *p)
{
	static const int written[] = { 0, 5, 6, 40, 42 };
	for (size_t k = 0; k < sizeof(written) / sizeof(written[0]); k++)
		for (size_t i = 0; i < tst_page; i++)
			p[written[k] * tst_page + i] = (uint8_t)(1 + (written[k] * 131 + i * 7) % 255);
}

/* A fake driver mapping: pages 0, 5, 6, 40 and 42 written (tst_fill), page
 * 20 read only (the shared zero page), the rest never touched.  (40 and 42:
 * mapped at TST_OFFSET, the snapshot chunks around page 41 each hold bytes
 * of one of them, and are written as one run.) */
static uint8_t *tst_real(int flags)
{
	uint8_t *p = mmap(NULL, TST_PAGES * tst_page, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS,
	                  -1, 0);
	volatile uint8_t sink;
	TST_REQUIRE(p != MAP_FAILED);
	madvise(p, TST_PAGES * tst_page, MADV_NOHUGEPAGE);
	tst_fill(p);
	sink = p[20 * tst_page + 9];
	(void)sink;
	return p;
}

static void tst_scan_checks(int known)
{
	uint8_t *p = tst_real(MAP_PRIVATE), *s;
	tst_runs r = { { 0 }, 0 };
	char res[TST_PAGES + 1], want[TST_PAGES + 1];
	int fd;

	if (!known)
		goto out_fallbacks;
	TST_CHECK(vkl_track_zero_known(p, TST_PAGES * tst_page) == 1);
	TST_CHECK(vkl_track_populated(p, TST_PAGES * tst_page, tst_run, &r) == 0);
	/* the written pages, joined where they touch; not the zero page */
	snprintf(want, sizeof(want), "0-%zu %zu-%zu %zu-%zu %zu-%zu ", tst_page, 5 * tst_page,
	         7 * tst_page, 40 * tst_page, 41 * tst_page, 42 * tst_page, 43 * tst_page);
	TST_CHECK_STR(r.text, want);
	/* an unaligned range: offsets from its start, clipped to it */
	r.at = 0;
	r.text[0] = 0;
	TST_CHECK(vkl_track_populated(p + 100, 6 * tst_page, tst_run, &r) == 0);
	snprintf(want, sizeof(want), "0-%zu %zu-%zu ", tst_page - 100, 5 * tst_page - 100,
	         6 * tst_page + 100 - 100);
	TST_CHECK_STR(r.text, want);
	/* nothing read: only the written pages and the zero page resident */
	tst_resident(p, TST_PAGES, res);
	memset(want, '0', TST_PAGES);
	want[TST_PAGES] = 0;
	want[0] = want[5] = want[6] = want[40] = want[42] = want[20] = '1';
	TST_CHECK_STR(res, want);
	setenv("TRACESMITH_VK_MAP_SCAN", "0", 1);
	TST_CHECK(vkl_track_zero_known(p, TST_PAGES * tst_page) == 0);
	unsetenv("TRACESMITH_VK_MAP_SCAN");

out_fallbacks:
	/* shared anonymous memory: its holes may hold another mapping's bytes */
	s = tst_real(MAP_SHARED);
	TST_CHECK(vkl_track_zero_known(s, TST_PAGES * tst_page) == 0);
	munmap(s, TST_PAGES * tst_page);
	/* a file's private mapping: its holes read the file */
	fd = memfd_create("tst", MFD_CLOEXEC);
	TST_REQUIRE(fd >= 0);
	TST_REQUIRE(ftruncate(fd, (off_t)(TST_PAGES * tst_page)) == 0);
	s = mmap(NULL, TST_PAGES * tst_page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	TST_REQUIRE(s != MAP_FAILED);
	TST_CHECK(vkl_track_zero_known(s, TST_PAGES * tst_page) == 0);
	munmap(s, TST_PAGES * tst_page);
	close(fd);
	munmap(p, TST_PAGES * tst_page);
}

/* One vkMapMemory of size bytes of the fake memory at real, from
 * TST_OFFSET, the initial contents recorded, a host write published,
 * unmapped.  Checks the bytes (against what tst_real wrote, made again
 * here: real itself is not read, but for a few bytes of page 30); returns
 * the driver's pages resident then. */
static void tst_map_once(vkl_device *d, uint8_t *real, size_t size, char *res)
{
	uint8_t *shadow, *want = calloc(TST_PAGES, tst_page);
	void *p = real + TST_OFFSET;

	TST_REQUIRE(want != NULL);
	tst_fill(want);
	TST_REQUIRE(vkl_memory_mapped(d, TST_MEM, TST_OFFSET, size, &p) == VK_SUCCESS);
	shadow = p;
	TST_CHECK(memcmp(shadow, want + TST_OFFSET, size) == 0);
	tst_nwrites = 0;
	TST_CHECK(vkl_memory_map_recorded(d, TST_MEM, 6) == 1);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET);
	TST_CHECK_EQ_U64(tst_writes[0].size, size);
	TST_CHECK_EQ_U64(tst_writes[0].hash, XXH3_64bits(want + TST_OFFSET, size));
	free(want);

	/* the host writes 100 bytes of page 30: recorded, in the driver's mapping */
	tst_nwrites = 0;
	memset(shadow + 30 * tst_page - TST_OFFSET + 8, 0xee, 100);
	vkl_memory_publish(d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, 30 * tst_page + 8);
	TST_CHECK_EQ_U64(tst_writes[0].size, 100);
	TST_CHECK(real[30 * tst_page + 8] == 0xee && real[30 * tst_page + 107] == 0xee &&
	          real[30 * tst_page + 108] == 0);
	tst_nwrites = 0;
	vkl_memory_unmapping(d, TST_MEM);
	TST_CHECK_EQ_U64(tst_nwrites, 0);
	tst_resident(real, TST_PAGES, res);
}

/* A snapshot of the fake memory mapped at TST_OFFSET (its chunks not on
 * the page grid): its writes into w (at most 16), their count returned;
 * res: the driver's pages resident after it. */
static size_t tst_snapshot(vkl_device *d, const VkMemoryAllocateInfo *info, tst_write *w,
                           char *res)
{
	uint8_t *real = tst_real(MAP_PRIVATE);
	size_t size = TST_PAGES * tst_page - TST_OFFSET - TST_TAIL, n;
	void *p = real + TST_OFFSET;

	vkl_memory_allocated(d, TST_MEM, info, 5);
	TST_REQUIRE(vkl_memory_mapped(d, TST_MEM, TST_OFFSET, size, &p) == VK_SUCCESS);
	tst_nwrites = 0;
	TST_CHECK(vkl_memory_snapshot(d, TST_MEM) > 0);
	n = tst_nwrites;
	TST_REQUIRE(n <= 16);
	memcpy(w, tst_writes, n * sizeof(*w));
	tst_resident(real, TST_PAGES, res);
	vkl_memory_unmapping(d, TST_MEM);
	vkl_memory_freed(d, TST_MEM);
	munmap(real, TST_PAGES * tst_page);
	return n;
}

int main(void)
{
	vkl_device d;
	VkMemoryAllocateInfo info;
	uint8_t *real;
	char res[TST_PAGES + 1], want[TST_PAGES + 1];
	size_t size;
	int known;

	tst_page = (size_t)sysconf(_SC_PAGESIZE);
	setenv("TRACESMITH_OUTPUT", tst_path("scan.sbt"), 1);
	TST_REQUIRE(cap_active() == 1);
	size = TST_PAGES * tst_page - TST_OFFSET - TST_TAIL;
	TST_REQUIRE(size >= VKL_MEM_SCAN_MIN);
	TST_REQUIRE(TST_SMALL * tst_page - TST_OFFSET < VKL_MEM_SCAN_MIN);
	real = tst_real(MAP_PRIVATE);
	known = vkl_track_zero_known(real, TST_PAGES * tst_page);
	munmap(real, TST_PAGES * tst_page);
	if (!known)
		printf("note: PROCMAP_QUERY is not available on this kernel: only the whole copy "
		       "is checked\n");
	tst_scan_checks(known);

	tst_device_init(&d);
	memset(&info, 0, sizeof(info));
	info.allocationSize = TST_PAGES * tst_page;

	/* read only where populated: the untouched pages stay so, the host's
	 * page 30 is the driver's first touch of it */
	real = tst_real(MAP_PRIVATE);
	vkl_memory_allocated(&d, TST_MEM, &info, 5);
	tst_map_once(&d, real, size, res);
	memset(want, '0', TST_PAGES);
	want[TST_PAGES] = 0;
	want[0] = want[5] = want[6] = want[40] = want[42] = want[20] = want[30] = '1';
	if (known)
		TST_CHECK_STR(res, want);
	vkl_memory_freed(&d, TST_MEM);
	munmap(real, TST_PAGES * tst_page);

	/* forced whole copy: the same bytes, every page read */
	setenv("TRACESMITH_VK_MAP_SCAN", "0", 1);
	real = tst_real(MAP_PRIVATE);
	vkl_memory_allocated(&d, TST_MEM, &info, 5);
	tst_map_once(&d, real, size, res);
	memset(want, '1', TST_PAGES);
	TST_CHECK_STR(res, want);
	vkl_memory_freed(&d, TST_MEM);
	munmap(real, TST_PAGES * tst_page);
	unsetenv("TRACESMITH_VK_MAP_SCAN");

	/* a small mapping (the first TST_SMALL pages): copied whole with the
	 * scan allowed, its pages read, those after it not */
	real = tst_real(MAP_PRIVATE);
	vkl_memory_allocated(&d, TST_MEM, &info, 5);
	tst_map_once(&d, real, TST_SMALL * tst_page - TST_OFFSET, res);
	memset(want, '1', TST_SMALL);
	memset(want + TST_SMALL, '0', TST_PAGES - TST_SMALL);
	TST_CHECK_STR(res, want);
	vkl_memory_freed(&d, TST_MEM);
	munmap(real, TST_PAGES * tst_page);

	/* a shared driver mapping: copied whole */
	real = tst_real(MAP_SHARED);
	vkl_memory_allocated(&d, TST_MEM, &info, 5);
	tst_map_once(&d, real, size, res);
	vkl_memory_freed(&d, TST_MEM);
	munmap(real, TST_PAGES * tst_page);
	{
		tst_write w_scan[16], w_whole[16];
		size_t n_scan, n_whole;
		n_scan = tst_snapshot(&d, &info, w_scan, res);
		/* pages 30 to 38 are far from every populated page */
		if (known)
			TST_CHECK(strncmp(res + 30, "000000000", 9) == 0);
		setenv("TRACESMITH_VK_MAP_SCAN", "0", 1);
		n_whole = tst_snapshot(&d, &info, w_whole, res);
		unsetenv("TRACESMITH_VK_MAP_SCAN");
		TST_CHECK_EQ_U64(n_scan, n_whole);
		TST_CHECK(n_scan >= 3);
		for (size_t k = 0; k < n_scan && k < n_whole; k++) {
			TST_CHECK_EQ_U64(w_scan[k].offset, w_whole[k].offset);
			TST_CHECK_EQ_U64(w_scan[k].size, w_whole[k].size);
			TST_CHECK_EQ_U64(w_scan[k].hash, w_whole[k].hash);
		}
	}
	TST_CHECK_EQ_U64(vkl_objects_count(), 0);
	/* the device's end: the memory kept from unmapped mappings freed */
	vkl_memory_device_gone(&d);

	cap_shutdown();
	return tst_done();
}
