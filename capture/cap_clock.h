/*
 * cap_clock.h - record times: read cheaply on the recording thread,
 * turned into CLOCK_MONOTONIC nanoseconds on the writer thread.
 *
 * A record's time is CLOCK_MONOTONIC, in nanoseconds since the trace's
 * header (sbt_format.h).  Reading that clock costs a recorded call about
 * twenty instructions and a vDSO call; where the CPU's timestamp counter
 * is invariant (it counts at one rate whatever the core's frequency and
 * sleep state: CPUID 0x80000007 EDX bit 8, which Linux shows as
 * constant_tsc and nonstop_tsc) and RDTSCP exists, a record takes the
 * counter instead (one instruction) and the writer converts it.
 *
 * The conversion is a line between calibration points, pairs (counter,
 * CLOCK_MONOTONIC) taken together, kept in a ring (only the writer, or a
 * late round under late_mu, adds or reads them; cap_internal.h):
 *
 *   - a value between two points is interpolated between them, so its
 *     error is that of the points (a pair is taken as counter, clock,
 *     counter, the closest of a few tries, its counter the midpoint) and
 *     never grows with the run's length, whatever the counter's rate and
 *     however NTP slews CLOCK_MONOTONIC;
 *   - a value past the newest point makes the writer take a point first:
 *     the function is only ever extended, never changed where it was used,
 *     so a value converted later is never given an earlier time than one
 *     converted before it with a smaller counter (monotonic per thread,
 *     where the counter is; cap_writer.c also keeps each thread's times
 *     from going back);
 *   - a value still past the new point (another core's counter slightly
 *     ahead) takes the point's time; one older than every point kept, the
 *     oldest point's.
 *
 * Points are taken when a round converts such a value and, while idle,
 * once a round finds the newest point older than CAP_CLOCK_TICK_NS, so
 * that no segment is much longer than the flush interval.
 *
 * TRACESMITH_CLOCK=monotonic keeps CLOCK_MONOTONIC on the recording
 * thread (cap_config).  The mode is chosen once, before the runtime can
 * run, and never changes in a process (a fork child keeps it and the
 * points).
 */
#ifndef TRACESMITH_CAP_CLOCK_H
#define TRACESMITH_CAP_CLOCK_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#define CAP_CLOCK_POINTS 256                   /* calibration points kept */
#define CAP_CLOCK_TICK_NS (200ull * 1000000)   /* idle rounds add a point this often */

typedef struct cap_clock_point {
	uint64_t tsc;
	uint64_t mono;
	uint64_t mult;  /* ns per count to the next point, 32.32 fixed point */
} cap_clock_point;

typedef struct cap_clock {
	int tsc;        /* 1: records hold counter values; 0: CLOCK_MONOTONIC ns */
	unsigned n;     /* points held (at most CAP_CLOCK_POINTS) */
	unsigned last;  /* ring index of the newest */
	cap_clock_point pts[CAP_CLOCK_POINTS];
} cap_clock;

/* The process's clock (cap_clock.c); `tsc` is read on every record. */
extern cap_clock cap_clock_g __attribute__((visibility("hidden")));

/* 1 when this CPU's counter may be used (invariant, RDTSCP). */
int cap_clock_tsc_usable(void);
/* Choose the mode (use_tsc: and the CPU allows it) and, for the counter,
 * take the first point. */
void cap_clock_init(cap_clock *c, int use_tsc);
/* A pair (counter, CLOCK_MONOTONIC) read now, appended when both are past
 * the newest point's. */
void cap_clock_add_point(cap_clock *c, uint64_t tsc, uint64_t mono);
void cap_clock_take_point(cap_clock *c);
/* A counter value as CLOCK_MONOTONIC ns (see the top); may take a point. */
uint64_t cap_clock_mono(cap_clock *c, uint64_t tsc);
/* An idle writer round: a point when the newest is old. */
void cap_clock_tick(cap_clock *c);

static inline uint64_t cap_clock_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* RDTSCP, not RDTSC: it waits for the instructions before it, so that a
 * thread's readings follow its program order. */
static inline uint64_t cap_clock_rdtscp(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return ((uint64_t)hi << 32) | lo;
#else
	return 0; /* never used: cap_clock_tsc_usable says no */
#endif
}

/* cap_clock_rdtscp stored at dst (a record's time) as its two halves,
 * as RDTSCP gives them: two stores instead of joining them first. */
static inline void cap_clock_rdtscp_to(uint64_t *dst)
{
#if defined(__x86_64__)
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	memcpy(dst, &lo, sizeof(lo)); /* little-endian: the low half first */
	memcpy((uint8_t *)dst + sizeof(lo), &hi, sizeof(hi));
#else
	*dst = 0; /* never used: cap_clock_tsc_usable says no */
#endif
}

/* What a record stores as its time: the counter, or CLOCK_MONOTONIC ns;
 * cap_clock_record_mono turns it into CLOCK_MONOTONIC ns (writer). */
static inline uint64_t cap_clock_read(void)
{
	if (__builtin_expect(cap_clock_g.tsc, 1))
		return cap_clock_rdtscp();
	return cap_clock_monotonic_ns();
}

static inline uint64_t cap_clock_record_mono(uint64_t v)
{
	return cap_clock_g.tsc ? cap_clock_mono(&cap_clock_g, v) : v;
}

#endif /* TRACESMITH_CAP_CLOCK_H */
