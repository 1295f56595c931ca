/*
 * cap_clock.c - record times from the timestamp counter, converted on the
 * writer thread (cap_clock.h says how and why).
 */
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "capture/cap_clock.h"

cap_clock cap_clock_g;

/* How many pairs a point is the closest of. */
#define CAP_CLOCK_TRIES 4

int cap_clock_tsc_usable(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	/* RDTSCP: 0x80000001 EDX bit 27. */
	if (!__get_cpuid(0x80000001u, &a, &b, &c, &d) || !(d & (1u << 27)))
		return 0;
	/* The invariant counter: 0x80000007 EDX bit 8. */
	if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8)))
		return 0;
	return 1;
#else
	return 0;
#endif
}

void cap_clock_add_point(cap_clock *c, uint64_t tsc, uint64_t mono)
{
	cap_clock_point *newest = &c->pts[c->last];
	unsigned next;
	if (c->n) {
		if (tsc <= newest->tsc || mono < newest->mono)
			return;
		/* floor: the line never reaches past the next point's time */
		newest->mult = (uint64_t)(((unsigned __int128)(mono - newest->mono) << 32) /
		                          (tsc - newest->tsc));
		next = (c->last + 1) % CAP_CLOCK_POINTS;
	} else {
		next = 0;
	}
	c->pts[next].tsc = tsc;
	c->pts[next].mono = mono;
	c->pts[next].mult = 0;
	c->last = next;
	if (c->n < CAP_CLOCK_POINTS)
		c->n++;
}

void cap_clock_take_point(cap_clock *c)
{
	uint64_t best_gap = UINT64_MAX, best_tsc = 0, best_mono = 0;
	for (int i = 0; i < CAP_CLOCK_TRIES; i++) {
		uint64_t t0 = cap_clock_rdtscp();
		uint64_t m = cap_clock_monotonic_ns();
		uint64_t t1 = cap_clock_rdtscp();
		if (t1 >= t0 && t1 - t0 < best_gap) {
			best_gap = t1 - t0;
			best_tsc = t0 + (t1 - t0) / 2;
			best_mono = m;
		}
	}
	if (best_gap != UINT64_MAX)
		cap_clock_add_point(c, best_tsc, best_mono);
}

void cap_clock_init(cap_clock *c, int use_tsc)
{
	memset(c, 0, sizeof(*c));
	c->tsc = use_tsc && cap_clock_tsc_usable();
	if (c->tsc)
		cap_clock_take_point(c);
}

uint64_t cap_clock_mono(cap_clock *c, uint64_t tsc)
{
	const cap_clock_point *newest = &c->pts[c->last];
	unsigned i, k;
	if (!c->n)
		return cap_clock_monotonic_ns(); /* never started: no better answer */
	if (tsc > newest->tsc) {
		cap_clock_take_point(c);
		newest = &c->pts[c->last];
	}
	if (tsc >= newest->tsc)
		return newest->mono;
	/* The segment holding tsc: records come nearly in counter order, so
	 * almost always the newest one. */
	i = c->last;
	for (k = 1; k < c->n; k++) {
		unsigned prev = (i + CAP_CLOCK_POINTS - 1) % CAP_CLOCK_POINTS;
		if (c->pts[prev].tsc <= tsc) {
			const cap_clock_point *p = &c->pts[prev];
			return p->mono + (uint64_t)(((unsigned __int128)(tsc - p->tsc) * p->mult) >> 32);
		}
		i = prev;
	}
	/* Older than every point kept: the oldest's time. */
	return c->pts[i].mono;
}

void cap_clock_tick(cap_clock *c)
{
	if (c->n && cap_clock_monotonic_ns() - c->pts[c->last].mono >= CAP_CLOCK_TICK_NS)
		cap_clock_take_point(c);
}
