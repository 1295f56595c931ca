/*
 * thd_spt.c - the per-thread default stream's calls (_spt) on the double,
 * as ROCm 5.2's clr makes them (hip_memory.cpp, hip_stream.cpp): the call
 * without _spt on the calling thread's per-thread default stream
 * (getPerThreadDefaultStream: a blocking stream of the thread's own,
 * thd_per_thread_stream), the synchronous ones waiting for it; a stream
 * argument of 0 (hipMemcpyAsync_spt, the stream calls) means that stream
 * too (clr's PER_THREAD_DEFAULT_STREAM).  The array copies' _spt forms
 * are thd_array.c's and hipMemcpy3D_spt thd_mem.c's.
 */
#include "tests/doubles/hip/thd.h"

static hipStream_t thd_spt_stream(hipStream_t stream)
{
	return stream ? stream : thd_per_thread_stream();
}

THD_EXPORT hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemcpyAsync(dst, src, sizeBytes, kind, s));
}

THD_EXPORT hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes,
                                         hipMemcpyKind kind, hipStream_t stream)
{
	return hipMemcpyAsync(dst, src, sizeBytes, kind, thd_spt_stream(stream));
}

THD_EXPORT hipError_t hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t sizeBytes,
                                            size_t offset, hipMemcpyKind kind)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemcpyToSymbolAsync(symbol, src, sizeBytes, offset, kind, s));
}

THD_EXPORT hipError_t hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t sizeBytes,
                                              size_t offset, hipMemcpyKind kind)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemcpyFromSymbolAsync(dst, symbol, sizeBytes, offset, kind, s));
}

THD_EXPORT hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, hipMemcpyKind kind)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, s));
}

THD_EXPORT hipError_t hipMemset_spt(void *dst, int value, size_t sizeBytes)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemsetAsync(dst, value, sizeBytes, s));
}

THD_EXPORT hipError_t hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width,
                                      size_t height)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemset2DAsync(dst, pitch, value, width, height, s));
}

THD_EXPORT hipError_t hipMemset3D_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
	hipStream_t s = thd_per_thread_stream();

	return thd_spt_finish(s, hipMemset3DAsync(pitchedDevPtr, value, extent, s));
}

THD_EXPORT hipError_t hipStreamSynchronize_spt(hipStream_t stream)
{
	return hipStreamSynchronize(thd_spt_stream(stream));
}

THD_EXPORT hipError_t hipStreamQuery_spt(hipStream_t stream)
{
	return hipStreamQuery(thd_spt_stream(stream));
}

THD_EXPORT hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event,
                                             unsigned int flags)
{
	return hipStreamWaitEvent(thd_spt_stream(stream), event, flags);
}

THD_EXPORT hipError_t hipLaunchCooperativeKernel_spt(const void *f, dim3 gridDim, dim3 blockDim,
                                                     void **kernelParams, uint32_t sharedMemBytes,
                                                     hipStream_t hStream)
{
	return hipLaunchCooperativeKernel(f, gridDim, blockDim, kernelParams, sharedMemBytes,
	                                  thd_spt_stream(hStream));
}
