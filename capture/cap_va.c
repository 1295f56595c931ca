/*
 * cap_va.c - the same-address allocator both compute interposers share
 * (cap.h "same-address windows"; why it exists: docs/cuda.md "Same-address
 * capture").  Only bookkeeping and decisions live here; reserving the
 * windows and making the physical memory are the interposer's, through
 * cap_va_ops, so CUDA (interpose/cuda/tcu_va.c) and HIP
 * (interpose/hip/thip_va.c) place the same sequence of requests at the
 * same offsets of their windows.
 *
 * Per window: the free ranges of the window (offsets, sorted, coalesced);
 * its chunks (one granule each, sorted by address, each with the free
 * ranges inside it and a count of live allocations); the one emptied chunk
 * kept backed; the cache of freed large blocks (oldest first).  Across
 * windows: every placed block (allocation or reservation) by address, and
 * the stream-ordered frees not yet reached (oldest first).
 *
 * Reentrant: everything hangs off the cap_va; the caller serialises calls.
 */
#include <stdlib.h>
#include <string.h>

#include "capture/cap.h"

typedef struct cap_va_range {
	uint64_t off, len;
} cap_va_range;

typedef struct cap_va_free_list { /* free ranges, sorted by offset, coalesced */
	cap_va_range *r;
	size_t n, cap;
} cap_va_free_list;

/* A granule of small allocations. */
typedef struct cap_va_chunk {
	uint64_t base;
	uint64_t mem;
	uint32_t live;
	cap_va_free_list free; /* offsets within the chunk */
} cap_va_chunk;

/* One placed allocation or reservation. */
typedef struct cap_va_block {
	uint64_t base, size; /* size as placed (rounded) */
	uint64_t asked;      /* size as asked */
	cap_va_chunk *chunk; /* small: its chunk */
	uint64_t mem;        /* large: its memory */
	int reserved;        /* a reservation: nothing backs it */
	int device;
} cap_va_block;

/* A freed large block still backed, for the next request of its size. */
typedef struct cap_va_cached {
	uint64_t base, len, mem;
} cap_va_cached;

typedef struct cap_va_window {
	int device;
	uint64_t base, size, gran;
	cap_va_free_list space; /* offsets within the window not in use */
	cap_umap chunks;      /* chunk base -> cap_va_chunk */
	cap_va_chunk *empty;    /* the one emptied chunk kept backed */
	cap_va_cached *cache;   /* oldest first */
	size_t ncache, cap_cache;
	uint64_t cache_bytes;
} cap_va_window;

/* A stream-ordered free waiting for its stream to reach it. */
typedef struct cap_va_deferred {
	uint64_t addr, token;
} cap_va_deferred;

struct cap_va {
	cap_va_ops ops;
	cap_va_window *win[CAP_VA_MAX_DEVICES];
	cap_umap blocks; /* placed address -> cap_va_block */
	cap_va_deferred *deferred; /* oldest first */
	size_t ndeferred, cap_deferred;
};

/* ---- free ranges ------------------------------------------------------------- */

static int cap_va_free_grow(cap_va_free_list *f)
{
	size_t cap = f->cap ? f->cap * 2 : 16;
	cap_va_range *r = realloc(f->r, cap * sizeof(*r));
	if (!r)
		return -1;
	f->r = r;
	f->cap = cap;
	return 0;
}

/* First fit with the given alignment (of off + base_addr); 0 and *off_out,
 * or -1 when nothing fits. */
static int cap_va_take(cap_va_free_list *f, uint64_t base_addr, uint64_t len, uint64_t align,
                       uint64_t *off_out)
{
	for (size_t i = 0; i < f->n; i++) {
		cap_va_range *r = &f->r[i];
		uint64_t start = ((base_addr + r->off + align - 1) & ~(align - 1)) - base_addr;
		uint64_t pad = start - r->off;
		if (pad > r->len || r->len - pad < len)
			continue;
		if (pad == 0) {
			r->off += len;
			r->len -= len;
			if (r->len == 0) {
				memmove(r, r + 1, (f->n - i - 1) * sizeof(*r));
				f->n--;
			}
		} else {
			uint64_t tail_off = start + len, tail_len = r->off + r->len - tail_off;
			r->len = pad;
			if (tail_len) {
				if (f->n == f->cap && cap_va_free_grow(f) != 0) {
					r = &f->r[i];
					r->len = pad + len + tail_len;
					return -1;
				}
				memmove(&f->r[i + 2], &f->r[i + 1], (f->n - i - 1) * sizeof(*r));
				f->r[i + 1].off = tail_off;
				f->r[i + 1].len = tail_len;
				f->n++;
			}
		}
		*off_out = start;
		return 0;
	}
	return -1;
}

/* Give a range back, merging with its neighbours; -1 out of memory. */
static int cap_va_give(cap_va_free_list *f, uint64_t off, uint64_t len)
{
	size_t i = 0;
	while (i < f->n && f->r[i].off < off)
		i++;
	if (i > 0 && f->r[i - 1].off + f->r[i - 1].len == off) {
		f->r[i - 1].len += len;
		if (i < f->n && off + len == f->r[i].off) {
			f->r[i - 1].len += f->r[i].len;
			memmove(&f->r[i], &f->r[i + 1], (f->n - i - 1) * sizeof(f->r[0]));
			f->n--;
		}
		return 0;
	}
	if (i < f->n && off + len == f->r[i].off) {
		f->r[i].off = off;
		f->r[i].len += len;
		return 0;
	}
	if (f->n == f->cap && cap_va_free_grow(f) != 0)
		return -1;
	memmove(&f->r[i + 1], &f->r[i], (f->n - i) * sizeof(f->r[0]));
	f->r[i].off = off;
	f->r[i].len = len;
	f->n++;
	return 0;
}

/* ---- configuration ------------------------------------------------------------- */

static int cap_va_parse_u64(const char *s, char **end, uint64_t *out)
{
	unsigned long long v;
	char *e;
	if (!s || !*s || *s == '-')
		return -1;
	v = strtoull(s, &e, 0);
	if (e == s)
		return -1;
	switch (*e) {
	case 'K': case 'k': v <<= 10; e++; break;
	case 'M': case 'm': v <<= 20; e++; break;
	case 'G': case 'g': v <<= 30; e++; break;
	case 'T': case 't': v <<= 40; e++; break;
	default: break;
	}
	*end = e;
	*out = v;
	return 0;
}

int cap_va_parse(const char *v, uint64_t *base, uint64_t *size)
{
	uint64_t b = 0, sz = *size;
	char *e;
	if (v && strcmp(v, "off") == 0)
		return 1;
	if (cap_va_parse_u64(v, &e, &b) != 0 || (*e && *e != ':') ||
	    (*e == ':' && (cap_va_parse_u64(e + 1, &e, &sz) != 0 || *e)) || !b || !sz ||
	    b % CAP_VA_MIN_GRAN || sz % CAP_VA_MIN_GRAN)
		return -1;
	*base = b;
	*size = sz;
	return 0;
}

/* ---- windows ------------------------------------------------------------------- */

cap_va *cap_va_create(const cap_va_ops *ops)
{
	cap_va *va = calloc(1, sizeof(*va));
	if (va)
		va->ops = *ops;
	return va;
}

static void cap_va_chunk_free(cap_va_chunk *ch)
{
	if (ch)
		free(ch->free.r);
	free(ch);
}

void cap_va_free(cap_va *va)
{
	if (!va)
		return;
	for (int d = 0; d < CAP_VA_MAX_DEVICES; d++) {
		cap_va_window *w = va->win[d];
		if (!w)
			continue;
		for (size_t i = 0; i < w->chunks.n; i++)
			cap_va_chunk_free(w->chunks.vals[i]);
		cap_umap_free(&w->chunks);
		free(w->space.r);
		free(w->cache);
		free(w);
	}
	for (size_t i = 0; i < va->blocks.n; i++)
		free(va->blocks.vals[i]);
	cap_umap_free(&va->blocks);
	free(va->deferred);
	free(va);
}

int cap_va_window_add(cap_va *va, int device, uint64_t base, uint64_t size, uint64_t gran)
{
	cap_va_window *w;
	if (device < 0 || device >= CAP_VA_MAX_DEVICES || va->win[device] || !size ||
	    gran < CAP_VA_MIN_GRAN || (gran & (gran - 1)))
		return -1;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->device = device;
	w->base = base;
	w->size = size;
	w->gran = gran;
	if (cap_va_give(&w->space, 0, size) != 0) {
		free(w);
		return -1;
	}
	va->win[device] = w;
	return 0;
}

int cap_va_window_get(const cap_va *va, int device, uint64_t *base_out, uint64_t *size_out)
{
	const cap_va_window *w;
	if (!va || device < 0 || device >= CAP_VA_MAX_DEVICES || !(w = va->win[device]))
		return 0;
	*base_out = w->base;
	*size_out = w->size;
	return 1;
}

/* ---- backing ------------------------------------------------------------------- */

static void cap_va_unback(cap_va *va, const cap_va_window *w, uint64_t base, uint64_t len,
                          uint64_t mem)
{
	va->ops.unback(va->ops.ctx, w->device, base, len, mem);
}

/* A chunk with no allocation left: unbacked, its range given back. */
static void cap_va_chunk_release(cap_va *va, cap_va_window *w, cap_va_chunk *ch)
{
	if (w->empty == ch)
		w->empty = NULL;
	cap_umap_del(&w->chunks, ch->base);
	cap_va_unback(va, w, ch->base, w->gran, ch->mem);
	cap_va_give(&w->space, ch->base - w->base, w->gran);
	cap_va_chunk_free(ch);
}

/* Drop the oldest cached blocks until the cache holds at most limit bytes. */
static void cap_va_cache_trim(cap_va *va, cap_va_window *w, uint64_t limit)
{
	size_t k = 0;
	while (k < w->ncache && w->cache_bytes > limit) {
		cap_va_cached *c = &w->cache[k++];
		cap_va_unback(va, w, c->base, c->len, c->mem);
		cap_va_give(&w->space, c->base - w->base, c->len);
		w->cache_bytes -= c->len;
	}
	memmove(w->cache, w->cache + k, (w->ncache - k) * sizeof(*w->cache));
	w->ncache -= k;
}

/* A freed large block: kept backed in the cache, or dropped. */
static void cap_va_cache_put(cap_va *va, cap_va_window *w, uint64_t base, uint64_t len,
                             uint64_t mem)
{
	if (len <= CAP_VA_CACHE_BYTES && w->ncache == w->cap_cache) {
		size_t cap = w->cap_cache ? w->cap_cache * 2 : 16;
		cap_va_cached *n = realloc(w->cache, cap * sizeof(*n));
		if (n) {
			w->cache = n;
			w->cap_cache = cap;
		}
	}
	if (len > CAP_VA_CACHE_BYTES || w->ncache == w->cap_cache) {
		cap_va_unback(va, w, base, len, mem);
		cap_va_give(&w->space, base - w->base, len);
		return;
	}
	w->cache[w->ncache].base = base;
	w->cache[w->ncache].len = len;
	w->cache[w->ncache].mem = mem;
	w->ncache++;
	w->cache_bytes += len;
	cap_va_cache_trim(va, w, CAP_VA_CACHE_BYTES);
}

/* The newest cached block of exactly len bytes: 1 and its address and
 * memory, taken out of the cache; else 0. */
static int cap_va_cache_take(cap_va_window *w, uint64_t len, uint64_t *base_out, uint64_t *mem_out)
{
	for (size_t i = w->ncache; i-- > 0;) {
		if (w->cache[i].len != len)
			continue;
		*base_out = w->cache[i].base;
		*mem_out = w->cache[i].mem;
		w->cache_bytes -= len;
		memmove(&w->cache[i], &w->cache[i + 1], (w->ncache - i - 1) * sizeof(*w->cache));
		w->ncache--;
		return 1;
	}
	return 0;
}

/* ---- allocation ---------------------------------------------------------------- */

static cap_va_status cap_va_alloc_small(cap_va *va, cap_va_window *w, uint64_t len,
                                        uint64_t *out, cap_va_chunk **chunk_out, int *err_out)
{
	cap_va_chunk *ch = NULL;
	uint64_t off, coff;
	cap_va_status st = CAP_VA_NO_ROOM;
	int err;
	for (size_t i = 0; i < w->chunks.n; i++) {
		cap_va_chunk *c = w->chunks.vals[i];
		if (cap_va_take(&c->free, c->base, len, CAP_VA_ALIGN, &off) == 0) {
			ch = c;
			if (w->empty == ch)
				w->empty = NULL;
			goto out_found;
		}
	}
	if (cap_va_take(&w->space, w->base, w->gran, w->gran, &coff) != 0)
		return CAP_VA_NO_ROOM;
	ch = calloc(1, sizeof(*ch));
	if (!ch || cap_va_give(&ch->free, 0, w->gran) != 0)
		goto out_undo;
	ch->base = w->base + coff;
	err = va->ops.back(va->ops.ctx, w->device, ch->base, w->gran, &ch->mem);
	if (err != 0) {
		if (err_out)
			*err_out = err;
		st = CAP_VA_BACKING;
		goto out_undo;
	}
	if (cap_umap_put(&w->chunks, ch->base, ch) != NULL) {
		cap_va_unback(va, w, ch->base, w->gran, ch->mem);
		goto out_undo;
	}
	cap_va_take(&ch->free, ch->base, len, CAP_VA_ALIGN, &off); /* a new chunk always fits */
out_found:
	ch->live++;
	*out = ch->base + off;
	*chunk_out = ch;
	return CAP_VA_OK;
out_undo:
	cap_va_chunk_free(ch);
	cap_va_give(&w->space, coff, w->gran);
	return st;
}

cap_va_status cap_va_alloc(cap_va *va, int device, uint64_t size, int reserve_only, uint64_t align,
                           uint64_t *out, int *err_out)
{
	cap_va_window *w;
	cap_va_block *b;
	uint64_t len, off = 0, addr = 0;
	cap_va_status st;
	int err;
	if (!va || device < 0 || device >= CAP_VA_MAX_DEVICES || !(w = va->win[device]) || size == 0)
		return CAP_VA_PASS;
	b = calloc(1, sizeof(*b));
	if (!b)
		return CAP_VA_NO_ROOM;
	if (!reserve_only && size <= CAP_VA_SMALL) {
		len = (size + CAP_VA_ALIGN - 1) & ~(uint64_t)(CAP_VA_ALIGN - 1);
		st = cap_va_alloc_small(va, w, len, &addr, &b->chunk, err_out);
		if (st != CAP_VA_OK)
			goto out_free;
	} else {
		uint64_t a = align > w->gran ? align : w->gran;
		st = CAP_VA_NO_ROOM;
		if (size > w->size)
			goto out_free;
		len = (size + w->gran - 1) & ~(uint64_t)(w->gran - 1);
		if (!reserve_only && a == w->gran && cap_va_cache_take(w, len, &addr, &b->mem))
			goto out_placed;
		if (cap_va_take(&w->space, w->base, len, a, &off) != 0) {
			/* The cache may hold what would make room. */
			cap_va_cache_trim(va, w, 0);
			if (cap_va_take(&w->space, w->base, len, a, &off) != 0)
				goto out_free;
		}
		addr = w->base + off;
		if (!reserve_only) {
			err = va->ops.back(va->ops.ctx, w->device, addr, len, &b->mem);
			if (err != 0) {
				cap_va_give(&w->space, off, len);
				if (err_out)
					*err_out = err;
				st = CAP_VA_BACKING;
				goto out_free;
			}
		}
	}
out_placed:
	b->base = addr;
	b->size = len;
	b->asked = size;
	b->reserved = reserve_only;
	b->device = device;
	if (cap_umap_put(&va->blocks, addr, b) != NULL)
		goto out_unplace; /* untracked, it could never be freed */
	*out = addr;
	return CAP_VA_OK;
out_unplace:
	if (b->chunk) {
		cap_va_give(&b->chunk->free, addr - b->chunk->base, len);
		b->chunk->live--;
	} else if (!reserve_only) {
		cap_va_cache_put(va, w, addr, len, b->mem);
	} else {
		cap_va_give(&w->space, addr - w->base, len);
	}
	st = CAP_VA_NO_ROOM;
out_free:
	free(b);
	return st;
}

int cap_va_placed(const cap_va *va, uint64_t addr)
{
	return va && cap_umap_get(&va->blocks, addr) != NULL;
}

cap_va_status cap_va_release(cap_va *va, uint64_t addr, int reserve_only)
{
	cap_va_block *b = va ? cap_umap_get(&va->blocks, addr) : NULL;
	cap_va_window *w;
	if (!b || reserve_only != b->reserved)
		return CAP_VA_PASS;
	cap_umap_del(&va->blocks, addr);
	w = va->win[b->device];
	if (b->chunk) {
		cap_va_chunk *ch = b->chunk;
		cap_va_give(&ch->free, addr - ch->base, b->size);
		if (--ch->live == 0) {
			/* Keep the last emptied chunk: alternating allocate/free
			 * would otherwise map and unmap it every time. */
			if (w->empty && w->empty != ch)
				cap_va_chunk_release(va, w, w->empty);
			w->empty = ch;
		}
	} else if (!b->reserved) {
		cap_va_cache_put(va, w, b->base, b->size, b->mem);
	} else {
		cap_va_give(&w->space, b->base - w->base, b->size);
	}
	free(b);
	return CAP_VA_OK;
}

cap_va_status cap_va_defer(cap_va *va, uint64_t addr, uint64_t token)
{
	if (!cap_va_placed(va, addr))
		return CAP_VA_PASS;
	if (va->ndeferred == va->cap_deferred) {
		size_t cap = va->cap_deferred ? va->cap_deferred * 2 : 16;
		cap_va_deferred *n = realloc(va->deferred, cap * sizeof(*n));
		if (!n)
			return CAP_VA_NO_ROOM;
		va->deferred = n;
		va->cap_deferred = cap;
	}
	va->deferred[va->ndeferred].addr = addr;
	va->deferred[va->ndeferred].token = token;
	va->ndeferred++;
	return CAP_VA_OK;
}

void cap_va_poll(cap_va *va)
{
	size_t k = 0;
	if (!va)
		return;
	for (size_t i = 0; i < va->ndeferred; i++) {
		cap_va_deferred *d = &va->deferred[i];
		if (va->ops.reached(va->ops.ctx, d->token)) {
			cap_va_release(va, d->addr, 0);
			va->ops.retire(va->ops.ctx, d->token);
			continue;
		}
		va->deferred[k++] = *d;
	}
	va->ndeferred = k;
}

int cap_va_lookup(const cap_va *va, uint64_t addr, uint64_t *base_out, uint64_t *size_out,
                  uint64_t *asked_out)
{
	if (!va)
		return 0;
	for (size_t lo = 0, hi = va->blocks.n; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		const cap_va_block *b = va->blocks.vals[mid];
		if (addr < b->base) {
			hi = mid;
		} else if (addr - b->base >= b->size) {
			lo = mid + 1;
		} else {
			*base_out = b->base;
			*size_out = b->size;
			if (asked_out)
				*asked_out = b->asked;
			return 1;
		}
	}
	return 0;
}
