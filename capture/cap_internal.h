/*
 * cap_internal.h - the capture runtime's shared state, seen only by
 * the .c files of capture/.  cap.h is the contract; this is how it is kept.
 *
 * Threading design (docs/capture.md says the same for readers):
 *
 *   Every application thread that records owns one cap_thread: a chain of
 *   blocks it appends entries to.  The thread is the only producer of its
 *   chain and the writer thread its only consumer (SPSC): the producer
 *   writes an entry at its cursor (`wptr`, a pointer into its last block),
 *   then publishes it with a release store of the cursor past it into the
 *   thread's `committed` (a line of its own); the writer reads `committed`
 *   with an acquire load and consumes up to it while it points into the
 *   block it reads.  A full block gets its final size in the block's own
 *   `committed`, then `next`, then is `sealed` (release), and only then
 *   does the thread's `committed` move to the new block's start (release):
 *   a `committed` outside the writer's block tells it the block is sealed,
 *   and the writer moves on only once it has read every byte of it.
 *
 *   Threads are pushed onto g->threads with a CAS (lock-free); only the
 *   writer ever unlinks a node (a dead thread whose chain is drained).
 *
 *   Sequence numbers come from one atomic counter, taken only as a record
 *   is sealed and published a few instructions later, on every path
 *   (cap_rt_seal_entry_clock): the seqs in the chains have no gap.  The
 *   writer merges the threads' next records in seq order and emits the
 *   next one only when it is the seq it expects; one still missing is
 *   being sealed on its thread and comes in a later round.  So records
 *   reach sbt_writer_append in ascending order with no gap, and a producer
 *   advertises nothing besides its committed cursor.
 *
 *   Deferred records (cap_record_begin_deferred): the entry's body is a
 *   cap_deferred naming the front-end's encoder, then the raw bytes; the
 *   writer encodes them as it emits the record (cap_wr_emit), so the
 *   order and watermark above are those of every record.
 *
 *   Memory bound: g->buffered counts the bytes of the blocks in the
 *   chains (added by the producer when it links a block, taken off by the
 *   writer when it is done with one), so the recording path touches it once
 *   per block, not once per record.  A producer that needs a new block past
 *   the bound waits on stall_cv before it takes a sequence number (so a
 *   waiting producer never holds the watermark back), and the writer
 *   broadcasts as it releases blocks.  A thread's last block cannot be
 *   released while the thread may still append to it, so when every chain
 *   is drained and the bound is still reached (many threads, a small bound)
 *   the writer bumps g->drained and waiting producers go ahead.
 *
 *   Spare blocks: the writer hands drained 64 KiB blocks back to their
 *   thread (t->spare, a stack only the writer pushes onto and only the
 *   producer empties, all at once) instead of unmapping them, so steady
 *   recording maps none of its blocks (blocks are mmap'ed, never malloc'ed:
 *   cap_rt_block_new says why); g->spare_bytes caps what is kept that way.  Larger blocks (an entry above 64 KiB: a CUDA
 *   keyframe's chunk, a module image) of at most CAP_SPARE_BIG_MAX bytes are
 *   kept per thread too (t->spare_big[], each slot swapped whole by either
 *   side), so a keyframe's chunks reuse a block instead of mapping and
 *   faulting in a new one each.  The first slot takes any such block; the other
 *   CAP_SPARE_BIG_SLOTS - 1 only blocks of at most CAP_SPARE_BIG_MORE_MAX
 *   bytes (so at most 24 MiB more kept idle per thread): a producer that
 *   stores one such entry per submit (the Vulkan layer's mapped-memory
 *   publishes, up to 4 MiB each) has several in flight while the writer
 *   drains them: with one slot it mapped and faulted in a new block at
 *   most submits (docs/benchmarks.md, sparse, 2026-11-27).  A thread that
 *   finds none to take wakes the writer (cap_rt_block_take), so that the
 *   ones it has moved past come back soon.
 *
 *   Warm blocks: a new block's pages are faulted in when first written,
 *   and on the machines measured (virtual machines, an H100's among them)
 *   that costs 0.5 to 1.5 ns a byte, several times what a fast driver
 *   spends on a vkCmd*: a thread recording faster than the writer drains
 *   paid it on every block.  The writer keeps g->warm, a stack of free
 *   default-size blocks it has mapped and written a byte of every page
 *   of (and drained blocks past CAP_SPARE_MAX go there too), topped up to
 *   g->warm_target blocks at the start of each round and whenever a
 *   producer takes the last ones.  A producer with no spare of its own
 *   takes one from it under warm_mu (one lock a block, not a record); only
 *   when it is empty does it map a block itself (a miss, counted).  The
 *   target is CAP_WARM_DEFAULT or TRACESMITH_WARM_MB, at most a quarter of
 *   the memory bound.  Warm blocks are free memory: not counted in
 *   g->buffered.
 *
 *   After the trace is finished at exit (CAP_ST_LATE): there is no writer
 *   thread.  Records still go into the chains as above; the thread that
 *   seals one then runs a writer round itself, under late_mu, with the
 *   writer's context the thread left behind, and finishes the file again
 *   (cap_writer_late_write_).  A record whose seq is not below the
 *   watermark yet is written by its own thread's round, which follows.
 *   While the runtime's last exit handler is still to run (late_batch,
 *   during the destructors) records wait in the chains for its round.
 *
 * Locks: start_mu (session start/stop), reg_mu (type/meta registry and
 * shutdown callbacks), stall_mu/stall_cv (producers over the memory bound),
 * flush_mu/flush_cv (cap_flush callers), late_mu (writing after the
 * finish at exit; held by shutdown from the state change until the writer
 * thread has finished the file).  None is taken on the recording fast
 * path.
 */
#ifndef TRACESMITH_CAP_INTERNAL_H
#define TRACESMITH_CAP_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/cap.h"
#include "tracesmith/sbt.h"
#include "tracesmith/version.h"

#define CAP_VERSION TRACESMITH_VERSION /* one definition: tracesmith/version.h */

/* Default block payload size; an entry larger than this gets a block of
 * its own size. */
#define CAP_BLOCK_BYTES (64u * 1024u)
#define CAP_SPARE_BIG_MAX (64u << 20) /* the largest block kept as t->spare_big */
#define CAP_SPARE_BIG_SLOTS 4u
#define CAP_SPARE_BIG_MORE_MAX (8u << 20) /* the largest kept in slots past the first */
/* What a block costs against the memory bound: its payload and header. */
#define CAP_BLOCK_COST(cap) ((uint64_t)(cap) + sizeof(cap_block))
/* Most bytes of drained blocks kept for reuse, over all threads. */
#define CAP_SPARE_MAX (16u << 20)
/* Warm blocks kept ready by default (cap_internal.h, "Warm blocks"),
 * never above a quarter of the memory bound. */
#define CAP_WARM_DEFAULT (16u << 20)
/* Deepest host stack kept. */
#define CAP_STACK_MAX 64
/* Per-thread cache of stack hashes already sent (direct-mapped). */
#define CAP_STACK_CACHE 256

/* Entry kinds inside a thread's block chain. */
enum {
	CAP_ENT_RECORD = 1,
	CAP_ENT_BLOB = 2,
	CAP_ENT_STACK = 3,
	CAP_ENT_DEFERRED = 4, /* a record in its front-end's raw form */
	CAP_ENT_PAGES = 5,    /* a blob as page hashes (cap_blob_pages) */
	CAP_ENT_PIECES = 6,   /* a blob gathered from pieces (cap_blob_begin) */
	CAP_ENT_DEFERRED_BARE = 7, /* DEFERRED with the short head: no size,
	                              len, time_ns or key (its len and type in
	                              the kind word, the low half of its seq
	                              after it: cap_fast_seal_deferred_coarse) */
	CAP_ENT_DEFERRED_BARE_T = 8 /* the same, its time in its last 8 bytes */
};
/* The bits of an entry's kind word that hold its kind; a bare entry keeps
 * its len in the next CAP_ENT_BARE_LEN_BITS and its type in the
 * CAP_ENT_BARE_TYPE_BITS above them (cap_entry). */
#define CAP_ENT_KIND_BITS 8
#define CAP_ENT_BARE_LEN_BITS 11
#define CAP_ENT_BARE_TYPE_BITS 13
#define CAP_ENT_BARE_LEN_MAX ((1u << CAP_ENT_BARE_LEN_BITS) - 1)
#define CAP_ENT_BARE_TYPE_MAX ((1u << CAP_ENT_BARE_TYPE_BITS) - 1)
#define CAP_ENT_BARE_TYPE_SHIFT (CAP_ENT_KIND_BITS + CAP_ENT_BARE_LEN_BITS)
_Static_assert(CAP_ENT_BARE_TYPE_SHIFT + CAP_ENT_BARE_TYPE_BITS == 32,
               "a bare entry's kind word is its kind, len and type");

/*
 * Every entry starts with this header (a bare one with its first
 * CAP_ENT_BARE_HEAD bytes only, see below); the body follows and the
 * whole is padded to 8 bytes.  time_ns: a record's cap_clock_read() (the counter or
 * CLOCK_MONOTONIC ns, cap_clock.h), which the writer turns into ns since
 * its file's header.  RECORD: key = stack hash (0: none), len = payload
 * bytes.  BLOB: key = blob id, len = data bytes.  STACK: key = hash of the
 * frames, len = frame count, body = uint64_t ips.  DEFERRED: as RECORD,
 * but the body is a cap_deferred and then len raw bytes, which the writer
 * encodes into the payload (cap_record_begin_deferred).  DEFERRED_BARE:
 * as DEFERRED, but the header is its first CAP_ENT_BARE_HEAD (8) bytes:
 * the kind word (the kind in its low CAP_ENT_KIND_BITS, then the len in
 * CAP_ENT_BARE_LEN_BITS, then the type in CAP_ENT_BARE_TYPE_BITS: a bare
 * entry is a small record of a front-end's own type,
 * cap_fast_reserve_deferred_coarse refuses others) and, where other
 * entries keep their type, the low 32 bits of its seq (seq32), which the
 * writer completes from the seq it expects next (cap_ent_seq); its size
 * follows from len (cap_ent_bytes); the raw bytes follow them
 * with no encoder (the writer encodes them with the front-end's
 * cap_set_bare_encoder, given the type), and the record has no stack: its
 * time is its thread's previous record's.  DEFERRED_BARE_T:
 * the same, with the record's time (as time_ns) in the entry's last 8
 * bytes, after the padding.  cap_fast_seal_deferred_coarse reads the
 * counter once in CAP_COARSE_EVERY records and makes that one BARE_T, the
 * others BARE: 56 bytes less memory for a recorded vkCmd* than a DEFERRED
 * entry (the size and len, the unwritten time and key, the encoder, the
 * seq's high half, and the Vulkan layer's [u32 cmd][u32 ptr_off], which
 * its bare encoder finds from the type; 56 bytes for a vkCmdPushConstants
 * of 16, whose raw form also leaves its array pointer out, where that was
 * 120), and no time for the writer to convert.  Only the writer reads an
 * entry's kind, size, len, type and seq, through cap_ent_kind,
 * cap_ent_len, cap_ent_bytes, cap_ent_type and cap_ent_seq (cap_wr_emit
 * through their parts, each read once).  PAGES: key =
 * blob id, len = blob bytes; the body is a cap_pages_head, then npages
 * (low64, high64) XXH3-128 page hashes, then npages bytes (1: the page's
 * bytes follow) padded to 8, then the bytes of those pages back to back.
 * PIECES: key = blob id, len = blob bytes, type = npieces; the body is
 * the bytes, padded to 8, then npieces uint64_t piece lengths (adding up
 * to len).
 */
typedef struct cap_entry {
	uint32_t kind;    /* a bare entry's len and type above CAP_ENT_KIND_BITS */
	union {
		uint32_t type;
		uint32_t seq32; /* a bare entry's: its seq's low 32 bits */
	};
	/* a bare entry's header ends here (CAP_ENT_BARE_HEAD) */
	uint64_t seq;
	uint64_t size;    /* whole entry, header and padding included */
	uint64_t len;
	uint64_t time_ns;
	uint64_t key;
} cap_entry;
_Static_assert(sizeof(cap_entry) == 48, "cap_entry is 48 bytes, 8-aligned");
/* The header of a DEFERRED_BARE(_T) entry: the kind word (kind, len,
 * type) and seq32. */
#define CAP_ENT_BARE_HEAD offsetof(cap_entry, seq)
_Static_assert(CAP_ENT_BARE_HEAD == 8, "a bare entry's header is 8 bytes, 8-aligned");

/* The size of a bare entry (CAP_ENT_DEFERRED_BARE) with body bytes after
 * its short header; a BARE_T one is 8 bytes more. */
static inline size_t cap_rt_bare_size(size_t body)
{
	return (CAP_ENT_BARE_HEAD + body + 7) & ~(size_t)7;
}

/* The kind word of a bare entry of len raw bytes (at most
 * CAP_ENT_BARE_LEN_MAX) and a type of at most CAP_ENT_BARE_TYPE_MAX. */
static inline uint32_t cap_ent_bare_word(uint32_t kind, size_t len, uint32_t type)
{
	/* an add: a len of a constant and n bytes is then n shifted and one
	 * constant (kind and type) added */
	return ((uint32_t)len << CAP_ENT_KIND_BITS) + ((type << CAP_ENT_BARE_TYPE_SHIFT) + kind);
}

/* What the writer reads of an entry: its kind, its len, its size. */
static inline uint32_t cap_ent_kind(const cap_entry *e)
{
	return e->kind & ((1u << CAP_ENT_KIND_BITS) - 1);
}

/* The same from a kind the caller has read (cap_wr_emit reads it once). */
static inline int cap_ent_kind_bare(uint32_t kind)
{
	return kind == CAP_ENT_DEFERRED_BARE || kind == CAP_ENT_DEFERRED_BARE_T;
}

static inline size_t cap_ent_bare_bytes(uint32_t kind, size_t len)
{
	return cap_rt_bare_size(len) + (kind == CAP_ENT_DEFERRED_BARE_T ? 8 : 0);
}

/* A bare entry's len, from its kind word. */
static inline size_t cap_ent_bare_len(const cap_entry *e)
{
	return (size_t)((e->kind >> CAP_ENT_KIND_BITS) & CAP_ENT_BARE_LEN_MAX);
}

/* A bare entry's seq from its seq32, given a seq `base` at most its own
 * and less than 2^32 below it: the writer's next expected seq, which no
 * record still in the chains is below, and which fewer than 2^31 records
 * are ahead of (each entry takes at least 8 bytes of the memory bound,
 * which is at most 16 GiB: cap_config.c). */
static inline uint64_t cap_ent_bare_seq(uint32_t seq32, uint64_t base)
{
	return base + (uint32_t)(seq32 - (uint32_t)base);
}

static inline int cap_ent_bare(const cap_entry *e)
{
	return cap_ent_kind_bare(cap_ent_kind(e));
}

/* An entry's type and seq (see cap_ent_bare_seq for base) as the writer
 * reads them. */
static inline uint32_t cap_ent_type(const cap_entry *e)
{
	return cap_ent_bare(e) ? e->kind >> CAP_ENT_BARE_TYPE_SHIFT : e->type;
}

static inline uint64_t cap_ent_seq(const cap_entry *e, uint64_t base)
{
	return cap_ent_bare(e) ? cap_ent_bare_seq(e->seq32, base) : e->seq;
}

static inline size_t cap_ent_len(const cap_entry *e)
{
	return cap_ent_bare(e) ? cap_ent_bare_len(e) : (size_t)e->len;
}

static inline size_t cap_ent_bytes(const cap_entry *e)
{
	if (!cap_ent_bare(e))
		return (size_t)e->size;
	return cap_ent_bare_bytes(cap_ent_kind(e), cap_ent_bare_len(e));
}

/* The head of a DEFERRED entry's body. */
typedef struct cap_deferred {
	cap_encode_fn encode;
} cap_deferred;
_Static_assert(sizeof(cap_deferred) == 8, "a deferred record's raw bytes stay 8-aligned");

typedef struct cap_pages_head {
	uint32_t npages;
	uint32_t page_bytes;
} cap_pages_head;
_Static_assert(sizeof(cap_pages_head) == 8, "a PAGES entry's hashes stay 8-aligned");

/* Blob page size of every file the runtime writes (the serializer's
 * default, set explicitly so that cap_blob_pages hashes the writer's pages). */
#define CAP_PAGE_BYTES (64u << 10)
/* Page hashes a thread remembers having sent to the current file
 * (direct-mapped, 16 bytes each: 256 K pages, 16 GiB of 64 KiB pages). */
#define CAP_PAGE_CACHE (1u << 18)

typedef struct cap_block {
	struct cap_block *next;       /* set by the producer before `sealed`; in a
	                                 spare stack, the next spare */
	size_t cap;                   /* bytes in data[] */
	/* bytes in data[] the writer reads: stored by the producer as it
	 * moves past the block, before `sealed`; until then the thread's
	 * `committed` says how far the writer may read */
	_Atomic size_t committed;
	atomic_int sealed;            /* 1: producer moved to next */
	int mapped;                   /* 1: mmap'ed; 0: malloc'ed (mmap failed) */
	_Alignas(8) uint8_t data[];
} cap_block;

/* Unmap (or free) a block of cap_runtime.c's; NULL is a no-op. */
void cap_block_free_(cap_block *b);
/* The writer: fault in and stack warm blocks up to the target; put a
 * drained default-size block there instead (1) when below it (0: not
 * taken). */
void cap_warm_fill_(void);
int cap_warm_give_(cap_block *b);

/* The pending record between cap_record_begin and cap_record_commit. */
struct cap_rec {
	struct cap_thread *thread;
	cap_entry *entry;
	size_t max_len;
	size_t head;                  /* body bytes before the payload (cap_deferred) */
	/* CAP_ST_LATE: max_len is 0 and late_max the bytes reserved, so that
	 * cap_fast_commit takes the out-of-line commit, which writes the record
	 * (every payload committed through it has bytes).  Set by every
	 * out-of-line begin; the fast begin runs only while recording runs,
	 * which never follows CAP_ST_LATE, so it finds late 0. */
	int late;
	size_t late_max;
};

/* A cache line: what the producer writes on every record and what the
 * writer writes on every entry are kept on lines of their own (below). */
#define CAP_LINE 64

/* Classes of fast record (cap_fast.h), index into cap_g.fast_state and a
 * thread's fast_end: CAP_FAST_WORK for a CAP_REC_WORK record,
 * CAP_FAST_TSC for one whose time is the inline counter read. */
#define CAP_FAST_WORK 1
#define CAP_FAST_TSC 2
#define CAP_FAST_CLASSES 4

/*
 * A recording thread.  Its fields are grouped by who writes them and how
 * often, each group on cache lines of its own: the producer writes its
 * group on every record and the writer its group on every entry, and on
 * a fast driver (a vkCmd* of about 20 ns) a line the other side touched
 * costs the writing side a transfer between cores on every record
 * (docs/capture.md, "Buffers").  Allocated CAP_LINE-aligned
 * (cap_rt_thread).
 */
typedef struct cap_thread {
	/* written at registration; the writer reads `next` every round */
	struct cap_thread *next;      /* g->threads list; writer-owned after push */
	uint64_t tid;
	/* producer side */
	_Alignas(CAP_LINE) cap_block *tail;
	/* Where the next entry goes (tail->data + its offset), with
	 * CAP_WPTR_OPEN set between a begin and its commit (a record or a
	 * blob: the only "open record" flag, cap_rt_in_record).  Written and
	 * read by this thread only. */
	uintptr_t wptr;
	/* The fast paths' words (cap_fast.h), one per class of fast record
	 * (index CAP_FAST_WORK | CAP_FAST_TSC, as cap_g.fast_state): the end
	 * of tail's data (tail->data + tail->cap) where the class's fixed
	 * settings allow the fast path (fast_state[i] is CAP_ST_RUNNING) and
	 * the session runs, else 0, so that fast_end[i] - wptr, as a signed
	 * size, is the room a fast record of class i may take (0 or negative:
	 * none; an open record's wptr, CAP_WPTR_OPEN set, leaves none for
	 * either value of the word).  One compare then asks everything.
	 * Stored by this thread (cap_rt_fast_on_: registration, a new block,
	 * the first record after a start) and zeroed by the thread that moves
	 * the state away from running, for every thread (cap_rt_fast_stop_);
	 * read with relaxed loads (plain moves on x86) by this thread's fast
	 * checks.  Why that is enough: cap_rt_fast_on_. */
	_Atomic uintptr_t fast_end[CAP_FAST_CLASSES];
	struct cap_rec rec;
	cap_block *spare_own;         /* spares taken from `spare`, not yet used */
	uint64_t stack_cache[CAP_STACK_CACHE];
	uint64_t stack_file;          /* cap_g.file_gen the cache is valid for */
	/* cap_blob_pages: (low64, high64) hashes of pages this thread sent to
	 * file pages_file, direct-mapped by low64 (a miss only costs a copy:
	 * the writer checks every page it is told it holds), and the hashes
	 * and flags of the blob being sent.  Allocated on first use. */
	uint64_t *page_cache;
	uint64_t pages_file;
	uint8_t *page_scratch;
	size_t page_scratch_cap;
	/* cap_fast_seal_deferred_coarse: how many more records take the
	 * previous record's time before one reads the counter (one that finds
	 * 0 reads it) */
	int32_t coarse_left;
	/* Published: wptr past the thread's last published entry (never with
	 * CAP_WPTR_OPEN), stored with release by every publication and moved
	 * to a new block's start as the thread moves to it (cap_internal.h's
	 * top); loaded with acquire by the writer.  On a line of its own: the
	 * producer stores it on every record, the writer loads it whenever
	 * it has consumed what it last saw (cap_wr_peek). */
	_Alignas(CAP_LINE) _Atomic uintptr_t committed;
	/* shared, written once a block or less */
	_Alignas(CAP_LINE) atomic_int dead; /* thread exited: free once drained */
	_Atomic(cap_block *) spare;   /* drained blocks the writer gave back */
	/* drained larger blocks, each slot one or NULL */
	_Atomic(cap_block *) spare_big[CAP_SPARE_BIG_SLOTS];
	/* writer side */
	_Alignas(CAP_LINE) cap_block *head;
	size_t rpos;
	/* What the writer may read of head as it last loaded it (the
	 * thread's committed, or head's own once sealed): entries below it
	 * are read without loading the producer's line again (cap_wr_peek) */
	size_t rlimit;
	uint64_t last_mono;           /* its latest record's CLOCK_MONOTONIC time */
} cap_thread;

/* Offers drained larger block b to an empty spare slot of t (past the
 * first only a block of at most CAP_SPARE_BIG_MORE_MAX bytes): 1 when one
 * took it.  The writer (giving a drained block back) and the thread
 * (putting back one that did not fit its entry) both offer this way. */
static inline int cap_spare_big_offer(cap_thread *t, cap_block *b)
{
	unsigned slots = b->cap > CAP_SPARE_BIG_MORE_MAX ? 1 : CAP_SPARE_BIG_SLOTS;
	for (unsigned i = 0; i < slots; i++) {
		cap_block *none = NULL;
		if (atomic_compare_exchange_strong_explicit(&t->spare_big[i], &none, b,
		                                            memory_order_acq_rel, memory_order_relaxed))
			return 1;
	}
	return 0;
}

typedef enum {
	CAP_ST_IDLE = 0,      /* not started (or reset after fork) */
	CAP_ST_RUNNING = 1,
	CAP_ST_FAILED = 2,    /* trace cannot be written: recording off */
	CAP_ST_STOPPED = 3,   /* shut down */
	CAP_ST_DISABLED = 4,  /* TRACESMITH_DISABLE */
	CAP_ST_CLOSED = 5,    /* windowed, no window open: nothing recorded */
	CAP_ST_OPENING = 6,   /* a window opens or a snapshot is written: only
	                         the thread doing it records, others wait */
	CAP_ST_LATE = 7       /* the trace was finished at exit (no writer
	                         thread): a record is written, and the file
	                         finished again, by the thread that makes it */
} cap_state;

/* Type names and metadata handed to the writer (reg_mu). */
typedef struct cap_kv {
	struct cap_kv *next;
	uint32_t type;        /* for type names; 0 for metadata */
	char *key;
	char *value;          /* type name, or metadata value */
} cap_kv;

typedef struct cap_global {
	cap_config cfg;
	atomic_int state;
	/* Whether the session's fixed settings let a class of fast record
	 * (cap_fast.h) take the fast path, index CAP_FAST_WORK (a CAP_REC_WORK
	 * record) | CAP_FAST_TSC (its time the inline counter read):
	 * CAP_ST_RUNNING where the stack policy takes no stack for it and
	 * (CAP_FAST_TSC) the clock is the counter, else -1.  A thread's word
	 * of a class is its block's end only where this says so (cap_thread,
	 * fast_end).  -1 until the global init sets them
	 * (cap_rt_fast_states_set), after the configuration and the clock,
	 * neither of which changes after it.  Class 0 is allowed whenever any
	 * is (only a stack policy of all refuses it, and then every class). */
	atomic_int fast_state[CAP_FAST_CLASSES];
	uint64_t generation;          /* bumped by a fork child: stale TLS */
	pthread_mutex_t start_mu;
	pthread_key_t thread_key;

	/* the session (valid from start to stop) */
	char *path;
	int fd;
	sbt_writer *writer;
	pthread_t writer_thread;
	int writer_started;
	void *writer_stack;           /* our own mapping: see cap_rt_spawn_writer */
	/* A fork child cannot close the parent's writer (that would write to the
	 * parent's file) and there is no API to free it unwritten: it is kept
	 * here, reachable, instead of leaked (a chain of forks keeps the last 8). */
	sbt_writer *abandoned[8];
	uint64_t start_mono_ns, start_wall_ns;
	_Atomic uint64_t next_seq;    /* from 1 */
	_Atomic(cap_encode_type_fn) bare_encode; /* cap_set_bare_encoder's */
	_Atomic uint64_t next_blob;   /* from 1 */
	_Atomic(cap_thread *) threads;
	atomic_int stopping;          /* writer: final drain and close */
	atomic_int dropped_warned;

	/* fork: the writer works holding fork_mu and lets go of it between
	 * rounds; a forking thread takes it (pthread_atfork prepare), so the
	 * child never inherits the writer halfway through an allocation
	 * (an allocator's lock held by a thread the child does not have) */
	pthread_mutex_t fork_mu;
	atomic_int fork_waiting;
	atomic_int writer_alive;      /* the writer runs and has taken fork_mu once */

	/* writer wake-up (sem_post is async-signal-safe) */
	sem_t wake;
	atomic_int writer_sleeping;
	_Atomic uint64_t flush_req, flush_done;
	pthread_mutex_t flush_mu;
	pthread_cond_t flush_cv;

	/* memory bound */
	_Atomic uint64_t buffered;    /* bytes of blocks in chains (see above) */
	_Atomic uint64_t drained;     /* rounds that found every chain drained */
	_Atomic uint64_t spare_bytes; /* bytes of blocks kept as spares */
	/* warm blocks (above): a stack under warm_mu; warm_n mirrors its
	 * length for the checks made without the lock */
	pthread_mutex_t warm_mu;
	cap_block *warm;
	_Atomic uint64_t warm_n;      /* blocks on the stack */
	uint64_t warm_target;         /* blocks the writer keeps there (set at start) */
	_Atomic uint64_t warm_misses; /* default blocks a recording thread mapped itself */
	_Atomic uint64_t warm_faulted; /* blocks the writer faulted in */
	atomic_int stall_waiters;
	pthread_mutex_t stall_mu;
	pthread_cond_t stall_cv;

	/* registry: the writer applies entries with index >= reg_applied */
	pthread_mutex_t reg_mu;
	cap_kv *reg_head, **reg_tail;
	atomic_int reg_dirty;
	char *api_list;               /* comma-joined, reg_mu */
	void (*on_shutdown[16])(void);
	int n_on_shutdown;
	atomic_int shutdown_at_fini; /* cap_shutdown_at_fini: leave it to the destructor */

	/* after the finish at exit (CAP_ST_LATE) */
	pthread_mutex_t late_mu;      /* serialises the late rounds (cap_internal.h top) */
	atomic_int late_keep;         /* writer thread: finish the file, keep it open */
	atomic_int late_end_armed;    /* cap_rt_late_end is registered (or has run) */
	_Atomic uint64_t n_late;      /* records written after the finish */
	atomic_int ended_closed;      /* a windowed run ended between windows */
	atomic_int callbacks_late;    /* shutdown left the callbacks to cap_rt_late_end */
	atomic_int late_batch;        /* cap_rt_late_end is to run: late records wait for it */

	/* capture windows (cap_window.c; win_mu serialises opening, closing
	 * and snapshots; the fields below it are read by the writer only
	 * between a rotation request and its answer) */
	pthread_mutex_t win_mu;
	_Atomic uint64_t units[3];    /* frames ended, submits and launches begun */
	_Atomic uint64_t file_gen;    /* bumped for each window's file */
	_Atomic uint32_t key_request; /* frames asked for by the hotkey */
	atomic_int sig_toggle;        /* SIGUSR1 seen, not acted on */
	atomic_int win_unit;          /* the open window ends with this unit... */
	_Atomic uint64_t win_last;    /* ...numbered this (0: open-ended) */
	uint64_t win_count;           /* windows opened so far */
	atomic_int range_opened;      /* the TRACESMITH_TRIGGER range's window opened */
	sbt_window win;               /* the open window */
	atomic_int win_api_seen;      /* a front-end record since the window opened
	                                 (set by the writer as it emits one) */
	char *win_main_path;          /* the name another runtime held when this
	                                 window's file was opened, or NULL */
	void (*on_window_open[8])(void);
	int n_on_window_open;
	/* writer rotation: the writer finishes its file, then takes next_writer
	 * (NULL: none until the next window) */
	sbt_writer *next_writer;
	_Atomic uint64_t rot_req, rot_done;

	/* counters */
	_Atomic uint64_t n_records, n_blobs, n_blob_bytes;
	_Atomic uint64_t n_stalls, stall_ns;
	_Atomic uint64_t n_stacks_taken, n_stacks_unique;
	/* cap_keyframe_account: the process's keyframe copies, all windows */
	_Atomic uint64_t kf_bytes, kf_wait_ns, kf_store_ns;
} cap_global;

/* Hidden: every front-end links the runtime into its own object, so the
 * recording path reaches it without a GOT load. */
extern cap_global cap_g __attribute__((visibility("hidden")));

/* What cap_tls_thread (cap_fast.h) points to while the thread is not
 * registered, instead of NULL: its words are 0, so the fast paths' room
 * compare turns it away and they need no NULL test.  Shared by every such
 * thread and never written (not on cap_g.threads). */
extern cap_thread cap_thread_none __attribute__((visibility("hidden")));

/* Set in wptr while a record is open: the room a fast record finds,
 * fast_end[i] - wptr as a signed size, is then about -2^62 for either
 * value of the word (a block's end or 0), as long as user-space addresses
 * stay below 2^62 (47 or 56 bits on x86-64, 48 or 52 on AArch64).  Not
 * the sign bit: with a word of 0, 0 - (wptr | 2^63) is 2^63 - wptr, a
 * large positive room. */
#define CAP_WPTR_OPEN ((uintptr_t)1 << 62)

/* Whether t has a record (or blob) begun and not committed. */
static inline int cap_rt_in_record(const cap_thread *t)
{
	return (t->wptr & CAP_WPTR_OPEN) != 0;
}

/* A record or blob is begun at t's next entry: until it is closed no fast
 * record may take room on t. */
static inline void cap_rt_record_open(cap_thread *t)
{
	t->wptr |= CAP_WPTR_OPEN;
}

/* The open record is committed or cancelled: wptr back at its entry,
 * where the seal (or the next entry) takes it from.  The block has not
 * changed meanwhile: nothing reserves room on t while a record is open.
 * Closing a closed record changes nothing, as before. */
static inline void cap_rt_record_close(cap_thread *t)
{
	t->wptr &= ~CAP_WPTR_OPEN;
}

/* cap_runtime.c.  cap_rt_fast_on_: t's words for its block, on t itself
 * (registration, a new block, the first slow record after a start).
 * cap_rt_fast_stop_: the state has just left CAP_ST_RUNNING (stored
 * seq_cst): zero every thread's words, so that no fast record is taken
 * from now until the state is running again and each thread enables its
 * own (cap_runtime.c says why that order is enough). */
void cap_rt_fast_on_(cap_thread *t);
void cap_rt_fast_stop_(void);

/* Set on the writer thread: it never records. */
/*
 * Thread-locals of the capture runtime, read on every recorded call.  The
 * initial-exec model reaches them with one load from the thread pointer
 * instead of a __tls_get_addr call (about 55 instructions per launch of
 * the CUDA interposer).  It takes static TLS: the front-ends are preloaded
 * (the interposers) or dlopened by the Vulkan loader, whose static TLS
 * surplus (glibc keeps at least 512 bytes for such objects) holds these
 * few words.
 */
#define CAP_TLS _Thread_local __attribute__((tls_model("initial-exec")))

extern CAP_TLS int cap_tls_is_writer;

/* cap_config.c */
void cap_config_parse_(cap_config *cfg);
void cap_log_emit_(cap_log_level threshold, cap_log_level level, const char *fmt,
                   va_list ap);
uint64_t cap_now_ns_(void);       /* CLOCK_MONOTONIC */

/* cap_runtime.c, for cap_window.c */
extern CAP_TLS int cap_tls_opening;  /* this thread opens a window now */
uint64_t cap_rt_record_(uint32_t type, const void *payload, size_t len);
/* Start the session on an open file (start_mu held); 0 or -1. */
int cap_rt_start_file_(const char *path, int final_state);
void cap_rt_rotate_(sbt_writer *next);

/* cap_symbols.c (writer thread only) */
/* "object!function+0xoff (file:line)" for the return address ip, or what
 * dladdr knows; "" when nothing does. */
void cap_sym_describe_(uint64_t ip, char *buf, size_t len);
/* 1 when ip is in the object the runtime is linked into (a front-end). */
int cap_sym_is_ours_(uint64_t ip);

/* cap_window.c */
void cap_window_init_(void);          /* at global init */
void cap_window_started_(void);       /* the runtime started windowed */
void cap_window_exit_report_(void);   /* at shutdown */
int cap_window_drop_empty_(void);     /* window file finished: remove it if empty */
void cap_window_take_main_name_(void); /* ...else take the name another runtime left */

/* cap_pages.c: the page hashes of cap_blob_pages.  Writes the XXH3-128
 * of each CAP_PAGE_BYTES page of [data, data + len) to hashes
 * ((low64, high64) per page), on this thread and the page-hash pool's;
 * returns 1 when a byte is not zero, 0 when all are. */
int cap_pages_hash_(const void *data, size_t len, uint64_t *hashes);
/* 1 when every byte of [data, data + len) is zero (this thread only). */
int cap_pages_all_zero_(const void *data, size_t len);
/* The page-hash pool's workers running (0: none, or not started: they
 * start with the first blob large enough to share). */
int cap_pages_workers_(void);

/* cap_writer.c */
void *cap_writer_main(void *arg);
/* The XXH3-128 of one page of a blob, (low64, high64): the page's key in
 * the trace file, as the writer and the page-hash pool compute it. */
void cap_page_hash_(const void *p, size_t n, uint64_t out[2]);
/* CAP_ST_LATE, late_mu held: write what has been sealed and finish the file
 * again (end: with the closing counters).  -1 when nothing can be written
 * any more (the writer thread left no file behind, or writing failed). */
int cap_writer_late_write_(int end);
/* Take back the file the writer left behind for the late rounds (a fork
 * child: the parent's; shutdown: an empty window's) and free the context
 * that wrote it; its sbt_writer is returned, or NULL. */
sbt_writer *cap_writer_late_disown_(void);
/* Ask the writer to run a round now (async-signal-safe). */
void cap_writer_wake(void);
/* Buffered bytes past which the writer should not wait for its timer. */
static inline uint64_t cap_wake_threshold(const cap_config *cfg)
{
	uint64_t q = cfg->memory_bound / 4;
	return q < (4u << 20) ? q : (4u << 20);
}

#endif /* TRACESMITH_CAP_INTERNAL_H */
