/*
 * fuzz_cm_codec - libFuzzer target for the compute record codec and the
 * module image sizer, the two parsers of untrusted bytes the CUDA path adds
 * to the reader's: a record payload from a trace (sbt_cm_decode, then
 * every accessor a replayer uses on what it decoded) and a module image
 * (sbt_cm_image_size, as capture and replay call it on images they did not
 * make).  The first input byte picks the parser; the rest is its input.
 * Decoding must never crash, read out of bounds or accept what does not
 * re-encode to an equal call; sizing must never read past max nor return
 * more than max.  `make fuzz` runs it; tests/fuzz/replay_main.c runs it
 * over tests/fuzz/corpus_cm/ in `make test`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_compute.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_cm_decode(const uint8_t *p, size_t n)
{
	sbt_cm_call c, d;
	uint8_t *buf;
	size_t max, len = 0;
	if (sbt_cm_decode(p, n, &c) != SBT_OK)
		return;
	for (size_t i = 0, k = sbt_cm_layout_count(&c); i < k; i++) {
		uint32_t off, sz;
		sbt_cm_layout_at(&c, i, &off, &sz);
	}
	for (size_t i = 0, k = sbt_cm_attr_count(&c); i < k; i++) {
		uint32_t id;
		const uint8_t *v;
		sbt_cm_attr_at(&c, i, &id, &v);
		(void)v[63];
	}
	(void)sbt_cm_check_params(&c);
	/* What was accepted re-encodes, and decodes back to the same fields. */
	max = sbt_cm_encoded_max(&c);
	buf = malloc(max ? max : 1);
	if (!buf)
		return;
	if (sbt_cm_encode(&c, buf, max, &len) == SBT_OK) {
		if (sbt_cm_decode(buf, len, &d) != SBT_OK)
			abort();
#define FZ_CMP_U(name) if (c.name != d.name) abort();
#define FZ_CMP_S(name) if (c.name != d.name) abort();
#define FZ_CMP_B(name)                                                              \
	if (c.name##_len != d.name##_len ||                                             \
	    (c.name##_len && memcmp(c.name, d.name, c.name##_len) != 0))                \
		abort();
#define FZ_X(tag, name, wire) FZ_CMP_##wire(name)
		SBT_CM_FIELD_LIST(FZ_X)
#undef FZ_X
	}
	free(buf);
}

static void fz_cm_image(const uint8_t *p, size_t n)
{
	unsigned kind = 99;
	/* A private copy, so that reading one byte past it is caught by ASan. */
	uint8_t *img = malloc(n ? n : 1);
	size_t len;
	if (!img)
		return;
	memcpy(img, p, n);
	len = sbt_cm_image_size(img, n, &kind);
	if (len > n || (len == 0) != (kind == SBT_CM_IMAGE_UNKNOWN))
		abort();
	free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fz_cm_image(data + 1, size - 1);
	else
		fz_cm_decode(data + 1, size - 1);
	return 0;
}
