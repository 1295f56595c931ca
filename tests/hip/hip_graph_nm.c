/*
 * hip_graph_nm.c - a graph built node by node that a call the compute
 * model does not cover changes (docs/hip.md "Graphs built node by node"),
 * from plain C (no kernel): graph g gets a memset node (256 bytes of
 * 0x11); a hipGraphAddChildGraphNode with no child graph fails; g is
 * instantiated, launched and the buffer read back (the first result);
 * then a child graph made by stream capture (a hipMemsetAsync of 64 bytes
 * of 0x22 at offset 64) is added to g after its memset node, g is
 * instantiated again, launched and the buffer read back (the second
 * result).  The capture is ended through the runtime's own
 * hipStreamEndCapture (the C library's dlvsym on libamdhip64's handle,
 * version hip_4.3), so an interposer never sees the child graph made: its
 * child graph node is a change the model does not cover.  With the
 * argument `seen` the capture ends through hipStreamEndCapture as linked,
 * and the child graph node is modeled (as one of a graph made by
 * hipGraphCreate: hip_graph_nodes child).  Prints both results' first
 * bytes and hash and each failing call that should have worked; exit
 * status 0 once it ran to its end, 2 when the runtime's own function
 * cannot be found.
 */
#include <dlfcn.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define HGNM_N 256

static void hgnm_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void hgnm_print(const char *what, const unsigned char *b)
{
	unsigned long hash = 5381;

	for (int i = 0; i < HGNM_N; i++)
		hash = hash * 33 + b[i];
	printf("%s: %02x %02x %02x hash %lu\n", what, b[0], b[64], b[200], hash);
}

typedef hipError_t (*hgnm_end_fn)(hipStream_t, hipGraph_t *);

/* The runtime's own hipStreamEndCapture, past any interposer; NULL when
 * it cannot be found. */
static hgnm_end_fn hgnm_own_end(void)
{
	typedef void *(*vsym_fn)(void *, const char *, const char *);
	void *lib = dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_NOLOAD);
	vsym_fn vsym = (vsym_fn)dlvsym(RTLD_NEXT, "dlvsym", "GLIBC_2.34");

	if (!vsym)
		vsym = (vsym_fn)dlvsym(RTLD_NEXT, "dlvsym", "GLIBC_2.2.5");
	return lib && vsym ? (hgnm_end_fn)vsym(lib, "hipStreamEndCapture", "hip_4.3") : NULL;
}

int main(int argc, char **argv)
{
	hgnm_end_fn end = argc > 1 && !strcmp(argv[1], "seen") ? hipStreamEndCapture : hgnm_own_end();
	unsigned char *d = NULL, back[HGNM_N];
	hipGraph_t g = NULL, child = NULL;
	hipGraphNode_t set = NULL, sub = NULL, bad = NULL;
	hipStream_t cs = NULL;
	hipGraphExec_t e1 = NULL, e2 = NULL;
	hipMemsetParams p;

	if (!end) {
		printf("no hipStreamEndCapture@hip_4.3 in libamdhip64.so.5\n");
		return 2;
	}

	hgnm_check("hipMalloc", hipMalloc((void **)&d, HGNM_N));
	hgnm_check("hipMemset", hipMemset(d, 0, HGNM_N));
	hgnm_check("hipGraphCreate", hipGraphCreate(&g, 0));
	memset(&p, 0, sizeof(p));
	p.dst = d;
	p.value = 0x11;
	p.elementSize = 1;
	p.width = HGNM_N;
	p.height = 1;
	hgnm_check("hipGraphAddMemsetNode", hipGraphAddMemsetNode(&set, g, NULL, 0, &p));
	if (hipGraphAddChildGraphNode(&bad, g, &set, 1, NULL) == hipSuccess)
		printf("hipGraphAddChildGraphNode with no child graph worked\n");
	hgnm_check("hipGraphInstantiate", hipGraphInstantiate(&e1, g, NULL, NULL, 0));
	hgnm_check("hipGraphLaunch", hipGraphLaunch(e1, 0));
	hgnm_check("hipDeviceSynchronize", hipDeviceSynchronize());
	hgnm_check("hipMemcpy", hipMemcpy(back, d, HGNM_N, hipMemcpyDeviceToHost));
	hgnm_print("first", back);

	hgnm_check("hipStreamCreate", hipStreamCreate(&cs));
	hgnm_check("hipStreamBeginCapture", hipStreamBeginCapture(cs, hipStreamCaptureModeGlobal));
	hgnm_check("hipMemsetAsync child", hipMemsetAsync(d + 64, 0x22, 64, cs));
	hgnm_check("hipStreamEndCapture", end(cs, &child));
	hgnm_check("hipGraphAddChildGraphNode", hipGraphAddChildGraphNode(&sub, g, &set, 1, child));
	hgnm_check("hipGraphInstantiate again", hipGraphInstantiate(&e2, g, NULL, NULL, 0));
	hgnm_check("hipGraphLaunch again", hipGraphLaunch(e2, 0));
	hgnm_check("hipDeviceSynchronize again", hipDeviceSynchronize());
	hgnm_check("hipMemcpy again", hipMemcpy(back, d, HGNM_N, hipMemcpyDeviceToHost));
	hgnm_print("second", back);

	hgnm_check("hipGraphExecDestroy", hipGraphExecDestroy(e1));
	hgnm_check("hipGraphExecDestroy again", hipGraphExecDestroy(e2));
	hgnm_check("hipGraphDestroy child", hipGraphDestroy(child));
	hgnm_check("hipGraphDestroy", hipGraphDestroy(g));
	hgnm_check("hipStreamDestroy", hipStreamDestroy(cs));
	hgnm_check("hipFree", hipFree(d));
	return 0;
}
