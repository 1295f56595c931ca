/*
 * rp_cm_streams.c - the --streams option of the compute backends.
 *
 * single replays every stream's work on one stream in capture order;
 * multi (the default) on streams as captured.  A comma-separated list is
 * taken in turn by the runs of --check-determinism (single,multi: run 1
 * serialised, run 2 as captured, run 3 serialised, ...).
 */
#include "replayer/rp_cm.h"

#include <string.h>

rp_status rp_cm_streams_parse(const char *text, rp_cm_streams *out, rp_diag *diag)
{
	const char *p = text ? text : "";
	unsigned modes = 0, n = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		if (n == RP_CM_STREAM_MODES_MAX) {
			rp_diag_set(diag, "--streams: at most %d entries, got '%s'", RP_CM_STREAM_MODES_MAX,
			            text);
			return RP_ERR_USAGE;
		}
		if (len == 6 && strncmp(p, "single", 6) == 0) {
			modes |= 1u << n;
		} else if (!(len == 5 && strncmp(p, "multi", 5) == 0)) {
			rp_diag_set(diag, "--streams: expected single or multi, got '%s' (a comma-separated "
			            "list of them alternates the runs)", text ? text : "");
			return RP_ERR_USAGE;
		}
		n++;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
	out->modes = modes;
	out->n = n;
	return RP_OK;
}

int rp_cm_streams_single(const rp_cm_streams *m, unsigned run)
{
	return m->n ? (int)((m->modes >> (run % m->n)) & 1u) : 0;
}

const char *rp_cm_streams_run_mode(const rp_cm_streams *m, int single)
{
	unsigned all = m->n ? (1u << m->n) - 1u : 0;

	if (m->n < 2 || m->modes == 0 || m->modes == all)
		return NULL;
	return single ? "serialised" : "concurrent";
}
