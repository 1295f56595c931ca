/*
 * cap_umap.c - a sorted map from a 64-bit key (a handle or an address) to
 * a pointer, for the front-ends' registries and the address windows.
 * Binary search on look-up, insertion and removal by moving the tail:
 * the maps are small or change rarely next to how often they are read.
 * Not thread-safe: each user holds its own lock.
 */
#include "capture/cap.h"

#include <stdlib.h>
#include <string.h>

/* Index of the first key >= key. */
size_t cap_umap_lower(const cap_umap *m, uint64_t key)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *cap_umap_get(const cap_umap *m, uint64_t key)
{
	size_t i = cap_umap_lower(m, key);
	return i < m->n && m->keys[i] == key ? m->vals[i] : NULL;
}

void *cap_umap_put(cap_umap *m, uint64_t key, void *val)
{
	size_t i = cap_umap_lower(m, key);
	if (i < m->n && m->keys[i] == key) {
		void *old = m->vals[i];
		m->vals[i] = val;
		return old;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *k = realloc(m->keys, cap * sizeof(*k));
		void **v;
		if (!k)
			return val;
		m->keys = k;
		v = realloc(m->vals, cap * sizeof(*v));
		if (!v)
			return val;
		m->vals = v;
		m->cap = cap;
	}
	memmove(m->keys + i + 1, m->keys + i, (m->n - i) * sizeof(*m->keys));
	memmove(m->vals + i + 1, m->vals + i, (m->n - i) * sizeof(*m->vals));
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return NULL;
}

void *cap_umap_del(cap_umap *m, uint64_t key)
{
	size_t i = cap_umap_lower(m, key);
	void *v;
	if (i >= m->n || m->keys[i] != key)
		return NULL;
	v = m->vals[i];
	memmove(m->keys + i, m->keys + i + 1, (m->n - i - 1) * sizeof(*m->keys));
	memmove(m->vals + i, m->vals + i + 1, (m->n - i - 1) * sizeof(*m->vals));
	m->n--;
	return v;
}

void cap_umap_free(cap_umap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
