/*
 * sbt_vk.h - the Vulkan call codec: every vk.xml command as an SBT record
 * payload, and back.
 *
 * The codec itself is generated (scripts/vkgen/gen.py from vk.xml 1.3.239
 * into serializer/generated/sbt_vk_codec.{h,c}); this header is the
 * hand-written interface around it, and the only one front-ends, tsreplay
 * and tsinfo include.  docs/vulkan-codec.md specifies the wire encoding.
 *
 * Record types.  Each Vulkan command is one record type named
 * "vulkan.<vkName>", number SBT_VK_TYPE_BASE + its enum sbt_vk_cmd id (ids
 * follow vk.xml order, so they are stable for one vk.xml, and only for it).
 * Readers go by NAME: sbt_reader_type_name() then sbt_vk_cmd_by_name().
 * Extra record kinds of the Vulkan front-end are named "vulkan.ts<Name>"
 * and listed here (SBT_VK_TS_*); add more only here, additively.
 *
 * Payloads.  sbt_vk_encode() writes every parameter: inputs in full
 * (structs, arrays with their counts, strings, unions, pNext chains by
 * sType, handles as u64), outputs (non-const pointer parameters) with their
 * values after the call, then the return value.  sbt_vk_decode() rebuilds
 * the argument struct in an arena; a trace is untrusted input, so every
 * count is checked against the payload and the arena has a size limit.
 *
 * Threading: an sbt_vk_enc or sbt_vk_arena belongs to one thread at a time
 * (keep one per thread and reuse it: the steady state allocates nothing).
 * Everything else here is read-only tables and may be called from any thread.
 *
 * Byte order: integers are LEB128 varints (signed ones zigzag), floats and
 * arrays of plain-data structs are copied in host order, which the SBT
 * format defines as little-endian (x86-64 and AArch64 hosts only).
 */
#ifndef TRACESMITH_SBT_VK_H
#define TRACESMITH_SBT_VK_H

#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>

#include "tracesmith/sbt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ---------------------------------------------------------- */

#define SBT_VK_STATUS_LIST(X)                                                  \
	X(SBT_VK_OK, "success")                                                    \
	X(SBT_VK_ERR_ARG, "invalid argument")                                      \
	X(SBT_VK_ERR_NOMEM, "out of memory")                                       \
	X(SBT_VK_ERR_TRUNCATED, "payload ends inside a field")                     \
	X(SBT_VK_ERR_CORRUPT, "payload is malformed")                              \
	X(SBT_VK_ERR_LIMIT, "payload needs more memory than the arena limit")      \
	X(SBT_VK_ERR_HANDLE, "payload names a handle the map does not know")       \
	X(SBT_VK_ERR_BLOB, "payload refers to a blob that could not be loaded")    \
	X(SBT_VK_ERR_UNSUPPORTED, "command or structure not carried by the codec")  \
	X(SBT_VK_ERR_INVALID, "payload holds what no encoder writes for a valid call")

typedef enum {
#define SBT_VK_X_ENUM(name, msg) name,
	SBT_VK_STATUS_LIST(SBT_VK_X_ENUM)
#undef SBT_VK_X_ENUM
	SBT_VK_STATUS_COUNT
} sbt_vk_status;

const char *sbt_vk_strerror(sbt_vk_status st);

/* ---- record types ------------------------------------------------------ */

/* Front-end record kinds ("vulkan.ts<Name>"), below the command range. */
#define SBT_VK_TYPE_TS_MEMORY_WRITE 0x1000u /* "vulkan.tsMemoryWrite" */
#define SBT_VK_TYPE_TS_RESULT 0x1001u       /* "vulkan.tsResult" */
#define SBT_VK_TYPE_TS_QUERY_RESULTS 0x1002u /* "vulkan.tsQueryResults" */
#define SBT_VK_TYPE_TS_MEMORY_WRITES 0x1003u /* "vulkan.tsMemoryWrites" */
/* Command cmd is record type SBT_VK_TYPE_BASE + cmd. */
#define SBT_VK_TYPE_BASE 0x1100u

#define SBT_VK_TS_MEMORY_WRITE_NAME "vulkan.tsMemoryWrite"
#define SBT_VK_TS_RESULT_NAME "vulkan.tsResult"
#define SBT_VK_TS_QUERY_RESULTS_NAME "vulkan.tsQueryResults"
#define SBT_VK_TS_MEMORY_WRITES_NAME "vulkan.tsMemoryWrites"
#define SBT_VK_API_NAME "vulkan" /* the trace meta "api" */

/*
 * Generated: enum sbt_vk_cmd { SBT_VK_CMD_vkCreateBuffer, ..., SBT_VK_CMD_COUNT },
 * one argument struct per command,
 *     typedef struct sbt_vk_args_vkCreateBuffer {
 *         VkDevice device; const VkBufferCreateInfo *pCreateInfo;
 *         const VkAllocationCallbacks *pAllocator; VkBuffer *pBuffer;
 *         VkResult ret;          (non-void commands only)
 *     } sbt_vk_args_vkCreateBuffer;
 * (members named and typed as the prototype's parameters; array parameters
 * such as blendConstants[4] become pointers), and a typed encoder per command,
 * sbt_vk_encode_vkCreateBuffer(enc, const sbt_vk_args_vkCreateBuffer *).
 * Commands of window-system platforms have their argument struct only where
 * the platform macro (VK_USE_PLATFORM_XCB_KHR, ..._XLIB_KHR) is defined
 * before this header is included; their ids always exist.
 */
#include "serializer/generated/sbt_vk_codec.h"

#define SBT_VK_CMD_TYPE(cmd) (SBT_VK_TYPE_BASE + (uint32_t)(cmd))

/* "vkCreateBuffer" (no "vulkan." prefix); NULL when out of range. */
const char *sbt_vk_cmd_name(enum sbt_vk_cmd cmd);
/* Record type name "vulkan.vkCreateBuffer"; NULL when out of range. */
const char *sbt_vk_cmd_type_name(enum sbt_vk_cmd cmd);
/* Name -> id; accepts "vkCreateBuffer" or "vulkan.vkCreateBuffer".
 * Returns 0, or -1 when the name is not a command of our vk.xml. */
int sbt_vk_cmd_by_name(const char *name, enum sbt_vk_cmd *cmd_out);
/* sizeof the command's sbt_vk_args_<vkName> struct (0 when out of range). */
size_t sbt_vk_args_size(enum sbt_vk_cmd cmd);

/* The flat form of a vkCmd*'s arguments, for copying them cheaply now and
 * encoding them later: the argument struct's bytes (the return value)
 * plus, when one parameter points to plain elements (push constant bytes,
 * viewports, copy regions), those array_len_out bytes at *array_out, whose
 * pointer lies at byte ptr_off_out of the struct.  0 (and no array) when
 * the command has no flat form: other pointers, or not a vkCmd*.
 * Generated; the Vulkan layer uses it for trimmed capture. */
size_t sbt_vk_flat(enum sbt_vk_cmd cmd, const void *args, const void **array_out,
                   size_t *array_len_out, size_t *ptr_off_out);

/* Every record type of the Vulkan front-end (commands and ts records), in a
 * layout field-for-field like capture's cap_type_desc, for cap_register_api
 * or sbt_writer_define_type.  Static storage. */
typedef struct sbt_vk_type_desc {
	uint32_t type;
	const char *name;
} sbt_vk_type_desc;
const sbt_vk_type_desc *sbt_vk_types(size_t *count_out);
/* Name them all on w (tests and tools writing traces directly). */
sbt_status sbt_vk_define_types(sbt_writer *w);

/* ---- what the codec carries ------------------------------------------- */

/*
 * Whether the codec encodes this command / extension / structure faithfully.
 * The layer hides everything else from the application (extension
 * enumeration, feature and property chains, vkGet*ProcAddr).  Names not in
 * our vk.xml (newer extensions) are not carried.  Commands of excluded
 * platforms, and the overrides listed in scripts/vkgen/overrides.py, answer 0.
 */
int sbt_vk_cmd_carried(enum sbt_vk_cmd cmd);
int sbt_vk_cmd_carried_by_name(const char *name);
int sbt_vk_extension_carried(const char *name);
int sbt_vk_stype_carried(VkStructureType stype);
/* Whether vk.xml names v as a VkDynamicState (any extension, any platform). */
int sbt_vk_known_dynamic_state(int64_t v);
/* The aspects of a core format (color, depth, stencil); 0 for one it does
 * not list (multi-planar and extension formats: not judged). */
VkImageAspectFlags sbt_vk_format_aspects(VkFormat f);

/* ---- encoding ---------------------------------------------------------- */

/*
 * A growable output buffer with the encoder's options.  Zero-initialise (or
 * sbt_vk_enc_init) and keep per thread; encoding appends at len, the caller
 * sets len = 0 to start the next payload.  Release with sbt_vk_enc_free.
 */
typedef struct sbt_vk_enc {
	uint8_t *data; /* owned */
	size_t len;
	size_t cap;
	/* Byte arrays (void* data with its size, shader code) of at least
	 * blob_threshold bytes go through blob_put when both are set: the
	 * payload then holds the blob id instead of the bytes.  blob_put
	 * copies the bytes before it returns: they may lie in a buffer of the
	 * encoder's own (a strided array gathered packed). */
	size_t blob_threshold;
	int (*blob_put)(void *ctx, const void *data, size_t len, uint64_t *blob_id_out);
	void *blob_ctx;
	/* Byte length of the opaque pData of vkUpdateDescriptorSetWithTemplate*
	 * and vkCmdPushDescriptorSetWithTemplateKHR, which only the template
	 * defines; the caller computes it from the template before encoding
	 * those commands (0: pData is recorded as absent). */
	size_t template_data_len;
	/* pNext structures the last encode skipped because the codec does not
	 * carry them (loader-private ones such as VkLayerDeviceCreateInfo too). */
	uint32_t skipped_pnext;
	VkStructureType last_skipped_stype;
} sbt_vk_enc;

void sbt_vk_enc_init(sbt_vk_enc *e);
/* Frees data; keeps the options. NULL is a no-op. */
void sbt_vk_enc_free(sbt_vk_enc *e);

/* Append the payload of one call.  args points at the command's
 * sbt_vk_args_<vkName>, outputs and ret already filled when the call has
 * returned.  SBT_VK_ERR_NOMEM leaves e->len where it was. */
sbt_vk_status sbt_vk_encode(sbt_vk_enc *e, enum sbt_vk_cmd cmd, const void *args);

/* ---- handles a command names --------------------------------------------- */

/*
 * For the commands that record into a command buffer (vkCmd*), begin one
 * (vkBeginCommandBuffer) or submit them (vkQueueSubmit*): call fn for every
 * non-null input handle the parameters name (nested structs, arrays and
 * pNext chains included), except the first parameter, the handle the call
 * is made on.  fn gets (ctx, VK_OBJECT_TYPE_UNKNOWN, 0) where a value may
 * name handles the walk cannot follow (a union holding handles): the
 * caller must then assume the command reaches anything.  access says what
 * the command may do with the handle's memory: SBT_VK_REF_READS where the
 * parameter names it for the device to read only (a copy's source, a
 * vertex, index or indirect buffer, a buffer barrier:
 * overrides.REFS_READS_ONLY), SBT_VK_REF_REGIONS where the device writes
 * the buffer only where the command's regions say (a copy's destination, a
 * fill, an update: overrides.REFS_WRITES_REGIONS; the caller reads the
 * regions from the arguments), SBT_VK_REF_WRITES elsewhere.  Returns 1 when
 * cmd has such handles to walk, 2 when besides some are SBT_VK_REF_REGIONS,
 * 0 when it has none or is not one of those commands.  Generated (scripts/vkgen/refs.py); the layer uses it to find
 * the memory a submission reaches, and what of it the device may write.
 */
enum { SBT_VK_REF_WRITES = 0, SBT_VK_REF_READS = 1, SBT_VK_REF_REGIONS = 2 };
typedef void (*sbt_vk_ref_fn)(void *ctx, VkObjectType type, uint64_t handle, int access);
int sbt_vk_refs(enum sbt_vk_cmd cmd, const void *args, sbt_vk_ref_fn fn, void *ctx);
int sbt_vk_cmd_has_refs(enum sbt_vk_cmd cmd);

/* ---- decoding ---------------------------------------------------------- */

/* Memory for decoded arguments: freed all at once by reset. */
typedef struct sbt_vk_arena sbt_vk_arena;

/* limit_bytes: most memory one decode may use (0: 256 MiB). */
sbt_vk_status sbt_vk_arena_create(size_t limit_bytes, sbt_vk_arena **out);
/* Forget everything decoded into it, keeping its blocks for reuse. */
void sbt_vk_arena_reset(sbt_vk_arena *a);
void sbt_vk_arena_free(sbt_vk_arena *a); /* NULL is a no-op */
/* n zeroed bytes aligned to 16, valid until reset; NULL past the limit. */
void *sbt_vk_arena_alloc(sbt_vk_arena *a, size_t n);
/* What the last failed decode stumbled on ("pCreateInfo->pQueueCreateInfos[2]
 * .pQueuePriorities: count 4000000000 exceeds the payload"); "" if none. */
const char *sbt_vk_arena_message(const sbt_vk_arena *a);
/* The first enum value the last decode met that vk.xml does not name: 1
 * with its field (the struct or command and member, "VkImageCreateInfo.format":
 * a string constant of the codec) and value, or 0 when it met none. */
int sbt_vk_arena_unknown_enum(const sbt_vk_arena *a, const char **field_out, int64_t *value_out);
/* Bytes of the pData the last decode of vkUpdateDescriptorSetWithTemplate*
 * or vkCmdPushDescriptorSetWithTemplateKHR gave (only its template says
 * how many it should have); 0 for other commands or an absent pData. */
size_t sbt_vk_arena_template_len(const sbt_vk_arena *a);

/*
 * Callbacks for decoding.  map_handle translates every INPUT handle (ctx,
 * its VkObjectType, the captured value; VK_NULL_HANDLE is never passed and
 * stays null): return SBT_VK_OK with *live_out set, or an error (usually
 * SBT_VK_ERR_HANDLE) which fails the decode.  NULL map_handle keeps
 * captured values.  OUTPUT handles (created objects, enumerated physical
 * devices, ...) are never mapped: they keep their captured values so the
 * replayer can bind captured -> live after the call.
 * load_blob supplies byte arrays the encoder stored as blobs; the data must
 * stay valid until the arena is reset (sbt_vk_arena_alloc is there for
 * that).  NULL load_blob: such arrays decode as absent (NULL pointer, size
 * kept), which is what a dump wants.
 * An enum value vk.xml does not name is decoded as it is (a newer driver
 * may know it); sbt_vk_arena_unknown_enum says where.
 *
 * What the decoder refuses as SBT_VK_ERR_INVALID (docs/vulkan-codec.md):
 * VK_NULL_HANDLE, NULL strings and NULL pointers where vk.xml makes them
 * required, arrays absent while their count is not 0, an altlen size that
 * is not a multiple of its element (codeSize % 4).
 */
typedef struct sbt_vk_decode_hooks {
	void *ctx;
	sbt_vk_status (*map_handle)(void *ctx, VkObjectType type, uint64_t captured,
	                            uint64_t *live_out);
	sbt_vk_status (*load_blob)(void *ctx, uint64_t blob_id, size_t len,
	                           const void **data_out);
} sbt_vk_decode_hooks;

/* A load_blob for a decode of a trace being read: hooks.ctx points to one
 * of these; the blob is read from r and copied into arena (the decode's),
 * so that it lives as long as the decoded arguments.  SBT_VK_ERR_BLOB when
 * the trace lacks it or its size is not len. */
typedef struct sbt_vk_reader_blobs {
	sbt_reader *r;
	sbt_vk_arena *arena;
} sbt_vk_reader_blobs;
sbt_vk_status sbt_vk_load_reader_blob(void *ctx, uint64_t blob_id, size_t len, const void **data_out);

/*
 * Decode one payload of command cmd into args_out (the command's
 * sbt_vk_args_<vkName>; pointers in it point into a, valid until reset).
 * Output parameters hold the captured values: a replayer that passes
 * args_out to the live call must keep the captured outputs it needs first.
 * hooks may be NULL.  On error the message is in sbt_vk_arena_message(a).
 */
sbt_vk_status sbt_vk_decode(enum sbt_vk_cmd cmd, const uint8_t *p, size_t len,
                            sbt_vk_arena *a, void *args_out,
                            const sbt_vk_decode_hooks *hooks);

/* ---- front-end records --------------------------------------------------- */

/* vulkan.tsMemoryWrite: host bytes written into mapped memory (recorded
 * before the submit/flush/unmap that publishes them).  Payload: varints
 * memory, offset, size, blob_id. */
typedef struct sbt_vk_ts_memory_write {
	uint64_t memory; /* VkDeviceMemory, captured value */
	uint64_t offset; /* from the start of the memory object */
	uint64_t size;
	uint64_t blob_id; /* the bytes, in the blob store */
} sbt_vk_ts_memory_write;

/* vulkan.tsMemoryWrites: several runs of host bytes written into one
 * mapped memory object, published together (one submit, flush or unmap),
 * with one blob holding the runs' bytes back to back.  Written by layers
 * from this version on for what a publish finds; tsMemoryWrite stays for
 * single writes (a mapping's initial contents, snapshots) and is still
 * read.  Payload: varints memory, blob_id, count, then count pairs
 * (gap, size): run 0 starts at offset gap, run k > 0 at gap bytes after
 * the end of run k - 1, and is size bytes long.  Valid: count >= 1, every
 * size >= 1, no offset or end beyond 2^64 - 1; the blob's length is the
 * sum of the sizes (checked by whoever reads the blob).  So the runs are
 * in ascending order and do not overlap (adjacent runs may touch). */
typedef struct sbt_vk_ts_memory_writes {
	uint64_t memory;  /* VkDeviceMemory, captured value */
	uint64_t blob_id; /* the runs' bytes, in order */
	uint64_t count;   /* runs */
	uint64_t bytes;   /* sum of the sizes: the blob's length */
	uint64_t lo, hi;  /* from the first run's offset to the last run's end */
	const uint8_t *runs; /* borrowed: the (gap, size) pairs in the payload */
	size_t runs_len;
} sbt_vk_ts_memory_writes;

/* Walks the runs of a decoded tsMemoryWrites: init, then next until it
 * returns 0; each run's offset from the start of the memory object, its
 * size, and where its bytes start in the blob. */
typedef struct sbt_vk_ts_run_iter {
	const uint8_t *p, *end;
	uint64_t pos;      /* end of the previous run */
	uint64_t blob_pos; /* where the next run's bytes start in the blob */
} sbt_vk_ts_run_iter;

/* vulkan.tsResult: the outcome of a call recorded before it ran.  Payload:
 * varint seq, zigzag varint result, then outputs_len bytes: the command's
 * payload encoded again after the call (empty when it has no outputs). */
typedef struct sbt_vk_ts_result {
	uint64_t seq;  /* of the call record */
	VkResult result;
	const uint8_t *outputs; /* borrowed: into the payload when decoded */
	size_t outputs_len;
} sbt_vk_ts_result;

/* vulkan.tsQueryResults: the results queries of a pool held when a trimmed
 * capture's window opened, as the capture's driver gave them
 * (vkGetQueryPoolResults with flags; the layer asks for
 * VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT).  The
 * replay hands them out in place of the driver's until the window resets
 * or begins those queries again.  Payload: varints pool, first, count,
 * flags, stride, then count * stride bytes: per query, its values and its
 * availability word, as vkGetQueryPoolResults wrote them (stride =
 * (values per query + 1) * 8 with those flags).  Valid: count >= 1,
 * stride >= 8 and a multiple of 8, the bytes exactly count * stride. */
typedef struct sbt_vk_ts_query_results {
	uint64_t pool; /* VkQueryPool, captured value */
	uint32_t first, count;
	uint32_t flags; /* VkQueryResultFlags the bytes were read with */
	uint32_t stride;
	const uint8_t *bytes; /* borrowed: into the payload when decoded */
	size_t len;           /* count * stride */
} sbt_vk_ts_query_results;

sbt_vk_status sbt_vk_ts_memory_write_encode(sbt_vk_enc *e, const sbt_vk_ts_memory_write *w);
sbt_vk_status sbt_vk_ts_memory_write_decode(const uint8_t *p, size_t len,
                                            sbt_vk_ts_memory_write *out);
/* runs: count (offset, size) pairs, in ascending order, not overlapping,
 * every size >= 1. */
sbt_vk_status sbt_vk_ts_memory_writes_encode(sbt_vk_enc *e, uint64_t memory, uint64_t blob_id,
                                             const uint64_t (*runs)[2], size_t count);
/* Checks the whole payload (see the record's rules) and fills out. */
sbt_vk_status sbt_vk_ts_memory_writes_decode(const uint8_t *p, size_t len,
                                             sbt_vk_ts_memory_writes *out);
void sbt_vk_ts_run_iter_init(sbt_vk_ts_run_iter *it, const sbt_vk_ts_memory_writes *w);
int sbt_vk_ts_run_iter_next(sbt_vk_ts_run_iter *it, uint64_t *offset_out, uint64_t *size_out,
                            uint64_t *blob_pos_out);
sbt_vk_status sbt_vk_ts_result_encode(sbt_vk_enc *e, const sbt_vk_ts_result *r);
sbt_vk_status sbt_vk_ts_result_decode(const uint8_t *p, size_t len, sbt_vk_ts_result *out);
sbt_vk_status sbt_vk_ts_query_results_encode(sbt_vk_enc *e, const sbt_vk_ts_query_results *q);
sbt_vk_status sbt_vk_ts_query_results_decode(const uint8_t *p, size_t len,
                                             sbt_vk_ts_query_results *out);

/* ---- text ---------------------------------------------------------------- */

struct sbt_dump;
/* Register a formatter for every "vulkan.*" record type with tsinfo's dump
 * table: parameters by name, handles in hex, enums by name, nested structs
 * and arrays (with their counts, the first elements shown). */
sbt_status sbt_vk_dump_register(struct sbt_dump *d);

#ifdef __cplusplus
}
#endif

#endif /* TRACESMITH_SBT_VK_H */
