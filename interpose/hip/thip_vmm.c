/*
 * thip_vmm.c - the program's own virtual-memory calls: hipMemAddressReserve,
 * hipMemAddressFree, hipMemCreate, hipMemRelease, hipMemMap, hipMemUnmap and
 * hipMemSetAccess, recorded as themselves with the fields of CUDA's
 * cuMem* records (serializer/sbt_compute.h, docs/hip.md).  A mapped range
 * joins the allocation table while it is mapped (kind
 * SBT_CM_MEM_VMM_MAP), so copies into it, launches given a pointer into
 * it, checkpoints and keyframes treat it as any allocation.  The
 * interposer's own address window (thip_va.c) calls the runtime's
 * functions directly: it is never recorded here.
 */
#include <string.h>

#include "interpose/hip/thip_internal.h"

/* Record a VMM call whose payload the caller filled: a command-stream
 * change of memory, flagged as work as allocations are. */
static void thip_vmm_record(const thip_call *call, sbt_cm_hip_call hcall, hipError_t r,
                            sbt_cm_call *c)
{
	if (!call->record)
		return;
	c->result = (uint64_t)r;
	thip_record(hcall, c, CAP_REC_WORK);
}

hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                unsigned long long flags)
{
	thip_call call;
	hipError_t (*real)(void **, size_t, size_t, void *, unsigned long long) =
		(hipError_t(*)(void **, size_t, size_t, void *, unsigned long long))thip_begin(
			&call, THIP_FN_hipMemAddressReserve);
	hipError_t r = real ? real(ptr, size, alignment, addr, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = r == hipSuccess && ptr ? THIP_U(*ptr) : 0;
	c.size = size;
	c.align = alignment;
	c.src = THIP_U(addr);
	c.flags = flags;
	c.sub = SBT_CM_MEM_VMM_RESERVE;
	thip_vmm_record(&call, SBT_CM_HIP_hipMemAddressReserve, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipMemAddressFree(void *devPtr, size_t size)
{
	thip_call call;
	hipError_t (*real)(void *, size_t) =
		(hipError_t(*)(void *, size_t))thip_begin(&call, THIP_FN_hipMemAddressFree);
	hipError_t r = real ? real(devPtr, size) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = THIP_U(devPtr);
	c.size = size;
	c.sub = SBT_CM_MEM_VMM_RESERVE;
	thip_vmm_record(&call, SBT_CM_HIP_hipMemAddressFree, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
                        const hipMemAllocationProp *prop, unsigned long long flags)
{
	thip_call call;
	hipError_t (*real)(hipMemGenericAllocationHandle_t *, size_t, const hipMemAllocationProp *,
	                   unsigned long long) =
		(hipError_t(*)(hipMemGenericAllocationHandle_t *, size_t, const hipMemAllocationProp *,
		               unsigned long long))thip_begin(&call, THIP_FN_hipMemCreate);
	hipError_t r = real ? real(handle, size, prop, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.handle = r == hipSuccess && handle ? THIP_U(*handle) : 0;
	c.size = size;
	c.device = prop ? prop->location.id : 0;
	c.flags = flags;
	c.sub = SBT_CM_MEM_VMM_HANDLE;
	thip_vmm_record(&call, SBT_CM_HIP_hipMemCreate, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
	thip_call call;
	hipError_t (*real)(hipMemGenericAllocationHandle_t) =
		(hipError_t(*)(hipMemGenericAllocationHandle_t))thip_begin(&call, THIP_FN_hipMemRelease);
	hipError_t r = real ? real(handle) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.handle = THIP_U(handle);
	c.sub = SBT_CM_MEM_VMM_HANDLE;
	thip_vmm_record(&call, SBT_CM_HIP_hipMemRelease, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipMemMap(void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
                     unsigned long long flags)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, size_t, hipMemGenericAllocationHandle_t, unsigned long long) =
		(hipError_t(*)(void *, size_t, size_t, hipMemGenericAllocationHandle_t,
		               unsigned long long))thip_begin(&call, THIP_FN_hipMemMap);
	hipError_t r = real ? real(ptr, size, offset, handle, flags) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess)
		thip_alloc_add(THIP_U(ptr), size, SBT_CM_MEM_VMM_MAP, call.record, 0);
	sbt_cm_call_init(&c);
	c.dst = THIP_U(ptr);
	c.size = size;
	c.offset = offset;
	c.handle = THIP_U(handle);
	c.flags = flags;
	c.sub = SBT_CM_MEM_VMM_MAP;
	thip_vmm_record(&call, SBT_CM_HIP_hipMemMap, r, &c);
	thip_end(&call);
	return r;
}

hipError_t hipMemUnmap(void *ptr, size_t size)
{
	thip_call call;
	hipError_t (*real)(void *, size_t) = (hipError_t(*)(void *, size_t))thip_begin(&call,
	                                                                             THIP_FN_hipMemUnmap);
	hipError_t r = real ? real(ptr, size) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	if (!call.nested && r == hipSuccess)
		thip_alloc_remove(THIP_U(ptr));
	sbt_cm_call_init(&c);
	c.dst = THIP_U(ptr);
	c.size = size;
	c.sub = SBT_CM_MEM_VMM_MAP;
	thip_vmm_record(&call, SBT_CM_HIP_hipMemUnmap, r, &c);
	thip_end(&call);
	return r;
}

/* The first descriptor's device and access flags are recorded (what
 * CUDA's cuMemSetAccess record carries); count says how many were given. */
hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count)
{
	thip_call call;
	hipError_t (*real)(void *, size_t, const hipMemAccessDesc *, size_t) =
		(hipError_t(*)(void *, size_t, const hipMemAccessDesc *, size_t))thip_begin(
			&call, THIP_FN_hipMemSetAccess);
	hipError_t r = real ? real(ptr, size, desc, count) : THIP_NO_RUNTIME;
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = THIP_U(ptr);
	c.size = size;
	c.count = count;
	if (desc && count) {
		c.device = desc[0].location.id;
		c.flags = (uint64_t)desc[0].flags;
	}
	thip_vmm_record(&call, SBT_CM_HIP_hipMemSetAccess, r, &c);
	thip_end(&call);
	return r;
}
