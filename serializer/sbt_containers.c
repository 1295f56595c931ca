/*
 * sbt_containers.c - the growable buffer and hash index of sbt_internal.h.
 */
#include "serializer/sbt_internal.h"

#include <stdlib.h>
#include <string.h>

int sbt_array_reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap;
	void *np;
	if (n <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < n) {
		if (ncap > SIZE_MAX / 2 / sz)
			return -1;
		ncap *= 2;
	}
	np = realloc(*arr, ncap * sz);
	if (!np)
		return -1;
	*arr = np;
	*cap = ncap;
	return 0;
}

int sbt_buf_reserve(sbt_buf *b, size_t more)
{
	void *p = b->p;
	if (more > SIZE_MAX - b->len)
		return -1;
	if (b->len + more <= b->cap)
		return 0;
	if (sbt_array_reserve(&p, &b->cap, b->len + more, 1) != 0)
		return -1;
	b->p = p;
	return 0;
}

int sbt_buf_append(sbt_buf *b, const void *data, size_t n)
{
	if (sbt_buf_reserve(b, n) != 0)
		return -1;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	return 0;
}

void sbt_buf_free(sbt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static size_t sbt_map_slot(uint64_t key, size_t cap)
{
	/* Keys may be small counters (blob ids) as well as hashes: mix them. */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int sbt_map_grow(sbt_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint64_t *nkeys = calloc(ncap, sizeof(*nkeys));
	uint32_t *nvals = calloc(ncap, sizeof(*nvals));
	size_t i;
	if (!nkeys || !nvals) {
		free(nkeys);
		free(nvals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		size_t s;
		if (!m->vals[i])
			continue;
		s = sbt_map_slot(m->keys[i], ncap);
		while (nvals[s])
			s = (s + 1) & (ncap - 1);
		nkeys[s] = m->keys[i];
		nvals[s] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nkeys;
	m->vals = nvals;
	m->cap = ncap;
	return 0;
}

int sbt_map_insert(sbt_map *m, uint64_t key, uint32_t val)
{
	size_t s;
	if (val == UINT32_MAX)
		return -1;
	if ((m->count + 1) * 4 > m->cap * 3 && sbt_map_grow(m) != 0)
		return -1;
	s = sbt_map_slot(key, m->cap);
	while (m->vals[s])
		s = (s + 1) & (m->cap - 1);
	m->keys[s] = key;
	m->vals[s] = val + 1;
	m->count++;
	return 0;
}

int sbt_map_next(const sbt_map *m, uint64_t key, size_t *cursor, uint32_t *val)
{
	size_t s;
	if (!m->cap)
		return 0;
	for (s = *cursor; m->vals[s]; s = (s + 1) & (m->cap - 1)) {
		if (m->keys[s] == key) {
			*val = m->vals[s] - 1;
			*cursor = (s + 1) & (m->cap - 1);
			return 1;
		}
	}
	return 0;
}

int sbt_map_first(const sbt_map *m, uint64_t key, size_t *cursor, uint32_t *val)
{
	if (!m->cap)
		return 0;
	*cursor = sbt_map_slot(key, m->cap);
	return sbt_map_next(m, key, cursor, val);
}

void sbt_map_free(sbt_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
