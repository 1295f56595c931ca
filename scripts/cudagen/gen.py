#!/usr/bin/env python3
"""Generate the CUDA interposer's pass-through wrappers and name tables.

Reads the toolkit's cuda.h, cudaProfiler.h (cuProfilerStart/Stop and the
deprecated cuProfilerInitialize, exported by the driver but declared
outside cuda.h) and their cudaTypedefs.h / cudaProfilerTypedefs.h
(CUDA_INC, default /usr/local/cuda/include) and writes
interpose/cuda/generated/tcu_gen.{h,c}:

- one exported wrapper per driver entry point, every variant kept distinct:
  the default names of the `#define cuX cuX_v2` table, their per-thread
  stream forms (_ptds/_ptsz, from __CUDA_API_PTDS/__CUDA_API_PTSZ and the
  __CUDA_API_PER_THREAD_DEFAULT_STREAM section) and the legacy forms that
  cuda.h declares only under __CUDA_API_VERSION_INTERNAL;
- for the calls the compute model covers (MODELED below, the one place the
  hand-written exceptions are listed) the wrapper forwards to the
  hand-written tcu_m_<name>(id, args...); every other wrapper counts the
  call and passes it through;
- the tables cuGetProcAddress needs: names sorted by base name, and the
  PFN_cuX_vNNNN[_ptds|_ptsz] versions of cudaTypedefs.h mapped to the
  exported variant each one names.

The output depends only on those headers: rerunning changes nothing.
"""
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INC = os.environ.get("CUDA_INC", "/usr/local/cuda/include")
# CUDAGEN_OUT: write elsewhere (the regeneration test compares the two).
OUT = os.environ.get("CUDAGEN_OUT") or os.path.join(TOP, "interpose", "cuda", "generated")

# Calls recorded by hand-written code (interpose/cuda/tcu_model*.c), by the
# name of the variant whose parameter list the hand-written function takes.
# Per-thread-stream forms of these (same parameters) share it.
MODELED = """
cuInit cuDeviceGet cuCtxCreate_v2 cuCtxCreate_v4 cuCtxDestroy_v2 cuCtxSetCurrent
cuCtxPushCurrent_v2 cuCtxPopCurrent_v2 cuCtxSynchronize cuDevicePrimaryCtxRetain
cuDevicePrimaryCtxRelease_v2 cuDevicePrimaryCtxReset_v2
cuModuleLoad cuModuleLoadData cuModuleLoadDataEx cuModuleLoadFatBinary cuModuleUnload
cuModuleGetFunction cuModuleGetGlobal_v2 cuLibraryLoadData cuLibraryLoadFromFile
cuLibraryUnload cuLibraryGetKernel cuLibraryGetModule cuLibraryGetGlobal cuKernelGetFunction
cuLaunchKernel cuLaunchKernelEx cuLaunchCooperativeKernel cuGraphLaunch cuLaunchHostFunc
cuMemAlloc_v2 cuMemAllocPitch_v2 cuMemAllocAsync cuMemAllocFromPoolAsync cuMemAllocManaged
cuMemAllocHost_v2 cuMemHostAlloc cuMemHostRegister_v2 cuMemFree_v2 cuMemFreeAsync
cuMemFreeHost cuMemHostUnregister cuMemCreate cuMemRelease cuMemAddressReserve
cuMemAddressFree cuMemMap cuMemUnmap cuMemSetAccess
cuMemcpy cuMemcpyAsync cuMemcpyHtoD_v2 cuMemcpyHtoDAsync_v2 cuMemcpyDtoH_v2
cuMemcpyDtoHAsync_v2 cuMemcpyDtoD_v2 cuMemcpyDtoDAsync_v2 cuMemcpyPeer cuMemcpyPeerAsync
cuMemcpy2D_v2 cuMemcpy2DUnaligned_v2 cuMemcpy2DAsync_v2 cuMemcpy3D_v2 cuMemcpy3DAsync_v2
cuMemsetD8_v2 cuMemsetD16_v2 cuMemsetD32_v2 cuMemsetD2D8_v2 cuMemsetD2D16_v2
cuMemsetD2D32_v2 cuMemsetD8Async cuMemsetD16Async cuMemsetD32Async cuMemsetD2D8Async
cuMemsetD2D16Async cuMemsetD2D32Async
cuStreamCreate cuStreamCreateWithPriority cuStreamDestroy_v2 cuStreamSynchronize
cuStreamQuery cuStreamWaitEvent cuStreamBeginCapture_v2 cuStreamEndCapture
cuEventCreate cuEventDestroy_v2 cuEventRecord cuEventRecordWithFlags cuEventSynchronize
cuEventQuery
cuGetProcAddress cuGetProcAddress_v2 cuGetExportTable
cuStreamBeginCapture cuStreamBeginCaptureToGraph
cuCtxSynchronize_v2 cuCtxGetCurrent cuKernelSetAttribute cuFuncSetAttribute
cuGraphInstantiateWithFlags cuGraphInstantiateWithParams cuGraphExecDestroy cuGraphDestroy
cuMemGetAddressRange_v2 cuPointerGetAttribute cuPointerGetAttributes cuIpcGetMemHandle
cuTexObjectCreate cuTexObjectDestroy cuSurfObjectCreate cuSurfObjectDestroy
cuArrayCreate_v2 cuArray3DCreate_v2 cuArrayDestroy
cuMemcpyHtoA_v2 cuMemcpyAtoH_v2 cuMemcpyAtoD_v2 cuMemcpyDtoA_v2 cuMemcpyAtoA_v2
cuMemcpyHtoAAsync_v2 cuMemcpyAtoHAsync_v2
cuDevicePrimaryCtxRelease cuDevicePrimaryCtxReset
cuProfilerStart cuProfilerStop
cuGraphCreate cuGraphAddKernelNode cuGraphAddKernelNode_v2 cuGraphAddMemcpyNode
cuGraphAddMemsetNode cuGraphAddEmptyNode cuGraphAddEventRecordNode cuGraphAddEventWaitNode
cuGraphAddHostNode cuGraphAddChildGraphNode cuGraphAddMemAllocNode cuGraphAddMemFreeNode
cuGraphAddDependencies cuGraphAddDependencies_v2 cuGraphAddNode cuGraphAddNode_v2
cuGraphKernelNodeSetParams cuGraphKernelNodeSetParams_v2
cuGraphExecKernelNodeSetParams cuGraphExecKernelNodeSetParams_v2
cuGraphAddExternalSemaphoresSignalNode cuGraphAddExternalSemaphoresWaitNode cuGraphAddBatchMemOpNode
cuGraphDestroyNode cuGraphRemoveDependencies cuGraphRemoveDependencies_v2 cuGraphClone
cuGraphMemcpyNodeSetParams cuGraphMemsetNodeSetParams cuGraphHostNodeSetParams cuGraphNodeSetParams
cuGraphEventRecordNodeSetEvent cuGraphEventWaitNodeSetEvent cuGraphKernelNodeSetAttribute
cuGraphKernelNodeCopyAttributes cuGraphExternalSemaphoresSignalNodeSetParams
cuGraphExternalSemaphoresWaitNodeSetParams cuGraphBatchMemOpNodeSetParams
cuGraphExecMemcpyNodeSetParams cuGraphExecMemsetNodeSetParams cuGraphExecHostNodeSetParams
cuGraphExecChildGraphNodeSetParams cuGraphExecEventRecordNodeSetEvent cuGraphExecEventWaitNodeSetEvent
cuGraphExecNodeSetParams cuGraphExecUpdate cuGraphExecUpdate_v2 cuGraphNodeSetEnabled
cuGraphExecExternalSemaphoresSignalNodeSetParams cuGraphExecExternalSemaphoresWaitNodeSetParams
cuGraphExecBatchMemOpNodeSetParams cuGraphNodeFindInClone cuGraphChildGraphNodeGetGraph
cuStreamWriteValue32 cuStreamWriteValue32_v2 cuStreamWriteValue64 cuStreamWriteValue64_v2
cuStreamWaitValue32 cuStreamWaitValue32_v2 cuStreamWaitValue64 cuStreamWaitValue64_v2
cuStreamBatchMemOp cuStreamBatchMemOp_v2
""".split()

# Calls handed to hand-written code without being a compute-model record
# (they are how entry points are handed out, a private table, begin a
# stream capture, which the interposer tracks: tcu_capture.c, name a
# context the trace may not have seen made: tcu_model.c, ask about
# memory the interposer placed itself: tcu_mem.c, or open and close
# capture windows: tcu_live.c).
SPECIAL = {"cuGetProcAddress", "cuGetProcAddress_v2", "cuGetExportTable", "cuStreamBeginCapture",
           "cuCtxGetCurrent", "cuMemGetAddressRange_v2",
           "cuPointerGetAttribute", "cuPointerGetAttributes", "cuIpcGetMemHandle",
           "cuProfilerStart", "cuProfilerStop"}

# Exported entry points whose wrapper is hand-written in full (the model
# defines the exported function itself, with its recording inlined): the
# launch, the call made most often, so that it does not pass eleven
# arguments through a generated wrapper to tcu_m_<name> (tcu_model.c).
EXPORTED_BY_MODEL = {"cuLaunchKernel", "cuLaunchKernel_ptsz"}

# Headers beside cuda.h whose driver entry points are wrapped too, with
# the typedef header that gives their cuGetProcAddress versions.
EXTRA_HEADERS = (("cudaProfiler.h", "cudaProfilerTypedefs.h"),)

STREAM_SUFFIXES = ("_ptds", "_ptsz")


def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    return re.sub(r"//[^\n]*", " ", s)


def norm(s):
    return " ".join(s.split())


def split_params(p):
    p = norm(p)
    if p in ("", "void"):
        return []
    out = []
    for a in p.split(","):
        a = a.strip()
        m = re.match(r"^(.*?)(\w+)$", a)
        if not m or not m.group(1).strip():
            sys.exit("cudagen: cannot split parameter '%s'" % a)
        out.append(norm(m.group(1).replace("*", " * ")).replace("* *", "**"))
    return out


def type_text(t):
    return re.sub(r"\*\s+\*", "**", t)


def parse_cuda_h(text):
    text = strip_comments(text)
    # The legacy block: "CUDA API versioning support" under INTERNAL.
    m = re.search(r"#if defined\(__CUDA_API_VERSION_INTERNAL\)\s*\n\s*#undef cuMemHostRegister", text)
    e = text.find("#elif defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)", m.start()) if m else -1
    if not m or e < 0:
        sys.exit("cudagen: cannot find the __CUDA_API_VERSION_INTERNAL legacy block in cuda.h")
    main, legacy = text[:m.start()] + text[e:], text[m.start():e]
    # The per-thread section of the macro table.
    pm = re.search(r"#if defined\(__CUDA_API_PER_THREAD_DEFAULT_STREAM\)(.*?)#endif", main, flags=re.S)
    if not pm:
        sys.exit("cudagen: cannot find the __CUDA_API_PER_THREAD_DEFAULT_STREAM section")
    macro_re = re.compile(r"^\s*#define\s+(cu\w+)\s+(?:(__CUDA_API_PT(?:DS|SZ))\((\w+)\)|(cu\w+))\s*$", re.M)

    def macros(s):
        d = {}
        for mm in macro_re.finditer(s):
            if mm.group(2):
                d[mm.group(1)] = (mm.group(3), "_ptds" if mm.group(2).endswith("DS") else "_ptsz")
            else:
                d[mm.group(1)] = (mm.group(4), None)
        return d

    ptds_macros = macros(pm.group(1))
    top = macros(main[:pm.start()] + main[pm.end():])
    top.pop("cuGetProcAddress_v2", None)  # the inline _ptsz helper, not an export
    proto_re = re.compile(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(([^;]*?)\)\s*;")
    fns = {}  # name -> (params, legacy)

    def add(name, params, legacy):
        if name in fns:
            if fns[name][0] != params and not legacy:
                sys.exit("cudagen: %s declared with two parameter lists" % name)
            return
        fns[name] = (params, legacy)

    for pm2 in proto_re.finditer(main):
        n, params = pm2.group(1), split_params(pm2.group(2))
        d = top.get(n)
        add(d[0] if d else n, params, False)
        t = ptds_macros.get(n) or d
        if t and t[1]:
            add(t[0] + t[1], params, False)
    # Legacy typedefs, renamed into our namespace so the wrappers compile
    # against the public header.
    renames = {}
    for tm in re.finditer(r"typedef\s+unsigned\s+int\s+(\w+)\s*;", legacy):
        renames[tm.group(1)] = ("unsigned int", None)
    for tm in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{.*?\}\s*(\w+)\s*;", legacy, flags=re.S):
        renames[tm.group(2)] = (None, tm.group(1))
    for pm2 in proto_re.finditer(legacy):
        params = []
        for t in split_params(pm2.group(2)):
            for old, (plain, tag) in renames.items():
                t = re.sub(r"\b%s\b" % old, plain if plain else "struct tcu_legacy_" + tag, t)
            params.append(t)
        add(pm2.group(1), params, True)
    return fns, renames, sorted(top)


def base_of(name):
    b = name
    for s in STREAM_SUFFIXES:
        if b.endswith(s):
            b = b[: -len(s)]
    return re.sub(r"_v\d+$", "", b)


def stream_kind(name):
    for s in STREAM_SUFFIXES:
        if name.endswith(s):
            return 1
    return 0


def variant_rank(name):
    b = name
    for s in STREAM_SUFFIXES:
        if b.endswith(s):
            b = b[: -len(s)]
    m = re.search(r"_v(\d+)$", b)
    return int(m.group(1)) if m else 1


def parse_typedefs(text):
    text = strip_comments(text)
    out = []
    for m in re.finditer(r"typedef\s+CUresult\s*\(\s*CUDAAPI\s*\*\s*PFN_(cu\w+?)_v(\d+)(_ptds|_ptsz)?\s*\)\s*\(([^;]*?)\)\s*;", text):
        out.append((m.group(1), int(m.group(2)), 1 if m.group(3) else 0, split_params(m.group(4))))
    return out


def canon_type(t):
    t = re.sub(r"\b(CU\w+?)_v\d+\b", r"\1", t)
    t = re.sub(r"\bstruct tcu_legacy_\w+", "LEGACY", t)
    return norm(t.replace("const ", ""))


def version_table(fns, pfns):
    """(base, version, stream kind) -> exported name, by rank within the base."""
    rows, unmapped = [], []
    groups = {}
    for base, ver, sk, params in pfns:
        groups.setdefault((base, sk), []).append((ver, params))
    for (base, sk), vers in sorted(groups.items()):
        vers.sort()
        names = sorted((n for n in fns if base_of(n) == base and stream_kind(n) == sk),
                       key=variant_rank)
        if len(names) == len(vers):
            pairs = list(zip(vers, names))
        else:
            # Versions and exports do not line up one to one: pair each
            # version with the export whose parameter types match.
            pairs = []
            for ver, params in vers:
                want = [canon_type(t) for t in params]
                hits = [n for n in names if [canon_type(t) for t in fns[n][0]] == want]
                if hits:
                    pairs.append(((ver, params), hits[-1]))
                else:
                    unmapped.append("%s_v%d%s" % (base, ver, "_ptds" if sk else ""))
        for (ver, _), n in pairs:
            rows.append((base, ver, sk, n))
    return sorted(rows), unmapped


def c_params(params):
    return ", ".join("%s a%d" % (type_text(t), i) for i, t in enumerate(params)) or "void"


def c_args(params):
    return ", ".join("a%d" % i for i in range(len(params)))


def model_of(name, fns):
    """The hand-written function that takes this export, or None."""
    b = name
    for s in STREAM_SUFFIXES:
        if b.endswith(s):
            b = b[: -len(s)]
    if b in MODELED and fns[name][0] == fns[b][0]:
        return b
    return None


def main():
    if not os.path.exists(os.path.join(INC, "cuda.h")):
        print("cudagen: no cuda.h in %s (set CUDA_INC): skipped" % INC)
        return
    with open(os.path.join(INC, "cuda.h")) as f:
        fns, renames, macros = parse_cuda_h(f.read())
    with open(os.path.join(INC, "cudaTypedefs.h")) as f:
        pfns = parse_typedefs(f.read())
    for header, typedefs in EXTRA_HEADERS:
        with open(os.path.join(INC, header)) as f:
            text = strip_comments(f.read())
        for pm in re.finditer(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(([^;]*?)\)\s*;", text):
            if pm.group(1) not in fns:
                fns[pm.group(1)] = (split_params(pm.group(2)), False)
        with open(os.path.join(INC, typedefs)) as f:
            pfns += parse_typedefs(f.read())
    for m in MODELED:
        if m not in fns:
            sys.exit("cudagen: modeled call %s is not in cuda.h" % m)
    names = sorted(fns)
    vt, unmapped = version_table(fns, pfns)
    by_base = sorted(names, key=lambda n: (base_of(n), n))
    head = ("/* generated by scripts/cudagen/gen.py from cuda.h, cudaProfiler.h and their typedef "
            "headers; do not edit */\n")

    h = [head]
    h.append("""#ifndef TRACESMITH_TCU_GEN_H
#define TRACESMITH_TCU_GEN_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cudaProfiler.h>

/* Legacy parameter types cuda.h declares only for the driver itself. */
""")
    for old, (plain, tag) in sorted(renames.items()):
        if tag:
            h.append("struct tcu_legacy_%s; /* %s */\n" % (tag, old))
    h.append("\n/* Every exported entry point, variants distinct, sorted by name. */\n")
    h.append("typedef enum tcu_fn {\n")
    for n in names:
        h.append("\tTCU_FN_%s,\n" % n)
    h.append("\tTCU_FN_COUNT\n} tcu_fn;\n\n")
    h.append("/* Function pointer type of each entry point. */\n")
    for n in names:
        h.append("typedef CUresult (CUDAAPI *tcu_pfn_%s)(%s);\n" % (n, c_params(fns[n][0])))
    h.append("\n/* Hand-written recording (scripts/cudagen/gen.py MODELED); id is the\n"
             " * variant the program called. */\n")
    for m in MODELED:
        if m in EXPORTED_BY_MODEL:
            continue
        p = c_params(fns[m][0])
        h.append("CUresult tcu_m_%s(tcu_fn id%s);\n" % (m, "" if p == "void" else ", " + p))
    h.append("""
enum {
	TCU_FNF_PTDS = 1u << 0,    /* a per-thread default stream variant */
	TCU_FNF_LEGACY = 1u << 1,  /* declared only for the driver (old ABI) */
	TCU_FNF_MODELED = 1u << 2, /* recorded by hand-written code */
	TCU_FNF_SPECIAL = 1u << 3  /* hand-written, not a model record */
};

typedef struct tcu_fn_info {
	const char *name;  /* exported name, e.g. "cuMemcpyHtoD_v2_ptds" */
	const char *base;  /* without version and stream suffix: "cuMemcpyHtoD" */
	void *wrapper;     /* our exported function */
	unsigned flags;    /* TCU_FNF_* */
} tcu_fn_info;

extern const tcu_fn_info tcu_fn_table[TCU_FN_COUNT];
/* Ids sorted by (base, name), for cuGetProcAddress. */
extern const uint16_t tcu_fn_by_base[TCU_FN_COUNT];

/* cudaTypedefs.h: PFN_<base>_v<version>[_ptds|_ptsz] names export fn. */
typedef struct tcu_fn_version {
	const char *base;
	uint32_t version;
	uint16_t per_thread;
	uint16_t fn;
} tcu_fn_version;
""")
    h.append("#define TCU_FN_VERSION_COUNT %d\n" % len(vt))
    h.append("extern const tcu_fn_version tcu_fn_versions[TCU_FN_VERSION_COUNT]; /* sorted by base, version */\n")
    h.append("\n#endif /* TRACESMITH_TCU_GEN_H */\n")

    c = [head]
    c.append("""/*
 * Exported wrappers: the modeled ones forward to tcu_m_*; the others count
 * the call (tcu_call_begin) and pass it through to the driver.
 */
#define CUDA_ENABLE_DEPRECATED 1 /* deprecated calls are exported too */
#include "interpose/cuda/tcu_internal.h"

/* cuda.h maps these names onto their newest variant; here each name is
 * its own export. */
""")
    for mname in macros:
        c.append("#undef %s\n" % mname)
    c.append("\n")
    for n in names:
        params = fns[n][0]
        m = model_of(n, fns)
        if n in EXPORTED_BY_MODEL:
            c.append("/* Defined in full by the model (EXPORTED_BY_MODEL). */\n")
            c.append("CUresult CUDAAPI %s(%s);\n\n" % (n, c_params(params)))
            continue
        c.append("CUresult CUDAAPI %s(%s)\n{\n" % (n, c_params(params)))
        if m:
            args = c_args(params)
            c.append("\treturn tcu_m_%s(TCU_FN_%s%s);\n}\n\n" % (m, n, ", " + args if args else ""))
        else:
            c.append("\ttcu_pfn_%s real = (tcu_pfn_%s)tcu_call_begin(TCU_FN_%s);\n" % (n, n, n))
            c.append("\tCUresult r = real ? real(%s) : tcu_no_driver(TCU_FN_%s);\n" % (c_args(params), n))
            c.append("\ttcu_call_end();\n\treturn r;\n}\n\n")
    c.append("const tcu_fn_info tcu_fn_table[TCU_FN_COUNT] = {\n")
    for n in names:
        fl = []
        if stream_kind(n):
            fl.append("TCU_FNF_PTDS")
        if fns[n][1]:
            fl.append("TCU_FNF_LEGACY")
        m = model_of(n, fns)
        if m and m in SPECIAL:
            fl.append("TCU_FNF_SPECIAL")
        elif m:
            fl.append("TCU_FNF_MODELED")
        c.append("\t{\"%s\", \"%s\", (void *)%s, %s},\n" % (n, base_of(n), n, " | ".join(fl) or "0"))
    c.append("};\n\nconst uint16_t tcu_fn_by_base[TCU_FN_COUNT] = {\n")
    for n in by_base:
        c.append("\tTCU_FN_%s,\n" % n)
    c.append("};\n\nconst tcu_fn_version tcu_fn_versions[TCU_FN_VERSION_COUNT] = {\n")
    for base, ver, sk, n in vt:
        c.append("\t{\"%s\", %d, %d, TCU_FN_%s},\n" % (base, ver, sk, n))
    c.append("};\n")
    if unmapped:
        c.append("/* cudaTypedefs.h versions with no matching export: %s */\n" % " ".join(unmapped))

    os.makedirs(OUT, exist_ok=True)
    for fname, parts in (("tcu_gen.h", h), ("tcu_gen.c", c)):
        path = os.path.join(OUT, fname)
        data = "".join(parts)
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old != data:
            with open(path, "w") as f:
                f.write(data)
    print("cudagen: %d entry points (%d modeled), %d cudaTypedefs versions mapped, %d unmapped"
          % (len(names), sum(1 for n in names if model_of(n, fns)), len(vt), len(unmapped)))


if __name__ == "__main__":
    main()
