/*
 * sbt_compute.h - the compute record model: what the CUDA interposer (and
 * the HIP one later) records, as SBT record payloads, and back.
 *
 * RECORD TYPES
 *   Every modeled call is one record type named "<api>.<call>", e.g.
 *   "cuda.cuLaunchKernel": the call's name with no version or stream
 *   suffix (cuMemcpyHtoD_v2 and cuMemcpyHtoD_v2_ptds are both
 *   "cuda.cuMemcpyHtoD"; the ptds field says which).  Records of the
 *   front-end itself are named "cuda.ts<Name>".  Type numbers are
 *   SBT_CM_TYPE_BASE + kind and follow SBT_CM_KIND_LIST, which only ever
 *   grows at the end; readers still go by NAME (sbt_reader_type_name, then
 *   sbt_cm_kind_by_name).
 *   HIP names its records "hip.<call>" (the HIP runtime's own name,
 *   "hip.hipMalloc", "hip.__hipRegisterFatBinary"), numbered
 *   SBT_CM_HIP_TYPE_BASE + position in SBT_CM_HIP_LIST (append only), and
 *   each maps onto one kind of the model: its payload carries the fields
 *   that kind carries (below), with these HIP meanings (docs/hip.md):
 *     __hipRegisterFatBinary (kind cuModuleLoadFatBinary): handle = the
 *       module handle it returned, blob = the offload bundle the wrapper
 *       points to, value = the wrapper's version; __hipRegisterFunction
 *       (cuModuleGetFunction): handle = the host stub the program launches
 *       by, parent = the module handle, name = the device function's name;
 *       __hipRegisterVar (cuModuleGetGlobal): parent, name, host = the
 *       host shadow variable, size, flags = 1 constant | 2 extern;
 *       __hipUnregisterFatBinary (cuModuleUnload).
 *     hipLaunchKernel (cuLaunchKernel): handle = the host stub; layout
 *       from the code object's metadata (explicit arguments).
 *       __hipPushCallConfiguration (cuLaunchKernel) only when it failed:
 *       the <<<>>> launch it configured then never reached the runtime,
 *       so this record (result, grid, block, shared_mem, stream, no
 *       handle) is all the trace has of it.
 *       hipExtModuleLaunchKernel: grid_x..z
 *       are the global work sizes as passed (work items, not blocks),
 *       flags, event = start event, value = stop event.
 *     copies: sub from hipMemcpyKind (hipMemcpyDefault resolved from the
 *       interposer's allocation table, 0 when it cannot); the *Symbol
 *       forms: dst or src = the host shadow variable, name = its device
 *       name when registered, offset.
 *     pitched copies: hipMemcpy2D(Async), hipMemcpyParam2D(Async)
 *       (cuMemcpy2D(Async)), hipMemcpy3D(Async) (cuMemcpy3D(Async)): sub,
 *       dst, src (the pointers as passed: hipPitchedPtr.ptr, srcDevice or
 *       srcHost), dst_x/dst_y/dst_z and src_x/... (the position: bytes,
 *       rows, slices), dst_pitch, src_pitch, dst_height, src_height (rows
 *       a slice: hipPitchedPtr.ysize; 0 for 2D), width (bytes), height,
 *       depth (0 for 2D), size = width x height x depth; a host source's
 *       rows packed as blob (width bytes each), a host destination's
 *       packed rows checkpointed with object = the allocation holding the
 *       source's first byte; dst_type and src_type as CUDA's records
 *       (CUmemorytype: 1 host, 2 device, 3 array; 0 when the direction is
 *       unknown).  A side that is a HIP array: type 3, the array as dst or
 *       src, sub = SBT_CM_COPY_ARRAY, x in bytes (hipMemcpy3D's elements
 *       times the array's element size, and its width too), pitch 0; a
 *       host side as above (blob; checkpoint).
 *     HIP arrays: hipMallocArray, hipArrayCreate (cuArrayCreate: handle
 *       out, width, height, format = hipArray_Format, channels, flags;
 *       hipMallocArray's format and channels from its channel descriptor
 *       as clr derives them), hipArray3DCreate (cuArray3DCreate: + depth),
 *       hipFreeArray, hipArrayDestroy (cuArrayDestroy: handle).  Copies by
 *       their own calls, as pitched copies (cuMemcpy2D(Async)) with the
 *       array side above (a host destination's checkpoint: object 0,
 *       offset = the array handle): hipMemcpy2DToArray(Async),
 *       hipMemcpy2DFromArray(Async) (the linear side's pitch as passed),
 *       hipMemcpyToArray, hipMemcpyFromArray (count bytes as the rows clr
 *       makes of them: width = count / the array's height (or 1), height =
 *       count / the array's width / its element size, the linear side
 *       packed: pitch = width; size = width x height).  Keyframes hold
 *       every live HIP array as CUDA's hold CUDA arrays (tsSnapshot sub
 *       SBT_CM_MEM_ARRAY, the marker's SBT_CM_KF_ARRAYS).
 *     hipMemcpyPeer(Async) (cuMemcpyPeer(Async)): sub = device to device,
 *       dst, src, size, device = destination device, ivalue = source device.
 *     hipMemset2D(Async), hipMemset3D(Async) (cuMemsetD2D8(Async)): dst,
 *       pitch, value (the byte), width (bytes), height, depth (0 for 2D),
 *       dst_height = rows a slice (hipPitchedPtr.ysize; 0 for 2D),
 *       elem_size 1, size = width x height x depth.
 *     hipMalloc3DArray (cuArray3DCreate) as hipArray3DCreate, its format
 *       and channels from its channel descriptor.  Mipmapped arrays (ROCm
 *       5.2's clr answers hipErrorNotSupported to all three, so these are
 *       failed calls): hipMallocMipmappedArray (cuArray3DCreate: handle,
 *       width, height, depth, format, channels, flags, count = levels, sub
 *       1), hipFreeMipmappedArray (cuArrayDestroy: handle, sub 1),
 *       hipGetMipmappedArrayLevel (cuArrayCreate: handle = the level's
 *       array, parent = the mipmapped array, value = the level, sub 1).
 *     The driver-style hipMipmappedArrayCreate, hipMipmappedArrayGetLevel
 *       and hipMipmappedArrayDestroy (implemented by ROCm 5.2) record the
 *       same fields as those three, sub 1; a level's array (a new handle
 *       at each hipMipmappedArrayGetLevel, a view of the level) is then
 *       an array like any other for the copies.
 *     _spt copies (hipMemcpy2DToArray_spt, hipMemcpy2DFromArray_spt,
 *       hipMemcpy3D_spt): the record of the call without _spt, ptds = 1.
 *     contexts (clr's hipCtx_t is its device): hipCtxCreate (cuCtxCreate:
 *       ctx out, flags, device), hipCtxDestroy (cuCtxDestroy: ctx),
 *       hipCtxSetCurrent, hipCtxPushCurrent (ctx), hipCtxPopCurrent (ctx
 *       out) with device = the thread's current device after the call;
 *       hipCtxGetCurrent and hipDevicePrimaryCtxRetain
 *       (cuDevicePrimaryCtxRetain: ctx out, device = its device; sub 1 for
 *       hipCtxGetCurrent), hipDevicePrimaryCtxRelease (device),
 *       hipCtxGetDevice (cuDeviceGet: device out).
 *     graphs built node by node, as CUDA's: hipGraphCreate (handle,
 *       flags); hipGraphAddKernelNode (node, parent = the graph, deps; the
 *       kernel as hipLaunchKernel records it: handle = the host stub,
 *       name, grid, block, shared_mem, layout + params, or extra);
 *       hipGraphAddMemcpyNode (the pitched copy fields of hipMemcpy3D),
 *       hipGraphAddMemcpyNode1D (the same for one row of count bytes:
 *       width = size = count, height 1, pitches = count); a host source's
 *       bytes as blob, taken when the node was added; no checkpoint);
 *       hipGraphAddMemsetNode (dst, pitch, value, elem_size, width in
 *       elements, height); hipGraphAddEmptyNode; hipGraphAddDependencies
 *       (parent, deps = from, deps_to = to); hipGraphInstantiateWithFlags
 *       (as hipGraphInstantiate, + flags); hipGraphAddChildGraphNode (as
 *       a node, handle = the child graph, which clr copies into the node
 *       when it is added; a child the interposer did not see made by
 *       hipGraphCreate is recorded as tsGraphNotModeled instead).
 *       The exec setters hipGraphExecKernelNodeSetParams,
 *       hipGraphExecMemcpyNodeSetParams(1D) and
 *       hipGraphExecMemsetNodeSetParams: as the matching add's record
 *       (node, the node's fields, no deps) with parent = the exec, as
 *       CUDA's cuGraphExec*NodeSetParams.
 *       hipGraphExecUpdate (cuGraphExecUpdate: handle = the exec, parent
 *       = the graph, value = the hipGraphExecUpdateResult, node = the
 *       error node when clr names one; deps = the graph's nodes in the
 *       order the runtime's clr pairs them at the call, deps_to = the
 *       exec's in that order at its instantiation: the pairs it made,
 *       index by index; lists of two lengths: the topology changed; sub =
 *       that order: absent for clr 5.2's level order, 1 for clr 6.0-6.2's
 *       topological order) when the interposer followed both, else
 *       tsGraphNotModeled.
 *     hipSetDevice (cuCtxSetCurrent): device; allocations, stream
 *       creations, module loads and arrays: device = the calling thread's
 *       current device (absent for 0); hipStreamCreateWithFlags
 *       (cuStreamCreate): flags.
 *
 * PAYLOAD (one encoding for every kind)
 *   A sequence of fields, each: varint key = tag << 2 | wire, then
 *     wire 0: varint value            (unsigned)
 *     wire 1: zigzag varint value     (signed)
 *     wire 2: varint length, bytes    (byte strings, packed arrays)
 *   wire 3 is invalid.  A field the decoder does not know (a tag newer
 *   than it) is skipped by its wire type; a known tag with the wrong wire
 *   type, a known tag seen twice, a length past the end of the payload or
 *   a malformed packed array makes the payload corrupt.  Fields whose value
 *   is 0 or empty are not written: absent means 0.  Tags are never reused;
 *   new fields get new tags at the end of SBT_CM_FIELD_LIST.
 *
 *   Packed arrays (wire 2):
 *     layout  n x (u32 offset LE, u32 size LE): one entry per kernel
 *             parameter, from cuFuncGetParamInfo / cuKernelGetParamInfo.
 *     params  the parameter bytes, parameter i at layout[i].offset.
 *     attrs   n x 72 bytes: u32 id LE, 4 zero bytes, 64 value bytes (the
 *             CUlaunchAttribute layout of cuLaunchKernelEx, little-endian).
 *     prelinked  n x u64 LE blob ids: the prelinked fatbins of a version 2
 *             fatbin wrapper (-rdc builds), in the wrapper's list order.
 *     jit     n x 16 bytes: u32 CUjit_option LE, 4 zero bytes, u64 value LE
 *             (the option's void * value as an integer; for options whose
 *             value is a pointer, such as log buffers, only informative).
 *
 * WHAT EACH KIND CARRIES (fields not listed are 0)
 *   Every call: result (its CUresult); ptds = 1 when the program called the
 *   per-thread-default-stream variant (_ptds/_ptsz), which changes what
 *   stream 0 means.
 *   context, device: cuInit (flags); cuDeviceGet (device, value = ordinal);
 *     cuCtxCreate (ctx out, flags, device); cuCtxDestroy, cuCtxSetCurrent,
 *     cuCtxPushCurrent, cuCtxPopCurrent (ctx); cuDevicePrimaryCtxRetain
 *     (ctx out, device); cuDevicePrimaryCtxRelease/Reset (device);
 *     cuCtxSynchronize (ctx: the CUDA 13 cuCtxSynchronize_v2's argument,
 *     0 for the current context).  A context the program used without a
 *     recorded creation (the runtime retains its primary context through
 *     a private interface) is recorded as cuDevicePrimaryCtxRetain with
 *     sub = 1 ("inferred"), before the record that first names it.
 *   modules: cuModuleLoad, cuModuleLoadData, cuModuleLoadDataEx,
 *     cuModuleLoadFatBinary, cuLibraryLoadData, cuLibraryLoadFromFile
 *     (handle = module or library out; blob = the image bytes, size = its
 *     length, sub = SBT_CM_IMAGE_* of the image as stored: a fatbin wrapper
 *     is unwrapped and its fatbin stored, value = the wrapper's version
 *     when it was (2: prelinked holds the fatbins its list names); blob 0 =
 *     the image could not be captured, and note says why; name = the file
 *     for the *Load/FromFile forms; jit = the JIT options of
 *     cuModuleLoadDataEx and cuLibraryLoadData); cuModuleUnload,
 *     cuLibraryUnload (handle).
 *     cuModuleGetFunction, cuLibraryGetKernel (handle = function or kernel
 *     out, parent = module or library, name); cuKernelGetFunction (handle =
 *     function out, parent = kernel, ctx); cuLibraryGetModule (handle,
 *     parent); cuModuleGetGlobal, cuLibraryGetGlobal (parent, name, dst =
 *     the global's address, size).
 *   launches: cuLaunchKernel, cuLaunchCooperativeKernel, cuLaunchKernelEx
 *     (handle = the function as passed; sub = SBT_CM_FUNC_KERNEL when it
 *     is a CUkernel passed as a CUfunction; name = the kernel's name when
 *     known; grid_x..z, block_x..z, shared_mem, stream; layout + params, or
 *     extra = the CU_LAUNCH_PARAM_BUFFER_POINTER bytes (layout may still be
 *     present); attrs and flags for cuLaunchKernelEx; capture_status and
 *     capture_id when the stream was capturing: such a launch was not
 *     executed, it became a graph node).
 *     cuGraphLaunch (handle = graph exec, stream).  cuGraphInstantiate
 *     (handle = graph exec out, parent = graph, flags), cuGraphExecDestroy
 *     (handle), cuGraphDestroy (handle): with cuStreamBeginCapture /
 *     cuStreamEndCapture and the launches, copies and memsets recorded
 *     with capture_status, a graph built by stream capture is rebuilt on
 *     replay.
 *     Graphs built node by node: cuGraphCreate (handle = graph out,
 *     flags); every cuGraphAdd*Node (node = the node out, parent = the
 *     graph, deps = its dependencies, packed u64 LE node handles):
 *     cuGraphAddKernelNode carries the kernel as a launch record does
 *     (handle, sub, name, grid, block, shared_mem, layout + params or
 *     extra; ctx for the _v2 params' ctx); cuGraphAddMemcpyNode the
 *     fields of cuMemcpy3D (a host source's packed rows as blob, taken
 *     when the node was added) and ctx; cuGraphAddMemsetNode dst, pitch,
 *     value, elem_size, width, height, ctx; cuGraphAddEventRecordNode and
 *     cuGraphAddEventWaitNode event; cuGraphAddEmptyNode nothing more.
 *     cuGraphAddNode(_v2) of a modeled node type is recorded as that
 *     type's kind.  cuGraphAddDependencies (parent = graph, deps = from
 *     nodes, deps_to = to nodes, same count).  cuGraphKernelNodeSetParams
 *     (node, the kernel fields as above) and
 *     cuGraphExecKernelNodeSetParams (the same, parent = the graph exec).
 *     cuGraphDestroyNode (node); cuGraphRemoveDependencies (as
 *     cuGraphAddDependencies).
 *     cuGraphAddChildGraphNode (as a node, handle = the child graph: the
 *     driver copies it into the node when it is added; flags = 1: added
 *     with CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE through cuGraphAddNode, the
 *     child then belongs to the node and may hold memory nodes).
 *     cuGraphClone
 *     (handle = the clone, parent = the graph cloned);
 *     cuGraphNodeFindInClone (node = the clone's node found, handle = the
 *     original node, parent = the clone).  cuGraphNodeSetEnabled (parent
 *     = the exec, node, value = isEnabled).  cuGraphAddHostNode (as a
 *     node, note: the host function is never replayed: replay adds an
 *     empty node in its place).
 *     cuGraphMemcpyNodeSetParams, cuGraphMemsetNodeSetParams,
 *     cuGraphEventRecordNodeSetEvent, cuGraphEventWaitNodeSetEvent (node
 *     and the fields of the matching cuGraphAdd*Node record: a host
 *     source's bytes as blob); their cuGraphExec* forms the same, parent
 *     = the exec.
 *     cuGraphExecUpdate (both ABIs: handle = the exec, parent = the graph
 *     whose parameters it takes, value = the CUgraphExecUpdateResult, node
 *     = the error node, if any).
 *     cuGraphChildGraphNodeGetGraph (node = the child graph node, handle
 *     = the graph embedded in it, parent = the graph holding the node):
 *     later calls on that handle change the node's copy.
 *     cuGraphAddMemAllocNode (as a node: dst = the address the driver
 *     returned, size = bytesize, device = the pool's location id,
 *     res_desc = the access descriptors, CUmemAccessDesc as x86-64
 *     cuda.h lays it out, 12 bytes each, all of device locations; only
 *     pinned device memory without handle types, others are
 *     tsGraphNotModeled) and cuGraphAddMemFreeNode (as a node,
 *     dst = the address freed); cuGraphAddNode(_v2) of those types too.
 *     cuGraphKernelNodeSetAttribute (node, attrs = the one attribute,
 *     packed as launch attributes are); cuGraphKernelNodeCopyAttributes
 *     (node = the destination, handle = the source node).
 *     cuGraphAddBatchMemOpNode (as a node: ctx, flags, params = the
 *     CUstreamBatchMemOpParams array, 48 bytes each);
 *     cuGraphBatchMemOpNodeSetParams (node, the same fields) and
 *     cuGraphExecBatchMemOpNodeSetParams (the same, parent = the exec);
 *     cuGraphAddNode(_v2) of that type too.
 *     Stream memory operations, each as itself: cuStreamWriteValue32,
 *     cuStreamWriteValue64, cuStreamWaitValue32, cuStreamWaitValue64 (all
 *     forms: the legacy one, _v2 and their per-thread variants) and
 *     cuStreamBatchMemOp: stream, flags = the call's flags and params =
 *     the operations as a batch memory-op node's record carries them
 *     (CUstreamBatchMemOpParams, 48 bytes each): the batch call's array,
 *     or the one operation a single call makes (its address, value and
 *     flags in the operation's fields as cuStreamBatchMemOp would take
 *     them).
 *     tsGraphHostSource: before a cuGraphLaunch of an exec holding memcpy
 *     nodes that read host memory, one per such node (handle = the exec,
 *     node, host = the source pointer, size, blob = the source's packed
 *     rows as they are at that launch: the driver reads them then).
 *     tsGraphNotModeled: a call changed a graph or an exec in a way the
 *     model does not cover (name = the call, e.g. "cuGraphAddMemAllocNode";
 *     parent = the graph, or handle = the exec; a call that added a node:
 *     node, deps, sub = its CUgraphNodeType): replay refuses a launch of
 *     that graph's or exec's work, naming the call.
 *     cuLaunchHostFunc (stream): host code is never replayed.
 *     cuKernelSetAttribute (handle = kernel, attr = CUfunction_attribute,
 *     ivalue, device); cuFuncSetAttribute (handle = function, attr,
 *     ivalue).
 *   texture and surface objects (their handles travel in kernel
 *     parameters): cuTexObjectCreate (handle out, res_desc, tex_desc,
 *     view_desc: the CUDA_RESOURCE_DESC, CUDA_TEXTURE_DESC and
 *     CUDA_RESOURCE_VIEW_DESC as the x86-64 build of cuda.h lays them out,
 *     view_desc absent when none was given); cuSurfObjectCreate (handle
 *     out, res_desc); cuTexObjectDestroy, cuSurfObjectDestroy (handle).
 *     A resource over a CUDA array names it by its handle
 *     (res.array.hArray), the one its cuArrayCreate record carries.
 *   CUDA arrays: cuArrayCreate (handle out, width, height, format =
 *     CUarray_format, channels = NumChannels); cuArray3DCreate (the same
 *     + depth, flags); cuArrayDestroy (handle).  Their contents are opaque
 *     (the driver lays them out as it likes) and no keyframe holds them.
 *   allocations: sub = SBT_CM_MEM_* names the kind.  cuMemAlloc (dst out,
 *     size); cuMemAllocPitch (dst, pitch out, width, height, elem_size,
 *     size = pitch * height); cuMemAllocAsync (dst, size, stream);
 *     cuMemAllocFromPoolAsync (+ pool); cuMemAllocManaged (dst, size,
 *     flags); cuMemAllocHost, cuMemHostAlloc, cuMemHostRegister (host,
 *     size, flags); cuMemFree, cuMemFreeAsync (dst, stream), cuMemFreeHost,
 *     cuMemHostUnregister (host).  Virtual memory: cuMemCreate (handle
 *     out, size, device = location id, flags); cuMemRelease (handle);
 *     cuMemAddressReserve (dst out, size, align, src = the address asked
 *     for, flags); cuMemAddressFree (dst, size); cuMemMap (dst, size,
 *     offset, handle, flags); cuMemUnmap (dst, size); cuMemSetAccess (dst,
 *     size, device = location id, flags = access flags).
 *   copies: sub = SBT_CM_COPY_* (direction).  dst/src device addresses,
 *     host = the host address (informative), size, stream for the Async
 *     forms.  A host->device copy carries the bytes as blob.  A
 *     device->host copy is followed by a SBT_TYPE_CHECKPOINT whose call_seq
 *     is the copy's seq, object = the base address of the source
 *     allocation (0 when unknown; offset then is the source address) and
 *     offset = source - base: written at once for synchronous copies, at
 *     the next synchronization the program can observe for async ones
 *     (stream, event or context synchronize, or a query that returned
 *     CUDA_SUCCESS).  cuMemcpy / cuMemcpyAsync (unified addressing): the
 *     direction the interposer resolved from its allocation table.
 *     cuMemcpyPeer(Async): ctx = destination context, src_ctx = source.
 *     cuMemcpy2D*, cuMemcpy3D*: dst_type/src_type (CUmemorytype),
 *     dst_x/dst_y/dst_z, src_x/..., dst_pitch, src_pitch, dst_height,
 *     src_height, width (bytes), height, depth; a host source's rows are
 *     carried packed (width bytes each) as blob, and a host destination's
 *     packed rows are checkpointed; an array side (dst_type or src_type
 *     CU_MEMORYTYPE_ARRAY, sub = SBT_CM_COPY_ARRAY) carries the array's
 *     handle as dst or src, x in bytes, no pitch; a synchronous copy from
 *     an array to host is checkpointed with object = the array handle.
 *     cuMemcpyHtoA, cuMemcpyAtoH, cuMemcpyAtoD, cuMemcpyDtoA, cuMemcpyAtoA,
 *     cuMemcpyHtoAAsync, cuMemcpyAtoHAsync (byte offsets into an array):
 *     sub = SBT_CM_COPY_ARRAY, dst_type/src_type, dst/src = the array
 *     handle or device address, dst_x/src_x = the array side's offset,
 *     size, host, stream; a host source's bytes as blob; a copy to host is
 *     checkpointed (the async one at the next synchronization) with object
 *     0 and offset = the array handle + its offset.
 *   memsets: cuMemsetD8/D16/D32 (dst, value, width = element count,
 *     elem_size = 1/2/4, size = bytes); cuMemsetD2D* (+ pitch = dst pitch,
 *     height); *Async forms + stream.
 *   streams, events: cuStreamCreate (handle out, flags);
 *     cuStreamCreateWithPriority (+ priority); cuStreamDestroy,
 *     cuStreamSynchronize, cuStreamQuery (stream); cuStreamWaitEvent
 *     (stream, event, flags); cuStreamBeginCapture (stream, flags = mode;
 *     cuStreamBeginCaptureToGraph too, with parent = the graph the
 *     capture's work goes into and deps = the nodes it follows, packed as
 *     a node call's);
 *     cuStreamEndCapture (stream, handle = graph out); cuEventCreate
 *     (event out, flags); cuEventDestroy, cuEventSynchronize, cuEventQuery
 *     (event); cuEventRecord, cuEventRecordWithFlags (event, stream,
 *     flags).
 *   front-end records:
 *     keyframe: the payload of the SBT_TYPE_KEYFRAME marker (not a type of
 *       its own): count = tsSnapshot records that follow, sub = SBT_CM_KF_* (why
 *       it was taken), value = the ordinal of the launch it brackets (1 =
 *       the program's first launch), stream = the launch's stream, flags =
 *       SBT_CM_KF_PARTIAL when it holds only the memory replay cannot
 *       rebuild from the recorded calls (allocations made before recording
 *       began, managed memory): replay applies it where it stands, but a
 *       --range cannot start from it; SBT_CM_KF_ARRAYS when it holds
 *       every CUDA array live there (without it, a keyframe where an array
 *       is live is no start point either); note = set when the keyframe
 *       was taken without waiting for every stream (a stream memory wait
 *       held one past the bound): what it says was not waited for, and
 *       tsreplay prints it once; such a keyframe proves no write set.
 *     tsSnapshot: one live allocation of the keyframe before it, or one
 *       chunk of it (capture writes allocations in chunks of at most 32
 *       MiB): dst = the address, size, blob = its bytes, or value = 1 and
 *       no blob for bytes that were all zero; sub = SBT_CM_MEM_* kind.
 *       sub = SBT_CM_MEM_ARRAY: rows of a CUDA array instead: handle =
 *       the array, dst_y = the first row, dst_z = the slice (layer), height
 *       = rows, width = bytes per row (the whole row), size = width x
 *       height; the bytes as they lie in the row (elements packed).
 *     tsVaWindow: the device address window capture placed device
 *       allocations in (device = ordinal, dst = base, size), written when
 *       it is reserved, before the first allocation placed in it.  HIP
 *       capture writes it as hip.tsVaWindow (SBT_CM_HIP_LIST), and its
 *       keyframes' snapshot records as hip.tsSnapshot.
 *       The `count` tsSnapshot records after a marker belong to it (other
 *       threads' records may come between them; keyframes never overlap).
 *
 * Threading: everything here is reentrant; the tables are read-only.
 */
#ifndef TRACESMITH_SBT_COMPUTE_H
#define TRACESMITH_SBT_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- kinds and record types -------------------------------------------- */

#define SBT_CM_TYPE_BASE 0x2000u
#define SBT_CM_API_CUDA "cuda" /* trace meta "api"; record name prefix */

/* Append only: the position is the type number. */
#define SBT_CM_KIND_LIST(X)                                                    \
	X(cuInit) X(cuDeviceGet) X(cuCtxCreate) X(cuCtxDestroy) X(cuCtxSetCurrent) \
	X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuCtxSynchronize)                 \
	X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                   \
	X(cuDevicePrimaryCtxReset)                                                 \
	X(cuModuleLoad) X(cuModuleLoadData) X(cuModuleLoadDataEx)                  \
	X(cuModuleLoadFatBinary) X(cuModuleUnload) X(cuModuleGetFunction)          \
	X(cuModuleGetGlobal) X(cuLibraryLoadData) X(cuLibraryLoadFromFile)         \
	X(cuLibraryUnload) X(cuLibraryGetKernel) X(cuLibraryGetModule)             \
	X(cuLibraryGetGlobal) X(cuKernelGetFunction)                               \
	X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuLaunchCooperativeKernel)         \
	X(cuGraphLaunch) X(cuLaunchHostFunc)                                       \
	X(cuMemAlloc) X(cuMemAllocPitch) X(cuMemAllocAsync)                        \
	X(cuMemAllocFromPoolAsync) X(cuMemAllocManaged) X(cuMemAllocHost)          \
	X(cuMemHostAlloc) X(cuMemHostRegister) X(cuMemFree) X(cuMemFreeAsync)      \
	X(cuMemFreeHost) X(cuMemHostUnregister) X(cuMemCreate) X(cuMemRelease)     \
	X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemMap) X(cuMemUnmap)       \
	X(cuMemSetAccess)                                                          \
	X(cuMemcpy) X(cuMemcpyAsync) X(cuMemcpyHtoD) X(cuMemcpyHtoDAsync)          \
	X(cuMemcpyDtoH) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoD) X(cuMemcpyDtoDAsync)  \
	X(cuMemcpyPeer) X(cuMemcpyPeerAsync) X(cuMemcpy2D) X(cuMemcpy2DUnaligned)  \
	X(cuMemcpy2DAsync) X(cuMemcpy3D) X(cuMemcpy3DAsync)                        \
	X(cuMemsetD8) X(cuMemsetD16) X(cuMemsetD32) X(cuMemsetD2D8)                \
	X(cuMemsetD2D16) X(cuMemsetD2D32) X(cuMemsetD8Async) X(cuMemsetD16Async)   \
	X(cuMemsetD32Async) X(cuMemsetD2D8Async) X(cuMemsetD2D16Async)             \
	X(cuMemsetD2D32Async)                                                      \
	X(cuStreamCreate) X(cuStreamCreateWithPriority) X(cuStreamDestroy)         \
	X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent)               \
	X(cuStreamBeginCapture) X(cuStreamEndCapture)                              \
	X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                        \
	X(cuEventRecordWithFlags) X(cuEventSynchronize) X(cuEventQuery)            \
	X(tsSnapshot)                                                              \
	X(tsVaWindow) X(cuKernelSetAttribute) X(cuFuncSetAttribute)                \
	X(cuGraphInstantiate) X(cuGraphExecDestroy) X(cuGraphDestroy)            \
	X(cuTexObjectCreate) X(cuTexObjectDestroy) X(cuSurfObjectCreate)         \
	X(cuSurfObjectDestroy) X(cuArrayCreate) X(cuArray3DCreate) X(cuArrayDestroy) \
	X(cuMemcpyHtoA) X(cuMemcpyAtoH) X(cuMemcpyAtoD) X(cuMemcpyDtoA)          \
	X(cuMemcpyAtoA) X(cuMemcpyHtoAAsync) X(cuMemcpyAtoHAsync)              \
	X(cuGraphCreate) X(cuGraphAddKernelNode) X(cuGraphAddMemcpyNode)         \
	X(cuGraphAddMemsetNode) X(cuGraphAddEmptyNode) X(cuGraphAddEventRecordNode) \
	X(cuGraphAddEventWaitNode) X(cuGraphAddDependencies) X(tsGraphNotModeled) \
	X(cuGraphKernelNodeSetParams) X(cuGraphExecKernelNodeSetParams)         \
	X(cuGraphDestroyNode) X(cuGraphRemoveDependencies) X(tsGraphHostSource)   \
	X(cuGraphAddChildGraphNode) X(cuGraphClone) X(cuGraphNodeFindInClone)     \
	X(cuGraphNodeSetEnabled) X(cuGraphAddHostNode)                            \
	X(cuGraphMemcpyNodeSetParams) X(cuGraphExecMemcpyNodeSetParams)           \
	X(cuGraphMemsetNodeSetParams) X(cuGraphExecMemsetNodeSetParams)           \
	X(cuGraphEventRecordNodeSetEvent) X(cuGraphEventWaitNodeSetEvent)         \
	X(cuGraphExecEventRecordNodeSetEvent) X(cuGraphExecEventWaitNodeSetEvent) \
	X(cuGraphExecUpdate) X(cuGraphChildGraphNodeGetGraph)                     \
	X(cuGraphAddMemAllocNode) X(cuGraphAddMemFreeNode)                        \
	X(cuGraphKernelNodeSetAttribute) X(cuGraphKernelNodeCopyAttributes)       \
	X(cuGraphAddBatchMemOpNode) X(cuGraphBatchMemOpNodeSetParams)             \
	X(cuGraphExecBatchMemOpNodeSetParams) X(cuStreamWriteValue32)             \
	X(cuStreamWriteValue64) X(cuStreamWaitValue32) X(cuStreamWaitValue64)     \
	X(cuStreamBatchMemOp)

/* X(HIP runtime call, kind it records as).  Append only: the position is
 * the type number above SBT_CM_HIP_TYPE_BASE. */
#define SBT_CM_API_HIP "hip"
#define SBT_CM_HIP_TYPE_BASE 0x3000u
#define SBT_CM_HIP_LIST(X)                                                     \
	X(__hipRegisterFatBinary, cuModuleLoadFatBinary)                           \
	X(__hipRegisterFunction, cuModuleGetFunction)                              \
	X(__hipRegisterVar, cuModuleGetGlobal)                                     \
	X(__hipUnregisterFatBinary, cuModuleUnload)                                \
	X(hipInit, cuInit) X(hipSetDevice, cuCtxSetCurrent)                        \
	X(hipDeviceSynchronize, cuCtxSynchronize)                                  \
	X(hipDeviceReset, cuDevicePrimaryCtxReset)                                 \
	X(hipModuleLoad, cuModuleLoad) X(hipModuleLoadData, cuModuleLoadData)      \
	X(hipModuleLoadDataEx, cuModuleLoadDataEx)                                 \
	X(hipModuleUnload, cuModuleUnload)                                         \
	X(hipModuleGetFunction, cuModuleGetFunction)                               \
	X(hipModuleGetGlobal, cuModuleGetGlobal)                                   \
	X(hipLaunchKernel, cuLaunchKernel)                                         \
	X(hipModuleLaunchKernel, cuLaunchKernel)                                   \
	X(hipExtModuleLaunchKernel, cuLaunchKernel)                                \
	X(hipLaunchCooperativeKernel, cuLaunchCooperativeKernel)                   \
	X(hipLaunchHostFunc, cuLaunchHostFunc)                                     \
	X(hipGraphLaunch, cuGraphLaunch) X(hipGraphInstantiate, cuGraphInstantiate) \
	X(hipGraphExecDestroy, cuGraphExecDestroy) X(hipGraphDestroy, cuGraphDestroy) \
	X(hipMalloc, cuMemAlloc) X(hipMallocPitch, cuMemAllocPitch)                \
	X(hipMallocAsync, cuMemAllocAsync) X(hipMallocManaged, cuMemAllocManaged)  \
	X(hipHostMalloc, cuMemHostAlloc) X(hipHostRegister, cuMemHostRegister)     \
	X(hipFree, cuMemFree) X(hipFreeAsync, cuMemFreeAsync)                      \
	X(hipHostFree, cuMemFreeHost) X(hipHostUnregister, cuMemHostUnregister)    \
	X(hipMemcpy, cuMemcpy) X(hipMemcpyAsync, cuMemcpyAsync)                    \
	X(hipMemcpyHtoD, cuMemcpyHtoD) X(hipMemcpyHtoDAsync, cuMemcpyHtoDAsync)    \
	X(hipMemcpyDtoH, cuMemcpyDtoH) X(hipMemcpyDtoHAsync, cuMemcpyDtoHAsync)    \
	X(hipMemcpyDtoD, cuMemcpyDtoD) X(hipMemcpyDtoDAsync, cuMemcpyDtoDAsync)    \
	X(hipMemcpyToSymbol, cuMemcpy) X(hipMemcpyToSymbolAsync, cuMemcpyAsync)    \
	X(hipMemcpyFromSymbol, cuMemcpy)                                           \
	X(hipMemcpyFromSymbolAsync, cuMemcpyAsync)                                 \
	X(hipMemset, cuMemsetD8) X(hipMemsetAsync, cuMemsetD8Async)                \
	X(hipMemsetD8, cuMemsetD8) X(hipMemsetD16, cuMemsetD16)                    \
	X(hipMemsetD32, cuMemsetD32) X(hipMemsetD8Async, cuMemsetD8Async)          \
	X(hipMemsetD16Async, cuMemsetD16Async) X(hipMemsetD32Async, cuMemsetD32Async) \
	X(hipStreamCreate, cuStreamCreate) X(hipStreamCreateWithFlags, cuStreamCreate) \
	X(hipStreamCreateWithPriority, cuStreamCreateWithPriority)                 \
	X(hipStreamDestroy, cuStreamDestroy)                                       \
	X(hipStreamSynchronize, cuStreamSynchronize) X(hipStreamQuery, cuStreamQuery) \
	X(hipStreamWaitEvent, cuStreamWaitEvent)                                   \
	X(hipStreamBeginCapture, cuStreamBeginCapture)                             \
	X(hipStreamEndCapture, cuStreamEndCapture)                                 \
	X(hipEventCreate, cuEventCreate) X(hipEventCreateWithFlags, cuEventCreate) \
	X(hipEventDestroy, cuEventDestroy) X(hipEventRecord, cuEventRecord)        \
	X(hipEventSynchronize, cuEventSynchronize) X(hipEventQuery, cuEventQuery)   \
	X(__hipPushCallConfiguration, cuLaunchKernel)                              \
	X(hipMemcpy2D, cuMemcpy2D) X(hipMemcpy2DAsync, cuMemcpy2DAsync)            \
	X(hipMemcpyPeer, cuMemcpyPeer) X(hipMemcpyPeerAsync, cuMemcpyPeerAsync)    \
	X(hipMemset2D, cuMemsetD2D8) X(hipMemset2DAsync, cuMemsetD2D8Async)       \
	X(hipMemcpy3D, cuMemcpy3D) X(hipMemcpy3DAsync, cuMemcpy3DAsync)            \
	X(hipMemcpyParam2D, cuMemcpy2D) X(hipMemcpyParam2DAsync, cuMemcpy2DAsync)  \
	X(hipMemset3D, cuMemsetD2D8) X(hipMemset3DAsync, cuMemsetD2D8Async)     \
	X(tsVaWindow, tsVaWindow) X(tsSnapshot, tsSnapshot)                        \
	X(hipMallocFromPoolAsync, cuMemAllocFromPoolAsync)                         \
	X(hipMallocArray, cuArrayCreate) X(hipArrayCreate, cuArrayCreate)          \
	X(hipArray3DCreate, cuArray3DCreate) X(hipFreeArray, cuArrayDestroy)       \
	X(hipArrayDestroy, cuArrayDestroy)                                         \
	X(hipMemcpy2DToArray, cuMemcpy2D) X(hipMemcpy2DToArrayAsync, cuMemcpy2DAsync) \
	X(hipMemcpy2DFromArray, cuMemcpy2D)                                        \
	X(hipMemcpy2DFromArrayAsync, cuMemcpy2DAsync)                              \
	X(hipMemcpyToArray, cuMemcpy2D) X(hipMemcpyFromArray, cuMemcpy2D)          \
	X(hipMalloc3DArray, cuArray3DCreate)                                       \
	X(hipMallocMipmappedArray, cuArray3DCreate)                                \
	X(hipFreeMipmappedArray, cuArrayDestroy)                                   \
	X(hipGetMipmappedArrayLevel, cuArrayCreate)                                \
	X(hipCtxCreate, cuCtxCreate) X(hipCtxDestroy, cuCtxDestroy)                \
	X(hipCtxSetCurrent, cuCtxSetCurrent)                                       \
	X(hipCtxGetCurrent, cuDevicePrimaryCtxRetain)                              \
	X(hipCtxPushCurrent, cuCtxPushCurrent) X(hipCtxPopCurrent, cuCtxPopCurrent) \
	X(hipDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)                     \
	X(hipDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease)                   \
	X(hipCtxGetDevice, cuDeviceGet)                                           \
	X(hipGraphCreate, cuGraphCreate)                                           \
	X(hipGraphAddKernelNode, cuGraphAddKernelNode)                             \
	X(hipGraphAddMemcpyNode, cuGraphAddMemcpyNode)                             \
	X(hipGraphAddMemcpyNode1D, cuGraphAddMemcpyNode)                           \
	X(hipGraphAddMemsetNode, cuGraphAddMemsetNode)                             \
	X(hipGraphAddEmptyNode, cuGraphAddEmptyNode)                               \
	X(hipGraphAddDependencies, cuGraphAddDependencies)                         \
	X(hipGraphInstantiateWithFlags, cuGraphInstantiate)                        \
	X(hipMipmappedArrayCreate, cuArray3DCreate)                                \
	X(hipMipmappedArrayGetLevel, cuArrayCreate)                                \
	X(hipMipmappedArrayDestroy, cuArrayDestroy)                                \
	X(tsGraphNotModeled, tsGraphNotModeled)                                    \
	X(hipGraphKernelNodeSetParams, cuGraphKernelNodeSetParams)                 \
	X(hipGraphDestroyNode, cuGraphDestroyNode)                                 \
	X(hipGraphRemoveDependencies, cuGraphRemoveDependencies)                   \
	X(hipGraphAddChildGraphNode, cuGraphAddChildGraphNode)                     \
	X(hipGraphExecKernelNodeSetParams, cuGraphExecKernelNodeSetParams)         \
	X(hipGraphExecMemcpyNodeSetParams, cuGraphExecMemcpyNodeSetParams)         \
	X(hipGraphExecMemcpyNodeSetParams1D, cuGraphExecMemcpyNodeSetParams)       \
	X(hipGraphExecMemsetNodeSetParams, cuGraphExecMemsetNodeSetParams)         \
	X(hipGraphExecUpdate, cuGraphExecUpdate)                                   \
	X(hipMemAddressReserve, cuMemAddressReserve)                               \
	X(hipMemAddressFree, cuMemAddressFree) X(hipMemCreate, cuMemCreate)        \
	X(hipMemRelease, cuMemRelease) X(hipMemMap, cuMemMap)                      \
	X(hipMemUnmap, cuMemUnmap) X(hipMemSetAccess, cuMemSetAccess)

typedef enum sbt_cm_kind {
#define SBT_CM_X_KIND(n) SBT_CM_K_##n,
	SBT_CM_KIND_LIST(SBT_CM_X_KIND)
#undef SBT_CM_X_KIND
	SBT_CM_KIND_COUNT
} sbt_cm_kind;

#define SBT_CM_TYPE(kind) (SBT_CM_TYPE_BASE + (uint32_t)(kind))

typedef enum sbt_cm_hip_call {
#define SBT_CM_X_HIP(n, kind) SBT_CM_HIP_##n,
	SBT_CM_HIP_LIST(SBT_CM_X_HIP)
#undef SBT_CM_X_HIP
	SBT_CM_HIP_COUNT
} sbt_cm_hip_call;

#define SBT_CM_HIP_TYPE(call) (SBT_CM_HIP_TYPE_BASE + (uint32_t)(call))

/* "cuLaunchKernel"; NULL when out of range. */
const char *sbt_cm_kind_name(sbt_cm_kind k);
/* "cuda.cuLaunchKernel"; NULL when out of range. */
const char *sbt_cm_type_name(sbt_cm_kind k);
/* Accepts "cuLaunchKernel", "cuda.cuLaunchKernel" or a HIP record's name
 * ("hip.hipLaunchKernel": the kind it maps onto); 0, or -1 if unknown. */
int sbt_cm_kind_by_name(const char *name, sbt_cm_kind *kind_out);
/* HIP: "hipMalloc"; "hip.hipMalloc"; the kind it records as (NULL / -1
 * when out of range). */
const char *sbt_cm_hip_name(sbt_cm_hip_call call);
const char *sbt_cm_hip_type_name(sbt_cm_hip_call call);
int sbt_cm_hip_kind(sbt_cm_hip_call call, sbt_cm_kind *kind_out);

/* Every record type of the model, field-for-field like capture's
 * cap_type_desc (for cap_register_api / sbt_writer_define_type). */
typedef struct sbt_cm_type_desc {
	uint32_t type;
	const char *name;
} sbt_cm_type_desc;
const sbt_cm_type_desc *sbt_cm_types(size_t *count_out);
/* The HIP record types, the same way. */
const sbt_cm_type_desc *sbt_cm_hip_types(size_t *count_out);
/* Name them all on w (tests and tools writing traces directly). */
sbt_status sbt_cm_define_types(sbt_writer *w);

/* ---- sub-kinds ----------------------------------------------------------- */

enum { /* sub of allocations, frees and tsSnapshot */
	SBT_CM_MEM_DEVICE = 1, SBT_CM_MEM_PITCH = 2, SBT_CM_MEM_ASYNC = 3,
	SBT_CM_MEM_POOL = 4, SBT_CM_MEM_MANAGED = 5, SBT_CM_MEM_HOST = 6,
	SBT_CM_MEM_HOST_ALLOC = 7, SBT_CM_MEM_HOST_REGISTER = 8,
	SBT_CM_MEM_VMM_HANDLE = 9, SBT_CM_MEM_VMM_RESERVE = 10,
	SBT_CM_MEM_VMM_MAP = 11, SBT_CM_MEM_GLOBAL = 12,
	SBT_CM_MEM_ARRAY = 13 /* tsSnapshot only: rows of a CUDA array */
};
enum { /* sub of copies */
	SBT_CM_COPY_HTOD = 1, SBT_CM_COPY_DTOH = 2, SBT_CM_COPY_DTOD = 3,
	SBT_CM_COPY_HTOH = 4, SBT_CM_COPY_ARRAY = 5 /* an array on either side */
};
enum { /* sub of module and library loads */
	SBT_CM_IMAGE_UNKNOWN = 0, SBT_CM_IMAGE_ELF = 1, SBT_CM_IMAGE_FATBIN = 2,
	SBT_CM_IMAGE_PTX = 3,
	SBT_CM_IMAGE_WRAPPER = 4, /* only from sbt_cm_image_size: a fatbin wrapper (below) */
	/* HIP (serializer/amdgpu/sbt_amd.h says how each is sized) */
	SBT_CM_IMAGE_HIP_BUNDLE = 5,     /* clang offload bundle */
	SBT_CM_IMAGE_HIP_COMPRESSED = 6, /* compressed offload bundle (CCOB) */
	SBT_CM_IMAGE_AMDGPU = 7          /* one AMDGPU code object (ELF) */
};
enum { /* sub of launches */
	SBT_CM_FUNC_FUNCTION = 0, SBT_CM_FUNC_KERNEL = 1
};
enum { /* sub of the keyframe marker */
	SBT_CM_KF_START = 1, SBT_CM_KF_BEFORE_LAUNCH = 2, SBT_CM_KF_AFTER_LAUNCH = 3,
	SBT_CM_KF_EVERY = 4,
	SBT_CM_KF_HOST_INPUTS = 5 /* pinned host memory a launch's parameters point
	                             into, as the CPU left it before the launch */
};
enum { /* flags of the keyframe marker */
	SBT_CM_KF_PARTIAL = 1, /* only what replay cannot recompute: not a start point */
	SBT_CM_KF_ARRAYS = 2   /* holds every CUDA array live at it (tsSnapshot sub ARRAY) */
};

#define SBT_CM_ATTR_BYTES 72u   /* one packed launch attribute */
#define SBT_CM_JIT_BYTES 16u    /* one packed JIT option */
#define SBT_CM_LAYOUT_BYTES 8u  /* one packed (offset, size) pair */

/* ---- fields -------------------------------------------------------------- */

/* X(tag, member, wire): U varint, S zigzag, B bytes.  Append only. */
#define SBT_CM_FIELD_LIST(X)                                                   \
	X(1, result, U) X(2, ctx, U) X(3, device, S) X(4, flags, U)                \
	X(5, handle, U) X(6, parent, U) X(7, name, B) X(8, dst, U) X(9, src, U)    \
	X(10, size, U) X(11, pitch, U) X(12, width, U) X(13, height, U)            \
	X(14, depth, U) X(15, elem_size, U) X(16, stream, U) X(17, event, U)       \
	X(18, blob, U) X(19, value, U) X(20, priority, S) X(21, grid_x, U)         \
	X(22, grid_y, U) X(23, grid_z, U) X(24, block_x, U) X(25, block_y, U)      \
	X(26, block_z, U) X(27, shared_mem, U) X(28, params, B) X(29, layout, B)   \
	X(30, extra, B) X(31, attrs, B) X(32, capture_status, U)                   \
	X(33, capture_id, U) X(34, host, U) X(35, offset, U) X(36, sub, U)         \
	X(37, pool, U) X(38, align, U) X(39, ptds, U) X(40, count, U)              \
	X(41, src_ctx, U) X(42, dst_type, U) X(43, src_type, U) X(44, dst_x, U)    \
	X(45, dst_y, U) X(46, dst_z, U) X(47, src_x, U) X(48, src_y, U)            \
	X(49, src_z, U) X(50, dst_pitch, U) X(51, src_pitch, U)                    \
	X(52, dst_height, U) X(53, src_height, U) X(54, note, B)                   \
	X(55, attr, U) X(56, ivalue, S) X(57, jit, B) X(58, prelinked, B)         \
	X(59, res_desc, B) X(60, tex_desc, B) X(61, view_desc, B)                 \
	X(62, format, U) X(63, channels, U) X(64, node, U) X(65, deps, B)        \
	X(66, deps_to, B)

#define SBT_CM_MEMBER_U(name) uint64_t name;
#define SBT_CM_MEMBER_S(name) int64_t name;
#define SBT_CM_MEMBER_B(name) const uint8_t *name; size_t name##_len;

/*
 * One call.  Byte fields are borrowed: on encode from the caller, on decode
 * pointers into the payload (valid while it is).  Zero-initialise
 * (sbt_cm_call_init) and set what the kind carries.
 */
typedef struct sbt_cm_call {
#define SBT_CM_X_MEMBER(tag, name, wire) SBT_CM_MEMBER_##wire(name)
	SBT_CM_FIELD_LIST(SBT_CM_X_MEMBER)
#undef SBT_CM_X_MEMBER
} sbt_cm_call;

void sbt_cm_call_init(sbt_cm_call *c);

/* Name of the field with this tag ("grid_x"); NULL if unknown. */
const char *sbt_cm_field_name(unsigned tag);

/* ---- codec ---------------------------------------------------------------- */

/* Bytes that sbt_cm_encode may write for c (an upper bound). */
size_t sbt_cm_encoded_max(const sbt_cm_call *c);
/* Encode c into buf (cap bytes; sbt_cm_encoded_max is always enough).
 * SBT_ERR_ARG when it does not fit or a packed array has a bad length. */
sbt_status sbt_cm_encode(const sbt_cm_call *c, uint8_t *buf, size_t cap, size_t *len_out);
/* Decode a payload into c (see PAYLOAD above for what is refused, and
 * what no encoder writes: packed arrays of partial entries, a name or note
 * with a NUL inside): SBT_OK or SBT_ERR_CORRUPT, and then c is all zero. */
sbt_status sbt_cm_decode(const uint8_t *p, size_t len, sbt_cm_call *c);

/* Packed arrays of a decoded (or filled) call. */
size_t sbt_cm_layout_count(const sbt_cm_call *c);
void sbt_cm_layout_at(const sbt_cm_call *c, size_t i, uint32_t *offset_out, uint32_t *size_out);
size_t sbt_cm_attr_count(const sbt_cm_call *c);
/* value_out: pointer to the 64 value bytes (borrowed). */
void sbt_cm_attr_at(const sbt_cm_call *c, size_t i, uint32_t *id_out, const uint8_t **value_out);
/* Write one (offset, size) pair / one attribute into packed storage. */
void sbt_cm_layout_put(uint8_t *dst, uint32_t offset, uint32_t size);
void sbt_cm_attr_put(uint8_t *dst, uint32_t id, const void *value64);

/*
 * Check that a launch's parameter fields agree: every layout entry lies
 * inside params (offset + size <= params_len, no overflow).  0 when they
 * do or when the call has no layout; -1 otherwise.
 */
int sbt_cm_check_params(const sbt_cm_call *c);

/* Module images: the length of the image at p (at most max bytes are
 * read; max = SIZE_MAX trusts the image) from its own header: ELF (end of
 * the section or program header table, or of the last section), fatbin
 * (header size + body size), PTX (text up to its NUL, included).  Writes
 * the SBT_CM_IMAGE_* kind; 0 when the image is not recognised.  A fatbin
 * wrapper (SBT_CM_FATBIN_WRAPPER_MAGIC) is SBT_CM_IMAGE_WRAPPER with
 * length SBT_CM_FATBIN_WRAPPER_BYTES: it holds pointers, so the caller
 * follows sbt_cm_wrapper_fatbin to the image itself. */
size_t sbt_cm_image_size(const void *p, size_t max, unsigned *kind_out);

/*
 * The fatbin wrapper cudart hands to cuLibraryLoadData / cuModuleLoadData
 * (measured on CUDA 13, ../shared/gpu-fixtures fact 5): u32 magic, u32
 * version (1, or 2 for -rdc builds), u64 pointer to the fatbin, u64
 * pointer to the file name (version 1) or to the list of prelinked
 * fatbins (version 2: a NULL-terminated array of fatbin pointers, one per
 * object linked with -rdc, filled by cudart's __cudaRegisterLinkedBinary
 * before the load; read from an nvcc 13.0 -rdc build).  Only ever read in
 * the process that made it.
 */
#define SBT_CM_FATBIN_WRAPPER_MAGIC 0x466243b1u
#define SBT_CM_FATBIN_WRAPPER_BYTES 24u
#define SBT_CM_FATBIN_MAGIC 0xBA55ED50u
/* The fatbin the wrapper at p points to (NULL when p is not a wrapper). */
const void *sbt_cm_wrapper_fatbin(const void *p, unsigned *version_out);
/* A version 2 wrapper's list of prelinked fatbins (NULL-terminated);
 * NULL for any other wrapper. */
const void *const *sbt_cm_wrapper_prelinked(const void *p);

/* ---- text ------------------------------------------------------------------ */

/* Register a decoder for every model record type on a tsinfo dump table
 * (serializer/sbt_dump.h): each present field as name=value. */
struct sbt_dump;
sbt_status sbt_cm_dump_register(struct sbt_dump *d);

#ifdef __cplusplus
}
#endif
#endif /* TRACESMITH_SBT_COMPUTE_H */
