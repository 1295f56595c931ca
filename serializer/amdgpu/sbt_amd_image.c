/*
 * sbt_amd_image.c - sizing the images the HIP runtime is handed: the
 * fat-binary wrapper, clang offload bundles, compressed bundles (their
 * header: sbt_amd_ccob.c) and bare AMDGPU code objects (formats:
 * sbt_amd.h).  The interposer sizes every image it sees.
 */
#include <stdint.h>
#include <string.h>

#include "serializer/amdgpu/sbt_amd.h"
#include "serializer/sbt_compute.h"
#include "serializer/sbt_format.h"

static const char *const sbt_amd_status_text[] = {
#define SBT_AMD_X_TEXT(name, text) text,
	SBT_AMD_STATUS_LIST(SBT_AMD_X_TEXT)
#undef SBT_AMD_X_TEXT
};

const char *sbt_amd_strerror(sbt_amd_status st)
{
	if ((unsigned)st >= sizeof(sbt_amd_status_text) / sizeof(sbt_amd_status_text[0]))
		return "unknown status";
	return sbt_amd_status_text[st];
}

/* The bundle's entry table: 32 bytes of header, then 24 bytes + id each. */
#define SBT_AMD_BUNDLE_HEAD 32u
#define SBT_AMD_ENTRY_FIXED 24u

/*
 * Walk the entry table of the bundle at p (at most max bytes): the end of
 * the table and the largest offset + size.  Entry i is returned through
 * want/entry_out when want is not SIZE_MAX.
 */
static sbt_amd_status sbt_amd_bundle_walk(const uint8_t *p, size_t max, size_t want,
                                          size_t *count_out, uint64_t *size_out,
                                          sbt_amd_entry *entry_out)
{
	uint64_t count, pos = SBT_AMD_BUNDLE_HEAD, end;
	if (max < SBT_AMD_BUNDLE_HEAD)
		return SBT_AMD_ERR_TRUNCATED;
	if (memcmp(p, SBT_AMD_BUNDLE_MAGIC, SBT_AMD_BUNDLE_MAGIC_LEN) != 0)
		return SBT_AMD_ERR_UNKNOWN;
	count = sbt_fmt_load_u64(p + SBT_AMD_BUNDLE_MAGIC_LEN);
	/* Each entry takes at least its fixed part: a count the bytes cannot
	 * hold is corrupt, whatever the ids' lengths. */
	if (count == 0 || count > (max - SBT_AMD_BUNDLE_HEAD) / SBT_AMD_ENTRY_FIXED)
		return count ? SBT_AMD_ERR_TRUNCATED : SBT_AMD_ERR_CORRUPT;
	end = 0;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t off, size, idlen;
		if (max - pos < SBT_AMD_ENTRY_FIXED)
			return SBT_AMD_ERR_TRUNCATED;
		off = sbt_fmt_load_u64(p + pos);
		size = sbt_fmt_load_u64(p + pos + 8);
		idlen = sbt_fmt_load_u64(p + pos + 16);
		pos += SBT_AMD_ENTRY_FIXED;
		if (idlen > max - pos)
			return SBT_AMD_ERR_TRUNCATED;
		if (off + size < off)
			return SBT_AMD_ERR_CORRUPT;
		if (i == want && entry_out) {
			entry_out->offset = off;
			entry_out->size = size;
			entry_out->id = (const char *)p + pos;
			entry_out->id_len = (size_t)idlen;
		}
		pos += idlen;
		if (off + size > end)
			end = off + size;
	}
	if (pos > end)
		end = pos;
	if (end > max)
		return SBT_AMD_ERR_TRUNCATED;
	if (count_out)
		*count_out = (size_t)count;
	if (size_out)
		*size_out = end;
	return SBT_AMD_OK;
}

static sbt_amd_status sbt_amd_ccob_size(const uint8_t *p, size_t max, uint64_t *size_out)
{
	sbt_amd_ccob h;
	sbt_amd_status st = sbt_amd_ccob_header(p, max, &h, NULL, 0);

	if (st == SBT_AMD_OK)
		*size_out = h.total;
	return st;
}

sbt_amd_status sbt_amd_image_size(const void *image, size_t max, size_t *size_out,
                                  sbt_amd_kind *kind_out)
{
	const uint8_t *p = image;
	sbt_amd_status st = SBT_AMD_ERR_UNKNOWN;
	sbt_amd_kind kind = SBT_AMD_IMAGE_UNKNOWN;
	uint64_t size = 0;
	if (!p || max < 4)
		goto out;
	if (sbt_fmt_load_u32(p) == SBT_AMD_WRAPPER_MAGIC) {
		st = max < SBT_AMD_WRAPPER_BYTES ? SBT_AMD_ERR_TRUNCATED : SBT_AMD_OK;
		kind = SBT_AMD_IMAGE_WRAPPER;
		size = SBT_AMD_WRAPPER_BYTES;
	} else if (p[0] == '_' && max >= SBT_AMD_BUNDLE_MAGIC_LEN &&
	           memcmp(p, SBT_AMD_BUNDLE_MAGIC, SBT_AMD_BUNDLE_MAGIC_LEN) == 0) {
		kind = SBT_AMD_IMAGE_BUNDLE;
		st = sbt_amd_bundle_walk(p, max, SIZE_MAX, NULL, &size, NULL);
	} else if (memcmp(p, SBT_AMD_CCOB_MAGIC, 4) == 0) {
		kind = SBT_AMD_IMAGE_COMPRESSED;
		st = sbt_amd_ccob_size(p, max, &size);
	} else if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
		unsigned cm_kind = 0;
		kind = SBT_AMD_IMAGE_ELF;
		if (max < 64) {
			st = SBT_AMD_ERR_TRUNCATED;
			goto out;
		}
		if (sbt_fmt_load_u16(p + 18) != SBT_AMD_EM_AMDGPU) {
			st = SBT_AMD_ERR_UNKNOWN; /* an ELF, but not a code object */
			kind = SBT_AMD_IMAGE_UNKNOWN;
			goto out;
		}
		size = sbt_cm_image_size(p, max, &cm_kind);
		st = size && cm_kind == SBT_CM_IMAGE_ELF ? SBT_AMD_OK : SBT_AMD_ERR_TRUNCATED;
	}
out:
	if (st != SBT_AMD_OK)
		size = 0;
	if (size_out)
		*size_out = (size_t)size;
	if (kind_out)
		*kind_out = kind;
	return st;
}

const void *sbt_amd_wrapper_bundle(const void *image, unsigned *version_out)
{
	const uint8_t *p = image;
	const void *bundle = NULL;
	unsigned version = 0;
	if (p && sbt_fmt_load_u32(p) == SBT_AMD_WRAPPER_MAGIC) {
		version = sbt_fmt_load_u32(p + 4);
		bundle = (const void *)(uintptr_t)sbt_fmt_load_u64(p + 8);
	}
	if (version_out)
		*version_out = version;
	return bundle;
}

sbt_amd_status sbt_amd_bundle_count(const void *p, size_t len, size_t *count_out)
{
	if (!p)
		return SBT_AMD_ERR_UNKNOWN;
	return sbt_amd_bundle_walk(p, len, SIZE_MAX, count_out, NULL, NULL);
}

sbt_amd_status sbt_amd_bundle_entry_at(const void *p, size_t len, size_t i, sbt_amd_entry *out)
{
	size_t count = 0;
	sbt_amd_status st;
	if (!p || !out)
		return SBT_AMD_ERR_UNKNOWN;
	st = sbt_amd_bundle_walk(p, len, i, &count, NULL, out);
	if (st != SBT_AMD_OK)
		return st;
	return i < count ? SBT_AMD_OK : SBT_AMD_ERR_CORRUPT;
}
