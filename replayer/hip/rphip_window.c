/*
 * rphip_window.c - same-address replay of the address windows HIP capture
 * placed device allocations in (interpose/hip/thip_va.c, docs/hip.md
 * "Same-address capture").
 *
 * A tsVaWindow record reserves its range at its address first
 * (hipMemAddressReserve with the address as hint).  Every allocation the
 * trace makes inside it is then mapped at its captured address: capture
 * put small allocations side by side in shared 2 MiB chunks, so memory is
 * mapped by granule (the runtime's granularity, at least 2 MiB), each run
 * of granules not yet mapped getting one handle mapped whole
 * (hipMemCreate + hipMemMap + hipMemSetAccess), shared by every live range
 * that touches it and released when the last one goes.  When the runtime
 * places the window elsewhere (the address is a hint it may not honour),
 * the window is given back and its allocations are moved, their pointer
 * arguments rewritten (rphip_exec.c), with one note.
 */
#include "replayer/hip/rphip_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPHIP_WINDOW_MIN_GRAN (2ull << 20)

size_t rphip_granularity(rphip_state *s)
{
	hipMemAllocationProp prop;
	size_t g = 0;

	if (s->granularity)
		return s->granularity;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = 0;
	if (s->rt.p_hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum) !=
	        hipSuccess || !g || (g & (g - 1)))
		g = SIZE_MAX;
	s->granularity = g;
	return g;
}

/* The granule windows are mapped by; 0 when the runtime has none. */
static uint64_t rphip_window_gran(rphip_state *s)
{
	size_t g = rphip_granularity(s);

	if (g == SIZE_MAX)
		return 0;
	return g < RPHIP_WINDOW_MIN_GRAN ? RPHIP_WINDOW_MIN_GRAN : g;
}

static void rphip_window_note(rphip_state *s, const sbt_cm_call *c, const char *why)
{
	if (s->warned_window || s->quiet)
		return;
	s->warned_window = 1;
	fprintf(stderr, "tsreplay: hip: the address window 0x%llx+0x%llx of device %u cannot be "
	        "reserved at its address (%s): its allocations are moved and pointer arguments of "
	        "launches rewritten (pointers kept in device memory are not)\n",
	        (unsigned long long)c->dst, (unsigned long long)c->size, (unsigned)c->device, why);
}

rp_status rphip_window_reserve(rphip_state *s, const sbt_cm_call *c, rp_diag *diag)
{
	uint64_t g = rphip_window_gran(s);
	void *p = NULL;
	hipError_t r;

	if (s->no_reserve)
		return RP_OK;
	if (!c->size || c->dst + c->size < c->dst)
		return rphip_fail(s, diag, RP_ERR_TRACE, "the address window 0x%llx+0x%llx is empty or "
		                  "wraps around", (unsigned long long)c->dst, (unsigned long long)c->size);
	for (size_t i = 0; i < s->nwindows; i++)
		if (c->dst < s->windows[i].base + s->windows[i].size &&
		    s->windows[i].base < c->dst + c->size)
			return rphip_fail(s, diag, RP_ERR_TRACE, "the address window 0x%llx+0x%llx overlaps "
			                  "another", (unsigned long long)c->dst, (unsigned long long)c->size);
	if (!g || c->dst % g || c->size % g) {
		rphip_window_note(s, c, g ? "not aligned to the runtime's granularity"
		                          : "the runtime has no allocation granularity");
		return RP_OK;
	}
	if (s->nwindows == s->capwindows) {
		size_t cap = s->capwindows ? s->capwindows * 2 : 4;
		rphip_window *w = realloc(s->windows, cap * sizeof(*w));
		if (!w)
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		s->windows = w;
		s->capwindows = cap;
	}
	r = s->rt.p_hipMemAddressReserve(&p, c->size, g, (void *)(uintptr_t)c->dst, 0);
	if (r != hipSuccess) {
		rphip_window_note(s, c, "hipMemAddressReserve failed");
		return RP_OK;
	}
	if ((uint64_t)(uintptr_t)p != c->dst) {
		s->rt.p_hipMemAddressFree(p, c->size);
		rphip_window_note(s, c, "the runtime placed it elsewhere");
		return RP_OK;
	}
	s->windows[s->nwindows].base = c->dst;
	s->windows[s->nwindows].size = c->size;
	s->nwindows++;
	return RP_OK;
}

/* Index of the piece holding addr, or -1. */
static long rphip_piece_find(const rphip_state *s, uint64_t addr)
{
	size_t lo = 0, hi = s->npieces;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const rphip_piece *p = &s->pieces[mid];
		if (addr < p->base)
			hi = mid;
		else if (addr - p->base >= p->len)
			lo = mid + 1;
		else
			return (long)mid;
	}
	return -1;
}

static void rphip_piece_drop(rphip_state *s, size_t i)
{
	rphip_piece *p = &s->pieces[i];

	s->rt.p_hipMemUnmap((void *)(uintptr_t)p->base, p->len);
	s->rt.p_hipMemRelease(p->h);
	memmove(p, p + 1, (s->npieces - i - 1) * sizeof(*p));
	s->npieces--;
}

/* Map [base, base + len) with one handle, refs 0: 0, or -1. */
static int rphip_piece_make(rphip_state *s, uint64_t base, uint64_t len)
{
	void *va = (void *)(uintptr_t)base;
	hipMemAllocationProp prop;
	hipMemAccessDesc access;
	hipMemGenericAllocationHandle_t h = NULL;
	size_t i = 0;

	if (s->npieces == s->cappieces) {
		size_t cap = s->cappieces ? s->cappieces * 2 : 32;
		rphip_piece *n = realloc(s->pieces, cap * sizeof(*n));
		if (!n)
			return -1;
		s->pieces = n;
		s->cappieces = cap;
	}
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = s->cur_dev; /* the allocation's device, made current */
	if (s->rt.p_hipMemCreate(&h, len, &prop, 0) != hipSuccess)
		return -1;
	if (s->rt.p_hipMemMap(va, len, 0, h, 0) != hipSuccess)
		goto out_release;
	memset(&access, 0, sizeof(access));
	access.location = prop.location;
	access.flags = hipMemAccessFlagsProtReadWrite;
	if (s->rt.p_hipMemSetAccess(va, len, &access, 1) != hipSuccess)
		goto out_unmap;
	while (i < s->npieces && s->pieces[i].base < base)
		i++;
	memmove(&s->pieces[i + 1], &s->pieces[i], (s->npieces - i) * sizeof(*s->pieces));
	s->pieces[i] = (rphip_piece){base, len, h, 0};
	s->npieces++;
	return 0;
out_unmap:
	s->rt.p_hipMemUnmap(va, len);
out_release:
	s->rt.p_hipMemRelease(h);
	return -1;
}

/* The granules [*g0, *g1) of [cap, cap + size) when a reserved window
 * holds all of it: 0, else -1. */
static int rphip_window_span(rphip_state *s, uint64_t cap, uint64_t size, uint64_t *g0,
                             uint64_t *g1)
{
	uint64_t g = rphip_window_gran(s);

	if (!g || !size || cap + size < cap)
		return -1;
	for (size_t i = 0; i < s->nwindows; i++) {
		const rphip_window *w = &s->windows[i];
		if (cap >= w->base && cap - w->base < w->size && size <= w->size - (cap - w->base)) {
			*g0 = cap & ~(g - 1);
			*g1 = (cap + size + g - 1) & ~(g - 1);
			return 0;
		}
	}
	return -1;
}

int rphip_window_map(rphip_state *s, uint64_t cap, uint64_t size)
{
	uint64_t g = rphip_window_gran(s), g0, g1, a;
	long i;

	if (rphip_window_span(s, cap, size, &g0, &g1) != 0)
		return -1;
	for (a = g0; a < g1;) {
		uint64_t end = a;
		if ((i = rphip_piece_find(s, a)) >= 0) {
			a = s->pieces[i].base + s->pieces[i].len;
			continue;
		}
		while (end < g1 && rphip_piece_find(s, end) < 0)
			end += g;
		if (rphip_piece_make(s, a, end - a) != 0)
			goto out_undo;
		a = end;
	}
	for (size_t k = 0; k < s->npieces; k++)
		if (s->pieces[k].base < g1 && g0 < s->pieces[k].base + s->pieces[k].len)
			s->pieces[k].refs++;
	return 0;
out_undo:
	/* the pieces made here are the only ones no live range uses */
	for (size_t k = s->npieces; k-- > 0;)
		if (!s->pieces[k].refs)
			rphip_piece_drop(s, k);
	return -1;
}

void rphip_window_unmap(rphip_state *s, uint64_t cap, uint64_t size)
{
	uint64_t g0, g1;

	if (rphip_window_span(s, cap, size, &g0, &g1) != 0)
		return;
	for (size_t k = s->npieces; k-- > 0;) {
		rphip_piece *p = &s->pieces[k];
		if (p->base < g1 && g0 < p->base + p->len && --p->refs == 0)
			rphip_piece_drop(s, k);
	}
}

void rphip_windows_release(rphip_state *s)
{
	while (s->npieces)
		rphip_piece_drop(s, s->npieces - 1);
	for (size_t i = 0; i < s->nwindows; i++)
		s->rt.p_hipMemAddressFree((void *)(uintptr_t)s->windows[i].base, s->windows[i].size);
	s->nwindows = 0;
}
