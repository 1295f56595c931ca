/*
 * rp_profile.c - the profile sidecar tsreplay --profile writes: the device
 * timings of every command of one replay, in a file beside the trace (the
 * trace itself is never touched).  The emulator reads it back
 * (emulator/emu_profile.c); docs/replay.md "Profile sidecar" repeats this.
 *
 * Format, version 1: UTF-8 text, one item per line, fields separated by
 * one space, lines ended by '\n'.
 *
 *   tsprofile 1                          magic and version (first line)
 *   trace <32 hex digits>                the trace id of the SBT header: a
 *                                        sidecar applies to that trace only
 *   api <name>                           backends that timed it ("cuda",
 *                                        "vulkan")
 *   device <text to the end of line>     the device the timings come from
 *   unit ns                              the unit of start and end
 *   entry <seq> <submit> <stream> <start> <end>
 *                                        one per timed command: its record's
 *                                        seq, the record that made it run
 *                                        (the vkQueueSubmit on Vulkan, seq on
 *                                        CUDA), the captured stream or queue
 *                                        handle (0x hex; 0: the legacy
 *                                        stream), start and end (decimal, on
 *                                        the device timeline, from the first
 *                                        timed command of the run)
 *   entries <count>                      last line: the number of entry
 *                                        lines (a cut file has none)
 *
 * Validity: the header lines come in this order before any entry; end >=
 * start; numbers fit in 64 bits.  A reader refuses a higher version.
 * Lines starting with '#' are comments.
 */
#include "replayer/rp.h"
#include "replayer/rp_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rp_profile {
	uint8_t trace_id[16];
	char api[64];
	char device[256];
	rp_profile_entry *v;
	size_t n, cap;
};

rp_status rp_profile_create(const uint8_t trace_id[16], const char *api, rp_profile **out)
{
	rp_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return RP_ERR_NOMEM;
	memcpy(p->trace_id, trace_id, sizeof(p->trace_id));
	snprintf(p->api, sizeof(p->api), "%s", api);
	snprintf(p->device, sizeof(p->device), "unknown");
	*out = p;
	return RP_OK;
}

rp_status rp_profile_add(rp_profile *p, const rp_profile_entry *e)
{
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 256;
		rp_profile_entry *nv = realloc(p->v, ncap * sizeof(*nv));
		if (!nv)
			return RP_ERR_NOMEM;
		p->v = nv;
		p->cap = ncap;
	}
	p->v[p->n++] = *e;
	return RP_OK;
}

void rp_profile_set_device(rp_profile *p, const char *name)
{
	size_t i;
	snprintf(p->device, sizeof(p->device), "%s", name && *name ? name : "unknown");
	for (i = 0; p->device[i]; i++) /* one line */
		if (p->device[i] == '\n' || p->device[i] == '\r')
			p->device[i] = ' ';
}

size_t rp_profile_count(const rp_profile *p)
{
	return p ? p->n : 0;
}

const char *rp_profile_device(const rp_profile *p)
{
	return p->device;
}

static int rp_profile_cmp(const void *a, const void *b)
{
	const rp_profile_entry *x = a, *y = b;
	if (x->submit_seq != y->submit_seq)
		return x->submit_seq < y->submit_seq ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/* Write to path + ".tmp", then rename: a reader never sees half a file. */
rp_status rp_profile_write(rp_profile *p, const char *path, rp_diag *diag)
{
	char tmp[4096];
	FILE *f;
	size_t i;
	int bad;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		rp_diag_set(diag, "--profile: the path %s is too long", path);
		return RP_ERR_ARG;
	}
	f = fopen(tmp, "w");
	if (!f) {
		rp_diag_set(diag, "--profile: cannot write %s: %s", tmp, strerror(errno));
		return RP_ERR_ARG;
	}
	qsort(p->v, p->n, sizeof(*p->v), rp_profile_cmp);
	fprintf(f, "tsprofile 1\ntrace ");
	for (i = 0; i < sizeof(p->trace_id); i++)
		fprintf(f, "%02x", p->trace_id[i]);
	fprintf(f, "\napi %s\ndevice %s\nunit ns\n", p->api, p->device);
	for (i = 0; i < p->n; i++)
		fprintf(f, "entry %llu %llu 0x%llx %llu %llu\n", (unsigned long long)p->v[i].seq,
		        (unsigned long long)p->v[i].submit_seq, (unsigned long long)p->v[i].stream,
		        (unsigned long long)p->v[i].start_ns, (unsigned long long)p->v[i].end_ns);
	fprintf(f, "entries %zu\n", p->n);
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		rp_diag_set(diag, "--profile: writing %s failed: %s", tmp, strerror(errno));
		remove(tmp);
		return RP_ERR_ARG;
	}
	if (rename(tmp, path) != 0) {
		rp_diag_set(diag, "--profile: cannot rename %s to %s: %s", tmp, path, strerror(errno));
		remove(tmp);
		return RP_ERR_ARG;
	}
	return RP_OK;
}

void rp_profile_free(rp_profile *p)
{
	if (!p)
		return;
	free(p->v);
	free(p);
}
