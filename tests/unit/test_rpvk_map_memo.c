/*
 * test_rpvk_map_memo - the replayer's captured -> live map with its lookup
 * memo (a remembered slot per object type, checked against the slot before
 * use) answers exactly like a plain list under puts, value updates,
 * deletes (tombstones), a key deleted and put again, growth (rehash),
 * clears and a free: random operations on types that share memo entries,
 * on few keys so that keys come back, compared after every step.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/vulkan/rpvk.h"
#include "tests/support/tst.h"

#define MM_MAX 4096

typedef struct mm_ref {
	uint32_t type;
	uint64_t key, val;
	int32_t aux;
} mm_ref;

static mm_ref mm_list[MM_MAX];
static size_t mm_n;

static uint64_t mm_rng = 0x243f6a8885a308d3ull;
static uint64_t mm_rand(void)
{
	mm_rng ^= mm_rng << 13;
	mm_rng ^= mm_rng >> 7;
	mm_rng ^= mm_rng << 17;
	return mm_rng;
}

static mm_ref *mm_find(uint32_t type, uint64_t key)
{
	size_t i;
	for (i = 0; i < mm_n; i++)
		if (mm_list[i].type == type && mm_list[i].key == key)
			return &mm_list[i];
	return NULL;
}

/* The map and the list agree about (type, key). */
static void mm_agree(rpvk_map *m, uint32_t type, uint64_t key)
{
	const rpvk_map_slot *s = rpvk_map_get(m, type, key);
	const mm_ref *e = mm_find(type, key);
	TST_CHECK((s != NULL) == (e != NULL));
	if (s && e) {
		TST_CHECK(s->type == type && s->key == key);
		TST_CHECK_EQ_U64(s->val, e->val);
		TST_CHECK(s->aux == e->aux);
	}
}

int main(void)
{
	/* 6 and 22 share a memo entry (type & 15), as do 1 and 17 */
	static const uint32_t types[] = {6, 22, 1, 17, 3, 1000156000u};
	rpvk_map m;
	unsigned long step, checks = 0;
	memset(&m, 0, sizeof(m));
	mm_agree(&m, 6, 1); /* empty map: no slots at all */
	for (step = 0; step < 200000; step++) {
		uint32_t type = types[mm_rand() % (sizeof(types) / sizeof(types[0]))];
		/* few keys while small, more later so the map grows past 256 */
		uint64_t key = 0x5500000000ull + 16 * (mm_rand() % (step < 100000 ? 40 : 1500));
		unsigned op = (unsigned)(mm_rand() % 100);
		if (op < 45) {
			uint64_t val = mm_rand();
			int32_t aux = (int32_t)(mm_rand() % 8);
			mm_ref *e = mm_find(type, key);
			TST_REQUIRE(rpvk_map_put(&m, type, key, val, aux) == 0);
			if (!e) {
				TST_REQUIRE(mm_n < MM_MAX);
				e = &mm_list[mm_n++];
				e->type = type;
				e->key = key;
			}
			e->val = val;
			e->aux = aux;
		} else if (op < 70) {
			mm_ref *e = mm_find(type, key);
			rpvk_map_del(&m, type, key);
			if (e)
				*e = mm_list[--mm_n];
		} else if (op == 70 && step % 7 == 0) {
			rpvk_map_clear(&m);
			mm_n = 0;
		}
		/* the key just touched, twice (the second from the memo), and a
		 * remembered one of every type */
		mm_agree(&m, type, key);
		mm_agree(&m, type, key);
		if (mm_n) {
			const mm_ref *e = &mm_list[mm_rand() % mm_n];
			mm_agree(&m, e->type, e->key);
			mm_agree(&m, e->type ^ 16u, e->key);
		}
		checks++;
	}
	TST_CHECK(m.cap > 256); /* it grew */
	rpvk_map_free(&m);
	mm_n = 0;
	mm_agree(&m, 6, 0x5500000000ull); /* freed: nothing, memo or not */
	TST_CHECK(checks == 200000);
	return tst_done();
}
