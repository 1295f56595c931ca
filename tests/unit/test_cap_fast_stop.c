/*
 * The fast paths' words across threads as the session's state changes
 * (cap_runtime.c, cap_rt_fast_stop_ and cap_rt_fast_on_): a change away
 * from running zeroes every registered thread's words, so that no thread
 * takes a fast record until the session runs again, and each thread's
 * fast path comes back at its first out-of-line record after that.
 *
 *   windows   TRACESMITH_TRIGGER=app: a second thread, registered in the
 *             first window, records; the main thread closes the window:
 *             the other thread's words are all 0 at once and its fast
 *             records refused; the next window opens: its first fast
 *             record refused, one out-of-line record, then fast again.
 *             Each window's file holds exactly the records made in it.
 *   snapshot  the whole run, TRACESMITH_SNAPSHOT_FRAMES=1: a periodic
 *             snapshot (CAP_ST_OPENING, then running again) turns the
 *             other thread's fast path off until its next out-of-line
 *             record; every record is in the trace.
 *   stop      the whole run: cap_shutdown on the main thread zeroes the
 *             other thread's words; its fast records refused from then.
 *   race      TRACESMITH_TRIGGER=app, FS_WORKERS threads recording as
 *             fast as they can (the fast path, else out of line) while
 *             the main thread opens and closes FS_ROUNDS windows: after
 *             each close every thread's words are 0, and still 0 after the
 *             threads have gone on trying for a while; in each window
 *             every thread takes the fast path again.
 *
 * Each mode runs in its own process (the configuration is read once):
 * main runs this program again for each.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/cap_fast.h"
#include "tests/support/cap_test_fast.h"
#include "tests/support/tst.h"
#include "tracesmith/sbt.h"

#define FS_TYPE 81
#define FS_WORKERS 4
#define FS_ROUNDS 50

/* One record of word `w` through the copying fast path: 1 taken, 0 not. */
static int fs_fast(uint64_t w)
{
	static const uint8_t none[1];
	return cap_fast_record_deferred(FS_TYPE, 0, cap_test_encode_copy, w, none, 0, none, 0);
}

/* The same record out of line (a fast path's fallback): its seq, or 0. */
static uint64_t fs_slow(uint64_t w)
{
	cap_rec *rec = NULL;
	uint8_t *p = cap_record_begin_deferred(FS_TYPE, 0, cap_test_encode_copy, 8, &rec);
	if (!p)
		return 0;
	memcpy(p, &w, 8);
	return cap_record_commit(rec, 8);
}

/* ---- a second thread that runs what it is handed, one call at a time -- */

typedef struct fs_worker {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int (*fn)(uint64_t);
	uint64_t arg;
	int busy, result, quit;
	cap_thread *t; /* its registration, once it has one */
} fs_worker;

static void *fs_worker_main(void *arg)
{
	fs_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit)
			break;
		pthread_mutex_unlock(&w->mu);
		int r = w->fn(w->arg);
		pthread_mutex_lock(&w->mu);
		if (cap_tls_thread != &cap_thread_none)
			w->t = cap_tls_thread;
		w->result = r;
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void fs_worker_start(fs_worker *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	TST_REQUIRE(pthread_create(&w->th, NULL, fs_worker_main, w) == 0);
}

/* fn(arg) on the worker; its result. */
static int fs_on_worker(fs_worker *w, int (*fn)(uint64_t), uint64_t arg)
{
	int r;
	pthread_mutex_lock(&w->mu);
	w->fn = fn;
	w->arg = arg;
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	r = w->result;
	pthread_mutex_unlock(&w->mu);
	return r;
}

static void fs_worker_stop(fs_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
}

static int fs_w_fast(uint64_t w)
{
	return fs_fast(w);
}

static int fs_w_slow(uint64_t w)
{
	return fs_slow(w) != 0;
}

/* ---- traces ------------------------------------------------------------- */

/* The FS_TYPE records' words in `name` (a file in the test's directory)
 * must be `words`, in order. */
static void fs_check_trace(const char *name, const uint64_t *words, size_t n)
{
	sbt_reader *r = NULL;
	sbt_record out;
	size_t i = 0;
	uint64_t w;
	if (sbt_reader_open(tst_path(name), NULL, &r) != SBT_OK) {
		fprintf(stderr, "cannot read %s\n", name);
		tst_failures++;
		return;
	}
	while (sbt_reader_next(r, &out) == SBT_OK) {
		if (out.type != FS_TYPE)
			continue;
		TST_REQUIRE(out.payload_len == 8);
		memcpy(&w, out.payload, 8);
		if (i < n)
			TST_CHECK_EQ_U64(w, words[i]);
		i++;
	}
	TST_CHECK_EQ_U64(i, n);
	sbt_reader_close(r);
}

static void fs_setup(void)
{
	setenv("TRACESMITH_OUTPUT", tst_path("fs.sbt"), 1);
	setenv("TRACESMITH_STACKS", "none", 1);
	unsetenv("TRACESMITH_OWNER_PID");
	unsetenv("TRACESMITH_DISABLE");
	unsetenv("TRACESMITH_TRIGGER");
	unsetenv("TRACESMITH_CLOCK");
	unsetenv("TRACESMITH_SNAPSHOT_FRAMES");
}

/* ---- modes -------------------------------------------------------------- */

static int fs_mode_windows(void)
{
	uint64_t w1[4], w2[4];
	size_t n1 = 0, n2 = 0;
	fs_worker wk;
	fs_setup();
	setenv("TRACESMITH_TRIGGER", "app", 1);
	fs_worker_start(&wk);
	TST_CHECK(!cap_active()); /* no window yet */
	TST_CHECK(!fs_on_worker(&wk, fs_w_fast, 999));
	TST_REQUIRE(cap_window_start("one") == 0);
	/* the worker registers (out of line), then records fast */
	TST_REQUIRE(fs_on_worker(&wk, fs_w_slow, 11));
	w1[n1++] = 11;
	TST_REQUIRE(wk.t != NULL);
	TST_CHECK(cap_test_words_are(wk.t, 1));
	TST_CHECK(fs_on_worker(&wk, fs_w_fast, 12));
	w1[n1++] = 12;
	TST_CHECK(cap_window_end() == 0);
	/* off at once, on the main thread's word alone */
	TST_CHECK(cap_test_words_are(wk.t, 0));
	TST_CHECK(!fs_on_worker(&wk, fs_w_fast, 998));
	TST_CHECK(!fs_on_worker(&wk, fs_w_slow, 997)); /* between windows: nothing */
	TST_CHECK(cap_test_words_are(wk.t, 0));

	TST_REQUIRE(cap_window_start("two") == 0);
	/* still off until the worker's next out-of-line record... */
	TST_CHECK(cap_test_words_are(wk.t, 0));
	TST_CHECK(!fs_on_worker(&wk, fs_w_fast, 996));
	TST_REQUIRE(fs_on_worker(&wk, fs_w_slow, 21));
	w2[n2++] = 21;
	/* ...which turns it on again */
	TST_CHECK(cap_test_words_are(wk.t, 1));
	TST_CHECK(fs_on_worker(&wk, fs_w_fast, 22));
	w2[n2++] = 22;
	TST_CHECK(fs_on_worker(&wk, fs_w_fast, 23));
	w2[n2++] = 23;
	TST_CHECK(cap_window_end() == 0);
	TST_CHECK(cap_test_words_are(wk.t, 0));
	TST_CHECK(!fs_on_worker(&wk, fs_w_fast, 995));
	fs_worker_stop(&wk);
	cap_shutdown();
	fs_check_trace("fs-window-1.sbt", w1, n1);
	fs_check_trace("fs-window-2.sbt", w2, n2);
	return tst_done();
}

static int fs_mode_snapshot(void)
{
	uint64_t words[8];
	size_t n = 0;
	fs_worker wk;
	fs_setup();
	setenv("TRACESMITH_SNAPSHOT_FRAMES", "1", 1);
	fs_worker_start(&wk);
	TST_REQUIRE(fs_on_worker(&wk, fs_w_slow, 1));
	words[n++] = 1;
	TST_REQUIRE(wk.t != NULL);
	TST_CHECK(cap_test_words_are(wk.t, 1));
	TST_CHECK(fs_on_worker(&wk, fs_w_fast, 2));
	words[n++] = 2;
	cap_frame_end(1); /* a periodic snapshot: opening, then running again */
	TST_CHECK(atomic_load(&cap_g.state) == CAP_ST_RUNNING);
	TST_CHECK(cap_test_words_are(wk.t, 0));
	TST_CHECK(!fs_on_worker(&wk, fs_w_fast, 999));
	TST_REQUIRE(fs_on_worker(&wk, fs_w_slow, 3));
	words[n++] = 3;
	TST_CHECK(cap_test_words_are(wk.t, 1));
	TST_CHECK(fs_on_worker(&wk, fs_w_fast, 4));
	words[n++] = 4;
	fs_worker_stop(&wk);
	cap_shutdown();
	fs_check_trace("fs.sbt", words, n);
	return tst_done();
}

static int fs_mode_stop(void)
{
	uint64_t words[2] = {1, 2};
	fs_worker wk;
	fs_setup();
	fs_worker_start(&wk);
	TST_REQUIRE(fs_on_worker(&wk, fs_w_slow, 1));
	TST_REQUIRE(wk.t != NULL);
	TST_CHECK(fs_on_worker(&wk, fs_w_fast, 2));
	cap_shutdown();
	TST_CHECK(cap_test_words_are(wk.t, 0));
	TST_CHECK(!fs_on_worker(&wk, fs_w_fast, 999));
	TST_CHECK(!fs_on_worker(&wk, fs_w_slow, 998));
	TST_CHECK(cap_test_words_are(wk.t, 0));
	fs_worker_stop(&wk);
	fs_check_trace("fs.sbt", words, 2);
	return tst_done();
}

/* ---- race ---------------------------------------------------------------- */

static atomic_int fs_race_quit;
/* per worker: its registration, and the window in which it last took the
 * fast path (the main thread numbers them in fs_race_window) */
static _Atomic(cap_thread *) fs_race_t[FS_WORKERS];
static atomic_int fs_race_fast_in[FS_WORKERS];
static atomic_int fs_race_window;

static void *fs_race_main(void *arg)
{
	int k = (int)(intptr_t)arg;
	uint64_t w = (uint64_t)k << 32;
	while (!atomic_load(&fs_race_quit)) {
		/* read before the record: a fast record taken means the window
		 * read here (or a later one) was open when it was checked */
		int win = atomic_load(&fs_race_window);
		if (fs_fast(++w))
			atomic_store(&fs_race_fast_in[k], win);
		else
			fs_slow(++w);
		if (cap_tls_thread != &cap_thread_none)
			atomic_store(&fs_race_t[k], cap_tls_thread);
	}
	return NULL;
}

/* Every worker's words are 0 (the workers do not exit while the main
 * thread looks, so their states are not freed). */
static int fs_race_all_off(void)
{
	for (int k = 0; k < FS_WORKERS; k++) {
		cap_thread *t = atomic_load(&fs_race_t[k]);
		if (t && !cap_test_words_are(t, 0))
			return 0;
	}
	return 1;
}

/* Wait (at most about 10 s) until every worker has taken the fast path in
 * window `win`. */
static int fs_race_wait_fast(int win)
{
	struct timespec ms = {0, 1000000};
	for (int i = 0; i < 10000; i++) {
		int all = 1;
		for (int k = 0; k < FS_WORKERS; k++)
			all &= atomic_load(&fs_race_fast_in[k]) >= win;
		if (all)
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static int fs_mode_race(void)
{
	pthread_t th[FS_WORKERS];
	struct timespec pause = {0, 2000000};
	int k, round, came_back = 0, stayed_off = 0;
	fs_setup();
	setenv("TRACESMITH_TRIGGER", "app", 1);
	TST_CHECK(!cap_active());
	for (k = 0; k < FS_WORKERS; k++)
		TST_REQUIRE(pthread_create(&th[k], NULL, fs_race_main, (void *)(intptr_t)k) == 0);
	for (round = 1; round <= FS_ROUNDS; round++) {
		atomic_store(&fs_race_window, round);
		TST_REQUIRE(cap_window_start("race") == 0);
		came_back += fs_race_wait_fast(round);
		TST_REQUIRE(cap_window_end() == 0);
		/* off for every thread once the close returns, and for good
		 * while the workers keep trying */
		TST_CHECK(fs_race_all_off());
		nanosleep(&pause, NULL);
		stayed_off += fs_race_all_off();
	}
	atomic_store(&fs_race_quit, 1);
	for (k = 0; k < FS_WORKERS; k++)
		pthread_join(th[k], NULL);
	TST_CHECK_EQ_U64(came_back, FS_ROUNDS);
	TST_CHECK_EQ_U64(stayed_off, FS_ROUNDS);
	cap_shutdown();
	return tst_done();
}

static int fs_run(const char *mode)
{
	if (strcmp(mode, "windows") == 0)
		return fs_mode_windows();
	if (strcmp(mode, "snapshot") == 0)
		return fs_mode_snapshot();
	if (strcmp(mode, "stop") == 0)
		return fs_mode_stop();
	if (strcmp(mode, "race") == 0)
		return fs_mode_race();
	return -1;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {"windows", "snapshot", "stop", "race"};
	return tst_modes(argc, argv, modes, sizeof(modes) / sizeof(modes[0]), fs_run);
}
