/*
 * tcd_image.c - module images as the libcuda test double reads them.  This
 * file owns these formats for the project's double; what follows was worked
 * out from the real images in tests/fixtures/h100 (gpu_driver_kernels.cubin,
 * the fatbins cudart registers in the H100 traces) and from fatbins nvcc
 * 13.0 writes, and checked against the parameter layouts the real driver's
 * cuFuncGetParamInfo reported in the traces' launch records (all of them
 * agree, PyTorch's and Triton's kernels in the shared triton_add trace
 * included: 5 images, 847 kernels, 9 launches).  Every
 * integer is little-endian; every offset and size is checked against the
 * bytes the image may occupy before it is followed.
 *
 * FATBIN WRAPPER (what cudart passes to cuLibraryLoadData; measured fact 5)
 *   0  u32 magic 0x466243b1
 *   4  u32 version (1; 2 for -rdc builds)
 *   8  u64 pointer to the fatbin (in this process)
 *   16 u64 pointer to a file name (v1) or the prelinked list (v2): unused
 *
 * FATBIN
 *   0  u32 magic 0xBA55ED50
 *   4  u16 version (1)
 *   6  u16 header size (16): entries start there
 *   8  u64 body size: the entries' bytes
 *   Entries follow one another to the end of the body.  Each:
 *   0  u16 kind: 1 PTX, 2 ELF (others are skipped)
 *   2  u16 entry version (0x0101 seen)
 *   4  u32 entry header size (64 for ELF, 80 for PTX seen): the payload
 *      starts there
 *   8  u64 payload size (padded to 8; PTX is NUL-padded)
 *   16 u32 compressed size when compressed, else 0 (the payload after it
 *      is padding)
 *   24 u32 code version: 1.8 for ELF (the cubin ABI), the PTX ISA for PTX
 *      (9.0 from nvcc 13)
 *   28 u32 sm arch, major*10+minor (0x5a = sm_90)
 *   40 u64 flags: 0x11 in every entry seen (plain), 0x2000 payload
 *      compressed as one LZ4 block, 0x8000 compressed as a zstd frame
 *      (magic 28 b5 2f fd).  nvcc 13 compresses PTX with zstd by default
 *      (gpu_saxpy.fatbin); with -Xfatbin -compress-all it compresses ELF
 *      too, with zstd, or with LZ4 under --compress-mode=speed
 *      (tests/fixtures/nvcc13/)
 *   56 u64 uncompressed payload size when compressed
 *   An ELF payload is a cubin, or here an x86-64 shared object that is a
 *   module of the double (how a runtime-like test program registers the
 *   double's kernels the way cudart registers its fatbin).
 *
 * ELF CUBIN (e_machine 190, EM_CUDA; 64-bit little-endian)
 *   sm arch: e_flags bits 8..15 when EI_ABIVERSION >= 8 (nvcc 13: sm_80
 *   0x06005004, sm_90 0x06005a04, sm_100 0x06006402), bits 0..7 before.
 *   A kernel is an STT_FUNC symbol with st_other bit 0x10 (the entry mark;
 *   device functions lack it) defined in a section named .text.<name>.
 *   Its attributes are in section .nv.info.<name>: records of
 *     u8 format, u8 attribute, then by format:
 *       1 (no value), 2 (u8 value), 3 (u16 value): a u16 in the record, 4
 *       bytes in all;
 *       4 (sized): u16 size, then size bytes.
 *   Attribute 0x17 (KPARAM_INFO, sized, 12 bytes) is one parameter:
 *     u32 0 (an index; 0 in every record seen), u16 ordinal, u16 offset in
 *     the parameter buffer, u32 flags whose bits 18..31 are the size in
 *     bytes (0x0021f000: 8 bytes; 0x0011f000: 4 bytes).
 *   Attribute 0x19 (CBANK_PARAM_SIZE, u16) is the buffer's size: gpu_fill
 *   (unsigned *, unsigned, unsigned) gives 8@0 4@8 4@12 in 16 bytes,
 *   gpu_chase (const node *, unsigned *, unsigned) 8@0 8@8 4@16 in 20, as
 *   the driver reported for the same kernels.
 *
 * PTX (text, NUL-terminated)
 *   Kernels are `.entry NAME ( .param ... , ... )`; a parameter is
 *   `.param [.align N] .TYPE [qualifiers] NAME[[COUNT]]`, laid out in order,
 *   each at the next multiple of its alignment (N, else the type's size),
 *   as the CUDA ABI lays out kernel arguments.
 *
 * WHICH CODE RUNS (the driver's rule, as documented for cubins): an ELF
 * entry whose arch has the device's major version and a minor version not
 * above the device's; failing that PTX, taken as compilable for any arch;
 * failing that, no binary for the GPU.
 */
#include "tests/doubles/cuda/tcd_image.h"

#include <dlfcn.h>
#include <elf.h>
#include <lz4.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TCD_IMAGE_WRAPPER_MAGIC 0x466243b1u
#define TCD_IMAGE_FATBIN_MAGIC 0xba55ed50u
#define TCD_IMAGE_EM_CUDA 190u
#define TCD_IMAGE_ENTRY_PTX 1u
#define TCD_IMAGE_ENTRY_ELF 2u
#define TCD_IMAGE_ENTRY_MIN_HEADER 64u
#define TCD_IMAGE_FLAG_LZ4 0x2000u
#define TCD_IMAGE_FLAG_ZSTD 0x8000u
#define TCD_IMAGE_STO_ENTRY 0x10u
#define TCD_IMAGE_EIATTR_KPARAM_INFO 0x17u
#define TCD_IMAGE_EIATTR_CBANK_PARAM_SIZE 0x19u
#define TCD_IMAGE_MAX_PARAMS 4096u
#define TCD_IMAGE_MAX_PARAM_BYTES 32768u
#define TCD_IMAGE_MAX_KERNELS 65536u

static const char *const tcd_image_messages[] = {
#define TCD_IMAGE_X_TEXT(name, text) text,
	TCD_IMAGE_STATUS_LIST(TCD_IMAGE_X_TEXT)
#undef TCD_IMAGE_X_TEXT
};

const char *tcd_image_strerror(tcd_image_status s)
{
	if ((size_t)s >= sizeof(tcd_image_messages) / sizeof(tcd_image_messages[0]))
		return "unknown image status";
	return tcd_image_messages[s];
}

/* The bytes being parsed and where to say what went wrong. */
struct tcd_image_ctx {
	unsigned device_arch;
	char *why;
	size_t why_len;
};

static tcd_image_status tcd_image_fail(struct tcd_image_ctx *c, tcd_image_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static tcd_image_status tcd_image_fail(struct tcd_image_ctx *c, tcd_image_status s, const char *fmt, ...)
{
	va_list ap;

	if (c->why && c->why_len) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->why_len, fmt, ap);
		va_end(ap);
	}
	return s;
}

static uint16_t tcd_image_u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t tcd_image_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t tcd_image_u64(const unsigned char *p)
{
	return (uint64_t)tcd_image_u32(p) | (uint64_t)tcd_image_u32(p + 4) << 32;
}

/* [off, off + n) lies inside len bytes. */
static bool tcd_image_within(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

static void tcd_image_kernels_free(struct tcd_image_kernel *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(k[i].name);
		free(k[i].params);
	}
	free(k);
}

void tcd_image_free(struct tcd_image *img)
{
	if (!img)
		return;
	tcd_image_kernels_free(img->kernels, img->kernel_count);
	free(img->owned);
	free(img);
}

const struct tcd_image_kernel *tcd_image_kernel_find(const struct tcd_image *img, const char *name)
{
	for (size_t i = 0; i < img->kernel_count; i++)
		if (!strcmp(img->kernels[i].name, name))
			return &img->kernels[i];
	return NULL;
}

static bool tcd_image_arch_ok(unsigned arch, unsigned device)
{
	return arch / 10 == device / 10 && arch % 10 <= device % 10;
}

/* ---- ELF ---------------------------------------------------------------- */

/* The length an ELF image gives itself: the furthest of its header tables
 * and file-backed sections.  Reads only inside max bytes. */
static tcd_image_status tcd_image_elf_size(struct tcd_image_ctx *c, const unsigned char *p, size_t max,
					   size_t *out)
{
	uint64_t shoff, phoff, size;
	unsigned shnum, phnum;

	if (max < sizeof(Elf64_Ehdr))
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the ELF header is cut short (%zu bytes)", max);
	if (p[EI_CLASS] != ELFCLASS64 || p[EI_DATA] != ELFDATA2LSB)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the image is not a 64-bit little-endian ELF file");
	phoff = tcd_image_u64(p + offsetof(Elf64_Ehdr, e_phoff));
	shoff = tcd_image_u64(p + offsetof(Elf64_Ehdr, e_shoff));
	phnum = tcd_image_u16(p + offsetof(Elf64_Ehdr, e_phnum));
	shnum = tcd_image_u16(p + offsetof(Elf64_Ehdr, e_shnum));
	if ((phnum && tcd_image_u16(p + offsetof(Elf64_Ehdr, e_phentsize)) != sizeof(Elf64_Phdr)) ||
	    tcd_image_u16(p + offsetof(Elf64_Ehdr, e_shentsize)) != sizeof(Elf64_Shdr) || !shnum ||
	    shoff > TCD_IMAGE_MAX || phoff > TCD_IMAGE_MAX)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the ELF header's tables are implausible");
	size = shoff + (uint64_t)shnum * sizeof(Elf64_Shdr);
	if (phoff + (uint64_t)phnum * sizeof(Elf64_Phdr) > size)
		size = phoff + (uint64_t)phnum * sizeof(Elf64_Phdr);
	if (size > max || size > TCD_IMAGE_MAX)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the ELF header tables end at %llu, past the image's %zu bytes",
				      (unsigned long long)size, max > TCD_IMAGE_MAX ? TCD_IMAGE_MAX : max);
	for (unsigned i = 0; i < phnum; i++) {
		const unsigned char *ph = p + phoff + (uint64_t)i * sizeof(Elf64_Phdr);
		uint64_t o = tcd_image_u64(ph + offsetof(Elf64_Phdr, p_offset));
		uint64_t n = tcd_image_u64(ph + offsetof(Elf64_Phdr, p_filesz));

		if (o > TCD_IMAGE_MAX || n > TCD_IMAGE_MAX)
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "program header %u is implausible", i);
		if (o + n > size)
			size = o + n;
	}
	for (unsigned i = 0; i < shnum; i++) {
		const unsigned char *sh = p + shoff + (uint64_t)i * sizeof(Elf64_Shdr);
		uint64_t o = tcd_image_u64(sh + offsetof(Elf64_Shdr, sh_offset));
		uint64_t n = tcd_image_u64(sh + offsetof(Elf64_Shdr, sh_size));

		if (tcd_image_u32(sh + offsetof(Elf64_Shdr, sh_type)) == SHT_NOBITS)
			continue;
		if (o > TCD_IMAGE_MAX || n > TCD_IMAGE_MAX)
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "section %u is implausible", i);
		if (o + n > size)
			size = o + n;
	}
	if (size > max || size > TCD_IMAGE_MAX)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the ELF image claims %llu bytes, more than the %zu it has",
				      (unsigned long long)size, max > TCD_IMAGE_MAX ? TCD_IMAGE_MAX : max);
	*out = (size_t)size;
	return TCD_IMAGE_OK;
}

/* A cubin's sections, checked once. */
struct tcd_image_elf {
	const unsigned char *p;
	size_t len;
	const unsigned char *sh; /* the section header table */
	unsigned shnum;
	const char *shstr;       /* the section name table */
	size_t shstr_len;
};

static const unsigned char *tcd_image_elf_shdr(const struct tcd_image_elf *e, unsigned i)
{
	return e->sh + (size_t)i * sizeof(Elf64_Shdr);
}

/* A NUL-terminated string at off of a string table, or NULL. */
static const char *tcd_image_str(const char *tab, size_t len, uint64_t off)
{
	if (off >= len || !memchr(tab + off, 0, len - off))
		return NULL;
	return tab + off;
}

static const char *tcd_image_elf_secname(const struct tcd_image_elf *e, unsigned i)
{
	return tcd_image_str(e->shstr, e->shstr_len,
			     tcd_image_u32(tcd_image_elf_shdr(e, i) + offsetof(Elf64_Shdr, sh_name)));
}

static tcd_image_status tcd_image_elf_open(struct tcd_image_ctx *c, struct tcd_image_elf *e, const unsigned char *p,
					   size_t len)
{
	uint64_t shoff = tcd_image_u64(p + offsetof(Elf64_Ehdr, e_shoff));
	unsigned shstrndx = tcd_image_u16(p + offsetof(Elf64_Ehdr, e_shstrndx));
	const unsigned char *ss;

	/* tcd_image_elf_size has checked the table and every section's bytes. */
	e->p = p;
	e->len = len;
	e->sh = p + shoff;
	e->shnum = tcd_image_u16(p + offsetof(Elf64_Ehdr, e_shnum));
	if (shstrndx >= e->shnum)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the cubin's section name table index %u is out of range",
				      shstrndx);
	ss = tcd_image_elf_shdr(e, shstrndx);
	if (tcd_image_u32(ss + offsetof(Elf64_Shdr, sh_type)) != SHT_STRTAB)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the cubin's section name table is not a string table");
	e->shstr = (const char *)p + tcd_image_u64(ss + offsetof(Elf64_Shdr, sh_offset));
	e->shstr_len = (size_t)tcd_image_u64(ss + offsetof(Elf64_Shdr, sh_size));
	return TCD_IMAGE_OK;
}

/* Section i's bytes (the size check was done by tcd_image_elf_size). */
static const unsigned char *tcd_image_elf_bytes(const struct tcd_image_elf *e, unsigned i, size_t *len)
{
	const unsigned char *sh = tcd_image_elf_shdr(e, i);

	*len = (size_t)tcd_image_u64(sh + offsetof(Elf64_Shdr, sh_size));
	return e->p + tcd_image_u64(sh + offsetof(Elf64_Shdr, sh_offset));
}

static int tcd_image_elf_find(const struct tcd_image_elf *e, const char *prefix, const char *name)
{
	size_t pl = strlen(prefix);

	for (unsigned i = 1; i < e->shnum; i++) {
		const char *n = tcd_image_elf_secname(e, i);

		if (n && !strncmp(n, prefix, pl) && !strcmp(n + pl, name))
			return (int)i;
	}
	return -1;
}

/* Parameters of kernel k from its .nv.info.<name> section. */
static tcd_image_status tcd_image_nvinfo(struct tcd_image_ctx *c, const struct tcd_image_elf *e,
					 struct tcd_image_kernel *k)
{
	int sec = tcd_image_elf_find(e, ".nv.info.", k->name);
	const unsigned char *p;
	size_t len, off = 0;
	uint32_t cbank = 0, count = 0, computed = 0;
	bool have_cbank = false;
	unsigned char *seen;
	tcd_image_status s = TCD_IMAGE_OK;

	if (sec < 0)
		return TCD_IMAGE_OK; /* no attributes: a kernel without parameters */
	if (tcd_image_u32(tcd_image_elf_shdr(e, (unsigned)sec) + offsetof(Elf64_Shdr, sh_type)) == SHT_NOBITS)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s has no bytes", k->name);
	p = tcd_image_elf_bytes(e, (unsigned)sec, &len);
	/* First pass: how many parameters. */
	while (off < len) {
		unsigned fmt, attr;
		size_t n = 0;

		if (!tcd_image_within(len, off, 4))
			return tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: record at %zu is cut short", k->name, off);
		fmt = p[off];
		attr = p[off + 1];
		if (fmt == 4)
			n = tcd_image_u16(p + off + 2);
		else if (fmt < 1 || fmt > 3)
			return tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: record at %zu has format %u", k->name, off,
					      fmt);
		if (!tcd_image_within(len, off + 4, n))
			return tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: record at %zu runs past the section",
					      k->name, off);
		if (attr == TCD_IMAGE_EIATTR_KPARAM_INFO) {
			unsigned ord;

			if (fmt != 4 || n < 12)
				return tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: a KPARAM_INFO record has %zu bytes",
						      k->name, n);
			ord = tcd_image_u16(p + off + 8);
			if (ord >= TCD_IMAGE_MAX_PARAMS)
				return tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: parameter ordinal %u", k->name, ord);
			if (ord + 1 > count)
				count = ord + 1;
		} else if (attr == TCD_IMAGE_EIATTR_CBANK_PARAM_SIZE && fmt == 3) {
			cbank = tcd_image_u16(p + off + 2);
			have_cbank = true;
		}
		off += 4 + n;
	}
	if (!count) {
		k->param_bytes = cbank;
		return TCD_IMAGE_OK;
	}
	k->params = calloc(count, sizeof(*k->params));
	if (!k->params)
		return tcd_image_fail(c, TCD_IMAGE_NOMEM, "out of host memory");
	k->param_count = count;
	/* Second pass: each ordinal once, its bytes inside the buffer. */
	seen = calloc(count, 1);
	if (!seen)
		return tcd_image_fail(c, TCD_IMAGE_NOMEM, "out of host memory");
	for (off = 0; off < len; off += 4 + (p[off] == 4 ? tcd_image_u16(p + off + 2) : 0)) {
		unsigned ord;
		uint32_t poff, psize;

		if (p[off + 1] != TCD_IMAGE_EIATTR_KPARAM_INFO)
			continue;
		ord = tcd_image_u16(p + off + 8);
		poff = tcd_image_u16(p + off + 10);
		psize = tcd_image_u32(p + off + 12) >> 18;
		if (seen[ord]) {
			s = tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: parameter %u is described twice", k->name,
					   ord);
			goto out_free_seen;
		}
		seen[ord] = 1;
		k->params[ord].offset = poff;
		k->params[ord].size = psize;
		if (poff + psize > computed)
			computed = poff + psize;
	}
	for (unsigned i = 0; i < count; i++)
		if (!seen[i]) {
			s = tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: parameter %u is not described", k->name, i);
			goto out_free_seen;
		}
	k->param_bytes = have_cbank ? cbank : computed;
	if (computed > k->param_bytes || k->param_bytes > TCD_IMAGE_MAX_PARAM_BYTES)
		s = tcd_image_fail(c, TCD_IMAGE_INVALID, ".nv.info.%s: parameters end at %u of a %u-byte buffer", k->name,
				   computed, k->param_bytes);
out_free_seen:
	free(seen);
	return s;
}

static tcd_image_status tcd_image_kernel_add(struct tcd_image_ctx *c, struct tcd_image *img, const char *name,
					     size_t name_len, struct tcd_image_kernel **out)
{
	struct tcd_image_kernel *k;

	if (img->kernel_count >= TCD_IMAGE_MAX_KERNELS)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "more than %u kernels", TCD_IMAGE_MAX_KERNELS);
	k = realloc(img->kernels, (img->kernel_count + 1) * sizeof(*k));
	if (!k)
		return tcd_image_fail(c, TCD_IMAGE_NOMEM, "out of host memory");
	img->kernels = k;
	k = &img->kernels[img->kernel_count];
	memset(k, 0, sizeof(*k));
	k->name = strndup(name, name_len);
	if (!k->name)
		return tcd_image_fail(c, TCD_IMAGE_NOMEM, "out of host memory");
	img->kernel_count++;
	*out = k;
	return TCD_IMAGE_OK;
}

static tcd_image_status tcd_image_cubin(struct tcd_image_ctx *c, const unsigned char *p, size_t len,
					struct tcd_image *img)
{
	struct tcd_image_elf e;
	tcd_image_status s;
	int symsec = -1;
	const unsigned char *syms;
	const char *strs;
	size_t syms_len, strs_len;
	unsigned link;

	if ((s = tcd_image_elf_open(c, &e, p, len)) != TCD_IMAGE_OK)
		return s;
	for (unsigned i = 1; i < e.shnum && symsec < 0; i++)
		if (tcd_image_u32(tcd_image_elf_shdr(&e, i) + offsetof(Elf64_Shdr, sh_type)) == SHT_SYMTAB)
			symsec = (int)i;
	if (symsec < 0)
		return TCD_IMAGE_OK; /* no symbols, no kernels */
	link = tcd_image_u32(tcd_image_elf_shdr(&e, (unsigned)symsec) + offsetof(Elf64_Shdr, sh_link));
	if (link == 0 || link >= e.shnum ||
	    tcd_image_u32(tcd_image_elf_shdr(&e, link) + offsetof(Elf64_Shdr, sh_type)) != SHT_STRTAB)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the cubin's symbol table has no string table");
	syms = tcd_image_elf_bytes(&e, (unsigned)symsec, &syms_len);
	strs = (const char *)tcd_image_elf_bytes(&e, link, &strs_len);
	for (size_t off = 0; off + sizeof(Elf64_Sym) <= syms_len; off += sizeof(Elf64_Sym)) {
		const unsigned char *sym = syms + off;
		unsigned shndx = tcd_image_u16(sym + offsetof(Elf64_Sym, st_shndx));
		const char *name, *sec;
		struct tcd_image_kernel *k;

		if (ELF64_ST_TYPE(sym[offsetof(Elf64_Sym, st_info)]) != STT_FUNC ||
		    !(sym[offsetof(Elf64_Sym, st_other)] & TCD_IMAGE_STO_ENTRY) || shndx == 0 || shndx >= e.shnum)
			continue;
		name = tcd_image_str(strs, strs_len, tcd_image_u32(sym + offsetof(Elf64_Sym, st_name)));
		sec = tcd_image_elf_secname(&e, shndx);
		if (!name || !*name)
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "a kernel symbol's name is outside the string table");
		if (!sec || strncmp(sec, ".text.", 6) != 0 || strcmp(sec + 6, name) != 0)
			continue;
		if (tcd_image_kernel_find(img, name))
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "kernel %s is defined twice", name);
		if ((s = tcd_image_kernel_add(c, img, name, strlen(name), &k)) != TCD_IMAGE_OK ||
		    (s = tcd_image_nvinfo(c, &e, k)) != TCD_IMAGE_OK)
			return s;
	}
	return TCD_IMAGE_OK;
}

/* ---- PTX ---------------------------------------------------------------- */

struct tcd_image_ptx {
	const char *p, *end;
};

/* Skips blanks and comments; false at the end. */
static bool tcd_image_ptx_skip(struct tcd_image_ptx *t)
{
	while (t->p < t->end) {
		if (*t->p == ' ' || *t->p == '\t' || *t->p == '\n' || *t->p == '\r') {
			t->p++;
		} else if (t->end - t->p >= 2 && t->p[0] == '/' && t->p[1] == '/') {
			while (t->p < t->end && *t->p != '\n')
				t->p++;
		} else if (t->end - t->p >= 2 && t->p[0] == '/' && t->p[1] == '*') {
			const char *q = t->p + 2;

			while (q + 1 < t->end && !(q[0] == '*' && q[1] == '/'))
				q++;
			t->p = q + 1 < t->end ? q + 2 : t->end;
		} else {
			return true;
		}
	}
	return false;
}

static bool tcd_image_ptx_identch(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
	       ch == '$' || ch == '.' || ch == '%';
}

/* The next token: an identifier/directive/number, or one punctuation char. */
static bool tcd_image_ptx_token(struct tcd_image_ptx *t, const char **tok, size_t *len)
{
	if (!tcd_image_ptx_skip(t))
		return false;
	*tok = t->p;
	if (tcd_image_ptx_identch(*t->p)) {
		/* A directive starts a new token at each dot after the first char. */
		t->p++;
		while (t->p < t->end && tcd_image_ptx_identch(*t->p) && *t->p != '.')
			t->p++;
	} else {
		t->p++;
	}
	*len = (size_t)(t->p - *tok);
	return true;
}

static bool tcd_image_tok_is(const char *tok, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(tok, word, len);
}

static unsigned tcd_image_ptx_type_size(const char *tok, size_t len)
{
	static const struct {
		const char *name;
		unsigned size;
	} types[] = {
		{ ".u8", 1 },  { ".s8", 1 },  { ".b8", 1 },  { ".u16", 2 }, { ".s16", 2 }, { ".b16", 2 }, { ".f16", 2 },
		{ ".u32", 4 }, { ".s32", 4 }, { ".b32", 4 }, { ".f32", 4 }, { ".u64", 8 }, { ".s64", 8 }, { ".b64", 8 },
		{ ".f64", 8 },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (tcd_image_tok_is(tok, len, types[i].name))
			return types[i].size;
	return 0;
}

static uint64_t tcd_image_ptx_number(const char *tok, size_t len)
{
	uint64_t v = 0;

	if (!len || len > 9)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (tok[i] < '0' || tok[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(tok[i] - '0');
	}
	return v;
}

/* One `.param ...` declaration after the `.param` token; adds it to k. */
static tcd_image_status tcd_image_ptx_param(struct tcd_image_ctx *c, struct tcd_image_ptx *t,
					    struct tcd_image_kernel *k, uint32_t *cursor)
{
	const char *tok;
	size_t len;
	unsigned size = 0;
	uint64_t align = 0, count = 1, off;
	bool named = false, ptr = false;
	struct tcd_param *np;

	while (tcd_image_ptx_token(t, &tok, &len)) {
		if (tcd_image_tok_is(tok, len, ",") || tcd_image_tok_is(tok, len, ")")) {
			t->p = tok; /* the caller consumes the separator */
			break;
		}
		if (tcd_image_tok_is(tok, len, ".ptr")) {
			ptr = true;
		} else if (tcd_image_tok_is(tok, len, ".align")) {
			uint64_t a;

			/* After .ptr, .align is the pointee's alignment, not the parameter's. */
			if (!tcd_image_ptx_token(t, &tok, &len) || !(a = tcd_image_ptx_number(tok, len)) ||
			    (a & (a - 1)) || a > 4096)
				return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX kernel %s: bad .align", k->name);
			if (!ptr)
				align = a;
		} else if (tcd_image_ptx_type_size(tok, len)) {
			size = tcd_image_ptx_type_size(tok, len);
		} else if (tcd_image_tok_is(tok, len, "[")) {
			if (!tcd_image_ptx_token(t, &tok, &len) || !(count = tcd_image_ptx_number(tok, len)) ||
			    !tcd_image_ptx_token(t, &tok, &len) || !tcd_image_tok_is(tok, len, "]"))
				return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX kernel %s: bad array size", k->name);
		} else if (*tok != '.') {
			named = true;
		}
	}
	if (!size || !named)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX kernel %s: parameter %u has no type or name", k->name,
				      k->param_count);
	if (!align)
		align = size;
	off = (*cursor + align - 1) & ~(align - 1);
	if (count > TCD_IMAGE_MAX_PARAM_BYTES || off + (uint64_t)size * count > TCD_IMAGE_MAX_PARAM_BYTES ||
	    k->param_count >= TCD_IMAGE_MAX_PARAMS)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX kernel %s: parameters exceed %u bytes", k->name,
				      TCD_IMAGE_MAX_PARAM_BYTES);
	np = realloc(k->params, (k->param_count + 1) * sizeof(*np));
	if (!np)
		return tcd_image_fail(c, TCD_IMAGE_NOMEM, "out of host memory");
	k->params = np;
	np[k->param_count].offset = (uint32_t)off;
	np[k->param_count].size = (uint32_t)(size * count);
	k->param_count++;
	*cursor = (uint32_t)(off + size * count);
	k->param_bytes = *cursor;
	return TCD_IMAGE_OK;
}

static tcd_image_status tcd_image_ptx(struct tcd_image_ctx *c, const char *text, size_t len, struct tcd_image *img)
{
	struct tcd_image_ptx t = { text, text + len };
	const char *tok;
	size_t tlen;
	tcd_image_status s;

	while (tcd_image_ptx_token(&t, &tok, &tlen)) {
		struct tcd_image_kernel *k;
		uint32_t cursor = 0;

		if (!tcd_image_tok_is(tok, tlen, ".entry"))
			continue;
		if (!tcd_image_ptx_token(&t, &tok, &tlen) || !tcd_image_ptx_identch(*tok) || *tok == '.')
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX: .entry without a name");
		/* A name may continue past dots the tokenizer split at. */
		while (t.p < t.end && tcd_image_ptx_identch(*t.p))
			t.p++;
		tlen = (size_t)(t.p - tok);
		if ((s = tcd_image_kernel_add(c, img, tok, tlen, &k)) != TCD_IMAGE_OK)
			return s;
		if (!tcd_image_ptx_token(&t, &tok, &tlen) || !tcd_image_tok_is(tok, tlen, "("))
			continue; /* no parameter list */
		for (;;) {
			if (!tcd_image_ptx_token(&t, &tok, &tlen))
				return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX kernel %s: parameter list not closed",
						      k->name);
			if (tcd_image_tok_is(tok, tlen, ")"))
				break;
			if (tcd_image_tok_is(tok, tlen, ","))
				continue;
			if (!tcd_image_tok_is(tok, tlen, ".param"))
				return tcd_image_fail(c, TCD_IMAGE_INVALID, "PTX kernel %s: '%.*s' in the parameter list",
						      k->name, (int)(tlen > 32 ? 32 : tlen), tok);
			if ((s = tcd_image_ptx_param(c, &t, k, &cursor)) != TCD_IMAGE_OK)
				return s;
		}
	}
	return TCD_IMAGE_OK;
}

/* PTX starts, after blanks, with a comment or a directive. */
static bool tcd_image_is_ptx(const unsigned char *p, size_t max)
{
	size_t i = 0;

	while (i < max && i < 4096 && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return (max - i >= 2 && p[i] == '/' && (p[i + 1] == '/' || p[i + 1] == '*')) ||
	       (max - i >= 8 && (!memcmp(p + i, ".version", 8) || !memcmp(p + i, ".target", 7)));
}

/* ---- choosing and decoding code ----------------------------------------- */

/* zstd is not a build dependency (no headers on the build machines): the
 * decoder comes from the system's libzstd.so.1, whose ZSTD_decompress and
 * ZSTD_isError have had these signatures since zstd 1.0. */
typedef size_t tcd_image_zstd_fn(void *dst, size_t cap, const void *src, size_t len);
typedef unsigned tcd_image_zstd_err_fn(size_t code);

/* Loaded once and kept for the life of the process (written only by the
 * pthread_once routine, read-only after it). */
static struct {
	pthread_once_t once;
	tcd_image_zstd_fn *decompress;
	tcd_image_zstd_err_fn *is_error;
} tcd_image_zstd = { PTHREAD_ONCE_INIT, NULL, NULL };

static void tcd_image_zstd_load(void)
{
	void *dl = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	tcd_image_zstd_fn *dec = dl ? (tcd_image_zstd_fn *)dlsym(dl, "ZSTD_decompress") : NULL;
	tcd_image_zstd_err_fn *err = dl ? (tcd_image_zstd_err_fn *)dlsym(dl, "ZSTD_isError") : NULL;

	if (dec && err) {
		tcd_image_zstd.decompress = dec;
		tcd_image_zstd.is_error = err;
	} else if (dl) {
		dlclose(dl);
	}
}

/* The payload (padded to `room` bytes) holds `len` compressed bytes. */
static tcd_image_status tcd_image_inflate(struct tcd_image_ctx *c, const unsigned char *p, uint64_t room,
					  uint32_t len, uint64_t flags, uint64_t raw, unsigned char **out)
{
	unsigned char *buf;

	if (!len || len > room)
		return tcd_image_fail(c, TCD_IMAGE_INVALID,
				      "a compressed fatbin entry's %u compressed bytes do not fit its %llu-byte payload", len,
				      (unsigned long long)room);

	if (!raw || raw > TCD_IMAGE_MAX)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "a compressed fatbin entry claims %llu bytes",
				      (unsigned long long)raw);
	buf = malloc((size_t)raw + 1);
	if (!buf)
		return tcd_image_fail(c, TCD_IMAGE_NOMEM, "out of host memory");
	buf[raw] = 0;
	if (flags & TCD_IMAGE_FLAG_LZ4) {
		if (len > (uint32_t)INT32_MAX ||
		    LZ4_decompress_safe((const char *)p, (char *)buf, (int)len, (int)raw) != (int)raw)
			goto out_bad;
	} else {
		size_t n;

		pthread_once(&tcd_image_zstd.once, tcd_image_zstd_load);
		if (!tcd_image_zstd.decompress) {
			free(buf);
			return tcd_image_fail(c, TCD_IMAGE_INVALID,
					      "a fatbin entry is zstd-compressed and libzstd.so.1 is not available");
		}
		n = tcd_image_zstd.decompress(buf, (size_t)raw, p, len);
		if (tcd_image_zstd.is_error(n) || n != raw)
			goto out_bad;
	}
	*out = buf;
	return TCD_IMAGE_OK;
out_bad:
	free(buf);
	return tcd_image_fail(c, TCD_IMAGE_INVALID, "a compressed fatbin entry does not decompress to %llu bytes",
			      (unsigned long long)raw);
}

/* An ELF payload or plain ELF image: a double module, or a cubin. */
static tcd_image_status tcd_image_elf(struct tcd_image_ctx *c, const unsigned char *p, size_t max, unsigned arch,
				      bool arch_from_flags, struct tcd_image *img)
{
	size_t size = 0;
	unsigned machine;
	tcd_image_status s;

	if ((s = tcd_image_elf_size(c, p, max, &size)) != TCD_IMAGE_OK)
		return s;
	machine = tcd_image_u16(p + offsetof(Elf64_Ehdr, e_machine));
	if (machine == EM_X86_64) {
		if (tcd_image_u16(p + offsetof(Elf64_Ehdr, e_type)) != ET_DYN)
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "the image is an x86-64 ELF file but not a shared object");
		img->code = TCD_IMAGE_CODE_HOST;
		img->host = p;
		img->host_bytes = size;
		img->arch = arch;
		return TCD_IMAGE_OK;
	}
	if (machine != TCD_IMAGE_EM_CUDA)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the image is an ELF file for machine %u, not a cubin",
				      machine);
	if (arch_from_flags) {
		uint32_t fl = tcd_image_u32(p + offsetof(Elf64_Ehdr, e_flags));

		arch = p[EI_ABIVERSION] >= 8 ? (fl >> 8) & 0xff : fl & 0xff;
	}
	if (!tcd_image_arch_ok(arch, c->device_arch))
		return tcd_image_fail(c, TCD_IMAGE_NO_BINARY, "the cubin is for sm_%u, the device is sm_%u", arch,
				      c->device_arch);
	img->code = TCD_IMAGE_CODE_CUBIN;
	img->arch = arch;
	return tcd_image_cubin(c, p, size, img);
}

static tcd_image_status tcd_image_fatbin(struct tcd_image_ctx *c, const unsigned char *p, size_t max,
					 struct tcd_image *img)
{
	unsigned hsize;
	uint64_t body, off, end;
	const unsigned char *ptx = NULL, *elf = NULL;
	uint64_t ptx_len = 0, elf_len = 0, ptx_flags = 0, elf_flags = 0, ptx_raw = 0, elf_raw = 0;
	uint32_t ptx_packed = 0, elf_packed = 0;
	unsigned elf_arch = 0, ptx_arch = 0, archs = 0;
	char seen[128] = "";
	unsigned char *raw = NULL;
	tcd_image_status s;

	if (max < 16)
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the fatbin header is cut short");
	hsize = tcd_image_u16(p + 6);
	body = tcd_image_u64(p + 8);
	if (hsize < 16 || body > TCD_IMAGE_MAX || !tcd_image_within(max, hsize, body))
		return tcd_image_fail(c, TCD_IMAGE_INVALID, "the fatbin's header (%u bytes) and body (%llu bytes) do not fit",
				      hsize, (unsigned long long)body);
	end = hsize + body;
	for (off = hsize; off < end;) {
		const unsigned char *e = p + off;
		unsigned kind, ehs, arch;
		uint64_t len, flags;

		if (!tcd_image_within(end, off, TCD_IMAGE_ENTRY_MIN_HEADER))
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "fatbin entry at %llu is cut short",
					      (unsigned long long)off);
		kind = tcd_image_u16(e);
		ehs = tcd_image_u32(e + 4);
		len = tcd_image_u64(e + 8);
		arch = tcd_image_u32(e + 28);
		flags = tcd_image_u64(e + 40);
		if (ehs < TCD_IMAGE_ENTRY_MIN_HEADER || !tcd_image_within(end, off, ehs) ||
		    !tcd_image_within(end, off + ehs, len))
			return tcd_image_fail(c, TCD_IMAGE_INVALID,
					      "fatbin entry at %llu: header %u and payload %llu bytes do not fit",
					      (unsigned long long)off, ehs, (unsigned long long)len);
		if (archs++ < 8) {
			size_t n = strlen(seen);

			snprintf(seen + n, sizeof(seen) - n, "%s%s sm_%u", n ? "," : "",
				 kind == TCD_IMAGE_ENTRY_PTX ? "PTX" : kind == TCD_IMAGE_ENTRY_ELF ? "ELF" : "?", arch);
		}
		if (kind == TCD_IMAGE_ENTRY_ELF && !elf && tcd_image_arch_ok(arch, c->device_arch)) {
			elf = e + ehs;
			elf_len = len;
			elf_arch = arch;
			elf_flags = flags;
			elf_raw = tcd_image_u64(e + 56);
			elf_packed = tcd_image_u32(e + 16);
		} else if (kind == TCD_IMAGE_ENTRY_PTX && !ptx) {
			ptx = e + ehs;
			ptx_len = len;
			ptx_arch = arch;
			ptx_flags = flags;
			ptx_raw = tcd_image_u64(e + 56);
			ptx_packed = tcd_image_u32(e + 16);
		}
		off += ehs + len;
	}
	img->in_fatbin = 1;
	if (elf) {
		if (elf_flags & (TCD_IMAGE_FLAG_LZ4 | TCD_IMAGE_FLAG_ZSTD)) {
			if ((s = tcd_image_inflate(c, elf, elf_len, elf_packed, elf_flags, elf_raw, &raw)) != TCD_IMAGE_OK)
				return s;
			img->owned = raw;
			elf = raw;
			elf_len = elf_raw;
		}
		if (elf_len < SELFMAG || memcmp(elf, ELFMAG, SELFMAG) != 0)
			return tcd_image_fail(c, TCD_IMAGE_INVALID, "the fatbin's sm_%u ELF entry is not ELF", elf_arch);
		return tcd_image_elf(c, elf, (size_t)elf_len, elf_arch, false, img);
	}
	if (ptx) {
		if (ptx_flags & (TCD_IMAGE_FLAG_LZ4 | TCD_IMAGE_FLAG_ZSTD)) {
			if ((s = tcd_image_inflate(c, ptx, ptx_len, ptx_packed, ptx_flags, ptx_raw, &raw)) != TCD_IMAGE_OK)
				return s;
			img->owned = raw;
			ptx = raw;
			ptx_len = ptx_raw;
		}
		img->code = TCD_IMAGE_CODE_PTX;
		img->arch = ptx_arch;
		return tcd_image_ptx(c, (const char *)ptx, strnlen((const char *)ptx, (size_t)ptx_len), img);
	}
	return tcd_image_fail(c, TCD_IMAGE_NO_BINARY, "the fatbin has no code for sm_%u (it has: %s)", c->device_arch,
			      archs ? seen : "no entries");
}

tcd_image_status tcd_image_parse(const void *image, size_t max, unsigned device_arch, struct tcd_image **out,
				 char *why, size_t why_len)
{
	struct tcd_image_ctx c = { device_arch, why, why_len };
	const unsigned char *p = image;
	struct tcd_image *img;
	tcd_image_status s;
	uint32_t magic;

	if (why && why_len)
		why[0] = 0;
	if (!p || max < 4)
		return tcd_image_fail(&c, TCD_IMAGE_INVALID, "the image is %s", p ? "shorter than 4 bytes" : "NULL");
	img = calloc(1, sizeof(*img));
	if (!img)
		return tcd_image_fail(&c, TCD_IMAGE_NOMEM, "out of host memory");
	magic = tcd_image_u32(p);
	if (magic == TCD_IMAGE_WRAPPER_MAGIC) {
		const unsigned char *fb;

		if (max < 16) {
			s = tcd_image_fail(&c, TCD_IMAGE_INVALID, "the fatbin wrapper is cut short");
			goto out;
		}
		fb = (const unsigned char *)(uintptr_t)tcd_image_u64(p + 8);
		if (!fb || tcd_image_u32(fb) != TCD_IMAGE_FATBIN_MAGIC) {
			s = tcd_image_fail(&c, TCD_IMAGE_INVALID, "the fatbin wrapper (version %u) does not point at a fatbin",
					   tcd_image_u32(p + 4));
			goto out;
		}
		img->wrapped = 1;
		/* Version 2 (-rdc) also names a NULL-terminated list of prelinked
		 * fatbins (read from an nvcc 13.0 -rdc build); the driver reads
		 * it, so the double checks it is there and well formed. */
		if (tcd_image_u32(p + 4) == 2) {
			const uint64_t *list = max < 24 ? NULL : (const uint64_t *)(uintptr_t)tcd_image_u64(p + 16);
			size_t n = 0;
			while (list && n < 4096 && list[n]) {
				if (tcd_image_u32((const unsigned char *)(uintptr_t)list[n]) != TCD_IMAGE_FATBIN_MAGIC)
					break;
				n++;
			}
			if (!list || n == 4096 || list[n]) {
				s = tcd_image_fail(&c, TCD_IMAGE_INVALID, "the version 2 fatbin wrapper's prelinked "
						   "list is missing, unterminated or names something not a fatbin");
				goto out;
			}
			img->prelinked = n;
		}
		/* The wrapped fatbin's length is only what its header says. */
		s = tcd_image_fatbin(&c, fb, SIZE_MAX, img);
	} else if (magic == TCD_IMAGE_FATBIN_MAGIC) {
		s = tcd_image_fatbin(&c, p, max, img);
	} else if (!memcmp(p, ELFMAG, SELFMAG)) {
		s = tcd_image_elf(&c, p, max, 0, true, img);
	} else if (tcd_image_is_ptx(p, max)) {
		img->code = TCD_IMAGE_CODE_PTX;
		s = tcd_image_ptx(&c, image, strnlen(image, max < TCD_IMAGE_MAX ? max : TCD_IMAGE_MAX), img);
	} else {
		s = tcd_image_fail(&c, TCD_IMAGE_INVALID,
				   "the image is not a fatbin, fatbin wrapper, ELF file or PTX (it starts %02x %02x %02x %02x)",
				   p[0], p[1], p[2], p[3]);
	}
out:
	if (s != TCD_IMAGE_OK) {
		tcd_image_free(img);
		return s;
	}
	*out = img;
	return TCD_IMAGE_OK;
}
