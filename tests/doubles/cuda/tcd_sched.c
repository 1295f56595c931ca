/*
 * tcd_sched.c - streams, their worker threads, events, synchronisation,
 * stream capture and graphs.
 *
 * Each stream has a FIFO of ops and one worker thread that runs them in
 * order.  An op may carry dependencies (stream, sequence number): it does not
 * start before those ops have completed.  Dependencies come from
 * cuStreamWaitEvent and from the legacy default stream's implicit
 * synchronisation (work on the legacy stream waits for earlier work on every
 * blocking stream of its context, and work on a blocking stream waits for
 * earlier legacy work).  Nothing else orders two streams.
 *
 * Unseeded, workers run as soon as their head op is ready, concurrently, so
 * results of racing work depend on timing.  Seeded (TSCUDA_DOUBLE_SEED), no
 * worker runs unless it holds the grant; a host thread that must wait (a
 * synchronisation, a blocking copy, a query that finds work pending) hands
 * the grant to a stream drawn at random from those whose head op is ready,
 * one op at a time, until what it waits for is done.  Work is therefore
 * deferred to the host's next wait and then run in an order that is a
 * function of the seed: a program that forgets an event gets results that
 * change with the seed, a correct one gets the same results for every seed.
 */
#include "tests/doubles/cuda/tcd.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define TCD_PT_SLOTS 4

/* This thread's per-thread default streams, one per context it used. */
static __thread struct {
	struct tcd_ctx *ctx;
	struct tcd_stream *stream;
} tcd_tls_pt[TCD_PT_SLOTS];

static bool tcd_waitval_ready(const struct tcd_op *op);

/* Seeded, a memory wait is ready only once its condition holds: the grant
 * never goes to a stream that would poll while no other stream may run. */
static bool tcd_op_ready_locked(const struct tcd_op *op)
{
	for (unsigned i = 0; i < op->ndeps; i++)
		if (op->deps[i].stream->completed < op->deps[i].seq)
			return false;
	if (op->kind == TCD_OP_WAIT_VALUE && tcd_g.seeded)
		return tcd_waitval_ready(op);
	return true;
}

/*
 * The bytes a copy or memset moves, run under the fault guard.
 *
 * Device memory as the GPU has it: a word stored is seen whole by another
 * stream (or a kernel) polling it.  That is how a program orders two
 * streams through memory: a stream memory operation's write and wait
 * (cuStreamWriteValue32/64, cuStreamWaitValue32/64, cuStreamBatchMemOp,
 * batch memory-op nodes; a write is a one-word memset here), a kernel
 * spinning on a flag a cuMemsetD32Async sets (cuda_wait_app), and (without
 * CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER, which only the GPU's own
 * reordering could show) what the writing stream did before the write is
 * visible to what the waiting stream does after the wait.  Here the two
 * sides are different worker threads, so 16- and 32-bit memsets store each
 * word atomically with release order and a wait's reads are atomic loads
 * with acquire order: a plain store polled by a plain load would be a data
 * race (ThreadSanitizer reports it, and the bytes the program synchronises
 * through the word with it), and the release and acquire are what make
 * the writer's earlier work happen before the waiter's later work.  Two
 * unordered plain accesses (a copy and a kernel, say) are still a race.
 */
static void tcd_op_move(void *arg)
{
	struct tcd_op *op = arg;

	switch (op->kind) {
	case TCD_OP_COPY:
		for (size_t z = 0; z < (op->u.copy.depth ? op->u.copy.depth : 1); z++)
			for (size_t r = 0; r < op->u.copy.height; r++)
				memmove(op->u.copy.dst + z * op->u.copy.dslice + r * op->u.copy.dpitch,
					op->u.copy.src + z * op->u.copy.sslice + r * op->u.copy.spitch,
					op->u.copy.width);
		break;
	case TCD_OP_MEMSET: {
		unsigned char *d = op->u.memset.dst;
		uint32_t v = op->u.memset.value;

		/* 16- and 32-bit words stored whole, with release order (above;
		 * dst is aligned to elem, tcd_memset_op) */
		if (op->u.memset.elem == 1) {
			memset(d, (int)(v & 0xff), op->u.memset.count);
		} else if (op->u.memset.elem == 2) {
			uint16_t *h = (uint16_t *)(void *)d;
			for (size_t i = 0; i < op->u.memset.count; i++)
				__atomic_store_n(&h[i], (uint16_t)v, __ATOMIC_RELEASE);
		} else {
			uint32_t *w = (uint32_t *)(void *)d;
			for (size_t i = 0; i < op->u.memset.count; i++)
				__atomic_store_n(&w[i], v, __ATOMIC_RELEASE);
		}
		break;
	}
	default:
		break;
	}
}

/* A batch memory-op node's wait (op): whether its condition holds, the
 * word read under the fault guard. */
struct tcd_waitval_read {
	const struct tcd_op *op;
	uint64_t word;
};

static void tcd_waitval_load(void *arg)
{
	struct tcd_waitval_read *rd = arg;
	uint32_t w32;

	/* atomic, acquire: tcd_op_move says why */
	if (rd->op->u.waitval.wide) {
		rd->word = __atomic_load_n((const uint64_t *)rd->op->u.waitval.addr, __ATOMIC_ACQUIRE);
	} else {
		w32 = __atomic_load_n((const uint32_t *)rd->op->u.waitval.addr, __ATOMIC_ACQUIRE);
		rd->word = w32;
	}
}

static bool tcd_waitval_met(const struct tcd_op *op, uint64_t word)
{
	uint64_t v = op->u.waitval.value;

	if (!op->u.waitval.wide)
		v = (uint32_t)v;
	switch (op->u.waitval.flags & ~(unsigned)CU_STREAM_WAIT_VALUE_FLUSH) {
	case CU_STREAM_WAIT_VALUE_GEQ:
		return op->u.waitval.wide ? (int64_t)(word - v) >= 0 : (int32_t)(uint32_t)(word - v) >= 0;
	case CU_STREAM_WAIT_VALUE_EQ:
		return word == v;
	case CU_STREAM_WAIT_VALUE_AND:
		return (word & v) != 0;
	default: /* CU_STREAM_WAIT_VALUE_NOR (checked when the node was made) */
		return op->u.waitval.wide ? ~(word | v) != 0 : (uint32_t)~(word | v) != 0;
	}
}

/* Seeded mode: whether the wait may run now (its condition holds, or the
 * word cannot be read: running it then reports the fault). */
static bool tcd_waitval_ready(const struct tcd_op *op)
{
	struct tcd_waitval_read rd = {.op = op};
	uintptr_t fault = 0;

	if (tcd_guard_call(tcd_waitval_load, &rd, &fault))
		return true;
	return tcd_waitval_met(op, rd.word);
}

/* Polls the word until the condition holds, as the GPU waits: other
 * streams' workers go on meanwhile (unseeded).  A wait not met within
 * TCD_WAITVAL_NS breaks the context (CUDA_ERROR_LAUNCH_TIMEOUT), where
 * the driver would wait for ever; so does a fault reading the word. */
#define TCD_WAITVAL_NS 10000000000ull
static void tcd_waitval_run(const struct tcd_op *op, struct tcd_stream *s)
{
	struct tcd_waitval_read rd = {.op = op};
	uint64_t start = tcd_now_ns();
	uintptr_t fault = 0;

	for (;;) {
		if (tcd_guard_call(tcd_waitval_load, &rd, &fault)) {
			atomic_store(&s->ctx->sticky, (int)CUDA_ERROR_ILLEGAL_ADDRESS);
			if (!tcd_g.quiet)
				tcd_warn("a batch memory-op wait faulted at %p: context %p is broken "
					 "(CUDA_ERROR_ILLEGAL_ADDRESS)", (void *)fault, (void *)s->ctx);
			return;
		}
		if (tcd_waitval_met(op, rd.word))
			return;
		if (tcd_now_ns() - start > TCD_WAITVAL_NS) {
			atomic_store(&s->ctx->sticky, (int)CUDA_ERROR_LAUNCH_TIMEOUT);
			if (!tcd_g.quiet)
				tcd_warn("a batch memory-op wait on %p (value 0x%llx, flags 0x%x) was not met in 10 s: "
					 "context %p is broken (CUDA_ERROR_LAUNCH_TIMEOUT)", (void *)op->u.waitval.addr,
					 (unsigned long long)op->u.waitval.value, op->u.waitval.flags, (void *)s->ctx);
			return;
		}
		sched_yield();
	}
}

/* Runs op of stream s.  Once a kernel broke the context, its work does
 * nothing more: the real driver runs nothing in a context after a fault.
 * Copies and memsets were checked against the registry when they were
 * queued, but memory may change under them before they run (an access
 * made read-only, a range unmapped by a later call): they run under the
 * fault guard too, and a fault breaks the context as a kernel's does
 * (CUDA_ERROR_ILLEGAL_ADDRESS), where the host process would have died
 * (a cuMemcpyHtoD into memory cuMemSetAccess made read-only: seed 54003
 * of cu_replay_mutants.sh). */
static void tcd_op_run(struct tcd_op *op, struct tcd_stream *s)
{
	uintptr_t fault = 0;
	bool hide;

	if (atomic_load(&s->ctx->sticky) && op->kind != TCD_OP_RECORD && op->kind != TCD_OP_WAIT &&
	    op->kind != TCD_OP_FREE)
		return;
	/* TSCUDA_DOUBLE_RACY (tcd_core.c): a program that races on purpose
	 * (two streams' kernels and copies on the same bytes, unordered) races
	 * on the emulated GPU, not in the double: under ThreadSanitizer what
	 * a kernel, copy or memset reads and writes is hidden from it. */
	hide = tcd_g.racy_hide[0] &&
	       (op->kind == TCD_OP_KERNEL || op->kind == TCD_OP_COPY || op->kind == TCD_OP_MEMSET);
	if (hide) {
		tcd_g.racy_hide[0](__FILE__, __LINE__);
		tcd_g.racy_hide[1](__FILE__, __LINE__);
	}
	switch (op->kind) {
	case TCD_OP_KERNEL:
		tcd_kernel_run(op, s->ctx);
		break;
	case TCD_OP_COPY:
	case TCD_OP_MEMSET:
		if (tcd_guard_call(tcd_op_move, op, &fault)) {
			atomic_store(&s->ctx->sticky, (int)CUDA_ERROR_ILLEGAL_ADDRESS);
			if (!tcd_g.quiet)
				tcd_warn("a %s faulted at %p: context %p is broken (CUDA_ERROR_ILLEGAL_ADDRESS)",
					 op->kind == TCD_OP_COPY ? "copy" : "memset", (void *)fault, (void *)s->ctx);
		}
		break;
	case TCD_OP_FREE:
		tcd_free_now(op->u.free.ptr);
		break;
	case TCD_OP_HOST:
		op->u.host.fn(op->u.host.user);
		break;
	case TCD_OP_WAIT_VALUE:
		tcd_waitval_run(op, s);
		break;
	case TCD_OP_RECORD:
	case TCD_OP_WAIT:
		break;
	}
	if (hide) {
		tcd_g.racy_hide[2](__FILE__, __LINE__);
		tcd_g.racy_hide[3](__FILE__, __LINE__);
	}
}

struct tcd_op *tcd_op_new(enum tcd_op_kind kind)
{
	struct tcd_op *op = calloc(1, sizeof(*op));

	if (op)
		op->kind = kind;
	return op;
}

void tcd_op_free(struct tcd_op *op)
{
	if (!op)
		return;
	if (op->kind == TCD_OP_KERNEL)
		free(op->u.kernel.params);
	free(op->deps);
	free(op);
}

struct tcd_op *tcd_op_clone(const struct tcd_op *t)
{
	struct tcd_op *op = tcd_op_new(t->kind);

	if (!op)
		return NULL;
	op->u = t->u;
	if (t->kind == TCD_OP_KERNEL) {
		size_t n = t->u.kernel.k->param_bytes;

		op->u.kernel.params = malloc(n ? n : 1);
		if (!op->u.kernel.params) {
			free(op);
			return NULL;
		}
		memcpy(op->u.kernel.params, t->u.kernel.params, n);
	}
	return op;
}

static void *tcd_worker(void *arg)
{
	struct tcd_stream *s = arg;

	pthread_mutex_lock(&tcd_g.lock);
	for (;;) {
		struct tcd_op *op = s->head;

		if (!op) {
			if (s->destroying)
				break;
			pthread_cond_wait(&tcd_g.cond, &tcd_g.lock);
			continue;
		}
		if (!tcd_op_ready_locked(op) || (tcd_g.seeded && tcd_g.granted != s)) {
			pthread_cond_wait(&tcd_g.cond, &tcd_g.lock);
			continue;
		}
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		pthread_mutex_unlock(&tcd_g.lock);
		tcd_op_run(op, s);
		pthread_mutex_lock(&tcd_g.lock);
		if (op->kind == TCD_OP_RECORD && op->u.record.event->generation == op->u.record.generation)
			op->u.record.event->ns = tcd_now_ns();
		s->completed = op->seq;
		if (tcd_g.granted == s)
			tcd_g.granted = NULL;
		pthread_cond_broadcast(&tcd_g.cond);
		tcd_op_free(op);
	}
	s->worker_running = false;
	pthread_cond_broadcast(&tcd_g.cond);
	pthread_mutex_unlock(&tcd_g.lock);
	return NULL;
}

struct tcd_stream *tcd_stream_new(struct tcd_ctx *ctx, enum tcd_stream_special special, unsigned flags,
				  int priority)
{
	struct tcd_stream *s = tcd_obj_new(sizeof(*s), TCD_KIND_STREAM);
	pthread_attr_t attr;

	if (!s)
		return NULL;
	s->ctx = ctx;
	s->special = special;
	s->flags = flags;
	s->priority = priority;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&tcd_g.lock);
	s->id = ++tcd_g.next_stream_id;
	s->worker_running = true;
	if (pthread_create(&s->worker, &attr, tcd_worker, s) != 0) {
		pthread_mutex_unlock(&tcd_g.lock);
		pthread_attr_destroy(&attr);
		tcd_obj_kill(s);
		return NULL;
	}
	s->next_in_ctx = ctx->streams;
	ctx->streams = s;
	s->next_all = tcd_g.all_streams;
	tcd_g.all_streams = s;
	pthread_mutex_unlock(&tcd_g.lock);
	pthread_attr_destroy(&attr);
	return s;
}

CUresult tcd_stream_resolve(CUstream h, bool per_thread, const char *call, struct tcd_stream **out)
{
	struct tcd_ctx *ctx;
	CUresult r;

	if (h == CU_STREAM_LEGACY || (!h && !per_thread)) {
		r = tcd_ctx_require(call, &ctx);
		if (r == CUDA_SUCCESS)
			*out = ctx->legacy;
		return r;
	}
	if (h == CU_STREAM_PER_THREAD || !h) {
		r = tcd_ctx_require(call, &ctx);
		if (r != CUDA_SUCCESS)
			return r;
		for (int i = 0; i < TCD_PT_SLOTS; i++)
			if (tcd_tls_pt[i].ctx == ctx) {
				*out = tcd_tls_pt[i].stream;
				return CUDA_SUCCESS;
			}
		for (int i = 0; i < TCD_PT_SLOTS; i++)
			if (!tcd_tls_pt[i].ctx || tcd_tls_pt[i].ctx->h.magic != TCD_MAGIC_LIVE) {
				struct tcd_stream *s = tcd_stream_new(ctx, TCD_STREAM_PER_THREAD, 0, 0);

				if (!s)
					return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "cannot start a stream worker");
				tcd_tls_pt[i].ctx = ctx;
				tcd_tls_pt[i].stream = s;
				*out = s;
				return CUDA_SUCCESS;
			}
		return tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call,
				"this thread used per-thread default streams in more than %d contexts", TCD_PT_SLOTS);
	}
	return tcd_obj_get(h, TCD_KIND_STREAM, call, "hStream", out);
}

static CUresult tcd_dep_add(struct tcd_op *op, struct tcd_stream *s, uint64_t seq)
{
	struct tcd_dep *d = realloc(op->deps, (op->ndeps + 1) * sizeof(*d));

	if (!d)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->deps = d;
	d[op->ndeps].stream = s;
	d[op->ndeps].seq = seq;
	op->ndeps++;
	return CUDA_SUCCESS;
}

static bool tcd_ctx_capturing_locked(const struct tcd_ctx *ctx)
{
	for (const struct tcd_stream *t = ctx->streams; t; t = t->next_in_ctx)
		if (t->capture && t->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED)
			return true;
	return false;
}

bool tcd_capture_active_global(void)
{
	bool any = false;

	pthread_mutex_lock(&tcd_g.lock);
	for (const struct tcd_stream *t = tcd_g.all_streams; t && !any; t = t->next_all)
		any = t->capture && t->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED;
	pthread_mutex_unlock(&tcd_g.lock);
	return any;
}

static void tcd_graph_append_locked(struct tcd_graph *g, struct tcd_op *op)
{
	op->next = NULL;
	*g->tail = op;
	g->tail = &op->next;
	g->count++;
}

/* Queues op on s (taking ownership, also on failure), or appends it to the
 * graph s is capturing (*seq_out is then 0).  In a capture, an event
 * record (not CU_EVENT_RECORD_EXTERNAL) adds no node, and a wait on an
 * event recorded earlier on the same stream of the same capture adds
 * nothing; a wait on an event from outside the capture invalidates it
 * (CUDA_ERROR_STREAM_CAPTURE_ISOLATION), and one joining another stream
 * is not modelled (CUDA_ERROR_NOT_SUPPORTED). */
CUresult tcd_enqueue(struct tcd_stream *s, struct tcd_op *op, const char *call, uint64_t *seq_out)
{
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&tcd_g.lock);
	if (s->h.magic != TCD_MAGIC_LIVE) {
		r = tcd_fail(CUDA_ERROR_INVALID_HANDLE, call, "stream %p was destroyed", (void *)s);
		goto out_unlock;
	}
	if ((r = tcd_ctx_sticky(s->ctx, call)) != CUDA_SUCCESS)
		goto out_unlock;
	if (s->capture) {
		if (s->capture_invalid) {
			r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, call, "the capture on stream %p was invalidated",
				     (void *)s);
			goto out_unlock;
		}
		if (op->kind == TCD_OP_FREE) {
			s->capture_invalid = true;
			r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, call,
				     "the double does not capture frees; the capture is now invalid");
			goto out_unlock;
		}
		if (op->kind == TCD_OP_RECORD && !op->u.record.external) {
			/* no node: the event now stands for this point of the capture */
			op->u.record.event->capture = s->capture;
			op->u.record.event->capture_stream = s;
			if (seq_out)
				*seq_out = 0;
			goto out_unlock;
		}
		if (op->kind == TCD_OP_WAIT) {
			const struct tcd_event *e = op->u.wait.event;
			if (e && e->capture == s->capture && e->capture_stream == s) {
				if (seq_out)
					*seq_out = 0;
				goto out_unlock; /* in-stream order: nothing to add */
			}
			if (e && e->capture == s->capture) {
				r = tcd_fail(CUDA_ERROR_NOT_SUPPORTED, call,
					     "a wait joining another stream to the capture: cross-stream capture is not modelled");
				goto out_unlock;
			}
			s->capture_invalid = true;
			r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, call, "the event was not recorded in this "
				     "capture: a dependency on work outside it; the capture is now invalid");
			goto out_unlock;
		}
		free(op->deps);
		op->deps = NULL;
		op->ndeps = 0;
		tcd_graph_append_locked(s->capture, op);
		op = NULL;
		if (seq_out)
			*seq_out = 0;
		goto out_unlock;
	}
	if (s->special == TCD_STREAM_LEGACY) {
		if (tcd_ctx_capturing_locked(s->ctx)) {
			for (struct tcd_stream *t = s->ctx->streams; t; t = t->next_in_ctx)
				if (t->capture && t->capture_mode != CU_STREAM_CAPTURE_MODE_RELAXED)
					t->capture_invalid = true;
			r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, call,
				     "work on the legacy stream while a stream of its context is captured");
			goto out_unlock;
		}
		for (struct tcd_stream *t = s->ctx->streams; t; t = t->next_in_ctx)
			if (t != s && !(t->flags & CU_STREAM_NON_BLOCKING) && t->submitted > t->completed &&
			    (r = tcd_dep_add(op, t, t->submitted)) != CUDA_SUCCESS)
				goto out_unlock;
	} else if (!(s->flags & CU_STREAM_NON_BLOCKING)) {
		struct tcd_stream *l = s->ctx->legacy;

		if (l->submitted > l->completed && (r = tcd_dep_add(op, l, l->submitted)) != CUDA_SUCCESS)
			goto out_unlock;
	}
	op->seq = ++s->submitted;
	if (op->kind == TCD_OP_RECORD) {
		struct tcd_event *e = op->u.record.event;

		e->capture = NULL;
		e->capture_stream = NULL;
		e->stream = s;
		e->seq = op->seq;
		e->generation++;
		e->ns = 0;
		op->u.record.generation = e->generation;
	}
	if (seq_out)
		*seq_out = op->seq;
	op->next = NULL;
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	op = NULL;
	pthread_cond_broadcast(&tcd_g.cond);
out_unlock:
	pthread_mutex_unlock(&tcd_g.lock);
	if (r == CUDA_ERROR_OUT_OF_MEMORY)
		tcd_fail(r, call, "out of host memory");
	tcd_op_free(op);
	return r;
}

static bool tcd_deps_done_locked(const struct tcd_dep *deps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (deps[i].stream->completed < deps[i].seq)
			return false;
	return true;
}

/* Seeded mode: hand the grant to a random stream whose head op is ready.
 * Returns false when nothing can run. */
static bool tcd_grant_locked(void)
{
	size_t ready = 0, pick;

	if (tcd_g.granted)
		return true;
	for (struct tcd_stream *t = tcd_g.all_streams; t; t = t->next_all)
		if (t->head && tcd_op_ready_locked(t->head))
			ready++;
	if (!ready)
		return false;
	pick = (size_t)(tcd_rng_next(&tcd_g.sched_rng) % ready);
	for (struct tcd_stream *t = tcd_g.all_streams; t; t = t->next_all)
		if (t->head && tcd_op_ready_locked(t->head) && pick-- == 0) {
			tcd_g.granted = t;
			break;
		}
	pthread_cond_broadcast(&tcd_g.cond);
	return true;
}

/* Waits for deps; a kernel fault in the contexts waited on is reported
 * here, at the synchronisation, as the driver reports asynchronous errors. */
static CUresult tcd_wait_deps_locked(const struct tcd_dep *deps, size_t n, const char *call)
{
	CUresult r = CUDA_SUCCESS;

	while (!tcd_deps_done_locked(deps, n)) {
		if (tcd_g.seeded && !tcd_grant_locked())
			return tcd_fail(CUDA_ERROR_UNKNOWN, call, "seeded mode: the work waited for can never run");
		pthread_cond_wait(&tcd_g.cond, &tcd_g.lock);
	}
	for (size_t i = 0; i < n && r == CUDA_SUCCESS; i++)
		r = tcd_ctx_sticky(deps[i].stream->ctx, call);
	return r;
}

/* Seeded mode: a query that finds work pending first lets one op run, so a
 * host that polls makes progress. */
static void tcd_step_locked(void)
{
	if (!tcd_g.seeded || !tcd_grant_locked())
		return;
	while (tcd_g.granted)
		pthread_cond_wait(&tcd_g.cond, &tcd_g.lock);
}

CUresult tcd_enqueue_sync(struct tcd_stream *s, struct tcd_op *op, const char *call)
{
	uint64_t seq;
	struct tcd_dep d;
	CUresult r = tcd_enqueue(s, op, call, &seq);

	if (r != CUDA_SUCCESS || seq == 0)
		return r;
	d.stream = s;
	d.seq = seq;
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_wait_deps_locked(&d, 1, call);
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

/* Waits for everything submitted so far to every stream (of ctx, or all). */
static CUresult tcd_sync_streams(struct tcd_ctx *ctx, const char *call)
{
	struct tcd_dep *deps = NULL;
	size_t n = 0, cap = 0;
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&tcd_g.lock);
	for (struct tcd_stream *t = ctx ? ctx->streams : tcd_g.all_streams; t; t = ctx ? t->next_in_ctx : t->next_all) {
		if (t->submitted == t->completed)
			continue;
		if (n == cap) {
			struct tcd_dep *nd = realloc(deps, (cap = cap ? cap * 2 : 16) * sizeof(*nd));

			if (!nd) {
				r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
				goto out_unlock;
			}
			deps = nd;
		}
		deps[n].stream = t;
		deps[n].seq = t->submitted;
		n++;
	}
	r = tcd_wait_deps_locked(deps, n, call);
out_unlock:
	pthread_mutex_unlock(&tcd_g.lock);
	free(deps);
	return r;
}

CUresult tcd_sync_all(const char *call)
{
	return tcd_sync_streams(NULL, call);
}

CUresult tcd_sync_ctx(struct tcd_ctx *ctx, const char *call)
{
	return tcd_sync_streams(ctx, call);
}

/* ---- streams ---- */

static CUresult tcd_stream_create(CUstream *ph, unsigned flags, int priority, const char *call)
{
	struct tcd_ctx *ctx;
	struct tcd_stream *s;
	CUresult r;

	if (!ph)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phStream is NULL");
	if (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown flags 0x%x", flags);
	r = tcd_ctx_require(call, &ctx);
	if (r != CUDA_SUCCESS)
		return r;
	priority = tcd_clamp_priority(priority);
	s = tcd_stream_new(ctx, TCD_STREAM_PLAIN, flags, priority);
	if (!s)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "cannot start a stream worker");
	*ph = (CUstream)s;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuStreamCreate)(CUstream *phStream, unsigned int Flags)
{
	TCD_ENTER_INIT(cuStreamCreate);
	return tcd_stream_create(phStream, Flags, 0, "cuStreamCreate");
}
TCD_EXPORT(cuStreamCreate)

TCD_API(CUresult, cuStreamCreateWithPriority)(CUstream *phStream, unsigned int flags, int priority)
{
	TCD_ENTER_INIT(cuStreamCreateWithPriority);
	return tcd_stream_create(phStream, flags, priority, "cuStreamCreateWithPriority");
}
TCD_EXPORT(cuStreamCreateWithPriority)

/* The range tcd_clamp_priority keeps to (leastPriority 0, greatestPriority -5). */
TCD_API(CUresult, cuCtxGetStreamPriorityRange)(int *leastPriority, int *greatestPriority)
{
	struct tcd_ctx *c;
	CUresult r;

	TCD_ENTER_INIT(cuCtxGetStreamPriorityRange);
	r = tcd_ctx_require("cuCtxGetStreamPriorityRange", &c);
	if (r != CUDA_SUCCESS)
		return r;
	if (leastPriority)
		*leastPriority = tcd_clamp_priority(1);
	if (greatestPriority)
		*greatestPriority = tcd_clamp_priority(-1000);
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuCtxGetStreamPriorityRange)

static CUresult tcd_stream_destroy(CUstream h, const char *call)
{
	struct tcd_stream *s;
	CUresult r;

	if (h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD || !h)
		return tcd_fail(CUDA_ERROR_INVALID_HANDLE, call, "the default streams cannot be destroyed");
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(h, TCD_KIND_STREAM, call, "hStream", &s);
	if (r == CUDA_SUCCESS) {
		/* Work already queued still runs, as on a GPU. */
		tcd_obj_kill(s);
		s->destroying = true;
		if (s->capture)
			tcd_obj_kill(s->capture);
		s->capture = NULL;
		pthread_cond_broadcast(&tcd_g.cond);
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuStreamDestroy)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamDestroy);
	return tcd_stream_destroy(hStream, "cuStreamDestroy");
}
TCD_EXPORT(cuStreamDestroy)

TCD_API(CUresult, cuStreamDestroy_v2)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamDestroy_v2);
	return tcd_stream_destroy(hStream, "cuStreamDestroy_v2");
}
TCD_EXPORT(cuStreamDestroy_v2)

static CUresult tcd_stream_sync(CUstream h, bool pt, const char *call)
{
	struct tcd_stream *s;
	struct tcd_dep d;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	if (s->capture) {
		s->capture_invalid = true;
		r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, call, "stream %p is being captured", (void *)s);
		goto out_unlock;
	}
	if (s->special == TCD_STREAM_LEGACY && tcd_ctx_capturing_locked(s->ctx)) {
		r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, call,
			     "synchronising the legacy stream while a stream of its context is captured");
		goto out_unlock;
	}
	d.stream = s;
	d.seq = s->submitted;
	r = tcd_wait_deps_locked(&d, 1, call);
out_unlock:
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuStreamSynchronize)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamSynchronize);
	return tcd_stream_sync(hStream, false, "cuStreamSynchronize");
}
TCD_EXPORT(cuStreamSynchronize)

TCD_API(CUresult, cuStreamSynchronize_ptsz)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamSynchronize_ptsz);
	return tcd_stream_sync(hStream, true, "cuStreamSynchronize_ptsz");
}
TCD_EXPORT(cuStreamSynchronize_ptsz)

/*
 * Whether a stream has work not yet run; for the legacy stream, also any
 * blocking stream of its context (a created one without
 * CU_STREAM_NON_BLOCKING, or a per-thread default stream of any thread):
 * measured on the H100 (driver 580.159.04, tests/cuda/cuda_stream_query.c,
 * tests/fixtures/h100/stream_query.txt), cuStreamQuery of the legacy
 * stream answers CUDA_ERROR_NOT_READY while such a stream is held by a
 * stream memory wait, from any thread, and CUDA_SUCCESS while only a
 * non-blocking one is.  Any other stream answers for its own work alone,
 * even while the legacy stream is held.
 */
static bool tcd_stream_busy_locked(const struct tcd_stream *s)
{
	if (s->completed < s->submitted)
		return true;
	if (s->special != TCD_STREAM_LEGACY)
		return false;
	for (const struct tcd_stream *t = s->ctx->streams; t; t = t->next_in_ctx)
		if (t != s && !(t->flags & CU_STREAM_NON_BLOCKING) && t->completed < t->submitted)
			return true;
	return false;
}

static CUresult tcd_stream_query(CUstream h, bool pt, const char *call)
{
	struct tcd_stream *s;
	CUresult r = tcd_stream_resolve(h, pt, call, &s);

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	if (s->capture) {
		s->capture_invalid = true;
		r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, call, "stream %p is being captured", (void *)s);
	} else {
		if (tcd_stream_busy_locked(s))
			tcd_step_locked();
		r = tcd_stream_busy_locked(s) ? CUDA_ERROR_NOT_READY : tcd_ctx_sticky(s->ctx, call);
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuStreamQuery)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamQuery);
	return tcd_stream_query(hStream, false, "cuStreamQuery");
}
TCD_EXPORT(cuStreamQuery)

TCD_API(CUresult, cuStreamQuery_ptsz)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamQuery_ptsz);
	return tcd_stream_query(hStream, true, "cuStreamQuery_ptsz");
}
TCD_EXPORT(cuStreamQuery_ptsz)

static CUresult tcd_stream_wait_event(CUstream h, CUevent ev, unsigned flags, bool pt, const char *call)
{
	struct tcd_stream *s;
	struct tcd_event *e;
	struct tcd_op *op;
	CUresult r;

	if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown flags 0x%x", flags);
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	r = tcd_obj_get(ev, TCD_KIND_EVENT, call, "hEvent", &e);
	if (r != CUDA_SUCCESS)
		return r;
	op = tcd_op_new(TCD_OP_WAIT);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.wait.event = e; /* (a capturing stream looks at where it was recorded) */
	pthread_mutex_lock(&tcd_g.lock);
	/* An event never recorded has nothing to wait for. */
	if (e->stream && tcd_dep_add(op, e->stream, e->seq) != CUDA_SUCCESS)
		r = CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS) {
		tcd_op_free(op);
		return tcd_fail(r, call, "out of host memory");
	}
	return tcd_enqueue(s, op, call, NULL);
}

TCD_API(CUresult, cuStreamWaitEvent)(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
	TCD_ENTER_INIT(cuStreamWaitEvent);
	return tcd_stream_wait_event(hStream, hEvent, Flags, false, "cuStreamWaitEvent");
}
TCD_EXPORT(cuStreamWaitEvent)

TCD_API(CUresult, cuStreamWaitEvent_ptsz)(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
	TCD_ENTER_INIT(cuStreamWaitEvent_ptsz);
	return tcd_stream_wait_event(hStream, hEvent, Flags, true, "cuStreamWaitEvent_ptsz");
}
TCD_EXPORT(cuStreamWaitEvent_ptsz)

static CUresult tcd_stream_get(CUstream h, bool pt, int *priority, unsigned *flags, const char *call)
{
	struct tcd_stream *s;
	CUresult r;

	if (!priority && !flags)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "the output pointer is NULL");
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	if (priority)
		*priority = s->priority;
	if (flags)
		*flags = s->flags;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuStreamGetPriority)(CUstream hStream, int *priority)
{
	TCD_ENTER_INIT(cuStreamGetPriority);
	return tcd_stream_get(hStream, false, priority, NULL, "cuStreamGetPriority");
}
TCD_EXPORT(cuStreamGetPriority)

TCD_API(CUresult, cuStreamGetPriority_ptsz)(CUstream hStream, int *priority)
{
	TCD_ENTER_INIT(cuStreamGetPriority_ptsz);
	return tcd_stream_get(hStream, true, priority, NULL, "cuStreamGetPriority_ptsz");
}
TCD_EXPORT(cuStreamGetPriority_ptsz)

TCD_API(CUresult, cuStreamGetFlags)(CUstream hStream, unsigned int *flags)
{
	TCD_ENTER_INIT(cuStreamGetFlags);
	return tcd_stream_get(hStream, false, NULL, flags, "cuStreamGetFlags");
}
TCD_EXPORT(cuStreamGetFlags)

TCD_API(CUresult, cuStreamGetFlags_ptsz)(CUstream hStream, unsigned int *flags)
{
	TCD_ENTER_INIT(cuStreamGetFlags_ptsz);
	return tcd_stream_get(hStream, true, NULL, flags, "cuStreamGetFlags_ptsz");
}
TCD_EXPORT(cuStreamGetFlags_ptsz)

/* ---- events ---- */

TCD_API(CUresult, cuEventCreate)(CUevent *phEvent, unsigned int Flags)
{
	struct tcd_event *e;
	const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;

	TCD_ENTER_INIT(cuEventCreate);
	if (!phEvent)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuEventCreate", "phEvent is NULL");
	if (Flags & ~known)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuEventCreate", "unknown flags 0x%x", Flags);
	if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuEventCreate",
				"CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING");
	e = tcd_obj_new(sizeof(*e), TCD_KIND_EVENT);
	if (!e)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, "cuEventCreate", "out of host memory");
	e->flags = Flags;
	e->timed = !(Flags & CU_EVENT_DISABLE_TIMING);
	*phEvent = (CUevent)e;
	return CUDA_SUCCESS;
}
TCD_EXPORT(cuEventCreate)

static CUresult tcd_event_record(CUevent ev, CUstream h, unsigned flags, bool pt, const char *call)
{
	struct tcd_event *e;
	struct tcd_stream *s;
	struct tcd_op *op;
	CUresult r;

	if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown flags 0x%x", flags);
	r = tcd_obj_get(ev, TCD_KIND_EVENT, call, "hEvent", &e);
	if (r != CUDA_SUCCESS)
		return r;
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	op = tcd_op_new(TCD_OP_RECORD);
	if (!op)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	op->u.record.event = e;
	op->u.record.external = (flags & CU_EVENT_RECORD_EXTERNAL) != 0;
	return tcd_enqueue(s, op, call, NULL);
}

TCD_API(CUresult, cuEventRecord)(CUevent hEvent, CUstream hStream)
{
	TCD_ENTER_INIT(cuEventRecord);
	return tcd_event_record(hEvent, hStream, 0, false, "cuEventRecord");
}
TCD_EXPORT(cuEventRecord)

TCD_API(CUresult, cuEventRecord_ptsz)(CUevent hEvent, CUstream hStream)
{
	TCD_ENTER_INIT(cuEventRecord_ptsz);
	return tcd_event_record(hEvent, hStream, 0, true, "cuEventRecord_ptsz");
}
TCD_EXPORT(cuEventRecord_ptsz)

TCD_API(CUresult, cuEventRecordWithFlags)(CUevent hEvent, CUstream hStream, unsigned int flags)
{
	TCD_ENTER_INIT(cuEventRecordWithFlags);
	return tcd_event_record(hEvent, hStream, flags, false, "cuEventRecordWithFlags");
}
TCD_EXPORT(cuEventRecordWithFlags)

TCD_API(CUresult, cuEventRecordWithFlags_ptsz)(CUevent hEvent, CUstream hStream, unsigned int flags)
{
	TCD_ENTER_INIT(cuEventRecordWithFlags_ptsz);
	return tcd_event_record(hEvent, hStream, flags, true, "cuEventRecordWithFlags_ptsz");
}
TCD_EXPORT(cuEventRecordWithFlags_ptsz)

TCD_API(CUresult, cuEventSynchronize)(CUevent hEvent)
{
	struct tcd_event *e;
	struct tcd_dep d;
	CUresult r;

	TCD_ENTER_INIT(cuEventSynchronize);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hEvent, TCD_KIND_EVENT, "cuEventSynchronize", "hEvent", &e);
	if (r == CUDA_SUCCESS && e->stream) {
		d.stream = e->stream;
		d.seq = e->seq;
		r = tcd_wait_deps_locked(&d, 1, "cuEventSynchronize");
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuEventSynchronize)

TCD_API(CUresult, cuEventQuery)(CUevent hEvent)
{
	struct tcd_event *e;
	CUresult r;

	TCD_ENTER_INIT(cuEventQuery);
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hEvent, TCD_KIND_EVENT, "cuEventQuery", "hEvent", &e);
	if (r == CUDA_SUCCESS && e->stream) {
		if (e->stream->completed < e->seq)
			tcd_step_locked();
		r = e->stream->completed < e->seq ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}
TCD_EXPORT(cuEventQuery)

static CUresult tcd_event_destroy(CUevent ev, const char *call)
{
	struct tcd_event *e;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(ev, TCD_KIND_EVENT, call, "hEvent", &e);
	if (r == CUDA_SUCCESS)
		tcd_obj_kill(e);
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuEventDestroy)(CUevent hEvent)
{
	TCD_ENTER_INIT(cuEventDestroy);
	return tcd_event_destroy(hEvent, "cuEventDestroy");
}
TCD_EXPORT(cuEventDestroy)

TCD_API(CUresult, cuEventDestroy_v2)(CUevent hEvent)
{
	TCD_ENTER_INIT(cuEventDestroy_v2);
	return tcd_event_destroy(hEvent, "cuEventDestroy_v2");
}
TCD_EXPORT(cuEventDestroy_v2)

static CUresult tcd_event_elapsed(float *ms, CUevent hs, CUevent he, const char *call)
{
	struct tcd_event *a, *b;
	CUresult r;

	if (!ms)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "pMilliseconds is NULL");
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hs, TCD_KIND_EVENT, call, "hStart", &a);
	if (r == CUDA_SUCCESS)
		r = tcd_obj_get_locked(he, TCD_KIND_EVENT, call, "hEnd", &b);
	if (r != CUDA_SUCCESS)
		goto out_unlock;
	if (!a->timed || !b->timed || !a->stream || !b->stream) {
		r = tcd_fail(CUDA_ERROR_INVALID_HANDLE, call, "an event was created with CU_EVENT_DISABLE_TIMING or never recorded");
		goto out_unlock;
	}
	if (a->stream->completed < a->seq || b->stream->completed < b->seq) {
		r = CUDA_ERROR_NOT_READY;
		goto out_unlock;
	}
	*ms = (float)((double)((int64_t)(b->ns - a->ns)) / 1e6);
out_unlock:
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuEventElapsedTime)(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	TCD_ENTER_INIT(cuEventElapsedTime);
	return tcd_event_elapsed(pMilliseconds, hStart, hEnd, "cuEventElapsedTime");
}
TCD_EXPORT(cuEventElapsedTime)

TCD_API(CUresult, cuEventElapsedTime_v2)(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	TCD_ENTER_INIT(cuEventElapsedTime_v2);
	return tcd_event_elapsed(pMilliseconds, hStart, hEnd, "cuEventElapsedTime_v2");
}
TCD_EXPORT(cuEventElapsedTime_v2)

/* ---- stream capture and graphs ---- */

CUresult tcd_capture_begin(CUstream h, CUstreamCaptureMode mode, bool pt, struct tcd_graph *into,
			   const CUgraphNode *deps, size_t ndeps, const char *call)
{
	struct tcd_stream *s;
	struct tcd_graph *g;
	CUgraphNode *kept = NULL;
	CUresult r;

	if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
	    mode != CU_STREAM_CAPTURE_MODE_RELAXED)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "unknown capture mode %d", (int)mode);
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	if (s->special == TCD_STREAM_LEGACY)
		return tcd_fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, call, "the legacy stream cannot be captured");
	if (ndeps && !deps)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "dependencies is NULL with %zu of them", ndeps);
	if (ndeps && !(kept = malloc(ndeps * sizeof(*kept))))
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	if (ndeps)
		memcpy(kept, deps, ndeps * sizeof(*kept));
	g = tcd_obj_new(sizeof(*g), TCD_KIND_GRAPH);
	if (!g) {
		free(kept);
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	}
	g->tail = &g->ops;
	pthread_mutex_lock(&tcd_g.lock);
	if (s->capture) {
		r = tcd_fail(CUDA_ERROR_ILLEGAL_STATE, call, "stream %p is already capturing", (void *)s);
		tcd_obj_kill(g);
		free(kept);
	} else {
		s->capture = g;
		s->capture_mode = mode;
		s->capture_invalid = false;
		s->capture_into = into;
		s->capture_deps = kept;
		s->ncapture_deps = ndeps;
	}
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuStreamBeginCapture)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamBeginCapture);
	return tcd_capture_begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, false, NULL, NULL, 0, "cuStreamBeginCapture");
}
TCD_EXPORT(cuStreamBeginCapture)

TCD_API(CUresult, cuStreamBeginCapture_ptsz)(CUstream hStream)
{
	TCD_ENTER_INIT(cuStreamBeginCapture_ptsz);
	return tcd_capture_begin(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, true, NULL, NULL, 0,
				 "cuStreamBeginCapture_ptsz");
}
TCD_EXPORT(cuStreamBeginCapture_ptsz)

TCD_API(CUresult, cuStreamBeginCapture_v2)(CUstream hStream, CUstreamCaptureMode mode)
{
	TCD_ENTER_INIT(cuStreamBeginCapture_v2);
	return tcd_capture_begin(hStream, mode, false, NULL, NULL, 0, "cuStreamBeginCapture_v2");
}
TCD_EXPORT(cuStreamBeginCapture_v2)

TCD_API(CUresult, cuStreamBeginCapture_v2_ptsz)(CUstream hStream, CUstreamCaptureMode mode)
{
	TCD_ENTER_INIT(cuStreamBeginCapture_v2_ptsz);
	return tcd_capture_begin(hStream, mode, true, NULL, NULL, 0, "cuStreamBeginCapture_v2_ptsz");
}
TCD_EXPORT(cuStreamBeginCapture_v2_ptsz)

static CUresult tcd_capture_end(CUstream h, CUgraph *out, bool pt, const char *call)
{
	struct tcd_stream *s;
	struct tcd_graph *into = NULL, *captured = NULL;
	CUgraphNode *deps = NULL, node;
	size_t ndeps = 0;
	CUresult r;

	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phGraph is NULL");
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	if (!s->capture) {
		r = tcd_fail(CUDA_ERROR_ILLEGAL_STATE, call, "stream %p is not capturing", (void *)s);
	} else if (s->capture_invalid) {
		tcd_obj_kill(s->capture);
		*out = NULL;
		r = tcd_fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, call, "the capture on stream %p was invalidated",
			     (void *)s);
	} else if (s->capture_into) {
		captured = s->capture;
		into = s->capture_into;
	} else {
		*out = (CUgraph)s->capture;
	}
	if (s->capture) {
		deps = s->capture_deps;
		ndeps = s->ncapture_deps;
		s->capture_into = NULL;
		s->capture_deps = NULL;
		s->ncapture_deps = 0;
	}
	s->capture = NULL;
	s->capture_invalid = false;
	pthread_mutex_unlock(&tcd_g.lock);
	if (captured) {
		/* cuStreamBeginCaptureToGraph: the work is one node of into */
		struct tcd_op *ops = captured->ops;
		captured->ops = NULL;
		tcd_obj_kill(captured);
		r = tcd_graph_node_add(&node, (CUgraph)into, deps, ndeps, ops, call);
		if (r == CUDA_SUCCESS)
			*out = (CUgraph)into;
	}
	free(deps);
	return r;
}

TCD_API(CUresult, cuStreamEndCapture)(CUstream hStream, CUgraph *phGraph)
{
	TCD_ENTER_INIT(cuStreamEndCapture);
	return tcd_capture_end(hStream, phGraph, false, "cuStreamEndCapture");
}
TCD_EXPORT(cuStreamEndCapture)

TCD_API(CUresult, cuStreamEndCapture_ptsz)(CUstream hStream, CUgraph *phGraph)
{
	TCD_ENTER_INIT(cuStreamEndCapture_ptsz);
	return tcd_capture_end(hStream, phGraph, true, "cuStreamEndCapture_ptsz");
}
TCD_EXPORT(cuStreamEndCapture_ptsz)

static CUresult tcd_capture_status(CUstream h, CUstreamCaptureStatus *st, bool pt, const char *call)
{
	struct tcd_stream *s;
	CUresult r;

	if (!st)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "captureStatus is NULL");
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&tcd_g.lock);
	*st = !s->capture ? CU_STREAM_CAPTURE_STATUS_NONE
	      : s->capture_invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
	pthread_mutex_unlock(&tcd_g.lock);
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuStreamIsCapturing)(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	TCD_ENTER_INIT(cuStreamIsCapturing);
	return tcd_capture_status(hStream, captureStatus, false, "cuStreamIsCapturing");
}
TCD_EXPORT(cuStreamIsCapturing)

TCD_API(CUresult, cuStreamIsCapturing_ptsz)(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
	TCD_ENTER_INIT(cuStreamIsCapturing_ptsz);
	return tcd_capture_status(hStream, captureStatus, true, "cuStreamIsCapturing_ptsz");
}
TCD_EXPORT(cuStreamIsCapturing_ptsz)

static CUresult tcd_graph_instantiate(CUgraphExec *out, CUgraph hg, const char *call)
{
	struct tcd_graph *g, *x;
	CUresult r;

	if (!out)
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, call, "phGraphExec is NULL");
	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(hg, TCD_KIND_GRAPH, call, "hGraph", &g);
	if (r == CUDA_SUCCESS)
		r = tcd_graph_moved_check_locked(g, call, "instantiating it on its own");
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS)
		return r;
	x = tcd_obj_new(sizeof(*x), TCD_KIND_GRAPH_EXEC);
	if (!x)
		return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
	x->tail = &x->ops;
	pthread_mutex_lock(&tcd_g.lock);
	if (g->nnodes) /* built node by node (tcd_graph.c) */
		r = tcd_graph_nodes_instantiate_locked(g, x, call);
	for (const struct tcd_op *t = g->nnodes ? NULL : g->ops; t; t = t->next) {
		struct tcd_op *op = tcd_op_clone(t);

		if (!op) {
			r = tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
			break;
		}
		tcd_graph_append_locked(x, op);
	}
	pthread_mutex_unlock(&tcd_g.lock);
	if (r != CUDA_SUCCESS) {
		tcd_obj_kill(x);
		return r;
	}
	*out = (CUgraphExec)x;
	return CUDA_SUCCESS;
}

TCD_API(CUresult, cuGraphInstantiate)(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
				      char *logBuffer, size_t bufferSize)
{
	TCD_ENTER_INIT(cuGraphInstantiate);
	(void)phErrorNode;
	if (logBuffer && bufferSize)
		logBuffer[0] = 0;
	return tcd_graph_instantiate(phGraphExec, hGraph, "cuGraphInstantiate");
}
TCD_EXPORT(cuGraphInstantiate)

TCD_API(CUresult, cuGraphInstantiate_v2)(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
					 char *logBuffer, size_t bufferSize)
{
	TCD_ENTER_INIT(cuGraphInstantiate_v2);
	(void)phErrorNode;
	if (logBuffer && bufferSize)
		logBuffer[0] = 0;
	return tcd_graph_instantiate(phGraphExec, hGraph, "cuGraphInstantiate_v2");
}
TCD_EXPORT(cuGraphInstantiate_v2)

TCD_API(CUresult, cuGraphInstantiateWithFlags)(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
	TCD_ENTER_INIT(cuGraphInstantiateWithFlags);
	if (flags & ~(unsigned long long)(CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
					  CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY))
		return tcd_fail(CUDA_ERROR_INVALID_VALUE, "cuGraphInstantiateWithFlags",
				"flags 0x%llx are not supported by the double", flags);
	return tcd_graph_instantiate(phGraphExec, hGraph, "cuGraphInstantiateWithFlags");
}
TCD_EXPORT(cuGraphInstantiateWithFlags)

static CUresult tcd_graph_launch(CUgraphExec hx, CUstream h, bool pt, const char *call)
{
	struct tcd_graph *x;
	struct tcd_stream *s;
	CUresult r = tcd_obj_get(hx, TCD_KIND_GRAPH_EXEC, call, "hGraphExec", &x);

	if (r != CUDA_SUCCESS)
		return r;
	r = tcd_stream_resolve(h, pt, call, &s);
	if (r != CUDA_SUCCESS)
		return r;
	/* The exec's op list is immutable once built, so no lock to walk it. */
	for (const struct tcd_op *t = x->ops; t && r == CUDA_SUCCESS; t = t->next) {
		struct tcd_op *op;

		if (__atomic_load_n(&t->disabled, __ATOMIC_RELAXED))
			continue; /* a disabled node runs as an empty one */
		op = tcd_op_clone(t);
		if (!op)
			return tcd_fail(CUDA_ERROR_OUT_OF_MEMORY, call, "out of host memory");
		if (op->kind == TCD_OP_WAIT && op->u.wait.event) {
			/* an event wait node: the event's last record as of this launch */
			struct tcd_event *e = op->u.wait.event;
			pthread_mutex_lock(&tcd_g.lock);
			if (e->stream && tcd_dep_add(op, e->stream, e->seq) != CUDA_SUCCESS)
				r = CUDA_ERROR_OUT_OF_MEMORY;
			pthread_mutex_unlock(&tcd_g.lock);
			if (r != CUDA_SUCCESS) {
				tcd_op_free(op);
				return tcd_fail(r, call, "out of host memory");
			}
		}
		r = tcd_enqueue(s, op, call, NULL);
	}
	return r;
}

TCD_API(CUresult, cuGraphLaunch)(CUgraphExec hGraphExec, CUstream hStream)
{
	TCD_ENTER_INIT(cuGraphLaunch);
	return tcd_graph_launch(hGraphExec, hStream, false, "cuGraphLaunch");
}
TCD_EXPORT(cuGraphLaunch)

TCD_API(CUresult, cuGraphLaunch_ptsz)(CUgraphExec hGraphExec, CUstream hStream)
{
	TCD_ENTER_INIT(cuGraphLaunch_ptsz);
	return tcd_graph_launch(hGraphExec, hStream, true, "cuGraphLaunch_ptsz");
}
TCD_EXPORT(cuGraphLaunch_ptsz)

static CUresult tcd_graph_kill(const void *h, enum tcd_kind kind, const char *call, const char *what)
{
	struct tcd_graph *g;
	CUresult r;

	pthread_mutex_lock(&tcd_g.lock);
	r = tcd_obj_get_locked(h, kind, call, what, &g);
	if (r == CUDA_SUCCESS && kind == TCD_KIND_GRAPH)
		r = tcd_graph_moved_check_locked(g, call, "destroying it on its own");
	if (r == CUDA_SUCCESS && kind == TCD_KIND_GRAPH)
		tcd_graph_kill_locked(g); /* with the graphs moved into its nodes */
	else if (r == CUDA_SUCCESS)
		tcd_obj_kill(g);
	pthread_mutex_unlock(&tcd_g.lock);
	return r;
}

TCD_API(CUresult, cuGraphExecDestroy)(CUgraphExec hGraphExec)
{
	TCD_ENTER_INIT(cuGraphExecDestroy);
	return tcd_graph_kill(hGraphExec, TCD_KIND_GRAPH_EXEC, "cuGraphExecDestroy", "hGraphExec");
}
TCD_EXPORT(cuGraphExecDestroy)

TCD_API(CUresult, cuGraphDestroy)(CUgraph hGraph)
{
	TCD_ENTER_INIT(cuGraphDestroy);
	return tcd_graph_kill(hGraph, TCD_KIND_GRAPH, "cuGraphDestroy", "hGraph");
}
TCD_EXPORT(cuGraphDestroy)
