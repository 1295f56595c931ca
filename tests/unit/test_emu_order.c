/*
 * test_emu_order.c - sampled legal orders (emu_order_*, docs/emulator.md
 * "Sampled orders") on synthetic traces whose legal orders are counted by
 * hand: every order drawn keeps the happens-before graph and the host's
 * barriers, the same seed draws the same order, and over many seeds every
 * legal order is drawn.  Traces with a graph launch or two devices are
 * refused, naming the record.
 */
#include <string.h>

#include "emulator/emu.h"
#include "tests/support/emu_gen.h"
#include "tests/support/tst.h"

#define S1 0x100u
#define S2 0x200u
#define EV 0x900u

/*
 * Non-blocking streams s1 and s2:
 *   k1 on s1; an event after it; k3 on s2; k2 on s1; s2 waits the event;
 *   k4 on s2 (so k1 < k2, k3 < k4, k1 < k4); cuStreamSynchronize(s2) (a
 *   barrier); k5 on s1, k6 on s2 (unordered).
 * The first window has 5 orders (the 6 interleavings of k1 k2 and k3 k4
 * but k3 k4 k1 k2), the second 2: 10 in all.
 */
static void write_trace(const char *path)
{
	emu_gen *g = emu_gen_open(path);
	sbt_cm_call c;

	emu_gen_stream(g, S1, 1);
	emu_gen_stream(g, S2, 1);
	emu_gen_alloc(g, 0x1000, 4096);
	sbt_cm_call_init(&c);
	c.event = EV;
	emu_gen_call(g, SBT_CM_K_cuEventCreate, &c);
	emu_gen_kernel(g, S1, "k1", NULL, 0, 0);
	emu_gen_record(g, EV, S1);
	emu_gen_kernel(g, S2, "k3", NULL, 0, 0);
	emu_gen_kernel(g, S1, "k2", NULL, 0, 0);
	emu_gen_wait(g, S2, EV);
	emu_gen_kernel(g, S2, "k4", NULL, 0, 0);
	sbt_cm_call_init(&c);
	c.stream = S2;
	emu_gen_call(g, SBT_CM_K_cuStreamSynchronize, &c);
	emu_gen_kernel(g, S1, "k5", NULL, 0, 0);
	emu_gen_kernel(g, S2, "k6", NULL, 0, 0);
	emu_gen_close(g);
}

/* The seq of the command named name (k1..k6), the sync's, by looking. */
static uint64_t seq_of(emu_order_plan *p, const char *name)
{
	for (uint64_t seq = 1; seq < 64; seq++) {
		const char *kind = NULL;
		const char *n = emu_order_describe(p, seq, &kind);

		if (n && strcmp(n, name) == 0) {
			TST_CHECK(kind && strcmp(kind, "kernel") == 0);
			return seq;
		}
	}
	TST_CHECK(!"command not found");
	return 0;
}

static size_t pos(const emu_order_item *it, size_t n, uint64_t seq)
{
	for (size_t i = 0; i < n; i++)
		if (it[i].seq == seq)
			return i;
	return n;
}

static void test_orders(void)
{
	const char *path = tst_path("order.sbt");
	emu_order_plan *p = NULL;
	char err[512] = "";
	uint64_t k[7], sync_seq, hashes[16];
	size_t nhashes = 0;
	int identity_seen = 0;

	write_trace(path);
	TST_REQUIRE(emu_order_open(path, &p, err, sizeof(err)) == EMU_OK);
	for (int i = 1; i <= 6; i++) {
		char name[4] = { 'k', (char)('0' + i), 0 };

		k[i] = seq_of(p, name);
	}
	sync_seq = k[4] + 1;
	TST_CHECK(emu_order_describe(p, sync_seq, NULL) == NULL); /* not a command */
	for (uint64_t seed = 0; seed < 300; seed++) {
		const emu_order_item *it = NULL, *again = NULL;
		emu_order_item copy[6];
		size_t n = 0, n2 = 0, i;
		uint64_t h = 0, h2 = 0, moved = 0;

		TST_REQUIRE(emu_order_sample(p, seed, &it, &n, &h, &moved) == EMU_OK);
		TST_REQUIRE(n == 6);
		memcpy(copy, it, sizeof(copy));
		/* each command once, the graph and the barrier kept */
		for (i = 1; i <= 6; i++)
			TST_CHECK(pos(copy, n, k[i]) < n);
		TST_CHECK(pos(copy, n, k[1]) < pos(copy, n, k[2]));
		TST_CHECK(pos(copy, n, k[3]) < pos(copy, n, k[4]));
		TST_CHECK(pos(copy, n, k[1]) < pos(copy, n, k[4]));
		TST_CHECK(pos(copy, n, k[5]) >= 4 && pos(copy, n, k[6]) >= 4);
		/* issued before the barrier, or after the last record; never
		 * before its own record */
		for (i = 0; i < n; i++) {
			TST_CHECK(copy[i].release_before > copy[i].seq);
			TST_CHECK(i == 0 || copy[i].release_before >= copy[i - 1].release_before);
			TST_CHECK_EQ_U64(copy[i].release_before, i < 4 ? sync_seq : UINT64_MAX);
		}
		if (moved == 0) {
			for (i = 1; i < n; i++)
				TST_CHECK(copy[i - 1].seq < copy[i].seq);
			identity_seen = 1;
		}
		/* the same seed: the same order */
		TST_REQUIRE(emu_order_sample(p, seed, &again, &n2, &h2, NULL) == EMU_OK);
		TST_CHECK(n2 == n && h2 == h && memcmp(again, copy, sizeof(copy)) == 0);
		for (i = 0; i < nhashes && hashes[i] != h; i++)
			;
		if (i == nhashes && nhashes < 16)
			hashes[nhashes++] = h;
	}
	TST_CHECK_EQ_U64(nhashes, 10); /* every legal order, and no other */
	TST_CHECK(identity_seen);
	emu_order_close(p);
}

static void test_refused(void)
{
	const char *path = tst_path("graph.sbt");
	emu_order_plan *p = NULL;
	char err[512] = "";

	TST_REQUIRE(emu_gen_scenario("graph", path) == 0);
	TST_CHECK(emu_order_open(path, &p, err, sizeof(err)) == EMU_ERR_STATE);
	TST_CHECK(p == NULL);
	TST_CHECK(strstr(err, "launches a graph") != NULL);
	path = tst_path("devices.sbt");
	TST_REQUIRE(emu_gen_scenario("devices", path) == 0);
	TST_CHECK(emu_order_open(path, &p, err, sizeof(err)) == EMU_ERR_STATE);
	TST_CHECK(strstr(err, "commands on devices 0 and 1") != NULL);
	TST_CHECK(emu_order_open(tst_path("missing.sbt"), &p, err, sizeof(err)) == EMU_ERR_TRACE);
	TST_CHECK(emu_order_sample(NULL, 1, NULL, NULL, NULL, NULL) == EMU_ERR_ARG);
	emu_order_close(NULL);
}

int main(void)
{
	test_orders();
	test_refused();
	return tst_done();
}
