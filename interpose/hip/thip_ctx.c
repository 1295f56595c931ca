/*
 * thip_ctx.c - HIP contexts: hipCtxCreate, hipCtxDestroy,
 * hipCtxSetCurrent, hipCtxGetCurrent, hipCtxPushCurrent,
 * hipCtxPopCurrent, hipDevicePrimaryCtxRetain / Release and
 * hipCtxGetDevice, recorded as the compute model's contexts
 * (serializer/sbt_compute.h; docs/hip.md "Contexts").
 *
 * ROCm's clr makes a hipCtx_t its device (hip_context.cpp: the context of
 * device n is g_devices[n]); a thread keeps a stack of them beside its
 * current device.  hipCtxSetCurrent and hipCtxPushCurrent make the
 * context's device the thread's current one; hipCtxCreate and
 * hipCtxPopCurrent only push or pop the stack (the current device stays).
 * What the runtime did is not guessed here: after a call that may change
 * the current device the interposer asks the runtime (hipGetDevice) and
 * records the answer as `device`, and the records made on a device after
 * it carry that device (thip_device_set), as after hipSetDevice.
 */
#include <stdatomic.h>

#include "interpose/hip/thip_internal.h"

/* After a context call that worked: the thread's current device as the
 * runtime now says, remembered for the records that follow (the last one
 * remembered when the runtime cannot say). */
static int thip_ctx_device_now(void)
{
	__typeof__(hipGetDevice) *get = THIP_RT(hipGetDevice);
	int dev = thip_device_get();

	if (get && get(&dev) == hipSuccess)
		thip_device_set(dev);
	return thip_device_get();
}

static void thip_ctx_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                            sbt_cm_call *c)
{
	if (!call->record)
		return;
	c->result = (uint64_t)r;
	thip_record(hcall, c, 0);
}

hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
	thip_call call;
	hipError_t (*real)(hipCtx_t *, unsigned, hipDevice_t) =
		(hipError_t(*)(hipCtx_t *, unsigned, hipDevice_t))thip_begin(&call, THIP_FN_hipCtxCreate);
	hipError_t r = real ? real(ctx, flags, device) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = r == hipSuccess && ctx ? THIP_U(*ctx) : 0;
	c.flags = flags;
	c.device = device;
	if (r == hipSuccess && !call.nested)
		thip_ctx_device_now();
	thip_ctx_record(&call, SBT_CM_HIP_hipCtxCreate, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipCtxDestroy(hipCtx_t ctx)
{
	thip_call call;
	hipError_t (*real)(hipCtx_t) = (hipError_t(*)(hipCtx_t))thip_begin(&call, THIP_FN_hipCtxDestroy);
	hipError_t r = real ? real(ctx) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = THIP_U(ctx);
	thip_ctx_record(&call, SBT_CM_HIP_hipCtxDestroy, r, &c);
	thip_end(&call);
	return r;
}

/* hipCtxSetCurrent, hipCtxPushCurrent: ctx and the device current after. */
static hipError_t thip_ctx_switch(thip_fn fn, sbt_cm_hip_call hcall, hipCtx_t ctx)
{
	thip_call call;
	hipError_t (*real)(hipCtx_t) = (hipError_t(*)(hipCtx_t))thip_begin(&call, fn);
	hipError_t r = real ? real(ctx) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = THIP_U(ctx);
	if (r == hipSuccess && !call.nested)
		c.device = thip_ctx_device_now();
	thip_ctx_record(&call, hcall, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
	return thip_ctx_switch(THIP_FN_hipCtxSetCurrent, SBT_CM_HIP_hipCtxSetCurrent, ctx);
}

hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
	return thip_ctx_switch(THIP_FN_hipCtxPushCurrent, SBT_CM_HIP_hipCtxPushCurrent, ctx);
}

hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
	thip_call call;
	hipError_t (*real)(hipCtx_t *) =
		(hipError_t(*)(hipCtx_t *))thip_begin(&call, THIP_FN_hipCtxPopCurrent);
	hipError_t r = real ? real(ctx) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = r == hipSuccess && ctx ? THIP_U(*ctx) : 0;
	if (r == hipSuccess && !call.nested)
		c.device = thip_ctx_device_now();
	thip_ctx_record(&call, SBT_CM_HIP_hipCtxPopCurrent, r, &c);
	thip_end(&call);
	return r;
}

/* hipCtxGetCurrent: the current device's context (sub 1: asked, not
 * retained), with that device. */
hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
	thip_call call;
	hipError_t (*real)(hipCtx_t *) =
		(hipError_t(*)(hipCtx_t *))thip_begin(&call, THIP_FN_hipCtxGetCurrent);
	hipError_t r = real ? real(ctx) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.sub = 1;
	c.ctx = r == hipSuccess && ctx ? THIP_U(*ctx) : 0;
	if (r == hipSuccess && !call.nested)
		c.device = thip_ctx_device_now();
	thip_ctx_record(&call, SBT_CM_HIP_hipCtxGetCurrent, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
	thip_call call;
	hipError_t (*real)(hipCtx_t *, hipDevice_t) =
		(hipError_t(*)(hipCtx_t *, hipDevice_t))thip_begin(&call, THIP_FN_hipDevicePrimaryCtxRetain);
	hipError_t r = real ? real(pctx, dev) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = r == hipSuccess && pctx ? THIP_U(*pctx) : 0;
	c.device = dev;
	thip_ctx_record(&call, SBT_CM_HIP_hipDevicePrimaryCtxRetain, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
	thip_call call;
	hipError_t (*real)(hipDevice_t) =
		(hipError_t(*)(hipDevice_t))thip_begin(&call, THIP_FN_hipDevicePrimaryCtxRelease);
	hipError_t r = real ? real(dev) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.device = dev;
	thip_ctx_record(&call, SBT_CM_HIP_hipDevicePrimaryCtxRelease, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipCtxGetDevice(hipDevice_t *device)
{
	thip_call call;
	hipError_t (*real)(hipDevice_t *) =
		(hipError_t(*)(hipDevice_t *))thip_begin(&call, THIP_FN_hipCtxGetDevice);
	hipError_t r = real ? real(device) : THIP_NO_RUNTIME;
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.device = r == hipSuccess && device ? *device : 0;
	thip_ctx_record(&call, SBT_CM_HIP_hipCtxGetDevice, r, &c);
	thip_end(&call);
	return r;
}
