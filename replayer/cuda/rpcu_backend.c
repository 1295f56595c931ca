/*
 * rpcu_backend.c - the CUDA backend's entry points (open, execute,
 * checkpoint, keyframe, reset, close), its options, the record dispatch,
 * and what every part shares: messages, captured threads and their
 * contexts, stream resolution.
 *
 * A record whose call failed at capture (result != CUDA_SUCCESS) changed
 * nothing there, so it is not re-issued; what it returned is remembered
 * and records naming that are skipped too.  A context named without a
 * recorded creation is taken to be a primary context and retained.  With
 * the libcuda test double, launches that ran nothing are reported and the
 * checkpoints after them answered as not compared.  Keyframe restore
 * first rebuilds the objects (contexts, modules, functions, streams,
 * events, allocations, graphs) from the records before the keyframe
 * without running any work, then the keyframe's tsSnapshot records fill
 * the allocations.
 */
#include "replayer/cuda/rpcu_backend.h"
#include "replayer/cuda/rpcu_internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rp_option_desc rpcu_options[] = {
	{"--streams", "MODE[,...]", "CUDA: single (capture order) or multi (as captured); a list alternates runs"},
	{"--cuda-no-reserve", NULL, "CUDA: allocate anywhere, not at the captured addresses"},
	{"--cuda-relocate-memory", NULL, "CUDA: also rewrite pointers in uploaded data (heuristic)"},
	{"--wait-timeout", "SECONDS", "CUDA: the longest one record may wait for the device (default 60)"},
	{NULL, NULL, NULL}};

/* ---- messages -------------------------------------------------------------------- */

void rpcu_printable(char *text)
{
	for (; *text; text++)
		if ((unsigned char)*text < 0x20 || *text == 0x7f)
			*text = '?';
}

rp_status rpcu_fail(rpcu_state *s, rp_diag *diag, rp_status st, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rpcu_printable(msg); /* names in it come from the trace */
	if (s->call)
		rp_diag_set(diag, "record seq %llu (%s): %s", (unsigned long long)s->seq, s->call, msg);
	else
		rp_diag_set(diag, "%s", msg);
	return st;
}

rp_status rpcu_cufail(rpcu_state *s, rp_diag *diag, const char *fn, CUresult r, const char *what)
{
	char err[96];
	return rpcu_fail(s, diag, RP_ERR_BACKEND, "%s failed with %s%s%s", fn,
	                 rpcu_cu_name(&s->drv, r, err, sizeof(err)), what && *what ? " " : "",
	                 what ? what : "");
}

rp_status rpcu_missing(rpcu_state *s, rp_diag *diag, const char *fn)
{
	return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED, "the CUDA driver %s has no %s, which this record needs",
	                 s->drv.path, fn);
}

rp_status rpcu_need(rpcu_state *s, const void *fn, const char *name, rp_diag *diag)
{
	return fn ? RP_OK : rpcu_missing(s, diag, name);
}

void rpcu_warn(rpcu_state *s, const char *fmt, ...)
{
	va_list ap;
	char msg[600];
	if (s->quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rpcu_printable(msg);
	fprintf(stderr, "tsreplay: cuda: warning: %s\n", msg);
}

/* ---- captured threads, contexts, streams -------------------------------------------- */

rpcu_thread *rpcu_thread_get(rpcu_state *s, uint64_t tid)
{
	size_t i;
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	if (s->nthreads == s->cap_threads) {
		size_t ncap = s->cap_threads ? s->cap_threads * 2 : 8;
		rpcu_thread *nt = realloc(s->threads, ncap * sizeof(*nt));
		if (!nt)
			return NULL;
		s->threads = nt;
		s->cap_threads = ncap;
	}
	memset(&s->threads[s->nthreads], 0, sizeof(s->threads[0]));
	s->threads[s->nthreads].tid = tid;
	return &s->threads[s->nthreads++];
}

/* A context the trace names without a recorded creation: the runtime
 * retained its device's primary context through a private interface, so
 * the replay retains the primary context of the trace's first cuDeviceGet
 * device (device 0 when there is none). */
static rpcu_obj *rpcu_ctx_infer(rpcu_state *s, uint64_t cap, rp_diag *diag, rp_status *st)
{
	int dev = s->first_device >= 0 ? s->first_device : 0;
	int ord = s->device_base + dev;
	CUdevice live;
	CUcontext ctx;
	CUresult r;
	rpcu_obj *o;

	if (ord >= s->device_count) {
		*st = rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "context 0x%llx was never created in the trace, and "
		                "its device %d (taken as its primary context's) is not among the %d here",
		                (unsigned long long)cap, dev, s->device_count);
		return NULL;
	}
	if (!s->drv.p_cuDevicePrimaryCtxRetain) {
		*st = rpcu_missing(s, diag, "cuDevicePrimaryCtxRetain");
		return NULL;
	}
	if ((r = s->drv.p_cuDeviceGet(&live, ord)) != CUDA_SUCCESS ||
	    (r = s->drv.p_cuDevicePrimaryCtxRetain(&ctx, live)) != CUDA_SUCCESS) {
		*st = rpcu_cufail(s, diag, "cuDevicePrimaryCtxRetain", r,
		                  "retaining the primary context a context of the trace is taken to be");
		return NULL;
	}
	o = rpcu_objs_put(&s->objs, RPCU_O_CTX, cap);
	if (!o) {
		if (s->drv.p_cuDevicePrimaryCtxRelease)
			s->drv.p_cuDevicePrimaryCtxRelease(live);
		*st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		return NULL;
	}
	o->live = (uint64_t)(uintptr_t)ctx;
	o->ctx = ctx;
	o->primary = 1;
	o->ordinal = ord;
	o->retains = 1;
	*st = RP_OK;
	return o;
}

rp_status rpcu_ctx_use(rpcu_state *s, uint64_t cap, rp_diag *diag)
{
	rpcu_obj *o;
	CUresult r;
	rp_status st;
	if (cap == s->cur_ctx_cap && s->cur_ctx)
		return RP_OK;
	o = rpcu_objs_get(&s->objs, RPCU_O_CTX, cap);
	if (!o && !(o = rpcu_ctx_infer(s, cap, diag, &st)))
		return st;
	r = s->drv.p_cuCtxSetCurrent((CUcontext)(uintptr_t)o->live);
	if (r != CUDA_SUCCESS)
		return rpcu_cufail(s, diag, "cuCtxSetCurrent", r, "making the thread's context current");
	s->cur_ctx_cap = cap;
	s->cur_ctx = (CUcontext)(uintptr_t)o->live;
	rpcu_windows_open(s, o->ordinal);
	return RP_OK;
}

/* ---- objects that went ------------------------------------------------------------------ */

void rpcu_gone_note(rpcu_state *s, rpcu_kind kind, uint64_t cap)
{
	if (s->ngone == s->cap_gone) {
		size_t ncap = s->cap_gone ? s->cap_gone * 2 : 16;
		rpcu_gone *n = realloc(s->gone, ncap * sizeof(*n));
		if (!n)
			return; /* only the "destroyed at" detail of a later message is lost */
		s->gone = n;
		s->cap_gone = ncap;
	}
	s->gone[s->ngone].cap = cap;
	s->gone[s->ngone].seq = s->seq;
	s->gone[s->ngone].kind = (uint8_t)kind;
	s->ngone++;
}

uint64_t rpcu_gone_seq(const rpcu_state *s, rpcu_kind kind, uint64_t cap)
{
	size_t i;
	/* The latest: a handle the driver reused may have gone twice. */
	for (i = s->ngone; i-- > 0;)
		if (s->gone[i].kind == kind && s->gone[i].cap == cap)
			return s->gone[i].seq;
	return 0;
}

rp_status rpcu_unknown(rpcu_state *s, rp_diag *diag, rpcu_kind kind, uint64_t cap, const char *what)
{
	uint64_t seq = rpcu_gone_seq(s, kind, cap);
	if (seq)
		return rpcu_fail(s, diag, RP_ERR_TRACE, "%s 0x%llx was destroyed at seq %llu (or went with its "
		                 "module, library or context there), and this record still uses it",
		                 what, (unsigned long long)cap, (unsigned long long)seq);
	return rpcu_fail(s, diag, RP_ERR_NOT_FOUND, "%s 0x%llx was never created in the trace", what,
	                 (unsigned long long)cap);
}

void rpcu_wait_work(rpcu_state *s, CUcontext ctx)
{
	/* Nothing issued since the device was last seen idle: nothing can
	 * use what goes (a trace freeing 100,000 allocations in a row must
	 * not synchronise 100,000 times). */
	if (!s->work_pending)
		return;
	if (!ctx)
		ctx = s->cur_ctx;
	if (ctx && ctx != s->cur_ctx && s->drv.p_cuCtxSetCurrent(ctx) == CUDA_SUCCESS) {
		s->drv.p_cuCtxSynchronize();
		s->drv.p_cuCtxSetCurrent(s->cur_ctx);
	} else {
		s->drv.p_cuCtxSynchronize();
	}
	if (!s->work_multi && ctx == s->work_ctx)
		s->work_pending = 0;
}

/* ---- calls that failed at capture ------------------------------------------------------- */

/* cap names a live object of any kind. */
static int rpcu_objs_has_live(rpcu_state *s, uint64_t cap)
{
	int k;
	for (k = RPCU_O_DEVICE; k <= RPCU_O_GRAPHEXEC; k++)
		if (rpcu_objs_get(&s->objs, (rpcu_kind)k, cap))
			return 1;
	return 0;
}

int rpcu_failed_has(const rpcu_state *s, uint64_t cap)
{
	return rp_cm_handle_set_has(&s->failed, cap);
}

void rpcu_failed_note(rpcu_state *s, uint64_t cap)
{
	if (!cap || rpcu_failed_has(s, cap) || rpcu_objs_has_live(s, cap) ||
	    rpcu_ranges_find(&s->ranges, cap) >= 0)
		return;
	rp_cm_handle_set_add(&s->failed, cap);
}

static void rpcu_failed_forget(rpcu_state *s, uint64_t cap)
{
	rp_cm_handle_set_remove(&s->failed, cap);
}

/* What a call that failed at capture "returned": its out handle or address
 * (whatever the program's variable held).  Nothing was made there.  With
 * made = 1, the call succeeded: what it returned is real, even if a failed
 * call once held the same value. */
static void rpcu_failed_outputs(rpcu_state *s, sbt_cm_kind k, const sbt_cm_call *c, int made)
{
	void (*note)(rpcu_state *, uint64_t) = made ? rpcu_failed_forget : rpcu_failed_note;
	if (made && !s->failed.n)
		return;
	switch (k) {
	case SBT_CM_K_cuCtxCreate: case SBT_CM_K_cuDevicePrimaryCtxRetain:
		note(s, c->ctx);
		break;
	case SBT_CM_K_cuEventCreate:
		note(s, c->event);
		break;
	case SBT_CM_K_cuMemAlloc: case SBT_CM_K_cuMemAllocPitch: case SBT_CM_K_cuMemAllocAsync:
	case SBT_CM_K_cuMemAllocFromPoolAsync: case SBT_CM_K_cuMemAllocManaged:
	case SBT_CM_K_cuMemAddressReserve:
		note(s, c->dst);
		break;
	case SBT_CM_K_cuMemAllocHost: case SBT_CM_K_cuMemHostAlloc:
		note(s, c->host);
		break;
	case SBT_CM_K_cuModuleLoad: case SBT_CM_K_cuModuleLoadData: case SBT_CM_K_cuModuleLoadDataEx:
	case SBT_CM_K_cuModuleLoadFatBinary: case SBT_CM_K_cuLibraryLoadData:
	case SBT_CM_K_cuLibraryLoadFromFile: case SBT_CM_K_cuModuleGetFunction:
	case SBT_CM_K_cuLibraryGetKernel: case SBT_CM_K_cuLibraryGetModule:
	case SBT_CM_K_cuKernelGetFunction: case SBT_CM_K_cuStreamCreate:
	case SBT_CM_K_cuStreamCreateWithPriority: case SBT_CM_K_cuStreamEndCapture:
	case SBT_CM_K_cuGraphInstantiate: case SBT_CM_K_cuMemCreate: case SBT_CM_K_cuGraphCreate:
		note(s, c->handle);
		break;
	default:
		break;
	}
}

/* A record that names something only a failed call returned would fail
 * the same way: it is skipped like the failed call. */
static int rpcu_names_failed(const rpcu_state *s, const sbt_cm_call *c)
{
	if (!s->failed.n)
		return 0;
	return rpcu_failed_has(s, c->handle) || rpcu_failed_has(s, c->parent) ||
	       rpcu_failed_has(s, c->stream) || rpcu_failed_has(s, c->event) || rpcu_failed_has(s, c->ctx) ||
	       (rpcu_failed_has(s, c->dst) && rpcu_ranges_find(&s->ranges, c->dst) < 0) ||
	       (rpcu_failed_has(s, c->src) && rpcu_ranges_find(&s->ranges, c->src) < 0) ||
	       (rpcu_failed_has(s, c->host) && rpcu_ranges_find(&s->ranges, c->host) < 0);
}

/* ---- the test double's not-run report ----------------------------------------------------- */

void rpcu_not_run_check(rpcu_state *s, const char *kernel)
{
	unsigned long long n;
	const char *name = kernel ? kernel : s->last_kernel;
	uint64_t seq = kernel ? s->seq : s->last_launch_seq;
	size_t i;
	char **nn;
	if (!s->drv.not_run)
		return; /* a real driver: nothing to ask, nothing to remember */
	if (kernel) {
		s->last_launch_seq = s->seq;
		snprintf(s->last_kernel, sizeof(s->last_kernel), "%s", *kernel ? kernel : "(unnamed)");
	}
	n = s->drv.not_run();
	if (n <= s->not_run_seen || !seq)
		return;
	s->not_run_seen = n;
	if (!*name)
		name = "(unnamed)";
	if (!s->not_run_seq)
		s->not_run_seq = seq;
	for (i = 0; i < s->n_not_run_names; i++)
		if (strcmp(s->not_run_names[i], name) == 0)
			return;
	nn = realloc(s->not_run_names, (s->n_not_run_names + 1) * sizeof(*nn));
	if (nn) {
		s->not_run_names = nn;
		if ((nn[s->n_not_run_names] = strdup(name)) != NULL)
			s->n_not_run_names++;
	}
	if (!s->quiet)
		fprintf(stderr, "tsreplay: cuda: note: seq %llu: the launch of kernel '%s' ran nothing on this "
		        "driver (%s is the libcuda test double, which has no host twin for it); device-to-host "
		        "checkpoints from here on are not compared\n", (unsigned long long)seq, name,
		        s->drv.path);
}

int rpcu_current_ordinal(rpcu_state *s)
{
	rpcu_obj *o = s->cur_ctx_cap ? rpcu_objs_get(&s->objs, RPCU_O_CTX, s->cur_ctx_cap) : NULL;
	return o ? o->ordinal : s->device_base;
}

rp_status rpcu_stream_resolve(rpcu_state *s, uint64_t cap, CUstream *out, int *capturing_out,
                              rp_diag *diag)
{
	int capturing = 0;
	CUstream live = NULL;
	if ((cap == 0 && s->ptds) || cap == (uint64_t)(uintptr_t)CU_STREAM_PER_THREAD) {
		/* The per-thread default stream of the capturing thread: a blocking
		 * stream of our own (it synchronizes with the legacy stream, as a
		 * per-thread default stream does), one per thread and context. */
		rpcu_thread *t = rpcu_thread_get(s, s->tid);
		unsigned i, slot = 4;
		if (!t)
			return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
		for (i = 0; i < 4; i++)
			if (t->pt_stream[i] && t->pt_ctx[i] == s->cur_ctx_cap)
				slot = i;
		if (slot == 4 && !s->single_stream) {
			CUresult r;
			for (i = 0; i < 4 && slot == 4; i++)
				if (!t->pt_stream[i])
					slot = i;
			if (slot == 4)
				return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED,
				                 "thread %llu used per-thread default streams in more than 4 contexts",
				                 (unsigned long long)s->tid);
			if (!s->drv.p_cuStreamCreate)
				return rpcu_missing(s, diag, "cuStreamCreate");
			r = s->drv.p_cuStreamCreate(&t->pt_stream[slot], CU_STREAM_DEFAULT);
			if (r != CUDA_SUCCESS)
				return rpcu_cufail(s, diag, "cuStreamCreate", r, "for the per-thread default stream");
			t->pt_ctx[slot] = s->cur_ctx_cap;
		}
		if (slot < 4) {
			live = t->pt_stream[slot];
			capturing = t->pt_capturing[slot];
		}
	} else if (cap != 0 && cap != (uint64_t)(uintptr_t)CU_STREAM_LEGACY) {
		rpcu_obj *o = rpcu_objs_get(&s->objs, RPCU_O_STREAM, cap);
		if (!o)
			return rpcu_unknown(s, diag, RPCU_O_STREAM, cap, "stream");
		live = (CUstream)(uintptr_t)o->live;
		capturing = o->capturing;
	}
	*out = s->single_stream ? NULL : live;
	if (capturing_out)
		*capturing_out = capturing;
	return RP_OK;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static int rpcu_kind_of(const rpcu_state *s, uint32_t type, sbt_cm_kind *out)
{
	int16_t k;
	if (type < s->type_lo || type - s->type_lo >= s->ntypes)
		return 0;
	k = s->kind_of[type - s->type_lo];
	if (k < 0)
		return 0;
	*out = (sbt_cm_kind)k;
	return 1;
}

/* --per-command: a record that ran (it did not fail at capture) and is a
 * command queues its footprint's copies. */
static rp_status rpcu_percmd_record(rpcu_state *s, const sbt_record *rec, rp_diag *diag)
{
	sbt_cm_kind k;
	sbt_cm_call c;
	if (!rpcu_kind_of(s, rec->type, &k) || sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK ||
	    c.result != CUDA_SUCCESS || rpcu_names_failed(s, &c))
		return RP_OK;
	s->seq = rec->seq;
	s->ptds = c.ptds != 0;
	return rpcu_percmd_after(s, rec->seq, sbt_cm_kind_name(k), &c, diag);
}

/* One record: decode, skip what failed at capture, make the capturing
 * thread's context current, dispatch. */
static rp_status rpcu_run_record(rpcu_state *s, const sbt_record *rec, rp_diag *diag)
{
	sbt_cm_kind k;
	sbt_cm_call c;
	rpcu_thread *t;
	rp_status st;

	s->seq = rec->seq;
	s->tid = rec->thread;
	s->call = NULL;
	if (!rpcu_kind_of(s, rec->type, &k)) {
		const char *name = sbt_reader_type_name(s->trace, rec->type);
		s->call = name && *name ? name : "unnamed type";
		return rpcu_fail(s, diag, RP_ERR_UNSUPPORTED,
		                 "type %u is not a call of the CUDA record model, so this backend cannot "
		                 "replay it", rec->type);
	}
	s->call = sbt_cm_type_name(k);
	rpcu_bound_arm(s, s->seq, s->call, NULL);
	if (sbt_cm_decode(rec->payload, rec->payload_len, &c) != SBT_OK)
		return rpcu_fail(s, diag, RP_ERR_DECODE, "the payload (%zu bytes) could not be decoded",
		                 rec->payload_len);
	s->ptds = c.ptds != 0;
	if (k != SBT_CM_K_tsSnapshot && c.result != CUDA_SUCCESS) {
		/* It failed at capture and changed nothing there: it is expected to
		 * fail the same way, so it is not re-issued, and what it "returned"
		 * is remembered so that records naming it are skipped too. */
		rpcu_failed_outputs(s, k, &c, 0);
		if (k == SBT_CM_K_cuStreamEndCapture)
			rpcu_capture_abandon(s, &c);
		return RP_OK;
	}
	rpcu_failed_outputs(s, k, &c, 1);
	if (rpcu_names_failed(s, &c)) {
		rpcu_failed_outputs(s, k, &c, 0); /* what it returned is as unusable */
		return RP_OK;
	}
	/* Restoring a keyframe: objects only, but work recorded into a graph
	 * by stream capture is part of the graph, an object, and a window
	 * snapshot's graph launches (and the synchronization after them)
	 * allocate the graph memory its keyframe then fills: replay has no
	 * other way to allocate it. */
	if (s->state_only && !rpcu_exec_is_state(k) && !(c.capture_status && s->capturing) &&
	    !(s->seq < s->window_snapshot_end && (k == SBT_CM_K_cuGraphLaunch || k == SBT_CM_K_cuCtxSynchronize))) {
		if (k == SBT_CM_K_cuGraphLaunch) /* it may have left graph memory allocated */
			rpcu_graph_launch_passed(s, &c);
		return RP_OK;
	}
	t = rpcu_thread_get(s, rec->thread);
	if (!t)
		return rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
	if (t->depth) {
		st = rpcu_ctx_use(s, t->stack[t->depth - 1], diag);
		if (st != RP_OK)
			return st;
	}
	return rpcu_exec(s, k, &c, diag);
}

/* ---- teardown ----------------------------------------------------------------------- */

void rpcu_teardown(rpcu_state *s)
{
	const rpcu_driver *d = &s->drv;
	size_t i, k;

	/* Wait for everything in flight, in every context the trace made. */
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_CTX && !o->dead && d->p_cuCtxSetCurrent((CUcontext)(uintptr_t)o->live) ==
		                                             CUDA_SUCCESS)
			d->p_cuCtxSynchronize();
	}
	rpcu_memop_release(s);
	s->memop_noted = 0;
	rpcu_stages_poll(s, 1);
	rpcu_percmd_free(s);
	rpcu_profile_release(s);
	while (s->ncopies)
		rpcu_copy_drop(s, s->ncopies - 1);
	for (i = s->ranges.n; i-- > 0;) {
		if (s->ranges.v[i].ctx)
			d->p_cuCtxSetCurrent(s->ranges.v[i].ctx);
		rpcu_range_release(s, i, 1);
	}
	for (i = 0; i < s->nvmaps; i++)
		d->p_cuMemUnmap((CUdeviceptr)s->vmaps[i].live, s->vmaps[i].size);
	s->nvmaps = 0;
	while (s->npieces)
		rpcu_piece_free(s, s->npieces - 1);
	rpcu_windows_close(s);
	for (i = 0; i < s->nthreads; i++)
		for (k = 0; k < 4; k++)
			if (s->threads[i].pt_stream[k] && d->p_cuStreamDestroy)
				d->p_cuStreamDestroy(s->threads[i].pt_stream[k]);
	/* Graphs: executables before the graphs they came from. */
	for (k = 0; k < 2; k++)
		for (i = 0; i < s->objs.cap; i++) {
			rpcu_obj *o = &s->objs.slot[i];
			if (o->dead || o->kind != (k ? RPCU_O_GRAPH : RPCU_O_GRAPHEXEC))
				continue;
			if (o->ctx)
				d->p_cuCtxSetCurrent(o->ctx);
			if (k && o->live && d->p_cuGraphDestroy && !o->embedded) /* embedded: its node's */
				d->p_cuGraphDestroy((CUgraph)(uintptr_t)o->live);
			else if (!k && o->live && d->p_cuGraphExecDestroy)
				d->p_cuGraphExecDestroy((CUgraphExec)(uintptr_t)o->live);
			rpcu_objs_del(&s->objs, o);
		}
	for (i = 0; i < s->ngraph_bufs; i++)
		free(s->graph_bufs[i]);
	free(s->graph_bufs);
	s->graph_bufs = NULL;
	free(s->graphs_refused);
	s->graphs_refused = NULL;
	s->ngraph_bufs = s->cap_graph_bufs = 0;
	rpcu_arrays_release(s);
	/* Objects, contexts last; each made current in its own context. */
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_NONE || o->dead || o->kind == RPCU_O_CTX)
			continue;
		if (o->ctx)
			d->p_cuCtxSetCurrent(o->ctx);
		if (o->kind == RPCU_O_EVENT && d->p_cuEventDestroy)
			d->p_cuEventDestroy((CUevent)(uintptr_t)o->live);
		else if (o->kind == RPCU_O_STREAM && o->live && d->p_cuStreamDestroy)
			d->p_cuStreamDestroy((CUstream)(uintptr_t)o->live);
		else if (o->kind == RPCU_O_MEMHANDLE && d->p_cuMemRelease)
			d->p_cuMemRelease((CUmemGenericAllocationHandle)o->live);
		else if (o->kind == RPCU_O_MODULE && !o->parent && d->p_cuModuleUnload)
			d->p_cuModuleUnload((CUmodule)(uintptr_t)o->live);
	}
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind == RPCU_O_LIBRARY && !o->dead && d->p_cuLibraryUnload)
			d->p_cuLibraryUnload((CUlibrary)(uintptr_t)o->live);
	}
	d->p_cuCtxSetCurrent(NULL);
	for (i = 0; i < s->objs.cap; i++) {
		rpcu_obj *o = &s->objs.slot[i];
		if (o->kind != RPCU_O_CTX || o->dead)
			continue;
		if (!o->primary && d->p_cuCtxDestroy) {
			d->p_cuCtxDestroy((CUcontext)(uintptr_t)o->live);
		} else if (o->primary && d->p_cuDevicePrimaryCtxRelease) {
			CUdevice dev;
			if (d->p_cuDeviceGet(&dev, o->ordinal) == CUDA_SUCCESS)
				while (o->retains--)
					d->p_cuDevicePrimaryCtxRelease(dev);
		}
	}
	d->p_cuCtxSetCurrent(NULL);
	rpcu_objs_free(&s->objs);
	s->ntexobjs = 0;
	rpcu_ranges_free(&s->ranges);
	free(s->pieces);
	free(s->copies);
	free(s->stages);
	free(s->threads);
	free(s->vmaps);
	free(s->readonly);
	free(s->scratch);
	s->pieces = NULL;
	s->copies = NULL;
	s->stages = NULL;
	s->threads = NULL;
	s->vmaps = NULL;
	s->readonly = NULL;
	s->nreadonly = s->cap_readonly = 0;
	s->nfreed = 0;
	s->scratch = NULL;
	s->npieces = s->cap_pieces = s->ncopies = s->cap_copies = 0;
	s->nstages = s->stage_head = s->cap_stages = s->nthreads = s->cap_threads = 0;
	s->cap_vmaps = 0;
	s->copy_bytes = s->stage_bytes = 0;
	s->cur_ctx_cap = 0;
	s->cur_ctx = NULL;
	s->granularity = 0;
	s->restore_seq = 0;
	s->snap_left = 0;
	s->kf_left = 0;
	s->state_only = 0;
	free(s->gone);
	s->gone = NULL;
	s->ngone = s->cap_gone = 0;
	s->work_pending = s->work_multi = 0;
	s->work_ctx = NULL;
	rp_cm_handle_set_free(&s->failed);
	s->capturing = 0;
	s->not_run_seq = 0;
}

/* ---- backend entry points ------------------------------------------------------------- */

static rp_status rpcu_build_types(rpcu_state *s, rp_diag *diag)
{
	uint32_t type, lo = UINT32_MAX, hi = 0;
	const char *name;
	size_t i;
	sbt_cm_kind k;

	for (i = 0; sbt_reader_type_at(s->trace, i, &type, &name) == SBT_OK; i++) {
		if (strncmp(name, SBT_CM_API_CUDA ".", sizeof(SBT_CM_API_CUDA)) != 0 ||
		    sbt_cm_kind_by_name(name, &k) != 0)
			continue;
		if (type < lo)
			lo = type;
		if (type > hi)
			hi = type;
	}
	if (lo > hi) {
		s->type_lo = 0;
		s->ntypes = 0;
		return RP_OK;
	}
	s->type_lo = lo;
	s->ntypes = (size_t)(hi - lo) + 1;
	s->kind_of = malloc(s->ntypes * sizeof(*s->kind_of));
	if (!s->kind_of) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	for (i = 0; i < s->ntypes; i++)
		s->kind_of[i] = -1;
	for (i = 0; sbt_reader_type_at(s->trace, i, &type, &name) == SBT_OK; i++)
		if (strncmp(name, SBT_CM_API_CUDA ".", sizeof(SBT_CM_API_CUDA)) == 0 &&
		    sbt_cm_kind_by_name(name, &k) == 0)
			s->kind_of[type - lo] = (int16_t)k;
	return RP_OK;
}

/* The --streams entry of the run now starting. */
static void rpcu_pick_stream_mode(rpcu_state *s)
{
	if (s->streams.n)
		s->single_stream = rp_cm_streams_single(&s->streams, s->run);
}

/* rp_backend_ops.check_option: every value the parsers above refuse. */
static rp_status rpcu_check_option(const rp_option_value *o, rp_diag *diag)
{
	int ignored;
	rp_cm_streams streams;
	uint64_t ns;
	if (strcmp(o->name, "--streams") == 0)
		return rp_cm_streams_parse(o->value, &streams, diag);
	if (strcmp(o->name, "--device") == 0)
		return rp_cm_parse_ordinal(o->value ? o->value : "", "CUDA", &ignored, diag);
	if (strcmp(o->name, "--wait-timeout") == 0 && rpcu_bound_parse(o->value, &ns) != RP_OK) {
		rp_diag_set(diag, "--wait-timeout: expected seconds (> 0), got '%s'", o->value ? o->value : "");
		return RP_ERR_USAGE;
	}
	return RP_OK;
}

static rp_status rpcu_parse_options(rpcu_state *s, const rp_backend_open_args *args, rp_diag *diag)
{
	size_t i;
	rp_status st;
	for (i = 0; i < args->noptions; i++) {
		const rp_option_value *o = &args->options[i];
		if (strcmp(o->name, "--streams") == 0) {
			st = rp_cm_streams_parse(o->value, &s->streams, diag);
			if (st != RP_OK)
				return st;
			rpcu_pick_stream_mode(s);
		} else if (strcmp(o->name, "--cuda-no-reserve") == 0) {
			s->no_reserve = 1;
		} else if (strcmp(o->name, "--cuda-relocate-memory") == 0) {
			s->relocate_memory = 1;
		} else if (strcmp(o->name, "--wait-timeout") == 0 &&
		           rpcu_bound_parse(o->value, &s->wait_ns) != RP_OK) {
			rp_diag_set(diag, "--wait-timeout: expected seconds (> 0), got '%s'", o->value ? o->value : "");
			return RP_ERR_USAGE;
		}
	}
	if (args->device)
		return rp_cm_parse_ordinal(args->device, "CUDA", &s->device_base, diag);
	return RP_OK;
}

static rp_status rpcu_open(const rp_backend_open_args *args, void **state_out, rp_diag *diag)
{
	rpcu_state *s = calloc(1, sizeof(*s));
	rp_status st;

	if (!s) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	s->trace = args->trace;
	s->quiet = args->quiet;
	s->profile = args->profile;
	s->per_command = args->per_command;
	s->wait_ns = RPCU_WAIT_DEFAULT_NS;
	st = rpcu_parse_options(s, args, diag);
	if (st == RP_OK && args->serialise && s->streams.n) {
		rp_diag_set(diag, "--streams does not go with --schedule-seed: a sampled order runs every "
		            "command on one stream");
		st = RP_ERR_USAGE;
	}
	if (st != RP_OK)
		goto out_fail;
	if (args->serialise) {
		/* --schedule-seed: the core hands the commands over in the sampled
		 * order; --streams single runs them in that order, one at a time */
		s->streams.modes = 1;
		s->streams.n = 1;
		rpcu_pick_stream_mode(s);
	}
	st = rpcu_driver_open(&s->drv, &s->device_count, diag);
	if (st != RP_OK)
		goto out_fail;
	if (s->device_base >= s->device_count) {
		rp_diag_set(diag, "--device %d: the CUDA driver has %d device%s (ordinals from 0)",
		            s->device_base, s->device_count, s->device_count == 1 ? "" : "s");
		st = RP_ERR_USAGE;
		goto out_fail;
	}
	st = rpcu_build_types(s, diag);
	if (st != RP_OK)
		goto out_fail;
	st = rpcu_windows_scan(s, diag);
	if (st != RP_OK)
		goto out_fail;
	s->windows_pending = s->nwindows != 0;
	*(void **)&s->drv.not_run = dlsym(s->drv.dl, RPCU_NOT_RUN_SYMBOL);
	if (s->drv.not_run)
		s->not_run_seen = s->drv.not_run(); /* the process's count so far */
	/* a sampled order may hold a command past the keyframe after it */
	s->kf_check = !args->serialise && rp_cm_trace_has_full_keyframe(s->trace);
	st = rpcu_bound_init(s, s->wait_ns, diag);
	if (st != RP_OK)
		goto out_fail;
	*state_out = s;
	return RP_OK;
out_fail:
	free(s->windows);
	free(s->kind_of);
	free(s);
	return st;
}

static rp_status rpcu_execute(void *state, const sbt_record *rec, unsigned flags, rp_diag *diag)
{
	rpcu_state *s = state;
	/* fast-forwarded records build state exactly like the others; they
	 * are only not timed */
	s->fast_forward = (flags & RP_EXEC_FAST_FORWARD) != 0;
	rp_status st;
	rpcu_copies_release_served(s);
	rpcu_stages_poll(s, 0);
	st = rpcu_run_record(s, rec, diag);
	if (st == RP_OK && ((s->per_command && !s->fast_forward) || s->kf_check))
		st = rpcu_percmd_record(s, rec, diag);
	rpcu_bound_disarm(s);
	return st;
}

static rp_status rpcu_command_results(void *state, rp_command_result_fn fn, void *ctx, rp_diag *diag)
{
	rp_status st;
	rpcu_bound_arm(state, 0, NULL, "waiting for the per-command results");
	st = rpcu_percmd_results(state, fn, ctx, diag);
	rpcu_bound_disarm(state);
	return st;
}

static rp_status rpcu_checkpoint(void *state, const sbt_checkpoint *expected, const void **bytes_out,
                                 rp_diag *diag)
{
	rpcu_state *s = state;
	rp_status st;
	rpcu_copies_release_served(s);
	rpcu_bound_arm(s, expected->call_seq, "the checkpoint of its copy", NULL);
	st = rpcu_checkpoint_bytes(s, expected, bytes_out, diag);
	rpcu_bound_disarm(s);
	return st;
}

/* Restore: replay the object-making records before the marker (from the
 * random-access reader; the payload is copied because fetching a module
 * image moves that reader), then let the snapshot records that follow the
 * marker fill memory. */
/* A record before a restored keyframe: CUDA's object-making calls only. */
static rp_status rpcu_replay_state_only(void *ctx, sbt_record *rec, rp_diag *diag)
{
	rpcu_state *s = ctx;
	sbt_cm_kind k;
	rp_status st;
	if (!rpcu_kind_of(s, rec->type, &k) || k == SBT_CM_K_tsSnapshot)
		return RP_OK;
	s->state_only = 1;
	st = rpcu_run_record(s, rec, diag);
	s->state_only = 0;
	return st;
}

/* Restoring the keyframe at kf_seq (count snapshot records after it):
 * its stream-ordered memory that is graph memory is allocated again first
 * (rpcu_graph_gmem_restore).  Read from the random-access reader, which
 * the restore already moved. */
static rp_status rpcu_keyframe_gmem(rpcu_state *s, uint64_t kf_seq, uint64_t count, rp_diag *diag)
{
	uint64_t *addrs = NULL;
	size_t n = 0, cap = 0;
	sbt_record rec;
	sbt_status sst = sbt_reader_seek_seq(s->trace, kf_seq + 1);
	rp_status st = RP_OK;
	while (count && sst == SBT_OK && (sst = sbt_reader_next(s->trace, &rec)) == SBT_OK) {
		sbt_cm_kind k;
		sbt_cm_call c;
		if (!rpcu_kind_of(s, rec.type, &k) || k != SBT_CM_K_tsSnapshot)
			break;
		count--;
		if (sbt_cm_decode(rec.payload, rec.payload_len, &c) != SBT_OK || c.sub != SBT_CM_MEM_ASYNC)
			continue;
		if (n == cap) {
			uint64_t *grown = realloc(addrs, (cap = cap ? cap * 2 : 8) * sizeof(*grown));
			if (!grown) {
				st = rpcu_fail(s, diag, RP_ERR_NOMEM, "out of memory");
				goto out_free;
			}
			addrs = grown;
		}
		addrs[n++] = c.dst;
	}
	if (n)
		st = rpcu_graph_gmem_restore(s, kf_seq, addrs, n, diag);
out_free:
	free(addrs);
	return st;
}

static rp_status rpcu_keyframe(void *state, const sbt_record *marker, int restore, rp_diag *diag)
{
	rpcu_state *s = state;
	sbt_cm_call kf;
	rp_status st = RP_OK;

	rpcu_copies_release_served(s);
	/* The runtime's own marker of a periodic snapshot (cap.h), not a CUDA
	 * keyframe: CUDA writes nothing in it. */
	if (marker->payload_len >= 8 && memcmp(marker->payload, "snapshot", 8) == 0)
		return RP_OK;
	if (sbt_cm_decode(marker->payload, marker->payload_len, &kf) != SBT_OK) {
		rp_diag_set(diag, "keyframe seq %llu: its payload could not be decoded",
		            (unsigned long long)marker->seq);
		return RP_ERR_DECODE;
	}
	/* The recorder's word on a keyframe it took without waiting for the
	 * work in flight (a window opened, or a launch's keyframe taken, while
	 * a stream memory wait held a stream: docs/cuda.md): what the replay
	 * may then lack.  Said once. */
	if (kf.note_len && !s->kf_note_said) {
		s->kf_note_said = 1;
		rpcu_warn(s, "keyframe at seq %llu: %.*s (said once)", (unsigned long long)marker->seq,
		          (int)kf.note_len, (const char *)kf.note);
	}
	if (!restore) {
		/* A full keyframe's snapshot must change nothing mid-replay (it
		 * would hide a divergence) but managed memory (the CPU writes it
		 * with no recorded call: rpcu_snapshot.c); a partial one holds only memory the
		 * replay cannot rebuild (made before recording began, managed
		 * memory the CPU wrote), so it is applied where it stands; so is
		 * the keyframe of a capture window's state snapshot, which holds
		 * the memory of everything made before the window (nothing in the
		 * trace rebuilds it). */
		if ((kf.flags & SBT_CM_KF_PARTIAL) || marker->seq < s->window_snapshot_end)
			s->snap_left = kf.count;
		else
			rpcu_snapshot_compare_begin(s, marker->seq, kf.count, s->kf_check);
		return RP_OK;
	}
	st = rp_cm_replay_before(s->trace, marker->seq, rpcu_replay_state_only, s, diag);
	/* (a window's snapshot keyframe: its own graph launches, replayed
	 * above, allocated that memory) */
	if (st != RP_OK || (marker->seq >= s->window_snapshot_end &&
	                    (st = rpcu_keyframe_gmem(s, marker->seq, kf.count, diag)) != RP_OK))
		goto out;
	if (!(kf.flags & SBT_CM_KF_ARRAYS) && (st = rpcu_arrays_check_start(s, marker->seq, diag)) != RP_OK)
		goto out;
	s->restore_seq = marker->seq;
	s->snap_left = kf.count;
out:
	rpcu_bound_disarm(s);
	return st;
}

/* rp_backend_ops.keyframe_results: this run's, then cleared for the next. */
static rp_status rpcu_keyframe_results(void *state, rp_keyframe_report *out, rp_diag *diag)
{
	rpcu_state *s = state;
	(void)diag;
	*out = s->kf;
	memset(&s->kf, 0, sizeof(s->kf));
	return RP_OK;
}

static rp_status rpcu_reset(void *state, rp_diag *diag)
{
	rpcu_state *s = state;
	(void)diag;
	rpcu_bound_arm(s, 0, NULL, "the end of a run (waiting for its work)");
	rpcu_teardown(s);
	rpcu_bound_disarm(s);
	s->run++;
	rpcu_pick_stream_mode(s);
	return RP_OK;
}

/* rp_backend_ops.profile_finish, under the bound. */
static rp_status rpcu_profile_finish_bounded(void *state, rp_diag *diag)
{
	rp_status st;
	rpcu_bound_arm(state, 0, NULL, "waiting for the profile's timings");
	st = rpcu_profile_finish(state, diag);
	rpcu_bound_disarm(state);
	return st;
}

/* rp_backend_ops.run_mode: only when --streams names both modes. */
static const char *rpcu_run_mode(void *state)
{
	rpcu_state *s = state;
	return rp_cm_streams_run_mode(&s->streams, s->single_stream);
}

static void rpcu_close(void *state)
{
	rpcu_state *s = state;
	if (!s)
		return;
	rpcu_bound_arm(s, 0, NULL, "the end of the replay (waiting for its work)");
	rpcu_teardown(s);
	rpcu_bound_free(s);
	while (s->n_not_run_names)
		free(s->not_run_names[--s->n_not_run_names]);
	free(s->not_run_names);
	rp_cm_results_free(&s->percmd);
	free(s->windows);
	free(s->kind_of);
	free(s);
}

const rp_backend_ops rpcu_backend_ops = {
	.name = "cuda",
	.api = SBT_CM_API_CUDA,
	.open = rpcu_open,
	.execute = rpcu_execute,
	.checkpoint = rpcu_checkpoint,
	.keyframe = rpcu_keyframe,
	.keyframe_is_start = rp_cm_keyframe_is_start,
	.reset = rpcu_reset,
	.close = rpcu_close,
	.options = rpcu_options,
	.check_option = rpcu_check_option,
	.profile_finish = rpcu_profile_finish_bounded,
	.run_mode = rpcu_run_mode,
	.command_results = rpcu_command_results,
	.serialises = 1,
	.keyframe_results = rpcu_keyframe_results,
};
