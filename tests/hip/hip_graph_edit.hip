/*
 * hip_graph_edit.hip - a graph built node by node, then changed by the
 * calls the compute model covers (docs/hip.md "Graphs built node by
 * node"): a memset node zeroes y, a saxpy kernel node (a = 2) after it, an
 * empty node after the kernel and a memset node of z (0x07 bytes) after
 * the empty node; a dependency kernel -> z's memset added and removed
 * again (hipGraphRemoveDependencies), the empty node destroyed
 * (hipGraphDestroyNode), the kernel node given a = 3
 * (hipGraphKernelNodeSetParams); then instantiated, launched and y and z
 * read back.  With the argument exec, the exec's kernel node is then
 * given a = 5 (hipGraphExecKernelNodeSetParams), the exec launched again
 * and y read back (y = 5x: the memset node zeroes it first), then given
 * a null function, which fails.  Prints each call's status and some
 * results; exit status 0 once it ran to its end.
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

int main(int argc, char **argv)
{
	enum { N = 256 };
	static float hx[N], hy[N];
	static unsigned char hz[N];
	float *dx = NULL, *dy = NULL;
	unsigned char *dz = NULL;
	int n = N;
	float a = 2.0f;
	void *args[] = {&n, &a, &dx, &dy};
	hipGraph_t g = NULL;
	hipGraphNode_t zero = NULL, k = NULL, empty = NULL, fill = NULL;
	hipGraphExec_t e = NULL;
	hipMemsetParams mp;
	hipKernelNodeParams kp;

	for (int i = 0; i < N; i++)
		hx[i] = (float)i;
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dx, sizeof(hx)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dy, sizeof(hy)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dz, sizeof(hz)));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dx, hx, sizeof(hx), hipMemcpyHostToDevice));
	printf("hipGraphCreate %d\n", (int)hipGraphCreate(&g, 0));
	memset(&mp, 0, sizeof(mp));
	mp.dst = dy;
	mp.elementSize = 4;
	mp.width = N;
	mp.height = 1;
	printf("hipGraphAddMemsetNode %d\n", (int)hipGraphAddMemsetNode(&zero, g, NULL, 0, &mp));
	memset(&kp, 0, sizeof(kp));
	kp.func = (void *)saxpy;
	kp.gridDim = dim3(N / 64);
	kp.blockDim = dim3(64);
	kp.kernelParams = args;
	printf("hipGraphAddKernelNode %d\n", (int)hipGraphAddKernelNode(&k, g, &zero, 1, &kp));
	printf("hipGraphAddEmptyNode %d\n", (int)hipGraphAddEmptyNode(&empty, g, &k, 1));
	mp.dst = dz;
	mp.value = 7;
	mp.elementSize = 1;
	printf("hipGraphAddMemsetNode %d\n", (int)hipGraphAddMemsetNode(&fill, g, &empty, 1, &mp));
	printf("hipGraphAddDependencies %d\n", (int)hipGraphAddDependencies(g, &k, &fill, 1));
	printf("hipGraphRemoveDependencies %d\n", (int)hipGraphRemoveDependencies(g, &k, &fill, 1));
	printf("hipGraphRemoveDependencies again %d\n", (int)hipGraphRemoveDependencies(g, &k, &fill, 1));
	printf("hipGraphDestroyNode %d\n", (int)hipGraphDestroyNode(empty));
	a = 3.0f;
	printf("hipGraphKernelNodeSetParams %d\n", (int)hipGraphKernelNodeSetParams(k, &kp));
	printf("hipGraphInstantiate %d\n", (int)hipGraphInstantiate(&e, g, NULL, NULL, 0));
	printf("hipGraphLaunch %d\n", (int)hipGraphLaunch(e, 0));
	printf("hipDeviceSynchronize %d\n", (int)hipDeviceSynchronize());
	printf("hipMemcpy %d\n", (int)hipMemcpy(hy, dy, sizeof(hy), hipMemcpyDeviceToHost));
	printf("hipMemcpy %d\n", (int)hipMemcpy(hz, dz, sizeof(hz), hipMemcpyDeviceToHost));
	printf("y[5] %.1f y[255] %.1f z[0] %d z[255] %d\n", hy[5], hy[255], hz[0], hz[255]);
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		a = 5.0f;
		printf("hipGraphExecKernelNodeSetParams %d\n",
		       (int)hipGraphExecKernelNodeSetParams(e, k, &kp));
		printf("hipGraphLaunch %d\n", (int)hipGraphLaunch(e, 0));
		printf("hipDeviceSynchronize %d\n", (int)hipDeviceSynchronize());
		printf("hipMemcpy %d\n", (int)hipMemcpy(hy, dy, sizeof(hy), hipMemcpyDeviceToHost));
		printf("exec y[5] %.1f y[255] %.1f\n", hy[5], hy[255]);
		kp.func = NULL;
		printf("hipGraphExecKernelNodeSetParams null %d\n",
		       (int)hipGraphExecKernelNodeSetParams(e, k, &kp));
	}
	printf("hipGraphExecDestroy %d\n", (int)hipGraphExecDestroy(e));
	printf("hipGraphDestroy %d\n", (int)hipGraphDestroy(g));
	return 0;
}
