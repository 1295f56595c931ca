/*
 * hip_capture_unseen.c - a stream capture begun where an interposer does
 * not see it (docs/hip.md "Limits of this phase"), from plain C (no
 * kernel): hipStreamBeginCapture is called through the runtime's own
 * function, found with the C library's dlvsym on libamdhip64's handle
 * under the version the runtime exports it with, hip_4.3 (past any
 * LD_PRELOAD library: the HIP interposer's dlsym and dlvsym hand out its
 * wrapper there; the C library's dlvsym is found with
 * dlvsym(RTLD_NEXT, "dlvsym", "GLIBC_2.34"), a versioned lookup that
 * skips the interposer's unversioned export); on that stream a hipMemsetAsync (0x5a) and a device-to-device
 * hipMemcpyAsync are captured; hipStreamEndCapture, instantiation and a
 * launch are ordinary calls; the buffer is read back after a
 * hipStreamSynchronize.  Prints the bytes read (some of them and a hash)
 * and each failing call; exit status 0 once it ran to its end.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>

#define HCU_N 512

static void hcu_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

int main(void)
{
	typedef hipError_t (*begin_fn)(hipStream_t, hipStreamCaptureMode);
	typedef void *(*vsym_fn)(void *, const char *, const char *);
	void *lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_NOLOAD);
	vsym_fn vsym = (vsym_fn)dlvsym(RTLD_NEXT, "dlvsym", "GLIBC_2.34");
	begin_fn begin;
	unsigned char *d = NULL, back[HCU_N];
	hipStream_t s = NULL;
	hipGraph_t g = NULL;
	hipGraphExec_t e = NULL;
	unsigned long hash = 5381;

	if (!vsym)
		vsym = (vsym_fn)dlvsym(RTLD_NEXT, "dlvsym", "GLIBC_2.2.5");
	begin = lib && vsym ? (begin_fn)vsym(lib, "hipStreamBeginCapture", "hip_4.3") : NULL;
	if (!begin) {
		printf("no hipStreamBeginCapture@hip_4.3 in libamdhip64.so.5\n");
		return 2;
	}
	hcu_check("hipMalloc", hipMalloc((void **)&d, HCU_N));
	hcu_check("hipMemset", hipMemset(d, 0, HCU_N));
	hcu_check("hipStreamCreateWithFlags", hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
	hcu_check("hipStreamBeginCapture (the runtime's own)", begin(s, hipStreamCaptureModeRelaxed));
	hcu_check("hipMemsetAsync", hipMemsetAsync(d, 0x5a, HCU_N / 2, s));
	hcu_check("hipMemcpyAsync", hipMemcpyAsync(d + HCU_N / 2, d, HCU_N / 4, hipMemcpyDeviceToDevice, s));
	hcu_check("hipStreamEndCapture", hipStreamEndCapture(s, &g));
	hcu_check("hipGraphInstantiate", hipGraphInstantiate(&e, g, NULL, NULL, 0));
	hcu_check("hipGraphLaunch", hipGraphLaunch(e, s));
	hcu_check("hipStreamSynchronize", hipStreamSynchronize(s));
	hcu_check("hipMemcpy", hipMemcpy(back, d, HCU_N, hipMemcpyDeviceToHost));
	for (int i = 0; i < HCU_N; i++)
		hash = hash * 33 + back[i];
	printf("read: %02x %02x %02x hash %lu\n", back[0], back[HCU_N / 2], back[HCU_N - 1], hash);
	hcu_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	hcu_check("hipGraphDestroy", hipGraphDestroy(g));
	hcu_check("hipStreamDestroy", hipStreamDestroy(s));
	hcu_check("hipFree", hipFree(d));
	return 0;
}
