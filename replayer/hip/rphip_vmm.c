/*
 * rphip_vmm.c - the program's own virtual-memory calls, replayed as CUDA's
 * cuMem* records are (docs/hip.md "Virtual memory"): a reservation asked
 * for at its captured address, kept there when the runtime honours the
 * hint, else moved (a moved range: launches' pointer arguments into it
 * are rewritten); hipMemCreate's handle mapped to a live one; hipMemMap,
 * hipMemUnmap and hipMemSetAccess at the live address of the captured
 * range inside a reservation the trace made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/hip/rphip_internal.h"

#define RPHIP_VMM_LIVE(p) ((uint64_t)(uintptr_t)(p))

int rphip_is_vmm(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipMemAddressReserve: case SBT_CM_HIP_hipMemAddressFree:
	case SBT_CM_HIP_hipMemCreate: case SBT_CM_HIP_hipMemRelease:
	case SBT_CM_HIP_hipMemMap: case SBT_CM_HIP_hipMemUnmap:
	case SBT_CM_HIP_hipMemSetAccess:
		return 1;
	default:
		return 0;
	}
}

/* The reservation range holding [addr, addr + size): its index, or -1. */
static long rphip_vmm_range(const rphip_state *s, uint64_t addr, uint64_t size)
{
	long i = rphip_range_find(s, addr);

	if (i < 0 || !s->ranges[i].vmm || size > s->ranges[i].size ||
	    addr - s->ranges[i].cap > s->ranges[i].size - size)
		return -1;
	return i;
}

static rp_status rphip_vmm_live(rphip_state *s, const sbt_cm_call *c, uint64_t *live, rp_diag *diag)
{
	long i = c->size ? rphip_vmm_range(s, c->dst, c->size) : -1;

	if (i < 0)
		return rphip_fail(s, diag, RP_ERR_TRACE, "[0x%llx, +%llu) is not inside a reservation the "
		                  "trace made (hipMemAddressReserve)", (unsigned long long)c->dst,
		                  (unsigned long long)c->size);
	*live = s->ranges[i].live + (c->dst - s->ranges[i].cap);
	return RP_OK;
}

static rp_status rphip_vmm_reserve(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_range rg;
	void *p = NULL;
	void *hint = s->no_reserve ? NULL : (void *)(uintptr_t)c->dst;
	hipError_t r;
	long i;

	if (!c->dst || !c->size)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the record has no address or no size");
	/* a range the trace freed through a call it did not record */
	while ((i = rphip_range_find(s, c->dst)) >= 0 ||
	       (i = rphip_range_find(s, c->dst + c->size - 1)) >= 0)
		rphip_range_release(s, (size_t)i);
	r = s->rt.p_hipMemAddressReserve(&p, c->size, c->align, hint, c->flags);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemAddressReserve", r);
	memset(&rg, 0, sizeof(rg));
	rg.cap = c->dst;
	rg.size = c->size;
	rg.live = RPHIP_VMM_LIVE(p);
	rg.moved = rg.live != rg.cap;
	rg.vmm = 1;
	rg.seq = s->seq;
	if (rg.moved)
		s->moved++;
	else
		s->placed++;
	if (rphip_range_add(s, &rg) != 0) {
		s->rt.p_hipMemAddressFree(p, c->size);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	if (rg.moved && !s->no_reserve && !s->warned_moved && !s->quiet) {
		s->warned_moved = 1;
		fprintf(stderr, "tsreplay: hip: reservation of seq %llu placed at 0x%llx, not its captured "
		        "0x%llx: pointer arguments of launches are rewritten\n", (unsigned long long)s->seq,
		        (unsigned long long)rg.live, (unsigned long long)rg.cap);
	}
	return RP_OK;
}

static rp_status rphip_vmm_free(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	long i = rphip_range_find(s, c->dst);

	if (i < 0 || !s->ranges[i].vmm || s->ranges[i].cap != c->dst)
		return rphip_fail(s, diag, RP_ERR_TRACE, "reservation 0x%llx was never made in the trace",
		                  (unsigned long long)c->dst);
	s->rt.p_hipDeviceSynchronize();
	rphip_range_release(s, (size_t)i);
	return RP_OK;
}

static rp_status rphip_vmm_create(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	hipMemAllocationProp prop;
	hipMemGenericAllocationHandle_t h = NULL;
	rphip_obj *o;
	hipError_t r;

	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = s->cur_dev;
	r = s->rt.p_hipMemCreate(&h, c->size, &prop, c->flags);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemCreate", r);
	o = rphip_obj_put(s, RPHIP_O_MEMHANDLE, c->handle);
	if (!o) {
		s->rt.p_hipMemRelease(h);
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	o->live = h;
	return RP_OK;
}

static rp_status rphip_vmm_release(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *o = rphip_obj_get(s, RPHIP_O_MEMHANDLE, c->handle);
	hipError_t r;

	if (!o)
		return rphip_fail(s, diag, RP_ERR_TRACE, "allocation handle 0x%llx was never created in "
		                  "the trace (hipMemCreate)", (unsigned long long)c->handle);
	r = s->rt.p_hipMemRelease(o->live);
	rphip_obj_del(s, o);
	return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipMemRelease", r);
}

static rp_status rphip_vmm_map(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *o = rphip_obj_get(s, RPHIP_O_MEMHANDLE, c->handle);
	uint64_t live;
	rp_status st;
	hipError_t r;

	if (!o)
		return rphip_fail(s, diag, RP_ERR_TRACE, "allocation handle 0x%llx was never created in "
		                  "the trace (hipMemCreate)", (unsigned long long)c->handle);
	if ((st = rphip_vmm_live(s, c, &live, diag)) != RP_OK)
		return st;
	if (s->nvmaps == s->capvmaps) {
		size_t ncap = s->capvmaps ? s->capvmaps * 2 : 8;
		struct rphip_vmap *nv = realloc(s->vmaps, ncap * sizeof(*nv));
		if (!nv)
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		s->vmaps = nv;
		s->capvmaps = ncap;
	}
	r = s->rt.p_hipMemMap((void *)(uintptr_t)live, c->size, c->offset, o->live, c->flags);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemMap", r);
	s->vmaps[s->nvmaps].live = live;
	s->vmaps[s->nvmaps].size = c->size;
	s->nvmaps++;
	return RP_OK;
}

static rp_status rphip_vmm_unmap(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint64_t live;
	rp_status st;
	hipError_t r;

	if ((st = rphip_vmm_live(s, c, &live, diag)) != RP_OK)
		return st;
	r = s->rt.p_hipMemUnmap((void *)(uintptr_t)live, c->size);
	if (r != hipSuccess)
		return rphip_hipfail(s, diag, "hipMemUnmap", r);
	for (size_t m = 0; m < s->nvmaps; m++)
		if (s->vmaps[m].live == live) {
			s->vmaps[m] = s->vmaps[--s->nvmaps];
			break;
		}
	return RP_OK;
}

static rp_status rphip_vmm_access(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	hipMemAccessDesc d;
	uint64_t live;
	rp_status st;
	hipError_t r;

	if ((st = rphip_vmm_live(s, c, &live, diag)) != RP_OK)
		return st;
	memset(&d, 0, sizeof(d));
	d.location.type = hipMemLocationTypeDevice;
	d.location.id = s->cur_dev;
	d.flags = (hipMemAccessFlags)c->flags;
	r = s->rt.p_hipMemSetAccess((void *)(uintptr_t)live, c->size, &d, 1);
	return r == hipSuccess ? RP_OK : rphip_hipfail(s, diag, "hipMemSetAccess", r);
}

rp_status rphip_vmm(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag)
{
	switch (hc) {
	case SBT_CM_HIP_hipMemAddressReserve: return rphip_vmm_reserve(s, c, diag);
	case SBT_CM_HIP_hipMemAddressFree: return rphip_vmm_free(s, c, diag);
	case SBT_CM_HIP_hipMemCreate: return rphip_vmm_create(s, c, diag);
	case SBT_CM_HIP_hipMemRelease: return rphip_vmm_release(s, c, diag);
	case SBT_CM_HIP_hipMemMap: return rphip_vmm_map(s, c, diag);
	case SBT_CM_HIP_hipMemUnmap: return rphip_vmm_unmap(s, c, diag);
	case SBT_CM_HIP_hipMemSetAccess: return rphip_vmm_access(s, c, diag);
	default: return rphip_fail(s, diag, RP_ERR_UNSUPPORTED, "not a virtual-memory call");
	}
}

void rphip_vmm_unmap_all(rphip_state *s)
{
	for (size_t m = 0; m < s->nvmaps; m++)
		s->rt.p_hipMemUnmap((void *)(uintptr_t)s->vmaps[m].live, s->vmaps[m].size);
	free(s->vmaps);
	s->vmaps = NULL;
	s->nvmaps = s->capvmaps = 0;
}
