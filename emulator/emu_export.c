/*
 * emu_export.c - the last simulation as Chrome trace-event JSON, the
 * happens-before graph as Graphviz DOT, and a terminal timeline
 * (docs/emulator.md "tsexport").
 *
 * JSON tracks: one process per device (the device of the context current
 * when the stream was made), one track ("thread") per stream, and one more per extra lane a stream
 * needs where its commands overlap (the nodes of a graph launch); a flow
 * per dependency between commands on different tracks; a counter of the
 * memory in use, stepped at the emulated time the host reached each
 * allocation or free (one sample per instant; where memory went up and
 * back down within one, a sample of the most held in it first).
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"

/* Chrome trace process of a stream: its device + 1. */
#define EMU_PID(g, s) ((int)(g)->streams.v[(s)].device + 1)

void emu_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void emu_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

static int emu_lane_cmp(const void *x, const void *y, void *ctx)
{
	const emu_graph *g = ctx;
	const emu_node *a = &g->nodes.v[*(const uint32_t *)x], *b = &g->nodes.v[*(const uint32_t *)y];

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* ord[0..nn) = the nodes in emu_lane_cmp's order (a total order, so the
 * result is the one qsort_r gives): a counting sort by stream keeps index
 * order within each stream, which is already the order by start time where
 * a stream's commands started in the order they were issued; a group that
 * did not is sorted by emu_lane_cmp.  0, or -1 out of memory. */
static int emu_lane_order(const emu_graph *g, uint32_t *ord, size_t nn, size_t ns)
{
	uint32_t *first = calloc(ns + 1, sizeof(uint32_t));

	if (!first)
		return -1;
	for (size_t i = 0; i < nn; i++)
		if (g->nodes.v[i].stream >= ns) { /* not on a stream: the comparator orders all */
			for (size_t k = 0; k < nn; k++)
				ord[k] = (uint32_t)k;
			qsort_r(ord, nn, sizeof(uint32_t), emu_lane_cmp, (void *)g);
			free(first);
			return 0;
		}
	for (size_t i = 0; i < nn; i++)
		first[g->nodes.v[i].stream + 1]++;
	for (size_t s = 0; s < ns; s++)
		first[s + 1] += first[s];
	for (size_t i = 0; i < nn; i++)
		ord[first[g->nodes.v[i].stream]++] = (uint32_t)i;
	/* first[s] is now the end of stream s's group and the start of s + 1's */
	for (size_t s = 0, lo = 0; s < ns; lo = first[s], s++) {
		size_t hi = first[s];

		for (size_t j = lo + 1; j < hi; j++)
			if (g->nodes.v[ord[j]].start_ns < g->nodes.v[ord[j - 1]].start_ns) {
				qsort_r(ord + lo, hi - lo, sizeof(uint32_t), emu_lane_cmp, (void *)g);
				break;
			}
	}
	free(first);
	return 0;
}

void emu_lanes_free(emu_lanes *l)
{
	free(l->lane);
	free(l->track0);
	free(l->nlanes);
}

int emu_lanes_build(const emu_graph *g, emu_lanes *l)
{
	size_t nn = g->nodes.n, ns = g->streams.n;
	uint32_t *ord = malloc((nn + 1) * sizeof(uint32_t));
	EMU_VEC(uint64_t) ends = { 0 };
	int rc = -1;
	uint32_t track = 1;

	l->lane = malloc((nn + 1) * sizeof(uint32_t));
	l->track0 = calloc(ns + 1, sizeof(uint32_t));
	l->nlanes = calloc(ns + 1, sizeof(uint32_t));
	if (!ord || !l->lane || !l->track0 || !l->nlanes || emu_lane_order(g, ord, nn, ns) != 0)
		goto out;
	for (size_t i = 0; i < nn;) {
		uint32_t s = g->nodes.v[ord[i]].stream;

		ends.n = 0;
		for (; i < nn && g->nodes.v[ord[i]].stream == s; i++) {
			const emu_node *n = &g->nodes.v[ord[i]];
			size_t k;

			for (k = 0; k < ends.n; k++)
				if (ends.v[k] <= n->start_ns)
					break;
			if (k == ends.n && EMU_PUSH(ends, 0) != 0)
				goto out;
			ends.v[k] = n->end_ns;
			l->lane[ord[i]] = (uint32_t)k;
		}
		l->nlanes[s] = (uint32_t)ends.n;
	}
	for (size_t s = 0; s < ns; s++) {
		l->track0[s] = track;
		track += l->nlanes[s];
	}
	rc = 0;
out:
	free(ord);
	free(ends.v);
	return rc;
}

uint32_t emu_track(const emu_lanes *l, const emu_node *n, uint32_t id)
{
	return l->track0[n->stream] + l->lane[id];
}

/* Emulated time at which the host had reached seq: the start of the first
 * step issued at or after it (the makespan if none). */
uint64_t emu_time_of_seq(const emu_graph *g, uint64_t seq)
{
	size_t lo = 0, hi = g->steps.n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->steps.v[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == g->steps.n)
		return g->makespan;
	return g->nodes.v[g->steps.v[lo].node_first].start_ns;
}

emu_status emu_export_json(const emu_graph *g, FILE *f)
{
	emu_lanes l = { 0 };
	uint64_t flow = 0;
	int64_t dev = 0, host = 0, dev_most = 0, host_most = 0;
	char lbl[96];

	if (!g || !f)
		return EMU_ERR_ARG;
	if (!g->scheduled)
		return EMU_ERR_STATE;
	if (emu_lanes_build(g, &l) != 0) {
		emu_lanes_free(&l);
		return EMU_ERR_NOMEM;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"trace\":");
	emu_json_str(f, g->path);
	fprintf(f, ",\"source\":\"tsexport (emulated: docs/emulator.md)\"},\n\"traceEvents\":[\n");
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"GPU 0 (emulated)\"}}");
	for (size_t s = 0; s < g->streams.n; s++) {
		int32_t d = g->streams.v[s].device, first = 1;

		for (size_t o = 0; o < s; o++)
			if (g->streams.v[o].device == d)
				first = 0;
		if (first && d != 0)
			fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
			           "\"args\":{\"name\":\"GPU %d (emulated)\"}}", EMU_PID(g, s), d);
	}
	for (size_t s = 0; s < g->streams.n; s++)
		for (uint32_t k = 0; k < l.nlanes[s]; k++) {
			char name[140];

			emu_stream_label(g, (uint32_t)s, lbl, sizeof(lbl));
			if (k == 0)
				snprintf(name, sizeof(name), "%s", lbl);
			else
				snprintf(name, sizeof(name), "%s (overlap %u)", lbl, k);
			fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":",
			        EMU_PID(g, s), l.track0[s] + k);
			emu_json_str(f, name);
			fprintf(f, "}}");
			fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%u,"
			           "\"args\":{\"sort_index\":%u}}", EMU_PID(g, s), l.track0[s] + k, l.track0[s] + k);
		}
	for (size_t i = 0; i < g->nodes.n; i++) {
		const emu_node *n = &g->nodes.v[i];

		fprintf(f, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"name\":", EMU_PID(g, n->stream),
		        emu_track(&l, n, (uint32_t)i));
		emu_json_str(f, emu_node_name(g, n));
		fprintf(f, ",\"cat\":\"%s\",\"ts\":", emu_kind_name(n->kind));
		emu_us(f, n->start_ns);
		fprintf(f, ",\"dur\":");
		emu_us(f, n->end_ns - n->start_ns);
		fprintf(f, ",\"args\":{\"seq\":%llu,\"engine\":%d,\"bytes\":%llu,\"duration\":\"%s\"}}",
		        (unsigned long long)n->seq, n->engine, (unsigned long long)n->bytes,
		        emu_node_duration_source(g, n));
	}
	/* the steps' dependencies (into their first node), then the nodes' own */
	for (size_t s = 0; s < g->steps.n + g->xdeps.n; s++) {
		const emu_step *st = s < g->steps.n ? &g->steps.v[s] : NULL;
		const emu_xdep *self = st ? NULL : &g->xdeps.v[s - g->steps.n];
		uint32_t first = st ? st->dep_first : self->first, count = st ? st->dep_count : self->count;

		for (uint32_t d = 0; d < count; d++) {
			uint32_t from = emu_dep_from(g, &g->deps.v[first + d]);
			uint32_t to = st ? st->node_first : self->node;
			const emu_node *a = &g->nodes.v[from], *b = &g->nodes.v[to];

			if (a->stream == b->stream)
				continue;
			flow++;
			fprintf(f, ",\n{\"ph\":\"s\",\"id\":%llu,\"pid\":%d,\"tid\":%u,\"name\":\"dependency\",\"cat\":\"dep\",\"ts\":",
			        (unsigned long long)flow, EMU_PID(g, a->stream), emu_track(&l, a, from));
			emu_us(f, a->start_ns);
			fprintf(f, "}");
			fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"pid\":%d,\"tid\":%u,\"name\":\"dependency\",\"cat\":\"dep\",\"ts\":",
			        (unsigned long long)flow, EMU_PID(g, b->stream), emu_track(&l, b, to));
			emu_us(f, b->start_ns);
			fprintf(f, "}");
		}
	}
	/* one sample per instant, the last value; where memory went up and
	 * back down within the instant, a sample of the most each held in it
	 * comes first, so that the counter reaches the peak */
	for (size_t i = 0, first = 1; i < g->mem.n; i++) {
		uint64_t ts = emu_time_of_seq(g, g->mem.v[i].seq);

		dev += g->mem.v[i].device_delta;
		host += g->mem.v[i].host_delta;
		if (first || dev > dev_most)
			dev_most = dev;
		if (first || host > host_most)
			host_most = host;
		first = 0;
		if (i + 1 < g->mem.n && emu_time_of_seq(g, g->mem.v[i + 1].seq) == ts)
			continue;
		if (dev_most != dev || host_most != host) {
			fprintf(f, ",\n{\"ph\":\"C\",\"pid\":1,\"name\":\"memory in use\",\"ts\":");
			emu_us(f, ts);
			fprintf(f, ",\"args\":{\"device\":%lld,\"host\":%lld}}", (long long)dev_most,
			        (long long)host_most);
		}
		fprintf(f, ",\n{\"ph\":\"C\",\"pid\":1,\"name\":\"memory in use\",\"ts\":");
		emu_us(f, ts);
		fprintf(f, ",\"args\":{\"device\":%lld,\"host\":%lld}}", (long long)dev, (long long)host);
		first = 1;
	}
	fprintf(f, "\n]}\n");
	emu_lanes_free(&l);
	return ferror(f) ? EMU_ERR_IO : EMU_OK;
}

static void emu_dot_str(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
}

emu_status emu_export_dot(const emu_graph *g, FILE *f)
{
	static const char *const styles[] = {
		[EMU_D_STREAM] = "style=solid",
		[EMU_D_EVENT] = "style=dashed,color=blue,label=\"event\"",
		[EMU_D_HOST] = "style=dotted,color=red,label=\"host sync\"",
		[EMU_D_LEGACY] = "style=dashed,color=gray50,label=\"legacy stream\"",
		[EMU_D_GRAPH] = "style=bold",
		[EMU_D_SEMAPHORE] = "style=dashed,color=darkgreen,label=\"semaphore\"",
		[EMU_D_VALUE] = "style=dashed,color=purple,label=\"memory value\"",
	};
	char lbl[96];
	uint8_t *inner; /* has a successor inside its graph launch */

	if (!g || !f)
		return EMU_ERR_ARG;
	inner = calloc(g->nodes.n + 1, 1);
	if (!inner)
		return EMU_ERR_NOMEM;
	for (size_t i = 0; i < g->ipreds.n; i++)
		inner[g->ipreds.v[i]] = 1;
	fprintf(f, "digraph tracesmith {\n\trankdir=LR;\n\tnode [shape=box,fontsize=10];\n");
	for (size_t s = 0; s < g->streams.n; s++) {
		if (!g->streams.v[s].steps)
			continue;
		fprintf(f, "\tsubgraph cluster_%zu {\n\t\tlabel=\"", s);
		emu_dot_str(f, emu_stream_label(g, (uint32_t)s, lbl, sizeof(lbl)));
		fprintf(f, "\";\n");
		for (size_t i = 0; i < g->nodes.n; i++) {
			const emu_node *n = &g->nodes.v[i];

			if (n->stream != s)
				continue;
			fprintf(f, "\t\tn%zu [label=\"seq %llu\\n%s ", i, (unsigned long long)n->seq, emu_kind_name(n->kind));
			emu_dot_str(f, emu_node_name(g, n));
			fprintf(f, "\"];\n");
		}
		fprintf(f, "\t}\n");
	}
	for (size_t s = 0; s < g->steps.n; s++) {
		const emu_step *st = &g->steps.v[s];

		for (uint32_t d = 0; d < st->dep_count; d++) {
			const emu_dep *dp = &g->deps.v[st->dep_first + d];
			const emu_step *ps = &g->steps.v[dp->step];

			/* from every last node of the step waited for (or the node
			 * waited for) to every first one */
			for (uint32_t j = 0; j < ps->node_count; j++) {
				uint32_t from = ps->node_first + j;

				if (dp->node1 ? from != emu_dep_node(g, dp) : inner[from])
					continue;
				for (uint32_t k = 0; k < st->node_count; k++)
					if (g->nodes.v[st->node_first + k].ipred_count == 0)
						fprintf(f, "\tn%u -> n%u [%s];\n", from, st->node_first + k, styles[dp->kind]);
			}
		}
	}
	/* a node's own dependencies (event wait nodes before it in its launch) */
	for (size_t i = 0; i < g->xdeps.n; i++)
		for (uint32_t d = 0; d < g->xdeps.v[i].count; d++) {
			const emu_dep *dp = &g->deps.v[g->xdeps.v[i].first + d];
			const emu_step *ps = &g->steps.v[dp->step];

			for (uint32_t j = 0; j < ps->node_count; j++) {
				uint32_t from = ps->node_first + j;

				if (!(dp->node1 ? from != emu_dep_node(g, dp) : inner[from]))
					fprintf(f, "\tn%u -> n%u [%s];\n", from, g->xdeps.v[i].node, styles[dp->kind]);
			}
		}
	for (size_t i = 0; i < g->nodes.n; i++)
		for (uint32_t p = 0; p < g->nodes.v[i].ipred_count; p++)
			fprintf(f, "\tn%u -> n%zu [%s];\n", g->ipreds.v[g->nodes.v[i].ipred_first + p], i,
			        styles[EMU_D_GRAPH]);
	fprintf(f, "}\n");
	free(inner);
	return ferror(f) ? EMU_ERR_IO : EMU_OK;
}

emu_status emu_export_ascii(const emu_graph *g, FILE *f, unsigned width)
{
	static const char marks[EMU_K_COUNT] = { 'K', 'H', 'D', 'C', 'C', 'M', 'G', 'F', 'P', 'R', 'T', 'L', 'A' };
	char *row;
	char lbl[96];
	uint64_t ms;

	if (!g || !f || width < 10 || width > 10000)
		return EMU_ERR_ARG;
	if (!g->scheduled)
		return EMU_ERR_STATE;
	row = malloc(width + 1);
	if (!row)
		return EMU_ERR_NOMEM;
	ms = g->makespan ? g->makespan : 1;
	fprintf(f, "%-40s 0 ns%*s%llu ns\n", "", (int)width - 4 - 20, "", (unsigned long long)g->makespan);
	for (size_t s = 0; s < g->streams.n; s++) {
		if (!g->streams.v[s].steps)
			continue;
		memset(row, '.', width);
		row[width] = 0;
		for (size_t i = 0; i < g->nodes.n; i++) {
			const emu_node *n = &g->nodes.v[i];
			uint64_t c0, c1;

			if (n->stream != s)
				continue;
			c0 = n->start_ns * width / ms;
			c1 = (n->end_ns * width + ms - 1) / ms;
			if (c0 >= width)
				c0 = width - 1;
			if (c1 <= c0)
				c1 = c0 + 1;
			if (c1 > width)
				c1 = width;
			for (uint64_t c = c0; c < c1; c++)
				row[c] = row[c] == '.' || row[c] == marks[n->kind] ? marks[n->kind] : '#';
		}
		fprintf(f, "%-40.40s %s\n", emu_stream_label(g, (uint32_t)s, lbl, sizeof(lbl)), row);
	}
	if (g->vk)
		fprintf(f, "P dispatch  R draw  A render pass attachments  T copy, blit or resolve  L fill, update or clear  # several\n");
	else
		fprintf(f, "K kernel  H copy to device  D copy to host  C other copy  M memset  G graph  F host function  # several\n");
	free(row);
	return ferror(f) ? EMU_ERR_IO : EMU_OK;
}
