/*
 * sbt_vk_selftest_support.c - fill helpers and the round-trip driver of the
 * generated codec self-test (see sbt_vk_selftest_support.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_vk_selftest_support.h"

uint64_t sbt_vk_t_rand(sbt_vk_t *f)
{
	/* xorshift64*: deterministic for a seed, good enough to vary fields. */
	uint64_t x = f->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->rng = x;
	return x * UINT64_C(0x2545F4914F6CDD1D);
}

void *sbt_vk_t_alloc(sbt_vk_t *f, size_t n)
{
	void *p = sbt_vk_arena_alloc(f->a, n);
	if (!p) {
		/* The fill arena is sized far above what bounded fills use. */
		fprintf(stderr, "sbt_vk selftest: fill arena exhausted (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void sbt_vk_t_bytes(sbt_vk_t *f, void *p, size_t n)
{
	uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)sbt_vk_t_rand(f);
}

void *sbt_vk_t_blob(sbt_vk_t *f, size_t n)
{
	void *p = sbt_vk_t_alloc(f, n);
	sbt_vk_t_bytes(f, p, n);
	return p;
}

const char *sbt_vk_t_str(sbt_vk_t *f)
{
	uint64_t r = sbt_vk_t_rand(f);
	if (r % 8 == 0)
		return NULL;
	size_t n = (size_t)(r >> 8) % 9;
	char *s = sbt_vk_t_alloc(f, n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = (char)('a' + sbt_vk_t_rand(f) % 26);
	return s;
}

const char *sbt_vk_t_str_nonnull(sbt_vk_t *f)
{
	const char *s = sbt_vk_t_str(f);
	return s ? s : "";
}

void sbt_vk_t_fixstr(sbt_vk_t *f, char *dst, size_t max)
{
	size_t lim = max > 13 ? 12 : max - 1;
	size_t n = lim ? (size_t)(sbt_vk_t_rand(f) % (lim + 1)) : 0;
	memset(dst, 0, max);
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)('A' + sbt_vk_t_rand(f) % 26);
}

uint64_t sbt_vk_t_handle(sbt_vk_t *f)
{
	uint64_t r = sbt_vk_t_rand(f);
	if (r % 8 == 0)
		return 0;
	return (r & UINT64_C(0x0000ffffffffffff)) | 1;
}

int sbt_vk_t_strdiff(const char *a, const char *b)
{
	if (!a || !b)
		return a != b;
	return strcmp(a, b) != 0;
}

int sbt_vk_t_fail(sbt_vk_c *c, const char *what)
{
	if (!c->fail)
		c->fail = what;
	return 1;
}

/* ---- the driver ---------------------------------------------------------- */

#define SBT_VK_T_BLOBS 4096

/* The blobs of one round trip, copied as the capture's blob store copies
 * them (the encoder may hand over bytes it gathered into a buffer of its
 * own, freed or out of scope when blob_put returns: a strided array's
 * packed elements). */
typedef struct sbt_vk_t_store {
	void *data[SBT_VK_T_BLOBS];
	size_t len[SBT_VK_T_BLOBS];
	size_t n;
} sbt_vk_t_store;

static int sbt_vk_t_store_put(void *ctx, const void *data, size_t len, uint64_t *id_out)
{
	sbt_vk_t_store *s = ctx;
	void *copy;
	if (s->n == SBT_VK_T_BLOBS || !(copy = malloc(len ? len : 1)))
		return -1;
	memcpy(copy, data, len);
	s->data[s->n] = copy;
	s->len[s->n] = len;
	*id_out = ++s->n;
	return 0;
}

static void sbt_vk_t_store_clear(sbt_vk_t_store *s)
{
	while (s->n)
		free(s->data[--s->n]);
}

static sbt_vk_status sbt_vk_t_store_get(void *ctx, uint64_t id, size_t len, const void **out)
{
	sbt_vk_t_store *s = ctx;
	if (id == 0 || id > s->n || s->len[id - 1] != len)
		return SBT_VK_ERR_BLOB;
	*out = s->data[id - 1];
	return SBT_VK_OK;
}

static sbt_vk_status sbt_vk_t_map(void *ctx, VkObjectType type, uint64_t captured,
                                  uint64_t *live_out)
{
	(void)ctx;
	(void)type;
	*live_out = captured ^ SBT_VK_T_MAPKEY;
	return SBT_VK_OK;
}

typedef struct sbt_vk_t_run_ctx {
	sbt_vk_t f;
	sbt_vk_arena *dec;
	sbt_vk_enc enc;
	sbt_vk_t_store *store;
	sbt_vk_decode_hooks hooks;
	sbt_vk_selftest_report *rep;
	int blobs;
} sbt_vk_t_run_ctx;

static void sbt_vk_t_round(sbt_vk_t_run_ctx *r)
{
	sbt_vk_arena_reset(r->f.a);
	sbt_vk_arena_reset(r->dec);
	r->enc.len = 0;
	sbt_vk_t_store_clear(r->store);
}

static void sbt_vk_t_report(sbt_vk_t_run_ctx *r, const char *what, const char *why)
{
	if (r->rep->failures++ == 0)
		snprintf(r->rep->first_failure, sizeof(r->rep->first_failure), "%s%s: %s",
		         r->blobs ? "(blobs) " : "", what, why);
}

static void sbt_vk_t_struct_rt(sbt_vk_t_run_ctx *r, const sbt_vk_t_struct *s,
                               const sbt_vk_t_struct *ext)
{
	sbt_vk_t_round(r);
	void *a = sbt_vk_t_alloc(&r->f, s->size);
	s->fill(&r->f, a, 0);
	if (ext) {
		void *x = sbt_vk_t_alloc(&r->f, ext->size);
		ext->fill(&r->f, x, 0);
		((VkBaseOutStructure *)a)->pNext = x;
	}
	sbt_vk_e e;
	sbt_vk_e_begin(&e, &r->enc);
	if (s->enc(&e, a) != SBT_VK_OK) {
		sbt_vk_t_report(r, s->name, "encode failed");
		return;
	}
	sbt_vk_e_commit(&e);
	if (r->enc.skipped_pnext) {
		sbt_vk_t_report(r, ext ? ext->name : s->name, "encoder skipped a carried pNext struct");
		return;
	}
	void *b = sbt_vk_arena_alloc(r->dec, s->size);
	sbt_vk_d d;
	sbt_vk_d_start(&d, r->enc.data, r->enc.len, r->dec, &r->hooks);
	sbt_vk_status st = s->dec(&d, b, s->in);
	if (st == SBT_VK_OK && d.p != d.end)
		st = sbt_vk_d_fail(&d, SBT_VK_ERR_CORRUPT, "bytes left over");
	if (st != SBT_VK_OK) {
		sbt_vk_t_report(r, s->name, sbt_vk_arena_message(r->dec));
		return;
	}
	sbt_vk_c c = {NULL};
	if (s->cmp(&c, a, b, s->in))
		sbt_vk_t_report(r, ext ? ext->name : s->name, c.fail ? c.fail : "mismatch");
}

static void sbt_vk_t_cmd_rt(sbt_vk_t_run_ctx *r, const sbt_vk_t_cmd *t)
{
	sbt_vk_t_round(r);
	size_t size = sbt_vk_args_size(t->cmd);
	void *a = sbt_vk_t_alloc(&r->f, size);
	t->fill(&r->f, a);
	r->enc.template_data_len = SBT_VK_T_TEMPLATE_LEN;
	if (sbt_vk_encode(&r->enc, t->cmd, a) != SBT_VK_OK) {
		sbt_vk_t_report(r, sbt_vk_cmd_name(t->cmd), "encode failed");
		return;
	}
	void *b = sbt_vk_arena_alloc(r->dec, size);
	sbt_vk_status st = sbt_vk_decode(t->cmd, r->enc.data, r->enc.len, r->dec, b, &r->hooks);
	if (st != SBT_VK_OK) {
		sbt_vk_t_report(r, sbt_vk_cmd_name(t->cmd), sbt_vk_arena_message(r->dec));
		return;
	}
	sbt_vk_c c = {NULL};
	if (t->cmp(&c, a, b))
		sbt_vk_t_report(r, sbt_vk_cmd_name(t->cmd), c.fail ? c.fail : "mismatch");
}

sbt_vk_status sbt_vk_t_run(uint64_t seed, sbt_vk_selftest_report *out,
                           const sbt_vk_t_struct *structs, size_t nstructs,
                           const sbt_vk_t_pair *pairs, size_t npairs,
                           const sbt_vk_t_cmd *cmds, size_t ncmds,
                           uint32_t excluded_cmds, uint32_t excluded_structs)
{
	if (!out)
		return SBT_VK_ERR_ARG;
	memset(out, 0, sizeof(*out));
	sbt_vk_status st = SBT_VK_ERR_NOMEM;
	sbt_vk_t_run_ctx r;
	memset(&r, 0, sizeof(r));
	r.rep = out;
	r.f.rng = seed ? seed : 1;
	r.store = calloc(1, sizeof(*r.store));
	if (!r.store)
		goto out;
	if (sbt_vk_arena_create((size_t)1 << 30, &r.f.a) != SBT_VK_OK)
		goto out_free_store;
	if (sbt_vk_arena_create(0, &r.dec) != SBT_VK_OK)
		goto out_free_fill;
	sbt_vk_enc_init(&r.enc);
	r.hooks.ctx = r.store;
	r.hooks.map_handle = sbt_vk_t_map;
	/* Twice: bytes inline, then every array of 8 bytes or more as a blob. */
	for (r.blobs = 0; r.blobs < 2; r.blobs++) {
		r.enc.blob_threshold = r.blobs ? 8 : 0;
		r.enc.blob_put = r.blobs ? sbt_vk_t_store_put : NULL;
		r.enc.blob_ctx = r.store;
		r.hooks.load_blob = r.blobs ? sbt_vk_t_store_get : NULL;
		for (size_t i = 0; i < nstructs; i++)
			sbt_vk_t_struct_rt(&r, &structs[i], NULL);
		for (size_t i = 0; i < npairs; i++)
			sbt_vk_t_struct_rt(&r, &structs[pairs[i].base], &structs[pairs[i].ext]);
		for (size_t i = 0; i < ncmds; i++)
			sbt_vk_t_cmd_rt(&r, &cmds[i]);
	}
	out->structs = (uint32_t)nstructs;
	out->pnext_pairs = (uint32_t)npairs;
	out->commands = (uint32_t)ncmds;
	out->excluded_cmds = excluded_cmds;
	out->excluded_structs = excluded_structs;
	st = SBT_VK_OK;
	sbt_vk_enc_free(&r.enc);
	sbt_vk_arena_free(r.dec);
out_free_fill:
	sbt_vk_arena_free(r.f.a);
out_free_store:
	sbt_vk_t_store_clear(r.store);
	free(r.store);
out:
	return st;
}
