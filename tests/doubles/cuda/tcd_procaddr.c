/*
 * tcd_procaddr.c - cuGetProcAddress (both ABIs) and cuGetExportTable.
 *
 * cuGetExportTable answers one private table, the side door of tcd_ext.h
 * (measured fact 6: cudart reaches the driver through such tables, unseen by
 * an LD_PRELOAD interposer).  Its functions are hidden statics calling the
 * double's internal code, so no interposer can wrap them, and they are not
 * counted in TSCUDA_DOUBLE_STATS (which counts exported entry points, for
 * comparison with what an interposer saw).  Every other table id still
 * answers CUDA_ERROR_NOT_SUPPORTED.
 *
 * cuGetProcAddress takes a base name ("cuMemAlloc", never "cuMemAlloc_v2")
 * and picks the newest variant introduced at or before cudaVersion
 * (TCD_PROCS in tcd_api.h).  With CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
 * a _ptds/_ptsz variant of that age wins when one exists; with
 * CU_GET_PROC_ADDRESS_DEFAULT or _LEGACY_STREAM it never does (the driver
 * cannot know how the caller was compiled: cuda.h's inline wrapper adds the
 * per-thread flag for code built with per-thread default streams).  Per the
 * CUDA 13 documentation an unknown symbol or too old a version is not an
 * error: *pfn becomes NULL and symbolStatus says which.  The pointers handed
 * out are the double's own code, never an interposer's wrapper.
 */
#include "tests/doubles/cuda/tcd.h"

#include "tests/doubles/cuda/tcd_ext.h"

#include <string.h>

#define TCD_DECL(sym) extern __typeof__(sym) tcd_api_##sym TCD_HIDDEN;
TCD_EXPORTS(TCD_DECL)
#undef TCD_DECL

struct tcd_proc {
	const char *base;
	int version;
	bool per_thread;
	void *fn;
};

#define TCD_PROC_ROW(base, version, pt, sym) { #base, version, pt, (void *)&tcd_api_##sym },
static const struct tcd_proc tcd_procs[] = { TCD_PROCS(TCD_PROC_ROW) };
#undef TCD_PROC_ROW

static CUresult tcd_proc_lookup(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
				CUdriverProcAddressQueryResult *status, const char *call)
{
	const struct tcd_proc *best = NULL;
	bool known = false;
	bool pt;

	if (!symbol || !pfn)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "symbol or pfn is NULL");
	if (flags != CU_GET_PROC_ADDRESS_DEFAULT && flags != CU_GET_PROC_ADDRESS_LEGACY_STREAM &&
	    flags != CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown flags 0x%llx", (unsigned long long)flags);
	if (cuda_version > CUDA_VERSION)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "cudaVersion %d is newer than the double's %d",
				cuda_version, CUDA_VERSION);
	pt = flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	for (size_t i = 0; i < sizeof(tcd_procs) / sizeof(tcd_procs[0]); i++) {
		const struct tcd_proc *p = &tcd_procs[i];

		if (strcmp(p->base, symbol))
			continue;
		known = true;
		if (p->version > cuda_version || (p->per_thread && !pt))
			continue;
		if (!best || p->version > best->version || (p->version == best->version && p->per_thread))
			best = p;
	}
	*pfn = best ? best->fn : NULL;
	if (status)
		*status = best ? CU_GET_PROC_ADDRESS_SUCCESS
		          : known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuGetProcAddress)(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	TCD_ENTER(cuGetProcAddress);
	return tcd_proc_lookup(symbol, pfn, cudaVersion, flags, NULL, "cuGetProcAddress");
}
TCD_EXPORT(cuGetProcAddress)

TCD_API(CUresult, cuGetProcAddress_v2)(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
				       CUdriverProcAddressQueryResult *symbolStatus)
{
	TCD_ENTER(cuGetProcAddress_v2);
	return tcd_proc_lookup(symbol, pfn, cudaVersion, flags, symbolStatus, "cuGetProcAddress_v2");
}
TCD_EXPORT(cuGetProcAddress_v2)

/* Retaining the primary context this way is what cudart does when it
 * starts, so it is also the double's signal that the runtime has started
 * (the state measured fact 4 was observed in; see tcd_mem.c). */
static CUresult CUDAAPI tcd_sidedoor_primary_ctx_retain(CUcontext *pctx, CUdevice dev)
{
	CUresult r = tcd_primary_retain(pctx, dev, "side door primary_ctx_retain");

	if (r == CUDA_SUCCESS)
		atomic_store(&tcd_g.runtime_started, true);
	return r;
}

static const tcd_sidedoor tcd_sidedoor_table = {
	.size = sizeof(tcd_sidedoor),
	.primary_ctx_retain = tcd_sidedoor_primary_ctx_retain,
};

static const unsigned char tcd_sidedoor_uuid[16] = TCD_SIDEDOOR_UUID_BYTES;

TCD_API(CUresult, cuGetExportTable)(const void **ppExportTable, const CUuuid *pExportTableId)
{
	TCD_ENTER(cuGetExportTable);
	if (!ppExportTable || !pExportTableId)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGetExportTable", "ppExportTable or pExportTableId is NULL");
	if (!memcmp(pExportTableId->bytes, tcd_sidedoor_uuid, sizeof(tcd_sidedoor_uuid))) {
		*ppExportTable = &tcd_sidedoor_table;
		return CUDA_SUCCESS;
	}
	*ppExportTable = NULL;
	return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, "cuGetExportTable",
			"the double has no private export table with that id (only the side door of tcd_ext.h)");
}
TCD_EXPORT(cuGetExportTable)
