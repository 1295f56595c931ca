/*
 * vkl_map.c - loader key -> vkl_instance / vkl_device.
 *
 * Every call looks its dispatch table up here, from any thread, so reads
 * take no lock: an open-addressed table of atomic slots, written only
 * under vkl_map_mu (instance and device creation and destruction are rare).
 * A removed slot keeps a tombstone key so later probes walk past it; a
 * tombstone is reused by a later insert.  The table has room for far more
 * instances and devices than a process keeps alive at once.
 */
#include <stdio.h>
#include <stdlib.h>

#include "layers/vulkan/vkl.h"

#define VKL_MAP_TOMBSTONE ((uintptr_t)1)

vkl_map_slot vkl_map_slots[VKL_MAP_SLOTS];
static pthread_mutex_t vkl_map_mu = PTHREAD_MUTEX_INITIALIZER;

/* The probe after the home slot `home` missed (vkl_map_find). */
void *vkl_map_find_probe(uintptr_t k, size_t home)
{
	size_t i = home, n;
	for (n = 0; n < VKL_MAP_SLOTS; n++, i = (i + 1) & (VKL_MAP_SLOTS - 1)) {
		uintptr_t sk = atomic_load_explicit(&vkl_map_slots[i].key, memory_order_acquire);
		if (sk == k)
			return atomic_load_explicit(&vkl_map_slots[i].value, memory_order_acquire);
		if (sk == 0)
			return NULL;
	}
	return NULL;
}

int vkl_map_insert(void *key, void *value)
{
	uintptr_t k = (uintptr_t)key;
	size_t i = vkl_map_hash(k), n;
	vkl_map_slot *slot = NULL, *tomb = NULL;
	pthread_mutex_lock(&vkl_map_mu);
	for (n = 0; n < VKL_MAP_SLOTS; n++, i = (i + 1) & (VKL_MAP_SLOTS - 1)) {
		uintptr_t sk = atomic_load_explicit(&vkl_map_slots[i].key, memory_order_relaxed);
		if (sk == k) {
			slot = &vkl_map_slots[i];
			break;
		}
		if (sk == VKL_MAP_TOMBSTONE && !tomb)
			tomb = &vkl_map_slots[i];
		if (sk == 0) {
			slot = &vkl_map_slots[i];
			break;
		}
	}
	/* A tombstone before the end of the probe is reused once we know the
	 * key is not further on. */
	if (tomb && (!slot || atomic_load_explicit(&slot->key, memory_order_relaxed) != k))
		slot = tomb;
	if (slot) {
		/* value first: a reader that sees the key sees the value */
		atomic_store_explicit(&slot->value, value, memory_order_release);
		atomic_store_explicit(&slot->key, k, memory_order_release);
	}
	pthread_mutex_unlock(&vkl_map_mu);
	return slot ? 0 : -1;
}

void vkl_map_remove(void *key)
{
	uintptr_t k = (uintptr_t)key;
	size_t i = vkl_map_hash(k), n;
	pthread_mutex_lock(&vkl_map_mu);
	for (n = 0; n < VKL_MAP_SLOTS; n++, i = (i + 1) & (VKL_MAP_SLOTS - 1)) {
		uintptr_t sk = atomic_load_explicit(&vkl_map_slots[i].key, memory_order_relaxed);
		if (sk == k) {
			atomic_store_explicit(&vkl_map_slots[i].value, NULL, memory_order_release);
			atomic_store_explicit(&vkl_map_slots[i].key, VKL_MAP_TOMBSTONE,
			                      memory_order_release);
			break;
		}
		if (sk == 0)
			break;
	}
	pthread_mutex_unlock(&vkl_map_mu);
}

void vkl_map_missing(const char *what, const void *handle)
{
	CAP_ERROR("Vulkan layer: %s %p was not created through VK_LAYER_tracesmith "
	          "(loader key %p unknown); aborting",
	          what, handle, handle ? vkl_key(handle) : NULL);
	abort();
}
