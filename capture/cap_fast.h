/*
 * cap_fast.h - the recording path, inline, for a front-end's hottest call.
 *
 * cap.h's functions are what every front-end uses.  A call made hundreds
 * of thousands of times a second (a CUDA launch) pays for each of them a
 * call, a return and the checks every caller needs; this header gives the
 * same operations as inline functions that take the common case in a few
 * loads and stores and hand everything else to the out-of-line function
 * (cap_runtime.c), which behaves exactly as before.  Used by the CUDA
 * launch and the Vulkan layer's flat vkCmd* records:
 *
 *   cap_enter_inline / cap_leave_inline      = cap_enter / cap_leave
 *   cap_active_inline                        = cap_active
 *   cap_fast_begin_deferred / cap_fast_commit
 *                                            = cap_record_begin_deferred /
 *                                              cap_record_commit
 *
 * The fast begin applies when this thread is registered, the runtime is
 * running, the record is not nested, no host stack is wanted for it and the
 * thread's block has room; the fast commit is the runtime's own seal
 * (cap_rt_seal_entry, shared with cap_runtime.c, not a copy).  The state
 * these read is described in cap_internal.h; nothing here takes a lock or
 * makes a call except the timestamp.  After the trace is finished at exit
 * (CAP_ST_LATE) the begin is the out-of-line one, which sets max_len 0, so
 * the commit goes out of line too and writes the record (cap_internal.h,
 * cap_rec).
 */
#ifndef TRACESMITH_CAP_FAST_H
#define TRACESMITH_CAP_FAST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "capture/cap.h"
#include "capture/cap_internal.h"

extern CAP_TLS cap_thread *cap_tls_thread;
extern CAP_TLS uint64_t cap_tls_gen;
extern CAP_TLS int cap_tls_depth;

/* The out-of-line answer of cap_active for a state other than running. */
int cap_rt_ready_slow_(void);

static inline uint64_t cap_now_inline(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int cap_enter_inline(void)
{
	return cap_tls_depth++ > 0;
}

static inline void cap_leave_inline(void)
{
	if (cap_tls_depth > 0)
		cap_tls_depth--;
}

/* 1 when this thread may record now; starts the runtime on first use. */
static inline int cap_rt_ready(void)
{
	int st = atomic_load_explicit(&cap_g.state, memory_order_acquire);
	if (__builtin_expect(st == CAP_ST_RUNNING, 1))
		return !cap_tls_is_writer;
	/* Between capture windows every call asks: answer without a call. */
	if (st == CAP_ST_CLOSED)
		return 0;
	return cap_rt_ready_slow_();
}

static inline int cap_active_inline(void)
{
	return cap_rt_ready();
}

static inline size_t cap_rt_entry_size(size_t body)
{
	return (sizeof(cap_entry) + body + 7) & ~(size_t)7;
}

static inline void cap_rt_publish(cap_thread *t, cap_entry *e)
{
	t->wpos += e->size;
	atomic_store_explicit(&t->tail->committed, t->wpos, memory_order_release);
}

/* Take the seq of a record entry whose kind, type and key are filled in,
 * with `head` body bytes before its len payload (or raw) bytes, and
 * publish it. */
static inline uint64_t cap_rt_seal_entry(cap_thread *t, cap_entry *e, size_t head, size_t len)
{
	uint64_t lb, seq;
	if (e->type >= SBT_TYPE_FIRST_API &&
	    !atomic_load_explicit(&cap_g.win_api_seen, memory_order_relaxed))
		atomic_store_explicit(&cap_g.win_api_seen, 1, memory_order_relaxed);
	e->len = len;
	e->size = cap_rt_entry_size(head + len);
	/* Advertise a lower bound of the seq about to be taken (see
	 * cap_internal.h): the writer emits nothing at or above it until the
	 * record is published.  A release store is enough: the writer loads
	 * the counter (acquire) before this bound, so a writer that sees the
	 * seq taken below also sees the bound (the counter's RMWs form one
	 * release sequence), and one that does not uses a lower counter. */
	lb = atomic_load_explicit(&cap_g.next_seq, memory_order_relaxed);
	atomic_store_explicit(&t->inflight, lb, memory_order_release);
	seq = atomic_fetch_add(&cap_g.next_seq, 1);
	e->seq = seq;
	e->time_ns = cap_now_inline() - cap_g.start_mono_ns;
	cap_rt_publish(t, e);
	atomic_store_explicit(&t->inflight, 0, memory_order_release);
	return seq;
}

/* Whether a record with these flags takes a host stack (the policy). */
static inline int cap_rt_wants_stack(unsigned flags)
{
	cap_stacks_mode m = cap_g.cfg.stacks;
	return m == CAP_STACKS_ALL || (m == CAP_STACKS_WORK && (flags & CAP_REC_WORK));
}

/* cap_record_begin_deferred, inline where it can be (see the top). */
static inline uint8_t *cap_fast_begin_deferred(uint32_t type, unsigned flags, cap_encode_fn encode,
                                               size_t max_raw, cap_rec **rec_out)
{
	cap_thread *t = cap_tls_thread;
	size_t need = cap_rt_entry_size(sizeof(cap_deferred) + max_raw);
	cap_entry *e;
	if (__builtin_expect(!t || cap_tls_gen != cap_g.generation || t->in_record ||
	                         atomic_load_explicit(&cap_g.state, memory_order_acquire) !=
	                             CAP_ST_RUNNING ||
	                         cap_tls_is_writer || cap_rt_wants_stack(flags) ||
	                         t->tail->cap - t->wpos < need,
	                     0))
		return cap_record_begin_deferred(type, flags, encode, max_raw, rec_out);
	e = (cap_entry *)(t->tail->data + t->wpos);
	e->size = need;
	e->kind = CAP_ENT_DEFERRED;
	e->type = type;
	e->key = 0;
	((cap_deferred *)(e + 1))->encode = encode;
	t->in_record = 1;
	t->rec.thread = t;
	t->rec.entry = e;
	t->rec.max_len = max_raw;
	t->rec.head = sizeof(cap_deferred);
	*rec_out = &t->rec;
	return (uint8_t *)(e + 1) + sizeof(cap_deferred);
}

/* cap_record_commit, inline (any record begun by cap_record_begin*). */
static inline uint64_t cap_fast_commit(cap_rec *rec, size_t len)
{
	cap_thread *t = rec->thread;
	uint64_t seq;
	if (__builtin_expect(len > rec->max_len, 0))
		return cap_record_commit(rec, len);
	seq = cap_rt_seal_entry(t, rec->entry, rec->head, len);
	t->in_record = 0;
	return seq;
}

#endif /* TRACESMITH_CAP_FAST_H */
