/*
 * rpcu_image.c - which GPU architecture a module image is built for, so that
 * a load the driver refuses with CUDA_ERROR_NO_BINARY_FOR_GPU can name both
 * the image's architecture and the device's.
 *
 * ELF cubin (e_machine 190, EM_CUDA): the SM number lives in e_flags.
 *   From ELF ABI version 8 on (CUDA 12.8+, byte EI_ABIVERSION of e_ident)
 *   it is bits 8..15: the sm_90 cubin of tests/fixtures/h100 has e_flags
 *   0x06005a04, 0x5a = 90.  Before, bits 0..7 (0x5a055a for sm_90).
 * Fatbin (u32 magic 0xBA55ED50, u16 version, u16 header size, u64 body
 *   size): the body is a sequence of entries, each
 *     u16 kind (1 PTX, 2 ELF), u16 version, u32 entry header size,
 *     u64 payload size, ..., u32 arch at offset 28 (90 for sm_90),
 *   the payload following the entry header.  Read from the fatbins of the
 *   real H100 traces (../shared/gpu-fixtures/fixed-va-prototype).
 * Every offset is checked against the length given; nothing is trusted.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <stdio.h>
#include <string.h>

#define RPCU_EM_CUDA 190u
#define RPCU_FATBIN_ENTRY_MIN 32u

static uint32_t rpcu_img_u16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rpcu_img_u32(const uint8_t *p)
{
	return rpcu_img_u16(p) | (uint32_t)rpcu_img_u16(p + 2) << 16;
}

static uint64_t rpcu_img_u64(const uint8_t *p)
{
	return (uint64_t)rpcu_img_u32(p) | (uint64_t)rpcu_img_u32(p + 4) << 32;
}

/* Append "sm_N" (once) to buf. */
static void rpcu_img_note(char *buf, size_t buflen, unsigned arch, const char *kind)
{
	char one[32];
	size_t used = strlen(buf);
	snprintf(one, sizeof(one), "sm_%u%s", arch, kind);
	if (strstr(buf, one) || used + 2 >= buflen)
		return;
	snprintf(buf + used, buflen - used, "%s%s", used ? ", " : "", one);
}

static unsigned rpcu_img_elf_arch(const uint8_t *p, size_t len)
{
	uint32_t flags;
	if (len < 52 || memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1 ||
	    rpcu_img_u16(p + 18) != RPCU_EM_CUDA)
		return 0;
	flags = rpcu_img_u32(p + 48);
	return p[8] >= 8 ? (flags >> 8) & 0xffu : flags & 0xffu;
}

unsigned rpcu_image_arch(const void *img, size_t len, char *buf, size_t buflen)
{
	const uint8_t *p = img;
	unsigned arch, first = 0;
	uint64_t body, off;

	if (buflen)
		buf[0] = '\0';
	if (!p || !buflen)
		return 0;
	arch = rpcu_img_elf_arch(p, len);
	if (arch) {
		rpcu_img_note(buf, buflen, arch, "");
		return arch;
	}
	if (len < 16 || rpcu_img_u32(p) != SBT_CM_FATBIN_MAGIC)
		return 0;
	off = rpcu_img_u16(p + 6);
	body = rpcu_img_u64(p + 8);
	if (off < 16 || off > len || body > len - off)
		return 0;
	body += off;
	while (off + RPCU_FATBIN_ENTRY_MIN <= body) {
		const uint8_t *e = p + off;
		uint32_t kind = rpcu_img_u16(e), hsize = rpcu_img_u32(e + 4);
		uint64_t size = rpcu_img_u64(e + 8);
		arch = rpcu_img_u32(e + 28);
		if (hsize < RPCU_FATBIN_ENTRY_MIN || hsize > body - off || size > body - off - hsize)
			break;
		if (arch && arch < 1000) {
			rpcu_img_note(buf, buflen, arch, kind == 1 ? " (PTX)" : "");
			if (!first)
				first = arch;
		}
		off += hsize + size;
	}
	return first;
}
