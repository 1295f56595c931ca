/*
 * cuda_graph_app - stream capture: captures an upload, a memset and three
 * launches on one stream into a graph, checks that capturing ran nothing,
 * instantiates it and launches it --launches times, then reads back and
 * prints the hash.  --readback also captures a copy of the result to the
 * host into the graph (written at every graph launch), and prints its hash
 * too.
 *
 * --window (for tests/shell/test_cuda_windows.sh): first a spare graph
 * (one memset) is captured, instantiated, launched once and destroyed
 * with its exec; then the graph above is captured and instantiated (and,
 * with --drop-graph, the graph destroyed at once: its exec lives on), and
 * only then are cuProfilerStart and cuProfilerStop called around the
 * graph's launches and the read-back: a capture window that launches an
 * executable graph made before it.
 *
 * --capture-event: an event is recorded inside the capture (after the
 * memset) and the capturing stream waits on it there: no node, in-stream
 * order (a window's snapshot must capture both again).
 *   cuda_graph_app [--launches N] [--readback] [--capture-event] [--window [--drop-graph]]
 */
#include <cudaProfiler.h>

#include "tests/cuda/cuprog.h"

int main(int argc, char **argv)
{
	unsigned launches = 3, n = 2048, block = 256, grid = (n + block - 1) / block;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_vadd, f_scale;
	CUdeviceptr d_a, d_b, d_acc;
	CUstream s;
	CUgraph graph;
	CUgraphExec exec;
	CUstreamCaptureStatus st;
	uint32_t *h = malloc(n * sizeof(uint32_t)), *back = malloc(n * sizeof(uint32_t));
	uint32_t *inside = calloc(n, sizeof(uint32_t));
	int readback = 0, window = 0, drop_graph = 0, capture_event = 0;
	CUevent ev;
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_graph_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--launches") && i + 1 < argc) {
			launches = cup_parse_uint("--launches", argv[++i], 1, 1000);
		} else if (!strcmp(argv[i], "--readback")) {
			readback = 1;
		} else if (!strcmp(argv[i], "--window")) {
			window = 1;
		} else if (!strcmp(argv[i], "--drop-graph")) {
			drop_graph = 1;
		} else if (!strcmp(argv[i], "--capture-event")) {
			capture_event = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_graph_app [--launches N] [--readback] [--capture-event] [--window "
			       "[--drop-graph]]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_graph_app: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	if (!h || !back || !inside)
		return 1;
	for (unsigned i = 0; i < n; i++)
		h[i] = i ^ 0x1234u;
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_fill, mod, "fill"));
	CUP_CK(cuModuleGetFunction(&f_vadd, mod, "vadd"));
	CUP_CK(cuModuleGetFunction(&f_scale, mod, "racy_scale"));
	CUP_CK(cuMemAlloc(&d_a, n * 4));
	CUP_CK(cuMemAlloc(&d_b, n * 4));
	CUP_CK(cuMemAlloc(&d_acc, n * 4));
	CUP_CK(cuMemsetD32(d_acc, 1, n));
	CUP_CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuEventCreate(&ev, CU_EVENT_DEFAULT));
	if (window) {
		/* A graph made, launched and gone before the window. */
		CUgraph spare;
		CUgraphExec spare_exec;
		CUP_CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
		CUP_CK(cuMemsetD32Async(d_b, 9, n, s));
		CUP_CK(cuStreamEndCapture(s, &spare));
		CUP_CK(cuGraphInstantiate(&spare_exec, spare, 0));
		CUP_CK(cuGraphLaunch(spare_exec, s));
		CUP_CK(cuStreamSynchronize(s));
		CUP_CK(cuGraphExecDestroy(spare_exec));
		CUP_CK(cuGraphDestroy(spare));
	}

	CUP_CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CUP_CK(cuStreamIsCapturing(s, &st));
	if (st != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
		fprintf(stderr, "cuda_graph_app: stream is not capturing after cuStreamBeginCapture\n");
		return 1;
	}
	CUP_CK(cuMemcpyHtoDAsync(d_a, h, n * 4, s));
	CUP_CK(cuMemsetD32Async(d_b, 0, n, s));
	if (capture_event) {
		CUP_CK(cuEventRecord(ev, s));
		CUP_CK(cuStreamWaitEvent(s, ev, 0));
	}
	{
		uint32_t value = 17, stride = 5, k = 3;
		void *fill_args[] = { &d_b, &value, &stride, &n };
		void *vadd_args[] = { &d_acc, &d_b, &d_acc, &n };
		void *scale_args[] = { &d_acc, &k, &n };

		CUP_CK(cuLaunchKernel(f_fill, grid, 1, 1, block, 1, 1, 0, s, fill_args, NULL));
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s, vadd_args, NULL));
		CUP_CK(cuLaunchKernel(f_scale, grid, 1, 1, block, 1, 1, 0, s, scale_args, NULL));
	}
	if (readback)
		CUP_CK(cuMemcpyDtoHAsync(inside, d_acc, n * 4, s));
	CUP_CK(cuStreamEndCapture(s, &graph));
	/* Nothing captured may have run. */
	CUP_CK(cuMemcpyDtoH(back, d_acc, n * 4));
	for (unsigned i = 0; i < n; i++)
		if (back[i] != 1) {
			fprintf(stderr, "cuda_graph_app: element %u is %u after capture: captured work ran\n", i, back[i]);
			return 1;
		}
	CUP_CK(cuGraphInstantiate(&exec, graph, 0));
	if (drop_graph)
		CUP_CK(cuGraphDestroy(graph));
	if (window)
		CUP_CK(cuProfilerStart());
	for (unsigned i = 0; i < launches; i++)
		CUP_CK(cuGraphLaunch(exec, s));
	CUP_CK(cuStreamSynchronize(s));
	CUP_CK(cuMemcpyDtoH(back, d_acc, n * 4));
	if (window)
		CUP_CK(cuProfilerStop());
	printf("cuda_graph_app: launches %u hash 0x%016llx\n", launches, (unsigned long long)XXH64(back, n * 4, 0));
	if (readback)
		printf("cuda_graph_app: read back in the graph 0x%016llx\n",
		       (unsigned long long)XXH64(inside, n * 4, 0));
	CUP_CK(cuGraphExecDestroy(exec));
	if (!drop_graph)
		CUP_CK(cuGraphDestroy(graph));
	CUP_CK(cuEventDestroy(ev));
	CUP_CK(cuStreamDestroy(s));
	CUP_CK(cuMemFree(d_a));
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_acc));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	free(h);
	free(back);
	free(inside);
	return 0;
}
