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
 *
 * With the argument `order`, graphs whose level order (clr 5.2's pairing)
 * and topological order (clr 6.0-6.2's) differ: graph a gets memsets p
 * (bytes 0-63 = 0x11) and q (64-127 = 0x22), a copy x after both (64
 * bytes from 0 to 128) and a memset y after p (192-255 = 0x44), in that
 * order: p's edges are x, y, so its level order is p, q, x, y and its
 * topological order p, q, y, x (x waits for q).  Graph b is added p, q,
 * y, x (0x55, 0x66, 0x77; the copy from 64): both of its orders are p, q,
 * y, x, so clr 6 pairs it with a's node for node and the update works,
 * where clr 5.2 pairs b's memset y with a's copy x and fails (node kind).
 * Then, each an update of a's exec that fails, each graph shaped as b:
 * c with an empty node more (topology, no error node); d with an empty
 * node in place of the copy (node kind, its first three pairs set); f
 * whose copy waits for p only (clr 6: topology, another count of
 * dependencies, naming the copy); g whose copy is hipMemcpyDefault (clr 6:
 * parameters, another copy kind, naming the copy); one with no result
 * pointer.  Prints the read-backs after each launch (bytes 0, 64, 128,
 * 192), each update's error, result and error node (null, the copy, the
 * empty node or another).
 *
 * With the argument `destroy`, clr 6's hipGraphDestroyNode: graph a gets a
 * memset r (0x11 at 0) and three memsets after it (0x22 at 64, 0x33 at 128,
 * 0x44 at 192); exec e of a is made, then r destroyed.  clr 6 walks r's
 * edges while it removes them and misses the middle child, which keeps its
 * in-degree: a instantiated again fails (its topological order misses a
 * node) and e's update from a finds another count (clr 5.2 keeps every
 * child's in-degree: the instantiation works, its level order is empty).
 * Prints the instantiation's error, the update's error, result and error
 * node, and e's launch read back.
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

/* graph gr shaped as order's graph b: memsets p (at 0) and q (at 64), a
 * memset y (at 192) after p, then (what) after p, and q when two: a copy
 * from 64 to 128 of kind k, or an empty node.  *last = that node. */
static void hgo_build(hipGraph_t *gr, unsigned char *d, const unsigned v[3], int empty, int two,
                      hipMemcpyKind k, hipGraphNode_t *last)
{
	hipGraphNode_t p, q, y, deps[2];
	hipMemsetParams m;

	hge_check("hipGraphCreate", hipGraphCreate(gr, 0));
	m = hgu_set(d, v[0]);
	hge_check("p", hipGraphAddMemsetNode(&p, *gr, NULL, 0, &m));
	m = hgu_set(d + 64, v[1]);
	hge_check("q", hipGraphAddMemsetNode(&q, *gr, NULL, 0, &m));
	m = hgu_set(d + 192, v[2]);
	hge_check("y", hipGraphAddMemsetNode(&y, *gr, &p, 1, &m));
	deps[0] = p;
	deps[1] = q;
	if (empty)
		hge_check("empty", hipGraphAddEmptyNode(last, *gr, deps, two ? 2 : 1));
	else
		hge_check("x", hipGraphAddMemcpyNode1D(last, *gr, deps, two ? 2 : 1, d + 128, d + 64,
		                                         64, k));
}

static void hgo_update(const char *what, hipGraphExec_t e, hipGraph_t gr, hipGraphNode_t cp,
                       hipGraphNode_t other)
{
	hipGraphNode_t err = (hipGraphNode_t)&err; /* neither null nor a node */
	hipGraphExecUpdateResult res = hipGraphExecUpdateSuccess;
	hipError_t r = hipGraphExecUpdate(e, gr, &err, &res);

	printf("update %s %d %d error node %s\n", what, (int)r, (int)res,
	       !err ? "null" : err == cp ? "copy" : err == other ? "empty" : "other");
}

static int hgo_main(void)
{
	static const unsigned vb[3] = {0x55, 0x66, 0x77}, vd[3] = {0x99, 0xaa, 0xbb},
	                      vf[3] = {0xc1, 0xc2, 0xc3}, vg[3] = {0xd1, 0xd2, 0xd3};
	unsigned char *d = NULL;
	hipGraph_t a = NULL, b = NULL, c = NULL, g4 = NULL, f = NULL, g = NULL;
	hipGraphNode_t p, q, x, y, deps[2], last, extra, err = NULL;
	hipGraphExec_t e = NULL;
	hipMemsetParams m;

	hge_check("hipMalloc", hipMalloc((void **)&d, HGE_N));
	hge_check("hipMemset", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphCreate a", hipGraphCreate(&a, 0));
	m = hgu_set(d, 0x11);
	hge_check("a p", hipGraphAddMemsetNode(&p, a, NULL, 0, &m));
	m = hgu_set(d + 64, 0x22);
	hge_check("a q", hipGraphAddMemsetNode(&q, a, NULL, 0, &m));
	deps[0] = p;
	deps[1] = q;
	hge_check("a x", hipGraphAddMemcpyNode1D(&x, a, deps, 2, d + 128, d, 64,
	                                         hipMemcpyDeviceToDevice));
	m = hgu_set(d + 192, 0x44);
	hge_check("a y", hipGraphAddMemsetNode(&y, a, &p, 1, &m));
	hge_check("hipGraphInstantiate", hipGraphInstantiate(&e, a, NULL, NULL, 0));
	hge_check("hipGraphLaunch", hipGraphLaunch(e, 0));
	hgu_read("first", d);

	hgo_build(&b, d, vb, 0, 1, hipMemcpyDeviceToDevice, &last);
	hgo_update("b", e, b, last, NULL);
	hge_check("hipMemset b", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch b", hipGraphLaunch(e, 0));
	hgu_read("updated", d);

	hgo_build(&c, d, vd, 0, 1, hipMemcpyDeviceToDevice, &last);
	hge_check("c empty", hipGraphAddEmptyNode(&extra, c, &last, 1));
	hgo_update("c", e, c, last, extra);
	hgo_build(&g4, d, vd, 1, 1, hipMemcpyDeviceToDevice, &last);
	hgo_update("d", e, g4, NULL, last);
	hge_check("hipMemset d", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch d", hipGraphLaunch(e, 0));
	hgu_read("kind", d);
	hgo_build(&f, d, vf, 0, 0, hipMemcpyDeviceToDevice, &last);
	hgo_update("f", e, f, last, NULL);
	hge_check("hipMemset f", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch f", hipGraphLaunch(e, 0));
	hgu_read("dependencies", d);
	hgo_build(&g, d, vg, 0, 1, hipMemcpyDefault, &last);
	hgo_update("g", e, g, last, NULL);
	hge_check("hipMemset g", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphLaunch g", hipGraphLaunch(e, 0));
	hgu_read("copy kind", d);
	printf("update null %d\n", (int)hipGraphExecUpdate(e, b, &err, NULL));

	hge_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	hge_check("hipGraphDestroy a", hipGraphDestroy(a));
	hge_check("hipGraphDestroy b", hipGraphDestroy(b));
	hge_check("hipGraphDestroy c", hipGraphDestroy(c));
	hge_check("hipGraphDestroy d", hipGraphDestroy(g4));
	hge_check("hipGraphDestroy f", hipGraphDestroy(f));
	hge_check("hipGraphDestroy g", hipGraphDestroy(g));
	hge_check("hipFree", hipFree(d));
	return 0;
}

static int hgx_main(void)
{
	unsigned char *d = NULL;
	hipGraph_t a = NULL;
	hipGraphNode_t r, k, err = (hipGraphNode_t)&err;
	hipGraphExec_t e = NULL, e2 = NULL;
	hipGraphExecUpdateResult res = hipGraphExecUpdateSuccess;
	hipMemsetParams m;
	hipError_t rc;

	hge_check("hipMalloc", hipMalloc((void **)&d, HGE_N));
	hge_check("hipMemset", hipMemset(d, 0, HGE_N));
	hge_check("hipGraphCreate", hipGraphCreate(&a, 0));
	m = hgu_set(d, 0x11);
	hge_check("r", hipGraphAddMemsetNode(&r, a, NULL, 0, &m));
	for (int i = 1; i < 4; i++) {
		m = hgu_set(d + 64 * i, 0x11 * (unsigned)(i + 1));
		hge_check("child", hipGraphAddMemsetNode(&k, a, &r, 1, &m));
	}
	hge_check("hipGraphInstantiate", hipGraphInstantiate(&e, a, NULL, NULL, 0));
	hge_check("hipGraphDestroyNode", hipGraphDestroyNode(r));
	rc = hipGraphInstantiate(&e2, a, NULL, NULL, 0);
	printf("instantiate %d\n", (int)rc);
	rc = hipGraphExecUpdate(e, a, &err, &res);
	printf("update %d %d error node %s\n", (int)rc, (int)res, !err ? "null" : "other");
	hge_check("hipGraphLaunch", hipGraphLaunch(e, 0));
	hgu_read("after", d);
	hge_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	if (e2)
		hge_check("hipGraphExecDestroy e2", hipGraphExecDestroy(e2));
	hge_check("hipGraphDestroy", hipGraphDestroy(a));
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
	if (argc > 1 && strcmp(argv[1], "order") == 0)
		return hgo_main();
	if (argc > 1 && strcmp(argv[1], "destroy") == 0)
		return hgx_main();
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
