/*
 * thd_sched.c - the double's stream queues and the seeded order queued work
 * runs in (thd.h "the scheduler" says what is promised).
 *
 * Locking: thd_sched_g.lock guards every queue and the generator, and is
 * held while queued work runs (twins take only thd_lock, never this one),
 * so one thread runs queued work at a time.
 */
#include "tests/doubles/hip/thd.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	uint64_t rng;
	struct ihipStream_t **streams; /* every stream made (never freed: thd.h) */
	size_t n, cap;
} thd_sched_g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_ONCE_INIT, 0, NULL, 0, 0 };

static void thd_sched_init(void)
{
	const char *seed = getenv("TSHIP_DOUBLE_SEED");

	thd_sched_g.rng = seed && *seed ? strtoull(seed, NULL, 0) : 1;
}

static uint64_t thd_sched_next(void)
{
	/* splitmix64: any seed, 0 included, gives a usable sequence */
	uint64_t z = (thd_sched_g.rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void thd_sched_add_stream(struct ihipStream_t *s)
{
	pthread_mutex_lock(&thd_sched_g.lock);
	if (thd_sched_g.n == thd_sched_g.cap) {
		size_t cap = thd_sched_g.cap ? thd_sched_g.cap * 2 : 16;
		struct ihipStream_t **v = realloc(thd_sched_g.streams, cap * sizeof(*v));
		if (!v)
			goto out; /* such a stream's work runs at once (thd_enqueue) */
		thd_sched_g.streams = v;
		thd_sched_g.cap = cap;
	}
	thd_sched_g.streams[thd_sched_g.n++] = s;
out:
	pthread_mutex_unlock(&thd_sched_g.lock);
}

static uint64_t thd_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run one piece of work (records and waits included); frees what it owns. */
static hipError_t thd_item_run(thd_node *n)
{
	hipError_t r = hipSuccess;

	switch (n->kind) {
	case THD_NODE_RECORD:
		if (n->ev->gen_done < n->gen)
			n->ev->gen_done = n->gen;
		n->ev->ns = thd_now_ns();
		break;
	case THD_NODE_WAIT:
		break;
	default:
		r = thd_node_run(n);
		break;
	}
	free(n->owned);
	n->owned = NULL;
	return r;
}

static int thd_item_ready(const thd_item *it)
{
	return it->n.kind != THD_NODE_WAIT || it->n.ev->gen_done >= it->n.gen;
}

/* Run queued work, one item at a time drawn from the runnable heads, until
 * done(arg) says so (lock held).  Returns 0, or -1 when work is left that
 * can never run (a wait for a recording that is not queued anywhere). */
static int thd_sched_run(int (*done)(const void *arg), const void *arg)
{
	struct ihipStream_t **ready = NULL;

	while (!done(arg)) {
		size_t nready = 0, pick;
		struct ihipStream_t *s;
		thd_item *it;
		hipError_t r;
		if (!ready) {
			ready = malloc((thd_sched_g.n ? thd_sched_g.n : 1) * sizeof(*ready));
			if (!ready)
				return -1;
		}
		for (size_t i = 0; i < thd_sched_g.n; i++) {
			s = thd_sched_g.streams[i];
			if (s->head && thd_item_ready(s->head))
				ready[nready++] = s;
		}
		if (!nready) {
			free(ready);
			return -1;
		}
		pick = nready == 1 ? 0 : (size_t)(thd_sched_next() % nready);
		s = ready[pick];
		it = s->head;
		s->head = it->next;
		if (!s->head)
			s->tail = NULL;
		r = thd_item_run(&it->n);
		if (r != hipSuccess && s->error == hipSuccess)
			s->error = r;
		free(it);
		/* the stream list may have grown only by calls, not while we hold
		 * the lock: ready stays big enough */
	}
	free(ready);
	return 0;
}

static int thd_done_stream(const void *arg)
{
	return ((const struct ihipStream_t *)arg)->head == NULL;
}

static int thd_done_blocking(const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < thd_sched_g.n; i++)
		if (thd_sched_g.streams[i]->head && !(thd_sched_g.streams[i]->flags & hipStreamNonBlocking))
			return 0;
	return 1;
}

static int thd_done_all(const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < thd_sched_g.n; i++)
		if (thd_sched_g.streams[i]->head)
			return 0;
	return 1;
}

static int thd_done_event(const void *arg)
{
	const struct ihipEvent_t *e = arg;
	return e->gen_done >= e->gen_queued;
}

/* The first error of the work run for a synchronization (reported once). */
static hipError_t thd_take_error(struct ihipStream_t *s)
{
	hipError_t r = s->error;
	s->error = hipSuccess;
	return r;
}

hipError_t thd_enqueue(hipStream_t s, const thd_node *n)
{
	thd_item *it;
	thd_node now;
	hipError_t r;

	pthread_once(&thd_sched_g.once, thd_sched_init);
	if (s) {
		it = calloc(1, sizeof(*it));
		if (it) {
			it->n = *n;
			pthread_mutex_lock(&thd_sched_g.lock);
			if (n->kind == THD_NODE_RECORD)
				it->n.gen = ++n->ev->gen_queued;
			if (s->tail)
				s->tail->next = it;
			else
				s->head = it;
			s->tail = it;
			pthread_mutex_unlock(&thd_sched_g.lock);
			return hipSuccess;
		}
		/* out of memory: run it at once below, after its stream's work */
		pthread_mutex_lock(&thd_sched_g.lock);
		thd_sched_run(thd_done_stream, s);
	} else {
		pthread_mutex_lock(&thd_sched_g.lock);
		if (thd_sched_run(thd_done_blocking, NULL) != 0) {
			pthread_mutex_unlock(&thd_sched_g.lock);
			free(n->owned);
			return hipErrorIllegalState;
		}
	}
	now = *n;
	if (now.kind == THD_NODE_RECORD)
		now.gen = ++now.ev->gen_queued;
	if (now.kind == THD_NODE_WAIT && thd_sched_run(thd_done_event, now.ev) != 0) {
		pthread_mutex_unlock(&thd_sched_g.lock);
		return hipErrorIllegalState;
	}
	r = thd_item_run(&now);
	pthread_mutex_unlock(&thd_sched_g.lock);
	return r;
}

hipError_t thd_sync_stream(hipStream_t s)
{
	hipError_t r;
	int rc;

	if (!s)
		return thd_sync_device(); /* the null stream waits for the blocking ones */
	pthread_once(&thd_sched_g.once, thd_sched_init);
	pthread_mutex_lock(&thd_sched_g.lock);
	rc = thd_sched_run(thd_done_stream, s);
	r = thd_take_error(s);
	pthread_mutex_unlock(&thd_sched_g.lock);
	return rc != 0 ? hipErrorIllegalState : r;
}

hipError_t thd_sync_device(void)
{
	hipError_t r = hipSuccess;
	int rc;

	pthread_once(&thd_sched_g.once, thd_sched_init);
	pthread_mutex_lock(&thd_sched_g.lock);
	rc = thd_sched_run(thd_done_all, NULL);
	for (size_t i = 0; i < thd_sched_g.n; i++) {
		hipError_t e = thd_take_error(thd_sched_g.streams[i]);
		if (r == hipSuccess)
			r = e;
	}
	pthread_mutex_unlock(&thd_sched_g.lock);
	return rc != 0 ? hipErrorIllegalState : r;
}

hipError_t thd_sync_event(struct ihipEvent_t *e)
{
	int rc;

	pthread_once(&thd_sched_g.once, thd_sched_init);
	pthread_mutex_lock(&thd_sched_g.lock);
	rc = thd_sched_run(thd_done_event, e);
	pthread_mutex_unlock(&thd_sched_g.lock);
	return rc != 0 ? hipErrorIllegalState : hipSuccess;
}
