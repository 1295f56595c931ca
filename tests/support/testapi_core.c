/*
 * testapi_core.c - payload codec and host-memory "device" of the testapi
 * test double.  The payload layout is specified in testapi_core.h.
 *
 * Both sides run this same code: the program's calls to compute the
 * results it reads, the replay backend to recompute them from the trace.
 * Every id, offset and length is checked before use because the backend
 * feeds it untrusted trace bytes.
 */
#include "tests/support/testapi_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	TESTAPI_F_BUF = 1u << 0,
	TESTAPI_F_A = 1u << 1,
	TESTAPI_F_B = 1u << 2,
	TESTAPI_F_OFF = 1u << 3,
	TESTAPI_F_LEN = 1u << 4,
	TESTAPI_F_SIZE = 1u << 5,
	TESTAPI_F_VALUE = 1u << 6,
	TESTAPI_F_BLOB = 1u << 7
};

typedef struct testapi_type_desc {
	const char *name;
	unsigned fields;
} testapi_type_desc;

static const testapi_type_desc testapi_types[TESTAPI_TYPE_COUNT] = {
	{"testapi.alloc", TESTAPI_F_BUF | TESTAPI_F_SIZE},
	{"testapi.write", TESTAPI_F_BUF | TESTAPI_F_OFF | TESTAPI_F_LEN | TESTAPI_F_BLOB},
	{"testapi.fill", TESTAPI_F_BUF | TESTAPI_F_OFF | TESTAPI_F_LEN | TESTAPI_F_VALUE},
	{"testapi.add", TESTAPI_F_BUF | TESTAPI_F_A | TESTAPI_F_B | TESTAPI_F_LEN},
	{"testapi.scale", TESTAPI_F_BUF | TESTAPI_F_OFF | TESTAPI_F_LEN | TESTAPI_F_VALUE},
	{"testapi.mix", TESTAPI_F_BUF | TESTAPI_F_OFF | TESTAPI_F_LEN | TESTAPI_F_VALUE},
	{"testapi.read", TESTAPI_F_BUF | TESTAPI_F_OFF | TESTAPI_F_LEN},
	{"testapi.free", TESTAPI_F_BUF},
	{"testapi.snapshot", TESTAPI_F_BUF | TESTAPI_F_SIZE | TESTAPI_F_BLOB},
};

static void testapi_core_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void testapi_core_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *testapi_type_name(uint32_t type)
{
	if (type < TESTAPI_TYPE_ALLOC || type >= TESTAPI_TYPE_END)
		return NULL;
	return testapi_types[type - TESTAPI_TYPE_ALLOC].name;
}

int testapi_type_is_kernel(uint32_t type)
{
	return type == TESTAPI_TYPE_FILL || type == TESTAPI_TYPE_ADD ||
	       type == TESTAPI_TYPE_SCALE || type == TESTAPI_TYPE_MIX;
}

/* The op's fields in payload order, as pointers so encode and decode walk
 * the same list. */
static void testapi_core_fields(testapi_op *op, uint64_t *slots[8])
{
	slots[0] = &op->buf;
	slots[1] = &op->a;
	slots[2] = &op->b;
	slots[3] = &op->off;
	slots[4] = &op->len;
	slots[5] = &op->size;
	slots[6] = &op->value;
	slots[7] = &op->blob;
}

size_t testapi_op_encode(const testapi_op *op, uint8_t *p)
{
	testapi_op copy = *op;
	uint64_t *slots[8];
	unsigned fields;
	size_t n = 0;
	unsigned i;

	if (!testapi_type_name(op->type))
		return 0;
	fields = testapi_types[op->type - TESTAPI_TYPE_ALLOC].fields;
	testapi_core_fields(&copy, slots);
	for (i = 0; i < 8; i++)
		if (fields & (1u << i))
			n += sbt_varint_put(p + n, *slots[i]);
	return n;
}

int testapi_op_decode(uint32_t type, const uint8_t *p, size_t len, testapi_op *out,
                      char *err, size_t errlen)
{
	static const char *const testapi_field_names[8] = {"buf", "a", "b", "off",
	                                                   "len", "size", "value", "blob"};
	testapi_op op;
	uint64_t *slots[8];
	const uint8_t *cur = p;
	const uint8_t *end = p + len;
	unsigned fields;
	unsigned i;

	memset(&op, 0, sizeof(op));
	if (!testapi_type_name(type)) {
		testapi_core_err(err, errlen, "record type %u is not a testapi call", type);
		return -1;
	}
	op.type = type;
	fields = testapi_types[type - TESTAPI_TYPE_ALLOC].fields;
	testapi_core_fields(&op, slots);
	for (i = 0; i < 8; i++) {
		if (!(fields & (1u << i)))
			continue;
		if (sbt_varint_get(&cur, end, slots[i]) != 0) {
			testapi_core_err(err, errlen, "%s payload: field '%s' is truncated or malformed "
			                 "at payload byte %zu of %zu", testapi_type_name(type),
			                 testapi_field_names[i], (size_t)(cur - p), len);
			return -1;
		}
	}
	if (cur != end) {
		testapi_core_err(err, errlen, "%s payload: %zu unexpected trailing bytes",
		                 testapi_type_name(type), (size_t)(end - cur));
		return -1;
	}
	*out = op;
	return 0;
}

uint8_t *testapi_mem_range(testapi_mem *m, uint64_t buf, uint64_t off, uint64_t len,
                           char *err, size_t errlen)
{
	testapi_buffer *b;
	if (buf == 0 || buf >= m->cap || !m->bufs[buf].bytes) {
		testapi_core_err(err, errlen, "buffer %llu is not allocated", (unsigned long long)buf);
		return NULL;
	}
	b = &m->bufs[buf];
	if (off > b->size || len > b->size - off) {
		testapi_core_err(err, errlen, "range [%llu, +%llu) is outside buffer %llu of %llu bytes",
		                 (unsigned long long)off, (unsigned long long)len,
		                 (unsigned long long)buf, (unsigned long long)b->size);
		return NULL;
	}
	return b->bytes + off;
}

/* Make room for id and give it a zeroed buffer of size bytes (replacing
 * what was there only when replace is set). */
static int testapi_mem_create(testapi_mem *m, uint64_t id, uint64_t size, int replace,
                              char *err, size_t errlen)
{
	uint8_t *bytes;
	if (id == 0 || id >= TESTAPI_MAX_BUFFERS) {
		testapi_core_err(err, errlen, "buffer id %llu is outside 1..%u",
		                 (unsigned long long)id, TESTAPI_MAX_BUFFERS - 1);
		return -1;
	}
	if (size == 0 || size > TESTAPI_MAX_SIZE) {
		testapi_core_err(err, errlen, "buffer %llu: size %llu is outside 1..%llu",
		                 (unsigned long long)id, (unsigned long long)size,
		                 (unsigned long long)TESTAPI_MAX_SIZE);
		return -1;
	}
	if (id >= m->cap) {
		size_t ncap = m->cap ? m->cap : 16;
		testapi_buffer *nb;
		while (ncap <= id)
			ncap *= 2;
		nb = realloc(m->bufs, ncap * sizeof(*nb));
		if (!nb) {
			testapi_core_err(err, errlen, "out of memory for buffer table");
			return -1;
		}
		memset(nb + m->cap, 0, (ncap - m->cap) * sizeof(*nb));
		m->bufs = nb;
		m->cap = ncap;
	}
	if (m->bufs[id].bytes && !replace) {
		testapi_core_err(err, errlen, "buffer %llu is already allocated", (unsigned long long)id);
		return -1;
	}
	bytes = calloc(1, (size_t)size);
	if (!bytes) {
		testapi_core_err(err, errlen, "out of memory for buffer %llu (%llu bytes)",
		                 (unsigned long long)id, (unsigned long long)size);
		return -1;
	}
	if (m->bufs[id].bytes)
		free(m->bufs[id].bytes);
	else
		m->live++;
	m->bufs[id].bytes = bytes;
	m->bufs[id].size = size;
	return 0;
}

static uint32_t testapi_load32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void testapi_store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint64_t testapi_load64(const uint8_t *p)
{
	return (uint64_t)testapi_load32(p) | (uint64_t)testapi_load32(p + 4) << 32;
}

static void testapi_store64(uint8_t *p, uint64_t v)
{
	testapi_store32(p, (uint32_t)v);
	testapi_store32(p + 4, (uint32_t)(v >> 32));
}

int testapi_mem_exec(testapi_mem *m, const testapi_op *op, char *err, size_t errlen)
{
	uint8_t *dst, *sa, *sb;
	uint64_t i;

	switch (op->type) {
	case TESTAPI_TYPE_ALLOC:
		return testapi_mem_create(m, op->buf, op->size, 0, err, errlen);
	case TESTAPI_TYPE_SNAPSHOT:
		if (!op->data) {
			testapi_core_err(err, errlen, "snapshot of buffer %llu has no data",
			                 (unsigned long long)op->buf);
			return -1;
		}
		if (testapi_mem_create(m, op->buf, op->size, 1, err, errlen) != 0)
			return -1;
		memcpy(m->bufs[op->buf].bytes, op->data, (size_t)op->size);
		return 0;
	case TESTAPI_TYPE_WRITE:
		dst = testapi_mem_range(m, op->buf, op->off, op->len, err, errlen);
		if (!dst)
			return -1;
		if (!op->data && op->len) {
			testapi_core_err(err, errlen, "write to buffer %llu has no data",
			                 (unsigned long long)op->buf);
			return -1;
		}
		if (op->len)
			memcpy(dst, op->data, (size_t)op->len);
		return 0;
	case TESTAPI_TYPE_FILL:
		dst = testapi_mem_range(m, op->buf, op->off, op->len, err, errlen);
		if (!dst)
			return -1;
		for (i = 0; i < op->len; i++)
			dst[i] = (uint8_t)(op->value >> (8 * ((op->off + i) % 4)));
		return 0;
	case TESTAPI_TYPE_ADD:
		if (op->len % 4) {
			testapi_core_err(err, errlen, "add: length %llu is not a multiple of 4",
			                 (unsigned long long)op->len);
			return -1;
		}
		dst = testapi_mem_range(m, op->buf, 0, op->len, err, errlen);
		sa = dst ? testapi_mem_range(m, op->a, 0, op->len, err, errlen) : NULL;
		sb = sa ? testapi_mem_range(m, op->b, 0, op->len, err, errlen) : NULL;
		if (!sb)
			return -1;
		for (i = 0; i < op->len; i += 4)
			testapi_store32(dst + i, testapi_load32(sa + i) + testapi_load32(sb + i));
		return 0;
	case TESTAPI_TYPE_SCALE:
		if (op->len % 4) {
			testapi_core_err(err, errlen, "scale: length %llu is not a multiple of 4",
			                 (unsigned long long)op->len);
			return -1;
		}
		dst = testapi_mem_range(m, op->buf, op->off, op->len, err, errlen);
		if (!dst)
			return -1;
		for (i = 0; i < op->len; i += 4)
			testapi_store32(dst + i, testapi_load32(dst + i) * (uint32_t)op->value);
		return 0;
	case TESTAPI_TYPE_MIX:
		if (op->len % 8) {
			testapi_core_err(err, errlen, "mix: length %llu is not a multiple of 8",
			                 (unsigned long long)op->len);
			return -1;
		}
		dst = testapi_mem_range(m, op->buf, op->off, op->len, err, errlen);
		if (!dst)
			return -1;
		for (i = 0; i < op->len; i += 8) {
			uint64_t x = testapi_load64(dst + i) ^ (op->value + i / 8);
			/* xorshift64*: cheap, and every input bit reaches the output. */
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			testapi_store64(dst + i, x * 0x2545F4914F6CDD1Dull);
		}
		return 0;
	case TESTAPI_TYPE_READ:
		return testapi_mem_range(m, op->buf, op->off, op->len, err, errlen) ? 0 : -1;
	case TESTAPI_TYPE_FREE:
		if (!testapi_mem_range(m, op->buf, 0, 0, err, errlen))
			return -1;
		free(m->bufs[op->buf].bytes);
		m->bufs[op->buf].bytes = NULL;
		m->bufs[op->buf].size = 0;
		m->live--;
		return 0;
	default:
		testapi_core_err(err, errlen, "record type %u is not a testapi call", op->type);
		return -1;
	}
}

void testapi_mem_clear(testapi_mem *m)
{
	size_t i;
	for (i = 0; i < m->cap; i++)
		free(m->bufs[i].bytes);
	free(m->bufs);
	m->bufs = NULL;
	m->cap = 0;
	m->live = 0;
}
