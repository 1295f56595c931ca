/*
 * thip_procaddr.c - hipGetProcAddress (ROCm 6; ROCm 5.2's libamdhip64.so.5
 * does not export it).  clr answers with the runtime's own function (dlsym
 * on its own handle), which a program would then call past this library.
 * The call is passed through; when it worked, the function the runtime
 * chose (named by dladdr, so a versioned variant such as
 * hipGetDevicePropertiesR0600 stays the runtime's unless this library
 * exports that very name) is replaced by this library's export of the
 * same name, as a dlsym on the runtime's handle is (thip_adopt), so that
 * calls made through it are counted and recorded as direct ones
 * (docs/hip.md "How the entry points are made").  A name this library
 * does not export keeps the runtime's answer.
 */
#include <dlfcn.h>

#include "interpose/hip/thip_internal.h"

/* symbolStatus: a hipDriverProcAddressQueryResult (an enum, int-sized). */
hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             int *symbolStatus)
{
	thip_call call;
	hipError_t (*real)(const char *, void **, int, uint64_t, int *) =
		(hipError_t(*)(const char *, void **, int, uint64_t, int *))thip_begin(
			&call, THIP_FN_hipGetProcAddress);
	hipError_t r = real ? real(symbol, pfn, hipVersion, flags, symbolStatus) : THIP_NO_RUNTIME;
	Dl_info di;
	void *ours;

	if (!call.nested && r == hipSuccess && pfn && *pfn && dladdr(*pfn, &di) && di.dli_sname &&
	    (ours = thip_adopt(di.dli_sname, *pfn))) {
		CAP_DEBUG("hip: hipGetProcAddress(%s): this library's %s", symbol, di.dli_sname);
		*pfn = ours;
	}
	thip_end(&call);
	return r;
}
