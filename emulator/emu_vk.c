/*
 * emu_vk.c - a Vulkan trace to the happens-before graph of its device
 * commands (docs/emulator.md "Vulkan"; the ordering model: emu_vk.h).
 *
 * One pass over the records, in seq order.  What is recorded into command
 * buffers is kept by emu_vk_cmd.c; here, a submit expands its command
 * buffers into nodes on the queue's stream, one step per batch
 * (VkSubmitInfo), and carries the vector clocks and barrier reach of every
 * node forward: semaphores and fences hold the clock of what they signal,
 * the host the clock of what it waited for.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu_vk_build.h"
#include "serializer/sbt_cli.h"

/* ---- a handle -> index map (emu_vk_build.h) ------------------------------------ */

uint32_t emu_vk_map_get(const emu_vk_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return EMU_NONE;
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key)
			return m->val[i];
	return EMU_NONE;
}

int emu_vk_map_put(emu_vk_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (!key)
		return 0;
	if ((m->n + 1) * 2 > m->cap) {
		emu_vk_map old = *m;
		size_t ncap = m->cap ? m->cap * 2 : 64;

		m->key = calloc(ncap, sizeof(uint64_t));
		m->val = malloc(ncap * sizeof(uint32_t));
		if (!m->key || !m->val) {
			free(m->key);
			free(m->val);
			*m = old;
			return -1;
		}
		m->cap = ncap;
		m->n = 0;
		for (size_t k = 0; k < old.cap; k++)
			if (old.key[k] && emu_vk_map_put(m, old.key[k], old.val[k]) != 0)
				return -1;
		free(old.key);
		free(old.val);
	}
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key) {
			m->val[i] = val;
			return 0;
		}
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return 0;
}

void emu_vk_map_free(emu_vk_map *m)
{
	free(m->key);
	free(m->val);
}

/* ---- queues, semaphores, fences, host threads ---------------------------------------------- */

static emu_vk_queue *emu_vk_queue_of(emu_vk_builder *b, VkQueue h, uint32_t family, uint32_t index, int known)
{
	uint32_t i = emu_vk_map_get(&b->queues, (uint64_t)(uintptr_t)h);
	emu_stream s = { 0 };
	emu_vk_queue q;

	if (i != EMU_NONE) {
		if (known) {
			b->g->streams.v[b->q.v[i].stream].family = family;
			b->g->streams.v[b->q.v[i].stream].index = index;
			b->g->streams.v[b->q.v[i].stream].created = 1;
		}
		return &b->q.v[i];
	}
	if (b->q.n >= EMU_VK_QMAX) {
		snprintf(b->err, b->errlen, "seq %llu: more than %u queues (the emulator's limit)",
		         (unsigned long long)b->rec->seq, EMU_VK_QMAX);
		return NULL;
	}
	s.handle = (uint64_t)(uintptr_t)h;
	s.vk_queue = 1;
	s.created = (uint8_t)known; /* vkGetDeviceQueue seen: family and index known */
	s.family = family;
	s.index = index;
	memset(&q, 0, sizeof(q));
	q.stream = (uint32_t)b->g->streams.n;
	q.last_step = EMU_NONE;
	if (EMU_PUSH(b->g->streams, s) != 0 || EMU_PUSH(b->q, q) != 0 ||
	    emu_vk_map_put(&b->queues, s.handle, (uint32_t)b->q.n - 1) != 0)
		return NULL;
	return &b->q.v[b->q.n - 1];
}

static emu_vk_sem *emu_vk_sem_of(emu_vk_builder *b, VkSemaphore h)
{
	uint32_t i = emu_vk_map_get(&b->sems, (uint64_t)h);
	emu_vk_sem s;

	if (i != EMU_NONE)
		return &b->sem.v[i];
	memset(&s, 0, sizeof(s));
	if (EMU_PUSH(b->sem, s) != 0 || emu_vk_map_put(&b->sems, (uint64_t)h, (uint32_t)b->sem.n - 1) != 0)
		return NULL;
	return &b->sem.v[b->sem.n - 1];
}

static emu_vk_sig *emu_vk_fence_of(emu_vk_builder *b, VkFence h)
{
	uint32_t i = emu_vk_map_get(&b->fences, (uint64_t)h);
	emu_vk_sig s;

	if (i != EMU_NONE)
		return &b->fence.v[i];
	memset(&s, 0, sizeof(s));
	s.step = EMU_NONE;
	if (EMU_PUSH(b->fence, s) != 0 || emu_vk_map_put(&b->fences, (uint64_t)h, (uint32_t)b->fence.n - 1) != 0)
		return NULL;
	return &b->fence.v[b->fence.n - 1];
}

/* A semaphore is signaled with what sig knows. */
static int emu_vk_signal(emu_vk_builder *b, VkSemaphore h, uint64_t value, const emu_vk_sig *sig)
{
	emu_vk_sem *s = emu_vk_sem_of(b, h);
	emu_vk_sig x = *sig;

	if (!s)
		return -1;
	x.value = value;
	if (!s->timeline) {
		s->sigs.n = 0;
		s->signaled = 1;
	}
	return EMU_PUSH(s->sigs, x);
}

/* What a wait on the semaphore (for value, on a timeline one) waits for;
 * NULL when no signal in the trace satisfies it. */
static const emu_vk_sig *emu_vk_wait_sig(emu_vk_builder *b, VkSemaphore h, uint64_t value, int consume)
{
	emu_vk_sem *s = emu_vk_sem_of(b, h);
	const emu_vk_sig *best = NULL;

	if (!s || !s->sigs.n)
		return NULL;
	if (!s->timeline) {
		if (!s->signaled)
			return NULL;
		if (consume)
			s->signaled = 0;
		return &s->sigs.v[s->sigs.n - 1];
	}
	/* the first signal that reached the value (values only grow) */
	for (size_t i = 0; i < s->sigs.n; i++)
		if (s->sigs.v[i].value >= value && (!best || s->sigs.v[i].value < best->value))
			best = &s->sigs.v[i];
	return best;
}

/* The signal a timeline semaphore's value seen by the host says has
 * happened: the last one submitted whose value is at most value (NULL:
 * none, or not a timeline semaphore). */
static const emu_vk_sig *emu_vk_seen_sig(emu_vk_builder *b, VkSemaphore h, uint64_t value)
{
	uint32_t i = emu_vk_map_get(&b->sems, (uint64_t)h);
	const emu_vk_sem *s = i == EMU_NONE ? NULL : &b->sem.v[i];

	for (size_t k = s && s->timeline ? s->sigs.n : 0; k > 0; k--)
		if (s->sigs.v[k - 1].value <= value)
			return &s->sigs.v[k - 1];
	return NULL;
}

/* ---- submits and host waits ------------------------------------------------------------- */

/* Dependencies of the step being made: one per step, kept in b->tmp. */
static int emu_vk_dep(emu_vk_builder *b, uint32_t step, uint32_t kind)
{
	return emu_dep_push(&b->tmp, step, kind);
}

/* The step a clock entry names: the last step of queue qi up to batch k. */
static uint32_t emu_vk_step_of(const emu_vk_builder *b, uint32_t qi, uint32_t k)
{
	return k && k <= b->q.v[qi].batch_step.n ? b->q.v[qi].batch_step.v[k - 1] : EMU_NONE;
}

/* What the queue's work so far signals (a semaphore, a fence, a wait for idle). */
static void emu_vk_queue_sig(const emu_vk_builder *b, uint32_t qi, emu_vk_sig *out)
{
	const emu_vk_queue *q = &b->q.v[qi];

	memset(out, 0, sizeof(*out));
	memcpy(out->vc, q->all, sizeof(emu_vk_vc));
	out->vc[qi] = q->batch;
	out->step = q->last_step;
	out->sync = q->last_sync;
}

/* A host thread has waited for what sig signals (emu_vk_builder.host). */
static int emu_vk_host_waits(emu_vk_builder *b, const emu_vk_sig *sig)
{
	emu_vk_vc_max(b->host, sig->vc, b->q.n);
	for (uint32_t o = 0; o < b->q.n; o++) {
		uint32_t s = sig->vc[o] ? emu_vk_step_of(b, o, sig->vc[o]) : EMU_NONE;

		if (s != EMU_NONE && emu_obs_add(b->g, b->rec->seq, b->rec->time_ns, s) != 0)
			return -1;
	}
	return 0;
}

typedef struct emu_vk_wait {
	VkSemaphore sem;
	uint64_t value;
	VkPipelineStageFlags2 stages;
} emu_vk_wait;

/* q->avail and q->vis past barrier it, after q->pos commands, by the
 * rules of emu_vk_before for global barriers (any barrier chains); and a
 * barrier on a whole resource making writes available and visible at
 * once, in b->resvis. */
static int emu_vk_vis_step(emu_vk_builder *b, emu_vk_queue *q, const emu_vk_item *it)
{
	uint32_t av[EMU_VK_CLASSES][EMU_VK_CLASSES];

	memcpy(av, q->avail, sizeof(av));
	for (uint32_t x = 0; x < EMU_VK_CLASSES; x++) {
		uint32_t upto = it->global && (it->srcw & (1u << x)) ? q->pos : 0;

		for (uint32_t s = 0; s < EMU_VK_CLASSES; s++)
			if ((it->src & (1u << s)) && q->avail[x][s] > upto)
				upto = q->avail[x][s];
		for (uint32_t d = 0; upto && d < EMU_VK_CLASSES; d++) {
			if ((it->dst & (1u << d)) && av[x][d] < upto)
				av[x][d] = upto;
			if (it->global && (it->dsta & (1u << d)) && q->vis[x][d] < upto)
				q->vis[x][d] = upto;
		}
	}
	memcpy(q->avail, av, sizeof(av));
	if (!it->global && it->alloc && it->lo == 0 && it->hi >= b->g->allocs.v[it->alloc].size && it->srcw &&
	    it->dsta) {
		uint64_t key = (uint64_t)q->stream << 32 | it->alloc;
		uint32_t i = emu_vk_map_get(&b->resvises, key);
		emu_vk_resvis none;

		if (i == EMU_NONE) {
			memset(&none, 0, sizeof(none));
			if (EMU_PUSH(b->resvis, none) != 0 ||
			    emu_vk_map_put(&b->resvises, key, (uint32_t)b->resvis.n - 1) != 0)
				return -1;
			i = (uint32_t)b->resvis.n - 1;
		}
		for (uint32_t x = 0; x < EMU_VK_CLASSES; x++)
			for (uint32_t d = 0; d < EMU_VK_CLASSES; d++)
				if ((it->srcw & (1u << x)) && (it->dsta & (1u << d)))
					b->resvis.v[i].vis[x][d] = q->pos;
	}
	return 0;
}

/* The emu_vk_accvis of an access to allocation alloc by a class-cls
 * command being added to queue q. */
static int emu_vk_accvis_push(emu_vk_builder *b, const emu_vk_queue *q, uint8_t cls, uint32_t alloc)
{
	uint32_t i = emu_vk_map_get(&b->resvises, (uint64_t)q->stream << 32 | alloc);
	emu_vk_accvis v;

	for (uint32_t x = 0; x < EMU_VK_CLASSES; x++) {
		v.vis[x] = q->vis[x][cls];
		if (i != EMU_NONE && b->resvis.v[i].vis[x][cls] > v.vis[x])
			v.vis[x] = b->resvis.v[i].vis[x][cls];
	}
	return EMU_PUSH(b->vk->accvis, v);
}

/* One batch on queue qi: its waits, its command buffers, its signals. */
static int emu_vk_batch(emu_vk_builder *b, uint32_t qi, const emu_vk_wait *waits, uint32_t nwaits,
                        const VkCommandBuffer *cbs, const VkCommandBufferSubmitInfo *cbs2, uint32_t ncbs,
                        const emu_vk_wait *sigs, uint32_t nsigs)
{
	emu_graph *g = b->g;
	emu_vk_queue *q = &b->q.v[qi];
	uint32_t step = EMU_NONE, base = (uint32_t)g->nodes.n;
	emu_vk_sig out;

	q->batch++;
	emu_depvec_clear(&b->tmp);
	b->tmp_sync.n = 0;
	if (emu_vk_dep(b, q->last_step, EMU_D_STREAM) != 0)
		return -1;
	if (q->last_sync && EMU_PUSH(b->tmp_sync, q->last_sync) != 0)
		return -1;
	/* what the host waited for precedes everything submitted after */
	for (uint32_t c = 0; c < EMU_VK_CLASSES; c++)
		emu_vk_vc_max(q->front[c], b->host, b->q.n);
	for (uint32_t o = 0; o < b->q.n; o++)
		if (b->host[o] > q->host_seen[o]) {
			if (o != qi && emu_vk_dep(b, emu_vk_step_of(b, o, b->host[o]), EMU_D_HOST) != 0)
				return -1;
			q->host_seen[o] = b->host[o];
		}
	for (uint32_t i = 0; i < nwaits; i++) {
		const emu_vk_sig *s = emu_vk_wait_sig(b, waits[i].sem, waits[i].value, 1);
		uint8_t cls = emu_vk_classes(waits[i].stages, 0);

		if (!s)
			continue;
		for (uint32_t c = 0; c < EMU_VK_CLASSES; c++)
			if (cls & (1u << c))
				emu_vk_vc_max(q->front[c], s->vc, b->q.n);
		if (emu_vk_dep(b, s->step, EMU_D_SEMAPHORE) != 0)
			return -1;
		if (s->sync && EMU_PUSH(b->tmp_sync, s->sync) != 0)
			return -1;
	}
	for (uint32_t c = 0; c < EMU_VK_CLASSES; c++)
		emu_vk_vc_max(q->all, q->front[c], b->q.n);

	for (uint32_t k = 0; k < ncbs; k++) {
		VkCommandBuffer h = cbs ? cbs[k] : cbs2[k].commandBuffer;
		uint32_t ci = emu_vk_map_get(&b->cbs, (uint64_t)(uintptr_t)h);
		const emu_vk_cb *c;

		if (ci == EMU_NONE)
			continue; /* recorded before the trace: its commands are unknown */
		c = &b->cb.v[ci];
		for (size_t x = 0; x < c->items.n; x++) {
			const emu_vk_item *it = &c->items.v[x];
			emu_vk_node vn;
			emu_node n;

			if (it->kind == EMU_VK_BARRIER) {
				uint32_t nr[EMU_VK_CLASSES][EMU_VK_CLASSES];
				emu_vk_vc from;

				memset(from, 0, sizeof(from));
				for (uint32_t sc = 0; sc < EMU_VK_CLASSES; sc++)
					if (it->src & (1u << sc))
						emu_vk_vc_max(from, q->front[sc], b->q.n);
				memcpy(nr, q->reach, sizeof(nr));
				for (uint32_t d = 0; d < EMU_VK_CLASSES; d++) {
					if (!(it->dst & (1u << d)))
						continue;
					for (uint32_t s = 0; s < EMU_VK_CLASSES; s++) {
						if (!(it->src & (1u << s)))
							continue;
						if (q->pos > nr[d][s])
							nr[d][s] = q->pos;
						for (uint32_t o = 0; o < EMU_VK_CLASSES; o++) /* chains */
							if (q->reach[s][o] > nr[d][o])
								nr[d][o] = q->reach[s][o];
					}
					emu_vk_vc_max(q->front[d], from, b->q.n);
				}
				memcpy(q->reach, nr, sizeof(nr));
				if (emu_vk_vis_step(b, q, it) != 0)
					return -1;
				if (it->global && it->src == EMU_VK_ALL && it->srcw == EMU_VK_ALL)
					for (uint32_t d = 0; d < EMU_VK_CLASSES; d++)
						if (it->dsta & (1u << d))
							q->floor[d] = q->pos;
				if (it->src && it->dst) { /* execution-only ones too: they chain (emu_vk_before) */
					emu_vk_mbar m = { q->pos, it->src, it->dst, it->srcw, it->dsta, it->global, it->alloc,
						          it->lo, it->hi };

					if (EMU_PUSH(b->vk->mbar[q->stream], m) != 0)
						return -1;
					b->vk->nmbar++;
				}
				continue;
			}
			if (step == EMU_NONE) {
				emu_step st = { 0 };

				st.seq = b->rec->seq;
				st.stream = q->stream;
				st.pos = ++g->streams.v[q->stream].steps;
				st.node_first = base;
				st.dep_first = (uint32_t)g->deps.n;
				st.dep_count = (uint32_t)b->tmp.n;
				for (size_t d = 0; d < b->tmp.n; d++)
					if (EMU_PUSH(g->deps, b->tmp.v[d]) != 0)
						return -1;
				if (EMU_PUSH(g->steps, st) != 0 || emu_captimes_step(g, b->rec->thread) != 0)
					return -1;
				step = (uint32_t)g->steps.n - 1;
			}
			q->pos++;
			memset(&n, 0, sizeof(n));
			memset(&vn, 0, sizeof(vn));
			n.seq = it->seq;
			n.issue_ns = b->rec->time_ns;
			n.tid = b->rec->thread;
			n.bytes = it->bytes;
			n.step = step;
			n.stream = q->stream;
			n.name = it->name;
			n.stack_id = it->stack_id;
			n.kind = it->kind;
			n.engine = -1;
			n.crit_pred = EMU_NONE;
			n.acc_first = (uint32_t)g->acc.n;
			n.acc_count = it->acc_count;
			n.ipred_first = (uint32_t)g->ipreds.n;
			for (uint32_t a = 0; a < it->acc_count; a++) {
				emu_access ac = c->acc.v[it->acc_first + a];

				ac.node = (uint32_t)g->nodes.n;
				if (EMU_PUSH(g->acc, ac) != 0 || emu_vk_accvis_push(b, q, it->cls, ac.alloc) != 0)
					return -1;
			}
			/* within the batch: after the last command of each class it is ordered after */
			for (uint32_t o = 0; o < EMU_VK_CLASSES; o++) {
				uint32_t r = q->reach[it->cls][o];

				for (uint32_t p = (uint32_t)g->nodes.n; p-- > base;)
					if (b->vk->node.v[p].cls == o && b->vk->node.v[p].pos <= r) {
						if (EMU_PUSH(g->ipreds, p) != 0)
							return -1;
						n.ipred_count++;
						break;
					}
			}
			vn.submit_seq = b->rec->seq;
			vn.batch = q->batch;
			vn.pos = q->pos;
			vn.cls = it->cls;
			memcpy(vn.reach, q->reach[it->cls], sizeof(vn.reach));
			vn.floor = q->floor[it->cls];
			memcpy(vn.vc, q->front[it->cls], sizeof(vn.vc));
			if (EMU_PUSH(g->nodes, n) != 0 || EMU_PUSH(b->vk->node, vn) != 0)
				return -1;
			g->steps.v[step].node_count++;
		}
	}
	if (step != EMU_NONE) {
		if (g->first_ns == UINT64_MAX)
			g->first_ns = b->rec->time_ns;
		q->last_step = step;
		q->last_sync = 0; /* the step follows it */
		for (size_t k = 0; k < b->tmp_sync.n; k++) {
			emu_vk_link l = { step, b->tmp_sync.v[k] };
			size_t j;

			for (j = 0; j < k && b->tmp_sync.v[j] != l.sync; j++)
				;
			if (j == k && EMU_PUSH(b->vk->after_sync, l) != 0)
				return -1;
		}
	}
	if (EMU_PUSH(q->batch_step, q->last_step) != 0)
		return -1;
	emu_vk_queue_sig(b, qi, &out);
	for (uint32_t i = 0; i < nsigs; i++)
		if (emu_vk_signal(b, sigs[i].sem, sigs[i].value, &out) != 0)
			return -1;
	return 0;
}

/* The values of a VkTimelineSemaphoreSubmitInfo in a VkSubmitInfo's chain. */
static const VkTimelineSemaphoreSubmitInfo *emu_vk_timeline_info(const void *pnext)
{
	for (const VkBaseInStructure *p = pnext; p; p = p->pNext)
		if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
			return (const VkTimelineSemaphoreSubmitInfo *)p;
	return NULL;
}

static int emu_vk_r_submit(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	const sbt_vk_args_vkQueueSubmit *a = b->args;
	emu_vk_queue *q = emu_vk_queue_of(b, a->queue, 0, 0, 0);
	EMU_VEC(emu_vk_wait) w = { 0 };
	size_t steps_before = b->g->steps.n;
	uint32_t qi;
	int st = 0;

	if (!q)
		return -1;
	qi = (uint32_t)(q - b->q.v);
	for (uint32_t i = 0; a->pSubmits && i < a->submitCount && st == 0; i++) {
		uint32_t nw, ns;

		w.n = 0;
		if (cmd == SBT_VK_CMD_vkQueueSubmit) {
			const VkSubmitInfo *s = &a->pSubmits[i];
			const VkTimelineSemaphoreSubmitInfo *tl = emu_vk_timeline_info(s->pNext);

			for (uint32_t k = 0; k < s->waitSemaphoreCount && s->pWaitSemaphores && st == 0; k++) {
				emu_vk_wait x = { s->pWaitSemaphores[k], 0,
					          s->pWaitDstStageMask ? s->pWaitDstStageMask[k] : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT };

				if (tl && tl->pWaitSemaphoreValues && k < tl->waitSemaphoreValueCount)
					x.value = tl->pWaitSemaphoreValues[k];
				st = EMU_PUSH(w, x);
			}
			nw = (uint32_t)w.n;
			for (uint32_t k = 0; k < s->signalSemaphoreCount && s->pSignalSemaphores && st == 0; k++) {
				emu_vk_wait x = { s->pSignalSemaphores[k], 0, 0 };

				if (tl && tl->pSignalSemaphoreValues && k < tl->signalSemaphoreValueCount)
					x.value = tl->pSignalSemaphoreValues[k];
				st = EMU_PUSH(w, x);
			}
			ns = (uint32_t)w.n - nw;
			if (st == 0)
				st = emu_vk_batch(b, qi, w.v, nw, s->pCommandBuffers, NULL,
				                  s->pCommandBuffers ? s->commandBufferCount : 0, w.v + nw, ns);
		} else {
			const VkSubmitInfo2 *s = &((const sbt_vk_args_vkQueueSubmit2 *)b->args)->pSubmits[i];

			for (uint32_t k = 0; k < s->waitSemaphoreInfoCount && s->pWaitSemaphoreInfos && st == 0; k++) {
				emu_vk_wait x = { s->pWaitSemaphoreInfos[k].semaphore, s->pWaitSemaphoreInfos[k].value,
					          s->pWaitSemaphoreInfos[k].stageMask };

				st = EMU_PUSH(w, x);
			}
			nw = (uint32_t)w.n;
			for (uint32_t k = 0; k < s->signalSemaphoreInfoCount && s->pSignalSemaphoreInfos && st == 0; k++) {
				emu_vk_wait x = { s->pSignalSemaphoreInfos[k].semaphore, s->pSignalSemaphoreInfos[k].value, 0 };

				st = EMU_PUSH(w, x);
			}
			ns = (uint32_t)w.n - nw;
			if (st == 0)
				st = emu_vk_batch(b, qi, w.v, nw, NULL, s->pCommandBufferInfos,
				                  s->pCommandBufferInfos ? s->commandBufferInfoCount : 0, w.v + nw, ns);
		}
	}
	free(w.v);
	if (st == 0 && a->fence) {
		emu_vk_sig *f = emu_vk_fence_of(b, a->fence);

		if (!f)
			return -1;
		emu_vk_queue_sig(b, qi, f);
		f->value = 1;
	}
	/* a sampled order may move it only when every batch is a step: the
	 * dependencies of a batch with no command are not in the graph */
	if (st == 0 && a->pSubmits && a->submitCount && b->g->steps.n - steps_before == a->submitCount)
		st = EMU_PUSH(b->vk->whole, b->rec->seq);
	return st;
}

/* ---- presents and sparse binds -------------------------------------------------------- */

static int emu_vk_sync_link(emu_vk_builder *b, uint32_t step, uint32_t sync)
{
	emu_vk_link l = { step, sync };

	if (step == EMU_NONE && !sync)
		return 0;
	if (EMU_PUSH(b->vk->sync_link, l) != 0)
		return -1;
	b->vk->sync.v[b->vk->sync.n - 1].link_count++;
	return 0;
}

/* A present or sparse bind on queue qi begins: after its queue's work. */
static int emu_vk_sync_begin(emu_vk_builder *b, uint32_t qi, int present)
{
	const emu_vk_queue *q = &b->q.v[qi];
	emu_vk_sync s;

	memset(&s, 0, sizeof(s));
	s.seq = b->rec->seq;
	s.stream = q->stream;
	s.present = (uint8_t)present;
	s.link_first = (uint32_t)b->vk->sync_link.n;
	if (EMU_PUSH(b->vk->sync, s) != 0)
		return -1;
	if (emu_vk_sync_link(b, q->last_step, 0) != 0)
		return -1;
	return emu_vk_sync_link(b, EMU_NONE, q->last_sync);
}

/* ... and after what one of its waits waited for. */
static int emu_vk_sync_wait(emu_vk_builder *b, const emu_vk_sig *x)
{
	if (emu_vk_sync_link(b, x->step, 0) != 0)
		return -1;
	return emu_vk_sync_link(b, EMU_NONE, x->sync);
}

/* ... and ends: the next step of its queue follows it. */
static void emu_vk_sync_end(emu_vk_builder *b, uint32_t qi)
{
	b->q.v[qi].last_sync = (uint32_t)b->vk->sync.n;
}

/* vkQueueBindSparse: a sync unit; what it signals is after its queue's
 * work and what it waited for. */
static int emu_vk_r_bind_sparse(emu_vk_builder *b)
{
	const sbt_vk_args_vkQueueBindSparse *a = b->args;
	emu_vk_queue *q = emu_vk_queue_of(b, a->queue, 0, 0, 0);
	emu_vk_sig s;
	emu_vk_vc waited;
	uint32_t qi;

	if (!q)
		return -1;
	if (a->ret != VK_SUCCESS)
		return 0;
	qi = (uint32_t)(q - b->q.v);
	memset(waited, 0, sizeof(waited));
	if (emu_vk_sync_begin(b, qi, 0) != 0)
		return -1;
	for (uint32_t i = 0; a->pBindInfo && i < a->bindInfoCount; i++) {
		const VkBindSparseInfo *bi = &a->pBindInfo[i];
		const VkTimelineSemaphoreSubmitInfo *tl = emu_vk_timeline_info(bi->pNext);

		for (uint32_t k = 0; bi->pWaitSemaphores && k < bi->waitSemaphoreCount; k++) {
			uint64_t v = tl && tl->pWaitSemaphoreValues && k < tl->waitSemaphoreValueCount
			             ? tl->pWaitSemaphoreValues[k] : 0;
			const emu_vk_sig *x = emu_vk_wait_sig(b, bi->pWaitSemaphores[k], v, 1);

			if (!x)
				continue;
			emu_vk_vc_max(waited, x->vc, b->q.n);
			if (emu_vk_sync_wait(b, x) != 0)
				return -1;
		}
	}
	emu_vk_sync_end(b, qi);
	emu_vk_queue_sig(b, qi, &s);
	emu_vk_vc_max(s.vc, waited, b->q.n);
	for (uint32_t i = 0; a->pBindInfo && i < a->bindInfoCount; i++) {
		const VkBindSparseInfo *bi = &a->pBindInfo[i];
		const VkTimelineSemaphoreSubmitInfo *tl = emu_vk_timeline_info(bi->pNext);

		for (uint32_t k = 0; bi->pSignalSemaphores && k < bi->signalSemaphoreCount; k++) {
			uint64_t v = tl && tl->pSignalSemaphoreValues && k < tl->signalSemaphoreValueCount
			             ? tl->pSignalSemaphoreValues[k] : 0;

			if (emu_vk_signal(b, bi->pSignalSemaphores[k], v, &s) != 0)
				return -1;
		}
	}
	if (a->fence) {
		emu_vk_sig *f = emu_vk_fence_of(b, a->fence);

		if (!f)
			return -1;
		*f = s;
		f->value = 1;
	}
	return 0;
}

/* Host waits, semaphore signals from the host, presentation. */
static int emu_vk_r_sync(emu_vk_builder *b, enum sbt_vk_cmd cmd)
{
	emu_vk_sig s;

	switch (cmd) {
	case SBT_VK_CMD_vkQueueBindSparse:
		return emu_vk_r_bind_sparse(b);
	case SBT_VK_CMD_vkGetDeviceQueue: {
		const sbt_vk_args_vkGetDeviceQueue *a = b->args;

		return a->pQueue && *a->pQueue && !emu_vk_queue_of(b, *a->pQueue, a->queueFamilyIndex, a->queueIndex, 1)
		               ? -1 : 0;
	}
	case SBT_VK_CMD_vkGetDeviceQueue2: {
		const sbt_vk_args_vkGetDeviceQueue2 *a = b->args;

		return a->pQueue && *a->pQueue && a->pQueueInfo &&
		                       !emu_vk_queue_of(b, *a->pQueue, a->pQueueInfo->queueFamilyIndex,
		                                        a->pQueueInfo->queueIndex, 1)
		               ? -1 : 0;
	}
	case SBT_VK_CMD_vkWaitForFences: {
		const sbt_vk_args_vkWaitForFences *a = b->args;

		/* with waitAll false and several fences, which one signaled is unknown */
		if (a->ret != VK_SUCCESS || !a->pFences || (!a->waitAll && a->fenceCount > 1))
			return 0;
		for (uint32_t i = 0; i < a->fenceCount; i++) {
			emu_vk_sig *f = emu_vk_fence_of(b, a->pFences[i]);

			if (!f || emu_vk_host_waits(b, f) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkGetFenceStatus: {
		const sbt_vk_args_vkGetFenceStatus *a = b->args;
		emu_vk_sig *f;

		if (a->ret != VK_SUCCESS)
			return 0;
		f = emu_vk_fence_of(b, a->fence);
		return !f || emu_vk_host_waits(b, f) != 0 ? -1 : 0;
	}
	case SBT_VK_CMD_vkQueueWaitIdle: {
		const sbt_vk_args_vkQueueWaitIdle *a = b->args;
		emu_vk_queue *q;

		if (a->ret != VK_SUCCESS)
			return 0;
		if (!(q = emu_vk_queue_of(b, a->queue, 0, 0, 0)))
			return -1;
		emu_vk_queue_sig(b, (uint32_t)(q - b->q.v), &s);
		return emu_vk_host_waits(b, &s);
	}
	case SBT_VK_CMD_vkDeviceWaitIdle: {
		const sbt_vk_args_vkDeviceWaitIdle *a = b->args;

		if (a->ret != VK_SUCCESS)
			return 0;
		for (uint32_t i = 0; i < b->q.n; i++) {
			emu_vk_queue_sig(b, i, &s);
			if (emu_vk_host_waits(b, &s) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkWaitSemaphores:
	case SBT_VK_CMD_vkWaitSemaphoresKHR: {
		const sbt_vk_args_vkWaitSemaphores *a = b->args;
		const VkSemaphoreWaitInfo *w = a->pWaitInfo;

		if (a->ret != VK_SUCCESS || !w || !w->pSemaphores || !w->pValues ||
		    ((w->flags & VK_SEMAPHORE_WAIT_ANY_BIT) && w->semaphoreCount > 1))
			return 0;
		for (uint32_t i = 0; i < w->semaphoreCount; i++) {
			const emu_vk_sig *x = emu_vk_wait_sig(b, w->pSemaphores[i], w->pValues[i], 0);

			if (x && emu_vk_host_waits(b, x) != 0)
				return -1;
		}
		return 0;
	}
	case SBT_VK_CMD_vkGetSemaphoreCounterValue:
	case SBT_VK_CMD_vkGetSemaphoreCounterValueKHR: {
		/* the host saw the value: the last signal submitted that reached
		 * no more than it has happened, as a wait for it would say */
		const sbt_vk_args_vkGetSemaphoreCounterValue *a = b->args;
		const emu_vk_sig *x = a->ret == VK_SUCCESS && a->pValue ? emu_vk_seen_sig(b, a->semaphore, *a->pValue) : NULL;

		return x ? emu_vk_host_waits(b, x) : 0;
	}
	case SBT_VK_CMD_vkSignalSemaphore:
	case SBT_VK_CMD_vkSignalSemaphoreKHR: {
		const sbt_vk_args_vkSignalSemaphore *a = b->args;

		if (!a->pSignalInfo)
			return 0;
		memset(&s, 0, sizeof(s));
		memcpy(s.vc, b->host, sizeof(s.vc));
		s.step = EMU_NONE;
		return emu_vk_signal(b, a->pSignalInfo->semaphore, a->pSignalInfo->value, &s);
	}
	case SBT_VK_CMD_vkCreateSemaphore: {
		const sbt_vk_args_vkCreateSemaphore *a = b->args;
		emu_vk_sem *sm;

		if (a->ret != VK_SUCCESS || !a->pSemaphore || !a->pCreateInfo)
			return 0;
		if (emu_vk_map_put(&b->sems, (uint64_t)*a->pSemaphore, EMU_NONE) != 0 ||
		    !(sm = emu_vk_sem_of(b, *a->pSemaphore)))
			return -1;
		for (const VkBaseInStructure *p = a->pCreateInfo->pNext; p; p = p->pNext)
			if (p->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO &&
			    ((const VkSemaphoreTypeCreateInfo *)p)->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE) {
				emu_vk_sig zero;

				memset(&zero, 0, sizeof(zero));
				zero.step = EMU_NONE;
				zero.value = ((const VkSemaphoreTypeCreateInfo *)p)->initialValue;
				sm->timeline = 1;
				if (EMU_PUSH(sm->sigs, zero) != 0)
					return -1;
			}
		return 0;
	}
	case SBT_VK_CMD_vkCreateFence: {
		const sbt_vk_args_vkCreateFence *a = b->args;
		emu_vk_sig *f;

		if (a->ret != VK_SUCCESS || !a->pFence)
			return 0;
		if (emu_vk_map_put(&b->fences, (uint64_t)*a->pFence, EMU_NONE) != 0 || !(f = emu_vk_fence_of(b, *a->pFence)))
			return -1;
		return 0;
	}
	case SBT_VK_CMD_vkResetFences: {
		const sbt_vk_args_vkResetFences *a = b->args;

		for (uint32_t i = 0; a->pFences && i < a->fenceCount; i++) {
			emu_vk_sig *f = emu_vk_fence_of(b, a->pFences[i]);

			if (!f)
				return -1;
			memset(f, 0, sizeof(*f));
			f->step = EMU_NONE;
		}
		return 0;
	}
	case SBT_VK_CMD_vkQueuePresentKHR: {
		/* the image is given back with what the present waited for; the
		 * acquire that returns it next signals that */
		const sbt_vk_args_vkQueuePresentKHR *a = b->args;
		const VkPresentInfoKHR *p = a->pPresentInfo;
		emu_vk_queue *q = emu_vk_queue_of(b, a->queue, 0, 0, 0);
		uint32_t qi;

		if (!q)
			return -1;
		if (!p)
			return 0;
		/* a sampled order moves it, after its queue's work and its waits */
		qi = (uint32_t)(q - b->q.v);
		if (emu_vk_sync_begin(b, qi, 1) != 0)
			return -1;
		memset(&s, 0, sizeof(s));
		s.step = EMU_NONE;
		for (uint32_t i = 0; p->pWaitSemaphores && i < p->waitSemaphoreCount; i++) {
			const emu_vk_sig *x = emu_vk_wait_sig(b, p->pWaitSemaphores[i], 0, 1);

			if (x) {
				emu_vk_vc_max(s.vc, x->vc, b->q.n);
				if (x->step != EMU_NONE && (s.step == EMU_NONE || x->step > s.step))
					s.step = x->step;
				if (emu_vk_sync_wait(b, x) != 0)
					return -1;
			}
		}
		emu_vk_sync_end(b, qi);
		for (uint32_t i = 0; p->pSwapchains && p->pImageIndices && i < p->swapchainCount; i++) {
			uint64_t key = (uint64_t)p->pSwapchains[i] * 31u + p->pImageIndices[i];
			size_t k;

			for (k = 0; k < b->present_key.n && b->present_key.v[k] != key; k++)
				;
			if (k == b->present_key.n && (EMU_PUSH(b->present_key, key) != 0 || EMU_PUSH(b->present, s) != 0))
				return -1;
			b->present.v[k] = s;
		}
		return 0;
	}
	case SBT_VK_CMD_vkAcquireNextImageKHR: {
		const sbt_vk_args_vkAcquireNextImageKHR *a = b->args;
		uint64_t key;

		if ((a->ret != VK_SUCCESS && a->ret != VK_SUBOPTIMAL_KHR) || !a->pImageIndex)
			return 0;
		key = (uint64_t)a->swapchain * 31u + *a->pImageIndex;
		memset(&s, 0, sizeof(s));
		s.step = EMU_NONE;
		for (size_t k = 0; k < b->present_key.n; k++)
			if (b->present_key.v[k] == key)
				s = b->present.v[k];
		if (a->semaphore && emu_vk_signal(b, a->semaphore, 0, &s) != 0)
			return -1;
		if (a->fence) {
			emu_vk_sig *f = emu_vk_fence_of(b, a->fence);

			if (!f)
				return -1;
			*f = s;
			f->value = 1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* ---- the pass ----------------------------------------------------------------------------- */

static emu_vk_handler emu_vk_handler_of(enum sbt_vk_cmd cmd)
{
	switch (cmd) {
	case SBT_VK_CMD_vkQueueSubmit:
	case SBT_VK_CMD_vkQueueSubmit2:
	case SBT_VK_CMD_vkQueueSubmit2KHR:
		return emu_vk_r_submit;
	case SBT_VK_CMD_vkGetDeviceQueue:
	case SBT_VK_CMD_vkGetDeviceQueue2:
	case SBT_VK_CMD_vkWaitForFences:
	case SBT_VK_CMD_vkGetFenceStatus:
	case SBT_VK_CMD_vkQueueWaitIdle:
	case SBT_VK_CMD_vkDeviceWaitIdle:
	case SBT_VK_CMD_vkWaitSemaphores:
	case SBT_VK_CMD_vkWaitSemaphoresKHR:
	case SBT_VK_CMD_vkGetSemaphoreCounterValue:
	case SBT_VK_CMD_vkGetSemaphoreCounterValueKHR:
	case SBT_VK_CMD_vkSignalSemaphore:
	case SBT_VK_CMD_vkSignalSemaphoreKHR:
	case SBT_VK_CMD_vkQueuePresentKHR:
	case SBT_VK_CMD_vkQueueBindSparse:
	case SBT_VK_CMD_vkAcquireNextImageKHR:
	case SBT_VK_CMD_vkCreateSemaphore:
	case SBT_VK_CMD_vkCreateFence:
	case SBT_VK_CMD_vkResetFences:
		return emu_vk_r_sync;
	default:
		return emu_vk_cmd_handler(cmd); /* recording and objects: emu_vk_cmd.c */
	}
}

/* The record types the trace names "vulkan.<command>", mapped to commands. */
static emu_status emu_vk_types(emu_vk_builder *b)
{
	uint32_t type, max = 0, nvk = 0;
	const char *name;
	enum sbt_vk_cmd cmd;

	for (size_t i = 0; sbt_reader_type_at(b->g->r, i, &type, &name) == SBT_OK; i++)
		if (type > max && type < 0x100000)
			max = type;
	b->ntypes = max + 1;
	b->cmd_of = malloc(b->ntypes * sizeof(int16_t));
	if (!b->cmd_of)
		return EMU_ERR_NOMEM;
	for (uint32_t t = 0; t < b->ntypes; t++)
		b->cmd_of[t] = -1;
	for (size_t i = 0; sbt_reader_type_at(b->g->r, i, &type, &name) == SBT_OK; i++)
		if (type < b->ntypes && strncmp(name, "vulkan.", 7) == 0 && sbt_vk_cmd_by_name(name, &cmd) == 0) {
			b->cmd_of[type] = (int16_t)cmd;
			nvk++;
		}
	return nvk ? EMU_OK : EMU_ERR_NOT_CUDA;
}

static void emu_vk_builder_finish(emu_vk_builder *b)
{
	emu_vk_map *maps[] = { &b->buffers, &b->images, &b->bviews, &b->iviews, &b->sets, &b->cbs,
		               &b->queues, &b->sems, &b->fences, &b->swapchains, &b->rpasses, &b->fbs,
		               &b->tmpls, &b->modules, &b->pipes, &b->resvises, &b->layouts };

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		emu_vk_map_free(maps[i]);
	for (size_t i = 0; i < b->set.n; i++)
		free(b->set.v[i].d.v);
	for (size_t i = 0; i < b->tmpl.n; i++)
		free(b->tmpl.v[i].e.v);
	free(b->tmpl.v);
	for (size_t i = 0; i < b->shader.n; i++)
		free(b->shader.v[i].b.v);
	free(b->shader.v);
	for (size_t i = 0; i < b->cb.n; i++) {
		free(b->cb.v[i].items.v);
		free(b->cb.v[i].acc.v);
		free(b->cb.v[i].push[0].d.v);
		free(b->cb.v[i].push[1].d.v);
		free(b->cb.v[i].dynoff[0].v);
		free(b->cb.v[i].dynoff[1].v);
	}
	for (size_t i = 0; i < b->q.n; i++)
		free(b->q.v[i].batch_step.v);
	for (size_t i = 0; i < b->sem.n; i++)
		free(b->sem.v[i].sigs.v);
	for (size_t i = 0; i < b->rpass.n; i++) {
		free(b->rpass.v[i].deps.v);
		free(b->rpass.v[i].mode.v);
	}
	free(b->rpass.v);
	free(b->resvis.v);
	for (size_t i = 0; i < b->layout.n; i++)
		free(b->layout.v[i].dyn.v);
	free(b->layout.v);
	for (size_t i = 0; i < b->fb.n; i++)
		free(b->fb.v[i].att.v);
	free(b->fb.v);
	free(b->buffer_alloc.v);
	free(b->image.v);
	free(b->view.v);
	free(b->set.v);
	free(b->cb.v);
	free(b->q.v);
	free(b->sem.v);
	free(b->fence.v);
	free(b->present.v);
	free(b->present_key.v);
	emu_depvec_free(&b->tmp);
	free(b->tmp_sync.v);
	free(b->cmd_of);
	free(b->args);
	sbt_vk_arena_free(b->arena);
}

void emu_vk_free(struct emu_vk_graph *vk)
{
	if (!vk)
		return;
	free(vk->node.v);
	free(vk->accvis.v);
	free(vk->whole.v);
	free(vk->sync.v);
	free(vk->sync_link.v);
	free(vk->after_sync.v);
	free(vk->vis);
	for (size_t i = 0; vk->mbar && i < EMU_VK_QMAX; i++)
		free(vk->mbar[i].v);
	free(vk->mbar);
	free(vk);
}

emu_status emu_vk_build(emu_graph *g, sbt_mem *mem, char *err, size_t errlen)
{
	emu_vk_builder b;
	emu_status st;
	sbt_status ss;
	sbt_record rec;
	size_t argmax = 0;
	sbt_vk_reader_blobs blobs;
	sbt_vk_decode_hooks hooks = { &blobs, NULL, sbt_vk_load_reader_blob };

	memset(&b, 0, sizeof(b));
	b.g = g;
	b.err = err;
	b.errlen = errlen;
	st = emu_vk_types(&b);
	if (st != EMU_OK)
		goto out;
	g->vk = calloc(1, sizeof(*g->vk));
	if (!g->vk || !(g->vk->mbar = calloc(EMU_VK_QMAX, sizeof(emu_vk_mbarvec)))) {
		st = EMU_ERR_NOMEM;
		goto out;
	}
	b.vk = g->vk;
	for (uint32_t c = 0; c < SBT_VK_CMD_COUNT; c++)
		if (sbt_vk_args_size((enum sbt_vk_cmd)c) > argmax)
			argmax = sbt_vk_args_size((enum sbt_vk_cmd)c);
	b.args = malloc(argmax + 16);
	if (!b.args || sbt_vk_arena_create(0, &b.arena) != SBT_VK_OK) {
		st = EMU_ERR_NOMEM;
		goto out;
	}
	blobs.r = g->r;
	blobs.arena = b.arena;
	while ((ss = sbt_reader_next(g->r, &rec)) == SBT_OK) {
		enum sbt_vk_cmd cmd;
		emu_vk_handler h;
		sbt_vk_status vs;

		if (sbt_mem_record(mem, &rec, NULL) != 0 || emu_captimes_record(g, &rec) != 0) {
			st = EMU_ERR_NOMEM;
			goto out;
		}
		if (rec.type >= b.ntypes || b.cmd_of[rec.type] < 0)
			continue;
		cmd = (enum sbt_vk_cmd)b.cmd_of[rec.type];
		h = emu_vk_handler_of(cmd);
		if (!h)
			continue;
		b.rec = &rec;
		sbt_vk_arena_reset(b.arena);
		/* arrays the layer stored as blobs (1 KiB and more: shader code, a
		 * template update's data, many copy regions) are loaded; where the
		 * trace lacks one, they decode as absent */
		vs = sbt_vk_decode(cmd, rec.payload, rec.payload_len, b.arena, b.args, &hooks);
		if (vs == SBT_VK_ERR_BLOB) {
			sbt_vk_arena_reset(b.arena);
			vs = sbt_vk_decode(cmd, rec.payload, rec.payload_len, b.arena, b.args, NULL);
		}
		if (vs != SBT_VK_OK) {
			snprintf(err, errlen, "%s: seq %llu (%s): %s: %s%s%s", g->path, (unsigned long long)rec.seq,
			         sbt_reader_type_name(g->r, rec.type), emu_strerror(EMU_ERR_CORRUPT), sbt_vk_strerror(vs),
			         *sbt_vk_arena_message(b.arena) ? ": " : "", sbt_vk_arena_message(b.arena));
			st = EMU_ERR_CORRUPT;
			goto out;
		}
		err[0] = 0;
		if (h(&b, cmd) != 0) {
			if (err[0]) {
				char why[256];

				snprintf(why, sizeof(why), "%s", err);
				snprintf(err, errlen, "%s: %s", g->path, why);
				st = EMU_ERR_TRACE;
			} else {
				snprintf(err, errlen, "%s: seq %llu (%s): %s", g->path, (unsigned long long)rec.seq,
				         sbt_reader_type_name(g->r, rec.type), emu_strerror(EMU_ERR_NOMEM));
				st = EMU_ERR_NOMEM;
			}
			goto out;
		}
	}
	if (ss != SBT_END) {
		snprintf(err, errlen, "%s: %s: %s", g->path, sbt_strerror(ss), sbt_reader_message(g->r));
		st = EMU_ERR_TRACE;
		goto out;
	}
	st = EMU_OK;
out:
	emu_vk_builder_finish(&b);
	return st;
}

/* ---- order, for the race detector ---------------------------------------------------------- */

int emu_vk_before_full(const emu_graph *g, const emu_access *a, const emu_access *b)
{
	const emu_node *na = &g->nodes.v[a->node], *nb = &g->nodes.v[b->node];
	const emu_vk_node *va = &g->vk->node.v[a->node], *vb = &g->vk->node.v[b->node];

	return vb->vc[na->stream] >= va->batch || (na->stream == nb->stream && va->pos <= vb->floor);
}

void emu_vk_sofar_add(const emu_graph *g, emu_vk_sofar *s, const emu_access *a)
{
	const emu_vk_node *va = &g->vk->node.v[a->node];

	s->any |= (uint8_t)(1u << va->cls);
	if (a->mode & (EMU_A_WRITE | EMU_A_MAYWRITE))
		s->wrote[va->cls] = va->pos;
}

int emu_vk_covers(const emu_graph *g, const emu_access *a, const emu_vk_sofar *s, const emu_access *b)
{
	const emu_vk_node *va = &g->vk->node.v[a->node], *vb = &g->vk->node.v[b->node];
	const emu_vk_accvis *bv;
	int bw = !!(b->mode & (EMU_A_WRITE | EMU_A_MAYWRITE));

	if (g->nodes.v[a->node].stream != g->nodes.v[b->node].stream || g->vk->accvis.n != g->acc.n ||
	    b < g->acc.v || b >= g->acc.v + g->acc.n)
		return 0;
	bv = &g->vk->accvis.v[b - g->acc.v];
	for (uint32_t c = 0; c < EMU_VK_CLASSES; c++) {
		uint32_t w = s->wrote[c];

		if (w && (vb->reach[c] < w || bv->vis[c] < w))
			return 0; /* a write not ordered before b, or not visible to it */
		if (bw && (s->any & (1u << c)) && vb->reach[c] < va->pos)
			return 0; /* b writes: every access before it (up to a, at most) */
	}
	return 1;
}

int emu_vk_before(const emu_graph *g, const emu_access *a, const emu_access *b, int *full)
{
	const emu_node *na = &g->nodes.v[a->node], *nb = &g->nodes.v[b->node];
	const emu_vk_node *va = &g->vk->node.v[a->node], *vb = &g->vk->node.v[b->node];
	const emu_vk_mbarvec *mb;
	emu_vk_vis one = { 0, { 0 }, 0 }, *v;
	size_t lo, hi, i;

	*full = 0;
	if (emu_vk_before_full(g, a, b)) {
		*full = 1;
		return 1;
	}
	if (na->stream != nb->stream || vb->reach[va->cls] < va->pos)
		return 0;
	/* ordered by barriers: a read before a write needs nothing more; a
	 * write needs memory barriers between them that cover its resource: one
	 * that makes it available, and one that makes it visible to b's class,
	 * the same barrier or a later one chained to it: its first scope takes
	 * in a class the availability has reached, the first's second scope or
	 * that of any barrier (on any resource, or none) chained on from it (a
	 * write made available to compute shaders, then compute writes made
	 * visible to transfers: a copy, a dispatch on what it wrote, a copy
	 * out). */
	if (!(a->mode & (EMU_A_WRITE | EMU_A_MAYWRITE)))
		return 1;
	mb = &g->vk->mbar[na->stream];
	if (!g->vk->vis && (g->vk->vis = calloc(g->acc.n, sizeof(emu_vk_vis))) != NULL)
		g->vk->nvis = g->acc.n;
	if (a >= g->acc.v && (size_t)(a - g->acc.v) < g->vk->nvis)
		v = &g->vk->vis[a - g->acc.v];
	else
		v = &one; /* out of memory, or not one of g's accesses: looked at anew */
	if (!v->next) {
		lo = 0;
		hi = mb->n;
		while (lo < hi) { /* the first barrier after a */
			size_t mid = (lo + hi) / 2;

			if (mb->v[mid].after < va->pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		v->next = (uint32_t)lo + 1;
	}
	if (v->at[vb->cls])
		return mb->v[v->at[vb->cls] - 1].after < vb->pos;
	for (i = v->next - 1; i < mb->n && mb->v[i].after < vb->pos; i++) {
		const emu_vk_mbar *m = &mb->v[i];
		int covers = m->global || (m->alloc == a->alloc && m->lo < a->hi && a->lo < m->hi);
		int made = covers && (m->srcw & (1u << va->cls));

		for (uint32_t k = 0; covers && k < EMU_VK_CLASSES; k++)
			if (!v->at[k] && (m->dsta & (1u << k)) && (made || (m->src & v->avail)))
				v->at[k] = (uint32_t)i + 1;
		if (made || (m->src & v->avail))
			v->avail |= m->dst;
		if (v->at[vb->cls]) {
			v->next = (uint32_t)i + 2;
			return 1;
		}
	}
	v->next = (uint32_t)i + 1;
	return 0;
}
