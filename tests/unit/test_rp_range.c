/*
 * test_rp_range.c - --range parsing: the accepted forms and that every bad
 * form is refused with a message naming the problem.
 */
#include <stdint.h>
#include <string.h>

#include "replayer/rp.h"
#include "tests/support/tst.h"

static void test_rp_range_ok(const char *text, uint64_t begin, uint64_t end, int has_begin,
                             int has_end)
{
	rp_range r;
	rp_diag d = {""};
	rp_status st = rp_range_parse(text, &r, &d);
	if (st != RP_OK) {
		fprintf(stderr, "range '%s' refused: %s\n", text, d.text);
		tst_failures++;
		return;
	}
	TST_CHECK_EQ_U64(r.begin, begin);
	TST_CHECK_EQ_U64(r.end, end);
	TST_CHECK_EQ_U64(r.has_begin, has_begin);
	TST_CHECK_EQ_U64(r.has_end, has_end);
}

/* Refused, and the message contains `want`. */
static void test_rp_range_bad(const char *text, const char *want)
{
	rp_range r = {7, 8, 1, 1};
	rp_diag d = {""};
	rp_status st = rp_range_parse(text, &r, &d);
	if (st != RP_ERR_ARG) {
		fprintf(stderr, "range '%s' accepted (begin %llu end %llu)\n", text,
		        (unsigned long long)r.begin, (unsigned long long)r.end);
		tst_failures++;
		return;
	}
	if (!strstr(d.text, want)) {
		fprintf(stderr, "range '%s': message '%s' lacks '%s'\n", text, d.text, want);
		tst_failures++;
	}
	/* A refused range leaves the output alone. */
	TST_CHECK_EQ_U64(r.begin, 7);
	TST_CHECK_EQ_U64(r.end, 8);
}

int main(void)
{
	test_rp_range_ok("100:200", 100, 200, 1, 1);
	test_rp_range_ok("0:1", 0, 1, 1, 1);
	test_rp_range_ok("5000:", 5000, UINT64_MAX, 1, 0);
	test_rp_range_ok(":42", 0, 42, 0, 1);
	test_rp_range_ok("18446744073709551614:18446744073709551615", UINT64_MAX - 1, UINT64_MAX,
	                 1, 1);
	test_rp_range_ok("007:010", 7, 10, 1, 1);

	test_rp_range_bad("", "one ':' expected");
	test_rp_range_bad("100", "one ':' expected");
	test_rp_range_bad("1:2:3", "one ':' expected");
	test_rp_range_bad(":", "neither a start nor an end");
	test_rp_range_bad("200:100", "is empty");
	test_rp_range_bad("5:5", "is empty");
	test_rp_range_bad("-5:10", "start '-5' is not a decimal");
	test_rp_range_bad("1O0:200", "start '1O0' is not a decimal");
	test_rp_range_bad("100:2x", "end '2x' is not a decimal");
	test_rp_range_bad(" 1:2", "not a decimal");
	test_rp_range_bad("0x10:0x20", "not a decimal");
	test_rp_range_bad("18446744073709551616:", "too large");
	test_rp_range_bad(":99999999999999999999", "too large");
	test_rp_range_bad("100-200", "one ':' expected");
	{
		rp_diag d = {""};
		TST_CHECK(rp_range_parse(NULL, NULL, &d) == RP_ERR_ARG);
	}
	TST_CHECK(strcmp(rp_strerror(RP_OK), "success") == 0);
	TST_CHECK(strcmp(rp_strerror((rp_status)999), "unknown replayer status") == 0);
	return tst_done();
}
