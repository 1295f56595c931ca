/*
 * emu_profile.c - measured durations from a replay profile: the sidecar
 * tsreplay --profile writes beside a trace (format: replayer/rp_profile.c,
 * docs/replay.md "Profile sidecar").  Each entry's end - start replaces
 * the cost model's duration of the command it names; the simulation then
 * schedules those durations on the machine it models.
 *
 * Matching: an entry names a command by (submit, seq).  On CUDA a node is
 * matched by the record that issued it (submit = seq); a graph launch is
 * timed as one command, so its duration is used only when the graph has a
 * single node.  On Vulkan a node is the vkCmd* record seq of a command
 * buffer run by the submit (its step's record).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"

typedef struct emu_prof_ent {
	uint64_t submit, seq, dur;
} emu_prof_ent;

typedef EMU_VEC(emu_prof_ent) emu_prof_vec;

static int emu_prof_cmp(const void *a, const void *b)
{
	const emu_prof_ent *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

static void emu_prof_hex(const uint8_t *id, char *out)
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* Parse the file into *ents (owned by the caller). */
static emu_status emu_prof_parse(FILE *f, const char *path, const char *want_id, const char *trace,
                                 emu_prof_vec *ents, char *device, size_t devlen, char *err,
                                 size_t errlen)
{
	char line[1024];
	unsigned long long lineno = 0, count = 0, declared = 0;
	int version = 0, have_trace = 0, have_end = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned long long seq, submit, stream, start, end;
		char id[64];
		size_t len = strlen(line);

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (have_end) {
			snprintf(err, errlen, "%s:%llu: text after the 'entries' line", path, lineno);
			return EMU_ERR_CORRUPT;
		}
		if (!version) {
			if (sscanf(line, "tsprofile %d", &version) != 1 || version < 1) {
				snprintf(err, errlen, "%s: not a replay profile (no 'tsprofile' line first)", path);
				return EMU_ERR_CORRUPT;
			}
			if (version > 1) {
				snprintf(err, errlen, "%s: profile version %d is newer than this build reads (1)",
				         path, version);
				return EMU_ERR_CORRUPT;
			}
		} else if (!strncmp(line, "trace ", 6)) {
			if (sscanf(line + 6, "%63s", id) != 1 || strlen(id) != 32) {
				snprintf(err, errlen, "%s:%llu: a trace id is 32 hex digits", path, lineno);
				return EMU_ERR_CORRUPT;
			}
			if (strcmp(id, want_id) != 0) {
				snprintf(err, errlen, "%s is the profile of another trace (trace id %s), not of %s "
				         "(trace id %s)", path, id, trace, want_id);
				return EMU_ERR_ARG;
			}
			have_trace = 1;
		} else if (!strncmp(line, "device ", 7)) {
			snprintf(device, devlen, "%.*s", (int)(devlen - 1), line + 7);
		} else if (!strncmp(line, "api ", 4) || !strcmp(line, "unit ns")) {
			continue;
		} else if (!strncmp(line, "entry ", 6)) {
			emu_prof_ent e;
			if (!have_trace) {
				snprintf(err, errlen, "%s:%llu: an entry before the 'trace' line", path, lineno);
				return EMU_ERR_CORRUPT;
			}
			if (sscanf(line + 6, "%llu %llu %llx %llu %llu", &seq, &submit, &stream, &start, &end) != 5) {
				snprintf(err, errlen, "%s:%llu: expected 'entry SEQ SUBMIT STREAM START END'", path,
				         lineno);
				return EMU_ERR_CORRUPT;
			}
			if (end < start) {
				snprintf(err, errlen, "%s:%llu: seq %llu ends (%llu ns) before it starts (%llu ns)",
				         path, lineno, seq, end, start);
				return EMU_ERR_CORRUPT;
			}
			e.seq = seq;
			e.submit = submit;
			e.dur = end - start;
			if (EMU_PUSH(*ents, e) != 0)
				return EMU_ERR_NOMEM;
			count++;
		} else if (sscanf(line, "entries %llu", &declared) == 1) {
			have_end = 1;
		} else {
			snprintf(err, errlen, "%s:%llu: unknown line '%.40s'", path, lineno, line);
			return EMU_ERR_CORRUPT;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		return EMU_ERR_IO;
	}
	if (!version || !have_trace) {
		snprintf(err, errlen, "%s: not a replay profile (%s)", path,
		         version ? "no 'trace' line" : "empty");
		return EMU_ERR_CORRUPT;
	}
	if (!have_end || declared != count) {
		snprintf(err, errlen, "%s: cut short: %llu entries read, %s", path, count,
		         have_end ? "the last line says otherwise" : "no 'entries' line at the end");
		return EMU_ERR_CORRUPT;
	}
	return EMU_OK;
}

emu_status emu_profile_load(emu_graph *g, const char *path, int *loaded, char *err, size_t errlen)
{
	char auto_path[600], want[33];
	emu_prof_vec ents = { 0 };
	sbt_trace_info info;
	emu_status st;
	FILE *f;

	*loaded = 0;
	err[0] = '\0';
	if (g->dur_capture) {
		snprintf(err, errlen, "%s: durations are taken from the capture's times: not with a replay profile",
		         g->path);
		return EMU_ERR_STATE;
	}
	if (!path) {
		snprintf(auto_path, sizeof(auto_path), "%s.profile", g->path);
		f = fopen(auto_path, "r");
		if (!f)
			return EMU_OK; /* no sidecar: the cost model */
		path = auto_path;
	} else if (!(f = fopen(path, "r"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return EMU_ERR_IO;
	}
	sbt_reader_get_info(g->r, &info);
	emu_prof_hex(info.header.trace_id, want);
	st = emu_prof_parse(f, path, want, g->path, &ents, g->profile_device,
	                    sizeof(g->profile_device), err, errlen);
	fclose(f);
	if (st != EMU_OK)
		goto out_free;
	qsort(ents.v, ents.n, sizeof(*ents.v), emu_prof_cmp);
	free(g->measured);
	g->measured = malloc((g->nodes.n + 1) * sizeof(uint64_t));
	if (!g->measured) {
		st = EMU_ERR_NOMEM;
		goto out_free;
	}
	g->nmeasured = 0;
	for (size_t i = 0; i < g->nodes.n; i++) {
		const emu_node *n = &g->nodes.v[i];
		const emu_step *s = &g->steps.v[n->step];
		emu_prof_ent key = { s->seq, n->seq, 0 };
		const emu_prof_ent *hit = NULL;

		g->measured[i] = UINT64_MAX;
		if (!g->vk && s->node_count != 1)
			continue; /* a graph launch timed as a whole */
		hit = ents.n ? bsearch(&key, ents.v, ents.n, sizeof(*ents.v), emu_prof_cmp) : NULL;
		if (hit) {
			g->measured[i] = hit->dur;
			g->nmeasured++;
		}
	}
	snprintf(g->profile_path, sizeof(g->profile_path), "%s", path);
	*loaded = 1;
out_free:
	free(ents.v);
	return st;
}
