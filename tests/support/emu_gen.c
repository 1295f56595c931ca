/*
 * emu_gen.c - synthetic CUDA traces for the emulator's tests (emu_gen.h).
 *
 * Scenarios (times with --kernel-ns 1000; streams 0x100, 0x200, 0x300 are
 * non-blocking unless said otherwise):
 *   fork       K1 on s1; s2 waits an event after K1 and runs K2; K3 after K1
 *              on s1; s1 waits an event after K2 and runs K4.  4 edges, 2
 *              across streams; with 4 engines makespan 3000 = critical path
 *              (K1 K3 K4), concurrency 2.
 *   legacy     s1 (0x100) is blocking: K1 on s1, K2 on the legacy stream,
 *              K3 on s2, K4 on s1, K5 on the per-thread default stream.
 *              K2 waits K1, K4 and K5 wait K2; K3 runs beside K1.
 *              Makespan 3000, concurrency 2.
 *   hostsync   K1 on s1, cuStreamSynchronize(s1), K2 on s2; a synchronous
 *              upload (after K1, beside K2), then K3 on s2 after both.
 *   captimes   (record times 1000 ns apart from seq 1 on, but where
 *              said): K1 (5000) and K2 (6000) on s1, K3 (7000) and K4
 *              (8000) on s2, cuStreamSynchronize(s1) at 14000,
 *              cuCtxSynchronize at 24000, K5 (25000) on s1.  Durations
 *              from capture times with --kernel-ns 1000: K1 and K2 5000
 *              (window 4000..14000, from the record before K1, for a
 *              modeled path of 2000), K3 and K4 9000 (6000..24000), K5
 *              the model's 1000 (no wait after it), after K4 (the host
 *              waited for it): makespan 19000 (K3 K4 K5).
 *   captimes_event the same with event 0xe1 recorded on s1 after K2 and
 *              waited for on s2 before K3 (7000, 8000; K3 9000, K4
 *              10000): K3 follows K2, so K3 and K4's window starts at the
 *              first wait's 14000: 5000 each; K3 10000..15000, K4
 *              15000..20000, K5 20000..21000 from the first command:
 *              makespan 21000 (K1 K2 K3 K4 K5).
 *   copies     uploads of 25000 bytes on s1, a download of 50000 bytes on
 *              s2, then a device copy of 1000000 bytes on s1.
 *   graph      a graph captured on s1 with a fork to s2 (Ka; Kb on s2 and
 *              Kc on s1 after Ka), launched twice on s3: 6 commands, the
 *              two branches overlapping on s3.
 *   graph_race the same with Kb passing Ka's and Kc's buffer: the two
 *              branches race inside each launch.
 *   graph_wait a graph built node by node, launched once on s1: event
 *              wait node (EVENT 0xe7) -> "consumer" of A, and "other" of A
 *              -> consumer; "producer" of A on s2 before EVENT is
 *              recorded there.  Per node (CUDA's rule), only the
 *              consumer follows the producer: one race (producer, other),
 *              makespan 2000; were the whole launch to wait, no race and
 *              3000.
 *   graph_record the same kind of graph: "early" of B -> event record
 *              node (EVENT), early -> "late" of A; launched on s1, then s2
 *              waits on EVENT and runs "reader" of A and B.  Per node the
 *              reader follows early alone: one race (late, reader on A),
 *              makespan 2000; recording the whole launch, none and 3000.
 *   graph_child a graph built node by node (0x900) holding a child graph
 *              node: "pre" (A) and "head" (B) with no dependencies, the
 *              child node after head and, by cuGraphAddDependencies, after
 *              pre; the child (0x910) holds "c1" (A) and "c2" (B),
 *              unordered; "tail" (A, B) after the child node (added by
 *              cuGraphAddDependencies).  A node "late" (A) added to the
 *              child after the child node was made is not in the parent.
 *              Launched once on s1: 5 commands, no race, makespan 3000
 *              (pre || head, c1 || c2, tail).
 *   graph_child_get graph_child, then cuGraphChildGraphNodeGetGraph of
 *              the child node (embedded graph 0x915), a node "inner" (B)
 *              added to it with no dependencies, and exec 0xe01 of 0x900
 *              launched on s1: the node joins the child node's copy, so
 *              the second launch runs pre, head, c1, c2, inner, tail
 *              (exec 0xe00, made before, keeps its 5): 11 commands,
 *              makespan 6000, inner races with c2 on B (1 possible).
 *   graph_child_rm graph_child_get with "inner2" (A) added to 0x915, an
 *              edge inner -> inner2 added and removed again: a removed edge
 *              of an embedded graph is not modeled, so exec 0xe01's launch
 *              is one command (6 commands).
 *   graph_child_destroy the same with inner destroyed (cuGraphDestroyNode)
 *              instead of the edge removed: 6 commands too.
 *   graph_mem  graph 0x900: a memory allocation node 0xa0 (graph memory
 *              GMEM 0x7000400000, 4096 bytes), "w" and "r" (GMEM) each
 *              after it, unordered, "fin" (A) after both, a free node 0xaf
 *              of GMEM after fin, "tail" (A) after the free node; launched
 *              once on s1, then "outside" (GMEM) on s2 with no event.  The
 *              allocation and free nodes are ordering nodes: 5 commands,
 *              edges w -> fin, r -> fin, fin -> tail, makespan 3000; w and
 *              r race on the graph memory (1 possible); outside, after the
 *              free node's record but unordered with the launch, races with
 *              both (3 possible: the range is judged by happens-before,
 *              not by where the free node's record lies).
 *   graph_mem_nofree graph_mem without the free node (tail after fin);
 *              after the launch "early" (GMEM) on s2, the graph destroyed,
 *              "still" (GMEM) on s2, cuMemFreeAsync of GMEM on s1, then
 *              "outside": none waits for the launch, so early, still and
 *              outside each race with w and r (6 possible, plus w with r).
 *   graph_mem_relaunch graph 0x900: an allocation node 0xa0 (GMEM, 4096
 *              bytes, no free node), "w" (GMEM) after it; exec 0xe00
 *              launched on s1 (seq 9), event 0xe1 recorded, cuMemFreeAsync
 *              of GMEM on s1, the exec launched again (seq 12), event 0xe2
 *              recorded, s2 waits for 0xe1, "reader" (GMEM) on s2: each
 *              launch allocates the graph memory anew, and the reader,
 *              after the first launch but not the second, races with the
 *              second launch's w (1 possible); the two launches, ordered on
 *              s1, do not race.  The second launch's memory is not freed.
 *   graph_mem_ordered graph_mem_relaunch with s2 waiting for 0xe2: no race.
 *   graph_mem_paths graph 0x900 (an allocation node of GMEM, 4096 bytes,
 *              "w" after it) instantiated as exec 0xe00 with
 *              CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, launched 3
 *              times on s1; graph 0x930 of one free node of GMEM launched
 *              (exec 0xe30); a capture on s1 that s2 joins (event 0xe1),
 *              cuMemAllocAsync of GMEM + 1 MiB (8192 bytes) and "fill" on
 *              s2, joined back (0xe2), ended as graph 0x940, launched once
 *              (exec 0xe40); then cuMemAllocAsync of 4096 bytes on s2,
 *              no longer capturing.  Memory: each launch of 0xe00 frees
 *              the last one's, 0xe30's frees the third, 0xe40's allocates
 *              8192 bytes left live; the last (BUF_B + 1 MiB) is async memory.
 *   hip_graph_mem HIP records on device 1 (hipSetDevice): s1 (blocking)
 *              and s2 (non-blocking); s1 captures hipMallocAsync of GMEM
 *              (4096 bytes), "k" (GMEM) and hipFreeAsync of it into graph
 *              0x900; exec 0xe00 launched twice on s1 (seq 10, 11), then
 *              "after" (GMEM) on s2: each launch allocates and frees the
 *              graph memory on device 1; after races with k of each launch
 *              (2 possible, each naming its launch), the launches do not.
 *   graph_update graph 0x900 of one node "k" (A), instantiated; a clone
 *              0x920 whose copy of k (found by cuGraphNodeFindInClone) is
 *              set to pass B; an update of the exec from a graph 0x930 of
 *              another shape that failed (result 2), then one from the
 *              clone that worked; the exec launched on s1, "reader" (B) on
 *              s2 without an event: k now passes B, 1 possible race.
 *   graph_capture_to graph 0x900 built node by node: "head" (A) and
 *              "side" (B), no dependencies; then a capture on s1 into it
 *              after head (cuStreamBeginCaptureToGraph, recorded as a
 *              cuStreamBeginCapture with parent 0x900 and deps head): s1
 *              records EVENT 0xe1 before any node, s2 waits on it and runs
 *              "c2" (B), s1 runs "c1" (A), s1 joins s2 (EVENT 0xe2) and
 *              runs "tail" (A); the capture ends in 0x900; exec 0xe00
 *              launched once on s1.  As the driver builds it: head -> c1,
 *              head -> c2 (c2 follows no captured node, so it follows the
 *              capture's deps), c1 -> tail, c2 -> tail, side beside them:
 *              5 commands, makespan 3000, one race (side, c2 on B: 1
 *              possible).
 *   graph_capture_to_nodeps the same with no deps: c1 and c2 follow
 *              nothing: makespan 2000, three races (head with c1 and with
 *              tail on A; side, c2 on B).
 *   graph_capture_to_alloc graph_capture_to with s2 allocating GMEM
 *              (4096 bytes, cuMemAllocAsync: an allocation node of the
 *              capture, so of graph 0x900) before c2, which passes GMEM
 *              instead of B; after the launch "after" (GMEM) on s2, not
 *              waiting for it: the launch allocates GMEM (never freed),
 *              after races with that launch's c2 (1 possible), side with
 *              nothing.
 *   graph_disable a graph of a chain a (A) -> b (B) -> c (A), exec 0xe00
 *              launched twice on s1 with b disabled (cuGraphNodeSetEnabled)
 *              for the first launch: 5 commands, c after a in the first
 *              launch (b an empty node), makespan 5000.
 *   hip_ctx    HIP records (the meaning of clr): s1 (0x100, blocking) made
 *              on device 0 runs K0 (A); hipCtxCreate of device 1's
 *              context (the current device stays 0); K1 (A) on the null
 *              stream: device 0's, after K0; hipCtxSetCurrent of device
 *              0's, hipCtxPushCurrent of device 1's, K2 (B) on device 1's
 *              null stream; hipCtxPopCurrent (device 1 stays current, as
 *              recorded); K3 (B) on device 1's null stream, after K2.
 *              4 commands, 2 dependencies, no race, makespan 2000.  (Read
 *              as CUDA contexts, K1 would be device 1's and race with K0,
 *              K3 device 0's and race with K2.)
 *   devices    two devices' primary contexts: s1 (blocking) and K0 on the
 *              legacy stream made under device 0, s2 and K3 on the legacy
 *              stream under device 1 (K1 on s1, K2 on s2): one legacy
 *              stream each; K1 waits K0, K3 waits for nothing (s1 is
 *              another device's).
 *   threads    thread 1: K1 on s1, an event recorded after it, then
 *              cuStreamSynchronize(s1); thread 2: K2 on s2 (not after K1:
 *              another thread synchronized); thread 1: K3 on s2 (after K1
 *              and K2); the event destroyed and created again; thread 2:
 *              s3 waits on it (for nothing) and runs K4.
 *   race       "fill" on s1 passes B; a download of B on s2, no event.
 *   event      the same with an event between them.
 *   race_kf    race, with keyframes around the launch showing it wrote B.
 *   readers    two downloads of A on s1 and s2.
 *   readers_kf two kernels passing A on s1 and s2, keyframes showing A
 *              unchanged by each.
 *   bulk:N     N kernels on 8 streams, for timing (emu_gen_bulk).
 *   graphs:C:L:N a graph built node by node of C chains of L kernel nodes
 *              (chain c's nodes pass buffer c), instantiated once and
 *              launched N times on one non-blocking stream, for timing
 *              (emu_gen_graphs; C x L x N commands, no race).
 *   wait_chain:N N times: kernel "k" on s1, event 0xe1 recorded on s1,
 *              s2 waits on it (s2 runs nothing meanwhile, so each wait
 *              adds one more step of s1 to what s2's next step waits for);
 *              then event 0xe2 recorded on s2 (it captures those N waits),
 *              s3 waits on 0xe2 and again on 0xe1 (nothing new: s1's last
 *              step is among 0xe2's), "tail" on s3 and "end" on s2
 *              (emu_gen_wait_chain).  N + 2 commands, no accesses, no
 *              race; dependencies: N - 1 on s1, N each for tail and end:
 *              3N - 1.
 */
#include "tests/support/emu_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct emu_gen {
	sbt_writer *w;
	uint64_t seq;
	const char *path;
	int one_stack;          /* bulk traces: every record has the same stack */
	uint64_t thread;        /* of the next records */
	int64_t shift;          /* record times: seq * 1000 + shift (emu_gen_at) */
};

static void emu_gen_check(emu_gen *g, sbt_status st, const char *what)
{
	if (st != SBT_OK) {
		fprintf(stderr, "emu_gen: %s: %s: %s\n", g->path, what, sbt_strerror(st));
		exit(1);
	}
}

emu_gen *emu_gen_open(const char *path)
{
	emu_gen *g = calloc(1, sizeof(*g));

	if (!g) {
		fprintf(stderr, "emu_gen: out of memory\n");
		exit(1);
	}
	g->path = path;
	g->thread = 1;
	emu_gen_check(g, sbt_writer_open(path, NULL, &g->w), "open");
	emu_gen_check(g, sbt_cm_define_types(g->w), "define types");
	emu_gen_check(g, sbt_writer_define_type(g->w, SBT_TYPE_KEYFRAME, "keyframe"), "define keyframe");
	emu_gen_check(g, sbt_writer_set_meta(g->w, "api", SBT_CM_API_CUDA), "meta");
	return g;
}

static void emu_gen_append(emu_gen *g, uint32_t type, const sbt_cm_call *c)
{
	uint8_t buf[4096];
	size_t len = 0;
	sbt_record r = { 0 };
	sbt_frame fr;
	char sym[32];

	g->seq++;
	if (g->one_stack)
		snprintf(sym, sizeof(sym), "emu_gen!bulk");
	else
		snprintf(sym, sizeof(sym), "emu_gen!seq%llu", (unsigned long long)g->seq);
	fr.ip = g->one_stack ? 0x1000 : 0x1000 + g->seq;
	emu_gen_check(g, sbt_writer_intern(g->w, sym, &fr.symbol_id), "intern");
	emu_gen_check(g, sbt_writer_put_stack(g->w, g->one_stack ? 1 : g->seq, &fr, 1, &r.stack_id), "stack");
	emu_gen_check(g, sbt_cm_encode(c, buf, sizeof(buf), &len), "encode");
	r.type = type;
	r.seq = g->seq;
	r.time_ns = (uint64_t)((int64_t)g->seq * 1000 + g->shift);
	r.thread = g->thread;
	r.payload = buf;
	r.payload_len = len;
	emu_gen_check(g, sbt_writer_append(g->w, &r), "append");
}

void emu_gen_call(emu_gen *g, sbt_cm_kind k, const sbt_cm_call *c)
{
	emu_gen_append(g, SBT_CM_TYPE(k), c);
}

void emu_gen_keyframe(emu_gen *g, unsigned sub, uint64_t ordinal, uint64_t count)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.sub = sub;
	c.value = ordinal;
	c.count = count;
	emu_gen_append(g, SBT_TYPE_KEYFRAME, &c);
}

void emu_gen_snapshot(emu_gen *g, uint64_t dst, const void *data, size_t size)
{
	sbt_cm_call c;
	uint64_t blob = 0;

	sbt_cm_call_init(&c);
	emu_gen_check(g, sbt_writer_put_blob(g->w, 0, data, size, &blob), "blob");
	c.dst = dst;
	c.size = size;
	c.blob = blob;
	c.sub = SBT_CM_MEM_DEVICE;
	emu_gen_call(g, SBT_CM_K_tsSnapshot, &c);
}

void emu_gen_close(emu_gen *g)
{
	emu_gen_check(g, sbt_writer_close(g->w), "close");
	free(g);
}

void emu_gen_stream(emu_gen *g, uint64_t handle, unsigned flags)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.handle = handle;
	c.flags = flags;
	emu_gen_call(g, SBT_CM_K_cuStreamCreate, &c);
}

void emu_gen_alloc(emu_gen *g, uint64_t dst, uint64_t size)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.dst = dst;
	c.size = size;
	c.sub = SBT_CM_MEM_DEVICE;
	emu_gen_call(g, SBT_CM_K_cuMemAlloc, &c);
}

void emu_gen_kernel(emu_gen *g, uint64_t stream, const char *name, const uint64_t *ptrs, size_t n,
                    int capturing)
{
	sbt_cm_call c;
	uint8_t params[64], layout[8 * 8];

	sbt_cm_call_init(&c);
	if (n > 8)
		n = 8;
	for (size_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < 8; k++)
			params[i * 8 + k] = (uint8_t)(ptrs[i] >> (8 * k));
		sbt_cm_layout_put(layout + i * 8, (uint32_t)(i * 8), 8);
	}
	c.handle = 0xf00;
	c.name = (const uint8_t *)name;
	c.name_len = strlen(name);
	c.grid_x = c.grid_y = c.grid_z = 1;
	c.block_x = c.block_y = c.block_z = 32;
	c.stream = stream;
	c.params = params;
	c.params_len = n * 8;
	c.layout = layout;
	c.layout_len = n * 8;
	c.capture_status = capturing ? 1 : 0;
	emu_gen_call(g, SBT_CM_K_cuLaunchKernel, &c);
}

static void emu_gen_kernel_node_as(emu_gen *g, sbt_cm_kind kind, uint64_t graph, uint64_t node,
                                   const uint64_t *deps, size_t ndeps, const char *name, const uint64_t *ptrs,
                                   size_t n);

void emu_gen_kernel_node(emu_gen *g, uint64_t graph, uint64_t node, const uint64_t *deps, size_t ndeps,
                         const char *name, const uint64_t *ptrs, size_t n)
{
	emu_gen_kernel_node_as(g, SBT_CM_K_cuGraphAddKernelNode, graph, node, deps, ndeps, name, ptrs, n);
}

/* A kernel node record of that kind (an add, or a setter with graph 0). */
static void emu_gen_kernel_node_as(emu_gen *g, sbt_cm_kind kind, uint64_t graph, uint64_t node,
                                   const uint64_t *deps, size_t ndeps, const char *name, const uint64_t *ptrs,
                                   size_t n)
{
	sbt_cm_call c;
	uint8_t params[64], layout[8 * 8], dep[8 * 8];

	sbt_cm_call_init(&c);
	if (n > 8)
		n = 8;
	if (ndeps > 8)
		ndeps = 8;
	for (size_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < 8; k++)
			params[i * 8 + k] = (uint8_t)(ptrs[i] >> (8 * k));
		sbt_cm_layout_put(layout + i * 8, (uint32_t)(i * 8), 8);
	}
	for (size_t i = 0; i < ndeps; i++)
		for (unsigned k = 0; k < 8; k++)
			dep[i * 8 + k] = (uint8_t)(deps[i] >> (8 * k));
	c.handle = 0xf00;
	c.name = (const uint8_t *)name;
	c.name_len = strlen(name);
	c.grid_x = c.grid_y = c.grid_z = 1;
	c.block_x = c.block_y = c.block_z = 32;
	c.params = params;
	c.params_len = n * 8;
	c.layout = layout;
	c.layout_len = n * 8;
	c.node = node;
	c.parent = graph;
	if (ndeps) {
		c.deps = dep;
		c.deps_len = ndeps * 8;
	}
	emu_gen_call(g, kind, &c);
}

void emu_gen_record(emu_gen *g, uint64_t event, uint64_t stream)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.event = event;
	c.stream = stream;
	emu_gen_call(g, SBT_CM_K_cuEventRecord, &c);
}

void emu_gen_wait(emu_gen *g, uint64_t stream, uint64_t event)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.event = event;
	c.stream = stream;
	emu_gen_call(g, SBT_CM_K_cuStreamWaitEvent, &c);
}

static void emu_gen_copy(emu_gen *g, sbt_cm_kind k, uint64_t dst, uint64_t src, uint64_t size,
                         uint64_t stream)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.dst = dst;
	c.src = src;
	c.size = size;
	c.stream = stream;
	emu_gen_call(g, k, &c);
}

static void emu_gen_stream_sync(emu_gen *g, uint64_t stream)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.stream = stream;
	emu_gen_call(g, SBT_CM_K_cuStreamSynchronize, &c);
}

/* The next record is taken at ns (later than the last), those after it
 * 1000 ns apart as before. */
static void emu_gen_at(emu_gen *g, uint64_t ns)
{
	g->shift = (int64_t)ns - (int64_t)(g->seq + 1) * 1000;
}

static void emu_gen_ctx_sync(emu_gen *g)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	emu_gen_call(g, SBT_CM_K_cuCtxSynchronize, &c);
}

#define S1 0x100u
#define S2 0x200u
#define S3 0x300u
#define BUF_A 0x7000000000ull
#define BUF_B 0x7000100000ull
#define BUF_SIZE 4096u
#define HOST_P 0x5000000ull

static void emu_gen_two_streams(emu_gen *g)
{
	emu_gen_stream(g, S1, 1);
	emu_gen_stream(g, S2, 1);
	emu_gen_alloc(g, BUF_A, BUF_SIZE);
	emu_gen_alloc(g, BUF_B, BUF_SIZE);
}

static void emu_gen_fork(emu_gen *g)
{
	uint64_t a = BUF_A, b = BUF_B, ab[2] = { BUF_A, BUF_B };

	emu_gen_two_streams(g);
	emu_gen_kernel(g, S1, "K1", &a, 1, 0);
	emu_gen_record(g, 0xe1, S1);
	emu_gen_wait(g, S2, 0xe1);
	emu_gen_kernel(g, S2, "K2", &b, 1, 0);
	emu_gen_kernel(g, S1, "K3", &a, 1, 0);
	emu_gen_record(g, 0xe2, S2);
	emu_gen_wait(g, S1, 0xe2);
	emu_gen_kernel(g, S1, "K4", ab, 2, 0);
}

static void emu_gen_legacy(emu_gen *g)
{
	emu_gen_stream(g, S1, 0);
	emu_gen_stream(g, S2, 1);
	emu_gen_kernel(g, S1, "K1", NULL, 0, 0);
	emu_gen_kernel(g, 0, "K2", NULL, 0, 0);
	emu_gen_kernel(g, S2, "K3", NULL, 0, 0);
	emu_gen_kernel(g, S1, "K4", NULL, 0, 0);
	{
		/* stream 0 through a _ptds variant: the thread's own default
		 * stream, blocking, so after the legacy stream's K2 */
		sbt_cm_call c;

		sbt_cm_call_init(&c);
		c.name = (const uint8_t *)"K5";
		c.name_len = 2;
		c.ptds = 1;
		emu_gen_call(g, SBT_CM_K_cuLaunchKernel, &c);
	}
}

static void emu_gen_hostsync(emu_gen *g)
{
	emu_gen_two_streams(g);
	emu_gen_kernel(g, S1, "K1", NULL, 0, 0);
	emu_gen_stream_sync(g, S1);
	emu_gen_kernel(g, S2, "K2", NULL, 0, 0);
	emu_gen_copy(g, SBT_CM_K_cuMemcpyHtoD, BUF_A, HOST_P, 1000, 0);
	emu_gen_kernel(g, S2, "K3", NULL, 0, 0);
}

static void emu_gen_captimes(emu_gen *g, int dep)
{
	emu_gen_two_streams(g);
	emu_gen_kernel(g, S1, "K1", NULL, 0, 0);
	emu_gen_kernel(g, S1, "K2", NULL, 0, 0);
	if (dep) {
		emu_gen_record(g, 0xe1, S1);
		emu_gen_wait(g, S2, 0xe1);
	}
	emu_gen_kernel(g, S2, "K3", NULL, 0, 0);
	emu_gen_kernel(g, S2, "K4", NULL, 0, 0);
	emu_gen_at(g, 14000);
	emu_gen_stream_sync(g, S1);
	emu_gen_at(g, 24000);
	emu_gen_ctx_sync(g);
	emu_gen_kernel(g, S1, "K5", NULL, 0, 0);
}

static void emu_gen_copies(emu_gen *g)
{
	emu_gen_stream(g, S1, 1);
	emu_gen_stream(g, S2, 1);
	emu_gen_alloc(g, BUF_A, 1000000);
	emu_gen_alloc(g, BUF_B, 1000000);
	emu_gen_copy(g, SBT_CM_K_cuMemcpyHtoDAsync, BUF_A, HOST_P, 25000, S1);
	emu_gen_copy(g, SBT_CM_K_cuMemcpyDtoHAsync, HOST_P, BUF_B, 50000, S2);
	emu_gen_copy(g, SBT_CM_K_cuMemcpyDtoDAsync, BUF_B, BUF_A, 1000000, S1);
}

static void emu_gen_graph(emu_gen *g, int racy)
{
	sbt_cm_call c;
	uint64_t a = BUF_A, b = racy ? BUF_A : BUF_B;

	emu_gen_two_streams(g);
	emu_gen_stream(g, S3, 1);
	sbt_cm_call_init(&c);
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuStreamBeginCapture, &c);
	emu_gen_kernel(g, S1, "Ka", &a, 1, 1);
	emu_gen_record(g, 0xe1, S1);
	emu_gen_wait(g, S2, 0xe1);
	emu_gen_kernel(g, S2, "Kb", &b, 1, 1);
	emu_gen_kernel(g, S1, "Kc", &a, 1, 1);
	emu_gen_record(g, 0xe2, S2);
	emu_gen_wait(g, S1, 0xe2);
	sbt_cm_call_init(&c);
	c.stream = S1;
	c.handle = 0x900;
	emu_gen_call(g, SBT_CM_K_cuStreamEndCapture, &c);
	sbt_cm_call_init(&c);
	c.handle = 0x901;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	for (int i = 0; i < 2; i++) {
		sbt_cm_call_init(&c);
		c.handle = 0x901;
		c.stream = S3;
		emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	}
	emu_gen_stream_sync(g, S3);
}

/* A node of graph 0x900 with no fields but its event (0xe7) and dep. */
static void emu_gen_event_node(emu_gen *g, sbt_cm_kind k, uint64_t node, uint64_t dep)
{
	sbt_cm_call c;
	uint8_t deps[8];

	sbt_cm_call_init(&c);
	c.node = node;
	c.parent = 0x900;
	c.event = 0xe7;
	if (dep) {
		for (unsigned k8 = 0; k8 < 8; k8++)
			deps[k8] = (uint8_t)(dep >> (8 * k8));
		c.deps = deps;
		c.deps_len = 8;
	}
	emu_gen_call(g, k, &c);
}

/* Exec 0xe00 of graph 0x900, launched once on s1. */
static void emu_gen_launch_once(emu_gen *g)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
}

static void emu_gen_graph_events(emu_gen *g, int record)
{
	sbt_cm_call c;
	uint64_t a = BUF_A, b = BUF_B, ab[2] = { BUF_A, BUF_B }, dep;
	uint8_t from[8], to[8];

	emu_gen_two_streams(g);
	if (!record) {
		emu_gen_kernel(g, S2, "producer", &a, 1, 0);
		emu_gen_record(g, 0xe7, S2);
	}
	sbt_cm_call_init(&c);
	c.handle = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphCreate, &c);
	if (record) {
		emu_gen_kernel_node(g, 0x900, 0xc1, NULL, 0, "early", &b, 1);
		emu_gen_event_node(g, SBT_CM_K_cuGraphAddEventRecordNode, 0xc2, 0xc1);
		dep = 0xc1;
		emu_gen_kernel_node(g, 0x900, 0xc3, &dep, 1, "late", &a, 1);
		emu_gen_launch_once(g);
		emu_gen_wait(g, S2, 0xe7);
		emu_gen_kernel(g, S2, "reader", ab, 2, 0);
		return;
	}
	emu_gen_event_node(g, SBT_CM_K_cuGraphAddEventWaitNode, 0xb1, 0);
	dep = 0xb1;
	emu_gen_kernel_node(g, 0x900, 0xb2, &dep, 1, "consumer", &a, 1);
	emu_gen_kernel_node(g, 0x900, 0xb3, NULL, 0, "other", &a, 1);
	sbt_cm_call_init(&c);
	for (unsigned k = 0; k < 8; k++) {
		from[k] = (uint8_t)(0xb3ull >> (8 * k));
		to[k] = (uint8_t)(0xb2ull >> (8 * k));
	}
	c.parent = 0x900;
	c.deps = from;
	c.deps_len = 8;
	c.deps_to = to;
	c.deps_to_len = 8;
	emu_gen_call(g, SBT_CM_K_cuGraphAddDependencies, &c);
	emu_gen_launch_once(g);
}

/* cuGraphAddDependencies(graph, from -> to). */
static void emu_gen_edge_as(emu_gen *g, sbt_cm_kind kind, uint64_t graph, uint64_t from, uint64_t to);

static void emu_gen_edge(emu_gen *g, uint64_t graph, uint64_t from, uint64_t to)
{
	emu_gen_edge_as(g, SBT_CM_K_cuGraphAddDependencies, graph, from, to);
}

static void emu_gen_edge_remove(emu_gen *g, uint64_t graph, uint64_t from, uint64_t to)
{
	emu_gen_edge_as(g, SBT_CM_K_cuGraphRemoveDependencies, graph, from, to);
}

/* An edge from -> to of graph added or removed (kind). */
static void emu_gen_edge_as(emu_gen *g, sbt_cm_kind kind, uint64_t graph, uint64_t from, uint64_t to)
{
	sbt_cm_call c;
	uint8_t f[8], t[8];

	sbt_cm_call_init(&c);
	for (unsigned k = 0; k < 8; k++) {
		f[k] = (uint8_t)(from >> (8 * k));
		t[k] = (uint8_t)(to >> (8 * k));
	}
	c.parent = graph;
	c.deps = f;
	c.deps_len = 8;
	c.deps_to = t;
	c.deps_to_len = 8;
	emu_gen_call(g, kind, &c);
}

static void emu_gen_graph_create(emu_gen *g, uint64_t graph)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.handle = graph;
	emu_gen_call(g, SBT_CM_K_cuGraphCreate, &c);
}

static void emu_gen_graph_child(emu_gen *g, int get)
{
	sbt_cm_call c;
	uint64_t a = BUF_A, b = BUF_B, ab[2] = { BUF_A, BUF_B }, dep = 0xa2;
	uint8_t d[8];

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x910);
	emu_gen_kernel_node(g, 0x910, 0xc1, NULL, 0, "c1", &a, 1);
	emu_gen_kernel_node(g, 0x910, 0xc2, NULL, 0, "c2", &b, 1);
	emu_gen_graph_create(g, 0x900);
	emu_gen_kernel_node(g, 0x900, 0xa1, NULL, 0, "pre", &a, 1);
	emu_gen_kernel_node(g, 0x900, 0xa2, NULL, 0, "head", &b, 1);
	sbt_cm_call_init(&c);
	for (unsigned k = 0; k < 8; k++)
		d[k] = (uint8_t)(dep >> (8 * k));
	c.node = 0xd0;
	c.parent = 0x900;
	c.handle = 0x910;
	c.deps = d;
	c.deps_len = 8;
	emu_gen_call(g, SBT_CM_K_cuGraphAddChildGraphNode, &c);
	emu_gen_kernel_node(g, 0x910, 0xc3, NULL, 0, "late", &a, 1);
	emu_gen_edge(g, 0x900, 0xa1, 0xd0);
	emu_gen_kernel_node(g, 0x900, 0xa3, NULL, 0, "tail", ab, 2);
	emu_gen_edge(g, 0x900, 0xd0, 0xa3);
	emu_gen_launch_once(g);
	if (!get)
		return;
	sbt_cm_call_init(&c);
	c.node = 0xd0;
	c.handle = 0x915;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphChildGraphNodeGetGraph, &c);
	emu_gen_kernel_node(g, 0x915, 0xc5, NULL, 0, "inner", &b, 1);
	if (get >= 2) {
		emu_gen_kernel_node(g, 0x915, 0xc6, NULL, 0, "inner2", &a, 1);
		emu_gen_edge(g, 0x915, 0xc5, 0xc6);
		if (get == 2) {
			emu_gen_edge_remove(g, 0x915, 0xc5, 0xc6);
		} else {
			sbt_cm_call_init(&c);
			c.node = 0xc5;
			emu_gen_call(g, SBT_CM_K_cuGraphDestroyNode, &c);
		}
	}
	sbt_cm_call_init(&c);
	c.handle = 0xe01;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe01;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
}

#define GMEM 0x7000400000ull

/* A memory allocation (alloc) or free node of graph 0x900 after dep. */
static void emu_gen_mem_node(emu_gen *g, int alloc, uint64_t node, uint64_t dep)
{
	sbt_cm_call c;
	uint8_t d[8];

	sbt_cm_call_init(&c);
	c.parent = 0x900;
	c.node = node;
	c.dst = GMEM;
	if (alloc)
		c.size = BUF_SIZE;
	if (dep) {
		for (unsigned k = 0; k < 8; k++)
			d[k] = (uint8_t)(dep >> (8 * k));
		c.deps = d;
		c.deps_len = 8;
	}
	emu_gen_call(g, alloc ? SBT_CM_K_cuGraphAddMemAllocNode : SBT_CM_K_cuGraphAddMemFreeNode, &c);
}

static void emu_gen_graph_mem(emu_gen *g, int free_node)
{
	uint64_t a = BUF_A, m = GMEM, al = 0xa0, wr[2] = { 0xa1, 0xa2 }, fin = 0xa3, fr = 0xaf;
	sbt_cm_call c;

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x900);
	emu_gen_mem_node(g, 1, al, 0);
	emu_gen_kernel_node(g, 0x900, wr[0], &al, 1, "w", &m, 1);
	emu_gen_kernel_node(g, 0x900, wr[1], &al, 1, "r", &m, 1);
	emu_gen_kernel_node(g, 0x900, fin, wr, 2, "fin", &a, 1);
	if (free_node)
		emu_gen_mem_node(g, 0, fr, fin);
	emu_gen_kernel_node(g, 0x900, 0xa4, free_node ? &fr : &fin, 1, "tail", &a, 1);
	emu_gen_launch_once(g);
	if (!free_node) {
		emu_gen_kernel(g, S2, "early", &m, 1, 0);
		sbt_cm_call_init(&c);
		c.handle = 0x900;
		emu_gen_call(g, SBT_CM_K_cuGraphDestroy, &c);
		emu_gen_kernel(g, S2, "still", &m, 1, 0);
		sbt_cm_call_init(&c);
		c.dst = GMEM;
		c.stream = S1;
		emu_gen_call(g, SBT_CM_K_cuMemFreeAsync, &c);
	}
	emu_gen_kernel(g, S2, "outside", &m, 1, 0);
}

/* graph_mem_relaunch / graph_mem_ordered: one exec launched twice, its
 * graph memory freed by cuMemFreeAsync after the first launch only; the
 * reader on s2 waits for the event recorded after the first launch
 * (ordered: after the second). */
static void emu_gen_graph_mem_relaunch(emu_gen *g, int ordered)
{
	uint64_t m = GMEM, al = 0xa0;
	sbt_cm_call c;

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x900);
	emu_gen_mem_node(g, 1, al, 0);
	emu_gen_kernel_node(g, 0x900, 0xa1, &al, 1, "w", &m, 1);
	emu_gen_launch_once(g);
	emu_gen_record(g, 0xe1, S1);
	sbt_cm_call_init(&c);
	c.dst = GMEM;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuMemFreeAsync, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	emu_gen_record(g, 0xe2, S1);
	emu_gen_wait(g, S2, ordered ? 0xe2 : 0xe1);
	emu_gen_kernel(g, S2, "reader", &m, 1, 0);
}

/* graph_mem_paths (sbt_mem.h's graph memory model, path by path). */
static void emu_gen_graph_mem_paths(emu_gen *g)
{
	uint64_t m = GMEM, m2 = GMEM + 0x100000, al = 0xa0;
	sbt_cm_call c;

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x900);
	emu_gen_mem_node(g, 1, al, 0);
	emu_gen_kernel_node(g, 0x900, 0xa1, &al, 1, "w", &m, 1);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	c.flags = 1; /* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	for (unsigned i = 0; i < 3; i++) {
		sbt_cm_call_init(&c);
		c.handle = 0xe00;
		c.stream = S1;
		emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	}
	/* graph 0x930 frees the memory graph 0x900 allocated */
	emu_gen_graph_create(g, 0x930);
	sbt_cm_call_init(&c);
	c.parent = 0x930;
	c.node = 0xb0;
	c.dst = GMEM;
	emu_gen_call(g, SBT_CM_K_cuGraphAddMemFreeNode, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe30;
	c.parent = 0x930;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe30;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	/* a capture s2 joins: its cuMemAllocAsync is graph 0x940's */
	sbt_cm_call_init(&c);
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuStreamBeginCapture, &c);
	emu_gen_record(g, 0xe1, S1);
	emu_gen_wait(g, S2, 0xe1);
	sbt_cm_call_init(&c);
	c.dst = m2;
	c.size = 2 * BUF_SIZE;
	c.stream = S2;
	c.sub = SBT_CM_MEM_ASYNC;
	emu_gen_call(g, SBT_CM_K_cuMemAllocAsync, &c);
	emu_gen_kernel(g, S2, "fill", &m2, 1, 1);
	emu_gen_record(g, 0xe2, S2);
	emu_gen_wait(g, S1, 0xe2);
	sbt_cm_call_init(&c);
	c.stream = S1;
	c.handle = 0x940;
	emu_gen_call(g, SBT_CM_K_cuStreamEndCapture, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe40;
	c.parent = 0x940;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe40;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	/* after the capture, s2 allocates asynchronously as any stream */
	sbt_cm_call_init(&c);
	c.dst = BUF_B + 0x100000;
	c.size = BUF_SIZE;
	c.stream = S2;
	c.sub = SBT_CM_MEM_ASYNC;
	emu_gen_call(g, SBT_CM_K_cuMemAllocAsync, &c);
}

static void emu_gen_graph_capture_to(emu_gen *g, int with_deps, int alloc)
{
	sbt_cm_call c;
	uint64_t a = BUF_A, b = BUF_B, m = GMEM, head = 0xa1;
	uint8_t d[8];

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x900);
	emu_gen_kernel_node(g, 0x900, head, NULL, 0, "head", &a, 1);
	emu_gen_kernel_node(g, 0x900, 0xa2, NULL, 0, "side", &b, 1);
	sbt_cm_call_init(&c);
	c.stream = S1;
	c.flags = 2; /* CU_STREAM_CAPTURE_MODE_RELAXED */
	c.parent = 0x900;
	if (with_deps) {
		for (unsigned k = 0; k < 8; k++)
			d[k] = (uint8_t)(head >> (8 * k));
		c.deps = d;
		c.deps_len = 8;
	}
	emu_gen_call(g, SBT_CM_K_cuStreamBeginCapture, &c);
	emu_gen_record(g, 0xe1, S1);
	emu_gen_wait(g, S2, 0xe1);
	if (alloc) {
		sbt_cm_call_init(&c);
		c.dst = GMEM;
		c.size = BUF_SIZE;
		c.stream = S2;
		c.sub = SBT_CM_MEM_ASYNC;
		emu_gen_call(g, SBT_CM_K_cuMemAllocAsync, &c);
	}
	emu_gen_kernel(g, S2, "c2", alloc ? &m : &b, 1, 1);
	emu_gen_kernel(g, S1, "c1", &a, 1, 1);
	emu_gen_record(g, 0xe2, S2);
	emu_gen_wait(g, S1, 0xe2);
	emu_gen_kernel(g, S1, "tail", &a, 1, 1);
	sbt_cm_call_init(&c);
	c.stream = S1;
	c.handle = 0x900;
	emu_gen_call(g, SBT_CM_K_cuStreamEndCapture, &c);
	emu_gen_launch_once(g);
	if (alloc)
		emu_gen_kernel(g, S2, "after", &m, 1, 0);
}

static void emu_gen_graph_update(emu_gen *g)
{
	sbt_cm_call c;
	uint64_t a = BUF_A, b = BUF_B;

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x900);
	emu_gen_kernel_node(g, 0x900, 0xa1, NULL, 0, "k", &a, 1);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0x920;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphClone, &c);
	sbt_cm_call_init(&c);
	c.node = 0xa9;
	c.handle = 0xa1;
	c.parent = 0x920;
	emu_gen_call(g, SBT_CM_K_cuGraphNodeFindInClone, &c);
	emu_gen_kernel_node_as(g, SBT_CM_K_cuGraphKernelNodeSetParams, 0, 0xa9, NULL, 0, "k", &b, 1);
	emu_gen_graph_create(g, 0x930);
	emu_gen_kernel_node(g, 0x930, 0xb1, NULL, 0, "other", &a, 1);
	emu_gen_kernel_node(g, 0x930, 0xb2, NULL, 0, "other", &a, 1);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x930;
	c.result = 910; /* CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE */
	c.value = 2;    /* CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED */
	emu_gen_call(g, SBT_CM_K_cuGraphExecUpdate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x920;
	emu_gen_call(g, SBT_CM_K_cuGraphExecUpdate, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	emu_gen_kernel(g, S2, "reader", &b, 1, 0);
}

/* Names the HIP record types on the trace (HIP scenarios). */
static void emu_gen_hip_types(emu_gen *g)
{
	size_t n = 0;
	const sbt_cm_type_desc *t = sbt_cm_hip_types(&n);

	for (size_t i = 0; i < n; i++)
		emu_gen_check(g, sbt_writer_define_type(g->w, t[i].type, t[i].name), "define HIP type");
}

/* A HIP call's record (c as the kind it records as). */
static void emu_gen_hip(emu_gen *g, sbt_cm_hip_call call, const sbt_cm_call *c)
{
	emu_gen_append(g, SBT_CM_HIP_TYPE(call), c);
}

static void emu_gen_hip_ctx_call(emu_gen *g, sbt_cm_hip_call call, uint64_t ctx, int64_t device)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = ctx;
	c.device = device;
	emu_gen_hip(g, call, &c);
}

/* hipLaunchKernel of name passing one pointer on stream. */
static void emu_gen_hip_kernel(emu_gen *g, uint64_t stream, const char *name, uint64_t ptr)
{
	sbt_cm_call c;
	uint8_t params[8], layout[8];

	sbt_cm_call_init(&c);
	for (unsigned k = 0; k < 8; k++)
		params[k] = (uint8_t)(ptr >> (8 * k));
	sbt_cm_layout_put(layout, 0, 8);
	c.handle = 0xf00;
	c.name = (const uint8_t *)name;
	c.name_len = strlen(name);
	c.grid_x = c.grid_y = c.grid_z = 1;
	c.block_x = c.block_y = c.block_z = 32;
	c.stream = stream;
	c.params = params;
	c.params_len = 8;
	c.layout = layout;
	c.layout_len = 8;
	emu_gen_hip(g, SBT_CM_HIP_hipLaunchKernel, &c);
}

static void emu_gen_hip_contexts(emu_gen *g)
{
	sbt_cm_call c;

	emu_gen_hip_types(g);
	emu_gen_hip_ctx_call(g, SBT_CM_HIP_hipDevicePrimaryCtxRetain, 0xc0, 0);
	sbt_cm_call_init(&c);
	c.handle = S1;
	emu_gen_hip(g, SBT_CM_HIP_hipStreamCreate, &c);
	sbt_cm_call_init(&c);
	c.dst = BUF_A;
	c.size = BUF_SIZE;
	c.sub = SBT_CM_MEM_DEVICE;
	emu_gen_hip(g, SBT_CM_HIP_hipMalloc, &c);
	c.dst = BUF_B;
	emu_gen_hip(g, SBT_CM_HIP_hipMalloc, &c);
	emu_gen_hip_kernel(g, S1, "K0", BUF_A);
	emu_gen_hip_ctx_call(g, SBT_CM_HIP_hipCtxCreate, 0xc1, 1);
	emu_gen_hip_kernel(g, 0, "K1", BUF_A);
	emu_gen_hip_ctx_call(g, SBT_CM_HIP_hipCtxSetCurrent, 0xc0, 0);
	emu_gen_hip_ctx_call(g, SBT_CM_HIP_hipCtxPushCurrent, 0xc1, 1);
	emu_gen_hip_kernel(g, 0, "K2", BUF_B);
	emu_gen_hip_ctx_call(g, SBT_CM_HIP_hipCtxPopCurrent, 0xc1, 1);
	emu_gen_hip_kernel(g, 0, "K3", BUF_B);
}

/* hip_graph_mem: graph memory from hipMallocAsync in a stream capture. */
static void emu_gen_hip_graph_mem(emu_gen *g)
{
	sbt_cm_call c;
	uint8_t params[8], layout[8];

	emu_gen_hip_types(g);
	sbt_cm_call_init(&c);
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipSetDevice, &c);
	sbt_cm_call_init(&c);
	c.handle = S1;
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipStreamCreate, &c);
	c.handle = S2;
	c.flags = 1; /* hipStreamNonBlocking */
	emu_gen_hip(g, SBT_CM_HIP_hipStreamCreateWithFlags, &c);
	sbt_cm_call_init(&c);
	c.stream = S1;
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipStreamBeginCapture, &c);
	c.dst = GMEM;
	c.size = BUF_SIZE;
	c.sub = SBT_CM_MEM_ASYNC;
	emu_gen_hip(g, SBT_CM_HIP_hipMallocAsync, &c);
	sbt_cm_call_init(&c);
	for (unsigned k = 0; k < 8; k++)
		params[k] = (uint8_t)(GMEM >> (8 * k));
	sbt_cm_layout_put(layout, 0, 8);
	c.handle = 0xf00;
	c.name = (const uint8_t *)"k";
	c.name_len = 1;
	c.grid_x = c.grid_y = c.grid_z = 1;
	c.block_x = c.block_y = c.block_z = 32;
	c.stream = S1;
	c.params = params;
	c.params_len = 8;
	c.layout = layout;
	c.layout_len = 8;
	c.capture_status = 1;
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipLaunchKernel, &c);
	sbt_cm_call_init(&c);
	c.dst = GMEM;
	c.stream = S1;
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipFreeAsync, &c);
	sbt_cm_call_init(&c);
	c.stream = S1;
	c.handle = 0x900;
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipStreamEndCapture, &c);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	c.device = 1;
	emu_gen_hip(g, SBT_CM_HIP_hipGraphInstantiate, &c);
	for (unsigned i = 0; i < 2; i++) {
		sbt_cm_call_init(&c);
		c.handle = 0xe00;
		c.stream = S1;
		c.device = 1;
		emu_gen_hip(g, SBT_CM_HIP_hipGraphLaunch, &c);
	}
	emu_gen_hip_kernel(g, S2, "after", GMEM);
}

static void emu_gen_graph_disable(emu_gen *g)
{
	sbt_cm_call c;
	uint64_t a = BUF_A, b = BUF_B, d;

	emu_gen_two_streams(g);
	emu_gen_graph_create(g, 0x900);
	emu_gen_kernel_node(g, 0x900, 0xa1, NULL, 0, "a", &a, 1);
	d = 0xa1;
	emu_gen_kernel_node(g, 0x900, 0xa2, &d, 1, "b", &b, 1);
	d = 0xa2;
	emu_gen_kernel_node(g, 0x900, 0xa3, &d, 1, "c", &a, 1);
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	for (unsigned i = 0; i < 2; i++) {
		sbt_cm_call_init(&c);
		c.parent = 0xe00;
		c.node = 0xa2;
		c.value = i; /* disabled, then enabled */
		emu_gen_call(g, SBT_CM_K_cuGraphNodeSetEnabled, &c);
		sbt_cm_call_init(&c);
		c.handle = 0xe00;
		c.stream = S1;
		emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	}
}

static void emu_gen_ctx(emu_gen *g, sbt_cm_kind k, uint64_t ctx, int64_t device)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.ctx = ctx;
	c.device = device;
	emu_gen_call(g, k, &c);
}

static void emu_gen_devices(emu_gen *g)
{
	emu_gen_ctx(g, SBT_CM_K_cuDevicePrimaryCtxRetain, 0xc0, 0);
	emu_gen_ctx(g, SBT_CM_K_cuDevicePrimaryCtxRetain, 0xc1, 1);
	emu_gen_ctx(g, SBT_CM_K_cuCtxSetCurrent, 0xc0, 0);
	emu_gen_stream(g, S1, 0);
	emu_gen_kernel(g, 0, "K0", NULL, 0, 0);
	emu_gen_ctx(g, SBT_CM_K_cuCtxSetCurrent, 0xc1, 0);
	emu_gen_stream(g, S2, 1);
	emu_gen_kernel(g, S1, "K1", NULL, 0, 0);
	emu_gen_kernel(g, S2, "K2", NULL, 0, 0);
	emu_gen_kernel(g, 0, "K3", NULL, 0, 0);
}

static void emu_gen_event_call(emu_gen *g, sbt_cm_kind k, uint64_t event)
{
	sbt_cm_call c;

	sbt_cm_call_init(&c);
	c.event = event;
	emu_gen_call(g, k, &c);
}

static void emu_gen_threads(emu_gen *g)
{
	emu_gen_two_streams(g);
	emu_gen_stream(g, S3, 1);
	emu_gen_event_call(g, SBT_CM_K_cuEventCreate, 0xe1);
	emu_gen_kernel(g, S1, "K1", NULL, 0, 0);
	emu_gen_record(g, 0xe1, S1);
	emu_gen_stream_sync(g, S1);
	g->thread = 2;
	emu_gen_kernel(g, S2, "K2", NULL, 0, 0);
	g->thread = 1;
	emu_gen_kernel(g, S2, "K3", NULL, 0, 0);
	emu_gen_event_call(g, SBT_CM_K_cuEventDestroy, 0xe1);
	emu_gen_event_call(g, SBT_CM_K_cuEventCreate, 0xe1);
	g->thread = 2;
	emu_gen_wait(g, S3, 0xe1);
	emu_gen_kernel(g, S3, "K4", NULL, 0, 0);
}

static void emu_gen_race(emu_gen *g, int event, int keyframes)
{
	uint64_t b = BUF_B;
	uint8_t before[BUF_SIZE], after[BUF_SIZE];

	emu_gen_two_streams(g);
	memset(before, 0x11, sizeof(before));
	memcpy(after, before, sizeof(after));
	memset(after + 256, 0x22, 512); /* the kernel wrote 512 bytes at offset 256 */
	if (keyframes) {
		emu_gen_keyframe(g, SBT_CM_KF_START, 1, 2);
		emu_gen_snapshot(g, BUF_A, before, sizeof(before));
		emu_gen_snapshot(g, BUF_B, before, sizeof(before));
	}
	emu_gen_kernel(g, S1, "fill", &b, 1, 0);
	if (keyframes) {
		emu_gen_keyframe(g, SBT_CM_KF_AFTER_LAUNCH, 1, 2);
		emu_gen_snapshot(g, BUF_A, before, sizeof(before));
		emu_gen_snapshot(g, BUF_B, after, sizeof(after));
	}
	if (event) {
		emu_gen_record(g, 0xe1, S1);
		emu_gen_wait(g, S2, 0xe1);
	}
	emu_gen_copy(g, SBT_CM_K_cuMemcpyDtoHAsync, HOST_P, BUF_B + 512, 1024, S2);
}

static void emu_gen_readers(emu_gen *g, int kernels)
{
	uint64_t a = BUF_A;
	uint8_t mem[BUF_SIZE];

	emu_gen_two_streams(g);
	memset(mem, 0x33, sizeof(mem));
	if (!kernels) {
		emu_gen_copy(g, SBT_CM_K_cuMemcpyDtoHAsync, HOST_P, BUF_A, BUF_SIZE, S1);
		emu_gen_copy(g, SBT_CM_K_cuMemcpyDtoHAsync, HOST_P + BUF_SIZE, BUF_A, BUF_SIZE, S2);
		return;
	}
	for (unsigned i = 1; i <= 2; i++) {
		emu_gen_keyframe(g, i == 1 ? SBT_CM_KF_START : SBT_CM_KF_BEFORE_LAUNCH, i, 1);
		emu_gen_snapshot(g, BUF_A, mem, sizeof(mem));
		emu_gen_kernel(g, i == 1 ? S1 : S2, i == 1 ? "reader1" : "reader2", &a, 1, 0);
		emu_gen_keyframe(g, SBT_CM_KF_AFTER_LAUNCH, i, 1);
		emu_gen_snapshot(g, BUF_A, mem, sizeof(mem));
	}
}

/* n kernels round-robin over 8 non-blocking streams, each stream's kernel
 * passing its own buffer; every 8th kernel's stream records an event the
 * next stream waits for.  For timing the emulator (not checked). */
static void emu_gen_bulk(emu_gen *g, uint64_t n)
{
	for (unsigned s = 0; s < 8; s++) {
		emu_gen_stream(g, 0x1000 + s, 1);
		emu_gen_alloc(g, BUF_A + (uint64_t)s * 0x100000, BUF_SIZE);
	}
	for (uint64_t i = 0; i < n; i++) {
		unsigned s = (unsigned)(i % 8);
		uint64_t p = BUF_A + (uint64_t)s * 0x100000;

		emu_gen_kernel(g, 0x1000 + s, "bulk", &p, 1, 0);
		if (i % 64 == 63) {
			emu_gen_record(g, 0xe0, 0x1000 + s);
			emu_gen_wait(g, 0x1000 + (s + 1) % 8, 0xe0);
		}
	}
}

/* chains x len kernel nodes in a graph built node by node (chain c a line
 * of nodes passing buffer c), launched n times on stream 0x1000.  For
 * timing the emulator on large graph launches (not checked). */
static void emu_gen_graphs(emu_gen *g, uint64_t chains, uint64_t len, uint64_t n)
{
	sbt_cm_call c;

	emu_gen_stream(g, 0x1000, 1);
	for (uint64_t k = 0; k < chains; k++)
		emu_gen_alloc(g, BUF_A + k * 0x100000, BUF_SIZE);
	sbt_cm_call_init(&c);
	c.handle = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphCreate, &c);
	for (uint64_t k = 0; k < chains; k++)
		for (uint64_t i = 0; i < len; i++) {
			uint64_t p = BUF_A + k * 0x100000, node = 0x10000000 + k * len + i, dep = node - 1;

			emu_gen_kernel_node(g, 0x900, node, &dep, i ? 1 : 0, "node", &p, 1);
		}
	sbt_cm_call_init(&c);
	c.handle = 0xe00;
	c.parent = 0x900;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	for (uint64_t i = 0; i < n; i++) {
		sbt_cm_call_init(&c);
		c.handle = 0xe00;
		c.stream = 0x1000;
		emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	}
}

/* The dependency lists of repeated event waits (see the header comment);
 * for checking exact counts at small n and timing at large n. */
static void emu_gen_wait_chain(emu_gen *g, uint64_t n)
{
	emu_gen_stream(g, S1, 1);
	emu_gen_stream(g, S2, 1);
	emu_gen_stream(g, S3, 1);
	for (uint64_t i = 0; i < n; i++) {
		emu_gen_kernel(g, S1, "k", NULL, 0, 0);
		emu_gen_record(g, 0xe1, S1);
		emu_gen_wait(g, S2, 0xe1);
	}
	emu_gen_record(g, 0xe2, S2);
	emu_gen_wait(g, S3, 0xe2);
	emu_gen_wait(g, S3, 0xe1);
	emu_gen_kernel(g, S3, "tail", NULL, 0, 0);
	emu_gen_kernel(g, S2, "end", NULL, 0, 0);
}

int emu_gen_scenario(const char *name, const char *path)
{
	emu_gen *g;
	unsigned long long chains, len, n;
	char end;

	if (sscanf(name, "graphs:%llu:%llu:%llu%c", &chains, &len, &n, &end) == 3) {
		g = emu_gen_open(path);
		g->one_stack = 1;
		emu_gen_graphs(g, chains, len, n);
		emu_gen_close(g);
		return 0;
	}

	if (!strncmp(name, "wait_chain:", 11)) {
		g = emu_gen_open(path);
		g->one_stack = 1;
		emu_gen_wait_chain(g, strtoull(name + 11, NULL, 10));
		emu_gen_close(g);
		return 0;
	}
	if (!strncmp(name, "bulk:", 5)) {
		g = emu_gen_open(path);
		g->one_stack = 1;
		emu_gen_bulk(g, strtoull(name + 5, NULL, 10));
		emu_gen_close(g);
		return 0;
	}
	if (strcmp(name, "fork") && strcmp(name, "legacy") && strcmp(name, "hostsync") &&
	    strcmp(name, "copies") && strcmp(name, "graph") && strcmp(name, "graph_race") &&
	    strcmp(name, "graph_wait") && strcmp(name, "graph_record") && strcmp(name, "graph_child") &&
	    strcmp(name, "graph_child_get") && strcmp(name, "graph_child_rm") &&
	    strcmp(name, "graph_child_destroy") && strcmp(name, "graph_mem") &&
	    strcmp(name, "graph_mem_nofree") && strcmp(name, "graph_mem_relaunch") &&
	    strcmp(name, "graph_mem_ordered") && strcmp(name, "hip_graph_mem") &&
	    strcmp(name, "graph_mem_paths") &&
	    strcmp(name, "graph_update") && strcmp(name, "graph_capture_to") &&
	    strcmp(name, "graph_capture_to_nodeps") && strcmp(name, "graph_capture_to_alloc") && strcmp(name, "graph_disable") && strcmp(name, "hip_ctx") && strcmp(name, "devices") && strcmp(name, "threads") && strcmp(name, "race") &&
	    strcmp(name, "event") && strcmp(name, "race_kf") && strcmp(name, "readers") &&
	    strcmp(name, "readers_kf") && strcmp(name, "captimes") && strcmp(name, "captimes_event"))
		return -1;
	g = emu_gen_open(path);
	if (!strcmp(name, "fork"))
		emu_gen_fork(g);
	else if (!strcmp(name, "legacy"))
		emu_gen_legacy(g);
	else if (!strcmp(name, "hostsync"))
		emu_gen_hostsync(g);
	else if (!strcmp(name, "copies"))
		emu_gen_copies(g);
	else if (!strcmp(name, "captimes"))
		emu_gen_captimes(g, 0);
	else if (!strcmp(name, "captimes_event"))
		emu_gen_captimes(g, 1);
	else if (!strcmp(name, "graph"))
		emu_gen_graph(g, 0);
	else if (!strcmp(name, "graph_race"))
		emu_gen_graph(g, 1);
	else if (!strcmp(name, "graph_wait"))
		emu_gen_graph_events(g, 0);
	else if (!strcmp(name, "graph_record"))
		emu_gen_graph_events(g, 1);
	else if (!strcmp(name, "graph_child"))
		emu_gen_graph_child(g, 0);
	else if (!strcmp(name, "graph_child_get"))
		emu_gen_graph_child(g, 1);
	else if (!strcmp(name, "graph_child_rm"))
		emu_gen_graph_child(g, 2);
	else if (!strcmp(name, "graph_child_destroy"))
		emu_gen_graph_child(g, 3);
	else if (!strcmp(name, "graph_mem"))
		emu_gen_graph_mem(g, 1);
	else if (!strcmp(name, "graph_mem_nofree"))
		emu_gen_graph_mem(g, 0);
	else if (!strcmp(name, "graph_mem_relaunch"))
		emu_gen_graph_mem_relaunch(g, 0);
	else if (!strcmp(name, "graph_mem_ordered"))
		emu_gen_graph_mem_relaunch(g, 1);
	else if (!strcmp(name, "graph_update"))
		emu_gen_graph_update(g);
	else if (!strcmp(name, "graph_capture_to"))
		emu_gen_graph_capture_to(g, 1, 0);
	else if (!strcmp(name, "graph_capture_to_nodeps"))
		emu_gen_graph_capture_to(g, 0, 0);
	else if (!strcmp(name, "graph_capture_to_alloc"))
		emu_gen_graph_capture_to(g, 1, 1);
	else if (!strcmp(name, "graph_disable"))
		emu_gen_graph_disable(g);
	else if (!strcmp(name, "graph_mem_paths"))
		emu_gen_graph_mem_paths(g);
	else if (!strcmp(name, "hip_graph_mem"))
		emu_gen_hip_graph_mem(g);
	else if (!strcmp(name, "hip_ctx"))
		emu_gen_hip_contexts(g);
	else if (!strcmp(name, "devices"))
		emu_gen_devices(g);
	else if (!strcmp(name, "threads"))
		emu_gen_threads(g);
	else if (!strcmp(name, "race"))
		emu_gen_race(g, 0, 0);
	else if (!strcmp(name, "event"))
		emu_gen_race(g, 1, 0);
	else if (!strcmp(name, "race_kf"))
		emu_gen_race(g, 0, 1);
	else if (!strcmp(name, "readers"))
		emu_gen_readers(g, 0);
	else
		emu_gen_readers(g, 1);
	emu_gen_close(g);
	return 0;
}
