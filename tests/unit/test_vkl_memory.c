/*
 * test_vkl_memory - the layer's mapped-memory tracking (compiled in from
 * layers/vulkan/vkl_memory.c) on a fake mapping: "real" is a plain buffer
 * standing for the driver's mapping, the device's writes are made into it
 * directly.  Checks that the application gets a shadow with the real
 * contents; that publishing records exactly the bytes the host changed and
 * copies them to the real mapping; that bytes the device wrote are never
 * recorded as host writes, reach the shadow at an observation point and
 * are checkpointed there (read back from the trace: offset, length, hash),
 * or, while submitted work may still run, at the next observation that
 * finds the device idle;
 * that a host write next to a device write does not overwrite it; and that
 * unmapping publishes what is left.
 */
#include <stdlib.h>
#include <string.h>

#include "layers/vulkan/vkl_memory.c"
#include "layers/vulkan/vkl_objects.c"
#include "layers/vulkan/vkl_track.c"
#include "tests/support/tst.h"

#include "tests/support/vkl_test_device.h"
#include "tests/support/vkl_trim_stubs.h"

/* vkl_record.c's tsMemoryWrite, replaced: the writes are collected here. */
typedef struct tst_write {
	uint64_t memory, offset, size;
	uint8_t bytes[64];
} tst_write;
static tst_write tst_writes[64];
static size_t tst_nwrites;

uint64_t vkl_emit_memory_write(uint64_t memory, uint64_t offset, const void *data, uint64_t size)
{
	tst_write *w = &tst_writes[tst_nwrites++ % 64];
	w->memory = memory;
	w->offset = offset;
	w->size = size;
	memcpy(w->bytes, data, size < 64 ? size : 64);
	return 1;
}

#include "tests/support/vkl_emit_runs.h"

#define TST_SIZE 4096
#define TST_OFFSET 256 /* the mapping starts this far into the memory */
#define TST_MEM ((VkDeviceMemory)(uintptr_t)0xabc000)

static int tst_find_checkpoint(const char *path, uint64_t call_seq, uint64_t offset,
                               const void *want, uint64_t len)
{
	sbt_reader *r = NULL;
	sbt_record rec;
	int found = 0;
	sbt_checkpoint expect;
	TST_REQUIRE(sbt_checkpoint_compute(want, len, &expect) == SBT_OK);
	if (sbt_reader_open(path, NULL, &r) != SBT_OK)
		goto out;
	while (sbt_reader_next(r, &rec) == SBT_OK) {
		sbt_checkpoint cp;
		if (rec.type != SBT_TYPE_CHECKPOINT)
			continue;
		if (sbt_checkpoint_decode(rec.payload, rec.payload_len, &cp) != SBT_OK)
			continue;
		if (cp.call_seq == call_seq && cp.object == (uint64_t)(uintptr_t)TST_MEM &&
		    cp.offset == offset && cp.length == len && cp.hash == expect.hash)
			found++;
		sbt_checkpoint_free(&cp);
	}
out:
	sbt_reader_close(r);
	sbt_checkpoint_free(&expect);
	return found;
}

int main(void)
{
	vkl_device d;
	VkMemoryAllocateInfo info;
	uint8_t *real = malloc(TST_SIZE);
	uint8_t *shadow;
	void *p;
	uint8_t dev_bytes[20];
	size_t i;
	const char *trace = tst_path("mem.sbt");

	setenv("TRACESMITH_OUTPUT", trace, 1);
	/* the capture runtime starts (and installs its crash handlers) before
	 * anything is mapped, as under the layer, where the instance's first
	 * calls are recorded first: the guard tracker's SIGSEGV handler is
	 * installed after it and chains to it */
	TST_REQUIRE(cap_active() == 1);
	TST_REQUIRE(real != NULL);
	for (i = 0; i < TST_SIZE; i++)
		real[i] = (uint8_t)(i * 7);
	tst_device_init(&d);
	memset(&info, 0, sizeof(info));
	info.allocationSize = TST_OFFSET + TST_SIZE;
	vkl_memory_allocated(&d, TST_MEM, &info, 5);

	/* map: a shadow with the real contents, page-aligned minus the offset */
	p = real;
	TST_REQUIRE(vkl_memory_mapped(&d, TST_MEM, TST_OFFSET, VK_WHOLE_SIZE, &p) == VK_SUCCESS);
	shadow = p;
	TST_REQUIRE(shadow != real);
	TST_CHECK(memcmp(shadow, real, TST_SIZE) == 0);
	TST_CHECK(((uintptr_t)shadow - TST_OFFSET) % 4096 == 0);
	/* no submit since the allocation: the initial contents are recorded
	 * once, as a host write of the whole mapping */
	TST_CHECK(vkl_memory_map_recorded(&d, TST_MEM, 6) == 1);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET);
	TST_CHECK_EQ_U64(tst_writes[0].size, TST_SIZE);
	TST_CHECK(tst_writes[0].bytes[3] == (uint8_t)(3 * 7));
	TST_CHECK(vkl_memory_map_recorded(&d, TST_MEM, 6) == 0);
	tst_nwrites = 0;

	/* nothing written, nothing published */
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_EQ_U64(tst_nwrites, 0);

	/* host writes 10 bytes: exactly those are recorded and reach the device */
	memset(shadow + 100, 0xee, 10);
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].memory, (uint64_t)(uintptr_t)TST_MEM);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET + 100);
	TST_CHECK_EQ_U64(tst_writes[0].size, 10);
	TST_CHECK(tst_writes[0].bytes[0] == 0xee && tst_writes[0].bytes[9] == 0xee);
	TST_CHECK(real[100] == 0xee && real[109] == 0xee && real[110] == (uint8_t)(110 * 7));

	/* the device writes 20 bytes, the host 4 elsewhere: an observation of
	 * the whole device records no host write (another thread may be
	 * writing a mapping no submission reached yet: it is not read), the
	 * device's bytes reach the shadow and are checkpointed, the host's
	 * stay in the shadow */
	for (i = 0; i < sizeof(dev_bytes); i++)
		dev_bytes[i] = (uint8_t)(0x40 + i);
	memcpy(real + 200, dev_bytes, sizeof(dev_bytes));
	memset(shadow + 300, 0x11, 4);
	tst_nwrites = 0;
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 42);
	TST_CHECK_EQ_U64(tst_nwrites, 0);
	TST_CHECK(memcmp(shadow + 200, dev_bytes, sizeof(dev_bytes)) == 0);
	TST_CHECK(shadow[300] == 0x11 && real[300] == (uint8_t)(300 * 7));
	/* the next publish records the host's 4 bytes, and only them: device
	 * bytes are not host writes */
	tst_nwrites = 0;
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET + 300);
	TST_CHECK_EQ_U64(tst_writes[0].size, 4);
	TST_CHECK(real[300] == 0x11);
	tst_nwrites = 0;
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_EQ_U64(tst_nwrites, 0);

	/* while work may still be running (a submission not known complete),
	 * device bytes reach the shadow but wait for their checkpoint until an
	 * observation finds the device idle: then they are final */
	atomic_store(&d.submits, 1);
	for (i = 0; i < 16; i++)
		real[700 + i] = (uint8_t)(0x70 + i);
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 50);
	TST_CHECK(shadow[700] == 0x70 && shadow[715] == 0x7f);
	atomic_store(&d.completed, 1);
	vkl_memory_observe(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE, 60);
	tst_nwrites = 0;

	/* host writes around a byte the device just wrote: two writes, the
	 * device's byte survives in the real mapping */
	real[505] = 0x99;
	shadow[500] = 0x01;
	shadow[510] = 0x02;
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_CHECK_EQ_U64(tst_nwrites, 2);
	TST_CHECK(real[505] == 0x99);
	TST_CHECK(real[500] == 0x01 && real[510] == 0x02);
	/* ... while a short gap the device left alone is merged into one */
	tst_nwrites = 0;
	shadow[600] = 0x03;
	shadow[608] = 0x04;
	vkl_memory_publish(&d, VK_NULL_HANDLE, 0, VK_WHOLE_SIZE);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET + 600);
	TST_CHECK_EQ_U64(tst_writes[0].size, 9);

	/* a range-limited publish (vkFlushMappedMemoryRanges) leaves the rest */
	tst_nwrites = 0;
	shadow[1000] = 0x05;
	shadow[2000] = 0x06;
	vkl_memory_publish(&d, TST_MEM, TST_OFFSET + 900, 200);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET + 1000);
	TST_CHECK(real[2000] != 0x06);

	/* unmapping publishes what is left */
	tst_nwrites = 0;
	vkl_memory_unmapping(&d, TST_MEM);
	TST_REQUIRE(tst_nwrites == 1);
	TST_CHECK_EQ_U64(tst_writes[0].offset, TST_OFFSET + 2000);
	TST_CHECK(real[2000] == 0x06);

	/* map again after a submit: the whole mapping is checkpointed once the
	 * device is idle */
	atomic_fetch_add(&d.submits, 1);
	p = real;
	TST_REQUIRE(vkl_memory_mapped(&d, TST_MEM, TST_OFFSET, TST_SIZE, &p) == VK_SUCCESS);
	TST_CHECK(vkl_memory_map_recorded(&d, TST_MEM, 76) == 0);
	atomic_store(&d.completed, 2);
	TST_CHECK(vkl_memory_map_recorded(&d, TST_MEM, 77) == 2);
	vkl_memory_freed(&d, TST_MEM);
	TST_CHECK_EQ_U64(vkl_objects_count(), 0);
	/* the device's end: the memory kept from unmapped mappings freed */
	vkl_memory_device_gone(&d);

	cap_shutdown();
	TST_CHECK_EQ_U64(tst_find_checkpoint(trace, 42, TST_OFFSET + 200, dev_bytes, sizeof(dev_bytes)), 1);
	TST_CHECK_EQ_U64(tst_find_checkpoint(trace, 77, TST_OFFSET, real, TST_SIZE), 1);
	TST_CHECK_EQ_U64(tst_find_checkpoint(trace, 50, TST_OFFSET + 700, real + 700, 16), 0);
	TST_CHECK_EQ_U64(tst_find_checkpoint(trace, 60, TST_OFFSET + 700, real + 700, 16), 1);
	free(real);
	return tst_done();
}
