/*
 * testapi_demo.c - a small "compute program" on the testapi test double:
 * three buffers, host writes, a chain of kernels, reads of the results fed
 * back as input.  Captured with tscapture, it is the trace the replayer's
 * demo and tests replay.
 *
 * usage: testapi_demo [ITERATIONS [BYTES]]   (default 4 iterations, 4096 bytes)
 * Prints a checksum of everything it read, so two runs can be compared.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/testapi.h"

static int testapi_demo_fail(const char *what)
{
	fprintf(stderr, "testapi_demo: %s failed: %s\n", what, testapi_last_error());
	return 1;
}

static int testapi_demo_number(const char *s, unsigned long min, unsigned long max,
                               unsigned long *out)
{
	char *end = NULL;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long iterations = 4, size = 4096, it;
	uint8_t *host = NULL, *out = NULL;
	uint8_t small[64];
	uint64_t a, b, c, sum = 1469598103934665603ull;
	size_t i;
	int rc = 1;

	if (argc > 3 || (argc > 1 && testapi_demo_number(argv[1], 1, 100000, &iterations) != 0) ||
	    (argc > 2 && testapi_demo_number(argv[2], 128, 1ul << 26, &size) != 0) || size % 8) {
		fprintf(stderr, "usage: testapi_demo [ITERATIONS [BYTES]]  (1..100000, 128..2^26 "
		        "bytes, a multiple of 8)\n");
		return 2;
	}
	host = malloc(size);
	out = malloc(size);
	if (!host || !out) {
		fprintf(stderr, "testapi_demo: out of memory\n");
		goto out_free;
	}
	for (i = 0; i < size; i++)
		host[i] = (uint8_t)(i * 7 + 3);
	a = testapi_alloc(size);
	b = testapi_alloc(size);
	c = testapi_alloc(size);
	if (!a || !b || !c) {
		rc = testapi_demo_fail("alloc");
		goto out_free;
	}
	if (testapi_write(a, 0, host, size) || testapi_kernel_fill(b, 0, size, 0x01020304u)) {
		rc = testapi_demo_fail("setup");
		goto out_free;
	}
	for (it = 0; it < iterations; it++) {
		if (testapi_kernel_add(c, a, b, size) ||
		    testapi_kernel_scale(c, 0, size, (uint32_t)(3 + it)) ||
		    testapi_kernel_mix(c, 0, size, 0x9e3779b97f4a7c15ull + it) ||
		    testapi_read(c, 0, out, size) ||
		    testapi_write(a, 0, out, size / 2) ||
		    testapi_read(c, size / 4, small, sizeof(small))) {
			rc = testapi_demo_fail("iteration");
			goto out_free;
		}
		for (i = 0; i < size; i++)
			sum = (sum ^ out[i]) * 1099511628211ull;
		for (i = 0; i < sizeof(small); i++)
			sum = (sum ^ small[i]) * 1099511628211ull;
	}
	if (testapi_free(a) || testapi_free(b) || testapi_free(c)) {
		rc = testapi_demo_fail("free");
		goto out_free;
	}
	printf("testapi_demo: %lu iterations over 3 buffers of %lu bytes; result 0x%016llx\n",
	       iterations, size, (unsigned long long)sum);
	rc = 0;
out_free:
	free(out);
	free(host);
	return rc;
}
