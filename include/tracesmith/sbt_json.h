/*
 * sbt_json.h - records as JSON, for readers of libtracesmith.so that want
 * a record's decoded fields without linking an API's codec: the same
 * object `tsinfo --dump --json` prints for it (docs/tsinfo.md), with the
 * CUDA and Vulkan codecs built in:
 *   {"seq","time_ns","thread","type","name","stack","payload_len", then
 *    "args":{...} (decoded) or "payload_hex" [+"payload_hex_more"]
 *    [+"payload_error"], then "frames":[...] when asked for the stack}
 *
 * Threading: an sbt_json is used by one thread at a time.
 * Ownership: text returned is owned by the sbt_json and valid until its
 * next call.
 */
#ifndef TRACESMITH_SBT_JSON_H
#define TRACESMITH_SBT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbt_json sbt_json;

/* A formatter with every codec of this build (core, CUDA, Vulkan). */
sbt_status sbt_json_create(sbt_json **out);
/* NULL is a no-op. */
void sbt_json_free(sbt_json *j);

/* Record rec of reader r (r supplies names, strings and stacks; may be
 * NULL) as one JSON object, no trailing newline, in *text_out (*len_out
 * bytes, NUL-terminated); with_stack adds its host call stack's frames. */
sbt_status sbt_json_record(sbt_json *j, const sbt_reader *r, const sbt_record *rec,
                           int with_stack, const char **text_out, size_t *len_out);

/* Blob references ({"blob":ID,"size":LEN}, for shaders and other bulk
 * arrays) in records of r get "xxh64", the hash of the blob's bytes, read
 * from r once per blob, as tsinfo prints them.  r must stay open while j
 * formats its records; NULL stops hashing.  Reading a blob moves r's chunk
 * cache: a record's payload is valid only until its sbt_json_record. */
sbt_status sbt_json_hash_blobs(sbt_json *j, sbt_reader *r);

/* The name tsinfo shows for a type: the trace's name for it
 * ("cuda.cuMemAlloc"), else the core type's name ("FRAME"), else "". */
const char *sbt_json_type_name(const sbt_reader *r, uint32_t type);

#ifdef __cplusplus
}
#endif
#endif /* TRACESMITH_SBT_JSON_H */
