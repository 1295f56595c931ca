/*
 * test_emu_depvec.c - the emulator's dependency lists (emulator/emu_depvec.c):
 * with the hash index they take beyond EMU_DEPVEC_INDEX entries, they hold
 * exactly what a search of the whole list would leave, in the same order
 * and with the same kinds.  Checked against that search (written out here)
 * on random sequences of adds, unchecked appends, clears and moves by
 * value, short lists and long ones, and on a list of 200,000 distinct
 * steps each added twice.
 */
#include <string.h>

#include "emulator/emu_internal.h"
#include "tests/support/tst.h"

/* The list as the emulator kept it before the index: a repeat (same step
 * and node1) is found by reading every entry. */
typedef struct ref_list {
	emu_dep *v;
	size_t n, cap;
} ref_list;

static void ref_append(ref_list *r, emu_dep d)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		TST_REQUIRE(r->v != NULL);
	}
	r->v[r->n++] = d;
}

static void ref_push_dep(ref_list *r, const emu_dep *d, uint32_t kind)
{
	emu_dep x = *d;

	if (!d->node1 && d->step == EMU_NONE)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].step == d->step && r->v[i].node1 == d->node1)
			return;
	x.kind = kind & 0xff;
	ref_append(r, x);
}

static int same(const emu_depvec *dv, const ref_list *r)
{
	if (dv->n != r->n)
		return 0;
	for (size_t i = 0; i < r->n; i++)
		if (dv->v[i].step != r->v[i].step || dv->v[i].node1 != r->v[i].node1 ||
		    dv->v[i].kind != r->v[i].kind)
			return 0;
	return 1;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t below)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % below);
}

/* One random operation on both lists: steps from [0, range), a node of a
 * launch for about one add in four, EMU_NONE now and then, a clear about
 * every 500 (so lists grow past EMU_DEPVEC_INDEX and are cleared long). */
static void random_op(emu_depvec *dv, ref_list *r, uint32_t range)
{
	uint32_t op = rnd(1000);
	emu_dep d = { rnd(range), rnd(EMU_D_COUNT), 0 };
	uint32_t kind = rnd(EMU_D_COUNT);

	if (rnd(4) == 0)
		d.node1 = 1 + rnd(3);
	if (op < 2) {
		emu_depvec_clear(dv);
		r->n = 0;
	} else if (op < 80) {
		/* appended without the check, repeats included (emu_launch_record) */
		TST_REQUIRE(EMU_PUSH(*dv, d) == 0);
		ref_append(r, d);
	} else if (op < 100) {
		TST_REQUIRE(emu_dep_push(dv, EMU_NONE, kind) == 0);
	} else if (op < 500) {
		emu_dep w = { d.step, 0, 0 };

		TST_REQUIRE(emu_dep_push(dv, d.step, kind) == 0);
		ref_push_dep(r, &w, kind);
	} else {
		TST_REQUIRE(emu_dep_push_dep(dv, &d, kind) == 0);
		ref_push_dep(r, &d, kind);
	}
}

static void test_random(void)
{
	static const uint32_t ranges[] = { 8, 40, 300, 5000 };
	int mismatches = 0;

	for (size_t k = 0; k < sizeof(ranges) / sizeof(ranges[0]); k++) {
		emu_depvec dv = { 0 };
		ref_list r = { 0 };
		size_t indexed = 0;

		for (int i = 0; i < 40000; i++) {
			random_op(&dv, &r, ranges[k]);
			if (i % 97 == 0 && !same(&dv, &r))
				mismatches++;
			indexed += dv.idx != NULL;
			if (i % 5003 == 0) {
				/* moved by value (emu_launch_records, a destroyed event) */
				emu_depvec moved = dv;

				memset(&dv, 0, sizeof(dv));
				dv = moved;
			}
		}
		TST_CHECK(same(&dv, &r));
		/* lists grow past EMU_DEPVEC_INDEX between clears (with few steps
		 * through the unchecked appends) and are checked through their index */
		TST_CHECK(indexed > 10000);
		emu_depvec_free(&dv);
		TST_CHECK(dv.v == NULL && dv.idx == NULL && dv.n == 0);
		free(r.v);
	}
	TST_CHECK_EQ_U64(mismatches, 0);
}

/* The pattern of issue 10: a stream's pending list of many distinct steps,
 * each added twice (the repeat must be found in the index). */
static void test_long(void)
{
	emu_depvec dv = { 0 };
	size_t bad = 0;

	for (uint32_t s = 0; s < 200000; s++) {
		emu_dep node = { s, EMU_D_EVENT, 2 };

		TST_REQUIRE(emu_dep_push(&dv, s, EMU_D_EVENT) == 0);
		TST_REQUIRE(emu_dep_push(&dv, s, EMU_D_HOST) == 0);
		TST_REQUIRE(emu_dep_push_dep(&dv, &node, EMU_D_GRAPH) == 0);
		TST_REQUIRE(emu_dep_push_dep(&dv, &node, EMU_D_HOST) == 0);
	}
	TST_CHECK_EQ_U64(dv.n, 400000);
	for (size_t i = 0; i < dv.n; i++)
		bad += dv.v[i].step != i / 2 || dv.v[i].node1 != (i % 2 ? 2u : 0u) ||
		       dv.v[i].kind != (i % 2 ? EMU_D_GRAPH : EMU_D_EVENT);
	TST_CHECK_EQ_U64(bad, 0);
	TST_CHECK(dv.idx != NULL);
	emu_depvec_clear(&dv);
	TST_CHECK(dv.n == 0 && dv.idx == NULL);
	/* after a clear, what was there is not a repeat */
	TST_REQUIRE(emu_dep_push(&dv, 7, EMU_D_STREAM) == 0);
	TST_CHECK_EQ_U64(dv.n, 1);
	emu_depvec_free(&dv);
	emu_depvec_free(&dv); /* twice: a no-op */
}

int main(void)
{
	test_random();
	test_long();
	return tst_done();
}
