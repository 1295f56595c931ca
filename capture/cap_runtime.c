/*
 * cap_runtime.c - the recording side of the capture runtime: lifecycle
 * (lazy start, fork, exit, fatal signals), per-thread buffers, sequence
 * numbers, host stacks and the public recording API of cap.h.
 *
 * The threading design is described in cap_internal.h; the writer thread
 * that consumes what is recorded here lives in cap_writer.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY /* this process only: the _UL entry points */
#include <libunwind.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "capture/cap_clock.h"
#include "capture/cap_fast.h"
#include "capture/cap_internal.h"

cap_global cap_g = {
	.state = CAP_ST_IDLE,
	.fast_state = {-1, -1, -1, -1}, /* no fast record before the global init */
	.fd = -1,
	.start_mu = PTHREAD_MUTEX_INITIALIZER,
	.flush_mu = PTHREAD_MUTEX_INITIALIZER,
	.flush_cv = PTHREAD_COND_INITIALIZER,
	.stall_mu = PTHREAD_MUTEX_INITIALIZER,
	.warm_mu = PTHREAD_MUTEX_INITIALIZER,
	.stall_cv = PTHREAD_COND_INITIALIZER,
	.reg_mu = PTHREAD_MUTEX_INITIALIZER,
	.win_mu = PTHREAD_MUTEX_INITIALIZER,
	.fork_mu = PTHREAD_MUTEX_INITIALIZER,
	.late_mu = PTHREAD_MUTEX_INITIALIZER,
};

CAP_TLS int cap_tls_is_writer;
CAP_TLS int cap_tls_opening;
cap_thread cap_thread_none; /* never written: its words 0 (cap_internal.h) */
CAP_TLS cap_thread *cap_tls_thread = &cap_thread_none;
static CAP_TLS uint64_t cap_tls_gen;
CAP_TLS int cap_tls_depth;

static pthread_once_t cap_rt_once = PTHREAD_ONCE_INIT;

/* Fatal signals: handlers are installed once per process image (a fork
 * child keeps them) and chain to what was there before. */
static const int cap_sig_list[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT};
#define CAP_NSIG ((int)(sizeof(cap_sig_list) / sizeof(cap_sig_list[0])))
static struct sigaction cap_sig_old[CAP_NSIG];
static int cap_sig_ours[CAP_NSIG];
/* How long a fatal signal waits for the writer to flush. */
#define CAP_SIG_WAIT_MS 2000

static void cap_rt_atfork_prepare(void);
static void cap_rt_atfork_parent(void);
static void cap_rt_atfork_child(void);
static int cap_rt_unwind(void **ips, int max);
static void cap_rt_atexit(void);
static void cap_rt_shutdown(int at_exit);
/* The C library's exit-handler registration (C++ ABI; glibc, musl): atexit
 * with the handle of the object the handler belongs to, or none. */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso_handle);

/* ---- process-wide setup ------------------------------------------------ */

static void cap_rt_thread_exit(void *arg)
{
	cap_thread *t = arg;
	/* A record made by a later TLS destructor registers a fresh state. */
	if (cap_tls_thread == t)
		cap_tls_thread = &cap_thread_none;
	atomic_store_explicit(&t->dead, 1, memory_order_release);
}

/* cap_g.fast_state from the stack policy and the clock (cap_internal.h). */
static void cap_rt_fast_states_set(void)
{
	cap_stacks_mode m = cap_g.cfg.stacks;
	int i, stack, ok;
	for (i = 0; i < 4; i++) {
		stack = m == CAP_STACKS_ALL || (m == CAP_STACKS_WORK && (i & CAP_FAST_WORK));
		ok = !stack && (!(i & CAP_FAST_TSC) || cap_clock_g.tsc);
		atomic_store_explicit(&cap_g.fast_state[i], ok ? CAP_ST_RUNNING : -1,
		                      memory_order_relaxed);
	}
}

static void cap_rt_global_init(void)
{
	cap_config_parse_(&cap_g.cfg);
	/* Before any record: the mode never changes (cap_clock.h). */
	cap_clock_init(&cap_clock_g, !cap_g.cfg.clock_monotonic);
	cap_rt_fast_states_set();
	if (pthread_key_create(&cap_g.thread_key, cap_rt_thread_exit) != 0)
		CAP_ERROR("cannot create the thread key; thread exit is not tracked");
	pthread_atfork(cap_rt_atfork_prepare, cap_rt_atfork_parent, cap_rt_atfork_child);
	atexit(cap_rt_atexit);
	cap_window_init_();
}

const cap_config *cap_config_get(void)
{
	pthread_once(&cap_rt_once, cap_rt_global_init);
	return &cap_g.cfg;
}

/* ---- fatal signals ----------------------------------------------------- */

/* Who owns faults raised on purpose (cap.h). */
static _Atomic(cap_fault_fn) cap_fault_owner;

void cap_fault_owner_set(cap_fault_fn fn)
{
	atomic_store(&cap_fault_owner, fn);
}

static void cap_sig_handler(int sig, siginfo_t *si, void *uc);

int cap_fault_owner_reached(cap_fault_fn fn)
{
	struct sigaction cur;
	return fn && atomic_load(&cap_fault_owner) == fn && sigaction(SIGSEGV, NULL, &cur) == 0 &&
	       (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == cap_sig_handler;
}

static void cap_sig_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	int idx = 0;
	cap_fault_fn owner;
	(void)uc;
	/* A fault the kernel raised (si_code > 0) on a page made to fault on
	 * purpose: its owner handles it, whatever handler came first. */
	if (sig == SIGSEGV && si && si->si_code > 0 && (owner = atomic_load(&cap_fault_owner)) &&
	    owner(si->si_addr)) {
		errno = saved_errno;
		return;
	}
	for (int i = 0; i < CAP_NSIG; i++)
		if (cap_sig_list[i] == sig)
			idx = i;
	if (atomic_load(&cap_g.state) == CAP_ST_RUNNING && cap_g.writer_started &&
	    !cap_tls_is_writer) {
		uint64_t r = atomic_fetch_add(&cap_g.flush_req, 1) + 1;
		struct timespec ms = {0, 1000000};
		cap_writer_wake();
		for (int i = 0; i < CAP_SIG_WAIT_MS && atomic_load(&cap_g.flush_done) < r; i++)
			nanosleep(&ms, NULL);
	}
	/* Put back what was there and deliver again: the previous handler runs
	 * (or the default action happens) once this one returns. */
	sigaction(sig, &cap_sig_old[idx], NULL);
	cap_sig_ours[idx] = 0;
	raise(sig);
	errno = saved_errno;
}

static void cap_sig_install(void)
{
	for (int i = 0; i < CAP_NSIG; i++) {
		struct sigaction sa, old;
		if (cap_sig_ours[i])
			continue;
		if (sigaction(cap_sig_list[i], NULL, &old) != 0)
			continue;
		/* An ignored signal stays ignored (nohup, shells). */
		if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = cap_sig_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		cap_sig_old[i] = old;
		if (sigaction(cap_sig_list[i], &sa, NULL) == 0)
			cap_sig_ours[i] = 1;
	}
}

/* Put back the previous handlers where ours is still the one installed
 * (the runtime may be about to be unloaded). */
static void cap_sig_uninstall(void)
{
	for (int i = 0; i < CAP_NSIG; i++) {
		struct sigaction cur;
		if (!cap_sig_ours[i])
			continue;
		if (sigaction(cap_sig_list[i], NULL, &cur) == 0 &&
		    (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == cap_sig_handler)
			sigaction(cap_sig_list[i], &cap_sig_old[i], NULL);
		cap_sig_ours[i] = 0;
	}
}

static void cap_rt_warm_init(void);

/* ---- session start ----------------------------------------------------- */

static char *cap_rt_make_path(const cap_config *cfg)
{
	size_t n = strlen(cfg->output);
	char *p;
	if (cfg->exact_output)
		return strdup(cfg->output);
	if (n >= 4 && strcmp(cfg->output + n - 4, ".sbt") == 0)
		n -= 4;
	p = malloc(n + 32);
	if (p)
		snprintf(p, n + 32, "%.*s-%ld.sbt", (int)n, cfg->output, (long)getpid());
	return p;
}

#define CAP_WRITER_STACK_BYTES (2u << 20)
#define CAP_LZ4_ACCEL 2

/*
 * The writer runs on a stack we map ourselves.  A thread started in a fork
 * child would otherwise reuse the cached stack - and so the pthread_t - of
 * the parent's writer, which does not exist in the child; ThreadSanitizer
 * takes that for a duplicate thread.  The child leaves the parent's mapping
 * alone so the new one lands elsewhere.  All signals are blocked in the
 * writer: a SIGTERM handler must run on a thread that can wait for it.
 */
static int cap_rt_spawn_writer(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int err;
	void *stack = mmap(NULL, CAP_WRITER_STACK_BYTES, PROT_READ | PROT_WRITE,
	                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (stack == MAP_FAILED)
		return errno;
	mprotect(stack, 4096, PROT_NONE); /* guard page at the bottom */
	err = pthread_attr_init(&attr);
	if (err)
		goto out_unmap;
	err = pthread_attr_setstack(&attr, stack, CAP_WRITER_STACK_BYTES);
	if (err)
		goto out_attr;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&cap_g.writer_thread, &attr, cap_writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto out_attr;
	pthread_attr_destroy(&attr);
	cap_g.writer_stack = stack;
	/* Until the writer holds fork_mu, a fork could catch it starting up
	 * inside the allocator (the thread library's own set-up allocates):
	 * wait for it, bounded (cap_internal.h, fork_mu). */
	for (int i = 0; i < 100000 && !atomic_load(&cap_g.writer_alive); i++)
		nanosleep(&(struct timespec){0, 50000}, NULL);
	return 0;

out_attr:
	pthread_attr_destroy(&attr);
out_unmap:
	munmap(stack, CAP_WRITER_STACK_BYTES);
	return err;
}

/* "X.sbt" -> "X-<first API registered>.sbt" (taking over and freeing x). */
static char *cap_rt_window_alt_path(char *x)
{
	size_t n = strlen(x), an;
	char api[32] = "2";
	char *p;
	pthread_mutex_lock(&cap_g.reg_mu);
	if (cap_g.api_list) {
		an = strcspn(cap_g.api_list, ",");
		snprintf(api, sizeof(api), "%.*s", (int)an, cap_g.api_list);
	}
	pthread_mutex_unlock(&cap_g.reg_mu);
	if (n >= 4 && strcmp(x + n - 4, ".sbt") == 0)
		n -= 4;
	p = malloc(n + strlen(api) + 6);
	if (p)
		sprintf(p, "%.*s-%s.sbt", (int)n, x, api);
	free(x);
	return p;
}

/*
 * Wait until the writer has answered request r (*done >= r), looking again
 * every 100 ms; while_running: give up once recording has stopped (a write
 * error), as a flush then has nothing to wait for.
 */
static void cap_rt_wait_writer(_Atomic uint64_t *done, uint64_t r, int while_running)
{
	pthread_mutex_lock(&cap_g.flush_mu);
	while (atomic_load(done) < r &&
	       (!while_running || atomic_load(&cap_g.state) == CAP_ST_RUNNING)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&cap_g.flush_cv, &cap_g.flush_mu, &ts);
	}
	pthread_mutex_unlock(&cap_g.flush_mu);
}

/* Where the trace goes: at the default log level when the runtime chose
 * the name itself (TRACESMITH_OUTPUT unset), so the user can find it;
 * otherwise at info (the name is the one they gave). */
static void cap_rt_say_recording(const char *path)
{
	if (cap_g.cfg.output_default)
		cap_report("recording to %s", path);
	else
		CAP_INFO("recording to %s", path);
}

/* Whether this process has the file at path open (another front-end
 * library's capture runtime: each library links its own, so a process
 * using two APIs has two, and the second finds the name locked). */
static int cap_rt_open_here(const char *path)
{
	struct stat want, st;
	struct dirent *e;
	DIR *d;
	int found = 0;
	if (stat(path, &want) != 0 || !(d = opendir("/proc/self/fd")))
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &st) == 0)
			found = st.st_dev == want.st_dev && st.st_ino == want.st_ino;
	}
	closedir(d);
	return found;
}

/* <stem>-<pid>.sbt for a trace name another process holds. */
static char *cap_rt_busy_alt_path(const char *path)
{
	size_t n = strlen(path);
	char *p;
	if (n >= 4 && strcmp(path + n - 4, ".sbt") == 0)
		n -= 4;
	p = malloc(n + 32);
	if (p)
		snprintf(p, n + 32, "%.*s-%ld.sbt", (int)n, path, (long)getpid());
	return p;
}

/*
 * Open the trace file `path` (taken over) and make it the session's: the
 * first one starts the writer thread, a later one (the next capture window)
 * is handed to the running writer.  Then the state becomes final_state.
 * Called with start_mu held.  0, or -1 with a message printed (the state is
 * then FAILED for a first file, unchanged for a later one).
 */
int cap_rt_start_file_(const char *path_in, int final_state)
{
	const cap_config *cfg = &cap_g.cfg;
	char *path = (char *)path_in;
	sbt_writer *w = NULL;
	sbt_status st;
	int fd = -1, err;

	if (!path) {
		CAP_ERROR("out of memory starting capture; recording is off");
		goto out_failed;
	}
	if (cap_g.cfg.triggers) {
		/* A window's file, locked while it is written: another front-end
		 * library's runtime in this process (the in-app API opens a
		 * window in each) may be writing the same name; that one keeps
		 * it, this one adds its API's name. */
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		free(cap_g.win_main_path);
		cap_g.win_main_path = NULL;
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
			close(fd);
			cap_g.win_main_path = strdup(path);
			path = cap_rt_window_alt_path(path);
			fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
			if (fd >= 0)
				flock(fd, LOCK_EX | LOCK_NB);
		}
		if (fd >= 0 && ftruncate(fd, 0) != 0) {
			close(fd);
			fd = -1;
		}
	} else {
		/* Locked while written, and emptied only once locked: a trace
		 * another live process is writing under this name is never
		 * truncated; this process writes <stem>-<pid>.sbt instead. */
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
			char *alt = cap_rt_busy_alt_path(path);
			close(fd);
			fd = -1;
			if (alt && cap_rt_open_here(path)) {
				char api[64] = "this library's API";
				pthread_mutex_lock(&cap_g.reg_mu);
				if (cap_g.api_list)
					snprintf(api, sizeof(api), "%s", cap_g.api_list);
				pthread_mutex_unlock(&cap_g.reg_mu);
				CAP_WARN("trace '%s' is being written by another TraceSmith library in this "
				         "process (each front-end library has its own capture runtime, so "
				         "each records its API to a trace of its own); recording %s to '%s' "
				         "instead", path, api, alt);
			} else if (alt)
				CAP_WARN("trace '%s' is being written by another process; recording to "
				         "'%s' instead", path, alt);
			if (alt) {
				free(path);
				path = alt;
				fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
				if (fd >= 0)
					flock(fd, LOCK_EX | LOCK_NB);
			}
		}
		if (fd >= 0 && ftruncate(fd, 0) != 0) {
			close(fd);
			fd = -1;
		}
	}
	if (!path) {
		CAP_ERROR("out of memory starting capture; recording is off");
		goto out_failed;
	}
	if (fd < 0) {
		CAP_ERROR("cannot write trace '%s': %s; recording is off", path, strerror(errno));
		goto out_failed;
	}
	errno = 0;
	{
		/* lz4 acceleration 2: on the call-bound benchmark's records (about
		 * 40 bytes each) it cut lz4's instructions by about a fifth for
		 * 1 % more bytes (docs/benchmarks.md); lz4 is most of what the
		 * writer thread spends per record. */
		sbt_writer_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.compression_level = CAP_LZ4_ACCEL;
		wo.blob_page_bytes = CAP_PAGE_BYTES;
		st = sbt_writer_open_fd(fd, &wo, &w);
	}
	if (st != SBT_OK) {
		err = errno;
		CAP_ERROR("cannot write trace '%s': %s%s%s; recording is off", path,
		          sbt_strerror(st), err ? ": " : "", err ? strerror(err) : "");
		close(fd);
		goto out_failed;
	}
	/* Record times count from the header's clock, so take it from there. */
	{
		sbt_header_info hdr;
		sbt_writer_get_header(w, &hdr);
		cap_g.start_mono_ns = hdr.start_mono_ns;
		cap_g.start_wall_ns = hdr.start_wall_ns;
	}
	free(cap_g.path);
	cap_g.path = path;
	cap_g.fd = fd;
	atomic_fetch_add(&cap_g.file_gen, 1);
	if (cap_g.writer_started) {
		/* A later window: sequence numbers and blob ids go on. */
		cap_g.writer = w;
		cap_rt_rotate_(w);
		atomic_store(&cap_g.state, final_state);
		cap_rt_say_recording(path);
		return 0;
	}
	cap_g.writer = w;
	cap_rt_warm_init();
	atomic_store(&cap_g.rot_done, atomic_load(&cap_g.rot_req));
	atomic_store(&cap_g.next_seq, 1);
	atomic_store(&cap_g.next_blob, 1);
	atomic_store(&cap_g.stopping, 0);
	if (sem_init(&cap_g.wake, 0, 0) != 0) {
		CAP_ERROR("cannot create the writer's semaphore: %s; recording is off",
		          strerror(errno));
		goto out_close_writer;
	}
	err = cap_rt_spawn_writer();
	if (err != 0) {
		CAP_ERROR("cannot start the writer thread: %s; recording is off", strerror(err));
		goto out_destroy_sem;
	}
	cap_g.writer_started = 1;
	/* libunwind initialises itself on first use without a lock that TSan
	 * can see; do it here, before any thread can take a stack, and keep
	 * that one-time cost off the first record. */
	if (cfg->stacks != CAP_STACKS_NONE) {
		void *ips[4];
		cap_rt_unwind(ips, 4);
	}
	cap_sig_install();
	atomic_store(&cap_g.state, final_state);
	cap_rt_say_recording(cap_g.path);
	return 0;

out_destroy_sem:
	sem_destroy(&cap_g.wake);
out_close_writer:
	/* Leaves a valid, empty trace: the header was written. */
	sbt_writer_close(cap_g.writer);
	cap_g.writer = NULL;
	cap_g.fd = -1;
	atomic_store(&cap_g.state, CAP_ST_FAILED);
	return -1;
out_failed:
	if (path != cap_g.path)
		free(path);
	if (!cap_g.writer_started)
		atomic_store(&cap_g.state, CAP_ST_FAILED);
	return -1;
}

/* Called with start_mu held and state IDLE. */
static void cap_rt_start_session(void)
{
	if (cap_g.cfg.disabled) {
		atomic_store(&cap_g.state, CAP_ST_DISABLED);
		return;
	}
	if (cap_g.cfg.triggers) {
		/* Windowed: nothing is written until a window opens. */
		atomic_store(&cap_g.state, CAP_ST_CLOSED);
		return;
	}
	cap_rt_start_file_(cap_rt_make_path(&cap_g.cfg), CAP_ST_RUNNING);
}

/*
 * Hand the writer its next file (NULL: finish the current one and write
 * none until the next window) and wait until it has taken it: everything
 * recorded before this call is in the file being finished.
 */
void cap_rt_rotate_(sbt_writer *next)
{
	uint64_t r;
	cap_g.next_writer = next;
	r = atomic_fetch_add(&cap_g.rot_req, 1) + 1;
	cap_writer_wake();
	cap_rt_wait_writer(&cap_g.rot_done, r, 0);
}

static void cap_rt_warn_dropped(void)
{
	/* A windowed run that ended between windows: a call after it falls
	 * between windows too, where calls are never recorded nor warned of. */
	if (atomic_load(&cap_g.ended_closed))
		return;
	if (!atomic_exchange(&cap_g.dropped_warned, 1))
		CAP_WARN("a call was made after the trace was closed; it is not recorded");
}

/* CAP_ST_LATE: write what this thread has just sealed, and finish the
 * file again (cap_internal.h) - unless cap_rt_late_end is still to run,
 * which writes every record sealed before it at once (late_batch). */
static void cap_rt_late_write(void)
{
	int rc;
	if (atomic_load(&cap_g.late_batch))
		return;
	pthread_mutex_lock(&cap_g.late_mu);
	rc = cap_writer_late_write_(0);
	pthread_mutex_unlock(&cap_g.late_mu);
	if (rc != 0)
		cap_rt_warn_dropped();
}

static inline int cap_rt_is_late(void)
{
	return __builtin_expect(atomic_load_explicit(&cap_g.state, memory_order_relaxed) ==
	                            CAP_ST_LATE, 0);
}

/* How long a thread waits for another to finish opening a window. */
#define CAP_OPENING_WAIT_MS 5000

static int cap_rt_ready_slow(int st)
{
	if (st == CAP_ST_IDLE) {
		pthread_once(&cap_rt_once, cap_rt_global_init);
		pthread_mutex_lock(&cap_g.start_mu);
		if (atomic_load(&cap_g.state) == CAP_ST_IDLE)
			cap_rt_start_session();
		pthread_mutex_unlock(&cap_g.start_mu);
		st = atomic_load(&cap_g.state);
		if (st == CAP_ST_CLOSED)
			cap_window_started_();
		st = atomic_load(&cap_g.state);
		if (st == CAP_ST_RUNNING)
			return !cap_tls_is_writer;
	}
	if (st == CAP_ST_OPENING) {
		struct timespec ms = {0, 1000000};
		if (cap_tls_opening)
			return 1;
		/* Another thread writes a window's snapshot: its records come
		 * first.  Bounded, so that a front-end lock the snapshot waits for
		 * cannot hang the program. */
		for (int i = 0; i < CAP_OPENING_WAIT_MS &&
		                atomic_load(&cap_g.state) == CAP_ST_OPENING; i++)
			nanosleep(&ms, NULL);
		return atomic_load(&cap_g.state) == CAP_ST_RUNNING && !cap_tls_is_writer;
	}
	if (st == CAP_ST_LATE)
		return !cap_tls_is_writer;
	if (st == CAP_ST_STOPPED)
		cap_rt_warn_dropped();
	return 0;
}

int cap_rt_ready_slow_(void)
{
	return cap_rt_ready_slow(atomic_load_explicit(&cap_g.state, memory_order_acquire));
}

int cap_active(void)
{
	return cap_rt_ready();
}

void cap_set_bare_encoder(cap_encode_type_fn encode)
{
	atomic_store_explicit(&cap_g.bare_encode, encode, memory_order_release);
}

/* ---- per-thread buffers ------------------------------------------------ */

void cap_block_free_(cap_block *b)
{
	if (b && b->mapped)
		munmap(b, sizeof(*b) + b->cap);
	else
		free(b);
}

/*
 * Blocks are mapped, not taken from malloc: a recording thread asks for a
 * new block in the middle of the program's own allocations, and a 64 KiB
 * malloc there made glibc consolidate the program's free small chunks
 * first (on the CUDA test double, ~40,000 instructions per block, a
 * hundred per launch).  A mapping has no part in the program's heap.
 * Where mapping fails (the process's map count limit under a very large
 * TRACESMITH_MEMORY_MB), malloc still serves.
 */
static cap_block *cap_rt_block_new(size_t cap)
{
	cap_block *b = mmap(NULL, sizeof(*b) + cap, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int mapped = b != MAP_FAILED;
	if (!mapped) {
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
	}
	b->mapped = mapped;
	b->next = NULL;
	b->cap = cap;
	atomic_init(&b->committed, 0);
	atomic_init(&b->sealed, 0);
	return b;
}

/* The blocks the writer keeps warm: the target in blocks for `bytes`. */
static uint64_t cap_rt_warm_blocks(uint64_t bytes)
{
	uint64_t quarter = cap_g.cfg.memory_bound / 4;
	if (bytes > quarter)
		bytes = quarter;
	return bytes / CAP_BLOCK_COST(CAP_BLOCK_BYTES);
}

/* Set the target at a session's start (cap_internal.h, "Warm blocks"). */
static void cap_rt_warm_init(void)
{
	const cap_config *cfg = &cap_g.cfg;
	cap_g.warm_target = cap_rt_warm_blocks(cfg->warm_fixed ? cfg->warm_bytes : CAP_WARM_DEFAULT);
}

/* A default-size block for a recording thread with no spare: a warm one
 * (waking the writer when that leaves fewer than half the target), else
 * (a miss) one mapped here, its pages faulted in as they are written. */
static cap_block *cap_rt_warm_take(void)
{
	cap_block *b = NULL;
	uint64_t left = 0;
	if (atomic_load_explicit(&cap_g.warm_n, memory_order_relaxed)) {
		pthread_mutex_lock(&cap_g.warm_mu);
		b = cap_g.warm;
		if (b) {
			cap_g.warm = b->next;
			left = atomic_fetch_sub_explicit(&cap_g.warm_n, 1, memory_order_relaxed) - 1;
		}
		pthread_mutex_unlock(&cap_g.warm_mu);
	}
	if (b) {
		if (left < cap_g.warm_target / 2)
			cap_writer_wake();
		b->next = NULL;
		atomic_store_explicit(&b->committed, 0, memory_order_relaxed);
		atomic_store_explicit(&b->sealed, 0, memory_order_relaxed);
		return b;
	}
	if (cap_g.warm_target) {
		atomic_fetch_add_explicit(&cap_g.warm_misses, 1, memory_order_relaxed);
		cap_writer_wake();
	}
	return cap_rt_block_new(CAP_BLOCK_BYTES);
}

/* Puts free block b on the warm stack. */
static void cap_rt_warm_push(cap_block *b)
{
	pthread_mutex_lock(&cap_g.warm_mu);
	b->next = cap_g.warm;
	cap_g.warm = b;
	atomic_fetch_add_explicit(&cap_g.warm_n, 1, memory_order_relaxed);
	pthread_mutex_unlock(&cap_g.warm_mu);
}

/* Writer only: fault in new blocks until the stack holds the target.  A
 * byte written in every page is what faults it in (a read would map the
 * shared zero page). */
void cap_warm_fill_(void)
{
	uint64_t target = cap_g.warm_target;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	while (atomic_load_explicit(&cap_g.warm_n, memory_order_relaxed) < target &&
	       !atomic_load_explicit(&cap_g.stopping, memory_order_relaxed)) {
		cap_block *b = cap_rt_block_new(CAP_BLOCK_BYTES);
		if (!b)
			return;
		for (size_t off = 0; off < b->cap; off += page)
			((volatile uint8_t *)b->data)[off] = 0;
		atomic_fetch_add_explicit(&cap_g.warm_faulted, 1, memory_order_relaxed);
		cap_rt_warm_push(b);
	}
}

int cap_warm_give_(cap_block *b)
{
	if (b->cap != CAP_BLOCK_BYTES || !b->mapped ||
	    atomic_load_explicit(&cap_g.warm_n, memory_order_relaxed) >= cap_g.warm_target)
		return 0;
	cap_rt_warm_push(b);
	return 1;
}

/* A block with room for cap bytes: for the default size, a spare the writer
 * gave back when there is one (cap_internal.h), else a new one. */
static cap_block *cap_rt_block_take(cap_thread *t, size_t cap)
{
	cap_block *b;
	if (cap != CAP_BLOCK_BYTES) {
		/* A larger spare, if it fits and does not waste half of itself;
		 * one that does not is offered back (cap_spare_big_offer) for a
		 * later entry if it is of at most CAP_SPARE_BIG_MORE_MAX bytes,
		 * else, or if no slot is empty, unmapped (a large one kept idle
		 * would hold its memory for good).  Taken before it is
		 * looked at: the writer may replace the first slot's block and
		 * unmap it. */
		for (unsigned i = 0; i < CAP_SPARE_BIG_SLOTS; i++) {
			b = atomic_load_explicit(&t->spare_big[i], memory_order_relaxed)
			        ? atomic_exchange_explicit(&t->spare_big[i], NULL, memory_order_acquire)
			        : NULL;
			if (!b)
				continue;
			if (b->cap >= cap && b->cap / 2 <= cap) {
				b->next = NULL;
				atomic_store_explicit(&b->committed, 0, memory_order_relaxed);
				atomic_store_explicit(&b->sealed, 0, memory_order_relaxed);
				return b;
			}
			if (b->cap > CAP_SPARE_BIG_MORE_MAX || !cap_spare_big_offer(t, b))
				cap_block_free_(b);
		}
		/* None to take: the writer is woken, so that it drains the larger
		 * blocks it has (this thread has moved past them) and leaves them
		 * as spares for the next such entries instead of this thread
		 * mapping and faulting in new ones (cap_internal.h, "Spare
		 * blocks"). */
		cap_writer_wake();
		return cap_rt_block_new(cap);
	}
	if (!t->spare_own && atomic_load_explicit(&t->spare, memory_order_relaxed))
		t->spare_own = atomic_exchange_explicit(&t->spare, NULL, memory_order_acquire);
	b = t->spare_own;
	if (!b)
		return cap_rt_warm_take();
	t->spare_own = b->next;
	atomic_fetch_sub_explicit(&cap_g.spare_bytes, CAP_BLOCK_COST(cap), memory_order_relaxed);
	b->next = NULL;
	atomic_store_explicit(&b->committed, 0, memory_order_relaxed);
	atomic_store_explicit(&b->sealed, 0, memory_order_relaxed);
	return b;
}

/*
 * The fast paths' words (cap_internal.h, cap_thread's fast_end).  A state
 * change away from running must stop every thread's fast path for good: a
 * fast record taken after a stop, the finish at exit (CAP_ST_LATE) or a
 * window's close would go to no file, or to the wrong one.  The thread
 * that changes the state stores it, then zeroes every thread's words
 * (cap_rt_fast_stop_); a thread that enables its own stores them, then
 * reads the state again and zeroes them if it is not running
 * (cap_rt_fast_on_).  All of these are seq_cst, so they fall in one
 * order: if the owner's read of the state comes after the stopper's store,
 * it sees the new state and zeroes its words itself; if it comes before,
 * so do the owner's stores, and the stopper's zeroes land after them (a
 * thread registering meanwhile is pushed onto cap_g.threads before it
 * enables its words, so the stopper's walk finds it).  Either way the
 * words end 0 until the state is running again; then each thread enables
 * its own at its next out-of-line call (cap_rt_thread): the fast record
 * that finds 0 after a start takes the out-of-line path, which does it.
 * A record that passed its check just before the change is sealed after
 * it, as one that passed the old compare of the state was.  The writer's
 * own change to CAP_ST_FAILED (a write error, cap_writer.c) zeroes
 * nothing: the writer discards what it drains from then on, so a fast
 * record goes on at most into the thread's current block, whose end
 * (cap_rt_block_next) or a shutdown turns it off.
 */
static void cap_rt_fast_off(cap_thread *t)
{
	for (int i = 0; i < CAP_FAST_CLASSES; i++)
		atomic_store(&t->fast_end[i], 0);
}

void cap_rt_fast_on_(cap_thread *t)
{
	uintptr_t end = (uintptr_t)t->tail->data + t->tail->cap;
	int i;
	if (atomic_load_explicit(&cap_g.state, memory_order_relaxed) == CAP_ST_RUNNING) {
		for (i = 0; i < CAP_FAST_CLASSES; i++)
			atomic_store(&t->fast_end[i],
			             atomic_load_explicit(&cap_g.fast_state[i], memory_order_relaxed) ==
			                     CAP_ST_RUNNING
			                 ? end
			                 : 0);
		if (atomic_load(&cap_g.state) == CAP_ST_RUNNING)
			return;
	}
	cap_rt_fast_off(t);
}

void cap_rt_fast_stop_(void)
{
	/* Every writer round holds fork_mu, and only a round unlinks and frees
	 * a thread (cap_writer.c, a dead one drained): held, the walk reads no
	 * freed node. */
	pthread_mutex_lock(&cap_g.fork_mu);
	for (cap_thread *t = atomic_load(&cap_g.threads); t; t = t->next)
		cap_rt_fast_off(t);
	pthread_mutex_unlock(&cap_g.fork_mu);
}

/* Registers this thread: its state, pushed onto cap_g.threads, then its
 * words enabled (above).  Out of line, so that cap_rt_thread's common case
 * keeps no frame. */
static __attribute__((noinline)) cap_thread *cap_rt_thread_new(void)
{
	cap_thread *t, *old;
	if (posix_memalign((void **)&t, CAP_LINE, sizeof(*t)) != 0)
		goto out_nomem;
	memset(t, 0, sizeof(*t));
	t->tail = t->head = cap_rt_block_new(CAP_BLOCK_BYTES);
	if (!t->tail)
		goto out_free_thread;
	t->wptr = (uintptr_t)t->tail->data;
	atomic_init(&t->committed, t->wptr);
	/* The first block is not waited for: a thread must be able to start. */
	atomic_fetch_add_explicit(&cap_g.buffered, CAP_BLOCK_COST(CAP_BLOCK_BYTES),
	                          memory_order_relaxed);
	t->tid = (uint64_t)syscall(SYS_gettid);
	old = atomic_load_explicit(&cap_g.threads, memory_order_relaxed);
	do {
		t->next = old;
	} while (!atomic_compare_exchange_weak_explicit(&cap_g.threads, &old, t,
	                                                memory_order_release,
	                                                memory_order_relaxed));
	cap_tls_thread = t;
	cap_tls_gen = cap_g.generation;
	pthread_setspecific(cap_g.thread_key, t);
	cap_rt_fast_on_(t); /* pushed first: see above */
	return t;

out_free_thread:
	free(t);
out_nomem:
	CAP_ERROR("out of memory registering a recording thread; its calls are not recorded");
	return NULL;
}

/* This thread's state, registered on first use.  A thread whose words a
 * stop zeroed enables them here once the session runs again (above):
 * class 0 is allowed whenever any class is (cap_internal.h, fast_state),
 * so its word alone says whether they are off. */
static inline cap_thread *cap_rt_thread(void)
{
	cap_thread *t = cap_tls_thread;
	if (__builtin_expect(t == &cap_thread_none || cap_tls_gen != cap_g.generation, 0))
		return cap_rt_thread_new();
	if (__builtin_expect(!atomic_load_explicit(&t->fast_end[0], memory_order_relaxed), 0) &&
	    atomic_load_explicit(&cap_g.fast_state[0], memory_order_relaxed) == CAP_ST_RUNNING &&
	    atomic_load_explicit(&cap_g.state, memory_order_relaxed) == CAP_ST_RUNNING)
		cap_rt_fast_on_(t);
	return t;
}

/* Whether `need` more bytes may be buffered on top of `b`.  An entry
 * larger than half the bound goes in once the buffers are down to a
 * quarter: waiting for them to be empty could starve it while other
 * threads keep recording small records. */
static int cap_rt_fits(uint64_t b, uint64_t need, uint64_t bound)
{
	return b + need <= bound || (need > bound / 2 && b <= bound / 4);
}

/* Producers wait here for room for a new block, before taking a sequence
 * number, while the writer catches up: nothing is dropped, and a waiting
 * thread never holds the ordering watermark back.  A round of the writer
 * that finds every chain drained lets the waiters go: what is left counted
 * are the threads' last blocks, which no amount of waiting frees. */
static void cap_rt_wait_memory(uint64_t need)
{
	uint64_t bound = cap_g.cfg.memory_bound;
	uint64_t b = atomic_load_explicit(&cap_g.buffered, memory_order_relaxed);
	uint64_t t0, drained0;
	if (cap_rt_fits(b, need, bound))
		return;
	t0 = cap_now_ns_();
	pthread_mutex_lock(&cap_g.stall_mu);
	atomic_fetch_add(&cap_g.stall_waiters, 1);
	drained0 = atomic_load(&cap_g.drained);
	for (;;) {
		struct timespec ts;
		b = atomic_load(&cap_g.buffered);
		if (cap_rt_fits(b, need, bound) || atomic_load(&cap_g.drained) != drained0 ||
		    atomic_load(&cap_g.state) != CAP_ST_RUNNING)
			break;
		cap_writer_wake();
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&cap_g.stall_cv, &cap_g.stall_mu, &ts);
	}
	atomic_fetch_sub(&cap_g.stall_waiters, 1);
	pthread_mutex_unlock(&cap_g.stall_mu);
	atomic_fetch_add_explicit(&cap_g.n_stalls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&cap_g.stall_ns, cap_now_ns_() - t0, memory_order_relaxed);
}

/* Move t to a new block with room for an entry of `need` bytes: within the
 * memory bound (this runs before the record takes its seq), counted in
 * g->buffered before the writer can see it, so the writer never takes off
 * what was not added. */
static cap_block *cap_rt_block_next(cap_thread *t, size_t need)
{
	/* a larger block in whole default blocks, so that entries of nearly
	 * one size (a mapped-memory publish's room, its piece count varying)
	 * fit the spare the last one left (cap_rt_block_take) */
	size_t cap = need > CAP_BLOCK_BYTES
	                     ? (need + CAP_BLOCK_BYTES - 1) / CAP_BLOCK_BYTES * CAP_BLOCK_BYTES
	                     : CAP_BLOCK_BYTES;
	uint64_t cost = CAP_BLOCK_COST(cap);
	uint64_t before;
	cap_block *nb;
	cap_rt_wait_memory(cost);
	nb = cap_rt_block_take(t, cap);
	if (!nb) {
		CAP_ERROR("out of memory buffering an entry of %zu bytes", need);
		return NULL;
	}
	before = atomic_fetch_add_explicit(&cap_g.buffered, cost, memory_order_relaxed);
	/* The old block's size, then its end, then the cursor in the new one
	 * (cap_internal.h's top): a writer that finds the thread's committed
	 * outside its block finds the block sealed and its size final. */
	atomic_store_explicit(&t->tail->committed, t->wptr - (uintptr_t)t->tail->data,
	                      memory_order_relaxed);
	t->tail->next = nb;
	atomic_store_explicit(&t->tail->sealed, 1, memory_order_release);
	t->tail = nb;
	t->wptr = (uintptr_t)nb->data;
	atomic_store_explicit(&t->committed, t->wptr, memory_order_release);
	cap_rt_fast_on_(t);
	/* Past a quarter of the bound (at most 4 MiB) the writer should not
	 * wait for its timer. */
	if (before + cost >= cap_wake_threshold(&cap_g.cfg))
		cap_writer_wake();
	return nb;
}

/* Room for an entry with `body` bytes after the header, in the thread's
 * current block or a new one.  Not visible to the writer until published. */
static cap_entry *cap_rt_reserve(cap_thread *t, size_t body)
{
	size_t need = cap_rt_entry_size(body);
	cap_block *b = t->tail;
	cap_entry *e;
	if (__builtin_expect((uintptr_t)b->data + b->cap - t->wptr < need, 0)) {
		b = cap_rt_block_next(t, need);
		if (!b)
			return NULL;
	}
	e = (cap_entry *)t->wptr;
	e->size = need;
	return e;
}

/* ---- host stacks ------------------------------------------------------- */

/*
 * unw_backtrace keeps a per-thread trace cache whose thread-exit destructor
 * takes a lock after ThreadSanitizer has torn the thread down (a crash at
 * thread exit in `make tsan`).  Under TSan we step frame by frame instead:
 * slower, no per-thread state; the frames are the same.
 */
static int cap_rt_unwind(void **ips, int max)
{
#if defined(__SANITIZE_THREAD__)
	unw_context_t ctx;
	unw_cursor_t cur;
	int n = 0;
	if (unw_getcontext(&ctx) != 0 || unw_init_local(&cur, &ctx) != 0)
		return 0;
	do {
		unw_word_t ip;
		if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
			break;
		ips[n++] = (void *)(uintptr_t)ip;
	} while (n < max && unw_step(&cur) > 0);
	return n;
#else
	return unw_backtrace(ips, max);
#endif
}

/*
 * Unwind on the caller's thread (the frames are gone later), hash the
 * frames, and send them to the writer only the first time this thread sees
 * that hash.  `caller` is the return address into the application: frames
 * inside the runtime are cut off there.  Returns the key, 0 on failure.
 */
__attribute__((noinline)) static uint64_t cap_rt_take_stack(cap_thread *t, uintptr_t caller)
{
	void *ips[CAP_STACK_MAX + 8];
	int n = cap_rt_unwind(ips, CAP_STACK_MAX + 8);
	int first = 0;
	uint64_t key;
	size_t slot;
	if (n <= 0)
		return 0;
	for (int i = 0; i < n && i < 8; i++) {
		if ((uintptr_t)ips[i] == caller) {
			first = i;
			break;
		}
	}
	n -= first;
	if (n > CAP_STACK_MAX)
		n = CAP_STACK_MAX;
	key = XXH3_64bits(ips + first, (size_t)n * sizeof(void *));
	if (key == 0)
		key = 1;
	atomic_fetch_add_explicit(&cap_g.n_stacks_taken, 1, memory_order_relaxed);
	{
		/* Each window's file gets its own stacks. */
		uint64_t fg = atomic_load_explicit(&cap_g.file_gen, memory_order_relaxed);
		if (__builtin_expect(t->stack_file != fg, 0)) {
			memset(t->stack_cache, 0, sizeof(t->stack_cache));
			t->stack_file = fg;
		}
	}
	slot = (size_t)(key % CAP_STACK_CACHE);
	if (t->stack_cache[slot] != key) {
		cap_entry *e = cap_rt_reserve(t, (size_t)n * sizeof(uint64_t));
		uint64_t *out;
		if (!e)
			return 0;
		e->kind = CAP_ENT_STACK;
		e->type = 0;
		e->seq = 0;
		e->time_ns = 0;
		e->key = key;
		e->len = (uint64_t)n;
		out = (uint64_t *)(e + 1);
		for (int i = 0; i < n; i++)
			out[i] = (uint64_t)(uintptr_t)ips[first + i];
		cap_rt_publish(t, e);
		t->stack_cache[slot] = key;
	}
	return key;
}

/* ---- recording --------------------------------------------------------- */

/* Room in this thread's chain for a record of up to max_len payload bytes,
 * after its stack entry when the policy takes one; NULL when nothing may be
 * recorded now.  Runs before the seq is taken (it may wait for memory). */
static inline cap_entry *cap_rt_open(uint32_t type, unsigned flags, size_t max_len,
                                     uintptr_t caller, cap_thread **t_out, uint64_t *key_out)
{
	cap_thread *t;
	uint64_t key = 0;
	if (!cap_rt_ready())
		return NULL;
	t = cap_rt_thread();
	if (!t)
		return NULL;
	if (__builtin_expect(cap_rt_in_record(t), 0)) {
		CAP_ERROR("record of type %" PRIu32 " begun inside another record; not recorded", type);
		return NULL;
	}
	if (cap_rt_wants_stack(flags))
		key = cap_rt_take_stack(t, caller);
	*t_out = t;
	*key_out = key;
	return cap_rt_reserve(t, max_len);
}

static inline uint64_t cap_rt_seal(cap_thread *t, cap_entry *e, uint32_t type, uint64_t key,
                                   size_t len)
{
	e->kind = CAP_ENT_RECORD;
	e->type = type;
	e->key = key;
	return cap_rt_seal_entry(t, e, 0, len);
}

/* encode NULL: a payload; else a deferred record's raw bytes, after the
 * cap_deferred naming its encoder. */
static uint8_t *cap_rt_begin(uint32_t type, unsigned flags, cap_encode_fn encode, size_t max_len,
                             cap_rec **rec_out, uintptr_t caller)
{
	size_t head = encode ? sizeof(cap_deferred) : 0;
	cap_thread *t;
	uint64_t key;
	cap_entry *e = cap_rt_open(type, flags, head + max_len, caller, &t, &key);
	if (!e)
		return NULL;
	/* The entry is the writer's only once published: what commit does
	 * not change goes straight into it. */
	e->kind = encode ? CAP_ENT_DEFERRED : CAP_ENT_RECORD;
	e->type = type;
	e->key = key;
	if (encode)
		((cap_deferred *)(e + 1))->encode = encode;
	cap_rt_record_open(t);
	t->rec.thread = t;
	t->rec.entry = e;
	t->rec.max_len = max_len;
	t->rec.head = head;
	t->rec.late = cap_rt_is_late();
	t->rec.late_max = max_len;
	if (t->rec.late)
		t->rec.max_len = 0;
	*rec_out = &t->rec;
	return (uint8_t *)(e + 1) + head;
}

static uint64_t cap_rt_commit(cap_rec *rec, size_t len)
{
	cap_thread *t = rec->thread;
	size_t max = rec->late ? rec->late_max : rec->max_len;
	uint64_t seq;
	if (len > max) {
		CAP_ERROR("record of type %" PRIu32 " committed %zu bytes, reserved %zu; truncated",
		          rec->entry->type, len, max);
		len = max;
	}
	cap_rt_record_close(t);
	seq = cap_rt_seal_entry(t, rec->entry, rec->head, len);
	if (cap_rt_is_late())
		cap_rt_late_write();
	return seq;
}

/* cap_record: the copy sits between open and seal, so nothing else can be
 * recorded on this thread in between and no pending-record state is kept. */
static uint64_t cap_rt_record(uint32_t type, unsigned flags, const void *payload,
                              size_t len, uintptr_t caller)
{
	cap_thread *t;
	uint64_t key, seq;
	cap_entry *e = cap_rt_open(type, flags, len, caller, &t, &key);
	if (!e)
		return 0;
	if (len)
		memcpy(e + 1, payload, len);
	seq = cap_rt_seal(t, e, type, key, len);
	if (cap_rt_is_late())
		cap_rt_late_write();
	return seq;
}

uint64_t cap_record(uint32_t type, unsigned flags, const void *payload, size_t len)
{
	return cap_rt_record(type, flags, payload, len,
	                     (uintptr_t)__builtin_return_address(0));
}

uint8_t *cap_record_begin(uint32_t type, unsigned flags, size_t max_len, cap_rec **rec_out)
{
	return cap_rt_begin(type, flags, NULL, max_len, rec_out,
	                    (uintptr_t)__builtin_return_address(0));
}

uint8_t *cap_record_begin_deferred(uint32_t type, unsigned flags, cap_encode_fn encode,
                                   size_t max_raw, cap_rec **rec_out)
{
	if (!encode)
		return NULL;
	return cap_rt_begin(type, flags, encode, max_raw, rec_out,
	                    (uintptr_t)__builtin_return_address(0));
}

uint64_t cap_record_commit(cap_rec *rec, size_t len)
{
	if (!rec)
		return 0;
	return cap_rt_commit(rec, len);
}

uint64_t cap_blob(const void *data, size_t len)
{
	cap_thread *t;
	cap_entry *e;
	uint64_t id;
	if (!cap_rt_ready())
		return 0;
	t = cap_rt_thread();
	if (!t)
		return 0;
	if (cap_rt_in_record(t)) {
		CAP_ERROR("blob of %zu bytes attached inside a record; not recorded", len);
		return 0;
	}
	e = cap_rt_reserve(t, len);
	if (!e)
		return 0;
	id = atomic_fetch_add_explicit(&cap_g.next_blob, 1, memory_order_relaxed);
	e->kind = CAP_ENT_BLOB;
	e->type = 0;
	e->seq = 0;
	e->time_ns = 0;
	e->key = id;
	e->len = len;
	if (len)
		memcpy(e + 1, data, len);
	cap_rt_publish(t, e);
	atomic_fetch_add_explicit(&cap_g.n_blob_bytes, len, memory_order_relaxed);
	return id;
}

/* Bytes of a PIECES body before its piece lengths. */
static inline size_t cap_rt_pieces_at(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

uint8_t *cap_blob_begin(size_t max_len, size_t max_pieces, cap_rec **rec_out)
{
	cap_thread *t;
	cap_entry *e;
	if (!rec_out || max_pieces > UINT32_MAX || max_len > SIZE_MAX / 2 ||
	    max_pieces > (SIZE_MAX / 2) / sizeof(uint64_t) || !cap_rt_ready())
		return NULL;
	t = cap_rt_thread();
	if (!t)
		return NULL;
	if (cap_rt_in_record(t)) {
		CAP_ERROR("blob of up to %zu bytes begun inside a record; not recorded", max_len);
		return NULL;
	}
	e = cap_rt_reserve(t, cap_rt_pieces_at(max_len) + max_pieces * sizeof(uint64_t));
	if (!e)
		return NULL;
	e->kind = CAP_ENT_BLOB;
	e->type = 0;
	e->seq = 0;
	e->time_ns = 0;
	e->key = 0;
	e->len = 0;
	cap_rt_record_open(t);
	t->rec.thread = t;
	t->rec.entry = e;
	t->rec.max_len = max_len;
	t->rec.head = max_pieces; /* here: the most piece lengths reserved */
	t->rec.late = 0;
	t->rec.late_max = 0;
	*rec_out = &t->rec;
	return (uint8_t *)(e + 1);
}

uint64_t *cap_blob_pieces(cap_rec *rec, size_t len)
{
	if (!rec || !rec->head || len > rec->max_len)
		return NULL;
	return (uint64_t *)(void *)((uint8_t *)(rec->entry + 1) + cap_rt_pieces_at(len));
}

uint64_t cap_blob_commit(cap_rec *rec, size_t len, size_t npieces)
{
	cap_thread *t;
	cap_entry *e;
	uint64_t id;
	if (!rec)
		return 0;
	t = rec->thread;
	e = rec->entry;
	if (len > rec->max_len || npieces > rec->head) {
		CAP_ERROR("blob committed with %zu bytes in %zu pieces, reserved %zu in %zu; not "
		          "recorded", len, npieces, rec->max_len, rec->head);
		cap_rt_record_close(t);
		return 0;
	}
	id = atomic_fetch_add_explicit(&cap_g.next_blob, 1, memory_order_relaxed);
	e->key = id;
	e->len = len;
	if (npieces) {
		e->kind = CAP_ENT_PIECES;
		e->type = (uint32_t)npieces;
		e->size = cap_rt_entry_size(cap_rt_pieces_at(len) + npieces * sizeof(uint64_t));
	} else {
		e->size = cap_rt_entry_size(len);
	}
	cap_rt_record_close(t);
	cap_rt_publish(t, e);
	atomic_fetch_add_explicit(&cap_g.n_blob_bytes, len, memory_order_relaxed);
	return id;
}

void cap_blob_cancel(cap_rec *rec)
{
	if (rec)
		cap_rt_record_close(rec->thread);
}

/* Whether this thread sent the page with hash h to the current file
 * (cap_thread's page_cache); marks it sent when `mark`. */
static int cap_rt_page_sent(cap_thread *t, XXH128_hash_t h, int mark)
{
	uint64_t *slot = t->page_cache + 2 * (h.low64 & (CAP_PAGE_CACHE - 1));
	if (slot[0] == h.low64 && slot[1] == h.high64 && (h.low64 | h.high64))
		return 1;
	if (mark) {
		slot[0] = h.low64;
		slot[1] = h.high64;
	}
	return 0;
}

/*
 * Every page hashed into the thread's scratch (cap_pages.c: on this
 * thread and the page-hash pool's, the zero check in the same read);
 * then, here, in page order, which bytes must go (the first time this
 * thread sends a page to this file, and once only within the blob); then
 * one entry with the hashes and those bytes.  The cache is marked as it
 * goes; when no entry can be made it is dropped whole, so it never names
 * a page not sent.  zero_out NULL: cap_blob_pages; else a blob of zero
 * bytes only is not recorded, and *zero_out says so.
 */
static uint64_t cap_rt_blob_pages(const void *data, size_t len, int *zero_out)
{
	const uint8_t *src = data;
	cap_thread *t;
	cap_entry *e;
	cap_pages_head *head;
	uint8_t *flags, *out;
	uint64_t *hashes;
	size_t npages, flag_bytes, body, fresh = 0;
	uint64_t id, fg;
	if (zero_out)
		*zero_out = 0;
	if (!cap_rt_ready())
		goto out_not_recorded;
	t = cap_rt_thread();
	if (!t)
		goto out_not_recorded;
	if (cap_rt_in_record(t)) {
		CAP_ERROR("blob of %zu bytes attached inside a record; not recorded", len);
		goto out_not_recorded;
	}
	npages = len / CAP_PAGE_BYTES + (len % CAP_PAGE_BYTES != 0);
	flag_bytes = (npages + 7) & ~(size_t)7;
	if (!t->page_cache)
		t->page_cache = calloc(CAP_PAGE_CACHE, 2 * sizeof(uint64_t));
	if (t->page_scratch_cap < npages * 16 + flag_bytes) {
		uint8_t *grown = realloc(t->page_scratch, npages * 16 + flag_bytes);
		if (grown) {
			t->page_scratch = grown;
			t->page_scratch_cap = npages * 16 + flag_bytes;
		}
	}
	if (!t->page_cache || t->page_scratch_cap < npages * 16 + flag_bytes) {
		if (zero_out && cap_pages_all_zero_(data, len)) {
			*zero_out = 1;
			return 0;
		}
		return cap_blob(data, len);
	}
	hashes = (uint64_t *)(void *)t->page_scratch;
	if (!cap_pages_hash_(data, len, hashes) && zero_out) {
		*zero_out = 1;
		return 0;
	}
	/* Each window's file starts with no page sent. */
	fg = atomic_load_explicit(&cap_g.file_gen, memory_order_relaxed);
	if (t->pages_file != fg) {
		memset(t->page_cache, 0, CAP_PAGE_CACHE * 2 * sizeof(uint64_t));
		t->pages_file = fg;
	}
	flags = t->page_scratch + npages * 16;
	memset(flags + npages, 0, flag_bytes - npages);
	for (size_t i = 0; i < npages; i++) {
		size_t off = i * CAP_PAGE_BYTES;
		size_t n = len - off < CAP_PAGE_BYTES ? len - off : CAP_PAGE_BYTES;
		XXH128_hash_t h;
		h.low64 = hashes[2 * i];
		h.high64 = hashes[2 * i + 1];
		flags[i] = !cap_rt_page_sent(t, h, 1);
		if (flags[i])
			fresh += n;
	}
	body = sizeof(*head) + npages * 16 + flag_bytes + fresh;
	e = cap_rt_reserve(t, body);
	if (!e) {
		t->pages_file = 0;
		memset(t->page_cache, 0, CAP_PAGE_CACHE * 2 * sizeof(uint64_t));
		return 0;
	}
	id = atomic_fetch_add_explicit(&cap_g.next_blob, 1, memory_order_relaxed);
	e->kind = CAP_ENT_PAGES;
	e->type = 0;
	e->seq = 0;
	e->time_ns = 0;
	e->key = id;
	e->len = len;
	head = (cap_pages_head *)(e + 1);
	head->npages = (uint32_t)npages;
	head->page_bytes = CAP_PAGE_BYTES;
	memcpy(head + 1, t->page_scratch, npages * 16 + flag_bytes);
	out = (uint8_t *)(head + 1) + npages * 16 + flag_bytes;
	for (size_t i = 0; i < npages; i++) {
		size_t off = i * CAP_PAGE_BYTES;
		size_t n = len - off < CAP_PAGE_BYTES ? len - off : CAP_PAGE_BYTES;
		if (flags[i]) {
			memcpy(out, src + off, n);
			out += n;
		}
	}
	cap_rt_publish(t, e);
	atomic_fetch_add_explicit(&cap_g.n_blob_bytes, len, memory_order_relaxed);
	return id;

out_not_recorded:
	if (zero_out)
		*zero_out = cap_pages_all_zero_(data, len);
	return 0;
}

uint64_t cap_blob_pages(const void *data, size_t len)
{
	return cap_rt_blob_pages(data, len, NULL);
}

uint64_t cap_blob_pages_or_zero(const void *data, size_t len, int *zero_out)
{
	int zero;
	uint64_t id = cap_rt_blob_pages(data, len, &zero);
	if (zero_out)
		*zero_out = zero;
	return id;
}

void cap_keyframe_account(uint64_t bytes, uint64_t wait_ns, uint64_t store_ns)
{
	atomic_fetch_add_explicit(&cap_g.kf_bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&cap_g.kf_wait_ns, wait_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&cap_g.kf_store_ns, store_ns, memory_order_relaxed);
}

uint64_t cap_checkpoint(uint64_t call_seq, uint64_t object, uint64_t offset,
                        const void *data, uint64_t len)
{
	sbt_checkpoint cp;
	uint8_t *buf = NULL;
	size_t n = 0;
	uint64_t seq = 0;
	sbt_status st;
	if (!cap_rt_ready())
		return 0;
	st = sbt_checkpoint_compute(data, len, &cp);
	if (st != SBT_OK) {
		CAP_ERROR("checkpoint of call %" PRIu64 " (%" PRIu64 " bytes): %s", call_seq,
		          len, sbt_strerror(st));
		goto out;
	}
	cp.call_seq = call_seq;
	cp.object = object;
	cp.offset = offset;
	st = sbt_checkpoint_encode(&cp, &buf, &n);
	if (st != SBT_OK) {
		CAP_ERROR("checkpoint of call %" PRIu64 ": %s", call_seq, sbt_strerror(st));
		goto out_free_cp;
	}
	seq = cap_rt_record(SBT_TYPE_CHECKPOINT, 0, buf, n,
	                    (uintptr_t)__builtin_return_address(0));
	free(buf);
out_free_cp:
	sbt_checkpoint_free(&cp);
out:
	return seq;
}

uint64_t cap_rt_record_(uint32_t type, const void *payload, size_t len)
{
	return cap_rt_record(type, 0, payload, len, 0);
}

uint64_t cap_keyframe_begin(const void *payload, size_t len)
{
	return cap_rt_record(SBT_TYPE_KEYFRAME, 0, payload, len,
	                     (uintptr_t)__builtin_return_address(0));
}

int cap_enter(void)
{
	return cap_enter_inline();
}

void cap_leave(void)
{
	if (cap_tls_depth > 0)
		cap_leave_inline();
}

/* ---- types, metadata, callbacks --------------------------------------- */

/* Called with reg_mu held. */
static int cap_rt_reg_add(uint32_t type, const char *key, const char *value)
{
	cap_kv *kv = calloc(1, sizeof(*kv));
	if (!kv)
		return -1;
	kv->type = type;
	kv->key = key ? strdup(key) : NULL;
	kv->value = strdup(value);
	if ((key && !kv->key) || !kv->value) {
		free(kv->key);
		free(kv->value);
		free(kv);
		return -1;
	}
	if (!cap_g.reg_tail)
		cap_g.reg_tail = &cap_g.reg_head;
	*cap_g.reg_tail = kv;
	cap_g.reg_tail = &kv->next;
	atomic_store(&cap_g.reg_dirty, 1);
	return 0;
}

/* 1 when `api` is one of the comma-separated names in list. */
static int cap_rt_list_has(const char *list, const char *api)
{
	size_t n = strlen(api);
	for (const char *p = list; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, api, n) == 0)
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

void cap_register_api(const char *api, const cap_type_desc *types, size_t ntypes)
{
	int failed = 0;
	pthread_once(&cap_rt_once, cap_rt_global_init);
	pthread_mutex_lock(&cap_g.reg_mu);
	for (size_t i = 0; i < ntypes; i++)
		if (types[i].name && cap_rt_reg_add(types[i].type, NULL, types[i].name) != 0)
			failed = 1;
	if (api && api[0] && !cap_rt_list_has(cap_g.api_list, api)) {
		size_t old = cap_g.api_list ? strlen(cap_g.api_list) : 0;
		char *s = realloc(cap_g.api_list, old + strlen(api) + 2);
		if (s) {
			if (old)
				s[old++] = ',';
			strcpy(s + old, api);
			cap_g.api_list = s;
			if (cap_rt_reg_add(0, "api", s) != 0)
				failed = 1;
		} else {
			failed = 1;
		}
	}
	pthread_mutex_unlock(&cap_g.reg_mu);
	if (failed)
		CAP_ERROR("out of memory registering API '%s'", api ? api : "");
}

void cap_set_meta(const char *key, const char *value)
{
	int rc;
	if (!key || !value)
		return;
	pthread_once(&cap_rt_once, cap_rt_global_init);
	pthread_mutex_lock(&cap_g.reg_mu);
	rc = cap_rt_reg_add(0, key, value);
	pthread_mutex_unlock(&cap_g.reg_mu);
	if (rc != 0)
		CAP_ERROR("out of memory setting metadata '%s'", key);
}

void cap_on_shutdown(void (*fn)(void))
{
	int full = 0;
	pthread_once(&cap_rt_once, cap_rt_global_init);
	pthread_mutex_lock(&cap_g.reg_mu);
	if (cap_g.n_on_shutdown < (int)(sizeof(cap_g.on_shutdown) / sizeof(cap_g.on_shutdown[0])))
		cap_g.on_shutdown[cap_g.n_on_shutdown++] = fn;
	else
		full = 1;
	pthread_mutex_unlock(&cap_g.reg_mu);
	if (full)
		CAP_ERROR("too many shutdown callbacks; one is not called");
}

/* ---- flush, shutdown, stats ------------------------------------------- */

void cap_flush(void)
{
	uint64_t r;
	if (atomic_load(&cap_g.state) != CAP_ST_RUNNING || cap_tls_is_writer)
		return;
	r = atomic_fetch_add(&cap_g.flush_req, 1) + 1;
	cap_writer_wake();
	cap_rt_wait_writer(&cap_g.flush_done, r, 1);
}

static void cap_rt_run_callbacks(void)
{
	void (*fns[16])(void);
	int n;
	pthread_mutex_lock(&cap_g.reg_mu);
	n = cap_g.n_on_shutdown;
	memcpy(fns, cap_g.on_shutdown, sizeof(fns));
	cap_g.n_on_shutdown = 0;
	pthread_mutex_unlock(&cap_g.reg_mu);
	for (int i = 0; i < n; i++)
		fns[i]();
}

/*
 * Stop the writer thread and finish the trace.  at_exit (the atexit
 * handler, the ELF destructor): the trace being written (the whole run's,
 * or a capture window open at exit that is not empty) is finished, index
 * and trailer, but recording goes on (CAP_ST_LATE): the libraries' own
 * exit code still makes calls (a cuBLAS handle's teardown, run by glibc's
 * _dl_fini after this library's destructor), and the threads that make
 * them write them (cap_writer_late_write_).  The front-ends' shutdown
 * callbacks (their exit reports) then wait for cap_rt_late_end, so that
 * they count those calls too.  A windowed run that ends between windows
 * records nothing more, as between windows, and its callbacks wait too.
 */
static void cap_rt_shutdown(int at_exit)
{
	int st, late, postponed;
	pthread_once(&cap_rt_once, cap_rt_global_init);
	if (cap_tls_is_writer || atomic_load(&cap_g.state) == CAP_ST_LATE ||
	    atomic_load(&cap_g.callbacks_late))
		return; /* at exit, done already */
	postponed = at_exit && (atomic_load(&cap_g.state) == CAP_ST_RUNNING ||
	                        atomic_load(&cap_g.state) == CAP_ST_CLOSED);
	if (!postponed)
		cap_rt_run_callbacks();
	cap_window_exit_report_();
	pthread_mutex_lock(&cap_g.start_mu);
	st = atomic_load(&cap_g.state);
	late = postponed && st == CAP_ST_RUNNING && cap_g.writer_started;
	if (st == CAP_ST_RUNNING || st == CAP_ST_FAILED || st == CAP_ST_CLOSED ||
	    st == CAP_ST_OPENING) {
		if (late) {
			/* A record made from now on waits on late_mu for the file
			 * the writer thread leaves behind. */
			pthread_mutex_lock(&cap_g.late_mu);
			atomic_store(&cap_g.late_keep, 1);
			atomic_store(&cap_g.state, CAP_ST_LATE);
		} else {
			atomic_store(&cap_g.state, CAP_ST_STOPPED);
		}
		/* from running, or failed (the writer zeroes no word) */
		cap_rt_fast_stop_();
		if (cap_g.writer_started) {
			atomic_store(&cap_g.stopping, 1);
			cap_writer_wake();
			pthread_join(cap_g.writer_thread, NULL);
			munmap(cap_g.writer_stack, CAP_WRITER_STACK_BYTES);
			cap_g.writer_stack = NULL;
			cap_g.writer_started = 0;
			sem_destroy(&cap_g.wake);
		}
		if (st == CAP_ST_RUNNING && cap_g.cfg.triggers) {
			/* A window open at exit: its file, named or removed while
			 * late records still wait on late_mu. */
			if (!cap_window_drop_empty_()) {
				cap_window_take_main_name_();
			} else if (late) {
				/* Empty, so removed: the run ends between windows. */
				sbt_writer_close(cap_writer_late_disown_());
				atomic_store(&cap_g.ended_closed, 1);
				atomic_store(&cap_g.state, CAP_ST_STOPPED);
				late = 0;
				pthread_mutex_unlock(&cap_g.late_mu);
			}
		}
		if (late)
			pthread_mutex_unlock(&cap_g.late_mu);
		if (st == CAP_ST_CLOSED)
			atomic_store(&cap_g.ended_closed, 1);
		cap_sig_uninstall();
		if (atomic_load(&cap_g.kf_bytes))
			CAP_INFO("keyframes: %.1f MiB copied from device memory, %.3f s waiting for the "
			         "copies, %.3f s storing them (%d page-hash thread%s)",
			         (double)atomic_load(&cap_g.kf_bytes) / (1u << 20),
			         (double)atomic_load(&cap_g.kf_wait_ns) / 1e9,
			         (double)atomic_load(&cap_g.kf_store_ns) / 1e9, cap_pages_workers_(),
			         cap_pages_workers_() == 1 ? "" : "s");
		if (atomic_load(&cap_g.n_stalls))
			CAP_WARN("recording waited for the writer %" PRIu64 " times, %.3f s in all "
			         "(TRACESMITH_MEMORY_MB=%" PRIu64 ")",
			         atomic_load(&cap_g.n_stalls),
			         (double)atomic_load(&cap_g.stall_ns) / 1e9,
			         cap_g.cfg.memory_bound >> 20);
	} else if (st == CAP_ST_IDLE) {
		atomic_store(&cap_g.state, CAP_ST_STOPPED);
	}
	pthread_mutex_unlock(&cap_g.start_mu);
	CAP_DEBUG("shutdown %s in state %d: %s", at_exit ? "at exit" : "by cap_shutdown", st,
	          late ? "the trace is finished, recording goes on" : "recording stopped");
	if (postponed && (late || atomic_load(&cap_g.ended_closed)))
		atomic_store(&cap_g.callbacks_late, 1); /* cap_rt_late_end runs them */
	else if (postponed)
		cap_rt_run_callbacks(); /* recording had stopped already */
}

void cap_shutdown(void)
{
	cap_rt_shutdown(0);
}

void cap_shutdown_at_fini(void)
{
	atomic_store(&cap_g.shutdown_at_fini, 1);
}

static void cap_rt_atexit(void)
{
	/* A process that never recorded writes nothing, and may still be
	 * recorded by an exit handler registered after ours. */
	if (atomic_load(&cap_g.state) == CAP_ST_IDLE && cap_g.n_on_shutdown == 0)
		return;
	if (atomic_load(&cap_g.shutdown_at_fini))
		return;
	cap_rt_shutdown(1);
}

/*
 * The end of a run finished at exit: registered by the destructor while glibc
 * runs the destructors (_dl_fini, itself an exit handler), it runs once
 * they are all done: glibc runs the handlers registered while exiting,
 * newest first, after the one running.  Until then the calls made in the
 * libraries' exit code wait in the buffers (late_batch): each written at
 * once would rewrite the index each time, tens of bytes per chunk and per
 * blob page of the trace.  Here they are written, the front-ends' reports
 * count every call, and the file gets the counters and the reports'
 * metadata and is finished once more.  A call made later still (an exit
 * handler registered earlier, another thread) is written at once.
 */
static void cap_rt_late_end(void *arg)
{
	uint64_t n;
	(void)arg;
	CAP_DEBUG("the last exit handler: the late calls, the exit reports, the trace finished");
	/* Cleared before the round: a record sealed while it was set is in it
	 * (cap_rt_late_write), one sealed after is written by its thread. */
	atomic_store(&cap_g.late_batch, 0);
	cap_rt_run_callbacks();
	pthread_mutex_lock(&cap_g.late_mu);
	cap_writer_late_write_(1);
	pthread_mutex_unlock(&cap_g.late_mu);
	n = atomic_load(&cap_g.n_late);
	if (n)
		CAP_INFO("%" PRIu64 " record%s made after the trace was finished at exit %s in it",
		         n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

/* A front-end shared object may be unloaded; finish the trace while the
 * writer's code is still mapped.  Linked -z nodelete this runs at exit,
 * after (or instead of) the atexit handler: shutdown is idempotent. */
__attribute__((destructor)) static void cap_rt_destructor(void)
{
	if (atomic_load(&cap_g.state) == CAP_ST_RUNNING ||
	    atomic_load(&cap_g.state) == CAP_ST_FAILED ||
	    atomic_load(&cap_g.state) == CAP_ST_CLOSED ||
	    (atomic_load(&cap_g.shutdown_at_fini) && cap_g.n_on_shutdown))
		cap_rt_shutdown(1);
	/* Not atexit(): that registers under this object's handle, and the
	 * object's own finalisation (__cxa_finalize, from its fini array) would
	 * run the handler right away, before the other objects' destructors.
	 * No handle: only exit runs it. */
	if ((atomic_load(&cap_g.state) == CAP_ST_LATE || atomic_load(&cap_g.callbacks_late)) &&
	    !atomic_exchange(&cap_g.late_end_armed, 1)) {
		atomic_store(&cap_g.late_batch, 1);
		if (__cxa_atexit(cap_rt_late_end, NULL, NULL) != 0)
			cap_rt_late_end(NULL);
	}
}

void cap_get_stats(cap_stats *out)
{
	uint64_t seq = atomic_load(&cap_g.next_seq);
	uint64_t blob = atomic_load(&cap_g.next_blob);
	memset(out, 0, sizeof(*out));
	out->records = seq ? seq - 1 : 0;
	out->blobs = blob ? blob - 1 : 0;
	out->blob_bytes = atomic_load(&cap_g.n_blob_bytes);
	out->stalls = atomic_load(&cap_g.n_stalls);
	out->stall_ns = atomic_load(&cap_g.stall_ns);
	out->stacks_taken = atomic_load(&cap_g.n_stacks_taken);
	out->stacks_unique = atomic_load(&cap_g.n_stacks_unique);
}

const char *cap_output_path(void)
{
	return cap_g.path;
}

/* ---- fork ------------------------------------------------------------- */

/*
 * In the child only the forking thread exists.  The parent's buffered
 * records are the parent's to write: drop them, forget the writer (its
 * descriptor is closed, its memory leaked rather than touched: closing it
 * would append an index to the parent's file), and start over lazily with
 * the child's own <stem>-<pid>.sbt.  Locks another parent thread may have
 * held are re-created.
 */
/*
 * Before fork: wait for the writer to finish its round (cap_internal.h,
 * fork_mu).  The writer allocates as it works, and a child inherits a
 * lock an allocator held for it with no thread to release it: under some
 * allocators (ASan's) the child's own writer then waited for ever.  The
 * application's threads are the program's to keep out of fork's way.
 */
static void cap_rt_atfork_prepare(void)
{
	atomic_fetch_add(&cap_g.fork_waiting, 1);
	pthread_mutex_lock(&cap_g.fork_mu);
}

static void cap_rt_atfork_parent(void)
{
	pthread_mutex_unlock(&cap_g.fork_mu);
	atomic_fetch_sub(&cap_g.fork_waiting, 1);
}

static void cap_rt_atfork_child(void)
{
	int st = atomic_load(&cap_g.state);
	cap_thread *t;
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

	cap_g.fork_mu = mu;
	atomic_store(&cap_g.fork_waiting, 0);
	atomic_store(&cap_g.writer_alive, 0);

	cap_g.cfg.exact_output = 0;
	cap_g.start_mu = mu;
	cap_g.flush_mu = mu;
	cap_g.stall_mu = mu;
	cap_g.warm_mu = mu;
	while (cap_g.warm) { /* the parent's, copied: the child's own now */
		cap_block *nb = cap_g.warm->next;
		cap_block_free_(cap_g.warm);
		cap_g.warm = nb;
	}
	atomic_store(&cap_g.warm_n, 0);
	cap_g.reg_mu = mu;
	cap_g.win_mu = mu;
	cap_g.flush_cv = cv;
	cap_g.stall_cv = cv;
	cap_g.late_mu = mu;
	atomic_store(&cap_g.late_keep, 0);
	atomic_store(&cap_g.late_end_armed, 0);
	atomic_store(&cap_g.n_late, 0);
	atomic_store(&cap_g.ended_closed, 0);
	atomic_store(&cap_g.callbacks_late, 0);
	atomic_store(&cap_g.late_batch, 0);
	if (st == CAP_ST_IDLE || st == CAP_ST_DISABLED)
		return;
	t = atomic_load(&cap_g.threads);
	while (t) {
		cap_thread *next = t->next;
		cap_block *lists[3 + CAP_SPARE_BIG_SLOTS] = {t->head, t->spare_own,
		                                             atomic_load(&t->spare)};
		for (unsigned i = 0; i < CAP_SPARE_BIG_SLOTS; i++)
			lists[3 + i] = atomic_load(&t->spare_big[i]);
		for (unsigned i = 0; i < 3 + CAP_SPARE_BIG_SLOTS; i++) {
			cap_block *b = lists[i];
			while (b) {
				cap_block *nb = b->next;
				cap_block_free_(b);
				b = nb;
			}
		}
		free(t->page_cache);
		free(t->page_scratch);
		free(t);
		t = next;
	}
	atomic_store(&cap_g.threads, NULL);
	cap_tls_thread = &cap_thread_none;
	pthread_setspecific(cap_g.thread_key, NULL);
	cap_g.generation++;
	if (cap_g.fd >= 0)
		close(cap_g.fd);
	cap_g.fd = -1;
	if (st == CAP_ST_LATE)
		cap_g.writer = cap_writer_late_disown_();
	if (cap_g.writer) {
		memmove(cap_g.abandoned + 1, cap_g.abandoned,
		        sizeof(cap_g.abandoned) - sizeof(cap_g.abandoned[0]));
		cap_g.abandoned[0] = cap_g.writer;
	}
	cap_g.writer = NULL;
	cap_g.writer_started = 0;
	cap_g.writer_stack = NULL; /* left mapped: see cap_rt_spawn_writer */
	free(cap_g.path);
	cap_g.path = NULL;
	atomic_store(&cap_g.next_seq, 0);
	atomic_store(&cap_g.next_blob, 0);
	atomic_store(&cap_g.buffered, 0);
	atomic_store(&cap_g.drained, 0);
	atomic_store(&cap_g.spare_bytes, 0);
	atomic_store(&cap_g.stall_waiters, 0);
	atomic_store(&cap_g.flush_req, 0);
	atomic_store(&cap_g.flush_done, 0);
	atomic_store(&cap_g.stopping, 0);
	atomic_store(&cap_g.writer_sleeping, 0);
	atomic_store(&cap_g.dropped_warned, 0);
	atomic_store(&cap_g.n_stalls, 0);
	atomic_store(&cap_g.stall_ns, 0);
	atomic_store(&cap_g.n_blob_bytes, 0);
	atomic_store(&cap_g.n_stacks_taken, 0);
	atomic_store(&cap_g.n_stacks_unique, 0);
	atomic_store(&cap_g.kf_bytes, 0);
	atomic_store(&cap_g.kf_wait_ns, 0);
	atomic_store(&cap_g.kf_store_ns, 0);
	atomic_store(&cap_g.reg_dirty, 1);
	atomic_store(&cap_g.state, CAP_ST_IDLE);
}
