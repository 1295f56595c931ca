/*
 * sbt_amd_meta.c - the kernels of an AMDGPU code object and their
 * argument layout, from its metadata note (sbt_amd.h, FORMATS), read with
 * the libraries made for it: libelf finds the note, msgpack-c decodes it.
 * The bytes are untrusted (a trace's blob on replay): libelf gets a
 * private copy, every msgpack object's type is checked before use, and
 * what is kept is copied out into one allocation the caller frees.
 */
#include <gelf.h>
#include <libelf.h>
#include <msgpack.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/amdgpu/sbt_amd.h"

struct sbt_amd_meta {
	size_t count;
	sbt_amd_kernel *kernels;
	sbt_amd_arg *args;  /* every kernel's, one after the other */
	char *strings;      /* names and symbols, NUL-terminated */
};

/* A kernel count or argument count past these is refused as malformed
 * (real code objects hold tens of kernels with tens of arguments). */
#define SBT_AMD_MAX_KERNELS 65536u
#define SBT_AMD_MAX_ARGS 4096u

void sbt_amd_why(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	if (!why || !n)
		return;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

/*
 * A guard in front of msgpack-c, not a reader: msgpack-c allocates an
 * array's or map's elements as soon as it reads the count (a 5-byte header
 * can ask for 2^32 elements, about 100 GB).  This walks the object's
 * headers only, and refuses it when a container declares more elements than
 * bytes remain (every element takes at least one), which bounds what
 * msgpack-c allocates to a small multiple of len.  Types follow the
 * MessagePack specification's first-byte table.
 */
static int sbt_amd_mp_plausible(const uint8_t *p, size_t len)
{
	size_t pos = 0;
	uint64_t pending = 1;
	while (pending) {
		uint8_t b;
		uint64_t skip = 0, n = 0, elems = 0;
		unsigned w = 0;
		if (pos >= len)
			return 0;
		b = p[pos++];
		pending--;
		if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
			continue;
		if (b >= 0x80 && b <= 0x8f)
			elems = 2u * (b & 0x0f);
		else if (b >= 0x90 && b <= 0x9f)
			elems = b & 0x0f;
		else if (b >= 0xa0 && b <= 0xbf)
			skip = b & 0x1f;
		else if (b >= 0xc4 && b <= 0xc6)
			w = 1u << (b - 0xc4); /* bin 8/16/32: length, bytes */
		else if (b >= 0xc7 && b <= 0xc9)
			w = 1u << (b - 0xc7); /* ext 8/16/32: length, type, bytes */
		else if (b == 0xca || b == 0xcb)
			skip = b == 0xca ? 4 : 8;
		else if (b >= 0xcc && b <= 0xd3)
			skip = 1u << ((b - 0xcc) & 3);
		else if (b >= 0xd4 && b <= 0xd8)
			skip = 1 + (1u << (b - 0xd4)); /* fixext: type, 1..16 bytes */
		else if (b >= 0xd9 && b <= 0xdb)
			w = 1u << (b - 0xd9); /* str 8/16/32 */
		else if (b == 0xdc || b == 0xdd || b == 0xde || b == 0xdf)
			w = (b & 1) ? 4 : 2; /* array/map 16/32: count */
		else
			return 0; /* 0xc1: never used */
		if (w) {
			if (len - pos < w)
				return 0;
			for (unsigned i = 0; i < w; i++)
				n = n << 8 | p[pos + i];
			pos += w;
			if (b >= 0xdc)
				elems = b >= 0xde ? 2 * n : n;
			else
				skip = n + (b >= 0xc7 && b <= 0xc9); /* ext: its type byte */
		}
		if (skip > len - pos || elems > len - pos)
			return 0;
		pos += (size_t)skip;
		pending += elems;
	}
	return 1;
}

/* The value of key in map m; NULL when m is not a map or has no such key. */
static const msgpack_object *sbt_amd_map_get(const msgpack_object *m, const char *key)
{
	size_t klen = strlen(key);
	if (!m || m->type != MSGPACK_OBJECT_MAP)
		return NULL;
	for (uint32_t i = 0; i < m->via.map.size; i++) {
		const msgpack_object_kv *kv = &m->via.map.ptr[i];
		if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == klen &&
		    memcmp(kv->key.via.str.ptr, key, klen) == 0)
			return &kv->val;
	}
	return NULL;
}

static int sbt_amd_get_u64(const msgpack_object *o, uint64_t *out)
{
	if (!o || o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
		return -1;
	*out = o->via.u64;
	return 0;
}

static int sbt_amd_is_str(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);
	return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	       memcmp(o->via.str.ptr, s, n) == 0;
}

static int sbt_amd_str_prefix(const msgpack_object *o, const char *s)
{
	size_t n = strlen(s);
	return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size >= n &&
	       memcmp(o->via.str.ptr, s, n) == 0;
}

static sbt_amd_arg_kind sbt_amd_arg_kind_of(const msgpack_object *vk)
{
	if (sbt_amd_is_str(vk, "global_buffer"))
		return SBT_AMD_ARG_GLOBAL_BUFFER;
	if (sbt_amd_is_str(vk, "by_value"))
		return SBT_AMD_ARG_BY_VALUE;
	if (sbt_amd_str_prefix(vk, "hidden_"))
		return SBT_AMD_ARG_HIDDEN;
	return SBT_AMD_ARG_OTHER;
}

/* Build the result from the "amdhsa.kernels" array ks (already checked to
 * be an array). */
static sbt_amd_status sbt_amd_meta_build(const msgpack_object *ks, sbt_amd_meta **out, char *why,
                                         size_t n)
{
	sbt_amd_meta *m = NULL;
	size_t nargs = 0, nstr = 0, ai = 0, si = 0;
	sbt_amd_status st = SBT_AMD_ERR_METADATA;
	uint32_t count = ks->via.array.size;

	if (count > SBT_AMD_MAX_KERNELS) {
		sbt_amd_why(why, n, "amdhsa.kernels holds %u entries", count);
		goto out;
	}
	/* First pass: check every kernel and count what it needs. */
	for (uint32_t k = 0; k < count; k++) {
		const msgpack_object *kd = &ks->via.array.ptr[k];
		const msgpack_object *name = sbt_amd_map_get(kd, ".name");
		const msgpack_object *sym = sbt_amd_map_get(kd, ".symbol");
		const msgpack_object *args = sbt_amd_map_get(kd, ".args");
		if (!name || name->type != MSGPACK_OBJECT_STR || name->via.str.size == 0 ||
		    memchr(name->via.str.ptr, 0, name->via.str.size)) {
			sbt_amd_why(why, n, "kernel %u has no .name string", k);
			goto out;
		}
		if (sym && (sym->type != MSGPACK_OBJECT_STR || memchr(sym->via.str.ptr, 0, sym->via.str.size))) {
			sbt_amd_why(why, n, "kernel %u: .symbol is not a string", k);
			goto out;
		}
		nstr += (size_t)name->via.str.size + 1 + (sym ? (size_t)sym->via.str.size : 0) + 1;
		if (args) {
			if (args->type != MSGPACK_OBJECT_ARRAY || args->via.array.size > SBT_AMD_MAX_ARGS) {
				sbt_amd_why(why, n, "kernel %u: .args is not an array of at most %u",
				            k, SBT_AMD_MAX_ARGS);
				goto out;
			}
			nargs += args->via.array.size;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		goto out_nomem;
	m->count = count;
	m->kernels = calloc(count ? count : 1, sizeof(*m->kernels));
	m->args = calloc(nargs ? nargs : 1, sizeof(*m->args));
	m->strings = malloc(nstr ? nstr : 1);
	if (!m->kernels || !m->args || !m->strings)
		goto out_nomem;
	for (uint32_t k = 0; k < count; k++) {
		const msgpack_object *kd = &ks->via.array.ptr[k];
		const msgpack_object *name = sbt_amd_map_get(kd, ".name");
		const msgpack_object *sym = sbt_amd_map_get(kd, ".symbol");
		const msgpack_object *args = sbt_amd_map_get(kd, ".args");
		sbt_amd_kernel *kern = &m->kernels[k];
		uint64_t v = 0;
		int explicit_done = 0;

		memcpy(m->strings + si, name->via.str.ptr, name->via.str.size);
		kern->name = m->strings + si;
		si += name->via.str.size;
		m->strings[si++] = 0;
		if (sym && sym->via.str.size)
			memcpy(m->strings + si, sym->via.str.ptr, sym->via.str.size);
		kern->symbol = m->strings + si;
		si += sym ? sym->via.str.size : 0;
		m->strings[si++] = 0;
		if (sbt_amd_get_u64(sbt_amd_map_get(kd, ".kernarg_segment_size"), &v) == 0)
			kern->kernarg_size = v;
		kern->args = m->args + ai;
		kern->arg_count = args ? args->via.array.size : 0;
		for (size_t a = 0; a < kern->arg_count; a++) {
			const msgpack_object *ad = &args->via.array.ptr[a];
			uint64_t off = 0, size = 0;
			sbt_amd_arg *arg = &m->args[ai++];
			if (sbt_amd_get_u64(sbt_amd_map_get(ad, ".offset"), &off) != 0 ||
			    sbt_amd_get_u64(sbt_amd_map_get(ad, ".size"), &size) != 0 ||
			    off > UINT32_MAX || size > UINT32_MAX || off + size > UINT32_MAX) {
				sbt_amd_why(why, n, "kernel %s: argument %zu has no valid .offset/.size",
				            kern->name, a);
				goto out_free;
			}
			arg->offset = (uint32_t)off;
			arg->size = (uint32_t)size;
			arg->kind = sbt_amd_arg_kind_of(sbt_amd_map_get(ad, ".value_kind"));
			if (arg->kind == SBT_AMD_ARG_HIDDEN)
				explicit_done = 1;
			else if (!explicit_done)
				kern->explicit_count = a + 1;
		}
	}
	*out = m;
	m = NULL;
	st = SBT_AMD_OK;
	goto out;
out_nomem:
	st = SBT_AMD_ERR_NOMEM;
	sbt_amd_why(why, n, "out of memory");
out_free:
	sbt_amd_meta_free(m);
out:
	return st;
}

/* The metadata note's descriptor in the ELF e: *desc_out points into e's
 * data. */
static sbt_amd_status sbt_amd_find_note(Elf *e, const char **desc_out, size_t *len_out, char *why,
                                        size_t n)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == SBT_AMD_NT_METADATA && nh.n_namesz == 7 &&
			    memcmp((const char *)d->d_buf + name_off, "AMDGPU", 7) == 0) {
				*desc_out = (const char *)d->d_buf + desc_off;
				*len_out = nh.n_descsz;
				return SBT_AMD_OK;
			}
			off = next;
		}
	}
	sbt_amd_why(why, n, "no AMDGPU metadata note (NT_AMDGPU_METADATA)");
	return SBT_AMD_ERR_NO_METADATA;
}

sbt_amd_status sbt_amd_meta_read(const void *elf, size_t len, sbt_amd_meta **out, char *why,
                                 size_t n)
{
	sbt_amd_status st = SBT_AMD_ERR_UNKNOWN;
	char *copy = NULL;
	Elf *e = NULL;
	GElf_Ehdr eh;
	const char *desc = NULL;
	size_t desc_len = 0, off = 0;
	msgpack_unpacked mp;
	const msgpack_object *ks;

	if (!out || !elf) {
		sbt_amd_why(why, n, "no code object");
		goto out;
	}
	*out = NULL;
	if (len < 64 || memcmp(elf, "\177ELF", 4) != 0) {
		sbt_amd_why(why, n, "not an ELF code object");
		goto out;
	}
	copy = malloc(len);
	if (!copy) {
		st = SBT_AMD_ERR_NOMEM;
		sbt_amd_why(why, n, "out of memory");
		goto out;
	}
	memcpy(copy, elf, len);
	if (elf_version(EV_CURRENT) == EV_NONE) {
		st = SBT_AMD_ERR_UNSUPPORTED;
		sbt_amd_why(why, n, "libelf: %s", elf_errmsg(-1));
		goto out_free_copy;
	}
	e = elf_memory(copy, len);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		st = SBT_AMD_ERR_CORRUPT;
		sbt_amd_why(why, n, "libelf: %s", elf_errmsg(-1));
		goto out_end;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != SBT_AMD_EM_AMDGPU) {
		sbt_amd_why(why, n, "ELF is not a 64-bit AMDGPU code object (e_machine %u)",
		            (unsigned)eh.e_machine);
		goto out_end;
	}
	st = sbt_amd_find_note(e, &desc, &desc_len, why, n);
	if (st != SBT_AMD_OK)
		goto out_end;
	msgpack_unpacked_init(&mp);
	if (!sbt_amd_mp_plausible((const uint8_t *)desc, desc_len) ||
	    msgpack_unpack_next(&mp, desc, desc_len, &off) != MSGPACK_UNPACK_SUCCESS) {
		st = SBT_AMD_ERR_METADATA;
		sbt_amd_why(why, n, "metadata note is not one MessagePack object");
		goto out_unpacked;
	}
	ks = sbt_amd_map_get(&mp.data, "amdhsa.kernels");
	if (!ks || ks->type != MSGPACK_OBJECT_ARRAY) {
		st = SBT_AMD_ERR_METADATA;
		sbt_amd_why(why, n, "metadata has no amdhsa.kernels array");
		goto out_unpacked;
	}
	st = sbt_amd_meta_build(ks, out, why, n);
out_unpacked:
	msgpack_unpacked_destroy(&mp);
out_end:
	if (e)
		elf_end(e);
out_free_copy:
	free(copy);
out:
	return st;
}

sbt_amd_status sbt_amd_meta_read_image(const void *image, size_t len, sbt_amd_meta **out,
                                       char *why, size_t n)
{
	sbt_amd_kind kind = SBT_AMD_IMAGE_UNKNOWN;
	size_t size = 0, count = 0;
	sbt_amd_status st = sbt_amd_image_size(image, len, &size, &kind);
	sbt_amd_status last = SBT_AMD_ERR_NO_METADATA;

	if (out)
		*out = NULL;
	if (st != SBT_AMD_OK) {
		sbt_amd_why(why, n, "%s", sbt_amd_strerror(st));
		return st;
	}
	if (kind == SBT_AMD_IMAGE_ELF)
		return sbt_amd_meta_read(image, size, out, why, n);
	if (kind == SBT_AMD_IMAGE_COMPRESSED) {
		uint8_t *raw = NULL;
		size_t raw_len = 0;
		char inner[200];
		st = sbt_amd_ccob_inflate(image, size, &raw, &raw_len, inner, sizeof(inner));
		if (st != SBT_AMD_OK) {
			sbt_amd_why(why, n, "compressed bundle: %s", inner);
			return st;
		}
		if (sbt_amd_image_size(raw, raw_len, &size, &kind) != SBT_AMD_OK ||
		    kind != SBT_AMD_IMAGE_BUNDLE) {
			free(raw);
			sbt_amd_why(why, n, "compressed bundle: it inflates to no offload bundle");
			return SBT_AMD_ERR_CORRUPT;
		}
		st = sbt_amd_meta_read_image(raw, raw_len, out, inner, sizeof(inner));
		if (st != SBT_AMD_OK)
			sbt_amd_why(why, n, "compressed bundle: %s", inner);
		free(raw); /* the metadata holds copies */
		return st;
	}
	if (kind != SBT_AMD_IMAGE_BUNDLE) {
		sbt_amd_why(why, n, "wrapper images hold no readable code object here");
		return SBT_AMD_ERR_UNSUPPORTED;
	}
	st = sbt_amd_bundle_count(image, size, &count);
	if (st != SBT_AMD_OK)
		return st;
	for (size_t i = 0; i < count; i++) {
		sbt_amd_entry ent;
		static const char prefix[] = "hipv4-amdgcn-";
		if (sbt_amd_bundle_entry_at(image, size, i, &ent) != SBT_AMD_OK || ent.size == 0)
			continue;
		/* hip- (code object v2/v3) and hipv4- entries both hold ELF. */
		if (!(ent.id_len >= sizeof(prefix) - 1 && memcmp(ent.id, prefix, sizeof(prefix) - 1) == 0) &&
		    !(ent.id_len >= 11 && memcmp(ent.id, "hip-amdgcn-", 11) == 0))
			continue;
		last = sbt_amd_meta_read((const uint8_t *)image + ent.offset, (size_t)ent.size, out, why, n);
		if (last == SBT_AMD_OK)
			return SBT_AMD_OK;
	}
	if (last == SBT_AMD_ERR_NO_METADATA)
		sbt_amd_why(why, n, "bundle holds no amdgcn code object with metadata");
	return last;
}

void sbt_amd_meta_free(sbt_amd_meta *m)
{
	if (!m)
		return;
	free(m->kernels);
	free(m->args);
	free(m->strings);
	free(m);
}

size_t sbt_amd_meta_count(const sbt_amd_meta *m)
{
	return m ? m->count : 0;
}

const sbt_amd_kernel *sbt_amd_meta_kernel(const sbt_amd_meta *m, size_t i)
{
	return m && i < m->count ? &m->kernels[i] : NULL;
}

const sbt_amd_kernel *sbt_amd_meta_find(const sbt_amd_meta *m, const char *name)
{
	if (!m || !name)
		return NULL;
	for (size_t i = 0; i < m->count; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	return NULL;
}
