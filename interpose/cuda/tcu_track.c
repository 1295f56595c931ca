/*
 * tcu_track.c - what recording needs to remember between calls: live
 * allocations (for keyframes and for naming a checkpoint's allocation),
 * functions and their parameter layouts (looked up without a lock: every
 * launch needs them), events, device->host copies whose checkpoint waits
 * for a synchronization; and the keyframes themselves.
 * Locking is described in tcu_internal.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interpose/cuda/tcu_internal.h"

/* ---- allocations ------------------------------------------------------------ */

/* Pinned host memory: kernels may read it directly (tcu_host_inputs). */
static int tcu_kind_is_host(unsigned kind)
{
	return kind == SBT_CM_MEM_HOST || kind == SBT_CM_MEM_HOST_ALLOC ||
	       kind == SBT_CM_MEM_HOST_REGISTER;
}

/* Free an entry taken out of the map (mu held), keeping launch_gate's
 * count of live pinned host memory. */
static void tcu_alloc_forget_locked(tcu_alloc *a)
{
	if (a && tcu_kind_is_host(a->kind))
		atomic_fetch_sub_explicit(&tcu_g.launch_gate, TCU_GATE_HOST_ONE, memory_order_relaxed);
	free(a);
}

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
	a->recorded = cap_active();
	pthread_mutex_lock(&tcu_g.mu);
	tcu_alloc_forget_locked(cap_umap_put(&tcu_g.allocs, base, a));
	if (tcu_kind_is_host(kind))
		atomic_fetch_add_explicit(&tcu_g.launch_gate, TCU_GATE_HOST_ONE, memory_order_relaxed);
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_alloc_del(uint64_t base)
{
	pthread_mutex_lock(&tcu_g.mu);
	tcu_alloc_forget_locked(cap_umap_del(&tcu_g.allocs, base));
	pthread_mutex_unlock(&tcu_g.mu);
}

/* The allocation holding addr (a size-0 one holds its base), or NULL; mu held. */
static const tcu_alloc *tcu_alloc_at_locked(uint64_t addr)
{
	size_t i = cap_umap_lower(&tcu_g.allocs, addr);
	const tcu_alloc *a;
	if (i < tcu_g.allocs.n && tcu_g.allocs.keys[i] == addr)
		i++;
	if (i == 0)
		return NULL;
	a = tcu_g.allocs.vals[i - 1];
	return addr >= a->base && addr - a->base < (a->size ? a->size : 1) ? a : NULL;
}

int tcu_alloc_find(uint64_t addr, uint64_t *base_out, unsigned *kind_out)
{
	const tcu_alloc *a;
	int found = 0;
	pthread_mutex_lock(&tcu_g.mu);
	a = tcu_alloc_at_locked(addr);
	if (a) {
		*base_out = a->base;
		*kind_out = a->kind;
		found = 1;
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

/* ---- lock-free map ------------------------------------------------------------ */

#define TCU_LF_FIRST_BITS 8

static size_t tcu_lf_hash(uint64_t key, unsigned bits)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

void *tcu_lfmap_get(const tcu_lfmap *m, uint64_t key)
{
	const tcu_lftab *t = atomic_load_explicit(&m->tab, memory_order_acquire);
	size_t mask, i;
	if (!t || !key)
		return NULL;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = tcu_lf_hash(key, t->bits);; i = (i + 1) & mask) {
		uint64_t k = atomic_load_explicit(&t->slot[i].key, memory_order_acquire);
		if (k == key)
			return atomic_load_explicit(&t->slot[i].val, memory_order_acquire);
		if (!k)
			return NULL; /* at most half full: an empty slot always ends the probe */
	}
}

static tcu_lftab *tcu_lftab_new(unsigned bits)
{
	tcu_lftab *t = calloc(1, sizeof(*t) + ((size_t)1 << bits) * sizeof(t->slot[0]));
	if (t)
		t->bits = bits;
	return t;
}

/* Fill a new (unpublished) table's slot for key; the caller counts it. */
static void tcu_lftab_place(tcu_lftab *t, uint64_t key, void *val)
{
	size_t mask = ((size_t)1 << t->bits) - 1, i = tcu_lf_hash(key, t->bits);
	while (atomic_load_explicit(&t->slot[i].key, memory_order_relaxed))
		i = (i + 1) & mask;
	atomic_store_explicit(&t->slot[i].val, val, memory_order_relaxed);
	atomic_store_explicit(&t->slot[i].key, key, memory_order_relaxed);
	t->used++;
}

void *tcu_lfmap_put_locked(tcu_lfmap *m, uint64_t key, void *val, int *failed)
{
	tcu_lftab *t = atomic_load_explicit(&m->tab, memory_order_relaxed);
	size_t mask, i;
	*failed = 0;
	if (!key)
		goto out_fail;
	if (t) {
		mask = ((size_t)1 << t->bits) - 1;
		for (i = tcu_lf_hash(key, t->bits);; i = (i + 1) & mask) {
			uint64_t k = atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);
			if (k == key) {
				void *old = atomic_load_explicit(&t->slot[i].val, memory_order_relaxed);
				atomic_store_explicit(&t->slot[i].val, val, memory_order_release);
				return old;
			}
			if (!k)
				break;
		}
	}
	if (!t || (t->used + 1) * 2 > ((size_t)1 << t->bits)) {
		/* Grow into a new table, publish it, keep the old one readable. */
		tcu_lftab *nt = tcu_lftab_new(t ? t->bits + 1 : TCU_LF_FIRST_BITS);
		if (!nt)
			goto out_fail;
		for (size_t j = 0; t && j < ((size_t)1 << t->bits); j++) {
			uint64_t k = atomic_load_explicit(&t->slot[j].key, memory_order_relaxed);
			if (k)
				tcu_lftab_place(nt, k, atomic_load_explicit(&t->slot[j].val, memory_order_relaxed));
		}
		nt->prev = t;
		atomic_store_explicit(&m->tab, nt, memory_order_release);
		t = nt;
	}
	mask = ((size_t)1 << t->bits) - 1;
	for (i = tcu_lf_hash(key, t->bits); atomic_load_explicit(&t->slot[i].key, memory_order_relaxed);
	     i = (i + 1) & mask)
		;
	/* The value before the key: a reader that sees the key sees the value. */
	atomic_store_explicit(&t->slot[i].val, val, memory_order_release);
	atomic_store_explicit(&t->slot[i].key, key, memory_order_release);
	t->used++;
	return NULL;
out_fail:
	*failed = -1;
	return NULL;
}

/* ---- functions ----------------------------------------------------------------- */

static tcu_func *tcu_func_new(uint64_t handle, const char *name, int is_kernel)
{
	size_t len = name ? strlen(name) : 0;
	size_t head_max = 2 * TCU_ENC_FIELD_MAX + len;
	tcu_func *f = malloc(sizeof(*f) + head_max + (name ? len + 1 : 0));
	char *copy;
	if (!f)
		return NULL;
	f->handle = handle;
	f->is_kernel = is_kernel;
	f->unloads = atomic_load(&tcu_g.unloads);
	atomic_init(&f->layout, NULL);
	f->retired_next = NULL;
	f->head_len = tcu_enc_head(f->head, handle, name, len);
	f->name = NULL;
	f->name_len = 0;
	if (name) {
		copy = (char *)f->head + head_max;
		memcpy(copy, name, len + 1);
		f->name = copy;
		f->name_len = len;
	}
	return f;
}

/* With mu held: store f for its handle (replace_existing 0: only when the
 * handle has no entry).  The entry now stored, or NULL. */
static tcu_func *tcu_func_store_locked(tcu_func *f, int replace_existing)
{
	tcu_func *old = tcu_lfmap_get(&tcu_g.funcs, f->handle);
	int failed;
	if (old && !replace_existing) {
		free(f);
		return old;
	}
	old = tcu_lfmap_put_locked(&tcu_g.funcs, f->handle, f, &failed);
	if (failed) {
		free(f);
		return NULL;
	}
	atomic_fetch_add_explicit(&tcu_g.funcs_gen, 1, memory_order_relaxed);
	if (old) {
		old->retired_next = tcu_g.funcs_retired;
		tcu_g.funcs_retired = old;
	}
	return f;
}

/* The entry already says this (programs ask for the same function again
 * and again: that must not grow anything). */
static int tcu_func_same(const tcu_func *f, const char *name, int is_kernel)
{
	return f->is_kernel == is_kernel && f->unloads == atomic_load(&tcu_g.unloads) &&
	       (name ? f->name && strcmp(f->name, name) == 0 : !f->name);
}

void tcu_func_note(uint64_t handle, const char *name, int is_kernel)
{
	tcu_func *f = tcu_lfmap_get(&tcu_g.funcs, handle);
	if (!handle || (f && tcu_func_same(f, name, is_kernel)))
		return;
	f = tcu_func_new(handle, name, is_kernel);
	if (!f)
		return;
	pthread_mutex_lock(&tcu_g.mu);
	tcu_func_store_locked(f, 1);
	pthread_mutex_unlock(&tcu_g.mu);
}

__thread __attribute__((tls_model("initial-exec"))) tcu_func_cache tcu_tls_func;

/* Keep f, found for handle while funcs_gen was gen, in this thread's
 * cache, once its layout is published (the cache holds none without). */
static void tcu_func_cache_put(uint64_t handle, uint64_t gen, tcu_func *f)
{
	const tcu_layout *lay = atomic_load_explicit(&f->layout, memory_order_acquire);
	if (!lay)
		return;
	tcu_tls_func.handle = handle;
	tcu_tls_func.gen = gen;
	tcu_tls_func.f = f;
	tcu_tls_func.lay = lay;
}

tcu_func *tcu_func_get_slow(uint64_t handle)
{
	uint64_t gen = atomic_load_explicit(&tcu_g.funcs_gen, memory_order_relaxed);
	tcu_func *f = tcu_lfmap_get(&tcu_g.funcs, handle);
	if (f) {
		tcu_func_cache_put(handle, gen, f);
		return f;
	}
	if (!handle)
		return NULL;
	/* A handle obtained in a way we did not see: nameless, a function. */
	f = tcu_func_new(handle, NULL, 0);
	if (!f)
		return NULL;
	pthread_mutex_lock(&tcu_g.mu);
	f = tcu_func_store_locked(f, 0);
	pthread_mutex_unlock(&tcu_g.mu);
	return f;
}

const tcu_layout *tcu_func_launch_layout_slow(uint64_t handle)
{
	uint64_t gen = atomic_load_explicit(&tcu_g.funcs_gen, memory_order_relaxed);
	tcu_func *f = tcu_func_get(handle);
	const tcu_layout *lay;
	if (!f)
		return NULL;
	lay = tcu_func_layout(f);
	tcu_func_cache_put(handle, gen, f);
	return lay;
}

/* Out of memory for a function's own unknown layout: its launches are
 * recorded as a handle alone (enc.head NULL). */
static const tcu_layout tcu_layout_unknown = {-1, 0, 0, NULL, NULL, 0, {NULL, NULL, 0, 0, 0}};

/* Ask the driver for the parameter layout: index by index until it says
 * there is no such parameter.  NULL when it cannot say. */
static tcu_layout *tcu_query_layout(uint64_t handle, int is_kernel)
{
	tcu_enc_param *pl = NULL;
	tcu_layout *l;
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
		if (r != CUDA_SUCCESS || n >= TCU_MAX_PARAMS || off > UINT32_MAX || size > UINT32_MAX ||
		    off + size > UINT32_MAX)
			goto out_unknown;
		{
			tcu_enc_param *p = realloc(pl, (size_t)(n + 1) * sizeof(*p));
			if (!p)
				goto out_unknown;
			pl = p;
		}
		pl[n].offset = (uint32_t)off;
		pl[n].size = (uint32_t)size;
		if (off + size > bytes)
			bytes = off + size;
		n++;
	}
	/* One block: the struct, the entries, the encoded field. */
	l = malloc(sizeof(*l) + (size_t)n * sizeof(*pl) + TCU_ENC_FIELD_MAX +
	           (size_t)n * SBT_CM_LAYOUT_BYTES);
	if (!l)
		goto out_unknown;
	l->known = 1;
	l->nparams = n;
	l->param_bytes = bytes;
	l->pl = (tcu_enc_param *)(l + 1);
	if (n)
		memcpy(l->pl, pl, (size_t)n * sizeof(*pl));
	l->field = (uint8_t *)(l->pl + n);
	l->field_len = tcu_enc_layout(l->field, l->pl, n);
	free(pl);
	return l;
out_unknown:
	free(pl);
	return NULL;
}

const tcu_layout *tcu_func_layout_slow(tcu_func *f)
{
	const tcu_layout *l;
	const tcu_layout *expected = NULL;
	tcu_layout *mine;
	mine = tcu_query_layout(f->handle, f->is_kernel);
	if (!mine && (mine = calloc(1, sizeof(*mine))) != NULL)
		mine->known = -1;
	if (mine) {
		/* Built before it is published: a launch record points at it. */
		mine->enc.head = f->head;
		mine->enc.head_len = (uint32_t)f->head_len;
		mine->enc.layout = mine->known > 0 ? mine->field : NULL;
		mine->enc.layout_len = mine->known > 0 ? (uint32_t)mine->field_len : 0;
		mine->enc.sub = f->is_kernel ? SBT_CM_FUNC_KERNEL : SBT_CM_FUNC_FUNCTION;
	}
	l = mine ? mine : &tcu_layout_unknown;
	/* Two first launches at once both ask; the first answer stays. */
	if (!atomic_compare_exchange_strong_explicit(&f->layout, &expected, l, memory_order_acq_rel,
	                                             memory_order_acquire)) {
		free(mine);
		l = expected;
	}
	return l;
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
	free(cap_umap_put(&tcu_g.events, event, e));
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

/* ---- CUDA arrays, for keyframes ------------------------------------------------ */

static uint64_t tcu_format_bytes(CUarray_format f)
{
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

void tcu_array_add(uint64_t handle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	tcu_array a = {handle, 0, d->Height ? d->Height : 1, d->Depth ? d->Depth : 1};
	if (__builtin_mul_overflow((uint64_t)d->Width, tcu_format_bytes(d->Format) * d->NumChannels,
	                           &a.row_bytes))
		a.row_bytes = 0;
	pthread_mutex_lock(&tcu_g.mu);
	if (tcu_g.narrays == tcu_g.cap_arrays) {
		size_t cap = tcu_g.cap_arrays ? tcu_g.cap_arrays * 2 : 8;
		tcu_array *n = realloc(tcu_g.arrays, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&tcu_g.mu);
			CAP_ERROR("cuda: out of memory: keyframes will not hold the CUDA array 0x%" PRIx64, handle);
			return;
		}
		tcu_g.arrays = n;
		tcu_g.cap_arrays = cap;
	}
	tcu_g.arrays[tcu_g.narrays++] = a;
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_array_drop(uint64_t handle)
{
	pthread_mutex_lock(&tcu_g.mu);
	for (size_t i = 0; i < tcu_g.narrays; i++)
		if (tcu_g.arrays[i].handle == handle) {
			memmove(&tcu_g.arrays[i], &tcu_g.arrays[i + 1], (tcu_g.narrays - i - 1) * sizeof(tcu_array));
			tcu_g.narrays--;
			break;
		}
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_pending_add_at(uint64_t call_seq, uint64_t stream, uint64_t object, uint64_t offset,
                        const void *host, size_t len)
{
	if (!call_seq)
		return;
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
	tcu_g.pending[tcu_g.npending++] = (tcu_pending){call_seq, stream, object, offset, host, len};
	pthread_mutex_unlock(&tcu_g.mu);
}

void tcu_pending_add(uint64_t call_seq, uint64_t stream, uint64_t src, const void *host, size_t len)
{
	uint64_t base = 0;
	unsigned kind;
	if (!call_seq)
		return;
	if (!tcu_alloc_find(src, &base, &kind))
		base = 0;
	tcu_pending_add_at(call_seq, stream, base, src - base, host, len);
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
		const tcu_event *p = cap_umap_get(&tcu_g.events, event);
		if (p) {
			e = *p;
			known = 1;
		}
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (known)
		tcu_pending_flush(0, e.stream, e.seq);
}

void tcu_pending_forget(void)
{
	pthread_mutex_lock(&tcu_g.mu);
	tcu_g.npending = 0;
	pthread_mutex_unlock(&tcu_g.mu);
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
 * What a keyframe must hold.  A full keyframe (TRACESMITH_SNAPSHOT=launch
 * or N) holds every live device allocation, so --range and kernel-level
 * replay can start there.  The capture-start keyframe of the default
 * policy is partial: memory allocated while recording is rebuilt by replay
 * from the recorded calls, so it holds only what replay cannot recompute,
 * memory that existed before recording began and managed memory (the CPU
 * writes it directly).  A framework that preallocates most of the GPU's
 * memory then costs nothing here (the H100 run read 59 GiB otherwise).
 */
static int tcu_keyframe_wants(const tcu_alloc *a, int partial)
{
	if (!tcu_kind_is_device(a->kind) || !a->size)
		return 0;
	return !partial || !a->recorded || a->kind == SBT_CM_MEM_MANAGED;
}

/*
 * Keyframe copies go through two reusable staging buffers of TCU_KF_CHUNK
 * bytes (pinned host memory when the driver gives it: DMA at full speed,
 * and no page faults after the first keyframe), an allocation in chunks:
 * the next chunk's copy runs on the recorder's stream while the current
 * one goes to the blob store.  A chunk that is all zero bytes is recorded
 * without data (value = 1): a framework's preallocated cache costs a scan
 * instead of a copy into the trace.
 */
#define TCU_KF_CHUNK (32u << 20)

static int tcu_kf_staging(void)
{
	void *b[2] = {NULL, NULL};
	CUevent e[2] = {NULL, NULL};
	int ok = tcu_g.real[TCU_FN_cuMemAllocHost_v2] && tcu_g.real[TCU_FN_cuEventCreate];
	if (tcu_g.kf_buf[0])
		return 0;
	/* Each driver call fetched as it is made: tcu_own counts them. */
	for (int i = 0; ok && i < 2; i++)
		ok = ((tcu_pfn_cuMemAllocHost_v2)tcu_own(TCU_FN_cuMemAllocHost_v2))(&b[i], TCU_KF_CHUNK) ==
		     CUDA_SUCCESS;
	for (int i = 0; ok && i < 2; i++)
		ok = ((tcu_pfn_cuEventCreate)tcu_own(TCU_FN_cuEventCreate))(&e[i], CU_EVENT_DISABLE_TIMING) ==
		     CUDA_SUCCESS;
	if (ok) {
		memcpy(tcu_g.kf_buf, b, sizeof(b));
		memcpy(tcu_g.kf_done, e, sizeof(e));
		tcu_g.kf_pinned = 1;
		return 0;
	}
	/* Not pinned after all: what was made stays until exit. */
	tcu_g.kf_buf[0] = malloc(TCU_KF_CHUNK);
	tcu_g.kf_buf[1] = malloc(TCU_KF_CHUNK);
	if (!tcu_g.kf_buf[0] || !tcu_g.kf_buf[1]) {
		free(tcu_g.kf_buf[0]);
		free(tcu_g.kf_buf[1]);
		tcu_g.kf_buf[0] = tcu_g.kf_buf[1] = NULL;
		return -1;
	}
	return 0;
}

/* Start copying [src, src + n) into staging buffer i. */
static CUresult tcu_kf_fetch(int i, uint64_t src, size_t n)
{
	tcu_pfn_cuMemcpyDtoHAsync_v2 copy =
		(tcu_pfn_cuMemcpyDtoHAsync_v2)tcu_own(TCU_FN_cuMemcpyDtoHAsync_v2);
	CUresult r = copy ? copy(tcu_g.kf_buf[i], src, n, tcu_g.kf_stream) : CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_SUCCESS && tcu_g.kf_pinned)
		r = ((tcu_pfn_cuEventRecord)tcu_own(TCU_FN_cuEventRecord))(tcu_g.kf_done[i], tcu_g.kf_stream);
	return r;
}

/* Wait until staging buffer i holds its chunk. */
static CUresult tcu_kf_wait(int i)
{
	if (tcu_g.kf_pinned)
		return ((tcu_pfn_cuEventSynchronize)tcu_own(TCU_FN_cuEventSynchronize))(tcu_g.kf_done[i]);
	return tcu_sync_stream(tcu_g.kf_stream, 0);
}

/* Keyframe timing (cap_keyframe_account): CLOCK_MONOTONIC in ns, read
 * twice per chunk of up to 32 MiB. */
static uint64_t tcu_kf_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time a keyframe's copies were waited for and stored. */
typedef struct tcu_kf_clock {
	uint64_t bytes, wait_ns, store_ns;
} tcu_kf_clock;

static void tcu_kf_chunk_record(const tcu_alloc *a, uint64_t off, size_t n, CUresult r,
                                const void *bytes)
{
	sbt_cm_call c;
	sbt_cm_call_init(&c);
	c.dst = a->base + off;
	c.size = n;
	c.sub = a->kind;
	if (r != CUDA_SUCCESS) {
		c.result = (uint64_t)r;
		c.note = (const uint8_t *)"could not be read";
		c.note_len = strlen("could not be read");
	} else {
		int zero = 0;
		c.blob = cap_blob_pages_or_zero(bytes, n, &zero);
		c.value = zero ? 1 : 0;
	}
	tcu_emit(SBT_CM_K_tsSnapshot, TCU_FN_cuMemcpyDtoHAsync_v2, &c, 0);
}

/* Start copying rows [y, y + rows) of slice z of array a into staging
 * buffer i (cuMemcpy3DAsync on the recorder's stream). */
static CUresult tcu_kf_fetch_array(int i, const tcu_array *a, uint64_t y, uint64_t z, uint64_t rows)
{
	tcu_pfn_cuMemcpy3DAsync_v2 copy = (tcu_pfn_cuMemcpy3DAsync_v2)tcu_own(TCU_FN_cuMemcpy3DAsync_v2);
	CUDA_MEMCPY3D m;
	CUresult r;
	memset(&m, 0, sizeof(m));
	m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	m.srcArray = (CUarray)(uintptr_t)a->handle;
	m.srcY = (size_t)y;
	m.srcZ = (size_t)z;
	m.dstMemoryType = CU_MEMORYTYPE_HOST;
	m.dstHost = tcu_g.kf_buf[i];
	m.dstPitch = (size_t)a->row_bytes;
	m.dstHeight = (size_t)rows;
	m.WidthInBytes = (size_t)a->row_bytes;
	m.Height = (size_t)rows;
	m.Depth = 1;
	r = copy ? copy(&m, tcu_g.kf_stream) : CUDA_ERROR_NOT_SUPPORTED;
	if (r == CUDA_SUCCESS && tcu_g.kf_pinned)
		r = ((tcu_pfn_cuEventRecord)tcu_own(TCU_FN_cuEventRecord))(tcu_g.kf_done[i], tcu_g.kf_stream);
	return r;
}

/* Rows of an array per snapshot chunk (0: the array is not snapshotted). */
static uint64_t tcu_kf_array_rows(const tcu_array *a)
{
	return a->row_bytes && a->row_bytes <= TCU_KF_CHUNK ? TCU_KF_CHUNK / a->row_bytes : 0;
}

/* A full keyframe's arrays, after its allocations: every live one, in
 * chunks of whole rows of one slice (timed into clk). */
static void tcu_kf_arrays(const tcu_array *arrs, size_t n, tcu_kf_clock *clk)
{
	for (size_t i = 0; i < n; i++) {
		const tcu_array *a = &arrs[i];
		uint64_t per = tcu_kf_array_rows(a);
		for (uint64_t z = 0; per && z < a->depth; z++)
			for (uint64_t y = 0; y < a->height; y += per) {
				uint64_t rows = a->height - y < per ? a->height - y : per;
				size_t bytes = (size_t)(rows * a->row_bytes);
				sbt_cm_call c;
				uint64_t t0 = tcu_kf_now_ns(), t1;
				CUresult r = tcu_kf_fetch_array(0, a, y, z, rows);
				if (r == CUDA_SUCCESS)
					r = tcu_kf_wait(0);
				t1 = tcu_kf_now_ns();
				clk->wait_ns += t1 - t0;
				clk->bytes += bytes;
				sbt_cm_call_init(&c);
				c.sub = SBT_CM_MEM_ARRAY;
				c.handle = a->handle;
				c.dst_y = y;
				c.dst_z = z;
				c.width = a->row_bytes;
				c.height = rows;
				c.size = bytes;
				if (r != CUDA_SUCCESS) {
					c.result = (uint64_t)r;
					c.note = (const uint8_t *)"could not be read";
					c.note_len = strlen("could not be read");
				} else {
					int zero = 0;
					c.blob = cap_blob_pages_or_zero(tcu_g.kf_buf[0], bytes, &zero);
					c.value = zero ? 1 : 0;
				}
				tcu_emit(SBT_CM_K_tsSnapshot, TCU_FN_cuMemcpy3DAsync_v2, &c, 0);
				clk->store_ns += tcu_kf_now_ns() - t1;
			}
	}
}

/* TCU_KF_MEMOP_WAIT_NS: how long a keyframe waits for its launch's
 * stream once the program has queued stream memory waits. */
#define TCU_KF_MEMOP_WAIT_NS 1000000000ull

/*
 * Before a keyframe: the launch's stream drained.  Once the program has
 * queued a stream memory wait (cuStreamWaitValue*, cuStreamBatchMemOp), the
 * stream may be held by a wait whose write the program issues only after
 * this launch (a consumer stream queued before its producer): waiting for
 * it would never return.  Then the stream is polled for at most
 * TCU_KF_MEMOP_WAIT_NS and the keyframe taken without waiting if it is
 * still busy, said once.  1 when the stream drained, 0 when it was left
 * busy (the keyframe's record then says so: TCU_KF_UNWAITED_NOTE).
 */
static int tcu_kf_sync(CUstream stream, int ptds, uint64_t ordinal)
{
	tcu_pfn_cuStreamQuery query;
	uint64_t t0;
	if (!atomic_load(&tcu_g.memop_waits)) {
		tcu_sync_stream(stream, ptds);
		return 1;
	}
	query = (tcu_pfn_cuStreamQuery)tcu_own(ptds ? TCU_FN_cuStreamQuery_ptsz : TCU_FN_cuStreamQuery);
	if (!query)
		return 0;
	t0 = tcu_kf_now_ns();
	while (query(stream) == CUDA_ERROR_NOT_READY) {
		struct timespec ts = {0, 100000};
		if (tcu_kf_now_ns() - t0 > TCU_KF_MEMOP_WAIT_NS) {
			if (!atomic_exchange(&tcu_g.memop_said, 1))
				CAP_WARN("cuda: the keyframe at launch %llu taken without waiting for the launch's "
				         "stream, still busy after %g s: a stream memory wait may hold it until the "
				         "program writes its value (said once)",
				         (unsigned long long)ordinal, (double)TCU_KF_MEMOP_WAIT_NS / 1e9);
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	return 1;
}

/* The note of a launch's keyframe taken with its stream still busy: its
 * launch may not have run (an after keyframe) or earlier work may still
 * write (a before keyframe), so the pair proves no write set (the
 * emulator's keyframe proofs skip it). */
#define TCU_KF_UNWAITED_NOTE                                                                       \
	"taken without waiting for the launch's stream, still busy (a stream memory wait may hold "   \
	"it): its bytes are of a moment while that stream waits"

/*
 * The live device allocations a keyframe holds, copied through the
 * recorder's own non-blocking stream after the launch's stream has
 * drained, into the blob store (which stores unchanged pages once), one
 * tsSnapshot record per chunk of at most TCU_KF_CHUNK bytes.  Called with
 * no lock held; takes kf_mu so keyframes never interleave.
 */
static void tcu_keyframe(unsigned why, uint64_t ordinal, CUstream stream, int ptds, int partial,
                         int sync, const char *note)
{
	tcu_alloc *list = NULL;
	tcu_array *arrs = NULL;
	size_t n = 0, chunks = 0, narrs = 0;
	int all_arrays = 1;
	sbt_cm_call kf;
	uint8_t buf[512]; /* the marker, with a note of up to some 200 bytes */
	size_t len = 0;
	tcu_kf_clock clk = {0, 0, 0};

	pthread_mutex_lock(&tcu_g.kf_mu);
	if (sync && !tcu_kf_sync(stream, ptds, ordinal) && !note)
		note = TCU_KF_UNWAITED_NOTE;
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
		if (tcu_keyframe_wants(a, partial)) {
			list[n++] = *a;
			chunks += (size_t)((a->size + TCU_KF_CHUNK - 1) / TCU_KF_CHUNK);
		}
	}
	/* Arrays: in full keyframes only (a partial one holds what replay
	 * cannot rebuild, and replay rebuilds every recorded array). */
	if (!partial && tcu_g.narrays) {
		arrs = malloc(tcu_g.narrays * sizeof(*arrs));
		for (size_t i = 0; arrs && i < tcu_g.narrays; i++) {
			const tcu_array *a = &tcu_g.arrays[i];
			uint64_t per = tcu_kf_array_rows(a);
			if (!per) {
				all_arrays = 0;
				continue;
			}
			arrs[narrs++] = *a;
			chunks += (size_t)(a->depth * ((a->height + per - 1) / per));
		}
		if (!arrs)
			all_arrays = 0;
	}
	pthread_mutex_unlock(&tcu_g.mu);
	if (!list || ((n || narrs) && tcu_kf_staging() != 0)) {
		CAP_ERROR("cuda: out of memory: keyframe skipped");
		goto out_free;
	}
	sbt_cm_call_init(&kf);
	kf.count = chunks;
	kf.sub = why;
	kf.value = ordinal;
	kf.stream = (uint64_t)(uintptr_t)stream;
	kf.flags = partial ? SBT_CM_KF_PARTIAL : all_arrays ? SBT_CM_KF_ARRAYS : 0;
	if (note) {
		kf.note = (const uint8_t *)note;
		kf.note_len = strlen(note);
	}
	if (sbt_cm_encode(&kf, buf, sizeof(buf), &len) != SBT_OK)
		goto out_free;
	cap_keyframe_begin(buf, len);
	for (size_t i = 0; i < n; i++) {
		const tcu_alloc *a = &list[i];
		uint64_t off = 0;
		size_t cur_n = a->size < TCU_KF_CHUNK ? (size_t)a->size : TCU_KF_CHUNK;
		int cur = 0;
		CUresult r = tcu_kf_fetch(cur, a->base, cur_n);
		while (off < a->size) {
			uint64_t next_off = off + cur_n, t0 = tcu_kf_now_ns(), t1;
			size_t next_n = 0;
			CUresult rn = CUDA_SUCCESS;
			/* The next chunk's copy overlaps this one's trip to the
			 * blob store.  With pinned staging it is queued before
			 * this chunk is waited for (its buffer's chunk was stored
			 * in the round before), so the copy engine goes on to it
			 * without waiting for this thread to wake; unpinned, the
			 * wait is the stream's, which would take it in too. */
			if (next_off < a->size)
				next_n = a->size - next_off < TCU_KF_CHUNK ? (size_t)(a->size - next_off)
				                                            : TCU_KF_CHUNK;
			if (next_n && tcu_g.kf_pinned)
				rn = tcu_kf_fetch(!cur, a->base + next_off, next_n);
			if (r == CUDA_SUCCESS)
				r = tcu_kf_wait(cur);
			t1 = tcu_kf_now_ns();
			clk.wait_ns += t1 - t0;
			clk.bytes += cur_n;
			if (next_n && !tcu_g.kf_pinned)
				rn = tcu_kf_fetch(!cur, a->base + next_off, next_n);
			tcu_kf_chunk_record(a, off, cur_n, r, tcu_g.kf_buf[cur]);
			clk.store_ns += tcu_kf_now_ns() - t1;
			off = next_off;
			cur_n = next_n;
			cur = !cur;
			r = rn;
		}
	}
	tcu_kf_arrays(arrs, narrs, &clk);
	tcu_g.keyframes++;
	cap_keyframe_account(clk.bytes, clk.wait_ns, clk.store_ns);
out_free:
	free(arrs);
	free(list);
out_unlock:
	pthread_mutex_unlock(&tcu_g.kf_mu);
}

/*
 * Pinned host memory a kernel reads directly (zero copy: with unified
 * addressing the host pointer is the device one) is written by the CPU,
 * which no recorded call shows.  Before a launch whose pointer-valued
 * parameters point into live pinned host memory, the keyframe
 * SBT_CM_KF_HOST_INPUTS (partial: replay applies it where it stands) holds
 * those allocations' bytes as the CPU left them, after the work before the
 * launch on its stream has finished (it may write them too).  The blob
 * store keeps each distinct page once, so memory the CPU did not change
 * costs a hash, not a copy into the trace.  Parameters are found by the
 * function's layout (8-byte parameters) or, for the `extra` form, as every
 * aligned 8-byte word of its buffer; pointers stored inside memory are not
 * followed.
 */
#define TCU_HOST_INPUTS_MAX 16

static size_t tcu_host_targets(const uint64_t *vals, size_t nvals, tcu_alloc *out)
{
	size_t n = 0;
	pthread_mutex_lock(&tcu_g.mu);
	for (size_t v = 0; v < nvals && n < TCU_HOST_INPUTS_MAX; v++) {
		const tcu_alloc *a = tcu_alloc_at_locked(vals[v]);
		int seen = 0;
		if (!a || !tcu_kind_is_host(a->kind) || !a->size)
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = out[j].base == a->base;
		if (!seen)
			out[n++] = *a;
	}
	pthread_mutex_unlock(&tcu_g.mu);
	return n;
}

static void tcu_host_inputs(uint64_t ordinal, CUfunction f, void **params, void **extra,
                            CUstream stream, int ptds)
{
	uint64_t vals[64];
	size_t nvals = 0, n, chunks = 0;
	tcu_alloc targets[TCU_HOST_INPUTS_MAX];
	tcu_func *fe = tcu_func_get((uint64_t)(uintptr_t)f);
	const tcu_layout *lay = fe ? tcu_func_layout(fe) : NULL;
	sbt_cm_call kf;
	uint8_t buf[256];
	size_t len = 0;

	if (params && lay && lay->known > 0) {
		for (uint32_t i = 0; i < lay->nparams && nvals < 64; i++)
			if (lay->pl[i].size == 8 && params[i])
				memcpy(&vals[nvals++], params[i], 8);
	} else if (!params && extra) {
		const void *eb = NULL;
		size_t elen = 0;
		tcu_extra_buffer(extra, &eb, &elen);
		for (size_t at = 0; eb && at + 8 <= elen && nvals < 64; at += 8)
			memcpy(&vals[nvals++], (const uint8_t *)eb + at, 8);
	}
	n = tcu_host_targets(vals, nvals, targets);
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		chunks += (size_t)((targets[i].size + TCU_KF_CHUNK - 1) / TCU_KF_CHUNK);
	pthread_mutex_lock(&tcu_g.kf_mu);
	tcu_kf_sync(stream, ptds, ordinal);
	sbt_cm_call_init(&kf);
	kf.count = chunks;
	kf.sub = SBT_CM_KF_HOST_INPUTS;
	kf.value = ordinal;
	kf.stream = (uint64_t)(uintptr_t)stream;
	kf.flags = SBT_CM_KF_PARTIAL;
	if (sbt_cm_encode(&kf, buf, sizeof(buf), &len) == SBT_OK) {
		cap_keyframe_begin(buf, len);
		for (size_t i = 0; i < n; i++)
			for (uint64_t off = 0; off < targets[i].size; off += TCU_KF_CHUNK) {
				uint64_t left = targets[i].size - off;
				size_t cn = left < TCU_KF_CHUNK ? (size_t)left : TCU_KF_CHUNK;
				tcu_kf_chunk_record(&targets[i], off, cn, CUDA_SUCCESS,
				                    (const void *)(uintptr_t)(targets[i].base + off));
			}
		tcu_g.host_snapshots++;
	}
	pthread_mutex_unlock(&tcu_g.kf_mu);
}

/*
 * Before a window's keyframe, once a stream memory wait was queued: the
 * legacy stream, every live stream (borrowed, nstreams of them) and the
 * marks of the per-thread default streams a wait was queued on
 * (tcu_ptds_wait_mark) polled for at most TCU_KF_MEMOP_WAIT_NS, as
 * cuCtxSynchronize would wait for a stream a wait holds until the program
 * writes its value, which it does only after the window has opened.  0
 * once all are idle; else 1, with how many are still busy in *nbusy_out
 * and the first of them in *busy_out (a created stream, 0 for the legacy
 * one) or, when no created stream is but a per-thread one is, its thread
 * in *thread_out and *ptds_out set.  The legacy stream counts only when
 * nothing else is busy: its query answers busy while any blocking stream
 * is.
 */
static int tcu_window_drain(const uint64_t *streams, size_t nstreams, uint64_t *busy_out,
                            size_t *nbusy_out, int *ptds_out, pthread_t *thread_out)
{
	tcu_pfn_cuStreamQuery query = (tcu_pfn_cuStreamQuery)tcu_own(TCU_FN_cuStreamQuery);
	uint64_t t0 = tcu_kf_now_ns();
	if (!query)
		return 0;
	for (;;) {
		size_t nbusy = 0, nmarks;
		int legacy = query(NULL) == CUDA_ERROR_NOT_READY;
		uint64_t busy = 0;
		pthread_t thread;
		struct timespec ts = {0, 100000};
		for (size_t i = 0; i < nstreams; i++)
			if (query((CUstream)(uintptr_t)streams[i]) == CUDA_ERROR_NOT_READY && !nbusy++)
				busy = streams[i];
		nmarks = tcu_ptds_marks_busy(&thread);
		if (!legacy && !nbusy && !nmarks)
			return 0;
		if (tcu_kf_now_ns() - t0 > TCU_KF_MEMOP_WAIT_NS) {
			/* The legacy stream answers busy while any blocking
			 * stream is (measured on the H100, docs/cuda.md): it is
			 * named, and counted, only when no other stream is. */
			*busy_out = busy;
			*nbusy_out = nbusy + nmarks + (legacy && !nbusy && !nmarks);
			*ptds_out = !nbusy && nmarks;
			if (*ptds_out)
				*thread_out = thread;
			return 1;
		}
		nanosleep(&ts, NULL);
	}
}

/* The note a window's keyframe taken without waiting carries (tsinfo
 * --dump shows it as note=). */
#define TCU_WINDOW_BUSY_NOTE                                                                       \
	"taken without waiting: a stream was still busy (a stream memory wait); the work queued "    \
	"before the window and run inside it is not in this trace"

/*
 * A window's keyframe: full (every live device allocation: the window's
 * trace has nothing before it to rebuild memory from), marked as the
 * capture start, taken after the context's work is done.  While a stream
 * capture is going on the context cannot be synchronized (that would end
 * the program's capture): the keyframe is then taken without waiting, and
 * a warning says so.  Once a stream memory wait was queued, the context
 * is synchronized only if every stream went idle within
 * TCU_KF_MEMOP_WAIT_NS (tcu_window_drain); otherwise the keyframe is taken
 * without waiting, with a warning and a note in the keyframe: the work
 * queued before the window runs inside it, unrecorded there.  The
 * window's first launch takes no other start keyframe.
 */
void tcu_keyframe_window(const uint64_t *streams, size_t nstreams)
{
	tcu_pfn_cuCtxSynchronize sync = (tcu_pfn_cuCtxSynchronize)tcu_g.real[TCU_FN_cuCtxSynchronize];
	int capturing = tcu_capture_gate() != 0;
	const char *note = NULL;
	uint64_t busy = 0;
	size_t nbusy = 0, live;
	int ptds = 0;
	pthread_t thread = 0;
	atomic_store(&tcu_g.start_keyframe_taken, 1);
	pthread_mutex_lock(&tcu_g.mu);
	live = tcu_g.allocs.n + tcu_g.narrays;
	pthread_mutex_unlock(&tcu_g.mu);
	if (!live)
		return; /* no memory yet (the window opened before any allocation or array) */
	if (capturing) {
		CAP_WARN("cuda: a stream capture is going on as the window opens: its keyframe is "
		         "taken without waiting for the work in flight");
	} else if (atomic_load(&tcu_g.memop_waits) &&
	           tcu_window_drain(streams, nstreams, &busy, &nbusy, &ptds, &thread)) {
		char what[64];
		if (ptds)
			snprintf(what, sizeof(what), "the per-thread default stream of thread %#lx",
			         (unsigned long)thread);
		else
			snprintf(what, sizeof(what), "stream 0x%llx", (unsigned long long)busy);
		CAP_WARN("cuda: the window opened with %s%s still busy after %g s (a stream "
		         "memory wait may hold it until the program writes its value): its keyframe is "
		         "taken without waiting, and the work queued on it before the window, which runs "
		         "inside it, is not in the window's trace (its replay lacks what that work writes)",
		         what, nbusy > 1 ? " and others" : "", (double)TCU_KF_MEMOP_WAIT_NS / 1e9);
		note = TCU_WINDOW_BUSY_NOTE;
	} else if (sync) {
		((tcu_pfn_cuCtxSynchronize)tcu_own(TCU_FN_cuCtxSynchronize))();
	}
	tcu_keyframe(SBT_CM_KF_START, tcu_launches_total(), NULL, 0, 0, 0, note);
}

/* The capture configuration, fixed once read (cap.h); kept here so that a
 * launch does not go through cap_config_get's once-guard twice. */
static const cap_config *tcu_config(void)
{
	const cap_config *cfg = atomic_load_explicit(&tcu_g.cfg, memory_order_acquire);
	if (!cfg) {
		cfg = cap_config_get();
		atomic_store_explicit(&tcu_g.cfg, cfg, memory_order_release);
	}
	return cfg;
}

uint64_t tcu_launch_before_slow(uint64_t ordinal, CUfunction f, void **params, void **extra,
                                CUstream stream, int ptds, int *capturing_out,
                                uint64_t *capture_id_out)
{
	const cap_config *cfg;
	/* No keyframe: the launch is not executed now, and the recorder must
	 * not synchronize a capturing stream. */
	if (tcu_capture_query(stream, ptds, capturing_out, capture_id_out))
		return ordinal;
	cfg = tcu_config();
	if (!atomic_load_explicit(&tcu_g.start_keyframe_taken, memory_order_relaxed) &&
	    atomic_exchange(&tcu_g.start_keyframe_taken, 1) == 0)
		tcu_keyframe(SBT_CM_KF_START, ordinal, stream, ptds,
		             cfg->snapshot == CAP_SNAPSHOT_NONE, 1, NULL);
	else if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		tcu_keyframe(SBT_CM_KF_BEFORE_LAUNCH, ordinal, stream, ptds, 0, 1, NULL);
	if (tcu_host_live())
		tcu_host_inputs(ordinal, f, params, extra, stream, ptds);
	return ordinal;
}

void tcu_launch_after_slow(uint64_t ordinal, CUstream stream, int ptds)
{
	const cap_config *cfg = tcu_config();
	if (cfg->snapshot == CAP_SNAPSHOT_LAUNCH)
		tcu_keyframe(SBT_CM_KF_AFTER_LAUNCH, ordinal, stream, ptds, 0, 1, NULL);
	else if (cfg->snapshot == CAP_SNAPSHOT_EVERY && cfg->snapshot_every &&
	         ordinal % cfg->snapshot_every == 0)
		tcu_keyframe(SBT_CM_KF_EVERY, ordinal, stream, ptds, 0, 1, NULL);
}
