/*
 * hip_struct.hip - a kernel taking a by-value struct that holds device
 * pointers and a double, a __device__ global written with
 * hipMemcpyToSymbol, and two streams ordered by an event: what the
 * code object's metadata must describe (.args offsets and sizes,
 * global_buffer vs by_value) and what __hipRegisterVar registers.
 */
#include <hip/hip_runtime.h>
#include <stdio.h>

struct axpy_args {
	const double *x;
	double *y;
	double a;
	int n;
};

__device__ int launches_seen;

__global__ void axpy_struct(struct axpy_args args, int bias)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < args.n)
		args.y[i] = args.a * args.x[i] + args.y[i] + bias;
	if (i == 0)
		launches_seen++;
}

__global__ void fill(double *p, double v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

int main(void)
{
	enum { N = 512 };
	static double hy[N];
	struct axpy_args a = {NULL, NULL, 3.0, N};
	hipStream_t s1 = NULL, s2 = NULL;
	hipEvent_t ev = NULL;
	int zero = 0;
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s1));
	printf("hipStreamCreateWithFlags %d\n", (int)hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
	printf("hipEventCreate %d\n", (int)hipEventCreate(&ev));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&a.x, N * sizeof(double)));
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&a.y, N * sizeof(double)));
	printf("hipMemcpyToSymbol %d\n", (int)hipMemcpyToSymbol(HIP_SYMBOL(launches_seen), &zero, sizeof(zero)));
	printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(a.y, 0, N * sizeof(double), s1));
	hipLaunchKernelGGL(fill, dim3(N / 128), dim3(128), 0, s1, (double *)a.x, 1.5, N);
	printf("fill %d\n", (int)hipGetLastError());
	printf("hipEventRecord %d\n", (int)hipEventRecord(ev, s1));
	printf("hipStreamWaitEvent %d\n", (int)hipStreamWaitEvent(s2, ev, 0));
	hipLaunchKernelGGL(axpy_struct, dim3(N / 128), dim3(128), 0, s2, a, 7);
	printf("axpy_struct %d\n", (int)hipGetLastError());
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(hy, a.y, sizeof(hy), hipMemcpyDeviceToHost, s2));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s2));
	printf("hipEventDestroy %d\n", (int)hipEventDestroy(ev));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s1));
	printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s2));
	printf("hipFree %d\n", (int)hipFree((void *)a.x));
	printf("hipFree %d\n", (int)hipFree(a.y));
	printf("y[5] %.1f\n", hy[5]);
	return 0;
}
