/*
 * cap_writer.c - the writer thread: drains every recording thread's block
 * chain, merges records into ascending sequence order below the watermark
 * (cap_internal.h explains why that is safe), turns stack hashes into
 * trace stack ids, stores blobs, and owns the sbt_writer: compression and
 * I/O happen here, never on the application's threads.
 *
 * It wakes when a producer crosses the wake threshold or stalls on the
 * memory bound, when a flush is asked for (cap_flush, a fatal signal), at
 * shutdown, and at least every TRACESMITH_FLUSH_MS so that a killed
 * program leaves its trace readable up to the last flush.
 *
 * At exit the thread finishes the file (index and trailer) and, where the
 * runtime goes on recording (CAP_ST_LATE), leaves its context behind
 * (cap_wr_late): the calls libraries make from their own exit code are
 * then written by the threads that make them, one round each
 * (cap_writer_late_write_), and the file finished again after each.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

#include "capture/cap_clock.h"
#include "capture/cap_internal.h"

/* How long a flush waits for records still being published. */
#define CAP_WR_FLUSH_WAIT_NS (200ull * 1000000)
/* How long shutdown waits for threads in the middle of a record. */
#define CAP_WR_FINAL_WAIT_NS (2000ull * 1000000)

/* Open-addressing map from a nonzero 64-bit key to a 32-bit value. */
typedef struct cap_wmap {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap; /* power of two */
	size_t n;
} cap_wmap;

typedef struct cap_wheap_item {
	uint64_t seq;
	cap_thread *t;
} cap_wheap_item;

typedef struct cap_wctx {
	sbt_writer *w;             /* NULL once closed */
	int failed;                /* write error: drain and discard */
	uint64_t next_expected;    /* seq the next emitted record must have */
	uint64_t emitted;
	int dirty;                 /* records appended since the last flush */
	uint64_t last_flush_ns;
	uint64_t flush_handled;
	cap_kv *reg_last;          /* last registry entry applied */
	cap_wmap stacks;           /* stack hash -> trace stack id */
	cap_wmap syms;             /* ip -> string id (0: unknown) */
	cap_wheap_item *heap;
	size_t heap_n, heap_cap;
	uint64_t freed_since_wake; /* block bytes released since stalled producers were woken */
	int progress;              /* the last round consumed an entry */
	uint64_t rot_handled;      /* cap_g.rot_req answered */
	uint8_t *enc;              /* deferred records' payloads are encoded here */
	size_t enc_cap;
	uint8_t *blob_scratch;     /* a blob's page hashes, then its page flags or lengths */
	size_t blob_scratch_cap;
	int late;                  /* rounds run after the finish at exit */
	uint64_t start_mono_ns;    /* the file's header: record times count from it */
} cap_wctx;

/* The writer thread's context, left behind when it finished the file at
 * exit and the runtime goes on recording (CAP_ST_LATE); used under
 * cap_g.late_mu only. */
static cap_wctx *cap_wr_late;

/* ---- map ---------------------------------------------------------------- */

static size_t cap_wmap_slot(const cap_wmap *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (m->cap - 1);
}

static int cap_wmap_get(const cap_wmap *m, uint64_t key, uint32_t *val_out)
{
	if (!m->cap)
		return 0;
	for (size_t i = cap_wmap_slot(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			*val_out = m->vals[i];
			return 1;
		}
		if (m->keys[i] == 0)
			return 0;
	}
}

static int cap_wmap_put(cap_wmap *m, uint64_t key, uint32_t val)
{
	size_t i;
	if ((m->n + 1) * 2 > m->cap) {
		cap_wmap bigger = {0};
		bigger.cap = m->cap ? m->cap * 2 : 256;
		bigger.keys = calloc(bigger.cap, sizeof(uint64_t));
		bigger.vals = calloc(bigger.cap, sizeof(uint32_t));
		if (!bigger.keys || !bigger.vals) {
			free(bigger.keys);
			free(bigger.vals);
			return -1;
		}
		for (size_t j = 0; j < m->cap; j++)
			if (m->keys[j])
				cap_wmap_put(&bigger, m->keys[j], m->vals[j]);
		free(m->keys);
		free(m->vals);
		*m = bigger;
	}
	for (i = cap_wmap_slot(m, key); m->keys[i] && m->keys[i] != key; i = (i + 1) & (m->cap - 1))
		;
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

static void cap_wmap_free(cap_wmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- wake-ups ---------------------------------------------------------- */

void cap_writer_wake(void)
{
	/* A plain load first: producers call this on every record while the
	 * writer is behind, and an exchange would bounce the cache line. */
	if (atomic_load_explicit(&cap_g.writer_sleeping, memory_order_relaxed) &&
	    atomic_exchange(&cap_g.writer_sleeping, 0))
		sem_post(&cap_g.wake);
}

static void cap_wr_wake_stalled(cap_wctx *x)
{
	x->freed_since_wake = 0;
	if (atomic_load(&cap_g.stall_waiters) == 0)
		return;
	pthread_mutex_lock(&cap_g.stall_mu);
	pthread_cond_broadcast(&cap_g.stall_cv);
	pthread_mutex_unlock(&cap_g.stall_mu);
}

static void cap_wr_flush_done(uint64_t r)
{
	pthread_mutex_lock(&cap_g.flush_mu);
	if (atomic_load(&cap_g.flush_done) < r)
		atomic_store(&cap_g.flush_done, r);
	pthread_cond_broadcast(&cap_g.flush_cv);
	pthread_mutex_unlock(&cap_g.flush_mu);
}

/* ---- failure ------------------------------------------------------------ */

/* The trace cannot be written: say so once, stop recording, keep what was
 * written a valid trace as far as the writer can, and from now on drain
 * and discard so that no producer waits forever. */
static void cap_wr_fail(cap_wctx *x, const char *what, sbt_status st, int err)
{
	int running = CAP_ST_RUNNING;
	if (x->failed)
		return;
	x->failed = 1;
	CAP_ERROR("cannot write trace '%s' (%s): %s%s%s; recording stopped", cap_g.path, what,
	          sbt_strerror(st), err ? ": " : "", err ? strerror(err) : "");
	atomic_compare_exchange_strong(&cap_g.state, &running, CAP_ST_FAILED);
	sbt_writer_close(x->w);
	x->w = NULL;
	cap_wr_wake_stalled(x);
}

static void cap_wr_check(cap_wctx *x, const char *what, sbt_status st)
{
	if (st != SBT_OK)
		cap_wr_fail(x, what, st, errno);
}

/* ---- registry, metadata ------------------------------------------------- */

static void cap_wr_apply_registry(cap_wctx *x, int force)
{
	cap_kv *kv;
	if (!atomic_exchange(&cap_g.reg_dirty, 0) && !force)
		return;
	pthread_mutex_lock(&cap_g.reg_mu);
	kv = x->reg_last ? x->reg_last->next : cap_g.reg_head;
	for (; kv; kv = kv->next) {
		x->reg_last = kv;
		if (x->failed)
			continue;
		errno = 0;
		if (kv->key)
			cap_wr_check(x, "metadata", sbt_writer_set_meta(x->w, kv->key, kv->value));
		else
			cap_wr_check(x, "type name", sbt_writer_define_type(x->w, kv->type, kv->value));
	}
	pthread_mutex_unlock(&cap_g.reg_mu);
}

static void cap_wr_meta_u64(cap_wctx *x, const char *key, uint64_t v)
{
	char buf[32];
	if (x->failed)
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	errno = 0;
	cap_wr_check(x, "metadata", sbt_writer_set_meta(x->w, key, buf));
}

static void cap_wr_meta_str(cap_wctx *x, const char *key, const char *v)
{
	if (x->failed)
		return;
	errno = 0;
	cap_wr_check(x, "metadata", sbt_writer_set_meta(x->w, key, v));
}

/* /proc/self/cmdline with the NULs between arguments made spaces. */
static char *cap_wr_read_cmdline(void)
{
	FILE *f = fopen("/proc/self/cmdline", "rb");
	char *buf;
	size_t n;
	if (!f)
		return NULL;
	buf = malloc(65536);
	if (!buf)
		goto out_close;
	n = fread(buf, 1, 65535, f);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
out_close:
	fclose(f);
	return buf;
}

/* The runtime's own record types, named in every file. */
static const struct {
	uint32_t type;
	const char *name;
} cap_wr_core_types[] = {
	{SBT_TYPE_FRAME, "frame"},       {SBT_TYPE_CHECKPOINT, "checkpoint"},
	{SBT_TYPE_KEYFRAME, "keyframe"}, {SBT_TYPE_THREAD, "thread"},
	{SBT_TYPE_NOTE, "note"},         {SBT_TYPE_UNMODELED, "unmodeled"},
	{SBT_TYPE_WINDOW, "window"},     {SBT_TYPE_SNAPSHOT_END, "snapshot_end"},
};
#define CAP_WR_NCORE (sizeof(cap_wr_core_types) / sizeof(cap_wr_core_types[0]))

static void cap_wr_start_meta(cap_wctx *x)
{
	static const char *const cap_stack_names[] = {"none", "work", "all"};
	char buf[256];
	char *cmd;
	time_t secs = (time_t)(cap_g.start_wall_ns / 1000000000u);
	struct tm tm;

	for (size_t i = 0; i < CAP_WR_NCORE && !x->failed; i++) {
		errno = 0;
		cap_wr_check(x, "type name", sbt_writer_define_type(x->w, cap_wr_core_types[i].type,
		                                                   cap_wr_core_types[i].name));
	}
	cap_wr_meta_u64(x, "pid", (uint64_t)getpid());
	cmd = cap_wr_read_cmdline();
	if (cmd) {
		cap_wr_meta_str(x, "argv", cmd);
		free(cmd);
	}
	if (gmtime_r(&secs, &tm)) {
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRIu64 "Z",
		         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		         tm.tm_sec, cap_g.start_wall_ns % 1000000000u);
		cap_wr_meta_str(x, "start_time", buf);
	}
	cap_wr_meta_u64(x, "capture.start_wall_ns", cap_g.start_wall_ns);
	cap_wr_meta_u64(x, "capture.start_mono_ns", cap_g.start_mono_ns);
	if (gethostname(buf, sizeof(buf) - 1) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		cap_wr_meta_str(x, "hostname", buf);
	}
	cap_wr_meta_str(x, "tracesmith.version", CAP_VERSION);
	cap_wr_meta_str(x, "capture.stacks", cap_stack_names[cap_g.cfg.stacks]);
	cap_wr_meta_u64(x, "capture.memory_mb", cap_g.cfg.memory_bound >> 20);
}

/* ---- stacks ------------------------------------------------------------- */

/* "libfoo.so!func+0x1c (foo.c:12)", interned once per address
 * (cap_symbols.c names it). */
static uint32_t cap_wr_symbol(cap_wctx *x, uint64_t ip)
{
	uint32_t id = 0;
	char buf[768];
	if (ip == 0 || cap_wmap_get(&x->syms, ip, &id))
		return id;
	cap_sym_describe_(ip, buf, sizeof(buf));
	if (buf[0]) {
		errno = 0;
		cap_wr_check(x, "symbol", sbt_writer_intern(x->w, buf, &id));
		if (x->failed)
			return 0;
	}
	cap_wmap_put(&x->syms, ip, id);
	return id;
}

static void cap_wr_stack(cap_wctx *x, const cap_entry *e)
{
	const uint64_t *ips = (const uint64_t *)(e + 1);
	sbt_frame frames[CAP_STACK_MAX];
	uint32_t id, n = (uint32_t)e->len;
	if (x->failed || cap_wmap_get(&x->stacks, e->key, &id))
		return;
	if (n > CAP_STACK_MAX)
		n = CAP_STACK_MAX;
	/* The front-end's own frames (the wrapper the program called, the
	 * runtime) are cut: the first frame is where the program called the
	 * API.  A stack that is ours throughout is kept whole. */
	{
		uint32_t skip = 0;
		while (skip < n && cap_sym_is_ours_(ips[skip]))
			skip++;
		if (skip < n) {
			ips += skip;
			n -= skip;
		}
	}
	for (uint32_t i = 0; i < n && !x->failed; i++) {
		frames[i].ip = ips[i];
		frames[i].symbol_id = cap_wr_symbol(x, ips[i]);
	}
	if (x->failed)
		return;
	errno = 0;
	cap_wr_check(x, "stack", sbt_writer_put_stack(x->w, e->key, frames, n, &id));
	if (x->failed)
		return;
	if (cap_wmap_put(&x->stacks, e->key, id) != 0)
		CAP_WARN("out of memory caching stack ids; stacks will be looked up again");
	atomic_fetch_add_explicit(&cap_g.n_stacks_unique, 1, memory_order_relaxed);
}

/* ---- consuming a thread's chain ----------------------------------------- */

static void cap_wr_free_list(cap_block *b)
{
	while (b) {
		cap_block *next = b->next;
		cap_block_free_(b);
		b = next;
	}
}

/* Done with a block of t: take it off the memory bound, and give it back
 * to t for reuse while the spares are under CAP_SPARE_MAX (the producer
 * empties t->spare all at once, so this push is the stack's only writer
 * and there is no ABA). */
static void cap_wr_release_block(cap_wctx *x, cap_thread *t, cap_block *b)
{
	uint64_t cost = CAP_BLOCK_COST(b->cap);
	atomic_fetch_sub_explicit(&cap_g.buffered, cost, memory_order_relaxed);
	if (b->cap == CAP_BLOCK_BYTES && !atomic_load_explicit(&t->dead, memory_order_relaxed) &&
	    atomic_load_explicit(&cap_g.spare_bytes, memory_order_relaxed) + cost <= CAP_SPARE_MAX) {
		cap_block *top = atomic_load_explicit(&t->spare, memory_order_relaxed);
		atomic_fetch_add_explicit(&cap_g.spare_bytes, cost, memory_order_relaxed);
		do {
			b->next = top;
		} while (!atomic_compare_exchange_weak_explicit(&t->spare, &top, b,
		                                                memory_order_release,
		                                                memory_order_relaxed));
	} else if (b->cap > CAP_BLOCK_BYTES && b->cap <= CAP_SPARE_BIG_MAX &&
	           !atomic_load_explicit(&t->dead, memory_order_relaxed)) {
		/* an empty slot (cap_spare_big_offer), else the first one's block
		 * is unmapped; b->next still names the chain's next block, which a
		 * spare must not (the runtime's teardown frees each spare as a
		 * list) */
		b->next = NULL;
		if (!cap_spare_big_offer(t, b))
			cap_block_free_(
			        atomic_exchange_explicit(&t->spare_big[0], b, memory_order_acq_rel));
	} else if (!cap_warm_give_(b)) {
		cap_block_free_(b);
	}
	x->freed_since_wake += cost;
	if (x->freed_since_wake >= (256u << 10))
		cap_wr_wake_stalled(x);
}

/* The entry at t's read cursor, or NULL when nothing more is committed.
 * Releases blocks the producer has moved past and the writer has read.
 * The thread's committed points into its last block: inside head, it says
 * how far head may be read; outside, the producer has moved past head,
 * sealed first (cap_internal.h's top), and head's own committed is final.
 * A block the writer holds is never the producer's next one, so a cursor
 * in another block is never taken for one in head. */
static cap_entry *cap_wr_peek(cap_wctx *x, cap_thread *t)
{
	for (;;) {
		cap_block *b = t->head;
		size_t c;
		/* Below the commit last loaded: no load of the line the producer
		 * writes on every record (cap_thread). */
		if (t->rpos < t->rlimit)
			return (cap_entry *)(b->data + t->rpos);
		c = atomic_load_explicit(&t->committed, memory_order_acquire) - (uintptr_t)b->data;
		if (c <= b->cap) {
			t->rlimit = c;
			if (t->rpos < c)
				return (cap_entry *)(b->data + t->rpos);
		}
		if (!atomic_load_explicit(&b->sealed, memory_order_acquire))
			return NULL;
		/* Sealed: its last commit is visible now. */
		c = atomic_load_explicit(&b->committed, memory_order_relaxed);
		t->rlimit = c;
		if (t->rpos < c)
			return (cap_entry *)(b->data + t->rpos);
		t->head = b->next;
		t->rpos = 0;
		t->rlimit = 0;
		cap_wr_release_block(x, t, b);
	}
}

/* Past an entry of `bytes` bytes (cap_ent_bytes) at t's cursor. */
static void cap_wr_advance(cap_wctx *x, cap_thread *t, size_t bytes)
{
	t->rpos += bytes;
	x->progress = 1;
}

/* A blob sent as page hashes (cap_blob_pages).  A page the thread took
 * for sent but this file lacks (its earlier entry went to the previous
 * window's file) leaves the blob out, with an error naming it: the rest
 * of the trace is still written. */
static void cap_wr_pages(cap_wctx *x, const cap_entry *e)
{
	const cap_pages_head *head = (const cap_pages_head *)(e + 1);
	const uint64_t *hashes = (const uint64_t *)(head + 1);
	const uint8_t *flags = (const uint8_t *)(hashes + 2 * (size_t)head->npages);
	const uint8_t *bytes = flags + (((size_t)head->npages + 7) & ~(size_t)7);
	sbt_status st;
	errno = 0;
	st = sbt_writer_put_blob_hashed(x->w, e->key, (size_t)e->len, head->page_bytes, hashes,
	                                flags, bytes);
	if (st == SBT_ERR_ARG && sbt_writer_page_bytes(x->w) == head->page_bytes) {
		CAP_ERROR("blob %" PRIu64 " (%" PRIu64 " bytes) names a page this trace file does "
		          "not hold (a capture window turned over as it was taken); not written",
		          e->key, e->len);
		return;
	}
	cap_wr_check(x, "blob", st);
}

/* XXH3-128 of one page of a blob (cap_internal.h): the page's key in the
 * trace file (serializer/sbt_format.h).  On x86 through libxxhash's dispatcher, which
 * picks the widest vectors the CPU has (AVX2 where the inlined copy the
 * serializer compiles for the baseline uses SSE2): the same hash at about
 * a third of the instructions, and this is most of what the writer does
 * for memory contents (docs/benchmarks.md).  Debian's libxxhash (0.8.1)
 * exports the dispatcher (xxh_x86dispatch.h). */
void cap_page_hash_(const void *p, size_t n, uint64_t out[2])
{
#if defined(__x86_64__)
	XXH128_hash_t h = XXH3_128bits_dispatch(p, n);
#else
	XXH128_hash_t h = XXH3_128bits(p, n);
#endif
	out[0] = h.low64;
	out[1] = h.high64;
}

/* A blob copied whole (cap_blob): its pages hashed here and stored with
 * sbt_writer_put_blob_hashed, the file the same as sbt_writer_put_blob's. */
static sbt_status cap_wr_blob(cap_wctx *x, const cap_entry *e)
{
	const uint8_t *src = (const uint8_t *)(e + 1);
	size_t len = (size_t)e->len, page = sbt_writer_page_bytes(x->w), npages, need;
	uint64_t *hashes;
	if (!page)
		return SBT_ERR_ARG;
	npages = len / page + (len % page != 0);
	need = npages * 17;
	if (need > x->blob_scratch_cap) {
		uint8_t *grown = realloc(x->blob_scratch, need);
		if (!grown)
			return sbt_writer_put_blob(x->w, e->key, src, len, NULL);
		x->blob_scratch = grown;
		x->blob_scratch_cap = need;
	}
	hashes = (uint64_t *)(void *)x->blob_scratch;
	for (size_t i = 0; i < npages; i++) {
		size_t off = i * page;
		cap_page_hash_(src + off, len - off < page ? len - off : page, &hashes[2 * i]);
	}
	memset(x->blob_scratch + npages * 16, 1, npages);
	return sbt_writer_put_blob_hashed(x->w, e->key, len, (uint32_t)page, hashes,
	                                  x->blob_scratch + npages * 16, src);
}

/* A blob gathered from pieces (cap_blob_begin): each piece split into
 * pages from its own start, hashed here, stored with
 * sbt_writer_put_blob_split. */
static sbt_status cap_wr_pieces(cap_wctx *x, const cap_entry *e)
{
	const uint8_t *src = (const uint8_t *)(e + 1), *p = src;
	size_t npieces = e->type, page = sbt_writer_page_bytes(x->w), npages = 0, need;
	const uint64_t *pieces =
	        (const uint64_t *)(const void *)(src + (((size_t)e->len + 7) & ~(size_t)7));
	uint64_t *hashes;
	uint32_t *lens;
	size_t k, i = 0;
	if (!page)
		return SBT_ERR_ARG;
	for (k = 0; k < npieces; k++)
		npages += (size_t)(pieces[k] / page + (pieces[k] % page != 0));
	need = npages * 20;
	if (need > x->blob_scratch_cap) {
		uint8_t *grown = realloc(x->blob_scratch, need);
		if (!grown)
			return sbt_writer_put_blob(x->w, e->key, src, (size_t)e->len, NULL);
		x->blob_scratch = grown;
		x->blob_scratch_cap = need;
	}
	hashes = (uint64_t *)(void *)x->blob_scratch;
	lens = (uint32_t *)(void *)(x->blob_scratch + npages * 16);
	for (k = 0; k < npieces; k++) {
		for (uint64_t off = 0; off < pieces[k]; off += page) {
			size_t n = pieces[k] - off < page ? (size_t)(pieces[k] - off) : page;
			cap_page_hash_(p, n, &hashes[2 * i]);
			lens[i++] = (uint32_t)n;
			p += n;
		}
	}
	return sbt_writer_put_blob_split(x->w, e->key, npages, lens, hashes, src);
}

/* Handle blobs and stacks at the cursor; return the next record, if any. */
static cap_entry *cap_wr_next_record(cap_wctx *x, cap_thread *t)
{
	cap_entry *e;
	while ((e = cap_wr_peek(x, t)) != NULL && cap_ent_kind(e) != CAP_ENT_RECORD &&
	       cap_ent_kind(e) != CAP_ENT_DEFERRED && !cap_ent_bare(e)) {
		if (cap_ent_kind(e) == CAP_ENT_BLOB && !x->failed) {
			errno = 0;
			cap_wr_check(x, "blob", cap_wr_blob(x, e));
		} else if (cap_ent_kind(e) == CAP_ENT_PIECES && !x->failed) {
			errno = 0;
			cap_wr_check(x, "blob", cap_wr_pieces(x, e));
		} else if (cap_ent_kind(e) == CAP_ENT_PAGES && !x->failed) {
			cap_wr_pages(x, e);
		} else if (cap_ent_kind(e) == CAP_ENT_STACK) {
			cap_wr_stack(x, e);
		}
		cap_wr_advance(x, t, cap_ent_bytes(e));
	}
	return e;
}

/* A deferred record's len raw bytes through its encoder (a bare one's:
 * the front-end's bare encoder, given the type; 0 when none was set); r:
 * the record being made of it (its type and seq). */
static inline __attribute__((always_inline)) size_t
cap_wr_encode_into(const cap_entry *e, const sbt_record *r, int bare, size_t len, uint8_t *out,
                   size_t out_cap)
{
	if (bare) {
		cap_encode_type_fn fn = atomic_load_explicit(&cap_g.bare_encode, memory_order_acquire);
		if (__builtin_expect(!fn, 0)) {
			/* a front-end's mistake: said once, the record kept empty */
			static atomic_int said;
			if (!atomic_exchange(&said, 1))
				CAP_WARN("record %" PRIu64 " (type %" PRIu32 ") is bare and no bare "
				         "encoder was set (cap_set_bare_encoder): its payload is empty",
				         r->seq, r->type);
			return 0;
		}
		return fn(r->type, (const uint8_t *)e + CAP_ENT_BARE_HEAD, len, out, out_cap);
	}
	return ((const cap_deferred *)(e + 1))
	        ->encode((const uint8_t *)(e + 1) + sizeof(cap_deferred), len, out, out_cap);
}

/* A deferred record's payload, encoded by its front-end's encoder into
 * x->enc (grown as the encoder asks).  NULL when out of memory. */
static const uint8_t *cap_wr_encode(cap_wctx *x, const cap_entry *e, const sbt_record *r,
                                    int bare, size_t len, size_t *len_out)
{
	size_t n = cap_wr_encode_into(e, r, bare, len, x->enc, x->enc_cap);
	if (n > x->enc_cap) {
		size_t cap = x->enc_cap ? x->enc_cap : 4096;
		uint8_t *grown;
		while (cap < n)
			cap *= 2;
		grown = realloc(x->enc, cap);
		if (!grown)
			return NULL;
		x->enc = grown;
		x->enc_cap = cap;
		n = cap_wr_encode_into(e, r, bare, len, x->enc, x->enc_cap);
		if (n > x->enc_cap)
			return NULL;
	}
	*len_out = n;
	/* an empty payload before any buffer was needed is not out of memory */
	return x->enc ? x->enc : (const uint8_t *)"";
}

/* The name of record type `type`: the runtime's, or the one a front-end
 * registered (the latest wins, as in the file), or NULL. */
static const char *cap_wr_type_name(uint32_t type)
{
	const char *name = NULL;
	for (size_t i = 0; i < CAP_WR_NCORE; i++)
		if (cap_wr_core_types[i].type == type)
			return cap_wr_core_types[i].name;
	pthread_mutex_lock(&cap_g.reg_mu);
	for (const cap_kv *kv = cap_g.reg_head; kv; kv = kv->next)
		if (!kv->key && kv->type == type)
			name = kv->value;
	pthread_mutex_unlock(&cap_g.reg_mu);
	return name;
}

/* TRACESMITH_LOG=info names each call recorded after the finish at exit. */
static void cap_wr_say_late(const sbt_record *r)
{
	const char *name = cap_wr_type_name(r->type);
	if (name)
		CAP_INFO("recorded after the trace was finished at exit: record %" PRIu64 " (%s)",
		         r->seq, name);
	else
		CAP_INFO("recorded after the trace was finished at exit: record %" PRIu64
		         " (type %" PRIu32 ")", r->seq, r->type);
}

/* A record's time as its file counts it (cap_clock.h): never before the
 * thread's previous record, never before the header. */
static uint64_t cap_wr_time(cap_wctx *x, cap_thread *t, uint64_t stamp)
{
	uint64_t mono = cap_clock_record_mono(stamp);
	if (mono < t->last_mono)
		mono = t->last_mono;
	t->last_mono = mono;
	return mono > x->start_mono_ns ? mono - x->start_mono_ns : 0;
}

/* The time of a record that has none of its own (CAP_ENT_DEFERRED_BARE):
 * the thread's previous record's, which cap_wr_time would give it for any
 * stamp not after that one's. */
static uint64_t cap_wr_time_prev(const cap_wctx *x, const cap_thread *t)
{
	return t->last_mono > x->start_mono_ns ? t->last_mono - x->start_mono_ns : 0;
}

/* Emits the record e, whose seq is the next expected, and returns its
 * entry's size: its kind, len, size and type read once (the parts of
 * cap_ent_kind, cap_ent_len, cap_ent_bytes and cap_ent_type: a bare
 * entry's come from its kind word). */
static size_t cap_wr_emit(cap_wctx *x, cap_thread *t, const cap_entry *e)
{
	sbt_record r;
	uint32_t sid = 0, kind = cap_ent_kind(e);
	int bare = cap_ent_kind_bare(kind);
	size_t len = bare ? cap_ent_bare_len(e) : (size_t)e->len;
	size_t bytes = bare ? cap_ent_bare_bytes(kind, len) : (size_t)e->size;
	r.type = bare ? e->kind >> CAP_ENT_BARE_TYPE_SHIFT : e->type;
	r.seq = bare ? cap_ent_bare_seq(e->seq32, x->next_expected) : e->seq;
	x->next_expected = r.seq + 1;
	/* Read once the writer has answered a rotation, or has stopped
	 * (cap_window.c): every record of the window is emitted by then. */
	if (r.type >= SBT_TYPE_FIRST_API &&
	    !atomic_load_explicit(&cap_g.win_api_seen, memory_order_relaxed))
		atomic_store_explicit(&cap_g.win_api_seen, 1, memory_order_relaxed);
	if (x->failed)
		return bytes;
	/* a bare record has no stack, and a time only when BARE_T, after its
	 * body (cap_internal.h) */
	if (!bare && e->key && !cap_wmap_get(&x->stacks, e->key, &sid))
		sid = 0;
	r.stack_id = sid;
	if (kind == CAP_ENT_DEFERRED_BARE) {
		r.time_ns = cap_wr_time_prev(x, t);
	} else if (kind == CAP_ENT_DEFERRED_BARE_T) {
		uint64_t stamp;
		memcpy(&stamp, (const uint8_t *)e + bytes - 8, 8);
		r.time_ns = cap_wr_time(x, t, stamp);
	} else {
		r.time_ns = cap_wr_time(x, t, e->time_ns);
	}
	r.thread = t->tid;
	r.payload = (const uint8_t *)(e + 1);
	r.payload_len = len;
	if (kind == CAP_ENT_DEFERRED || bare) {
		r.payload = cap_wr_encode(x, e, &r, bare, len, &r.payload_len);
		if (!r.payload) {
			cap_wr_fail(x, "record (out of memory encoding it)", SBT_ERR_NOMEM, ENOMEM);
			return bytes;
		}
	}
	errno = 0;
	cap_wr_check(x, "record", sbt_writer_append(x->w, &r));
	x->emitted++;
	x->dirty = 1;
	if (x->late && cap_g.cfg.log_level >= CAP_LOG_INFO)
		cap_wr_say_late(&r);
	return bytes;
}

/* ---- the merge ---------------------------------------------------------- */

static int cap_wr_heap_push(cap_wctx *x, uint64_t seq, cap_thread *t)
{
	size_t i;
	if (x->heap_n == x->heap_cap) {
		size_t cap = x->heap_cap ? x->heap_cap * 2 : 64;
		cap_wheap_item *h = realloc(x->heap, cap * sizeof(*h));
		if (!h)
			return -1;
		x->heap = h;
		x->heap_cap = cap;
	}
	i = x->heap_n++;
	while (i > 0 && x->heap[(i - 1) / 2].seq > seq) {
		x->heap[i] = x->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	x->heap[i].seq = seq;
	x->heap[i].t = t;
	return 0;
}

static cap_thread *cap_wr_heap_pop(cap_wctx *x)
{
	cap_thread *top = x->heap[0].t;
	cap_wheap_item last = x->heap[--x->heap_n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= x->heap_n)
			break;
		if (c + 1 < x->heap_n && x->heap[c + 1].seq < x->heap[c].seq)
			c++;
		if (x->heap[c].seq >= last.seq)
			break;
		x->heap[i] = x->heap[c];
		i = c;
	}
	if (x->heap_n)
		x->heap[i] = last;
	return top;
}

/* Unlink a dead, drained thread.  Producers only push at the head, so a
 * node behind the head is unlinked with a plain store; the head itself
 * with a CAS, or from its new predecessor when a push raced it. */
static void cap_wr_unlink(cap_wctx *x, cap_thread *prev, cap_thread *t)
{
	uint64_t spare = 0;
	if (prev) {
		prev->next = t->next;
	} else {
		cap_thread *expect = t;
		if (!atomic_compare_exchange_strong(&cap_g.threads, &expect, t->next)) {
			cap_thread *p = atomic_load(&cap_g.threads);
			while (p && p->next != t)
				p = p->next;
			if (p)
				p->next = t->next;
		}
	}
	atomic_fetch_sub_explicit(&cap_g.buffered, CAP_BLOCK_COST(t->head->cap),
	                          memory_order_relaxed);
	x->freed_since_wake += CAP_BLOCK_COST(t->head->cap);
	cap_block_free_(t->head);
	/* Spares: the producer is gone (`dead` was read with acquire), so its
	 * own list is ours now too. */
	for (cap_block *b = t->spare_own; b; b = b->next)
		spare += CAP_BLOCK_COST(b->cap);
	for (cap_block *b = atomic_load(&t->spare); b; b = b->next)
		spare += CAP_BLOCK_COST(b->cap);
	atomic_fetch_sub_explicit(&cap_g.spare_bytes, spare, memory_order_relaxed);
	cap_wr_free_list(t->spare_own);
	cap_wr_free_list(atomic_load(&t->spare));
	for (unsigned i = 0; i < CAP_SPARE_BIG_SLOTS; i++)
		cap_block_free_(atomic_load(&t->spare_big[i]));
	free(t->page_cache);
	free(t->page_scratch);
	free(t);
}

/*
 * One round: emit, in seq order, every committed record from the next one
 * expected on, up to the first seq not yet published (cap_internal.h: the
 * seqs have no gap, so a missing one is a record its thread is sealing
 * now, and the next round finds it).  A thread popped from the heap keeps
 * emitting while its next record is the next expected, so a single
 * recording thread costs no heap operation per record.
 */
static void cap_wr_round(cap_wctx *x)
{
	cap_thread *t, *prev, *next;
	int drained = 1;

	cap_wr_apply_registry(x, 0);
	x->progress = 0;
	/* Recording threads first: warm blocks before draining (not in a late
	 * round, which a recording thread runs itself). */
	if (!x->late && atomic_load_explicit(&cap_g.warm_n, memory_order_relaxed) < cap_g.warm_target)
		cap_warm_fill_();
	if (cap_clock_g.tsc)
		cap_clock_tick(&cap_clock_g);
	x->heap_n = 0;
	prev = NULL;
	for (t = atomic_load(&cap_g.threads); t; t = next) {
		int dead = atomic_load_explicit(&t->dead, memory_order_acquire);
		cap_entry *e = cap_wr_next_record(x, t);
		next = t->next;
		if (e) {
			if (cap_wr_heap_push(x, cap_ent_seq(e, x->next_expected), t) != 0) {
				CAP_WARN("out of memory merging records; retrying");
				drained = 0;
				break;
			}
		} else if (dead) {
			cap_wr_unlink(x, prev, t);
			continue;
		}
		prev = t;
	}
	while (x->heap_n && x->heap[0].seq == x->next_expected) {
		/* its next record, which cap_wr_next_record left at the head of
		 * its chain; then each one it returns, which is there too */
		cap_entry *e;
		uint64_t seq;
		t = cap_wr_heap_pop(x);
		e = cap_wr_peek(x, t);
		for (;;) {
			cap_wr_advance(x, t, cap_wr_emit(x, t, e));
			e = cap_wr_next_record(x, t);
			if (!e)
				break;
			seq = cap_ent_seq(e, x->next_expected);
			if (seq != x->next_expected) {
				if (cap_wr_heap_push(x, seq, t) != 0)
					drained = 0;
				break;
			}
		}
	}
	x->heap_n = 0;
	/* Everything committed consumed, and producers still waiting for room:
	 * let them go (cap_rt_wait_memory). */
	if (drained && atomic_load(&cap_g.stall_waiters) > 0) {
		for (t = atomic_load(&cap_g.threads); t && drained; t = t->next)
			if (cap_wr_next_record(x, t))
				drained = 0;
		if (drained) {
			pthread_mutex_lock(&cap_g.stall_mu);
			atomic_fetch_add(&cap_g.drained, 1);
			pthread_mutex_unlock(&cap_g.stall_mu);
		}
	}
	cap_wr_wake_stalled(x);
}

static void cap_wr_flush(cap_wctx *x)
{
	if (!x->failed && x->dirty) {
		errno = 0;
		cap_wr_check(x, "flush", sbt_writer_flush(x->w));
	}
	x->dirty = 0;
	x->last_flush_ns = cap_now_ns_();
}

/* Emit everything below the counter as it is now, waiting at most
 * limit_ns for threads still publishing. */
static void cap_wr_catch_up(cap_wctx *x, uint64_t limit_ns)
{
	uint64_t target = atomic_load(&cap_g.next_seq);
	uint64_t t0 = cap_now_ns_();
	struct timespec pause = {0, 100000};
	cap_wr_round(x);
	while (x->next_expected < target && cap_now_ns_() - t0 < limit_ns) {
		nanosleep(&pause, NULL);
		cap_wr_round(x);
	}
}

static void cap_wr_sleep(cap_wctx *x)
{
	uint64_t flush_ns = (uint64_t)cap_g.cfg.flush_interval_ms * 1000000u;
	uint64_t now = cap_now_ns_();
	uint64_t deadline = x->last_flush_ns + flush_ns;
	struct timespec ts;
	if (atomic_load(&cap_g.stall_waiters) > 0) {
		/* Stalled producers: the watermark may be waiting on a thread
		 * that is between taking a seq and publishing; look again soon. */
		deadline = now + 1000000;
	}
	if (deadline <= now)
		return;
	atomic_store(&cap_g.writer_sleeping, 1);
	/* Buffers past the wake threshold: go on while rounds find work (every
	 * thread's last block counts too, so idle threads alone can pass it). */
	if (atomic_load(&cap_g.stopping) || atomic_load(&cap_g.flush_req) != x->flush_handled ||
	    atomic_load(&cap_g.rot_req) != x->rot_handled ||
	    (x->progress && atomic_load(&cap_g.buffered) >= cap_wake_threshold(&cap_g.cfg))) {
		atomic_store(&cap_g.writer_sleeping, 0);
		return;
	}
	ts.tv_sec = (time_t)(deadline / 1000000000u);
	ts.tv_nsec = (long)(deadline % 1000000000u);
	while (sem_clockwait(&cap_g.wake, CLOCK_MONOTONIC, &ts) != 0 && errno == EINTR)
		;
	atomic_store(&cap_g.writer_sleeping, 0);
	while (sem_trywait(&cap_g.wake) == 0)
		;
}

/* This file's counters, as metadata (a later value wins). */
static void cap_wr_counters(cap_wctx *x)
{
	cap_wr_apply_registry(x, 0);
	cap_wr_meta_u64(x, "capture.records", x->emitted);
	cap_wr_meta_u64(x, "capture.stalls", atomic_load(&cap_g.n_stalls));
	cap_wr_meta_u64(x, "capture.stall_ns", atomic_load(&cap_g.stall_ns));
	cap_wr_meta_u64(x, "capture.stacks_unique", atomic_load(&cap_g.n_stacks_unique));
	cap_wr_meta_u64(x, "capture.warm_faulted", atomic_load(&cap_g.warm_faulted));
	cap_wr_meta_u64(x, "capture.warm_misses", atomic_load(&cap_g.warm_misses));
	if (atomic_load(&cap_g.n_late))
		cap_wr_meta_u64(x, "capture.late_records", atomic_load(&cap_g.n_late));
}

/* Write the index and trailer and keep the file open (CAP_ST_LATE). */
static void cap_wr_finish_keep(cap_wctx *x)
{
	if (x->failed)
		return;
	errno = 0;
	cap_wr_check(x, "finish", sbt_writer_finish(x->w));
	x->dirty = 0;
}

/* Write this file's counters and finish it (index, trailer). */
static void cap_wr_finish_file(cap_wctx *x)
{
	if (!x->w)
		return;
	cap_wr_counters(x);
	if (!x->failed) {
		sbt_status st;
		errno = 0;
		st = sbt_writer_close(x->w);
		if (st != SBT_OK)
			CAP_ERROR("cannot finish trace '%s': %s%s%s", cap_g.path, sbt_strerror(st),
			          errno ? ": " : "", errno ? strerror(errno) : "");
	}
	x->w = NULL;
	x->failed = 1; /* no file: what arrives is dropped */
}

/* What the context owns besides its file: the maps, the merge heap and the
 * scratch buffers. */
static void cap_wr_free_buffers(cap_wctx *x)
{
	cap_wmap_free(&x->stacks);
	cap_wmap_free(&x->syms);
	free(x->heap);
	free(x->enc);
	free(x->blob_scratch);
}

/* Start writing to w (NULL: no file until the next window): a fresh file
 * gets its own metadata, type names, stacks and symbols. */
static void cap_wr_begin_file(cap_wctx *x, sbt_writer *w)
{
	cap_wmap_free(&x->stacks);
	cap_wmap_free(&x->syms);
	x->w = w;
	x->failed = w == NULL;
	x->emitted = 0;
	x->dirty = 0;
	x->last_flush_ns = cap_now_ns_();
	if (!w)
		return;
	{
		sbt_header_info hdr;
		sbt_writer_get_header(w, &hdr);
		x->start_mono_ns = hdr.start_mono_ns;
	}
	x->reg_last = NULL;
	cap_wr_start_meta(x);
	if (cap_g.win.index) {
		cap_wr_meta_u64(x, "window.index", cap_g.win.index);
		cap_wr_meta_str(x, "window.trigger", cap_g.win.trigger);
		cap_wr_meta_u64(x, "window.first_frame", cap_g.win.first_frame);
		cap_wr_meta_u64(x, "window.first_submit", cap_g.win.first_submit);
		cap_wr_meta_u64(x, "window.first_launch", cap_g.win.first_launch);
	}
	cap_wr_apply_registry(x, 1);
}

/* A capture window closed or opened (cap_rt_rotate_): everything recorded
 * before the request goes to the file being finished. */
static void cap_wr_rotate(cap_wctx *x, uint64_t req)
{
	cap_wr_catch_up(x, CAP_WR_FINAL_WAIT_NS);
	cap_wr_finish_file(x);
	cap_wr_begin_file(x, cap_g.next_writer);
	x->rot_handled = req;
	pthread_mutex_lock(&cap_g.flush_mu);
	atomic_store(&cap_g.rot_done, req);
	pthread_cond_broadcast(&cap_g.flush_cv);
	pthread_mutex_unlock(&cap_g.flush_mu);
}

void *cap_writer_main(void *arg)
{
	cap_wctx x;
	(void)arg;
	memset(&x, 0, sizeof(x));
	cap_tls_is_writer = 1;
	x.next_expected = 1;
	/* Requests made before this thread ran are still to answer. */
	x.rot_handled = atomic_load(&cap_g.rot_done);
	pthread_mutex_lock(&cap_g.fork_mu);
	atomic_store(&cap_g.writer_alive, 1);
	cap_wr_begin_file(&x, cap_g.writer);
	cap_warm_fill_();
	for (;;) {
		uint64_t req;
		int stopping = atomic_load(&cap_g.stopping);
		if (stopping)
			break;
		/* Between rounds a fork may go ahead (cap_internal.h, fork_mu). */
		pthread_mutex_unlock(&cap_g.fork_mu);
		cap_wr_sleep(&x);
		while (atomic_load(&cap_g.fork_waiting))
			nanosleep(&(struct timespec){0, 50000}, NULL);
		pthread_mutex_lock(&cap_g.fork_mu);
		cap_wr_round(&x);
		req = atomic_load(&cap_g.rot_req);
		if (req != x.rot_handled)
			cap_wr_rotate(&x, req);
		req = atomic_load(&cap_g.flush_req);
		if (req != x.flush_handled) {
			cap_wr_catch_up(&x, CAP_WR_FLUSH_WAIT_NS);
			cap_wr_flush(&x);
			x.flush_handled = req;
			cap_wr_flush_done(req);
		} else if (cap_now_ns_() - x.last_flush_ns >=
		           (uint64_t)cap_g.cfg.flush_interval_ms * 1000000u) {
			cap_wr_flush(&x);
		}
	}

	/* Shutdown: new records are refused already; wait (bounded) for the
	 * ones being published, write the counters and close. */
	{
		uint64_t t0 = cap_now_ns_();
		struct timespec pause = {0, 100000};
		cap_wr_round(&x);
		while (x.next_expected < atomic_load(&cap_g.next_seq) &&
		       cap_now_ns_() - t0 < CAP_WR_FINAL_WAIT_NS) {
			nanosleep(&pause, NULL);
			cap_wr_round(&x);
		}
		if (x.next_expected < atomic_load(&cap_g.next_seq) && x.w)
			CAP_WARN("%" PRIu64 " record(s) still being written at shutdown are not in the trace",
			         atomic_load(&cap_g.next_seq) - x.next_expected);
	}
	if (atomic_load(&cap_g.late_keep) && x.w) {
		/* The runtime goes on recording: a complete file now, and this
		 * context for the late rounds (kept until the process ends,
		 * unless cap_writer_late_disown_ takes the file back). */
		cap_wr_counters(&x);
		cap_wr_finish_keep(&x);
		cap_wr_late = malloc(sizeof(*cap_wr_late));
		if (cap_wr_late) {
			uint64_t rot_handled = x.rot_handled; /* read below */
			x.late = 1;
			*cap_wr_late = x;
			memset(&x, 0, sizeof(x));
			x.rot_handled = rot_handled;
		}
	}
	cap_wr_finish_file(&x);
	cap_g.writer = NULL;
	if (atomic_load(&cap_g.rot_req) != x.rot_handled) {
		/* A window opened as the process ended: its file is finished
		 * empty rather than left without an index. */
		if (cap_g.next_writer)
			sbt_writer_close(cap_g.next_writer);
		cap_g.next_writer = NULL;
		atomic_store(&cap_g.rot_done, atomic_load(&cap_g.rot_req));
	}
	cap_wr_flush_done(atomic_load(&cap_g.flush_req));
	pthread_mutex_lock(&cap_g.flush_mu);
	pthread_cond_broadcast(&cap_g.flush_cv);
	pthread_mutex_unlock(&cap_g.flush_mu);
	cap_wr_wake_stalled(&x);
	cap_wr_free_buffers(&x);
	atomic_store(&cap_g.writer_alive, 0);
	pthread_mutex_unlock(&cap_g.fork_mu);
	return NULL;
}

int cap_writer_late_write_(int end)
{
	cap_wctx *x = cap_wr_late;
	uint64_t before;
	if (!x || x->failed)
		return -1;
	/* The late rounds allocate as the writer's do: a fork waits for them
	 * (cap_internal.h, fork_mu). */
	pthread_mutex_lock(&cap_g.fork_mu);
	before = x->emitted;
	cap_wr_round(x);
	atomic_fetch_add(&cap_g.n_late, x->emitted - before);
	if (x->emitted != before || (end && atomic_load(&cap_g.n_late)))
		cap_wr_counters(x); /* capture.records has grown */
	else
		cap_wr_apply_registry(x, 0);
	cap_wr_finish_keep(x);
	pthread_mutex_unlock(&cap_g.fork_mu);
	return x->failed ? -1 : 0;
}

sbt_writer *cap_writer_late_disown_(void)
{
	cap_wctx *x = cap_wr_late;
	sbt_writer *w;
	if (!x)
		return NULL;
	/* No round is running: the callers hold late_mu, or are a fork child
	 * (a fork waits for fork_mu, which every round holds). */
	w = x->w;
	cap_wr_late = NULL;
	cap_wr_free_buffers(x);
	free(x);
	return w;
}
