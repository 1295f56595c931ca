/*
 * fuzz_cm_codec - libFuzzer target for the call codecs and the module image
 * sizer, the parsers of untrusted bytes behind the reader's: a compute
 * record payload (sbt_cm_decode, then every accessor a replayer uses on
 * what it decoded), a Vulkan call payload (sbt_vk_decode through a handle
 * map and a blob loader, as tsreplay decodes it) and a module image
 * (sbt_cm_image_size, as capture and replay call it on images they did not
 * make).  The first input byte picks the parser: odd, the image sizer;
 * bit 1 set, the Vulkan decoder (then a little-endian u16 command, taken
 * modulo the command count, then the payload); else the compute decoder.
 * Decoding must never crash, read out of bounds or accept what does not
 * re-encode to an equal call (Vulkan: what it accepted encodes, and that
 * encoding decodes and encodes again to the same bytes); sizing must never
 * read past max nor return more than max.  `make fuzz` runs it;
 * tests/fuzz/replay_main.c runs it over tests/fuzz/corpus_cm/ (compute
 * and Vulkan payloads of real traces) in `make test`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_vk.h"

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

/* Every handle is known (a replay maps the captured values it bound);
 * one value stands for a handle the map does not know. */
static sbt_vk_status fz_vk_map(void *ctx, VkObjectType type, uint64_t captured, uint64_t *live)
{
	(void)ctx;
	(void)type;
	if (captured == 0xdead)
		return SBT_VK_ERR_HANDLE;
	*live = captured;
	return SBT_VK_OK;
}

/* Blobs: len bytes of the arena (zeroed), as a replayer's loader gives
 * them; a length past 1 MiB stands for a blob that is not there. */
static sbt_vk_status fz_vk_blob(void *ctx, uint64_t id, size_t len, const void **out)
{
	void *p;
	(void)id;
	if (len > ((size_t)1 << 20))
		return SBT_VK_ERR_BLOB;
	p = sbt_vk_arena_alloc(ctx, len ? len : 1);
	if (!p)
		return SBT_VK_ERR_LIMIT;
	*out = p;
	return SBT_VK_OK;
}

static void fz_vk_decode(const uint8_t *p, size_t n)
{
	enum sbt_vk_cmd cmd;
	sbt_vk_arena *a = NULL, *b = NULL;
	sbt_vk_decode_hooks h = {NULL, fz_vk_map, fz_vk_blob};
	sbt_vk_enc e1, e2;
	void *args = NULL, *args2 = NULL;
	size_t size;
	if (n < 2)
		return;
	cmd = (enum sbt_vk_cmd)((p[0] | (unsigned)p[1] << 8) % SBT_VK_CMD_COUNT);
	size = sbt_vk_args_size(cmd);
	if (!size || !sbt_vk_cmd_carried(cmd))
		return;
	sbt_vk_enc_init(&e1);
	sbt_vk_enc_init(&e2);
	args = malloc(size);
	args2 = malloc(size);
	if (!args || !args2 || sbt_vk_arena_create(16u << 20, &a) != SBT_VK_OK ||
	    sbt_vk_arena_create(16u << 20, &b) != SBT_VK_OK)
		goto out;
	h.ctx = a;
	if (sbt_vk_decode(cmd, p + 2, n - 2, a, args, &h) != SBT_VK_OK)
		goto out;
	/* What was accepted encodes (the encoder reads every array by its
	 * count: ASan sees a count larger than its array), and that encoding
	 * is one the decoder takes back to the same call. */
	if (sbt_vk_encode(&e1, cmd, args) != SBT_VK_OK)
		goto out;
	h.ctx = b;
	if (sbt_vk_decode(cmd, e1.data, e1.len, b, args2, &h) != SBT_VK_OK)
		abort();
	if (sbt_vk_encode(&e2, cmd, args2) != SBT_VK_OK || e1.len != e2.len ||
	    memcmp(e1.data, e2.data, e1.len) != 0)
		abort();
out:
	sbt_vk_enc_free(&e1);
	sbt_vk_enc_free(&e2);
	sbt_vk_arena_free(a);
	sbt_vk_arena_free(b);
	free(args);
	free(args2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fz_cm_image(data + 1, size - 1);
	else if (data[0] & 2)
		fz_vk_decode(data + 1, size - 1);
	else
		fz_cm_decode(data + 1, size - 1);
	return 0;
}
