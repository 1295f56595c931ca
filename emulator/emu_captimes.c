/*
 * emu_captimes.c - durations from the capture's own times (tsexport /
 * tsreplay --emulate --durations capture; docs/emulator.md "Durations from
 * capture times").
 *
 * A CUDA, HIP or Vulkan trace holds host call times only, but some calls
 * return when device work has finished: cuStreamSynchronize,
 * cuEventSynchronize, cuCtxSynchronize, a successful cuStreamQuery or
 * cuEventQuery, a synchronous copy to or from host memory, the frees that
 * wait for the device (and the HIP equivalents); vkWaitForFences,
 * a successful vkGetFenceStatus, vkQueueWaitIdle, vkDeviceWaitIdle.  The
 * front ends take a record's time after the real call has returned
 * (interpose/cuda/tcu_model.c, interpose/hip, layers/vulkan/vkl_queue.c),
 * so such a record's time is an upper bound on the end of every command
 * it waited for.  For the same reason a command's own record is taken
 * after it was issued, and may be after it started (a synchronous copy's
 * record is also its wait's): the lower bound on its start is the record
 * before it on the issuing thread (the call was entered after that one),
 * or the trace's start for a thread's first record.
 *
 * The rule, per wait in record order (the observations of one record are
 * one wait):
 *   - its group: the steps it waited for and every step before them in
 *     the happens-before graph (whole-step dependencies), less those of an
 *     earlier wait's group;
 *   - its window [A, B]: B the wait record's time; A the earliest lower
 *     bound on a start in the group (above), or later: the latest B of an
 *     earlier group a step of this one depends on (that work may run
 *     until then);
 *   - M: the group's longest path with the cost model's durations, its
 *     dependencies outside the group ignored;
 *   - when B > A and M > 0, each command's duration is the model's scaled
 *     by (B - A) / M (rounded to the nearest ns), so that the group's
 *     modeled span fills the window; else the model's.
 * Commands in no group (nothing waited for them) keep the model's.
 * Windows are taken in the trace's own clock (not from its first command:
 * a bound may lie before it).
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"

int emu_obs_add(emu_graph *g, uint64_t seq, uint64_t time_ns, uint32_t s)
{
	emu_obs o = { seq, time_ns, s };

	if (s == EMU_NONE)
		return 0;
	return EMU_PUSH(g->obs, o);
}

static emu_thr_time *emu_cap_thread(emu_graph *g, uint64_t thread)
{
	emu_thr_time t = { thread, 0, 0 };

	if (g->thr_last < g->thr.n && g->thr.v[g->thr_last].thread == thread)
		return &g->thr.v[g->thr_last];
	for (size_t i = 0; i < g->thr.n; i++)
		if (g->thr.v[i].thread == thread) {
			g->thr_last = i;
			return &g->thr.v[i];
		}
	if (EMU_PUSH(g->thr, t) != 0)
		return NULL;
	g->thr_last = g->thr.n - 1;
	return &g->thr.v[g->thr_last];
}

int emu_captimes_record(emu_graph *g, const sbt_record *rec)
{
	emu_thr_time *t = emu_cap_thread(g, rec->thread);

	if (!t)
		return -1;
	t->prev_ns = t->cur_ns;
	t->cur_ns = rec->time_ns;
	return 0;
}

int emu_captimes_step(emu_graph *g, uint64_t thread)
{
	emu_thr_time *t = emu_cap_thread(g, thread);

	return t ? EMU_PUSH(g->step_entry, t->prev_ns) : -1;
}

emu_status emu_durations_capture(emu_graph *g)
{
	if (!g)
		return EMU_ERR_ARG;
	if (g->measured && !g->dur_capture)
		return EMU_ERR_STATE; /* a replay profile is loaded */
	g->dur_capture = 1;
	return EMU_OK;
}

static int emu_cap_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

int emu_captimes_fit(emu_graph *g, const emu_options *o)
{
	size_t nn = g->nodes.n, ns = g->steps.n, i = 0;
	uint32_t *grp = calloc(ns + 1, sizeof(uint32_t)); /* group + 1 of each step; 0: none yet */
	uint32_t *todo = malloc((ns + 1) * sizeof(uint32_t));
	uint32_t *members = malloc((ns + 1) * sizeof(uint32_t));
	uint64_t *bound = malloc((g->obs.n + 1) * sizeof(uint64_t)); /* per group: its B */
	uint64_t *sfin = calloc(ns + 1, sizeof(uint64_t));
	uint64_t *eft = calloc(nn + 1, sizeof(uint64_t));
	uint32_t ngroups = 0;
	int rc = -1;

	free(g->measured);
	g->measured = malloc((nn + 1) * sizeof(uint64_t));
	g->nmeasured = 0;
	g->cap_waits = 0;
	if (!grp || !todo || !members || !bound || !sfin || !eft || !g->measured)
		goto out;
	for (size_t k = 0; k < nn; k++)
		g->measured[k] = UINT64_MAX;
	if (g->step_entry.n != ns)
		i = g->obs.n; /* (every step is given its bound as it is made) */
	while (i < g->obs.n) {
		size_t j = i, nm = 0, ntodo = 0;
		uint64_t b = g->obs.v[i].time_ns, a = UINT64_MAX, ext = 0, m = 0;
		uint32_t gid = ++ngroups;

		bound[gid - 1] = b;
		for (; j < g->obs.n && g->obs.v[j].seq == g->obs.v[i].seq; j++)
			if (!grp[g->obs.v[j].step]) {
				grp[g->obs.v[j].step] = gid;
				todo[ntodo++] = g->obs.v[j].step;
			}
		while (ntodo) {
			const emu_step *st = &g->steps.v[todo[--ntodo]];

			members[nm++] = todo[ntodo];
			for (uint32_t d = 0; d < st->dep_count; d++) {
				const emu_dep *dp = &g->deps.v[st->dep_first + d];

				if (dp->node1)
					continue;
				if (!grp[dp->step]) {
					grp[dp->step] = gid;
					todo[ntodo++] = dp->step;
				} else if (grp[dp->step] != gid && bound[grp[dp->step] - 1] > ext) {
					ext = bound[grp[dp->step] - 1];
				}
			}
		}
		i = j;
		if (!nm)
			continue;
		/* index order is a topological order */
		qsort(members, nm, sizeof(*members), emu_cap_cmp);
		for (size_t x = 0; x < nm; x++) {
			const emu_step *st = &g->steps.v[members[x]];
			uint64_t dep_end = 0;

			for (uint32_t d = 0; d < st->dep_count; d++) {
				const emu_dep *dp = &g->deps.v[st->dep_first + d];

				if (!dp->node1 && grp[dp->step] == gid && sfin[dp->step] > dep_end)
					dep_end = sfin[dp->step];
			}
			sfin[members[x]] = 0;
			for (uint32_t k = 0; k < st->node_count; k++) {
				uint32_t id = st->node_first + k;
				const emu_node *n = &g->nodes.v[id];
				uint64_t est = n->ipred_count ? 0 : dep_end;

				for (uint32_t p = 0; p < n->ipred_count; p++)
					if (eft[g->ipreds.v[n->ipred_first + p]] > est)
						est = eft[g->ipreds.v[n->ipred_first + p]];
				eft[id] = est + emu_model_cost(o, n);
				if (eft[id] > sfin[members[x]])
					sfin[members[x]] = eft[id];
			}
			if (st->node_count && g->step_entry.v[members[x]] < a)
				a = g->step_entry.v[members[x]];
			if (sfin[members[x]] > m)
				m = sfin[members[x]];
		}
		if (ext > a)
			a = ext;
		if (a == UINT64_MAX || b <= a || m == 0)
			continue;
		g->cap_waits++;
		for (size_t x = 0; x < nm; x++) {
			const emu_step *st = &g->steps.v[members[x]];

			for (uint32_t k = 0; k < st->node_count; k++) {
				uint32_t id = st->node_first + k;
				long double d = (long double)emu_model_cost(o, &g->nodes.v[id]);

				g->measured[id] = (uint64_t)(d * (long double)(b - a) / (long double)m + 0.5L);
				g->nmeasured++;
			}
		}
	}
	rc = 0;
out:
	free(grp);
	free(todo);
	free(members);
	free(bound);
	free(sfin);
	free(eft);
	return rc;
}
