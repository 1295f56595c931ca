/*
 * thd_ctx.c - contexts on the double, as ROCm's clr makes them
 * (hip_context.cpp): a hipCtx_t is its device (one object a device, the
 * same handle every time), and each thread keeps a stack of them beside
 * its current device.
 *   - hipCtxCreate: a device outside [0, count) is hipErrorInvalidValue;
 *     the device's context is pushed (the current device stays).
 *   - hipCtxSetCurrent: null pops the stack (if any); a context makes its
 *     device current and replaces the top.
 *   - hipCtxPushCurrent: null is hipErrorInvalidContext; makes its device
 *     current and pushes it.  hipCtxPopCurrent: an empty stack is
 *     hipErrorInvalidContext; the top is handed back (when asked) and
 *     popped; the current device stays.
 *   - hipCtxDestroy: null is hipErrorInvalidValue; pops it when it is the
 *     top; any other handle is hipSuccess (clr only compares it).
 *   - hipCtxGetCurrent: the current device's context; hipCtxGetDevice
 *     (null: hipErrorInvalidValue): the current device.
 *   - hipDevicePrimaryCtxRetain / Release: a device outside [0, count) is
 *     hipErrorInvalidDevice; Retain's null out pointer
 *     hipErrorInvalidValue.
 * Where clr dereferences what it is given without a check (a null out
 * pointer of hipCtxCreate / hipCtxGetCurrent, a handle that is not a
 * context made current), the double answers hipErrorInvalidValue /
 * hipErrorInvalidContext instead of crashing.
 */
#include "tests/doubles/hip/thd.h"

#define THD_CTX_STACK 256

struct ihipCtx_t {
	uint32_t magic;
	int device;
};

static struct ihipCtx_t thd_ctxs[THD_MAX_DEVICES];
static pthread_once_t thd_ctxs_once = PTHREAD_ONCE_INIT;
static _Thread_local struct ihipCtx_t *thd_ctx_stack[THD_CTX_STACK];
static _Thread_local size_t thd_ctx_depth;

static void thd_ctxs_init(void)
{
	for (int i = 0; i < THD_MAX_DEVICES; i++)
		thd_ctxs[i] = (struct ihipCtx_t){THD_LIVE, i};
}

/* The context of device (checked by the caller). */
static struct ihipCtx_t *thd_ctx_of(int device)
{
	pthread_once(&thd_ctxs_once, thd_ctxs_init);
	return &thd_ctxs[device];
}

/* The context behind handle c, NULL when it is none of a device the
 * double has (never dereferenced first). */
static struct ihipCtx_t *thd_ctx_find(hipCtx_t c)
{
	pthread_once(&thd_ctxs_once, thd_ctxs_init);
	for (int i = 0; i < thd_device_count(); i++)
		if (c == &thd_ctxs[i])
			return c;
	return NULL;
}

static hipError_t thd_ctx_push(struct ihipCtx_t *c)
{
	if (thd_ctx_depth == THD_CTX_STACK)
		return hipErrorOutOfMemory;
	thd_ctx_stack[thd_ctx_depth++] = c;
	return hipSuccess;
}

THD_EXPORT hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
	(void)flags;
	if (!ctx || !thd_device_ok(device))
		return thd_ret(hipErrorInvalidValue);
	*ctx = thd_ctx_of(device);
	return thd_ret(thd_ctx_push(*ctx));
}

THD_EXPORT hipError_t hipCtxDestroy(hipCtx_t ctx)
{
	if (!ctx)
		return thd_ret(hipErrorInvalidValue);
	if (thd_ctx_depth && thd_ctx_stack[thd_ctx_depth - 1] == ctx)
		thd_ctx_depth--;
	return hipSuccess;
}

THD_EXPORT hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
	struct ihipCtx_t *c;

	if (!ctx) {
		if (thd_ctx_depth)
			thd_ctx_depth--;
		return hipSuccess;
	}
	if (!(c = thd_ctx_find(ctx)))
		return thd_ret(hipErrorInvalidContext);
	thd_device_make_current(c->device);
	if (thd_ctx_depth)
		thd_ctx_depth--;
	return thd_ret(thd_ctx_push(c));
}

THD_EXPORT hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
	if (!ctx)
		return thd_ret(hipErrorInvalidValue);
	*ctx = thd_ctx_of(thd_device_current());
	return hipSuccess;
}

THD_EXPORT hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
	struct ihipCtx_t *c;

	if (!ctx || !(c = thd_ctx_find(ctx)))
		return thd_ret(hipErrorInvalidContext);
	thd_device_make_current(c->device);
	return thd_ret(thd_ctx_push(c));
}

THD_EXPORT hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
	if (!thd_ctx_depth)
		return thd_ret(hipErrorInvalidContext);
	if (ctx)
		*ctx = thd_ctx_stack[thd_ctx_depth - 1];
	thd_ctx_depth--;
	return hipSuccess;
}

THD_EXPORT hipError_t hipCtxGetDevice(hipDevice_t *device)
{
	if (!device)
		return thd_ret(hipErrorInvalidValue);
	*device = thd_device_current();
	return hipSuccess;
}

THD_EXPORT hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
	if (!thd_device_ok(dev))
		return thd_ret(hipErrorInvalidDevice);
	if (!pctx)
		return thd_ret(hipErrorInvalidValue);
	*pctx = thd_ctx_of(dev);
	return hipSuccess;
}

THD_EXPORT hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
	if (!thd_device_ok(dev))
		return thd_ret(hipErrorInvalidDevice);
	return hipSuccess;
}
