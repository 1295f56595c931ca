/*
 * The CUDA interposer's launch encoder (interpose/cuda/tcu_enc.h) writes
 * exactly the bytes sbt_cm_encode writes for the same launch: random
 * launches of every shape (names long and short or absent, parameters by
 * layout with gaps, overlaps and NULL pointers, the extra buffer, launch
 * attributes with junk in their padding, capture fields, large and zero
 * values), built for sbt_cm_encode the way the interposer built them before
 * it had its own encoder, and never past tcu_enc_launch_max.  Half the
 * launches have values of the driver API's widths (32-bit dimensions and
 * results); those are also left in the raw form the interposer hands the
 * writer thread (tcu_enc_raw) and encoded from it with tcu_enc_raw_encode,
 * which must give the same bytes, ask for room when given too little, and
 * encode a function it has no entry for from its handle.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_enc.h"
#include "tests/support/tst.h"

#define TLE_TRIALS 20000
#define TLE_MAX_PARAMS 24
#define TLE_MAX_ATTRS 4
#define TLE_GUARD 64

static uint64_t tle_state = 0x2545F4914F6CDD1Dull;

static uint64_t tle_rand(void)
{
	/* xorshift64*: fixed seed, so a failure repeats */
	tle_state ^= tle_state >> 12;
	tle_state ^= tle_state << 25;
	tle_state ^= tle_state >> 27;
	return tle_state * 0x2545F4914F6CDD1Dull;
}

/* 0 a quarter of the time, else small, 32-bit or full 64-bit. */
static uint64_t tle_value(void)
{
	switch (tle_rand() % 4) {
	case 0:
		return 0;
	case 1:
		return tle_rand() % 200;
	case 2:
		return (uint32_t)tle_rand();
	default:
		return tle_rand();
	}
}

/* The raw launch as tcu_launch_record (tcu_model.c) leaves it for d's
 * launch, then encoded on "the writer's side": 0 when it gives ref. */
static int tle_raw_check(int trial, const tcu_enc_launch *d, uint64_t handle, const void *attrs,
                         const uint8_t *ref, size_t ref_len, int nameless)
{
	static uint8_t raw[8192], out[8192];
	size_t param_bytes = d->params ? d->param_bytes : 0;
	size_t raw_len = tcu_enc_raw_size(param_bytes, d->extra_len, d->nattrs);
	tcu_enc_raw r;
	tcu_enc_fn fn;
	uint8_t *tail = raw + sizeof(r);
	size_t need, len;

	TST_REQUIRE(raw_len <= sizeof(raw));
	memset(&r, 0x5A, sizeof(r)); /* padding is never read */
	memset(&fn, 0x5A, sizeof(fn));
	fn.head = d->head;
	fn.head_len = (uint32_t)d->head_len;
	fn.layout = d->layout_len ? d->layout : NULL;
	fn.layout_len = (uint32_t)d->layout_len;
	fn.sub = (uint8_t)d->sub;
	r.fn = &fn;
	r.handle = handle;
	/* A handle the interposer has no entry for: no name, layout or kind
	 * (the encoder makes the head from the handle). */
	if (nameless && !d->layout_len && !d->sub)
		r.fn = NULL;
	r.stream = d->stream;
	r.capture_id = d->capture_id;
	for (int i = 0; i < 3; i++) {
		r.grid[i] = (uint32_t)d->grid[i];
		r.block[i] = (uint32_t)d->block[i];
	}
	r.shared_mem = (uint32_t)d->shared_mem;
	r.result = (uint32_t)d->result;
	r.capture_status = (uint32_t)d->capture_status;
	r.param_bytes = (uint32_t)param_bytes;
	r.extra_len = (uint32_t)d->extra_len;
	r.nattrs = (uint32_t)d->nattrs;
	r.ptds = (uint8_t)d->ptds;
	memcpy(raw, &r, sizeof(r));
	if (param_bytes)
		tcu_enc_params(tail, d->params, d->pl, d->nparams, param_bytes);
	if (d->extra_len)
		memcpy(tail + param_bytes, d->extra, d->extra_len);
	if (d->nattrs)
		memcpy(tail + param_bytes + d->extra_len, attrs, d->nattrs * TCU_ENC_ATTR_STRIDE);

	/* With no room it writes nothing and says how much it needs. */
	memset(out, 0xA5, sizeof(out));
	need = tcu_enc_raw_encode(raw, raw_len, out, 0);
	if (need < ref_len || out[0] != 0xA5) {
		fprintf(stderr, "trial %d: raw encoding with no room asked for %zu bytes (payload %zu)%s\n",
		        trial, need, ref_len, out[0] != 0xA5 ? " and wrote" : "");
		return 1;
	}
	TST_REQUIRE(need <= sizeof(out));
	len = tcu_enc_raw_encode(raw, raw_len, out, need);
	if (len != ref_len || memcmp(out, ref, ref_len) != 0) {
		size_t at = 0;
		while (at < len && at < ref_len && out[at] == ref[at])
			at++;
		fprintf(stderr, "trial %d: raw encoding gave %zu bytes, sbt_cm_encode %zu; first "
		        "difference at %zu (nameless %d)\n", trial, len, ref_len, at, nameless);
		return 1;
	}
	return 0;
}

/* One fake CUlaunchAttribute: id at 0, junk padding, value at 8. */
typedef struct tle_attr {
	uint8_t bytes[TCU_ENC_ATTR_STRIDE];
} tle_attr;

static int tle_trial(int trial)
{
	char name[700];
	size_t name_len = 0;
	int has_name = 0;
	uint64_t handle = tle_value();
	tcu_enc_param pl[TLE_MAX_PARAMS];
	uint8_t packed_layout[TLE_MAX_PARAMS * SBT_CM_LAYOUT_BYTES];
	uint8_t param_src[TLE_MAX_PARAMS][16];
	void *params[TLE_MAX_PARAMS];
	uint8_t ref_params[256 + 16];
	uint8_t extra[96];
	tle_attr attrs[TLE_MAX_ATTRS];
	uint8_t ref_attrs[TLE_MAX_ATTRS * SBT_CM_ATTR_BYTES];
	uint8_t head[2 * TCU_ENC_FIELD_MAX + sizeof(name)];
	uint8_t layout_field[TCU_ENC_FIELD_MAX + sizeof(packed_layout)];
	uint8_t ref[4096], out[4096 + TLE_GUARD];
	uint32_t nparams = 0;
	size_t param_bytes = 0, ref_len = 0, out_len, max;
	int layout_known = tle_rand() % 4 != 0, use_params = tle_rand() % 3 != 0;
	size_t nattrs = tle_rand() % 3 == 0 ? tle_rand() % (TLE_MAX_ATTRS + 1) : 0;
	int narrow = tle_rand() % 2; /* the driver API's widths: also through the raw form */
	sbt_cm_call c;
	tcu_enc_launch d;
	int bad = 0;

	sbt_cm_call_init(&c);
	memset(&d, 0, sizeof(d));
	if (tle_rand() % 5 != 0) {
		/* lengths around the old 255-byte name buffer and the 1-byte varint */
		size_t lens[] = {0, 1, 5, 127, 128, 254, 255, 256, 300, 699};
		name_len = lens[tle_rand() % (sizeof(lens) / sizeof(lens[0]))];
		for (size_t i = 0; i < name_len; i++)
			name[i] = (char)('A' + tle_rand() % 26);
		name[name_len] = 0;
		has_name = 1;
	}
	if (layout_known) {
		nparams = (uint32_t)(tle_rand() % (TLE_MAX_PARAMS + 1));
		for (uint32_t i = 0; i < nparams; i++) {
			/* gaps, overlaps and zero sizes all happen */
			pl[i].offset = (uint32_t)(tle_rand() % 240);
			pl[i].size = (uint32_t)(tle_rand() % 17);
			sbt_cm_layout_put(packed_layout + (size_t)i * SBT_CM_LAYOUT_BYTES, pl[i].offset,
			                  pl[i].size);
			if (pl[i].offset + pl[i].size > param_bytes)
				param_bytes = pl[i].offset + pl[i].size;
			for (size_t b = 0; b < sizeof(param_src[i]); b++)
				param_src[i][b] = (uint8_t)tle_rand();
			params[i] = tle_rand() % 6 == 0 ? NULL : param_src[i];
		}
	}
	for (size_t i = 0; i < sizeof(extra); i++)
		extra[i] = (uint8_t)tle_rand();
	for (size_t i = 0; i < nattrs; i++) {
		for (size_t b = 0; b < sizeof(attrs[i].bytes); b++)
			attrs[i].bytes[b] = (uint8_t)tle_rand(); /* the padding is junk too */
	}

	/* The reference: a call as the interposer filled it for sbt_cm_encode. */
#define TLE_V() (narrow ? (uint32_t)tle_value() : tle_value())
	c.result = tle_rand() % 3 ? 0 : TLE_V();
	c.handle = handle;
	c.sub = tle_rand() % 2 ? SBT_CM_FUNC_KERNEL : SBT_CM_FUNC_FUNCTION;
	if (has_name && name_len) {
		c.name = (const uint8_t *)name;
		c.name_len = name_len;
	}
	c.grid_x = TLE_V();
	c.grid_y = TLE_V();
	c.grid_z = TLE_V();
	c.block_x = TLE_V();
	c.block_y = TLE_V();
	c.block_z = TLE_V();
	c.shared_mem = TLE_V();
#undef TLE_V
	c.stream = tle_value();
	c.capture_status = tle_rand() % 3;
	c.capture_id = c.capture_status ? tle_value() : 0;
	c.ptds = tle_rand() % 2;
	if (layout_known) {
		c.layout = packed_layout;
		c.layout_len = (size_t)nparams * SBT_CM_LAYOUT_BYTES;
	}
	if (use_params && layout_known) {
		memset(ref_params, 0, sizeof(ref_params));
		for (uint32_t i = 0; i < nparams; i++)
			if (params[i])
				memcpy(ref_params + pl[i].offset, params[i], pl[i].size);
		c.params = ref_params;
		c.params_len = param_bytes;
	} else if (!use_params && tle_rand() % 2) {
		c.extra = extra;
		c.extra_len = 1 + tle_rand() % sizeof(extra);
	}
	for (size_t i = 0; i < nattrs; i++) {
		uint32_t id;
		memcpy(&id, attrs[i].bytes, sizeof(id));
		sbt_cm_attr_put(ref_attrs + i * SBT_CM_ATTR_BYTES, id, attrs[i].bytes + TCU_ENC_ATTR_VALUE_AT);
	}
	if (nattrs) {
		c.attrs = ref_attrs;
		c.attrs_len = nattrs * SBT_CM_ATTR_BYTES;
	}
	TST_REQUIRE(sbt_cm_encode(&c, ref, sizeof(ref), &ref_len) == SBT_OK);

	/* Ours, from the same launch. */
	d.result = c.result;
	d.head = head;
	d.head_len = tcu_enc_head(head, handle, has_name ? name : NULL, name_len);
	d.stream = c.stream;
	d.grid[0] = c.grid_x;
	d.grid[1] = c.grid_y;
	d.grid[2] = c.grid_z;
	d.block[0] = c.block_x;
	d.block[1] = c.block_y;
	d.block[2] = c.block_z;
	d.shared_mem = c.shared_mem;
	if (layout_known) {
		d.layout = layout_field;
		d.layout_len = tcu_enc_layout(layout_field, pl, nparams);
		if (use_params) {
			d.params = params;
			d.pl = pl;
			d.nparams = nparams;
			d.param_bytes = param_bytes;
		}
	}
	d.extra = c.extra;
	d.extra_len = c.extra_len;
	d.attrs = nattrs ? attrs : NULL;
	d.nattrs = nattrs;
	d.capture_status = c.capture_status;
	d.capture_id = c.capture_id;
	d.sub = c.sub;
	d.ptds = c.ptds;
	max = tcu_enc_launch_max(&d);
	TST_REQUIRE(max <= sizeof(out) - TLE_GUARD);
	memset(out, 0xA5, sizeof(out));
	out_len = tcu_enc_launch_put(out, &d);

	if (out_len > max) {
		fprintf(stderr, "trial %d: wrote %zu bytes, over the bound %zu\n", trial, out_len, max);
		bad = 1;
	}
	for (size_t i = max; i < max + TLE_GUARD; i++)
		if (out[i] != 0xA5) {
			fprintf(stderr, "trial %d: byte %zu past the bound %zu was written\n", trial, i, max);
			bad = 1;
			break;
		}
	if (out_len != ref_len || memcmp(out, ref, ref_len) != 0) {
		size_t at = 0;
		while (at < out_len && at < ref_len && out[at] == ref[at])
			at++;
		fprintf(stderr, "trial %d: %zu bytes, sbt_cm_encode %zu; first difference at %zu "
		        "(params %d, layout %d, %u parameters, name %zu bytes, %zu attrs)\n",
		        trial, out_len, ref_len, at, use_params, layout_known, nparams, name_len, nattrs);
		bad = 1;
	}
	if (!bad && narrow)
		bad = tle_raw_check(trial, &d, handle, attrs, ref, ref_len, !has_name && tle_rand() % 2);
	if (!bad) {
		/* And the model decodes it to the call it came from. */
		sbt_cm_call back;
		TST_REQUIRE(sbt_cm_decode(out, out_len, &back) == SBT_OK);
		TST_CHECK_EQ_U64(back.handle, c.handle);
		TST_CHECK_EQ_U64(back.stream, c.stream);
		TST_CHECK_EQ_U64(back.params_len, c.params_len);
		TST_CHECK_EQ_U64(back.name_len, c.name_len);
	}
	return bad;
}

int main(void)
{
	int bad = 0;
	for (int i = 0; i < TLE_TRIALS && bad < 5; i++)
		bad += tle_trial(i);
	TST_CHECK(bad == 0);
	{
		/* The single-byte and multi-byte varint edges, against known bytes. */
		uint8_t b[16];
		TST_CHECK_EQ_U64(tcu_enc_varint(b, 127), 1);
		TST_CHECK(b[0] == 0x7f);
		TST_CHECK_EQ_U64(tcu_enc_varint(b, 128), 2);
		TST_CHECK(b[0] == 0x80 && b[1] == 0x01);
		TST_CHECK_EQ_U64(tcu_enc_varint(b, UINT64_MAX), 10);
		TST_CHECK(b[9] == 0x01);
		TST_CHECK_EQ_U64(tcu_enc_u(b, TCU_ENC_TAG_grid_x, 0), 0);
	}
	return tst_done();
}
