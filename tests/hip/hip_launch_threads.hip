/*
 * hip_launch_threads.hip - launches from several threads while function
 * entries are being stored (the interposer's look-up without a lock,
 * docs/hip.md "Limits of this phase"): each of 4 threads loads the code
 * object at argv[1] (hip_module_kernels.hsaco) itself, gets add_offset
 * from its module (a new function entry each time) and launches it 300
 * times with kernelParams on its own 256 floats p (p[i] += 1), with a
 * `<<<>>>` saxpy launch after each (p[i] += i).  Prints each thread's p[5]
 * (1805.0: every launch ran) and each call that failed; exit status 0
 * once every thread ran to its end, 2 on bad arguments.
 */
#include <hip/hip_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define HLT_N 256
#define HLT_THREADS 4
#define HLT_LAUNCHES 300

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

static const char *hlt_image;

typedef struct hlt_result {
	float p5;
	int failed;
} hlt_result;

static void hlt_check(hlt_result *r, const char *what, hipError_t e)
{
	if (e != hipSuccess) {
		printf("%s %d\n", what, (int)e);
		r->failed = 1;
	}
}

static void *hlt_thread(void *arg)
{
	hlt_result *r = (hlt_result *)arg;
	float host[HLT_N], *dp = NULL, *dx = NULL, off = 1.0f;
	hipModule_t mod = NULL;
	hipFunction_t add = NULL;
	int n = HLT_N;

	for (int i = 0; i < HLT_N; i++)
		host[i] = (float)i;
	hlt_check(r, "hipModuleLoadData", hipModuleLoadData(&mod, hlt_image));
	hlt_check(r, "hipModuleGetFunction", hipModuleGetFunction(&add, mod, "_Z10add_offsetPffi"));
	hlt_check(r, "hipMalloc", hipMalloc((void **)&dp, sizeof(host)));
	hlt_check(r, "hipMalloc", hipMalloc((void **)&dx, sizeof(host)));
	hlt_check(r, "hipMemcpy", hipMemcpy(dp, host, sizeof(host), hipMemcpyHostToDevice));
	hlt_check(r, "hipMemcpy", hipMemcpy(dx, host, sizeof(host), hipMemcpyHostToDevice));
	for (int i = 0; i < HLT_LAUNCHES && !r->failed; i++) {
		void *params[] = {&dp, &off, &n};
		hlt_check(r, "hipModuleLaunchKernel",
		          hipModuleLaunchKernel(add, HLT_N / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
		saxpy<<<HLT_N / 64, 64>>>(n, 1.0f, dx, dp);
	}
	hlt_check(r, "hipDeviceSynchronize", hipDeviceSynchronize());
	hlt_check(r, "hipMemcpy", hipMemcpy(host, dp, sizeof(host), hipMemcpyDeviceToHost));
	r->p5 = host[5];
	return NULL;
}

static char *hlt_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = (char *)malloc((size_t)len)) && fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	pthread_t t[HLT_THREADS];
	hlt_result r[HLT_THREADS] = {};
	char *image = argc > 1 ? hlt_read(argv[1]) : NULL;

	if (!image) {
		fprintf(stderr, "usage: hip_launch_threads hip_module_kernels.hsaco\n");
		return 2;
	}
	hlt_image = image;
	for (int i = 0; i < HLT_THREADS; i++)
		if (pthread_create(&t[i], NULL, hlt_thread, &r[i]) != 0)
			return 1;
	for (int i = 0; i < HLT_THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < HLT_THREADS; i++)
		printf("thread %d: p[5] %.1f\n", i, r[i].p5);
	free(image);
	return 0;
}
