/*
 * vkl_memory.c - mapped memory: record what the host wrote, and only that.
 *
 * vkMapMemory hands the application a shadow copy of the driver's mapping
 * and keeps a reference copy of what the application last saw.  Three
 * copies of each mapped range then say who wrote what:
 *
 *   shadow != reference   the host wrote those bytes since the last sync;
 *   real   != reference   the device wrote them (the real mapping is only
 *                         written by the device and by us).
 *
 * Publish (before vkQueueSubmit*, of the ranges it reaches, vkl_reach.c;
 * before vkQueueBindSparse, of everything; the ranges of
 * vkFlushMappedMemoryRanges and vkInvalidateMappedMemoryRanges; before
 * vkUnmapMemory): each run of bytes where
 * shadow != reference is read once, into the reference (most of it by the
 * compare that finds the run, vkl_mem_run_wide_sse2), and from there
 * written into the real mapping and recorded: the runs of one publish of
 * one mapping as one vulkan.tsMemoryWrites record, their bytes one blob
 * in the capture buffer (stored there by the compare too when the pages
 * the tracker reports hold at most VKL_MEM_DIRECT_MAX bytes, else copied
 * there from the reference when the publish ends), each run a piece of it
 * (deduplicated as a blob of its own).  Only the bytes that differ are written to the real mapping:
 * two runs are merged across a gap only where the gap's real bytes still
 * equal the reference, so a device write next to a host write is never
 * overwritten with stale bytes (in the capture or in the replay).
 *
 * Observe (fence wait and status, queue and device idle, semaphore wait,
 * invalidate: points where the program can see device results): copy
 * (after publishing, for an invalidate's range only: see vkl_mem_apply)
 * each run where real != reference into the shadow and the
 * reference, so device-written bytes never look like host writes, and
 * record a checkpoint (hash) of those runs as the result of the call.
 * Only when the device is idle (vkl_device_idle): while work another
 * thread submitted may still be writing, the runs are kept as pending
 * ranges of the mapping and checkpointed at the next idle observation,
 * when their bytes are final, so a checkpoint never depends on timing.
 *
 * vkMapMemory takes the memory an unmapped mapping of the same size left
 * (its shadow, reference and tmp: vkl_mem_keep), or fresh memory, and
 * fills it with the driver's bytes (vkl_mem_take_initial).
 *
 * vkMapMemory: a mapping made before anything was submitted since the
 * allocation holds the driver's initial contents (zeros, or whatever the
 * heap held): they are recorded once as a host write, so that bytes the
 * host later "writes" with the same value replay the same.  The first
 * mapping made after submissions holds results only where they may have
 * written (noted while the object was fresh: vkl_mem_fresh_reached):
 * those ranges are checkpointed, the rest recorded as initial contents
 * (vkl_mem_first_map).  A later mapping made after the device may have
 * written the memory holds results: it is checkpointed whole (when the
 * device is idle), never recorded.
 *
 * Imported host memory (VkImportMemoryHostPointerInfoEXT,
 * VK_EXT_external_memory_host): the application writes the device's bytes
 * directly, at its own address, so there is no shadow to hand out.  The
 * memory is tracked from its allocation to its free as a mapping of all of
 * it whose shadow IS the real mapping (the application's pages, tracked by
 * vkl_track.c like a shadow): a publish compares those pages with the
 * reference and records what differs as host writes (nothing to copy: the
 * device already sees them); an observation takes what differs where
 * submissions may have written as device writes.  So host writes made
 * while the device may still write the same range (after a submission
 * reaching it and before the observation that finds the device idle) are
 * taken for device writes: checkpointed, not recorded.  Its contents at
 * the import are recorded once as host writes (all-zero pages left out:
 * the replay's memory starts zeroed).  vkMapMemory of it hands out the
 * driver's pointer (into the same pages) and changes nothing.
 *
 * Which bytes are compared: a publish compares only the pages the
 * tracker (vkl_track.c: userfaultfd write-protect, guard pages, or none)
 * reports written since its last look, and none of them where the look
 * was exact and the mapping's written pages were last found mostly
 * changed: those pages are published whole (vkl_mem_publish_locked); an observation only the span of the
 * mapping that submissions since the last idle observation could write
 * (dev_lo..dev_hi: what they reach, less buffers the device can only read).
 *
 * Locking: the device's map_mu guards its list of mapped objects; each
 * object's mu serialises syncs of its mapping (submits and waits on
 * different threads).  The command-recording path never comes here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "layers/vulkan/vkl.h"
#include "layers/vulkan/vkl_track.h"
#include "serializer/sbt_vk.h"

/* Runs closer than this are recorded as one write (when the gap allows). */
#define VKL_MEM_MERGE_GAP 32
/* A publish whose written pages (as the tracker reports them) come to at
 * most this many bytes stores its runs into the capture buffer from the
 * compare (vkl_mem_publish_locked); more (a dense mapping, the shadow
 * tracker's whole range) gathers them there when it ends. */
#define VKL_MEM_DIRECT_MAX ((size_t)4 << 20)
/* Most checkpoints one mapping gets at one observation; more runs are
 * covered by one checkpoint from the first to the last. */
#define VKL_MEM_MAX_CHECKPOINTS 16
/* Whole pages: a mapping whose written pages were found mostly changed
 * publishes the pages an exact look reports whole, without a compare, and
 * every this many publishes compares them again to see whether they still
 * are (vkl_mem_publish_locked). */
#define VKL_MEM_WHOLE_SAMPLE 16
/* ... when that compare found at least this share of their bytes changed
 * (per cent; docs/benchmarks.md measured 0, every page whole, for size). */
#ifndef VKL_MEM_WHOLE_PERCENT
#define VKL_MEM_WHOLE_PERCENT 50
#endif
/* A mapping of at least this many bytes gets a reference of its own
 * anonymous memory, and only the driver's populated pages are read at
 * vkMapMemory (vkl_memory_mapped); a smaller one is copied whole.  The
 * scan pays at each map for two /proc files opened and closed and their
 * ioctls (13 us at 64 KiB here), the reference's pages made and zeroed
 * by the kernel and unmapped again at vkUnmapMemory; the whole copy's
 * malloc'd reference reuses pages the heap already holds, up to a size
 * where glibc gives it fresh ones too.  Measured (docs/benchmarks.md,
 * smallmap: a populated object mapped, written and unmapped each submit)
 * the layer's map and unmap took 1.2 to 1.5 times as long with the scan
 * from 64 KiB to 896 KiB, 0.73 to 0.84 times from 1 MiB to 4 MiB.  What
 * the whole copy costs instead, the zero page read into driver pages never
 * written, is bounded by the mapping, under 1 MiB, and paid once a page.
 * (Since a mapping's memory is kept across its unmap, vkl_mem_keep, a
 * remapping pays for no fresh pages either way: docs/benchmarks.md, remap,
 * measured the scan 1.10 to 1.15 times the whole copy's loop at 1 and
 * 4 MiB for an object whose driver pages are all populated, its /proc
 * queries; it stays for the driver's unpopulated pages it leaves alone.) */
#define VKL_MEM_SCAN_MIN ((size_t)1 << 20)
/* The trimmed capture's snapshot of a mapping of at least this many bytes
 * reads only the driver's populated pages (vkl_mem_snap_mapped): it
 * allocates nothing, so the scan costs only its kernel queries, once a
 * window. */
#define VKL_MEM_SNAP_SCAN_MIN ((size_t)64 << 10)

typedef struct vkl_memory {
	struct vkl_memory *next_mapped; /* in the device's list, under map_mu */
	VkDeviceMemory handle;
	VkDeviceSize size;
	VkMemoryPropertyFlags flags;
	uint32_t type_index;
	int dedicated;          /* VkMemoryDedicatedAllocateInfo names a resource */
	uint64_t alloc_submits; /* device submissions when allocated */
	int initial_recorded;   /* the first mapping's contents were recorded */
	int host;               /* imported from the application's host memory:
	                           mapped from allocation to free, shadow == real */
	_Atomic int always;     /* reached through addresses: every submit publishes it */
	/* Until its first vkMapMemory a host-visible object is in the device's
	 * fresh list (d->fresh, under d->map_mu), where each submission notes
	 * what it may write of it (vkl_mem_fresh_reached): up to
	 * VKL_MEM_MAX_CHECKPOINTS ranges of the object (offset, end), the two
	 * closest merged when full, or all of it.  The first map takes the
	 * list out (first_map) and the rest of its bytes are the driver's
	 * initial contents (vkl_memory_map_recorded). */
	struct vkl_memory *fresh_next, **fresh_prev;
	size_t wr[VKL_MEM_MAX_CHECKPOINTS][2];
	size_t nwr;
	int wr_all;
	int first_map; /* the mapping now made is the object's first, until
	                  vkl_memory_map_recorded has recorded it */
	pthread_mutex_t mu;
	/* the mapping, when mapped */
	VkDeviceSize map_offset;
	size_t map_size;
	uint8_t *real;   /* the driver's pointer */
	uint8_t *shadow; /* the application's */
	uint8_t *ref;    /* what the application last saw or wrote */
	size_t ref_len;  /* the reference's own anonymous mapping (bytes), or 0:
	                    malloc'd */
	size_t cap;      /* bytes the reference and tmp can hold (>= map_size) */
	void *shadow_base;
	size_t shadow_len; /* a multiple of the page size */
	uint8_t *tmp; /* the device's bytes of a run, copied once (map_size) */
	vkl_track trk; /* which pages of the shadow the host wrote (vkl_track.c) */
	/* the runs a publish found (offset from the memory object's start,
	 * size), recorded together when it ends (vkl_mem_publish_end) */
	uint64_t (*runs)[2];
	size_t nruns, runs_cap;
	/* the ranges the tracker reported for the publish under way (of the
	 * mapping), before any is compared; and, when it records straight
	 * into the capture buffer, the blob's room there: room_used bytes
	 * of room_max filled, runs up to room_pieces */
	size_t (*spans)[2];
	size_t nspans, spans_cap, span_bytes;
	uint8_t *room;
	cap_rec *room_rec;
	size_t room_used, room_max, room_pieces;
	/* whole pages (vkl_mem_publish_locked): the page size; whether the
	 * last compare of pages an exact look reported found at least half
	 * of their bytes changed; publishes since that compare (mod
	 * VKL_MEM_WHOLE_SAMPLE); bytes of runs the compares found (a
	 * running count, read before and after) */
	size_t page;
	int whole;
	unsigned whole_turn;
	size_t found;
	/* [dev_lo, dev_hi) of the mapping: what submissions since the last
	 * observation that found the device idle may write (a buffer whose
	 * usage only reads is not counted); only that is compared for device
	 * writes.  Empty when dev_lo >= dev_hi. */
	size_t dev_lo, dev_hi;
	/* device-written ranges not checkpointed yet ([lo, hi) of the mapping) */
	size_t pending[VKL_MEM_MAX_CHECKPOINTS][2];
	size_t npending;
} vkl_memory;

static vkl_memory *vkl_mem_find(VkDeviceMemory mem)
{
	vkl_object o;
	if (!vkl_objects_find(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)mem, &o))
		return NULL;
	return o.data;
}

static vkl_track_kind vkl_memory_tracker(void);
static int vkl_mem_clip(const vkl_memory *m, VkDeviceSize offset, VkDeviceSize size, size_t *lo,
                        size_t *hi);
static void vkl_mem_device_may_write(vkl_memory *m, size_t lo, size_t hi);
static uint64_t vkl_mem_snap_write(VkDeviceMemory mem, VkDeviceSize base, const uint8_t *p,
                                   size_t n);

/* Memory imported from the application's host memory at host: mapped
 * whole from now to its free, its shadow the application's pages (see the
 * file's comment), its contents now recorded as host writes. */
static void vkl_mem_host_import(vkl_device *d, vkl_memory *m, void *host)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (size_t)m->size;
	uintptr_t lo = (uintptr_t)host / page * page;
	uintptr_t hi = ((uintptr_t)host + n + page - 1) / page * page;
	m->ref = malloc(n ? n : 1);
	m->tmp = malloc(n ? n : 1);
	if (!m->ref || !m->tmp) {
		free(m->ref);
		free(m->tmp);
		m->ref = m->tmp = NULL;
		CAP_ERROR("Vulkan layer: no memory to track the %zu bytes of host memory imported as "
		          "VkDeviceMemory 0x%llx: the application's writes there are not recorded",
		          n, (unsigned long long)(uintptr_t)m->handle);
		return;
	}
	m->host = 1;
	m->page = page;
	m->real = m->shadow = host;
	m->shadow_base = (void *)lo;
	m->shadow_len = hi - lo;
	m->map_offset = 0;
	m->map_size = n;
	memcpy(m->ref, host, n);
	vkl_memory_tracker();
	vkl_track_register_shared(&m->trk, m->shadow_base, m->shadow_len);
	m->initial_recorded = 1;
	vkl_mem_snap_write(m->handle, 0, m->ref, n);
	pthread_mutex_lock(&d->map_mu);
	m->next_mapped = d->mapped;
	d->mapped = m;
	pthread_mutex_unlock(&d->map_mu);
}

void vkl_memory_allocated(vkl_device *d, VkDeviceMemory mem, const VkMemoryAllocateInfo *info,
                          uint64_t seq)
{
	void *host = NULL;
	vkl_memory *m = calloc(1, sizeof(*m));
	if (!m) {
		CAP_ERROR("Vulkan layer: out of memory tracking VkDeviceMemory 0x%llx",
		          (unsigned long long)(uintptr_t)mem);
		return;
	}
	m->handle = mem;
	m->size = info->allocationSize;
	if (info->memoryTypeIndex < d->mem_props.memoryTypeCount)
		m->flags = d->mem_props.memoryTypes[info->memoryTypeIndex].propertyFlags;
	m->type_index = info->memoryTypeIndex;
	m->alloc_submits = atomic_load(&d->submits);
	for (const VkBaseInStructure *b = info->pNext; b; b = b->pNext) {
		const VkMemoryDedicatedAllocateInfo *ded = (const void *)b;
		if (b->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO &&
		    (ded->image || ded->buffer))
			m->dedicated = 1;
	}
	for (const VkBaseInStructure *b = info->pNext; b; b = b->pNext)
		if (b->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT)
			host = ((const VkImportMemoryHostPointerInfoEXT *)(const void *)b)->pHostPointer;
	/* VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT alone does not make the memory
	 * reachable by address: an address handed out does
	 * (vkl_memory_mark_always from vkl_reach.c).  An address asked for at
	 * the allocation (capture and replay of addresses) is known before. */
	for (const VkBaseInStructure *b = info->pNext; b; b = b->pNext)
		if (b->sType == VK_STRUCTURE_TYPE_MEMORY_OPAQUE_CAPTURE_ADDRESS_ALLOCATE_INFO &&
		    ((const VkMemoryOpaqueCaptureAddressAllocateInfo *)(const void *)b)
		            ->opaqueCaptureAddress)
			atomic_store(&m->always, 1);
	pthread_mutex_init(&m->mu, NULL);
	vkl_objects_add(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)mem, seq,
	                (uint64_t)(uintptr_t)d->handle, m);
	if (host) {
		vkl_mem_host_import(d, m, host);
	} else if (m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
		pthread_mutex_lock(&d->map_mu);
		m->fresh_next = d->fresh;
		if (d->fresh)
			d->fresh->fresh_prev = &m->fresh_next;
		m->fresh_prev = &d->fresh;
		d->fresh = m;
		pthread_mutex_unlock(&d->map_mu);
	}
}

/* Called with d->map_mu held. */
static void vkl_mem_fresh_unlink(vkl_memory *m)
{
	if (!m->fresh_prev)
		return;
	*m->fresh_prev = m->fresh_next;
	if (m->fresh_next)
		m->fresh_next->fresh_prev = m->fresh_prev;
	m->fresh_next = NULL;
	m->fresh_prev = NULL;
}

/* Add [lo, hi) to ranges r[0, *n) (at most VKL_MEM_MAX_CHECKPOINTS); one
 * it overlaps or touches grows, and when they are full the closest grows. */
static void vkl_mem_ranges_add(size_t (*r)[2], size_t *n, size_t lo, size_t hi)
{
	size_t i, best = 0, gap, best_gap = (size_t)-1;
	for (i = 0; i < *n; i++) {
		if (lo <= r[i][1] && hi >= r[i][0]) {
			if (lo < r[i][0])
				r[i][0] = lo;
			if (hi > r[i][1])
				r[i][1] = hi;
			return;
		}
	}
	if (*n < VKL_MEM_MAX_CHECKPOINTS) {
		r[*n][0] = lo;
		r[*n][1] = hi;
		(*n)++;
		return;
	}
	for (i = 0; i < *n; i++) {
		gap = hi <= r[i][0] ? r[i][0] - hi : lo - r[i][1];
		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	if (lo < r[best][0])
		r[best][0] = lo;
	if (hi > r[best][1])
		r[best][1] = hi;
}

/* What the tracker saw, for the report at the device's end: looks, pages
 * they covered, pages found written. */
static atomic_ullong vkl_mem_looks, vkl_mem_pages_seen, vkl_mem_pages_written;
/* Bytes published whole, without a compare (vkl_mem_publish_whole). */
static atomic_ullong vkl_mem_whole_bytes;

/* Called with d->map_mu held. */
static void vkl_mem_unlink(vkl_device *d, vkl_memory *m)
{
	vkl_memory **pp;
	for (pp = &d->mapped; *pp; pp = &(*pp)->next_mapped) {
		if (*pp == m) {
			*pp = m->next_mapped;
			break;
		}
	}
	m->next_mapped = NULL;
}

/*
 * The memory of an unmapped mapping, kept for the next vkMapMemory whose
 * shadow has the same page-rounded length (vkl_mem_keep_take): a program
 * that maps an object, writes it and unmaps it every frame would otherwise
 * have the kernel make, zero and fault in fresh pages for its shadow (and
 * from VKL_MEM_SCAN_MIN its reference) at every map and take them back at
 * every unmap (docs/benchmarks.md, smallmap and remap).  Only plain memory
 * is kept: the tracker's registration is dropped at the unmap as before
 * (a kept shadow is ordinary private anonymous memory, which a fork child
 * inherits like any other), and the next mapping registers it anew, so
 * its tracking starts clean; its bytes are all overwritten or cleared at
 * that map (vkl_mem_take_initial).  A device keeps at most
 * VKL_MEM_KEEP_SLOTS of them and, in all, TRACESMITH_VK_MAP_CACHE bytes
 * (shadow, reference and tmp counted; default VKL_MEM_KEEP_MAX; 0: none
 * kept); the least recently kept go first.  vkFreeMemory of a mapped
 * object keeps its mapping's memory the same way; vkDestroyDevice frees
 * all of it.  Memory no map took within VKL_MEM_KEEP_AGE submissions of
 * the device is freed at the next submission (vkl_memory_submitted): a
 * program that maps once per frame takes its memory back within a frame
 * or two, while memory of objects freed for good (a level's staging
 * buffers) is not held for the rest of the run.
 */
typedef struct vkl_mem_kept {
	struct vkl_mem_kept *next; /* in the device's list, under map_mu */
	void *shadow_base;         /* NULL: nothing (imported host memory's) */
	size_t shadow_len;         /* a multiple of the page size */
	uint8_t *ref;
	size_t ref_len; /* as vkl_memory's: mapped, or 0: malloc'd */
	uint8_t *tmp;
	size_t cap;   /* bytes ref and tmp hold */
	uint64_t due; /* the device's submission that frees it, if untaken */
} vkl_mem_kept;

#ifndef VKL_MEM_KEEP_MAX
#define VKL_MEM_KEEP_MAX ((size_t)64 << 20)
#endif
#define VKL_MEM_KEEP_SLOTS 16
#ifndef VKL_MEM_KEEP_AGE
#define VKL_MEM_KEEP_AGE 64
#endif

/* Mappings made with kept memory, and all mappings made (vkl_memory_mapped),
 * and kept memories freed untaken after VKL_MEM_KEEP_AGE submissions, for
 * the report at the device's end. */
static atomic_ullong vkl_mem_maps_kept, vkl_mem_maps, vkl_mem_kept_aged;

static pthread_once_t vkl_mem_keep_once = PTHREAD_ONCE_INIT;
static size_t vkl_mem_keep_max_bytes = VKL_MEM_KEEP_MAX;

/* TRACESMITH_VK_MAP_CACHE=N[k|m|g]: the bytes a device keeps. */
static void vkl_mem_keep_init(void)
{
	const char *v = getenv("TRACESMITH_VK_MAP_CACHE");
	char *end;
	unsigned long long n;
	if (!v || !*v)
		return;
	errno = 0;
	n = strtoull(v, &end, 10);
	switch (*end) {
	case 'g': case 'G': n <<= 10; /* fall through */
	case 'm': case 'M': n <<= 10; /* fall through */
	case 'k': case 'K': n <<= 10; end++; break;
	default: break;
	}
	if (errno || end == v || *end) {
		CAP_WARN("TRACESMITH_VK_MAP_CACHE=%s is not a byte count (N, Nk, Nm or Ng): keeping "
		         "up to %zu bytes of unmapped memory", v, vkl_mem_keep_max_bytes);
		return;
	}
	vkl_mem_keep_max_bytes = (size_t)n;
}

static size_t vkl_mem_keep_max(void)
{
	pthread_once(&vkl_mem_keep_once, vkl_mem_keep_init);
	return vkl_mem_keep_max_bytes;
}

static size_t vkl_mem_kept_bytes(const vkl_mem_kept *k)
{
	return k->shadow_len + (k->ref_len ? k->ref_len : k->cap) + k->cap;
}

/* Frees what k holds (not k itself). */
static void vkl_mem_kept_release(vkl_mem_kept *k)
{
	if (k->shadow_base)
		munmap(k->shadow_base, k->shadow_len);
	if (k->ref_len)
		munmap(k->ref, k->ref_len);
	else
		free(k->ref);
	free(k->tmp);
	memset(k, 0, sizeof(*k));
}

/* Takes m's mapping apart: its tracking stopped, its memory into *k (the
 * application's own pages of imported host memory left out), m left
 * unmapped.  Called with m->mu held, or with m unreachable. */
static void vkl_mem_detach(vkl_memory *m, vkl_mem_kept *k)
{
	memset(k, 0, sizeof(*k));
	if (m->shadow_base) {
		atomic_fetch_add(&vkl_mem_looks, m->trk.looks);
		atomic_fetch_add(&vkl_mem_pages_seen, m->trk.pages_seen);
		atomic_fetch_add(&vkl_mem_pages_written, m->trk.pages_written);
		vkl_track_unregister(&m->trk);
		if (!m->host) { /* the application's own pages stay */
			k->shadow_base = m->shadow_base;
			k->shadow_len = m->shadow_len;
		}
	}
	k->ref = m->ref;
	k->ref_len = m->ref_len;
	k->tmp = m->tmp;
	k->cap = m->cap;
	m->ref_len = 0;
	m->cap = 0;
	free(m->runs);
	m->runs = NULL;
	m->nruns = m->runs_cap = 0;
	free(m->spans);
	m->spans = NULL;
	m->nspans = m->spans_cap = 0;
	m->shadow_base = NULL;
	m->shadow = m->ref = m->real = m->tmp = NULL;
	m->map_size = 0;
	m->npending = 0;
}

static void vkl_mem_drop_mapping(vkl_memory *m)
{
	vkl_mem_kept k;
	vkl_mem_detach(m, &k);
	vkl_mem_kept_release(&k);
}

/* Frees a list of kept memories cut from a device's. */
static void vkl_mem_kept_free(vkl_mem_kept *gone)
{
	while (gone) {
		vkl_mem_kept *e = gone->next;
		vkl_mem_kept_release(gone);
		free(gone);
		gone = e;
	}
}

/* d->kept_due: the submission that frees the least recently kept (the
 * list's last), 0: nothing kept.  Called with d->map_mu held. */
static void vkl_mem_kept_due(vkl_device *d)
{
	vkl_mem_kept *e = d->kept;
	while (e && e->next)
		e = e->next;
	atomic_store_explicit(&d->kept_due, e ? e->due : 0, memory_order_relaxed);
}

/* Keeps *k's memory in d's list (or frees it: no shadow of ours, larger
 * than the cap, no memory for the entry); the least recently kept beyond
 * the cap or VKL_MEM_KEEP_SLOTS are freed.  Takes d->map_mu: call it with
 * no mapping's mu held. */
static void vkl_mem_keep(vkl_device *d, vkl_mem_kept *k)
{
	size_t max = vkl_mem_keep_max(), n = 0, bytes = 0;
	vkl_mem_kept *e, **pp, *gone;
	if (!k->shadow_base || vkl_mem_kept_bytes(k) > max || !(e = malloc(sizeof(*e)))) {
		vkl_mem_kept_release(k);
		return;
	}
	*e = *k;
	pthread_mutex_lock(&d->map_mu);
	e->due = atomic_load(&d->submits) + (uint64_t)(VKL_MEM_KEEP_AGE);
	e->next = d->kept;
	d->kept = e;
	/* the most recently kept that fit the cap and the slots stay (the
	 * new one does: it fits alone), the list is cut after them */
	for (pp = &d->kept; *pp; pp = &(*pp)->next) {
		size_t b = vkl_mem_kept_bytes(*pp);
		if (bytes + b > max || n == VKL_MEM_KEEP_SLOTS)
			break;
		bytes += b;
		n++;
	}
	gone = *pp;
	*pp = NULL;
	d->kept_bytes = bytes;
	vkl_mem_kept_due(d);
	pthread_mutex_unlock(&d->map_mu);
	vkl_mem_kept_free(gone);
}

/* Memory d kept whose shadow is shadow_len bytes and whose reference and
 * tmp hold size bytes, into *k (1); 0: none. */
static int vkl_mem_keep_take(vkl_device *d, size_t shadow_len, size_t size, vkl_mem_kept *k)
{
	vkl_mem_kept *e = NULL, **pp;
	pthread_mutex_lock(&d->map_mu);
	for (pp = &d->kept; *pp; pp = &(*pp)->next) {
		if ((*pp)->shadow_len == shadow_len && (*pp)->cap >= size) {
			e = *pp;
			*pp = e->next;
			d->kept_bytes -= vkl_mem_kept_bytes(e);
			vkl_mem_kept_due(d);
			break;
		}
	}
	pthread_mutex_unlock(&d->map_mu);
	if (!e)
		return 0;
	*k = *e;
	k->next = NULL;
	free(e);
	return 1;
}

void vkl_memory_submitted(vkl_device *d, uint64_t n)
{
	uint64_t due = atomic_load_explicit(&d->kept_due, memory_order_relaxed);
	vkl_mem_kept *gone, **pp;
	unsigned long long aged = 0;
	if (!due || n < due)
		return;
	pthread_mutex_lock(&d->map_mu);
	/* most recently kept first: the first one due and all after it go */
	for (pp = &d->kept; *pp && n < (*pp)->due; pp = &(*pp)->next)
		;
	gone = *pp;
	*pp = NULL;
	for (vkl_mem_kept *e = gone; e; e = e->next) {
		d->kept_bytes -= vkl_mem_kept_bytes(e);
		aged++;
	}
	vkl_mem_kept_due(d);
	pthread_mutex_unlock(&d->map_mu);
	atomic_fetch_add(&vkl_mem_kept_aged, aged);
	vkl_mem_kept_free(gone);
}

void vkl_memory_freed(vkl_device *d, VkDeviceMemory mem)
{
	vkl_memory *m = vkl_mem_find(mem);
	vkl_objects_remove(VK_OBJECT_TYPE_DEVICE_MEMORY, (uint64_t)(uintptr_t)mem);
	if (!m)
		return;
	vkl_mem_kept k;
	pthread_mutex_lock(&d->map_mu);
	vkl_mem_unlink(d, m);
	vkl_mem_fresh_unlink(m);
	pthread_mutex_unlock(&d->map_mu);
	/* a mapping freed with its object: its memory kept as at an unmap */
	pthread_mutex_lock(&m->mu);
	vkl_mem_detach(m, &k);
	pthread_mutex_unlock(&m->mu);
	vkl_mem_keep(d, &k);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

void vkl_memory_device_gone(vkl_device *d)
{
	pthread_mutex_lock(&d->map_mu);
	while (d->mapped) {
		vkl_memory *m = d->mapped;
		d->mapped = m->next_mapped;
		vkl_mem_drop_mapping(m);
	}
	while (d->fresh)
		vkl_mem_fresh_unlink(d->fresh);
	vkl_mem_kept_free(d->kept);
	d->kept = NULL;
	d->kept_bytes = 0;
	atomic_store_explicit(&d->kept_due, 0, memory_order_relaxed);
	pthread_mutex_unlock(&d->map_mu);
	CAP_INFO("Vulkan layer: mapped memory tracker %s: %llu looks found %llu of %llu pages "
	         "written, %llu bytes published as whole pages", vkl_track_name(vkl_track_active()),
	         (unsigned long long)atomic_load(&vkl_mem_looks),
	         (unsigned long long)atomic_load(&vkl_mem_pages_written),
	         (unsigned long long)atomic_load(&vkl_mem_pages_seen),
	         (unsigned long long)atomic_load(&vkl_mem_whole_bytes));
	CAP_INFO("Vulkan layer: %llu of %llu mappings made with memory kept from an unmapped one "
	         "(up to %zu bytes kept; %llu kept memories freed untaken after %llu submissions)",
	         (unsigned long long)atomic_load(&vkl_mem_maps_kept),
	         (unsigned long long)atomic_load(&vkl_mem_maps), vkl_mem_keep_max(),
	         (unsigned long long)atomic_load(&vkl_mem_kept_aged),
	         (unsigned long long)(VKL_MEM_KEEP_AGE));
}

/* The tracker this process uses, named in the trace's metadata
 * (vulkan.memory_tracker) the first time. */
static vkl_track_kind vkl_memory_tracker(void)
{
	static atomic_int named;
	vkl_track_kind k = vkl_track_active();
	if (!atomic_exchange(&named, 1))
		cap_set_meta("vulkan.memory_tracker", vkl_track_name(k));
	return k;
}

typedef struct vkl_mem_take {
	vkl_memory *m;
	size_t bytes; /* read from the driver's mapping */
	size_t done;  /* kept memory: the shadow and reference hold the
	                 driver's bytes up to here (its stale bytes after) */
	int kept;
} vkl_mem_take;

static void vkl_mem_take_run(void *ctx, size_t lo, size_t hi)
{
	vkl_mem_take *t = ctx;
	if (t->kept && lo > t->done) {
		memset(t->m->shadow + t->done, 0, lo - t->done);
		memset(t->m->ref + t->done, 0, lo - t->done);
	}
	memcpy(t->m->shadow + lo, t->m->real + lo, hi - lo);
	memcpy(t->m->ref + lo, t->m->real + lo, hi - lo);
	t->bytes += hi - lo;
	t->done = hi;
}

/*
 * The driver's bytes at vkMapMemory into the shadow and the reference.
 * With scan (the driver's mapping is private anonymous memory,
 * vkl_track_zero_known), and where the kernel says which of its pages are
 * populated, only those are read: the others are zero, as the fresh
 * shadow and reference are, and as kept ones (kept) are made by clearing
 * what lies between the runs read.  Reading them would map the kernel's
 * shared zero page there, and the first write of such a page (a publish's,
 * into the driver's mapping) would then be a copy-on-write fault with a
 * TLB flush on every CPU running the process (an interrupt to the
 * capture's writer thread), where the same write without the layer is a
 * plain first-touch fault.  Anything else: all of it copied.  A kept
 * shadow's bytes outside the mapping (before its offset in the first page,
 * after its end in the last) are cleared too: the shadow is then what a
 * fresh one would be, byte for byte.  The debug log says which, and how
 * many bytes were read.
 */
static void vkl_mem_take_initial(vkl_memory *m, int scan, int kept)
{
	vkl_mem_take t = { m, 0, 0, kept };
	if (kept) {
		uint8_t *end = m->shadow + m->map_size;
		memset(m->shadow_base, 0, (size_t)(m->shadow - (uint8_t *)m->shadow_base));
		memset(end, 0, (size_t)((uint8_t *)m->shadow_base + m->shadow_len - end));
	}
	if (scan) {
		/* zero pages of their own, made by the kernel in one call each
		 * (Linux 5.14; without it they fault in when first written): the
		 * application's first write of a page and a publish's find them
		 * there, as when they were copied into (docs/benchmarks.md,
		 * mapwall: leaving them to fault in made the loop slower); kept
		 * memory has its pages already */
		if (!kept) {
			madvise(m->shadow_base, m->shadow_len, MADV_POPULATE_WRITE);
			if (m->ref_len)
				madvise(m->ref, m->ref_len, MADV_POPULATE_WRITE);
		}
		if (vkl_track_populated(m->real, m->map_size, vkl_mem_take_run, &t) == 0) {
			if (kept && t.done < m->map_size) {
				memset(m->shadow + t.done, 0, m->map_size - t.done);
				memset(m->ref + t.done, 0, m->map_size - t.done);
			}
			CAP_DEBUG("Vulkan layer: VkDeviceMemory 0x%llx mapped (%zu bytes): %zu bytes of "
			          "populated pages read", (unsigned long long)(uintptr_t)m->handle,
			          m->map_size, t.bytes);
			return;
		}
	}
	memcpy(m->shadow, m->real, m->map_size);
	memcpy(m->ref, m->real, m->map_size);
	CAP_DEBUG("Vulkan layer: VkDeviceMemory 0x%llx mapped (%zu bytes): copied whole",
	          (unsigned long long)(uintptr_t)m->handle, m->map_size);
}

VkResult vkl_memory_mapped(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                           VkDeviceSize size, void **pp_data)
{
	vkl_memory *m = vkl_mem_find(mem);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t lead, len;
	vkl_mem_kept k;
	int scan, kept;
	void *base;
	/* allocated before the layer could see it: left alone; imported host
	 * memory: tracked whole already, the driver's pointer is into it */
	if (!m || m->host)
		return VK_SUCCESS;
	if (size == VK_WHOLE_SIZE)
		size = m->size > offset ? m->size - offset : 0;
	/* (shadow - offset) stays a multiple of the page size, so the
	 * application sees the alignment minMemoryMapAlignment promises. */
	lead = (size_t)(offset % (VkDeviceSize)page);
	len = (lead + (size_t)size + page - 1) / page * page;
	if (len == 0)
		len = page;
	m->real = *pp_data;
	m->map_offset = offset;
	m->map_size = (size_t)size;
	scan = m->map_size >= VKL_MEM_SCAN_MIN && vkl_track_zero_known(m->real, m->map_size);
	kept = vkl_mem_keep_take(d, len, m->map_size ? m->map_size : 1, &k);
	atomic_fetch_add(&vkl_mem_maps, 1);
	if (kept) {
		atomic_fetch_add(&vkl_mem_maps_kept, 1);
		base = k.shadow_base;
		m->ref = k.ref;
		m->ref_len = k.ref_len;
		m->tmp = k.tmp;
		m->cap = k.cap;
	} else {
		base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			goto out_nomem;
		/* tracked pages: a huge page would be reported written whole */
		if (vkl_memory_tracker() != VKL_TRACK_SHADOW)
			madvise(base, len, MADV_NOHUGEPAGE);
	}
	m->shadow_base = base;
	m->shadow_len = len;
	m->shadow = (uint8_t *)base + lead;
	m->page = page;
	m->whole = 0;
	m->whole_turn = 0;
	if (!kept) {
		m->cap = m->map_size ? m->map_size : 1;
		if (scan) {
			/* anonymous memory of its own: fresh zero pages */
			size_t rlen = (m->map_size + page - 1) / page * page;
			void *ref = mmap(NULL, rlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			                 -1, 0);
			if (ref == MAP_FAILED)
				goto out_drop;
			m->ref = ref;
			m->ref_len = rlen;
		} else {
			m->ref = malloc(m->cap);
		}
		m->tmp = malloc(m->cap);
		if (!m->ref || !m->tmp)
			goto out_drop;
	}
	vkl_mem_take_initial(m, scan, kept);
	vkl_track_register(&m->trk, base, len);
	pthread_mutex_lock(&d->map_mu);
	/* work submitted before this mapping may have written it, or still be
	 * writing it: at the first map, what the submissions since the
	 * allocation may write (noted under map_mu, which a submission holds
	 * while it publishes, so one that has not published yet finds the
	 * mapping below and notes its reach there); else all of it */
	m->first_map = m->fresh_prev != NULL;
	vkl_mem_fresh_unlink(m);
	m->dev_lo = m->dev_hi = 0;
	if (!m->first_map || m->wr_all) {
		if (atomic_load(&d->submits) != m->alloc_submits)
			m->dev_hi = m->map_size;
	} else {
		for (size_t r = 0; r < m->nwr; r++) {
			size_t lo, hi;
			if (vkl_mem_clip(m, m->wr[r][0], m->wr[r][1] - m->wr[r][0], &lo, &hi))
				vkl_mem_device_may_write(m, lo, hi);
		}
	}
	m->next_mapped = d->mapped;
	d->mapped = m;
	pthread_mutex_unlock(&d->map_mu);
	*pp_data = m->shadow;
	return VK_SUCCESS;

out_drop:
	vkl_mem_drop_mapping(m);
out_nomem:
	m->map_size = 0;
	m->real = NULL;
	CAP_ERROR("Vulkan layer: no memory for a shadow of %llu mapped bytes",
	          (unsigned long long)size);
	return VK_ERROR_OUT_OF_HOST_MEMORY;
}

/*
 * The first map of an object that submissions since its allocation may
 * have written in part (m->wr), or not at all: those ranges hold results,
 * checkpointed when final (idle, and no submission since: see
 * vkl_mem_apply); the rest of the mapping (all of it when nothing could
 * write it) holds the driver's initial contents, which a replay would not
 * reproduce: recorded once, as if the host had written them, so that
 * bytes the host later writes with the same value replay the same.
 * Checkpointing the whole mapping would compare bytes no command
 * wrote, which a replay's allocation does not hold (lavapipe's memory
 * comes from the heap: a readback buffer of 2 MiB whose first 4 bytes a
 * copy wrote held leftover heap bytes after them).  Called with m->mu held;
 * returns 1 when it recorded, 2 when it checkpointed too.
 */
static int vkl_mem_first_map(vkl_device *d, vkl_memory *m, uint64_t seq, uint64_t submits)
{
	size_t r[VKL_MEM_MAX_CHECKPOINTS][2], n = 0, i, j, at = 0;
	int ret = 0, idle;
	for (i = 0; i < m->nwr; i++) {
		size_t lo, hi;
		if (vkl_mem_clip(m, m->wr[i][0], m->wr[i][1] - m->wr[i][0], &lo, &hi))
			vkl_mem_ranges_add(r, &n, lo, hi);
	}
	/* ascending (a range grown by a merge may now touch a neighbour) */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && r[j][0] < r[j - 1][0]; j--) {
			size_t t0 = r[j][0], t1 = r[j][1];
			r[j][0] = r[j - 1][0];
			r[j][1] = r[j - 1][1];
			r[j - 1][0] = t0;
			r[j - 1][1] = t1;
		}
	for (i = 1, j = 0; i < n; i++) {
		if (r[i][0] <= r[j][1]) {
			if (r[i][1] > r[j][1])
				r[j][1] = r[i][1];
		} else {
			j++;
			r[j][0] = r[i][0];
			r[j][1] = r[i][1];
		}
	}
	if (n)
		n = j + 1;
	m->initial_recorded = 1;
	m->first_map = 0; /* done: recorded once */
	for (i = 0; i <= n; i++) {
		size_t end = i < n ? r[i][0] : m->map_size;
		if (end > at) {
			vkl_emit_memory_write((uint64_t)(uintptr_t)m->handle, m->map_offset + at,
			                      m->ref + at, end - at);
			ret = 1;
		}
		if (i < n)
			at = r[i][1];
	}
	idle = atomic_load(&d->completed) >= submits && atomic_load(&d->submits) == submits;
	for (i = 0; idle && i < n; i++) {
		cap_checkpoint(seq, (uint64_t)(uintptr_t)m->handle, m->map_offset + r[i][0],
		               m->ref + r[i][0], r[i][1] - r[i][0]);
		ret = 2;
	}
	return ret;
}

int vkl_memory_map_recorded(vkl_device *d, VkDeviceMemory mem, uint64_t seq)
{
	vkl_memory *m = vkl_mem_find(mem);
	uint64_t submits = atomic_load(&d->submits);
	int ret = 0;
	if (!m || m->host)
		return 0;
	/* m->mu: another thread's submission may publish this mapping now */
	pthread_mutex_lock(&m->mu);
	if (!m->shadow) {
		ret = 0;
	} else if (m->first_map && !m->wr_all) {
		ret = vkl_mem_first_map(d, m, seq, submits);
	} else if (submits == m->alloc_submits) {
		/* A later map, nothing ran since the allocation: the driver's
		 * initial contents, recorded once (the first map records them
		 * unless no capture window was open then). */
		if (!m->initial_recorded) {
			m->initial_recorded = 1;
			vkl_emit_memory_write((uint64_t)(uintptr_t)mem, m->map_offset, m->ref,
			                      m->map_size);
			ret = 1;
		}
	} else if (atomic_load(&d->completed) >= submits &&
	           atomic_load(&d->submits) == submits) {
		/* The device may have written it: a result, checkpointed when
		 * final (idle, and no submission since: see vkl_mem_apply). */
		cap_checkpoint(seq, (uint64_t)(uintptr_t)mem, m->map_offset, m->ref, m->map_size);
		ret = 2;
	}
	pthread_mutex_unlock(&m->mu);
	return ret;
}

/* 0xff in each byte of x that is not zero, 0x00 in each that is (no
 * carry crosses a byte: (b & 0x7f) + 0x7f is at most 0xfe). */
static inline uint64_t vkl_mem_nonzero_bytes(uint64_t x)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t t = ((x & low7) + low7) | x;
	return ((t >> 7) & 0x0101010101010101ull) * 0xff;
}

/* Sixteen bytes as one vector (GCC/Clang vector extension: SSE2 on
 * x86-64, NEON on arm64, plain words elsewhere). */
typedef uint8_t vkl_mem_v16 __attribute__((vector_size(16)));

/* 0xff in each of sixteen bytes where a and b are equal. */
static inline vkl_mem_v16 vkl_mem_eq16(const uint8_t *a, const uint8_t *b)
{
	vkl_mem_v16 x, y;
	memcpy(&x, a, 16);
	memcpy(&y, b, 16);
	return (vkl_mem_v16)(x == y);
}

/*
 * Where a run of differing bytes of a against b goes on from j, many bytes
 * a step while none of them is equal (a page the host rewrote whole,
 * results the device wrote: kilobytes to megabytes).  Returns the first
 * j' >= j where the steps stopped (an equal byte within the next step, or
 * too few bytes left).  With out (not NULL) the bytes of a stepped over
 * are also stored into b and into out, from the loads the compare made:
 * publishing copies a run of the shadow into the reference and the
 * driver's mapping, and doing it here saves two passes over the bytes.
 * Only whole steps found differing are stored, so b still differs from a
 * wherever the run has not been decided yet.  With room (not NULL) they
 * are stored a third time, at room + (j - room_at): the capture buffer's
 * blob, when the publish records straight into it.
 *
 * SSE2: sixty-four bytes a step, four vector compares and one test.
 */
static inline __attribute__((always_inline)) size_t
vkl_mem_run_wide_sse2(const uint8_t *a, uint8_t *b, uint8_t *out, uint8_t *room, size_t room_at,
                      size_t j, size_t n)
{
	while (j + 64 <= n) {
		vkl_mem_v16 eq = vkl_mem_eq16(a + j, b + j) | vkl_mem_eq16(a + j + 16, b + j + 16) |
		                 vkl_mem_eq16(a + j + 32, b + j + 32) |
		                 vkl_mem_eq16(a + j + 48, b + j + 48);
		uint64_t w[2];
		memcpy(w, &eq, 16);
		if (w[0] | w[1])
			break;
		if (out) {
			uint8_t v[64];
			memcpy(v, a + j, 64);
			memcpy(b + j, v, 64);
			memcpy(out + j, v, 64);
			if (room)
				memcpy(room + (j - room_at), v, 64);
		}
		j += 64;
	}
	return j;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VKL_MEM_HAVE_AVX2 1
typedef uint8_t vkl_mem_v32 __attribute__((vector_size(32)));

/* AVX2: 128 bytes a step (four 32-byte compares, one test), the rest left
 * to the SSE2 steps.  The compare is most of what publishing a written
 * page costs the application's thread; this is about a third of the SSE2
 * steps' instructions (docs/benchmarks.md).  Chosen at run time. */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) size_t
vkl_mem_run_wide_avx2(const uint8_t *a, uint8_t *b, uint8_t *out, uint8_t *room, size_t room_at,
                      size_t j, size_t n)
{
	while (j + 128 <= n) {
		vkl_mem_v32 x0, x1, x2, x3, y0, y1, y2, y3, eq;
		memcpy(&x0, a + j, 32);
		memcpy(&y0, b + j, 32);
		memcpy(&x1, a + j + 32, 32);
		memcpy(&y1, b + j + 32, 32);
		memcpy(&x2, a + j + 64, 32);
		memcpy(&y2, b + j + 64, 32);
		memcpy(&x3, a + j + 96, 32);
		memcpy(&y3, b + j + 96, 32);
		eq = (vkl_mem_v32)(x0 == y0) | (vkl_mem_v32)(x1 == y1) | (vkl_mem_v32)(x2 == y2) |
		     (vkl_mem_v32)(x3 == y3);
		if (!_mm256_testz_si256((__m256i)eq, (__m256i)eq))
			break;
		if (out) {
			memcpy(b + j, &x0, 32);
			memcpy(b + j + 32, &x1, 32);
			memcpy(b + j + 64, &x2, 32);
			memcpy(b + j + 96, &x3, 32);
			memcpy(out + j, &x0, 32);
			memcpy(out + j + 32, &x1, 32);
			memcpy(out + j + 64, &x2, 32);
			memcpy(out + j + 96, &x3, 32);
			if (room) {
				uint8_t *r = room + (j - room_at);
				memcpy(r, &x0, 32);
				memcpy(r + 32, &x1, 32);
				memcpy(r + 64, &x2, 32);
				memcpy(r + 96, &x3, 32);
			}
		}
		j += 128;
	}
	return j;
}

/* The AVX2 steps without and with the capture buffer's store, each its own
 * copy of the loop: a test of room in every step cost the dense case
 * about 2 % of its instructions. */
__attribute__((target("avx2"))) static size_t vkl_mem_run_avx2(const uint8_t *a, uint8_t *b,
                                                               uint8_t *out, size_t j, size_t n)
{
	return vkl_mem_run_wide_avx2(a, b, out, NULL, 0, j, n);
}

__attribute__((target("avx2"))) static size_t vkl_mem_run_avx2_room(const uint8_t *a, uint8_t *b,
                                                                    uint8_t *out, uint8_t *room,
                                                                    size_t room_at, size_t j,
                                                                    size_t n)
{
	return vkl_mem_run_wide_avx2(a, b, out, room, room_at, j, n);
}
#endif

/* The run of differing bytes of a against b from j on, the wide steps
 * first (storing as vkl_mem_run_wide_sse2 says when out is not NULL),
 * then sixteen, eight and one byte at a time (never storing).  Returns
 * the run's end; *stored_out: where the stored stretch [j, *stored_out)
 * ends. */
static size_t vkl_mem_run_on(const uint8_t *a, uint8_t *b, uint8_t *out, uint8_t *room,
                             size_t j, size_t n, size_t *stored_out)
{
	size_t room_at = j;
#ifdef VKL_MEM_HAVE_AVX2
	if (__builtin_cpu_supports("avx2"))
		j = room ? vkl_mem_run_avx2_room(a, b, out, room, room_at, j, n)
		         : vkl_mem_run_avx2(a, b, out, j, n);
#endif
	/* the same for the SSE2 steps: the loop inlined twice */
	if (room)
		j = vkl_mem_run_wide_sse2(a, b, out, room, room_at, j, n);
	else
		j = vkl_mem_run_wide_sse2(a, b, out, NULL, 0, j, n);
	*stored_out = j;
	while (j + 16 <= n) {
		vkl_mem_v16 eq = vkl_mem_eq16(a + j, b + j);
		uint64_t w[2];
		memcpy(w, &eq, 16);
		if (w[0] | w[1])
			break;
		j += 16;
	}
	while (j + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, a + j, 8);
		memcpy(&y, b + j, 8);
		if (vkl_mem_nonzero_bytes(x ^ y) != ~(uint64_t)0)
			break;
		j += 8;
	}
	while (j < n && a[j] != b[j])
		j++;
	return j;
}

/* Length of the run of differing bytes starting at i (a[i] != b[i]): at
 * least 1, even where the device changed a[i] back since it was read (the
 * callers' loops advance by it).  The steps start at i itself, so that a
 * run starting on a page boundary is stepped over whole. */
static size_t vkl_mem_run(const uint8_t *a, const uint8_t *b, size_t i, size_t n)
{
	size_t stored;
	/* out NULL: nothing is stored into b */
	size_t end = vkl_mem_run_on(a, (uint8_t *)(uintptr_t)b, NULL, NULL, i, n, &stored);
	return end > i ? end - i : 1;
}

/* The same, also storing a stretch of the run [i, *stored_out) of a into
 * b and out (vkl_mem_run_wide_sse2), and into room[0, *stored_out - i)
 * when room is not NULL (the capture buffer). */
static size_t vkl_mem_run_copy(const uint8_t *a, uint8_t *b, uint8_t *out, uint8_t *room,
                               size_t i, size_t n, size_t *stored_out)
{
	size_t end = vkl_mem_run_on(a, b, out, room, i, n, stored_out);
	return end > i ? end - i : 1;
}

/*
 * Whole pages, no compare: src[0, n) (n a multiple of 128) read once and
 * stored into ref, out and, when room is not NULL, room, from the same
 * loads (so all of them hold one version of the bytes, whatever another
 * thread writes into src meanwhile).  Sixty-four bytes a step; the AVX2
 * copy below takes 128.
 */
static inline __attribute__((always_inline)) void
vkl_mem_copy_wide(const uint8_t *src, uint8_t *ref, uint8_t *out, uint8_t *room, size_t n)
{
	for (size_t j = 0; j < n; j += 64) {
		uint8_t v[64];
		memcpy(v, src + j, 64);
		memcpy(ref + j, v, 64);
		memcpy(out + j, v, 64);
		if (room)
			memcpy(room + j, v, 64);
	}
}

#ifdef VKL_MEM_HAVE_AVX2
static inline __attribute__((always_inline)) __attribute__((target("avx2"))) void
vkl_mem_copy_wide_avx2(const uint8_t *src, uint8_t *ref, uint8_t *out, uint8_t *room, size_t n)
{
	for (size_t j = 0; j < n; j += 128) {
		vkl_mem_v32 x0, x1, x2, x3;
		memcpy(&x0, src + j, 32);
		memcpy(&x1, src + j + 32, 32);
		memcpy(&x2, src + j + 64, 32);
		memcpy(&x3, src + j + 96, 32);
		memcpy(ref + j, &x0, 32);
		memcpy(ref + j + 32, &x1, 32);
		memcpy(ref + j + 64, &x2, 32);
		memcpy(ref + j + 96, &x3, 32);
		memcpy(out + j, &x0, 32);
		memcpy(out + j + 32, &x1, 32);
		memcpy(out + j + 64, &x2, 32);
		memcpy(out + j + 96, &x3, 32);
		if (room) {
			memcpy(room + j, &x0, 32);
			memcpy(room + j + 32, &x1, 32);
			memcpy(room + j + 64, &x2, 32);
			memcpy(room + j + 96, &x3, 32);
		}
	}
}

__attribute__((target("avx2"))) static void vkl_mem_copy3_avx2(const uint8_t *src, uint8_t *ref,
                                                               uint8_t *out, uint8_t *room,
                                                               size_t n)
{
	if (room)
		vkl_mem_copy_wide_avx2(src, ref, out, room, n);
	else
		vkl_mem_copy_wide_avx2(src, ref, out, NULL, n);
}
#endif

static void vkl_mem_copy3(const uint8_t *src, uint8_t *ref, uint8_t *out, uint8_t *room, size_t n)
{
#ifdef VKL_MEM_HAVE_AVX2
	if (__builtin_cpu_supports("avx2")) {
		vkl_mem_copy3_avx2(src, ref, out, room, n);
		return;
	}
#endif
	if (room)
		vkl_mem_copy_wide(src, ref, out, room, n);
	else
		vkl_mem_copy_wide(src, ref, out, NULL, n);
}

/* The device's bytes src[0, n) into the shadow where they differ from the
 * reference, and all of them into the reference; eight bytes a step.
 * Only bytes the device changed are stored into the shadow: another
 * application thread may be writing other bytes of the same word at this
 * moment (legal when the device does not use them), and a whole-word
 * read-modify-write would undo its write. */
static void vkl_mem_take_device(uint8_t *shadow, uint8_t *ref, const uint8_t *src, size_t n)
{
	size_t r = 0;
	for (; r + 8 <= n; r += 8) {
		uint64_t f, t, mask;
		memcpy(&f, ref + r, 8);
		memcpy(&t, src + r, 8);
		mask = vkl_mem_nonzero_bytes(f ^ t);
		if (!mask)
			continue;
		if (mask == ~(uint64_t)0) {
			memcpy(shadow + r, src + r, 8);
			continue;
		}
		for (unsigned b = 0; b < 8; b++)
			if (ref[r + b] != src[r + b])
				shadow[r + b] = src[r + b];
	}
	for (; r < n; r++)
		if (ref[r] != src[r])
			shadow[r] = src[r];
	memcpy(ref, src, n);
}

/* First index >= i where a and b differ, or n. */
static size_t vkl_mem_next_diff(const uint8_t *a, const uint8_t *b, size_t i, size_t n)
{
	while (i < n && (i & 63)) {
		if (a[i] != b[i])
			return i;
		i++;
	}
	while (i + 64 <= n && memcmp(a + i, b + i, 64) == 0)
		i += 64;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* A run of host writes [i, i + len) of the mapping, its bytes in the
 * reference: joined to the previous run when they touch.  What the list
 * holds is recorded first when the run does not come after it (a submit
 * whose ranges of the mapping are out of order or overlap: a record's runs
 * ascend) or when the list cannot grow. */
static void vkl_mem_run_add(vkl_memory *m, size_t i, size_t len)
{
	uint64_t off = m->map_offset + i;
	if (m->room) { /* room for room_pieces runs, taken at its begin */
		if (m->nruns && m->runs[m->nruns - 1][0] + m->runs[m->nruns - 1][1] == off) {
			m->runs[m->nruns - 1][1] += len;
			return;
		}
		m->runs[m->nruns][0] = off;
		m->runs[m->nruns][1] = len;
		m->nruns++;
		return;
	}
	if (m->nruns) {
		uint64_t end = m->runs[m->nruns - 1][0] + m->runs[m->nruns - 1][1];
		if (end == off) {
			m->runs[m->nruns - 1][1] += len;
			return;
		}
		if (end > off) {
			vkl_emit_memory_writes((uint64_t)(uintptr_t)m->handle, m->map_offset, m->ref,
			                       (const uint64_t(*)[2])m->runs, m->nruns);
			m->nruns = 0;
		}
	}
	if (m->nruns == m->runs_cap) {
		size_t cap = m->runs_cap ? 2 * m->runs_cap : 64;
		uint64_t(*grown)[2] = realloc(m->runs, cap * sizeof(*grown));
		if (!grown) {
			vkl_emit_memory_writes((uint64_t)(uintptr_t)m->handle, m->map_offset, m->ref,
			                       (const uint64_t(*)[2])m->runs, m->nruns);
			m->nruns = 0;
			if (!m->runs_cap) {
				vkl_emit_memory_write((uint64_t)(uintptr_t)m->handle, off, m->ref + i, len);
				return;
			}
		} else {
			m->runs = grown;
			m->runs_cap = cap;
		}
	}
	m->runs[m->nruns][0] = off;
	m->runs[m->nruns][1] = len;
	m->nruns++;
}

/* The end of a publish of one mapping: the runs it found, as one record
 * (their bytes are in the reference, which only changes under m->mu). */
static void vkl_mem_publish_end(vkl_memory *m)
{
	if (!m->nruns)
		return;
	vkl_emit_memory_writes((uint64_t)(uintptr_t)m->handle, m->map_offset, m->ref,
	                       (const uint64_t(*)[2])m->runs, m->nruns);
	m->nruns = 0;
}

/* The end of recording straight into the capture buffer: the runs found
 * so far as one record whose blob the compare filled (none: the room is
 * given back). */
static void vkl_mem_room_end(vkl_memory *m)
{
	if (!m->room)
		return;
	if (m->nruns)
		vkl_emit_memory_writes_room((uint64_t)(uintptr_t)m->handle, m->room_rec, m->room,
		                            (const uint64_t(*)[2])m->runs, m->nruns);
	else
		cap_blob_cancel(m->room_rec);
	m->room = NULL;
	m->room_rec = NULL;
	m->nruns = 0;
}

/* Room in the capture buffer for what the spans the tracker reported can
 * hold: their bytes, and a piece per run for a few runs per span (more
 * runs end the room early: vkl_mem_publish_run).  Nothing when not
 * recording, when they are more than VKL_MEM_DIRECT_MAX bytes, or when
 * the runs list cannot grow: the runs are gathered at the end then. */
static void vkl_mem_room_begin(vkl_memory *m)
{
	size_t pieces = 4 * m->nspans + 16;
	if (!m->span_bytes || m->span_bytes > VKL_MEM_DIRECT_MAX || !cap_active())
		return;
	vkl_mem_publish_end(m); /* runs gathered earlier go first */
	if (m->runs_cap < pieces) {
		uint64_t(*grown)[2] = realloc(m->runs, pieces * sizeof(*grown));
		if (!grown)
			return;
		m->runs = grown;
		m->runs_cap = pieces;
	}
	m->room = cap_blob_begin(m->span_bytes, pieces, &m->room_rec);
	m->room_used = 0;
	m->room_max = m->span_bytes;
	m->room_pieces = pieces;
}

/* Host writes of [lo, hi) of one mapping, every byte compared: called
 * with m->mu held; recorded by vkl_mem_publish_end. */
static void vkl_mem_publish_run(vkl_memory *m, size_t lo, size_t hi)
{
	size_t i = vkl_mem_next_diff(m->shadow, m->ref, lo, hi);
	/* imported host memory: the device sees the shadow already, and a
	 * store into it could undo an application thread's write: the
	 * stretch the compare stores goes into the reference twice */
	uint8_t *out = m->host ? m->ref : m->real;
	while (i < hi) {
		size_t stored, end, next, len;
		uint8_t *room;
		if (m->room && m->nruns >= m->room_pieces)
			vkl_mem_room_end(m); /* no piece left: the rest gathered */
		room = m->room ? m->room + m->room_used : NULL;
		end = i + vkl_mem_run_copy(m->shadow, m->ref, out, room, i, hi, &stored);
		/* extend over short gaps whose real bytes the device left alone */
		for (;;) {
			next = vkl_mem_next_diff(m->shadow, m->ref, end, hi);
			if (next >= hi || next - end > VKL_MEM_MERGE_GAP ||
			    memcmp(m->real + end, m->ref + end, next - end) != 0)
				break;
			end = next + vkl_mem_run(m->shadow, m->ref, next, hi);
		}
		len = end - i;
		/* one read of the shadow, into the reference: what is recorded
		 * and what reaches the device are that copy, whatever another
		 * thread writes into the shadow meanwhile (the compare stored
		 * [i, stored) into both already, from its own loads) */
		memcpy(m->ref + stored, m->shadow + stored, end - stored);
		if (room) {
			memcpy(room + (stored - i), m->ref + stored, end - stored);
			m->room_used += len;
		}
		vkl_mem_run_add(m, i, len);
		m->found += len;
		if (!m->host) /* imported host memory: the device sees them already */
			memcpy(m->real + stored, m->ref + stored, end - stored);
		i = next;
	}
}

/* A run of the shadow the tracker says may be written (offsets from
 * shadow_base): kept, as a range of the mapping, to be compared once the
 * look is over.  When the list cannot grow, compared now. */
static void vkl_mem_publish_tracked(void *ctx, size_t lo, size_t hi)
{
	vkl_memory *m = ctx;
	size_t lead = (size_t)(m->shadow - (uint8_t *)m->shadow_base);
	if (m->nspans == m->spans_cap) {
		size_t cap = m->spans_cap ? 2 * m->spans_cap : 64;
		size_t(*grown)[2] = realloc(m->spans, cap * sizeof(*grown));
		if (!grown) {
			vkl_mem_publish_run(m, lo - lead, hi - lead);
			return;
		}
		m->spans = grown;
		m->spans_cap = cap;
	}
	m->spans[m->nspans][0] = lo - lead;
	m->spans[m->nspans][1] = hi - lead;
	m->nspans++;
	m->span_bytes += hi - lo;
}

/* Host writes of [lo, hi) of one mapping (whole pages the tracker found
 * written, outside what the device may write): all of it recorded and
 * written, no compare.  Called with m->mu held. */
static void vkl_mem_publish_whole(vkl_memory *m, size_t lo, size_t hi)
{
	uint8_t *room;
	if (m->room && m->nruns >= m->room_pieces)
		vkl_mem_room_end(m); /* no piece left: the rest gathered */
	room = m->room ? m->room + m->room_used : NULL;
	/* imported host memory: the device sees the shadow already (out is
	 * the reference, stored twice, as in vkl_mem_publish_run) */
	vkl_mem_copy3(m->shadow + lo, m->ref + lo, m->host ? m->ref + lo : m->real + lo, room,
	              hi - lo);
	if (room)
		m->room_used += hi - lo;
	vkl_mem_run_add(m, lo, hi - lo);
	atomic_fetch_add_explicit(&vkl_mem_whole_bytes, hi - lo, memory_order_relaxed);
}

/* Host writes of one mapping, in the pages the tracker reports: called
 * with m->mu held; the caller ends the publish (vkl_mem_publish_end) once
 * it has looked at every range of the mapping it publishes.  The look
 * comes first, then the compare of what it reported, so that the bytes it
 * can hold are known before the first is found: up to VKL_MEM_DIRECT_MAX,
 * the compare stores the runs straight into the capture buffer, and they
 * are recorded when this look's spans are compared.
 *
 * Whole pages: where the look was exact (t->exact: its whole pages are
 * the pages the host wrote, under uffd or guard, not in a dense rest),
 * those pages lie outside [dev_lo, dev_hi) (no device write since the
 * last idle observation can be in them: their device bytes are in the
 * shadow already), and the mapping's last compare of such pages found at
 * least half of their bytes changed, they are published whole without a
 * compare; every VKL_MEM_WHOLE_SAMPLE-th publish compares them again and
 * decides anew, as does the first exact look after one that was not (a
 * dense rest: the last decision may be from a different kind of write).  The first and last pages of a range that are only partly
 * inside it (a mapping's offset or size not page-aligned, a flush's range)
 * are always compared, so only mapped bytes are ever published. */
static void vkl_mem_publish_locked(vkl_memory *m, size_t lo, size_t hi)
{
	size_t lead = (size_t)(m->shadow - (uint8_t *)m->shadow_base);
	size_t ea = 0, eb = 0, seen = 0, found = 0;
	int whole, used = 0;
	m->nspans = 0;
	m->span_bytes = 0;
	vkl_track_look(&m->trk, lo + lead, hi + lead, vkl_mem_publish_tracked, m);
	vkl_mem_room_begin(m);
	if (m->page) {
		/* the look's whole pages, as offsets of the mapping */
		ea = (lo + lead + m->page - 1) / m->page * m->page;
		eb = (hi + lead) / m->page * m->page;
		ea = ea > lead ? ea - lead : 0;
		eb = eb > lead ? eb - lead : 0;
		/* whole pages but not exact (a dense rest): the next exact look
		 * compares, since what the host writes may have changed */
		if (!m->trk.exact) {
			if (ea < eb)
				m->whole_turn = 0;
			ea = eb = 0;
		}
	}
	whole = m->whole && m->whole_turn != 0;
	for (size_t k = 0; k < m->nspans; k++) {
		size_t s0 = m->spans[k][0], s1 = m->spans[k][1];
		size_t a = s0 > ea ? s0 : ea, b = s1 < eb ? s1 : eb;
		if (a >= b) {
			vkl_mem_publish_run(m, s0, s1);
			continue;
		}
		if (s0 < a)
			vkl_mem_publish_run(m, s0, a);
		if (whole && (m->dev_lo >= m->dev_hi || b <= m->dev_lo || a >= m->dev_hi)) {
			vkl_mem_publish_whole(m, a, b);
			used = 1;
		} else {
			size_t before = m->found;
			vkl_mem_publish_run(m, a, b);
			found += m->found - before;
			seen += b - a;
		}
		if (b < s1)
			vkl_mem_publish_run(m, b, s1);
	}
	if (seen && !used) {
		m->whole = found * 100 >= seen * VKL_MEM_WHOLE_PERCENT;
		m->whole_turn = 1;
	} else if (used) {
		m->whole_turn = (m->whole_turn + 1) % VKL_MEM_WHOLE_SAMPLE;
	}
	vkl_mem_room_end(m);
}

/* The device may write [lo, hi) of the mapping from now on. */
static void vkl_mem_device_may_write(vkl_memory *m, size_t lo, size_t hi)
{
	if (lo >= hi)
		return;
	if (m->dev_lo >= m->dev_hi) {
		m->dev_lo = lo;
		m->dev_hi = hi;
		return;
	}
	if (lo < m->dev_lo)
		m->dev_lo = lo;
	if (hi > m->dev_hi)
		m->dev_hi = hi;
}

/* Device writes of one mapping into shadow and reference, and their
 * checkpoints when the device is idle: called with m->mu held. */
static void vkl_mem_observe_locked(vkl_memory *m, size_t lo, size_t hi, uint64_t seq, int idle)
{
	size_t i, r, whole_lo = lo, whole_hi = hi;
	/* only where submissions may have written */
	if (lo < m->dev_lo)
		lo = m->dev_lo;
	if (hi > m->dev_hi)
		hi = m->dev_hi;
	i = lo < hi ? vkl_mem_next_diff(m->real, m->ref, lo, hi) : hi;
	while (i < hi) {
		size_t end = i + vkl_mem_run(m->real, m->ref, i, hi), next;
		for (;;) {
			next = vkl_mem_next_diff(m->real, m->ref, end, hi);
			if (next >= hi || next - end > VKL_MEM_MERGE_GAP)
				break;
			end = next + vkl_mem_run(m->real, m->ref, next, hi);
		}
		/* the shadow only where the device wrote: host bytes around stay
		 * (imported host memory: the shadow is the real mapping) */
		memcpy(m->tmp + i, m->real + i, end - i);
		if (m->host)
			memcpy(m->ref + i, m->tmp + i, end - i);
		else
			vkl_mem_take_device(m->shadow + i, m->ref + i, m->tmp + i, end - i);
		vkl_mem_ranges_add(m->pending, &m->npending, i, end);
		i = next;
	}
	/* idle: what was submitted is done; the whole mapping looked at, so
	 * no device write is left to find */
	if (idle && whole_lo == 0 && whole_hi == m->map_size)
		m->dev_lo = m->dev_hi = 0;
	if (!idle)
		return;
	/* not recorded (no capture window open): the results are dropped, not
	 * left for the first observation in a window to checkpoint as its own */
	for (r = 0; seq && r < m->npending; r++)
		cap_checkpoint(seq, (uint64_t)(uintptr_t)m->handle, m->map_offset + m->pending[r][0],
		               m->ref + m->pending[r][0], m->pending[r][1] - m->pending[r][0]);
	m->npending = 0;
}

/* [lo, hi) of the mapping that a range of the memory object covers. */
static int vkl_mem_clip(const vkl_memory *m, VkDeviceSize offset, VkDeviceSize size, size_t *lo,
                        size_t *hi)
{
	VkDeviceSize a, b, end;
	if (!m->shadow)
		return 0;
	end = m->map_offset + m->map_size;
	a = offset > m->map_offset ? offset : m->map_offset;
	b = (size == VK_WHOLE_SIZE || offset + size > end) ? end : offset + size;
	if (a >= b)
		return 0;
	*lo = (size_t)(a - m->map_offset);
	*hi = (size_t)(b - m->map_offset);
	return 1;
}

typedef enum { VKL_MEM_PUBLISH, VKL_MEM_OBSERVE } vkl_mem_op;

/* An observation of the whole device takes device writes only: it does not
 * publish, since other threads may be writing mappings no submission of
 * theirs has reached yet (reading those would race with them; a device
 * write never lands there, so nothing is lost).  One range (an invalidate)
 * publishes first: the program named it. */
static void vkl_mem_apply(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                          VkDeviceSize size, vkl_mem_op op, uint64_t seq)
{
	vkl_memory *m;
	/* Idle when this started; and still, for a mapping, only if no
	 * submission began since: one that reaches the mapping publishes it
	 * under m->mu after counting itself, so with m->mu held an unchanged
	 * count means no work of it reached the driver (its bytes would be
	 * read half-written and checkpointed). */
	uint64_t submits = atomic_load(&d->submits);
	int idle = atomic_load(&d->completed) >= submits;
	pthread_mutex_lock(&d->map_mu);
	/* a submission whose reach is not known may write any of them */
	if (op == VKL_MEM_PUBLISH && mem == VK_NULL_HANDLE)
		for (m = d->fresh; m; m = m->fresh_next)
			m->wr_all = 1;
	for (m = d->mapped; m; m = m->next_mapped) {
		size_t lo, hi;
		if (mem != VK_NULL_HANDLE && m->handle != mem)
			continue;
		pthread_mutex_lock(&m->mu);
		if (vkl_mem_clip(m, mem ? offset : 0, mem ? size : VK_WHOLE_SIZE, &lo, &hi)) {
			if (op == VKL_MEM_PUBLISH || mem != VK_NULL_HANDLE) {
				vkl_mem_publish_locked(m, lo, hi);
				vkl_mem_publish_end(m);
			}
			/* a submission whose reach is not known: all of it */
			if (op == VKL_MEM_PUBLISH && mem == VK_NULL_HANDLE)
				vkl_mem_device_may_write(m, 0, m->map_size);
			if (op == VKL_MEM_OBSERVE)
				vkl_mem_observe_locked(m, lo, hi, seq,
				                       idle && atomic_load(&d->submits) == submits);
		}
		pthread_mutex_unlock(&m->mu);
	}
	pthread_mutex_unlock(&d->map_mu);
}

void vkl_memory_mark_always(VkDeviceMemory mem)
{
	vkl_memory *m = vkl_mem_find(mem);
	if (m)
		atomic_store(&m->always, 1);
}

/* First index of ranges[0, n) whose memory is mem, or n. */
static size_t vkl_mem_ranges_find(const vkl_range *ranges, size_t n, VkDeviceMemory mem)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)ranges[mid].memory < (uintptr_t)mem)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ranges[lo].memory == mem ? lo : n;
}

/* What a submission reaching ranges[0, n) may write of the objects not
 * mapped yet, noted for their first map (vkl_mem_first_map).  Called
 * with d->map_mu held. */
static void vkl_mem_fresh_reached(vkl_device *d, const vkl_range *ranges, size_t n)
{
	vkl_memory *m;
	for (m = d->fresh; m; m = m->fresh_next) {
		size_t i;
		if (m->wr_all)
			continue;
		if (atomic_load(&m->always)) {
			m->wr_all = 1;
			continue;
		}
		for (i = vkl_mem_ranges_find(ranges, n, m->handle);
		     i < n && ranges[i].memory == m->handle; i++) {
			VkDeviceSize lo = ranges[i].offset, hi;
			if (!ranges[i].writable || lo >= m->size)
				continue;
			hi = ranges[i].size == VK_WHOLE_SIZE || ranges[i].size > m->size - lo
			             ? m->size
			             : lo + ranges[i].size;
			vkl_mem_ranges_add(m->wr, &m->nwr, (size_t)lo, (size_t)hi);
		}
	}
}

void vkl_memory_publish_ranges(vkl_device *d, const vkl_range *ranges, size_t n)
{
	vkl_memory *m;
	pthread_mutex_lock(&d->map_mu);
	for (m = d->mapped; m; m = m->next_mapped) {
		size_t i = vkl_mem_ranges_find(ranges, n, m->handle), lo, hi;
		int always = atomic_load(&m->always);
		if (i == n && !always)
			continue;
		pthread_mutex_lock(&m->mu);
		if (always) {
			if (vkl_mem_clip(m, 0, VK_WHOLE_SIZE, &lo, &hi)) {
				vkl_mem_publish_locked(m, lo, hi);
				vkl_mem_device_may_write(m, lo, hi);
			}
		} else {
			for (; i < n && ranges[i].memory == m->handle; i++) {
				if (!vkl_mem_clip(m, ranges[i].offset, ranges[i].size, &lo, &hi))
					continue;
				vkl_mem_publish_locked(m, lo, hi);
				if (ranges[i].writable)
					vkl_mem_device_may_write(m, lo, hi);
			}
		}
		vkl_mem_publish_end(m);
		pthread_mutex_unlock(&m->mu);
	}
	vkl_mem_fresh_reached(d, ranges, n);
	pthread_mutex_unlock(&d->map_mu);
}

void vkl_memory_publish(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                        VkDeviceSize size)
{
	vkl_mem_apply(d, mem, offset, size, VKL_MEM_PUBLISH, 0);
}

void vkl_memory_observe(vkl_device *d, VkDeviceMemory mem, VkDeviceSize offset,
                        VkDeviceSize size, uint64_t seq)
{
	vkl_mem_apply(d, mem, offset, size, VKL_MEM_OBSERVE, seq);
}

void vkl_memory_unmapping(vkl_device *d, VkDeviceMemory mem)
{
	vkl_memory *m = vkl_mem_find(mem);
	if (!m || !m->shadow || m->host)
		return;
	pthread_mutex_lock(&d->map_mu);
	vkl_mem_unlink(d, m);
	pthread_mutex_unlock(&d->map_mu);
	vkl_mem_kept k;
	pthread_mutex_lock(&m->mu);
	vkl_mem_publish_locked(m, 0, m->map_size);
	vkl_mem_publish_end(m);
	vkl_mem_detach(m, &k);
	pthread_mutex_unlock(&m->mu);
	vkl_mem_keep(d, &k);
}

/* ---- trimmed capture ------------------------------------------------------ */

#define VKL_MEM_SNAP_PAGE 4096

static int vkl_mem_zero_page(const uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Runs of pages that are not all zero, as memory writes at base + offset. */
static uint64_t vkl_mem_snap_write(VkDeviceMemory mem, VkDeviceSize base, const uint8_t *p,
                                   size_t n)
{
	size_t i = 0, start;
	uint64_t bytes = 0;
	while (i < n) {
		size_t step = n - i < VKL_MEM_SNAP_PAGE ? n - i : VKL_MEM_SNAP_PAGE;
		if (vkl_mem_zero_page(p + i, step)) {
			i += step;
			continue;
		}
		start = i;
		while (i < n) {
			step = n - i < VKL_MEM_SNAP_PAGE ? n - i : VKL_MEM_SNAP_PAGE;
			if (vkl_mem_zero_page(p + i, step))
				break;
			i += step;
		}
		if (vkl_emit_memory_write((uint64_t)(uintptr_t)mem, base + start, p + start, i - start))
			bytes += i - start;
	}
	return bytes;
}

int vkl_memory_describe(VkDeviceMemory mem, vkl_memory_desc *out)
{
	vkl_memory *m = vkl_mem_find(mem);
	if (!m)
		return 0;
	out->size = m->size;
	out->type_index = m->type_index;
	out->flags = m->flags;
	out->dedicated = m->dedicated;
	out->host = m->host;
	return 1;
}

uint64_t vkl_memory_snapshot_bytes(VkDeviceMemory mem, const void *data, size_t size)
{
	return vkl_mem_snap_write(mem, 0, data, size);
}

/* Populated runs of the driver's mapping widened to whole snapshot
 * chunks (from the mapping's start), those that touch joined; failed:
 * the list could not grow. */
typedef struct vkl_mem_snap_ctx {
	size_t map_size;
	size_t (*runs)[2];
	size_t n, cap;
	int failed;
} vkl_mem_snap_ctx;

static void vkl_mem_snap_run(void *ctx, size_t lo, size_t hi)
{
	vkl_mem_snap_ctx *c = ctx;
	lo = lo / VKL_MEM_SNAP_PAGE * VKL_MEM_SNAP_PAGE;
	hi = (hi + VKL_MEM_SNAP_PAGE - 1) / VKL_MEM_SNAP_PAGE * VKL_MEM_SNAP_PAGE;
	if (hi > c->map_size)
		hi = c->map_size;
	if (c->n && lo <= c->runs[c->n - 1][1]) {
		if (hi > c->runs[c->n - 1][1])
			c->runs[c->n - 1][1] = hi;
		return;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		size_t(*grown)[2] = c->failed ? NULL : realloc(c->runs, cap * sizeof(*grown));
		if (!grown) {
			c->failed = 1;
			return;
		}
		c->runs = grown;
		c->cap = cap;
	}
	c->runs[c->n][0] = lo;
	c->runs[c->n][1] = hi;
	c->n++;
}

/*
 * The driver's bytes of a mapping, as vkl_mem_snap_write writes them
 * (runs of snapshot chunks that are not all zero), reading only the
 * driver's populated pages where the kernel tells them (as
 * vkl_mem_take_initial does, and for its reason: reading the others would
 * map the shared zero page there, and make the next publish's first write
 * of each a copy-on-write fault with a TLB flush).  The same writes as
 * reading all of it: a chunk no populated run reaches is all zero, left
 * out either way, and ends any run of chunks, so the chunks between two
 * such gaps are written by one call over them, from the same grid.
 */
static uint64_t vkl_mem_snap_mapped(vkl_memory *m)
{
	vkl_mem_snap_ctx c = { m->map_size, NULL, 0, 0, 0 };
	uint64_t bytes = 0;
	if (m->map_size >= VKL_MEM_SNAP_SCAN_MIN && vkl_track_zero_known(m->real, m->map_size) &&
	    vkl_track_populated(m->real, m->map_size, vkl_mem_snap_run, &c) == 0 && !c.failed) {
		for (size_t k = 0; k < c.n; k++)
			bytes += vkl_mem_snap_write(m->handle, m->map_offset + c.runs[k][0],
			                            m->real + c.runs[k][0], c.runs[k][1] - c.runs[k][0]);
	} else {
		bytes = vkl_mem_snap_write(m->handle, m->map_offset, m->real, m->map_size);
	}
	free(c.runs);
	return bytes;
}

uint64_t vkl_memory_snapshot(vkl_device *d, VkDeviceMemory mem)
{
	vkl_memory *m = vkl_mem_find(mem);
	uint64_t bytes = 0;
	void *p = NULL;
	if (!m)
		return 0;
	if (!(m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && !m->host) {
		CAP_WARN("Vulkan snapshot: VkDeviceMemory 0x%llx (%llu bytes) is not host-visible: "
		         "its contents are left out of the snapshot",
		         (unsigned long long)(uintptr_t)mem, (unsigned long long)m->size);
		return 0;
	}
	pthread_mutex_lock(&m->mu);
	if (m->shadow) {
		/* mapped by the application: the device's bytes; host writes not
		 * published yet follow as memory writes at their publication
		 * (imported host memory: they are among these bytes, and are
		 * recorded again when published) */
		if (m->map_offset != 0 || m->map_size < m->size)
			CAP_WARN("Vulkan snapshot: VkDeviceMemory 0x%llx is mapped in part: only bytes "
			         "%llu..%llu of %llu are in the snapshot",
			         (unsigned long long)(uintptr_t)mem, (unsigned long long)m->map_offset,
			         (unsigned long long)(m->map_offset + m->map_size),
			         (unsigned long long)m->size);
		bytes = vkl_mem_snap_mapped(m);
	} else if (d->table.MapMemory(d->handle, mem, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS) {
		if (!(m->flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
			VkMappedMemoryRange r = { VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, mem, 0,
				                      VK_WHOLE_SIZE };
			d->table.InvalidateMappedMemoryRanges(d->handle, 1, &r);
		}
		bytes = vkl_mem_snap_write(mem, 0, p, (size_t)m->size);
		d->table.UnmapMemory(d->handle, mem);
	} else {
		CAP_WARN("Vulkan snapshot: VkDeviceMemory 0x%llx could not be mapped: its contents "
		         "are left out of the snapshot", (unsigned long long)(uintptr_t)mem);
	}
	pthread_mutex_unlock(&m->mu);
	return bytes;
}
