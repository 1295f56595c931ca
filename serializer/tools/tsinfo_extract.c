/*
 * tsinfo_extract.c - tsinfo --extract DIR TRACE: the bytes a trace carries,
 * as files a user's own tools read (docs/tsinfo.md, "--extract"):
 *
 *   shader-SEQ.spv              vkCreateShaderModule's SPIR-V
 *   module-SEQ.cubin|.fatbin|.ptx|.bin
 *                               CUDA module and library images (the kind
 *                               the capture recognised; .bin when unknown)
 *   module-SEQ.hipfb|.ccob|.hsaco
 *                               HIP registered bundles and loaded code
 *                               objects (offload bundle, compressed
 *                               bundle, AMDGPU ELF)
 *   upload-SEQ-NAME.bin         CUDA and HIP host->device bytes (copies,
 *                               2D/3D copies packed as recorded)
 *   update-SEQ.bin              vkCmdUpdateBuffer's data
 *   memwrite-SEQ.bin            host writes into mapped Vulkan memory
 *                               (vulkan.tsMemoryWrite)
 *   memwrite-SEQ-K.bin          run K (from 0) of a vulkan.tsMemoryWrites
 *   snapshot-SEQ-0xADDR.bin     CUDA keyframe contents (cuda.tsSnapshot)
 *   index.json                  one object per file: file, seq, call, kind,
 *                               size, xxh64 and where it applies
 *
 * Each file is the record's bytes as stored; the blob store's deduplication
 * means identical contents may appear under several names.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "serializer/sbt_compute.h"
#include "serializer/sbt_dump.h"
#include "serializer/sbt_vk.h"
#include "serializer/tools/tsinfo.h"

typedef struct tsi_ex {
	const char *dir;
	sbt_reader *r;
	FILE *index;
	uint64_t files, bytes, failed;
	int first;
	sbt_vk_arena *arena;
	/* load_blob for the Vulkan decoder: the blob ids met, loaded */
	void *blob;
	size_t blob_len;
	uint64_t blob_id;
} tsi_ex;

/* Writes data to DIR/name and its index entry; where: a JSON members'
 * tail (may be ""). 0, or -1 with a message (the extraction stops). */
static int tsi_ex_write(tsi_ex *x, const char *name, uint64_t seq, const char *call,
                        const char *kind, const void *data, size_t len, const char *where)
{
	char path[4096];
	FILE *f;
	int ok;
	snprintf(path, sizeof(path), "%s/%s", x->dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "tsinfo: --extract: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	ok = (len == 0 || fwrite(data, 1, len, f) == len);
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		fprintf(stderr, "tsinfo: --extract: cannot write '%s': %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(x->index, "%s\n  {\"file\":", x->first ? "" : ",");
	tsi_json_str(x->index, name);
	fprintf(x->index, ",\"seq\":%" PRIu64 ",\"call\":", seq);
	tsi_json_str(x->index, call);
	fprintf(x->index, ",\"kind\":\"%s\",\"size\":%zu,\"xxh64\":\"%016llx\"%s}", kind, len,
	        (unsigned long long)XXH64(data, len, 0), where);
	x->first = 0;
	x->files++;
	x->bytes += len;
	return 0;
}

/* A blob's bytes, checked to be len long; NULL (counted) when missing. */
static void *tsi_ex_blob(tsi_ex *x, uint64_t id, uint64_t len, uint64_t seq, const char *call)
{
	void *data = NULL;
	size_t got = 0;
	if (sbt_reader_blob_get(x->r, id, &data, &got) != SBT_OK || got != len) {
		fprintf(stderr, "tsinfo: --extract: seq %" PRIu64 " %s: blob %" PRIu64
		        " is missing or not %" PRIu64 " bytes; skipped\n", seq, call, id, len);
		free(data);
		x->failed++;
		return NULL;
	}
	return data;
}

static const char *tsi_ex_image_ext(uint64_t sub)
{
	switch (sub) {
	case SBT_CM_IMAGE_ELF:
		return "cubin";
	case SBT_CM_IMAGE_FATBIN:
		return "fatbin";
	case SBT_CM_IMAGE_PTX:
		return "ptx";
	case SBT_CM_IMAGE_HIP_BUNDLE:
		return "hipfb";
	case SBT_CM_IMAGE_HIP_COMPRESSED:
		return "ccob";
	case SBT_CM_IMAGE_AMDGPU:
		return "hsaco";
	default:
		return "bin";
	}
}

static int tsi_ex_cuda(tsi_ex *x, const sbt_record *rec, sbt_cm_kind k, const char *call)
{
	sbt_cm_call c;
	char name[256], where[160];
	void *data;
	int rc;
	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK || !c.blob || !c.size)
		return 0;
	where[0] = 0;
	switch (k) {
	case SBT_CM_K_cuModuleLoad:
	case SBT_CM_K_cuModuleLoadData:
	case SBT_CM_K_cuModuleLoadDataEx:
	case SBT_CM_K_cuModuleLoadFatBinary:
	case SBT_CM_K_cuLibraryLoadData:
	case SBT_CM_K_cuLibraryLoadFromFile:
		snprintf(name, sizeof(name), "module-%" PRIu64 ".%s", rec->seq, tsi_ex_image_ext(c.sub));
		snprintf(where, sizeof(where), ",\"handle\":\"0x%" PRIx64 "\"", c.handle);
		break;
	case SBT_CM_K_tsSnapshot:
		snprintf(name, sizeof(name), "snapshot-%" PRIu64 "-0x%" PRIx64 ".bin", rec->seq, c.dst);
		snprintf(where, sizeof(where), ",\"address\":\"0x%" PRIx64 "\"", c.dst);
		break;
	default:
		snprintf(name, sizeof(name), "upload-%" PRIu64 "-%s.bin", rec->seq, strchr(call, '.') + 1);
		snprintf(where, sizeof(where), ",\"address\":\"0x%" PRIx64 "\"", c.dst);
		break;
	}
	data = tsi_ex_blob(x, c.blob, c.size, rec->seq, call);
	if (!data)
		return 0;
	rc = tsi_ex_write(x, name, rec->seq,
	                  call, k == SBT_CM_K_tsSnapshot ? "snapshot"
	                        : strncmp(name, "module-", 7) == 0 ? "module" : "upload",
	                  data, (size_t)c.size, where);
	free(data);
	return rc;
}

static int tsi_ex_vulkan(tsi_ex *x, const sbt_record *rec, enum sbt_vk_cmd cmd, const char *call)
{
	union {
		sbt_vk_args_vkCreateShaderModule sm;
		sbt_vk_args_vkCmdUpdateBuffer ub;
	} a;
	sbt_vk_reader_blobs blobs = {x->r, x->arena};
	sbt_vk_decode_hooks hooks = {&blobs, NULL, sbt_vk_load_reader_blob};
	char name[128], where[160];
	memset(&a, 0, sizeof(a));
	sbt_vk_arena_reset(x->arena);
	if (sbt_vk_decode(cmd, rec->payload, rec->payload_len, x->arena, &a, &hooks) != SBT_VK_OK) {
		fprintf(stderr, "tsinfo: --extract: seq %" PRIu64 " %s: cannot decode: %s; skipped\n",
		        rec->seq, call, sbt_vk_arena_message(x->arena));
		x->failed++;
		return 0;
	}
	if (cmd == SBT_VK_CMD_vkCreateShaderModule) {
		const VkShaderModuleCreateInfo *ci = a.sm.pCreateInfo;
		if (!ci || !ci->pCode || !ci->codeSize)
			return 0;
		snprintf(name, sizeof(name), "shader-%" PRIu64 ".spv", rec->seq);
		snprintf(where, sizeof(where), ",\"handle\":\"0x%" PRIx64 "\"",
		         a.sm.pShaderModule ? (uint64_t)(uintptr_t)*a.sm.pShaderModule : 0);
		return tsi_ex_write(x, name, rec->seq, call, "shader", ci->pCode, ci->codeSize, where);
	}
	if (!a.ub.pData || !a.ub.dataSize)
		return 0;
	snprintf(name, sizeof(name), "update-%" PRIu64 ".bin", rec->seq);
	snprintf(where, sizeof(where), ",\"buffer\":\"0x%" PRIx64 "\",\"offset\":%" PRIu64,
	         (uint64_t)(uintptr_t)a.ub.dstBuffer, (uint64_t)a.ub.dstOffset);
	return tsi_ex_write(x, name, rec->seq, call, "update", a.ub.pData, (size_t)a.ub.dataSize,
	                    where);
}

static int tsi_ex_memwrite(tsi_ex *x, const sbt_record *rec)
{
	sbt_vk_ts_memory_write w;
	char name[128], where[160];
	void *data;
	int rc;
	if (sbt_vk_ts_memory_write_decode(rec->payload, rec->payload_len, &w) != SBT_VK_OK ||
	    !w.blob_id || !w.size)
		return 0;
	data = tsi_ex_blob(x, w.blob_id, w.size, rec->seq, SBT_VK_TS_MEMORY_WRITE_NAME);
	if (!data)
		return 0;
	snprintf(name, sizeof(name), "memwrite-%" PRIu64 ".bin", rec->seq);
	snprintf(where, sizeof(where), ",\"memory\":\"0x%" PRIx64 "\",\"offset\":%" PRIu64,
	         w.memory, w.offset);
	rc = tsi_ex_write(x, name, rec->seq, SBT_VK_TS_MEMORY_WRITE_NAME, "memwrite", data,
	                  (size_t)w.size, where);
	free(data);
	return rc;
}

/* One file per run: each names its memory and offset, as a tsMemoryWrite's
 * file does. */
static int tsi_ex_memwrites(tsi_ex *x, const sbt_record *rec)
{
	sbt_vk_ts_memory_writes w;
	sbt_vk_ts_run_iter it;
	uint64_t off, size, at, k = 0;
	char name[128], where[160];
	uint8_t *data;
	int rc = 0;
	if (sbt_vk_ts_memory_writes_decode(rec->payload, rec->payload_len, &w) != SBT_VK_OK ||
	    !w.blob_id)
		return 0;
	data = tsi_ex_blob(x, w.blob_id, w.bytes, rec->seq, SBT_VK_TS_MEMORY_WRITES_NAME);
	if (!data)
		return 0;
	sbt_vk_ts_run_iter_init(&it, &w);
	while (rc == 0 && sbt_vk_ts_run_iter_next(&it, &off, &size, &at)) {
		snprintf(name, sizeof(name), "memwrite-%" PRIu64 "-%" PRIu64 ".bin", rec->seq, k++);
		snprintf(where, sizeof(where), ",\"memory\":\"0x%" PRIx64 "\",\"offset\":%" PRIu64,
		         w.memory, off);
		rc = tsi_ex_write(x, name, rec->seq, SBT_VK_TS_MEMORY_WRITES_NAME, "memwrite",
		                  data + at, (size_t)size, where);
	}
	free(data);
	return rc;
}

int tsi_extract(const char *path, sbt_reader *r, const char *dir)
{
	tsi_ex x;
	sbt_record rec;
	sbt_status st;
	struct stat sb;
	char ipath[4096];
	int rc = TSI_EXIT_OK;

	memset(&x, 0, sizeof(x));
	x.dir = dir;
	x.r = r;
	x.first = 1;
	if (stat(dir, &sb) == 0) {
		if (!S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "tsinfo: --extract: '%s' exists and is not a folder\n", dir);
			return TSI_EXIT_USAGE;
		}
	} else if (mkdir(dir, 0777) != 0) {
		fprintf(stderr, "tsinfo: --extract: cannot make folder '%s': %s\n", dir, strerror(errno));
		return TSI_EXIT_USAGE;
	}
	snprintf(ipath, sizeof(ipath), "%s/index.json", dir);
	x.index = fopen(ipath, "w");
	if (!x.index || sbt_vk_arena_create(0, &x.arena) != SBT_VK_OK) {
		fprintf(stderr, "tsinfo: --extract: cannot write '%s': %s\n", ipath, strerror(errno));
		if (x.index)
			fclose(x.index);
		return TSI_EXIT_BAD;
	}
	fprintf(x.index, "{\"trace\":");
	tsi_json_str(x.index, path);
	fprintf(x.index, ",\"files\":[");
	while ((st = sbt_reader_next(r, &rec)) == SBT_OK) {
		const char *name = sbt_dump_type_name(r, rec.type);
		sbt_cm_kind k;
		enum sbt_vk_cmd cmd;
		int wrc = 0;
		if (!name)
			continue;
		if ((strncmp(name, "cuda.", 5) == 0 || strncmp(name, "hip.", 4) == 0) &&
		    sbt_cm_kind_by_name(name, &k) == 0)
			wrc = tsi_ex_cuda(&x, &rec, k, name);
		else if (strcmp(name, SBT_VK_TS_MEMORY_WRITE_NAME) == 0)
			wrc = tsi_ex_memwrite(&x, &rec);
		else if (strcmp(name, SBT_VK_TS_MEMORY_WRITES_NAME) == 0)
			wrc = tsi_ex_memwrites(&x, &rec);
		else if (strncmp(name, "vulkan.", 7) == 0 && sbt_vk_cmd_by_name(name, &cmd) == 0 &&
		         (cmd == SBT_VK_CMD_vkCreateShaderModule || cmd == SBT_VK_CMD_vkCmdUpdateBuffer))
			wrc = tsi_ex_vulkan(&x, &rec, cmd, name);
		if (wrc != 0) {
			rc = TSI_EXIT_BAD;
			break;
		}
	}
	fprintf(x.index, "\n]}\n");
	if (fclose(x.index) != 0 && rc == TSI_EXIT_OK) {
		fprintf(stderr, "tsinfo: --extract: cannot write '%s': %s\n", ipath, strerror(errno));
		rc = TSI_EXIT_BAD;
	}
	sbt_vk_arena_free(x.arena);
	if (rc == TSI_EXIT_OK && st != SBT_END) {
		fprintf(stderr, "tsinfo: --extract: %s: stopped at damage: %s\n", path,
		        sbt_reader_message(r)[0] ? sbt_reader_message(r) : sbt_strerror(st));
		rc = TSI_EXIT_BAD;
	}
	printf("tsinfo: extracted %" PRIu64 " files (%" PRIu64 " bytes) into %s%s\n", x.files, x.bytes,
	       dir, x.failed ? "; some records skipped (above)" : "");
	return rc != TSI_EXIT_OK ? rc : x.failed ? TSI_EXIT_BAD : TSI_EXIT_OK;
}
