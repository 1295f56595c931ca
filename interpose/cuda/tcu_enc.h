/*
 * tcu_enc.h - a launch record's payload written straight into the record
 * buffer (prefix tcu_enc_).
 *
 * The bytes are exactly those sbt_cm_encode writes for the same call
 * (sbt_compute.h, PAYLOAD: fields in tag order, zero and empty ones left
 * out): the wire format is the compute model's, shared with the replayer,
 * and this only takes a shorter road to it.  sbt_cm_encode walks all the
 * model's fields through a bounded writer and needs the parameters packed
 * into a buffer of their own first; a launch sets at most 16 fields, the
 * function's handle, name and layout fields are the same at every launch
 * (so they are encoded once per function and copied), and the parameter
 * bytes can be laid out in place.  tests/unit/test_tcu_launch_encode.c
 * holds this to sbt_cm_encode.
 *
 * Header-only and free of cuda.h so that the unit test can include it.
 */
#ifndef TRACESMITH_TCU_ENC_H
#define TRACESMITH_TCU_ENC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "serializer/sbt_compute.h"

/* Field tags, from the model's own list so they cannot drift. */
enum {
#define TCU_ENC_X_TAG(t, n, w) TCU_ENC_TAG_##n = t,
	SBT_CM_FIELD_LIST(TCU_ENC_X_TAG)
#undef TCU_ENC_X_TAG
};

enum { TCU_ENC_WIRE_U = 0, TCU_ENC_WIRE_B = 2 }; /* sbt_compute.h PAYLOAD */

/* A field's key is tag << 2 | wire: two varint bytes at most for tags
 * below 4096, and a value takes ten at most. */
#define TCU_ENC_FIELD_MAX 12u
_Static_assert(TCU_ENC_TAG_note < 4096, "field keys fit two varint bytes");

/* The order tcu_enc_launch_put writes in must be the tag order. */
_Static_assert(TCU_ENC_TAG_result < TCU_ENC_TAG_handle && TCU_ENC_TAG_handle < TCU_ENC_TAG_name &&
                   TCU_ENC_TAG_name < TCU_ENC_TAG_stream && TCU_ENC_TAG_stream < TCU_ENC_TAG_grid_x &&
                   TCU_ENC_TAG_grid_x < TCU_ENC_TAG_grid_y && TCU_ENC_TAG_grid_y < TCU_ENC_TAG_grid_z &&
                   TCU_ENC_TAG_grid_z < TCU_ENC_TAG_block_x &&
                   TCU_ENC_TAG_block_x < TCU_ENC_TAG_block_y &&
                   TCU_ENC_TAG_block_y < TCU_ENC_TAG_block_z &&
                   TCU_ENC_TAG_block_z < TCU_ENC_TAG_shared_mem &&
                   TCU_ENC_TAG_shared_mem < TCU_ENC_TAG_params &&
                   TCU_ENC_TAG_params < TCU_ENC_TAG_layout && TCU_ENC_TAG_layout < TCU_ENC_TAG_extra &&
                   TCU_ENC_TAG_extra < TCU_ENC_TAG_attrs &&
                   TCU_ENC_TAG_attrs < TCU_ENC_TAG_capture_status &&
                   TCU_ENC_TAG_capture_status < TCU_ENC_TAG_capture_id &&
                   TCU_ENC_TAG_capture_id < TCU_ENC_TAG_sub && TCU_ENC_TAG_sub < TCU_ENC_TAG_ptds,
               "launch fields are written in tag order");

/* The CUlaunchAttribute layout (tcu_model.c checks it against cuda.h):
 * a 4-byte id at 0, the 64 value bytes at 8, 72 bytes apart. */
#define TCU_ENC_ATTR_STRIDE 72u
#define TCU_ENC_ATTR_VALUE_AT 8u

/* Unsigned LEB128, as sbt_varint_put. */
static inline size_t tcu_enc_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* An unsigned field; nothing when v is 0. */
static inline size_t tcu_enc_u(uint8_t *p, unsigned tag, uint64_t v)
{
	size_t n;
	if (!v)
		return 0;
	n = tcu_enc_varint(p, (uint64_t)tag << 2 | TCU_ENC_WIRE_U);
	return n + tcu_enc_varint(p + n, v);
}

/* The key and length of a byte field whose len bytes the caller writes. */
static inline size_t tcu_enc_b_head(uint8_t *p, unsigned tag, size_t len)
{
	size_t n = tcu_enc_varint(p, (uint64_t)tag << 2 | TCU_ENC_WIRE_B);
	return n + tcu_enc_varint(p + n, len);
}

/* A byte field; nothing when len is 0. */
static inline size_t tcu_enc_b(uint8_t *p, unsigned tag, const void *b, size_t len)
{
	size_t n;
	if (!len)
		return 0;
	n = tcu_enc_b_head(p, tag, len);
	memcpy(p + n, b, len);
	return n + len;
}

/* The fields naming a function: handle and name (name may be NULL).
 * Writes at most 2 * TCU_ENC_FIELD_MAX + name_len bytes. */
static inline size_t tcu_enc_head(uint8_t *p, uint64_t handle, const char *name, size_t name_len)
{
	size_t n = tcu_enc_u(p, TCU_ENC_TAG_handle, handle);
	return n + tcu_enc_b(p + n, TCU_ENC_TAG_name, name, name ? name_len : 0);
}

/* One kernel parameter: where it goes in the parameter bytes. */
typedef struct tcu_enc_param {
	uint32_t offset, size;
} tcu_enc_param;

/* The layout field of nparams entries (packed as sbt_cm_layout_put).
 * Writes at most TCU_ENC_FIELD_MAX + nparams * SBT_CM_LAYOUT_BYTES. */
static inline size_t tcu_enc_layout(uint8_t *p, const tcu_enc_param *pl, uint32_t nparams)
{
	size_t n;
	if (!nparams)
		return 0;
	n = tcu_enc_b_head(p, TCU_ENC_TAG_layout, (size_t)nparams * SBT_CM_LAYOUT_BYTES);
	for (uint32_t i = 0; i < nparams; i++, n += SBT_CM_LAYOUT_BYTES)
		sbt_cm_layout_put(p + n, pl[i].offset, pl[i].size);
	return n;
}

/* What one launch record holds (sbt_compute.h, launches). */
typedef struct tcu_enc_launch {
	uint64_t result;
	const uint8_t *head; /* tcu_enc_head of the function */
	size_t head_len;
	uint64_t stream;
	uint64_t grid[3], block[3], shared_mem;
	/* The parameters by layout: the program's kernelParams (NULL: none),
	 * laid out over param_bytes zeroed bytes; or, when param_data is set,
	 * param_bytes already laid out there. */
	void *const *params;
	const uint8_t *param_data;
	const tcu_enc_param *pl;
	uint32_t nparams;
	size_t param_bytes;
	const uint8_t *layout; /* tcu_enc_layout of the function */
	size_t layout_len;
	const void *extra; /* the CU_LAUNCH_PARAM_BUFFER_POINTER bytes */
	size_t extra_len;
	const void *attrs; /* CUlaunchAttribute array */
	size_t nattrs;
	uint64_t capture_status, capture_id, sub, ptds;
} tcu_enc_launch;

/* Bytes tcu_enc_launch_put may write for d (an upper bound). */
static inline size_t tcu_enc_launch_max(const tcu_enc_launch *d)
{
	return 16 * TCU_ENC_FIELD_MAX + d->head_len + d->layout_len + d->param_bytes + d->extra_len +
	       d->nattrs * SBT_CM_ATTR_BYTES;
}

static inline size_t tcu_enc_launch_put(uint8_t *out, const tcu_enc_launch *d)
{
	uint8_t *p = out;
	p += tcu_enc_u(p, TCU_ENC_TAG_result, d->result);
	memcpy(p, d->head, d->head_len);
	p += d->head_len;
	p += tcu_enc_u(p, TCU_ENC_TAG_stream, d->stream);
	p += tcu_enc_u(p, TCU_ENC_TAG_grid_x, d->grid[0]);
	p += tcu_enc_u(p, TCU_ENC_TAG_grid_y, d->grid[1]);
	p += tcu_enc_u(p, TCU_ENC_TAG_grid_z, d->grid[2]);
	p += tcu_enc_u(p, TCU_ENC_TAG_block_x, d->block[0]);
	p += tcu_enc_u(p, TCU_ENC_TAG_block_y, d->block[1]);
	p += tcu_enc_u(p, TCU_ENC_TAG_block_z, d->block[2]);
	p += tcu_enc_u(p, TCU_ENC_TAG_shared_mem, d->shared_mem);
	if (d->param_data && d->param_bytes) {
		p += tcu_enc_b(p, TCU_ENC_TAG_params, d->param_data, d->param_bytes);
	} else if (d->params && d->param_bytes) {
		p += tcu_enc_b_head(p, TCU_ENC_TAG_params, d->param_bytes);
		memset(p, 0, d->param_bytes);
		for (uint32_t i = 0; i < d->nparams; i++)
			if (d->params[i])
				memcpy(p + d->pl[i].offset, d->params[i], d->pl[i].size);
		p += d->param_bytes;
	}
	if (d->layout_len) {
		memcpy(p, d->layout, d->layout_len);
		p += d->layout_len;
	}
	p += tcu_enc_b(p, TCU_ENC_TAG_extra, d->extra, d->extra_len);
	if (d->nattrs) {
		const uint8_t *a = d->attrs;
		p += tcu_enc_b_head(p, TCU_ENC_TAG_attrs, d->nattrs * SBT_CM_ATTR_BYTES);
		for (size_t i = 0; i < d->nattrs; i++, a += TCU_ENC_ATTR_STRIDE, p += SBT_CM_ATTR_BYTES) {
			uint32_t id;
			memcpy(&id, a, sizeof(id));
			sbt_cm_attr_put(p, id, a + TCU_ENC_ATTR_VALUE_AT);
		}
	}
	p += tcu_enc_u(p, TCU_ENC_TAG_capture_status, d->capture_status);
	p += tcu_enc_u(p, TCU_ENC_TAG_capture_id, d->capture_id);
	p += tcu_enc_u(p, TCU_ENC_TAG_sub, d->sub);
	p += tcu_enc_u(p, TCU_ENC_TAG_ptds, d->ptds);
	return (size_t)(p - out);
}

/*
 * Deferred encoding (cap.h, cap_record_begin_deferred): the application's
 * thread leaves a launch in this raw form and the capture runtime's writer
 * thread encodes it with tcu_enc_raw_encode into the same bytes
 * tcu_enc_launch_put writes.  The raw form is what cannot wait (the
 * parameter values, laid out now: the program may change them as soon as
 * the launch returns; the extra buffer; the attributes) and pointers to
 * what never changes (the function entry's encoded head and layout).
 *
 * Raw bytes: a tcu_enc_raw, then param_bytes laid-out parameter bytes,
 * extra_len bytes of the extra buffer, nattrs CUlaunchAttribute copies
 * (TCU_ENC_ATTR_STRIDE bytes each).
 */
/* What a launch record takes from its function, fixed once the function
 * has launched: its encoded head, its layout field and its kind. */
typedef struct tcu_enc_fn {
	const uint8_t *head;   /* the function's tcu_enc_head */
	const uint8_t *layout; /* its tcu_enc_layout field (layout_len 0: none) */
	uint32_t head_len, layout_len;
	uint8_t sub;           /* SBT_CM_FUNC_* */
} tcu_enc_fn;

typedef struct tcu_enc_raw {
	const tcu_enc_fn *fn;  /* NULL, or fn->head NULL: encode `handle` alone, no layout */
	uint64_t handle, stream, capture_id;
	uint32_t grid[3], block[3], shared_mem;
	uint32_t result, capture_status;
	uint32_t param_bytes, extra_len, nattrs;
	uint8_t ptds;
} tcu_enc_raw;

/* Raw bytes of a launch with these variable parts. */
static inline size_t tcu_enc_raw_size(size_t param_bytes, size_t extra_len, size_t nattrs)
{
	return sizeof(tcu_enc_raw) + param_bytes + extra_len + nattrs * TCU_ENC_ATTR_STRIDE;
}

/* One parameter's bytes: the common sizes (pointers, 32-bit values) as
 * one load and one store, without a call to memcpy. */
static inline void tcu_enc_param_copy(uint8_t *dst, const void *src, uint32_t size)
{
	uint64_t w;
	uint32_t v;
	if (size == 8) {
		memcpy(&w, src, sizeof(w));
		memcpy(dst, &w, sizeof(w));
	} else if (size == 4) {
		memcpy(&v, src, sizeof(v));
		memcpy(dst, &v, sizeof(v));
	} else {
		memcpy(dst, src, size);
	}
}

/* Lay the parameters out over param_bytes zeroed bytes at dst, as
 * tcu_enc_launch_put does in place (in the layout's order, so that
 * overlapping parameters end as there). */
static inline void tcu_enc_params(uint8_t *dst, void *const *params, const tcu_enc_param *pl,
                                  uint32_t nparams, size_t param_bytes)
{
	memset(dst, 0, param_bytes);
	for (uint32_t i = 0; i < nparams; i++)
		if (params[i])
			tcu_enc_param_copy(dst + pl[i].offset, params[i], pl[i].size);
}

/* The writer's side (a cap_encode_fn): the payload of the raw launch, or,
 * when out_cap is too small, a length that is enough (nothing written). */
static inline size_t tcu_enc_raw_encode(const uint8_t *raw, size_t raw_len, uint8_t *out,
                                        size_t out_cap)
{
	tcu_enc_raw r;
	tcu_enc_launch d;
	uint8_t head[2 * TCU_ENC_FIELD_MAX];
	const uint8_t *tail = raw + sizeof(r);
	size_t max;

	if (raw_len < sizeof(r))
		return 0;
	memcpy(&r, raw, sizeof(r));
	if (raw_len < tcu_enc_raw_size(r.param_bytes, r.extra_len, r.nattrs))
		return 0;
	memset(&d, 0, sizeof(d));
	d.result = r.result;
	if (r.fn && r.fn->head) {
		d.head = r.fn->head;
		d.head_len = r.fn->head_len;
		d.layout = r.fn->layout;
		d.layout_len = r.fn->layout_len;
		d.sub = r.fn->sub;
	} else {
		d.head = head;
		d.head_len = tcu_enc_head(head, r.handle, NULL, 0);
	}
	d.stream = r.stream;
	for (int i = 0; i < 3; i++) {
		d.grid[i] = r.grid[i];
		d.block[i] = r.block[i];
	}
	d.shared_mem = r.shared_mem;
	d.param_data = tail;
	d.param_bytes = r.param_bytes;
	d.extra = tail + r.param_bytes;
	d.extra_len = r.extra_len;
	d.attrs = tail + r.param_bytes + r.extra_len;
	d.nattrs = r.nattrs;
	d.capture_status = r.capture_status;
	d.capture_id = r.capture_id;
	d.ptds = r.ptds;
	max = tcu_enc_launch_max(&d);
	if (max > out_cap)
		return max;
	return tcu_enc_launch_put(out, &d);
}

#endif /* TRACESMITH_TCU_ENC_H */
