/*
 * sbt_dump.h - one record as one line of text or one JSON object.
 *
 * tsinfo --dump and tests print records through this.  Payloads are decoded
 * by a small table of codecs: the core record types of sbt.h are built in;
 * an API codec (Vulkan, CUDA, HIP) registers itself by the type name its
 * front-end gives the trace ("cuda.cuLaunchKernel"), because type numbers
 * above SBT_TYPE_FIRST_API are chosen per front-end while names are stable.
 * A record whose type has no codec, or whose payload its codec rejects, is
 * shown as its length and leading bytes in hex, so nothing is hidden.
 *
 * Codecs never see the output format: they call sbt_dump_emit_* once per
 * field and the emitter writes `key=value` (text) or `"key":value` (JSON).
 *
 * Threading: an sbt_dump is read-only once its codecs are registered and may
 * then be shared; each call formats into the caller's buffer.
 */
#ifndef TRACESMITH_SBT_DUMP_H
#define TRACESMITH_SBT_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "tracesmith/sbt.h"

typedef enum {
	SBT_DUMP_TEXT = 0, /* seq=.. t=.. tid=.. NAME field=value ... */
	SBT_DUMP_JSON = 1  /* {"seq":..,"time_ns":..,...} */
} sbt_dump_format;

/* Growable output text.  Zero-initialise; release with sbt_dump_buf_free.
 * Formatting appends; the caller resets len to reuse the storage. */
typedef struct sbt_dump_buf {
	char *data; /* NUL-terminated after every successful append; owned */
	size_t len;
	size_t cap;
	int failed; /* an allocation failed: contents incomplete */
} sbt_dump_buf;

void sbt_dump_buf_free(sbt_dump_buf *b);

/* Passed to a codec; fields it emits go to the record being formatted. */
typedef struct sbt_dump_emit sbt_dump_emit;

/*
 * A payload decoder.  r may be NULL (no string table: ids are shown as
 * numbers).  Returns SBT_OK, or SBT_ERR_CORRUPT when the payload does not
 * parse; whatever it emitted is then discarded and the raw bytes shown with
 * the reason.
 */
typedef sbt_status (*sbt_dump_codec_fn)(sbt_dump_emit *e, const sbt_reader *r,
                                        const sbt_record *rec);

void sbt_dump_emit_u64(sbt_dump_emit *e, const char *key, uint64_t v);
void sbt_dump_emit_hex64(sbt_dump_emit *e, const char *key, uint64_t v); /* 0x... */
/* Text of len bytes (need not be NUL-terminated or valid UTF-8: bytes that
 * are not valid UTF-8 are escaped in text and replaced by U+FFFD in JSON). */
void sbt_dump_emit_str(sbt_dump_emit *e, const char *key, const char *s, size_t len);
/* A number already formatted (a negative integer, a floating-point value
 * printed with %g): quoted in text, as strings are; in JSON a bare number,
 * or a string when the text is not a JSON number ("nan", "inf"). */
void sbt_dump_emit_num(sbt_dump_emit *e, const char *key, const char *s, size_t len);
/* Bytes as lowercase hex, at most max_bytes of them (the rest counted). */
void sbt_dump_emit_bytes(sbt_dump_emit *e, const char *key, const uint8_t *p, size_t n,
                         size_t max_bytes);
/* An address (a CUDA device or host pointer): decimal in text, as it
 * always was, "0x..." in JSON. */
void sbt_dump_emit_addr(sbt_dump_emit *e, const char *key, uint64_t v);
/* How many elements of each array the codec shows (the options'
 * max_elements, resolved: never 0). */
size_t sbt_dump_emit_max_elements(const sbt_dump_emit *e);
/* An absent pointer: "NULL" in text, null in JSON. */
void sbt_dump_emit_null(sbt_dump_emit *e, const char *key);
/* A handle of an API object of type type_name ("VkBuffer", static
 * storage): hex in text; in JSON {"id":"VkBuffer#3","raw":"0x..."}, the
 * id numbering the values of each type from 1 in the order the session
 * first sees them, so one object has one id in every record (null for 0). */
void sbt_dump_emit_handle(sbt_dump_emit *e, const char *key, const char *type_name, uint64_t v);
/* A bit mask: hex in text; in JSON {"bits":["NAME",...],"raw":"0x..."},
 * names[0..n) naming the bits set (bits without a name are in raw only). */
void sbt_dump_emit_flags(sbt_dump_emit *e, const char *key, const char *const *names, size_t n,
                         uint64_t v);
/* A Vulkan-style version number (VK_MAKE_API_VERSION): "1.3.239", with
 * "V:" in front when the variant is not 0.  Text and JSON alike. */
void sbt_dump_emit_version(sbt_dump_emit *e, const char *key, uint32_t v);
/* Bulk data the trace stores as blob blob_id of len bytes, shown by
 * reference: text <blob ID: LEN bytes xxh64 HASH>, JSON
 * {"blob":ID,"size":LEN,"xxh64":"HASH"}.  The hash is of the blob's bytes,
 * read and hashed once per id through the options' session; without
 * one, or when the blob cannot be read, the hash is left out (JSON adds
 * "blob_error" saying why). */
void sbt_dump_emit_blob(sbt_dump_emit *e, const char *key, uint64_t blob_id, uint64_t len);

/* What a dump of one reader remembers from record to record: the hashes
 * of its blobs, computed on first use, and the small ids given to handles
 * (sbt_dump_emit_handle).  Not thread-safe: one dump loop at a time.  r is
 * borrowed and must outlive it. */
typedef struct sbt_dump_session sbt_dump_session;
sbt_status sbt_dump_session_create(sbt_reader *r, sbt_dump_session **out);
/* NULL is a no-op. */
void sbt_dump_session_free(sbt_dump_session *b);

typedef struct sbt_dump sbt_dump;

/* A table holding the core codecs. */
sbt_status sbt_dump_create(sbt_dump **out);
/* NULL is a no-op. */
void sbt_dump_free(sbt_dump *d);

/* Decode records whose type is named type_name (borrowed: static storage,
 * or at least outliving d) with fn.  A later registration of the same name
 * replaces the earlier one. */
sbt_status sbt_dump_register(sbt_dump *d, const char *type_name, sbt_dump_codec_fn fn);

/* The name tsinfo shows for a type: the trace's name for it, else the core
 * type's name ("FRAME"), else "" (callers print "type#N"). r may be NULL. */
const char *sbt_dump_type_name(const sbt_reader *r, uint32_t type);

/* Whether a codec would decode records of this type (core or registered). */
int sbt_dump_has_codec(const sbt_dump *d, const sbt_reader *r, uint32_t type);

typedef struct sbt_dump_options {
	sbt_dump_format format;
	int with_stack;      /* 1: also the stack's frames (text: indented lines
	                        after the record; JSON: a "frames" array) */
	size_t max_hex;      /* raw payload bytes shown; 0: default (text 16, JSON 256) */
	sbt_dump_session *session; /* NULL: blob references without their hash,
	                              handles without ids */
	size_t max_elements; /* elements shown of each array of a decoded payload
	                        (its count is always shown); 0: default (text 8,
	                        JSON all), SIZE_MAX: all */
} sbt_dump_options;

/*
 * Append one record to out: a line ending in '\n' (text, plus one line per
 * stack frame when with_stack), or one JSON object and '\n'.  r (may be
 * NULL) supplies type names, strings and stacks.  Returns SBT_OK or
 * SBT_ERR_NOMEM; a payload that does not decode is not an error here (it is
 * shown raw, with "payload_error").
 */
sbt_status sbt_dump_record(const sbt_dump *d, const sbt_reader *r, const sbt_record *rec,
                           const sbt_dump_options *opt, sbt_dump_buf *out);

/* Append s as a JSON string literal (quotes included). */
sbt_status sbt_dump_json_string(sbt_dump_buf *out, const char *s, size_t len);

#endif /* TRACESMITH_SBT_DUMP_H */
