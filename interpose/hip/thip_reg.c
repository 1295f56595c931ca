/*
 * thip_reg.c - what the HIP interposer remembers between calls: the
 * images it stored and their metadata, the modules and fat binaries they
 * became, functions with their argument layout, registered variables,
 * device allocations and async device-to-host copies awaiting their
 * checkpoint.  Small tables under thip_reg_mu (thip_internal.h); lookups
 * are linear, which is enough for the programs this first phase captures
 * (docs/hip.md, "Limits").  The functions, which every launch looks up,
 * are read without the lock: entries are never freed and are published
 * newest first on a list whose head is stored with release order under
 * thip_reg_mu, and each thread keeps the entry its last launch found while
 * thip_fn_gen says no entry was stored since (thip_function_find).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/hip/thip_internal.h"

typedef struct thip_module {
	uint64_t handle;
	sbt_amd_meta *meta;
} thip_module;

typedef struct thip_function {
	uint64_t handle;
	thip_fninfo info;
	const struct thip_function *next; /* the one stored before it */
} thip_function;

typedef struct thip_var {
	uint64_t host;
	char *name;
	uint64_t size;
	uint64_t module;       /* the fat binary that registered it */
} thip_var;

typedef struct thip_alloc {
	uint64_t base, size;
	unsigned kind;         /* SBT_CM_MEM_* */
	int recorded;          /* its call was recorded */
	uint64_t module;       /* module globals (hipModuleGetGlobal): their module */
} thip_alloc;

typedef struct thip_pending {
	uint64_t seq, stream, src, size;
	thip_rows rows;        /* a pitched copy's region (width 0: one linear range) */
	const void *host;
} thip_pending;

/* A growable array of n items of `size` bytes. */
typedef struct thip_vec {
	void *items;
	size_t n, cap;
} thip_vec;

static pthread_mutex_t thip_reg_mu = PTHREAD_MUTEX_INITIALIZER;
static thip_vec thip_modules, thip_vars, thip_allocs, thip_pendings;
/* The functions, newest first: written under thip_reg_mu, read without it
 * (an entry is immutable once its release store made it the head).
 * thip_fn_gen counts the entries stored, bumped after the store. */
static const thip_function *_Atomic thip_fn_head;
_Atomic uint64_t thip_fn_gen;
__thread __attribute__((tls_model("initial-exec"))) thip_fn_cache thip_tls_fn;

/* Room for one more item; NULL when out of memory. */
static void *thip_vec_push(thip_vec *v, size_t size)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *items = realloc(v->items, cap * size);
		if (!items)
			return NULL;
		v->items = items;
		v->cap = cap;
	}
	return (char *)v->items + v->n++ * size;
}

static void thip_vec_drop(thip_vec *v, size_t i, size_t size)
{
	char *base = v->items;
	memmove(base + i * size, base + (i + 1) * size, (v->n - i - 1) * size);
	v->n--;
}

/* ---- images ------------------------------------------------------------------ */

void thip_image_capture(const void *p, size_t len, int recording, thip_image *out,
                        unsigned *wrapper_version)
{
	sbt_amd_kind kind = SBT_AMD_IMAGE_UNKNOWN;
	sbt_amd_status st;
	size_t size = 0;
	char why[128];

	memset(out, 0, sizeof(*out));
	if (wrapper_version)
		*wrapper_version = 0;
	if (!p) {
		snprintf(out->note, sizeof(out->note), "no image");
		return;
	}
	st = sbt_amd_image_size(p, len, &size, &kind);
	if (st == SBT_AMD_OK && kind == SBT_AMD_IMAGE_WRAPPER) {
		unsigned version = 0;
		p = sbt_amd_wrapper_bundle(p, &version);
		if (wrapper_version)
			*wrapper_version = version;
		st = p ? sbt_amd_image_size(p, SIZE_MAX, &size, &kind) : SBT_AMD_ERR_CORRUPT;
		if (st == SBT_AMD_OK && kind == SBT_AMD_IMAGE_WRAPPER)
			st = SBT_AMD_ERR_CORRUPT; /* a wrapper pointing at a wrapper */
	}
	if (st != SBT_AMD_OK) {
		snprintf(out->note, sizeof(out->note), "image not captured: %s", sbt_amd_strerror(st));
		CAP_WARN("hip: %s", out->note);
		return;
	}
	out->size = size;
	out->sub = kind == SBT_AMD_IMAGE_BUNDLE       ? SBT_CM_IMAGE_HIP_BUNDLE
	           : kind == SBT_AMD_IMAGE_COMPRESSED ? SBT_CM_IMAGE_HIP_COMPRESSED
	                                              : SBT_CM_IMAGE_AMDGPU;
	if (recording)
		out->blob = cap_blob(p, size);
	st = sbt_amd_meta_read_image(p, size, &out->meta, why, sizeof(why));
	if (st != SBT_AMD_OK)
		CAP_INFO("hip: image of %zu bytes: no kernel metadata: %s", size, why);
}

/* ---- modules and functions ----------------------------------------------------- */

void thip_module_add(uint64_t handle, thip_image *img)
{
	thip_module *m;
	pthread_mutex_lock(&thip_reg_mu);
	m = thip_vec_push(&thip_modules, sizeof(*m));
	if (m) {
		m->handle = handle;
		m->meta = img->meta;
		img->meta = NULL;
	}
	pthread_mutex_unlock(&thip_reg_mu);
	sbt_amd_meta_free(img->meta); /* not kept: out of memory */
	img->meta = NULL;
}

/* A module's metadata stays allocated after its unload: function entries
 * made from it keep pointing at their names. */
void thip_module_remove(uint64_t handle)
{
	pthread_mutex_lock(&thip_reg_mu);
	for (size_t i = thip_modules.n; i-- > 0;) {
		thip_module *m = (thip_module *)thip_modules.items + i;
		if (m->handle == handle) {
			m->handle = 0;
			break;
		}
	}
	/* its globals go with it */
	for (size_t i = thip_allocs.n; handle && i-- > 0;)
		if (((thip_alloc *)thip_allocs.items)[i].module == handle)
			thip_vec_drop(&thip_allocs, i, sizeof(thip_alloc));
	pthread_mutex_unlock(&thip_reg_mu);
}

/* Whether module handle is registered or loaded (thip_reg_mu held). */
static int thip_module_live_locked(uint64_t handle)
{
	for (size_t i = 0; handle && i < thip_modules.n; i++)
		if (((thip_module *)thip_modules.items)[i].handle == handle)
			return 1;
	return 0;
}

/* Whether a and b say the same of a function. */
static int thip_fninfo_same(const thip_fninfo *a, const thip_fninfo *b)
{
	return strcmp(a->name, b->name) == 0 && a->known == b->known && a->nargs == b->nargs &&
	       a->params_len == b->params_len &&
	       memcmp(a->offset, b->offset, sizeof(a->offset)) == 0 &&
	       memcmp(a->size, b->size, sizeof(a->size)) == 0;
}

void thip_function_add(uint64_t handle, uint64_t module, const char *name)
{
	const sbt_amd_kernel *k = NULL;
	const thip_function *o;
	thip_function *f;
	char *copy;
	if (!handle || !name)
		return;
	copy = strdup(name); /* lives as long as the process: records point at it */
	f = calloc(1, sizeof(*f)); /* never freed: launches read it without the lock */
	if (!copy || !f)
		goto out_free;
	f->handle = handle;
	f->info.name = copy;
	pthread_mutex_lock(&thip_reg_mu);
	for (size_t i = thip_modules.n; i-- > 0 && !k;) {
		thip_module *m = (thip_module *)thip_modules.items + i;
		if (m->handle == module && module)
			k = sbt_amd_meta_find(m->meta, name);
	}
	if (k && k->explicit_count <= sizeof(f->info.offset) / sizeof(f->info.offset[0])) {
		f->info.known = 1;
		f->info.nargs = k->explicit_count;
		for (size_t a = 0; a < k->explicit_count; a++) {
			uint64_t end = (uint64_t)k->args[a].offset + k->args[a].size;
			f->info.offset[a] = k->args[a].offset;
			f->info.size[a] = k->args[a].size;
			if (end > f->info.params_len)
				f->info.params_len = (size_t)end;
		}
	}
	f->next = atomic_load_explicit(&thip_fn_head, memory_order_relaxed);
	/* the newest entry of the handle saying the same (a program may ask
	 * for its function again at every launch): nothing grows */
	for (o = f->next; o && o->handle != handle; o = o->next)
		;
	if (o && thip_fninfo_same(&o->info, &f->info))
		goto out_unlock;
	atomic_store_explicit(&thip_fn_head, f, memory_order_release);
	/* after the store: a thread that sees the new count sees the entry */
	atomic_fetch_add_explicit(&thip_fn_gen, 1, memory_order_release);
	f = NULL;
	copy = NULL;
out_unlock:
	pthread_mutex_unlock(&thip_reg_mu);
out_free:
	free(copy);
	free(f);
}

const thip_fninfo *thip_function_find_slow(uint64_t handle)
{
	uint64_t gen = atomic_load_explicit(&thip_fn_gen, memory_order_acquire);
	const thip_function *f = atomic_load_explicit(&thip_fn_head, memory_order_acquire);

	if (!handle)
		return NULL;
	/* Newest first: a handle reused after an unload names its new kernel. */
	while (f && f->handle != handle)
		f = f->next;
	if (!f)
		return NULL;
	thip_tls_fn.handle = handle;
	thip_tls_fn.gen = gen;
	thip_tls_fn.info = &f->info;
	return &f->info;
}

/* ---- variables ------------------------------------------------------------------ */

void thip_var_add(uint64_t host, const char *name, size_t size, uint64_t module)
{
	thip_var *v;
	char *copy = name ? strdup(name) : NULL;
	if (!copy)
		return;
	pthread_mutex_lock(&thip_reg_mu);
	v = thip_vec_push(&thip_vars, sizeof(*v));
	if (v) {
		v->host = host;
		v->name = copy;
		v->size = size;
		v->module = module;
	} else {
		free(copy);
	}
	pthread_mutex_unlock(&thip_reg_mu);
}

const char *thip_var_name(uint64_t host)
{
	const char *name = NULL;
	pthread_mutex_lock(&thip_reg_mu);
	for (size_t i = 0; i < thip_vars.n && !name; i++) {
		thip_var *v = (thip_var *)thip_vars.items + i;
		if (v->host == host)
			name = v->name;
	}
	pthread_mutex_unlock(&thip_reg_mu);
	return name;
}

/* ---- allocations ------------------------------------------------------------------- */

void thip_alloc_add(uint64_t base, uint64_t size, unsigned kind, int recorded, uint64_t module)
{
	thip_alloc *a;
	if (!base)
		return;
	pthread_mutex_lock(&thip_reg_mu);
	/* a module global looked up again is the same memory */
	for (size_t i = 0; module && i < thip_allocs.n; i++)
		if (((thip_alloc *)thip_allocs.items)[i].base == base)
			goto out_unlock;
	a = thip_vec_push(&thip_allocs, sizeof(*a));
	if (a) {
		a->base = base;
		a->size = size;
		a->kind = kind;
		a->recorded = recorded;
		a->module = module;
	}
out_unlock:
	pthread_mutex_unlock(&thip_reg_mu);
}

void thip_alloc_remove(uint64_t base)
{
	pthread_mutex_lock(&thip_reg_mu);
	for (size_t i = 0; i < thip_allocs.n; i++) {
		if (((thip_alloc *)thip_allocs.items)[i].base == base) {
			thip_vec_drop(&thip_allocs, i, sizeof(thip_alloc));
			break;
		}
	}
	pthread_mutex_unlock(&thip_reg_mu);
}

uint64_t thip_alloc_base(uint64_t addr)
{
	uint64_t base = 0;
	pthread_mutex_lock(&thip_reg_mu);
	for (size_t i = 0; i < thip_allocs.n && !base; i++) {
		thip_alloc *a = (thip_alloc *)thip_allocs.items + i;
		if (addr >= a->base && addr - a->base < (a->size ? a->size : 1))
			base = a->base;
	}
	pthread_mutex_unlock(&thip_reg_mu);
	return base;
}

size_t thip_live_list(thip_live **out)
{
	thip_live *v;
	size_t n = 0;
	pthread_mutex_lock(&thip_reg_mu);
	v = malloc((thip_allocs.n + thip_vars.n + 1) * sizeof(*v));
	for (size_t i = 0; v && i < thip_allocs.n; i++) {
		const thip_alloc *a = (const thip_alloc *)thip_allocs.items + i;
		v[n].addr = a->base;
		v[n].size = a->size;
		v[n].kind = a->kind;
		v[n].recorded = a->recorded;
		v[n].symbol = 0;
		n++;
	}
	for (size_t i = 0; v && i < thip_vars.n; i++) {
		const thip_var *r = (const thip_var *)thip_vars.items + i;
		if (!thip_module_live_locked(r->module))
			continue;
		v[n].addr = r->host;
		v[n].size = r->size;
		v[n].kind = SBT_CM_MEM_GLOBAL;
		v[n].recorded = 1;
		v[n].symbol = 1;
		n++;
	}
	pthread_mutex_unlock(&thip_reg_mu);
	*out = v;
	return v ? n : 0;
}

/* ---- async device-to-host checkpoints -------------------------------------------- */

void thip_pending_add(uint64_t seq, uint64_t stream, const void *host, uint64_t src, uint64_t size)
{
	thip_pending *p;
	pthread_mutex_lock(&thip_reg_mu);
	p = thip_vec_push(&thip_pendings, sizeof(*p));
	if (p) {
		p->seq = seq;
		p->stream = stream;
		p->host = host;
		p->src = src;
		p->size = size;
		memset(&p->rows, 0, sizeof(p->rows));
	}
	pthread_mutex_unlock(&thip_reg_mu);
}

void thip_pending_add_rows(uint64_t seq, uint64_t stream, const void *host, const thip_rows *r,
                           uint64_t src)
{
	thip_pending *p;
	pthread_mutex_lock(&thip_reg_mu);
	p = thip_vec_push(&thip_pendings, sizeof(*p));
	if (p) {
		p->seq = seq;
		p->stream = stream;
		p->host = host;
		p->src = src;
		p->size = r->width * r->height * r->depth;
		p->rows = *r;
	}
	pthread_mutex_unlock(&thip_reg_mu);
}

uint8_t *thip_rows_pack(const void *first, const thip_rows *r)
{
	uint64_t w = r->width, h = r->height, d = r->depth;
	uint8_t *out;
	if (!w || !h || !d || h > SIZE_MAX / w || d > SIZE_MAX / (w * h))
		return NULL;
	out = malloc(w * h * d);
	if (!out)
		return NULL;
	for (uint64_t z = 0; z < d; z++)
		for (uint64_t y = 0; y < h; y++)
			memcpy(out + (z * h + y) * w,
			       (const uint8_t *)first + z * r->pitch * r->slice_rows + y * r->pitch, w);
	return out;
}

/* Those of stream (0 matches any) recorded before seq_limit, or all. */
static void thip_pending_flush_if(int all, uint64_t stream, uint64_t seq_limit)
{
	for (;;) {
		thip_pending p;
		int found = 0;
		uint64_t base;
		pthread_mutex_lock(&thip_reg_mu);
		for (size_t i = 0; i < thip_pendings.n; i++) {
			thip_pending *q = (thip_pending *)thip_pendings.items + i;
			if (all || ((q->stream == stream || q->stream == 0 || stream == 0) &&
			            q->seq < seq_limit)) {
				p = *q;
				thip_vec_drop(&thip_pendings, i, sizeof(thip_pending));
				found = 1;
				break;
			}
		}
		pthread_mutex_unlock(&thip_reg_mu);
		if (!found)
			break;
		base = thip_alloc_base(p.src);
		if (p.rows.width) {
			uint8_t *packed = thip_rows_pack(p.host, &p.rows);
			if (packed)
				cap_checkpoint(p.seq, base, base ? p.src - base : p.src, packed, p.size);
			free(packed);
		} else {
			cap_checkpoint(p.seq, base, base ? p.src - base : p.src, p.host, p.size);
		}
	}
}

void thip_pending_flush(int all, uint64_t stream)
{
	thip_pending_flush_if(all, stream, UINT64_MAX);
}

/* Events recorded (hipEventRecord that worked): the stream and the seq of
 * the record, so that a synchronization on the event checkpoints what
 * came before it on that stream; under thip_reg_mu. */
typedef struct thip_event {
	uint64_t stream, seq;
} thip_event;
static cap_umap thip_events; /* event -> thip_event (owned) */

void thip_event_note(uint64_t event, uint64_t stream, uint64_t seq)
{
	thip_event *e = malloc(sizeof(*e)), *old;

	if (!e)
		return;
	e->stream = stream;
	e->seq = seq;
	pthread_mutex_lock(&thip_reg_mu);
	old = cap_umap_put(&thip_events, event, e);
	pthread_mutex_unlock(&thip_reg_mu);
	if (old == e) /* out of memory: the event checkpoints nothing */
		free(e);
	else
		free(old);
}

void thip_event_drop(uint64_t event)
{
	pthread_mutex_lock(&thip_reg_mu);
	free(cap_umap_del(&thip_events, event));
	pthread_mutex_unlock(&thip_reg_mu);
}

void thip_pending_flush_event(uint64_t event)
{
	thip_event e = {0, 0};
	const thip_event *p;

	pthread_mutex_lock(&thip_reg_mu);
	if ((p = cap_umap_get(&thip_events, event)))
		e = *p;
	pthread_mutex_unlock(&thip_reg_mu);
	if (p)
		thip_pending_flush_if(0, e.stream, e.seq);
}
