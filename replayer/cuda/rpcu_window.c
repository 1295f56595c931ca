/*
 * rpcu_window.c - same-address replay inside a device address window.
 *
 * Same-address capture reserves one large window of device addresses per
 * device (a tsVaWindow record says where; without a record, 512 GiB at
 * RPCU_WINDOW_BASE + n * 512 GiB for device n) and places every device
 * allocation inside it.  On a real driver one large reservation at a fixed
 * address is honoured where small ones are not (../shared/gpu-fixtures
 * fact 4), so the replay does the same: it reserves each window once, as
 * soon as a context of its device is current, and maps each allocation at
 * its captured address inside it with cuMemCreate + cuMemMap +
 * cuMemSetAccess, never with a reservation of its own.
 *
 * Granules: capture sub-allocates small requests from 2 MiB chunks and
 * reuses freed ranges, so allocations share granules.  Each granule is its
 * own mapping with a count of the live allocations touching it: mapped on
 * first use, unmapped when the last one is freed (after a context
 * synchronization: work still in flight may use it), and at the end of a
 * run.  The granules an allocation needs that are not mapped yet come from
 * one cuMemCreate, mapped granule by granule at their offsets and released
 * at once (the mappings keep the memory), so a large allocation costs one
 * cuMemCreate, not one per granule.
 *
 * A window that cannot be had at exactly its base is given up for the run
 * (the driver's answer is kept for the warning) and its allocations go
 * through the per-allocation placement of rpcu_place.c.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the scan at open ------------------------------------------------------------------ */

static rp_status rpcu_window_add(rpcu_state *s, int device, uint64_t base, uint64_t size,
                                 int from_record, rp_diag *diag)
{
	rpcu_window *nw;
	size_t i;
	for (i = 0; i < s->nwindows; i++)
		if (s->windows[i].device == device && s->windows[i].base == base)
			return RP_OK;
	nw = realloc(s->windows, (s->nwindows + 1) * sizeof(*nw));
	if (!nw) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	s->windows = nw;
	memset(&nw[s->nwindows], 0, sizeof(*nw));
	nw[s->nwindows].device = device;
	nw[s->nwindows].base = base;
	nw[s->nwindows].size = size;
	nw[s->nwindows].from_record = (uint8_t)from_record;
	s->nwindows++;
	return RP_OK;
}

static int rpcu_window_scan_kind(sbt_cm_kind k)
{
	return k == SBT_CM_K_tsVaWindow || k == SBT_CM_K_cuDeviceGet || k == SBT_CM_K_cuMemAlloc ||
	       k == SBT_CM_K_cuMemAllocPitch || k == SBT_CM_K_cuMemAllocAsync ||
	       k == SBT_CM_K_cuMemAllocFromPoolAsync || k == SBT_CM_K_cuMemAllocManaged ||
	       k == SBT_CM_K_cuMemAddressReserve;
}

/* Also finds the state snapshot of a trimmed trace (window_snapshot_end). */
rp_status rpcu_windows_scan(rpcu_state *s, rp_diag *diag)
{
	uint32_t used = 0; /* default windows the allocations lie in, one bit per device */
	int any_record = 0, max_device = 0, trimmed = 0, d;
	sbt_record rec;
	sbt_status sst;
	rp_status st = RP_OK;

	s->first_device = -1;
	s->window_snapshot_end = 0;
	sst = sbt_reader_seek_seq(s->trace, 0);
	while (sst == SBT_OK && (sst = sbt_reader_next(s->trace, &rec)) == SBT_OK) {
		sbt_cm_call c;
		uint32_t type = rec.type;
		int16_t k;
		/* A capture window's trace: where its state snapshot ends. */
		if (type == SBT_TYPE_WINDOW)
			trimmed = 1;
		if (type == SBT_TYPE_SNAPSHOT_END && trimmed && !s->window_snapshot_end)
			s->window_snapshot_end = rec.seq;
		if (type < s->type_lo || type - s->type_lo >= s->ntypes || (k = s->kind_of[type - s->type_lo]) < 0 ||
		    !rpcu_window_scan_kind((sbt_cm_kind)k) ||
		    sbt_cm_decode(rec.payload, rec.payload_len, &c) != SBT_OK)
			continue;
		if (k == SBT_CM_K_tsVaWindow) {
			if (c.size && c.device >= 0) {
				any_record = 1;
				st = rpcu_window_add(s, (int)c.device, c.dst, c.size, 1, diag);
				if (st != RP_OK)
					return st;
			}
		} else if (k == SBT_CM_K_cuDeviceGet) {
			if (s->first_device < 0 && c.result == CUDA_SUCCESS)
				s->first_device = (int)c.value;
			if (c.result == CUDA_SUCCESS && c.value < RPCU_WINDOW_MAX_DEVICES && (int)c.value > max_device)
				max_device = (int)c.value;
		} else if (c.result == CUDA_SUCCESS && c.dst >= RPCU_WINDOW_BASE &&
		           c.dst - RPCU_WINDOW_BASE < RPCU_WINDOW_SIZE * RPCU_WINDOW_MAX_DEVICES) {
			used |= 1u << ((c.dst - RPCU_WINDOW_BASE) / RPCU_WINDOW_SIZE);
		}
	}
	/* A damaged trace: the windows of the records before the damage; the
	 * replay stops at the damage and says so itself. */
	if (any_record)
		return RP_OK; /* the records say where the windows are */
	/* Only for devices the trace has: an allocation the driver placed
	 * there by chance names no device of its own. */
	for (d = 0; d <= max_device && st == RP_OK; d++)
		if (used & (1u << d))
			st = rpcu_window_add(s, d, RPCU_WINDOW_BASE + (uint64_t)d * RPCU_WINDOW_SIZE,
			                     RPCU_WINDOW_SIZE, 0, diag);
	return st;
}

/* ---- windows --------------------------------------------------------------------------- */

static int rpcu_window_have_vmm(const rpcu_state *s)
{
	const rpcu_driver *d = &s->drv;
	return d->p_cuMemAddressReserve && d->p_cuMemAddressFree && d->p_cuMemCreate &&
	       d->p_cuMemRelease && d->p_cuMemMap && d->p_cuMemUnmap && d->p_cuMemSetAccess &&
	       d->p_cuMemGetAllocationGranularity;
}

static void rpcu_window_reserve(rpcu_state *s, rpcu_window *w)
{
	CUdeviceptr got = 0;
	CUresult r;
	char err[96];

	w->tried = 1;
	if (s->device_base + w->device >= s->device_count) {
		snprintf(w->why, sizeof(w->why), "the window of device %d has no device here", w->device);
		return;
	}
	if (s->no_reserve) {
		snprintf(w->why, sizeof(w->why), "--cuda-no-reserve");
		return;
	}
	if (!rpcu_window_have_vmm(s)) {
		snprintf(w->why, sizeof(w->why), "the driver has no virtual memory management entry points");
		return;
	}
	r = s->drv.p_cuMemAddressReserve(&got, w->size, 0, (CUdeviceptr)w->base, 0);
	if (r != CUDA_SUCCESS) {
		snprintf(w->why, sizeof(w->why), "the %llu GiB window at 0x%llx could not be reserved: "
		         "cuMemAddressReserve failed with %s", (unsigned long long)(w->size >> 30),
		         (unsigned long long)w->base, rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		return;
	}
	if ((uint64_t)got != w->base) {
		s->drv.p_cuMemAddressFree(got, w->size);
		snprintf(w->why, sizeof(w->why), "the %llu GiB window at 0x%llx could not be reserved: the "
		         "driver placed it at 0x%llx", (unsigned long long)(w->size >> 30),
		         (unsigned long long)w->base, (unsigned long long)got);
		return;
	}
	w->reserved = 1;
}

void rpcu_windows_open(rpcu_state *s, int ordinal)
{
	size_t i;
	int pending = 0;
	if (!s->windows_pending)
		return;
	for (i = 0; i < s->nwindows; i++) {
		rpcu_window *w = &s->windows[i];
		if (!w->tried && s->device_base + w->device == ordinal)
			rpcu_window_reserve(s, w);
		pending |= !w->tried;
	}
	s->windows_pending = pending;
}

rpcu_window *rpcu_window_of(rpcu_state *s, uint64_t addr, uint64_t len)
{
	size_t i;
	for (i = 0; i < s->nwindows; i++) {
		rpcu_window *w = &s->windows[i];
		if (addr >= w->base && addr - w->base < w->size && len <= w->size - (addr - w->base))
			return w;
	}
	return NULL;
}

/* ---- granules ---------------------------------------------------------------------------- */

/* Index of the first granule at or after addr. */
static size_t rpcu_granule_at(const rpcu_state *s, uint64_t addr)
{
	size_t lo = 0, hi = s->ngranules;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->granules[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int rpcu_granule_mapped(const rpcu_state *s, uint64_t addr)
{
	size_t i = rpcu_granule_at(s, addr);
	return i < s->ngranules && s->granules[i].addr == addr;
}

static int rpcu_granules_insert(rpcu_state *s, uint64_t addr)
{
	size_t i;
	if (s->ngranules == s->cap_granules) {
		size_t ncap = s->cap_granules ? s->cap_granules * 2 : 64;
		rpcu_granule *ng = realloc(s->granules, ncap * sizeof(*ng));
		if (!ng)
			return -1;
		s->granules = ng;
		s->cap_granules = ncap;
	}
	i = rpcu_granule_at(s, addr);
	memmove(&s->granules[i + 1], &s->granules[i], (s->ngranules - i) * sizeof(*s->granules));
	s->granules[i].addr = addr;
	s->granules[i].refs = 0;
	s->ngranules++;
	return 0;
}

static void rpcu_granule_unmap(rpcu_state *s, size_t i)
{
	s->drv.p_cuMemUnmap((CUdeviceptr)s->granules[i].addr, s->granularity);
	memmove(&s->granules[i], &s->granules[i + 1], (s->ngranules - i - 1) * sizeof(*s->granules));
	s->ngranules--;
}

/* Map the unmapped run [lo, hi) of granules, one cuMemCreate per granule:
 * the real driver maps a physical allocation whole or not at all (on the
 * H100, cuMemMap of the first 2 MiB of a 20 MiB allocation failed with
 * CUDA_ERROR_NOT_SUPPORTED, docs/cuda.md), and a granule must be able to
 * go when the last allocation on it is freed. */
static int rpcu_granules_map_run(rpcu_state *s, const rpcu_window *w, uint64_t lo, uint64_t hi,
                                 char *why, size_t whylen)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	uint64_t g = s->granularity, a;
	char err[96];
	CUresult r;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = s->device_base + w->device;
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	for (a = lo; a < hi; a += g) {
		CUmemGenericAllocationHandle h;
		const char *step = "cuMemCreate";
		r = s->drv.p_cuMemCreate(&h, g, &prop, 0);
		if (r == CUDA_SUCCESS) {
			step = "cuMemMap";
			r = s->drv.p_cuMemMap((CUdeviceptr)a, g, 0, h, 0);
			s->drv.p_cuMemRelease(h); /* a mapping keeps its memory */
		}
		if (r == CUDA_SUCCESS) {
			step = "cuMemSetAccess";
			r = s->drv.p_cuMemSetAccess((CUdeviceptr)a, g, &access, 1);
			if (r != CUDA_SUCCESS)
				s->drv.p_cuMemUnmap((CUdeviceptr)a, g);
		}
		if (r != CUDA_SUCCESS || rpcu_granules_insert(s, a) != 0) {
			if (r == CUDA_SUCCESS)
				s->drv.p_cuMemUnmap((CUdeviceptr)a, g);
			snprintf(why, whylen, "mapping 0x%llx in the window failed (%s: %s)", (unsigned long long)a,
			         r == CUDA_SUCCESS ? "granule table" : step,
			         r == CUDA_SUCCESS ? "out of memory" : rpcu_cu_name(&s->drv, r, err, sizeof(err)));
			goto out_unmap;
		}
	}
	return 0;
out_unmap:
	while (a > lo) {
		a -= g;
		rpcu_granule_unmap(s, rpcu_granule_at(s, a));
	}
	return -1;
}

int rpcu_granules_acquire(rpcu_state *s, rpcu_window *w, uint64_t cap, uint64_t size, char *why,
                          size_t whylen)
{
	uint64_t g, lo, hi, a;
	size_t nbefore = s->ngranules, i;

	if (!w->tried)
		rpcu_window_reserve(s, w);
	if (!w->reserved) {
		snprintf(why, whylen, "%s", w->why);
		return -1;
	}
	if (!s->granularity) {
		CUmemAllocationProp prop;
		size_t gran = 0;
		memset(&prop, 0, sizeof(prop));
		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = s->device_base + w->device;
		if (s->drv.p_cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) !=
		        CUDA_SUCCESS || !gran || (gran & (gran - 1))) {
			snprintf(why, whylen, "cuMemGetAllocationGranularity gave no usable granularity");
			return -1;
		}
		s->granularity = gran;
	}
	g = s->granularity;
	lo = cap & ~(g - 1);
	hi = (cap + size + g - 1) & ~(g - 1);
	if (lo < w->base || hi - w->base > w->size || (w->base & (g - 1))) {
		snprintf(why, whylen, "the granules of 0x%llx + %llu do not lie inside the window",
		         (unsigned long long)cap, (unsigned long long)size);
		return -1;
	}
	for (a = lo; a < hi;) {
		uint64_t end;
		if (rpcu_granule_mapped(s, a)) {
			a += g;
			continue;
		}
		for (end = a + g; end < hi && !rpcu_granule_mapped(s, end); end += g)
			;
		if (rpcu_granules_map_run(s, w, a, end, why, whylen) != 0)
			goto out_rollback;
		a = end;
	}
	for (i = rpcu_granule_at(s, lo); i < s->ngranules && s->granules[i].addr < hi; i++)
		s->granules[i].refs++;
	return 0;
out_rollback:
	/* Granules this call mapped are the ones in range without a reference. */
	if (s->ngranules != nbefore) {
		for (i = rpcu_granule_at(s, lo); i < s->ngranules && s->granules[i].addr < hi;) {
			if (s->granules[i].refs == 0)
				rpcu_granule_unmap(s, i);
			else
				i++;
		}
	}
	return -1;
}

void rpcu_granules_release(rpcu_state *s, uint64_t cap, uint64_t size)
{
	uint64_t g = s->granularity ? s->granularity : 1;
	uint64_t lo = cap & ~(g - 1), hi = (cap + size + g - 1) & ~(g - 1);
	size_t i = rpcu_granule_at(s, lo);
	int synced = 0;
	while (i < s->ngranules && s->granules[i].addr < hi) {
		if (s->granules[i].refs && --s->granules[i].refs) {
			i++;
			continue;
		}
		/* Work in flight may still use it; no synchronisation while a
		 * stream captures (it would end the capture): captured work has
		 * not run yet. */
		if (!synced++ && !s->capturing)
			s->drv.p_cuCtxSynchronize();
		rpcu_granule_unmap(s, i);
	}
}

void rpcu_windows_close(rpcu_state *s)
{
	size_t i;
	while (s->ngranules)
		rpcu_granule_unmap(s, s->ngranules - 1);
	for (i = 0; i < s->nwindows; i++) {
		rpcu_window *w = &s->windows[i];
		if (w->reserved)
			s->drv.p_cuMemAddressFree((CUdeviceptr)w->base, w->size);
		w->tried = w->reserved = 0;
		w->why[0] = '\0';
	}
	s->windows_pending = s->nwindows != 0;
	free(s->granules);
	s->granules = NULL;
	s->ngranules = s->cap_granules = 0;
}
