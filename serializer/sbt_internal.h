/*
 * sbt_internal.h - containers the writer and reader share: a growable byte
 * buffer and an open-addressing hash index.  Private to serializer/.
 */
#ifndef TRACESMITH_SBT_INTERNAL_H
#define TRACESMITH_SBT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

/* A growable byte buffer; grows by doubling so appends are amortised O(1)
 * and the writer's per-record path never calls malloc in steady state. */
typedef struct sbt_buf {
	uint8_t *p;
	size_t len;
	size_t cap;
} sbt_buf;

/* Makes room for `more` bytes after len.  0 on success, -1 out of memory. */
int sbt_buf_reserve(sbt_buf *b, size_t more);
int sbt_buf_append(sbt_buf *b, const void *data, size_t n);
void sbt_buf_free(sbt_buf *b);

/*
 * A hash index from a 64-bit key to 32-bit values.  Several values may share
 * a key (callers that key by a hash of something larger compare the full
 * thing themselves); lookups walk the candidates with sbt_map_next.
 */
typedef struct sbt_map {
	uint64_t *keys;
	uint32_t *vals; /* value + 1; 0 marks an empty slot */
	size_t cap;     /* power of two, or 0 */
	size_t count;
} sbt_map;

int sbt_map_insert(sbt_map *m, uint64_t key, uint32_t val);
/* First candidate for key: returns 1 and sets *val (and *cursor for
 * sbt_map_next), or 0 when there is none. */
int sbt_map_first(const sbt_map *m, uint64_t key, size_t *cursor, uint32_t *val);
int sbt_map_next(const sbt_map *m, uint64_t key, size_t *cursor, uint32_t *val);
void sbt_map_free(sbt_map *m);

/* Grow a malloc'd array to hold at least n elements of size sz. */
int sbt_array_reserve(void **arr, size_t *cap, size_t n, size_t sz);

#endif /* TRACESMITH_SBT_INTERNAL_H */
