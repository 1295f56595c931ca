/*
 * cuda_graph_nodes - a CUDA graph built node by node (what cudart's
 * cudaGraphAddKernelNode and friends do): cuGraphCreate, an upload
 * (memcpy node from the host), a memset node, a kernel node whose
 * parameters are set again before instantiation, an empty node joining
 * the two branches, a kernel node joined by cuGraphAddDependencies, a
 * kernel node added by cuGraphAddNode, an event record node and a memcpy
 * node back to the host.  Instantiated, launched --launches times, read
 * back; prints the hash of the result and of what the graph copied back.
 *
 *   --exec-set  after the first launch, the exec's last kernel node gets
 *               other parameters (cuGraphExecKernelNodeSetParams)
 *   --destroy   a memset node that would zero the result is added with
 *               an edge to the read-back node; the edge is removed and the
 *               node destroyed before instantiation
 *   --child     the graph also holds a child graph node (a kernel node
 *               scaling the result by 3) and an empty node after it; the
 *               child's kernel node is set to scale by 2 after it was
 *               added, and the child destroyed (the parent keeps its copy)
 *   --child-get with --child: the graph embedded in the child graph node
 *               (cuGraphChildGraphNodeGetGraph) gets a memset node filling
 *               another buffer and a kernel node scaling it after that;
 *               the buffer's hash is printed
 *   --alloc-node the graph also allocates graph memory
 *               (cuGraphAddMemAllocNode), fills it with a memset node, adds
 *               it to the result with a kernel node before the read-back,
 *               and frees it (a free node added by cuGraphAddNode); a
 *               clone of the graph and a node destroyed fail, as documented
 *   --no-free-node with --alloc-node: the graph has no free node; the
 *               program frees the graph memory after each launch
 *               (cuMemFreeAsync on the launch stream), as documented
 *   --capture-alloc after the launches, a stream capture allocates
 *               memory (cuMemAllocAsync), fills it, adds it to the result
 *               and frees it (cuMemFreeAsync); the captured graph is
 *               launched twice
 *   --clone     the graph is cloned, the clone's copy of the last kernel
 *               node found (cuGraphNodeFindInClone) and set to scale by 2;
 *               the clone is instantiated instead of the graph
 *   --disable   the exec's last kernel node is disabled before the first
 *               launch and enabled again after it (cuGraphNodeSetEnabled,
 *               checked with cuGraphNodeGetEnabled)
 *   --host-node a host node after the read-back counts the launches
 *               (printed)
 *   --update    after instantiation (before the window) the exec is
 *               updated (cuGraphExecUpdate) from a clone of the graph whose
 *               last kernel node scales by 2, the clone then destroyed; an
 *               update from a graph of another shape fails (checked)
 *   --set-nodes before instantiation the memset node is set to reset the
 *               accumulator, the upload node to another host source, the
 *               event record node to another event, and an event wait node
 *               (added after the read-back) to wait for another event;
 *               after the first launch the exec's copies are set again:
 *               the memset to another value, the upload to copy from a
 *               third host buffer (from device memory the driver refuses:
 *               a node's memory types stay), and checked that a device
 *               source is refused, the event nodes to other events; the
 *               generic setters too (cuGraphNodeSetParams on the fill
 *               node before, cuGraphExecNodeSetParams on the memset after)
 *   --exec-event  after the first launch the exec's event record node
 *               records another event (cuGraphExecEventRecordNodeSetEvent)
 *   --capture-to  a second graph (an empty node, then a memset and a kernel
 *               adding its buffer to the result, captured into it with
 *               cuStreamBeginCaptureToGraph), made before the launches
 *               (before the window), is launched after them
 *   --gmem-live with --alloc-node --no-free-node: the graph is launched
 *               once more before the window (before cuProfilerStart), and
 *               the graph memory that launch left allocated is added to
 *               the result first thing in it, then freed
 *   --child-mem with --alloc-node: the allocation, memset, add (and
 *               free) nodes are built in a graph of their own, which is
 *               moved into a child graph node of the graph after the last
 *               kernel node (cuGraphAddNode with
 *               CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE: the only way to put
 *               memory nodes in a child graph); before the move, adding
 *               it as a copied child fails, and after it, instantiating or
 *               destroying it on its own fails, as documented
 *   --memop     a batch memory-op node before the read-back writes a
 *               32-bit and a 64-bit value into the result and waits for
 *               the 32-bit one (cuGraphAddBatchMemOpNode); its operations
 *               are set again before instantiation
 *               (cuGraphBatchMemOpNodeSetParams) and the exec's after the
 *               first launch (cuGraphExecBatchMemOpNodeSetParams); a
 *               second one, a 64-bit write, is added by cuGraphAddNode
 *               and set by cuGraphNodeSetParams and, on the exec,
 *               cuGraphExecNodeSetParams
 *   --access    with --alloc-node: the allocation node's access
 *               descriptor gives device 1 read-write access (peer access:
 *               needs two devices)
 *   --mem-attr  with --alloc-node: after the launches the device's graph
 *               memory attributes are read (the used high watermark at
 *               least the allocation's size), both high watermarks reset
 *               and unused graph memory trimmed (cuDeviceGetGraphMemAttribute,
 *               cuDeviceSetGraphMemAttribute, cuDeviceGraphMemTrim)
 *   --node-attr the last kernel node gets priority 1 (outside the device's
 *               range) and it is read back, then priority -2
 *               (cuGraphKernelNodeSetAttribute) before instantiation, the
 *               fill node takes its attributes
 *               (cuGraphKernelNodeCopyAttributes), and the fill node's
 *               priority is read back (cuGraphKernelNodeGetAttribute);
 *               both printed
 *   --host-set  with --host-node: the host node is given a function that
 *               counts two per run (cuGraphHostNodeSetParams, a change
 *               replay does not model) before instantiation
 *   --unordered the vadd node is not made to follow the join node: it
 *               reads and writes buffers while the memset and fill nodes
 *               write one of them, with no edge between them (a race)
 *   --host-src  the upload node's host source changes between launches
 *               (after the stream is synchronized), and a second vadd node
 *               adds the uploaded buffer to the result: each launch reads
 *               the host bytes of its own time, as the driver does
 *   --window    the graph, an event recorded on the work stream and one
 *               recorded on a stream destroyed since are made before
 *               cuProfilerStart; the launches, waits on those events and
 *               the read-back are inside the profiler range
 *
 *   cuda_graph_nodes [--launches N] [--exec-set] [--destroy] [--child] [--exec-event] [--capture-to]
 *                    [--unordered] [--host-src] [--clone] [--disable] [--host-node]
 *                    [--set-nodes] [--update] [--window] [--child-get]
 *                    [--alloc-node] [--no-free-node] [--capture-alloc] [--node-attr] [--mem-attr]
 *                    [--access] [--gmem-live] [--child-mem] [--host-set] [--memop]
 */
#include <cudaProfiler.h>

#include "tests/cuda/cuprog.h"

static CUgraphNode cgn_kernel(CUgraph g, const CUgraphNode *deps, size_t ndeps, CUfunction f, unsigned grid,
			      unsigned block, void **args)
{
	CUDA_KERNEL_NODE_PARAMS p;
	CUgraphNode n;

	memset(&p, 0, sizeof(p));
	p.func = f;
	p.gridDimX = grid;
	p.gridDimY = p.gridDimZ = 1;
	p.blockDimX = block;
	p.blockDimY = p.blockDimZ = 1;
	p.kernelParams = args;
	CUP_CK(cuGraphAddKernelNode(&n, g, deps, ndeps, &p));
	return n;
}

/* The host node's function: counts its runs. */
static void CUDA_CB cgn_count(void *user)
{
	(*(unsigned *)user)++;
}

/* The host node's function after --host-set: two per run. */
static void CUDA_CB cgn_count2(void *user)
{
	(*(unsigned *)user) += 2;
}

static void cgn_scale_params(CUDA_KERNEL_NODE_PARAMS *p, CUfunction f, unsigned grid, unsigned block, void **args)
{
	memset(p, 0, sizeof(*p));
	p->func = f;
	p->gridDimX = grid;
	p->gridDimY = p->gridDimZ = 1;
	p->blockDimX = block;
	p->blockDimY = p->blockDimZ = 1;
	p->kernelParams = args;
}

static CUDA_MEMCPY3D cgn_copy(size_t bytes)
{
	CUDA_MEMCPY3D m;

	memset(&m, 0, sizeof(m));
	m.WidthInBytes = bytes;
	m.Height = 1;
	m.Depth = 1;
	return m;
}

/* The host buffers main allocates, on every way out. */
static void cgn_free_host(uint32_t *h, uint32_t *back, uint32_t *inside, uint32_t *h2, uint32_t *h3)
{
	free(h);
	free(back);
	free(inside);
	free(h2);
	free(h3);
}

int main(int argc, char **argv)
{
	unsigned launches = 2, n = 2048, block = 256, grid = (n + block - 1) / block;
	int exec_set = 0, child = 0, window = 0, destroy = 0, exec_event = 0, capture_to = 0, unordered = 0;
	int host_src = 0, clone = 0, disable = 0, host_node = 0, set_nodes = 0, update = 0, child_get = 0;
	int alloc_node = 0, no_free_node = 0, capture_alloc = 0, node_attr = 0, mem_attr = 0, access = 0, gmem_live = 0;
	int child_mem = 0, host_set = 0, node_attr_read = 0, prio_out = 0, prio_copied = 0, prio_least = 0, prio_greatest = 0, memop = 0;
	CUgraphNode n_memop = NULL, n_memop2 = NULL;
	CUstreamBatchMemOpParams mops[3], mop2;
	CUdeviceptr d_gmem = 0;
	CUgraphNode n_tail;
	CUdeviceptr d_c = 0;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f_fill, f_vadd, f_scale;
	CUdeviceptr d_a, d_b, d_acc;
	CUstream s, s2;
	CUevent ev, ev_before, ev_gone, ev2 = NULL;
	CUgraphNode n_wait = NULL;
	CUgraph g, gc = NULL, g2 = NULL;
	CUgraphExec exec, x2 = NULL;
	CUgraphNode n_up, n_set, n_fill, n_join, n_vadd, n_scale, n_rec, n_back;
	CUgraphNode n_xscale; /* n_scale in the graph instantiated (the clone's copy with --clone) */
	uint32_t *h, *back, *inside, *h2, *h3; /* allocated once the options are checked */
	uint32_t value = 17, value2 = 23, stride = 5, k = 3, k2 = 2;
	unsigned host_runs = 0;
	void *image;
	static const struct cup_api errs = { .GetErrorName = cuGetErrorName };

	cup_prog = "cuda_graph_nodes";
	cup_api_for_errors = &errs;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--launches") && i + 1 < argc) {
			launches = cup_parse_uint("--launches", argv[++i], 1, 1000);
		} else if (!strcmp(argv[i], "--exec-set")) {
			exec_set = 1;
		} else if (!strcmp(argv[i], "--child")) {
			child = 1;
		} else if (!strcmp(argv[i], "--capture-alloc")) {
			capture_alloc = 1;
		} else if (!strcmp(argv[i], "--no-free-node")) {
			no_free_node = 1;
		} else if (!strcmp(argv[i], "--alloc-node")) {
			alloc_node = 1;
		} else if (!strcmp(argv[i], "--child-get")) {
			child_get = 1;
		} else if (!strcmp(argv[i], "--destroy")) {
			destroy = 1;
		} else if (!strcmp(argv[i], "--exec-event")) {
			exec_event = 1;
		} else if (!strcmp(argv[i], "--capture-to")) {
			capture_to = 1;
		} else if (!strcmp(argv[i], "--node-attr")) {
			node_attr = 1;
		} else if (!strcmp(argv[i], "--mem-attr")) {
			mem_attr = 1;
		} else if (!strcmp(argv[i], "--access")) {
			access = 1;
		} else if (!strcmp(argv[i], "--gmem-live")) {
			gmem_live = 1;
		} else if (!strcmp(argv[i], "--child-mem")) {
			child_mem = 1;
		} else if (!strcmp(argv[i], "--host-set")) {
			host_set = 1;
		} else if (!strcmp(argv[i], "--memop")) {
			memop = 1;
		} else if (!strcmp(argv[i], "--unordered")) {
			unordered = 1;
		} else if (!strcmp(argv[i], "--window")) {
			window = 1;
		} else if (!strcmp(argv[i], "--host-src")) {
			host_src = 1;
		} else if (!strcmp(argv[i], "--clone")) {
			clone = 1;
		} else if (!strcmp(argv[i], "--disable")) {
			disable = 1;
		} else if (!strcmp(argv[i], "--host-node")) {
			host_node = 1;
		} else if (!strcmp(argv[i], "--set-nodes")) {
			set_nodes = 1;
		} else if (!strcmp(argv[i], "--update")) {
			update = 1;
		} else if (!strcmp(argv[i], "--help")) {
			printf("usage: cuda_graph_nodes [--launches N] [--exec-set] [--destroy] [--child] [--exec-event] "
			       "[--capture-to] [--unordered] [--host-src] [--clone] [--disable] [--host-node] [--set-nodes] [--update] [--window] [--child-get] [--alloc-node] [--no-free-node] [--capture-alloc] [--node-attr] [--mem-attr] [--access] [--gmem-live] [--child-mem] [--host-set] [--memop]\n");
			return 0;
		} else {
			fprintf(stderr, "cuda_graph_nodes: unknown option '%s' (try --help)\n", argv[i]);
			return 2;
		}
	}
	if (gmem_live && (!alloc_node || !no_free_node)) {
		fprintf(stderr, "cuda_graph_nodes: --gmem-live needs --alloc-node --no-free-node\n");
		return 2;
	}
	if (host_set && !host_node) {
		fprintf(stderr, "cuda_graph_nodes: --host-set needs --host-node\n");
		return 2;
	}
	if (child_mem && !alloc_node) {
		fprintf(stderr, "cuda_graph_nodes: --child-mem needs --alloc-node\n");
		return 2;
	}
	h = malloc(n * 4);
	back = malloc(n * 4);
	inside = calloc(n, 4);
	h2 = malloc(n * 4);
	h3 = malloc(n * 4);
	if (!h || !back || !inside || !h2 || !h3) {
		cgn_free_host(h, back, inside, h2, h3);
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		h[i] = i ^ 0x5a5au;
		h2[i] = i * 3u + 1u;
		h3[i] = i * 5u + 2u;
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
	CUP_CK(cuModuleGetFunction(&f_scale, mod, "racy_scale"));
	CUP_CK(cuMemAlloc(&d_a, n * 4));
	CUP_CK(cuMemAlloc(&d_b, n * 4));
	CUP_CK(cuMemAlloc(&d_acc, n * 4));
	CUP_CK(cuMemsetD32(d_acc, 1, n));
	CUP_CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	CUP_CK(cuEventCreate(&ev, CU_EVENT_DEFAULT));
	CUP_CK(cuEventCreate(&ev_before, CU_EVENT_DEFAULT));
	CUP_CK(cuEventCreate(&ev_gone, CU_EVENT_DEFAULT));

	CUP_CK(cuGraphCreate(&g, 0));
	{
		CUDA_MEMCPY3D up = cgn_copy(n * 4);
		up.srcMemoryType = CU_MEMORYTYPE_HOST;
		up.srcHost = h;
		up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		up.dstDevice = d_a;
		CUP_CK(cuGraphAddMemcpyNode(&n_up, g, NULL, 0, &up, ctx));
	}
	{
		CUDA_MEMSET_NODE_PARAMS ms;
		memset(&ms, 0, sizeof(ms));
		ms.dst = d_b;
		ms.value = 0;
		ms.elementSize = 4;
		ms.width = n;
		ms.height = 1;
		CUP_CK(cuGraphAddMemsetNode(&n_set, g, NULL, 0, &ms, ctx));
	}
	{
		void *fill_args[] = { &d_b, &value, &stride, &n };
		void *fill_args2[] = { &d_b, &value2, &stride, &n };
		CUDA_KERNEL_NODE_PARAMS p;
		n_fill = cgn_kernel(g, &n_set, 1, f_fill, grid, block, fill_args);
		/* set again before instantiation: the value the graph runs with is value2 */
		memset(&p, 0, sizeof(p));
		p.func = f_fill;
		p.gridDimX = grid;
		p.gridDimY = p.gridDimZ = 1;
		p.blockDimX = block;
		p.blockDimY = p.blockDimZ = 1;
		p.kernelParams = fill_args2;
		CUP_CK(cuGraphKernelNodeSetParams(n_fill, &p));
	}
	{
		CUgraphNode both[2] = { n_up, n_fill };
		CUP_CK(cuGraphAddEmptyNode(&n_join, g, both, 2));
	}
	{
		void *vadd_args[] = { &d_acc, &d_b, &d_acc, &n };
		n_vadd = cgn_kernel(g, NULL, 0, f_vadd, grid, block, vadd_args);
		if (!unordered)
			CUP_CK(cuGraphAddDependencies(g, &n_join, &n_vadd, NULL, 1));
	}
	if (host_src || set_nodes) {
		/* the result also gains what the upload node read at this launch */
		void *vadd_args[] = { &d_acc, &d_a, &d_acc, &n };
		CUgraphNode after[2] = { n_vadd, n_up };
		n_vadd = cgn_kernel(g, after, 2, f_vadd, grid, block, vadd_args);
	}
	{
		void *scale_args[] = { &d_acc, &k, &n };
		CUgraphNodeParams p;
		memset(&p, 0, sizeof(p));
		p.type = CU_GRAPH_NODE_TYPE_KERNEL;
		p.kernel.func = f_scale;
		p.kernel.gridDimX = grid;
		p.kernel.gridDimY = p.kernel.gridDimZ = 1;
		p.kernel.blockDimX = block;
		p.kernel.blockDimY = p.kernel.blockDimZ = 1;
		p.kernel.kernelParams = scale_args;
		CUP_CK(cuGraphAddNode(&n_scale, g, &n_vadd, NULL, 1, &p));
	}
	n_tail = n_scale;
	if (alloc_node) {
		/* graph memory, live from its allocation node to its free node */
		CUDA_MEM_ALLOC_NODE_PARAMS ap;
		CUmemAccessDesc acc;
		CUDA_MEMSET_NODE_PARAMS ms;
		CUgraphNodeParams fp;
		CUgraphNode n_alloc, n_gset, n_gadd, n_gfree, after[2];
		CUdeviceptr d_g;
		CUgraph ga = g; /* the graph the memory nodes go in */
		if (child_mem)
			CUP_CK(cuGraphCreate(&ga, 0));
		memset(&ap, 0, sizeof(ap));
		ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
		ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		ap.poolProps.location.id = 0;
		ap.bytesize = n * 4;
		if (access) {
			int ndev = 0;
			CUP_CK(cuDeviceGetCount(&ndev));
			if (ndev < 2) {
				fprintf(stderr, "%s: --access needs two devices, there are %d\n", cup_prog, ndev);
				cgn_free_host(h, back, inside, h2, h3);
				return 2;
			}
			memset(&acc, 0, sizeof(acc));
			acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
			acc.location.id = 1;
			acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
			ap.accessDescs = &acc;
			ap.accessDescCount = 1;
		}
		CUP_CK(cuGraphAddMemAllocNode(&n_alloc, ga, NULL, 0, &ap));
		d_g = ap.dptr;
		memset(&ms, 0, sizeof(ms));
		ms.dst = d_g;
		ms.value = 5;
		ms.elementSize = 4;
		ms.width = n;
		ms.height = 1;
		CUP_CK(cuGraphAddMemsetNode(&n_gset, ga, &n_alloc, 1, &ms, ctx));
		after[0] = n_gset;
		after[1] = n_scale;
		{
			void *gadd_args[] = { &d_acc, &d_g, &d_acc, &n };
			n_gadd = cgn_kernel(ga, after, child_mem ? 1 : 2, f_vadd, grid, block, gadd_args);
		}
		if (!no_free_node) {
			memset(&fp, 0, sizeof(fp));
			fp.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
			fp.free.dptr = d_g;
			CUP_CK(cuGraphAddNode(&n_gfree, ga, &n_gadd, NULL, 1, &fp));
		}
		n_tail = n_gadd;
		d_gmem = d_g;
		{
			/* documented: such a graph cannot be cloned nor lose a node */
			CUgraph gx;
			if (cuGraphClone(&gx, ga) == CUDA_SUCCESS || cuGraphDestroyNode(n_gset) == CUDA_SUCCESS) {
				fprintf(stderr, "cuda_graph_nodes: a graph with memory nodes was cloned or lost a node\n");
				return 1;
			}
		}
		if (child_mem) {
			/* documented: only a child graph node that takes the graph
			 * itself may hold memory nodes */
			CUgraphNodeParams cp;
			CUgraphNode n_copy;
			CUgraphExec xm;
			if (cuGraphAddChildGraphNode(&n_copy, g, &n_scale, 1, ga) == CUDA_SUCCESS) {
				fprintf(stderr, "cuda_graph_nodes: a graph with memory nodes was copied into a child graph node\n");
				return 1;
			}
			memset(&cp, 0, sizeof(cp));
			cp.type = CU_GRAPH_NODE_TYPE_GRAPH;
			cp.graph.graph = ga;
			cp.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
			if (cuGraphAddNode(&n_copy, g, &n_scale, NULL, 1, &cp) == CUDA_SUCCESS) {
				fprintf(stderr, "cuda_graph_nodes: a graph with memory nodes was cloned into a child graph node\n");
				return 1;
			}
			cp.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
			CUP_CK(cuGraphAddNode(&n_tail, g, &n_scale, NULL, 1, &cp));
			if (cuGraphInstantiate(&xm, ga, 0) == CUDA_SUCCESS || cuGraphDestroy(ga) == CUDA_SUCCESS) {
				fprintf(stderr, "cuda_graph_nodes: a graph moved into a child graph node was instantiated or "
					"destroyed on its own\n");
				return 1;
			}
		}
	}
	if (memop) {
		/* written into the result's first words, waited for */
		CUDA_BATCH_MEM_OP_NODE_PARAMS mp;
		memset(mops, 0, sizeof(mops));
		mops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
		mops[0].writeValue.address = d_acc;
		mops[0].writeValue.value = 100;
		mops[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
		mops[1].writeValue.address = d_acc + 8;
		mops[1].writeValue.value64 = 0x0000000500000007ull;
		mops[2].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
		mops[2].waitValue.address = d_acc;
		mops[2].waitValue.value = 100;
		mops[2].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
		memset(&mp, 0, sizeof(mp));
		mp.ctx = ctx;
		mp.count = 3;
		mp.paramArray = mops;
		CUP_CK(cuGraphAddBatchMemOpNode(&n_memop, g, &n_tail, 1, &mp));
		/* set again: the graph runs these */
		mops[0].writeValue.value = 12345;
		mops[2].waitValue.value = 12345;
		CUP_CK(cuGraphBatchMemOpNodeSetParams(n_memop, &mp));
		n_tail = n_memop;
		{
			/* a second one through the generic calls: a 64-bit write
			 * after the first node, set again (cuGraphNodeSetParams) */
			CUgraphNodeParams gp;
			memset(&mop2, 0, sizeof(mop2));
			mop2.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
			mop2.writeValue.address = d_acc + 16;
			mop2.writeValue.value64 = 11;
			memset(&gp, 0, sizeof(gp));
			gp.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
			gp.memOp.ctx = ctx;
			gp.memOp.count = 1;
			gp.memOp.paramArray = &mop2;
			CUP_CK(cuGraphAddNode(&n_memop2, g, &n_tail, NULL, 1, &gp));
			mop2.writeValue.value64 = 0x0000001300000017ull;
			CUP_CK(cuGraphNodeSetParams(n_memop2, &gp));
			n_tail = n_memop2;
		}
	}
	CUP_CK(cuGraphAddEventRecordNode(&n_rec, g, &n_tail, 1, ev));
	{
		CUDA_MEMCPY3D down = cgn_copy(n * 4);
		down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		down.srcDevice = d_acc;
		down.dstMemoryType = CU_MEMORYTYPE_HOST;
		down.dstHost = inside;
		CUP_CK(cuGraphAddMemcpyNode(&n_back, g, &n_tail, 1, &down, ctx));
	}
	if (destroy) {
		CUDA_MEMSET_NODE_PARAMS ms;
		CUgraphNode n_bad;
		memset(&ms, 0, sizeof(ms));
		ms.dst = d_acc;
		ms.elementSize = 4;
		ms.width = n;
		ms.height = 1;
		CUP_CK(cuGraphAddMemsetNode(&n_bad, g, &n_scale, 1, &ms, ctx));
		CUP_CK(cuGraphAddDependencies(g, &n_bad, &n_back, NULL, 1));
		CUP_CK(cuGraphRemoveDependencies(g, &n_bad, &n_back, NULL, 1));
		CUP_CK(cuGraphDestroyNode(n_bad));
	}
	if (child) {
		CUgraph c;
		CUgraphNode n_child, n_in, n_cscale;
		void *scale_args[] = { &d_acc, &k, &n };
		void *scale_args2[] = { &d_acc, &k2, &n };
		CUDA_KERNEL_NODE_PARAMS p;
		CUP_CK(cuGraphCreate(&c, 0));
		CUP_CK(cuGraphAddEmptyNode(&n_in, c, NULL, 0));
		n_cscale = cgn_kernel(c, &n_in, 1, f_scale, grid, block, scale_args);
		CUP_CK(cuGraphAddChildGraphNode(&n_child, g, &n_back, 1, c));
		/* the parent holds a copy: this changes the child only */
		cgn_scale_params(&p, f_scale, grid, block, scale_args2);
		CUP_CK(cuGraphKernelNodeSetParams(n_cscale, &p));
		CUP_CK(cuGraphDestroy(c));
		/* a node after it, depending on it */
		CUP_CK(cuGraphAddEmptyNode(&n_in, g, &n_child, 1));
		if (child_get) {
			/* the node's own copy of the child: changes reach the parent */
			CUgraph e;
			CUgraphNode n_eset;
			CUDA_MEMSET_NODE_PARAMS ms;
			void *escale_args[] = { &d_c, &k, &n };
			CUP_CK(cuMemAlloc(&d_c, n * 4));
			CUP_CK(cuGraphChildGraphNodeGetGraph(n_child, &e));
			memset(&ms, 0, sizeof(ms));
			ms.dst = d_c;
			ms.value = 7;
			ms.elementSize = 4;
			ms.width = n;
			ms.height = 1;
			CUP_CK(cuGraphAddMemsetNode(&n_eset, e, NULL, 0, &ms, ctx));
			(void)cgn_kernel(e, &n_eset, 1, f_scale, grid, block, escale_args);
		}
	}
	if (host_node) {
		CUDA_HOST_NODE_PARAMS hp;
		CUgraphNode n_host;
		hp.fn = cgn_count;
		hp.userData = &host_runs;
		CUP_CK(cuGraphAddHostNode(&n_host, g, &n_back, 1, &hp));
		if (host_set) {
			hp.fn = cgn_count2;
			CUP_CK(cuGraphHostNodeSetParams(n_host, &hp));
		}
	}
	if (set_nodes) {
		CUDA_MEMSET_NODE_PARAMS ms;
		CUDA_MEMCPY3D up = cgn_copy(n * 4);
		memset(&ms, 0, sizeof(ms));
		ms.dst = d_acc;
		ms.value = 9;
		ms.elementSize = 4;
		ms.width = n;
		ms.height = 1;
		CUP_CK(cuGraphMemsetNodeSetParams(n_set, &ms));
		up.srcMemoryType = CU_MEMORYTYPE_HOST;
		up.srcHost = h2;
		up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		up.dstDevice = d_a;
		CUP_CK(cuGraphMemcpyNodeSetParams(n_up, &up));
		CUP_CK(cuEventCreate(&ev2, CU_EVENT_DEFAULT));
		CUP_CK(cuGraphEventRecordNodeSetEvent(n_rec, ev2));
		CUP_CK(cuGraphAddEventWaitNode(&n_wait, g, &n_back, 1, ev_before));
		CUP_CK(cuGraphEventWaitNodeSetEvent(n_wait, ev_gone));
		{
			/* the generic setter, on a kernel node */
			static uint32_t value3 = 29;
			void *fill_args3[] = { &d_b, &value3, &stride, &n };
			CUgraphNodeParams gp;
			memset(&gp, 0, sizeof(gp));
			gp.type = CU_GRAPH_NODE_TYPE_KERNEL;
			cgn_scale_params((CUDA_KERNEL_NODE_PARAMS *)&gp.kernel, f_fill, grid, block, fill_args3);
			CUP_CK(cuGraphNodeSetParams(n_fill, &gp));
		}
	}
	if (node_attr) {
		CUkernelNodeAttrValue v;
		memset(&v, 0, sizeof(v));
		/* 1 is outside the device's range (cuCtxGetStreamPriorityRange:
		 * 0 least, -5 greatest on the H100), -2 inside it */
		v.priority = 1;
		CUP_CK(cuGraphKernelNodeSetAttribute(n_scale, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &v));
		memset(&v, 0, sizeof(v));
		CUP_CK(cuGraphKernelNodeGetAttribute(n_scale, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &v));
		prio_out = v.priority;
		v.priority = -2;
		CUP_CK(cuGraphKernelNodeSetAttribute(n_scale, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &v));
		CUP_CK(cuGraphKernelNodeCopyAttributes(n_fill, n_scale));
		memset(&v, 0, sizeof(v));
		CUP_CK(cuGraphKernelNodeGetAttribute(n_fill, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &v));
		prio_copied = v.priority;
		CUP_CK(cuCtxGetStreamPriorityRange(&prio_least, &prio_greatest));
		node_attr_read = 1;
	}
	if (clone) {
		CUgraphNode n_cs;
		void *scale_args2[] = { &d_acc, &k2, &n };
		CUDA_KERNEL_NODE_PARAMS p;
		CUP_CK(cuGraphClone(&gc, g));
		CUP_CK(cuGraphNodeFindInClone(&n_cs, n_scale, gc));
		cgn_scale_params(&p, f_scale, grid, block, scale_args2);
		CUP_CK(cuGraphKernelNodeSetParams(n_cs, &p));
		CUP_CK(cuGraphInstantiate(&exec, gc, 0));
		n_xscale = n_cs;
	} else {
		CUP_CK(cuGraphInstantiate(&exec, g, 0));
		n_xscale = n_scale;
	}
	if (update) {
		CUgraph gu, gb;
		CUgraphNode n_us, n_only;
		CUgraphExecUpdateResultInfo info;
		void *scale_args2[] = { &d_acc, &k2, &n };
		CUDA_KERNEL_NODE_PARAMS p;
		CUresult r;
		CUP_CK(cuGraphClone(&gu, g));
		CUP_CK(cuGraphNodeFindInClone(&n_us, n_scale, gu));
		cgn_scale_params(&p, f_scale, grid, block, scale_args2);
		CUP_CK(cuGraphKernelNodeSetParams(n_us, &p));
		CUP_CK(cuGraphExecUpdate(exec, gu, &info));
		CUP_CK(cuGraphDestroy(gu));
		/* another shape: refused, the exec unchanged */
		CUP_CK(cuGraphCreate(&gb, 0));
		CUP_CK(cuGraphAddEmptyNode(&n_only, gb, NULL, 0));
		r = cuGraphExecUpdate(exec, gb, &info);
		if (r != CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE || info.result != CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED) {
			fprintf(stderr, "cuda_graph_nodes: an update from another shape gave %d (result %d)\n", (int)r,
				(int)info.result);
			return 1;
		}
		CUP_CK(cuGraphDestroy(gb));
	}
	if (disable) {
		unsigned on = 1;
		CUP_CK(cuGraphNodeSetEnabled(exec, n_xscale, 0));
		CUP_CK(cuGraphNodeGetEnabled(exec, n_xscale, &on));
		if (on) {
			fprintf(stderr, "cuda_graph_nodes: the disabled node reads as enabled\n");
			return 1;
		}
	}
	/* an event recorded on s before the window, waited on inside it */
	CUP_CK(cuMemsetD32Async(d_b, 7, n, s));
	CUP_CK(cuEventRecord(ev_before, s));
	CUP_CK(cuStreamSynchronize(s));
	{
		/* an event whose stream is gone before the window */
		CUstream s3;
		CUP_CK(cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING));
		CUP_CK(cuEventRecord(ev_gone, s3));
		CUP_CK(cuStreamSynchronize(s3));
		CUP_CK(cuStreamDestroy(s3));
	}
	if (capture_to) {
		/* made before the window: the window's snapshot keeps its mark */
		CUgraph out = NULL;
		CUgraphNode first;
		CUP_CK(cuGraphCreate(&g2, 0));
		CUP_CK(cuGraphAddEmptyNode(&first, g2, NULL, 0));
		void *cadd_args[] = { &d_acc, &d_b, &d_acc, &n };
		CUP_CK(cuStreamBeginCaptureToGraph(s2, g2, &first, NULL, 1, CU_STREAM_CAPTURE_MODE_RELAXED));
		CUP_CK(cuMemsetD32Async(d_b, 5, n, s2));
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s2, cadd_args, NULL));
		CUP_CK(cuStreamEndCapture(s2, &out));
		if (out != g2) {
			fprintf(stderr, "cuda_graph_nodes: the capture into a graph ended in another graph\n");
			return 1;
		}
		CUP_CK(cuGraphInstantiate(&x2, g2, 0));
	}
	if (gmem_live) /* its graph memory stays allocated until freed below */
		CUP_CK(cuGraphLaunch(exec, s));
	if (window)
		CUP_CK(cuProfilerStart());
	if (gmem_live) {
		void *gl_args[] = { &d_acc, &d_gmem, &d_acc, &n };
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s, gl_args, NULL));
		CUP_CK(cuMemFreeAsync(d_gmem, s));
	}
	CUP_CK(cuStreamWaitEvent(s2, ev_before, 0));
	CUP_CK(cuStreamWaitEvent(s2, ev_gone, 0));
	for (unsigned i = 0; i < launches; i++) {
		CUP_CK(cuGraphLaunch(exec, s));
		if (no_free_node && d_gmem) /* before the next launch allocates it again */
			CUP_CK(cuMemFreeAsync(d_gmem, s));
		if (exec_set && i == 0) {
			void *scale_args[] = { &d_acc, &k2, &n };
			CUDA_KERNEL_NODE_PARAMS p;
			memset(&p, 0, sizeof(p));
			p.func = f_scale;
			p.gridDimX = grid;
			p.gridDimY = p.gridDimZ = 1;
			p.blockDimX = block;
			p.blockDimY = p.blockDimZ = 1;
			p.kernelParams = scale_args;
			CUP_CK(cuGraphExecKernelNodeSetParams(exec, n_xscale, &p));
		}
		if (exec_event && i == 0)
			CUP_CK(cuGraphExecEventRecordNodeSetEvent(exec, n_rec, ev_before));
		if (memop && i == 0) {
			/* the exec's copy: other values, the same operations */
			CUDA_BATCH_MEM_OP_NODE_PARAMS mp;
			memset(&mp, 0, sizeof(mp));
			mp.ctx = ctx;
			mp.count = 3;
			mp.paramArray = mops;
			mops[0].writeValue.value = 777;
			mops[1].writeValue.value64 = 0x0000000900000003ull;
			mops[2].waitValue.value = 700;
			/* documented: the count and kinds of an exec's operations stay */
			mp.count = 2;
			if (cuGraphExecBatchMemOpNodeSetParams(exec, n_memop, &mp) == CUDA_SUCCESS) {
				fprintf(stderr, "%s: an exec's batch memory-op node took another count\n", cup_prog);
				return 1;
			}
			mp.count = 3;
			CUP_CK(cuGraphExecBatchMemOpNodeSetParams(exec, n_memop, &mp));
			{
				/* the generic form on the exec's copy of the second */
				CUgraphNodeParams gp;
				memset(&gp, 0, sizeof(gp));
				gp.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
				gp.memOp.ctx = ctx;
				gp.memOp.count = 1;
				gp.memOp.paramArray = &mop2;
				mop2.writeValue.value64 = 0x0000002900000031ull;
				CUP_CK(cuGraphExecNodeSetParams(exec, n_memop2, &gp));
			}
		}
		if (disable && i == 0)
			CUP_CK(cuGraphNodeSetEnabled(exec, n_xscale, 1));
		if (set_nodes && i == 0) {
			CUDA_MEMSET_NODE_PARAMS ms;
			CUDA_MEMCPY3D up = cgn_copy(n * 4);
			memset(&ms, 0, sizeof(ms));
			ms.dst = d_acc;
			ms.value = 4;
			ms.elementSize = 4;
			ms.width = n;
			ms.height = 1;
			CUP_CK(cuGraphExecMemsetNodeSetParams(exec, n_set, &ms, ctx));
			/* the driver refuses a change of memory type here
			 * (CUDA_ERROR_INVALID_VALUE on the H100); another host
			 * source it takes */
			up.srcMemoryType = CU_MEMORYTYPE_DEVICE;
			up.srcDevice = d_b;
			up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
			up.dstDevice = d_a;
			if (cuGraphExecMemcpyNodeSetParams(exec, n_up, &up, ctx) != CUDA_ERROR_INVALID_VALUE) {
				fprintf(stderr, "%s: an exec's upload node took a device source\n", cup_prog);
				return 1;
			}
			up.srcMemoryType = CU_MEMORYTYPE_HOST;
			up.srcHost = h3;
			CUP_CK(cuGraphExecMemcpyNodeSetParams(exec, n_up, &up, ctx));
			CUP_CK(cuGraphExecEventRecordNodeSetEvent(exec, n_rec, ev));
			CUP_CK(cuGraphExecEventWaitNodeSetEvent(exec, n_wait, ev_before));
			{
				/* the generic setter, on the exec's memset node */
				CUgraphNodeParams gp;
				memset(&gp, 0, sizeof(gp));
				gp.type = CU_GRAPH_NODE_TYPE_MEMSET;
				gp.memset.dst = d_acc;
				gp.memset.value = 6;
				gp.memset.elementSize = 4;
				gp.memset.width = n;
				gp.memset.height = 1;
				gp.memset.ctx = ctx;
				CUP_CK(cuGraphExecNodeSetParams(exec, n_set, &gp));
			}
		}
		if (host_src) {
			/* the launch read h: done before h changes */
			CUP_CK(cuStreamSynchronize(s));
			for (unsigned j = 0; j < n; j++)
				h[j] += j * 7u + i + 1u;
		}
	}
	if (capture_alloc) {
		/* stream-ordered memory inside a capture: allocation and free nodes */
		CUgraph gca;
		CUgraphExec xca;
		CUdeviceptr d_t;
		void *cadd_args[] = { &d_acc, &d_t, &d_acc, &n };
		CUP_CK(cuStreamSynchronize(s));
		CUP_CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
		CUP_CK(cuMemAllocAsync(&d_t, n * 4, s));
		CUP_CK(cuMemsetD32Async(d_t, 9, n, s));
		CUP_CK(cuLaunchKernel(f_vadd, grid, 1, 1, block, 1, 1, 0, s, cadd_args, NULL));
		CUP_CK(cuMemFreeAsync(d_t, s));
		CUP_CK(cuStreamEndCapture(s, &gca));
		CUP_CK(cuGraphInstantiate(&xca, gca, 0));
		CUP_CK(cuGraphLaunch(xca, s));
		CUP_CK(cuGraphLaunch(xca, s));
		CUP_CK(cuStreamSynchronize(s));
		CUP_CK(cuGraphExecDestroy(xca));
		CUP_CK(cuGraphDestroy(gca));
	}
	if (capture_to) {
		/* the graph's launches on s read d_b: done before s2 writes it */
		CUP_CK(cuStreamSynchronize(s));
		CUP_CK(cuGraphLaunch(x2, s2));
		CUP_CK(cuStreamSynchronize(s2));
		CUP_CK(cuGraphExecDestroy(x2));
		CUP_CK(cuGraphDestroy(g2));
	}
	CUP_CK(cuEventSynchronize(ev));
	if (ev2)
		CUP_CK(cuEventSynchronize(ev2));
	CUP_CK(cuStreamSynchronize(s));
	CUP_CK(cuMemcpyDtoH(back, d_acc, n * 4));
	if (mem_attr && alloc_node) {
		static const CUgraphMem_attribute attrs[] = { CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
							      CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
							      CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH };
		cuuint64_t v[4], zero = 0;
		for (unsigned i = 0; i < 4; i++)
			CUP_CK(cuDeviceGetGraphMemAttribute(dev, attrs[i], &v[i]));
		if (v[1] < (cuuint64_t)n * 4) {
			fprintf(stderr, "%s: the used graph memory's high watermark %llu is below the %u bytes allocated\n",
				cup_prog, (unsigned long long)v[1], n * 4);
			return 1;
		}
		CUP_CK(cuDeviceSetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero));
		CUP_CK(cuDeviceSetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &zero));
		CUP_CK(cuDeviceGraphMemTrim(dev));
	}
	if (window)
		CUP_CK(cuProfilerStop());
	printf("cuda_graph_nodes: launches %u hash 0x%016llx\n", launches,
	       (unsigned long long)XXH64(back, n * 4, 0));
	printf("cuda_graph_nodes: copied back by the graph 0x%016llx\n", (unsigned long long)XXH64(inside, n * 4, 0));
	if (host_node)
		printf("cuda_graph_nodes: the host node ran %u times\n", host_runs);
	if (node_attr_read)
		printf("cuda_graph_nodes: stream priorities %d (least) to %d (greatest); the scale node's priority "
		       "set to 1 reads %d; the fill node's, copied from it set to -2, %d\n",
		       prio_least, prio_greatest, prio_out, prio_copied);
	if (d_c) {
		CUP_CK(cuMemcpyDtoH(back, d_c, n * 4));
		printf("cuda_graph_nodes: the embedded graph wrote 0x%016llx (first word %u)\n",
		       (unsigned long long)XXH64(back, n * 4, 0), back[0]);
		CUP_CK(cuMemFree(d_c));
	}
	CUP_CK(cuGraphExecDestroy(exec));
	CUP_CK(cuGraphDestroy(g));
	if (gc) /* its nodes named the exec's until here */
		CUP_CK(cuGraphDestroy(gc));
	CUP_CK(cuEventDestroy(ev));
	CUP_CK(cuEventDestroy(ev_before));
	CUP_CK(cuEventDestroy(ev_gone));
	if (ev2)
		CUP_CK(cuEventDestroy(ev2));
	CUP_CK(cuStreamDestroy(s));
	CUP_CK(cuStreamDestroy(s2));
	CUP_CK(cuMemFree(d_a));
	CUP_CK(cuMemFree(d_b));
	CUP_CK(cuMemFree(d_acc));
	CUP_CK(cuModuleUnload(mod));
	CUP_CK(cuDevicePrimaryCtxRelease(dev));
	cgn_free_host(h, back, inside, h2, h3);
	return 0;
}
