/*
 * tcu_va.c - same-address capture: the interposer places device
 * allocations itself, inside one virtual-address window per device, so
 * that replay can take the same addresses again and every pointer the
 * program keeps (in kernel arguments, in structs passed by value, in
 * device memory) stays valid.
 *
 * Why (../shared/gpu-fixtures/README.md, measured on an H100): the real
 * driver never honours, in another process, an address it chose for
 * cuMemAlloc (facts 1 and 3), and once the runtime has started it places
 * small fixed reservations elsewhere but honours one large reservation in
 * a far window (fact 4).  So capture reserves one window per device before
 * the first allocation and serves allocations from it; replay reserves the
 * same window and maps each allocation at its captured address.
 *
 * Window: TRACESMITH_CUDA_VA=off|BASE[:SIZE] (default 0x200000000000:512G);
 * device n at BASE + n * SIZE.  Reserved with cuMemAddressReserve at the
 * first allocation on the device, recorded as a tsVaWindow record.  If the
 * driver does not give exactly that range, capture goes on at driver
 * addresses and says so once.
 *
 * Placement (deterministic: it depends only on the sequence of calls):
 *   - requests up to TCU_VA_SMALL bytes are rounded up to TCU_VA_ALIGN and
 *     sub-allocated, first fit, from chunks of one granule (2 MiB), chunks
 *     tried in address order; a chunk whose last allocation is freed is
 *     unmapped and its physical memory released;
 *   - larger requests are rounded up to the granule and take the lowest
 *     free range of the window that fits;
 *   - the program's own cuMemAddressReserve(addr = 0) takes a range of the
 *     window too, left unmapped for the program to map.
 *   Physical memory: cuMemCreate (pinned device memory of the device) +
 *   cuMemMap + cuMemSetAccess for the device and every device that can
 *   access it as a peer.  Mapping costs far more than a cuMemAlloc, so what
 *   is freed stays mapped while it is likely to be asked for again: the
 *   last chunk to empty, and freed large blocks up to TCU_VA_CACHE_BYTES
 *   in all, each given back, newest first, to a request of its exact
 *   (rounded) size at its old address.
 *
 * What this changes for the program: cuMemGetAddressRange and the
 * range attributes of cuPointerGetAttribute(s) would name the whole
 * mapping (a chunk), so they are answered from our table; legacy IPC
 * (cuIpcGetMemHandle) does not take VMM memory, which the exit report and
 * docs/cuda.md say (TRACESMITH_CUDA_VA=off is the way out); frees
 * wait for the context's work first, as cuMemFree does; a stream-ordered
 * free (cuMemFreeAsync) releases its memory once its stream has reached
 * it, told by an event recorded there at the free.
 * Managed memory is not placed (the driver migrates it): it is counted.
 *
 * Locking: tcu_g.va_mu guards everything here and is held across the
 * recorder's own driver calls (they go to real[] and never re-enter).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

#define TCU_VA_DEFAULT_BASE 0x200000000000ull
#define TCU_VA_DEFAULT_SIZE (512ull << 30)
#define TCU_VA_SMALL (1u << 20)  /* sub-allocated from chunks up to this */
#define TCU_VA_ALIGN 512u        /* what cuMemAlloc's addresses are aligned to */
#define TCU_VA_MIN_GRAN (2u << 20)
#define TCU_VA_CACHE_BYTES (256ull << 20) /* freed large blocks kept mapped */

/* A granule of small allocations. */
typedef struct tcu_va_chunk {
	uint64_t base;
	CUmemGenericAllocationHandle h;
	uint32_t live;
	tcu_va_free free; /* offsets within the chunk */
} tcu_va_chunk;

/* One placed allocation or program reservation. */
typedef struct tcu_va_block {
	uint64_t base, size; /* size as placed (rounded) */
	tcu_va_chunk *chunk; /* small: its chunk */
	CUmemGenericAllocationHandle h; /* large: its memory; 0 for a reservation */
	int window;
} tcu_va_block;

static int tcu_va_free_grow(tcu_va_free *f)
{
	size_t cap = f->cap ? f->cap * 2 : 16;
	tcu_va_range *r = realloc(f->r, cap * sizeof(*r));
	if (!r)
		return -1;
	f->r = r;
	f->cap = cap;
	return 0;
}

/* First fit with the given alignment (of off + base_addr); 0 and *off_out,
 * or -1 when nothing fits. */
static int tcu_va_take(tcu_va_free *f, uint64_t base_addr, uint64_t len, uint64_t align,
                       uint64_t *off_out)
{
	for (size_t i = 0; i < f->n; i++) {
		tcu_va_range *r = &f->r[i];
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
				if (f->n == f->cap && tcu_va_free_grow(f) != 0) {
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
static int tcu_va_give(tcu_va_free *f, uint64_t off, uint64_t len)
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
	if (f->n == f->cap && tcu_va_free_grow(f) != 0)
		return -1;
	memmove(&f->r[i + 1], &f->r[i], (f->n - i) * sizeof(f->r[0]));
	f->r[i].off = off;
	f->r[i].len = len;
	f->n++;
	return 0;
}

/* ---- configuration -------------------------------------------------------- */

static int tcu_va_parse_u64(const char *s, char **end, uint64_t *out)
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

/* Read TRACESMITH_CUDA_VA once (under va_mu). */
static void tcu_va_config(void)
{
	const char *v = getenv("TRACESMITH_CUDA_VA");
	uint64_t base = TCU_VA_DEFAULT_BASE, size = TCU_VA_DEFAULT_SIZE;
	char *e;
	if (tcu_g.va.configured)
		return;
	tcu_g.va.configured = 1;
	tcu_g.va.enabled = 1;
	if (v && strcmp(v, "off") == 0) {
		tcu_g.va.enabled = 0;
		CAP_WARN("cuda: TRACESMITH_CUDA_VA=off: device allocations stay at the driver's "
		         "addresses, which replay cannot have again: it relocates them and patches "
		         "pointer parameters only");
		return;
	}
	if (v && *v) {
		if (tcu_va_parse_u64(v, &e, &base) != 0 || (*e && *e != ':') ||
		    (*e == ':' && (tcu_va_parse_u64(e + 1, &e, &size) != 0 || *e)) || !base || !size ||
		    base % TCU_VA_MIN_GRAN || size % TCU_VA_MIN_GRAN) {
			CAP_WARN("cuda: TRACESMITH_CUDA_VA='%s' is not off or BASE[:SIZE] (2 MiB multiples, "
			         "e.g. 0x200000000000:512G); using the default 0x%" PRIx64 ":512G",
			         v, (uint64_t)TCU_VA_DEFAULT_BASE);
			base = TCU_VA_DEFAULT_BASE;
			size = TCU_VA_DEFAULT_SIZE;
		}
	}
	tcu_g.va.base = base;
	tcu_g.va.size = size;
}

/* ---- windows ---------------------------------------------------------------- */

/* The window of the current context's device, reserved on first use; NULL
 * when there is none (off, unavailable, no context). */
static tcu_va_window *tcu_va_window_get(void)
{
	tcu_pfn_cuCtxGetDevice getdev;
	tcu_pfn_cuMemAddressReserve reserve;
	tcu_pfn_cuMemGetAllocationGranularity granf;
	tcu_pfn_cuDeviceCanAccessPeer canpeer;
	tcu_pfn_cuDeviceGetCount countf;
	CUmemAllocationProp prop;
	tcu_va_window *w;
	CUdeviceptr got = 0;
	CUdevice dev;
	size_t gran = 0;
	uint64_t want;
	int ndev = 0;
	CUresult r;

	tcu_va_config();
	if (!tcu_g.va.enabled)
		return NULL;
	getdev = (tcu_pfn_cuCtxGetDevice)tcu_own(TCU_FN_cuCtxGetDevice);
	if (!getdev || getdev(&dev) != CUDA_SUCCESS || dev < 0 ||
	    dev >= TCU_VA_MAX_DEVICES)
		return NULL;
	w = &tcu_g.va.win[dev];
	if (w->state)
		return w->state > 0 ? w : NULL;
	w->state = -1;
	w->device = dev;
	reserve = (tcu_pfn_cuMemAddressReserve)tcu_own(TCU_FN_cuMemAddressReserve);
	granf = (tcu_pfn_cuMemGetAllocationGranularity)tcu_own(TCU_FN_cuMemGetAllocationGranularity);
	if (!reserve || !tcu_g.real[TCU_FN_cuMemAddressFree] || !granf ||
	    !tcu_g.real[TCU_FN_cuMemCreate] || !tcu_g.real[TCU_FN_cuMemUnmap] ||
	    !tcu_g.real[TCU_FN_cuMemRelease] ||
	    !tcu_g.real[TCU_FN_cuMemMap] || !tcu_g.real[TCU_FN_cuMemSetAccess]) {
		CAP_WARN("cuda: the driver has no virtual memory management calls: device %d's "
		         "allocations stay at driver addresses, and replay relocates them",
		         (int)dev);
		return NULL;
	}
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	if (granf(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !gran)
		gran = TCU_VA_MIN_GRAN;
	if (gran < TCU_VA_MIN_GRAN)
		gran = TCU_VA_MIN_GRAN;
	want = tcu_g.va.base + (uint64_t)dev * tcu_g.va.size;
	r = reserve(&got, tcu_g.va.size, gran, want, 0);
	if (r != CUDA_SUCCESS || got != want) {
		if (r == CUDA_SUCCESS)
			((tcu_pfn_cuMemAddressFree)tcu_own(TCU_FN_cuMemAddressFree))(got, tcu_g.va.size);
		CAP_WARN("cuda: cannot reserve the address window 0x%" PRIx64 "+0x%" PRIx64
		         " for device %d (%s): its allocations stay at driver addresses, and replay "
		         "relocates them (TRACESMITH_CUDA_VA chooses another window)",
		         want, tcu_g.va.size, (int)dev,
		         r != CUDA_SUCCESS ? "the driver refused" : "the driver placed it elsewhere");
		return NULL;
	}
	w->base = want;
	w->size = tcu_g.va.size;
	w->gran = gran;
	w->space.n = 0;
	if (tcu_va_give(&w->space, 0, w->size) != 0) {
		((tcu_pfn_cuMemAddressFree)tcu_own(TCU_FN_cuMemAddressFree))(got, tcu_g.va.size);
		return NULL;
	}
	/* Access for the device and each device that can reach it as a peer. */
	w->access[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	w->access[0].location.id = dev;
	w->access[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	w->naccess = 1;
	countf = tcu_g.real[TCU_FN_cuDeviceCanAccessPeer]
	             ? (tcu_pfn_cuDeviceGetCount)tcu_own(TCU_FN_cuDeviceGetCount)
	             : NULL;
	if (countf && countf(&ndev) == CUDA_SUCCESS && ndev > 1) {
		canpeer = (tcu_pfn_cuDeviceCanAccessPeer)tcu_own(TCU_FN_cuDeviceCanAccessPeer);
		for (int d = 0; d < ndev && w->naccess < TCU_VA_MAX_DEVICES; d++) {
			int can = 0;
			if (d == dev || canpeer(&can, d, dev) != CUDA_SUCCESS || !can)
				continue;
			w->access[w->naccess] = w->access[0];
			w->access[w->naccess].location.id = d;
			w->naccess++;
		}
	}
	w->state = 1;
	if (cap_active()) {
		sbt_cm_call c;
		sbt_cm_call_init(&c);
		c.device = dev;
		c.dst = w->base;
		c.size = w->size;
		tcu_emit(SBT_CM_K_tsVaWindow, TCU_FN_cuMemAddressReserve, &c, 0);
	}
	return w;
}

/* Physical memory for [base, base + len): 0, or the driver's error. */
static CUresult tcu_va_back(tcu_va_window *w, uint64_t base, uint64_t len,
                            CUmemGenericAllocationHandle *h_out)
{
	tcu_pfn_cuMemCreate create = (tcu_pfn_cuMemCreate)tcu_own(TCU_FN_cuMemCreate);
	tcu_pfn_cuMemMap map = (tcu_pfn_cuMemMap)tcu_own(TCU_FN_cuMemMap);
	tcu_pfn_cuMemSetAccess access = (tcu_pfn_cuMemSetAccess)tcu_own(TCU_FN_cuMemSetAccess);
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h = 0;
	CUresult r;
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = w->device;
	r = create(&h, len, &prop, 0);
	if (r != CUDA_SUCCESS)
		goto out;
	r = map(base, len, 0, h, 0);
	if (r != CUDA_SUCCESS)
		goto out_release;
	r = access(base, len, w->access, w->naccess);
	if (r != CUDA_SUCCESS)
		goto out_unmap;
	*h_out = h;
	goto out;
out_unmap:
	((tcu_pfn_cuMemUnmap)tcu_own(TCU_FN_cuMemUnmap))(base, len);
out_release:
	((tcu_pfn_cuMemRelease)tcu_own(TCU_FN_cuMemRelease))(h);
out:
	return r;
}

/* Drop the memory behind a range (the context's work is done: frees wait
 * for it first). */
static void tcu_va_unback(uint64_t base, uint64_t len, CUmemGenericAllocationHandle h)
{
	tcu_pfn_cuMemUnmap unmap = (tcu_pfn_cuMemUnmap)tcu_own(TCU_FN_cuMemUnmap);
	tcu_pfn_cuMemRelease release = (tcu_pfn_cuMemRelease)tcu_own(TCU_FN_cuMemRelease);
	unmap(base, len);
	release(h);
}

/* A chunk with no allocation left: unmapped, its range given back. */
static void tcu_va_chunk_release(tcu_va_window *w, tcu_va_chunk *ch)
{
	if (w->empty == ch)
		w->empty = NULL;
	tcu_map_del(&tcu_g.va.chunks, ch->base);
	tcu_va_unback(ch->base, w->gran, ch->h);
	tcu_va_give(&w->space, ch->base - w->base, w->gran);
	free(ch->free.r);
	free(ch);
}

/* Drop the oldest cached blocks until the cache holds at most limit bytes. */
static void tcu_va_cache_trim(tcu_va_window *w, uint64_t limit)
{
	size_t k = 0;
	while (k < w->ncache && w->cache_bytes > limit) {
		tcu_va_cached *c = &w->cache[k++];
		tcu_va_unback(c->base, c->len, c->h);
		tcu_va_give(&w->space, c->base - w->base, c->len);
		w->cache_bytes -= c->len;
	}
	memmove(w->cache, w->cache + k, (w->ncache - k) * sizeof(*w->cache));
	w->ncache -= k;
}

/* A freed large block: kept mapped in the cache, or dropped. */
static void tcu_va_cache_put(tcu_va_window *w, uint64_t base, uint64_t len,
                             CUmemGenericAllocationHandle h)
{
	if (len <= TCU_VA_CACHE_BYTES && w->ncache == w->cap_cache) {
		size_t cap = w->cap_cache ? w->cap_cache * 2 : 16;
		tcu_va_cached *n = realloc(w->cache, cap * sizeof(*n));
		if (n) {
			w->cache = n;
			w->cap_cache = cap;
		}
	}
	if (len > TCU_VA_CACHE_BYTES || w->ncache == w->cap_cache) {
		tcu_va_unback(base, len, h);
		tcu_va_give(&w->space, base - w->base, len);
		return;
	}
	w->cache[w->ncache].base = base;
	w->cache[w->ncache].len = len;
	w->cache[w->ncache].h = h;
	w->ncache++;
	w->cache_bytes += len;
	tcu_va_cache_trim(w, TCU_VA_CACHE_BYTES);
}

/* The newest cached block of exactly len bytes: 1 and its address and
 * memory, taken out of the cache; else 0. */
static int tcu_va_cache_take(tcu_va_window *w, uint64_t len, uint64_t *base_out,
                             CUmemGenericAllocationHandle *h_out)
{
	for (size_t i = w->ncache; i-- > 0;) {
		if (w->cache[i].len != len)
			continue;
		*base_out = w->cache[i].base;
		*h_out = w->cache[i].h;
		w->cache_bytes -= len;
		memmove(&w->cache[i], &w->cache[i + 1], (w->ncache - i - 1) * sizeof(*w->cache));
		w->ncache--;
		return 1;
	}
	return 0;
}

static tcu_va_window *tcu_va_window_of(uint64_t addr)
{
	for (int d = 0; d < TCU_VA_MAX_DEVICES; d++) {
		tcu_va_window *w = &tcu_g.va.win[d];
		if (w->state > 0 && addr >= w->base && addr - w->base < w->size)
			return w;
	}
	return NULL;
}

/* ---- allocation ------------------------------------------------------------- */

static CUresult tcu_va_alloc_small(tcu_va_window *w, uint64_t len, uint64_t *out)
{
	tcu_va_chunk *ch = NULL;
	uint64_t off, coff;
	CUresult r;
	for (size_t i = 0; i < tcu_g.va.chunks.n; i++) {
		tcu_va_chunk *c = tcu_g.va.chunks.vals[i];
		if (tcu_va_window_of(c->base) == w &&
		    tcu_va_take(&c->free, c->base, len, TCU_VA_ALIGN, &off) == 0) {
			ch = c;
			if (w->empty == ch)
				w->empty = NULL;
			goto out_found;
		}
	}
	if (tcu_va_take(&w->space, w->base, w->gran, w->gran, &coff) != 0)
		return CUDA_ERROR_OUT_OF_MEMORY;
	ch = calloc(1, sizeof(*ch));
	if (!ch || tcu_va_give(&ch->free, 0, w->gran) != 0) {
		r = CUDA_ERROR_OUT_OF_MEMORY;
		goto out_undo;
	}
	ch->base = w->base + coff;
	r = tcu_va_back(w, ch->base, w->gran, &ch->h);
	if (r != CUDA_SUCCESS)
		goto out_undo;
	if (tcu_map_put(&tcu_g.va.chunks, ch->base, ch) == ch) {
		tcu_va_unback(ch->base, w->gran, ch->h);
		r = CUDA_ERROR_OUT_OF_MEMORY;
		goto out_undo;
	}
	tcu_va_take(&ch->free, ch->base, len, TCU_VA_ALIGN, &off); /* a new chunk always fits */
out_found:
	ch->live++;
	*out = ch->base + off;
	return CUDA_SUCCESS;
out_undo:
	if (ch)
		free(ch->free.r);
	free(ch);
	tcu_va_give(&w->space, coff, w->gran);
	return r;
}

static void tcu_va_poll_deferred(void);

CUresult tcu_va_alloc(size_t size, int reserve_only, size_t align, uint64_t *out)
{
	tcu_va_window *w;
	tcu_va_block *b = NULL;
	uint64_t len, off = 0, addr = 0;
	CUresult r = CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&tcu_g.va_mu);
	w = tcu_va_window_get();
	if (!w || size == 0)
		goto out_unlock;
	tcu_va_poll_deferred();
	b = calloc(1, sizeof(*b));
	if (!b) {
		r = CUDA_ERROR_OUT_OF_MEMORY;
		goto out_unlock;
	}
	if (!reserve_only && size <= TCU_VA_SMALL) {
		len = (size + TCU_VA_ALIGN - 1) & ~(uint64_t)(TCU_VA_ALIGN - 1);
		r = tcu_va_alloc_small(w, len, &addr);
		if (r != CUDA_SUCCESS)
			goto out_unlock;
		b->chunk = tcu_map_get(&tcu_g.va.chunks, addr & ~(uint64_t)(w->gran - 1));
	} else {
		uint64_t a = align > w->gran ? align : w->gran;
		if (size > w->size) {
			r = CUDA_ERROR_OUT_OF_MEMORY;
			goto out_unlock;
		}
		len = (size + w->gran - 1) & ~(uint64_t)(w->gran - 1);
		if (!reserve_only && a == w->gran && tcu_va_cache_take(w, len, &addr, &b->h))
			goto out_placed;
		if (tcu_va_take(&w->space, w->base, len, a, &off) != 0) {
			/* The cache may hold what would make room. */
			tcu_va_cache_trim(w, 0);
			if (tcu_va_take(&w->space, w->base, len, a, &off) != 0) {
				r = CUDA_ERROR_OUT_OF_MEMORY;
				goto out_unlock;
			}
		}
		addr = w->base + off;
		if (!reserve_only) {
			r = tcu_va_back(w, addr, len, &b->h);
			if (r != CUDA_SUCCESS) {
				tcu_va_give(&w->space, off, len);
				goto out_unlock;
			}
		}
	}
out_placed:
	b->base = addr;
	b->size = len;
	b->window = w->device;
	tcu_map_put(&tcu_g.va.blocks, addr, b);
	b = NULL;
	*out = addr;
	r = CUDA_SUCCESS;
out_unlock:
	pthread_mutex_unlock(&tcu_g.va_mu);
	free(b);
	return r;
}

/* Give back the placed block at addr (with va_mu held); 0, or
 * CUDA_ERROR_NOT_SUPPORTED when it is not ours or not of that kind. */
static CUresult tcu_va_release_locked(uint64_t addr, int reserve_only)
{
	tcu_va_block *b = tcu_map_get(&tcu_g.va.blocks, addr);
	tcu_va_window *w;
	if (!b || (reserve_only != (!b->chunk && !b->h)))
		return CUDA_ERROR_NOT_SUPPORTED;
	tcu_map_del(&tcu_g.va.blocks, addr);
	w = &tcu_g.va.win[b->window];
	if (b->chunk) {
		tcu_va_chunk *ch = b->chunk;
		tcu_va_give(&ch->free, addr - ch->base, b->size);
		if (--ch->live == 0) {
			/* Keep the last emptied chunk: alternating allocate/free
			 * would otherwise map and unmap it every time. */
			if (w->empty && w->empty != ch)
				tcu_va_chunk_release(w, w->empty);
			w->empty = ch;
		}
	} else if (b->h) {
		tcu_va_cache_put(w, b->base, b->size, b->h);
	} else {
		tcu_va_give(&w->space, b->base - w->base, b->size);
	}
	free(b);
	return CUDA_SUCCESS;
}

/* Release the deferred frees whose streams have reached them (va_mu held). */
static void tcu_va_poll_deferred(void)
{
	tcu_pfn_cuEventQuery query;
	size_t k = 0;
	if (!tcu_g.va.ndeferred)
		return;
	query = (tcu_pfn_cuEventQuery)tcu_g.real[TCU_FN_cuEventQuery];
	for (size_t i = 0; i < tcu_g.va.ndeferred; i++) {
		tcu_va_deferred *d = &tcu_g.va.deferred[i];
		if (query && ((tcu_pfn_cuEventQuery)tcu_own(TCU_FN_cuEventQuery))(d->done) == CUDA_SUCCESS) {
			tcu_va_release_locked(d->addr, 0);
			if (tcu_g.va.nidle < tcu_g.va.cap_idle)
				tcu_g.va.idle_events[tcu_g.va.nidle++] = d->done;
			continue;
		}
		tcu_g.va.deferred[k++] = *d;
	}
	tcu_g.va.ndeferred = k;
}

CUresult tcu_va_release(uint64_t addr, int reserve_only)
{
	tcu_pfn_cuCtxSynchronize sync;
	CUresult r;
	pthread_mutex_lock(&tcu_g.va_mu);
	if (!tcu_map_get(&tcu_g.va.blocks, addr)) {
		r = CUDA_ERROR_NOT_SUPPORTED;
		goto out_unlock;
	}
	/* cuMemFree waits for the context's work: so does ours, before the
	 * range can be handed out again or unmapped. */
	if (!reserve_only && (sync = (tcu_pfn_cuCtxSynchronize)tcu_own(TCU_FN_cuCtxSynchronize)))
		sync();
	tcu_va_poll_deferred();
	r = tcu_va_release_locked(addr, reserve_only);
out_unlock:
	pthread_mutex_unlock(&tcu_g.va_mu);
	return r;
}

/* An event for a deferred free: a finished one again, or a new one. */
static CUresult tcu_va_event(CUevent *out)
{
	if (tcu_g.va.nidle) {
		*out = tcu_g.va.idle_events[--tcu_g.va.nidle];
		return CUDA_SUCCESS;
	}
	if (!tcu_g.real[TCU_FN_cuEventCreate])
		return CUDA_ERROR_NOT_SUPPORTED;
	return ((tcu_pfn_cuEventCreate)tcu_own(TCU_FN_cuEventCreate))(out, CU_EVENT_DISABLE_TIMING);
}

CUresult tcu_va_release_async(uint64_t addr, CUstream s)
{
	tcu_va_deferred *d;
	CUevent ev = NULL;
	CUresult r;
	pthread_mutex_lock(&tcu_g.va_mu);
	if (!tcu_map_get(&tcu_g.va.blocks, addr)) {
		r = CUDA_ERROR_NOT_SUPPORTED;
		goto out_unlock;
	}
	tcu_va_poll_deferred();
	if (tcu_g.va.ndeferred == tcu_g.va.cap_deferred) {
		size_t cap = tcu_g.va.cap_deferred ? tcu_g.va.cap_deferred * 2 : 16;
		tcu_va_deferred *n = realloc(tcu_g.va.deferred, cap * sizeof(*n));
		CUevent *e = realloc(tcu_g.va.idle_events, cap * sizeof(*e));
		if (e) {
			tcu_g.va.idle_events = e;
			tcu_g.va.cap_idle = cap;
		}
		if (!n || !e) {
			if (n)
				tcu_g.va.deferred = n;
			r = CUDA_ERROR_OUT_OF_MEMORY;
			goto out_unlock;
		}
		tcu_g.va.deferred = n;
		tcu_g.va.cap_deferred = cap;
	}
	r = tcu_va_event(&ev);
	if (r == CUDA_SUCCESS && tcu_g.real[TCU_FN_cuEventRecord])
		r = ((tcu_pfn_cuEventRecord)tcu_own(TCU_FN_cuEventRecord))(ev, s);
	else if (r == CUDA_SUCCESS)
		r = CUDA_ERROR_NOT_SUPPORTED;
	if (r != CUDA_SUCCESS) {
		if (ev && tcu_g.va.nidle < tcu_g.va.cap_idle)
			tcu_g.va.idle_events[tcu_g.va.nidle++] = ev;
		goto out_unlock;
	}
	d = &tcu_g.va.deferred[tcu_g.va.ndeferred++];
	d->addr = addr;
	d->done = ev;
out_unlock:
	pthread_mutex_unlock(&tcu_g.va_mu);
	return r;
}

int tcu_va_lookup(uint64_t addr, uint64_t *base_out, uint64_t *size_out)
{
	int found = 0;
	pthread_mutex_lock(&tcu_g.va_mu);
	for (size_t lo = 0, hi = tcu_g.va.blocks.n; lo < hi;) {
		size_t mid = (lo + hi) / 2;
		tcu_va_block *b = tcu_g.va.blocks.vals[mid];
		if (addr < b->base) {
			hi = mid;
		} else if (addr - b->base >= b->size) {
			lo = mid + 1;
		} else {
			*base_out = b->base;
			*size_out = b->size;
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&tcu_g.va_mu);
	return found;
}

void tcu_va_note_unplaced(const char *what)
{
	atomic_fetch_add(&tcu_g.va.unplaced, 1);
	if (atomic_exchange(&tcu_g.va.unplaced_said, 1) == 0)
		CAP_INFO("cuda: %s is not placed in the address window (the driver places it); "
		         "replay relocates it",
		         what);
}
