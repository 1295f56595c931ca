/*
 * cap_pages.c - the page hashes of cap_blob_pages, and the small pool of
 * threads that computes them for large blobs (CUDA and HIP keyframe
 * chunks of 32 MiB).
 *
 * A blob is cut into CAP_PAGE_BYTES pages; each page gets its XXH3-128
 * (the blob store's page key, serializer/sbt_format.h), computed through
 * libxxhash's dispatcher (AVX2 where the CPU has it; the same hash as the
 * inlined SSE2 copy, at about half the time per byte).  Each page is
 * first scanned for a byte that is not zero, which stops at once on a
 * page with data; a whole page of zero bytes then takes a hash computed
 * once (the page was just read, and reading it again through the hash
 * would double the cost of zero memory), and the caller learns whether
 * the blob held any byte that is not zero.  A keyframe chunk of zero
 * bytes so costs one read of its bytes, not a scan and then a hash.
 *
 * The pool.  Pages are independent: the blob is split into blocks of
 * CAP_PAGES_BLOCK pages that the calling thread and the pool's workers
 * claim in turn, each writing the hashes of its own pages.  Which pages
 * are sent, and in which order, is decided afterwards by the caller
 * alone, in page order (cap_runtime.c), so the trace is the same whoever
 * hashed a page.  The workers start on the first blob large enough to
 * share (more than one block), their number from TRACESMITH_HASH_THREADS
 * or else min(CPUs - 1, 4) (0: every page hashed on the caller's thread),
 * and live until the process ends, waiting on a condition variable (the
 * front-ends that link this are loaded -z nodelete: their code stays).
 *
 * Locking: cap_pages_g.mu guards job and every field of the job it points
 * to but its read-only inputs; a block is claimed and reported finished
 * under it, and its hashes are written outside it into slots no one else
 * writes (the caller reads them after the last block is reported, under
 * mu: the mutex orders the writes before the reads).  One job at a time:
 * a caller that finds another thread's job running hashes its blob alone.
 * The caller waits until every claimed block is finished, so no worker
 * holds a pointer into a job that has returned.  A fork child has none of
 * the workers (and may hold mu locked, taken by a thread it does not
 * have): a process that is not the one that started them never touches
 * the pool and hashes on the caller's thread.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "capture/cap_internal.h"

/* Pages per block a thread claims: 256 KiB, 128 blocks in a 32 MiB chunk. */
#define CAP_PAGES_BLOCK 4u
/* The most workers TRACESMITH_HASH_THREADS may ask for. */
#define CAP_PAGES_WORKERS_MAX 64

typedef struct cap_pages_job {
	const uint8_t *data;          /* borrowed: the blob's bytes */
	size_t len;
	uint64_t *hashes;             /* borrowed, out: (low64, high64) per page */
	size_t nblocks;
	size_t next;                  /* the next block to claim (mu) */
	size_t done;                  /* blocks finished (mu) */
	int nonzero;                  /* a finished block held a byte not 0 (mu) */
} cap_pages_job;

static struct {
	pthread_once_t zero_once;     /* zero_page */
	pthread_once_t once;          /* the workers */
	pthread_mutex_t mu;
	pthread_cond_t work;          /* workers: a job has blocks to claim */
	pthread_cond_t done;          /* the caller: its last block is finished */
	cap_pages_job *job;           /* the running job, or NULL (mu) */
	atomic_int nworkers;          /* workers running; set once, in once */
	pid_t pid;                    /* the process that started them */
	uint64_t zero_page[2];        /* the hash of CAP_PAGE_BYTES zero bytes */
} cap_pages_g = {
	.zero_once = PTHREAD_ONCE_INIT,
	.once = PTHREAD_ONCE_INIT,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static int cap_pages_zero(const uint8_t *p, size_t n)
{
	static const uint8_t zero[4096];
	for (; n >= sizeof(zero); p += sizeof(zero), n -= sizeof(zero))
		if (memcmp(p, zero, sizeof(zero)) != 0)
			return 0;
	return memcmp(p, zero, n) == 0;
}

/* The hashes of block b's pages; 1 when one of them held a byte not 0. */
static int cap_pages_block(const cap_pages_job *j, size_t b)
{
	size_t first = b * CAP_PAGES_BLOCK;
	int nonzero = 0;
	for (size_t i = first; i < first + CAP_PAGES_BLOCK && i * CAP_PAGE_BYTES < j->len; i++) {
		size_t off = i * CAP_PAGE_BYTES;
		size_t n = j->len - off < CAP_PAGE_BYTES ? j->len - off : CAP_PAGE_BYTES;
		int zero = cap_pages_zero(j->data + off, n);
		if (zero && n == CAP_PAGE_BYTES) {
			j->hashes[2 * i] = cap_pages_g.zero_page[0];
			j->hashes[2 * i + 1] = cap_pages_g.zero_page[1];
		} else {
			cap_page_hash_(j->data + off, n, &j->hashes[2 * i]);
		}
		nonzero |= !zero;
	}
	return nonzero;
}

/* Claim blocks of the running job until none is left; called with mu
 * held, returns with it held. */
static void cap_pages_share(cap_pages_job *j)
{
	while (j->next < j->nblocks) {
		size_t b = j->next++;
		int nz;
		pthread_mutex_unlock(&cap_pages_g.mu);
		nz = cap_pages_block(j, b);
		pthread_mutex_lock(&cap_pages_g.mu);
		j->nonzero |= nz;
		if (++j->done == j->nblocks)
			pthread_cond_broadcast(&cap_pages_g.done);
	}
}

static void *cap_pages_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cap_pages_g.mu);
	for (;;) {
		while (!cap_pages_g.job || cap_pages_g.job->next == cap_pages_g.job->nblocks)
			pthread_cond_wait(&cap_pages_g.work, &cap_pages_g.mu);
		cap_pages_share(cap_pages_g.job);
	}
	return NULL;
}

/* The number of workers: TRACESMITH_HASH_THREADS, else min(CPUs - 1, 4)
 * with CPUs those this process may run on. */
static int cap_pages_want(void)
{
	const cap_config *cfg = cap_config_get();
	cpu_set_t set;
	long ncpu = 0;
	if (cfg->hash_threads >= 0)
		return cfg->hash_threads;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		ncpu = CPU_COUNT(&set);
	if (ncpu <= 0)
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	return ncpu <= 1 ? 0 : ncpu - 1 < 4 ? (int)ncpu - 1 : 4;
}

static void cap_pages_zero_hash(void)
{
	static const uint8_t zero_page[CAP_PAGE_BYTES];
	cap_page_hash_(zero_page, sizeof(zero_page), cap_pages_g.zero_page);
}

/* Starts the workers (all signals blocked in them: the program's handlers
 * run on its own threads); fewer when a thread cannot be made. */
static void cap_pages_start(void)
{
	int want = cap_pages_want(), started = 0;
	sigset_t all, old;
	cap_pages_g.pid = getpid();
	if (want > CAP_PAGES_WORKERS_MAX)
		want = CAP_PAGES_WORKERS_MAX;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < want; i++) {
		pthread_t th;
		if (pthread_create(&th, NULL, cap_pages_worker, NULL) != 0) {
			CAP_WARN("cannot start page-hash thread %d of %d: the others hash keyframes", i + 1,
			         want);
			break;
		}
		pthread_detach(th);
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	atomic_store(&cap_pages_g.nworkers, started);
	CAP_DEBUG("%d page-hash threads", started);
}

/* The workers, started on the first call. */
static int cap_pages_pool(void)
{
	pthread_once(&cap_pages_g.once, cap_pages_start);
	return atomic_load(&cap_pages_g.nworkers);
}

int cap_pages_workers_(void)
{
	int n = atomic_load(&cap_pages_g.nworkers);
	return n && cap_pages_g.pid == getpid() ? n : 0;
}

int cap_pages_hash_(const void *data, size_t len, uint64_t *hashes)
{
	cap_pages_job j;
	size_t npages = len / CAP_PAGE_BYTES + (len % CAP_PAGE_BYTES != 0);
	int nonzero = 0;
	memset(&j, 0, sizeof(j));
	j.data = data;
	j.len = len;
	j.hashes = hashes;
	j.nblocks = (npages + CAP_PAGES_BLOCK - 1) / CAP_PAGES_BLOCK;
	pthread_once(&cap_pages_g.zero_once, cap_pages_zero_hash);
	if (j.nblocks >= 2 && cap_pages_pool() && cap_pages_g.pid == getpid()) {
		pthread_mutex_lock(&cap_pages_g.mu);
		if (!cap_pages_g.job) {
			cap_pages_g.job = &j;
			pthread_cond_broadcast(&cap_pages_g.work);
			cap_pages_share(&j);
			while (j.done < j.nblocks)
				pthread_cond_wait(&cap_pages_g.done, &cap_pages_g.mu);
			cap_pages_g.job = NULL;
			nonzero = j.nonzero;
			pthread_mutex_unlock(&cap_pages_g.mu);
			return nonzero;
		}
		pthread_mutex_unlock(&cap_pages_g.mu);
	}
	for (size_t b = 0; b < j.nblocks; b++)
		nonzero |= cap_pages_block(&j, b);
	return nonzero;
}

int cap_pages_all_zero_(const void *data, size_t len)
{
	return cap_pages_zero(data, len);
}
