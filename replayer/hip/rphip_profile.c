/*
 * rphip_profile.c - tsreplay --profile on HIP: every launch, copy, memset
 * and graph launch of the run is issued between two timing events
 * (hipEventCreateWithFlags with hipEventDefault, so timing on) recorded on
 * its live stream, and after the run hipEventElapsedTime puts each event
 * on the device timeline.  The CUDA backend does the same with CUDA
 * events (replayer/cuda/rpcu_profile.c).
 *
 * The timeline: one clock, that of the device --device names (0 by
 * default; a trace of several devices has events on each, which only a
 * runtime whose devices share a clock puts on one timeline: not checked
 * here), whose origin is the earliest start event (times are shifted so that it is 0).
 * Elapsed times come in milliseconds as a float.  A synchronous copy or
 * memset has its end event recorded before the host waits for its stream
 * (rphip_profile_end), so the wait is not timed.  The events add two
 * markers per command to the stream; they order nothing that was not
 * already ordered.
 *
 * Not timed: fast-forwarded records (--range), work captured into a graph
 * (it runs at the graph's launch, which is timed as one command).
 */
#include "replayer/hip/rphip_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rphip_prof_cmd {
	uint64_t seq;
	uint64_t stream;   /* captured */
	hipEvent_t start, end;
	int64_t start_ns, end_ns;
} rphip_prof_cmd;

struct rphip_prof {
	rphip_prof_cmd *v;
	size_t n, cap;
};

static rp_status rphip_profile_push(rphip_state *s, const rphip_prof_cmd *cmd, rp_diag *diag)
{
	struct rphip_prof *p = s->prof;

	if (!p && !(p = s->prof = calloc(1, sizeof(*p))))
		return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 256;
		rphip_prof_cmd *nv = realloc(p->v, ncap * sizeof(*nv));
		if (!nv)
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		p->v = nv;
		p->cap = ncap;
	}
	p->v[p->n++] = *cmd;
	return RP_OK;
}

static rp_status rphip_profile_fail(rphip_state *s, rp_diag *diag, const char *fn, hipError_t r,
                                    const char *why)
{
	rp_status st = rphip_hipfail(s, diag, fn, r);
	char msg[sizeof(diag->text)];

	snprintf(msg, sizeof(msg), "%s", diag->text);
	rp_diag_set(diag, "%s, %s", msg, why);
	return st;
}

rp_status rphip_profile_exec(rphip_state *s, sbt_cm_hip_call hc, const sbt_cm_call *c,
                             rp_status (*run)(rphip_state *, sbt_cm_hip_call, const sbt_cm_call *,
                                              rp_diag *),
                             rp_diag *diag)
{
	rphip_prof_cmd cmd;
	hipStream_t stream;
	rphip_obj *so;
	hipError_t r;
	rp_status st;

	if (s->fast_forward || c->capture_status)
		return run(s, hc, c, diag);
	st = rphip_stream(s, c->stream, &stream, &so, diag);
	if (st != RP_OK)
		return st;
	if (so && so->capturing)
		return run(s, hc, c, diag);
	memset(&cmd, 0, sizeof(cmd));
	cmd.seq = s->seq;
	cmd.stream = c->stream;
	r = s->rt.p_hipEventCreateWithFlags(&cmd.start, hipEventDefault);
	if (r != hipSuccess)
		return rphip_profile_fail(s, diag, "hipEventCreateWithFlags", r, "for --profile");
	r = s->rt.p_hipEventCreateWithFlags(&cmd.end, hipEventDefault);
	if (r != hipSuccess) {
		s->rt.p_hipEventDestroy(cmd.start);
		return rphip_profile_fail(s, diag, "hipEventCreateWithFlags", r, "for --profile");
	}
	/* Kept from here on, so that release destroys the events whatever
	 * happens next. */
	st = rphip_profile_push(s, &cmd, diag);
	if (st != RP_OK) {
		s->rt.p_hipEventDestroy(cmd.start);
		s->rt.p_hipEventDestroy(cmd.end);
		return st;
	}
	r = s->rt.p_hipEventRecord(cmd.start, stream);
	if (r != hipSuccess)
		return rphip_profile_fail(s, diag, "hipEventRecord", r, "before the command, for --profile");
	s->prof_end = cmd.end;
	s->prof_stream = stream;
	st = run(s, hc, c, diag);
	if (st != RP_OK) {
		s->prof_end = NULL;
		return st;
	}
	return rphip_profile_end(s, diag);
}

rp_status rphip_profile_end(rphip_state *s, rp_diag *diag)
{
	hipEvent_t e = s->prof_end;
	hipError_t r;

	if (!e)
		return RP_OK;
	s->prof_end = NULL;
	r = s->rt.p_hipEventRecord(e, s->prof_stream);
	if (r != hipSuccess)
		return rphip_profile_fail(s, diag, "hipEventRecord", r, "after the command, for --profile");
	return RP_OK;
}

/* From event a to event b, as signed nanoseconds. */
static rp_status rphip_profile_between(rphip_state *s, hipEvent_t a, hipEvent_t b, int64_t *ns_out,
                                       rp_diag *diag)
{
	float ms = 0.0f;
	hipError_t r = s->rt.p_hipEventElapsedTime(&ms, a, b);

	if (r != hipSuccess)
		return rphip_profile_fail(s, diag, "hipEventElapsedTime", r, "for --profile");
	*ns_out = (int64_t)llround((double)ms * 1e6);
	return RP_OK;
}

rp_status rphip_profile_finish(void *state, rp_diag *diag)
{
	rphip_state *s = state;
	struct rphip_prof *p = s->prof;
	char name[256] = "";
	int64_t lo = INT64_MAX;
	hipError_t r;
	size_t i;
	rp_status st;

	s->seq = 0;
	s->call = "--profile";
	if (p && p->n) {
		r = s->rt.p_hipDeviceSynchronize();
		if (r != hipSuccess)
			return rphip_profile_fail(s, diag, "hipDeviceSynchronize", r,
			                          "waiting for the timed commands");
		for (i = 0; i < p->n; i++) {
			rphip_prof_cmd *m = &p->v[i];
			s->seq = m->seq;
			if ((st = rphip_profile_between(s, p->v[0].start, m->start, &m->start_ns, diag)) != RP_OK ||
			    (st = rphip_profile_between(s, p->v[0].start, m->end, &m->end_ns, diag)) != RP_OK)
				return st;
			if (m->start_ns < lo)
				lo = m->start_ns;
		}
	}
	for (i = 0; p && i < p->n; i++) {
		rphip_prof_cmd *m = &p->v[i];
		rp_profile_entry e;
		m->start_ns -= lo;
		m->end_ns -= lo;
		/* An end event recorded after its start on the same stream never
		 * reads earlier; float rounding could make it look so. */
		if (m->end_ns < m->start_ns)
			m->end_ns = m->start_ns;
		e.seq = e.submit_seq = m->seq;
		e.stream = m->stream;
		e.start_ns = (uint64_t)m->start_ns;
		e.end_ns = (uint64_t)m->end_ns;
		if (rp_profile_add(s->profile, &e) != RP_OK)
			return rphip_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	if (s->rt.p_hipDeviceGetName(name, (int)sizeof(name), s->device_base) != hipSuccess)
		name[0] = '\0';
	name[sizeof(name) - 1] = '\0';
	rp_profile_set_device(s->profile, name);
	return RP_OK;
}

void rphip_profile_release(rphip_state *s)
{
	struct rphip_prof *p = s->prof;

	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		s->rt.p_hipEventDestroy(p->v[i].start);
		s->rt.p_hipEventDestroy(p->v[i].end);
	}
	free(p->v);
	free(p);
	s->prof = NULL;
	s->prof_end = NULL;
}
