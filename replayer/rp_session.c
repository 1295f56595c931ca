/*
 * rp_session.c - the replay engine: backend selection, range start
 * (keyframe restore or fast-forward), the record loop, checkpoint
 * comparison with the capture and between runs.
 *
 * Runs are compared index by index: every run replays the same records
 * from the same start, so the i-th checkpoint of run 2 is the i-th of run
 * 1.  Run 1 keeps every checkpoint it computed (hash and block hashes);
 * later runs compare against those at once, while their bytes are still
 * there to show, and keep only their whole hashes for the final grouping.
 *
 * Sampled orders (--schedule-seed, docs/replay.md "Sampled orders"): each
 * run asks the order source for its seed's order, holds every command
 * record the order names (a copy) when the loop reads it, and executes
 * the held records in the order's sequence before the record each one's
 * release_before names.  Everything else runs where it stands.  Run 1's
 * --per-command results are then looked up by (seq, range), since runs
 * execute their commands in different orders.
 */
#include "replayer/rp_session.h"
#include "serializer/sbt_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Traces mix few APIs; more backends than this in one trace is an error. */
#define RP_MAX_ACTIVE 8

typedef struct rp_active {
	const rp_backend_ops *ops;
	void *state;
} rp_active;

typedef struct rp_route {
	uint32_t type;
	unsigned active;   /* index into active[] */
} rp_route;

/* The route of every type in [route_lo, route_lo + nroute_tab) by
 * subtraction, when the API types span at most this many numbers (they are
 * numbered densely per API); else a binary search of routes. */
#define RP_ROUTE_TAB_MAX 65536u
#define RP_ROUTE_NONE 0xffu

/* A thread's presents replayed since its last FRAME record. */
typedef struct rp_frame_thread {
	uint64_t thread;
	uint64_t presents;
} rp_frame_thread;

/* What run 1 computed at each place runs are compared (checkpoints, or
 * --per-command results), and the whole hashes of later runs. */
typedef struct rp_track {
	size_t n, cap;
	sbt_checkpoint *ref;  /* run 1's, owned */
	uint64_t **hashes;    /* [run - 1][i] whole hashes, runs 2..; owned */
} rp_track;

/* A command record held back for its place in a sampled order. */
typedef struct rp_held {
	sbt_record rec;       /* payload points at data */
	uint8_t *data;        /* owned */
	int held;
} rp_held;

typedef struct rp_seq_index {
	uint64_t seq;
	size_t item;
} rp_seq_index;

/* Where run 1 kept a --per-command result. */
typedef struct rp_cmd_key {
	uint64_t seq, object;
	size_t index;
} rp_cmd_key;

/* A run's sampled order as reported (items not kept). */
typedef struct rp_run_order {
	int sampled;
	uint64_t seed, hash, moved;
	size_t n;
	char mode[40];        /* "seed N", the run's run_mode */
} rp_run_order;

/* A run's record counts (rp_session_run, rp_session_exec). */
typedef struct rp_run_counts {
	uint64_t executed, ff;
	uint64_t ff_read;     /* fast-forwarded records read so far, held ones too */
	uint64_t first_read;  /* the seq of the first record the run read */
	int any_seq;
} rp_run_counts;

struct rp_session {
	rp_options opt;
	sbt_reader *reader;   /* iterated by the record loop */
	sbt_reader *lookup;   /* random access: backends' blobs, call lookups */
	sbt_trace_info info;
	rp_active active[RP_MAX_ACTIVE];
	size_t nactive;
	rp_route *routes;     /* sorted by type */
	size_t nroutes;
	uint8_t *route_tab;   /* active index by type - route_lo, or RP_ROUTE_NONE; owned */
	uint32_t route_lo;
	size_t nroute_tab;
	char backend_names[256];
	char open_note[512];  /* the reader's message at open (a dropped tail) */
	int from_keyframe;
	uint64_t keyframe_seq;
	/* frame numbering (docs/replay.md "Frames") */
	int has_window;       /* a trimmed trace: its first record is WINDOW */
	sbt_window window;
	uint32_t present_type; /* vulkan.vkQueuePresentKHR in this trace; 0 none */
	rp_frame_thread *pending; /* presents per thread since its last FRAME; owned */
	size_t npending, pending_cap;
	/* determinism bookkeeping (runs > 1) */
	rp_track cps;         /* checkpoints */
	rp_track cmds;        /* --per-command results */
	size_t cmd_index;     /* results met in this run */
	rp_profile *profile;  /* --profile; owned */
	const char **run_modes; /* [run] the backends' run_mode (borrowed), runs + 1; owned array */
	/* --schedule-seed */
	void *order_ctx;      /* the order source's; owned */
	rp_run_order *orders; /* [run] what was sampled, runs + 1; owned */
	rp_order order;       /* this run's (items borrowed from the source) */
	size_t order_next;    /* the next item to execute */
	rp_held *held;        /* per item of order: its record, while held; owned */
	rp_seq_index *order_index; /* items by seq; owned */
	rp_cmd_key *cmd_sorted; /* --per-command: run 1's results by (seq, object); owned */
	rp_keyframe_report kf_ref; /* run 1's first keyframe that differed (differ 0: none) */
	double start_time;
	double last_progress;
	int progress_shown;
};

static double rp_session_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int rp_session_route_cmp(const void *a, const void *b)
{
	const rp_route *x = a, *y = b;
	return x->type < y->type ? -1 : x->type > y->type;
}

/* The active backend for an API name, or -1. */
static int rp_session_find_active(const rp_session *s, const char *api, size_t len)
{
	size_t i;
	for (i = 0; i < s->nactive; i++)
		if (strlen(s->active[i].ops->api) == len && strncmp(s->active[i].ops->api, api, len) == 0)
			return (int)i;
	return -1;
}

/* Open one backend per API named in the trace's "api" metadata. */
static rp_status rp_session_pick_backends(rp_session *s, const rp_backend_ops *const *backends,
                                          size_t nbackends, rp_diag *diag)
{
	const char *apis = sbt_reader_meta(s->lookup, "api");
	const char *p;
	size_t i;

	if (!apis || !*apis) {
		rp_diag_set(diag, "%s: the trace names no API (metadata 'api' is missing), "
		            "so no backend can replay it", s->opt.trace_path);
		return RP_ERR_TRACE;
	}
	for (p = apis; *p;) {
		size_t len = strcspn(p, ",");
		const rp_backend_ops *found = NULL;
		for (i = 0; i < nbackends && !found; i++)
			if (strlen(backends[i]->api) == len && strncmp(backends[i]->api, p, len) == 0)
				found = backends[i];
		if (len > 0 && rp_session_find_active(s, p, len) < 0) {
			if (!found) {
				char list[256] = "";
				size_t used = 0;
				for (i = 0; i < nbackends; i++)
					used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
					                         "%s%s", i ? ", " : "", backends[i]->api);
				rp_diag_set(diag, "trace API '%.*s' has no backend in this build (backends: %s)",
				            (int)len, p, nbackends ? list : "none");
				return RP_ERR_UNSUPPORTED;
			}
			if (s->nactive == RP_MAX_ACTIVE) {
				rp_diag_set(diag, "trace names more than %d APIs", RP_MAX_ACTIVE);
				return RP_ERR_UNSUPPORTED;
			}
			s->active[s->nactive++].ops = found;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (s->nactive == 0) {
		rp_diag_set(diag, "%s: metadata 'api' is '%s', which names no API", s->opt.trace_path, apis);
		return RP_ERR_TRACE;
	}
	for (i = 0; i < s->nactive; i++) {
		size_t used = strlen(s->backend_names);
		snprintf(s->backend_names + used, sizeof(s->backend_names) - used, "%s%s", i ? ", " : "",
		         s->active[i].ops->name);
	}
	return RP_OK;
}

/* Route every named API type to the backend whose API prefixes its name. */
static rp_status rp_session_build_routes(rp_session *s, rp_diag *diag)
{
	size_t i, n = 0;
	uint32_t type;
	const char *name;

	while (sbt_reader_type_at(s->lookup, n, &type, &name) == SBT_OK)
		n++;
	s->routes = calloc(n ? n : 1, sizeof(*s->routes));
	if (!s->routes) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	for (i = 0; i < n; i++) {
		int a;
		if (sbt_reader_type_at(s->lookup, i, &type, &name) != SBT_OK || type < SBT_TYPE_FIRST_API)
			continue;
		a = rp_session_find_active(s, name, strcspn(name, "."));
		if (a < 0)
			continue;
		s->routes[s->nroutes].type = type;
		s->routes[s->nroutes].active = (unsigned)a;
		s->nroutes++;
	}
	qsort(s->routes, s->nroutes, sizeof(*s->routes), rp_session_route_cmp);
	/* Every API record asks for its route: a table makes that one load. */
	if (s->nroutes && s->nactive < RP_ROUTE_NONE &&
	    s->routes[s->nroutes - 1].type - s->routes[0].type < RP_ROUTE_TAB_MAX) {
		s->route_lo = s->routes[0].type;
		s->nroute_tab = (size_t)(s->routes[s->nroutes - 1].type - s->route_lo) + 1;
		s->route_tab = malloc(s->nroute_tab);
		if (!s->route_tab) {
			rp_diag_set(diag, "out of memory");
			return RP_ERR_NOMEM;
		}
		memset(s->route_tab, RP_ROUTE_NONE, s->nroute_tab);
		for (i = 0; i < s->nroutes; i++)
			s->route_tab[s->routes[i].type - s->route_lo] = (uint8_t)s->routes[i].active;
	}
	return RP_OK;
}

/* The backend for an API record type: by name, or the only one there is. */
static inline int rp_session_route(const rp_session *s, uint32_t type)
{
	rp_route key = {type, 0};
	const rp_route *r;
	if (s->route_tab) {
		if (type - s->route_lo < s->nroute_tab && s->route_tab[type - s->route_lo] != RP_ROUTE_NONE)
			return s->route_tab[type - s->route_lo];
		return s->nactive == 1 ? 0 : -1;
	}
	r = bsearch(&key, s->routes, s->nroutes, sizeof(*s->routes), rp_session_route_cmp);
	if (r)
		return (int)r->active;
	return s->nactive == 1 ? 0 : -1;
}

/* Whether every backend may start a replay at the keyframe at seq. */
static int rp_session_keyframe_is_start(rp_session *s, uint64_t seq)
{
	sbt_record rec;
	size_t i;
	for (i = 0; i < s->nactive; i++)
		if (s->active[i].ops->keyframe_is_start)
			break;
	if (i == s->nactive)
		return 1;
	if (sbt_reader_seek_seq(s->reader, seq) != SBT_OK || sbt_reader_next(s->reader, &rec) != SBT_OK ||
	    rec.seq != seq)
		return 0;
	for (i = 0; i < s->nactive; i++)
		if (s->active[i].ops->keyframe_is_start && !s->active[i].ops->keyframe_is_start(&rec))
			return 0;
	return 1;
}

/* Restore from the nearest keyframe at or before the range start that a
 * replay may start at, when the trace has one and every backend can
 * restore. */
static void rp_session_pick_start(rp_session *s)
{
	const uint64_t *seqs = NULL;
	size_t n = 0, i;

	if (!s->opt.range.has_begin || s->opt.range.begin == 0)
		return;
	for (i = 0; i < s->nactive; i++)
		if (!s->active[i].ops->keyframe)
			return;
	if (sbt_reader_keyframes(s->reader, &seqs, &n) != SBT_OK)
		return;
	for (i = n; i-- > 0;) {
		if (seqs[i] > s->opt.range.begin || !rp_session_keyframe_is_start(s, seqs[i]))
			continue;
		s->from_keyframe = 1;
		s->keyframe_seq = seqs[i];
		break;
	}
}

/* A trimmed trace starts with a WINDOW record (sbt.h); the present type
 * is what ends a Vulkan frame.  Both only number frames: a WINDOW that
 * does not decode is treated as absent. */
static void rp_session_find_window(rp_session *s)
{
	sbt_record rec;
	uint32_t type;
	const char *name;
	size_t i;

	for (i = 0; sbt_reader_type_at(s->lookup, i, &type, &name) == SBT_OK; i++)
		if (name && strcmp(name, "vulkan.vkQueuePresentKHR") == 0)
			s->present_type = type;
	if (s->info.record_count == 0 || sbt_reader_seek_seq(s->lookup, s->info.first_seq) != SBT_OK ||
	    sbt_reader_next(s->lookup, &rec) != SBT_OK || rec.type != SBT_TYPE_WINDOW)
		return;
	s->has_window = sbt_window_decode(rec.payload, rec.payload_len, &s->window) == SBT_OK;
}

int rp_session_window(const rp_session *s, sbt_window *out)
{
	if (!s || !s->has_window)
		return 0;
	*out = s->window;
	return 1;
}

int rp_session_unclosed(const rp_session *s)
{
	return s && !s->info.has_index && !s->info.truncated;
}

/* Count frame records and presents of run 1 (rp_report's frames). */
static rp_status rp_session_count_frame(rp_session *s, rp_report *rep, const sbt_record *rec,
                                        rp_diag *diag)
{
	const uint8_t *p = rec->payload;
	uint64_t frame;
	size_t i;

	for (i = 0; i < s->npending && s->pending[i].thread != rec->thread; i++)
		;
	if (i == s->npending) {
		if (s->npending == s->pending_cap) {
			size_t ncap = s->pending_cap ? 2 * s->pending_cap : 8;
			rp_frame_thread *np = realloc(s->pending, ncap * sizeof(*np));
			if (!np) {
				rp_diag_set(diag, "out of memory");
				return RP_ERR_NOMEM;
			}
			s->pending = np;
			s->pending_cap = ncap;
		}
		s->pending[s->npending].thread = rec->thread;
		s->pending[s->npending++].presents = 0;
	}
	if (rec->type != SBT_TYPE_FRAME) {
		s->pending[i].presents++;
		return RP_OK;
	}
	s->pending[i].presents = 0;
	if (sbt_varint_get(&p, rec->payload + rec->payload_len, &frame) != 0)
		return RP_OK;
	if (rep->frames++ == 0)
		rep->first_frame = frame;
	rep->last_frame = frame;
	return RP_OK;
}

/* Presents replayed without their FRAME record count as frames too: the
 * backend presented them (a trace cut inside vkQueuePresentKHR). */
static void rp_session_finish_frames(rp_session *s, rp_report *rep)
{
	size_t i;
	for (i = 0; i < s->npending; i++)
		rep->frames_cut += s->pending[i].presents;
	if (!rep->frames_cut)
		return;
	if (rep->frames == 0) {
		rep->first_frame = s->has_window && s->window.first_frame ? s->window.first_frame : 1;
		rep->last_frame = rep->first_frame - 1;
	}
	rep->frames += rep->frames_cut;
	rep->last_frame += rep->frames_cut;
}

/* --schedule-seed: the order source must take the trace, and every
 * backend in use must be able to run a sampled order. */
static rp_status rp_session_open_orders(rp_session *s, const rp_backend_ops *const *backends,
                                        size_t nbackends, rp_diag *diag)
{
	rp_diag od = {""};
	rp_status st;
	size_t i, j;

	if (!s->opt.orders) {
		rp_diag_set(diag, "--schedule-seed: this build has no emulator to sample orders from");
		return RP_ERR_USAGE;
	}
	st = s->opt.orders->open(s->opt.trace_path, &s->order_ctx, &od);
	if (st != RP_OK) {
		rp_diag_set(diag, "--schedule-seed: %s", od.text[0] ? od.text : rp_strerror(st));
		return st;
	}
	if (od.text[0] && !s->opt.quiet) /* a note: one queue, say */
		fprintf(stderr, "tsreplay: --schedule-seed: %s\n", od.text);
	/* the source says first why a trace gets no order (a Vulkan one);
	 * then a backend that cannot run one is refused */
	for (i = 0; i < s->nactive; i++) {
		char can[160] = "";
		size_t used = 0;
		if (s->active[i].ops->serialises)
			continue;
		for (j = 0; j < nbackends; j++)
			if (backends[j]->serialises && used < sizeof(can))
				used += (size_t)snprintf(can + used, sizeof(can) - used, "%s%s", used ? ", " : "",
				                         backends[j]->name);
		rp_diag_set(diag, "--schedule-seed: backend %s cannot replay its commands in a sampled "
		            "order (backends that can: %s)", s->active[i].ops->name, used ? can : "none");
		return RP_ERR_USAGE;
	}
	s->orders = calloc(s->opt.runs + 1, sizeof(*s->orders));
	if (!s->orders) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	return RP_OK;
}

rp_status rp_session_open(const rp_options *opt, const rp_backend_ops *const *backends,
                          size_t nbackends, rp_session **out, rp_diag *diag)
{
	rp_session *s = calloc(1, sizeof(*s));
	sbt_reader_options ropt = {0};
	rp_backend_open_args args = {0};
	sbt_status sst;
	rp_status st;
	size_t i;

	if (!s) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	s->opt = *opt;
	/* Damage in the middle (SBT_ERR_CORRUPT) still gives a reader that
	 * yields the records before it: replay those, then stop at the damage
	 * with the reader's message. */
	sst = sbt_reader_open(opt->trace_path, &ropt, &s->reader);
	if (sst != SBT_OK && !(sst == SBT_ERR_CORRUPT && s->reader)) {
		char why[512];
		sbt_cli_open_error(opt->trace_path, sst, s->reader, why, sizeof(why));
		rp_diag_set(diag, "%s: %s", opt->trace_path, why);
		st = RP_ERR_TRACE;
		goto out_fail;
	}
	snprintf(s->open_note, sizeof(s->open_note), "%s", sbt_reader_message(s->reader));
	sst = sbt_reader_open(opt->trace_path, &ropt, &s->lookup);
	if (sst != SBT_OK && !(sst == SBT_ERR_CORRUPT && s->lookup)) {
		rp_diag_set(diag, "%s: %s", opt->trace_path, sbt_strerror(sst));
		st = RP_ERR_TRACE;
		goto out_fail;
	}
	sbt_reader_get_info(s->reader, &s->info);
	rp_session_find_window(s);
	st = rp_session_pick_backends(s, backends, nbackends, diag);
	if (st != RP_OK)
		goto out_fail;
	st = rp_session_build_routes(s, diag);
	if (st != RP_OK)
		goto out_fail;
	args.trace = s->lookup;
	args.trace_path = opt->trace_path;
	args.device = opt->device;
	args.quiet = opt->quiet;
	args.options = opt->backend_options;
	args.noptions = opt->nbackend_options;
	args.first_frame = s->has_window && s->window.first_frame ? s->window.first_frame : 1;
	if (opt->profile_path) {
		for (i = 0; i < s->nactive; i++)
			if (!s->active[i].ops->profile_finish) {
				rp_diag_set(diag, "--profile: backend %s cannot time commands",
				            s->active[i].ops->name);
				st = RP_ERR_USAGE;
				goto out_fail;
			}
		if (rp_profile_create(s->info.header.trace_id, s->backend_names, &s->profile) != RP_OK) {
			rp_diag_set(diag, "out of memory");
			st = RP_ERR_NOMEM;
			goto out_fail;
		}
		args.profile = s->profile;
	}
	if (opt->nschedule_seeds) {
		st = rp_session_open_orders(s, backends, nbackends, diag);
		if (st != RP_OK)
			goto out_fail;
		args.serialise = 1;
	}
	if (opt->per_command == 2) /* implied: where every backend can */
		for (i = 0; i < s->nactive; i++)
			if (!s->active[i].ops->command_results)
				s->opt.per_command = 0;
	if (s->opt.per_command) {
		for (i = 0; i < s->nactive; i++)
			if (!s->active[i].ops->command_results) {
				rp_diag_set(diag, "--per-command: backend %s cannot check after every command",
				            s->active[i].ops->name);
				st = RP_ERR_USAGE;
				goto out_fail;
			}
		args.per_command = 1;
	}
	/* --device means what the trace's backends say it means: check it with
	 * them, all of them before any opens (and touches a device). */
	for (i = 0; i < s->nactive && opt->device; i++) {
		rp_option_value dev = {"--device", opt->device};
		rp_diag bd = {""};
		if (!s->active[i].ops->check_option)
			continue;
		st = s->active[i].ops->check_option(&dev, &bd);
		if (st != RP_OK) {
			rp_diag_set(diag, "backend %s: %s", s->active[i].ops->name,
			            bd.text[0] ? bd.text : rp_strerror(st));
			goto out_fail;
		}
	}
	for (i = 0; i < s->nactive; i++) {
		rp_diag bd = {""};
		st = s->active[i].ops->open(&args, &s->active[i].state, &bd);
		if (st != RP_OK) {
			rp_diag_set(diag, "backend %s: cannot open: %s", s->active[i].ops->name,
			            bd.text[0] ? bd.text : rp_strerror(st));
			goto out_fail;
		}
	}
	rp_session_pick_start(s);
	*out = s;
	return RP_OK;
out_fail:
	rp_session_close(s);
	return st;
}

const char *rp_session_backends(const rp_session *s)
{
	return s ? s->backend_names : "";
}

/* Fill a mismatch's description of the call it checks (type, stack). */
static void rp_session_describe_call(rp_session *s, rp_mismatch *m)
{
	sbt_record rec;
	const char *name;
	if (sbt_reader_seek_seq(s->lookup, m->call_seq) != SBT_OK ||
	    sbt_reader_next(s->lookup, &rec) != SBT_OK || rec.seq != m->call_seq)
		return;
	m->call_found = 1;
	m->call_type = rec.type;
	m->stack_id = rec.stack_id;
	name = sbt_reader_type_name(s->lookup, rec.type);
	snprintf(m->call_name, sizeof(m->call_name), "%s", name && *name ? name : "(unnamed type)");
	if (s->order_ctx && s->opt.orders->describe) {
		/* sampled orders name the command too: which kernel it launched */
		char what[64] = "";
		size_t used = strlen(m->call_name);
		s->opt.orders->describe(s->order_ctx, m->call_seq, what, sizeof(what));
		if (what[0] && used < sizeof(m->call_name))
			snprintf(m->call_name + used, sizeof(m->call_name) - used, " (%s)", what);
	}
}

static void rp_session_fill_mismatch(rp_session *s, rp_mismatch *m, const sbt_checkpoint *cp,
                                     const rp_check_result *res, const uint8_t *bytes,
                                     unsigned run, unsigned other_run, size_t index)
{
	memset(m, 0, sizeof(*m));
	m->valid = 1;
	m->run = run;
	m->other_run = other_run;
	m->index = index;
	m->call_seq = cp->call_seq;
	m->object = cp->object;
	m->range_offset = cp->offset;
	m->range_length = cp->length;
	m->expected_hash = cp->hash;
	m->actual_hash = res->actual_hash;
	m->located = res->located;
	m->block_size = cp->block_size;
	if (res->located) {
		m->diff_offset = res->diff_offset;
		m->diff_len = res->diff_len;
		m->nbytes = res->diff_len < sizeof(m->bytes) ? (size_t)res->diff_len : sizeof(m->bytes);
		memcpy(m->bytes, bytes + (res->diff_offset - cp->offset), m->nbytes);
	}
	rp_session_describe_call(s, m);
}

static void rp_session_progress(rp_session *s, unsigned run, uint64_t records, int last)
{
	double now;
	if (!s->opt.progress)
		return;
	if (last) {
		if (s->progress_shown)
			fputs("\r\033[K", stderr);
		s->progress_shown = 0;
		return;
	}
	now = rp_session_now();
	if (now - s->start_time < 1.0 || now - s->last_progress < 0.1)
		return;
	s->last_progress = now;
	s->progress_shown = 1;
	fprintf(stderr, "\rtsreplay: run %u/%u: %llu records\033[K", run, s->opt.runs,
	        (unsigned long long)records);
}

/* Whether the place a comes before place b (indices in run 1's results):
 * in run 1's order, or, for the per-command results of sampled orders
 * (each run in its own order), in seq order. */
static int rp_session_first(const rp_session *s, const rp_track *tr, size_t a, size_t b)
{
	if (tr != &s->cmds || !s->orders)
		return a <= b;
	if (tr->ref[a].call_seq != tr->ref[b].call_seq)
		return tr->ref[a].call_seq < tr->ref[b].call_seq;
	return tr->ref[a].object <= tr->ref[b].object;
}

/* Keep run 1's result (takes ownership of actual's blocks) in tr or
 * compare a later run's with it; the first difference goes to m. */
static rp_status rp_session_track_run(rp_session *s, rp_track *tr, rp_mismatch *m, unsigned run,
                                      size_t index, uint64_t seq, sbt_checkpoint *actual,
                                      const uint8_t *bytes, rp_diag *diag)
{
	rp_check_result res;
	rp_status st;

	if (run == 1) {
		if (tr->n == tr->cap) {
			size_t ncap = tr->cap ? 2 * tr->cap : 64;
			sbt_checkpoint *nr = realloc(tr->ref, ncap * sizeof(*nr));
			if (!nr) {
				rp_diag_set(diag, "out of memory keeping checkpoints for --check-determinism");
				return RP_ERR_NOMEM;
			}
			tr->ref = nr;
			tr->cap = ncap;
		}
		tr->ref[tr->n++] = *actual;
		memset(actual, 0, sizeof(*actual));
		return RP_OK;
	}
	if (index >= tr->n) {
		rp_diag_set(diag, "run %u met %s seq %llu that run 1 did not", run,
		            tr == &s->cmds ? "a result of the command at" : "checkpoint",
		            (unsigned long long)seq);
		return RP_ERR_BACKEND;
	}
	if (!tr->hashes[run - 1]) {
		tr->hashes[run - 1] = calloc(tr->n ? tr->n : 1, sizeof(uint64_t));
		if (!tr->hashes[run - 1]) {
			rp_diag_set(diag, "out of memory");
			return RP_ERR_NOMEM;
		}
	}
	tr->hashes[run - 1][index] = actual->hash;
	if (!bytes || actual->hash == tr->ref[index].hash || (m->valid && rp_session_first(s, tr, m->index, index)))
		return RP_OK; /* !bytes: not compared (an empty slot in every run) */
	st = rp_check_pair(&tr->ref[index], actual, &res, diag);
	if (st != RP_OK)
		return st;
	rp_session_fill_mismatch(s, m, &tr->ref[index], &res, bytes, run, 1, index);
	m->checkpoint_seq = seq;
	m->per_command = tr == &s->cmds;
	return RP_OK;
}

static rp_status rp_session_checkpoint(rp_session *s, rp_report *rep, unsigned run, size_t index,
                                       const sbt_record *rec, rp_diag *diag)
{
	sbt_checkpoint cp = {0};
	sbt_checkpoint actual = {0};
	rp_check_result res;
	const void *bytes = NULL;
	rp_diag bd = {""};
	sbt_status sst;
	rp_status st;
	int a = 0;

	sst = sbt_checkpoint_decode(rec->payload, rec->payload_len, &cp);
	if (sst != SBT_OK) {
		rp_diag_set(diag, "checkpoint record seq %llu cannot be decoded: %s",
		            (unsigned long long)rec->seq, sbt_strerror(sst));
		return RP_ERR_TRACE;
	}
	if (s->nactive > 1) {
		sbt_record call;
		a = -1;
		if (sbt_reader_seek_seq(s->lookup, cp.call_seq) == SBT_OK &&
		    sbt_reader_next(s->lookup, &call) == SBT_OK && call.seq == cp.call_seq)
			a = rp_session_route(s, call.type);
		if (a < 0) {
			rp_diag_set(diag, "checkpoint seq %llu: its call (seq %llu) belongs to no backend",
			            (unsigned long long)rec->seq, (unsigned long long)cp.call_seq);
			st = RP_ERR_TRACE;
			goto out_free;
		}
	}
	st = s->active[a].ops->checkpoint(s->active[a].state, &cp, &bytes, &bd);
	if (st != RP_OK) {
		rp_diag_set(diag, "checkpoint seq %llu (call seq %llu, object %llu): backend %s: %s",
		            (unsigned long long)rec->seq, (unsigned long long)cp.call_seq,
		            (unsigned long long)cp.object, s->active[a].ops->name,
		            bd.text[0] ? bd.text : rp_strerror(st));
		goto out_free;
	}
	if (!bytes) {
		/* Not compared: counted and listed; runs keep an empty slot so
		 * that indices stay aligned. */
		if (run == 1) {
			if (rep->not_compared < RP_NOT_COMPARED_LISTED)
				rep->not_compared_seq[rep->not_compared] = rec->seq;
			if (!rep->not_compared)
				snprintf(rep->not_compared_why, sizeof(rep->not_compared_why), "%.*s",
				         (int)sizeof(rep->not_compared_why) - 1, bd.text);
			rep->not_compared++;
		}
		if (s->opt.runs > 1)
			st = rp_session_track_run(s, &s->cps, &rep->runs, run, index, rec->seq, &actual,
			                          NULL, diag);
		goto out_free;
	}
	sst = sbt_checkpoint_compute(bytes, cp.length, &actual);
	if (sst != SBT_OK) {
		rp_diag_set(diag, "checkpoint seq %llu: hashing %llu bytes: %s", (unsigned long long)rec->seq,
		            (unsigned long long)cp.length, sbt_strerror(sst));
		st = RP_ERR_NOMEM;
		goto out_free;
	}
	actual.call_seq = cp.call_seq;
	actual.object = cp.object;
	actual.offset = cp.offset;
	st = rp_check_pair(&cp, &actual, &res, diag);
	if (st != RP_OK)
		goto out_free;
	if (run == 1) {
		rep->checkpoints++;
		if (res.match) {
			rep->matched++;
		} else {
			rep->mismatched++;
			if (!rep->capture.valid) {
				rp_session_fill_mismatch(s, &rep->capture, &cp, &res, bytes, run, 0, index);
				rep->capture.checkpoint_seq = rec->seq;
			}
		}
	}
	if (s->opt.runs > 1)
		st = rp_session_track_run(s, &s->cps, &rep->runs, run, index, rec->seq, &actual, bytes,
		                          diag);
out_free:
	sbt_checkpoint_free(&actual);
	sbt_checkpoint_free(&cp);
	return st;
}

static int rp_session_command_cmp(const void *a, const void *b)
{
	const rp_cmd_key *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->object < y->object ? -1 : x->object > y->object;
}

/* After run 1 of sampled orders: its results by (seq, object), for the
 * runs after it to find theirs. */
static rp_status rp_session_sort_commands(rp_session *s, rp_diag *diag)
{
	size_t i;
	free(s->cmd_sorted);
	s->cmd_sorted = malloc((s->cmds.n ? s->cmds.n : 1) * sizeof(*s->cmd_sorted));
	if (!s->cmd_sorted) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	for (i = 0; i < s->cmds.n; i++) {
		s->cmd_sorted[i].seq = s->cmds.ref[i].call_seq;
		s->cmd_sorted[i].object = s->cmds.ref[i].object;
		s->cmd_sorted[i].index = i;
	}
	qsort(s->cmd_sorted, s->cmds.n, sizeof(*s->cmd_sorted), rp_session_command_cmp);
	return RP_OK;
}

typedef struct rp_command_ctx {
	rp_session *s;
	rp_report *rep;
	unsigned run;
} rp_command_ctx;

/* rp_command_result_fn: hash one command's bytes and track them like a
 * checkpoint of their own (the capture has none to compare with). */
static rp_status rp_session_command_result(void *ctx, uint64_t seq, uint64_t object,
                                           const void *bytes, uint64_t len, rp_diag *diag)
{
	rp_command_ctx *c = ctx;
	rp_session *s = c->s;
	size_t index = s->cmd_index++;
	sbt_checkpoint actual = {0};
	rp_status st;
	sbt_status sst;

	if (c->run > 1 && s->cmd_sorted) {
		/* a sampled order: this run met its commands in an order of its own */
		rp_cmd_key key = {seq, object, 0};
		const rp_cmd_key *hit = bsearch(&key, s->cmd_sorted, s->cmds.n, sizeof(key),
		                                rp_session_command_cmp);
		if (!hit) {
			rp_diag_set(diag, "--per-command: run %u has a result of the command at seq %llu "
			            "(object 0x%llx) that run 1 does not", c->run, (unsigned long long)seq,
			            (unsigned long long)object);
			return RP_ERR_BACKEND;
		}
		index = hit->index;
	} else if (c->run > 1 && index < s->cmds.n &&
	    (s->cmds.ref[index].call_seq != seq || s->cmds.ref[index].object != object)) {
		rp_diag_set(diag, "--per-command: run %u's result %zu is of the command at seq %llu "
		            "(object 0x%llx), run 1's of seq %llu (object 0x%llx)", c->run, index,
		            (unsigned long long)seq, (unsigned long long)object,
		            (unsigned long long)s->cmds.ref[index].call_seq,
		            (unsigned long long)s->cmds.ref[index].object);
		return RP_ERR_BACKEND;
	}
	sst = sbt_checkpoint_compute(bytes, len, &actual);
	if (sst != SBT_OK) {
		rp_diag_set(diag, "--per-command: hashing %llu bytes after the command at seq %llu: %s",
		            (unsigned long long)len, (unsigned long long)seq, sbt_strerror(sst));
		return RP_ERR_NOMEM;
	}
	actual.call_seq = seq;
	actual.object = object;
	actual.offset = 0;
	st = rp_session_track_run(s, &s->cmds, &c->rep->command, c->run, index, seq, &actual,
	                          bytes, diag);
	sbt_checkpoint_free(&actual);
	return st;
}

/* --per-command, after a run: the backends hand over every command's
 * result, compared with run 1's. */
static rp_status rp_session_command_results(rp_session *s, rp_report *rep, unsigned run,
                                            rp_diag *diag)
{
	rp_command_ctx c = {s, rep, run};
	rp_status st = RP_OK;
	size_t i;

	s->cmd_index = 0;
	for (i = 0; i < s->nactive && st == RP_OK; i++) {
		rp_diag bd = {""};
		st = s->active[i].ops->command_results(s->active[i].state, rp_session_command_result, &c,
		                                       &bd);
		if (st != RP_OK)
			rp_diag_set(diag, "--per-command: backend %s: %s", s->active[i].ops->name,
			            bd.text[0] ? bd.text : rp_strerror(st));
	}
	if (st != RP_OK)
		return st;
	if (rep->command.valid && rep->command.run == run) {
		/* found in this run: the command inside the unit, where a backend names it */
		rp_mismatch *m = &rep->command;
		m->part_found = 0;
		for (i = 0; i < s->nactive && !m->part_found; i++)
			if (s->active[i].ops->command_part)
				m->part_found = s->active[i].ops->command_part(s->active[i].state, m->call_seq,
				                                               &m->part) == 1;
	}
	if (run == 1) {
		rep->command_results = s->cmd_index;
		if (s->orders && s->opt.runs > 1)
			st = rp_session_sort_commands(s, diag);
	} else if (s->cmd_index != s->cmds.n) {
		rp_diag_set(diag, "--per-command: run %u gave %zu command results, run 1 %zu", run,
		            s->cmd_index, s->cmds.n);
		return RP_ERR_BACKEND;
	}
	return RP_OK;
}

/* A keyframe's difference as a mismatch note: kr is what run found (its
 * bytes are shown), compared with the capture (other_run 0) or with a run
 * that matched the capture there (other_run). */
static void rp_session_keyframe_mismatch(rp_session *s, rp_mismatch *m, const rp_keyframe_report *kr,
                                         unsigned run, unsigned other_run)
{
	memset(m, 0, sizeof(*m));
	m->valid = 1;
	m->keyframe = 1;
	m->run = run;
	m->other_run = other_run;
	m->checkpoint_seq = kr->keyframe_seq;
	m->call_seq = kr->command_seq;
	m->object = kr->object;
	m->range_length = kr->length;
	m->expected_hash = kr->expected_hash;
	m->actual_hash = kr->actual_hash;
	m->located = 1;
	m->diff_offset = kr->diff_offset;
	m->diff_len = kr->diff_len;
	m->nbytes = kr->nbytes;
	memcpy(m->bytes, kr->bytes_replay, sizeof(m->bytes));
	memcpy(m->capture_bytes, kr->bytes_capture, sizeof(m->capture_bytes));
	rp_session_describe_call(s, m);
}

/* After a run: the keyframes the backends compared with their memory.
 * Run 1's first difference is a difference from the capture (the earlier
 * of it and the first checkpoint that differs is reported); a later run
 * that differs from the capture at a keyframe where run 1 did not (or
 * not with the same bytes) parts from run 1 there. */
static rp_status rp_session_keyframe_results(rp_session *s, rp_report *rep, unsigned run,
                                             rp_diag *diag)
{
	rp_keyframe_report first;
	const rp_keyframe_report *ref = &s->kf_ref;
	size_t i;

	memset(&first, 0, sizeof(first));
	for (i = 0; i < s->nactive; i++) {
		rp_keyframe_report kr;
		rp_diag bd = {""};
		rp_status st;
		if (!s->active[i].ops->keyframe_results)
			continue;
		memset(&kr, 0, sizeof(kr));
		st = s->active[i].ops->keyframe_results(s->active[i].state, &kr, &bd);
		if (st != RP_OK) {
			rp_diag_set(diag, "keyframes: backend %s: %s", s->active[i].ops->name,
			            bd.text[0] ? bd.text : rp_strerror(st));
			return st;
		}
		if (run == 1) {
			rep->keyframes_on = 1;
			rep->keyframes += kr.compared;
			rep->keyframes_differ += kr.differ;
			rep->keyframe_ranges += kr.ranges;
			rep->keyframe_bytes += kr.bytes;
		}
		if (kr.differ && (!first.differ || kr.keyframe_seq < first.keyframe_seq))
			first = kr;
	}
	if (run == 1) {
		s->kf_ref = first;
		if (first.differ && (!rep->capture.valid || first.keyframe_seq < rep->capture.checkpoint_seq))
			rp_session_keyframe_mismatch(s, &rep->capture, &first, 1, 0);
		return RP_OK;
	}
	if (first.differ == ref->differ && (!first.differ ||
	    (first.keyframe_seq == ref->keyframe_seq && first.object == ref->object &&
	     first.actual_hash == ref->actual_hash)))
		return RP_OK; /* the runs agree at every keyframe compared */
	if (first.differ && (!ref->differ || first.keyframe_seq <= ref->keyframe_seq)) {
		if (!rep->runs.valid || first.keyframe_seq < rep->runs.checkpoint_seq)
			rp_session_keyframe_mismatch(s, &rep->runs, &first, run, 1);
	} else if (!rep->runs.valid || ref->keyframe_seq < rep->runs.checkpoint_seq) {
		/* run 1 differs from the capture first; this run matched it there */
		rp_session_keyframe_mismatch(s, &rep->runs, ref, 1, run);
	}
	return RP_OK;
}

static int rp_session_seq_index_cmp(const void *a, const void *b)
{
	const rp_seq_index *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Forget the held records of the last run (their payloads). */
static void rp_session_drop_held(rp_session *s)
{
	size_t i;
	if (!s->held)
		return;
	for (i = 0; i < s->order.n; i++)
		free(s->held[i].data);
	free(s->held);
	s->held = NULL;
}

/* Before run: draw its order. */
static rp_status rp_session_sample(rp_session *s, unsigned run, rp_diag *diag)
{
	rp_run_order *ro = &s->orders[run];
	rp_diag od = {""};
	rp_status st;
	size_t i;

	rp_session_drop_held(s);
	free(s->order_index);
	s->order_index = NULL;
	memset(&s->order, 0, sizeof(s->order));
	ro->seed = s->opt.schedule_seeds[(run - 1) % s->opt.nschedule_seeds];
	st = s->opt.orders->sample(s->order_ctx, ro->seed, &s->order, &od);
	if (st != RP_OK) {
		memset(&s->order, 0, sizeof(s->order));
		rp_diag_set(diag, "--schedule-seed %llu: %s", (unsigned long long)ro->seed,
		            od.text[0] ? od.text : rp_strerror(st));
		return st;
	}
	ro->sampled = 1;
	ro->hash = s->order.hash;
	ro->moved = s->order.moved;
	ro->n = s->order.n;
	snprintf(ro->mode, sizeof(ro->mode), "seed %llu", (unsigned long long)ro->seed);
	s->run_modes[run] = ro->mode;
	s->order_next = 0;
	s->held = calloc(s->order.n ? s->order.n : 1, sizeof(*s->held));
	s->order_index = malloc((s->order.n ? s->order.n : 1) * sizeof(*s->order_index));
	if (!s->held || !s->order_index) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	for (i = 0; i < s->order.n; i++) {
		s->order_index[i].seq = s->order.items[i].seq;
		s->order_index[i].item = i;
	}
	qsort(s->order_index, s->order.n, sizeof(*s->order_index), rp_session_seq_index_cmp);
	return RP_OK;
}

/* Hold rec when the run's order names it: 1 held, 0 not a command of the
 * order, -1 out of memory. */
static int rp_session_hold(rp_session *s, const sbt_record *rec)
{
	rp_seq_index key = {rec->seq, 0};
	const rp_seq_index *hit;
	rp_held *h;

	if (!s->order_index)
		return 0;
	hit = bsearch(&key, s->order_index, s->order.n, sizeof(*s->order_index),
	              rp_session_seq_index_cmp);
	if (!hit)
		return 0;
	h = &s->held[hit->item];
	h->data = malloc(rec->payload_len ? rec->payload_len : 1);
	if (!h->data)
		return -1;
	memcpy(h->data, rec->payload, rec->payload_len);
	h->rec = *rec;
	h->rec.payload = h->data;
	h->held = 1;
	return 1;
}

/* Execute one API record (in range, or fast-forwarded before it). */
static rp_status rp_session_exec(rp_session *s, rp_report *rep, unsigned run, const sbt_record *rec,
                                 rp_run_counts *rc, rp_diag *diag)
{
	int is_ff = rec->seq < s->opt.range.begin;
	int a = rp_session_route(s, rec->type);
	rp_diag bd;
	rp_status st;

	/* Per record: an empty string, not 512 cleared bytes (backends
	 * write whole strings with rp_diag_set). */
	bd.text[0] = '\0';
	if (a < 0) {
		const char *name = sbt_reader_type_name(s->lookup, rec->type);
		rp_diag_set(diag, "record seq %llu: type %u ('%s') belongs to no backend in use",
		            (unsigned long long)rec->seq, rec->type, name ? name : "");
		return RP_ERR_UNSUPPORTED;
	}
	st = s->active[a].ops->execute(s->active[a].state, rec, is_ff ? RP_EXEC_FAST_FORWARD : 0u, &bd);
	if (st != RP_OK) {
		rp_diag_set(diag, "backend %s: %s", s->active[a].ops->name,
		            bd.text[0] ? bd.text : rp_strerror(st));
		return st;
	}
	if (is_ff) {
		rc->ff++;
		return RP_OK;
	}
	/* a sampled order executes records out of seq order: the range of
	 * seqs executed, whatever the order */
	if (run == 1 && (!rc->any_seq || rec->seq < rep->first_seq))
		rep->first_seq = rec->seq;
	if (run == 1 && (!rc->any_seq || rec->seq > rep->last_seq))
		rep->last_seq = rec->seq;
	rc->any_seq = 1;
	rc->executed++;
	return RP_OK;
}

/* A sampled order: execute the held commands due before the record of
 * seq before (UINT64_MAX: all that are left), in the order's sequence.
 * A command whose record the run did not read (before its start
 * keyframe, at or after the range's end) is passed over. */
static rp_status rp_session_release(rp_session *s, rp_report *rep, unsigned run, uint64_t before,
                                    rp_run_counts *rc, rp_diag *diag)
{
	rp_status st = RP_OK;

	while (st == RP_OK && s->order_next < s->order.n &&
	       s->order.items[s->order_next].release_before <= before) {
		const rp_order_item *it = &s->order.items[s->order_next];
		rp_held *h = &s->held[s->order_next++];
		if (!h->held) {
			if (it->seq < rc->first_read || it->seq >= s->opt.range.end)
				continue;
			rp_diag_set(diag, "--schedule-seed: the sampled order runs the command at seq %llu "
			            "before seq %llu, but the replay had not read it", (unsigned long long)it->seq,
			            (unsigned long long)before);
			return RP_ERR_BACKEND;
		}
		st = rp_session_exec(s, rep, run, &h->rec, rc, diag);
		free(h->data);
		h->data = NULL;
		h->held = 0;
	}
	return st;
}

/* One run over the range.  Counters go to rep only in run 1. */
static rp_status rp_session_run(rp_session *s, rp_report *rep, unsigned run, rp_diag *diag)
{
	const rp_range *range = &s->opt.range;
	uint64_t start = s->from_keyframe ? s->keyframe_seq : 0;
	uint64_t records = 0;
	uint64_t last_seq = 0;
	rp_run_counts rc = {0, 0, 0, 0, 0};
	size_t index = 0;
	int crossed = 0;
	int in_snapshot = 0; /* between a trimmed trace's WINDOW and SNAPSHOT_END */
	sbt_record rec;
	sbt_status sst;
	rp_status st = RP_OK;
	size_t i;

	sst = sbt_reader_seek_seq(s->reader, start);
	if (sst == SBT_END || sst == SBT_ERR_NOT_FOUND)
		goto out_done;
	if (sst != SBT_OK) {
		const char *msg = sbt_reader_message(s->reader);
		rp_diag_set(diag, "%s: cannot seek to seq %llu: %s", s->opt.trace_path,
		            (unsigned long long)start, *msg ? msg : sbt_strerror(sst));
		return RP_ERR_TRACE;
	}
	for (;;) {
		int is_ff;
		sst = sbt_reader_next(s->reader, &rec);
		if (sst == SBT_END) {
			if (s->info.truncated) {
				rp_diag_set(diag, "%s: the trace is truncated at offset %llu; replayed up to "
				            "seq %llu, the records after it are lost%s%s", s->opt.trace_path,
				            (unsigned long long)s->info.truncated_at,
				            (unsigned long long)last_seq, s->open_note[0] ? " (" : "",
				            s->open_note[0] ? s->open_note : "");
				if (s->open_note[0])
					strncat(diag->text, ")", sizeof(diag->text) - strlen(diag->text) - 1);
				st = RP_ERR_TRACE;
			}
			break;
		}
		if (sst != SBT_OK) {
			const char *msg = sbt_reader_message(s->reader);
			char where[64] = "before its first record";
			if (last_seq)
				snprintf(where, sizeof(where), "after seq %llu", (unsigned long long)last_seq);
			rp_diag_set(diag, "%s: damaged trace %s: %s", s->opt.trace_path, where,
			            *msg ? msg : sbt_strerror(sst));
			st = RP_ERR_TRACE;
			break;
		}
		if (rec.seq >= range->end)
			break;
		if (records == 0)
			rc.first_read = rec.seq;
		if (s->order_index) {
			st = rp_session_release(s, rep, run, rec.seq, &rc, diag);
			if (st != RP_OK)
				break;
		}
		last_seq = rec.seq;
		is_ff = rec.seq < range->begin;
		if (!is_ff && !crossed) {
			crossed = 1;
			if (run == 1 && range->has_begin && !s->opt.quiet) {
				if (s->from_keyframe)
					fprintf(stderr, "tsreplay: restored keyframe at seq %llu, fast-forwarded "
					        "%llu records before seq %llu\n", (unsigned long long)s->keyframe_seq,
					        (unsigned long long)rc.ff_read, (unsigned long long)range->begin);
				else
					fprintf(stderr, "tsreplay: fast-forwarded %llu records before seq %llu "
					        "(no keyframe)\n", (unsigned long long)rc.ff_read,
					        (unsigned long long)range->begin);
			}
		}
		records++;
		if ((records & 255) == 0)
			rp_session_progress(s, run, records, 0);
		if (rec.type == SBT_TYPE_WINDOW || rec.type == SBT_TYPE_SNAPSHOT_END)
			in_snapshot = rec.type == SBT_TYPE_WINDOW;
		if (run == 1 && !is_ff && !in_snapshot &&
		    (rec.type == SBT_TYPE_FRAME || (s->present_type && rec.type == s->present_type))) {
			st = rp_session_count_frame(s, rep, &rec, diag);
			if (st != RP_OK)
				break;
		}
		if (rec.type == SBT_TYPE_CHECKPOINT) {
			if (is_ff)
				continue;
			st = rp_session_checkpoint(s, rep, run, index++, &rec, diag);
			if (st != RP_OK)
				break;
		} else if (rec.type == SBT_TYPE_KEYFRAME) {
			int restore = s->from_keyframe && rec.seq == s->keyframe_seq;
			for (i = 0; i < s->nactive && st == RP_OK; i++) {
				rp_diag bd = {""};
				if (!s->active[i].ops->keyframe)
					continue;
				st = s->active[i].ops->keyframe(s->active[i].state, &rec, restore, &bd);
				if (st != RP_OK)
					rp_diag_set(diag, "keyframe seq %llu: backend %s: %s",
					            (unsigned long long)rec.seq, s->active[i].ops->name,
					            bd.text[0] ? bd.text : rp_strerror(st));
			}
			if (st != RP_OK)
				break;
		} else if (rec.type == SBT_TYPE_UNMODELED) {
			if (run == 1 && !is_ff)
				rep->unmodeled++;
		} else if (rec.type >= SBT_TYPE_FIRST_API) {
			int held = rp_session_hold(s, &rec);
			if (is_ff)
				rc.ff_read++;
			if (held < 0) {
				rp_diag_set(diag, "out of memory holding record seq %llu for its place in the "
				            "sampled order", (unsigned long long)rec.seq);
				st = RP_ERR_NOMEM;
				break;
			}
			if (!held)
				st = rp_session_exec(s, rep, run, &rec, &rc, diag);
			if (st != RP_OK)
				break;
		}
	}
	if (st == RP_OK && s->order_index)
		st = rp_session_release(s, rep, run, UINT64_MAX, &rc, diag);
out_done:
	if (run == 1) {
		rep->executed = rc.executed;
		rep->fast_forwarded = rc.ff;
		rp_session_finish_frames(s, rep);
	} else if (st == RP_OK && (rc.executed != rep->executed || index != s->cps.n)) {
		rp_diag_set(diag, "run %u executed %llu records and %zu checkpoints, run 1 %llu and %zu",
		            run, (unsigned long long)rc.executed, index, (unsigned long long)rep->executed,
		            s->cps.n);
		st = RP_ERR_BACKEND;
	}
	if (st == RP_OK)
		st = rp_session_keyframe_results(s, rep, run, diag);
	if (st == RP_OK && s->opt.per_command)
		st = rp_session_command_results(s, rep, run, diag);
	return st;
}

/* --profile, after the first run: the backends hand over their timings,
 * then the sidecar is written. */
static rp_status rp_session_profile_finish(rp_session *s, rp_report *rep, rp_diag *diag)
{
	rp_status st;
	size_t i;
	for (i = 0; i < s->nactive; i++) {
		rp_diag bd = {""};
		st = s->active[i].ops->profile_finish(s->active[i].state, &bd);
		if (st != RP_OK) {
			rp_diag_set(diag, "--profile: backend %s: %s", s->active[i].ops->name,
			            bd.text[0] ? bd.text : rp_strerror(st));
			return st;
		}
	}
	st = rp_profile_write(s->profile, s->opt.profile_path, diag);
	if (st != RP_OK)
		return st;
	rep->profiled = rp_profile_count(s->profile);
	snprintf(rep->profile_device, sizeof(rep->profile_device), "%s",
	         rp_profile_device(s->profile));
	return RP_OK;
}

rp_status rp_session_replay(rp_session *s, rp_report *rep, rp_diag *diag)
{
	rp_status st = RP_OK;
	unsigned run;
	size_t i;

	memset(rep, 0, sizeof(*rep));
	rep->from_keyframe = s->from_keyframe;
	rep->keyframe_seq = s->keyframe_seq;
	s->start_time = rp_session_now();
	if (s->opt.runs > 1) {
		s->cps.hashes = calloc(s->opt.runs, sizeof(*s->cps.hashes));
		s->cmds.hashes = calloc(s->opt.runs, sizeof(*s->cmds.hashes));
		if (!s->cps.hashes || !s->cmds.hashes) {
			rp_diag_set(diag, "out of memory");
			return RP_ERR_NOMEM;
		}
	}
	if (s->info.record_count == 0) {
		if (s->info.truncated)
			rp_diag_set(diag, "%s: the trace is truncated at offset %llu and no record "
			            "survives (%s)", s->opt.trace_path,
			            (unsigned long long)s->info.truncated_at, s->open_note);
		else
			rp_diag_set(diag, "%s: the trace holds no records", s->opt.trace_path);
		st = RP_ERR_TRACE;
		goto out_done;
	}
	if (s->opt.range.begin > s->info.last_seq) {
		rp_diag_set(diag, "range selects no records of %s (it holds seq %llu..%llu)",
		            s->opt.trace_path, (unsigned long long)s->info.first_seq,
		            (unsigned long long)s->info.last_seq);
		st = RP_ERR_ARG;
		goto out_done;
	}
	s->run_modes = calloc(s->opt.runs + 1, sizeof(*s->run_modes));
	if (!s->run_modes) {
		rp_diag_set(diag, "out of memory");
		st = RP_ERR_NOMEM;
		goto out_done;
	}
	for (run = 1; run <= s->opt.runs; run++) {
		if (run > 1) {
			for (i = 0; i < s->nactive; i++) {
				rp_diag bd = {""};
				st = s->active[i].ops->reset(s->active[i].state, &bd);
				if (st != RP_OK) {
					rp_diag_set(diag, "backend %s: reset for run %u: %s", s->active[i].ops->name,
					            run, bd.text[0] ? bd.text : rp_strerror(st));
					goto out_done;
				}
			}
		}
		if (s->orders) {
			st = rp_session_sample(s, run, diag);
			if (st != RP_OK)
				goto out_done;
		}
		for (i = 0; i < s->nactive && !s->run_modes[run]; i++)
			if (s->active[i].ops->run_mode)
				s->run_modes[run] = s->active[i].ops->run_mode(s->active[i].state);
		st = rp_session_run(s, rep, run, diag);
		if (st == RP_OK && run == 1 && s->profile)
			st = rp_session_profile_finish(s, rep, diag);
		if (st != RP_OK)
			goto out_done;
		rep->runs_done = run;
	}
	if (rep->executed == 0 && rep->checkpoints == 0 &&
	    (s->opt.range.has_begin || s->opt.range.has_end)) {
		rp_diag_set(diag, "range selects no records of %s (it holds seq %llu..%llu)",
		            s->opt.trace_path, (unsigned long long)s->info.first_seq,
		            (unsigned long long)s->info.last_seq);
		st = RP_ERR_ARG;
	}
out_done:
	rp_session_progress(s, 0, 0, 1);
	rep->seconds = rp_session_now() - s->start_time;
	return st;
}

const char *rp_session_run_mode(const rp_session *s, unsigned run)
{
	if (!s || !s->run_modes || run == 0 || run > s->opt.runs)
		return NULL;
	return s->run_modes[run];
}

int rp_session_per_command(const rp_session *s)
{
	return s && s->opt.per_command;
}

int rp_session_schedule(const rp_session *s, unsigned run, uint64_t *seed_out, rp_order *out)
{
	const rp_run_order *ro;
	if (!s || !s->orders || run == 0 || run > s->opt.runs || !s->orders[run].sampled)
		return 0;
	ro = &s->orders[run];
	*seed_out = ro->seed;
	memset(out, 0, sizeof(*out));
	out->n = ro->n;
	out->hash = ro->hash;
	out->moved = ro->moved;
	return 1;
}

void rp_session_print_stack(const rp_session *s, uint32_t stack_id, void *f)
{
	const sbt_frame *frames = NULL;
	uint32_t n = 0, i;
	if (!s || stack_id == 0 || sbt_reader_stack(s->lookup, stack_id, &frames, &n) != SBT_OK)
		return;
	for (i = 0; i < n; i++) {
		const char *sym = frames[i].symbol_id ? sbt_reader_string(s->lookup, frames[i].symbol_id)
		                                      : NULL;
		fprintf((FILE *)f, "    #%-2u 0x%016llx %s\n", i, (unsigned long long)frames[i].ip,
		        sym ? sym : "??");
	}
}

static uint64_t rp_session_run_hash(const rp_track *tr, unsigned run, size_t i, int *ok)
{
	*ok = run == 1 || tr->hashes[run - 1] != NULL;
	if (!*ok)
		return 0;
	return run == 1 ? tr->ref[i].hash : tr->hashes[run - 1][i];
}

void rp_session_run_groups(const rp_session *s, const rp_mismatch *m, char *buf, size_t len)
{
	unsigned run, other, count;
	const rp_track *tr;
	size_t used = 0, i = m->index;
	char *done;
	int ok;

	if (len)
		buf[0] = '\0';
	if (!s)
		return;
	tr = m->per_command ? &s->cmds : &s->cps;
	if (!tr->hashes || i >= tr->n)
		return;
	done = calloc(s->opt.runs + 1, 1);
	if (!done)
		return;
	for (run = 1; run <= s->opt.runs; run++) {
		uint64_t h = rp_session_run_hash(tr, run, i, &ok);
		if (done[run] || !ok)
			continue;
		count = 0;
		for (other = run; other <= s->opt.runs; other++)
			if (rp_session_run_hash(tr, other, i, &ok) == h && ok)
				count++;
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s ", used ? "; " : "",
			                         count > 1 ? "runs" : "run");
		count = 0;
		for (other = run; other <= s->opt.runs; other++) {
			if (rp_session_run_hash(tr, other, i, &ok) != h || !ok)
				continue;
			done[other] = 1;
			if (used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s%u", count++ ? "," : "", other);
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, ": 0x%016llx", (unsigned long long)h);
	}
	free(done);
}

static void rp_track_free(rp_track *tr, unsigned runs)
{
	size_t i;
	for (i = 0; i < tr->n; i++)
		sbt_checkpoint_free(&tr->ref[i]);
	free(tr->ref);
	if (tr->hashes)
		for (i = 0; i < runs; i++)
			free(tr->hashes[i]);
	free(tr->hashes);
}

void rp_session_close(rp_session *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->nactive; i++)
		if (s->active[i].state)
			s->active[i].ops->close(s->active[i].state);
	rp_track_free(&s->cps, s->opt.runs);
	rp_track_free(&s->cmds, s->opt.runs);
	free(s->run_modes);
	rp_session_drop_held(s);
	free(s->order_index);
	free(s->orders);
	free(s->cmd_sorted);
	if (s->order_ctx)
		s->opt.orders->close(s->order_ctx);
	free(s->routes);
	free(s->route_tab);
	free(s->pending);
	rp_profile_free(s->profile);
	sbt_reader_close(s->lookup);
	sbt_reader_close(s->reader);
	free(s);
}
