/*
 * tcd_guard.c - running host code that may follow a wild device address
 * (kernels, twins, the reading of an image the program pointed at) without
 * losing the process to SIGSEGV or SIGBUS.
 *
 * A GPU kernel that touches an address outside every allocation does not
 * crash the program: the driver reports CUDA_ERROR_ILLEGAL_ADDRESS, and the
 * context stays broken.  The double's kernels are host code, so their wild
 * access is a fault of the process.  tcd_guard_call runs a function with a
 * SIGSEGV/SIGBUS handler installed; a fault on the thread running it jumps
 * back (siglongjmp) and is reported to the caller.
 *
 * The handler is the double's only while some thread is inside a guarded
 * call: the first to enter installs it (keeping what was there), the last to
 * leave puts the previous disposition back.  A fault meanwhile on a thread
 * that is not inside a guarded call is not the double's: the handler
 * reinstates the previous disposition and returns, so the faulting
 * instruction runs again under it and a real crash still crashes (or reaches
 * the program's own handler).  Code run guarded must not hold locks or
 * half-built state a jump would abandon; what it allocated may leak.
 */
#include "tests/doubles/cuda/tcd.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

/* The jump target of the guarded call running on this thread, if any.
 * Thread-local: each stream worker runs its own kernels. */
static __thread sigjmp_buf *tcd_guard_jmp;
static __thread uintptr_t tcd_guard_addr;

static struct {
	pthread_mutex_t lock; /* guards the rest */
	unsigned active;      /* guarded calls in progress */
	struct sigaction prev_segv, prev_bus;
} tcd_guard_g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void tcd_guard_handler(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *jb = tcd_guard_jmp;

	(void)uc;
	if (jb) {
		tcd_guard_jmp = NULL;
		tcd_guard_addr = (uintptr_t)si->si_addr;
		siglongjmp(*jb, 1);
	}
	/* Not a guarded call's fault: let the previous disposition take it when
	 * the instruction runs again. */
	sigaction(sig, sig == SIGBUS ? &tcd_guard_g.prev_bus : &tcd_guard_g.prev_segv, NULL);
}

static void tcd_guard_enter(void)
{
	struct sigaction sa;

	pthread_mutex_lock(&tcd_guard_g.lock);
	if (tcd_guard_g.active++ == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = tcd_guard_handler;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, &tcd_guard_g.prev_segv);
		sigaction(SIGBUS, &sa, &tcd_guard_g.prev_bus);
	}
	pthread_mutex_unlock(&tcd_guard_g.lock);
}

static void tcd_guard_leave(void)
{
	pthread_mutex_lock(&tcd_guard_g.lock);
	if (--tcd_guard_g.active == 0) {
		sigaction(SIGSEGV, &tcd_guard_g.prev_segv, NULL);
		sigaction(SIGBUS, &tcd_guard_g.prev_bus, NULL);
	}
	pthread_mutex_unlock(&tcd_guard_g.lock);
}

bool tcd_guard_call(void (*fn)(void *arg), void *arg, uintptr_t *fault_addr)
{
	sigjmp_buf jb;
	volatile bool faulted = false;

	tcd_guard_enter();
	if (sigsetjmp(jb, 1) == 0) {
		tcd_guard_jmp = &jb;
		fn(arg);
	} else {
		faulted = true;
		if (fault_addr)
			*fault_addr = tcd_guard_addr;
	}
	tcd_guard_jmp = NULL;
	tcd_guard_leave();
	return faulted;
}
