/*
 * cuda_stream_memop - two streams ordered by stream memory operations
 * alone: a producer/consumer flag in device memory.  In each of three
 * rounds the consumer stream's wait is queued first, then the consumer's
 * vadd that reads what the producer writes; then the producer stream's
 * fill writes that buffer and a write-value operation sets the flag.
 * Each round begins with a marker launch (a fill of a scratch buffer) on
 * the idle producer stream and ends with both streams synchronised.
 * Only the wait keeps the vadd after the fill:
 *   round 1: cuStreamWaitValue32 (GEQ 1) / cuStreamWriteValue32 (1);
 *   round 2: cuStreamWaitValue64 (EQ 0x100000002) / cuStreamWriteValue64
 *            (0x100000002);
 *   round 3: one cuStreamBatchMemOp on each stream: the consumer waits
 *            for the 32-bit flag (AND 4) and a second 64-bit one (GEQ
 *            0x100000003); the producer writes the 32-bit flag (5), a
 *            GPU memory barrier and the second 64-bit flag (0x100000003).
 * The producer never waits, so it may be rounds ahead: only GEQ and AND
 * waits share a flag across rounds (values only grow), round 2's EQ wait
 * has its flag to itself.
 * Then each round's result is printed: "round R sum S" (S = the sum of the round's output words)
 * and "flags F32 F64 F64B".  The buffer starts at 0, so a vadd that ran
 * before its fill gives another sum.  On one stream in record order the
 * first wait can never be met (its write comes later).
 * Each round's output is read back once both streams are synchronised.
 * --graph: a 4th round whose consumer is a graph launch: a batch
 * memory-op node waiting for the 32-bit flag (GEQ 9), then the vadd as a
 * kernel node; the producer writes 9 with cuStreamWriteValue32.
 * --capture: one more round whose consumer and producer are each a graph
 * built by stream capture: the consumer's cuStreamWaitValue32 (GEQ 11)
 * and vadd captured on the consumer stream, the producer's fill and
 * cuStreamWriteValue32 (11) on the producer stream; the consumer's graph
 * is launched first.
 * --nor: one more round whose consumer waits with CU_STREAM_WAIT_VALUE_NOR:
 * a fourth flag word starts at 0xffff and the consumer waits until
 * ~(word | 0xffff0000) != 0; the producer first writes 0xffff (which does
 * not meet it), then fills, then writes 0xfffe (which does); prints
 * "flag nor F" too.
 * --kernel-write: round 1's producer sets the 32-bit flag with a fill
 * kernel of one word (1) instead of cuStreamWriteValue32: the wait is met
 * by a kernel's write.
 * --window: round 2 runs between cuProfilerStart and cuProfilerStop (a
 * capture window of tscapture --profiler).
 * --window-at-wait: the same window opens later, once round 2's consumer
 * wait and vadd are queued and before the producer's fill and write: the
 * consumer stream is held as the window opens, until the program writes
 * the flag inside it.
 * --ptds: the consumer is the main thread's per-thread default stream
 * (CU_STREAM_PER_THREAD) instead of a created one: with --window-at-wait
 * the stream a wait holds as the window opens is one cuStreamQuery from
 * another thread could not reach.
 * --ptds-thread: as --ptds, but round 2's consumer wait and vadd are
 * queued by a second thread on its own per-thread default stream, which
 * then records an event there and ends; the main thread waits for that
 * event where it would synchronize the consumer.
 * Under TSCUDA_DOUBLE_SEED a wait runs once met: the same output.
 *   cuda_stream_memop [--n N] [--window | --window-at-wait] [--graph] [--capture] [--nor] [--kernel-write] [--ptds | --ptds-thread]
 */
#include <cudaProfiler.h>
#include <pthread.h>

#include "tests/cuda/cuprog.h"

#define CSM_ROUNDS 6 /* at most: a 4th with --graph, one more with --capture, --nor */

/* --ptds-thread: round 2's consumer, on a thread of its own */
struct csm_consumer {
	CUcontext ctx;
	CUfunction vadd;
	CUdeviceptr flag64;
	void **args;
	unsigned grid;
	CUevent done;
};

static void *csm_consumer_main(void *p)
{
	const struct csm_consumer *c = p;

	CUP_CK(cuCtxSetCurrent(c->ctx));
	CUP_CK(cuStreamWaitValue64(CU_STREAM_PER_THREAD, c->flag64, 0x100000002ull, CU_STREAM_WAIT_VALUE_EQ));
	CUP_CK(cuLaunchKernel(c->vadd, c->grid, 1, 1, 256, 1, 1, 0, CU_STREAM_PER_THREAD, c->args, NULL));
	CUP_CK(cuEventRecord(c->done, CU_STREAM_PER_THREAD));
	return NULL;
}

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_vadd;
	CUdeviceptr d_flags, d_flagnor, d_flag32, d_flag64, d_flag64b, d_src[CSM_ROUNDS], d_b, d_out[CSM_ROUNDS], d_mark;
	CUstream prod, cons;
	uint32_t n = 4096, *h;
	uint64_t sums[CSM_ROUNDS];
	int window = 0, window_at_wait = 0, graph = 0, capture = 0, nor = 0, kernel_write = 0, ptds = 0, ptds_thread = 0, rounds = 3;
	CUevent done = NULL;
	int r_graph = -1, r_capture = -1, r_nor = -1; /* the rounds of --graph, --capture, --nor */
	CUgraph g = NULL, gc = NULL, gp = NULL;
	CUgraphExec gx = NULL, gcx = NULL, gpx = NULL;
	uint64_t flag64 = 0, flag64b = 0;
	uint32_t flag32 = 0, flagnor = 0;
	int ok = 1;
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_stream_memop";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_stream_memop [--n N] [--window | --window-at-wait] [--graph] [--capture] [--nor] [--kernel-write] [--ptds | --ptds-thread]\n");
			return 0;
		} else if (!strcmp(argv[i], "--window")) {
			window = 1;
		} else if (!strcmp(argv[i], "--window-at-wait")) {
			window = window_at_wait = 1;
		} else if (!strcmp(argv[i], "--graph")) {
			graph = 1;
		} else if (!strcmp(argv[i], "--capture")) {
			capture = 1;
		} else if (!strcmp(argv[i], "--nor")) {
			nor = 1;
		} else if (!strcmp(argv[i], "--kernel-write")) {
			kernel_write = 1;
		} else if (!strcmp(argv[i], "--ptds")) {
			ptds = 1;
		} else if (!strcmp(argv[i], "--ptds-thread")) {
			ptds = ptds_thread = 1;
		} else if (!strcmp(argv[i], "--n")) {
			n = cup_parse_uint("--n", i + 1 < argc ? argv[++i] : NULL, 1, 1u << 20);
		} else {
			fprintf(stderr, "cuda_stream_memop: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	if (graph)
		r_graph = rounds++;
	if (capture)
		r_capture = rounds++;
	if (nor)
		r_nor = rounds++;
	h = malloc(n * sizeof(*h));
	if (!h) {
		fprintf(stderr, "cuda_stream_memop: out of memory\n");
		return 1;
	}
	CUP_CK(cuInit(0));
	CUP_CK(cuDeviceGet(&dev, 0));
	CUP_CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CUP_CK(cuCtxSetCurrent(ctx));
	image = cup_module_image("kernels", NULL);
	CUP_CK(cuModuleLoadData(&mod, image));
	free(image);
	CUP_CK(cuModuleGetFunction(&f_fill, mod, "fill"));
	CUP_CK(cuModuleGetFunction(&f_vadd, mod, "vadd"));
	CUP_CK(cuMemAlloc(&d_flags, 32));
	d_flag32 = d_flags;
	d_flag64 = d_flags + 8;
	d_flag64b = d_flags + 16;
	d_flagnor = d_flags + 24;
	CUP_CK(cuMemsetD32(d_flags, 0, 6));
	if (nor)
		CUP_CK(cuMemsetD32(d_flagnor, 0xffff, 1));
	CUP_CK(cuMemAlloc(&d_b, n * sizeof(uint32_t)));
	CUP_CK(cuMemsetD32(d_b, 1000, n));
	CUP_CK(cuMemAlloc(&d_mark, 256 * sizeof(uint32_t)));
	for (int r = 0; r < rounds; r++) {
		CUP_CK(cuMemAlloc(&d_src[r], n * sizeof(uint32_t)));
		CUP_CK(cuMemAlloc(&d_out[r], n * sizeof(uint32_t)));
		CUP_CK(cuMemsetD32(d_src[r], 0, n));
		CUP_CK(cuMemsetD32(d_out[r], 0, n));
	}
	CUP_CK(cuCtxSynchronize()); /* the memsets above, before the non-blocking streams use the memory */
	CUP_CK(cuStreamCreate(&prod, CU_STREAM_NON_BLOCKING));
	if (ptds_thread)
		CUP_CK(cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
	if (ptds)
		cons = CU_STREAM_PER_THREAD;
	else
		CUP_CK(cuStreamCreate(&cons, CU_STREAM_NON_BLOCKING));
	for (int r = 0; r < rounds; r++) {
		uint32_t value = 7 + 100 * (uint32_t)r, stride = 3 + (uint32_t)r;
		void *fill_args[] = { &d_src[r], &value, &stride, &n };
		void *vadd_args[] = { &d_src[r], &d_b, &d_out[r], &n };
		unsigned grid = (n + 255) / 256;
		uint32_t mark = (uint32_t)r, mark_stride = 0, mark_n = 256;
		void *mark_args[] = { &d_mark, &mark, &mark_stride, &mark_n };

		if (window && !window_at_wait && r == 1)
			CUP_CK(cuProfilerStart());

		/* the round's first launch, with both streams idle: a keyframe
		 * taken there (TRACESMITH_SNAPSHOT=launch) starts a --range */
		CUP_CK(cuLaunchKernel(f_fill, 1, 1, 1, 256, 1, 1, 0, prod, mark_args, NULL));
		CUP_CK(cuStreamSynchronize(prod));
		/* the consumer: wait, then read the producer's buffer */
		if (r == 1 && ptds_thread) {
			struct csm_consumer c = { ctx, f_vadd, d_flag64, vadd_args, grid, done };
			pthread_t t;

			if (pthread_create(&t, NULL, csm_consumer_main, &c) != 0) {
				fprintf(stderr, "cuda_stream_memop: cannot start the consumer's thread\n");
				return 1;
			}
			pthread_join(t, NULL);
		} else if (r == 0) {
			CUP_CK(cuStreamWaitValue32(cons, d_flag32, 1, CU_STREAM_WAIT_VALUE_GEQ));
		} else if (r == 1) {
			CUP_CK(cuStreamWaitValue64(cons, d_flag64, 0x100000002ull, CU_STREAM_WAIT_VALUE_EQ));
		} else if (r == r_nor) {
			CUP_CK(cuStreamWaitValue32(cons, d_flagnor, 0xffff0000u, CU_STREAM_WAIT_VALUE_NOR));
			CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, 256, 1, 1, 0, cons, vadd_args, NULL));
		} else if (r == r_capture) {
			/* captured: the wait and the vadd, launched as one graph */
			CUP_CK(cuStreamBeginCapture(cons, CU_STREAM_CAPTURE_MODE_GLOBAL));
			CUP_CK(cuStreamWaitValue32(cons, d_flag32, 11, CU_STREAM_WAIT_VALUE_GEQ));
			CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, 256, 1, 1, 0, cons, vadd_args, NULL));
			CUP_CK(cuStreamEndCapture(cons, &gc));
			CUP_CK(cuGraphInstantiate(&gcx, gc, 0));
			CUP_CK(cuGraphLaunch(gcx, cons));
		} else if (r == r_graph) {
			/* a graph: a batch memory-op node waiting for the 32-bit
			 * flag (GEQ 9), then the vadd as a kernel node */
			CUstreamBatchMemOpParams w;
			CUDA_BATCH_MEM_OP_NODE_PARAMS mp;
			CUDA_KERNEL_NODE_PARAMS kp;
			CUgraphNode nw, nk;

			memset(&w, 0, sizeof(w));
			w.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
			w.waitValue.address = d_flag32;
			w.waitValue.value = 9;
			w.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
			memset(&mp, 0, sizeof(mp));
			mp.ctx = ctx;
			mp.count = 1;
			mp.paramArray = &w;
			memset(&kp, 0, sizeof(kp));
			kp.func = f_vadd;
			kp.gridDimX = grid;
			kp.gridDimY = kp.gridDimZ = 1;
			kp.blockDimX = 256;
			kp.blockDimY = kp.blockDimZ = 1;
			kp.kernelParams = vadd_args;
			CUP_CK(cuGraphCreate(&g, 0));
			CUP_CK(cuGraphAddBatchMemOpNode(&nw, g, NULL, 0, &mp));
			CUP_CK(cuGraphAddKernelNode(&nk, g, &nw, 1, &kp));
			CUP_CK(cuGraphInstantiate(&gx, g, 0));
			CUP_CK(cuGraphLaunch(gx, cons));
		} else if (r == 2) {
			CUstreamBatchMemOpParams w[2];

			memset(w, 0, sizeof(w));
			w[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
			w[0].waitValue.address = d_flag32;
			w[0].waitValue.value = 4;
			w[0].waitValue.flags = CU_STREAM_WAIT_VALUE_AND;
			w[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
			w[1].waitValue.address = d_flag64b;
			w[1].waitValue.value64 = 0x100000003ull;
			w[1].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
			CUP_CK(cuStreamBatchMemOp(cons, 2, w, 0));
		}
		if (r < 3 && !(r == 1 && ptds_thread))
			CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, 256, 1, 1, 0, cons, vadd_args, NULL));
		if (window_at_wait && r == 1)
			CUP_CK(cuProfilerStart());
		/* the producer: write the buffer, then the flag */
		if (r == r_capture) {
			CUP_CK(cuStreamBeginCapture(prod, CU_STREAM_CAPTURE_MODE_GLOBAL));
			CUP_CK(cuLaunchKernel(f_fill, grid, 1, 1, 256, 1, 1, 0, prod, fill_args, NULL));
			CUP_CK(cuStreamWriteValue32(prod, d_flag32, 11, 0));
			CUP_CK(cuStreamEndCapture(prod, &gp));
			CUP_CK(cuGraphInstantiate(&gpx, gp, 0));
			CUP_CK(cuGraphLaunch(gpx, prod));
		} else {
			if (r == r_nor) /* 0xffff | 0xffff0000 has every bit: not met */
				CUP_CK(cuStreamWriteValue32(prod, d_flagnor, 0xffff, 0));
			CUP_CK(cuLaunchKernel(f_fill, grid, 1, 1, 256, 1, 1, 0, prod, fill_args, NULL));
		}
		if (r == r_capture) {
			/* written by the producer's graph */
		} else if (r == r_nor) {
			CUP_CK(cuStreamWriteValue32(prod, d_flagnor, 0xfffe, 0));
		} else if (r == 0 && kernel_write) {
			uint32_t one = 1, zero = 0, words = 1;
			void *flag_args[] = { &d_flag32, &one, &zero, &words };

			CUP_CK(cuLaunchKernel(f_fill, 1, 1, 1, 1, 1, 1, 0, prod, flag_args, NULL));
		} else if (r == 0) {
			CUP_CK(cuStreamWriteValue32(prod, d_flag32, 1, 0));
		} else if (r == 1) {
			CUP_CK(cuStreamWriteValue64(prod, d_flag64, 0x100000002ull, 0));
		} else if (r == r_graph) {
			CUP_CK(cuStreamWriteValue32(prod, d_flag32, 9, 0));
		} else {
			CUstreamBatchMemOpParams o[3];

			memset(o, 0, sizeof(o));
			o[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
			o[0].writeValue.address = d_flag32;
			o[0].writeValue.value = 5;
			o[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
			o[1].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
			o[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
			o[2].writeValue.address = d_flag64b;
			o[2].writeValue.value64 = 0x100000003ull;
			CUP_CK(cuStreamBatchMemOp(prod, 3, o, 0));
		}
		if (r == 1 && ptds_thread)
			CUP_CK(cuEventSynchronize(done));
		else
			CUP_CK(cuStreamSynchronize(cons));
		CUP_CK(cuStreamSynchronize(prod));
		CUP_CK(cuMemcpyDtoH(h, d_out[r], n * sizeof(uint32_t)));
		sums[r] = 0;
		for (uint32_t i = 0; i < n; i++)
			sums[r] += h[i];
		if (window && r == 1)
			CUP_CK(cuProfilerStop());
	}
	for (int r = 0; r < rounds; r++) {
		uint64_t sum = sums[r], want = 0;

		for (uint32_t i = 0; i < n; i++)
			want += 1000u + 7u + 100u * (uint32_t)r + i * (3u + (uint32_t)r);
		printf("cuda_stream_memop: round %d sum %llu\n", r + 1, (unsigned long long)sum);
		ok &= sum == want;
	}
	CUP_CK(cuMemcpyDtoH(&flag32, d_flag32, 4));
	CUP_CK(cuMemcpyDtoH(&flag64, d_flag64, 8));
	CUP_CK(cuMemcpyDtoH(&flag64b, d_flag64b, 8));
	printf("cuda_stream_memop: flags %u 0x%llx 0x%llx\n", flag32, (unsigned long long)flag64,
	       (unsigned long long)flag64b);
	if (nor) {
		CUP_CK(cuMemcpyDtoH(&flagnor, d_flagnor, 4));
		printf("cuda_stream_memop: flag nor 0x%x\n", flagnor);
	}
	if (graph) {
		CUP_CK(cuGraphExecDestroy(gx));
		CUP_CK(cuGraphDestroy(g));
	}
	if (capture) {
		CUP_CK(cuGraphExecDestroy(gcx));
		CUP_CK(cuGraphDestroy(gc));
		CUP_CK(cuGraphExecDestroy(gpx));
		CUP_CK(cuGraphDestroy(gp));
	}
	CUP_CK(cuStreamDestroy(prod));
	if (!ptds)
		CUP_CK(cuStreamDestroy(cons));
	if (done)
		CUP_CK(cuEventDestroy(done));
	for (int r = 0; r < rounds; r++) {
		CUP_CK(cuMemFree(d_src[r]));
		CUP_CK(cuMemFree(d_out[r]));
	}
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_mark));
	CUP_CK(cuMemFree(d_flags));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	free(h);
	if (!ok)
		fprintf(stderr, "cuda_stream_memop: a round's sum is wrong (a read ran before its write)\n");
	return ok ? 0 : 1;
}
