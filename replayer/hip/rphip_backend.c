/*
 * rphip_backend.c - the HIP backend's entry points (rp.h): opening the
 * runtime, decoding records, checkpoints, and the backend's tables.
 *
 * The replay core (rp_session.c) is the one CUDA uses: ranges, runs for
 * --check-determinism, checkpoint hashing and reports are its; this file
 * only answers its calls for hip.* records.
 */
#include "replayer/hip/rphip_internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------- */

rp_status rphip_fail(rphip_state *s, rp_diag *diag, rp_status st, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp_diag_set(diag, "record seq %llu (hip.%s): %s", (unsigned long long)s->seq,
	            s->call ? s->call : "?", msg);
	return st;
}

static const char *rphip_err_name(const rphip_state *s, hipError_t r)
{
	const char *n = s->rt.p_hipGetErrorName ? s->rt.p_hipGetErrorName(r) : NULL;
	return n ? n : "hipError";
}

rp_status rphip_hipfail(rphip_state *s, rp_diag *diag, const char *fn, hipError_t r)
{
	return rphip_fail(s, diag, RP_ERR_BACKEND, "%s failed with %s (%d)", fn, rphip_err_name(s, r),
	                  (int)r);
}

/* ---- tables ------------------------------------------------------------------ */

static int rphip_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* What an object owns (rp_cm_handle_release_fn). */
void rphip_obj_release(void *obj)
{
	rphip_obj *o = obj;

	sbt_amd_meta_free(o->meta);
	o->meta = NULL;
	rphip_gnodes_free(o->gn);
	o->gn = NULL;
	free(o->not_modeled);
	o->not_modeled = NULL;
	rphip_gnodes_free(o->cap_gn);
	o->cap_gn = NULL;
	free(o->cap_why);
	o->cap_why = NULL;
}

rphip_obj *rphip_obj_get(rphip_state *s, rphip_kind kind, uint64_t cap)
{
	return rp_cm_handles_get(&s->objs, sizeof(rphip_obj), (uint8_t)kind, cap);
}

rphip_obj *rphip_obj_put(rphip_state *s, rphip_kind kind, uint64_t cap)
{
	return rp_cm_handles_put(&s->objs, sizeof(rphip_obj), (uint8_t)kind, cap, rphip_obj_release);
}

void rphip_obj_del(rphip_state *s, rphip_obj *o)
{
	rp_cm_handles_del(&s->objs, sizeof(rphip_obj), o, rphip_obj_release);
}

long rphip_range_find(const rphip_state *s, uint64_t addr)
{
	rp_cm_span t = RP_CM_SPAN(s->ranges, s->nranges);
	return rp_cm_ranges_find(&t, addr);
}

int rphip_range_add(rphip_state *s, const rphip_range *r)
{
	void *v = s->ranges;
	long i = rp_cm_ranges_insert(&v, &s->nranges, &s->capranges, sizeof(*s->ranges), r);

	s->ranges = v;
	return i < 0 ? -1 : 0;
}

void rphip_range_remove(rphip_state *s, size_t i)
{
	rp_cm_ranges_remove(s->ranges, &s->nranges, sizeof(*s->ranges), i);
}

int rphip_keep(rphip_state *s, void *buf)
{
	if (rphip_grow((void **)&s->keep, &s->capkeep, s->nkeep, sizeof(*s->keep)) != 0)
		return -1;
	s->keep[s->nkeep++] = buf;
	return 0;
}

void rphip_failed_note(rphip_state *s, uint64_t cap)
{
	rp_cm_handle_set_add(&s->failed, cap);
}

int rphip_failed_has(const rphip_state *s, uint64_t cap)
{
	return rp_cm_handle_set_has(&s->failed, cap);
}

/* ---- the runtime --------------------------------------------------------------- */

static rp_status rphip_runtime_open(rphip_state *s, rp_diag *diag)
{
	const char *path = getenv("TRACESMITH_HIP_RUNTIME");
	hipError_t r;
	int count = 0;

	if (!path || !*path)
		path = "libamdhip64.so.5";
	snprintf(s->rt.path, sizeof(s->rt.path), "%s", path);
	s->rt.dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!s->rt.dl) {
		const char *e = dlerror();
		rp_diag_set(diag, "cannot load the HIP runtime %s (%s): install ROCm's libamdhip64 or "
		            "set TRACESMITH_HIP_RUNTIME", path, e ? e : "dlopen failed");
		return RP_ERR_BACKEND;
	}
#define RPHIP_X_LOOKUP(name) s->rt.p_##name = (__typeof__(name) *)dlsym(s->rt.dl, #name);
	RPHIP_RUNTIME_LIST(RPHIP_X_LOOKUP)
#undef RPHIP_X_LOOKUP
	s->rt.not_run = (unsigned long long (*)(void))dlsym(s->rt.dl, RPHIP_NOT_RUN_SYMBOL);
#define RPHIP_X_CHECK(name)                                                                  \
	if (!s->rt.p_##name) {                                                               \
		rp_diag_set(diag, "the HIP runtime %s has no %s", path, #name);             \
		return RP_ERR_BACKEND;                                                       \
	}
	RPHIP_RUNTIME_LIST(RPHIP_X_CHECK)
#undef RPHIP_X_CHECK
	r = s->rt.p_hipGetDeviceCount(&count);
	if (r != hipSuccess || count < 1) {
		rp_diag_set(diag, "no AMD GPU: hipGetDeviceCount %s%s (%d) from %s; this trace needs "
		            "a HIP device to replay", r != hipSuccess ? "failed with " : "found none, ",
		            r != hipSuccess ? rphip_err_name(s, r) : "hipSuccess", (int)r, path);
		return RP_ERR_BACKEND;
	}
	s->live_devices = count;
	if (s->device_base >= count) {
		rp_diag_set(diag, "--device %d: the HIP runtime %s has %d device%s (ordinals from 0)",
		            s->device_base, path, count, count == 1 ? "" : "s");
		return RP_ERR_USAGE;
	}
	s->cur_dev = s->device_base;
	r = s->rt.p_hipSetDevice(s->device_base);
	if (r != hipSuccess) {
		rp_diag_set(diag, "no usable AMD GPU: hipSetDevice(%d) failed with %s (%d) from %s",
		            s->device_base, rphip_err_name(s, r), (int)r, path);
		return RP_ERR_BACKEND;
	}
	return RP_OK;
}

/* ---- entry points ----------------------------------------------------------------- */

static const rp_option_desc rphip_options[] = {
	{"--streams", "MODE[,...]", "HIP: single (capture order) or multi (as captured); a list alternates runs"},
	{"--hip-no-reserve", NULL, "HIP: allocate anywhere, not at the captured addresses"},
	{NULL, NULL, NULL},
};

/* The --streams entry of the run now starting. */
static void rphip_pick_stream_mode(rphip_state *s)
{
	s->single = rp_cm_streams_single(&s->streams, s->run);
}

static rp_status rphip_check_option(const rp_option_value *o, rp_diag *diag)
{
	rp_cm_streams streams;
	int ignored;

	if (strcmp(o->name, "--streams") == 0)
		return rp_cm_streams_parse(o->value, &streams, diag);
	if (strcmp(o->name, "--device") == 0)
		return rp_cm_parse_ordinal(o->value ? o->value : "", "HIP", &ignored, diag);
	return RP_OK;
}

/* rp_backend_ops.run_mode: only when --streams names both modes. */
static const char *rphip_run_mode(void *state)
{
	rphip_state *s = state;
	return rp_cm_streams_run_mode(&s->streams, s->single);
}

static void rphip_close(void *state);

static rp_status rphip_open(const rp_backend_open_args *args, void **state_out, rp_diag *diag)
{
	rphip_state *s = calloc(1, sizeof(*s));
	rp_status st;

	if (!s) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	s->trace = args->trace;
	s->quiet = args->quiet;
	s->per_command = args->per_command;
	s->profile = args->profile;
	for (size_t i = 0; i < args->noptions; i++) {
		if (strcmp(args->options[i].name, "--hip-no-reserve") == 0)
			s->no_reserve = 1;
		if (strcmp(args->options[i].name, "--streams") == 0) {
			st = rp_cm_streams_parse(args->options[i].value, &s->streams, diag);
			if (st != RP_OK) {
				free(s);
				return st;
			}
		}
	}
	if (args->serialise) {
		/* --schedule-seed: the core hands the commands over in the sampled
		 * order; single-stream mode runs them in that order, one at a time */
		if (s->streams.n) {
			rp_diag_set(diag, "--streams does not go with --schedule-seed: a sampled order runs "
			            "every command on one stream");
			free(s);
			return RP_ERR_USAGE;
		}
		s->streams.modes = 1;
		s->streams.n = 1;
	}
	rphip_pick_stream_mode(s);
	if (args->device && (st = rp_cm_parse_ordinal(args->device, "HIP", &s->device_base, diag)) != RP_OK) {
		free(s);
		return st;
	}
	st = rphip_runtime_open(s, diag);
	if (st != RP_OK) {
		rphip_close(s);
		return st;
	}
	/* a sampled order may hold a command past the keyframe after it */
	s->kf_check = !args->serialise && rp_cm_trace_has_full_keyframe(s->trace);
	*state_out = s;
	return RP_OK;
}

/* The HIP call a record type names ("hip.hipMalloc"); -1 when none. */
static int rphip_call_of(rphip_state *s, uint32_t type)
{
	const char *name = sbt_reader_type_name(s->trace, type);

	if (!name)
		return -1;
	for (int i = 0; i < SBT_CM_HIP_COUNT; i++)
		if (strcmp(name, sbt_cm_hip_type_name((sbt_cm_hip_call)i)) == 0)
			return i;
	return -1;
}

static void rphip_copies_release_served(rphip_state *s)
{
	size_t j = 0;

	for (size_t i = 0; i < s->ncopies; i++) {
		if (s->copies[i].served)
			free(s->copies[i].buf);
		else
			s->copies[j++] = s->copies[i];
	}
	s->ncopies = j;
}

static rp_status rphip_execute(void *state, const sbt_record *rec, unsigned flags, rp_diag *diag)
{
	rphip_state *s = state;
	sbt_cm_call c;
	rp_status st;
	int hc;

	rphip_copies_release_served(s);
	s->seq = rec->seq;
	s->thread = rec->thread;
	s->call = NULL;
	hc = rphip_call_of(s, rec->type);
	if (hc < 0) {
		const char *name = sbt_reader_type_name(s->trace, rec->type);
		s->call = name && *name ? name : "unnamed type";
		return rphip_fail(s, diag, RP_ERR_UNSUPPORTED,
		                  "type %u is not a call of the HIP record model, so this backend cannot "
		                  "replay it", rec->type);
	}
	s->call = sbt_cm_hip_name((sbt_cm_hip_call)hc);
	s->fast_forward = (flags & RP_EXEC_FAST_FORWARD) != 0;
	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK)
		return rphip_fail(s, diag, RP_ERR_DECODE, "the payload (%zu bytes) could not be decoded",
		                  rec->payload_len);
	s->ptds = c.ptds != 0;
	/* an exec update that failed past its first pair set the pairs
	 * before it (rphip_graph_exec_update) */
	if (hc != SBT_CM_HIP_tsSnapshot && c.result != hipSuccess &&
	    !(hc == SBT_CM_HIP_hipGraphExecUpdate && c.result == hipErrorGraphExecUpdateFailure)) {
		/* It failed at capture and changed nothing there; what it returned
		 * names nothing. */
		rphip_failed_note(s, c.handle);
		return RP_OK;
	}
	/* Restoring a keyframe: objects only, but work recorded into a graph
	 * by stream capture is part of the graph, an object. */
	if (s->state_only && !rphip_exec_is_state((sbt_cm_hip_call)hc) && !c.capture_status)
		return RP_OK;
	st = rphip_exec(s, (sbt_cm_hip_call)hc, &c, diag);
	if (st == RP_OK && !s->state_only &&
	    ((s->per_command && !(flags & RP_EXEC_FAST_FORWARD)) || s->kf_check))
		st = rphip_percmd_after(s, (sbt_cm_hip_call)hc, &c, diag);
	return st;
}

/* ---- keyframes ---------------------------------------------------------------------- */

/* rp_backend_ops.keyframe.  Restore: replay the object-making records
 * before the marker (from the random-access reader; each payload is
 * copied, because fetching a module image moves that reader), then let the
 * snapshot records after the marker fill memory.  Met mid-replay: a
 * partial keyframe is applied where it stands (it holds only memory the
 * replay cannot rebuild); a full one is compared (rphip_snapshot.c). */
/* A record before a restored keyframe: HIP's object-making calls only. */
static rp_status rphip_replay_state_only(void *ctx, sbt_record *rec, rp_diag *diag)
{
	rphip_state *s = ctx;
	int hc = rec->type >= SBT_TYPE_FIRST_API ? rphip_call_of(s, rec->type) : -1;
	rp_status st;
	if (hc < 0 || hc == SBT_CM_HIP_tsSnapshot)
		return RP_OK;
	s->state_only = 1;
	st = rphip_execute(s, rec, RP_EXEC_FAST_FORWARD, diag);
	s->state_only = 0;
	return st;
}

static rp_status rphip_keyframe(void *state, const sbt_record *marker, int restore, rp_diag *diag)
{
	rphip_state *s = state;
	sbt_cm_call kf;
	rp_status st;

	rphip_copies_release_served(s);
	/* the runtime's own marker of a periodic snapshot, not a HIP keyframe */
	if (marker->payload_len >= 8 && memcmp(marker->payload, "snapshot", 8) == 0)
		return RP_OK;
	if (sbt_cm_decode(marker->payload, marker->payload_len, &kf) != SBT_OK) {
		rp_diag_set(diag, "keyframe seq %llu: its payload could not be decoded",
		            (unsigned long long)marker->seq);
		return RP_ERR_DECODE;
	}
	if (!restore) {
		if (kf.flags & SBT_CM_KF_PARTIAL)
			s->snap_left = kf.count;
		else
			rphip_snapshot_compare_begin(s, marker->seq, kf.count, s->kf_check);
		return RP_OK;
	}
	st = rp_cm_replay_before(s->trace, marker->seq, rphip_replay_state_only, s, diag);
	if (st != RP_OK)
		return st;
	/* a keyframe without the arrays flag holds no array contents (docs/hip.md "Keyframes") */
	if (!(kf.flags & SBT_CM_KF_ARRAYS)) {
		for (size_t i = 0; i < s->objs.cap; i++) {
			rphip_obj *o = (rphip_obj *)rp_cm_handles_at(&s->objs, sizeof(rphip_obj), i);
			if (o->dead || o->kind != RPHIP_O_ARRAY)
				continue;
			rp_diag_set(diag, "cannot start at the keyframe at seq %llu: the HIP array 0x%llx "
			            "made at seq %llu is live there, and this keyframe does not hold the "
			            "contents of HIP arrays; start the range before seq %llu or after the "
			            "arrays are freed", (unsigned long long)marker->seq,
			            (unsigned long long)o->cap, (unsigned long long)o->made_seq,
			            (unsigned long long)o->made_seq);
			return RP_ERR_UNSUPPORTED;
		}
	}
	s->snap_left = kf.count;
	return RP_OK;
}

/* rp_backend_ops.keyframe_results: this run's, then cleared for the next. */
static rp_status rphip_keyframe_results(void *state, rp_keyframe_report *out, rp_diag *diag)
{
	rphip_state *s = state;
	(void)diag;
	*out = s->kf;
	memset(&s->kf, 0, sizeof(s->kf));
	return RP_OK;
}

/* The first difference with the capture, told in HIP terms (rp_cm.h).
 * Once per run. */
static void rphip_note_mismatch(rphip_state *s, const rphip_copy *c, const sbt_checkpoint *cp,
                                const uint8_t *bytes)
{
	if (!s->noted_mismatch && !s->quiet && rp_cm_note_mismatch("hip", c->seq, &c->src, "made", cp, bytes))
		s->noted_mismatch = 1;
}

static rp_status rphip_checkpoint(void *state, const sbt_checkpoint *cp, const void **bytes_out,
                                  rp_diag *diag)
{
	rphip_state *s = state;
	uint64_t off;
	hipError_t r;

	for (size_t i = s->ncopies; i-- > 0;) {
		rphip_copy *c = &s->copies[i];
		if (c->seq != cp->call_seq)
			continue;
		/* async copies land by the program's synchronization, which was
		 * replayed before this checkpoint; wait anyway, it costs nothing
		 * then */
		r = s->rt.p_hipDeviceSynchronize();
		if (r != hipSuccess) {
			rp_diag_set(diag, "waiting for the copy at seq %llu: hipDeviceSynchronize failed "
			            "with %s (%d)", (unsigned long long)c->seq, rphip_err_name(s, r), (int)r);
			return RP_ERR_BACKEND;
		}
		if (s->not_run_seq && cp->call_seq > s->not_run_seq) {
			c->served = 1;
			*bytes_out = NULL;
			rp_diag_set(diag, "after the launch at seq %llu, which ran nothing on the test double",
			            (unsigned long long)s->not_run_seq);
			return RP_OK;
		}
		if (rp_cm_copy_offset(cp, c->vstart, c->len, c->seq, "read", &off, diag) != RP_OK)
			return RP_ERR_TRACE;
		c->served = 1;
		*bytes_out = c->buf + off;
		rphip_note_mismatch(s, c, cp, c->buf + off);
		return RP_OK;
	}
	rp_diag_set(diag, "checkpoint of seq %llu: the replay made no device-to-host copy there",
	            (unsigned long long)cp->call_seq);
	return RP_ERR_NOT_FOUND;
}

static rp_status rphip_command_results(void *state, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	return rphip_percmd_results(state, fn, ctx, diag);
}

static rp_status rphip_reset(void *state, rp_diag *diag)
{
	rphip_state *s = state;

	(void)diag;
	rphip_teardown(s);
	rp_cm_results_clear(&s->percmd);
	s->run++;
	rphip_pick_stream_mode(s);
	return RP_OK;
}

static void rphip_close(void *state)
{
	rphip_state *s = state;

	if (!s)
		return;
	if (s->rt.p_hipDeviceSynchronize)
		rphip_teardown(s);
	if (s->rt.p_hipEventDestroy)
		rphip_profile_release(s);
	rp_cm_handles_free(&s->objs, sizeof(rphip_obj), rphip_obj_release);
	free(s->ranges);
	free(s->windows);
	free(s->pieces);
	free(s->copies);
	free(s->keep);
	free(s->thread_devs);
	free(s->graphs_refused);
	rp_cm_handle_set_free(&s->failed);
	rp_cm_results_free(&s->percmd);
	/* The runtime stays loaded: ROCm's exit handlers run from it. */
	free(s);
}

const rp_backend_ops rphip_backend_ops = {
	.name = "hip",
	.api = SBT_CM_API_HIP,
	.open = rphip_open,
	.execute = rphip_execute,
	.checkpoint = rphip_checkpoint,
	.reset = rphip_reset,
	.close = rphip_close,
	.options = rphip_options,
	.check_option = rphip_check_option,
	.run_mode = rphip_run_mode,
	.command_results = rphip_command_results,
	.profile_finish = rphip_profile_finish,
	.serialises = 1,
	.keyframe = rphip_keyframe,
	.keyframe_is_start = rp_cm_keyframe_is_start,
	.keyframe_results = rphip_keyframe_results,
};
