/*
 * emu_order.c - sampled legal orders of a CUDA or HIP trace's commands, and
 * of a Vulkan trace's submits, for tsreplay --schedule-seed
 * (docs/emulator.md "Sampled orders").
 *
 * What "legal" means here: a device order that the captured program could
 * have seen.  Two rules make it:
 *
 *   - happens-before: a command runs after every step it depends on in
 *     the graph (stream order, events, the legacy stream, host
 *     synchronizations; on Vulkan queue order, semaphores, fences and host
 *     waits);
 *   - issue: a command runs only once the host has issued it (its record
 *     has been read), and everything issued before a host *barrier* has run
 *     before the host passes it.  A barrier is a record whose replay needs
 *     the device to hold what came before: a synchronization, a free, an
 *     unmap, a checkpoint, a keyframe, a context switch, a stream's
 *     destruction, a call the emulator does not model.  Records that only
 *     make things (streams, events, allocations, modules) or record and
 *     wait on events are not barriers: nothing issued before them can
 *     touch what they make, and on one stream an event orders nothing.
 *
 * The sampler walks the records in seq order as the replay will: a
 * command joins the pending set when its record is read, and before a
 * barrier (and after the last record) every pending command runs: again
 * and again, one of the ready ones (all predecessors run) chosen at
 * random.  Every order drawn is a topological order of the graph that the
 * replay can issue while reading the trace once, and each such order has
 * a nonzero chance: holding the commands to the barrier loses none, since
 * by then all of the window's commands have been read and any
 * topological order of them can be drawn.  Like the CUDA double's seeded
 * mode, nothing runs until the host waits.  Refused: a trace where a
 * stream memory wait comes before the write it waits for (its steps are
 * not in record order), graph launches (the
 * replay runs the order on one stream, where graphs are not rebuilt) and
 * commands on two devices (one device's stream orders no other's).
 *
 * On a Vulkan trace what moves is a whole vkQueueSubmit* (a *unit*: its
 * batches are steps of the graph, and the replay re-issues the record),
 * and a vkQueuePresentKHR or vkQueueBindSparse (a unit with no step: it
 * follows what emu_vk.c links it to, its queue's earlier work and the
 * signals it waits for, and the steps that wait for what it signals or
 * come next on its queue follow it); a submit with a batch that runs no
 * command (its waits and signals are not in the graph) stays where it
 * is, as a barrier.  Records that only record command buffers, make
 * objects, bind memory to new ones or query without waiting are not
 * barriers (emu_order_vk_harmless); every other one is, and so is the
 * layer's frame mark in a trace that presents (it follows each present,
 * so presents keep their order and the replay's frames their numbers).
 * One queue runs its submits in submission order, so a trace on one
 * queue has one order, its own.
 *
 * The PRNG is splitmix64 (a 64-bit counter through a mixing function):
 * the same seed gives the same order on every machine.  The order's hash
 * is FNV-1a 64 over the commands' seqs, little-endian, in order.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_internal.h"
#include "emulator/emu_vk.h"
#include "serializer/sbt_compute.h"

/* One thing the sampler meets in record order. */
typedef struct emu_order_ev {
	uint64_t seq;
	uint32_t unit;   /* the command's unit; EMU_NONE: a barrier */
} emu_order_ev;

/*
 * What the sampler places is a *unit*: the record of one command.  On a
 * CUDA or HIP trace a unit is one step of the graph; on a Vulkan trace it
 * is one vkQueueSubmit* with all its batches (each batch a step), which
 * the replay re-issues whole.
 */
struct emu_order_plan {
	emu_graph *g;               /* owned */
	EMU_VEC(emu_order_ev) evs;
	size_t nunits;
	uint64_t *unit_seq;         /* its record; units are in seq order */
	uint32_t *unit_sync;        /* 1 + its present or sparse bind (emu_vk_graph.sync);
	                               0: a unit of steps */
	uint32_t *sync_unit;        /* per present or sparse bind: its unit */
	uint32_t *unit_step;        /* its first step (the others follow it) */
	uint32_t *unit_nsteps;
	uint32_t *step_unit;        /* per step; EMU_NONE: a step no unit holds (a
	                               Vulkan submit replayed where it is, as a barrier) */
	uint32_t *succ_first;       /* units + 1 entries: successors of unit i are */
	uint32_t *succ;             /* succ[succ_first[i] .. succ_first[i + 1]) */
	uint32_t *npred;            /* distinct predecessors per unit */
	/* the last sample (emu_order_sample's out-parameters point here) */
	emu_order_item *items;
	uint32_t *remaining, *ready;
	uint8_t *arrived;
};

/* Calls that are not barriers (see the top of the file); every other
 * record that is not a command is one. */
static int emu_order_harmless(sbt_cm_kind k)
{
	switch (k) {
	case SBT_CM_K_cuInit:
	case SBT_CM_K_cuDeviceGet:
	case SBT_CM_K_cuModuleLoad:
	case SBT_CM_K_cuModuleLoadData:
	case SBT_CM_K_cuModuleLoadDataEx:
	case SBT_CM_K_cuModuleLoadFatBinary:
	case SBT_CM_K_cuModuleGetFunction:
	case SBT_CM_K_cuModuleGetGlobal:
	case SBT_CM_K_cuLibraryLoadData:
	case SBT_CM_K_cuLibraryLoadFromFile:
	case SBT_CM_K_cuLibraryGetKernel:
	case SBT_CM_K_cuLibraryGetModule:
	case SBT_CM_K_cuLibraryGetGlobal:
	case SBT_CM_K_cuKernelGetFunction:
	case SBT_CM_K_cuKernelSetAttribute:
	case SBT_CM_K_cuFuncSetAttribute:
	case SBT_CM_K_cuMemAlloc:
	case SBT_CM_K_cuMemAllocPitch:
	case SBT_CM_K_cuMemAllocManaged:
	case SBT_CM_K_cuMemAllocHost:
	case SBT_CM_K_cuMemHostAlloc:
	case SBT_CM_K_cuMemHostRegister:
	case SBT_CM_K_cuMemCreate:
	case SBT_CM_K_cuMemAddressReserve:
	case SBT_CM_K_cuMemMap:
	case SBT_CM_K_cuMemSetAccess:
	case SBT_CM_K_cuStreamCreate:
	case SBT_CM_K_cuStreamCreateWithPriority:
	case SBT_CM_K_cuStreamWaitEvent:
	case SBT_CM_K_cuEventCreate:
	case SBT_CM_K_cuEventRecord:
	case SBT_CM_K_cuEventRecordWithFlags:
	case SBT_CM_K_cuTexObjectCreate:
	case SBT_CM_K_cuSurfObjectCreate:
	case SBT_CM_K_tsVaWindow:
		return 1;
	default:
		return 0;
	}
}

/* The CUDA call a record of this type makes; -1: none (a checkpoint, a
 * keyframe, another API's record). */
static int emu_order_kind(const emu_graph *g, uint32_t type)
{
	const char *name = sbt_reader_type_name(g->r, type);
	sbt_cm_kind k;

	if (type < SBT_TYPE_FIRST_API || !name ||
	    (strncmp(name, "cuda.", 5) != 0 && strncmp(name, "hip.", 4) != 0) ||
	    sbt_cm_kind_by_name(name, &k) != 0)
		return -1;
	return (int)k;
}

static emu_status emu_order_one_device(emu_order_plan *p, char *err, size_t errlen)
{
	const emu_graph *g = p->g;
	int32_t device = -1;

	for (size_t i = 0; i < g->steps.n; i++) {
		const emu_step *st = &g->steps.v[i];
		const emu_stream *sm = &g->streams.v[st->stream];

		if (device >= 0 && sm->device != device) {
			snprintf(err, errlen, "%s: commands on devices %d and %d (seq %llu): a sampled order "
			         "serialises one device's commands; commands of two devices are not ordered "
			         "against each other", g->path, (int)device, (int)sm->device,
			         (unsigned long long)st->seq);
			return EMU_ERR_STATE;
		}
		device = sm->device;
	}
	return EMU_OK;
}

/* Whether a Vulkan submit at seq is one the order may move (emu_vk.h). */
static int emu_order_vk_whole(const emu_graph *g, uint64_t seq)
{
	size_t lo = 0, hi = g->vk->whole.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->vk->whole.v[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->vk->whole.n && g->vk->whole.v[lo] == seq;
}

/* The units, in seq order: a step each (CUDA, HIP), or the steps of one
 * whole submit (Vulkan; the steps of one record are consecutive), or a
 * present or sparse bind (Vulkan, no step). */
static emu_status emu_order_units(emu_order_plan *p)
{
	const emu_graph *g = p->g;
	size_t n = g->steps.n, nsync = g->vk ? g->vk->sync.n : 0, j = 0, cap = n + nsync;

	p->unit_seq = malloc((cap ? cap : 1) * sizeof(uint64_t));
	p->unit_sync = malloc((cap ? cap : 1) * sizeof(uint32_t));
	p->sync_unit = malloc((nsync ? nsync : 1) * sizeof(uint32_t));
	p->unit_step = malloc((cap ? cap : 1) * sizeof(uint32_t));
	p->unit_nsteps = malloc((cap ? cap : 1) * sizeof(uint32_t));
	p->step_unit = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!p->unit_seq || !p->unit_sync || !p->sync_unit || !p->unit_step || !p->unit_nsteps ||
	    !p->step_unit)
		return EMU_ERR_NOMEM;
	for (size_t i = 0; i <= n; i++) {
		uint64_t seq = i < n ? g->steps.v[i].seq : UINT64_MAX;

		for (; j < nsync && g->vk->sync.v[j].seq < seq; j++) {
			p->unit_seq[p->nunits] = g->vk->sync.v[j].seq;
			p->unit_sync[p->nunits] = (uint32_t)j + 1;
			p->unit_step[p->nunits] = EMU_NONE;
			p->unit_nsteps[p->nunits] = 0;
			p->sync_unit[j] = (uint32_t)p->nunits++;
		}
		if (i == n)
			break;
		if (g->vk && !emu_order_vk_whole(g, seq)) {
			p->step_unit[i] = EMU_NONE;
			continue;
		}
		if (g->vk && p->nunits && !p->unit_sync[p->nunits - 1] && p->unit_seq[p->nunits - 1] == seq) {
			p->unit_nsteps[p->nunits - 1]++;
		} else {
			p->unit_seq[p->nunits] = seq;
			p->unit_sync[p->nunits] = 0;
			p->unit_step[p->nunits] = (uint32_t)i;
			p->unit_nsteps[p->nunits] = 1;
			p->nunits++;
		}
		p->step_unit[i] = (uint32_t)p->nunits - 1;
	}
	return EMU_OK;
}

/* The unit a link names (emu_vk.h): a step's, or a present's or sparse
 * bind's; EMU_NONE for a step no unit holds. */
static uint32_t emu_order_link_unit(const emu_order_plan *p, const emu_vk_link *l)
{
	return l->step != EMU_NONE ? p->step_unit[l->step] : p->sync_unit[l->sync - 1];
}

/* Calls fn(p, from, to) once per distinct dependency between two units
 * (a unit's steps depending on another unit's). */
static void emu_order_unit_deps(emu_order_plan *p, uint32_t *mark,
                                void (*fn)(emu_order_plan *p, uint32_t from, uint32_t to))
{
	const emu_graph *g = p->g;

	const struct emu_vk_graph *vk = g->vk;
	size_t k = 0; /* into vk->after_sync, in step order */

	for (size_t u = 0; u < p->nunits; u++)
		mark[u] = EMU_NONE;
	for (uint32_t u = 0; u < p->nunits; u++) {
		if (p->unit_sync[u]) {
			const emu_vk_sync *sy = &vk->sync.v[p->unit_sync[u] - 1];

			for (uint32_t l = sy->link_first; l < sy->link_first + sy->link_count; l++) {
				uint32_t from = emu_order_link_unit(p, &vk->sync_link.v[l]);

				if (from == EMU_NONE || from == u || mark[from] == u)
					continue;
				mark[from] = u;
				fn(p, from, u);
			}
			continue;
		}
		for (uint32_t s = p->unit_step[u]; s < p->unit_step[u] + p->unit_nsteps[u]; s++) {
			const emu_step *st = &g->steps.v[s];

			for (uint32_t d = 0; d < st->dep_count; d++) {
				uint32_t from = p->step_unit[g->deps.v[st->dep_first + d].step];

				/* a step no unit holds was replayed as a barrier, before u was read */
				if (from == EMU_NONE || from == u || mark[from] == u)
					continue;
				mark[from] = u;
				fn(p, from, u);
			}
			for (; vk && k < vk->after_sync.n && vk->after_sync.v[k].step < s; k++)
				;
			for (; vk && k < vk->after_sync.n && vk->after_sync.v[k].step == s; k++) {
				uint32_t from = p->sync_unit[vk->after_sync.v[k].sync - 1];

				if (from == u || mark[from] == u)
					continue;
				mark[from] = u;
				fn(p, from, u);
			}
		}
	}
}

static void emu_order_count_dep(emu_order_plan *p, uint32_t from, uint32_t to)
{
	p->npred[to]++;
	p->succ_first[from + 1]++;
}

static void emu_order_fill_dep(emu_order_plan *p, uint32_t from, uint32_t to)
{
	p->succ[p->remaining[from]++] = to; /* remaining: the next free slot per unit */
}

/* Successor lists from the units' dependencies (which point backwards). */
static emu_status emu_order_succ(emu_order_plan *p)
{
	const emu_graph *g = p->g;
	size_t n = p->nunits;
	uint32_t *mark;

	p->succ_first = calloc(n + 1, sizeof(uint32_t));
	p->succ = malloc((g->deps.n + (g->vk ? g->vk->sync_link.n + g->vk->after_sync.n : 0) + 1) *
	                 sizeof(uint32_t));
	p->npred = calloc(n ? n : 1, sizeof(uint32_t));
	p->items = malloc((n ? n : 1) * sizeof(*p->items));
	p->remaining = malloc((n ? n : 1) * sizeof(uint32_t));
	p->ready = malloc((n ? n : 1) * sizeof(uint32_t));
	p->arrived = malloc(n ? n : 1);
	mark = p->ready; /* scratch until the first sample */
	if (!p->succ_first || !p->succ || !p->npred || !p->items || !p->remaining || !p->ready ||
	    !p->arrived)
		return EMU_ERR_NOMEM;
	emu_order_unit_deps(p, mark, emu_order_count_dep);
	for (size_t i = 0; i < n; i++)
		p->succ_first[i + 1] += p->succ_first[i];
	memcpy(p->remaining, p->succ_first, n * sizeof(uint32_t));
	emu_order_unit_deps(p, mark, emu_order_fill_dep);
	return EMU_OK;
}

/* Vulkan records that are not barriers: recording, making objects,
 * binding memory to new ones, queries that wait for nothing, and the
 * result notes of earlier calls.  Nothing a submit read before them can
 * see what they do (a command buffer or object in use by a pending
 * submit may not be changed), so a submit may run after them.  Every
 * other record (waits, frees, destructions, descriptor updates, host
 * writes to memory, presents, sparse binding, signals and resets from
 * the host, checkpoints, keyframes) is a barrier. */
static int emu_order_vk_harmless(const char *name)
{
	static const char *const prefixes[] = { "vkCmd", "vkCreate", "vkAllocate", "vkEnumerate", "vkGet" };
	static const char *const calls[] = {
		"vkBeginCommandBuffer", "vkEndCommandBuffer", "vkBindBufferMemory", "vkBindImageMemory",
		"vkBindBufferMemory2", "vkBindImageMemory2", "vkBindBufferMemory2KHR", "vkBindImageMemory2KHR",
		"tsResult",
	};
	/* "vkGet" calls that wait for the device or read what it wrote */
	static const char *const waits[] = {
		"vkGetFenceStatus", "vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR",
		"vkGetQueryPoolResults", "vkGetEventStatus", "vkGetSwapchainStatusKHR",
	};

	if (strncmp(name, "vulkan.", 7) != 0)
		return 0;
	name += 7;
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		if (strcmp(name, waits[i]) == 0)
			return 0;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(name, calls[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* Whether a record that issues no unit is a barrier (presents: the trace
 * has a present). */
static int emu_order_barrier(const emu_graph *g, const sbt_record *rec, int presents)
{
	int k;

	if (g->vk) {
		const char *name = rec->type >= SBT_TYPE_FIRST_API ? sbt_reader_type_name(g->r, rec->type)
		                                                   : NULL;

		/* the layer's frame marks follow each present: presents keep
		 * their order, so frames keep their numbers (--screenshot N); a
		 * program that never presents gets one per submit, ordering
		 * nothing; thread names and notes order nothing on the device */
		if (rec->type == SBT_TYPE_FRAME)
			return presents;
		if (rec->type == SBT_TYPE_THREAD || rec->type == SBT_TYPE_NOTE)
			return 0;
		return !name || !emu_order_vk_harmless(name);
	}
	k = emu_order_kind(g, rec->type);
	return !(k >= 0 && emu_order_harmless((sbt_cm_kind)k));
}

/* The units and barriers in record order (a run of barriers is one). */
static emu_status emu_order_events(emu_order_plan *p, char *err, size_t errlen)
{
	emu_graph *g = p->g;
	size_t next = 0;
	sbt_record rec;
	sbt_status ss;
	sbt_trace_info info;
	int presents = 0;

	for (size_t i = 0; g->vk && i < g->vk->sync.n && !presents; i++)
		presents = g->vk->sync.v[i].present;
	sbt_reader_get_info(g->r, &info);
	ss = info.record_count ? sbt_reader_seek_seq(g->r, info.first_seq) : SBT_END;
	while (ss == SBT_OK && (ss = sbt_reader_next(g->r, &rec)) == SBT_OK) {
		emu_order_ev ev = { rec.seq, EMU_NONE };

		while (next < p->nunits && p->unit_seq[next] < rec.seq)
			next++;
		if (!g->vk && next < p->nunits && p->unit_seq[next] == rec.seq &&
		    emu_order_kind(g, rec.type) == SBT_CM_K_cuGraphLaunch) {
			snprintf(err, errlen, "%s: seq %llu launches a graph: a sampled order runs every "
			         "command on one stream, where graphs are not rebuilt (replay it without "
			         "--schedule-seed)", g->path, (unsigned long long)rec.seq);
			return EMU_ERR_STATE;
		}
		if (next < p->nunits && p->unit_seq[next] == rec.seq)
			ev.unit = (uint32_t)next;
		else if (!emu_order_barrier(g, &rec, presents))
			continue;
		else if (p->evs.n && p->evs.v[p->evs.n - 1].unit == EMU_NONE)
			continue;
		if (EMU_PUSH(p->evs, ev) != 0)
			return EMU_ERR_NOMEM;
	}
	if (ss != SBT_END) {
		snprintf(err, errlen, "%s: reading the records again: %s", g->path, sbt_strerror(ss));
		return EMU_ERR_TRACE;
	}
	return EMU_OK;
}

/* A Vulkan trace whose submits all go to one queue: say that its order is
 * the captured one (into note; empty otherwise). */
static void emu_order_vk_note(const emu_order_plan *p, char *note, size_t len)
{
	const emu_graph *g = p->g;
	uint32_t queue = EMU_NONE;

	for (size_t i = 0; i < g->steps.n + g->vk->sync.n; i++) {
		uint32_t stream = i < g->steps.n ? g->steps.v[i].stream : g->vk->sync.v[i - g->steps.n].stream;

		if (queue != EMU_NONE && stream != queue)
			return;
		queue = stream;
	}
	if (queue == EMU_NONE)
		snprintf(note, len, "%s: no submit runs a command: the order is the captured one", g->path);
	else
		snprintf(note, len, "%s: every submit goes to one queue (0x%llx), which runs them in "
		         "submission order: the order is the captured one", g->path,
		         (unsigned long long)g->streams.v[queue].handle);
}

emu_status emu_order_open(const char *path, emu_order_plan **out, char *err, size_t errlen)
{
	emu_order_plan *p;
	emu_status st;
	char dummy[8];

	if (!err) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	if (!path || !out)
		return EMU_ERR_ARG;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return EMU_ERR_NOMEM;
	st = emu_graph_build(path, &p->g, err, errlen);
	if (st != EMU_OK)
		goto out_free;
	if (p->g->held_first_seq) {
		/* its steps are not in record order: the sampler reads records in order */
		snprintf(err, errlen, "%s: seq %llu is a stream memory wait for a write recorded after it: a "
		         "sampled order is drawn as the records are read (replay it without --schedule-seed)",
		         path, (unsigned long long)p->g->held_first_seq);
		st = EMU_ERR_STATE;
		goto out_free;
	}
	/* a Vulkan replay serialises across devices too: it waits for each submit */
	st = p->g->vk ? EMU_OK : emu_order_one_device(p, err, errlen);
	if (st == EMU_OK)
		st = emu_order_units(p);
	if (st == EMU_OK)
		st = emu_order_succ(p);
	if (st == EMU_OK)
		st = emu_order_events(p, err, errlen);
	if (st != EMU_OK)
		goto out_free;
	if (p->g->vk)
		emu_order_vk_note(p, err, errlen);
	*out = p;
	return EMU_OK;
out_free:
	if (st == EMU_ERR_NOMEM && !err[0])
		snprintf(err, errlen, "%s: %s", path, emu_strerror(st));
	emu_order_close(p);
	return st;
}

void emu_order_close(emu_order_plan *p)
{
	if (!p)
		return;
	emu_graph_free(p->g);
	free(p->evs.v);
	free(p->unit_seq);
	free(p->unit_sync);
	free(p->sync_unit);
	free(p->unit_step);
	free(p->unit_nsteps);
	free(p->step_unit);
	free(p->succ_first);
	free(p->succ);
	free(p->npred);
	free(p->items);
	free(p->remaining);
	free(p->ready);
	free(p->arrived);
	free(p);
}

static uint64_t emu_order_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The sampler's state for one draw. */
typedef struct emu_order_draw {
	emu_order_plan *p;
	uint64_t rng;
	size_t nready, nitems, pending;
	uint64_t max_seq, moved;
} emu_order_draw;

/* Run one ready unit, chosen at random, issued before the record with
 * seq release_before. */
static void emu_order_emit(emu_order_draw *d, uint64_t release_before)
{
	emu_order_plan *p = d->p;
	size_t pick = (size_t)(emu_order_rand(&d->rng) % d->nready);
	uint32_t s = p->ready[pick];
	uint64_t seq = p->unit_seq[s];

	p->ready[pick] = p->ready[--d->nready];
	p->items[d->nitems].seq = seq;
	p->items[d->nitems].release_before = release_before;
	d->nitems++;
	d->pending--;
	if (seq < d->max_seq)
		d->moved++;
	else
		d->max_seq = seq;
	for (uint32_t i = p->succ_first[s]; i < p->succ_first[s + 1]; i++) {
		uint32_t t = p->succ[i];

		if (--p->remaining[t] == 0 && p->arrived[t])
			p->ready[d->nready++] = t;
	}
}

emu_status emu_order_sample(emu_order_plan *p, uint64_t seed, const emu_order_item **items_out,
                            size_t *n_out, uint64_t *hash_out, uint64_t *moved_out)
{
	emu_order_draw d = { p, seed, 0, 0, 0, 0, 0 };
	uint64_t h = 0xcbf29ce484222325ull;

	if (!p || !items_out || !n_out)
		return EMU_ERR_ARG;
	memcpy(p->remaining, p->npred, p->nunits * sizeof(uint32_t));
	memset(p->arrived, 0, p->nunits);
	for (size_t e = 0; e < p->evs.n; e++) {
		const emu_order_ev *ev = &p->evs.v[e];

		if (ev->unit == EMU_NONE) {
			/* every pending command's predecessors are run or pending
			 * (they point backwards), so one is always ready */
			while (d.pending)
				emu_order_emit(&d, ev->seq);
			continue;
		}
		p->arrived[ev->unit] = 1;
		d.pending++;
		if (p->remaining[ev->unit] == 0)
			p->ready[d.nready++] = ev->unit;
	}
	while (d.pending)
		emu_order_emit(&d, UINT64_MAX);
	for (size_t i = 0; i < d.nitems; i++)
		for (unsigned b = 0; b < 8; b++)
			h = (h ^ ((p->items[i].seq >> (8 * b)) & 0xff)) * 0x100000001b3ull;
	*items_out = p->items;
	*n_out = d.nitems;
	if (hash_out)
		*hash_out = h;
	if (moved_out)
		*moved_out = d.moved;
	return EMU_OK;
}

const char *emu_order_describe(const emu_order_plan *p, uint64_t seq, const char **kind_out)
{
	const emu_graph *g = p ? p->g : NULL;
	size_t lo = 0, hi = g ? g->steps.n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->steps.v[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!g || lo == g->steps.n || g->steps.v[lo].seq != seq)
		return NULL;
	if (kind_out)
		*kind_out = emu_kind_name(g->nodes.v[g->steps.v[lo].node_first].kind);
	return emu_node_name(g, &g->nodes.v[g->steps.v[lo].node_first]);
}

emu_status emu_order_print(emu_order_plan *p, uint64_t seed, FILE *f)
{
	const emu_order_item *items = NULL;
	uint64_t hash = 0, moved = 0;
	size_t n = 0;
	emu_status st;

	if (!p || !f)
		return EMU_ERR_ARG;
	st = emu_order_sample(p, seed, &items, &n, &hash, &moved);
	if (st != EMU_OK)
		return st;
	fprintf(f, "schedule seed %llu: order 0x%016llx of %zu commands, %llu of them run after a "
	        "command the capture issued later\n", (unsigned long long)seed, (unsigned long long)hash,
	        n, (unsigned long long)moved);
	for (size_t i = 0; i < n; i++) {
		const emu_graph *g = p->g;
		size_t lo = 0, hi = p->nunits;
		const emu_step *st0;
		char label[160];

		while (lo < hi) { /* units are in seq order */
			size_t mid = lo + (hi - lo) / 2;

			if (p->unit_seq[mid] < items[i].seq)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (p->unit_sync[lo]) {
			const emu_vk_sync *sy = &g->vk->sync.v[p->unit_sync[lo] - 1];

			fprintf(f, "  seq %llu %s on %s", (unsigned long long)items[i].seq,
			        sy->present ? "present" : "sparse bind",
			        emu_stream_label(g, sy->stream, label, sizeof(label)));
		} else {
			st0 = &g->steps.v[p->unit_step[lo]];
			fprintf(f, "  seq %llu %s on %s", (unsigned long long)items[i].seq,
			        g->vk ? "submit" : emu_kind_name(g->nodes.v[st0->node_first].kind),
			        emu_stream_label(g, st0->stream, label, sizeof(label)));
		}
		if (items[i].release_before != UINT64_MAX)
			fprintf(f, ", before seq %llu", (unsigned long long)items[i].release_before);
		fputc('\n', f);
	}
	return EMU_OK;
}
