/*
 * hip_procaddr.c - HIP functions found through hipGetProcAddress (ROCm 6;
 * found itself with dlsym, as programs that support both 5 and 6 do),
 * from plain C (no kernel): hipMalloc, hipMemset, hipMemcpy and hipFree
 * asked for by name and called through what came back; a name the runtime
 * does not export asked for too.  Prints the bytes read back (some and a
 * hash), the answer and status for the unknown name, and each failing
 * call; exit status 0 once it ran to its end, 2 when the runtime has no
 * hipGetProcAddress.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>

#define HPA_N 300

typedef hipError_t (*hpa_getproc_fn)(const char *, void **, int, uint64_t, int *);

static void hpa_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

int main(void)
{
	hpa_getproc_fn getproc = NULL;
	hipError_t (*p_malloc)(void **, size_t) = NULL;
	hipError_t (*p_memset)(void *, int, size_t) = NULL;
	hipError_t (*p_memcpy)(void *, const void *, size_t, hipMemcpyKind) = NULL;
	hipError_t (*p_free)(void *) = NULL;
	void *none = (void *)1;
	unsigned char *d = NULL, back[HPA_N];
	unsigned long hash = 5381;
	int status = -1;
	hipError_t r;

	/* a direct call: the program needs the runtime loaded (--as-needed) */
	hpa_check("hipInit", hipInit(0));
	getproc = (hpa_getproc_fn)dlsym(RTLD_DEFAULT, "hipGetProcAddress");
	if (!getproc) {
		printf("no hipGetProcAddress\n");
		return 2;
	}
	hpa_check("hipGetProcAddress hipMalloc", getproc("hipMalloc", (void **)&p_malloc, 600, 0, NULL));
	hpa_check("hipGetProcAddress hipMemset", getproc("hipMemset", (void **)&p_memset, 600, 0, NULL));
	hpa_check("hipGetProcAddress hipMemcpy", getproc("hipMemcpy", (void **)&p_memcpy, 600, 0, NULL));
	hpa_check("hipGetProcAddress hipFree", getproc("hipFree", (void **)&p_free, 600, 0, &status));
	r = getproc("hipNoSuchCall", &none, 600, 0, &status);
	printf("hipNoSuchCall: %d, %s, status %d\n", (int)r, none ? "a function" : "none", status);
	if (!p_malloc || !p_memset || !p_memcpy || !p_free)
		return 1;
	hpa_check("hipMalloc", p_malloc((void **)&d, HPA_N));
	hpa_check("hipMemset", p_memset(d, 0x6b, HPA_N));
	hpa_check("hipMemset part", p_memset(d + 100, 0x21, 50));
	hpa_check("hipMemcpy", p_memcpy(back, d, HPA_N, hipMemcpyDeviceToHost));
	for (int i = 0; i < HPA_N; i++)
		hash = hash * 33 + back[i];
	printf("read: %02x %02x hash %lu\n", back[0], back[120], hash);
	hpa_check("hipFree", p_free(d));
	return 0;
}
