/*
 * hip_graph_exec.c - the exec setters (docs/hip.md "Graphs built node by
 * node"), from plain C (no kernel): graph g gets a memset node (256 bytes
 * of 0x11) and after it a memcpy node (hipGraphAddMemcpyNode1D, 64 bytes
 * from the buffer's start to offset 128); exec e of g is launched and the
 * buffer read back (the first result); then the buffer is cleared, e's
 * memset node set to 128 bytes of 0x33 (hipGraphExecMemsetNodeSetParams)
 * and its memcpy node to 32 bytes to offset 192
 * (hipGraphExecMemcpyNodeSetParams1D), e launched and the buffer read back
 * (the second result); a hipGraphExecMemsetNodeSetParams and a
 * hipGraphExecMemcpyNodeSetParams with no parameters fail; last the buffer is cleared and a second exec of g,
 * whose nodes kept their own parameters, is launched and read back (the
 * third result).  Prints the results' bytes 0, 128 and 200 and hash and
 * each failing call that should have worked; exit status 0 once it ran
 * to its end.
 */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define HGE_N 256

static void hge_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void hge_read(const char *what, const unsigned char *d)
{
	unsigned char b[HGE_N];
	unsigned long hash = 5381;

	hge_check("hipDeviceSynchronize", hipDeviceSynchronize());
	hge_check("hipMemcpy", hipMemcpy(b, d, HGE_N, hipMemcpyDeviceToHost));
	for (int i = 0; i < HGE_N; i++)
		hash = hash * 33 + b[i];
	printf("%s: %02x %02x %02x hash %lu\n", what, b[0], b[128], b[200], hash);
}

int main(void)
{
	unsigned char *d = NULL;
	hipGraph_t g = NULL;
	hipGraphNode_t set = NULL, cp = NULL;
	hipGraphExec_t e = NULL, e2 = NULL;
	hipMemsetParams p;

	hge_check("hipMalloc", hipMalloc((void **)&d, HGE_N));
	hge_check("hipMemset", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphCreate", hipGraphCreate(&g, 0));
	memset(&p, 0, sizeof(p));
	p.dst = d;
	p.value = 0x11;
	p.elementSize = 1;
	p.width = HGE_N;
	p.height = 1;
	hge_check("hipGraphAddMemsetNode", hipGraphAddMemsetNode(&set, g, NULL, 0, &p));
	hge_check("hipGraphAddMemcpyNode1D", hipGraphAddMemcpyNode1D(&cp, g, &set, 1, d + 128, d, 64,
	                                                             hipMemcpyDeviceToDevice));
	hge_check("hipGraphInstantiate", hipGraphInstantiate(&e, g, NULL, NULL, 0));
	hge_check("hipGraphLaunch", hipGraphLaunch(e, 0));
	hge_read("first", d);

	hge_check("hipMemset again", hipMemset(d, 0, HGE_N));
	p.value = 0x33;
	p.width = HGE_N / 2;
	hge_check("hipGraphExecMemsetNodeSetParams", hipGraphExecMemsetNodeSetParams(e, set, &p));
	hge_check("hipGraphExecMemcpyNodeSetParams1D",
	          hipGraphExecMemcpyNodeSetParams1D(e, cp, d + 192, d, 32, hipMemcpyDeviceToDevice));
	if (hipGraphExecMemsetNodeSetParams(e, set, NULL) == hipSuccess)
		printf("hipGraphExecMemsetNodeSetParams with no parameters worked\n");
	if (hipGraphExecMemcpyNodeSetParams(e, cp, NULL) == hipSuccess)
		printf("hipGraphExecMemcpyNodeSetParams with no parameters worked\n");
	hge_check("hipGraphLaunch again", hipGraphLaunch(e, 0));
	hge_read("second", d);

	hge_check("hipMemset last", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphInstantiate last", hipGraphInstantiate(&e2, g, NULL, NULL, 0));
	hge_check("hipGraphLaunch last", hipGraphLaunch(e2, 0));
	hge_read("third", d);

	hge_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	hge_check("hipGraphExecDestroy last", hipGraphExecDestroy(e2));
	hge_check("hipGraphDestroy", hipGraphDestroy(g));
	hge_check("hipFree", hipFree(d));
	return 0;
}
