/*
 * sbt_amd.h - the AMDGPU code-object reader: what the HIP interposer, the
 * HIP replayer and the HIP double share to size the images a program hands
 * the HIP runtime and to read their kernels' argument layout.  One place,
 * because every one of them meets the same untrusted bytes (a trace's
 * blobs on replay): every length, count and offset is checked against the
 * bytes given, and a fuzz target (tests/fuzz/fuzz_amd_image.c) runs it.
 *
 * FORMATS (read from Debian's ROCm 5.2.3 hipcc output; docs/hip.md)
 *
 *   HIP fat-binary wrapper (section .hipFatBinSegment, what the runtime's
 *   __hipRegisterFatBinary receives), 24 bytes, little-endian:
 *     0  u32  magic 0x48495046 ("FPIH" in memory)
 *     4  u32  version (1)
 *     8  u64  pointer to the code object bundle (section .hip_fatbin)
 *    16  u64  reserved (0)
 *   It holds a pointer: only ever followed in the process that made it.
 *
 *   Clang offload bundle (what hipcc --genco writes, what the wrapper
 *   points to):
 *     0  24 bytes  "__CLANG_OFFLOAD_BUNDLE__"
 *    24  u64       entry count
 *    32  entries, each: u64 offset (from the bundle's start), u64 size,
 *                       u64 id length, id bytes (no NUL), e.g.
 *                       "hipv4-amdgcn-amd-amdhsa--gfx90a"; the host entry
 *                       ("host-x86_64-unknown-linux-gnu") has size 0.
 *   Its size is the largest offset + size over the entries (not less than
 *   the end of the entry table).  The .hip_fatbin section is padded past
 *   it (one byte more here); --genco files end exactly there.
 *
 *   Compressed offload bundle (clang-offload-bundler -compress, ROCm >= 6;
 *   layout from LLVM's OffloadBundler and its documentation; version 2 as
 *   Debian's LLVM 19 clang-offload-bundler -compress writes it):
 *     0  "CCOB"  4  u16 version  6  u16 compression method
 *                                   (llvm::compression::Format: 0 zlib,
 *                                   1 zstd)
 *     v1:  8 u32 uncompressed size, 12 u64 hash            (20 bytes)
 *     v2:  8 u32 total size, 12 u32 uncompressed size, 16 u64 hash (24)
 *     v3:  8 u64 total size, 16 u64 uncompressed size, 24 u64 hash (32)
 *   then the compressed bytes: one zlib stream (RFC 1950) or one zstd
 *   frame, to the total size, which counts the header.  The hash is the
 *   first 8 bytes of the MD5 digest of the uncompressed bundle (kept, not
 *   checked here).  A version 1 bundle has no total size: it ends where its
 *   stream does (a zstd frame's size is in its block headers; a zlib
 *   stream is run to its end).  Inflated, it is a clang offload bundle.
 *
 *   AMDGPU code object: a 64-bit little-endian ELF (e_machine EM_AMDGPU,
 *   224), sized from its header and section tables (sbt_cm_image_size).
 *   Its metadata is the note "AMDGPU" of type NT_AMDGPU_METADATA (32): a
 *   MessagePack map whose "amdhsa.kernels" is an array of maps with
 *   ".name", ".symbol", ".kernarg_segment_size" and ".args", an array of
 *   maps with ".offset", ".size", ".value_kind" ("global_buffer",
 *   "by_value", "hidden_*", ...).  Read with libelf and msgpack-c.
 *
 * Threading: reentrant; a sbt_amd_meta is read-only once built.
 */
#ifndef TRACESMITH_SBT_AMD_H
#define TRACESMITH_SBT_AMD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBT_AMD_STATUS_LIST(X)                                                 \
	X(SBT_AMD_OK, "ok")                                                        \
	X(SBT_AMD_ERR_UNKNOWN, "not an AMDGPU image (no known magic)")             \
	X(SBT_AMD_ERR_TRUNCATED, "image is shorter than its header says")          \
	X(SBT_AMD_ERR_CORRUPT, "image header is inconsistent")                     \
	X(SBT_AMD_ERR_UNSUPPORTED, "image format cannot be read here")             \
	X(SBT_AMD_ERR_NO_METADATA, "code object has no AMDGPU metadata note")      \
	X(SBT_AMD_ERR_METADATA, "code object metadata is malformed")               \
	X(SBT_AMD_ERR_NOMEM, "out of memory")

typedef enum sbt_amd_status {
#define SBT_AMD_X_ENUM(name, text) name,
	SBT_AMD_STATUS_LIST(SBT_AMD_X_ENUM)
#undef SBT_AMD_X_ENUM
} sbt_amd_status;

const char *sbt_amd_strerror(sbt_amd_status st);

#define SBT_AMD_WRAPPER_MAGIC 0x48495046u
#define SBT_AMD_WRAPPER_BYTES 24u
#define SBT_AMD_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define SBT_AMD_BUNDLE_MAGIC_LEN 24u
#define SBT_AMD_CCOB_MAGIC "CCOB"
#define SBT_AMD_EM_AMDGPU 224u
#define SBT_AMD_NT_METADATA 32u

typedef enum sbt_amd_kind {
	SBT_AMD_IMAGE_UNKNOWN = 0,
	SBT_AMD_IMAGE_WRAPPER = 1,    /* the 24-byte fat-binary wrapper (holds a pointer) */
	SBT_AMD_IMAGE_BUNDLE = 2,     /* clang offload bundle */
	SBT_AMD_IMAGE_COMPRESSED = 3, /* compressed bundle (CCOB) */
	SBT_AMD_IMAGE_ELF = 4         /* one AMDGPU code object */
} sbt_amd_kind;

/*
 * The kind and length of the image at p, reading at most max bytes
 * (max = SIZE_MAX trusts the image: a runtime call that gets no length).
 * SBT_AMD_OK with *size_out and *kind_out set, else a status naming why.
 */
/* Write a reason into why (n bytes, always terminated); nothing when why
 * is NULL.  The readers' one formatter for their refusals. */
void sbt_amd_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

sbt_amd_status sbt_amd_image_size(const void *p, size_t max, size_t *size_out,
                                  sbt_amd_kind *kind_out);

/* ---- compressed bundles (sbt_amd_ccob.c, with zlib and libzstd) ---------- */

#define SBT_AMD_CCOB_ZLIB 0u
#define SBT_AMD_CCOB_ZSTD 1u
/* The largest inflated size a header may state (1 GiB): a trace is
 * untrusted, and one stating more is refused before anything is inflated. */
#define SBT_AMD_CCOB_RAW_MAX ((uint64_t)1 << 30)

typedef struct sbt_amd_ccob {
	unsigned version; /* 1, 2 or 3 */
	unsigned method;  /* SBT_AMD_CCOB_ZLIB or SBT_AMD_CCOB_ZSTD */
	uint64_t head;    /* header bytes */
	uint64_t total;   /* the whole bundle, header included (v1: where its stream ends) */
	uint64_t raw;     /* the inflated size its header states */
	uint64_t hash;    /* its truncated MD5, as stored */
} sbt_amd_ccob;

/*
 * The header of the compressed bundle at p (at most max bytes; SIZE_MAX
 * trusts it) into *out, its total size found (a version 1 bundle's from
 * its stream).  why (n bytes, may be NULL) names what is wrong otherwise.
 */
sbt_amd_status sbt_amd_ccob_header(const void *p, size_t max, sbt_amd_ccob *out, char *why,
                                   size_t n);
/*
 * The offload bundle the compressed bundle p (len bytes) holds, inflated
 * into a new buffer (*out, owned by the caller, *out_len bytes: exactly the
 * size its header states).  A stream that makes fewer or more bytes than
 * that, ends before or after its total size, or is damaged is refused
 * (SBT_AMD_ERR_CORRUPT / _TRUNCATED, why naming it).
 */
sbt_amd_status sbt_amd_ccob_inflate(const void *p, size_t len, uint8_t **out, size_t *out_len,
                                    char *why, size_t n);

/* The bundle a wrapper points to (NULL when p is not a wrapper).  Only in
 * the process that made the wrapper. */
const void *sbt_amd_wrapper_bundle(const void *p, unsigned *version_out);

/* One entry of an offload bundle; id borrowed from the bundle bytes. */
typedef struct sbt_amd_entry {
	uint64_t offset;
	uint64_t size;
	const char *id; /* not NUL-terminated */
	size_t id_len;
} sbt_amd_entry;

/* Entry count of the bundle p (len bytes, checked as by image_size). */
sbt_amd_status sbt_amd_bundle_count(const void *p, size_t len, size_t *count_out);
/* Entry i; its bytes lie inside [p, p + len) once this returns SBT_AMD_OK. */
sbt_amd_status sbt_amd_bundle_entry_at(const void *p, size_t len, size_t i, sbt_amd_entry *out);

/* ---- code object metadata ------------------------------------------------ */

typedef enum sbt_amd_arg_kind {
	SBT_AMD_ARG_BY_VALUE = 0,
	SBT_AMD_ARG_GLOBAL_BUFFER = 1, /* a device pointer */
	SBT_AMD_ARG_HIDDEN = 2,        /* hidden_*: filled by the runtime, not the program */
	SBT_AMD_ARG_OTHER = 3          /* dynamic_shared_pointer, image, sampler, pipe, queue */
} sbt_amd_arg_kind;

typedef struct sbt_amd_arg {
	uint32_t offset;
	uint32_t size;
	sbt_amd_arg_kind kind;
} sbt_amd_arg;

typedef struct sbt_amd_kernel {
	const char *name;       /* ".name": the mangled kernel name */
	const char *symbol;     /* ".symbol": name + ".kd" */
	uint64_t kernarg_size;  /* ".kernarg_segment_size" (hidden arguments included) */
	size_t arg_count;       /* every entry of ".args", hidden ones included */
	const sbt_amd_arg *args;
	size_t explicit_count;  /* the leading arguments the program passes */
} sbt_amd_kernel;

typedef struct sbt_amd_meta sbt_amd_meta;

/*
 * Read the kernels of the code object elf (len bytes; copied, the caller
 * keeps its buffer) into *out.  why (n bytes, may be NULL) gets a message
 * naming what is wrong when the status is not SBT_AMD_OK.
 */
sbt_amd_status sbt_amd_meta_read(const void *elf, size_t len, sbt_amd_meta **out, char *why,
                                 size_t n);
/*
 * The same for every code object of an image (a bundle, or one ELF): the
 * first amdgcn entry that has metadata is read (every target of a bundle
 * is built from the same source, so its kernels and explicit arguments
 * agree); a compressed bundle is inflated first (sbt_amd_ccob_inflate) and
 * must hold a plain offload bundle.  Wrappers are SBT_AMD_ERR_UNSUPPORTED.
 */
sbt_amd_status sbt_amd_meta_read_image(const void *image, size_t len, sbt_amd_meta **out,
                                       char *why, size_t n);
void sbt_amd_meta_free(sbt_amd_meta *m);
size_t sbt_amd_meta_count(const sbt_amd_meta *m);
const sbt_amd_kernel *sbt_amd_meta_kernel(const sbt_amd_meta *m, size_t i);
/* By ".name"; NULL when absent. */
const sbt_amd_kernel *sbt_amd_meta_find(const sbt_amd_meta *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* TRACESMITH_SBT_AMD_H */
