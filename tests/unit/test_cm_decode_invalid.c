/*
 * test_cm_decode_invalid - the compute codec decodes only what its encoder
 * (the CUDA interposer) could have written (issue 12): a JIT option list or
 * a prelinked fatbin list that is not whole entries, and a name or note
 * with a NUL inside, are refused as SBT_ERR_CORRUPT; the same calls with
 * whole entries and plain text decode.  A layout entry past the parameter
 * bytes still decodes (capture writes one when the program passed `extra`
 * bytes shorter than the layout); sbt_cm_check_params finds it.
 */
#include <stdint.h>
#include <string.h>

#include "serializer/sbt_compute.h"
#include "tests/support/tst.h"

/* Encode c and decode it back: the decode's status (out's byte fields
 * point into a buffer that lives until the next call). */
static sbt_status roundtrip(const sbt_cm_call *c, sbt_cm_call *out)
{
	static uint8_t buf[512];
	size_t n = 0;
	TST_REQUIRE(sbt_cm_encode(c, buf, sizeof(buf), &n) == SBT_OK);
	return sbt_cm_decode(buf, n, out);
}

int main(void)
{
	uint8_t jit[SBT_CM_JIT_BYTES + 3], pre[8 + 5], layout[SBT_CM_LAYOUT_BYTES], params[4] = {0};
	sbt_cm_call c, d;

	memset(jit, 0, sizeof(jit));
	memset(pre, 0, sizeof(pre));
	sbt_cm_call_init(&c);
	c.jit = jit;
	c.jit_len = sizeof(jit);
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_ERR_CORRUPT);
	c.jit_len = SBT_CM_JIT_BYTES;
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_OK);

	sbt_cm_call_init(&c);
	c.prelinked = pre;
	c.prelinked_len = sizeof(pre);
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_ERR_CORRUPT);
	c.prelinked_len = 8;
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_OK);

	sbt_cm_call_init(&c);
	c.name = (const uint8_t *)"saxpy\0tail";
	c.name_len = 10;
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_ERR_CORRUPT);
	c.name_len = 5;
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_OK);
	TST_CHECK(d.name_len == 5 && memcmp(d.name, "saxpy", 5) == 0);

	sbt_cm_call_init(&c);
	c.note = (const uint8_t *)"no\0image";
	c.note_len = 8;
	c.stream = 0x1234;
	c.grid_x = 7;
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_ERR_CORRUPT);
	{
		/* a refused payload leaves nothing decoded behind */
		sbt_cm_call zero;
		sbt_cm_call_init(&zero);
		TST_CHECK(d.stream == 0 && d.grid_x == 0 && d.note == NULL && d.note_len == 0);
		TST_CHECK(memcmp(&d, &zero, sizeof(d)) == 0);
	}

	/* a layout past short `extra` bytes: decodes, the check finds it */
	sbt_cm_call_init(&c);
	sbt_cm_layout_put(layout, 0, 8);
	c.layout = layout;
	c.layout_len = sizeof(layout);
	c.params = params;
	c.params_len = sizeof(params);
	TST_CHECK_EQ_U64(roundtrip(&c, &d), SBT_OK);
	TST_CHECK(sbt_cm_check_params(&d) == -1);
	return tst_done();
}
