/*
 * testapi_core.h - what the test double's front-end (testapi.c) and its
 * replay backend (testapi_backend.c) share: record types, the payload
 * codec and the "device" that executes operations on host memory.
 *
 * Payloads are LEB128 varints (sbt_varint_put/get), in the order buf, a, b,
 * off, len, size, value, blob, keeping only the fields the type uses:
 *
 *   type              fields
 *   testapi.alloc     buf size
 *   testapi.write     buf off len blob        (blob: the len bytes written)
 *   testapi.fill      buf off len value       (value: 32-bit pattern)
 *   testapi.add       buf a b len             (buf = a + b)
 *   testapi.scale     buf off len value       (value: 32-bit factor)
 *   testapi.mix       buf off len value       (value: 64-bit seed)
 *   testapi.read      buf off len             (a checkpoint record follows)
 *   testapi.free      buf
 *   testapi.snapshot  buf size blob           (a buffer's whole contents,
 *                                              after an SBT_TYPE_KEYFRAME marker)
 *
 * The keyframe marker's payload is a varint: the number of snapshot
 * records that follow it.  Trailing payload bytes are an error.
 */
#ifndef TRACESMITH_TESTAPI_CORE_H
#define TRACESMITH_TESTAPI_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

enum {
	TESTAPI_TYPE_ALLOC = SBT_TYPE_FIRST_API,
	TESTAPI_TYPE_WRITE,
	TESTAPI_TYPE_FILL,
	TESTAPI_TYPE_ADD,
	TESTAPI_TYPE_SCALE,
	TESTAPI_TYPE_MIX,
	TESTAPI_TYPE_READ,
	TESTAPI_TYPE_FREE,
	TESTAPI_TYPE_SNAPSHOT,
	TESTAPI_TYPE_END
};

#define TESTAPI_TYPE_COUNT (TESTAPI_TYPE_END - TESTAPI_TYPE_ALLOC)
/* Limits that keep a hostile trace from asking for absurd memory. */
#define TESTAPI_MAX_BUFFERS 65536u
#define TESTAPI_MAX_SIZE (1ull << 30)
/* Longest encoded payload: 8 varints. */
#define TESTAPI_PAYLOAD_MAX 80

/* "testapi.alloc" etc.; NULL for other types. */
const char *testapi_type_name(uint32_t type);
/* 1 for the kernel types (fill, add, scale, mix). */
int testapi_type_is_kernel(uint32_t type);

typedef struct testapi_op {
	uint32_t type;
	uint64_t buf, a, b;
	uint64_t off, len, size;
	uint64_t value;
	uint64_t blob;
	const uint8_t *data; /* write: len bytes; snapshot: size bytes (borrowed) */
} testapi_op;

/* Encode op's fields into p (TESTAPI_PAYLOAD_MAX bytes); returns the length. */
size_t testapi_op_encode(const testapi_op *op, uint8_t *p);
/* Decode a payload of the given type; -1 with a message in err on failure. */
int testapi_op_decode(uint32_t type, const uint8_t *p, size_t len, testapi_op *out,
                      char *err, size_t errlen);

typedef struct testapi_buffer {
	uint64_t size;
	uint8_t *bytes; /* NULL: id not live */
} testapi_buffer;

/* The "device": buffers by id (index = id). */
typedef struct testapi_mem {
	testapi_buffer *bufs;
	size_t cap;
	uint64_t live;
} testapi_mem;

/* Execute op (alloc, write, kernels, free, snapshot; read checks bounds
 * only).  -1 with a message naming the buffer and range on failure. */
int testapi_mem_exec(testapi_mem *m, const testapi_op *op, char *err, size_t errlen);
/* Borrowed pointer to [off, off+len) of buf, NULL with a message if the
 * buffer is not live or the range does not fit. */
uint8_t *testapi_mem_range(testapi_mem *m, uint64_t buf, uint64_t off, uint64_t len,
                           char *err, size_t errlen);
/* Free every buffer (the struct stays usable). */
void testapi_mem_clear(testapi_mem *m);

#endif
