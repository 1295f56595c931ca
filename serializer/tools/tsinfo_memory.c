/*
 * tsinfo_memory.c - tsinfo --memory: the memory a traced program held,
 * over time, per device and kind; the peak and when; what was still live
 * at the end of the trace, with the host call stacks that allocated it.
 *
 * What allocates and frees memory, and when, is serializer/sbt_mem.h's
 * model (docs/tsinfo.md "--memory" says it for readers), the one the
 * exports' memory counter reads too; this file prints what it gives.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serializer/sbt_dump.h"
#include "serializer/sbt_mem.h"
#include "serializer/tools/tsinfo.h"

/* ---- output ----------------------------------------------------------- */

/* "GPU 0", "host", "VkDevice 0x..." and with named, the Vulkan device's name. */
static void tsi_mem_dev_label_as(const sbt_mem *m, const sbt_mem_dev *d, int named, char *out,
                                 size_t n)
{
	size_t i;

	if (d->api == SBT_MEM_API_HOST) {
		snprintf(out, n, "host");
	} else if (d->api == SBT_MEM_API_CUDA) {
		if (d->id == UINT64_MAX)
			snprintf(out, n, "GPU ? (no context known)");
		else
			snprintf(out, n, "GPU %llu", (unsigned long long)d->id);
	} else {
		const char *name = NULL;
		for (i = 0; i < m->vkphys.n; i++)
			if (m->vkphys.v[i].phys == d->phys && d->phys && m->vkphys.v[i].name[0])
				name = m->vkphys.v[i].name;
		if (name && named)
			snprintf(out, n, "VkDevice 0x%llx (%s)", (unsigned long long)d->id, name);
		else
			snprintf(out, n, "VkDevice 0x%llx", (unsigned long long)d->id);
	}
}

static void tsi_mem_dev_label(const sbt_mem *m, const sbt_mem_dev *d, char *out, size_t n)
{
	tsi_mem_dev_label_as(m, d, 1, out, n);
}

static const VkPhysicalDeviceMemoryProperties *tsi_mem_vk_props_of(const sbt_mem *m, const sbt_mem_dev *d)
{
	size_t i;

	for (i = 0; d->phys && i < m->vkphys.n; i++)
		if (m->vkphys.v[i].phys == d->phys && m->vkphys.v[i].has_props)
			return &m->vkphys.v[i].props;
	return NULL;
}

/* "device", or on Vulkan "memory type 1 (heap 0: device-local host-visible)". */
static void tsi_mem_group_label(const sbt_mem *m, const sbt_mem_group *g, char *out, size_t n)
{
	static const struct { VkMemoryPropertyFlags bit; const char *name; } flags[] = {
		{ VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device-local" },
		{ VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host-visible" },
		{ VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host-coherent" },
		{ VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host-cached" },
		{ VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT, "lazily-allocated" },
		{ VK_MEMORY_PROPERTY_PROTECTED_BIT, "protected" },
	};
	const VkPhysicalDeviceMemoryProperties *p;
	size_t len, i;

	if (g->kind != SBT_MEM_K_VK) {
		snprintf(out, n, "%s", sbt_mem_kind_names[g->kind]);
		return;
	}
	p = tsi_mem_vk_props_of(m, &m->devs.v[g->dev]);
	snprintf(out, n, "memory type %u", g->vk_type);
	if (!p || g->vk_type >= p->memoryTypeCount)
		return;
	len = strlen(out);
	snprintf(out + len, n - len, " (heap %u:", p->memoryTypes[g->vk_type].heapIndex);
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (!(p->memoryTypes[g->vk_type].propertyFlags & flags[i].bit))
			continue;
		len = strlen(out);
		snprintf(out + len, n - len, " %s", flags[i].name);
	}
	len = strlen(out);
	snprintf(out + len, n - len, ")");
}

static void tsi_mem_seconds(uint64_t ns, char *out, size_t n)
{
	snprintf(out, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
	         (unsigned long long)(ns % 1000000000u));
}

/* Devices in the order: CUDA GPUs by ordinal, Vulkan devices, host last. */
static int tsi_mem_dev_rank(const sbt_mem_dev *d)
{
	return d->api == SBT_MEM_API_CUDA ? 0 : d->api == SBT_MEM_API_VULKAN ? 1 : 2;
}

static int tsi_mem_cmp_dev(const void *a, const void *b)
{
	const sbt_mem_dev *x = a, *y = b;
	if (tsi_mem_dev_rank(x) != tsi_mem_dev_rank(y))
		return tsi_mem_dev_rank(x) < tsi_mem_dev_rank(y) ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Groups by device, then kind, then memory type. */
static int tsi_mem_cmp_group(const void *a, const void *b)
{
	const sbt_mem_group *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->vk_type < y->vk_type ? -1 : x->vk_type > y->vk_type;
}

/* Sorts devices and groups for output, renumbering what names them. */
static int tsi_mem_sort(sbt_mem *m)
{
	uint32_t *where = malloc((m->devs.n + m->groups.n + 1) * sizeof(*where));
	size_t i;

	if (!where)
		return -1;
	if (!m->groups.n) /* nothing allocated: no devices either (qsort wants an array) */
		goto out;
	qsort(m->devs.v, m->devs.n, sizeof(*m->devs.v), tsi_mem_cmp_dev);
	for (i = 0; i < m->devs.n; i++)
		where[m->devs.v[i].index] = (uint32_t)i;
	for (i = 0; i < m->groups.n; i++)
		m->groups.v[i].dev = where[m->groups.v[i].dev];
	qsort(m->groups.v, m->groups.n, sizeof(*m->groups.v), tsi_mem_cmp_group);
	for (i = 0; i < m->groups.n; i++)
		where[m->groups.v[i].index] = (uint32_t)i;
	for (i = 0; i < m->allocs.n; i++)
		m->allocs.v[i].group = where[m->allocs.v[i].group];
	for (i = 0; i < m->events.n; i++)
		m->events.v[i].group = where[m->events.v[i].group];
out:
	free(where);
	return 0;
}

static void tsi_mem_totals(sbt_mem *m, uint64_t *allocs, uint64_t *frees, uint64_t *live,
                           uint64_t *live_bytes)
{
	size_t i;

	*allocs = *frees = *live = *live_bytes = 0;
	for (i = 0; i < m->allocs.n; i++)
		if (m->allocs.v[i].live) {
			m->groups.v[m->allocs.v[i].group].live++;
			m->groups.v[m->allocs.v[i].group].live_bytes += m->allocs.v[i].size;
			(*live)++;
			*live_bytes += m->allocs.v[i].size;
		}
	for (i = 0; i < m->groups.n; i++) {
		*allocs += m->groups.v[i].allocs;
		*frees += m->groups.v[i].frees;
	}
}

static const char *tsi_mem_call_name(const sbt_mem *m, const sbt_mem_alloc *a)
{
	const char *n = sbt_dump_type_name(m->r, a->type);
	return n && n[0] ? n : "?";
}

static const char *tsi_mem_before_text(const sbt_mem_alloc *a)
{
	return a->before == 1 ? "in the window's snapshot (allocated before the window)"
	     : a->before == 2 ? "first seen in a keyframe (allocated before the trace)"
	                      : NULL;
}

/* The timeline: TSI_MEM_ROWS intervals of equal time, the most each device
 * held during each (and so the peak lies in one row). */
#define TSI_MEM_ROWS 16

static void tsi_mem_timeline_text(const sbt_mem *m)
{
	uint64_t span = m->last_time - m->first_time, step, *most, *now;
	size_t rows = TSI_MEM_ROWS, row, e = 0, d;
	int *width;
	char s[48];

	if (!m->events.n)
		return;
	if (span < rows)
		rows = span ? (size_t)span : 1;
	step = span / rows + (span % rows != 0);
	if (!step)
		step = 1;
	most = calloc(m->devs.n, sizeof(*most));
	now = calloc(m->devs.n, sizeof(*now));
	width = calloc(m->devs.n, sizeof(*width));
	if (!most || !now || !width)
		goto out;
	printf("\nin use over time (the most each held in each interval, bytes):\n  %-20s", "from (s)");
	for (d = 0; d < m->devs.n; d++) {
		char lbl[160];
		tsi_mem_dev_label_as(m, &m->devs.v[d], 0, lbl, sizeof(lbl));
		width[d] = strlen(lbl) > 14 ? (int)strlen(lbl) : 14;
		printf(" %*s", width[d], lbl);
	}
	printf("\n");
	for (row = 0; row < rows; row++) {
		uint64_t end = m->first_time + (row + 1) * step;
		for (d = 0; d < m->devs.n; d++)
			most[d] = now[d];
		for (; e < m->events.n && (m->events.v[e].time < end || row + 1 == rows); e++) {
			d = m->groups.v[m->events.v[e].group].dev;
			now[d] = m->events.v[e].dev_in_use;
			if (now[d] > most[d])
				most[d] = now[d];
		}
		tsi_mem_seconds(m->first_time + row * step, s, sizeof(s));
		printf("  %-20s", s);
		for (d = 0; d < m->devs.n; d++)
			printf(" %*llu", width[d], (unsigned long long)most[d]);
		printf("\n");
	}
out:
	free(width);
	free(most);
	free(now);
}

static void tsi_mem_stack_text(const sbt_mem *m, const sbt_mem_alloc *a)
{
	const sbt_frame *frames;
	uint32_t n, i, stack_id = a->stack_id;

	if (!stack_id) {
		printf("      (no host stack in the trace%s)\n",
		       a->before ? ": the capture recreated this allocation" : "");
		return;
	}
	if (sbt_reader_stack(m->r, stack_id, &frames, &n) != SBT_OK) {
		printf("      (stack %u not in the trace)\n", stack_id);
		return;
	}
	/* the innermost frames are the capture library's own: left out */
	for (i = 0; i < n; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(m->r, frames[i].symbol_id) : NULL;
		if (!sym || (strncmp(sym, "libtracesmith", 13) != 0 &&
		             strncmp(sym, "libVkLayer_tracesmith", 21) != 0))
			break;
	}
	for (; i < n; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(m->r, frames[i].symbol_id) : NULL;
		printf("      #%-2u 0x%016llx ", i, (unsigned long long)frames[i].ip);
		tsi_print_text(stdout, sym ? sym : "?");
		printf("\n");
	}
}

static void tsi_mem_text(const sbt_mem *m, const char *path, uint64_t allocs, uint64_t frees,
                         uint64_t live, uint64_t live_bytes)
{
	char h[32], lbl[160], kl[160], s[48];
	size_t d, i;

	printf("trace        %s\n", path);
	if (!allocs) {
		printf("memory       no allocations in this trace (no CUDA or Vulkan call that "
		       "allocates memory was recorded)\n");
		if (m->unknown_frees)
			printf("frees        %llu of memory the trace never allocated\n",
			       (unsigned long long)m->unknown_frees);
		return;
	}
	tsi_human(live_bytes, h, sizeof(h));
	printf("allocations  %llu made, %llu freed, %llu live at the end of the trace", (unsigned long long)allocs,
	       (unsigned long long)frees, (unsigned long long)live);
	if (live)
		printf(" (%llu bytes, %s)", (unsigned long long)live_bytes, h);
	printf("\n");
	if (m->unknown_frees)
		printf("frees        %llu more of memory the trace never allocated (made before it "
		       "began, or freed twice)\n", (unsigned long long)m->unknown_frees);
	for (d = 0; d < m->devs.n; d++) {
		const sbt_mem_dev *dv = &m->devs.v[d];
		tsi_mem_dev_label(m, dv, lbl, sizeof(lbl));
		tsi_human(dv->peak, h, sizeof(h));
		tsi_mem_seconds(dv->peak_time, s, sizeof(s));
		printf("peak         %s: %llu bytes (%s) at seq %llu, %s s\n", lbl,
		       (unsigned long long)dv->peak, h, (unsigned long long)dv->peak_seq, s);
	}
	for (d = 0; d < m->devs.n; d++) {
		int w = 13;
		for (i = 0; i < m->groups.n; i++)
			if (m->groups.v[i].dev == d) {
				tsi_mem_group_label(m, &m->groups.v[i], kl, sizeof(kl));
				if ((int)strlen(kl) > w)
					w = (int)strlen(kl);
			}
		tsi_mem_dev_label(m, &m->devs.v[d], lbl, sizeof(lbl));
		printf("\n%s\n  %-*s %8s %8s %6s %16s %16s %10s %16s\n", lbl, w, "kind", "allocs", "frees",
		       "live", "bytes allocated", "peak in use", "peak seq", "live bytes");
		for (i = 0; i < m->groups.n; i++) {
			const sbt_mem_group *g = &m->groups.v[i];
			if (g->dev != d)
				continue;
			tsi_mem_group_label(m, g, kl, sizeof(kl));
			printf("  %-*s %8llu %8llu %6llu %16llu %16llu %10llu %16llu\n", w, kl,
			       (unsigned long long)g->allocs, (unsigned long long)g->frees,
			       (unsigned long long)g->live, (unsigned long long)g->bytes_allocated,
			       (unsigned long long)g->peak, (unsigned long long)g->peak_seq,
			       (unsigned long long)g->live_bytes);
		}
	}
	tsi_mem_timeline_text(m);
	if (!live) {
		printf("\nlive at the end of the trace: nothing (every allocation was freed)\n");
		return;
	}
	printf("\nlive at the end of the trace (leaks): %llu allocation%s, %llu bytes\n",
	       (unsigned long long)live, live == 1 ? "" : "s", (unsigned long long)live_bytes);
	for (i = 0; i < m->allocs.n; i++) {
		const sbt_mem_alloc *a = &m->allocs.v[i];
		const sbt_mem_group *g = &m->groups.v[a->group];
		const char *before = tsi_mem_before_text(a);
		if (!a->live)
			continue;
		tsi_mem_dev_label(m, &m->devs.v[g->dev], lbl, sizeof(lbl));
		tsi_mem_group_label(m, g, kl, sizeof(kl));
		tsi_human(a->size, h, sizeof(h));
		tsi_mem_seconds(a->time, s, sizeof(s));
		printf("  %llu bytes (%s) %s on %s, %s 0x%llx\n", (unsigned long long)a->size, h, kl, lbl,
		       a->ns == SBT_MEM_NS_VMM ? "handle" : a->ns == SBT_MEM_NS_VKMEM ? "VkDeviceMemory" : "at",
		       (unsigned long long)a->key);
		printf("    by %s at seq %llu, %s s, thread %llu%s%s\n", tsi_mem_call_name(m, a),
		       (unsigned long long)a->seq, s, (unsigned long long)a->thread,
		       before ? ", " : "", before ? before : "");
		tsi_mem_stack_text(m, a);
	}
}

static void tsi_mem_stack_json(const sbt_mem *m, uint32_t stack_id)
{
	const sbt_frame *frames;
	uint32_t n, i;

	printf("[");
	if (stack_id && sbt_reader_stack(m->r, stack_id, &frames, &n) == SBT_OK)
		for (i = 0; i < n; i++) {
			const char *sym = frames[i].symbol_id ? sbt_reader_string(m->r, frames[i].symbol_id) : NULL;
			printf("%s{\"ip\":\"0x%llx\",\"symbol\":", i ? "," : "", (unsigned long long)frames[i].ip);
			if (sym)
				tsi_json_str(stdout, sym);
			else
				printf("null");
			printf("}");
		}
	printf("]");
}

static void tsi_mem_json(const sbt_mem *m, const char *path, uint64_t allocs, uint64_t frees,
                         uint64_t live, uint64_t live_bytes)
{
	char lbl[160], kl[160];
	size_t d, i;
	int first;

	printf("{\"trace\":");
	tsi_json_str(stdout, path);
	printf(",\"allocations\":%llu,\"frees\":%llu,\"unknown_frees\":%llu,\"live\":%llu,"
	       "\"live_bytes\":%llu,\"devices\":[",
	       (unsigned long long)allocs, (unsigned long long)frees,
	       (unsigned long long)m->unknown_frees, (unsigned long long)live,
	       (unsigned long long)live_bytes);
	for (d = 0; d < m->devs.n; d++) {
		const sbt_mem_dev *dv = &m->devs.v[d];
		tsi_mem_dev_label(m, dv, lbl, sizeof(lbl));
		printf("%s{\"device\":", d ? "," : "");
		tsi_json_str(stdout, lbl);
		printf(",\"api\":\"%s\",\"id\":", dv->api == SBT_MEM_API_CUDA ? "cuda"
		                                  : dv->api == SBT_MEM_API_VULKAN ? "vulkan" : "host");
		if (dv->api == SBT_MEM_API_CUDA && dv->id == UINT64_MAX)
			printf("null");
		else
			printf("%llu", (unsigned long long)dv->id);
		printf(",\"peak_bytes\":%llu,\"peak_seq\":%llu,\"peak_time_ns\":%llu,\"in_use_end\":%llu"
		       ",\"kinds\":[",
		       (unsigned long long)dv->peak, (unsigned long long)dv->peak_seq,
		       (unsigned long long)dv->peak_time, (unsigned long long)dv->in_use);
		first = 1;
		for (i = 0; i < m->groups.n; i++) {
			const sbt_mem_group *g = &m->groups.v[i];
			if (g->dev != d)
				continue;
			tsi_mem_group_label(m, g, kl, sizeof(kl));
			printf("%s{\"kind\":\"%s\",\"label\":", first ? "" : ",", sbt_mem_kind_names[g->kind]);
			tsi_json_str(stdout, kl);
			if (g->kind == SBT_MEM_K_VK)
				printf(",\"memory_type\":%u", g->vk_type);
			printf(",\"allocations\":%llu,\"frees\":%llu,\"bytes_allocated\":%llu,"
			       "\"peak_bytes\":%llu,\"peak_seq\":%llu,\"peak_time_ns\":%llu,\"live\":%llu,"
			       "\"live_bytes\":%llu}",
			       (unsigned long long)g->allocs, (unsigned long long)g->frees,
			       (unsigned long long)g->bytes_allocated, (unsigned long long)g->peak,
			       (unsigned long long)g->peak_seq, (unsigned long long)g->peak_time,
			       (unsigned long long)g->live, (unsigned long long)g->live_bytes);
			first = 0;
		}
		printf("]}");
	}
	/* every change, in sequence order: device index, kind, delta, and the
	 * device's memory in use after it */
	printf("],\"events\":[");
	for (i = 0; i < m->events.n; i++) {
		const sbt_mem_event *e = &m->events.v[i];
		const sbt_mem_group *g = &m->groups.v[e->group];
		printf("%s{\"seq\":%llu,\"time_ns\":%llu,\"device\":%u,\"kind\":\"%s\",\"delta\":%lld,"
		       "\"in_use\":%llu}",
		       i ? "," : "", (unsigned long long)e->seq, (unsigned long long)e->time, g->dev,
		       sbt_mem_kind_names[g->kind], (long long)e->delta, (unsigned long long)e->dev_in_use);
	}
	printf("],\"leaks\":[");
	first = 1;
	for (i = 0; i < m->allocs.n; i++) {
		const sbt_mem_alloc *a = &m->allocs.v[i];
		const sbt_mem_group *g = &m->groups.v[a->group];
		if (!a->live)
			continue;
		tsi_mem_dev_label(m, &m->devs.v[g->dev], lbl, sizeof(lbl));
		printf("%s{\"size\":%llu,\"kind\":\"%s\",\"device\":%u,\"device_name\":", first ? "" : ",",
		       (unsigned long long)a->size, sbt_mem_kind_names[g->kind], g->dev);
		tsi_json_str(stdout, lbl);
		if (g->kind == SBT_MEM_K_VK)
			printf(",\"memory_type\":%u", g->vk_type);
		printf(",\"%s\":\"0x%llx\",\"call\":",
		       a->ns == SBT_MEM_NS_VMM ? "handle" : a->ns == SBT_MEM_NS_VKMEM ? "memory" : "address",
		       (unsigned long long)a->key);
		tsi_json_str(stdout, tsi_mem_call_name(m, a));
		printf(",\"seq\":%llu,\"time_ns\":%llu,\"thread\":%llu,\"before\":%s,\"stack\":",
		       (unsigned long long)a->seq, (unsigned long long)a->time,
		       (unsigned long long)a->thread,
		       a->before == 1 ? "\"window\"" : a->before == 2 ? "\"trace\"" : "null");
		tsi_mem_stack_json(m, a->stack_id);
		printf("}");
		first = 0;
	}
	printf("]}\n");
}

/* Reads every record into m.  SBT_OK at the end; SBT_ERR_NOMEM; or the
 * reader's error at damage (what came before it is kept). */
static sbt_status tsi_mem_read(sbt_mem *m, sbt_reader *r)
{
	sbt_record rec;
	sbt_status st;

	while ((st = sbt_reader_next(r, &rec)) == SBT_OK)
		if (sbt_mem_record(m, &rec, NULL) != 0)
			return SBT_ERR_NOMEM;
	return st == SBT_END ? SBT_OK : st;
}

int tsi_memory(const char *path, sbt_reader *r, int json)
{
	sbt_mem m;
	sbt_status st;
	uint64_t allocs, frees, live, live_bytes;
	int rc = TSI_EXIT_BAD;

	if (sbt_mem_init(&m, r) != 0) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out;
	}
	st = tsi_mem_read(&m, r);
	if (st == SBT_ERR_NOMEM) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out;
	}
	if (tsi_mem_sort(&m) != 0) {
		fprintf(stderr, "tsinfo: out of memory\n");
		goto out;
	}
	tsi_mem_totals(&m, &allocs, &frees, &live, &live_bytes);
	if (json)
		tsi_mem_json(&m, path, allocs, frees, live, live_bytes);
	else
		tsi_mem_text(&m, path, allocs, frees, live, live_bytes);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "tsinfo: writing output: %s\n", strerror(errno));
		goto out;
	}
	if (st != SBT_OK) {
		fprintf(stderr, "tsinfo: %s: %s (the profile covers the records before it; --salvage "
		        "skips it)\n", path, sbt_reader_message(r)[0] ? sbt_reader_message(r) : sbt_strerror(st));
		goto out;
	}
	rc = TSI_EXIT_OK;
out:
	sbt_mem_finish(&m);
	return rc;
}
