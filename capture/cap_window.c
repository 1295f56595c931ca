/*
 * cap_window.c - capture windows: the triggers of TRACESMITH_TRIGGER, the
 * units they count, opening a window (its file, its SBT_TYPE_WINDOW
 * record, the front-ends' state snapshot) and closing it, periodic
 * snapshots of a full capture, and the in-app API the front-end libraries
 * export (include/tracesmith/tracesmith_app.h).
 *
 * Every decision is taken at a unit boundary on the thread that reaches
 * it, under win_mu: a frame end, a submit or launch beginning or ending,
 * or an explicit start/end (in-app API, cuProfilerStart/Stop, NVTX).  A
 * SIGUSR1 (the signal trigger) only sets a flag that the next boundary
 * acts on.  A front-end may hold a window with no advance notice back to a
 * later boundary (cap_on_window_hold: the Vulkan layer, while a recording
 * whose calls it did not keep is unsubmitted); ranges are never held.
 * Nothing here is on the recording fast path: without a trigger
 * cap_unit_begin/end return after one test.
 */
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/cap_internal.h"
#include "tracesmith/tracesmith_app.h"

static const char *const cap_unit_names[] = {"frames", "submits", "launches"};

/* A front-end's hold (cap_on_window_hold) and an explicit start it held
 * back, opened at a later boundary (start and why under win_mu; start is
 * read without it by the boundaries' fast checks). */
static struct {
	_Atomic(cap_window_hold_fn) fn;
	atomic_int start;
	char why[64];
} cap_win_hold;

static void cap_win_sigusr1(int sig)
{
	(void)sig;
	atomic_store(&cap_g.sig_toggle, 1);
}

void cap_window_init_(void)
{
	struct sigaction sa, old;
	if (!(cap_g.cfg.triggers & CAP_TRIG_SIGNAL))
		return;
	if (sigaction(SIGUSR1, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
	    old.sa_handler != SIG_DFL) {
		CAP_WARN("the program handles SIGUSR1 itself; the signal trigger is off");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cap_win_sigusr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* Front-ends ask these on every call: the answers are kept after the first
 * (-1: not known yet; a race only computes the same value twice). */
static atomic_int cap_win_windowed = -1, cap_win_tracking = -1;

int cap_windowed(void)
{
	int v = atomic_load_explicit(&cap_win_windowed, memory_order_relaxed);
	if (__builtin_expect(v < 0, 0)) {
		v = cap_config_get()->triggers != 0;
		atomic_store_explicit(&cap_win_windowed, v, memory_order_relaxed);
	}
	return v;
}

int cap_tracking(void)
{
	int v = atomic_load_explicit(&cap_win_tracking, memory_order_relaxed);
	if (__builtin_expect(v < 0, 0)) {
		const cap_config *c = cap_config_get();
		v = !c->disabled && (c->triggers != 0 || c->snapshot_frames != 0);
		atomic_store_explicit(&cap_win_tracking, v, memory_order_relaxed);
	}
	return v;
}

void cap_on_window_open(void (*fn)(void))
{
	int full = 0;
	pthread_mutex_lock(&cap_g.reg_mu);
	if (cap_g.n_on_window_open < 8)
		cap_g.on_window_open[cap_g.n_on_window_open++] = fn;
	else
		full = 1;
	pthread_mutex_unlock(&cap_g.reg_mu);
	if (full)
		CAP_ERROR("too many window callbacks; one front-end's snapshot is not written");
}

uint64_t cap_units(cap_unit unit)
{
	return (unsigned)unit < 3 ? atomic_load(&cap_g.units[unit]) : 0;
}

/* The front-ends' snapshots, on this thread, which alone records now. */
static void cap_win_snapshot(void)
{
	void (*fns[8])(void);
	int n;
	pthread_mutex_lock(&cap_g.reg_mu);
	n = cap_g.n_on_window_open;
	memcpy(fns, cap_g.on_window_open, sizeof(fns));
	pthread_mutex_unlock(&cap_g.reg_mu);
	for (int i = 0; i < n; i++)
		fns[i]();
	cap_rt_record_(SBT_TYPE_SNAPSHOT_END, NULL, 0);
}

void cap_on_window_hold(cap_window_hold_fn fn)
{
	atomic_store(&cap_win_hold.fn, fn);
}

/* 1 when the front-end holds a window with no notice back (win_mu held). */
static int cap_win_held(int frames)
{
	cap_window_hold_fn fn = atomic_load(&cap_win_hold.fn);
	return fn ? fn(frames) != 0 : 0;
}

/* <stem>[-<pid>]-<what>.sbt */
static char *cap_win_path(const char *what)
{
	const cap_config *cfg = &cap_g.cfg;
	size_t n = strlen(cfg->output), len;
	char *p;
	if (n >= 4 && strcmp(cfg->output + n - 4, ".sbt") == 0)
		n -= 4;
	len = n + strlen(what) + 40;
	p = malloc(len);
	if (!p)
		return NULL;
	if (cfg->exact_output)
		snprintf(p, len, "%.*s-%s.sbt", (int)n, cfg->output, what);
	else
		snprintf(p, len, "%.*s-%ld-%s.sbt", (int)n, cfg->output, (long)getpid(), what);
	return p;
}

/*
 * Open a window (win_mu held, state CLOSED): the unit `unit` numbered
 * `last` closes it (last 0: only an explicit end does).  `name` is the
 * file's part after the stem, `trigger` the text recorded.  0 or -1.
 */
static int cap_win_open(int unit, uint64_t last, const char *name, const char *trigger,
                        int snapshot)
{
	uint8_t buf[SBT_WINDOW_MAX];
	char *path = cap_win_path(name);
	size_t n;
	int rc;

	memset(&cap_g.win, 0, sizeof(cap_g.win));
	cap_g.win.index = cap_g.win_count + 1;
	/* The next unit of each kind, except the one being begun: a window
	 * opened inside cap_unit_begin starts with that unit, already counted. */
	cap_g.win.first_frame = atomic_load(&cap_g.units[CAP_UNIT_FRAME]) + 1;
	cap_g.win.first_submit =
		atomic_load(&cap_g.units[CAP_UNIT_SUBMIT]) + (unit == CAP_UNIT_SUBMIT ? 0 : 1);
	cap_g.win.first_launch =
		atomic_load(&cap_g.units[CAP_UNIT_LAUNCH]) + (unit == CAP_UNIT_LAUNCH ? 0 : 1);
	snprintf(cap_g.win.trigger, sizeof(cap_g.win.trigger), "%s", trigger);
	pthread_mutex_lock(&cap_g.start_mu);
	rc = atomic_load(&cap_g.state) == CAP_ST_CLOSED
		     ? cap_rt_start_file_(path, CAP_ST_OPENING)
		     : (free(path), -1);
	pthread_mutex_unlock(&cap_g.start_mu);
	if (rc != 0) {
		memset(&cap_g.win, 0, sizeof(cap_g.win));
		return -1;
	}
	cap_g.win_count++;
	cap_g.win_unit = unit;
	cap_g.win_last = last;
	cap_tls_opening = 1;
	atomic_store(&cap_g.win_api_seen, 0);
	n = sbt_window_encode(&cap_g.win, buf);
	cap_rt_record_(SBT_TYPE_WINDOW, buf, n);
	if (snapshot)
		cap_win_snapshot();
	else
		cap_rt_record_(SBT_TYPE_SNAPSHOT_END, NULL, 0);
	cap_tls_opening = 0;
	atomic_store(&cap_g.state, CAP_ST_RUNNING);
	CAP_INFO("capture window %" PRIu64 " (%s) opened: %s", cap_g.win.index, trigger,
	         cap_g.path);
	return 0;
}

/* Close the open window (win_mu held).  0, or 1 when none was open. */
static int cap_win_close(void)
{
	if (atomic_load(&cap_g.state) != CAP_ST_RUNNING || !cap_g.win.index)
		return 1;
	/* Refuse new records first; the writer then drains what is left. */
	atomic_store(&cap_g.state, CAP_ST_CLOSED);
	cap_rt_fast_stop_();
	cap_rt_rotate_(NULL);
	if (!cap_window_drop_empty_())
		cap_window_take_main_name_();
	if (!atomic_load(&cap_g.win_api_seen))
		CAP_INFO("capture window %" PRIu64 " closed: nothing was recorded in it, no file",
		         cap_g.win.index);
	else
		CAP_INFO("capture window %" PRIu64 " closed", cap_g.win.index);
	cap_g.win_unit = 0;
	cap_g.win_last = 0;
	return 0;
}

static int cap_win_is_open(void)
{
	return atomic_load(&cap_g.state) == CAP_ST_RUNNING && cap_g.win.index;
}

/* Open an open-ended window for `why` (win_mu held). */
static int cap_win_open_free(const char *why)
{
	char name[32];
	snprintf(name, sizeof(name), "window-%" PRIu64, cap_g.win_count + 1);
	return cap_win_open(-1, 0, name, why, 1);
}

/* A SIGUSR1 since the last boundary: open or close (win_mu held).  An
 * opening the front-end holds back leaves the toggle set for the next
 * boundary. */
static void cap_win_signal(void)
{
	if (!atomic_load(&cap_g.sig_toggle))
		return;
	if (!cap_win_is_open() && atomic_load(&cap_g.state) == CAP_ST_CLOSED && cap_win_held(0))
		return;
	if (!atomic_exchange(&cap_g.sig_toggle, 0))
		return;
	if (cap_win_is_open())
		cap_win_close();
	else if (atomic_load(&cap_g.state) == CAP_ST_CLOSED)
		cap_win_open_free("signal");
}

/* An explicit start held back (cap_window_start): open it once the
 * front-end lets it (win_mu held). */
static void cap_win_start_held(void)
{
	if (!atomic_load(&cap_win_hold.start) || atomic_load(&cap_g.state) != CAP_ST_CLOSED ||
	    cap_win_held(0))
		return;
	atomic_store(&cap_win_hold.start, 0);
	cap_win_open_free(cap_win_hold.why);
}

/* The runtime starts windowed (state CLOSED): a frame range starting at
 * frame 1 opens now, before the program's first recorded call. */
void cap_window_started_(void)
{
	const cap_config *cfg = &cap_g.cfg;
	char name[64], trig[96];
	if (!(cfg->triggers & CAP_TRIG_RANGE) || cfg->range_unit != CAP_UNIT_FRAME ||
	    cfg->range_first != 1)
		return;
	pthread_mutex_lock(&cap_g.win_mu);
	if (!cap_g.range_opened && atomic_load(&cap_g.state) == CAP_ST_CLOSED &&
	    atomic_load(&cap_g.units[CAP_UNIT_FRAME]) == 0) {
		snprintf(name, sizeof(name), "frames-1-%" PRIu64, cfg->range_last);
		snprintf(trig, sizeof(trig), "frames 1-%" PRIu64, cfg->range_last);
		cap_g.range_opened = 1;
		/* Opened at the program's first recorded call: nothing was
		 * live before it (a front-end may already track the object of
		 * that very call, which is recorded next). */
		cap_win_open(CAP_UNIT_FRAME, cfg->range_last, name, trig, 0);
	}
	pthread_mutex_unlock(&cap_g.win_mu);
}

/* Make sure the runtime has started (a window can only open from CLOSED). */
static void cap_win_ensure_started(void)
{
	if (atomic_load(&cap_g.state) == CAP_ST_IDLE)
		(void)cap_active();
}

/* A periodic snapshot of a full capture, at the end of frame `frame`. */
static void cap_win_periodic(uint64_t frame)
{
	uint8_t buf[32];
	size_t n;
	int running = CAP_ST_RUNNING;
	if (!atomic_compare_exchange_strong(&cap_g.state, &running, CAP_ST_OPENING))
		return;
	cap_rt_fast_stop_(); /* others wait for the snapshot, as the slow path does */
	cap_tls_opening = 1;
	memcpy(buf, "snapshot", 8);
	n = 8 + sbt_varint_put(buf + 8, frame);
	cap_rt_record_(SBT_TYPE_KEYFRAME, buf, n);
	cap_win_snapshot();
	cap_tls_opening = 0;
	atomic_store(&cap_g.state, CAP_ST_RUNNING);
}

uint64_t cap_frame_end(uint64_t frame)
{
	const cap_config *cfg = cap_config_get();
	uint8_t buf[10];
	size_t n = sbt_varint_put(buf, frame);
	uint64_t seq = cap_rt_record_(SBT_TYPE_FRAME, buf, n), cur;
	uint32_t want;

	/* The process-wide count: the largest frame number ended so far. */
	cur = atomic_load(&cap_g.units[CAP_UNIT_FRAME]);
	while (frame > cur && !atomic_compare_exchange_weak(&cap_g.units[CAP_UNIT_FRAME], &cur, frame))
		;
	if (!cfg->triggers) {
		if (cfg->snapshot_frames && frame % cfg->snapshot_frames == 0 && !cfg->disabled) {
			pthread_mutex_lock(&cap_g.win_mu);
			cap_win_periodic(frame);
			pthread_mutex_unlock(&cap_g.win_mu);
		}
		return seq;
	}
	cap_win_ensure_started();
	pthread_mutex_lock(&cap_g.win_mu);
	if (cap_win_is_open() && cap_g.win_unit == CAP_UNIT_FRAME && cap_g.win_last &&
	    frame >= cap_g.win_last)
		cap_win_close();
	cap_win_signal();
	cap_win_start_held();
	if (atomic_load(&cap_g.state) == CAP_ST_CLOSED) {
		char name[64], trig[96];
		if ((cfg->triggers & CAP_TRIG_RANGE) && cfg->range_unit == CAP_UNIT_FRAME &&
		    !cap_g.range_opened && frame + 1 >= cfg->range_first && frame < cfg->range_last) {
			uint64_t a = frame + 1;
			snprintf(name, sizeof(name), "frames-%" PRIu64 "-%" PRIu64, a, cfg->range_last);
			snprintf(trig, sizeof(trig), "frames %" PRIu64 "-%" PRIu64, cfg->range_first,
			         cfg->range_last);
			cap_g.range_opened = 1;
			cap_win_open(CAP_UNIT_FRAME, cfg->range_last, name, trig, 1);
		} else if (atomic_load(&cap_g.key_request) && !cap_win_held(1) &&
		           (want = atomic_exchange(&cap_g.key_request, 0)) != 0) {
			uint64_t a = frame + 1, b = frame + want;
			snprintf(name, sizeof(name), "frames-%" PRIu64 "-%" PRIu64, a, b);
			if (cfg->triggers & CAP_TRIG_KEY)
				snprintf(trig, sizeof(trig), "key %s", cfg->key_name);
			else
				snprintf(trig, sizeof(trig), "app trigger %" PRIu32, want);
			cap_win_open(CAP_UNIT_FRAME, b, name, trig, 1);
		}
	}
	pthread_mutex_unlock(&cap_g.win_mu);
	return seq;
}

void cap_unit_begin(cap_unit unit)
{
	const cap_config *cfg = cap_config_get();
	uint64_t k;
	if (__builtin_expect(!cfg->triggers, 1))
		return;
	k = atomic_fetch_add(&cap_g.units[unit], 1) + 1;
	/* The lock only where something may happen: a SIGUSR1 to act on, or
	 * the range's first unit (checked again under the lock). */
	if (!atomic_load_explicit(&cap_g.sig_toggle, memory_order_relaxed) &&
	    !atomic_load_explicit(&cap_win_hold.start, memory_order_relaxed) &&
	    !((cfg->triggers & CAP_TRIG_RANGE) && cfg->range_unit == (int)unit &&
	      !atomic_load(&cap_g.range_opened) && k >= cfg->range_first && k <= cfg->range_last))
		return;
	cap_win_ensure_started();
	pthread_mutex_lock(&cap_g.win_mu);
	cap_win_signal();
	cap_win_start_held();
	if ((cfg->triggers & CAP_TRIG_RANGE) && cfg->range_unit == (int)unit &&
	    !cap_g.range_opened && k >= cfg->range_first && k <= cfg->range_last &&
	    atomic_load(&cap_g.state) == CAP_ST_CLOSED) {
		char name[64], trig[96];
		snprintf(name, sizeof(name), "%s-%" PRIu64 "-%" PRIu64, cap_unit_names[unit], k,
		         cfg->range_last);
		snprintf(trig, sizeof(trig), "%s %" PRIu64 "-%" PRIu64, cap_unit_names[unit],
		         cfg->range_first, cfg->range_last);
		cap_g.range_opened = 1;
		cap_win_open((int)unit, cfg->range_last, name, trig, 1);
	}
	pthread_mutex_unlock(&cap_g.win_mu);
}

void cap_unit_end(cap_unit unit)
{
	const cap_config *cfg = cap_config_get();
	uint64_t last;
	if (__builtin_expect(!cfg->triggers, 1))
		return;
	/* The lock only for a SIGUSR1 or a held start to act on, or the open
	 * window's last unit. */
	last = atomic_load(&cap_g.win_last);
	if (!atomic_load_explicit(&cap_g.sig_toggle, memory_order_relaxed) &&
	    !atomic_load_explicit(&cap_win_hold.start, memory_order_relaxed) &&
	    !(last && atomic_load(&cap_g.win_unit) == (int)unit &&
	      atomic_load(&cap_g.units[unit]) >= last))
		return;
	pthread_mutex_lock(&cap_g.win_mu);
	if (cap_win_is_open() && cap_g.win_unit == (int)unit && cap_g.win_last &&
	    atomic_load(&cap_g.units[unit]) >= cap_g.win_last)
		cap_win_close();
	cap_win_signal();
	cap_win_start_held();
	pthread_mutex_unlock(&cap_g.win_mu);
}

void cap_window_request_frames(uint32_t frames)
{
	if (!frames || !cap_config_get()->triggers || cap_win_is_open())
		return;
	atomic_store(&cap_g.key_request, frames);
}

int cap_window_start(const char *why)
{
	int rc;
	if (!cap_config_get()->triggers || cap_g.cfg.disabled)
		return -1;
	cap_win_ensure_started();
	pthread_mutex_lock(&cap_g.win_mu);
	if (cap_win_is_open())
		rc = 1;
	else if (atomic_load(&cap_g.state) != CAP_ST_CLOSED)
		rc = -1;
	else if (atomic_load(&cap_win_hold.start))
		rc = 0; /* held back already: it opens at a boundary */
	else if (cap_win_held(0)) {
		snprintf(cap_win_hold.why, sizeof(cap_win_hold.why), "%s",
		         why && why[0] ? why : "app");
		atomic_store(&cap_win_hold.start, 1);
		rc = 0;
	} else
		rc = cap_win_open_free(why && why[0] ? why : "app");
	pthread_mutex_unlock(&cap_g.win_mu);
	return rc;
}

int cap_window_end(void)
{
	int rc;
	if (!cap_config_get()->triggers)
		return 1;
	pthread_mutex_lock(&cap_g.win_mu);
	if (atomic_exchange(&cap_win_hold.start, 0)) {
		CAP_WARN("capture window (%s) ended before it could open (held back, see above): "
		         "no file", cap_win_hold.why);
		rc = 0;
	} else
		rc = cap_win_close();
	pthread_mutex_unlock(&cap_g.win_mu);
	return rc;
}

/*
 * The name `path` an empty window left free goes to the one file of the
 * same window another runtime finished under "<name>-<api>.sbt" before
 * (its window closed first, while this one held the name: a window one
 * front-end held back, cap_on_window_hold, opened after this one).  Only a
 * finished file (no writer holds its lock) and only when it is the one.
 */
static void cap_win_hand_name(const char *path)
{
	size_t n = strlen(path);
	char *pat = malloc(n + 8);
	glob_t g;
	int fd;
	if (!pat || n < 4)
		goto out_free;
	snprintf(pat, n + 8, "%.*s-*.sbt", (int)(n - 4), path);
	if (glob(pat, 0, NULL, &g) != 0)
		goto out_free;
	if (g.gl_pathc == 1) {
		fd = open(g.gl_pathv[0], O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && link(g.gl_pathv[0], path) == 0)
			unlink(g.gl_pathv[0]);
		if (fd >= 0)
			close(fd);
	}
	globfree(&g);
out_free:
	free(pat);
}

/*
 * Each front-end library has its own runtime and the in-app API (and NVTX)
 * open a window in every one loaded: a window in which the front-end
 * recorded no call and had nothing live to snapshot (a CUDA interposer
 * preloaded into a Vulkan program) leaves no file.  Called once the
 * window's file is finished; 1 when it was removed.
 */
int cap_window_drop_empty_(void)
{
	if (!cap_g.win.index || atomic_load(&cap_g.win_api_seen) || !cap_g.path)
		return 0;
	if (unlink(cap_g.path) != 0)
		return 0;
	cap_win_hand_name(cap_g.path);
	return 1;
}

/*
 * The window's file was opened under "<name>-<api>.sbt" because another
 * runtime in the process held <name>: once that one is gone (it recorded
 * nothing, so it left no file), this file takes the plain name.  link(2)
 * never replaces a file another window wrote there.
 */
void cap_window_take_main_name_(void)
{
	char *main = cap_g.win_main_path;
	if (!main || !cap_g.path)
		return;
	if (link(cap_g.path, main) == 0) {
		unlink(cap_g.path);
		free(cap_g.path);
		cap_g.path = main;
		cap_g.win_main_path = NULL;
	}
}

/* At shutdown: a range that never began, or one the exit cut short. */
void cap_window_exit_report_(void)
{
	const cap_config *cfg = &cap_g.cfg;
	uint64_t got;
	if (!(cfg->triggers & CAP_TRIG_RANGE) || cfg->disabled)
		return;
	got = atomic_load(&cap_g.units[cfg->range_unit]);
	if (!cap_g.range_opened)
		cap_report("%s %" PRIu64 "-%" PRIu64 " never happened: the program ended after "
		           "%" PRIu64 " %s; no window was captured",
		           cap_unit_names[cfg->range_unit], cfg->range_first, cfg->range_last, got,
		           cap_unit_names[cfg->range_unit]);
	else if (got < cfg->range_last && cap_win_is_open())
		cap_report("%s %" PRIu64 "-%" PRIu64 ": the program ended after %" PRIu64
		           " %s; the window holds what happened",
		           cap_unit_names[cfg->range_unit], cfg->range_first, cfg->range_last, got,
		           cap_unit_names[cfg->range_unit]);
}

/* ---- the in-app API (tracesmith_app.h) ---------------------------------- */

static int cap_app_rc(int rc)
{
	if (!cap_config_get()->triggers)
		return TRACESMITH_APP_WHOLE_RUN;
	return rc < 0 ? TRACESMITH_APP_FAILED : rc;
}

static int cap_app_start_named(const char *why)
{
	if (!cap_config_get()->triggers)
		return TRACESMITH_APP_WHOLE_RUN;
	return cap_app_rc(cap_window_start(why && why[0] ? why : "app"));
}

static int cap_app_start(void)
{
	return cap_app_start_named("app");
}

static int cap_app_end(void)
{
	return cap_app_rc(cap_window_end());
}

static int cap_app_trigger(uint32_t frames)
{
	if (!cap_config_get()->triggers)
		return TRACESMITH_APP_WHOLE_RUN;
	if (cap_win_is_open())
		return TRACESMITH_APP_ALREADY;
	cap_window_request_frames(frames ? frames : 1);
	return TRACESMITH_APP_OK;
}

static void cap_app_mark_frame(void)
{
	cap_frame_end(atomic_load(&cap_g.units[CAP_UNIT_FRAME]) + 1);
}

static int cap_app_is_capturing(void)
{
	if (!cap_config_get()->triggers) {
		/* Whole run: recording, or will be on the first call (asking
		 * must not start a trace). */
		int st = atomic_load(&cap_g.state);
		return st == CAP_ST_RUNNING || (st == CAP_ST_IDLE && !cap_g.cfg.disabled);
	}
	return cap_win_is_open();
}

static const tracesmith_app_api cap_app_api = {
	.version = TRACESMITH_APP_API_VERSION,
	.start_capture = cap_app_start,
	.end_capture = cap_app_end,
	.trigger_capture = cap_app_trigger,
	.mark_frame = cap_app_mark_frame,
	.is_capturing = cap_app_is_capturing,
	.start_capture_named = cap_app_start_named,
};

/* Exported by each front-end library (its version script lists it). */
__attribute__((visibility("default"))) const tracesmith_app_api *
tracesmith_app_get_api(uint32_t version)
{
	return version == TRACESMITH_APP_API_VERSION ? &cap_app_api : NULL;
}
