/*
 * cuda_window_app - a driver-API program whose middle part a capture
 * window takes (tests/shell/test_cuda_windows.sh): everything a window's
 * snapshot must recreate is made before it, and some of it ends before
 * it.
 *
 * Before the loop: the primary context, the module loaded from a buffer
 * that is overwritten and freed at once (the capture must have copied the
 * image), its functions, a global, a non-blocking stream, an event, x and
 * y, pinned host memory, a VMM reservation with a mapping of the
 * program's own, and a buffer and a stream made and ended again.  Then
 * --iterations I rounds of two launches each (launches 2i-1 and 2i):
 * fill z (allocated in the round) with i, then y = i * x + y, then y and
 * z copied back (an async copy waited on with the event, a synchronous
 * one: two checkpoints), and z freed; each round also writes the VMM
 * mapping from z and reads it back (a third checkpoint).
 *
 * --marks profiler|nvtx puts cuProfilerStart / an NVTX range named
 * --name (default "window") before round --from and cuProfilerStop / the
 * range's end after round --to (and again around rounds A..B with
 * --again A-B); --nvtx-form push|start|ex|wide picks nvtxRangePushA/Pop,
 * nvtxRangeStartA/End, nvtxRangePushEx/Pop or nvtxRangeStartW/End (--from 0: an NVTX range
 * begun before the first CUDA call); --procaddr calls the
 * profiler markers through pointers from cuGetProcAddress (as cudart
 * does) instead of their link-time symbols.  --stall R stops after round
 * R: it prints "cuda_window_app: stalled after round R" and sleeps until
 * it is killed (the SIGKILL test, test_capture_kill_frontends.sh).
 * Prints the hash of the last y.
 */
#include <nvtx3/nvToolsExt.h>

#include <cudaProfiler.h>
#include <cudaProfilerTypedefs.h>
#include <wchar.h>

#include "tests/cuda/cuprog.h"

#define CWA_N 1024u

static void cwa_usage(FILE *f)
{
	fprintf(f, "usage: cuda_window_app [--iterations I] [--marks none|profiler|nvtx] [--from R] "
	           "[--to R] [--again R-R] [--name NAME] [--nvtx-form push|start|ex|wide] [--procaddr] "
	           "[--stall R]\n");
}

int main(int argc, char **argv)
{
	unsigned iterations = 6, from = 2, to = 4, from2 = 0, to2 = 0, stall = 0;
	const char *marks = "none", *name = "window", *form = "push";
	static const struct cup_api errs = {.GetErrorName = cuGetErrorName};
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction saxpy, fill;
	CUstream s, gone;
	CUevent ev;
	CUdeviceptr x, y, tmp, glob, va;
	CUmemGenericAllocationHandle vh;
	CUmemAllocationProp prop;
	CUmemAccessDesc access;
	size_t glob_size, gran = 0, image_size;
	float *pinned, *host;
	uint32_t *zhost;
	nvtxRangeId_t range = 0;
	PFN_cuProfilerStart_v4000 prof_start = cuProfilerStart;
	PFN_cuProfilerStop_v4000 prof_stop = cuProfilerStop;
	int procaddr = 0;
	void *image;

	cup_prog = "cuda_window_app";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iterations") && i + 1 < argc) {
			iterations = cup_parse_uint("--iterations", argv[++i], 1, 100000);
		} else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
			from = cup_parse_uint("--from", argv[++i], 0, 100000);
		} else if (!strcmp(argv[i], "--to") && i + 1 < argc) {
			to = cup_parse_uint("--to", argv[++i], 1, 100000);
		} else if (!strcmp(argv[i], "--again") && i + 1 < argc) {
			if (sscanf(argv[++i], "%u-%u", &from2, &to2) != 2 || !from2 || to2 < from2) {
				fprintf(stderr, "cuda_window_app: --again wants FROM-TO\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--marks") && i + 1 < argc) {
			marks = argv[++i];
			if (strcmp(marks, "none") && strcmp(marks, "profiler") && strcmp(marks, "nvtx")) {
				fprintf(stderr, "cuda_window_app: --marks must be none, profiler or nvtx\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			name = argv[++i];
		} else if (!strcmp(argv[i], "--nvtx-form") && i + 1 < argc) {
			form = argv[++i];
			if (strcmp(form, "push") && strcmp(form, "start") && strcmp(form, "ex") &&
			    strcmp(form, "wide")) {
				fprintf(stderr, "cuda_window_app: --nvtx-form must be push, start, ex or wide\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--stall") && i + 1 < argc) {
			stall = cup_parse_uint("--stall", argv[++i], 1, 100000);
		} else if (!strcmp(argv[i], "--procaddr")) {
			procaddr = 1;
		} else if (!strcmp(argv[i], "--help")) {
			cwa_usage(stdout);
			return 0;
		} else {
			cwa_usage(stderr);
			return 2;
		}
	}

	if (from == 0 && !strcmp(marks, "nvtx"))
		nvtxRangePushA(name);
	CUP_CK(cuInit(0));
	if (procaddr) {
		CUdriverProcAddressQueryResult st;
		void *fn = NULL;
		CUP_CK(cuGetProcAddress("cuProfilerStart", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
		prof_start = (PFN_cuProfilerStart_v4000)fn;
		CUP_CK(cuGetProcAddress("cuProfilerStop", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st));
		prof_stop = (PFN_cuProfilerStop_v4000)fn;
		if (!prof_start || !prof_stop) {
			fprintf(stderr, "cuda_window_app: cuGetProcAddress gave no profiler markers\n");
			return 1;
		}
	}
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", &image_size);
	CUP_CK(cuModuleLoadData(&mod, image));
	memset(image, 0xa5, image_size); /* the capture must have kept a copy */
	free(image);
	CUP_CK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
	CUP_CK(cuModuleGetFunction(&fill, mod, "fill"));
	CUP_CK(cuModuleGetGlobal(&glob, &glob_size, mod, "table"));
	CUP_CK(cuMemsetD32(glob, 7, glob_size / 4));
	CUP_CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuStreamCreate(&gone, 0));
	CUP_CK(cuStreamDestroy(gone));
	CUP_CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	CUP_CK(cuMemAlloc(&tmp, 4096));
	CUP_CK(cuMemAlloc(&x, CWA_N * sizeof(float)));
	CUP_CK(cuMemAlloc(&y, CWA_N * sizeof(float)));
	CUP_CK(cuMemFree(tmp));
	CUP_CK(cuMemAllocHost((void **)&pinned, CWA_N * sizeof(float)));
	host = malloc(CWA_N * sizeof(float));
	zhost = malloc(CWA_N * sizeof(uint32_t));
	if (!host || !zhost) {
		fprintf(stderr, "cuda_window_app: out of memory\n");
		return 1;
	}
	for (unsigned i = 0; i < CWA_N; i++) {
		host[i] = (float)i;
		pinned[i] = 1.0f;
	}
	CUP_CK(cuMemcpyHtoD(x, host, CWA_N * sizeof(float)));
	CUP_CK(cuMemcpyHtoD(y, pinned, CWA_N * sizeof(float)));
	/* The program's own VMM memory: a reservation and one mapping. */
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	CUP_CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	CUP_CK(cuMemAddressReserve(&va, 2 * gran, 0, 0, 0));
	CUP_CK(cuMemCreate(&vh, gran, &prop, 0));
	CUP_CK(cuMemMap(va, gran, 0, vh, 0));
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CUP_CK(cuMemSetAccess(va, gran, &access, 1));
	CUP_CK(cuMemRelease(vh)); /* still mapped: the memory stays */

	for (unsigned r = 1; r <= iterations; r++) {
		CUdeviceptr z;
		float a = (float)r;
		uint32_t n = CWA_N, value = r, stride = 1;
		void *fill_args[] = {&z, &value, &stride, &n};
		void *saxpy_args[] = {&a, &x, &y, &n};

		int begins = r == from || r == from2, ends = r == to || r == to2;

		if (begins && !strcmp(marks, "profiler"))
			CUP_CK(prof_start());
		if (begins && !strcmp(marks, "nvtx")) {
			if (!strcmp(form, "push")) {
				nvtxRangePushA(name);
			} else if (!strcmp(form, "start")) {
				range = nvtxRangeStartA(name);
			} else if (!strcmp(form, "wide")) {
				wchar_t wname[128];
				size_t k;
				for (k = 0; name[k] && k < 127; k++)
					wname[k] = (wchar_t)(unsigned char)name[k];
				wname[k] = 0;
				range = nvtxRangeStartW(wname);
			} else {
				nvtxEventAttributes_t attr;
				memset(&attr, 0, sizeof(attr));
				attr.version = NVTX_VERSION;
				attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
				attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
				attr.message.ascii = name;
				nvtxRangePushEx(&attr);
			}
			nvtxRangePushA("inner"); /* another name: no effect */
			nvtxRangePop();
		}
		CUP_CK(cuMemAlloc(&z, CWA_N * sizeof(uint32_t)));
		CUP_CK(cuLaunchKernel(fill, CWA_N / 256, 1, 1, 256, 1, 1, 0, s, fill_args, NULL));
		CUP_CK(cuLaunchKernel(saxpy, CWA_N / 256, 1, 1, 256, 1, 1, 0, s, saxpy_args, NULL));
		CUP_CK(cuMemcpyDtoHAsync(pinned, y, CWA_N * sizeof(float), s));
		CUP_CK(cuEventRecord(ev, s));
		CUP_CK(cuEventSynchronize(ev));
		CUP_CK(cuMemcpyDtoH(zhost, z, CWA_N * sizeof(uint32_t)));
		CUP_CK(cuMemcpyDtoD(va, z, CWA_N * sizeof(uint32_t)));
		CUP_CK(cuMemcpyDtoH(zhost, va, CWA_N * sizeof(uint32_t)));
		CUP_CK(cuMemFree(z));
		if (ends && !strcmp(marks, "profiler"))
			CUP_CK(prof_stop());
		if (ends && !strcmp(marks, "nvtx")) {
			if (!strcmp(form, "start") || !strcmp(form, "wide"))
				nvtxRangeEnd(range);
			else
				nvtxRangePop();
		}
		if (r == stall) {
			printf("cuda_window_app: stalled after round %u\n", r);
			fflush(stdout);
			for (;;)
				pause();
		}
	}
	printf("cuda_window_app: %u rounds, hash %016llx\n", iterations,
	       (unsigned long long)XXH3_64bits(pinned, CWA_N * sizeof(float)));
	CUP_CK(cuMemUnmap(va, gran));
	CUP_CK(cuMemAddressFree(va, 2 * gran));
	CUP_CK(cuMemFreeHost(pinned));
	CUP_CK(cuMemFree(x));
	CUP_CK(cuMemFree(y));
	CUP_CK(cuEventDestroy(ev));
	CUP_CK(cuStreamDestroy(s));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	free(host);
	free(zhost);
	return 0;
}
