/*
 * hip_success_app - the interposer's success paths, on libhip_fake.so
 * (tests/hip/hip_fake_runtime.c: every call succeeds, "device" memory is
 * host memory): registers the real bundle argv[1] (a hipcc --genco file,
 * through a fat-binary wrapper as hipcc's constructor does) with one
 * kernel, launches it by its host stub with hipLaunchKernel, loads the
 * same bundle with hipModuleLoadData and launches "scale" with
 * kernelParams, copies to and from "device" memory (sync and async on a
 * stream), captures a launch on that stream into a graph and launches the
 * graph, and prints the bytes it read back.
 */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/tst.h"

void **__hipRegisterFatBinary(const void *data);
void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize);
void __hipUnregisterFatBinary(void **modules);

/* What hipcc's stub of add_offset would be: its address names the kernel. */
static void hipsa_add_offset_stub(void)
{
}

int main(int argc, char **argv)
{
	size_t len = 0;
	unsigned char *bundle = argc == 2 ? tst_read_file(argv[1], &len) : NULL;
	struct {
		uint32_t magic, version;
		const void *bundle;
		const void *unused;
	} wrapper = {0x48495046u, 1, NULL, NULL};
	void **handle;
	hipModule_t mod = NULL;
	hipFunction_t scale = NULL;
	hipStream_t s = NULL;
	float host[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0};
	float *dev = NULL, off = 0.25f;
	int n = 8;
	if (!bundle) {
		fprintf(stderr, "usage: hip_success_app BUNDLE (a readable hipcc --genco file)\n");
		return 2;
	}
	wrapper.bundle = bundle;
	handle = __hipRegisterFatBinary(&wrapper);
	__hipRegisterFunction(handle, (const void *)hipsa_add_offset_stub, "_Z10add_offsetPffi",
	                      "_Z10add_offsetPffi", (unsigned)-1, NULL, NULL, NULL, NULL, NULL);
	printf("hipMalloc %d\n", (int)hipMalloc((void **)&dev, sizeof(host)));
	printf("hipMemcpy %d\n", (int)hipMemcpy(dev, host, sizeof(host), hipMemcpyHostToDevice));
	{
		void *args[] = {&dev, &off, &n};
		dim3 grid = {1, 1, 1}, block = {8, 1, 1};
		printf("hipLaunchKernel %d\n",
		       (int)hipLaunchKernel((const void *)hipsa_add_offset_stub, grid, block, args, 0, NULL));
	}
	printf("hipModuleLoadData %d\n", (int)hipModuleLoadData(&mod, bundle));
	printf("hipModuleGetFunction %d\n", (int)hipModuleGetFunction(&scale, mod, "scale"));
	{
		void *params[] = {&dev, &n};
		printf("hipModuleLaunchKernel %d\n",
		       (int)hipModuleLaunchKernel(scale, 1, 1, 1, 8, 1, 1, 0, NULL, params, NULL));
	}
	printf("hipMemcpy %d\n", (int)hipMemcpy(back, dev, sizeof(back), hipMemcpyDeviceToHost));
	printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
	printf("hipMemcpyAsync %d\n", (int)hipMemcpyAsync(back, dev + 4, 16, hipMemcpyDefault, s));
	printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	{
		void *params[] = {&dev, &n};
		hipGraph_t graph = NULL;
		hipGraphExec_t exec = NULL;
		printf("hipStreamBeginCapture %d\n",
		       (int)hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
		printf("hipModuleLaunchKernel %d\n",
		       (int)hipModuleLaunchKernel(scale, 1, 1, 1, 8, 1, 1, 0, s, params, NULL));
		printf("hipStreamEndCapture %d\n", (int)hipStreamEndCapture(s, &graph));
		printf("hipGraphInstantiate %d\n", (int)hipGraphInstantiate(&exec, graph, NULL, NULL, 0));
		printf("hipGraphLaunch %d\n", (int)hipGraphLaunch(exec, s));
		printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
	}
	printf("hipFree %d\n", (int)hipFree(dev));
	__hipUnregisterFatBinary(handle);
	printf("back %.1f %.1f\n", back[0], back[3]);
	free(bundle);
	return 0;
}
