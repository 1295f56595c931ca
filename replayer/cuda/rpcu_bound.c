/*
 * rpcu_bound.c - how long the CUDA backend lets one call into the driver
 * run (issue 12: waits end).
 *
 * CUDA has no timeout on a wait: cuStreamSynchronize, cuEventSynchronize,
 * cuCtxSynchronize, a blocking copy, a free (which waits for the work that
 * may use the memory) all return only when the device's work before them
 * is done, and a kernel that never finishes (one spinning on a flag whose
 * producer a damaged trace lost, say) makes them never return.  Waits on
 * events themselves cannot hang: an event never recorded counts as
 * complete (cuEventSynchronize returns at once, cuStreamWaitEvent waits
 * for nothing: the driver's documented rule, and the double's), so there
 * is no "nothing replayed signals it" refusal to make as on Vulkan.
 *
 * So every backend entry point (a record, a checkpoint, a keyframe, the
 * per-command results, the profile, a reset, the teardown at close) runs
 * under a deadline: tsreplay --wait-timeout SECONDS (default 60, shared
 * with the Vulkan backend; a trace from a fast GPU replayed on a slow one
 * legitimately waits longer).  A watchdog thread, started on the first
 * entry, sleeps until the deadline of the entry in progress; when one
 * passes, the thread that is blocked in the driver cannot be got back, so
 * the watchdog prints the record's sequence number, call and reason and
 * ends the process with exit 1 (_exit: nothing then waits for the device,
 * exit handlers included).  The watchdog only reads what arm() copied in
 * under its mutex, never the replay's state.
 */
#include "replayer/cuda/rpcu_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rpcu_bound {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* CLOCK_MONOTONIC */
	pthread_t thread;
	int started;
	int quit;
	int armed;
	int idle;               /* the watchdog waits with no deadline */
	struct timespec deadline;
	uint64_t ns;            /* the bound */
	/* what the entry in progress does: record seq (0: none) and call
	 * (a static name), or doing (a static phrase) */
	uint64_t seq;
	const char *call;
	const char *doing;
};

static void rpcu_bound_fire(const struct rpcu_bound *b)
{
	char what[160], msg[600];
	int n;
	if (b->seq)
		snprintf(what, sizeof(what), "record seq %llu (%s)", (unsigned long long)b->seq,
		         b->call ? b->call : "cuda");
	else
		snprintf(what, sizeof(what), "%s", b->doing ? b->doing : "the replay");
	n = snprintf(msg, sizeof(msg),
	             "tsreplay: backend cuda: %s: the driver did not return within %g s (a kernel that "
	             "never finishes, or work waiting for what nothing replayed provides); stopped "
	             "without waiting for the device (tsreplay --wait-timeout SECONDS waits longer)\n",
	             what, (double)b->ns / 1e9);
	fflush(stdout); /* what the replay printed so far (its thread is in the driver, not in stdio) */
	if (n > 0) {
		ssize_t w = write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
		(void)w; /* nothing else to tell it to */
	}
	_exit(1);
}

static void *rpcu_bound_main(void *arg)
{
	struct rpcu_bound *b = arg;
	pthread_mutex_lock(&b->mu);
	while (!b->quit) {
		if (!b->armed) {
			b->idle = 1;
			pthread_cond_wait(&b->cv, &b->mu);
			b->idle = 0;
			continue;
		}
		struct timespec at = b->deadline;
		if (pthread_cond_timedwait(&b->cv, &b->mu, &at) == ETIMEDOUT && b->armed &&
		    b->deadline.tv_sec == at.tv_sec && b->deadline.tv_nsec == at.tv_nsec)
			rpcu_bound_fire(b);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

rp_status rpcu_bound_parse(const char *text, uint64_t *ns_out)
{
	char *end;
	double v;
	if (!text || !*text)
		return RP_ERR_USAGE;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !(v > 0) || v > 86400.0 * 365) /* as the Vulkan backend */
		return RP_ERR_USAGE;
	*ns_out = v * 1e9 < 1 ? 1 : (uint64_t)(v * 1e9);
	return RP_OK;
}

rp_status rpcu_bound_init(rpcu_state *s, uint64_t ns, rp_diag *diag)
{
	struct rpcu_bound *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;
	if (!b) {
		rp_diag_set(diag, "out of memory");
		return RP_ERR_NOMEM;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&b->mu, NULL);
	b->ns = ns;
	s->bound = b;
	return RP_OK;
}

/* A deadline already passed wakes the watchdog, which then waits for the
 * new one: only an idle watchdog needs a signal, so an entry costs a
 * clock read and an uncontended mutex. */
void rpcu_bound_arm(rpcu_state *s, uint64_t seq, const char *call, const char *doing)
{
	struct rpcu_bound *b = s->bound;
	struct timespec now;
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	if (!b->started && pthread_create(&b->thread, NULL, rpcu_bound_main, b) == 0)
		b->started = 1;
	b->seq = seq;
	b->call = call;
	b->doing = doing;
	clock_gettime(CLOCK_MONOTONIC, &now);
	b->deadline.tv_sec = now.tv_sec + (time_t)(b->ns / 1000000000u);
	b->deadline.tv_nsec = now.tv_nsec + (long)(b->ns % 1000000000u);
	if (b->deadline.tv_nsec >= 1000000000L) {
		b->deadline.tv_sec++;
		b->deadline.tv_nsec -= 1000000000L;
	}
	b->armed = 1;
	if (b->idle)
		pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

void rpcu_bound_disarm(rpcu_state *s)
{
	struct rpcu_bound *b = s->bound;
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->armed = 0;
	pthread_mutex_unlock(&b->mu);
}

void rpcu_bound_free(rpcu_state *s)
{
	struct rpcu_bound *b = s->bound;
	if (!b)
		return;
	pthread_mutex_lock(&b->mu);
	b->quit = 1;
	b->armed = 0;
	pthread_cond_signal(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (b->started)
		pthread_join(b->thread, NULL);
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->mu);
	free(b);
	s->bound = NULL;
}
