/*
 * tcd_ext.h - what the libcuda test double offers beyond cuda.h: its side
 * door (a private export table, as the real runtime uses) and its report
 * of launches it could not run.  Shared by the double, the test programs
 * that model cudart, and the replayer's double-aware reporting.
 *
 * SIDE DOOR (measured fact 6 of ../shared/gpu-fixtures/README.md): cudart
 * asks cuGetExportTable for private tables and reaches the driver through
 * them, unseen by an LD_PRELOAD interposer; it retains the primary context
 * that way, so the first call an interposer sees naming that context is
 * cuCtxSetCurrent.  cuGetExportTable(&t, &TCD_SIDEDOOR_UUID) gives a
 * tcd_sidedoor table; its functions are the double's own code, never an
 * exported symbol.
 *
 * NOT RUN: kernels of real module images (cubins) run on the double only
 * when it has a host twin for them (by mangled name).  Any other kernel
 * runs nothing: the launch succeeds, the double says so once per kernel
 * on stderr, and tscuda_double_launches_not_run() counts it.  A replayer
 * that finds this symbol in the driver it loaded (dlsym) can tell which
 * launches did nothing and so which results it cannot compare.
 */
#ifndef TCD_EXT_H
#define TCD_EXT_H

#include <cuda.h>
#include <stddef.h>

/* One of the table ids the real CUDA 13 runtime asks for (in the shared
 * capture reports); bytes in CUuuid order. */
#define TCD_SIDEDOOR_UUID_BYTES                                               \
	{ 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,                         \
	  0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 }

typedef struct tcd_sidedoor {
	size_t size; /* sizeof(tcd_sidedoor) */
	/* cuDevicePrimaryCtxRetain, not through any export. */
	CUresult (*primary_ctx_retain)(CUcontext *pctx, CUdevice dev);
} tcd_sidedoor;

/* Launches so far that ran nothing (no host twin). */
typedef unsigned long long (*tcd_not_run_fn)(void);
#define TCD_NOT_RUN_SYMBOL "tscuda_double_launches_not_run"

#endif /* TCD_EXT_H */
