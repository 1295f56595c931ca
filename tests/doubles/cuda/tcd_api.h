/*
 * tcd_api.h - every entry point the libcuda test double exports, and the
 * cuGetProcAddress table.
 *
 * TCD_EXPORTS lists each exported symbol once: its call counter and its
 * hidden implementation tcd_api_<symbol> are derived from it.  Names a real
 * libcuda.so.1 exports that are not listed here are deliberately absent, so a
 * program that needs one fails to link or resolve instead of getting a stub.
 *
 * TCD_PROCS maps cuGetProcAddress requests to symbols: X(base name, CUDA
 * version the variant appeared in, 1 if it is the per-thread-default-stream
 * variant, exported symbol).  The versions are the suffixes of the
 * PFN_<base>_v<version>[_ptds|_ptsz] typedefs in the toolkit's
 * cudaTypedefs.h (cudaProfilerTypedefs.h for cuProfilerStart/Stop); the
 * symbol is the base name for the oldest ABI, _v2 for the second and so on,
 * with _ptds/_ptsz added to the newest ABI not newer than the per-thread
 * variant.  tests/shell/test_cuda_double_procaddr.sh re-derives
 * this table from cudaTypedefs.h and fails if they disagree.
 */
#ifndef TCD_API_H
#define TCD_API_H

#define TCD_EXPORTS(X) \
	X(cuInit) \
	X(cuDriverGetVersion) \
	X(cuGetErrorName) \
	X(cuGetErrorString) \
	X(cuGetProcAddress) \
	X(cuGetProcAddress_v2) \
	X(cuGetExportTable) \
	X(cuDeviceGet) \
	X(cuDeviceGetCount) \
	X(cuDeviceGetName) \
	X(cuDeviceGetAttribute) \
	X(cuDeviceTotalMem) \
	X(cuDeviceTotalMem_v2) \
	X(cuDeviceGetUuid) \
	X(cuDeviceGetUuid_v2) \
	X(cuDevicePrimaryCtxRetain) \
	X(cuDevicePrimaryCtxRelease) \
	X(cuDevicePrimaryCtxRelease_v2) \
	X(cuDevicePrimaryCtxGetState) \
	X(cuCtxCreate) \
	X(cuCtxCreate_v2) \
	X(cuCtxCreate_v4) \
	X(cuCtxDestroy) \
	X(cuCtxDestroy_v2) \
	X(cuCtxSetCurrent) \
	X(cuCtxGetCurrent) \
	X(cuCtxGetDevice) \
	X(cuCtxSynchronize) \
	X(cuCtxPushCurrent) \
	X(cuCtxPushCurrent_v2) \
	X(cuCtxPopCurrent) \
	X(cuCtxPopCurrent_v2) \
	X(cuModuleLoad) \
	X(cuModuleLoadData) \
	X(cuModuleLoadDataEx) \
	X(cuModuleLoadFatBinary) \
	X(cuModuleUnload) \
	X(cuModuleGetFunction) \
	X(cuModuleGetGlobal) \
	X(cuModuleGetGlobal_v2) \
	X(cuLibraryLoadData) \
	X(cuLibraryUnload) \
	X(cuLibraryGetKernel) \
	X(cuLibraryGetModule) \
	X(cuLibraryGetGlobal) \
	X(cuKernelGetFunction) \
	X(cuKernelGetName) \
	X(cuFuncGetName) \
	X(cuFuncGetParamInfo) \
	X(cuKernelGetParamInfo) \
	X(cuLaunchKernel) \
	X(cuLaunchKernel_ptsz) \
	X(cuLaunchKernelEx) \
	X(cuLaunchKernelEx_ptsz) \
	X(cuLaunchCooperativeKernel) \
	X(cuLaunchCooperativeKernel_ptsz) \
	X(cuMemGetInfo) \
	X(cuMemGetInfo_v2) \
	X(cuMemAlloc) \
	X(cuMemAlloc_v2) \
	X(cuMemFree) \
	X(cuMemFree_v2) \
	X(cuMemAllocPitch) \
	X(cuMemAllocPitch_v2) \
	X(cuMemGetAddressRange) \
	X(cuMemGetAddressRange_v2) \
	X(cuMemAllocAsync) \
	X(cuMemAllocAsync_ptsz) \
	X(cuMemFreeAsync) \
	X(cuMemFreeAsync_ptsz) \
	X(cuMemAllocManaged) \
	X(cuMemAllocHost) \
	X(cuMemAllocHost_v2) \
	X(cuMemHostAlloc) \
	X(cuMemFreeHost) \
	X(cuMemHostGetDevicePointer) \
	X(cuMemHostGetDevicePointer_v2) \
	X(cuMemAddressReserve) \
	X(cuMemAddressFree) \
	X(cuMemCreate) \
	X(cuMemRelease) \
	X(cuMemMap) \
	X(cuMemUnmap) \
	X(cuMemSetAccess) \
	X(cuMemGetAllocationGranularity) \
	X(cuPointerGetAttribute) \
	X(cuPointerGetAttributes) \
	X(cuTexObjectCreate) \
	X(cuTexObjectDestroy) \
	X(cuSurfObjectCreate) \
	X(cuSurfObjectDestroy) \
	X(cuIpcGetMemHandle) \
	X(cuIpcOpenMemHandle) \
	X(cuIpcOpenMemHandle_v2) \
	X(cuIpcCloseMemHandle) \
	X(cuMemcpyHtoD) \
	X(cuMemcpyHtoD_v2) \
	X(cuMemcpyHtoD_v2_ptds) \
	X(cuMemcpyDtoH) \
	X(cuMemcpyDtoH_v2) \
	X(cuMemcpyDtoH_v2_ptds) \
	X(cuMemcpyDtoD) \
	X(cuMemcpyDtoD_v2) \
	X(cuMemcpyDtoD_v2_ptds) \
	X(cuMemcpyHtoDAsync) \
	X(cuMemcpyHtoDAsync_v2) \
	X(cuMemcpyHtoDAsync_v2_ptsz) \
	X(cuMemcpyDtoHAsync) \
	X(cuMemcpyDtoHAsync_v2) \
	X(cuMemcpyDtoHAsync_v2_ptsz) \
	X(cuMemcpyDtoDAsync) \
	X(cuMemcpyDtoDAsync_v2) \
	X(cuMemcpyDtoDAsync_v2_ptsz) \
	X(cuMemcpy) \
	X(cuMemcpy_ptds) \
	X(cuMemcpyAsync) \
	X(cuMemcpyAsync_ptsz) \
	X(cuMemcpy2D_v2) \
	X(cuMemcpy2D_v2_ptds) \
	X(cuMemcpy2DAsync_v2) \
	X(cuMemcpy2DAsync_v2_ptsz) \
	X(cuMemcpy3D_v2) \
	X(cuMemcpy3D_v2_ptds) \
	X(cuMemcpy3DAsync_v2) \
	X(cuMemcpy3DAsync_v2_ptsz) \
	X(cuArrayCreate_v2) \
	X(cuArray3DCreate_v2) \
	X(cuArrayGetDescriptor_v2) \
	X(cuArray3DGetDescriptor_v2) \
	X(cuArrayDestroy) \
	X(cuMemcpyHtoA_v2) \
	X(cuMemcpyHtoA_v2_ptds) \
	X(cuMemcpyAtoH_v2) \
	X(cuMemcpyAtoH_v2_ptds) \
	X(cuMemcpyAtoD_v2) \
	X(cuMemcpyAtoD_v2_ptds) \
	X(cuMemcpyDtoA_v2) \
	X(cuMemcpyDtoA_v2_ptds) \
	X(cuMemcpyAtoA_v2) \
	X(cuMemcpyAtoA_v2_ptds) \
	X(cuMemcpyHtoAAsync_v2) \
	X(cuMemcpyHtoAAsync_v2_ptsz) \
	X(cuMemcpyAtoHAsync_v2) \
	X(cuMemcpyAtoHAsync_v2_ptsz) \
	X(cuMemsetD8) \
	X(cuMemsetD8_v2) \
	X(cuMemsetD8_v2_ptds) \
	X(cuMemsetD16) \
	X(cuMemsetD16_v2) \
	X(cuMemsetD16_v2_ptds) \
	X(cuMemsetD32) \
	X(cuMemsetD32_v2) \
	X(cuMemsetD32_v2_ptds) \
	X(cuMemsetD8Async) \
	X(cuMemsetD8Async_ptsz) \
	X(cuMemsetD16Async) \
	X(cuMemsetD16Async_ptsz) \
	X(cuMemsetD32Async) \
	X(cuMemsetD32Async_ptsz) \
	X(cuStreamCreate) \
	X(cuStreamCreateWithPriority) \
	X(cuCtxGetStreamPriorityRange) \
	X(cuStreamDestroy) \
	X(cuStreamDestroy_v2) \
	X(cuStreamSynchronize) \
	X(cuStreamSynchronize_ptsz) \
	X(cuStreamQuery) \
	X(cuStreamQuery_ptsz) \
	X(cuStreamWaitEvent) \
	X(cuStreamWaitEvent_ptsz) \
	X(cuStreamGetPriority) \
	X(cuStreamGetPriority_ptsz) \
	X(cuStreamGetFlags) \
	X(cuStreamGetFlags_ptsz) \
	X(cuEventCreate) \
	X(cuEventRecord) \
	X(cuEventRecord_ptsz) \
	X(cuEventRecordWithFlags) \
	X(cuEventRecordWithFlags_ptsz) \
	X(cuEventSynchronize) \
	X(cuEventQuery) \
	X(cuEventDestroy) \
	X(cuEventDestroy_v2) \
	X(cuEventElapsedTime) \
	X(cuEventElapsedTime_v2) \
	X(cuStreamBeginCapture) \
	X(cuStreamBeginCapture_ptsz) \
	X(cuStreamBeginCapture_v2) \
	X(cuStreamBeginCapture_v2_ptsz) \
	X(cuStreamEndCapture) \
	X(cuStreamEndCapture_ptsz) \
	X(cuStreamIsCapturing) \
	X(cuStreamIsCapturing_ptsz) \
	X(cuGraphInstantiate) \
	X(cuGraphInstantiate_v2) \
	X(cuGraphInstantiateWithFlags) \
	X(cuGraphLaunch) \
	X(cuGraphLaunch_ptsz) \
	X(cuGraphExecDestroy) \
	X(cuGraphDestroy) \
	X(cuGraphCreate) \
	X(cuGraphAddKernelNode) \
	X(cuGraphAddKernelNode_v2) \
	X(cuGraphAddMemcpyNode) \
	X(cuGraphAddMemsetNode) \
	X(cuGraphAddEmptyNode) \
	X(cuGraphAddEventRecordNode) \
	X(cuGraphAddEventWaitNode) \
	X(cuGraphAddChildGraphNode) \
	X(cuGraphAddDependencies) \
	X(cuGraphAddDependencies_v2) \
	X(cuGraphAddNode) \
	X(cuGraphAddNode_v2) \
	X(cuGraphKernelNodeSetParams) \
	X(cuGraphKernelNodeSetParams_v2) \
	X(cuGraphKernelNodeSetAttribute) \
	X(cuGraphKernelNodeGetAttribute) \
	X(cuGraphKernelNodeCopyAttributes) \
	X(cuGraphHostNodeSetParams) \
	X(cuGraphAddBatchMemOpNode) \
	X(cuGraphBatchMemOpNodeSetParams) \
	X(cuGraphExecBatchMemOpNodeSetParams) \
	X(cuStreamWriteValue32) \
	X(cuStreamWriteValue32_ptsz) \
	X(cuStreamWriteValue32_v2) \
	X(cuStreamWriteValue32_v2_ptsz) \
	X(cuStreamWriteValue64) \
	X(cuStreamWriteValue64_ptsz) \
	X(cuStreamWriteValue64_v2) \
	X(cuStreamWriteValue64_v2_ptsz) \
	X(cuStreamWaitValue32) \
	X(cuStreamWaitValue32_ptsz) \
	X(cuStreamWaitValue32_v2) \
	X(cuStreamWaitValue32_v2_ptsz) \
	X(cuStreamWaitValue64) \
	X(cuStreamWaitValue64_ptsz) \
	X(cuStreamWaitValue64_v2) \
	X(cuStreamWaitValue64_v2_ptsz) \
	X(cuStreamBatchMemOp) \
	X(cuStreamBatchMemOp_ptsz) \
	X(cuStreamBatchMemOp_v2) \
	X(cuStreamBatchMemOp_v2_ptsz) \
	X(cuDeviceGraphMemTrim) \
	X(cuDeviceGetGraphMemAttribute) \
	X(cuDeviceSetGraphMemAttribute) \
	X(cuGraphExecKernelNodeSetParams) \
	X(cuGraphExecKernelNodeSetParams_v2) \
	X(cuGraphDestroyNode) \
	X(cuGraphRemoveDependencies) \
	X(cuGraphRemoveDependencies_v2) \
	X(cuGraphExecEventRecordNodeSetEvent) \
	X(cuGraphClone) \
	X(cuGraphNodeSetParams) \
	X(cuGraphExecNodeSetParams) \
	X(cuGraphExecUpdate) \
	X(cuGraphExecUpdate_v2) \
	X(cuGraphMemcpyNodeSetParams) \
	X(cuGraphMemsetNodeSetParams) \
	X(cuGraphExecMemcpyNodeSetParams) \
	X(cuGraphExecMemsetNodeSetParams) \
	X(cuGraphEventRecordNodeSetEvent) \
	X(cuGraphEventWaitNodeSetEvent) \
	X(cuGraphExecEventWaitNodeSetEvent) \
	X(cuGraphAddHostNode) \
	X(cuGraphAddMemAllocNode) \
	X(cuGraphAddMemFreeNode) \
	X(cuGraphNodeFindInClone) \
	X(cuGraphChildGraphNodeGetGraph) \
	X(cuGraphNodeSetEnabled) \
	X(cuGraphNodeGetEnabled) \
	X(cuStreamBeginCaptureToGraph) \
	X(cuStreamBeginCaptureToGraph_ptsz) \
	X(cuProfilerStart) \
	X(cuProfilerStop) \
	/* end of TCD_EXPORTS */

#define TCD_PROCS(X) \
	X(cuCtxCreate, 2000, 0, cuCtxCreate) \
	X(cuCtxCreate, 3020, 0, cuCtxCreate_v2) \
	X(cuCtxCreate, 12050, 0, cuCtxCreate_v4) \
	X(cuCtxDestroy, 2000, 0, cuCtxDestroy) \
	X(cuCtxDestroy, 4000, 0, cuCtxDestroy_v2) \
	X(cuCtxGetCurrent, 4000, 0, cuCtxGetCurrent) \
	X(cuCtxGetDevice, 2000, 0, cuCtxGetDevice) \
	X(cuCtxPopCurrent, 2000, 0, cuCtxPopCurrent) \
	X(cuCtxPopCurrent, 4000, 0, cuCtxPopCurrent_v2) \
	X(cuCtxPushCurrent, 2000, 0, cuCtxPushCurrent) \
	X(cuCtxPushCurrent, 4000, 0, cuCtxPushCurrent_v2) \
	X(cuCtxSetCurrent, 4000, 0, cuCtxSetCurrent) \
	X(cuCtxSynchronize, 2000, 0, cuCtxSynchronize) \
	X(cuDeviceGet, 2000, 0, cuDeviceGet) \
	X(cuDeviceGetAttribute, 2000, 0, cuDeviceGetAttribute) \
	X(cuDeviceGetCount, 2000, 0, cuDeviceGetCount) \
	X(cuDeviceGetName, 2000, 0, cuDeviceGetName) \
	X(cuDeviceGetUuid, 9020, 0, cuDeviceGetUuid) \
	X(cuDeviceGetUuid, 11040, 0, cuDeviceGetUuid_v2) \
	X(cuDevicePrimaryCtxGetState, 7000, 0, cuDevicePrimaryCtxGetState) \
	X(cuDevicePrimaryCtxRelease, 7000, 0, cuDevicePrimaryCtxRelease) \
	X(cuDevicePrimaryCtxRelease, 11000, 0, cuDevicePrimaryCtxRelease_v2) \
	X(cuDevicePrimaryCtxRetain, 7000, 0, cuDevicePrimaryCtxRetain) \
	X(cuDeviceTotalMem, 2000, 0, cuDeviceTotalMem) \
	X(cuDeviceTotalMem, 3020, 0, cuDeviceTotalMem_v2) \
	X(cuDriverGetVersion, 2020, 0, cuDriverGetVersion) \
	X(cuEventCreate, 2000, 0, cuEventCreate) \
	X(cuEventDestroy, 2000, 0, cuEventDestroy) \
	X(cuEventDestroy, 4000, 0, cuEventDestroy_v2) \
	X(cuEventElapsedTime, 2000, 0, cuEventElapsedTime) \
	X(cuEventElapsedTime, 12080, 0, cuEventElapsedTime_v2) \
	X(cuEventQuery, 2000, 0, cuEventQuery) \
	X(cuEventRecord, 2000, 0, cuEventRecord) \
	X(cuEventRecord, 7000, 1, cuEventRecord_ptsz) \
	X(cuEventRecordWithFlags, 11010, 0, cuEventRecordWithFlags) \
	X(cuEventRecordWithFlags, 11010, 1, cuEventRecordWithFlags_ptsz) \
	X(cuEventSynchronize, 2000, 0, cuEventSynchronize) \
	X(cuFuncGetName, 12030, 0, cuFuncGetName) \
	X(cuFuncGetParamInfo, 12040, 0, cuFuncGetParamInfo) \
	X(cuGetErrorName, 6000, 0, cuGetErrorName) \
	X(cuGetErrorString, 6000, 0, cuGetErrorString) \
	X(cuGetExportTable, 3000, 0, cuGetExportTable) \
	X(cuGetProcAddress, 11030, 0, cuGetProcAddress) \
	X(cuGetProcAddress, 12000, 0, cuGetProcAddress_v2) \
	X(cuGraphAddChildGraphNode, 10000, 0, cuGraphAddChildGraphNode) \
	X(cuGraphAddDependencies, 10000, 0, cuGraphAddDependencies) \
	X(cuGraphAddHostNode, 10000, 0, cuGraphAddHostNode) \
	X(cuGraphAddMemAllocNode, 11040, 0, cuGraphAddMemAllocNode) \
	X(cuGraphAddMemFreeNode, 11040, 0, cuGraphAddMemFreeNode) \
	X(cuGraphAddDependencies, 12030, 0, cuGraphAddDependencies_v2) \
	X(cuGraphAddEmptyNode, 10000, 0, cuGraphAddEmptyNode) \
	X(cuGraphAddEventRecordNode, 11010, 0, cuGraphAddEventRecordNode) \
	X(cuGraphAddEventWaitNode, 11010, 0, cuGraphAddEventWaitNode) \
	X(cuGraphAddKernelNode, 10000, 0, cuGraphAddKernelNode) \
	X(cuGraphAddKernelNode, 12000, 0, cuGraphAddKernelNode_v2) \
	X(cuGraphAddMemcpyNode, 10000, 0, cuGraphAddMemcpyNode) \
	X(cuGraphAddMemsetNode, 10000, 0, cuGraphAddMemsetNode) \
	X(cuGraphAddNode, 12020, 0, cuGraphAddNode) \
	X(cuGraphAddNode, 12030, 0, cuGraphAddNode_v2) \
	X(cuGraphClone, 10000, 0, cuGraphClone) \
	X(cuGraphCreate, 10000, 0, cuGraphCreate) \
	X(cuGraphDestroy, 10000, 0, cuGraphDestroy) \
	X(cuGraphDestroyNode, 10000, 0, cuGraphDestroyNode) \
	X(cuGraphExecDestroy, 10000, 0, cuGraphExecDestroy) \
	X(cuGraphEventRecordNodeSetEvent, 11010, 0, cuGraphEventRecordNodeSetEvent) \
	X(cuGraphEventWaitNodeSetEvent, 11010, 0, cuGraphEventWaitNodeSetEvent) \
	X(cuGraphExecEventRecordNodeSetEvent, 11010, 0, cuGraphExecEventRecordNodeSetEvent) \
	X(cuGraphExecEventWaitNodeSetEvent, 11010, 0, cuGraphExecEventWaitNodeSetEvent) \
	X(cuGraphExecMemcpyNodeSetParams, 10020, 0, cuGraphExecMemcpyNodeSetParams) \
	X(cuGraphExecNodeSetParams, 12020, 0, cuGraphExecNodeSetParams) \
	X(cuGraphNodeSetParams, 12020, 0, cuGraphNodeSetParams) \
	X(cuGraphExecUpdate, 10020, 0, cuGraphExecUpdate) \
	X(cuGraphExecUpdate, 12000, 0, cuGraphExecUpdate_v2) \
	X(cuGraphExecMemsetNodeSetParams, 10020, 0, cuGraphExecMemsetNodeSetParams) \
	X(cuGraphMemcpyNodeSetParams, 10000, 0, cuGraphMemcpyNodeSetParams) \
	X(cuGraphMemsetNodeSetParams, 10000, 0, cuGraphMemsetNodeSetParams) \
	X(cuGraphExecKernelNodeSetParams, 10010, 0, cuGraphExecKernelNodeSetParams) \
	X(cuGraphExecKernelNodeSetParams, 12000, 0, cuGraphExecKernelNodeSetParams_v2) \
	X(cuGraphInstantiate, 10000, 0, cuGraphInstantiate) \
	X(cuGraphInstantiate, 11000, 0, cuGraphInstantiate_v2) \
	X(cuGraphInstantiateWithFlags, 11040, 0, cuGraphInstantiateWithFlags) \
	X(cuGraphKernelNodeSetParams, 10000, 0, cuGraphKernelNodeSetParams) \
	X(cuGraphKernelNodeSetParams, 12000, 0, cuGraphKernelNodeSetParams_v2) \
	X(cuGraphKernelNodeSetAttribute, 11000, 0, cuGraphKernelNodeSetAttribute) \
	X(cuGraphKernelNodeGetAttribute, 11000, 0, cuGraphKernelNodeGetAttribute) \
	X(cuGraphKernelNodeCopyAttributes, 11000, 0, cuGraphKernelNodeCopyAttributes) \
	X(cuGraphHostNodeSetParams, 10000, 0, cuGraphHostNodeSetParams) \
	X(cuGraphAddBatchMemOpNode, 11070, 0, cuGraphAddBatchMemOpNode) \
	X(cuGraphBatchMemOpNodeSetParams, 11070, 0, cuGraphBatchMemOpNodeSetParams) \
	X(cuGraphExecBatchMemOpNodeSetParams, 11070, 0, cuGraphExecBatchMemOpNodeSetParams) \
	X(cuStreamWriteValue32, 8000, 0, cuStreamWriteValue32) \
	X(cuStreamWriteValue32, 8000, 1, cuStreamWriteValue32_ptsz) \
	X(cuStreamWriteValue32, 11070, 0, cuStreamWriteValue32_v2) \
	X(cuStreamWriteValue32, 11070, 1, cuStreamWriteValue32_v2_ptsz) \
	X(cuStreamWriteValue64, 9000, 0, cuStreamWriteValue64) \
	X(cuStreamWriteValue64, 9000, 1, cuStreamWriteValue64_ptsz) \
	X(cuStreamWriteValue64, 11070, 0, cuStreamWriteValue64_v2) \
	X(cuStreamWriteValue64, 11070, 1, cuStreamWriteValue64_v2_ptsz) \
	X(cuStreamWaitValue32, 8000, 0, cuStreamWaitValue32) \
	X(cuStreamWaitValue32, 8000, 1, cuStreamWaitValue32_ptsz) \
	X(cuStreamWaitValue32, 11070, 0, cuStreamWaitValue32_v2) \
	X(cuStreamWaitValue32, 11070, 1, cuStreamWaitValue32_v2_ptsz) \
	X(cuStreamWaitValue64, 9000, 0, cuStreamWaitValue64) \
	X(cuStreamWaitValue64, 9000, 1, cuStreamWaitValue64_ptsz) \
	X(cuStreamWaitValue64, 11070, 0, cuStreamWaitValue64_v2) \
	X(cuStreamWaitValue64, 11070, 1, cuStreamWaitValue64_v2_ptsz) \
	X(cuStreamBatchMemOp, 8000, 0, cuStreamBatchMemOp) \
	X(cuStreamBatchMemOp, 8000, 1, cuStreamBatchMemOp_ptsz) \
	X(cuStreamBatchMemOp, 11070, 0, cuStreamBatchMemOp_v2) \
	X(cuStreamBatchMemOp, 11070, 1, cuStreamBatchMemOp_v2_ptsz) \
	X(cuDeviceGraphMemTrim, 11040, 0, cuDeviceGraphMemTrim) \
	X(cuDeviceGetGraphMemAttribute, 11040, 0, cuDeviceGetGraphMemAttribute) \
	X(cuDeviceSetGraphMemAttribute, 11040, 0, cuDeviceSetGraphMemAttribute) \
	X(cuGraphLaunch, 10000, 0, cuGraphLaunch) \
	X(cuGraphNodeFindInClone, 10000, 0, cuGraphNodeFindInClone) \
	X(cuGraphChildGraphNodeGetGraph, 10000, 0, cuGraphChildGraphNodeGetGraph) \
	X(cuGraphNodeGetEnabled, 11060, 0, cuGraphNodeGetEnabled) \
	X(cuGraphNodeSetEnabled, 11060, 0, cuGraphNodeSetEnabled) \
	X(cuGraphLaunch, 10000, 1, cuGraphLaunch_ptsz) \
	X(cuGraphRemoveDependencies, 10000, 0, cuGraphRemoveDependencies) \
	X(cuGraphRemoveDependencies, 12030, 0, cuGraphRemoveDependencies_v2) \
	X(cuInit, 2000, 0, cuInit) \
	X(cuIpcCloseMemHandle, 4010, 0, cuIpcCloseMemHandle) \
	X(cuIpcGetMemHandle, 4010, 0, cuIpcGetMemHandle) \
	X(cuIpcOpenMemHandle, 4010, 0, cuIpcOpenMemHandle) \
	X(cuIpcOpenMemHandle, 11000, 0, cuIpcOpenMemHandle_v2) \
	X(cuKernelGetFunction, 12000, 0, cuKernelGetFunction) \
	X(cuKernelGetName, 12030, 0, cuKernelGetName) \
	X(cuKernelGetParamInfo, 12040, 0, cuKernelGetParamInfo) \
	X(cuLaunchCooperativeKernel, 9000, 0, cuLaunchCooperativeKernel) \
	X(cuLaunchCooperativeKernel, 9000, 1, cuLaunchCooperativeKernel_ptsz) \
	X(cuLaunchKernel, 4000, 0, cuLaunchKernel) \
	X(cuLaunchKernel, 7000, 1, cuLaunchKernel_ptsz) \
	X(cuLaunchKernelEx, 11060, 0, cuLaunchKernelEx) \
	X(cuLaunchKernelEx, 11060, 1, cuLaunchKernelEx_ptsz) \
	X(cuLibraryGetGlobal, 12000, 0, cuLibraryGetGlobal) \
	X(cuLibraryGetKernel, 12000, 0, cuLibraryGetKernel) \
	X(cuLibraryGetModule, 12000, 0, cuLibraryGetModule) \
	X(cuLibraryLoadData, 12000, 0, cuLibraryLoadData) \
	X(cuLibraryUnload, 12000, 0, cuLibraryUnload) \
	X(cuMemAddressFree, 10020, 0, cuMemAddressFree) \
	X(cuMemAddressReserve, 10020, 0, cuMemAddressReserve) \
	X(cuMemAlloc, 2000, 0, cuMemAlloc) \
	X(cuMemAlloc, 3020, 0, cuMemAlloc_v2) \
	X(cuMemAllocAsync, 11020, 0, cuMemAllocAsync) \
	X(cuMemAllocAsync, 11020, 1, cuMemAllocAsync_ptsz) \
	X(cuMemAllocHost, 2000, 0, cuMemAllocHost) \
	X(cuMemAllocHost, 3020, 0, cuMemAllocHost_v2) \
	X(cuMemAllocManaged, 6000, 0, cuMemAllocManaged) \
	X(cuMemAllocPitch, 2000, 0, cuMemAllocPitch) \
	X(cuMemAllocPitch, 3020, 0, cuMemAllocPitch_v2) \
	X(cuMemCreate, 10020, 0, cuMemCreate) \
	X(cuMemFree, 2000, 0, cuMemFree) \
	X(cuMemFree, 3020, 0, cuMemFree_v2) \
	X(cuMemFreeAsync, 11020, 0, cuMemFreeAsync) \
	X(cuMemFreeAsync, 11020, 1, cuMemFreeAsync_ptsz) \
	X(cuMemFreeHost, 2000, 0, cuMemFreeHost) \
	X(cuMemGetAddressRange, 2000, 0, cuMemGetAddressRange) \
	X(cuMemGetAddressRange, 3020, 0, cuMemGetAddressRange_v2) \
	X(cuMemGetAllocationGranularity, 10020, 0, cuMemGetAllocationGranularity) \
	X(cuMemGetInfo, 2000, 0, cuMemGetInfo) \
	X(cuMemGetInfo, 3020, 0, cuMemGetInfo_v2) \
	X(cuMemHostAlloc, 2020, 0, cuMemHostAlloc) \
	X(cuMemHostGetDevicePointer, 2020, 0, cuMemHostGetDevicePointer) \
	X(cuMemHostGetDevicePointer, 3020, 0, cuMemHostGetDevicePointer_v2) \
	X(cuMemMap, 10020, 0, cuMemMap) \
	X(cuMemRelease, 10020, 0, cuMemRelease) \
	X(cuMemSetAccess, 10020, 0, cuMemSetAccess) \
	X(cuMemUnmap, 10020, 0, cuMemUnmap) \
	X(cuMemcpy, 4000, 0, cuMemcpy) \
	X(cuMemcpy, 7000, 1, cuMemcpy_ptds) \
	X(cuMemcpy2D, 3020, 0, cuMemcpy2D_v2) \
	X(cuMemcpy2D, 7000, 1, cuMemcpy2D_v2_ptds) \
	X(cuMemcpy2DAsync, 3020, 0, cuMemcpy2DAsync_v2) \
	X(cuMemcpy2DAsync, 7000, 1, cuMemcpy2DAsync_v2_ptsz) \
	X(cuMemcpy3D, 3020, 0, cuMemcpy3D_v2) \
	X(cuMemcpy3D, 7000, 1, cuMemcpy3D_v2_ptds) \
	X(cuMemcpy3DAsync, 3020, 0, cuMemcpy3DAsync_v2) \
	X(cuMemcpy3DAsync, 7000, 1, cuMemcpy3DAsync_v2_ptsz) \
	X(cuArrayCreate, 3020, 0, cuArrayCreate_v2) \
	X(cuArray3DCreate, 3020, 0, cuArray3DCreate_v2) \
	X(cuArrayGetDescriptor, 3020, 0, cuArrayGetDescriptor_v2) \
	X(cuArray3DGetDescriptor, 3020, 0, cuArray3DGetDescriptor_v2) \
	X(cuArrayDestroy, 2000, 0, cuArrayDestroy) \
	X(cuMemcpyHtoA, 3020, 0, cuMemcpyHtoA_v2) \
	X(cuMemcpyHtoA, 7000, 1, cuMemcpyHtoA_v2_ptds) \
	X(cuMemcpyAtoH, 3020, 0, cuMemcpyAtoH_v2) \
	X(cuMemcpyAtoH, 7000, 1, cuMemcpyAtoH_v2_ptds) \
	X(cuMemcpyAtoD, 3020, 0, cuMemcpyAtoD_v2) \
	X(cuMemcpyAtoD, 7000, 1, cuMemcpyAtoD_v2_ptds) \
	X(cuMemcpyDtoA, 3020, 0, cuMemcpyDtoA_v2) \
	X(cuMemcpyDtoA, 7000, 1, cuMemcpyDtoA_v2_ptds) \
	X(cuMemcpyAtoA, 3020, 0, cuMemcpyAtoA_v2) \
	X(cuMemcpyAtoA, 7000, 1, cuMemcpyAtoA_v2_ptds) \
	X(cuMemcpyHtoAAsync, 3020, 0, cuMemcpyHtoAAsync_v2) \
	X(cuMemcpyHtoAAsync, 7000, 1, cuMemcpyHtoAAsync_v2_ptsz) \
	X(cuMemcpyAtoHAsync, 3020, 0, cuMemcpyAtoHAsync_v2) \
	X(cuMemcpyAtoHAsync, 7000, 1, cuMemcpyAtoHAsync_v2_ptsz) \
	X(cuMemcpyAsync, 4000, 0, cuMemcpyAsync) \
	X(cuMemcpyAsync, 7000, 1, cuMemcpyAsync_ptsz) \
	X(cuMemcpyDtoD, 2000, 0, cuMemcpyDtoD) \
	X(cuMemcpyDtoD, 3020, 0, cuMemcpyDtoD_v2) \
	X(cuMemcpyDtoD, 7000, 1, cuMemcpyDtoD_v2_ptds) \
	X(cuMemcpyDtoDAsync, 3000, 0, cuMemcpyDtoDAsync) \
	X(cuMemcpyDtoDAsync, 3020, 0, cuMemcpyDtoDAsync_v2) \
	X(cuMemcpyDtoDAsync, 7000, 1, cuMemcpyDtoDAsync_v2_ptsz) \
	X(cuMemcpyDtoH, 2000, 0, cuMemcpyDtoH) \
	X(cuMemcpyDtoH, 3020, 0, cuMemcpyDtoH_v2) \
	X(cuMemcpyDtoH, 7000, 1, cuMemcpyDtoH_v2_ptds) \
	X(cuMemcpyDtoHAsync, 2000, 0, cuMemcpyDtoHAsync) \
	X(cuMemcpyDtoHAsync, 3020, 0, cuMemcpyDtoHAsync_v2) \
	X(cuMemcpyDtoHAsync, 7000, 1, cuMemcpyDtoHAsync_v2_ptsz) \
	X(cuMemcpyHtoD, 2000, 0, cuMemcpyHtoD) \
	X(cuMemcpyHtoD, 3020, 0, cuMemcpyHtoD_v2) \
	X(cuMemcpyHtoD, 7000, 1, cuMemcpyHtoD_v2_ptds) \
	X(cuMemcpyHtoDAsync, 2000, 0, cuMemcpyHtoDAsync) \
	X(cuMemcpyHtoDAsync, 3020, 0, cuMemcpyHtoDAsync_v2) \
	X(cuMemcpyHtoDAsync, 7000, 1, cuMemcpyHtoDAsync_v2_ptsz) \
	X(cuMemsetD16, 2000, 0, cuMemsetD16) \
	X(cuMemsetD16, 3020, 0, cuMemsetD16_v2) \
	X(cuMemsetD16, 7000, 1, cuMemsetD16_v2_ptds) \
	X(cuMemsetD16Async, 3020, 0, cuMemsetD16Async) \
	X(cuMemsetD16Async, 7000, 1, cuMemsetD16Async_ptsz) \
	X(cuMemsetD32, 2000, 0, cuMemsetD32) \
	X(cuMemsetD32, 3020, 0, cuMemsetD32_v2) \
	X(cuMemsetD32, 7000, 1, cuMemsetD32_v2_ptds) \
	X(cuMemsetD32Async, 3020, 0, cuMemsetD32Async) \
	X(cuMemsetD32Async, 7000, 1, cuMemsetD32Async_ptsz) \
	X(cuMemsetD8, 2000, 0, cuMemsetD8) \
	X(cuMemsetD8, 3020, 0, cuMemsetD8_v2) \
	X(cuMemsetD8, 7000, 1, cuMemsetD8_v2_ptds) \
	X(cuMemsetD8Async, 3020, 0, cuMemsetD8Async) \
	X(cuMemsetD8Async, 7000, 1, cuMemsetD8Async_ptsz) \
	X(cuModuleGetFunction, 2000, 0, cuModuleGetFunction) \
	X(cuModuleGetGlobal, 2000, 0, cuModuleGetGlobal) \
	X(cuModuleGetGlobal, 3020, 0, cuModuleGetGlobal_v2) \
	X(cuModuleLoad, 2000, 0, cuModuleLoad) \
	X(cuModuleLoadData, 2000, 0, cuModuleLoadData) \
	X(cuModuleLoadDataEx, 2010, 0, cuModuleLoadDataEx) \
	X(cuModuleLoadFatBinary, 2000, 0, cuModuleLoadFatBinary) \
	X(cuModuleUnload, 2000, 0, cuModuleUnload) \
	X(cuPointerGetAttribute, 4000, 0, cuPointerGetAttribute) \
	X(cuPointerGetAttributes, 7000, 0, cuPointerGetAttributes) \
	X(cuProfilerStart, 4000, 0, cuProfilerStart) \
	X(cuProfilerStop, 4000, 0, cuProfilerStop) \
	X(cuStreamBeginCapture, 10000, 0, cuStreamBeginCapture) \
	X(cuStreamBeginCapture, 10000, 1, cuStreamBeginCapture_ptsz) \
	X(cuStreamBeginCapture, 10010, 0, cuStreamBeginCapture_v2) \
	X(cuStreamBeginCapture, 10010, 1, cuStreamBeginCapture_v2_ptsz) \
	X(cuStreamBeginCaptureToGraph, 12030, 0, cuStreamBeginCaptureToGraph) \
	X(cuStreamBeginCaptureToGraph, 12030, 1, cuStreamBeginCaptureToGraph_ptsz) \
	X(cuStreamCreate, 2000, 0, cuStreamCreate) \
	X(cuStreamCreateWithPriority, 5050, 0, cuStreamCreateWithPriority) \
	X(cuCtxGetStreamPriorityRange, 5050, 0, cuCtxGetStreamPriorityRange) \
	X(cuStreamDestroy, 2000, 0, cuStreamDestroy) \
	X(cuStreamDestroy, 4000, 0, cuStreamDestroy_v2) \
	X(cuStreamEndCapture, 10000, 0, cuStreamEndCapture) \
	X(cuStreamEndCapture, 10000, 1, cuStreamEndCapture_ptsz) \
	X(cuStreamGetFlags, 5050, 0, cuStreamGetFlags) \
	X(cuStreamGetFlags, 7000, 1, cuStreamGetFlags_ptsz) \
	X(cuStreamGetPriority, 5050, 0, cuStreamGetPriority) \
	X(cuStreamGetPriority, 7000, 1, cuStreamGetPriority_ptsz) \
	X(cuStreamIsCapturing, 10000, 0, cuStreamIsCapturing) \
	X(cuStreamIsCapturing, 10000, 1, cuStreamIsCapturing_ptsz) \
	X(cuStreamQuery, 2000, 0, cuStreamQuery) \
	X(cuStreamQuery, 7000, 1, cuStreamQuery_ptsz) \
	X(cuStreamSynchronize, 2000, 0, cuStreamSynchronize) \
	X(cuStreamSynchronize, 7000, 1, cuStreamSynchronize_ptsz) \
	X(cuStreamWaitEvent, 3020, 0, cuStreamWaitEvent) \
	X(cuStreamWaitEvent, 7000, 1, cuStreamWaitEvent_ptsz) \
	X(cuSurfObjectCreate, 5000, 0, cuSurfObjectCreate) \
	X(cuSurfObjectDestroy, 5000, 0, cuSurfObjectDestroy) \
	X(cuTexObjectCreate, 5000, 0, cuTexObjectCreate) \
	X(cuTexObjectDestroy, 5000, 0, cuTexObjectDestroy) \
	/* end of TCD_PROCS */

#endif
