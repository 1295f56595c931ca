/*
 * rpcu_place.c - where the trace's memory lives in the replay: device
 * allocations at their captured addresses (or moved, with pointer
 * patching), pinned host memory, the application's own VMM calls, and the
 * captured address ranges that name them all.
 *
 * Inside a VA window of the trace, rpcu_window.c maps the allocation's
 * granules at their captured addresses.  Elsewhere (or when the window
 * cannot be had), a device allocation [cap, cap + size) is covered by
 * "pieces", reservations of whole granularity pages at their captured
 * address (cuMemAddressReserve with that address as the hint, cuMemCreate,
 * cuMemMap, cuMemSetAccess).  Pieces are shared by allocations in the same
 * pages and stay mapped until teardown once unused, so an address the trace
 * reuses is found mapped.  When the driver will not place a page where it
 * was (another mapping is there, or it refuses the hint), the allocation is
 * made anywhere, kernel parameters pointing into it are rewritten, and one
 * warning says that pointers stored in memory may be stale.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rpcu_prop(CUmemAllocationProp *prop, int ordinal)
{
	memset(prop, 0, sizeof(*prop));
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = ordinal;
}

static int rpcu_have_vmm(const rpcu_state *s)
{
	const rpcu_driver *d = &s->drv;
	return d->p_cuMemAddressReserve && d->p_cuMemAddressFree && d->p_cuMemCreate &&
	       d->p_cuMemRelease && d->p_cuMemMap && d->p_cuMemUnmap && d->p_cuMemSetAccess &&
	       d->p_cuMemGetAllocationGranularity;
}

/* ---- pieces ------------------------------------------------------------------------------ */

/* Index of the first piece ending after addr. */
static size_t rpcu_piece_after(const rpcu_state *s, uint64_t addr)
{
	size_t lo = 0, hi = s->npieces;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->pieces[mid].base + s->pieces[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void rpcu_piece_free(rpcu_state *s, size_t i)
{
	rpcu_piece *p = &s->pieces[i];
	s->drv.p_cuMemUnmap((CUdeviceptr)p->base, p->size);
	s->drv.p_cuMemRelease(p->handle);
	s->drv.p_cuMemAddressFree((CUdeviceptr)p->base, p->size);
	memmove(&s->pieces[i], &s->pieces[i + 1], (s->npieces - i - 1) * sizeof(*s->pieces));
	s->npieces--;
}

/* Map [base, base + len) at exactly base; 0, or -1 with why. */
static int rpcu_piece_make(rpcu_state *s, uint64_t base, uint64_t len, char *why, size_t whylen)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	CUmemGenericAllocationHandle h;
	CUdeviceptr got = 0;
	char err[96];
	CUresult r;
	size_t i;
	int ordinal = rpcu_current_ordinal(s);

	r = s->drv.p_cuMemAddressReserve(&got, len, 0, (CUdeviceptr)base, 0);
	if (r != CUDA_SUCCESS) {
		snprintf(why, whylen, "cuMemAddressReserve at 0x%llx failed with %s",
		         (unsigned long long)base, rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		return -1;
	}
	if ((uint64_t)got != base) {
		s->drv.p_cuMemAddressFree(got, len);
		snprintf(why, whylen, "the driver placed the reservation at 0x%llx instead",
		         (unsigned long long)got);
		return -1;
	}
	rpcu_prop(&prop, ordinal);
	r = s->drv.p_cuMemCreate(&h, len, &prop, 0);
	if (r != CUDA_SUCCESS) {
		s->drv.p_cuMemAddressFree(got, len);
		snprintf(why, whylen, "cuMemCreate of %llu bytes failed with %s", (unsigned long long)len,
		         rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		return -1;
	}
	r = s->drv.p_cuMemMap(got, len, 0, h, 0);
	if (r == CUDA_SUCCESS) {
		memset(&access, 0, sizeof(access));
		access.location = prop.location;
		access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		r = s->drv.p_cuMemSetAccess(got, len, &access, 1);
		if (r != CUDA_SUCCESS)
			s->drv.p_cuMemUnmap(got, len);
	}
	if (r != CUDA_SUCCESS) {
		s->drv.p_cuMemRelease(h);
		s->drv.p_cuMemAddressFree(got, len);
		snprintf(why, whylen, "mapping 0x%llx failed with %s", (unsigned long long)base,
		         rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		return -1;
	}
	if (s->npieces == s->cap_pieces) {
		size_t ncap = s->cap_pieces ? s->cap_pieces * 2 : 32;
		rpcu_piece *np = realloc(s->pieces, ncap * sizeof(*np));
		if (!np) {
			s->drv.p_cuMemUnmap(got, len);
			s->drv.p_cuMemRelease(h);
			s->drv.p_cuMemAddressFree(got, len);
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		s->pieces = np;
		s->cap_pieces = ncap;
	}
	i = rpcu_piece_after(s, base);
	memmove(&s->pieces[i + 1], &s->pieces[i], (s->npieces - i) * sizeof(*s->pieces));
	s->pieces[i].base = base;
	s->pieces[i].size = len;
	s->pieces[i].handle = h;
	s->pieces[i].refs = 0;
	s->npieces++;
	return 0;
}

/* Cover [cap, cap + size) with pieces at their captured addresses and take
 * a reference on each; 0, or -1 with why (nothing taken). */
static int rpcu_pieces_acquire(rpcu_state *s, uint64_t cap, uint64_t size, char *why_out, size_t whylen)
{
	uint64_t g, lo, hi, cur, made[64];
	size_t nmade = 0, i;
	char scratch[200];
	/* why_out NULL: a reason is known already (the window's); keep it. */
	char *why = why_out ? why_out : scratch;
	if (!why_out)
		whylen = sizeof(scratch);

	if (s->no_reserve) {
		snprintf(why, whylen, "--cuda-no-reserve");
		return -1;
	}
	if (!rpcu_have_vmm(s)) {
		snprintf(why, whylen, "the driver has no virtual memory management entry points");
		return -1;
	}
	if (!s->granularity) {
		CUmemAllocationProp prop;
		size_t gran = 0;
		CUresult r;
		rpcu_prop(&prop, rpcu_current_ordinal(s));
		r = s->drv.p_cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
		if (r != CUDA_SUCCESS || !gran || (gran & (gran - 1))) {
			snprintf(why, whylen, "cuMemGetAllocationGranularity gave no usable granularity");
			return -1;
		}
		s->granularity = gran;
	}
	g = s->granularity;
	lo = cap & ~(g - 1);
	hi = cap + size + g - 1;
	if (hi < cap) {
		snprintf(why, whylen, "the range wraps around the address space");
		return -1;
	}
	hi &= ~(g - 1);
	for (cur = lo; cur < hi;) {
		size_t k = rpcu_piece_after(s, cur);
		uint64_t end;
		if (k < s->npieces && s->pieces[k].base <= cur) {
			cur = s->pieces[k].base + s->pieces[k].size;
			continue;
		}
		end = k < s->npieces && s->pieces[k].base < hi ? s->pieces[k].base : hi;
		if (nmade == sizeof(made) / sizeof(made[0]) || rpcu_piece_make(s, cur, end - cur, why, whylen)) {
			if (nmade == sizeof(made) / sizeof(made[0]))
				snprintf(why, whylen, "the range needs more than 64 new reservations");
			goto out_rollback;
		}
		made[nmade++] = cur;
		cur = end;
	}
	for (i = rpcu_piece_after(s, lo); i < s->npieces && s->pieces[i].base < hi; i++)
		s->pieces[i].refs++;
	return 0;
out_rollback:
	while (nmade--) {
		size_t k = rpcu_piece_after(s, made[nmade]);
		if (k < s->npieces && s->pieces[k].base == made[nmade])
			rpcu_piece_free(s, k);
	}
	return -1;
}

static void rpcu_pieces_release(rpcu_state *s, uint64_t cap, uint64_t size)
{
	uint64_t g = s->granularity ? s->granularity : 1;
	uint64_t lo = cap & ~(g - 1), hi = (cap + size + g - 1) & ~(g - 1);
	size_t i;
	for (i = rpcu_piece_after(s, lo); i < s->npieces && s->pieces[i].base < hi; i++)
		if (s->pieces[i].refs)
			s->pieces[i].refs--;
}

/* Unused pieces in [addr, addr + len) go, so the application's own
 * reservation can have the address. */
static void rpcu_pieces_drop_idle(rpcu_state *s, uint64_t addr, uint64_t len)
{
	size_t i = rpcu_piece_after(s, addr);
	int synced = 0;
	while (i < s->npieces && s->pieces[i].base < addr + len) {
		if (s->pieces[i].refs) {
			i++;
			continue;
		}
		if (!synced++)
			s->drv.p_cuCtxSynchronize();
		rpcu_piece_free(s, i);
	}
}

/* ---- ranges: releasing --------------------------------------------------------------------- */

/* Undo what made range i, then forget it.  Returns the failing driver
 * result (the range is forgotten either way). */
CUresult rpcu_range_release(rpcu_state *s, size_t i, int driver)
{
	rpcu_range *r = &s->ranges.v[i];
	CUresult res = CUDA_SUCCESS;
	size_t k;

	if (r->kind == RPCU_R_DEVICE) {
		if (r->in_window)
			rpcu_granules_release(s, r->cap, r->size);
		else if (r->pieces)
			rpcu_pieces_release(s, r->cap, r->size);
		else if (driver && s->drv.p_cuMemFree)
			res = s->drv.p_cuMemFree((CUdeviceptr)r->live);
	} else if (r->kind == RPCU_R_HOST && driver) {
		if (r->sub == SBT_CM_MEM_HOST_REGISTER) {
			if (s->drv.p_cuMemHostUnregister && s->drv.p_cuMemHostRegister)
				res = s->drv.p_cuMemHostUnregister((void *)(uintptr_t)r->live);
		} else if (s->drv.p_cuMemFreeHost) {
			res = s->drv.p_cuMemFreeHost((void *)(uintptr_t)r->live);
		}
	} else if (r->kind == RPCU_R_VMM && driver && rpcu_have_vmm(s)) {
		for (k = 0; k < s->nvmaps;) {
			if (s->vmaps[k].live >= r->live && s->vmaps[k].live - r->live < r->size) {
				s->drv.p_cuMemUnmap((CUdeviceptr)s->vmaps[k].live, s->vmaps[k].size);
				s->vmaps[k] = s->vmaps[--s->nvmaps];
			} else {
				k++;
			}
		}
		/* Inside a window: a sub-range of the replay's reservation. */
		if (!r->in_window)
			res = s->drv.p_cuMemAddressFree((CUdeviceptr)r->live, r->size);
	}
	rpcu_ranges_remove(&s->ranges, i);
	return res;
}

/* Pinned host memory is going: the copies into it that a checkpoint has
 * yet to read keep their bytes in a buffer of their own. */
static rp_status rpcu_copies_detach(rpcu_state *s, const rpcu_range *r, rp_diag *diag)
{
	size_t i;
	for (i = 0; i < s->ncopies; i++) {
		rpcu_copy *c = &s->copies[i];
		uint64_t at = (uint64_t)(uintptr_t)c->ptr;
		if (c->buf || !c->ptr || at < r->live || at - r->live >= r->size)
			continue;
		c->buf = malloc(c->len ? c->len : 1);
		if (!c->buf)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                 (unsigned long long)c->len);
		memcpy(c->buf, c->ptr, c->len);
		c->ptr = c->buf;
	}
	return RP_OK;
}

/* Ranges overlapping [cap, cap + size) were freed by a call the trace
 * does not have: release them, after the work that may use them. */
static rp_status rpcu_release_stale(rpcu_state *s, uint64_t cap, uint64_t size, rp_diag *diag)
{
	long i;
	rp_status st;
	while ((i = rpcu_ranges_overlap(&s->ranges, cap, size)) >= 0) {
		if (s->ranges.v[i].kind != RPCU_R_DEVICE || (!s->ranges.v[i].in_window && !s->ranges.v[i].pieces))
			rpcu_wait_work(s, s->ranges.v[i].ctx);
		if (s->ranges.v[i].kind == RPCU_R_HOST &&
		    (st = rpcu_copies_detach(s, &s->ranges.v[i], diag)) != RP_OK)
			return st;
		rpcu_range_release(s, (size_t)i, 1);
	}
	return RP_OK;
}

rp_status rpcu_mem_add_range(rpcu_state *s, const rpcu_range *r, rp_diag *diag)
{
	rp_status st = rpcu_release_stale(s, r->cap, r->size, diag);
	if (st != RP_OK)
		return st;
	if (rpcu_ranges_insert(&s->ranges, r) != 0)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	return RP_OK;
}

void rpcu_mem_forget_owner(rpcu_state *s, uint64_t owner)
{
	size_t i;
	for (i = s->ranges.n; i-- > 0;)
		if (s->ranges.v[i].kind == RPCU_R_GLOBAL && s->ranges.v[i].owner == owner)
			rpcu_ranges_remove(&s->ranges, i);
}

/* ---- allocations --------------------------------------------------------------------------- */

static void rpcu_warn_moved(rpcu_state *s, const rpcu_range *r, const char *why)
{
	if (s->warned_moved++)
		return;
	rpcu_warn(s, "seq %llu: the %llu bytes captured at 0x%llx could not be placed at that address "
	          "(%s) and live at 0x%llx in this replay; pointer-valued kernel parameters are patched, "
	          "but pointers stored inside device memory may be stale%s",
	          (unsigned long long)r->seq, (unsigned long long)r->size, (unsigned long long)r->cap, why,
	          (unsigned long long)r->live,
	          s->relocate_memory ? "" : " (--cuda-relocate-memory rewrites those in uploaded data)");
}

rp_status rpcu_alloc_device(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_range r;
	rpcu_window *win;
	char why[200] = "";
	rp_status st;
	memset(&r, 0, sizeof(r));
	r.cap = c->dst;
	r.size = c->size ? c->size : c->pitch * c->height;
	r.kind = RPCU_R_DEVICE;
	r.sub = (uint8_t)c->sub;
	r.seq = s->seq;
	r.ctx = s->cur_ctx;
	if (!r.cap || !r.size)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record has no address or no size");
	if (r.cap + r.size < r.cap)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "[0x%llx, +%llu) wraps around the address space",
		                 (unsigned long long)r.cap, (unsigned long long)r.size);
	if ((st = rpcu_release_stale(s, r.cap, r.size, diag)) != RP_OK)
		return st;
	win = s->no_reserve ? NULL : rpcu_window_of(s, r.cap, r.size);
	if (win && rpcu_granules_acquire(s, win, r.cap, r.size, why, sizeof(why)) == 0) {
		r.live = r.cap;
		r.in_window = 1;
	} else if (rpcu_pieces_acquire(s, r.cap, r.size, why[0] ? NULL : why, sizeof(why)) == 0) {
		r.live = r.cap;
		r.pieces = 1;
	} else {
		CUdeviceptr d = 0;
		CUresult res;
		CUstream live_stream = NULL;
		int capturing = 0;
		if ((k == SBT_CM_K_cuMemAllocAsync || k == SBT_CM_K_cuMemAllocFromPoolAsync) &&
		    (st = rpcu_stream_resolve(s, c->stream, &live_stream, &capturing, diag)) != RP_OK)
			return st;
		if (capturing) {
			/* In a stream capture the driver makes it a memory allocation
			 * node: graph memory, at an address the driver chooses, freed
			 * by the capture's stream-ordered free (a free node). */
			if ((st = RPCU_NEED(cuMemAllocAsync)) != RP_OK)
				return st;
			res = s->drv.p_cuMemAllocAsync(&d, r.size, live_stream);
			if (res != CUDA_SUCCESS)
				return rpcu_cufail(s, diag, "cuMemAllocAsync", res, "(in a stream capture)");
			r.kind = RPCU_R_GRAPH;
			r.live = (uint64_t)d;
			if (r.live != r.cap)
				rpcu_warn(s, "seq %llu: the %llu bytes of graph memory captured at 0x%llx (cuMemAllocAsync "
				          "in a stream capture) live at 0x%llx in this replay (the driver chooses graph "
				          "memory addresses); pointer-valued kernel parameters are patched, but pointers "
				          "stored inside device memory may be stale",
				          (unsigned long long)r.seq, (unsigned long long)r.size,
				          (unsigned long long)r.cap, (unsigned long long)r.live);
		} else if (k == SBT_CM_K_cuMemAllocManaged) {
			st = RPCU_NEED(cuMemAllocManaged);
			if (st != RP_OK)
				return st;
			res = s->drv.p_cuMemAllocManaged(&d, r.size,
			                                 c->flags ? (unsigned)c->flags : CU_MEM_ATTACH_GLOBAL);
		} else {
			st = RPCU_NEED(cuMemAlloc);
			if (st != RP_OK)
				return st;
			/* Pitch: the captured pitch is what the program uses; keep it. */
			res = s->drv.p_cuMemAlloc(&d, r.size);
		}
		if (!capturing && res != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, k == SBT_CM_K_cuMemAllocManaged ? "cuMemAllocManaged" : "cuMemAlloc",
			                   res, "(the allocation could not be placed at its captured address)");
		if (!capturing) {
			r.live = (uint64_t)d;
			if (r.live != r.cap)
				rpcu_warn_moved(s, &r, why);
		}
	}
	if (rpcu_ranges_insert(&s->ranges, &r) != 0) {
		if (r.in_window)
			rpcu_granules_release(s, r.cap, r.size);
		else if (r.pieces)
			rpcu_pieces_release(s, r.cap, r.size);
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	return RP_OK;
}

static long rpcu_find_exact(rpcu_state *s, uint64_t cap, rpcu_rkind kind)
{
	long i = rpcu_ranges_find(&s->ranges, cap);
	if (i < 0 || s->ranges.v[i].cap != cap || s->ranges.v[i].kind != kind)
		return -1;
	return i;
}

/*
 * A free the trace made.  Work in flight may still use the memory (a free
 * moved ahead of the wait for the launches and copies that use it): the
 * replay waits for the allocation's context first, as a careful
 * application would, rather than hand the driver a use after free.
 */
static rp_status rpcu_free(rpcu_state *s, uint64_t cap, rpcu_rkind kind, const char *fn, rp_diag *diag)
{
	long i = rpcu_find_exact(s, cap, kind);
	CUresult r;
	rp_status st;
	if (i < 0) {
		long in = rpcu_ranges_find(&s->ranges, cap);
		if (in >= 0)
			return rpcu_fail(s, diag, RP_ERR_TRACE, "0x%llx lies inside the allocation 0x%llx (%llu bytes, "
			                 "seq %llu) but is not its start: only the address an allocation "
			                 "returned can be freed", (unsigned long long)cap,
			                 (unsigned long long)s->ranges.v[in].cap,
			                 (unsigned long long)s->ranges.v[in].size,
			                 (unsigned long long)s->ranges.v[in].seq);
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "0x%llx is not an allocation the trace made "
		                 "(or it was freed already)", (unsigned long long)cap);
	}
	/* Memory in a window or in pieces stays mapped (a granule that goes
	 * is unmapped after a wait, rpcu_granules_release): only what the
	 * driver frees at once needs the wait. */
	if (kind == RPCU_R_HOST || (!s->ranges.v[i].in_window && !s->ranges.v[i].pieces)) {
		rpcu_wait_work(s, s->ranges.v[i].ctx);
		rpcu_stages_poll(s, 0);
	}
	if (kind == RPCU_R_HOST && (st = rpcu_copies_detach(s, &s->ranges.v[i], diag)) != RP_OK)
		return st;
	s->freed[s->nfreed++ % RPCU_FREED_KEEP] =
		(rpcu_freed){s->ranges.v[i].cap, s->ranges.v[i].size, s->ranges.v[i].seq, s->seq};
	r = rpcu_range_release(s, (size_t)i, 1);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, fn, r, NULL);
}

rp_status rpcu_alloc_host(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_range r;
	void *p = NULL;
	CUresult res = CUDA_SUCCESS;
	rp_status st;
	memset(&r, 0, sizeof(r));
	r.cap = c->host;
	r.size = c->size;
	r.kind = RPCU_R_HOST;
	r.seq = s->seq;
	r.ctx = s->cur_ctx;
	if (!r.cap || !r.size)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record has no address or no size");
	if (r.cap + r.size < r.cap || r.size > ((uint64_t)1 << 48))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "[0x%llx, +%llu) is no range of host memory",
		                 (unsigned long long)r.cap, (unsigned long long)r.size);
	if (k == SBT_CM_K_cuMemAllocHost) {
		r.sub = SBT_CM_MEM_HOST;
		if ((st = RPCU_NEED(cuMemAllocHost)) != RP_OK)
			return st;
		res = s->drv.p_cuMemAllocHost(&p, r.size);
	} else if (k == SBT_CM_K_cuMemHostAlloc) {
		r.sub = SBT_CM_MEM_HOST_ALLOC;
		if ((st = RPCU_NEED(cuMemHostAlloc)) != RP_OK)
			return st;
		res = s->drv.p_cuMemHostAlloc(&p, r.size, (unsigned)c->flags);
	} else {
		/* Registered memory is the program's: ours stands in for it. */
		size_t len = (size_t)((r.size + 4095) & ~(uint64_t)4095);
		r.sub = SBT_CM_MEM_HOST_REGISTER;
		r.host_buf = p = aligned_alloc(4096, len);
		if (!p)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                 (unsigned long long)r.size);
		memset(p, 0, len);
		if (s->drv.p_cuMemHostRegister)
			res = s->drv.p_cuMemHostRegister(p, r.size, (unsigned)c->flags);
	}
	if (res != CUDA_SUCCESS) {
		free(r.host_buf);
		return rpcu_cufail(s, diag, sbt_cm_kind_name(k), res, NULL);
	}
	r.live = (uint64_t)(uintptr_t)p;
	return rpcu_mem_add_range(s, &r, diag);
}

rp_status rpcu_exec_free(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	/* Freeing 0 is a no-op the driver accepts.  A stream-ordered free
	 * is done at once: releasing a granule waits for the context's
	 * work first, so the stream's work before it has finished. */
	if (!c->dst)
		return RP_OK;
	if (k == SBT_CM_K_cuMemFreeAsync) {
		/* graph memory freed outside its graph (or, in a stream capture,
		 * by the capture's free node): freed on the stream; its address
		 * stays the graph's (the next launch allocates it again), so the
		 * mapping stays */
		long i = rpcu_find_exact(s, c->dst, RPCU_R_GRAPH);
		CUstream st_live;
		rp_status st;
		CUresult r;
		if (i >= 0) {
			if ((st = rpcu_stream_resolve(s, c->stream, &st_live, NULL, diag)) != RP_OK ||
			    (st = RPCU_NEED(cuMemFreeAsync)) != RP_OK)
				return st;
			r = s->drv.p_cuMemFreeAsync((CUdeviceptr)s->ranges.v[i].live, st_live);
			return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemFreeAsync", r, NULL);
		}
	}
	return rpcu_free(s, c->dst, RPCU_R_DEVICE, "cuMemFree", diag);
}

rp_status rpcu_exec_free_host(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	if (!c->host && k == SBT_CM_K_cuMemFreeHost)
		return RP_OK; /* cuMemFreeHost(NULL): a no-op */
	return rpcu_free(s, c->host, RPCU_R_HOST, sbt_cm_kind_name(k), diag);
}

/* ---- the application's VMM calls ---------------------------------------------------------- */

/* Every VMM record needs all of the driver's VMM entry points. */
static rp_status rpcu_vmm_missing(rpcu_state *s, rp_diag *diag)
{
	return rpcu_missing(s, diag, "virtual memory management (cuMemAddressReserve, ...)");
}

rp_status rpcu_do_cuMemAddressReserve(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUresult r;
	long i;
	CUdeviceptr got = 0;
	rpcu_window *win;
	rpcu_range rg;
	char why[128] = "";

	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	if (!c->dst || !c->size)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record has no address or no size");
	while ((i = rpcu_ranges_overlap(&s->ranges, c->dst, c->size)) >= 0)
		rpcu_range_release(s, (size_t)i, 1);
	win = s->no_reserve ? NULL : rpcu_window_of(s, c->dst, c->size);
	if (win && !win->tried)
		rpcu_windows_open(s, s->device_base + win->device);
	if (win && win->reserved) {
		/* Capture made it inside its window: a sub-range of ours. */
		memset(&rg, 0, sizeof(rg));
		rg.cap = rg.live = c->dst;
		rg.size = c->size;
		rg.kind = RPCU_R_VMM;
		rg.sub = SBT_CM_MEM_VMM_RESERVE;
		rg.in_window = 1;
		rg.seq = s->seq;
		rg.ctx = s->cur_ctx;
		if (rpcu_ranges_insert(&s->ranges, &rg) != 0)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		return RP_OK;
	}
	rpcu_pieces_drop_idle(s, c->dst, c->size);
	r = s->drv.p_cuMemAddressReserve(&got, c->size, c->align, (CUdeviceptr)c->dst, c->flags);
	if (r != CUDA_SUCCESS) {
		char err[96];
		snprintf(why, sizeof(why), "cuMemAddressReserve failed with %s",
		         rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		r = s->drv.p_cuMemAddressReserve(&got, c->size, c->align, 0, c->flags);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuMemAddressReserve", r, NULL);
	} else if ((uint64_t)got != c->dst) {
		snprintf(why, sizeof(why), "the driver placed it at 0x%llx instead", (unsigned long long)got);
	}
	memset(&rg, 0, sizeof(rg));
	rg.cap = c->dst;
	rg.size = c->size;
	rg.live = (uint64_t)got;
	rg.kind = RPCU_R_VMM;
	rg.sub = SBT_CM_MEM_VMM_RESERVE;
	rg.seq = s->seq;
	rg.ctx = s->cur_ctx;
	if (rg.live != rg.cap)
		rpcu_warn_moved(s, &rg, why);
	if (rpcu_ranges_insert(&s->ranges, &rg) != 0) {
		s->drv.p_cuMemAddressFree(got, c->size);
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	return RP_OK;
}

rp_status rpcu_do_cuMemAddressFree(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	rpcu_readonly_forget(s, c->dst, c->size);
	return rpcu_free(s, c->dst, RPCU_R_VMM, "cuMemAddressFree", diag);
}

rp_status rpcu_do_cuMemCreate(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUresult r;
	rpcu_obj *o;
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;

	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	rpcu_prop(&prop, s->device_base + (int)c->device);
	r = s->drv.p_cuMemCreate(&h, c->size, &prop, c->flags);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemCreate", r, NULL);
	o = rpcu_objs_put(&s->objs, RPCU_O_MEMHANDLE, c->handle);
	if (!o) {
		s->drv.p_cuMemRelease(h);
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = (uint64_t)h;
	o->ctx = s->cur_ctx;
	return RP_OK;
}

rp_status rpcu_do_cuMemRelease(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUresult r;
	rpcu_obj *o;

	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	o = rpcu_objs_get(&s->objs, RPCU_O_MEMHANDLE, c->handle);
	if (!o)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "allocation handle 0x%llx was never created "
		                 "in the trace", (unsigned long long)c->handle);
	r = s->drv.p_cuMemRelease((CUmemGenericAllocationHandle)o->live);
	rpcu_objs_del(&s->objs, o);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemRelease", r, NULL);
}

rp_status rpcu_do_cuMemMap(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUresult r;
	uint64_t live;
	rpcu_obj *o;
	long i;

	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	o = rpcu_objs_get(&s->objs, RPCU_O_MEMHANDLE, c->handle);
	if (!o)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "allocation handle 0x%llx was never created "
		                 "in the trace", (unsigned long long)c->handle);
	if (rpcu_ranges_translate(&s->ranges, c->dst, c->size, &live, &i) != 0 ||
	    s->ranges.v[i].kind != RPCU_R_VMM)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "0x%llx + %llu is not inside a reservation "
		                 "the trace made", (unsigned long long)c->dst, (unsigned long long)c->size);
	r = s->drv.p_cuMemMap((CUdeviceptr)live, c->size, c->offset,
	                      (CUmemGenericAllocationHandle)o->live, c->flags);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemMap", r, NULL);
	if (s->nvmaps == s->cap_vmaps) {
		size_t ncap = s->cap_vmaps ? s->cap_vmaps * 2 : 16;
		rpcu_vmap *nv = realloc(s->vmaps, ncap * sizeof(*nv));
		if (!nv)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		s->vmaps = nv;
		s->cap_vmaps = ncap;
	}
	s->vmaps[s->nvmaps].live = live;
	s->vmaps[s->nvmaps].size = c->size;
	s->nvmaps++;
	return RP_OK;
}

/* The live address of the range [c->dst, c->dst + c->size) of a
 * reservation the trace made. */
static rp_status rpcu_vmm_live(rpcu_state *s, const sbt_cm_call *c, uint64_t *live, rp_diag *diag)
{
	long i;
	if (rpcu_ranges_translate(&s->ranges, c->dst, c->size, live, &i) == 0)
		return RP_OK;
	return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "0x%llx + %llu is not inside a reservation "
	                 "the trace made", (unsigned long long)c->dst, (unsigned long long)c->size);
}

rp_status rpcu_do_cuMemUnmap(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUresult r;
	uint64_t live;
	rp_status st;
	size_t m;

	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	if ((st = rpcu_vmm_live(s, c, &live, diag)) != RP_OK)
		return st;
	r = s->drv.p_cuMemUnmap((CUdeviceptr)live, c->size);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemUnmap", r, NULL);
	rpcu_readonly_forget(s, c->dst, c->size);
	for (m = 0; m < s->nvmaps; m++)
		if (s->vmaps[m].live == live) {
			s->vmaps[m] = s->vmaps[--s->nvmaps];
			break;
		}
	return RP_OK;
}

rp_status rpcu_do_cuMemSetAccess(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	CUresult r;
	uint64_t live;
	rp_status st;
	CUmemAccessDesc d;

	(void)k;
	if (!rpcu_have_vmm(s))
		return rpcu_vmm_missing(s, diag);
	if ((st = rpcu_vmm_live(s, c, &live, diag)) != RP_OK)
		return st;
	memset(&d, 0, sizeof(d));
	d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d.location.id = s->device_base + (int)c->device;
	d.flags = (CUmemAccess_flags)c->flags;
	r = s->drv.p_cuMemSetAccess((CUdeviceptr)live, c->size, &d, 1);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemSetAccess", r, NULL);
	rpcu_readonly_forget(s, c->dst, c->size);
	if (c->flags == CU_MEM_ACCESS_FLAGS_PROT_READ) {
		if (s->nreadonly == s->cap_readonly) {
			size_t ncap = s->cap_readonly ? s->cap_readonly * 2 : 8;
			rpcu_readonly *n = realloc(s->readonly, ncap * sizeof(*n));
			if (!n)
				return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			s->readonly = n;
			s->cap_readonly = ncap;
		}
		s->readonly[s->nreadonly++] = (rpcu_readonly){c->dst, c->size, s->seq};
	}
	return RP_OK;
}

void rpcu_readonly_forget(rpcu_state *s, uint64_t addr, uint64_t len)
{
	for (size_t i = s->nreadonly; i-- > 0;) {
		const rpcu_readonly *ro = &s->readonly[i];
		if (ro->cap < addr + len && addr < ro->cap + ro->size)
			s->readonly[i] = s->readonly[--s->nreadonly];
	}
}


void rpcu_mem_forget_ctx(rpcu_state *s, CUcontext ctx)
{
	size_t i;
	for (i = s->ncopies; i-- > 0;)
		if (s->copies[i].ctx == ctx && s->copies[i].done) {
			s->drv.p_cuEventSynchronize(s->copies[i].done);
			s->drv.p_cuEventDestroy(s->copies[i].done);
			s->copies[i].done = NULL;
		}
	for (i = s->ranges.n; i-- > 0;)
		if (s->ranges.v[i].ctx == ctx && s->ranges.v[i].kind != RPCU_R_VMM)
			rpcu_range_release(s, i, 0); /* the context takes its memory with it */
}
