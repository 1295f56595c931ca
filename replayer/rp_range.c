/*
 * rp_range.c - parsing --range A:B.
 *
 * The range is half-open over global sequence numbers, the numbers
 * `tsinfo --dump` prints: A:B replays records with A <= seq < B, A: runs to
 * the end, :B starts at the beginning.  Only plain decimal digits are
 * accepted so that a typo ("1O0:200", "-5:", "100-200") is an error rather
 * than a silently different range.
 */
#include "replayer/rp.h"

#include <string.h>

/* Parse [s, e) as a decimal uint64; 0 on success. */
static int rp_range_number(const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0;
	if (s == e)
		return -1;
	for (; s < e; s++) {
		unsigned d;
		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

rp_status rp_range_parse(const char *text, rp_range *out, rp_diag *diag)
{
	const char *colon;
	const char *end;
	rp_range r = {0, UINT64_MAX, 0, 0};
	int rc;

	if (!text || !out) {
		rp_diag_set(diag, "no range given");
		return RP_ERR_ARG;
	}
	colon = strchr(text, ':');
	end = text + strlen(text);
	if (!colon || strchr(colon + 1, ':')) {
		rp_diag_set(diag, "range '%s' is not A:B, A: or :B (one ':' expected)", text);
		return RP_ERR_ARG;
	}
	if (colon == text && colon + 1 == end) {
		rp_diag_set(diag, "range ':' names neither a start nor an end");
		return RP_ERR_ARG;
	}
	if (colon > text) {
		rc = rp_range_number(text, colon, &r.begin);
		if (rc != 0) {
			rp_diag_set(diag, "range '%s': start '%.*s' is %s", text, (int)(colon - text),
			            text, rc == -2 ? "too large" : "not a decimal sequence number");
			return RP_ERR_ARG;
		}
		r.has_begin = 1;
	}
	if (colon + 1 < end) {
		rc = rp_range_number(colon + 1, end, &r.end);
		if (rc != 0) {
			rp_diag_set(diag, "range '%s': end '%s' is %s", text, colon + 1,
			            rc == -2 ? "too large" : "not a decimal sequence number");
			return RP_ERR_ARG;
		}
		r.has_end = 1;
	}
	if (r.begin >= r.end) {
		rp_diag_set(diag, "range '%s' is empty: the start must be below the end "
		                  "(the end is exclusive)", text);
		return RP_ERR_ARG;
	}
	*out = r;
	return RP_OK;
}
