/*
 * tcu_track.c - what recording needs to remember between calls: live
 * allocations (for keyframes and for naming a checkpoint's allocation),
 * functions and their parameter layouts, events, device->host copies whose
 * checkpoint waits for a synchronization; and the keyframes themselves.
 * Locking is described in tcu_internal.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

/* ---- sorted map ----------------------------------------------------------- */

/* Index of the first key >= key. */
static size_t tcu_map_lower(const tcu_map *m, uint64_t key)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void *tcu_map_get(const tcu_map *m, uint64_t key)
{
	size_t i = tcu_map_lower(m, key);
	return i < m->n && m->keys[i] == key ? m->vals[i] : NULL;
}

void *tcu_map_put(tcu_map *m, uint64_t key, void *val)
{
	size_t i = tcu_map_lower(m, key);
	if (i < m->n && m->keys[i] == key) {
		void *old = m->vals[i];
		m->vals[i] = val;
		return old;
	}
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		uint64_t *k = realloc(m->keys, cap * sizeof(*k));
		void **v;
		if (!k)
			return val;
		m->keys = k;
		v = realloc(m->vals, cap * sizeof(*v));
		if (!v)
			return val;
		m->vals = v;
		m->cap = cap;
	}
	memmove(m->keys + i + 1, m->keys + i, (m->n - i) * sizeof(*m->keys));
	memmove(m->vals + i + 1, m->vals + i, (m->n - i) * sizeof(*m->vals));
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return NULL;
}

void *tcu_map_del(tcu_map *m, uint64_t key)
{
	size_t i = tcu_map_lower(m, key);
	void *v;
	if (i >= m->n || m->keys[i] != key)
		return NULL;
	v = m->vals[i];
	memmove(m->keys + i, m->keys + i + 1, (m->n - i - 1) * sizeof(*m->keys));
	memmove(m->vals + i, m->vals + i + 1, (m->n - i - 1) * sizeof(*m->vals));
	m->n--;
	return v;
}

/* ---- allocations ------------------------------------------------------------ */

void tcu_alloc_add(uint64_t base, uint64_t size, unsigned kind)
{
	tcu_alloc *a = malloc(sizeof(*a));
	if (!a) {
		CAP_ERROR("cuda: out of memory tracking an allocation at 0x%" PRIx64, base);
		return;
	}
	a->base = base;
	a->size = size;
	a->kind = kind;
	pthread_mutex_lock(&tcu_g.mu);
	free(tcu_map_put(&tcu_g.allocs, base, a));
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_alloc_del(uint64_t base)
{
	pthread_mutex_lock(&tcu_g.mu);
	free(tcu_map_del(&tcu_g.allocs, base));
	pthread_mutex_unlock(&tcu_g.mu);
}

int tcu_alloc_find(uint64_t addr, uint64_t *base_out, unsigned *kind_out)
{
	int found = 0;
	size_t i;
	pthread_mutex_lock(&tcu_g.mu);
	i = tcu_map_lower(&tcu_g.allocs, addr);
	if (i < tcu_g.allocs.n && tcu_g.allocs.keys[i] == addr)
		i++;
	if (i > 0) {
		const tcu_alloc *a = tcu_g.allocs.vals[i - 1];
		if (addr >= a->base && addr - a->base < (a->size ? a->size : 1)) {
			*base_out = a->base;
			*kind_out = a->kind;
			found = 1;
		}
	}
	pthread_mutex_unlock(&tcu_g.mu);
	return found;
}

static int tcu_kind_is_device(unsigned kind)
{
	return kind != SBT_CM_MEM_HOST && kind != SBT_CM_MEM_HOST_ALLOC &&
	       kind != SBT_CM_MEM_HOST_REGISTER && kind != SBT_CM_MEM_VMM_RESERVE &&
	       kind != SBT_CM_MEM_VMM_HANDLE;
}

int tcu_addr_is_device(uint64_t addr)
{
	uint64_t base;
	unsigned kind;
	return tcu_alloc_find(addr, &base, &kind) && tcu_kind_is_device(kind);
}

/* ---- functions ----------------------------------------------------------------- */

void tcu_func_note(uint64_t handle, const char *name, int is_kernel)
{
	tcu_func *f = calloc(1, sizeof(*f)), *old;
	if (!f)
		return;
	f->name = name ? strdup(name) : NULL;
	f->is_kernel = is_kernel;
	pthread_mutex_lock(&tcu_g.mu);
	old = tcu_map_put(&tcu_g.funcs, handle, f);
	pthread_mutex_unlock(&tcu_g.mu);
	if (old == f) { /* not stored */
		free(f->name);
		free(f);
	} else if (old) {
		free(old->name);
		free(old->layout);
		free(old);
	}
}

/* Ask the driver for the parameter layout: index by index until it says
 * there is no such parameter. */
static int tcu_query_layout(uint64_t handle, int is_kernel, uint8_t **layout_out, uint32_t *n_out,
                            size_t *bytes_out)
{
	uint8_t *layout = NULL;
	uint32_t n = 0;
	size_t bytes = 0;
	for (;;) {
		size_t off = 0, size = 0;
		CUresult r;
		void *fn = tcu_own(is_kernel ? TCU_FN_cuKernelGetParamInfo : TCU_FN_cuFuncGetParamInfo);
		if (!fn)
			goto out_unknown;
		if (is_kernel)
			r = ((tcu_pfn_cuKernelGetParamInfo)fn)((CUkernel)(uintptr_t)handle, n, &off, &size);
		else
			r = ((tcu_pfn_cuFuncGetParamInfo)fn)((CUfunction)(uintptr_t)handle, n, &off, &size);
		if (r == CUDA_ERROR_INVALID_VALUE)
			break; /* past the last parameter */
		if (r != CUDA_SUCCESS || n >= TCU_MAX_PARAMS || off > UINT32_MAX || size > UINT32_MAX)
			goto out_unknown;
		{
			uint8_t *l = realloc(layout, (size_t)(n + 1) * SBT_CM_LAYOUT_BYTES);
			if (!l)
				goto out_unknown;
			layout = l;
		}
		sbt_cm_layout_put(layout + (size_t)n * SBT_CM_LAYOUT_BYTES, (uint32_t)off, (uint32_t)size);
		if (off + size > bytes)
			bytes = off + size;
		n++;
	}
	*layout_out = layout;
	*n_out = n;
	*bytes_out = bytes;
	return 1;
out_unknown:
	free(layout);
	return -1;
}

void tcu_func_layout(uint64_t handle, char *name, size_t name_len, uint8_t **layout_out,
                     uint32_t *n_out, size_t *bytes_out, int *is_kernel_out)
{
	tcu_func *f;
	int state, is_kernel = 0;
	uint8_t *layout = NULL;
	uint32_t n = 0;
	size_t bytes = 0;

	name[0] = 0;
	*layout_out = NULL;
	*n_out = 0;
	*bytes_out = 0;
	pthread_mutex_lock(&tcu_g.mu);
	f = tcu_map_get(&tcu_g.funcs, handle);
	state = f ? f->layout_state : 0;
	if (f) {
		is_kernel = f->is_kernel;
		if (f->name)
			snprintf(name, name_len, "%s", f->name);
	}
	pthread_mutex_unlock(&tcu_g.mu);
	*is_kernel_out = is_kernel;
	if (state == 0) {
		state = tcu_query_layout(handle, is_kernel, &layout, &n, &bytes);
		if (!f)
			tcu_func_note(handle, NULL, 0);
		pthread_mutex_lock(&tcu_g.mu);
		f = tcu_map_get(&tcu_g.funcs, handle);
		if (f && f->layout_state == 0) {
			f->layout_state = state;
			f->layout = layout;
			f->nparams = n;
			f->param_bytes = bytes;
			layout = NULL;
		}
		pthread_mutex_unlock(&tcu_g.mu);
		free(layout);
	}
	pthread_mutex_lock(&tcu_g.mu);
	f = tcu_map_get(&tcu_g.funcs, handle);
	if (f && f->layout_state == 1) {
		*layout_out = malloc(f->nparams ? (size_t)f->nparams * SBT_CM_LAYOUT_BYTES : 1);
		if (*layout_out) {
			if (f->nparams)
				memcpy(*layout_out, f->layout, (size_t)f->nparams * SBT_CM_LAYOUT_BYTES);
			*n_out = f->nparams;
			*bytes_out = f->param_bytes;
		}
	}
	pthread_mutex_unlock(&tcu_g.mu);
}

/* ---- events and pending checkpoints ------------------------------------------- */

void tcu_event_note(uint64_t event, uint64_t stream, uint64_t seq)
{
	tcu_event *e = malloc(sizeof(*e));
	if (!e)
		return;
	e->stream = stream;
	e->seq = seq;
	pthread_mutex_lock(&tcu_g.mu);
	free(tcu_map_put(&tcu_g.events, event, e));
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_checkpoint_dtoh(uint64_t call_seq, uint64_t src, const void *host, size_t len)
{
	uint64_t base = 0;
	unsigned kind;
	if (!call_seq || !host)
		return;
	if (!tcu_alloc_find(src, &base, &kind))
		base = 0;
	cap_checkpoint(call_seq, base, src - base, host, len);
}

void tcu_pending_add(uint64_t call_seq, uint64_t stream, uint64_t src, const void *host, size_t len)
{
	uint64_t base = 0;
	unsigned kind;
	if (!call_seq)
		return;
	if (!tcu_alloc_find(src, &base, &kind))
		base = 0;
	pthread_mutex_lock(&tcu_g.mu);
	if (tcu_g.npending == tcu_g.cap_pending) {
		size_t cap = tcu_g.cap_pending ? tcu_g.cap_pending * 2 : 16;
		tcu_pending *p = realloc(tcu_g.pending, cap * sizeof(*p));
		if (!p) {
			pthread_mutex_unlock(&tcu_g.mu);
			CAP_ERROR("cuda: out of memory: no checkpoint for the copy of call %" PRIu64,
			          call_seq);
			return;
		}
		tcu_g.pending = p;
		tcu_g.cap_pending = cap;
	}
	tcu_g.pending[tcu_g.npending++] = (tcu_pending){call_seq, stream, base, src - base, host, len};
	pthread_mutex_unlock(&tcu_g.mu);
}

/* Take the matching entries out (under mu), then hash them (outside it),
 * oldest first. */
static void tcu_pending_flush(int all, uint64_t stream, uint64_t seq_limit)
{
	tcu_pending *take = NULL;
	size_t ntake = 0, keep = 0;
	pthread_mutex_lock(&tcu_g.mu);
	if (tcu_g.npending)
		take = malloc(tcu_g.npending * sizeof(*take));
	for (size_t i = 0; i < tcu_g.npending; i++) {
		const tcu_pending *p = &tcu_g.pending[i];
		if (take && (all || (p->stream == stream && p->call_seq < seq_limit)))
			take[ntake++] = *p;
		else
			tcu_g.pending[keep++] = *p;
	}
	tcu_g.npending = keep;
	pthread_mutex_unlock(&tcu_g.mu);
	for (size_t i = 0; i < ntake; i++)
		cap_checkpoint(take[i].call_seq, take[i].object, take[i].offset, take[i].host, take[i].len);
	free(take);
}

void tcu_pending_flush_stream(uint64_t stream, uint64_t seq_limit)
{
	tcu_pending_flush(0, stream, seq_limit);
}

void tcu_pending_flush_all(void)
{
	tcu_pending_flush(1, 0, 0);
}

void tcu_pending_flush_event(uint64_t event)
{
	tcu_event e = {0, 0};
	int known = 0;
	pthread_mutex_lock(&tcu_g.mu);
	{
		const tcu_event *p = tcu_map_get(&tcu_g.events, event);
		if (p) {
			e = *p;
			known = 1;
		}
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (known)
		tcu_pending_flush(0, e.stream, e.seq);
}

void tcu_pending_drop_all(void)
{
	pthread_mutex_lock(&tcu_g.mu);
	tcu_g.dropped_pending += tcu_g.npending;
	tcu_g.npending = 0;
	pthread_mutex_unlock(&tcu_g.mu);
}

/* ---- keyframes ---------------------------------------------------------------- */

static CUresult tcu_sync_stream(CUstream s, int ptds)
{
	void *fn = tcu_own(ptds ? TCU_FN_cuStreamSynchronize_ptsz : TCU_FN_cuStreamSynchronize);
	return fn ? ((tcu_pfn_cuStreamSynchronize)fn)(s) : CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * Every live device allocation, copied through the recorder's own
 * non-blocking stream after the launch's stream has drained, into the
 * blob store (which stores unchanged pages once).  Called with no lock
 * held; takes kf_mu so keyframes never interleave.
 */
static void tcu_keyframe(unsigned why, uint64_t ordinal, CUstream stream, int ptds)
{
	tcu_alloc *list = NULL;
	size_t n = 0;
	sbt_cm_call kf;
	uint8_t buf[256];
	size_t len = 0;

	pthread_mutex_lock(&tcu_g.kf_mu);
	tcu_sync_stream(stream, ptds);
	if (!tcu_g.kf_stream) {
		void *create = tcu_own(TCU_FN_cuStreamCreate);
		if (!create || ((tcu_pfn_cuStreamCreate)create)(&tcu_g.kf_stream, CU_STREAM_NON_BLOCKING) !=
		                   CUDA_SUCCESS) {
			CAP_ERROR("cuda: cannot create the recorder's stream: keyframe %u skipped", why);
			tcu_g.kf_stream = NULL;
			goto out_unlock;
		}
	}
	pthread_mutex_lock(&tcu_g.mu);
	list = malloc((tcu_g.allocs.n ? tcu_g.allocs.n : 1) * sizeof(*list));
	for (size_t i = 0; list && i < tcu_g.allocs.n; i++) {
		const tcu_alloc *a = tcu_g.allocs.vals[i];
		if (tcu_kind_is_device(a->kind) && a->size)
			list[n++] = *a;
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (!list) {
		CAP_ERROR("cuda: out of memory: keyframe skipped");
		goto out_unlock;
	}
	sbt_cm_call_init(&kf);
	kf.count = n;
	kf.sub = why;
	kf.value = ordinal;
	kf.stream = (uint64_t)(uintptr_t)stream;
	if (sbt_cm_encode(&kf, buf, sizeof(buf), &len) != SBT_OK)
		goto out_free;
	cap_keyframe_begin(buf, len);
	for (size_t i = 0; i < n; i++) {
		sbt_cm_call c;
		void *data = malloc(list[i].size);
		void *copy = data ? tcu_own(TCU_FN_cuMemcpyDtoHAsync_v2) : NULL;
		CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
		sbt_cm_call_init(&c);
		c.dst = list[i].base;
		c.size = list[i].size;
		c.sub = list[i].kind;
		if (data && copy) {
			r = ((tcu_pfn_cuMemcpyDtoHAsync_v2)copy)(data, list[i].base, list[i].size,
			                                          tcu_g.kf_stream);
			if (r == CUDA_SUCCESS)
				r = tcu_sync_stream(tcu_g.kf_stream, 0);
		}
		if (r == CUDA_SUCCESS) {
			c.blob = cap_blob(data, list[i].size);
		} else {
			c.result = (uint64_t)r;
			c.note = (const uint8_t *)"could not be read";
			c.note_len = strlen("could not be read");
		}
		free(data);
		tcu_emit(SBT_CM_K_tsSnapshot, TCU_FN_cuMemcpyDtoHAsync_v2, &c, 0);
	}
	tcu_g.keyframes++;
out_free:
	free(list);
out_unlock:
	pthread_mutex_unlock(&tcu_g.kf_mu);
}

uint64_t tcu_launch_before(CUstream stream, int ptds, int *capturing_out, uint64_t *capture_id_out)
{
	uint64_t ordinal = atomic_fetch_add(&tcu_g.launches, 1) + 1;
	const cap_config *cfg = cap_config_get();
	void *is = tcu_own(ptds ? TCU_FN_cuStreamIsCapturing_ptsz : TCU_FN_cuStreamIsCapturing);
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	*capturing_out = 0;
	*capture_id_out = 0;
	if (is && ((tcu_pfn_cuStreamIsCapturing)is)(stream, &st) == CUDA_SUCCESS &&
	    st != CU_STREAM_CAPTURE_STATUS_NONE) {
		void *info = tcu_own(ptds ? TCU_FN_cuStreamGetCaptureInfo_v3_ptsz
		                          : TCU_FN_cuStreamGetCaptureInfo_v3);
		cuuint64_t cid = 0;
		*capturing_out = (int)st;
		if (info && ((tcu_pfn_cuStreamGetCaptureInfo_v3)info)(stream, &st, &cid, NULL, NULL, NULL, NULL) ==
		        CUDA_SUCCESS)
			*capture_id_out = cid;
		/* No keyframe: the launch is not executed now, and the recorder
		 * must not synchronize a capturing stream. */
		return ordinal;
	}
	if (atomic_exchange(&tcu_g.start_keyframe_taken, 1) == 0)
		tcu_keyframe(SBT_CM_KF_START, ordinal, stream, ptds);
	else if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		tcu_keyframe(SBT_CM_KF_BEFORE_LAUNCH, ordinal, stream, ptds);
	return ordinal;
}

void tcu_launch_after(uint64_t ordinal, CUstream stream, int ptds, int capturing)
{
	const cap_config *cfg = cap_config_get();
	if (capturing)
		return;
	if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		tcu_keyframe(SBT_CM_KF_AFTER_LAUNCH, ordinal, stream, ptds);
	else if (cfg->snapshot == CAP_SNAPSHOT_EVERY && cfg->snapshot_every &&
	         ordinal % cfg->snapshot_every == 0)
		tcu_keyframe(SBT_CM_KF_EVERY, ordinal, stream, ptds);
}
