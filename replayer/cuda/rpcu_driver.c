/*
 * rpcu_driver.c - finding the CUDA driver at run time: dlopen, entry points
 * through cuGetProcAddress at the ABI version each PFN type belongs to,
 * and the "no driver" / "no GPU" verdicts.
 *
 * The driver stays loaded until the process exits: drivers start threads
 * and register handlers that must not outlive their code.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exported symbol of each entry point at the version we ask for, for
 * drivers without cuGetProcAddress (before CUDA 11.3): the ones whose ABI
 * changed by then (64-bit sizes in 3.2, the context stack in 4.0, ...)
 * carry _v2 at the versions RPCU_DRIVER_LIST asks for. */
static const char *rpcu_driver_export(const char *name)
{
	static const char *const v2[] = {
		"cuCtxCreate", "cuCtxDestroy", "cuDevicePrimaryCtxRelease", "cuModuleGetGlobal",
		"cuMemAlloc", "cuMemAllocHost", "cuMemFree", "cuMemHostRegister", "cuStreamDestroy",
		"cuEventDestroy", "cuMemcpyHtoD", "cuMemcpyHtoDAsync", "cuMemcpyDtoH",
		"cuMemcpyDtoHAsync", "cuMemcpyDtoD", "cuMemcpyDtoDAsync", "cuMemcpy2D",
		"cuMemcpy2DUnaligned", "cuMemcpy2DAsync", "cuMemcpy3D", "cuMemcpy3DAsync", "cuMemsetD8",
		"cuMemsetD16", "cuMemsetD32", "cuMemsetD2D8", "cuMemsetD2D16", "cuMemsetD2D32", NULL};
	static char buf[96];
	size_t i;
	for (i = 0; v2[i]; i++)
		if (strcmp(name, v2[i]) == 0) {
			snprintf(buf, sizeof(buf), "%s_v2", name);
			return buf;
		}
	return name;
}

const char *rpcu_cu_name(const rpcu_driver *d, CUresult r, char *buf, size_t len)
{
	const char *name = NULL;
	if (d->p_cuGetErrorName)
		d->p_cuGetErrorName(r, &name);
	snprintf(buf, len, "%s (%d)", name ? name : "CUDA error", (int)r);
	return buf;
}

rp_status rpcu_driver_open(rpcu_driver *d, int *device_count, rp_diag *diag)
{
	const char *env = getenv("TRACESMITH_CUDA_DRIVER");
	const char *path = env && *env ? env : "libcuda.so.1";
	PFN_cuGetProcAddress_v12000 gpa2;
	PFN_cuGetProcAddress_v11030 gpa1;
	char err[96];
	CUresult r;
	int count = 0;

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!d->dl) {
		const char *why = dlerror();
		rp_diag_set(diag, "no CUDA driver: %s not found (%s)%s", path, why ? why : "dlopen failed",
		            env && *env ? " [TRACESMITH_CUDA_DRIVER]" : "");
		return RP_ERR_UNSUPPORTED;
	}
	gpa2 = (PFN_cuGetProcAddress_v12000)dlsym(d->dl, "cuGetProcAddress_v2");
	gpa1 = (PFN_cuGetProcAddress_v11030)dlsym(d->dl, "cuGetProcAddress");
	/* Ask for each entry point at its own version, with the legacy default
	 * stream: the per-thread one is chosen per record with
	 * CU_STREAM_PER_THREAD instead. */
#define RPCU_X_RESOLVE(name, ver, req)                                                             \
	{                                                                                             \
		void *fn_ = NULL;                                                                         \
		CUdriverProcAddressQueryResult q_ = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                 \
		if (gpa2) {                                                                               \
			if (gpa2(#name, &fn_, ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &q_) != CUDA_SUCCESS || \
			    q_ != CU_GET_PROC_ADDRESS_SUCCESS)                                                \
				fn_ = NULL;                                                                       \
		} else if (gpa1) {                                                                        \
			if (gpa1(#name, &fn_, ver, CU_GET_PROC_ADDRESS_LEGACY_STREAM) != CUDA_SUCCESS)        \
				fn_ = NULL;                                                                       \
		} else {                                                                                  \
			fn_ = dlsym(d->dl, rpcu_driver_export(#name));                                    \
		}                                                                                         \
		*(void **)&d->p_##name = fn_;                                                             \
		if (!fn_ && (req)) {                                                                      \
			rp_diag_set(diag, "the CUDA driver %s has no %s (ABI %d)", path, #name, ver);         \
			return RP_ERR_UNSUPPORTED;                                                            \
		}                                                                                         \
	}
	RPCU_DRIVER_LIST(RPCU_X_RESOLVE)
#undef RPCU_X_RESOLVE
	r = d->p_cuInit(0);
	if (r != CUDA_SUCCESS) {
		rp_diag_set(diag, "CUDA driver found but no GPU: cuInit failed with %s (driver %s)",
		            rpcu_cu_name(d, r, err, sizeof(err)), path);
		return RP_ERR_UNSUPPORTED;
	}
	r = d->p_cuDeviceGetCount(&count);
	if (r != CUDA_SUCCESS || count <= 0) {
		if (r != CUDA_SUCCESS)
			rp_diag_set(diag, "CUDA driver found but no GPU: cuDeviceGetCount failed with %s "
			            "(driver %s)", rpcu_cu_name(d, r, err, sizeof(err)), path);
		else
			rp_diag_set(diag, "CUDA driver found but no GPU: cuDeviceGetCount reports %d devices "
			            "(driver %s)", count, path);
		return RP_ERR_UNSUPPORTED;
	}
	*device_count = count;
	return RP_OK;
}
