/*
 * test_rpcuda_tables - the CUDA replay backend's lookup tables, without a
 * driver: captured handle -> object (insert, replace, delete, growth past
 * many entries), captured address ranges (find, overlap, translate within
 * and past a range), and the pointer patching of kernel parameters and
 * uploaded data when ranges moved.
 */
#include "tests/support/tst.h"

#ifdef TS_HAVE_CUDA
#include <string.h>

#include "replayer/cuda/rpcu_internal.h"

static void tst_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t tst_get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void tst_objs(void)
{
	rpcu_objs t = {0};
	rpcu_obj *o;
	uint64_t i;

	/* Same captured value under two kinds: two objects. */
	o = rpcu_objs_put(&t, RPCU_O_STREAM, 0x1000);
	TST_REQUIRE(o != NULL);
	o->live = 11;
	o = rpcu_objs_put(&t, RPCU_O_EVENT, 0x1000);
	TST_REQUIRE(o != NULL);
	o->live = 22;
	TST_CHECK_EQ_U64(rpcu_objs_get(&t, RPCU_O_STREAM, 0x1000)->live, 11);
	TST_CHECK_EQ_U64(rpcu_objs_get(&t, RPCU_O_EVENT, 0x1000)->live, 22);
	TST_CHECK(rpcu_objs_get(&t, RPCU_O_MODULE, 0x1000) == NULL);
	/* Replacing keeps one entry with the new value. */
	o = rpcu_objs_put(&t, RPCU_O_STREAM, 0x1000);
	o->live = 33;
	TST_CHECK_EQ_U64(rpcu_objs_get(&t, RPCU_O_STREAM, 0x1000)->live, 33);
	/* Many entries with deletions in between: every survivor is found. */
	for (i = 1; i <= 5000; i++) {
		o = rpcu_objs_put(&t, RPCU_O_FUNCTION, i * 64);
		TST_REQUIRE(o != NULL);
		o->live = i;
		if (i % 3 == 0)
			rpcu_objs_del(&t, rpcu_objs_get(&t, RPCU_O_FUNCTION, (i - 1) * 64));
	}
	for (i = 1; i <= 5000; i++) {
		rpcu_obj *g = rpcu_objs_get(&t, RPCU_O_FUNCTION, i * 64);
		if ((i + 1) % 3 == 0 && i + 1 <= 5000) {
			TST_CHECK(g == NULL);
		} else {
			TST_CHECK(g != NULL && g->live == i);
		}
	}
	rpcu_objs_free(&t);
}

static void tst_ranges(void)
{
	rpcu_ranges m = {0};
	rpcu_range r;
	uint64_t live;
	long idx;

	memset(&r, 0, sizeof(r));
	r.kind = RPCU_R_DEVICE;
	r.cap = 0x10000, r.size = 0x1000, r.live = 0x10000; /* in place */
	TST_REQUIRE(rpcu_ranges_insert(&m, &r) == 0);
	r.cap = 0x30000, r.size = 0x100, r.live = 0x900000; /* moved */
	TST_REQUIRE(rpcu_ranges_insert(&m, &r) == 0);
	r.cap = 0x20000, r.size = 0x10, r.live = 0x20000;
	TST_REQUIRE(rpcu_ranges_insert(&m, &r) == 0);
	TST_CHECK_EQ_U64(m.n, 3);
	TST_CHECK(m.v[0].cap < m.v[1].cap && m.v[1].cap < m.v[2].cap);
	TST_CHECK(!m.v[0].moved && m.v[2].moved);

	TST_CHECK_EQ_U64(rpcu_ranges_find(&m, 0x10fff), 0);
	TST_CHECK(rpcu_ranges_find(&m, 0x11000) == -1);
	TST_CHECK(rpcu_ranges_find(&m, 0xffff) == -1);
	TST_CHECK_EQ_U64(rpcu_ranges_find(&m, 0x20008), 1);
	TST_CHECK(rpcu_ranges_overlap(&m, 0x1f000, 0x1000) == -1);
	TST_CHECK_EQ_U64(rpcu_ranges_overlap(&m, 0x1f000, 0x1001), 1);
	TST_CHECK_EQ_U64(rpcu_ranges_overlap(&m, 0x10800, 1), 0);

	TST_CHECK(rpcu_ranges_translate(&m, 0x30010, 0xf0, &live, &idx) == 0);
	TST_CHECK_EQ_U64(live, 0x900010);
	TST_CHECK(rpcu_ranges_translate(&m, 0x30010, 0xf1, &live, &idx) != 0); /* past the end */
	TST_CHECK_EQ_U64(idx, 2);
	TST_CHECK(rpcu_ranges_translate(&m, 0x40000, 1, &live, &idx) != 0);
	TST_CHECK(idx == -1);

	{
		/* Parameters: (ptr into moved, u32, ptr one past the moved end,
		 * ptr into the in-place range); layout says which are 8 bytes. */
		uint8_t params[32] = {0}, layout[4 * SBT_CM_LAYOUT_BYTES];
		uint32_t offs[4] = {0, 8, 16, 24}, sizes[4] = {8, 4, 8, 8};
		size_t n;
		tst_put64(params, 0x30040);
		memcpy(params + 8, "\x00\x00\x03\x00", 4); /* 0x30000 as a u32: not a pointer */
		tst_put64(params + 16, 0x30100);
		tst_put64(params + 24, 0x10010);
		for (int i = 0; i < 4; i++)
			sbt_cm_layout_put(layout + i * SBT_CM_LAYOUT_BYTES, offs[i], sizes[i]);
		n = rpcu_ranges_patch_params(&m, params, sizeof(params), layout, 4, 77, "kern");
		TST_CHECK_EQ_U64(n, 2);
		TST_CHECK_EQ_U64(tst_get64(params), 0x900040);
		TST_CHECK_EQ_U64(tst_get64(params + 16), 0x900100);
		TST_CHECK_EQ_U64(tst_get64(params + 24), 0x10010);
		TST_CHECK(memcmp(params + 8, "\x00\x00\x03\x00", 4) == 0);
		/* Every range a launch pointed into remembers the launch. */
		TST_CHECK_EQ_U64(m.v[0].kernel_seq, 77);
		TST_CHECK_EQ_U64(m.v[2].kernel_seq, 77);
		TST_CHECK(strcmp(m.v[2].kernel, "kern") == 0);
		TST_CHECK_EQ_U64(m.v[1].kernel_seq, 0);
	}
	{
		/* Data at captured 0x10004: its words are aligned at 4, 12, ... */
		uint8_t data[24] = {0};
		tst_put64(data + 4, 0x30008);
		tst_put64(data + 12, 0x12345678);
		TST_CHECK_EQ_U64(rpcu_ranges_patch_data(&m, data, sizeof(data), 0x10004), 1);
		TST_CHECK_EQ_U64(tst_get64(data + 4), 0x900008);
		TST_CHECK_EQ_U64(tst_get64(data + 12), 0x12345678);
	}
	rpcu_ranges_remove(&m, 1);
	TST_CHECK_EQ_U64(m.n, 2);
	TST_CHECK(rpcu_ranges_find(&m, 0x20000) == -1);
	TST_CHECK_EQ_U64(rpcu_ranges_find(&m, 0x30000), 1);
	rpcu_ranges_free(&m);
}

int main(void)
{
	tst_objs();
	tst_ranges();
	return tst_failures ? 1 : 0;
}
#else
int main(void)
{
	puts("no CUDA toolkit headers: the CUDA replay backend is not built");
	return 77;
}
#endif
