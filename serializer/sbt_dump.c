/*
 * sbt_dump.c - records as text lines or JSON objects (see sbt_dump.h).
 *
 * Layout of one text line (fields separated by one space):
 *   seq=<seq> t=<seconds>.<9 digits> tid=<thread> <type name> <fields> [stack=<id>]
 * where <fields> is what the codec emitted (key=value, strings quoted with C
 * escapes) or, without a codec, len=<n> [hex=<bytes>[..(+<more>)]].
 *
 * One JSON object per record, always with the same leading keys:
 *   {"seq","time_ns","thread","type","name","stack","payload_len", then
 *    "args":{...}  (decoded) or "payload_hex" [+"payload_hex_more"]
 *    [+"payload_error"], then "frames":[...] with stacks}
 * so a consumer can rely on them without knowing the API.
 */
#include "serializer/sbt_dump.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- output buffer --------------------------------------------------- */

void sbt_dump_buf_free(sbt_dump_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->failed = 0;
}

/* Room for n more bytes plus the terminating NUL. */
static int sbt_dump_buf_reserve(sbt_dump_buf *b, size_t n)
{
	size_t need;
	size_t cap;
	char *p;

	if (b->failed)
		return -1;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

static void sbt_dump_buf_put(sbt_dump_buf *b, const char *s, size_t n)
{
	if (sbt_dump_buf_reserve(b, n) != 0)
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void sbt_dump_buf_puts(sbt_dump_buf *b, const char *s)
{
	sbt_dump_buf_put(b, s, strlen(s));
}

static void sbt_dump_buf_printf(sbt_dump_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sbt_dump_buf_printf(sbt_dump_buf *b, const char *fmt, ...)
{
	char small[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sbt_dump_buf_put(b, small, (size_t)n);
		return;
	}
	if (sbt_dump_buf_reserve(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* ---- string escaping ------------------------------------------------- */

/* Length (1-4) of the well-formed UTF-8 sequence at p, 0 if ill-formed
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t sbt_dump_utf8_len(const uint8_t *p, size_t n)
{
	uint8_t c = p[0];
	uint8_t lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

/* Quoted text for humans: C escapes; bytes that are not UTF-8 as \xNN. */
static void sbt_dump_text_string(sbt_dump_buf *b, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0;

	sbt_dump_buf_put(b, "\"", 1);
	while (i < len) {
		uint8_t c = p[i];
		size_t ulen;

		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			sbt_dump_buf_put(b, esc, 2);
			i++;
		} else if (c == '\n') {
			sbt_dump_buf_put(b, "\\n", 2);
			i++;
		} else if (c == '\t') {
			sbt_dump_buf_put(b, "\\t", 2);
			i++;
		} else if (c == '\r') {
			sbt_dump_buf_put(b, "\\r", 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			sbt_dump_buf_printf(b, "\\x%02x", c);
			i++;
		} else if ((ulen = sbt_dump_utf8_len(p + i, len - i)) == 0) {
			sbt_dump_buf_printf(b, "\\x%02x", c);
			i++;
		} else {
			sbt_dump_buf_put(b, s + i, ulen);
			i += ulen;
		}
	}
	sbt_dump_buf_put(b, "\"", 1);
}

sbt_status sbt_dump_json_string(sbt_dump_buf *out, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t i = 0;

	sbt_dump_buf_put(out, "\"", 1);
	while (i < len) {
		uint8_t c = p[i];
		size_t ulen;

		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			sbt_dump_buf_put(out, esc, 2);
			i++;
		} else if (c == '\n') {
			sbt_dump_buf_put(out, "\\n", 2);
			i++;
		} else if (c == '\t') {
			sbt_dump_buf_put(out, "\\t", 2);
			i++;
		} else if (c == '\r') {
			sbt_dump_buf_put(out, "\\r", 2);
			i++;
		} else if (c < 0x20) {
			sbt_dump_buf_printf(out, "\\u%04x", c);
			i++;
		} else if ((ulen = sbt_dump_utf8_len(p + i, len - i)) == 0) {
			/* JSON text must be UTF-8; say a byte was here. */
			sbt_dump_buf_put(out, "\\ufffd", 6);
			i++;
		} else {
			sbt_dump_buf_put(out, s + i, ulen);
			i += ulen;
		}
	}
	sbt_dump_buf_put(out, "\"", 1);
	return out->failed ? SBT_ERR_NOMEM : SBT_OK;
}

static void sbt_dump_hex(sbt_dump_buf *b, const uint8_t *p, size_t n)
{
	static const char sbt_dump_digits[] = "0123456789abcdef";
	size_t i;

	if (sbt_dump_buf_reserve(b, 2 * n) != 0)
		return;
	for (i = 0; i < n; i++) {
		b->data[b->len++] = sbt_dump_digits[p[i] >> 4];
		b->data[b->len++] = sbt_dump_digits[p[i] & 15];
	}
	b->data[b->len] = '\0';
}

/* ---- the emitter codecs write through -------------------------------- */

/*
 * Keys are paths: `pCreateInfos[0].pStages[1].module` names member module
 * of element 1 of array pStages of element 0 of array pCreateInfos.  Text
 * prints the path as it is; JSON nests it: {"pCreateInfos":[{"pStages":
 * [{...,"module":...}]}]}.  A codec emits the members of one structure or
 * array together (the walk is depth first), so the JSON emitter keeps the
 * chain of containers the last key opened, closes those the next key
 * leaves, and opens those it enters.  Array elements are written in the
 * order they come; the index in the key is not repeated.
 */
#define SBT_DUMP_DEPTH 24 /* containers open at once; deeper paths stay flat */
#define SBT_DUMP_PART 64  /* longest member name compared */

typedef struct sbt_dump_part {
	char name[SBT_DUMP_PART]; /* member name, or the index's digits */
	int array;                /* 1: this container is an array, 0: an object */
	unsigned children;        /* values written into it so far */
	uint64_t count;           /* an array's element count, from its
	                             `NAME.count` key (the dump shows at most
	                             the options' max_elements of them) */
} sbt_dump_part;

struct sbt_dump_emit {
	sbt_dump_buf *out;
	sbt_dump_format format;
	unsigned nfields; /* values written at the top level */
	sbt_dump_session *session; /* may be NULL */
	size_t max_elements; /* of each array (never 0) */
	unsigned depth;   /* JSON: containers open */
	sbt_dump_part open[SBT_DUMP_DEPTH];
};

/* One component of a key path: [s, s + n) and whether it was "[N]". */
typedef struct sbt_dump_comp {
	const char *s;
	size_t n;
	int index;
} sbt_dump_comp;

/* Split key into at most max components; returns how many, 0 when the key
 * is not a well-formed path (then it is used whole, as a flat name). */
static size_t sbt_dump_split(const char *key, sbt_dump_comp *c, size_t max)
{
	const char *p = key;
	size_t n = 0;

	while (*p) {
		if (n == max)
			return 0;
		if (*p == '[') {
			const char *e = strchr(p, ']');
			if (!e || e == p + 1)
				return 0;
			c[n].s = p + 1;
			c[n].n = (size_t)(e - p - 1);
			c[n].index = 1;
			p = e + 1;
			if (*p == '.')
				p++;
		} else {
			size_t len = strcspn(p, ".[");
			if (len == 0)
				return 0;
			c[n].s = p;
			c[n].n = len;
			c[n].index = 0;
			p += len;
			if (*p == '.') {
				p++;
				if (!*p)
					return 0;
			}
		}
		if (c[n].n >= SBT_DUMP_PART)
			return 0;
		n++;
	}
	return n;
}

/* The separator and, inside an object, the member name of a value written
 * into the innermost open container (the top level when none is). */
static void sbt_dump_member(sbt_dump_emit *e, const char *name, size_t len)
{
	unsigned *children = e->depth ? &e->open[e->depth - 1].children : &e->nfields;
	int array = e->depth ? e->open[e->depth - 1].array : 0;

	if (*children)
		sbt_dump_buf_put(e->out, ",", 1);
	(*children)++;
	if (!array) {
		sbt_dump_json_string(e->out, name, len);
		sbt_dump_buf_put(e->out, ":", 1);
	}
}

size_t sbt_dump_emit_max_elements(const sbt_dump_emit *e)
{
	return e->max_elements;
}

/* Close containers down to depth.  An array the dump cut short gets a
 * sibling NAME_more_elements with the elements not shown (inside an
 * object; an array of arrays just ends). */
static void sbt_dump_close_to(sbt_dump_emit *e, unsigned depth)
{
	while (e->depth > depth) {
		sbt_dump_part *o = &e->open[--e->depth];
		sbt_dump_buf_put(e->out, o->array ? "]" : "}", 1);
		if (o->array && o->count > o->children &&
		    !(e->depth && e->open[e->depth - 1].array)) {
			char name[SBT_DUMP_PART + 16];
			int n = snprintf(name, sizeof(name), "%s_more_elements", o->name);
			sbt_dump_member(e, name, (size_t)n);
			sbt_dump_buf_printf(e->out, "%llu",
			                    (unsigned long long)(o->count - o->children));
		}
	}
}

/* JSON: write what key's path needs before its value.  With count_of (a
 * `NAME.count` key, that array's length), the leaf is not a value but the
 * array NAME, opened here, its elements to follow. */
static void sbt_dump_path(sbt_dump_emit *e, const char *key, const uint64_t *count_of)
{
	sbt_dump_comp c[SBT_DUMP_DEPTH + 1];
	size_t n, k, i;

	n = sbt_dump_split(key, c, SBT_DUMP_DEPTH + 1);
	if (n == 0 || c[0].index || (count_of && n < 2)) {
		/* not a path we can nest: the whole key, at the top level */
		sbt_dump_close_to(e, 0);
		sbt_dump_member(e, key, strlen(key));
		if (count_of)
			sbt_dump_buf_printf(e->out, "%llu", (unsigned long long)*count_of);
		return;
	}
	if (count_of) {
		/* NAME.count: NAME is the leaf, and an array */
		n--;
		if (n == SBT_DUMP_DEPTH + 1 || c[n - 1].index) {
			sbt_dump_close_to(e, 0);
			sbt_dump_member(e, key, strlen(key));
			sbt_dump_buf_printf(e->out, "%llu", (unsigned long long)*count_of);
			return;
		}
	}
	/* the containers this key shares with the last one */
	for (k = 0; k < e->depth && k + 1 < n; k++) {
		const sbt_dump_part *o = &e->open[k];
		if (o->array != c[k + 1].index || strlen(o->name) != c[k].n ||
		    memcmp(o->name, c[k].s, c[k].n) != 0)
			break;
	}
	sbt_dump_close_to(e, (unsigned)k);
	for (i = k; i + 1 < n; i++) {
		sbt_dump_part *o = &e->open[e->depth];
		sbt_dump_member(e, c[i].s, c[i].n);
		memcpy(o->name, c[i].s, c[i].n);
		o->name[c[i].n] = '\0';
		o->array = c[i + 1].index;
		o->children = 0;
		o->count = 0;
		sbt_dump_buf_put(e->out, o->array ? "[" : "{", 1);
		e->depth++;
	}
	sbt_dump_member(e, c[n - 1].s, c[n - 1].n);
	if (count_of) {
		sbt_dump_part *o = &e->open[e->depth];
		if (e->depth == SBT_DUMP_DEPTH) {
			sbt_dump_buf_printf(e->out, "%llu", (unsigned long long)*count_of);
			return;
		}
		memcpy(o->name, c[n - 1].s, c[n - 1].n);
		o->name[c[n - 1].n] = '\0';
		o->array = 1;
		o->children = 0;
		o->count = *count_of;
		sbt_dump_buf_put(e->out, "[", 1);
		e->depth++;
	}
}

static void sbt_dump_emit_key(sbt_dump_emit *e, const char *key)
{
	if (e->format != SBT_DUMP_JSON) {
		sbt_dump_buf_put(e->out, " ", 1);
		sbt_dump_buf_puts(e->out, key);
		sbt_dump_buf_put(e->out, "=", 1);
		e->nfields++;
		return;
	}
	sbt_dump_path(e, key, NULL);
}

void sbt_dump_emit_u64(sbt_dump_emit *e, const char *key, uint64_t v)
{
	size_t len = strlen(key);
	if (e->format == SBT_DUMP_JSON && len > 6 && strcmp(key + len - 6, ".count") == 0) {
		/* an array's length: the array itself in JSON */
		sbt_dump_path(e, key, &v);
		return;
	}
	sbt_dump_emit_key(e, key);
	sbt_dump_buf_printf(e->out, "%llu", (unsigned long long)v);
}

void sbt_dump_emit_hex64(sbt_dump_emit *e, const char *key, uint64_t v)
{
	sbt_dump_emit_key(e, key);
	if (e->format == SBT_DUMP_JSON)
		sbt_dump_buf_printf(e->out, "\"0x%016llx\"", (unsigned long long)v);
	else
		sbt_dump_buf_printf(e->out, "0x%016llx", (unsigned long long)v);
}

void sbt_dump_emit_str(sbt_dump_emit *e, const char *key, const char *s, size_t len)
{
	sbt_dump_emit_key(e, key);
	if (e->format == SBT_DUMP_JSON)
		sbt_dump_json_string(e->out, s, len);
	else
		sbt_dump_text_string(e->out, s, len);
}

/* Whether s[0..len) is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int sbt_dump_json_number(const char *s, size_t len)
{
	size_t i = 0, d;

	if (i < len && s[i] == '-')
		i++;
	if (i < len && s[i] == '0')
		i++;
	else if (i < len && s[i] >= '1' && s[i] <= '9')
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return 0;
	if (i < len && s[i] == '.') {
		for (d = ++i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		for (d = i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i == len;
}

void sbt_dump_emit_num(sbt_dump_emit *e, const char *key, const char *s, size_t len)
{
	if (e->format != SBT_DUMP_JSON || !sbt_dump_json_number(s, len)) {
		sbt_dump_emit_str(e, key, s, len);
		return;
	}
	sbt_dump_emit_key(e, key);
	sbt_dump_buf_put(e->out, s, len);
}

void sbt_dump_emit_bytes(sbt_dump_emit *e, const char *key, const uint8_t *p, size_t n,
                         size_t max_bytes)
{
	size_t shown = n < max_bytes ? n : max_bytes;

	sbt_dump_emit_key(e, key);
	if (e->format == SBT_DUMP_JSON && shown < n && strcmp(key, "payload_hex") != 0) {
		/* the count stays with its bytes (a record may cut several
		 * fields; only the raw payload keeps its sibling more_bytes) */
		sbt_dump_buf_put(e->out, "{\"hex\":\"", 8);
		sbt_dump_hex(e->out, p, shown);
		sbt_dump_buf_printf(e->out, "\",\"more_bytes\":%zu}", n - shown);
	} else if (e->format == SBT_DUMP_JSON) {
		sbt_dump_buf_put(e->out, "\"", 1);
		sbt_dump_hex(e->out, p, shown);
		sbt_dump_buf_put(e->out, "\"", 1);
		if (shown < n) {
			sbt_dump_emit_key(e, "more_bytes");
			sbt_dump_buf_printf(e->out, "%zu", n - shown);
		}
	} else {
		sbt_dump_hex(e->out, p, shown);
		if (shown < n)
			sbt_dump_buf_printf(e->out, "..(+%zu)", n - shown);
	}
}

void sbt_dump_emit_addr(sbt_dump_emit *e, const char *key, uint64_t v)
{
	if (e->format == SBT_DUMP_JSON)
		sbt_dump_emit_hex64(e, key, v);
	else
		sbt_dump_emit_u64(e, key, v);
}

void sbt_dump_emit_null(sbt_dump_emit *e, const char *key)
{
	sbt_dump_emit_key(e, key);
	/* text keeps the quotes it always had, so that greps keep working */
	sbt_dump_buf_puts(e->out, e->format == SBT_DUMP_JSON ? "null" : "\"NULL\"");
}

/* ---- the session: blob hashes and handle ids --------------------------- */

/* One blob's hash, or why there is none. */
typedef struct sbt_dump_blob_slot {
	uint64_t id; /* 0: empty slot (blob ids are nonzero) */
	uint64_t hash;
	const char *error; /* static text; NULL: hash is valid */
} sbt_dump_blob_slot;

/* A handle seen before: its type, value and id. */
typedef struct sbt_dump_handle_slot {
	const char *type; /* NULL: empty slot */
	uint64_t value;
	uint64_t id;
} sbt_dump_handle_slot;

/* The last id given to handles of one type. */
typedef struct sbt_dump_handle_type {
	const char *type;
	uint64_t last;
} sbt_dump_handle_type;

/* Both maps are open addressing, at most half full. */
struct sbt_dump_session {
	sbt_reader *reader;
	sbt_dump_blob_slot *slots; /* by blob id */
	size_t cap; /* a power of two */
	size_t count;
	sbt_dump_handle_slot *handles; /* by (type, value) */
	size_t hcap;
	size_t hcount;
	sbt_dump_handle_type *types; /* a few dozen at most: a list */
	size_t ntypes;
	size_t types_cap;
};

sbt_status sbt_dump_session_create(sbt_reader *r, sbt_dump_session **out)
{
	sbt_dump_session *b;

	if (!r || !out)
		return SBT_ERR_ARG;
	b = calloc(1, sizeof(*b));
	if (!b)
		return SBT_ERR_NOMEM;
	b->reader = r;
	*out = b;
	return SBT_OK;
}

void sbt_dump_session_free(sbt_dump_session *b)
{
	if (!b)
		return;
	free(b->slots);
	free(b->handles);
	free(b->types);
	free(b);
}

static sbt_dump_blob_slot *sbt_dump_blob_find(sbt_dump_blob_slot *slots, size_t cap,
                                               uint64_t id)
{
	size_t i = (size_t)(id * 0x9e3779b97f4a7c15ull) & (cap - 1);

	while (slots[i].id && slots[i].id != id)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int sbt_dump_blob_grow(sbt_dump_session *b)
{
	size_t cap = b->cap ? b->cap * 2 : 64;
	sbt_dump_blob_slot *slots = calloc(cap, sizeof(*slots));
	size_t i;

	if (!slots)
		return -1;
	for (i = 0; i < b->cap; i++)
		if (b->slots[i].id)
			*sbt_dump_blob_find(slots, cap, b->slots[i].id) = b->slots[i];
	free(b->slots);
	b->slots = slots;
	b->cap = cap;
	return 0;
}

/* The slot of id, its hash computed the first time it is asked for; NULL
 * only when memory for the table runs out. */
static const sbt_dump_blob_slot *sbt_dump_session_blob(sbt_dump_session *b, uint64_t id)
{
	sbt_dump_blob_slot *slot;
	void *data = NULL;
	size_t len = 0;
	sbt_status st;

	if (b->cap && (slot = sbt_dump_blob_find(b->slots, b->cap, id))->id == id)
		return slot;
	if ((b->count + 1) * 2 > b->cap && sbt_dump_blob_grow(b) != 0)
		return NULL;
	slot = sbt_dump_blob_find(b->slots, b->cap, id);
	slot->id = id;
	b->count++;
	st = sbt_reader_blob_get(b->reader, id, &data, &len);
	if (st == SBT_OK)
		slot->hash = XXH64(data, len, 0);
	else if (st == SBT_ERR_NOT_FOUND)
		slot->error = "blob not in the trace";
	else if (st == SBT_ERR_NOMEM)
		slot->error = "out of memory reading the blob";
	else
		slot->error = "blob does not read";
	free(data);
	return slot;
}

static uint64_t sbt_dump_handle_hash(const char *type, uint64_t value)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*type)
		h = (h ^ (uint8_t)*type++) * 0x100000001b3ull;
	return (h ^ value) * 0x9e3779b97f4a7c15ull;
}

static sbt_dump_handle_slot *sbt_dump_handle_find(sbt_dump_handle_slot *slots, size_t cap,
                                                  const char *type, uint64_t value)
{
	size_t i = (size_t)(sbt_dump_handle_hash(type, value) >> 17) & (cap - 1);

	while (slots[i].type && (slots[i].value != value || strcmp(slots[i].type, type) != 0))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int sbt_dump_handle_grow(sbt_dump_session *b)
{
	size_t cap = b->hcap ? b->hcap * 2 : 256;
	sbt_dump_handle_slot *slots = calloc(cap, sizeof(*slots));
	size_t i;

	if (!slots)
		return -1;
	for (i = 0; i < b->hcap; i++)
		if (b->handles[i].type)
			*sbt_dump_handle_find(slots, cap, b->handles[i].type, b->handles[i].value) =
				b->handles[i];
	free(b->handles);
	b->handles = slots;
	b->hcap = cap;
	return 0;
}

/* The id of handle value of type, the next of its type the first time it
 * is seen; 0 when memory runs out. */
static uint64_t sbt_dump_session_handle(sbt_dump_session *b, const char *type, uint64_t value)
{
	sbt_dump_handle_slot *slot;
	sbt_dump_handle_type *t = NULL;
	size_t i;

	if (b->hcap && (slot = sbt_dump_handle_find(b->handles, b->hcap, type, value))->type)
		return slot->id;
	for (i = 0; i < b->ntypes && !t; i++)
		if (strcmp(b->types[i].type, type) == 0)
			t = &b->types[i];
	if (!t) {
		if (b->ntypes == b->types_cap) {
			size_t cap = b->types_cap ? b->types_cap * 2 : 16;
			sbt_dump_handle_type *types = realloc(b->types, cap * sizeof(*types));
			if (!types)
				return 0;
			b->types = types;
			b->types_cap = cap;
		}
		t = &b->types[b->ntypes++];
		t->type = type;
		t->last = 0;
	}
	if ((b->hcount + 1) * 2 > b->hcap && sbt_dump_handle_grow(b) != 0)
		return 0;
	slot = sbt_dump_handle_find(b->handles, b->hcap, type, value);
	slot->type = type;
	slot->value = value;
	slot->id = ++t->last;
	b->hcount++;
	return slot->id;
}

void sbt_dump_emit_handle(sbt_dump_emit *e, const char *key, const char *type_name, uint64_t v)
{
	uint64_t id;

	if (e->format != SBT_DUMP_JSON) {
		sbt_dump_emit_hex64(e, key, v);
		return;
	}
	sbt_dump_emit_key(e, key);
	if (v == 0) {
		sbt_dump_buf_puts(e->out, "null");
		return;
	}
	id = e->session ? sbt_dump_session_handle(e->session, type_name, v) : 0;
	sbt_dump_buf_puts(e->out, "{\"id\":");
	if (id)
		sbt_dump_buf_printf(e->out, "\"%s#%llu\"", type_name, (unsigned long long)id);
	else
		sbt_dump_buf_puts(e->out, "null");
	sbt_dump_buf_printf(e->out, ",\"raw\":\"0x%016llx\"}", (unsigned long long)v);
}

void sbt_dump_emit_flags(sbt_dump_emit *e, const char *key, const char *const *names, size_t n,
                         uint64_t v)
{
	size_t i;

	if (e->format != SBT_DUMP_JSON) {
		sbt_dump_emit_hex64(e, key, v);
		return;
	}
	sbt_dump_emit_key(e, key);
	sbt_dump_buf_puts(e->out, "{\"bits\":[");
	for (i = 0; i < n; i++) {
		if (i)
			sbt_dump_buf_put(e->out, ",", 1);
		sbt_dump_json_string(e->out, names[i], strlen(names[i]));
	}
	sbt_dump_buf_printf(e->out, "],\"raw\":\"0x%016llx\"}", (unsigned long long)v);
}

void sbt_dump_emit_version(sbt_dump_emit *e, const char *key, uint32_t v)
{
	char t[48];
	int n;

	if (v >> 29)
		n = snprintf(t, sizeof(t), "%u:%u.%u.%u", v >> 29, (v >> 22) & 0x7fu,
		             (v >> 12) & 0x3ffu, v & 0xfffu);
	else
		n = snprintf(t, sizeof(t), "%u.%u.%u", v >> 22, (v >> 12) & 0x3ffu, v & 0xfffu);
	sbt_dump_emit_str(e, key, t, (size_t)n);
}

void sbt_dump_emit_blob(sbt_dump_emit *e, const char *key, uint64_t blob_id, uint64_t len)
{
	const sbt_dump_blob_slot *slot = NULL;
	const char *error = "no blob cache";

	if (e->session) {
		slot = sbt_dump_session_blob(e->session, blob_id);
		error = !slot ? "out of memory" : slot->error;
	}
	sbt_dump_emit_key(e, key);
	if (e->format == SBT_DUMP_JSON) {
		sbt_dump_buf_printf(e->out, "{\"blob\":%llu,\"size\":%llu",
		                    (unsigned long long)blob_id, (unsigned long long)len);
		if (!error)
			sbt_dump_buf_printf(e->out, ",\"xxh64\":\"%016llx\"",
			                    (unsigned long long)slot->hash);
		else
			sbt_dump_buf_printf(e->out, ",\"blob_error\":\"%s\"", error);
		sbt_dump_buf_put(e->out, "}", 1);
	} else {
		sbt_dump_buf_printf(e->out, "<blob %llu: %llu bytes", (unsigned long long)blob_id,
		                    (unsigned long long)len);
		if (!error)
			sbt_dump_buf_printf(e->out, " xxh64 %016llx>", (unsigned long long)slot->hash);
		else
			sbt_dump_buf_printf(e->out, " (%s)>", error);
	}
}

/* ---- core codecs ------------------------------------------------------ */

/* A varint that must be the whole payload, or followed by fields added in a
 * later version (shown as a count, never silently dropped). */
static sbt_status sbt_dump_one_varint(const sbt_record *rec, uint64_t *v_out)
{
	const uint8_t *p = rec->payload;
	const uint8_t *end = rec->payload + rec->payload_len;

	if (rec->payload_len == 0 || sbt_varint_get(&p, end, v_out) != 0)
		return SBT_ERR_CORRUPT;
	return SBT_OK;
}

static void sbt_dump_extra(sbt_dump_emit *e, const sbt_record *rec, size_t used)
{
	if (used < rec->payload_len)
		sbt_dump_emit_u64(e, "extra_bytes", rec->payload_len - used);
}

static size_t sbt_dump_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static sbt_status sbt_dump_codec_frame(sbt_dump_emit *e, const sbt_reader *r,
                                       const sbt_record *rec)
{
	uint64_t frame;

	(void)r;
	if (sbt_dump_one_varint(rec, &frame) != SBT_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_u64(e, "frame", frame);
	sbt_dump_extra(e, rec, sbt_dump_varint_size(frame));
	return SBT_OK;
}

/* THREAD and UNMODELED: a string id; shown as the string when it resolves. */
static sbt_status sbt_dump_string_ref(sbt_dump_emit *e, const sbt_reader *r,
                                      const sbt_record *rec, const char *key)
{
	uint64_t id;
	const char *s = NULL;

	if (sbt_dump_one_varint(rec, &id) != SBT_OK)
		return SBT_ERR_CORRUPT;
	if (r && id <= UINT32_MAX)
		s = sbt_reader_string(r, (uint32_t)id);
	if (s)
		sbt_dump_emit_str(e, key, s, strlen(s));
	else
		sbt_dump_emit_u64(e, "string_id", id);
	sbt_dump_extra(e, rec, sbt_dump_varint_size(id));
	return SBT_OK;
}

static sbt_status sbt_dump_codec_thread(sbt_dump_emit *e, const sbt_reader *r,
                                        const sbt_record *rec)
{
	return sbt_dump_string_ref(e, r, rec, "name");
}

static sbt_status sbt_dump_codec_unmodeled(sbt_dump_emit *e, const sbt_reader *r,
                                           const sbt_record *rec)
{
	return sbt_dump_string_ref(e, r, rec, "call");
}

static sbt_status sbt_dump_codec_note(sbt_dump_emit *e, const sbt_reader *r,
                                      const sbt_record *rec)
{
	(void)r;
	sbt_dump_emit_str(e, "text", (const char *)rec->payload, rec->payload_len);
	return SBT_OK;
}

/* The keyframe payload belongs to the API; the marker itself is what a
 * reader of the dump wants to see, with the payload size. */
static sbt_status sbt_dump_codec_keyframe(sbt_dump_emit *e, const sbt_reader *r,
                                          const sbt_record *rec)
{
	(void)r;
	sbt_dump_emit_u64(e, "len", rec->payload_len);
	if (rec->payload_len)
		sbt_dump_emit_bytes(e, "hex", rec->payload, rec->payload_len, 16);
	return SBT_OK;
}

static sbt_status sbt_dump_codec_checkpoint(sbt_dump_emit *e, const sbt_reader *r,
                                            const sbt_record *rec)
{
	sbt_checkpoint cp;

	(void)r;
	memset(&cp, 0, sizeof(cp));
	if (sbt_checkpoint_decode(rec->payload, rec->payload_len, &cp) != SBT_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_u64(e, "call_seq", cp.call_seq);
	sbt_dump_emit_hex64(e, "object", cp.object);
	sbt_dump_emit_u64(e, "offset", cp.offset);
	sbt_dump_emit_u64(e, "length", cp.length);
	sbt_dump_emit_hex64(e, "hash", cp.hash);
	sbt_dump_emit_u64(e, "block_size", cp.block_size);
	sbt_dump_emit_u64(e, "blocks", cp.nblocks);
	sbt_checkpoint_free(&cp);
	return SBT_OK;
}

/* A capture window's opening (the first record of a trimmed trace). */
static sbt_status sbt_dump_codec_window(sbt_dump_emit *e, const sbt_reader *r,
                                        const sbt_record *rec)
{
	uint8_t buf[SBT_WINDOW_MAX];
	sbt_window w;

	(void)r;
	if (sbt_window_decode(rec->payload, rec->payload_len, &w) != SBT_OK)
		return SBT_ERR_CORRUPT;
	sbt_dump_emit_u64(e, "index", w.index);
	sbt_dump_emit_u64(e, "first_frame", w.first_frame);
	sbt_dump_emit_u64(e, "first_submit", w.first_submit);
	sbt_dump_emit_u64(e, "first_launch", w.first_launch);
	sbt_dump_emit_str(e, "trigger", w.trigger, strlen(w.trigger));
	sbt_dump_extra(e, rec, sbt_window_encode(&w, buf));
	return SBT_OK;
}

/* The end of a window's state snapshot: no fields. */
static sbt_status sbt_dump_codec_snapshot_end(sbt_dump_emit *e, const sbt_reader *r,
                                              const sbt_record *rec)
{
	(void)r;
	sbt_dump_extra(e, rec, 0);
	return SBT_OK;
}

typedef struct sbt_dump_core {
	const char *name;
	sbt_dump_codec_fn fn;
} sbt_dump_core;

static const sbt_dump_core sbt_dump_core_table[SBT_TYPE_SNAPSHOT_END + 1] = {
	[SBT_TYPE_FRAME] = { "FRAME", sbt_dump_codec_frame },
	[SBT_TYPE_CHECKPOINT] = { "CHECKPOINT", sbt_dump_codec_checkpoint },
	[SBT_TYPE_KEYFRAME] = { "KEYFRAME", sbt_dump_codec_keyframe },
	[SBT_TYPE_THREAD] = { "THREAD", sbt_dump_codec_thread },
	[SBT_TYPE_NOTE] = { "NOTE", sbt_dump_codec_note },
	[SBT_TYPE_UNMODELED] = { "UNMODELED", sbt_dump_codec_unmodeled },
	[SBT_TYPE_WINDOW] = { "WINDOW", sbt_dump_codec_window },
	[SBT_TYPE_SNAPSHOT_END] = { "SNAPSHOT_END", sbt_dump_codec_snapshot_end },
};

/* ---- the codec table -------------------------------------------------- */

typedef struct sbt_dump_entry {
	const char *name; /* borrowed */
	sbt_dump_codec_fn fn;
} sbt_dump_entry;

/* Entries sorted by name (strcmp) for binary search. */
struct sbt_dump {
	sbt_dump_entry *entries;
	size_t count;
	size_t cap;
};

sbt_status sbt_dump_create(sbt_dump **out)
{
	sbt_dump *d;

	if (!out)
		return SBT_ERR_ARG;
	d = calloc(1, sizeof(*d));
	if (!d)
		return SBT_ERR_NOMEM;
	*out = d;
	return SBT_OK;
}

void sbt_dump_free(sbt_dump *d)
{
	if (!d)
		return;
	free(d->entries);
	free(d);
}

/* Index of name, or of where it would go (*found says which). */
static size_t sbt_dump_find(const sbt_dump *d, const char *name, int *found)
{
	size_t lo = 0, hi = d->count;

	*found = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->entries[mid].name, name);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

sbt_status sbt_dump_register(sbt_dump *d, const char *type_name, sbt_dump_codec_fn fn)
{
	size_t at;
	int found;

	if (!d || !type_name || !type_name[0] || !fn)
		return SBT_ERR_ARG;
	at = sbt_dump_find(d, type_name, &found);
	if (found) {
		d->entries[at].fn = fn;
		return SBT_OK;
	}
	if (d->count == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		sbt_dump_entry *e = realloc(d->entries, cap * sizeof(*e));
		if (!e)
			return SBT_ERR_NOMEM;
		d->entries = e;
		d->cap = cap;
	}
	memmove(d->entries + at + 1, d->entries + at, (d->count - at) * sizeof(*d->entries));
	d->entries[at].name = type_name;
	d->entries[at].fn = fn;
	d->count++;
	return SBT_OK;
}

const char *sbt_dump_type_name(const sbt_reader *r, uint32_t type)
{
	const char *name = r ? sbt_reader_type_name(r, type) : NULL;

	if (name && name[0])
		return name;
	if (type <= SBT_TYPE_SNAPSHOT_END && sbt_dump_core_table[type].name)
		return sbt_dump_core_table[type].name;
	return "";
}

/* Core types decode by number: their payloads are fixed by sbt.h whatever
 * the trace calls them.  Other types decode by the trace's name for them. */
static sbt_dump_codec_fn sbt_dump_lookup(const sbt_dump *d, const sbt_reader *r,
                                         uint32_t type)
{
	const char *name;
	size_t at;
	int found;

	if (type <= SBT_TYPE_SNAPSHOT_END)
		return sbt_dump_core_table[type].fn;
	if (!d || !r || d->count == 0)
		return NULL;
	name = sbt_reader_type_name(r, type);
	if (!name || !name[0])
		return NULL;
	at = sbt_dump_find(d, name, &found);
	return found ? d->entries[at].fn : NULL;
}

int sbt_dump_has_codec(const sbt_dump *d, const sbt_reader *r, uint32_t type)
{
	return sbt_dump_lookup(d, r, type) != NULL;
}

/* ---- one record ------------------------------------------------------- */

static void sbt_dump_frames(const sbt_reader *r, uint32_t stack_id, sbt_dump_format fmt,
                            sbt_dump_buf *out)
{
	const sbt_frame *frames = NULL;
	uint32_t n = 0, i;
	sbt_status st = SBT_ERR_NOT_FOUND;

	if (r)
		st = sbt_reader_stack(r, stack_id, &frames, &n);
	if (fmt == SBT_DUMP_JSON) {
		sbt_dump_buf_puts(out, ",\"frames\":[");
		for (i = 0; st == SBT_OK && i < n; i++) {
			const char *sym = sbt_reader_string(r, frames[i].symbol_id);
			sbt_dump_buf_printf(out, "%s{\"ip\":\"0x%llx\"", i ? "," : "",
			                    (unsigned long long)frames[i].ip);
			if (sym) {
				sbt_dump_buf_puts(out, ",\"symbol\":");
				sbt_dump_json_string(out, sym, strlen(sym));
			}
			sbt_dump_buf_put(out, "}", 1);
		}
		sbt_dump_buf_put(out, "]", 1);
		return;
	}
	if (st != SBT_OK) {
		sbt_dump_buf_printf(out, "    (stack %u not in the trace)\n", stack_id);
		return;
	}
	for (i = 0; i < n; i++) {
		const char *sym = sbt_reader_string(r, frames[i].symbol_id);
		sbt_dump_buf_printf(out, "    #%-2u 0x%016llx %s\n", i,
		                    (unsigned long long)frames[i].ip, sym ? sym : "?");
	}
}

sbt_status sbt_dump_record(const sbt_dump *d, const sbt_reader *r, const sbt_record *rec,
                           const sbt_dump_options *opt, sbt_dump_buf *out)
{
	sbt_dump_options defaults;
	sbt_dump_codec_fn fn;
	sbt_dump_emit e;
	const char *name;
	const char *error = NULL;
	size_t max_hex;
	int json;

	if (!rec || !out || (rec->payload_len && !rec->payload))
		return SBT_ERR_ARG;
	if (!opt) {
		memset(&defaults, 0, sizeof(defaults));
		opt = &defaults;
	}
	json = opt->format == SBT_DUMP_JSON;
	max_hex = opt->max_hex ? opt->max_hex : (json ? 256 : 16);
	name = sbt_dump_type_name(r, rec->type);

	if (json) {
		sbt_dump_buf_printf(out, "{\"seq\":%llu,\"time_ns\":%llu,\"thread\":%llu,\"type\":%u,\"name\":",
		                    (unsigned long long)rec->seq, (unsigned long long)rec->time_ns,
		                    (unsigned long long)rec->thread, rec->type);
		sbt_dump_json_string(out, name, strlen(name));
		sbt_dump_buf_printf(out, ",\"stack\":%u,\"payload_len\":%zu", rec->stack_id,
		                    rec->payload_len);
	} else {
		sbt_dump_buf_printf(out, "seq=%llu t=%llu.%09llu tid=%llu ",
		                    (unsigned long long)rec->seq,
		                    (unsigned long long)(rec->time_ns / 1000000000u),
		                    (unsigned long long)(rec->time_ns % 1000000000u),
		                    (unsigned long long)rec->thread);
		if (name[0])
			sbt_dump_buf_puts(out, name);
		else
			sbt_dump_buf_printf(out, "type#%u", rec->type);
	}

	e.out = out;
	e.format = opt->format;
	e.nfields = 0;
	e.session = opt->session;
	e.max_elements = opt->max_elements ? opt->max_elements : json ? SIZE_MAX : 8;
	e.depth = 0;
	fn = sbt_dump_lookup(d, r, rec->type);
	if (fn) {
		size_t mark = out->len;
		if (json)
			sbt_dump_buf_puts(out, ",\"args\":{");
		if (fn(&e, r, rec) == SBT_OK) {
			if (json) {
				sbt_dump_close_to(&e, 0);
				sbt_dump_buf_put(out, "}", 1);
			}
		} else {
			e.depth = 0;
			/* Drop the half-written fields; show the bytes instead. */
			if (!out->failed) {
				out->len = mark;
				out->data[mark] = '\0';
			}
			e.nfields = 0;
			error = "payload does not decode";
			fn = NULL;
		}
	}
	if (!fn) {
		if (json) {
			e.nfields = 1; /* fields follow the record's own keys */
			sbt_dump_emit_bytes(&e, "payload_hex", rec->payload, rec->payload_len, max_hex);
			if (error)
				sbt_dump_emit_str(&e, "payload_error", error, strlen(error));
		} else {
			if (error)
				sbt_dump_emit_str(&e, "payload_error", error, strlen(error));
			sbt_dump_emit_u64(&e, "len", rec->payload_len);
			if (rec->payload_len)
				sbt_dump_emit_bytes(&e, "hex", rec->payload, rec->payload_len, max_hex);
		}
	}

	if (json) {
		if (opt->with_stack && rec->stack_id)
			sbt_dump_frames(r, rec->stack_id, opt->format, out);
		sbt_dump_buf_puts(out, "}\n");
	} else {
		if (rec->stack_id)
			sbt_dump_buf_printf(out, " stack=%u", rec->stack_id);
		sbt_dump_buf_put(out, "\n", 1);
		if (opt->with_stack && rec->stack_id)
			sbt_dump_frames(r, rec->stack_id, opt->format, out);
	}
	return out->failed ? SBT_ERR_NOMEM : SBT_OK;
}
