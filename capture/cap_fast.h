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
 *   cap_fast_record_deferred                 = both, for a small raw record
 *                                              copied in one call (or 0:
 *                                              the caller takes them)
 *   cap_fast_reserve_deferred / cap_fast_seal_deferred
 *                                            = the same in two halves, the
 *                                              raw bytes written in place
 *                                              between them, with no call
 *                                              (_coarse: the entry bare, the
 *                                              counter read once in 16
 *                                              records)
 *
 * The fast paths apply when this thread is registered, the runtime is
 * running, the record is not nested, no host stack is wanted for it and the
 * thread's block has room, all asked by one compare with the thread's word
 * for the record's class (cap_rt_fast_ok); the fast commit is the
 * runtime's own seal (cap_rt_seal_entry, shared with cap_runtime.c, not a
 * copy).  A registered thread (cap_tls_thread not cap_thread_none) is
 * never the writer, which never records, and belongs to this process
 * image: a fork child clears the forking thread's (cap_rt_atfork_child),
 * the only thread it has.  The state these read is described in
 * cap_internal.h; nothing here takes a lock or makes a call (the time is a
 * counter read where the CPU allows, cap_clock.h).  After the trace is
 * finished at exit (CAP_ST_LATE) the state is not running, so every word
 * is 0 and the begin is the out-of-line one, which sets max_len 0, and the
 * commit goes out of line too and writes the record (cap_internal.h,
 * cap_rec).
 */
#ifndef TRACESMITH_CAP_FAST_H
#define TRACESMITH_CAP_FAST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capture/cap.h"
#include "capture/cap_clock.h"
#include "capture/cap_internal.h"

extern CAP_TLS cap_thread *cap_tls_thread;
extern CAP_TLS int cap_tls_depth;

/* The out-of-line answer of cap_active for a state other than running. */
int cap_rt_ready_slow_(void);

static inline int cap_enter_inline(void)
{
	return cap_tls_depth++ > 0;
}

/* After cap_enter_inline, always: a wrapper pairs the two on every path
 * (the public cap_leave also stands an unpaired call). */
static inline void cap_leave_inline(void)
{
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

/* Publishes t's entry e of `size` bytes, the entry at its cursor (closed):
 * the cursor moves past it, and the writer is told so (cap_internal.h's
 * top).  From e, which the caller holds, not from wptr: no load. */
static inline void cap_rt_publish_size(cap_thread *t, cap_entry *e, size_t size)
{
	uintptr_t end = (uintptr_t)e + size;
	t->wptr = end;
	atomic_store_explicit(&t->committed, end, memory_order_release);
}

static inline void cap_rt_publish(cap_thread *t, cap_entry *e)
{
	cap_rt_publish_size(t, e, e->size);
}

/* Records sealed by cap_fast_seal_deferred_coarse for one read of the
 * counter. */
#define CAP_COARSE_EVERY 16
/* How far ahead of its record cap_fast_seal_deferred_coarse asks for the
 * thread's next lines (512 to 2048 measured the same). */
#define CAP_PREFETCH_AHEAD 1024

/* Take the seq of a record entry whose kind, type and key are filled in,
 * with `head` body bytes before its len payload (or raw) bytes, and
 * publish it.  tsc (a constant): the caller knows the clock is the counter
 * (cap_clock_g.tsc), so the time is read without the call-taking branch. */
static inline __attribute__((always_inline)) uint64_t
cap_rt_seal_entry_clock(cap_thread *t, cap_entry *e, size_t head, size_t len, int tsc)
{
	size_t size = cap_rt_entry_size(head + len);
	uint64_t seq;
	e->len = len;
	e->size = size;
	/* Every seq taken is published just below, so the seqs in the chains
	 * have no gap and the writer emits the next one only when it is
	 * there (cap_internal.h): nothing to advertise, and the counter's
	 * increment orders nothing else. */
	seq = atomic_fetch_add_explicit(&cap_g.next_seq, 1, memory_order_relaxed);
	e->seq = seq;
	/* the writer makes it ns since the header */
	if (tsc) {
		cap_clock_rdtscp_to(&e->time_ns);
	} else {
		e->time_ns = cap_clock_read();
	}
	cap_rt_publish_size(t, e, size);
	return seq;
}


static inline uint64_t cap_rt_seal_entry(cap_thread *t, cap_entry *e, size_t head, size_t len)
{
	return cap_rt_seal_entry_clock(t, e, head, len, 0);
}

/* Whether a record with these flags takes a host stack (the policy). */
static inline int cap_rt_wants_stack(unsigned flags)
{
	cap_stacks_mode m = cap_g.cfg.stacks;
	return m == CAP_STACKS_ALL || (m == CAP_STACKS_WORK && (flags & CAP_REC_WORK));
}

/* The class of a fast record (cap_internal.h, CAP_FAST_*): a constant
 * where flags and tsc are. */
static inline __attribute__((always_inline)) int cap_rt_fast_class(unsigned flags, int tsc)
{
	return ((flags & CAP_REC_WORK) ? CAP_FAST_WORK : 0) | (tsc ? CAP_FAST_TSC : 0);
}

/* Whether a record of `need` entry bytes may take the fast path on the
 * thread t (cap_tls_thread; see the top), its time read inline from the
 * counter when tsc (a constant).  One compare: the room with the thread's
 * word of the record's class (t->fast_end[i], cap_internal.h), which is
 * 0 unless the session runs and its fixed settings allow the class (no
 * stack wanted, the counter), and the cursor wptr, which an open record
 * makes too large for any word; an unregistered thread's t is
 * cap_thread_none, whose words and cursor are 0.  Kept by cap_runtime.c. */
static inline __attribute__((always_inline)) int cap_rt_fast_ok(const cap_thread *t,
                                                                unsigned flags, int tsc,
                                                                size_t need)
{
	uintptr_t end = atomic_load_explicit(&t->fast_end[cap_rt_fast_class(flags, tsc)],
	                                     memory_order_relaxed);
	return (intptr_t)(end - t->wptr) >= (intptr_t)need;
}

/* cap_record_begin_deferred, inline where it can be (see the top). */
static inline uint8_t *cap_fast_begin_deferred(uint32_t type, unsigned flags, cap_encode_fn encode,
                                               size_t max_raw, cap_rec **rec_out)
{
	cap_thread *t = cap_tls_thread;
	size_t need = cap_rt_entry_size(sizeof(cap_deferred) + max_raw);
	cap_entry *e;
	if (__builtin_expect(!cap_rt_fast_ok(t, flags, 0, need), 0))
		return cap_record_begin_deferred(type, flags, encode, max_raw, rec_out);
	e = (cap_entry *)t->wptr;
	e->size = need;
	e->kind = CAP_ENT_DEFERRED;
	e->type = type;
	e->key = 0;
	((cap_deferred *)(e + 1))->encode = encode;
	cap_rt_record_open(t);
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
	if (__builtin_expect(len > rec->max_len, 0))
		return cap_record_commit(rec, len);
	cap_rt_record_close(t);
	return cap_rt_seal_entry(t, rec->entry, rec->head, len);
}

/* memcpy for a record's small parts (argument structs, a few values):
 * 8 to 64 bytes as overlapping 8- and 16-byte moves, without a call. */
static inline __attribute__((always_inline)) void cap_copy_small(uint8_t *dst, const void *src,
                                                                 size_t n)
{
	const uint8_t *s = src;
	uint64_t w0, w1;
	struct cap_copy16 {
		uint64_t a, b;
	} q0, q1, q2, q3;
	if (n >= 8 && n <= 16) {
		memcpy(&w0, s, 8);
		memcpy(&w1, s + n - 8, 8);
		memcpy(dst, &w0, 8);
		memcpy(dst + n - 8, &w1, 8);
	} else if (n > 16 && n <= 32) {
		memcpy(&q0, s, 16);
		memcpy(&q1, s + n - 16, 16);
		memcpy(dst, &q0, 16);
		memcpy(dst + n - 16, &q1, 16);
	} else if (n > 32 && n <= 64) {
		memcpy(&q0, s, 16);
		memcpy(&q1, s + 16, 16);
		memcpy(&q2, s + n - 32, 16);
		memcpy(&q3, s + n - 16, 16);
		memcpy(dst, &q0, 16);
		memcpy(dst + 16, &q1, 16);
		memcpy(dst + n - 32, &q2, 16);
		memcpy(dst + n - 16, &q3, 16);
	} else if (n) {
		memcpy(dst, src, n);
	}
}

/*
 * One deferred record (cap_record_begin_deferred's) whose raw bytes are
 * the 8 bytes of `word`, the a_len bytes at a and the b_len bytes at b
 * (cap_copy_small), reserved, copied, numbered and published here, with no
 * pending-record state: nothing else is recorded on this thread between
 * the reservation and the publication.  Returns 1, or 0 when the fast
 * path does not apply (see the top): the caller then records the same
 * through cap_record_begin_deferred, which handles every case.
 */
static inline __attribute__((always_inline)) int
cap_fast_record_deferred(uint32_t type, unsigned flags, cap_encode_fn encode, uint64_t word,
                         const void *a, size_t a_len, const void *b, size_t b_len)
{
	cap_thread *t = cap_tls_thread;
	size_t len = sizeof(word) + a_len + b_len;
	cap_entry *e;
	uint8_t *raw;
	if (__builtin_expect(
	        !cap_rt_fast_ok(t, flags, 0, cap_rt_entry_size(sizeof(cap_deferred) + len)), 0))
		return 0;
	e = (cap_entry *)t->wptr;
	e->kind = CAP_ENT_DEFERRED;
	e->type = type;
	e->key = 0;
	((cap_deferred *)(e + 1))->encode = encode;
	raw = (uint8_t *)(e + 1) + sizeof(cap_deferred);
	memcpy(raw, &word, sizeof(word));
	memcpy(raw + sizeof(word), a, a_len);
	cap_copy_small(raw + sizeof(word) + a_len, b, b_len);
	cap_rt_seal_entry(t, e, sizeof(cap_deferred), len);
	return 1;
}

/*
 * The same record with its raw bytes written in place by the caller, for a
 * path that must make no call (none of its values kept across one): the
 * record's time is the counter, read inline, so this applies only where
 * the clock is the counter (cap_clock_g.tsc).  cap_fast_reserve_deferred
 * reserves room for up to max_len raw bytes and fills the entry's header:
 * it returns where the raw bytes go, with the thread and the entry for the
 * seal in *t_out and *e_out, or NULL when the path does not apply (see the
 * top, and the clock): the caller then records the same through
 * cap_record_begin_deferred (or cap_fast_record_deferred), which handle
 * every case.  cap_fast_seal_deferred numbers the record of len bytes (at
 * most max_len) and publishes it.  Nothing else is recorded on this thread
 * between the two; a reservation never sealed leaves nothing behind.
 */
static inline __attribute__((always_inline)) uint8_t *
cap_fast_reserve_deferred_(cap_thread **t_out, cap_entry **e_out, uint32_t kind, uint32_t type,
                           unsigned flags, cap_encode_fn encode, size_t max_len)
{
	cap_thread *t = cap_tls_thread;
	size_t need = cap_rt_entry_size(sizeof(cap_deferred) + max_len);
	cap_entry *e;
	if (kind == CAP_ENT_DEFERRED_BARE) { /* a constant: the short head, room for a time */
		need = cap_rt_bare_size(max_len) + 8;
		/* its len and type go in the kind word (cap_internal.h): constants
		 * for the Vulkan layer, so the check folds away */
		if (max_len > CAP_ENT_BARE_LEN_MAX || type > CAP_ENT_BARE_TYPE_MAX)
			return NULL;
	}
	if (__builtin_expect(!cap_rt_fast_ok(t, flags, 1, need), 0))
		return NULL;
	/* wptr read again rather than kept from the compare: for a caller
	 * whose arguments are still in registers (a Vulkan wrapper's six),
	 * gcc 12 otherwise saved a register for one (a push and a pop, and a
	 * move each way) to keep the cursor across the header's stores. */
	__asm__("" : "+m"(t->wptr));
	e = (cap_entry *)t->wptr;
	*t_out = t;
	*e_out = e;
	if (kind == CAP_ENT_DEFERRED_BARE) /* a constant: no key, no encoder; the kind word at the seal */
		return (uint8_t *)e + CAP_ENT_BARE_HEAD;
	e->type = type;
	e->kind = kind;
	e->key = 0;
	((cap_deferred *)(e + 1))->encode = encode;
	return (uint8_t *)(e + 1) + sizeof(cap_deferred);
}

static inline __attribute__((always_inline)) uint8_t *
cap_fast_reserve_deferred(cap_thread **t_out, cap_entry **e_out, uint32_t type, unsigned flags,
                          cap_encode_fn encode, size_t max_len)
{
	return cap_fast_reserve_deferred_(t_out, e_out, CAP_ENT_DEFERRED, type, flags, encode,
	                                  max_len);
}

/* The same for cap_fast_seal_deferred_coarse, the only seal it takes: the
 * entry reserved bare (CAP_ENT_DEFERRED_BARE: the short head, no time, no
 * key, no encoder: the writer encodes the raw bytes with the front-end's
 * cap_set_bare_encoder; the Vulkan layer's record-first wrappers), with
 * room for a time after it.  NULL also where type is above
 * CAP_ENT_BARE_TYPE_MAX or max_len above CAP_ENT_BARE_LEN_MAX; the seal
 * is given the same type. */
static inline __attribute__((always_inline)) uint8_t *
cap_fast_reserve_deferred_coarse(cap_thread **t_out, cap_entry **e_out, uint32_t type,
                                 unsigned flags, size_t max_len)
{
	return cap_fast_reserve_deferred_(t_out, e_out, CAP_ENT_DEFERRED_BARE, type, flags, NULL,
	                                  max_len);
}

static inline __attribute__((always_inline)) void cap_fast_seal_deferred(cap_thread *t,
                                                                         cap_entry *e, size_t len)
{
	cap_rt_seal_entry_clock(t, e, sizeof(cap_deferred), len, 1);
}

/*
 * cap_fast_seal_deferred for records whose own time says little (a
 * vkCmd* recorded into a command buffer, which runs when it is submitted),
 * reserved by cap_fast_reserve_deferred_coarse: the counter is read for
 * one record in CAP_COARSE_EVERY of this thread's, and the others store
 * no time (nor a stack key: the kind says there is none) and take their
 * thread's previous record's (the writer's cap_wr_time_prev), which is
 * also what the last value read would give them: the writer makes a
 * record's time no earlier than its thread's previous record's.  The
 * counter's read (RDTSCP) was 15 to 25 ns of the about 90 a vkCmd* cost
 * under capture on the H100's machine (docs/benchmarks.md).
 */
static inline __attribute__((always_inline)) void
cap_fast_seal_deferred_coarse(cap_thread *t, cap_entry *e, uint32_t type, size_t len)
{
	size_t size = cap_rt_bare_size(len);
	/* stored now, and made BARE_T in memory below: a kind kept in a
	 * register across RDTSCP, which takes three, cost a saved one (a
	 * push and a pop on every record) */
	e->kind = cap_ent_bare_word(CAP_ENT_DEFERRED_BARE, len, type);
	/* no gap in the seqs (cap_rt_seal_entry_clock); the low half only,
	 * which the writer completes (cap_ent_seq) */
	e->seq32 = (uint32_t)atomic_fetch_add_explicit(&cap_g.next_seq, 1, memory_order_relaxed);
	/* one decrement in memory and its sign: a new thread's 0 reads at
	 * once, then CAP_COARSE_EVERY - 1 records stay bare; the one that
	 * reads the counter stores it after its body (BARE_T) */
	if (__builtin_expect(--t->coarse_left < 0, 0)) {
		cap_clock_rdtscp_to((uint64_t *)(void *)((uint8_t *)e + size));
		size += 8;
		e->kind += CAP_ENT_DEFERRED_BARE_T - CAP_ENT_DEFERRED_BARE; /* the low bits only */
		t->coarse_left = CAP_COARSE_EVERY - 1;
	}
	/* The line CAP_PREFETCH_AHEAD bytes on, asked for now: a thread
	 * recording faster than the writer drains writes into memory not in
	 * its cache, and each line it reaches unasked costs a read from
	 * memory while the command waits (docs/benchmarks.md, the H100's
	 * vk_callbound).  A hint: never a fault, past the block's end too;
	 * gcc emits prefetcht0 for it on baseline x86-64 (what was measured). */
	__builtin_prefetch((const uint8_t *)e + CAP_PREFETCH_AHEAD, 1, 3);
	cap_rt_publish_size(t, e, size);
}

#endif /* TRACESMITH_CAP_FAST_H */
