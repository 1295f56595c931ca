/*
 * rphip_ctx.c - HIP contexts on replay (the records: serializer/
 * sbt_compute.h; docs/hip.md "Contexts").
 *
 * ROCm's clr makes a hipCtx_t its device (hip_context.cpp), so a context
 * is replayed as the device it is: hipCtxCreate, hipDevicePrimaryCtxRetain
 * and hipCtxGetCurrent tell which trace device a captured handle is (kept
 * in the handle table as RPHIP_O_CTX; no runtime object is made), and
 * the calls that change the thread's current device change the captured
 * thread's device as hipSetDevice does (its work then lands on the live
 * device that trace device maps to).  hipCtxDestroy,
 * hipDevicePrimaryCtxRelease and hipCtxGetDevice change nothing there.
 */
#include "replayer/hip/rphip_internal.h"

int rphip_is_ctx(sbt_cm_hip_call hc)
{
	switch (hc) {
	case SBT_CM_HIP_hipCtxCreate: case SBT_CM_HIP_hipCtxDestroy:
	case SBT_CM_HIP_hipCtxSetCurrent: case SBT_CM_HIP_hipCtxGetCurrent:
	case SBT_CM_HIP_hipCtxPushCurrent: case SBT_CM_HIP_hipCtxPopCurrent:
	case SBT_CM_HIP_hipDevicePrimaryCtxRetain: case SBT_CM_HIP_hipDevicePrimaryCtxRelease:
	case SBT_CM_HIP_hipCtxGetDevice:
		return 1;
	default:
		return 0;
	}
}

/* The context of captured handle cap (NULL: named as never made). */
static rphip_obj *rphip_ctx_get(rphip_state *s, uint64_t cap, rp_status *st, rp_diag *diag)
{
	rphip_obj *o = rphip_obj_get(s, RPHIP_O_CTX, cap);

	if (!o)
		*st = rphip_fail(s, diag, RP_ERR_TRACE, "HIP context 0x%llx was never made in the trace "
		                 "(by hipCtxCreate, hipDevicePrimaryCtxRetain or hipCtxGetCurrent)",
		                 (unsigned long long)cap);
	return o;
}

/* A context handed out for device c->device: remembered; the same handle
 * naming another device is a trace no runtime makes. */
static rp_status rphip_ctx_made(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	rphip_obj *o;

	if (!c->ctx)
		return rphip_fail(s, diag, RP_ERR_TRACE, "a context call that worked recorded no context");
	if (c->device < 0 || c->device > 1024)
		return rphip_fail(s, diag, RP_ERR_TRACE, "device %lld is not a device ordinal",
		                  (long long)c->device);
	o = rphip_obj_get(s, RPHIP_O_CTX, c->ctx);
	if (o && o->device != c->device)
		return rphip_fail(s, diag, RP_ERR_TRACE, "HIP context 0x%llx is device %lld's (seq %llu) "
		                  "and here device %lld's: a context is one device",
		                  (unsigned long long)c->ctx, (long long)o->device,
		                  (unsigned long long)o->made_seq, (long long)c->device);
	if (o)
		return RP_OK;
	if (!(o = rphip_obj_put(s, RPHIP_O_CTX, c->ctx)))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	o->device = c->device;
	o->made_seq = s->seq;
	return RP_OK;
}

rp_status rphip_ctx(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c, rp_diag *diag)
{
	rp_status st = RP_OK;
	rphip_obj *o;

	switch (hc) {
	case SBT_CM_HIP_hipCtxCreate: case SBT_CM_HIP_hipDevicePrimaryCtxRetain:
	case SBT_CM_HIP_hipCtxGetCurrent:
		return rphip_ctx_made(s, c, diag);
	case SBT_CM_HIP_hipCtxSetCurrent: case SBT_CM_HIP_hipCtxPushCurrent:
		if (!c->ctx) /* clr: SetCurrent(NULL) pops the stack, the device stays */
			return rphip_set_thread_device(s, c->device, diag);
		if (!(o = rphip_ctx_get(s, c->ctx, &st, diag)))
			return st;
		return rphip_set_thread_device(s, o->device, diag);
	case SBT_CM_HIP_hipCtxPopCurrent:
		if (c->ctx && !rphip_ctx_get(s, c->ctx, &st, diag))
			return st;
		return rphip_set_thread_device(s, c->device, diag);
	case SBT_CM_HIP_hipCtxDestroy:
		/* the context stays: it is its device (clr releases a count) */
		return rphip_ctx_get(s, c->ctx, &st, diag) ? RP_OK : st;
	default:
		return RP_OK;
	}
}
