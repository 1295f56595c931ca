/*
 * vkl_track.h - which pages of a shadow mapping the host wrote since the
 * last look (vkl_track.c), so that publishing compares those pages only.
 *
 * Three trackers, the first that works is chosen once per process
 * (TRACESMITH_VK_TRACKER=uffd|guard|shadow forces one):
 *   uffd    userfaultfd write-protect in asynchronous mode: the kernel marks
 *           a page written on its first write, without a signal, and
 *           PAGEMAP_SCAN on /proc/self/pagemap returns the written pages
 *           and protects them again in one call;
 *   guard   the pages are read-only; the first write faults into a SIGSEGV
 *           handler that makes the page writable and marks it;
 *   shadow  nothing is tracked: every page is compared (as before).
 */
#ifndef VKL_TRACK_H
#define VKL_TRACK_H

#include <stddef.h>
#include <stdint.h>

typedef enum { VKL_TRACK_SHADOW = 0, VKL_TRACK_GUARD, VKL_TRACK_UFFD } vkl_track_kind;

typedef struct vkl_track {
	vkl_track_kind kind; /* VKL_TRACK_SHADOW when the region is not registered */
	uint8_t *base;       /* page-aligned */
	size_t len;          /* a multiple of the page size */
	int slot;            /* guard: index in the handler's table */
	unsigned rest;       /* looks left that report everything (dense writes) */
	unsigned rest_len;   /* length of the last rest */
	int exact;           /* the last look scanned: what it reported of its
	                        whole pages is exactly the pages written (not a
	                        dense rest, not a region that is not tracked) */
	uint64_t looks, pages_seen, pages_written;
	int shared;                    /* registered by vkl_track_register_shared */
	struct vkl_track *shared_next; /* the list of those, while registered */
} vkl_track;

/* The tracker this process uses (chosen on the first call). */
vkl_track_kind vkl_track_active(void);
const char *vkl_track_name(vkl_track_kind k);

/* Track [base, base + len): base page-aligned, len a multiple of the page
 * size, the pages already populated.  Every page starts as not written.
 * On failure t->kind is VKL_TRACK_SHADOW and every look reports all. */
void vkl_track_register(vkl_track *t, void *base, size_t len);
/* The same for pages the application owns and may hand over more than
 * once (imported host memory: two imports of one frame's planes share the
 * pages between them).  The kernel's registration, protection and written
 * marks belong to the pages, not to a tracker: one tracker's look would
 * take the marks of a page from the other, its unregister the other's
 * registration.  So a region overlapping one registered this way is not
 * tracked (VKL_TRACK_SHADOW: every look reports all of it). */
void vkl_track_register_shared(vkl_track *t, void *base, size_t len);
/* Stop tracking (before the region is unmapped); pages become writable. */
void vkl_track_unregister(vkl_track *t);

/* Calls fn(ctx, lo, hi) in ascending order for each run of [lo, hi)
 * (offsets from base) that may have been written since the last look at
 * it, and starts a new period for the whole pages inside [lo, hi): a
 * write after this call is reported by the next.  Pages only partly inside
 * [lo, hi) are always reported and stay as they are.  After it, t->exact
 * says whether the reported whole pages were found written (1) or are
 * everything (0: not tracked, a dense rest, a scan that failed). */
void vkl_track_look(vkl_track *t, size_t lo, size_t hi,
                    void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx);

/* Whether every page of [p, p + len) that is not populated reads as zero
 * (its VMAs private anonymous memory, asked of PROCMAP_QUERY, Linux 6.11):
 * 0 where that cannot be told (an older kernel, a file, shared or device
 * mapping, TRACESMITH_VK_MAP_SCAN=0). */
int vkl_track_zero_known(const void *p, size_t len);
/* Calls fn(ctx, lo, hi) in ascending order for each run of [p, p + len)
 * (offsets from p) whose pages are populated (present, swapped, or a
 * file's; not the shared zero page): with vkl_track_zero_known, every byte
 * outside those runs is zero.  PAGEMAP_SCAN (Linux 6.7); returns -1 where
 * the scan fails (fn may have been called for some runs), else 0.  Reads
 * none of the bytes, so populates nothing. */
int vkl_track_populated(const void *p, size_t len, void (*fn)(void *ctx, size_t lo, size_t hi),
                        void *ctx);

#endif
