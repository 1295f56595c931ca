/*
 * sbt_vk_selftest_support.h - what the generated codec self-test
 * (serializer/generated/sbt_vk_selftest.c) is built on: seeded pseudo-random
 * fill helpers, the comparison context, and the driver that round-trips the
 * generated tables.  Internal to the serializer.
 */
#ifndef TRACESMITH_SBT_VK_SELFTEST_SUPPORT_H
#define TRACESMITH_SBT_VK_SELFTEST_SUPPORT_H

#include <stdint.h>

#include "serializer/sbt_vk_internal.h"

/* ---- the self-test's entry point (serializer/generated/sbt_vk_selftest.c;
 * linked into the test binaries only, libtstestsupport.a) -------------- */

typedef struct sbt_vk_selftest_report {
	uint32_t commands;        /* command argument sets round-tripped */
	uint32_t structs;         /* struct types round-tripped on their own */
	uint32_t pnext_pairs;     /* (base, extending struct) chains round-tripped */
	uint32_t excluded_cmds;   /* commands the codec does not carry */
	uint32_t excluded_structs;
	uint32_t failures;
	char first_failure[256];  /* "VkFoo.pBar[1].x: 5 != 7" */
} sbt_vk_selftest_report;

/* Fill every struct and command with pseudo-random data consistent with its
 * length members (seeded), encode, decode, compare deeply. */
sbt_vk_status sbt_vk_selftest_run(uint64_t seed, sbt_vk_selftest_report *out);

/* Bytes the self-test gives the template data of
 * vkUpdateDescriptorSetWithTemplate* (sbt_vk_enc.template_data_len). */
#define SBT_VK_T_TEMPLATE_LEN 16
/* Pointer members deeper than this stay NULL (bounds recursion). */
#define SBT_VK_T_MAX_DEPTH 4
/* ... except pointers the decoder requires (an absent one is refused as
 * SBT_VK_ERR_INVALID), which go this much deeper. */
#define SBT_VK_T_MORE_DEPTH 8
/* The test's handle map: input handles come back XORed with this. */
#define SBT_VK_T_MAPKEY UINT64_C(0x4000000000000000)

typedef struct sbt_vk_t {
	uint64_t rng;
	sbt_vk_arena *a; /* everything filled lives here until the next round */
} sbt_vk_t;

typedef struct sbt_vk_c {
	const char *fail; /* first mismatching "Struct.member" */
} sbt_vk_c;

typedef struct sbt_vk_t_struct {
	const char *name;
	size_t size;
	int in;         /* 0: returned-only (its handles are outputs, not mapped) */
	int has_chain;  /* has a pNext chain */
	void (*fill)(sbt_vk_t *f, void *s, int depth);
	sbt_vk_status (*enc)(sbt_vk_e *e, const void *s);
	sbt_vk_status (*dec)(sbt_vk_d *d, void *s, int in);
	int (*cmp)(sbt_vk_c *c, const void *a, const void *b, int in);
} sbt_vk_t_struct;

typedef struct sbt_vk_t_pair {
	uint16_t base, ext; /* indexes into the struct table */
} sbt_vk_t_pair;

typedef struct sbt_vk_t_cmd {
	enum sbt_vk_cmd cmd;
	void (*fill)(sbt_vk_t *f, void *args);
	int (*cmp)(sbt_vk_c *c, const void *a, const void *b);
} sbt_vk_t_cmd;

uint64_t sbt_vk_t_rand(sbt_vk_t *f);
void *sbt_vk_t_alloc(sbt_vk_t *f, size_t n);          /* zeroed; never NULL */
void sbt_vk_t_bytes(sbt_vk_t *f, void *p, size_t n);  /* random bytes */
void *sbt_vk_t_blob(sbt_vk_t *f, size_t n);           /* n random bytes */
const char *sbt_vk_t_str(sbt_vk_t *f);                /* short string or NULL */
const char *sbt_vk_t_str_nonnull(sbt_vk_t *f);        /* never NULL: a required one */
void sbt_vk_t_fixstr(sbt_vk_t *f, char *dst, size_t max);
uint64_t sbt_vk_t_handle(sbt_vk_t *f);                /* 0 sometimes */
static inline uint64_t sbt_vk_t_mapped(uint64_t v, int in)
{
	return in && v ? v ^ SBT_VK_T_MAPKEY : v;
}
int sbt_vk_t_strdiff(const char *a, const char *b);
int sbt_vk_t_fail(sbt_vk_c *c, const char *what); /* records, returns 1 */

sbt_vk_status sbt_vk_t_run(uint64_t seed, sbt_vk_selftest_report *out,
                           const sbt_vk_t_struct *structs, size_t nstructs,
                           const sbt_vk_t_pair *pairs, size_t npairs,
                           const sbt_vk_t_cmd *cmds, size_t ncmds,
                           uint32_t excluded_cmds, uint32_t excluded_structs);

#endif /* TRACESMITH_SBT_VK_SELFTEST_SUPPORT_H */
