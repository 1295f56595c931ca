/*
 * test_vkl_objects - the layer's live-object table and its dispatch map
 * (compiled in from layers/vulkan/: they are internal to the layer):
 * creation records are kept and found by (type, handle), the same handle
 * value of another type is another object, removing a pool removes the
 * command buffers allocated from it, removing a device removes its
 * children recursively, and four threads adding and removing at once
 * leave exactly what they left.  The loader-key map finds what was
 * inserted, forgets what was removed, and reuses tombstones.
 */
#include <pthread.h>

#include "layers/vulkan/vkl_map.c"
#include "layers/vulkan/vkl_objects.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_trim_stubs.h"

#define TST_THREADS 4
#define TST_PER_THREAD 5000

static char tst_keys[5000];

static void *tst_worker(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * 1000000u + 1;
	uint64_t i;
	for (i = 0; i < TST_PER_THREAD; i++)
		vkl_objects_add(VK_OBJECT_TYPE_BUFFER, base + i, base + i, 7, NULL);
	/* remove the odd ones again */
	for (i = 1; i < TST_PER_THREAD; i += 2)
		vkl_objects_remove(VK_OBJECT_TYPE_BUFFER, base + i);
	return NULL;
}

int main(void)
{
	vkl_object o;
	pthread_t th[TST_THREADS];
	size_t i, before;
	int keys[3];
	int values[3];

	/* creation records, types kept apart */
	vkl_objects_add(VK_OBJECT_TYPE_DEVICE, 0x1000, 11, 0x10, NULL);
	vkl_objects_add(VK_OBJECT_TYPE_COMMAND_POOL, 0x2000, 12, 0x1000, NULL);
	vkl_objects_add(VK_OBJECT_TYPE_BUFFER, 0x2000, 13, 0x1000, &values[0]);
	vkl_objects_add(VK_OBJECT_TYPE_COMMAND_BUFFER, 0x3000, 14, 0x2000, NULL);
	vkl_objects_add(VK_OBJECT_TYPE_COMMAND_BUFFER, 0x3001, 14, 0x2000, NULL);
	TST_CHECK_EQ_U64(vkl_objects_count(), 5);
	TST_REQUIRE(vkl_objects_find(VK_OBJECT_TYPE_BUFFER, 0x2000, &o));
	TST_CHECK_EQ_U64(o.create_seq, 13);
	TST_CHECK(o.data == &values[0]);
	TST_REQUIRE(vkl_objects_find(VK_OBJECT_TYPE_COMMAND_POOL, 0x2000, &o));
	TST_CHECK_EQ_U64(o.create_seq, 12);
	TST_CHECK(!vkl_objects_find(VK_OBJECT_TYPE_IMAGE, 0x2000, &o));
	/* a second "creation" (vkGetDeviceQueue again) keeps the first record */
	vkl_objects_add(VK_OBJECT_TYPE_DEVICE, 0x1000, 99, 0x10, NULL);
	TST_REQUIRE(vkl_objects_find(VK_OBJECT_TYPE_DEVICE, 0x1000, &o));
	TST_CHECK_EQ_U64(o.create_seq, 11);

	/* the pool takes its command buffers, not the buffer of the same value */
	vkl_objects_remove(VK_OBJECT_TYPE_COMMAND_POOL, 0x2000);
	TST_CHECK(!vkl_objects_find(VK_OBJECT_TYPE_COMMAND_BUFFER, 0x3000, &o));
	TST_CHECK(!vkl_objects_find(VK_OBJECT_TYPE_COMMAND_BUFFER, 0x3001, &o));
	TST_CHECK(vkl_objects_find(VK_OBJECT_TYPE_BUFFER, 0x2000, &o));
	TST_CHECK_EQ_U64(vkl_objects_count(), 2);

	/* descriptor pool reset: children go, the pool stays */
	vkl_objects_add(VK_OBJECT_TYPE_DESCRIPTOR_POOL, 0x4000, 20, 0x1000, NULL);
	vkl_objects_add(VK_OBJECT_TYPE_DESCRIPTOR_SET, 0x4001, 21, 0x4000, NULL);
	vkl_objects_remove_children(0x4000);
	TST_CHECK(vkl_objects_find(VK_OBJECT_TYPE_DESCRIPTOR_POOL, 0x4000, &o));
	TST_CHECK(!vkl_objects_find(VK_OBJECT_TYPE_DESCRIPTOR_SET, 0x4001, &o));

	/* the device takes everything under it, grandchildren included */
	vkl_objects_add(VK_OBJECT_TYPE_COMMAND_POOL, 0x5000, 30, 0x1000, NULL);
	vkl_objects_add(VK_OBJECT_TYPE_COMMAND_BUFFER, 0x5001, 31, 0x5000, NULL);
	vkl_objects_remove(VK_OBJECT_TYPE_DEVICE, 0x1000);
	TST_CHECK_EQ_U64(vkl_objects_count(), 0);

	/* threads */
	before = vkl_objects_count();
	for (i = 0; i < TST_THREADS; i++)
		TST_REQUIRE(pthread_create(&th[i], NULL, tst_worker, (void *)(uintptr_t)i) == 0);
	for (i = 0; i < TST_THREADS; i++)
		pthread_join(th[i], NULL);
	TST_CHECK_EQ_U64(vkl_objects_count(), before + TST_THREADS * (TST_PER_THREAD / 2));
	for (i = 0; i < TST_THREADS; i++) {
		uint64_t base = (uint64_t)i * 1000000u + 1;
		TST_CHECK(vkl_objects_find(VK_OBJECT_TYPE_BUFFER, base + 2, &o));
		TST_CHECK_EQ_U64(o.create_seq, base + 2);
		TST_CHECK(!vkl_objects_find(VK_OBJECT_TYPE_BUFFER, base + 3, &o));
	}
	/* buffer 7 (thread 0's) goes alone: a buffer is no parent, so the
	 * entries whose parent value is 7 stay */
	vkl_objects_remove(VK_OBJECT_TYPE_BUFFER, 7);
	TST_CHECK(!vkl_objects_find(VK_OBJECT_TYPE_BUFFER, 7, &o));
	TST_CHECK_EQ_U64(vkl_objects_count(), before + TST_THREADS * (TST_PER_THREAD / 2) - 1);

	/* the loader-key map */
	TST_CHECK(vkl_map_insert(&keys[0], &values[0]) == 0);
	TST_CHECK(vkl_map_insert(&keys[1], &values[1]) == 0);
	TST_CHECK(vkl_map_find(&keys[0]) == &values[0]);
	TST_CHECK(vkl_map_find(&keys[1]) == &values[1]);
	TST_CHECK(vkl_map_find(&keys[2]) == NULL);
	vkl_map_remove(&keys[0]);
	TST_CHECK(vkl_map_find(&keys[0]) == NULL);
	TST_CHECK(vkl_map_find(&keys[1]) == &values[1]);
	/* far more distinct keys over time than slots: tombstones are reused */
	for (i = 0; i < sizeof(tst_keys); i++) {
		TST_REQUIRE(vkl_map_insert(&tst_keys[i], &values[2]) == 0);
		TST_CHECK(vkl_map_find(&tst_keys[i]) == &values[2]);
		vkl_map_remove(&tst_keys[i]);
		TST_CHECK(vkl_map_find(&tst_keys[i]) == NULL);
	}
	TST_CHECK(vkl_map_find(&keys[1]) == &values[1]);
	return tst_done();
}
