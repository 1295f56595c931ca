/*
 * rpcu_profile.c - tsreplay --profile on CUDA: every launch, copy and
 * memset of the run is issued between two timing events recorded on its
 * live stream (cuEventRecord before and after), and after the run
 * cuEventElapsedTime puts each event on the device timeline.
 *
 * The timeline: cuEventElapsedTime only measures between events of one
 * context, so each context has its own; its origin is its earliest
 * start event (times are shifted so that it is 0).  Elapsed times come in
 * milliseconds as a float (about 0.5 us resolution on NVIDIA devices).
 * The events add two records per command to the stream; they order
 * nothing that was not already ordered.
 *
 * Not timed: fast-forwarded records (--range), work replayed while
 * restoring a keyframe, work recorded into a graph by stream capture (it
 * ran at the graph's launch, which is timed as one command).
 */
#include "replayer/cuda/rpcu_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rpcu_prof_cmd {
	uint64_t seq;
	uint64_t stream;   /* captured */
	CUcontext ctx;
	int ordinal;       /* live device of ctx */
	CUevent start, end;
	int done;          /* measured (start_ns, end_ns set) */
	int gone;          /* its context was destroyed (and its events with it) */
	int64_t start_ns, end_ns;
} rpcu_prof_cmd;

struct rpcu_prof {
	rpcu_prof_cmd *v;
	size_t n, cap;
};

static rp_status rpcu_profile_push(rpcu_state *s, const rpcu_prof_cmd *cmd, rp_diag *diag)
{
	struct rpcu_prof *p = s->prof;
	if (!p && !(p = s->prof = calloc(1, sizeof(*p))))
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 256;
		rpcu_prof_cmd *nv = realloc(p->v, ncap * sizeof(*nv));
		if (!nv)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		p->v = nv;
		p->cap = ncap;
	}
	p->v[p->n++] = *cmd;
	return RP_OK;
}

rp_status rpcu_profile_exec(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, uint64_t stream_cap,
                            rp_status (*run)(rpcu_state *, sbt_cm_kind, const sbt_cm_call *,
                                             rp_diag *),
                            rp_diag *diag)
{
	rpcu_prof_cmd cmd = {0};
	CUstream stream = NULL;
	int capturing = 0;
	CUresult r;
	rp_status st;

	if (s->fast_forward || s->state_only || c->capture_status)
		return run(s, k, c, diag);
	st = rpcu_stream_resolve(s, stream_cap, &stream, &capturing, diag);
	if (st != RP_OK)
		return st;
	if (capturing)
		return run(s, k, c, diag);
	if (!s->drv.p_cuEventCreate || !s->drv.p_cuEventRecord || !s->drv.p_cuEventElapsedTime)
		return rpcu_missing(s, diag, !s->drv.p_cuEventElapsedTime ? "cuEventElapsedTime"
		                                                        : "cuEventCreate or cuEventRecord");
	cmd.seq = s->seq;
	cmd.stream = stream_cap;
	cmd.ctx = s->cur_ctx;
	cmd.ordinal = rpcu_current_ordinal(s);
	r = s->drv.p_cuEventCreate(&cmd.start, CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuEventCreate", r, "for --profile");
	r = s->drv.p_cuEventCreate(&cmd.end, CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS) {
		s->drv.p_cuEventDestroy(cmd.start);
		return rpcu_cufail(s, diag, "cuEventCreate", r, "for --profile");
	}
	/* Kept from here on, so that teardown destroys the events whatever
	 * happens next. */
	st = rpcu_profile_push(s, &cmd, diag);
	if (st != RP_OK) {
		s->drv.p_cuEventDestroy(cmd.start);
		s->drv.p_cuEventDestroy(cmd.end);
		return st;
	}
	r = s->drv.p_cuEventRecord(cmd.start, stream);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuEventRecord", r, "before the command, for --profile");
	st = run(s, k, c, diag);
	if (st != RP_OK)
		return st;
	r = s->drv.p_cuEventRecord(cmd.end, stream);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuEventRecord", r, "after the command, for --profile");
	return RP_OK;
}

/* Milliseconds from a to b, as signed nanoseconds. */
static rp_status rpcu_profile_between(rpcu_state *s, CUevent a, CUevent b, int64_t *ns_out,
                                      rp_diag *diag)
{
	float ms = 0.0f;
	CUresult r = s->drv.p_cuEventElapsedTime(&ms, a, b);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuEventElapsedTime", r, "for --profile");
	*ns_out = (int64_t)llround((double)ms * 1e6);
	return RP_OK;
}

/* Measure the commands of context ctx not measured yet: wait for it, time
 * every event from its first command's start, then shift so that the
 * earliest start is 0.  The context stays current. */
static rp_status rpcu_profile_measure(rpcu_state *s, CUcontext ctx, rp_diag *diag)
{
	struct rpcu_prof *p = s->prof;
	rpcu_prof_cmd *first = NULL;
	int64_t lo = INT64_MAX;
	CUresult r;
	size_t j;
	rp_status st;

	for (j = 0; j < p->n && !first; j++)
		if (p->v[j].ctx == ctx && !p->v[j].done)
			first = &p->v[j];
	if (!first)
		return RP_OK;
	r = s->drv.p_cuCtxSetCurrent(ctx);
	if (r == CUDA_SUCCESS)
		r = s->drv.p_cuCtxSynchronize();
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxSynchronize", r, "waiting for the timed commands");
	for (j = 0; j < p->n; j++) {
		rpcu_prof_cmd *m = &p->v[j];
		if (m->ctx != ctx || m->done)
			continue;
		s->seq = m->seq;
		if ((st = rpcu_profile_between(s, first->start, m->start, &m->start_ns, diag)) != RP_OK ||
		    (st = rpcu_profile_between(s, first->start, m->end, &m->end_ns, diag)) != RP_OK)
			return st;
		if (m->start_ns < lo)
			lo = m->start_ns;
	}
	for (j = 0; j < p->n; j++) {
		rpcu_prof_cmd *m = &p->v[j];
		if (m->ctx != ctx || m->done)
			continue;
		m->start_ns -= lo;
		m->end_ns -= lo;
		/* An end event recorded after its start on the same stream never
		 * reads earlier; float rounding could make it look so. */
		if (m->end_ns < m->start_ns)
			m->end_ns = m->start_ns;
		m->done = 1;
	}
	return RP_OK;
}

rp_status rpcu_profile_ctx_ending(rpcu_state *s, CUcontext ctx, rp_diag *diag)
{
	CUcontext keep = s->cur_ctx;
	rp_status st;
	size_t i;
	if (!s->prof)
		return RP_OK;
	st = rpcu_profile_measure(s, ctx, diag);
	for (i = 0; i < s->prof->n; i++)
		if (s->prof->v[i].ctx == ctx)
			s->prof->v[i].gone = 1;
	if (keep)
		s->drv.p_cuCtxSetCurrent(keep);
	return st;
}

rp_status rpcu_profile_finish(void *state, rp_diag *diag)
{
	rpcu_state *s = state;
	struct rpcu_prof *p = s->prof;
	char name[256] = "";
	int ordinal = s->device_base;
	size_t i;
	rp_status st = RP_OK;

	s->seq = 0;
	s->call = "--profile";
	for (i = 0; p && i < p->n && st == RP_OK; i++)
		if (!p->v[i].done)
			st = rpcu_profile_measure(s, p->v[i].ctx, diag);
	if (s->cur_ctx)
		s->drv.p_cuCtxSetCurrent(s->cur_ctx);
	if (st != RP_OK)
		return st;
	for (i = 0; p && i < p->n; i++) {
		rp_profile_entry e;
		e.seq = e.submit_seq = p->v[i].seq;
		e.stream = p->v[i].stream;
		e.start_ns = (uint64_t)p->v[i].start_ns;
		e.end_ns = (uint64_t)p->v[i].end_ns;
		if (rp_profile_add(s->profile, &e) != RP_OK)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	}
	if (p && p->n)
		ordinal = p->v[0].ordinal;
	if (s->drv.p_cuDeviceGetName && s->drv.p_cuDeviceGet) {
		CUdevice dev;
		if (s->drv.p_cuDeviceGet(&dev, ordinal) == CUDA_SUCCESS)
			s->drv.p_cuDeviceGetName(name, (int)sizeof(name), dev);
	}
	rp_profile_set_device(s->profile, name);
	return RP_OK;
}

void rpcu_profile_release(rpcu_state *s)
{
	struct rpcu_prof *p = s->prof;
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		if (p->v[i].gone)
			continue; /* its context took its events */
		if (p->v[i].ctx)
			s->drv.p_cuCtxSetCurrent(p->v[i].ctx);
		if (s->drv.p_cuEventDestroy) {
			s->drv.p_cuEventDestroy(p->v[i].start);
			s->drv.p_cuEventDestroy(p->v[i].end);
		}
	}
	free(p->v);
	free(p);
	s->prof = NULL;
}
