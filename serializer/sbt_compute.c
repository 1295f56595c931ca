/*
 * sbt_compute.c - the compute record model's tables and its payload codec.
 * The encoding is specified in sbt_compute.h (PAYLOAD); docs/cuda.md
 * repeats it for readers.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "serializer/sbt_format.h"
#include "serializer/sbt_varint.h"

enum { SBT_CM_WIRE_U = 0, SBT_CM_WIRE_S = 1, SBT_CM_WIRE_B = 2 };

/* The highest tag the field list uses bounds the duplicate-field bitmap. */
#define SBT_CM_MAX_TAG 127u

/* ---- kinds ---------------------------------------------------------------- */

static const char *const sbt_cm_kind_names[SBT_CM_KIND_COUNT] = {
#define SBT_CM_X_NAME(n) #n,
	SBT_CM_KIND_LIST(SBT_CM_X_NAME)
#undef SBT_CM_X_NAME
};

static const char *const sbt_cm_type_names[SBT_CM_KIND_COUNT] = {
#define SBT_CM_X_TNAME(n) SBT_CM_API_CUDA "." #n,
	SBT_CM_KIND_LIST(SBT_CM_X_TNAME)
#undef SBT_CM_X_TNAME
};

static const sbt_cm_type_desc sbt_cm_type_table[SBT_CM_KIND_COUNT] = {
#define SBT_CM_X_DESC(n) {SBT_CM_TYPE(SBT_CM_K_##n), SBT_CM_API_CUDA "." #n},
	SBT_CM_KIND_LIST(SBT_CM_X_DESC)
#undef SBT_CM_X_DESC
};

static const char *const sbt_cm_hip_names[SBT_CM_HIP_COUNT] = {
#define SBT_CM_X_HNAME(n, kind) #n,
	SBT_CM_HIP_LIST(SBT_CM_X_HNAME)
#undef SBT_CM_X_HNAME
};

static const sbt_cm_kind sbt_cm_hip_kinds[SBT_CM_HIP_COUNT] = {
#define SBT_CM_X_HKIND(n, kind) SBT_CM_K_##kind,
	SBT_CM_HIP_LIST(SBT_CM_X_HKIND)
#undef SBT_CM_X_HKIND
};

static const sbt_cm_type_desc sbt_cm_hip_type_table[SBT_CM_HIP_COUNT] = {
#define SBT_CM_X_HDESC(n, kind) {SBT_CM_HIP_TYPE(SBT_CM_HIP_##n), SBT_CM_API_HIP "." #n},
	SBT_CM_HIP_LIST(SBT_CM_X_HDESC)
#undef SBT_CM_X_HDESC
};

const char *sbt_cm_hip_name(sbt_cm_hip_call call)
{
	return (unsigned)call < SBT_CM_HIP_COUNT ? sbt_cm_hip_names[call] : NULL;
}

const char *sbt_cm_hip_type_name(sbt_cm_hip_call call)
{
	return (unsigned)call < SBT_CM_HIP_COUNT ? sbt_cm_hip_type_table[call].name : NULL;
}

int sbt_cm_hip_kind(sbt_cm_hip_call call, sbt_cm_kind *kind_out)
{
	if ((unsigned)call >= SBT_CM_HIP_COUNT)
		return -1;
	if (kind_out)
		*kind_out = sbt_cm_hip_kinds[call];
	return 0;
}

const sbt_cm_type_desc *sbt_cm_hip_types(size_t *count_out)
{
	if (count_out)
		*count_out = SBT_CM_HIP_COUNT;
	return sbt_cm_hip_type_table;
}

const char *sbt_cm_kind_name(sbt_cm_kind k)
{
	return (unsigned)k < SBT_CM_KIND_COUNT ? sbt_cm_kind_names[k] : NULL;
}

const char *sbt_cm_type_name(sbt_cm_kind k)
{
	return (unsigned)k < SBT_CM_KIND_COUNT ? sbt_cm_type_names[k] : NULL;
}

int sbt_cm_kind_by_name(const char *name, sbt_cm_kind *kind_out)
{
	size_t plen = strlen(SBT_CM_API_CUDA ".");
	size_t hlen = strlen(SBT_CM_API_HIP ".");
	if (!name)
		return -1;
	if (strncmp(name, SBT_CM_API_HIP ".", hlen) == 0) {
		for (unsigned i = 0; i < SBT_CM_HIP_COUNT; i++) {
			if (strcmp(sbt_cm_hip_names[i], name + hlen) == 0) {
				if (kind_out)
					*kind_out = sbt_cm_hip_kinds[i];
				return 0;
			}
		}
		return -1;
	}
	if (strncmp(name, SBT_CM_API_CUDA ".", plen) == 0)
		name += plen;
	for (unsigned i = 0; i < SBT_CM_KIND_COUNT; i++) {
		if (strcmp(sbt_cm_kind_names[i], name) == 0) {
			if (kind_out)
				*kind_out = (sbt_cm_kind)i;
			return 0;
		}
	}
	return -1;
}

const sbt_cm_type_desc *sbt_cm_types(size_t *count_out)
{
	if (count_out)
		*count_out = SBT_CM_KIND_COUNT;
	return sbt_cm_type_table;
}

sbt_status sbt_cm_define_types(sbt_writer *w)
{
	for (unsigned i = 0; i < SBT_CM_KIND_COUNT; i++) {
		sbt_status st = sbt_writer_define_type(w, sbt_cm_type_table[i].type,
		                                       sbt_cm_type_table[i].name);
		if (st != SBT_OK)
			return st;
	}
	return SBT_OK;
}

/* ---- fields ---------------------------------------------------------------- */

void sbt_cm_call_init(sbt_cm_call *c)
{
	memset(c, 0, sizeof(*c));
}

const char *sbt_cm_field_name(unsigned tag)
{
	switch (tag) {
#define SBT_CM_X_FNAME(t, n, w) \
	case t:                     \
		return #n;
		SBT_CM_FIELD_LIST(SBT_CM_X_FNAME)
#undef SBT_CM_X_FNAME
	default:
		return NULL;
	}
}

#define SBT_CM_X_TAGCHECK(t, n, w) \
	_Static_assert((t) > 0 && (t) <= SBT_CM_MAX_TAG, "field tag " #n " out of range");
SBT_CM_FIELD_LIST(SBT_CM_X_TAGCHECK)
#undef SBT_CM_X_TAGCHECK

/* ---- encode ---------------------------------------------------------------- */

#define SBT_CM_BOUND_U(name) n += 20;
#define SBT_CM_BOUND_S(name) n += 20;
#define SBT_CM_BOUND_B(name) n += 20 + c->name##_len;

size_t sbt_cm_encoded_max(const sbt_cm_call *c)
{
	size_t n = 0;
#define SBT_CM_X_BOUND(t, name, w) SBT_CM_BOUND_##w(name)
	SBT_CM_FIELD_LIST(SBT_CM_X_BOUND)
#undef SBT_CM_X_BOUND
	return n;
}

/* Writer over a bounded buffer; `over` records running past cap. */
typedef struct sbt_cm_out {
	uint8_t *p;
	size_t len;
	size_t cap;
	int over;
} sbt_cm_out;

static void sbt_cm_put_varint(sbt_cm_out *o, uint64_t v)
{
	uint8_t tmp[10];
	size_t k = sbt_varint_put(tmp, v);
	if (o->over || o->cap - o->len < k) {
		o->over = 1;
		return;
	}
	memcpy(o->p + o->len, tmp, k);
	o->len += k;
}

static void sbt_cm_put_u(sbt_cm_out *o, unsigned tag, uint64_t v)
{
	if (!v)
		return;
	sbt_cm_put_varint(o, (uint64_t)tag << 2 | SBT_CM_WIRE_U);
	sbt_cm_put_varint(o, v);
}

static void sbt_cm_put_s(sbt_cm_out *o, unsigned tag, int64_t v)
{
	if (!v)
		return;
	sbt_cm_put_varint(o, (uint64_t)tag << 2 | SBT_CM_WIRE_S);
	sbt_cm_put_varint(o, sbt_fmt_zigzag(v));
}

static void sbt_cm_put_b(sbt_cm_out *o, unsigned tag, const uint8_t *b, size_t len)
{
	if (!len)
		return;
	sbt_cm_put_varint(o, (uint64_t)tag << 2 | SBT_CM_WIRE_B);
	sbt_cm_put_varint(o, len);
	if (o->over || o->cap - o->len < len) {
		o->over = 1;
		return;
	}
	memcpy(o->p + o->len, b, len);
	o->len += len;
}

#define SBT_CM_ENC_U(t, name) sbt_cm_put_u(&o, t, c->name);
#define SBT_CM_ENC_S(t, name) sbt_cm_put_s(&o, t, c->name);
#define SBT_CM_ENC_B(t, name) sbt_cm_put_b(&o, t, c->name, c->name##_len);

sbt_status sbt_cm_encode(const sbt_cm_call *c, uint8_t *buf, size_t cap, size_t *len_out)
{
	sbt_cm_out o = {buf, 0, cap, 0};
	if (!c || (!buf && cap) || !len_out)
		return SBT_ERR_ARG;
	if (c->layout_len % SBT_CM_LAYOUT_BYTES || c->attrs_len % SBT_CM_ATTR_BYTES)
		return SBT_ERR_ARG;
#define SBT_CM_X_ENC(t, name, w) SBT_CM_ENC_##w(t, name)
	SBT_CM_FIELD_LIST(SBT_CM_X_ENC)
#undef SBT_CM_X_ENC
	if (o.over)
		return SBT_ERR_ARG;
	*len_out = o.len;
	return SBT_OK;
}

/* ---- decode ---------------------------------------------------------------- */

/* What no encoder writes: packed arrays that are not whole entries, a
 * name or note with a NUL inside (the interposer writes strlen bytes).  A
 * layout entry past the parameter bytes is not one of them (the layout
 * comes from cuFuncGetParamInfo, the bytes from the program's `extra`):
 * the replayer checks it before a launch (sbt_cm_check_params). */
static int sbt_cm_decoded_valid(const sbt_cm_call *c)
{
	if (c->layout_len % SBT_CM_LAYOUT_BYTES || c->attrs_len % SBT_CM_ATTR_BYTES ||
	    c->jit_len % SBT_CM_JIT_BYTES || c->prelinked_len % 8 || c->deps_len % 8 ||
	    c->deps_to_len % 8)
		return 0;
	if ((c->name_len && memchr(c->name, 0, c->name_len)) ||
	    (c->note_len && memchr(c->note, 0, c->note_len)))
		return 0;
	return 1;
}

/*
 * The decoder's table, indexed by a field's key (tag << 2 | wire) for tags
 * up to SBT_CM_MAX_TAG: what a key below SBT_CM_SLOT_COUNT means, so that a
 * field costs one look-up and one store instead of a switch on the tag and
 * a check of the wire type.  A tag of this version has an entry for each of
 * wires 0..2: the one it is written with stores the value at its member's
 * offset, the other two are corrupt.  Other tags are skipped (zero entry:
 * SBT_CM_SLOT_SKIP).  Wire 3 and tag 0 are refused before the look-up.
 */
enum { SBT_CM_SLOT_SKIP = 0, SBT_CM_SLOT_U, SBT_CM_SLOT_S, SBT_CM_SLOT_B, SBT_CM_SLOT_CORRUPT };

typedef struct sbt_cm_slot {
	uint16_t off; /* offsetof the member in sbt_cm_call (a B field's length follows its pointer) */
	uint8_t act;  /* SBT_CM_SLOT_* */
} sbt_cm_slot;

#define SBT_CM_SLOT_COUNT (4u * (SBT_CM_MAX_TAG + 1))

#define SBT_CM_WNUM_U SBT_CM_WIRE_U
#define SBT_CM_WNUM_S SBT_CM_WIRE_S
#define SBT_CM_WNUM_B SBT_CM_WIRE_B
#define SBT_CM_SLOT_ACT(w, wire) ((SBT_CM_WNUM_##w) == (wire) ? SBT_CM_SLOT_##w : SBT_CM_SLOT_CORRUPT)
#define SBT_CM_X_SLOT(t, name, w)                                                              \
	[(t) * 4 + 0] = {offsetof(sbt_cm_call, name), SBT_CM_SLOT_ACT(w, 0)},                      \
	[(t) * 4 + 1] = {offsetof(sbt_cm_call, name), SBT_CM_SLOT_ACT(w, 1)},                      \
	[(t) * 4 + 2] = {offsetof(sbt_cm_call, name), SBT_CM_SLOT_ACT(w, 2)},
static const sbt_cm_slot sbt_cm_slots[SBT_CM_SLOT_COUNT] = {
	SBT_CM_FIELD_LIST(SBT_CM_X_SLOT)
};
#undef SBT_CM_X_SLOT

_Static_assert(sizeof(sbt_cm_call) <= UINT16_MAX, "member offsets fit the decoder's table");
#define SBT_CM_LENCHECK_U(name)
#define SBT_CM_LENCHECK_S(name)
#define SBT_CM_LENCHECK_B(name)                                                                 \
	_Static_assert(offsetof(sbt_cm_call, name##_len) == offsetof(sbt_cm_call, name) + sizeof(const uint8_t *), \
	               "the length of " #name " follows its pointer");
#define SBT_CM_X_LENCHECK(t, name, w) SBT_CM_LENCHECK_##w(name)
SBT_CM_FIELD_LIST(SBT_CM_X_LENCHECK)
#undef SBT_CM_X_LENCHECK

/* sbt_varint_get, with the unchecked fast path where 8 bytes are left
 * (sbt_varint.h: the same value and length for every input). */
static inline int sbt_cm_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	if (end - *p >= 8) {
		size_t n = sbt_varint_peek8(*p, v);
		if (n) {
			*p += n;
			return 0;
		}
	}
	return sbt_varint_get(p, end, v);
}

/* Decoded straight into *c (zeroed first; zeroed again when the payload is
 * refused).  Where 16 bytes are left, a field's key and value take the
 * unchecked varint path together. */
sbt_status sbt_cm_decode(const uint8_t *p, size_t len, sbt_cm_call *c)
{
	const uint8_t *end;
	uint64_t seen[(SBT_CM_MAX_TAG + 64) / 64] = {0};
	if (!c || (!p && len))
		return SBT_ERR_ARG;
	memset(c, 0, sizeof(*c));
	end = len ? p + len : p; /* an empty payload's p may be NULL */
	while (p < end) {
		uint64_t key, v, bit;
		unsigned wire, act;
		size_t nk, nv;
		uint8_t *dst;
		if (end - p >= 16 && (nk = sbt_varint_peek8(p, &key)) != 0 &&
		    (nv = sbt_varint_peek8(p + nk, &v)) != 0) {
			p += nk + nv;
		} else if (sbt_cm_varint(&p, end, &key) || sbt_cm_varint(&p, end, &v)) {
			goto out_corrupt;
		}
		wire = (unsigned)(key & 3);
		if (wire > SBT_CM_WIRE_B || key < 4)
			goto out_corrupt; /* no wire 3, no tag 0 */
		if (wire == SBT_CM_WIRE_B && v > (uint64_t)(end - p))
			goto out_corrupt;
		act = key < SBT_CM_SLOT_COUNT ? sbt_cm_slots[key].act : SBT_CM_SLOT_SKIP;
		if (act - SBT_CM_SLOT_U > SBT_CM_SLOT_B - SBT_CM_SLOT_U) {
			if (act == SBT_CM_SLOT_CORRUPT)
				goto out_corrupt; /* a field of this version with another wire type */
			if (wire == SBT_CM_WIRE_B)
				p += v;
			continue; /* a newer field: skipped by its wire type */
		}
		bit = 1ull << (key >> 2) % 64;
		if (seen[key >> 8] & bit)
			goto out_corrupt; /* the same field twice */
		seen[key >> 8] |= bit;
		dst = (uint8_t *)c + sbt_cm_slots[key].off;
		if (act == SBT_CM_SLOT_B) {
			size_t n = (size_t)v;
			memcpy(dst, &p, sizeof(p));
			memcpy(dst + sizeof(p), &n, sizeof(n));
			p += v;
		} else {
			if (act == SBT_CM_SLOT_S)
				v = (uint64_t)sbt_fmt_unzigzag(v);
			memcpy(dst, &v, sizeof(v));
		}
	}
	if (!sbt_cm_decoded_valid(c))
		goto out_corrupt;
	return SBT_OK;

out_corrupt:
	memset(c, 0, sizeof(*c));
	return SBT_ERR_CORRUPT;
}

/* ---- packed arrays ----------------------------------------------------------- */

size_t sbt_cm_layout_count(const sbt_cm_call *c)
{
	return c->layout_len / SBT_CM_LAYOUT_BYTES;
}

void sbt_cm_layout_at(const sbt_cm_call *c, size_t i, uint32_t *offset_out, uint32_t *size_out)
{
	const uint8_t *e = c->layout + i * SBT_CM_LAYOUT_BYTES;
	*offset_out = sbt_fmt_load_u32(e);
	*size_out = sbt_fmt_load_u32(e + 4);
}

size_t sbt_cm_attr_count(const sbt_cm_call *c)
{
	return c->attrs_len / SBT_CM_ATTR_BYTES;
}

void sbt_cm_attr_at(const sbt_cm_call *c, size_t i, uint32_t *id_out, const uint8_t **value_out)
{
	const uint8_t *e = c->attrs + i * SBT_CM_ATTR_BYTES;
	*id_out = sbt_fmt_load_u32(e);
	*value_out = e + 8;
}

void sbt_cm_layout_put(uint8_t *dst, uint32_t offset, uint32_t size)
{
	sbt_fmt_store_u32(dst, offset);
	sbt_fmt_store_u32(dst + 4, size);
}

void sbt_cm_attr_put(uint8_t *dst, uint32_t id, const void *value64)
{
	sbt_fmt_store_u32(dst, id);
	memset(dst + 4, 0, 4);
	memcpy(dst + 8, value64, 64);
}

int sbt_cm_check_params(const sbt_cm_call *c)
{
	size_t n = sbt_cm_layout_count(c);
	for (size_t i = 0; i < n; i++) {
		uint32_t off, size;
		sbt_cm_layout_at(c, i, &off, &size);
		if ((uint64_t)off + size > c->params_len)
			return -1;
	}
	return 0;
}

/* ---- module images ----------------------------------------------------------- */

/* End of a 64-bit little-endian ELF image: the furthest of its header
 * tables and of the file-backed sections. */
static size_t sbt_cm_elf_size(const uint8_t *p, size_t max)
{
	uint64_t shoff, phoff, end;
	uint16_t shentsize, shnum, phentsize, phnum;
	if (max < 64 || p[4] != 2 /* ELFCLASS64 */ || p[5] != 1 /* little-endian */)
		return 0;
	phoff = sbt_fmt_load_u64(p + 32);
	shoff = sbt_fmt_load_u64(p + 40);
	phentsize = sbt_fmt_load_u16(p + 54);
	phnum = sbt_fmt_load_u16(p + 56);
	shentsize = sbt_fmt_load_u16(p + 58);
	shnum = sbt_fmt_load_u16(p + 60);
	end = 64;
	if (phnum && phoff + (uint64_t)phnum * phentsize > end)
		end = phoff + (uint64_t)phnum * phentsize;
	if (shnum && shentsize >= 64) {
		uint64_t shend = shoff + (uint64_t)shnum * shentsize;
		if (shoff > max || shend > max || shend < shoff)
			return 0;
		if (shend > end)
			end = shend;
		for (uint16_t i = 0; i < shnum; i++) {
			const uint8_t *sh = p + shoff + (uint64_t)i * shentsize;
			uint32_t type = sbt_fmt_load_u32(sh + 4);
			uint64_t off = sbt_fmt_load_u64(sh + 24);
			uint64_t size = sbt_fmt_load_u64(sh + 32);
			if (type == 8 /* SHT_NOBITS */ || off + size < off)
				continue;
			if (off + size > end)
				end = off + size;
		}
	}
	return end <= max ? (size_t)end : 0;
}

size_t sbt_cm_image_size(const void *image, size_t max, unsigned *kind_out)
{
	const uint8_t *p = image;
	size_t n = 0;
	unsigned kind = SBT_CM_IMAGE_UNKNOWN;
	if (!p || max < 4)
		goto out;
	if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
		n = sbt_cm_elf_size(p, max);
		kind = n ? SBT_CM_IMAGE_ELF : SBT_CM_IMAGE_UNKNOWN;
	} else if (max >= SBT_CM_FATBIN_WRAPPER_BYTES &&
	           sbt_fmt_load_u32(p) == SBT_CM_FATBIN_WRAPPER_MAGIC) {
		n = SBT_CM_FATBIN_WRAPPER_BYTES;
		kind = SBT_CM_IMAGE_WRAPPER;
	} else if (max >= 16 && sbt_fmt_load_u32(p) == SBT_CM_FATBIN_MAGIC) {
		uint64_t hs = sbt_fmt_load_u16(p + 6), body = sbt_fmt_load_u64(p + 8);
		if (hs >= 16 && body <= max && hs + body <= max) {
			n = (size_t)(hs + body);
			kind = SBT_CM_IMAGE_FATBIN;
		}
	} else {
		/* PTX is text: everything up to and with its terminating NUL. */
		size_t i = 0;
		while (i < max && p[i] && (p[i] >= 0x20 || p[i] == '\n' || p[i] == '\r' ||
		                           p[i] == '\t'))
			i++;
		if (i < max && p[i] == 0 && i > 0) {
			n = i + 1;
			kind = SBT_CM_IMAGE_PTX;
		}
	}
out:
	if (kind_out)
		*kind_out = kind;
	return n;
}

const void *sbt_cm_wrapper_fatbin(const void *image, unsigned *version_out)
{
	const uint8_t *p = image;
	const void *fatbin = NULL;
	unsigned version = 0;
	if (p && sbt_fmt_load_u32(p) == SBT_CM_FATBIN_WRAPPER_MAGIC) {
		version = sbt_fmt_load_u32(p + 4);
		fatbin = (const void *)(uintptr_t)sbt_fmt_load_u64(p + 8);
	}
	if (version_out)
		*version_out = version;
	return fatbin;
}

const void *const *sbt_cm_wrapper_prelinked(const void *image)
{
	const uint8_t *p = image;
	if (!p || sbt_fmt_load_u32(p) != SBT_CM_FATBIN_WRAPPER_MAGIC || sbt_fmt_load_u32(p + 4) != 2)
		return NULL;
	return (const void *const *)(uintptr_t)sbt_fmt_load_u64(p + 16);
}

/* ---- dump -------------------------------------------------------------------- */

#define SBT_CM_DUMP_U(name) \
	if (c.name)             \
		sbt_cm_dump_u(e, #name, c.name);
#define SBT_CM_DUMP_S(name) \
	if (c.name)             \
		sbt_cm_dump_signed(e, #name, c.name);
#define SBT_CM_DUMP_B(name) \
	if (c.name##_len)       \
		sbt_cm_dump_bytes(e, #name, c.name, c.name##_len);

/* dst, src and host hold addresses: hex in JSON, like Vulkan handles. */
static void sbt_cm_dump_u(sbt_dump_emit *e, const char *key, uint64_t v)
{
	if (strcmp(key, "dst") == 0 || strcmp(key, "src") == 0 || strcmp(key, "host") == 0)
		sbt_dump_emit_addr(e, key, v);
	else
		sbt_dump_emit_u64(e, key, v);
}

static void sbt_cm_dump_signed(sbt_dump_emit *e, const char *key, int64_t v)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%lld", (long long)v);
	sbt_dump_emit_num(e, key, buf, (size_t)n);
}

static void sbt_cm_dump_bytes(sbt_dump_emit *e, const char *key, const uint8_t *p, size_t n)
{
	if (strcmp(key, "name") == 0 || strcmp(key, "note") == 0)
		sbt_dump_emit_str(e, key, (const char *)p, n);
	else
		sbt_dump_emit_bytes(e, key, p, n, 32);
}

static sbt_status sbt_cm_dump_one(sbt_dump_emit *e, const sbt_reader *r, const sbt_record *rec)
{
	sbt_cm_call c;
	(void)r;
	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK)
		return SBT_ERR_CORRUPT;
#define SBT_CM_X_DUMP(t, name, w) SBT_CM_DUMP_##w(name)
	SBT_CM_FIELD_LIST(SBT_CM_X_DUMP)
#undef SBT_CM_X_DUMP
	return SBT_OK;
}

sbt_status sbt_cm_dump_register(struct sbt_dump *d)
{
	for (unsigned i = 0; i < SBT_CM_KIND_COUNT; i++) {
		sbt_status st = sbt_dump_register(d, sbt_cm_type_names[i], sbt_cm_dump_one);
		if (st != SBT_OK)
			return st;
	}
	for (unsigned i = 0; i < SBT_CM_HIP_COUNT; i++) {
		sbt_status st = sbt_dump_register(d, sbt_cm_hip_type_table[i].name, sbt_cm_dump_one);
		if (st != SBT_OK)
			return st;
	}
	return SBT_OK;
}
