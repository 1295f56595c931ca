/*
 * hip_graph_nodes.hip - a graph built node by node: hipGraphCreate, a
 * hipGraphAddMemcpyNode1D uploading x, a hipGraphAddMemsetNode filling y
 * with 1.0f (4-byte elements), a kernel node of poke (y[3] = 100) added
 * with no dependencies, a hipGraphAddKernelNode of saxpy after the upload
 * and the fill (y = 2x + y), an empty node after it, poke made to follow
 * the empty node by hipGraphAddDependencies (without that edge it could
 * run first: y[3] would be 106), and a hipGraphAddMemcpyNode (hipMemcpy3DParms,
 * device to device) copying y into z after poke; instantiated by
 * hipGraphInstantiateWithFlags and launched twice on a stream, and by
 * hipGraphInstantiate and launched once more; z read back after each
 * (hipMemcpy).  With the argument "checks", calls the runtime refuses
 * print their codes; with the path of hip_module_kernels.hsaco, a kernel
 * node of its add_offset, by the hipFunction_t of hipModuleGetFunction,
 * adds 0.5 to z after the copy (z[5] 11.5).  With the argument "child", a
 * child graph (a memset node filling w with 1.0f, then a child graph node
 * of its own whose graph holds a saxpy kernel node w = 3x + w) joins the
 * graph by hipGraphAddChildGraphNode after the upload, a poke node (w[5] = 7) after the child node, and a memset
 * node zeroing w is added to the child afterwards (the parent took its
 * copy before: w[3] stays 10); w is read back after each launch too (w[5]
 * is 22 if poke ran before the child's saxpy, 16 before its memset).
 * Prints each failing call and what z (and w) holds; exit status 0 once
 * it ran to its end.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void poke(float *p, long long index, float v)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		p[index] = v;
}

enum { N = 1024 };

static void hgn_check(const char *what, hipError_t r)
{
	if (r != hipSuccess)
		printf("%s %d\n", what, (int)r);
}

static void hgn_show(const char *what, const float *z)
{
	double sum = 0;
	for (int i = 0; i < N; i++)
		sum += z[i];
	printf("%s: z[3] %.1f z[5] %.1f z[1023] %.1f sum %.1f\n", what, z[3], z[5], z[N - 1], sum);
}

/* w read back after a launch of the graph with its child node */
static void hgn_show_w(const char *what, const float *dw)
{
	static float hw[N];
	double sum = 0;

	if (!dw)
		return;
	memset(hw, 0, sizeof(hw));
	hgn_check("hipMemcpy w", hipMemcpy(hw, dw, sizeof(hw), hipMemcpyDeviceToHost));
	for (int i = 0; i < N; i++)
		sum += hw[i];
	printf("%s: w[3] %.1f w[5] %.1f w[1023] %.1f sum %.1f\n", what, hw[3], hw[5], hw[N - 1], sum);
}

int main(int argc, char **argv)
{
	static float hx[N], hz[N];
	float *dx = NULL, *dy = NULL, *dz = NULL, *dw = NULL;
	hipStream_t s = NULL;
	hipGraph_t g = NULL;
	hipGraphExec_t e = NULL, e2 = NULL;
	hipGraphNode_t up = NULL, fill = NULL, ax = NULL, empty = NULL, pk = NULL, out = NULL;
	hipGraphNode_t both[2];
	int n = N;
	float a = 2.0f, v = 100.0f;
	long long index = 3;
	void *axargs[] = {&n, &a, &dx, &dy};
	void *pkargs[] = {&dy, &index, &v};
	hipKernelNodeParams kp;
	hipMemsetParams mp;
	hipMemcpy3DParms cp;

	for (int i = 0; i < N; i++)
		hx[i] = (float)i;
	hgn_check("hipStreamCreate", hipStreamCreate(&s));
	hgn_check("hipMalloc x", hipMalloc((void **)&dx, sizeof(hx)));
	hgn_check("hipMalloc y", hipMalloc((void **)&dy, sizeof(hx)));
	hgn_check("hipMalloc z", hipMalloc((void **)&dz, sizeof(hx)));
	hgn_check("hipGraphCreate", hipGraphCreate(&g, 0));
	hgn_check("hipGraphAddMemcpyNode1D",
	          hipGraphAddMemcpyNode1D(&up, g, NULL, 0, dx, hx, sizeof(hx), hipMemcpyHostToDevice));
	memset(&mp, 0, sizeof(mp));
	mp.dst = dy;
	mp.elementSize = 4;
	mp.width = N;
	mp.height = 1;
	mp.value = 0x3f800000u; /* 1.0f */
	hgn_check("hipGraphAddMemsetNode", hipGraphAddMemsetNode(&fill, g, NULL, 0, &mp));
	/* poke first, with no dependencies: only hipGraphAddDependencies below
	 * puts it after saxpy */
	memset(&kp, 0, sizeof(kp));
	kp.func = (void *)poke;
	kp.gridDim = dim3(1);
	kp.blockDim = dim3(1);
	kp.kernelParams = pkargs;
	hgn_check("hipGraphAddKernelNode poke", hipGraphAddKernelNode(&pk, g, NULL, 0, &kp));
	kp.func = (void *)saxpy;
	kp.gridDim = dim3(N / 256);
	kp.blockDim = dim3(256);
	kp.kernelParams = axargs;
	both[0] = up;
	both[1] = fill;
	hgn_check("hipGraphAddKernelNode saxpy", hipGraphAddKernelNode(&ax, g, both, 2, &kp));
	hgn_check("hipGraphAddEmptyNode", hipGraphAddEmptyNode(&empty, g, &ax, 1));
	hgn_check("hipGraphAddDependencies", hipGraphAddDependencies(g, &empty, &pk, 1));
	memset(&cp, 0, sizeof(cp));
	cp.srcPtr = make_hipPitchedPtr(dy, sizeof(hx), sizeof(hx), 1);
	cp.dstPtr = make_hipPitchedPtr(dz, sizeof(hx), sizeof(hx), 1);
	cp.extent = make_hipExtent(sizeof(hx), 1, 1);
	cp.kind = hipMemcpyDeviceToDevice;
	hgn_check("hipGraphAddMemcpyNode", hipGraphAddMemcpyNode(&out, g, &pk, 1, &cp));
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		hipGraph_t cg = NULL, gg = NULL;
		hipGraphNode_t cfill = NULL, cax = NULL, cgc = NULL, ch = NULL, pw = NULL, late = NULL;
		static float a3 = 3.0f, seven = 7.0f;
		static long long five = 5;
		static void *cargs[4], *pwargs[3];
		hgn_check("hipMalloc w", hipMalloc((void **)&dw, sizeof(hx)));
		cargs[0] = &n;
		cargs[1] = &a3;
		cargs[2] = &dx;
		cargs[3] = &dw;
		pwargs[0] = &dw;
		pwargs[1] = &five;
		pwargs[2] = &seven;
		hgn_check("hipGraphCreate grandchild", hipGraphCreate(&gg, 0));
		kp.func = (void *)saxpy;
		kp.gridDim = dim3(N / 256);
		kp.blockDim = dim3(256);
		kp.kernelParams = cargs;
		hgn_check("hipGraphAddKernelNode grandchild", hipGraphAddKernelNode(&cax, gg, NULL, 0, &kp));
		hgn_check("hipGraphCreate child", hipGraphCreate(&cg, 0));
		mp.dst = dw;
		hgn_check("hipGraphAddMemsetNode child", hipGraphAddMemsetNode(&cfill, cg, NULL, 0, &mp));
		hgn_check("hipGraphAddChildGraphNode grandchild",
		          hipGraphAddChildGraphNode(&cgc, cg, &cfill, 1, gg));
		hgn_check("hipGraphAddChildGraphNode", hipGraphAddChildGraphNode(&ch, g, &up, 1, cg));
		kp.func = (void *)poke;
		kp.gridDim = dim3(1);
		kp.blockDim = dim3(1);
		kp.kernelParams = pwargs;
		hgn_check("hipGraphAddKernelNode poke w", hipGraphAddKernelNode(&pw, g, &ch, 1, &kp));
		/* after the parent took its copy: not in the parent */
		mp.value = 0;
		hgn_check("hipGraphAddMemsetNode child late",
		          hipGraphAddMemsetNode(&late, cg, &cgc, 1, &mp));
		hgn_check("hipGraphDestroy child", hipGraphDestroy(cg));
		hgn_check("hipGraphDestroy grandchild", hipGraphDestroy(gg));
	} else if (argc > 1 && strcmp(argv[1], "checks") != 0) {
		/* a kernel node by hipFunction_t (clr's getFunc takes one): the
		 * module's add_offset adds 0.5 to z after the copy */
		hipModule_t m = NULL;
		hipFunction_t f = NULL;
		hipGraphNode_t off = NULL;
		float half = 0.5f;
		void *offargs[] = {&dz, &half, &n};
		hgn_check("hipModuleLoad", hipModuleLoad(&m, argv[1]));
		hgn_check("hipModuleGetFunction",
		          hipModuleGetFunction(&f, m, "_Z10add_offsetPffi"));
		kp.func = (void *)f;
		kp.gridDim = dim3(N / 256);
		kp.blockDim = dim3(256);
		kp.kernelParams = offargs;
		hgn_check("hipGraphAddKernelNode add_offset", hipGraphAddKernelNode(&off, g, &out, 1, &kp));
	}

	hgn_check("hipGraphInstantiateWithFlags", hipGraphInstantiateWithFlags(&e, g, 0));
	for (int k = 0; k < 2; k++) {
		hgn_check("hipGraphLaunch", hipGraphLaunch(e, s));
		hgn_check("hipStreamSynchronize", hipStreamSynchronize(s));
		memset(hz, 0, sizeof(hz));
		hgn_check("hipMemcpy", hipMemcpy(hz, dz, sizeof(hz), hipMemcpyDeviceToHost));
		hgn_show(k ? "second launch" : "first launch", hz);
		hgn_show_w(k ? "second launch" : "first launch", dw);
	}
	hgn_check("hipMemset z", hipMemset(dz, 0, sizeof(hz)));
	hgn_check("hipGraphInstantiate", hipGraphInstantiate(&e2, g, NULL, NULL, 0));
	hgn_check("hipGraphLaunch (2)", hipGraphLaunch(e2, s));
	hgn_check("hipStreamSynchronize (2)", hipStreamSynchronize(s));
	memset(hz, 0, sizeof(hz));
	hgn_check("hipMemcpy (2)", hipMemcpy(hz, dz, sizeof(hz), hipMemcpyDeviceToHost));
	hgn_show("second exec", hz);
	hgn_show_w("second exec", dw);

	if (argc > 1 && strcmp(argv[1], "checks") == 0) {
		hipGraph_t x = NULL;
		hipGraphNode_t nn = NULL;
		hipGraphExec_t ee = NULL;
		printf("create flags 1 %d\n", (int)hipGraphCreate(&x, 1));
		kp.func = (void *)poke;
		kp.kernelParams = NULL;
		printf("kernel no params %d\n", (int)hipGraphAddKernelNode(&nn, g, NULL, 0, &kp));
		kp.kernelParams = pkargs;
		kp.func = (void *)hgn_show;
		printf("kernel not registered %d\n", (int)hipGraphAddKernelNode(&nn, g, NULL, 0, &kp));
		mp.elementSize = 3;
		printf("memset element 3 %d\n", (int)hipGraphAddMemsetNode(&nn, g, NULL, 0, &mp));
		printf("edge to itself %d\n", (int)hipGraphAddDependencies(g, &pk, &pk, 1));
		printf("edge twice %d\n", (int)hipGraphAddDependencies(g, &empty, &pk, 1));
		printf("instantiate flags 5 %d\n", (int)hipGraphInstantiateWithFlags(&ee, g, 5));
	}

	hgn_check("hipGraphExecDestroy", hipGraphExecDestroy(e));
	hgn_check("hipGraphExecDestroy (2)", hipGraphExecDestroy(e2));
	hgn_check("hipGraphDestroy", hipGraphDestroy(g));
	hgn_check("hipFree", hipFree(dx));
	hgn_check("hipFree", hipFree(dy));
	hgn_check("hipFree", hipFree(dz));
	if (dw)
		hgn_check("hipFree w", hipFree(dw));
	hgn_check("hipStreamDestroy", hipStreamDestroy(s));
	printf("done\n");
	return 0;
}
