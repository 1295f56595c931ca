/*
 * rpcu_mem.c - memory in the CUDA replay: allocations at their captured
 * addresses (or moved, with pointer patching), pinned host memory, the
 * application's own VMM calls, copies, memsets, keyframe snapshots, the
 * bytes checkpoints ask for, and teardown.
 *
 * Placing allocations: inside a VA window of the trace, rpcu_window.c maps
 * the allocation's granules at their captured addresses.  Elsewhere (or
 * when the window cannot be had), a device allocation [cap, cap + size) is
 * covered by
 * "pieces", reservations of whole granularity pages at their captured
 * address (cuMemAddressReserve with that address as the hint, cuMemCreate,
 * cuMemMap, cuMemSetAccess).  Pieces are shared by allocations in the same
 * pages and stay mapped until teardown once unused, so an address the trace
 * reuses is found mapped.  When the driver will not place a page where it
 * was (another mapping is there, or it refuses the hint), the allocation is
 * made anywhere, kernel parameters pointing into it are rewritten, and one
 * warning says that pointers stored in memory may be stale.
 *
 * Copies keep host-synchronous calls host-synchronous: on the legacy
 * stream the synchronous entry point is called; on any other stream (the
 * per-thread one, or all work on one stream) the async entry point
 * followed by a stream synchronization.  Host bytes of async uploads live
 * until an event recorded after the copy has fired; the host destination
 * of a device->host copy lives until its checkpoint has been served.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPCU_STAGE_LIMIT ((uint64_t)256 << 20) /* in-flight upload bytes before waiting */
#define RPCU_COPY_LIMIT ((uint64_t)1 << 30)    /* unserved copy bytes before dropping */

static rp_status rpcu_mneed(rpcu_state *s, const void *fn, const char *name, rp_diag *diag)
{
	return fn ? RP_OK : rpcu_missing(s, diag, name);
}
#define RPCU_NEED(fn) rpcu_mneed(s, (const void *)(uintptr_t)s->drv.p_##fn, #fn, diag)

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

static void rpcu_piece_free(rpcu_state *s, size_t i)
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
static CUresult rpcu_range_release(rpcu_state *s, size_t i, int driver)
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

rp_status rpcu_mem_add_range(rpcu_state *s, const rpcu_range *r, rp_diag *diag)
{
	long i;
	while ((i = rpcu_ranges_overlap(&s->ranges, r->cap, r->size)) >= 0)
		rpcu_range_release(s, (size_t)i, 1);
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

static rp_status rpcu_alloc_device(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rpcu_range r;
	rpcu_window *win;
	char why[200] = "";
	long i;
	memset(&r, 0, sizeof(r));
	r.cap = c->dst;
	r.size = c->size ? c->size : c->pitch * c->height;
	r.kind = RPCU_R_DEVICE;
	r.sub = (uint8_t)c->sub;
	r.seq = s->seq;
	r.ctx = s->cur_ctx;
	if (!r.cap || !r.size)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record has no address or no size");
	while ((i = rpcu_ranges_overlap(&s->ranges, r.cap, r.size)) >= 0)
		rpcu_range_release(s, (size_t)i, 1); /* freed by a call the trace does not have */
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
		if (k == SBT_CM_K_cuMemAllocManaged) {
			rp_status st = RPCU_NEED(cuMemAllocManaged);
			if (st != RP_OK)
				return st;
			res = s->drv.p_cuMemAllocManaged(&d, r.size,
			                                 c->flags ? (unsigned)c->flags : CU_MEM_ATTACH_GLOBAL);
		} else {
			rp_status st = RPCU_NEED(cuMemAlloc);
			if (st != RP_OK)
				return st;
			/* Pitch: the captured pitch is what the program uses; keep it. */
			res = s->drv.p_cuMemAlloc(&d, r.size);
		}
		if (res != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, k == SBT_CM_K_cuMemAllocManaged ? "cuMemAllocManaged" : "cuMemAlloc",
			                  res, "(the allocation could not be placed at its captured address)");
		r.live = (uint64_t)d;
		if (r.live != r.cap)
			rpcu_warn_moved(s, &r, why);
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

static rp_status rpcu_free(rpcu_state *s, uint64_t cap, rpcu_rkind kind, const char *fn, rp_diag *diag)
{
	long i = rpcu_find_exact(s, cap, kind);
	CUresult r;
	if (i < 0)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "0x%llx is not an allocation the trace made "
		                "(or it was freed already)", (unsigned long long)cap);
	r = rpcu_range_release(s, (size_t)i, 1);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, fn, r, NULL);
}

static rp_status rpcu_alloc_host(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
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

/* ---- the application's VMM calls ---------------------------------------------------------- */

static rp_status rpcu_exec_vmm(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	CUresult r;
	uint64_t live;
	rpcu_obj *o;
	long i;

	if (!rpcu_have_vmm(s))
		return rpcu_missing(s, diag, "virtual memory management (cuMemAddressReserve, ...)");
	switch (k) {
	case SBT_CM_K_cuMemAddressReserve: {
		CUdeviceptr got = 0;
		rpcu_window *win;
		rpcu_range rg;
		char why[128] = "";
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
	case SBT_CM_K_cuMemAddressFree:
		return rpcu_free(s, c->dst, RPCU_R_VMM, "cuMemAddressFree", diag);
	case SBT_CM_K_cuMemCreate: {
		CUmemAllocationProp prop;
		CUmemGenericAllocationHandle h;
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
	case SBT_CM_K_cuMemRelease:
		o = rpcu_objs_get(&s->objs, RPCU_O_MEMHANDLE, c->handle);
		if (!o)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "allocation handle 0x%llx was never created "
			                "in the trace", (unsigned long long)c->handle);
		r = s->drv.p_cuMemRelease((CUmemGenericAllocationHandle)o->live);
		rpcu_objs_del(&s->objs, o);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemRelease", r, NULL);
	case SBT_CM_K_cuMemMap:
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
	case SBT_CM_K_cuMemUnmap: {
		size_t m;
		if (rpcu_ranges_translate(&s->ranges, c->dst, c->size, &live, &i) != 0)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "0x%llx + %llu is not inside a reservation "
			                "the trace made", (unsigned long long)c->dst, (unsigned long long)c->size);
		r = s->drv.p_cuMemUnmap((CUdeviceptr)live, c->size);
		if (r != CUDA_SUCCESS)
			return rpcu_cufail(s, diag, "cuMemUnmap", r, NULL);
		for (m = 0; m < s->nvmaps; m++)
			if (s->vmaps[m].live == live) {
				s->vmaps[m] = s->vmaps[--s->nvmaps];
				break;
			}
		return RP_OK;
	}
	case SBT_CM_K_cuMemSetAccess: {
		CUmemAccessDesc d;
		if (rpcu_ranges_translate(&s->ranges, c->dst, c->size, &live, &i) != 0)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "0x%llx + %llu is not inside a reservation "
			                "the trace made", (unsigned long long)c->dst, (unsigned long long)c->size);
		memset(&d, 0, sizeof(d));
		d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		d.location.id = s->device_base + (int)c->device;
		d.flags = (CUmemAccess_flags)c->flags;
		r = s->drv.p_cuMemSetAccess((CUdeviceptr)live, c->size, &d, 1);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemSetAccess", r, NULL);
	}
	default:
		return st;
	}
}

/* ---- staging of async uploads --------------------------------------------------------------- */

void rpcu_stages_poll(rpcu_state *s, int wait)
{
	while (s->stage_head < s->nstages) {
		rpcu_stage *g = &s->stages[s->stage_head];
		if (g->done) {
			CUresult r = wait ? s->drv.p_cuEventSynchronize(g->done) : s->drv.p_cuEventQuery(g->done);
			if (r == CUDA_ERROR_NOT_READY)
				break;
			s->drv.p_cuEventDestroy(g->done);
		}
		free(g->buf);
		s->stage_bytes -= g->len;
		s->stage_head++;
	}
	if (s->stage_head == s->nstages)
		s->stage_head = s->nstages = 0;
}

/* An event recorded on stream now, in the current context; NULL if the
 * driver cannot make one (the caller then waits for the stream). */
static CUevent rpcu_mark(rpcu_state *s, CUstream stream)
{
	CUevent e = NULL;
	if (!s->drv.p_cuEventCreate || !s->drv.p_cuEventRecord || !s->drv.p_cuEventDestroy ||
	    !s->drv.p_cuEventQuery)
		return NULL;
	if (s->drv.p_cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
		return NULL;
	if (s->drv.p_cuEventRecord(e, stream) != CUDA_SUCCESS) {
		s->drv.p_cuEventDestroy(e);
		return NULL;
	}
	return e;
}

/* Keep buf (owned from here on) until the upload issued on stream is done. */
static rp_status rpcu_stage_push(rpcu_state *s, void *buf, size_t len, CUstream stream, rp_diag *diag)
{
	CUevent e = rpcu_mark(s, stream);
	if (!e) {
		CUresult r = s->drv.p_cuStreamSynchronize ? s->drv.p_cuStreamSynchronize(stream)
		                                          : s->drv.p_cuCtxSynchronize();
		free(buf);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuStreamSynchronize", r, NULL);
	}
	if (s->nstages == s->cap_stages) {
		size_t ncap = s->cap_stages ? s->cap_stages * 2 : 32;
		rpcu_stage *ng = realloc(s->stages, ncap * sizeof(*ng));
		if (!ng) {
			s->drv.p_cuEventSynchronize(e);
			s->drv.p_cuEventDestroy(e);
			free(buf);
			return RP_OK;
		}
		s->stages = ng;
		s->cap_stages = ncap;
	}
	s->stages[s->nstages].buf = buf;
	s->stages[s->nstages].len = len;
	s->stages[s->nstages].done = e;
	s->stages[s->nstages].ctx = s->cur_ctx;
	s->nstages++;
	s->stage_bytes += len;
	if (s->stage_bytes > RPCU_STAGE_LIMIT)
		rpcu_stages_poll(s, 1);
	return RP_OK;
}

/* ---- copies kept for checkpoints ------------------------------------------------------------ */

static void rpcu_copy_drop(rpcu_state *s, size_t i)
{
	rpcu_copy *c = &s->copies[i];
	if (c->done)
		s->drv.p_cuEventDestroy(c->done);
	if (c->buf)
		s->copy_bytes -= c->len;
	free(c->buf);
	memmove(&s->copies[i], &s->copies[i + 1], (s->ncopies - i - 1) * sizeof(*s->copies));
	s->ncopies--;
}

void rpcu_copies_release_served(rpcu_state *s)
{
	size_t i;
	for (i = s->ncopies; i-- > 0;)
		if (s->copies[i].served)
			rpcu_copy_drop(s, i);
}

/* Remember a copy's result for its checkpoint.  src_cap: the captured
 * source (for the mismatch note). */
static rpcu_copy *rpcu_copy_add(rpcu_state *s, uint8_t *ptr, uint8_t *buf, uint64_t len, uint64_t vstart,
                              uint64_t src_cap)
{
	rpcu_copy *c;
	long i;
	if (s->ncopies == s->cap_copies) {
		size_t ncap = s->cap_copies ? s->cap_copies * 2 : 32;
		rpcu_copy *nc = realloc(s->copies, ncap * sizeof(*nc));
		if (!nc)
			return NULL;
		s->copies = nc;
		s->cap_copies = ncap;
	}
	c = &s->copies[s->ncopies++];
	memset(c, 0, sizeof(*c));
	c->seq = s->seq;
	c->ptr = ptr;
	c->buf = buf;
	c->len = len;
	c->vstart = vstart;
	c->ctx = s->cur_ctx;
	if (buf)
		s->copy_bytes += len;
	i = src_cap ? rpcu_ranges_find(&s->ranges, src_cap) : -1;
	if (i >= 0) {
		const rpcu_range *r = &s->ranges.v[i];
		c->alloc_cap = r->cap;
		c->alloc_size = r->size;
		c->alloc_seq = r->seq;
		c->alloc_sub = r->sub;
		c->kernel_seq = r->kernel_seq;
		snprintf(c->kernel, sizeof(c->kernel), "%s", r->kernel);
	}
	/* Copies no checkpoint asked for (async ones never synchronized)
	 * must not pile up: the oldest go first. */
	while (s->copy_bytes > RPCU_COPY_LIMIT && s->ncopies > 1 && &s->copies[0] != c) {
		rpcu_copy_drop(s, 0);
		c--;
	}
	return c;
}

/* ---- copies ------------------------------------------------------------------------------- */

static int rpcu_is_async(sbt_cm_kind k)
{
	return k == SBT_CM_K_cuMemcpyAsync || k == SBT_CM_K_cuMemcpyHtoDAsync ||
	       k == SBT_CM_K_cuMemcpyDtoHAsync || k == SBT_CM_K_cuMemcpyDtoDAsync ||
	       k == SBT_CM_K_cuMemcpyPeerAsync || k == SBT_CM_K_cuMemcpy2DAsync ||
	       k == SBT_CM_K_cuMemcpy3DAsync || k == SBT_CM_K_cuMemsetD8Async ||
	       k == SBT_CM_K_cuMemsetD16Async || k == SBT_CM_K_cuMemsetD32Async ||
	       k == SBT_CM_K_cuMemsetD2D8Async || k == SBT_CM_K_cuMemsetD2D16Async ||
	       k == SBT_CM_K_cuMemsetD2D32Async;
}

static rp_status rpcu_translate(rpcu_state *s, uint64_t addr, uint64_t len, const char *what,
                               uint64_t *live, rp_diag *diag)
{
	long i;
	if (rpcu_ranges_translate(&s->ranges, addr, len, live, &i) == 0)
		return RP_OK;
	if (i >= 0)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx + %llu runs past the end of the allocation "
		                "0x%llx (%llu bytes, seq %llu)", what, (unsigned long long)addr,
		                (unsigned long long)len, (unsigned long long)s->ranges.v[i].cap,
		                (unsigned long long)s->ranges.v[i].size, (unsigned long long)s->ranges.v[i].seq);
	return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx (%llu bytes) lies in no allocation the trace "
	                "made", what, (unsigned long long)addr, (unsigned long long)len);
}

/* ---- texture and surface objects ------------------------------------------------------------- */

/*
 * Created again from the recorded descriptions, in the recorded order, over
 * the replay's memory (a relocated resource is translated).  Their handles
 * travel in kernel parameters, where they cannot be told from integers, so
 * parameters are never rewritten: a fresh context that creates the same
 * objects in the same order gets the same handles (the driver's are small
 * integers handed out in order), and where it does not, replay says so.
 */
rp_status rpcu_exec_texobj(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	int tex = k == SBT_CM_K_cuTexObjectCreate || k == SBT_CM_K_cuTexObjectDestroy;
	const char *fn = k == SBT_CM_K_cuTexObjectCreate    ? "cuTexObjectCreate"
	                 : k == SBT_CM_K_cuSurfObjectCreate ? "cuSurfObjectCreate"
	                 : tex                              ? "cuTexObjectDestroy"
	                                                    : "cuSurfObjectDestroy";
	CUDA_RESOURCE_DESC res;
	CUDA_TEXTURE_DESC td;
	CUDA_RESOURCE_VIEW_DESC view;
	unsigned long long h = 0;
	uint64_t live = 0;
	rpcu_obj *o;
	rp_status st;
	CUresult r;

	if (k == SBT_CM_K_cuTexObjectDestroy || k == SBT_CM_K_cuSurfObjectDestroy) {
		o = rpcu_objs_get(&s->objs, RPCU_O_TEXOBJ, c->handle);
		if (!o)
			return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "%s object 0x%llx was never created in "
			                "the trace", tex ? "texture" : "surface", (unsigned long long)c->handle);
		if ((st = tex ? RPCU_NEED(cuTexObjectDestroy) : RPCU_NEED(cuSurfObjectDestroy)) != RP_OK)
			return st;
		r = tex ? s->drv.p_cuTexObjectDestroy((CUtexObject)o->live)
		        : s->drv.p_cuSurfObjectDestroy((CUsurfObject)o->live);
		rpcu_objs_del(&s->objs, o);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, fn, r, NULL);
	}
	if (c->res_desc_len != sizeof(res) || (tex && c->tex_desc_len != sizeof(td)) ||
	    (c->view_desc_len && c->view_desc_len != sizeof(view)))
		return rpcu_fail(s, diag, RP_ERR_DECODE, "the recorded descriptions are %zu, %zu and %zu "
		                "bytes; this build's CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC and "
		                "CUDA_RESOURCE_VIEW_DESC are %zu, %zu and %zu", c->res_desc_len,
		                c->tex_desc_len, c->view_desc_len, sizeof(res), sizeof(td), sizeof(view));
	memcpy(&res, c->res_desc, sizeof(res));
	if (tex)
		memcpy(&td, c->tex_desc, sizeof(td));
	if (c->view_desc_len)
		memcpy(&view, c->view_desc, sizeof(view));
	switch (res.resType) {
	case CU_RESOURCE_TYPE_LINEAR:
		if ((st = rpcu_translate(s, res.res.linear.devPtr, res.res.linear.sizeInBytes,
		                        "the linear texture resource", &live, diag)) != RP_OK)
			return st;
		res.res.linear.devPtr = (CUdeviceptr)live;
		break;
	case CU_RESOURCE_TYPE_PITCH2D:
		if ((st = rpcu_translate(s, res.res.pitch2D.devPtr,
		                        (uint64_t)res.res.pitch2D.pitchInBytes * res.res.pitch2D.height,
		                        "the pitch-2D texture resource", &live, diag)) != RP_OK)
			return st;
		res.res.pitch2D.devPtr = (CUdeviceptr)live;
		break;
	default:
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "%s over a CUDA array (resource type %d): "
		                "arrays are not replayed yet", fn, (int)res.resType);
	}
	if ((st = tex ? RPCU_NEED(cuTexObjectCreate) : RPCU_NEED(cuSurfObjectCreate)) != RP_OK)
		return st;
	r = tex ? s->drv.p_cuTexObjectCreate(&h, &res, &td, c->view_desc_len ? &view : NULL)
	        : s->drv.p_cuSurfObjectCreate(&h, &res);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, fn, r, NULL);
	o = rpcu_objs_put(&s->objs, RPCU_O_TEXOBJ, c->handle);
	if (!o)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->live = h;
	o->ctx = s->cur_ctx;
	if (h != c->handle && !s->warned_texobj) {
		s->warned_texobj = 1;
		rpcu_warn(s, "seq %llu: the %s object was %llu at capture and is %llu in this replay; "
		         "kernel parameters holding it are not rewritten (they cannot be told from "
		         "integers), so kernels reading it may read another object",
		         (unsigned long long)s->seq, tex ? "texture" : "surface",
		         (unsigned long long)c->handle, h);
	}
	return RP_OK;
}

/* After a host-synchronous call issued as async on a stream of ours. */
static rp_status rpcu_sync_after(rpcu_state *s, int sync, CUstream stream, rp_diag *diag)
{
	CUresult r;
	if (!sync || !stream)
		return RP_OK;
	r = s->drv.p_cuStreamSynchronize ? s->drv.p_cuStreamSynchronize(stream) : s->drv.p_cuCtxSynchronize();
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuStreamSynchronize", r, NULL);
}

static rp_status rpcu_blob_exact(rpcu_state *s, uint64_t id, uint64_t size, uint8_t **out, rp_diag *diag)
{
	void *data = NULL;
	size_t len = 0;
	sbt_status sst;
	if (!id)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "the record carries no data (no blob)");
	sst = sbt_reader_blob_get(s->trace, id, &data, &len);
	if (sst != SBT_OK)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "blob %llu: %s", (unsigned long long)id, sbt_strerror(sst));
	if (len != size) {
		free(data);
		return rpcu_fail(s, diag, RP_ERR_TRACE, "blob %llu holds %zu bytes, the copy %llu",
		                (unsigned long long)id, len, (unsigned long long)size);
	}
	*out = data;
	return RP_OK;
}

static rp_status rpcu_copy_htod(rpcu_state *s, const sbt_cm_call *c, int sync, CUstream stream,
                               rp_diag *diag)
{
	uint64_t live;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	if (!c->size)
		return RP_OK;
	if ((st = rpcu_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK ||
	    (st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK)
		return st;
	if (s->relocate_memory)
		rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyHtoD)) == RP_OK &&
		    (r = s->drv.p_cuMemcpyHtoD((CUdeviceptr)live, buf, c->size)) != CUDA_SUCCESS)
			st = rpcu_cufail(s, diag, "cuMemcpyHtoD", r, NULL);
		free(buf);
		return st;
	}
	if ((st = RPCU_NEED(cuMemcpyHtoDAsync)) != RP_OK) {
		free(buf);
		return st;
	}
	r = s->drv.p_cuMemcpyHtoDAsync((CUdeviceptr)live, buf, c->size, stream);
	if (r != CUDA_SUCCESS) {
		free(buf);
		return rpcu_cufail(s, diag, "cuMemcpyHtoDAsync", r, NULL);
	}
	if (sync) {
		st = rpcu_sync_after(s, sync, stream, diag);
		free(buf);
		return st;
	}
	return rpcu_stage_push(s, buf, c->size, stream, diag);
}

static rp_status rpcu_copy_dtoh(rpcu_state *s, const sbt_cm_call *c, int sync, CUstream stream,
                               rp_diag *diag)
{
	uint64_t live, host;
	uint8_t *buf = NULL, *ptr;
	rpcu_copy *cp;
	rp_status st;
	CUresult r;
	long hi;
	if (!c->size)
		return RP_OK;
	if ((st = rpcu_translate(s, c->src, c->size, "source", &live, diag)) != RP_OK)
		return st;
	/* Into pinned memory the trace allocated: where the program had it. */
	if (c->host && rpcu_ranges_translate(&s->ranges, c->host, c->size, &host, &hi) == 0 &&
	    s->ranges.v[hi].kind == RPCU_R_HOST) {
		ptr = (uint8_t *)(uintptr_t)host;
	} else {
		ptr = buf = malloc(c->size);
		if (!buf)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                (unsigned long long)c->size);
	}
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyDtoH)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuMemcpyDtoH(ptr, (CUdeviceptr)live, c->size);
	} else {
		if ((st = RPCU_NEED(cuMemcpyDtoHAsync)) != RP_OK)
			goto out_free;
		r = s->drv.p_cuMemcpyDtoHAsync(ptr, (CUdeviceptr)live, c->size, stream);
	}
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, sync && !stream ? "cuMemcpyDtoH" : "cuMemcpyDtoHAsync", r, NULL);
		goto out_free;
	}
	if ((st = rpcu_sync_after(s, sync, stream, diag)) != RP_OK)
		goto out_free;
	cp = rpcu_copy_add(s, ptr, buf, c->size, c->src, c->src);
	if (!cp) {
		st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		goto out_free;
	}
	if (!sync)
		cp->done = rpcu_mark(s, stream);
	return RP_OK;
out_free:
	free(buf);
	return st;
}

static rp_status rpcu_copy_dtod(rpcu_state *s, const sbt_cm_call *c, int sync, CUstream stream,
                               rp_diag *diag)
{
	uint64_t ld, ls;
	rp_status st;
	CUresult r;
	if (!c->size)
		return RP_OK;
	if ((st = rpcu_translate(s, c->dst, c->size, "destination", &ld, diag)) != RP_OK ||
	    (st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK)
		return st;
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyDtoD)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoD((CUdeviceptr)ld, (CUdeviceptr)ls, c->size);
	} else {
		if ((st = RPCU_NEED(cuMemcpyDtoDAsync)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoDAsync((CUdeviceptr)ld, (CUdeviceptr)ls, c->size, stream);
	}
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyDtoD", r, NULL);
	return rpcu_sync_after(s, sync, stream, diag);
}

/* Host to host (cuMemcpy with both sides in host memory): replayable when
 * both sides are pinned memory the trace allocated; the source bytes are
 * not in the trace otherwise, and a checkpoint of it says so. */
static rp_status rpcu_copy_htoh(rpcu_state *s, const sbt_cm_call *c, int sync, CUstream stream,
                               rp_diag *diag)
{
	uint64_t ld, ls;
	long di, si;
	rpcu_copy *cp;
	CUresult r;
	if (!c->size)
		return RP_OK;
	if (rpcu_ranges_translate(&s->ranges, c->dst, c->size, &ld, &di) != 0 ||
	    rpcu_ranges_translate(&s->ranges, c->host, c->size, &ls, &si) != 0 || !s->drv.p_cuMemcpyAsync) {
		cp = rpcu_copy_add(s, NULL, NULL, c->size, c->dst, 0);
		if (!cp)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		cp->why_not = "a host-to-host copy whose source is not memory the trace allocated: its bytes "
		              "are not in the trace";
		return RP_OK;
	}
	r = s->drv.p_cuMemcpyAsync((CUdeviceptr)ld, (CUdeviceptr)ls, c->size, stream);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyAsync", r, NULL);
	if (sync && !stream && (r = s->drv.p_cuCtxSynchronize()) != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxSynchronize", r, NULL);
	if (rpcu_sync_after(s, sync, stream, diag) != RP_OK)
		return RP_ERR_BACKEND;
	cp = rpcu_copy_add(s, (uint8_t *)(uintptr_t)ld, NULL, c->size, c->dst, 0);
	if (!cp)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (!sync)
		cp->done = rpcu_mark(s, stream);
	return RP_OK;
}

static rp_status rpcu_copy_peer(rpcu_state *s, const sbt_cm_call *c, int sync, CUstream stream,
                               rp_diag *diag)
{
	rpcu_obj *dc = rpcu_objs_get(&s->objs, RPCU_O_CTX, c->ctx);
	rpcu_obj *sc = rpcu_objs_get(&s->objs, RPCU_O_CTX, c->src_ctx);
	uint64_t ld, ls;
	rp_status st;
	CUresult r;
	if (!dc || !sc)
		return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "context 0x%llx was never created in the trace",
		                (unsigned long long)(dc ? c->src_ctx : c->ctx));
	if ((st = rpcu_translate(s, c->dst, c->size, "destination", &ld, diag)) != RP_OK ||
	    (st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK)
		return st;
	if (sync && !stream) {
		if ((st = RPCU_NEED(cuMemcpyPeer)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyPeer((CUdeviceptr)ld, (CUcontext)(uintptr_t)dc->live, (CUdeviceptr)ls,
		                          (CUcontext)(uintptr_t)sc->live, c->size);
	} else {
		if ((st = RPCU_NEED(cuMemcpyPeerAsync)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyPeerAsync((CUdeviceptr)ld, (CUcontext)(uintptr_t)dc->live, (CUdeviceptr)ls,
		                               (CUcontext)(uintptr_t)sc->live, c->size, stream);
	}
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuMemcpyPeer", r, NULL);
	return rpcu_sync_after(s, sync, stream, diag);
}

/* 2D and 3D copies: host sides are packed rows (width bytes each), the
 * source from the trace, the destination ours. */
static rp_status rpcu_copy_3d(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, int sync,
                             CUstream stream, rp_diag *diag)
{
	CUDA_MEMCPY3D m;
	uint64_t depth = c->depth ? c->depth : 1, bytes = c->width * c->height * depth, live;
	uint8_t *src = NULL, *dst = NULL;
	rp_status st = RP_OK;
	CUresult r;
	const char *fn;
	int missing = 0;

	if (c->sub == SBT_CM_COPY_ARRAY)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "copies to or from CUDA arrays are not "
		                "replayable yet");
	if (!bytes)
		return RP_OK;
	memset(&m, 0, sizeof(m));
	m.WidthInBytes = c->width;
	m.Height = c->height;
	m.Depth = depth;
	m.srcMemoryType = (CUmemorytype)c->src_type;
	m.dstMemoryType = (CUmemorytype)c->dst_type;
	if (c->src_type == CU_MEMORYTYPE_HOST) {
		if ((st = rpcu_blob_exact(s, c->blob, bytes, &src, diag)) != RP_OK)
			return st;
		m.srcHost = src;
		m.srcPitch = c->width;
		m.srcHeight = c->height;
	} else {
		if ((st = rpcu_translate(s, c->src, 1, "source", &live, diag)) != RP_OK)
			return st;
		m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		m.srcDevice = (CUdeviceptr)live;
		m.srcXInBytes = c->src_x;
		m.srcY = c->src_y;
		m.srcZ = c->src_z;
		m.srcPitch = c->src_pitch;
		m.srcHeight = c->src_height;
	}
	if (c->dst_type == CU_MEMORYTYPE_HOST) {
		dst = malloc(bytes);
		if (!dst) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes", (unsigned long long)bytes);
			goto out_free;
		}
		m.dstHost = dst;
		m.dstPitch = c->width;
		m.dstHeight = c->height;
	} else {
		if ((st = rpcu_translate(s, c->dst, 1, "destination", &live, diag)) != RP_OK)
			goto out_free;
		m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m.dstDevice = (CUdeviceptr)live;
		m.dstXInBytes = c->dst_x;
		m.dstY = c->dst_y;
		m.dstZ = c->dst_z;
		m.dstPitch = c->dst_pitch;
		m.dstHeight = c->dst_height;
	}
	if (k == SBT_CM_K_cuMemcpy3D || k == SBT_CM_K_cuMemcpy3DAsync) {
		fn = sync && !stream ? "cuMemcpy3D" : "cuMemcpy3DAsync";
		if (sync && !stream)
			r = s->drv.p_cuMemcpy3D ? s->drv.p_cuMemcpy3D(&m) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		else
			r = s->drv.p_cuMemcpy3DAsync ? s->drv.p_cuMemcpy3DAsync(&m, stream) : (missing = 1, CUDA_ERROR_NOT_FOUND);
	} else {
		CUDA_MEMCPY2D m2;
		memset(&m2, 0, sizeof(m2));
		m2.srcXInBytes = m.srcXInBytes;
		m2.srcY = m.srcY;
		m2.srcMemoryType = m.srcMemoryType;
		m2.srcHost = m.srcHost;
		m2.srcDevice = m.srcDevice;
		m2.srcPitch = m.srcPitch;
		m2.dstXInBytes = m.dstXInBytes;
		m2.dstY = m.dstY;
		m2.dstMemoryType = m.dstMemoryType;
		m2.dstHost = m.dstHost;
		m2.dstDevice = m.dstDevice;
		m2.dstPitch = m.dstPitch;
		m2.WidthInBytes = m.WidthInBytes;
		m2.Height = m.Height;
		if (k == SBT_CM_K_cuMemcpy2DUnaligned) {
			fn = "cuMemcpy2DUnaligned";
			r = s->drv.p_cuMemcpy2DUnaligned ? s->drv.p_cuMemcpy2DUnaligned(&m2) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		} else if (sync && !stream) {
			fn = "cuMemcpy2D";
			r = s->drv.p_cuMemcpy2D ? s->drv.p_cuMemcpy2D(&m2) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		} else {
			fn = "cuMemcpy2DAsync";
			r = s->drv.p_cuMemcpy2DAsync ? s->drv.p_cuMemcpy2DAsync(&m2, stream) : (missing = 1, CUDA_ERROR_NOT_FOUND);
		}
	}
	if (missing) {
		st = rpcu_missing(s, diag, fn);
		goto out_free;
	}
	if (r != CUDA_SUCCESS) {
		st = rpcu_cufail(s, diag, fn, r, NULL);
		goto out_free;
	}
	if ((st = rpcu_sync_after(s, sync, stream, diag)) != RP_OK)
		goto out_free;
	if (src && !sync) {
		st = rpcu_stage_push(s, src, bytes, stream, diag);
		src = NULL;
		if (st != RP_OK)
			goto out_free;
	}
	if (dst) {
		rpcu_copy *cp = rpcu_copy_add(s, dst, dst, bytes,
		                            c->src_type == CU_MEMORYTYPE_DEVICE ? c->src : 0, c->src);
		if (!cp) {
			st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
			goto out_free;
		}
		dst = NULL;
		if (!sync)
			cp->done = rpcu_mark(s, stream);
	}
out_free:
	free(src);
	free(dst);
	return st;
}

/* ---- memsets ---------------------------------------------------------------------------------- */

static rp_status rpcu_memset(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, int sync, CUstream stream,
                            rp_diag *diag)
{
	int two_d = k == SBT_CM_K_cuMemsetD2D8 || k == SBT_CM_K_cuMemsetD2D16 || k == SBT_CM_K_cuMemsetD2D32 ||
	            k == SBT_CM_K_cuMemsetD2D8Async || k == SBT_CM_K_cuMemsetD2D16Async ||
	            k == SBT_CM_K_cuMemsetD2D32Async;
	unsigned elem = c->elem_size ? (unsigned)c->elem_size : 1;
	uint64_t extent = c->size, live;
	CUdeviceptr d;
	size_t w = (size_t)c->width, h = (size_t)c->height, pitch = (size_t)c->pitch;
	int legacy = sync && !stream;
	rp_status st;
	CUresult r = CUDA_ERROR_NOT_FOUND;

	if (!extent)
		extent = two_d ? (h ? pitch * (h - 1) : 0) + w * elem : w * elem;
	if (!extent)
		return RP_OK;
	if ((st = rpcu_translate(s, c->dst, extent, "destination", &live, diag)) != RP_OK)
		return st;
	d = (CUdeviceptr)live;
	/* Host-synchronous originals off the legacy stream need no wait: a
	 * memset of device memory may return before it is done anyway. */
	switch (elem) {
	case 1:
		if (two_d)
			r = legacy ? (s->drv.p_cuMemsetD2D8 ? s->drv.p_cuMemsetD2D8(d, pitch, (unsigned char)c->value, w, h) : r)
			           : (s->drv.p_cuMemsetD2D8Async ? s->drv.p_cuMemsetD2D8Async(d, pitch, (unsigned char)c->value, w, h, stream) : r);
		else
			r = legacy ? (s->drv.p_cuMemsetD8 ? s->drv.p_cuMemsetD8(d, (unsigned char)c->value, w) : r)
			           : (s->drv.p_cuMemsetD8Async ? s->drv.p_cuMemsetD8Async(d, (unsigned char)c->value, w, stream) : r);
		break;
	case 2:
		if (two_d)
			r = legacy ? (s->drv.p_cuMemsetD2D16 ? s->drv.p_cuMemsetD2D16(d, pitch, (unsigned short)c->value, w, h) : r)
			           : (s->drv.p_cuMemsetD2D16Async ? s->drv.p_cuMemsetD2D16Async(d, pitch, (unsigned short)c->value, w, h, stream) : r);
		else
			r = legacy ? (s->drv.p_cuMemsetD16 ? s->drv.p_cuMemsetD16(d, (unsigned short)c->value, w) : r)
			           : (s->drv.p_cuMemsetD16Async ? s->drv.p_cuMemsetD16Async(d, (unsigned short)c->value, w, stream) : r);
		break;
	case 4:
		if (two_d)
			r = legacy ? (s->drv.p_cuMemsetD2D32 ? s->drv.p_cuMemsetD2D32(d, pitch, (unsigned)c->value, w, h) : r)
			           : (s->drv.p_cuMemsetD2D32Async ? s->drv.p_cuMemsetD2D32Async(d, pitch, (unsigned)c->value, w, h, stream) : r);
		else
			r = legacy ? (s->drv.p_cuMemsetD32 ? s->drv.p_cuMemsetD32(d, (unsigned)c->value, w) : r)
			           : (s->drv.p_cuMemsetD32Async ? s->drv.p_cuMemsetD32Async(d, (unsigned)c->value, w, stream) : r);
		break;
	default:
		return rpcu_fail(s, diag, RP_ERR_TRACE, "element size %u is not 1, 2 or 4", elem);
	}
	if (r == CUDA_ERROR_NOT_FOUND)
		return rpcu_missing(s, diag, legacy ? sbt_cm_kind_name(k) : "the async form of this memset");
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, sbt_cm_kind_name(k), r, NULL);
}

/* ---- keyframe snapshots ------------------------------------------------------------------------ */

static rp_status rpcu_snapshot(rpcu_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint64_t live;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	if (!s->snap_left)
		return RP_OK; /* not restoring from this keyframe: changes nothing */
	s->snap_left--;
	if (!c->size)
		return RP_OK;
	if (c->value == 1 && !c->blob) { /* a chunk of zero bytes, recorded without data */
		if ((st = rpcu_translate(s, c->dst, c->size, "snapshot of", &live, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemsetD8)) != RP_OK)
			return st;
		r = s->drv.p_cuMemsetD8((CUdeviceptr)live, 0, c->size);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemsetD8", r, "restoring the snapshot");
	}
	if ((st = rpcu_translate(s, c->dst, c->size, "snapshot of", &live, diag)) != RP_OK ||
	    (st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK || (st = RPCU_NEED(cuMemcpyHtoD)) != RP_OK) {
		free(buf);
		return st;
	}
	if (s->relocate_memory)
		rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
	r = s->drv.p_cuMemcpyHtoD((CUdeviceptr)live, buf, c->size);
	free(buf);
	return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyHtoD", r, "restoring the snapshot");
}

/* ---- work captured into a graph ------------------------------------------------------------------ */

/* Host memory a graph node reads or writes whenever the graph is launched:
 * kept (owned) until the end of the run. */
static rp_status rpcu_graph_keep(rpcu_state *s, void *buf, rp_diag *diag)
{
	if (s->ngraph_bufs == s->cap_graph_bufs) {
		size_t ncap = s->cap_graph_bufs ? s->cap_graph_bufs * 2 : 16;
		void **n = realloc(s->graph_bufs, ncap * sizeof(*n));
		if (!n) {
			free(buf);
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		}
		s->graph_bufs = n;
		s->cap_graph_bufs = ncap;
	}
	s->graph_bufs[s->ngraph_bufs++] = buf;
	return RP_OK;
}

/* A copy or memset recorded during stream capture, issued into the
 * replay's capture of the same stream: async forms only (the program could
 * not have made a synchronous call there), host buffers kept for the
 * graph's lifetime, no checkpoint (nothing ran at capture). */
static rp_status rpcu_capture_work(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, CUstream stream,
                                  rp_diag *diag)
{
	uint64_t live, ls;
	uint8_t *buf = NULL;
	rp_status st;
	CUresult r;
	int dir = k == SBT_CM_K_cuMemcpyHtoDAsync ? SBT_CM_COPY_HTOD
	          : k == SBT_CM_K_cuMemcpyDtoHAsync ? SBT_CM_COPY_DTOH
	          : k == SBT_CM_K_cuMemcpyDtoDAsync ? SBT_CM_COPY_DTOD
	          : k == SBT_CM_K_cuMemcpyAsync ? (int)c->sub : 0;

	if (!rpcu_is_async(k))
		return rpcu_fail(s, diag, RP_ERR_TRACE, "a host-synchronous call recorded as captured into a graph");
	if (k == SBT_CM_K_cuMemsetD8Async || k == SBT_CM_K_cuMemsetD16Async || k == SBT_CM_K_cuMemsetD32Async ||
	    k == SBT_CM_K_cuMemsetD2D8Async || k == SBT_CM_K_cuMemsetD2D16Async ||
	    k == SBT_CM_K_cuMemsetD2D32Async)
		return rpcu_memset(s, k, c, 0, stream, diag);
	if (dir == 0)
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "this copy cannot be replayed into a graph yet "
		                "(only 1D host, device and unified copies can)");
	if (!c->size)
		return RP_OK;
	switch (dir) {
	case SBT_CM_COPY_HTOD:
		if ((st = rpcu_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK ||
		    (st = rpcu_blob_exact(s, c->blob, c->size, &buf, diag)) != RP_OK ||
		    (st = rpcu_graph_keep(s, buf, diag)) != RP_OK || (st = RPCU_NEED(cuMemcpyHtoDAsync)) != RP_OK)
			return st;
		if (s->relocate_memory)
			rpcu_ranges_patch_data(&s->ranges, buf, c->size, c->dst);
		r = s->drv.p_cuMemcpyHtoDAsync((CUdeviceptr)live, buf, c->size, stream);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyHtoDAsync", r, NULL);
	case SBT_CM_COPY_DTOH:
		if ((st = rpcu_translate(s, c->src, c->size, "source", &live, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemcpyDtoHAsync)) != RP_OK)
			return st;
		if (!(buf = malloc(c->size)))
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory for %llu bytes",
			                (unsigned long long)c->size);
		if ((st = rpcu_graph_keep(s, buf, diag)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoHAsync(buf, (CUdeviceptr)live, c->size, stream);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyDtoHAsync", r, NULL);
	case SBT_CM_COPY_DTOD:
		if ((st = rpcu_translate(s, c->dst, c->size, "destination", &live, diag)) != RP_OK ||
		    (st = rpcu_translate(s, c->src, c->size, "source", &ls, diag)) != RP_OK ||
		    (st = RPCU_NEED(cuMemcpyDtoDAsync)) != RP_OK)
			return st;
		r = s->drv.p_cuMemcpyDtoDAsync((CUdeviceptr)live, (CUdeviceptr)ls, c->size, stream);
		return r == CUDA_SUCCESS ? RP_OK : rpcu_cufail(s, diag, "cuMemcpyDtoDAsync", r, NULL);
	default:
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "this copy cannot be replayed into a graph");
	}
}

/* ---- dispatch -------------------------------------------------------------------------------------- */

rp_status rpcu_exec_memory(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, rp_diag *diag)
{
	int async = rpcu_is_async(k), capturing = 0;
	CUstream stream = NULL;
	rp_status st;

	switch (k) {
	case SBT_CM_K_cuMemAlloc: case SBT_CM_K_cuMemAllocPitch: case SBT_CM_K_cuMemAllocAsync:
	case SBT_CM_K_cuMemAllocFromPoolAsync: case SBT_CM_K_cuMemAllocManaged:
		return rpcu_alloc_device(s, k, c, diag);
	case SBT_CM_K_cuMemFree: case SBT_CM_K_cuMemFreeAsync:
		/* Freeing 0 is a no-op the driver accepts.  A stream-ordered free
		 * is done at once: releasing a granule waits for the context's
		 * work first, so the stream's work before it has finished. */
		if (!c->dst)
			return RP_OK;
		return rpcu_free(s, c->dst, RPCU_R_DEVICE, "cuMemFree", diag);
	case SBT_CM_K_cuMemAllocHost: case SBT_CM_K_cuMemHostAlloc: case SBT_CM_K_cuMemHostRegister:
		return rpcu_alloc_host(s, k, c, diag);
	case SBT_CM_K_cuMemFreeHost: case SBT_CM_K_cuMemHostUnregister:
		if (!c->host && k == SBT_CM_K_cuMemFreeHost)
			return RP_OK; /* cuMemFreeHost(NULL): a no-op */
		return rpcu_free(s, c->host, RPCU_R_HOST, sbt_cm_kind_name(k), diag);
	case SBT_CM_K_cuMemCreate: case SBT_CM_K_cuMemRelease: case SBT_CM_K_cuMemAddressReserve:
	case SBT_CM_K_cuMemAddressFree: case SBT_CM_K_cuMemMap: case SBT_CM_K_cuMemUnmap:
	case SBT_CM_K_cuMemSetAccess:
		return rpcu_exec_vmm(s, k, c, diag);
	case SBT_CM_K_tsSnapshot:
		return rpcu_snapshot(s, c, diag);
	default:
		break;
	}
	/* Copies and memsets: on the record's stream, skipped while it is
	 * being captured into a graph (the work did not run then). */
	st = rpcu_stream_resolve(s, async ? c->stream : 0, &stream, &capturing, diag);
	if (st != RP_OK)
		return st;
	if (rpcu_capture_skip(s, c, capturing))
		return RP_OK;
	if (c->capture_status || capturing)
		return rpcu_capture_work(s, k, c, stream, diag);
	switch (k) {
	case SBT_CM_K_cuMemcpyHtoD: case SBT_CM_K_cuMemcpyHtoDAsync:
		return rpcu_copy_htod(s, c, !async, stream, diag);
	case SBT_CM_K_cuMemcpyDtoH: case SBT_CM_K_cuMemcpyDtoHAsync:
		return rpcu_copy_dtoh(s, c, !async, stream, diag);
	case SBT_CM_K_cuMemcpyDtoD: case SBT_CM_K_cuMemcpyDtoDAsync:
		return rpcu_copy_dtod(s, c, !async, stream, diag);
	case SBT_CM_K_cuMemcpy: case SBT_CM_K_cuMemcpyAsync:
		switch (c->sub) {
		case SBT_CM_COPY_HTOD: {
			sbt_cm_call h = *c;
			return rpcu_copy_htod(s, &h, !async, stream, diag);
		}
		case SBT_CM_COPY_DTOH:
			return rpcu_copy_dtoh(s, c, !async, stream, diag);
		case SBT_CM_COPY_DTOD:
			return rpcu_copy_dtod(s, c, !async, stream, diag);
		case SBT_CM_COPY_HTOH:
			return rpcu_copy_htoh(s, c, !async, stream, diag);
		default:
			return rpcu_fail(s, diag, RP_ERR_TRACE, "copy direction %llu is unknown",
			                (unsigned long long)c->sub);
		}
	case SBT_CM_K_cuMemcpyPeer: case SBT_CM_K_cuMemcpyPeerAsync:
		return rpcu_copy_peer(s, c, !async, stream, diag);
	case SBT_CM_K_cuMemcpy2D: case SBT_CM_K_cuMemcpy2DUnaligned: case SBT_CM_K_cuMemcpy2DAsync:
	case SBT_CM_K_cuMemcpy3D: case SBT_CM_K_cuMemcpy3DAsync:
		return rpcu_copy_3d(s, k, c, !async, stream, diag);
	default:
		return rpcu_memset(s, k, c, !async, stream, diag);
	}
}

/* ---- checkpoints ------------------------------------------------------------------------------------ */

/* The result the call at seq had at capture (CUDA_SUCCESS when it cannot
 * be read). */
static CUresult rpcu_failed_result(rpcu_state *s, uint64_t seq)
{
	sbt_record rec;
	sbt_cm_call c;
	if (sbt_reader_seek_seq(s->trace, seq) != SBT_OK || sbt_reader_next(s->trace, &rec) != SBT_OK ||
	    rec.seq != seq || sbt_cm_decode(rec.payload, rec.payload_len, &c) != SBT_OK)
		return CUDA_SUCCESS;
	return (CUresult)c.result;
}

static const char *rpcu_sub_name(unsigned sub)
{
	switch (sub) {
	case SBT_CM_MEM_DEVICE: return "cuMemAlloc";
	case SBT_CM_MEM_PITCH: return "cuMemAllocPitch";
	case SBT_CM_MEM_ASYNC: return "cuMemAllocAsync";
	case SBT_CM_MEM_POOL: return "cuMemAllocFromPoolAsync";
	case SBT_CM_MEM_MANAGED: return "cuMemAllocManaged";
	case SBT_CM_MEM_HOST: return "cuMemAllocHost";
	case SBT_CM_MEM_HOST_ALLOC: return "cuMemHostAlloc";
	case SBT_CM_MEM_HOST_REGISTER: return "cuMemHostRegister";
	case SBT_CM_MEM_VMM_RESERVE: return "cuMemAddressReserve";
	case SBT_CM_MEM_GLOBAL: return "module global";
	default: return "allocation";
	}
}

/* The first difference with the capture, told in CUDA terms: the copy,
 * the allocation it read and where in it, and the last kernel given a
 * pointer into that allocation (the likeliest writer).  Once. */
static void rpcu_note_mismatch(rpcu_state *s, const rpcu_copy *c, const sbt_checkpoint *cp, const uint8_t *bytes)
{
	rp_check_result res;
	rp_diag d = {""};
	uint64_t at;
	if (s->noted_mismatch || rp_check_bytes(cp, bytes, cp->length, &res, &d) != RP_OK || res.match)
		return;
	s->noted_mismatch = 1;
	fprintf(stderr, "tsreplay: cuda: the device-to-host copy at seq %llu differs from the capture\n",
	        (unsigned long long)c->seq);
	if (!c->alloc_cap) {
		fprintf(stderr, "  source:   not inside an allocation the trace made\n");
		return;
	}
	at = res.located ? cp->object + res.diff_offset - c->alloc_cap : 0;
	fprintf(stderr, "  allocation: 0x%llx (%s at seq %llu, %llu bytes)\n", (unsigned long long)c->alloc_cap,
	        rpcu_sub_name(c->alloc_sub), (unsigned long long)c->alloc_seq, (unsigned long long)c->alloc_size);
	if (res.located)
		fprintf(stderr, "  offset:   %llu in the allocation (first differing block of %llu bytes)\n",
		        (unsigned long long)at, (unsigned long long)res.diff_len);
	if (c->kernel_seq)
		fprintf(stderr, "  kernel:   %s (launch seq %llu), the last kernel given a pointer into it\n",
		        c->kernel, (unsigned long long)c->kernel_seq);
	else
		fprintf(stderr, "  kernel:   none was given a pointer into it before the copy\n");
}

rp_status rpcu_checkpoint_bytes(rpcu_state *s, const sbt_checkpoint *cp, const void **bytes_out,
                               rp_diag *diag)
{
	uint64_t pos = cp->object + cp->offset, live, off;
	size_t i;
	CUresult r;

	s->call = NULL;
	for (i = s->ncopies; i-- > 0;) {
		rpcu_copy *c = &s->copies[i];
		if (c->seq != cp->call_seq)
			continue;
		if (c->done && s->drv.not_run)
			s->drv.p_cuEventSynchronize(c->done);
		rpcu_not_run_check(s, NULL); /* a launch the double ran late */
		if (s->not_run_seq && cp->call_seq > s->not_run_seq) {
			/* After a launch that ran nothing: its bytes say nothing. */
			c->served = 1;
			*bytes_out = NULL;
			rp_diag_set(diag, "after the launch at seq %llu, which ran nothing on the test double",
			            (unsigned long long)s->not_run_seq);
			return RP_OK;
		}
		if (c->why_not) {
			rp_diag_set(diag, "the copy at seq %llu cannot be replayed: %s", (unsigned long long)c->seq,
			            c->why_not);
			return RP_ERR_UNSUPPORTED;
		}
		if (c->done) {
			r = s->drv.p_cuEventSynchronize(c->done);
			if (r != CUDA_SUCCESS) {
				char err[96];
				rp_diag_set(diag, "waiting for the copy at seq %llu: cuEventSynchronize failed with %s",
				            (unsigned long long)c->seq, rpcu_cu_name(&s->drv, r, err, sizeof(err)));
				return RP_ERR_BACKEND;
			}
		}
		off = pos - c->vstart;
		if (pos < c->vstart || off > c->len || cp->length > c->len - off) {
			rp_diag_set(diag, "the checkpoint asks for [%llu, +%llu) of object 0x%llx, outside the "
			            "%llu bytes the copy at seq %llu wrote", (unsigned long long)cp->offset,
			            (unsigned long long)cp->length, (unsigned long long)cp->object,
			            (unsigned long long)c->len, (unsigned long long)c->seq);
			return RP_ERR_TRACE;
		}
		c->served = 1;
		*bytes_out = c->ptr + off;
		rpcu_note_mismatch(s, c, cp, c->ptr + off);
		return RP_OK;
	}
	if (!(s->restore_seq && cp->call_seq < s->restore_seq)) {
		CUresult failed = rpcu_failed_result(s, cp->call_seq);
		if (failed != CUDA_SUCCESS) {
			/* The copy failed at capture, so it was not replayed: its
			 * checkpoint holds whatever the host buffer held. */
			char err[96];
			*bytes_out = NULL;
			rp_diag_set(diag, "the copy at seq %llu failed at capture with %s",
			            (unsigned long long)cp->call_seq, rpcu_cu_name(&s->drv, failed, err, sizeof(err)));
			return RP_OK;
		}
		rp_diag_set(diag, "this replay made no device-to-host copy at seq %llu",
		            (unsigned long long)cp->call_seq);
		return RP_ERR_NOT_FOUND;
	}
	/* The copy lies before the keyframe the replay started at: its source
	 * as it is now (the keyframe's contents) is the best there is. */
	if (rpcu_ranges_translate(&s->ranges, pos, cp->length, &live, NULL) != 0) {
		rp_diag_set(diag, "the copy at seq %llu lies before the keyframe at seq %llu, and its source "
		            "0x%llx is not in an allocation the keyframe restored", (unsigned long long)cp->call_seq,
		            (unsigned long long)s->restore_seq, (unsigned long long)pos);
		return RP_ERR_NOT_FOUND;
	}
	{
		uint8_t *n = realloc(s->scratch, cp->length ? cp->length : 1);
		if (!n) {
			rp_diag_set(diag, "out of memory for %llu bytes", (unsigned long long)cp->length);
			return RP_ERR_NOMEM;
		}
		s->scratch = n;
	}
	r = s->drv.p_cuCtxSynchronize();
	if (r == CUDA_SUCCESS && cp->length)
		r = s->drv.p_cuMemcpyDtoH ? s->drv.p_cuMemcpyDtoH(s->scratch, (CUdeviceptr)live, cp->length)
		                          : CUDA_ERROR_NOT_FOUND;
	if (r != CUDA_SUCCESS) {
		char err[96];
		rp_diag_set(diag, "reading 0x%llx for the copy at seq %llu: %s", (unsigned long long)pos,
		            (unsigned long long)cp->call_seq, rpcu_cu_name(&s->drv, r, err, sizeof(err)));
		return RP_ERR_BACKEND;
	}
	*bytes_out = s->scratch;
	return RP_OK;
}

/* ---- teardown ------------------------------------------------------------------------------------------ */

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

void rpcu_teardown(rpcu_state *s)
{
	const rpcu_driver *d = &s->drv;
	size_t i, k;

	/* Wait for everything in flight, in every context the trace made. */
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_CTX && !o->dead && d->p_cuCtxSetCurrent((CUcontext)(uintptr_t)o->live) ==
		                                             CUDA_SUCCESS)
			d->p_cuCtxSynchronize();
	}
	rpcu_stages_poll(s, 1);
	while (s->ncopies)
		rpcu_copy_drop(s, s->ncopies - 1);
	for (i = s->ranges.n; i-- > 0;) {
		if (s->ranges.v[i].ctx)
			d->p_cuCtxSetCurrent(s->ranges.v[i].ctx);
		rpcu_range_release(s, i, 1);
	}
	for (i = 0; i < s->nvmaps; i++)
		d->p_cuMemUnmap((CUdeviceptr)s->vmaps[i].live, s->vmaps[i].size);
	s->nvmaps = 0;
	while (s->npieces)
		rpcu_piece_free(s, s->npieces - 1);
	rpcu_windows_close(s);
	for (i = 0; i < s->nthreads; i++)
		for (k = 0; k < 4; k++)
			if (s->threads[i].pt_stream[k] && d->p_cuStreamDestroy)
				d->p_cuStreamDestroy(s->threads[i].pt_stream[k]);
	/* Graphs: executables before the graphs they came from. */
	for (k = 0; k < 2; k++)
		for (i = 0; i < s->objs.cap; i++) {
			rpcu_obj *o = &s->objs.slot[i];
			if (o->dead || o->kind != (k ? RPCU_O_GRAPH : RPCU_O_GRAPHEXEC))
				continue;
			if (o->ctx)
				d->p_cuCtxSetCurrent(o->ctx);
			if (k && d->p_cuGraphDestroy)
				d->p_cuGraphDestroy((CUgraph)(uintptr_t)o->live);
			else if (!k && d->p_cuGraphExecDestroy)
				d->p_cuGraphExecDestroy((CUgraphExec)(uintptr_t)o->live);
			rpcu_objs_del(&s->objs, o);
		}
	for (i = 0; i < s->ngraph_bufs; i++)
		free(s->graph_bufs[i]);
	free(s->graph_bufs);
	s->graph_bufs = NULL;
	s->ngraph_bufs = s->cap_graph_bufs = 0;
	/* Objects, contexts last; each made current in its own context. */
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_NONE || o->dead || o->kind == RPCU_O_CTX)
			continue;
		if (o->ctx)
			d->p_cuCtxSetCurrent(o->ctx);
		if (o->kind == RPCU_O_EVENT && d->p_cuEventDestroy)
			d->p_cuEventDestroy((CUevent)(uintptr_t)o->live);
		else if (o->kind == RPCU_O_STREAM && o->live && d->p_cuStreamDestroy)
			d->p_cuStreamDestroy((CUstream)(uintptr_t)o->live);
		else if (o->kind == RPCU_O_MEMHANDLE && d->p_cuMemRelease)
			d->p_cuMemRelease((CUmemGenericAllocationHandle)o->live);
		else if (o->kind == RPCU_O_MODULE && !o->parent && d->p_cuModuleUnload)
			d->p_cuModuleUnload((CUmodule)(uintptr_t)o->live);
	}
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_LIBRARY && !o->dead && d->p_cuLibraryUnload)
			d->p_cuLibraryUnload((CUlibrary)(uintptr_t)o->live);
	}
	d->p_cuCtxSetCurrent(NULL);
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind != RPCU_O_CTX || o->dead)
			continue;
		if (!o->primary && d->p_cuCtxDestroy) {
			d->p_cuCtxDestroy((CUcontext)(uintptr_t)o->live);
		} else if (o->primary && d->p_cuDevicePrimaryCtxRelease) {
			CUdevice dev;
			if (d->p_cuDeviceGet(&dev, o->ordinal) == CUDA_SUCCESS)
				while (o->retains--)
					d->p_cuDevicePrimaryCtxRelease(dev);
		}
	}
	d->p_cuCtxSetCurrent(NULL);
	rpcu_objs_free(&s->objs);
	rpcu_ranges_free(&s->ranges);
	free(s->pieces);
	free(s->copies);
	free(s->stages);
	free(s->threads);
	free(s->vmaps);
	free(s->scratch);
	s->pieces = NULL;
	s->copies = NULL;
	s->stages = NULL;
	s->threads = NULL;
	s->vmaps = NULL;
	s->scratch = NULL;
	s->npieces = s->cap_pieces = s->ncopies = s->cap_copies = 0;
	s->nstages = s->stage_head = s->cap_stages = s->nthreads = s->cap_threads = 0;
	s->cap_vmaps = 0;
	s->copy_bytes = s->stage_bytes = 0;
	s->cur_ctx_cap = 0;
	s->cur_ctx = NULL;
	s->granularity = 0;
	s->restore_seq = 0;
	s->snap_left = 0;
	s->state_only = 0;
	free(s->failed_caps);
	s->failed_caps = NULL;
	s->nfailed = s->cap_failed = 0;
	s->capturing = 0;
	s->not_run_seq = 0;
}
