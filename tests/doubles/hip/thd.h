/*
 * thd.h - internals of the libamdhip64.so.5 CPU test double (prefix thd_).
 *
 * The double exists so that the HIP interposer and the HIP replay backend
 * run end to end without an AMD GPU (docs/hip.md "The test double").  It
 * is a test double, not a runtime or a simulator: everything it prints
 * starts "libamdhip64 test double:".  It follows ROCm's clr/hipamd where
 * the project depends on it:
 *   - registration: __hipRegisterFatBinary takes the 24-byte wrapper
 *     (magic 0x48495046, version 1, pointer to a clang offload bundle) and
 *     returns the handle the program passes to __hipRegisterFunction and
 *     __hipRegisterVar; functions are looked up by their host stub;
 *   - modules: hipModuleLoadData and friends take a bundle or a bare
 *     AMDGPU code object, sized from its own header (no length is
 *     passed); the code object for the double's device (gfx90a, else the
 *     first amdgcn entry) is read with serializer/amdgpu's reader: the
 *     kernels and their argument layout from the metadata note, the
 *     globals from the ELF symbol table (initial bytes from their
 *     section);
 *   - launches: hipLaunchKernel's argument pointers are packed into the
 *     kernarg segment by the metadata's offsets and sizes, as the runtime
 *     does; hipModuleLaunchKernel takes kernelParams or extra
 *     (HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE); the kernel runs as its host
 *     twin (thd_twins.c) under a fault guard, so a wild access is
 *     hipErrorIllegalAddress; a kernel with no twin runs nothing and is
 *     named once on stderr (counted: thd_ext.h).
 * Device memory is host memory from mmap (page aligned, so the virtual
 * memory calls can reserve a caller's address with MAP_FIXED_NOREPLACE).
 * Every call runs to its end before it returns: streams and events are
 * kept for their handles and for stream capture, and order is trivially
 * the program's.
 *
 * Locking: one mutex (thd_g.lock) guards the registries; kernels, copies
 * and memsets run without it.  Objects are never freed while the process
 * lives: a destroyed handle keeps its memory with a dead magic, so a stale
 * handle is reported as hipErrorInvalidHandle, not followed.
 */
#ifndef THD_H
#define THD_H

#include <hip/hip_runtime_api.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "serializer/amdgpu/sbt_amd.h"
#include "tests/doubles/hip/thd_ext.h"

#define THD_HIDDEN __attribute__((visibility("hidden")))
#define THD_EXPORT __attribute__((visibility("default")))

#define THD_LIVE 0x7468644cu /* "thdL" */
#define THD_DEAD 0x74686444u

/* ---- memory ------------------------------------------------------------- */

typedef enum thd_mem_kind {
	THD_MEM_DEVICE = 1, /* hipMalloc */
	THD_MEM_GLOBAL,     /* a module's global variable */
	THD_MEM_MAPPED      /* hipMemMap into a reservation */
} thd_mem_kind;

typedef struct thd_mem {
	uint64_t base, size; /* size as asked (mapped: rounded to pages) */
	uint64_t map_size;   /* what mmap gave (0 for globals: owned by the module) */
	thd_mem_kind kind;
} thd_mem;

/* Host pointer for [addr, addr + len) when it lies inside one device
 * allocation or global; NULL otherwise. */
THD_HIDDEN void *thd_mem_at(uint64_t addr, uint64_t len);
/* Whether addr lies in device memory at all. */
THD_HIDDEN int thd_mem_is_device(uint64_t addr);
THD_HIDDEN int thd_mem_add(uint64_t base, uint64_t size, uint64_t map_size, thd_mem_kind kind);
THD_HIDDEN void thd_mem_remove(uint64_t base);

/* ---- modules ------------------------------------------------------------ */

typedef struct thd_global {
	char *name;
	uint8_t *bytes; /* owned */
	uint64_t size;
} thd_global;

struct ihipModule_t {
	uint32_t magic;
	sbt_amd_meta *meta;     /* owned */
	thd_global *globals;    /* owned */
	size_t nglobals;
	struct ihipModuleSymbol_t **fns; /* owned; made on demand */
	size_t nfns;
	int registered;         /* made by __hipRegisterFatBinary */
};

struct ihipModuleSymbol_t {
	uint32_t magic;
	struct ihipModule_t *mod;
	const sbt_amd_kernel *k; /* in mod->meta */
	char *name;
};

/* The global of module m named name, NULL when absent. */
THD_HIDDEN thd_global *thd_module_global(struct ihipModule_t *m, const char *name);

/* ---- streams and stream capture ---------------------------------------- */

typedef enum thd_node_kind { THD_NODE_KERNEL = 1, THD_NODE_COPY, THD_NODE_MEMSET } thd_node_kind;

/* One piece of work captured into a graph. */
typedef struct thd_node {
	thd_node_kind kind;
	struct ihipModuleSymbol_t *fn;
	unsigned grid[3], block[3];
	uint8_t *args;          /* owned kernarg bytes */
	size_t args_len;
	void *dst;
	const void *src;
	uint64_t size;
	int value;
} thd_node;

struct ihipGraph {
	uint32_t magic;
	thd_node *nodes;
	size_t n;
};

struct hipGraphExec {
	uint32_t magic;
	struct ihipGraph *graph; /* borrowed nodes, copied at instantiation */
	thd_node *nodes;
	size_t n;
};

struct ihipStream_t {
	uint32_t magic;
	unsigned flags;
	int priority;
	struct ihipGraph *capture; /* non-NULL while capturing */
};

struct ihipEvent_t {
	uint32_t magic;
	unsigned flags;
	int recorded;
	uint64_t ns;
};

struct ihipMemGenericAllocationHandle {
	uint32_t magic;
	uint64_t size;
};

/* The stream's capture graph (NULL: not capturing); *bad set when the
 * handle is not a live stream.  NULL stream: the null stream. */
THD_HIDDEN struct ihipGraph *thd_stream_capture(hipStream_t s, int *bad);
/* Append a node (copied; args owned from here on). */
THD_HIDDEN hipError_t thd_graph_add(struct ihipGraph *g, const thd_node *n);
THD_HIDDEN hipError_t thd_node_run(const thd_node *n);

/* ---- launches ----------------------------------------------------------- */

THD_HIDDEN hipError_t thd_kernel_run(struct ihipModuleSymbol_t *f, const unsigned grid[3],
                                     const unsigned block[3], const uint8_t *args, size_t len);
/* The pointer-guarded copy and memset every copy entry point ends in. */
THD_HIDDEN hipError_t thd_copy(void *dst, const void *src, size_t n);
THD_HIDDEN hipError_t thd_fill(void *dst, int value, size_t n);

/* ---- state --------------------------------------------------------------- */

THD_HIDDEN void thd_lock(void);
THD_HIDDEN void thd_unlock(void);
/* Set the thread's last error (hipGetLastError) when r is not hipSuccess; returns r. */
THD_HIDDEN hipError_t thd_ret(hipError_t r);
/* One line on stderr, prefixed "libamdhip64 test double: ". */
THD_HIDDEN void thd_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* THD_H */
