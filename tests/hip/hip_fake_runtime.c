/*
 * hip_fake_runtime.c - libhip_fake.so: three HIP functions that answer
 * with a checksum of their arguments, so that hip_tramp_check can tell
 * whether the interposer's generated trampolines (thip_tramp.S) hand every
 * argument through unchanged: registers, the stack, and a variadic
 * caller's al.  Not a HIP runtime; named "fake" wherever it appears.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>

static int hipfake_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return (int)(h & 0x3fffffff);
}

hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                              void **args, size_t sharedMemBytes, hipStream_t stream,
                              hipEvent_t startEvent, hipEvent_t stopEvent, int flags)
{
	uint64_t h = 0;
	h = (uint64_t)hipfake_mix(h, (uintptr_t)function_address);
	h = (uint64_t)hipfake_mix(h, numBlocks.x);
	h = (uint64_t)hipfake_mix(h, numBlocks.y);
	h = (uint64_t)hipfake_mix(h, numBlocks.z);
	h = (uint64_t)hipfake_mix(h, dimBlocks.x);
	h = (uint64_t)hipfake_mix(h, dimBlocks.y);
	h = (uint64_t)hipfake_mix(h, dimBlocks.z);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)args);
	h = (uint64_t)hipfake_mix(h, sharedMemBytes);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)stream);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)startEvent);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)stopEvent);
	return (hipError_t)hipfake_mix(h, (uint64_t)(unsigned)flags);
}

hipError_t hipMemRangeGetAttributes(void **data, size_t *data_sizes, hipMemRangeAttribute *attributes,
                                    size_t num_attributes, const void *dev_ptr, size_t count)
{
	uint64_t h = 7;
	h = (uint64_t)hipfake_mix(h, (uintptr_t)data);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)data_sizes);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)attributes);
	h = (uint64_t)hipfake_mix(h, num_attributes);
	h = (uint64_t)hipfake_mix(h, (uintptr_t)dev_ptr);
	return (hipError_t)hipfake_mix(h, count);
}

/* The same two functions under names the HIP interposer does not export:
 * its dlsym hands out its own trampoline for a hip* name even on this
 * library's handle, so hip_tramp_check reaches the fake's own by these. */
hipError_t hipfake_direct_ext_launch(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                                     void **args, size_t sharedMemBytes, hipStream_t stream,
                                     hipEvent_t startEvent, hipEvent_t stopEvent, int flags)
	__attribute__((alias("hipExtLaunchKernel")));
hipError_t hipfake_direct_range(void **data, size_t *data_sizes, hipMemRangeAttribute *attributes,
                                size_t num_attributes, const void *dev_ptr, size_t count)
	__attribute__((alias("hipMemRangeGetAttributes")));

hipError_t hipGetLastError(void)
{
	return (hipError_t)4242;
}

/*
 * The calls hip_success_app makes, answered with success the simplest way
 * a CPU can: "device" memory is host memory (malloc), copies are memcpy,
 * handles are counters, launches run nothing.  This lets the interposer's
 * paths that need a call to succeed (handles and addresses coming back,
 * stored host-to-device bytes, checkpoints, launches finding their
 * function's name and layout) run here; they never ran against the real
 * runtime on a machine without an AMD GPU.  It is not the HIP double
 * (tests/doubles/hip/, issue 15): it neither loads code objects nor runs
 * kernels.
 */
#include <stdlib.h>
#include <string.h>

static uintptr_t hipfake_next = 0x1000;
static void *hipfake_modules[4];

void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
void __hipUnregisterFatBinary(void **modules);

void **__hipRegisterFatBinary(const void *data)
{
	hipfake_modules[0] = (void *)data;
	return hipfake_modules;
}

void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize)
{
	(void)modules, (void)hostFunction, (void)deviceFunction, (void)deviceName;
	(void)threadLimit, (void)tid, (void)bid, (void)blockDim, (void)gridDim, (void)wSize;
}

void __hipUnregisterFatBinary(void **modules)
{
	(void)modules;
}

hipError_t hipMalloc(void **ptr, size_t size)
{
	*ptr = calloc(1, size);
	return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

hipError_t hipFree(void *ptr)
{
	free(ptr);
	return hipSuccess;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	(void)kind;
	memcpy(dst, src, sizeBytes);
	return hipSuccess;
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream)
{
	(void)kind, (void)stream;
	memcpy(dst, src, sizeBytes);
	return hipSuccess;
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
	*stream = (hipStream_t)(hipfake_next += 0x10);
	return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
	(void)stream;
	return hipSuccess;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
	(void)image;
	*module = (hipModule_t)(hipfake_next += 0x10);
	return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname)
{
	(void)module, (void)kname;
	*function = (hipFunction_t)(hipfake_next += 0x10);
	return hipSuccess;
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void **kernelParams, void **extra)
{
	(void)f, (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY;
	(void)blockDimZ, (void)sharedMemBytes, (void)stream, (void)kernelParams, (void)extra;
	return hipSuccess;
}

hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                           void **args, size_t sharedMemBytes, hipStream_t stream)
{
	(void)function_address, (void)numBlocks, (void)dimBlocks, (void)args;
	(void)sharedMemBytes, (void)stream;
	return hipSuccess;
}

/* Stream capture: one capturing stream at a time. */
static hipStream_t hipfake_capturing;

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)
{
	(void)mode;
	hipfake_capturing = stream;
	return hipSuccess;
}

hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)
{
	*pCaptureStatus = stream && stream == hipfake_capturing ? hipStreamCaptureStatusActive
	                                                        : hipStreamCaptureStatusNone;
	return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)
{
	(void)stream;
	hipfake_capturing = NULL;
	*pGraph = (hipGraph_t)(hipfake_next += 0x10);
	return hipSuccess;
}

hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                               hipGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize)
{
	(void)graph, (void)pErrorNode, (void)pLogBuffer, (void)bufferSize;
	*pGraphExec = (hipGraphExec_t)(hipfake_next += 0x10);
	return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
	(void)graphExec, (void)stream;
	return hipSuccess;
}
