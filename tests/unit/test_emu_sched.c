/*
 * test_emu_sched.c - the emulator's graph and schedule on synthetic traces
 * (tests/support/emu_gen.c) whose critical path, makespan, utilisation and
 * maximum concurrency are known: each checked exactly, with the machine
 * and the costs set here.
 */
#include <string.h>

#include "emulator/emu.h"
#include "tests/support/emu_gen.h"
#include "tests/support/tst.h"

static emu_graph *load(const char *scenario)
{
	const char *path = tst_path(scenario);
	emu_graph *g = NULL;
	char err[512];

	TST_REQUIRE(emu_gen_scenario(scenario, path) == 0);
	if (emu_graph_build(path, &g, err, sizeof(err)) != EMU_OK) {
		fprintf(stderr, "%s: %s\n", scenario, err);
		exit(1);
	}
	return g;
}

static emu_options opts(unsigned compute, unsigned copy)
{
	emu_options o;

	emu_options_default(&o);
	o.compute_engines = compute;
	o.copy_engines = copy;
	o.kernel_ns = 1000;
	return o;
}

static void run(emu_graph *g, emu_options o, emu_summary *s)
{
	TST_REQUIRE(emu_schedule(g, &o) == EMU_OK);
	TST_REQUIRE(emu_summary_get(g, s) == EMU_OK);
}

/* K1 (seq 5) -> K2 (seq 8, event) and K3 (seq 9, stream) -> K4 (seq 12). */
static void test_fork(void)
{
	emu_graph *g = load("fork");
	emu_summary s;

	run(g, opts(4, 2), &s);
	TST_CHECK_EQ_U64(s.commands, 4);
	TST_CHECK_EQ_U64(s.streams, 2);
	TST_CHECK_EQ_U64(s.edges, 4);
	TST_CHECK_EQ_U64(s.cross_edges, 2);
	TST_CHECK_EQ_U64(s.makespan_ns, 3000);
	TST_CHECK_EQ_U64(s.critical_ns, 3000);
	TST_CHECK_EQ_U64(s.critical_count, 3);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 0), 5);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 1), 9);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 2), 12);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(s.max_concurrency_at_ns, 1000);
	/* K1, K2, K4 on engine 0 (the lowest free), K3 on engine 1 */
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 0), 3000);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 1), 1000);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 2), 0);

	/* one engine: K2 and K3 take turns; the critical path stays 3000 */
	run(g, opts(1, 1), &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 4000);
	TST_CHECK_EQ_U64(s.critical_ns, 3000);
	TST_CHECK_EQ_U64(s.max_concurrency, 1);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 0), 4000);
	emu_graph_free(g);
}

/* blocking s1: K1; legacy: K2 waits K1; s2 (non-blocking): K3 beside K1;
 * s1: K4 waits K2; the per-thread default stream (blocking): K5 waits K2. */
static void test_legacy(void)
{
	emu_graph *g = load("legacy");
	emu_summary s;

	run(g, opts(4, 2), &s);
	TST_CHECK_EQ_U64(s.commands, 5);
	TST_CHECK_EQ_U64(s.streams, 4);
	/* K1->K4 (stream), K1->K2, K2->K4, K2->K5 (legacy) */
	TST_CHECK_EQ_U64(s.edges, 4);
	TST_CHECK_EQ_U64(s.cross_edges, 3);
	TST_CHECK_EQ_U64(s.makespan_ns, 3000);
	TST_CHECK_EQ_U64(s.critical_count, 3);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 0), 3);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 1), 4);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 2), 6);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(s.max_concurrency_at_ns, 0);
	/* one engine: K1 K2 K3 K4 K5 (ready order, then seq) back to back */
	run(g, opts(1, 1), &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 5000);
	TST_CHECK_EQ_U64(s.critical_ns, 3000);
	emu_graph_free(g);
}

/* K1; cuStreamSynchronize; K2 on another stream after it; a synchronous
 * upload (legacy stream, 5000 + 1000 / 25 ns) after K1, beside K2; K3
 * after the upload. */
static void test_hostsync(void)
{
	emu_graph *g = load("hostsync");
	emu_summary s;

	run(g, opts(4, 2), &s);
	TST_CHECK_EQ_U64(s.commands, 4);
	TST_CHECK_EQ_U64(s.makespan_ns, 1000 + 5040 + 1000);
	TST_CHECK_EQ_U64(s.critical_ns, 7040);
	TST_CHECK_EQ_U64(s.critical_count, 3);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(s.max_concurrency_at_ns, 1000);
	emu_graph_free(g);
}

/* upload 25000 B (5000 + 1000 ns), download 50000 B (5000 + 2000 ns),
 * device copy 1e6 B after the upload (5000 + 1000 ns). */
static void test_copies(void)
{
	emu_graph *g = load("copies");
	emu_summary s;

	run(g, opts(4, 1), &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 6000 + 7000 + 6000);
	TST_CHECK_EQ_U64(s.critical_ns, 12000);
	TST_CHECK_EQ_U64(s.max_concurrency, 1);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 4), 19000);
	run(g, opts(4, 2), &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 12000);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 4), 12000);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 5), 7000);
	emu_graph_free(g);
}

/* A captured fork graph (Ka; Kb, Kc) launched twice on s3. */
static void test_graph(void)
{
	emu_graph *g = load("graph");
	emu_summary s;

	run(g, opts(4, 2), &s);
	TST_CHECK_EQ_U64(s.commands, 6);
	TST_CHECK_EQ_U64(s.streams, 1);
	/* inside each launch Ka->Kb, Ka->Kc; the second launch after the first */
	TST_CHECK_EQ_U64(s.edges, 5);
	TST_CHECK_EQ_U64(s.makespan_ns, 4000);
	TST_CHECK_EQ_U64(s.critical_ns, 4000);
	TST_CHECK_EQ_U64(s.critical_count, 4);
	TST_CHECK_EQ_U64(s.max_concurrency, 2);
	TST_CHECK_EQ_U64(s.max_concurrency_at_ns, 1000);
	run(g, opts(1, 1), &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 6000);
	emu_graph_free(g);
}

/* A host synchronization orders only its own thread's later work; a
 * re-created event waits for nothing. */
static void test_threads(void)
{
	emu_graph *g = load("threads");
	emu_summary s;

	run(g, opts(4, 2), &s);
	TST_CHECK_EQ_U64(s.commands, 4);
	/* K1->K3 (host), K2->K3 (stream) */
	TST_CHECK_EQ_U64(s.edges, 2);
	TST_CHECK_EQ_U64(s.makespan_ns, 2000);
	TST_CHECK_EQ_U64(s.max_concurrency, 3);
	TST_CHECK_EQ_U64(s.max_concurrency_at_ns, 0);
	emu_graph_free(g);
}

/* Host issue times: the fork's records are 1000 ns apart from seq 1, its
 * first command is seq 5 (time 5000): K4 (seq 12) cannot start before 7000. */
static void test_issue_times(void)
{
	emu_graph *g = load("fork");
	emu_options o = opts(4, 2);
	emu_summary s;

	o.issue_times = 1;
	run(g, o, &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 8000);
	TST_CHECK_EQ_U64(s.critical_ns, 8000);
	emu_graph_free(g);
}

/* Durations from capture times (emu_gen's captimes: K1 seq 5 and K2 6 on
 * s1, K3 7 and K4 8 on s2, the waits giving K1 K2 a window of 10000 ns
 * and K3 K4 one of 18000, K5 seq 11 after both, in none): K1 K2 5000
 * each, K3 K4 9000,
 * K5 the model's.  The fit scales the model, so a dearer kernel changes
 * only K5; one engine runs them one by one. */
static void test_capture_times(void)
{
	emu_graph *g = load("captimes");
	emu_options o = opts(4, 2);
	emu_summary s;
	int loaded = 1;
	char err[512];

	TST_CHECK(emu_durations_capture(g) == EMU_OK);
	run(g, o, &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 19000);
	TST_CHECK_EQ_U64(s.critical_ns, 19000);
	TST_CHECK_EQ_U64(s.critical_count, 3);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 0), 7);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 1), 8);
	TST_CHECK_EQ_U64(emu_critical_seq(g, 2), 11);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 0) + emu_engine_busy_ns(g, 1), 5000 + 5000 + 9000 + 9000 + 1000);
	o.kernel_ns = 2000;
	run(g, o, &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 20000);
	o = opts(1, 1);
	run(g, o, &s);
	TST_CHECK_EQ_U64(s.makespan_ns, 29000);
	TST_CHECK_EQ_U64(emu_engine_busy_ns(g, 0), 29000);
	/* a replay profile is another source: refused once capture times are chosen */
	TST_CHECK(emu_profile_load(g, NULL, &loaded, err, sizeof(err)) == EMU_ERR_STATE);
	TST_CHECK(loaded == 0);
	TST_CHECK(strstr(err, "durations are taken from the capture's times") != NULL);
	emu_graph_free(g);
	TST_CHECK(emu_durations_capture(NULL) == EMU_ERR_ARG);
}

static void test_errors(void)
{
	emu_graph *g = NULL;
	char err[512];
	emu_options o = opts(0, 1);

	TST_CHECK(emu_graph_build(tst_path("missing.sbt"), &g, err, sizeof(err)) == EMU_ERR_TRACE);
	TST_CHECK(g == NULL);
	TST_CHECK(strstr(err, "missing.sbt") != NULL);
	g = load("fork");
	TST_CHECK(emu_schedule(g, &o) == EMU_ERR_ARG);
	emu_graph_free(g);
	emu_graph_free(NULL);
	TST_CHECK(strcmp(emu_strerror(EMU_ERR_NOT_CUDA), "not a CUDA trace") == 0);
}

int main(void)
{
	test_fork();
	test_legacy();
	test_hostsync();
	test_copies();
	test_graph();
	test_threads();
	test_issue_times();
	test_capture_times();
	test_errors();
	return tst_done();
}
