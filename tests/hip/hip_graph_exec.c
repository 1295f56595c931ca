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
 *
 * With the argument `update`, hipGraphExecUpdate instead: graph a gets a
 * memset node m1 (bytes 0-63 = 0x11), a memcpy node after it (64 bytes
 * from 0 to 128) and a memset node m2 with no dependency (bytes 64-127 =
 * 0x22), in that order, so that their level order (m1, m2, the copy) is not
 * the order they were added in; its exec is launched and read back.  Graph
 * b gets m1 (0x44), m2 (0x55) and the copy after m1 (to 192) in level
 * order, and the update pairs them so: it works, and the next launch runs
 * b's parameters.  Graph c (b with an empty node more) changes the topology
 * and graph d (memset 0x66, memset 0x77, an empty node after the first)
 * changes the third node's kind: both fail, d's after setting its first two
 * pairs (clr stops at the pair that fails), so the launches after them
 * show c changed nothing and d its two memsets.  Graph e holds three nodes
 * of the exec's kinds (memset a, memset b after a, the copy after b), then
 * an edge a -> copy is added and b -> copy removed: clr 5.2 keeps the
 * copy's level at 2 (it counts b when it recomputes it), so its level
 * order never reaches the copy from a (level 0) and the update fails with a
 * changed topology.  An update with no result pointer fails too.  Prints each read-back's bytes 0, 64, 128 and 200,
 * each update's error and result, and whether d's error node is its empty
 * node.
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

static void hgu_read(const char *what, const unsigned char *d)
{
	unsigned char b[HGE_N];

	hge_check("hipDeviceSynchronize", hipDeviceSynchronize());
	hge_check("hipMemcpy", hipMemcpy(b, d, HGE_N, hipMemcpyDeviceToHost));
	printf("%s: %02x %02x %02x %02x\n", what, b[0], b[64], b[128], b[200]);
}

static hipMemsetParams hgu_set(unsigned char *dst, unsigned value)
{
	hipMemsetParams p;

	memset(&p, 0, sizeof(p));
	p.dst = dst;
	p.value = value;
	p.elementSize = 1;
	p.width = 64;
	p.height = 1;
	return p;
}

static int hgu_main(void)
{
	unsigned char *d = NULL;
	hipGraph_t a = NULL, b = NULL, c = NULL, g = NULL, q = NULL;
	hipGraphNode_t m1, m2, cp, extra, err = NULL;
	hipGraphExec_t e = NULL;
	hipGraphExecUpdateResult res = hipGraphExecUpdateSuccess;
	hipMemsetParams p;
	hipError_t r;

	hge_check("hipMalloc", hipMalloc((void **)&d, HGE_N));
	hge_check("hipMemset", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphCreate a", hipGraphCreate(&a, 0));
	p = hgu_set(d, 0x11);
	hge_check("a m1", hipGraphAddMemsetNode(&m1, a, NULL, 0, &p));
	hge_check("a copy", hipGraphAddMemcpyNode1D(&cp, a, &m1, 1, d + 128, d, 64,
	                                            hipMemcpyDeviceToDevice));
	p = hgu_set(d + 64, 0x22);
	hge_check("a m2", hipGraphAddMemsetNode(&m2, a, NULL, 0, &p));
	hge_check("hipGraphInstantiate", hipGraphInstantiate(&e, a, NULL, NULL, 0));
	hge_check("hipGraphLaunch", hipGraphLaunch(e, 0));
	hgu_read("first", d);

	hge_check("hipGraphCreate b", hipGraphCreate(&b, 0));
	p = hgu_set(d, 0x44);
	hge_check("b m1", hipGraphAddMemsetNode(&m1, b, NULL, 0, &p));
	p = hgu_set(d + 64, 0x55);
	hge_check("b m2", hipGraphAddMemsetNode(&m2, b, NULL, 0, &p));
	hge_check("b copy", hipGraphAddMemcpyNode1D(&cp, b, &m1, 1, d + 192, d, 64,
	                                            hipMemcpyDeviceToDevice));
	r = hipGraphExecUpdate(e, b, &err, &res);
	printf("update b %d %d\n", (int)r, (int)res);
	hge_check("hipMemset again", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch b", hipGraphLaunch(e, 0));
	hgu_read("updated", d);

	hge_check("hipGraphCreate c", hipGraphCreate(&c, 0));
	p = hgu_set(d, 0x99);
	hge_check("c m1", hipGraphAddMemsetNode(&m1, c, NULL, 0, &p));
	hge_check("c m2", hipGraphAddMemsetNode(&m2, c, NULL, 0, &p));
	hge_check("c copy", hipGraphAddMemcpyNode1D(&cp, c, &m1, 1, d + 192, d, 64,
	                                            hipMemcpyDeviceToDevice));
	hge_check("c empty", hipGraphAddEmptyNode(&extra, c, &cp, 1));
	r = hipGraphExecUpdate(e, c, &err, &res);
	printf("update c %d %d\n", (int)r, (int)res);
	hge_check("hipMemset c", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch c", hipGraphLaunch(e, 0));
	hgu_read("topology", d);

	hge_check("hipGraphCreate d", hipGraphCreate(&g, 0));
	p = hgu_set(d, 0x66);
	hge_check("d m1", hipGraphAddMemsetNode(&m1, g, NULL, 0, &p));
	p = hgu_set(d + 64, 0x77);
	hge_check("d m2", hipGraphAddMemsetNode(&m2, g, NULL, 0, &p));
	hge_check("d empty", hipGraphAddEmptyNode(&extra, g, &m1, 1));
	r = hipGraphExecUpdate(e, g, &err, &res);
	printf("update d %d %d error node %s\n", (int)r, (int)res, err == extra ? "empty" : "other");
	hge_check("hipMemset d", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch d", hipGraphLaunch(e, 0));
	hgu_read("kind", d);

	hge_check("hipGraphCreate e", hipGraphCreate(&q, 0));
	p = hgu_set(d, 0x88);
	hge_check("e m1", hipGraphAddMemsetNode(&m1, q, NULL, 0, &p));
	hge_check("e m2", hipGraphAddMemsetNode(&m2, q, &m1, 1, &p));
	hge_check("e copy", hipGraphAddMemcpyNode1D(&cp, q, &m2, 1, d + 192, d, 64,
	                                            hipMemcpyDeviceToDevice));
	hge_check("e edge", hipGraphAddDependencies(q, &m1, &cp, 1));
	hge_check("e unedge", hipGraphRemoveDependencies(q, &m2, &cp, 1));
	r = hipGraphExecUpdate(e, q, &err, &res);
	printf("update e %d %d\n", (int)r, (int)res);
	printf("update null %d\n", (int)hipGraphExecUpdate(e, b, &err, NULL));

	hge_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	hge_check("hipGraphDestroy a", hipGraphDestroy(a));
	hge_check("hipGraphDestroy b", hipGraphDestroy(b));
	hge_check("hipGraphDestroy c", hipGraphDestroy(c));
	hge_check("hipGraphDestroy d", hipGraphDestroy(g));
	hge_check("hipGraphDestroy e", hipGraphDestroy(q));
	hge_check("hipFree", hipFree(d));
	return 0;
}

int main(int argc, char **argv)
{
	unsigned char *d = NULL;
	hipGraph_t g = NULL;
	hipGraphNode_t set = NULL, cp = NULL;
	hipGraphExec_t e = NULL, e2 = NULL;
	hipMemsetParams p;

	if (argc > 1 && strcmp(argv[1], "update") == 0)
		return hgu_main();
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
