/*
 * tcu_capture.c - whether a launch's stream is capturing, known from the
 * calls we intercept instead of asked of the driver at every launch.
 *
 * A launch record carries capture_status and capture_id (sbt_compute.h),
 * and a launch into a capture must not get a keyframe (the recorder may not
 * synchronize a capturing stream).  Asking cuStreamIsCapturing at every
 * launch is a driver call per launch; but a stream only starts capturing
 * through cuStreamBeginCapture* (cudaStreamBeginCapture reaches the driver
 * through it) or, while a capture is going on, by joining it (waiting on
 * an event recorded in the capture).  So:
 *   - every call that begins a capture (cuStreamBeginCapture, _v2,
 *     ToGraph, and their per-thread forms; in every mode, recording or
 *     not) adds an entry before it runs and takes it back if it failed;
 *     tcu_g.launch_gate's capture part (tcu_internal.h) counts the
 *     entries, the capture gate;
 *   - cuStreamEndCapture asks the driver whether the stream still captures
 *     (a failed end can leave it capturing) and drops its entries if not;
 *   - a launch while the capture gate is nonzero asks the driver, as before:
 *     the status of joined streams, invalidated captures, the legacy
 *     stream's implicit synchronization and the capture id all come from
 *     the driver then, never from us;
 *   - a launch while the capture gate is 0 on a stream we already asked about
 *     once is not capturing, and asks nothing.
 * The first launch on each stream still asks: a capture that began before
 * this library was loaded, or through a path it does not see, is found
 * there.  If the driver then says the stream is capturing, or a
 * cuStreamEndCapture succeeds on a stream we never saw begin, our tracking
 * is not to be trusted: TCU_GATE_UNKNOWN stays set and every later launch
 * asks the driver.  Capture modes (global, thread-local, relaxed;
 * cuThreadExchangeStreamCaptureMode) decide which calls a capture forbids,
 * not whether a stream is capturing, so they need no tracking here.
 *
 * A capture whose stream is destroyed, or whose context goes away, without
 * cuStreamEndCapture keeps its entry: launches keep asking the driver
 * (correct, only slower).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/cuda/tcu_internal.h"

/* The calling thread's per-thread default stream was asked about once. */
__thread __attribute__((tls_model("initial-exec"))) int tcu_tls_pt_known;

/*
 * The stream a handle names, as a key: 0 for the calling thread's
 * per-thread default stream (CU_STREAM_PER_THREAD, or NULL through a
 * per-thread variant), CU_STREAM_LEGACY for the legacy one (also NULL
 * through the plain variants), else the handle.
 */
static uint64_t tcu_stream_key(CUstream s, int ptds)
{
	uintptr_t h = (uintptr_t)s;
	if (h == (uintptr_t)CU_STREAM_PER_THREAD || (!h && ptds))
		return 0;
	return h ? (uint64_t)h : (uint64_t)(uintptr_t)CU_STREAM_LEGACY;
}

static int tcu_capture_same(const tcu_capture *c, uint64_t key)
{
	return c->key == key && (key != 0 || pthread_equal(c->thread, pthread_self()));
}

void tcu_capture_begin_pre(CUstream s, int ptds)
{
	tcu_capture c = {tcu_stream_key(s, ptds), pthread_self()};
	pthread_mutex_lock(&tcu_g.mu);
	if (tcu_g.ncaptures == tcu_g.cap_captures) {
		size_t cap = tcu_g.cap_captures ? tcu_g.cap_captures * 2 : 8;
		tcu_capture *p = realloc(tcu_g.captures, cap * sizeof(*p));
		if (!p) {
			/* Cannot track it: trust only the driver from now on. */
			atomic_fetch_or(&tcu_g.launch_gate, TCU_GATE_UNKNOWN);
			goto out_unlock;
		}
		tcu_g.captures = p;
		tcu_g.cap_captures = cap;
	}
	tcu_g.captures[tcu_g.ncaptures++] = c;
	/* Before the driver call: a launch that happens after the capture
	 * began (through any synchronization) sees the gate open. */
	atomic_fetch_add(&tcu_g.launch_gate, 1);
out_unlock:
	pthread_mutex_unlock(&tcu_g.mu);
}

/* With mu held: forget the newest entry this thread made for key (its
 * begin failed). */
static void tcu_capture_drop_one_locked(uint64_t key)
{
	pthread_t self = pthread_self();
	for (size_t i = tcu_g.ncaptures; i-- > 0;) {
		const tcu_capture *c = &tcu_g.captures[i];
		if (tcu_capture_same(c, key) && pthread_equal(c->thread, self)) {
			memmove(&tcu_g.captures[i], &tcu_g.captures[i + 1],
			        (tcu_g.ncaptures - i - 1) * sizeof(*c));
			tcu_g.ncaptures--;
			atomic_fetch_sub(&tcu_g.launch_gate, 1);
			return;
		}
	}
}

/* With mu held: forget every entry for key (its capture ended). */
static void tcu_capture_drop_all_locked(uint64_t key)
{
	size_t keep = 0;
	unsigned dropped = 0;
	for (size_t i = 0; i < tcu_g.ncaptures; i++) {
		if (tcu_capture_same(&tcu_g.captures[i], key))
			dropped++;
		else
			tcu_g.captures[keep++] = tcu_g.captures[i];
	}
	tcu_g.ncaptures = keep;
	atomic_fetch_sub(&tcu_g.launch_gate, dropped);
}

void tcu_capture_begin_post(CUstream s, int ptds, CUresult r)
{
	if (r == CUDA_SUCCESS)
		return;
	pthread_mutex_lock(&tcu_g.mu);
	tcu_capture_drop_one_locked(tcu_stream_key(s, ptds));
	pthread_mutex_unlock(&tcu_g.mu);
}

/* Says once that tracking gave up, and why. */
static void tcu_capture_unseen(CUstream s, const char *why)
{
	atomic_fetch_or(&tcu_g.launch_gate, TCU_GATE_UNKNOWN);
	if (atomic_exchange(&tcu_g.capture_unseen_said, 1) == 0)
		CAP_INFO("cuda: stream %p %s, a capture this library did not see begin (before it was "
		         "loaded, or through a path it does not intercept): every launch asks the "
		         "driver whether its stream is capturing from now on",
		         (void *)s, why);
}

/* The driver's capture status of s: 0 when it answered (and *st). */
static int tcu_capture_ask(CUstream s, int ptds, CUstreamCaptureStatus *st)
{
	void *is = tcu_own(ptds ? TCU_FN_cuStreamIsCapturing_ptsz : TCU_FN_cuStreamIsCapturing);
	*st = CU_STREAM_CAPTURE_STATUS_NONE;
	return is && ((tcu_pfn_cuStreamIsCapturing)is)(s, st) == CUDA_SUCCESS ? 0 : -1;
}

void tcu_capture_end(CUstream s, int ptds, CUresult r)
{
	uint64_t key = tcu_stream_key(s, ptds);
	CUstreamCaptureStatus st;
	int known = 0;
	pthread_mutex_lock(&tcu_g.mu);
	for (size_t i = 0; i < tcu_g.ncaptures && !known; i++)
		known = tcu_capture_same(&tcu_g.captures[i], key);
	pthread_mutex_unlock(&tcu_g.mu);
	if (!known) {
		if (r == CUDA_SUCCESS)
			tcu_capture_unseen(s, "ended capturing");
		return;
	}
	/* A failed end may leave the capture going: only the driver knows. */
	if (tcu_capture_ask(s, ptds, &st) == 0 && st == CU_STREAM_CAPTURE_STATUS_NONE) {
		pthread_mutex_lock(&tcu_g.mu);
		tcu_capture_drop_all_locked(key);
		pthread_mutex_unlock(&tcu_g.mu);
	}
}

/* The last stream this thread found known, other than its per-thread
 * default one (streams never become unknown), as its tcu_stream_tag: a
 * program launches on the same few streams over and over (a launch reads
 * it in tcu_stream_known_inline). */
__thread __attribute__((tls_model("initial-exec"))) uint64_t tcu_tls_known_stream =
    TCU_STREAM_TAG_NONE;

/* s (key: tcu_stream_key(s, ptds)) has been asked about once (its later
 * captures are ours to see). */
static int tcu_stream_known(CUstream s, int ptds, uint64_t key)
{
	if (!key)
		return tcu_tls_pt_known;
	if (tcu_stream_tag(s, ptds) == tcu_tls_known_stream)
		return 1;
	if (!tcu_lfmap_get(&tcu_g.streams_known, key))
		return 0;
	tcu_tls_known_stream = tcu_stream_tag(s, ptds);
	return 1;
}

static void tcu_stream_set_known(uint64_t key)
{
	int failed;
	if (!key) {
		tcu_tls_pt_known = 1;
		return;
	}
	/* Out of memory: not marked, so it is asked again next time. */
	pthread_mutex_lock(&tcu_g.mu);
	tcu_lfmap_put_locked(&tcu_g.streams_known, key, &tcu_g.streams_known, &failed);
	pthread_mutex_unlock(&tcu_g.mu);
}

int tcu_capture_query(CUstream s, int ptds, int *status_out, uint64_t *id_out)
{
	unsigned gate = tcu_capture_gate();
	uint64_t key = tcu_stream_key(s, ptds);
	CUstreamCaptureStatus st;
	*status_out = 0;
	*id_out = 0;
	if (gate == 0 && tcu_stream_known(s, ptds, key))
		return 0;
	if (tcu_capture_ask(s, ptds, &st) != 0)
		return 0;
	if (st == CU_STREAM_CAPTURE_STATUS_NONE) {
		if (!tcu_stream_known(s, ptds, key))
			tcu_stream_set_known(key);
		return 0;
	}
	if (gate == 0)
		tcu_capture_unseen(s, "was capturing at a launch");
	{
		void *info = tcu_own(ptds ? TCU_FN_cuStreamGetCaptureInfo_v3_ptsz
		                          : TCU_FN_cuStreamGetCaptureInfo_v3);
		cuuint64_t cid = 0;
		*status_out = (int)st;
		if (info && ((tcu_pfn_cuStreamGetCaptureInfo_v3)info)(s, &st, &cid, NULL, NULL, NULL, NULL) ==
		                CUDA_SUCCESS)
			*id_out = cid;
	}
	return 1;
}
