/*
 * test_emu_graphnodes.c - CUDA graphs built node by node (cuGraphCreate,
 * cuGraphAdd*Node, edges added and removed, a node destroyed, kernel node
 * setters, tsGraphNotModeled) in the emulator, on synthetic traces written
 * here through tests/support/emu_gen.c:
 * - each launch runs the exec's work nodes on its stream, in dependency
 *   order: empty and event nodes are not commands, their edges are kept
 *   between the work around them; a destroyed node and a removed edge are
 *   gone;
 * - two unordered nodes of a launch touching one buffer race (and two
 *   launches on one stream do not);
 * - instantiation snapshots the graph: a graph setter after it changes no
 *   exec, an exec setter changes that exec's later launches;
 * - event nodes act per node (as CUDA documents), not on the whole launch:
 *   an event record node records the nodes before it, so a stream waiting
 *   on its event is ordered after those and races with the rest; an event
 *   wait node orders the nodes after it after the event's work, and the
 *   others run beside that work (and race with it);
 * - a graph changed by a call the model does not cover is one command, of
 *   the cost model's graph launch;
 * - a child graph node runs the child's nodes as they were when it was
 *   added, between the node's dependencies and its dependents; an exec
 *   updated from a clone runs the clone's nodes; a disabled node is an
 *   empty node of its exec (emu_gen.c "graph_child", "graph_update",
 *   "graph_disable"); graph memory allocation and free nodes order the
 *   work around them and each launch allocates the graph memory anew
 *   ("graph_mem"; "graph_mem_relaunch" in tests/shell/test_emu_graph_mem.sh);
 *   a node added through cuGraphChildGraphNodeGetGraph joins the child
 *   node's copy ("graph_child_get"); HIP contexts go by the device the records carry
 *   ("hip_ctx").
 */
#include <string.h>

#include "emulator/emu.h"
#include "tests/support/emu_gen.h"
#include "tests/support/tst.h"

#define X_BUF 0x7000100000ull
#define Y_BUF 0x7000200000ull
#define S1 0x100ull
#define S2 0x200ull
#define GRAPH 0x900ull
#define EXEC 0xe00ull
#define EVENT 0xe7ull

enum { GN_ORDERED = 1, GN_NOT_MODELED = 2 };

/* A kernel's fields (emu_gen_kernel's layout) with the pointers ptrs[0..n). */
static void gn_kernel(sbt_cm_call *c, uint8_t *params, uint8_t *layout, const char *name, const uint64_t *ptrs,
                      size_t n)
{
	sbt_cm_call_init(c);
	for (size_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < 8; k++)
			params[i * 8 + k] = (uint8_t)(ptrs[i] >> (8 * k));
		sbt_cm_layout_put(layout + i * 8, (uint32_t)(i * 8), 8);
	}
	c->handle = 0xf00;
	c->name = (const uint8_t *)name;
	c->name_len = strlen(name);
	c->grid_x = c->grid_y = c->grid_z = 1;
	c->block_x = c->block_y = c->block_z = 32;
	c->params = params;
	c->params_len = n * 8;
	c->layout = layout;
	c->layout_len = n * 8;
}

static void gn_pack(uint8_t *out, uint64_t h)
{
	for (unsigned k = 0; k < 8; k++)
		out[k] = (uint8_t)(h >> (8 * k));
}

/* A kernel node (node) of GRAPH after dep (0: none). */
static void gn_kernel_node(emu_gen *g, uint64_t node, uint64_t dep, const char *name, const uint64_t *ptrs,
                           size_t n)
{
	sbt_cm_call c;
	uint8_t params[32], layout[32], deps[8];

	gn_kernel(&c, params, layout, name, ptrs, n);
	c.node = node;
	c.parent = GRAPH;
	if (dep) {
		gn_pack(deps, dep);
		c.deps = deps;
		c.deps_len = 8;
	}
	emu_gen_call(g, SBT_CM_K_cuGraphAddKernelNode, &c);
}

static void gn_edge(emu_gen *g, sbt_cm_kind k, uint64_t from, uint64_t to)
{
	sbt_cm_call c;
	uint8_t a[8], b[8];

	sbt_cm_call_init(&c);
	gn_pack(a, from);
	gn_pack(b, to);
	c.parent = GRAPH;
	c.deps = a;
	c.deps_len = 8;
	c.deps_to = b;
	c.deps_to_len = 8;
	emu_gen_call(g, k, &c);
}

/*
 * memset X (a1) -> fill X (a2) -> empty (a3) -> use X, Y (a4) -> record EVENT (a6);
 * bad X (a5) after a2, with an edge a5 -> a4 added, removed, and a5
 * destroyed.  Unordered: no edge a3 -> a4, and between instantiation and
 * the second launch both setters give a4 Y alone (the graph's first: the
 * exec keeps X, Y for its first launch).  Launched twice on S1; then S2
 * waits on EVENT and reads X.
 */
static void gn_write(const char *path, int flags)
{
	emu_gen *g = emu_gen_open(path);
	sbt_cm_call c;
	uint8_t params[32], layout[32], deps[8];
	uint64_t x[1] = { X_BUF }, xy[2] = { X_BUF, Y_BUF }, y[1] = { Y_BUF };

	TST_REQUIRE(g != NULL);
	emu_gen_alloc(g, X_BUF, 4096);
	emu_gen_alloc(g, Y_BUF, 4096);
	emu_gen_stream(g, S1, 1);
	emu_gen_stream(g, S2, 1);
	sbt_cm_call_init(&c);
	c.handle = GRAPH;
	emu_gen_call(g, SBT_CM_K_cuGraphCreate, &c);
	sbt_cm_call_init(&c);
	c.node = 0xa1;
	c.parent = GRAPH;
	c.dst = X_BUF;
	c.elem_size = 4;
	c.width = 1024;
	c.height = 1;
	emu_gen_call(g, SBT_CM_K_cuGraphAddMemsetNode, &c);
	gn_kernel_node(g, 0xa2, 0xa1, "fill", x, 1);
	sbt_cm_call_init(&c);
	c.node = 0xa3;
	c.parent = GRAPH;
	gn_pack(deps, 0xa2);
	c.deps = deps;
	c.deps_len = 8;
	emu_gen_call(g, SBT_CM_K_cuGraphAddEmptyNode, &c);
	gn_kernel_node(g, 0xa4, 0, "use", xy, 2);
	if (flags & GN_ORDERED)
		gn_edge(g, SBT_CM_K_cuGraphAddDependencies, 0xa3, 0xa4);
	gn_kernel_node(g, 0xa5, 0xa2, "bad", x, 1);
	gn_edge(g, SBT_CM_K_cuGraphAddDependencies, 0xa5, 0xa4);
	gn_edge(g, SBT_CM_K_cuGraphRemoveDependencies, 0xa5, 0xa4);
	sbt_cm_call_init(&c);
	c.node = 0xa5;
	emu_gen_call(g, SBT_CM_K_cuGraphDestroyNode, &c);
	sbt_cm_call_init(&c);
	c.node = 0xa6;
	c.parent = GRAPH;
	c.event = EVENT;
	gn_pack(deps, 0xa4);
	c.deps = deps;
	c.deps_len = 8;
	emu_gen_call(g, SBT_CM_K_cuGraphAddEventRecordNode, &c);
	if (flags & GN_NOT_MODELED) {
		sbt_cm_call_init(&c);
		c.parent = GRAPH;
		c.name = (const uint8_t *)"cuGraphAddHostNode";
		c.name_len = strlen("cuGraphAddHostNode");
		emu_gen_call(g, SBT_CM_K_tsGraphNotModeled, &c);
	}
	sbt_cm_call_init(&c);
	c.handle = EXEC;
	c.parent = GRAPH;
	emu_gen_call(g, SBT_CM_K_cuGraphInstantiate, &c);
	if (!(flags & GN_ORDERED)) {
		gn_kernel(&c, params, layout, "use", y, 1);
		c.node = 0xa4;
		emu_gen_call(g, SBT_CM_K_cuGraphKernelNodeSetParams, &c);
	}
	sbt_cm_call_init(&c);
	c.handle = EXEC;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	if (!(flags & GN_ORDERED)) {
		gn_kernel(&c, params, layout, "use", y, 1);
		c.node = 0xa4;
		c.parent = EXEC;
		emu_gen_call(g, SBT_CM_K_cuGraphExecKernelNodeSetParams, &c);
	}
	sbt_cm_call_init(&c);
	c.handle = EXEC;
	c.stream = S1;
	emu_gen_call(g, SBT_CM_K_cuGraphLaunch, &c);
	emu_gen_wait(g, S2, EVENT);
	emu_gen_kernel(g, S2, "after", x, 1, 0);
	emu_gen_close(g);
}

/* Builds, schedules and reports the trace at path (written by the caller). */
static emu_graph *gn_run(const char *path, emu_summary *s, emu_race_counts *n, char *rep, size_t cap)
{
	emu_graph *g = NULL;
	emu_options o;
	char err[512];
	FILE *f = fmemopen(rep, cap, "w");

	TST_REQUIRE(f != NULL);
	if (emu_graph_build(path, &g, err, sizeof(err)) != EMU_OK) {
		fprintf(stderr, "%s: %s\n", path, err);
		exit(1);
	}
	emu_options_default(&o);
	o.kernel_ns = 1000;
	TST_REQUIRE(emu_schedule(g, &o) == EMU_OK);
	TST_REQUIRE(emu_summary_get(g, s) == EMU_OK);
	TST_REQUIRE(emu_races_report(g, f, 0, n) == EMU_OK);
	fclose(f);
	return g;
}

static emu_graph *gn_load(const char *name, int flags, emu_summary *s, emu_race_counts *n, char *rep,
                          size_t cap)
{
	const char *path = tst_path(name);

	gn_write(path, flags);
	return gn_run(path, s, n, rep, cap);
}

int main(void)
{
	static char rep[16384];
	emu_summary s;
	emu_race_counts n;
	emu_graph *g;

	/* memset, fill, use per launch; the empty, record and destroyed nodes are not commands */
	g = gn_load("ordered.sbt", GN_ORDERED, &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 7);
	TST_CHECK_EQ_U64(s.streams, 2);
	/* per launch memset -> fill -> use (through the empty node); launch 2
	 * after launch 1; "after" after launch 2 (the event) */
	TST_CHECK_EQ_U64(s.edges, 6);
	TST_CHECK_EQ_U64(s.cross_edges, 1);
	/* three nodes in a chain per launch, then "after": nothing overlaps */
	TST_CHECK_EQ_U64(s.max_concurrency, 1);
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	emu_graph_free(g);

	/* "use" unordered with the memset and fill of X, in the first launch
	 * only: the exec setter gave it Y alone for the second, the graph
	 * setter (after instantiation) changed nothing.  The record node
	 * follows "use" alone: "after" on S2 waits for the second launch's
	 * "use", not for its memset and fill of X (whole-launch recording
	 * ordered them: 1 confirmed, 1 possible) */
	g = gn_load("unordered.sbt", 0, &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 7);
	TST_CHECK_EQ_U64(s.edges, 4);
	/* the memset writes what "use" and "after" read: confirmed; fill may write it: possible */
	TST_CHECK_EQ_U64(n.confirmed, 2);
	TST_CHECK_EQ_U64(n.possible, 2);
	TST_CHECK(strstr(rep, "kernel after on stream 0x200 (non-blocking) reads and may write "
	                      "0x7000100000..0x7000101000") != NULL);
	TST_CHECK(strstr(rep, "kernel use on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000100000..0x7000101000") != NULL);
	TST_CHECK(strstr(rep, "memset cuGraphAddMemsetNode on stream 0x100 (non-blocking) writes "
	                      "0x7000100000..0x7000101000") != NULL);
	TST_CHECK(strstr(rep, "kernel fill on stream 0x100 (non-blocking) reads and may write") != NULL);
	emu_graph_free(g);

	/* wait node (emu_gen.c "graph_wait"): the consumer waits for the
	 * producer, "other" runs beside it (makespan 2000 ns: 3000 if the
	 * whole launch waited, and no race) */
	TST_REQUIRE(emu_gen_scenario("graph_wait", tst_path("wait.sbt")) == 0);
	g = gn_run(tst_path("wait.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 3);
	TST_CHECK_EQ_U64(s.makespan_ns, 2000);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	/* other -> consumer inside the launch; producer -> consumer (the wait node) */
	TST_CHECK_EQ_U64(s.edges, 2);
	TST_CHECK_EQ_U64(s.cross_edges, 1);
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 1);
	TST_CHECK(strstr(rep, "kernel producer on stream 0x200") != NULL);
	TST_CHECK(strstr(rep, "kernel other on stream 0x100") != NULL);
	TST_CHECK(strstr(rep, "consumer") == NULL);
	emu_graph_free(g);

	/* record node ("graph_record"): the reader waits for "early" only:
	 * early, then late beside the reader (makespan 2000 ns: 3000 if the
	 * event recorded the whole launch, and no race) */
	TST_REQUIRE(emu_gen_scenario("graph_record", tst_path("record.sbt")) == 0);
	g = gn_run(tst_path("record.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 3);
	TST_CHECK_EQ_U64(s.makespan_ns, 2000);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 1);
	TST_CHECK(strstr(rep, "kernel late on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000000000..0x7000001000") != NULL);
	TST_CHECK(strstr(rep, "kernel reader on stream 0x200 (non-blocking) reads and may write "
	                      "0x7000000000..0x7000001000") != NULL);
	TST_CHECK(strstr(rep, "early") == NULL);
	emu_graph_free(g);

	/* child graph node ("graph_child"): pre || head, c1 || c2, tail */
	TST_REQUIRE(emu_gen_scenario("graph_child", tst_path("child.sbt")) == 0);
	g = gn_run(tst_path("child.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 5);
	TST_CHECK_EQ_U64(s.makespan_ns, 3000);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(s.edges, 6);
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	emu_graph_free(g);

	/* a node added to the graph embedded in the child node, through
	 * cuGraphChildGraphNodeGetGraph ("graph_child_get"): in the exec made
	 * after it, inner runs in the copy beside c1 and c2 (racing with c2 on
	 * B), before tail; the exec made before keeps its 5 commands */
	TST_REQUIRE(emu_gen_scenario("graph_child_get", tst_path("child_get.sbt")) == 0);
	g = gn_run(tst_path("child_get.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 11);
	TST_CHECK_EQ_U64(s.makespan_ns, 6000);
	TST_CHECK_EQ_U64(s.max_concurrency, 3);
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 1);
	TST_CHECK(strstr(rep, "kernel inner on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000100000..0x7000101000") != NULL);
	TST_CHECK(strstr(rep, "kernel c2 on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000100000..0x7000101000") != NULL);
	emu_graph_free(g);

	/* an edge removed from the embedded graph ("graph_child_rm"): not
	 * modeled, the exec made after it is one command */
	TST_REQUIRE(emu_gen_scenario("graph_child_rm", tst_path("child_rm.sbt")) == 0);
	g = gn_run(tst_path("child_rm.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 6);
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	emu_graph_free(g);
	/* a node of the embedded graph destroyed ("graph_child_destroy"): the same */
	TST_REQUIRE(emu_gen_scenario("graph_child_destroy", tst_path("child_destroy.sbt")) == 0);
	g = gn_run(tst_path("child_destroy.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 6);
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	emu_graph_free(g);

	/* graph memory ("graph_mem"): the allocation and free nodes order
	 * (w || r, fin, tail), w and r race on the memory the launch (seq 13)
	 * allocated; "outside", after the free node's record but unordered with
	 * the launch, races with both (judged by happens-before: before, it
	 * touched no allocation, being recorded after the free node) */
	TST_REQUIRE(emu_gen_scenario("graph_mem", tst_path("mem.sbt")) == 0);
	g = gn_run(tst_path("mem.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 5);
	TST_CHECK_EQ_U64(s.edges, 3);
	TST_CHECK_EQ_U64(s.makespan_ns, 3000);
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 3);
	TST_CHECK(strstr(rep, "kernel w on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch "
	                      "at seq 13)") != NULL);
	TST_CHECK(strstr(rep, "kernel r on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch "
	                      "at seq 13)") != NULL);
	TST_CHECK(strstr(rep, "seq 14 kernel outside on stream 0x200 (non-blocking) reads and may write "
	                      "0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch "
	                      "at seq 13)") != NULL);
	emu_graph_free(g);

	/* graph memory no free node frees ("graph_mem_nofree"): it outlives
	 * the graph, so "early" and "still" (after cuGraphDestroy) race with w
	 * and r; so does "outside", after cuMemFreeAsync's record but ordered
	 * after neither launch nor free */
	TST_REQUIRE(emu_gen_scenario("graph_mem_nofree", tst_path("mem_nofree.sbt")) == 0);
	g = gn_run(tst_path("mem_nofree.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 7);
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 7);
	TST_CHECK(strstr(rep, "kernel still on stream 0x200 (non-blocking) reads and may write "
	                      "0x7000400000..0x7000401000 (graph memory of 4096 bytes allocated by the launch "
	                      "at seq 12)") != NULL);
	TST_CHECK(strstr(rep, "seq 17 kernel outside on stream 0x200") != NULL);
	emu_graph_free(g);

	/* update from a clone ("graph_update"): k passes B now, as the reader */
	TST_REQUIRE(emu_gen_scenario("graph_update", tst_path("update.sbt")) == 0);
	g = gn_run(tst_path("update.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 2);
	TST_CHECK_EQ_U64(n.confirmed, 0);
	TST_CHECK_EQ_U64(n.possible, 1);
	TST_CHECK(strstr(rep, "kernel k on stream 0x100 (non-blocking) reads and may write "
	                      "0x7000100000..0x7000101000") != NULL);
	emu_graph_free(g);

	/* a node disabled for the first launch ("graph_disable"): a -> c there
	 * (b an empty node), a -> b -> c in the second */
	TST_REQUIRE(emu_gen_scenario("graph_disable", tst_path("disable.sbt")) == 0);
	g = gn_run(tst_path("disable.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 5);
	TST_CHECK_EQ_U64(s.makespan_ns, 5000);
	TST_CHECK_EQ_U64(s.max_concurrency, 1);
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	emu_graph_free(g);

	/* HIP contexts by the recorded device ("hip_ctx"): K0 -> K1 on device
	 * 0, K2 -> K3 on device 1 */
	TST_REQUIRE(emu_gen_scenario("hip_ctx", tst_path("hip_ctx.sbt")) == 0);
	g = gn_run(tst_path("hip_ctx.sbt"), &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 4);
	TST_CHECK_EQ_U64(s.streams, 3);
	TST_CHECK_EQ_U64(s.edges, 2);
	TST_CHECK_EQ_U64(s.makespan_ns, 2000);
	TST_CHECK_EQ_U64(n.confirmed + n.possible, 0);
	emu_graph_free(g);

	/* a node the model does not cover: each launch is one command */
	g = gn_load("notmodeled.sbt", GN_ORDERED | GN_NOT_MODELED, &s, &n, rep, sizeof(rep));
	TST_CHECK_EQ_U64(s.commands, 3);
	/* a graph launch of the cost model (20000 ns on a compute engine), not a
	 * copy (5000 ns on a copy engine, as it was taken before) */
	TST_CHECK_EQ_U64(s.makespan_ns, 40000);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 0) + emu_engine_busy_ns(g, 1) + emu_engine_busy_ns(g, 2) +
	                     emu_engine_busy_ns(g, 3),
	                 41000);
	emu_graph_free(g);
	return tst_done();
}
